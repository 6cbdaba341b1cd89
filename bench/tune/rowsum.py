# Row sums with an autotuned block and a heuristic that reads a runtime
# argument (EVEN_K), evaluated at launch by Triton and by tile: bench/tune
# checks tile's variants for both values of EVEN_K on the GPU.
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK_K": 128}, num_warps=4),
                          triton.Config({"BLOCK_K": 512}, num_warps=4)], key=["K"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def rowsum_kernel(x_ptr, out_ptr, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_K], dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        offs = k * BLOCK_K + tl.arange(0, BLOCK_K)
        if EVEN_K:
            acc += tl.load(x_ptr + row * K + offs)
        else:
            acc += tl.load(x_ptr + row * K + offs, mask=offs < K, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))
