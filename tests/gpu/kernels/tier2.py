"""Tier-2 kernels of the GPU differential suite: row softmax (a program per
row, and a persistent loop over rows), layer norm forward, reductions over
either axis of a 2-D tile (with keep_dims), argmax with ties. Block sizes
are constexprs chosen by the host from the shape, as Triton's tutorials do."""
import triton
import triton.language as tl


@triton.jit
def softmax_row_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    # a program per row; the whole row fits in one block
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float('inf'))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


@triton.jit
def softmax_persistent_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
                              BLOCK_SIZE: tl.constexpr):
    # a fixed number of programs striding over the rows
    first = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(first, n_rows, step):
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float('inf'))
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        den = tl.sum(num, axis=0)
        tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


@triton.jit
def layer_norm_fwd_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps,
                          BLOCK_SIZE: tl.constexpr):
    # a program per row, three passes over the row in BLOCK_SIZE chunks
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_row + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < N, other=0.0).to(tl.float32)
        d = tl.where(cols < N, x - mean, 0.0)
        acc2 += d * d
    var = tl.sum(acc2, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols, (x - mean) * rstd * w + b, mask=mask)


@triton.jit
def reduce_rows_kernel(x_ptr, out_ptr, M, N, stride_m, OP: tl.constexpr,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # out[m] = OP over n of x[m, n] (axis 1); BLOCK_N covers N.
    # OP: 0 sum, 1 max, 2 min, 3 argmax, 4 sum with keep_dims
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    ptrs = x_ptr + rows[:, None] * stride_m + cols[None, :]
    if OP == 0:
        tl.store(out_ptr + rows, tl.sum(tl.load(ptrs, mask=mask, other=0), axis=1), mask=rows < M)
    if OP == 1:
        tl.store(out_ptr + rows, tl.max(tl.load(ptrs, mask=mask, other=-1073741824), axis=1), mask=rows < M)
    if OP == 2:
        tl.store(out_ptr + rows, tl.min(tl.load(ptrs, mask=mask, other=1073741824), axis=1), mask=rows < M)
    if OP == 3:
        tl.store(out_ptr + rows, tl.argmax(tl.load(ptrs, mask=mask, other=-1073741824), axis=1), mask=rows < M)
    if OP == 4:
        s = tl.sum(tl.load(ptrs, mask=mask, other=0), axis=1, keep_dims=True)
        tl.store(out_ptr + rows[:, None], s, mask=rows[:, None] < M)


@triton.jit
def reduce_cols_kernel(x_ptr, out_ptr, M, N, stride_m, OP: tl.constexpr,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # out[n] = OP over m of x[m, n] (axis 0); BLOCK_M covers M. OP as above.
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    rows = tl.arange(0, BLOCK_M)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    ptrs = x_ptr + rows[:, None] * stride_m + cols[None, :]
    if OP == 0:
        tl.store(out_ptr + cols, tl.sum(tl.load(ptrs, mask=mask, other=0), axis=0), mask=cols < N)
    if OP == 1:
        tl.store(out_ptr + cols, tl.max(tl.load(ptrs, mask=mask, other=-1073741824), axis=0), mask=cols < N)
    if OP == 2:
        tl.store(out_ptr + cols, tl.min(tl.load(ptrs, mask=mask, other=1073741824), axis=0), mask=cols < N)
    if OP == 3:
        tl.store(out_ptr + cols, tl.argmax(tl.load(ptrs, mask=mask, other=-1073741824), axis=0), mask=cols < N)
    if OP == 4:
        s = tl.sum(tl.load(ptrs, mask=mask, other=0), axis=0, keep_dims=True)
        tl.store(out_ptr + cols[None, :], s, mask=cols[None, :] < N)


@triton.jit
def max_indices_kernel(x_ptr, val_ptr, idx_ptr, M, N, stride_m, MIN: tl.constexpr, KEEP: tl.constexpr,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # val[m], idx[m] = the max (min with MIN) of row m and its first index:
    # tl.max/tl.min with return_indices over BLOCK_N columns at a time, the
    # blocks folded in a loop as FlagGems' argmax does; KEEP takes each
    # block's with keep_dims
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    worst = float("inf") if MIN else -float("inf")
    best = tl.full([BLOCK_M], worst, tl.float32)
    at = tl.zeros([BLOCK_M], tl.int32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask, other=worst)
        if MIN:
            v, i = tl.min(x, axis=1, return_indices=True, return_indices_tie_break_left=True, keep_dims=KEEP)
        else:
            v, i = tl.max(x, axis=1, return_indices=True, return_indices_tie_break_left=True, keep_dims=KEEP)
        if KEEP:
            v = tl.reshape(v, [BLOCK_M])
            i = tl.reshape(i, [BLOCK_M])
        better = v.to(tl.float32) < best if MIN else v.to(tl.float32) > best
        best = tl.where(better, v.to(tl.float32), best)
        at = tl.where(better, start + i, at)
    tl.store(val_ptr + rows, best, mask=rows < M)
    tl.store(idx_ptr + rows, at, mask=rows < M)


@triton.jit
def col_sum_loop_kernel(x_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # out[n] = sum over m, looping over M in BLOCK_M chunks with a carried block
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for m0 in range(0, M, BLOCK_M):
        rows = m0 + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(x_ptr + rows[:, None] * stride_m + cols[None, :], mask=mask, other=0.0)
        acc += tl.sum(x, axis=0)
    tl.store(out_ptr + cols, acc, mask=cols < N)


@triton.jit
def rope_interleaved_kernel(x_ptr, cos_ptr, sin_ptr, out_ptr, n_rows, BLOCK_M: tl.constexpr, D: tl.constexpr):
    # rotary embedding over interleaved pairs (x[2i], x[2i+1]), as in
    # GPT-J-style models: split the pairs, rotate them, join them back
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, D)
    half = tl.arange(0, D // 2)
    mask = rows[:, None] < n_rows
    x = tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=mask, other=0.0)
    x1, x2 = tl.split(tl.reshape(x, (BLOCK_M, D // 2, 2)))
    c = tl.load(cos_ptr + rows[:, None] * (D // 2) + half[None, :], mask=mask, other=0.0)
    s = tl.load(sin_ptr + rows[:, None] * (D // 2) + half[None, :], mask=mask, other=0.0)
    y = tl.reshape(tl.join(x1 * c - x2 * s, x1 * s + x2 * c), (BLOCK_M, D))
    tl.store(out_ptr + rows[:, None] * D + cols[None, :], y, mask=mask)
