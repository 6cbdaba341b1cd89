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
