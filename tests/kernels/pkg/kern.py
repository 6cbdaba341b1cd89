import triton
import triton.language as tl

from .utils import scaled, twice_scaled
from . import utils
from .sub import consts


@triton.jit
def rel_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # helpers of the same package, through `from .m import f`, `from . import m`
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = scaled(x) + utils.twice_scaled(x) * consts.SCALE
    tl.store(out_ptr + offs, y, mask=mask)
