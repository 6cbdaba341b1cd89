import triton
import triton.language as tl


@triton.jit
def scores_kt(q_ptr, k_ptr, o_ptr, n, new_row, HD: tl.constexpr, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    # s = q @ k^T for one block of BLOCK_N keys (rows of HD values, stored
    # one key after another), k read transposed through its pointers as
    # decode attention reads the cache: [HD, BLOCK_N], each column one
    # key's contiguous row. Keys past n read as 0; key new_row comes from
    # row 0 of q instead (a select between the load and the dot).
    offs_r = tl.arange(0, ROWS)
    offs_d = tl.arange(0, HD)
    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    q = tl.load(q_ptr + offs_r[:, None] * HD + offs_d[None, :])
    kt = tl.load(k_ptr + offs_n[None, :] * HD + offs_d[:, None], mask=(offs_n < n)[None, :], other=0.0)
    first = tl.load(q_ptr + offs_d)
    kt = tl.where((offs_n == new_row)[None, :], first[:, None], kt)
    s = tl.dot(q, kt)
    tl.store(o_ptr + offs_r[:, None] * n + offs_n[None, :], s, mask=(offs_n < n)[None, :])
