import triton
import triton.language as tl


@triton.jit
def clamp_kernel(x_ptr, out_ptr, lo, hi, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.minimum(tl.maximum(x, lo), hi)
    y = tl.where(tl.abs(x) < 0.1, 0.0, y)
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def math_kernel(x_ptr, exp_ptr, log_ptr, sqrt_ptr, rsqrt_ptr, n, BLOCK: tl.constexpr):
    # x > 0 is assumed; exp2/log2 and fma round out the set.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(exp_ptr + offs, tl.exp(x) + tl.exp2(x), mask=mask)
    tl.store(log_ptr + offs, tl.log(x) - tl.log2(x), mask=mask)
    tl.store(sqrt_ptr + offs, tl.fma(tl.sqrt(x), 2.0, 1.0), mask=mask)
    tl.store(rsqrt_ptr + offs, tl.rsqrt(x), mask=mask)


@triton.jit
def swish_int_mix_kernel(x_ptr, k_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Mixed int32 and fp32 operands promote to fp32.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    k = tl.load(k_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * k + (k > 2), mask=mask)
