"""attorch (BobMcDear/attorch) kernels, as attorch's own layers launch them.

Autotuned kernels: element-wise ones take the largest config of
element_wise_kernel_configs() (BLOCK_SIZE 1024, 4 warps), the row kernels
autotuned over warps_kernel_configs() take 4 warps (8 for rows of 4096 and
more); heuristics are evaluated as the kernels' decorators say.
"""
from cases import case, T, S, tol, EXACT, next_pow2

P = "tests/corpus/attorch/attorch/"
F16 = tol(1e-2, 1e-2)
F32 = tol(1e-4, 1e-4)
EW = {"BLOCK_SIZE": 1024}
EW_SIZES = [{"n": 4096 * 64}, {"n": 100003}]


def _bsb(batch, feat):
    # softmax_kernels.BLOCK_SIZE_BATCH_heuristic
    return min(max(1, next_pow2(batch // 2 ** 10)), 128) if feat < 64 else 1


def _rows(s):
    return {"BLOCK_SIZE_BATCH": _bsb(s["M"], s["N"]), "BLOCK_SIZE_FEAT": next_pow2(s["N"])}


ROW_SIZES = [{"M": 16, "N": 4096}, {"M": 7, "N": 1000}]

CASES = [
    # launcher: attorch/act_layers.py:78 ActFunc.forward() ('leaky_relu_0.01', no dropout)
    case("attorch_act_leaky_relu_fwd", P + "act_kernels.py", "act_func_forward_kernel",
         [T("in", "fp16", ["n"]), T("out", "fp16", ["n"]), S("i32", "n"),
          S("fp32", "0.0"), S("i32", "0"), S("fp32", "0.01")],
         dict(EW, act_func="'leaky_relu'", dropout=False), "cdiv(n, BLOCK_SIZE)", EW_SIZES, 4,
         tol=F16, grid_in_blob=True),
    # launcher: attorch/act_layers.py:78 ('gelu' fused with dropout 0.1, training);
    # param is None in the launcher (unused by gelu): 0.0 here
    case("attorch_act_gelu_dropout_fwd", P + "act_kernels.py", "act_func_forward_kernel",
         [T("in", "fp32", ["n"]), T("out", "fp32", ["n"]), S("i32", "n"),
          S("fp32", "0.1"), S("i32", "1234"), S("fp32", "0.0")],
         dict(EW, act_func="'gelu'", dropout=True), "cdiv(n, BLOCK_SIZE)", EW_SIZES, 4,
         tol=F32, grid_in_blob=True),
    # launcher: attorch/act_layers.py:111 ActFunc.backward() ('elu_1.0', no dropout)
    case("attorch_act_elu_bwd", P + "act_kernels.py", "act_func_backward_kernel",
         [T("in", "fp32", ["n"]), T("in", "fp32", ["n"]), T("out", "fp32", ["n"]), S("i32", "n"),
          S("fp32", "0.0"), S("i32", "0"), S("fp32", "1.0")],
         dict(EW, act_func="'elu'", dropout=False), "cdiv(n, BLOCK_SIZE)", EW_SIZES, 4,
         tol=F32, grid_in_blob=True),
    # launcher: attorch/glu_layer.py:77 GLU.forward() (act 'silu': SwiGLU); param None
    # in the launcher (unused by silu): 0.0 here
    case("attorch_glu_silu_fwd", P + "glu_kernels.py", "glu_forward_kernel",
         [T("in", "bf16", ["n"]), T("in", "bf16", ["n"]), T("out", "bf16", ["n"]), S("i32", "n"),
          S("fp32", "0.0")],
         dict(EW, act_func="'silu'"), "cdiv(n, BLOCK_SIZE)", EW_SIZES, 4, tol=F16, grid_in_blob=True),
    # launcher: attorch/glu_layer.py:105 GLU.backward() (act 'sigmoid')
    case("attorch_glu_sigmoid_bwd", P + "glu_kernels.py", "glu_backward_kernel",
         [T("in", "fp32", ["n"]), T("in", "fp32", ["n"]), T("in", "fp32", ["n"]),
          T("out", "fp32", ["n"]), T("out", "fp32", ["n"]), S("i32", "n"), S("fp32", "0.0")],
         dict(EW, act_func="'sigmoid'"), "cdiv(n, BLOCK_SIZE)", EW_SIZES, 4, tol=F32, grid_in_blob=True),
    # launcher: attorch/dropout_layer.py:67 DropoutAutoGrad.forward()
    case("attorch_dropout_fwd", P + "dropout_kernels.py", "dropout_forward_kernel",
         [T("in", "fp16", ["n"]), T("out", "fp16", ["n"]), S("i32", "n"), S("fp32", "0.25"),
          S("i32", "4321")],
         EW, "cdiv(n, BLOCK_SIZE)", EW_SIZES, 4, tol=F16, grid_in_blob=True),
    # launcher: attorch/p_loss_layers.py:73 PLoss.forward() (Huber, reduction 'none')
    case("attorch_p_loss_huber_fwd", P + "p_loss_kernels.py", "p_loss_forward_kernel",
         [T("in", "fp32", ["n"]), T("in", "fp32", ["n"]), T("out", "fp32", ["n"]),
          S("fp32", "1.0"), S("i32", "n")],
         dict(EW, p_loss=3, reduction="'none'"), "cdiv(n, BLOCK_SIZE)", EW_SIZES, 4, tol=F32,
         grid_in_blob=True),
    # launcher: attorch/softmax_layers.py:51 SoftmaxAutoGrad.forward() (softmax)
    case("attorch_softmax_fwd", P + "softmax_kernels.py", "softmax_forward_kernel",
         [T("in", "fp16", ["M", "N"]), T("out", "fp16", ["M", "N"]), S("i32", "M"), S("i32", "N"),
          S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1")],
         lambda s: dict(_rows(s), neg=False, log=False), "cdiv(M, BLOCK_SIZE_BATCH)",
         ROW_SIZES + [{"M": 3000, "N": 50}], 4, tol=F16),
    # launcher: attorch/softmax_layers.py:86 SoftmaxAutoGrad.backward() (log_softmax)
    case("attorch_log_softmax_bwd", P + "softmax_kernels.py", "softmax_backward_kernel",
         [T("in", "fp32", ["M", "N"]), T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M", "N"]),
          S("i32", "M"), S("i32", "N"), S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"),
          S("i32", "N"), S("i32", "1")],
         lambda s: dict(_rows(s), neg=False, log=True), "cdiv(M, BLOCK_SIZE_BATCH)",
         # the saved output is randn here, not log-probabilities: exp(output) reaches
         # e^4.5 and scales the row sum of 4096 fp32 terms, which the two sides add in
         # different orders (5.7e-4 apart at one draw)
         ROW_SIZES, 4, tol=tol(1e-3, 1e-4)),
    # launcher: attorch/layer_norm_layer.py:78 LayerNormAutoGrad.forward() (weight, bias, stats saved)
    case("attorch_layer_norm_fwd", P + "layer_norm_kernels.py", "layer_norm_forward_kernel",
         [T("in", "fp16", ["M", "N"]), T("in", "fp16", ["N"]), T("in", "fp16", ["N"]),
          T("out", "fp32", ["M"]), T("out", "fp32", ["M"]), T("out", "fp16", ["M", "N"]),
          S("i32", "M"), S("i32", "N"), S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"),
          S("fp32", "1e-5")],
         lambda s: dict(_rows(s), scale_by_weight=True, add_bias=True, save_stats=True),
         "cdiv(M, BLOCK_SIZE_BATCH)", ROW_SIZES, 4, tol=F16),
    # launcher: attorch/rms_norm_layer.py:68 RMSNormAutoGrad.forward() (weight, stats saved)
    case("attorch_rms_norm_fwd", P + "rms_norm_kernels.py", "rms_norm_forward_kernel",
         [T("in", "bf16", ["M", "N"]), T("in", "bf16", ["N"]), T("out", "fp32", ["M"]),
          T("out", "bf16", ["M", "N"]), S("i32", "M"), S("i32", "N"), S("i32", "N"), S("i32", "1"),
          S("i32", "N"), S("i32", "1"), S("fp32", "1e-6")],
         lambda s: dict(_rows(s), scale_by_weight=True, save_stats=True),
         "cdiv(M, BLOCK_SIZE_BATCH)", ROW_SIZES, 4, tol=F16),
    # launcher: attorch/rms_norm_layer.py:119 RMSNormAutoGrad.backward()
    case("attorch_rms_norm_bwd", P + "rms_norm_kernels.py", "rms_norm_backward_kernel",
         [T("in", "fp32", ["M", "N"]), T("in", "fp32", ["M", "N"]), T("in", "fp32", ["M"], "uniform:0.5:2"),
          T("in", "fp32", ["N"]), T("out", "fp32", ["M", "N"]), T("out", "fp32", ["M", "N"]),
          S("i32", "M"), S("i32", "N"), S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"),
          S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1")],
         lambda s: dict(_rows(s), scale_by_weight=True), "cdiv(M, BLOCK_SIZE_BATCH)", ROW_SIZES, 4,
         tol=F32),
    # launcher: attorch/cross_entropy_loss_layer.py:72 CrossEntropyLossAutoGrad.forward() (weighted)
    case("attorch_cross_entropy_fwd", P + "cross_entropy_loss_kernels.py",
         "cross_entropy_loss_forward_kernel",
         [T("in", "fp32", ["M", "N"]), T("in", "i64", ["M"], "randint:0:1000"),
          T("in", "fp32", ["N"], "uniform:0.5:2"), T("out", "fp32", ["M"]), T("out", "fp32", ["M"]),
          S("i32", "M"), S("i32", "N"), S("i32", "N"), S("i32", "1")],
         lambda s: dict(_rows(s), weighted=True), "cdiv(M, BLOCK_SIZE_BATCH)",
         [{"M": 16, "N": 32000}, {"M": 7, "N": 1000}], 4, tol=F32),
    # launcher: attorch/cross_entropy_loss_layer.py:112 backward() (weighted; scalar
    # output gradient and sum of weights)
    case("attorch_cross_entropy_bwd", P + "cross_entropy_loss_kernels.py",
         "cross_entropy_loss_backward_kernel",
         [T("in", "fp32", ["1"]), T("in", "i64", ["M"], "randint:0:1000"), T("in", "fp32", ["M", "N"]),
          T("in", "fp32", ["N"], "uniform:0.5:2"), T("in", "fp32", ["1"], "uniform:5:10"),
          T("out", "fp32", ["M", "N"]),
          S("i32", "M"), S("i32", "N"), S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1")],
         lambda s: dict(_rows(s), weighted=True), "cdiv(M, BLOCK_SIZE_BATCH)",
         [{"M": 16, "N": 32000}, {"M": 7, "N": 1000}], 4, tol=F32),
    # launcher: attorch/nll_loss_layer.py:77 NLLLossAutoGrad.forward() (2-D input, reduction
    # 'mean', weighted): input [B, C, 1], target [B, 1]
    case("attorch_nll_loss_fwd", P + "nll_loss_kernels.py", "nll_loss_forward_kernel",
         [T("in", "fp32", ["B", "C"]), T("in", "i64", ["B"], "randint:0:100"),
          T("in", "fp32", ["C"], "uniform:0.5:2"), T("out", "fp32", ["B"]), T("out", "fp32", ["B"]),
          S("i32", "B"), S("i32", "1"), S("i32", "C"), S("i32", "1"), S("i32", "1"),
          S("i32", "1"), S("i32", "1"), S("i32", "1"), S("i32", "1")],
         {"reduction": "'mean'", "weighted": True, "BLOCK_SIZE_BATCH": 1, "BLOCK_SIZE_SPATIAL": 1},
         "B", [{"B": 1024, "C": 100}, {"B": 37, "C": 100}], 4, tol=F32),
    # launcher: attorch/linear_layer.py:90 LinearAutoGrad.forward() (fp16 autocast, bias,
    # no activation: act_func None, param None (0.0 here), pre_act is output; separate
    # buffer here). Autotune pick: (128, 64, 256), GROUP 8, 8 warps, 3 stages.
    case("attorch_linear_fwd", P + "linear_kernels.py", "linear_forward_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["K", "N"]), T("in", "fp16", ["N"]),
          T("out", "fp16", ["M", "N"]), T("out", "fp16", ["M", "N"]),
          S("i32", "M"), S("i32", "K"), S("i32", "N"), S("i32", "K"), S("i32", "1"),
          S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"),
          S("fp32", "0.0")],
         {"add_bias": True, "act_func": None, "save_pre_act": False, "fp16": True, "tf32": True,
          "BLOCK_SIZE_BATCH": 128, "BLOCK_SIZE_IN_FEAT": 64, "BLOCK_SIZE_OUT_FEAT": 256,
          "GROUP_SIZE_BATCH": 8},
         "cdiv(M, BLOCK_SIZE_BATCH) * cdiv(N, BLOCK_SIZE_OUT_FEAT)",
         [{"M": 256, "K": 4096, "N": 4096}, {"M": 77, "K": 1000, "N": 1000}], 4, tol=tol(2e-2, 2e-2),
         num_warps=8, num_stages=3, cpu_sizes=[{"M": 17, "K": 100, "N": 300}]),
    # launcher: attorch/multi_head_attention_kernels.py:383 _attention.forward()
    # (BLOCK_M 128, BLOCK_N 64, num_warps 4 for head dim 64, num_stages 4)
    case("attorch_mha_fwd", P + "multi_head_attention_kernels.py", "_fwd_kernel",
         [T("in", "fp16", ["Z", "H", "L", "64"]), T("in", "fp16", ["Z", "H", "L", "64"]),
          T("in", "fp16", ["Z", "H", "L", "64"]), S("fp32", "0.125"), T("out", "fp32", ["Z * H", "L"]),
          T("out", "fp16", ["Z", "H", "L", "64"]),
          S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "64"), S("i32", "1"),
          S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "64"), S("i32", "1"),
          S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "64"), S("i32", "1"),
          S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "64"), S("i32", "1"),
          S("i32", "Z"), S("i32", "H"), S("i32", "L"), S("i32", "Z * H * L")],
         {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_DMODEL": 64, "IS_CAUSAL": True},
         "(cdiv(L, 128), Z * H, 1)", [{"Z": 2, "H": 16, "L": 1024}, {"Z": 1, "H": 8, "L": 384}], 4,
         tol=F16, num_warps=4, num_stages=4, cpu_sizes=[{"Z": 1, "H": 1, "L": 256}]),
    case("attorch_mha_fwd_noncausal", P + "multi_head_attention_kernels.py", "_fwd_kernel",
         [T("in", "fp16", ["Z", "H", "L", "64"]), T("in", "fp16", ["Z", "H", "L", "64"]),
          T("in", "fp16", ["Z", "H", "L", "64"]), S("fp32", "0.125"), T("out", "fp32", ["Z * H", "L"]),
          T("out", "fp16", ["Z", "H", "L", "64"]),
          S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "64"), S("i32", "1"),
          S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "64"), S("i32", "1"),
          S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "64"), S("i32", "1"),
          S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "64"), S("i32", "1"),
          S("i32", "Z"), S("i32", "H"), S("i32", "L"), S("i32", "Z * H * L")],
         {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_DMODEL": 64, "IS_CAUSAL": False},
         "(cdiv(L, 128), Z * H, 1)", [{"Z": 2, "H": 16, "L": 1024}, {"Z": 1, "H": 8, "L": 384}], 4,
         tol=F16, num_warps=4, num_stages=4, cpu_sizes=[{"Z": 1, "H": 1, "L": 256}]),
    # launcher: attorch/layer_norm_layer.py:138 LayerNormAutoGrad.backward() (weight and bias:
    # per-row-block weight/bias gradients [cdiv(M, BLOCK_SIZE_BATCH), N])
    case("attorch_layer_norm_bwd", P + "layer_norm_kernels.py", "layer_norm_backward_kernel",
         [T("in", "fp32", ["M", "N"]), T("in", "fp32", ["M", "N"]), T("in", "fp32", ["M"]),
          T("in", "fp32", ["M"], "uniform:0.5:2"), T("in", "fp32", ["N"]),
          T("out", "fp32", ["M", "N"]), T("out", "fp32", ["M", "N"]), T("out", "fp32", ["M", "N"]),
          S("i32", "M"), S("i32", "N"), S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"),
          S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1")],
         lambda s: dict(_rows(s), scale_by_weight=True, add_bias=True), "cdiv(M, BLOCK_SIZE_BATCH)",
         ROW_SIZES, 4, tol=F32),
    # launcher: attorch/nll_loss_layer.py:131 NLLLossAutoGrad.backward() (reduction 'mean',
    # weighted; scalar output gradient, strides (1, 1))
    case("attorch_nll_loss_bwd", P + "nll_loss_kernels.py", "nll_loss_backward_kernel",
         [T("in", "fp32", ["1"]), T("in", "i64", ["B"], "randint:0:100"), T("in", "fp32", ["C"], "uniform:0.5:2"),
          T("in", "fp32", ["1"], "uniform:5:10"), T("out", "fp32", ["B", "C"]),
          S("i32", "B"), S("i32", "1"), S("i32", "1"), S("i32", "1"), S("i32", "1"), S("i32", "1"),
          S("i32", "C"), S("i32", "1"), S("i32", "1")],
         {"reduction": "'mean'", "weighted": True, "BLOCK_SIZE_BATCH": 1, "BLOCK_SIZE_SPATIAL": 1},
         "B", [{"B": 1024, "C": 100}, {"B": 37, "C": 100}], 4, tol=F32),
    # launcher: attorch/dropout_layer.py:103 DropoutAutoGrad.backward()
    case("attorch_dropout_bwd", P + "dropout_kernels.py", "dropout_backward_kernel",
         [T("in", "fp32", ["n"]), T("out", "fp32", ["n"]), S("i32", "n"), S("fp32", "0.25"), S("i32", "4321")],
         EW, "cdiv(n, BLOCK_SIZE)", EW_SIZES, 4, tol=F32, grid_in_blob=True),
    # launcher: attorch/p_loss_layers.py:113 PLossAutoGrad.backward() (squared L2, reduction 'mean':
    # scalar output gradient)
    case("attorch_p_loss_mse_bwd", P + "p_loss_kernels.py", "p_loss_backward_kernel",
         [T("in", "fp32", ["1"]), T("in", "fp32", ["n"]), T("in", "fp32", ["n"]), T("out", "fp32", ["n"]),
          T("out", "fp32", ["n"]), S("fp32", "1.0"), S("i32", "n")],
         dict(EW, p_loss=2, reduction="'mean'"), "cdiv(n, BLOCK_SIZE)", EW_SIZES, 4, tol=F32,
         grid_in_blob=True),
    # launcher: attorch/cross_entropy_loss_layer.py:72 CrossEntropyLoss.forward() (class weights
    # given; output and sum_weights have batch_dim / BLOCK_SIZE_BATCH entries, BLOCK_SIZE_BATCH 1
    # for a vocabulary this wide)
    case("attorch_cross_entropy_fwd", P + "cross_entropy_loss_kernels.py", "cross_entropy_loss_forward_kernel",
         [T("in", "fp32", ["M", "N"]), T("in", "i64", ["M"], "randint:0:1000"), T("in", "fp32", ["N"], "uniform:0.5:2"),
          T("out", "fp32", ["M"]), T("out", "fp32", ["M"]), S("i32", "M"), S("i32", "N"),
          S("i32", "N"), S("i32", "1")],
         lambda s: dict(_rows(s), weighted=True), "cdiv(M, BLOCK_SIZE_BATCH)",
         [{"M": 16, "N": 32000}, {"M": 7, "N": 1000}], 4, tol=F32,
         num_warps=lambda s: 8 if s["N"] >= 4096 else 4),
    # launcher: attorch/cross_entropy_loss_layer.py:112 CrossEntropyLoss.backward() (unweighted:
    # weight and sum_weights None, dummies here)
    case("attorch_cross_entropy_bwd", P + "cross_entropy_loss_kernels.py", "cross_entropy_loss_backward_kernel",
         [T("in", "fp32", ["1"]), T("in", "i64", ["M"], "randint:0:1000"), T("in", "fp32", ["M", "N"]),
          T("in", "fp32", ["1"]), T("in", "fp32", ["1"]), T("out", "fp32", ["M", "N"]),
          S("i32", "M"), S("i32", "N"), S("i32", "N"), S("i32", "1"), S("i32", "N"), S("i32", "1")],
         lambda s: dict(_rows(s), weighted=False), "cdiv(M, BLOCK_SIZE_BATCH)",
         [{"M": 16, "N": 32000}, {"M": 7, "N": 1000}], 4, tol=F32,
         num_warps=lambda s: 8 if s["N"] >= 4096 else 4),
    # launcher: attorch/batch_norm_layer.py:143 BatchNorm.forward() (BatchNorm2d in eval mode,
    # fused relu: input [N, C, H, W] viewed [N, C, HW] and transposed to [HW, C, N], so
    # batch_dim = HW, spatial_dim = N; mean/inv_std None (no grad), pre_act_add None (an empty
    # [1, 1, 1] in the launcher, strides 1), pre_act = output; dummies here)
    case("attorch_batch_norm_eval_relu_fwd", P + "batch_norm_kernels.py", "batch_norm_forward_kernel",
         [T("in", "fp32", ["NB", "C", "HW"]), T("in", "fp32", ["C"]), T("in", "fp32", ["C"]),
          T("in", "fp32", ["1"]), T("in", "fp32", ["1"]), T("in", "fp32", ["1"]), T("in", "fp32", ["1"]),
          T("out", "fp32", ["NB", "C", "HW"]), T("in", "fp32", ["C"]), T("in", "fp32", ["C"], "uniform:0.5:2"),
          S("i32", "HW"), S("i32", "NB"),
          S("i32", "1"), S("i32", "HW"), S("i32", "C * HW"), S("i32", "1"), S("i32", "1"), S("i32", "1"),
          S("i32", "1"), S("i32", "HW"), S("i32", "C * HW"), S("i32", "1"), S("i32", "HW"), S("i32", "C * HW"),
          S("fp32", "0.1"), S("fp32", "1e-5"), S("fp32", "0.0")],
         lambda s: {"affine": True, "save_stats": False, "track_running_stats": True, "is_train": False,
                    "add_pre_act": False, "act_func": "'relu'", "save_pre_act": False,
                    "BLOCK_SIZE_BATCH": next_pow2(s["HW"]),
                    "BLOCK_SIZE_SPATIAL": min(next_pow2(s["NB"]), max(1, 2 ** 14 // next_pow2(s["HW"])))},
         "C", [{"NB": 8, "C": 64, "HW": 1024}, {"NB": 3, "C": 37, "HW": 49}], 4, tol=F32, num_warps=4),
    # launcher: attorch/batch_norm_layer.py:143 BatchNorm.forward() (BatchNorm1d on [N, C] in
    # training: stats saved, running stats updated, residual added before the norm's output, no
    # activation; spatial_dim 1)
    case("attorch_batch_norm_train_fwd", P + "batch_norm_kernels.py", "batch_norm_forward_kernel",
         [T("in", "fp32", ["NB", "C"]), T("in", "fp32", ["C"]), T("in", "fp32", ["C"]),
          T("out", "fp32", ["C"]), T("out", "fp32", ["C"]), T("in", "fp32", ["NB", "C"]),
          T("in", "fp32", ["1"]), T("out", "fp32", ["NB", "C"]),
          T("inout", "fp32", ["C"]), T("inout", "fp32", ["C"], "uniform:0.5:2"),
          S("i32", "NB"), S("i32", "1"),
          S("i32", "C"), S("i32", "1"), S("i32", "1"), S("i32", "C"), S("i32", "1"), S("i32", "1"),
          S("i32", "C"), S("i32", "1"), S("i32", "1"), S("i32", "C"), S("i32", "1"), S("i32", "1"),
          S("fp32", "0.1"), S("fp32", "1e-5"), S("fp32", "0.0")],
         lambda s: {"affine": True, "save_stats": True, "track_running_stats": True, "is_train": True,
                    "add_pre_act": True, "act_func": "None", "save_pre_act": False,
                    "BLOCK_SIZE_BATCH": next_pow2(s["NB"]), "BLOCK_SIZE_SPATIAL": 1},
         "C", [{"NB": 256, "C": 512}, {"NB": 77, "C": 33}], 4, tol=F32, num_warps=4),
    # launcher: attorch/batch_norm_layer.py:228 BatchNorm.backward() (BatchNorm1d, affine, no
    # activation: pre_act_grad is output_grad)
    case("attorch_batch_norm_bwd", P + "batch_norm_kernels.py", "batch_norm_backward_kernel",
         [T("in", "fp32", ["NB", "C"]), T("in", "fp32", ["NB", "C"]), T("in", "fp32", ["C"], "uniform:-0.1:0.1"),
          T("in", "fp32", ["C"], "uniform:0.5:2"), T("in", "fp32", ["C"]),
          T("out", "fp32", ["NB", "C"]), T("out", "fp32", ["C"]), T("out", "fp32", ["C"]),
          S("i32", "NB"), S("i32", "1"),
          S("i32", "C"), S("i32", "1"), S("i32", "1"), S("i32", "C"), S("i32", "1"), S("i32", "1"),
          S("i32", "C"), S("i32", "1"), S("i32", "1")],
         lambda s: {"affine": True, "BLOCK_SIZE_BATCH": next_pow2(s["NB"]), "BLOCK_SIZE_SPATIAL": 1},
         "C", [{"NB": 256, "C": 512}, {"NB": 77, "C": 33}], 4, tol=tol(1e-3, 1e-3), num_warps=4),
    # launcher: attorch/multi_head_attention_kernels.py:431 _attention.backward() (BLOCK 128, head 64)
    case("attorch_mha_bwd_preprocess", P + "multi_head_attention_kernels.py", "_bwd_preprocess",
         [T("in", "fp16", ["Z", "H", "L", "64"]), T("in", "fp16", ["Z", "H", "L", "64"]),
          T("out", "fp32", ["Z * H", "L"])],
         {"BLOCK_M": 128, "D_HEAD": 64}, "cdiv(L, 128) * Z * H",
         [{"Z": 2, "H": 16, "L": 1024}, {"Z": 1, "H": 5, "L": 384}], 4, tol=tol(1e-3, 1e-3), num_warps=4),
    # launcher: attorch/multi_head_attention_kernels.py:438 _attention.backward() (causal, not
    # sequence parallel: dq zero-filled and accumulated; MMA_V3 on sm_90; 8 warps, 1 stage;
    # L holds the forward's log-sum-exp (base 2), D the preprocess's delta)
    case("attorch_mha_bwd", P + "multi_head_attention_kernels.py", "_bwd_kernel",
         [T("in", "fp16", ["Z", "H", "L", "64"]), T("in", "fp16", ["Z", "H", "L", "64"]),
          T("in", "fp16", ["Z", "H", "L", "64"]), S("fp32", "0.125"),
          T("in", "fp16", ["Z", "H", "L", "64"]), T("in", "fp16", ["Z", "H", "L", "64"]),
          T("inout", "fp16", ["Z", "H", "L", "64"], "zeros"), T("out", "fp16", ["Z", "H", "L", "64"]),
          T("out", "fp16", ["Z", "H", "L", "64"]),
          T("in", "fp32", ["Z * H", "L"], "uniform:4:6"), T("in", "fp32", ["Z * H", "L"], "uniform:-0.5:0.5"),
          S("i32", "Z * H * L * 64"), S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "64"), S("i32", "1"),
          S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "64"), S("i32", "1"),
          S("i32", "H * L * 64"), S("i32", "L * 64"), S("i32", "64"), S("i32", "1"),
          S("i32", "Z"), S("i32", "H"), S("i32", "L"), S("i32", "Z * H * L"),
          S("i32", "cdiv(L, 128) * Z * H * L")],
         {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_DMODEL": 64, "SEQUENCE_PARALLEL": False, "CAUSAL": True,
          "MMA_V3": True},
         "(Z * H, 1)", [{"Z": 1, "H": 8, "L": 512}, {"Z": 1, "H": 3, "L": 384}], 4,
         tol=tol(3e-2, 3e-2), num_warps=8, num_stages=1, cpu_sizes=[{"Z": 1, "H": 1, "L": 128}]),
    # launcher: attorch/conv_layer.py:102 Conv2dAutoGrad.forward() (3x3, stride 1, padding 1,
    # groups 1, fp16 autocast: fp16 True, tf32 on sm_80+; bias added outside the kernel);
    # autotune pick BLOCK_SIZE_BATCH_HEIGHT_WIDTH 128, BLOCK_SIZE_IN_FEAT 32,
    # BLOCK_SIZE_OUT_FEAT 64, 4 warps, 4 stages
    case("attorch_conv2d_fwd", P + "conv_kernels.py", "conv2d_forward_kernel",
         [T("in", "fp16", ["NB", "CI", "HH", "WW"]), T("in", "fp16", ["CO", "CI", "3", "3"]),
          T("out", "fp16", ["NB", "CO", "HH", "WW"]),
          S("i32", "NB"), S("i32", "CI"), S("i32", "HH"), S("i32", "WW"),
          S("i32", "CO"), S("i32", "HH"), S("i32", "WW"),
          S("i32", "CI * HH * WW"), S("i32", "HH * WW"), S("i32", "WW"), S("i32", "1"),
          S("i32", "CI * 9"), S("i32", "9"), S("i32", "3"), S("i32", "1"),
          S("i32", "CO * HH * WW"), S("i32", "HH * WW"), S("i32", "WW"), S("i32", "1")],
         {"kernel_height": 3, "kernel_width": 3, "stride_height": 1, "stride_width": 1,
          "padding_height": 1, "padding_width": 1, "groups": 1, "fp16": True, "tf32": True,
          "BLOCK_SIZE_BATCH_HEIGHT_WIDTH": 128, "BLOCK_SIZE_IN_FEAT": 32, "BLOCK_SIZE_OUT_FEAT": 64},
         "(cdiv(NB * HH * WW, 128), cdiv(CO, 64), 1)",
         [{"NB": 2, "CI": 64, "HH": 32, "WW": 32, "CO": 128}, {"NB": 1, "CI": 3, "HH": 17, "WW": 17, "CO": 20}],
         4, tol=tol(2e-2, 2e-2), num_warps=4, num_stages=4,
         cpu_sizes=[{"NB": 1, "CI": 3, "HH": 9, "WW": 9, "CO": 20}]),
]
