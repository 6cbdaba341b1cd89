"""GPU suite, tier 3: a tl.dot whose result is reduced (the accumulator's
tensor-core layout sliced). The K-loop matmuls are tests/kernels/matmul.py's
(matmul_fp32_kernel takes any operand type)."""
import triton
import triton.language as tl


@triton.jit
def dot_rowsum_kernel(a_ptr, b_ptr, c_ptr, s_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)
    tl.store(s_ptr + rm, tl.sum(c, axis=1))


@triton.jit
def dot_halves_join_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # c's left and right halves from two dots, put side by side by an
    # interleave (join, permute, reshape): the mirror of a split epilogue
    rm = tl.arange(0, M)
    rk = tl.arange(0, K)
    rn = tl.arange(0, N // 2)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    left = tl.dot(a, tl.load(b_ptr + rk[:, None] * N + rn[None, :]))
    right = tl.dot(a, tl.load(b_ptr + rk[:, None] * N + (N // 2 + rn)[None, :]))
    c = tl.reshape(tl.permute(tl.join(left, right), (0, 2, 1)), (M, N))
    tl.store(c_ptr + rm[:, None] * N + tl.arange(0, N)[None, :], c)
