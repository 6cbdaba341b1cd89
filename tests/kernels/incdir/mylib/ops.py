import triton
import triton.language as tl


@triton.jit
def square_plus(x, c: tl.constexpr):
    return x * x + c
