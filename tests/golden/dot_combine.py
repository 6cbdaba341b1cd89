import triton
import triton.language as tl


# `acc + tl.dot(a, b)` folds into `tl.dot(a, b, acc)` as Triton's combine
# patterns fold it, only while the dot's accumulator is zero and the add is
# the dot's one user.
@triton.jit
def dot_combine_kernel(a_ptr, b_ptr, c_ptr, d_ptr, MODE: tl.constexpr):
    r = tl.arange(0, 16)
    offs = r[:, None] * 16 + r[None, :]
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    acc = tl.load(c_ptr + offs)
    if MODE == 0:
        out = acc + tl.dot(a, b)
    elif MODE == 1:
        out = tl.dot(a, b) + acc
    elif MODE == 2:
        p = tl.dot(a, b)
        out = (acc + p) * p
    else:
        out = acc + tl.dot(a, b, acc)
    tl.store(d_ptr + offs, out)
