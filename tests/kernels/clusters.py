# Kernels for num_ctas > 1: programs split over thread block clusters.
import triton
import triton.language as tl


@triton.jit
def scaled_rows(x_ptr, out_ptr, scale_ptr, count_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # rows split over the cluster; the scale every CTA loads, the count
    # (a value every CTA holds) stored by rank 0 alone
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)
    s = tl.load(scale_ptr)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], x * s, mask=mask)
    tl.debug_barrier()
    tl.store(count_ptr + tl.program_id(0), tl.num_programs(0))


@triton.jit
def ticket(x_ptr, out_ptr, counter_ptr, BLOCK: tl.constexpr):
    # the old value of an atomic every CTA would repeat: not split
    t = tl.atomic_add(counter_ptr, 1)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + t * BLOCK + offs, tl.load(x_ptr + offs))


@triton.jit
def rows_and_desc(x_ptr, out_ptr, y_desc, M, BLOCK_M: tl.constexpr):
    # rows split over the cluster; the descriptor's block every CTA holds
    # (a TMA store takes no mask: with TMA the split is refused)
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, 64)
    x = tl.load(x_ptr + rm[:, None] * 64 + rn[None, :], mask=rm[:, None] < M)
    tl.store(out_ptr + rm[:, None] * 64 + rn[None, :], x + 1, mask=rm[:, None] < M)
    y_desc.store([tl.program_id(0) * 64, 0], tl.full((64, 64), 1.0, tl.float32))
