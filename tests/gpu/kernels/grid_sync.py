import triton
import triton.language as tl


# A grid-wide barrier from atomics: correct only when every program of the
# grid is resident at once, which a cooperative launch guarantees (or
# refuses). Each program sums its block, publishes the sum, waits for all
# programs, then writes the total of all sums.
@triton.jit
def grid_sum_kernel(x_ptr, partial_ptr, count_ptr, out_ptr, n, BLOCK: tl.constexpr, MAX_PROGRAMS: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    s = tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0), axis=0)
    tl.store(partial_ptr + pid, s)
    tl.atomic_add(count_ptr, 1, sem="release")
    while tl.atomic_add(count_ptr, 0, sem="acquire") < nprog:
        pass
    p = tl.arange(0, MAX_PROGRAMS)
    total = tl.sum(tl.load(partial_ptr + p, mask=p < nprog, other=0), axis=0)
    tl.store(out_ptr + pid, total)
