# soak_ops.py - two kernels of the soak's first blob (tests/gpu/soak.c):
# both only add, atomically, so that launches on several streams give the
# same result in any order.
import triton
import triton.language as tl


@triton.jit
def soak_inc(p, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(p + offs, 1, mask=offs < n)


@triton.jit
def soak_axpy(x, y, n, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    xv = tl.load(x + offs, mask=mask, other=0)
    tl.atomic_add(y + offs, a * xv, mask=mask)
