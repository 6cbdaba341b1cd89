import triton
import triton.language as tl


@triton.jit
def cast_chain_kernel(x_ptr, h_ptr, b_ptr, i_ptr, f_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(h_ptr + offs, x.to(tl.float16), mask=mask)
    tl.store(b_ptr + offs, x.to(tl.bfloat16), mask=mask)
    i = x.to(tl.int32)
    tl.store(i_ptr + offs, i, mask=mask)
    tl.store(f_ptr + offs, i.to(tl.float32) + x.to(tl.float16).to(tl.float32), mask=mask)


@triton.jit
def axpy_fp16_kernel(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    # y = a * x + y with fp16 tensors: the arithmetic itself happens in fp16.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, a.to(tl.float16) * x + y, mask=mask)


@triton.jit
def sum_fp16_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Accumulate fp16 input in fp32 before reducing.
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(x.to(tl.float32), axis=0))
