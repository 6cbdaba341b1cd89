# Plain functions that kernels call at compile time, as FlagGems' cumsum
# calls get_scan_accum_type(in_ptr.type.element_ty): marked @tl.constexpr
# (or @triton.constexpr_function), or reached as a module's attribute.
import triton
import triton.language as tl
import host_helpers


@tl.constexpr
def acc_type(dtype):
    """The accumulation type of dtype."""
    if dtype.is_fp16() or dtype.is_bf16():
        return tl.float32
    elif dtype.is_int():
        return tl.int64
    return dtype


@triton.constexpr_function
def scaled(n, by=2):
    m = n * by
    assert m > 0, "positive sizes only"
    return m


def plain(n):
    return n + 1


@tl.constexpr
def counted(n):
    total = 0
    for i in range(n):
        total += i
    return total


@tl.constexpr
def only_float(dtype):
    if dtype.is_int():
        raise ValueError("floats only")
    return dtype


@triton.jit
def acc_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    acc: tl.constexpr = acc_type(x_ptr.type.element_ty)
    x = tl.load(x_ptr + tl.arange(0, host_helpers.block_for(BLOCK))).to(acc)
    tl.store(y_ptr, tl.sum(x) * scaled(3))


@triton.jit
def plain_kernel(x_ptr):
    tl.store(x_ptr, plain(1))


@triton.jit
def loop_kernel(x_ptr):
    tl.store(x_ptr, counted(3))


@triton.jit
def tensor_arg_kernel(x_ptr):
    tl.store(x_ptr, scaled(tl.load(x_ptr)))


@triton.jit
def raise_kernel(x_ptr):
    dt: tl.constexpr = only_float(x_ptr.type.element_ty)
    tl.store(x_ptr, tl.load(x_ptr).to(dt))
