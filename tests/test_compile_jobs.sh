#!/usr/bin/env bash
# test_compile_jobs.sh - `tilec compile -j N`: the same output for every N.
#
# A manifest of several kernels and variants (matmuls for two target
# families, a libdevice kernel, a reduction) and the 128x128 fp16 matmul
# for sm_80,sm_87,sm_90a + PTX are compiled with -j 1, -j 3 and the
# default: the .c, .h and every --keep-ptx file must be byte-identical and
# stderr empty. Failures must read the same under -j 1 and -j 3 (stderr
# and exit status, no output written): a ptxas that fails for some archs
# (only the first in arch order is reported, as the serial compile stops
# there), shared memory too large for two families (only the first
# family's error), no ptxas at all (the warning, PTX images; --no-ptx, as
# the lowest arch's PTX would be there twice). The outputs and errors
# again from tilec-tsan (ThreadSanitizer; tests/tsan.supp leaves LLVM's
# uninstrumented insides out). Then -j's
# argument errors, progress lines: on a terminal (through script(1),
# where it is installed), never with -q or when stderr is not one; and the
# default of one thread under a parallel make (MAKEFLAGS).
# Needs ptxas (as the CI machine has); without it the cubin cases fail.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
TILEC=${TILEC:-$ROOT/build/tilec}
K=$ROOT/tests/kernels
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

PTXAS=
for p in "${TILE_PTXAS:-}" "${CUDA_HOME:+$CUDA_HOME/bin/ptxas}" /usr/local/cuda/bin/ptxas "$(command -v ptxas 2>/dev/null)"; do
	[ -n "$p" ] && [ -x "$p" ] && { PTXAS=$p; break; }
done
[ -n "$PTXAS" ] || bad "no ptxas (TILE_PTXAS, CUDA_HOME, /usr/local/cuda, PATH)"

MMSIG='*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1'
MMGRID='cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)'
mm_line() { # M N K WARPS STAGES: a manifest line of the tutorial matmul
	echo "$K/matmul.py matmul_kernel '$MMSIG' -D BLOCK_SIZE_M=$1 -D BLOCK_SIZE_N=$2 -D BLOCK_SIZE_K=$3 -D GROUP_SIZE_M=8 -w $4 -ns $5 -g '$MMGRID' -on mm_$1_$2"
}
{
	mm_line 128 128 32 4 3
	mm_line 64 128 32 4 4
	mm_line 64 64 32 4 2
	echo "$K/libdevice_ops.py libdevice_kernel '*fp32:16, *fp32:16, i32' -D FN=\"'normcdf'\" -D BLOCK=1024 -g 1"
	echo "$K/reductions.py col_sum_kernel '*fp32:16, *fp32:16, i32, i32, i32:16' -D BLOCK_M=128 -D BLOCK_N=64 -g 'cdiv(N, BLOCK_N)'"
	echo "$K/vector_add.py add_kernel '*fp32:16, *fp32:16, *fp32:16, i32:16' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'"
	echo "$K/vector_add.py add_kernel '*fp32:16, *fp32:16, *fp32:16, i32' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'"
} >"$T/many.tile"
MM=("$K/matmul.py" -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=32
	-D GROUP_SIZE_M=8 -g "$MMGRID" --arch sm_80,sm_87,sm_90a)

# run TAG ARGS...: tilec compile ARGS... -o T/TAG/out --name out, with its
# stderr in T/TAG.err and its status in T/TAG.rc
run() {
	local tag=$1
	shift
	mkdir -p "$T/$tag"
	"$TILEC" compile "$@" -o "$T/$tag/out" --name out 2>"$T/$tag.err" >/dev/null
	echo $? >"$T/$tag.rc"
}

# same_output NAME TAG...: every TAG compiled, stderr empty, outputs equal to the first's
same_output() {
	local name=$1 first=$2 tag f
	shift
	for tag in "$@"; do
		if [ "$(cat "$T/$tag.rc")" != 0 ] || [ -s "$T/$tag.err" ]; then
			bad "$name: $tag exited $(cat "$T/$tag.rc") or wrote to stderr:"
			head -c 2000 "$T/$tag.err"
			continue
		fi
		ok
		[ "$tag" = "$first" ] && continue
		if [ "$(cd "$T/$first" && find . -type f | sort)" != "$(cd "$T/$tag" && find . -type f | sort)" ]; then
			bad "$name: $tag wrote other files than $first"
			continue
		fi
		for f in $(cd "$T/$first" && find . -type f | sort); do
			if cmp -s "$T/$first/$f" "$T/$tag/$f"; then ok; else bad "$name: $f differs between $first and $tag"; fi
		done
	done
}

# same_error NAME PATTERN TAG...: every TAG failed alike (status, stderr), wrote nothing, and said PATTERN
same_error() {
	local name=$1 pat=$2 first=$3 tag
	shift 2
	for tag in "$@"; do
		if [ "$(cat "$T/$tag.rc")" = 0 ]; then
			bad "$name: $tag succeeded"
			continue
		fi
		if [ -n "$(ls -A "$T/$tag")" ]; then bad "$name: $tag wrote $(ls "$T/$tag")"; else ok; fi
		if grep -qE -- "$pat" "$T/$tag.err"; then ok; else bad "$name: no /$pat/ in $tag's stderr:"; head -c 2000 "$T/$tag.err"; fi
		[ "$tag" = "$first" ] && continue
		if [ "$(cat "$T/$tag.rc")" = "$(cat "$T/$first.rc")" ] && cmp -s "$T/$first.err" "$T/$tag.err"; then
			ok
		else
			bad "$name: $tag reported otherwise than $first:"
			diff "$T/$first.err" "$T/$tag.err" | head -20
		fi
	done
}

# 1. outputs
run many1 -m "$T/many.tile" --keep-ptx "$T/many1/ptx" -j 1
run many3 -m "$T/many.tile" --keep-ptx "$T/many3/ptx" -j 3
run many -m "$T/many.tile" --keep-ptx "$T/many/ptx"
same_output "manifest of 7 variants, default archs" many1 many3 many
run mm1 "${MM[@]}" -j 1 --keep-ptx "$T/mm1/ptx"
run mm3 "${MM[@]}" -j3 --keep-ptx "$T/mm3/ptx"
run mm8 "${MM[@]}" --jobs 8 --keep-ptx "$T/mm8/ptx"
same_output "matmul 128x128 for sm_80,sm_87,sm_90a + PTX" mm1 mm3 mm8
if grep -q wgmma "$T/mm1/ptx/out.sm_90a.ptx" 2>/dev/null && grep -q "mma.sync" "$T/mm1/ptx/out.sm_80.ptx" 2>/dev/null; then
	ok
else
	bad "the matmul's two families: wgmma for sm_90a, mma.sync for sm_80"
fi

# 2. errors
cat >"$T/ptxas_fails" <<EOF
#!/bin/sh
for a; do
	case \$a in -arch=sm_87 | -arch=sm_90a) echo "ptxas fatal   : no \${a#-arch=} today"; exit 3 ;; esac
done
exec "$PTXAS" "\$@"
EOF
chmod +x "$T/ptxas_fails"
run ptxfail1 "${MM[@]}" --ptxas "$T/ptxas_fails" -j 1
run ptxfail3 "${MM[@]}" --ptxas "$T/ptxas_fails" -j 3
same_error "ptxas failing for sm_87 and sm_90a" "ptxas failed for sm_87 \(exit status 3\)" ptxfail1 ptxfail3
if grep -q "sm_90a today" "$T/ptxfail3.err"; then bad "sm_90a's failure reported after sm_87's"; else ok; fi
run ptxfailm1 -m "$T/many.tile" --ptxas "$T/ptxas_fails" -j 1
run ptxfailm3 -m "$T/many.tile" --ptxas "$T/ptxas_fails" -j 3
same_error "ptxas failing, manifest" "no sm_87 today" ptxfailm1 ptxfailm3
# 128x256x64 in 5 stages: 245760 bytes of shared memory, over sm_87's and sm_90a's limits
BIG=("$K/matmul.py" -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=256 -D BLOCK_SIZE_K=64
	-D GROUP_SIZE_M=8 -w 8 -ns 5 -g "$MMGRID" --arch sm_87,sm_90a)
run smem1 "${BIG[@]}" -j 1
run smem3 "${BIG[@]}" -j 3
same_error "shared memory over two families' limits" "more than a block may have on sm_87" smem1 smem3
if grep -q "on sm_90a" "$T/smem3.err"; then bad "the second family's error reported too"; else ok; fi
TILE_PTXAS=/nonexistent/ptxas run noptx1 "${MM[@]}" --no-ptx -j 1
TILE_PTXAS=/nonexistent/ptxas run noptx3 "${MM[@]}" --no-ptx -j 3
if [ "$(cat "$T/noptx1.rc")$(cat "$T/noptx3.rc")" = 00 ] && grep -q "warning: ptxas not found" "$T/noptx1.err" &&
	cmp -s "$T/noptx1.err" "$T/noptx3.err" && cmp -s "$T/noptx1/out.c" "$T/noptx3/out.c"; then
	ok
else
	bad "no ptxas: the same warning and PTX images under -j 1 and -j 3"
	cat "$T/noptx1.err" "$T/noptx3.err" | head -20
fi
run badptxas1 "${MM[@]}" --ptxas "$T/none" -j 1
run badptxas3 "${MM[@]}" --ptxas "$T/none" -j 3
same_error "--ptxas not executable" "ptxas '.*none' is not an executable file" badptxas1 badptxas3

# 3. under ThreadSanitizer (tilec-tsan, built by make tests): the same
# outputs and errors, and no report
TSAN_TILEC=${TILEC_TSAN:-${TILE_BUILD:-$ROOT/build}/tilec-tsan}
if [ -x "$TSAN_TILEC" ]; then
	export TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$ROOT/tests/tsan.supp"
	TILEC=$TSAN_TILEC run tsan_many -m "$T/many.tile" --keep-ptx "$T/tsan_many/ptx" -j 3
	same_output "ThreadSanitizer: the manifest" many1 tsan_many
	TILEC=$TSAN_TILEC run tsan_mm "${MM[@]}" --keep-ptx "$T/tsan_mm/ptx" -j 4
	same_output "ThreadSanitizer: the matmul" mm1 tsan_mm
	TILEC=$TSAN_TILEC run tsan_ptxfail "${MM[@]}" --ptxas "$T/ptxas_fails" -j 3
	same_error "ThreadSanitizer: ptxas failing" "ptxas failed for sm_87" ptxfail1 tsan_ptxfail
	TILEC=$TSAN_TILEC run tsan_smem "${BIG[@]}" -j 3
	same_error "ThreadSanitizer: shared memory" "more than a block may have on sm_87" smem1 tsan_smem
	unset TSAN_OPTIONS
else
	bad "no $TSAN_TILEC (make tests builds it)"
fi

# 4. -j's argument
for arg in "-j 0" "-j x" "-j2x" "--jobs -1" "-j 1025"; do
	# shellcheck disable=SC2086
	if "$TILEC" compile "${MM[@]}" -o "$T/j" $arg 2>"$T/err" >/dev/null; then
		bad "$arg accepted"
	elif grep -q "wants a number of threads from 1 to 1024" "$T/err"; then
		ok
	else
		bad "$arg: $(head -c 300 "$T/err")"
	fi
done
if "$TILEC" compile "${MM[@]}" -o "$T/j" -j 2>"$T/err" >/dev/null; then bad "-j without a value accepted"; else ok; fi
if "$TILEC" compile --help | grep -q -- "-j N, --jobs N"; then ok; else bad "--help names -j"; fi

# 5. progress: on a terminal only, not with -q
run piped "${MM[@]}" -j 2
if [ -s "$T/piped.err" ]; then bad "progress lines with stderr not a terminal"; else ok; fi
if command -v script >/dev/null && script -qc true /dev/null >/dev/null 2>&1; then
	script -qc "'$TILEC' compile -m '$T/many.tile' -o '$T/tty' -j 2" /dev/null >"$T/tty.log" 2>&1 </dev/null
	tr -d '\r' <"$T/tty.log" >"$T/tty.txt"
	# 2 families, 4 PTX (sm_80's serves compute_80 too), 4 ptxas
	for step in "\[1/10\] tty sm_80 sm_87 sm_90 compute_80: lowering, O3" "\[2/10\] tty sm_90a: lowering, O3" \
		"\[[0-9]+/10\] tty sm_80 compute_80: PTX" "\[[0-9]+/10\] tty sm_90a: ptxas"; do
		if grep -qE "^$step$" "$T/tty.txt"; then ok; else bad "no /$step/ on the terminal:"; head -20 "$T/tty.txt"; fi
	done
	if [ "$(grep -cE '^\[[0-9]+/10\] ' "$T/tty.txt")" = 10 ]; then ok; else bad "10 progress lines"; fi
	script -qc "'$TILEC' compile -m '$T/many.tile' -o '$T/tty' -q" /dev/null >"$T/tty.log" 2>&1 </dev/null
	if [ -s "$T/tty.log" ]; then bad "-q printed:"; head -5 "$T/tty.log"; else ok; fi
else
	echo "test_compile_jobs: no script(1): the terminal's progress lines are not checked"
fi

# the default -j: the CPUs, but one thread as a job of a parallel make
# (its other jobs use the other CPUs); -j given wins
threads() { # MAKEFLAGS [options]: the thread line of -v
	local mf=$1
	shift
	env MAKEFLAGS="$mf" "$TILEC" compile examples/vector_add/kernel.py -n add_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32' \
		-D BLOCK_SIZE=1024 --arch sm_80 --no-ptx -o "$T/thr" -v "$@" 2>&1 | grep '^tilec: [0-9]* thread' || true
}
for mf in "-j8 --jobserver-auth=3,4" " -j" "-j4" "rs -j2 --jobserver-fds=5,6"; do
	if [ "$(threads "$mf")" = "tilec: 1 thread (a parallel make runs this: -j N to set more)" ]; then ok; else bad "MAKEFLAGS='$mf': $(threads "$mf")"; fi
done
for mf in "" "-j1" "w -- X=-j3"; do
	if threads "$mf" | grep -q "(the CPUs tilec may run on)"; then ok; else bad "MAKEFLAGS='$mf': $(threads "$mf")"; fi
done
if [ -z "$(threads "-j8 --jobserver-auth=3,4" -j 3)" ]; then ok; else bad "-j 3 under make: $(threads "-j8 --jobserver-auth=3,4" -j 3)"; fi

echo "test_compile_jobs: $pass passed, $fail failed"
[ "$fail" = 0 ]
