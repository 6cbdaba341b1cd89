"""harness.py - what diff.py and bench.py share: reading .gpu/manifest.json,
making a case's arguments on the GPU, and launching it through Triton (the
kernel's own .py, imported) and through tile (the generated launch function
in .gpu/libtilegpu.so, called with ctypes on PyTorch's current stream).

Outputs are allocated with a guard tail and every byte is poisoned (0xFF:
a NaN for floats, -1 for ints) before a launch, so that an element a kernel
never wrote, or a write past the end, shows up in the comparison. In-out
tensors get the same guard, each side its own copy of the initial values.
"""
import ctypes
import importlib.util
import json
import os
import sys
import tempfile

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

GUARD = 1024  # elements after each output that must stay poisoned

TORCH = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32,
         "fp64": torch.float64, "i8": torch.int8, "i16": torch.int16, "i32": torch.int32,
         "i64": torch.int64, "u8": torch.uint8, "i1": torch.bool}
BITS = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
CTYPE = {"i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32, "i64": ctypes.c_int64,
         "u8": ctypes.c_uint8, "u16": ctypes.c_uint16, "u32": ctypes.c_uint32,
         "u64": ctypes.c_uint64, "fp32": ctypes.c_float, "fp64": ctypes.c_double,
         "fp16": ctypes.c_uint16, "bf16": ctypes.c_uint16, "i1": ctypes.c_uint8}


def load_manifest(gdir):
    with open(os.path.join(gdir, "manifest.json")) as f:
        return json.load(f)


def load_lib(gdir):
    path = os.path.join(os.path.abspath(gdir), "libtilegpu.so")
    if not os.path.exists(path):
        return None
    lib = ctypes.CDLL(path)
    lib.tile_status_string.restype = ctypes.c_char_p
    lib.tile_status_string.argtypes = [ctypes.c_int]
    lib.tile_last_error.restype = ctypes.c_char_p
    lib.tile_last_error.argtypes = []
    return lib


_modules = {}
_tmp = tempfile.mkdtemp(prefix="tile-gpu-")


def triton_kernel(root, inst):
    """The case's kernel as Triton sees it. The file is imported through
    cases.clean_source, so its host code (tutorial files run kernels or
    torch.compile at import) does not run; Triton reads the kernel's source
    from that cleaned copy."""
    path = os.path.join(root, inst["file"])
    mod = _modules.get(path)
    if mod is None:
        name = "gpu_case_%d" % len(_modules)
        clean = os.path.join(_tmp, name + ".py")
        with open(clean, "w") as f:
            f.write(cases.clean_source(path))
        spec = importlib.util.spec_from_file_location(name, clean)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _modules[path] = mod
    k = getattr(mod, inst["kernel"])
    while not isinstance(k, triton.runtime.jit.JITFunction) and hasattr(k, "fn"):
        k = k.fn  # autotune / heuristics wrappers: the case gives the config
    return k


def tile_fn(lib, inst):
    fn = getattr(lib, inst["launch"], None)
    if fn is None:
        return None
    types = [ctypes.c_void_p]
    if not inst["grid_in_blob"]:
        types += [ctypes.c_uint32] * 3
    for p in inst["params"]:
        types.append(ctypes.c_uint64 if p["kind"] == "tensor" else CTYPE[p["dtype"]])
    fn.argtypes = types
    fn.restype = ctypes.c_int
    return fn


def _eval(expr, env):
    return eval(expr, {"__builtins__": {}, "cdiv": lambda a, b: (a + b - 1) // b,
                       "min": min, "max": max}, env)


def _init(p, shape, gen):
    kind, _, rng = p["init"].partition(":")
    dt = TORCH[p["dtype"]]
    if kind == "randn":
        return torch.randn(shape, generator=gen, device="cuda", dtype=torch.float32).to(dt)
    if kind == "uniform":
        lo, hi = (float(x) for x in rng.split(":"))
        x = torch.rand(shape, generator=gen, device="cuda", dtype=torch.float32)
        return (lo + (hi - lo) * x).to(dt)
    lo, hi = (int(x) for x in rng.split(":"))
    x = torch.randint(lo, hi, shape, generator=gen, device="cuda", dtype=torch.int64)
    if kind == "nonzero":
        x[x == 0] = 1
    return x.to(dt)


def poisoned(dtype, shape):
    """A poisoned tensor of `shape` followed by a poisoned guard tail."""
    n = 1
    for d in shape:
        n *= d
    flat = torch.empty(n + GUARD, dtype=TORCH[dtype], device="cuda")
    flat.view(torch.uint8).fill_(0xFF)
    return flat, flat[:n].view(shape)


class Args:
    """A case's arguments at one size: inputs shared, outputs per side."""

    def __init__(self, inst, size, seed=0):
        gen = torch.Generator(device="cuda")
        gen.manual_seed(seed)
        self.env = dict(size)
        self.outputs = []
        for p in inst["params"]:
            if p["kind"] == "scalar":
                v = _eval(p["value"], self.env)
                self.env[p["name"]] = float(v) if p["dtype"].startswith(("fp", "bf")) else int(v)
        for k, v in inst["constexprs"].items():
            self.env[k] = v
        tri, til = [], []
        for p in inst["params"]:
            if p["kind"] == "scalar":
                tri.append(self.env[p["name"]])
                til.append(self.env[p["name"]])
                continue
            shape = [int(_eval(s, self.env)) for s in p["shape"]]
            if p["role"] == "in":
                t = _init(p, shape, gen)
                tri.append(t)
                til.append(t)
            elif p["role"] == "inout":
                t = _init(p, shape, gen)
                f1, t1 = poisoned(p["dtype"], shape)
                f2, t2 = poisoned(p["dtype"], shape)
                t1.copy_(t)
                t2.copy_(t)
                tri.append(t1)
                til.append(t2)
                self.outputs.append((p["name"], p["dtype"], t1, t2, f2))
            else:
                f1, t1 = poisoned(p["dtype"], shape)
                f2, t2 = poisoned(p["dtype"], shape)
                tri.append(t1)
                til.append(t2)
                self.outputs.append((p["name"], p["dtype"], t1, t2, f2))
        self.triton, self.tile = tri, til
        g = _eval(inst["grid"], self.env)
        g = tuple(g) if isinstance(g, (tuple, list)) else (g,)
        self.grid = tuple(int(x) for x in g) + (1,) * (3 - len(g))

    def bytes_moved(self):
        n = 0
        for t in self.triton:
            if isinstance(t, torch.Tensor):
                n += t.numel() * t.element_size()
        return n


def launch_triton(kern, inst, args):
    extra = {"num_stages": inst["num_stages"]} if inst.get("num_stages") else {}
    kern[args.grid](*args.triton, **inst["constexprs"], num_warps=inst["num_warps"], **extra)


def launch_tile(fn, inst, args):
    """Returns the tile_status of the launch (0: success)."""
    stream = torch.cuda.current_stream().cuda_stream
    cargs = [ctypes.c_void_p(stream)]
    if not inst["grid_in_blob"]:
        cargs += list(args.grid)
    for a in args.tile:
        cargs.append(a.data_ptr() if isinstance(a, torch.Tensor) else a)
    return fn(*cargs)


def tile_error(lib, status):
    return "%s: %s" % (lib.tile_status_string(status).decode(), lib.tile_last_error().decode())


def compare(dtype, tri, til, flat_tile, tol):
    """None when tile's output matches Triton's, else what differs."""
    n = tri.numel()
    bits = BITS[tri.element_size()]
    bt, br = til.reshape(-1).view(bits), tri.reshape(-1).view(bits)
    guard = flat_tile[n:].view(bits)
    problems = []
    if not bool((guard == -1).all()):
        problems.append("wrote past the end (%d guard elements changed)" % int((guard != -1).sum()))
    unwritten = int(((bt == -1) & (br != -1)).sum())
    if unwritten:
        problems.append("%d of %d elements never written" % (unwritten, n))
    isfloat = tri.dtype.is_floating_point
    if isfloat:
        a, b = til.reshape(-1).float(), tri.reshape(-1).float()
        both_nan = torch.isnan(a) & torch.isnan(b)
        differ = (bt != br) & ~both_nan
        if tol == "exact":
            bad = differ
        else:
            bad = ~torch.isclose(a, b, rtol=tol["rtol"], atol=tol["atol"], equal_nan=True)
    else:
        differ = bt != br
        bad = differ
    nbad = int(bad.sum())
    if nbad:
        i = int(bad.nonzero()[0])
        ta, tb = til.reshape(-1)[i].item(), tri.reshape(-1)[i].item()
        err = ""
        if isfloat:
            d = (a - b).abs()
            d[both_nan] = 0
            err = ", max abs diff %.3g" % float(torch.nan_to_num(d, nan=float("inf")).max())
        problems.append("%d of %d elements differ (%s); first at %d: tile %r, triton %r%s"
                        % (nbad, n, "bit-exact" if tol == "exact" else "atol %g rtol %g"
                           % (tol["atol"], tol["rtol"]), i, ta, tb, err))
    ndiff = int(differ.sum())
    return ("; ".join(problems) if problems else None), ndiff
