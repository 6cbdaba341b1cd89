import triton
import triton.language as tl


@triton.jit
def to_fp8_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # fp32, fp16 or bf16 to the output's fp8 kind (round to nearest even, saturating on sm_90)
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def from_fp8_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # fp8 to the output's fp32, fp16 or bf16 (exact; fp8e5 to bf16 as Triton scales it)
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def fp8_roundtrip_kernel(x_ptr, q_ptr, bits_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # fp32 -> fp8 (q's kind) -> fp32 in registers; the fp8 bytes also through a bitcast to uint8
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    q = x.to(q_ptr.dtype.element_ty)
    tl.store(q_ptr + offs, q, mask=mask)
    tl.store(bits_ptr + offs, q.to(tl.uint8, bitcast=True), mask=mask)
    tl.store(y_ptr + offs, q.to(tl.float32), mask=mask)
