#!/usr/bin/env bash
# compile_time.sh [BUILD_DIR] [OUT_JSON] - `tilec compile` time per kernel
# and arch, on the build machine (tilec needs LLVM; the GPU machine has
# none). Each figure is the median of 5 runs (REPS) of the whole process (file
# parsing, specialization, LLVM, ptxas, packing, writing the C), shown as
# CPU time (user + system, tilec and its ptxas children: steady on a busy
# machine) / wall time. Columns: one arch (no PTX image; one thread's work
# whatever -j says, as each step waits for the one before), then the row's
# set of targets with -j 1 and with -j N, N the CPU count (the default),
# and ptxas alone on the sm_80 column's PTX: the part of that column no
# change to tilec can take away.
# The set is the default (sm_80,sm_87,sm_90 plus PTX; sm_90 brings sm_90a,
# whose cubin the blob keeps for kernels with wgmma, sm_90's for the others) but for the 128x128 fp16 matmul,
# compiled for sm_80,sm_87,sm_90a plus PTX as a Jetson-and-Hopper build
# would. The last row is a manifest of 8 variants: 6 matmul configs and 2
# vector adds.
# Prints a markdown table; OUT_JSON (default BUILD_DIR/compile_time.json)
# keeps the figures for bench/bench.py's table ("all": the set with -j N).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${1:-build}
JSON=${2:-$BUILD/compile_time.json}
TILEC=$BUILD/tilec
[ -x "$TILEC" ] || { echo "compile_time.sh: $TILEC not found" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
REPS=${REPS:-5}
N=$(nproc)

MMSIG='*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1'
MMGRID='cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)'
{
	for cfg in "128 128 32 4 3" "128 64 32 4 4" "64 128 32 4 4" "64 64 32 4 3" "128 256 32 8 2" "64 32 32 4 5"; do
		read -r m n k w s <<<"$cfg"
		echo "$ROOT/tests/kernels/matmul.py matmul_kernel '$MMSIG' -D BLOCK_SIZE_M=$m -D BLOCK_SIZE_N=$n -D BLOCK_SIZE_K=$k -D GROUP_SIZE_M=8 -w $w -ns $s -g '$MMGRID' -on mm_${m}_${n}"
	done
	for h in ":16" ""; do
		echo "$ROOT/examples/vector_add/kernel.py add_kernel '*fp32:16, *fp32:16, *fp32:16, i32$h' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'"
	done
} >"$TMP/variants.tile"

# name|set (default or an --arch list)|tilec compile arguments (shell words)
KERNELS=(
	"vadd_f32|default|examples/vector_add/kernel.py -n add_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32:16, 1024' -g 'cdiv(n_elements, BLOCK_SIZE)'"
	"silu_bf16|default|examples/silu/kernel.py -n silu_kernel -s '*bf16:16, *bf16:16, i32:16, 1024' -g 'cdiv(n_elements, BLOCK_SIZE)'"
	"softmax_f32|default|tests/gpu/kernels/tier2.py -n softmax_row_kernel -s '*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 4096'"
	"layer_norm_f16|default|tests/gpu/kernels/tier2.py -n layer_norm_fwd_kernel -s '*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 8192'"
	"matmul_f16_128|sm_80,sm_87,sm_90a|tests/kernels/matmul.py -n matmul_kernel -s '$MMSIG' -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 -g '$MMGRID'"
	"manifest_8_variants|default|-m $TMP/variants.tile"
)

# the ptxas tilec runs (TILE_PTXAS, CUDA_HOME, /usr/local/cuda, PATH)
PTXAS=""
for p in "${TILE_PTXAS:-}" "${CUDA_HOME:+$CUDA_HOME/bin/ptxas}" /usr/local/cuda/bin/ptxas "$(command -v ptxas 2>/dev/null || true)"; do
	if [ -n "$p" ] && [ -x "$p" ]; then PTXAS=$p; break; fi
done

median_ms() { # command... : "CPU/wall" medians in ms over REPS runs, or "fail"
	local cpu=() wall=() r u s TIMEFORMAT='%3R %3U %3S'
	for _ in $(seq $REPS); do
		{ time "$@" >/dev/null 2>"$TMP/err"; } 2>"$TMP/time" || { echo fail; return; }
		read -r r u s <"$TMP/time"
		cpu+=("$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.0f", (u + s) * 1000}')")
		wall+=("$(awk -v r="$r" 'BEGIN{printf "%.0f", r * 1000}')")
	done
	local mid=$(((REPS + 1) / 2))
	echo "$(printf '%s\n' "${cpu[@]}" | sort -n | sed -n "${mid}p")/$(printf '%s\n' "${wall[@]}" | sort -n | sed -n "${mid}p")"
}

echo "| kernel (ms CPU/wall) | set | sm_80 | sm_87 | sm_90 | set, -j 1 | set, -j $N | ptxas alone, sm_80 |"
echo "|---|---|---|---|---|---|---|---|"
echo "{" >"$JSON"
first=1
for k in "${KERNELS[@]}"; do
	IFS='|' read -r name set words <<<"$k"
	eval "args=($words)"
	row="| $name | $set"
	[ $first = 1 ] || echo "," >>"$JSON"
	first=0
	printf '"%s": {' "$name" >>"$JSON"
	sep=""
	for col in sm_80 sm_87 sm_90 all_j1 all; do
		case $col in
		sm_*) a=(--arch "$col" --no-ptx -j 1) ;;
		all_j1) a=(-j 1) ;;
		all) a=(-j "$N") ;;
		esac
		[ "$set" = default ] || [ "${col#sm_}" != "$col" ] || a+=(--arch "$set")
		ms=$(median_ms "$TILEC" compile "${args[@]}" "${a[@]}" -o "$TMP/k")
		[ "$ms" = fail ] && echo "compile_time.sh: $name $col: $(head -c 300 "$TMP/err")" >&2
		row="$row | $ms"
		printf '%s"%s": "%s"' "$sep" "$col" "$ms" >>"$JSON"
		sep=", "
	done
	# the floor under the sm_80 column: ptxas alone on the same PTX (its
	# kernels' PTX, written by one more compile)
	rm -rf "$TMP/ptx"
	ptxas_ms=fail
	if [ -n "$PTXAS" ] && "$TILEC" compile "${args[@]}" --arch sm_80 --no-ptx -j 1 -o "$TMP/k" --keep-ptx "$TMP/ptx" >/dev/null 2>"$TMP/err"; then
		ptxas_ms=$(median_ms "$PTXAS" -v -arch=sm_80 "$TMP/ptx/k.sm_80.ptx" -o "$TMP/ptx/k.cubin")
	fi
	row="$row | $ptxas_ms"
	printf '%s"ptxas_sm_80": "%s"' "$sep" "$ptxas_ms" >>"$JSON"
	printf '}' >>"$JSON"
	echo "$row |"
done
echo "}" >>"$JSON"
echo "(medians of $REPS runs of the tilec process, CPU time/wall time in ms; $N CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1 /proc/loadavg))"
