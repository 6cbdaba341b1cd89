# Pointers made from the integers of a table (Triton's grouped GEMM
# tutorial reads its matrices so): Triton's int_to_ptr takes 64-bit
# integers only.
import triton
import triton.language as tl


@triton.jit
def pointer_table(ptrs_ptr, out_ptr, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    p = tl.load(ptrs_ptr + g).to(tl.pointer_type(tl.float16))
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + g * BLOCK + offs, tl.load(p + offs) * 2)
