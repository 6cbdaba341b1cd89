import triton
import triton.language as tl

from pkg.utils import scaled
import pkg.utils as pu
from mylib.ops import square_plus  # found along -I tests/kernels/incdir


@triton.jit
def abs_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # helpers from other files: the kernel's directory, then -I
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, scaled(x) + pu.OFFSET + square_plus(x, 1.5), mask=mask)


@triton.jit
def missing_kernel(x_ptr):
    from_nowhere(x_ptr)


from nowhere.mod import from_nowhere  # noqa: E402
