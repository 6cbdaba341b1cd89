#!/usr/bin/env bash
# test_limits.sh - every limit of docs/LANGUAGE.md's table ("Limits"): an
# input just past it is refused with its diagnostic (an exit status of 1,
# never a crash: a status of 128 or more fails), and for the structural
# limits an input at it is accepted. Then the peak memory of the plain
# tilec (TILEC_STATS) on inputs at the limits is bounded (LIMIT_MB), the
# figures printed. Inputs are generated in a temporary directory.
set -u
TILEC=${TILEC:-build/tilec}
PLAIN=${TILE_BUILD:-build}/tilec
LIMIT_MB=${LIMIT_MB:-256}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# expect NAME STATUS NEEDLE -- COMMAND...: exit status and a substring of stdout+stderr
expect() {
	local name=$1 want=$2 needle=$3
	shift 4
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" != "$want" ]; then
		bad "$name: exit $rc, want $want"
		echo "$out" | head -c 2000 | head -n 20
	elif [ -n "$needle" ] && ! grep -qF -- "$needle" <<<"$out"; then
		bad "$name: output lacks '$needle'"
		echo "$out" | head -c 2000 | head -n 20
	else
		ok
	fi
}

# kernel FILE BODY_FILE: a kernel k(x_ptr, n, BLOCK) whose body is BODY_FILE
kernel() {
	{
		printf 'import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n'
		printf '    offs = tl.arange(0, BLOCK)\n    v = tl.load(x_ptr + offs)\n'
		cat "$2"
		printf '    tl.store(x_ptr + offs, v)\n'
	} >"$1"
}

IR=(-n k -s '*fp32, i32' -D BLOCK=64)

# file size: 16 MiB
{ printf 'import triton\n'; head -c $((16 * 1024 * 1024)) /dev/zero | tr '\0' '#'; printf '\n'; } >"$TMP/big.py"
expect file-size 1 "is larger than 16 MiB" -- "$TILEC" ir "$TMP/big.py" "${IR[@]}"

# line length: 1 MiB characters
printf '    # %s\n' "$(head -c $((1024 * 1024 - 6)) /dev/zero | tr '\0' 'x')" >"$TMP/line_ok.body"
kernel "$TMP/line_ok.py" "$TMP/line_ok.body"
expect line-at-limit 0 "" -- "$TILEC" ir "$TMP/line_ok.py" "${IR[@]}"
printf '    # %s\n' "$(head -c $((1024 * 1024 - 5)) /dev/zero | tr '\0' 'x')" >"$TMP/line_long.body"
kernel "$TMP/line_long.py" "$TMP/line_long.body"
expect line-length 1 "line_long.py:9: line of 1048577 characters (at most 1048576)" -- "$TILEC" ir "$TMP/line_long.py" "${IR[@]}"

# indentation: 100 levels
nested_ifs() { # N: N nested ifs in the kernel (levels 2..N+1)
	local i ind="    "
	for ((i = 0; i < $1; i++)); do
		printf '%sif n > %d:\n' "$ind" "$i"
		ind="$ind    "
		printf '%sv = v + %d\n' "$ind" "$i"
	done
}
nested_ifs 98 >"$TMP/indent_ok.body"
kernel "$TMP/indent_ok.py" "$TMP/indent_ok.body"
expect indent-at-limit 0 "" -- "$TILEC" ir "$TMP/indent_ok.py" "${IR[@]}"
nested_ifs 100 >"$TMP/indent.body"
kernel "$TMP/indent.py" "$TMP/indent.body"
expect indentation 1 "too many levels of indentation" -- "$TILEC" ir "$TMP/indent.py" "${IR[@]}"

# brackets: 200 open at once
parens() { printf '    v = %sv%s\n' "$(printf '(%.0s' $(seq "$1"))" "$(printf ')%.0s' $(seq "$1"))"; }
parens 190 >"$TMP/paren_ok.body"
kernel "$TMP/paren_ok.py" "$TMP/paren_ok.body"
expect brackets-near-limit 0 "" -- "$TILEC" ir "$TMP/paren_ok.py" "${IR[@]}"
parens 201 >"$TMP/paren.body"
kernel "$TMP/paren.py" "$TMP/paren.body"
expect brackets 1 "too many nested parentheses" -- "$TILEC" ir "$TMP/paren.py" "${IR[@]}"

# expression nesting: 200
printf '    v = %sv\n' "$(printf -- '- %.0s' $(seq 201))" >"$TMP/unary.body"
kernel "$TMP/unary.py" "$TMP/unary.body"
expect expression-depth 1 "expression nested too deeply" -- "$TILEC" ir "$TMP/unary.py" "${IR[@]}"

# if/elif chains: 200 clauses; 6000 once crashed the parser
elifs() {
	local i
	printf '    if n == 0:\n        v = v + 1\n'
	for ((i = 1; i < $1; i++)); do printf '    elif n == %d:\n        v = v + %d\n' "$i" "$i"; done
}
elifs 200 >"$TMP/elif_ok.body"
kernel "$TMP/elif_ok.py" "$TMP/elif_ok.body"
expect elif-near-limit 0 "" -- "$TILEC" ir "$TMP/elif_ok.py" "${IR[@]}"
elifs 6000 >"$TMP/elif.body"
kernel "$TMP/elif.py" "$TMP/elif.body"
expect elif-chain 1 "if/elif chain of more than 200 clauses" -- "$TILEC" ir "$TMP/elif.py" "${IR[@]}"

# block elements: 2^20
printf '    z = tl.zeros((1024, 1024), tl.float32)\n    v = v + tl.sum(tl.sum(z, 1), 0)\n' >"$TMP/elems_ok.body"
kernel "$TMP/elems_ok.py" "$TMP/elems_ok.body"
expect elements-at-limit 0 "" -- "$TILEC" ir "$TMP/elems_ok.py" "${IR[@]}"
printf '    z = tl.zeros((2048, 1024), tl.float32)\n    v = v + tl.sum(tl.sum(z, 1), 0)\n' >"$TMP/elems.body"
kernel "$TMP/elems.py" "$TMP/elems.body"
expect elements 1 "block of more than 1048576 elements" -- "$TILEC" ir "$TMP/elems.py" "${IR[@]}"

# block rank: 4
printf '    z = tl.zeros((2, 2, 2, 2, 2), tl.float32)\n' >"$TMP/rank.body"
kernel "$TMP/rank.py" "$TMP/rank.body"
expect rank 1 "blocks of more than 4 dimensions are not supported" -- "$TILEC" ir "$TMP/rank.py" "${IR[@]}"

# tl.static_range: 4096 iterations
printf '    for i in tl.static_range(4097):\n        v = v + i\n' >"$TMP/unroll.body"
kernel "$TMP/unroll.py" "$TMP/unroll.body"
expect static-range 1 "tl.static_range of more than 4096 iterations" -- "$TILEC" ir "$TMP/unroll.py" "${IR[@]}"

# IR values after unrolling and inlining: 65536
printf '    for i in tl.static_range(4096):\n        for j in tl.static_range(20):\n            v = v + j\n' >"$TMP/values.body"
kernel "$TMP/values.py" "$TMP/values.body"
expect ir-values 1 "the kernel grows past 65536 IR values" -- "$TILEC" ir "$TMP/values.py" "${IR[@]}"
# helpers calling helpers twice each, 40 deep: 2^40 inlined calls without the limit
{
	printf 'import triton\nimport triton.language as tl\n\n\n'
	for ((i = 0; i < 40; i++)); do
		printf '@triton.jit\ndef h%d(v):\n    return h%d(v) + h%d(v)\n\n\n' "$i" $((i + 1)) $((i + 1))
	done
	printf '@triton.jit\ndef h40(v):\n    return v + 1\n\n\n'
	printf '@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n    offs = tl.arange(0, BLOCK)\n'
	printf '    tl.store(x_ptr + offs, h0(tl.load(x_ptr + offs)))\n'
} >"$TMP/doubling.py"
expect inline-doubling 1 "the kernel grows past 65536 IR values" -- timeout 120 "$TILEC" ir "$TMP/doubling.py" "${IR[@]}"
# the same of plain functions run at compile time, which grow no IR: 65536
# calls (15 deep: 65535 calls, accepted)
hostcalls() {
	printf 'import triton\nimport triton.language as tl\n\n\n'
	for ((i = 0; i < $1; i++)); do
		printf '@tl.constexpr\ndef c%d(n):\n    return c%d(n) + c%d(n)\n\n\n' "$i" $((i + 1)) $((i + 1))
	done
	printf '@tl.constexpr\ndef c%d(n):\n    return n\n\n\n' "$1"
	printf '@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n    tl.store(x_ptr, c0(BLOCK))\n'
}
hostcalls 40 >"$TMP/hostcalls.py"
expect host-calls 1 "plain functions run at compile time make more than 65536 calls" -- timeout 120 "$TILEC" ir "$TMP/hostcalls.py" "${IR[@]}"
hostcalls 15 >"$TMP/hostcalls15.py"
expect host-calls-at 0 "const 2097152" -- "$TILEC" ir "$TMP/hostcalls15.py" "${IR[@]}"

# helper depth: 64
printf 'import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef r(v):\n    return r(v)\n\n\n@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n    tl.store(x_ptr, r(n))\n' >"$TMP/recurse.py"
expect helper-depth 1 "helper calls nested more than 64 deep" -- "$TILEC" ir "$TMP/recurse.py" "${IR[@]}"

# call arguments: 64
{
	printf 'import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef h(*args):\n    return 0\n\n\n'
	printf '@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n    tl.store(x_ptr, h(%s))\n' "$(seq -s ', ' 1 65)"
} >"$TMP/args.py"
expect call-arguments 1 "a call with more than 64 positional" -- "$TILEC" ir "$TMP/args.py" "${IR[@]}"

# kernel parameters: 64
{
	printf 'import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef p(x_ptr, %s):\n    tl.store(x_ptr, a0)\n' \
		"$(seq -f 'a%g' -s ', ' 0 64)"
} >"$TMP/params.py"
sig="*fp32$(printf ', i32%.0s' $(seq 65))"
expect parameters 1 "a blob kernel takes at most 64" -- "$TILEC" compile "$TMP/params.py" -n p -s "$sig" -g 1 -o "$TMP/params" --arch sm_80

# -s per command: 64 (a command-line error: status 2)
sigs=()
for ((i = 0; i < 65; i++)); do sigs+=(-s '*fp32, i32'); done
expect signatures 2 "too many -s" -- "$TILEC" compile "$TMP/elif_ok.py" -n k "${sigs[@]}" -D BLOCK=64 -o "$TMP/sigs"

# kernels and variants in one blob: 1024
for ((i = 0; i < 1025; i++)); do printf '%s k "*fp32, i32" -D BLOCK=64 -g 1\n' "$TMP/elif_ok.py"; done >"$TMP/jobs.tile"
expect manifest-jobs 1 "more than 1024 kernels and variants in one blob" -- "$TILEC" compile -m "$TMP/jobs.tile" -o "$TMP/jobs"

# grid program: 256 bytes
grid="n$(printf ' + n%.0s' $(seq 200))"
expect grid-program 1 "grid expression too long" -- "$TILEC" compile "$TMP/elif_ok.py" "${IR[@]}" -g "$grid" -o "$TMP/grid" --arch sm_80

# peak memory at the limits (the plain build; ASan's would count its shadow)
if [ -x "$PLAIN" ]; then
	peak() { # NAME COMMAND...: the peak in MiB, checked against LIMIT_MB
		local name=$1 kib
		shift
		kib=$(TILEC_STATS=1 "$@" 2>&1 >/dev/null | sed -n 's/^tilec: peak memory \([0-9]*\) KiB.*/\1/p' | tail -n 1)
		if [ -z "$kib" ]; then
			bad "peak memory of $name: no TILEC_STATS line"
		elif [ $((kib / 1024)) -gt "$LIMIT_MB" ]; then
			bad "peak memory of $name: $((kib / 1024)) MiB > $LIMIT_MB MiB"
		else
			echo "peak memory: $name $((kib / 1024)) MiB"
			ok
		fi
	}
	peak "if/elif chain of 200, compiled" "$PLAIN" compile "$TMP/elif_ok.py" "${IR[@]}" -o "$TMP/pk1" --arch sm_80
	peak "98 nested ifs, compiled" "$PLAIN" compile "$TMP/indent_ok.py" "${IR[@]}" -o "$TMP/pk2" --arch sm_80
	peak "a 1 MiB line" "$PLAIN" ir "$TMP/line_ok.py" "${IR[@]}"
	peak "a 16 MiB file, refused" "$PLAIN" ir "$TMP/big.py" "${IR[@]}"
	peak "IR values past the limit" "$PLAIN" ir "$TMP/values.py" "${IR[@]}"
	peak "doubling helpers" "$PLAIN" ir "$TMP/doubling.py" "${IR[@]}"
	peak "1025 manifest lines" "$PLAIN" compile -m "$TMP/jobs.tile" -o "$TMP/jobs"
else
	bad "no $PLAIN for the peak memory checks"
fi

echo "test_limits: $passed passed, $failed failed"
[ "$failed" = 0 ]
