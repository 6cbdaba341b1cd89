"""A program that goes wrong, for tile-capture's error paths: a kernel whose
source file is gone when the manifest is written, a grid lambda tilec cannot
express, None passed for a runtime pointer, a @triton.jit function passed as
a constexpr, and at the end an exception (or, with the argument `exit`,
sys.exit(3))."""
import importlib.util
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
sys.path += [os.path.join(ROOT, "tests", "kernels")]

import torch  # noqa: E402
import triton  # noqa: E402

import extra_kernels  # noqa: E402
import vector_add  # noqa: E402

GONE = '''import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
'''


def main():
    x, y = torch.empty(4096), torch.empty(4096)
    vector_add.add(x, y)

    d = tempfile.mkdtemp(prefix="gone-")
    path = os.path.join(d, "gone_kernel.py")
    with open(path, "w") as f:
        f.write(GONE)
    spec = importlib.util.spec_from_file_location("gone_kernel", path)
    gone = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gone)
    gone.scale_kernel[(4,)](x, 4096, BLOCK=1024)
    shutil.rmtree(d)

    extra_kernels.bias_kernel[lambda META: (triton.cdiv(x.numel(), META["BLOCK"]),)](x, y, 4096, BLOCK=1024)
    extra_kernels.bias_kernel[lambda META: (triton.cdiv(x.numel(), META["BLOCK"]),)](x, None, 4096, BLOCK=1024)
    extra_kernels.apply_kernel[(4,)](x, 4096, FN=extra_kernels.negate, BLOCK=1024)

    if sys.argv[1:] == ["exit"]:
        sys.exit(3)
    raise RuntimeError("the program failed after its launches")


if __name__ == "__main__":
    main()
