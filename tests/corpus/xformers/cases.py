from cases import case, T, S, tol, EXACT, next_pow2

P = "tests/corpus/xformers/"
OPS = P + "xformers/ops/_triton/"


def _rms_block(s):
    # rmsnorm_kernels.py: min(65536 // 2, next_pow2(N)), clamped to [128, 8192]
    return min(max(min(32768, next_pow2(s["N"])), 128), 8192)


def _rms_warps(s):
    return min(max(_rms_block(s) // 256, 1), 8)


# rmsnorm_kernels.py's rsqrt (and rope_padded_kernels.py's pow) are
# libdevice_find(NAME) (xformers/triton/importing.py), host code that returns
# the first libdevice module Triton has: triton.language.extra.libdevice's.
RSQRT = ["--bind", "rsqrt=triton.language.extra.libdevice.rsqrt"]


# tiled matmul: a 3x3 grid of tiles; A_ij [M_i, K_j], B_ij [K_i, N_j], C_ij [M_i, N_j]
def _tiles():
    ps = []
    for name, rows, cols, role in (("A", "M", "K", "in"), ("B", "K", "N", "in"), ("C", "M", "N", "out")):
        for i in range(1, 4):
            for j in range(1, 4):
                ps.append(T(role, "fp16", ["%s%d" % (rows, i), "%s%d" % (cols, j)]))
    ps += [S("i32", "M%d" % i) for i in range(1, 4)]
    ps += [S("i32", "N%d" % i) for i in range(1, 4)]
    ps += [S("i32", "K%d" % i) for i in range(1, 4)]
    ps += [S("i32", "K%d" % j) for j in range(1, 4)]     # stride_am{j}: A[.][j].stride(0)
    ps += [S("i32", "1")] * 3                              # stride_ak{i}
    ps += [S("i32", "N%d" % j) for j in range(1, 4)]     # stride_bk{j}: B[.][j].stride(0)
    ps += [S("i32", "1")] * 3                              # stride_bn{i}
    ps += [S("i32", "N%d" % j) for j in range(1, 4)]     # stride_cm{j}
    ps += [S("i32", "1")] * 3                              # stride_cn{i}
    return ps


def _tiled_cx(s):
    return {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "SPLIT_K": 1, "GROUP_M": 8,
            "EVEN_K": all(s["K%d" % i] % 32 == 0 for i in range(1, 4)), "ACC_TYPE": "tl.float32"}


def _splitk_cx(s):
    B, G, H, SK, M, K = s["B"], s["G"], s["H"], s["SK"], s["M"], s["K"]
    return {
        "split_k": SK, "splitK_pow2": next_pow2(SK),
        # attn_split [B, G, H, split_k, M, K] fp32, contiguous
        "stride_osk_z": G * H * SK * M * K, "stride_osk_g": H * SK * M * K,
        "stride_osk_h": SK * M * K, "stride_osk_s": M * K, "stride_osk_m": K, "stride_osk_k": 1,
        # lse_split [B, G, H, split_k, M]
        "stride_lsek_z": G * H * SK * M, "stride_lsek_g": H * SK * M, "stride_lsek_h": SK * M,
        "stride_lsek_s": M, "stride_lsek_m": 1,
        # attn_out [B, M, G, H, K] (_strides(attn_out, "oz", "om", "og", "oh", "ok"))
        "stride_oz": M * G * H * K, "stride_om": G * H * K, "stride_og": H * K, "stride_oh": K,
        "stride_ok": 1,
        # lse_out [B, G, H, M]
        "stride_lse_z": G * H * M, "stride_lse_g": H * M, "stride_lse_h": M, "stride_lse_m": 1,
        "head_dim": K, "head_dim_pow_2": next_pow2(K), "H": H, "G": G, "WRITE_LSE": True,
    }


CASES = [
    # launcher: xformers/ops/_triton/k_index_select_cat.py:67 index_select_cat_fwd()
    case("xformers_index_select_cat_fwd", OPS + "k_index_select_cat.py", "index_select_cat_fwd_kernel",
         [T("out", "fp16", ["I", "C"]), T("in", "fp16", ["R", "C"]), T("in", "i64", ["I"], "randint:0:64"),
          S("i32", "I"), S("i32", "C"), S("i32", "C"), S("i32", "1")],
         {"BLOCK_SIZE_INDEX": 1, "BLOCK_SIZE_COL": 512},
         "(I, cdiv(C, 512))",
         [{"R": 4096, "C": 1024, "I": 1000}, {"R": 1000, "C": 777, "I": 333}],
         4, tol=EXACT, num_warps=4, grid_in_blob=False,
         cpu_sizes=[{"R": 64, "C": 600, "I": 9}]),
    # launcher: xformers/ops/_triton/k_scaled_index_add.py:153 scaled_index_add_fwd()
    # (index values are expected distinct: the kernel read-modify-writes rows of x; drawn
    # as a permutation, since two programs adding into one row race)
    case("xformers_scaled_index_add_fwd", OPS + "k_scaled_index_add.py", "scaled_index_add_fwd_kernel",
         [T("inout", "fp16", ["NI", "R", "C"]), T("in", "i64", ["NS"], "perm"),
          T("in", "fp16", ["NS", "R", "C"]), T("in", "fp16", ["C"]), S("fp32", "0.5"),
          S("i32", "NI"), S("i32", "NS"), S("i32", "R"), S("i32", "C"),
          S("i32", "R * C"), S("i32", "C"), S("i32", "1")],
         {"BLOCK_SIZE_INDEX": 1, "BLOCK_SIZE_ROW": 1, "BLOCK_SIZE_COL": 512, "HAS_SCALING": True},
         "(NS, R, cdiv(C, 512))",
         [{"NI": 4096, "R": 4, "C": 256, "NS": 8}, {"NI": 4096, "R": 3, "C": 1000, "NS": 5}],
         4, tol=tol(1e-2, 1e-2), num_warps=4, grid_in_blob=False,
         cpu_sizes=[{"NI": 256, "R": 2, "C": 600, "NS": 3}]),
    # launcher: xformers/ops/_triton/rmsnorm_kernels.py:111 _rms_norm_forward()
    case("xformers_rms_norm", OPS + "rmsnorm_kernels.py", "_rms_norm_kernel",
         [T("in", "fp16", ["M", "N"]), T("out", "fp16", ["M", "N"]), T("in", "fp16", ["N"]),
          S("fp32", "1e-6"), S("i32", "N")],
         lambda s: {"N_COLS": s["N"], "BLOCK_SIZE": _rms_block(s), "INCLUDE_WEIGHT": True},
         "M",
         [{"M": 64, "N": 4096}, {"M": 7, "N": 1000}],
         4, tol=tol(1e-2, 1e-2), num_warps=_rms_warps, grid_in_blob=False, tilec_flags=RSQRT),
    # launcher: xformers/ops/_triton/rmsnorm_kernels.py:147 _rms_norm_add_forward()
    case("xformers_rms_norm_add", OPS + "rmsnorm_kernels.py", "_rms_norm_add_kernel",
         [T("inout", "fp16", ["M", "N"]), T("in", "fp16", ["M", "N"]), T("out", "fp16", ["M", "N"]),
          T("in", "fp16", ["N"]), S("fp32", "1e-6"), S("i32", "N")],
         lambda s: {"N_COLS": s["N"], "BLOCK_SIZE": _rms_block(s), "INCLUDE_WEIGHT": True},
         "M",
         [{"M": 64, "N": 4096}, {"M": 7, "N": 1000}],
         4, tol=tol(1e-2, 1e-2), num_warps=_rms_warps, grid_in_blob=False, tilec_flags=RSQRT),
    # launcher: xformers/ops/rope_padded.py:245 rope_padded(); 4-D inputs (n_groups 1),
    # 32 q heads, 8 kv heads, dim 128, one logical batch element (seqstartq/seqstartk
    # have 2 entries; random starts stay in range and never overlap). The launcher
    # passes seqpos (a tensor) and first_seqpos=None; None cannot be passed for a
    # runtime parameter here, so first_seqpos gets a tensor the kernel does not read
    # (it reads first_seqpos only when seqpos is None).
    case("xformers_rope_padded", P + "xformers/ops/_triton/rope_padded_kernels.py", "_rope_padded_kernel",
         [T("in", "fp16", ["Q", "32", "128"]), T("in", "fp16", ["Q", "8", "128"]),
          T("in", "fp16", ["Q", "8", "128"]), T("out", "fp16", ["Q", "32", "128"]),
          T("inout", "fp16", ["CL", "8", "128"], "zeros"), T("inout", "fp16", ["CL", "8", "128"], "zeros"),
          T("in", "i32", ["2"], "randint:0:13"), T("in", "i32", ["2"], "randint:0:16"),
          T("in", "i32", ["1"], "randint:16:64"),
          S("fp32", "10000.0"), S("fp32", "1.0"),
          T("in", "i32", ["1"], "randint:0:1"), T("in", "i32", ["Q"], "randint:0:4096"),
          S("i32", "1"),
          S("i32", "4096"), S("i32", "0"), S("i32", "128"),
          S("i32", "1024"), S("i32", "0"), S("i32", "128"),
          S("i32", "1024"), S("i32", "0"), S("i32", "128"),
          S("i32", "1024"), S("i32", "0"), S("i32", "128"),
          S("i32", "1024"), S("i32", "0"), S("i32", "128"),
          S("i32", "1"), S("i32", "1"), S("i32", "1"),
          S("i32", "4096"), S("i32", "0"), S("i32", "128"),
          S("i32", "1"), S("i32", "0")],
         {"use_dynamic_scaling": False, "dynamic_old_context_len": 0, "dynamic_scale_factor": 0,
          "dynamic_low_freq_factor": 0, "dynamic_high_freq_factor": 0, "k_start": 32, "v_start": 40,
          "dim": 128, "internal_dtype": "''", "const_batch_strides": False, "seqlenk_shift": 0,
          "BLOCK_SIZE": 128, "adjacents": True},
         "(Q, 1, 48)",
         [{"Q": 16, "CL": 80}, {"Q": 13, "CL": 80}],
         4, tol=tol(2e-2, 2e-2), num_warps=1, grid_in_blob=False,
         tilec_flags=["--bind", "pow=triton.language.extra.libdevice.pow"]),
    # launcher: xformers/ops/_triton/tiled_matmul_kernels.py:410 _launch_triton_matmul()
    # autotuned: BASIC config 128x128x32, 4 stages, 4 warps, SPLIT_K 1 (the kind the perf
    # model picks for these compute-bound sizes); EVEN_K from the heuristic.
    case("xformers_tiled_matmul", OPS + "tiled_matmul_kernels.py", "_xformers_tiled_matmul_kernel",
         _tiles(), _tiled_cx,
         "((cdiv(M1, 128) + cdiv(M2, 128) + cdiv(M3, 128)) * (cdiv(N1, 128) + cdiv(N2, 128) + cdiv(N3, 128)), 1)",
         [{"M1": 256, "M2": 128, "M3": 512, "N1": 256, "N2": 128, "N3": 384,
           "K1": 256, "K2": 128, "K3": 512},
          {"M1": 100, "M2": 37, "M3": 200, "N1": 128, "N2": 64, "N3": 77,
           "K1": 96, "K2": 50, "K3": 64}],
         4, tol=tol(5e-2, 1e-2), num_warps=4, num_stages=4, grid_in_blob=False,
         cpu_sizes=[{"M1": 20, "M2": 7, "M3": 9, "N1": 16, "N2": 5, "N3": 3,
                     "K1": 32, "K2": 32, "K3": 64}]),
    # launcher: xformers/ops/fmha/triton_splitk.py:1081 merge_attentions() (commit 14f0a4fc)
    # the split-K decode reduction: attn_split/lse_split fp32, attn_out [B, M, G, H, K] bf16
    case("xformers_splitk_reduce", P + "xformers/ops/fmha/_triton/splitk_kernels.py", "_splitK_reduce",
         [T("in", "fp32", ["B", "G", "H", "SK", "M", "K"]), T("in", "fp32", ["B", "G", "H", "SK", "M"]),
          T("out", "bf16", ["B", "M", "G", "H", "K"]), T("out", "fp32", ["B", "G", "H", "M"])],
         _splitk_cx,
         "(M, B * G * H, 1)",
         [{"B": 2, "G": 1, "H": 32, "SK": 16, "M": 1, "K": 128},
          {"B": 3, "G": 2, "H": 4, "SK": 5, "M": 3, "K": 80}],
         4, tol=tol(1e-2, 1e-2),
         num_warps=lambda s: 4 if s["B"] * s["G"] * s["H"] < 32 else 2, grid_in_blob=False),
    # _fwd_kernel_splitK (splitk_kernels.py:31) is not in CASES: the launcher compiles it only
    # after xformers.triton.vararg_kernel.unroll_varargs rewrites its "VAR_ARGS_ARRAY"
    # parameters into N copies (a Python AST transform before triton.jit); the published
    # function itself is not a kernel Triton can compile.
]
