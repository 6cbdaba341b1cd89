/* fp8.c - conversions to and from fp8e4nv and fp8e5, one register at a
 * time, with the instructions Triton 3.6 picks per compute capability
 * (ir/fp8.c states the results and is the interpreter's version).
 *
 * An fp8 value is an i8 (its byte). Widening gives the same results on
 * every arch: fp8e5 to fp16 is the byte shifted into place, fp8e4nv to
 * fp16 is cvt.rn.f16x2.e4m3x2 (sm_89), fp32 comes from fp16, bf16 from
 * fp32 (fp8e4nv) or from Triton's shift-and-scale by 2^112 (fp8e5).
 * Narrowing differs by tier, so each one is built and
 * __nvvm_reflect("__CUDA_ARCH") selects: O3 resolves it for the family's
 * target (compile.c lowers each tier apart when a kernel narrows) and
 * drops the other tiers' code, their inline assembly included (it has no
 * side effects). sm_90: cvt.rn.satfinite.{e4m3,e5m2}x2 from fp32 and
 * fp16, bf16 through fp32; sm_89: fp32 first to fp16 with cvt.rz, then
 * the fp16 route; below: fp8e5 only (compile.c refuses fp8e4nv there),
 * by Triton's integer routines.
 */
#include "nvptx/lower.h"

#include <string.h>

static LLVMValueRef ci(LLVMTypeRef t, uint64_t v)
{
	return LLVMConstInt(t, v, false);
}

static LLVMValueRef f16_bits(lw *w, LLVMValueRef x)
{
	return LLVMBuildBitCast(w->b, x, w->i16, "");
}

/* ---- widening ---- */

static LLVMValueRef to_f16(lw *w, LLVMValueRef b, ir_kind k)
{
	LLVMValueRef h = LLVMBuildZExt(w->b, b, w->i16, "");
	if (k == IR_F8E5)
		return LLVMBuildBitCast(w->b, LLVMBuildShl(w->b, h, ci(w->i16, 8), ""), w->f16, "");
	LLVMValueRef r = lw_asm_call(w, w->i32, "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h", &h, 1, false);
	return LLVMBuildBitCast(w->b, LLVMBuildTrunc(w->b, r, w->i16, ""), w->f16, "");
}

static LLVMValueRef to_bf16(lw *w, LLVMValueRef b, ir_kind k)
{
	if (k == IR_F8E4NV)
		return LLVMBuildFPTrunc(w->b, LLVMBuildFPExt(w->b, to_f16(w, b, k), w->f32, ""), w->bf16, "");
	/* Triton's: the exponent and mantissa moved under bf16's, times 2^112
	 * (exact; infinities and NaNs come out as finite values) */
	LLVMValueRef u = LLVMBuildZExt(w->b, b, w->i32, "");
	LLVMValueRef mag = LLVMBuildShl(w->b, LLVMBuildAnd(w->b, u, lw_ci32(w, 0x7f), ""), lw_ci32(w, 21), "");
	LLVMValueRef f = LLVMBuildFMul(w->b, LLVMBuildBitCast(w->b, mag, w->f32, ""), LLVMConstReal(w->f32, 0x1p112), "");
	LLVMValueRef hi = LLVMBuildLShr(w->b, LLVMBuildBitCast(w->b, f, w->i32, ""), lw_ci32(w, 16), "");
	LLVMValueRef sign = LLVMBuildShl(w->b, LLVMBuildAnd(w->b, u, lw_ci32(w, 0x80), ""), lw_ci32(w, 8), "");
	LLVMValueRef r = LLVMBuildTrunc(w->b, LLVMBuildOr(w->b, hi, sign, ""), w->i16, "");
	return LLVMBuildBitCast(w->b, r, w->bf16, "");
}

/* ---- narrowing ---- */

static const char *cvt_text(ir_kind k, bool from_f16)
{
	if (k == IR_F8E4NV)
		return from_f16 ? "cvt.rn.satfinite.e4m3x2.f16x2 $0, $1;" : "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $1;";
	return from_f16 ? "cvt.rn.satfinite.e5m2x2.f16x2 $0, $1;" : "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $1;";
}

/* cvt.rn.satfinite from fp32 (sm_89 has it; Triton uses it from sm_90 on
 * for fp32, and for bf16 from sm_89 on) */
static LLVMValueRef cvt_f32(lw *w, LLVMValueRef x, ir_kind k)
{
	LLVMValueRef r = lw_asm_call(w, w->i16, cvt_text(k, false), "=h,f", &x, 1, false);
	return LLVMBuildTrunc(w->b, r, w->i8, "");
}

/* fp16 bits (i16) to fp8: the cvt from sm_89 on, Triton's integer rounding below */
static LLVMValueRef from_f16_bits(lw *w, LLVMValueRef h, ir_kind k, bool native)
{
	LLVMValueRef u = LLVMBuildZExt(w->b, h, w->i32, "");
	if (native) {
		LLVMValueRef r = lw_asm_call(w, w->i16, cvt_text(k, true), "=h,r", &u, 1, false);
		return LLVMBuildTrunc(w->b, r, w->i8, "");
	}
	/* add half an fp8 ulp to the bits (ties away from zero, overflow to infinity) */
	u = LLVMBuildAdd(w->b, LLVMBuildAnd(w->b, u, lw_ci32(w, 0xfffe), ""), lw_ci32(w, 0x80), "");
	return LLVMBuildTrunc(w->b, LLVMBuildLShr(w->b, u, lw_ci32(w, 8), ""), w->i8, "");
}

/* Triton's bf16 to fp8e5 below sm_89: the magnitude clamped to
 * [0x3800, 0x57e0], rounded, rebased by 112 exponents, its byte taken */
static LLVMValueRef bf16_to_e5_int(lw *w, LLVMValueRef x)
{
	LLVMValueRef u = LLVMBuildZExt(w->b, LLVMBuildBitCast(w->b, x, w->i16, ""), w->i32, "");
	LLVMValueRef v = LLVMBuildAnd(w->b, u, lw_ci32(w, 0x7fff), "");
	LLVMValueRef args[2] = {v, lw_ci32(w, 0x3800)};
	v = lw_call(w, "llvm.umax.i32", w->i32, args, 2);
	args[0] = v;
	args[1] = lw_ci32(w, 0x57e0);
	v = lw_call(w, "llvm.umin.i32", w->i32, args, 2);
	v = LLVMBuildSub(w->b, LLVMBuildAdd(w->b, v, lw_ci32(w, 0x10), ""), lw_ci32(w, 0x3800), "");
	v = LLVMBuildAnd(w->b, LLVMBuildLShr(w->b, v, lw_ci32(w, 5), ""), lw_ci32(w, 0xff), "");
	LLVMValueRef sign = LLVMBuildAnd(w->b, LLVMBuildLShr(w->b, u, lw_ci32(w, 8), ""), lw_ci32(w, 0x80), "");
	return LLVMBuildTrunc(w->b, LLVMBuildOr(w->b, v, sign, ""), w->i8, "");
}

static LLVMValueRef from_f32(lw *w, LLVMValueRef x, ir_kind k, LLVMValueRef arch)
{
	LLVMValueRef rz = lw_asm_call(w, w->i16, "cvt.rz.f16.f32 $0, $1;", "=h,f", &x, 1, false);
	LLVMValueRef sm90 = cvt_f32(w, x, k), sm89 = from_f16_bits(w, rz, k, true);
	LLVMValueRef older = k == IR_F8E5 ? from_f16_bits(w, rz, k, false) : sm89;
	LLVMValueRef is90 = LLVMBuildICmp(w->b, LLVMIntSGE, arch, lw_ci32(w, 900), "");
	LLVMValueRef is89 = LLVMBuildICmp(w->b, LLVMIntSGE, arch, lw_ci32(w, 890), "");
	return LLVMBuildSelect(w->b, is90, sm90, LLVMBuildSelect(w->b, is89, sm89, older, ""), "");
}

LLVMValueRef lw_fp8_cast(lw *w, LLVMValueRef x, ir_kind from, ir_kind to)
{
	if (from == to)
		return x;
	if (ir_kind_is_fp8(from)) {
		if (to == IR_F16)
			return to_f16(w, x, from);
		if (to == IR_BF16)
			return to_bf16(w, x, from);
		return LLVMBuildFPExt(w->b, to_f16(w, x, from), lw_ltype(w, to), "");
	}
	LLVMValueRef arch = lw_cuda_arch(w);
	if (from == IR_F32)
		return from_f32(w, x, to, arch);
	LLVMValueRef is89 = LLVMBuildICmp(w->b, LLVMIntSGE, arch, lw_ci32(w, 890), "");
	LLVMValueRef native, older;
	if (from == IR_F16) {
		native = from_f16_bits(w, f16_bits(w, x), to, true);
		older = to == IR_F8E5 ? from_f16_bits(w, f16_bits(w, x), to, false) : native;
	} else { /* bf16 */
		native = cvt_f32(w, LLVMBuildFPExt(w->b, x, w->f32, ""), to);
		older = to == IR_F8E5 ? bf16_to_e5_int(w, x) : native;
	}
	return LLVMBuildSelect(w->b, is89, native, older, "");
}
