import triton
import triton.language as tl


@triton.jit
def count_down(x_ptr, out_ptr, K, BLOCK: tl.constexpr):
    # a loop counting down, as kernl's and torchao's matmuls write their K
    # loops: `for k in range(K, 0, -BLOCK)` runs while k > 0
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(K, 0, -BLOCK):
        offs = K - k + cols
        acc += tl.load(x_ptr + offs, mask=offs < K, other=0.0)
    tl.store(out_ptr + cols, acc)
