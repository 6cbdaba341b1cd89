from cases import case, T, S, tol, EXACT, next_pow2

P = "tests/corpus/mamba/"
TR = P + "mamba_ssm/ops/triton/"


def _ssu_block(s):
    n = s["N"]
    return (32, 4) if n <= 16 else (16, 4) if n <= 32 else (8, 4) if n <= 64 else (4, 4) if n <= 128 else (4, 8)


def _ln_block(N, elsize=2):
    return min(65536 // elsize, next_pow2(N))


CASES = [
    # launcher: mamba_ssm/ops/triton/selective_state_update.py:201 selective_state_update()
    # as Mamba2.step() calls it: A, dt, dt_bias, D expanded over headdim/dstate with
    # stride 0 (tie_hdim True), dt_softplus, z given (rmsnorm=False), no state_batch_indices
    # (None in the launcher: a tensor here that the kernel does not read).
    case("mamba_selective_state_update", TR + "selective_state_update.py", "_selective_scan_update_kernel",
         [T("inout", "fp32", ["b", "H", "Pd", "N"]), T("in", "bf16", ["b", "H", "Pd"]),
          T("in", "bf16", ["b", "H"], "uniform:-3:1"), T("in", "fp32", ["H"], "uniform:-2:1"),
          T("in", "fp32", ["H"], "uniform:-4:-0.5"), T("in", "bf16", ["b", "G", "N"]),
          T("in", "bf16", ["b", "G", "N"]), T("in", "fp32", ["H"]), T("in", "bf16", ["b", "H", "Pd"]),
          T("out", "bf16", ["b", "H", "Pd"]), T("in", "i32", ["b"], "randint:0:1"),
          S("i32", "b"), S("i32", "H"), S("i32", "Pd"), S("i32", "N"), S("i32", "H // G"),
          S("i32", "H * Pd * N"), S("i32", "Pd * N"), S("i32", "N"), S("i32", "1"),
          S("i32", "H * Pd"), S("i32", "Pd"), S("i32", "1"),
          S("i32", "H"), S("i32", "1"), S("i32", "0"),
          S("i32", "1"), S("i32", "0"),
          S("i32", "1"), S("i32", "0"), S("i32", "0"),
          S("i32", "G * N"), S("i32", "N"), S("i32", "1"),
          S("i32", "G * N"), S("i32", "N"), S("i32", "1"),
          S("i32", "1"), S("i32", "0"),
          S("i32", "H * Pd"), S("i32", "Pd"), S("i32", "1"),
          S("i32", "H * Pd"), S("i32", "Pd"), S("i32", "1")],
         lambda s: {"DT_SOFTPLUS": True, "TIE_HDIM": True, "BLOCK_SIZE_M": _ssu_block(s)[0],
                    "HAS_DT_BIAS": True, "HAS_D": True, "HAS_Z": True,
                    "HAS_STATE_BATCH_INDICES": False, "BLOCK_SIZE_DSTATE": next_pow2(s["N"])},
         "(cdiv(Pd, BLOCK_SIZE_M), b, H)",
         [{"b": 4, "H": 80, "Pd": 64, "N": 128, "G": 1}, {"b": 3, "H": 24, "Pd": 50, "N": 128, "G": 8},
          {"b": 5, "H": 48, "Pd": 64, "N": 16, "G": 1}],
         4, tol=tol(2e-2, 2e-2), num_warps=lambda s: _ssu_block(s)[1], grid_in_blob=False,
         cpu_sizes=[{"b": 2, "H": 8, "Pd": 12, "N": 16, "G": 2}]),
    # launcher: mamba_ssm/ops/triton/layer_norm.py:371 _layer_norm_fwd(), as the Mamba block's
    # fused add + RMSNorm calls it (rms_norm_fn, prenorm, residual_in_fp32: residual and
    # residual_out fp32, no bias, no dropout). Pointers the launcher passes as None get a
    # tensor the kernel does not read. Autotuned over num_warps only: 4 warps taken.
    case("mamba_rms_norm_residual_fwd", TR + "layer_norm.py", "_layer_norm_fwd_1pass_kernel",
         [T("in", "bf16", ["M", "N"]), T("out", "bf16", ["M", "N"]), T("in", "fp32", ["N"]),
          T("in", "fp32", ["1"]), T("in", "fp32", ["M", "N"]),
          T("in", "bf16", ["1"]), T("in", "fp32", ["1"]), T("in", "fp32", ["1"]), T("in", "bf16", ["1"]),
          T("out", "fp32", ["M", "N"]), T("in", "fp32", ["1"]), T("in", "i64", ["1"], "zeros"),
          T("in", "i1", ["1"], "zeros"), T("in", "fp32", ["1"]), T("out", "fp32", ["M"]),
          S("i32", "N"), S("i32", "N"), S("i32", "N"), S("i32", "N"), S("i32", "0"), S("i32", "0"),
          S("i32", "M"), S("i32", "N"), S("fp32", "1e-5"), S("fp32", "0.0")],
         lambda s: {"IS_RMS_NORM": True, "BLOCK_N": _ln_block(s["N"]), "HAS_RESIDUAL": True,
                    "STORE_RESIDUAL_OUT": True, "HAS_BIAS": False, "HAS_DROPOUT": False,
                    "STORE_DROPOUT_MASK": False, "HAS_ROWSCALE": False, "HAS_X1": False,
                    "HAS_W1": False, "HAS_B1": False},
         "M", [{"M": 64, "N": 2560}, {"M": 7, "N": 1000}],
         4, tol=tol(2e-2, 2e-2), num_warps=4, grid_in_blob=False),
    # launcher: mamba_ssm/ops/triton/layernorm_gated.py:140 _layer_norm_fwd(), as Mamba2's
    # RMSNormGated calls it (is_rms_norm, z given, norm_before_gate False, group_size
    # d_ssm / ngroups)
    case("mamba_rmsnorm_gated_fwd", TR + "layernorm_gated.py", "_layer_norm_fwd_1pass_kernel",
         [T("in", "bf16", ["M", "NG * GS"]), T("out", "bf16", ["M", "NG * GS"]),
          T("in", "fp32", ["NG * GS"]), T("in", "fp32", ["1"]), T("in", "bf16", ["M", "NG * GS"]),
          T("in", "fp32", ["1"]), T("out", "fp32", ["NG * M"]),
          S("i32", "NG * GS"), S("i32", "NG * GS"), S("i32", "NG * GS"),
          S("i32", "M"), S("i32", "GS"), S("fp32", "1e-5")],
         lambda s: {"BLOCK_N": _ln_block(s["GS"]), "HAS_BIAS": False, "HAS_Z": True,
                    "NORM_BEFORE_GATE": False, "IS_RMS_NORM": True},
         "(M, NG)", [{"M": 32, "NG": 1, "GS": 5120}, {"M": 7, "NG": 8, "GS": 200}],
         4, tol=tol(2e-2, 2e-2),
         num_warps=lambda s: min(max(_ln_block(s["GS"]) // 256, 1), 8), grid_in_blob=False),
    # launcher: mamba_ssm/ops/triton/k_activations.py:60 _swiglu_fwd(); x and y are the two
    # halves of one [M, 2N] tensor (row stride 2N). Autotuned on ncols: BLOCK_N 1024 taken.
    case("mamba_swiglu_fwd", TR + "k_activations.py", "_swiglu_fwd_kernel",
         [T("in", "bf16", ["M", "2 * N"]), T("in", "bf16", ["M", "2 * N"]), T("out", "bf16", ["M", "N"]),
          S("i32", "2 * N"), S("i32", "2 * N"), S("i32", "N"), S("i32", "N")],
         {"BLOCK_N": 1024}, "(M, cdiv(N, 1024))",
         [{"M": 64, "N": 5120}, {"M": 7, "N": 1001}],
         4, tol=tol(2e-2, 2e-2), num_warps=4, grid_in_blob=False),
    # launcher: mamba_ssm/ops/triton/ssd_chunk_state.py:728 _chunk_cumsum_fwd() (Mamba2 prefill:
    # chunk_size 256, dt_softplus, dt_bias, dt_limit (0, inf)). Autotuned on (chunk_size,
    # nheads): BLOCK_SIZE_H 8 taken.
    case("mamba_chunk_cumsum_fwd", TR + "ssd_chunk_state.py", "_chunk_cumsum_fwd_kernel",
         [T("in", "bf16", ["b", "L", "H"], "uniform:-3:1"), T("in", "fp32", ["H"], "uniform:-4:-0.5"),
          T("in", "fp32", ["H"], "uniform:-2:1"),
          T("out", "fp32", ["b", "H", "cdiv(L, 256)", "256"]),
          T("out", "fp32", ["b", "H", "cdiv(L, 256)", "256"]),
          S("i32", "b"), S("i32", "L"), S("i32", "H"), S("i32", "256"),
          S("fp32", "0.0"), S("fp32", "1e400"),
          S("i32", "L * H"), S("i32", "H"), S("i32", "1"), S("i32", "1"), S("i32", "1"),
          S("i32", "H * cdiv(L, 256) * 256"), S("i32", "256"), S("i32", "cdiv(L, 256) * 256"), S("i32", "1"),
          S("i32", "H * cdiv(L, 256) * 256"), S("i32", "256"), S("i32", "cdiv(L, 256) * 256"), S("i32", "1")],
         {"DT_SOFTPLUS": True, "HAS_DT_BIAS": True, "BLOCK_SIZE_H": 8, "BLOCK_SIZE_CHUNK": 256},
         "(b, cdiv(L, 256), cdiv(H, 8))",
         [{"b": 2, "L": 1024, "H": 80}, {"b": 1, "L": 1000, "H": 24}],
         4, tol=tol(1e-3, 1e-3), num_warps=4, grid_in_blob=False,
         cpu_sizes=[{"b": 1, "L": 300, "H": 10}]),
    # ---- Mamba2 SSD chunked forward (mamba_ssm/ops/triton/ssd_combined.py:374-386
    # _mamba_chunk_scan_combined_fwd(): chunk_cumsum -> chunk_state -> state_passing -> bmm_chunk
    # -> chunk_scan). Sizes: b batch, L seqlen, H heads, P headdim, N dstate, G groups (1), CS chunk
    # (256 in Mamba2); NC = cdiv(L, CS). dt [b, H, NC, CS] and dA_cumsum are indexed
    # (batch, chunk, head, csize). seq_idx is None in the launcher: a dummy here, its strides 0.
    # launcher: mamba_ssm/ops/triton/ssd_chunk_state.py:830 _chunk_state_fwd() (states in fp32);
    # autotune pick BLOCK_SIZE_M 64, BLOCK_SIZE_N 128, BLOCK_SIZE_K 32, 4 warps, 4 stages
    case("mamba_chunk_state_fwd", TR + "ssd_chunk_state.py", "_chunk_state_fwd_kernel",
         [T("in", "bf16", ["b", "L", "H", "P"]), T("in", "bf16", ["b", "L", "G", "N"]),
          T("out", "fp32", ["b", "cdiv(L, CS)", "H", "P", "N"]),
          T("in", "fp32", ["b", "H", "cdiv(L, CS)", "CS"], "uniform:0.01:0.1"),
          T("in", "fp32", ["b", "H", "cdiv(L, CS)", "CS"], "uniform:-2:0"), T("in", "i32", ["1"], "zeros"),
          S("i32", "P"), S("i32", "N"), S("i32", "CS"), S("i32", "b"), S("i32", "L"), S("i32", "H"),
          S("i32", "L * H * P"), S("i32", "H * P"), S("i32", "P"), S("i32", "1"),
          S("i32", "L * G * N"), S("i32", "G * N"), S("i32", "N"), S("i32", "1"),
          S("i32", "cdiv(L, CS) * H * P * N"), S("i32", "H * P * N"), S("i32", "P * N"), S("i32", "N"), S("i32", "1"),
          S("i32", "H * cdiv(L, CS) * CS"), S("i32", "CS"), S("i32", "cdiv(L, CS) * CS"), S("i32", "1"),
          S("i32", "H * cdiv(L, CS) * CS"), S("i32", "CS"), S("i32", "cdiv(L, CS) * CS"), S("i32", "1"),
          S("i32", "0"), S("i32", "0")],
         {"HAS_SEQ_IDX": False, "BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32},
         "(cdiv(P, 64) * cdiv(N, 128), b * cdiv(L, CS), H)",
         [{"b": 1, "L": 1024, "H": 24, "P": 64, "N": 128, "G": 1, "CS": 256},
          {"b": 2, "L": 300, "H": 5, "P": 64, "N": 128, "G": 1, "CS": 256}],
         4, tol=tol(2e-2, 2e-2), num_warps=4, num_stages=4, grid_in_blob=False,
         cpu_sizes=[{"b": 1, "L": 40, "H": 2, "P": 16, "N": 16, "G": 1, "CS": 32}]),
    # launcher: mamba_ssm/ops/triton/ssd_state_passing.py:211 _state_passing_fwd() (states of
    # chunk_state viewed [b, NC, H, P*N], dA_cumsum[:, :, :, -1] as dA_chunk_cumsum: that view
    # starts CS - 1 elements into dA_cumsum, here the tensor itself with the same strides;
    # initial states given; out in C's dtype); autotune pick BLOCK_SIZE 512 (4 warps, 3 stages)
    case("mamba_state_passing_fwd", TR + "ssd_state_passing.py", "_state_passing_fwd_kernel",
         [T("in", "fp32", ["b", "cdiv(L, CS)", "H", "P * N"]), T("out", "bf16", ["b", "cdiv(L, CS)", "H", "P * N"]),
          T("out", "fp32", ["b", "H", "P * N"]), T("in", "fp32", ["b", "H", "cdiv(L, CS)", "CS"], "uniform:-2:0"),
          T("in", "fp32", ["b", "H", "P * N"]), T("in", "i32", ["1"], "zeros"),
          S("i32", "P * N"), S("i32", "cdiv(L, CS)"), S("i32", "0"), S("i32", "0"),
          S("i32", "cdiv(L, CS) * H * P * N"), S("i32", "H * P * N"), S("i32", "P * N"), S("i32", "1"),
          S("i32", "cdiv(L, CS) * H * P * N"), S("i32", "H * P * N"), S("i32", "P * N"), S("i32", "1"),
          S("i32", "H * P * N"), S("i32", "P * N"), S("i32", "1"),
          S("i32", "H * cdiv(L, CS) * CS"), S("i32", "CS"), S("i32", "cdiv(L, CS) * CS"),
          S("i32", "H * P * N"), S("i32", "P * N"), S("i32", "1"),
          S("i32", "0"), S("i32", "0")],
         {"HAS_INITSTATES": True, "HAS_SEQ_IDX": False, "BLOCK_SIZE": 512},
         "(cdiv(P * N, 512), b, H)",
         [{"b": 1, "L": 1024, "H": 24, "P": 64, "N": 128, "CS": 256},
          {"b": 2, "L": 1300, "H": 5, "P": 64, "N": 100, "CS": 256}],
         4, tol=tol(2e-2, 2e-2), num_warps=4, grid_in_blob=False,
         cpu_sizes=[{"b": 1, "L": 100, "H": 2, "P": 16, "N": 16, "CS": 32}]),
    # launcher: mamba_ssm/ops/triton/ssd_bmm.py:199 _bmm_chunk_fwd(C, B, chunk_size,
    # output_dtype=fp32) (with groups, not causal, dot_dtype bf16); autotune pick BLOCK_SIZE_M 128,
    # BLOCK_SIZE_N 128, BLOCK_SIZE_K 32, 4 warps, 4 stages
    case("mamba_bmm_chunk_fwd", TR + "ssd_bmm.py", "_bmm_chunk_fwd_kernel",
         [T("in", "bf16", ["b", "L", "G", "N"]), T("in", "bf16", ["b", "L", "G", "N"]),
          T("out", "fp32", ["b", "cdiv(L, CS)", "G", "CS", "CS"]), T("in", "i32", ["1"], "zeros"),
          S("i32", "L"), S("i32", "CS"), S("i32", "N"), S("i32", "G"),
          S("i32", "L * G * N"), S("i32", "G * N"), S("i32", "N"), S("i32", "1"),
          S("i32", "L * G * N"), S("i32", "G * N"), S("i32", "N"), S("i32", "1"),
          S("i32", "cdiv(L, CS) * G * CS * CS"), S("i32", "G * CS * CS"), S("i32", "CS * CS"), S("i32", "CS"),
          S("i32", "1"), S("i32", "0"), S("i32", "0")],
         {"IS_CAUSAL": False, "dot_dtype": "tl.bfloat16", "HAS_SEQ_IDX": False,
          "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32},
         "(cdiv(CS, 128) * cdiv(CS, 128), b, cdiv(L, CS) * G)",
         [{"b": 1, "L": 1024, "G": 1, "N": 128, "CS": 256}, {"b": 2, "L": 300, "G": 2, "N": 128, "CS": 256}],
         4, tol=tol(2e-2, 2e-2), num_warps=4, num_stages=4, grid_in_blob=False,
         cpu_sizes=[{"b": 1, "L": 40, "G": 1, "N": 16, "CS": 32}]),
    # launcher: mamba_ssm/ops/triton/ssd_chunk_scan.py:1286 _chunk_scan_fwd() (Mamba2 with z and
    # D of shape [H]: causal, HAS_D, not D_HAS_HDIM, HAS_Z; states after state passing in bf16;
    # BLOCK_SIZE_DSTATE = max(next_pow2(N), 16)); autotune pick BLOCK_SIZE_M 64, BLOCK_SIZE_N 64,
    # BLOCK_SIZE_K 32, 2 warps, 4 stages
    case("mamba_chunk_scan_fwd", TR + "ssd_chunk_scan.py", "_chunk_scan_fwd_kernel",
         [T("in", "fp32", ["b", "cdiv(L, CS)", "G", "CS", "CS"], "uniform:-0.1:0.1"),
          T("in", "bf16", ["b", "L", "H", "P"]), T("in", "bf16", ["b", "L", "H", "P"]),
          T("out", "bf16", ["b", "L", "H", "P"]), T("out", "bf16", ["b", "L", "H", "P"]),
          T("in", "fp32", ["b", "H", "cdiv(L, CS)", "CS"], "uniform:0.01:0.1"),
          T("in", "fp32", ["b", "H", "cdiv(L, CS)", "CS"], "uniform:-2:0"), T("in", "i32", ["1"], "zeros"),
          T("in", "bf16", ["b", "L", "G", "N"]), T("in", "bf16", ["b", "cdiv(L, CS)", "H", "P", "N"], "uniform:-0.1:0.1"),
          T("in", "fp32", ["H"]),
          S("i32", "CS"), S("i32", "P"), S("i32", "N"), S("i32", "b"), S("i32", "L"), S("i32", "H"),
          S("i32", "cdiv(L, CS) * G * CS * CS"), S("i32", "G * CS * CS"), S("i32", "CS * CS"), S("i32", "CS"), S("i32", "1"),
          S("i32", "L * H * P"), S("i32", "H * P"), S("i32", "P"), S("i32", "1"),
          S("i32", "L * H * P"), S("i32", "H * P"), S("i32", "P"), S("i32", "1"),
          S("i32", "L * H * P"), S("i32", "H * P"), S("i32", "P"), S("i32", "1"),
          S("i32", "H * cdiv(L, CS) * CS"), S("i32", "CS"), S("i32", "cdiv(L, CS) * CS"), S("i32", "1"),
          S("i32", "H * cdiv(L, CS) * CS"), S("i32", "CS"), S("i32", "cdiv(L, CS) * CS"), S("i32", "1"),
          S("i32", "0"), S("i32", "0"),
          S("i32", "L * G * N"), S("i32", "G * N"), S("i32", "N"), S("i32", "1"),
          S("i32", "cdiv(L, CS) * H * P * N"), S("i32", "H * P * N"), S("i32", "P * N"), S("i32", "N"), S("i32", "1"),
          S("i32", "1")],
         {"IS_CAUSAL": True, "HAS_D": True, "D_HAS_HDIM": False, "HAS_Z": True, "HAS_SEQ_IDX": False,
          "BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "BLOCK_SIZE_DSTATE": 128,
          "IS_TRITON_22": True},
         "(cdiv(CS, 64) * cdiv(P, 64), b * cdiv(L, CS), H)",
         [{"b": 1, "L": 1024, "H": 24, "P": 64, "N": 128, "G": 1, "CS": 256},
          {"b": 2, "L": 300, "H": 5, "P": 64, "N": 128, "G": 1, "CS": 256}],
         4, tol=tol(3e-2, 3e-2), num_warps=2, num_stages=4, grid_in_blob=False,
         cpu_sizes=[{"b": 1, "L": 40, "H": 2, "P": 16, "N": 16, "G": 1, "CS": 32}]),
    # launcher: mamba_ssm/ops/triton/k_activations.py:147 _swiglu_bwd() (recompute_output False:
    # OUT None, a dummy here); x/y and dx/dy are the halves of [M, 2N] tensors (row stride 2N),
    # each given here as its own [M, 2N] tensor of which the kernel touches the first N columns.
    # Autotuned on ncols: BLOCK_N 1024 taken.
    case("mamba_swiglu_bwd", TR + "k_activations.py", "_swiglu_bwd_kernel",
         [T("in", "bf16", ["M", "2 * N"]), T("in", "bf16", ["M", "2 * N"]), T("in", "bf16", ["M", "N"]),
          T("in", "bf16", ["1"]), T("inout", "bf16", ["M", "2 * N"], "zeros"),
          T("inout", "bf16", ["M", "2 * N"], "zeros"),
          S("i32", "2 * N"), S("i32", "2 * N"), S("i32", "N"), S("i32", "0"), S("i32", "2 * N"),
          S("i32", "2 * N"), S("i32", "N")],
         {"BLOCK_N": 1024, "RECOMPUTE_OUTPUT": False}, "(M, cdiv(N, 1024))",
         [{"M": 64, "N": 5120}, {"M": 7, "N": 1001}],
         4, tol=tol(2e-2, 2e-2), num_warps=4, grid_in_blob=False),
    # launcher: mamba_ssm/ops/triton/layernorm_gated.py:318 _layer_norm_bwd() (Mamba2's
    # RMSNormGated backward: is_rms_norm, z given, norm_before_gate False, no bias, no recompute:
    # B, Y, DB and Mean None, dummies here). R = nrow_groups = ceil(132 * ceil(4 / num_warps) / NG)
    # on a 132-SM GPU, RPP = rows_per_program = ceil(M / R); DW is the [R, N] partial sum.
    case("mamba_rmsnorm_gated_bwd", TR + "layernorm_gated.py", "_layer_norm_bwd_kernel",
         [T("in", "bf16", ["M", "NG * GS"]), T("in", "fp32", ["NG * GS"]), T("in", "fp32", ["1"]),
          T("in", "bf16", ["M", "NG * GS"]), T("in", "bf16", ["1"]), T("in", "bf16", ["M", "NG * GS"]),
          T("out", "bf16", ["M", "NG * GS"]), T("out", "fp32", ["R", "NG * GS"]), T("in", "fp32", ["1"]),
          T("out", "bf16", ["M", "NG * GS"]), T("in", "fp32", ["1"]), T("in", "fp32", ["NG * M"], "uniform:0.5:2"),
          S("i32", "NG * GS"), S("i32", "NG * GS"), S("i32", "0"), S("i32", "NG * GS"), S("i32", "NG * GS"),
          S("i32", "NG * GS"), S("i32", "NG * GS"), S("i32", "0"),
          S("i32", "M"), S("i32", "GS"), S("fp32", "1e-5"), S("i32", "RPP")],
         lambda s: {"NORM_BEFORE_GATE": False, "IS_RMS_NORM": True, "HAS_BIAS": False, "HAS_Z": True,
                    "RECOMPUTE_OUTPUT": False, "BLOCK_N": _ln_block(s["GS"])},
         "(R, NG)", [{"M": 256, "NG": 8, "GS": 1024, "R": 17, "RPP": 16},
                     {"M": 77, "NG": 3, "GS": 200, "R": 176, "RPP": 1}],
         4, tol=tol(3e-2, 3e-2),
         num_warps=lambda s: min(max(_ln_block(s["GS"]) // 256, 1), 8), grid_in_blob=False),
]
