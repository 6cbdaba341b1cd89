"""sass.py - the machine code of tile's and Triton's builds of the benchmark
kernels, side by side, on the GPU machine (ptxas and cuobjdump there).

Usage: python3 bench/sass.py GPU_DIR OUT_DIR [ID ...]
GPU_DIR comes from tests/gpu/prepare.sh run with --keep-ptx GPU_DIR/ptx
(prepare.sh passes extra arguments on). For each benchmark instance (or the
ids given): tile's PTX for the GPU's arch is assembled with `ptxas -v` and
disassembled, and the variant compiled for Triton's specialization at the
timed size is counted (ID.tile_all.sass holds every variant: the loader
may run one of tilec's :8/:4 ones, which Nsight Compute names); Triton's
cubin is the one bench.py's launch ran (TILE_TRITON_CUBIN_DIR/ID.cubin, written when that is set), else
the newest of the kernel's name in Triton's cache (TRITON_CACHE_DIR or
~/.triton/cache: another instance's when two share a kernel name); and tile's compute_80 PTX and Triton's sm_80 PTX (kept by bench.py in
TILE_SM80_PTX_DIR) are assembled for this GPU as the driver would. Writes OUT_DIR/ID.*.sass and
prints a table of instruction counts by opcode class (tensor-core,
shared-memory, global, async-copy, barrier, ...) plus registers and
spills, the first things to compare when tile is slower.
"""
import collections
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "gpu"))
import prepare  # noqa: E402  the -s list an instance was compiled with

CLASSES = [
    ("HMMA", r"^HMMA"), ("HGMMA", r"^HGMMA"), ("IMMA", r"^IMMA"), ("LDSM", r"^LDSM"),
    ("LDS", r"^LDS(?!M)"), ("STS", r"^STS"), ("LDGSTS", r"^LDGSTS"), ("LDG", r"^LDG(?!STS)"),
    ("STG", r"^STG"), ("BAR", r"^BAR"), ("DEPBAR", r"^DEPBAR"), ("LDL/STL", r"^(LDL|STL)"),
    ("FFMA", r"^FFMA"), ("IMAD/IADD", r"^(IMAD|IADD3|LEA)"), ("LOP/SHF", r"^(LOP3|SHF(?!L))"),
    ("MUFU", r"^MUFU"), ("SHFL", r"^SHFL"), ("BRA", r"^BRA"),
]


def tool(name):
    for d in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"):
        p = os.path.join(d, "bin", name)
        if d and os.path.exists(p):
            return p
    return name


def histogram(sass):
    ops = []
    for line in sass.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m:
            ops.append(m.group(1))
    h = collections.Counter()
    for op in ops:
        for name, pat in CLASSES:
            if re.match(pat, op):
                h[name] += 1
                break
    h["total"] = len(ops)
    return h


def disasm(cubin, function=None):
    r = subprocess.run([tool("cuobjdump"), "-sass", cubin], capture_output=True, text=True)
    if r.returncode != 0:
        return "cuobjdump failed: " + r.stderr
    if not function:
        return r.stdout
    # the one function's section
    parts = re.split(r"(?m)^\s*Function : ", r.stdout)
    for p in parts[1:]:
        if p.split()[0] == function:
            return "Function : " + p
    return r.stdout


def ptx_sass(ptx, arch, cubin, function):
    r = subprocess.run([tool("ptxas"), "-v", "-arch=" + arch, ptx, "-o", cubin], capture_output=True, text=True)
    if r.returncode != 0:
        return None, "ptxas failed: " + r.stderr[-300:]
    # ptxas -v: "Function properties for F", then its spills, then "Used N registers"
    note, mine = [], function is None
    for l in r.stderr.splitlines():
        if "Compiling entry function" in l:
            mine = function is None or ("'%s'" % function) in l
        elif mine and ("registers" in l or "spill" in l):
            note.append(l.split(":", 1)[-1].strip())
    return disasm(cubin, function), " ".join(note)[:200]


def benched_entry(inst):
    """The entry the benchmark's launch runs: the variant compiled for
    Triton's specialization at the size bench.py times (a bench row's
    first, a corpus instance's last)."""
    size = inst["sizes"][-1 if inst["tier"] == 6 else 0]
    try:
        return inst["id"] + "_%d" % prepare.signatures(inst).index(prepare.triton_signature(inst, size))
    except ValueError:
        return inst["id"] + "_0"


def tile_sass(gdir, inst, arch, out):
    iid = inst["id"]
    ptxs = sorted(glob.glob(os.path.join(gdir, "ptx", iid, "*.ptx")))
    if not ptxs:
        return None, "no PTX (prepare with --keep-ptx GPU_DIR/ptx)"
    entry = benched_entry(inst)
    cubin = os.path.join(out, iid + ".tile.cubin")
    sass, note = ptx_sass(ptxs[-1], arch, cubin, entry)
    # every entry too: the loader may pick one of tilec's :8/:4 variants
    with open(os.path.join(out, iid + ".tile_all.sass"), "w") as f:
        f.write(disasm(cubin))
    return sass, "%s: %s" % (entry, note)


def tile80_sass(gdir, iid, arch, out):
    ptxs = sorted(glob.glob(os.path.join(gdir, "ptx", iid + "_sm80", "*.compute_80.ptx")))
    if not ptxs:
        return None, "no compute_80 PTX kept"
    return ptx_sass(ptxs[-1], arch, os.path.join(out, iid + ".tile80.cubin"), iid + "_sm80_0")


def triton80_sass(iid, arch, out):
    d = os.environ.get("TILE_SM80_PTX_DIR")
    ptx = os.path.join(d, iid + ".ptx") if d else None
    if not ptx or not os.path.exists(ptx):
        return None, "no sm_80 PTX kept"
    return ptx_sass(ptx, arch, os.path.join(out, iid + ".triton80.cubin"), None)


def triton_sass(kernel, out, iid):
    kept = os.environ.get("TILE_TRITON_CUBIN_DIR")
    if kept and os.path.exists(os.path.join(kept, iid + ".cubin")):
        # the cubin bench.py's launch of this instance ran (tests/gpu/harness.py)
        return disasm(os.path.join(kept, iid + ".cubin")), "the launch's own cubin"
    # else the newest cached build of the kernel's name, which is another
    # instance's when two benchmarks share a kernel
    cache = os.environ.get("TRITON_CACHE_DIR") or os.path.expanduser("~/.triton/cache")
    found = []
    for js in glob.glob(os.path.join(cache, "*", kernel + ".json")):
        cub = js[:-5] + ".cubin"
        if os.path.exists(cub):
            md = json.load(open(js))
            found.append((os.path.getmtime(cub), cub, md))
    if not found:
        return None, "no cubin of %s in %s" % (kernel, cache)
    found.sort()
    # the native build (the newest whose target matches the device), not the sm_80 one
    for _, cub, md in reversed(found):
        if md.get("target", {}).get("arch") != 80:
            return disasm(cub), "shared %s, warps %s" % (md.get("shared"), md.get("num_warps"))
    return None, "only sm_80 builds of %s cached" % kernel


def main():
    gdir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    man = json.load(open(os.path.join(gdir, "manifest.json")))
    want = set(sys.argv[3:])
    arch = man.get("arch", "sm_90")
    cols = [c for c, _ in CLASSES] + ["total"]
    print("| kernel | build | " + " | ".join(cols) + " | notes |")
    print("|" + "---|" * (len(cols) + 3))
    for inst in man["instances"]:
        if want and inst["id"] not in want:
            continue
        if not want and not inst.get("bench"):
            continue
        sides = [("tile", tile_sass(gdir, inst, arch, out)),
                 ("triton", triton_sass(inst["kernel"], out, inst["id"]))]
        if inst.get("sm80"):
            sides.append(("tile sm_80", tile80_sass(gdir, inst["id"], arch, out)))
            sides.append(("triton sm_80", triton80_sass(inst["id"], arch, out)))
        for side, (sass, note) in sides:
            if sass is None:
                print("| %s | %s | %s | %s |" % (inst["id"], side, " | ".join("" for _ in cols), note))
                continue
            with open(os.path.join(out, "%s.%s.sass" % (inst["id"], side.replace(" ", "_"))), "w") as f:
                f.write(sass)
            h = histogram(sass)
            print("| %s | %s | %s | %s |" % (inst["id"], side, " | ".join(str(h.get(c, 0)) for c in cols), note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
