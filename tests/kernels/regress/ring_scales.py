import triton
import triton.language as tl


@triton.jit
def scaled_dot(a_ptr, b_ptr, s_ptr, t_ptr, c_ptr, K, DECAY: tl.constexpr, BLOCK: tl.constexpr):
    # c = sum over the K blocks of a[:, k] @ (b[k, :] * s[k][:, None]), a
    # [BLOCK, K], b [K, BLOCK], a scale per row of b (a dequantization's
    # shape); with DECAY each scale also times exp(t[k]), whose load the
    # dot reads through an exp, as Mamba's chunk kernels read their decay
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K, BLOCK):
        a = tl.load(a_ptr + offs[:, None] * K + (k + offs)[None, :])
        b = tl.load(b_ptr + (k + offs)[:, None] * BLOCK + offs[None, :])
        s = tl.load(s_ptr + k + offs)
        if DECAY:
            s = s * tl.exp(tl.load(t_ptr + k + offs))
        acc += tl.dot(a, (b * s[:, None]).to(tl.float16))
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
