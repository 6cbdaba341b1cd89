"""compare.py - tile's tuned dispatch against every config and against
Triton's autotuner, on the GPU, in one process (run by bench/tune/run.sh).

Usage: python3 bench/tune/compare.py TUNE_DIR --tuned "M=..,N=..,K=.. ..."
           --unseen "..." --new "M=..,N=..,K=.."
TUNE_DIR holds libmatmul.so (tile.h and the generated matmul.c, every
autotune config of bench/tune/matmul.py), tile-tune and matmul.tuning
(written by tile-tune on this GPU). The tuning file is applied at run time
(tile_tuning_apply: the same table `tilec compile --tuning` embeds). Per
shape, tuned and unseen: every config of tile timed with
triton.testing.do_bench (median), tile's dispatched launch (the generated
launch function, through the table), Triton's autotuned launch once warm
(its own tuning done by the first call); tile's output checked against
torch.matmul. Checks: at a tuned shape tile dispatches the table's config;
at every shape the config tile dispatches is within 5% of the best config
measured in the same run. Then the time to first result of a fresh process
at a new shape: Triton (imports, compile cache as it is, autotuning
included) and tile (tile-tune --once: the table applied, inputs allocated,
one dispatched launch). Prints markdown tables; the last line is
"tune: N passed, N failed".
"""
import ctypes
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import triton  # noqa: E402
import triton.testing  # noqa: E402

from matmul import matmul_kernel  # noqa: E402

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)
    return ok


def shapes(text):
    out = []
    for item in text.split():
        d = dict(kv.split("=") for kv in item.split(","))
        out.append({k: int(v) for k, v in d.items()})
    return out


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def main():
    tdir = sys.argv[1]
    opts = dict(zip(sys.argv[2::2], sys.argv[3::2]))
    tuned, unseen, new = shapes(opts["--tuned"]), shapes(opts["--unseen"]), shapes(opts["--new"])[0]
    lib = ctypes.CDLL(os.path.join(tdir, "libmatmul.so"))
    lib.tile_last_error.restype = ctypes.c_char_p
    mod = ctypes.c_void_p()
    if not check(lib.matmul_module(ctypes.byref(mod)) == 0, "matmul_module: %s" % lib.tile_last_error()):
        return
    text = open(os.path.join(tdir, "matmul.tuning")).read().encode()
    if not check(lib.tile_tuning_apply(mod, text, len(text)) == 0, "tile_tuning_apply: %s" % lib.tile_last_error()):
        return
    table = {}
    for line in text.decode().splitlines():
        f = line.split("#")[0].split()
        if len(f) == 4 and all(x.lstrip("-").isdigit() for x in f):
            table[tuple(int(x) for x in f[:3])] = int(f[3])
    nconfigs = lib.tile_config_count(mod, 0)
    print("tile: %d configs; table: %d entries" % (nconfigs, len(table)))
    lib.matmul_kernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint64] * 3 + [ctypes.c_int32] * 9
    lib.tile_launch_config.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.c_void_p, ctypes.c_int]
    lib.tile_dispatch_config.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    rows = []
    for kind, group in (("tuned", tuned), ("unseen", unseen)):
        for s in group:
            M, N, K = s["M"], s["N"], s["K"]
            torch.manual_seed(0)
            a = torch.randn((M, K), device="cuda", dtype=torch.float16)
            b = torch.randn((K, N), device="cuda", dtype=torch.float16)
            c = torch.empty((M, N), device="cuda", dtype=torch.float16)
            stream = torch.cuda.current_stream().cuda_stream or None
            vals = [ctypes.c_uint64(a.data_ptr()), ctypes.c_uint64(b.data_ptr()), ctypes.c_uint64(c.data_ptr())] + \
                [ctypes.c_int32(v) for v in (M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                             c.stride(0), c.stride(1))]
            arr = (ctypes.c_void_p * 12)(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in vals])
            ptrs = ctypes.cast(arr, ctypes.c_void_p)
            raw = [v.value for v in vals]
            chosen = lib.tile_dispatch_config(mod, 0, ptrs, 12)
            # every config, in the same run
            ms = []
            for cfg in range(nconfigs):
                if lib.tile_launch_config(mod, 0, cfg, None, stream, ptrs, 12) != 0:
                    print("  %s config %d cannot run: %s" % (s, cfg, lib.tile_last_error().decode()))
                    ms.append(None)
                    continue
                torch.cuda.synchronize()
                ms.append(bench(lambda cfg=cfg: lib.tile_launch_config(mod, 0, cfg, None, stream, ptrs, 12)))
            best = min((t, i) for i, t in enumerate(ms) if t is not None)[1]
            # the dispatched launch, through the generated launch function
            c.zero_()
            st = lib.matmul_kernel(stream, *raw)
            torch.cuda.synchronize()
            ref = torch.matmul(a, b)
            err = ((c.float() - ref.float()).norm() / ref.float().norm()).item()
            check(st == 0 and err < 1e-2, "%s: tile's result (status %d, relative error %.2e)" % (s, st, err))
            tile_ms = bench(lambda: lib.matmul_kernel(stream, *raw))
            # Triton, warm: the first call autotunes
            grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]), )
            call = lambda: matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                               c.stride(0), c.stride(1))
            call()
            torch.cuda.synchronize()
            tri_ms = bench(call)
            tri_cfg = str(matmul_kernel.best_config).replace(", num_ctas: 1", "").replace("maxnreg: None", "")
            if kind == "tuned":
                want = table.get((M, N, K))
                check(chosen == want, "%s: tile dispatched config %d, the table says %s" % (s, chosen, want))
            if not check(0 <= chosen < nconfigs, "%s: tile_dispatch_config returned %d" % (s, chosen)):
                continue
            ok = ms[chosen] is not None and ms[chosen] <= 1.05 * ms[best]
            check(ok, "%s (%s): tile's config %d at %.4f ms, the best (config %d) %.4f ms" %
                  (s, kind, chosen, ms[chosen] or -1, best, ms[best]))
            fl = 2.0 * M * N * K
            rows.append((kind, "%dx%dx%d" % (M, N, K), chosen, best, ms[chosen], ms[best], tile_ms, tri_ms, tri_cfg, fl))
            print("%s %s: tile config %d (best %d) %.4f ms dispatched, Triton %.4f ms" %
                  (kind, s, chosen, best, tile_ms, tri_ms), flush=True)
    print("\n| shape | kind | tile config | best config | config/best | tile TFLOP/s (dispatched) | Triton TFLOP/s "
          "(autotuned, warm) | tile/Triton | Triton's config |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind, name, chosen, best, cms, bms, tms, trms, tcfg, fl in rows:
        print("| %s | %s | %d | %d | %.3f | %.1f | %.1f | %.3f | %s |" %
              (name, kind, chosen, best, cms / bms, fl / tms / 1e9, fl / trms / 1e9, trms / tms, tcfg))
    first_result(tdir, new)
    heuristics(lib)


def heuristics(lib):
    """rowsum_kernel: EVEN_K = K % BLOCK_K == 0 evaluated at each launch;
    K chosen so that each config (BLOCK_K 128, 512) meets both values."""
    from rowsum import rowsum_kernel
    mod = ctypes.c_void_p()
    if not check(lib.rowsum_module(ctypes.byref(mod)) == 0, "rowsum_module"):
        return
    lib.rowsum_kernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint32] * 3 + [ctypes.c_uint64] * 2 + [ctypes.c_int32]
    print("\nheuristic EVEN_K at launch (%d heuristic, %d variants):" %
          (lib.tile_heuristic_count(mod, 0), lib.tile_variant_count(mod, 0)))
    for cfg in (-1, 0, 1):
        for K in (4096, 4100, 640, 384, 100):
            R = 64
            x = torch.randn((R, K), device="cuda", dtype=torch.float32)
            out = torch.full((R, ), float("nan"), device="cuda", dtype=torch.float32)
            vals = [ctypes.c_uint64(x.data_ptr()), ctypes.c_uint64(out.data_ptr()), ctypes.c_int32(K)]
            arr = (ctypes.c_void_p * 3)(*[ctypes.cast(ctypes.byref(v), ctypes.c_void_p) for v in vals])
            grid = (ctypes.c_uint32 * 3)(R, 1, 1)
            if cfg < 0:
                st = lib.rowsum_kernel(None, R, 1, 1, x.data_ptr(), out.data_ptr(), K)
            else:
                st = lib.tile_launch_config(mod, 0, cfg, ctypes.cast(grid, ctypes.c_void_p), None,
                                            ctypes.cast(arr, ctypes.c_void_p), 3)
            torch.cuda.synchronize()
            ref = x.sum(dim=1)
            ok = st == 0 and torch.allclose(out, ref, rtol=1e-4, atol=1e-3)
            check(ok, "rowsum config %d K=%d: status %d, max error %s" %
                  (cfg, K, st, (out - ref).abs().max().item() if st == 0 else "-"))
    tri = torch.empty((64, ), device="cuda", dtype=torch.float32)
    x = torch.randn((64, 4100), device="cuda", dtype=torch.float32)
    rowsum_kernel[(64, )](x, tri, 4100)
    torch.cuda.synchronize()
    check(torch.allclose(tri, x.sum(dim=1), rtol=1e-4, atol=1e-3), "Triton's rowsum at K=4100")
    print("rowsum: tile's launches at K = 4096, 4100, 640, 384, 100 (dispatched and both configs) checked")


TRITON_FIRST = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, {here!r})
import torch, triton
from matmul import matmul_kernel
M, N, K = {M}, {N}, {K}
a = torch.randn((M, K), device="cuda", dtype=torch.float16)
b = torch.randn((K, N), device="cuda", dtype=torch.float16)
c = torch.empty((M, N), device="cuda", dtype=torch.float16)
torch.cuda.synchronize()
t1 = time.perf_counter()
grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]), )
matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
torch.cuda.synchronize()
t2 = time.perf_counter()
print("TRITON imports+inputs %.3f s, first call (autotuning) %.3f s" % (t1 - t0, t2 - t1))
"""


def first_result(tdir, s):
    M, N, K = s["M"], s["N"], s["K"]
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", TRITON_FIRST.format(here=HERE, M=M, N=N, K=K)], capture_output=True,
                       text=True, timeout=600)
    tri = time.perf_counter() - t0
    check(r.returncode == 0, "Triton's fresh process: " + (r.stdout + r.stderr)[-400:])
    detail = [ln for ln in r.stdout.splitlines() if ln.startswith("TRITON")]
    key = "M=%d,N=%d,K=%d" % (M, N, K)
    cmd = [os.path.join(tdir, "tile-tune"), "--once", "--tuning", os.path.join(tdir, "matmul.tuning"), "--key", key,
           "--arg", "a_ptr=M*K", "--arg", "b_ptr=K*N", "--arg", "c_ptr=M*N", "--arg", "stride_am=K", "--arg",
           "stride_ak=1", "--arg", "stride_bk=N", "--arg", "stride_bn=1", "--arg", "stride_cm=N", "--arg",
           "stride_cn=1"]
    t0 = time.perf_counter()
    r2 = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    tile = time.perf_counter() - t0
    check(r2.returncode == 0, "tile's fresh process: " + (r2.stdout + r2.stderr)[-400:])
    print("\ntime to first result of a fresh process at %s (wall, process start to exit):" % key)
    print("| | seconds | detail |\n|---|---|---|")
    print("| Triton (autotuning included) | %.2f | %s |" % (tri, detail[0] if detail else ""))
    print("| tile (tuned table, no tuning at run time) | %.2f | %s |" % (tile, r2.stdout.strip()))


if __name__ == "__main__":
    try:
        main()
    finally:
        print("tune: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
