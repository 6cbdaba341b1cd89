import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def libdevice_kernel(x_ptr, out_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if FN == "powi":
        y = libdevice.pow(x, 3)
    elif FN == "ldexp":
        y = libdevice.ldexp(x, 2)
    elif FN == "ilogb":
        y = libdevice.ilogb(x + 1.0).to(tl.float32)
    elif FN == "fma":
        y = libdevice.fma(x, x, 0.5)
    elif FN == "normcdf":
        y = libdevice.normcdf(x)
    elif FN == "div_rn":
        y = libdevice.div_rn(x, 4.0)
    elif FN == "fast_expf":
        y = libdevice.fast_expf(x)
    elif FN == "isnan":
        y = libdevice.isnan(x.to(tl.float64)).to(tl.float32)
    elif FN == "erfinv":
        y = libdevice.erfinv(x)
    else:
        y = libdevice.div_rz(x, 4.0)
    tl.store(out_ptr + offs, y, mask=mask)
