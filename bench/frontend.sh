#!/usr/bin/env bash
# frontend.sh - front-end time (read + lex + parse + specialize to IR) on a
# 221-line kernel file: the GPU suite's tier-1 and tier-2 kernel files joined.
#   bash bench/frontend.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
LLVM_CONFIG=${LLVM_CONFIG:-llvm-config-19}
[ -f "$BUILD/libtile.a" ] || { echo "frontend.sh: build first (./build.sh)" >&2; exit 1; }
mkdir -p "$BUILD/bench"
cc -std=c11 -O2 -D_GNU_SOURCE -Ilibtile bench/frontend.c -o "$BUILD/bench/frontend" "$BUILD/libtile.a" \
	$($LLVM_CONFIG --ldflags --libs) -lz -lpthread -ldl -lm
file="$BUILD/bench/kernels_221.py"
cat tests/gpu/kernels/tier1.py tests/gpu/kernels/tier2.py >"$file"
echo "$(wc -l <"$file") lines"
"$BUILD/bench/frontend" "$file" 200 \
	"sin_kernel=*fp32:16, *fp32:16, i32:16, 1024" \
	"exp_div_kernel=*fp32:16, *fp32:16, *fp32:16, i32, 1024" \
	"softmax_row_kernel=*fp32:16, *fp32:16, i32, i32, i32, 1024" \
	"softmax_persistent_kernel=*fp32:16, *fp32:16, i32, i32, i32, i32, 1024" \
	"layer_norm_fwd_kernel=*fp16:16, *fp16:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024"
