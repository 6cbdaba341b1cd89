@triton.autotune(configs=[triton.Config({"B": 4}, num_warps=4)], key=["n"])
@triton.jit
def k(x, n, B: tl.constexpr):
    for i in range(n):
        if i < 2 < n:
            break
    return f"{x!r:>{n}}", [a for a in b], lambda: 0
