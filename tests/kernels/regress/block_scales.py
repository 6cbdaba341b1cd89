import triton
import triton.language as tl


@triton.jit
def block_scaled_mm(a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, M, N, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # c = sum over K blocks of (a_blk @ b_blk^T) * a_scale[m, kb] * b_scale[n // BLOCK_K, kb]:
    # one scale per row of a and K block, one per BLOCK_K columns of b and K
    # block (b is [N, K], K contiguous); 1-D scale rows loaded in the loop
    # and applied to each block's product
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    kblocks = tl.cdiv(K, BLOCK_K)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (rm % M)[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + (rn % N)[None, :] * K + rk[:, None]
    as_ptrs = a_scale_ptr + (rm % M) * kblocks
    bs_ptrs = b_scale_ptr + ((rn % N) // BLOCK_K) * kblocks
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kb in range(kblocks):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - kb * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - kb * BLOCK_K, other=0.0)
        sa = tl.load(as_ptrs)
        sb = tl.load(bs_ptrs)
        acc += tl.dot(a, b) * sa[:, None] * sb[None, :]
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
        as_ptrs += 1
        bs_ptrs += 1
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def group_scaled(x_ptr, s_ptr, o_ptr, N: tl.constexpr, GROUP: tl.constexpr, BLOCK: tl.constexpr):
    # o = x * s[(i % N) // GROUP]: the scale's pointers are equal over each
    # GROUP elements (through a remainder by a constant that is not a power
    # of two, which LLVM does not see through), a thread's elements one group
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    s = tl.load(s_ptr + (offs % N) // GROUP)
    x = tl.load(x_ptr + offs)
    tl.store(o_ptr + offs, x * s)
