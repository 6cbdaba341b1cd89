"""Language constructs of real kernels beyond the tiers: early returns,
branch-local temporaries, dtypes called as functions, scans and the small
builtins. Each kernel runs through Triton and tile in one process (cases.py)."""
import triton
import triton.language as tl


@triton.jit
def xent_rows_kernel(logits_ptr, labels_ptr, loss_ptr, n_cols, ignore_index, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    label = tl.load(labels_ptr + row)
    if label == ignore_index:
        tl.store(loss_ptr + row, 0.0)
        return
    cols = tl.arange(0, BLOCK)
    x = tl.load(logits_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    m = tl.max(x, axis=0)
    lse = tl.log(tl.sum(tl.exp(x - m), axis=0)) + m
    tl.store(loss_ptr + row, lse - tl.load(logits_ptr + row * n_cols + label))


@triton.jit
def _scale_or_shift(x, c):
    if c > 0:
        return x * 2.0
    elif c < -5:
        return x - 1.0
    return x + 1.0


@triton.jit
def _split(x, c):
    if c == 0:
        return x, x + 1.0
    return x, x * x


@triton.jit
def early_helpers_kernel(x_ptr, c_ptr, out_ptr, out2_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    c = tl.load(c_ptr + tl.program_id(0))
    a, b = _split(_scale_or_shift(x, c), c % 2)
    tl.store(out_ptr + offs, a, mask=mask)
    tl.store(out2_ptr + offs, b, mask=mask)


@triton.jit
def nested_return_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if pid % 2 == 0:
        x = x + 10.0
        if pid % 4 == 0:
            tl.store(out_ptr + offs, x * 0.0 - 1.0, mask=mask)
            return
        x = x * 3.0
    for k in tl.static_range(3):
        if pid % 8 == 5 + k:
            tl.store(out_ptr + offs, x + k * 100.0, mask=mask)
            return
        x = x + 1.0
    tl.store(out_ptr + offs, x, mask=mask)


@triton.jit
def branch_temps_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid % 2 == 0:
        v_off = pid * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + v_off, mask=v_off < n)
        tl.store(out_ptr + v_off, v * 2.0, mask=v_off < n)
    if pid % 2 == 1:
        v_off = pid * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + v_off, mask=v_off < n).to(tl.int32)
        tl.store(out_ptr + v_off, v, mask=v_off < n)


@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    m = tl.float32(-float("inf"))
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
    tl.store(out_ptr + row, m)


@triton.jit
def param_names_kernel(tile_row_start_ptr, n, out, grid_x, NULL, size_t, double, café,
                       lang_param_names_module, BLOCK: tl.constexpr):
    # names the generated C renames (tile_*, its own and its headers' names,
    # C keywords, non-ASCII, the blob's symbols): the arguments must still
    # arrive in order
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(tile_row_start_ptr + offs, mask=mask)
    y = x * double + grid_x + NULL * 2 + size_t + café * 3 + lang_param_names_module * 5
    tl.store(out + offs, y, mask=mask)
