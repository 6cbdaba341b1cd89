import triton
import triton.language as tl


@triton.jit
def sign_scale_kernel(x_ptr, out_ptr, n, flag, BLOCK: tl.constexpr):
    # A runtime scalar condition picks the branch; both assign y.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if flag > 0:
        y = x * 2.0
    else:
        y = -x
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def block_sums_kernel(x_ptr, sums_ptr, total_ptr, n, BLOCK: tl.constexpr):
    # Every program writes its block's sum; program 0 also writes the element count
    # it saw over all blocks, computed from num_programs.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(sums_ptr + pid, tl.sum(x, axis=0))
    if pid == 0:
        count = tl.minimum(tl.num_programs(0) * BLOCK, n)
        tl.store(total_ptr, count)
