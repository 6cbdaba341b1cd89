#!/usr/bin/env bash
# test_loader_fake.sh - tile.h against a fake CUDA driver library.
#
# Builds tests/fake_cuda/fake_cuda.c as a shared library (and variants
# without cuLaunchKernelEx, and without the CUDA 12 entry points),
# builds tests/fake_cuda/loader_fake_test.c with ASan/UBSan (and again with
# TILE_DEBUG), and runs it in separate processes, since the driver is
# opened once per process: the main bookkeeping tests, a missing library,
# a missing symbol, a failing cuInit, a driver older than CUDA 12, a launch
# racing with destroy under TILE_DEBUG; then the dispatch tests and the
# TMA tensor-map tests (on the fake driver and on one older than CUDA 12).
# Then the main, the TILE_DEBUG and the tensor-map
# tests built with ThreadSanitizer (fake driver included), and the soak program
# (tests/gpu/soak.c, the GPU machine's multi-thread, multi-context driver)
# against the fake driver under ThreadSanitizer, on kernels packed by
# tilec from fake PTX. Prints the summed result line.
set -u
cd "$(dirname "$0")/.."
out=${TILE_BUILD:-build}/fake_cuda
mkdir -p "$out"
cc=${CC:-cc}
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
flags="-std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE $san"
passed=0
failed=0

tsan="-std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -fsanitize=thread -fno-omit-frame-pointer"

build() {
	$cc $flags -fPIC -shared -o "$out/libfakecuda.so" tests/fake_cuda/fake_cuda.c -lpthread &&
		$cc $flags -fPIC -shared -DFAKE_CUDA_OMIT_LAUNCH_EX -o "$out/libfakecuda_nolaunchex.so" tests/fake_cuda/fake_cuda.c -lpthread &&
		$cc $flags -fPIC -shared -DFAKE_CUDA_OMIT_CTX_ID -o "$out/libfakecuda_noctxid.so" tests/fake_cuda/fake_cuda.c -lpthread &&
		$cc $flags -I. -Itests -o "$out/loader_fake_test" tests/fake_cuda/loader_fake_test.c -lz -lpthread -ldl &&
		$cc $flags -I. -Itests -o "$out/dispatch_fake_test" tests/fake_cuda/dispatch_fake_test.c -lz -lpthread -ldl &&
		$cc $flags -I. -Itests -o "$out/tensormap_fake_test" tests/fake_cuda/tensormap_fake_test.c -lz -lpthread -ldl &&
		$cc $flags -DTILE_DEBUG -I. -Itests -o "$out/loader_fake_test_debug" tests/fake_cuda/loader_fake_test.c -lz -lpthread -ldl
}

build_tsan() {
	$cc $tsan -fPIC -shared -o "$out/libfakecuda_tsan.so" tests/fake_cuda/fake_cuda.c -lpthread &&
		$cc $tsan -DLOADER_TEST_TSAN -I. -Itests -o "$out/loader_fake_test_tsan" tests/fake_cuda/loader_fake_test.c -lz -lpthread -ldl &&
		$cc $tsan -I. -Itests -o "$out/tensormap_fake_test_tsan" tests/fake_cuda/tensormap_fake_test.c -lz -lpthread -ldl &&
		$cc $tsan -DLOADER_TEST_TSAN -DTILE_DEBUG -I. -Itests -o "$out/loader_fake_test_tsan_debug" tests/fake_cuda/loader_fake_test.c -lz -lpthread -ldl
}

# run MODE LIBRARY [ENV...]: adds the mode's counts; a crash or a missing
# result line counts as a failure.
run() {
	local mode=$1 lib=$2 log line p f
	shift 2
	local default=$out/loader_fake_test
	[ "$mode" = dispatch ] && default=$out/dispatch_fake_test
	case $mode in tensormap*) default=$out/tensormap_fake_test ;; esac
	log=$(env "$@" TILE_FAKE_CUDA="$lib" "${prog:-$default}" "$mode" 2>&1)
	local rc=$?
	line=$(printf '%s\n' "$log" | grep -E '^test_loader_fake: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	if [ -z "$line" ] || { [ $rc != 0 ] && [ "$(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed/\1/')" = 0 ]; }; then
		printf '%s\n' "$log" | tail -n 30
		echo "mode $mode: exited $rc"
		failed=$((failed + 1))
		[ -z "$line" ] && return
	fi
	p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.*passed, ([0-9]+) failed/\1/')
	[ "$f" != 0 ] && printf '%s\n' "$log" | grep -v 'passed,' | tail -n 30
	echo "mode $mode: $line"
	passed=$((passed + p))
	failed=$((failed + f))
}

if build; then
	# dlopen needs a path with a slash, or it searches the library path
	dir=$(cd "$out" && pwd)
	run main "$dir/libfakecuda.so"
	run dispatch "$dir/libfakecuda.so"
	run nodriver "$dir/no-such-libcuda.so"
	run nosym "$dir/libfakecuda_nolaunchex.so"
	run noinit "$dir/libfakecuda.so" FAKE_CUDA_INIT_ERROR=100
	run noctxid "$dir/libfakecuda_noctxid.so"
	run tensormap "$dir/libfakecuda.so"
	run tensormap_old "$dir/libfakecuda_noctxid.so"
	prog=$out/loader_fake_test_debug run debug "$dir/libfakecuda.so"
else
	echo "build failed"
	failed=$((failed + 1))
fi

# ThreadSanitizer: the main tests (any report fails the run: exitcode 66)
echo "ThreadSanitizer build:"
if build_tsan; then
	prog=$out/loader_fake_test_tsan run main "$dir/libfakecuda_tsan.so" TSAN_OPTIONS="halt_on_error=1 exitcode=66"
	prog=$out/loader_fake_test_tsan_debug run debug "$dir/libfakecuda_tsan.so" TSAN_OPTIONS="halt_on_error=1 exitcode=66"
	prog=$out/tensormap_fake_test_tsan run tensormap "$dir/libfakecuda_tsan.so" TSAN_OPTIONS="halt_on_error=1 exitcode=66"
else
	echo "tsan build failed"
	failed=$((failed + 1))
fi

# The soak program against the fake driver, under ThreadSanitizer
if [ -n "${TILEC:-}" ] && [ -x "${TILEC:-}" ] || [ -x "${TILE_BUILD:-build}/tilec" ]; then
	soak_log=$out/soak.log
	if bash tests/gpu/soak_fake.sh "${TILEC:-${TILE_BUILD:-build}/tilec}" "$out/soak" >"$soak_log" 2>&1; then
		echo "soak (fake driver, ThreadSanitizer): $(tail -n 1 "$soak_log")"
		passed=$((passed + 1))
	else
		tail -n 30 "$soak_log"
		echo "soak (fake driver, ThreadSanitizer): failed"
		failed=$((failed + 1))
	fi
else
	echo "soak: no tilec to pack its kernels"
	failed=$((failed + 1))
fi
echo "test_loader_fake: $passed passed, $failed failed"
[ "$failed" = 0 ]
