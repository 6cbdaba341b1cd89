import triton
import triton.language as tl

try:
    from triton.language.extra.cuda.libdevice import no_such_fn as nsf
except ImportError:
    from triton.language import no_such_either as nsf


@triton.jit
def return_in_loop(x_ptr, n):
    for i in range(n):
        if i == 3:
            return
        tl.store(x_ptr + i, 1.0)


@triton.jit
def return_in_while_if(x_ptr, n):
    i = 0
    while i < n:
        if i == 3:
            return
        i += 1


@triton.jit
def _typed(x, c):
    if c > 0:
        return x
    return c


@triton.jit
def return_types_differ(x_ptr, n):
    tl.store(x_ptr, _typed(tl.load(x_ptr), n))


@triton.jit
def _maybe(x, c):
    if c > 0:
        return x


@triton.jit
def return_value_and_none(x_ptr, n):
    tl.store(x_ptr, _maybe(tl.load(x_ptr), n))


@triton.jit
def kernel_returns_value(x_ptr, n):
    if n > 0:
        return 1
    return 2


@triton.jit
def read_after_one_branch(x_ptr, n):
    if n > 0:
        t = tl.load(x_ptr)
    tl.store(x_ptr, t)


@triton.jit
def read_after_type_change(x_ptr, n):
    t = 0
    if n > 0:
        t = tl.load(x_ptr)
    tl.store(x_ptr, t)


@triton.jit
def dtype_call_args(x_ptr):
    tl.store(x_ptr, tl.float32(1.0, 2.0))


@triton.jit
def dtype_call_pointer(x_ptr):
    tl.store(x_ptr, tl.float32(x_ptr))


@triton.jit
def unresolved_import(x_ptr):
    tl.store(x_ptr, nsf(tl.load(x_ptr)))


@triton.jit
def scan_not_jit(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.associative_scan(x, 0, tl.maximum))


@triton.jit
def _bad_combine(a, i, b, j):
    return a + b


@triton.jit
def scan_bad_combine(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    s, _ = tl.associative_scan((x, x), 0, _bad_combine)
    tl.store(x_ptr + tl.arange(0, 8), s)


@triton.jit
def scan_axis(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.cumsum(x, axis=1))


@triton.jit
def scan_scalar(x_ptr):
    tl.store(x_ptr, tl.cumsum(tl.load(x_ptr)))


@triton.jit
def umulhi_float(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, tl.umulhi(x, x))


@triton.jit
def break_in_loop(x_ptr, n):
    # refused, as Triton's code generator refuses it
    for i in range(n):
        if i == 3:
            break
        tl.store(x_ptr + i, 1.0)


@triton.jit
def _block_combine(a, b):
    # a block inside, a scalar out
    return a + tl.sum(tl.full([16], b, tl.float32), axis=0)


@triton.jit
def scan_block_combine(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.associative_scan(x, 0, _block_combine))


@triton.jit
def reduce_not_jit(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr, tl.reduce(x, 0, tl.maximum))


@triton.jit
def reduce_bad_combine(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    s, _ = tl.reduce((x, x), 0, _bad_combine)
    tl.store(x_ptr, s)


@triton.jit
def reduce_axis(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr, tl.reduce(x, 1, _block_combine))


@triton.jit
def reduce_shapes(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    y = tl.load(x_ptr + tl.arange(0, 16))
    a, b = tl.reduce((x, y), 0, _bad_combine)
    tl.store(x_ptr, a + b)


@triton.jit
def split_not_two(x_ptr):
    a, b = tl.split(tl.load(x_ptr + tl.arange(0, 8)))
    tl.store(x_ptr, a)


@triton.jit
def join_dtypes(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 16), tl.interleave(x, x.to(tl.int32)))


@triton.jit
def cat_no_reorder(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 16), tl.cat(x, x))


@triton.jit
def cat_not_pow2(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    y = tl.load(x_ptr + tl.arange(0, 4))
    tl.store(x_ptr + tl.arange(0, 8), tl.cat(x, y, can_reorder=True))


@triton.jit
def flip_no_dim(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.flip(x))


@triton.jit
def flip_dim(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.flip(x, 1))


@triton.jit
def bptr_mask(x_ptr):
    p = tl.make_block_ptr(x_ptr, (8,), (1,), (0,), (8,), (0,))
    tl.store(x_ptr + tl.arange(0, 8), tl.load(p, mask=tl.arange(0, 8) < 4))


@triton.jit
def bptr_order(x_ptr):
    p = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0, 0), (8, 8), (1, 1))
    tl.store(x_ptr, tl.sum(tl.sum(tl.load(p), 1), 0))


@triton.jit
def bptr_lengths(x_ptr):
    p = tl.make_block_ptr(x_ptr, (8, 8), (8, 1), (0,), (8, 8), (1, 0))
    tl.store(x_ptr, tl.sum(tl.sum(tl.load(p), 1), 0))


@triton.jit
def bptr_nan_int(x_ptr):
    p = tl.make_block_ptr(x_ptr, (8,), (1,), (0,), (8,), (0,))
    tl.store(x_ptr + tl.arange(0, 8), tl.load(p, boundary_check=(0,), padding_option="nan"))


@triton.jit
def bptr_store_shape(x_ptr):
    p = tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (16,), (0,))
    tl.store(p, tl.load(x_ptr + tl.arange(0, 8)))


@triton.jit
def bptr_boundary_plain(x_ptr):
    tl.store(x_ptr + tl.arange(0, 8), tl.load(x_ptr + tl.arange(0, 8), boundary_check=(0,)))


@triton.jit
def bptr_check_dim(x_ptr):
    p = tl.make_block_ptr(x_ptr, (8,), (1,), (0,), (8,), (0,))
    tl.store(x_ptr + tl.arange(0, 8), tl.load(p, boundary_check=(1,)))


@triton.jit
def bptr_offset_i64(x_ptr, n):
    p = tl.make_block_ptr(x_ptr, (8,), (1,), (n.to(tl.int64),), (8,), (0,))
    tl.store(x_ptr + tl.arange(0, 8), tl.load(p))


@triton.jit
def sort_dim0(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8)[:, None] * 8 + tl.arange(0, 8)[None, :])
    tl.store(x_ptr + tl.arange(0, 8)[:, None] * 8 + tl.arange(0, 8)[None, :], tl.sort(x, 0))


@triton.jit
def topk_k(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 4), tl.topk(x, 3))


@triton.jit
def gather_rank(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    i = tl.zeros((8, 1), tl.int32)
    tl.store(x_ptr + tl.arange(0, 8), tl.gather(x, i, 0))


@triton.jit
def gather_float_index(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.gather(x, x, 0))


@triton.jit
def histogram_float(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.histogram(x, 8).to(tl.float32))


@triton.jit
def print_no_prefix(x_ptr):
    x = tl.load(x_ptr)
    print(x)


@triton.jit
def assert_msg(x_ptr):
    x = tl.load(x_ptr)
    assert x > 0, 3


@triton.jit
def inline_asm_dtype(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], 3, True, 1))
