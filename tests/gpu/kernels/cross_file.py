import triton
import triton.language as tl

from gpu_helpers.activations import leaky
import gpu_helpers.activations as act


@triton.jit
def cross_file_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # helpers from another file of the source tree (gpu_helpers/activations.py)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, leaky(x) + act.leaky_then_square(x), mask=mask)
