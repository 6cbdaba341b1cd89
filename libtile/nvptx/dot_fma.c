/* dot_fma.c - tl.dot without tensor cores, and where every tl.dot enters.
 *
 * Each thread keeps the rows of A and the columns of B its accumulator
 * elements need, all of K, and runs one fma chain per element in k order
 * (fp32, i32 for i8), as the reference interpreter does: correct for every
 * dtype and target, slow. A 3-D dot is a batch of such products along dim
 * 0. A dot whose accumulator is in layout_mma goes to dot_mma.c instead.
 * The operands of a "tf32" dot drop their low 13 mantissa bits, as the
 * tensor cores do with the fp32 registers Triton feeds them.
 */
#include "nvptx/lower.h"

#include <string.h>

/* A copy of blocked layout l holding all `k` elements of dim d per thread:
 * threads that differ only along d share (replicate) them. */
static const layout *whole_dim(lw *w, const layout *l, int d, int k)
{
	layout *x = arena_alloc(w->a, sizeof *x);
	if (!x)
		return NULL;
	*x = *l;
	x->size_per_thread[d] = k;
	return x;
}

static LLVMValueRef dot_operand(lw *w, LLVMValueRef x, ir_kind k, bool tf32)
{
	if (k == IR_I8)
		return LLVMBuildSExt(w->b, x, w->i32, "");
	if (ir_kind_is_fp8(k)) /* exact in fp32 */
		return lw_cast(w, x, k, IR_F32);
	x = lw_widen(w, x, k);
	if (!tf32)
		return x;
	/* what the tensor cores take of an fp32 register: the low 13 mantissa
	 * bits dropped (infinities and NaNs kept as they are) */
	LLVMValueRef u = LLVMBuildBitCast(w->b, x, w->i32, "");
	LLVMValueRef e = LLVMBuildAnd(w->b, u, lw_ci32(w, 0x7f800000), "");
	LLVMValueRef special = LLVMBuildICmp(w->b, LLVMIntEQ, e, lw_ci32(w, 0x7f800000), "");
	LLVMValueRef r = LLVMBuildAnd(w->b, u, lw_ci32(w, (int32_t)0xffffe000), "");
	return LLVMBuildBitCast(w->b, LLVMBuildSelect(w->b, special, u, r, ""), w->f32, "");
}

/* Replaces x's registers by dot operands (dot_operand), converted once
 * each; a copy, since the registers belong to the value. */
static bool dot_operands(lw *w, lval *x, ir_kind k, bool tf32)
{
	LLVMValueRef *r = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)(x->n + 1));
	if (!r)
		return lw_oom(w);
	for (int i = 0; i < x->n; i++)
		r[i] = dot_operand(w, x->r[i], k, tf32);
	x->r = r;
	return true;
}

/* tl.dot without tensor cores: each thread keeps the rows of A and the
 * columns of B its accumulator elements need, all of K, and runs one fma
 * chain per element in k order (fp32, i32 for i8), as the reference
 * interpreter does. */
bool lw_emit_dot(lw *w, const ir_op *op, const layout *l, lval *out)
{
	if (l && l->mma && w->p->wgmma[op->results[0]])
		return lw_emit_dot_wgmma(w, op, l, out);
	if (l && l->mma)
		return lw_emit_dot_mma(w, op, l, out);
	ir_type at = lw_vtype(w, op->args[0]), bt = lw_vtype(w, op->args[1]), ct = lw_vtype(w, op->results[0]);
	ir_kind ak = (ir_kind)at.kind, bk = (ir_kind)bt.kind, ck = (ir_kind)ct.kind;
	int rk = at.rank, kk = at.shape[rk - 1]; /* 3-D: dim 0 is a batch */
	if (!l || l->kind != LAYOUT_BLOCKED)
		l = w->p->by_rank[rk];
	const layout *la = whole_dim(w, l, rk - 1, kk), *lb = whole_dim(w, l, rk - 2, kk);
	lval a, b, c;
	if (!la || !lb)
		return lw_oom(w);
	if (!lw_get(w, op->args[0], la, &a) || !lw_get(w, op->args[1], lb, &b) || !lw_get(w, op->args[2], l, &c))
		return false;
	layout_map mc = lw_map_of(l, ct), ma = lw_map_of(la, at), mb = lw_map_of(lb, bt);
	bool tf32 = ak == IR_F32 && op->sub == IR_PRECISION_TF32;
	if (!dot_operands(w, &a, ak, tf32) || !dot_operands(w, &b, bk, tf32) || !lw_alloc_regs(w, out, mc.nregs, l))
		return false;
	for (int r = 0; r < mc.nregs; r++) {
		int32_t idx[IR_MAX_RANK], ia[IR_MAX_RANK], ib[IR_MAX_RANK];
		layout_reg_split(&mc, r, idx);
		LLVMValueRef acc = ak == IR_I8 ? c.r[r] : lw_widen(w, c.r[r], ck);
		for (int t = 0; t < kk; t++) {
			memcpy(ia, idx, sizeof ia);
			memcpy(ib, idx, sizeof ib);
			ia[rk - 1] = t;
			ib[rk - 2] = t;
			LLVMValueRef x = a.r[layout_reg_join(&ma, ia)], y = b.r[layout_reg_join(&mb, ib)];
			if (ak == IR_I8) {
				acc = LLVMBuildAdd(w->b, acc, LLVMBuildMul(w->b, x, y, ""), "");
			} else {
				LLVMValueRef v3[3] = {x, y, acc};
				acc = lw_call(w, ak == IR_F64 ? "llvm.fma.f64" : "llvm.fma.f32", LLVMTypeOf(acc), v3, 3);
			}
		}
		out->r[r] = ak == IR_I8 ? acc : lw_narrow(w, acc, ck);
	}
	return true;
}
