#!/usr/bin/env python3
"""make_weights.py - a random-weights file for examples/llm.

    python3 make_weights.py OUT.bin            # TinyLlama-1.1B's shape (2.2 GB): needs torch
    python3 make_weights.py --tiny OUT.bin     # hidden 128, 2 layers: pure Python is enough

The format (examples/llm/README.md): a 64-byte little-endian header (magic
"TILELLM\\0", version 1, hidden, layers, heads, kv_heads, head_dim, ffn,
vocab as uint32, rms_eps and rope_theta as float32, zeros), then fp16
tensors in a fixed order: embedding [vocab, hidden]; per layer attn_norm
[hidden], wq [heads*head_dim, hidden], wk and wv [kv_heads*head_dim, hidden],
wo [hidden, heads*head_dim], mlp_norm [hidden], w_gate and w_up [ffn,
hidden], w_down [hidden, ffn]; final_norm [hidden]; lm_head [vocab, hidden].
Every matrix is row-major [out, in], as nn.Linear stores its weight.

Values: matrices and the embedding normal * 0.02 (so each projection of a
unit-RMS input has outputs of about 0.02 * sqrt(in) ~ 1 for in = 2048,
well inside fp16), norm weights 1 + 0.05 * normal. With torch (the GPU
machine) the numbers come from torch.randn on the GPU when there is one,
seeded; without it from Python's random module, fine for --tiny (1.2 M
values, a few seconds) but far too slow for 1.1 B.
"""
import argparse
import math
import random
import struct
import sys

TINYLLAMA = dict(hidden=2048, layers=22, heads=32, kv_heads=4, head_dim=64, ffn=5632, vocab=32000)
TINY = dict(hidden=128, layers=2, heads=4, kv_heads=2, head_dim=64, ffn=256, vocab=512)
MAGIC = b"TILELLM\0"
VERSION = 1


def header(cfg, eps, theta):
    h = MAGIC + struct.pack("<8I", VERSION, cfg["hidden"], cfg["layers"], cfg["heads"], cfg["kv_heads"],
                            cfg["head_dim"], cfg["ffn"], cfg["vocab"])
    h += struct.pack("<2f", eps, theta)
    return h + b"\0" * (64 - len(h))


def shapes(cfg):
    """(name, shape, kind) in file order; kind 'norm' or 'mat'."""
    H, F, V = cfg["hidden"], cfg["ffn"], cfg["vocab"]
    A, KV = cfg["heads"] * cfg["head_dim"], cfg["kv_heads"] * cfg["head_dim"]
    out = [("embedding", (V, H), "mat")]
    for layer in range(cfg["layers"]):
        p = "layers.%d." % layer
        out += [(p + "attn_norm", (H,), "norm"), (p + "wq", (A, H), "mat"), (p + "wk", (KV, H), "mat"),
                (p + "wv", (KV, H), "mat"), (p + "wo", (H, A), "mat"), (p + "mlp_norm", (H,), "norm"),
                (p + "w_gate", (F, H), "mat"), (p + "w_up", (F, H), "mat"), (p + "w_down", (H, F), "mat")]
    out += [("final_norm", (H,), "norm"), ("lm_head", (V, H), "mat")]
    return out


def write_torch(f, cfg, seed, std, device):
    import torch
    dev = device or ("cuda" if torch.cuda.is_available() else "cpu")
    gen = torch.Generator(device=dev)
    gen.manual_seed(seed)
    for _, shape, kind in shapes(cfg):
        t = torch.randn(shape, generator=gen, device=dev, dtype=torch.float32)
        t = (1.0 + 0.05 * t) if kind == "norm" else t * std
        t = t.to(torch.float16).contiguous().cpu()
        try:
            f.write(t.numpy().tobytes())
        except Exception:  # torch without numpy: slower, same bytes
            bits = t.view(torch.int16).flatten().tolist()
            f.write(struct.pack("<%dh" % len(bits), *bits))


def write_python(f, cfg, seed, std):
    rng = random.Random(seed)
    for _, shape, kind in shapes(cfg):
        n = 1
        for d in shape:
            n *= d
        if kind == "norm":
            vals = [1.0 + 0.05 * rng.gauss(0.0, 1.0) for _ in range(n)]
        else:
            vals = [std * rng.gauss(0.0, 1.0) for _ in range(n)]
        f.write(struct.pack("<%de" % n, *vals))


def main():
    ap = argparse.ArgumentParser(description="random weights for examples/llm")
    ap.add_argument("out")
    ap.add_argument("--tiny", action="store_true", help="hidden 128, 2 layers, 4 heads (2 KV), MLP 256, vocab 512")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--std", type=float, default=0.02, help="standard deviation of the matrices (0.02)")
    ap.add_argument("--eps", type=float, default=1e-5)
    ap.add_argument("--theta", type=float, default=10000.0)
    ap.add_argument("--layers", type=int, help="override the layer count")
    ap.add_argument("--pure-python", action="store_true", help="do not use torch even if it is there")
    ap.add_argument("--device", help="torch device for the random numbers (default: cuda if available)")
    args = ap.parse_args()
    cfg = dict(TINY if args.tiny else TINYLLAMA)
    if args.layers:
        cfg["layers"] = args.layers
    have_torch = False
    if not args.pure_python:
        try:
            import torch  # noqa: F401
            have_torch = True
        except ImportError:
            pass
    total = sum(math.prod(shape) for _, shape, _ in shapes(cfg))
    if not have_torch and total > 50_000_000:
        sys.exit("make_weights.py: %d values need torch (pure Python would take most of an hour); "
                 "use --tiny, or run it where torch is installed" % total)
    with open(args.out, "wb") as f:
        f.write(header(cfg, args.eps, args.theta))
        if have_torch:
            write_torch(f, cfg, args.seed, args.std, args.device)
        else:
            write_python(f, cfg, args.seed, args.std)
    print("make_weights.py: wrote %s: %d fp16 values (%.3f GB), %s" %
          (args.out, total, (64 + 2 * total) / 1e9, ", ".join("%s %d" % kv for kv in cfg.items())))


if __name__ == "__main__":
    main()
