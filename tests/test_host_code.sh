#!/usr/bin/env bash
# test_host_code.sh - what the host Python around kernels binds, as public
# kernels use it (tests/kernels/regress/factory.py, host_fn.py,
# host_globals.py):
#  - kernels a factory function defines in its body (torchao): -n finds
#    them, their names resolve in the factory first (its imports, helpers,
#    constants), then in the module; a factory's parameter, a name it binds
#    twice, and one kernel name in two factories are refused, named;
#  - plain functions a kernel calls at compile time (FlagGems' cumsum:
#    @tl.constexpr def get_scan_accum_type(dtype)), and their refusals: an
#    unmarked global, a loop, a tensor argument, a raise;
#  - module-level names host code computes (xformers' libdevice_find,
#    FlagGems' tl_extra_shim in a `try`): a try whose body tile can
#    evaluate binds as Python does, others need --bind, on the command line
#    and on manifest lines, bare or qualified by the module.
# Uses $TILEC (the sanitized tilec under build.sh) or build/tilec.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TILEC=${TILEC:-$ROOT/build/tilec}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
R=tests/kernels/regress
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { # check DESCRIPTION COMMAND...: the command must succeed
	local what=$1
	shift
	if "$@" >"$T/out" 2>&1; then ok; else fail "$what"; head -c 2000 "$T/out"; echo; fi
}
refuse() { # refuse DESCRIPTION COMMAND...: the command must fail with exit status 1
	local what=$1
	shift
	"$@" >"$T/out" 2>&1
	local rc=$?
	if [ $rc = 1 ]; then ok; else fail "$what: exit $rc"; head -c 2000 "$T/out"; echo; fi
}
expect_out() { # expect_out DESCRIPTION PATTERN: the last command's output matches
	if grep -qE -- "$2" "$T/out"; then ok; else fail "$1: no '$2' in:"; head -c 2000 "$T/out"; echo; fi
}

# 1. kernels defined in factories
check "a factory's kernel runs: its helper, constant and default from the factory, SHIFT from the module" \
	"$TILEC" run $R/factory.py -n scale_kernel -s '*fp32, *fp32, i32' -g 2 \
	--arg buf:100:arange --arg buf:100 --arg 100 --print 1:100
expect_out "x * SCALE + SHIFT" ': 100 102 104 .* 296 298$'
check "two defs deep: N from the outer one, SHIFT declared global by the middle one" \
	"$TILEC" run $R/factory.py -n deep_kernel -s '*fp32' -g 1 --arg buf:4 --print 0:4
expect_out "four SHIFTs" ': 100 100 100 100$'
check "a factory's kernel compiles" \
	"$TILEC" compile $R/factory.py -n scale_kernel -s '*fp32:16, *fp32:16, i32' --arch sm_80 -o "$T/fk"
refuse "a factory's parameter" "$TILEC" ir $R/factory.py -n cast_kernel -s '*fp32, *fp16'
expect_out "named as such" "factory.py:52:43: error: .dtype. is a parameter of .make_cast_kernel., in whose body this code is defined: its value is known only when the program calls .make_cast_kernel."
refuse "a name a factory binds in both branches of an if" "$TILEC" ir $R/factory.py -n offset_kernel -s '*fp32'
expect_out "named with its bindings" "factory.py:67:42: error: .OFFSET. is bound in .make_offset_kernel., in whose body this code is defined, by more than one statement \(line 61\)"
expect_out "and the second one noted" "factory.py:63:9: note: and here"
refuse "a name an assignment expression binds in the factory" "$TILEC" ir $R/factory.py -n walrus_kernel -s '*fp32'
expect_out "named" "factory.py:100:25: error: .n. is bound in .make_walrus_kernel., in whose body this code is defined, by an assignment expression \(:=\) \(line 95\)"
refuse "one kernel name in two factories" "$TILEC" ir $R/factory.py -n dup_kernel -s '*fp32'
expect_out "both named" "error: kernel .dup_kernel. is defined in .make_dup_a. \(line 76\) and in .make_dup_b. \(line 86\): tilec cannot tell which one the program launches"
refuse "a kernel name that is nowhere" "$TILEC" compile $R/factory.py -n nope -s '*fp32' -o "$T/no"
expect_out "the factories' kernels are listed" "no @triton.jit kernel named 'nope' \(there are: _scaled, scale_kernel, deep_kernel, cast_kernel"

# 2. plain functions run at compile time
check "@tl.constexpr, @triton.constexpr_function and a module's plain function" \
	"$TILEC" ir $R/host_fn.py -I $R -n acc_kernel -s '*fp16, *fp32' -D BLOCK=100
expect_out "block_for(100) is 128" 'arange 0, 128 '
expect_out "acc_type(fp16) is fp32" 'cast %[0-9]+ : <128xfp32>'
expect_out "scaled(3) is 6" 'const 6 : fp32'
check "acc_type(i32) is int64" "$TILEC" ir $R/host_fn.py -I $R -n acc_kernel -s '*i32, *i64' -D BLOCK=64
expect_out "widened to i64" 'cast %[0-9]+ : <64xi64>'
refuse "a global plain function not marked @tl.constexpr (Triton refuses it too)" \
	"$TILEC" ir $R/host_fn.py -I $R -n plain_kernel -s '*fp32'
expect_out "named" "host_fn.py:54:21: error: .plain. is not a @triton.jit function: a kernel can call only @jit helpers, and plain functions marked @tl.constexpr \(run at compile time\)"
refuse "a loop in a plain function" "$TILEC" ir $R/host_fn.py -I $R -n loop_kernel -s '*fp32'
expect_out "the function and the construct named" "host_fn.py:33:5: error: .counted. runs at compile time \(a plain Python function\), where tilec evaluates .if. on compile-time values, assignments, .assert., .return. and .pass., not a .for. loop"
expect_out "and the call" "host_fn.py:59:21: note: in the call of .counted. here"
refuse "a tensor argument" "$TILEC" ir $R/host_fn.py -I $R -n tensor_arg_kernel -s '*fp32'
expect_out "named" "host_fn.py:64:21: error: .scaled. runs at compile time \(a plain Python function\): its argument .n. must be a compile-time value, not a tensor of type fp32"
check "a raise on a path not taken" "$TILEC" ir $R/host_fn.py -I $R -n raise_kernel -s '*fp32'
refuse "a raise that runs" "$TILEC" ir $R/host_fn.py -I $R -n raise_kernel -s '*i32'
expect_out "reported where it is" "host_fn.py:41:9: error: .only_float. \(run at compile time\) raises an exception here"

# 3. module-level names host code computes
check "a try whose body tile evaluates binds as Python does" \
	"$TILEC" run $R/host_globals.py -n shim_kernel -s '*fp32, *fp32' -D BLOCK=4 -g 1 \
	--arg buf:4:arange --arg buf:4 --print 1:4
expect_out "shim.pow is libdevice's: x ** 2" ': 0 1 4 9$'
refuse "a try that runs host code" "$TILEC" ir $R/host_globals.py -n other_kernel -s '*fp32, *fp32' -D BLOCK=4
expect_out "says so and suggests --bind" "host_globals.py:37:28: error: global .other. is not a compile-time constant: host code computes it \(the .try. at tests/kernels/regress/host_globals.py:16 runs host code, and its .except. clauses bind it only if that raises\), which tilec does not run \(give its value with --bind other=VALUE"
refuse "a name bound only in except clauses that do not run" "$TILEC" ir $R/host_globals.py -n handler_kernel -s '*fp32'
expect_out "named" "host_globals.py:48:21: error: global .only_in_handler. is bound only in the .except. clauses of the .try. at tests/kernels/regress/host_globals.py:22, which do not run"
refuse "a global a host function computes" "$TILEC" ir $R/host_globals.py -n rsqrt_kernel -s '*fp32, *fp32' -D BLOCK=4
expect_out "why the function does not run" "host_helpers.py:13:5: error: .find_fn. runs at compile time \(a plain Python function\), where tilec evaluates .if. on compile-time values, assignments, .assert., .return. and .pass., not a .for. loop"
expect_out "the suggestion names libdevice's rsqrt" "host_globals.py:43:28: error: global .rsqrt. is not a compile-time constant: host code computes it, which tilec does not run \(give its value with --bind rsqrt=VALUE: a Python literal, a dtype, or a Triton module or object by its path, such as triton.language.extra.libdevice.rsqrt\)"
check "--bind qualified by the module" \
	"$TILEC" run $R/host_globals.py -n rsqrt_kernel -s '*fp32, *fp32' -D BLOCK=4 -g 1 \
	--bind host_globals.rsqrt=triton.language.extra.libdevice.rsqrt --arg buf:4:arange --arg buf:4 --print 1:4
expect_out "1/sqrt(x)" ': inf 1 0.70710[0-9]* 0.57735[0-9]*$'
refuse "--bind qualified by another module binds nothing here" \
	"$TILEC" ir $R/host_globals.py -n rsqrt_kernel -s '*fp32, *fp32' -D BLOCK=4 \
	--bind other_module.rsqrt=triton.language.extra.libdevice.rsqrt
check "--bind a module, bare" "$TILEC" ir $R/host_globals.py -n other_kernel -s '*fp32, *fp32' -D BLOCK=4 \
	--bind other=triton.language.extra.cuda.libdevice
expect_out "other.pow is libdevice's" 'extern @__nv_powf'
check "--bind a literal" "$TILEC" ir $R/host_globals.py -n handler_kernel -s '*fp32' --bind only_in_handler=2.5
expect_out "stored" 'const 2.5 : fp32'
refuse "--bind to what Triton lacks" "$TILEC" ir $R/host_globals.py -n other_kernel -s '*fp32, *fp32' -D BLOCK=4 \
	--bind other=triton.language.extra.cuda.libdevicex
expect_out "named" "tilec: error: --bind other=triton.language.extra.cuda.libdevicex: the value is neither a Python literal nor a Triton module or object that tile knows"
refuse "--bind to another package" "$TILEC" ir $R/host_globals.py -n other_kernel -s '*fp32, *fp32' -D BLOCK=4 \
	--bind other=torch.ops
expect_out "named" "error: --bind other=torch.ops: the value is neither"
"$TILEC" compile $R/host_globals.py -n other_kernel -s '*fp32, *fp32' -D BLOCK=4 --bind other -o "$T/nb" >"$T/out" 2>&1
if [ $? = 2 ]; then ok; else fail "--bind without a value is a command-line error"; fi
expect_out "named" "--bind wants NAME=VALUE, not 'other'"
cat >"$T/m.txt" <<EOF
$ROOT/$R/host_globals.py rsqrt_kernel "*fp32:16, *fp32:16" -D BLOCK=64 --bind rsqrt=triton.language.extra.libdevice.rsqrt
$ROOT/$R/host_globals.py other_kernel "*fp32:16, *fp32:16" -D BLOCK=64 --bind host_globals.other=triton.language.extra.libdevice
EOF
check "--bind on manifest lines" "$TILEC" compile -m "$T/m.txt" --arch sm_80 -o "$T/man"
"$TILEC" compile -m "$T/m.txt" --bind rsqrt=1.0 --arch sm_80 -o "$T/man2" >"$T/out" 2>&1
if [ $? = 2 ]; then ok; else fail "--bind before -m is a command-line error"; fi
expect_out "goes on manifest lines" "with -m, kernel options \(-D, --bind,"
check "tilec compile --help" "$TILEC" compile --help
expect_out "documents --bind" "--bind NAME=VALUE  the value of a module-level name that host code computes"

echo "test_host_code: $passed passed, $failed failed"
[ "$failed" = 0 ]
