# Random numbers: Philox as Triton's random.py computes it.
import triton
import triton.language as tl


@triton.jit
def philox_block(c_ptr, k_ptr, out_ptr, BLOCK: tl.constexpr, N_ROUNDS: tl.constexpr):
    # counters (4 words) and keys (2 words) per element, as uint32
    i = tl.arange(0, BLOCK)
    c0 = tl.load(c_ptr + i * 4)
    c1 = tl.load(c_ptr + i * 4 + 1)
    c2 = tl.load(c_ptr + i * 4 + 2)
    c3 = tl.load(c_ptr + i * 4 + 3)
    k0 = tl.load(k_ptr + i * 2)
    k1 = tl.load(k_ptr + i * 2 + 1)
    r0, r1, r2, r3 = tl.philox_impl(c0, c1, c2, c3, k0, k1, N_ROUNDS)
    tl.store(out_ptr + i * 4, r0)
    tl.store(out_ptr + i * 4 + 1, r1)
    tl.store(out_ptr + i * 4 + 2, r2)
    tl.store(out_ptr + i * 4 + 3, r3)


@triton.jit
def rand_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs), mask=offs < n)


@triton.jit
def randn_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.randn(seed, offs), mask=offs < n)


@triton.jit
def randn4x_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    # four normals per offset: cosine and sine halves of two Box-Muller pairs
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a, b, c, d = tl.randn4x(seed, offs)
    m = offs < n
    tl.store(out_ptr + offs * 4, a, mask=m)
    tl.store(out_ptr + offs * 4 + 1, b, mask=m)
    tl.store(out_ptr + offs * 4 + 2, c, mask=m)
    tl.store(out_ptr + offs * 4 + 3, d, mask=m)


@triton.jit
def randint4x_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a, b, c, d = tl.randint4x(seed, offs)
    m = offs < n
    tl.store(out_ptr + offs * 4, a, mask=m)
    tl.store(out_ptr + offs * 4 + 1, b, mask=m)
    tl.store(out_ptr + offs * 4 + 2, c, mask=m)
    tl.store(out_ptr + offs * 4 + 3, d, mask=m)


@triton.jit
def randint_scalar(out_ptr, seed):
    # a scalar offset: one number per program
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, tl.randint(seed, pid))


@triton.jit
def philox_wide(out_ptr, seed, n, BLOCK: tl.constexpr):
    # 64-bit counters: Philox 4x64, the seed the low key, a zero high key
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    c = offs.to(tl.uint64) + 0x300000005
    a, b, c2, d = tl.philox(seed, c, c * 0, c * 0, c * 0)
    tl.store(out_ptr + offs, tl.uint_to_uniform_float(a), mask=offs < n)


@triton.jit
def rand_wide(out_ptr, seed, n, BLOCK: tl.constexpr):
    # 64-bit offsets past 2^32: their low and high words are two counters
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs.to(tl.int64) + 0x300000005), mask=offs < n)


@triton.jit
def seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    # Triton's tutorial 04, low-memory dropout
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)
