#!/usr/bin/env bash
# test_compile_atomics.sh - atomics and random numbers through `tilec
# compile` (no GPU needed): every kernel of tests/kernels/atomics.py and
# random.py and the GPU suite's atomics/random kernels is compiled for
# sm_80 and sm_90 with ptxas assembling both, over the element types and
# semantics Triton accepts; then the PTX: `red` for an unused result with
# relaxed semantics, `atom` with acq_rel by default, the float max/min
# route through signed max and unsigned min, compare-and-swap (bf16
# addition's loop of them in the op's scope below sm_90, its atom from
# sm_90 on), fp16 and bf16 pairs in one f16x2/bf16x2 exactly where the
# pointers and the mask come in aligned pairs, 16-bit atomics, the scalar
# result through shared memory, randn's sqrt.approx, mul.hi in Philox,
# volatile loads (ld.volatile) read again on every turn of a spin loop, a
# scalar one by one thread and shared.
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
# count NAME ARCH REGEX N: the PTX of NAME for ARCH (compute_80, sm_90)
# has N lines matching
count() {
	local got
	got=$(grep -cE -- "$3" "$T/$1.$2.ptx" 2>/dev/null)
	if [ "$got" = "$4" ]; then ok; else fail "$1: $got lines of '$3' in its $2 PTX, not $4"; fi
}
# stored_olds NAME ARCH TYPE: the old word of each of NAME's 4 TYPE atoms
# (f16x2, bf16x2) is stored as it is, in a 16-byte store
stored_olds() {
	local f="$T/$1.$2.ptx" r n=0
	for r in $(grep -oE "$3 %r[0-9]+" "$f" | awk '{print $2}'); do
		grep -qE "st\.global\.v4\.[bu]32 .*[{ ,]$r[,}]" "$f" || { fail "$1: $3 old value $r not stored as a word"; return; }
		n=$((n + 1))
	done
	if [ "$n" = 4 ]; then ok; else fail "$1: $n $3 atoms with a result"; fi
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
# a scalar volatile load spinning on a flag: thread 0 reads it (ld.volatile
# under its predicate) and shares it through shared memory, so that every
# thread runs the loop's turns alike
compile spin $A spin_flag '*i32:16, *i32:16, i32'
has spin '@%p[0-9]+ ld\.volatile\.global\.b32'
has spin 'st\.shared\.[ub]32'
has spin 'ld\.shared\.[ub]32'
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
# sm_90 adds bf16 in PTX (compile.c lowers it apart from sm_80): the op's
# semantics and scope, no loop
count fetch_add_bf16 sm_90 'atom\.acq_rel\.gpu\.global\.add\.noftz\.bf16 ' 1
count fetch_add_bf16 sm_90 'cas' 0
# pairs of 16-bit floats (1024 elements over 128 threads: 8 a thread, in
# runs of 4 or more): one f16x2 or bf16x2 where the pointers come in 4-byte
# aligned pairs and the mask with them, else one per element; bf16 pairs
# from sm_90 on (its loop below)
for ty in fp16 bf16; do
	for m in none pair elem; do
		for sh in 0 1; do
			compile "pairs_${ty}_${m}_$sh" $A add_pairs "*$ty:16, *$ty:16, i32, \"$m\", $sh, 1024"
		done
	done
done
for m in none pair; do # no mask, or one mask bit per aligned pair (offs // 2 < n)
	count "pairs_fp16_${m}_0" compute_80 'red\.relaxed\.gpu\.global\.add\.noftz\.f16x2 ' 4
	count "pairs_fp16_${m}_0" compute_80 'add\.noftz\.f16 ' 0
	count "pairs_bf16_${m}_0" sm_90 'red\.relaxed\.gpu\.global\.add\.noftz\.bf16x2 ' 4
	count "pairs_bf16_${m}_0" sm_90 'add\.noftz\.bf16 |cas' 0
	count "pairs_bf16_${m}_0" compute_80 'atom\.(relaxed\.gpu\.)?global\.cas\.b32' 8
	count "pairs_bf16_${m}_0" compute_80 'add\.noftz\.bf16' 0
done
# a mask bit per element (n unknown) or pairs across words (SHIFT 1): one
# atom per element, on every arch
for p in none_1 pair_1 elem_0 elem_1; do
	count "pairs_fp16_$p" compute_80 'red\.relaxed\.gpu\.global\.add\.noftz\.f16 ' 8
	count "pairs_fp16_$p" compute_80 'f16x2' 0
	count "pairs_bf16_$p" sm_90 'red\.relaxed\.gpu\.global\.add\.noftz\.bf16 ' 8
	count "pairs_bf16_$p" sm_90 'bf16x2|cas' 0
done
# old values read: each pair's old word holds the two old elements, in
# order, so the store of the old values takes the atoms' words as they are
compile fetch_add_bf16x2 $A fetch_ops '*bf16:16, *bf16:16, *bf16:16, i32:16, "add", 1024'
count fetch_add_bf16x2 sm_90 'atom\.acq_rel\.gpu\.global\.add\.noftz\.bf16x2 ' 4
count fetch_add_bf16x2 compute_80 'atom\.(acq_rel\.gpu\.)?global\.cas\.b32' 8
stored_olds fetch_add_bf16x2 sm_90 bf16x2
stored_olds fetch_add_fp16x2 compute_80 f16x2
# sm_90 first in --arch: the sm_80 code still loops; sm_90a (alone, so
# that its image is kept) packs as sm_90 does
if "$TILEC" compile $A -n add_pairs -s '*bf16:16, *bf16:16, i32, "pair", 0, 1024' --arch sm_90,sm_80 \
	-o "$T/order" --keep-ptx "$T" -on order >"$T/order.log" 2>&1 &&
	"$TILEC" compile $A -n add_pairs -s '*bf16:16, *bf16:16, i32, "pair", 0, 1024' --arch sm_90a \
		-o "$T/wg" --keep-ptx "$T" -on wg >"$T/wg.log" 2>&1; then
	ok
else
	fail "add_pairs bf16 for sm_90,sm_80 and sm_90a"
	head -c 2000 "$T/order.log" "$T/wg.log"
fi
count order sm_80 'atom\.(relaxed\.gpu\.)?global\.cas\.b32' 8
count order sm_80 'bf16x2' 0
count order sm_90 'bf16x2' 4
count wg sm_90a 'red\.relaxed\.gpu\.global\.add\.noftz\.bf16x2 ' 4
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
for sc in gpu cta sys; do # sm_90: one atom in the scope asked for
	count "bf16_acq_rel_$sc" sm_90 "^\s*(@%p[0-9]+ )?atom\.acq_rel\.$sc\.global\.add\.noftz\.bf16 " 1
	count "bf16_relaxed_$sc" sm_90 "^\s*(@%p[0-9]+ )?atom\.relaxed\.$sc\.global\.add\.noftz\.bf16 " 1
done
for ty in i16 fp16 i32 fp32 i64 fp64; do
	compile "cas_$ty" $A cas_block "*$ty, *$ty, *$ty, *$ty, 64"
done
has cas_i16 'atom\.relaxed\.cta\.global\.cas\.b16'
has cas_fp64 'atom\.relaxed\.cta\.global\.cas\.b64'

compile philox $R philox_block '*u32, *u32, *u32, 32, 10'
has philox 'mul\.hi\.u32'
compile rand $R rand_kernel '*fp32:16, i32, i32:16, 1024'
compile randn $R randn_kernel '*fp32:16, i32, i32:16, 1024'
# the square root as Triton's tl.sqrt: sqrt.approx.ftz.f32 (docs/LANGUAGE.md:
# the interpreter's randn differs from it by a few ulp), one per element (8
# a thread), never the IEEE root; sine and cosine libdevice's, not the
# special-function unit's
count randn compute_80 '^\s*sqrt\.approx\.ftz\.f32 ' 8
count randn compute_80 'sqrt\.rn|(sin|cos|lg2)\.approx' 0
compile randn4x $R randn4x_kernel '*fp32:16, i32, i32:16, 1024'
count randn4x compute_80 '^\s*sqrt\.approx\.ftz\.f32 ' 16
count randn4x compute_80 'sqrt\.rn|(sin|cos|lg2)\.approx' 0
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
	# tl.load(..., volatile=True) spinning on a turn: ld.volatile inside the
	# loop (its block the target of a conditional branch), for the scalar
	# load and the masked one
	for m in False True; do
		compile "g_chain_$m" $G/atomics.py ticket_chain_kernel "*i32:16, *i32:16, *i32:16, *i32:16, $m"
		for a in compute_80 sm_90; do
			f=$T/g_chain_$m.$a.ptx
			spin=$(awk '/^\$L__BB[0-9_]+:/ { sub(":", "", $1); label = $1 } /ld\.volatile\.global/ { print label; exit }' "$f")
			if [ -n "$spin" ] && grep -qE "@%p[0-9]+ bra(\.uni)?[[:space:]]+\\$spin;" "$f"; then
				ok
			else
				fail "g_chain_$m: no ld.volatile.global inside a loop in its $a PTX"
			fi
		done
	done
fi
if [ -f $G/random.py ]; then
	compile g_randn $G/random.py randn_kernel '*fp32:16, i32, i32, 1024'
	compile g_dropout $G/random.py dropout_kernel '*fp32:16, *fp32:16, i32, fp32, i32, 1024'
fi

echo "test_compile_atomics: $passed passed, $failed failed"
[ "$failed" = 0 ]
