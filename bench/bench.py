"""bench.py - tile against Triton 3.6 on the GPU, in the same process.

Usage: python3 bench/bench.py GPU_DIR   (GPU_DIR from tests/gpu/prepare.sh)
       python3 bench/bench.py GPU_DIR --corpus [SECONDS] [--graphs]
BENCH_ONLY=prefix,prefix... limits the run to the instances whose ids start so.
--corpus times the public corpus instead (tier 6, corpus_main below): every
instance Triton runs (BENCH_ONLY applies), at its largest size, for at most
SECONDS (default 600); --graphs times launches replayed from CUDA graphs.
For each benchmark instance of GPU_DIR/manifest.json (cases.BENCH): checks
once that tile's output equals Triton's, then times both launches (and
cuBLAS's and the sm_80-class builds' where the case has them) with
triton.testing.do_bench (its L2 flush between runs) in turns, the order
reversed every other turn, and takes each side's median; prints
GB/s = bytes read and written once (every tensor argument) / time (for a
compute-bound case with `flops`, TFLOP/s instead), and the ratio of the
speeds tile/Triton. Memory-bound rows (decode time) are timed a second way,
streamed (time_streamed: back-to-back launches over argument sets of their
own from a CUDA graph), and both give the fraction of the copy rate. Then Triton's first-call compile time per kernel, each in
a fresh process with an empty TRITON_CACHE_DIR (imports not counted), and,
when prepare.sh measured them on the build machine, tilec's compile times
(GPU_DIR/compile_time.json). Ends with the markdown tables.
"""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# not this folder: bench/profile.py would stand in for the standard library's
# profile module, which corpus projects import (through cProfile)
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
sys.path.insert(0, os.path.join(ROOT, "tests", "gpu"))

FIRST_CALL = """
import sys, time, torch
sys.path.insert(0, {gpu!r})
import harness
man = harness.load_manifest({gdir!r})
inst = [i for i in man["instances"] if i["id"] == {iid!r}][0]
args = harness.Args(inst, inst["sizes"][0])
kern = harness.triton_kernel({root!r}, inst)
torch.cuda.synchronize()
t0 = time.perf_counter()
harness.launch_triton(kern, inst, args)
torch.cuda.synchronize()
t1 = time.perf_counter()
harness.launch_triton(kern, inst, args)
torch.cuda.synchronize()
t2 = time.perf_counter()
print("FIRST_CALL_MS %.1f" % ((t1 - t0 - (t2 - t1)) * 1000))
"""


def first_call_ms(gdir, iid):
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TRITON_CACHE_DIR=cache)
        code = FIRST_CALL.format(gpu=os.path.join(ROOT, "tests", "gpu"), gdir=gdir, iid=iid, root=ROOT)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                           timeout=300)
        for line in r.stdout.splitlines():
            if line.startswith("FIRST_CALL_MS"):
                return float(line.split()[1])
        print("bench: first call of %s failed: %s" % (iid, (r.stdout + r.stderr)[-500:]))
        return None


def tile_differs(lib, fn, inst, args):
    """Launches tile's build once and compares its outputs with Triton's
    (launched before): the first difference, or None; raises on a failed
    launch."""
    import torch
    import harness
    st = harness.launch_tile(fn, inst, args)
    torch.cuda.synchronize()
    if st != 0:
        raise RuntimeError(harness.tile_error(lib, st))
    wrong = [p for _, dt, tri, til, flat in args.outputs
             for p in [harness.compare(dt, tri, til, flat, inst["tol"])[0]] if p]
    return wrong[0] if wrong else None


def sm80_timers(lib, inst, args, row, timers):
    """The sm_80-class code of both sides on this GPU: Triton's kernel
    compiled for sm_80 and tile's compute_80 build, both as PTX that the
    driver compiles at load; both sides' outputs checked against Triton's
    native run.
    Adds their launches to `timers`."""
    import torch
    import harness
    try:
        tri80 = harness.triton_sm80(ROOT, inst, args)
        refs = [tri.clone() for _, _, tri, _, _ in args.outputs]
        tri80()
        torch.cuda.synchronize()
        tol = inst["tol"]
        for (name, _, tri, _, _), ref in zip(args.outputs, refs):
            if tol == "exact" or not tri.dtype.is_floating_point:
                bits = harness.BITS[tri.element_size()]
                same = torch.equal(tri.reshape(-1).view(bits), ref.reshape(-1).view(bits))
            else:
                same = torch.allclose(tri.float(), ref.float(), atol=tol["atol"], rtol=tol["rtol"], equal_nan=True)
            if not same:
                row["note"] += "Triton sm_80 output %s differs from its native one " % name
        timers["triton80"] = tri80
    except Exception as e:
        row["note"] += "Triton sm_80 failed: %s " % str(e).splitlines()[0][:300]
    fn = getattr(lib, inst["sm80_launch"], None) if lib and inst.get("sm80_launch") else None
    if fn is None:
        row["note"] += "tile compute_80: not built "
        return
    sub = dict(inst, launch=inst["sm80_launch"])
    fn = harness.tile_fn(lib, sub)
    try:
        wrong = tile_differs(lib, fn, sub, args)
        if wrong:
            row["note"] += "tile compute_80 output differs: %s " % wrong[:200]
        timers["tile80"] = lambda: harness.launch_tile(fn, sub, args)
    except Exception as e:
        row["note"] += "tile compute_80 failed: %s " % str(e).splitlines()[0][:200]


# Each side is timed in ROUNDS slots of REP_MS, in turn, the order reversed
# every other round (A B C, C B A, ...): a GPU that warms up and lowers its
# clocks over a row's seconds (the large matmuls run at the power limit)
# then weighs on every side alike instead of on the one timed last.
ROUNDS = 4
REP_MS = 100
LABELS = {"triton": "Triton", "tile": "tile", "cublas": "cuBLAS", "triton80": "Triton sm_80",
          "tile80": "tile compute_80"}


def time_interleaved(timers, row, graphs=False):
    """row[k] = the median of every timed launch of timers[k], in ms. With
    `graphs`, each turn replays the launch from a CUDA graph
    (triton.testing.do_bench_cudagraph, its median): the GPU's time without
    the host's, which for kernels of a few microseconds is most of a Python
    launch (ctypes on tile's side, Triton's launcher on its own)."""
    import statistics
    import triton.testing
    samples = {k: [] for k in timers}
    for r in range(ROUNDS):
        names = list(timers)
        for k in names if r % 2 == 0 else names[::-1]:
            try:
                if graphs:
                    samples[k].append(triton.testing.do_bench_cudagraph(timers[k], rep=REP_MS, return_mode="median"))
                else:
                    samples[k] += triton.testing.do_bench(timers[k], warmup=25, rep=REP_MS, return_mode="all")
            except Exception as e:
                row["note"] += "%s%s failed: %s " % (LABELS[k], " under a graph" if graphs else "",
                                                     str(e).splitlines()[0][:200])
                del timers[k]
                samples[k] = []
    for k, v in samples.items():
        if v:
            row[k] = statistics.median(v)


# A decode step's graph reads each layer's weights once, kernel after kernel:
# no kernel finds its inputs in L2, and L2 holds no dirty lines of another
# kernel's. do_bench's flush between launches (zeroing 256 MB) leaves L2 full
# of dirty lines that the timed kernel's reads evict, so a kernel reading tens
# of MB also pays for writing back up to L2's size. The streamed timing
# replays back-to-back launches over argument sets of their own, this many
# bytes in all (ten times the L2 of an H100 or H200), from one CUDA graph.
STREAM_BYTES = 2**29
STREAM_REPLAYS = 5


def time_streamed(launches, inst, size, nbytes, row):
    """row[k + "_streamed"] = ms a launch of launches[k] (a function of
    harness.Args), launched back to back over ceil(STREAM_BYTES / nbytes)
    argument sets (at least 2) captured in one CUDA graph; each side's
    graph replayed in turns, the order reversed every other round, median."""
    import statistics
    import torch
    import harness
    sets = [harness.Args(inst, size, seed=i + 1) for i in range(max(2, -(-STREAM_BYTES // nbytes)))]
    graphs, samples = {}, {k: [] for k in launches}
    side = torch.cuda.Stream()
    for k, launch in launches.items():
        try:
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):  # compiles and loads outside the capture
                for a in sets:
                    launch(a)
            torch.cuda.current_stream().wait_stream(side)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for a in sets:
                    launch(a)
            graphs[k] = g
        except Exception as e:
            row["note"] += "%s streamed failed: %s " % (LABELS[k], str(e).splitlines()[0][:200])
    for r in range(ROUNDS * 2):
        names = list(graphs)
        for k in names if r % 2 == 0 else names[::-1]:
            graphs[k].replay()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(STREAM_REPLAYS):
                graphs[k].replay()
            end.record()
            end.synchronize()
            samples[k].append(start.elapsed_time(end) / (STREAM_REPLAYS * len(sets)))
    for k, v in samples.items():
        if v:
            row[k + "_streamed"] = statistics.median(v)
    row["stream_sets"] = len(sets)
    del graphs, sets
    torch.cuda.empty_cache()


def copy_rate():
    """GB/s of a device-to-device copy of 1 GiB (bytes read + written): the
    yardstick of the memory-bound rows."""
    import torch
    import triton.testing
    src = torch.ones(2**29, dtype=torch.float16, device="cuda")
    dst = torch.empty_like(src)
    ms = triton.testing.do_bench(lambda: dst.copy_(src), warmup=25, rep=REP_MS)
    n = 2 * src.numel() * src.element_size()
    del src, dst
    torch.cuda.empty_cache()
    return n / (ms * 1e-3) / 1e9


def corpus_main(gdir, seconds, graphs=False):
    """The corpus at its sizes: for each tier-6 instance tile compiled and
    Triton runs, its largest size (the cases' sizes are a launcher's
    typical ones, smallest first), outputs compared once, then both sides
    timed in turns (2 rounds of 25 ms: the kernels are small; with
    `graphs`, replayed from CUDA graphs); the table and the geometric mean
    of tile/Triton over the rows both timed."""
    import math
    import torch
    import triton
    import harness
    global ROUNDS, REP_MS
    ROUNDS, REP_MS = 2, 25
    man = harness.load_manifest(gdir)
    lib = harness.load_lib(gdir)
    print("bench: corpus, %s, torch %s, triton %s" % (torch.cuda.get_device_name(), torch.__version__,
                                                     triton.__version__))
    end = time.time() + seconds
    rows, left = [], 0
    only = [x for x in os.environ.get("BENCH_ONLY", "").split(",") if x]
    for inst in man["instances"]:
        if inst["tier"] != 6 or not inst.get("compiled") or inst.get("triton_refuses"):
            continue
        if only and not any(inst["id"].startswith(x) for x in only):
            continue
        if time.time() > end:
            left += 1
            continue
        size = inst["sizes"][-1]
        row = {"id": inst["id"], "size": "x".join("%s=%s" % kv for kv in size.items()), "note": "",
               "triton": None, "tile": None}
        rows.append(row)
        try:
            kern = harness.triton_kernel(ROOT, inst)
            args = harness.Args(inst, size)
            harness.launch_triton(kern, inst, args)
            fn = harness.tile_fn(lib, inst)
            wrong = tile_differs(lib, fn, inst, args)
            if wrong:
                row["note"] = "outputs differ: " + wrong[:120]
            timers = {"triton": lambda: harness.launch_triton(kern, inst, args),
                      "tile": lambda: harness.launch_tile(fn, inst, args)}
            time_interleaved(timers, row, graphs)
            del args
        except Exception as e:
            row["note"] += "failed: %s" % str(e).splitlines()[0][:160]
        torch.cuda.empty_cache()
        print("bench: %s: triton %s ms, tile %s ms %s" % (row["id"], row["triton"], row["tile"], row["note"]),
              flush=True)
    timed = [r for r in rows if r["triton"] and r["tile"]]
    print("\n| kernel | size | Triton µs | tile µs | tile/Triton | note |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        ratio = r["triton"] / r["tile"] if r["triton"] and r["tile"] else None
        print("| %s | %s | %s | %s | %s | %s |" % (
            r["id"], r["size"], "%.1f" % (r["triton"] * 1000) if r["triton"] else "—",
            "%.1f" % (r["tile"] * 1000) if r["tile"] else "—", "%.3f" % ratio if ratio else "—", r["note"]))
    if timed:
        gm = math.exp(sum(math.log(r["triton"] / r["tile"]) for r in timed) / len(timed))
        under = [r["id"] for r in timed if r["triton"] / r["tile"] < 0.95]
        print("\ncorpus: %d instances timed, geometric mean of tile/Triton (speed) %.3f; %d under 0.95: %s; "
              "%d not reached in %d s" % (len(timed), gm, len(under), ", ".join(under), left, seconds))
    return 0


def main():
    import torch
    import triton.testing
    import harness

    if "--corpus" in sys.argv:
        i = sys.argv.index("--corpus")
        secs = int(sys.argv[i + 1]) if len(sys.argv) > i + 1 and sys.argv[i + 1].isdigit() else 600
        return corpus_main(os.path.abspath(sys.argv[1]), secs, "--graphs" in sys.argv)
    gdir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".gpu"))
    man = harness.load_manifest(gdir)
    lib = harness.load_lib(gdir)
    print("bench: %s, torch %s, triton %s" % (torch.cuda.get_device_name(), torch.__version__,
                                              triton.__version__))
    rows, firsts = [], []
    only = [x for x in os.environ.get("BENCH_ONLY", "").split(",") if x]
    for inst in man["instances"]:
        if not inst.get("bench") or (only and not any(inst["id"].startswith(x) for x in only)):
            continue
        size = inst["sizes"][0]
        row = {"name": inst["bench"], "id": inst["id"], "triton": None, "tile": None, "note": "",
               "membound": inst.get("membound")}
        rows.append(row)
        args = None
        try:
            kern = harness.triton_kernel(ROOT, inst)
            args = harness.Args(inst, size)
            harness.launch_triton(kern, inst, args)
            torch.cuda.synchronize()
            row["bytes"] = args.bytes_moved()
            if inst.get("flops"):
                row["flops"] = harness._eval(inst["flops"], dict(size))
        except Exception as e:
            row["note"] += "Triton failed: %s " % str(e).splitlines()[0][:200]
            args = None
        fn = harness.tile_fn(lib, inst) if lib and inst["compiled"] else None
        if args is None:
            pass
        elif fn is None:
            row["note"] += "tile: " + ((inst.get("error") or "").strip().splitlines() or ["not built"])[0][:200]
        else:
            try:
                wrong = tile_differs(lib, fn, inst, args)
                if wrong:
                    row["note"] += "tile output differs: %s " % wrong[:200]
            except Exception as e:
                row["note"] += "tile failed: %s" % str(e).splitlines()[0][:200]
                fn = None
        # timed after the outputs are compared: repeated launches of kernels
        # that accumulate (atomics) change them
        timers = {}
        if args is not None:
            timers["triton"] = lambda: harness.launch_triton(kern, inst, args)
            if fn is not None:
                timers["tile"] = lambda: harness.launch_tile(fn, inst, args)
            if inst.get("cublas"):
                timers["cublas"] = harness.cublas_fn(inst["cublas"], args)
            if inst.get("sm80"):
                sm80_timers(lib, inst, args, row, timers)
        time_interleaved(timers, row)
        if inst.get("membound") and "tile" in timers and row.get("bytes"):
            time_streamed({"triton": lambda a: harness.launch_triton(kern, inst, a),
                           "tile": lambda a: harness.launch_tile(fn, inst, a)}, inst, size, row["bytes"], row)
        print("bench: %s: triton %s ms, tile %s ms, cublas %s ms, triton sm_80 PTX %s ms, tile compute_80 PTX "
              "%s ms %s" % (inst["id"], row["triton"], row["tile"], row.get("cublas"), row.get("triton80"),
                            row.get("tile80"), row["note"]), flush=True)
        del args
        torch.cuda.empty_cache()
    for iid in ("bench_vadd_f32", "bench_silu_bf16", "bench_softmax_4096", "bench_layer_norm_f16"):
        if any(i["id"] == iid for i in man["instances"]) and not only:
            firsts.append((iid, first_call_ms(gdir, iid)))

    def gbs(r, k):
        return r["bytes"] / (r[k] * 1e-3) / 1e9 if r.get(k) and r.get("bytes") else None

    def f(v, fmt):
        return fmt % v if v is not None else "—"

    print("\n| kernel | Triton µs | Triton GB/s | tile µs | tile GB/s | tile/Triton | note |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        tg, ig = gbs(r, "triton"), gbs(r, "tile")
        ratio = ig / tg if tg and ig else None
        if r.get("flops"):  # compute-bound: TFLOP/s instead of GB/s
            r["note"] = "TFLOP/s: Triton %s, tile %s %s" % (
                f(r["triton"] and r["flops"] / (r["triton"] * 1e-3) / 1e12, "%.1f"),
                f(r["tile"] and r["flops"] / (r["tile"] * 1e-3) / 1e12, "%.2f"), r["note"])
            tg = ig = None
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], f(r["triton"] and r["triton"] * 1000, "%.1f"), f(tg, "%.0f"),
            f(r["tile"] and r["tile"] * 1000, "%.1f"), f(ig, "%.0f"), f(ratio, "%.3f"),
            r["note"].strip()))
    tc = [r for r in rows if r.get("flops")]
    if tc:
        def tf(r, k):
            return r["flops"] / (r[k] * 1e-3) / 1e12 if r.get(k) else None

        def ratio(a, b):
            return a / b if a and b else None
        print("\nTensor-core rows, TFLOP/s (native: each side's build for this GPU; sm_80-class: Triton "
              "compiled for sm_80 and tile for compute_80, both as PTX compiled by the driver)\n")
        print("| kernel | Triton | tile | tile/Triton | cuBLAS | Triton sm_80 | tile sm_80 | tile/Triton sm_80 |")
        print("|---|---|---|---|---|---|---|---|")
        for r in tc:
            t, i, c = tf(r, "triton"), tf(r, "tile"), tf(r, "cublas")
            t8, i8 = tf(r, "triton80"), tf(r, "tile80")
            print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["name"], f(t, "%.1f"), f(i, "%.1f"), f(ratio(i, t), "%.3f"), f(c, "%.1f"), f(t8, "%.1f"),
                f(i8, "%.1f"), f(ratio(i8, t8), "%.3f")))
    mb = [r for r in rows if r.get("membound") and r.get("bytes")]
    if mb:
        rate = copy_rate()
        print("\nMemory-bound rows (decode time): GB/s as above, and its fraction of the copy rate, "
              "%.0f GB/s (torch's device-to-device copy of 1 GiB: read + written)\n" % rate)
        print("Each row twice: under do_bench (a launch after each L2 flush) and streamed (back-to-back "
              "launches over argument sets of their own, %d MB in all, from a CUDA graph: a decode step's "
              "conditions)\n" % (STREAM_BYTES >> 20))
        print("| kernel | timing | Triton µs | tile µs | tile/Triton | Triton of copy | tile of copy |")
        print("|---|---|---|---|---|---|---|")
        for r in mb:
            for how, sfx in (("do_bench", ""), ("streamed, %s sets" % r.get("stream_sets"), "_streamed")):
                tg, ig = gbs(r, "triton" + sfx), gbs(r, "tile" + sfx)
                print("| %s | %s | %s | %s | %s | %s | %s |" % (
                    r["name"], how, f(r.get("triton" + sfx) and r["triton" + sfx] * 1000, "%.1f"),
                    f(r.get("tile" + sfx) and r["tile" + sfx] * 1000, "%.1f"),
                    f(ig / tg if tg and ig else None, "%.3f"), f(tg and 100 * tg / rate, "%.0f%%"),
                    f(ig and 100 * ig / rate, "%.0f%%")))
    ct = {}
    path = os.path.join(gdir, "compile_time.json")
    if os.path.exists(path):
        ct = json.load(open(path))
    names = {"bench_vadd_f32": "vadd_f32", "bench_silu_bf16": "silu_bf16",
             "bench_softmax_4096": "softmax_f32", "bench_layer_norm_f16": "layer_norm_f16"}
    print("\ntilec: ms of CPU / wall time on the build machine (bench/compile_time.sh; all archs with -j N, "
          "N its CPU count); Triton: wall "
          "time of the first launch with an empty cache, minus a warm launch, on this machine\n")
    print("| kernel | tilec sm_80 | tilec sm_87 | tilec sm_90 | tilec all archs + PTX | Triton first call |")
    print("|---|---|---|---|---|---|")
    for iid, ms in firsts:
        c = ct.get(names[iid], {})
        print("| %s | %s | %s | %s | %s | %s |" % (
            names[iid], *(c.get(a, "—") for a in ("sm_80", "sm_87", "sm_90", "all")),
            f(ms, "%.0f ms")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
