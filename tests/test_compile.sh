#!/usr/bin/env bash
# test_compile.sh - `tilec compile` end to end on the CPU (no GPU needed).
#
# Every kernel of the front-end suite (tests/kernels, its seeds, the
# examples, tests/gpu/kernels) is compiled for sm_80 and sm_90 with ptxas
# assembling both, and its generated .c must compile as C99 with -Wall
# -Wextra -Werror -pedantic. The kernel lists below are manifest lines
# (tilec compile --help); tier 1, tier 2 and the 3-D tiles (which must not
# spill either) are strict, kernels of later tiers are tried and reported
# without counting. Then: variants and
# `tilec inspect`, 16-byte accesses in vector add's PTX and none without
# the pointer hints, manifests, autotune configs, Triton's full signature
# form, and the diagnostics of each failing stage.
# Uses $TILEC (the sanitized tilec under build.sh) or build/tilec.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TILEC=${TILEC:-$ROOT/build/tilec}
CC=${CC:-cc}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
check() { # check DESCRIPTION COMMAND...: the command must succeed
	local what=$1
	shift
	if "$@" >"$T/out" 2>&1; then ok; else fail "$what"; head -c 2000 "$T/out"; echo; fi
}
expect_error() { # expect_error DESCRIPTION PATTERN COMMAND...: must fail, output matching PATTERN
	local what=$1 pat=$2
	shift 2
	if "$@" >"$T/out" 2>&1; then
		fail "$what: succeeded"
	elif grep -qE -- "$pat" "$T/out"; then
		ok
	else
		fail "$what: no '$pat' in:"
		head -c 2000 "$T/out"
		echo
	fi
}
CFLAGS_GEN="-std=c99 -Wall -Wextra -Werror -pedantic -I$ROOT"
# the ptxas tilec finds (for the checks that assemble PTX themselves)
PTXAS=""
for p in "${TILE_PTXAS:-}" "${CUDA_HOME:+$CUDA_HOME/bin/ptxas}" /usr/local/cuda/bin/ptxas "$(command -v ptxas 2>/dev/null || true)"; do
	if [ -n "$p" ] && [ -x "$p" ]; then PTXAS=$p; break; fi
done

K=tests/kernels
G1="cdiv(n, BLOCK)"
TIER1=(
	"$K/vector_add.py add_kernel '*fp32:16, *fp32:16, *fp32:16, i32:16' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'"
	"$K/casts.py cast_chain_kernel '*fp32:16, *fp16:16, *bf16:16, *i32:16, *fp32:16, i32' -D BLOCK=1024 -g '$G1'"
	"$K/casts.py axpy_fp16_kernel '*fp16:16, *fp16:16, fp32, i32' -D BLOCK=1024 -g '$G1'"
	"$K/constexpr_branch.py activation_kernel '*fp32:16, *fp32:16, i32, fp32' -D ACTIVATION=1 -D SCALE=True -D BLOCK=1024 -g '$G1'"
	"$K/constexpr_branch.py activation_kernel '*fp32:16, *fp32:16, i32, fp32' -D ACTIVATION=2 -D SCALE=False -D BLOCK=512 -g '$G1'"
	"$K/elementwise.py clamp_kernel '*fp32:16, *fp32:16, fp32, fp32, i32' -D BLOCK=1024 -g '$G1'"
	"$K/elementwise.py math_kernel '*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32' -D BLOCK=1024 -g '$G1'"
	"$K/elementwise.py swish_int_mix_kernel '*fp32:16, *i32:16, *fp32:16, i32' -D BLOCK=1024 -g '$G1'"
	"$K/helpers.py bias_gelu_kernel '*fp32:16, *fp32:16, *fp32:16, i32, i32' -D BLOCK=1024"
	"$K/helpers.py hypot_kernel '*fp32:16, *fp32:16, *fp32:16, i32' -D BLOCK=1024 -g '$G1'"
	"$K/int_ops.py divmod_kernel '*i32:16, *i32:16, *i32:16, *i32:16, i32' -D BLOCK=1024 -g '$G1'"
	"$K/int_ops.py index_math_kernel '*i32:16, i32' -D COLS=7 -D BLOCK=1024 -g '$G1'"
	"$K/int_ops.py lcg_hash_kernel '*i32:16, *i32:16, i32' -D BLOCK=1024 -g '$G1'"
	"$K/masked_copy.py padded_copy_kernel '*fp32:16, *fp32:16, i32, fp32' -D BLOCK=1024 -g '$G1'"
	"$K/masked_copy.py shift_kernel '*fp32:16, *fp32:16, i32, i32' -D BLOCK=1024 -g '$G1'"
	"$K/silu_bf16.py silu_bf16_kernel '*bf16:16, *bf16:16, i32' -D BLOCK=1024 -g '$G1'"
	"$K/trig.py sincos_kernel '*fp32:16, *fp32:16, *fp32:16, i32' -D BLOCK=1024 -g '$G1'"
	"$K/trig.py rotate_kernel '*fp32:16, *fp32:16, fp32, i32' -D BLOCK=1024 -g '$G1'"
	"$K/seeds/add_sin_cos.py sin_kernel '*fp32:16, *fp32:16, i32' -D BLOCK_SIZE=4 -g 'cdiv(n_elements, BLOCK_SIZE)'"
	"$K/seeds/add_sin_cos.py cos_kernel '*fp32:16, *fp32:16, i32' -D BLOCK_SIZE=4 -g 'cdiv(n_elements, BLOCK_SIZE)'"
	"$K/seeds/add_sin_cos.py add_kernel '*fp32:16, *fp32:16, *fp32:16, i32' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'"
	"$K/seeds/add_sin_cos.py add_kernel_autotuned '*fp32:16, *fp32:16, *fp32:16, i32' -g 'cdiv(n_elements, BLOCK_SIZE)'"
	"$K/seeds/silu.py triton_silu_kernel '*bf16:16, *bf16:16, i32' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'"
	"examples/vector_add/kernel.py add_kernel '*fp32:16, *fp32:16, *fp32:16, i32' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'"
	"examples/silu/kernel.py silu_kernel '*bf16:16, *bf16:16, i32' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'"
)
for k in sin cos exp_div sigmoid_fma libdevice; do
	case $k in libdevice) sig='*fp32:16, *fp32:16, i32, fp32' ;; exp_div | sigmoid_fma) sig='*fp32:16, *fp32:16, *fp32:16, i32' ;; *) sig='*fp32:16, *fp32:16, i32' ;; esac
	TIER1+=("tests/gpu/kernels/tier1.py ${k}_kernel '$sig' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'")
done
TIER1+=(
	"tests/gpu/kernels/tier1.py where_other_kernel '*fp32:16, *fp32:16, i32, i32' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'"
	"tests/gpu/kernels/tier1.py cast_kernel '*fp32:16, *fp16:16, *bf16:16, *i32:16, i32' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'"
	"tests/gpu/kernels/tier1.py int_arith_kernel '*i32:16, *i32:16, *i32:16, *i32:16, *i32:16, i32' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'"
	"tests/gpu/kernels/tier1.py fp16_math_kernel '*fp16:16, *fp16:16, *fp16:16, i32' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'"
)
T2K=tests/gpu/kernels/tier2.py
RED="'*fp32:16, *fp32:16, i32, i32, i32'"
TIER2=(
	"$K/argmax.py row_argmax_kernel '*fp32:16, *i32:16, *fp32:16, i32, i32' -D BLOCK=1024"
	"$K/argmax.py col_argmin_kernel '*i32:16, *i32:16, i32, i32' -D BLOCK_M=64 -D BLOCK_N=64 -g 1"
	"$K/casts.py sum_fp16_kernel '*fp16:16, *fp32:16, i32' -D BLOCK=1024 -g 1"
	"$K/loops.py row_sum_loop_kernel '*fp32:16, *fp32:16, i32, i32' -D BLOCK=256"
	"$K/loops.py grid_stride_kernel '*fp32:16, *fp32:16, i32' -D BLOCK=1024 -g 'min(cdiv(n, BLOCK), 264)'"
	"$K/loops.py poly_kernel '*fp32:16, *fp32:16, i32' -D DEGREE=5 -D BLOCK=1024 -g '$G1'"
	"$K/loops.py halvings_kernel '*i32:16, *i32:16' -g 1"
	"$K/reductions.py col_sum_kernel $RED -D BLOCK_M=128 -D BLOCK_N=64 -g 'cdiv(N, BLOCK_N)'"
	"$K/reductions.py min_max_kernel '*i32:16, *i32:16, i32' -D BLOCK=1024 -g 1"
	"$K/softmax.py softmax_kernel '*fp32:16, *fp32:16, i32, i32, i32, i32' -D BLOCK_SIZE=1024 -g n_rows"
	"$K/tile2d.py scale_2d_kernel '*fp32:16, *fp32:16, i32, i32, i32, i32, i32, i32, fp32, fp32' -D BLOCK_M=32 -D BLOCK_N=64 -g 'cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)'"
	"$K/layernorm.py _layer_norm_fwd '*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, fp32' -D BLOCK_SIZE=1024 -w 4"
	"$T2K softmax_row_kernel '*fp32:16, *fp32:16, i32, i32, i32' -D BLOCK_SIZE=4096 -w 16"
	"$T2K softmax_persistent_kernel '*fp32:16, *fp32:16, i32, i32, i32, i32' -D BLOCK_SIZE=1024 -g 'min(n_rows, 528)'"
	"$T2K layer_norm_fwd_kernel '*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, fp32' -D BLOCK_SIZE=4096 -w 8"
	"$T2K reduce_rows_kernel $RED -D OP=3 -D BLOCK_M=8 -D BLOCK_N=1024 -g 'cdiv(M, BLOCK_M)'"
	"$T2K reduce_rows_kernel '*i32:16, *i32:16, i32, i32, i32' -D OP=4 -D BLOCK_M=16 -D BLOCK_N=512 -g 'cdiv(M, BLOCK_M)'"
	"$T2K reduce_cols_kernel $RED -D OP=1 -D BLOCK_M=2048 -D BLOCK_N=4 -g 'cdiv(N, BLOCK_N)'"
	"$T2K reduce_cols_kernel $RED -D OP=3 -D BLOCK_M=128 -D BLOCK_N=64 -g 'cdiv(N, BLOCK_N)'"
	"$T2K col_sum_loop_kernel $RED -D BLOCK_M=32 -D BLOCK_N=64 -g 'cdiv(N, BLOCK_N)'"
	"$K/tile2d.py transpose_kernel '*fp32:16, *fp32:16, i32, i32' -D BLOCK=32 -g 'cdiv(M, BLOCK), cdiv(N, BLOCK)'"
	"$K/reductions.py row_center_kernel '*fp32:16, *fp32:16, *fp32:16, i32, i32' -D BLOCK_M=16 -D BLOCK_N=512 -g 'cdiv(M, BLOCK_M)'"
	"$K/reductions.py row_center_kernel '*fp32:16, *fp32:16, *fp32:16, i32, i32' -D BLOCK_M=64 -D BLOCK_N=1 -g 'cdiv(M, BLOCK_M)'"
)
# 3-D blocks in every kind of op (tiles3d.py): strict, and without spills
T3="$K/tiles3d.py"
TILES3D=(
	"$T3 where3d_kernel '*fp32:16, *fp32:16, *fp32:16, i32' -D A=4 -D B=8 -D C=16 -g 2"
	"$T3 reshape_permute_kernel '*fp32:16, *fp32:16' -D A=2 -D B=4 -D C=8 -g 2"
	"$T3 trans3d_kernel '*fp32:16, *fp32:16' -D A=8 -D B=2 -D C=32 -g 2"
	"$T3 outer_sum_kernel '*fp32:16, *fp32:16, *fp32:16' -D A=8 -D B=2 -D C=32 -g 2"
	"$T3 join_split3d_kernel '*fp32:16, *fp32:16, *fp32:16, *fp32:16' -D A=2 -D B=4 -D C=8 -g 2"
	"$T3 bmm_kernel '*fp32:16, *fp32:16, *fp32:16' -D BATCH=2 -D M=16 -D N=32 -D K=16 -g 2"
	"$T3 bmm_fp16_kernel '*fp16:16, *fp16:16, *fp32:16' -D BATCH=4 -D M=16 -D N=16 -D K=32 -g 2"
)
for ax in 0 1 2; do
	TILES3D+=(
		"$T3 reduce3d_kernel '*fp32:16, *fp32:16, *fp32:16, *i32:16' -D A=4 -D B=8 -D C=16 -D AXIS=$ax -g 2"
		"$T3 reduce_fn3d_kernel '*fp32:16, *fp32:16, *i32:16' -D A=8 -D B=2 -D C=32 -D AXIS=$ax -g 2"
		"$T3 scan3d_kernel '*i32:16, *i32:16, *i32:16' -D A=2 -D B=4 -D C=8 -D AXIS=$ax -g 2"
		"$T3 sort_flip3d_kernel '*fp32:16, *fp32:16, *fp32:16' -D A=4 -D B=8 -D C=16 -D DIM=$ax -g 2"
		"$T3 gather3d_kernel '*fp32:16, *i32:16, *fp32:16' -D A=2 -D B=4 -D C=8 -D AXIS=$ax -g 2"
	)
done
# later tiers (tl.dot): tried, reported, not counted
LATER=(
	"$K/matmul.py matmul_fp32_kernel '*fp32:16, *fp32:16, *fp32:16, i32, i32, i32' -D BLOCK_M=64 -D BLOCK_N=64 -D BLOCK_K=32 -g 'cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)'"
)

# compile_line OUT LINE [extra tilec options]: one manifest line through the
# command line (tilec compile FILE -n KERNEL -s SIG OPTIONS...)
compile_line() {
	local out=$1 line=$2
	shift 2
	eval "set -- $line \"\$@\""
	local file=$1 kernel=$2 sig=$3
	shift 3
	"$TILEC" compile "$file" -n "$kernel" -s "$sig" "$@" --arch sm_80,sm_90,sm_90a -o "$out"
}

# 1. the suite, kernel by kernel: tilec (ptxas for each arch), then the C;
# as many at a time as there are CPUs, each leaving PASS/FAIL in its file
suite_one() { # suite_one N TIER LINE
	local n=$1 tier=$2 line=$3 name
	name=$(echo "$line" | awk '{print $2}')
	if ! compile_line "$T/k$n" "$line" -on "k${n}_$name" -v >"$T/k$n.log" 2>&1; then
		echo "FAIL tier $tier: $line" >"$T/k$n.result"
	elif [ "$tier" = 3d ] && ! grep -q "spills 0 bytes" "$T/k$n.log"; then
		echo "FAIL tier $tier $name: no spill report (-v)" >"$T/k$n.result"
	elif [ "$tier" = 3d ] && grep -qE "spills [1-9]" "$T/k$n.log"; then
		echo "FAIL tier $tier $name: spills: $(grep -m1 -E 'spills [1-9]' "$T/k$n.log")" >"$T/k$n.result"
	elif ! $CC $CFLAGS_GEN -c "$T/k$n.c" -o "$T/k$n.o" >>"$T/k$n.log" 2>&1; then
		echo "FAIL tier $tier $name: generated C does not compile (C99 -pedantic)" >"$T/k$n.result"
	else
		echo PASS >"$T/k$n.result"
	fi
}
JOBS=$(nproc 2>/dev/null || echo 2)
n=0
for tier in 1 2 3d; do
	case $tier in 1) lines=("${TIER1[@]}") ;; 2) lines=("${TIER2[@]}") ;; 3d) lines=("${TILES3D[@]}") ;; esac
	for line in "${lines[@]}"; do
		n=$((n + 1))
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
		suite_one $n $tier "$line" &
	done
done
wait
for i in $(seq 1 $n); do
	if grep -q PASS "$T/k$i.result" 2>/dev/null; then
		ok
	else
		fail "$(cat "$T/k$i.result" 2>/dev/null || echo "suite kernel $i: no result")"
		head -c 1500 "$T/k$i.log"
		echo
	fi
done
for line in "${LATER[@]}"; do
	if compile_line "$T/later" "$line" >"$T/out" 2>&1; then r=compiles; else r="not yet: $(grep -m1 error "$T/out" | head -c 200)"; fi
	echo "later tier: $(echo "$line" | awk '{print $1 ":" $2}'): $r"
done

# 2. variants: one launch function, two variants, most specialized first
VA=examples/vector_add/kernel.py
VSIG='*fp32:16, *fp32:16, *fp32:16, i32'
check "vector add, two variants" "$TILEC" compile --no-hint-variants $VA -n add_kernel -s "$VSIG:16" -s "$VSIG" -D BLOCK_SIZE=1024 \
	-g "cdiv(n_elements, BLOCK_SIZE)" --arch sm_80,sm_90 -o "$T/va" --keep-ptx "$T"
"$TILEC" inspect "$T/va.c" >"$T/inspect" 2>&1
check "inspect lists variant 0" grep -q "variant 0: add_kernel_0" "$T/inspect"
check "inspect lists variant 1" grep -q "variant 1: add_kernel_1" "$T/inspect"
check "variant 0 is the :16 one" bash -c "grep -A2 'variant 0:' '$T/inspect' | grep -q 'n_elements % 16 == 0'"
check "inspect lists the sm_80 cubin" grep -q "cubin sm_80" "$T/inspect"
check "inspect lists the sm_90 cubin" grep -q "cubin sm_90" "$T/inspect"
check "inspect lists the PTX" grep -q "ptx sm_80" "$T/inspect"
check "the grid program" grep -q "grid: cdiv(n_elements, BLOCK_SIZE)" "$T/inspect"
check "registers and spills recorded" grep -qE "variant 0: .*, [0-9]+ registers, spills 0 bytes stored \+ 0 loaded" "$T/inspect"
check "the header declares the launch function" grep -q "tile_status add_kernel(tile_stream stream, tile_deviceptr x_ptr" "$T/va.h"
check "vector add's PTX has 16-byte loads" grep -q "ld.global.v4" "$T/va.compute_80.ptx"
check "vector add's PTX has 16-byte stores" grep -q "st.global.v4" "$T/va.compute_80.ptx"

# 2b. a kernel that spills: 512 fp32 values live per thread (one warp);
# the blob records ptxas's spill bytes
cat >"$T/spill.py" <<'EOF'
import triton
import triton.language as tl

@triton.jit
def spill_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    d = x - tl.sum(x, axis=0) / BLOCK
    tl.store(out_ptr + offs, d * tl.sum(d * d, axis=0))
EOF
check "a spilling kernel compiles" "$TILEC" compile "$T/spill.py" -n spill_kernel -s "*fp32:16, *fp32:16, 8192" -w 1 -g 1 \
	--arch sm_80 --no-ptx -o "$T/spill" -v
cp "$T/out" "$T/spill.log"
check "-v prints the spills" grep -qE "spill_kernel_0: sm_80: [0-9]+ registers, spills [1-9][0-9]* bytes stored \+ [1-9][0-9]* loaded" "$T/spill.log"
"$TILEC" inspect "$T/spill.c" >"$T/inspect" 2>&1
check "the blob records the spills" grep -qE "variant 0: .*, spills [1-9][0-9]* bytes stored \+ [1-9][0-9]* loaded" "$T/inspect"

# 2b'. a chain of cheap values used after a loop is computed again there
# link by link: 24 doublings of an arange compile at once (one
# recomputation per path through the chain would be 2^24 of them)
cat >"$T/chain.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def chain_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in tl.static_range(24):
        offs = offs + offs
    acc = tl.zeros((BLOCK,), tl.float32)
    for k in range(n):
        acc += tl.load(x_ptr + k * BLOCK + tl.arange(0, BLOCK))
    tl.store(out_ptr + (offs & (BLOCK - 1)), acc)
EOF
check "a doubling chain used after a loop compiles (no blow-up)" timeout 120 "$TILEC" compile "$T/chain.py" -n chain_kernel \
	-s "*fp32:16, *fp32:16, i32, 128" --arch sm_80 --no-ptx -o "$T/chain"

# 2c. tl.dot on tensor cores: fp16 and bf16 operands run mma.sync with
# ldmatrix when every target is sm_80 or newer, fma chains otherwise
MMSIG='*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1'
check "fp16 matmul compiles" "$TILEC" compile $K/matmul.py -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=64 \
	-D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 -g 'cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)' \
	--arch sm_80,sm_90 -o "$T/mm" --keep-ptx "$T" -v
cp "$T/out" "$T/mm.log"
check "fp16 matmul: mma.sync" grep -q "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" "$T/mm.compute_80.ptx"
check "fp16 matmul: ldmatrix for A" grep -q "ldmatrix.sync.aligned.m8n8.x4.shared.b16" "$T/mm.compute_80.ptx"
check "fp16 matmul: ldmatrix.trans for B, two tiles at once" grep -q "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" "$T/mm.compute_80.ptx"
# the operands arrive by asynchronous copies, 3 stages in rings of 2 tiles:
# the loop waits for all but the newest group (num_stages - 2 = 1), two
# barriers per iteration (the tiles landed; the tile just read retired
# before the next copies go into it), and no operand is loaded into registers
check "fp16 matmul: 16-byte asynchronous copies, zero-filled where masked off" grep -q "cp.async.cg.shared.global \[%r[0-9]*\], \[%rd[0-9]*\], 16, %p" "$T/mm.compute_80.ptx"
check "fp16 matmul: the loop waits for num_stages - 2 groups" grep -qE "cp.async.wait_group[[:space:]]+1;" "$T/mm.compute_80.ptx"
check "fp16 matmul: every copy is waited for after the loop" grep -qE "cp.async.wait_group[[:space:]]+0;" "$T/mm.compute_80.ptx"
check "fp16 matmul: no operand load into registers" bash -c "! grep -q 'ld.global' '$T/mm.compute_80.ptx'"
check "fp16 matmul: two barriers in the loop" test "$(awk '/cp.async.wait_group[ \t]+1;/{on=1} on&&/bar.sync/{n++} on&&/@%p[0-9]+ bra/{print n; exit}' "$T/mm.compute_80.ptx")" = 2

# tile's :8 hint: sizes and strides divisible by 8 (3000, not 16) give
# 16-byte rows of fp16, so the copies are 16 bytes as with :16; without a
# hint they are 2-byte pieces (no cp.async: rows pipelined through
# registers); the loader takes the :8 variant only where 8 divides them
MMSIG8='*fp16:16, *fp16:16, *fp16:16, i32:8, i32:8, i32:8, i32:8, i32:1, i32:8, i32:1, i32:8, i32:1'
check "fp16 matmul with :8 hints compiles" "$TILEC" compile $K/matmul.py -n matmul_kernel -s "$MMSIG8" \
	-s '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1' -D BLOCK_SIZE_M=64 \
	-D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 -g 'cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)' \
	--arch sm_80 -o "$T/mm8" --keep-ptx "$T/mm8p" -v
cp "$T/out" "$T/mm8.log"
check "-v names the unhinted variant's narrow loads and the hints" grep -q "matmul_kernel_1: the 2-D load at $K/matmul.py:[0-9]* moves pieces under 4 bytes.*:16, :8 or :4" "$T/mm8.log"
check "-v: not the :8 variant's" bash -c "! grep -q 'matmul_kernel_0: the 2-D load' '$T/mm8.log'"
check "fp16 matmul, :8: 16-byte cp.async (the unhinted variant has none)" grep -q "cp.async.cg.shared.global \[%r[0-9]*\], \[%rd[0-9]*\], 16, %p" "$T/mm8p/mm8.compute_80.ptx"
check "fp16 matmul, :8: inspect shows the predicates" bash -c "'$TILEC' inspect '$T/mm8.c' | grep -q 'predicates: a_ptr % 16 == 0, b_ptr % 16 == 0, c_ptr % 16 == 0, M % 8 == 0, N % 8 == 0, K % 8 == 0, stride_am % 8 == 0, stride_ak == 1'"
check "fp16 matmul, :8: the launcher's comment names them" grep -q "M % 8 == 0" "$T/mm8.h"
# The lines of the first kernel's tensor-core loop in a PTX file: the
# smallest span from a label to a later branch back to it that holds an
# mma.sync or wgmma.
mma_loop() {
	awk '/^\.visible \.entry/{n++} n==1' "$1" | awk '
		{ line[NR] = $0 }
		/^\$L__BB[0-9_]+:/ { name = $1; sub(":", "", name); at[name] = NR }
		/bra/ && match($0, /\$L__BB[0-9_]+;/) {
			t = substr($0, RSTART, RLENGTH - 1)
			if ((t in at) && at[t] < NR) { n++; s[n] = at[t]; e[n] = NR }
		}
		END {
			for (i = 1; i <= n; i++) {
				has = 0
				for (j = s[i]; j <= e[i] && !has; j++) has = line[j] ~ /mma\.sync|wgmma\.mma_async/
				if (has && (!best || e[i] - s[i] < e[best] - s[best])) best = i
			}
			for (j = s[best]; best && j <= e[best]; j++) print line[j]
		}'
}
# Per basic block of a PTX excerpt: its 2-byte global loads, and its
# selects and compares.
block_counts() {
	awk '/^\$L__BB[0-9_]+:/ { if (nb) print ld, sp; nb++; ld = sp = 0; next }
		/ld\.global\.b16/ { ld++ } /selp|setp/ { sp++ } END { if (nb) print ld, sp }' "$1"
}
export -f mma_loop block_counts
# the unhinted variant at a size no hint divides (4095^3): each thread
# copies a run of 8 2-byte pieces of A from its first element (immediate
# offsets), and B's pieces (N % 64 leaves no runs) from the block's first
# element plus invariant 32-bit offsets added in the load's asm
# (mad.wide.s32), each offset kept as its row and column parts and summed
# there (add.s32), so the K loop advances no 64-bit pointer an element (it
# advanced 128 per thread, with 255 registers and KBs of spills); A's runs
# go to shared memory 16 bytes a store
check "odd fp16 matmul 128x128x64: the K loop carries no pointer an element" bash -c "
	'$TILEC' compile $K/matmul.py -n matmul_kernel -s '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1' \
		-w 4 -ns 4 -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 \
		--arch sm_80,sm_90a -o '$T/mmo' --keep-ptx '$T/mmo' &&
	for f in '$T'/mmo/*.ptx; do
		mma_loop \$f > \$f.loop
		[ \$(grep -c 'mad.wide.s32' \$f.loop) -ge 64 ] &&
			grep -qE 'ld.global.b16 [^;]*\\+14\\]' \$f.loop && [ \$(grep -c 'add.s64' \$f.loop) -lt 16 ] &&
			[ \$(grep -c 'add.s32 ti, ' \$f.loop) -ge 128 ] && [ \$(grep -c 'st.shared.v4.b32' \$f.loop) -ge 8 ] || exit 1
	done"
# each of its copies of 64 pieces under the K mask has an unmasked path,
# taken for full tiles: blocks of the loop with their 64 loads and none of
# the masked path's 64 compares and selects (the loop's own two aside)
check "odd fp16 matmul 128x128x64: full K tiles copy their pieces unmasked" bash -c "
	for f in '$T'/mmo/*.ptx; do
		[ \$(block_counts \$f.loop | awk '\$1 >= 64 && \$2 <= 2' | wc -l) -ge 2 ] || exit 1
	done"
# B's pieces (N % 64 proves no runs, but likely runs of them) are laid out
# 8 along N a thread, side by side in the stored row: one 16-byte store
# to shared memory for 8 2-byte loads (64 2-byte stores an iteration before)
check "odd fp16 matmul 128x128x64: no 2-byte shared stores in the K loop" bash -c "
	for f in '$T'/mmo/*.ptx; do
		! grep -qE 'st\.shared\.(b16|u16)' \$f.loop && [ \$(grep -c 'st.shared.v4.b32' \$f.loop) -ge 16 ] || exit 1
	done"
# a pointer block moved by amounts that differ between its rows keeps its
# pointers (one a run): only B, moved by a scalar, is read from its first
# element plus offsets (blocks of the loop: A's 64 pieces without
# mad.wide, B's 64 with one each) (a pointer plus one offset block: `p + a + b`,
# two ptr_adds, keeps its pointers as well)
cat > "$T/skew.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def skew_kernel(a_ptr, b_ptr, c_ptr, K, stride_am, stride_bk, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + (rm[:, None] * stride_am + rk[None, :])
    b_ptrs = b_ptr + (rk[:, None] * stride_bk + rn[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BK + (rm[:, None] % 2) * stride_am
        b_ptrs += BK * stride_bk
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))
EOF
check "a pointer block moved unevenly keeps its run pointers; B's pieces from offsets" bash -c "
	'$TILEC' compile '$T/skew.py' -n skew_kernel -s '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, 128, 128, 64' \
		-ns 4 --arch sm_80 -o '$T/skew' --keep-ptx '$T/skew' &&
	f='$T/skew/skew.sm_80.ptx' && mma_loop \$f > \$f.loop &&
	awk '/^\\\$L__BB[0-9_]+:/ { if (nb) print ld, md; nb++; ld = md = 0; next }
		/ld\.global\.b16/ { ld++ } /mad\.wide\.s32/ { md++ } END { print ld, md }' \$f.loop > \$f.blocks &&
	grep -qx '64 0' \$f.blocks && grep -qx '64 64' \$f.blocks && [ \$(grep -c 'add.s64' \$f.loop) -ge 8 ]"
# tl.where between pointers and between strides specialized to 1
# (xformers' tiled matmul picks its operands per program so): the two
# strides are one constant, so A's rows stay contiguous and are copied 16
# bytes at a time (a select of the two kept 2-byte pieces)
cat > "$T/where.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def where_stride_kernel(a1_ptr, a2_ptr, b_ptr, c_ptr, K, split, stride_am, stride_ak1, stride_ak2, stride_bk,
                        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid = tl.program_id(0)
    a_ptr = tl.where(pid < split, a1_ptr, a2_ptr)
    stride_ak = tl.where(pid < split, stride_ak1, stride_ak2)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(a_ptr + (rm[:, None] * stride_am + rk[None, :] * stride_ak))
        b = tl.load(b_ptr + (rk[:, None] * stride_bk + rn[None, :]))
        acc += tl.dot(a, b)
    tl.store(c_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))
EOF
check "tl.where between equal strides: 16-byte copies, no 2-byte pieces" bash -c "
	'$TILEC' compile '$T/where.py' -n where_stride_kernel \
		-s '*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32, i32, i32:16, i32:1, i32:1, i32:16, 64, 64, 32' \
		--arch sm_80 -o '$T/where' --keep-ptx '$T/where' &&
	grep -q 'cp.async.cg.shared.global \[%r[0-9]*\], \[%rd[0-9]*\], 16' '$T/where/where.compute_80.ptx' &&
	! grep -q 'ld.global.b16\|cp.async.ca' '$T/where/where.compute_80.ptx'"
# a dot's accumulator carried through a nest of loops (a convolution's
# kernel rows around its channel blocks) stays in the dot's layout: before,
# the inner loop converted it from the rows' blocked layout and back
# through shared memory every iteration
cat > "$T/nest.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def nest_kernel(x_ptr, w_ptr, y_ptr, C, stride_xm, stride_wk, KH: tl.constexpr, BM: tl.constexpr,
                BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for h in range(KH):
        for c in range(0, C, BK):
            rk = c + tl.arange(0, BK)
            x = tl.load(x_ptr + (rm[:, None] + h) * stride_xm + rk[None, :], mask=rk[None, :] < C, other=0.0)
            w = tl.load(w_ptr + (h * C + rk[:, None]) * stride_wk + rn[None, :], mask=rk[:, None] < C, other=0.0)
            acc += tl.dot(x, w)
    tl.store(y_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))
EOF
check "a nest of loops keeps the accumulator in the dot's layout (no fp32 through shared memory)" bash -c "
	'$TILEC' compile '$T/nest.py' -n nest_kernel -s '*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, 3, 128, 64, 32' \
		--arch sm_80,sm_90a -o '$T/nest' --keep-ptx '$T/nest' &&
	grep -q 'mma.sync' '$T/nest/nest.compute_80.ptx' && grep -q 'wgmma.mma_async' '$T/nest/nest.sm_90a.ptx' &&
	! grep -q 'st.shared[.a-z0-9]*f32' '$T/nest/nest.compute_80.ptx' '$T/nest/nest.sm_90a.ptx'"
# the same nest with rows no hint aligns (2-byte pieces, small tiles): the
# inner loop is not pipelined through registers, whose prologue would load
# every outer iteration's first tile ahead and the body a masked-off one
# more (the loads appeared twice)
check "a nested loop of 2-byte pieces loads each tile once (no registers-ahead prologue)" bash -c "
	'$TILEC' compile '$T/nest.py' -n nest_kernel -s '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, 3, 64, 32, 32' \
		--arch sm_90a -o '$T/nest2' --keep-ptx '$T/nest2' &&
	[ \$(grep -c 'ld.global.b16' '$T/nest2/nest2.sm_90a.ptx') = 24 ]"
# rings copied in 2-byte pieces (fp16 rows at an odd stride) keep two
# stages on wgmma: the copies wait for their loads at any distance, and
# four stages' five tiles (160 KB) left room for one block an SM
check "wgmma rings of 2-byte pieces keep two stages (64 KB, not 160)" bash -c "
	'$TILEC' compile $K/matmul.py -n matmul_kernel \
		-s '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1' -w 4 \
		-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 --arch sm_90a,sm_80 -ns 4 \
		--no-hint-variants -o '$T/ring2' -v > '$T/ring2.log' 2>&1 &&
	grep -q 'sm_90a: .* 65536 dynamic' '$T/ring2.log' && grep -q 'sm_80: .* 98304 dynamic' '$T/ring2.log'"
# no 2-D access proven contiguous, pixels `% W` apart along dim 0 (a
# convolution's input): the layout runs its threads along the pixels, one
# row a thread, so each thread divides once where it divided for each of
# its 32 rows
cat > "$T/pix.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def pix_kernel(x_ptr, w_ptr, y_ptr, C, H, W, stride_c, stride_wk, stride_wn, BM: tl.constexpr, BK: tl.constexpr,
               BN: tl.constexpr):
    offs = tl.program_id(0) * BM + tl.arange(0, BM)
    row = offs // W
    col = offs % W
    rk = tl.arange(0, BK)
    rn = tl.arange(0, BN)
    x = tl.load(x_ptr + (row * W + col)[:, None] + rk[None, :] * stride_c,
                mask=(row < H)[:, None] & (rk < C)[None, :], other=0.0)
    w = tl.load(w_ptr + rk[:, None] * stride_wk + rn[None, :] * stride_wn, mask=(rk < C)[:, None], other=0.0)
    y = tl.dot(x, w)
    tl.store(y_ptr + (row * W + col)[:, None] + rn[None, :] * stride_c, y.to(tl.float16),
             mask=(row < H)[:, None])
EOF
# (in the user's variant: where W is a multiple of 8 or 4, `offs // W` is
# proven equal over runs, `row * W + col` contiguous over them, and the
# :8 and :4 variants tilec adds load wider, dividing each pixel)
check "pixels % W apart: one row a thread (4 divisions, not 32)" bash -c "
	'$TILEC' compile '$T/pix.py' -n pix_kernel \
		-s '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:16, i32:16, 128, 32, 64' \
		--arch sm_80,sm_90a -o '$T/pix' --keep-ptx '$T/pix' &&
	for f in '$T/pix/pix.compute_80.ptx' '$T/pix/pix.sm_90a.ptx'; do
		[ \$(awk '/[.]entry pix_kernel_0[(]/ { k = 1; next } /[.]entry/ { k = 0 } k && /div[.]s32/ { n++ } END { print n + 0 }' \$f) -le 4 ] || exit 1
	done"
# K^T read through a loop-carried transposed pointer block (each key's row
# contiguous along dim 0), scaled by a row and read by a dot as A
# (lightning attention's kv_parallel): the load and the carried pointers
# take a layout led by dim 0, 16-byte loads (4-byte ones before)
cat > "$T/kt_scaled.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def kt_scaled_kernel(k_ptr, v_ptr, s_ptr, o_ptr, n, D: tl.constexpr, C: tl.constexpr):
    kt_ptrs = k_ptr + tl.arange(0, C)[None, :] * D + tl.arange(0, D)[:, None]
    v_ptrs = v_ptr + tl.arange(0, C)[:, None] * D + tl.arange(0, D)[None, :]
    s_ptrs = s_ptr + tl.arange(0, C)[None, :]
    acc = tl.zeros([D, D], dtype=tl.float32)
    for j in range(0, n, C):
        kt = tl.load(kt_ptrs, mask=j + tl.arange(0, C)[None, :] < n, other=0.0)
        v = tl.load(v_ptrs, mask=j + tl.arange(0, C)[:, None] < n, other=0.0)
        s = tl.load(s_ptrs, mask=j + tl.arange(0, C)[None, :] < n, other=0.0)
        acc += tl.dot(kt * s, v)
        kt_ptrs += C * D
        v_ptrs += C * D
        s_ptrs += C
    tl.store(o_ptr + tl.arange(0, D)[:, None] * D + tl.arange(0, D)[None, :], acc)
EOF
check "K^T carried, scaled, as a dot's A: 16-byte loads" bash -c "
	'$TILEC' compile '$T/kt_scaled.py' -n kt_scaled_kernel -s '*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, 128, 64' \
		--arch sm_80,sm_90a -ns 1 -o '$T/kts' --keep-ptx '$T/kts' &&
	[ \$(grep -c 'ld.global.b32' '$T/kts/kts.compute_80.ptx') -le 4 ] && [ \$(grep -c 'ld.global.b32' '$T/kts/kts.sm_90a.ptx') -le 4 ]"
check "a :8 hint on a float is refused" bash -c "! '$TILEC' compile $K/matmul.py -n matmul_kernel -s '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, fp32:8' -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 -o '$T/mm8f' 2>'$T/mm8f.err' && grep -q 'floats take no hint' '$T/mm8f.err'"
check "fp32 matmul with :4 hints: 16-byte cp.async (4-byte copies without)" bash -c "
	'$TILEC' compile $K/matmul.py -n matmul_fp32_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32:4, i32:4, i32:4' -D BLOCK_M=64 -D BLOCK_N=64 -D BLOCK_K=32 --arch sm_80 -o '$T/f4' --keep-ptx '$T/f4p' &&
	'$TILEC' compile --no-hint-variants $K/matmul.py -n matmul_fp32_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32, i32, i32' -D BLOCK_M=64 -D BLOCK_N=64 -D BLOCK_K=32 --arch sm_80 -o '$T/f0' --keep-ptx '$T/f0p' &&
	grep -q 'cp.async.cg.shared.global \[%r[0-9]*\], \[%rd[0-9]*\], 16' '$T/f4p/f4.compute_80.ptx' && ! grep -q 'cp.async.ca' '$T/f4p/f4.compute_80.ptx' &&
	grep -q 'cp.async.ca.shared.global \[%r[0-9]*\], \[%rd[0-9]*\], 4' '$T/f0p/f0.compute_80.ptx'"
# weight-only int8 at decode time, tl.dot(x, tl.trans(w.to(tl.float16))):
# the int8 tile is pipelined as an operand (cp.async into a ring, converted
# once read from it) and the transpose folds into the operand's staging
# (before: 16-byte loads in the loop, the transpose through shared memory
# element by element, 237 registers on sm_90a)
DEC=tests/gpu/kernels/decode.py
W8SIG='*fp16:16, *i8:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16'
check "int8-weight GEMV compiles" "$TILEC" compile $DEC -n gemv_w8_kernel -s "$W8SIG" -D BLOCK_M=16 -D BLOCK_N=64 \
	-D BLOCK_K=128 --arch sm_80,sm_90a -o "$T/w8" --keep-ptx "$T/w8p" -v
cp "$T/out" "$T/w8.log"
for a in compute_80 sm_90a; do
	check "int8-weight GEMV ($a): weights by 16-byte cp.async" \
		grep -q "cp.async.cg.shared.global \[%r[0-9]*\], \[%rd[0-9]*\], 16" "$T/w8p/w8.$a.ptx"
	check "int8-weight GEMV ($a): no 16-byte load into registers" bash -c "! grep -q 'ld.global.v4' '$T/w8p/w8.$a.ptx'"
	check "int8-weight GEMV ($a): no 2-byte shared stores (a transpose through shared memory)" \
		bash -c "! grep -q 'st.shared.b16' '$T/w8p/w8.$a.ptx'"
	# the mma fragments of B read the ring's bytes in place, two K
	# elements a 2-byte load, converted in registers: the K loop stores
	# nothing to shared memory (the converted tile staged back as fp16 took
	# 64 stores a thread and two more barriers an iteration)
	awk '/^\$L__BB0_2:/{on=1} on{print} on && /bra[^$]*\$L__BB0_2;/{exit}' "$T/w8p/w8.$a.ptx" >"$T/w8.$a.loop"
	check "int8-weight GEMV ($a): B's fragments converted from the ring in place (32 2-byte reads, no shared stores in the loop)" \
		bash -c "[ \$(grep -cE 'ld.shared.[ub]16' '$T/w8.$a.loop') = 32 ] && ! grep -q 'st.shared' '$T/w8.$a.loop' && [ \$(grep -c 'mma.sync' '$T/w8.$a.loop') = 16 ]"
	# each 2-byte read converts at once, through fp16's 1024 (one sub.f16x2
	# a word, no cvt an element)
	check "int8-weight GEMV ($a): two bytes to fp16 a sub.f16x2, no cvt" \
		bash -c "[ \$(grep -c 'sub.f16x2' '$T/w8.$a.loop') = 32 ] && ! grep -q 'cvt.rn.f16' '$T/w8.$a.loop'"
done
# a decode GEMV's loop (one 16-row tile of M) waits on its copies: on
# sm_90a its rings (num_stages tiles) are refilled before its dots, two
# iterations in flight through them (copies_first in compile.c); mma.sync
# targets keep num_stages - 1 tiles, refilled after the dots
first_line() { grep -n -m1 "$1" "$2" | cut -d: -f1; }
check "int8-weight GEMV (sm_90a): the copies before the dots" \
	test "$(first_line cp.async.cg "$T/w8.sm_90a.loop")" -lt "$(first_line mma.sync "$T/w8.sm_90a.loop")"
check "int8-weight GEMV (compute_80): the copies after the dots" \
	test "$(first_line cp.async.cg "$T/w8.compute_80.loop")" -gt "$(first_line mma.sync "$T/w8.compute_80.loop")"
# int4: the nibbles less their offset of 8 are integers fp16 holds exactly
# ((w & 0xF) - 8 lies in [-8, 7]), converted through their bits (OR under
# fp16's 1024, one subtraction, which LLVM pairs into add.f16x2) where a
# cvt.rn.f16.s16 an element took the slow conversion unit
W4SIG='*fp16:16, *u8:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16'
check "int4-weight GEMV: nibbles to fp16 through their bits, no integer cvt" bash -c "
	'$TILEC' compile $DEC -n gemv_w4_kernel -s '$W4SIG' -D BLOCK_M=16 -D BLOCK_N=64 -D BLOCK_K=128 -D GROUP=128 \
		--arch sm_80,sm_90a -o '$T/w4' --keep-ptx '$T/w4p' &&
	for f in '$T'/w4p/*.ptx; do ! grep -qE 'cvt.rn.f16.[su]' \$f && grep -q 'add.f16x2' \$f || exit 1; done"
# fp16 maxima (and sums, products) of two of a thread's elements are one
# max.f16x2: left to ptxas to pair, the loads of a loop into a running
# maximum were packed and their registers reused as they came, so the
# loop waited on every few loads (FlagGems' amax over rows, 2x slower)
check "fp16 running maximum: compiles" "$TILEC" compile "$K/reductions.py" -n row_max_fp16_kernel \
	-s '*fp16, *fp16, i32, i32' -D BLOCK_M=4 -D BLOCK_N=1024 -g 'cdiv(M, BLOCK_M)' --arch sm_80,sm_90a \
	-o "$T/rmax" --keep-ptx "$T/rmaxp"
for a in compute_80 sm_90a; do
	awk '/^\$L__BB0_[0-9]*:/{n++} n==1{print} n==1 && /bra[^$]*\$L__BB0_/{exit}' "$T/rmaxp/rmax.$a.ptx" >"$T/rmax.$a.loop"
	check "fp16 running maximum ($a): 16 max.f16x2 in the loop, no scalar max.f16" \
		bash -c "[ \$(grep -c 'max.f16x2' '$T/rmax.$a.loop') = 16 ] && ! grep -q 'max.f16 ' '$T/rmax.$a.loop'"
done
# a masked 16-byte load of fp16 selects `other` (zeros) a word at a time
# after the access, not an element at a time with the halves repacked
# around it (fla's token shift over rows of 1000 bf16: 16 selp.b16 and 16
# mov.b32 an iteration on its critical path)
check "masked fp16 vector loads: compiles" "$TILEC" compile tests/gpu/kernels/tier1.py -n fp16_math_kernel \
	-s '*fp16:16, *fp16:16, *fp16:16, i32:16' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)' \
	--arch sm_80,sm_90a -o "$T/hsel" --keep-ptx "$T/hselp"
for a in compute_80 sm_90a; do
	check "masked fp16 vector loads ($a): 4 selp.b32 for the 4 words, no selp.b16" \
		bash -c "[ \$(grep -c 'selp.b32' '$T/hselp/hsel.$a.ptx') = 4 ] && ! grep -q 'selp.b16' '$T/hselp/hsel.$a.ptx'"
done
# and in the registers of B's fragments (analysis/layout.c's dequant_b):
# each thread reads the packed bytes its fragments need from the ring and
# the dot takes its words from the converted registers, so the K loop
# stores nothing to shared memory (8 16-byte stores of the converted tile
# and a barrier before) and ldmatrix reads A alone
check "int4-weight GEMV: B's fragments from registers (32 1-byte reads, no shared stores, 8 ldmatrix for A)" bash -c "
	for f in '$T'/w4p/*.ptx; do
		awk '/^\\\$L__BB0_2:/{on=1} on{print} on && /bra[^\$]*\\\$L__BB0_2;/{exit}' \$f > \$f.loop
		[ \$(grep -cE 'ld.shared.[ub]8' \$f.loop) = 32 ] && ! grep -q 'st.shared' \$f.loop &&
			[ \$(grep -c 'ldmatrix' \$f.loop) = 8 ] && [ \$(grep -c 'mma.sync' \$f.loop) = 16 ] || exit 1
	done"
# where B's fragments are not one warp's alone (64 rows: warps along M as
# well on sm_80, wgmma on sm_90a) the converted tile is staged as before
check "int4-weight GEMV, 64 rows: compiles, wgmma on sm_90a" bash -c "
	'$TILEC' compile $DEC -n gemv_w4_kernel -s '$W4SIG' -D BLOCK_M=64 -D BLOCK_N=64 -D BLOCK_K=128 -D GROUP=128 \
		--arch sm_80,sm_90a -o '$T/w64' --keep-ptx '$T/w64p' && grep -q 'wgmma.mma_async' '$T/w64p/w64.sm_90a.ptx' &&
	grep -q 'mma.sync' '$T/w64p/w64.compute_80.ptx'"
# with a spare ring tile (4 stages) the dot's group stays in flight across
# the back edge although its B, converted in registers, is staged in the
# scratch: B goes into one of two tiles by the iteration's parity, so the
# loop converts and stages the next B while the group runs and never
# waits for it there (lower.c: flying_dot); the second tile costs 16 KB
check "int4-weight GEMV, 64 rows, 4 stages, sm_90a: compiles" "$TILEC" compile $DEC -n gemv_w4_kernel -s "$W4SIG" \
	-D BLOCK_M=64 -D BLOCK_N=64 -D BLOCK_K=128 -D GROUP=128 -ns 4 --arch sm_90a -o "$T/w64s4" --keep-ptx "$T/w64s4p"
awk '/^\$L__BB0_2:/{on=1} on{print} on && /bra[^$]*\$L__BB0_2;/{exit}' "$T/w64s4p/w64s4.sm_90a.ptx" >"$T/w64s4.loop"
check "... the group stays in flight across the back edge, the loop never waits for it, B's two tiles" bash -c "
	[ \$(grep -c 'wgmma.wait_group.sync.aligned 1;' '$T/w64s4.loop') = 1 ] &&
	! grep -q 'wgmma.wait_group.sync.aligned 0;' '$T/w64s4.loop' && [ \$(grep -c 'st.shared.v4' '$T/w64s4.loop') = 8 ] &&
	'$TILEC' inspect '$T/w64s4.c' | grep -q 'shared 0 static + 135168 dynamic'"
check "int8-weight GEMV: under 128 registers on sm_90a" \
	bash -c "n=\$(grep -oE 'sm_90a: [0-9]+ registers' '$T/w8.log' | grep -oE '[0-9]+ ' | head -1); [ \"\$n\" -lt 128 ]"
check "fp16 matmul: no local memory" bash -c "! grep -q '\.local' '$T/mm.compute_80.ptx'"
check "fp16 matmul: no fma chains" bash -c "! grep -q 'fma.rn.f32' '$T/mm.compute_80.ptx'"
check "fp16 matmul: 16 mma per thread and iteration (4x2 tiles, 2 k-steps)" \
	test "$(grep -c 'mma.sync' "$T/mm.compute_80.ptx")" = 16
check "fp16 matmul: no spills" grep -q "matmul_kernel_0: sm_90: [0-9]* registers, spills 0 bytes stored + 0 loaded" "$T/mm.log"
check "fp16 matmul: generated C compiles" $CC $CFLAGS_GEN -c "$T/mm.c" -o "$T/mm.o"

# attention (tutorial 06's forward): no spill for sm_80, sm_87 and sm_90,
# head dims 64 and 128, causal or not (the causal kernel's two loops read
# Q from one staged tile, the epilogue's offsets computed again after them)
ATTNSIG='*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32:16, i32:16, i32:16, i32:16, i32:16'
for attn in "64 1 4" "64 3 4" "128 3 8"; do
	read -r hd stage warps <<<"$attn"
	check "attention d$hd stage $stage compiles" "$TILEC" compile tests/gpu/kernels/attention.py -n attn_fwd -s "$ATTNSIG" \
		-w "$warps" -D HEAD_DIM="$hd" -D BLOCK_M=128 -D BLOCK_N=64 -D STAGE="$stage" --arch sm_80,sm_87,sm_90 --no-ptx \
		-o "$T/attn$hd" -v
	cp "$T/out" "$T/attn$hd.log"
	for arch in sm_80 sm_87 sm_90; do
		check "attention d$hd stage $stage: no spills on $arch" \
			grep -q "attn_fwd_0: $arch: [0-9]* registers, spills 0 bytes stored + 0 loaded" "$T/attn$hd.log"
	done
done
# programmatic dependent launch: griddepcontrol in the sm_90 code only (the
# fp8-style tiers split the family), a NAME_pdl launcher in the C
PDLSIG='*fp32:16, *fp32:16, *fp32:16, i32, 1024, True'
check "gdc_wait kernel compiles for sm_80 and sm_90" "$TILEC" compile --no-hint-variants tests/gpu/kernels/pdl.py -n pdl_add_kernel -s "$PDLSIG" \
	-g 'cdiv(n_elements, BLOCK_SIZE)' --arch sm_80,sm_90 -o "$T/pdl" --keep-ptx "$T/pdl.ptx"
check "gdc_wait: the sm_90 PTX waits before the loads" \
	bash -c "grep -E 'griddepcontrol|ld.global' '$T/pdl.ptx/pdl.sm_90.ptx' | head -1 | grep -q 'griddepcontrol.wait;'"
check "gdc_wait: and lets the next grid start after them" \
	bash -c "grep -E 'griddepcontrol|ld.global' '$T/pdl.ptx/pdl.sm_90.ptx' | tail -1 | grep -q 'griddepcontrol.launch_dependents;'"
check "gdc_wait: one wait and one launch_dependents for sm_90" test "$(grep -c 'griddepcontrol' "$T/pdl.ptx/pdl.sm_90.ptx")" = 2
check "gdc_wait: no griddepcontrol in the sm_80 code and PTX image" bash -c "! grep -q griddepcontrol '$T/pdl.ptx/pdl.sm_80.ptx' '$T/pdl.ptx/pdl.compute_80.ptx'"
check "gdc_wait: the header declares pdl_add_kernel_pdl" grep -q '^tile_status pdl_add_kernel_pdl(tile_stream stream, tile_deviceptr x_ptr' "$T/pdl.h"
check "gdc_wait: pdl_add_kernel_pdl launches with TILE_LAUNCH_PDL" grep -q 'tile_launch_ex(tile_m, 0, -1, NULL, stream, tile_args, 4, TILE_LAUNCH_PDL)' "$T/pdl.c"
check "gdc_wait: the generated C compiles" $CC $CFLAGS_GEN -c "$T/pdl.c" -o "$T/pdl.o"
check "gdc_wait: without USE_GDC no NAME_pdl launcher" "$TILEC" compile tests/gpu/kernels/pdl.py -n pdl_add_kernel \
	-s '*fp32:16, *fp32:16, *fp32:16, i32, 1024, False' -g 'cdiv(n_elements, BLOCK_SIZE)' --arch sm_90 -o "$T/nopdl"
check "gdc_wait: ... and its header has none" bash -c "! grep -q pdl_add_kernel_pdl '$T/nopdl.h'"
check "gdc_wait: the interpreter runs it (the waits are no-ops there)" "$TILEC" run tests/gpu/kernels/pdl.py -n pdl_add_kernel \
	-s "$PDLSIG" -g 2 --arg buf:1500:arange --arg buf:1500:arange --arg buf:1500 --arg 1500 --print out_ptr:4
cp "$T/out" "$T/pdl.run"
check "gdc_wait: ... out = x + y" grep -q "0 2 4 6" "$T/pdl.run"

# sm_90a attention (the softmax result is wgmma's A from registers): every
# fragment is written before wgmma.fence, so ptxas need not stop a group
# in flight to let registers change (C7519, "warpgroup.arrive is injected")
check "attention d128 for sm_90a" "$TILEC" compile tests/gpu/kernels/attention.py -n attn_fwd -s "$ATTNSIG" -w 8 \
	-D HEAD_DIM=128 -D BLOCK_M=128 -D BLOCK_N=64 -D STAGE=3 --arch sm_90a --no-ptx -o "$T/attn90a" --keep-ptx "$T/attn90a.ptx"
check "attention d128 sm_90a: wgmma with A from registers" grep -q 'wgmma.mma_async.*}, {%r' "$T/attn90a.ptx/attn90a.sm_90a.ptx"
# --keep-ptx with --no-ptx: the PTX image's family (sm_90's mma.sync) is
# lowered by no cubin here, so its PTX is not made just to be kept; with
# --arch sm_80 the compute_80 PTX comes with the cubin's and is kept (below)
check "--keep-ptx --no-ptx: no lowering for an image left out" test ! -e "$T/attn90a.ptx/attn90a.compute_90.ptx"
# each loop's second dot (P @ V) stays in flight across the back edge: the
# wait for the next iteration's first dot completes it (carried_value)
# loops_end_in_flight PTX N: N back edges, each after a wgmma commit with no
# wait between them
loops_end_in_flight() {
	awk -v want="$2" '
		/^\$L__BB[0-9_]+:/ { seen[substr($1, 1, length($1) - 1)] = 1 }
		/wgmma.commit_group/ { last = "commit" }
		/wgmma.wait_group/ { last = "wait" }
		/bra/ { t = $NF; sub(/;$/, "", t); if (t in seen) { n++; if (last != "commit") bad++ } }
		END { exit !(n == want && bad == 0) }' "$1"
}
check "attention d128 sm_90a: both loops end with a wgmma group in flight" \
	loops_end_in_flight "$T/attn90a.ptx/attn90a.sm_90a.ptx" 2
if [ -n "$PTXAS" ]; then
	"$PTXAS" -arch=sm_90a -v "$T/attn90a.ptx/attn90a.sm_90a.ptx" -o "$T/attn90a.cubin" >"$T/attn90a.ptxas" 2>&1
	check "attention d128 sm_90a: ptxas injects no warpgroup.arrive" bash -c "grep -q 'Used [0-9]* registers' '$T/attn90a.ptxas' && ! grep -q C7519 '$T/attn90a.ptxas'"
fi
# rings that do not fit a target's shared memory: refused, the config named
check "5 stages (rings of 4) of 128x256x64 fp16 tiles do not fit sm_80 or sm_87" bash -c "! '$TILEC' compile $K/matmul.py -n matmul_kernel -s '$MMSIG' -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=256 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -w 8 -ns 5 -o '$T/big' 2>'$T/big.err'"
check "the shared-memory error names the config and the limit" grep -q "BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=5) needs 196608 bytes of shared memory, more than a block may have on sm_80 (166912)" "$T/big.err"
check "the same at 3 stages fits sm_90 alone" "$TILEC" compile $K/matmul.py -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=128 \
	-D BLOCK_SIZE_N=256 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -w 8 -ns 3 --arch sm_90 -o "$T/big3"
# compute_XX alone: a blob of PTX only, which still records the shared
# memory its rings need (the launch passes it)
check "fp16 matmul for compute_80 only" "$TILEC" compile $K/matmul.py -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=128 \
	-D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -g 'cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)' \
	--arch compute_80 -o "$T/mm80"
"$TILEC" inspect "$T/mm80.c" >"$T/inspect80" 2>&1
check "compute_80 only: one PTX image" bash -c "grep -q 'image 0: group 0, ptx sm_80' '$T/inspect80' && ! grep -q 'image 1' '$T/inspect80'"
check "compute_80 only: the rings' 64 KB of dynamic shared memory" grep -q "shared 0 static + 65536 dynamic" "$T/inspect80"
check "--no-ptx with compute_XX only is refused" bash -c "! '$TILEC' compile $K/matmul.py -n matmul_kernel -s '$MMSIG' -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 --arch compute_80 --no-ptx -o '$T/none' 2>'$T/none.err' && grep -q 'leaves nothing to compile' '$T/none.err'"
# 2d. sm_90a: wgmma for fp16/bf16 dots (B, and A when a ring tile, through
# matrix descriptors), mma.sync on sm_90 and in the compute_90 PTX
check "fp16 matmul for sm_90 and sm_90a" "$TILEC" compile $K/matmul.py -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=128 \
	-D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -g 'cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)' \
	-ns 4 --arch sm_90,sm_90a -o "$T/mm90a" --keep-ptx "$T" -v
cp "$T/out" "$T/mm90a.log"
check "sm_90a: wgmma m64n128k16 from two descriptors, B transposed" \
	grep -q "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {.*}, %rd[0-9]*, %rd[0-9]*, p, 1, 1, 0, 1;" "$T/mm90a.sm_90a.ptx"
check "sm_90a: 8 wgmma per iteration (2 row blocks, 4 k-steps)" test "$(grep -c 'wgmma.mma_async' "$T/mm90a.sm_90a.ptx")" = 8
check "sm_90a: no mma.sync" bash -c "! grep -q 'mma.sync' '$T/mm90a.sm_90a.ptx'"
check "sm_90: mma.sync and no wgmma" bash -c "grep -q 'mma.sync' '$T/mm90a.sm_90.ptx' && ! grep -q 'wgmma' '$T/mm90a.sm_90.ptx'"
check "compute_90 PTX: no wgmma" bash -c "! grep -q 'wgmma' '$T/mm90a.compute_90.ptx'"
check "sm_90a: no proxy fence after cp.async's wait (as Triton)" bash -c "! grep -q 'fence.proxy.async' '$T/mm90a.sm_90a.ptx'"
check "sm_90a: a group stays in flight across the back edge" grep -q "wgmma.wait_group.sync.aligned 1;" "$T/mm90a.sm_90a.ptx"
check "sm_90a: the last group is waited for after the loop" grep -q "wgmma.wait_group.sync.aligned 0;" "$T/mm90a.sm_90a.ptx"
check "sm_90a: rings of 5 tiles (4 stages + a spare), 1024-byte aligned" bash -c "grep -q '.extern .shared .align 1024 .b8' '$T/mm90a.sm_90a.ptx' && grep -q 'matmul_kernel_0: sm_90a: .* 163840 dynamic' '$T/mm90a.log'"
check "sm_90a: no spills" grep -q "matmul_kernel_0: sm_90a: [0-9]* registers, spills 0 bytes stored + 0 loaded" "$T/mm90a.log"
"$TILEC" inspect "$T/mm90a.c" >"$T/inspect90a" 2>&1
check "the blob holds an arch-specific sm_90a cubin" grep -q "cubin sm_90a" "$T/inspect90a"
# int8 x @ w^T (w [N, K]: both operands K-major): wgmma's s32.s8.s8 form
# (no scale operands) on sm_90a from the rings, mma.sync on sm_80; a row-major
# w (K x N) stays on mma.sync (wgmma cannot transpose 8-bit operands)
check "int8 x @ w^T for sm_80 and sm_90a" "$TILEC" compile --no-hint-variants tests/gpu/kernels/dots.py \
	-n matmul_int8_nt_kernel -s '*i8:16, *i8:16, *i32:16, i32, i32, i32:16' -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=128 \
	-w 8 -ns 4 --arch sm_80,sm_90a -o "$T/i8nt" --keep-ptx "$T/i8nt.ptx"
check "int8 x @ w^T sm_90a: wgmma m64n128k32 s32.s8.s8 from descriptors, no mma.sync" bash -c "
	grep -q 'wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 {.*}, %rd[0-9]*, %rd[0-9]*, p;' '$T/i8nt.ptx/i8nt.sm_90a.ptx' &&
	! grep -q 'mma.sync' '$T/i8nt.ptx/i8nt.sm_90a.ptx' && grep -q 'cp.async' '$T/i8nt.ptx/i8nt.sm_90a.ptx'"
check "int8 x @ w^T sm_80: mma.sync s8" grep -q 'mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32' "$T/i8nt.ptx/i8nt.sm_80.ptx"
check "int8 x @ w (row-major w) for sm_90a" "$TILEC" compile --no-hint-variants tests/gpu/kernels/dots.py \
	-n matmul_int8_kernel -s '*i8:16, *i8:16, *i32:16, i32, i32:16, i32:16' -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=64 \
	-w 8 -ns 3 --arch sm_90a -o "$T/i8nn" --keep-ptx "$T/i8nn.ptx"
check "int8 x @ w sm_90a: mma.sync" bash -c "grep -q 'mma.sync.aligned.m16n8k32' '$T/i8nn.ptx/i8nn.sm_90a.ptx' && ! grep -q 'wgmma.mma_async' '$T/i8nn.ptx/i8nn.sm_90a.ptx'"
# a spare tile only where it costs no block per SM: 128x128x32 in 4 warps
# (registers allow 3 blocks either way) gets one, 64x64x32 (9 blocks of
# 24 KB against 6 of 32) does not
check "tilec ir --pipelined=wgmma: a spare tile" "$TILEC" ir $K/matmul.py -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=128 \
	-D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 --pipelined=wgmma
cp "$T/out" "$T/wgmma.ir"
check "--pipelined=wgmma: rings of 4 tiles for 3 stages, the loop flagged" bash -c "grep -q 'smem<4x128x32xfp16>' '$T/wgmma.ir' && grep -q 'for spare_tile' '$T/wgmma.ir'"
check "tilec ir --pipelined=wgmma: 64x64x32" "$TILEC" ir $K/matmul.py -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=64 \
	-D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 --pipelined=wgmma
cp "$T/out" "$T/wgmma64.ir"
check "--pipelined=wgmma: no spare tile where it would cost blocks" bash -c "grep -q 'smem<3x64x32xfp16>' '$T/wgmma64.ir' && ! grep -q 'spare_tile' '$T/wgmma64.ir'"
# tl.dot(a, tl.trans(b)): b's loads are pipelined too, the ring read transposed in place
check "a matmul of tl.trans(b) for sm_80 and sm_90a" "$TILEC" compile tests/gpu/kernels/dots.py -n matmul_bt_kernel \
	-s '*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16' -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=64 -w 8 \
	-g 'cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)' --arch sm_80,sm_90a -o "$T/bt" --keep-ptx "$T"
check "tl.trans(b): no operand load into registers, copies for both operands" bash -c "! grep -q 'ld.global' '$T/bt.sm_90a.ptx' &&
	test \$(grep -c 'cp.async.cg' '$T/bt.sm_90a.ptx') -ge 16 && ! grep -q 'ld.global' '$T/bt.sm_80.ptx'"
check "tl.trans(b) on sm_90a: B K-major through its descriptor" grep -q "}, %rd[0-9]*, %rd[0-9]*, p, 1, 1, 0, 0;" "$T/bt.sm_90a.ptx"
check "tl.trans(b) on sm_80: B's fragments by ldmatrix without .trans" bash -c "grep -q 'ldmatrix.sync.aligned.m8n8.x4.shared.b16' '$T/bt.sm_80.ptx' && ! grep -q 'ldmatrix.*trans' '$T/bt.sm_80.ptx'"
# fp8 on sm_90a: wgmma k32 when both operands are K-major (no transpose for 8-bit operands)
check "an fp8 matmul (B K-major) for sm_90a" "$TILEC" compile $K/matmul.py -n matmul_kernel \
	-s '*fp8e4nv:16, *fp8e4nv:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:1, i32:16, i32:16, i32:1' \
	-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -w 4 --arch sm_90a -o "$T/f8" --keep-ptx "$T"
check "fp8 on sm_90a: wgmma e4m3 from two descriptors, no transpose operands" \
	grep -q "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {.*}, %rd[0-9]*, %rd[0-9]*, p, 1, 1;" "$T/f8.sm_90a.ptx"
check "an fp8 matmul with B N-major keeps mma.sync on sm_90a" "$TILEC" compile $K/matmul.py -n matmul_kernel \
	-s '*fp8e5:16, *fp8e5:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1' \
	-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -w 4 --arch sm_90a -o "$T/f8n" --keep-ptx "$T"
check "fp8 B N-major: mma.sync e5m2, no wgmma" bash -c "grep -q 'mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32' '$T/f8n.sm_90a.ptx' && ! grep -q wgmma '$T/f8n.sm_90a.ptx'"
# host-side descriptors on sm_90a: TMA copies their blocks into the rings,
# each tile landing on a barrier of its own, through tensor maps the kernel
# takes as 128-byte grid constants; sm_80 keeps cp.async, and so does
# sm_90a under --no-tma
TMASIG='tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 128]>, i32, i32, i32'
TMADEF='-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -D WARP_SPECIALIZE=False -w 8'
check "tutorial 09's host-descriptor matmul for sm_80 and sm_90a" "$TILEC" compile tests/gpu/kernels/descriptors.py \
	-n matmul_kernel_tma -s "$TMASIG" $TMADEF --arch sm_80,sm_90a -o "$T/tma" --keep-ptx "$T"
check "sm_90a: both operands by TMA, a barrier per ring tile, no cp.async" bash -c "
	test \$(grep -c 'cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes' '$T/tma.sm_90a.ptx') -ge 4 &&
	grep -q 'mbarrier.try_wait.parity.shared::cta.b64' '$T/tma.sm_90a.ptx' &&
	test \$(grep -c 'mbarrier.init.shared::cta.b64' '$T/tma.sm_90a.ptx') = 6 && ! grep -q 'cp.async.cg' '$T/tma.sm_90a.ptx'"
check "sm_90a: the result by TMA stores from a staged tile (two 64-column boxes), no st.global" bash -c "
	test \$(grep -c 'cp.async.bulk.tensor.2d.global.shared::cta.bulk_group' '$T/tma.sm_90a.ptx') = 2 &&
	grep -q 'cp.async.bulk.wait_group.read 0;' '$T/tma.sm_90a.ptx' && ! grep -q 'st.global' '$T/tma.sm_90a.ptx'"
check "sm_90a: three tensor maps passed as 128-byte grid constants" bash -c "
	test \$(grep -c '.param .align 64 .b8 matmul_kernel_tma_0_param_[0-9]*\[128\]' '$T/tma.sm_90a.ptx') = 3 &&
	grep -q 'cvta.param.u64' '$T/tma.sm_90a.ptx'"
check "sm_80: the maps passed but not read, no TMA" bash -c "grep -q '.param .align 64 .b8 .*\[128\]' '$T/tma.sm_80.ptx' &&
	! grep -q 'bulk.tensor\|mbarrier\|cvta.param' '$T/tma.sm_80.ptx'"
"$TILEC" inspect "$T/tma.c" >"$T/tma.inspect" 2>&1
check "inspect: the maps, and the sm_90a image reads them" bash -c "grep -q 'param 5 a_desc_tmap: tensormap fp16' '$T/tma.inspect' &&
	grep -q 'cubin sm_90a (reads tensor maps)' '$T/tma.inspect' && ! grep -q 'sm_80 (reads' '$T/tma.inspect'"
if [ -n "$PTXAS" ]; then
	"$PTXAS" -arch=sm_90a -v "$T/tma.sm_90a.ptx" -o "$T/tma.cubin" >"$T/tma.ptxas" 2>&1
	check "sm_90a TMA matmul: ptxas assembles it, no spills" grep -q "0 bytes spill stores, 0 bytes spill loads" "$T/tma.ptxas"
fi
# the engine reads the stored box while the kernel goes on: its reads are
# waited for where scratch is used next, here only at the kernel's end, and
# no barrier follows the store
check "sm_90a: a bulk store's reads waited for at the kernel's end, no barrier after it" awk '
	/\.entry matmul_kernel_tma_0\(/ { k = 1 }
	k && /cp.async.bulk.commit_group/ { after = 1; bars = 0; waits = 0 }
	k && after && /bar.sync/ { bars++ }
	k && after && /cp.async.bulk.wait_group.read 0/ { waits++ }
	k && /ret;/ { ok = after && !bars && waits == 1; k = 0 }
	END { exit !ok }' "$T/tma.sm_90a.ptx"
# mma.sync from sm_90 on (sm_90's cubin, and Blackwell's made of its PTX)
# takes the same TMA copies into its rings, refilled behind a proxy fence
check "the same matmul for sm_80, sm_90 and sm_120" "$TILEC" compile tests/gpu/kernels/descriptors.py \
	-n matmul_kernel_tma -s "$TMASIG" $TMADEF --arch sm_80,sm_90,sm_120 -o "$T/tma9" --keep-ptx "$T"
check "sm_90 and sm_120: mma.sync fed by TMA, a proxy fence before each refill, no cp.async or wgmma" bash -c "
	for a in sm_90 sm_120; do
		test \$(grep -c 'cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes' '$T/tma9.'\$a.ptx) -ge 4 &&
		test \$(grep -c 'fence.proxy.async.shared::cta' '$T/tma9.'\$a.ptx) -ge 4 &&
		grep -q 'mma.sync.aligned.m16n8k16' '$T/tma9.'\$a.ptx && ! grep -q 'wgmma\|cp.async.cg' '$T/tma9.'\$a.ptx || exit 1
	done
	! grep -q 'bulk.tensor\|mbarrier' '$T/tma9.sm_80.ptx'"
"$TILEC" inspect "$T/tma9.c" >"$T/tma9.inspect" 2>&1
check "inspect: sm_90a's and sm_120's images read the maps, sm_80's does not" bash -c "
	grep -q 'cubin sm_90a (reads tensor maps)' '$T/tma9.inspect' && grep -q 'sm_120 (reads tensor maps)' '$T/tma9.inspect' &&
	! grep -q 'sm_80 (reads' '$T/tma9.inspect'"
# sm_90 is Hopper: it brings sm_90a, whose wgmma cubin replaces the plain
# one in the blob (both load on 9.0 only); a kernel without dots keeps sm_90's
check "inspect: sm_90's mma.sync cubin left out beside sm_90a's" bash -c "
	grep -q \"cubin sm_90a (reads tensor maps), Hopper's wgmma code\" '$T/tma9.inspect' && ! grep -q 'cubin sm_90 ' '$T/tma9.inspect'"
# tl.range(..., warp_specialize=True) on sm_90a: a producer warp (the
# block's last, 288 threads) issues the TMA copies and waits on each slot's
# second barrier; the consumers release slots by warp and sync on named
# barrier 1; every thread sets the rings up before the split, and both
# sides meet at barrier 0 where they are put away. sm_80 runs the loop as
# written.
TMAWS='-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -D WARP_SPECIALIZE=True -w 8'
check "tutorial 09's matmul with warp_specialize=True for sm_80 and sm_90a" "$TILEC" compile tests/gpu/kernels/descriptors.py \
	-n matmul_kernel_tma -s "$TMASIG" $TMAWS --arch sm_80,sm_90a -o "$T/ws" --keep-ptx "$T"
check "sm_90a: 288 threads; full and empty barriers (2 rings x 3 tiles each); the consumers release by warp" bash -c "
	grep -qE '[.]reqntid 288(, 1, 1)?$' '$T/ws.sm_90a.ptx' && test \$(grep -c 'mbarrier.init.shared::cta.b64 \[%r[0-9]*\], 1;' '$T/ws.sm_90a.ptx') -ge 6 &&
	test \$(grep -c 'mbarrier.init.shared::cta.b64 \[%r[0-9]*\], 8;' '$T/ws.sm_90a.ptx') -ge 6 &&
	test \$(grep -c 'mbarrier.arrive.shared::cta.b64 _' '$T/ws.sm_90a.ptx') -ge 2 &&
	test \$(grep -c 'mbarrier.try_wait.parity' '$T/ws.sm_90a.ptx') -ge 4"
check "sm_90a: the rings set up before the split, then named barrier 1 over the 256 consumer threads" awk '
	/bar\.sync/ { last_block = NR }
	/barrier\.sync[ \t]+1, 256;/ && !first_named { first_named = NR }
	/barrier\.sync[ \t]+0;/ { teardown++ }
	/mbarrier\.init/ { last_init = NR }
	END { exit !(first_named && last_block < first_named && last_init < last_block && teardown >= 2) }' "$T/ws.sm_90a.ptx"
check "sm_80: the loop as written" bash -c "grep -qE '[.]reqntid 256(, 1, 1)?$' '$T/ws.sm_80.ptx' && ! grep -q 'mbarrier' '$T/ws.sm_80.ptx'"
"$TILEC" inspect "$T/ws.c" >"$T/ws.inspect" 2>&1
check "inspect: one producer warp, run where the image is warp-specialized (sm_90a's)" bash -c "
	grep -q '1 producer warp where the image is warp-specialized' '$T/ws.inspect' &&
	grep -q 'cubin sm_90a (reads tensor maps), Hopper.s wgmma code, warp-specialized (producer warps)' '$T/ws.inspect' &&
	! grep -q 'sm_80.*warp-specialized' '$T/ws.inspect' && grep -q '(+1 producer warp on sm_90a)' '$T/ws.h'"
if [ -n "$PTXAS" ]; then
	"$PTXAS" -arch=sm_90a -v "$T/ws.sm_90a.ptx" -o "$T/ws.cubin" >"$T/ws.ptxas" 2>&1
	check "warp-specialized matmul: ptxas assembles it, no spills" grep -q "0 bytes spill stores, 0 bytes spill loads" "$T/ws.ptxas"
fi
# TMA rings of 3 tiles (2 stages) end in three 8-byte barriers: the scratch
# above them (attention's Q staged for ldmatrix) stays 16-byte aligned
check "attention d128, BLOCK_N 128, 2 stages, sm_90a" "$TILEC" compile tests/gpu/kernels/attention.py -n attn_fwd_desc \
	-s '*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32, i32, i32:16' -D HEAD_DIM=128 -D BLOCK_M=128 -D BLOCK_N=128 \
	-D STAGE=1 -w 8 -ns 2 --arch sm_90a -o "$T/ns2" --keep-ptx "$T"
check "... its 16-byte shared accesses at 16-byte aligned offsets" bash -c "
	grep -oE '(st|ld)[.]shared[.]v4[.][a-z0-9]+[[:space:]]+\\[%r[0-9]+[+][0-9]+\\]|ldmatrix[^[]*\\[%r[0-9]+[+][0-9]+\\]' '$T/ns2.sm_90a.ptx' |
	grep -oE '[+][0-9]+\\]' | tr -d '+]' | awk '\$1 % 16 { bad++ } END { exit !(NR >= 8 && !bad) }'"
# attention in fp8 (tutorial 06's fp8 mode): both dots on e5m2 wgmma (V
# stored transposed, so both operands are K-major), P cast to e5m2 as the
# second dot's A
FP8SIG='*fp8e5:16, *fp8e5:16, *fp8e5:16, *fp16:16, fp32, i32, i32, i32:16'
check "fp8 attention d128, sm_90a" "$TILEC" compile tests/gpu/kernels/attention.py -n attn_fwd_desc -s "$FP8SIG" \
	-D HEAD_DIM=128 -D BLOCK_M=128 -D BLOCK_N=64 -D STAGE=1 -D FP8=True -w 8 -ns 3 --arch sm_90a -o "$T/fp8a" \
	--keep-ptx "$T"
check "... both dots on e5m2 wgmma, P cast in pairs" bash -c "
	grep -q 'wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2' '$T/fp8a.sm_90a.ptx' &&
	grep -q 'wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e5m2' '$T/fp8a.sm_90a.ptx' &&
	grep -q 'cvt.rn.satfinite.e5m2x2.f32' '$T/fp8a.sm_90a.ptx'"
# turns (nvptx/warpspec.c): the matmul's loop has one dot, so its consumers
# issue freely; attention's two consumer warpgroups (8 warps) take turns at
# its two dots: each starts a turn with bar.sync on its own named barrier
# (2 or 3) before the P @ V dot and ends it with bar.arrive on the other's
# after the next scores dot; group 1 arrives first, group 0 ends last
check "warp-specialized matmul: no turns (one dot)" bash -c "! grep -q 'bar.arrive' '$T/ws.sm_90a.ptx'"
ATTNWS='-D BLOCK_M=128 -D BLOCK_N=64 -D STAGE=1 -D WARP_SPECIALIZE=True -w 8 -ns 3'
ATTNSIG='*fp16:16, *fp16:16, *fp16:16, *fp16:16, fp32, i32, i32, i32:16'
for d in 64 128; do
	check "attention d$d, warp_specialize, 8 warps, sm_90a" "$TILEC" compile tests/gpu/kernels/attention.py \
		-n attn_fwd_desc -s "$ATTNSIG" -D HEAD_DIM=$d $ATTNWS --arch sm_90a -o "$T/wsa$d" --keep-ptx "$T"
	check "... its warpgroups take turns: arrive before the loop, sync after the scores' wait, arrive after their commit" awk '
		/bar\.arrive [23], 256;/ { arrive++; if (!fence) pre_arrive++ }
		/bar\.sync [23], 256;/ { sync++; if (fence && !between) between = NR }
		/wgmma\.commit_group/ { commit++; if (commit == 1) first_commit = NR }
		/wgmma\.fence/ { fence++ }
		/bar\.sync[ \t]+0;|barrier\.sync[ \t]+1, 256;/ { if (fence && commit < 2) inside++ }
		END { exit !(arrive == 4 && sync == 4 && pre_arrive == 1 && between > first_commit && !inside) }' "$T/wsa$d.sm_90a.ptx"
done
# where the rings alone keep a second block off the SM (d128: 160 KB) the
# producer is a warp group that hands registers to the consumers: 384
# threads enter at 168 registers, the producer drops to 40 and the two
# consumer groups rise to 232; ptxas then keeps their wgmma asynchronous
# (at 288 threads it held them to 168 and serialized them: C7512); d64's
# rings let a second block in, so one producer warp; the matmul's one dot
# keeps one producer warp too
check "attention d128: a producer warp group handing registers to the consumers" bash -c "
	grep -qE '[.]reqntid 384(, 1, 1)?$' '$T/wsa128.sm_90a.ptx' && grep -qE '^[.]maxnreg 168$' '$T/wsa128.sm_90a.ptx' &&
	grep -q 'setmaxnreg.dec.sync.aligned.u32 40;' '$T/wsa128.sm_90a.ptx' && grep -q 'setmaxnreg.inc.sync.aligned.u32 232;' '$T/wsa128.sm_90a.ptx'"
check "attention d64 and the matmul: one producer warp, no setmaxnreg" bash -c "
	grep -qE '[.]reqntid 288(, 1, 1)?$' '$T/wsa64.sm_90a.ptx' && ! grep -q setmaxnreg '$T/wsa64.sm_90a.ptx' '$T/ws.sm_90a.ptx'"
"$TILEC" compile tests/gpu/kernels/attention.py -n attn_fwd_desc -s "$ATTNSIG" -D HEAD_DIM=128 $ATTNWS --arch sm_90a -o "$T/wsa128i" >/dev/null 2>&1
check "inspect: 4 producer warps" bash -c "'$TILEC' inspect '$T/wsa128i.c' | grep -q '4 producer warps where the image is warp-specialized' &&
	grep -q '(+4 producer warps on sm_90a)' '$T/wsa128i.h'"
if [ -n "$PTXAS" ]; then
	"$PTXAS" -arch=sm_90a -v "$T/wsa128.sm_90a.ptx" -o "$T/wsa128.cubin" >"$T/wsa128.ptxas" 2>&1
	check "warp-specialized attention d128: ptxas assembles it at 168 registers, no spills, its wgmma not serialized" bash -c "
		grep -q '0 bytes spill stores, 0 bytes spill loads' '$T/wsa128.ptxas' && grep -q 'Used 168 registers' '$T/wsa128.ptxas' &&
		! grep -q C7512 '$T/wsa128.ptxas'"
fi
# attention backward's shape on wgmma (nvptx/dot_wgmma.c): K, loaded before
# the loop, is staged there once for both dots that read tl.trans(k) as B
# (one tile), and the transposes the loop computes (tl.trans(p),
# tl.trans(ds)) are staged once each, straight from the registers they
# transpose, and read by descriptor
cat > "$T/bwd.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def bwd_like(Q, K, DO, DK, DV, L, n, BLOCK: tl.constexpr, D: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    offs_d = tl.arange(0, D)
    k = tl.load(K + offs[:, None] * D + offs_d[None, :])
    dk = tl.zeros([BLOCK, D], tl.float32)
    dv = tl.zeros([BLOCK, D], tl.float32)
    for start in range(0, n, BLOCK):
        rows = start + offs
        q = tl.load(Q + rows[:, None] * D + offs_d[None, :])
        do = tl.load(DO + rows[:, None] * D + offs_d[None, :])
        p = tl.math.exp2(tl.dot(q, tl.trans(k)) - tl.load(L + rows)[:, None])
        dv += tl.dot(tl.trans(p.to(tl.float16)), do)
        ds = p * tl.dot(do, tl.trans(k))
        dk += tl.dot(tl.trans(ds.to(tl.float16)), q)
    tl.store(DK + offs[:, None] * D + offs_d[None, :], dk.to(tl.float16))
    tl.store(DV + offs[:, None] * D + offs_d[None, :], dv.to(tl.float16))


@triton.jit
def kept3(Q, K, V, W, O, n, BLOCK: tl.constexpr, D: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    offs_d = tl.arange(0, D)
    k = tl.load(K + offs[:, None] * D + offs_d[None, :])
    v = tl.load(V + offs[:, None] * D + offs_d[None, :])
    w = tl.load(W + offs[:, None] * D + offs_d[None, :])
    acc = tl.zeros([BLOCK, BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        q = tl.load(Q + (start + offs)[:, None] * D + offs_d[None, :])
        acc += tl.dot(q, tl.trans(k))
        acc += tl.dot(q, tl.trans(v))
        acc += tl.dot(q, tl.trans(w))
    tl.store(O + offs[:, None] * BLOCK + offs[None, :], acc)


@triton.jit
def dq_like(Q, K, V, DO, DQ, M, Dd, n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):
    offs_m = tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, D)
    q = tl.load(Q + offs_m[:, None] * D + offs_k[None, :])
    do = tl.load(DO + offs_m[:, None] * D + offs_k[None, :])
    m = tl.load(M + offs_m)[:, None]
    di = tl.load(Dd + offs_m)
    dq = tl.zeros([BLOCK_M, D], tl.float32)
    for start in range(0, n, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        kT = tl.load(K + offs_n[None, :] * D + offs_k[:, None])
        vT = tl.load(V + offs_n[None, :] * D + offs_k[:, None])
        p = tl.math.exp2(tl.dot(q, kT) - m)
        dp = tl.dot(do, vT)
        ds = (p * (dp - di[:, None])).to(tl.float16)
        dq += tl.dot(ds, tl.trans(kT))
    tl.store(DQ + offs_m[:, None] * D + offs_k[None, :], dq.to(tl.float16))
EOF
# the async-proxy fences before a kernel's first wgmma.fence: one per tile
# staged before its first dot
fences_before_dots() { awk '/fence\.proxy\.async/ { if (!wf) pre++ } /wgmma\.fence/ { wf++ } END { print pre + 0 }' "$1"; }
check "attention backward's shape, 8 warps, sm_90a" "$TILEC" compile "$T/bwd.py" -n bwd_like \
	-s '*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, i32' -D BLOCK=128 -D D=64 -w 8 -ns 1 \
	--arch sm_90a -o "$T/bwd" --keep-ptx "$T"
check "... K staged once before the loop (and q for the first dot)" test "$(fences_before_dots "$T/bwd.sm_90a.ptx")" = 2
check "... the transposes' A read by descriptor (16 instructions), no transpose through shared memory" bash -c "
	test \$(grep -cE 'wgmma.mma_async[^{]*[{][^}]*[}], %rd[0-9]+, %rd[0-9]+' '$T/bwd.sm_90a.ptx') = 16 &&
	! grep -q 'ld.shared.b16' '$T/bwd.sm_90a.ptx'"
for d in 64 256; do
	check "three loop-invariant B operands, D=$d, sm_90a" "$TILEC" compile "$T/bwd.py" -n kept3 \
		-s '*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, i32' -D BLOCK=128 -D D=$d -w 8 -ns 1 \
		--arch sm_90a -o "$T/kept$d" --keep-ptx "$T"
done
# at D=256 the three tiles (192 KB) and the loop's scratch would pass a
# block's shared memory: the kernel is lowered again, staging them in the loop
check "... kept before the loop at D=64 (three tiles and q)" test "$(fences_before_dots "$T/kept64.sm_90a.ptx")" = 4
check "... staged in the loop at D=256, where they leave no room" test "$(fences_before_dots "$T/kept256.sm_90a.ptx")" = 1
# a wgmma group reads the operands staged for it until it is waited for:
# dq's loop moves di[:, None] into the scores' layout through the scratch
# while the dp dot's group, whose B (vT, [64, 16] fp16: 2 KB) was staged
# there, is in flight; the write goes above the tile (lw_smem_need), so
# every store while a group is in flight is 2048 bytes or more into the
# scratch (and there is one: the build before this rule waited instead)
check "an attention backward's dq loop, sm_90a" "$TILEC" compile "$T/bwd.py" -n dq_like \
	-s '*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32' -D BLOCK_M=128 -D BLOCK_N=16 -D D=64 \
	-ns 1 --arch sm_90a -o "$T/dq" --keep-ptx "$T"
check "... shared-memory stores while a group is in flight only above the operands staged for it" awk '
	/wgmma\.commit_group/ { flight = 1 } /wgmma\.wait_group/ { flight = 0 }
	/st\.shared/ { if (flight) { n++; if (!match($0, /\+[0-9]+\]/) || substr($0, RSTART + 1, RLENGTH - 2) + 0 < 2048) bad++ } }
	END { exit bad > 0 || n == 0 }' "$T/dq.sm_90a.ptx"
# K offsets carried through a loop and broadcast along both operands' K
# (`offs_k += BLOCK_K`; A's mask takes offs_k[None, :], B's offs_k[:, None]):
# recomputed from the induction variable in each layout (passes/carried.c),
# no mask byte moves through shared memory (16 stores of them and 6 barriers
# before the first dot in the build before)
bars_to_dot() { # barriers from a loop's first wait for its copies to its first dot
	# LLVM 22 writes a tab after an instruction with operands, LLVM 19 a space
	awk '/cp\.async\.wait_group[[:space:]]+[0-9];/ && !on { on = 1 } on && /bar\.sync/ { n++ }
		on && /mma\.sync|wgmma\.mma_async/ { print n + 0; exit }' "$1"
}
check "a matmul with carried K offsets compiles" "$TILEC" compile tests/gpu/kernels/dots.py -n matmul_carried_k_kernel \
	-s '*fp16:16, *fp16:16, *fp16:16, i32, i32, i32' -D BLOCK_M=64 -D BLOCK_N=64 -D BLOCK_K=32 -D STEP_FROM=3 \
	--arch sm_90a,compute_80 -o "$T/ck" --keep-ptx "$T"
check "... no mask byte through shared memory, sm_90a and compute_80" bash -c "
	! grep -q 'st.shared.u8' '$T/ck.sm_90a.ptx' && ! grep -q 'st.shared.u8' '$T/ck.compute_80.ptx'"
check "... one barrier from the wait to the first wgmma" test "$(bars_to_dot "$T/ck.sm_90a.ptx")" = 1
# vLLM's AWQ GEMM: the same carried offsets; its packed weights and zero
# points (rows a dot reads only after unpacking by tl.interleave, shifts
# and a scale: 12 ops deep) are copied ahead into rings, read in layouts
# of their own shape (all threads unpack, not a quarter of them) and the
# zero row comes out of its joins in the broadcast's layout: 3 barriers
# to the first mma.sync (the wait, the staged tile's two), 8 before
AWQ=tests/corpus/vllm/vllm/model_executor/layers/quantization/awq_triton.py
check "vLLM's AWQ GEMM compiles, sm_90a" "$TILEC" compile $AWQ -n awq_gemm_kernel \
	-s '*fp16:16, *i32:16, *fp16:16, *i32:16, *fp16:16, i32:16, i32:16, i32:16, i32:16' -D BLOCK_SIZE_M=32 \
	-D BLOCK_SIZE_N=32 -D BLOCK_SIZE_K=32 -D SPLIT_K=8 -I tests/corpus/vllm --arch sm_90a -o "$T/awq" --keep-ptx "$T"
check "... weights and zeros copied ahead: 9 cp.async copies (3 before), 3 global loads (7 before)" bash -c "
	test \$(grep -c 'cp\.async\.c[ag]\.shared' '$T/awq.sm_90a.ptx') = 9 && test \$(grep -c 'ld\.global' '$T/awq.sm_90a.ptx') = 3"
check "... 3 barriers from the wait to the first mma.sync" test "$(bars_to_dot "$T/awq.sm_90a.ptx")" = 3
check "... no mask byte through shared memory" bash -c "! grep -q 'st.shared.u8' '$T/awq.sm_90a.ptx'"
# the same unpacking with a zero row and a scale row a group, each copied
# ahead into a ring: the zero row comes out of its joins, and the scale
# row is read from its ring, in the layout of the block they are
# broadcast over; nothing else moves (12 barriers to the first mma.sync
# two builds before, 7 in the build before)
check "an int4 matmul with packed zero points and scale rows compiles" "$TILEC" compile tests/gpu/kernels/dots.py \
	-n matmul_packed_w4_kernel -s '*fp16:16, *i32:16, *i32:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16' -D GROUP=128 \
	-D BLOCK_M=32 -D BLOCK_N=64 -D BLOCK_K=32 --arch sm_90a -o "$T/pw4" --keep-ptx "$T"
check "... 3 barriers from the wait to the first mma.sync" test "$(bars_to_dot "$T/pw4.sm_90a.ptx")" = 3
# SGLang's LoRA B: a [16, 16] x [16, 256] dot, then the [16, 256] output
# block loaded, added and stored. The default 2-D layout is cut for the
# [16, 16] operand; the block loaded in it was fetched by all 4 warps (16
# 16-byte loads a thread, warp 0 storing); its own shape's layout: 4 each
LORAB=tests/corpus/sglang/python/sglang/srt/lora/triton_ops/sgemm_lora_b.py
check "SGLang's LoRA B compiles" "$TILEC" compile $LORAB -n _sgemm_lora_b_kernel \
	-s '*bf16:16, *bf16:16, *bf16:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:16, i32:1, i32:16, i32:1, *i32:16, *i32:16, *i32:16, i1:1, fp32' \
	-D BLOCK_S=16 -D BLOCK_N=256 -D BLOCK_K=16 -I tests/corpus/sglang -I tests/corpus/sglang/python --arch sm_90a \
	-o "$T/lorab" --keep-ptx "$T"
check "... the output block loaded and stored once: 4 16-byte loads and 4 stores a thread (16 and 16 before)" bash -c "
	test \$(grep -c 'ld\.global\.v4' '$T/lorab.sm_90a.ptx') = 4 && test \$(grep -c 'st\.global\.v4' '$T/lorab.sm_90a.ptx') = 4"
# its qkv form returns early for rank 0, so its epilogue lies under an if:
# the block it loads is still where the sum is taken (the result moves
# once, 4 shared stores; before, the block moved into the result's
# fragments and the sum out again: 12)
check "SGLang's qkv LoRA B compiles" "$TILEC" compile tests/corpus/sglang/python/sglang/srt/lora/triton_ops/qkv_lora_b.py \
	-n _qkv_lora_b_kernel -s '*bf16:16, *bf16:16, *bf16:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:16, i32:1, i32:16, i32:1, *i32:16, *i32:16, *i32:16, *i32:16, *i32:16, *fp32:16' \
	-D BLOCK_S=16 -D BLOCK_N=64 -D BLOCK_K=16 -I tests/corpus/sglang -I tests/corpus/sglang/python --arch sm_90a \
	-o "$T/qkvlorab" --keep-ptx "$T"
check "... its epilogue moves one block through shared memory: 4 stores after the last mma.sync (12 before)" test \
	"$(awk '/mma\.sync/ { n = 0 } /st\.shared/ { n++ } END { print n + 0 }' "$T/qkvlorab.sm_90a.ptx")" = 4
# bitsandbytes' NF4 dequantization: [256] packed bytes and their scales
# for a [512] output; the default 1-D layout, cut for [512], held each
# byte twice: 2 bytes a thread now, and 2 scale loads (4 bytes, 4 before)
check "bitsandbytes' NF4 dequantization compiles" "$TILEC" compile \
	tests/corpus/bitsandbytes/bitsandbytes/backends/triton/kernels_4bit.py -n dequant_nf4_kernel \
	-s '*u8:16, *bf16:16, *fp32:16, i32:16, i32:16' -D QUANT_BLOCK=64 -D SPLIT_SIZE=256 -I tests/corpus/bitsandbytes \
	--arch sm_90a -o "$T/nf4" --keep-ptx "$T"
check "... each packed byte loaded once: one 2-byte load and 2 scale loads a thread (4 bytes and 4 before)" bash -c "
	test \$(grep -c 'ld\.global' '$T/nf4.sm_90a.ptx') = 3 && grep -q 'ld\.global\.b16' '$T/nf4.sm_90a.ptx'"
# FLA's layer norm: 100 of 128 columns masked in runs of 4, its weights'
# pointers allow 8 (G = 1: `o_t % G` is 0); the layout is as wide as the
# pointers, so a row is reduced over 16 lanes: 4 shuffles a row for each
# of 4 rows a thread, twice (80 before: 5 for each of 8 rows)
check "FLA's layer norm compiles" "$TILEC" compile --no-hint-variants tests/corpus/fla/fla/modules/layernorm.py \
	-n layer_norm_fwd_kernel -s '*bf16:16, *bf16:16, *bf16:16, *bf16:16, *bf16:16, *bf16:16, *fp32:16, *fp32:16, fp32, i32' \
	-D G=1 -D D=100 -D BT=32 -D BD=128 -D NB=1 -D IS_RMS_NORM=False -D HAS_RESIDUAL=True -D STORE_RESIDUAL_OUT=True \
	-D HAS_WEIGHT=True -D HAS_BIAS=True -I tests/corpus/fla --arch sm_90a -o "$T/flaln" --keep-ptx "$T"
check "... 8 elements of a row a thread: 32 shuffles (80 before), 8-byte loads" bash -c "
	test \$(grep -c 'shfl\.sync' '$T/flaln.sm_90a.ptx') = 32 && test \$(grep -c 'ld\.global\.v2\.b32' '$T/flaln.sm_90a.ptx') = 32"
# Mamba's chunk cumsum broadcasts its [8] rows of dt_bias and A against an
# [8, 256] block whose lanes all run along the 256: loaded in the block's
# slice, every lane its row's part, they no longer move through shared
# memory between two barriers each (6 barriers before, the scan's 2 now)
check "Mamba's chunk cumsum compiles" "$TILEC" compile --no-hint-variants \
	tests/corpus/mamba/mamba_ssm/ops/triton/ssd_chunk_state.py -n _chunk_cumsum_fwd_kernel \
	-s '*bf16:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32:16, i32:16, i32:16, fp32, fp32, i32:16, i32:16, i32:1, i32:1, i32:1, i32:16, i32:16, i32:16, i32:1, i32:16, i32:16, i32:16, i32:1' \
	-D DT_SOFTPLUS=True -D HAS_DT_BIAS=True -D BLOCK_SIZE_H=8 -D BLOCK_SIZE_CHUNK=256 -I tests/corpus/mamba \
	--arch sm_90a -o "$T/cumsum" --keep-ptx "$T"
check "... its rows loaded where they are added: 2 barriers (6 before)" test "$(grep -c 'bar\.sync' "$T/cumsum.sm_90a.ptx")" = 2
# Mamba's selective state update loads rows x, D and z, then sums its
# [32, 16] state along the 16 and adds x * D and z's gate to the sum: the
# rows are wanted in the state's slice, where the sum lands (placed_rows),
# and no longer move through shared memory (10 barriers and 5 shared
# stores before: the sum's 2 and four rows moved, 2 each); B, only
# broadcast (B * dt into the state), still moves once
check "Mamba's selective state update compiles" "$TILEC" compile --no-hint-variants \
	tests/corpus/mamba/mamba_ssm/ops/triton/selective_state_update.py -n _selective_scan_update_kernel \
	-s '*fp32:16, *bf16:16, *bf16:16, *fp32:16, *fp32:16, *bf16:16, *bf16:16, *fp32:16, *bf16:16, *bf16:16, *i32:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:16, i32:1, i32:1, i32:16, i32:16, i32:16, i32:1, i32:16, i32:16, i32:1' \
	-w 4 -D DT_SOFTPLUS=True -D TIE_HDIM=True -D BLOCK_SIZE_M=32 -D HAS_DT_BIAS=True -D HAS_D=True -D HAS_Z=True \
	-D HAS_STATE_BATCH_INDICES=False -D BLOCK_SIZE_DSTATE=16 -I tests/corpus/mamba --arch sm_90a -o "$T/ssu" --keep-ptx "$T"
check "... its rows loaded in the state's slice: 2 barriers, 1 shared store (10 and 5 before)" bash -c "
	[ \$(grep -c 'bar\.sync' '$T/ssu.sm_90a.ptx') = 2 ] && [ \$(grep -c 'st\.shared' '$T/ssu.sm_90a.ptx') = 1 ]"
# FlagGems' reshape_and_cache divides a thread's 8 consecutive indices by
# head_size, a multiple of 16: one quotient serves the 8 (4 divisions a
# thread where there were 32, and the 32 by the unhinted x)
check "FlagGems' reshape_and_cache compiles" "$TILEC" compile --no-hint-variants \
	tests/corpus/flaggems/src/flag_gems/fused/reshape_and_cache.py -n reshape_and_cache_kernel \
	-s '*fp16:16, *fp16:16, *fp16:16, *fp16:16, *i64:16, i32:16, i32:16, i32:16, i32:16, i32:16, i32, *fp32:16, *fp32:16' \
	-D n=4096 -I tests/corpus/flaggems -I tests/corpus/flaggems/src --arch sm_90a -o "$T/rcache" --keep-ptx "$T"
check "... one division by head_size for each 8 indices: 37 divisions (65 before)" test "$(grep -c 'div\.s32' "$T/rcache.sm_90a.ptx")" = 37
# unasked (passes/partition.c): the same attention with its loop not marked
# gets the producer warp group and the turns where it has two consumer
# groups, 3 stages and rings that keep a second block off the SM (d128);
# not at d64 (a second block fits), not with 2 stages, not under
# --no-auto-warp-specialize, not for sm_80
ATTNPLAIN='-D BLOCK_M=128 -D BLOCK_N=64 -w 8 -ns 3'
"$TILEC" compile tests/gpu/kernels/attention.py -n attn_fwd_desc -s "$ATTNSIG" -D HEAD_DIM=128 -D STAGE=1 $ATTNPLAIN \
	--arch sm_80,sm_90a -o "$T/auto128" --keep-ptx "$T" >"$T/auto128.log" 2>&1
check "attention d128 unmarked, 8 warps, 3 stages: specialized unasked, with turns, no warning" bash -c "
	grep -qE '[.]reqntid 384(, 1, 1)?$' '$T/auto128.sm_90a.ptx' && grep -q 'setmaxnreg.inc.sync.aligned.u32 232;' '$T/auto128.sm_90a.ptx' &&
	grep -q 'bar.arrive [23], 256;' '$T/auto128.sm_90a.ptx' && ! grep -q 'reqntid 384' '$T/auto128.sm_80.ptx' &&
	! grep -q warning '$T/auto128.log' && '$TILEC' inspect '$T/auto128.c' | grep -q '4 producer warps where the image is warp-specialized'"
"$TILEC" ir tests/gpu/kernels/attention.py -n attn_fwd_desc -s "$ATTNSIG" -D HEAD_DIM=128 -D STAGE=1 $ATTNPLAIN \
	--pipelined=wgmma >"$T/auto128.ir" 2>&1
check "... tilec ir --pipelined=wgmma shows the partition" bash -c "grep -q '= for spare_tile warp_specialize producer ' '$T/auto128.ir' &&
	test \$(grep -c 'tma_copy map=%[0-9]* producer' '$T/auto128.ir') = 6"
for v in "d64:-D HEAD_DIM=64 -D STAGE=1 $ATTNPLAIN" "causal64:-D HEAD_DIM=64 -D STAGE=3 $ATTNPLAIN" \
	"ns2:-D HEAD_DIM=128 -D STAGE=1 -D BLOCK_M=128 -D BLOCK_N=64 -w 8 -ns 2" \
	"off:-D HEAD_DIM=128 -D STAGE=1 $ATTNPLAIN --no-auto-warp-specialize"; do
	"$TILEC" compile tests/gpu/kernels/attention.py -n attn_fwd_desc -s "$ATTNSIG" ${v#*:} --arch sm_90a \
		-o "$T/auto_${v%%:*}" --keep-ptx "$T" >"$T/auto_${v%%:*}.log" 2>&1
	check "attention unmarked (${v%%:*}): not specialized, no warning" bash -c "
		grep -qE '[.]reqntid 256(, 1, 1)?$' '$T/auto_${v%%:*}.sm_90a.ptx' && ! grep -q warning '$T/auto_${v%%:*}.log'"
done
# fp8 at d128: rings small enough for a second block, but the dots'
# accumulators alone (96 registers a thread) keep it off: not specialized;
# the loop is marked keep_a, Q staged once into shared memory and read by
# descriptor (no A fragments held), so that two blocks fit; d64's 64
# accumulator registers leave it alone (Q held as fragments)
ATTN8SIG='*fp8e5:16, *fp8e5:16, *fp8e5:16, *fp16:16, fp32, i32:16, i32:16, i32:16'
for d in 128 64; do
	"$TILEC" compile tests/gpu/kernels/attention.py -n attn_fwd_desc -s "$ATTN8SIG" -D HEAD_DIM=$d -D STAGE=1 \
		-D FP8=True $ATTNPLAIN --arch sm_90a -o "$T/auto8_$d" --keep-ptx "$T" >"$T/auto8_$d.log" 2>&1
	check "fp8 attention d$d unmarked, 8 warps: 256 threads, no warning" bash -c "
		grep -qE '[.]reqntid 256(, 1, 1)?\$' '$T/auto8_$d.sm_90a.ptx' && ! grep -q warning '$T/auto8_$d.log'"
	"$TILEC" ir tests/gpu/kernels/attention.py -n attn_fwd_desc -s "$ATTN8SIG" -D HEAD_DIM=$d -D STAGE=1 -D FP8=True \
		$ATTNPLAIN --pipelined=wgmma >"$T/auto8_$d.ir" 2>&1
done
check "... d128: the loop keep_a, the scores dot's A (Q) by descriptor" bash -c "
	grep -q '= for .*keep_a' '$T/auto8_128.ir' &&
	grep -qE 'wgmma.mma_async.sync.aligned.m64n64k32[^{]*[{][^}]*[}], %rd' '$T/auto8_128.sm_90a.ptx' &&
	! grep -qE 'wgmma.mma_async.sync.aligned.m64n64k32[^{]*[{][^}]*[}], [{]' '$T/auto8_128.sm_90a.ptx'"
check "... d64: no keep_a, the scores dot's A from registers" bash -c "
	! grep -q 'keep_a' '$T/auto8_64.ir' && grep -qE 'wgmma.mma_async[^{]*[{][^}]*[}], [{]' '$T/auto8_64.sm_90a.ptx'"
# causal (a second loop, the diagonal's, which would hold Q as fragments):
# specialized unasked, one producer warp, no keep_a
"$TILEC" compile tests/gpu/kernels/attention.py -n attn_fwd_desc -s "$ATTN8SIG" -D HEAD_DIM=128 -D STAGE=3 -D FP8=True \
	$ATTNPLAIN --arch sm_90a -o "$T/auto8c" --keep-ptx "$T" >"$T/auto8c.log" 2>&1
"$TILEC" ir tests/gpu/kernels/attention.py -n attn_fwd_desc -s "$ATTN8SIG" -D HEAD_DIM=128 -D STAGE=3 -D FP8=True \
	$ATTNPLAIN --pipelined=wgmma >"$T/auto8c.ir" 2>&1
check "fp8 causal attention d128 unmarked: 288 threads, no keep_a, no warning" bash -c "
	grep -qE '[.]reqntid 288(, 1, 1)?\$' '$T/auto8c.sm_90a.ptx' && ! grep -q keep_a '$T/auto8c.ir' &&
	! grep -q warning '$T/auto8c.log'"
# the causal kernel's two loops (off the diagonal, then on it, each with
# rings of its own): the first gets the producer, the consumers run the
# diagonal's copies themselves (thread 0, no releases); marked, the second
# loop gets a warning
"$TILEC" compile tests/gpu/kernels/attention.py -n attn_fwd_desc -s "$ATTNSIG" -D HEAD_DIM=128 -D STAGE=3 $ATTNPLAIN \
	--arch sm_90a -o "$T/autoc" --keep-ptx "$T" >"$T/autoc.log" 2>&1
check "causal attention d128 unmarked: its first loop specialized, with turns, no warning" bash -c "
	grep -qE '[.]reqntid 384(, 1, 1)?$' '$T/autoc.sm_90a.ptx' && test \$(grep -c 'bar.arrive [23], 256;' '$T/autoc.sm_90a.ptx') = 4 &&
	! grep -q warning '$T/autoc.log'"
check "... the consumers copy the diagonal loop's tiles: more copies than the non-causal kernel's producer issues" bash -c "
	test \$(grep -c 'cp.async.bulk.tensor.2d.shared' '$T/autoc.sm_90a.ptx') -gt \$(grep -c 'cp.async.bulk.tensor.2d.shared' '$T/auto128.sm_90a.ptx')"
"$TILEC" ir tests/gpu/kernels/attention.py -n attn_fwd_desc -s "$ATTNSIG" -D HEAD_DIM=128 -D STAGE=3 $ATTNPLAIN \
	--pipelined=wgmma >"$T/autoc.ir" 2>&1
check "... tilec ir: one loop and the copies into its rings marked, the diagonal's not" bash -c "
	test \$(grep -c '= for .*warp_specialize producer' '$T/autoc.ir') = 1 && test \$(grep -c 'tma_copy map=%[0-9]* producer' '$T/autoc.ir') = 6 &&
	test \$(grep -c 'tma_copy map=%[0-9]* %' '$T/autoc.ir') = 6"
"$TILEC" compile tests/gpu/kernels/attention.py -n attn_fwd_desc -s "$ATTNSIG" -D HEAD_DIM=128 -D STAGE=3 \
	-D WARP_SPECIALIZE=True $ATTNPLAIN --arch sm_90a -o "$T/wsc" >"$T/wsc.log" 2>&1
check "causal attention marked: a warning for the second loop only" bash -c "
	test \$(grep -c 'warning: warp_specialize=True: the loop runs without a producer warp: only a kernel.s first such loop gets one' '$T/wsc.log') = 1 &&
	test \$(grep -c warning '$T/wsc.log') = 1"
check "tilec ir shows the loop's warp_specialize" bash -c "'$TILEC' ir tests/gpu/kernels/descriptors.py -n matmul_kernel_tma \
	-s \"$TMASIG\" $TMAWS | grep -q '= for warp_specialize '"
# the partition (passes/partition.c): the producer's loop, its four
# copies and their scalars marked; the dots, tiles and accumulator not
"$TILEC" ir tests/gpu/kernels/descriptors.py -n matmul_kernel_tma -s "$TMASIG" $TMAWS --pipelined=wgmma >"$T/ws.ir" 2>&1
check "tilec ir --pipelined=wgmma marks the producer's program" bash -c "
	grep -q '= for warp_specialize producer ' '$T/ws.ir' && test \$(grep -c 'tma_copy map=%[0-9]* producer' '$T/ws.ir') = 6 &&
	grep -q '= program_id axis=0 producer : i32' '$T/ws.ir' && ! grep producer '$T/ws.ir' | grep -v ' = for ' | grep -q ': <' &&
	! grep -q 'dot.*producer\|local_load.*producer\|tma_wait.*producer' '$T/ws.ir'"
# where it cannot: a warning says why, and the loop runs as written
check "warp_specialize on a persistent loop over tiles: a warning, no producer" "$TILEC" compile tests/gpu/kernels/descriptors.py \
	-n matmul_kernel_tma_persistent -s "$TMASIG" -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 \
	-D EPILOGUE_SUBTILE=False -D NUM_SMS=132 -D WARP_SPECIALIZE=True -w 8 --arch sm_90a -o "$T/wsp" --keep-ptx "$T"
cp "$T/out" "$T/wsp.log"
check "... which names the reason" bash -c "grep -q 'warp_specialize=True: the loop runs without a producer warp: its copies are issued in a loop inside it' '$T/wsp.log' &&
	grep -qE '[.]reqntid 256(, 1, 1)?$' '$T/wsp.sm_90a.ptx'"
check "warp_specialize under --no-tma: a warning" "$TILEC" compile tests/gpu/kernels/descriptors.py \
	-n matmul_kernel_tma -s "$TMASIG" $TMAWS --arch sm_90a --no-tma -o "$T/wsn" --keep-ptx "$T"
cp "$T/out" "$T/wsn.log"
check "... its loads are copied by cp.async" bash -c "grep -q 'warp_specialize=True: the loop runs without a producer warp: a load is copied by cp.async, not TMA' '$T/wsn.log' &&
	grep -qE '[.]reqntid 256(, 1, 1)?$' '$T/wsn.sm_90a.ptx'"
cat >"$T/wsbad.py" <<'PY'
import triton
import triton.language as tl


@triton.jit
def k(x, n):
    for i in tl.range(0, n, warp_specialize=n):
        tl.store(x + i, i)


@triton.jit
def nested(x, n):
    for j in range(2):
        for i in tl.range(0, n, warp_specialize=True):
            tl.store(x + j * n + i, i)
PY
expect_error "warp_specialize given a runtime value" "warp_specialize. must be a constexpr bool" \
	"$TILEC" compile "$T/wsbad.py" -n k -s '*i32, i32' --arch sm_80 -o "$T/wsbad"
check "warp_specialize on a nested loop for sm_90a" "$TILEC" compile "$T/wsbad.py" -n nested -s '*i32, i32' --arch sm_90a \
	-o "$T/wsnest"
cp "$T/out" "$T/wsnest.log"
check "... a warning at that loop: not at the kernel's top level" \
	grep -q "wsbad.py:14:.*warning: warp_specialize=True: the loop runs without a producer warp: the loop is not at the kernel.s top level" "$T/wsnest.log"
check "--arch sm_90 on a matmul" "$TILEC" compile $K/matmul.py -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=128 \
	-D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -w 8 --arch sm_90 -o "$T/h90" --keep-ptx "$T/h90.ptx" -v
cp "$T/out" "$T/h90.log"
check "-v reports the plain cubin as not kept" grep -q "sm_90: .*(not kept: the arch-specific cubin replaces it)" "$T/h90.log"
"$TILEC" inspect "$T/h90.c" >"$T/h90.inspect" 2>&1
check "--arch sm_90: an sm_90a cubin and compute_90 PTX, no sm_90 cubin" bash -c "
	grep -q 'image 0: group 0, cubin sm_90a, Hopper' '$T/h90.inspect' && grep -q 'image 1: group 0, ptx sm_90,' '$T/h90.inspect' &&
	! grep -q 'image 2' '$T/h90.inspect' && grep -q wgmma '$T/h90.ptx/h90.sm_90a.ptx' &&
	grep -q mma.sync '$T/h90.ptx/h90.compute_90.ptx' && ! grep -q wgmma '$T/h90.ptx/h90.compute_90.ptx'"
check "the same with --arch sm_90a" "$TILEC" compile $K/matmul.py -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=128 \
	-D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -w 8 --arch sm_90a -o "$T/h90a" --keep-ptx "$T/h90a.ptx"
check "--arch sm_90's sm_90a code is --arch sm_90a's" cmp "$T/h90.ptx/h90.sm_90a.ptx" "$T/h90a.ptx/h90a.sm_90a.ptx"
check "--arch hopper is --arch sm_90" "$TILEC" compile $VA -n add_kernel -s "$VSIG, 1024" --arch hopper -o "$T/hva"
"$TILEC" inspect "$T/hva.c" >"$T/hva.inspect" 2>&1
check "a kernel without dots keeps the plain sm_90 cubin" bash -c "
	grep -q 'cubin sm_90,' '$T/hva.inspect' && ! grep -q 'sm_90a' '$T/hva.inspect'"
if [ -n "$PTXAS" ]; then
	"$PTXAS" -arch=sm_90 -v "$T/tma9.sm_90.ptx" -o "$T/tma9.cubin" >"$T/tma9.ptxas" 2>&1
	check "sm_90 TMA matmul on mma.sync: ptxas assembles it, no spills" grep -q "0 bytes spill stores, 0 bytes spill loads" "$T/tma9.ptxas"
fi
check "--no-tma on sm_90a" "$TILEC" compile tests/gpu/kernels/descriptors.py -n matmul_kernel_tma -s "$TMASIG" $TMADEF \
	--arch sm_90a --no-tma -o "$T/notma" --keep-ptx "$T"
check "--no-tma: no TMA, no tensor-map parameter" bash -c "grep -q 'cp.async.wait_group' '$T/notma.sm_90a.ptx' &&
	! grep -q 'bulk.tensor\|\[128\]' '$T/notma.sm_90a.ptx'"
check "tilec ir --pipelined=wgmma: descriptor blocks by TMA" "$TILEC" ir tests/gpu/kernels/descriptors.py -n matmul_kernel_tma \
	-s "$TMASIG" $TMADEF --pipelined=wgmma
cp "$T/out" "$T/tma.ir"
check "--pipelined=wgmma: TMA rings, copies and waits" bash -c "grep -q 'local_alloc tma : smem<3x128x64xfp16>' '$T/tma.ir' &&
	grep -q 'tma_copy map=%5 ' '$T/tma.ir' && grep -q 'tma_wait ' '$T/tma.ir' && ! grep -q 'async_copy' '$T/tma.ir'"
# a persistent loop over tiles around the K loop: the TMA copies run on
# from one tile into the next, the rings living around the outer loop and
# the next tile's coordinates computed in an if where the K index wraps;
# through registers (--pipelined, mma.sync) the rings stay per tile
PERSIG='*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16'
PERDEF=(-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -D EPILOGUE_SUBTILE=False
	-D WARP_SPECIALIZE=False -D FLATTEN=True -D NUM_SMS=132 -w 8)
check "tilec ir --pipelined=wgmma: tutorial 09's persistent matmul" "$TILEC" ir tests/gpu/kernels/descriptors.py \
	-n matmul_kernel_descriptor_persistent -s "$PERSIG" "${PERDEF[@]}" --pipelined=wgmma
cp "$T/out" "$T/persist.ir"
# indentation: 2 spaces at the kernel's level, 4 in the loop over tiles, 6 in the K loop
check "persistent: rings and the first copies before the loop over tiles, freed after it" awk '
	/^  %[0-9]+ = local_alloc tma/ && !outer { rings++ }
	/^  tma_copy / && !outer { first++ }
	/^  %.* = for / { outer = 1 }
	/^  local_dealloc/ && outer { freed++ }
	/^    %[0-9]+ = local_alloc/ { inside = 1 }
	END { exit !(rings == 2 && first == 4 && freed == 2 && !inside) }' "$T/persist.ir"
check "persistent: the K loop copies ahead and computes the next tile's coordinates in an if" bash -c "
	grep -q '^      tma_copy map=%6 ' '$T/persist.ir' && grep -q '^      %[0-9]*, %[0-9]* = if ' '$T/persist.ir'"
check "tilec ir --pipelined: the same kernel for mma.sync" "$TILEC" ir tests/gpu/kernels/descriptors.py \
	-n matmul_kernel_descriptor_persistent -s "$PERSIG" "${PERDEF[@]}" --pipelined
cp "$T/out" "$T/persist80.ir"
check "--pipelined: rings per tile, inside the loop over tiles" bash -c "grep -q '^    %[0-9]* = local_alloc ' '$T/persist80.ir' &&
	! grep -q '^  %[0-9]* = local_alloc ' '$T/persist80.ir'"
# the tutorial's plain persistent matmul (pointers): its cp.async copies run
# on as well, the tile's rows, tensors of the loop over tiles, computed again
# with each copy from the scalars the if carries (K unaligned here, so its
# masks cut the copies into 2-byte pieces and the rings keep two stages on
# wgmma: one copy a ring before the loop)
PTRSIG='*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1'
PTRDEF=(-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -D NUM_SMS=132 -w 8)
check "tilec ir --pipelined=wgmma: the pointer persistent matmul" "$TILEC" ir tests/gpu/kernels/descriptors.py \
	-n matmul_kernel_persistent -s "$PTRSIG" "${PTRDEF[@]}" --pipelined=wgmma
cp "$T/out" "$T/persistptr.ir"
check "pointer persistent: cp.async rings and the first copies before the loop over tiles" awk '
	/^  %[0-9]+ = local_alloc : smem/ && !outer { rings++ }
	/^  async_copy / && !outer { first++ }
	/^  %.* = for / { outer = 1 }
	/^    %[0-9]+ = local_alloc/ { inside = 1 }
	END { exit !(rings == 2 && first == 2 && !inside) }' "$T/persistptr.ir"
check "pointer persistent: the K loop copies the rows of a tile ahead, carrying scalars only" bash -c "
	grep -q '^      async_copy ' '$T/persistptr.ir' && grep -q '^      %[0-9]* = arange 0, 128 ' '$T/persistptr.ir' &&
	grep -q '^      %[0-9]*, %[0-9]* = if %[0-9]* : i32, i32 {' '$T/persistptr.ir'"
# at 128x256x64 the rings (3 stages and a spare tile, 192 KB) kept through
# the epilogue leave no room for the result's 64 KB of scratch: it goes out
# two boxes at a time through 32 KB, the second piece staged once the copy
# engine has read the first (the rings were set up again for each tile)
P256SIG='tensordesc<fp16[128, 64]>, tensordesc<fp16[256, 64]>, tensordesc<fp16[128, 256]>, i32, i32, i32'
P256DEF=(-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=256 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -D EPILOGUE_SUBTILE=False
	-D WARP_SPECIALIZE=False -D NUM_SMS=132 -w 8 -ns 3)
check "tutorial 09's persistent host-descriptor matmul at 128x256x64" "$TILEC" compile tests/gpu/kernels/descriptors.py \
	-n matmul_kernel_tma_persistent -s "$P256SIG" "${P256DEF[@]}" --arch sm_90a -o "$T/p256" --keep-ptx "$T"
check "128x256 persistent: rings freed after the stores, the result in two pieces of two boxes" awk '
	/mbarrier.inval/ && stores == 4 { inval++ }
	/cp.async.bulk.tensor.2d.global.shared::cta.bulk_group/ { stores++; if (inval) late = 1 }
	/cp.async.bulk.commit_group/ { commits++; if (stores != 2 * commits) odd = 1 }
	/cp.async.bulk.wait_group.read 0/ && commits == 1 { waited = 1 }
	/bar.sync/ && waited && stores == 2 { sync = 1 }
	END { exit !(stores == 4 && commits == 2 && inval == 8 && sync && !late && !odd) }' "$T/p256.sm_90a.ptx"
"$TILEC" inspect "$T/p256.c" >"$T/p256.inspect" 2>&1
check "128x256 persistent: within sm_90a's 227 KB" bash -c "
	n=\$(sed -n 's/.*shared 0 static + \([0-9]*\) dynamic.*/\1/p' '$T/p256.inspect'); test -n \"\$n\" && test \"\$n\" -le 232448"
# axis info joins an if's branches: a block pointer advanced by a multiple
# of the block in both keeps its alignment, so the load after the if is
# 16 bytes wide (it took four 4-byte loads for each before)
check "a block pointer advanced in both branches of an if" "$TILEC" compile tests/gpu/kernels/lang.py \
	-n block_ptr_if_kernel -s '*fp32:16, *fp32:16, i32:16' -D BLOCK=1024 -w 4 --arch sm_90a -o "$T/bpif" --keep-ptx "$T"
check "the load after the if: 16-byte loads only" bash -c "
	test \$(grep -c 'ld.global.v4.b32' '$T/bpif.sm_90a.ptx') = 2 && ! grep -q 'ld.global.b32' '$T/bpif.sm_90a.ptx'"
# device-side descriptors the launch arguments determine (base, shape and
# strides parameters and constants): hidden maps the loader builds from the
# blob's recipes; the sm_80-class image reads none of them
DEVSIG='*fp16:16, *fp16:16, *fp16:16, i32, i32, i32'
DEVDEF=(-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -D NUM_SMS=132 -w 8)
check "device-side descriptors for sm_80 and sm_90a" "$TILEC" compile tests/gpu/kernels/descriptors.py \
	-n matmul_descriptor_persistent_kn -s "$DEVSIG" "${DEVDEF[@]}" -g 132 --arch sm_80,sm_90a -o "$T/dev" --keep-ptx "$T"
check "device-side descriptors: sm_90a copies and stores by TMA through three map parameters; sm_80 has neither" bash -c "
	grep -q 'cp.async.bulk.tensor.2d.shared::cluster.global' '$T/dev.sm_90a.ptx' &&
	grep -q 'cp.async.bulk.tensor.2d.global.shared::cta' '$T/dev.sm_90a.ptx' &&
	test \$(grep -c '.param .align 64 .b8 matmul_descriptor_persistent_kn_0_param_[678]\[128\]' '$T/dev.sm_90a.ptx') = 3 &&
	! grep -q 'bulk.tensor' '$T/dev.compute_80.ptx'"
# a kernel whose rings TMA fills commits and waits for no cp.async group,
# and no barrier follows another
check "TMA rings: no cp.async groups, no barrier right after a barrier" bash -c "
	for f in '$T/tma.sm_90a.ptx' '$T/dev.sm_90a.ptx'; do
		! grep -q 'cp.async.commit_group\|cp.async.wait_group' \$f &&
		awk '/bar.sync/ { if (prev) exit 1; prev = 1; next } { prev = 0 }' \$f || exit 1
	done"
"$TILEC" inspect "$T/dev.c" >"$T/dev.inspect" 2>&1
check "inspect: the hidden maps and their recipes" bash -c "grep -q 'param 6 a_ptr_tmap: tensormap fp16 (hidden)' '$T/dev.inspect' &&
	grep -q 'recipe a_ptr_tmap: a_ptr, shape \[M, K\], strides \[K, 1\], block \[128, 64\]' '$T/dev.inspect' &&
	grep -q 'recipe b_ptr_tmap: b_ptr, shape \[K, N\], strides \[N, 1\], block \[64, 128\]' '$T/dev.inspect' &&
	grep -q 'recipe c_ptr_tmap: c_ptr, shape \[M, N\], strides \[N, 1\], block \[128, 128\]' '$T/dev.inspect'"
check "the header says what the hidden maps are" grep -q '(plus 3 TMA maps of descriptors the kernel makes, built by tile_launch from these arguments)' "$T/dev.h"
check "the launch function takes the visible parameters only" grep -q 'matmul_descriptor_persistent_kn(tile_stream stream, tile_deviceptr a_ptr, tile_deviceptr b_ptr, tile_deviceptr c_ptr, int32_t M, int32_t N, int32_t K);' "$T/dev.h"
# tutorial 09's subtiled epilogue (reshape to <128x2x64>, permute to
# <128x64x2>, split): the permuted block had taken the rank's default
# layout, made for <128x2x64>, and held 2048 elements a thread (25 KB of
# spills); it now takes one of its own shape
if [ -n "$PTXAS" ]; then
	check "the subtiled epilogue compiles" "$TILEC" compile tests/gpu/kernels/descriptors.py -n matmul_kernel_descriptor_persistent \
		-s "$DEVSIG" "${DEVDEF[@]}" -D EPILOGUE_SUBTILE=True -D WARP_SPECIALIZE=False -D FLATTEN=True -g 132 --arch sm_90a -o "$T/sub" -v
	cp "$T/out" "$T/sub.v"
	check "the subtiled epilogue does not spill" grep -q "sm_90a: [0-9]* registers, spills 0 bytes stored + 0 loaded" "$T/sub.v"
	# and its split reads the accumulator's registers (fold_split): no
	# moves through shared memory, which took 255 registers
	check "the subtiled epilogue's halves are the accumulator's registers" bash -c \
		"test \$(sed -n 's/.*sm_90a: \([0-9]*\) registers.*/\1/p' '$T/sub.v') -lt 160"
	check "the subtiled epilogue: reshape and permute left out" bash -c "'$TILEC' compile tests/gpu/kernels/descriptors.py \
		-n matmul_kernel_descriptor_persistent -s '$DEVSIG' ${DEVDEF[*]} -D EPILOGUE_SUBTILE=True -D WARP_SPECIALIZE=False \
		-D FLATTEN=True -g 132 --arch sm_90a -o '$T/sub2' --keep-ptx '$T' && test \$(wc -l < '$T/sub2.sm_90a.ptx') -lt 1500"
fi
# the mirror: two dots' results interleaved (join, permute, reshape) are
# the halves' registers (fold_join), where moves through shared memory took
# 255 registers
check "an interleave of two dots' results" "$TILEC" compile tests/gpu/kernels/tier3.py -n dot_halves_join_kernel \
	-s '*fp16:16, *fp16:16, *fp32:16, 128, 128, 64' -w 8 -g 1 --arch sm_90a -o "$T/join" -v
cp "$T/out" "$T/join.v"
check "the interleave takes the halves' registers" bash -c \
	"test \$(sed -n 's/.*sm_90a: \([0-9]*\) registers.*/\1/p' '$T/join.v') -lt 160"
# rotary embedding over interleaved pairs: the split takes the loaded
# pairs' registers in a layout of half the elements a thread, the join gives
# them back; what moves through shared memory is cos and sin (128 shared
# stores, 256 before)
check "RoPE over interleaved pairs" "$TILEC" compile tests/gpu/kernels/tier2.py -n rope_interleaved_kernel \
	-s '*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, 32, 128' -g 'cdiv(n_rows, BLOCK_M)' --arch sm_90a -o "$T/rope" \
	--keep-ptx "$T"
check "RoPE: the split and the join in registers" test "$(grep -c 'st.shared' "$T/rope.sm_90a.ptx")" -le 128
# a bias row added to a dot's result: the row moves into the accumulator's
# layout (one fp32 store a thread), not the broadcast 128x128 block (49
# stores a thread before); the rest of the epilogue's shared stores are the
# fp16 result's on its way to 16-byte global stores (32 stores of 2 halves a
# thread). Counted over both spellings of a 32-bit store: LLVM 19 writes the
# row's as st.shared.f32, LLVM 22 every one as st.shared.b32
for arch in sm_90a sm_80; do
	check "bias + GELU epilogue ($arch)" "$TILEC" compile tests/gpu/kernels/dots.py -n matmul_bias_gelu_kernel \
		-s '*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1' \
		-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 -w 8 -g 1 --arch $arch \
		-o "$T/bias_$arch" --keep-ptx "$T"
	check "bias + GELU: the bias row is moved, not the block ($arch)" \
		test "$(grep -cE 'st\.shared\.[bf]32' "$T/bias_$arch.$arch.ptx")" -eq 33
done
# whole-row GEMVs (decode.py's gemv_rows_kernel, gemv_rows_w8_kernel): x's
# row, broadcast over the weight block, reaches it without shared memory;
# what is left there is the cross-warp sum, one store a warp.
# rows_gemv NAME KERNEL SIGNATURE BLOCK_N ARCH
rows_gemv() {
	check "$1 ($5)" "$TILEC" compile tests/gpu/kernels/decode.py -n "$2" -s "$3" \
		-D BLOCK_N="$4" -D BLOCK_K=4096 -w 8 -g 'cdiv(N, BLOCK_N)' --arch "$5" -o "$T/$2_$5" --keep-ptx "$T"
	check "$1: x's row not moved through shared memory ($5)" \
		test "$(grep -c 'st.shared' "$T/$2_$5.$5.ptx")" -eq 1
}
for arch in sm_90a sm_80; do
	# fp16 rows: the row's blocked layout and the block's sliced along dim
	# 0 put every element in the same register of the same thread, so the
	# row is renamed (16 fp32 stores a thread and two barriers for each
	# row of x before)
	rows_gemv "whole-row GEMV" gemv_rows_kernel \
		'*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16' 1 $arch
	# int8 rows hold 16 elements a thread, x's fp16 row 8 in its own layout:
	# x is loaded in the block's slice (broadcast_row), two 16-byte loads a
	# thread, where it was moved into it (16 fp32 stores, two barriers)
	rows_gemv "int8 whole-row GEMV" gemv_rows_w8_kernel \
		'*fp16:16, *i8:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16' 2 $arch
	check "int8 whole-row GEMV: x's row in 16-byte loads ($arch)" \
		test "$(grep -c 'ld.global.v4' "$T/gemv_rows_w8_kernel_$arch.$arch.ptx")" -eq 4
done
# tl.max(..., return_indices=True) is one index reduction that yields the
# value as well (a max reduction beside it before: 120 max.f32 and half
# the shuffles again)
check "max with indices: one reduction (no max.f32)" bash -c "
	'$TILEC' compile tests/gpu/kernels/tier2.py -n max_indices_kernel -s '*fp32:16, *fp32:16, *i32:16, i32, i32, i32' \
		-D MIN=False -D KEEP=False -D BLOCK_M=4 -D BLOCK_N=1024 -w 4 -g 'cdiv(M, BLOCK_M)' --arch sm_80,sm_90a \
		-o '$T/maxi' --keep-ptx '$T' && ! grep -q 'max.f32' '$T/maxi.compute_80.ptx' && ! grep -q 'max.f32' '$T/maxi.sm_90a.ptx'"
# fits_64k LOG: tilec -v's first line of registers says no spills and at
# most 64 KB of shared memory, static and dynamic together
fits_64k() {
	grep -q 'spills 0 bytes stored' "$1" || return 1
	local kb
	kb=$(sed -n 's/.*, \([0-9]*\) bytes static shared, \([0-9]*\) dynamic.*/\1 + \2/p' "$1" | head -1)
	[ -n "$kb" ] && [ $((kb)) -le 65536 ]
}
# an accumulator that starts from a bias row (zeros + bias[None, :], then
# the K loop, as kernl's linear layer): the sum is computed in the dot's
# layout, the row moved into it, rather than the 128x128 block converted
# through shared memory (before: 255 registers, 0.7-0.8 KB of spills and
# 133120 / 116736 bytes of shared memory on sm_90a / sm_80)
for arch in sm_90a sm_80; do
	check "bias-first matmul ($arch)" "$TILEC" compile tests/gpu/kernels/dots.py -n matmul_bias_first_kernel \
		-s '*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1' \
		-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 -w 4 -ns 4 -g 1 --arch $arch \
		-o "$T/bias_first_$arch" -v
	cp "$T/out" "$T/bias_first_$arch.v"
	check "bias-first matmul: no spills, at most 64 KB of shared memory ($arch)" \
		fits_64k "$T/bias_first_$arch.v"
done
# a wgmma dot whose B is not a ring tile (num_stages=1) stages B N-major,
# the way a row-major B loads: two 16-byte stores a thread (16 two-byte
# stores and a second barrier before), the instruction transposing it
check "unpipelined wgmma matmul" "$TILEC" compile tests/kernels/matmul.py -n matmul_kernel \
	-s '*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1' \
	-D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 -ns 1 -g 1 --arch sm_90a \
	-o "$T/ns1" --keep-ptx "$T"
check "unpipelined wgmma: B staged in 16-byte stores" test "$(grep -c 'st.shared.b16' "$T/ns1.sm_90a.ptx")" -eq 0
check "unpipelined wgmma: two barriers an iteration" \
	test "$(awk '/^\$L__BB0_2:/,/bra.*BB0_2/' "$T/ns1.sm_90a.ptx" | grep -c 'bar.sync')" -eq 2
check "unpipelined wgmma: B transposed by the instruction" grep -q 'wgmma.mma_async.*, 1;$' "$T/ns1.sm_90a.ptx"
# loop strength reduction is off: the copies' row pointers stay loop values,
# each advanced in place (8 B rows a thread), where LSR made two bases and
# recomputed every address from them at the top of the loop
check "4-warp wgmma matmul" "$TILEC" compile tests/kernels/matmul.py -n matmul_kernel -s "$MMSIG" \
	-D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 -ns 4 -g 1 --arch sm_90a \
	-o "$T/mm4w" --keep-ptx "$T"
check "4-warp wgmma matmul: the copies' pointers advanced in place" \
	test "$(awk '/^\$L__BB0_2:/,/bra.*BB0_2/' "$T/mm4w.sm_90a.ptx" | grep -cE 'add\.s64[[:space:]]+(%rd[0-9]+), \1, ')" -ge 8
# variants with different maps: the kernel takes all of them, each variant
# has recipes for its own (a 512-row block has no map: a box holds 256)
cat >"$T/dd.manifest" <<EOF
$ROOT/tests/kernels/descriptors.py desc_dot '*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16' -D BM=64 -D BN=64 -D BK=32 -g 'cdiv(M, BM), cdiv(N, BN)'
$ROOT/tests/kernels/descriptors.py desc_dot '*fp16:16, *fp16:16, *fp32:16, i32, i32, i32' -D BM=512 -D BN=16 -D BK=32 -g 'cdiv(M, BM), cdiv(N, BN)'
EOF
check "variants with different device-side maps" "$TILEC" compile --no-hint-variants -m "$T/dd.manifest" -o "$T/dd" --arch sm_90a
"$TILEC" inspect "$T/dd.c" >"$T/dd.inspect" 2>&1
check "inspect: three maps for the kernel, three recipes in variant 0, b's alone in variant 1" bash -c "
	grep -q 'param 8 c_ptr_tmap: tensormap fp32 (hidden)' '$T/dd.inspect' &&
	test \$(grep -c '    recipe ' '$T/dd.inspect') = 4 &&
	sed -n '/variant 1:/,\$p' '$T/dd.inspect' | grep -q 'recipe b_ptr_tmap: b_ptr, shape \[K, N\], strides \[N, 1\], block \[32, 16\]' &&
	test \$(sed -n '/variant 1:/,\$p' '$T/dd.inspect' | grep -c '    recipe ') = 1"
check "tilec ir --pipelined=wgmma: a descriptor's shape as an expression" "$TILEC" ir tests/kernels/descriptors.py \
	-n desc_rows_of_3d -s '*i32:16, *i32:16, i32, i32, i32' -D BM=16 -D BN=32 --pipelined=wgmma
cp "$T/out" "$T/derived.ir"
check "derived maps in the dump, the store through one" bash -c "grep -q '\"x_ptr_tmap\" {derived from %0 \[16, 32\] ((A \* B), C, C)}' '$T/derived.ir' &&
	grep -q '\"y_ptr_tmap\" {derived from %1' '$T/derived.ir' && grep -q ' store map=%6 ' '$T/derived.ir'"
check "no derived map for a 3-D descriptor (TMA copies 2-D blocks)" bash -c "'$TILEC' ir tests/kernels/descriptors.py -n desc_copy_3d \
	-s '*i32:16, *i32:16, i32, i32, i32' -D BA=2 -D BB=4 -D BC=32 --pipelined=wgmma > '$T/d3.ir' && ! grep -q tensormap '$T/d3.ir'"
check "tilec ir --pipelined=wgmma: descriptors the arguments do not determine" "$TILEC" ir tests/kernels/descriptors.py \
	-n desc_batch_rows -s '*fp16:16, *fp16:16, i32, i32' -D BM=64 -D BN=64 --pipelined=wgmma
cp "$T/out" "$T/underived.ir"
check "no derived map where the base depends on the program or the shape on the grid" bash -c "! grep -q 'tensormap\|map=' '$T/underived.ir'"
# tensordesc<...>:16: the innermost shape a multiple of 16, a variant whose
# copies are 16 bytes where TMA does not take them (sm_80, --no-tma)
check "descriptors with :16, for sm_80" "$TILEC" compile --no-hint-variants tests/gpu/kernels/descriptors.py -n matmul_kernel_tma \
	-s 'tensordesc<fp16[128, 64]>:16, tensordesc<fp16[128, 64]>:16, tensordesc<fp16[128, 128]>, i32, i32, i32' -s "$TMASIG" \
	$TMADEF --arch sm_80 -o "$T/d16" --keep-ptx "$T"
"$TILEC" inspect "$T/d16.c" >"$T/d16.inspect" 2>&1
check "tensordesc:16: a predicate on the innermost shape only" bash -c "grep -q 'a_desc_shape1 % 16 == 0, a_desc_stride1 == 1, b_desc_base % 16 == 0, b_desc_shape1 % 16 == 0' '$T/d16.inspect' &&
	! grep -q 'shape0 % 16\|c_desc_shape1 % 16' '$T/d16.inspect'"
check "tensordesc:16: 16-byte cp.async (the unhinted variant: none)" bash -c "grep -q 'cp.async.cg.shared.global \[%r[0-9]*\], \[%rd[0-9]*\], 16' '$T/d16.sm_80.ptx' &&
	! grep -q 'cp.async.cg' <(sed -n '/.entry matmul_kernel_tma_1/,\$p' '$T/d16.sm_80.ptx')"
expect_error "tensordesc:8 is refused" "innermost shape is a multiple of 16" "$TILEC" compile tests/gpu/kernels/descriptors.py \
	-n matmul_kernel_tma -s 'tensordesc<fp16[128, 64]>:8, tensordesc<fp16[128, 64]>, tensordesc<fp16[128, 128]>, i32, i32, i32' \
	$TMADEF --arch sm_80 -o "$T/d8"
# an sm_90a cubin only where a kernel uses wgmma: otherwise it would be sm_90's again
check "vector add for the default archs" "$TILEC" compile examples/vector_add/kernel.py -n add_kernel \
	-s '*fp32:16, *fp32:16, *fp32:16, i32' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)' -o "$T/vad"
"$TILEC" inspect "$T/vad.c" >"$T/vad.inspect" 2>&1
check "no sm_90a cubin for a kernel without wgmma beside sm_90's" bash -c "grep -q 'cubin sm_90,' '$T/vad.inspect' && ! grep -q 'sm_90a' '$T/vad.inspect'"
check "vector add for sm_90a alone" "$TILEC" compile examples/vector_add/kernel.py -n add_kernel \
	-s '*fp32:16, *fp32:16, *fp32:16, i32' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)' --arch sm_90a -o "$T/vaa"
"$TILEC" inspect "$T/vaa.c" >"$T/vaa.inspect" 2>&1
check "sm_90a alone keeps its cubin" grep -q "cubin sm_90a" "$T/vaa.inspect"
# no ptxas: PTX images only, one per arch (sm_80's is the compute_80 image's)
check "no ptxas, the default targets and PTX image" env TILE_PTXAS=/nonexistent/ptxas "$TILEC" compile examples/vector_add/kernel.py \
	-n add_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32' -D BLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)' -o "$T/nopx"
"$TILEC" inspect "$T/nopx.c" >"$T/nopx.inspect" 2>&1
check "no ptxas: PTX for sm_80, sm_87 and sm_90, each once, no cubin" bash -c "grep -c 'ptx sm_' '$T/nopx.inspect' | grep -qx 3 && grep -c 'ptx sm_80' '$T/nopx.inspect' | grep -qx 1 && ! grep -q cubin '$T/nopx.inspect'"
check "--arch sm_80a is refused" bash -c "! '$TILEC' compile $K/matmul.py -n matmul_kernel -s '$MMSIG' -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 --arch sm_80a -o '$T/x' 2>'$T/x.err' && grep -q 'arch-specific target tilec knows is sm_90a' '$T/x.err'"
check "--arch with a target twice is refused" bash -c "! '$TILEC' compile $K/matmul.py -n matmul_kernel -s '$MMSIG' -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 --arch sm_90a,sm_90a -o '$T/x' 2>'$T/x.err' && grep -q 'listed twice' '$T/x.err'"

# the K loop's two loads as rings of num_stages - 1 (2) tiles: copies for
# iterations 0 and 1 before the loop, the body waits, reads its tiles and,
# behind a barrier, copies iteration i + 2 into them; no load is left
MMIR=("$TILEC" ir $K/matmul.py -n matmul_kernel -s "$MMSIG" -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32
	-D GROUP_SIZE_M=8)
check "tilec ir --pipelined" "${MMIR[@]}" --pipelined
cp "$T/out" "$T/pipelined.ir"
check "pipelined: two rings of 2 tiles" test "$(grep -cE 'local_alloc : smem<2x(64x32|32x64)xfp16>' "$T/pipelined.ir")" = 2
check "pipelined: a barrier before the copies into the tiles just read" grep -qE "^    barrier$" "$T/pipelined.ir"
check "pipelined: six copies" test "$(grep -c 'async_copy ' "$T/pipelined.ir")" = 6
check "pipelined: no load left" bash -c "! grep -q '= load ' '$T/pipelined.ir'"
check "pipelined: the body starts by waiting for its tiles" grep -qE "^    async_wait pending=1$" "$T/pipelined.ir"
check "pipelined: two reads of the current tiles" test "$(grep -c 'local_load ' "$T/pipelined.ir")" = 2
check "pipelined: all copies done after the loop" grep -qE "^  async_wait pending=0$" "$T/pipelined.ir"
check "tilec ir -ns 5 --pipelined" "${MMIR[@]}" -ns 5 --pipelined
cp "$T/out" "$T/pipelined5.ir"
check "num_stages 5: rings of 4 tiles" grep -q 'smem<4x64x32xfp16>' "$T/pipelined5.ir"
check "num_stages 5: copies for 4 iterations ahead" test "$(grep -c 'async_copy ' "$T/pipelined5.ir")" = 10
check "num_stages 5: the body waits for all but 3 groups" grep -q 'async_wait pending=3' "$T/pipelined5.ir"
# for targets without cp.async (below sm_80): loads one iteration ahead
check "tilec ir --pipelined=registers" "${MMIR[@]}" --pipelined=registers
cp "$T/out" "$T/registers.ir"
check "registers: four loads" test "$(grep -c '= load ' "$T/registers.ir")" = 4
check "registers: the loop carries both tiles" grep -qE "^    yield %[0-9]+, %[0-9]+, %[0-9]+, %[0-9]+, %[0-9]+$" "$T/registers.ir"
# rows that are not 16-byte aligned (no :16 on the sizes and strides): fp16
# pieces under cp.async's 4 bytes, so the loop takes the register form
UNALIGNED='*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1'
check "unaligned fp16 matmul: tilec ir --pipelined" "$TILEC" ir $K/matmul.py -n matmul_kernel -s "$UNALIGNED" \
	-D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 --pipelined
cp "$T/out" "$T/unaligned.ir"
check "unaligned fp16 matmul: loads one iteration ahead, no rings" bash -c "grep -q ' = load ' '$T/unaligned.ir' && ! grep -q 'async_copy' '$T/unaligned.ir'"
check "unaligned fp16 matmul compiles" "$TILEC" compile --no-hint-variants $K/matmul.py -n matmul_kernel -s "$UNALIGNED" -D BLOCK_SIZE_M=64 \
	-D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 -g 'cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)' \
	--arch sm_80 -o "$T/mmu" --keep-ptx "$T"
check "unaligned fp16 matmul: no cp.async" bash -c "! grep -q 'cp.async' '$T/mmu.compute_80.ptx'"
# the same signature without --no-hint-variants: tilec adds :8 and :4
# variants on the sizes and strides the loads need (not M), and the :8 one
# copies 16 bytes at a time
check "unaligned fp16 matmul: tilec's own variants" "$TILEC" compile -v $K/matmul.py -n matmul_kernel -s "$UNALIGNED" \
	-D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 -g 'cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)' \
	--arch sm_80 -o "$T/mmh" --keep-ptx "$T/mmh.ptx"
cp "$T/out" "$T/mmh.out"
check "tilec names the :8 variant's parameters" grep -q 'adds a variant with :8 on N, K, stride_am, stride_bk, stride_cm' "$T/mmh.out"
"$TILEC" inspect "$T/mmh.c" >"$T/mmh.inspect" 2>&1
check "unaligned fp16 matmul: three variants, :8 first" bash -c "grep -c '^  variant ' '$T/mmh.inspect' | grep -qx 3 &&
	grep -A2 'variant 0:' '$T/mmh.inspect' | grep -q 'N % 8 == 0, K % 8 == 0' && ! grep -q 'M % 8' '$T/mmh.inspect'"
check "unaligned fp16 matmul: the :8 variant copies 16 bytes, the user's none" bash -c "
	sed -n '/entry matmul_kernel_1(/,/entry matmul_kernel_2(/p' '$T/mmh.ptx/mmh.compute_80.ptx' | grep -q 'cp.async.cg.shared.global \[%r[0-9]*\], \[%rd[0-9]*\], 16' &&
	! sed -n '/entry matmul_kernel_0(/,/entry matmul_kernel_1(/p' '$T/mmh.ptx/mmh.compute_80.ptx' | grep -q cp.async"
check "tilec ir -ns 1 --pipelined" "${MMIR[@]}" -ns 1 --pipelined
check "num_stages 1: two loads, not pipelined" test "$(grep -c '= load ' "$T/out")" = 2
T3K=tests/gpu/kernels/tier3.py
B16SIG='*bf16:16, *bf16:16, *fp32:16, i32, i32, i32'
check "bf16 matmul, 16x16 tile over 4 warps" "$TILEC" compile $K/matmul.py -n matmul_fp32_kernel -s "$B16SIG" -D BLOCK_M=16 \
	-D BLOCK_N=16 -D BLOCK_K=16 -g 'cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)' --arch sm_80 --no-ptx -o "$T/b16" --keep-ptx "$T"
check "bf16 matmul: mma.sync bf16" grep -q "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" "$T/b16.compute_80.ptx"
check "bf16 matmul, 128x64x64 on 8 warps" "$TILEC" compile $K/matmul.py -n matmul_fp32_kernel -s "$B16SIG" -D BLOCK_M=128 \
	-D BLOCK_N=64 -D BLOCK_K=64 -w 8 -g 'cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)' --arch sm_90 --no-ptx -o "$T/b8"
check "a dot reduced along rows" "$TILEC" compile $T3K -n dot_rowsum_kernel -s '*fp16:16, *fp16:16, *fp32:16, *fp32:16' \
	-D M=64 -D N=16 -D K=128 -g 1 --arch sm_80,sm_90 -o "$T/rs" --keep-ptx "$T"
check "a dot reduced along rows: mma.sync" grep -q "mma.sync" "$T/rs.compute_80.ptx"
check "with sm_75 among the targets: fma chains" "$TILEC" compile $T3K -n dot_rowsum_kernel \
	-s '*fp16:16, *fp16:16, *fp32:16, *fp32:16' -D M=32 -D N=16 -D K=16 -g 1 --arch sm_75,sm_90 -o "$T/rs75" --keep-ptx "$T"
check "with sm_75 among the targets: no mma.sync" bash -c "! grep -q 'mma.sync' '$T/rs75.compute_75.ptx'"
check "with sm_75 among the targets: sm_90 keeps mma.sync (one lowering per family)" grep -q "mma.sync" "$T/rs75.sm_90.ptx"
check "fp32 operands at tf32" "$TILEC" compile $K/matmul.py -n matmul_fp32_kernel \
	-s '*fp32:16, *fp32:16, *fp32:16, i32, i32, i32' -D BLOCK_M=32 -D BLOCK_N=32 -D BLOCK_K=16 \
	-g 'cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)' --arch sm_80 --no-ptx -o "$T/tf" --keep-ptx "$T"
check "fp64 operands: fp64 fma chains" "$TILEC" compile $K/matmul.py -n dot_ieee_kernel -s '*fp64:16, *fp64:16, *fp64:16' \
	-D M=32 -D N=32 -D K=16 -g 1 --arch sm_80 --no-ptx -o "$T/d64" --keep-ptx "$T"
check "fp64 operands: fma.rn.f64" grep -q "fma.rn.f64" "$T/d64.compute_80.ptx"
check "fp32 operands at tf32: fp32 registers into mma.sync m16n8k8, as Triton" bash -c "! grep -q 'cvt.rna.tf32.f32' '$T/tf.compute_80.ptx' &&
	grep -q 'mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32' '$T/tf.compute_80.ptx' && ! grep -q 'fma.rn.f32' '$T/tf.compute_80.ptx'"
# tf32 128x128x32 in 8 warps (the benchmark's config): B (N contiguous)
# read one 32-bit word per operand register, as Triton, not 16-byte reads
# of four tiles' words; rings of 2 tiles (64 KB) at the default 3 stages
check "tf32 128x128x32, 8 warps" "$TILEC" compile $K/matmul.py -n matmul_fp32_kernel \
	-s '*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16' -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=32 -w 8 \
	-g 'cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)' --arch compute_80 -o "$T/tfb" --keep-ptx "$T"
check "tf32 128x128x32: 32 single-word B reads and 16 ldmatrix for A per iteration, no vector reads" bash -c "
	awk '/cp.async.wait_group[ \t]+1;/{on=1} on&&/ld.shared.[ub]32/{s++} on&&/ldmatrix/{m++} on&&/ld.shared.v/{v++} on&&/@%p[0-9]+ bra/{print s+0, m+0, v+0; exit}' '$T/tfb.compute_80.ptx' | grep -qx '32 16 0'"
"$TILEC" inspect "$T/tfb.c" >"$T/tfb.inspect" 2>&1
check "tf32 128x128x32: rings of 2 tiles, 64 KB" grep -q "shared 0 static + 65536 dynamic" "$T/tfb.inspect"
# a batched dot of 4 x 64x64x64 in 4 warps: a warp per batch index (as
# Triton), so each fragment is read once: 16 ldmatrix for A and 16 for B
# (warps over M and N read each one twice: 32 and 32)
check "batched dot 4x64x64x64" "$TILEC" compile tests/gpu/kernels/dots.py -n dot3d_grid_kernel \
	-s '*fp16:16, *fp16:16, *fp32:16' -D B=4 -D M=64 -D N=64 -D K=64 -g 1 --arch compute_80 -o "$T/d3" --keep-ptx "$T"
check "batched dot 4x64x64x64: a warp per batch index, 16 + 16 ldmatrix" bash -c "
	test \$(grep -c 'ldmatrix.sync.aligned.m8n8.x4.shared.b16' '$T/d3.compute_80.ptx') = 16 &&
	test \$(grep -c 'ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16' '$T/d3.compute_80.ptx') = 16 &&
	test \$(grep -c 'mma.sync.aligned.m16n8k16' '$T/d3.compute_80.ptx') = 128"
# 64 KB of rings fit twice on an SM; the registers fit two blocks of 256
# threads at 128 or fewer. Which side of that ptxas lands on depends on the
# PTX (sm_80: 164 registers from LLVM 19's, 126 from LLVM 22's): over 128,
# the entry asks for two blocks (.minnctapersm 2), which ptxas meets
# without spills; at 128 or fewer it asks for nothing.
# min_blocks_as_needed PTX ARCH ENTRY: ENTRY has `.minnctapersm 2` exactly
# when ptxas takes more than 128 registers for the PTX without it
min_blocks_as_needed() {
	local ptx=$1 arch=$2 entry=$3 regs has=0
	awk -v e="$entry" '$0 ~ "\\.entry " e "\\(" {on = 1} on && /^\{/ {exit} on && /^\.minnctapersm 2$/ {f = 1}
		END {exit !f}' "$ptx" && has=1
	sed '/^\.minnctapersm /d' "$ptx" >"$ptx.plain"
	regs=$("$PTXAS" -v -arch="$arch" "$ptx.plain" -o "$ptx.plain.cubin" 2>&1 | sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' | head -n 1)
	echo "$arch: ${regs:-?} registers without .minnctapersm; the entry has it: $has"
	[ -n "$regs" ] && [ "$has" = $((regs > 128)) ]
}
check "tf32 128x128x32: .minnctapersm 2 on the entry exactly when sm_80 needs it for two blocks" \
	min_blocks_as_needed "$T/tfb.compute_80.ptx" sm_80 matmul_fp32_kernel_0
check "tf32 128x128x32 for sm_80, sm_90" "$TILEC" compile $K/matmul.py -n matmul_fp32_kernel \
	-s '*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16' -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=32 -w 8 \
	-g 'cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)' --arch sm_80,sm_90 -o "$T/tfc" --keep-ptx "$T" -v
cp "$T/out" "$T/tfc.log"
check "tf32 128x128x32: two blocks per SM on sm_80 and sm_90 (at most 128 registers, no spill)" bash -c "
	awk '\$1 == \"matmul_fp32_kernel_0:\" && \$4 == \"registers,\" && \$3 <= 128 && / spills 0 bytes stored \\+ 0 loaded/ {ok[\$2] = 1}
		END {exit !(ok[\"sm_80:\"] && ok[\"sm_90:\"])}' '$T/tfc.log'"
for arch in sm_80 sm_90; do
	check "tf32 128x128x32: .minnctapersm 2 exactly when $arch needs it for two blocks" \
		min_blocks_as_needed "$T/tfc.$arch.ptx" "$arch" matmul_fp32_kernel_0
done
check "tf32 128x128x32: the PTX image is the sm_80 cubin's, directive and all" bash -c "'$TILEC' inspect '$T/tfc.c' | grep -q 'ptx sm_80' && cmp '$T/tfc.compute_80.ptx' '$T/tfc.sm_80.ptx'"
# a kernel's own maxnreg is what ptxas gets: no .minnctapersm added to it
check "tf32 128x128x32 with --maxnreg 168" "$TILEC" compile $K/matmul.py -n matmul_fp32_kernel \
	-s '*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16' -D BLOCK_M=128 -D BLOCK_N=128 -D BLOCK_K=32 -w 8 \
	-g 'cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)' --arch sm_80 --maxnreg 168 -o "$T/tfr" --keep-ptx "$T"
check "tf32 128x128x32 with --maxnreg 168: .maxnreg 168 and no .minnctapersm" bash -c "
	grep -qx '.maxnreg 168' '$T/tfr.sm_80.ptx' && ! grep -q 'minnctapersm' '$T/tfr.sm_80.ptx' && cmp -s '$T/tfr.sm_80.ptx' '$T/tfr.compute_80.ptx'"
check "fp16 matmul, 4 warps (two blocks fit): no .minnctapersm" bash -c "! grep -q 'minnctapersm' '$T/mm.compute_80.ptx'"
# ptxas giving up on registers: vLLM's lightning attention came back with
# 32 registers and kilobytes spilled a thread under .reqntid, 10x slower
# than Triton's build; with .minnctapersm 1 it takes 255. Its kv_parallel
# (a 128x128 fp32 accumulator, tf32 operands, 4 warps) was the case until
# its K^T loads went 16 bytes wide; its kv_reduce (a 128x128 fp32 block
# carried through a loop) still is
LA=tests/corpus/vllm/vllm/model_executor/layers/lightning_attn.py
check "lightning attention's kv_reduce compiles" "$TILEC" compile $LA -n _fwd_kv_reduce \
	-s '*fp32:16, *fp32:16, *fp32:16, i32:16, i32' -D b=1 -D h=8 -D d=128 -D e=128 -D BLOCK=256 \
	-D D_FBLOCK=128 -D E_FBLOCK=128 -I tests/corpus/vllm \
	--arch sm_90a,compute_80 -o "$T/la" --keep-ptx "$T/lap" -v
cp "$T/out" "$T/la.log"
check "lightning attention: over 128 registers on sm_90a (not ptxas's 32 and kilobytes of spills)" \
	bash -c "n=\$(grep -oE '_fwd_kv_reduce_0: sm_90a: [0-9]+ registers' '$T/la.log' | grep -oE '[0-9]+ registers' | grep -oE '[0-9]+'); [ \"\$n\" -gt 128 ]"
check "lightning attention: .minnctapersm 1 on the entry, in the cubin's PTX and the PTX image" \
	bash -c "grep -qx '.minnctapersm 1' '$T/lap/la.sm_90a.ptx' && grep -qx '.minnctapersm 1' '$T/lap/la.compute_80.ptx'"
check "lightning attention: without it ptxas takes under 64 registers (the case this guards)" bash -c "
	sed '/^\.minnctapersm /d' '$T/lap/la.sm_90a.ptx' >'$T/la.plain.ptx' &&
	n=\$('$PTXAS' -v -arch=sm_90a '$T/la.plain.ptx' -o '$T/la.plain.cubin' 2>&1 | sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' | head -n 1) &&
	echo \"\$n registers without\" && [ \"\$n\" -lt 64 ]"
check "fp32 operands at tf32 with an sm_75 target" "$TILEC" compile $K/matmul.py -n matmul_fp32_kernel \
	-s '*fp32:16, *fp32:16, *fp32:16, i32, i32, i32' -D BLOCK_M=32 -D BLOCK_N=32 -D BLOCK_K=16 \
	-g 'cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)' --arch sm_75,sm_90 -o "$T/tf75" --keep-ptx "$T"
check "sm_75: tf32 truncation in integers (fma chains, no sm_80 instruction)" bash -c "! grep -q 'cvt.rna.tf32' '$T/tf75.compute_75.ptx' && grep -q 'and.b32.*-8192' '$T/tf75.compute_75.ptx'"
check "fp32 operands at ieee precision" "$TILEC" compile $K/matmul.py -n dot_ieee_kernel -s '*fp32:16, *fp32:16, *fp32:16' \
	-D M=32 -D N=32 -D K=16 -g 1 --arch sm_80 --no-ptx -o "$T/ie" --keep-ptx "$T"
check "fp32 operands at ieee precision: fma chains" bash -c "grep -q 'fma.rn.f32' '$T/ie.compute_80.ptx' && ! grep -q 'mma.sync' '$T/ie.compute_80.ptx'"

# 3. no hints at all: compiles, and no 16-byte access is assumed
check "vector add without hints" "$TILEC" compile $VA -n add_kernel -s "*fp32, *fp32, *fp32, i32" -D BLOCK_SIZE=1024 \
	-g "cdiv(n_elements, BLOCK_SIZE)" --arch sm_90 -o "$T/nohint" --keep-ptx "$T"
check "without hints: global loads" grep -q "ld.global" "$T/nohint.compute_90.ptx"
check "without hints: no 16-byte loads" bash -c "! grep -q 'ld.global.v4' '$T/nohint.compute_90.ptx'"
check "without hints: generated C compiles" $CC $CFLAGS_GEN -c "$T/nohint.c" -o "$T/nohint.o"

# 4. Triton's compile.py form: constexpr values inside the signature; no -g
check "full signature, no grid" "$TILEC" compile $VA -n add_kernel -s "$VSIG:16, 1024" --arch sm_90 --no-ptx -o "$T/full" -on vadd
check "no -g: the launch function takes the grid" grep -q "tile_status vadd(tile_stream stream, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z" "$T/full.h"
"$TILEC" inspect "$T/full.c" >"$T/inspect" 2>&1
check "--no-ptx: no PTX image" bash -c "! grep -q ' ptx ' '$T/inspect'"
check "-on names the kernel" grep -q "kernel vadd" "$T/inspect"

# 5. a manifest: several kernels and variants in one blob
cat >"$T/k.manifest" <<EOF
# vector add, two variants
$ROOT/$VA add_kernel "$VSIG:16" -D BLOCK_SIZE=1024 -g "cdiv(n_elements, BLOCK_SIZE)"
$ROOT/$VA add_kernel "$VSIG" -D BLOCK_SIZE=1024 -g "cdiv(n_elements, BLOCK_SIZE)"   # any n
$ROOT/examples/silu/kernel.py silu_kernel '*bf16:16, *bf16:16, i32' -DBLOCK_SIZE=1024 -g 'cdiv(n_elements, BLOCK_SIZE)'
../$(basename "$T")/../$(basename "$T")/sm.py softmax_kernel "*fp32:16, *fp32:16, i32, i32, i32, i32" -D BLOCK_SIZE=256 -on softmax_256
EOF
cp $K/softmax.py "$T/sm.py"
check "manifest" "$TILEC" compile --no-hint-variants -m "$T/k.manifest" -o "$T/many" --arch sm_90
"$TILEC" inspect "$T/many.c" >"$T/inspect" 2>&1
check "manifest: three kernels in one blob" grep -q "3 kernels" "$T/inspect"
check "manifest: add_kernel has two variants" grep -q "variant 1: add_kernel_1" "$T/inspect"
check "manifest: -on on a line" grep -q "softmax_256(tile_stream stream, uint32_t grid_x" "$T/many.h"
check "manifest: one C file compiles" $CC $CFLAGS_GEN -c "$T/many.c" -o "$T/many.o"
check "manifest: the blob is named after -o" grep -q "tile_status many_load(void)" "$T/many.h"

# 6. autotune configs: the first by default, --config N, -D over a config
AT=$K/seeds/add_sin_cos.py
check "autotune default" "$TILEC" compile $AT -n add_kernel_autotuned -s "$VSIG" --arch sm_90 --no-ptx -o "$T/at0"
"$TILEC" inspect "$T/at0.c" >"$T/inspect" 2>&1
check "autotune: config 0 (BLOCK_SIZE=4, 8 warps)" grep -q "num_warps 8" "$T/inspect"
check "autotune: config 0's BLOCK_SIZE" grep -q "BLOCK_SIZE=4" "$T/inspect"
check "autotune --config 3" "$TILEC" compile $AT -n add_kernel_autotuned -s "$VSIG" --config 3 --arch sm_90 --no-ptx -o "$T/at3"
"$TILEC" inspect "$T/at3.c" >"$T/inspect" 2>&1
check "autotune: config 3 (BLOCK_SIZE=2, 4 warps)" grep -q "BLOCK_SIZE=2" "$T/inspect"
check "autotune: config 3's warps" grep -q "num_warps 4" "$T/inspect"
check "autotune -D overrides" "$TILEC" compile $AT -n add_kernel_autotuned -s "$VSIG" -D BLOCK_SIZE=64 -w 2 --arch sm_90 --no-ptx -o "$T/atd"
"$TILEC" inspect "$T/atd.c" >"$T/inspect" 2>&1
check "autotune: -D BLOCK_SIZE=64 wins" grep -q "BLOCK_SIZE=64" "$T/inspect"
expect_error "--config out of range" "has 4 autotune configs" "$TILEC" compile $AT -n add_kernel_autotuned -s "$VSIG" --config 4 -o "$T/x"

# 7. diagnostics, stage by stage; nothing is written on error
cat >"$T/bad.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def asm_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.inline_asm_elementwise(x_ptr + offs, 1.0, mask=offs < n)
EOF
printf 'import triton\n\n\n@triton.jit\ndef syntax_kernel(x_ptr):\n    x = tl.load(x_ptr +)\n' >"$T/syntax.py"
expect_error "unsupported construct at file:line:col" "bad.py:8:[0-9]+: error" \
	"$TILEC" compile "$T/bad.py" -n asm_kernel -s "*fp32:16, i32" -D BLOCK=128 -o "$T/bad"
check "nothing written on error" test ! -e "$T/bad.c"
expect_error "syntax error at file:line:col" "syntax.py:6:[0-9]+: error" \
	"$TILEC" compile "$T/syntax.py" -n syntax_kernel -s "*fp32:16" -o "$T/bad"
expect_error "unknown kernel lists the kernels" "no @triton.jit kernel named 'nope'.*add_kernel" \
	"$TILEC" compile $VA -n nope -s "$VSIG" -o "$T/bad"
expect_error "signature with too many entries" "signature has 6 entries but .add_kernel. has 5 parameters" \
	"$TILEC" compile $VA -n add_kernel -s "*fp32, *fp32, *fp32, i32, 1024, 3" -o "$T/bad"
expect_error "signature without a runtime parameter's type" "gives no type for parameter .n_elements." \
	"$TILEC" compile $VA -n add_kernel -s "*fp32, *fp32, *fp32" -D BLOCK_SIZE=1024 -o "$T/bad"
expect_error "bad signature type" "error" \
	"$TILEC" compile $VA -n add_kernel -s "*fp33, *fp32, *fp32, i32" -D BLOCK_SIZE=1024 -o "$T/bad"
expect_error "constexpr without a value" "no value for constexpr parameter .BLOCK_SIZE." \
	"$TILEC" compile $VA -n add_kernel -s "$VSIG" -o "$T/bad"
expect_error "grid naming an unknown name" "-g:1:[0-9]+: error" \
	"$TILEC" compile $VA -n add_kernel -s "$VSIG" -D BLOCK_SIZE=1024 -g "cdiv(n_elements, BLOK)" -o "$T/bad"
expect_error "grid syntax" "error" \
	"$TILEC" compile $VA -n add_kernel -s "$VSIG" -D BLOCK_SIZE=1024 -g "cdiv(n_elements," -o "$T/bad"
expect_error "variants that the loader cannot tell apart" "same :16/:8/:4/:1 hints" \
	"$TILEC" compile $VA -n add_kernel -s "$VSIG" -s "$VSIG" -D BLOCK_SIZE=1024 -o "$T/bad"
cat >"$T/mixed.manifest" <<EOF
$ROOT/$VA add_kernel "$VSIG:16" -D BLOCK_SIZE=1024 -g "cdiv(n_elements, BLOCK_SIZE)"
$ROOT/$VA add_kernel "$VSIG" -D BLOCK_SIZE=1024
EOF
expect_error "variants with and without a grid" "every variant needs a grid expression" \
	"$TILEC" compile -m "$T/mixed.manifest" -o "$T/bad" --arch sm_90
printf '#!/bin/sh\necho "ptxas fatal   : simulated failure" >&2\nexit 1\n' >"$T/fakeptxas"
chmod +x "$T/fakeptxas"
expect_error "ptxas failing" "ptxas" \
	"$TILEC" compile $VA -n add_kernel -s "$VSIG" -D BLOCK_SIZE=1024 --ptxas "$T/fakeptxas" -o "$T/bad"
check "nothing written when ptxas fails" test ! -e "$T/bad.c"
expect_error "bad --arch" "--arch" "$TILEC" compile $VA -n add_kernel -s "$VSIG" -D BLOCK_SIZE=1024 --arch sm_9x -o "$T/bad"
expect_error "unknown option" "unknown option '--frobnicate'" "$TILEC" compile $VA --frobnicate
expect_error "-w out of range" "-w wants" "$TILEC" compile $VA -n add_kernel -s "$VSIG" -w 64 -o "$T/bad"
cat >"$T/badline.manifest" <<EOF
$ROOT/$VA add_kernel "$VSIG:16" -D BLOCK_SIZE=1024
$ROOT/$VA add_kernel "$VSIG" -D BLOCK_SIZE=1024 --bogus 1
EOF
expect_error "manifest: error at manifest:line:col" "badline.manifest:2:[0-9]+: error: unknown option '--bogus'" \
	"$TILEC" compile -m "$T/badline.manifest" -o "$T/bad"
printf '%s add_kernel "%s\n' "$ROOT/$VA" "$VSIG" >"$T/quote.manifest"
expect_error "manifest: unterminated quote" "quote.manifest:1:[0-9]+: error: unterminated quote" \
	"$TILEC" compile -m "$T/quote.manifest" -o "$T/bad"
printf '%s add_kernel "%s" -D BLOCK_SIZE=1024 -g "cdiv(n_elements, NOPE)"\n' "$ROOT/$VA" "$VSIG" >"$T/grid.manifest"
expect_error "manifest: a bad grid names its line" "grid.manifest:1:1: note: in the grid of this line" \
	"$TILEC" compile -m "$T/grid.manifest" -o "$T/bad"
check "help" "$TILEC" compile --help

# 7b. parameter names C cannot take are renamed (p<index>_...): the C
# compiles as C99 and as C++, the doc comment keeps the kernel's names
PN_SIG='*fp32:16, i32, *fp32:16, i32, i32, i32, i64, fp32, i32, i8, i32, i32'
check "parameter names: compile" "$TILEC" compile $K/lang.py -n param_names_kernel -s "$PN_SIG" -D BLOCK=128 \
	-g 'cdiv(stream, BLOCK)' --arch sm_80 -o "$T/pn"
check "parameter names: C99" $CC $CFLAGS_GEN -c "$T/pn.c" -o "$T/pn.o"
if command -v c++ >/dev/null; then
	check "parameter names: C++" c++ -x c++ -Wall -Wextra -Werror -I"$ROOT" -c "$T/pn.c" -o "$T/pnpp.o"
fi
check "parameter names: renamed" grep -q "tile_deviceptr p0_tile_row_start_ptr, int32_t p1_stream, tile_deviceptr out, int32_t p3_int, int32_t p4_grid_x, int32_t p5_NULL, int64_t p6_size_t, float p7_double, int32_t p8_x, int8_t p9_caf, int32_t p10_pn_module, int32_t p1_stream_)" "$T/pn.h"
check "parameter names: own names in the doc" grep -q "^ \*   tile_row_start_ptr \*fp32 (C parameter p0_tile_row_start_ptr)" "$T/pn.h"

# 8. the examples built by examples/build.sh (under build.sh): with no GPU
# they run kernel.py in the reference interpreter and check the result
for ex in vector_add silu; do
	prog=${TILE_BUILD:-$ROOT/build}/examples/$ex
	if [ -x "$prog" ]; then
		check "example $ex runs and is right" bash -c "'$prog' | grep -q 'all correct'"
	else
		fail "example $ex was not built ($prog)"
	fi
done

# ---- host-side tensor descriptors: one tile_tensordesc per parameter in the
# generated C (C99, C11, C++), checked before the launch, unpacked into the
# kernel's base/shape/stride parameters; device-side descriptors lowered to
# 16-byte vector accesses and, feeding tl.dot, to cp.async rings
DSIG="tensordesc<fp16[16, 8]>, tensordesc<fp16[16, 8]>, fp32"
check "host descriptors compile" "$TILEC" compile $K/descriptors.py -n host_desc_scale -s "$DSIG" \
	-g "cdiv(x_desc_shape0, 16), cdiv(x_desc_shape1, 8)" --arch sm_80 --keep-ptx "$T" -o "$T/hd"
check "the header takes tile_tensordesc" grep -q "tile_status host_desc_scale(tile_stream stream, tile_tensordesc x_desc, tile_tensordesc y_desc, float alpha);" "$T/hd.h"
check "the header documents the descriptor" grep -q "x_desc  *tile_tensordesc of tensordesc<fp16\[16, 8\]>" "$T/hd.h"
check "descriptors: generated C compiles as C99" $CC $CFLAGS_GEN -c "$T/hd.c" -o "$T/hd.o"
check "descriptors: generated C compiles as C11" $CC -std=c11 -Wall -Wextra -Werror -pedantic -I"$ROOT" -c "$T/hd.c" -o "$T/hd11.o"
check "descriptors: generated C compiles as C++" g++ -Wall -Wextra -Werror -pedantic -x c++ -I"$ROOT" -c "$T/hd.c" -o "$T/hdpp.o"
check "descriptors: the launcher checks before launching" grep -q 'tile_tensordesc_check(&x_desc, "x_desc", 2, 2, tile_block0)' "$T/hd.c"
cat >"$T/hd_main.c" <<'CEOF'
#define TILE_IMPLEMENTATION
#include <stdio.h>
#include <string.h>
#include "tile.h"
#include "hd.h"
int main(void)
{
	tile_tensordesc x, y;
	memset(&x, 0, sizeof x);
	x.base = 0x1000;
	x.rank = 2;
	x.shape[0] = 100;
	x.shape[1] = 30;
	x.strides[0] = 32;
	x.strides[1] = 1;
	x.block_shape[0] = 16;
	x.block_shape[1] = 8;
	y = x;
	y.strides[0] = 31; /* 62 bytes: not a multiple of 16 */
	tile_status s = host_desc_scale(NULL, x, y, 1.0f);
	printf("%d %s\n", (int)s, tile_last_error());
	y.strides[0] = 32;
	y.block_shape[1] = 16;
	s = host_desc_scale(NULL, x, y, 1.0f);
	printf("%d %s\n", (int)s, tile_last_error());
	return 0;
}
CEOF
check "descriptors: a program links against the launcher" $CC -std=c99 -Wall -Wextra -Werror -pedantic -I"$ROOT" -I"$T" \
	"$T/hd_main.c" "$T/hd.c" -o "$T/hd_main" -ldl -lpthread
check "descriptors: bad descriptors are refused before the driver" bash -c "'$T/hd_main' >'$T/hd_out'"
check "descriptors: misaligned stride named" grep -q "^1 tensor descriptor y_desc: strides\[0\] = 31 elements of 2 bytes" "$T/hd_out"
check "descriptors: block shape mismatch named" grep -q "^1 tensor descriptor y_desc: block_shape\[1\] is 16, the kernel was compiled for 8" "$T/hd_out"
check "device descriptors compile" "$TILEC" compile $K/descriptors.py -n desc_scale_2d -s "*fp32:16, *fp32:16, i32:16, i32:16" \
	-D BM=32 -D BN=64 -g "cdiv(M, BM), cdiv(N, BN)" --arch sm_80 --keep-ptx "$T/ds" -o "$T/ds"
check "descriptors: 16-byte loads where the shape allows" bash -c "grep -q 'ld.global.v4.b32' $T/ds/*.ptx"
check "descriptors: 16-byte stores where the shape allows" bash -c "grep -q 'st.global.v4.b32' $T/ds/*.ptx"
MMD="-D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 -D NUM_SMS=132"
check "persistent descriptor matmul compiles" "$TILEC" compile tests/gpu/kernels/descriptors.py -n matmul_descriptor_persistent_kn \
	-s "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16" $MMD -g "min(132, cdiv(M, 64) * cdiv(N, 64))" \
	--arch sm_80 --keep-ptx "$T/pd" -o "$T/pd"
check "persistent descriptor matmul: cp.async rings" bash -c "grep -q 'cp.async.cg.shared.global' $T/pd/*.ptx"
check "persistent descriptor matmul: mma.sync" bash -c "grep -q 'mma.sync.aligned.m16n8k16' $T/pd/*.ptx"

# device asserts and prints: compiled in with --debug only
DBG="-n debug_kernel -s '*fp32:16, *fp32:16, i32, 100, 8' --arch sm_80"
check "--debug compiles asserts and prints" bash -c "'$TILEC' compile $K/lang.py $DBG --keep-ptx '$T/dbg' -o '$T/dbg/k' --debug 2>/dev/null"
check "--debug: __assertfail" bash -c "grep -q '__assertfail,' $T/dbg/*.ptx"
check "--debug: vprintf" bash -c "grep -q 'vprintf,' $T/dbg/*.ptx"
check "without --debug" bash -c "'$TILEC' compile $K/lang.py $DBG --keep-ptx '$T/nodbg' -o '$T/nodbg/k' 2>/dev/null"
check "without --debug: no assert or print code" bash -c "! grep -q 'vprintf\\|__assertfail' $T/nodbg/*.ptx"
expect_error "a misspelt --debug is refused" "unknown option '--debugx'" "$TILEC" compile --debugx

# num_ctas: programs split over thread block clusters from sm_90 on
MMC="$K/matmul.py -n matmul_kernel -s '*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1' -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=128 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8"
check "tilec ir -nc 2: 128x128 in 4 warps split along M (64 rows for its warpgroup)" bash -c "'$TILEC' ir $MMC -nc 2 >'$T/cl.ir'"
check "-nc 2: each CTA holds 64 of the 128 rows, the aranges add its rank's offset" bash -c "grep -q 'num_ctas=2' '$T/cl.ir' &&
	grep -q 'dot precision=tf32 .* : <64x128xfp32>' '$T/cl.ir' && grep -q 'cta_rank : i32' '$T/cl.ir' &&
	[ \$(grep -c 'arange 0, 64 : <64xi32>' '$T/cl.ir') = 2 ] && ! grep -q '<128x32x\\*fp16>' '$T/cl.ir'"
check "tilec ir -nc 2: 128x256 in 8 warps split along N" bash -c "'$TILEC' ir ${MMC/BLOCK_SIZE_N=128/BLOCK_SIZE_N=256} -w 8 -nc 2 | grep -q 'dot precision=tf32 .* : <128x128xfp32>'"
check "tilec ir -nc 2: 256x128 in 8 warps split along M" bash -c "'$TILEC' ir ${MMC/BLOCK_SIZE_M=128/BLOCK_SIZE_M=256} -w 8 -nc 2 | grep -q 'dot precision=tf32 .* : <128x128xfp32>'"
check "tilec ir -nc 4: 128x128 split along M (32 columns would be too few)" bash -c "'$TILEC' ir $MMC -nc 4 | grep -q 'dot precision=tf32 .* : <32x128xfp32>'"
check "-nc 2 compiles for sm_80 and sm_90a" bash -c "'$TILEC' compile $MMC -nc 2 -ns 4 --arch sm_80,sm_90a -o '$T/cl' --keep-ptx '$T/clp' 2>'$T/cl.err'"
check "-nc 2: no warning where the split is made" bash -c "! grep -q warning '$T/cl.err'"
check "-nc 2: sm_90a reads the cluster's id and its rank, wgmma on 64 rows" bash -c "grep -q '%clusterid.x' '$T/clp/cl.sm_90a.ptx' &&
	grep -q '%cluster_ctarank' '$T/clp/cl.sm_90a.ptx' && grep -q 'wgmma.mma_async.sync.aligned.m64n128k16' '$T/clp/cl.sm_90a.ptx' &&
	! grep -q '%ctaid' '$T/clp/cl.sm_90a.ptx'"
check "-nc 2: sm_80 has no clusters" bash -c "! grep -q 'cluster' '$T/clp/cl.sm_80.ptx' && grep -q '%ctaid.x' '$T/clp/cl.sm_80.ptx'"
check "-nc 2: the variant launches clusters of 2" bash -c "'$TILEC' inspect '$T/cl.c' | grep -q 'num_stages 4, .*, cluster 2x1x1,'"
CLS="$K/clusters.py -n scaled_rows -s '*fp32:16, *fp32:16, *fp32:16, *i32:16, i32, i32, 64, 64'"
check "-nc 2: a value every CTA holds" bash -c "'$TILEC' compile $CLS -g 'cdiv(M, 64)' -nc 2 --arch sm_90 -o '$T/sr' --keep-ptx '$T/srp' 2>'$T/sr.err' && ! grep -q warning '$T/sr.err'"
check "-nc 2: the launch function's comment names the clusters" grep -q 'scaled_rows_0: num_warps=4, clusters of 2x1x1 from sm_90 on,' "$T/sr.h"
check "-nc 2: its store is rank 0's, the barrier the cluster's, num_programs counts clusters" bash -c "
	grep -q 'barrier.cluster.arrive.release.aligned' '$T/srp/sr.sm_90.ptx' && grep -q '%nclusterid.x' '$T/srp/sr.sm_90.ptx' &&
	'$TILEC' ir $CLS -nc 2 | grep -q 'barrier cluster' && '$TILEC' ir $CLS -nc 2 | grep -q 'store %[0-9]*, %[0-9]*, %[0-9]*\$'"
check "-nc 2: a reduction along the only dim keeps one CTA per program, with a warning" bash -c "
	'$TILEC' compile $K/softmax.py -n softmax_kernel -s '*fp32:16, *fp32:16, i32, i32, i32, i32, 1024' -nc 2 --arch sm_90 -o '$T/smx' 2>'$T/smx.err' &&
	grep -q \"num_ctas=2 is compiled as one CTA per program: a reduction's axis\" '$T/smx.err' && ! '$TILEC' inspect '$T/smx.c' | grep -q cluster"
check "-nc 2: targets below sm_90 alone keep one CTA per program, with a warning" bash -c "
	'$TILEC' compile $MMC -nc 2 --arch sm_80 -o '$T/cl80' 2>'$T/cl80.err' &&
	grep -q 'num_ctas=2 is compiled as one CTA per program: no target has thread block clusters' '$T/cl80.err' &&
	! '$TILEC' inspect '$T/cl80.c' | grep -q cluster"
check "-nc 2: an atomic's old value every CTA would take keeps one CTA per program, with a warning" bash -c "
	'$TILEC' ir $K/clusters.py -n ticket -s '*fp32:16, *fp32:16, *i32:16, 128' -nc 2 2>&1 >'$T/tk.ir' |
	grep -q 'num_ctas=2 is compiled as one CTA per program: an atomic whose old values are read, on values every CTA holds' &&
	! grep -q 'cta_rank\|num_ctas' '$T/tk.ir'"
RD="$K/clusters.py -n rows_and_desc -s '*fp32:16, *fp32:16, tensordesc<fp32[64, 64]>, i32, 128' -g 'cdiv(M, 128)' -nc 2 --arch sm_90a"
check "-nc 2: a descriptor store every CTA would repeat through TMA keeps one CTA per program" bash -c "
	'$TILEC' compile $RD -o '$T/rd' 2>&1 | grep -q 'num_ctas=2 is compiled as one CTA per program: a descriptor store every CTA would repeat' &&
	! '$TILEC' inspect '$T/rd.c' | grep -q cluster"
check "-nc 2: without TMA the same store is rank 0's, split" bash -c "
	'$TILEC' compile $RD --no-tma -o '$T/rd2' 2>'$T/rd2.err' && ! grep -q warning '$T/rd2.err' && '$TILEC' inspect '$T/rd2.c' | grep -q 'cluster 2x1x1'"
expect_error "-nc 3 is refused" "-nc wants 1, 2, 4 or 8 CTAs per program, not '3'" "$TILEC" compile $K/clusters.py -n ticket -nc 3

# elementwise ops compute each distinct element of a thread once: a row
# mask over the 4 rows a thread holds (`rows < M`, M a multiple of 16) is
# one compare where axis info proves it equal over them, and the load's
# masks are as many as the thread's columns (8), not rows times columns
cat >"$T/rowmask.py" <<'PY'
import triton
import triton.language as tl


@triton.jit
def rows_max(x, out, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    m = (rows[:, None] < M) & (cols[None, :] < N)
    v = tl.load(x + rows[:, None] * N + cols[None, :], mask=m, other=-float("inf"))
    tl.store(out + rows, tl.max(v, 1), mask=rows < M)
PY
"$TILEC" compile "$T/rowmask.py" -n rows_max -s "*fp32:16, *fp32:16, i32:16, i32, 4, 1024" --arch sm_80 \
	-o "$T/rowmask16" --keep-ptx "$T/rowmask16" >/dev/null 2>&1
"$TILEC" compile "$T/rowmask.py" -n rows_max -s "*fp32:16, *fp32:16, i32, i32, 4, 1024" --arch sm_80 \
	-o "$T/rowmask0" --keep-ptx "$T/rowmask0" >/dev/null 2>&1
check "a row mask proven equal over a thread's rows: one compare, a mask a column" bash -c "
	test \$(grep -c 'and.pred' '$T/rowmask16/rowmask16.sm_80.ptx') -le 12 &&
	test \$(grep -c 'and.pred' '$T/rowmask0/rowmask0.sm_80.ptx') -ge 32"

# short rows loaded, combined with carried rows and broadcast into a block
# (a split-attention reduce) take the block's slice: nothing moves through
# shared memory (2 stores and 4 barriers an iteration before)
cat >"$T/rowchain.py" <<'PY'
import triton
import triton.language as tl


@triton.jit
def rows_combine(x, m, s, out, n, BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_D)
    acc = tl.zeros((BLOCK_M, BLOCK_D), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32) - float("inf")
    d_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for j in range(0, n):
        v = tl.load(x + (j * 1024 + rows[:, None]) * BLOCK_D + cols[None, :])
        l_j = tl.load(m + j * 1024 + rows)
        d_j = tl.load(s + j * 1024 + rows)
        l_new = tl.maximum(l_i, l_j)
        alpha = tl.exp(l_i - l_new)
        beta = tl.exp(l_j - l_new)
        d_new = alpha * d_i + beta * d_j
        acc = acc * (d_i / d_new * alpha)[:, None] + v * (beta / d_new)[:, None]
        d_i = d_new
        l_i = l_new
    tl.store(out + rows[:, None] * BLOCK_D + cols[None, :], acc)
PY
for a in sm_80 sm_90a; do
	check "short rows broadcast into a block through a chain and a loop: no shared memory ($a)" bash -c "
		'$TILEC' compile '$T/rowchain.py' -n rows_combine -s '*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, 16, 64' \
			--arch $a -o '$T/rowchain_$a' --keep-ptx '$T/rowchain_$a' >/dev/null 2>&1 &&
		! grep -q 'st.shared\|bar.sync' '$T/rowchain_$a/rowchain_$a.$a.ptx'"
done

# a carried row of column offsets (`cols < N` ANDed into each block's mask,
# `cols += BLOCK` yielded) takes the block's slice: its mask is computed
# where the loads read it, not moved through shared memory a byte an
# element every iteration (the reduction's 4-byte stores stay: f32 as LLVM
# 19 prints them, b32 as LLVM 22 does)
cat >"$T/colloop.py" <<'PY'
import triton
import triton.language as tl


@triton.jit
def row_dot(x, y, out, M, N, TILE_M: tl.constexpr, TILE_N: tl.constexpr):
    rows = tl.program_id(0) * TILE_M + tl.arange(0, TILE_M)
    cols = tl.arange(0, TILE_N)
    acc = tl.zeros([TILE_M, TILE_N], dtype=tl.float32)
    for _ in range(0, N, TILE_N):
        mask = (rows[:, None] < M) & (cols < N)
        a = tl.load(x + rows[:, None] * N + cols, mask=mask).to(tl.float32)
        b = tl.load(y + rows[:, None] * N + cols, mask=mask).to(tl.float32)
        acc += a * b
        cols += TILE_N
    tl.store(out + rows, tl.sum(acc, 1), mask=rows < M)
PY
for a in sm_80 sm_90a; do
	check "carried column offsets masking a block's loads: only the reduction's shared memory ($a)" bash -c "
		'$TILEC' compile '$T/colloop.py' -n row_dot -s '*fp16:16, *fp16:16, *fp32:16, i32, i32, 1, 1024' \
			--arch $a -o '$T/colloop_$a' --keep-ptx '$T/colloop_$a' >/dev/null 2>&1 &&
		grep -qE 'st.shared.(f32|b32)' '$T/colloop_$a/colloop_$a.$a.ptx' &&
		! grep -qE 'st.shared.(u8|b8|s8)' '$T/colloop_$a/colloop_$a.$a.ptx'"
done

# libdevice on its flush-to-zero paths, as Triton links it (nvvm-reflect-ftz
# 1): tl.sqrt and tl.rsqrt are sqrt.approx.ftz and rsqrt.approx.ftz, tl.log's
# polynomial fma.rn.ftz; --no-reflect-ftz keeps subnormals (no .ftz but
# tl.exp2's own ex2.approx.ftz). tl.sqrt_rn is IEEE either way (sqrt.rn.f32)
for o in ftz_on ftz_off; do
	opt=
	[ $o = ftz_off ] && opt=--no-reflect-ftz
	check "libdevice math ($o): compiles" "$TILEC" compile $K/elementwise.py -n math_kernel \
		-s '*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, 1024' --arch sm_90a -o "$T/$o" --keep-ptx "$T/$o" $opt
	check "tl.sqrt_rn ($o): compiles" "$TILEC" compile tests/golden/tier3.py -n math2_kernel \
		-s '*fp32:16, *fp32:16, *fp32:16' --arch sm_90a -o "$T/sqrt_rn_$o" --keep-ptx "$T/sqrt_rn_$o" $opt
	check "tl.sqrt_rn is sqrt.rn.f32 ($o)" bash -c "grep -q 'sqrt.rn.f32' '$T/sqrt_rn_$o/sqrt_rn_$o.sm_90a.ptx' &&
		! grep -q 'sqrt.rn.ftz' '$T/sqrt_rn_$o/sqrt_rn_$o.sm_90a.ptx'"
done
P=$T/ftz_on/ftz_on.sm_90a.ptx
check "libdevice flushes subnormals by default" bash -c "grep -q 'rsqrt.approx.ftz.f32' $P && grep -q 'sqrt.approx.ftz.f32' $P &&
	grep -q 'fma.rn.ftz.f32' $P && ! grep -q 'sqrt.approx.f32' $P"
P=$T/ftz_off/ftz_off.sm_90a.ptx
check "--no-reflect-ftz: libdevice keeps subnormals" bash -c "grep -q 'rsqrt.approx.f32' $P && grep -q 'sqrt.approx.f32' $P &&
	grep -q 'fma.rn.f32' $P && ! grep -v 'ex2.approx.ftz' $P | grep -q 'ftz'"

# reductions in Triton's order, so that float sums round as Triton's do:
# butterflies from the widest offset down (16, 8, 4, 2, 1; they went 1, 2,
# 4, 8, 16), then the warps' partials as the same tree: from 16 warps on
# lane l reads warp l's partial (one shared load, two with indices) and
# butterflies over the warps finish (they were all read into registers:
# 8 16-byte loads at 32 warps); at 8 warps every thread reads all 8 (two
# 16-byte loads) and combines them in registers
cat >"$T/rowred.py" <<'PY'
import triton
import triton.language as tl


@triton.jit
def row_sum(x, out, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + tl.program_id(0) * N + offs, mask=offs < N, other=0.0)
    tl.store(out + tl.program_id(0), tl.sum(v * v, 0))


@triton.jit
def row_argmax(x, out, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + tl.program_id(0) * N + offs, mask=offs < N, other=float("-inf"))
    tl.store(out + tl.program_id(0), tl.argmax(v, 0))


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def row_reduce_fn(x, out, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x + tl.program_id(0) * N + offs, mask=offs < N, other=0.0)
    tl.store(out + tl.program_id(0), tl.reduce(v, 0, _add))
PY
for k in row_sum:32:1 row_argmax:32:2 row_reduce_fn:32:1 row_sum:16:1 row_argmax:16:2 row_sum:8:2 row_argmax:8:4 \
	row_reduce_fn:8:2; do
	IFS=: read -r n nw loads <<<"$k"
	want='16 8 4 2 1 '
	[ $nw = 32 ] && want='16 8 4 2 1 16 8 4 2 1 '
	[ $nw = 16 ] && want='16 8 4 2 1 8 4 2 1 '
	[ $n = row_argmax ] && want=$(echo $want | awk '{for (i = 1; i <= NF; i++) printf "%s %s ", $i, $i}') # values and indices
	check "$n over $nw warps: $loads shared loads a thread, butterflies from offset 16 down" bash -c "
		'$TILEC' compile '$T/rowred.py' -n $n -s '*fp32:16, *fp32:16, i32, 8192' -w $nw --arch sm_90a --no-hint-variants \
			-o '$T/$n$nw' --keep-ptx '$T/$n$nw' >/dev/null 2>&1 &&
		p='$T/$n$nw/$n$nw.sm_90a.ptx' && [ \$(grep -c 'ld.shared' \$p) = $loads ] &&
		[ \"\$(grep -oE 'shfl.sync.bfly.b32[^,]*, [^,]*, [0-9]+' \$p | awk '{print \$NF}' | tr '\n' ' ')\" = '$want' ]"
done

echo "test_compile: $passed passed, $failed failed"
[ "$failed" = 0 ]
