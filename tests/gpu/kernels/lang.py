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


@triton.jit
def cumsum_blocks_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, REVERSE: tl.constexpr):
    # each program scans its own block of BLOCK elements
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.cumsum(x, 0, reverse=REVERSE), mask=offs < n)


@triton.jit
def cumprod_rev_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=1.0)
    tl.store(out_ptr + offs, x.cumprod(axis=0, reverse=True), mask=offs < n)


@triton.jit
def cumsum_rows_kernel(x_ptr, out_ptr, N, BLOCK_N: tl.constexpr):
    # one row per program
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + row * N + cols, tl.cumsum(x, axis=0), mask=cols < N)


@triton.jit
def scan_tile_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, AXIS: tl.constexpr):
    # a BLOCK_M x BLOCK_N tile per program, scanned along AXIS (0: down the
    # columns of the tile, 1: along its rows)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < M) & (cols < N)
    x = tl.load(x_ptr + rows * N + cols, mask=mask, other=0)
    tl.store(out_ptr + rows * N + cols, tl.cumsum(x, axis=AXIS), mask=mask)


@triton.jit
def _affine(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def _first_max(v1, i1, v2, i2):
    take = v2 > v1
    return tl.where(take, v2, v1), tl.where(take, i2, i1)


@triton.jit
def recurrence_kernel(a_ptr, b_ptr, h_ptr, m_ptr, mi_ptr, n, BLOCK: tl.constexpr, REVERSE: tl.constexpr):
    # h = a * h + b per block in wrapping int32 (exact in any order; the
    # combine does not commute), and a running maximum with its first index
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    _, h = tl.associative_scan((a, b), 0, _affine, reverse=REVERSE)
    tl.store(h_ptr + offs, h, mask=mask)
    m, mi = tl.associative_scan((b, offs), axis=0, combine_fn=_first_max, reverse=REVERSE)
    tl.store(m_ptr + offs, m, mask=mask)
    tl.store(mi_ptr + offs, mi, mask=mask)


@triton.jit
def while_and_or_kernel(x_ptr, out_ptr, n, limit):
    # a runtime while whose condition combines comparisons with and/or
    pid = tl.program_id(0).to(tl.int64)
    i = 0
    acc = 0.0
    while (i < n and acc < limit) or i == 0:
        acc += tl.load(x_ptr + pid * n + i)
        i += 1
    tl.store(out_ptr + pid, acc + i * 1000.0)


@triton.jit
def umulhi_kernel(a_ptr, b_ptr, hi_ptr, shi_ptr, lhi_ptr, n, BLOCK: tl.constexpr):
    # int32 storage, unsigned views by bitcast
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    ua = a.to(tl.uint32, bitcast=True)
    ub = b.to(tl.uint32, bitcast=True)
    tl.store(hi_ptr + offs, tl.umulhi(ua, ub).to(tl.int32, bitcast=True), mask=mask)
    tl.debug_barrier()
    tl.store(shi_ptr + offs, tl.umulhi(a, b), mask=mask)
    wide = tl.umulhi(ua.to(tl.uint64) << 20, ub.to(tl.uint64) << 30)
    tl.store(lhi_ptr + offs, wide.to(tl.int64, bitcast=True), mask=mask)


@triton.jit
def _add_combine(a, b):
    return a + b


@triton.jit
def _max_first_combine(v1, i1, v2, i2):
    take = (v2 > v1) | ((v2 == v1) & (i2 < i1))
    return tl.where(take, v2, v1), tl.where(take, i2, i1)


@triton.jit
def reduce_fn_kernel(x_ptr, max_ptr, idx_ptr, sum_ptr, total_ptr, M, N, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr):
    # tl.reduce with @jit combine functions (int32: exact in any order): a
    # (max, first index) tuple along rows, column sums with keep_dims, the
    # whole block with axis=None as a method
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0)
    idx = tl.broadcast_to(cols[None, :], (BLOCK_M, BLOCK_N))
    m, mi = tl.reduce((tl.where(mask, x, -2147483648), idx), 1, _max_first_combine)
    tl.store(max_ptr + rows, m, mask=rows < M)
    tl.store(idx_ptr + rows, mi, mask=rows < M)
    (s,) = tl.reduce((x,), axis=0, combine_fn=_add_combine, keep_dims=True)
    tl.store(sum_ptr + pid * N + cols[None, :], s, mask=cols[None, :] < N)
    tl.store(total_ptr + pid, x.reduce(None, _add_combine))


@triton.jit
def shapes_kernel(x_ptr, y_ptr, join_ptr, inter_ptr, a_ptr, b_ptr, flip_ptr, flip0_ptr, cat_ptr, n,
                  BLOCK: tl.constexpr):
    # tl.join, tl.interleave, tl.split, tl.flip (dim 0 of 1-D and 2-D blocks) per block;
    # tl.cat may reorder its elements (in Triton too), so only its sum and
    # maximum are stored
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    y = tl.load(y_ptr + offs, mask=mask, other=0)
    two = tl.arange(0, 2)
    tl.store(join_ptr + offs[:, None] * 2 + two[None, :], tl.join(x, y), mask=mask[:, None])
    io = pid * 2 * BLOCK + tl.arange(0, 2 * BLOCK)
    tl.store(inter_ptr + io, tl.interleave(x, y), mask=io < 2 * n)
    a, b = tl.split(tl.reshape(x, (BLOCK // 2, 2)))
    ho = pid * (BLOCK // 2) + tl.arange(0, BLOCK // 2)
    tl.store(a_ptr + ho, a, mask=2 * ho < n)
    tl.store(b_ptr + ho, b, mask=2 * ho < n)
    tl.store(flip_ptr + offs, tl.flip(x, 0), mask=mask)
    t = tl.reshape(y, (4, BLOCK // 4))
    r4 = pid * BLOCK + tl.arange(0, 4)[:, None] * (BLOCK // 4) + tl.arange(0, BLOCK // 4)[None, :]
    tl.store(flip0_ptr + r4, t.flip(0), mask=r4 < n)
    c = tl.cat(x, y, can_reorder=True)
    tl.store(cat_ptr + 2 * pid, tl.sum(c, axis=0))
    tl.store(cat_ptr + 2 * pid + 1, tl.max(c, axis=0))


@triton.jit
def block_ptr_copy_kernel(x_ptr, out_ptr, zero_ptr, nan_ptr, M, N, stride_m, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, OFF_M: tl.constexpr, OFF_N: tl.constexpr):
    # a block read at an offset that may start before the matrix (OFF_M < 0)
    # and reach past it, with zero and nan padding, stored back through
    # block pointers (every access checked on both dims: an unchecked dim
    # would read past the buffer here)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(stride_m, 1),
                          offsets=(pid_m * BLOCK_M + OFF_M, pid_n * BLOCK_N + OFF_N),
                          block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    o = tl.make_block_ptr(out_ptr, (M, N), (stride_m, 1), (pid_m * BLOCK_M, pid_n * BLOCK_N), (BLOCK_M, BLOCK_N),
                          (1, 0))
    v = tl.load(x, boundary_check=(0, 1), padding_option="zero")
    tl.store(o, v, boundary_check=(1, 0))
    z = tl.make_block_ptr(zero_ptr, (M, N), (stride_m, 1), (pid_m * BLOCK_M, pid_n * BLOCK_N), (BLOCK_M, BLOCK_N),
                          (1, 0))
    tl.store(z, tl.load(x, boundary_check=(1, 0), padding_option="zero") * 2.0, boundary_check=(0, 1))
    nn = tl.make_block_ptr(nan_ptr, (M, N), (stride_m, 1), (pid_m * BLOCK_M, pid_n * BLOCK_N), (BLOCK_M, BLOCK_N),
                           (1, 0))
    tl.store(nn, tl.load(tl.advance(x, (0, 0)), boundary_check=(0, 1), padding_option="nan"), boundary_check=(0, 1))


@triton.jit
def block_ptr_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                            stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # the block-pointer matmul: both pointers advanced along K in the loop
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_bp = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                             offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_bp = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                             offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_bp, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_bp, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b)
        a_bp = tl.advance(a_bp, (0, BLOCK_K))
        b_bp = tl.advance(b_bp, [BLOCK_K, 0])
    c_bp = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (pid_m * BLOCK_M, pid_n * BLOCK_N),
                             (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_bp, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def sort_kernel(x_ptr, asc_ptr, desc_ptr, n, ROWS: tl.constexpr, N: tl.constexpr):
    # ROWS rows of N per program sorted both ways by the bitonic network (the
    # same network in tile, so NaNs and -0.0 land where Triton puts them)
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    offs = rows[:, None] * N + tl.arange(0, N)[None, :]
    mask = rows[:, None] < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(asc_ptr + offs, tl.sort(x), mask=mask)
    tl.store(desc_ptr + offs, tl.sort(x, dim=1, descending=True), mask=mask)


@triton.jit
def topk_kernel(x_ptr, top_ptr, n, ROWS: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # each row's K largest, largest first (Triton's bitonic top-k)
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    offs = rows[:, None] * N + tl.arange(0, N)[None, :]
    mask = rows[:, None] < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(top_ptr + rows[:, None] * K + tl.arange(0, K)[None, :], tl.topk(x, K), mask=mask)


@triton.jit
def gather_hist_kernel(x_ptr, idx_ptr, g_ptr, g0_ptr, h_ptr, hm_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    # per program an 8 x BLOCK tile: tl.gather along rows (idx in [0, BLOCK))
    # and along columns (idx % 8); tl.histogram of the tile's idx (values in
    # [0, BINS)) with and without a mask
    pid = tl.program_id(0)
    r = tl.arange(0, 8)[:, None]
    c = tl.arange(0, BLOCK)[None, :]
    base = pid * 8 * BLOCK
    x = tl.load(x_ptr + base + r * BLOCK + c)
    idx = tl.load(idx_ptr + base + r * BLOCK + c)
    tl.store(g_ptr + base + r * BLOCK + c, tl.gather(x, idx, 1))
    tl.store(g0_ptr + base + r * BLOCK + c, x.gather(idx % 8, axis=0))
    v = tl.reshape(idx, (8 * BLOCK,))
    tl.store(h_ptr + pid * BINS + tl.arange(0, BINS), tl.histogram(v, BINS))
    # masked: over a 1-D load (Triton 3.6 pairs the mask with the wrong
    # elements of a reshaped block: its count differs from torch's there)
    o = tl.arange(0, 8 * BLOCK)
    v1 = tl.load(idx_ptr + base + o)
    tl.store(hm_ptr + pid * BINS + tl.arange(0, BINS), v1.histogram(BINS, mask=o < n))


@triton.jit
def debug_kernel(x_ptr, out_ptr, n, LIMIT: tl.constexpr, BLOCK: tl.constexpr):
    # device asserts and prints: left out unless compiled in debug mode (tile
    # prints only with --debug, Triton always: only the outputs are compared)
    tl.static_print("debug_kernel BLOCK =", BLOCK)
    tl.static_assert(BLOCK >= 4, "BLOCK too small")
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x < LIMIT, "x is too large")
    assert n > 0, "n must be positive"
    tl.device_assert(x >= 0, "x is negative", mask=offs < n)
    print("sum", tl.sum(x, axis=0))
    tl.device_print("x ", x, offs, hex=False)
    tl.store(out_ptr + offs, x + 1, mask=offs < n)


@triton.jit
def inline_asm_kernel(a_ptr, b_ptr, c_ptr, d_ptr, h_ptr, n, BLOCK: tl.constexpr):
    # Triton's documented example: uint8 and float32 in, 4 elements a call
    # (the bytes packed into one register), an int32 and a float32 out; and
    # fp16 pairs added by one add.f16x2
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    (c, d) = tl.inline_asm_elementwise(
        asm="""
        {
            .reg .b8 tmp<4>;
            mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;
            cvt.u32.u8 $0, tmp0;
            cvt.u32.u8 $1, tmp1;
            cvt.u32.u8 $2, tmp2;
            cvt.u32.u8 $3, tmp3;
        }
        cvt.rn.f32.s32 $4, $0;
        cvt.rn.f32.s32 $5, $1;
        cvt.rn.f32.s32 $6, $2;
        cvt.rn.f32.s32 $7, $3;
        max.f32 $4, $4, $9;
        max.f32 $5, $5, $10;
        max.f32 $6, $6, $11;
        max.f32 $7, $7, $12;
        """,
        constraints=("=r,=r,=r,=r,=r,=r,=r,=r,"
                     "r,r,r,r,r"),
        args=[a, b], dtype=(tl.int32, tl.float32), is_pure=True, pack=4)
    tl.store(c_ptr + offs, c, mask=mask)
    tl.store(d_ptr + offs, d, mask=mask)
    h = b.to(tl.float16)
    s = tl.inline_asm_elementwise("add.f16x2 $0, $1, $2;", "=r,r,r", [h, h], dtype=tl.float16, is_pure=True, pack=2)
    tl.store(h_ptr + offs, s, mask=mask)


@triton.jit
def cuda_helpers_kernel(out_ptr):
    # triton.language.extra.cuda: the timer does not run backwards, the SM id
    # is not negative, num_threads/num_warps are the launch's
    t0 = tl.extra.cuda.globaltimer()
    sm = tl.extra.cuda.smid()
    t1 = tl.extra.cuda.globaltimer()
    tl.store(out_ptr, (t1 >= t0).to(tl.int32))
    tl.store(out_ptr + 1, (sm >= 0).to(tl.int32))
    tl.store(out_ptr + 2, tl.extra.cuda.num_threads())
    tl.store(out_ptr + 3, tl.extra.cuda.num_warps())


@triton.jit
def block_ptr_if_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # a block pointer advanced in one branch of a runtime if, read after it
    pid = tl.program_id(0)
    p = tl.make_block_ptr(x_ptr, (n,), (1,), (pid * BLOCK,), (BLOCK,), (0,))
    if pid % 2 == 1:
        p = tl.advance(p, (-BLOCK,))
    else:
        p = tl.advance(p, (0,))
    o = tl.make_block_ptr(out_ptr, (n,), (1,), (pid * BLOCK,), (BLOCK,), (0,))
    tl.store(o, tl.load(p, boundary_check=(0,), padding_option="zero"), boundary_check=(0,))
