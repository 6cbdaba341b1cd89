"""gpu_check.py WORK_DIR -- PROGRAM.py [ARGS...] - runs a program that
tile-capture captured into WORK_DIR again, and checks that the C launch
functions of the blob built from its manifest give what Triton gives.

Design: the program runs with tile-capture's hooks (hooks.py), the
listener here in place of the recorder. For each launch it copies the
storage of every tensor argument (one copy per storage, so arguments that
alias still do), lets Triton launch, then calls the launch function the
manifest made for that launch (emit.Plan over WORK_DIR/record.json finds
it as the capture grouped it) in WORK_DIR/libtilegpu.so on the copies,
through ctypes as the GPU suite does (tests/gpu/harness.py: tile_fn,
launch_tile, compare), with the grid Triton launched where the launch
function takes one, and compares every tensor argument afterwards: bit
for bit for integers, within a tolerance for floats (Triton's autotuner
may pick another config than the tuning file's, and tile sums in other
orders). Launches of a launch function beyond the first three per
variant are not checked. The last line is "gpu_check: N passed, N failed".
"""
import collections
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path[:0] = [HERE, os.path.join(ROOT, "tests", "gpu")]

import torch  # noqa: E402

import harness  # noqa: E402
from tile_capture import emit, hooks, record  # noqa: E402
from tile_capture import launch as L  # noqa: E402
from tile_capture.__main__ import run_program  # noqa: E402

TOL = {torch.float16: {"atol": 3e-2, "rtol": 1e-2}, torch.bfloat16: {"atol": 5e-2, "rtol": 2e-2},
       torch.float32: {"atol": 1e-4, "rtol": 1e-4}, torch.float64: {"atol": 1e-9, "rtol": 1e-9}}
PER_VARIANT = 3


def snapshot(tensors):
    """{id(tensor): a view like it on a copy of its storage}."""
    copies, out = {}, {}
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            continue
        st = t.untyped_storage()
        if st.data_ptr() not in copies:
            c = torch.empty(st.nbytes(), dtype=torch.uint8, device=t.device)
            c.untyped_storage().copy_(st)
            copies[st.data_ptr()] = c
        v = torch.empty(0, dtype=t.dtype, device=t.device)
        v.set_(copies[st.data_ptr()].untyped_storage(), t.storage_offset(), t.size(), t.stride())
        out[id(t)] = v
    return out


class Differ:
    """A hooks listener: every launch through Triton, then through tile."""

    def __init__(self, rec, plan, lib):
        self.kernels = {k["ident"]: k for k in rec["kernels"]}
        self.plan, self.lib = plan, lib
        self.passed = self.failed = 0
        self.seen = collections.Counter()
        self.checked = set()

    def ok(self, msg):
        self.passed += 1
        print("PASS " + msg)

    def bad(self, msg):
        self.failed += 1
        print("FAIL " + msg)

    def launch(self, tensors, build, call):
        copies = snapshot(tensors)
        result = call()
        try:
            self.compare(build(), copies)
        except Exception as e:  # a check that breaks is a failure, not the program's
            self.bad("%s: %s" % (type(e).__name__, e))
        return result

    def compare(self, launch, copies):
        name = launch.name
        k = self.kernels.get(L.kernel_ident(launch))
        if k is None:
            return self.bad("%s: a launch the capture did not record" % name)
        spec = L.spec(k, launch)
        f = self.plan.find(k["ident"], spec)
        if f is None:
            return self.bad("%s: no launch function for this launch (%s)" % (
                name, "; ".join(spec["problems"]) or "a specialization the capture did not see"))
        what = "%s [%s]" % (f.name, f.signature(spec["hints"]))
        self.seen[what] += 1
        if self.seen[what] > PER_VARIANT:
            return
        inst = {"launch": f.name, "grid_in_blob": f.grid is not None,
                "params": [{"kind": "tensor"} if t.startswith("*") else {"kind": "scalar", "dtype": t}
                           for t in f.types]}
        fn = harness.tile_fn(self.lib, inst)
        if fn is None:
            return self.bad("%s: not in the blob (refused by tilec? see the manifest)" % what)
        args = [copies[id(launch.values[p])] if id(launch.values[p]) in copies else launch.values[p]
                for p in f.runtime]
        st = harness.launch_tile(fn, inst, types.SimpleNamespace(tile=args, grid=launch.grid))
        torch.cuda.synchronize()
        if st != 0:
            return self.bad("%s: %s" % (what, harness.tile_error(self.lib, st)))
        problems, n = [], 0
        for p in f.runtime:
            tri = launch.values[p]
            if not isinstance(tri, torch.Tensor):
                continue
            til = copies[id(tri)]
            problem, _ = harness.compare(str(tri.dtype), tri, til, til.reshape(-1), TOL.get(tri.dtype, "exact"))
            n += tri.numel()
            if problem:
                problems.append("%s: %s" % (p, problem))
        self.checked.add(f.name)
        if problems:
            self.bad("%s: %s" % (what, "; ".join(problems)))
        else:
            self.ok("%s, grid %s, %d elements" % (what, list(launch.grid), n))


def main(argv):
    if "--" not in argv or argv.index("--") != 1:
        sys.stderr.write("usage: gpu_check.py WORK_DIR -- PROGRAM.py [ARGS...]\n")
        return 2
    work, program = argv[0], argv[2:]
    rec = record.load(os.path.join(work, "record.json"))
    plan = emit.Plan(rec, os.path.join(work, "kernels.manifest"))
    lib = harness.load_lib(work)
    if lib is None:
        sys.stderr.write("gpu_check: no %s/libtilegpu.so\n" % work)
        return 2
    differ = Differ(rec, plan, lib)
    hooks.install(differ)
    try:
        code, status = run_program(program)
    finally:
        hooks.uninstall()
    if code:
        differ.bad("the program %s" % status)
    for f in plan.functions:
        if f.name not in differ.checked:
            print("note: %s was not checked (not launched again, or not in the blob)" % f.name)
    print("gpu_check: %d passed, %d failed" % (differ.passed, differ.failed))
    return 1 if differ.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
