#!/usr/bin/env bash
# test_runtime_check.sh - the runtime GPU check (tests/gpu/runtime: launch
# cost against raw cuLaunchKernel, first use to first kernel, blob sizes)
# built here as on the GPU machine: its blobs packed by tilec from
# vecadd.ptx, vecadd_main.c compiled with tile.h and the CUDA toolkit's
# cuda.h under -Wall -Wextra -Werror and linked against the toolkit's
# libcuda stub, so that it cannot go stale against tile.h's internals.
# Running it needs a GPU: tests/gpu/run.sh does (step 6).
set -uo pipefail
cd "$(dirname "$0")/.."
cuda=${CUDA_HOME:-/usr/local/cuda}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0
failed=0
if [ ! -e "$cuda/include/cuda.h" ] || [ ! -x "${TILE_PTXAS:-$cuda/bin/ptxas}" ]; then
	echo "test_runtime_check: no CUDA toolkit at $cuda (cuda.h, ptxas): set CUDA_HOME"
	echo "test_runtime_check: 0 passed, 1 failed"
	exit 1
fi
if TILEC=${TILEC:-build/tilec} bash tests/gpu/runtime/prepare.sh "$T/rt" >"$T/log" 2>&1; then
	passed=$((passed + 1))
else
	failed=$((failed + 1)); echo "FAIL: prepare.sh"; cat "$T/log"
fi
if gcc -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$T/rt" -I"$cuda/include" "$T/rt/vecadd_main.c" \
	"$T/rt/vecadd.c" "$T/rt/vecadd_ptx.c" -o "$T/rt/vecadd_main" -L"$cuda/lib64/stubs" -lcuda -lpthread -ldl \
	>"$T/cc" 2>&1; then
	passed=$((passed + 1))
else
	failed=$((failed + 1)); echo "FAIL: vecadd_main.c does not build"; head -c 3000 "$T/cc"
fi
echo "test_runtime_check: $passed passed, $failed failed"
[ "$failed" = 0 ]
