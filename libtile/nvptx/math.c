/* math.c - elementwise arithmetic, comparisons, math functions and casts,
 * one register at a time (emit_value in lower.c applies them to each
 * register of a block).
 *
 * Math follows Triton: fp32 division is div.full.f32, exp is ex2.approx of
 * x*log2(e), exp2 is ex2.approx.ftz (denormal results flush to zero, as
 * Triton's PTX has it), sqrt_rn is sqrt.rn.f32, other functions (sqrt and
 * rsqrt included) are libdevice calls (linked later by target.c, on its
 * flush-to-zero paths unless asked otherwise), fp16/bf16 math goes through
 * fp32.
 */
#include "nvptx/lower.h"

#include <stdio.h>

bool lw_is_f(ir_kind k)
{
	return ir_kind_is_float(k);
}

bool lw_narrow_f(ir_kind k)
{
	return k == IR_F16 || k == IR_BF16;
}

LLVMValueRef lw_widen(lw *w, LLVMValueRef x, ir_kind k)
{
	return lw_narrow_f(k) ? LLVMBuildFPExt(w->b, x, w->f32, "") : x;
}

LLVMValueRef lw_narrow(lw *w, LLVMValueRef x, ir_kind k)
{
	return lw_narrow_f(k) ? LLVMBuildFPTrunc(w->b, x, lw_ltype(w, k), "") : x;
}

/* base's overload for values of type t: "llvm.fabs.f32", and for a pair of
 * halves (lw_binop_pair) "llvm.maxnum.v2f16" */
static void intrinsic_name(const lw *w, char *name, size_t n, const char *base, LLVMTypeRef t)
{
	bool pair = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
	LLVMTypeRef e = pair ? LLVMGetElementType(t) : t;
	const char *suf = e == w->f32 ? "f32" : e == w->f64 ? "f64" : e == w->f16 ? "f16" : e == w->bf16 ? "bf16" :
			  e == w->i64 ? "i64" : e == w->i16 ? "i16" : e == w->i8 ? "i8" : "i32";
	snprintf(name, n, "%s.%s%s", base, pair ? "v2" : "", suf);
}

static LLVMValueRef intrinsic1(lw *w, const char *base, LLVMValueRef x)
{
	char name[64];
	LLVMTypeRef t = LLVMTypeOf(x);
	intrinsic_name(w, name, sizeof name, base, t);
	return lw_call(w, name, t, &x, 1);
}

LLVMValueRef lw_intrinsic2(lw *w, const char *base, LLVMValueRef x, LLVMValueRef y)
{
	char name[64];
	LLVMTypeRef t = LLVMTypeOf(x);
	intrinsic_name(w, name, sizeof name, base, t);
	LLVMValueRef a[2] = {x, y};
	return lw_call(w, name, t, a, 2);
}

LLVMValueRef lw_libdevice(lw *w, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n)
{
	w->libdevice = true;
	return lw_call(w, name, ret, args, n);
}

/* Triton compiles with FP-op fusion on (its enable_fp_fusion default), so a
 * multiply feeding an add becomes one fma. target.c sets the NVPTX fusion
 * option (it also drops .rn as Triton's PTX does), but that alone leaves
 * vectorized f16x2 multiply-adds unfused: the per-instruction `contract`
 * flag fuses those too, so both stay. */
static LLVMValueRef contract(LLVMValueRef v)
{
	/* The builder folds constant operands into constants, which carry no flags. */
	if (LLVMIsAInstruction(v))
		LLVMSetFastMathFlags(v, LLVMFastMathAllowContract);
	return v;
}

LLVMValueRef lw_binop(lw *w, const ir_op *op, ir_kind k, LLVMValueRef x, LLVMValueRef y)
{
	bool f = lw_is_f(k), sg = ir_kind_is_signed(k);
	switch (op->code) {
	case IR_OP_ADD: return f ? contract(LLVMBuildFAdd(w->b, x, y, "")) : LLVMBuildAdd(w->b, x, y, "");
	case IR_OP_SUB: return f ? contract(LLVMBuildFSub(w->b, x, y, "")) : LLVMBuildSub(w->b, x, y, "");
	case IR_OP_MUL: return f ? contract(LLVMBuildFMul(w->b, x, y, "")) : LLVMBuildMul(w->b, x, y, "");
	case IR_OP_DIV:
		if (!f)
			return sg ? LLVMBuildSDiv(w->b, x, y, "") : LLVMBuildUDiv(w->b, x, y, "");
		if (k == IR_F64 || (op->flags & IR_FLAG_PRECISE))
			return lw_narrow(w, LLVMBuildFDiv(w->b, lw_widen(w, x, k), lw_widen(w, y, k), ""), k);
		{
			LLVMValueRef a[2] = {lw_widen(w, x, k), lw_widen(w, y, k)};
			return lw_narrow(w, lw_asm_call(w, w->f32, "div.full.f32 $0, $1, $2;", "=f,f,f", a, 2, false), k);
		}
	case IR_OP_REM:
		if (f)
			return lw_narrow(w, LLVMBuildFRem(w->b, lw_widen(w, x, k), lw_widen(w, y, k), ""), k);
		return sg ? LLVMBuildSRem(w->b, x, y, "") : LLVMBuildURem(w->b, x, y, "");
	case IR_OP_AND: return LLVMBuildAnd(w->b, x, y, "");
	case IR_OP_OR: return LLVMBuildOr(w->b, x, y, "");
	case IR_OP_XOR: return LLVMBuildXor(w->b, x, y, "");
	case IR_OP_SHL: return LLVMBuildShl(w->b, x, y, "");
	case IR_OP_SHR: return sg ? LLVMBuildAShr(w->b, x, y, "") : LLVMBuildLShr(w->b, x, y, "");
	case IR_OP_MIN:
	case IR_OP_MAX: {
		bool mx = op->code == IR_OP_MAX;
		if (f) {
			const char *fn = (op->flags & IR_FLAG_PROPAGATE_NAN) ? (mx ? "llvm.maximum" : "llvm.minimum")
									  : (mx ? "llvm.maxnum" : "llvm.minnum");
			/* a pair of halves (lw_binop_pair) is taken as it is */
			if (LLVMGetTypeKind(LLVMTypeOf(x)) == LLVMVectorTypeKind)
				return lw_intrinsic2(w, fn, x, y);
			return lw_narrow(w, lw_intrinsic2(w, fn, lw_widen(w, x, k), lw_widen(w, y, k)), k);
		}
		LLVMIntPredicate p = mx ? (sg ? LLVMIntSGT : LLVMIntUGT) : (sg ? LLVMIntSLT : LLVMIntULT);
		return LLVMBuildSelect(w->b, LLVMBuildICmp(w->b, p, x, y, ""), x, y, "");
	}
	default:
		return NULL;
	}
}

/* Two elements of a binary op at once as one <2 x half> op (f16: add, sub,
 * mul, min, max; bf16: min, max), where the op pairs. ptxas pairs scalar
 * half ops into HADD2/HMNMX2 itself, but then packs each pair of loaded
 * halves as it goes and reuses their registers, so a loop of loads into
 * maxima waits after every few loads (FlagGems' amax over rows: 6.1 us
 * against 4.0 with the pairs written out). Returns false where the op does
 * not pair, leaving the elements to lw_binop. */
bool lw_binop_pair(lw *w, const ir_op *op, ir_kind k, LLVMValueRef x[2], LLVMValueRef y[2], LLVMValueRef out[2])
{
	bool minmax = op->code == IR_OP_MIN || op->code == IR_OP_MAX;
	bool arith = op->code == IR_OP_ADD || op->code == IR_OP_SUB || op->code == IR_OP_MUL;
	if (!((k == IR_F16 && (minmax || arith)) || (k == IR_BF16 && minmax)))
		return false;
	LLVMTypeRef vt = LLVMVectorType(lw_ltype(w, k), 2);
	LLVMValueRef vx = LLVMGetUndef(vt), vy = LLVMGetUndef(vt);
	for (int i = 0; i < 2; i++) {
		vx = LLVMBuildInsertElement(w->b, vx, x[i], lw_ci32(w, i), "");
		vy = LLVMBuildInsertElement(w->b, vy, y[i], lw_ci32(w, i), "");
	}
	LLVMValueRef v = lw_binop(w, op, k, vx, vy);
	for (int i = 0; i < 2; i++)
		out[i] = LLVMBuildExtractElement(w->b, v, lw_ci32(w, i), "");
	return true;
}

LLVMValueRef lw_compare(lw *w, int sub, ir_kind k, LLVMValueRef x, LLVMValueRef y)
{
	if (lw_is_f(k)) {
		static const LLVMRealPredicate fp[] = {LLVMRealOEQ, LLVMRealUNE, LLVMRealOLT, LLVMRealOLE, LLVMRealOGT, LLVMRealOGE};
		return LLVMBuildFCmp(w->b, fp[sub], x, y, "");
	}
	static const LLVMIntPredicate sp[] = {LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
	static const LLVMIntPredicate up[] = {LLVMIntEQ, LLVMIntNE, LLVMIntULT, LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
	return LLVMBuildICmp(w->b, ir_kind_is_signed(k) ? sp[sub] : up[sub], x, y, "");
}

LLVMValueRef lw_math(lw *w, const ir_op *op, ir_kind k, LLVMValueRef x)
{
	static const char *const f32n[IR_MATH_COUNT] = {
		[IR_MATH_EXP] = "__nv_expf", [IR_MATH_EXP2] = "__nv_exp2f", [IR_MATH_LOG] = "__nv_logf",
		[IR_MATH_LOG2] = "__nv_log2f", [IR_MATH_SQRT] = "__nv_sqrtf",
		[IR_MATH_RSQRT] = "__nv_rsqrtf", [IR_MATH_SIN] = "__nv_sinf", [IR_MATH_COS] = "__nv_cosf",
		[IR_MATH_FLOOR] = "__nv_floorf", [IR_MATH_CEIL] = "__nv_ceilf", [IR_MATH_ERF] = "__nv_erff",
	};
	static const char *const f64n[IR_MATH_COUNT] = {
		[IR_MATH_EXP] = "__nv_exp", [IR_MATH_EXP2] = "__nv_exp2", [IR_MATH_LOG] = "__nv_log",
		[IR_MATH_LOG2] = "__nv_log2", [IR_MATH_SQRT] = "__nv_sqrt", [IR_MATH_SQRT_RN] = "__nv_dsqrt_rn",
		[IR_MATH_RSQRT] = "__nv_rsqrt", [IR_MATH_SIN] = "__nv_sin", [IR_MATH_COS] = "__nv_cos",
		[IR_MATH_FLOOR] = "__nv_floor", [IR_MATH_CEIL] = "__nv_ceil", [IR_MATH_ERF] = "__nv_erf",
	};
	int m = op->sub;
	if (m < 0 || m >= IR_MATH_COUNT)
		return NULL;
	if (m == IR_MATH_ABS) {
		if (lw_is_f(k))
			return intrinsic1(w, "llvm.fabs", x);
		if (!ir_kind_is_signed(k))
			return x;
		LLVMValueRef neg = LLVMBuildICmp(w->b, LLVMIntSLT, x, LLVMConstNull(LLVMTypeOf(x)), "");
		return LLVMBuildSelect(w->b, neg, LLVMBuildNeg(w->b, x, ""), x, "");
	}
	if (!lw_is_f(k))
		return NULL;
	if (k == IR_F64)
		return lw_libdevice(w, f64n[m], w->f64, &x, 1);
	LLVMValueRef y = lw_widen(w, x, k), r;
	if (m == IR_MATH_EXP || m == IR_MATH_EXP2) {
		if (m == IR_MATH_EXP)
			y = LLVMBuildFMul(w->b, y, LLVMConstReal(w->f32, 1.4426950408889634), "");
		r = lw_asm_call(w, w->f32, m == IR_MATH_EXP ? "ex2.approx.f32 $0, $1;" : "ex2.approx.ftz.f32 $0, $1;",
				"=f,f", &y, 1, false);
	} else if (m == IR_MATH_SQRT_RN) {
		/* IEEE whatever libdevice's flag: Triton's tl.sqrt_rn is the intrinsic */
		r = lw_call(w, "llvm.nvvm.sqrt.rn.f", w->f32, &y, 1);
	} else {
		r = lw_libdevice(w, f32n[m], w->f32, &y, 1);
	}
	return lw_narrow(w, r, k);
}

/* fp16's values 1024 .. 2047 are the integers, one apart: 0x6400 | u is
 * 1024 + u for u < 1024. So an integer x known to lie in [lo, lo + 1023]
 * is (0x6400 | (x - lo)) - (1024 - lo): an integer op and an fp16
 * subtraction, exact (a single rounding where |x| > 2048, as cvt.rn's)
 * while 1024 - lo is an fp16 integer, where cvt.rn.f16 takes the slow
 * conversion unit. The int4 dequantization `(w & 0xF) - 8` needs no more
 * than the mask: LLVM folds the subtraction into x - lo. */
LLVMValueRef lw_cast_ranged(lw *w, LLVMValueRef x, ir_kind from, int64_t lo, int64_t hi)
{
	if (!ir_kind_is_int(from) || hi - lo > 1023 || lo < -1024 || lo > 3072)
		return lw_cast(w, x, from, IR_F16);
	LLVMTypeRef xt = LLVMTypeOf(x);
	/* x - lo wraps to u in x's own width: u < 2^bits (hi - lo fits the kind) */
	LLVMValueRef u = LLVMBuildSub(w->b, x, LLVMConstInt(xt, (unsigned long long)lo, true), "");
	u = LLVMBuildIntCast2(w->b, u, w->i16, false, "");
	LLVMValueRef h = LLVMBuildBitCast(w->b, LLVMBuildOr(w->b, u, LLVMConstInt(w->i16, 0x6400, false), ""), w->f16, "");
	return LLVMBuildFSub(w->b, h, LLVMConstReal(w->f16, (double)(1024 - lo)), "");
}

LLVMValueRef lw_cast(lw *w, LLVMValueRef x, ir_kind from, ir_kind to)
{
	LLVMTypeRef tt = lw_ltype(w, to);
	if (from == to)
		return x;
	if (ir_kind_is_fp8(from) || ir_kind_is_fp8(to))
		return lw_fp8_cast(w, x, from, to);
	if (to == IR_I1) {
		if (lw_is_f(from))
			return LLVMBuildFCmp(w->b, LLVMRealUNE, x, LLVMConstNull(LLVMTypeOf(x)), "");
		if (from == IR_PTR)
			x = LLVMBuildPtrToInt(w->b, x, w->i64, "");
		return LLVMBuildICmp(w->b, LLVMIntNE, x, LLVMConstNull(LLVMTypeOf(x)), "");
	}
	if (from == IR_PTR)
		return LLVMBuildPtrToInt(w->b, x, tt, "");
	if (to == IR_PTR)
		return LLVMBuildIntToPtr(w->b, LLVMBuildIntCast2(w->b, x, w->i64, ir_kind_is_signed(from), ""), tt, "");
	if (lw_is_f(from) && lw_is_f(to)) {
		int fb = ir_kind_bits(from), tb = ir_kind_bits(to);
		if (fb == tb) /* fp16 <-> bf16: exactly through fp32 */
			return LLVMBuildFPTrunc(w->b, LLVMBuildFPExt(w->b, x, w->f32, ""), tt, "");
		return fb < tb ? LLVMBuildFPExt(w->b, x, tt, "") : LLVMBuildFPTrunc(w->b, x, tt, "");
	}
	if (lw_is_f(from))
		return ir_kind_is_signed(to) ? LLVMBuildFPToSI(w->b, x, tt, "") : LLVMBuildFPToUI(w->b, x, tt, "");
	if (lw_is_f(to))
		return ir_kind_is_signed(from) ? LLVMBuildSIToFP(w->b, x, tt, "") : LLVMBuildUIToFP(w->b, x, tt, "");
	return LLVMBuildIntCast2(w->b, x, tt, ir_kind_is_signed(from), "");
}
