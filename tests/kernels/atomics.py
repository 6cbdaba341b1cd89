# Atomics: histograms, sums across programs, float max/min, a spin lock.
import triton
import triton.language as tl


@triton.jit
def histogram(x_ptr, bins_ptr, n, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + (x % NBINS), 1, mask=mask)


@triton.jit
def histogram_relaxed(x_ptr, bins_ptr, n, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + (x % NBINS), 1, mask=mask, sem="relaxed")


@triton.jit
def col_sum(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # each program adds its rows' column sums into out
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
    tl.atomic_add(out_ptr + cols, tl.sum(x, axis=0), mask=cols < N, sem="relaxed")


@triton.jit
def fetch_ops(p_ptr, v_ptr, old_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    # every program applies OP to the same n elements and records the old values
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(v_ptr + pid * n + offs, mask=mask)
    if OP == "add":
        old = tl.atomic_add(p_ptr + offs, v, mask=mask)
    elif OP == "max":
        old = tl.atomic_max(p_ptr + offs, v, mask=mask)
    elif OP == "min":
        old = tl.atomic_min(p_ptr + offs, v, mask=mask)
    elif OP == "and":
        old = tl.atomic_and(p_ptr + offs, v, mask=mask, sem="acquire", scope="cta")
    elif OP == "or":
        old = tl.atomic_or(p_ptr + offs, v, mask=mask, sem="release", scope="sys")
    elif OP == "xor":
        old = tl.atomic_xor(p_ptr + offs, v, mask=mask)
    else:
        old = tl.atomic_xchg(p_ptr + offs, v, mask=mask)
    tl.store(old_ptr + pid * n + offs, old, mask=mask)


@triton.jit
def scalar_counter(count_ptr, ticket_ptr):
    # one ticket per program: the old value of a scalar atomic
    pid = tl.program_id(0)
    t = tl.atomic_add(count_ptr, 1)
    tl.store(ticket_ptr + pid, t)


@triton.jit
def cas_ticket(lock_ptr, order_ptr):
    # a spin lock around a read-modify-write of a counter
    pid = tl.program_id(0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    c = tl.load(lock_ptr + 1)
    tl.store(lock_ptr + 1, c + 1)
    tl.store(order_ptr + pid, c)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def layer_norm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.)
        db += tl.load(DB + offs, mask=mask, other=0.)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


@triton.jit
def cas_block(p_ptr, cmp_ptr, val_ptr, old_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_cas(p_ptr + offs, tl.load(cmp_ptr + offs), tl.load(val_ptr + offs), sem="relaxed", scope="cta")
    tl.store(old_ptr + offs, old)


@triton.jit
def bf16_add_scoped(p_ptr, v_ptr, old_ptr, SEM: tl.constexpr, SCOPE: tl.constexpr, BLOCK: tl.constexpr):
    # bf16 addition (a compare-and-swap loop below sm_90) in a given scope
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_add(p_ptr + offs, tl.load(v_ptr + offs), sem=SEM, scope=SCOPE)
    tl.store(old_ptr + offs, old)


@triton.jit
def add_pairs(p_ptr, v_ptr, n, MASK: tl.constexpr, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    # relaxed fp16/bf16 additions whose result is unused: without a mask
    # ("none"), with one bit per element ("elem": offs < n) or one per
    # aligned pair ("pair": offs // 2 < n); SHIFT 1 puts every pair across
    # two 4-byte words
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(v_ptr + offs)
    if MASK == "none":
        tl.atomic_add(p_ptr + SHIFT + offs, v, sem="relaxed")
    elif MASK == "pair":
        tl.atomic_add(p_ptr + SHIFT + offs, v, mask=offs // 2 < n, sem="relaxed")
    else:
        tl.atomic_add(p_ptr + SHIFT + offs, v, mask=offs < n, sem="relaxed")


@triton.jit
def spin_flag(flag_ptr, out_ptr, target):
    # turns spent waiting for a flag another program raises: the scalar
    # volatile load is one value for the whole program
    n = 0
    while tl.load(flag_ptr, volatile=True) < target:
        n += 1
    tl.store(out_ptr, n)
