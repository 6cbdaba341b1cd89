#!/usr/bin/env bash
# run.sh - autotuning without Python, checked on the GPU (python3 with torch
# and Triton 3.6, gcc; no LLVM): everything in one run.
#   bash bench/tune/run.sh TUNE_DIR     TUNE_DIR from bench/tune/prepare.sh
# 1. builds tile-tune from tile.h, tools/tile-tune/tile_tune.c and TUNE_DIR/matmul.c;
# 2. tunes the tutorial matmul on this GPU at the shapes of TUNED (every
#    config timed as do_bench does) into TUNE_DIR/matmul.tuning, reporting
#    the tuning time; 2500³ is there for the shapes that are not multiples
#    of 16 (they run the unspecialized variant): the unseen 3000³ takes its
#    entry;
# 3. bench/tune/compare.py: the tuned table applied at run time
#    (tile_tuning_apply), tile's dispatched launch at the tuned shapes and
#    at UNSEEN ones against every config measured in the same run (within
#    5% of the best) and against Triton's autotuned launch (warm), outputs
#    checked against torch; then the time to first result of a fresh
#    process at a new shape, Triton (tuning included) against tile; and
#    bench/tune/rowsum.py's heuristic (EVEN_K) evaluated at launch: tile's
#    results for K that each config divides and does not, against torch
#    and against Triton.
# The tuning file can then be embedded at the build machine with
#   tilec compile ... --tuning TUNE_DIR/matmul.tuning
# Logs in TUNE_DIR/logs; the last line is "tune: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
T=$(cd "${1:-.tune}" && pwd)
mkdir -p "$T/logs"
exec > >(tee "$T/logs/run.log") 2>&1
CC=${CC:-gcc}
TUNED=${TUNED:-"M=512,N=512,K=512 M=1024,N=1024,K=1024 M=2048,N=2048,K=2048 M=4096,N=4096,K=4096 M=8192,N=8192,K=8192 M=4096,N=4096,K=512 M=2500,N=2500,K=2500"}
UNSEEN=${UNSEEN:-"M=3072,N=3072,K=3072 M=1536,N=1536,K=1536 M=6144,N=6144,K=6144 M=3000,N=3000,K=3000 M=4096,N=4096,K=1024"}
NEW=${NEW:-"M=5120,N=5120,K=5120"}
nvidia-smi -L 2>&1 | head -2
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__, torch.cuda.get_device_name())'
echo "== 1. build tile-tune and the ctypes library"
printf '#define TILE_IMPLEMENTATION\n#include "tile.h"\n' >"$T/tile_impl.c"
$CC -O2 -std=c11 -Wall -Wextra -Werror -I. -I"$T" -DTILE_TUNE_BLOB=matmul tools/tile-tune/tile_tune.c "$T/matmul.c" \
	-ldl -lpthread -lm -o "$T/tile-tune" || { echo "tune: 0 passed, 1 failed"; exit 1; }
$CC -O2 -fPIC -shared -std=c11 -Wall -Wextra -Werror -I. -I"$T" "$T/tile_impl.c" "$T/matmul.c" "$T/rowsum.c" -ldl -lpthread \
	-o "$T/libmatmul.so" || { echo "tune: 0 passed, 1 failed"; exit 1; }
ARGS=(--arg a_ptr='M*K' --arg b_ptr='K*N' --arg c_ptr='M*N' --arg stride_am=K --arg stride_ak=1 --arg stride_bk=N
	--arg stride_bn=1 --arg stride_cm=N --arg stride_cn=1 --flops '2*M*N*K')
echo "== 2. tile-tune on this GPU"
keys=()
for s in $TUNED; do keys+=(--key "$s"); done
t0=$(date +%s.%N)
"$T/tile-tune" "${keys[@]}" "${ARGS[@]}" -o "$T/matmul.tuning" || { echo "tune: 0 passed, 1 failed"; exit 1; }
t1=$(date +%s.%N)
echo "tile-tune wall time (process, tuning included): $(python3 -c "print(round($t1 - $t0, 2))") s"
cat "$T/matmul.tuning"
echo "== 3. dispatch against every config and against Triton's autotuner"
python3 bench/tune/compare.py "$T" --tuned "$TUNED" --unseen "$UNSEEN" --new "$NEW" 2>&1
rc=$?
[ -n "${OUT:-}" ] && mkdir -p "$OUT" && cp "$T/logs/run.log" "$T/matmul.tuning" "$OUT/"
exit $rc
