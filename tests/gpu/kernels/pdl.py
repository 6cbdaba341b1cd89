import triton
import triton.language as tl


# Programmatic dependent launch (Triton's tutorial 11): with USE_GDC the
# kernel may start before the one before it in the stream has finished,
# waits for it before reading, and lets the next kernel start once its
# loads are issued.
@triton.jit
def pdl_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr, USE_GDC: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    if USE_GDC:
        tl.extra.cuda.gdc_wait()
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    if USE_GDC:
        tl.extra.cuda.gdc_launch_dependents()
    tl.store(out_ptr + offsets, x + y, mask=mask)
