import triton
import triton.language as tl


@triton.jit
def sincos_kernel(x_ptr, sin_ptr, cos_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(sin_ptr + offs, tl.sin(x), mask=mask)
    tl.store(cos_ptr + offs, tl.cos(x), mask=mask)


@triton.jit
def rotate_kernel(x_ptr, y_ptr, theta, n, BLOCK: tl.constexpr):
    # Rotates the points (x[i], y[i]) by theta, in place.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    c = tl.cos(theta)
    s = tl.sin(theta)
    tl.store(x_ptr + offs, x * c - y * s, mask=mask)
    tl.store(y_ptr + offs, x * s + y * c, mask=mask)
