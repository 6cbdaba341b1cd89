#!/usr/bin/env bash
# test_run.sh - `tilec run`: buffers (zeros, arange, random, files), scalars,
# --print and --out, the seed kernels, and the error paths (exit status 1
# for a failing kernel, 2 for a bad command line); fp8 buffers.
set -u
TILEC=${TILEC:-build/tilec}
K=tests/kernels
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# expect NAME STATUS NEEDLE -- COMMAND...: exit status and a substring of stdout+stderr
expect() {
	local name=$1 want=$2 needle=$3
	shift 4
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" != "$want" ]; then
		bad "$name: exit $rc, want $want"
		echo "$out" | head -n 20
	elif [ -n "$needle" ] && ! grep -qF -- "$needle" <<<"$out"; then
		bad "$name: output lacks '$needle'"
		echo "$out" | head -n 20
	else
		ok
	fi
}

ADD=(run "$K/vector_add.py" -n add_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32, 1024')

expect help 0 "usage: tilec run FILE" -- "$TILEC" run --help
expect add-arange 0 "output_ptr[0:5] (fp32, 3000 elements): 0 2 4 6 8" -- \
	"$TILEC" "${ADD[@]}" -g 3 --arg buf:3000:arange --arg buf:3000:arange --arg buf:3000 --arg 3000 --print output_ptr:5
# --out, then the file as an input: (2i) + 0, printed by index
expect add-out 0 "" -- \
	"$TILEC" "${ADD[@]}" -g 3 --arg buf:3000:arange --arg buf:3000:arange --arg buf:3000 --arg 3000 --out 2="$TMP/o.bin"
if [ "$(stat -c %s "$TMP/o.bin" 2>/dev/null)" = 12000 ]; then ok; else bad "add-out: o.bin is not 12000 bytes"; fi
expect add-file 0 "output_ptr[0:4] (fp32, 3000 elements): 0 2 4 6" -- \
	"$TILEC" "${ADD[@]}" -g 3 --arg "buf:file=$TMP/o.bin" --arg buf:3000 --arg buf:3000 --arg 3000 --print 2:4
expect add-file-size 1 "holds 12000 bytes" -- \
	"$TILEC" "${ADD[@]}" -g 3 --arg "buf:10:file=$TMP/o.bin" --arg buf:3000 --arg buf:3000 --arg 3000
# seeded random: the same seed gives the same data, another seed other data
a=$("$TILEC" "${ADD[@]}" -g 1 --arg buf:1024:random --arg buf:1024 --arg buf:1024 --arg 1024 --print 2:6 --seed 5 2>&1)
b=$("$TILEC" "${ADD[@]}" -g 1 --arg buf:1024:random --arg buf:1024 --arg buf:1024 --arg 1024 --print 2:6 --seed 5 2>&1)
c=$("$TILEC" "${ADD[@]}" -g 1 --arg buf:1024:random --arg buf:1024 --arg buf:1024 --arg 1024 --print 2:6 --seed 6 2>&1)
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "$c" ]; then ok; else bad "random: '$a' / '$b' / '$c'"; fi

# scalar and integer kernels, constexprs with -D
expect index-math 0 "out_ptr[0:9] (i32, 16 elements): -4 -3 -2 -1 0 1 2 996 997" -- \
	"$TILEC" run "$K/int_ops.py" -n index_math_kernel -s '*i32, i32' -D COLS=7 -D BLOCK=8 -g 2 \
	--arg buf:16 --arg 16 --print out_ptr:9
expect divzero 1 "int_ops.py:12:" -- \
	"$TILEC" run "$K/int_ops.py" -n divmod_kernel -s '*i32, *i32, *i32, *i32, i32, 4' -g 1 \
	--arg buf:4:arange --arg buf:4:zeros --arg buf:4 --arg buf:4 --arg 4
expect scalar-float 0 "dst_ptr[0:4] (fp32, 64 elements): 0 1 -2.5 -2.5" -- \
	"$TILEC" run "$K/masked_copy.py" -n padded_copy_kernel -s '*fp32, *fp32, i32, fp32, 32' -g 2 \
	--arg buf:2:arange --arg buf:64 --arg 2 --arg -2.5 --print dst_ptr:4

# the seed kernels
SEEDS=$K/seeds/add_sin_cos.py
expect seed-add 0 "out_ptr[0:3] (fp32, 10 elements): 0 2 4" -- \
	"$TILEC" run "$SEEDS" -n add_kernel -s '*fp32, *fp32, *fp32, i32, 4' -g 3 \
	--arg buf:10:arange --arg buf:10:arange --arg buf:10 --arg 10 --print out_ptr:3
expect seed-sin 0 "out_ptr[0:3] (fp32, 3 elements): 0 0.841470957 0.909297407" -- \
	"$TILEC" run "$SEEDS" -n sin_kernel -s '*fp32, *fp32, i32, 4' -g 1 --arg buf:3:arange --arg buf:3 --arg 3 --print out_ptr
expect seed-cos 0 "out_ptr[0:2] (fp32, 3 elements): 1 0.540302277" -- \
	"$TILEC" run "$SEEDS" -n cos_kernel -s '*fp32, *fp32, i32, 4' -g 1 --arg buf:3:arange --arg buf:3 --arg 3 --print out_ptr:2
expect seed-silu 0 "out_ptr[0:3] (bf16, 8 elements): 0 0.73046875 1.7578125" -- \
	"$TILEC" run "$K/seeds/silu.py" -n triton_silu_kernel -s '*bf16, *bf16, i32, 8' -g 1 \
	--arg buf:8:arange --arg buf:8 --arg 8 --print out_ptr:3

# libdevice functions the interpreter computes, and a precise error for the others
LD=(run "$K/libdevice_ops.py" -n libdevice_kernel -s '*fp32, *fp32, i32' -D BLOCK=8 -g 1 --arg buf:4:arange --arg buf:4 --arg 4 --print out_ptr)
expect ld-powi 0 "(fp32, 4 elements): 0 1 8 27" -- "$TILEC" "${LD[@]}" -D FN='"powi"'
expect ld-ldexp 0 "(fp32, 4 elements): 0 4 8 12" -- "$TILEC" "${LD[@]}" -D FN='"ldexp"'
expect ld-ilogb 0 "(fp32, 4 elements): 0 1 1 2" -- "$TILEC" "${LD[@]}" -D FN='"ilogb"'
expect ld-fma 0 "(fp32, 4 elements): 0.5 1.5 4.5 9.5" -- "$TILEC" "${LD[@]}" -D FN='"fma"'
expect ld-normcdf 0 "(fp32, 4 elements): 0.5 0.841344774 0.977249861 0.998650074" -- "$TILEC" "${LD[@]}" -D FN='"normcdf"'
expect ld-div-rn 0 "(fp32, 4 elements): 0 0.25 0.5 0.75" -- "$TILEC" "${LD[@]}" -D FN='"div_rn"'
expect ld-fast-exp 0 "(fp32, 4 elements): 1 2.71828175 7.38905621 20.085537" -- "$TILEC" "${LD[@]}" -D FN='"fast_expf"'
expect ld-isnan-fp64 0 "(fp32, 4 elements): 0 0 0 0" -- "$TILEC" "${LD[@]}" -D FN='"isnan"'
expect ld-erfinv 1 "libdevice_ops.py:28:13: error: program (0, 0, 0): the interpreter does not implement '__nv_erfinvf' on (fp32)" -- \
	"$TILEC" "${LD[@]}" -D FN='"erfinv"'
expect ld-div-rz 1 "does not implement '__nv_fdiv_rz' on (fp32, fp32)" -- "$TILEC" "${LD[@]}" -D FN='"div_rz"'

# autotune configs: -c/--config takes a config's constexprs, -D overrides them
AT=(run tests/golden/errors.py -n heuristic_autotuned -s '*fp32, i32' -g 1 --arg buf:128:arange --arg 128 --print x_ptr:3)
expect config 0 "x_ptr[0:3] (fp32, 128 elements): 1 1 1" -- "$TILEC" "${AT[@]}" -c 1
expect config-long 0 "x_ptr[0:3] (fp32, 128 elements): 0 0 0" -- "$TILEC" "${AT[@]}" --config 0
expect config-define 0 "x_ptr[0:3] (fp32, 128 elements): 1 1 1" -- "$TILEC" "${AT[@]}" -c 0 -D BLOCK=128
expect config-missing 1 "reads constexpr \`BLOCK\`, which has no value" -- "$TILEC" "${AT[@]}"
expect config-range 1 "has no autotune config 2" -- "$TILEC" "${AT[@]}" -c 2
expect config-bad 2 "bad autotune config 'x'" -- "$TILEC" "${AT[@]}" -c x

# failures of the kernel: exit 1 with the source location
expect oob 1 "vector_add.py:12:9: error: program (2, 0, 0): load of 4 byte(s) at element 952: byte offset 12000 is out of bounds of buffer 0 (12000 bytes)" -- \
	"$TILEC" "${ADD[@]}" -g 4 --arg buf:3000 --arg buf:3000 --arg buf:3000 --arg 4096
expect bad-kernel 1 "error" -- "$TILEC" run "$K/vector_add.py" -n no_such_kernel -s '*fp32' -g 1 --arg buf:1
expect missing-file 1 "cannot open" -- "$TILEC" run "$TMP/none.py" -n k -g 1

# bad command lines: exit 2
expect no-grid 2 "no grid given" -- "$TILEC" "${ADD[@]}" --arg buf:1
expect bad-grid 2 "bad grid '4,x'" -- "$TILEC" "${ADD[@]}" -g 4,x
expect arg-count 2 "has 4 runtime parameter(s), 1 --arg given" -- "$TILEC" "${ADD[@]}" -g 1 --arg buf:4
expect scalar-for-ptr 2 "pointer parameter 'x_ptr' needs --arg buf:COUNT" -- \
	"$TILEC" "${ADD[@]}" -g 1 --arg 3 --arg buf:4 --arg buf:4 --arg 4
expect bad-scalar 2 "bad value 'ten' for i32 parameter 'n_elements'" -- \
	"$TILEC" "${ADD[@]}" -g 1 --arg buf:4 --arg buf:4 --arg buf:4 --arg ten
expect bad-init 2 "unknown buffer contents 'ones'" -- \
	"$TILEC" "${ADD[@]}" -g 1 --arg buf:4:ones --arg buf:4 --arg buf:4 --arg 4
expect bad-print 2 "'nope' names no pointer parameter" -- \
	"$TILEC" "${ADD[@]}" -g 1 --arg buf:4 --arg buf:4 --arg buf:4 --arg 4 --print nope
# fp8 buffers: arange and random values rounded to fp8 (sm_90's rule), printed as values
expect fp8-arange 0 "y_ptr[0:16] (fp32, 16 elements): 0 1 2 3 4 5 6 7 8 8 10 12 12 12 14 16" -- \
	"$TILEC" run "$K/fp8.py" -n from_fp8_kernel -s '*fp8e5, *fp32, i32, 16' -g 1 --arg buf:16:arange --arg buf:16 \
	--arg 16 --print y_ptr
expect fp8-print 0 "y_ptr[0:4] (fp8e4nv, 16 elements): 0 1 2 3" -- \
	"$TILEC" run "$K/fp8.py" -n to_fp8_kernel -s '*fp32, *fp8e4nv, i32, 16' -g 1 --arg buf:16:arange --arg buf:16 \
	--arg 16 --print y_ptr:4
expect unknown-option 2 "unknown option '--frobnicate'" -- "$TILEC" "${ADD[@]}" -g 1 --frobnicate

# -nc: each program split over a cluster, its CTAs run one after another
MM=(run "$K/matmul.py" -n matmul_kernel -s '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1'
	-D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=4 -g 4 --arg buf:9000:random
	--arg buf:9000:random --arg buf:9000 --arg 100 --arg 90 --arg 70 --arg 70 --arg 1 --arg 90 --arg 1 --arg 90 --arg 1)
expect nc1 0 "" -- "$TILEC" "${MM[@]}" --out "c_ptr=$TMP/c1"
expect nc2 0 "" -- "$TILEC" "${MM[@]}" -nc 2 --out "c_ptr=$TMP/c2"
expect nc4 0 "" -- "$TILEC" "${MM[@]}" -nc 4 --out "c_ptr=$TMP/c4"
if [ -s "$TMP/c1" ] && cmp -s "$TMP/c1" "$TMP/c2" && cmp -s "$TMP/c1" "$TMP/c4"; then ok; else bad "-nc 2 and 4 change the matmul's result"; fi
expect nc-refused 0 "warning: num_ctas=2 is run as one CTA per program: a reduction's axis" -- \
	"$TILEC" run "$K/softmax.py" -n softmax_kernel -s '*fp32:16, *fp32:16, i32, i32, i32, i32, 128' -nc 2 -g 2 \
	--arg buf:200 --arg buf:200:random --arg 100 --arg 100 --arg 2 --arg 100
expect nc-bad 2 "bad num_ctas '3' (1, 2, 4 or 8)" -- "$TILEC" "${ADD[@]}" -g 1 -nc 3

# --pipelined: the program the passes make runs as the plain one does; with
# =wgmma a warp_specialize loop runs split (passes/partition.c): the
# producer's copies and scalars apart from the consumers, the rings shared,
# at every lag the copies issued before the loop allow, bit for bit the
# plain program's result; a lag outside that range breaks the rings' order,
# and the run names the slot
expect mm-pipelined 0 "" -- "$TILEC" "${MM[@]}" --pipelined --out "c_ptr=$TMP/c1p"
expect mm-pipelined-registers 0 "" -- "$TILEC" "${MM[@]}" --pipelined=registers -ns 4 --out "c_ptr=$TMP/c1r"
if cmp -s "$TMP/c1" "$TMP/c1p" && cmp -s "$TMP/c1" "$TMP/c1r"; then ok; else bad "--pipelined changes the matmul's result"; fi
# K offsets carried through the loop and masked along both operands' K,
# from 3 by 2 (passes/carried.c recomputes them from the induction
# variable), and 4-bit weights packed eight a word, unpacked by interleaves
CK=(run tests/gpu/kernels/dots.py -n matmul_carried_k_kernel -s '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32'
	-D BLOCK_M=64 -D BLOCK_N=64 -D BLOCK_K=32 -D STEP_FROM=3 -g 2,2 --arg buf:7000:random --arg buf:6300:random
	--arg buf:9000 --arg 100 --arg 90 --arg 70)
expect carried-plain 0 "" -- "$TILEC" "${CK[@]}" --out "c_ptr=$TMP/k1"
expect carried-pipelined 0 "" -- "$TILEC" "${CK[@]}" --pipelined --out "c_ptr=$TMP/k1p"
head -c 18000 /dev/zero >"$TMP/kzero"
if [ -s "$TMP/k1" ] && ! cmp -s "$TMP/k1" "$TMP/kzero" && cmp -s "$TMP/k1" "$TMP/k1p"; then ok; else
	bad "--pipelined changes the carried-K matmul's result"; fi
PW=(run tests/gpu/kernels/dots.py -n matmul_packed_w4_kernel
	-s '*fp16:16, *i32:16, *i32:16, *fp16:16, *fp16:16, i32:16, i32:16, i32' -D GROUP=128 -D BLOCK_M=32 -D BLOCK_N=64
	-D BLOCK_K=32 -g 1,2 --arg buf:4800:random --arg buf:4800:random --arg buf:48:random --arg buf:384:random
	--arg buf:2048 --arg 16 --arg 128 --arg 300)
expect packed-plain 0 "" -- "$TILEC" "${PW[@]}" --out "c_ptr=$TMP/q1"
expect packed-pipelined 0 "" -- "$TILEC" "${PW[@]}" --pipelined --out "c_ptr=$TMP/q1p"
if [ -s "$TMP/q1" ] && cmp -s "$TMP/q1" "$TMP/q1p"; then ok; else bad "--pipelined changes the packed int4 matmul's result"; fi
ws() { # ws OUT [options]: tutorial 09's matmul through host descriptors, warp_specialize=True, 5 K tiles
	local out=$1 tm=()
	shift
	case " $* " in *" --pipelined=wgmma "*) tm=(--arg buf:128) ;; esac # the tensor maps the loader encodes
	"$TILEC" run tests/gpu/kernels/descriptors.py -n matmul_kernel_tma \
		-s 'tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 128]>, i32, i32, i32' \
		-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -D WARP_SPECIALIZE=True -w 8 -g 4 \
		--arg buf:60000:random --arg 200 --arg 300 --arg 300 --arg 1 "${tm[@]}" \
		--arg buf:76800:random --arg 256 --arg 300 --arg 300 --arg 1 "${tm[@]}" \
		--arg buf:51200 --arg 200 --arg 256 --arg 256 --arg 1 "${tm[@]}" --arg 200 --arg 256 --arg 300 \
		--out "c_desc_base=$out" "$@"
}
expect ws-plain 0 "" -- ws "$TMP/w"
head -c 102400 /dev/zero >"$TMP/zero"
if [ -s "$TMP/w" ] && ! cmp -s "$TMP/w" "$TMP/zero"; then ok; else bad "the warp-specialized matmul wrote nothing"; fi
for lag in 0 1 2; do
	expect "ws-split-lag$lag" 0 "" -- ws "$TMP/w$lag" --pipelined=wgmma --producer-lag $lag
	if cmp -s "$TMP/w" "$TMP/w$lag"; then ok; else bad "the split run at lag $lag differs from the plain one"; fi
done
for lag in 0 3; do # 4 stages: three copies ahead
	expect "ws-split-ns4-lag$lag" 0 "" -- ws "$TMP/v$lag" --pipelined=wgmma -ns 4 --producer-lag $lag
	if cmp -s "$TMP/w" "$TMP/v$lag"; then ok; else bad "the split run of 4 stages at lag $lag differs from the plain one"; fi
done
# tutorial 06's attention through device-side descriptors, d128 over 8
# warps, its loops not marked: tilec specializes the first itself (two
# dots, rings that fill the SM; the causal kernel's diagonal loop after it
# runs on the consumers' side with rings of its own); the producer
# computes the maps' shapes itself
attn() { # attn OUT STAGE [options]
	local out=$1 stage=$2
	shift 2
	"$TILEC" run tests/gpu/kernels/attention.py -n attn_fwd_desc \
		-s '*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32, i32, i32:16' -D HEAD_DIM=128 -D BLOCK_M=128 \
		-D BLOCK_N=64 -D STAGE=$stage -w 8 -ns 3 -g 4,1 --arg buf:65536:random --arg buf:65536:random \
		--arg buf:65536:random --arg buf:65536 --arg 0.5 --arg 1 --arg 1 --arg 512 --out "Out=$out" "$@"
}
head -c 131072 /dev/zero >"$TMP/zero128k"
for stage in 1 3; do
	expect "attn$stage-plain" 0 "" -- attn "$TMP/a$stage" $stage
	if [ -s "$TMP/a$stage" ] && ! cmp -s "$TMP/a$stage" "$TMP/zero128k"; then ok; else bad "the attention wrote nothing"; fi
	for lag in 0 2; do
		expect "attn$stage-split-lag$lag" 0 "" -- attn "$TMP/a$stage-$lag" $stage --arg buf:128 --arg buf:128 \
			--arg buf:128 --arg buf:128 --pipelined=wgmma --producer-lag $lag
		if cmp -s "$TMP/a$stage" "$TMP/a$stage-$lag"; then ok; else bad "the split attention (STAGE $stage) at lag $lag differs"; fi
	done
done
expect ws-split-ahead 1 "the producer copies into slot 0 of ring" -- ws "$TMP/x" --pipelined=wgmma --producer-lag -1
expect ws-split-behind 1 "the consumers wait for slot 2 of ring" -- ws "$TMP/x" --pipelined=wgmma --producer-lag 3
expect ws-lag-bad 2 "bad --producer-lag 'x'" -- "$TILEC" "${ADD[@]}" -g 1 --producer-lag x
expect ns-bad 2 "bad num_stages '0'" -- "$TILEC" "${ADD[@]}" -g 1 -ns 0

echo "test_run: $passed passed, $failed failed"
[ "$failed" = 0 ]
