import triton
import triton.language as tl


@triton.jit
def rms_rows(x_ptr, out_ptr, inv_ptr, n_cols, eps, BLOCK: tl.constexpr):
    # a row's mean square over a masked tail, the load without `other`
    # (attorch's RMS norm): masked-off elements must add nothing
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask).to(tl.float32)
    inv = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(inv_ptr + row, inv)
    tl.store(out_ptr + row * n_cols + cols, x * inv, mask=mask)


@triton.jit
def masked_other_block(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # `other` a loaded block: masked-off elements take y's
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    fill = tl.load(y_ptr + offs)
    x = tl.load(x_ptr + offs, mask=offs < n, other=fill)
    tl.store(out_ptr + offs, x)
