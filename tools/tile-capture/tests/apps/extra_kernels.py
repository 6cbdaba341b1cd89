"""Kernels the tests need beyond the repository's: one with do_not_specialize,
one with an optional pointer (None at a launch), one reading a module global
in its grid."""
import triton
import triton.language as tl

NUM_PROGRAMS = 8


@triton.jit(do_not_specialize=["n"])
def fill_kernel(out_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, value, mask=offs < n)


@triton.jit
def bias_kernel(x_ptr, b_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n)
    if b_ptr is not None:
        v += tl.load(b_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, v, mask=offs < n)


@triton.jit
def strided_fill_kernel(out_ptr, n, BLOCK: tl.constexpr):
    # a fixed number of programs striding over the elements
    for start in range(tl.program_id(0) * BLOCK, n, tl.num_programs(0) * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, 1.0, mask=offs < n)


@triton.jit
def negate(x):
    return -x


@triton.jit
def apply_kernel(x_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, FN(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)
