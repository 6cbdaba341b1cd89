"""hooks.py - where tile-capture watches Triton launch kernels.

Design: Triton 3.6 launches every @triton.jit kernel through
JITFunction.run(*args, grid=..., warmup=..., **kwargs); @triton.autotune and
@triton.heuristics wrap it in Autotuner.run and Heuristics.run, which call
the wrapped kernel's run with the picked config's kwargs and options, or
with the heuristics' values, added to the arguments. install() replaces
these methods on their classes, and Autotuner._bench, whose launches are
the autotuner's measurements rather than the program's: the wrappers keep
a per-thread stack of the autotuners and heuristics a launch runs under,
and each real launch goes to the listener as listener.launch(tensors,
build, call): `call` runs Triton's own method, `build` reads the launch
(a Launch) while the caller's frame is still there to read the grid's
source from. Kernels torch.compile generates do not go through
JITFunction.run: Inductor's CachingAutotuner.run launches a compiled
binary itself, after choosing its config, so its run is wrapped as well,
as soon as Inductor's module is imported (torch itself is never imported
here); such a launch also notes what of torch the generated file needs
beside it (_torch_sources). uninstall() puts every original method back.
"""
import ast
import importlib.abc
import inspect
import os
import sys
import threading
import types

from . import launch as L
from . import pyexpr

INDUCTOR = "torch._inductor.runtime.triton_heuristics"

_tls = threading.local()
_listener = None
_saved = []  # (class, attribute, what its __dict__ held)
_skip_dirs = ()
_signatures = {}


class Launch:
    """One launch: the kernel, every parameter's value, the options, the
    grid (3 ints, or None where it could not be evaluated) and its tilec
    expression or why there is none, and what autotune and heuristics
    chose."""

    def __init__(self, origin, jit, where, values, options, grid, grid_expr, grid_note, autotuner=None, config=None,
                 heuristics=(), declared=None, inductor=None):
        self.origin = origin
        self.jit = jit
        self.file, self.name, self.line = where  # the def: its file, name and first line
        self.params = L.param_list(jit)
        self.values = values
        self.options = options
        self.grid = grid
        self.grid_expr = grid_expr
        self.grid_note = grid_note
        self.autotuner = autotuner
        self.config = config
        self.heuristics = list(heuristics)
        self.declared = declared or {}
        self.inductor = inductor


def _stack():
    s = getattr(_tls, "stack", None)
    if s is None:
        s = _tls.stack = []
    return s


def _patch(cls, attr, make):
    _saved.append((cls, attr, cls.__dict__.get(attr)))
    setattr(cls, attr, make(getattr(cls, attr)))


def install(listener):
    """Starts handing launches to listener (one listener at a time)."""
    global _listener, _skip_dirs
    if _listener is not None:
        raise RuntimeError("tile-capture is already capturing")
    import triton
    from triton.runtime import autotuner as A
    from triton.runtime import jit as J
    _listener = listener
    _skip_dirs = tuple(os.path.dirname(os.path.abspath(f)) + os.sep for f in (triton.__file__, __file__))
    _patch(J.JITFunction, "run", _jit_run)
    _patch(A.Autotuner, "run", lambda orig: _pushing("autotune", orig))
    _patch(A.Autotuner, "_bench", _benching)
    _patch(A.Heuristics, "run", lambda orig: _pushing("heuristics", orig))
    if INDUCTOR in sys.modules:
        _patch_inductor(sys.modules[INDUCTOR])
    else:
        sys.meta_path.insert(0, _FINDER)


def uninstall():
    global _listener
    _listener = None
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    while _saved:
        cls, attr, old = _saved.pop()
        if old is None:
            delattr(cls, attr)
        else:
            setattr(cls, attr, old)


def _pushing(kind, orig):
    def run(self, *args, **kwargs):
        stack = _stack()
        stack.append((kind, self))
        try:
            return orig(self, *args, **kwargs)
        finally:
            stack.pop()
    return run


def _benching(orig):
    def bench(self, *args, **kwargs):
        stack = _stack()
        stack.append(("bench", self))
        try:
            return orig(self, *args, **kwargs)
        finally:
            stack.pop()
    return bench


def _tensors(args, kwargs):
    return [v for v in list(args) + list(kwargs.values()) if hasattr(v, "data_ptr")]


def _jit_run(orig):
    def run(self, *args, **kwargs):
        listener = _listener
        stack = list(_stack())
        if listener is None or kwargs.get("warmup") or any(k == "bench" for k, _ in stack):
            return orig(self, *args, **kwargs)
        frame = _caller()
        try:
            return listener.launch(_tensors(args, kwargs), lambda: _jit_launch(self, args, kwargs, stack, frame),
                                   lambda: orig(self, *args, **kwargs))
        finally:
            del frame  # no cycle through the frame
    return run


def _caller():
    """The first frame outside Triton and tile-capture: the program's launch."""
    f = sys._getframe(2)
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(_skip_dirs):
        f = f.f_back
    return f


def _reaches(wrapper, jit):
    """Whether an autotuner's or heuristics' chain of .fn ends at jit."""
    fn = wrapper
    for _ in range(16):
        fn = getattr(fn, "fn", None)
        if fn is jit:
            return True
        if fn is None:
            return False
    return False


def _bind(jit, args, kwargs):
    """Every parameter's value, as Triton's binder gives them (defaults applied)."""
    sig = _signatures.get(id(jit.fn))
    if sig is None:
        sig = _signatures[id(jit.fn)] = inspect.signature(jit.fn)
    names = set(sig.parameters)
    bound = sig.bind(*args, **{k: v for k, v in kwargs.items() if k in names})
    bound.apply_defaults()
    return dict(bound.arguments)


def _grid3(g):
    g = tuple(g) if isinstance(g, (tuple, list)) else (g,)
    if not 1 <= len(g) <= 3:
        raise ValueError("a grid of %d dimensions" % len(g))
    return tuple(int(x) for x in g) + (1,) * (3 - len(g))


def _jit_launch(jit, args, kwargs, stack, frame):
    values = _bind(jit, args, kwargs)
    options = {k: v for k, v in kwargs.items() if k not in values and k not in ("grid", "warmup")}
    autotuner = next((w for kind, w in reversed(stack) if kind == "autotune" and _reaches(w, jit)), None)
    heuristics = [w for kind, w in stack if kind == "heuristics" and _reaches(w, jit)]
    config = None
    if autotuner is not None:
        best = getattr(autotuner, "best_config", None)
        configs = list(autotuner.configs)
        config = next((i for i, c in enumerate(configs) if c is best), None)
        if config is None and best in configs:
            config = configs.index(best)
    grid = kwargs.get("grid")
    try:
        actual = _grid3(grid(values) if callable(grid) else grid)
    except Exception:
        actual = None
    expr, note = _grid_expr(jit, values, grid, actual, frame)
    code = jit.fn.__code__
    where = (os.path.abspath(code.co_filename), code.co_name, code.co_firstlineno)
    return Launch("jit", jit, where, values, options, actual, expr, note, autotuner, config, heuristics)


def _grid_expr(jit, values, grid, actual, frame):
    """(tilec grid expression, note) or (None, why not)."""
    params = L.param_list(jit)
    names = [p[0] for p in params]
    ints = L.int_values(params, values)
    site = pyexpr.call_site(frame, jit.fn.__name__) if frame is not None else None
    argmap = {}
    if site:
        for k, e in site[1].items():
            name = names[k] if isinstance(k, int) and k < len(names) else k
            if isinstance(name, str):
                argmap[pyexpr.dump(e)] = name
    meta = None
    if callable(grid):
        try:
            fnode = pyexpr.function_node(grid)
            node = pyexpr.returned_expr(fnode)
        except pyexpr.Untranslatable as e:
            return None, "the grid function: %s" % e
        meta = fnode.args.args[0].arg if fnode.args.args else None
        cells = dict(zip(grid.__code__.co_freevars, grid.__closure__ or ()))

        def lookup(name):
            if name in cells:
                try:
                    return True, cells[name].cell_contents, False
                except ValueError:
                    return False, None, False
            if name in grid.__globals__:
                return True, grid.__globals__[name], True
            return False, None, False
    else:
        if site is None:
            return None, "no `kernel[grid](...)` call found where the program launched it"
        node = site[0]
        if isinstance(node, ast.Name):  # grid = (...) on a line above
            node = pyexpr.single_assignment(site[2], node.id, frame.f_lineno) or node
        local, glob = frame.f_locals, frame.f_globals

        def lookup(name):
            if name in local:
                return True, local[name], False
            if name in glob:
                return True, glob[name], True
            return False, None, False
    env = pyexpr.GridEnv(ints, meta, argmap, lookup)
    try:
        text = pyexpr.translate(node, env)
    except pyexpr.Untranslatable as e:
        return None, str(e)
    if actual is None:
        return None, "Triton's grid could not be evaluated to check %s" % text
    problem = pyexpr.check_grid(text, ints, actual)
    if problem:
        return None, problem
    return text, "; ".join(env.notes)


# --- Inductor ---------------------------------------------------------------

class _Finder(importlib.abc.MetaPathFinder):
    """Wraps CachingAutotuner.run as Inductor's module is imported."""

    def find_spec(self, name, path, target=None):
        if name != INDUCTOR:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _Loader(spec.loader)
                return spec
        return None


class _Loader(importlib.abc.Loader):
    """The module's own loader, patching CachingAutotuner once the module ran."""

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):  # get_source, get_filename, ...: the inner loader's
        return getattr(self.inner, name)

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        if _listener is not None:
            _patch_inductor(module)


_FINDER = _Finder()


def _patch_inductor(module):
    cls = getattr(module, "CachingAutotuner", None)
    if cls is not None and not any(c is cls for c, _, _ in _saved):
        _patch(cls, "run", _inductor_run)


def _inductor_run(orig):
    def run(self, *args, **kwargs):
        listener = _listener
        if listener is None or kwargs.get("benchmark_run"):
            return orig(self, *args, **kwargs)
        return listener.launch(_tensors(args, {}), lambda: _inductor_launch(self, args),
                               lambda: orig(self, *args, **kwargs))
    return run


def _inductor_where(ca, jit):
    """(file, name, first line) of a generated kernel. An autotuner Inductor
    restored from its cache keeps the JITFunction without its function: the
    def is then found in the file the autotuner names."""
    if getattr(jit, "fn", None) is not None:
        code = jit.fn.__code__
        return os.path.abspath(code.co_filename), code.co_name, code.co_firstlineno
    path = os.path.abspath(ca.filename)
    name = getattr(jit, "__name__", None) or ca.inductor_meta.get("kernel_name")
    for node in ast.walk(pyexpr.parse_file(path) or ast.Module(body=[])):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return path, name, min([node.lineno] + [d.lineno for d in node.decorator_list])
    raise LookupError("no def %s in %s" % (name, path))


def _inductor_launch(ca, args):
    jit = ca.fn
    where = _inductor_where(ca, jit)
    launchers = getattr(ca, "launchers", None) or []
    cfg = launchers[0].config if len(launchers) == 1 else ca.configs[0]
    params = L.param_list(jit)
    runtime = [p[0] for p in params if not p[1]]
    values = dict(zip(runtime, args))  # extra launcher arguments follow the kernel's: dropped
    for k, v in (ca.triton_meta.get("constants") or {}).items():
        if isinstance(k, str) and k not in values:
            values[k] = v
    values.update(cfg.kwargs)
    for p in jit.params:
        default = getattr(p, "default", inspect.Parameter.empty)
        if p.name not in values and default is not inspect.Parameter.empty:
            values[p.name] = default
    options = {"num_warps": cfg.num_warps, "num_stages": cfg.num_stages,
               "num_ctas": getattr(cfg, "num_ctas", 1) or 1, "maxnreg": getattr(cfg, "maxnreg", None)}
    declared = {k: v for k, v in (ca.triton_meta.get("signature") or {}).items()
                if isinstance(k, str) and isinstance(v, str) and v != "constexpr"}
    try:
        actual = _grid3(ca._interpret_args_grid(tuple(args), cfg)[1])
    except Exception:
        actual = None
    grid_type = ca.inductor_meta.get("grid_type")
    ints = L.int_values(params, values)
    expr, note = None, ""
    try:
        expr = _inductor_grid(grid_type, ints)
        if actual is not None:
            problem = pyexpr.check_grid(expr, ints, actual)
            if problem:
                expr, note = None, problem
        else:
            note = "Inductor's grid for %s, not checked against a launch" % grid_type
    except pyexpr.Untranslatable as e:
        note = str(e)
    if actual is None and expr is not None:
        actual = pyexpr.evaluate(expr, ints)
    inductor = {"grid_type": grid_type, "kernel_name": ca.inductor_meta.get("kernel_name", where[1])}
    inductor.update(_torch_sources(where[0]))
    return Launch("inductor", jit, where, values, options, actual, expr, note, declared=declared, inductor=inductor)


def _inductor_grid(grid_type, ints):
    """Inductor's Grid1D/2D/3D: cdiv(xnumel, XBLOCK) per dimension (the
    numel alone where the config has no block for it)."""
    dims = {"Grid1D": "x", "Grid2D": "xy", "Grid3D": "xyz"}.get(grid_type)
    if dims is None:
        raise pyexpr.Untranslatable("Inductor's %s grid is computed by its launcher" % grid_type)
    out = []
    for d in dims:
        numel, block = d + "numel", d.upper() + "BLOCK"
        if numel not in ints:
            raise pyexpr.Untranslatable("Inductor's %s grid reads %s, which is no integer parameter"
                                        % (grid_type, numel))
        out.append("cdiv(%s, %s)" % (numel, block) if block in ints else numel)
    return ", ".join(out)


def _source_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _binding(name, value):
    """The statement that binds name to value in a module tilec reads: a
    Triton module or object by its path, a literal as itself; else None."""
    as_name = lambda leaf: "" if leaf == name else " as " + name  # noqa: E731
    if isinstance(value, types.ModuleType):
        if value.__name__.split(".")[0] != "triton":
            return None
        parent, _, leaf = value.__name__.rpartition(".")
        return ("from %s import %s%s" % (parent, leaf, as_name(leaf))) if parent else \
            "import %s%s" % (leaf, as_name(leaf))
    if value is None or isinstance(value, (bool, int, float, str)):
        return "%s = %r" % (name, value)
    mod, leaf = getattr(value, "__module__", None), getattr(value, "__name__", None)
    if isinstance(mod, str) and isinstance(leaf, str) and mod.split(".")[0] == "triton":
        return "from %s import %s%s" % (mod, leaf, as_name(leaf))
    return None


def _imports(tree, modname):
    """(absolute module, [(name, as name)] or None) per top-level import;
    relative imports resolved against modname."""
    out = []
    for node in getattr(tree, "body", []):
        if isinstance(node, ast.Import):
            out += [(a.name, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                if not modname:
                    continue
                pkg = modname.split(".")[:-node.level]
                base = ".".join(pkg + ([node.module] if node.module else []))
            out.append((base, [(a.name, a.asname or a.name) for a in node.names]))
    return out


_sources = {}  # generated file -> _torch_sources(file)


def _torch_sources(path):
    """What a generated kernel file needs of torch beyond Inductor's cache:
    {"helpers": {module: file}} for the torch modules holding @triton.jit
    helpers it imports (triton_helpers), and {"stubs": {module: [statement]}}
    for the host modules those import names from (triton_compat picks
    Triton's modules at import: the stub binds what it bound here)."""
    helpers, stubs = {}, {}
    todo = [(path, None)]
    while todo:
        f, modname = todo.pop()
        for target, names in _imports(pyexpr.parse_file(f), modname):
            if target.split(".")[0] != "torch":
                continue
            for m in [target] + [target + "." + n for n, _ in names or () if target + "." + n in sys.modules]:
                live = sys.modules.get(m)
                file = getattr(live, "__file__", None)
                if not file or not file.endswith(".py") or m in helpers or m in stubs:
                    continue
                if "@triton.jit" in _source_text(file):
                    helpers[m] = os.path.abspath(file)
                    todo.append((file, m))
                elif modname and m == target and names:  # names a helper takes from a host module
                    lines = [_binding(n, getattr(live, n, None)) for n, _ in names if hasattr(live, n)]
                    if any(lines):
                        stubs[m] = [x for x in lines if x]
    _sources[path] = {"helpers": helpers, "stubs": stubs}
    return _sources[path]
