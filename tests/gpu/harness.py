"""harness.py - what diff.py and bench.py share: reading .gpu/manifest.json,
making a case's arguments on the GPU, and launching it through Triton (the
kernel's own .py, imported) and through tile (the generated launch function
in .gpu/libtilegpu.so, called with ctypes on PyTorch's current stream).

Outputs are allocated with a guard tail and every byte is poisoned (0xFF:
a NaN for floats, -1 for ints) before a launch, so that an element a kernel
never wrote, or a write past the end, shows up in the comparison. In-out
tensors get the same guard, each side its own copy of the initial values
(init "zeros" for what atomics accumulate into, so both start alike).
"""
import ast
import ctypes
import importlib.abc
import importlib.util
import json
import os
import sys
import tempfile
import types

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

GUARD = 1024  # elements after each output that must stay poisoned

# Triton's device-side tensor descriptors (tl.make_tensor_descriptor) need
# global scratch memory for their tensor maps
if hasattr(triton, "set_allocator"):
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))

TORCH = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32,
         "fp64": torch.float64, "i8": torch.int8, "i16": torch.int16, "i32": torch.int32,
         "i64": torch.int64, "u8": torch.uint8, "i1": torch.bool,
         "fp8e4nv": torch.float8_e4m3fn, "fp8e5": torch.float8_e5m2}
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
_CORPUS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "corpus") + os.sep
_tmp = tempfile.mkdtemp(prefix="tile-gpu-")


def _never_called(*args, **kwargs):
    raise RuntimeError("a kernel of a module the corpus does not keep was launched")


class _Stub(types.ModuleType):
    """What a corpus file imports from its project that the corpus does not
    keep (the project's host modules, compiled extensions): any attribute
    is another stub, calling one gives a stub, and it is false, so that a
    platform test (`if current_platform.is_rocm():`) takes the plain path
    (but feature probes named HAS_...).
    `tl` and `triton` are Triton's own."""

    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "tl":
            return triton.language
        if name == "triton":
            return triton
        if name == "fn":
            # Triton's Autotuner unwraps `.fn` until it reaches a function: a
            # stub kernel autotuned at import (xformers' split-K kernels built by
            # a helper the corpus does not keep) would unwrap forever
            return _never_called
        return _Stub(self.__name__ + "." + name)

    def __call__(self, *a, **k):
        if len(a) == 1 and not k and (callable(a[0]) or hasattr(a[0], "run")):
            return a[0]  # a decorator (FlagGems' libentry() over an autotuner): the kernel itself
        return _Stub(self.__name__ + "()")

    def __bool__(self):
        # feature probes (vLLM's HAS_TRITON) hold where Triton runs
        return self.__name__.rsplit(".", 1)[-1].startswith("HAS_")

    # containers read at import (a table of configs, a dict of options): empty
    def __getitem__(self, key):
        return _Stub(self.__name__ + "[]")

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def keys(self):
        return []

    def __contains__(self, item):
        return False

    def __add__(self, other):  # a stubbed config table extended by a list
        return other if isinstance(other, list) else self

    __radd__ = __add__

    def __mro_entries__(self, bases):
        return (object,)  # a class deriving from a stubbed one


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: modules nothing else finds become stubs when a
    corpus file (or the harness for it) imports them; an installed
    library's probe of an optional dependency (sympy's `import gmpy2`)
    still gets its ImportError."""

    def find_spec(self, name, path, target=None):
        f = sys._getframe(1)
        while f is not None and (f.f_code.co_filename.startswith("<frozen") or
                                 "importlib" in f.f_code.co_filename):
            f = f.f_back
        where = os.path.abspath(f.f_code.co_filename) if f is not None else ""
        if not (where.startswith(_CORPUS) or where == os.path.abspath(__file__)):
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        return _Stub(spec.name)

    def exec_module(self, module):
        pass


def corpus_module(root, inst, modname=None):
    """A corpus file imported as its project's module (a/b/c.py under the
    project's folder is a.b.c, so relative imports work), with what the
    corpus does not keep of the project stubbed; or the project's module
    modname."""
    incs = [os.path.join(root, d) for d in inst["include_dirs"]]
    for inc in reversed(incs):
        if inc not in sys.path:
            sys.path.insert(0, inc)
    if not any(isinstance(f, _StubFinder) for f in sys.meta_path):
        sys.meta_path.append(_StubFinder())
    if modname:
        return importlib.import_module(modname)
    # named from the deepest search path holding it (src/pkg/m.py is pkg.m
    # where src is one), as the project's own absolute imports name it
    path = os.path.join(root, inst["file"])
    inc = max((d for d in incs if path.startswith(d + os.sep)), key=len)
    rel = os.path.relpath(path, inc)
    return importlib.import_module(rel[:-3].replace(os.sep, "."))


def triton_kernel(root, inst):
    """The case's kernel as Triton sees it. A corpus file is imported as
    its project's module (corpus_module; what fails there is reported), the
    suite's files through cases.clean_source, so their host code (tutorial
    files run kernels or torch.compile at import) does not run; Triton
    reads the kernel's source from that cleaned copy."""
    path = os.path.join(root, inst["file"])
    # a corpus module per set of binds: one case's binds must reach names the
    # module derives at import (FlagGems' `pow = tl_extra_shim.pow`) even
    # where another case of the file imported it without them
    key = (path, tuple(inst.get("tilec_flags") or ()))
    mod = _modules.get(key if inst.get("project") else path)
    if mod is None and inst.get("project"):
        binds = case_binds(inst)
        for name, value in binds:  # a module's name before the kernel's file reads it
            if "." in name:
                bind_in_module(root, inst, name, value)
        known = any(k[0] == path for k in _modules if isinstance(k, tuple))
        mod = corpus_module(root, inst)
        if known and binds:
            mod = importlib.reload(mod)
        for name, value in binds:
            if "." not in name:
                setattr(mod, name, value)
        _modules[key] = mod
    if mod is None:
        name = "gpu_case_%d" % len(_modules)
        clean = os.path.join(_tmp, name + ".py")
        with open(clean, "w") as f:
            f.write(cases.clean_source(path))
        spec = importlib.util.spec_from_file_location(name, clean)
        mod = importlib.util.module_from_spec(spec)
        # helpers imported from the kernel's own source tree (from pkg.m import f)
        if os.path.dirname(path) not in sys.path:
            sys.path.append(os.path.dirname(path))
        spec.loader.exec_module(mod)
        _modules[path] = mod
    k = getattr(mod, inst["kernel"], None)
    if k is None:
        k = nested_kernel(mod, path, inst["kernel"])
    if isinstance(k, _Stub):
        raise TypeError("%s is a stub: a decorator of it comes from a module the corpus does not keep"
                        % inst["kernel"])
    while not isinstance(k, triton.runtime.jit.JITFunction) and hasattr(k, "fn"):
        k = k.fn  # autotune / heuristics wrappers: the case gives the config
    return k


def case_binds(inst):
    """The case's --bind NAME=triton.x.y (tilec_flags): module-level names
    that the project's host code computes, as (NAME, the object)."""
    flags, out = inst.get("tilec_flags") or [], []
    for flag, arg in zip(flags, flags[1:]):
        if flag == "--bind":
            name, dotted = arg.split("=", 1)
            parts = dotted.split(".")
            for cut in range(len(parts), 0, -1):  # the longest importable prefix, then attributes
                try:
                    obj = importlib.import_module(".".join(parts[:cut]))
                except ImportError:
                    continue
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
                out.append((name, obj))
                break
    return out


def bind_in_module(root, inst, qualified, value):
    """module.NAME = value, in that module of the project and in every
    module that imported the same object under that name (a package's
    __init__ re-exporting it)."""
    modname, name = qualified.rsplit(".", 1)
    corpus_module(root, dict(inst, file=None), modname)
    old = getattr(sys.modules[modname], name, None)
    for m in list(sys.modules.values()):
        if m is not None and name in getattr(m, "__dict__", {}) and (m.__dict__[name] is old or m.__name__ == modname):
            setattr(m, name, value)


def nested_kernel(mod, path, name):
    """A @triton.jit def nested in a function (torchao builds its kernels
    inside factories): that def alone, dedented, in a file of its own,
    executed over the module's globals with its jit decorator (the others,
    autotune and heuristics, only choose what the case gives)."""
    import textwrap
    src = open(path).read()
    tree = ast.parse(src)
    for outer in tree.body:
        for node in ast.walk(outer) if isinstance(outer, ast.FunctionDef) else ():
            if isinstance(node, ast.FunctionDef) and node.name == name and node is not outer:
                jit = [d for d in node.decorator_list if "jit" in ast.unparse(d)]
                lines = src.splitlines(True)[node.lineno - 1:node.end_lineno]
                body = textwrap.dedent("".join(lines))
                text = "".join("@%s\n" % ast.unparse(d) for d in jit) + body
                file = os.path.join(_tmp, "nested_%d_%s.py" % (len(_modules), name))
                with open(file, "w") as f:
                    f.write(text)
                spec = importlib.util.spec_from_file_location("nested_%d" % len(_modules), file)
                nested = importlib.util.module_from_spec(spec)
                nested.__dict__.update({k: v for k, v in vars(mod).items() if not k.startswith("__")})
                nested.__dict__.setdefault("triton", triton)
                nested.__dict__.setdefault("tl", triton.language)
                spec.loader.exec_module(nested)
                _modules[file] = nested
                return getattr(nested, name)
    raise AttributeError("%s defines no kernel %s, at module level or nested" % (path, name))


class TileTensorDesc(ctypes.Structure):
    """tile.h's tile_tensordesc, passed by value."""
    _fields_ = [("base", ctypes.c_uint64), ("rank", ctypes.c_int32), ("shape", ctypes.c_int64 * 5),
                ("strides", ctypes.c_int64 * 5), ("block_shape", ctypes.c_int32 * 5)]


def tile_desc(t, block):
    """The tile_tensordesc of a tensor, as TensorDescriptor.from_tensor makes Triton's."""
    d = TileTensorDesc()
    d.base = t.data_ptr()
    d.rank = t.dim()
    for i in range(t.dim()):
        d.shape[i] = t.shape[i]
        d.strides[i] = t.stride(i)
        d.block_shape[i] = block[i]
    return d


def tile_fn(lib, inst):
    fn = getattr(lib, inst["launch"], None)
    if fn is None:
        return None
    types = [ctypes.c_void_p]
    if not inst["grid_in_blob"]:
        types += [ctypes.c_uint32] * 3
    for p in inst["params"]:
        types.append({"tensor": ctypes.c_uint64, "desc": TileTensorDesc}.get(p["kind"]) or CTYPE[p["dtype"]])
    fn.argtypes = types
    fn.restype = ctypes.c_int
    return fn


def _eval(expr, env):
    return eval(expr, {"__builtins__": {}, "cdiv": lambda a, b: (a + b - 1) // b,
                       "min": min, "max": max}, env)


# fp32 bit patterns "specials" mixes into normal values: -0.0, 0.0, NaN of
# either sign, infinities, the smallest subnormal
SPECIALS = [0x80000000, 0x00000000, 0x7FC00000, 0xFFC00000, 0x7F800000, 0xFF800000, 0x00000001]


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _init(p, shape, gen):
    kind, _, rng = p["init"].partition(":")
    dt = TORCH[p["dtype"]]
    if kind == "zeros":  # what atomics accumulate into: the same start on both sides
        return torch.zeros(shape, device="cuda", dtype=dt)
    if kind == "bytes":  # every bit pattern of a 1-byte type, repeated (fp8)
        n = 1
        for d in shape:
            n *= d
        return torch.arange(n, device="cuda").remainder(256).to(torch.uint8).view(dt).reshape(shape)
    if kind == "ties8":  # halfway between neighbouring values of the fp8 type named in rng (and NaNs)
        n = 1
        for d in shape:
            n *= d
        i = torch.arange(n, device="cuda").remainder(256)
        lo = i.to(torch.uint8).view(TORCH[rng]).float()
        hi = (i + 1).remainder(256).to(torch.uint8).view(TORCH[rng]).float()
        return ((lo + hi) / 2).reshape(shape).to(dt)
    if kind == "specials":  # fp32: randn with a quarter of the elements special values
        x = torch.randn(shape, generator=gen, device="cuda", dtype=torch.float32)
        pick = torch.randint(0, 4 * len(SPECIALS), shape, generator=gen, device="cuda")
        bits = torch.tensor([b - (1 << 32) if b >= 1 << 31 else b for b in SPECIALS],
                            device="cuda", dtype=torch.int32)
        sp = bits[pick.clamp(max=len(SPECIALS) - 1)].view(torch.float32)
        return torch.where(pick < len(SPECIALS), sp, x).to(dt)
    if kind == "steps":  # 0, S, 2S, ...: segment starts that cannot overlap
        return (torch.arange(_numel(shape), device="cuda") * int(rng)).to(dt).reshape(shape)
    if kind == "perm":  # a random order of 0 .. numel-1 (a block table naming each page once)
        return torch.randperm(_numel(shape), generator=gen, device="cuda").to(dt).reshape(shape)
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
        self.keep = []
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
        # descriptor parameters: the same tensors, wrapped per side
        for i, p in enumerate(inst["params"]):
            if p["kind"] == "desc":
                from triton.tools.tensor_descriptor import TensorDescriptor
                block = cases.desc_block(p, inst["constexprs"])
                tri[i] = TensorDescriptor.from_tensor(tri[i], block)
                til[i] = tile_desc(til[i], block)
                self.keep.append(til[i])
        self.triton, self.tile = tri, til
        g = _eval(inst["grid"], self.env)
        g = tuple(g) if isinstance(g, (tuple, list)) else (g,)
        self.grid = tuple(int(x) for x in g) + (1,) * (3 - len(g))

    def bytes_moved(self):
        n = 0
        for t in self.triton:
            t = getattr(t, "base", t)  # a TensorDescriptor's tensor
            if isinstance(t, torch.Tensor):
                n += t.numel() * t.element_size()
        return n


_kept_cubins = set()


def triton_options(inst):
    """The case's launch options beyond num_warps, as Triton takes them."""
    extra = {k: inst[k] for k in ("num_stages", "maxnreg", "num_ctas") if inst.get(k)}
    extra.update(inst.get("triton_extra") or {})
    return extra


def triton_constexpr(v):
    """A constexpr as Triton takes it: cases write strings and dtypes as
    tilec's -D takes them, as source text ("'gelu'", "tl.float32")."""
    if isinstance(v, str) and v.startswith("tl."):
        return getattr(triton.language, v[3:])
    if isinstance(v, str):
        return ast.literal_eval(v)  # 'gelu', None, True, 1e-6 as -D writes them
    return v


def launch_triton(kern, inst, args):
    extra = triton_options(inst)
    cx = {k: triton_constexpr(v) for k, v in inst["constexprs"].items()}
    # by name: a constexpr may sit between runtime parameters (FlagGems' MoE
    # alignment kernels take num_experts second)
    names = [p.name for p in kern.params if not p.is_constexpr]
    named = dict(zip(names, args.triton))
    # a kernel may name a constexpr num_warps (Liger's sparsemax): Triton then
    # takes the one keyword as both, so it is passed once
    compiled = kern[args.grid](**named, **dict(cx, num_warps=inst["num_warps"]), **extra)
    keep = os.environ.get("TILE_TRITON_CUBIN_DIR")
    if keep and inst["id"] not in _kept_cubins:  # for bench/sass.py: the cubin (and PTX) this launch ran
        _kept_cubins.add(inst["id"])
        asm = getattr(compiled, "asm", {})
        os.makedirs(keep, exist_ok=True)
        for ext, mode in (("cubin", "wb"), ("ptx", "w")):
            if asm.get(ext):
                with open(os.path.join(keep, inst["id"] + "." + ext), mode) as f:
                    f.write(asm[ext])


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


# --- the sm_80-class comparison (bench.py) ----------------------------------

_cuda = None


def _driver():
    global _cuda
    if _cuda is None:
        _cuda = ctypes.CDLL("libcuda.so.1")
    return _cuda


def _check(what, rc):
    if rc != 0:
        raise RuntimeError("%s failed: CUDA error %d" % (what, rc))


def ptx_entry_params(ptx, name):
    """The parameter types (.u64, .u32, .f32 ...) of entry `name` in PTX text."""
    import re
    m = re.search(r"\.entry\s+%s\s*\((.*?)\)" % re.escape(name), ptx, re.S)
    if not m:
        raise RuntimeError("no .entry %s in the PTX" % name)
    return re.findall(r"\.param\s+\.(\w+)", m.group(1))


class PtxKernel:
    """A kernel loaded from PTX text with cuModuleLoadData (the driver
    compiles it for the current GPU) and launched with cuLaunchKernel."""

    def __init__(self, ptx, name, shared, num_warps):
        cu = _driver()
        self.mod = ctypes.c_void_p()
        data = ptx.encode() + b"\0"
        _check("cuModuleLoadData", cu.cuModuleLoadData(ctypes.byref(self.mod), ctypes.c_char_p(data)))
        self.fn = ctypes.c_void_p()
        _check("cuModuleGetFunction", cu.cuModuleGetFunction(ctypes.byref(self.fn), self.mod, name.encode()))
        if shared > 48 * 1024:  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            _check("cuFuncSetAttribute", cu.cuFuncSetAttribute(self.fn, 8, ctypes.c_int(shared)))
        self.types = ptx_entry_params(ptx, name)
        self.shared = shared
        self.threads = 32 * num_warps

    def launch(self, grid, values):
        if len(values) != len(self.types):
            raise RuntimeError("%d arguments for %d PTX parameters" % (len(values), len(self.types)))
        ct = {"u64": ctypes.c_uint64, "b64": ctypes.c_uint64, "s64": ctypes.c_int64, "u32": ctypes.c_uint32,
              "b32": ctypes.c_uint32, "s32": ctypes.c_int32, "f32": ctypes.c_float, "f64": ctypes.c_double,
              "u16": ctypes.c_uint16, "b16": ctypes.c_uint16, "u8": ctypes.c_uint8, "b8": ctypes.c_uint8}
        holders = [ct[t](v) for t, v in zip(self.types, values)]
        params = (ctypes.c_void_p * max(1, len(holders)))(*[ctypes.cast(ctypes.byref(h), ctypes.c_void_p)
                                                               for h in holders])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        cu = _driver()
        return cu.cuLaunchKernel(self.fn, grid[0], grid[1], grid[2], self.threads, 1, 1, self.shared, stream,
                                 params, None)


def triton_sm80(root, inst, args):
    """Triton's build of the case's kernel for sm_80 (target cuda:80, the
    same specialization its JIT gives this launch), as PTX loaded by the
    driver for the GPU at hand. Returns a launch callable."""
    from triton.backends.compiler import GPUTarget
    from triton.runtime import driver
    # a JITFunction of its own: Triton caches the target per function
    path = os.path.join(root, inst["file"])
    clean = os.path.join(_tmp, "sm80_%d.py" % len(_modules))
    with open(clean, "w") as f:
        f.write(cases.clean_source(path))
    spec = importlib.util.spec_from_file_location("gpu_case_sm80_%d" % len(_modules), clean)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _modules[clean] = mod
    k = getattr(mod, inst["kernel"])
    while not isinstance(k, triton.runtime.jit.JITFunction) and hasattr(k, "fn"):
        k = k.fn
    active = driver.active
    real = active.get_current_target
    active.get_current_target = lambda: GPUTarget("cuda", 80, 32)
    try:
        extra = triton_options(inst)
        ck = k.warmup(*args.triton, grid=args.grid, **dict(inst["constexprs"], num_warps=inst["num_warps"]), **extra)
    finally:
        active.get_current_target = real
    ptx = ck.asm["ptx"]
    md = ck.metadata
    keep = os.environ.get("TILE_SM80_PTX_DIR")
    if keep:  # for bench/sass.py
        os.makedirs(keep, exist_ok=True)
        with open(os.path.join(keep, inst["id"] + ".ptx"), "w") as f:
            f.write(ptx)
    if getattr(md, "global_scratch_size", 0):
        raise RuntimeError("Triton's sm_80 build needs global scratch memory")
    name = md.name
    pk = PtxKernel(ptx, name, md.shared, md.num_warps)
    # runtime arguments in order; Triton may drop integers it specialized
    # to 1 (constants in its signature) and appends its scratch pointers
    rt = list(args.triton)
    vals = match_ptx_args(rt, pk.types)
    grid = args.grid

    def launch():
        rc = pk.launch(grid, vals)
        if rc != 0:
            raise RuntimeError("cuLaunchKernel failed: CUDA error %d" % rc)
    launch.ptx = ptx
    launch.regs_note = "shared %d" % md.shared
    return launch


def expand_descriptors(rt):
    """Triton's code for a target without TMA takes a host-side
    TensorDescriptor as its launcher decomposes it: the base, the shape and
    strides (64-bit), the NaN-padding flag, then the shape (32-bit) and the
    strides again."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    out = []
    for a in rt:
        if isinstance(a, TensorDescriptor):
            out += [a.base, *a.shape, *a.strides, int(a.padding == "nan"), *a.shape, *a.strides]
        else:
            out.append(a)
    return out


def match_ptx_args(rt, types):
    """Values for a PTX entry's parameters from the runtime arguments
    (descriptors expanded): all but the integers equal to 1 (which Triton's
    JIT specializes away) or else all of them, then 0 for up to two trailing
    pointer parameters (Triton's global and profile scratch); each tensor
    must meet a 64-bit parameter, each float an f32. Dropped ones are tried
    first: with a 1 among 8 arguments and two scratch pointers, all 8 plus
    one pointer fit the same 9 parameters, the last integer taken for a
    pointer."""
    rt = expand_descriptors(rt)

    def fits(a, t):
        if isinstance(a, torch.Tensor):
            return t in ("u64", "b64", "s64")
        if isinstance(a, float):
            return t == "f32"
        return t in ("u8", "b8", "s8", "u32", "b32", "s32", "u64", "b64", "s64")
    kept = [a for a in rt if isinstance(a, (torch.Tensor, float)) or a != 1]
    for cand in (kept, rt):
        for extra in (2, 1, 0):
            if len(cand) + extra != len(types):
                continue
            if all(fits(a, t) for a, t in zip(cand, types)) and all(
                    t in ("u64", "b64") for t in types[len(cand):]):
                return [a.data_ptr() if isinstance(a, torch.Tensor) else a for a in cand] + [0] * extra
    raise RuntimeError("cannot match %d arguments to the %d PTX parameters (%s)"
                       % (len(rt), len(types), " ".join(types)))


def cublas_fn(kind, args):
    """The library call computing the same product as a benchmark case, on
    its first two tensor arguments (a host-side descriptor's tensor counts)."""
    tensors = [getattr(t, "base", t) for t in args.triton]  # a TensorDescriptor's tensor
    a, b = [t for t in tensors if isinstance(t, torch.Tensor)][:2]
    if kind == "mm":
        if a.dtype == torch.float32:
            torch.backends.cuda.matmul.allow_tf32 = True
        return lambda: torch.matmul(a, b)
    if kind == "bmm":
        return lambda: torch.bmm(a, b)
    if kind == "int_mm":
        return lambda: torch._int_mm(a, b)
    if kind == "mm_nt":  # b is [N, K] (tutorial 09's descriptors)
        return lambda: torch.matmul(a, b.t())
    if kind == "int_mm_nt":  # b is [N, K]: a linear layer's weights
        return lambda: torch._int_mm(a, b.t())
    raise ValueError(kind)
