import triton
import triton.language as tl


@triton.jit
def act_and_mul(x_ptr, out_ptr, n, QUANT_MAX: tl.constexpr, BLOCK: tl.constexpr):
    # sglang's gelu_and_mul shape: a branch a constexpr None leaves out raises
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    y = x * tl.sigmoid(x)
    if QUANT_MAX is not None:
        raise NotImplementedError()
    tl.store(out_ptr + offs, y, mask=offs < n)


@triton.jit
def _offsets(pid, BLOCK: tl.constexpr):
    return pid * BLOCK + tl.arange(0, BLOCK)


@triton.jit
def _masked(ptr, offs: tl.constexpr, n):
    # a helper's constexpr annotation Triton does not enforce (FlagGems)
    return tl.load(ptr + offs, mask=offs < n, other=0.0)


@triton.jit
def helper_annotations(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = _offsets(tl.program_id(0), BLOCK)
    x = _masked(x_ptr, offs, n)
    dt = x.dtype.value
    tl.store(out_ptr + offs, x.to(dt) * 2, mask=offs < n)
