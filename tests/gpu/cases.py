"""cases.py - the GPU differential suite's case table (pure Python, no torch).

A case names a kernel in a .py file and says how to drive it: each runtime
parameter in order is a tensor (input with an initializer, or an output that
gets poisoned) whose shape is written over size variables, or a scalar whose
value is an expression over them; constexprs and num_warps may depend on the
size (Triton's tutorials pick BLOCK_SIZE from the shape), so `expand()` turns
a case into instances, one per distinct (constexprs, num_warps), each with the
sizes it serves. prepare.py compiles every instance with tilec and writes the
instances to .gpu/manifest.json; diff.py and bench.py read only that JSON.
The grid is one expression string, compiled by tilec (-g) and evaluated by
Python for Triton's launch, so both sides launch the same grid.
"""
import os
import sys

SIZES_1D = [{"n": 1}, {"n": 1023}, {"n": 2**20 + 7}, {"n": 2**26}]
EXACT = "exact"


def tol(atol, rtol):
    return {"atol": atol, "rtol": rtol}


def T(role, dtype, shape, init="randn"):
    """A tensor parameter: role "in" or "out"; shape: size expressions."""
    return {"kind": "tensor", "role": role, "dtype": dtype, "shape": shape, "init": init}


def D(role, dtype, shape, block, init="randn"):
    """A host-side tensor descriptor parameter (tensordesc<DTYPE[...]>): a
    tensor like T's, passed to Triton as a TensorDescriptor and to tile as a
    tile_tensordesc; block: its block shape, expressions over constexprs."""
    return {"kind": "desc", "role": role, "dtype": dtype, "shape": shape, "init": init, "block": block}


def desc_block(p, constexprs):
    """A descriptor parameter's block shape as ints."""
    return [int(eval(str(b), {"__builtins__": {}}, dict(constexprs))) for b in p["block"]]


def S(dtype, value):
    """A scalar parameter; value: an expression over the size variables."""
    return {"kind": "scalar", "dtype": dtype, "value": value}


def next_pow2(x):
    p = 1
    while p < x:
        p *= 2
    return p


def case(id, file, kernel, params, constexprs, grid, sizes, tier, tol=EXACT, num_warps=4,
         bench=None, grid_in_blob=True, flops=None, num_stages=None, arch=None, cublas=None,
         sm80=False, tilec_flags=None, maxnreg=None, triton_extra=None, num_ctas=None,
         triton_refuses=None, include_dirs=None, cpu_sizes=None, tile_open=None, specialized_only=False,
         triton_sm80=False):
    """grid: an expression over size variables, parameter names and
    constexprs; with grid_in_blob it must use parameters and constexprs only
    (tilec compiles it, -g), otherwise the launch function takes the grid.
    flops: for a benchmark, floating-point operations per launch (an
    expression over the size variables): bench.py adds TFLOP/s.
    num_stages: given to both sides (None: each side's default, 3).
    arch: tilec's --arch for this case instead of the suite's (the GPU's).
    cublas: for a benchmark, the library call that computes the same product
    ("mm", "bmm", "int_mm" on the first two tensor arguments), timed as a
    third column.
    sm80: for a benchmark, also compare the sm_80-class code of both sides:
    tile compiled for compute_80 (PTX) and Triton compiled for sm_80 (its PTX),
    both JIT-compiled by the driver for the GPU at hand.
    tilec_flags: more options for tilec compile (such as --no-tma).
    maxnreg: registers per thread, given to both sides (Triton's maxnreg,
    tilec's --maxnreg).
    num_ctas: CTAs per program, given to both sides (tilec's -nc: thread
    block clusters from sm_90 on).
    triton_extra: launch options for Triton's side only.
    triton_refuses: Triton 3.6's message where Triton itself refuses the
    kernel (corpus cases): tilec still compiles it, nothing is compared.
    include_dirs: tilec's -I search paths (the corpus adds its project's).
    cpu_sizes: the sizes tests/corpus/check.py interprets on the CPU
    (default: the smallest of sizes).
    tile_open: a known open limitation of tile's that keeps a corpus case
    from compiling: a part of the error tilec gives (the case is then not
    compiled for the GPU).
    specialized_only: compile only the signatures Triton specializes the
    sizes to (not every int :16, nor none): the kernel compiles only with a
    :1 Triton's JIT gives (as Triton, it refuses other values).
    triton_sm80: the oracle is Triton's build for sm_80 (PTX the driver
    compiles), not its native one: for sm_80 cases whose results differ
    between targets by design (narrowing to fp8 rounds by compute
    capability)."""
    return dict(id=id, file=file, kernel=kernel, params=params, constexprs=constexprs,
                grid=grid, grid_in_blob=grid_in_blob, sizes=sizes, tier=tier, tol=tol,
                num_warps=num_warps, bench=bench, flops=flops, num_stages=num_stages, arch=arch,
                cublas=cublas, sm80=sm80, tilec_flags=tilec_flags or [], maxnreg=maxnreg,
                triton_extra=triton_extra or {}, num_ctas=num_ctas, triton_refuses=triton_refuses,
                include_dirs=include_dirs or [], cpu_sizes=cpu_sizes,
                tile_open=tile_open, specialized_only=specialized_only, triton_sm80=triton_sm80)


def _elementwise(id, file, kernel, params, tol=EXACT, block=1024, extra=None, num_warps=4):
    cx = {"BLOCK_SIZE": block}
    cx.update(extra or {})
    return case(id, file, kernel, params, cx, "cdiv(n_elements, BLOCK_SIZE)", SIZES_1D, 1, tol,
                num_warps)


def _n(dtype, role="in", init="randn"):
    return T(role, dtype, ["n"], init)


T1 = "tests/gpu/kernels/tier1.py"
T2 = "tests/gpu/kernels/tier2.py"
T3 = "tests/gpu/kernels/tier3.py"
DOTS = "tests/gpu/kernels/dots.py"
ATTN = "tests/gpu/kernels/attention.py"
EX_ADD = "examples/vector_add/kernel.py"
EX_SILU = "examples/silu/kernel.py"
N_ELEMENTS = S("i32", "n")

CASES = [
    _elementwise("vadd_f32", EX_ADD, "add_kernel",
                 [_n("fp32"), _n("fp32"), _n("fp32", "out"), N_ELEMENTS]),
    # gdc_wait and gdc_launch_dependents (launched ordinarily here;
    # tests/gpu/pdl.c launches it with TILE_LAUNCH_PDL)
    _elementwise("pdl_add_f32", "tests/gpu/kernels/pdl.py", "pdl_add_kernel",
                 [_n("fp32"), _n("fp32"), _n("fp32", "out"), N_ELEMENTS], extra={"USE_GDC": True}),
    _elementwise("silu_bf16", EX_SILU, "silu_kernel",
                 [_n("bf16"), _n("bf16", "out"), N_ELEMENTS], tol=tol(1e-2, 1e-2)),
    _elementwise("sin_f32", T1, "sin_kernel", [_n("fp32"), _n("fp32", "out"), N_ELEMENTS],
                 tol=tol(1e-6, 1e-5)),
    _elementwise("cos_f32", T1, "cos_kernel", [_n("fp32"), _n("fp32", "out"), N_ELEMENTS],
                 tol=tol(1e-6, 1e-5)),
    _elementwise("exp_div_f32", T1, "exp_div_kernel",
                 [_n("fp32"), _n("fp32"), _n("fp32", "out"), N_ELEMENTS]),
    _elementwise("where_other_f32", T1, "where_other_kernel",
                 [_n("fp32"), _n("fp32", "out"), N_ELEMENTS, S("i32", "n - n // 3")]),
    _elementwise("cast_f32", T1, "cast_kernel",
                 [_n("fp32"), _n("fp16", "out"), _n("bf16", "out"), _n("i32", "out"), N_ELEMENTS]),
    _elementwise("narrow_int_to_f32", T1, "narrow_int_to_f32_kernel",
                 [_n("i8", init="randint:-128:128"), _n("u8", init="randint:0:256"),
                  _n("i16", init="randint:-32768:32768"), T("out", "fp32", ["5 * n"]), N_ELEMENTS]),
    _elementwise("int_arith_i32", T1, "int_arith_kernel",
                 [_n("i32", init="randint:-100000:100000"), _n("i32", init="nonzero:-1000:1000"),
                  _n("i32", "out"), _n("i32", "out"), _n("i32", "out"), N_ELEMENTS]),
    _elementwise("fp16_math", T1, "fp16_math_kernel",
                 [_n("fp16"), _n("fp16"), _n("fp16", "out"), N_ELEMENTS], tol=tol(2e-3, 2e-3)),
    _elementwise("libdevice_f32", T1, "libdevice_kernel",
                 [_n("fp32"), _n("fp32", "out"), N_ELEMENTS, S("fp32", "0.75")],
                 tol=tol(1e-6, 1e-5)),
    _elementwise("sigmoid_fma_f32", T1, "sigmoid_fma_kernel",
                 [_n("fp32"), _n("fp32"), _n("fp32", "out"), N_ELEMENTS], tol=tol(1e-6, 1e-5)),
    _elementwise("vadd_f32_b4096", EX_ADD, "add_kernel",
                 [_n("fp32"), _n("fp32"), _n("fp32", "out"), N_ELEMENTS], block=4096,
                 num_warps=8),
]

# --- tier 2 -----------------------------------------------------------------

SOFTMAX_SIZES = [{"M": 1, "N": 1}, {"M": 3, "N": 7}, {"M": 64, "N": 128}, {"M": 1823, "N": 781},
                 {"M": 97, "N": 1000}, {"M": 256, "N": 1024}, {"M": 5, "N": 4097},
                 {"M": 16, "N": 8192}]


def _softmax_cx(s):
    return {"BLOCK_SIZE": next_pow2(s["N"])}


def _softmax_warps(s):
    b = next_pow2(s["N"])
    return 16 if b >= 4096 else 8 if b >= 2048 else 4


SOFTMAX_ROW_PARAMS = [T("out", "fp32", ["M", "N"]), T("in", "fp32", ["M", "N"]),
                      S("i32", "N"), S("i32", "N"), S("i32", "N")]
SOFTMAX_PERSISTENT_PARAMS = [T("out", "fp32", ["M", "N"]), T("in", "fp32", ["M", "N"]),
                             S("i32", "N"), S("i32", "N"), S("i32", "M"), S("i32", "N")]
SOFTMAX_TOL = tol(1e-6, 1e-5)
# fp32 sums of up to ~1000 standard-normal terms, added in another order
# than Triton's: a sum that cancels to near zero keeps the absolute rounding
# of the terms' magnitude (about eps * sum |x|, a few 1e-5), not a relative one.
SUM_TOL = tol(1e-4, 1e-5)

CASES += [
    case("softmax_row", T2, "softmax_row_kernel", SOFTMAX_ROW_PARAMS, _softmax_cx, "M",
         SOFTMAX_SIZES, 2, SOFTMAX_TOL, _softmax_warps, grid_in_blob=False),
    case("softmax_persistent", T2, "softmax_persistent_kernel", SOFTMAX_PERSISTENT_PARAMS,
         _softmax_cx, "min(n_rows, 528)", SOFTMAX_SIZES, 2, SOFTMAX_TOL, _softmax_warps),
]

LN_SIZES = [{"M": 1, "N": 64}, {"M": 37, "N": 100}, {"M": 128, "N": 781}, {"M": 64, "N": 1024},
            {"M": 17, "N": 4097}, {"M": 8, "N": 16384}, {"M": 1823, "N": 781}]


def _ln_cx(elsize):
    return lambda s: {"BLOCK_SIZE": min(65536 // elsize, next_pow2(s["N"]))}


def _ln_warps(elsize):
    return lambda s: min(max(min(65536 // elsize, next_pow2(s["N"])) // 256, 1), 8)


def _ln_params(dt):
    return [T("in", dt, ["M", "N"]), T("out", dt, ["M", "N"]), T("in", dt, ["N"]),
            T("in", dt, ["N"]), T("out", "fp32", ["M"]), T("out", "fp32", ["M"]),
            S("i32", "N"), S("i32", "N"), S("fp32", "1e-5")]


CASES += [
    case("layer_norm_f16", T2, "layer_norm_fwd_kernel", _ln_params("fp16"), _ln_cx(2), "M",
         LN_SIZES, 2, tol(2e-3, 2e-3), _ln_warps(2), grid_in_blob=False),
    case("layer_norm_f32", T2, "layer_norm_fwd_kernel", _ln_params("fp32"), _ln_cx(4), "M",
         LN_SIZES, 2, tol(1e-5, 1e-4), _ln_warps(4), grid_in_blob=False),
    # a register bound under what the kernel takes: ptxas spills to keep it
    case("layer_norm_f16_maxnreg", T2, "layer_norm_fwd_kernel", _ln_params("fp16"), _ln_cx(2), "M",
         LN_SIZES, 2, tol(2e-3, 2e-3), _ln_warps(2), grid_in_blob=False, maxnreg=40),
    # rotary embedding over interleaved pairs: a split of pairs each thread
    # holds and a join back (fold_split, fold_join), rows masked at the end
    case("rope_interleaved_f32", T2, "rope_interleaved_kernel",
         [T("in", "fp32", ["M", "D"]), T("in", "fp32", ["M", "H"]), T("in", "fp32", ["M", "H"]),
          T("out", "fp32", ["M", "D"]), S("i32", "M")],
         lambda s: {"BLOCK_M": 32, "D": s["D"]}, "cdiv(M, BLOCK_M)",
         [{"M": 1, "D": 128, "H": 64}, {"M": 77, "D": 128, "H": 64}, {"M": 1000, "D": 64, "H": 32}], 2,
         tol(1e-6, 1e-6), grid_in_blob=False),
]

RED_SIZES = [{"M": 1, "N": 1}, {"M": 100, "N": 257}, {"M": 1823, "N": 781}]
RED_OPS = {0: "sum", 1: "max", 2: "min", 3: "argmax", 4: "sum_keepdims"}


def _rows_cx(op):
    def f(s):
        bn = next_pow2(s["N"])
        return {"OP": op, "BLOCK_M": max(1, min(64, 8192 // bn)), "BLOCK_N": bn}
    return f


# tl.max/tl.min with return_indices: one index reduction yields both
MAX_IDX_SIZES = [{"M": 1, "N": 1}, {"M": 37, "N": 1000}, {"M": 130, "N": 4099}]
for _name, _dt, _min, _keep, _bm, _bn, _w in (("max_indices_f32", "fp32", False, False, 4, 1024, 4),
                                              ("min_indices_f32_keep", "fp32", True, True, 4, 256, 4),
                                              ("max_indices_f16", "fp16", False, False, 8, 512, 8)):
    CASES.append(case(_name, T2, "max_indices_kernel",
                      [T("in", _dt, ["M", "N"], "ties:0:4"), T("out", "fp32", ["M"]), T("out", "i32", ["M"]),
                       S("i32", "M"), S("i32", "N"), S("i32", "N")],
                      {"MIN": _min, "KEEP": _keep, "BLOCK_M": _bm, "BLOCK_N": _bn}, "cdiv(M, BLOCK_M)",
                      MAX_IDX_SIZES, 2, EXACT, num_warps=_w))


def _cols_cx(op):
    def f(s):
        bm = next_pow2(s["M"])
        return {"OP": op, "BLOCK_M": bm, "BLOCK_N": max(1, min(64, 8192 // bm))}
    return f


for _dt, _ops in (("fp32", (0, 1, 2, 3, 4)), ("i32", (0, 1, 3))):
    for _op in _ops:
        _init = "ties:0:4" if _op == 3 else ("randn" if _dt == "fp32" else "randint:-1000:1000")
        _out = "i32" if _op == 3 else _dt
        _tol = SUM_TOL if (_dt == "fp32" and _op in (0, 4)) else EXACT
        _x = T("in", _dt, ["M", "N"], _init)
        CASES.append(case("rows_%s_%s" % (RED_OPS[_op], _dt), T2, "reduce_rows_kernel",
                          [_x, T("out", _out, ["M"]), S("i32", "M"), S("i32", "N"), S("i32", "N")],
                          _rows_cx(_op), "cdiv(M, BLOCK_M)", RED_SIZES, 2, _tol))
        CASES.append(case("cols_%s_%s" % (RED_OPS[_op], _dt), T2, "reduce_cols_kernel",
                          [_x, T("out", _out, ["N"]), S("i32", "M"), S("i32", "N"), S("i32", "N")],
                          _cols_cx(_op), "cdiv(N, BLOCK_N)", RED_SIZES, 2, _tol))

CASES.append(case("col_sum_loop_f32", T2, "col_sum_loop_kernel",
                  [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["N"]), S("i32", "M"),
                   S("i32", "N"), S("i32", "N")],
                  {"BLOCK_M": 32, "BLOCK_N": 64}, "cdiv(N, BLOCK_N)",
                  [{"M": 1, "N": 1}, {"M": 1000, "N": 33}, {"M": 4097, "N": 781}], 2,
                  tol(1e-4, 1e-5)))

# --- the front-end suite: tests/kernels and its seeds ------------------------

K = "tests/kernels/"
SEEDS = "tests/kernels/seeds/"


def _ew(id, file, kernel, params, tol=EXACT, block=1024, extra=None, num_warps=4, sizes=None,
        block_name="BLOCK", grid=None):
    cx = {block_name: block}
    cx.update(extra or {})
    return case(id, file, kernel, params, cx, grid or "cdiv(n, %s)" % block_name,
                sizes or SIZES_1D, 1, tol, num_warps)


N_ = S("i32", "n")
APPROX = tol(1e-6, 1e-5)
ROWS_SIZES = [{"M": 1, "N": 1}, {"M": 64, "N": 100}, {"M": 1823, "N": 781}]


def _rowblock(s):
    return {"BLOCK": next_pow2(s["N"])}


CASES += [
    case("k_vector_add", K + "vector_add.py", "add_kernel",
         [_n("fp32"), _n("fp32"), _n("fp32", "out"), N_], {"BLOCK_SIZE": 1024},
         "cdiv(n_elements, BLOCK_SIZE)", SIZES_1D, 1),
    case("k_row_argmax", K + "argmax.py", "row_argmax_kernel",
         [T("in", "fp32", ["M", "N"], "ties:0:5"), T("out", "i32", ["M"]), T("out", "fp32", ["M"]),
          S("i32", "N"), S("i32", "N")], _rowblock, "M", ROWS_SIZES, 2, grid_in_blob=False),
    case("k_col_argmin", K + "argmax.py", "col_argmin_kernel",
         [T("in", "i32", ["M", "N"], "ties:0:5"), T("out", "i32", ["N"]), S("i32", "M"), S("i32", "N")],
         lambda s: {"BLOCK_M": next_pow2(s["M"]), "BLOCK_N": next_pow2(s["N"])}, "1",
         [{"M": 1, "N": 1}, {"M": 30, "N": 50}, {"M": 100, "N": 50}], 2),
    _ew("k_cast_chain", K + "casts.py", "cast_chain_kernel",
        [_n("fp32"), _n("fp16", "out"), _n("bf16", "out"), _n("i32", "out"), _n("fp32", "out"), N_]),
    _ew("k_axpy_fp16", K + "casts.py", "axpy_fp16_kernel",
        [_n("fp16"), _n("fp16", "inout"), S("fp32", "1.75"), N_]),
    case("k_count_down", K + "regress/count_down.py", "count_down",
         [T("in", "fp32", ["n"]), T("out", "fp32", ["128"]), S("i32", "n")], {"BLOCK": 128}, "1",
         [{"n": 1}, {"n": 1000}, {"n": 4096}], 2, tol(1e-5, 1e-5)),
    case("k_rms_rows_masked", K + "regress/masked_sum.py", "rms_rows",
         [T("in", "fp16", ["M", "N"]), T("out", "fp32", ["M", "N"]), T("out", "fp32", ["M"]),
          S("i32", "N"), S("fp32", "1e-6")], _rowblock, "M",
         [{"M": 1, "N": 1}, {"M": 64, "N": 1000}, {"M": 1823, "N": 781}], 2, tol(1e-5, 1e-5),
         grid_in_blob=False),
    # 32 masked loads a thread at BLOCK 4096: `other` moved into the registers in the load's asm
    case("k_masked_other_block", K + "regress/masked_sum.py", "masked_other_block",
         [T("in", "fp16", ["n"]), T("in", "fp16", ["cdiv(n, 4096) * 4096"]),
          T("out", "fp16", ["cdiv(n, 4096) * 4096"]), S("i32", "n")], {"BLOCK": 4096}, "cdiv(n, 4096)",
         [{"n": 1}, {"n": 5000}, {"n": 8191}], 2),
    # blocks contiguous along dim 0: the default layout runs down that dim (16-byte accesses)
    case("k_dim0_contiguous", K + "regress/dim0_contiguous.py", "scale_columns",
         [T("in", "fp32", ["8 * S"]), T("out", "fp32", ["8 * S"], "zeros"), S("i32", "n"), S("i32", "S")],
         {"BLOCK_R": 1024, "BLOCK_C": 8}, "cdiv(n_rows, BLOCK_R)",
         [{"n": 1, "S": 16}, {"n": 1000, "S": 1024}, {"n": 3000, "S": 3008}], 2),
    # three interleaves of a loaded block and a reshape of constants, in registers (AWQ's unpacking)
    case("k_unpack_int4", K + "regress/unpack_int4.py", "unpack_int4",
         [T("in", "i32", ["rows", "cols"], "randint:-2147483648:2147483647"), T("out", "i32", ["rows", "cols * 8"], "zeros"),
          S("i32", "rows"), S("i32", "cols")],
         {"BLOCK_R": 32, "BLOCK_C": 32, "REORDER": True}, "cdiv(rows, 32)",
         [{"rows": 1, "cols": 1}, {"rows": 100, "cols": 30}, {"rows": 4096, "cols": 32}], 2),
    # a join of halves the rank's layout holds twice, folded in registers (bitsandbytes' dequantization)
    case("k_interleave_pairs", K + "regress/unpack_int4.py", "interleave_pairs",
         [T("in", "u8", ["n"], "randint:0:256"), T("in", "fp32", ["cdiv(n, 32)"]), T("out", "bf16", ["2 * n"]),
          S("i32", "n")], {"BLOCK": 256}, "cdiv(n, 256)", [{"n": 1}, {"n": 1000}, {"n": 4096}], 2),
    # [8 * 64] as [8, 64] and back, the registers renamed (bitsandbytes' blockwise quantization)
    case("k_reshape_rows", K + "regress/reshape_rows.py", "scale_blocks",
         [T("in", "fp32", ["n"]), T("out", "fp32", ["cdiv(n, 64)"], "zeros"), T("out", "fp32", ["n"], "zeros"),
          S("i32", "n")], {"BLOCK": 64, "ROWS": 8}, "cdiv(n, 512)", [{"n": 64}, {"n": 1000}, {"n": 8192}], 2,
         tol(1e-6, 1e-6)),
    # a dot plus the output block it loads, summed in the load's layout (SGLang's LoRA B)
    case("k_dot_residual", K + "regress/dot_residual.py", "dot_add_residual",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["K", "N"]), T("inout", "fp16", ["M", "N"]),
          S("i32", "M"), S("i32", "N"), S("i32", "K")],
         {"BLOCK_M": 16, "BLOCK_N": 256, "BLOCK_K": 16}, "cdiv(M, 16), cdiv(N, 256)",
         [{"M": 1, "N": 256, "K": 16}, {"M": 100, "N": 1000, "K": 200}], 2, tol(2e-2, 2e-2)),
    # a dot's B read through a transposed pointer block (decode attention's
    # K^T), through a select: loaded along its rows, staged with N rows
    # (mma.sync at 16 rows, wgmma at 64 on sm_90a)
    case("k_kt_operand", K + "regress/kt_operand.py", "scores_kt",
         [T("in", "fp16", ["16", "64"]), T("in", "fp16", ["n", "64"]), T("out", "fp32", ["16", "n"], "zeros"),
          S("i32", "n"), S("i32", "new_row")], {"HD": 64, "ROWS": 16, "BLOCK_N": 64}, "cdiv(n, 64)",
         [{"n": 1, "new_row": 0}, {"n": 100, "new_row": 70}, {"n": 4096, "new_row": 4095}], 1, tol(1e-2, 1e-2)),
    case("k_kt_operand_64", K + "regress/kt_operand.py", "scores_kt",
         [T("in", "fp16", ["64", "64"]), T("in", "fp16", ["n", "64"]), T("out", "fp32", ["64", "n"], "zeros"),
          S("i32", "n"), S("i32", "new_row")], {"HD": 64, "ROWS": 64, "BLOCK_N": 64}, "cdiv(n, 64)",
         [{"n": 1, "new_row": 0}, {"n": 100, "new_row": 3}, {"n": 1000, "new_row": 999}], 1, tol(1e-2, 1e-2)),
    # a ringed loop's scale row loaded one iteration ahead (DECAY=False),
    # and left in place beside a decay read through an exp (True)
] + [
    # blockwise scales applied to each block's product (torchao's fp8 GEMM
    # shape): scale rows loaded where the product's fragments are; 64 rows
    # in 8 warps (wgmma's warpgroups split N on sm_90a), and sm_80's code
    case("k_block_scales%s" % sfx, K + "regress/block_scales.py", "block_scaled_mm",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["N", "K"]), T("out", "fp16", ["M", "N"]),
          T("in", "fp32", ["M", "cdiv(K, 64)"], "uniform:0.5:1.5"),
          T("in", "fp32", ["cdiv(N, 64)", "cdiv(K, 64)"], "uniform:0.5:1.5"),
          S("i32", "M"), S("i32", "N"), S("i32", "K")],
         {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64}, "cdiv(M, 64), cdiv(N, 128)",
         [{"M": 64, "N": 128, "K": 64}, {"M": 100, "N": 300, "K": 200}, {"M": 512, "N": 1024, "K": 1024}], 1,
         tol(3e-2, 1e-2), num_warps=8, num_stages=3, arch=arch)
    for sfx, arch in (("", None), ("_sm80", "sm_80"))
] + [
    # a scale whose pointers are equal over the block, loaded once a thread
    case("k_group_scaled", K + "regress/block_scales.py", "group_scaled",
         [T("in", "fp32", ["n"]), T("in", "fp32", ["cdiv(1536, 128)"]), T("out", "fp32", ["n"], "zeros")],
         {"N": 1536, "GROUP": 128, "BLOCK": 128}, "cdiv(n, 128)", [{"n": 128}, {"n": 4096}], 1, num_warps=1,
         grid_in_blob=False),
] + [
    case("k_ring_scales_%s" % d.lower(), K + "regress/ring_scales.py", "scaled_dot",
         [T("in", "fp16", ["32", "K"]), T("in", "fp16", ["K", "32"]), T("in", "fp32", ["K"], "uniform:0.5:1.5"),
          T("in", "fp32", ["K"], "uniform:-1:0"), T("out", "fp32", ["32", "32"], "zeros"), S("i32", "K")],
         {"DECAY": d == "True", "BLOCK": 32}, "1", [{"K": 32}, {"K": 256}, {"K": 1024}], 1, tol(2e-2, 2e-2))
    for d in ("False", "True")
] + [
    case("k_sum_fp16", K + "casts.py", "sum_fp16_kernel",
         [_n("fp16"), T("out", "fp32", ["1"]), N_], lambda s: {"BLOCK": next_pow2(s["n"])}, "1",
         [{"n": 1}, {"n": 1000}, {"n": 4096}], 2, tol(1e-4, 1e-5)),
]
for _act, _scale in ((0, False), (1, True), (2, False), (2, True)):
    CASES.append(_ew("k_activation_%d%s" % (_act, "_scaled" if _scale else ""),
                     K + "constexpr_branch.py", "activation_kernel",
                     [_n("fp32"), _n("fp32", "out"), N_, S("fp32", "0.01")],
                     tol=EXACT if _act < 2 else APPROX,
                     extra={"ACTIVATION": _act, "SCALE": _scale}))
CASES += [
    _ew("k_clamp", K + "elementwise.py", "clamp_kernel",
        [_n("fp32"), _n("fp32", "out"), S("fp32", "-0.5"), S("fp32", "0.75"), N_]),
    _ew("k_math", K + "elementwise.py", "math_kernel",
        [_n("fp32", init="uniform:0.01:4"), _n("fp32", "out"), _n("fp32", "out"), _n("fp32", "out"),
         _n("fp32", "out"), N_], tol=APPROX),
    _ew("k_swish_int_mix", K + "elementwise.py", "swish_int_mix_kernel",
        [_n("fp32"), _n("i32", init="randint:-5:6"), _n("fp32", "out"), N_]),
    case("k_bias_gelu", K + "helpers.py", "bias_gelu_kernel",
         [T("in", "fp32", ["M", "N"]), T("in", "fp32", ["N"]), T("out", "fp32", ["M", "N"]),
          S("i32", "N"), S("i32", "N")], _rowblock, "M", ROWS_SIZES, 1, APPROX,
         grid_in_blob=False),
    _ew("k_hypot", K + "helpers.py", "hypot_kernel", [_n("fp32"), _n("fp32"), _n("fp32", "out"), N_],
        tol=APPROX),
    _ew("k_divmod", K + "int_ops.py", "divmod_kernel",
        [_n("i32", init="randint:-100000:100000"), _n("i32", init="nonzero:-100:100"),
         _n("i32", "out"), _n("i32", "out"), N_]),
    _ew("k_index_math", K + "int_ops.py", "index_math_kernel", [_n("i32", "out"), N_],
        extra={"COLS": 7}),
    _ew("k_lcg_hash", K + "int_ops.py", "lcg_hash_kernel",
        [_n("i32", init="randint:-2000000000:2000000000"), _n("i32", "out"), N_]),
    # sums of 4097 normal values in another order than Triton's: partial
    # sums near 100 round at 8e-6, so results a few of those apart are both
    # right (1e-5 failed one row of 300 once the inputs' seed moved)
    case("k_row_sum_loop", K + "loops.py", "row_sum_loop_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M"]), S("i32", "N"), S("i32", "N")],
         {"BLOCK": 256}, "M", [{"M": 1, "N": 1}, {"M": 37, "N": 1000}, {"M": 300, "N": 4097}], 2,
         tol(1e-4, 1e-5), grid_in_blob=False),
    _ew("k_grid_stride", K + "loops.py", "grid_stride_kernel", [_n("fp32"), _n("fp32", "out"), N_],
        grid="min(cdiv(n, BLOCK), 264)"),
    _ew("k_poly", K + "loops.py", "poly_kernel",
        [_n("fp32", init="uniform:-1:1"), _n("fp32", "out"), N_], tol=tol(1e-5, 1e-5),
        extra={"DEGREE": 5}),
    case("k_halvings", K + "loops.py", "halvings_kernel",
         [T("in", "i32", ["1"], "randint:1:1000000000"), T("out", "i32", ["1"])], {}, "1",
         [{"one": 1}], 2),
    _ew("k_padded_copy", K + "masked_copy.py", "padded_copy_kernel",
        [_n("fp32"), T("out", "fp32", ["cdiv(n, 1024) * 1024"]), N_, S("fp32", "-3.5")]),
    _ew("k_shift", K + "masked_copy.py", "shift_kernel",
        [_n("fp32"), _n("fp32", "out"), N_, S("i32", "5")]),
    case("k_col_sum", K + "reductions.py", "col_sum_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["N"]), S("i32", "M"), S("i32", "N"),
          S("i32", "N")],
         lambda s: {"BLOCK_M": next_pow2(s["M"]), "BLOCK_N": max(1, min(64, 8192 // next_pow2(s["M"])))},
         "cdiv(N, BLOCK_N)", [{"M": 1, "N": 1}, {"M": 100, "N": 257}, {"M": 1823, "N": 781}], 2,
         tol(1e-5, 1e-5)),
    case("k_row_center", K + "reductions.py", "row_center_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M", "N"]), T("out", "fp32", ["M"]),
          S("i32", "M"), S("i32", "N")],
         lambda s: {"BLOCK_N": next_pow2(s["N"]), "BLOCK_M": max(1, min(64, 8192 // next_pow2(s["N"])))},
         "cdiv(M, BLOCK_M)", [{"M": 1, "N": 1}, {"M": 100, "N": 257}, {"M": 1823, "N": 781}], 2),
    case("k_row_center_ctas2", K + "reductions.py", "row_center_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M", "N"]), T("out", "fp32", ["M"]),
          S("i32", "M"), S("i32", "N")],
         lambda s: {"BLOCK_N": next_pow2(s["N"]), "BLOCK_M": max(2, min(64, 8192 // next_pow2(s["N"])))},
         "cdiv(M, BLOCK_M)", [{"M": 1, "N": 1}, {"M": 100, "N": 257}, {"M": 1823, "N": 781}], 2, num_ctas=2),
    case("k_scaled_rows_ctas2", K + "clusters.py", "scaled_rows",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M", "N"]), T("in", "fp32", ["1"]),
          T("out", "i32", ["(M + 63) // 64"]), S("i32", "M"), S("i32", "N")],
         lambda s: {"BLOCK_M": 64, "BLOCK_N": next_pow2(s["N"])},
         "cdiv(M, BLOCK_M)", [{"M": 1, "N": 1}, {"M": 100, "N": 257}, {"M": 1823, "N": 100}], 2, num_ctas=2),
    case("k_min_max", K + "reductions.py", "min_max_kernel",
         [_n("i32", init="randint:-1000000:1000000"), T("out", "i32", ["2"]), N_],
         lambda s: {"BLOCK": next_pow2(s["n"])}, "1", [{"n": 1}, {"n": 1000}, {"n": 8192}], 2),
    _ew("k_silu_bf16", K + "silu_bf16.py", "silu_bf16_kernel", [_n("bf16"), _n("bf16", "out"), N_],
        tol=tol(1e-2, 1e-2)),
    case("k_softmax", K + "softmax.py", "softmax_kernel", SOFTMAX_PERSISTENT_PARAMS, _softmax_cx,
         "n_rows", SOFTMAX_SIZES, 2, SOFTMAX_TOL, _softmax_warps),
    case("k_scale_2d", K + "tile2d.py", "scale_2d_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["N", "M"]), S("i32", "M"), S("i32", "N"),
          S("i32", "N"), S("i32", "1"), S("i32", "1"), S("i32", "M"), S("fp32", "1.5"),
          S("fp32", "-0.25")],
         {"BLOCK_M": 32, "BLOCK_N": 64}, "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)",
         [{"M": 1, "N": 1}, {"M": 100, "N": 257}, {"M": 1823, "N": 781}], 2, tol(1e-6, 1e-6)),
    case("k_transpose", K + "tile2d.py", "transpose_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["N", "M"]), S("i32", "M"), S("i32", "N")],
         {"BLOCK": 32}, "cdiv(M, BLOCK), cdiv(N, BLOCK)",
         [{"M": 1, "N": 1}, {"M": 100, "N": 257}, {"M": 1823, "N": 781}], 2),
    # a 128x128 fp32 tile through shared memory: 66 KB, past the 48 KB that
    # needs the dynamic shared-memory opt-in at launch
    case("k_transpose_128", K + "tile2d.py", "transpose_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["N", "M"]), S("i32", "M"), S("i32", "N")],
         {"BLOCK": 128}, "cdiv(M, BLOCK), cdiv(N, BLOCK)",
         [{"M": 100, "N": 257}, {"M": 1823, "N": 781}], 2, num_warps=8),
    _ew("k_sincos", K + "trig.py", "sincos_kernel",
        [_n("fp32"), _n("fp32", "out"), _n("fp32", "out"), N_], tol=APPROX),
    _ew("k_rotate", K + "trig.py", "rotate_kernel",
        [_n("fp32", "inout"), _n("fp32", "inout"), S("fp32", "0.3"), N_], tol=APPROX),
    case("k_layer_norm_f16", K + "layernorm.py", "_layer_norm_fwd", _ln_params("fp16"), _ln_cx(2),
         "M", LN_SIZES, 2, tol(2e-3, 2e-3), _ln_warps(2), grid_in_blob=False),
    _ew("k_sign_scale_pos", K + "runtime_if.py", "sign_scale_kernel",
        [_n("fp32"), _n("fp32", "out"), N_, S("i32", "1")]),
    _ew("k_sign_scale_neg", K + "runtime_if.py", "sign_scale_kernel",
        [_n("fp32"), _n("fp32", "out"), N_, S("i32", "-3")]),
    case("k_block_sums", K + "runtime_if.py", "block_sums_kernel",
         [_n("fp32"), T("out", "fp32", ["cdiv(n, 1024)"]), T("out", "i32", ["1"]), N_],
         {"BLOCK": 1024}, "cdiv(n, BLOCK)", SIZES_1D, 2, SUM_TOL),
    # seeds: host code around the kernels is not run (harness.clean_source)
    _ew("seed_sin", SEEDS + "add_sin_cos.py", "sin_kernel", [_n("fp32"), _n("fp32", "out"), N_],
        tol=APPROX, block_name="BLOCK_SIZE", grid="cdiv(n_elements, BLOCK_SIZE)"),
    _ew("seed_cos", SEEDS + "add_sin_cos.py", "cos_kernel", [_n("fp32"), _n("fp32", "out"), N_],
        tol=APPROX, block_name="BLOCK_SIZE", grid="cdiv(n_elements, BLOCK_SIZE)"),
    _ew("seed_add", SEEDS + "add_sin_cos.py", "add_kernel",
        [_n("fp32"), _n("fp32"), _n("fp32", "out"), N_], block_name="BLOCK_SIZE",
        grid="cdiv(n_elements, BLOCK_SIZE)"),
    # an @triton.autotune kernel: its config 0 (BLOCK_SIZE=4, 8 warps), given explicitly
    _ew("seed_add_autotuned", SEEDS + "add_sin_cos.py", "add_kernel_autotuned",
        [_n("fp32"), _n("fp32"), _n("fp32", "out"), N_], block=4, num_warps=8,
        block_name="BLOCK_SIZE", grid="cdiv(n_elements, BLOCK_SIZE)",
        sizes=[{"n": 1}, {"n": 1023}, {"n": 2**20 + 7}]),
    _ew("seed_silu_bf16", SEEDS + "silu.py", "triton_silu_kernel", [_n("bf16"), _n("bf16", "out"), N_],
        tol=tol(1e-2, 1e-2), block_name="BLOCK_SIZE", grid="cdiv(n_elements, BLOCK_SIZE)"),
]

# --- tier 3: tl.dot ---------------------------------------------------------
# Triton multiplies on tensor cores (fp32 operands as tf32), tile with fma
# chains (operands rounded to tf32 with cvt.rna): the same products to
# within the operands' rounding, summed in another order. Inputs are standard normal,
# so a K-term dot product is about sqrt(K) in size.
MM_SIZES = [{"M": 16, "N": 16, "K": 16}, {"M": 100, "N": 257, "K": 70},
            {"M": 512, "N": 384, "K": 1000}]
MM_STRIDES = [S("i32", "K"), S("i32", "1"), S("i32", "N"), S("i32", "1"), S("i32", "N"),
              S("i32", "1")]
MM_SIZES_PARAMS = [S("i32", "M"), S("i32", "N"), S("i32", "K")]
# fp16 result: one fp16 ulp of a value near 30 is 0.016
MM_F16_TOL = tol(3e-2, 1e-2)
# bf16 and fp16 products are exact in fp32; only the order of the fp32 sums
# differs (sums of up to 1000 terms near 30)
MM_BF16_TOL = tol(1e-3, 1e-4)
# tf32 operands (10-bit mantissa): each product within about 2^-10 relative
MM_TF32_TOL = tol(1e-1, 1e-2)
# tile's :8 hints on the sizes and the strides that are not 1
MM_SIG8 = "*fp16:16, *fp16:16, *fp16:16, i32:8, i32:8, i32:8, i32:8, i32:1, i32:8, i32:1, i32:8, i32:1"

CASES += [
    case("k_matmul_f16", K + "matmul.py", "matmul_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["K", "N"]), T("out", "fp16", ["M", "N"])]
         + MM_SIZES_PARAMS + MM_STRIDES,
         {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8},
         "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)", MM_SIZES, 3, MM_F16_TOL),
    case("k_matmul_tf32", K + "matmul.py", "matmul_fp32_kernel",
         [T("in", "fp32", ["M", "K"]), T("in", "fp32", ["K", "N"]), T("out", "fp32", ["M", "N"])]
         + MM_SIZES_PARAMS, {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", MM_SIZES, 3, MM_TF32_TOL),
    # compiled for sm_75 (no tf32 instructions: rounding in integers, fma
    # chains), run through the driver's JIT of its compute_75 PTX
    case("k_matmul_tf32_sm75", K + "matmul.py", "matmul_fp32_kernel",
         [T("in", "fp32", ["M", "K"]), T("in", "fp32", ["K", "N"]), T("out", "fp32", ["M", "N"])]
         + MM_SIZES_PARAMS, {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", [{"M": 100, "N": 257, "K": 70}], 3, MM_TF32_TOL,
         arch="sm_75,compute_75"),
    # bf16 on tensor cores with masked K tails; a 16x16 tile over 4 warps
    # (warps replicate columns); 8 warps side by side
    case("t3_matmul_bf16", K + "matmul.py", "matmul_fp32_kernel",
         [T("in", "bf16", ["M", "K"]), T("in", "bf16", ["K", "N"]), T("out", "fp32", ["M", "N"])]
         + MM_SIZES_PARAMS, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", [{"M": 1, "N": 1, "K": 1}] + MM_SIZES, 3, MM_BF16_TOL),
    case("t3_matmul_bf16_16", K + "matmul.py", "matmul_fp32_kernel",
         [T("in", "bf16", ["M", "K"]), T("in", "bf16", ["K", "N"]), T("out", "fp32", ["M", "N"])]
         + MM_SIZES_PARAMS, {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", [{"M": 100, "N": 257, "K": 70}], 3, MM_BF16_TOL),
    case("t3_matmul_bf16_w8", K + "matmul.py", "matmul_fp32_kernel",
         [T("in", "bf16", ["M", "K"]), T("in", "bf16", ["K", "N"]), T("out", "fp32", ["M", "N"])]
         + MM_SIZES_PARAMS, {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", [{"M": 512, "N": 384, "K": 1000}], 3, MM_BF16_TOL,
         num_warps=8),
    case("t3_dot_rowsum", T3, "dot_rowsum_kernel",
         [T("in", "fp16", ["m", "k"]), T("in", "fp16", ["k", "n"]), T("out", "fp32", ["m", "n"]),
          T("out", "fp32", ["m"])],
         lambda s: {"M": s["m"], "N": s["n"], "K": s["k"]}, "1",
         [{"m": 32, "n": 32, "k": 32}, {"m": 64, "n": 16, "k": 128}], 3, MM_BF16_TOL),
    # two dots' results interleaved into one block (join, permute, reshape):
    # on tensor cores, the halves' registers become the result's (fold_join)
    case("t3_dot_halves_join", T3, "dot_halves_join_kernel",
         [T("in", "fp16", ["m", "k"]), T("in", "fp16", ["k", "n"]), T("out", "fp32", ["m", "n"])],
         lambda s: {"M": s["m"], "N": s["n"], "K": s["k"]}, "1",
         [{"m": 128, "n": 128, "k": 64}, {"m": 64, "n": 32, "k": 32}], 3, MM_BF16_TOL,
         lambda s: 8 if s["m"] >= 128 else 4),
    # fp32 at full precision: fma chains on both sides, only the order differs
    case("k_dot_ieee", K + "matmul.py", "dot_ieee_kernel",
         [T("in", "fp32", ["m", "k"]), T("in", "fp32", ["k", "n"]), T("out", "fp32", ["m", "n"])],
         lambda s: {"M": s["m"], "N": s["n"], "K": s["k"]}, "1",
         [{"m": 16, "n": 16, "k": 16}, {"m": 32, "n": 64, "k": 128}], 3, tol(1e-4, 1e-5)),
    case("k_dot_f64", K + "matmul.py", "dot_ieee_kernel",
         [T("in", "fp64", ["m", "k"]), T("in", "fp64", ["k", "n"]), T("out", "fp64", ["m", "n"])],
         lambda s: {"M": s["m"], "N": s["n"], "K": s["k"]}, "1", [{"m": 32, "n": 32, "k": 16}], 3,
         tol(1e-12, 1e-12)),
]

# --- tier 3: the pipelined tensor-core paths ---------------------------------
# The tutorial matmul at square, tall, skinny and odd shapes (K not a multiple
# of BLOCK_K exercises the masked zero-fill of the asynchronous copies).
MM_SHAPES = [{"M": 1, "N": 1, "K": 1}, {"M": 17, "N": 17, "K": 17}, {"M": 1000, "N": 1000, "K": 1000},
             {"M": 4096, "N": 17, "K": 1000}, {"M": 1, "N": 4096, "K": 4096},
             {"M": 1024, "N": 1024, "K": 4096}]
MM_PARAMS = [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["K", "N"]), T("out", "fp16", ["M", "N"])]
MM_GRID = "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)"


def _mm_cx(bm, bn, bk, g=8):
    return {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": g}


CASES += [
    case("p_matmul_f16", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(64, 64, 32), MM_GRID, MM_SHAPES, 3, MM_F16_TOL),
    # tile's :8 hints: sizes that are multiples of 8 and not of 16 take the
    # variant with 16-byte copies
    case("p_matmul_f16_div8", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(64, 64, 32), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}, {"M": 200, "N": 136, "K": 72}], 3,
         MM_F16_TOL, tilec_flags=["-s", MM_SIG8]),
    case("p_matmul_f16_div8_ns4", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 64), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}, {"M": 200, "N": 136, "K": 72}], 3,
         MM_F16_TOL, num_stages=4, tilec_flags=["-s", MM_SIG8]),
    case("p_matmul_f16_128", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 64), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}, {"M": 512, "N": 256, "K": 4096}],
         3, MM_F16_TOL, num_stages=4),
    case("p_matmul_f16_256", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 256, 64), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}], 3, MM_F16_TOL, num_warps=8),
    # thread block clusters (num_ctas on both sides): each program's rows
    # split over the CTAs of a cluster
    case("p_matmul_f16_ctas2", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 64), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}, {"M": 512, "N": 256, "K": 4096}], 3,
         MM_F16_TOL, num_stages=4, num_ctas=2),
    case("p_matmul_f16_256_ctas2", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 256, 64), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}, {"M": 300, "N": 200, "K": 96}], 3,
         MM_F16_TOL, num_warps=8, num_ctas=2),
    case("p_matmul_f16_ctas4", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 32), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}], 3, MM_F16_TOL, num_ctas=4),
    case("p_matmul_f16_maxnreg", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 32), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}], 3, MM_F16_TOL, maxnreg=128),
    # transposed operands: A stored K x M, B stored N x K (strides say so)
    case("p_matmul_f16_at", K + "matmul.py", "matmul_kernel",
         [T("in", "fp16", ["K", "M"]), T("in", "fp16", ["K", "N"]), T("out", "fp16", ["M", "N"])]
         + MM_SIZES_PARAMS + [S("i32", "1"), S("i32", "M"), S("i32", "N"), S("i32", "1"), S("i32", "N"),
                              S("i32", "1")],
         _mm_cx(64, 64, 32), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}, {"M": 256, "N": 512, "K": 128}],
         3, MM_F16_TOL),
    case("p_matmul_trans_b", DOTS, "matmul_bt_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["N", "K"]), T("out", "fp16", ["M", "N"])] + MM_SIZES_PARAMS,
         {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)",
         [{"M": 1000, "N": 1000, "K": 1000}, {"M": 17, "N": 136, "K": 40}, {"M": 256, "N": 512, "K": 128}],
         3, MM_F16_TOL, num_warps=8),
    case("p_matmul_f16_bt", K + "matmul.py", "matmul_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["N", "K"]), T("out", "fp16", ["M", "N"])]
         + MM_SIZES_PARAMS + [S("i32", "K"), S("i32", "1"), S("i32", "1"), S("i32", "K"), S("i32", "N"),
                              S("i32", "1")],
         _mm_cx(64, 64, 32), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}, {"M": 256, "N": 512, "K": 128}],
         3, MM_F16_TOL),
    # more warps than 64-row blocks: wgmma's warpgroups split N (sm_90a),
    # B N-major (each group's columns start mid-panel at 64 x 64) and K-major
    case("p_matmul_f16_64x128_w8", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(64, 128, 64), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}, {"M": 64, "N": 128, "K": 64}], 3,
         MM_F16_TOL, num_warps=8, num_stages=3),
    case("p_matmul_f16_64x64_w8", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(64, 64, 32), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}, {"M": 17, "N": 200, "K": 40}], 3,
         MM_F16_TOL, num_warps=8),
    case("p_matmul_f16_bt_w8", K + "matmul.py", "matmul_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["N", "K"]), T("out", "fp16", ["M", "N"])]
         + MM_SIZES_PARAMS + [S("i32", "K"), S("i32", "1"), S("i32", "1"), S("i32", "K"), S("i32", "N"),
                              S("i32", "1")],
         _mm_cx(64, 128, 64), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}, {"M": 256, "N": 512, "K": 128}],
         3, MM_F16_TOL, num_warps=8),
    case("p_matmul_f16_128x128_w16", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 64), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}], 3, MM_F16_TOL, num_warps=16,
         num_stages=3),
] + [
    case("p_matmul_ns%d" % ns, K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(64, 64, 32), MM_GRID, [{"M": 512, "N": 384, "K": 1000}, {"M": 64, "N": 64, "K": 32}], 3,
         MM_F16_TOL, num_stages=ns)
    for ns in (1, 2, 3, 4, 5)
] + [
    case("p_matmul_tf32_div4", K + "matmul.py", "matmul_fp32_kernel",
         [T("in", "fp32", ["M", "K"]), T("in", "fp32", ["K", "N"]), T("out", "fp32", ["M", "N"])]
         + MM_SIZES_PARAMS, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", [{"M": 100, "N": 36, "K": 44}, {"M": 1000, "N": 1000, "K": 1004}],
         3, MM_TF32_TOL, tilec_flags=["-s", "*fp32:16, *fp32:16, *fp32:16, i32:4, i32:4, i32:4"]),
    case("p_matmul_tf32", K + "matmul.py", "matmul_fp32_kernel",
         [T("in", "fp32", ["M", "K"]), T("in", "fp32", ["K", "N"]), T("out", "fp32", ["M", "N"])]
         + MM_SIZES_PARAMS, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", [{"M": 17, "N": 17, "K": 17}, {"M": 1000, "N": 1000, "K": 1000}],
         3, MM_TF32_TOL),
    # K offsets carried and masked along both operands' K: from 3 by 2, and
    # with packed 4-bit weights unpacked by interleaves (passes/carried.c)
    case("p_matmul_carried_k", DOTS, "matmul_carried_k_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["K", "N"]), T("out", "fp16", ["M", "N"])] + MM_SIZES_PARAMS,
         {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "STEP_FROM": 3}, "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)",
         [{"M": 1000, "N": 1000, "K": 1000}, {"M": 17, "N": 136, "K": 40}], 3, MM_F16_TOL),
    case("p_matmul_packed_w4", DOTS, "matmul_packed_w4_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "i32", ["K", "N // 8"], "randint:-2147483648:2147483647"),
          T("in", "i32", ["cdiv(K, 128)", "N // 8"], "randint:-2147483648:2147483647"),
          T("in", "fp16", ["cdiv(K, 128)", "N"], "uniform:0.001:0.01"), T("out", "fp16", ["M", "N"])]
         + MM_SIZES_PARAMS, {"GROUP": 128, "BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 32},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)",
         [{"M": 16, "N": 4096, "K": 4096}, {"M": 7, "N": 1000, "K": 1000}], 3, tol(5e-2, 5e-2)),
    case("p_matmul_bias_gelu", DOTS, "matmul_bias_gelu_kernel",
         MM_PARAMS[:2] + [T("in", "fp16", ["N"]), MM_PARAMS[2]] + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 32), MM_GRID, [{"M": 1000, "N": 1000, "K": 1000}, {"M": 256, "N": 512, "K": 64}], 3,
         MM_F16_TOL, num_warps=8),
    case("p_matmul_bias_first", DOTS, "matmul_bias_first_kernel",
         MM_PARAMS[:2] + [T("in", "fp16", ["N"]), MM_PARAMS[2]] + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 32), MM_GRID, [{"M": 77, "N": 1000, "K": 768}, {"M": 256, "N": 512, "K": 64}], 3,
         MM_F16_TOL, num_warps=4, num_stages=4),
    case("p_bmm_bf16", DOTS, "bmm_kernel",
         [T("in", "bf16", ["B", "M", "K"]), T("in", "bf16", ["B", "K", "N"]), T("out", "bf16", ["B", "M", "N"])]
         + MM_SIZES_PARAMS + [S("i32", "M * K"), S("i32", "K"), S("i32", "K * N"), S("i32", "N"),
                              S("i32", "M * N"), S("i32", "N")],
         {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), B",
         [{"B": 3, "M": 100, "N": 257, "K": 70}, {"B": 2, "M": 512, "N": 256, "K": 1024}], 3, tol(2e-2, 1e-2),
         grid_in_blob=False),
    case("p_dot3d", DOTS, "dot3d_kernel",
         [T("in", "fp16", ["b", "m", "k"]), T("in", "fp16", ["b", "k", "n"]), T("out", "fp32", ["b", "m", "n"])],
         lambda s: {"B": s["b"], "M": s["m"], "N": s["n"], "K": s["k"]}, "1",
         [{"b": 2, "m": 16, "n": 16, "k": 16}, {"b": 4, "m": 32, "n": 64, "k": 32}], 3, MM_BF16_TOL),
    # 3-D dots of every kind the tensor cores take (each batch index an mma.sync dot)
    case("p_dot3d_tf32", DOTS, "dot3d_kernel",
         [T("in", "fp32", ["b", "m", "k"]), T("in", "fp32", ["b", "k", "n"]), T("out", "fp32", ["b", "m", "n"])],
         lambda s: {"B": s["b"], "M": s["m"], "N": s["n"], "K": s["k"]}, "1",
         [{"b": 8, "m": 16, "n": 16, "k": 16}, {"b": 2, "m": 64, "n": 32, "k": 32}], 3, MM_TF32_TOL),
    case("p_dot3d_i8", DOTS, "dot3d_kernel",
         [T("in", "i8", ["b", "m", "k"], "int:-128:128"), T("in", "i8", ["b", "k", "n"], "int:-128:128"),
          T("out", "i32", ["b", "m", "n"])],
         lambda s: {"B": s["b"], "M": s["m"], "N": s["n"], "K": s["k"]}, "1",
         [{"b": 2, "m": 16, "n": 16, "k": 32}, {"b": 4, "m": 32, "n": 64, "k": 64}], 3),
    case("bench_dot3d_f16", DOTS, "dot3d_grid_kernel",
         [T("in", "fp16", ["nb", "m", "k"]), T("in", "fp16", ["nb", "k", "n"]), T("out", "fp32", ["nb", "m", "n"])],
         lambda s: {"B": 4, "M": s["m"], "N": s["n"], "K": s["k"]}, "cdiv(nb, B)",
         [{"nb": 16384, "m": 64, "n": 64, "k": 64}], 3, MM_BF16_TOL,
         grid_in_blob=False, bench="batched tl.dot on 3-D blocks fp16, 4x64x64x64 per program, 16384 batches",
         flops="2 * nb * m * n * k"),
    case("p_matmul_int8", DOTS, "matmul_int8_kernel",
         [T("in", "i8", ["M", "K"], "int:-128:128"), T("in", "i8", ["K", "N"], "int:-128:128"),
          T("out", "i32", ["M", "N"])] + MM_SIZES_PARAMS, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", [{"M": 17, "N": 17, "K": 17}, {"M": 1000, "N": 1000, "K": 1000}],
         3),
    # A's rows 257 bytes apart and no masks: ring copies of 1-byte pieces
    # (runs of 16 from each run's first byte), each loaded on its own
    case("p_matmul_int8_strided", DOTS, "matmul_int8_strided_kernel",
         [T("in", "i8", ["M", "K + 1"], "int:-128:128"), T("in", "i8", ["K", "N"], "int:-128:128"),
          T("out", "i32", ["M", "N"])] + MM_SIZES_PARAMS + [S("i32", "K + 1")],
         {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64}, "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)",
         [{"M": 128, "N": 64, "K": 256}], 3),
    case("p_matmul_int8_nt", DOTS, "matmul_int8_nt_kernel",
         [T("in", "i8", ["M", "K"], "int:-128:128"), T("in", "i8", ["N", "K"], "int:-128:128"),
          T("out", "i32", ["M", "N"])] + MM_SIZES_PARAMS, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)",
         [{"M": 17, "N": 17, "K": 17}, {"M": 1000, "N": 1000, "K": 1000}, {"M": 512, "N": 384, "K": 1024}], 3),
    case("p_matmul_int8_nt_w8", DOTS, "matmul_int8_nt_kernel",
         [T("in", "i8", ["M", "K"], "int:-128:128"), T("in", "i8", ["N", "K"], "int:-128:128"),
          T("out", "i32", ["M", "N"])] + MM_SIZES_PARAMS, {"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", [{"M": 1000, "N": 1000, "K": 1000}, {"M": 64, "N": 128, "K": 64}], 3,
         num_warps=8),
    case("p_matmul_f16acc", DOTS, "matmul_f16acc_kernel",
         [T("in", "fp16", ["M", "K"], "uniform:-1:1"), T("in", "fp16", ["K", "N"], "uniform:-1:1"),
          T("out", "fp16", ["M", "N"])] + MM_SIZES_PARAMS, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", [{"M": 17, "N": 17, "K": 17}, {"M": 500, "N": 300, "K": 256}],
         3, tol(0.1, 2e-2)),
]

# Fused attention forward: head dims 64 and 128, causal (STAGE 3) and not (1).
ATTN_PARAMS = [T("in", "fp16", ["Z", "H", "N_CTX", "D"]), T("in", "fp16", ["Z", "H", "N_CTX", "D"]),
               T("in", "fp16", ["Z", "H", "N_CTX", "D"]), T("out", "fp16", ["Z", "H", "N_CTX", "D"]),
               S("fp32", "0.5"), S("i32", "H * N_CTX * D"), S("i32", "N_CTX * D"), S("i32", "D"),
               S("i32", "H"), S("i32", "N_CTX")]
ATTN_GRID = "cdiv(N_CTX, BLOCK_M), Z * H"
ATTN_TOL = tol(1e-2, 1e-2)


def _attn_cx(stage, **extra):
    return lambda s: dict({"HEAD_DIM": s["D"], "BLOCK_M": 128, "BLOCK_N": 64, "STAGE": stage}, **extra)


def _attn_warps(s):
    return 8 if s["D"] >= 128 else 4


CASES += [
    case("p_attn_%s" % name, ATTN, "attn_fwd", ATTN_PARAMS, _attn_cx(stage), ATTN_GRID,
         [{"Z": 1, "H": 2, "N_CTX": 128, "D": 64}, {"Z": 2, "H": 3, "N_CTX": 1024, "D": 64},
          {"Z": 1, "H": 2, "N_CTX": 512, "D": 128}], 3, ATTN_TOL, _attn_warps, grid_in_blob=False)
    for name, stage in (("full", 1), ("causal", 3))
] + [
    # each program's 128 query rows split over a cluster of 2 (Triton runs
    # one CTA per program: the oracle all the same)
    case("p_attn_%s_ctas2" % name, ATTN, "attn_fwd", ATTN_PARAMS, _attn_cx(stage), ATTN_GRID,
         [{"Z": 1, "H": 2, "N_CTX": 128, "D": 64}, {"Z": 2, "H": 3, "N_CTX": 1024, "D": 64},
          {"Z": 1, "H": 2, "N_CTX": 512, "D": 128}], 3, ATTN_TOL, _attn_warps, grid_in_blob=False,
         tilec_flags=["-nc", "2"])
    for name, stage in (("full", 1), ("causal", 3))
]

# attention at any N_CTX (query rows and keys past it masked)
def _attn_ragged_cx(s):
    return {"HEAD_DIM": s["D"], "BLOCK_M": 128, "BLOCK_N": 64}


CASES += [
    # 64 query rows in 8 warps: both dots' warpgroups split N, P staged for the second
    case("p_attn_m64_w8", ATTN, "attn_fwd_ragged", ATTN_PARAMS,
         lambda s: {"HEAD_DIM": s["D"], "BLOCK_M": 64, "BLOCK_N": 64}, ATTN_GRID,
         [{"Z": 1, "H": 2, "N_CTX": 200, "D": 64}, {"Z": 1, "H": 2, "N_CTX": 1000, "D": 128}], 3, ATTN_TOL,
         num_warps=8, grid_in_blob=False),
    case("p_attn_ragged", ATTN, "attn_fwd_ragged", ATTN_PARAMS, _attn_ragged_cx, ATTN_GRID,
         [{"Z": 1, "H": 2, "N_CTX": 1, "D": 64}, {"Z": 2, "H": 3, "N_CTX": 200, "D": 64},
          {"Z": 1, "H": 2, "N_CTX": 1000, "D": 128}, {"Z": 1, "H": 1, "N_CTX": 4097, "D": 64}], 3, ATTN_TOL,
         _attn_warps, grid_in_blob=False),
    # the next block's scores before this block's softmax (N_CTX a multiple of BLOCK_N)
    case("p_attn_ahead", ATTN, "attn_fwd_ahead", ATTN_PARAMS, _attn_ragged_cx, ATTN_GRID,
         [{"Z": 1, "H": 2, "N_CTX": 128, "D": 64}, {"Z": 2, "H": 3, "N_CTX": 1024, "D": 64},
          {"Z": 1, "H": 2, "N_CTX": 512, "D": 128}], 3, ATTN_TOL, _attn_warps, grid_in_blob=False),
]

# the same attention through device-side descriptors (tutorial 06's TMA
# form): tile builds their maps at launch, Triton on the GPU
ATTN_DESC_PARAMS = ATTN_PARAMS[:5] + [S("i32", "Z"), S("i32", "H"), S("i32", "N_CTX")]
CASES += [
    case("p_attn_desc_%s" % name, ATTN, "attn_fwd_desc", ATTN_DESC_PARAMS, _attn_cx(stage), ATTN_GRID,
         [{"Z": 1, "H": 2, "N_CTX": 128, "D": 64}, {"Z": 2, "H": 3, "N_CTX": 1024, "D": 64},
          {"Z": 1, "H": 2, "N_CTX": 512, "D": 128}], 3, ATTN_TOL, _attn_warps, grid_in_blob=False)
    for name, stage in (("full", 1), ("causal", 3))
]
# tutorial 06's fp8 mode through device-side descriptors: Q, K and V in
# e5m2, V stored transposed ([Z, H, D, N_CTX]) so that both dots' operands
# are K-major (wgmma's 8-bit operands must be), P cast to e5m2
ATTN_FP8_PARAMS = [T("in", "fp8e5", ["Z", "H", "N_CTX", "D"]), T("in", "fp8e5", ["Z", "H", "N_CTX", "D"]),
                   T("in", "fp8e5", ["Z", "H", "D", "N_CTX"]), T("out", "fp16", ["Z", "H", "N_CTX", "D"]),
                   S("fp32", "0.5"), S("i32", "Z"), S("i32", "H"), S("i32", "N_CTX")]
ATTN_FP8_TOL = tol(2e-2, 2e-2)
CASES += [
    case("p_attn_desc_fp8_%s" % name, ATTN, "attn_fwd_desc", ATTN_FP8_PARAMS, _attn_cx(stage, FP8=True), ATTN_GRID,
         [{"Z": 1, "H": 2, "N_CTX": 128, "D": 64}, {"Z": 2, "H": 3, "N_CTX": 1024, "D": 64},
          {"Z": 1, "H": 2, "N_CTX": 512, "D": 128}], 3, ATTN_FP8_TOL, _attn_warps, grid_in_blob=False)
    for name, stage in (("full", 1), ("causal", 3))
] + [
    # sm_80's code: the dots' fp8 fragments widened to fp16 in registers; P
    # narrowed to e5m2 by sm_80's rule, as Triton's sm_80 build narrows it
    # (its native build rounds P otherwise), so that build is the oracle
    case("p_attn_desc_fp8_sm80_%s" % name, ATTN, "attn_fwd_desc", ATTN_FP8_PARAMS, _attn_cx(stage, FP8=True),
         ATTN_GRID, [{"Z": 1, "H": 2, "N_CTX": 128, "D": 64}, {"Z": 2, "H": 3, "N_CTX": 1024, "D": 64},
                     {"Z": 1, "H": 2, "N_CTX": 512, "D": 128}], 3, ATTN_FP8_TOL, _attn_warps, grid_in_blob=False,
         arch="sm_80", triton_sm80=True)
    for name, stage in (("full", 1), ("causal", 3))
]
# 2 stages: rings of 3 tiles (one ahead, one spare), whose odd count of
# 8-byte barriers left the scratch above them 8 bytes off 16 (the staged Q's
# 16-byte stores faulted with a misaligned address)
CASES += [
    case("p_attn_desc_bn128_ns2", ATTN, "attn_fwd_desc", ATTN_DESC_PARAMS,
         lambda s: {"HEAD_DIM": s["D"], "BLOCK_M": 128, "BLOCK_N": 128, "STAGE": 1}, ATTN_GRID,
         [{"Z": 1, "H": 2, "N_CTX": 256, "D": 128}, {"Z": 2, "H": 1, "N_CTX": 640, "D": 128}], 3, ATTN_TOL,
         num_warps=8, num_stages=2, grid_in_blob=False),
]
# warp_specialize=True, 8 warps: on sm_90a a producer warp issues the K and V
# copies and the two consumer warpgroups take turns at issuing their dots
# (nvptx/warpspec.c); the causal kernel's first loop (off the diagonal) gets
# the producer, its diagonal loop (rings of its own) runs on the consumers
# as without it, with a warning. The plain kernel's d128 instances above get
# the same producer warp group and turns unasked (passes/partition.c: two
# dots, 8 warps, rings filling the SM), the causal one for its first loop
CASES += [
    case("p_attn_desc_ws_%s" % name, ATTN, "attn_fwd_desc", ATTN_DESC_PARAMS,
         _attn_cx(stage, WARP_SPECIALIZE=True), ATTN_GRID,
         [{"Z": 1, "H": 2, "N_CTX": 128, "D": 64}, {"Z": 2, "H": 3, "N_CTX": 1024, "D": 64},
          {"Z": 1, "H": 2, "N_CTX": 384, "D": 128}, {"Z": 1, "H": 2, "N_CTX": 512, "D": 128}], 3, ATTN_TOL,
         num_warps=8, grid_in_blob=False)
    for name, stage in (("full", 1), ("causal", 3))
]

# --- language constructs of real kernels (tests/gpu/kernels/lang.py) --------

LANG = "tests/gpu/kernels/lang.py"
XENT_SIZES = [{"M": 1, "N": 7}, {"M": 1023, "N": 100}, {"M": 2**20 + 7, "N": 8}]


def _lang_ew(id, kernel, params, tol=EXACT, block=1024):
    return case(id, LANG, kernel, params, {"BLOCK": block}, "cdiv(n, BLOCK)", SIZES_1D[:3], 1, tol)


CASES += [
    # labels in [-1, 7): -1 rows leave early with 0
    case("lang_xent_ignore_index", LANG, "xent_rows_kernel",
         [T("in", "fp32", ["M", "N"]), T("in", "i32", ["M"], "randint:-1:7"), T("out", "fp32", ["M"]),
          S("i32", "N"), S("i32", "-1")],
         lambda s: {"BLOCK": next_pow2(s["N"])}, "M", XENT_SIZES, 2, tol(1e-4, 1e-5),
         grid_in_blob=False),
    _lang_ew("lang_early_helpers", "early_helpers_kernel",
             [_n("fp32"), T("in", "i32", ["cdiv(n, 1024)"], "randint:-10:10"), _n("fp32", "out"),
              _n("fp32", "out"), N_]),
    _lang_ew("lang_nested_return", "nested_return_kernel", [_n("fp32"), _n("fp32", "out"), N_],
             tol=tol(1e-5, 1e-6), block=128),
    _lang_ew("lang_branch_temps", "branch_temps_kernel", [_n("fp32"), _n("fp32", "out"), N_],
             block=256),
]
# (row_max_kernel's `tl.float32(-float("inf"))` has no GPU case: Triton 3.6
# refuses to call a dtype, so there is nothing to compare with; the CPU
# suite checks it against C.)

CASES += [
    # module-level if/try imports; clean_source keeps them whole for Triton
    # the case id names the blob, so `lang_param_names_module` clashes with a generated symbol
    _lang_ew("lang_param_names", "param_names_kernel",
             [_n("fp32"), N_, _n("fp32", "out"), S("i32", "-2"), S("i32", "5"), S("i64", "2**40 + 7"),
              S("fp32", "0.5"), S("i8", "-3"), S("i32", "11")]),
    _lang_ew("lang_imports", "imports_kernel", [_n("fp32"), _n("fp32", "out"), N_], tol=APPROX)
    | {"file": "tests/gpu/kernels/lang_imports.py"},
]

# scans (tl.cumsum, tl.cumprod, tl.associative_scan): per-block scans at the
# 1-D sizes, block sizes that need one or several CTA-tile repetitions per
# thread, rows, columns (warps along the axis), tuples with a combine that
# does not commute (exact in int32)
_SCAN_1D = SIZES_1D[:3]


def _cumsum_case(id, dt, block, rev, warps=4, tol_=SUM_TOL):
    init = "randint:-1000:1000" if dt == "i32" else "randn"
    return case(id, LANG, "cumsum_blocks_kernel", [_n(dt, init=init), _n(dt, "out"), N_],
                {"BLOCK": block, "REVERSE": rev}, "cdiv(n, BLOCK)", _SCAN_1D, 2,
                EXACT if dt == "i32" else tol_, warps)


_SCAN_TILE_SIZES = [{"M": 1, "N": 1}, {"M": 100, "N": 257}, {"M": 1823, "N": 781}]
CASES += [
    _cumsum_case("scan_cumsum_f32", "fp32", 1024, False),
    _cumsum_case("scan_cumsum_f32_rev", "fp32", 1024, True),
    _cumsum_case("scan_cumsum_i32", "i32", 1024, False),
    _cumsum_case("scan_cumsum_i32_rev_4096", "i32", 4096, True, warps=8),
    _cumsum_case("scan_cumsum_i32_b32", "i32", 32, False, warps=1),
    _cumsum_case("scan_cumsum_i32_b64_w4", "i32", 64, False, warps=4),
    case("scan_cumprod_rev_f32", LANG, "cumprod_rev_kernel",
         [_n("fp32", init="uniform:0.999:1.001"), _n("fp32", "out"), N_], {"BLOCK": 512},
         "cdiv(n, BLOCK)", _SCAN_1D, 2, tol(1e-5, 1e-5)),
    case("scan_rows_f32", LANG, "cumsum_rows_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M", "N"]), S("i32", "N")],
         lambda s: {"BLOCK_N": next_pow2(s["N"])}, "M",
         [{"M": 1, "N": 1}, {"M": 37, "N": 1000}, {"M": 300, "N": 4097}], 2, SUM_TOL,
         lambda s: 8 if next_pow2(s["N"]) >= 2048 else 4, grid_in_blob=False),
] + [
    case("scan_tile_i32_axis%d_%dx%d" % (ax, bm, bn), LANG, "scan_tile_kernel",
         [T("in", "i32", ["M", "N"], "randint:-1000:1000"), T("out", "i32", ["M", "N"]), S("i32", "M"),
          S("i32", "N")], {"BLOCK_M": bm, "BLOCK_N": bn, "AXIS": ax}, "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)",
         _SCAN_TILE_SIZES, 2)
    for ax, bm, bn in ((0, 128, 16), (1, 16, 128), (0, 32, 32), (1, 64, 64))
] + [
    case("scan_recurrence_i32%s" % ("_rev" if rev else ""), LANG, "recurrence_kernel",
         [_n("i32", init="randint:-1000:1000"), _n("i32", init="randint:-20:20"), _n("i32", "out"),
          _n("i32", "out"), _n("i32", "out"), N_], {"BLOCK": 1024, "REVERSE": rev}, "cdiv(n, BLOCK)",
         _SCAN_1D, 2)
    for rev in (False, True)
]

# tl.reduce with @jit combine functions: a (max, first index) tuple along
# rows (ties from a narrow range), column sums with keep_dims and whole-block
# sums (axis=None), int32 so that every order is exact; blocks of few rows
# and many columns put warps along the reduced axis (shared memory)
_REDUCE_FN_PARAMS = [T("in", "i32", ["M", "N"], "randint:-20:20"), T("out", "i32", ["M"]),
                     T("out", "i32", ["M"]), T("out", "i32", ["cdiv(M, %d)", "N"]),
                     T("out", "i32", ["cdiv(M, %d)"]), S("i32", "M"), S("i32", "N")]
CASES += [
    case("reduce_fn_i32_bm%d" % bm, LANG, "reduce_fn_kernel",
         [dict(p, shape=[d % bm if "%d" in d else d for d in p["shape"]]) if p["kind"] == "tensor" else p
          for p in _REDUCE_FN_PARAMS],
         lambda s, bm=bm: {"BLOCK_M": bm, "BLOCK_N": next_pow2(s["N"])}, "cdiv(M, BLOCK_M)",
         [{"M": 1, "N": 1}, {"M": 100, "N": 37}, {"M": 1000, "N": 300}], 2, EXACT, warps,
         grid_in_blob=False)
    for bm, warps in ((8, 4), (2, 8))
]

# shape ops: tl.join, tl.interleave, tl.split, tl.flip along the last dim and
# dim 0, and tl.cat's sum and maximum (Triton's cat may reorder), per block
# of int32; the flipped and split outputs are defined where the block is full
CASES += [
    case("shapes_i32_b%d" % block, LANG, "shapes_kernel",
         [_n("i32", init="randint:-1000:1000"), _n("i32", init="randint:-1000:1000"),
          T("out", "i32", ["n", "2"]), T("out", "i32", ["2 * n"]), T("out", "i32", ["cdiv(n, 2)"]),
          T("out", "i32", ["cdiv(n, 2)"]), _n("i32", "out"), _n("i32", "out"),
          T("out", "i32", ["2 * cdiv(n, %d)" % block]), N_],
         {"BLOCK": block}, "cdiv(n, BLOCK)", [{"n": 1000}, {"n": 1024}, {"n": 2**20}], 2, EXACT, warps)
    for block, warps in ((64, 1), (1024, 4))
]

# tl.sort (both ways) and tl.topk on rows: n rows of N, ROWS per program
# (sort and topk in kernels of their own: one Triton may lack)
def _sort_case(id, dt, init, rows, n, k, warps):
    sort = case(id, LANG, "sort_kernel",
                [T("in", dt, ["n", str(n)], init), T("out", dt, ["n", str(n)]), T("out", dt, ["n", str(n)]),
                 S("i32", "n")],
                {"ROWS": rows, "N": n}, "cdiv(n, ROWS)", [{"n": 1}, {"n": 1000}], 2, EXACT, warps)
    top = case(id.replace("sort_", "topk_"), LANG, "topk_kernel",
               [T("in", dt, ["n", str(n)], init), T("out", dt, ["n", str(k)]), S("i32", "n")],
               {"ROWS": rows, "N": n, "K": k}, "cdiv(n, ROWS)", [{"n": 1}, {"n": 1000}], 2, EXACT, warps)
    return [sort, top]


CASES += (
    _sort_case("sort_f32_r4_n64_k8", "fp32", "randn", 4, 64, 8, 4)
    + _sort_case("sort_i32_r1_n1024_k16", "i32", "randint:-100:100", 1, 1024, 16, 4)
    + _sort_case("sort_f16_r16_n32_k32", "fp16", "randn", 16, 32, 32, 2)
    # NaNs, infinities, -0.0 and subnormals: the same network, the same result
    + _sort_case("sort_f32_specials_r2_n128_k4", "fp32", "specials", 2, 128, 4, 4)
)

# tl.gather along both axes and tl.histogram (with and without a mask) on
# P tiles of 8 x BLOCK; indices in [0, BLOCK), so the histogram's values are
# inside its bins (Triton leaves others to its lowering)
def _gather_case(id, block, warps):
    return case(id, LANG, "gather_hist_kernel",
                [T("in", "fp32", ["P", "8", str(block)]), T("in", "i32", ["P", "8", str(block)], "randint:0:%d" % block),
                 T("out", "fp32", ["P", "8", str(block)]), T("out", "fp32", ["P", "8", str(block)]),
                 T("out", "i32", ["P", str(block)]), T("out", "i32", ["P", str(block)]), S("i32", "n")],
                {"BLOCK": block, "BINS": block}, "P", [{"P": 1, "n": 5}, {"P": 300, "n": 100}], 2, EXACT, warps,
                grid_in_blob=False)


CASES += [_gather_case("gather_hist_b32", 32, 4), _gather_case("gather_hist_b256", 256, 8)]

# 3-D blocks in every kind of op (tests/kernels/tiles3d.py): program p works
# on block p of P blocks of A x B x C, at shapes of 2 to 32 per dim; each op
# along every axis it takes (sort: the last only, as Triton)
T3D = K + "tiles3d.py"
T3D_SIZES = [{"P": 1}, {"P": 300}]


def _t3d(id, kernel, params, shape, tol=EXACT, extra=None):
    cx = dict(zip("ABC", shape))
    cx.update(extra or {})
    return case("t3d_%s_%dx%dx%d" % ((id,) + tuple(shape)), T3D, kernel, params, cx, "P", T3D_SIZES, 2, tol,
                grid_in_blob=False)


def _blocks(role, dtype, n, init="randn"):
    return T(role, dtype, ["P", str(n)], init)


def _reduced(shape, axis):
    return shape[0] * shape[1] * shape[2] // shape[axis]


_S1, _S2, _S3 = (2, 4, 8), (4, 8, 16), (8, 2, 32)
CASES += [
    _t3d("where", "where3d_kernel",
         [_blocks("in", "fp32", 512), T("in", "fp32", ["16"]), _blocks("out", "fp32", 512), S("i32", "P * 512 - 5")],
         _S2, tol(1e-6, 1e-6)),
    _t3d("reshape_permute", "reshape_permute_kernel", [_blocks("in", "fp32", 64), _blocks("out", "fp32", 64)], _S1),
    _t3d("trans", "trans3d_kernel", [_blocks("in", "fp32", 512), _blocks("out", "fp32", 512)], _S3),
    _t3d("outer_sum", "outer_sum_kernel",
         [_blocks("in", "fp32", 16), _blocks("in", "fp32", 64), _blocks("out", "fp32", 256)], _S3, tol(1e-5, 1e-5)),
    _t3d("join_split", "join_split3d_kernel",
         [_blocks("in", "fp32", 64), _blocks("in", "fp32", 64), _blocks("out", "fp32", 128),
          _blocks("out", "fp32", 64)], _S1),
] + [
    c for ax in range(3) for c in (
        _t3d("reduce_axis%d" % ax, "reduce3d_kernel",
             [_blocks("in", "fp32", 512)] + [_blocks("out", dt, _reduced(_S2, ax)) for dt in ("fp32", "fp32", "i32")],
             _S2, tol(1e-5, 1e-5), {"AXIS": ax}),
        _t3d("reduce_fn_axis%d" % ax, "reduce_fn3d_kernel",
             [_blocks("in", "fp32", 512), _blocks("out", "fp32", _reduced(_S3, ax)),
              _blocks("out", "i32", _reduced(_S3, ax))], _S3, EXACT, {"AXIS": ax}),
        _t3d("scan_axis%d" % ax, "scan3d_kernel",
             [_blocks("in", "i32", 64, "randint:-3:4"), _blocks("out", "i32", 64), _blocks("out", "i32", 64)],
             _S1, EXACT, {"AXIS": ax}),
        _t3d("sort_flip_dim%d" % ax, "sort_flip3d_kernel",
             [_blocks("in", "fp32", 512), _blocks("out", "fp32", 512), _blocks("out", "fp32", 512)],
             _S2, EXACT, {"DIM": ax}),
        _t3d("gather_axis%d" % ax, "gather3d_kernel",
             [_blocks("in", "fp32", 64), _blocks("in", "i32", 64, "randint:0:%d" % _S1[ax]),
              _blocks("out", "fp32", 64)], _S1, EXACT, {"AXIS": ax}),
    )
] + [
    case("t3d_bmm_%s_%dx%dx%dx%d" % (dt, b, m, n, k), T3D, kernel,
         [_blocks("in", dt, b * m * k), _blocks("in", dt, b * k * n), _blocks("out", "fp32", b * m * n)],
         {"BATCH": b, "M": m, "N": n, "K": k}, "P", T3D_SIZES, 3, tol(1e-4, 1e-4), grid_in_blob=False)
    for dt, kernel, b, m, n, k in (("fp32", "bmm_kernel", 2, 16, 32, 16), ("fp16", "bmm_fp16_kernel", 4, 16, 16, 32))
]

# tl.static_print/static_assert/device_assert/assert/print/device_print in a
# kernel compiled as usual: the asserts are left out on both sides (no
# TRITON_DEBUG), so values in [0, 100) or not, the outputs agree
CASES += [
    case("lang_debug_compiled_out", LANG, "debug_kernel", [_n("fp32", init="uniform:0:200"), _n("fp32", "out"), N_],
         {"LIMIT": 100, "BLOCK": 8}, "1", [{"n": 1}, {"n": 8}], 2),
]

# tl.inline_asm_elementwise: Triton's documented example (uint8 packed four
# to a register, two results) and f16x2 pairs; pointers as operands;
# triton.language.extra.cuda's helpers (values that hold on any GPU)
CASES += [
    case("inline_asm_doc_example", LANG, "inline_asm_kernel",
         [_n("u8", init="randint:0:256"), _n("fp32", init="uniform:-50:300"), _n("i32", "out"), _n("fp32", "out"),
          _n("fp16", "out"), N_], {"BLOCK": 1024}, "cdiv(n, BLOCK)", SIZES_1D[:3], 2),
    case("inline_asm_pointers", K + "lang.py", "inline_asm_ptr_kernel",
         [_n("i32", init="randint:-1000:1000"), _n("i32", "out"), N_], {"BLOCK": 256}, "cdiv(n, BLOCK)", SIZES_1D[:3], 2),
    case("cuda_helpers", LANG, "cuda_helpers_kernel", [T("out", "i32", ["4"])], {}, "1", [{}], 2,
         num_warps=8),
]

# @jit helpers imported from another file of the kernel's source tree
CASES += [
    case("lang_cross_file", "tests/gpu/kernels/cross_file.py", "cross_file_kernel", [_n("fp32"), _n("fp32", "out"), N_],
         {"BLOCK": 1024}, "cdiv(n, BLOCK)", SIZES_1D[:3], 2, tol(1e-6, 1e-6)),
]

# block pointers: tutorial 03's matmul on tl.make_block_ptr/tl.advance (the
# pointers carried by the K loop, boundary_check with zero padding), a block
# copied from an offset before and past the matrix with zero and nan padding,
# and a 1-D block pointer carried through a while loop
_BP_MAT = [T("in", "fp32", ["M", "S"]), T("out", "fp32", ["M", "S"], "zeros"), T("out", "fp32", ["M", "S"], "zeros"),
           T("out", "fp32", ["M", "S"], "zeros"), S("i32", "M"), S("i32", "N"), S("i32", "S")]
CASES += [
    case("block_ptr_matmul_f16", LANG, "block_ptr_matmul_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["K", "N"]), T("out", "fp16", ["M", "N"])]
         + MM_SIZES_PARAMS + MM_STRIDES, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", MM_SIZES, 3, MM_F16_TOL),
    case("block_ptr_copy_f32", LANG, "block_ptr_copy_kernel", _BP_MAT,
         {"BLOCK_M": 32, "BLOCK_N": 64, "OFF_M": -3, "OFF_N": 5}, "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)",
         [{"M": 1, "N": 1, "S": 80}, {"M": 100, "N": 70, "S": 80}, {"M": 1000, "N": 257, "S": 300}], 2),
    case("block_ptr_if_f32", LANG, "block_ptr_if_kernel", [_n("fp32"), _n("fp32", "out"), N_], {"BLOCK": 1024},
         "cdiv(n, BLOCK)", SIZES_1D[:3], 2),
]
# (a block pointer carried through a `while` loop compiles in tile, the
# interpreter checks it in the CPU suite; Triton 3.6's own compile of it
# fails in its pass manager, so there is no oracle to run it against)

CASES += [
    # uniform [0, 2): rows stop where the sum passes the limit, or at n
    case("lang_while_and_or", LANG, "while_and_or_kernel",
         [T("in", "fp32", ["P", "n"], "uniform:0:2"), T("out", "fp32", ["P"]), S("i32", "n"), S("fp32", "7.5")],
         {}, "P", [{"P": 1, "n": 1}, {"P": 1023, "n": 20}, {"P": 4096, "n": 3}], 2, tol(1e-5, 1e-6),
         grid_in_blob=False),
    _lang_ew("lang_umulhi", "umulhi_kernel",
             [_n("i32", init="randint:-2000000000:2000000000"), _n("i32", init="randint:-2000000000:2000000000"),
              _n("i32", "out"), _n("i32", "out"), _n("i64", "out"), N_]),
]

# --- tensor descriptors: Triton 3.6's tutorial 09 (persistent matmul) with
# device-side descriptors (tl.make_tensor_descriptor) and host-side ones
# (TensorDescriptor arguments), against Triton at odd sizes; row lengths
# stay multiples of 8 fp16 (descriptor strides are 16-byte multiples)

DESC = "tests/gpu/kernels/descriptors.py"
DESC_SHAPES = [{"M": 1000, "N": 1000, "K": 1000}, {"M": 77, "N": 136, "K": 40},
               {"M": 1, "N": 8, "K": 8}, {"M": 513, "N": 264, "K": 1024}]
DESC_MM_BT = [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["N", "K"]), T("out", "fp16", ["M", "N"])]
DESC_MM_KN = [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["K", "N"]), T("out", "fp16", ["M", "N"])]
DESC_HOST = [D("in", "fp16", ["M", "K"], ["BLOCK_SIZE_M", "BLOCK_SIZE_K"]),
             D("in", "fp16", ["N", "K"], ["BLOCK_SIZE_N", "BLOCK_SIZE_K"]),
             D("out", "fp16", ["M", "N"], ["BLOCK_SIZE_M", "BLOCK_SIZE_N"])]
DESC_SMS = 132  # the programs of the persistent kernels (an H100's SMs)
DESC_PGRID = "min(%d, cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N))" % DESC_SMS
DESC_PGRID7 = "min(7, cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N))"
MM_PTR_SHAPES = [{"M": 1000, "N": 1008, "K": 1008}, {"M": 300, "N": 528, "K": 32},
                 {"M": 513, "N": 272, "K": 144}, {"M": 77, "N": 144, "K": 48}]
DESC_SHAPES_MANY = [{"M": 1000, "N": 1000, "K": 1000}, {"M": 300, "N": 520, "K": 24},
                    {"M": 513, "N": 264, "K": 136}, {"M": 77, "N": 136, "K": 40}]


def _desc_cx(bm, bn, bk, **extra):
    cx = _mm_cx(bm, bn, bk)
    cx.update(extra)
    return cx


CASES += [
    case("desc_mm_device_persistent", DESC, "matmul_kernel_descriptor_persistent", DESC_MM_BT + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, EPILOGUE_SUBTILE=False, NUM_SMS=DESC_SMS, WARP_SPECIALIZE=False, FLATTEN=True),
         DESC_PGRID, DESC_SHAPES, 3, MM_F16_TOL, num_warps=8),
    case("desc_mm_device_persistent_subtile", DESC, "matmul_kernel_descriptor_persistent", DESC_MM_BT + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, EPILOGUE_SUBTILE=True, NUM_SMS=DESC_SMS, WARP_SPECIALIZE=False, FLATTEN=True),
         DESC_PGRID, DESC_SHAPES, 3, MM_F16_TOL, num_warps=8),
    case("desc_mm_device_persistent_kn", DESC, "matmul_descriptor_persistent_kn", DESC_MM_KN + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, NUM_SMS=DESC_SMS), DESC_PGRID, DESC_SHAPES, 3, MM_F16_TOL, num_warps=8),
    # 7 programs: each runs many tiles, the copies running on from one tile
    # into the next (K 24: one inner iteration, fewer than the copies in
    # flight, so they run two and three tiles ahead)
    case("desc_mm_device_persistent_7", DESC, "matmul_kernel_descriptor_persistent", DESC_MM_BT + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, EPILOGUE_SUBTILE=False, NUM_SMS=7, WARP_SPECIALIZE=False, FLATTEN=True),
         DESC_PGRID7, DESC_SHAPES_MANY, 3, MM_F16_TOL, num_warps=8),
    case("desc_mm_device_persistent_256_7", DESC, "matmul_kernel_descriptor_persistent", DESC_MM_BT + MM_SIZES_PARAMS,
         _desc_cx(128, 256, 64, EPILOGUE_SUBTILE=False, NUM_SMS=7, WARP_SPECIALIZE=False, FLATTEN=True),
         DESC_PGRID7, DESC_SHAPES_MANY, 3, MM_F16_TOL, num_warps=8, num_stages=3),
    case("desc_mm_device_persistent_7_ns4", DESC, "matmul_kernel_descriptor_persistent", DESC_MM_BT + MM_SIZES_PARAMS,
         _desc_cx(64, 128, 64, EPILOGUE_SUBTILE=True, NUM_SMS=7, WARP_SPECIALIZE=False, FLATTEN=True),
         DESC_PGRID7, DESC_SHAPES_MANY, 3, MM_F16_TOL, num_warps=4, num_stages=4),
    case("desc_mm_device_persistent_kn_7", DESC, "matmul_descriptor_persistent_kn", DESC_MM_KN + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, NUM_SMS=7), DESC_PGRID7, DESC_SHAPES_MANY, 3, MM_F16_TOL, num_warps=8),
    # the same under --no-tma, at sizes whose strides are multiples of 16:
    # cp.async rings whose copies run on
    case("desc_mm_device_persistent_7_notma", DESC, "matmul_kernel_descriptor_persistent", DESC_MM_BT + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, EPILOGUE_SUBTILE=False, NUM_SMS=7, WARP_SPECIALIZE=False, FLATTEN=True),
         DESC_PGRID7, MM_PTR_SHAPES, 3, MM_F16_TOL, num_warps=8, tilec_flags=["--no-tma"]),
    case("desc_mm_device_persistent_kn_7_notma", DESC, "matmul_descriptor_persistent_kn", DESC_MM_KN + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, NUM_SMS=7), DESC_PGRID7, MM_PTR_SHAPES, 3, MM_F16_TOL, num_warps=8,
         tilec_flags=["--no-tma"]),
    case("desc_mm_host_persistent_7", DESC, "matmul_kernel_tma_persistent", DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, EPILOGUE_SUBTILE=False, NUM_SMS=7, WARP_SPECIALIZE=False),
         DESC_PGRID7, DESC_SHAPES_MANY, 3, MM_F16_TOL, num_warps=8),
    # at 128x256x64 the rings stay through the epilogue and the result goes
    # out in two pieces through half the scratch (nvptx/tma.c)
    case("desc_mm_host_persistent_256_7", DESC, "matmul_kernel_tma_persistent", DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(128, 256, 64, EPILOGUE_SUBTILE=False, NUM_SMS=7, WARP_SPECIALIZE=False),
         DESC_PGRID7, DESC_SHAPES_MANY, 3, MM_F16_TOL, num_warps=8, num_stages=3),
    # the tutorial's plain persistent matmul (pointers): strides that are
    # multiples of 16 give cp.async rings, whose copies run on from tile to
    # tile (K 32: one K iteration, the copies running two tiles ahead);
    # other sizes load through registers
    case("mm_persistent_ptr", DESC, "matmul_kernel_persistent", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _desc_cx(128, 128, 64, NUM_SMS=DESC_SMS), DESC_PGRID,
         DESC_SHAPES + [{"M": 2000, "N": 2048, "K": 512}], 3, MM_F16_TOL, num_warps=8),
    case("mm_persistent_ptr_7", DESC, "matmul_kernel_persistent", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _desc_cx(128, 128, 64, NUM_SMS=7), DESC_PGRID7, MM_PTR_SHAPES, 3, MM_F16_TOL, num_warps=8),
    case("mm_persistent_ptr_7_256", DESC, "matmul_kernel_persistent", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _desc_cx(128, 256, 64, NUM_SMS=7), DESC_PGRID7, MM_PTR_SHAPES, 3, MM_F16_TOL, num_warps=8),
    case("mm_persistent_ptr_7_ns4", DESC, "matmul_kernel_persistent", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _desc_cx(64, 128, 32, NUM_SMS=7), DESC_PGRID7, MM_PTR_SHAPES + [{"M": 77, "N": 136, "K": 40}], 3,
         MM_F16_TOL, num_warps=4, num_stages=4),
    case("desc_mm_host", DESC, "matmul_kernel_tma", DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, WARP_SPECIALIZE=False), MM_GRID, DESC_SHAPES, 3, MM_F16_TOL, num_warps=8),
    case("desc_mm_host_persistent", DESC, "matmul_kernel_tma_persistent", DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, EPILOGUE_SUBTILE=False, NUM_SMS=DESC_SMS, WARP_SPECIALIZE=False),
         DESC_PGRID, DESC_SHAPES, 3, MM_F16_TOL, num_warps=8),
    # warp_specialize=True: on sm_90a a producer warp issues the TMA copies
    # (nvptx/warpspec.c); 2, 3 and 4 stages, one and two consumer warp
    # groups; inside a persistent loop it is refused with a warning
    case("desc_mm_host_ws", DESC, "matmul_kernel_tma", DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, WARP_SPECIALIZE=True), MM_GRID, DESC_SHAPES, 3, MM_F16_TOL, num_warps=8),
    case("desc_mm_host_ws_256_ns4", DESC, "matmul_kernel_tma", DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(128, 256, 64, WARP_SPECIALIZE=True), MM_GRID, DESC_SHAPES, 3, MM_F16_TOL, num_warps=8,
         num_stages=4),
    case("desc_mm_host_ws_w4_ns2", DESC, "matmul_kernel_tma", DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(64, 128, 64, WARP_SPECIALIZE=True), MM_GRID, DESC_SHAPES, 3, MM_F16_TOL, num_warps=4,
         num_stages=2),
    case("desc_mm_host_persistent_ws", DESC, "matmul_kernel_tma_persistent", DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, EPILOGUE_SUBTILE=False, NUM_SMS=DESC_SMS, WARP_SPECIALIZE=True),
         DESC_PGRID, DESC_SHAPES, 3, MM_F16_TOL, num_warps=8),
    case("desc_axpy_host_f32", DESC, "host_desc_axpy",
         [D("in", "fp32", ["M", "N"], [32, 64]), D("in", "fp32", ["M", "N"], [32, 64]),
          D("out", "fp32", ["M", "N"], [32, 64]), S("fp32", "0.5")],
         {}, "cdiv(M, 32), cdiv(N, 64)",
         [{"M": 1, "N": 4}, {"M": 37, "N": 100}, {"M": 1000, "N": 1000}, {"M": 4099, "N": 1028}], 3,
         tol(1e-6, 1e-6), grid_in_blob=False),
]

# --- benchmarks: one size each, same kernels; softmax with the tutorial's 8 warps


def _desc_mm_bench(iid, bn, ws, num_stages=None):
    """Tutorial 09's host-descriptor matmul at 4096^3, 128 x bn x 64 in 8
    warps, WARP_SPECIALIZE as given."""
    return case(iid, DESC, "matmul_kernel_tma", DESC_HOST + MM_SIZES_PARAMS,
                _desc_cx(128, bn, 64, WARP_SPECIALIZE=ws), MM_GRID, [{"M": 4096, "N": 4096, "K": 4096}], 3,
                MM_F16_TOL, num_warps=8, num_stages=num_stages,
                bench="matmul fp16 4096^3, host-side descriptors, TMA%s (128x%dx64, 8 warps, %d stages)"
                      % (", warp_specialize" if ws else "", bn, num_stages or 3),
                flops="2 * M * N * K", cublas="mm_nt")


BENCH = [
    # tutorial 09's matmuls with host-side descriptors at 4096^3: tile copies
    # their blocks with TMA on sm_90a, and with cp.async under --no-tma
    case("bench_desc_mm_host", DESC, "matmul_kernel_tma", DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, WARP_SPECIALIZE=False), MM_GRID, [{"M": 4096, "N": 4096, "K": 4096}], 3,
         MM_F16_TOL, num_warps=8,
         bench="matmul fp16 4096^3, host-side descriptors, TMA (128x128x64, 8 warps)", flops="2 * M * N * K",
         sm80=True),
    # the same with warp_specialize=True (a producer warp on sm_90a), and at
    # 128x256; cuBLAS on the descriptors' tensors alongside
    _desc_mm_bench("bench_desc_mm_host_ws", 128, True),
    _desc_mm_bench("bench_desc_mm_host_256", 256, False),
    _desc_mm_bench("bench_desc_mm_host_256_ws", 256, True),
    _desc_mm_bench("bench_desc_mm_host_256_ws_ns4", 256, True, num_stages=4),
    case("bench_desc_mm_host_cpasync", DESC, "matmul_kernel_tma", DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, WARP_SPECIALIZE=False), MM_GRID, [{"M": 4096, "N": 4096, "K": 4096}], 3,
         MM_F16_TOL, num_warps=8, tilec_flags=["--no-tma"],
         bench="matmul fp16 4096^3, host-side descriptors, cp.async (--no-tma)", flops="2 * M * N * K"),
    case("bench_desc_mm_host_persistent", DESC, "matmul_kernel_tma_persistent", DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, EPILOGUE_SUBTILE=False, NUM_SMS=DESC_SMS, WARP_SPECIALIZE=False),
         DESC_PGRID, [{"M": 4096, "N": 4096, "K": 4096}], 3, MM_F16_TOL, num_warps=8,
         bench="persistent matmul fp16 4096^3, host-side descriptors, TMA (128x128x64, 8 warps)",
         flops="2 * M * N * K", sm80=True),
] + [
    # the same at 128x256x64 (its rings kept through the epilogue, the result
    # stored in pieces) and at 8192^3, cuBLAS alongside
    case("bench_desc_mm_host_persistent_256%s" % ("" if n == 4096 else "_%d" % n), DESC, "matmul_kernel_tma_persistent",
         DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(128, 256, 64, EPILOGUE_SUBTILE=False, NUM_SMS=DESC_SMS, WARP_SPECIALIZE=False),
         DESC_PGRID, [{"M": n, "N": n, "K": n}], 3, MM_F16_TOL, num_warps=8, num_stages=3,
         bench="persistent matmul fp16 %d^3, host-side descriptors, TMA (128x256x64, 8 warps, 3 stages)" % n,
         flops="2 * M * N * K", cublas="mm_nt")
    for n in (4096, 8192)
] + [
    case("bench_desc_mm_host_persistent_cpasync", DESC, "matmul_kernel_tma_persistent", DESC_HOST + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, EPILOGUE_SUBTILE=False, NUM_SMS=DESC_SMS, WARP_SPECIALIZE=False),
         DESC_PGRID, [{"M": 4096, "N": 4096, "K": 4096}], 3, MM_F16_TOL, num_warps=8, tilec_flags=["--no-tma"],
         bench="persistent matmul fp16 4096^3, host-side descriptors, cp.async (--no-tma)",
         flops="2 * M * N * K"),
    # tutorial 09's persistent matmul with device-side descriptors at 4096^3
    case("bench_desc_mm_persistent", DESC, "matmul_kernel_descriptor_persistent", DESC_MM_BT + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, EPILOGUE_SUBTILE=False, NUM_SMS=DESC_SMS, WARP_SPECIALIZE=False, FLATTEN=True),
         DESC_PGRID, [{"M": 4096, "N": 4096, "K": 4096}], 3, MM_F16_TOL, num_warps=8,
         bench="persistent matmul fp16 4096^3, device-side descriptors (128x128x64, 8 warps)",
         flops="2 * M * N * K", sm80=True),
    case("bench_desc_mm_persistent_kn", DESC, "matmul_descriptor_persistent_kn", DESC_MM_KN + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, NUM_SMS=DESC_SMS), DESC_PGRID, [{"M": 4096, "N": 4096, "K": 4096}], 3,
         MM_F16_TOL, num_warps=8,
         bench="persistent matmul fp16 4096^3, device-side descriptors, B as K x N (128x128x64, 8 warps)",
         flops="2 * M * N * K", sm80=True),
    case("bench_desc_mm_persistent_subtile", DESC, "matmul_kernel_descriptor_persistent", DESC_MM_BT + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, EPILOGUE_SUBTILE=True, NUM_SMS=DESC_SMS, WARP_SPECIALIZE=False, FLATTEN=True),
         DESC_PGRID, [{"M": 4096, "N": 4096, "K": 4096}], 3, MM_F16_TOL, num_warps=8,
         bench="persistent matmul fp16 4096^3, device-side descriptors, subtiled epilogue (EPILOGUE_SUBTILE)",
         flops="2 * M * N * K"),
    # the tutorial's plain persistent matmul (pointers: cp.async rings)
    case("bench_mm_persistent", DESC, "matmul_kernel_persistent", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _desc_cx(128, 128, 64, NUM_SMS=DESC_SMS), DESC_PGRID, [{"M": 4096, "N": 4096, "K": 4096}], 3,
         MM_F16_TOL, num_warps=8,
         bench="persistent matmul fp16 4096^3, pointers (128x128x64, 8 warps)", flops="2 * M * N * K",
         sm80=True),
    case("bench_mm_persistent_256", DESC, "matmul_kernel_persistent", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _desc_cx(128, 256, 64, NUM_SMS=DESC_SMS), DESC_PGRID, [{"M": 4096, "N": 4096, "K": 4096}], 3,
         MM_F16_TOL, num_warps=8,
         bench="persistent matmul fp16 4096^3, pointers (128x256x64, 8 warps)", flops="2 * M * N * K"),
    # the same two with cp.async rings: tile builds the device-side maps at
    # launch (TMA) unless --no-tma
    case("bench_desc_mm_persistent_cpasync", DESC, "matmul_kernel_descriptor_persistent", DESC_MM_BT + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, EPILOGUE_SUBTILE=False, NUM_SMS=DESC_SMS, WARP_SPECIALIZE=False, FLATTEN=True),
         DESC_PGRID, [{"M": 4096, "N": 4096, "K": 4096}], 3, MM_F16_TOL, num_warps=8, tilec_flags=["--no-tma"],
         bench="persistent matmul fp16 4096^3, device-side descriptors, cp.async (--no-tma)",
         flops="2 * M * N * K"),
    case("bench_desc_mm_persistent_kn_cpasync", DESC, "matmul_descriptor_persistent_kn", DESC_MM_KN + MM_SIZES_PARAMS,
         _desc_cx(128, 128, 64, NUM_SMS=DESC_SMS), DESC_PGRID, [{"M": 4096, "N": 4096, "K": 4096}], 3,
         MM_F16_TOL, num_warps=8, tilec_flags=["--no-tma"],
         bench="persistent matmul fp16 4096^3, device-side descriptors, B as K x N, cp.async (--no-tma)",
         flops="2 * M * N * K"),
    case("bench_vadd_f32", EX_ADD, "add_kernel",
         [_n("fp32"), _n("fp32"), _n("fp32", "out"), N_ELEMENTS], {"BLOCK_SIZE": 1024},
         "cdiv(n_elements, BLOCK_SIZE)", [{"n": 2**26}], 1, bench="vector add fp32 2^26"),
    case("bench_silu_bf16", EX_SILU, "silu_kernel", [_n("bf16"), _n("bf16", "out"), N_ELEMENTS],
         {"BLOCK_SIZE": 1024}, "cdiv(n_elements, BLOCK_SIZE)", [{"n": 2**26}], 1, tol(1e-2, 1e-2),
         bench="SiLU bf16 2^26"),
    case("bench_softmax_4096", T2, "softmax_row_kernel", SOFTMAX_ROW_PARAMS, _softmax_cx, "M",
         [{"M": 4096, "N": 4096}], 2, SOFTMAX_TOL, num_warps=8, grid_in_blob=False,
         bench="softmax fp32 4096x4096 (row per program)"),
    case("bench_softmax_p_4096", T2, "softmax_persistent_kernel", SOFTMAX_PERSISTENT_PARAMS,
         _softmax_cx, "min(n_rows, 528)", [{"M": 4096, "N": 4096}], 2, SOFTMAX_TOL,
         num_warps=8,
         bench="softmax fp32 4096x4096 (persistent)"),
    case("bench_layer_norm_f16", T2, "layer_norm_fwd_kernel", _ln_params("fp16"), _ln_cx(2), "M",
         [{"M": 4096, "N": 8192}], 2, tol(2e-3, 2e-3), num_warps=_ln_warps(2), grid_in_blob=False,
         bench="layer norm fwd fp16 4096x8192"),
    # tl.sort of rows, both ways (Triton's bitonic network on both sides)
    case("bench_sort_rows", LANG, "sort_kernel",
         [T("in", "fp32", ["n", "1024"]), T("out", "fp32", ["n", "1024"]), T("out", "fp32", ["n", "1024"]),
          S("i32", "n")],
         {"ROWS": 1, "N": 1024}, "cdiv(n, ROWS)", [{"n": 65536}], 2, EXACT, num_warps=4,
         bench="sort fp32 rows 65536x1024, ascending and descending (row per program)"),
    case("bench_cumsum_rows_4096", LANG, "cumsum_rows_kernel",
         [T("in", "fp32", ["M", "N"]), T("out", "fp32", ["M", "N"]), S("i32", "N")],
         {"BLOCK_N": 4096}, "M", [{"M": 4096, "N": 4096}], 2, SUM_TOL, num_warps=8,
         grid_in_blob=False, bench="row-wise cumsum fp32 4096x4096 (row per program)"),
    case("bench_softmax_odd", T2, "softmax_row_kernel", SOFTMAX_ROW_PARAMS, _softmax_cx, "M",
         [{"M": 1823, "N": 781}], 2, SOFTMAX_TOL, num_warps=8, grid_in_blob=False,
         bench="softmax fp32 1823x781"),
    # the tutorial's fp16 matmul at one fixed config (Triton pipelines it with
    # its default num_stages; tile has no tensor-core lowering yet)
    case("bench_matmul_f16", K + "matmul.py", "matmul_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["K", "N"]), T("out", "fp16", ["M", "N"])]
         + MM_SIZES_PARAMS + MM_STRIDES,
         {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8},
         "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)", [{"M": 2048, "N": 2048, "K": 2048}], 3,
         MM_F16_TOL, bench="matmul fp16 2048^3 (64x64x32, 4 warps)", flops="2 * M * N * K"),
    # the same without pipelining on either side (num_stages 1)
    case("bench_matmul_f16_ns1", K + "matmul.py", "matmul_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["K", "N"]), T("out", "fp16", ["M", "N"])]
         + MM_SIZES_PARAMS + MM_STRIDES,
         {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8},
         "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)", [{"M": 2048, "N": 2048, "K": 2048}], 3,
         MM_F16_TOL, bench="matmul fp16 2048^3 (64x64x32, 4 warps, num_stages 1)",
         flops="2 * M * N * K", num_stages=1),
    case("bench_matmul_tf32", K + "matmul.py", "matmul_fp32_kernel",
         [T("in", "fp32", ["M", "K"]), T("in", "fp32", ["K", "N"]), T("out", "fp32", ["M", "N"])]
         + MM_SIZES_PARAMS, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", [{"M": 2048, "N": 2048, "K": 2048}], 3, MM_TF32_TOL,
         bench="matmul fp32 (tf32) 2048^3 (64x64x32, 4 warps)", flops="2 * M * N * K"),
    case("bench_matmul_f16_128", K + "matmul.py", "matmul_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["K", "N"]), T("out", "fp16", ["M", "N"])]
         + MM_SIZES_PARAMS + MM_STRIDES,
         {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8},
         "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)", [{"M": 2048, "N": 2048, "K": 2048}], 3,
         MM_F16_TOL, num_warps=8, bench="matmul fp16 2048^3 (128x128x32, 8 warps)",
         flops="2 * M * N * K"),
]


# tensor-core rows: the tutorial matmul at 4096^3 with Triton's own configs,
# the epilogue, batch, tf32 and int8 variants, attention; cuBLAS alongside,
# and the sm_80-class code of both sides (PTX, JIT-compiled for this GPU)
MM4096 = [{"M": 4096, "N": 4096, "K": 4096}]
BENCH += [
    case("bench_mm_256x64", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 256, 64), MM_GRID, MM4096, 3, MM_F16_TOL, num_warps=8, num_stages=3,
         bench="matmul fp16 4096^3 (128x256x64, 8 warps, 3 stages)", flops="2 * M * N * K",
         cublas="mm", sm80=True),
    case("bench_mm_128x64", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 64), MM_GRID, MM4096, 3, MM_F16_TOL, num_warps=4, num_stages=4,
         bench="matmul fp16 4096^3 (128x128x64, 4 warps, 4 stages)", flops="2 * M * N * K",
         cublas="mm", sm80=True),
    case("bench_mm_128x32", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 32), MM_GRID, MM4096, 3, MM_F16_TOL, num_warps=4, num_stages=3,
         bench="matmul fp16 4096^3 (128x128x32, 4 warps, 3 stages)", flops="2 * M * N * K",
         cublas="mm", sm80=True),
    # 64 rows in 8 warps: wgmma's two warpgroups split N (sm_90a)
    case("bench_mm_64x256_w8", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(64, 256, 64), MM_GRID, MM4096, 3, MM_F16_TOL, num_warps=8, num_stages=3,
         bench="matmul fp16 4096^3 (64x256x64, 8 warps, 3 stages)", flops="2 * M * N * K", cublas="mm"),
    # thread block clusters (num_ctas=2 on both sides: each program's tile
    # split over the two CTAs of a cluster)
    case("bench_mm_256x64_ctas2", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 256, 64), MM_GRID, MM4096, 3, MM_F16_TOL, num_warps=8, num_stages=3,
         bench="matmul fp16 4096^3 (128x256x64, 8 warps, 3 stages), num_ctas=2", flops="2 * M * N * K",
         num_ctas=2),
    case("bench_mm_128x64_ctas2", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 64), MM_GRID, MM4096, 3, MM_F16_TOL, num_warps=4, num_stages=4,
         bench="matmul fp16 4096^3 (128x128x64, 4 warps, 4 stages), num_ctas=2", flops="2 * M * N * K",
         num_ctas=2),
    case("bench_mm_256x128_ctas2", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(256, 128, 64), MM_GRID, MM4096, 3, MM_F16_TOL, num_warps=8, num_stages=3,
         bench="matmul fp16 4096^3 (256x128x64, 8 warps, 3 stages), num_ctas=2", flops="2 * M * N * K",
         num_ctas=2),
    # sizes that are not multiples of 16: no 16-byte rows, the operand
    # loads cannot become cp.async copies (tutorial 03's config 5)
    case("bench_mm_odd", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 32, 32), MM_GRID, [{"M": 3000, "N": 3000, "K": 3000}], 3, MM_F16_TOL, num_warps=4,
         num_stages=4, bench="matmul fp16 3000^3, unaligned rows (128x32x32, 4 warps, 4 stages)",
         flops="2 * M * N * K", cublas="mm"),
    # unaligned rows in the 128x128x64 config: the operand tiles move in
    # 2-byte pieces on both sides
    case("bench_mm_odd_128x64", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 64), MM_GRID, [{"M": 3000, "N": 3000, "K": 3000}], 3, MM_F16_TOL, num_warps=4,
         num_stages=4, bench="matmul fp16 3000^3, unaligned rows (128x128x64, 4 warps, 4 stages)",
         flops="2 * M * N * K", sm80=True),
    # the same shape with tile's :8 hints (3000 is a multiple of 8: 16-byte
    # rows of fp16), a variant Triton cannot express: its side is its
    # unaligned build, as in the row above
    case("bench_mm_odd_div8", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 32, 32), MM_GRID, [{"M": 3000, "N": 3000, "K": 3000}], 3, MM_F16_TOL, num_warps=4,
         num_stages=4, bench="matmul fp16 3000^3, tile with :8 hints (128x32x32, 4 warps, 4 stages)",
         flops="2 * M * N * K", cublas="mm", tilec_flags=["-s", MM_SIG8]),
    case("bench_mm_odd_div8_256", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 256, 64), MM_GRID, [{"M": 3000, "N": 3000, "K": 3000}], 3, MM_F16_TOL, num_warps=8,
         num_stages=3, bench="matmul fp16 3000^3, tile with :8 hints (128x256x64, 8 warps, 3 stages)",
         flops="2 * M * N * K", cublas="mm", tilec_flags=["-s", MM_SIG8]),
    case("bench_mm_bias_gelu", DOTS, "matmul_bias_gelu_kernel",
         MM_PARAMS[:2] + [T("in", "fp16", ["N"]), MM_PARAMS[2]] + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 32), MM_GRID, MM4096, 3, MM_F16_TOL, num_warps=8,
         bench="matmul + bias + GELU fp16 4096^3 (128x128x32, 8 warps)", flops="2 * M * N * K",
         cublas="mm", sm80=True),
    case("bench_bmm_bf16", DOTS, "bmm_kernel",
         [T("in", "bf16", ["B", "M", "K"]), T("in", "bf16", ["B", "K", "N"]), T("out", "bf16", ["B", "M", "N"])]
         + MM_SIZES_PARAMS + [S("i32", "M * K"), S("i32", "K"), S("i32", "K * N"), S("i32", "N"),
                              S("i32", "M * N"), S("i32", "N")],
         {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), B",
         [{"B": 16, "M": 1024, "N": 1024, "K": 1024}], 3, tol(2e-2, 1e-2), grid_in_blob=False,
         bench="batched matmul bf16 16x1024^3 (64x64x32, 4 warps)", flops="2 * B * M * N * K",
         cublas="bmm", sm80=True),
    # tile's :4 hints: fp32 rows of 3000 elements are 16-byte aligned
    case("bench_mm_tf32_3000_div4", K + "matmul.py", "matmul_fp32_kernel",
         [T("in", "fp32", ["M", "K"]), T("in", "fp32", ["K", "N"]), T("out", "fp32", ["M", "N"])]
         + MM_SIZES_PARAMS, {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", [{"M": 3000, "N": 3000, "K": 3000}], 3, MM_TF32_TOL, num_warps=8,
         bench="matmul fp32 (tf32) 3000^3, tile with :4 hints (128x128x32, 8 warps)", flops="2 * M * N * K",
         cublas="mm", tilec_flags=["-s", "*fp32:16, *fp32:16, *fp32:16, i32:4, i32:4, i32:4"]),
    case("bench_mm_tf32_4096", K + "matmul.py", "matmul_fp32_kernel",
         [T("in", "fp32", ["M", "K"]), T("in", "fp32", ["K", "N"]), T("out", "fp32", ["M", "N"])]
         + MM_SIZES_PARAMS, {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", MM4096, 3, MM_TF32_TOL, num_warps=8,
         bench="matmul fp32 (tf32) 4096^3 (128x128x32, 8 warps)", flops="2 * M * N * K",
         cublas="mm", sm80=True),
    case("bench_mm_int8", DOTS, "matmul_int8_kernel",
         [T("in", "i8", ["M", "K"], "int:-128:128"), T("in", "i8", ["K", "N"], "int:-128:128"),
          T("out", "i32", ["M", "N"])] + MM_SIZES_PARAMS, {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", MM4096, 3, num_warps=8,
         bench="matmul int8 4096^3 (128x128x64, 8 warps)", flops="2 * M * N * K", cublas="int_mm",
         sm80=True),
    case("bench_mm_int8_nt", DOTS, "matmul_int8_nt_kernel",
         [T("in", "i8", ["M", "K"], "int:-128:128"), T("in", "i8", ["N", "K"], "int:-128:128"),
          T("out", "i32", ["M", "N"])] + MM_SIZES_PARAMS, {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128},
         "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", MM4096, 3, num_warps=8, num_stages=4,
         bench="matmul int8 x @ w^T 4096^3 (128x128x128, 8 warps, 4 stages)", flops="2 * M * N * K",
         cublas="int_mm_nt", sm80=True),
] + [
    case("bench_attn_d%d_%s" % (d, name), ATTN, "attn_fwd", ATTN_PARAMS, _attn_cx(stage), ATTN_GRID,
         [{"Z": 4, "H": 32, "N_CTX": 4096, "D": d}], 3, ATTN_TOL, _attn_warps, grid_in_blob=False,
         bench="attention fwd fp16, Z=4 H=32 N=4096 D=%d%s" % (d, ", causal" if stage == 3 else ""),
         flops="%s * Z * H * N_CTX * N_CTX * D" % ("2" if stage == 3 else "4"), sm80=True)
    for d in (64, 128) for name, stage in (("full", 1), ("causal", 3))
] + [
    case("bench_attn_desc_d%d_%s" % (d, name), ATTN, "attn_fwd_desc", ATTN_DESC_PARAMS, _attn_cx(stage), ATTN_GRID,
         [{"Z": 4, "H": 32, "N_CTX": 4096, "D": d}], 3, ATTN_TOL, _attn_warps, grid_in_blob=False,
         bench="attention fwd fp16, device-side descriptors, Z=4 H=32 N=4096 D=%d%s" % (d, ", causal" if stage == 3 else ""),
         flops="%s * Z * H * N_CTX * N_CTX * D" % ("2" if stage == 3 else "4"))
    for d in (64, 128) for name, stage in (("full", 1), ("causal", 3))
] + [
    case("bench_attn_desc_ws_d%d_%s" % (d, name), ATTN, "attn_fwd_desc", ATTN_DESC_PARAMS,
         _attn_cx(stage, WARP_SPECIALIZE=True), ATTN_GRID, [{"Z": 4, "H": 32, "N_CTX": 4096, "D": d}], 3, ATTN_TOL,
         num_warps=8, grid_in_blob=False,
         bench="attention fwd fp16, device-side descriptors, warp_specialize, 8 warps, Z=4 H=32 N=4096 D=%d%s"
         % (d, ", causal" if stage == 3 else ""),
         flops="%s * Z * H * N_CTX * N_CTX * D" % ("2" if stage == 3 else "4"))
    for d in (64, 128) for name, stage in (("full", 1), ("causal", 3))
] + [
    case("bench_attn_desc_fp8_d%d_%s" % (d, name), ATTN, "attn_fwd_desc", ATTN_FP8_PARAMS, _attn_cx(stage, FP8=True),
         ATTN_GRID, [{"Z": 4, "H": 32, "N_CTX": 4096, "D": d}], 3, ATTN_FP8_TOL, _attn_warps, grid_in_blob=False,
         bench="attention fwd fp8 e5m2, device-side descriptors, Z=4 H=32 N=4096 D=%d%s"
         % (d, ", causal" if stage == 3 else ""),
         flops="%s * Z * H * N_CTX * N_CTX * D" % ("2" if stage == 3 else "4"), sm80=True)
    for d in (64, 128) for name, stage in (("full", 1), ("causal", 3))
] + [
    # d128 non-causal: the loop tilec specializes unasked, at N = 16384 too,
    # and the plain pipeline (--no-auto-warp-specialize) for comparison
    case("bench_attn_desc_d128_full%s" % suffix, ATTN, "attn_fwd_desc", ATTN_DESC_PARAMS, _attn_cx(1), ATTN_GRID,
         [size], 3, ATTN_TOL, num_warps=8, grid_in_blob=False, tilec_flags=flags,
         bench="attention fwd fp16, device-side descriptors, Z=%d H=32 N=%d D=128%s"
         % (size["Z"], size["N_CTX"], note), flops="4 * Z * H * N_CTX * N_CTX * D")
    for suffix, size, flags, note in (
        ("_n16k", {"Z": 1, "H": 32, "N_CTX": 16384, "D": 128}, None, ""),
        ("_plain", {"Z": 4, "H": 32, "N_CTX": 4096, "D": 128}, ["--no-auto-warp-specialize"],
         ", --no-auto-warp-specialize"),
        ("_n16k_plain", {"Z": 1, "H": 32, "N_CTX": 16384, "D": 128}, ["--no-auto-warp-specialize"],
         ", --no-auto-warp-specialize"))
] + [
    case("bench_attn_desc_ws_d128_full_n16k", ATTN, "attn_fwd_desc", ATTN_DESC_PARAMS,
         _attn_cx(1, WARP_SPECIALIZE=True), ATTN_GRID, [{"Z": 1, "H": 32, "N_CTX": 16384, "D": 128}], 3, ATTN_TOL,
         num_warps=8, grid_in_blob=False,
         bench="attention fwd fp16, device-side descriptors, warp_specialize, 8 warps, Z=1 H=32 N=16384 D=128",
         flops="4 * Z * H * N_CTX * N_CTX * D"),
]


# --- atomics and random numbers ------------------------------------------------
# What atomics accumulate into is an "inout" tensor both sides start from the
# same values ("zeros", "specials"); sums whose order the hardware picks get
# a tolerance, everything else is compared exactly.

ATOM = "tests/gpu/kernels/atomics.py"
RAND = "tests/gpu/kernels/random.py"
RAND_SIZES = [{"n": 1}, {"n": 1023}, {"n": 2**20 + 7}]
COLSUM_SIZES = [{"M": 1, "N": 1}, {"M": 100, "N": 257}, {"M": 1823, "N": 781}, {"M": 4096, "N": 64}]
LN_BWD_SIZES = [{"M": 1, "N": 64}, {"M": 37, "N": 100}, {"M": 1823, "N": 781}, {"M": 512, "N": 1024}]


def _hist(id, init):
    return case(id, ATOM, "histogram_kernel",
                [_n("i32", init=init), T("inout", "i32", ["256"], "zeros"), N_ELEMENTS],
                {"NBINS": 256, "BLOCK": 1024}, "cdiv(n, BLOCK)", SIZES_1D, 4)


def _ln_bwd_cx(s):
    return {"GROUP_SIZE_M": 32, "BLOCK_SIZE_N": next_pow2(s["N"])}


CASES += [
    _hist("atomic_hist_i32", "randint:0:1000000"),
    _hist("atomic_hist_hot_i32", "randint:0:3"),  # every add on three bins
    case("atomic_col_sum_f32", ATOM, "col_sum_kernel",
         [T("in", "fp32", ["M", "N"]), T("inout", "fp32", ["N"], "zeros"), S("i32", "M"), S("i32", "N")],
         {"BLOCK_M": 32, "BLOCK_N": 128}, "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)", COLSUM_SIZES, 4,
         tol(1e-3, 1e-4)),
    case("atomic_fmax_f32", ATOM, "float_max_kernel",
         [_n("fp32", init="specials"), _n("fp32", "inout", "specials"), _n("fp32", "out"),
          T("inout", "fp32", ["128"], "specials"), N_ELEMENTS],
         {"NB": 64, "BLOCK": 1024}, "cdiv(n, BLOCK)", SIZES_1D[:3], 4),
    case("atomic_add_f16", ATOM, "half_add_kernel",
         [_n("fp16", init="randint:-1:2"), _n("fp16", "inout", "randint:-8:8"), _n("fp16", "out"),
          T("inout", "fp16", ["1024"], "zeros"), N_ELEMENTS],
         {"NB": 1024, "BLOCK": 1024}, "cdiv(n, BLOCK)", [{"n": 1}, {"n": 1023}, {"n": 2**20}, {"n": 2**20 + 7}], 4),
    # bf16: bf16x2 pairs and bf16 atoms on sm_90a and on sm_90's mma.sync
    # code (compiled apart from sm_80's); the compare-and-swap loop in sm_80's
    # (compute_80 PTX, compiled by the driver). Small integers keep every
    # sum exact (at most 1025 terms of -1, 0, 1 per address: far below 256)
    case("atomic_add_bf16", ATOM, "half_add_kernel",
         [_n("bf16", init="randint:-1:2"), _n("bf16", "inout", "randint:-8:8"), _n("bf16", "out"),
          T("inout", "bf16", ["1024"], "zeros"), N_ELEMENTS],
         {"NB": 1024, "BLOCK": 1024}, "cdiv(n, BLOCK)", [{"n": 1}, {"n": 1023}, {"n": 2**20}, {"n": 2**20 + 7}], 4),
] + [
    case("atomic_add_bf16_%s" % _a, ATOM, "half_add_kernel",
         [_n("bf16", init="randint:-1:2"), _n("bf16", "inout", "randint:-8:8"), _n("bf16", "out"),
          T("inout", "bf16", ["1024"], "zeros"), N_ELEMENTS],
         {"NB": 1024, "BLOCK": 1024}, "cdiv(n, BLOCK)", [{"n": 1023}, {"n": 2**20}], 4, arch=_arch)
    for _a, _arch in (("sm80", "sm_80"), ("sm90", "sm_80,sm_90"))
] + [
    # real column sums accumulated in fp16/bf16 by up to 128 programs per
    # address, in the order the hardware picks on each side: the tolerance is
    # three times (fp16; bf16 2.6 times) the largest difference between two
    # random orders of the same additions over 3000 simulated columns of
    # M = 4096 (fp16 0.17 beyond 1% of the sum, bf16 1.54 beyond 5%).
    # N a multiple of 16 (64, 1024) takes the packed forms, 257 and 781 one
    # atom per column
    case("atomic_col_sum_%s%s" % (_id, _a), ATOM, "half_col_sum_kernel",
         [T("in", _t, ["M", "N"], "uniform:-1:1"), T("inout", _t, ["N"], "zeros"), S("i32", "M"), S("i32", "N")],
         {"BLOCK_M": 32, "BLOCK_N": 128}, "cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)",
         [{"M": 1, "N": 1}, {"M": 100, "N": 257}, {"M": 1823, "N": 781}, {"M": 1000, "N": 1024},
          {"M": 4096, "N": 64}], 4, _tol, arch=_arch)
    for _t, _id, _tol in (("fp16", "f16", tol(0.5, 1e-2)), ("bf16", "bf16", tol(4.0, 5e-2)))
    for _a, _arch in (("", None), ("_sm80", "sm_80"))
] + [
    case("atomic_ticket_i32", ATOM, "ticket_kernel",
         [T("inout", "i32", ["1"], "zeros"), T("inout", "i32", ["32"], "zeros"),
          T("out", "i32", ["P", "128"]), T("out", "i32", ["P", "32"])],
         {"SLOTS": 32}, "P", [{"P": 1}, {"P": 300}], 4, grid_in_blob=False),
] + [
    case("atomic_ticket_chain%s" % _id, ATOM, "ticket_chain_kernel",
         [T("inout", "i32", ["1"], "zeros"), T("inout", "i32", ["2"], "zeros"),
          T("inout", "i32", ["1"], "zeros"), T("out", "i32", ["P"])],
         {"MASKED": _masked}, "P", [{"P": 1}, {"P": 300}, {"P": 5000}], 4, grid_in_blob=False)
    for _id, _masked in (("", False), ("_masked", True))
] + [
    case("atomic_lock_ln_bwd", ATOM, "layer_norm_bwd_dx_fused",
         [T("out", "fp32", ["M", "N"]), T("in", "fp32", ["M", "N"]),
          T("inout", "fp32", ["32", "N"], "zeros"), T("inout", "fp32", ["32", "N"], "zeros"),
          T("in", "fp32", ["M", "N"]), T("in", "fp32", ["N"]), T("in", "fp32", ["M"]),
          T("in", "fp32", ["M"]), T("inout", "i32", ["64"], "zeros"), S("i32", "N"), S("i32", "N")],
         _ln_bwd_cx, "M", LN_BWD_SIZES, 4, tol(1e-4, 1e-4), grid_in_blob=False),
    case("rand_f32", RAND, "rand_kernel", [_n("fp32", "out"), S("i32", "1234"), N_ELEMENTS],
         {"BLOCK": 1024}, "cdiv(n, BLOCK)", RAND_SIZES, 4),
    case("randn_f32", RAND, "randn_kernel", [_n("fp32", "out"), S("i32", "-7"), N_ELEMENTS],
         {"BLOCK": 1024}, "cdiv(n, BLOCK)", RAND_SIZES, 4),
    case("randint4x_i32", RAND, "randint4x_kernel",
         [_n("i32", "out"), _n("i32", "out"), _n("i32", "out"), _n("i32", "out"),
          S("i64", "0x123456789abc"), N_ELEMENTS],
         {"BLOCK": 512}, "cdiv(n, BLOCK)", RAND_SIZES, 4),
    case("rand_wide_f32", RAND, "rand_wide_kernel", [_n("fp32", "out"), S("i64", "987654321987"), N_ELEMENTS],
         {"BLOCK": 256}, "cdiv(n, BLOCK)", RAND_SIZES, 4),
    case("philox_wide_f32", RAND, "philox_wide_kernel", [_n("fp32", "out"), S("i64", "987654321987"), N_ELEMENTS],
         {"BLOCK": 256}, "cdiv(n, BLOCK)", RAND_SIZES, 4),
    case("dropout_f32", RAND, "dropout_kernel",
         [_n("fp32"), _n("fp32", "out"), N_ELEMENTS, S("fp32", "0.5"), S("i32", "42")],
         {"BLOCK_SIZE": 1024}, "cdiv(n_elements, BLOCK_SIZE)", SIZES_1D, 4),
]

BENCH += [
    case("bench_hist_i32", ATOM, "histogram_kernel",
         [_n("i32", init="randint:0:1000000"), T("inout", "i32", ["256"], "zeros"), N_ELEMENTS],
         {"NBINS": 256, "BLOCK": 1024}, "cdiv(n, BLOCK)", [{"n": 2**26}], 4,
         bench="histogram i32 2^26 into 256 bins (atomic_add)"),
    case("bench_dropout_f32", RAND, "dropout_kernel",
         [_n("fp32"), _n("fp32", "out"), N_ELEMENTS, S("fp32", "0.5"), S("i32", "42")],
         {"BLOCK_SIZE": 1024}, "cdiv(n_elements, BLOCK_SIZE)", [{"n": 2**26}], 4,
         bench="dropout fp32 2^26 (tl.rand, Philox)"),
]


# --- fp8 ----------------------------------------------------------------------
# Casts compared bit for bit with Triton (NaNs as NaNs): fp32 with specials
# (infinities, NaN, -0, the smallest subnormal), wide uniform ranges that
# overflow (saturation on sm_90) and cross ties, fp16 and bf16 sources; the
# widening direction over every byte pattern ("bytes" repeats 0..255).
FP8 = "tests/gpu/kernels/fp8.py"
SIZES_FP8 = [{"n": 1}, {"n": 1023}, {"n": 2**20 + 7}]
FP8_WIDE = {"fp8e4nv": "uniform:-600:600", "fp8e5": "uniform:-70000:70000"}


# fp8 products are exact in fp32; sums of up to 512 terms near 22 in another
# order, and Triton's Hopper fp8 dots accumulate with reduced precision by
# default (max_num_imprecise_acc), so more room than fp16's tolerance
FP8_MM_TOL = tol(0.25, 2e-2)
FP8_MM_SIZES = [{"M": 512, "N": 512, "K": 512}, {"M": 100, "N": 257, "K": 70}]


def _fp8_mm_params(ka, kb):
    return ([T("in", ka, ["M", "K"]), T("in", kb, ["N", "K"]), T("out", "fp16", ["M", "N"])] + MM_SIZES_PARAMS
            + [S("i32", "K"), S("i32", "1"), S("i32", "1"), S("i32", "K"), S("i32", "N"), S("i32", "1")])


def _fp8(id, kernel, params):
    return case(id, FP8, kernel, params, {"BLOCK_SIZE": 1024}, "cdiv(n_elements, BLOCK_SIZE)",
                SIZES_FP8, 1)


for _k, _s in (("fp8e4nv", "e4"), ("fp8e5", "e5")):
    CASES += [
        _fp8("fp8_%s_from_f32" % _s, "to_fp8_kernel",
             [_n("fp32", init="specials"), _n(_k, "out"), N_ELEMENTS]),
        _fp8("fp8_%s_from_f32_wide" % _s, "to_fp8_kernel",
             [_n("fp32", init=FP8_WIDE[_k]), _n(_k, "out"), N_ELEMENTS]),
        _fp8("fp8_%s_from_f32_ties" % _s, "to_fp8_kernel",
             [_n("fp32", init="ties8:" + _k), _n(_k, "out"), N_ELEMENTS]),
        _fp8("fp8_%s_from_f16_ties" % _s, "to_fp8_kernel",
             [_n("fp16", init="ties8:" + _k), _n(_k, "out"), N_ELEMENTS]),
        _fp8("fp8_%s_from_f16" % _s, "to_fp8_kernel", [_n("fp16", init="specials"), _n(_k, "out"), N_ELEMENTS]),
        _fp8("fp8_%s_from_bf16" % _s, "to_fp8_kernel", [_n("bf16", init="specials"), _n(_k, "out"), N_ELEMENTS]),
        _fp8("fp8_%s_to_f32" % _s, "from_fp8_kernel", [_n(_k, init="bytes"), _n("fp32", "out"), N_ELEMENTS]),
        _fp8("fp8_%s_to_f16" % _s, "from_fp8_kernel", [_n(_k, init="bytes"), _n("fp16", "out"), N_ELEMENTS]),
        _fp8("fp8_%s_to_bf16" % _s, "from_fp8_kernel", [_n(_k, init="bytes"), _n("bf16", "out"), N_ELEMENTS]),
        _fp8("fp8_%s_roundtrip" % _s, "fp8_roundtrip_kernel",
             [_n("fp32", init="specials"), _n(_k, "out"), _n("u8", "out"), _n("fp32", "out"), N_ELEMENTS]),
        # tutorial 03's matmul with fp8 operands, B given K-major (the tutorial
        # pre-transposes it), fp16 output: wgmma k32 on sm_90a
        case("fp8_%s_matmul" % _s, K + "matmul.py", "matmul_kernel", _fp8_mm_params(_k, _k),
             _mm_cx(64, 64, 64), MM_GRID, FP8_MM_SIZES, 3, FP8_MM_TOL, num_stages=3),
    ]
CASES += [
    # sm_80's code (compute_80 PTX, compiled by the driver): fp8e5 only (Triton
    # refuses e4m3 below sm_89), conversions in integer arithmetic, the dots'
    # fp8 fragments widened to fp16 in registers for mma.sync m16n8k16
    # (nvptx/dot_mma.c)
    case("fp8_e5_matmul_sm80", K + "matmul.py", "matmul_kernel", _fp8_mm_params("fp8e5", "fp8e5"),
         _mm_cx(32, 32, 32), MM_GRID, FP8_MM_SIZES, 3, FP8_MM_TOL, arch="sm_80"),
    case("fp8_e5_matmul_sm80_64", K + "matmul.py", "matmul_kernel", _fp8_mm_params("fp8e5", "fp8e5"),
         _mm_cx(64, 64, 64), MM_GRID, FP8_MM_SIZES, 3, FP8_MM_TOL, num_stages=3, arch="sm_80"),
    case("fp8_e5_matmul_sm80_128", K + "matmul.py", "matmul_kernel", _fp8_mm_params("fp8e5", "fp8e5"),
         _mm_cx(128, 128, 64), MM_GRID, FP8_MM_SIZES, 3, FP8_MM_TOL, num_warps=8, num_stages=3, arch="sm_80"),
    # B stored K x N (N contiguous), widened as A
    case("fp8_e5_matmul_kn_sm80", K + "matmul.py", "matmul_kernel",
         [T("in", "fp8e5", ["M", "K"]), T("in", "fp8e5", ["K", "N"]), T("out", "fp16", ["M", "N"])]
         + MM_SIZES_PARAMS + MM_STRIDES, _mm_cx(64, 64, 64), MM_GRID, FP8_MM_SIZES, 3, FP8_MM_TOL, arch="sm_80"),
]
CASES += [
    # 64 rows in 8 warps: two warpgroups split N (torchao's blockwise fp8 config)
    case("fp8_e4_matmul_w8", K + "matmul.py", "matmul_kernel", _fp8_mm_params("fp8e4nv", "fp8e4nv"),
         _mm_cx(64, 128, 128), MM_GRID, FP8_MM_SIZES, 3, FP8_MM_TOL, num_warps=8, num_stages=3),
    # the two kinds mixed (.e4m3.e5m2), as Triton allows
    case("fp8_mixed_matmul", K + "matmul.py", "matmul_kernel", _fp8_mm_params("fp8e4nv", "fp8e5"),
         _mm_cx(64, 64, 64), MM_GRID, FP8_MM_SIZES, 3, FP8_MM_TOL),
    # B stored K x N (N contiguous): fragments read byte by byte instead of ldmatrix
    case("fp8_e5_matmul_kn", K + "matmul.py", "matmul_kernel",
         [T("in", "fp8e5", ["M", "K"]), T("in", "fp8e5", ["K", "N"]), T("out", "fp16", ["M", "N"])]
         + MM_SIZES_PARAMS + MM_STRIDES, _mm_cx(64, 64, 64), MM_GRID, FP8_MM_SIZES, 3, FP8_MM_TOL),
    # the mma.sync code from sm_90 on (what sm_89 runs too), beside sm_90a's:
    # compute_90 PTX, which the driver compiles (sm_90 now brings sm_90a)
    case("fp8_e4_matmul_sm90", K + "matmul.py", "matmul_kernel", _fp8_mm_params("fp8e4nv", "fp8e4nv"),
         _mm_cx(64, 64, 64), MM_GRID, [{"M": 512, "N": 512, "K": 512}], 3, FP8_MM_TOL, arch="compute_90"),
]
BENCH += [
    # tutorial 03's fp8 config on Hopper (B K-major): wgmma e4m3 on sm_90a
    case("bench_mm_fp8", K + "matmul.py", "matmul_kernel", _fp8_mm_params("fp8e4nv", "fp8e4nv"),
         _mm_cx(128, 256, 128), MM_GRID, [{"M": 4096, "N": 4096, "K": 4096}], 3, FP8_MM_TOL, num_warps=8,
         num_stages=3, bench="matmul fp8 e4m3 4096^3 (128x256x128, 8 warps, 3 stages)", flops="2 * M * N * K"),
    # e5m2 (which sm_80 takes, as Triton) with the sm_80-class builds of both
    # sides alongside: fp8 dots there have no fp8 instructions (Triton 3.6's
    # sm_80 build fails in ptxas: it widens with sm_89's cvt .e5m2x2)
    case("bench_mm_fp8e5_sm80", K + "matmul.py", "matmul_kernel", _fp8_mm_params("fp8e5", "fp8e5"),
         _mm_cx(128, 128, 64), MM_GRID, [{"M": 2048, "N": 2048, "K": 2048}], 3, FP8_MM_TOL, num_warps=8,
         num_stages=3, bench="matmul fp8 e5m2 2048^3 (128x128x64, 8 warps, 3 stages)", flops="2 * M * N * K",
         sm80=True),
]


# odd shapes: every tensor-core row's config also at sizes that are not
# multiples of 16 (no hints on either side: what a plain signature gives),
# natively and as sm_80-class code
ODD3000 = [{"M": 3000, "N": 3000, "K": 3000}]
ODD4095 = [{"M": 4095, "N": 4095, "K": 4095}]
BENCH += [
    case("bench_mm_odd_128x256", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 256, 64), MM_GRID, ODD3000, 3, MM_F16_TOL, num_warps=8, num_stages=3,
         bench="matmul fp16 3000^3, unaligned rows (128x256x64, 8 warps, 3 stages)", flops="2 * M * N * K",
         cublas="mm", sm80=True),
    case("bench_mm_4095_128x64", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 64), MM_GRID, ODD4095, 3, MM_F16_TOL, num_warps=4, num_stages=4,
         bench="matmul fp16 4095^3 (128x128x64, 4 warps, 4 stages)", flops="2 * M * N * K", cublas="mm",
         sm80=True),
    case("bench_mm_4095_128x256", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 256, 64), MM_GRID, ODD4095, 3, MM_F16_TOL, num_warps=8, num_stages=3,
         bench="matmul fp16 4095^3 (128x256x64, 8 warps, 3 stages)", flops="2 * M * N * K", cublas="mm",
         sm80=True),
    case("bench_mm_1000x4096", K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 64), MM_GRID, [{"M": 1000, "N": 4096, "K": 4096}], 3, MM_F16_TOL, num_warps=4,
         num_stages=4, bench="matmul fp16 1000x4096x4096 (128x128x64, 4 warps, 4 stages)", flops="2 * M * N * K",
         cublas="mm", sm80=True),
] + [
    case("bench_attn_ragged_%d" % n, ATTN, "attn_fwd_ragged", ATTN_PARAMS, _attn_ragged_cx, ATTN_GRID,
         [{"Z": 4, "H": 32, "N_CTX": n, "D": 64}], 3, ATTN_TOL, _attn_warps, grid_in_blob=False,
         bench="attention fwd fp16, any N_CTX, Z=4 H=32 N=%d D=64" % n,
         flops="4 * Z * H * N_CTX * N_CTX * D", sm80=True)
    for n in (1000, 4097)
] + [
    case("bench_softmax_%d" % n, T2, "softmax_row_kernel", SOFTMAX_ROW_PARAMS, _softmax_cx, "M",
         [{"M": m, "N": n}], 2, SOFTMAX_TOL, _softmax_warps, grid_in_blob=False,
         bench="softmax fp32 %dx%d (row per program)" % (m, n), sm80=True)
    for m, n in ((4096, 4095), (1024, 50257))
] + [
    case("bench_layer_norm_f16_%d" % n, T2, "layer_norm_fwd_kernel", _ln_params("fp16"), _ln_cx(2), "M",
         [{"M": m, "N": n}], 2, tol(2e-3, 2e-3), num_warps=_ln_warps(2), grid_in_blob=False,
         bench="layer norm fwd fp16 %dx%d" % (m, n), sm80=True)
    for m, n in ((4096, 4095), (1024, 50257))
]

# `--arch sm_90` as a new user gives it (the rows above use the GPU's sm_90a):
# the same Hopper code must come out (tests/test_compile.sh checks the PTX is
# sm_90a's), timed here as built
BENCH += [dict(c, id=c["id"] + "_sm90", arch="sm_90", bench=c["bench"] + ", --arch sm_90", sm80=False, cublas=None)
          for c in BENCH if c["id"] in ("bench_mm_bias_gelu", "bench_bmm_bf16", "bench_attn_d64_full")]

# --- decode-time shapes (batch 1 to 16): memory-bound, their figure is the
# fraction of the copy rate (bench.py measures it); the suite's cases check
# the same kernels at odd sizes
DEC = "tests/gpu/kernels/decode.py"
DEC_TOL = tol(1e-1, 1e-2)  # fp32 sums of 4096 products, in another order


def _gemv_params(dt):
    return [T("in", dt, ["M", "K"]), T("in", dt, ["K", "N"]), T("out", dt, ["M", "N"]),
            S("i32", "M"), S("i32", "N"), S("i32", "K"), S("i32", "K"), S("i32", "N"), S("i32", "N")]


_W8_PARAMS = [T("in", "fp16", ["M", "K"]), T("in", "i8", ["N", "K"], "int:-128:128"),
              T("in", "fp16", ["N"], "uniform:0.001:0.01"), T("out", "fp16", ["M", "N"]),
              S("i32", "M"), S("i32", "N"), S("i32", "K"), S("i32", "K"), S("i32", "K"), S("i32", "N")]
_W4_PARAMS = [T("in", "fp16", ["M", "K"]), T("in", "u8", ["N", "K // 2"], "int:0:256"),
              T("in", "fp16", ["N", "K // 128"], "uniform:0.01:0.02"), T("out", "fp16", ["M", "N"]),
              S("i32", "M"), S("i32", "N"), S("i32", "K"), S("i32", "K"), S("i32", "K // 2"), S("i32", "N")]
_GEMV_CX = {"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 128}
# a linear layer's [N, K] weights read whole rows at a time (decode.py's
# gemv_rows_kernel), fp16
_ROWS_PARAMS = [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["N", "K"]), T("out", "fp16", ["M", "N"]),
                S("i32", "M"), S("i32", "N"), S("i32", "K"), S("i32", "K"), S("i32", "K"), S("i32", "N")]
_ATTN_SPLIT_PARAMS = [T("in", "fp16", ["H", "D"]), T("in", "fp16", ["H", "S", "D"]), T("in", "fp16", ["H", "S", "D"]),
                      T("out", "fp32", ["H", "NS", "D"]), T("out", "fp32", ["H", "NS"]), S("i32", "S"),
                      S("fp32", "0.08838834764831845"), S("i32", "S * D"), S("i32", "D"), S("i32", "NS * D"),
                      S("i32", "D")]
_ATTN_REDUCE_PARAMS = [T("in", "fp32", ["H", "NS", "D"]), T("in", "fp32", ["H", "NS"]), T("out", "fp16", ["H", "D"]),
                       S("i32", "NS * D"), S("i32", "D")]
_PAGED_PARAMS = [T("in", "fp16", ["P", "16", "1024"]), T("in", "i32", ["SEQS", "BPS"], "perm"),
                 T("out", "fp16", ["SEQS", "BPS * 16", "1024"]), S("i32", "16 * 1024"), S("i32", "BPS * 16 * 1024")]

CASES += [
    case("decode_gemv_f16", DEC, "gemv_kernel", _gemv_params("fp16"), _GEMV_CX, "cdiv(N, BLOCK_N)",
         [{"M": 1, "N": 64, "K": 128}, {"M": 5, "N": 192, "K": 384}, {"M": 16, "N": 256, "K": 1024}], 3, DEC_TOL),
    case("decode_gemv_bf16", DEC, "gemv_kernel", _gemv_params("bf16"), _GEMV_CX, "cdiv(N, BLOCK_N)",
         [{"M": 3, "N": 128, "K": 256}], 3, tol(1e-1, 2e-2)),
    case("decode_gemv_w8", DEC, "gemv_w8_kernel", _W8_PARAMS, _GEMV_CX, "cdiv(N, BLOCK_N)",
         [{"M": 1, "N": 64, "K": 128}, {"M": 7, "N": 192, "K": 512}, {"M": 16, "N": 256, "K": 1024}], 3, DEC_TOL),
    # unsigned 8-bit weights: the same kernel, B's bytes converted without the sign's offset
    case("decode_gemv_u8", DEC, "gemv_w8_kernel", [_W8_PARAMS[0], T("in", "u8", ["N", "K"], "int:0:256")]
         + _W8_PARAMS[2:], _GEMV_CX, "cdiv(N, BLOCK_N)", [{"M": 1, "N": 64, "K": 128}, {"M": 7, "N": 192, "K": 512}],
         3, DEC_TOL),
    case("decode_gemv_w4", DEC, "gemv_w4_kernel", _W4_PARAMS, dict(_GEMV_CX, GROUP=128), "cdiv(N, BLOCK_N)",
         [{"M": 1, "N": 64, "K": 128}, {"M": 9, "N": 192, "K": 512}], 3, DEC_TOL),
    # B's fragments converted in registers (analysis/layout.c's dequant_b)
    # over 8 warps along N, and with two 16-row tiles of A
    case("decode_gemv_w4_w8", DEC, "gemv_w4_kernel", _W4_PARAMS,
         dict(_GEMV_CX, BLOCK_N=128, GROUP=128), "cdiv(N, BLOCK_N)",
         [{"M": 3, "N": 128, "K": 256}, {"M": 16, "N": 384, "K": 640}], 3, DEC_TOL, num_warps=8),
    case("decode_gemv_w4_m32", DEC, "gemv_w4_kernel", _W4_PARAMS,
         dict(_GEMV_CX, BLOCK_M=32, GROUP=128), "cdiv(N, BLOCK_N)",
         [{"M": 29, "N": 192, "K": 384}], 3, DEC_TOL),
    # 64 rows (wgmma on sm_90a: B converted in registers is staged for it)
    # at 4 stages: the dot's group stays in flight across the back edge
    # while the next iteration converts its B (lower.c: flying_dot)
    case("decode_gemv_w4_m64_s4", DEC, "gemv_w4_kernel", _W4_PARAMS,
         dict(_GEMV_CX, BLOCK_M=64, GROUP=128), "cdiv(N, BLOCK_N)",
         [{"M": 64, "N": 192, "K": 1024}, {"M": 50, "N": 128, "K": 2048}], 3, DEC_TOL, num_stages=4),
    case("decode_gemv_rows", DEC, "gemv_rows_kernel", _ROWS_PARAMS, {"BLOCK_N": 1, "BLOCK_K": 1024},
         "cdiv(N, BLOCK_N)", [{"M": 1, "N": 100, "K": 1000}, {"M": 3, "N": 129, "K": 640}], 3, DEC_TOL,
         num_warps=8),
    case("decode_gemv_rows_w8", DEC, "gemv_rows_w8_kernel", _W8_PARAMS, {"BLOCK_N": 2, "BLOCK_K": 4096},
         "cdiv(N, BLOCK_N)", [{"M": 1, "N": 100, "K": 1000}, {"M": 3, "N": 129, "K": 640}], 3, DEC_TOL,
         num_warps=8),
    case("decode_attn_split", DEC, "decode_attn_split_kernel", _ATTN_SPLIT_PARAMS,
         lambda s: {"HEAD_DIM": 128, "BLOCK_N": 64, "SPLIT_LEN": s["S"] // s["NS"]}, "H, NS",
         [{"H": 4, "S": 512, "D": 128, "NS": 4}, {"H": 3, "S": 1000, "D": 128, "NS": 4}], 3, tol(1e-3, 1e-3),
         grid_in_blob=False),
    case("decode_attn_reduce", DEC, "decode_attn_reduce_kernel", _ATTN_REDUCE_PARAMS,
         lambda s: {"HEAD_DIM": 128, "NUM_SPLITS": s["NS"]}, "H", [{"H": 4, "D": 128, "NS": 8}], 3,
         tol(1e-3, 1e-3), grid_in_blob=False),
    case("decode_paged_gather", DEC, "paged_kv_gather_kernel", _PAGED_PARAMS, lambda s: {"BLOCKS_PER_SEQ": s["BPS"], "PAGE": 16, "ROW": 1024},
         "SEQS, BPS", [{"P": 12, "SEQS": 3, "BPS": 4}], 3, grid_in_blob=False),
]

# sizes no hint divides (odd strides): the rings copy 2-byte pieces, a
# thread a run of them from its first element, the loop carrying one
# pointer a run (A) or the block's first element and invariant offsets (B);
# B stored N x K is copied along K (the dim of longer runs)
ODD_MM = [{"M": 333, "N": 257, "K": 1001}, {"M": 129, "N": 95, "K": 77}]
_MM_BT_STRIDES = [S("i32", "K"), S("i32", "1"), S("i32", "1"), S("i32", "K"), S("i32", "N"), S("i32", "1")]
CASES += [
    case("p_matmul_f16_odd" + sfx, K + "matmul.py", "matmul_kernel", MM_PARAMS + MM_SIZES_PARAMS + MM_STRIDES,
         _mm_cx(128, 128, 64), MM_GRID, ODD_MM, 3, MM_F16_TOL, num_stages=4, **kw)
    for sfx, kw in (("", {}), ("_sm80", {"arch": "compute_80"}))
] + [
    case("p_matmul_f16_bt_odd" + sfx, K + "matmul.py", "matmul_kernel",
         [T("in", "fp16", ["M", "K"]), T("in", "fp16", ["N", "K"]), T("out", "fp16", ["M", "N"])]
         + MM_SIZES_PARAMS + _MM_BT_STRIDES, _mm_cx(128, 128, 64), MM_GRID, ODD_MM, 3, MM_F16_TOL, num_stages=4,
         **kw)
    for sfx, kw in (("", {}), ("_sm80", {"arch": "compute_80"}))
]

DEC4096 = [dict(N=4096, K=4096, M=m) for m in (1, 8, 16)]
BENCH += [
    case("bench_decode_gemv_f16_m%d" % s["M"], DEC, "gemv_kernel", _gemv_params("fp16"), _GEMV_CX,
         "cdiv(N, BLOCK_N)", [s], 3, DEC_TOL, bench="decode matmul fp16 M=%d N=K=4096 (16x64x128)" % s["M"])
    for s in DEC4096
] + [
    case("bench_decode_gemv_bf16_m%d" % s["M"], DEC, "gemv_kernel", _gemv_params("bf16"), _GEMV_CX,
         "cdiv(N, BLOCK_N)", [s], 3, tol(1e-1, 2e-2), bench="decode matmul bf16 M=%d N=K=4096 (16x64x128)" % s["M"])
    for s in DEC4096
] + [
    case("bench_decode_w8_m%d" % s["M"], DEC, "gemv_w8_kernel", _W8_PARAMS, _GEMV_CX, "cdiv(N, BLOCK_N)", [s], 3,
         DEC_TOL, bench="decode matmul int8 weights, fp16 x, M=%d N=K=4096 (16x64x128)" % s["M"])
    for s in DEC4096
] + [
    case("bench_decode_w4_m%d" % s["M"], DEC, "gemv_w4_kernel", _W4_PARAMS, dict(_GEMV_CX, GROUP=128),
         "cdiv(N, BLOCK_N)", [s], 3, DEC_TOL,
         bench="decode matmul int4 weights (groups of 128), fp16 x, M=%d N=K=4096 (16x64x128)" % s["M"])
    for s in DEC4096
] + [
    # 64 rows: wgmma on sm_90a, B converted in registers and staged for it
    # (two tiles in turn at 4 stages: lower.c's flying_dot)
    case("bench_dequant_w4_m64_s%d" % ns, DEC, "gemv_w4_kernel", _W4_PARAMS, dict(_GEMV_CX, BLOCK_M=64, GROUP=128),
         "cdiv(N, BLOCK_N)", [{"M": 64, "N": 4096, "K": 4096}], 3, DEC_TOL, num_stages=ns,
         bench="matmul int4 weights (groups of 128), fp16 x, M=64 N=K=4096 (64x64x128, %d stages)" % ns)
    for ns in (3, 4)
] + [
    case("bench_decode_rows_m%d" % s["M"], DEC, "gemv_rows_kernel", _ROWS_PARAMS, {"BLOCK_N": 1, "BLOCK_K": 4096},
         "cdiv(N, BLOCK_N)", [s], 3, DEC_TOL, num_warps=8,
         bench="decode matmul fp16 M=%d N=K=4096, [N, K] weights, whole rows (1x4096, 8 warps)" % s["M"])
    for s in DEC4096
] + [
    # a layer large enough that a launch's fixed costs do not hide its
    # weights' reading: an 8B-class model's MLP up projection (117 MB)
    case("bench_decode_rows_mlp_m1", DEC, "gemv_rows_kernel", _ROWS_PARAMS, {"BLOCK_N": 1, "BLOCK_K": 4096},
         "cdiv(N, BLOCK_N)", [{"M": 1, "N": 14336, "K": 4096}], 3, DEC_TOL, num_warps=8,
         bench="decode matmul fp16 M=1 N=14336 K=4096 (an MLP up projection), whole rows (1x4096, 8 warps)"),
] + [
    # 16 columns a program, 256 programs: each streams 128 KB through its ring
    case("bench_decode_gemv_f16_m%d_n16" % m, DEC, "gemv_kernel", _gemv_params("fp16"),
         dict(_GEMV_CX, BLOCK_N=16, BLOCK_K=256), "cdiv(N, BLOCK_N)", [dict(N=4096, K=4096, M=m)], 3, DEC_TOL,
         num_stages=4, bench="decode matmul fp16 M=%d N=K=4096 (16x16x256, 4 stages)" % m)
    for m in (1, 16)
] + [
    # two rows a program: half the programs, 16 KB each in flight
    case("bench_decode_rows2_m1", DEC, "gemv_rows_kernel", _ROWS_PARAMS, {"BLOCK_N": 2, "BLOCK_K": 4096},
         "cdiv(N, BLOCK_N)", [{"M": 1, "N": 4096, "K": 4096}], 3, DEC_TOL, num_warps=8,
         bench="decode matmul fp16 M=1 N=K=4096, [N, K] weights, whole rows (2x4096, 8 warps)"),
] + [
    case("bench_decode_rows_w8_%s" % name, DEC, "gemv_rows_w8_kernel", _W8_PARAMS, {"BLOCK_N": 2, "BLOCK_K": 4096},
         "cdiv(N, BLOCK_N)", [{"M": 1, "N": n, "K": 4096}], 3, DEC_TOL, num_warps=8,
         bench="decode matmul int8 weights, fp16 x, M=1 N=%d K=4096, whole rows (2x4096, 8 warps)" % n)
    for name, n in (("m1", 4096), ("mlp_m1", 14336))
] + [
    case("bench_decode_attn_kv%d" % kv, DEC, "decode_attn_split_kernel", _ATTN_SPLIT_PARAMS,
         lambda s: {"HEAD_DIM": 128, "BLOCK_N": 64, "SPLIT_LEN": s["S"] // s["NS"]}, "H, NS",
         [{"H": 32, "S": kv, "D": 128, "NS": ns}], 3, tol(1e-3, 1e-3), grid_in_blob=False,
         bench="decode attention, split-K part, 32 heads, KV %d, d 128, %d splits" % (kv, ns))
    for kv, ns in ((4096, 16), (32768, 64))
] + [
    case("bench_decode_attn_reduce", DEC, "decode_attn_reduce_kernel", _ATTN_REDUCE_PARAMS,
         lambda s: {"HEAD_DIM": 128, "NUM_SPLITS": s["NS"]}, "H", [{"H": 32, "D": 128, "NS": 64}], 3,
         tol(1e-3, 1e-3), grid_in_blob=False, bench="decode attention, reduce of 64 splits, 32 heads, d 128"),
    case("bench_decode_paged_gather", DEC, "paged_kv_gather_kernel", _PAGED_PARAMS,
         lambda s: {"BLOCKS_PER_SEQ": s["BPS"], "PAGE": 16, "ROW": 1024}, "SEQS, BPS", [{"P": 8192, "SEQS": 32, "BPS": 256}], 3,
         grid_in_blob=False, bench="paged KV gather fp16, 32 sequences x 256 pages of 16 x 1024"),
]
for _c in BENCH:
    if _c["file"] == DEC:
        _c["membound"] = True  # bench.py gives the fraction of the copy rate

def jit_functions(path):
    """{name: ast.FunctionDef} of the @jit/@autotune/@heuristics functions
    of a file, at top level or in top-level if/else/try/with blocks (where
    tutorial code defines them), without running anything."""
    import ast
    tree = ast.parse(open(path).read(), path)
    found = {}

    def visit(stmts):
        for n in stmts:
            if isinstance(n, ast.FunctionDef):
                decos = " ".join(ast.unparse(d) for d in n.decorator_list)
                if "jit" in decos or "autotune" in decos or "heuristics" in decos:
                    found[n.name] = n
            for block in ("body", "orelse", "finalbody"):
                if isinstance(n, (ast.If, ast.Try, ast.With)) and hasattr(n, block):
                    visit(getattr(n, block))
            if isinstance(n, ast.Try):
                for h in n.handlers:
                    visit(h.body)
    visit(tree.body)
    return tree, found


def kernel_functions(path):
    """The jit functions that no other jit function of the file calls."""
    import ast
    _, found = jit_functions(path)
    called = {c.func.id for f in found.values() for c in ast.walk(f)
              if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
    return [n for n in found if n not in called]


def clean_source(path):
    """The file's imports, constant assignments and jit functions only, as
    Python source: what Triton needs to run a kernel, none of the host code
    (tutorial files launch kernels or torch.compile at import)."""
    import ast
    tree, found = jit_functions(path)
    keep = []

    def imports_only(n):
        # a module-level if/try that only imports (version-dependent
        # imports): kept whole, so Python picks the binding
        if isinstance(n, (ast.Import, ast.ImportFrom, ast.Pass)):
            return True
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant):
            return True
        if isinstance(n, ast.If):
            return all(imports_only(x) for x in n.body + n.orelse)
        if isinstance(n, ast.Try):
            return all(imports_only(x) for x in n.body + n.orelse + n.finalbody) and \
                all(imports_only(x) for h in n.handlers for x in h.body)
        return False

    def visit(stmts, top):
        for n in stmts:
            if top and isinstance(n, (ast.If, ast.Try)) and imports_only(n):
                keep.append(n)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                keep.append(n)
            elif top and isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant):
                keep.append(n)
            elif isinstance(n, ast.FunctionDef) and found.get(n.name) is n:
                keep.append(n)
            elif isinstance(n, (ast.If, ast.Try, ast.With)):
                for block in ("body", "orelse", "finalbody"):
                    visit(getattr(n, block, []), False)
    visit(tree.body, True)
    return "\n\n".join(ast.unparse(n) for n in keep) + "\n"


def _value(v, s):
    return v(s) if callable(v) else v


def expand(c):
    """The instances of a case: one per distinct (constexprs, num_warps)."""
    groups = {}
    for s in c["sizes"]:
        cx = _value(c["constexprs"], s)
        w = _value(c["num_warps"], s)
        key = (tuple(sorted(cx.items())), w)
        groups.setdefault(key, (cx, w, []))[2].append(s)
    out = []
    for (cx, w, sizes) in groups.values():
        iid = c["id"]
        if len(groups) > 1:
            # a C name: string and dtype constexprs ("'gelu'", "tl.float32") lose their quotes and dots
            iid += "_" + "_".join("".join(ch for ch in str(v) if ch.isalnum() or ch == "_")
                                  for k, v in sorted(cx.items()) if k != "OP")
        inst = {k: v for k, v in c.items() if k not in ("constexprs", "num_warps", "sizes", "params")}
        # parameter dicts are shared between cases; prepare.py names them per instance
        inst.update(id=iid, params=[dict(p) for p in c["params"]], constexprs=cx, num_warps=w,
                    sizes=sizes)
        if c.get("cpu_sizes"):  # constexprs that follow the size (a GEMM's N and K) follow the CPU's
            inst["cpu_constexprs"] = _value(c["constexprs"], c["cpu_sizes"][0])
        out.append(inst)
    return out


def instances():
    """Every instance: the suite's cases, its benchmarks, then the public
    corpus (tests/corpus, tier 6)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "corpus"))
    import corpus
    out = []
    for c in CASES + BENCH + [c for c in corpus.cases() if not c.get("tile_open")]:
        out.extend(expand(c))
    return out
