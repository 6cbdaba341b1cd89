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

SIZES_1D = [{"n": 1}, {"n": 1023}, {"n": 2**20 + 7}, {"n": 2**26}]
EXACT = "exact"


def tol(atol, rtol):
    return {"atol": atol, "rtol": rtol}


def T(role, dtype, shape, init="randn"):
    """A tensor parameter: role "in" or "out"; shape: size expressions."""
    return {"kind": "tensor", "role": role, "dtype": dtype, "shape": shape, "init": init}


def S(dtype, value):
    """A scalar parameter; value: an expression over the size variables."""
    return {"kind": "scalar", "dtype": dtype, "value": value}


def next_pow2(x):
    p = 1
    while p < x:
        p *= 2
    return p


def case(id, file, kernel, params, constexprs, grid, sizes, tier, tol=EXACT, num_warps=4,
         bench=None, grid_in_blob=True):
    """grid: over parameter names, constexprs and size variables; compiled
    into the blob (-g) when grid_in_blob, else the launch function takes it
    (it must then name parameters and constexprs only when in the blob)."""
    return dict(id=id, file=file, kernel=kernel, params=params, constexprs=constexprs,
                grid=grid, grid_in_blob=grid_in_blob, sizes=sizes, tier=tier, tol=tol,
                num_warps=num_warps, bench=bench)


def _elementwise(id, file, kernel, params, tol=EXACT, block=1024, extra=None, num_warps=4):
    cx = {"BLOCK_SIZE": block}
    cx.update(extra or {})
    return case(id, file, kernel, params, cx, "cdiv(n_elements, BLOCK_SIZE)", SIZES_1D, 1, tol,
                num_warps)


def _n(dtype, role="in", init="randn"):
    return T(role, dtype, ["n"], init)


T1 = "tests/gpu/kernels/tier1.py"
T2 = "tests/gpu/kernels/tier2.py"
EX_ADD = "examples/vector_add/kernel.py"
EX_SILU = "examples/silu/kernel.py"
N_ELEMENTS = S("i32", "n")

CASES = [
    _elementwise("vadd_f32", EX_ADD, "add_kernel",
                 [_n("fp32"), _n("fp32"), _n("fp32", "out"), N_ELEMENTS]),
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
]

RED_SIZES = [{"M": 1, "N": 1}, {"M": 100, "N": 257}, {"M": 1823, "N": 781}]
RED_OPS = {0: "sum", 1: "max", 2: "min", 3: "argmax", 4: "sum_keepdims"}


def _rows_cx(op):
    def f(s):
        bn = next_pow2(s["N"])
        return {"OP": op, "BLOCK_M": max(1, min(64, 8192 // bn)), "BLOCK_N": bn}
    return f


def _cols_cx(op):
    def f(s):
        bm = next_pow2(s["M"])
        return {"OP": op, "BLOCK_M": bm, "BLOCK_N": max(1, min(64, 8192 // bm))}
    return f


for _dt, _ops in (("fp32", (0, 1, 2, 3, 4)), ("i32", (0, 1, 3))):
    for _op in _ops:
        _init = "ties:0:4" if _op == 3 else ("randn" if _dt == "fp32" else "randint:-1000:1000")
        _out = "i32" if _op == 3 else _dt
        _tol = tol(1e-5, 1e-5) if (_dt == "fp32" and _op in (0, 4)) else EXACT
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

# --- benchmarks: one size each, same kernels -------------------------------

BENCH = [
    case("bench_vadd_f32", EX_ADD, "add_kernel",
         [_n("fp32"), _n("fp32"), _n("fp32", "out"), N_ELEMENTS], {"BLOCK_SIZE": 1024},
         "cdiv(n_elements, BLOCK_SIZE)", [{"n": 2**26}], 1, bench="vector add fp32 2^26"),
    case("bench_silu_bf16", EX_SILU, "silu_kernel", [_n("bf16"), _n("bf16", "out"), N_ELEMENTS],
         {"BLOCK_SIZE": 1024}, "cdiv(n_elements, BLOCK_SIZE)", [{"n": 2**26}], 1,
         bench="SiLU bf16 2^26"),
    case("bench_softmax_4096", T2, "softmax_row_kernel", SOFTMAX_ROW_PARAMS, _softmax_cx, "M",
         [{"M": 4096, "N": 4096}], 2, num_warps=_softmax_warps, grid_in_blob=False,
         bench="softmax fp32 4096x4096 (row per program)"),
    case("bench_softmax_p_4096", T2, "softmax_persistent_kernel", SOFTMAX_PERSISTENT_PARAMS,
         _softmax_cx, "min(n_rows, 528)", [{"M": 4096, "N": 4096}], 2, num_warps=_softmax_warps,
         bench="softmax fp32 4096x4096 (persistent)"),
    case("bench_layer_norm_f16", T2, "layer_norm_fwd_kernel", _ln_params("fp16"), _ln_cx(2), "M",
         [{"M": 4096, "N": 8192}], 2, num_warps=_ln_warps(2), grid_in_blob=False,
         bench="layer norm fwd fp16 4096x8192"),
    case("bench_softmax_odd", T2, "softmax_row_kernel", SOFTMAX_ROW_PARAMS, _softmax_cx, "M",
         [{"M": 1823, "N": 781}], 2, num_warps=_softmax_warps, grid_in_blob=False,
         bench="softmax fp32 1823x781"),
]


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
            iid += "_" + "_".join(str(v) for k, v in sorted(cx.items()) if k != "OP")
        inst = {k: v for k, v in c.items() if k not in ("constexprs", "num_warps", "sizes")}
        inst.update(id=iid, constexprs=cx, num_warps=w, sizes=sizes)
        out.append(inst)
    return out


def instances():
    out = []
    for c in CASES + BENCH:
        out.extend(expand(c))
    return out
