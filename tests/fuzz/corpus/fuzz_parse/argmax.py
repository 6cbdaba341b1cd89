import triton
import triton.language as tl


@triton.jit
def row_argmax_kernel(x_ptr, idx_ptr, val_ptr, N, stride, BLOCK: tl.constexpr):
    # Index of the largest element of each row; ties go to the first.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < N, other=float('-inf'))
    tl.store(idx_ptr + row, tl.argmax(x, axis=0))
    tl.store(val_ptr + row, tl.max(x, axis=0))


@triton.jit
def col_argmin_kernel(x_ptr, idx_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :],
                mask=(rm[:, None] < M) & (rn[None, :] < N), other=2147483647)
    tl.store(idx_ptr + rn, tl.argmin(x, axis=0), mask=rn < N)
