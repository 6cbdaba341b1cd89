"""Launches kernels of the repository (tests/kernels, bench/tune) through
the fake Triton the way programs do: host code of the kernel's own file
(vector_add.add), grid lambdas over META, grids written at the call site,
unaligned views, another dtype, an autotuned kernel with a literal config
list, autotune with heuristics, autotune applied by host code,
do_not_specialize, a module global in a grid."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
sys.path += [os.path.join(ROOT, "tests", "kernels"), os.path.join(ROOT, "bench", "tune")]

import torch  # noqa: E402
import triton  # noqa: E402

import extra_kernels  # noqa: E402
import matmul  # noqa: E402
import rowsum  # noqa: E402
import smoothing  # noqa: E402
import vector_add  # noqa: E402

spec = importlib.util.spec_from_file_location("tuned_matmul", os.path.join(ROOT, "bench", "tune", "matmul.py"))
tuned_matmul = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tuned_matmul)


def mm(kernel, M, N, K):
    a = torch.empty((M, K), dtype=torch.float16)
    b = torch.empty((K, N), dtype=torch.float16)
    c = torch.empty((M, N), dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)  # noqa: E731
    kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 **({} if hasattr(kernel, "configs") else
                    dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8)))


def main():
    x, y = torch.empty(4096), torch.empty(4096)
    vector_add.add(x, y)
    vector_add.add(torch.empty(1000), torch.empty(1000))
    vector_add.add(torch.empty(4096, dtype=torch.float16), torch.empty(4096, dtype=torch.float16))
    n = 4095
    out = torch.empty(n)
    vector_add.add_kernel[(triton.cdiv(n, 1024),)](x[1:], y[1:], out, n, BLOCK_SIZE=1024)

    mm(matmul.matmul_kernel, 256, 256, 256)

    # the fake autotuner's times: config 2 where K is a multiple of 64, else config 7
    tuned_matmul.matmul_kernel.fake_time = lambda c, a: 0 if c is tuned_matmul.matmul_kernel.configs[
        2 if a["K"] % 64 == 0 else 7] else 1
    for M, N, K in ((512, 512, 512), (256, 384, 200), (512, 512, 512)):
        mm(tuned_matmul.matmul_kernel, M, N, K)

    # BLOCK_K 512 for K = 1024, 128 otherwise
    rowsum.rowsum_kernel.fake_time = lambda c, a: abs(c.kwargs["BLOCK_K"] - (512 if a["K"] == 1024 else 128))
    for M, K in ((64, 1024), (64, 1000)):
        xs, o = torch.empty((M, K)), torch.empty(M)
        rowsum.rowsum_kernel[(M,)](xs, o, K)

    for s in (0.1, 0.0):
        n = 3000
        xs, o = torch.empty(n), torch.empty(n)
        smoothing.smooth_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](o, xs, s, n, BLOCK=1024)

    # autotune applied by host code: tilec cannot read these configs from the source
    tuned = triton.autotune(configs=[
        triton.Config({"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_warps=4),
        triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}, num_warps=8),
    ], key=["M"])(matmul.matmul_kernel)
    tuned.fake_time = lambda c, a: abs(c.kwargs["BLOCK_SIZE_M"] - (32 if a["M"] <= 64 else 64))
    mm(tuned, 64, 64, 64)
    mm(tuned, 512, 512, 512)

    o = torch.empty(4096)
    extra_kernels.fill_kernel[(4,)](o, 4096, 2.5, BLOCK=1024)
    extra_kernels.strided_fill_kernel[(extra_kernels.NUM_PROGRAMS,)](o, 4096, BLOCK=256)


if __name__ == "__main__":
    main()
