import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def to_fp8_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # fp32, fp16 or bf16 in, fp8 out: the store's pointer type picks the fp8 kind.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def from_fp8_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def fp8_bits_kernel(x_ptr, bits_ptr, y_ptr, n, FP8: tl.constexpr, BLOCK: tl.constexpr):
    # bitcasts both ways, tl.full of an fp8 constant, tl.where on fp8, masked loads with other
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.5)
    tl.store(bits_ptr + offs, x.to(tl.uint8, bitcast=True), mask=mask)
    back = tl.load(bits_ptr + offs, mask=mask).to(FP8, bitcast=True)
    two = tl.full([BLOCK], 2.0, FP8)
    y = tl.where(offs % 2 == 0, back, two)
    tl.store(y_ptr + offs, y.to(tl.float32), mask=offs < BLOCK)


@triton.jit
def fp8_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                      stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
    # tutorial 03's loop with fp8 operands (either kind), fp32 accumulation, fp16 output
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def fp8_sin_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # libdevice and an fp8 narrowing in one kernel: both reach __nvvm_reflect
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, libdevice.tanh(x).to(tl.float8e5), mask=mask)
