# Kernels for the diagnostics goldens of `tilec ir`: each one is wrong in
# exactly one way (named after the kernel).
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def unknown_name(x_ptr):
    tl.store(x_ptr, y)


@triton.jit
def unsupported_builtin(x_ptr):
    tl.dot_scaled(x_ptr, 1.0)


@triton.jit
def arange_not_pow2(x_ptr):
    tl.store(x_ptr + tl.arange(0, 48), 1.0)


@triton.jit
def zeros_not_pow2(x_ptr, B: tl.constexpr):
    tl.store(x_ptr, tl.sum(tl.zeros((B, 3), dtype=tl.float32)))


@triton.jit
def loop_type_change(x_ptr, n):
    acc = 0
    for i in range(n):
        acc += 0.5
    tl.store(x_ptr, acc)


@triton.jit
def loop_constexpr(x_ptr, n, B: tl.constexpr):
    for i in range(n):
        B = B + 1
    tl.store(x_ptr, B)


@triton.jit
def break_in_loop(x_ptr, n):
    for i in range(n):
        break


@triton.jit
def if_type_mismatch(x_ptr):
    x = tl.load(x_ptr)
    if x > 0:
        y = x
    else:
        y = 1
    tl.store(x_ptr, y)


@triton.jit
def if_one_branch(x_ptr):
    x = tl.load(x_ptr)
    if x > 0:
        y = x
    tl.store(x_ptr, y)


@triton.jit
def _early(x):
    if x > 0:
        return x
    return -x


@triton.jit
def return_in_runtime_if(x_ptr):
    tl.store(x_ptr, _early(tl.load(x_ptr)))


@triton.jit
def _two(a, b):
    return a + b


@triton.jit
def helper_arg_count(x_ptr):
    tl.store(x_ptr, _two(1.0, 2.0, 3.0))


@triton.jit
def exp_fp16(x_ptr):
    tl.store(x_ptr, tl.exp(tl.load(x_ptr)))


@triton.jit
def floordiv_float(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, x // 2.0)


@triton.jit
def mask_not_bool(x_ptr, n):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs))


@triton.jit
def dot_shapes(a_ptr):
    a = tl.load(a_ptr + tl.arange(0, 16)[:, None] * 32 + tl.arange(0, 32)[None, :])
    tl.store(a_ptr, tl.sum(tl.dot(a, a)))


@triton.jit
def static_assert_fails(x_ptr, B: tl.constexpr):
    tl.static_assert(B >= 64, "B is too small")


@triton.jit
def unpack_count(x_ptr):
    a, b = tl.load(x_ptr), tl.load(x_ptr), 1.0


@triton.jit
def libdevice_fp16(x_ptr):
    tl.store(x_ptr, libdevice.tanh(tl.load(x_ptr)))


@triton.jit
def broadcast_shapes(x_ptr):
    tl.store(x_ptr + tl.arange(0, 16), tl.arange(0, 32))


@triton.jit
def unsigned_negative(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr) + -1)


@triton.jit
def overflow(x_ptr, B: tl.constexpr):
    tl.store(x_ptr, B * B * B)


@triton.jit
def chained_compare(x_ptr, n):
    tl.store(x_ptr, 0 < n < 10)


@triton.jit
def tensor_index(x_ptr):
    x = tl.arange(0, 16)
    tl.store(x_ptr, x[3])


@triton.heuristics({"EVEN": lambda args: args["n"] % 16 == 0})
@triton.jit
def heuristic_runtime(x_ptr, n, EVEN: tl.constexpr):
    tl.store(x_ptr, EVEN)


@triton.jit
def store_block_to_scalar(x_ptr):
    tl.store(x_ptr, tl.arange(0, 16))


@triton.jit
def load_keyword(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr, masks=None))


@triton.jit
def pointer_float(x_ptr):
    tl.store(x_ptr + 1.5, 1.0)


@triton.jit
def while_block_cond(x_ptr):
    x = tl.arange(0, 16)
    while x < 3:
        x += 1


@triton.jit
def permute_dims(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16)).reshape(4, 4)
    tl.store(x_ptr, tl.sum(tl.permute(x, (0, 0))))


@triton.jit
def reshape_numel(x_ptr):
    tl.store(x_ptr + tl.arange(0, 16), tl.reshape(tl.arange(0, 16), (4, 8)))


@triton.jit
def reduce_axis(x_ptr):
    tl.store(x_ptr, tl.sum(tl.arange(0, 16), axis=1))


@triton.jit
def hint_count(x_ptr):
    tl.store(x_ptr + tl.multiple_of(tl.arange(0, 16), (16, 16)), 1.0)


@triton.jit
def dot_bf16_out(x_ptr):
    a = tl.load(x_ptr + tl.arange(0, 16)[:, None] * 16 + tl.arange(0, 16)[None, :])
    tl.store(x_ptr, tl.sum(tl.dot(a, a, out_dtype=tl.bfloat16)))


@triton.jit
def recursion(x_ptr):
    tl.store(x_ptr, recursion(x_ptr))


@triton.jit
def program_id_axis(x_ptr):
    tl.store(x_ptr, tl.program_id(3))


@triton.jit
def global_not_constant(x_ptr):
    tl.store(x_ptr, DEVICE)


DEVICE = torch.device("cuda")


@triton.jit
def reshape_to_scalar(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 1))
    tl.store(x_ptr, tl.reshape(x, ()))


def host_helper(x):
    return x * 2


@triton.jit
def host_call(x_ptr):
    tl.store(x_ptr, host_helper(1.0))


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=2), triton.Config({"BLOCK": 128})], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["BLOCK"] >= 128})
@triton.jit
def heuristic_autotuned(x_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), EVEN)


@triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=[])
@triton.jit
def autotuned_no_config(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)


@triton.jit
def return_in_runtime_loop(x_ptr, n):
    for i in range(n):
        if tl.load(x_ptr + i) < 0:
            return
        tl.store(x_ptr + i, 1.0)
