from cases import case, T, S, tol, EXACT

P = "tests/corpus/torchao/"

CASES = [
    # launcher: torchao/prototype/blockwise_fp8_inference/kernels.py:104 fp8_blockwise_act_quant()
    # (block_size 128, float8_e4m3fn). The kernel is defined inside _build_act_quant_kernel().
    case("ao_fp8_blockwise_act_quant", P + "torchao/prototype/blockwise_fp8_inference/kernels.py",
         "_fp8_blockwise_act_quant_kernel_impl",
         [T("in", "bf16", ["M", "K"]), T("out", "fp8e4nv", ["M", "K"]), T("out", "fp32", ["M", "K // 128"])],
         {"BLOCK_SIZE": 128}, "cdiv(M * K, 128)",
         [{"M": 64, "K": 4096}, {"M": 7, "K": 1408}],
         4, tol=tol(1e-2, 7e-2), num_warps=4, grid_in_blob=False),
    # launcher: torchao/quantization/quantize_/workflows/float8/kernels.py:125 _blockwise_fp8_gemm_op()
    # (DeepSeek-V3 style 128x128 block-scaled fp8 GEMM; a [M, K], b [N, K], c bf16).
    # Autotuned over BLOCK_SIZE_M/N and stages (8 warps): 64x128, 3 stages taken.
    # The kernel is defined inside _build_blockwise_fp8_gemm_op().
    case("ao_blockwise_fp8_gemm", P + "torchao/quantization/quantize_/workflows/float8/kernels.py",
         "blockwise_fp8_gemm_kernel",
         [T("in", "fp8e4nv", ["M", "K"]), T("in", "fp8e4nv", ["N", "K"]), T("out", "bf16", ["M", "N"]),
          T("in", "fp32", ["M", "cdiv(K, 128)"], "uniform:0.001:0.01"),
          T("in", "fp32", ["cdiv(N, 128)", "cdiv(K, 128)"], "uniform:0.001:0.01"),
          S("i32", "M")],
         lambda s: {"N": s["N"], "K": s["K"], "M_BUCKET": max(0, (s["M"] - 1).bit_length()),
                    "BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 128},
         "(cdiv(M, 64), cdiv(N, 128))",
         [{"M": 128, "N": 2048, "K": 7168}, {"M": 13, "N": 1536, "K": 896}],
         4, tol=tol(5e-2, 2e-2), num_warps=8, num_stages=3, grid_in_blob=False,
         cpu_sizes=[{"M": 5, "N": 256, "K": 256}]),
    # launcher: torchao/prototype/quantized_training/int8_mm.py:172 scaled_int8_mm_cuda()
    # A int8 [M, K], B int8 [K, N] (column-major as the int8 linear passes W.T), row_scale
    # [M] and col_scale [N] bf16. Autotuned: (128, 128, 128, 4 stages, 4 warps) taken.
    case("ao_scaled_int8_mm", P + "torchao/prototype/quantized_training/int8_mm.py", "_scaled_int8_mm_kernel",
         [T("in", "i8", ["M", "K"], "randint:-128:128"), T("in", "i8", ["N", "K"], "randint:-128:128"),
          T("out", "bf16", ["M", "N"]), T("in", "bf16", ["M"], "uniform:0.001:0.01"),
          T("in", "bf16", ["N"], "uniform:0.001:0.01"),
          S("i32", "M"), S("i32", "N"), S("i32", "K"),
          S("i32", "K"), S("i32", "1"), S("i32", "1"), S("i32", "K"), S("i32", "N"), S("i32", "1")],
         lambda s: {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8,
                    "EVEN_K": s["K"] % 128 == 0, "COL_SCALE_SCALAR": False},
         "cdiv(M, 128) * cdiv(N, 128)",
         [{"M": 256, "N": 4096, "K": 4096}, {"M": 77, "N": 1000, "K": 1000}],
         4, tol=tol(2e-2, 2e-2), num_warps=4, num_stages=4, grid_in_blob=False,
         cpu_sizes=[{"M": 9, "N": 130, "K": 256}]),
    # launcher: torchao/prototype/hqq/mixed_mm.py:118 triton_mixed_mm() (kernel_type
    # "compute_bound", not transposed, group_size 128): a fp16 [M, K], b packed 2xint4 u8
    # [K / 2, N], scales/zeros fp16 [K / 128, N] as the transpose of contiguous [N, K / 128]
    # (strides 1, K / 128: the kernel's group offset k * BLOCK_K * stride_scale_k // QGROUP_SIZE
    # needs stride_scale_k 1, as HQQ's test passes them). Autotuned: 128x256x32, 3 stages, 8 warps
    # taken; heuristics: BLOCK_K min(32, 128), SPLIT_K 1, EVEN_K. The kernel loads scales and
    # zeros without a mask, so N must be a multiple of BLOCK_N (256). acc_dtype, input_precision
    # and fp8_fast_accum are passed at their defaults (tl.float32, "ieee", False).
    case("ao_hqq_mixed_mm_int4", P + "torchao/prototype/hqq/kernels.py", "_mixed_mm_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "u8", ["K // 2", "N"], "randint:0:256"),
          T("in", "fp16", ["N", "K // 128"], "uniform:0.001:0.02"),
          T("in", "fp16", ["N", "K // 128"], "uniform:0:15"), T("out", "fp16", ["M", "N"]),
          S("i32", "M"), S("i32", "N"), S("i32", "K"),
          S("i32", "K"), S("i32", "1"), S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"),
          S("i32", "1"), S("i32", "K // 128")],
         lambda s: {"IS_BFLOAT16": False, "QGROUP_SIZE": 128, "BLOCK_M": 128, "BLOCK_N": 256,
                    "BLOCK_K": 32, "SPLIT_K": 1, "EVEN_K": s["K"] % 32 == 0, "TRANSPOSED": False},
         "(cdiv(M, 128) * cdiv(N, 256), 1)",
         [{"M": 16, "N": 4096, "K": 4096}, {"M": 13, "N": 1280, "K": 1152}],
         4, tol=tol(5e-2, 2e-2), num_warps=8, num_stages=3, grid_in_blob=False,
         cpu_sizes=[{"M": 3, "N": 256, "K": 256}]),
]
