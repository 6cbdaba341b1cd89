/* atomic.c - atomics: ATOMIC_RMW and ATOMIC_CAS to PTX atom and red.
 *
 * As Triton lowers them: one atomic per element a thread holds, in inline
 * PTX `atom{.sem}{.scope}.global.op.type`, predicated on the element's
 * mask and on the thread owning the element (threads holding replicas
 * skip it, so each address is updated once). An atomic whose result is
 * never read becomes `red` when its semantics allow (relaxed or release,
 * not an exchange), as in Triton. A scalar atomic runs in thread 0 alone
 * and its old value reaches the other threads through shared memory; a
 * block whose layout replicates elements hands the owners' old values to
 * the replicas the same way. Masked-off elements give 0 (Triton leaves
 * them undefined). fp16 additions go two at a time (`f16x2`) where the
 * pointers come in aligned pairs (and the mask with them), as Triton packs
 * them; bf16 additions likewise (`bf16x2`) from sm_90 on, where PTX has
 * bf16 atomics. Below sm_90 a bf16 addition is an LLVM atomicrmw, which
 * the backend turns into a compare-and-swap loop, as Triton does there;
 * the lowering picks the tier through __nvvm_reflect (compile.c lowers
 * sm_90 and older targets apart when a kernel adds bf16).
 */
#include "nvptx/lower.h"

#include <llvm/Config/llvm-config.h> /* LLVM_VERSION_MAJOR */
#include <stdio.h>
#include <string.h>

/* The PTX type suffix of the instruction for kind k. */
static const char *ptx_type(const ir_op *op, ir_kind k)
{
	int bits = ir_kind_bits(k);
	if (op->code == IR_OP_ATOMIC_CAS || op->sub == IR_ATOMIC_XCHG || op->sub == IR_ATOMIC_AND ||
	    op->sub == IR_ATOMIC_OR || op->sub == IR_ATOMIC_XOR)
		return bits == 16 ? "b16" : bits == 32 ? "b32" : "b64";
	if (k == IR_F16)
		return "noftz.f16";
	if (k == IR_BF16)
		return "noftz.bf16";
	if (k == IR_F32)
		return "f32";
	if (k == IR_F64)
		return "f64";
	if (op->sub == IR_ATOMIC_ADD)
		return bits == 32 ? "u32" : "u64";
	if (ir_kind_is_signed(k))
		return bits == 32 ? "s32" : "s64";
	return bits == 32 ? "u32" : "u64";
}

static const char *ptx_op(const ir_op *op)
{
	static const char *const names[] = {"add", "max", "min", "and", "or", "xor", "exch"};
	return op->code == IR_OP_ATOMIC_CAS ? "cas" : names[op->sub];
}

/* An integer register type of k's width and its inline-asm constraint. */
static LLVMTypeRef word_type(lw *w, ir_kind k, const char **cons, const char **mov)
{
	int bits = ir_kind_bits(k);
	*cons = bits == 16 ? "h" : bits == 32 ? "r" : "l";
	*mov = bits == 16 ? "mov.b16" : bits == 32 ? "mov.b32" : "mov.b64";
	return bits == 16 ? w->i16 : bits == 32 ? w->i32 : w->i64;
}

/* One element, or with pair two 16-bit float elements packed in an i32
 * (`f16x2`, `bf16x2`): atom or red through inline PTX; vals are the value
 * (and for CAS the compare value first), pred may be NULL. Returns the old
 * value (the packed i32 for a pair; NULL for red). */
static LLVMValueRef emit_one(lw *w, const ir_op *op, ir_kind k, bool pair, bool red, LLVMValueRef ptr,
			     LLVMValueRef *vals, int nvals, LLVMValueRef pred)
{
	static const char *const sems[] = {".acq_rel", ".relaxed", ".acquire", ".release"};
	static const char *const scopes[] = {".gpu", ".cta", ".sys"};
	const char *c, *mov;
	LLVMTypeRef wt = word_type(w, pair ? IR_I32 : k, &c, &mov);
	const char *type = !pair ? ptx_type(op, k) : k == IR_BF16 ? "noftz.bf16x2" : "noftz.f16x2";
	char text[256], cons[64];
	LLVMValueRef args[4];
	int na = 0, pos = 0, cp = 0;
	const char *instr = red ? "red" : "atom";
	const char *sem = sems[op->ival], *scope = scopes[op->ival2];
	if (red) {
		args[na++] = ptr;
		cp += snprintf(cons + cp, sizeof cons - (size_t)cp, "l");
		for (int i = 0; i < nvals; i++) {
			args[na++] = LLVMBuildBitCast(w->b, vals[i], wt, "");
			cp += snprintf(cons + cp, sizeof cons - (size_t)cp, ",%s", c);
		}
		if (pred)
			pos += snprintf(text + pos, sizeof text - (size_t)pos, "@$%d ", na);
		snprintf(text + pos, sizeof text - (size_t)pos, "%s%s%s.global.%s.%s [$0], $1;", instr, sem, scope,
			 ptx_op(op), type);
	} else {
		args[na++] = ptr;
		cp += snprintf(cons + cp, sizeof cons - (size_t)cp, "=%s,l", c);
		for (int i = 0; i < nvals; i++) {
			args[na++] = LLVMBuildBitCast(w->b, vals[i], wt, "");
			cp += snprintf(cons + cp, sizeof cons - (size_t)cp, ",%s", c);
		}
		if (pred)
			pos += snprintf(text + pos, sizeof text - (size_t)pos, "%s $0, 0;\n\t@$%d ", mov, na + 1);
		pos += snprintf(text + pos, sizeof text - (size_t)pos, "%s%s%s.global.%s.%s $0, [$1], $2", instr, sem, scope,
				ptx_op(op), type);
		snprintf(text + pos, sizeof text - (size_t)pos, nvals == 2 ? ", $3;" : ";");
	}
	if (pred) {
		args[na++] = pred;
		snprintf(cons + cp, sizeof cons - (size_t)cp, ",b");
	}
	LLVMValueRef r = lw_asm_call(w, red ? w->vd : wt, text, cons, args, na, true);
	return red || pair ? (red ? NULL : r) : LLVMBuildBitCast(w->b, r, lw_ltype(w, k), "");
}

static LLVMAtomicOrdering ordering(const ir_op *op)
{
	switch ((ir_sem)op->ival) {
	case IR_SEM_RELAXED: return LLVMAtomicOrderingMonotonic;
	case IR_SEM_ACQUIRE: return LLVMAtomicOrderingAcquire;
	case IR_SEM_RELEASE: return LLVMAtomicOrderingRelease;
	default: return LLVMAtomicOrderingAcquireRelease;
	}
}

/* An atomicrmw in the op's scope, the one emit_one writes: LLVM 22 gives
 * the compare-and-swap loop the atomicrmw's scope, system by default
 * (`atom.acq_rel.sys`); the C API names a scope from LLVM 20 on. LLVM 19
 * writes its loop's `atom` with neither semantics nor scope (PTX's
 * defaults: relaxed, GPU). */
static LLVMValueRef scoped_rmw(lw *w, const ir_op *op, LLVMAtomicRMWBinOp bin, LLVMValueRef ptr, LLVMValueRef val)
{
#if LLVM_VERSION_MAJOR >= 20
	/* NVPTX's names for .gpu, .cta and .sys; "" is LLVM's system scope */
	static const char *const scopes[] = {"device", "block", ""};
	const char *s = scopes[op->ival2];
	return LLVMBuildAtomicRMWSyncScope(w->b, bin, ptr, val, ordering(op), LLVMGetSyncScopeID(w->c, s, strlen(s)));
#else
	return LLVMBuildAtomicRMW(w->b, bin, ptr, val, ordering(op), false);
#endif
}

/* bf16 addition: an atomicrmw under a branch on pred; 0 where it is off. */
static LLVMValueRef emit_bf16_add(lw *w, const ir_op *op, LLVMValueRef ptr, LLVMValueRef val, LLVMValueRef pred)
{
	LLVMValueRef zero = LLVMConstNull(w->bf16);
	LLVMBasicBlockRef from = LLVMGetInsertBlock(w->b), join = NULL;
	if (pred)
		join = lw_begin_if(w, pred);
	LLVMValueRef old = scoped_rmw(w, op, LLVMAtomicRMWBinOpFAdd, ptr, val);
	if (!pred)
		return old;
	LLVMBasicBlockRef then = LLVMGetInsertBlock(w->b);
	lw_end_if(w, join);
	LLVMValueRef phi = LLVMBuildPhi(w->b, w->bf16, "");
	LLVMValueRef in[2] = {old, zero};
	LLVMBasicBlockRef bbs[2] = {then, from};
	LLVMAddIncoming(phi, in, bbs, 2);
	return phi;
}

static LLVMValueRef and_pred(lw *w, LLVMValueRef a, LLVMValueRef b)
{
	return !a ? b : !b ? a : LLVMBuildAnd(w->b, a, b, "");
}

/* The atomics of every register into old: with pairs, two elements per
 * instruction; bf16 additions through inline PTX where native, else
 * through the compare-and-swap loop. */
static void emit_regs(lw *w, const ir_op *op, ir_kind k, bool pairs, bool native, bool red, const lval *a,
		      LLVMValueRef own, bool has_mask, LLVMValueRef *old)
{
	bool cas = op->code == IR_OP_ATOMIC_CAS;
	for (int r = 0; r < a[0].n; r += pairs ? 2 : 1) {
		LLVMValueRef pred = and_pred(w, own, has_mask ? a[2].r[r] : NULL);
		if (pairs) {
			LLVMTypeRef v2 = LLVMVectorType(lw_ltype(w, k), 2);
			LLVMValueRef x = LLVMGetUndef(v2);
			for (int i = 0; i < 2; i++)
				x = LLVMBuildInsertElement(w->b, x, a[1].r[r + i], lw_ci32(w, i), "");
			x = LLVMBuildBitCast(w->b, x, w->i32, "");
			LLVMValueRef o = emit_one(w, op, k, true, red, a[0].r[r], &x, 1, pred);
			o = LLVMBuildBitCast(w->b, o ? o : lw_ci32(w, 0), v2, "");
			for (int i = 0; i < 2; i++)
				old[r + i] = LLVMBuildExtractElement(w->b, o, lw_ci32(w, i), "");
			continue;
		}
		LLVMValueRef vals[2] = {a[1].r[r], cas ? a[2].r[r] : NULL}, o;
		if (!cas && k == IR_BF16 && !native)
			o = emit_bf16_add(w, op, a[0].r[r], vals[0], pred);
		else
			o = emit_one(w, op, k, false, red, a[0].r[r], vals, cas ? 2 : 1, pred);
		old[r] = o ? o : LLVMConstNull(lw_ltype(w, k));
	}
}

/* bf16 addition in both tiers: inline PTX (`bf16x2` pairs where pairs
 * allows, scalar `bf16` otherwise, in the op's semantics and scope) from
 * sm_90 on, the compare-and-swap loop below; O3 keeps the target's. */
static bool emit_bf16_tiers(lw *w, const ir_op *op, bool pairs, bool red, const lval *a, LLVMValueRef own,
			    bool has_mask, LLVMValueRef *old)
{
	int n = a[0].n;
	LLVMValueRef *nat = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)n);
	if (!nat)
		return lw_oom(w);
	LLVMValueRef sm90 = LLVMBuildICmp(w->b, LLVMIntSGE, lw_cuda_arch(w), lw_ci32(w, 900), "");
	LLVMBasicBlockRef native = LLVMAppendBasicBlockInContext(w->c, w->fn, "bf16.sm90");
	LLVMBasicBlockRef older = LLVMAppendBasicBlockInContext(w->c, w->fn, "bf16.cas");
	LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(w->c, w->fn, "bf16.join");
	LLVMBuildCondBr(w->b, sm90, native, older);
	LLVMPositionBuilderAtEnd(w->b, native);
	emit_regs(w, op, IR_BF16, pairs, true, red, a, own, has_mask, nat);
	LLVMBasicBlockRef from[2] = {LLVMGetInsertBlock(w->b), NULL};
	LLVMBuildBr(w->b, join);
	LLVMPositionBuilderAtEnd(w->b, older);
	emit_regs(w, op, IR_BF16, false, false, red, a, own, has_mask, old);
	from[1] = LLVMGetInsertBlock(w->b);
	LLVMBuildBr(w->b, join);
	LLVMPositionBuilderAtEnd(w->b, join);
	for (int r = 0; r < n; r++) {
		LLVMValueRef phi = LLVMBuildPhi(w->b, w->bf16, ""), in[2] = {nat[r], old[r]};
		LLVMAddIncoming(phi, in, from, 2);
		old[r] = phi;
	}
	return true;
}

bool lw_emit_atomic(lw *w, const ir_op *op, const layout *l, lval *out)
{
	bool cas = op->code == IR_OP_ATOMIC_CAS, has_mask = !cas && (op->flags & IR_FLAG_HAS_MASK);
	ir_type pt = lw_vtype(w, op->args[0]);
	ir_kind k = (ir_kind)pt.pointee;
	if ((unsigned long long)op->ival >= IR_SEM_COUNT || (unsigned long long)op->ival2 >= IR_SCOPE_COUNT ||
	    (!cas && (unsigned)op->sub >= IR_ATOMIC_COUNT))
		return lw_fail(w, op, TILEC_ERR_INVALID, "internal: malformed atomic");
	int bits = ir_kind_bits(k);
	if (k == IR_PTR || k == IR_I1 || (bits != 16 && bits != 32 && bits != 64) ||
	    (!cas && bits == 16 && !(op->sub == IR_ATOMIC_ADD && (k == IR_F16 || k == IR_BF16))) ||
	    (!cas && ir_kind_is_float(k) && op->sub != IR_ATOMIC_ADD && op->sub != IR_ATOMIC_XCHG))
		return lw_fail(w, op, TILEC_ERR_UNSUPPORTED, "'%s' on %s is not supported by the GPU back end",
			       ir_opcode_name(op->code), ir_kind_name(k));
	if (pt.rank && (!l || l->mma))
		l = w->p->by_rank[pt.rank];
	if (!pt.rank)
		l = NULL;
	lval a[3];
	if (!lw_get_args(w, op, l, a))
		return false;
	bool used = lw_uses(&w->f->body, op->results[0], -1) > 0;
	bool red = !used && !cas && op->sub != IR_ATOMIC_XCHG && (op->ival == IR_SEM_RELAXED || op->ival == IR_SEM_RELEASE);
	layout_map m;
	LLVMValueRef own;
	if (pt.rank) {
		m = lw_map_of(l, pt);
		own = lw_owner(w, &m);
	} else {
		own = LLVMBuildICmp(w->b, LLVMIntEQ, w->tid, lw_ci32(w, 0), "");
	}
	if (!lw_alloc_regs(w, out, a[0].n, l))
		return false;
	/* fp16 and bf16 additions two at a time where the pointers (and the
	 * mask) come in aligned pairs, as Triton packs them */
	int vec = !cas && bits == 16 && pt.rank ? lw_access_width(w, op, l, has_mask ? op->args[2] : -1) : 1;
	if (cas || k != IR_BF16) {
		emit_regs(w, op, k, vec >= 2, true, red, a, own, has_mask, out->r);
	} else if (!emit_bf16_tiers(w, op, vec >= 2, red, a, own, has_mask, out->r)) {
		return false;
	}
	if (!used || (pt.rank && !own))
		return true;
	lw_share_owned(w, out, pt.rank ? &m : NULL, pt, own, k);
	return true;
}
