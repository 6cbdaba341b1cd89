#!/usr/bin/env bash
# test_install.sh - ./build.sh install and what users build against it:
# install into a temporary prefix, move the tree (it must be relocatable:
# no file of the package names this checkout or the prefix), build
# examples/cmake with CMake and Ninja through find_package(tile) and
# tile_add_kernels, and examples/make with Make and pkg-config, run both
# (and examples/llm through CMake for sm_90a; tile-capture from the prefix);
# touching one kernel file recompiles its blob and not the other (tilec's
# depfiles); examples/cmake cross-compiles for aarch64; uninstall leaves
# nothing. Needs cmake, ninja, pkg-config and gcc-aarch64-linux-gnu
# (./build.sh test installs them).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${TILE_BUILD:-$ROOT/build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { local n=$1; shift; if "$@" >"$T/out" 2>&1; then ok; else bad "$n:"; tail -20 "$T/out"; fi; }
has() { if grep -qE -- "$3" "$2"; then ok; else bad "$1: /$3/ not in $2"; tail -20 "$2"; fi; }
hasnt() { if grep -qE -- "$3" "$2"; then bad "$1: /$3/ in $2"; grep -E -- "$3" "$2" | head -5; else ok; fi; }

for tool in cmake ninja pkg-config make cc aarch64-linux-gnu-gcc; do
	command -v $tool >/dev/null || bad "$tool is not installed (./build.sh test installs it)"
done

# 1. install, then move the tree
check "./build.sh install" env BUILD="$BUILD_DIR" bash ./build.sh install "$T/staging"
mv "$T/staging" "$T/prefix"
P=$T/prefix
for f in bin/tilec include/tile.h include/tilec.h lib/libtile.a lib/pkgconfig/tile.pc lib/cmake/tile/tileConfig.cmake \
	lib/cmake/tile/tileConfigVersion.cmake lib/cmake/tile/tileKernels.cmake share/doc/tile/README.md \
	share/tile/install_manifest.txt share/tile/tile_tune.c bin/tile-capture share/tile/python/tile_capture/__main__.py; do
	[ -f "$P/$f" ] && ok || bad "not installed: $f"
done
[ "$(wc -l <"$P/share/tile/install_manifest.txt")" = "$(cd "$P" && find . -type f | wc -l)" ] && ok ||
	bad "the manifest lists $(wc -l <"$P/share/tile/install_manifest.txt") files, the prefix has $(cd "$P" && find . -type f | wc -l)"
cmp -s "$P/include/tile.h" tile.h && ok || bad "the installed tile.h differs from tile.h"
# text files of the package: no build or install path
grep -rIlF -e "$ROOT" -e "$T/staging" -e "$BUILD_DIR" "$P" >"$T/paths"
[ ! -s "$T/paths" ] && ok || { bad "absolute build paths in:"; cat "$T/paths"; }
"$P/bin/tilec" compile --help >"$T/out" 2>&1
has "the installed tilec runs" "$T/out" "^usage: tilec compile"
"$P/bin/tile-capture" --help >"$T/out" 2>&1
has "the installed tile-capture runs" "$T/out" "^usage: python3 -m tile_capture -o MANIFEST"

# 2. CMake + Ninja, examples/cmake copied out of the tree
cp -r examples/cmake "$T/cm"
check "cmake configure" cmake -S "$T/cm" -B "$T/cm/build" -G Ninja -DCMAKE_PREFIX_PATH="$P"
check "cmake build" cmake --build "$T/cm/build"
cp "$T/out" "$T/cm.log"
has "tile_add_kernels ran tilec for add_kernels" "$T/cm.log" "tilec: compiling kernels add_kernels"
has "... and scale_kernels" "$T/cm.log" "tilec: compiling kernels scale_kernels"
"$T/cm/build/vector_ops" >"$T/run" 2>&1
rc=$?
[ $rc = 0 ] && ok || { bad "vector_ops (CMake) exited $rc"; cat "$T/run"; }
# the manifests' variants and the :4 one tilec adds to each unhinted n_elements
has "it lists the kernels" "$T/run" "^add_kernels: kernel add_kernel, 3 variants$"
has "... of both blobs" "$T/run" "^scale_kernels: kernel scale_kernel, 2 variants$"
# examples/llm through the installed package too (one arch, to keep the
# compile short): its manifest's 15 kernels, a program that needs only libcuda
cp -r examples/llm "$T/llm"
check "examples/llm: cmake configure" cmake -S "$T/llm" -B "$T/llm/build" -G Ninja -DCMAKE_PREFIX_PATH="$P" -DTILE_ARCHS=sm_90a
check "examples/llm: cmake build" cmake --build "$T/llm/build"
"$T/llm/build/llm" --help >"$T/out" 2>&1
has "examples/llm (CMake) runs" "$T/out" "^usage: llm --weights FILE"
has "the presets reached tilec (orin, blackwell)" "$T/run" "^add_kernels: image cubin sm_87$"
has "... sm_120" "$T/run" "^scale_kernels: image cubin sm_120$"
has "it ran, or said why not" "$T/run" "^(no GPU to run on|out = 2 \* \(x \+ y\) over [0-9]+ elements: all correct)"
check "a second build" cmake --build "$T/cm/build"
has "does nothing" "$T/out" "no work to do"
sleep 1
touch "$T/cm/add.py"
check "a build after touching add.py" cmake --build "$T/cm/build"
has "recompiles add_kernels" "$T/out" "tilec: compiling kernels add_kernels"
hasnt "and not scale_kernels" "$T/out" "compiling kernels scale_kernels"
sed -i 's/BLOCK_SIZE=512/BLOCK_SIZE=256/' "$T/cm/CMakeLists.txt"
check "a build after changing scale's KERNELS line" cmake --build "$T/cm/build"
has "recompiles scale_kernels" "$T/out" "tilec: compiling kernels scale_kernels"
hasnt "and not add_kernels" "$T/out" "compiling kernels add_kernels"
"$P/bin/tilec" inspect "$T/cm/build/tile/scale_kernels/scale_kernels.c" >"$T/inspect" 2>&1
has "with the new constexpr" "$T/inspect" "BLOCK_SIZE=256"

# 3. Make + pkg-config (examples/make uses ../cmake's kernels and main.c)
mkdir -p "$T/mk"
cp -r examples/cmake examples/make "$T/mk/"
export PKG_CONFIG_PATH=$P/lib/pkgconfig
unset TILEC # the Makefile takes it from pkg-config
has "pkg-config finds tilec" <(pkg-config --variable=tilec tile) "^$P/lib/pkgconfig/\.\./\.\./bin/tilec$"
check "make" make -C "$T/mk/make" ARCH=sm_80
"$T/mk/make/vector_ops" >"$T/run" 2>&1
rc=$?
[ $rc = 0 ] && ok || { bad "vector_ops (Make) exited $rc"; cat "$T/run"; }
has "it lists the kernels" "$T/run" "^add_kernels: kernel add_kernel, 3 variants$"
check "make again" make -C "$T/mk/make" ARCH=sm_80
hasnt "does nothing" "$T/out" "tilec|cc "
sleep 1
touch "$T/mk/cmake/scale.py"
check "make after touching scale.py" make -C "$T/mk/make" ARCH=sm_80
has "recompiles scale_kernels" "$T/out" "tilec compile -m scale_kernels.tile"
hasnt "and not add_kernels" "$T/out" "add_kernels.tile"

# 4. cross-compiled for aarch64 (Jetson) with the toolchain file of examples/cmake
check "cmake configure for aarch64" cmake -S "$T/cm" -B "$T/cm/arm64" -G Ninja -DCMAKE_PREFIX_PATH="$P" \
	-DCMAKE_TOOLCHAIN_FILE="$T/cm/aarch64-linux-gnu.cmake" -DTILE_ARCHS="orin;thor"
check "cmake build for aarch64" cmake --build "$T/cm/arm64"
# ELF e_machine (offset 18, little-endian): 183 is EM_AARCH64
[ "$(od -An -tu2 -j18 -N2 "$T/cm/arm64/vector_ops" 2>/dev/null | tr -d ' ')" = 183 ] && ok ||
	bad "vector_ops for aarch64 is not an aarch64 ELF"
"$P/bin/tilec" inspect "$T/cm/arm64/tile/add_kernels/add_kernels.c" >"$T/inspect" 2>&1
has "its blob has Orin's cubin" "$T/inspect" "cubin sm_87, "
has "... and Thor's" "$T/inspect" "cubin sm_110, "
# tile-tune for the Jetson: an autotuned kernel compiled for Orin, tile-tune
# cross-built from the installed source, and the tuned blob in one command
mkdir -p "$T/tune"
cat >"$T/tune/k.py" <<'PY'
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024}, num_warps=8)], key=["n"])
@triton.jit
def twice(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
PY
TK=("$T/tune/k.py" -n twice -s "*fp32:16, i32" -g "cdiv(n, BLOCK)" --arch orin)
check "tilec for orin, all configs" "$P/bin/tilec" compile "${TK[@]}" -o "$T/tune/twice"
check "tile-tune for aarch64" aarch64-linux-gnu-gcc -O2 -std=c11 -Wall -Wextra -Werror -I"$P/include" -I"$T/tune" \
	-DTILE_TUNE_BLOB=twice "$P/share/tile/tile_tune.c" "$T/tune/twice.c" -ldl -lpthread -lm -o "$T/tune/tile-tune"
[ "$(od -An -tu2 -j18 -N2 "$T/tune/tile-tune" 2>/dev/null | tr -d ' ')" = 183 ] && ok || bad "tile-tune is not an aarch64 ELF"
# the identity tile-tune writes: the one the installed tilec inspect shows
ID=$("$P/bin/tilec" inspect "$T/tune/twice.c" | sed -n 's/^  configs .*; identity \([0-9a-f]\{16\}\)$/\1/p')
printf '# as tile-tune writes it on the Orin\ntile-tuning 2\nkernel twice identity %s configs 2 key n default 1\n4096 0\n' \
	"$ID" >"$T/tune/orin.tuning"
check "tilec --tuning for orin" "$P/bin/tilec" compile "${TK[@]}" --tuning "$T/tune/orin.tuning" -o "$T/tune/tuned"
"$P/bin/tilec" inspect "$T/tune/tuned.c" >"$T/inspect" 2>&1
has "the tuned blob's table" "$T/inspect" "    n=4096 -> config 0"
has "... for Orin" "$T/inspect" "cubin sm_87, "

# 5. uninstall
check "./build.sh uninstall" bash ./build.sh uninstall "$P"
[ ! -e "$P" ] || [ -z "$(find "$P" -mindepth 1)" ] && ok || { bad "left after uninstall:"; find "$P" | head; }

echo "test_install: $pass passed, $fail failed"
[ "$fail" = 0 ]
