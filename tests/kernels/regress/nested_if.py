# fla's cross entropy shape: a name bound in both branches of a runtime if
# nested in the else branch of another, whose then branch binds it too
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, out_ptr, lab_ptr, n, ignore, SPLIT: tl.constexpr):
    row = tl.program_id(0)
    label = tl.load(lab_ptr + row)
    x = tl.load(x_ptr + row)
    if label == ignore:
        loss = 0.0
    else:
        if label < n:
            loss = x * 2
        else:
            loss = 0.0
        if not SPLIT:
            loss += 1.0
    tl.store(out_ptr + row, loss)
