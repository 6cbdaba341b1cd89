# GPU cases: random numbers against Triton, bit for bit.
import triton
import triton.language as tl


@triton.jit
def rand_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs), mask=offs < n)


@triton.jit
def randn_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.randn(seed, offs), mask=offs < n)


@triton.jit
def randint4x_kernel(a_ptr, b_ptr, c_ptr, d_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a, b, c, d = tl.randint4x(seed, offs)
    m = offs < n
    tl.store(a_ptr + offs, a, mask=m)
    tl.store(b_ptr + offs, b, mask=m)
    tl.store(c_ptr + offs, c, mask=m)
    tl.store(d_ptr + offs, d, mask=m)


@triton.jit
def rand_wide_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    # 64-bit offsets past 2^32: their low and high words are two counters
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs.to(tl.int64) + 0x300000005), mask=offs < n)


@triton.jit
def philox_wide_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    # 64-bit counters: Philox 4x64
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    c = offs.to(tl.uint64) + 0x300000005
    a, b, c2, d = tl.philox(seed, c, c * 0, c * 0, c * 0)
    tl.store(out_ptr + offs, tl.uint_to_uniform_float(a), mask=offs < n)


@triton.jit
def dropout_kernel(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    # low-memory dropout (Triton's tutorial 04): the mask is regenerated from the seed
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    keep = tl.rand(seed, offsets) > p
    tl.store(output_ptr + offsets, tl.where(keep, x / (1 - p), 0.0), mask=mask)
