import triton
import triton.language as tl


@triton.jit
def divmod_kernel(a_ptr, b_ptr, q_ptr, r_ptr, n, BLOCK: tl.constexpr):
    # Runtime integer // and % truncate toward zero like C (not like Python).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    tl.store(q_ptr + offs, a // b, mask=mask)
    tl.store(r_ptr + offs, a % b, mask=mask)


@triton.jit
def index_math_kernel(out_ptr, n, COLS: tl.constexpr, BLOCK: tl.constexpr):
    # Row/column of a flat index; constexpr folding of -7 // 2 floors like Python.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    row = offs // COLS
    col = offs % COLS
    bias = -7 // 2
    tl.store(out_ptr + offs, row * 1000 + col + bias, mask=offs < n)


@triton.jit
def lcg_hash_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # 32-bit unsigned wrap-around: one step of a linear congruential generator.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.uint32)
    h = x * 1664525 + 1013904223
    h = h ^ (h >> 16)
    tl.store(out_ptr + offs, h, mask=mask)
