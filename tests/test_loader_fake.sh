#!/usr/bin/env bash
# test_loader_fake.sh - tile.h against a fake CUDA driver library.
#
# Builds tests/fake_cuda/fake_cuda.c as a shared library (and a variant
# without cuLaunchKernelEx), builds tests/fake_cuda/loader_fake_test.c with
# ASan/UBSan, and runs it in four processes, since the driver is opened once
# per process: the main bookkeeping tests, a missing library, a missing
# symbol, a failing cuInit. Prints the summed result line.
set -u
cd "$(dirname "$0")/.."
out=${TILE_BUILD:-build}/fake_cuda
mkdir -p "$out"
cc=${CC:-cc}
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
flags="-std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE $san"
passed=0
failed=0

build() {
	$cc $flags -fPIC -shared -o "$out/libfakecuda.so" tests/fake_cuda/fake_cuda.c -lpthread &&
		$cc $flags -fPIC -shared -DFAKE_CUDA_OMIT_LAUNCH_EX -o "$out/libfakecuda_nolaunchex.so" tests/fake_cuda/fake_cuda.c -lpthread &&
		$cc $flags -I. -Itests -o "$out/loader_fake_test" tests/fake_cuda/loader_fake_test.c -lz -lpthread -ldl &&
		$cc $flags -I. -Itests -o "$out/dispatch_fake_test" tests/fake_cuda/dispatch_fake_test.c -lz -lpthread -ldl
}

# run MODE LIBRARY [ENV...]: adds the mode's counts; a crash or a missing
# result line counts as a failure.
run() {
	local mode=$1 lib=$2 log line p f
	shift 2
	local prog=loader_fake_test
	[ "$mode" = dispatch ] && prog=dispatch_fake_test
	log=$(env "$@" TILE_FAKE_CUDA="$lib" "$out/$prog" "$mode" 2>&1)
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
else
	echo "build failed"
	failed=$((failed + 1))
fi
echo "test_loader_fake: $passed passed, $failed failed"
[ "$failed" = 0 ]
