import triton
import triton.language as tl


@triton.jit
def unpack_int4(packed_ptr, out_ptr, rows, cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
                REORDER: tl.constexpr):
    # packed: [rows, cols] int32, eight 4-bit values a word; out: [rows, cols * 8]
    # int32. Each word is repeated eight times by three interleaves, and
    # element j of a group of eight takes the nibble at position nib[j]:
    # j itself, or with REORDER the order [0, 4, 1, 5, 2, 6, 3, 7]. nib
    # is a reshape of a broadcast (and a permute) of constants.
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.arange(0, BLOCK_C)
    w = tl.load(packed_ptr + r[:, None] * cols + c[None, :], mask=(r[:, None] < rows) & (c[None, :] < cols), other=0)
    w = tl.interleave(w, w)
    w = tl.interleave(w, w)
    w = tl.interleave(w, w)
    order = tl.arange(0, 8)
    if REORDER:
        order = tl.reshape(tl.permute(tl.reshape(order, (2, 4)), (1, 0)), (8, ))
    nib = tl.reshape(tl.broadcast_to(order[None, :], (BLOCK_R * BLOCK_C, 8)), (BLOCK_R, BLOCK_C * 8))
    v = (w >> (nib * 4)) & 0xF
    oc = tl.arange(0, BLOCK_C * 8)
    tl.store(out_ptr + r[:, None] * (cols * 8) + oc[None, :], v, mask=(r[:, None] < rows) & (oc[None, :] < cols * 8))


@triton.jit
def interleave_pairs(x_ptr, scale_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # x: bytes of two 4-bit values; out[2i] = (x[i] >> 4) * s, out[2i + 1] =
    # (x[i] & 15) * s with s the scale of x[i]'s group of 32 (bitsandbytes'
    # dequantization): the rank's layout, built for the output, holds the
    # halves twice, and their join still folds into registers
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    s = tl.load(scale_ptr + offs // 32, mask=offs < n, other=1.0)
    y = tl.interleave((x >> 4).to(tl.float32) * s, (x & 15).to(tl.float32) * s)
    o = tl.program_id(0) * 2 * BLOCK + tl.arange(0, 2 * BLOCK)
    tl.store(out_ptr + o, y, mask=o < 2 * n)
