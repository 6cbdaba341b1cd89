import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, alpha, n_elements, BLOCK_SIZE: tl.constexpr):
    # out = alpha * x, one block of BLOCK_SIZE elements per program
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x, mask=mask)
