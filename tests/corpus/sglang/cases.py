"""SGLang (sgl-project/sglang) kernels, as SGLang's own launchers call them."""
from cases import case, T, S, tol, EXACT, next_pow2

P = "tests/corpus/sglang/python/"
INC = ["tests/corpus/sglang/python"]
F16 = tol(1e-2, 1e-2)
BF16 = tol(2e-2, 2e-2)
F32 = tol(1e-4, 1e-4)


def _norm_warps(s, per=256, cap=32):
    # max(min(next_power_of_2(cdiv(hidden_dim, per)), max_warps), 4), max_warps 32 on CUDA
    return max(min(next_pow2(-(-s["N"] // per)), cap), 4)


ROWS = [{"M": 16, "N": 4096}, {"M": 7, "N": 5120}, {"M": 3, "N": 1000}]

CASES = [
    # launcher: python/sglang/srt/layers/elementwise.py:66 fused_softcap() (autotune=False:
    # BLOCK_SIZE 128, num_warps 8); softcap_const 30.0 (Gemma-2 final logit softcap)
    case("sglang_fused_softcap", P + "sglang/srt/layers/elementwise.py", "fused_softcap_kernel",
         [T("out", "fp32", ["n"]), T("in", "bf16", ["n"]), S("i32", "n")],
         {"softcap_const": 30.0, "BLOCK_SIZE": 128}, "cdiv(n, BLOCK_SIZE)",
         [{"n": 16 * 32000}, {"n": 3 * 32001}], 4, tol=tol(1e-4, 1e-4), num_warps=8,
         grid_in_blob=False, include_dirs=INC, cpu_sizes=[{"n": 1000}]),
    # launcher: python/sglang/srt/layers/elementwise.py:196 fused_dual_residual_rmsnorm()
    # (autotune=False: BLOCK_SIZE next_power_of_2(hidden_dim))
    case("sglang_fused_dual_residual_rmsnorm", P + "sglang/srt/layers/elementwise.py",
         "fused_dual_residual_rmsnorm_kernel",
         [T("out", "bf16", ["M", "N"]), T("out", "bf16", ["M", "N"]), T("in", "bf16", ["M", "N"]),
          T("in", "bf16", ["M", "N"]), T("in", "bf16", ["N"]), T("in", "bf16", ["N"])],
         lambda s: {"eps": 1e-6, "hidden_dim": s["N"], "BLOCK_SIZE": next_pow2(s["N"])},
         "M", ROWS, 4, tol=BF16, num_warps=_norm_warps, grid_in_blob=False, include_dirs=INC),
    # launcher: python/sglang/srt/layers/elementwise.py:250 fused_rmsnorm()
    case("sglang_fused_rmsnorm", P + "sglang/srt/layers/elementwise.py", "fused_rmsnorm_kernel",
         [T("out", "bf16", ["M", "N"]), T("in", "bf16", ["M", "N"]), T("in", "bf16", ["N"])],
         lambda s: {"eps": 1e-6, "hidden_dim": s["N"], "BLOCK_SIZE": next_pow2(s["N"])},
         "M", ROWS, 4, tol=BF16, num_warps=_norm_warps, grid_in_blob=False, include_dirs=INC),
    # launcher: python/sglang/srt/layers/elementwise.py:351 experts_combine_triton()
    # (moe_hidden_states [bs, combine_k, hidden])
    case("sglang_experts_combine", P + "sglang/srt/layers/elementwise.py", "experts_combine_kernel",
         [T("out", "bf16", ["M", "N"]), T("in", "bf16", ["M", "KC", "N"]), T("in", "bf16", ["M", "N"])],
         lambda s: {"combine_k": s["KC"], "hidden_dim": s["N"], "BLOCK_SIZE": next_pow2(s["N"])},
         "M", [{"M": 16, "KC": 2, "N": 4096}, {"M": 7, "KC": 2, "N": 4096}, {"M": 5, "KC": 4, "N": 1000}],
         4, tol=BF16, num_warps=lambda s: max(min(next_pow2(-(-s["N"] // 1024)), 8), 4),
         grid_in_blob=False, include_dirs=INC),
    # launcher: python/sglang/srt/layers/elementwise.py:434 gelu_and_mul_triton() (quantize
    # None: quant_max None, static_scale False; out_scales is None there, an unused fp32
    # buffer here since a runtime pointer cannot be None)
    case("sglang_gelu_and_mul", P + "sglang/srt/layers/elementwise.py", "gelu_and_mul_kernel",
         [T("out", "bf16", ["M", "N"]), T("out", "fp32", ["M"], "zeros"), T("in", "bf16", ["M", "2 * N"])],
         lambda s: {"quant_max": None, "static_scale": False, "hidden_dim": s["N"],
                    "BLOCK_SIZE": next_pow2(s["N"])},
         "M", [{"M": 16, "N": 14336}, {"M": 7, "N": 14336}, {"M": 3, "N": 1000}], 4, tol=BF16,
         num_warps=lambda s: _norm_warps(s, per=8 * 32), grid_in_blob=False, include_dirs=INC),
    # launcher: python/sglang/srt/layers/elementwise.py:516 silu_and_mul_triton()
    case("sglang_silu_and_mul", P + "sglang/srt/layers/elementwise.py", "silu_and_mul_kernel",
         [T("out", "bf16", ["M", "N"]), T("out", "fp32", ["M"], "zeros"), T("in", "bf16", ["M", "2 * N"])],
         lambda s: {"quant_max": None, "static_scale": False, "hidden_dim": s["N"],
                    "BLOCK_SIZE": next_pow2(s["N"])},
         "M", [{"M": 16, "N": 14336}, {"M": 7, "N": 14336}, {"M": 3, "N": 1000}], 4, tol=BF16,
         num_warps=lambda s: _norm_warps(s, per=8 * 32), grid_in_blob=False, include_dirs=INC),
]

# LoRA segment GEMMs (triton backend): x rows of BS segments, segment b at
# seg_indptr[b] of length seg_lens[b] <= ML, adapter weight_indices[b] < L.
# seg_indptr is drawn in [0, S - ML] and seg_lens in [1, ML] so every segment
# stays inside x (segments may overlap: outputs of overlapping rows race in
# "out" tensors, so S is large against BS * ML).
# segments of at most 64 rows at 0, 64, 128: apart, as the launcher's batch
# lays them out (random starts overlapped, and two programs wrote one row)
_SEG = [T("in", "i32", ["BS"], "randint:1:65"), T("in", "i32", ["BS"], "steps:64"),
        T("in", "i32", ["BS"], "randint:0:4")]
LORA = [{"S": 256, "BS": 1, "ML": 64, "L": 4, "H": 4096, "R": 16},
        {"S": 263, "BS": 3, "ML": 64, "L": 4, "H": 2560, "R": 16}]
CASES += [
    # launcher: python/sglang/srt/lora/triton_ops/sgemm_lora_a.py:129 sgemm_lora_a_fwd()
    # (stack_num 3 for qkv: N = 3 * r; BLOCK_S 16, BLOCK_R 16, BLOCK_K 256)
    case("sglang_sgemm_lora_a", P + "sglang/srt/lora/triton_ops/sgemm_lora_a.py", "_sgemm_lora_a_kernel",
         [T("in", "bf16", ["S", "H"]), T("in", "bf16", ["L", "3 * R", "H"]), T("inout", "bf16", ["S", "3 * R"], "zeros"),
          S("i32", "3 * R"), S("i32", "H"), S("i32", "3"),
          S("i32", "H"), S("i32", "1"), S("i32", "3 * R * H"), S("i32", "H"), S("i32", "1"),
          S("i32", "3 * R"), S("i32", "1")] + _SEG + [T("in", "i32", ["L"], "randint:8:17")],
         {"BLOCK_S": 16, "BLOCK_N": 16, "BLOCK_K": 256},
         "cdiv(ML, BLOCK_S) * cdiv(3 * R, BLOCK_N), BS", LORA, 4, tol=BF16, grid_in_blob=False,
         include_dirs=INC),
    # launcher: python/sglang/srt/lora/triton_ops/sgemm_lora_b.py:139 sgemm_lora_b_fwd()
    # (base_output given: fuse_scaling_add True; BLOCK_S 16, BLOCK_N 256, BLOCK_R 16)
    case("sglang_sgemm_lora_b", P + "sglang/srt/lora/triton_ops/sgemm_lora_b.py", "_sgemm_lora_b_kernel",
         [T("in", "bf16", ["S", "R"]), T("in", "bf16", ["L", "H", "R"]), T("inout", "bf16", ["S", "H"]),
          S("i32", "H"), S("i32", "R"),
          S("i32", "R"), S("i32", "1"), S("i32", "H * R"), S("i32", "R"), S("i32", "1"),
          S("i32", "H"), S("i32", "1")] + _SEG + [S("i1", "1"), S("fp32", "0.5")],
         {"BLOCK_S": 16, "BLOCK_N": 256, "BLOCK_K": 16},
         "cdiv(ML, BLOCK_S) * cdiv(H, BLOCK_N), BS", LORA, 4, tol=BF16, grid_in_blob=False,
         include_dirs=INC),
    # launcher: python/sglang/srt/lora/triton_ops/qkv_lora_b.py:160 qkv_lora_b_fwd()
    # (BLOCK_S 16, BLOCK_OUT 64, BLOCK_R 16; output_offset is [0, q, q+kv, q+2kv] there,
    # 0, 1024, 2048, 3072 here: increasing, so the q/k/v slices stay apart inside the
    # output (random offsets overlapped, and two programs added into one element)
    case("sglang_qkv_lora_b", P + "sglang/srt/lora/triton_ops/qkv_lora_b.py", "_qkv_lora_b_kernel",
         [T("in", "bf16", ["S", "3 * R"]), T("in", "bf16", ["L", "H + 2 * KV", "R"]),
          T("inout", "bf16", ["S", "H + 2 * KV"]),
          S("i32", "R"), S("i32", "H"),
          S("i32", "3 * R"), S("i32", "1"), S("i32", "(H + 2 * KV) * R"), S("i32", "R"), S("i32", "1"),
          S("i32", "H + 2 * KV"), S("i32", "1")] + _SEG
         + [T("in", "i32", ["L"], "randint:0:17"), T("in", "i32", ["4"], "steps:1024"),
            T("in", "fp32", ["L"], "uniform:0.5:2")],
         {"BLOCK_S": 16, "BLOCK_N": 64, "BLOCK_K": 16},
         "cdiv(ML, BLOCK_S) * cdiv(H, BLOCK_N), 3, BS",
         [dict(l, KV=512) for l in LORA], 4, tol=BF16, grid_in_blob=False, include_dirs=INC),
    # launcher: python/sglang/srt/lora/triton_ops/gate_up_lora_b.py:128 gate_up_lora_b_fwd()
    # (base_output given: fuse_scaling_add True)
    case("sglang_gate_up_lora_b", P + "sglang/srt/lora/triton_ops/gate_up_lora_b.py",
         "_gate_up_lora_b_kernel",
         [T("in", "bf16", ["S", "2 * R"]), T("in", "bf16", ["L", "2 * I", "R"]), T("inout", "bf16", ["S", "2 * I"]),
          S("i32", "R"), S("i32", "I"),
          S("i32", "2 * R"), S("i32", "1"), S("i32", "2 * I * R"), S("i32", "R"), S("i32", "1"),
          S("i32", "2 * I"), S("i32", "1")] + _SEG + [S("i1", "1"), S("fp32", "0.5")],
         {"BLOCK_S": 16, "BLOCK_N": 64, "BLOCK_K": 16},
         "cdiv(ML, BLOCK_S) * cdiv(I, BLOCK_N), 2, BS",
         [dict(l, I=1376) for l in LORA], 4, tol=BF16, grid_in_blob=False, include_dirs=INC),
]

CASES += [
    # launcher: python/sglang/srt/layers/attention/triton_ops/merge_state.py:84 merge_state_triton()
    # (lse [NUM_TOKENS, NUM_HEADS], output_lse allocated: OUTPUT_LSE True)
    case("sglang_merge_state", P + "sglang/srt/layers/attention/triton_ops/merge_state.py",
         "merge_state_kernel",
         [T("out", "bf16", ["NT", "H", "D"]), T("out", "fp32", ["NT", "H"]),
          T("in", "bf16", ["NT", "H", "D"]), T("in", "fp32", ["NT", "H"]),
          T("in", "bf16", ["NT", "H", "D"]), T("in", "fp32", ["NT", "H"])],
         lambda s: {"HEAD_SIZE": s["D"], "PADDED_HEAD_SIZE": next_pow2(s["D"]), "OUTPUT_LSE": True},
         "NT, H", [{"NT": 64, "H": 32, "D": 128}, {"NT": 7, "H": 32, "D": 128}, {"NT": 5, "H": 8, "D": 96}],
         4, tol=BF16, grid_in_blob=False, include_dirs=INC),
    # launcher: python/sglang/srt/layers/attention/triton_ops/prefill_attention.py:178
    # context_attention_fwd() on sm_90 (BLOCK 128, num_warps 8 for Lk > 64, num_stages 1,
    # causal). b_start_loc in [0, T - 256], b_seq_len in [1, 256] (max_input_len 256).
    case("sglang_prefill_attention", P + "sglang/srt/layers/attention/triton_ops/prefill_attention.py",
         "_fwd_kernel",
         [T("in", "bf16", ["T", "H", "D"]), T("in", "bf16", ["T", "KVH", "D"]), T("in", "bf16", ["T", "KVH", "D"]),
          S("fp32", "0.08838834764831845"), T("in", "i32", ["B"], "steps:256"),
          T("in", "i32", ["B"], "randint:1:257"), T("inout", "bf16", ["T", "H", "D"], "zeros"),
          S("i32", "H * D"), S("i32", "D"), S("i32", "KVH * D"), S("i32", "D"), S("i32", "KVH * D"), S("i32", "D"),
          S("i32", "H * D"), S("i32", "D")],
         lambda s: {"kv_group_num": s["H"] // s["KVH"], "BLOCK_M": 128, "BLOCK_DMODEL": next_pow2(s["D"]),
                    "BLOCK_N": 128, "IS_CAUSAL": True, "Lk": s["D"]},
         "B, H, cdiv(256, BLOCK_M)",
         [{"B": 4, "H": 32, "KVH": 8, "D": 128, "T": 1024}, {"B": 3, "H": 32, "KVH": 8, "D": 128, "T": 1031}],
         4, tol=tol(2e-2, 2e-2), num_warps=8, num_stages=1, grid_in_blob=False, include_dirs=INC,
         cpu_sizes=[{"B": 1, "H": 8, "KVH": 2, "D": 128, "T": 1024}]),
]
