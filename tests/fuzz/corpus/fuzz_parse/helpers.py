import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _gelu_tanh(x):
    # tanh approximation of GELU; the constant is sqrt(2 / pi).
    k0 = 0.7978845608028654
    inner = k0 * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1.0 + libdevice.tanh(inner))


@triton.jit
def _load_row(ptr, row, stride, cols, n):
    return tl.load(ptr + row * stride + cols, mask=cols < n, other=0.0)


@triton.jit
def bias_gelu_kernel(x_ptr, bias_ptr, out_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = _load_row(x_ptr, row, stride, cols, N)
    b = tl.load(bias_ptr + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + row * stride + cols, _gelu_tanh(x + b), mask=cols < N)


@triton.jit
def _square(x):
    return x * x


@triton.jit
def _norm2(x, y):
    # A helper calling a helper defined before it.
    return tl.sqrt(_square(x) + _square(y))


@triton.jit
def hypot_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, _norm2(x, y), mask=mask)
