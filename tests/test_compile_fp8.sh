#!/usr/bin/env bash
# test_compile_fp8.sh - fp8 through `tilec compile` (no GPU needed): the
# casts of tests/kernels/fp8.py and the GPU suite's fp8 kernels, the
# tutorial matmul with fp8 operands, each assembled by ptxas; then the PTX
# of every tier: sm_90 converts with cvt.rn.satfinite from fp32 and fp16,
# sm_89 rounds fp32 toward zero to fp16 first, sm_80 has no fp8 cvt
# (Triton's integer rounding of fp8e5), widening fp8e5 to fp16 is a shift
# everywhere, fp8e4nv widens with cvt.rn.f16x2.e4m3x2; fp8 dots run
# mma.sync m16n8k32 from sm_89 on (PTX ISA 8.4), below two fp16 m16n8k16 on
# the same fragments widened in registers, FMA chains for other shapes,
# never wgmma; fp8e4nv for sm_80 is refused.
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
# compile NAME ARCHS FILE KERNEL SIG [options]: PTX in $T/NAME.sm_XX.ptx
compile() {
	local name=$1 archs=$2 file=$3 kernel=$4 sig=$5
	shift 5
	if "$TILEC" compile "$file" -n "$kernel" -s "$sig" "$@" --arch "$archs" -o "$T/$name" --keep-ptx "$T" \
		-on "$name" >"$T/$name.log" 2>&1; then
		ok
	else
		fail "$name: $file $kernel '$sig' --arch $archs"
		head -c 2000 "$T/$name.log"
		echo
	fi
}
has() { # has NAME ARCH REGEX: the PTX of NAME for sm_ARCH matches
	if grep -qE -- "$3" "$T/$1.sm_$2.ptx" 2>/dev/null; then ok; else fail "$1 sm_$2: no '$3' in its PTX"; fi
}
hasnt() {
	if grep -qE -- "$3" "$T/$1.sm_$2.ptx" 2>/dev/null; then fail "$1 sm_$2: '$3' in its PTX"; else ok; fi
}

K=tests/kernels/fp8.py
ALL=sm_80,sm_87,sm_89,sm_90,sm_90a
NEW=sm_89,sm_90,sm_90a

# narrowing fp8e5: every tier
compile e5_f32 $ALL $K to_fp8_kernel '*fp32:16, *fp8e5:16, i32, 1024'
has e5_f32 90 'cvt\.rn\.satfinite\.e5m2x2\.f32'
hasnt e5_f32 90 'cvt\.rz\.f16\.f32'
has e5_f32 89 'cvt\.rz\.f16\.f32'
has e5_f32 89 'cvt\.rn\.satfinite\.e5m2x2\.f16x2'
has e5_f32 89 '^\.version 8\.4'
has e5_f32 90 '^\.version 8\.4'
has e5_f32 80 '^\.version 8\.0'
has e5_f32 80 'cvt\.rz\.f16\.f32'
hasnt e5_f32 80 'satfinite|e5m2|e4m3|nvvm_reflect'
hasnt e5_f32 87 'satfinite|e5m2|e4m3'
has e5_f32 80 'add\.s16.*128;'
has e5_f32 80 'shr\.u16.*8;'
compile e5_f16 $ALL $K to_fp8_kernel '*fp16:16, *fp8e5:16, i32, 1024'
has e5_f16 90 'cvt\.rn\.satfinite\.e5m2x2\.f16x2'
has e5_f16 89 'cvt\.rn\.satfinite\.e5m2x2\.f16x2'
hasnt e5_f16 80 'cvt\.rn\.satfinite'
compile e5_bf16 $ALL $K to_fp8_kernel '*bf16:16, *fp8e5:16, i32, 1024'
has e5_bf16 90 'cvt\.rn\.satfinite\.e5m2x2\.f32'
has e5_bf16 89 'cvt\.rn\.satfinite\.e5m2x2\.f32'
has e5_bf16 80 'max\.u32'
has e5_bf16 80 'min\.u32'
hasnt e5_bf16 80 'cvt\.rn\.satfinite'

# narrowing fp8e4nv: sm_89 and up
compile e4_f32 $NEW $K to_fp8_kernel '*fp32:16, *fp8e4nv:16, i32, 1024'
has e4_f32 90 'cvt\.rn\.satfinite\.e4m3x2\.f32'
has e4_f32 89 'cvt\.rz\.f16\.f32'
has e4_f32 89 'cvt\.rn\.satfinite\.e4m3x2\.f16x2'
compile e4_f16 $NEW $K to_fp8_kernel '*fp16:16, *fp8e4nv:16, i32, 1024'
has e4_f16 90 'cvt\.rn\.satfinite\.e4m3x2\.f16x2'
compile e4_bf16 $NEW $K to_fp8_kernel '*bf16:16, *fp8e4nv:16, i32, 1024'
has e4_bf16 90 'cvt\.f32\.bf16'
has e4_bf16 90 'cvt\.rn\.satfinite\.e4m3x2\.f32'

# libdevice linked into the same module: one __nvvm_reflect (generic pointer) for both
compile e5_libdevice $ALL $K fp8_sin_kernel '*fp32:16, *fp8e5:16, i32, 1024'
hasnt e5_libdevice 80 'nvvm_reflect'
hasnt e5_libdevice 90 'nvvm_reflect'

# widening: the same code on every tier, no fp8 instruction for fp8e5
compile e5_to_f32 $ALL $K from_fp8_kernel '*fp8e5:16, *fp32:16, i32, 1024'
hasnt e5_to_f32 90 'e5m2|satfinite'
has e5_to_f32 80 'cvt\.f32\.f16'
compile e5_to_bf16 $ALL $K from_fp8_kernel '*fp8e5:16, *bf16:16, i32, 1024'
has e5_to_bf16 90 'mul\.(rn\.)?f32'
compile e4_to_f16 $NEW $K from_fp8_kernel '*fp8e4nv:16, *fp16:16, i32:16, 1024'
has e4_to_f16 90 'cvt\.rn\.f16x2\.e4m3x2'
has e4_to_f16 89 'cvt\.rn\.f16x2\.e4m3x2'
compile e4_to_bf16 $NEW $K from_fp8_kernel '*fp8e4nv:16, *bf16:16, i32, 1024'
has e4_to_bf16 90 'cvt\.rn\.f16x2\.e4m3x2'
# fp8 loads are bytes, vectorized as int8 is (8 a thread: 8 bytes)
has e4_to_f16 90 'ld\.global\.v2\.b32'

compile bits_e5 $ALL $K fp8_bits_kernel '*fp8e5:16, *u8:16, *fp32:16, i32, tl.float8e5, 256'
compile bits_e4 $NEW $K fp8_bits_kernel '*fp8e4nv:16, *u8:16, *fp32:16, i32, tl.float8e4nv, 256'

# dots: mma.sync m16n8k32 from sm_89 on (PTX ISA 8.4), int8's ldmatrix
# fragments from the asynchronous copies' rings; wgmma k32 on sm_90a where
# both operands are K-major; below sm_89 the same fragments widened to fp16
# in registers for two m16n8k16; K of at least 32
# (Triton's minimum for 8-bit operands)
MM='*fp8e5:16, *fp8e5:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:1, i32:16, i32:16, i32:1'
compile mm_e5 $ALL $K fp8_matmul_kernel "$MM, 64, 64, 64"
for a in 89 90; do
	has mm_e5 $a 'mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e5m2\.e5m2\.f32'
	has mm_e5 $a 'ldmatrix\.sync\.aligned\.m8n8\.x4'
	has mm_e5 $a 'cp\.async\.cg\.shared\.global'
	hasnt mm_e5 $a 'fma\.rn\.f32'
	hasnt mm_e5 $a 'prmt\.b32 a0,'
done
has mm_e5 90a 'wgmma\.mma_async\.sync\.aligned\.m64n64k32\.f32\.e5m2\.e5m2'
hasnt mm_e5 90a 'mma\.sync'
for a in 80 87; do
	has mm_e5 $a 'mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32'
	has mm_e5 $a 'cp\.async\.cg\.shared\.global'
	hasnt mm_e5 $a 'fma\.rn\.f32'
	# the k32 fragments of fp8 bytes (ldmatrix, as sm_89's), widened in registers
	has mm_e5 $a 'ldmatrix\.sync\.aligned\.m8n8\.x4\.shared'
	has mm_e5 $a 'prmt\.b32 a0, %r[0-9]*, 0, 0x1404'
	has mm_e5 $a 'prmt\.b32 b3, %r[0-9]*, 0, 0x3424'
	hasnt mm_e5 $a 'ld\.shared\.u8'
done
if "$TILEC" compile $K -n fp8_matmul_kernel -s "$MM, 32, 32, 16" --arch sm_90 -o "$T/k16" 2>"$T/k16.err"; then
	fail "an fp8 dot with K=16 compiles"
elif grep -q "with 8-bit operands needs K of at least 32" "$T/k16.err"; then
	ok
else
	fail "an fp8 dot with K=16: $(cat "$T/k16.err")"
fi
compile mm_e4 $NEW $K fp8_matmul_kernel "${MM//fp8e5/fp8e4nv}, 64, 64, 64"
has mm_e4 90 'mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e4m3\.e4m3\.f32'
compile mm_mixed $NEW $K fp8_matmul_kernel "${MM/fp8e5/fp8e4nv}, 32, 32, 32"
has mm_mixed 90 'mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e4m3\.e5m2\.f32'
# tutorial 03's kernel with fp8e5 operands, B K-major
compile tut03 $ALL tests/kernels/matmul.py matmul_kernel '*fp8e5:16, *fp8e5:16, *fp16:16, i32, i32, i32, i32, i32:1, i32:1, i32, i32, i32:1' \
	-D BLOCK_SIZE_M=32 -D BLOCK_SIZE_N=32 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8

# the GPU suite's kernels, as tests/gpu/cases.py compiles them
G=tests/gpu/kernels/fp8.py
if [ -f $G ]; then
	compile g_to $NEW $G to_fp8_kernel '*fp32:16, *fp8e4nv:16, i32, 1024'
	compile g_from $NEW $G from_fp8_kernel '*fp8e4nv:16, *bf16:16, i32, 1024'
	compile g_rt $ALL $G fp8_roundtrip_kernel '*fp32:16, *fp8e5:16, *u8:16, *fp32:16, i32, 1024'
fi

# fp8e4nv below sm_89 is refused, as Triton refuses it
if "$TILEC" compile $K -n to_fp8_kernel -s '*fp32:16, *fp8e4nv:16, i32, 1024' --arch sm_80,sm_90 -o "$T/r" \
	>"$T/refused.log" 2>&1; then
	fail "fp8e4nv compiled for sm_80"
elif grep -q "fp8e4nv is not supported on CUDA arch < 89, as in Triton: the targets include sm_80" "$T/refused.log"; then
	ok
else
	fail "fp8e4nv for sm_80: $(cat "$T/refused.log")"
fi
# loading and storing fp8e4nv needs no conversion: fine on sm_80
compile e4_copy sm_80 tests/kernels/masked_copy.py shift_kernel '*fp8e4nv:16, *fp8e4nv:16, i32, i32, 1024'

echo "test_compile_fp8: $passed passed, $failed failed"
[ "$failed" = 0 ]
