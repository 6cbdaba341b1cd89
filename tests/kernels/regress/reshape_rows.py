import triton
import triton.language as tl


@triton.jit
def scale_blocks(x_ptr, absmax_ptr, out_ptr, n, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    # each group of BLOCK elements divided by its largest magnitude (the
    # first step of a blockwise quantization): a [ROWS * BLOCK] block seen
    # as [ROWS, BLOCK] and back, reshapes along which the runs of elements
    # a thread holds line up
    offs = tl.program_id(0) * ROWS * BLOCK + tl.arange(0, ROWS * BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    rows = tl.reshape(x, (ROWS, BLOCK))
    m = tl.max(tl.abs(rows), axis=1)
    g = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    tl.store(absmax_ptr + g, m, mask=g * BLOCK < n)
    y = tl.reshape(rows / m[:, None], (ROWS * BLOCK, ))
    tl.store(out_ptr + offs, y, mask=offs < n)
