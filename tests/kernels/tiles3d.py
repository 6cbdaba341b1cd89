import triton
import triton.language as tl

# 3-D blocks through every kind of op. Program p reads block p of a
# contiguous row-major tensor of A x B x C blocks and writes its result the
# same way (shapes are constexpr powers of two).


@triton.jit
def offsets3(A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # the offsets of this program's A x B x C block
    a = tl.arange(0, A)
    b = tl.arange(0, B)
    c = tl.arange(0, C)
    return tl.program_id(0) * (A * B * C) + a[:, None, None] * (B * C) + b[None, :, None] * C + c[None, None, :]


@triton.jit
def where3d_kernel(x_ptr, y_ptr, out_ptr, n, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # 3-D pointer blocks, a 3-D mask, tl.where on a broadcast 3-D condition
    offs = offsets3(A, B, C)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=-1.0)
    y = tl.load(y_ptr + tl.arange(0, C)[None, None, :])  # one row for every program
    row = tl.expand_dims(tl.expand_dims(tl.arange(0, A), 1), 2)
    r = tl.where((x > y) & (row % 2 == 0), x * 2.0 + y, tl.broadcast_to(y, (A, B, C)) - x)
    tl.store(out_ptr + offs, r, mask=mask)


@triton.jit
def reshape_permute_kernel(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # out (C x A x B) = reshape(x, (A, B, C)) permuted (2, 0, 1)
    x = tl.load(x_ptr + tl.program_id(0) * (A * B * C) + tl.arange(0, A * B * C))
    x3 = tl.reshape(x, (A, B, C))
    p = tl.permute(x3, (2, 0, 1))
    tl.store(out_ptr + offsets3(C, A, B), p)


@triton.jit
def trans3d_kernel(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # out (B x A x C) = tl.trans(x, 1, 0, 2) + x.permute(1, 0, 2)
    x = tl.load(x_ptr + offsets3(A, B, C))
    t = tl.trans(x, 1, 0, 2) + x.permute(1, 0, 2)
    tl.store(out_ptr + offsets3(B, A, C), t)


@triton.jit
def reduce3d_kernel(x_ptr, sum_ptr, max_ptr, arg_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                    AXIS: tl.constexpr):
    # the reduced axis kept as 1 and stored over the other two (row-major)
    x = tl.load(x_ptr + offsets3(A, B, C))
    s = tl.sum(x, axis=AXIS, keep_dims=True)
    m = tl.max(x, axis=AXIS, keep_dims=True)
    i = tl.argmax(x, axis=AXIS, keep_dims=True)
    o = offsets3(1 if AXIS == 0 else A, 1 if AXIS == 1 else B, 1 if AXIS == 2 else C)
    tl.store(sum_ptr + o, s)
    tl.store(max_ptr + o, m)
    tl.store(arg_ptr + o, i)


@triton.jit
def outer_sum_kernel(x_ptr, y_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # a product through a 3-D block: out (A x C) = sum over b of x (A x B)
    # times y (B x C), as x[:, :, None] * y[None, :, :] summed along axis 1
    x = tl.reshape(tl.load(x_ptr + offsets3(1, A, B)), (A, B))
    y = tl.reshape(tl.load(y_ptr + offsets3(1, B, C)), (B, C))
    s = tl.sum(x[:, :, None] * y[None, :, :], axis=1)
    tl.store(out_ptr + offsets3(A, 1, C), tl.expand_dims(s, 1))


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def _max_pair(v0, i0, v1, i1):
    # the larger value, the smaller index on ties (commutative)
    take1 = (v1 > v0) | ((v1 == v0) & (i1 < i0))
    return tl.where(take1, v1, v0), tl.where(take1, i1, i0)


@triton.jit
def scan3d_kernel(x_ptr, cs_ptr, sc_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr):
    # integer scans (exact): cumsum and a product scan through a combine fn
    offs = offsets3(A, B, C)
    x = tl.load(x_ptr + offs)
    tl.store(cs_ptr + offs, tl.cumsum(x, axis=AXIS))
    tl.store(sc_ptr + offs, tl.associative_scan(x, AXIS, _mul, reverse=True))


@triton.jit
def reduce_fn3d_kernel(x_ptr, val_ptr, idx_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                       AXIS: tl.constexpr):
    # tl.reduce of a (value, index) pair over AXIS, the axis kept as 1
    offs = offsets3(A, B, C)
    x = tl.load(x_ptr + offs)
    idx = offs
    v, i = tl.reduce((x, idx), AXIS, _max_pair, keep_dims=True)
    o = offsets3(1 if AXIS == 0 else A, 1 if AXIS == 1 else B, 1 if AXIS == 2 else C)
    tl.store(val_ptr + o, v)
    tl.store(idx_ptr + o, i)


@triton.jit
def sort_flip3d_kernel(x_ptr, sort_ptr, flip_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                       DIM: tl.constexpr):
    # sorted along the last dim (descending), flipped along DIM
    offs = offsets3(A, B, C)
    x = tl.load(x_ptr + offs)
    tl.store(sort_ptr + offs, tl.sort(x, dim=2, descending=True))
    tl.store(flip_ptr + offs, tl.flip(x, DIM))


@triton.jit
def join_split3d_kernel(x_ptr, y_ptr, out_ptr, diff_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    # join: A x B x C x 2, stored as A x B x 2C (x, y interleaved); split back
    offs = offsets3(A, B, C)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    j = tl.join(x, y)
    tl.store(out_ptr + offsets3(A, B, 2 * C), tl.reshape(j, (A, B, 2 * C)))
    u, v = tl.split(j * 2.0)
    tl.store(diff_ptr + offs, u - v)


@triton.jit
def gather3d_kernel(x_ptr, idx_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                    AXIS: tl.constexpr):
    # out[i] = x[i with i[AXIS] = idx[i]], all A x B x C
    offs = offsets3(A, B, C)
    x = tl.load(x_ptr + offs)
    idx = tl.load(idx_ptr + offs)
    tl.store(out_ptr + offs, tl.gather(x, idx, AXIS))


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, BATCH: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # c[b] = a[b] @ b[b] for every batch: [BATCH, M, K] @ [BATCH, K, N]
    a = tl.load(a_ptr + offsets3(BATCH, M, K))
    b = tl.load(b_ptr + offsets3(BATCH, K, N))
    c = tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + offsets3(BATCH, M, N), c)


@triton.jit
def bmm_fp16_kernel(a_ptr, b_ptr, c_ptr, BATCH: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # fp16 operands, fp32 result, with an accumulator
    a = tl.load(a_ptr + offsets3(BATCH, M, K))
    b = tl.load(b_ptr + offsets3(BATCH, K, N))
    acc = tl.full((BATCH, M, N), 1.0, tl.float32)
    c = tl.dot(a, b, acc)
    tl.store(c_ptr + offsets3(BATCH, M, N), c)


# Refused as Triton 3.6 refuses them: tl.cat and tl.histogram take 1-D
# blocks, tl.sort only the last dim.
@triton.jit
def cat3d_kernel(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    x = tl.load(x_ptr + offsets3(A, B, C))
    tl.store(out_ptr + offsets3(2 * A, B, C), tl.cat(x, x, can_reorder=True))


@triton.jit
def histogram3d_kernel(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    x = tl.load(x_ptr + offsets3(A, B, C))
    tl.store(out_ptr + tl.arange(0, 8), tl.histogram(x, 8))


@triton.jit
def sort_dim0_kernel(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    x = tl.load(x_ptr + offsets3(A, B, C))
    tl.store(out_ptr + offsets3(A, B, C), tl.sort(x, dim=0))
