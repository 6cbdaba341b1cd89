"""gpu_app.py - the program gpu_check.sh captures on a GPU: about a dozen
Triton kernels of the repository launched the ways programs launch them,
and a small torch.compile'd function (Inductor's pointwise and reduction
kernels). Inputs are seeded, so the check's second run sees the same
values: vector_add through its file's own host function (fp32 at two
sizes, a view that is not 16-byte aligned, fp16); the tutorial matmul with
a grid lambda; bench/tune's autotuned matmul at two shapes and its
autotuned row sum with a heuristic; softmax and layer norm, one program per
row (the grid from the call site); a heuristic over a float (smoothing); a
2-D grid (transpose); a column sum; clamp with float arguments; libdevice
through an inlined helper; a persistent softmax whose grid is min(n_rows,
528)."""
import importlib.util
import os
import sys

import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path += [os.path.join(ROOT, d) for d in ("tests/kernels", "tests/gpu/kernels", "bench/tune")]

import elementwise  # noqa: E402
import layernorm  # noqa: E402
import matmul  # noqa: E402
import reductions  # noqa: E402
import rowsum  # noqa: E402
import smoothing  # noqa: E402
import softmax  # noqa: E402
import tier1  # noqa: E402
import tier2  # noqa: E402
import tile2d  # noqa: E402
import vector_add  # noqa: E402

_spec = importlib.util.spec_from_file_location("tuned_matmul", os.path.join(ROOT, "bench", "tune", "matmul.py"))
tuned_matmul = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tuned_matmul)

DEV = "cuda"


def mm(kernel, M, N, K, **meta):
    a = torch.randn((M, K), device=DEV, dtype=torch.float16)
    b = torch.randn((K, N), device=DEV, dtype=torch.float16)
    c = torch.empty((M, N), device=DEV, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)  # noqa: E731
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 **meta)


@torch.compile
def fused(a, b):
    y = torch.sin(a) * b + 1.0
    # softmax: Inductor's max reduction (triton_helpers.maximum) and a sum
    return y.sum(dim=-1), torch.relu(a - b).mean(dim=0), torch.softmax(y, dim=-1)


def main():
    torch.manual_seed(0)
    x, y = torch.randn(4096, device=DEV), torch.randn(4096, device=DEV)
    vector_add.add(x, y)
    vector_add.add(x[:1000], y[:1000])
    n = 4095
    out = torch.empty(n, device=DEV)
    vector_add.add_kernel[(triton.cdiv(n, 1024),)](x[1:], y[1:], out, n, BLOCK_SIZE=1024)
    vector_add.add(x.half(), y.half())

    mm(matmul.matmul_kernel, 256, 192, 128, BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8)
    for M, N, K in ((512, 512, 512), (256, 384, 200)):
        mm(tuned_matmul.matmul_kernel, M, N, K)

    for M, K in ((64, 1024), (37, 1000)):
        xs, o = torch.randn((M, K), device=DEV), torch.empty(M, device=DEV)
        rowsum.rowsum_kernel[(M,)](xs, o, K)

    rows, cols = 100, 781
    xs = torch.randn((rows, cols), device=DEV)
    o = torch.empty_like(xs)
    block = triton.next_power_of_2(cols)
    softmax.softmax_kernel[(rows,)](o, xs, xs.stride(0), o.stride(0), rows, cols, BLOCK_SIZE=block, num_warps=4)
    tier2.softmax_persistent_kernel[(min(rows, 528),)](o, xs, xs.stride(0), o.stride(0), rows, cols,
                                                        BLOCK_SIZE=block)

    M, N = 37, 1000
    xh = torch.randn((M, N), device=DEV, dtype=torch.float16)
    w, b = torch.randn(N, device=DEV, dtype=torch.float16), torch.randn(N, device=DEV, dtype=torch.float16)
    yh = torch.empty_like(xh)
    mean, rstd = torch.empty(M, device=DEV), torch.empty(M, device=DEV)
    layernorm._layer_norm_fwd[(M,)](xh, yh, w, b, mean, rstd, xh.stride(0), N, 1e-5, BLOCK_SIZE=1024, num_warps=4)

    for s in (0.1, 0.0):
        n = 3000
        xs, o = torch.randn(n, device=DEV), torch.empty(n, device=DEV)
        smoothing.smooth_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](o, xs, s, n, BLOCK=1024)

    M, N = 100, 257
    xs = torch.randn((M, N), device=DEV)
    t = torch.empty((N, M), device=DEV)
    tile2d.transpose_kernel[lambda META: (triton.cdiv(M, META["BLOCK"]), triton.cdiv(N, META["BLOCK"]))](
        xs, t, M, N, BLOCK=32)
    cs = torch.empty(N, device=DEV)
    reductions.col_sum_kernel[lambda META: (triton.cdiv(N, META["BLOCK_N"]),)](xs, cs, M, N, xs.stride(0),
                                                                               BLOCK_M=128, BLOCK_N=64)

    n = 10000
    xs = torch.randn(n, device=DEV)
    o = torch.empty_like(xs)
    elementwise.clamp_kernel[(triton.cdiv(n, 1024),)](xs, o, -0.5, 0.75, n, BLOCK=1024)
    tier1.libdevice_kernel[(triton.cdiv(n, 512),)](xs, o, n, 0.7, BLOCK_SIZE=512)

    a, b = torch.randn((64, 1000), device=DEV), torch.randn((64, 1000), device=DEV)
    fused(a, b)
    fused(a, b)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
