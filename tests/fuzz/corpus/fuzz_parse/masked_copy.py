import triton
import triton.language as tl


@triton.jit
def padded_copy_kernel(src_ptr, dst_ptr, n, pad_value, BLOCK: tl.constexpr):
    # dst has a whole number of blocks; elements past n get pad_value.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(src_ptr + offs, mask=offs < n, other=pad_value)
    tl.store(dst_ptr + offs, x)


@triton.jit
def shift_kernel(src_ptr, dst_ptr, n, shift, BLOCK: tl.constexpr):
    # dst[i] = src[i - shift], zero where i - shift falls outside src.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    src = offs - shift
    valid = (src >= 0) & (src < n)
    x = tl.load(src_ptr + src, mask=valid, other=0)
    tl.store(dst_ptr + offs, x, mask=offs < n)
