import triton
import triton.language as tl

@triton.jit
def early_return_loop(x_ptr, y_ptr, labels_ptr, n_cols, ignore_index, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    label = tl.load(labels_ptr + row)
    if label == ignore_index:
        for i in range(0, n_cols, BLOCK):
            offs = i + tl.arange(0, BLOCK)
            tl.store(y_ptr + row * n_cols + offs, 0.0, mask=offs < n_cols)
        return
    m = float("-inf")
    for i in range(0, n_cols, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=float("-inf"))
        m = tl.maximum(m, tl.max(x, 0))
    for i in range(0, n_cols, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols)
        tl.store(y_ptr + row * n_cols + offs, x - m, mask=offs < n_cols)
