# soak_acc.py - the soak's second blob (tests/gpu/soak.c): one counter.
import triton
import triton.language as tl


@triton.jit
def soak_acc(counter, v):
    tl.atomic_add(counter, v)
