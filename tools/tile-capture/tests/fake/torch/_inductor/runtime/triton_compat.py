"""What Inductor's triton_compat does: picks Triton's modules at import,
behind host code that tilec does not evaluate."""
try:
    import triton
except ImportError:
    triton = None

if triton is not None:
    import triton.language as tl

    try:
        from triton.language.extra import libdevice

        math = tl.math
    except ImportError:
        libdevice = tl.math
        math = tl
    builtins_use_semantic_kwarg = True
else:
    tl = libdevice = math = None
    builtins_use_semantic_kwarg = False
