# What tile refuses of atomics and random numbers, as Triton does.
import triton
import triton.language as tl


@triton.jit
def max_fp16(p):
    tl.atomic_max(p, 1.0)


@triton.jit
def add_i16(p):
    tl.atomic_add(p, 1)


@triton.jit
def add_i8(p):
    tl.atomic_add(p + tl.arange(0, 16), 1)


@triton.jit
def and_fp32(p):
    tl.atomic_and(p, 1.0)


@triton.jit
def cas_i8(p):
    tl.atomic_cas(p, 0, 1)


@triton.jit
def bad_sem(p):
    tl.atomic_add(p, 1, sem="seq_cst")


@triton.jit
def bad_scope(p):
    tl.atomic_xchg(p, 1, scope="block")


@triton.jit
def not_pointer(n):
    tl.atomic_add(n, 1)


@triton.jit
def block_to_scalar(p):
    tl.atomic_add(p, tl.arange(0, 16))


@triton.jit
def philox_i16(p):
    offs = tl.arange(0, 16).to(tl.int16)
    tl.store(p + tl.arange(0, 16), tl.randint(1, offs).to(tl.int16))


@triton.jit
def philox_impl_i32(p):
    c = tl.arange(0, 16)
    a, b, c2, d = tl.philox_impl(c, c, c, c, 1, 2)
    tl.store(p + tl.arange(0, 16), a)


@triton.jit
def rounds_runtime(p, n):
    tl.store(p + tl.arange(0, 16), tl.randint(1, tl.arange(0, 16), n))


@triton.jit
def rand_float_offsets(p):
    x = tl.load(p + tl.arange(0, 16))
    tl.store(p + tl.arange(0, 16), tl.uint_to_uniform_float(x))
