#!/usr/bin/env bash
# soak_prepare.sh - on the build machine (tilec needs LLVM): compiles the
# soak's kernels (tests/gpu/soak_ops.py, soak_acc.py) into two blobs,
# OUT/soak_a.{c,h} and OUT/soak_b.{c,h}, tests/gpu/kernels/pdl.py's and
# grid_sync.py's into OUT/flags.{c,h}, and packs the hand-written
# tests/gpu/kernels/cluster_ids.ptx with a cluster shape into
# OUT/cluster.{c,h}, for tests/gpu/soak.sh on a GPU machine
# (tests/gpu/soak.c, tests/gpu/graph.c, tests/gpu/launch_flags.c).
# Usage: bash tests/gpu/soak_prepare.sh TILEC OUT [--arch LIST]
set -euo pipefail
cd "$(dirname "$0")/../.."
TILEC=$1
OUT=$2
shift 2
mkdir -p "$OUT"
cat >"$OUT/soak_a.tile" <<MANIFEST
$PWD/tests/gpu/soak_ops.py soak_inc "*i32, i32" -D BLOCK=256 -g "cdiv(n, BLOCK)"
$PWD/tests/gpu/soak_ops.py soak_axpy "*i32, *i32, i32, i32" -D BLOCK=256 -g "cdiv(n, BLOCK)"
MANIFEST
"$TILEC" compile -m "$OUT/soak_a.tile" -o "$OUT/soak_a" "$@"
"$TILEC" compile tests/gpu/soak_acc.py -n soak_acc -s "*i32, i32" -g 1 -o "$OUT/soak_b" "$@"
# tests/gpu/launch_flags.c's kernels: gdc_wait and gdc_launch_dependents,
# and a grid-wide barrier (launched cooperatively)
cat >"$OUT/flags.tile" <<MANIFEST
$PWD/tests/gpu/kernels/pdl.py pdl_add_kernel "*fp32:16, *fp32:16, *fp32:16, i32, 1024, True" -g "cdiv(n_elements, BLOCK_SIZE)"
$PWD/tests/gpu/kernels/grid_sync.py grid_sum_kernel "*i32:16, *i32:16, *i32:16, *i32:16, i32, 1024, 1024"
MANIFEST
"$TILEC" compile -m "$OUT/flags.tile" -o "$OUT/flags" "$@"
# clusters of 2 blocks (PTX: the driver compiles it for the GPU at hand)
"$TILEC" pack -o "$OUT/cluster" -n cluster_ids -s "*i32:16" --param-names out -w 1 --cluster 2 \
	--ptx tests/gpu/kernels/cluster_ids.ptx
echo "soak_prepare.sh: $OUT/soak_a.c, $OUT/soak_b.c, $OUT/flags.c, $OUT/cluster.c"
