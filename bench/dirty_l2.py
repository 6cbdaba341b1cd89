"""dirty_l2.py - the DRAM traffic of a memory-bound kernel timed the way
triton.testing.do_bench times it (after its L2 flush, which zeroes 256 MB)
and the way a decode step runs it (after another kernel read other weights).

Usage, on a machine with the GPU, GPU_DIR from tests/gpu/prepare.py:
  ncu --cache-control none --clock-control none -k regex:KERNEL \\
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \\
      python3 bench/dirty_l2.py GPU_DIR ID
--cache-control none keeps L2 as the program left it (Nsight Compute
flushes it before each profiled kernel otherwise). For instance ID at its
bench size, Triton's launch and tile's, each three times after the flush and
three times after a launch over another argument set; the script prints the
order of the launches, which Nsight Compute's rows follow.
"""
import os
import sys

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))


def main():
    import torch
    import harness
    gdir, iid = os.path.abspath(sys.argv[1]), sys.argv[2]
    man = harness.load_manifest(gdir)
    inst = [i for i in man["instances"] if i["id"] == iid][0]
    lib = harness.load_lib(gdir)
    fn = harness.tile_fn(lib, inst)
    kern = harness.triton_kernel(ROOT, inst)
    size = inst["sizes"][0]
    a, other = harness.Args(inst, size), harness.Args(inst, size, seed=1)
    flush = torch.empty(int(256e6 // 4), dtype=torch.int, device="cuda")  # do_bench's
    sides = {"triton": lambda x: harness.launch_triton(kern, inst, x),
             "tile": lambda x: harness.launch_tile(fn, inst, x)}
    for name, launch in sides.items():
        launch(a)  # compiled and loaded before the profiled launches
        for before in ("after the flush", "after another argument set"):
            for _ in range(3):
                if before == "after the flush":
                    flush.zero_()
                else:
                    launch(other)
                    print("%s: another argument set" % name)
                launch(a)
                print("%s: %s" % (name, before))
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main())
