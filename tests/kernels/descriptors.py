# Tensor descriptors (Triton 3.6): device-side tl.make_tensor_descriptor and
# host-side descriptor parameters, loads that zero-fill outside the tensor
# and stores that skip it, at offsets that straddle every edge.
import triton
import triton.language as tl


@triton.jit
def desc_load_block(in_ptr, out_ptr, M, N, stride_m, off_m, off_n,
                    BM: tl.constexpr, BN: tl.constexpr):
    # one block at (off_m, off_n), written densely: zeros outside [0, M) x [0, N)
    desc = tl.make_tensor_descriptor(in_ptr, shape=[M, N], strides=[stride_m, 1], block_shape=[BM, BN])
    x = desc.load([off_m, off_n])
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    tl.store(out_ptr + rows * BN + cols, x)


@triton.jit
def desc_store_block(in_ptr, out_ptr, M, N, stride_m, off_m, off_n,
                     BM: tl.constexpr, BN: tl.constexpr):
    # a dense block stored at (off_m, off_n): only the part inside the tensor lands
    rows = tl.arange(0, BM)[:, None]
    cols = tl.arange(0, BN)[None, :]
    x = tl.load(in_ptr + rows * BN + cols)
    desc = tl.make_tensor_descriptor(out_ptr, [M, N], [stride_m, 1], [BM, BN])
    tl.store_tensor_descriptor(desc, [off_m, off_n], x)


@triton.jit
def desc_scale_2d(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # y = 2 * x + 1 over a grid of blocks; partial blocks at the right and bottom
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    x = tl.load_tensor_descriptor(x_desc, [om, on])
    y_desc.store([om, on], x * 2 + 1)


@triton.jit
def desc_copy_3d(x_ptr, y_ptr, A, B, C, BA: tl.constexpr, BB: tl.constexpr, BC: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, [A, B, C], [B * C, C, 1], [BA, BB, BC])
    y_desc = tl.make_tensor_descriptor(y_ptr, [A, B, C], [B * C, C, 1], [BA, BB, BC])
    o = [tl.program_id(0) * BA, tl.program_id(1) * BB, tl.program_id(2) * BC]
    y_desc.store(o, x_desc.load(o) - 3)


@triton.jit
def desc_nan_pad(in_ptr, out_ptr, M, N, off_m, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(in_ptr, [M, N], [N, 1], [BM, BN], padding_option="nan")
    x = desc.load([off_m, 0])
    tl.store(out_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :], x)


@triton.jit
def host_desc_scale(x_desc, y_desc, alpha):
    # host-side descriptors: the block shape comes from the signature
    BM: tl.constexpr = x_desc.block_shape[0]
    BN: tl.constexpr = x_desc.block_shape[1]
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    x = x_desc.load([om, on])
    y_desc.store([om, on], (x.to(tl.float32) * alpha).to(y_desc.dtype))


@triton.jit
def desc_dot(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # c = a @ b with a: M x K, b: K x N; descriptor loads only the dot reads
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BM, BN])
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([om, k * BK])
        b = b_desc.load([k * BK, on])
        acc = tl.dot(a, b, acc)
    c_desc.store([om, on], acc)


# ---- refused, with a precise diagnostic each ----

@triton.jit
def err_block_runtime(p, n, B):
    d = tl.make_tensor_descriptor(p, [n, n], [n, 1], [16, B])


@triton.jit
def err_block_pow2(p, n):
    d = tl.make_tensor_descriptor(p, [n, n], [n, 1], [16, 24])


@triton.jit
def err_rank(p, n):
    d = tl.make_tensor_descriptor(p, [n, n], [n, 1], [16])


@triton.jit
def err_last_stride(p, n):
    d = tl.make_tensor_descriptor(p, [n, n], [n, 2], [16, 16])


@triton.jit
def err_last_stride_runtime(p, n, s):
    d = tl.make_tensor_descriptor(p, [n, n], [n, s], [16, 16])


@triton.jit
def err_narrow(p, n):
    d = tl.make_tensor_descriptor(p, [n, n], [n, 1], [16, 4])


@triton.jit
def err_stride_align(p, n):
    d = tl.make_tensor_descriptor(p, [n, n], [6, 1], [16, 16])


@triton.jit
def err_rank5(p, n):
    d = tl.make_tensor_descriptor(p, [n, n, n, n, n], [n, n, n, n, 1], [2, 2, 2, 2, 16])


@triton.jit
def err_offsets(p, n):
    d = tl.make_tensor_descriptor(p, [n, n], [n, 1], [16, 16])
    x = d.load([0])


@triton.jit
def err_store_shape(p, n):
    d = tl.make_tensor_descriptor(p, [n, n], [n, 1], [16, 16])
    d.store([0, 0], tl.zeros((16, 8), dtype=tl.float32))


@triton.jit
def err_nan_int(p, n):
    d = tl.make_tensor_descriptor(p, [n, n], [n, 1], [16, 16], padding_option="nan")


@triton.jit
def err_gather(p, n):
    d = tl.make_tensor_descriptor(p, [n, n], [n, 1], [16, 16])
    x = d.gather(tl.arange(0, 16), 0)


# ---- device-side descriptors and the maps built at launch (test_compile.sh) ----

@triton.jit
def desc_rows_of_3d(x_ptr, y_ptr, A, B, C, BM: tl.constexpr, BN: tl.constexpr):
    # an A x B x C tensor seen as (A * B) x C rows: a shape computed from parameters
    x_desc = tl.make_tensor_descriptor(x_ptr, [A * B, C], [C, 1], [BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, [A * B, C], [C, 1], [BM, BN])
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    y_desc.store([om, on], x_desc.load([om, on]) + 1)


@triton.jit
def desc_batch_rows(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # matrix b of a batch per program on axis 1: x's base depends on the
    # program and y's shape on the grid, so neither is built at launch
    b = tl.program_id(1)
    x_desc = tl.make_tensor_descriptor(x_ptr + b * M * N, [M, N], [N, 1], [BM, BN])
    y_desc = tl.make_tensor_descriptor(y_ptr, [tl.num_programs(1) * M, N], [N, 1], [BM, BN])
    om = tl.program_id(0) * BM
    y_desc.store([b * M + om, 0], x_desc.load([om, 0]))


# ---- persistent loops over tiles (test_desc: the copies that run on) ----

@triton.jit
def _matmul_bt_tile(a_desc, b_desc, c_desc, tile, num_n, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # tile `tile` of c = a @ b.T, the K loop stepping by BK
    om = (tile // num_n) * BM
    on = (tile % num_n) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([om, k]), b_desc.load([on, k]).T, acc)
    c_desc.store([om, on], acc.to(tl.float16))


@triton.jit
def persistent_k_step(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      PROGRAMS: tl.constexpr):
    # the tiles walked PROGRAMS apart: the copies run on across them,
    # counting the K loop's iterations from its step
    num_n = tl.cdiv(N, BN)
    for tile in range(tl.program_id(0), tl.cdiv(M, BM) * num_n, PROGRAMS):
        _matmul_bt_tile(a_desc, b_desc, c_desc, tile, num_n, K, BM, BN, BK)


@triton.jit
def persistent_carried_tile(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                            PROGRAMS: tl.constexpr):
    # the same with the tile a loop-carried value: the copies read it, so
    # they start again for each tile
    num_n = tl.cdiv(N, BN)
    tile = tl.program_id(0)
    for _ in range(tl.program_id(0), tl.cdiv(M, BM) * num_n, PROGRAMS):
        _matmul_bt_tile(a_desc, b_desc, c_desc, tile, num_n, K, BM, BN, BK)
        tile += PROGRAMS
