"""Kernels of examples/llm: a Llama-style decoder in fp16 with fp32 sums.

Every GPU op of the model is one of these @triton.jit functions; kernels.tile
lists the specializations llm.c launches. Two families:

* decode (one token, the step captured in a CUDA graph): memory-bound GEMVs
  over row-major [N, K] fp16 weights with RMSNorm fused into their prologue
  and the residual add, SwiGLU or the vocab argmax fused into their
  epilogue; split-K flash-decoding attention that also applies RoPE and
  writes the new K/V row into the cache; its reduce; and a one-program
  kernel that picks the next token, embeds it and advances the position.
  The position and the token live in device memory (`state`: [pos, token])
  so one captured graph is replayed for every step.
* prefill (the prompt, M >= 1 rows): embedding gather, RMSNorm rows, a
  tl.dot GEMM (plain, residual, or SwiGLU over the fused gate/up weight),
  RoPE + cache write, and causal flash attention.

Rounding follows HF Llama in fp16 where it is cheap to do so (RMSNorm's
normalized value rounded to fp16 before the weight, q/k rotated with fp16
cos/sin and fp16 products, projections rounded to fp16 before the residual
add, silu(gate) rounded before the product), so the PyTorch reference in
reference.py and these kernels differ only by summation order.

Every kernel is valid Triton 3.6 as well as tile's subset. The decode
kernels call gdc_wait() before touching anything the kernel just before them
writes, so llm.c may launch them with programmatic dependent launch (--pdl):
the GEMVs load their weights before that wait (weights never change), and
attn_decode the position and its first block of cache rows (earlier steps
wrote them; the QKV GEMV before it, HOLD, lets it start only once every
earlier kernel has finished). The others call gdc_launch_dependents() first,
so the next kernel starts streaming its weights as soon as there is room.
"""
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


@triton.jit
def _rstd(x_ptr, K, eps, BLOCK: tl.constexpr):
    # 1 / sqrt(mean(x^2) + eps) over one row of K fp16 values, in fp32
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK):
        offs = k0 + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < K, other=0.0).to(tl.float32)
        acc += x * x
    return tl.rsqrt(tl.sum(acc, axis=0) / K + eps)


@triton.jit
def _rmsnorm_round(x, w, rstd):
    # HF's LlamaRMSNorm of fp32 x and weight w: (x * rstd) rounded to fp16,
    # times the fp16 weight, rounded to fp16
    return ((x * rstd).to(tl.float16).to(tl.float32) * w).to(tl.float16)


@triton.jit
def _normed(x_ptr, nw_ptr, offs, mask, rstd):
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(nw_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    return _rmsnorm_round(x, w, rstd)


@triton.jit
def _rope(ptr, cos_ptr, sin_ptr, pos, HD: tl.constexpr):
    # rotate-half RoPE of one head (HD fp16 values at ptr) at position pos,
    # as HF: x * cos + rotate_half(x) * sin, cos/sin fp16, each product and
    # the sum rounded to fp16. Tables are [pos, HD // 2].
    HALF: tl.constexpr = HD // 2
    offs = tl.arange(0, HD)
    lo = offs < HALF
    j = tl.where(lo, offs, offs - HALF)
    x = tl.load(ptr + offs).to(tl.float32)
    xp = tl.load(ptr + tl.where(lo, offs + HALF, offs - HALF)).to(tl.float32)
    c = tl.load(cos_ptr + pos * HALF + j).to(tl.float32)
    s = tl.load(sin_ptr + pos * HALF + j).to(tl.float32)
    rot = tl.where(lo, -xp, xp)
    a = (x * c).to(tl.float16).to(tl.float32)
    b = (rot * s).to(tl.float16).to(tl.float32)
    return (a + b).to(tl.float16)


@triton.jit
def _rope_rows(ptrs, mask, cos_ptr, sin_ptr, pos, HD: tl.constexpr):
    # _rope for a block of heads: ptrs [R, 1] points at each head's HD
    # values, mask [R, 1] says which rows exist (the others give 0)
    HALF: tl.constexpr = HD // 2
    offs = tl.arange(0, HD)[None, :]
    lo = offs < HALF
    j = tl.where(lo, offs, offs - HALF)
    x = tl.load(ptrs + offs, mask=mask, other=0.0).to(tl.float32)
    xp = tl.load(ptrs + tl.where(lo, offs + HALF, offs - HALF), mask=mask, other=0.0).to(tl.float32)
    c = tl.load(cos_ptr + pos * HALF + j).to(tl.float32)
    s = tl.load(sin_ptr + pos * HALF + j).to(tl.float32)
    rot = tl.where(lo, -xp, xp)
    a = (x * c).to(tl.float16).to(tl.float32)
    b = (rot * s).to(tl.float16).to(tl.float32)
    return (a + b).to(tl.float16)


@triton.jit
def _combine(po_ptr, pl_ptr, out_ptr, h0, nheads, nused, HD: tl.constexpr, SPLITS: tl.constexpr, ROWS: tl.constexpr):
    # the outputs of heads h0 .. h0 + nheads - 1 (nheads <= ROWS), all at
    # once: each head's partials of splits 0 .. nused - 1 (those holding
    # keys) weighted by their log2-sum-exp. Split 0 is never empty, so each
    # head's max is finite. Every value is a [ROWS, 1] or [ROWS, HD] block of
    # one layout, a split at a time (its loads all issued at once), so
    # nothing moves between layouts: as one [ROWS, SPLITS, HD] block summed
    # over the splits, the weights went through shared memory and the sum
    # across warps (240 shared loads a thread), and the combining program
    # took longer than the rest of the attention.
    offs_s = tl.arange(0, SPLITS)
    offs_d = tl.arange(0, HD)[None, :]
    heads = h0 + tl.arange(0, ROWS)[:, None]
    rmask = heads < h0 + nheads
    lse = tl.load(pl_ptr + heads * SPLITS + offs_s[None, :], mask=rmask & (offs_s[None, :] < nused),
                  other=-float("inf"))
    m = tl.max(lse, axis=1, keep_dims=True)
    acc = tl.zeros((ROWS, HD), dtype=tl.float32)
    total = tl.zeros((ROWS, 1), dtype=tl.float32)
    for s in tl.static_range(SPLITS):
        used = rmask & (s < nused)
        w = tl.exp2(tl.load(pl_ptr + heads * SPLITS + s, mask=used, other=-float("inf")) - m)
        acc += tl.load(po_ptr + (heads * SPLITS + s) * HD + offs_d, mask=used, other=0.0) * w
        total += w
    tl.store(out_ptr + heads * HD + offs_d, (acc / total).to(tl.float16), mask=rmask)


# ---------------------------------------------------------------- decode


@triton.jit
def _x_whole(x_ptr, nw_ptr, K, eps, NORM: tl.constexpr, BLOCK_K: tl.constexpr):
    # x (rmsnorm(x) * nw when NORM), all K <= BLOCK_K values as one 1-D fp16
    # block: each value is loaded and normalized by one thread, then moved
    # into the weight tile's layout once (x[None, :] at the use), rather
    # than normalized again for every weight row
    offs = tl.arange(0, BLOCK_K)
    kmask = offs < K
    x = tl.load(x_ptr + offs, mask=kmask, other=0.0)
    if NORM:
        xf = x.to(tl.float32)
        rstd = tl.rsqrt(tl.sum(xf * xf, axis=0) / K + eps)
        nw = tl.load(nw_ptr + offs, mask=kmask, other=0.0).to(tl.float32)
        x = _rmsnorm_round(xf, nw, rstd)
    return x


@triton.jit
def gemv_kernel(x_ptr, nw_ptr, w_ptr, out_ptr, pval_ptr, pidx_ptr, N, K, eps,
                NORM: tl.constexpr, EPI: tl.constexpr, WHOLE_K: tl.constexpr, HOLD: tl.constexpr,
                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # y[n] = sum_k x'[k] * w[n, k] for BLOCK_N rows n; x' = rmsnorm(x) * nw
    # when NORM. EPI: 0 store (out = y, fp16), 1 residual (out += y, fp16, in
    # place), 2 argmax (out = y as fp32 logits, and this program's max and
    # its index into pval/pidx for argmax_step_kernel).
    # Memory-bound and short, so what counts is how soon each program has
    # all its bytes in flight: WHOLE_K (K <= BLOCK_K, llm.c checks) reads a
    # program's rows in one load, issued before waiting on the kernel before
    # (weights never change), and x once; else the rows go by in BLOCK_K
    # blocks, the next one loaded before the current one is used.
    # HOLD: the kernel after this one starts only once this one's wait has
    # returned (else at once), so that it may read, before its own wait,
    # anything the kernels before this one wrote (attn_decode reads the KV
    # cache and the position so).
    if not HOLD:
        tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    offs_n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    nmask = offs_n < N
    offs_k = tl.arange(0, BLOCK_K)
    # in the loop, x is read as a [BLOCK_N, BLOCK_K] block (each row the
    # same K slice, from L1) so that it comes in the weight tile's layout: a
    # 1-D x broadcast over the rows would be moved between layouts through
    # shared memory, two barriers per iteration (WHOLE_K pays that once)
    k2 = offs_k[None, :] + 0 * offs_n[:, None]
    w_ptrs = w_ptr + offs_n.to(tl.int64)[:, None] * K + k2
    w = tl.load(w_ptrs, mask=nmask[:, None] & (k2 < K), other=0.0)
    tl.extra.cuda.gdc_wait()
    if HOLD:
        tl.extra.cuda.gdc_launch_dependents()
    if WHOLE_K:
        x = _x_whole(x_ptr, nw_ptr, K, eps, NORM, BLOCK_K)
        y = tl.sum(w.to(tl.float32) * x[None, :].to(tl.float32), axis=1)
    else:
        if NORM:
            rstd = _rstd(x_ptr, K, eps, BLOCK_K)
        acc = tl.zeros((BLOCK_N, BLOCK_K), dtype=tl.float32)
        for k0 in range(BLOCK_K, K + BLOCK_K, BLOCK_K):
            w_next = tl.load(w_ptrs + k0, mask=nmask[:, None] & (k0 + k2 < K), other=0.0)
            kc = k0 - BLOCK_K + k2
            if NORM:
                x = _normed(x_ptr, nw_ptr, kc, kc < K, rstd).to(tl.float32)
            else:
                x = tl.load(x_ptr + kc, mask=kc < K, other=0.0).to(tl.float32)
            acc += w.to(tl.float32) * x
            w = w_next
        y = tl.sum(acc, axis=1)
    if EPI == 0:
        tl.store(out_ptr + offs_n, y.to(tl.float16), mask=nmask)
    elif EPI == 1:
        r = tl.load(out_ptr + offs_n, mask=nmask, other=0.0).to(tl.float32)
        tl.store(out_ptr + offs_n, (r + y.to(tl.float16).to(tl.float32)).to(tl.float16), mask=nmask)
    else:
        tl.store(out_ptr + offs_n, y, mask=nmask)
        y = tl.where(nmask, y, -float("inf"))
        best = tl.argmax(y, axis=0)
        tl.store(pval_ptr + pid, tl.max(y, axis=0))
        tl.store(pidx_ptr + pid, pid * BLOCK_N + best)


@triton.jit
def gemv_swiglu_kernel(x_ptr, nw_ptr, w_ptr, out_ptr, F, K, eps,
                       BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # out[n] = silu(g[n]) * u[n], g = x' @ w[n]^T, u = x' @ w[F + n]^T, with
    # w the fused [2F, K] gate-then-up weight and x' = rmsnorm(x) * nw; the
    # whole of K in one block (K <= BLOCK_K, llm.c checks), as gemv_kernel's
    # WHOLE_K. The kernel after it may start at once.
    tl.extra.cuda.gdc_launch_dependents()
    pid = tl.program_id(0)
    offs_n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    nmask = offs_n < F
    offs_k = tl.arange(0, BLOCK_K)
    k2 = offs_k[None, :] + 0 * offs_n[:, None]
    g_ptrs = w_ptr + offs_n.to(tl.int64)[:, None] * K + k2
    m = nmask[:, None] & (k2 < K)
    wg = tl.load(g_ptrs, mask=m, other=0.0)
    wu = tl.load(g_ptrs + F.to(tl.int64) * K, mask=m, other=0.0)
    tl.extra.cuda.gdc_wait()
    x = _x_whole(x_ptr, nw_ptr, K, eps, True, BLOCK_K)[None, :].to(tl.float32)
    g = tl.sum(wg.to(tl.float32) * x, axis=1).to(tl.float16).to(tl.float32)
    u = tl.sum(wu.to(tl.float32) * x, axis=1).to(tl.float16).to(tl.float32)
    s = (g / (1.0 + tl.exp(-g))).to(tl.float16).to(tl.float32)
    tl.store(out_ptr + offs_n, (s * u).to(tl.float16), mask=nmask)


@triton.jit
def attn_decode_kernel(qkv_ptr, kc_ptr, vc_ptr, cos_ptr, sin_ptr, state_ptr, po_ptr, pl_ptr, cnt_ptr, out_ptr,
                       max_ctx, sm_scale, NH, NKV,
                       HD: tl.constexpr, GROUP: tl.constexpr, SPLITS: tl.constexpr, BLOCK_N: tl.constexpr,
                       MIN_BLOCKS: tl.constexpr, FUSE_REDUCE: tl.constexpr):
    # Flash-decoding, one program per (KV head, split): the token at position
    # pos = state[0] attends to keys 0..pos; split s covers cdiv(pos + 1,
    # SPLITS) of them, rounded up to whole BLOCK_N blocks and to at least
    # MIN_BLOCKS blocks (so a short context leaves the last splits empty).
    # GQA: the program takes all NH // NKV query heads that share its KV
    # head as the rows of one [GROUP, HD] block (GROUP >= the group size, the
    # rows past it masked), so each K/V row is read once and the scores and
    # the weighted sum are tensor-core dots. Each split writes its normalized
    # partial output and log2-sum-exp for attn_reduce_kernel. q and the new k
    # are rotated here (RoPE); key pos comes from registers, not the cache,
    # and the split holding it writes it (k rotated, and v) into the cache for
    # later steps, so no program reads a row that another program of this
    # launch writes. qkv is the fused [q | k | v] row.
    # The position and the first block of cache rows are read before waiting
    # on the QKV projection: earlier steps wrote them, and gemv_norm (HOLD)
    # lets this kernel start only once everything before it has finished.
    # Each block's successor is loaded before the block is used.
    # FUSE_REDUCE: the split that finishes last for its KV head (a counter per
    # KV head, cnt_ptr, zero between launches) combines the group's partials
    # into out itself, as attn_reduce_kernel would, and resets the counter: one
    # launch a layer fewer. The counter's acq_rel atomic, after a barrier of the
    # program, orders every split's partial stores before that read; the
    # combine reads the splits that hold keys, cdiv(pos + 1, chunk) of them.
    # When one split holds every key, it writes out directly (no partials, no
    # counter).
    g = tl.program_id(0)
    split = tl.program_id(1)
    tl.extra.cuda.gdc_launch_dependents()
    group = NH // NKV
    pos = tl.load(state_ptr)
    seq = pos + 1
    chunk = tl.maximum(tl.cdiv(tl.cdiv(seq, SPLITS), BLOCK_N), MIN_BLOCKS) * BLOCK_N
    start = split * chunk
    end = tl.minimum(start + chunk, seq)
    offs_d = tl.arange(0, HD)
    offs_b = tl.arange(0, BLOCK_N)
    cache = g.to(tl.int64) * max_ctx * HD
    k, v = _kv_block(kc_ptr, vc_ptr, cache, start + offs_b, end, pos, HD)
    tl.extra.cuda.gdc_wait()
    offs_r = tl.arange(0, GROUP)
    rmask = offs_r < group
    heads = g * group + offs_r
    q = _rope_rows(qkv_ptr + heads[:, None] * HD, rmask[:, None], cos_ptr, sin_ptr, pos, HD)
    k_new = _rope(qkv_ptr + (NH + g) * HD, cos_ptr, sin_ptr, pos, HD)
    v_new = tl.load(qkv_ptr + (NH + NKV + g) * HD + offs_d)
    wmask = (offs_d < HD) & (start <= pos) & (pos < end)
    tl.store(kc_ptr + cache + pos * HD + offs_d, k_new, mask=wmask)
    tl.store(vc_ptr + cache + pos * HD + offs_d, v_new, mask=wmask)
    qk_scale = sm_scale * LOG2E
    m_i = tl.full((GROUP,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((GROUP,), dtype=tl.float32)
    acc = tl.zeros((GROUP, HD), dtype=tl.float32)
    for n0 in range(start, end, BLOCK_N):
        offs_n = n0 + offs_b
        k_next, v_next = _kv_block(kc_ptr, vc_ptr, cache, offs_n + BLOCK_N, end, pos, HD)
        valid = offs_n < end
        new = offs_n == pos
        # [BLOCK_N, HD] rows as stored (16-byte loads); the dot stages k
        # transposed
        k = tl.where(new[:, None], k_new[None, :], k)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        s = tl.where(valid[None, :], s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.where(new[:, None], v_new[None, :], v)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
        k = k_next
        v = v_next
    # an empty split (start past pos) leaves l_i == 0: output 0, weight 0
    has = l_i > 0.0
    out = acc / tl.where(has, l_i, 1.0)[:, None]
    if FUSE_REDUCE:
        if chunk >= seq:
            if split == 0:
                tl.store(out_ptr + heads[:, None] * HD + offs_d[None, :], out.to(tl.float16), mask=rmask[:, None])
        else:
            _store_partial(po_ptr, pl_ptr, heads * SPLITS + split, rmask, out, m_i, l_i, HD)
            tl.debug_barrier()
            done = tl.atomic_add(cnt_ptr + g, 1, sem="acq_rel", scope="gpu")
            if done == SPLITS - 1:
                _combine(po_ptr, pl_ptr, out_ptr, g * group, group, tl.cdiv(seq, chunk), HD, SPLITS, GROUP)
                tl.store(cnt_ptr + g, 0)
    else:
        _store_partial(po_ptr, pl_ptr, heads * SPLITS + split, rmask, out, m_i, l_i, HD)


@triton.jit
def _kv_block(k_ptr, v_ptr, cache, offs_n, end, pos, HD: tl.constexpr):
    # keys offs_n of one KV head's cache (at element cache), K and V as stored ([BLOCK_N, HD],
    # 16-byte loads); rows past end, and pos and later (not in the cache
    # yet: pos comes from registers), read as 0
    rows = offs_n[:, None] * HD + tl.arange(0, HD)[None, :]
    old = ((offs_n < end) & (offs_n < pos))[:, None]
    return tl.load(k_ptr + cache + rows, mask=old, other=0.0), tl.load(v_ptr + cache + rows, mask=old, other=0.0)


@triton.jit
def _store_partial(po_ptr, pl_ptr, row, rmask, out, m_i, l_i, HD: tl.constexpr):
    # a split's normalized output rows and their log2-sum-exp (-inf where
    # the split holds no key: l_i == 0)
    has = l_i > 0.0
    lse = tl.where(has, m_i + tl.log2(tl.where(has, l_i, 1.0)), -float("inf"))
    tl.store(po_ptr + row[:, None] * HD + tl.arange(0, HD)[None, :], out, mask=rmask[:, None])
    tl.store(pl_ptr + row, lse, mask=rmask)


@triton.jit
def attn_reduce_kernel(po_ptr, pl_ptr, out_ptr, NH, HD: tl.constexpr, SPLITS: tl.constexpr):
    # Combines the SPLITS partial outputs of head h (attn_decode_kernel
    # without FUSE_REDUCE).
    h = tl.program_id(0)
    tl.extra.cuda.gdc_launch_dependents()
    tl.extra.cuda.gdc_wait()
    _combine(po_ptr, pl_ptr, out_ptr, h, 1, SPLITS, HD, SPLITS, 1)


@triton.jit
def argmax_step_kernel(pval_ptr, pidx_ptr, NPART, emb_ptr, h_ptr, state_ptr, tokens_ptr, H,
                       BLOCK_P: tl.constexpr, BLOCK_H: tl.constexpr):
    # One program: the argmax over the GEMV programs' partial maxima (the
    # first index among equal maxima, as torch.argmax), then the next step's
    # input: tokens[pos + 1] = token, state = [pos + 1, token], h = emb[token].
    tl.extra.cuda.gdc_launch_dependents()
    tl.extra.cuda.gdc_wait()
    best_v = -float("inf")
    best_i = 0
    for p0 in range(0, NPART, BLOCK_P):
        offs = p0 + tl.arange(0, BLOCK_P)
        v = tl.load(pval_ptr + offs, mask=offs < NPART, other=-float("inf"))
        mv = tl.max(v, axis=0)
        take = mv > best_v
        best_i = tl.where(take, p0 + tl.argmax(v, axis=0), best_i)
        best_v = tl.where(take, mv, best_v)
    tok = tl.load(pidx_ptr + best_i)
    pos = tl.load(state_ptr)
    tl.store(tokens_ptr + pos + 1, tok)
    tl.store(state_ptr, pos + 1)
    tl.store(state_ptr + 1, tok)
    row = emb_ptr + tok.to(tl.int64) * H
    for h0 in range(0, H, BLOCK_H):
        offs = h0 + tl.arange(0, BLOCK_H)
        tl.store(h_ptr + offs, tl.load(row + offs, mask=offs < H), mask=offs < H)


# --------------------------------------------------------------- prefill


@triton.jit
def embed_kernel(tok_ptr, emb_ptr, out_ptr, M, H, BLOCK: tl.constexpr):
    # out[m] = emb[tok[m]], one program a row (M rows)
    m = tl.program_id(0)
    tok = tl.load(tok_ptr + m).to(tl.int64)
    for h0 in range(0, H, BLOCK):
        offs = h0 + tl.arange(0, BLOCK)
        v = tl.load(emb_ptr + tok * H + offs, mask=offs < H)
        tl.store(out_ptr + m.to(tl.int64) * H + offs, v, mask=offs < H)


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, out_ptr, M, H, eps, BLOCK: tl.constexpr):
    # out[m] = rmsnorm(x[m]) * w, one program a row (M rows)
    m = tl.program_id(0).to(tl.int64)
    rstd = _rstd(x_ptr + m * H, H, eps, BLOCK)
    for h0 in range(0, H, BLOCK):
        offs = h0 + tl.arange(0, BLOCK)
        y = _normed(x_ptr + m * H, w_ptr, offs, offs < H, rstd)
        tl.store(out_ptr + m * H + offs, y, mask=offs < H)


@triton.jit
def gemm_kernel(a_ptr, w_ptr, out_ptr, M, N, K, RESIDUAL: tl.constexpr,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # out[M, N] (+)= a[M, K] @ w[N, K]^T on the tensor cores; K % BLOCK_K == 0
    # (llm.c checks), rows past M masked. RESIDUAL: out += the product
    # rounded to fp16, in place.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m.to(tl.int64)[:, None] * K + offs_k[None, :]
    b_ptrs = w_ptr + offs_n.to(tl.int64)[None, :] * K + offs_k[:, None]
    mmask = offs_m[:, None] < M
    nmask = offs_n[None, :] < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=mmask, other=0.0)
        b = tl.load(b_ptrs, mask=nmask, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    c_ptrs = out_ptr + offs_m.to(tl.int64)[:, None] * N + offs_n[None, :]
    y = acc.to(tl.float16)
    if RESIDUAL:
        r = tl.load(c_ptrs, mask=mmask & nmask, other=0.0)
        y = (r.to(tl.float32) + y.to(tl.float32)).to(tl.float16)
    tl.store(c_ptrs, y, mask=mmask & nmask)


@triton.jit
def gemm_swiglu_kernel(a_ptr, w_ptr, out_ptr, M, F, K,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # out[M, F] = silu(a @ wg^T) * (a @ wu^T), w the fused [2F, K] weight
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m.to(tl.int64)[:, None] * K + offs_k[None, :]
    g_ptrs = w_ptr + offs_n.to(tl.int64)[None, :] * K + offs_k[:, None]
    u_ptrs = g_ptrs + F.to(tl.int64) * K
    mmask = offs_m[:, None] < M
    nmask = offs_n[None, :] < F
    acc_g = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_u = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=mmask, other=0.0)
        bg = tl.load(g_ptrs, mask=nmask, other=0.0)
        bu = tl.load(u_ptrs, mask=nmask, other=0.0)
        acc_g = tl.dot(a, bg, acc_g)
        acc_u = tl.dot(a, bu, acc_u)
        a_ptrs += BLOCK_K
        g_ptrs += BLOCK_K
        u_ptrs += BLOCK_K
    g = acc_g.to(tl.float16).to(tl.float32)
    u = acc_u.to(tl.float16).to(tl.float32)
    s = (g / (1.0 + tl.exp(-g))).to(tl.float16).to(tl.float32)
    c_ptrs = out_ptr + offs_m.to(tl.int64)[:, None] * F + offs_n[None, :]
    tl.store(c_ptrs, (s * u).to(tl.float16), mask=mmask & nmask)


@triton.jit
def rope_kv_kernel(qkv_ptr, cos_ptr, sin_ptr, q_ptr, kc_ptr, vc_ptr, M, max_ctx, NH, NKV,
                   HD: tl.constexpr):
    # Program (m, j): row m (position m) of the fused qkv; j < NH rotates
    # query head j into q[m] (a separate buffer: rotating in place would
    # race between threads), else KV head j - NH: k rotated, and v, into
    # the cache at position m.
    m = tl.program_id(0)
    j = tl.program_id(1)
    offs = tl.arange(0, HD)
    row = qkv_ptr + m.to(tl.int64) * ((NH + 2 * NKV) * HD)
    if j < NH:
        r = _rope(row + j * HD, cos_ptr, sin_ptr, m, HD)
        tl.store(q_ptr + m.to(tl.int64) * (NH * HD) + j * HD + offs, r)
    else:
        g = j - NH
        r = _rope(row + (NH + g) * HD, cos_ptr, sin_ptr, m, HD)
        cache = (g.to(tl.int64) * max_ctx + m) * HD
        tl.store(kc_ptr + cache + offs, r)
        tl.store(vc_ptr + cache + offs, tl.load(row + (NH + NKV + g) * HD + offs))


@triton.jit
def attn_prefill_kernel(q_ptr, kc_ptr, vc_ptr, out_ptr, M, max_ctx, sm_scale, NH, NKV,
                        HD: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Causal flash attention of the M prompt rows (positions 0..M-1) of
    # query head h over its KV head's cache; q is [M, NH * HD] (rotated),
    # out the same shape.
    pid_m = tl.program_id(0)
    h = tl.program_id(1)
    g = h // (NH // NKV)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HD)
    mrow = offs_m[:, None] < M
    q = tl.load(q_ptr + offs_m.to(tl.int64)[:, None] * (NH * HD) + h * HD + offs_d[None, :], mask=mrow, other=0.0)
    cache = g.to(tl.int64) * max_ctx * HD
    qk_scale = sm_scale * LOG2E
    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HD), dtype=tl.float32)
    hi = tl.minimum((pid_m + 1) * BLOCK_M, M)
    for n0 in range(0, hi, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        kt = tl.load(kc_ptr + cache + offs_n[None, :] * HD + offs_d[:, None], mask=offs_n[None, :] < M, other=0.0)
        s = tl.dot(q, kt) * qk_scale
        keep = (offs_n[None, :] <= offs_m[:, None]) & (offs_n[None, :] < M)
        s = tl.where(keep, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(vc_ptr + cache + offs_n[:, None] * HD + offs_d[None, :], mask=offs_n[:, None] < M, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(out_ptr + offs_m.to(tl.int64)[:, None] * (NH * HD) + h * HD + offs_d[None, :], out.to(tl.float16),
             mask=mrow)
