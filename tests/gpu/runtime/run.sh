#!/usr/bin/env bash
# run.sh - the runtime GPU check, on the GPU machine (gcc, the CUDA toolkit
# for cuda.h and the libcuda stub, an NVIDIA driver; no LLVM needed):
#   bash run.sh [DIR]     DIR: the folder prepare.sh filled (default: this one)
# Compiles vecadd_main.c with tile.h and the generated files, runs it, and
# prints its table; exits non-zero when a check fails.
set -euo pipefail
dir=${1:-$(dirname "$0")}
cuda=${CUDA_HOME:-/usr/local/cuda}
cc=${CC:-gcc}
$cc -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I"$dir" -I"$cuda/include" \
	"$dir/vecadd_main.c" "$dir/vecadd.c" "$dir/vecadd_ptx.c" -o "$dir/vecadd_main" \
	-L"$cuda/lib64/stubs" -L"$cuda/lib64" -lcuda -lpthread -ldl
"$dir/vecadd_main" "$dir"
