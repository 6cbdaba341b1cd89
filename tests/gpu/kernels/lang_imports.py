"""Version-dependent imports at module level, as kernels written for
several Triton versions have them; tile takes the binding a current Triton
takes."""
import triton
import triton.language as tl

if triton.__version__ >= "3.0":
    try:
        from triton.language.extra.libdevice import tanh
    except ModuleNotFoundError:
        from triton.language.extra.cuda.libdevice import tanh
else:
    from triton.language.math import tanh

try:
    from triton.language.extra.cuda.libdevice import fast_dividef
except ImportError:
    from triton.language.math import fast_dividef

try:
    import triton.language.extra.libdevice as ld
except ImportError:
    ld = None


@triton.jit
def imports_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tanh(x) + fast_dividef(x, 3.0) + ld.erf(x)
    tl.store(out_ptr + offs, y, mask=mask)
