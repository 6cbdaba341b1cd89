# Kernels written as plain functions and wrapped afterwards, as unsloth
# writes them: f = triton.jit(f), then f = triton.heuristics({...})(f).
import triton
import triton.language as tl


def _scale_rows(x_ptr, y_ptr, n_cols, scale, BLOCK: tl.constexpr, HAS_SCALE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    if HAS_SCALE:
        x = x * scale
    tl.store(y_ptr + row * n_cols + offs, x, mask=offs < n_cols)


_scale_rows = triton.jit(_scale_rows)
_scale_rows = triton.heuristics({"HAS_SCALE": lambda args: args["n_cols"] > 64})(_scale_rows)


def _fill(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs.to(tl.float32), mask=offs < n)


fill_kernel = triton.jit(_fill)
