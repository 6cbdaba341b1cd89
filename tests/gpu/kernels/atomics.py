# GPU cases: atomics against Triton (tests/gpu/cases.py drives them).
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, bins_ptr, n, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + x % NBINS, 1, mask=mask)


@triton.jit
def col_sum_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # programs over row blocks add their partial column sums into out
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
    tl.atomic_add(out_ptr + cols, tl.sum(x, axis=0), mask=cols < N, sem="relaxed")


@triton.jit
def float_max_kernel(x_ptr, cur_ptr, old_ptr, acc_ptr, n, NB: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # one address per element: the old values are cur's initial ones
    old = tl.atomic_max(cur_ptr + offs, x, mask=mask)
    tl.store(old_ptr + offs, old, mask=mask)
    # NB addresses shared by every program: a max (min) over a total order
    # of the bits, so the result does not depend on the order
    tl.atomic_max(acc_ptr + offs % NB, x, mask=mask)
    tl.atomic_min(acc_ptr + NB + offs % NB, x, mask=mask)


@triton.jit
def half_add_kernel(x_ptr, cur_ptr, old_ptr, acc_ptr, n, NB: tl.constexpr, BLOCK: tl.constexpr):
    # fp16 additions: packed in pairs (f16x2) where n lets the mask come in pairs
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    # one address per element: the old values are cur's initial ones
    old = tl.atomic_add(cur_ptr + offs, x, mask=mask)
    tl.store(old_ptr + offs, old, mask=mask)
    # NB addresses shared by every program; small integers, at most n / NB + 1
    # of them per address, keep every partial sum exact in any order
    tl.atomic_add(acc_ptr + offs % NB, x, mask=mask, sem="relaxed")


@triton.jit
def ticket_kernel(count_ptr, slots_ptr, seen_ptr, hits_ptr, SLOTS: tl.constexpr):
    # a scalar atomic's old value (one thread, then shared memory to all):
    # each of the 128 threads stores at its own idea of the ticket
    t = tl.atomic_add(count_ptr, 1)
    lanes = tl.arange(0, 128)
    tl.store(seen_ptr + t * 128 + lanes, t + 1)
    # a block of SLOTS with 4 warps holds replicas: owners only update; the
    # old values (each 0..P-1 once per slot) pick where to store
    offs = tl.arange(0, SLOTS)
    old = tl.atomic_add(slots_ptr + offs, 1)
    tl.store(hits_ptr + old * SLOTS + offs, offs + 1)


@triton.jit
def ticket_chain_kernel(ticket_ptr, turn_ptr, acc_ptr, out_ptr, MASKED: tl.constexpr):
    # the programs run their middle part one at a time, in the order of the
    # tickets they take, each spinning on volatile loads of the turn until
    # the one before passes it on: a load hoisted out of the loop, or one
    # that a stale L1 line answers, never sees the turn change. Each turn
    # folds its ticket into acc and stores the value it found, so a race
    # shows in the output (a scalar load, or a masked 2-element one)
    t = tl.atomic_add(ticket_ptr, 1, sem="relaxed")
    if MASKED:
        offs = tl.arange(0, 2)
        while tl.max(tl.load(turn_ptr + offs, mask=offs < 1, other=0, volatile=True), axis=0) < t:
            pass
    else:
        while tl.load(turn_ptr, volatile=True) < t:
            pass
    old = tl.atomic_add(acc_ptr, 0, sem="acquire")
    tl.atomic_xchg(acc_ptr, (old * 3 + t + 1) % 1000003, sem="relaxed")
    tl.store(out_ptr + t, old)
    tl.atomic_xchg(turn_ptr, t + 1, sem="release")


@triton.jit
def layer_norm_bwd_dx_fused(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                            GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    # the layer norm backward of Triton's tutorial 05: dx per row, and the
    # row's dw/db added into one of GROUP_SIZE_M partial rows under a spin lock
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.)
    wdy = tl.where(mask, w * dy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = dy.to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    # every thread's stores before the release
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def half_col_sum_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # column sums accumulated in fp16 or bf16 by every row block's atomics
    # (relaxed and unused: red), two columns per instruction where N keeps
    # the mask in pairs; each block's rows summed in fp32 first
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=(rows[:, None] < M) & (cols[None, :] < N), other=0.0)
    s = tl.sum(x.to(tl.float32), axis=0)
    tl.atomic_add(out_ptr + cols, s.to(out_ptr.type.element_ty), mask=cols < N, sem="relaxed")
