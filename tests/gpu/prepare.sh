#!/usr/bin/env bash
# prepare.sh - on the build machine: compile the GPU suite into .gpu/ (see
# prepare.py), ready to be carried to a GPU machine and run there with
#   bash tests/gpu/run.sh .gpu
# Usage: bash tests/gpu/prepare.sh [BUILD_DIR] [OUT_DIR]   (defaults: build, .gpu)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
OUT=${2:-.gpu}
[ -x "$BUILD/tilec" ] || { echo "prepare.sh: $BUILD/tilec not found: build first (./build.sh)" >&2; exit 1; }
# the examples' generated C comes from examples/build.sh
if [ -f examples/build.sh ]; then
	bash examples/build.sh "$BUILD" || echo "prepare.sh: warning: examples/build.sh failed; examples left out" >&2
fi
mkdir -p "$OUT"
# examples/cmake built against the installed package twice, with CMake
# (find_package, tile_add_kernels) and with Make (pkg-config); run.sh runs
# the two programs (they need only the CUDA driver)
installed() {
	local I P
	I=$(cd "$OUT" && pwd)/installed P=$I/prefix
	rm -rf "$I" && mkdir -p "$I/mk" || return 1
	BUILD="$BUILD" bash ./build.sh install "$P" >"$I/log" 2>&1 &&
		cp -r examples/cmake "$I/cm" &&
		cmake -S "$I/cm" -B "$I/cm/build" -G Ninja -DCMAKE_PREFIX_PATH="$P" >>"$I/log" 2>&1 &&
		cmake --build "$I/cm/build" >>"$I/log" 2>&1 &&
		cp -r examples/cmake examples/make "$I/mk/" &&
		env -u TILEC PKG_CONFIG_PATH="$P/lib/pkgconfig" make -C "$I/mk/make" ARCH=sm_90 >>"$I/log" 2>&1 &&
		cp "$I/cm/build/vector_ops" "$I/vector_ops_cmake" && cp "$I/mk/make/vector_ops" "$I/vector_ops_make" || return 1
	rm -rf "$P" "$I/cm" "$I/mk" # the programs are all run.sh needs
}
installed || echo "prepare.sh: warning: the examples against the installed package failed (see $OUT/installed/log)" >&2
# the soak and graph programs' kernels (run by tests/gpu/soak.sh OUT/soak)
bash tests/gpu/soak_prepare.sh "$BUILD/tilec" "$OUT/soak" || echo "prepare.sh: warning: soak kernels failed" >&2
# the runtime check's blobs and program (run by run.sh, step 6)
TILEC="$BUILD/tilec" bash tests/gpu/runtime/prepare.sh "$OUT/runtime" >/dev/null ||
	echo "prepare.sh: warning: tests/gpu/runtime/prepare.sh failed" >&2
python3 tests/gpu/prepare.py --tilec "$BUILD/tilec" --out "$OUT" --build "$BUILD" "${@:3}"
# tilec's compile time per kernel and arch, measured here for bench/bench.py
bash bench/compile_time.sh "$BUILD" "$OUT/compile_time.json" | tee "$OUT/compile_time.md" ||
	echo "prepare.sh: warning: bench/compile_time.sh failed" >&2
