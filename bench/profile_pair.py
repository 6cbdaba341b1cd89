"""Launches each given corpus instance once through Triton and once through
tile, in that order, inside an NVTX range named P_ID, for a profiler to
record one launch of each side (Nsight Compute: docs/PERF.md, "Under
0.95"). Triton compiles on the host before its launch, so the recorded
kernels are the two builds alone.

usage: ncu [sections] python3 bench/profile_pair.py GPU_DIR ID[,ID...]
GPU_DIR: a directory tests/gpu/prepare.py wrote and tests/gpu/buildlib.sh
built. Prints "ok ID" or "fail ID reason" per instance."""
import os
import sys

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    import torch
    import harness
    gdir, ids = os.path.abspath(sys.argv[1]), sys.argv[2].split(",")
    man, lib = harness.load_manifest(gdir), harness.load_lib(gdir)
    for inst in man["instances"]:
        if inst["id"] not in ids:
            continue
        try:
            kern = harness.triton_kernel(ROOT, inst)
            args = harness.Args(inst, inst["sizes"][-1])
            fn = harness.tile_fn(lib, inst)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_push("P_" + inst["id"])
            harness.launch_triton(kern, inst, args)
            harness.launch_tile(fn, inst, args)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
            print("ok", inst["id"], flush=True)
        except Exception as e:
            print("fail", inst["id"], str(e).splitlines()[0][:200], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
