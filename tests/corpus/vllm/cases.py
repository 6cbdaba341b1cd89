"""vLLM (vllm-project/vllm) kernels, as vLLM's own launchers call them."""
from cases import case, T, S, tol, EXACT, next_pow2

P = "tests/corpus/vllm/"
F16 = tol(1e-2, 1e-2)
F32 = tol(1e-4, 1e-4)

# triton_decode_attention: q [B, H, D], paged kv buffer [NP, PAGE, KVH, D]
# (strides (-3, -2) = (KVH * D, D)), req_to_tokens [B, MAXP] page numbers,
# att_out [B, H, SPLITS, Dv + 1] (fp32).
_DEC_P = [T("in", "fp16", ["B", "H", "D"]), T("in", "fp16", ["NP", "PAGE", "KVH", "D"]),
          T("in", "fp16", ["NP", "PAGE", "KVH", "D"]), S("fp32", "0.08838834764831845"),
          T("in", "i32", ["B", "MAXP"], "randint:0:64"), T("in", "i32", ["B"], "randint:1:256"),
          T("inout", "fp32", ["B", "H", "SPLITS", "D + 1"], "zeros"),
          S("i32", "MAXP"), S("i32", "H * D"), S("i32", "D"),
          S("i32", "KVH * D"), S("i32", "D"), S("i32", "KVH * D"), S("i32", "D"),
          S("i32", "H * SPLITS * (D + 1)"), S("i32", "SPLITS * (D + 1)"), S("i32", "D + 1")]

CASES = [
    # launcher: vllm/attention/ops/triton_decode_attention.py:193 _decode_att_m_fwd()
    # (MHA: kv_group_num 1, num_warps 4, num_stages 2, BLOCK 64)
    case("vllm_decode_attn_stage1", P + "vllm/attention/ops/triton_decode_attention.py",
         "_fwd_kernel_stage1", _DEC_P,
         lambda s: {"kv_group_num": s["H"] // s["KVH"], "BLOCK_DMODEL": next_pow2(s["D"]),
                    "BLOCK_DV": next_pow2(s["D"]), "BLOCK_N": 64, "NUM_KV_SPLITS": s["SPLITS"],
                    "PAGE_SIZE": s["PAGE"], "logit_cap": 0.0, "Lk": s["D"], "Lv": s["D"]},
         "B, H, SPLITS",
         [{"B": 4, "H": 32, "KVH": 32, "D": 128, "NP": 64, "PAGE": 16, "MAXP": 16, "SPLITS": 8},
          {"B": 3, "H": 32, "KVH": 32, "D": 128, "NP": 67, "PAGE": 16, "MAXP": 17, "SPLITS": 8}],
         # q * k is fp16 and tl.sum adds it in fp16 (no dtype=): sums of 128 products near 10
         # round at 2^-7, so the order of the additions (each side's layout) moves the scores
         # by about 1e-3 and the outputs with them (tile 0.0027 off at most)
         4, tol=F16, num_warps=4, num_stages=2, grid_in_blob=False,
         cpu_sizes=[{"B": 1, "H": 32, "KVH": 32, "D": 128, "NP": 64, "PAGE": 16, "MAXP": 16,
                     "SPLITS": 8}]),
    # launcher: vllm/attention/ops/triton_decode_attention.py:427 _decode_grouped_att_m_fwd()
    # (GQA: BLOCK 32, BLOCK_H 16, num_warps 4, num_stages 2)
    case("vllm_decode_attn_grouped_stage1", P + "vllm/attention/ops/triton_decode_attention.py",
         "_fwd_grouped_kernel_stage1", _DEC_P,
         lambda s: {"kv_group_num": s["H"] // s["KVH"], "q_head_num": s["H"],
                    "BLOCK_DMODEL": next_pow2(s["D"]), "BLOCK_DPE": 0, "BLOCK_DV": next_pow2(s["D"]),
                    "BLOCK_N": 32, "BLOCK_H": 16, "NUM_KV_SPLITS": s["SPLITS"],
                    "PAGE_SIZE": s["PAGE"], "logit_cap": 0.0, "Lk": s["D"], "Lv": s["D"]},
         "B, cdiv(H, min(16, H // KVH)), SPLITS",
         [{"B": 4, "H": 32, "KVH": 8, "D": 128, "NP": 64, "PAGE": 16, "MAXP": 16, "SPLITS": 8},
          {"B": 3, "H": 32, "KVH": 8, "D": 128, "NP": 67, "PAGE": 16, "MAXP": 17, "SPLITS": 8}],
         4, tol=tol(1e-2, 1e-2), num_warps=4, num_stages=2, grid_in_blob=False,
         cpu_sizes=[{"B": 1, "H": 32, "KVH": 8, "D": 128, "NP": 64, "PAGE": 16, "MAXP": 16,
                     "SPLITS": 8}]),
    # launcher: vllm/attention/ops/triton_decode_attention.py:481 _decode_softmax_reducev_fwd()
    # Mid_O drawn at random (each split's lse at offset Lv); b_seq_len >= SPLITS
    case("vllm_decode_attn_stage2", P + "vllm/attention/ops/triton_decode_attention.py",
         "_fwd_kernel_stage2",
         [T("in", "fp32", ["B", "H", "SPLITS", "D + 1"]), T("out", "fp16", ["B", "H", "D"]),
          T("in", "i32", ["B"], "randint:64:1024"),
          S("i32", "H * SPLITS * (D + 1)"), S("i32", "SPLITS * (D + 1)"), S("i32", "D + 1"),
          S("i32", "H * D"), S("i32", "D")],
         lambda s: {"NUM_KV_SPLITS": s["SPLITS"], "BLOCK_DV": next_pow2(s["D"]), "Lv": s["D"]},
         "B, H",
         [{"B": 4, "H": 32, "D": 128, "SPLITS": 8}, {"B": 3, "H": 32, "D": 128, "SPLITS": 8}],
         4, tol=F16, num_warps=4, num_stages=2, grid_in_blob=False),
    # launcher: vllm/attention/ops/triton_merge_attn_states.py:25 merge_attn_states()
    # (default num_warps, output_lse given)
    case("vllm_merge_attn_states", P + "vllm/attention/ops/triton_merge_attn_states.py",
         "merge_attn_states_kernel",
         [T("out", "fp16", ["NT", "H", "D"]), T("out", "fp32", ["H", "NT"]),
          T("in", "fp16", ["NT", "H", "D"]), T("in", "fp32", ["H", "NT"]),
          T("in", "fp16", ["NT", "H", "D"]), T("in", "fp32", ["H", "NT"])],
         lambda s: {"HEAD_SIZE": s["D"], "PADDED_HEAD_SIZE": next_pow2(s["D"]), "OUTPUT_LSE": True},
         "NT, H",
         [{"NT": 64, "H": 32, "D": 128}, {"NT": 7, "H": 32, "D": 128}, {"NT": 5, "H": 12, "D": 80}],
         4, tol=F16, grid_in_blob=False),
]

# AWQ int4 (vllm/model_executor/layers/quantization/awq_triton.py): qweight
# [K, N // 8] int32 (eight 4-bit values a word), qzeros [K // G, N // 8],
# scales [K // G, N].
CASES += [
    # launcher: vllm/model_executor/layers/quantization/awq_triton.py:238 awq_dequantize_triton()
    # (block_size_x = block_size_y = 32, default num_warps)
    case("vllm_awq_dequantize", P + "vllm/model_executor/layers/quantization/awq_triton.py",
         "awq_dequantize_kernel",
         [T("in", "i32", ["K", "N // 8"], "randint:-2147483648:2147483647"),
          T("in", "fp16", ["K // G", "N"], "uniform:0.001:0.01"),
          T("in", "i32", ["K // G", "N // 8"], "randint:-2147483648:2147483647"),
          S("i32", "G"), T("out", "fp16", ["K", "N"]), S("i32", "N // 8"), S("i32", "K")],
         {"BLOCK_SIZE_X": 32, "BLOCK_SIZE_Y": 32}, "cdiv(N // 8, BLOCK_SIZE_X), cdiv(K, BLOCK_SIZE_Y)",
         [{"K": 4096, "N": 4096, "G": 128}, {"K": 896, "N": 1000, "G": 128}], 4,
         tol=tol(1e-3, 1e-3), grid_in_blob=False, cpu_sizes=[{"K": 64, "N": 256, "G": 32}]),
    # launcher: vllm/model_executor/layers/quantization/awq_triton.py:297 awq_gemm_triton()
    # (block sizes 32/32/32; split_k_iters 8 = the pack factor awq.py passes);
    # the kernel accumulates in fp16 (the output's type)
    case("vllm_awq_gemm", P + "vllm/model_executor/layers/quantization/awq_triton.py", "awq_gemm_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "i32", ["K", "N // 8"], "randint:-2147483648:2147483647"),
          T("inout", "fp16", ["8", "M", "N"], "zeros"),
          T("in", "i32", ["K // G", "N // 8"], "randint:-2147483648:2147483647"),
          T("in", "fp16", ["K // G", "N"], "uniform:0.001:0.01"),
          S("i32", "M"), S("i32", "N"), S("i32", "K"), S("i32", "G")],
         {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "SPLIT_K": 8},
         "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N), SPLIT_K",
         [{"M": 16, "K": 4096, "N": 4096, "G": 128}, {"M": 7, "K": 1024, "N": 1000, "G": 128}], 4,
         tol=tol(5e-2, 5e-2), grid_in_blob=False, cpu_sizes=[{"M": 4, "K": 512, "N": 64, "G": 128}]),
]

# Lightning attention (MiniMax-Text-01), vllm/model_executor/layers/lightning_attn.py
# _attention.forward(): q, k, v [b, h, n, d] fp32 (MiniMax's
# linear attention layer runs it on silu(qkv.to(torch.float32))), s [1, h, 1, 1] fp32 decay rates,
# BLOCK 256, NUM_BLOCK cdiv(n, 256); k_decay [1, h, 1, BLOCK]; kv [b, h, NUM_BLOCK, d, e]
# fp32; kv_history [b, h, d, e] fp32. tl.dot on fp32 operands: tf32 in Triton.
LA = "vllm/model_executor/layers/lightning_attn.py"
LA_SIZES = [{"b": 1, "h": 8, "n": 512, "d": 128}, {"b": 1, "h": 8, "n": 300, "d": 128}]
LA_CPU = [{"b": 1, "h": 8, "n": 40, "d": 128}]
LA_TOL = tol(1e-1, 2e-2)
NB = S("i32", "cdiv(n, 256)")
CASES += [
    # launcher: lightning_attn.py:342 _attention.forward() step 1 (grid (b*h*NUM_BLOCK, 8))
    case("vllm_lightning_attn_diag", P + LA, "_fwd_diag_kernel",
         [T("in", "fp32", ["b", "h", "n", "d"]), T("in", "fp32", ["b", "h", "n", "d"]),
          T("in", "fp32", ["b", "h", "n", "d"]), T("out", "fp32", ["b", "h", "n", "d"]),
          T("in", "fp32", ["h"], "uniform:0.01:0.5"), S("i32", "n"), NB],
         lambda s: {"b": s["b"], "h": s["h"], "d": s["d"], "e": s["d"], "BLOCK": 256, "CBLOCK": 32},
         "b * h * cdiv(n, 256), 8", LA_SIZES, 4, tol=LA_TOL, grid_in_blob=False, cpu_sizes=LA_CPU),
    # launcher: lightning_attn.py:374 step 2 (CBLOCK 64, NUM_FBLOCK 1)
    case("vllm_lightning_attn_kv_parallel", P + LA, "_fwd_kv_parallel",
         [T("in", "fp32", ["b", "h", "n", "d"]), T("in", "fp32", ["b", "h", "n", "d"]),
          T("in", "fp32", ["h", "256"], "uniform:0:1"), T("out", "fp32", ["b", "h", "cdiv(n, 256)", "d", "d"]),
          S("i32", "n"), NB],
         lambda s: {"b": s["b"], "h": s["h"], "d": s["d"], "e": s["d"], "BLOCK": 256,
                    "D_FBLOCK": s["d"], "E_FBLOCK": s["d"], "NUM_FBLOCK": 1, "CBLOCK": 64, "NUM_CBLOCK": 4},
         "b * h, cdiv(n, 256)", LA_SIZES, 4, tol=LA_TOL, grid_in_blob=False, cpu_sizes=LA_CPU),
    # launcher: lightning_attn.py:395 step 3 (grid (b*h, NUM_FBLOCK))
    case("vllm_lightning_attn_kv_reduce", P + LA, "_fwd_kv_reduce",
         [T("in", "fp32", ["h"], "uniform:0.01:0.5"), T("inout", "fp32", ["b", "h", "cdiv(n, 256)", "d", "d"]),
          T("inout", "fp32", ["b", "h", "d", "d"]), S("i32", "n"), NB],
         lambda s: {"b": s["b"], "h": s["h"], "d": s["d"], "e": s["d"], "BLOCK": 256,
                    "D_FBLOCK": s["d"], "E_FBLOCK": s["d"]},
         "b * h, 1", LA_SIZES, 4, tol=F32, grid_in_blob=False, cpu_sizes=LA_CPU),
    # launcher: lightning_attn.py:411 step 4 (grid (b*h, NUM_BLOCK * NUM_CBLOCK))
    case("vllm_lightning_attn_none_diag", P + LA, "_fwd_none_diag_kernel",
         [T("in", "fp32", ["b", "h", "n", "d"]), T("inout", "fp32", ["b", "h", "n", "d"]),
          T("in", "fp32", ["h"], "uniform:0.01:0.5"), T("in", "fp32", ["b", "h", "cdiv(n, 256)", "d", "d"]),
          S("i32", "n"), NB],
         lambda s: {"b": s["b"], "h": s["h"], "d": s["d"], "e": s["d"], "BLOCK": 256,
                    "E_FBLOCK": s["d"], "CBLOCK": 64, "NUM_CBLOCK": 4},
         "b * h, cdiv(n, 256) * 4", LA_SIZES, 4, tol=LA_TOL, grid_in_blob=False, cpu_sizes=LA_CPU),
    # launcher: lightning_attn.py:560 linear_decode_forward_triton() (BLOCK_SIZE 32, grid
    # (B, H, D // 32)); kv_caches [slots, H, D, D] fp32; slot_idx drawn from 256 slots (two
    # requests on one slot would race; this seed's draws are distinct)
    case("vllm_lightning_attn_decode", P + LA, "_linear_attn_decode_kernel",
         [T("in", "fp32", ["B", "H", "1", "D"]), T("in", "fp32", ["B", "H", "1", "D"]),
          T("in", "fp32", ["B", "H", "1", "D"]), T("inout", "fp32", ["256", "H", "D", "D"]),
          T("in", "fp32", ["H"], "uniform:0.01:0.5"), T("in", "i64", ["B"], "randint:0:256"),
          T("out", "fp32", ["B", "H", "1", "D"]), S("i32", "H * D"), S("i32", "D"),
          S("i32", "H * D * D"), S("i32", "D * D"), S("i32", "D"), S("i32", "1")],
         lambda s: {"D": s["D"], "BLOCK_SIZE": 32}, "B, H, D // BLOCK_SIZE",
         [{"B": 4, "H": 8, "D": 128}, {"B": 3, "H": 8, "D": 128}], 4, tol=tol(1e-4, 1e-4),
         grid_in_blob=False, cpu_sizes=[{"B": 1, "H": 2, "D": 128}]),
]
