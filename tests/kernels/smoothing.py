# Label smoothing chosen at launch, as flash-attention's cross-entropy
# kernels choose it: a heuristic comparing a runtime fp32 argument.
import triton
import triton.language as tl


@triton.heuristics({"HAS_SMOOTHING": lambda args: args["smoothing"] > 0.0})
@triton.jit
def smooth_kernel(out_ptr, x_ptr, smoothing, n, BLOCK: tl.constexpr, HAS_SMOOTHING: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    if HAS_SMOOTHING:
        x = x * (1.0 - smoothing) + smoothing / n
    tl.store(out_ptr + offs, x, mask=offs < n)


# host code the launch cannot run: fine when -D fixes the value
@triton.heuristics({"HAS_SMOOTHING": lambda args: smoothing_enabled(args["smoothing"])})
@triton.jit
def host_kernel(out_ptr, x_ptr, smoothing, n, BLOCK: tl.constexpr, HAS_SMOOTHING: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    if HAS_SMOOTHING:
        x = x * (1.0 - smoothing)
    tl.store(out_ptr + offs, x, mask=offs < n)


# float arithmetic: refused at compile time unless -D fixes the value
@triton.heuristics({"HAS_SMOOTHING": lambda args: args["smoothing"] * 2 > 0.1,
                    "EVEN": lambda args: args["n"] % args["BLOCK"] == 0 and args["scale"] != -0.5})
@triton.jit
def arith_kernel(out_ptr, x_ptr, smoothing, scale, n, BLOCK: tl.constexpr, HAS_SMOOTHING: tl.constexpr,
                 EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    if HAS_SMOOTHING:
        x = x * scale
    tl.store(out_ptr + offs, x, mask=offs < n)
