#!/usr/bin/env bash
# examples/build.sh BUILD_DIR - builds the examples with BUILD_DIR/tilec.
#
# For each example: kernel.py -> BUILD_DIR/examples/gen/NAME/kernels.{c,h}
# (tilec compile, two variants: with and without the :16 hint on the size),
# then the program BUILD_DIR/examples/NAME from main.c, the generated pair
# and tile.h, compiled as C99 with -Wall -Wextra -Werror. Here (the build
# machine) it is linked with libtile.a for the reference-interpreter
# fallback (EXAMPLE_CPU); tests/gpu/run.sh builds the same main.c on a GPU
# machine without it. An example that does not build is reported and
# skipped (exit status 0) so that ./build.sh goes on; tests/test_compile.sh
# fails on the same kernels. EXAMPLES_STRICT=1 makes it an error.
#
# examples/llm (a Llama-style decoder) is built from its manifest instead:
# examples/llm/kernels.tile -> BUILD_DIR/examples/gen/llm/kernels.{c,h} for
# LLM_ARCH (default sm_80,orin,hopper), then BUILD_DIR/examples/llm with the
# reference interpreter as its --cpu back end (tests/test_llm.sh runs it).
# examples/llm/gpu_check.sh builds the same llm.c on a GPU machine from the
# generated pair, without libtile.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${1:?usage: examples/build.sh BUILD_DIR}
TILEC=${TILEC_FOR_EXAMPLES:-$BUILD/tilec}
CC=${CC:-cc}
LLVM_CONFIG=${LLVM_CONFIG:-llvm-config-19}
LLVM_LIBS="$($LLVM_CONFIG --ldflags --libs 2>/dev/null || true)"
CFLAGS="-std=c99 -O2 -Wall -Wextra -Werror"

# example NAME KERNEL BLOCK "SIGNATURE without the size hint" "the same with it" GRID
example() {
	local name=$1 kernel=$2 block=$3 sig=$4 sig16=$5 grid=$6
	local gen=$BUILD/examples/gen/$name
	mkdir -p "$gen"
	rm -f "$BUILD/examples/$name"
	"$TILEC" compile "examples/$name/kernel.py" -n "$kernel" -s "$sig16" -s "$sig" -g "$grid" \
		-o "$gen/kernels" || return 1
	# shellcheck disable=SC2086
	$CC $CFLAGS -I. -Iexamples -Ilibtile -I"$gen" -DEXAMPLE_CPU \
		-DEXAMPLE_PY="\"$ROOT/examples/$name/kernel.py\"" -DEXAMPLE_SIG="\"$sig\"" -DEXAMPLE_BLOCK="$block" \
		"examples/$name/main.c" "$gen/kernels.c" "$BUILD/libtile.a" $LLVM_LIBS -lz -ldl -lpthread -lm \
		-o "$BUILD/examples/$name"
}

# llm: the manifest's kernels, and llm.c with the interpreter (-DLLM_CPU)
llm() {
	local gen=$BUILD/examples/gen/llm
	mkdir -p "$gen"
	rm -f "$BUILD/examples/llm"
	"$TILEC" compile -m examples/llm/kernels.tile -o "$gen/kernels" --arch "${LLM_ARCH:-sm_80,orin,hopper}" -q \
		--depfile "$gen/kernels.d" || return 1
	# shellcheck disable=SC2086
	$CC $CFLAGS -I. -Iexamples/llm -Ilibtile -I"$gen" -DLLM_CPU \
		-DLLM_MANIFEST="\"$ROOT/examples/llm/kernels.tile\"" \
		examples/llm/llm.c "$gen/kernels.c" "$BUILD/libtile.a" $LLVM_LIBS -lz -ldl -lpthread -lm \
		-o "$BUILD/examples/llm"
}

failed=()
example vector_add add_kernel 1024 \
	"*fp32:16, *fp32:16, *fp32:16, i32, 1024" \
	"*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" \
	"cdiv(n_elements, BLOCK_SIZE)" || failed+=(vector_add)
example silu silu_kernel 1024 \
	"*bf16:16, *bf16:16, i32, 1024" \
	"*bf16:16, *bf16:16, i32:16, 1024" \
	"cdiv(n_elements, BLOCK_SIZE)" || failed+=(silu)
llm || failed+=(llm)
if [ ${#failed[@]} -gt 0 ]; then
	echo "examples: warning: not built: ${failed[*]}" >&2
	[ "${EXAMPLES_STRICT:-0}" = 1 ] && exit 1
	exit 0
fi
echo "examples: built $BUILD/examples/vector_add, $BUILD/examples/silu and $BUILD/examples/llm"
