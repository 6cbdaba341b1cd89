/* inline_asm.c - tl.inline_asm_elementwise (INLINE_ASM), as Triton lowers it.
 *
 * The arguments come in the results' layout; each thread runs the assembly
 * once per `pack` of its elements (registers in order: which elements share
 * a call is unspecified, as Triton says). Elements narrower than 32 bits
 * are packed, up to 32 bits or `pack` of them, into one register (a vector
 * bitcast to an integer), results likewise, so the operands are, in order:
 * every result's registers, then every argument's; the constraint string
 * must list that many. Each operand's LLVM type follows its constraint
 * letter (r i32, l i64, h i16, f f32, d f64, c i8; other letters keep the
 * value's own type), values converted bit for bit or widened to it. A
 * thread with fewer elements than a full pack passes undefined values for
 * the missing ones and drops their results. is_pure=False makes the
 * assembly volatile (never merged or removed).
 */
#include "nvptx/lower.h"

#include <string.h>

enum { ASM_MAX_OPERANDS = 64 };

/* elements per register of kind k in a pack of `pack` */
static int per_reg(ir_kind k, int pack)
{
	int bits = ir_kind_bytes(k) * 8;
	int n = bits < 32 ? 32 / bits : 1;
	n = n < pack ? n : pack;
	while (n > 1 && pack % n)
		n /= 2;
	return n;
}

static LLVMTypeRef letter_type(lw *w, char c, LLVMTypeRef own)
{
	switch (c) {
	case 'r': return w->i32;
	case 'l': return w->i64;
	case 'h': return w->i16;
	case 'c': return w->i8;
	case 'f': return w->f32;
	case 'd': return w->f64;
	default: return own;
	}
}

static unsigned type_bits(lw *w, LLVMTypeRef t)
{
	if (t == w->f32)
		return 32;
	if (t == w->f64)
		return 64;
	if (t == w->f16 || t == w->bf16)
		return 16;
	if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind)
		return LLVMGetIntTypeWidth(t);
	return 0;
}

/* x as type `to`: the same bits, zero-extended or truncated in between. */
static LLVMValueRef convert(lw *w, LLVMValueRef x, LLVMTypeRef to)
{
	LLVMTypeRef from = LLVMTypeOf(x);
	if (from == to)
		return x;
	/* a pointer goes in as its address (an "l" operand) */
	if (LLVMGetTypeKind(from) == LLVMPointerTypeKind) {
		x = LLVMBuildPtrToInt(w->b, x, w->i64, "");
		from = w->i64;
		if (from == to)
			return x;
	}
	if (LLVMGetTypeKind(to) == LLVMPointerTypeKind)
		return LLVMBuildIntToPtr(w->b, convert(w, x, w->i64), to, "");
	unsigned fb = type_bits(w, from), tb = type_bits(w, to);
	if (!fb || !tb)
		return LLVMBuildBitCast(w->b, x, to, "");
	LLVMTypeRef fi = LLVMIntTypeInContext(w->c, fb), ti = LLVMIntTypeInContext(w->c, tb);
	LLVMValueRef v = from == fi ? x : LLVMBuildBitCast(w->b, x, fi, "");
	if (fb < tb)
		v = LLVMBuildZExt(w->b, v, ti, "");
	else if (fb > tb)
		v = LLVMBuildTrunc(w->b, v, ti, "");
	return to == ti ? v : LLVMBuildBitCast(w->b, v, to, "");
}

/* The constraint letters of the comma-separated list, outputs marked. */
static int parse_constraints(const char *s, char *letters, bool *outs, int max)
{
	int n = 0;
	while (*s && n < max) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		size_t i = 0;
		bool out = false;
		while (i < len && (s[i] == '=' || s[i] == '&' || s[i] == '+' || s[i] == ' '))
			out |= s[i++] == '=';
		if (i < len && s[i] == '~') /* a clobber */
			goto next;
		letters[n] = i < len ? s[i] : '?';
		outs[n++] = out;
	next:
		if (!e)
			break;
		s = e + 1;
	}
	return n;
}

bool lw_emit_inline_asm(lw *w, const ir_op *op)
{
	int nres = op->nresults, nargs = op->nargs, pack = (int)op->ival;
	ir_type rt = lw_vtype(w, op->results[0]);
	const layout *l = NULL;
	int nregs = 1;
	if (rt.rank) {
		l = w->p->of[op->results[0]];
		if (!l)
			l = w->p->by_rank[rt.rank];
		nregs = lw_map_of(l, rt).nregs;
	}
	lval x[16];
	if (nargs > 16)
		return lw_fail(w, op, TILEC_ERR_UNSUPPORTED, "inline assembly with more than 16 arguments is not supported");
	for (int i = 0; i < nargs; i++)
		if (!lw_get(w, op->args[i], rt.rank ? l : NULL, &x[i]))
			return false;
	char letters[ASM_MAX_OPERANDS];
	bool outs[ASM_MAX_OPERANDS];
	int ncons = parse_constraints(op->text, letters, outs, ASM_MAX_OPERANDS);
	int nout = 0, nin = 0;
	for (int i = 0; i < nres; i++)
		nout += pack / per_reg((ir_kind)lw_vtype(w, op->results[i]).kind, pack);
	for (int i = 0; i < nargs; i++)
		nin += pack / per_reg((ir_kind)lw_vtype(w, op->args[i]).kind, pack);
	int couts = 0;
	for (int i = 0; i < ncons; i++)
		couts += outs[i];
	if (nout + nin > ASM_MAX_OPERANDS || couts != nout || ncons != nout + nin)
		return lw_fail(w, op, TILEC_ERR_SEMANTIC,
			       "the constraints \"%s\" name %d output(s) and %d input(s); %d result(s) and %d argument(s) with "
			       "pack=%d take %d and %d (elements under 32 bits packed into 32-bit registers)",
			       op->text, couts, ncons - couts, nres, nargs, pack, nout, nin);
	for (int i = 0; i < nres; i++)
		if (!lw_alloc_regs(w, &w->v[op->results[i]], nregs, rt.rank ? l : NULL))
			return false;
	/* the register types: outputs, then inputs */
	LLVMTypeRef otypes[ASM_MAX_OPERANDS];
	int at = 0;
	for (int i = 0; i < nres; i++) {
		ir_kind k = (ir_kind)lw_vtype(w, op->results[i]).kind;
		int e = per_reg(k, pack);
		LLVMTypeRef own = e > 1 ? LLVMIntTypeInContext(w->c, (unsigned)(e * ir_kind_bytes(k) * 8)) : lw_ltype(w, k);
		for (int j = 0; j < pack / e; j++, at++)
			otypes[at] = letter_type(w, letters[at], own);
	}
	LLVMTypeRef ret = nout == 1 ? otypes[0] : LLVMStructTypeInContext(w->c, otypes, (unsigned)nout, false);
	for (int g = 0; g < nregs; g += pack) {
		LLVMValueRef ops[ASM_MAX_OPERANDS];
		int n = 0;
		for (int i = 0; i < nargs; i++) {
			ir_kind k = (ir_kind)lw_vtype(w, op->args[i]).kind;
			LLVMTypeRef et = lw_ltype(w, k);
			int e = per_reg(k, pack);
			for (int j = 0; j < pack / e; j++, n++) {
				LLVMValueRef v;
				if (e > 1) {
					v = LLVMGetUndef(LLVMVectorType(et, (unsigned)e));
					for (int q = 0; q < e; q++) {
						int r = g + j * e + q;
						LLVMValueRef el = r < nregs ? x[i].r[rt.rank ? r : 0] : LLVMGetUndef(et);
						v = LLVMBuildInsertElement(w->b, v, el, lw_ci32(w, q), "");
					}
					v = LLVMBuildBitCast(w->b, v, LLVMIntTypeInContext(w->c, (unsigned)(e * ir_kind_bytes(k) * 8)), "");
				} else {
					int r = g + j;
					v = r < nregs ? x[i].r[rt.rank ? r : 0] : LLVMGetUndef(et);
				}
				char c = letters[nout + n];
				if (c >= '0' && c <= '9' && c - '0' < nout)
					ops[n] = convert(w, v, otypes[c - '0']);
				else
					ops[n] = convert(w, v, letter_type(w, c, LLVMTypeOf(v)));
			}
		}
		LLVMValueRef res = lw_asm_call(w, ret, op->name, op->text, ops, n, (op->flags & IR_FLAG_VOLATILE) != 0);
		at = 0;
		for (int i = 0; i < nres; i++) {
			ir_kind k = (ir_kind)lw_vtype(w, op->results[i]).kind;
			LLVMTypeRef et = lw_ltype(w, k);
			int e = per_reg(k, pack);
			for (int j = 0; j < pack / e; j++, at++) {
				LLVMValueRef v = nout == 1 ? res : LLVMBuildExtractValue(w->b, res, (unsigned)at, "");
				if (e > 1) {
					v = convert(w, v, LLVMIntTypeInContext(w->c, (unsigned)(e * ir_kind_bytes(k) * 8)));
					v = LLVMBuildBitCast(w->b, v, LLVMVectorType(et, (unsigned)e), "");
				}
				for (int q = 0; q < e; q++) {
					int r = g + j * e + q;
					if (r >= nregs)
						continue;
					LLVMValueRef el = e > 1 ? LLVMBuildExtractElement(w->b, v, lw_ci32(w, q), "") : convert(w, v, et);
					w->v[op->results[i]].r[r] = el;
				}
			}
		}
	}
	return true;
}
