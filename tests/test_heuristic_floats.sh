#!/usr/bin/env bash
# test_heuristic_floats.sh - `@triton.heuristics` over float arguments,
# end to end on the CPU (tests/kernels/smoothing.py): `smoothing > 0.0`
# compiles to two variants chosen at launch (shown by `tilec inspect`, and
# the generated C builds against tile.h); `-D HAS_SMOOTHING=False` fixes
# the value without translating the lambda, even one that calls host code;
# without it such a lambda, and float arithmetic, are refused with the
# construct named.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
TILEC=${TILEC:-$ROOT/build/tilec}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { local n=$1; shift; if "$@" >"$T/out" 2>"$T/err"; then ok; else bad "$n"; head -20 "$T/err"; fi; }
has() { if grep -qF -- "$3" "$2"; then ok; else bad "$1: '$3' not in $2"; head -40 "$2"; fi; }
hasnt() { if grep -qF -- "$3" "$2"; then bad "$1: '$3' in $2"; else ok; fi; }
fails() {
	local n=$1 text=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ $rc = 1 ] && grep -qF -- "$text" "$T/err"; then ok; else bad "$n: rc $rc, stderr:"; head -10 "$T/err"; fi
}
K=tests/kernels/smoothing.py
SIG="*fp32:16, *fp32:16, fp32, i32"

# two variants, the heuristic evaluated at launch
check "compile smooth" "$TILEC" compile --no-hint-variants $K -n smooth_kernel -s "$SIG" -D BLOCK=256 -g "cdiv(n, BLOCK)" --arch sm_80 -o "$T/smooth"
check "inspect smooth" "$TILEC" inspect "$T/smooth.c"
has "heuristic shown" "$T/out" "heuristic HAS_SMOOTHING = smoothing > 0.0 (at launch)"
[ "$(grep -c '^  variant' "$T/out")" = 2 ] && ok || bad "smooth: 2 variants"
has "variant False" "$T/out" "HAS_SMOOTHING=False"
has "variant True" "$T/out" "HAS_SMOOTHING=True"
check "generated C builds" ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -I"$ROOT" -I"$T" -c "$T/smooth.c" -o "$T/smooth.o"

# fixed with -D: one variant, no heuristic at launch
check "compile fixed" "$TILEC" compile --no-hint-variants $K -n smooth_kernel -s "$SIG" -D BLOCK=256 -D HAS_SMOOTHING=False --arch sm_80 -o "$T/fixed"
check "inspect fixed" "$TILEC" inspect "$T/fixed.c"
hasnt "fixed: no heuristic" "$T/out" "(at launch)"
[ "$(grep -c '^  variant' "$T/out")" = 1 ] && ok || bad "fixed: 1 variant"

# a lambda calling host code: refused, unless -D fixes its value
fails "host call refused" "the heuristic for \`HAS_SMOOTHING\` reads runtime arguments, so it is evaluated at launch, where this call is not supported" \
	"$TILEC" compile --no-hint-variants $K -n host_kernel -s "$SIG" -D BLOCK=256 --arch sm_80 -o "$T/x"
has "host call: its line" "$T/err" "smoothing.py:18:"
check "host call fixed" "$TILEC" compile --no-hint-variants $K -n host_kernel -s "$SIG" -D BLOCK=256 -D HAS_SMOOTHING=False --arch sm_80 -o "$T/host"
check "inspect host fixed" "$TILEC" inspect "$T/host.c"
has "host fixed: False" "$T/out" "HAS_SMOOTHING=False"
hasnt "host fixed: no heuristic" "$T/out" "(at launch)"
check "host call fixed True" "$TILEC" compile --no-hint-variants $K -n host_kernel -s "$SIG" -D BLOCK=256 -D HAS_SMOOTHING=True --arch sm_80 -o "$T/host1"
fails "host call listed" "where this call is not supported" \
	"$TILEC" compile --no-hint-variants $K -n host_kernel -s "$SIG" -D BLOCK=256 -D HAS_SMOOTHING=False,True --arch sm_80 -o "$T/x"
[ ! -e "$T/x.c" ] && ok || bad "a failed compile wrote x.c"

# float arithmetic: refused with a caret; the other heuristic (an int and a
# float comparison) compiles once HAS_SMOOTHING is fixed
ASIG="*fp32:16, *fp32:16, fp32, fp32, i32"
fails "float arithmetic" "heuristic HAS_SMOOTHING:1:3: error: float operand of '*': a grid expression only compares floats (==, !=, <, <=, >, >=)" \
	"$TILEC" compile --no-hint-variants $K -n arith_kernel -s "$ASIG" -D BLOCK=256 --arch sm_80 -o "$T/x"
has "float arithmetic: the heuristic's line" "$T/err" "in the heuristic for \`HAS_SMOOTHING\`"
check "arith fixed" "$TILEC" compile --no-hint-variants $K -n arith_kernel -s "$ASIG" -D BLOCK=256 -D HAS_SMOOTHING=True --arch sm_80 -o "$T/arith"
check "inspect arith" "$TILEC" inspect "$T/arith.c"
has "mixed heuristic" "$T/out" "heuristic EVEN = n % BLOCK == 0 and scale != -0.5 (at launch)"
hasnt "fixed one not at launch" "$T/out" "heuristic HAS_SMOOTHING"
[ "$(grep -c '^  variant' "$T/out")" = 2 ] && ok || bad "arith: 2 variants (EVEN)"

echo "test_heuristic_floats: $pass passed, $fail failed"
[ "$fail" = 0 ]
