"""kernl (ELS-RD/kernl) kernels, as kernl's own wrappers launch them."""
from cases import case, T, S, tol, EXACT, next_pow2

P = "tests/corpus/kernl/src/kernl/implementations/"
INC = ["tests/corpus/kernl/src"]
F16 = tol(1e-2, 1e-2)


def _ln_block(s):
    # layer_norm.py LayerNorm.forward(): BLOCK_SIZE for fp16
    return min(max(min(65536 // 2, next_pow2(s["N"])), 128), 4096)


def _ln(id, kernel, has_bias, rms):
    # launcher: src/kernl/implementations/layer_norm.py:313 LayerNorm.forward()
    return case(id, P + "layer_norm.py", kernel,
                [T("out", "fp16", ["M", "N"]), T("in", "fp16", ["M", "N"]), T("in", "fp16", ["N"]),
                 T("in", "fp16", ["N"]), T("out", "fp32", ["M"]), T("out", "fp32", ["M"]),
                 S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"), S("i32", "N"),
                 S("fp32", "1.6e-5")],
                lambda s: {"HAS_BIAS": has_bias, "IS_RMSNORM": rms, "BLOCK_N_SIZE": _ln_block(s)},
                "M", [{"M": 16, "N": 4096}, {"M": 7, "N": 1000}], 4, tol=F16,
                num_warps=lambda s: min(max(_ln_block(s) // 256, 1), 8), include_dirs=INC)


def _attn_strides():
    return [S("i32", "H * M * D"), S("i32", "M * D"), S("i32", "D"), S("i32", "1"),
            S("i32", "H * N * D"), S("i32", "N * D"), S("i32", "D"), S("i32", "1"),
            S("i32", "H * N * D"), S("i32", "N * D"), S("i32", "D"), S("i32", "1"),
            S("i32", "H * M * D"), S("i32", "M * D"), S("i32", "D"), S("i32", "1")]


CASES = [
    _ln("kernl_layer_norm_single_pass", "_layer_norm_fwd_fused_single_pass", True, False),
    _ln("kernl_rms_norm_single_pass", "_layer_norm_fwd_fused_single_pass", False, True),
    _ln("kernl_layer_norm_multi_pass", "_layer_norm_fwd_fused_multi_pass", True, False),
    _ln("kernl_layer_norm_xformers", "layer_norm_xformers", True, False),
    # launcher: src/kernl/implementations/attention.py:499 Attention.forward() (causal, no
    # mask: attention_mask is None in the launcher, unused with HAS_MASK False: a dummy here)
    case("kernl_attention_causal", P + "attention.py", "_fwd_kernel",
         [S("i32", "H"), S("i32", "M"), S("i32", "N"), S("i32", "M // 32"), S("i32", "N // 32"),
          T("in", "fp16", ["B", "H", "M", "D"]), T("in", "fp16", ["B", "H", "N", "D"]),
          T("in", "fp16", ["B", "H", "N", "D"]), S("fp32", "0.125"), T("in", "fp16", ["1"]),
          T("out", "fp16", ["B", "H", "M", "D"])] + _attn_strides() +
         [S("i32", "0"), S("i32", "0"), S("i32", "0"), S("i32", "0"), S("fp32", "0"),
          S("i32", "0"), S("i32", "0"), S("i32", "0"), S("i32", "0")],
         lambda s: {"HAS_MASK": False, "IS_MATRIX_MASK": False, "IS_CAUSAL": True, "BLOCK_DHEAD_SIZE": 64,
                    "BLOCK_M_SIZE": 128, "BLOCK_N_SIZE": 128, "M_LOAD_MASK_NEEDED": s["M"] % 128 != 0,
                    "N_LOAD_MASK_NEEDED": s["N"] % 128 != 0},
         "(cdiv(M, 128), B * H)", [{"B": 1, "H": 4, "M": 256, "N": 256, "D": 64},
                                   {"B": 2, "H": 2, "M": 77, "N": 77, "D": 64}], 4,
         tol=F16, num_warps=4, num_stages=2, include_dirs=INC),
    # same launcher, padding mask [1, 1, 1, N] (HAS_MASK, not a matrix mask), not causal.
    # A mask of batch B > 1 takes the runtime branch at attention.py:313 that binds
    # attention_mask_batch_idx to a tuple in one branch and 0 in the other, which
    # Triton 3 refuses as well; a batch-1 mask has the branch resolved at compile time.
    case("kernl_attention_padding_mask", P + "attention.py", "_fwd_kernel",
         [S("i32", "H"), S("i32", "M"), S("i32", "N"), S("i32", "M // 32"), S("i32", "N // 32"),
          T("in", "fp16", ["B", "H", "M", "D"]), T("in", "fp16", ["B", "H", "N", "D"]),
          T("in", "fp16", ["B", "H", "N", "D"]), S("fp32", "0.125"), T("in", "fp16", ["1", "1", "1", "N"]),
          T("out", "fp16", ["B", "H", "M", "D"])] + _attn_strides() +
         [S("i32", "N"), S("i32", "N"), S("i32", "N"), S("i32", "1"), S("fp32", "-65504.0"),
          S("i32", "1"), S("i32", "1"), S("i32", "1"), S("i32", "N")],
         lambda s: {"HAS_MASK": True, "IS_MATRIX_MASK": False, "IS_CAUSAL": False, "BLOCK_DHEAD_SIZE": 64,
                    "BLOCK_M_SIZE": 128, "BLOCK_N_SIZE": 128, "M_LOAD_MASK_NEEDED": s["M"] % 128 != 0,
                    "N_LOAD_MASK_NEEDED": s["N"] % 128 != 0},
         "(cdiv(M, 128), B * H)", [{"B": 1, "H": 4, "M": 256, "N": 256, "D": 64},
                                   {"B": 2, "H": 2, "M": 77, "N": 77, "D": 64}], 4,
         tol=F16, num_warps=4, num_stages=2, include_dirs=INC,
         # Triton specializes attention_mask_batch_size (parameter 33) as :1, which folds
         # `if attention_mask_batch_size == 1` over a tuple; without the :1 the branch stays
         # a runtime if, where the tuple cannot be yielded (Triton refuses that too)
         specialized_only=True),
    # launcher: src/kernl/implementations/attention_vec_mat.py:138 vec_mat_wrapper(), first call
    # of AttentionVecMat.forward() (q @ k^T, transpose_mat, scaler 1.0); autotune pick N_SIZE 32
    case("kernl_vec_mat_qk", P + "attention_vec_mat.py", "vec_mat",
         [T("in", "fp16", ["B", "H", "1", "D"]), S("i32", "H * D"), S("i32", "D"), S("i32", "D"), S("i32", "1"),
          T("in", "fp16", ["B", "H", "L", "D"]), S("i32", "H * L * D"), S("i32", "L * D"), S("i32", "1"),
          S("i32", "D"),
          T("out", "fp32", ["B", "H", "1", "L"]), S("i32", "H * L"), S("i32", "L"), S("i32", "L"), S("i32", "1")],
         lambda s: {"vec_col_size": s["D"], "matrix_row_size": s["D"], "matrix_col_size": s["L"],
                    "output_col_size": s["L"], "SCALER": 1.0, "SHOULD_VEC_SOFTMAX": False,
                    "VEC_COL_ROUNDED_SIZE": next_pow2(s["D"]), "N_SIZE": 32},
         "(cdiv(L, 32), H, B)", [{"B": 2, "H": 12, "L": 512, "D": 64}, {"B": 1, "H": 12, "L": 77, "D": 64}], 4,
         tol=F16, num_warps=1, num_stages=1, include_dirs=INC),
    # second call: softmax(qk * sm_scale) @ v
    case("kernl_vec_mat_pv", P + "attention_vec_mat.py", "vec_mat",
         [T("in", "fp32", ["B", "H", "1", "L"]), S("i32", "H * L"), S("i32", "L"), S("i32", "L"), S("i32", "1"),
          T("in", "fp16", ["B", "H", "L", "D"]), S("i32", "H * L * D"), S("i32", "L * D"), S("i32", "D"),
          S("i32", "1"),
          T("out", "fp16", ["B", "H", "1", "D"]), S("i32", "H * D"), S("i32", "D"), S("i32", "D"), S("i32", "1")],
         lambda s: {"vec_col_size": s["L"], "matrix_row_size": s["L"], "matrix_col_size": s["D"],
                    "output_col_size": s["D"], "SCALER": 0.125, "SHOULD_VEC_SOFTMAX": True,
                    "VEC_COL_ROUNDED_SIZE": next_pow2(s["L"]), "N_SIZE": 32},
         "(cdiv(D, 32), H, B)", [{"B": 2, "H": 12, "L": 512, "D": 64}, {"B": 1, "H": 12, "L": 77, "D": 64}], 4,
         tol=F16, num_warps=1, num_stages=1, include_dirs=INC),
    # launcher: src/kernl/implementations/batched_matmul.py:198 batched_matmul();
    # autotune pick: config 4 (128x128x32, GROUP 8, 4 warps, 2 stages)
    case("kernl_batched_matmul", P + "batched_matmul.py", "matmul_kernel",
         [T("in", "fp16", ["Bt", "M", "K"]), T("in", "fp16", ["Bt", "K", "N"]), T("out", "fp16", ["Bt", "M", "N"]),
          S("i32", "M"), S("i32", "N"), S("i32", "K"), S("i32", "M * K"), S("i32", "K"), S("i32", "1"),
          S("i32", "K * N"), S("i32", "N"), S("i32", "1"), S("i32", "M * N"), S("i32", "N"), S("i32", "1")],
         {"BLOCK_M_SIZE": 128, "BLOCK_N_SIZE": 128, "BLOCK_K_SIZE": 32, "GROUP_M_SIZE": 8},
         "(cdiv(M, 128) * cdiv(N, 128), Bt)",
         [{"Bt": 4, "M": 512, "K": 1024, "N": 512}, {"Bt": 3, "M": 77, "K": 96, "N": 200}], 4,
         tol=tol(2e-2, 2e-2), num_warps=4, num_stages=2, include_dirs=INC,
         cpu_sizes=[{"Bt": 1, "M": 130, "K": 64, "N": 129}]),
    # launcher: src/kernl/implementations/linear_layer.py:253 LinearLayer.forward() (bias,
    # fused relu (kernl's "gelu", "fast_gelu" and "tanh" call tl.libdevice, which Triton 3
    # no longer has), act_inputs None: a dummy here, unused without SHOULD_SAVE_ACT_INPUTS);
    # autotune pick: 128x128x32, SPLIT_K 1, 4 warps, 4 stages
    case("kernl_linear_relu", P + "linear_layer.py", "kernel_fma",
         [T("out", "fp16", ["M", "N"]), T("in", "fp16", ["1"]), T("in", "fp16", ["M", "K"]),
          T("in", "fp16", ["N", "K"]), T("in", "fp16", ["N"]),
          S("i32", "M"), S("i32", "N"), S("i32", "K"), S("i32", "M // 32"), S("i32", "N // 32"),
          S("i32", "K // 32"), S("i32", "N"), S("i32", "1"), S("i32", "0"), S("i32", "0"),
          S("i32", "K"), S("i32", "1"), S("i32", "K"), S("i32", "1")],
         lambda s: {"BLOCK_M": 128, "GROUP_M": 8, "BLOCK_N": 128, "BLOCK_K": 32, "SPLIT_K": 1,
                    "K_LOAD_MASK_NEEDED": s["K"] % 32 == 0, "HAS_BIAS": True,
                    "SHOULD_SAVE_ACT_INPUTS": False, "ACTIVATION": "'relu'"},
         "cdiv(M, 128) * cdiv(N, 128)",
         [{"M": 256, "K": 768, "N": 3072}, {"M": 77, "K": 768, "N": 1000}], 4,
         tol=tol(2e-2, 2e-2), num_warps=4, num_stages=4, include_dirs=INC,
         cpu_sizes=[{"M": 33, "K": 64, "N": 130}]),
    # same launcher, no activation (""), no bias (bias argument is x)
    case("kernl_linear_plain", P + "linear_layer.py", "kernel_fma",
         [T("out", "fp16", ["M", "N"]), T("in", "fp16", ["1"]), T("in", "fp16", ["M", "K"]),
          T("in", "fp16", ["N", "K"]), T("in", "fp16", ["M", "K"]),
          S("i32", "M"), S("i32", "N"), S("i32", "K"), S("i32", "M // 32"), S("i32", "N // 32"),
          S("i32", "K // 32"), S("i32", "N"), S("i32", "1"), S("i32", "0"), S("i32", "0"),
          S("i32", "K"), S("i32", "1"), S("i32", "K"), S("i32", "1")],
         lambda s: {"BLOCK_M": 128, "GROUP_M": 8, "BLOCK_N": 128, "BLOCK_K": 32, "SPLIT_K": 1,
                    "K_LOAD_MASK_NEEDED": s["K"] % 32 == 0, "HAS_BIAS": False,
                    "SHOULD_SAVE_ACT_INPUTS": False, "ACTIVATION": "''"},
         "cdiv(M, 128) * cdiv(N, 128)",
         [{"M": 256, "K": 768, "N": 768}, {"M": 77, "K": 768, "N": 1000}], 4,
         tol=tol(2e-2, 2e-2), num_warps=4, num_stages=4, include_dirs=INC,
         cpu_sizes=[{"M": 33, "K": 64, "N": 130}]),
    # launcher: src/kernl/implementations/attention_skinny.py:519 SkinnyAttention.forward(),
    # second kernel (reduce the split results); splitted_qkt [B, H, S, M, D]
    case("kernl_skinny_attention_part2", P + "attention_skinny.py", "_fwd_part_2",
         [S("i32", "H"), S("i32", "Sp"), S("i32", "M"),
          T("in", "fp32", ["B", "H", "Sp", "M", "D"]), S("i32", "H * Sp * M * D"), S("i32", "Sp * M * D"),
          S("i32", "M * D"), S("i32", "D"), S("i32", "1"),
          T("in", "fp32", ["B", "H", "Sp", "M"]), S("i32", "H * Sp * M"), S("i32", "Sp * M"), S("i32", "M"),
          S("i32", "1"),
          T("in", "fp32", ["B", "H", "Sp", "M"], "uniform:0.5:2"), S("i32", "H * Sp * M"), S("i32", "Sp * M"),
          S("i32", "M"), S("i32", "1"),
          T("out", "fp16", ["B", "H", "M", "D"]), S("i32", "H * M * D"), S("i32", "M * D"), S("i32", "D"),
          S("i32", "1")],
         {"BLOCK_M_SIZE": 16, "BLOCK_DHEAD_SIZE": 64}, "(cdiv(M, 16), B * H)",
         [{"B": 2, "H": 12, "Sp": 8, "M": 16, "D": 64}, {"B": 1, "H": 12, "Sp": 5, "M": 7, "D": 64}], 4,
         tol=F16, num_warps=4, num_stages=1, include_dirs=INC),
    # launcher: src/kernl/implementations/attention_skinny.py:458 SkinnyAttention.forward(), first
    # kernel (split-K over keys, BLOCK_M 16, BLOCK_N 128; keyword arguments, listed here in the
    # signature's order); additive mask [1, 1, 1, N] in fp32 broadcast over batch and heads (a
    # per-batch mask, MASK_BATCH_SIZE > 1, takes the kernel's `(current_batch_idx,) * stride`
    # path, which Triton itself rejects: tuple * tensor), min_clamp_value = finfo(fp32).min;
    # splitted_qkt [B, H, Sp, M, D] with Sp = cdiv(N, 128)
    case("kernl_skinny_attention_part1_mask", P + "attention_skinny.py", "_fwd_part_1",
         [S("i32", "H"), S("i32", "M"), S("i32", "N"),
          T("in", "fp16", ["B", "H", "M", "D"]), T("in", "fp16", ["B", "H", "N", "D"]),
          T("in", "fp16", ["B", "H", "N", "D"]), S("fp32", "0.125"),
          T("in", "fp32", ["1", "1", "1", "N"], "uniform:-1:0"),
          T("out", "fp16", ["B", "H", "cdiv(N, 128)", "M", "D"]),
          T("inout", "fp32", ["B", "H", "cdiv(N, 128)", "M"], "zeros"),
          T("inout", "fp32", ["B", "H", "cdiv(N, 128)", "M"], "zeros"),
          S("i32", "H * M * D"), S("i32", "M * D"), S("i32", "D"), S("i32", "1"),
          S("i32", "H * N * D"), S("i32", "N * D"), S("i32", "D"), S("i32", "1"),
          S("i32", "H * N * D"), S("i32", "N * D"), S("i32", "D"), S("i32", "1"),
          S("i32", "H * cdiv(N, 128) * M"), S("i32", "cdiv(N, 128) * M"), S("i32", "M"), S("i32", "1"),
          S("i32", "H * cdiv(N, 128) * M"), S("i32", "cdiv(N, 128) * M"), S("i32", "M"), S("i32", "1"),
          S("i32", "H * cdiv(N, 128) * M * D"), S("i32", "cdiv(N, 128) * M * D"), S("i32", "M * D"),
          S("i32", "D"), S("i32", "1"),
          S("i32", "N"), S("i32", "N"), S("i32", "N"), S("i32", "1"),
          S("fp32", "-3.4028234663852886e38")],
         lambda s: {"N_LOAD_MASK_NEEDED": s["N"] % 128 != 0, "M_LOAD_MASK_NEEDED": s["M"] % 16 != 0,
                    "MASK_BATCH_SIZE": 1, "MASK_HEAD_SIZE": 1, "MASK_M_SIZE": 1, "MASK_K_SIZE": s["N"],
                    "HAS_MASK": True, "IS_CAUSAL": False, "BLOCK_M_SIZE": 16, "BLOCK_DHEAD_SIZE": s["D"],
                    "BLOCK_N_SIZE": 128},
         "(cdiv(N, 128), cdiv(M, 16), B * H)",
         [{"B": 2, "H": 12, "M": 16, "N": 1024, "D": 64}, {"B": 1, "H": 12, "M": 7, "N": 1000, "D": 64}], 4,
         tol=F16, num_warps=1, num_stages=8, include_dirs=INC),
    # launcher: as above, causal without a mask (attention_mask None, mask strides and sizes 0 in
    # the launcher; the mask pointer is a dummy here)
    case("kernl_skinny_attention_part1_causal", P + "attention_skinny.py", "_fwd_part_1",
         [S("i32", "H"), S("i32", "M"), S("i32", "N"),
          T("in", "fp16", ["B", "H", "M", "D"]), T("in", "fp16", ["B", "H", "N", "D"]),
          T("in", "fp16", ["B", "H", "N", "D"]), S("fp32", "0.125"),
          T("in", "fp16", ["1"]),
          T("out", "fp16", ["B", "H", "cdiv(N, 128)", "M", "D"]),
          T("inout", "fp32", ["B", "H", "cdiv(N, 128)", "M"], "zeros"),
          T("inout", "fp32", ["B", "H", "cdiv(N, 128)", "M"], "zeros"),
          S("i32", "H * M * D"), S("i32", "M * D"), S("i32", "D"), S("i32", "1"),
          S("i32", "H * N * D"), S("i32", "N * D"), S("i32", "D"), S("i32", "1"),
          S("i32", "H * N * D"), S("i32", "N * D"), S("i32", "D"), S("i32", "1"),
          S("i32", "H * cdiv(N, 128) * M"), S("i32", "cdiv(N, 128) * M"), S("i32", "M"), S("i32", "1"),
          S("i32", "H * cdiv(N, 128) * M"), S("i32", "cdiv(N, 128) * M"), S("i32", "M"), S("i32", "1"),
          S("i32", "H * cdiv(N, 128) * M * D"), S("i32", "cdiv(N, 128) * M * D"), S("i32", "M * D"),
          S("i32", "D"), S("i32", "1"),
          S("i32", "0"), S("i32", "0"), S("i32", "0"), S("i32", "0"),
          S("i32", "0")],
         lambda s: {"N_LOAD_MASK_NEEDED": s["N"] % 128 != 0, "M_LOAD_MASK_NEEDED": s["M"] % 16 != 0,
                    "MASK_BATCH_SIZE": 0, "MASK_HEAD_SIZE": 0, "MASK_M_SIZE": 0, "MASK_K_SIZE": 0,
                    "HAS_MASK": False, "IS_CAUSAL": True, "BLOCK_M_SIZE": 16, "BLOCK_DHEAD_SIZE": s["D"],
                    "BLOCK_N_SIZE": 128},
         "(cdiv(N, 128), cdiv(M, 16), B * H)",
         [{"B": 2, "H": 12, "M": 128, "N": 256, "D": 64}, {"B": 1, "H": 5, "M": 33, "N": 200, "D": 64}], 4,
         tol=F16, num_warps=1, num_stages=8, include_dirs=INC),
]
