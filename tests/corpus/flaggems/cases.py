"""FlagGems (FlagOpen/FlagGems) kernels, as FlagGems' own launchers call them."""
from cases import case, T, S, tol, EXACT, next_pow2

P = "tests/corpus/flaggems/src/flag_gems/"
INC = ["tests/corpus/flaggems/src"]
F16 = tol(1e-2, 1e-2)
F32 = tol(1e-4, 1e-4)

# Not in CASES: the flash_api kernels of ops/flash_kernel.py (flash_fwd_kernel,
# flash_fwd_splitkv_kernel, flash_varlen_fwd_kernel over a paged KV cache): their
# launcher (ops/flash_api.py) passes None pointers and a philox argument tuple that a
# case cannot express; flash_fwd_splitkv_combine_kernel: the launcher's output strides
# address rows past the output for more than one head (flash_api.py:788).
CASES = [
    # launcher: src/flag_gems/fused/reshape_and_cache.py:94 reshape_and_cache()
    # k_scale/v_scale: torch tensors in vLLM's call (unused by the kernel).
    # slot_mapping is drawn at random: a slot hit twice makes the copy racy,
    # so tokens are few against the slots.
    case("flaggems_reshape_and_cache", P + "fused/reshape_and_cache.py", "reshape_and_cache_kernel",
         [T("in", "fp16", ["NT", "H", "D"]), T("in", "fp16", ["NT", "H", "D"]),
          T("inout", "fp16", ["NB", "H", "D // 8", "BS", "8"], "zeros"),
          T("inout", "fp16", ["NB", "H", "D", "BS"], "zeros"), T("in", "i64", ["NT"], "randint:0:2048"),
          S("i32", "H * D"), S("i32", "H * D"), S("i32", "H"), S("i32", "D"), S("i32", "BS"), S("i32", "8"),
          T("in", "fp32", ["1"]), T("in", "fp32", ["1"])],
         lambda s: {"n": s["H"] * s["D"]}, "NT",
         [{"NT": 16, "H": 32, "D": 128, "NB": 128, "BS": 16}, {"NT": 7, "H": 8, "D": 64, "NB": 128, "BS": 16}],
         4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/fused/reshape_and_cache_flash.py:97 reshape_and_cache_flash()
    case("flaggems_reshape_and_cache_flash", P + "fused/reshape_and_cache_flash.py",
         "reshape_and_cache_flash_kernel",
         [T("in", "bf16", ["NT", "H", "D"]), T("in", "bf16", ["NT", "H", "D"]),
          T("inout", "bf16", ["NB", "BS", "H", "D"], "zeros"), T("inout", "bf16", ["NB", "BS", "H", "D"], "zeros"),
          T("in", "i64", ["NT"], "randint:0:4096"),
          S("i32", "BS * H * D"), S("i32", "H * D"), S("i32", "H * D"), S("i32", "H"), S("i32", "D"),
          S("i32", "BS"), T("in", "fp32", ["1"]), T("in", "fp32", ["1"])],
         lambda s: {"n": s["H"] * s["D"]}, "NT",
         [{"NT": 16, "H": 8, "D": 128, "NB": 256, "BS": 16}, {"NT": 5, "H": 4, "D": 80, "NB": 256, "BS": 16}],
         4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/fused/concat_and_cache_mla.py:145 ConcatAndCacheMla.forward()
    # kv_cache_dtype "auto" (kv_dtype 0); BLOCK_SIZE = min(kv_lora_rank, 512); each token
    # its own slot, as a cache gives them (two tokens in one slot race, on both sides)
    case("flaggems_concat_and_cache_mla", P + "fused/concat_and_cache_mla.py", "concat_and_cache_mla_kernel",
         [T("in", "bf16", ["NT", "R"]), T("in", "bf16", ["NT", "PE"]),
          T("inout", "bf16", ["NB", "BS", "R + PE"], "zeros"), T("in", "i64", ["NT"], "perm"),
          S("i32", "BS * (R + PE)"), S("i32", "R + PE"), S("i32", "R"), S("i32", "PE"),
          S("i32", "R"), S("i32", "PE"), S("i32", "BS"), T("in", "fp32", ["1"], "uniform:0.5:2")],
         lambda s: {"kv_dtype": 0, "BLOCK_SIZE": min(s["R"], 512)}, "NT",
         [{"NT": 16, "R": 512, "PE": 64, "NB": 16, "BS": 64}, {"NT": 3, "R": 512, "PE": 64, "NB": 16, "BS": 64}],
         4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/fused/moe_align_block_size.py:115 moe_align_block_size_triton()
    # (grid num_experts; tokens_per_thread = ceil_div(numel, num_experts))
    case("flaggems_moe_align_stage1", P + "fused/moe_align_block_size.py", "moe_align_block_size_stage1",
         [T("in", "i32", ["NT", "K"], "randint:0:64"), T("inout", "i32", ["E + 1", "E"], "zeros"),
          S("i32", "NT * K"), S("i32", "cdiv(NT * K, E)")],
         lambda s: {"num_experts": s["E"]}, "E",
         [{"NT": 64, "K": 8, "E": 64}, {"NT": 7, "K": 8, "E": 64}], 4, tol=EXACT, include_dirs=INC),
    case("flaggems_moe_align_stage2", P + "fused/moe_align_block_size.py", "moe_align_block_size_stage2",
         [T("inout", "i32", ["E + 1", "E"], "randint:0:20")],
         lambda s: {"num_experts": s["E"]}, "E",
         [{"E": 64}, {"E": 8}], 4, tol=EXACT, include_dirs=INC),
    case("flaggems_moe_align_stage3", P + "fused/moe_align_block_size.py", "moe_align_block_size_stage3",
         [T("out", "i32", ["1"]), T("in", "i32", ["E + 1", "E"], "randint:0:100"),
          T("inout", "i32", ["E + 1"], "zeros")],
         lambda s: {"num_experts": s["E"], "block_size": s["BLK"]}, "1",
         [{"E": 64, "BLK": 64}, {"E": 8, "BLK": 16}], 4, tol=EXACT, include_dirs=INC),
    # stage4 reads the counts and cumsum stages 1-3 leave; drawn independently
    # here: cumsum zeros (no expert_ids loop) and per-thread counts spread
    # over a large sorted_token_ids so that programs do not write one slot.
    case("flaggems_moe_align_stage4", P + "fused/moe_align_block_size.py", "moe_align_block_size_stage4",
         [T("in", "i32", ["NT", "K"], "randint:0:64"), T("inout", "i32", ["1000000 + NT * K"], "zeros"),
          T("inout", "i32", ["cdiv(NT * K, BLK) + E"], "zeros"),
          T("inout", "i32", ["E + 1", "E"], "randint:0:1000000"), T("in", "i32", ["E + 1"], "zeros"),
          S("i32", "NT * K"), S("i32", "cdiv(NT * K, E)")],
         lambda s: {"num_experts": s["E"], "block_size": s["BLK"]}, "E",
         [{"NT": 64, "K": 8, "E": 64, "BLK": 64}, {"NT": 7, "K": 8, "E": 64, "BLK": 16}],
         4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/fused/rotary_embedding.py:283 apply_rotary_pos_emb(inplace=False)
    # position_ids given (seq_len is then None in the launcher, unused by the kernel)
    case("flaggems_rotary_emb", P + "fused/rotary_embedding.py", "apply_rotary_pos_emb_kernel",
         [T("out", "bf16", ["NT", "HQ", "D"]), T("out", "bf16", ["NT", "HK", "D"]),
          T("in", "bf16", ["NT", "HQ", "D"]), T("in", "bf16", ["NT", "HK", "D"]),
          T("in", "fp32", ["MAXP", "D // 2"]), T("in", "fp32", ["MAXP", "D // 2"]),
          T("in", "i64", ["NT"], "randint:0:512"),
          S("i32", "HQ * D"), S("i32", "D"), S("i32", "1"), S("i32", "HK * D"), S("i32", "D"), S("i32", "1"),
          S("i32", "HQ * D"), S("i32", "D"), S("i32", "1"), S("i32", "HK * D"), S("i32", "D"), S("i32", "1"),
          S("i32", "1"), S("i32", "D // 2"), S("i32", "D // 2"), S("i32", "NT")],
         lambda s: {"NUM_Q_HEADS": s["HQ"], "NUM_K_HEADS": s["HK"], "HEAD_DIM": s["D"],
                    "PADDED_HEAD_DIM": max(next_pow2(s["D"]), 16), "ROTARY_INTERLEAVED": False,
                    "MAX_POSITION_EMBEDDINGS": s["MAXP"]}, "NT",
         [{"NT": 32, "HQ": 32, "HK": 8, "D": 128, "MAXP": 512}, {"NT": 5, "HQ": 8, "HK": 2, "D": 96, "MAXP": 512}],
         4, tol=F16, include_dirs=INC),
    # launcher: src/flag_gems/fused/rotary_embedding.py:253 apply_rotary_pos_emb(inplace=True), interleaved
    case("flaggems_rotary_emb_inplace", P + "fused/rotary_embedding.py", "apply_rotary_pos_emb_inplace_kernel",
         [T("inout", "fp16", ["NT", "HQ", "D"]), T("inout", "fp16", ["NT", "HK", "D"]),
          T("in", "fp32", ["MAXP", "D // 2"]), T("in", "fp32", ["MAXP", "D // 2"]),
          T("in", "i64", ["NT"], "randint:0:512"),
          S("i32", "HQ * D"), S("i32", "D"), S("i32", "1"), S("i32", "HK * D"), S("i32", "D"), S("i32", "1"),
          S("i32", "1"), S("i32", "D // 2"), S("i32", "D // 2"), S("i32", "NT")],
         lambda s: {"NUM_Q_HEADS": s["HQ"], "NUM_K_HEADS": s["HK"], "HEAD_DIM": s["D"],
                    "PADDED_HEAD_DIM": max(next_pow2(s["D"]), 16), "ROTARY_INTERLEAVED": True,
                    "MAX_POSITION_EMBEDDINGS": s["MAXP"]}, "NT",
         [{"NT": 32, "HQ": 32, "HK": 8, "D": 128, "MAXP": 512}, {"NT": 5, "HQ": 8, "HK": 2, "D": 64, "MAXP": 512}],
         4, tol=F16, include_dirs=INC),
    # launcher: src/flag_gems/fused/fused_add_rms_norm.py:77 fused_add_rms_norm()
    case("flaggems_fused_add_rms_norm", P + "fused/fused_add_rms_norm.py", "fused_add_rms_norm_kernel",
         [T("inout", "bf16", ["M", "N"]), T("inout", "bf16", ["M", "N"]), T("in", "bf16", ["N"]),
          S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"), S("i32", "N"), S("fp32", "1e-6")],
         lambda s: {"BLOCK_SIZE": next_pow2(s["N"])}, "M",
         [{"M": 16, "N": 4096}, {"M": 7, "N": 1000}], 4, tol=F16, include_dirs=INC),
    # launcher: src/flag_gems/ops/rms_norm.py:164 RmsNorm.forward()
    case("flaggems_rms_norm", P + "ops/rms_norm.py", "rms_norm_kernel",
         [T("out", "fp16", ["M", "N"]), T("out", "fp32", ["M"]), T("in", "fp16", ["M", "N"]), T("in", "fp16", ["N"]),
          S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"), S("i32", "N"), S("fp32", "1e-5")],
         lambda s: {"BLOCK_SIZE": next_pow2(s["N"])}, "M",
         [{"M": 16, "N": 4096}, {"M": 7, "N": 1000}], 4, tol=F16, include_dirs=INC),
    # launcher: src/flag_gems/fused/skip_layernorm.py:76 SkipLayerNorm.forward()
    case("flaggems_skip_layernorm", P + "fused/skip_layernorm.py", "skip_layer_norm_kernel",
         [T("out", "fp16", ["M", "N"]), T("in", "fp16", ["M", "N"]), T("in", "fp16", ["M", "N"]),
          T("in", "fp16", ["N"]), T("in", "fp16", ["N"]),
          S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"),
          S("i32", "N"), S("fp32", "1e-5")],
         lambda s: {"BLOCK_SIZE": next_pow2(s["N"])}, "M",
         [{"M": 16, "N": 4096}, {"M": 7, "N": 1000}], 4, tol=F16, include_dirs=INC),
    # launcher: src/flag_gems/fused/topk_softmax.py:82 topk_softmax()
    # finished_ptr is None in the launcher (unused by the kernel): a dummy here.
    case("flaggems_topk_softmax", P + "fused/topk_softmax.py", "topk_gating_softmax_kernel",
         [T("in", "fp32", ["NT", "E"]), T("in", "u8", ["1"], "zeros"), T("out", "fp32", ["NT", "K"]),
          T("out", "i32", ["NT", "K"]), T("out", "i32", ["NT", "K"]),
          S("i32", "NT"), S("i32", "K"), S("i32", "E"), S("i32", "0"), S("i32", "E")],
         lambda s: {"INDEX_TY": "tl.int32",
                    "BLOCK_SIZE_EXPERTS": min(((next_pow2(s["E"]) + 31) // 32) * 32, 1024),
                    "BLOCK_SIZE_ROWS": max(1024 // min(((next_pow2(s["E"]) + 31) // 32) * 32, 1024), 1)},
         "cdiv(NT, max(1024 // min(((E + 31) // 32) * 32, 1024), 1))",
         [{"NT": 64, "E": 64, "K": 8}, {"NT": 37, "E": 8, "K": 2}], 4, tol=tol(1e-5, 1e-5), include_dirs=INC),
    # launcher: src/flag_gems/ops/layernorm.py:370 layer_norm() (128 < N <= 4096);
    # autotune (layer_norm_persistent: warps 4/8/16) pick 8 warps
    case("flaggems_layer_norm_persistent", P + "ops/layernorm.py", "layer_norm_persistent_kernel",
         [T("in", "fp16", ["M", "N"]), T("out", "fp16", ["M", "N"]), T("in", "fp16", ["N"]),
          T("in", "fp16", ["N"]), T("out", "fp16", ["M"]), T("out", "fp16", ["M"]),
          S("i32", "M"), S("i32", "N"), S("fp32", "1e-5")],
         lambda s: {"TILE_N": next_pow2(s["N"])}, "(M, 1, 1)",
         [{"M": 16, "N": 4096}, {"M": 7, "N": 1000}], 4, tol=F16, num_warps=8, include_dirs=INC),
    # launcher: src/flag_gems/ops/layernorm.py:353 layer_norm() (N <= 128): TILE_M = cdiv(1024, TILE_N)
    case("flaggems_layer_norm_multiline", P + "ops/layernorm.py", "layer_norm_persistent_kernel_multiline",
         [T("in", "bf16", ["M", "N"]), T("out", "bf16", ["M", "N"]), T("in", "bf16", ["N"]),
          T("in", "bf16", ["N"]), T("out", "bf16", ["M"]), T("out", "bf16", ["M"]),
          S("i32", "M"), S("i32", "N"), S("fp32", "1e-5")],
         {"TILE_M": 8, "TILE_N": 128}, "(cdiv(M, 8), 1, 1)",
         [{"M": 256, "N": 128}, {"M": 37, "N": 100}], 4, tol=F16, num_warps=4, include_dirs=INC),
    # launcher: src/flag_gems/ops/layernorm.py:384 layer_norm() (N > 4096); autotune
    # (layer_norm_loop) pick TILE_N 2048, 8 warps
    case("flaggems_layer_norm_loop", P + "ops/layernorm.py", "layer_norm_loop_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M", "N"]), T("in", "fp32", ["N"]),
          T("in", "fp32", ["N"]), T("out", "fp32", ["M"]), T("out", "fp32", ["M"]),
          S("i32", "M"), S("i32", "N"), S("fp32", "1e-5")],
         {"TILE_N": 2048}, "(M, 1, 1)",
         [{"M": 8, "N": 8192}, {"M": 3, "N": 10001}], 4, tol=F32, num_warps=8, include_dirs=INC),
    # launcher: src/flag_gems/ops/embedding.py:127 embedding()
    case("flaggems_embedding", P + "ops/embedding.py", "embedding_kernel",
         [T("out", "bf16", ["M", "N"]), T("in", "i64", ["M"], "randint:0:1000"), T("in", "bf16", ["1000", "N"])],
         lambda s: {"N": s["N"], "BLOCK_SIZE": next_pow2(s["N"])}, "M",
         [{"M": 64, "N": 4096}, {"M": 7, "N": 1000}], 4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/ops/softmax.py:311 softmax() (last dim, K == 1); heuristics
    # softmax_inner: TILE_N = next_power_of_2(N) up to 32k, ONE_TILE_PER_CTA, warps by tile
    case("flaggems_softmax_inner", P + "ops/softmax.py", "softmax_kernel_inner",
         [T("out", "fp16", ["M", "N"]), T("in", "fp16", ["M", "N"]), S("i32", "M"), S("i32", "N")],
         lambda s: {"TILE_N": next_pow2(s["N"]), "ONE_TILE_PER_CTA": True}, "(M, 1, 1)",
         [{"M": 32, "N": 4096}, {"M": 7, "N": 1000}], 4, tol=F16,
         num_warps=lambda s: 4 if next_pow2(s["N"]) < 2048 else (8 if next_pow2(s["N"]) < 4096 else 16),
         include_dirs=INC),
    # launcher: src/flag_gems/ops/argmax.py:115 argmax(dim=None), first stage
    case("flaggems_argmax_stage1", P + "ops/argmax.py", "argmax_kernel_1",
         [T("in", "fp32", ["M"]), T("out", "fp32", ["cdiv(M, next_pow2_sqrt)"]),
          T("out", "i64", ["cdiv(M, next_pow2_sqrt)"]), S("i32", "M")],
         lambda s: {"BLOCK_SIZE": s["next_pow2_sqrt"]}, "(cdiv(M, BLOCK_SIZE), 1, 1)",
         [{"M": 1000000, "next_pow2_sqrt": 1024}, {"M": 50001, "next_pow2_sqrt": 256}], 4, tol=EXACT,
         include_dirs=INC),
    # second stage: mid_size = cdiv(M, block_size), BLOCK_MID = next_power_of_2(mid_size)
    case("flaggems_argmax_stage2", P + "ops/argmax.py", "argmax_kernel_2",
         [T("in", "fp32", ["mid"]), T("in", "i64", ["mid"], "randint:0:1000000"), T("out", "i64", ["1"]),
          S("i32", "mid")],
         lambda s: {"BLOCK_MID": next_pow2(s["mid"])}, "(1, 1, 1)",
         [{"mid": 977}, {"mid": 196}], 4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/ops/attention.py:959 ScaleDotProductAttention.forward() with a
    # float attn_mask [B, H, Lq, Lk] (attn_mask None is passed as None: not expressible);
    # GQA (group 4), head dim 128; autotune (attention) pick BLOCK_M 128, BLOCK_N 64,
    # PRE_LOAD_V False, 8 warps, 3 stages
    case("flaggems_sdpa_fwd_mask", P + "ops/attention.py", "_attn_fwd",
         [T("in", "fp16", ["B", "H", "L", "128"]), T("in", "fp16", ["B", "H // 4", "L", "128"]),
          T("in", "fp16", ["B", "H // 4", "L", "128"]), T("in", "fp16", ["B", "H", "L", "L"]),
          S("fp32", "0.08838834764831845"), T("out", "fp32", ["B", "H", "L"]),
          T("out", "fp16", ["B", "H", "L", "128"]),
          S("i32", "H * L * 128"), S("i32", "L * 128"), S("i32", "128"), S("i32", "1"),
          S("i32", "H // 4 * L * 128"), S("i32", "L * 128"), S("i32", "128"), S("i32", "1"),
          S("i32", "H // 4 * L * 128"), S("i32", "L * 128"), S("i32", "128"), S("i32", "1"),
          S("i32", "H * L * L"), S("i32", "L * L"), S("i32", "L"), S("i32", "1"),
          S("i32", "H * L * 128"), S("i32", "L * 128"), S("i32", "128"), S("i32", "1"),
          S("i32", "B"), S("i32", "H"), S("i32", "H // 4"), S("i32", "L"), S("i32", "L")],
         {"GROUP_HEAD": 4, "HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 64, "STAGE": 1,
          "HAS_ATTN_MASK": True, "PRE_LOAD_V": False},
         "(cdiv(L, 128), B * H, 1)", [{"B": 1, "H": 32, "L": 512}, {"B": 2, "H": 8, "L": 77}], 4,
         tol=F16, num_warps=8, num_stages=3, grid_in_blob=False, include_dirs=INC,
         cpu_sizes=[{"B": 1, "H": 4, "L": 77}]),
    # same launcher, is_causal (STAGE 3)
    case("flaggems_sdpa_fwd_causal_mask", P + "ops/attention.py", "_attn_fwd",
         [T("in", "bf16", ["B", "H", "L", "128"]), T("in", "bf16", ["B", "H // 4", "L", "128"]),
          T("in", "bf16", ["B", "H // 4", "L", "128"]), T("in", "bf16", ["B", "H", "L", "L"]),
          S("fp32", "0.08838834764831845"), T("out", "fp32", ["B", "H", "L"]),
          T("out", "bf16", ["B", "H", "L", "128"]),
          S("i32", "H * L * 128"), S("i32", "L * 128"), S("i32", "128"), S("i32", "1"),
          S("i32", "H // 4 * L * 128"), S("i32", "L * 128"), S("i32", "128"), S("i32", "1"),
          S("i32", "H // 4 * L * 128"), S("i32", "L * 128"), S("i32", "128"), S("i32", "1"),
          S("i32", "H * L * L"), S("i32", "L * L"), S("i32", "L"), S("i32", "1"),
          S("i32", "H * L * 128"), S("i32", "L * 128"), S("i32", "128"), S("i32", "1"),
          S("i32", "B"), S("i32", "H"), S("i32", "H // 4"), S("i32", "L"), S("i32", "L")],
         {"GROUP_HEAD": 4, "HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 64, "STAGE": 3,
          "HAS_ATTN_MASK": True, "PRE_LOAD_V": False},
         "(cdiv(L, 128), B * H, 1)", [{"B": 1, "H": 32, "L": 512}, {"B": 2, "H": 8, "L": 77}], 4,
         tol=tol(2e-2, 2e-2), num_warps=8, num_stages=3, grid_in_blob=False, include_dirs=INC,
         cpu_sizes=[{"B": 1, "H": 4, "L": 77}]),
    # launcher: src/flag_gems/ops/attention.py:851 ScaleDotProductAttention.backward() (Triton's
    # tutorial backward: dK and dV over a key block, then dQ over a query block; 4 warps, 1 stage;
    # dK and dV fp32 as its torch.empty allocates them; M holds the forward's log-sum-exp
    # (base 2), D the preprocess's delta, K the keys as scaled by the launcher)
    case("flaggems_sdpa_bwd", P + "ops/attention.py", "_attn_bwd",
         [T("in", "fp16", ["B", "H", "L", "64"], "uniform:-0.5:0.5"),
          T("in", "fp16", ["B", "H", "L", "64"], "uniform:-0.5:0.5"),
          T("in", "fp16", ["B", "H", "L", "64"], "uniform:-0.5:0.5"), S("fp32", "0.125"),
          T("in", "fp16", ["B", "H", "L", "64"]), T("out", "fp16", ["B", "H", "L", "64"]),
          T("out", "fp32", ["B", "H", "L", "64"]), T("out", "fp32", ["B", "H", "L", "64"]),
          T("in", "fp32", ["B * H", "L"], "uniform:-1:1"), T("in", "fp32", ["B * H", "L"], "uniform:-0.5:0.5"),
          S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "64"), S("i32", "1"),
          S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "H"), S("i32", "L"), S("i32", "L"), S("i32", "H")],
         {"GROUP_HEAD": 1, "BLOCK_M1": 32, "BLOCK_N1": 128, "BLOCK_M2": 128, "BLOCK_N2": 32,
          "BLK_SLICE_FACTOR": 2, "BLOCK_DMODEL": 64},
         "(cdiv(L, 128), 1, B * H)", [{"B": 1, "H": 16, "L": 1024}, {"B": 2, "H": 2, "L": 256}], 4,
         tol=tol(3e-2, 3e-2), num_warps=4, num_stages=1, include_dirs=INC,
         cpu_sizes=[{"B": 1, "H": 1, "L": 128}]),
]


def _isqrt_pow2(m):
    # triton.next_power_of_2(math.ceil(math.sqrt(M))): the first-stage block of
    # FlagGems' two-stage full reductions
    r = 1
    while r * r < m:
        r += 1
    return next_pow2(r)


def _softmax_tile_k(s, sms=132):
    # runtime/backend/_nvidia/heuristics_config_utils.py softmax_heur_tile_k (H100/H200: 132 SMs)
    tile_k, upper = 1, min(s["K"], 8192)
    while tile_k <= upper:
        nb = s["M"] * -(-s["K"] // tile_k)
        if nb / sms > 1 and tile_k * 2 <= upper:
            tile_k *= 2
        else:
            break
    return tile_k


# Two-stage full reductions: stage 1 grid (mid_size,), BLOCK_SIZE =
# next_power_of_2(ceil(sqrt(M))); stage 2 one program, BLOCK_MID = next_power_of_2(mid_size).
RED1 = [{"M": 1000000, "BS": 1024}, {"M": 50001, "BS": 256}]
RED1_CPU = [{"M": 3001, "BS": 64}]
RED2 = [{"mid": 977}, {"mid": 196}]


def _red1(name, file, kernel, dt, mid_dt, tl_=F32, extra=()):
    return case(name, P + file, kernel,
                [T("in", dt, ["M"]), T("out", mid_dt, ["cdiv(M, BS)"])] + list(extra) + [S("i32", "M")],
                lambda s: {"BLOCK_SIZE": s["BS"]}, "(cdiv(M, BS), 1, 1)", RED1, 4, tol=tl_,
                include_dirs=INC, cpu_sizes=RED1_CPU)


def _red2(name, file, kernel, dt, out_dt, tl_=F32):
    return case(name, P + file, kernel,
                [T("in", dt, ["mid"]), T("out", out_dt, ["1"]), S("i32", "mid")],
                lambda s: {"BLOCK_MID": next_pow2(s["mid"])}, "(1, 1, 1)", RED2, 4, tol=tl_,
                include_dirs=INC)


# naive_reduction autotune (BLOCK_M 1/2/4/8, BLOCK_N 1024, 4 warps): pick BLOCK_M 4
NAIVE = {"BLOCK_M": 4, "BLOCK_N": 1024}
RED_DIM = [{"M": 4096, "N": 1024}, {"M": 77, "N": 3001}]

CASES += [
    # launcher: src/flag_gems/ops/amax.py:102 amax(dim=None)
    _red1("flaggems_amax_stage1", "ops/amax.py", "amax_kernel_1", "bf16", "bf16", EXACT),
    _red2("flaggems_amax_stage2", "ops/amax.py", "amax_kernel_2", "bf16", "bf16", EXACT),
    # launcher: src/flag_gems/ops/amax.py:131 amax(dim=[-1])
    case("flaggems_amax_dim", P + "ops/amax.py", "amax_kernel",
         [T("in", "fp16", ["M", "N"]), T("out", "fp16", ["M"]), S("i32", "M"), S("i32", "N")],
         NAIVE, "(cdiv(M, 4),)", RED_DIM, 4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/ops/max.py:110 max()
    _red1("flaggems_max_stage1", "ops/max.py", "max_kernel_1", "fp32", "fp32", EXACT),
    _red2("flaggems_max_stage2", "ops/max.py", "max_kernel_2", "fp32", "fp32", EXACT),
    # launcher: src/flag_gems/ops/max.py:134 max_dim(dim=-1)
    case("flaggems_max_dim", P + "ops/max.py", "max_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M"]), T("out", "i64", ["M"]),
          S("i32", "M"), S("i32", "N")],
         NAIVE, "(cdiv(M, 4),)", RED_DIM, 4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/ops/min.py:111 min()
    _red1("flaggems_min_stage1", "ops/min.py", "min_kernel_1", "fp16", "fp16", EXACT),
    _red2("flaggems_min_stage2", "ops/min.py", "min_kernel_2", "fp16", "fp16", EXACT),
    # launcher: src/flag_gems/ops/min.py:135 min_dim(dim=-1)
    case("flaggems_min_dim", P + "ops/min.py", "min_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M"]), T("out", "i64", ["M"]),
          S("i32", "M"), S("i32", "N")],
         NAIVE, "(cdiv(M, 4),)", RED_DIM, 4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/ops/argmin.py:130 argmin(dim=None)
    case("flaggems_argmin_stage1", P + "ops/argmin.py", "argmin_kernel_1",
         [T("in", "fp32", ["M"]), T("out", "fp32", ["cdiv(M, BS)"]), T("out", "i64", ["cdiv(M, BS)"]),
          S("i32", "M")],
         lambda s: {"BLOCK_SIZE": s["BS"]}, "(cdiv(M, BS), 1, 1)", RED1, 4, tol=EXACT,
         include_dirs=INC, cpu_sizes=RED1_CPU),
    case("flaggems_argmin_stage2", P + "ops/argmin.py", "argmin_kernel_2",
         [T("in", "fp32", ["mid"]), T("in", "i64", ["mid"], "randint:0:1000000"), T("out", "i64", ["1"]),
          S("i32", "mid")],
         lambda s: {"BLOCK_MID": next_pow2(s["mid"])}, "(1, 1, 1)", RED2, 4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/ops/argmin.py:166 argmin(dim=1) of [M, N, K]; heuristics
    # argmin: BLOCK_M 4 (M < 4096) / 8, BLOCK_N min(4096, next_power_of_2(N))
    case("flaggems_argmin_dim", P + "ops/argmin.py", "argmin_kernel",
         [T("in", "fp32", ["M", "N", "K"]), T("out", "i64", ["M", "K"]), S("i32", "M"), S("i32", "N"),
          S("i32", "K")],
         lambda s: {"BLOCK_M": 4 if s["M"] < 4096 else 8, "BLOCK_N": min(4096, next_pow2(s["N"]))},
         "(cdiv(M, BLOCK_M), K)", [{"M": 64, "N": 1000, "K": 4}, {"M": 33, "N": 5000, "K": 1}], 4,
         tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/ops/argmax.py:155 argmax(dim=-1); heuristics argmax
    case("flaggems_argmax_dim", P + "ops/argmax.py", "argmax_kernel",
         [T("in", "fp32", ["M", "N", "K"]), T("out", "i64", ["M", "K"]), S("i32", "M"), S("i32", "N"),
          S("i32", "K")],
         lambda s: {"BLOCK_M": 4 if s["M"] < 4096 else 8, "BLOCK_N": min(4096, next_pow2(s["N"]))},
         "(cdiv(M, BLOCK_M), K)", [{"M": 128, "N": 32000, "K": 1}, {"M": 7, "N": 1001, "K": 3}], 4,
         tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/ops/mean.py:58 mean()
    _red1("flaggems_mean_stage1", "ops/mean.py", "mean_kernel_1", "fp32", "fp32", tol(1e-3, 1e-4)),
    case("flaggems_mean_stage2", P + "ops/mean.py", "mean_kernel_2",
         [T("in", "fp32", ["mid"]), T("out", "fp32", ["1"]), S("i32", "1000000"), S("i32", "mid")],
         lambda s: {"BLOCK_MID": next_pow2(s["mid"])}, "(1, 1, 1)", RED2, 4, tol=tol(1e-5, 1e-4),
         include_dirs=INC),
    # launcher: src/flag_gems/ops/mean.py:113 mean_dim(dim=[-1])
    case("flaggems_mean_dim", P + "ops/mean.py", "mean_dim_kernel",
         [T("in", "bf16", ["M", "N"]), T("out", "bf16", ["M"]), S("i32", "M"), S("i32", "N")],
         NAIVE, "(cdiv(M, 4),)", RED_DIM, 4, tol=F16, include_dirs=INC),
    # launcher: src/flag_gems/ops/sum.py:77 sum(); fp16 in, fp16 mid (fp32 accumulation)
    _red1("flaggems_sum_stage1", "ops/sum.py", "sum_kernel_1", "fp16", "fp16", tol(5e-2, 1e-2)),
    _red2("flaggems_sum_stage2", "ops/sum.py", "sum_kernel_2", "fp32", "fp32", tol(1e-3, 1e-4)),
    # launcher: src/flag_gems/ops/sum.py:268 sum_dim_comm(dim=[1]) of [M, N, K], K > 1;
    # heuristics softmax_non_inner (TILE_K by waves over 132 SMs, TILE_N = cdiv(8192, TILE_K))
    case("flaggems_sum_dim_non_inner", P + "ops/sum.py", "sum_dim_kernel_non_inner",
         [T("out", "fp32", ["M", "K"]), T("in", "fp32", ["M", "N", "K"]), S("i32", "M"), S("i32", "N"),
          S("i32", "K")],
         lambda s: {"TILE_K": _softmax_tile_k(s), "TILE_N": -(-8192 // _softmax_tile_k(s)),
                    "ONE_TILE_PER_CTA": -(-8192 // _softmax_tile_k(s)) >= s["N"]},
         "(M, cdiv(K, TILE_K), 1)", [{"M": 8, "N": 1000, "K": 64}, {"M": 3, "N": 77, "K": 33}], 4,
         tol=tol(1e-3, 1e-4),
         num_warps=lambda s: (lambda t: 4 if t < 2048 else (8 if t < 4096 else 16))(
             -(-8192 // _softmax_tile_k(s)) * _softmax_tile_k(s)),
         include_dirs=INC),
    # launcher: src/flag_gems/ops/sum.py:277 sum_dim_comm(dim=[-1]), K == 1; heuristics softmax_inner
    case("flaggems_sum_dim_inner", P + "ops/sum.py", "sum_dim_kernel_inner",
         [T("out", "fp16", ["M"]), T("in", "fp16", ["M", "N"]), S("i32", "M"), S("i32", "N")],
         lambda s: {"TILE_N": next_pow2(s["N"]) if s["N"] <= 32768 else 4096,
                    "ONE_TILE_PER_CTA": s["N"] <= 32768},
         "(M, 1, 1)", [{"M": 64, "N": 4096}, {"M": 5, "N": 40001}], 4, tol=tol(5e-2, 1e-2),
         num_warps=lambda s: (lambda t: 4 if t < 2048 else (8 if t < 4096 else 16))(
             next_pow2(s["N"]) if s["N"] <= 32768 else 4096),
         include_dirs=INC),
    # launcher: src/flag_gems/ops/sum.py:298 sum_dim_comm(dim=[0, 2]) (dim_compress'ed)
    case("flaggems_sum_dim", P + "ops/sum.py", "sum_dim_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M"]), S("i32", "M"), S("i32", "N")],
         NAIVE, "(cdiv(M, 4),)", RED_DIM, 4, tol=tol(1e-3, 1e-4), include_dirs=INC),
    # launcher: src/flag_gems/ops/prod.py:64 prod(); inputs near 1 so the product stays finite
    case("flaggems_prod_stage1", P + "ops/prod.py", "prod_kernel_mid",
         [T("in", "fp32", ["M"], "uniform:0.999:1.001"), T("out", "fp32", ["cdiv(M, BS)"]), S("i32", "M")],
         lambda s: {"BLOCK_SIZE": s["BS"]}, "(cdiv(M, BS), 1, 1)", RED1, 4, tol=tol(1e-4, 1e-4),
         include_dirs=INC, cpu_sizes=RED1_CPU),
    case("flaggems_prod_stage2", P + "ops/prod.py", "prod_kernel_result",
         [T("in", "fp32", ["mid"], "uniform:0.99:1.01"), T("out", "fp32", ["1"]), S("i32", "mid")],
         lambda s: {"BLOCK_MID": next_pow2(s["mid"])}, "(1, 1, 1)", RED2, 4, tol=tol(1e-4, 1e-4),
         include_dirs=INC),
    # launcher: src/flag_gems/ops/prod.py:128 prod_dim(dim=-1)
    case("flaggems_prod_dim", P + "ops/prod.py", "prod_kernel",
         [T("in", "fp32", ["M", "N"], "uniform:0.99:1.01"), T("out", "fp32", ["M"]), S("i32", "M"),
          S("i32", "N")],
         NAIVE, "(cdiv(M, 4),)", RED_DIM, 4, tol=tol(1e-4, 1e-4), include_dirs=INC),
    # launcher: src/flag_gems/ops/all.py:99 all(); bool mid/out; inputs mostly nonzero
    case("flaggems_all_stage1", P + "ops/all.py", "all_kernel_1",
         [T("in", "i32", ["M"], "randint:0:50000"), T("out", "i1", ["cdiv(M, BS)"]), S("i32", "M"),
          S("i32", "cdiv(M, BS)")],
         lambda s: {"BLOCK_SIZE": s["BS"]}, "(cdiv(M, BS), 1)", RED1, 4, tol=EXACT,
         include_dirs=INC, cpu_sizes=RED1_CPU),
    case("flaggems_all_stage2", P + "ops/all.py", "all_kernel_2",
         [T("in", "i1", ["mid"], "randint:0:2"), T("out", "i1", ["1"]), S("i32", "mid")],
         lambda s: {"BLOCK_MID": next_pow2(s["mid"])}, "(1, 1)", RED2, 4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/ops/all.py:124 all_dim(dim=-1)
    case("flaggems_all_dim", P + "ops/all.py", "all_kernel_dim",
         [T("in", "fp16", ["M", "N"], "randint:0:300"), T("out", "i1", ["M"]), S("i32", "M"), S("i32", "N")],
         NAIVE, "(cdiv(M, 4),)", RED_DIM, 4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/ops/any.py:99 any(); mostly zero inputs
    case("flaggems_any_stage1", P + "ops/any.py", "any_kernel_1",
         [T("in", "fp32", ["M"], "randint:0:2"), T("out", "i1", ["cdiv(M, BS)"]), S("i32", "M"),
          S("i32", "cdiv(M, BS)")],
         lambda s: {"BLOCK_SIZE": s["BS"]}, "(cdiv(M, BS), 1)", RED1, 4, tol=EXACT,
         include_dirs=INC, cpu_sizes=RED1_CPU),
    case("flaggems_any_stage2", P + "ops/any.py", "any_kernel_2",
         [T("in", "i1", ["mid"], "randint:0:2"), T("out", "i1", ["1"]), S("i32", "mid")],
         lambda s: {"BLOCK_MID": next_pow2(s["mid"])}, "(1, 1)", RED2, 4, tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/ops/any.py:124 any_dim(dim=-1)
    case("flaggems_any_dim", P + "ops/any.py", "any_kernel_dim",
         [T("in", "i32", ["M", "N"], "randint:0:2"), T("out", "i1", ["M"]), S("i32", "M"), S("i32", "N")],
         NAIVE, "(cdiv(M, 4),)", RED_DIM, 4, tol=EXACT, include_dirs=INC),
]

CASES += [
    # launcher: src/flag_gems/ops/count_nonzero.py:117 count_nonzero(dim=None); out zeroed, atomics
    case("flaggems_count_nonzero_all", P + "ops/count_nonzero.py", "count_nonzero_kernel_1",
         [T("in", "i32", ["M"], "randint:0:3"), T("inout", "i64", ["1"], "zeros"), S("i32", "M")],
         {"BLOCK_SIZE": 1024}, "(cdiv(M, 1024),)", [{"M": 1048576}, {"M": 50001}], 4, tol=EXACT,
         include_dirs=INC, cpu_sizes=[{"M": 3001}]),
    # launcher: src/flag_gems/ops/count_nonzero.py:106 count_nonzero(dim=-1), N <= 2048;
    # autotune count_nonzero (BLOCK_SIZE 1024/2048/4096, 4 warps): pick 2048
    case("flaggems_count_nonzero_dim", P + "ops/count_nonzero.py", "count_nonzero_kernel",
         [T("in", "fp16", ["M", "N"], "randint:0:2"), T("inout", "i64", ["M"], "zeros"), S("i32", "N"),
          S("i32", "M * N")],
         {"BLOCK_SIZE": 2048}, "(M,)", [{"M": 1024, "N": 2048}, {"M": 77, "N": 1001}], 4, tol=EXACT,
         include_dirs=INC),
    # launcher: src/flag_gems/ops/count_nonzero.py:90 count_nonzero(dim=-1), N > 2048:
    # combin grid (M, cdiv(N, 2048), 1)
    case("flaggems_count_nonzero_combin", P + "ops/count_nonzero.py", "count_nonzero_combin_kernel",
         [T("in", "fp32", ["M", "N"], "randint:0:2"), T("inout", "i64", ["M", "cdiv(N, 2048)"], "zeros"),
          S("i32", "N"), S("i32", "cdiv(N, 2048)"), S("i32", "M * N")],
         {"BLOCK_SIZE": 2048}, "(M, cdiv(N, 2048), 1)", [{"M": 64, "N": 32768}, {"M": 7, "N": 5001}], 4,
         tol=EXACT, include_dirs=INC),
    # launcher: src/flag_gems/ops/count_nonzero.py:101 (second pass over the combin counts);
    # autotune pick BLOCK_SIZE 1024
    case("flaggems_count_nonzero_combin_1", P + "ops/count_nonzero.py", "count_nonzero_combin_kernel_1",
         [T("in", "i64", ["M", "C"], "randint:0:2049"), T("inout", "i64", ["M"], "zeros"), S("i32", "C"),
          S("i32", "M * C")],
         {"BLOCK_SIZE": 1024}, "(M,)", [{"M": 64, "C": 16}, {"M": 7, "C": 3}], 4, tol=EXACT,
         include_dirs=INC),
    # launcher: src/flag_gems/ops/log_softmax.py:120 log_softmax(dim=-1): kernel defaults
    # BLOCK_M 8, BLOCK_N 256; num_warps 8
    case("flaggems_log_softmax", P + "ops/log_softmax.py", "log_softmax_kernel",
         [T("out", "fp16", ["M", "N", "K"]), T("in", "fp16", ["M", "N", "K"]), S("i32", "M"), S("i32", "N"),
          S("i32", "K")],
         {"BLOCK_M": 8, "BLOCK_N": 256}, "(cdiv(M, 8), K)",
         [{"M": 64, "N": 4096, "K": 1}, {"M": 13, "N": 1000, "K": 3}], 4, tol=F16, num_warps=8,
         include_dirs=INC),
    # launcher: src/flag_gems/ops/log_softmax.py:150 log_softmax_backward(); autotune
    # log_softmax: pick BLOCK_M 8, BLOCK_N 256, 8 warps
    case("flaggems_log_softmax_bwd", P + "ops/log_softmax.py", "log_softmax_backward_kernel",
         [T("in", "fp32", ["M", "N", "K"], "uniform:-8:-4"), T("in", "fp32", ["M", "N", "K"]),
          T("out", "fp32", ["M", "N", "K"]), S("i32", "M"), S("i32", "N"), S("i32", "K")],
         {"BLOCK_M": 8, "BLOCK_N": 256}, "(cdiv(M, 8), K)",
         [{"M": 64, "N": 4096, "K": 1}, {"M": 13, "N": 1000, "K": 3}], 4, tol=tol(1e-4, 1e-4),
         num_warps=8, include_dirs=INC),
    # launcher: src/flag_gems/ops/var_mean.py:169 var_mean(dim=[-1], correction=1);
    # autotune var_mean: pick BLOCK_M 4, BLOCK_N 1024, 4 warps
    case("flaggems_var_mean_welford", P + "ops/var_mean.py", "var_mean_welford_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M"]), T("out", "fp32", ["M"]), S("i32", "M"),
          S("i32", "N"), S("fp32", "1.0")],
         {"BLOCK_M": 4, "BLOCK_N": 1024}, "(cdiv(M, 4),)", RED_DIM, 4, tol=tol(1e-4, 1e-4),
         include_dirs=INC),
    # launcher: src/flag_gems/ops/var_mean.py:151 var_mean(dim=None): BLOCK_N 1024
    case("flaggems_var_mean_stage1", P + "ops/var_mean.py", "var_mean_kernel_1",
         [T("in", "fp32", ["N"]), T("out", "fp32", ["cdiv(N, 1024)"]), T("out", "fp32", ["cdiv(N, 1024)"]),
          T("out", "fp32", ["cdiv(N, 1024)"]), S("i32", "N")],
         {"BLOCK_N": 1024}, "(cdiv(N, 1024),)", [{"N": 1048576}, {"N": 50001}], 4, tol=tol(1e-3, 1e-4),
         include_dirs=INC, cpu_sizes=[{"N": 5001}]),
    # launcher: src/flag_gems/ops/var_mean.py:152; heuristics var_mean: BLOCK_N = next_power_of_2(BLOCK_NUM)
    case("flaggems_var_mean_stage2", P + "ops/var_mean.py", "var_mean_kernel_2",
         [T("in", "fp32", ["NB"], "uniform:500:1500"), T("in", "fp32", ["NB"]),
          T("in", "fp32", ["NB"], "uniform:1:1024"), T("out", "fp32", ["1"]), T("out", "fp32", ["1"]),
          S("i32", "NB * 1024"), S("fp32", "1.0"), S("i32", "NB")],
         lambda s: {"BLOCK_N": next_pow2(s["NB"])}, "(1,)", [{"NB": 1024}, {"NB": 49}], 4,
         tol=tol(1e-4, 1e-4), include_dirs=INC),
    # launcher: src/flag_gems/ops/softmax.py:303 softmax(dim=1) of [M, N, K], K > 1;
    # heuristics softmax_non_inner (132 SMs)
    case("flaggems_softmax_non_inner", P + "ops/softmax.py", "softmax_kernel_non_inner",
         [T("out", "bf16", ["M", "N", "K"]), T("in", "bf16", ["M", "N", "K"]), S("i32", "M"), S("i32", "N"),
          S("i32", "K")],
         lambda s: {"TILE_K": _softmax_tile_k(s), "TILE_N": -(-8192 // _softmax_tile_k(s)),
                    "ONE_TILE_PER_CTA": -(-8192 // _softmax_tile_k(s)) >= s["N"]},
         "(M, cdiv(K, TILE_K), 1)", [{"M": 8, "N": 1000, "K": 64}, {"M": 3, "N": 77, "K": 33},
                                     {"M": 2, "N": 9000, "K": 5}], 4,
         tol=F16,
         num_warps=lambda s: (lambda t: 4 if t < 2048 else (8 if t < 4096 else 16))(
             -(-8192 // _softmax_tile_k(s)) * _softmax_tile_k(s)),
         include_dirs=INC),
    # launcher: src/flag_gems/ops/softmax.py:338 softmax_backward(dim=1), K > 1; autotune
    # softmax_non_inner pick TILE_K 32; heuristics TILE_N = max(1, 1024 // TILE_K),
    # ONE_TILE_PER_CTA = TILE_N >= N
    case("flaggems_softmax_bwd_non_inner", P + "ops/softmax.py", "softmax_backward_kernel_non_inner",
         [T("in", "fp32", ["M", "N", "K"], "uniform:0:0.01"), T("in", "fp32", ["M", "N", "K"]),
          T("out", "fp32", ["M", "N", "K"]), S("i32", "M"), S("i32", "N"), S("i32", "K")],
         lambda s: {"TILE_K": 32, "TILE_N": 32, "ONE_TILE_PER_CTA": 32 >= s["N"]},
         "(M, cdiv(K, 32), 1)", [{"M": 8, "N": 1000, "K": 64}, {"M": 3, "N": 31, "K": 33}], 4,
         tol=tol(1e-4, 1e-4), include_dirs=INC),
    # launcher: src/flag_gems/ops/softmax.py:348 softmax_backward(dim=-1); autotune
    # softmax_inner pick TILE_N 1024; heuristics TILE_M = max(1, 1024 // TILE_N)
    case("flaggems_softmax_bwd_inner", P + "ops/softmax.py", "softmax_backward_kernel_inner",
         [T("in", "fp16", ["M", "N"], "uniform:0:0.01"), T("in", "fp16", ["M", "N"]),
          T("out", "fp16", ["M", "N"]), S("i32", "M"), S("i32", "N")],
         lambda s: {"TILE_M": 1, "TILE_N": 1024, "ONE_TILE_PER_CTA": 1024 >= s["N"]},
         "(M, 1, 1)", [{"M": 64, "N": 4096}, {"M": 7, "N": 1000}], 4, tol=F16, include_dirs=INC),
    # launcher: src/flag_gems/ops/cumsum.py:246 reduce_then_scan_row() (N <= 16384, persistent)
    case("flaggems_cumsum_row_persistent", P + "ops/cumsum.py", "reduce_then_scan_root_scan_kernel_row",
         [T("in", "fp16", ["M", "N"]), T("out", "fp16", ["M", "N"]), S("i32", "N")],
         lambda s: {"TILE_SIZE": next_pow2(s["N"])}, "(M, 1, 1)",
         [{"M": 16, "N": 4096}, {"M": 7, "N": 1000}], 4, tol=tol(5e-2, 1e-2),
         num_warps=lambda s: 8 if next_pow2(s["N"]) > 2048 else 4, include_dirs=INC),
    # launcher: src/flag_gems/ops/cumsum.py:276 reduce_then_scan_row() (N > 16384): TILE_SIZE 4096,
    # num_ctas = min(cdiv(N, 4096), 4 * 132), tiles_per_cta = cdiv(num_tiles, num_ctas)
    case("flaggems_cumsum_row_block_sum", P + "ops/cumsum.py", "reduce_then_scan_block_sum_kernel_row",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M", "min(cdiv(N, 4096), 528)"]), S("i32", "N"),
          S("i32", "cdiv(cdiv(N, 4096), min(cdiv(N, 4096), 528))")],
         {"TILE_SIZE": 4096}, "(M, min(cdiv(N, 4096), 528), 1)",
         [{"M": 4, "N": 100000}, {"M": 3, "N": 50001}], 4, tol=tol(1e-3, 1e-4), num_warps=8,
         include_dirs=INC, cpu_sizes=[{"M": 2, "N": 20001}]),
    # launcher: src/flag_gems/ops/cumsum.py:286 reduce_then_scan_row(), third kernel
    case("flaggems_cumsum_row_block_scan", P + "ops/cumsum.py", "reduce_then_scan_block_scan_kernel_row",
         [T("in", "bf16", ["M", "N"]), T("in", "fp32", ["M", "min(cdiv(N, 4096), 528)"]),
          T("out", "bf16", ["M", "N"]), S("i32", "N"), S("i32", "min(cdiv(N, 4096), 528)"),
          S("i32", "cdiv(cdiv(N, 4096), min(cdiv(N, 4096), 528))")],
         {"TILE_SIZE": 4096}, "(M, min(cdiv(N, 4096), 528), 1)",
         [{"M": 4, "N": 100000}, {"M": 3, "N": 50001}], 4, tol=tol(0.5, 1e-2), num_warps=8,
         include_dirs=INC, cpu_sizes=[{"M": 2, "N": 20001}]),
    # launcher: src/flag_gems/ops/cumsum.py:184 scan_then_fan_col(): BLOCK_SIZE 1024
    # (next_power_of_2(n) up to 4096)
    case("flaggems_cumsum_scan_part_sum", P + "ops/cumsum.py", "scan_part_sum_kernel",
         [T("in", "fp32", ["N"]), T("out", "fp32", ["N"]), T("out", "fp32", ["cdiv(N, 1024)"]),
          S("i32", "N"), S("i32", "cdiv(N, 1024)")],
         {"BLOCK_SIZE": 1024}, "(cdiv(N, 1024),)", [{"N": 1048576}, {"N": 50001}], 4,
         tol=tol(1e-3, 1e-4), include_dirs=INC, cpu_sizes=[{"N": 5001}]),
    # launcher: src/flag_gems/ops/cumsum.py:189 scan_then_fan_col() (part_num >= 2)
    case("flaggems_cumsum_add_base_sum", P + "ops/cumsum.py", "add_base_sum_kernel",
         [T("inout", "fp32", ["N"]), T("in", "fp32", ["cdiv(N, 1024)"]), S("i32", "N"),
          S("i32", "cdiv(N, 1024)")],
         {"BLOCK_SIZE": 1024}, "(cdiv(N, 1024),)", [{"N": 1048576}, {"N": 50001}], 4,
         tol=tol(1e-5, 1e-5), include_dirs=INC, cpu_sizes=[{"N": 5001}]),
    # launcher: src/flag_gems/ops/cumsum.py:202 scan_then_fan() (cumsum over a middle dim, K > 1):
    # BLOCK_SIZE = next_power_of_2(B) for B <= 4096, else 1024; grid (A, part_num, C)
    case("flaggems_cumsum_scan_part_sum_abc", P + "ops/cumsum.py", "scan_part_sum_abc_kernel",
         [T("in", "fp16", ["A", "B", "C"]), T("out", "fp16", ["A", "B", "C"]),
          T("out", "fp32", ["A", "cdiv(B, BLK)", "C"]), S("i32", "B"), S("i32", "C"),
          S("i32", "cdiv(B, BLK)")],
         lambda s: {"BLOCK_SIZE": s["BLK"]}, "(A, cdiv(B, BLOCK_SIZE), C)",
         [{"A": 4, "B": 8192, "C": 16, "BLK": 1024}, {"A": 3, "B": 1000, "C": 7, "BLK": 1024}], 4,
         tol=tol(5e-2, 1e-2), include_dirs=INC, cpu_sizes=[{"A": 2, "B": 1000, "C": 3, "BLK": 1024}]),
    # launcher: src/flag_gems/ops/cumsum.py:209 scan_then_fan() (part_num >= 2)
    case("flaggems_cumsum_add_base_sum_abc", P + "ops/cumsum.py", "add_base_sum_abc_kernel",
         [T("inout", "fp32", ["A", "B", "C"]), T("in", "fp32", ["A", "cdiv(B, 1024)", "C"]), S("i32", "B"),
          S("i32", "C"), S("i32", "cdiv(B, 1024)")],
         {"BLOCK_SIZE": 1024}, "(A, cdiv(B, 1024), C)",
         [{"A": 4, "B": 8192, "C": 16}, {"A": 2, "B": 5001, "C": 3}], 4, tol=tol(1e-5, 1e-5),
         include_dirs=INC, cpu_sizes=[{"A": 2, "B": 3001, "C": 3}]),
]

# launcher: src/flag_gems/ops/vector_norm.py:256 vector_norm(); full reductions (dim None,
# lines 278-291) and along dim=-1 (lines 304-312, autotune vector_norm: BLOCK_N 1024,
# 4 warps, pick BLOCK_M 4). ord 3.0 takes the l1_norm/v_norm kernels, whose pow is
# tl_extra_shim.pow (flag_gems/utils/triton_lang_helper.py: libdevice of the device).
# Host code picks that module at import (backend.get_tl_extra_backend_module():
# triton.language.extra.cuda.libdevice on NVIDIA), so it is given with --bind.
_VN = "ops/vector_norm.py"
SHIM = ["--bind", "flag_gems.utils.triton_lang_helper.tl_extra_shim=triton.language.extra.cuda.libdevice"]
CASES += [
    _red1("flaggems_l2_norm_stage1", _VN, "l2_norm_kernel_1", "fp32", "fp32", tol(1e-3, 1e-4)),
    _red2("flaggems_l2_norm_stage2", _VN, "l2_norm_kernel_2", "fp32", "fp32", tol(1e-4, 1e-4)),
    _red1("flaggems_max_norm_stage1", _VN, "max_norm_kernel_1", "bf16", "bf16", EXACT),
    _red2("flaggems_max_norm_stage2", _VN, "max_norm_kernel_2", "bf16", "bf16", EXACT),
    _red1("flaggems_min_norm_stage1", _VN, "min_norm_kernel_1", "fp16", "fp16", EXACT),
    _red2("flaggems_min_norm_stage2", _VN, "min_norm_kernel_2", "fp16", "fp16", EXACT),
    case("flaggems_l0_norm_stage1", P + _VN, "l0_norm_kernel_1",
         [T("in", "fp32", ["M"], "randint:0:3"), T("out", "fp32", ["cdiv(M, BS)"]), S("i32", "M")],
         lambda s: {"BLOCK_SIZE": s["BS"]}, "(cdiv(M, BS),)", RED1, 4, tol=EXACT,
         include_dirs=INC, cpu_sizes=RED1_CPU),
    case("flaggems_l0_norm_stage2", P + _VN, "l0_norm_kernel_2",
         [T("in", "fp32", ["mid"], "randint:0:1024"), T("out", "fp32", ["1"]), S("i32", "mid")],
         lambda s: {"BLOCK_MID": next_pow2(s["mid"])}, "(1,)", RED2, 4, tol=EXACT, include_dirs=INC),
    case("flaggems_l1_norm_stage1", P + _VN, "l1_norm_kernel_1",
         [T("in", "fp32", ["M"]), T("out", "fp32", ["cdiv(M, BS)"]), S("fp32", "3.0"), S("i32", "M")],
         lambda s: {"BLOCK_SIZE": s["BS"]}, "(cdiv(M, BS),)", RED1, 4, tol=tol(1e-3, 1e-4),
         include_dirs=INC, cpu_sizes=RED1_CPU, tilec_flags=SHIM),
    case("flaggems_l1_norm_stage2", P + _VN, "l1_norm_kernel_2",
         [T("in", "fp32", ["mid"], "uniform:0:100"), T("out", "fp32", ["1"]), S("fp32", "3.0"),
          S("i32", "mid")],
         lambda s: {"BLOCK_MID": next_pow2(s["mid"])}, "(1,)", RED2, 4, tol=tol(1e-4, 1e-4),
         include_dirs=INC, tilec_flags=SHIM),
] + [
    case("flaggems_" + k, P + _VN, k,
         [T("in", dt, ["M", "N"]), T("out", dt, ["M"]), S("i32", "M"), S("i32", "N")],
         NAIVE, "(cdiv(M, 4),)", RED_DIM, 4, tol=tl_, include_dirs=INC)
    for k, dt, tl_ in [("l2_norm_kernel", "fp32", tol(1e-4, 1e-4)), ("max_norm_kernel", "fp16", EXACT),
                       ("min_norm_kernel", "bf16", EXACT), ("l0_norm_kernel", "fp32", EXACT)]
] + [
    case("flaggems_v_norm_kernel", P + _VN, "v_norm_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M"]), S("i32", "M"), S("i32", "N"),
          S("fp32", "3.0")],
         NAIVE, "(cdiv(M, 4),)", RED_DIM, 4, tol=tol(1e-4, 1e-4), include_dirs=INC,
         tilec_flags=SHIM),
]
