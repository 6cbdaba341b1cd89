"""diff.py - the GPU differential suite: tile against Triton 3.6.

Usage: python3 tests/gpu/diff.py GPU_DIR [--only ID,ID] [--max-n N]
For every instance of GPU_DIR/manifest.json (prepare.py) and each of its
sizes: random inputs, poisoned outputs, the kernel's .py through Triton and
the generated launch function through tile on the same stream; outputs must
match bit for bit (or within the case's stated tolerance), every element
must be written and nothing past the end. Prints PASS/FAIL per case and
size, then `gpu: N passed, N failed`.

The cases run in worker processes, --jobs of them at once (default 4: the
Triton compilations are CPU-bound), each taking every jobs-th instance. A
CUDA error (an illegal address, say) poisons a process's context, so when a
worker dies of one the parent starts a new worker at its next instance.
"""
import argparse
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STICKY = 3  # worker exit status: a CUDA error broke the context


def size_str(s):
    return "x".join("%s=%d" % kv for kv in s.items())


def triton_alone(harness, inst, idx):
    """Triton's verdict on a case tile did not compile, at its first size."""
    import torch
    try:
        kern = harness.triton_kernel(ROOT, inst)
        harness.launch_triton(kern, inst, harness.Args(inst, inst["sizes"][0], seed=idx))
        torch.cuda.synchronize()
        return "accepts it"
    except Exception as e:
        cause = e.__cause__ or e.__context__
        lines = [l for l in str(cause or e).splitlines() if l.strip()]
        return "refuses it: " + (lines[-1] if lines else type(e).__name__)[:300]


def worker(gdir, start, step, only, max_n, results, tile_only=False, tier=None):
    sys.path.insert(0, HERE)
    import torch
    import harness

    man = harness.load_manifest(gdir)
    try:
        lib = harness.load_lib(gdir)
    except OSError as e:
        print("FAIL cannot load libtilegpu.so: %s" % e)
        lib = None
    major, minor = torch.cuda.get_device_capability()
    if "sm_%d%d" % (major, minor) not in [a.rstrip("a") for a in man["arch"].split(",")]:
        print("diff: warning: the device is sm_%d%d, the blobs were built for %s"
              % (major, minor, man["arch"]))
    insts = man["instances"]
    out = open(results, "a")

    def record(inst, size, ok, msg, exact=None):
        label = "%s [%s]" % (inst["id"], size_str(size) if size else "-")
        print("%s %s%s" % ("PASS" if ok else "FAIL", label, (": " + msg) if msg else ""), flush=True)
        out.write(json.dumps({"id": inst["id"], "size": size, "ok": ok, "msg": msg, "exact": exact}) + "\n")
        out.flush()

    def context_lost(inst, size, idx, msg):
        """After an exception: when the context is broken, records it and
        exits for the parent to start a new worker at the next instance."""
        try:
            torch.cuda.synchronize()
            return
        except Exception:
            pass
        record(inst, size, False, "CUDA error (context lost, restarting): " + msg)
        out.close()
        with open(results + ".next", "w") as f:
            f.write(str(idx + step))
        sys.exit(STICKY)

    for idx in range(start, len(insts), step):
        inst = insts[idx]
        if inst.get("bench") or (only and inst["id"] not in only) or (tier and str(inst["tier"]) not in tier.split(",")):
            continue
        if not inst["compiled"]:
            why = "not compiled: " + (inst["error"] or "?").strip().splitlines()[0]
            if inst.get("project") and not tile_only:  # does Triton take it? (a refusal Triton shares is no bug)
                verdict = triton_alone(harness, inst, idx)
                if inst.get("triton_refuses") and verdict.startswith("refuses"):
                    record(inst, None, True, "tile and Triton 3.6 refuse it, as recorded: " + verdict)
                    continue
                why += "; Triton " + verdict
            record(inst, None, False, why)
            continue
        fn = harness.tile_fn(lib, inst) if lib else None
        if fn is None:
            record(inst, None, False, "launch function %s is not in libtilegpu.so" % inst["launch"]
                   + ("" if lib else " (no libtilegpu.so)"))
            continue
        try:
            kern = None if tile_only else harness.triton_kernel(ROOT, inst)
        except Exception as e:  # the test kernel itself is broken
            import traceback
            where = traceback.extract_tb(e.__traceback__)[-1]
            record(inst, None, False, "cannot import the kernel for Triton: %s: %s (%s:%d)"
                   % (type(e).__name__, e, os.path.relpath(where.filename, ROOT), where.lineno))
            continue
        t0 = time.time()
        for size in inst["sizes"]:
            if max_n and any(v > max_n for v in size.values()):
                continue
            try:
                args = harness.Args(inst, size, seed=idx)
                if tile_only:  # under compute-sanitizer: tile's launch, the first size
                    st = harness.launch_tile(fn, inst, args)
                    torch.cuda.synchronize()
                    record(inst, size, st == 0, "" if st == 0 else "tile launch: " + harness.tile_error(lib, st))
                    break
                try:
                    if inst.get("triton_sm80"):
                        harness.triton_sm80(ROOT, inst, args)()
                    else:
                        harness.launch_triton(kern, inst, args)
                    torch.cuda.synchronize()
                    if inst.get("triton_refuses"):
                        record(inst, size, False, "Triton accepted a case recorded as refused (%s)"
                               % inst["triton_refuses"])
                        continue
                except Exception as e:
                    lines = [l for l in str(e).splitlines() if l.strip()]
                    msg = (lines[0] + (" ... " + lines[-1] if len(lines) > 1 else ""))[:300] if lines else type(e).__name__
                    cause = e.__cause__ or e.__context__
                    if cause is not None:  # Triton's compile errors carry the reason here
                        msg += " (" + (type(cause).__name__ + ": " + str(cause).strip().splitlines()[-1] if str(cause).strip() else type(cause).__name__)[:300] + ")"
                    context_lost(inst, size, idx, "in Triton's launch: " + msg)
                    if inst.get("triton_refuses"):
                        record(inst, size, True, "Triton 3.6 refuses it, as recorded: " + msg)
                        break
                    record(inst, size, False, "Triton failed on this case (a suite bug): " + msg)
                    continue
                st = harness.launch_tile(fn, inst, args)
                torch.cuda.synchronize()
                if st != 0:
                    record(inst, size, False, "tile launch: " + harness.tile_error(lib, st))
                    continue
                problems, exact = [], True
                for name, dt, tri, til, flat in args.outputs:
                    p, ndiff = harness.compare(dt, tri, til, flat, inst["tol"])
                    exact &= ndiff == 0
                    if p:
                        problems.append("%s: %s" % (name, p))
                note = "" if problems or exact else "within tolerance, not bit-exact"
                record(inst, size, not problems, "; ".join(problems) or note, exact)
                del args
            except Exception as e:
                msg = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
                context_lost(inst, size, idx, msg)
                record(inst, size, False, "%s: %s" % (type(e).__name__, msg))
        print("     %s: %.1f s" % (inst["id"], time.time() - t0), flush=True)
    out.close()
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gdir")
    ap.add_argument("--only", default="")
    ap.add_argument("--max-n", type=int, default=0, help="skip sizes with a dimension above this")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--step", type=int, default=1)
    ap.add_argument("--results", default=None)
    ap.add_argument("--tile-only", action="store_true",
                    help="in one process, tile's launches alone at each case's first size (for compute-sanitizer)")
    ap.add_argument("--tier", default="", help="only the instances of these tiers, comma-separated (6: the corpus, "
                    "5: --extra-cases)")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    if a.worker or a.tile_only:
        res = a.results or os.path.join(a.gdir, "logs", "tile-only.jsonl")
        if a.tile_only:
            os.makedirs(os.path.dirname(res), exist_ok=True)
            open(res, "w").close()
        rc = worker(a.gdir, a.start, a.step, only, a.max_n, res, a.tile_only, a.tier)
        if a.tile_only:
            rows = [json.loads(l) for l in open(res) if l.strip()]
            print("gpu: %d passed, %d failed" % (sum(r["ok"] for r in rows), sum(not r["ok"] for r in rows)))
            return 1 if any(not r["ok"] for r in rows) else rc
        return rc
    logdir = os.path.join(a.gdir, "logs")
    tag = a.tier.replace(",", "_") or "all"  # runs over other tiers may share the folder
    os.makedirs(logdir, exist_ok=True)
    t0 = time.time()
    procs, broken = {}, 0

    def spawn(k, start):
        res = os.path.join(logdir, "diff-results.%s.%d.jsonl" % (tag, k))
        cmd = [sys.executable, os.path.abspath(__file__), a.gdir, "--worker", "--start", str(start),
               "--step", str(a.jobs), "--results", res, "--only", a.only, "--max-n", str(a.max_n),
               "--tier", a.tier]
        procs[k] = subprocess.Popen(cmd)

    for k in range(a.jobs):
        open(os.path.join(logdir, "diff-results.%s.%d.jsonl" % (tag, k)), "w").close()
        spawn(k, k)
    while procs:
        for k, p in list(procs.items()):
            rc = p.poll()
            if rc is None:
                continue
            del procs[k]
            nxt = os.path.join(logdir, "diff-results.%s.%d.jsonl.next" % (tag, k))
            if rc == STICKY and os.path.exists(nxt):
                start = int(open(nxt).read())
                os.remove(nxt)
                spawn(k, start)
            elif rc != 0:
                print("FAIL diff worker %d exited with status %d" % (k, rc))
                broken += 1
        time.sleep(0.2)
    rows = []
    for k in range(a.jobs):
        rows += [json.loads(l) for l in open(os.path.join(logdir, "diff-results.%s.%d.jsonl" % (tag, k))) if l.strip()]
    with open(os.path.join(a.gdir, "manifest.json")) as f:
        man = json.load(f)
    tier = {i["id"]: i["tier"] for i in man["instances"]}
    for u in man.get("uncovered", []):
        print("NOCASE %s (a suite kernel no GPU case drives)" % u)
    for t in sorted(set(tier.values())):
        rt = [r for r in rows if tier.get(r["id"]) == t]
        print("gpu: tier %d: %d passed, %d failed (%d of the passing bit-exact)"
              % (t, sum(r["ok"] for r in rt), sum(not r["ok"] for r in rt),
                 sum(1 for r in rt if r["ok"] and r["exact"])))
    print("gpu: %d suite kernels without a GPU case; %.0f s" % (len(man.get("uncovered", [])),
                                                                time.time() - t0))
    passed = sum(r["ok"] for r in rows)
    failed = len(rows) - passed + broken
    print("gpu: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
