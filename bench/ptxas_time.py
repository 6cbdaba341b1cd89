"""ptxas_time.py - ptxas's CPU time on Triton's PTX and on tile's PTX of the
same benchmark instances, on the GPU machine (Triton there compiles them).

Usage: python3 bench/ptxas_time.py GPU_DIR ARCH ID [ID ...]
GPU_DIR comes from tests/gpu/prepare.sh run with --keep-ptx GPU_DIR/ptx.
For each instance: Triton compiles its kernel for the instance's first size
(the PTX its launch runs); tile's PTX for ARCH is GPU_DIR/ptx/ID/*.ARCH.ptx,
which holds every variant of the launch function, so only the variant the
benchmark runs (ID_0) is kept (its .entry and what it calls). Both are
assembled with `ptxas -v -arch=ARCH` 5 times; prints PTX lines, registers and
the median CPU ms of each: whether tile's compile time above the 50 ms goal
comes from code Triton's would not have.
"""
import glob
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))
from sass import tool  # noqa: E402 (bench/sass.py: CUDA_HOME's tools first)


def ptxas(path, arch, reps=5):
    times, regs = [], None
    for _ in range(reps):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run([tool("ptxas"), "-v", "-arch=" + arch, path, "-o", path + ".cubin"],
                           capture_output=True, text=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode:
            raise SystemExit("ptxas failed on %s: %s" % (path, p.stderr[:500]))
        times.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
        m = re.search(r"Used (\d+) registers", p.stderr)
        regs = m and int(m.group(1))
    return statistics.median(times), regs


def one_entry(ptx, name):
    """The PTX with only the entry `name` (the header, then that entry)."""
    head = ptx[:ptx.index(".visible .entry")] if ".visible .entry" in ptx else ""
    start = ptx.find(".visible .entry %s(" % name)
    if start < 0:
        raise SystemExit("no entry %s" % name)
    at, depth = ptx.index(")", start), 0  # the body: braces matched (inline asm has its own)
    while True:
        at = re.compile(r"[{}]").search(ptx, at).start()
        depth += 1 if ptx[at] == "{" else -1
        at += 1
        if depth == 0:
            return head + ptx[start:at] + "\n"


def main():
    import harness
    gdir, arch = os.path.abspath(sys.argv[1]), sys.argv[2]
    man = harness.load_manifest(gdir)
    tmp = tempfile.mkdtemp()
    print("| instance | Triton PTX lines | Triton registers | Triton ptxas ms | tile PTX lines | tile registers | tile ptxas ms |")
    print("|---|---|---|---|---|---|---|")
    for iid in sys.argv[3:]:
        inst = next(i for i in man["instances"] if i["id"] == iid)
        args = harness.Args(inst, inst["sizes"][0])
        kern = harness.triton_kernel(ROOT, inst)
        compiled = kern[args.grid](*args.triton, **inst["constexprs"], num_warps=inst["num_warps"],
                                   **harness.triton_options(inst))
        tri = os.path.join(tmp, iid + ".triton.ptx")
        with open(tri, "w") as f:
            f.write(compiled.asm["ptx"])
        src = glob.glob(os.path.join(gdir, "ptx", iid, "*.%s.ptx" % arch))
        if not src:
            raise SystemExit("no tile PTX for %s in %s/ptx/%s" % (arch, gdir, iid))
        til = os.path.join(tmp, iid + ".tile.ptx")
        with open(src[0]) as f, open(til, "w") as g:
            g.write(one_entry(f.read(), iid + "_0"))
        t_ms, t_regs = ptxas(tri, arch)
        l_ms, l_regs = ptxas(til, arch)
        lines = [open(p).read().count("\n") for p in (tri, til)]
        print("| %s | %d | %s | %.0f | %d | %s | %.0f |" % (iid, lines[0], t_regs, t_ms, lines[1], l_regs, l_ms))


if __name__ == "__main__":
    main()
