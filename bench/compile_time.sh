#!/usr/bin/env bash
# compile_time.sh [BUILD_DIR] [OUT_JSON] - `tilec compile` wall time per
# kernel and arch, on the build machine (tilec needs LLVM; the GPU machine
# has none). Each figure is the median of 5 runs of the whole process (file
# parsing, specialization, LLVM, ptxas, packing, writing the C), one variant,
# no PTX image; "all" is the default set, sm_80,sm_87,sm_90 plus PTX. Shown
# as CPU time (user + system, tilec and its ptxas children: steady on a busy
# machine) / wall time.
# Prints a markdown table; OUT_JSON (default BUILD_DIR/compile_time.json)
# keeps the figures for bench/bench.py's table.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
JSON=${2:-$BUILD/compile_time.json}
TILEC=$BUILD/tilec
[ -x "$TILEC" ] || { echo "compile_time.sh: $TILEC not found" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
REPS=5

# name file kernel signature grid
KERNELS=(
	"vadd_f32|examples/vector_add/kernel.py|add_kernel|*fp32:16, *fp32:16, *fp32:16, i32:16, 1024|cdiv(n_elements, BLOCK_SIZE)"
	"silu_bf16|examples/silu/kernel.py|silu_kernel|*bf16:16, *bf16:16, i32:16, 1024|cdiv(n_elements, BLOCK_SIZE)"
	"softmax_f32|tests/gpu/kernels/tier2.py|softmax_row_kernel|*fp32:16, *fp32:16, i32:16, i32:16, i32:16, 4096|"
	"layer_norm_f16|tests/gpu/kernels/tier2.py|layer_norm_fwd_kernel|*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 8192|"
)

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

echo "| kernel (ms CPU/wall) | sm_80 | sm_87 | sm_90 | sm_80,87,90 + PTX |"
echo "|---|---|---|---|---|"
echo "{" >"$JSON"
first=1
for k in "${KERNELS[@]}"; do
	IFS='|' read -r name file kernel sig grid <<<"$k"
	g=()
	[ -n "$grid" ] && g=(-g "$grid")
	row="| $name"
	[ $first = 1 ] || echo "," >>"$JSON"
	first=0
	printf '"%s": {' "$name" >>"$JSON"
	sep=""
	for arch in sm_80 sm_87 sm_90 all; do
		if [ $arch = all ]; then a=(); else a=(--arch $arch --no-ptx); fi
		ms=$(median_ms "$TILEC" compile "$file" -n "$kernel" -s "$sig" "${g[@]}" "${a[@]}" -o "$TMP/k")
		[ "$ms" = fail ] && echo "compile_time.sh: $name $arch: $(head -c 300 "$TMP/err")" >&2
		row="$row | $ms"
		printf '%s"%s": "%s"' "$sep" "$arch" "$ms" >>"$JSON"
		sep=", "
	done
	printf '}' >>"$JSON"
	echo "$row |"
done
echo "}" >>"$JSON"
echo "(medians of $REPS runs of the tilec process, CPU time/wall time in ms; $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1 /proc/loadavg))"
