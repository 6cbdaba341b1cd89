#!/usr/bin/env bash
# test_second_llvm.sh - the checks whose outcome depends on LLVM, again with
# a second LLVM when one is installed. ./build.sh test builds and runs the
# whole suite with one LLVM (19 by default; LLVM_CONFIG chooses); this
# script takes the other of 19 and 22 (the newest Debian ships), or
# TILE_LLVM2 (an llvm-config), builds a plain tilec with it into
# $TILE_BUILD/llvmNN (libtile.a and tilec only: no sanitized builds, no test
# programs; LLVM linked as the shared library) and runs with that tilec the
# scripts that compile kernels to PTX and check it:
#   test_compile.sh, test_compile_atomics.sh, test_compile_fp8.sh,
#   test_targets.sh, test_regress.sh
# (under 2 minutes on 2 cores, the build included). With no second LLVM
# installed it says so and counts nothing. The C test programs and the
# other scripts (front end, loader, blobs, interpreter) run with the first
# LLVM only: LLVM takes no part in what they check, or they check it
# through tilec's IR, not its PTX.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${TILE_BUILD:-$ROOT/build}
passed=0
failed=0

major() { "$1" --version 2>/dev/null | cut -d. -f1; }
# usable LLVM: 17 or newer, the C API's headers, the NVPTX target
usable() {
	local v
	command -v "$1" >/dev/null 2>&1 || return 1
	v=$(major "$1")
	[ -n "$v" ] && [ "$v" -ge 17 ] 2>/dev/null && [ -e "$("$1" --includedir)/llvm-c/Core.h" ] &&
		"$1" --targets-built 2>/dev/null | grep -qw NVPTX
}

first=$(major "${LLVM_CONFIG:-llvm-config-19}")
second=""
for c in ${TILE_LLVM2:-llvm-config-22 llvm-config-19}; do
	if usable "$c" && [ "$(major "$c")" != "$first" ]; then
		second=$c
		break
	fi
done
if [ -z "$second" ]; then
	echo "skipped: no second LLVM (llvm-config-22 or -19 other than LLVM ${first:-?}, or TILE_LLVM2) installed"
	echo "test_second_llvm: 0 passed, 0 failed"
	exit 0
fi
v=$(major "$second")
B=$BUILD_DIR/llvm$v
echo "building tilec with $second ($("$second" --version)) into $B"
if make -s -j"$(nproc 2>/dev/null || echo 2)" BUILD="$B" LLVM_CONFIG="$second" "$B/tilec" >"$BUILD_DIR/llvm$v.build.log" 2>&1; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL: building tilec with $second"
	tail -n 30 "$BUILD_DIR/llvm$v.build.log"
	echo "test_second_llvm: $passed passed, $failed failed"
	exit 1
fi

for t in test_compile.sh test_compile_atomics.sh test_compile_fp8.sh test_targets.sh test_regress.sh; do
	log=$B/$t.log
	TILEC=$B/tilec bash "tests/$t" >"$log" 2>&1
	rc=$?
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	p=$(echo "$line" | sed -nE 's/.*\b([0-9]+) passed, ([0-9]+) failed.*/\1/p')
	f=$(echo "$line" | sed -nE 's/.*\b([0-9]+) passed, ([0-9]+) failed.*/\2/p')
	if [ -z "$p" ]; then
		failed=$((failed + 1))
		echo "FAIL: LLVM $v: $t exited $rc without a result line"
		tail -n 30 "$log"
		continue
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" != 0 ] || [ "$rc" != 0 ]; then
		[ "$f" != 0 ] || failed=$((failed + 1))
		echo "FAIL: LLVM $v: $line (exit $rc)"
		grep -v -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 30
	else
		echo "ok   LLVM $v: $line"
	fi
done
echo "test_second_llvm: $passed passed, $failed failed"
[ "$failed" = 0 ]
