# @jit helpers that tests/gpu/kernels/cross_file.py imports from this package
import triton
import triton.language as tl

NEGATIVE_SLOPE = tl.constexpr(0.125)  # Triton reads only constexpr globals


@triton.jit
def leaky(x):
    return tl.where(x >= 0, x, x * NEGATIVE_SLOPE)


@triton.jit
def leaky_then_square(x):
    y = leaky(x)
    return y * y
