from cases import case, T, S, tol, EXACT

P = "tests/corpus/bitsandbytes/"
K4 = P + "bitsandbytes/backends/triton/kernels_4bit.py"
K8 = P + "bitsandbytes/backends/triton/kernels_8bit_quant.py"
KO = P + "bitsandbytes/backends/triton/kernels_optim.py"

# 4-bit quantization: quantize_4bit() pads A to a multiple of blocksize (64 by default),
# so n = NB * 64; absmax has 2 * cdiv(n, 128) entries.
Q4_SIZES = [{"NB": 4096}, {"NB": 37}]
Q4_PARAMS = [T("in", "fp16", ["NB * 64"]), T("out", "fp16", ["2 * cdiv(NB * 64, 128)"]),
             T("out", "u8", ["NB * 64 - NB * 32"]),
             S("i32", "NB * 64"), S("i32", "2 * cdiv(NB * 64, 128)")]

# dequantize_4bit(): A packed u8 [n / 2], out [n], absmax fp32 [n / blocksize]
D4_SIZES = [{"N": 4096 * 4096 // 64}, {"N": 4097}]


def _d4_params(code):
    ps = [T("in", "u8", ["N * 32"], "randint:0:256"), T("out", "bf16", ["N * 64"])]
    if code:
        ps.append(T("in", "fp32", ["16"], "uniform:-1:1"))
    ps += [T("in", "fp32", ["N"], "uniform:0.1:2"), S("i32", "N * 32"), S("i32", "N * 64")]
    return ps


def _opt32(n_state):
    return [T("in", "fp32", ["n"]), T("inout", "fp32", ["n"]),
            T("inout", "fp32", ["n"], "uniform:-0.1:0.1"),
            T("inout", "fp32", ["n"], "uniform:0:0.01") if n_state == 2 else T("in", "fp32", ["1"]),
            T("in", "fp32", ["1"], "zeros"),   # unorm_vec (None in the launcher: max_unorm is 0)
            S("fp32", "0.0"), S("fp32", "0.0"), S("fp32", "0.0"), S("i32", "10"),
            S("fp32", "0.3486784401"), S("fp32", "0.990044880209"), S("fp32", "1e-3"),
            S("i1", "0"), S("i32", "n")]


CASES = [
    # launcher: bitsandbytes/backends/triton/kernels_4bit.py:176 quantize_4bit_blockwise_triton()
    # (called by ops.py:92 quantize_4bit(), blocksize 64)
    case("bnb_quantize_nf4", K4, "quantize_nf4_blockwise_kernel", Q4_PARAMS,
         {"BLOCK_SIZE": 64, "SPLIT_NUM_BLOCKS": 4}, "cdiv(cdiv(NB * 64, 128), 4)", Q4_SIZES,
         4, tol=EXACT, num_warps=4, grid_in_blob=False),
    # launcher: bitsandbytes/backends/triton/kernels_4bit.py:166 quantize_4bit_blockwise_triton()
    case("bnb_quantize_fp4", K4, "quantize_fp4_blockwise_kernel", Q4_PARAMS,
         {"BLOCK_SIZE": 64, "SPLIT_NUM_BLOCKS": 4}, "cdiv(cdiv(NB * 64, 128), 4)", Q4_SIZES,
         4, tol=EXACT, num_warps=4, grid_in_blob=False),
    # launcher: bitsandbytes/backends/triton/kernels_4bit.py:478 dequantize_4bit_impl()
    # (ops.py:124 dequantize_4bit(), blocksize 64, a 4096x4096 bf16 weight)
    case("bnb_dequant_nf4", K4, "dequant_nf4_kernel", _d4_params(False),
         {"QUANT_BLOCK": 64, "SPLIT_SIZE": 256}, "cdiv(N * 32, 256)", D4_SIZES,
         4, tol=tol(1e-2, 1e-2), num_warps=4, grid_in_blob=False, cpu_sizes=[{"N": 77}]),
    # launcher: bitsandbytes/backends/triton/kernels_4bit.py:476 dequantize_4bit_impl()
    case("bnb_dequant_fp4", K4, "dequant_fp4_kernel", _d4_params(False),
         {"QUANT_BLOCK": 64, "SPLIT_SIZE": 256}, "cdiv(N * 32, 256)", D4_SIZES,
         4, tol=tol(1e-2, 1e-2), num_warps=4, grid_in_blob=False, cpu_sizes=[{"N": 77}]),
    # launcher: bitsandbytes/backends/triton/kernels_4bit.py:496 dequantize_4bit_impl_passing_code()
    # (ops.py:160 gemv_4bit(): the 16-entry code table is passed)
    case("bnb_dequant_4bit_code", K4, "dequant_4bit_kernel", _d4_params(True),
         {"QUANT_BLOCK": 64, "SPLIT_SIZE": 256}, "cdiv(N * 32, 256)", D4_SIZES,
         4, tol=tol(1e-2, 1e-2), num_warps=4, grid_in_blob=False, cpu_sizes=[{"N": 77}]),
    # launcher: bitsandbytes/backends/triton/kernels_8bit_quant.py:62 dequant_8bit_blockwise()
    # (ops.py:31 dequantize_blockwise(), blocksize 4096)
    case("bnb_dequant_8bit_blockwise", K8, "dequant_8bit_kernel",
         [T("in", "u8", ["n"], "randint:0:256"), T("out", "fp16", ["n"]),
          T("in", "fp32", ["256"], "uniform:-1:1"), T("in", "fp32", ["cdiv(n, 4096)"], "uniform:0.1:2"),
          S("i32", "n")],
         {"QUANT_BLOCK": 4096, "SPLIT_SIZE": 256}, "cdiv(n, 256)",
         [{"n": 4096 * 1024}, {"n": 100001}],
         4, tol=tol(1e-2, 1e-2), num_warps=4, grid_in_blob=False, cpu_sizes=[{"n": 5000}]),
    # launcher: bitsandbytes/backends/triton/kernels_8bit_quant.py:119 quantize_blockwise_triton()
    # (ops.py:20 quantize_blockwise(), blocksize 256; absmax has A's dtype). The code table
    # is a random (unsorted) one here: the kernel's binary search is deterministic anyway.
    case("bnb_quantize_8bit_blockwise", K8, "quantize_8bit_blockwise_kernel",
         [T("in", "fp16", ["n"]), T("in", "fp32", ["256"], "uniform:-1:1"),
          T("out", "fp16", ["cdiv(n, 256)"]), T("out", "u8", ["n"]), S("i32", "n")],
         {"BLOCK_SIZE": 256, "CODE_SIZE": 256, "SPLIT_NUM_BLOCKS": 1}, "cdiv(n, 256)",
         [{"n": 4096 * 256}, {"n": 100001}],
         4, tol=EXACT, num_warps=4, grid_in_blob=False, cpu_sizes=[{"n": 1000}]),
    # launcher: bitsandbytes/backends/triton/kernels_optim.py:475 optimizer_update_32bit_impl()
    # adam (OPTIMIZER_ID 3), beta1 0.9, beta2 0.999, eps 1e-8, step 10, lr 1e-3, no max_unorm
    case("bnb_adam_32bit", KO, "_optimizer_update_2state_32bit_triton_kernel", _opt32(2),
         {"max_unorm": 0.0, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0,
          "gnorm_scale": 1.0, "OPTIMIZER_ID": 3, "BLOCK_SIZE": 256, "N_PER_TH": 1},
         "cdiv(n, 256)", [{"n": 4096 * 1024}, {"n": 100001}],
         4, tol=tol(1e-5, 1e-4), num_warps=2, grid_in_blob=False, cpu_sizes=[{"n": 1000}]),
    # launcher: bitsandbytes/backends/triton/kernels_optim.py:399 optimizer_update_32bit_impl()
    # lion (OPTIMIZER_ID 4), one state; state2 is None in the launcher (not read for lion)
    case("bnb_lion_32bit", KO, "_optimizer_update_1state_32bit_triton_kernel", _opt32(1),
         {"max_unorm": 0.0, "beta1": 0.9, "beta2": 0.99, "eps": 1e-8, "weight_decay": 0.0,
          "gnorm_scale": 1.0, "OPTIMIZER_ID": 4, "BLOCK_SIZE": 256, "N_PER_TH": 1},
         "cdiv(n, 256)", [{"n": 4096 * 1024}, {"n": 100001}],
         4, tol=tol(1e-5, 1e-4), num_warps=2, grid_in_blob=False, cpu_sizes=[{"n": 1000}]),
    # launcher: bitsandbytes/backends/triton/kernels_optim.py:1145 optimizer_update_8bit_blockwise_impl()
    # adam, 8-bit blockwise states (blocks of 256), qmap1 signed, qmap2 unsigned (random tables)
    case("bnb_adam_8bit_blockwise", KO, "_optimizer_update_2state_8bit_blockwise_triton_kernel",
         [T("inout", "fp32", ["n"]), T("in", "fp32", ["n"]),
          T("inout", "u8", ["n"], "randint:0:256"), T("inout", "u8", ["n"], "randint:0:256"),
          S("fp32", "0.0"), S("fp32", "0.0"), S("i32", "10"),
          S("fp32", "0.3486784401"), S("fp32", "0.990044880209"), S("fp32", "1e-3"),
          T("in", "fp32", ["256"], "uniform:-1:1"), T("in", "fp32", ["256"], "uniform:0:1"),
          T("inout", "fp32", ["cdiv(n, 256)"], "uniform:0.01:0.1"),
          T("inout", "fp32", ["cdiv(n, 256)"], "uniform:0.0001:0.001"),
          S("i32", "n")],
         {"beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0, "gnorm_scale": 1.0,
          "BLOCK_SIZE_N": 256, "N_PER_TH": 1, "OPTIMIZER_ID": 3},
         "cdiv(n, 256)", [{"n": 4096 * 1024}, {"n": 100001}],
         4, tol=tol(1e-5, 1e-4), num_warps=2, grid_in_blob=False, cpu_sizes=[{"n": 1000}]),
    # quantize_4bit_blockwise_kernel (kernels_4bit.py:525) is not in CASES: no launcher in the
    # repository calls it (the file marks it as a debug fallback).
    # launcher: bitsandbytes/backends/triton/kernels_optim.py:453 optimizer_update_32bit_impl()
    # (adam with max_unorm > 0: the update-norm pass before the update; unorm_vec zeroed, then
    # summed into with atomics; step 10, beta1 ** step, beta2 ** step precomputed)
    case("bnb_adam_precondition_32bit", KO, "_optimizer_precondition_2state_32bit",
         [T("in", "fp32", ["n"]), T("in", "fp32", ["n"]), T("in", "fp32", ["n"], "uniform:-0.1:0.1"),
          T("in", "fp32", ["n"], "uniform:0:0.01"), T("inout", "fp32", ["1"], "zeros"),
          S("i32", "10"), S("fp32", "0.3486784401"), S("fp32", "0.990044880209"), S("fp32", "1e-3"),
          S("i32", "n")],
         {"beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0, "gnorm_scale": 1.0,
          "OPTIMIZER_ID": 3, "BLOCK_SIZE": 256, "N_PER_TH": 1},
         "cdiv(n, 256)", [{"n": 1024 * 1024}, {"n": 100001}],
         4, tol=tol(1e-3, 1e-3), num_warps=2, grid_in_blob=False, cpu_sizes=[{"n": 1000}]),
    # launcher: bitsandbytes/backends/triton/kernels_optim.py:453 optimizer_update_32bit_impl()
    # (rmsprop, max_unorm > 0; state2 None for a one-state optimizer: a dummy here)
    case("bnb_rmsprop_precondition_32bit", KO, "_optimizer_precondition_1state_32bit",
         [T("in", "fp32", ["n"]), T("in", "fp32", ["n"]), T("in", "fp32", ["n"], "uniform:0:0.01"),
          T("in", "fp32", ["1"]), T("inout", "fp32", ["1"], "zeros"),
          S("fp32", "0.01"), S("i32", "10"), S("fp32", "0.3486784401"), S("fp32", "0.0"), S("fp32", "1e-3"),
          S("i32", "n")],
         {"beta1": 0.9, "beta2": 0.0, "eps": 1e-8, "gnorm_scale": 1.0,
          "OPTIMIZER_ID": 1, "BLOCK_SIZE": 256, "N_PER_TH": 1},
         "cdiv(n, 256)", [{"n": 1024 * 1024}, {"n": 100001}],
         4, tol=tol(1e-3, 1e-3), num_warps=2, grid_in_blob=False, cpu_sizes=[{"n": 1000}]),
    # launcher: bitsandbytes/backends/triton/kernels_optim.py:1143 optimizer_update_8bit_blockwise_impl()
    # (momentum, 8-bit blockwise state, blocksize 256, weight decay 0.01; state2, qmap2 and
    # absmax2 None for a one-state optimizer: dummies here)
    case("bnb_momentum_8bit_blockwise", KO, "_optimizer_update_1state_8bit_blockwise_triton_kernel",
         [T("inout", "fp32", ["n"]), T("in", "fp32", ["n"]),
          T("inout", "u8", ["n"], "randint:0:256"), T("in", "u8", ["1"], "zeros"),
          S("fp32", "0.0"), S("fp32", "0.0"), S("i32", "10"),
          S("fp32", "0.3486784401"), S("fp32", "0.0"), S("fp32", "1e-3"),
          T("in", "fp32", ["256"], "uniform:-1:1"), T("in", "fp32", ["1"]),
          T("inout", "fp32", ["cdiv(n, 256)"], "uniform:0.01:0.1"), T("in", "fp32", ["1"]),
          S("fp32", "0.01"), S("fp32", "1.0"), S("i32", "n")],
         {"beta1": 0.9, "beta2": 0.0, "eps": 1e-8, "BLOCK_SIZE_N": 256, "N_PER_TH": 1, "OPTIMIZER_ID": 0},
         "cdiv(n, 256)", [{"n": 4096 * 1024}, {"n": 100001}],
         4, tol=tol(1e-5, 1e-4), num_warps=2, grid_in_blob=False, cpu_sizes=[{"n": 1000}]),
    # launcher: as above (lion: beta1 0.9, beta2 0.99, no weight decay)
    case("bnb_lion_8bit_blockwise", KO, "_optimizer_update_1state_8bit_blockwise_triton_kernel",
         [T("inout", "bf16", ["n"]), T("in", "bf16", ["n"]),
          T("inout", "u8", ["n"], "randint:0:256"), T("in", "u8", ["1"], "zeros"),
          S("fp32", "0.0"), S("fp32", "0.0"), S("i32", "10"),
          S("fp32", "0.3486784401"), S("fp32", "0.904382075"), S("fp32", "1e-4"),
          T("in", "fp32", ["256"], "uniform:-1:1"), T("in", "fp32", ["1"]),
          T("inout", "fp32", ["cdiv(n, 256)"], "uniform:0.01:0.1"), T("in", "fp32", ["1"]),
          S("fp32", "0.0"), S("fp32", "1.0"), S("i32", "n")],
         {"beta1": 0.9, "beta2": 0.99, "eps": 1e-8, "BLOCK_SIZE_N": 256, "N_PER_TH": 1, "OPTIMIZER_ID": 4},
         "cdiv(n, 256)", [{"n": 4096 * 1024}, {"n": 100001}],
         4, tol=tol(1e-2, 1e-2), num_warps=2, grid_in_blob=False, cpu_sizes=[{"n": 1000}]),
]
