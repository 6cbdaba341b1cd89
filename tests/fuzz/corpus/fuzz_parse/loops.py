import triton
import triton.language as tl


@triton.jit
def row_sum_loop_kernel(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr):
    # Sums a row of any length in BLOCK-wide chunks with a carried accumulator.
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def grid_stride_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Persistent style: each program walks the blocks pid, pid + nprog, ...
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    num_blocks = tl.cdiv(n, BLOCK)
    for b in range(pid, num_blocks, nprog):
        offs = b * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x * 3.0 - 1.0, mask=mask)


@triton.jit
def poly_kernel(x_ptr, out_ptr, n, DEGREE: tl.constexpr, BLOCK: tl.constexpr):
    # Horner's rule for sum_{k=0..DEGREE} (k + 1) x^k, two carried values.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    coef = DEGREE + 1.0
    for k in range(DEGREE + 1):
        acc = acc * x + coef
        coef -= 1.0
    tl.store(out_ptr + offs, acc, mask=mask)


@triton.jit
def halvings_kernel(n_ptr, out_ptr):
    # Runtime while loop: how many halvings take n down to 1.
    n = tl.load(n_ptr)
    steps = 0
    while n > 1:
        n = n // 2
        steps += 1
    tl.store(out_ptr, steps)
