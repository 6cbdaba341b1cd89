#!/usr/bin/env bash
# build.sh - the one entry point.
#   ./build.sh            install missing dependencies, build libtile.a, tilec,
#                         tile.h and the examples, run the main example
#   ./build.sh test       build and run the CPU test suite (what CI runs)
#   ./build.sh header     regenerate tile.h from loader/
#   ./build.sh check      fail when tile.h is stale
#   ./build.sh fuzz [S]   run the fuzz targets for S seconds each (default 60)
#   ./build.sh gpu        run the GPU suite (needs an NVIDIA GPU, see tests/gpu/)
#   ./build.sh bench      run the benchmarks (GPU)
#   ./build.sh install [PREFIX]   build, then install into PREFIX (default
#                         /usr/local; DESTDIR=... stages it elsewhere)
#   ./build.sh uninstall [PREFIX] remove what install put there
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD
BUILD=${BUILD:-build}
JOBS=$(nproc 2>/dev/null || echo 2)

find_llvm_config() {
	local c v
	# 19 first: LLVM 22's code measured slower (README, docs/PERF.md)
	for c in "${LLVM_CONFIG:-}" llvm-config-19 llvm-config-22 llvm-config-21 llvm-config-20 llvm-config-18 llvm-config-17 llvm-config; do
		[ -n "$c" ] || continue
		command -v "$c" >/dev/null 2>&1 || continue
		v=$("$c" --version 2>/dev/null | cut -d. -f1)
		if [ -n "$v" ] && [ "$v" -ge 17 ] 2>/dev/null && [ -e "$("$c" --includedir)/llvm-c/Core.h" ] &&
			"$c" --targets-built 2>/dev/null | grep -qw NVPTX; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

have_zlib() {
	[ -e /usr/include/zlib.h ] || echo '#include <zlib.h>' | cc -E -x c - >/dev/null 2>&1
}

have_zstd() {
	[ -e /usr/include/zstd.h ] || echo '#include <zstd.h>' | cc -E -x c - >/dev/null 2>&1
}

# Static LLVM for tilec when its archives are installed (Debian's llvm-N-dev
# has them), else the shared library.
tilec_llvm_libs() {
	local comps="nvptx passes bitreader bitwriter linker" libs
	if have_zstd && libs=$("$LLVM_CONFIG" --link-static --libs $comps 2>/dev/null) && [ -n "$libs" ]; then
		echo "$("$LLVM_CONFIG" --link-static --ldflags) $libs $("$LLVM_CONFIG" --link-static --system-libs) -lstdc++"
	else
		echo "$("$LLVM_CONFIG" --ldflags) $("$LLVM_CONFIG" --libs)"
	fi
}

deps() {
	local missing=()
	find_llvm_config >/dev/null || missing+=(llvm-19-dev)
	have_zlib || missing+=(zlib1g-dev)
	command -v cc >/dev/null || missing+=(gcc)
	command -v make >/dev/null || missing+=(make)
	# only for linking tilec against static LLVM; without it tilec uses the shared one
	if ! have_zstd && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then missing+=(libzstd-dev); fi
	if [ ${#missing[@]} -gt 0 ]; then
		if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
			echo "build.sh: installing ${missing[*]}"
			export DEBIAN_FRONTEND=noninteractive
			apt-get update -qq >/dev/null
			apt-get install -y -qq "${missing[@]}" >/dev/null
		else
			echo "build.sh: missing: ${missing[*]}" >&2
			echo "build.sh: install them (Debian/Ubuntu: sudo apt-get install ${missing[*]}), or set LLVM_CONFIG to an llvm-config of LLVM 17 or newer with the NVPTX target" >&2
			exit 1
		fi
	fi
	LLVM_CONFIG=$(find_llvm_config) || { echo "build.sh: no usable llvm-config (LLVM >= 17 with NVPTX)" >&2; exit 1; }
	export LLVM_CONFIG
	if ! ptxas_path >/dev/null; then
		echo "build.sh: warning: ptxas not found (TILE_PTXAS, CUDA_HOME, /usr/local/cuda, PATH): blobs will carry PTX only" >&2
	fi
}

# What tests/test_install.sh builds users' projects with (natively, and
# cross-compiled for aarch64 Linux: Jetson).
test_deps() {
	local missing=()
	command -v cmake >/dev/null || missing+=(cmake)
	command -v ninja >/dev/null || missing+=(ninja-build)
	command -v pkg-config >/dev/null || missing+=(pkg-config)
	command -v aarch64-linux-gnu-gcc >/dev/null || missing+=(gcc-aarch64-linux-gnu)
	[ ${#missing[@]} -gt 0 ] || return 0
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "build.sh: installing ${missing[*]} for the tests"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >/dev/null
		apt-get install -y -qq "${missing[@]}" >/dev/null
	else
		echo "build.sh: the tests need ${missing[*]}: install them (tests/test_install.sh fails without)" >&2
	fi
}

ptxas_path() {
	local p
	for p in "${TILE_PTXAS:-}" "${CUDA_HOME:+$CUDA_HOME/bin/ptxas}" /usr/local/cuda/bin/ptxas "$(command -v ptxas 2>/dev/null || true)"; do
		[ -n "$p" ] && [ -x "$p" ] && { echo "$p"; return 0; }
	done
	return 1
}

header() {
	bash loader/amalgamate.sh >"$BUILD/tile.h.new"
	if ! cmp -s "$BUILD/tile.h.new" tile.h; then
		mv "$BUILD/tile.h.new" tile.h
		echo "build.sh: tile.h regenerated"
	else
		rm -f "$BUILD/tile.h.new"
	fi
}

check() {
	mkdir -p "$BUILD"
	bash loader/amalgamate.sh >"$BUILD/tile.h.check"
	if ! cmp -s "$BUILD/tile.h.check" tile.h; then
		echo "build.sh: tile.h is stale: run ./build.sh header and commit it" >&2
		return 1
	fi
	echo "build.sh: tile.h is up to date"
}

build() {
	mkdir -p "$BUILD"
	make -s -j"$JOBS" BUILD="$BUILD" LLVM_CONFIG="$LLVM_CONFIG" TILEC_LLVM_LIBS="$(tilec_llvm_libs)" all
}

examples() {
	[ -f examples/build.sh ] && bash examples/build.sh "$BUILD"
	return 0
}

# Runs every test program and test script; each ends with a line
# "NAME: N passed, N failed". Prints the sum last.
run_tests() {
	local passed=0 failed=0 broken=0 t line p f log
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
	export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/tests/lsan.supp:print_suppressions=0}
	export TILEC="$ROOT/$BUILD/tilec-san" TILE_BUILD="$ROOT/$BUILD"
	for t in "$BUILD"/tests/test_* tests/test_*.sh; do
		[ -e "$t" ] || continue
		case "$t" in *.sh) cmd=(bash "$t") ;; *) cmd=("$t") ;; esac
		log="$BUILD/logs/$(basename "$t").log"
		mkdir -p "$BUILD/logs"
		set +e
		"${cmd[@]}" >"$log" 2>&1
		local rc=$?
		set -e
		line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
		if [ -z "$line" ]; then
			echo "FAIL $t: exited $rc without a result line"
			tail -n 30 "$log"
			broken=$((broken + 1))
			continue
		fi
		p=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/; s/^([0-9]+) passed.*/\1/')
		f=$(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed.*/\1/')
		passed=$((passed + p))
		failed=$((failed + f))
		if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
			echo "FAIL $t: exited $rc (sanitizer or crash?)"
			tail -n 30 "$log"
			broken=$((broken + 1))
		elif [ "$f" != 0 ]; then
			echo "FAIL $line"
			grep -v -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 30
		else
			echo "ok   $line"
		fi
	done
	failed=$((failed + broken))
	echo "${passed} passed, ${failed} failed"
	[ "$failed" = 0 ]
}

# install PREFIX: tilec, tile.h, libtile.a with tilec.h, a pkg-config file
# and a CMake package (cmake/), the docs, tile-tune's source
# (tools/tile-tune/tile_tune.c, built on the target with tile.h and a blob's
# C: docs/TUNING.md), and a manifest of every file,
# relative to PREFIX, for uninstall. Nothing installed names this checkout
# or PREFIX: the package files find the prefix from where they are.
install_tree() {
	local prefix=$1 dest version llvm_libs f
	case "$prefix" in /*) ;; *) prefix=$PWD/$prefix ;; esac
	dest=${DESTDIR:-}$prefix
	version=$(cat VERSION)
	llvm_libs=$(echo $("$LLVM_CONFIG" --ldflags) $("$LLVM_CONFIG" --libs) | tr ' ' ';')
	local files=(bin/tilec include/tile.h include/tilec.h lib/libtile.a lib/pkgconfig/tile.pc
		lib/cmake/tile/tileConfig.cmake lib/cmake/tile/tileConfigVersion.cmake lib/cmake/tile/tileKernels.cmake
		share/doc/tile/README.md share/doc/tile/CHANGELOG share/tile/tile_tune.c bin/tile-capture)
	for f in docs/*.md; do files+=("share/doc/tile/$(basename "$f")"); done
	for f in tools/tile-capture/tile_capture/*.py; do files+=("share/tile/python/tile_capture/$(basename "$f")"); done
	mkdir -p "$dest/bin" "$dest/include" "$dest/lib/pkgconfig" "$dest/lib/cmake/tile" "$dest/share/doc/tile" "$dest/share/tile" \
		"$dest/share/tile/python/tile_capture"
	install -m 755 "$BUILD/tilec" "$dest/bin/tilec"
	install -m 644 tile.h "$dest/include/tile.h"
	install -m 644 libtile/tilec.h "$dest/include/tilec.h"
	install -m 644 "$BUILD/libtile.a" "$dest/lib/libtile.a"
	sed "s|@VERSION@|$version|g" cmake/tile.pc.in >"$dest/lib/pkgconfig/tile.pc"
	sed "s|@VERSION@|$version|g; s|@LLVM_LIBS@|$llvm_libs|g" cmake/tileConfig.cmake.in >"$dest/lib/cmake/tile/tileConfig.cmake"
	sed "s|@VERSION@|$version|g" cmake/tileConfigVersion.cmake.in >"$dest/lib/cmake/tile/tileConfigVersion.cmake"
	install -m 644 cmake/tileKernels.cmake "$dest/lib/cmake/tile/tileKernels.cmake"
	install -m 644 README.md CHANGELOG docs/*.md "$dest/share/doc/tile/"
	install -m 644 tools/tile-tune/tile_tune.c "$dest/share/tile/tile_tune.c"
	install -m 755 tools/tile-capture/tile-capture.sh "$dest/bin/tile-capture"
	install -m 644 tools/tile-capture/tile_capture/*.py "$dest/share/tile/python/tile_capture/"
	chmod 644 "$dest"/lib/pkgconfig/tile.pc "$dest"/lib/cmake/tile/*
	files+=(share/tile/install_manifest.txt)
	printf '%s\n' "${files[@]}" >"$dest/share/tile/install_manifest.txt"
	for f in "${files[@]}"; do [ -f "$dest/$f" ] || { echo "build.sh: install: $f missing" >&2; exit 1; }; done
	echo "build.sh: installed tile $version into $dest (${#files[@]} files, listed in share/tile/install_manifest.txt)"
}

# uninstall PREFIX: removes the files the manifest lists, then the folders
# install made that are left empty.
uninstall_tree() {
	local dest=${DESTDIR:-}$1 f d
	local m=$dest/share/tile/install_manifest.txt
	[ -f "$m" ] || { echo "build.sh: uninstall: no $m" >&2; exit 1; }
	local files
	mapfile -t files <"$m"
	for f in "${files[@]}"; do
		case "$f" in ''|/*|*..*) echo "build.sh: uninstall: skipping '$f'" >&2; continue ;; esac
		rm -f "$dest/$f"
	done
	for d in share/tile/python/tile_capture share/tile/python share/tile share/doc/tile lib/cmake/tile lib/cmake lib/pkgconfig share/doc share lib include bin; do
		rmdir "$dest/$d" 2>/dev/null || true
	done
	echo "build.sh: removed ${#files[@]} files from $dest"
}

cmd=${1:-all}
case "$cmd" in
all)
	deps
	build
	header
	examples
	[ -x "$BUILD/examples/vector_add" ] && "$BUILD/examples/vector_add"
	;;
test)
	deps
	test_deps
	build
	check
	make -s -j"$JOBS" BUILD="$BUILD" LLVM_CONFIG="$LLVM_CONFIG" tests
	examples
	run_tests
	;;
header) mkdir -p "$BUILD"; header ;;
check) check ;;
fuzz)
	deps
	build
	bash tests/fuzz/run.sh "$BUILD" "${2:-60}"
	;;
gpu) deps; build; examples; bash tests/gpu/run.sh "$BUILD" ;;
bench) deps; build; bash bench/run.sh "$BUILD" ;;
install) deps; build; check; install_tree "${2:-/usr/local}" ;;
uninstall) uninstall_tree "${2:-/usr/local}" ;;
*)
	echo "usage: ./build.sh [all|test|header|check|fuzz [SECONDS]|gpu|bench|install [PREFIX]|uninstall [PREFIX]]" >&2
	exit 2
	;;
esac
