"""Unit checks of tile-capture's pieces that need no program run: grid
translation (precedence, call-site arguments, META lookups, refusals),
heuristic modes (docs/LANGUAGE.md's rules), signature types and hints as
Triton 3.6 specializes them, constexpr text, manifest quoting, launch
function names, tilec inspect parsing. Prints "units: N passed, N failed"."""
import ast
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tile_capture import emit, launch, pyexpr, tilec  # noqa: E402

passed = failed = 0


def check(what, got, want):
    global passed, failed
    if got == want:
        passed += 1
    else:
        failed += 1
        print("FAIL %s: got %r, want %r" % (what, got, want))


def grid(src, ints, args=None, meta="META", lookup=None):
    """The translation of the expression src, or 'refused: reason'."""
    env = pyexpr.GridEnv(ints, meta, {ast.dump(ast.parse(e, mode="eval").body): p for e, p in (args or {}).items()},
                         lookup)
    try:
        return pyexpr.translate(ast.parse(src, mode="eval").body, env)
    except pyexpr.Untranslatable as e:
        return "refused: %s" % e


I = {"n": 100, "M": 64, "N": 32, "K": 16, "BLOCK": 32, "BM": 16, "BN": 16}
check("cdiv over META", grid('(triton.cdiv(n, META["BLOCK"]),)', I), "cdiv(n, BLOCK)")
check("META.get", grid('(cdiv(n, META.get("BLOCK")), 1)', I), "cdiv(n, BLOCK), 1")
check("product", grid('(triton.cdiv(M, META["BM"]) * triton.cdiv(N, META["BN"]),)', I),
      "cdiv(M, BM) * cdiv(N, BN)")
check("parentheses kept", grid("((M + N) * K,)", I), "(M + N) * K")
check("right operand", grid("(M - (N - K),)", I), "M - (N - K)")
check("left-associative", grid("(M // BLOCK * K,)", I), "M // BLOCK * K")
check("three dims", grid("(M, N, max(K, 1, BLOCK))", I), "M, N, max(K, 1, BLOCK)")
check("next_power_of_2 and int", grid("(int(triton.next_power_of_2(n)),)", I), "next_power_of_2(n)")
check("unary minus", grid("(-(-n // BLOCK),)", I), "-(-n // BLOCK)")
check("call-site argument", grid("(x.shape[0] * 2,)", I, {"x.shape[0]": "M"}), "M * 2")
check("a local under another name", grid("(rows,)", I, {"rows": "M"}), "M")
check("a tensor's size", grid("(x.numel(),)", I).startswith("refused: `x.numel()`"), True)
check("a pointer in META", grid('(META["x_ptr"],)', I), "refused: META['x_ptr'] is not an integer parameter or "
      "constexpr")
check("if-expression", grid("(1 if n else 2,)", I).startswith("refused"), True)
check("four dims", grid("(1, 2, 3, 4)", I), "refused: a grid of 4 dimensions")
check("a name with another value", grid("(n,)", I, lookup=lambda name: (True, 7, False)),
      "refused: `n` is not passed to the kernel as an integer argument")
check("module global inlined", grid("(NUM_SMS,)", I, lookup=lambda name: (True, 132, True)), "132")
check("local not inlined", grid("(NUM_SMS,)", I, lookup=lambda name: (True, 132, False)).startswith("refused"),
      True)
check("evaluate", pyexpr.evaluate("cdiv(n, BLOCK), 2", I), (4, 2, 1))
check("check_grid agrees", pyexpr.check_grid("cdiv(n, BLOCK)", I, (4, 1, 1)), None)
check("check_grid differs", pyexpr.check_grid("n // BLOCK", I, (4, 1, 1)),
      "n // BLOCK gives [3, 1, 1] where Triton launched [4, 1, 1]")


def mode(src, kinds):
    return pyexpr.heuristic_mode(ast.parse(src, mode="eval").body, kinds)


KINDS = {"K": "int", "BLOCK_K": "constexpr", "smoothing": "float", "x": "pointer", "flag": "bool"}
check("comparison at launch", mode('lambda a: a["K"] % a["BLOCK_K"] == 0', KINDS), ("launch-bool", ""))
check("float comparison", mode('lambda args: args["smoothing"] > 0.0', KINDS), ("launch-bool", ""))
check("float arithmetic", mode('lambda args: args["smoothing"] * 2 > 0.1', KINDS)[0], "fixed")
check("constexprs only fold", mode('lambda args: args["BLOCK_K"] * 2', KINDS), ("fold", ""))
check("value at launch", mode('lambda args: min(triton.next_power_of_2(args["K"]) // 1024, 4)', KINDS),
      ("launch-value", ""))
check("host call", mode('lambda args: helper(args["K"])', KINDS), ("fixed", "`helper(args['K'])` is host code"))
check("a tensor", mode('lambda args: args["x"] is None', KINDS)[0], "fixed")
check("not of a bool", mode('lambda args: not args["flag"]', KINDS), ("launch-bool", ""))


class P:  # a KernelParam as param_list reads it
    def __init__(self, name, dns=False, dnsoa=False, ann=""):
        self.p = (name, False, dns, dnsoa, ann)


class T:  # a tensor
    def __init__(self, ptr, dtype="torch.float16"):
        self.ptr, self.dtype = ptr, dtype

    def data_ptr(self):
        return self.ptr


check("aligned pointer", launch.arg_type(T(4096), P("x").p), ("*fp16", ":16", None))
check("unaligned pointer", launch.arg_type(T(4098), P("x").p), ("*fp16", "", None))
check("pointer, do_not_specialize_on_alignment", launch.arg_type(T(4096), P("x", dnsoa=True).p),
      ("*fp16", "", None))
check("int 1", launch.arg_type(1, P("s").p), ("i32", ":1", None))
check("int 32", launch.arg_type(32, P("n").p), ("i32", ":16", None))
check("int 33", launch.arg_type(33, P("n").p), ("i32", "", None))
check("int 1, do_not_specialize", launch.arg_type(1, P("n", dns=True).p), ("i32", "", None))
check("int 32, on alignment", launch.arg_type(32, P("n", dnsoa=True).p), ("i32", "", None))
check("i64", launch.arg_type(2**31, P("n").p), ("i64", ":16", None))
check("u64", launch.arg_type(2**63, P("n").p), ("u64", ":16", None))
check("annotated i64 equal to 1", launch.arg_type(1, P("n", ann="i64").p), ("i64", "", None))
check("annotated float", launch.arg_type(16, P("f", ann="fp32").p), ("fp32", "", None))
check("bool", launch.arg_type(True, P("b").p), ("i1", "", None))
check("float", launch.arg_type(0.5, P("f").p), ("fp32", "", None))
check("None", launch.arg_type(None, P("b").p)[2].startswith("None passed for runtime parameter `b`"), True)
check("complex pointer", launch.arg_type(T(0, "torch.complex64"), P("z").p)[2],
      "`z` points to complex64, a type tilec has no pointers to")
check("fp8 pointer", launch.arg_type(T(0, "torch.float8_e4m3fn"), P("q").p), ("*fp8e4nv", ":16", None))


# a class named dtype with a name, as tl.float16 is
Dtype = type("dtype", (), {"__init__": lambda self, name: setattr(self, "name", name)})
check("constexpr int", launch.constexpr_text(1024), ("1024", None))
check("constexpr str", launch.constexpr_text("gelu"), ("'gelu'", None))
check("constexpr bool", launch.constexpr_text(True), ("True", None))
check("constexpr None", launch.constexpr_text(None), ("None", None))
check("constexpr dtype", launch.constexpr_text(Dtype("fp16")), ("tl.float16", None))
check("constexpr inf", launch.constexpr_text(float("inf"))[0], None)
check("constexpr with both quotes", launch.constexpr_text("a'b\"c")[0], None)

check("quote plain", emit.quote("-D"), "-D")
check("quote blanks", emit.quote("*fp32:16, i32"), '"*fp32:16, i32"')
check("quote a string constexpr", emit.quote("ACT='gelu'"), "\"ACT='gelu'\"")
try:
    emit.quote("X='a\"b'")
    check("both quotes refused", False, True)
except ValueError:
    check("both quotes refused", True, True)

keys = [emit.json.dumps(k) for k in ([["*fp32", "int"], [["B", "1024"]], []],
                                     [["*fp16", "int"], [["B", "1024"]], []],
                                     [["*fp16", "int"], [["B", "512"]], []])]
check("names", emit.group_names("k", keys), ["k_fp32_B_1024", "k_fp16_B_1024", "k_fp16_B_512"])
check("one group keeps the name", emit.group_names("k", keys[:1]), ["k"])

INSPECT = """x.c: tile blob v5, 5792 bytes, 1 kernel, 1 image
kernel rowsum_kernel
  param 2 K: i32
  configs 2; tuning key K; default config 0; 0 entries; identity 4a7672ed71e202d2
  variant 0: rowsum_kernel_0, group 0, num_warps 4, num_stages 3, shared 16 static + 0 dynamic, config 0 (autotune config 1)
  variant 1: rowsum_kernel_1, group 0, num_warps 4, num_stages 3, shared 16 static + 0 dynamic, config 1 (autotune config 2)
"""
check("inspect", tilec.inspect_text(INSPECT),
      {"identity": "4a7672ed71e202d2", "nconfigs": 2, "key": ["K"], "configs": {1: 0, 2: 1}})
check("inspect without key", tilec.inspect_text(INSPECT.replace("tuning key K;", "tuning key (none);"))["key"], [])

print("units: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
