#!/usr/bin/env bash
# prepare.sh - on the build machine (tilec needs LLVM): compiles Triton's
# tutorial matmul (bench/tune/matmul.py) with all eight of its autotune
# configs into one blob, twice specialized (M, N, K and the leading strides
# divisible by 16, and not), for the H100 (sm_90, sm_90a), into OUT_DIR
# (default .tune): matmul.c, matmul.h; and bench/tune/rowsum.py (a
# heuristic evaluated at launch) into rowsum.c, rowsum.h. Then, on the GPU
# machine:
#   bash bench/tune/run.sh .tune
# Usage: bash bench/tune/prepare.sh [BUILD_DIR] [OUT_DIR] [ARCH]
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
OUT=${2:-.tune}
ARCH=${3:-hopper}
[ -x "$BUILD/tilec" ] || { echo "prepare.sh: $BUILD/tilec not found: build first (./build.sh)" >&2; exit 1; }
mkdir -p "$OUT"
t0=$(date +%s.%N)
"$BUILD/tilec" compile bench/tune/matmul.py -n matmul_kernel \
	-s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1" \
	-s "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1" \
	-g "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)" --arch "$ARCH" -o "$OUT/matmul"
t1=$(date +%s.%N)
# a heuristic at launch (EVEN_K) with two configs: both values compiled
"$BUILD/tilec" compile bench/tune/rowsum.py -n rowsum_kernel -s "*fp32:16, *fp32:16, i32" --arch "$ARCH" -o "$OUT/rowsum"
echo "tilec: 8 configs x 2 specializations for $ARCH in $(python3 -c "print(round($t1 - $t0, 1))") s"
"$BUILD/tilec" inspect "$OUT/matmul.c" >"$OUT/matmul.inspect"
head -n 20 "$OUT/matmul.inspect" # the whole listing in OUT/matmul.inspect
echo "next, on the GPU machine: bash bench/tune/run.sh $OUT"
