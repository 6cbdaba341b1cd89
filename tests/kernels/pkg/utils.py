# helpers imported by tests/kernels/pkg/kern.py (relative imports) and
# tests/kernels/imports_cross.py (absolute imports)
import triton
import triton.language as tl

from .sub.consts import SCALE

OFFSET = 3.0


@triton.jit
def scaled(x):
    # SCALE comes from this module's own import, OFFSET is this module's
    return x * SCALE + OFFSET


@triton.jit
def twice_scaled(x):
    return scaled(scaled(x))
