#!/usr/bin/env bash
# run.sh - builds and runs every fuzz target, tests/fuzz/fuzz_*.c.
#   bash tests/fuzz/run.sh [BUILD] [SECONDS] [TARGET...]
# Each target defines LLVMFuzzerTestOneInput. Where clang's libFuzzer
# links (clang -fsanitize=fuzzer), targets are built with it and ASan/UBSan;
# otherwise with $CC (gcc) and the plain driver tests/fuzz/driver.c, with
# the same sanitizers. FUZZ_ENGINE=libfuzzer|driver forces one. Seeds come
# from tests/fuzz/corpus/TARGET/ (libFuzzer grows a copy under BUILD). A
# target that includes a libtile header ("front/syntax.h", ...) is linked
# with an archive of the libtile sources that do not use LLVM (all but
# nvptx/ and compile.c), built by the same compiler (one sanitizer
# runtime); one that includes compile.h or an nvptx/ header also with an
# archive of those (compiled against the headers of $LLVM_CONFIG, default
# llvm-config-19 as in the Makefile) and LLVM's libraries as the Makefile
# links its tests (the shared library where LLVM has one: quicker to
# link; LLVM is not instrumented either way). The archives' sources are
# compiled as many at a time as there are CPUs. A target that needs more
# gives extra compile arguments on a comment line `fuzz-extra: ARGS` (shell
# words, expanded); one that seeds from more folders than its corpus names
# them on a line `fuzz-seeds: DIR...` (DIR/...: the .py files of DIR and
# its subfolders).
# FUZZ_BUILD_ONLY=1 builds the targets (BUILD/fuzz/TARGET, the engine
# named in BUILD/fuzz/TARGET.engine) without running them
# (tests/fuzz/campaign.sh runs them). FUZZ_FRESH=1 starts libFuzzer from
# the seeds alone, in a working corpus emptied first
# (BUILD/fuzz/fresh_TARGET): a bounded run (tests/test_fuzz.sh) then takes
# as long wherever it runs, whatever corpus earlier runs grew (libFuzzer
# runs all of it before it mutates). Prints one line per target; exits
# non-zero when a target fails to build or crashes.
set -u
cd "$(dirname "$0")/../.."
. tests/fuzz/seeds.sh
build=${1:-build}
seconds=${2:-60}
shift 2 2>/dev/null || shift $#
out=$build/fuzz
mkdir -p "$out"
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
common="-g -O1 -D_GNU_SOURCE -I. -Ilibtile -Itests"

engine=${FUZZ_ENGINE:-}
if [ -z "$engine" ]; then
	engine=driver
	if command -v clang >/dev/null 2>&1 &&
		printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' |
		clang -x c -fsanitize=fuzzer,address,undefined - -o "$out/probe" >/dev/null 2>&1; then
		engine=libfuzzer
	fi
fi

if [ $# -gt 0 ]; then
	targets=("$@")
else
	targets=()
	for f in tests/fuzz/fuzz_*.c; do
		[ -e "$f" ] && targets+=("$(basename "$f" .c)")
	done
fi

if [ "$engine" = libfuzzer ]; then cc=clang; else cc=${CC:-cc}; fi
# libFuzzer's coverage feedback needs libtile instrumented too
cov=
[ "$engine" = libfuzzer ] && cov=-fsanitize=fuzzer-no-link

llvm_config=${LLVM_CONFIG:-llvm-config-19}
cpus=$(nproc 2>/dev/null || echo 2)

# libtile's sources that use LLVM (KIND llvm: nvptx/ and compile.c) or
# the others (KIND plain) as an archive, rebuilt when a source is newer;
# the LLVM one is named for its LLVM's major version.
libtile_archive() {
	local kind=$1 name=$1 lib obj objs f flags='' pids=() failed=0 p
	[ "$kind" = llvm ] && name=llvm$("$llvm_config" --version | cut -d. -f1)
	lib=$out/libtile-$name-$engine.a
	objs=$out/obj-$name-$engine
	if [ -e "$lib" ] && [ -z "$(find libtile tests/fuzz/run.sh -name '*.[ch]' -newer "$lib" -o -name run.sh -newer "$lib" | head -n 1)" ]; then
		echo "$lib"
		return 0
	fi
	[ "$kind" = llvm ] && flags="-I$("$llvm_config" --includedir)"
	rm -rf "$objs" "$lib"
	mkdir -p "$objs"
	for f in $(find libtile -name '*.c' | sort); do
		case "$f" in
		libtile/nvptx/* | libtile/compile.c) [ "$kind" = llvm ] || continue ;;
		*) [ "$kind" = plain ] || continue ;;
		esac
		obj=${f#libtile/}
		obj=$objs/${obj//\//_}
		obj=${obj%.c}.o
		# shellcheck disable=SC2086
		$cc -std=c11 $common $flags $san $cov -c "$f" -o "$obj" >"$obj.log" 2>&1 &
		pids+=($!)
		if [ ${#pids[@]} -ge "$cpus" ]; then
			wait "${pids[0]}" || failed=1
			pids=("${pids[@]:1}")
		fi
	done
	for p in "${pids[@]}"; do wait "$p" || failed=1; done
	cat "$objs"/*.log >>"$out/libtile.log"
	[ "$failed" = 0 ] && ar rcs "$lib" "$objs"/*.o && echo "$lib"
}

status=0
for name in "${targets[@]}"; do
	src=tests/fuzz/$name.c
	seeds=tests/fuzz/corpus/$name
	mkdir -p "$seeds"
	words=$(grep -m 1 -o 'fuzz-extra:.*' "$src" | sed -e 's/^fuzz-extra://' -e 's|\*/.*||' || true)
	eval "extra=($words)"
	# more seed folders, read where they are (tests/kernels for the parser)
	more_seed_dirs "$name" "$out"
	kinds=()
	grep -qE '#include "(compile\.h|nvptx/)' "$src" && kinds+=(llvm)
	grep -qE '#include "(compile\.h|(base|ir|front|passes|pack|analysis|nvptx)/)' "$src" && kinds+=(plain)
	for kind in "${kinds[@]}"; do
		if ! lib=$(libtile_archive "$kind"); then
			echo "$name: building libtile ($kind) failed"
			tail -n 20 "$out/libtile.log"
			status=1
			continue 2
		fi
		extra+=("$lib")
	done
	# shellcheck disable=SC2207
	[ "${kinds[0]:-}" = llvm ] && extra+=($("$llvm_config" --ldflags --libs))
	log=$out/$name.log
	if [ "$engine" = libfuzzer ]; then
		# shellcheck disable=SC2086
		$cc $common -fsanitize=fuzzer $san "$src" "${extra[@]}" -o "$out/$name" -lz -lpthread -ldl -lm >"$log" 2>&1
	else
		# shellcheck disable=SC2086
		$cc $common $san "$src" tests/fuzz/driver.c "${extra[@]}" -o "$out/$name" -lz -lpthread -ldl -lm >"$log" 2>&1
	fi
	if [ $? != 0 ]; then
		echo "$name: build failed"
		tail -n 20 "$log"
		status=1
		continue
	fi
	echo "$engine" >"$out/$name.engine"
	if [ -n "${FUZZ_BUILD_ONLY:-}" ]; then
		echo "$name: built ($engine)"
		continue
	fi
	if [ "$engine" = libfuzzer ]; then
		work=$out/corpus_$name
		if [ -n "${FUZZ_FRESH:-}" ]; then
			work=$out/fresh_$name
			rm -rf "$work"
		fi
		mkdir -p "$work"
		"$out/$name" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="$out/$name-" "$work" "$seeds" "${more_seeds[@]}" >"$log" 2>&1
	else
		"$out/$name" -t "$seconds" -o "$out/$name-" "$seeds" "${more_seeds[@]}" >"$log" 2>&1
	fi
	rc=$?
	if [ $rc != 0 ]; then
		echo "$name: CRASH (exit $rc, $engine); log: $log"
		tail -n 40 "$log"
		status=1
	else
		runs=$(grep -E -o '(stat::number_of_executed_units: *[0-9]+|[0-9]+ runs)' "$log" | grep -E -o '[0-9]+' | tail -n 1)
		echo "$name: ok, ${runs:-?} runs in ${seconds}s ($engine)"
	fi
done
exit $status
