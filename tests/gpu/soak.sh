#!/usr/bin/env bash
# soak.sh - on a GPU machine (gcc, the CUDA driver, compute-sanitizer; no
# LLVM): builds tests/gpu/soak.c and tests/gpu/graph.c with tile.h and the
# soak's generated C, and runs
#   1. graph: launches inside stream capture, a graph replayed 1000 times;
#      launch_flags: programmatic dependent and cooperative launches, and
#      thread block clusters;
#   2. the soak: 64 threads over every GPU (two contexts per GPU: the
#      primary one and a created one), 10^5 iterations of 3 launches each,
#      with the raw driver's launch rate measured in the same run;
#   3. both under compute-sanitizer memcheck (the soak smaller: 8 threads,
#      2000 iterations).
# With one GPU the soak still spreads over its contexts (SOAK_CONTEXTS,
# default 2). SOAK_THREADS and SOAK_LAUNCHES change the soak's size.
# Usage: bash tests/gpu/soak.sh DIR    DIR made by tests/gpu/soak_prepare.sh
#                                       (tests/gpu/prepare.sh makes .gpu/soak)
# Logs in DIR/logs; the last line is "soak: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
D=$(cd "${1:?usage: soak.sh DIR}" && pwd)
[ -f "$D/soak_a.c" ] && [ -f "$D/soak_b.c" ] || { echo "soak.sh: no $D/soak_a.c: run tests/gpu/soak_prepare.sh first" >&2; exit 1; }
LOG=$D/logs
mkdir -p "$LOG" "$D/bin"
CC=${CC:-gcc}
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
passed=0
failed=0
ok() { echo "PASS $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

nvidia-smi -L 2>&1 | head -8
for prog in soak graph; do
	if $CC -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -I. -I"$D" "tests/gpu/$prog.c" "$D/soak_a.c" "$D/soak_b.c" \
		-ldl -lpthread -o "$D/bin/$prog" 2>"$LOG/$prog.cc.log"; then
		ok "$prog builds"
	else
		bad "$prog does not compile: $(head -c 600 "$LOG/$prog.cc.log")"
	fi
done

echo "== graph"
if [ -x "$D/bin/graph" ]; then
	if timeout 300 "$D/bin/graph" >"$LOG/graph.log" 2>&1; then ok "graph: $(grep '^graph: [0-9]' "$LOG/graph.log")"; else bad "graph: $(tail -n 5 "$LOG/graph.log")"; fi
	cat "$LOG/graph.log"
fi

echo "== launch flags: programmatic dependent and cooperative launches, clusters"
if [ -f "$D/flags.c" ]; then
	if $CC -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -I. -I"$D" tests/gpu/launch_flags.c "$D/flags.c" "$D/cluster.c" -ldl -lpthread \
		-o "$D/bin/launch_flags" 2>"$LOG/launch_flags.cc.log"; then
		if timeout 300 "$D/bin/launch_flags" >"$LOG/launch_flags.log" 2>&1; then
			ok "$(grep '^launch_flags: compute' "$LOG/launch_flags.log")"
			ok "$(grep '^launch_flags: cooperative' "$LOG/launch_flags.log")"
			ok "$(grep '^launch_flags: clusters' "$LOG/launch_flags.log")"
		else
			bad "launch_flags: $(tail -n 6 "$LOG/launch_flags.log")"
		fi
		cat "$LOG/launch_flags.log"
	else
		bad "launch_flags does not compile: $(head -c 600 "$LOG/launch_flags.cc.log")"
	fi
else
	bad "no $D/flags.c: run tests/gpu/soak_prepare.sh again"
fi

echo "== soak"
if [ -x "$D/bin/soak" ]; then
	args=(--threads "${SOAK_THREADS:-64}" --launches "${SOAK_LAUNCHES:-100000}" --contexts "${SOAK_CONTEXTS:-2}")
	if timeout 600 "$D/bin/soak" "${args[@]}" >"$LOG/soak.log" 2>&1; then ok "soak: $(tail -n 1 "$LOG/soak.log")"; else bad "soak: $(tail -n 4 "$LOG/soak.log")"; fi
	cat "$LOG/soak.log"
fi

echo "== compute-sanitizer memcheck"
if [ -z "$SAN" ]; then
	bad "no compute-sanitizer"
else
	for run in "graph" "soak --threads 8 --launches 2000 --contexts ${SOAK_CONTEXTS:-2}"; do
		set -- $run
		name=$1
		[ -x "$D/bin/$name" ] || continue
		shift
		if timeout 900 "$SAN" --tool memcheck --error-exitcode 97 "$D/bin/$name" "$@" >"$LOG/$name.memcheck.log" 2>&1; then
			ok "$name under compute-sanitizer memcheck: $(grep -E 'ERROR SUMMARY' "$LOG/$name.memcheck.log" | tail -n 1)"
		else
			bad "$name under compute-sanitizer memcheck: $(grep -m3 -E 'ERROR|Error|error|FAIL' "$LOG/$name.memcheck.log" | head -c 600)"
		fi
	done
fi
echo "soak: $passed passed, $failed failed"
[ "$failed" = 0 ]
