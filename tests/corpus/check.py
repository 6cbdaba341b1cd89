"""check.py - the public-kernel corpus on the CPU (part of ./build.sh test).

For every corpus case instance (tests/corpus/corpus.py): `tilec compile`
with the signature Triton's JIT would specialize at the case's first size,
for every target family at once (sm_80-class mma.sync, sm_87, sm_90,
sm_90a's wgmma, and sm_100/sm_120 where ptxas knows them; those a config's
shared memory or fp8e4nv rules out are left out with a note), then `tilec run`
in the reference interpreter at the case's CPU size (its cpu_sizes, else the
smallest of its sizes) on deterministic pseudo-random inputs drawn as the
case's initializers say. A refusal, a diagnostic, an LLVM verifier failure
or a crash is a failure; so is an interpreter error (an out-of-bounds
access). A case Triton 3.6 refuses (triton_refuses) must still compile. A case
that records a known open limitation of tile's (tile_open: a part of the
error it must give) is counted as skipped while it fails so, and fails once
it fails otherwise or passes (then the record goes).

Usage: python3 tests/corpus/check.py [--tilec PATH] [--project NAME,...]
       [--only ID,...] [--jobs N] [--keep DIR]
Prints PASS/FAIL per instance, then "corpus: N passed, N failed".
"""
import argparse
import concurrent.futures
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
sys.path.insert(0, HERE)
import cases  # noqa: E402
import corpus  # noqa: E402
import prepare  # noqa: E402

# element formats for struct; bf16 and fp8 are written from their bits
PACK = {"fp16": "e", "fp32": "f", "fp64": "d", "i8": "b", "u8": "B", "i16": "h", "u16": "H",
        "i32": "i", "u32": "I", "i64": "q", "u64": "Q", "i1": "B"}
SIZE = {"fp16": 2, "bf16": 2, "fp32": 4, "fp64": 8, "i8": 1, "u8": 1, "i16": 2, "u16": 2,
        "i32": 4, "u32": 4, "i64": 8, "u64": 8, "i1": 1, "fp8e4nv": 1, "fp8e5": 1,
        "fp8e4b15": 1}
# the largest interpreter buffer the check draws (elements)
MAX_ELEMENTS = 1 << 24


def evaluate(expr, env):
    return eval(str(expr), {"__builtins__": {}, "cdiv": lambda a, b: (a + b - 1) // b,
                            "min": min, "max": max}, env)


def draw(dtype, init, n, rng):
    """n elements of dtype as raw little-endian bytes, drawn as init says."""
    kind, _, spec = init.partition(":")
    if kind == "zeros":
        return bytes(n * SIZE[dtype])
    if kind == "bytes" or dtype.startswith("fp8"):
        if kind == "bytes":
            return bytes(i % 256 for i in range(n))
        # fp8: finite values only (no NaN encodings 0x7f/0xff for e4m3)
        return bytes(rng.choice([b for b in range(256) if b & 0x7F != 0x7F]) for _ in range(n))
    if kind in ("randn", "specials"):
        vals = [rng.gauss(0.0, 1.0) for _ in range(n)]
    elif kind == "uniform":
        lo, hi = (float(x) for x in spec.split(":"))
        vals = [lo + (hi - lo) * rng.random() for _ in range(n)]
    elif kind == "steps":  # segment starts 0, S, 2S, ...
        vals = [i * int(spec) for i in range(n)]
    elif kind == "perm":  # a random order of 0 .. n-1 (slots or pages named once each)
        vals = list(range(n))
        rng.shuffle(vals)
    elif kind in ("randint", "nonzero"):
        lo, hi = (int(x) for x in spec.split(":"))
        vals = [rng.randrange(lo, hi) for _ in range(n)]
        if kind == "nonzero":
            vals = [v if v else 1 for v in vals]
    else:
        raise ValueError("unknown initializer %r" % init)
    if dtype == "bf16":
        return b"".join(struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0])[2:]
                        for v in vals)
    if dtype == "i1":
        return bytes(1 if v else 0 for v in vals)
    if dtype[0] in "iu":
        bits = 8 * SIZE[dtype]
        vals = [int(v) for v in vals]
        if dtype[0] == "i":
            vals = [((v + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)) for v in vals]
        else:
            vals = [v % (1 << bits) for v in vals]
    return struct.pack("<%d%s" % (n, PACK[dtype]), *vals)


def cpu_size(inst):
    if inst.get("cpu_sizes"):
        return inst["cpu_sizes"][0]

    def volume(s):
        v = 1
        for x in s.values():
            v *= max(int(x), 1)
        return v
    return min(inst["sizes"], key=volume)


def archs():
    """The targets: every family, Blackwell where ptxas assembles it."""
    base = "sm_80,sm_87,sm_90,sm_90a"
    ptxas = find_ptxas()
    if ptxas:
        r = subprocess.run([ptxas, "--help"], capture_output=True, text=True)
        if "sm_100" in r.stdout and "sm_120" in r.stdout:
            return base + ",sm_100,sm_120"
    return base


def find_ptxas():
    for p in (os.environ.get("TILE_PTXAS"), os.environ.get("CUDA_HOME") and
              os.path.join(os.environ["CUDA_HOME"], "bin", "ptxas"), "/usr/local/cuda/bin/ptxas"):
        if p and os.access(p, os.X_OK):
            return p
    from shutil import which
    return which("ptxas")


def check_instance(tilec, inst, arch, tmp):
    """None when the instance compiles and interprets, else why not."""
    err = prepare.name_params(inst)
    if err:
        return err
    size = cpu_size(inst)
    common = ["-n", inst["kernel"], "-s", prepare.triton_signature(inst, size)]
    # the values of names host code computes (--bind) specialize the interpreter's kernel too
    flags = inst.get("tilec_flags", [])
    common += [x for i in range(len(flags) - 1) if flags[i] == "--bind" for x in flags[i:i + 2]]
    src = os.path.join(ROOT, inst["file"])
    # compiled with the instance's constexprs, interpreted with those of the
    # CPU size where they follow the size
    run_cx = dict(inst, constexprs=inst.get("cpu_constexprs") or inst["constexprs"])
    cmd = [tilec, "compile", src] + common + prepare.spec_options(inst) + \
        ["--arch", arch, "-j", "1", "-o", os.path.join(tmp, inst["id"])]
    cmd += prepare.compile_options(inst)
    # a config sized for one GPU may not fit another's shared memory (as
    # Triton's build of it would not), and fp8e4nv needs sm_89 or newer (as
    # Triton refuses it below): those targets are left out and noted
    while True:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        m = re.search(r"more than a block may have on (sm_\d+a?)", r.stderr)
        targets = cmd[cmd.index("--arch") + 1].split(",")
        older = [t for t in targets if int(re.sub(r"\D", "", t)) < 89]
        if r.returncode != 0 and "fp8e4nv is not supported on CUDA arch < 89" in r.stderr and \
                0 < len(older) < len(targets):
            inst.setdefault("notes", []).append("fp8e4nv: %s left out, as Triton refuses them" % ",".join(older))
            cmd[cmd.index("--arch") + 1] = ",".join(t for t in targets if t not in older)
            continue
        if r.returncode == 0 or not m or m.group(1) not in targets or len(targets) == 1:
            break
        inst.setdefault("notes", []).append("too large for %s's shared memory" % m.group(1))
        cmd[cmd.index("--arch") + 1] = ",".join(t for t in targets if t != m.group(1))
    if r.returncode != 0 or "error" in r.stderr.lower():
        return "tilec compile (exit %d): %s" % (r.returncode, (r.stdout + r.stderr).strip()[-1500:])

    # the interpreter at the CPU size
    env = dict(size)
    rng = random.Random(hash(inst["id"]) & 0xFFFFFFFF)
    args = []
    for i, p in enumerate(inst["params"]):
        if p["kind"] == "scalar":
            v = evaluate(p["value"], env)
            v = float(v) if p["dtype"].startswith(("fp", "bf")) else int(v)
            env[p["name"]] = v
    env.update(run_cx["constexprs"])
    for i, p in enumerate(inst["params"]):
        if p["kind"] == "scalar":
            args += ["--arg", repr(env[p["name"]])]
            continue
        if p["kind"] != "tensor":
            return "the interpreter check takes pointers and scalars only (parameter %s)" % p["name"]
        n = 1
        for s in p["shape"]:
            n *= int(evaluate(s, env))
        if n > MAX_ELEMENTS:
            return "CPU size too large: %s has %d elements (give cpu_sizes)" % (p["name"], n)
        path = os.path.join(tmp, "%s.%d.bin" % (inst["id"], i))
        init = p["init"] if p["role"] != "out" else "zeros"
        with open(path, "wb") as f:
            f.write(draw(p["dtype"], init, max(n, 1), rng))
        args += ["--arg", "buf:file=" + path]
    g = evaluate(inst["grid"], env)
    g = tuple(g) if isinstance(g, (tuple, list)) else (g,)
    grid = ",".join(str(int(x)) for x in g)
    if any(int(x) <= 0 for x in g):
        return "the CPU size gives an empty grid (%s)" % grid
    cmd = [tilec, "run", src] + common + prepare.spec_options(run_cx) + ["-g", grid] + args
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return "tilec run at %s, grid %s (exit %d): %s" % (
            size, grid, r.returncode, (r.stdout + r.stderr).strip()[-1500:])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilec", default=os.environ.get("TILEC") or os.path.join(ROOT, "build", "tilec"))
    ap.add_argument("--project", default="")
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    projects = [p for p in a.project.split(",") if p] or corpus.projects()
    only = {x for x in a.only.split(",") if x}
    insts = []
    for p in projects:
        for c in corpus.load_project(p):
            insts.extend(cases.expand(c))
    insts = [i for i in insts if not only or i["id"] in only]
    scratch = None if a.keep else tempfile.TemporaryDirectory(prefix="tile-corpus-")
    tmp = a.keep or scratch.name
    os.makedirs(tmp, exist_ok=True)
    arch = archs()
    print("corpus: %d instances from %d projects, --arch %s" % (len(insts), len(projects), arch),
          flush=True)
    passed = failed = skipped = 0
    t0 = time.time()

    def one(inst):
        t = time.time()
        try:
            err = check_instance(a.tilec, inst, arch, tmp)
        except subprocess.TimeoutExpired as e:
            err = "timed out: %s" % " ".join(e.cmd[:3])
        except Exception as e:  # a broken case record
            err = "case error: %s: %s" % (type(e).__name__, e)
        return inst, err, time.time() - t

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for inst, err, dt in ex.map(one, insts):
            tag = "%s/%s" % (inst["project"], inst["id"])
            if inst.get("triton_refuses"):
                tag += " (Triton 3.6 refuses it)"
            if inst.get("tile_open"):
                # a known open limitation of tile's: it must fail with the
                # recorded message, and the record goes once it compiles
                if err is not None and inst["tile_open"] in err:
                    skipped += 1
                    print("SKIP %s: a known open limitation: %s" % (tag, inst["tile_open"]), flush=True)
                    continue
                err = "recorded as tile_open (%r) but %s" % (
                    inst["tile_open"], "it passed: drop the record" if err is None else "failed otherwise: " + err)
            if err is None:
                passed += 1
                notes = "; ".join(inst.get("notes", []))
                print("PASS %s (%.1f s)%s" % (tag, dt, " NOTE: " + notes if notes else ""), flush=True)
            else:
                failed += 1
                print("FAIL %s: %s" % (tag, err.replace("\n", "\n    ")), flush=True)
    print("corpus: %.0f s" % (time.time() - t0))
    if scratch:
        scratch.cleanup()
    print("corpus: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
