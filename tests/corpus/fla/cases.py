"""flash-linear-attention (fla-org/flash-linear-attention) kernels, as fla's own
launchers call them. Autotuned kernels take a plausible config (named per case)."""
from cases import case, T, S, tol, EXACT, next_pow2

P = "tests/corpus/fla/"
F16 = tol(1e-2, 1e-2)
F32 = tol(1e-4, 1e-4)

CASES = [
    # launcher: fla/modules/l2norm.py:189 l2norm_fwd() (D > 512); autotune pick 4 warps
    case("fla_l2norm_fwd_wide", P + "fla/modules/l2norm.py", "l2norm_fwd_kernel1",
         [T("in", "bf16", ["M", "D"]), T("out", "bf16", ["M", "D"]), T("out", "fp32", ["M"]),
          S("fp32", "1e-6"), S("i32", "D")],
         lambda s: {"BD": next_pow2(s["D"])}, "M",
         [{"M": 64, "D": 2048}, {"M": 7, "D": 1000}], 4, tol=F16, num_warps=4),
    # launcher: fla/modules/l2norm.py:178 l2norm_fwd() (D <= 512, the q/k head norm);
    # autotune pick BT 32, 4 warps
    case("fla_l2norm_fwd", P + "fla/modules/l2norm.py", "l2norm_fwd_kernel",
         [T("in", "bf16", ["M", "D"]), T("out", "bf16", ["M", "D"]), T("out", "fp32", ["M"]),
          S("fp32", "1e-6"), S("i32", "M")],
         lambda s: {"D": s["D"], "BD": next_pow2(s["D"]), "NB": (s["M"] + 2048 * 32 - 1) // (2048 * 32),
                    "BT": 32},
         "cdiv(M, 32)", [{"M": 1024, "D": 128}, {"M": 77, "D": 128}], 4, tol=F16, num_warps=4),
    # launcher: fla/ops/utils/softmax.py:83 softmax_fwd(); autotune pick 4 warps
    case("fla_softmax_fwd", P + "fla/ops/utils/softmax.py", "softmax_fwd_kernel",
         [T("in", "fp32", ["M", "D"]), T("out", "fp32", ["M", "D"])],
         lambda s: {"D": s["D"], "B": next_pow2(s["D"])}, "M",
         [{"M": 64, "D": 64}, {"M": 33, "D": 100}], 4, tol=F32, num_warps=4),
    # launcher: fla/modules/activations.py:643 swiglu_fwd(); autotune pick B 1024, 4 warps
    case("fla_swiglu_fwd", P + "fla/modules/activations.py", "swiglu_fwd_kernel",
         [T("in", "bf16", ["M", "D"]), T("in", "bf16", ["M", "D"]), T("out", "bf16", ["M", "D"]),
          S("i32", "D"), S("i32", "D"), S("i32", "D"), S("i32", "M * D")],
         lambda s: {"D": s["D"], "B": 1024}, "cdiv(M * D, 1024)",
         [{"M": 16, "D": 11008}, {"M": 7, "D": 11008}], 4, tol=F16, num_warps=4),
    # launcher: fla/modules/activations.py:156 sigmoid_fwd(); autotune pick B 1024, 4 warps
    case("fla_sigmoid_fwd", P + "fla/modules/activations.py", "sigmoid_fwd_kernel",
         [T("in", "fp16", ["M", "D"]), T("out", "fp16", ["M", "D"]), S("i32", "D"), S("i32", "D"),
          S("i32", "M * D")],
         lambda s: {"D": s["D"], "B": 1024}, "cdiv(M * D, 1024)",
         [{"M": 16, "D": 4096}, {"M": 7, "D": 4096}], 4, tol=F16, num_warps=4),
    # launcher: fla/modules/activations.py:274 logsigmoid_fwd() (temperature 1)
    case("fla_logsigmoid_fwd", P + "fla/modules/activations.py", "logsigmoid_fwd_kernel",
         [T("in", "fp32", ["M", "D"]), T("out", "fp32", ["M", "D"]), S("i32", "D"), S("i32", "D"),
          S("fp32", "1.0"), S("i32", "M * D")],
         lambda s: {"D": s["D"], "B": 1024}, "cdiv(M * D, 1024)",
         [{"M": 16, "D": 64}, {"M": 77, "D": 64}], 4, tol=F32, num_warps=4),
    # launcher: fla/modules/fused_cross_entropy.py:197 fused_cross_entropy_forward()
    # (one process, no smoothing, logit softcapping 30, vocab <= 64k so no split)
    case("fla_cross_entropy_fwd", P + "fla/modules/fused_cross_entropy.py", "cross_entropy_fwd_kernel",
         [T("out", "fp32", ["M"]), T("out", "fp32", ["M"]), T("out", "fp32", ["M"]),
          T("in", "fp32", ["M", "N"]), T("in", "i64", ["M"], "randint:0:1000"),
          S("fp32", "0.0"), S("fp32", "1.0"), S("fp32", "0.0"), S("fp32", "30.0"), S("i32", "-100"),
          S("i32", "N"), S("i32", "0"), S("i32", "N"), S("i32", "M"), S("i32", "N")],
         lambda s: {"BLOCK_SIZE": next_pow2(s["N"]), "HAS_SMOOTHING": False, "HAS_SOFTCAPPING": True,
                    "SPLIT": False},
         "(M, 1)", [{"M": 8, "N": 32000}, {"M": 5, "N": 1000}], 4, tol=F32,
         num_warps=lambda s: 4 if next_pow2(s["N"]) < 2048 else (8 if next_pow2(s["N"]) < 8192 else 16)),
    # launcher: fla/modules/fused_cross_entropy.py:303 CrossEntropyLossFunction.backward()
    case("fla_cross_entropy_bwd", P + "fla/modules/fused_cross_entropy.py", "cross_entropy_bwd_kernel",
         [T("out", "fp32", ["M", "N"]), T("in", "fp32", ["M"]), T("in", "fp32", ["M", "N"]),
          T("in", "fp32", ["M"], "uniform:5:8"), T("in", "i64", ["M"], "randint:0:1000"),
          S("fp32", "0.1"), S("fp32", "1.0"), S("fp32", "0.0"), S("fp32", "30.0"), S("i32", "-100"),
          S("i32", "N"), S("i32", "0"), S("i32", "N"), S("i32", "N"), S("i32", "N"), S("i32", "1")],
         lambda s: {"BLOCK_SIZE": min(next_pow2(s["N"]), 4096), "HAS_SMOOTHING": True,
                    "HAS_SOFTCAPPING": True},
         "(M, cdiv(N, BLOCK_SIZE))", [{"M": 8, "N": 32000}, {"M": 5, "N": 1000}], 4, tol=F32,
         num_warps=lambda s: 4 if min(next_pow2(s["N"]), 4096) < 2048 else 8),
    # launcher: fla/modules/conv/triton/kernels.py:680 causal_conv1d_update() (decode step:
    # x [N, D], cache [N, D, W], weight, bias, silu; residual None: a dummy here, unused
    # without HAS_RESIDUAL); autotune pick BD 64, 4 warps
    case("fla_causal_conv1d_update", P + "fla/modules/conv/triton/kernels.py", "causal_conv1d_update_kernel",
         [T("in", "bf16", ["N", "D"]), T("inout", "bf16", ["N", "D", "W"]), T("in", "bf16", ["1"]),
          T("out", "bf16", ["N", "D"]), T("in", "bf16", ["D", "W"]), T("in", "bf16", ["D"]),
          S("i32", "D"), S("i32", "1"), S("i32", "D"), S("i32", "1")],
         lambda s: {"D": s["D"], "W": s["W"], "BD": 64, "BW": next_pow2(s["W"]), "ACTIVATION": "'silu'",
                    "USE_INITIAL_STATE": True, "HAS_WEIGHT": True, "HAS_BIAS": True, "HAS_RESIDUAL": False},
         "cdiv(D, 64) * N", [{"N": 16, "D": 4096, "W": 4}, {"N": 7, "D": 4096, "W": 4}], 4, tol=F16,
         num_warps=4),
    # launcher: fla/ops/gated_delta_rule/fused_recurrent.py:220 fused_recurrent_gated_delta_rule_fwd()
    # (Qwen3-Next-style decode: scalar gate g, head-wise beta, q/k l2norm in kernel, initial
    # and final state; gk, gv, A_log, dt_bias and cu_seqlens are None in the launcher: dummies
    # here, unused with their flags off)
    case("fla_fused_recurrent_gated_delta_rule_fwd", P + "fla/ops/gated_delta_rule/fused_recurrent.py",
         "fused_recurrent_gated_delta_rule_fwd_kernel",
         [T("in", "bf16", ["B", "L", "H", "K"]), T("in", "bf16", ["B", "L", "H", "K"]),
          T("in", "bf16", ["B", "L", "HV", "V"]), T("in", "fp32", ["B", "L", "HV"], "uniform:-1:0"),
          T("in", "fp32", ["1"]), T("in", "fp32", ["1"]), T("in", "bf16", ["B", "L", "HV"], "uniform:0:1"),
          T("in", "fp32", ["1"]), T("in", "fp32", ["1"]), T("out", "bf16", ["B", "L", "HV", "V"]),
          T("in", "fp32", ["B", "HV", "K", "V"], "uniform:-0.1:0.1"), T("out", "fp32", ["B", "HV", "K", "V"]),
          T("in", "i64", ["1"], "zeros"), S("fp32", "0.08838834764831845"), S("i32", "L")],
         {"H": 16, "HV": 32, "K": 128, "V": 128, "BK": 128, "BV": 8, "USE_G": True, "USE_GK": False,
          "USE_GV": False, "USE_QK_L2NORM_IN_KERNEL": True, "IS_BETA_HEADWISE": True,
          "USE_INITIAL_STATE": True, "STORE_FINAL_STATE": True, "STATE_V_FIRST": False,
          "IS_VARLEN": False, "USE_GATE_IN_KERNEL": False, "HAS_DT_BIAS": False,
          "APPLY_BETA_SIGMOID": False, "ALLOW_NEG_EIGVAL": False},
         "16 * B * 32", [{"B": 8, "L": 1, "H": 16, "HV": 32, "K": 128, "V": 128},
                         {"B": 3, "L": 37, "H": 16, "HV": 32, "K": 128, "V": 128}], 4,
         tol=tol(2e-2, 2e-2), num_warps=1, num_stages=3,
         cpu_sizes=[{"B": 1, "L": 2, "H": 16, "HV": 32, "K": 128, "V": 128}]),
    # launcher: fla/ops/common/fused_recurrent.py:440 fused_recurrent_fwd() (GLA decode: per-key
    # gate gk, initial and final state; g, g_gamma, gv and cu_seqlens are None in the launcher:
    # dummies here, unused with their flags off); autotune pick 4 warps
    case("fla_fused_recurrent_gla_fwd", P + "fla/ops/common/fused_recurrent.py", "fused_recurrent_fwd_kernel",
         [T("in", "bf16", ["B", "L", "H", "K"]), T("in", "bf16", ["B", "L", "H", "K"]),
          T("in", "bf16", ["B", "L", "H", "V"]), T("in", "fp32", ["1"]), T("in", "fp32", ["1"]),
          T("in", "fp32", ["B", "L", "H", "K"], "uniform:-1:0"), T("in", "fp32", ["1"]),
          T("out", "fp32", ["2", "B", "L", "H", "V"]),
          T("in", "fp32", ["B", "H", "K", "V"], "uniform:-0.1:0.1"), T("out", "fp32", ["B", "H", "K", "V"]),
          T("in", "i64", ["1"], "zeros"), S("fp32", "0.08838834764831845"), S("i32", "B"), S("i32", "L")],
         {"H": 16, "K": 128, "V": 128, "BK": 64, "BV": 64, "REVERSE": False, "USE_G": False,
          "USE_G_GAMMA": False, "USE_GK": True, "USE_GV": False, "USE_INITIAL_STATE": True,
          "STORE_FINAL_STATE": True, "IS_VARLEN": False, "STATE_V_FIRST": False},
         "2 * 2 * B * 16", [{"B": 8, "L": 1, "H": 16, "K": 128, "V": 128},
                            {"B": 3, "L": 37, "H": 16, "K": 128, "V": 128}], 4,
         tol=tol(2e-2, 2e-2), num_warps=4,
         cpu_sizes=[{"B": 1, "L": 2, "H": 16, "K": 128, "V": 128}]),
    # ---- elementwise activations (fla/modules/activations.py); autotune pick B 1024, 4 warps ----
    # launcher: fla/modules/activations.py:173 sigmoid_bwd()
    case("fla_sigmoid_bwd", P + "fla/modules/activations.py", "sigmoid_bwd_kernel",
         [T("in", "bf16", ["M", "D"]), T("in", "bf16", ["M", "D"]), T("out", "bf16", ["M", "D"]),
          S("i32", "D"), S("i32", "D"), S("i32", "D"), S("i32", "M * D")],
         lambda s: {"D": s["D"], "B": 1024}, "cdiv(M * D, 1024)",
         [{"M": 16, "D": 4096}, {"M": 7, "D": 1000}], 4, tol=F16, num_warps=4),
    # launcher: fla/modules/activations.py:297 logsigmoid_bwd() (temperature 2)
    case("fla_logsigmoid_bwd", P + "fla/modules/activations.py", "logsigmoid_bwd_kernel",
         [T("in", "fp32", ["M", "D"]), T("in", "fp32", ["M", "D"]), T("out", "fp32", ["M", "D"]),
          S("i32", "D"), S("i32", "D"), S("i32", "D"), S("fp32", "2.0"), S("i32", "M * D")],
         lambda s: {"D": s["D"], "B": 1024}, "cdiv(M * D, 1024)",
         [{"M": 16, "D": 64}, {"M": 77, "D": 64}], 4, tol=F32, num_warps=4),
    # launcher: fla/modules/activations.py:395 swish_fwd()
    case("fla_swish_fwd", P + "fla/modules/activations.py", "swish_fwd_kernel",
         [T("in", "bf16", ["M", "D"]), T("out", "bf16", ["M", "D"]), S("i32", "D"), S("i32", "D"),
          S("i32", "M * D")],
         lambda s: {"D": s["D"], "B": 1024}, "cdiv(M * D, 1024)",
         [{"M": 16, "D": 4096}, {"M": 9, "D": 2000}], 4, tol=F16, num_warps=4),
    # launcher: fla/modules/activations.py:412 swish_bwd()
    case("fla_swish_bwd", P + "fla/modules/activations.py", "swish_bwd_kernel",
         [T("in", "fp32", ["M", "D"]), T("in", "fp32", ["M", "D"]), T("out", "fp32", ["M", "D"]),
          S("i32", "D"), S("i32", "D"), S("i32", "D"), S("i32", "M * D")],
         lambda s: {"D": s["D"], "B": 1024}, "cdiv(M * D, 1024)",
         [{"M": 16, "D": 1024}, {"M": 5, "D": 999}], 4, tol=F32, num_warps=4),
    # launcher: fla/modules/activations.py:675 swiglu_fwdbwd() (use_weight: z recomputed)
    case("fla_swiglu_fwdbwd", P + "fla/modules/activations.py", "swiglu_fwdbwd_kernel",
         [T("in", "bf16", ["M", "D"]), T("in", "bf16", ["M", "D"]), T("in", "bf16", ["M", "D"]),
          T("out", "bf16", ["M", "D"]), T("out", "bf16", ["M", "D"]), T("out", "bf16", ["M", "D"]),
          S("i32", "D"), S("i32", "D"), S("i32", "D"), S("i32", "D"), S("i32", "D"), S("i32", "D"),
          S("i32", "M * D")],
         lambda s: {"D": s["D"], "B": 1024, "HAS_WEIGHT": True}, "cdiv(M * D, 1024)",
         [{"M": 16, "D": 11008}, {"M": 3, "D": 1001}], 4, tol=F16, num_warps=4),
    # launcher: fla/modules/activations.py:841 sigmoidglu_fwd()
    case("fla_sigmoidglu_fwd", P + "fla/modules/activations.py", "sigmoidglu_fwd_kernel",
         [T("in", "fp16", ["M", "D"]), T("in", "fp16", ["M", "D"]), T("out", "fp16", ["M", "D"]),
          S("i32", "D"), S("i32", "D"), S("i32", "D"), S("i32", "M * D")],
         lambda s: {"D": s["D"], "B": 1024}, "cdiv(M * D, 1024)",
         [{"M": 16, "D": 4096}, {"M": 7, "D": 1000}], 4, tol=F16, num_warps=4),
    # launcher: fla/modules/activations.py:873 sigmoidglu_fwdbwd() (use_weight False: z None,
    # a dummy here, unused without HAS_WEIGHT; its stride is 0)
    case("fla_sigmoidglu_fwdbwd", P + "fla/modules/activations.py", "sigmoidglu_fwdbwd_kernel",
         [T("in", "fp32", ["M", "D"]), T("in", "fp32", ["M", "D"]), T("in", "fp32", ["M", "D"]),
          T("out", "fp32", ["M", "D"]), T("out", "fp32", ["M", "D"]), T("in", "fp32", ["1"]),
          S("i32", "D"), S("i32", "D"), S("i32", "D"), S("i32", "D"), S("i32", "D"), S("i32", "0"),
          S("i32", "M * D")],
         lambda s: {"D": s["D"], "B": 1024, "HAS_WEIGHT": False}, "cdiv(M * D, 1024)",
         [{"M": 16, "D": 512}, {"M": 5, "D": 333}], 4, tol=F32, num_warps=4),

    # ---- chunked cumsums (fla/ops/utils/cumsum.py): gate cumsum of the chunked ops ----
    # launcher: fla/ops/utils/cumsum.py:265 chunk_local_cumsum_scalar() (g [B, T, H], chunk 64,
    # no scale, not varlen: scale/cu_seqlens/chunk_indices None, dummies here); autotune pick 2 warps
    case("fla_chunk_local_cumsum_scalar", P + "fla/ops/utils/cumsum.py", "chunk_local_cumsum_scalar_kernel",
         [T("in", "fp32", ["B", "L", "H"], "uniform:-1:0"), T("out", "fp32", ["B", "L", "H"]),
          S("fp32", "1.0"), T("in", "i32", ["1"], "zeros"), T("in", "i32", ["2"], "zeros"), S("i32", "L")],
         lambda s: {"B": s["B"], "H": s["H"], "BT": 64, "REVERSE": False, "HAS_SCALE": False,
                    "IS_VARLEN": False},
         "(cdiv(L, 64), B * H)", [{"B": 2, "L": 1024, "H": 16}, {"B": 3, "L": 77, "H": 5}], 4,
         tol=F32, num_warps=2),
    # launcher: fla/ops/utils/cumsum.py:306 chunk_local_cumsum_vector() (gk [B, T, H, S], chunk 64,
    # reverse, scale); autotune pick BS 64, 4 warps
    case("fla_chunk_local_cumsum_vector", P + "fla/ops/utils/cumsum.py", "chunk_local_cumsum_vector_kernel",
         [T("in", "fp32", ["B", "L", "H", "K"], "uniform:-1:0"), T("out", "fp32", ["B", "L", "H", "K"]),
          S("fp32", "0.5"), T("in", "i32", ["1"], "zeros"), T("in", "i32", ["2"], "zeros"), S("i32", "L")],
         lambda s: {"B": s["B"], "H": s["H"], "S": s["K"], "BT": 64, "BS": 64, "REVERSE": True,
                    "HAS_SCALE": True, "IS_VARLEN": False},
         "(cdiv(K, 64), cdiv(L, 64), B * H)",
         [{"B": 2, "L": 256, "H": 4, "K": 128}, {"B": 1, "L": 77, "H": 3, "K": 100}], 4,
         tol=F32, num_warps=4),
    # launcher: fla/ops/utils/cumsum.py:340 chunk_global_cumsum_scalar() (not varlen, no scale);
    # autotune pick BT 64, 4 warps, 2 stages
    case("fla_chunk_global_cumsum_scalar", P + "fla/ops/utils/cumsum.py", "chunk_global_cumsum_scalar_kernel",
         [T("in", "fp32", ["B", "L", "H"], "uniform:-1:1"), T("out", "fp32", ["B", "L", "H"]),
          S("fp32", "1.0"), T("in", "i32", ["1"], "zeros"), S("i32", "L")],
         lambda s: {"B": s["B"], "H": s["H"], "BT": 64, "REVERSE": False, "HAS_SCALE": False,
                    "IS_VARLEN": False},
         "B * H", [{"B": 2, "L": 1024, "H": 16}, {"B": 3, "L": 77, "H": 5}], 4,
         tol=tol(1e-3, 1e-3), num_warps=4, num_stages=2),
    # launcher: fla/ops/utils/cumsum.py:372 chunk_global_cumsum_vector() (reverse, scale);
    # autotune pick BT 32, 4 warps, 2 stages; BS = min(32, next_pow2(S))
    case("fla_chunk_global_cumsum_vector", P + "fla/ops/utils/cumsum.py", "chunk_global_cumsum_vector_kernel",
         [T("in", "fp32", ["B", "L", "H", "K"], "uniform:-1:1"), T("out", "fp32", ["B", "L", "H", "K"]),
          S("fp32", "0.5"), T("in", "i32", ["1"], "zeros"), S("i32", "L")],
         lambda s: {"B": s["B"], "H": s["H"], "S": s["K"], "BT": 32, "BS": min(32, next_pow2(s["K"])),
                    "REVERSE": True, "HAS_SCALE": True, "IS_VARLEN": False},
         "(cdiv(K, BS), B * H)",
         [{"B": 2, "L": 256, "H": 4, "K": 64}, {"B": 1, "L": 77, "H": 3, "K": 20}], 4,
         tol=tol(1e-3, 1e-3), num_warps=4, num_stages=2),

    # ---- norms ----
    # launcher: fla/modules/layernorm.py:586 layer_norm_fwd() (D <= 512: head-dim group norm,
    # weight+bias, residual in and out, G = 1); autotune pick BT 32, 4 warps
    case("fla_layer_norm_fwd", P + "fla/modules/layernorm.py", "layer_norm_fwd_kernel",
         [T("in", "bf16", ["M", "D"]), T("out", "bf16", ["M", "D"]), T("in", "bf16", ["D"]),
          T("in", "bf16", ["D"]), T("in", "bf16", ["M", "D"]), T("out", "bf16", ["M", "D"]),
          T("out", "fp32", ["M"]), T("out", "fp32", ["M"]), S("fp32", "1e-5"), S("i32", "M")],
         lambda s: {"G": 1, "D": s["D"], "BT": 32, "BD": next_pow2(s["D"]), "NB": (s["M"] + 2047) // 2048,
                    "IS_RMS_NORM": False, "HAS_RESIDUAL": True, "STORE_RESIDUAL_OUT": True,
                    "HAS_WEIGHT": True, "HAS_BIAS": True},
         "cdiv(M, 32)", [{"M": 1024, "D": 128}, {"M": 77, "D": 100}], 4, tol=F16, num_warps=4),
    # launcher: fla/modules/layernorm.py:608 layer_norm_fwd() (D > 512: RMSNorm over hidden,
    # weight only, no residual; mean/bias/residual None, dummies here); autotune pick 8 warps
    case("fla_rms_norm_fwd_wide", P + "fla/modules/layernorm.py", "layer_norm_fwd_kernel1",
         [T("in", "bf16", ["M", "D"]), T("out", "bf16", ["M", "D"]), T("in", "bf16", ["D"]),
          T("in", "bf16", ["1"]), T("in", "bf16", ["1"]), T("in", "bf16", ["1"]),
          T("in", "fp32", ["1"]), T("out", "fp32", ["M"]), S("fp32", "1e-6")],
         lambda s: {"G": 1, "D": s["D"], "BD": next_pow2(s["D"]), "IS_RMS_NORM": True,
                    "HAS_RESIDUAL": False, "STORE_RESIDUAL_OUT": False, "HAS_WEIGHT": True, "HAS_BIAS": False},
         "M", [{"M": 64, "D": 4096}, {"M": 7, "D": 1000}], 4, tol=F16, num_warps=8),
    # launcher: fla/modules/fused_norm_gate.py:502 layer_norm_gated_fwd() (D <= 512: per-head
    # RMSNorm with swish output gate, as GLA/GDN/RetNet outputs; weight, no bias, no residual:
    # dummies here); autotune pick BT 32, 4 warps
    case("fla_rms_norm_gated_fwd", P + "fla/modules/fused_norm_gate.py", "layer_norm_gated_fwd_kernel",
         [T("in", "bf16", ["M", "D"]), T("in", "bf16", ["M", "D"]), T("out", "bf16", ["M", "D"]),
          T("in", "bf16", ["D"]), T("in", "bf16", ["1"]), T("in", "bf16", ["1"]), T("in", "bf16", ["1"]),
          T("in", "fp32", ["1"]), T("out", "fp32", ["M"]), S("fp32", "1e-5"), S("i32", "M")],
         lambda s: {"D": s["D"], "BT": 32, "BD": next_pow2(s["D"]), "NB": (s["M"] + 65535) // 65536,
                    "ACTIVATION": "'swish'", "IS_RMS_NORM": True, "STORE_RESIDUAL_OUT": False,
                    "HAS_RESIDUAL": False, "HAS_WEIGHT": True, "HAS_BIAS": False},
         "cdiv(M, 32)", [{"M": 2048, "D": 128}, {"M": 77, "D": 100}], 4, tol=F16, num_warps=4),
    # launcher: fla/modules/fused_norm_gate.py:521 layer_norm_gated_fwd() (D > 512: LayerNorm
    # with sigmoid gate, weight and bias, residual in/out); autotune pick 8 warps
    case("fla_layer_norm_gated_fwd_wide", P + "fla/modules/fused_norm_gate.py", "layer_norm_gated_fwd_kernel1",
         [T("in", "fp16", ["M", "D"]), T("in", "fp16", ["M", "D"]), T("out", "fp16", ["M", "D"]),
          T("in", "fp16", ["D"]), T("in", "fp16", ["D"]), T("in", "fp16", ["M", "D"]),
          T("out", "fp32", ["M", "D"]), T("out", "fp32", ["M"]), T("out", "fp32", ["M"]), S("fp32", "1e-5")],
         lambda s: {"D": s["D"], "BD": next_pow2(s["D"]), "ACTIVATION": "'sigmoid'", "IS_RMS_NORM": False,
                    "STORE_RESIDUAL_OUT": True, "HAS_RESIDUAL": True, "HAS_WEIGHT": True, "HAS_BIAS": True},
         "M", [{"M": 64, "D": 2048}, {"M": 7, "D": 1000}], 4, tol=F16, num_warps=8),
    # launcher: fla/modules/l2norm.py:229 l2norm_bwd() (D <= 512); autotune pick BT 32, 4 warps
    case("fla_l2norm_bwd", P + "fla/modules/l2norm.py", "l2norm_bwd_kernel",
         [T("in", "bf16", ["M", "D"]), T("in", "fp32", ["M"], "uniform:0.5:2"), T("in", "bf16", ["M", "D"]),
          T("out", "bf16", ["M", "D"]), S("fp32", "1e-6"), S("i32", "M")],
         lambda s: {"D": s["D"], "BD": next_pow2(s["D"]), "NB": (s["M"] + 65535) // 65536, "BT": 32},
         "cdiv(M, 32)", [{"M": 1024, "D": 128}, {"M": 77, "D": 100}], 4, tol=F16, num_warps=4),
    # launcher: fla/modules/l2norm.py:241 l2norm_bwd() (D > 512); autotune pick 4 warps
    case("fla_l2norm_bwd_wide", P + "fla/modules/l2norm.py", "l2norm_bwd_kernel1",
         [T("in", "fp32", ["M", "D"]), T("in", "fp32", ["M"], "uniform:0.5:2"), T("in", "fp32", ["M", "D"]),
          T("out", "fp32", ["M", "D"]), S("fp32", "1e-6"), S("i32", "D")],
         lambda s: {"BD": next_pow2(s["D"])}, "M",
         [{"M": 64, "D": 2048}, {"M": 7, "D": 1000}], 4, tol=F32, num_warps=4),

    # ---- utils ----
    # launcher: fla/ops/utils/softmax.py:103 softmax_bwd(); autotune pick 4 warps
    case("fla_softmax_bwd", P + "fla/ops/utils/softmax.py", "softmax_bwd_kernel",
         [T("in", "fp32", ["M", "D"], "uniform:0:1"), T("in", "fp32", ["M", "D"]), T("out", "fp32", ["M", "D"])],
         lambda s: {"D": s["D"], "B": next_pow2(s["D"])}, "M",
         [{"M": 64, "D": 64}, {"M": 33, "D": 100}], 4, tol=F32, num_warps=4),
    # launcher: fla/ops/utils/logsumexp.py:74 logsumexp_fwd() (scale given; B = min(next_pow2(D),
    # 64K), one block per row here); autotune pick 4 warps
    case("fla_logsumexp_fwd", P + "fla/ops/utils/logsumexp.py", "logsumexp_fwd_kernel",
         [T("in", "fp32", ["M", "D"]), T("out", "fp32", ["M"]), S("fp32", "0.5")],
         lambda s: {"D": s["D"], "B": next_pow2(s["D"]), "HAS_SCALE": True}, "(M, 1)",
         [{"M": 64, "D": 4096}, {"M": 7, "D": 1000}], 4, tol=F32, num_warps=4),
    # launcher: fla/modules/rotary.py:195 rotary_embedding_fwdbwd() (decode/prefill with per-sequence
    # offset tensor, non-interleaved, full rotary dim R2 = D; BT = min(128, next_pow2(cdiv(T, 132))));
    # cu_seqlens/chunk_indices None: dummies here; autotune pick 4 warps, 2 stages
    case("fla_rotary_embedding", P + "fla/modules/rotary.py", "rotary_embedding_kernel",
         [T("in", "fp16", ["B", "L", "H", "D"]), T("in", "fp16", ["TR", "D / 2"], "uniform:-1:1"),
          T("in", "fp16", ["TR", "D / 2"], "uniform:-1:1"), T("out", "fp16", ["B", "L", "H", "D"]),
          T("in", "i32", ["1"], "zeros"), T("in", "i32", ["2"], "zeros"),
          T("in", "i32", ["B"], "randint:0:1024"), S("i32", "L")],
         lambda s: {"B": s["B"], "H": s["H"], "D": s["D"], "R": s["D"] // 2, "TR": s["TR"],
                    "BT": min(128, next_pow2((s["L"] + 131) // 132)), "BD": next_pow2(s["D"]),
                    "IS_SEQLEN_OFFSETS_TENSOR": True, "IS_VARLEN": False, "INTERLEAVED": False,
                    "CONJUGATE": False},
         "(cdiv(L, BT), B, H)",
         [{"B": 8, "L": 1, "H": 32, "D": 128, "TR": 2048}, {"B": 2, "L": 300, "H": 5, "D": 64, "TR": 2048}],
         4, tol=F16, num_warps=4, num_stages=2),
    # launcher: fla/modules/rotary.py:195 rotary_embedding_fwdbwd() (interleaved, conjugate as in
    # the backward, integer offset 0)
    case("fla_rotary_embedding_interleaved", P + "fla/modules/rotary.py", "rotary_embedding_kernel",
         [T("in", "bf16", ["B", "L", "H", "D"]), T("in", "bf16", ["TR", "D / 2"], "uniform:-1:1"),
          T("in", "bf16", ["TR", "D / 2"], "uniform:-1:1"), T("out", "bf16", ["B", "L", "H", "D"]),
          T("in", "i32", ["1"], "zeros"), T("in", "i32", ["2"], "zeros"), S("i32", "0"), S("i32", "L")],
         lambda s: {"B": s["B"], "H": s["H"], "D": s["D"], "R": s["D"] // 2, "TR": s["TR"],
                    "BT": min(128, next_pow2((s["L"] + 131) // 132)), "BD": next_pow2(s["D"]),
                    "IS_SEQLEN_OFFSETS_TENSOR": False, "IS_VARLEN": False, "INTERLEAVED": True,
                    "CONJUGATE": True},
         "(cdiv(L, BT), B, H)",
         [{"B": 2, "L": 512, "H": 8, "D": 64, "TR": 512}, {"B": 3, "L": 45, "H": 3, "D": 64, "TR": 64}],
         4, tol=tol(2e-2, 2e-2), num_warps=4, num_stages=2),
    # launcher: fla/modules/token_shift.py:413 token_shift_fwd() (T <= 4096: short kernel; RWKV
    # token shift with a cache in and out, not varlen: cu_seqlens None, a dummy here;
    # IS_DECODE = T == 1); autotune pick 4 warps, 2 stages
    case("fla_token_shift_fwd_short", P + "fla/modules/token_shift.py", "token_shift_fwd_kernel_short",
         [T("in", "bf16", ["B", "L", "D"]), T("out", "bf16", ["B", "L", "D"]), T("in", "i32", ["1"], "zeros"),
          T("in", "bf16", ["B", "D"]), T("out", "bf16", ["B", "D"]), S("i32", "L")],
         lambda s: {"D": s["D"], "BD": next_pow2(s["D"]), "IS_VARLEN": False, "USE_INITIAL_STATE": True,
                    "STORE_FINAL_STATE": True, "IS_DECODE": s["L"] == 1},
         "(B, L)", [{"B": 4, "L": 256, "D": 2048}, {"B": 3, "L": 37, "D": 1000}, {"B": 8, "L": 1, "D": 2048}],
         4, tol=EXACT, num_warps=4, num_stages=2),
    # launcher: fla/modules/token_shift.py:436 token_shift_fwd() (T > 4096: long kernel, no cache;
    # BT = min(64, next_pow2(cdiv(max(16, B*T), 132))), NB = cdiv(B*T, 1024)); cache/cache_out
    # None: dummies here; autotune pick 4 warps, 2 stages
    case("fla_token_shift_fwd_long", P + "fla/modules/token_shift.py", "token_shift_fwd_kernel_long",
         [T("in", "bf16", ["B", "L", "D"]), T("out", "bf16", ["B", "L", "D"]), T("in", "i32", ["1"], "zeros"),
          T("in", "i32", ["2"], "zeros"), T("in", "bf16", ["1"]), T("in", "bf16", ["1"]), S("i32", "L")],
         lambda s: {"D": s["D"], "BD": next_pow2(s["D"]),
                    "BT": min(64, next_pow2((max(16, s["B"] * s["L"]) + 131) // 132)),
                    "NB": (s["B"] * s["L"] + 1023) // 1024, "ND": 1,
                    "IS_VARLEN": False, "USE_INITIAL_STATE": False, "STORE_FINAL_STATE": False},
         "(cdiv(L, BT), B)", [{"B": 1, "L": 8192, "D": 1024}, {"B": 2, "L": 4099, "D": 1000}],
         4, tol=EXACT, num_warps=4, num_stages=2, cpu_sizes=[{"B": 1, "L": 130, "D": 64}]),
    # launcher: fla/ops/utils/pooling.py:130 mean_pooling_fwd() (chunk 64, not varlen:
    # cu_seqlens/chunk_indices None, dummies here); autotune pick BD 64, 4 warps
    case("fla_mean_pooling_fwd", P + "fla/ops/utils/pooling.py", "mean_pooling_fwd_kernel",
         [T("in", "bf16", ["B", "L", "H", "D"]), T("out", "bf16", ["B", "cdiv(L, 64)", "H", "D"]),
          T("in", "i32", ["1"], "zeros"), T("in", "i32", ["2"], "zeros"), S("i32", "L")],
         lambda s: {"H": s["H"], "D": s["D"], "BT": 64, "BD": 64, "IS_VARLEN": False},
         "(cdiv(D, 64), cdiv(L, 64), B * H)",
         [{"B": 2, "L": 1024, "H": 16, "D": 128}, {"B": 1, "L": 77, "H": 5, "D": 100}], 4,
         tol=F16, num_warps=4),
    # launcher: fla/modules/layernorm_gated.py:159 layer_norm_fwd() (RMSNormGated with groups,
    # z gate applied before the norm, no bias: B None, a dummy here; grid (M, ngroups);
    # num_warps = min(max(BLOCK_N // 256, 1), 8))
    case("fla_rms_norm_gated_grouped_fwd", P + "fla/modules/layernorm_gated.py", "layer_norm_fwd_kernel",
         [T("in", "bf16", ["M", "NG * GS"]), T("out", "bf16", ["M", "NG * GS"]), T("in", "bf16", ["NG * GS"]),
          T("in", "bf16", ["1"]), T("in", "bf16", ["M", "NG * GS"]), T("in", "fp32", ["1"]),
          T("out", "fp32", ["NG * M"]), S("i32", "NG * GS"), S("i32", "NG * GS"), S("i32", "NG * GS"),
          S("i32", "M"), S("i32", "GS"), S("fp32", "1e-5")],
         lambda s: {"BLOCK_N": next_pow2(s["GS"]), "HAS_BIAS": False, "HAS_Z": True,
                    "NORM_BEFORE_GATE": False, "IS_RMS_NORM": True},
         "(M, NG)", [{"M": 64, "NG": 8, "GS": 1024}, {"M": 7, "NG": 3, "GS": 100}], 4, tol=F16,
         num_warps=lambda s: min(max(next_pow2(s["GS"]) // 256, 1), 8)),
    # launcher: fla/modules/conv/triton/ops.py:67 causal_conv1d_fwd() (short conv prefill: weight
    # [D, W], bias, silu, initial state [B, D, W], no residual, not varlen: residual, cu_seqlens
    # and chunk_indices None, dummies here; BT 64, NB = cdiv(B*T, 1024)); autotune pick BD 64,
    # 4 warps
    case("fla_causal_conv1d_fwd", P + "fla/modules/conv/triton/kernels.py", "causal_conv1d_fwd_kernel",
         [T("in", "bf16", ["B", "L", "D"]), T("out", "bf16", ["B", "L", "D"]), T("in", "bf16", ["D", "W"]),
          T("in", "bf16", ["D"]), T("in", "bf16", ["1"]), T("in", "i32", ["1"], "zeros"),
          T("in", "bf16", ["B", "D", "W"]), T("in", "i32", ["2"], "zeros"),
          S("i32", "B"), S("i32", "L"), S("i32", "L * D"), S("i32", "D"), S("i32", "1")],
         lambda s: {"D": s["D"], "W": s["W"], "BT": 64, "BW": next_pow2(s["W"]), "BD": 64,
                    "NB": (s["B"] * s["L"] + 1023) // 1024, "ACTIVATION": "'silu'", "HAS_WEIGHT": True,
                    "HAS_BIAS": True, "HAS_RESIDUAL": False, "USE_INITIAL_STATE": True, "IS_VARLEN": False},
         "(cdiv(D, 64), cdiv(L, 64), B)",
         [{"B": 2, "L": 512, "D": 2048, "W": 4}, {"B": 3, "L": 77, "D": 1000, "W": 4}], 4,
         tol=F16, num_warps=4, cpu_sizes=[{"B": 1, "L": 70, "D": 64, "W": 4}]),
    # launcher: fla/modules/conv/triton/kernels.py:616 causal_conv1d_update_states() (the final
    # conv state after prefill, from causal_conv1d_fwd(output_final_state=True); initial state
    # given, not varlen: cu_seqlens None, a dummy here; BD = min(next_pow2(D), 256))
    case("fla_causal_conv1d_states_fwd", P + "fla/modules/conv/triton/kernels.py", "causal_conv1d_states_fwd_kernel",
         [T("in", "bf16", ["B", "L", "D"]), T("in", "bf16", ["B", "D", "W"]), T("out", "bf16", ["B", "D", "W"]),
          T("in", "i32", ["1"], "zeros"), S("i32", "L"), S("i32", "D"), S("i32", "W"),
          S("i32", "L * D"), S("i32", "D"), S("i32", "1")],
         lambda s: {"BD": min(next_pow2(s["D"]), 256), "BW": next_pow2(s["W"]), "USE_INITIAL_STATE": True,
                    "IS_VARLEN": False},
         "cdiv(D, BD) * B",
         [{"B": 4, "L": 512, "D": 2048, "W": 4}, {"B": 3, "L": 2, "D": 1000, "W": 4}], 4,
         tol=EXACT, num_warps=4),
    # launcher: fla/modules/fused_bitlinear.py:170 layer_norm_fwd_quant() (BitLinear's RMSNorm with
    # 8-bit activation fake-quant: weight, no bias, no residual; B, RESIDUAL, RESIDUAL_OUT and Mean
    # None, dummies here, their strides 0); autotune pick 4 warps
    case("fla_rms_norm_fwd_quant", P + "fla/modules/fused_bitlinear.py", "layer_norm_fwd_kernel_quant",
         [T("in", "bf16", ["M", "N"]), T("out", "bf16", ["M", "N"]), T("in", "bf16", ["N"]),
          T("in", "bf16", ["1"]), T("in", "bf16", ["1"]), T("in", "bf16", ["1"]), T("in", "fp32", ["1"]),
          T("out", "fp32", ["M"]), S("i32", "N"), S("i32", "N"), S("i32", "0"), S("i32", "0"),
          S("i32", "N"), S("fp32", "1e-8")],
         lambda s: {"IS_RMS_NORM": True, "BLOCK_N": next_pow2(s["N"]), "HAS_RESIDUAL": False,
                    "STORE_RESIDUAL_OUT": False, "HAS_WEIGHT": True, "HAS_BIAS": False},
         "M", [{"M": 64, "N": 4096}, {"M": 7, "N": 1000}], 4, tol=tol(5e-2, 5e-2), num_warps=4),
    # launcher: fla/modules/fused_kl_div.py:170 fused_kl_div_forward() (one chunk of C = N rows,
    # reduction 'batchmean', BV = min(32768, next_pow2(V)), 32 warps; the logits are overwritten
    # with their gradient)
    case("fla_kl_div_fwd", P + "fla/modules/fused_kl_div.py", "kl_div_kernel",
         [T("inout", "bf16", ["N", "V"]), T("in", "bf16", ["N", "V"]), T("out", "fp32", ["N"]),
          S("i32", "V"), S("i32", "1")],
         lambda s: {"reduction": "'batchmean'", "N": s["N"], "V": s["V"], "BV": min(32768, next_pow2(s["V"]))},
         "N", [{"N": 16, "V": 32000}, {"N": 7, "V": 1000}], 4, tol=tol(2e-2, 2e-2), num_warps=32),
    # launcher: fla/modules/fused_kl_div.py:219 fused_kl_div_backward() (dx *= do in place;
    # B = min(32768, next_pow2(H)), 32 warps)
    case("fla_elementwise_mul", P + "fla/modules/fused_kl_div.py", "elementwise_mul_kernel",
         [T("inout", "bf16", ["M", "H"]), T("in", "fp32", ["1"])],
         lambda s: {"N": s["M"] * s["H"], "B": min(32768, next_pow2(s["H"]))},
         "cdiv(M * H, B)", [{"M": 64, "H": 4096}, {"M": 7, "H": 1000}], 4, tol=tol(1e-2, 1e-2),
         num_warps=32),
]
