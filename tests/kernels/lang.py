import triton
import triton.language as tl
import triton.language.extra.cuda as cuda
from triton.language.extra.cuda import num_warps


@triton.jit
def xent_kernel(logits_ptr, labels_ptr, loss_ptr, n_cols, ignore_index, BLOCK: tl.constexpr):
    # Cross-entropy per row; rows labelled ignore_index write 0 and leave early.
    row = tl.program_id(0)
    label = tl.load(labels_ptr + row)
    if label == ignore_index:
        tl.store(loss_ptr + row, 0.0)
        return
    cols = tl.arange(0, BLOCK)
    x = tl.load(logits_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    m = tl.max(x, axis=0)
    lse = tl.log(tl.sum(tl.exp(x - m), axis=0)) + m
    tl.store(loss_ptr + row, lse - tl.load(logits_ptr + row * n_cols + label))


@triton.jit
def _scale_or_shift(x, c):
    # returns in both arms of an if/elif and after it
    if c > 0:
        return x * 2.0
    elif c < -5:
        return x - 1.0
    return x + 1.0


@triton.jit
def _split(x, c):
    # a tuple returned on two paths, one item shared
    if c == 0:
        return x, x + 1.0
    return x, x * x


@triton.jit
def early_helpers_kernel(x_ptr, c_ptr, out_ptr, out2_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    c = tl.load(c_ptr + tl.program_id(0))
    a, b = _split(_scale_or_shift(x, c), c % 2)
    tl.store(out_ptr + offs, a, mask=mask)
    tl.store(out2_ptr + offs, b, mask=mask)


@triton.jit
def nested_return_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # A return nested in a runtime if whose other paths fall through to the
    # rest of the kernel, and a return in a static_range iteration.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    if pid % 2 == 0:
        x = x + 10.0
        if pid % 4 == 0:
            tl.store(out_ptr + offs, x * 0.0 - 1.0, mask=mask)
            return
        x = x * 3.0
    for k in tl.static_range(3):
        if pid == 5 + k:
            tl.store(out_ptr + offs, x + k * 100.0, mask=mask)
            return
        x = x + 1.0
    tl.store(out_ptr + offs, x, mask=mask)


@triton.jit
def branch_temps_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # The same temporary names in two runtime ifs, each used only inside.
    pid = tl.program_id(0)
    if pid % 2 == 0:
        v_off = pid * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + v_off, mask=v_off < n)
        tl.store(out_ptr + v_off, v * 2.0, mask=v_off < n)
    if pid % 2 == 1:
        v_off = pid * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + v_off, mask=v_off < n).to(tl.int32)
        tl.store(out_ptr + v_off, v, mask=v_off < n)


@triton.jit
def dtype_call_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    # Row maximum with a running scalar started at tl.float32(-inf).
    row = tl.program_id(0)
    m = tl.float32(-float("inf"))
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
    wrap = tl.int8(300)
    tl.store(out_ptr + row, m + tl.float32(wrap) + tl.float16(0.5))


@triton.jit
def param_names_kernel(tile_row_start_ptr, stream, out, int, grid_x, NULL, size_t, double, __x, café, pn_module,
                       p1_stream, BLOCK: tl.constexpr):
    # Parameter names the generated C must rename (keywords, its own names,
    # tile_*, reserved and non-ASCII identifiers, the blob's symbols).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < stream
    x = tl.load(tile_row_start_ptr + offs, mask=mask)
    y = x * int + grid_x + NULL + size_t + double + __x + café + pn_module + p1_stream
    tl.store(out + offs, y, mask=mask)


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, REVERSE: tl.constexpr):
    # One block: an inclusive prefix sum (suffix sum when REVERSE).
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, tl.cumsum(x, 0, reverse=REVERSE), mask=offs < n)


@triton.jit
def scan_2d_kernel(x_ptr, sum_ptr, prod_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   AXIS: tl.constexpr):
    # cumsum along AXIS, cumprod reversed along it, as methods
    rows = tl.arange(0, BLOCK_M)[:, None]
    cols = tl.arange(0, BLOCK_N)[None, :]
    mask = (rows < M) & (cols < N)
    x = tl.load(x_ptr + rows * N + cols, mask=mask, other=1.0)
    tl.store(sum_ptr + rows * N + cols, x.cumsum(axis=AXIS), mask=mask)
    tl.store(prod_ptr + rows * N + cols, tl.cumprod(x, AXIS, reverse=True), mask=mask)


@triton.jit
def _affine(a1, b1, a2, b2):
    # composition of h -> a*h + b maps: associative, not commutative
    return a1 * a2, b1 * a2 + b2


@triton.jit
def _first_max(v1, i1, v2, i2):
    take = v2 > v1
    return tl.where(take, v2, v1), tl.where(take, i2, i1)


@triton.jit
def recurrence_kernel(a_ptr, b_ptr, h_ptr, m_ptr, mi_ptr, n, BLOCK: tl.constexpr):
    # h[t] = a[t] * h[t-1] + b[t] in wrapping int32 (exact in any order), and
    # a running maximum with its first index, by associative_scan on tuples.
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=1)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    _, h = tl.associative_scan((a, b), 0, _affine)
    tl.store(h_ptr + offs, h, mask=mask)
    m, mi = tl.associative_scan((b, offs), axis=0, combine_fn=_first_max)
    tl.store(m_ptr + offs, m, mask=mask)
    tl.store(mi_ptr + offs, mi, mask=mask)


@triton.jit
def cumsum_int8_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # int8 sums widen to int32, as Triton's cumsum does
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.cumsum(tl.load(x_ptr + offs), axis=0))


@triton.jit
def while_and_or_kernel(x_ptr, out_ptr, n, limit):
    # a runtime while whose condition combines comparisons with and/or
    pid = tl.program_id(0)
    i = 0
    acc = 0.0
    while (i < n and acc < limit) or i == 0:
        acc += tl.load(x_ptr + pid * n + i)
        i += 1
    tl.store(out_ptr + pid, acc + i * 1000.0)


@triton.jit
def umulhi_kernel(a_ptr, b_ptr, hi_ptr, shi_ptr, lhi_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    tl.store(hi_ptr + offs, tl.umulhi(a, b))
    tl.debug_barrier()
    tl.store(shi_ptr + offs, tl.umulhi(a.to(tl.int32, bitcast=True), b.to(tl.int32, bitcast=True)))
    tl.store(lhi_ptr + offs, tl.umulhi(a.to(tl.uint64) << 20, b.to(tl.uint64) << 30))


@triton.jit
def _add_combine(a, b):
    return a + b


@triton.jit
def _max_first_combine(v1, i1, v2, i2):
    # the larger value, the smaller index on ties: commutes, as tl.reduce needs
    take = (v2 > v1) | ((v2 == v1) & (i2 < i1))
    return tl.where(take, v2, v1), tl.where(take, i2, i1)


@triton.jit
def reduce_fn_kernel(x_ptr, max_ptr, idx_ptr, sum_ptr, total_ptr, M, N, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr):
    # tl.reduce with @jit combine functions: a tuple along rows, a column sum
    # with keep_dims, the whole block (axis=None) as a method
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0)
    idx = tl.broadcast_to(cols[None, :], (BLOCK_M, BLOCK_N))
    m, mi = tl.reduce((tl.where(mask, x, -2147483648), idx), -1, _max_first_combine)  # axis -1: the last
    tl.store(max_ptr + rows, m, mask=rows < M)
    tl.store(idx_ptr + rows, mi, mask=rows < M)
    (s,) = tl.reduce((x,), axis=0, combine_fn=_add_combine, keep_dims=True)
    tl.store(sum_ptr + pid * N + cols[None, :], s, mask=cols[None, :] < N)
    tl.store(total_ptr + pid, x.reduce(None, _add_combine))


@triton.jit
def shapes_kernel(x_ptr, y_ptr, join_ptr, inter_ptr, a_ptr, b_ptr, flip_ptr, flip0_ptr, cat_ptr, pq_ptr,
                  BLOCK: tl.constexpr):
    # tl.join, tl.interleave, tl.split, tl.flip (dim 0 of 1-D and 2-D blocks), tl.cat
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    two = tl.arange(0, 2)
    tl.store(join_ptr + offs[:, None] * 2 + two[None, :], tl.join(x, y))
    tl.store(inter_ptr + tl.arange(0, 2 * BLOCK), tl.interleave(x, y))
    a, b = tl.split(tl.reshape(x, (BLOCK // 2, 2)))
    tl.store(a_ptr + tl.arange(0, BLOCK // 2), a)
    tl.store(b_ptr + tl.arange(0, BLOCK // 2), b)
    tl.store(flip_ptr + offs, tl.flip(x, 0))
    t = tl.reshape(y, (4, BLOCK // 4))
    r4 = tl.arange(0, 4)[:, None] * (BLOCK // 4) + tl.arange(0, BLOCK // 4)[None, :]
    tl.store(flip0_ptr + r4, t.flip(0))
    tl.store(cat_ptr + tl.arange(0, 2 * BLOCK), tl.cat(x, y, can_reorder=True))
    # two scalars join into a <2> block; splitting it gives scalars back
    p, q = tl.join(tl.max(x, axis=0), tl.min(y, axis=0)).split()
    tl.store(pq_ptr, p)
    tl.store(pq_ptr + 1, q)


@triton.jit
def block_ptr_copy_kernel(x_ptr, out_ptr, zero_ptr, nan_ptr, M, N, stride_m, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, OFF_M: tl.constexpr, OFF_N: tl.constexpr):
    # a block read at an offset that may start before the matrix (OFF_M < 0)
    # and reach past it: rows checked with zero and nan padding, the copy
    # checked on both dims and stored back through a block pointer
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(stride_m, 1),
                          offsets=(pid_m * BLOCK_M + OFF_M, pid_n * BLOCK_N + OFF_N),
                          block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    o = tl.make_block_ptr(out_ptr, (M, N), (stride_m, 1), (pid_m * BLOCK_M, pid_n * BLOCK_N), (BLOCK_M, BLOCK_N),
                          (1, 0))
    v = tl.load(x, boundary_check=(0, 1), padding_option="zero")
    tl.store(o, v, boundary_check=(1, 0))
    z = tl.make_block_ptr(zero_ptr, (M, N), (stride_m, 1), (pid_m * BLOCK_M, pid_n * BLOCK_N), (BLOCK_M, BLOCK_N),
                          (1, 0))
    tl.store(z, tl.load(x, boundary_check=(0,), padding_option="zero") * 2.0, boundary_check=(0, 1))
    nn = tl.make_block_ptr(nan_ptr, (M, N), (stride_m, 1), (pid_m * BLOCK_M, pid_n * BLOCK_N), (BLOCK_M, BLOCK_N),
                           (1, 0))
    tl.store(nn, tl.load(tl.advance(x, (0, 0)), boundary_check=(0, 1), padding_option="nan"), boundary_check=(0, 1))


@triton.jit
def block_ptr_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                            stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # the block-pointer matmul: both pointers advanced along K in the loop
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_bp = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                             offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_bp = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                             offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_bp, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_bp, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b)
        a_bp = tl.advance(a_bp, (0, BLOCK_K))
        b_bp = tl.advance(b_bp, [BLOCK_K, 0])
    c_bp = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (pid_m * BLOCK_M, pid_n * BLOCK_N),
                             (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_bp, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def block_ptr_while_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # a 1-D block pointer carried through a while loop: the sum of x in blocks
    p = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    i = 0
    while i < n:
        acc += tl.load(p, boundary_check=(0,), padding_option="zero")
        p = tl.advance(p, (BLOCK,))
        i += BLOCK
    tl.store(out_ptr, tl.sum(acc, axis=0))


@triton.jit
def sort_kernel(x_ptr, asc_ptr, desc_ptr, top_ptr, ROWS: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # rows sorted both ways (Triton's bitonic network), and each row's top K
    offs = tl.arange(0, ROWS)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(asc_ptr + offs, tl.sort(x))
    tl.store(desc_ptr + offs, tl.sort(x, dim=1, descending=True))
    tl.store(top_ptr + tl.arange(0, ROWS)[:, None] * K + tl.arange(0, K)[None, :], tl.topk(x, K))


@triton.jit
def gather_hist_kernel(x_ptr, idx_ptr, g_ptr, g0_ptr, h_ptr, hm_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    # tl.gather along rows (idx in [0, BLOCK)) and along columns (idx % 8);
    # tl.histogram of idx - 3 (negative values are not counted) and of idx
    # with the first n values only
    r = tl.arange(0, 8)[:, None]
    c = tl.arange(0, BLOCK)[None, :]
    x = tl.load(x_ptr + r * BLOCK + c)
    idx = tl.load(idx_ptr + r * BLOCK + c)
    tl.store(g_ptr + r * BLOCK + c, tl.gather(x, idx, 1))
    tl.store(g0_ptr + r * BLOCK + c, x.gather(idx % 8, axis=0))
    v = tl.reshape(idx, (8 * BLOCK,))
    tl.store(h_ptr + tl.arange(0, BINS), tl.histogram(v - 3, BINS))
    o = tl.arange(0, 8 * BLOCK)
    tl.store(hm_ptr + tl.arange(0, BINS), v.histogram(BINS, mask=o < n))


@triton.jit
def debug_kernel(x_ptr, out_ptr, n, LIMIT: tl.constexpr, BLOCK: tl.constexpr):
    # device asserts and prints: left out unless compiled in debug mode
    tl.static_print("debug_kernel BLOCK =", BLOCK)
    tl.static_assert(BLOCK >= 4, "BLOCK too small")
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x < LIMIT, "x is too large")
    assert n > 0, "n must be positive"
    tl.device_assert(x >= 0, "x is negative", mask=offs < n)
    print("sum", tl.sum(x, axis=0))
    tl.device_print("x ", x, offs, hex=False)
    tl.store(out_ptr + offs, x + 1, mask=offs < n)


@triton.jit
def inline_asm_kernel(a_ptr, b_ptr, c_ptr, d_ptr, h_ptr, BLOCK: tl.constexpr):
    # Triton's documented example: uint8 and float32 in, 4 elements a call
    # (the bytes packed into one register), an int32 and a float32 out; and
    # fp16 pairs added by one add.f16x2
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    (c, d) = tl.inline_asm_elementwise(
        asm="""
        {
            .reg .b8 tmp<4>;
            mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;
            cvt.u32.u8 $0, tmp0;
            cvt.u32.u8 $1, tmp1;
            cvt.u32.u8 $2, tmp2;
            cvt.u32.u8 $3, tmp3;
        }
        cvt.rn.f32.s32 $4, $0;
        cvt.rn.f32.s32 $5, $1;
        cvt.rn.f32.s32 $6, $2;
        cvt.rn.f32.s32 $7, $3;
        max.f32 $4, $4, $9;
        max.f32 $5, $5, $10;
        max.f32 $6, $6, $11;
        max.f32 $7, $7, $12;
        """,
        constraints=("=r,=r,=r,=r,=r,=r,=r,=r,"
                     "r,r,r,r,r"),
        args=[a, b], dtype=(tl.int32, tl.float32), is_pure=True, pack=4)
    tl.store(c_ptr + offs, c)
    tl.store(d_ptr + offs, d)
    h = b.to(tl.float16)
    s = tl.inline_asm_elementwise("add.f16x2 $0, $1, $2;", "=r,r,r", [h, h], dtype=tl.float16, is_pure=True, pack=2)
    tl.store(h_ptr + offs, s)


@triton.jit
def inline_asm_ptr_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # pointers as operands ("l": their 64-bit addresses): an L2 prefetch
    # whose result is unused, and a load through the assembly
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    safe = tl.where(mask, offs, 0)
    tl.inline_asm_elementwise("prefetch.global.L2 [$1];\n\tmov.u32 $0, 0;", "=r,l", [x_ptr + safe],
                              dtype=tl.int32, is_pure=False, pack=1)
    x = tl.inline_asm_elementwise("ld.global.b32 $0, [$1];", "=r,l", [x_ptr + safe], dtype=tl.int32,
                                  is_pure=False, pack=1)
    tl.store(out_ptr + offs, x * 3 + 1, mask=mask)


@triton.jit
def cuda_helpers_kernel(out_ptr):
    # triton.language.extra.cuda: special registers and constexprs
    t0 = cuda.globaltimer()
    sm = cuda.smid()
    t1 = tl.extra.cuda.globaltimer()
    tl.store(out_ptr, (t1 >= t0).to(tl.int32))
    tl.store(out_ptr + 1, (sm >= 0).to(tl.int32))
    tl.store(out_ptr + 2, cuda.num_threads())
    tl.store(out_ptr + 3, num_warps())


@triton.jit
def block_ptr_if_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # a block pointer advanced in one branch of a runtime if, read after it
    pid = tl.program_id(0)
    p = tl.make_block_ptr(x_ptr, (n,), (1,), (pid * BLOCK,), (BLOCK,), (0,))
    if pid % 2 == 1:
        p = tl.advance(p, (-BLOCK,))
    else:
        p = tl.advance(p, (0,))
    o = tl.make_block_ptr(out_ptr, (n,), (1,), (pid * BLOCK,), (BLOCK,), (0,))
    tl.store(o, tl.load(p, boundary_check=(0,), padding_option="zero"), boundary_check=(0,))


@triton.jit
def pointer_table_kernel(ptrs_ptr, out_ptr, BLOCK: tl.constexpr):
    # each program reads the row its table entry points to (a 64-bit address
    # made a pointer, as Triton's grouped GEMM tutorial reads its matrices)
    g = tl.program_id(0)
    p = tl.load(ptrs_ptr + g).to(tl.pointer_type(tl.float16))
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + g * BLOCK + offs, tl.load(p + offs) * 2)
