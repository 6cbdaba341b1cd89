"""emit.py - the record written as a tilec manifest and a tuning file.

Design: a Plan groups each kernel's specializations into launch
functions (Function). tilec gives one launch function one parameter list and picks
among its variants at run time by their :16/:1 hints, by the autotune
config (its tuning table) and by heuristics it evaluates at launch, never
by a constexpr: so launches that differ in a pointer's dtype, a fixed
constexpr or (without an autotune list tilec reads) the options get
launch functions of their own, named after what differs
(add_kernel_fp16), and their hint sets become the variants, most
specialized first. Integer parameters seen as i32 and i64 take the wider
type (Triton compiled the two apart; the results differ only on
overflow). A grid goes in with -g when one of the launches' expressions
reproduces every recorded grid of the group. Specializations tilec cannot
take (None for a runtime parameter, a @triton.jit function as constexpr,
a pointer type it lacks, a source that is gone) are listed with the
reason. Kernels torch.compile generated live in Inductor's cache: their
files, and the torch modules holding @triton.jit helpers they import
(triton_helpers), are copied beside the manifest (NAME.inductor/, with
empty package __init__.py files), so the manifest outlives the cache; a
host module such a helper imports names from (triton_compat) becomes a
stub binding those names as they were bound in the run.
"""
import ast
import collections
import json
import os
import re
import shutil

from . import pyexpr

INTS = ("i32", "i64", "u64")
OPTION_FLAGS = (("num_warps", "-w"), ("num_stages", "-ns"), ("num_ctas", "-nc"), ("maxnreg", "--maxnreg"))


def _literal(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None


def group_key(kernel, spec):
    """What must be equal for two specializations to share a launch function."""
    tune = kernel["autotune"] and kernel["autotune"]["in_source"]
    exclude = set(kernel["autotune"]["uses"]) if tune else set()
    exclude |= {h for h, m in kernel["heuristics"].items() if m["mode"] != "fixed"}
    fixed = [[n, v] for n, v in spec["constexprs"].items() if n not in exclude]
    types = ["int" if t in INTS else t for t in spec["types"]]
    opts = [] if tune else sorted([k, v] for k, v in spec["options"].items())
    return json.dumps([types, fixed, opts])


def _token(text):
    return re.sub(r"[^0-9A-Za-z]+", "_", text.replace("-", "m")).strip("_") or "x"


def group_names(base, keys):
    """base, or base_SUFFIX per group where a kernel has several: the
    dtypes, constexprs and options that tell them apart."""
    if len(keys) == 1:
        return [base]
    feats = []
    for key in keys:
        types, fixed, opts = json.loads(key)
        f = collections.OrderedDict(("t%d" % i, t.lstrip("*")) for i, t in enumerate(types))
        f.update((n, "%s_%s" % (n, _token(v))) for n, v in fixed)
        f.update((k, "%s%s" % (dict(OPTION_FLAGS)[k].lstrip("-"), _token(str(v)))) for k, v in opts)
        feats.append(f)
    names = list(collections.OrderedDict((k, 0) for f in feats for k in f))
    differ = [k for k in names if len({f.get(k) for f in feats}) > 1]
    out = []
    for f in feats:
        toks = []
        for k in differ:
            if f.get(k) and f[k] not in toks:
                toks.append(f[k])
        out.append(base + "_" + "_".join(toks))
    return out


def _unique(name, taken):
    n, i = name, 2
    while n in taken:
        n, i = "%s_%d" % (name, i), i + 1
    taken.add(n)
    return n


def quote(field):
    """A manifest field: quoted where it holds blanks, quotes or '#'."""
    if field and not re.search(r"[\s'\"#]", field):
        return field
    if '"' not in field:
        return '"%s"' % field
    if "'" not in field:
        return "'%s'" % field
    raise ValueError("a manifest field cannot hold both quote characters: %s" % field)


class Function:
    """One launch function: specializations of a kernel that differ only in
    hints, autotune config and heuristics evaluated at launch."""

    def __init__(self, kernel, specs, key, source, generic):
        self.kernel, self.specs, self.key, self.source = kernel, specs, key, source
        self.name = None
        self.refused = None  # tilec's error, where --tilec found one
        self.blob = None  # from tilec inspect: identity, nconfigs, key, {source config: blob config}
        k = kernel
        self.tune = bool(k["autotune"] and k["autotune"]["in_source"])
        self.runtime = [q["name"] for q in k["params"] if not q["constexpr"]]
        self.notes = []
        self.types = []
        for i, name in enumerate(self.runtime):
            seen = [s["types"][i] for s in specs]
            if seen[0] in INTS:
                t = "u64" if "u64" in seen else "i64" if "i64" in seen else "i32"
                if len(set(seen)) > 1:
                    self.notes.append("%s is %s here: Triton saw %s" % (name, t, " and ".join(sorted(set(seen)))))
            else:
                t = seen[0]
            self.types.append(t)
        _, fixed, opts = json.loads(key)
        self.fixed = fixed
        self.options = dict(opts)
        self.heur_values = collections.OrderedDict()
        for h, m in k["heuristics"].items():
            if m["mode"] == "launch-value":
                vals = sorted({s["constexprs"][h] for s in specs}, key=lambda v: (str(type(_literal(v))), _literal(v)))
                self.heur_values[h] = vals
        hints = collections.OrderedDict()
        for s in specs:
            hints.setdefault(tuple(s["hints"]), len(hints))
        if generic:
            hints.setdefault(tuple("" for _ in self.runtime), len(hints))
        self.variants = sorted(hints, key=lambda h: (-sum(1 for x in h if x), hints[h]))
        self.grid, self.grid_note = self._grid()
        extra = sorted({"%s=%s" % kv for s in specs for kv in s["launch_options"].items()})
        if extra:
            self.notes.append("launch options tilec does not take: " + ", ".join(extra))

    def _envs(self):
        """(spec, this launch's integer parameters and constexprs) per sample."""
        for s in self.specs:
            cx = {n: _literal(v) for n, v in s["constexprs"].items()}
            cx = {n: v for n, v in cx.items() if type(v) is int}
            for sample in s["samples"]:
                env = dict(cx)
                for name, a in zip(self.runtime, sample["args"]):
                    if type(a.get("value")) is int:
                        env[name] = a["value"]
                yield s, env, sample["grid"]

    def _grid(self):
        candidates = []
        for s in self.specs:
            if s["grid_expr"] and s["grid_expr"] not in candidates:
                candidates.append(s["grid_expr"])
        for c in candidates:
            if all(g is not None and pyexpr.check_grid(c, env, g) is None for _, env, g in self._envs()):
                return c, ""
        notes = [s["grid_note"] for s in self.specs if not s["grid_expr"] and s["grid_note"]]
        if candidates:
            return None, "no one expression gives every launch's grid (%s)" % "; ".join(candidates)
        return None, notes[0] if notes else "no grid expression"

    def signature(self, hints):
        return ", ".join(t + h for t, h in zip(self.types, hints))

    def options_fields(self):
        out = []
        for n, v in self.fixed:
            out += ["-D", "%s=%s" % (n, v)]
        for h, vals in self.heur_values.items():
            out += ["-D", "%s=%s" % (h, ",".join(vals))]
        if self.grid:
            out += ["-g", self.grid]
        for opt, flag in OPTION_FLAGS:
            v = self.options.get(opt)
            if v is not None and (opt in ("num_warps", "num_stages") or v != 1):
                out += [flag, str(v)]
        return out

    def lines(self, path):
        """The manifest lines, one per variant, with the source at path."""
        name = [] if self.name == self.kernel["name"] else ["-on", self.name]
        return [" ".join(quote(f) for f in [path, self.kernel["name"], self.signature(h)] + name +
                         self.options_fields()) for h in self.variants]

    def tuning(self):
        """The table of the configs Triton's autotuner picked: (key names,
        [(key values, source config, count)], default source config,
        conflicts), or None."""
        if not self.tune:
            return None
        ints = {n for n, t in zip(self.runtime, self.types) if t in INTS}
        names = self.blob["key"] if self.blob else [n for n in self.kernel["autotune"]["key"] if n in ints]
        picks = collections.OrderedDict()
        for s in self.specs:
            for k in s["keys"]:
                vals = tuple(k["values"].get(n) for n in names)
                picks.setdefault(vals, collections.Counter())[s["config"]] += k["count"]
        entries, total, conflicts = [], collections.Counter(), []
        for vals, counter in picks.items():
            cfg, n = sorted(counter.items(), key=lambda x: (-x[1], x[0]))[0]
            if len(counter) > 1:
                conflicts.append("key %s ran configs %s; the table takes %d" % (list(vals), sorted(counter), cfg))
            if None not in vals and cfg is not None:
                entries.append((vals, cfg, sum(counter.values())))
            total[cfg] += sum(counter.values())
        default = sorted(total.items(), key=lambda x: (-x[1], x[0] if x[0] is not None else 1 << 30))[0][0]
        return names, entries, default, conflicts


class Plan:
    """The launch functions of a record, and the kernels left out."""

    def __init__(self, rec, manifest, generic=False):
        self.rec = rec
        self.manifest = os.path.abspath(manifest)
        self.dir = os.path.dirname(self.manifest)
        self.copy_dir = os.path.splitext(self.manifest)[0] + ".inductor"
        self.functions = []
        self.skipped = []  # (kernel, {reason: launches})
        self.copies = collections.OrderedDict()  # destination -> source
        self.stubs = collections.OrderedDict()  # destination -> text
        taken = set()
        for k in rec["kernels"]:
            source, problem = self._source(k)
            groups, bad = collections.OrderedDict(), collections.OrderedDict()
            for s in k["specs"]:
                reasons = s["problems"] or ([problem] if problem else [])
                for r in reasons:
                    bad[r] = bad.get(r, 0) + s["count"]
                if not reasons:
                    groups.setdefault(group_key(k, s), []).append(s)
            if bad:
                self.skipped.append((k, bad))
            for (key, specs), name in zip(groups.items(), group_names(k["name"], list(groups))):
                f = Function(k, specs, key, source, generic)
                f.name = _unique(name, taken)
                self.functions.append(f)

    def _source(self, k):
        """(the .py file the manifest names, or why there is none)."""
        if k["origin"] != "inductor":
            if os.path.isfile(k["file"]):
                return k["file"], None
            return None, "its source file %s no longer exists" % k["file"]
        # the cache's file, else the copy an earlier write made (recorded in k["copies"])
        copies = k.setdefault("copies", {})
        inductor = k.get("inductor") or {}
        wanted = [(k["file"], os.path.join(self.copy_dir, os.path.basename(k["file"])))]
        for mod, path in sorted((inductor.get("helpers") or {}).items()):
            wanted.append((path, self._module_path(mod)))
        for i, (orig, dst) in enumerate(wanted):
            src = orig if os.path.isfile(orig) else copies.get(orig)
            if src is None or not os.path.isfile(src):
                if i == 0:
                    return None, "Inductor's source %s is gone (its cache was cleared) and was not copied" % orig
                continue
            self.copies[dst] = src
            copies[orig] = dst
        for mod, lines in sorted((inductor.get("stubs") or {}).items()):
            self.stubs[self._module_path(mod)] = (
                "# written by tile-capture: the names %s bound when the program ran, as tilec reads them\n"
                % mod + "\n".join(lines) + "\n")
        return wanted[0][1], None

    def _module_path(self, mod):
        return os.path.join(self.copy_dir, *mod.split(".")) + ".py"

    def rel(self, path):
        """path relative to the manifest, where they share more than /."""
        r = os.path.relpath(path, self.dir)
        return path if os.path.commonpath([path, self.dir]) == os.sep else r

    def find(self, ident, spec):
        """The launch function a specialization of kernel ident went into."""
        for f in self.functions:
            if f.kernel["ident"] == ident and f.key == group_key(f.kernel, spec):
                return f
        return None

    def copy_sources(self):
        """Writes the copies of generated sources and helpers, and the stubs."""
        for dst in list(self.copies) + list(self.stubs):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            d = os.path.dirname(dst)
            while d != self.copy_dir and d.startswith(self.copy_dir):  # packages for `from torch... import`
                init = os.path.join(d, "__init__.py")
                if not os.path.exists(init):
                    open(init, "w").close()
                d = os.path.dirname(d)
        for dst, src in self.copies.items():
            if os.path.abspath(src) != os.path.abspath(dst):  # written again over its own copies
                shutil.copyfile(src, dst)
        for dst, text in self.stubs.items():
            with open(dst, "w") as f:
                f.write(text)

    # --- the manifest ------------------------------------------------------

    def manifest_text(self, tuning_path=None):
        rec = self.rec
        out = ["# tilec manifest written by tile-capture (docs/CAPTURE.md) from the run of:",
               "#   " + " ".join(rec["program"])]
        if rec["status"] != "ok":
            out.append("# the program %s: the launches before it are here" % rec["status"])
        if tuning_path:
            out.append("# autotune picks: %s (tilec compile -m ... --tuning %s)" % (
                self.rel(os.path.abspath(tuning_path)), self.rel(os.path.abspath(tuning_path))))
        if self.copies:
            out.append("# sources torch.compile generated are copies in %s" % self.rel(self.copy_dir))
        by_kernel = collections.OrderedDict()
        for f in self.functions:
            by_kernel.setdefault(f.kernel["ident"], []).append(f)
        for k in rec["kernels"]:
            fs = by_kernel.get(k["ident"], [])
            skipped = next((bad for kk, bad in self.skipped if kk is k), None)
            out.append("")
            where = "%s:%d" % (self.rel(k["file"]), k["line"])
            launches = sum(s["count"] for s in k["specs"])
            out.append("# %s (%s), %d launch%s%s" % (k["name"], where, launches, "" if launches == 1 else "es",
                                                     ", generated by torch.compile (Inductor %s)"
                                                     % k["inductor"]["kernel_name"] if k["inductor"] else ""))
            at = k["autotune"]
            if at:
                out.append("#   autotune: %d configs, key %s%s" % (
                    len(at["configs"]), ",".join(at["key"]) or "-",
                    ": compiled as tilec's autotune list, picks in the tuning file" if at["in_source"] else
                    ": %s, so each config Triton picked is a launch function of its own" % at["note"]))
            for h, m in k["heuristics"].items():
                out.append("#   heuristic %s: %s" % (h, {
                    "launch-bool": "evaluated at launch (tilec compiles both values)",
                    "launch-value": "evaluated at launch (tilec compiles the values seen, -D)",
                    "fold": "folded by tilec from the constexprs",
                    "fixed": "fixed with -D (%s)" % m["reason"]}[m["mode"]]))
            if skipped:
                for reason, n in skipped.items():
                    out.append("# NOT COMPILED (%d launch%s): %s" % (n, "" if n == 1 else "es", reason))
            for f in fs:
                out += self._function_text(f)
        return "\n".join(out) + "\n"

    def _function_text(self, f):
        out = ["# %s: %d launch%s" % (f.name, sum(s["count"] for s in f.specs),
                                      "" if sum(s["count"] for s in f.specs) == 1 else "es")]
        for i, name in enumerate(f.runtime):
            seen = []
            for s in f.specs:
                for sample in s["samples"]:
                    a = sample["args"][i]
                    text = ("%s%s" % (a["dtype"], a["shape"])) if "dtype" in a else repr(a.get("value"))
                    if text not in seen:
                        seen.append(text)
            out.append("#   %-16s %-10s %s%s" % (name, f.types[i], ", ".join(seen[:8]),
                                                   ", ..." if len(seen) > 8 else ""))
        if f.grid:
            out.append("#   grid: %s" % f.grid)
        else:
            grids = []
            for _, _, g in f._envs():
                if g and g not in grids:
                    grids.append(g)
            out.append("#   grid: the launch function takes grid_x, grid_y, grid_z: %s (Triton launched %s)"
                       % (f.grid_note, ", ".join("(%d, %d, %d)" % tuple(g) for g in grids[:4])))
        for s in f.specs:
            if s["grid_expr"] and s["grid_note"]:
                out.append("#   note: %s" % s["grid_note"])
                break
        for n in f.notes:
            out.append("#   note: %s" % n)
        lines = f.lines(self.rel(f.source))
        if f.refused:
            out.append("# REFUSED by tilec: %s" % f.refused)
            return out + ["# " + x for x in lines]
        return out + lines

    # --- the tuning file ---------------------------------------------------

    def tuning_text(self):
        """The tuning file (docs/TUNING.md), or None without autotuned kernels."""
        blocks = []
        for f in self.functions:
            t = f.tuning()
            if t is None or f.refused:
                continue
            names, entries, default, conflicts = t
            configs = f.kernel["autotune"]["configs"]
            if f.blob:
                nconfigs, ident, to_blob = f.blob["nconfigs"], f.blob["identity"], f.blob["configs"]
            else:
                nconfigs, ident, to_blob = len(configs), "0" * 16, {i: i for i in range(len(configs))}
            if nconfigs < 2:
                blocks.append(["# %s: one config fits, nothing to choose" % f.name])
                continue
            b = ["# %s: configs 0..%d of the blob are the source's autotune configs %s" % (
                f.name, nconfigs - 1, ",".join(str(s) for s, _ in sorted(to_blob.items(), key=lambda x: x[1])))]
            if not f.blob:
                b.append("# identity unknown until the blob is built: written as %s, which tilec refuses;" % ident)
                b.append("# fill it in with tile-capture --from RECORD --tilec TILEC (docs/CAPTURE.md)")
            b += ["# " + c for c in conflicts]
            dflt = to_blob.get(default, 0)
            b.append("kernel %s identity %s configs %d key %s default %d" % (
                f.name, ident, nconfigs, ",".join(names) or "-", dflt))
            for vals, cfg, n in sorted(entries):
                c = configs[cfg]
                what = ", ".join(["%s=%s" % kv for kv in sorted(c["kwargs"].items())] +
                                 ["num_warps=%d" % c["num_warps"], "num_stages=%d" % c["num_stages"]])
                if cfg not in to_blob:
                    b.append("# %s -> autotune config %d (%s), which this blob leaves out"
                             % (" ".join(map(str, vals)), cfg, what))
                    continue
                b.append("%s %d  # %d launch%s: %s" % (" ".join(map(str, vals)), to_blob[cfg], n,
                                                       "" if n == 1 else "es", what))
            blocks.append(b)
        if not blocks:
            return None
        head = ["# written by tile-capture: the configs Triton's autotuner picked running",
                "#   " + " ".join(self.rec["program"]), "tile-tuning 2"]
        return "\n".join(head + [x for b in blocks for x in [""] + b]) + "\n"
