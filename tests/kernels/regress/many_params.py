import triton
import triton.language as tl


@triton.jit
def many_params(out_ptr, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, n, BLOCK: tl.constexpr):
    # 34 runtime parameters: hints past the 32nd go to the blob's preds array
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    total = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15 + a16 + a17 + a18 + a19 + a20 + a21 + a22 + a23 + a24 + a25 + a26 + a27 + a28 + a29 + a30 + a31
    tl.store(out_ptr + offs, offs + total, mask=offs < n)
