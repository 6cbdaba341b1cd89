import triton
import triton.language as tl


@triton.jit
def activation_kernel(x_ptr, out_ptr, n, slope, ACTIVATION: tl.constexpr, SCALE: tl.constexpr,
                      BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if ACTIVATION == 0:
        y = tl.maximum(x, 0.0)
    elif ACTIVATION == 1:
        y = tl.where(x >= 0, x, x * slope)
    else:
        y = tl.sigmoid(x)
    if SCALE:
        y = y * 2.0
    tl.store(out_ptr + offs, y, mask=mask)
