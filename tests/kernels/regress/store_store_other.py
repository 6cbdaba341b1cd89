import triton
import triton.language as tl


@triton.jit
def copy_twice(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    # stores to y and z, loads from x only: no barrier is needed
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    for i in range(0, 4):
        x = tl.load(x_ptr + i * n + offs, mask=offs < n)
        tl.store(y_ptr + i * n + offs, x, mask=offs < n)
        tl.store(z_ptr + i * n + offs, x * 2, mask=offs < n)


@triton.jit
def accumulate_in_place(x_ptr, n, BLOCK: tl.constexpr):
    # reads back, at the top of each iteration, rows the last one stored
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    for i in range(1, 4):
        prev = tl.load(x_ptr + (i - 1) * n + offs, mask=offs < n)
        tl.store(x_ptr + i * n + offs, prev + 1.0, mask=offs < n)


@triton.jit
def rewrite_blocks(x_ptr, n, BLOCK: tl.constexpr):
    # a block pointer the loop carries, advanced past the block each
    # iteration (vLLM's lightning attention reduction): no iteration reads
    # what an earlier one stored
    p = x_ptr + tl.arange(0, BLOCK)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :]
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for i in range(0, n):
        cur = tl.load(p)
        tl.store(p, acc)
        acc = acc + cur
        p += BLOCK * BLOCK


@triton.jit
def rewrite_overlapping_blocks(x_ptr, n, BLOCK: tl.constexpr):
    # advanced by half a block: each iteration reads half of what the last
    # one stored
    p = x_ptr + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, n):
        cur = tl.load(p)
        tl.store(p, acc)
        acc = acc + cur
        p += BLOCK // 2
