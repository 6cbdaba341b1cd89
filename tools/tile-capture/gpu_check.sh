#!/usr/bin/env bash
# gpu_check.sh [WORK_DIR] - tile-capture end to end on a machine with an
# NVIDIA GPU, Triton 3.6, PyTorch, gcc and a built tilec (build/tilec, or
# TILEC=...); WORK_DIR (default: a new /tmp/tile-capture-gpu.*) keeps
# everything for a look afterwards.
#  1. capture: python3 -m tile_capture runs tools/tile-capture/gpu_app.py
#     (kernels of tests/kernels and tests/gpu/kernels, bench/tune's
#     autotuned matmul and row sum, and the kernels torch.compile makes of a
#     small function) with --tilec and this GPU's --arch: kernels.manifest,
#     record.json, tuning.txt, and kernels.inductor/ (Inductor's sources);
#  2. build: tilec compile -m kernels.manifest --tuning tuning.txt, with
#     Inductor's cache moved away (the manifest must not need it), and the
#     generated C with tile.h into libtilegpu.so (tests/gpu/buildlib.sh);
#  3. check: gpu_check.py runs gpu_app.py again; each launch goes through
#     Triton, then through the blob's launch function on copies of the same
#     inputs, and every tensor argument is compared.
# Both runs share one Triton cache with TRITON_CACHE_AUTOTUNING=1 and one
# Inductor cache, so Triton's autotuner and Inductor pick in the second run
# what the first recorded. The last line is "gpu_check: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
TILEC=${TILEC:-$ROOT/build/tilec}
W=${1:-$(mktemp -d /tmp/tile-capture-gpu.XXXXXX)}
mkdir -p "$W" && W=$(cd "$W" && pwd)
export PYTHONPATH=$ROOT/tools/tile-capture${PYTHONPATH:+:$PYTHONPATH}
export TORCHINDUCTOR_CACHE_DIR=$W/inductor-cache TRITON_CACHE_DIR=$W/triton-cache TRITON_CACHE_AUTOTUNING=1
export PYTHONUNBUFFERED=1
[ -x "$TILEC" ] || { echo "gpu_check: no tilec at $TILEC (./build.sh builds it; TILEC=... names another)"; exit 2; }
ARCH=$(python3 -c 'import torch; print("sm_%d%d" % torch.cuda.get_device_capability())') || {
	echo "gpu_check: no GPU through PyTorch"; exit 2; }
echo "gpu_check: work dir $W, $ARCH, $(python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)')"

echo "== 1. capture"
python3 -m tile_capture -o "$W/kernels.manifest" --json "$W/record.json" --tuning "$W/tuning.txt" \
	--tilec "$TILEC" --arch "$ARCH" -- tools/tile-capture/gpu_app.py || { echo "gpu_check: the capture failed"; exit 1; }

echo "== 2. build"
TUNING=()
[ -f "$W/tuning.txt" ] && TUNING=(--tuning "$W/tuning.txt")
[ -d "$W/inductor-cache" ] && mv "$W/inductor-cache" "$W/inductor-cache.away"
mkdir -p "$W/cases"
"$TILEC" compile -m "$W/kernels.manifest" ${TUNING[@]+"${TUNING[@]}"} --arch "$ARCH" -o "$W/cases/kernels"
rc=$?
[ -d "$W/inductor-cache.away" ] && mv "$W/inductor-cache.away" "$W/inductor-cache"
[ $rc = 0 ] || { echo "gpu_check: tilec compile -m failed"; exit 1; }
bash tests/gpu/buildlib.sh "$W" "$W/logs"
[ -f "$W/libtilegpu.so" ] || { echo "gpu_check: libtilegpu.so not built (see $W/logs)"; exit 1; }

echo "== 3. check"
python3 tools/tile-capture/gpu_check.py "$W" -- tools/tile-capture/gpu_app.py 2>&1 | tee "$W/check.log"
exit "${PIPESTATUS[0]}"
