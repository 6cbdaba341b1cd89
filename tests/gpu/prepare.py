"""prepare.py - compile the GPU suite on the build machine (tilec needs LLVM).

For every instance of cases.py: read the kernel's parameter names from its
.py (Python's ast, nothing is executed), run `tilec compile` with the
variants Triton's JIT would specialize at the instance's sizes (integers
equal to 1 as :1, multiples of 16 as :16), plus every pointer and int :16
and pointers only (so that any size finds a variant), and record the
outcome. Writes into OUT (default .gpu):
  cases/ID.c, cases/ID.h   one blob per instance, launch function ID
  race/race.{c,h}          two tier-2 kernels from a manifest (-m), for racecheck
  examples/NAME/*.{c,h}    the examples' generated pairs (from BUILD/examples)
  manifest.json            every instance: file, kernel, parameters and their
                           roles, constexprs, grid, sizes, tolerance, the
                           launch function, and the compile status/diagnostics
  compile.log              tilec's output per instance
A kernel that does not compile stays in the manifest with its error, so the
GPU run reports it as a failure instead of dropping it.
"""
import argparse
import ast
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cases  # noqa: E402

def kernel_params(path, kernel):
    """[(name, is_constexpr)] of a kernel in a .py file, or an error."""
    try:
        tree, found = cases.jit_functions(path)
    except (OSError, SyntaxError) as e:
        return None, "cannot read %s: %s" % (path, e)
    node = found.get(kernel)
    if node is None:  # a kernel that a factory function defines in its body
        node = next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == kernel and
                     any("jit" in ast.unparse(d) for d in n.decorator_list)), None)
    if node is None:
        return None, "%s: no @triton.jit function %s" % (path, kernel)
    return [(a.arg, a.annotation is not None and "constexpr" in ast.unparse(a.annotation))
            for a in node.args.args], None


def desc_type(p, constexprs):
    """Triton's spelling of a descriptor parameter: tensordesc<fp16[64, 64]>."""
    return "tensordesc<%s[%s]>" % (p["dtype"], ", ".join(str(b) for b in cases.desc_block(p, constexprs)))


def signature(params, hint_ints, constexprs=None):
    sig = []
    for p in params:
        t = p["dtype"]
        if p["kind"] == "desc":
            sig.append(desc_type(p, constexprs or {}))
        elif p["kind"] == "tensor":
            sig.append("*%s%s" % (t, ":16"))
        elif hint_ints and t[0] in "iu":
            sig.append("%s:16" % t)
        else:
            sig.append(t)
    return ", ".join(sig)


def triton_signature(inst, size):
    """The signature Triton's JIT specializes a launch at this size to:
    pointers 16-byte aligned (fresh tensors), an integer equal to 1 as :1,
    a multiple of 16 as :16 (harness.Args computes the same values); a
    descriptor whose innermost shape is a multiple of 16 as :16 too (tile's
    hint: Triton takes descriptors as they come)."""
    env = dict(size)
    sig = []
    for p in inst["params"]:
        t = p["dtype"]
        if p["kind"] == "desc":
            inner = eval(str(p["shape"][-1]), {"__builtins__": {}}, env)
            sig.append(desc_type(p, inst["constexprs"]) + (":16" if inner % 16 == 0 else ""))
            continue
        if p["kind"] == "tensor":
            sig.append("*%s%s" % (t, ":16"))
            continue
        v = eval(p["value"], {"__builtins__": {}, "cdiv": lambda a, b: (a + b - 1) // b,
                              "min": min, "max": max}, env)
        env[p["name"]] = v
        hint = ""
        if t[0] in "iu":
            hint = ":1" if v == 1 else ":16" if v % 16 == 0 else ""
        sig.append(t + hint)
    return ", ".join(sig)


def compile_instance(tilec, inst, outdir, arch, keep_ptx=None):
    """None when tilec compiled the instance, else why not; the log text
    goes to inst["log"]. A benchmark with `sm80` is compiled a second time,
    for compute_80 only (PTX the driver compiles for the GPU at hand), as
    launch function ID_sm80."""
    err = compile_one(tilec, inst, outdir, inst.get("arch") or arch, inst["id"], keep_ptx)
    if err is None and inst.get("sm80"):
        log = inst["log"]
        err = compile_one(tilec, inst, outdir, "compute_80", inst["id"] + "_sm80", keep_ptx)
        inst["log"] = log + inst["log"]
        if err is None:
            inst["sm80_launch"] = inst["id"] + "_sm80"
    return err


def name_params(inst):
    """Names the case's parameters after the kernel's runtime parameters;
    None, or why the case does not fit the kernel."""
    names, err = kernel_params(os.path.join(ROOT, inst["file"]), inst["kernel"])
    if err:
        return err
    runtime = [n for n, cx in names if not cx]
    if len(runtime) != len(inst["params"]):
        return "the case lists %d runtime parameters, %s has %d: %s" % (
            len(inst["params"]), inst["kernel"], len(runtime), ", ".join(runtime))
    for p, n in zip(inst["params"], runtime):
        p["name"] = n
    return None


def spec_options(inst):
    """The specialization's options that tilec compile and tilec run take
    alike: warps, cluster, constexprs, import search paths."""
    opts = ["-w", str(inst["num_warps"])]
    if inst.get("num_ctas"):
        opts += ["-nc", str(inst["num_ctas"])]
    for k, v in inst["constexprs"].items():
        opts += ["-D", "%s=%s" % (k, v)]
    for d in inst.get("include_dirs", []):
        opts += ["-I", os.path.join(ROOT, d)]
    return opts


def autotuned(path, kernel):
    """Whether the kernel carries @triton.autotune over a list written out
    (tilec reads it; configs that host code builds it leaves to -D)."""
    node = cases.jit_functions(path)[1].get(kernel)
    for d in node.decorator_list if node is not None else ():
        if isinstance(d, ast.Call) and ast.unparse(d.func).endswith("autotune"):
            configs = [k.value for k in d.keywords if k.arg == "configs"] + d.args[:1]
            return bool(configs) and isinstance(configs[0], ast.List) and \
                all(isinstance(e, ast.Call) and ast.unparse(e.func).endswith("Config") for e in configs[0].elts)
    return False


def compile_options(inst):
    """What tilec compile takes beyond spec_options: stages, registers, the
    case's own flags. A corpus case gives the picked config's values with
    -D, which override every config of an autotuned kernel alike: one
    config is compiled, not the list's copies of it."""
    opts = []
    flags = inst.get("tilec_flags") or []
    if inst.get("project") and "--config" not in flags and autotuned(os.path.join(ROOT, inst["file"]), inst["kernel"]):
        opts += ["--config", "0"]
    if inst.get("num_stages"):
        opts += ["-ns", str(inst["num_stages"])]
    if inst.get("maxnreg"):
        opts += ["--maxnreg", str(inst["maxnreg"])]
    return opts + inst.get("tilec_flags", [])


def signatures(inst):
    """The -s list of an instance (its parameters named): the variants
    Triton would compile for the case's sizes, then every int :16, then no
    hints (any launch finds one), each once. tilec names the entry of the
    i-th LAUNCH_i; the :8/:4 variants it adds itself come after them."""
    sigs = [triton_signature(inst, s) for s in inst["sizes"]]
    if not inst.get("specialized_only"):
        sigs += [signature(inst["params"], True, inst["constexprs"]),
                 signature(inst["params"], False, inst["constexprs"])]
    return sorted(set(sigs), key=sigs.index)


def compile_one(tilec, inst, outdir, arch, launch, keep_ptx):
    inst["log"] = ""
    err = name_params(inst)
    if err:
        return err
    cmd = [tilec, "compile", os.path.join(ROOT, inst["file"]), "-n", inst["kernel"]]
    for s in signatures(inst):
        cmd += ["-s", s]
    cmd += spec_options(inst) + ["--arch", arch, "-o", os.path.join(outdir, "cases", launch), "-on", launch]
    if inst["grid_in_blob"]:
        cmd += ["-g", inst["grid"]]
    if keep_ptx:
        cmd += ["--keep-ptx", os.path.join(keep_ptx, launch)]
    cmd += compile_options(inst)
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        out, rc = r.stdout + r.stderr, r.returncode
    except subprocess.TimeoutExpired:
        out, rc = "timed out after 120 s", -1
    inst["compile_ms"] = round((time.time() - t0) * 1000, 1)
    inst["log"] = "== %s (%d ms): %s\n%s\n" % (inst["id"], inst["compile_ms"],
                                               " ".join(repr(a) if " " in a else a for a in cmd), out)
    if rc != 0:
        return "tilec compile failed (exit %d): %s" % (rc, out.strip()[-2000:] or "no output")
    return check_prototype(inst, os.path.join(outdir, "cases", launch + ".h"), launch)


C_TYPES = {"i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t", "u8": "uint8_t",
           "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t", "fp16": "uint16_t",
           "bf16": "uint16_t", "fp32": "float", "fp64": "double", "i1": "uint8_t"}


def check_prototype(inst, header, launch):
    """The generated launch function must take exactly what diff.py passes
    through ctypes (harness.tile_fn); a mismatch would corrupt arguments.
    Types are compared in order, not names: tilec renames parameters C
    cannot take (docs/LANGUAGE.md)."""
    want = ["tile_stream"]
    if not inst["grid_in_blob"]:
        want += ["uint32_t", "uint32_t", "uint32_t"]
    for p in inst["params"]:
        want.append({"tensor": "tile_deviceptr", "desc": "tile_tensordesc"}.get(p["kind"]) or C_TYPES[p["dtype"]])
    try:
        text = open(header).read()
    except OSError as e:
        return "no generated header: %s" % e
    got = [l for l in text.splitlines() if l.startswith("tile_status %s(" % launch)]
    types = None
    if got and got[0].endswith(");"):
        args = got[0][len("tile_status %s(" % launch):-2]
        types = [a.rsplit(" ", 1)[0] for a in args.split(", ")] if args else []
    if types != want:
        return "launch function mismatch: expected parameter types (%s), generated %s" % (
            ", ".join(want), got[0] if got else "none")
    return None


RACE_MANIFEST = """\
# kernels for compute-sanitizer racecheck and memcheck (tests/gpu/racecheck.c):
# two tier-2 reductions, a pipelined matmul (3-stage rings of asynchronous
# copies, a K tail), causal attention (two dots per iteration), tutorial
# 09's persistent matmul through host-side descriptors (TMA on sm_90a: the
# rings' barriers set up again for each tile), atomics whose old values
# reach the other threads through shared memory, a histogram of contended
# atomics and tutorial 05's spin lock
{t2} softmax_row_kernel "*fp32:16, *fp32:16, i32, i32, i32" -D BLOCK_SIZE=1024 -w 4 -on race_softmax
{t2} reduce_cols_kernel "*fp32:16, *fp32:16, i32, i32, i32" -D OP=0 -D BLOCK_M=256 -D BLOCK_N=16 -w 4 -g "cdiv(N, BLOCK_N)" -on race_colsum
{mm} matmul_kernel "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1" -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 -w 4 -ns 3 -g "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)" -on race_matmul
{attn} attn_fwd "*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, i32:16, i32:16, i32, i32:16" -D HEAD_DIM=64 -D BLOCK_M=128 -D BLOCK_N=64 -D STAGE=3 -w 4 -on race_attn
{desc} matmul_kernel_tma_persistent "tensordesc<fp16[64, 32]>, tensordesc<fp16[64, 32]>, tensordesc<fp16[64, 64]>, i32, i32, i32" -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 -D EPILOGUE_SUBTILE=False -D NUM_SMS=3 -D WARP_SPECIALIZE=False -w 4 -ns 3 -g "min(3, cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N))" -on race_tma
{atom} ticket_kernel "*i32:16, *i32:16, *i32:16, *i32:16" -D SLOTS=32 -w 4 -on race_ticket
{atom} histogram_kernel "*i32:16, *i32:16, i32" -D NBINS=256 -D BLOCK=1024 -w 4 -g "cdiv(n, BLOCK)" -on race_hist
{atom} layer_norm_bwd_dx_fused "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *i32:16, i32, i32" -D GROUP_SIZE_M=32 -D BLOCK_SIZE_N=1024 -w 4 -on race_lock
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilec", required=True)
    ap.add_argument("--out", default=os.path.join(ROOT, ".gpu"))
    ap.add_argument("--build", default=None, help="build dir holding examples/ (generated pairs)")
    ap.add_argument("--arch", default="sm_90a", help="the GPU machine's arch (H100/H200: sm_90a, wgmma; "
                    "compute_90 for the mma.sync code that sm_80 and sm_87 also run, as PTX the driver compiles)")
    ap.add_argument("--only", default=None, help="comma-separated instance ids")
    ap.add_argument("--keep-ptx", default=None, help="also write each instance's PTX to DIR/ID/")
    ap.add_argument("--extra-cases", default=None,
                    help="a file in cases.py's form whose CASES join this run (tier 5): a kernel of "
                    "one's own, or one kept out of the repository, checked against Triton")
    a = ap.parse_args()
    out = os.path.abspath(a.out)
    # what a GPU run left (bin/, logs/, the library) goes too: it is rebuilt there
    for sub in ("cases", "race", "examples", "bin", "logs"):
        shutil.rmtree(os.path.join(out, sub), ignore_errors=True)
    for sub in ("cases", "race", "examples"):
        os.makedirs(os.path.join(out, sub))
    if os.path.exists(os.path.join(out, "libtilegpu.so")):
        os.remove(os.path.join(out, "libtilegpu.so"))
    if a.keep_ptx:
        os.makedirs(a.keep_ptx, exist_ok=True)
    insts = cases.instances()
    if a.extra_cases:
        import importlib.util
        spec = importlib.util.spec_from_file_location("extra_cases", a.extra_cases)
        extra = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(extra)
        for c in extra.CASES:
            insts.extend(cases.expand(dict(c, tier=5)))
    if a.only:
        keep = set(a.only.split(","))
        insts = [i for i in insts if i["id"] in keep]
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        errors = list(pool.map(lambda i: compile_instance(a.tilec, i, out, a.arch, a.keep_ptx), insts))
    with open(os.path.join(out, "compile.log"), "w") as log:
        for inst, err in zip(insts, errors):
            log.write(inst.pop("log"))
            inst["compiled"] = err is None
            inst["error"] = err
            inst["launch"] = inst["id"]
            if err:
                failed += 1
                print("prepare: FAIL %s: %s" % (inst["id"], err.splitlines()[0] if err else ""))
        # racecheck kernels, through a manifest (tilec compile -m)
        man = os.path.join(out, "race", "race.manifest")
        with open(man, "w") as f:
            f.write(RACE_MANIFEST.format(t2=os.path.join(ROOT, cases.T2), mm=os.path.join(ROOT, cases.K, "matmul.py"),
                                         attn=os.path.join(ROOT, cases.ATTN), atom=os.path.join(ROOT, cases.ATOM),
                                         desc=os.path.join(ROOT, cases.DESC)))
        r = subprocess.run([a.tilec, "compile", "-m", man, "-o", os.path.join(out, "race", "race"),
                            "--arch", a.arch], capture_output=True, text=True)
        log.write("== race (manifest)\n%s%s\n" % (r.stdout, r.stderr))
        race_ok = r.returncode == 0
        if not race_ok:
            print("prepare: FAIL race manifest: %s" % (r.stdout + r.stderr).strip()[-500:])
    # the examples' generated pairs (examples/build.sh writes BUILD/examples/gen/NAME/kernels.{c,h})
    examples = []
    if a.build:
        exdir = os.path.join(a.build, "examples", "gen")
        for name in sorted(os.listdir(exdir)) if os.path.isdir(exdir) else []:
            src = os.path.join(exdir, name)
            gen = [f for f in ("kernels.c", "kernels.h") if os.path.exists(os.path.join(src, f))]
            if len(gen) == 2:
                os.makedirs(os.path.join(out, "examples", name))
                for f in gen:
                    shutil.copy(os.path.join(src, f), os.path.join(out, "examples", name, f))
                examples.append(name)
    # kernels of the front-end suite that no case drives: listed, not dropped
    covered = {(c["file"], c["kernel"]) for c in insts}
    uncovered = []
    for d in ("tests/kernels", "tests/kernels/seeds"):
        full = os.path.join(ROOT, d)
        for fn in sorted(os.listdir(full)) if os.path.isdir(full) else []:
            if fn.endswith(".py"):
                rel = os.path.join(d, fn)
                try:
                    names = cases.kernel_functions(os.path.join(ROOT, rel))
                except (OSError, SyntaxError):
                    names = ["(unreadable)"]
                uncovered += ["%s:%s" % (rel, k) for k in names if (rel, k) not in covered]
    manifest = {"arch": a.arch, "instances": insts, "race_compiled": race_ok,
                "examples": examples, "uncovered": uncovered}
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("prepare: %d instances, %d compiled, %d failed; %d examples; racecheck blob %s; "
          "%d suite kernels without a GPU case -> %s"
          % (len(insts), len(insts) - failed, failed, len(examples), "ok" if race_ok else "FAILED",
             len(uncovered), out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
