"""GPU suite, tier 3: fused attention forward (online softmax), shaped as
Triton's tutorial 06 kernel: a helper runs the K/V loop for one stage
(STAGE 1: the blocks left of the diagonal, 2: the diagonal block with the
causal mask, 3: every block), two dots per iteration, the second taking the
softmax result as its A operand. Operands are loaded through plain pointers
(K transposed by its index arithmetic) instead of tensor descriptors.
Q, K, V, Out: [Z, H, N_CTX, HEAD_DIM] fp16, contiguous."""
import triton
import triton.language as tl


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, k_base, v_base, stride_n, start_m, qk_scale,
                    offs_m, offs_n, offs_d, N_CTX,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    for start_n in tl.range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        # K^T block [HEAD_DIM, BLOCK_N]: contiguous along the head dim
        k = tl.load(k_base + offs_d[:, None] + (start_n + offs_n)[None, :] * stride_n)
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_base + (start_n + offs_n)[:, None] * stride_n + offs_d[None, :])
        p = p.to(tl.float16)
        acc = tl.dot(p, v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attn_fwd(Q, K, V, Out, sm_scale, stride_z, stride_h, stride_n, H, N_CTX,
             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             STAGE: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    base = off_z.to(tl.int64) * stride_z + off_h.to(tl.int64) * stride_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/log(2)
    q = tl.load(Q + base + offs_m[:, None] * stride_n + offs_d[None, :])
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K + base, V + base, stride_n, start_m,
                                        qk_scale, offs_m, offs_n, offs_d, N_CTX,
                                        BLOCK_M, BLOCK_N, 4 - STAGE)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, K + base, V + base, stride_n, start_m,
                                        qk_scale, offs_m, offs_n, offs_d, N_CTX,
                                        BLOCK_M, BLOCK_N, 2)
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * stride_n + offs_d[None, :], acc.to(Out.type.element_ty))


@triton.jit
def _attn_program(sm_scale, stride_z, stride_h, H, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr):
    # a (query block, batch and head) program's base offset, index blocks,
    # online-softmax state and log2-scaled softmax scale
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    base = (off_hz // H).to(tl.int64) * stride_z + (off_hz % H).to(tl.int64) * stride_h
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    return base, offs_m, offs_n, offs_d, m_i, l_i, acc, sm_scale * 1.44269504  # 1/log(2)


@triton.jit
def attn_fwd_ragged(Q, K, V, Out, sm_scale, stride_z, stride_h, stride_n, H, N_CTX,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # attn_fwd (non-causal) for any N_CTX: query rows and keys past it masked
    base, offs_m, offs_n, offs_d, m_i, l_i, acc, qk_scale = _attn_program(sm_scale, stride_z, stride_h, H, HEAD_DIM,
                                                                          BLOCK_M, BLOCK_N)
    q = tl.load(Q + base + offs_m[:, None] * stride_n + offs_d[None, :], mask=offs_m[:, None] < N_CTX, other=0.0)
    for start_n in range(0, N_CTX, BLOCK_N):
        kv = start_n + offs_n
        k = tl.load(K + base + kv[None, :] * stride_n + offs_d[:, None], mask=kv[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k) * qk_scale + tl.where(kv[None, :] < N_CTX, 0, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + base + kv[:, None] * stride_n + offs_d[None, :], mask=kv[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * stride_n + offs_d[None, :], acc.to(Out.type.element_ty),
             mask=offs_m[:, None] < N_CTX)

@triton.jit
def _attn_fwd_inner_desc(acc, l_i, m_i, q, k_desc, v_desc, row0, vrow0, start_m, qk_scale, offs_m, offs_n, N_CTX,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
                         WARP_SPECIALIZE: tl.constexpr, FP8: tl.constexpr):
    # FP8 (tutorial 06's fp8 mode): V stored transposed, [HEAD_DIM, N_CTX]
    # a head from row vrow0, its block read as [HEAD_DIM, BLOCK_N] and
    # transposed so that both dots' operands are K-major; P cast to e5m2
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=WARP_SPECIALIZE):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        # K's rows [BLOCK_N, HEAD_DIM], transposed for the dot
        k = k_desc.load([row0 + start_n, 0]).T
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        if FP8:
            v = v_desc.load([vrow0, start_n]).T
            acc = tl.dot(p.to(tl.float8e5), v, acc)
        else:
            v = v_desc.load([row0 + start_n, 0])
            acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attn_fwd_desc(Q, K, V, Out, sm_scale, Z, H, N_CTX,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  STAGE: tl.constexpr, WARP_SPECIALIZE: tl.constexpr = False, FP8: tl.constexpr = False):
    # the same attention through device-side tensor descriptors, as tutorial
    # 06's TMA form: each tensor seen as Z * H * N_CTX rows of HEAD_DIM, a
    # program's head starting at row off_hz * N_CTX (N_CTX a multiple of the
    # blocks, so no block crosses into the next head); WARP_SPECIALIZE gives
    # the loop over K and V blocks a producer warp (sm_90a). FP8: tutorial
    # 06's fp8 mode, Q, K and V in e5m2 with V transposed, [Z * H * HEAD_DIM,
    # N_CTX] (a head's rows from off_hz * HEAD_DIM); Out stays fp16
    rows = Z * H * N_CTX
    q_desc = tl.make_tensor_descriptor(Q, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(K, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    if FP8:
        v_desc = tl.make_tensor_descriptor(V, shape=[Z * H * HEAD_DIM, N_CTX], strides=[N_CTX, 1],
                                           block_shape=[HEAD_DIM, BLOCK_N])
    else:
        v_desc = tl.make_tensor_descriptor(V, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                           block_shape=[BLOCK_N, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(Out, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    row0 = off_hz * N_CTX
    vrow0 = off_hz * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/log(2)
    q = q_desc.load([row0 + start_m * BLOCK_M, 0])
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner_desc(acc, l_i, m_i, q, k_desc, v_desc, row0, vrow0, start_m, qk_scale,
                                             offs_m, offs_n, N_CTX, BLOCK_M, BLOCK_N, 4 - STAGE, WARP_SPECIALIZE, FP8)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner_desc(acc, l_i, m_i, q, k_desc, v_desc, row0, vrow0, start_m, qk_scale,
                                             offs_m, offs_n, N_CTX, BLOCK_M, BLOCK_N, 2, WARP_SPECIALIZE, FP8)
    acc = acc / l_i[:, None]
    o_desc.store([row0 + start_m * BLOCK_M, 0], acc.to(tl.float16))


@triton.jit
def attn_fwd_ahead(Q, K, V, Out, sm_scale, stride_z, stride_h, stride_n, H, N_CTX,
                   HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # attn_fwd (non-causal) with the scores of the next key block computed
    # before this block's softmax, so that the two can overlap: the scores
    # dot of block j + 1 is issued at the top of iteration j (its keys
    # masked past N_CTX on the last), and the softmax of block j reads the
    # scores the iteration before computed.
    base, offs_m, offs_n, offs_d, m_i, l_i, acc, qk_scale = _attn_program(sm_scale, stride_z, stride_h, H, HEAD_DIM,
                                                                          BLOCK_M, BLOCK_N)
    q = tl.load(Q + base + offs_m[:, None] * stride_n + offs_d[None, :])
    k_base = K + base
    v_base = V + base
    k = tl.load(k_base + offs_d[:, None] + offs_n[None, :] * stride_n)
    qk = tl.dot(q, k)
    for start_n in tl.range(0, N_CTX, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        nxt = start_n + BLOCK_N + offs_n
        kn = tl.load(k_base + offs_d[:, None] + nxt[None, :] * stride_n, mask=nxt[None, :] < N_CTX, other=0.0)
        qk_next = tl.dot(q, kn)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_base + (start_n + offs_n)[:, None] * stride_n + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
        qk = qk_next
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * stride_n + offs_d[None, :], acc.to(Out.type.element_ty))
