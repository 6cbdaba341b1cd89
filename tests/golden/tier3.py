# Kernels for the golden tests of `tilec ir`: tier-2/3 constructs.
import math

import triton
import triton.language as tl
from triton.language.extra import libdevice

SCALE = tl.constexpr(3)
DTYPE: tl.constexpr = tl.float16


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, K, stride_am, stride_bk,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PRECISION: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(axis=1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rm = tl.max_contiguous(tl.multiple_of(rm, BM), BM)
    tl.assume(K > 0)
    a = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=2):
        x = tl.load(a)
        y = tl.load(b)
        if PRECISION == "ieee":
            acc = tl.dot(x, y, acc, input_precision=PRECISION)
        else:
            acc += tl.dot(x, y)
        a += BK
        b += BK * stride_bk
    c = c_ptr + rm[:, None] * BN + rn[None, :]
    tl.store(c, acc.to(c_ptr.dtype.element_ty))


@triton.jit
def runtime_control_kernel(x_ptr, out_ptr, n, limit):
    x = tl.load(x_ptr)
    if x > limit:
        y = x * 2
        z = 1
    else:
        y = x - 1.5
        z = 2
    i = 0
    while i < n:
        y = y * 0.5
        i += 1
    w = y if z > 1 else 0.0
    tl.store(out_ptr, w + z)


@triton.jit
def helpers_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, MODE: tl.constexpr = "tanh"):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=float("-inf"))
    lo, hi = _split(x, scale=SCALE)
    tl.static_assert(BLOCK % 16 == 0, "BLOCK must be a multiple of 16")
    for i in tl.static_range(2):
        lo = lo + i
    y = _act(lo, MODE) + hi
    tl.store(out_ptr + offs, y.to(DTYPE), mask=mask)


@triton.jit
def _act(x, MODE: tl.constexpr):
    if MODE == "tanh":
        return libdevice.tanh(x)
    return libdevice.pow(x.to(tl.float64), 2).to(x.dtype)


@triton.jit
def _split(x, scale=2):
    return tl.minimum(x, 0.0) * scale, tl.maximum(x, 0.0, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def reduce_kernel(x_ptr, out_ptr, idx_ptr, stride, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :])
    row_max = tl.max(x, axis=1, keep_dims=True)
    total = tl.sum(x - row_max)
    flat = tl.reshape(x, (M * N,))
    tl.store(out_ptr + tl.arange(0, M * N), flat)
    tl.store(out_ptr, total + x.T.sum(axis=None, keep_dims=True).sum())
    tl.store(idx_ptr + rows, tl.argmax(x, axis=1))
    m = max(M, N, 4) - min(M, N)
    tl.store(idx_ptr + m, x.to(tl.int8).sum(0).max())


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 1024}, num_warps=8, num_stages=2)],
                 key=["n"])
@triton.heuristics({"EVEN": lambda args: args["BLOCK"] % 256 == 0})
@triton.jit
def tuned_kernel(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(x_ptr + offs, 1.0)
    else:
        tl.store(x_ptr + offs, 2.0, mask=offs < n)


@triton.jit
def promote_kernel(a_ptr, b_ptr, u_ptr, h_ptr, out_ptr):
    a = tl.load(a_ptr)      # i8
    b = tl.load(b_ptr)      # i64
    u = tl.load(u_ptr)      # u32
    h = tl.load(h_ptr)      # fp16
    tl.store(out_ptr, (a + 1) * b + (u >> 3) + (h * 2.0) / h + a // 3 % 5 + (-a) + (~u))
    tl.store(out_ptr + 1, (a < b) & (h != 0) | (u == 7))
    tl.store(out_ptr + 2, h * 2 + 1 - tl.where(a > 0, h, 0.5))


@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["N"]), "HALF": lambda args: args["BLOCK"] // 2})
@triton.jit
def bias_kernel(x_ptr, bias_ptr, N: tl.constexpr, BLOCK: tl.constexpr, HALF: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < N)
    if bias_ptr is not None:
        x += tl.load(bias_ptr + offs, mask=offs < N)
    tl.store(x_ptr + offs, x, mask=offs < HALF)


@triton.jit
def shapes_kernel(x_ptr, i_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M * N)).reshape(M, N)
    t = tl.trans(x) + tl.permute(x, (1, 0)) + x.T
    e = tl.expand_dims(tl.arange(0, N), (0, 2))          # <1xNx1>
    b = tl.broadcast_to(e, (M, N, 2))
    v = tl.view(b, (M * N * 2,))
    r = tl.ravel(t)
    tl.store(out_ptr + tl.arange(0, M * N), r + tl.sum(v.to(tl.float32)))
    i = tl.load(i_ptr + tl.arange(0, N))
    tl.store(i_ptr, tl.xor_sum(i, axis=0) + tl.argmin(i, 0) + tl.abs(i).max())
    s = tl.softmax(x)
    tl.store(out_ptr + tl.arange(0, N), tl.sum(s, axis=0, keep_dims=False))


@triton.jit
def math2_kernel(x_ptr, out_ptr, d_ptr):
    x = tl.load(x_ptr)
    d = tl.load(d_ptr)
    y = tl.fdiv(x, x + 1) + tl.div_rn(x, 3.0) + tl.sqrt_rn(x) + tl.erf(x) + tl.floor(x) + tl.ceil(x)
    y += tl.fma(x, 2.0, 1) + tl.cos(x).to(tl.int32, bitcast=True).to(tl.float32)
    y += libdevice.isnan(x) + libdevice.fast_expf(x) + libdevice.atan2(d, 2.0).to(tl.float32)
    tl.store(out_ptr, y)


@triton.jit
def interleaved_kernel(x_ptr, B: tl.constexpr, y_ptr, n, C: tl.constexpr = 2):
    offs = tl.arange(0, B)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * C, mask=offs < n)


@triton.jit
def swizzle_clamp_kernel(x_ptr, M, N, GROUP: tl.constexpr):
    pid_m, pid_n = tl.swizzle2d(tl.program_id(0), tl.program_id(1), M, N, GROUP)
    x = tl.load(x_ptr + pid_m * N + pid_n)
    tl.store(x_ptr, tl.clamp(x, -1.0, 1.0) + tl.clamp(x, 0.0, 2.0, propagate_nan=tl.PropagateNan.ALL))


@triton.jit
def python_math_kernel(x_ptr):
    LOG2E: tl.constexpr = 1.0 / math.log(2.0)
    x = tl.load(x_ptr)
    tl.store(x_ptr, tl.exp2(x * LOG2E) + math.pi + math.floor(2.5) + math.sqrt(16))
