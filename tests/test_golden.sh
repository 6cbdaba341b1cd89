#!/usr/bin/env bash
# test_golden.sh - golden tests of `tilec ir`: IR dumps and diagnostics.
#
# tests/golden/cases.txt lists one case a line: NAME | FILE | ARGUMENTS
# (arguments as a shell would split them). A case passes when `tilec ir
# FILE ARGUMENTS` prints exactly tests/golden/NAME.ir and exits 0, or
# prints exactly tests/golden/NAME.err on stderr and exits 1.
# TILE_GOLDEN_UPDATE=1 rewrites the expected files from the current output
# (then review them: a golden file is only as good as its review).
set -u
cd "$(dirname "$0")/.."
TILEC=${TILEC:-build/tilec}
dir=tests/golden
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

trim() {
	local x=${1#"${1%%[![:space:]]*}"}
	echo "${x%"${x##*[![:space:]]}"}"
}

while IFS='|' read -r name file args; do
	name=$(trim "$name")
	file=$(trim "$file")
	case "$name" in '' | '#'*) continue ;; esac
	eval "set -- $args"
	"$TILEC" ir "$file" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "${TILE_GOLDEN_UPDATE:-0}" = 1 ]; then
		rm -f "$dir/$name.ir" "$dir/$name.err"
		if [ $rc = 0 ]; then cp "$tmp/out" "$dir/$name.ir"; else cp "$tmp/err" "$dir/$name.err"; fi
	fi
	if [ -f "$dir/$name.ir" ]; then
		if [ $rc = 0 ] && cmp -s "$tmp/out" "$dir/$name.ir"; then
			passed=$((passed + 1))
			continue
		fi
		echo "FAIL $name: exit $rc, expected the IR of $dir/$name.ir"
		diff "$dir/$name.ir" "$tmp/out" | head -20
		head -5 "$tmp/err"
	elif [ -f "$dir/$name.err" ]; then
		if [ $rc = 1 ] && cmp -s "$tmp/err" "$dir/$name.err"; then
			passed=$((passed + 1))
			continue
		fi
		echo "FAIL $name: exit $rc, expected the diagnostics of $dir/$name.err"
		diff "$dir/$name.err" "$tmp/err" | head -20
	else
		echo "FAIL $name: no $dir/$name.ir or $dir/$name.err (run with TILE_GOLDEN_UPDATE=1)"
	fi
	failed=$((failed + 1))
done <"$dir/cases.txt"

echo "test_golden: $passed passed, $failed failed"
[ $failed = 0 ]
