# Decode-time kernels (batch 1 to 16): skinny matmuls against weights read
# once (fp16/bf16, and weight-only int8 and int4 dequantized in the kernel),
# attention of one query token over a long KV cache split over programs and
# reduced by a second kernel, and a gather of paged KV-cache blocks. All
# memory-bound: their figure is the fraction of the copy rate.
import triton
import triton.language as tl


@triton.jit
def gemv_kernel(x_ptr, w_ptr, out_ptr, M, N, K, stride_xm, stride_wk, stride_om,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # out[M, N] = x[M, K] @ w[K, N], w row-major (N contiguous)
    pid_n = tl.program_id(0)
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(x_ptrs, mask=offs_m[:, None] < M, other=0.0)
        w = tl.load(w_ptrs)
        acc += tl.dot(x, w)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K * stride_wk
    out = acc.to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + offs_m[:, None] * stride_om + offs_n[None, :], out, mask=offs_m[:, None] < M)


@triton.jit
def _rows_times_x(w, scale, x_ptr, out_ptr, M, N, K, offs_n, offs_k, stride_xm, stride_om):
    # out[m, offs_n] = (w @ x[m]) * scale for each of the M rows of x, w a
    # program's whole rows of weights as fp32
    for m in range(0, M):
        x = tl.load(x_ptr + m * stride_xm + offs_k, mask=offs_k < K, other=0.0).to(tl.float32)
        y = tl.sum(w * x[None, :], axis=1) * scale
        tl.store(out_ptr + m * stride_om + offs_n, y.to(out_ptr.dtype.element_ty), mask=offs_n < N)


@triton.jit
def gemv_rows_kernel(x_ptr, w_ptr, out_ptr, M, N, K, stride_xm, stride_wn, stride_om,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # out[M, N] = x[M, K] @ w^T with w a linear layer's [N, K] weights (K
    # contiguous), no tensor cores: each program reads its BLOCK_N rows of w
    # whole (K <= BLOCK_K) in one load, so thousands of programs have all
    # their bytes in flight at once, and reuses them for each row of x
    pid = tl.program_id(0)
    offs_n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    w = tl.load(w_ptr + offs_n.to(tl.int64)[:, None] * stride_wn + offs_k[None, :],
                mask=(offs_n < N)[:, None] & (offs_k < K)[None, :], other=0.0).to(tl.float32)
    _rows_times_x(w, 1.0, x_ptr, out_ptr, M, N, K, offs_n, offs_k, stride_xm, stride_om)


@triton.jit
def gemv_rows_w8_kernel(x_ptr, w_ptr, scale_ptr, out_ptr, M, N, K, stride_xm, stride_wn, stride_om,
                        BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # gemv_rows_kernel over weight-only int8 rows, an fp16 scale per row
    # (per output channel): out = (x @ w^T) * scale
    pid = tl.program_id(0)
    offs_n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    w = tl.load(w_ptr + offs_n.to(tl.int64)[:, None] * stride_wn + offs_k[None, :],
                mask=(offs_n < N)[:, None] & (offs_k < K)[None, :], other=0).to(tl.float32)
    scale = tl.load(scale_ptr + offs_n, mask=offs_n < N, other=0.0).to(tl.float32)
    _rows_times_x(w, scale, x_ptr, out_ptr, M, N, K, offs_n, offs_k, stride_xm, stride_om)


@triton.jit
def gemv_w8_kernel(x_ptr, w_ptr, scale_ptr, out_ptr, M, N, K, stride_xm, stride_wn, stride_om,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # weight-only int8: w[N, K] int8 (K contiguous), one fp16 scale per
    # output column; out = (x @ w^T) * scale
    pid_n = tl.program_id(0)
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
    w_ptrs = w_ptr + offs_n[:, None] * stride_wn + offs_k[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(x_ptrs, mask=offs_m[:, None] < M, other=0.0)
        w = tl.load(w_ptrs)
        acc += tl.dot(x, tl.trans(w.to(tl.float16)))
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    scale = tl.load(scale_ptr + offs_n).to(tl.float32)
    out = (acc * scale[None, :]).to(tl.float16)
    tl.store(out_ptr + offs_m[:, None] * stride_om + offs_n[None, :], out, mask=offs_m[:, None] < M)


@triton.jit
def gemv_w4_kernel(x_ptr, w_ptr, scale_ptr, out_ptr, M, N, K, stride_xm, stride_wn, stride_om,
                   GROUP: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr):
    # weight-only int4: w[N, K // 2] uint8, two 4-bit weights a byte (low
    # nibble first, stored with an offset of 8), one fp16 scale per GROUP
    # weights of a column: scale[N, K // GROUP]
    pid_n = tl.program_id(0)
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_kh = tl.arange(0, BLOCK_K // 2)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + tl.arange(0, BLOCK_K)[None, :]
    w_ptrs = w_ptr + offs_n[:, None] * stride_wn + offs_kh[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(x_ptrs, mask=offs_m[:, None] < M, other=0.0)
        packed = tl.load(w_ptrs)
        lo = (packed & 0xF).to(tl.int8) - 8
        hi = (packed >> 4).to(tl.int8) - 8
        w = tl.interleave(lo, hi).to(tl.float16)
        s = tl.load(scale_ptr + offs_n * (K // GROUP) + k // GROUP)
        w = w * s[:, None]
        acc += tl.dot(x, tl.trans(w))
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K // 2
    out = acc.to(tl.float16)
    tl.store(out_ptr + offs_m[:, None] * stride_om + offs_n[None, :], out, mask=offs_m[:, None] < M)


@triton.jit
def decode_attn_split_kernel(q_ptr, k_ptr, v_ptr, part_out_ptr, part_lse_ptr, seq_len, sm_scale,
                             stride_kh, stride_kn, stride_ph, stride_ps,
                             HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, SPLIT_LEN: tl.constexpr):
    # one query token a head; program (head, split) attends to keys
    # [split * SPLIT_LEN, (split + 1) * SPLIT_LEN) and writes its partial
    # output (normalized) and log-sum-exp for the reduce kernel
    head = tl.program_id(0)
    split = tl.program_id(1)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + head * HEAD_DIM + offs_d).to(tl.float32) * (sm_scale * 1.44269504)
    m_i = -float("inf")
    l_i = 0.0
    acc = tl.zeros((HEAD_DIM,), dtype=tl.float32)
    start = split * SPLIT_LEN
    end = tl.minimum(start + SPLIT_LEN, seq_len)
    for n in range(start, start + SPLIT_LEN, BLOCK_N):
        offs_n = n + tl.arange(0, BLOCK_N)
        kv_mask = offs_n < end
        kv_off = head * stride_kh + offs_n[:, None] * stride_kn + offs_d[None, :]
        k = tl.load(k_ptr + kv_off, mask=kv_mask[:, None], other=0.0).to(tl.float32)
        s = tl.sum(k * q[None, :], axis=1)
        s = tl.where(kv_mask, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=0))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new)
        v = tl.load(v_ptr + kv_off, mask=kv_mask[:, None], other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        m_i = m_new
    tl.store(part_out_ptr + head * stride_ph + split * stride_ps + offs_d, acc / l_i)
    tl.store(part_lse_ptr + head * tl.num_programs(1) + split, m_i + tl.log2(l_i))


@triton.jit
def decode_attn_reduce_kernel(part_out_ptr, part_lse_ptr, out_ptr, stride_ph, stride_ps,
                              HEAD_DIM: tl.constexpr, NUM_SPLITS: tl.constexpr):
    head = tl.program_id(0)
    offs_s = tl.arange(0, NUM_SPLITS)
    offs_d = tl.arange(0, HEAD_DIM)
    lse = tl.load(part_lse_ptr + head * NUM_SPLITS + offs_s)
    w = tl.exp2(lse - tl.max(lse, axis=0))
    parts = tl.load(part_out_ptr + head * stride_ph + offs_s[:, None] * stride_ps + offs_d[None, :])
    out = tl.sum(parts * w[:, None], axis=0) / tl.sum(w, axis=0)
    tl.store(out_ptr + head * HEAD_DIM + offs_d, out.to(tl.float16))


@triton.jit
def paged_kv_gather_kernel(cache_ptr, table_ptr, out_ptr, stride_cb, stride_ob,
                           BLOCKS_PER_SEQ: tl.constexpr, PAGE: tl.constexpr, ROW: tl.constexpr):
    # copies sequence `seq`'s pages, scattered through the cache by its block
    # table, into one contiguous [BLOCKS_PER_SEQ * PAGE, ROW] run
    seq = tl.program_id(0)
    blk = tl.program_id(1)
    page = tl.load(table_ptr + seq * BLOCKS_PER_SEQ + blk).to(tl.int64)
    offs = tl.arange(0, PAGE)[:, None] * ROW + tl.arange(0, ROW)[None, :]
    vals = tl.load(cache_ptr + page * stride_cb + offs)
    tl.store(out_ptr + seq * stride_ob + blk * PAGE * ROW + offs, vals)
