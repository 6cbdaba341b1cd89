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
