#!/usr/bin/env python3
"""reference.py - the PyTorch side of examples/llm's GPU check.

The same model as llm.c, written plainly in torch (fp16 weights and
activations, no HF dependency), loaded from the same weight file. Two jobs:

  check: python3 reference.py --weights W --prompt-random 32 --steps 128 \\
             --c-logits c.bin --c-tokens 1,2,...
    Runs the prompt, then feeds the C program's tokens one step at a time
    (teacher forcing, so one early near-tie cannot derail the whole
    comparison) and compares every step's logits with the ones llm.c dumped.
    Logits are compared in fp32: the reference's final hidden state is fp16,
    as llm.c's, and its logits are that state times lm_head in fp32 (llm.c
    sums in fp32 too), so the only differences are the summation orders and
    roundings through the layers.
    Tolerance: per step, max |c - ref| <= 0.02 * max |ref|. Why: fp16 has
    11 significant bits (relative rounding 2^-11 ~ 5e-4); each layer rounds
    the residual stream and every projection once or twice in a different
    order on each side, so after 22 layers the hidden state differs by a few
    1e-3 relative, and a logit (a 2048-term dot product with it) by about
    that fraction of the logits' scale. 2% leaves a margin of ~5x over the
    observed error while any real bug (wrong RoPE sign, a missing key, a
    wrong split) gives differences of 20-90% of the scale (checked on the
    CPU with deliberately broken kernels).
    Tokens: the C program's tokens must be the reference's greedy tokens. The
    comparison is exact; where they differ the step is reported with the
    reference's top-2 gap, and such a step passes only as a near tie (the C
    token's reference logit within the tolerance of the maximum: random
    weights give ties that fp16 rounding breaks either way), said so.

  bench: python3 reference.py --weights W --bench [--c-... figures]
    Times PyTorch eager decode and torch.compile(mode="reduce-overhead")
    decode at batch 1 with a static KV cache (one buffer of --ctx positions,
    attended with a mask, as HF's StaticCache does) at context 128 and 2048,
    and eager prefill of 512 tokens; measures the device's copy rate
    (a 1 GiB device-to-device copy, read + written); prints one table with
    the C program's figures passed on the command line.
"""
import argparse
import math
import os
import re
import struct
import sys
import time

import torch

MAGIC = b"TILELLM\0"


class Layer(torch.nn.Module):
    pass


class Llama(torch.nn.Module):
    def __init__(self, path, ctx, device="cuda"):
        super().__init__()
        with open(path, "rb") as f:
            hdr = f.read(64)
        if len(hdr) < 64 or hdr[:8] != MAGIC:
            sys.exit("reference.py: %s is not a weight file of examples/llm" % path)
        version, H, L, NH, NKV, HD, F, V = struct.unpack("<8I", hdr[8:40])
        eps, theta = struct.unpack("<2f", hdr[40:48])
        if version != 1:
            sys.exit("reference.py: %s: format version %d" % (path, version))
        self.H, self.L, self.NH, self.NKV, self.HD, self.F, self.V = H, L, NH, NKV, HD, F, V
        self.eps, self.ctx = eps, ctx
        n = os.path.getsize(path) // 2
        flat = torch.from_file(path, shared=False, size=n, dtype=torch.float16)[32:]
        off = [0]

        def take(*shape):
            k = math.prod(shape)
            t = flat[off[0]:off[0] + k].view(*shape).to(device)
            off[0] += k
            return t

        QD = (NH + 2 * NKV) * HD
        self.register_buffer("emb", take(V, H))
        self.layers = torch.nn.ModuleList()
        for _ in range(L):
            ly = Layer()
            ly.register_buffer("attn_norm", take(H))
            ly.register_buffer("wqkv", take(QD, H))        # wq, wk, wv are consecutive in the file
            ly.register_buffer("wo", take(H, NH * HD))
            ly.register_buffer("mlp_norm", take(H))
            ly.register_buffer("wgu", take(2 * F, H))      # w_gate, w_up likewise
            ly.register_buffer("wdown", take(H, F))
            self.layers.append(ly)
        self.register_buffer("final_norm", take(H))
        self.register_buffer("lm_head", take(V, H))
        if off[0] != flat.numel():
            sys.exit("reference.py: %s: size does not match its header" % path)
        # HF's rotary tables: inv_freq and the angles in fp32, cos/sin cast to fp16
        inv = 1.0 / (theta ** (torch.arange(0, HD, 2, dtype=torch.int64).float() / HD))
        ang = torch.outer(torch.arange(ctx, dtype=torch.float32), inv)
        ang = torch.cat([ang, ang], dim=-1)
        self.register_buffer("cos", ang.cos().to(torch.float16).to(device))
        self.register_buffer("sin", ang.sin().to(torch.float16).to(device))
        self.register_buffer("kc", torch.zeros(L, NKV, ctx, HD, dtype=torch.float16, device=device))
        self.register_buffer("vc", torch.zeros(L, NKV, ctx, HD, dtype=torch.float16, device=device))
        self.register_buffer("key_pos", torch.arange(ctx, device=device))

    def rms(self, x, w):
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return w * xf.to(torch.float16)

    @staticmethod
    def rope(x, cos, sin):
        half = x.shape[-1] // 2
        rot = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * cos + rot * sin

    def hidden(self, tok, pos):
        """tok, pos: int64 [T]; the final normed hidden state [T, H] (fp16)."""
        T = tok.shape[0]
        NH, NKV, HD = self.NH, self.NKV, self.HD
        grp = NH // NKV
        x = self.emb[tok]
        cos = self.cos[pos][:, None, :]
        sin = self.sin[pos][:, None, :]
        mask = self.key_pos[None, :] <= pos[:, None]                     # [T, ctx]
        for i, ly in enumerate(self.layers):
            qkv = self.rms(x, ly.attn_norm) @ ly.wqkv.t()
            q = qkv[:, :NH * HD].view(T, NH, HD)
            k = qkv[:, NH * HD:(NH + NKV) * HD].view(T, NKV, HD)
            v = qkv[:, (NH + NKV) * HD:].view(T, NKV, HD)
            q = self.rope(q, cos, sin)
            k = self.rope(k, cos, sin)
            self.kc[i].index_copy_(1, pos, k.transpose(0, 1))
            self.vc[i].index_copy_(1, pos, v.transpose(0, 1))
            qg = q.view(T, NKV, grp, HD).permute(1, 2, 0, 3).reshape(NKV, grp * T, HD)
            s = (qg @ self.kc[i].transpose(1, 2)) * (1.0 / math.sqrt(HD))  # [NKV, grp*T, ctx]
            s = s.view(NKV, grp, T, -1).masked_fill(~mask, float("-inf"))
            p = torch.softmax(s, dim=-1, dtype=torch.float32).to(torch.float16)
            o = (p.view(NKV, grp * T, -1) @ self.vc[i]).view(NKV, grp, T, HD)
            o = o.permute(2, 0, 1, 3).reshape(T, NH * HD)
            x = x + o @ ly.wo.t()
            gu = self.rms(x, ly.mlp_norm) @ ly.wgu.t()
            g, u = gu[:, :self.F], gu[:, self.F:]
            x = x + (torch.nn.functional.silu(g) * u) @ ly.wdown.t()
        return self.rms(x, self.final_norm)

    def forward(self, tok, pos):
        """fp16 logits of the last row, and its argmax: the decode step."""
        logits = self.hidden(tok, pos)[-1] @ self.lm_head.t()
        return logits, torch.argmax(logits)


def lcg_prompt(n, vocab):
    """llm.c's --prompt-random N: the same ids."""
    s, out = 0x9E3779B97F4A7C15, []
    for _ in range(n):
        s = (s * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out.append((s >> 33) % vocab)
    return out


def parse_ids(text):
    return [int(t) for t in re.split(r"[,\s]+", text.strip()) if t]


@torch.no_grad()
def check(args):
    dev = "cuda"
    c_tokens = parse_ids(args.c_tokens)
    n_prompt = args.prompt_random or len(parse_ids(args.prompt))
    m = Llama(args.weights, n_prompt + len(c_tokens) + 16, dev)
    prompt = lcg_prompt(args.prompt_random, m.V) if args.prompt_random else parse_ids(args.prompt)
    steps = len(c_tokens)
    c = torch.from_file(args.c_logits, shared=False, size=steps * m.V, dtype=torch.float32).view(steps, m.V).to(dev)
    lm32 = m.lm_head.float()
    P = len(prompt)
    tok = torch.tensor(prompt, device=dev)
    h = m.hidden(tok, torch.arange(P, device=dev))[-1:]
    rows = [(h.float() @ lm32.t())[0]]
    for s in range(1, steps):
        pos = P + s - 1
        h = m.hidden(torch.tensor([c_tokens[s - 1]], device=dev), torch.tensor([pos], device=dev))
        rows.append((h.float() @ lm32.t())[0])
    ref = torch.stack(rows)
    scale = ref.abs().amax(dim=1)
    diff = (c - ref).abs().amax(dim=1)
    rel = diff / scale
    worst = int(torch.argmax(rel))
    tol = 0.02
    logits_ok = bool((rel <= tol).all())
    print("reference: logits of %d steps: largest |c - ref| %.4g (%.4f of the step's logit scale %.3g, step %d); "
          "mean over steps %.4f; tolerance %.2f" % (steps, float(diff[worst]), float(rel[worst]), float(scale[worst]),
                                                  worst, float(rel.mean()), tol))
    ref_arg = torch.argmax(ref, dim=1).tolist()
    same = sum(int(a == b) for a, b in zip(ref_arg, c_tokens))
    ties = []
    tokens_ok = True
    for s, (a, b) in enumerate(zip(ref_arg, c_tokens)):
        if a != b:
            top2 = torch.topk(ref[s], 2).values
            gap = float(top2[0] - top2[1])
            near = float(ref[s, a] - ref[s, b]) <= tol * float(scale[s])
            ties.append("step %d: C %d, reference %d, reference top-2 gap %.4g, C's token %.4g below the max (%s)" %
                        (s, b, a, gap, float(ref[s, a] - ref[s, b]), "near tie" if near else "NOT a near tie"))
            tokens_ok = tokens_ok and near
    print("reference: tokens: %d of %d equal to the reference's greedy choice%s" %
          (same, steps, "" if same == steps else "; " + "; ".join(ties[:5])))
    print("%s logits: C vs PyTorch within %.2f of the logits' scale at every step" % ("PASS" if logits_ok else "FAIL",
                                                                                      tol))
    if same == steps:
        print("PASS tokens: %d greedy tokens identical" % steps)
    else:
        first = next(i for i, (a, b) in enumerate(zip(ref_arg, c_tokens)) if a != b)
        print("%s tokens: identical up to step %d of %d; the steps that differ are %s" %
              ("PASS" if tokens_ok else "FAIL", first, steps,
               "near ties (listed above)" if tokens_ok else "not all near ties"))
    return 0 if logits_ok and tokens_ok else 1


def time_cuda(fn, n):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(n):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / n


@torch.no_grad()
def bench(args):
    dev = "cuda"
    m = Llama(args.weights, args.ctx, dev)
    weight_bytes = sum(b.numel() * 2 for n, b in m.named_buffers()
                       if b.dtype == torch.float16 and n not in ("emb", "kc", "vc", "cos", "sin"))
    rows = {}

    # copy rate: 1 GiB read + written
    a = torch.empty(1 << 29, dtype=torch.float16, device=dev)
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
    ms = time_cuda(lambda: b.copy_(a), 20)
    copy_gbs = 2 * a.numel() * 2 / (ms * 1e-3) / 1e9
    del a, b

    def decode_ms(step, ctx, n):
        prompt = torch.tensor(lcg_prompt(ctx, m.V), device=dev)
        m.hidden(prompt, torch.arange(ctx, device=dev))
        tok = torch.tensor([1], device=dev)
        pos = torch.tensor([ctx], device=dev)
        state = {"tok": tok}

        def one():
            _, nxt = step(state["tok"].view(1), pos)
            state["tok"] = nxt.clone()
            pos.add_(1)

        for _ in range(3):      # warm-up (and, compiled, the graph recording)
            one()
        pos.fill_(ctx)
        return time_cuda(one, n)

    eager = m.forward
    if hasattr(torch._dynamo, "mark_static_address"):  # the cache is updated in place inside the graph
        torch._dynamo.mark_static_address(m.kc)
        torch._dynamo.mark_static_address(m.vc)
    for ctx in (128, 2048):
        rows[("eager", ctx)] = decode_ms(eager, ctx, 16)
    t0 = time.time()
    compiled = torch.compile(m.forward, mode="reduce-overhead", fullgraph=True)
    try:
        for ctx in (128, 2048):
            rows[("compile", ctx)] = decode_ms(compiled, ctx, args.steps)
    except Exception as e:  # keep the other figures
        print("reference.py: torch.compile failed: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:300]))
        rows[("compile", 128)] = rows[("compile", 2048)] = None
    compile_s = time.time() - t0

    P = 512
    prompt = torch.tensor(lcg_prompt(P, m.V), device=dev)
    pos = torch.arange(P, device=dev)
    m.hidden(prompt, pos)
    prefill_ms = time_cuda(lambda: m.hidden(prompt, pos), 5)

    bound_ms = weight_bytes / (copy_gbs * 1e9) * 1e3
    print("bench: weights read per token %.3f GB; copy rate %.0f GB/s (1 GiB device-to-device, read + written): "
          "copy-rate bound %.4f ms/token; torch.compile took %.0f s (compile + graph recording)" %
          (weight_bytes / 1e9, copy_gbs, bound_ms, compile_s))
    print()
    print("| batch 1, fp16 | decode ctx 128 ms/token | decode ctx 2048 ms/token | prefill 512 tokens/s |")
    print("|---|---|---|---|")

    def fmt(x, prec=4):
        return "-" if x is None else ("%.*f" % (prec, x))

    def tps(ms):
        return None if ms is None else P / (ms * 1e-3)

    table = [
        ("tile (llm.c, CUDA graph)", args.c_decode_128, args.c_decode_2048, args.c_prefill_512),
        ("tile (llm.c, CUDA graph + PDL)", args.c_decode_128_pdl, args.c_decode_2048_pdl, None),
        ("PyTorch eager", rows[("eager", 128)], rows[("eager", 2048)], tps(prefill_ms)),
        ('torch.compile(mode="reduce-overhead")', rows[("compile", 128)], rows[("compile", 2048)], None),
        ("copy-rate bound (weights / copy rate)", bound_ms, bound_ms, None),
    ]
    for name, a, b, c in table:
        print("| %s | %s | %s | %s |" % (name, fmt(a), fmt(b), fmt(c, 0)))
    print()
    for ctx, key in ((128, "c_decode_128"), (2048, "c_decode_2048")):
        c_ms = [x for x in (getattr(args, key), getattr(args, key + "_pdl")) if x]
        if not c_ms:
            continue
        c_best = min(c_ms)
        frac = bound_ms / c_best
        if rows[("compile", ctx)] is None:
            print("MISS decode ctx %d: tile %.4f ms/token, %.0f%% of the copy-rate bound; no torch.compile figure" %
                  (ctx, c_best, 100 * frac))
            continue
        vs = rows[("compile", ctx)] / c_best
        print("%s decode ctx %d: tile %.4f ms/token = %.2fx torch.compile (target >= 1.0), %.0f%% of the copy-rate "
              "bound (target >= 80%%)" % ("PASS" if vs >= 1.0 and frac >= 0.8 else "MISS", ctx, c_best, vs,
                                          100 * frac))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weights", required=True)
    ap.add_argument("--prompt")
    ap.add_argument("--prompt-random", type=int)
    ap.add_argument("--c-logits")
    ap.add_argument("--c-tokens")
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--ctx", type=int, default=2048 + 128, help="static KV cache positions for --bench")
    ap.add_argument("--steps", type=int, default=64, help="decode steps timed per context (--bench)")
    for k in ("c-decode-128", "c-decode-2048", "c-decode-128-pdl", "c-decode-2048-pdl", "c-prefill-512"):
        ap.add_argument("--" + k, type=float)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("reference.py: needs a CUDA GPU")
    if args.bench:
        return bench(args)
    if not (args.c_logits and args.c_tokens and (args.prompt or args.prompt_random)):
        sys.exit("reference.py: the check needs --prompt or --prompt-random, --c-logits and --c-tokens")
    return check(args)


if __name__ == "__main__":
    sys.exit(main())
