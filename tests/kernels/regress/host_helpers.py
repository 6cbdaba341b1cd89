# Plain Python functions that kernels and module-level host code call.


def block_for(n):
    """The block that covers n elements (a module's attribute: Triton calls it)."""
    if n > 64:
        return 128
    return 64


def find_fn(name):
    # host code tilec does not run: a loop over candidate modules
    for loc in ("triton.language.extra.libdevice", "triton.language.math"):
        if loc:
            return name
    return None


def prepare_backend():
    pass


def backend_module():
    return None
