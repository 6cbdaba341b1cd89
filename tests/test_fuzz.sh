#!/usr/bin/env bash
# test_fuzz.sh - short bounded runs of every fuzz target under ASan/UBSan
# (tests/fuzz/run.sh), about 30 seconds of fuzzing in all, each from its
# seeds alone (FUZZ_FRESH); each target that builds and runs without a
# crash counts as one passed check.
set -u
cd "$(dirname "$0")/.."
build=${TILE_BUILD:-build}
n=0
for f in tests/fuzz/fuzz_*.c; do
	[ -e "$f" ] && n=$((n + 1))
done
seconds=$(( n > 0 ? 30 / n : 0 ))
[ "$seconds" -lt 5 ] && seconds=5
passed=0
failed=0
for f in tests/fuzz/fuzz_*.c; do
	[ -e "$f" ] || continue
	if FUZZ_FRESH=1 bash tests/fuzz/run.sh "$build" "$seconds" "$(basename "$f" .c)"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "test_fuzz: $passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
