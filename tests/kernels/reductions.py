import triton
import triton.language as tl


@triton.jit
def col_sum_kernel(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Sums each column over the rows (axis 0), keeping the reduced axis.
    rn = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    rm = tl.arange(0, BLOCK_M)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_m + rn[None, :], mask=mask, other=0.0)
    s = tl.sum(x, axis=0, keep_dims=True)  # [1, BLOCK_N]
    tl.store(out_ptr + rn[None, :], s, mask=rn[None, :] < N)


@triton.jit
def row_center_kernel(x_ptr, out_ptr, max_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Subtracts each row's maximum (axis 1, keep_dims) and each row's min of the result.
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=float('-inf'))
    mx = tl.max(x, axis=1, keep_dims=True)  # [BLOCK_M, 1]
    y = x - mx
    tl.store(out_ptr + offs, y, mask=mask)
    tl.store(max_ptr + rm, tl.reshape(mx, [BLOCK_M]), mask=rm < M)


@triton.jit
def min_max_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Whole-vector min and max of an int32 vector, one program.
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    lo = tl.min(tl.load(x_ptr + offs, mask=mask, other=2147483647))
    hi = tl.max(tl.load(x_ptr + offs, mask=mask, other=-2147483648))
    tl.store(out_ptr, lo)
    tl.store(out_ptr + 1, hi)


@triton.jit
def row_max_fp16_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Row maxima of an fp16 [M, N] matrix, BLOCK_M rows a program, the row
    # read BLOCK_N at a time into a running maximum in fp16 (as FlagGems'
    # amax over the last dim).
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    acc = tl.full([BLOCK_M, BLOCK_N], float("-inf"), tl.float16)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)[None, :]
        x = tl.load(x_ptr + rows * N + cols, mask=(rows < M) & (cols < N), other=float("-inf"))
        acc = tl.maximum(acc, x)
    tl.store(out_ptr + rows, tl.max(acc, axis=1)[:, None], mask=rows < M)
