#!/usr/bin/env bash
# prepare.sh - builds, on the machine with tilec and ptxas, what the runtime
# GPU check needs, into one folder to copy to the GPU machine:
#   bash tests/gpu/runtime/prepare.sh [OUT]      (default .gpu/runtime)
# OUT receives the sm_80 and sm_90 cubins assembled from vecadd.ptx, two
# packed blobs (vecadd.c/.h: both cubins and the PTX; vecadd_ptx.c/.h: the
# PTX alone, kernel vecadd_ptx), tile.h, vecadd_main.c and run.sh. Then, on
# the GPU machine: bash OUT/run.sh OUT
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-.gpu/runtime}
tilec=${TILEC:-${TILE_BUILD:-build}/tilec}
ptxas=${TILE_PTXAS:-/usr/local/cuda/bin/ptxas}
src=tests/gpu/runtime
[ -x "$tilec" ] || { echo "prepare.sh: no tilec at $tilec (build it, or set TILEC)" >&2; exit 1; }
[ -x "$ptxas" ] || { echo "prepare.sh: no ptxas at $ptxas (set TILE_PTXAS)" >&2; exit 1; }
mkdir -p "$out"
cp "$src/vecadd.ptx" "$out/vecadd.ptx"
"$ptxas" -arch=sm_80 "$src/vecadd.ptx" -o "$out/vecadd.sm_80.cubin"
"$ptxas" -arch=sm_90 "$src/vecadd.ptx" -o "$out/vecadd.sm_90.cubin"
sig="*fp32:16, *fp32:16, *fp32:16, i32"
"$tilec" pack -o "$out/vecadd" -n vecadd -s "$sig" --param-names x,y,out,n -g "cdiv(n, 256)" -w 8 \
	--cubin "sm_80:$out/vecadd.sm_80.cubin" --cubin "sm_90:$out/vecadd.sm_90.cubin" --ptx "$out/vecadd.ptx"
"$tilec" pack -o "$out/vecadd_ptx" -n vecadd_ptx --symbol vecadd -s "$sig" --param-names x,y,out,n \
	-g "cdiv(n, 256)" -w 8 --ptx "$out/vecadd.ptx"
cp tile.h "$src/vecadd_main.c" "$src/run.sh" "$out/"
echo "prepare.sh: $out ready; on the GPU machine: bash $out/run.sh $out"
