# Kernels that factory functions define in their bodies, as torchao builds
# its kernels lazily: the kernel sees the factory's names (its imports, a
# helper it defines, constants it binds once) before the module's, as a
# Python closure does. What only the running program knows (a factory's
# parameter, a name bound in an `if`) is refused.
import triton

SHIFT = 100.0


def make_scale_kernel():
    import triton.language as tl

    SCALE = 2.0
    BLOCK = tl.constexpr(64)

    @triton.jit
    def _scaled(x):
        return x * SCALE + SHIFT

    @triton.jit
    def scale_kernel(x_ptr, y_ptr, n, B: tl.constexpr = BLOCK):
        offs = tl.program_id(0) * B + tl.arange(0, B)
        mask = offs < n
        tl.store(y_ptr + offs, _scaled(tl.load(x_ptr + offs, mask=mask)), mask=mask)

    return scale_kernel


def make_outer():
    import triton.language as tl

    N = 4

    def middle():
        global SHIFT

        @triton.jit
        def deep_kernel(x_ptr):
            tl.store(x_ptr + tl.arange(0, N), tl.full([N], SHIFT, tl.float32))

        return deep_kernel

    return middle()


def make_cast_kernel(dtype):
    import triton.language as tl

    @triton.jit
    def cast_kernel(x_ptr, y_ptr):
        tl.store(y_ptr, tl.load(x_ptr).to(dtype))

    return cast_kernel


def make_offset_kernel(flag):
    import triton.language as tl

    if flag:
        OFFSET = 1
    else:
        OFFSET = 2

    @triton.jit
    def offset_kernel(x_ptr):
        tl.store(x_ptr, tl.load(x_ptr) + OFFSET)

    return offset_kernel


def make_dup_a():
    import triton.language as tl

    @triton.jit
    def dup_kernel(x_ptr):
        tl.store(x_ptr, 1.0)

    return dup_kernel


def make_dup_b():
    import triton.language as tl

    @triton.jit
    def dup_kernel(x_ptr):
        tl.store(x_ptr, 2.0)

    return dup_kernel


def make_walrus_kernel(sizes):
    import triton.language as tl

    if (n := len(sizes)) > 1:
        pass

    @triton.jit
    def walrus_kernel(x_ptr):
        tl.store(x_ptr, n)

    return walrus_kernel
