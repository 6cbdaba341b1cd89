# Module-level names bound by host code: a plain function's result
# (xformers' rsqrt = libdevice_find("rsqrt")) and `try` statements (FlagGems'
# tl_extra_shim). A try whose body tilec can evaluate binds as Python does
# with Triton 3.6; one that runs host code needs --bind.
import triton
import triton.language as tl
from host_helpers import backend_module, find_fn, prepare_backend

rsqrt = find_fn("rsqrt")

try:
    shim = triton.language.extra.cuda.libdevice
except ImportError:
    shim = triton.language.math

try:
    prepare_backend()
    other = backend_module()
except ImportError:
    other = triton.language.math

try:
    import triton.language.extra.libdevice as _ld
except ImportError:
    only_in_handler = 1.0


@triton.jit
def shim_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, shim.pow(tl.load(x_ptr + offs), 2.0))


@triton.jit
def other_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, other.pow(tl.load(x_ptr + offs), 2.0))


@triton.jit
def rsqrt_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, rsqrt(tl.load(x_ptr + offs)))


@triton.jit
def handler_kernel(x_ptr):
    tl.store(x_ptr, only_in_handler)
