#!/usr/bin/env bash
# run.sh - the benchmarks, on a GPU machine (python3 with torch and triton).
#   bash bench/run.sh GPU_DIR     GPU_DIR prepared by tests/gpu/prepare.sh
#   bash bench/run.sh BUILD_DIR   (./build.sh bench) where tilec exists:
#                                 prepares BUILD_DIR/gpu first
# Builds GPU_DIR/libtilegpu.so when missing, runs bench/bench.py (tile
# against Triton, same process, same inputs) and prints its markdown tables;
# the output is kept in GPU_DIR/logs/bench.log, and copied to $OUT when set.
# tilec's compile times come from bench/compile_time.sh, run by prepare.sh
# on the build machine.
set -uo pipefail
cd "$(dirname "$0")/.."
ARG=${1:-.gpu}
if [ ! -f "$ARG/manifest.json" ] && [ -x "$ARG/tilec" ]; then
	bash tests/gpu/prepare.sh "$ARG" "$ARG/gpu" || exit 1
	ARG=$ARG/gpu
fi
G=$(cd "$ARG" && pwd)
LOG=$G/logs
mkdir -p "$LOG"
[ -f "$G/libtilegpu.so" ] || bash tests/gpu/buildlib.sh "$G" "$LOG"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv 2>/dev/null
python3 bench/bench.py "$G" 2>&1 | tee "$LOG/bench.log"
[ -n "${OUT:-}" ] && mkdir -p "$OUT" && cp "$LOG/bench.log" "$OUT/bench.log"
exit 0
