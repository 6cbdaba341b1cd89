import operator

import triton
import triton.language as tl
from triton.runtime.jit import compare_version  # a host helper, never run

# Conditional and try-guarded imports, as kernels written for several
# Triton versions have them: each name takes the binding a current Triton
# takes (the first of the statement that resolves).
if compare_version("triton", operator.ge, "3.0.0"):
    try:
        from triton.language.extra.libdevice import tanh
    except ModuleNotFoundError:
        from triton.language.extra.cuda.libdevice import tanh
else:
    from triton.language.math import tanh

try:
    from triton.language.extra.cuda.libdevice import no_such_function as erf_like
except ImportError:
    from triton.language.math import erf as erf_like

try:
    import triton.language.extra.libdevice as ld
except ImportError:
    ld = None


@triton.jit
def imports_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # tl.math.tanh, tl.math.pow: Triton 2.x's tl.math names of libdevice functions
    y = tanh(x) + erf_like(x) + tl.math.tanh(x) * 2.0 + tl.math.pow(x, 2.0) + ld.exp(x)
    tl.store(out_ptr + offs, y, mask=mask)
