import triton
import triton.language as tl


@triton.jit
def running_sum_rows(counts_ptr, E: tl.constexpr):
    # FlagGems' MoE alignment: one counter read and rewritten an iteration,
    # its address moving with i; no iteration reads another's: no barrier
    pid = tl.program_id(0)
    total = 0
    for i in range(1, E + 1):
        c = tl.load(counts_ptr + i * E + pid)
        total = total + c
        tl.store(counts_ptr + i * E + pid, total)


@triton.jit
def bump_one_counter(counter_ptr, n):
    # the same address each iteration: each read waits for the last store
    pid = tl.program_id(0)
    for i in range(0, n):
        c = tl.load(counter_ptr + pid)
        tl.store(counter_ptr + pid, c + 1)


@triton.jit
def chain_next(x_ptr, n):
    # reads what the previous iteration stored one element further on
    for i in range(0, n):
        v = tl.load(x_ptr + i)
        tl.store(x_ptr + i + 1, v * 2)


@triton.jit
def running_sum_rows_when(counts_ptr, E: tl.constexpr):
    # the same counter loop with its store under a runtime if: still no barrier
    pid = tl.program_id(0)
    total = 0
    for i in range(1, E + 1):
        c = tl.load(counts_ptr + i * E + pid)
        total = total + c
        if c > 0:
            tl.store(counts_ptr + i * E + pid, total)


@triton.jit
def walk_carried_pointer(x_ptr, n):
    # a loop-carried pointer: its address is no function of i, so each
    # read waits for the last iteration's store
    p = x_ptr
    for i in range(0, n):
        v = tl.load(p)
        tl.store(p, v + 1.0)
        p += 1
