import triton
import triton.language as tl


@triton.jit
def copy_rows(x_ptr, out_ptr, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    # each row's values form a set of dims of their own: thousands of sets
    for i in tl.static_range(ROWS):
        for j in tl.static_range(ROWS):
            offs = (i * ROWS + j) * BLOCK + tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs))
