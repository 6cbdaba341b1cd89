#!/usr/bin/env bash
# run.sh - the GPU suite, on a machine with an NVIDIA GPU, gcc, python3 with
# torch and triton (no LLVM needed).
#
#   bash tests/gpu/run.sh GPU_DIR      GPU_DIR prepared by tests/gpu/prepare.sh
#                                      on the build machine (normally .gpu)
#   bash tests/gpu/run.sh BUILD_DIR    (./build.sh gpu) where tilec exists:
#                                      prepares BUILD_DIR/gpu first
#
# Steps, each reported and counted, none stopping the others:
#  1. every GPU_DIR/cases/*.c with tile.h into GPU_DIR/libtilegpu.so
#     (a case whose C does not compile is left out and fails in step 2);
#  2. tests/gpu/diff.py: every case against Triton;
#  2b. the public corpus (tests/corpus, tier 6): tile's launches alone at each
#     case's first size under compute-sanitizer memcheck, racecheck and
#     initcheck (SKIP_CORPUS_SAN=1 leaves it out);
#  3. the examples built from examples/NAME/main.c and their generated C,
#     run, then under compute-sanitizer memcheck; examples/cmake built
#     against the installed package with CMake and with Make, run;
#  4. tests/gpu/racecheck.c (two tier-2 reductions) run, then under
#     compute-sanitizer racecheck and memcheck;
#  5. tests/gpu/soak.sh: CUDA graph capture and replay, programmatic
#     dependent and cooperative launches and clusters (launch_flags.c), the
#     multi-thread, multi-context soak against the raw driver; the graph
#     and the soak under memcheck;
#  6. the runtime check (tests/gpu/runtime): launch cost against raw
#     cuLaunchKernel, first use to first kernel, blob sizes.
# Logs go to GPU_DIR/logs; when $OUT is set, run.log, diff.log and a
# tarball of all logs are copied there. The failures are recapped at the
# end; the last line is "gpu: N passed, N failed", and the exit status is
# non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
ARG=${1:-.gpu}
if [ ! -f "$ARG/manifest.json" ] && [ -x "$ARG/tilec" ]; then
	bash tests/gpu/prepare.sh "$ARG" "$ARG/gpu" || exit 1
	ARG=$ARG/gpu
fi
G=$(cd "$ARG" && pwd)
[ -f "$G/manifest.json" ] || { echo "run.sh: $ARG/manifest.json not found: run tests/gpu/prepare.sh first" >&2; exit 1; }
LOG=$G/logs
rm -rf "$LOG"
mkdir -p "$LOG" "$G/bin"
exec > >(tee "$LOG/run.log") 2>&1
CC=${CC:-gcc}
passed=0
failed=0
ok() { echo "PASS $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }

echo "== environment"
nvidia-smi -L 2>&1 | head -4
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, torch.cuda.get_device_name())' 2>&1
$CC --version | head -1
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
echo "compute-sanitizer: ${SAN:-none}"

echo "== 1. libtilegpu.so"
bash tests/gpu/buildlib.sh "$G" "$LOG" | tee "$LOG/buildlib.log"
# a case whose C does not compile fails in diff.py; count only what breaks all
n=$(grep -c -E '^FAIL (tile.h|linking)' "$LOG/buildlib.log")
failed=$((failed + n))

echo "== 2. differential suite against Triton"
python3 tests/gpu/diff.py "$G" ${DIFF_ARGS:-} 2>&1 | tee "$LOG/diff.log"
line=$(grep -E '^gpu: [0-9]+ passed, [0-9]+ failed' "$LOG/diff.log" | tail -n 1)
if [ -n "$line" ]; then
	passed=$((passed + $(echo "$line" | sed -E 's/gpu: ([0-9]+) passed.*/\1/')))
	failed=$((failed + $(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed.*/\1/')))
else
	bad "diff.py ended without a summary (see $LOG/diff.log)"
fi

# sanitize NAME TOOL PROGRAM: compute-sanitizer with TOOL must report nothing
sanitize() {
	local name=$1 tool=$2 prog=$3
	if [ -z "$SAN" ]; then
		echo "SKIP $name under $tool: no compute-sanitizer"
		return
	fi
	if timeout 300 "$SAN" --tool "$tool" --error-exitcode 97 "$prog" >"$LOG/$name.$tool.log" 2>&1; then
		ok "$name under compute-sanitizer $tool"
	else
		bad "$name under compute-sanitizer $tool: $(grep -m3 -E 'ERROR|Error|error|hazard' "$LOG/$name.$tool.log" | head -c 600)"
	fi
}

echo "== 2b. the public corpus under compute-sanitizer (tile's launches, each case's first size)"
if [ -z "$SAN" ]; then
	echo "SKIP the corpus under compute-sanitizer: no compute-sanitizer"
elif [ -n "${SKIP_CORPUS_SAN:-}" ]; then
	echo "SKIP the corpus under compute-sanitizer (SKIP_CORPUS_SAN)"
else
	for tool in memcheck racecheck initcheck; do
		timeout 1200 "$SAN" --tool "$tool" --error-exitcode 97 --print-limit 20 \
			python3 tests/gpu/diff.py "$G" --tile-only --tier 6 --results "$LOG/corpus-$tool.jsonl" \
			>"$LOG/corpus.$tool.log" 2>&1
		rc=$?
		line=$(grep -E '^gpu: [0-9]+ passed, [0-9]+ failed' "$LOG/corpus.$tool.log" | tail -n 1)
		if [ "$rc" = 0 ]; then
			ok "the corpus under compute-sanitizer $tool: $line"
		else
			bad "the corpus under compute-sanitizer $tool (exit $rc, $line): $(grep -m5 -E '^FAIL|ERROR|Error|hazard' "$LOG/corpus.$tool.log" | head -c 800)"
		fi
	done
fi

echo "== 3. examples"
for d in "$G"/examples/*/; do
	[ -d "$d" ] || continue
	name=$(basename "$d")
	if ! $CC -std=c99 -O2 -Wall -Wextra -Werror -I. -Iexamples -I"$d" "examples/$name/main.c" "$d/kernels.c" \
		-ldl -lpthread -lm -o "$G/bin/$name" 2>"$LOG/$name.cc.log"; then
		bad "example $name does not compile: $(head -c 500 "$LOG/$name.cc.log")"
		continue
	fi
	if "$G/bin/$name" >"$LOG/$name.log" 2>&1; then ok "example $name: $(tail -n 1 "$LOG/$name.log")"; else bad "example $name: $(tail -n 3 "$LOG/$name.log")"; fi
	sanitize "$name" memcheck "$G/bin/$name"
done
[ -d "$G/examples/vector_add" ] || bad "no generated examples in $G/examples (examples/build.sh failed at prepare time?)"
# examples/cmake built against the installed package (CMake and Make, prepare.sh)
for b in "$G"/installed/vector_ops_*; do
	[ -x "$b" ] || continue
	name=$(basename "$b")
	if "$b" >"$LOG/$name.log" 2>&1 && grep -q "all correct" "$LOG/$name.log"; then
		ok "installed package, $name: $(tail -n 1 "$LOG/$name.log")"
	else
		bad "installed package, $name: $(tail -n 3 "$LOG/$name.log")"
	fi
done
ls "$G"/installed/vector_ops_* >/dev/null 2>&1 || bad "no examples built against the installed package in $G/installed (prepare.sh)"

echo "== 4. racecheck"
if [ -f "$G/race/race.c" ]; then
	if $CC -std=c99 -O2 -Wall -Wextra -Werror -I. -Iexamples -I"$G/race" tests/gpu/racecheck.c "$G/race/race.c" \
		-ldl -lpthread -lm -o "$G/bin/racecheck" 2>"$LOG/racecheck.cc.log"; then
		if "$G/bin/racecheck" >"$LOG/racecheck.log" 2>&1; then ok "racecheck driver: $(tail -n 1 "$LOG/racecheck.log")"; else bad "racecheck driver: $(tail -n 3 "$LOG/racecheck.log")"; fi
		sanitize race racecheck "$G/bin/racecheck"
		sanitize race memcheck "$G/bin/racecheck"
	else
		bad "racecheck.c does not compile: $(head -c 500 "$LOG/racecheck.cc.log")"
	fi
else
	bad "no $G/race/race.c (the race manifest did not compile at prepare time)"
fi

echo "== 5. soak and graphs"
if [ -f "$G/soak/soak_a.c" ]; then
	bash tests/gpu/soak.sh "$G/soak" 2>&1 | tee "$LOG/soak.sh.log"
	line=$(grep -E '^soak: [0-9]+ passed, [0-9]+ failed' "$LOG/soak.sh.log" | tail -n 1)
	if [ -n "$line" ]; then
		passed=$((passed + $(echo "$line" | sed -E 's/soak: ([0-9]+) passed.*/\1/')))
		failed=$((failed + $(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed.*/\1/')))
	else
		bad "soak.sh ended without a summary"
	fi
else
	bad "no $G/soak/soak_a.c (tests/gpu/soak_prepare.sh failed at prepare time?)"
fi

echo "== 6. runtime check (launch cost, first use, blob sizes: docs/PERF.md)"
if [ -f "$G/runtime/vecadd_main.c" ]; then
	if bash "$G/runtime/run.sh" "$G/runtime" >"$LOG/runtime.log" 2>&1; then
		ok "runtime check: $(grep -m1 -i 'launch' "$LOG/runtime.log" | head -c 200)"
	else
		bad "runtime check: $(grep -m3 -E 'FAIL|error' "$LOG/runtime.log" | head -c 600)"
	fi
	cat "$LOG/runtime.log"
else
	bad "no $G/runtime (tests/gpu/runtime/prepare.sh failed at prepare time?)"
fi

echo "== failures"
grep -h '^FAIL' "$LOG/run.log" | head -n 60
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	cp "$LOG/diff.log" "$OUT/" 2>/dev/null
	tar czf "$OUT/gpu-logs.tar.gz" -C "$G" logs 2>/dev/null
fi
echo "gpu: $passed passed, $failed failed"
[ -n "${OUT:-}" ] && cp "$LOG/run.log" "$OUT/run.log"
[ "$failed" = 0 ]
