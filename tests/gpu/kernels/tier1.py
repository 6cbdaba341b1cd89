"""Tier-1 kernels of the GPU differential suite: elementwise math, masks,
casts and integer arithmetic, each small enough that a wrong element points
at one construct. They run unchanged under Triton 3.6 (the oracle) and tile."""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def sin_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.sin(x), mask=mask)


@triton.jit
def cos_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.cos(x), mask=mask)


@triton.jit
def exp_div_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # fp32 exp and / are Triton's approximate instructions
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, tl.exp(x) / (1.0 + y * y), mask=mask)


@triton.jit
def where_other_kernel(x_ptr, out_ptr, n_elements, limit, BLOCK_SIZE: tl.constexpr):
    # loads past `limit` take `other`; stores are masked by n_elements
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs, mask=offs < limit, other=-2.5)
    y = tl.where(x > 0.0, x * 3.0, x - 1.0)
    tl.store(out_ptr + offs, y, mask=offs < n_elements)


@triton.jit
def cast_kernel(x_ptr, h_ptr, b_ptr, i_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # fp32 -> fp16, bf16 (round to nearest even) and i32 (truncation)
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(h_ptr + offs, x.to(tl.float16), mask=mask)
    tl.store(b_ptr + offs, x.to(tl.bfloat16), mask=mask)
    tl.store(i_ptr + offs, (x * 100.0).to(tl.int32), mask=mask)


@triton.jit
def int_arith_kernel(a_ptr, b_ptr, q_ptr, r_ptr, s_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # runtime // and % truncate like C; shifts and bit operations on i32
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    tl.store(q_ptr + offs, a // b, mask=mask)
    tl.store(r_ptr + offs, a % b, mask=mask)
    tl.store(s_ptr + offs, ((a << 3) ^ (b >> 1)) & 0xFFFF | (a * b), mask=mask)


@triton.jit
def fp16_math_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # fp16 arithmetic stays fp16; sqrt of |x| through fp32
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = x * y + x - tl.sqrt(tl.abs(y).to(tl.float32)).to(tl.float16)
    tl.store(out_ptr + offs, tl.maximum(z, tl.minimum(x, y)), mask=mask)


@triton.jit
def _scaled_tanh(x, scale):
    return libdevice.tanh(x * scale)


@triton.jit
def libdevice_kernel(x_ptr, out_ptr, n_elements, scale, BLOCK_SIZE: tl.constexpr):
    # an inlined @jit helper calling libdevice, plus erf and rsqrt
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = _scaled_tanh(x, scale) + libdevice.erf(x) + tl.rsqrt(x * x + 1.0)
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def sigmoid_fma_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.fma(tl.sigmoid(x), y, x), mask=mask)


@triton.jit
def narrow_int_to_f32_kernel(a_ptr, b_ptr, c_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # i8, u8 and i16 to fp32, exact: whole ranges and ranges of their own
    # (x >> 4 of an i16, (x & 15) - 8 of an i8); out holds the five
    # results one after another
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    c = tl.load(c_ptr + offs, mask=mask, other=0)
    tl.store(out_ptr + offs, a.to(tl.float32), mask=mask)
    tl.store(out_ptr + n_elements + offs, b.to(tl.float32), mask=mask)
    tl.store(out_ptr + 2 * n_elements + offs, c.to(tl.float32), mask=mask)
    tl.store(out_ptr + 3 * n_elements + offs, (c >> 4).to(tl.float32), mask=mask)
    tl.store(out_ptr + 4 * n_elements + offs, ((a & 15) - 8).to(tl.float32), mask=mask)
