#!/usr/bin/env bash
# test_compile_atomics.sh - atomics and random numbers through `tilec
# compile` (no GPU needed): every kernel of tests/kernels/atomics.py and
# random.py and the GPU suite's atomics/random kernels is compiled for
# sm_80 and sm_90 with ptxas assembling both, over the element types and
# semantics Triton accepts; then the PTX: `red` for an unused result with
# relaxed semantics, `atom` with acq_rel by default, the float max/min
# route through signed max and unsigned min, compare-and-swap (bf16
# addition's loop of them in the op's scope), 16-bit
# atomics, the scalar result through shared memory, mul.hi in Philox.
# Uses $TILEC (the sanitized tilec under build.sh) or build/tilec.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TILEC=${TILEC:-$ROOT/build/tilec}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
# compile NAME FILE KERNEL SIG [options]: PTX in $T/NAME.compute_80.ptx
compile() {
	local name=$1 file=$2 kernel=$3 sig=$4
	shift 4
	if "$TILEC" compile "$file" -n "$kernel" -s "$sig" "$@" --arch sm_80,sm_90 -o "$T/$name" --keep-ptx "$T" \
		-on "$name" >"$T/$name.log" 2>&1; then
		ok
	else
		fail "$name: $file $kernel '$sig'"
		head -c 2000 "$T/$name.log"
		echo
	fi
}
has() { # has NAME REGEX: the PTX of NAME matches
	if grep -qE -- "$2" "$T/$1.compute_80.ptx" 2>/dev/null; then ok; else fail "$1: no '$2' in its PTX"; fi
}
hasnt() {
	if grep -qE -- "$2" "$T/$1.compute_80.ptx" 2>/dev/null; then fail "$1: '$2' in its PTX"; else ok; fi
}

A=tests/kernels/atomics.py
R=tests/kernels/random.py
G=tests/gpu/kernels
compile hist $A histogram '*i32:16, *i32:16, i32:16, 256, 1024'
has hist 'atom\.acq_rel\.gpu\.global\.add\.u32'
hasnt hist 'red\.'
compile hist_relaxed $A histogram_relaxed '*i32:16, *i32:16, i32:16, 256, 1024'
has hist_relaxed '@%p[0-9]+ red\.relaxed\.gpu\.global\.add\.u32'
hasnt hist_relaxed 'atom\.'
compile colsum $A col_sum '*fp32:16, *fp32:16, i32, i32, 16, 64'
has colsum 'red\.relaxed\.gpu\.global\.add\.f32'
compile counter $A scalar_counter '*i32, *i32'
has counter 'atom\.acq_rel\.gpu\.global\.add\.u32'
has counter 'st\.shared\.[ub]32'
has counter 'bar\.sync'
compile lock $A cas_ticket '*i32, *i32'
has lock 'atom\.acq_rel\.gpu\.global\.cas\.b32'
has lock 'atom\.acq_rel\.gpu\.global\.exch\.b32'
compile ln_dwdb $A layer_norm_bwd_dwdb '*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, 32, 128'
for op in add max min and or xor xchg; do
	for ty in i32 u32 i64 u64; do
		compile "fetch_${op}_$ty" $A fetch_ops "*$ty, *$ty, *$ty, i32, \"$op\", 128"
	done
done
has fetch_max_i32 'atom\.acq_rel\.gpu\.global\.max\.s32'
has fetch_max_u32 'atom\.acq_rel\.gpu\.global\.max\.u32'
has fetch_min_i64 'atom\.acq_rel\.gpu\.global\.min\.s64'
has fetch_and_i32 'atom\.acquire\.cta\.global\.and\.b32'
has fetch_or_u64 'atom\.release\.sys\.global\.or\.b64'
has fetch_xchg_i32 'atom\.acq_rel\.gpu\.global\.exch\.b32'
for op in add max min xchg; do
	for ty in fp32 fp64; do
		compile "fetch_${op}_$ty" $A fetch_ops "*$ty, *$ty, *$ty, i32, \"$op\", 128"
	done
done
has fetch_add_fp32 'atom\.acq_rel\.gpu\.global\.add\.f32'
has fetch_add_fp64 'atom\.acq_rel\.gpu\.global\.add\.f64'
has fetch_max_fp32 'atom\.acq_rel\.gpu\.global\.max\.s32'
has fetch_max_fp32 'atom\.acq_rel\.gpu\.global\.min\.u32'
has fetch_min_fp64 'atom\.acq_rel\.gpu\.global\.min\.s64'
has fetch_min_fp64 'atom\.acq_rel\.gpu\.global\.max\.u64'
compile fetch_add_fp16 $A fetch_ops '*fp16, *fp16, *fp16, i32, "add", 128'
has fetch_add_fp16 'atom\.acq_rel\.gpu\.global\.add\.noftz\.f16'
hasnt fetch_add_fp16 'f16x2' # n unknown: the mask may split any pair
# pointers and mask in aligned pairs: two fp16 additions per atom, as Triton
compile fetch_add_fp16x2 $A fetch_ops '*fp16:16, *fp16:16, *fp16:16, i32:16, "add", 1024'
has fetch_add_fp16x2 'atom\.acq_rel\.gpu\.global\.add\.noftz\.f16x2'
hasnt fetch_add_fp16x2 'add\.noftz\.f16 '
compile fetch_add_bf16 $A fetch_ops '*bf16, *bf16, *bf16, i32, "add", 128'
has fetch_add_bf16 'atom\.(acq_rel\.gpu\.)?global\.cas\.b32'
# the loop's compare-and-swap in the scope the op asked for, and no other:
# LLVM 20 and newer write the op's semantics and scope (the C API names the
# scope from 20 on; LLVM 22 wrote .sys for every scope without it), LLVM 19
# neither (PTX's defaults, relaxed and GPU, whatever the op asked)
for sc in gpu cta sys; do
	for sem in acq_rel relaxed; do
		compile "bf16_${sem}_$sc" $A bf16_add_scoped "*bf16, *bf16, *bf16, \"$sem\", \"$sc\", 64"
	done
done
has bf16_acq_rel_gpu 'atom\.(acq_rel\.gpu\.)?global\.cas\.b32'
hasnt bf16_acq_rel_gpu 'atom\.[a-z_.]*(sys|cta)\.'
has bf16_relaxed_gpu 'atom\.(relaxed\.gpu\.)?global\.cas\.b32'
hasnt bf16_relaxed_gpu 'atom\.[a-z_.]*(sys|cta)\.'
has bf16_acq_rel_cta 'atom\.(acq_rel\.cta\.)?global\.cas\.b32'
hasnt bf16_acq_rel_cta 'atom\.[a-z_.]*(sys|gpu)\.'
has bf16_relaxed_cta 'atom\.(relaxed\.cta\.)?global\.cas\.b32'
hasnt bf16_relaxed_cta 'atom\.[a-z_.]*(sys|gpu)\.'
has bf16_acq_rel_sys 'atom\.(acq_rel\.sys\.)?global\.cas\.b32'
has bf16_relaxed_sys 'atom\.(relaxed\.sys\.)?global\.cas\.b32'
for ty in i16 fp16 i32 fp32 i64 fp64; do
	compile "cas_$ty" $A cas_block "*$ty, *$ty, *$ty, *$ty, 64"
done
has cas_i16 'atom\.relaxed\.cta\.global\.cas\.b16'
has cas_fp64 'atom\.relaxed\.cta\.global\.cas\.b64'

compile philox $R philox_block '*u32, *u32, *u32, 32, 10'
has philox 'mul\.hi\.u32'
compile rand $R rand_kernel '*fp32:16, i32, i32:16, 1024'
compile randn $R randn_kernel '*fp32:16, i32, i32:16, 1024'
has randn 'sqrt\.approx'
compile randint4x $R randint4x_kernel '*i32, i32, i32, 256'
compile randint_scalar $R randint_scalar '*i32, i64'
compile rand_wide $R rand_wide '*fp32, i64, i32, 256'
has rand_wide 'mul\.hi\.u32'
compile philox_wide $R philox_wide '*fp32, i64, i32, 256'
has philox_wide 'mul\.hi\.u64'
compile dropout $R seeded_dropout '*fp32:16, *fp32:16, i32:16, fp32, i32, 1024'

# the GPU suite's kernels, as tests/gpu/cases.py compiles them
if [ -f $G/atomics.py ]; then
	compile g_hist $G/atomics.py histogram_kernel '*i32:16, *i32:16, i32, 256, 1024'
	compile g_colsum $G/atomics.py col_sum_kernel '*fp32:16, *fp32:16, i32, i32, 32, 128'
	compile g_fmax $G/atomics.py float_max_kernel '*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, 64, 1024'
	compile g_ticket $G/atomics.py ticket_kernel '*i32:16, *i32:16, *i32:16, *i32:16, 32'
	has g_ticket 'ld\.shared'
	compile g_lnbwd $G/atomics.py layer_norm_bwd_dx_fused '*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *i32:16, i32, i32, 32, 256'
	has g_lnbwd 'atom\.acq_rel\.gpu\.global\.cas\.b32'
	has g_lnbwd 'bar\.sync'
fi
if [ -f $G/random.py ]; then
	compile g_randn $G/random.py randn_kernel '*fp32:16, i32, i32, 1024'
	compile g_dropout $G/random.py dropout_kernel '*fp32:16, *fp32:16, i32, fp32, i32, 1024'
fi

echo "test_compile_atomics: $passed passed, $failed failed"
[ "$failed" = 0 ]
