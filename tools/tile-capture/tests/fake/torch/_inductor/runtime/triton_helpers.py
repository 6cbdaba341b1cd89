"""@triton.jit helpers that Inductor's generated kernels call, in the form
Inductor writes them: Triton's modules taken from triton_compat, is_floating
promoting its argument to a block."""
from .triton_compat import builtins_use_semantic_kwarg, libdevice, math, tl, triton  # noqa: F401


def set_driver_to_gpu():
    pass


@triton.jit
def promote_to_tensor(x):
    return x + tl.zeros((1,), tl.int1)


@triton.jit
def is_floating(x):
    return promote_to_tensor(x).dtype.is_floating()


@triton.jit
def maximum(a, b):
    mask = a > b
    if is_floating(a):
        mask |= a != a
    return tl.where(mask, a, b)


@triton.jit
def max2(a, dim):
    return tl.reduce(a, dim, maximum)
