# Loads that passes/sink.c moves down to their first user, and one it
# must leave above a store to the same addresses.
import triton
import triton.language as tl


@triton.jit
def load_store_use_kernel(p_ptr, q_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(p_ptr + offs, mask=m)
    tl.store(p_ptr + offs, offs.to(tl.float32) * 2.0, mask=m)
    y = x + 1.0
    tl.store(q_ptr + offs, y, mask=m)
