"""launch.py - one kernel launch, read as tilec will need it.

Design: the hooks (hooks.py) hand over what Triton itself had at the
launch: the JITFunction, the arguments bound to its parameters, the launch
options, the grid, and the autotuner and heuristics the launch went
through (or, for a kernel torch.compile generated, Inductor's
CachingAutotuner and the config it launched). kernel_info() reads what
does not change from launch to launch once per kernel (its file, its
parameters, whether tilec can read its autotune configs and heuristics
from the source); spec() reads one launch: per runtime parameter the
signature type and the hint Triton 3.6's specialization gave it (`:16`
for an integer divisible by 16 or a 16-byte aligned tensor, `:1` for an
integer equal to 1, none under do_not_specialize; none for floats and
bools), every constexpr as -D text, the options, the autotune config and
key, and the grid as a tilec -g expression where one reproduces
Triton's grid. Both are plain dicts: the JSON record holds them as they are.
"""
import ast
import os

from . import pyexpr

# torch and Triton dtype names -> Triton's signature names
DTYPES = {"float32": "fp32", "float": "fp32", "float16": "fp16", "half": "fp16", "bfloat16": "bf16",
          "float64": "fp64", "double": "fp64", "int8": "i8", "int16": "i16", "int32": "i32", "int": "i32",
          "int64": "i64", "long": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
          "bool": "i1", "int1": "i1", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
          "float8_e4m3fnuz": "fp8e4b8", "float8_e5m2fnuz": "fp8e5b16"}
# what tilec takes as a pointer's element type (docs/LANGUAGE.md)
TILEC_POINTEES = {"fp32", "fp16", "bf16", "fp64", "i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
                  "fp8e4nv", "fp8e5"}
# Triton dtype names -> the tl. name -D takes
TL_NAMES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64", "fp8e4nv": "float8e4nv",
            "fp8e5": "float8e5", "fp8e4b15": "float8e4b15", "i1": "int1"}
# Triton's launch defaults on NVIDIA GPUs, and tilec's
DEFAULT_OPTIONS = {"num_warps": 4, "num_stages": 3, "num_ctas": 1, "maxnreg": None}


def dtype_name(dtype):
    """fp32 for torch.float32, tl.float32 or "float32"."""
    name = getattr(dtype, "name", None)
    if not isinstance(name, str):
        name = str(dtype).split(".")[-1]
    return DTYPES.get(name, name)


def unwrap(v):
    """A tl.constexpr's value."""
    while type(v).__name__ == "constexpr" and hasattr(v, "value"):
        v = v.value
    return v


def constexpr_text(v):
    """(-D text, problem) for a constexpr value."""
    v = unwrap(v)
    if isinstance(v, str) and "'" in v and '"' in v:
        return None, "a string with both quote characters, which a manifest field cannot hold"
    if v is None or isinstance(v, (bool, int, str)):
        return repr(v), None
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return None, "%r is not a Python literal -D takes" % v
        return repr(v), None
    if type(v).__name__ == "dtype" and hasattr(v, "name"):  # tl.float16
        n = TL_NAMES.get(v.name, v.name)
        return "tl." + n, None
    if hasattr(v, "arg_names") or type(v).__name__ == "JITFunction":
        return None, "a @triton.jit function (%s): -D takes literals and dtypes" % getattr(v, "__name__", "?")
    return None, "a %s: -D takes literals and dtypes" % type(v).__name__


def _source_decorators(tree, name, line):
    """The decorators of the def of name starting at line (its first
    decorator's line), or None."""
    for n in ast.walk(tree) if tree is not None else ():
        if isinstance(n, ast.FunctionDef) and n.name == name and \
                min([n.lineno] + [d.lineno for d in n.decorator_list]) == line:
            return n.decorator_list
    return None


def _call_arg(call, kw, pos):
    for k in call.keywords:
        if k.arg == kw:
            return k.value
    return call.args[pos] if len(call.args) > pos else None


def config_dict(c):
    """A triton.Config as JSON."""
    return {"kwargs": {k: constexpr_text(v)[0] for k, v in getattr(c, "kwargs", {}).items()},
            "num_warps": getattr(c, "num_warps", 4), "num_stages": getattr(c, "num_stages", 3),
            "num_ctas": getattr(c, "num_ctas", 1), "maxnreg": getattr(c, "maxnreg", None)}


def param_list(jit):
    """[(name, is_constexpr, do_not_specialize, do_not_specialize_on_alignment, annotation_type)]"""
    out = []
    for p in jit.params:
        out.append((p.name, bool(p.is_constexpr), bool(getattr(p, "do_not_specialize", False)),
                    bool(getattr(p, "do_not_specialize_on_alignment", False)),
                    getattr(p, "annotation_type", "") or ""))
    return out


def _kinds(params, values):
    kinds = {}
    for name, is_cx, _, _, _ in params:
        v = unwrap(values.get(name))
        if is_cx:
            kinds[name] = "constexpr" if isinstance(v, (int, bool)) else "other"
        elif isinstance(v, bool):
            kinds[name] = "bool"
        elif isinstance(v, int):
            kinds[name] = "int"
        elif isinstance(v, float):
            kinds[name] = "float"
        elif hasattr(v, "data_ptr"):
            kinds[name] = "pointer"
        else:
            kinds[name] = "other"
    return kinds


_tunes = {}  # id(autotuner) -> (autotuner, its part of kernel_ident)


def kernel_ident(launch):
    """What tells kernels apart in the record: the def, and the autotune
    configs and heuristics a launch goes through (one def may be launched
    plain and through an autotuner a program applies to it)."""
    tune = ""
    at = launch.autotuner
    if at is not None:
        if id(at) not in _tunes:  # the autotuner is held, so its id stays its own
            _tunes[id(at)] = (at, repr(([config_dict(c) for c in at.configs], list(at.keys))))
        tune = _tunes[id(at)][1]
    heur = sorted(n for h in launch.heuristics for n in h.values)
    return "%s:%s:%d:%s:%s:%s" % (launch.origin, launch.file, launch.line, launch.name, tune, ",".join(heur))


def kernel_info(launch):
    """What a kernel is, as JSON: read at its first launch."""
    jit, autotuner, heuristics, values = launch.jit, launch.autotuner, launch.heuristics, launch.values
    path = launch.file
    params = param_list(jit)
    info = {"ident": kernel_ident(launch), "name": launch.name, "file": path, "line": launch.line,
            "origin": launch.origin, "params": [{"name": p[0], "constexpr": p[1]} for p in params],
            "autotune": None, "heuristics": {}, "problem": None, "inductor": launch.inductor}
    tree = pyexpr.parse_file(path)
    decorators = _source_decorators(tree, launch.name, launch.line)
    if not os.path.isfile(path) or decorators is None:
        info["problem"] = "its source file %s cannot be read" % path
        decorators = decorators or []
    if autotuner is not None:
        configs = list(autotuner.configs)
        in_source, note = False, "the configs are built by host code, not a literal list tilec reads"
        for d in decorators:
            if isinstance(d, ast.Call) and pyexpr._callee(d.func) == "autotune":
                lst = _call_arg(d, "configs", 0)
                if isinstance(lst, ast.List) and all(isinstance(e, ast.Call) and pyexpr._callee(e.func) == "Config"
                                                    for e in lst.elts):
                    in_source = len(lst.elts) == len(configs)
                    note = "" if in_source else "the source lists %d configs, Triton ran %d" % (
                        len(lst.elts), len(configs))
        if not any(isinstance(d, ast.Call) and pyexpr._callee(d.func) == "autotune" for d in decorators):
            note = "autotune is applied by host code, not by a decorator in the source"
        info["autotune"] = {"configs": [config_dict(c) for c in configs], "key": list(autotuner.keys),
                            "in_source": in_source, "note": note,
                            "uses": sorted({k for c in configs for k in getattr(c, "kwargs", {})})}
    source_heur = set()
    for d in decorators:
        if isinstance(d, ast.Call) and pyexpr._callee(d.func) == "heuristics":
            dct = _call_arg(d, "values", 0)
            if isinstance(dct, ast.Dict):
                source_heur |= {k.value for k in dct.keys if isinstance(k, ast.Constant)}
    kinds = _kinds(params, values)
    for h in heuristics:
        for name, fn_h in h.values.items():
            src = ""
            try:
                node = pyexpr.function_node(fn_h)
                src = ast.unparse(node)
                mode, reason = pyexpr.heuristic_mode(node, kinds)
            except pyexpr.Untranslatable as e:
                mode, reason = "fixed", "its lambda cannot be read: %s" % e
            if name not in source_heur:
                mode, reason = "fixed", "not a @triton.heuristics of the source"
            info["heuristics"][name] = {"mode": mode, "reason": reason, "source": src}
    return info


def arg_type(value, param):
    """(type, hint, problem) of a runtime argument, as Triton 3.6 specializes it."""
    name, _, dns, dnsoa, ann = param
    if value is None:
        return None, "", "None passed for runtime parameter `%s` (tilec takes a type for every runtime " \
                         "parameter; Triton makes it a constexpr)" % name
    hint = ""
    if isinstance(value, bool):
        t = "i1"
    elif isinstance(value, int):
        t = "i32" if -2**31 <= value < 2**31 else "u64" if value >= 2**63 else "i64"
        if not dns:
            if value == 1 and not ann:
                hint = ":1"
            elif value % 16 == 0 and not dnsoa:
                hint = ":16"
    elif isinstance(value, float):
        t = "fp32"
    elif hasattr(value, "data_ptr"):
        elem = dtype_name(value.dtype)
        if elem not in TILEC_POINTEES:
            return None, "", "`%s` points to %s, a type tilec has no pointers to" % (name, elem)
        t = "*" + elem
        if not dns and not dnsoa and value.data_ptr() % 16 == 0:
            hint = ":16"
    elif hasattr(value, "block_shape") and hasattr(value, "base"):  # TensorDescriptor
        t = "tensordesc<%s[%s]>" % (dtype_name(value.base.dtype), ", ".join(str(int(b)) for b in value.block_shape))
        if int(value.shape[-1]) % 16 == 0:
            hint = ":16"
    else:
        return None, "", "`%s` is a %s, which tilec cannot pass" % (name, type(value).__name__)
    if ann:  # an annotated parameter keeps its annotated type; Triton specializes no float or bool
        t = "i1" if ann == "u1" else ann.replace("*k", "*")
        if ann == "u1" or ann.lstrip("*k")[:2] in ("fp", "bf"):
            hint = ""
    return t, hint, None


def arg_sample(value):
    """What the JSON keeps of an argument: a tensor's dtype and shape, a scalar's value."""
    if hasattr(value, "data_ptr"):
        out = {"dtype": str(value.dtype).split(".")[-1], "shape": [int(s) for s in value.shape]}
        if hasattr(value, "stride"):
            try:
                out["strides"] = [int(s) for s in value.stride()]
            except TypeError:
                pass
        return out
    if hasattr(value, "block_shape") and hasattr(value, "base"):
        return {"dtype": str(value.base.dtype).split(".")[-1], "shape": [int(s) for s in value.shape],
                "block": [int(b) for b in value.block_shape]}
    if isinstance(value, (bool, int, float)) or value is None:
        return {"value": value}
    return {"type": type(value).__name__}


def int_values(params, values):
    """The integer parameters and constexprs a grid expression may name."""
    out = {}
    for name, *_ in params:
        v = unwrap(values.get(name))
        if type(v) is int:
            out[name] = v
    return out


def spec(info, launch):
    """One launch (a hooks.Launch) as JSON; the recorder counts them and
    collects their autotune keys and samples."""
    types, hints, samples, problems = [], [], [], []
    constexprs = {}
    for p in launch.params:
        v = launch.values.get(p[0])
        if p[1]:
            text, problem = constexpr_text(v)
            constexprs[p[0]] = text
            if problem:
                problems.append("constexpr `%s` is %s" % (p[0], problem))
            continue
        t, h, problem = arg_type(v, p)
        if t and p[0] in launch.declared:  # Inductor's signature: what it compiled
            t = launch.declared[p[0]]
        types.append(t)
        hints.append(h)
        samples.append(arg_sample(v))
        if problem:
            problems.append(problem)
    if info.get("problem"):
        problems.append(info["problem"])
    opts = {k: launch.options.get(k, d) for k, d in DEFAULT_OPTIONS.items()}
    extra = {k: repr(v) for k, v in launch.options.items() if k not in DEFAULT_OPTIONS and k != "debug"}
    key = None
    if launch.autotuner is not None:
        ints = int_values([p for p in launch.params if not p[1]], launch.values)
        key = {k: ints[k] for k in launch.autotuner.keys if k in ints}
    return {"types": types, "hints": hints, "constexprs": constexprs, "options": opts, "launch_options": extra,
            "config": launch.config, "key": key, "grid_expr": launch.grid_expr, "grid_note": launch.grid_note,
            "problems": problems, "sample": {"args": samples, "grid": list(launch.grid) if launch.grid else None}}
