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
