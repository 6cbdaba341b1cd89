"""profile.py - launch one benchmark instance's kernels for a profiler.

Usage: ncu [options] python3 bench/profile.py GPU_DIR ID [ID ...]
For each instance: tile's build (the launch function in GPU_DIR's
libtilegpu.so), Triton's own build, then, for instances with `sm80`, tile's compute_80 build and
Triton's sm_80 build (PTX loaded by the driver), each launched 3 times on
the same inputs, so that a profiler's --launch-skip/--launch-count or
--kernel-name filters pick the launches to look at. Prints nothing but
errors; the profiler reports.
"""
import os
import sys

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))


def main():
    import torch
    import harness
    gdir = os.path.abspath(sys.argv[1])
    man = harness.load_manifest(gdir)
    lib = harness.load_lib(gdir)
    for iid in sys.argv[2:]:
        inst = next(i for i in man["instances"] if i["id"] == iid)
        args = harness.Args(inst, inst["sizes"][0])
        kern = harness.triton_kernel(ROOT, inst)
        runs = [("tile", harness.tile_fn(lib, inst), inst),
                ("triton", lambda k=kern: harness.launch_triton(k, inst, args), None)]
        if inst.get("sm80_launch"):
            sub = dict(inst, launch=inst["sm80_launch"])
            runs.append(("tile sm_80", harness.tile_fn(lib, sub), sub))
            runs.append(("triton sm_80", harness.triton_sm80(ROOT, inst, args), None))
        for name, fn, sub in runs:
            for _ in range(3):
                if sub is None:
                    fn()
                else:
                    st = harness.launch_tile(fn, sub, args)
                    if st != 0:
                        print("profile: %s %s: %s" % (iid, name, harness.tile_error(lib, st)))
                        break
            torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
