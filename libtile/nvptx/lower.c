/* lower.c - tile IR to LLVM IR for nvptx64-nvidia-cuda.
 *
 * Each block value lives in registers under its layout: one LLVM scalar per
 * element the thread holds (LLVM's scalar optimizations do well on that),
 * scalars are one uniform value. An op is emitted in the layout its result
 * was assigned; operands in another layout are either recomputed there
 * (cheap values: constants, aranges, splats and elementwise chains of
 * them) or moved through shared memory (convert). Element coordinates are
 * the thread's lane and warp bit fields plus a per-register constant, so
 * aranges, masks and addresses fold into a few integer ops per thread.
 *
 * Memory: each thread's consecutive registers are grouped into vectors as
 * wide as axis info proves safe (contiguity, alignment, mask constancy,
 * 16 bytes); unmasked groups are LLVM vector loads and stores, masked ones
 * predicated ld/st.global inline PTX with one predicate per vector, as
 * Triton emits them. Replicated elements are stored by their owner only.
 * Math follows Triton: fp32 division is div.full.f32, exp is ex2.approx of
 * x*log2(e), exp2 is ex2.approx, other transcendental functions are
 * libdevice calls (linked later by target.c), fp16/bf16 math goes through
 * fp32. Reductions combine within a thread, then across the lanes of the
 * axis with butterfly shuffles, then across its warps through shared
 * memory, leaving the result in the slice layout where expand_dims and
 * broadcast find it without moving data. for/if/while become LLVM loops
 * and branches with one phi per register of each carried value.
 */
#include "nvptx/nvptx.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <llvm-c/Core.h>

#define PTX_KERNEL_CC 71

typedef struct lval {
	int n;               /* registers; 1 for scalars */
	LLVMValueRef *r;
	const layout *l;     /* NULL for scalars */
} lval;

typedef struct lw {
	tilec_ctx *ctx;
	arena *a; /* scratch, freed after lowering */
	LLVMContextRef c;
	LLVMModuleRef m;
	LLVMBuilderRef b;
	LLVMValueRef fn;
	const ir_func *f;
	const axis_info *ai;
	const layout_plan *p;
	lval *v;
	LLVMValueRef tid, lane, warp;
	LLVMValueRef smem;   /* placeholder, resized at the end */
	uint32_t smem_bytes;
	bool smem_dynamic;
	bool libdevice;
	tilec_status st;
	LLVMTypeRef i1, i8, i16, i32, i64, f16, bf16, f32, f64, gptr, vd;
} lw;

static const char *op_name(const ir_op *op)
{
	return ir_opcode_name(op->code);
}

static bool fail(lw *w, const ir_op *op, tilec_status st, const char *fmt, ...) TILE_PRINTF(4, 5);

static bool fail(lw *w, const ir_op *op, tilec_status st, const char *fmt, ...)
{
	if (w->st == TILEC_OK) {
		va_list ap;
		va_start(ap, fmt);
		diag_verror(w->ctx, op ? op->loc : w->f->loc, "error", fmt, ap);
		va_end(ap);
		w->st = st;
	}
	return false;
}

static bool oom(lw *w)
{
	if (w->st == TILEC_OK)
		w->st = TILEC_ERR_NOMEM;
	return false;
}

static ir_type vtype(const lw *w, int v)
{
	return w->f->values[v].type;
}

/* ---- types and small builders ---- */

static LLVMTypeRef ltype(const lw *w, ir_kind k)
{
	switch (k) {
	case IR_I1: return w->i1;
	case IR_I8: case IR_U8: return w->i8;
	case IR_I16: case IR_U16: return w->i16;
	case IR_I32: case IR_U32: return w->i32;
	case IR_I64: case IR_U64: return w->i64;
	case IR_F16: return w->f16;
	case IR_BF16: return w->bf16;
	case IR_F32: return w->f32;
	case IR_F64: return w->f64;
	case IR_PTR: return w->gptr;
	default: return w->i32;
	}
}

/* In memory i1 is a byte and pointers are 64-bit integers. */
static LLVMTypeRef stype(const lw *w, ir_kind k)
{
	return k == IR_I1 ? w->i8 : k == IR_PTR ? w->i64 : ltype(w, k);
}

static LLVMValueRef ci32(const lw *w, int64_t v)
{
	return LLVMConstInt(w->i32, (unsigned long long)v, true);
}

static LLVMValueRef func_decl(lw *w, const char *name, LLVMTypeRef ret, LLVMTypeRef *args, int n)
{
	LLVMValueRef fn = LLVMGetNamedFunction(w->m, name);
	if (fn)
		return fn;
	return LLVMAddFunction(w->m, name, LLVMFunctionType(ret, args, (unsigned)n, false));
}

static LLVMValueRef call(lw *w, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n)
{
	LLVMTypeRef at[8];
	for (int i = 0; i < n && i < 8; i++)
		at[i] = LLVMTypeOf(args[i]);
	LLVMValueRef fn = func_decl(w, name, ret, at, n);
	return LLVMBuildCall2(w->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)n, "");
}

static LLVMValueRef sreg(lw *w, const char *name)
{
	return call(w, name, w->i32, NULL, 0);
}

static LLVMValueRef asm_call(lw *w, LLVMTypeRef ret, const char *text, const char *cons, LLVMValueRef *args,
			     int n, bool side_effects)
{
	LLVMTypeRef at[16];
	for (int i = 0; i < n; i++)
		at[i] = LLVMTypeOf(args[i]);
	LLVMTypeRef ft = LLVMFunctionType(ret, at, (unsigned)n, false);
	LLVMValueRef fn = LLVMGetInlineAsm(ft, text, strlen(text), cons, strlen(cons), side_effects, false,
					   LLVMInlineAsmDialectATT, false);
	return LLVMBuildCall2(w->b, ft, fn, args, (unsigned)n, "");
}

static void barrier(lw *w)
{
	call(w, "llvm.nvvm.barrier0", w->vd, NULL, 0);
}

static bool alloc_regs(lw *w, lval *out, int n, const layout *l)
{
	out->n = n;
	out->l = l;
	out->r = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)(n ? n : 1));
	return out->r ? true : oom(w);
}

static void new_block(lw *w, const char *name, LLVMBasicBlockRef *bb)
{
	*bb = LLVMAppendBasicBlockInContext(w->c, w->fn, name);
}

/* ---- coordinates ---- */

static layout_map map_of(const layout *l, ir_type t)
{
	return layout_map_of(l, t.rank, t.shape);
}

/* The thread's coordinate along map dim d before the modulo, and after. */
static LLVMValueRef thread_raw(lw *w, const layout_map *m, int d)
{
	layout_field fl = layout_dim_field(m, d);
	LLVMValueRef s = ci32(w, 0);
	if (fl.lanes > 1) {
		LLVMValueRef x = LLVMBuildLShr(w->b, w->lane, ci32(w, fl.lane_shift), "");
		x = LLVMBuildAnd(w->b, x, ci32(w, fl.lanes - 1), "");
		s = LLVMBuildMul(w->b, x, ci32(w, fl.lane_scale), "");
	}
	if (fl.warps > 1) {
		LLVMValueRef x = LLVMBuildLShr(w->b, w->warp, ci32(w, fl.warp_shift), "");
		x = LLVMBuildAnd(w->b, x, ci32(w, fl.warps - 1), "");
		s = LLVMBuildAdd(w->b, s, LLVMBuildMul(w->b, x, ci32(w, fl.warp_scale), ""), "");
	}
	return s;
}

static LLVMValueRef thread_coord(lw *w, const layout_map *m, int d)
{
	return LLVMBuildAnd(w->b, thread_raw(w, m, d), ci32(w, m->shape[d] - 1), "");
}

/* True in the one thread that owns each element (others hold replicas);
 * NULL when no element is replicated. */
static LLVMValueRef owner(lw *w, const layout_map *m)
{
	LLVMValueRef p = NULL;
	for (int d = 0; d < m->rank; d++) {
		layout_field fl = layout_dim_field(m, d);
		if ((int64_t)fl.warp_scale * fl.warps <= m->shape[d])
			continue;
		LLVMValueRef c = LLVMBuildICmp(w->b, LLVMIntULT, thread_raw(w, m, d), ci32(w, m->shape[d]), "");
		p = p ? LLVMBuildAnd(w->b, p, c, "") : c;
	}
	return p;
}

/* Coordinates (value dims) of register r as i32 values. */
static void reg_coords(lw *w, const layout_map *m, int rank, int r, LLVMValueRef *out)
{
	int32_t cc[IR_MAX_RANK];
	layout_reg_coords(m, r, cc);
	for (int j = 0; j < rank; j++) {
		int d = m->dim_of[j];
		out[j] = LLVMBuildAdd(w->b, thread_coord(w, m, d), ci32(w, cc[d]), "");
	}
}

static LLVMValueRef linear_index(lw *w, const layout_map *m, ir_type t, int r)
{
	LLVMValueRef c[IR_MAX_RANK];
	reg_coords(w, m, t.rank, r, c);
	LLVMValueRef lin = ci32(w, 0);
	for (int j = 0; j < t.rank; j++)
		lin = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, lin, ci32(w, t.shape[j]), ""), c[j], "");
	return lin;
}

/* ---- shared memory ---- */

static LLVMValueRef smem_addr(lw *w, LLVMValueRef byte_offset)
{
	return LLVMBuildGEP2(w->b, w->i8, w->smem, &byte_offset, 1, "");
}

static void smem_need(lw *w, uint64_t bytes)
{
	if (bytes > w->smem_bytes)
		w->smem_bytes = (uint32_t)bytes;
}

static LLVMValueRef to_storage(lw *w, LLVMValueRef x, ir_kind k)
{
	if (k == IR_I1)
		return LLVMBuildZExt(w->b, x, w->i8, "");
	if (k == IR_PTR)
		return LLVMBuildPtrToInt(w->b, x, w->i64, "");
	return x;
}

static LLVMValueRef from_storage(lw *w, LLVMValueRef x, ir_kind k)
{
	if (k == IR_I1)
		return LLVMBuildICmp(w->b, LLVMIntNE, x, LLVMConstInt(w->i8, 0, false), "");
	if (k == IR_PTR)
		return LLVMBuildIntToPtr(w->b, x, w->gptr, "");
	return x;
}

/* Runs `body` regions only where pred holds: returns the join block. */
static LLVMBasicBlockRef begin_if(lw *w, LLVMValueRef pred)
{
	LLVMBasicBlockRef then, join;
	new_block(w, "then", &then);
	new_block(w, "join", &join);
	LLVMBuildCondBr(w->b, pred, then, join);
	LLVMPositionBuilderAtEnd(w->b, then);
	return join;
}

static void end_if(lw *w, LLVMBasicBlockRef join)
{
	LLVMBuildBr(w->b, join);
	LLVMPositionBuilderAtEnd(w->b, join);
}

/* Byte offset of element `lin` with one pad element per 32, so that
 * column-wise accesses of rows of 32 words hit different banks. */
static LLVMValueRef padded(lw *w, LLVMValueRef lin, int64_t bytes)
{
	LLVMValueRef e = LLVMBuildAdd(w->b, lin, LLVMBuildLShr(w->b, lin, ci32(w, 5), ""), "");
	return LLVMBuildMul(w->b, e, ci32(w, bytes), "");
}

/* Moves a block through shared memory: owners write their elements at
 * their row-major index in the source shape `st`, everyone reads its own
 * after a barrier. The target `dt` is the same block in another layout,
 * the same elements in another shape (reshape, row-major order kept), or
 * a permutation (perm[i]: the source dim of target dim i). */
static bool move(lw *w, const lval *src, ir_type st, ir_type dt, const int32_t *perm, const layout *to, lval *out)
{
	ir_kind k = (ir_kind)st.kind;
	LLVMTypeRef ty = stype(w, k);
	int64_t bytes = ir_kind_bytes(k == IR_PTR ? IR_I64 : k);
	int64_t numel = ir_numel(st);
	smem_need(w, (uint64_t)(numel + numel / 32) * (uint64_t)bytes);
	layout_map ms = map_of(src->l, st), md = map_of(to, dt);
	barrier(w);
	LLVMValueRef own = owner(w, &ms);
	LLVMBasicBlockRef join = own ? begin_if(w, own) : NULL;
	for (int r = 0; r < src->n; r++) {
		LLVMValueRef off = padded(w, linear_index(w, &ms, st, r), bytes);
		LLVMValueRef x = LLVMBuildStore(w->b, to_storage(w, src->r[r], k), smem_addr(w, off));
		LLVMSetAlignment(x, (unsigned)bytes);
	}
	if (join)
		end_if(w, join);
	barrier(w);
	if (!alloc_regs(w, out, md.nregs, to))
		return false;
	for (int r = 0; r < md.nregs; r++) {
		LLVMValueRef lin;
		if (perm) {
			LLVMValueRef c[IR_MAX_RANK], sc[IR_MAX_RANK];
			reg_coords(w, &md, dt.rank, r, c);
			for (int i = 0; i < dt.rank; i++)
				sc[perm[i]] = c[i];
			lin = ci32(w, 0);
			for (int j = 0; j < st.rank; j++)
				lin = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, lin, ci32(w, st.shape[j]), ""), sc[j], "");
		} else {
			lin = linear_index(w, &md, dt, r);
		}
		LLVMValueRef x = LLVMBuildLoad2(w->b, ty, smem_addr(w, padded(w, lin, bytes)), "");
		LLVMSetAlignment(x, (unsigned)bytes);
		out->r[r] = from_storage(w, x, k);
	}
	return true;
}

/* ---- values in layouts ---- */

static bool emit_value(lw *w, const ir_op *op, const layout *l, lval *out);

/* Value v's registers in layout l. */
static bool get(lw *w, int v, const layout *l, lval *out)
{
	ir_type t = vtype(w, v);
	const lval *have = &w->v[v];
	if (!have->r)
		return fail(w, w->f->values[v].def, TILEC_ERR_INVALID, "value %%%d used before it is defined", v);
	if (t.rank == 0 || !l) {
		*out = *have;
		return true;
	}
	if (l->rank != t.rank)
		return fail(w, w->f->values[v].def, TILEC_ERR_INVALID, "internal: %%%d wanted in a rank-%d layout", v, l->rank);
	layout_map mh = map_of(have->l, t), ml = map_of(l, t);
	if (layout_map_eq(&mh, &ml)) {
		*out = *have;
		out->l = l;
		return true;
	}
	const ir_op *def = w->f->values[v].def;
	if (w->p->remat[v] && def && def->nresults == 1)
		return emit_value(w, def, l, out);
	return move(w, have, t, t, NULL, l, out);
}

static bool get_args(lw *w, const ir_op *op, const layout *l, lval *args)
{
	for (int i = 0; i < op->nargs; i++)
		if (!get(w, op->args[i], vtype(w, op->args[i]).rank ? l : NULL, &args[i]))
			return false;
	return true;
}

static LLVMValueRef const_of(lw *w, ir_kind k, int64_t iv, double fv)
{
	if (ir_kind_is_float(k))
		return LLVMConstReal(ltype(w, k), fv);
	if (k == IR_PTR)
		return LLVMConstIntToPtr(LLVMConstInt(w->i64, (unsigned long long)iv, false), w->gptr);
	return LLVMConstInt(ltype(w, k), (unsigned long long)iv, ir_kind_is_signed(k));
}

/* ---- elementwise arithmetic ---- */

static bool is_f(ir_kind k)
{
	return ir_kind_is_float(k);
}

static bool narrow_f(ir_kind k)
{
	return k == IR_F16 || k == IR_BF16;
}

static LLVMValueRef widen(lw *w, LLVMValueRef x, ir_kind k)
{
	return narrow_f(k) ? LLVMBuildFPExt(w->b, x, w->f32, "") : x;
}

static LLVMValueRef narrow(lw *w, LLVMValueRef x, ir_kind k)
{
	return narrow_f(k) ? LLVMBuildFPTrunc(w->b, x, ltype(w, k), "") : x;
}

static LLVMValueRef intrinsic1(lw *w, const char *base, LLVMValueRef x)
{
	char name[64];
	LLVMTypeRef t = LLVMTypeOf(x);
	const char *suf = t == w->f32 ? "f32" : t == w->f64 ? "f64" : t == w->f16 ? "f16" : t == w->bf16 ? "bf16" :
			  t == w->i64 ? "i64" : t == w->i16 ? "i16" : t == w->i8 ? "i8" : "i32";
	snprintf(name, sizeof name, "%s.%s", base, suf);
	return call(w, name, t, &x, 1);
}

static LLVMValueRef intrinsic2(lw *w, const char *base, LLVMValueRef x, LLVMValueRef y)
{
	char name[64];
	LLVMTypeRef t = LLVMTypeOf(x);
	const char *suf = t == w->f32 ? "f32" : t == w->f64 ? "f64" : t == w->f16 ? "f16" : t == w->bf16 ? "bf16" :
			  t == w->i64 ? "i64" : t == w->i16 ? "i16" : t == w->i8 ? "i8" : "i32";
	snprintf(name, sizeof name, "%s.%s", base, suf);
	LLVMValueRef a[2] = {x, y};
	return call(w, name, t, a, 2);
}

static LLVMValueRef libdevice(lw *w, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n)
{
	w->libdevice = true;
	return call(w, name, ret, args, n);
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

static LLVMValueRef binop(lw *w, const ir_op *op, ir_kind k, LLVMValueRef x, LLVMValueRef y)
{
	bool f = is_f(k), sg = ir_kind_is_signed(k);
	switch (op->code) {
	case IR_OP_ADD: return f ? contract(LLVMBuildFAdd(w->b, x, y, "")) : LLVMBuildAdd(w->b, x, y, "");
	case IR_OP_SUB: return f ? contract(LLVMBuildFSub(w->b, x, y, "")) : LLVMBuildSub(w->b, x, y, "");
	case IR_OP_MUL: return f ? contract(LLVMBuildFMul(w->b, x, y, "")) : LLVMBuildMul(w->b, x, y, "");
	case IR_OP_DIV:
		if (!f)
			return sg ? LLVMBuildSDiv(w->b, x, y, "") : LLVMBuildUDiv(w->b, x, y, "");
		if (k == IR_F64 || (op->flags & IR_FLAG_PRECISE))
			return narrow(w, LLVMBuildFDiv(w->b, widen(w, x, k), widen(w, y, k), ""), k);
		{
			LLVMValueRef a[2] = {widen(w, x, k), widen(w, y, k)};
			return narrow(w, asm_call(w, w->f32, "div.full.f32 $0, $1, $2;", "=f,f,f", a, 2, false), k);
		}
	case IR_OP_REM:
		if (f)
			return narrow(w, LLVMBuildFRem(w->b, widen(w, x, k), widen(w, y, k), ""), k);
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
			return narrow(w, intrinsic2(w, fn, widen(w, x, k), widen(w, y, k)), k);
		}
		LLVMIntPredicate p = mx ? (sg ? LLVMIntSGT : LLVMIntUGT) : (sg ? LLVMIntSLT : LLVMIntULT);
		return LLVMBuildSelect(w->b, LLVMBuildICmp(w->b, p, x, y, ""), x, y, "");
	}
	default:
		return NULL;
	}
}

static LLVMValueRef compare(lw *w, int sub, ir_kind k, LLVMValueRef x, LLVMValueRef y)
{
	if (is_f(k)) {
		static const LLVMRealPredicate fp[] = {LLVMRealOEQ, LLVMRealUNE, LLVMRealOLT, LLVMRealOLE, LLVMRealOGT, LLVMRealOGE};
		return LLVMBuildFCmp(w->b, fp[sub], x, y, "");
	}
	static const LLVMIntPredicate sp[] = {LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE};
	static const LLVMIntPredicate up[] = {LLVMIntEQ, LLVMIntNE, LLVMIntULT, LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
	return LLVMBuildICmp(w->b, ir_kind_is_signed(k) ? sp[sub] : up[sub], x, y, "");
}

static LLVMValueRef math(lw *w, const ir_op *op, ir_kind k, LLVMValueRef x)
{
	static const char *const f32n[IR_MATH_COUNT] = {
		[IR_MATH_EXP] = "__nv_expf", [IR_MATH_EXP2] = "__nv_exp2f", [IR_MATH_LOG] = "__nv_logf",
		[IR_MATH_LOG2] = "__nv_log2f", [IR_MATH_SQRT] = "__nv_sqrtf", [IR_MATH_SQRT_RN] = "__nv_fsqrt_rn",
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
		if (is_f(k))
			return intrinsic1(w, "llvm.fabs", x);
		if (!ir_kind_is_signed(k))
			return x;
		LLVMValueRef neg = LLVMBuildICmp(w->b, LLVMIntSLT, x, LLVMConstNull(LLVMTypeOf(x)), "");
		return LLVMBuildSelect(w->b, neg, LLVMBuildNeg(w->b, x, ""), x, "");
	}
	if (!is_f(k))
		return NULL;
	if (k == IR_F64)
		return libdevice(w, f64n[m], w->f64, &x, 1);
	LLVMValueRef y = widen(w, x, k), r;
	if (m == IR_MATH_EXP || m == IR_MATH_EXP2) {
		if (m == IR_MATH_EXP)
			y = LLVMBuildFMul(w->b, y, LLVMConstReal(w->f32, 1.4426950408889634), "");
		r = asm_call(w, w->f32, "ex2.approx.f32 $0, $1;", "=f,f", &y, 1, false);
	} else {
		r = libdevice(w, f32n[m], w->f32, &y, 1);
	}
	return narrow(w, r, k);
}

static LLVMValueRef cast(lw *w, LLVMValueRef x, ir_kind from, ir_kind to)
{
	LLVMTypeRef tt = ltype(w, to);
	if (from == to)
		return x;
	if (to == IR_I1) {
		if (is_f(from))
			return LLVMBuildFCmp(w->b, LLVMRealUNE, x, LLVMConstNull(LLVMTypeOf(x)), "");
		if (from == IR_PTR)
			x = LLVMBuildPtrToInt(w->b, x, w->i64, "");
		return LLVMBuildICmp(w->b, LLVMIntNE, x, LLVMConstNull(LLVMTypeOf(x)), "");
	}
	if (from == IR_PTR)
		return LLVMBuildPtrToInt(w->b, x, tt, "");
	if (to == IR_PTR)
		return LLVMBuildIntToPtr(w->b, LLVMBuildIntCast2(w->b, x, w->i64, ir_kind_is_signed(from), ""), tt, "");
	if (is_f(from) && is_f(to)) {
		int fb = ir_kind_bits(from), tb = ir_kind_bits(to);
		if (fb == tb) /* fp16 <-> bf16: exactly through fp32 */
			return LLVMBuildFPTrunc(w->b, LLVMBuildFPExt(w->b, x, w->f32, ""), tt, "");
		return fb < tb ? LLVMBuildFPExt(w->b, x, tt, "") : LLVMBuildFPTrunc(w->b, x, tt, "");
	}
	if (is_f(from))
		return ir_kind_is_signed(to) ? LLVMBuildFPToSI(w->b, x, tt, "") : LLVMBuildFPToUI(w->b, x, tt, "");
	if (is_f(to))
		return ir_kind_is_signed(from) ? LLVMBuildSIToFP(w->b, x, tt, "") : LLVMBuildUIToFP(w->b, x, tt, "");
	return LLVMBuildIntCast2(w->b, x, tt, ir_kind_is_signed(from), "");
}

/* ---- memory ---- */

typedef struct vec_shape {
	int nw;            /* words per access */
	LLVMTypeRef word;  /* i32, or i16 for 1- and 2-byte accesses */
	const char *cons;  /* constraint letter of a word */
	const char *ptx;   /* ptx type of a word */
} vec_shape;

static vec_shape vec_words(lw *w, int bytes)
{
	vec_shape v;
	if (bytes >= 4) {
		v.nw = bytes / 4;
		v.word = w->i32;
		v.cons = "r";
		v.ptx = "b32";
	} else {
		v.nw = 1;
		v.word = w->i16;
		v.cons = "h";
		v.ptx = bytes == 2 ? "b16" : "b8";
	}
	return v;
}

static const char *vsuffix(int nw)
{
	return nw == 4 ? ".v4" : nw == 2 ? ".v2" : "";
}

/* Words returned by inline PTX -> n storage elements. */
static void unpack_words(lw *w, LLVMValueRef *words, vec_shape vs, int n, LLVMTypeRef st, int elem_bytes,
			 LLVMValueRef *elems)
{
	LLVMValueRef x;
	if (vs.nw == 1) {
		x = words[0];
	} else {
		LLVMTypeRef wv = LLVMVectorType(vs.word, (unsigned)vs.nw);
		x = LLVMGetUndef(wv);
		for (int i = 0; i < vs.nw; i++)
			x = LLVMBuildInsertElement(w->b, x, words[i], ci32(w, i), "");
	}
	if (n * elem_bytes == 1) {
		elems[0] = LLVMBuildTrunc(w->b, x, w->i8, "");
		if (st != w->i8)
			elems[0] = LLVMBuildBitCast(w->b, elems[0], st, "");
		return;
	}
	if (n == 1) {
		elems[0] = LLVMBuildBitCast(w->b, x, st, "");
		return;
	}
	LLVMValueRef v = LLVMBuildBitCast(w->b, x, LLVMVectorType(st, (unsigned)n), "");
	for (int i = 0; i < n; i++)
		elems[i] = LLVMBuildExtractElement(w->b, v, ci32(w, i), "");
}

/* Storage elements -> words: one i32 per 4 bytes, else one i16. */
static void to_words(lw *w, LLVMValueRef *elems, int n, LLVMTypeRef st, int elem_bytes, vec_shape vs,
		     LLVMValueRef *words)
{
	LLVMValueRef x;
	if (n == 1) {
		x = elems[0];
	} else {
		x = LLVMGetUndef(LLVMVectorType(st, (unsigned)n));
		for (int i = 0; i < n; i++)
			x = LLVMBuildInsertElement(w->b, x, elems[i], ci32(w, i), "");
	}
	if (n * elem_bytes == 1) {
		if (st != w->i8)
			x = LLVMBuildBitCast(w->b, x, w->i8, "");
		words[0] = LLVMBuildZExt(w->b, x, w->i16, "");
		return;
	}
	if (vs.nw == 1) {
		words[0] = LLVMBuildBitCast(w->b, x, vs.word, "");
		return;
	}
	LLVMValueRef v = LLVMBuildBitCast(w->b, x, LLVMVectorType(vs.word, (unsigned)vs.nw), "");
	for (int i = 0; i < vs.nw; i++)
		words[i] = LLVMBuildExtractElement(w->b, v, ci32(w, i), "");
}

/* How many consecutive registers one access covers. */
static int access_width(lw *w, const ir_op *op, const layout *l, int mask)
{
	ir_type pt = vtype(w, op->args[0]);
	if (pt.rank == 0)
		return 1;
	int vec = axis_vector_width(w->f, w->ai, op->args[0], mask);
	layout_map m = map_of(l, pt);
	int c = layout_contig_regs(&m, m.dim_of[pt.rank - 1]);
	return vec < c ? vec : c;
}

static LLVMValueRef and_pred(lw *w, LLVMValueRef a, LLVMValueRef b)
{
	return !a ? b : !b ? a : LLVMBuildAnd(w->b, a, b, "");
}

static bool emit_load(lw *w, const ir_op *op, const layout *l, lval *out)
{
	ir_type pt = vtype(w, op->args[0]);
	ir_kind k = (ir_kind)pt.pointee;
	LLVMTypeRef st = stype(w, k);
	int eb = ir_kind_bytes(k == IR_PTR ? IR_I64 : k);
	lval a[3];
	if (!get_args(w, op, l, a))
		return false;
	bool has_mask = op->flags & IR_FLAG_HAS_MASK, has_other = op->flags & IR_FLAG_HAS_OTHER;
	int vec = access_width(w, op, l, has_mask ? op->args[1] : -1);
	if (!alloc_regs(w, out, a[0].n, pt.rank ? l : NULL))
		return false;
	vec_shape vs = vec_words(w, vec * eb);
	for (int r = 0; r < a[0].n; r += vec) {
		LLVMValueRef elems[16] = {0};
		if (!has_mask) {
			LLVMTypeRef vt = vec > 1 ? LLVMVectorType(st, (unsigned)vec) : st;
			LLVMValueRef x = LLVMBuildLoad2(w->b, vt, a[0].r[r], "");
			LLVMSetAlignment(x, (unsigned)(vec * eb));
			for (int i = 0; i < vec; i++)
				elems[i] = vec > 1 ? LLVMBuildExtractElement(w->b, x, ci32(w, i), "") : x;
		} else {
			char text[160], cons[96];
			int pos = snprintf(text, sizeof text, "@$%d ld.global%s.%s {", vs.nw + 1, vsuffix(vs.nw), vs.ptx);
			int cp = 0;
			for (int i = 0; i < vs.nw; i++) {
				pos += snprintf(text + pos, sizeof text - (size_t)pos, "%s$%d", i ? ", " : "", i);
				cp += snprintf(cons + cp, sizeof cons - (size_t)cp, "=%s,", vs.cons);
			}
			snprintf(text + pos, sizeof text - (size_t)pos, "}, [$%d];", vs.nw);
			snprintf(cons + cp, sizeof cons - (size_t)cp, "l,b");
			LLVMTypeRef ret;
			if (vs.nw == 1) {
				ret = vs.word;
			} else {
				LLVMTypeRef fields[4] = {vs.word, vs.word, vs.word, vs.word};
				ret = LLVMStructTypeInContext(w->c, fields, (unsigned)vs.nw, false);
			}
			LLVMValueRef args[2] = {a[0].r[r], a[1].r[r]};
			LLVMValueRef res = asm_call(w, ret, text, cons, args, 2, true);
			LLVMValueRef words[4];
			for (int i = 0; i < vs.nw; i++)
				words[i] = vs.nw == 1 ? res : LLVMBuildExtractValue(w->b, res, (unsigned)i, "");
			unpack_words(w, words, vs, vec, st, eb, elems);
			/* Without `other` masked-off elements are undefined, as in Triton. */
			for (int i = 0; i < vec && has_other; i++)
				elems[i] = LLVMBuildSelect(w->b, a[1].r[r], elems[i], to_storage(w, a[2].r[r + i], k), "");
		}
		for (int i = 0; i < vec; i++)
			out->r[r + i] = from_storage(w, elems[i], k);
	}
	return true;
}

static bool emit_store(lw *w, const ir_op *op)
{
	int ptr = op->args[0], val = op->args[1];
	ir_type pt = vtype(w, ptr);
	ir_kind k = (ir_kind)pt.pointee;
	LLVMTypeRef st = stype(w, k);
	int eb = ir_kind_bytes(k == IR_PTR ? IR_I64 : k);
	const layout *l = NULL;
	if (pt.rank) {
		l = w->p->remat[val] && !w->p->remat[ptr] ? w->p->of[ptr] : w->p->of[val];
		if (!l)
			l = w->p->by_rank[pt.rank];
	}
	lval a[3];
	if (!get_args(w, op, l, a))
		return false;
	bool has_mask = op->flags & IR_FLAG_HAS_MASK;
	int vec = access_width(w, op, l, has_mask ? op->args[2] : -1);
	LLVMValueRef own;
	if (pt.rank) {
		layout_map m = map_of(l, pt);
		own = owner(w, &m);
	} else {
		own = LLVMBuildICmp(w->b, LLVMIntEQ, w->tid, ci32(w, 0), "");
	}
	vec_shape vs = vec_words(w, vec * eb);
	for (int r = 0; r < a[0].n; r += vec) {
		LLVMValueRef elems[16] = {0};
		for (int i = 0; i < vec; i++)
			elems[i] = to_storage(w, a[1].r[r + i], k);
		LLVMValueRef pred = and_pred(w, own, has_mask ? a[2].r[r] : NULL);
		if (!pred) {
			LLVMValueRef x = elems[0];
			if (vec > 1) {
				x = LLVMGetUndef(LLVMVectorType(st, (unsigned)vec));
				for (int i = 0; i < vec; i++)
					x = LLVMBuildInsertElement(w->b, x, elems[i], ci32(w, i), "");
			}
			LLVMValueRef s = LLVMBuildStore(w->b, x, a[0].r[r]);
			LLVMSetAlignment(s, (unsigned)(vec * eb));
			continue;
		}
		LLVMValueRef words[4], args[6];
		to_words(w, elems, vec, st, eb, vs, words);
		char text[160], cons[96];
		int pos = snprintf(text, sizeof text, "@$0 st.global%s.%s [$1], {", vsuffix(vs.nw), vs.ptx);
		int cp = snprintf(cons, sizeof cons, "b,l");
		args[0] = pred;
		args[1] = a[0].r[r];
		for (int i = 0; i < vs.nw; i++) {
			pos += snprintf(text + pos, sizeof text - (size_t)pos, "%s$%d", i ? ", " : "", i + 2);
			cp += snprintf(cons + cp, sizeof cons - (size_t)cp, ",%s", vs.cons);
			args[2 + i] = words[i];
		}
		snprintf(text + pos, sizeof text - (size_t)pos, "};");
		asm_call(w, w->vd, text, cons, args, 2 + vs.nw, true);
	}
	return true;
}

/* ---- value ops ---- */

static bool emit_reduce(lw *w, const ir_op *op, const layout *l, lval *out);
static bool emit_dot(lw *w, const ir_op *op, const layout *l, lval *out);

static bool emit_value(lw *w, const ir_op *op, const layout *l, lval *out)
{
	int res = op->results[0];
	ir_type rt = vtype(w, res);
	ir_kind k = (ir_kind)rt.kind;
	layout_map m;
	int n = 1;
	if (rt.rank) {
		if (!l)
			l = w->p->by_rank[rt.rank];
		m = map_of(l, rt);
		n = m.nregs;
	} else {
		l = NULL;
	}
	switch (op->code) {
	case IR_OP_LOAD:
		return emit_load(w, op, l, out);
	case IR_OP_REDUCE:
		return emit_reduce(w, op, l, out);
	case IR_OP_DOT:
		return emit_dot(w, op, l, out);
	case IR_OP_RESHAPE:
	case IR_OP_PERMUTE: {
		int src = op->args[0];
		lval x;
		if (!get(w, src, NULL, &x))
			return false;
		ir_type st = vtype(w, src);
		if (st.rank == 0 || rt.rank == 0) /* a one-element block to a scalar or back */
			return fail(w, op, TILEC_ERR_UNSUPPORTED, "'%s' to or from a scalar is not supported by the GPU back end yet",
				    op_name(op));
		return move(w, &x, st, rt, op->code == IR_OP_PERMUTE ? op->ints : NULL, l, out);
	}
	default:
		break;
	}
	lval a[8];
	const layout *al = l;
	if (op->code == IR_OP_EXPAND_DIMS) {
		al = layout_slice(w->a, l, op->axis);
		if (!al)
			return oom(w);
	}
	if (op->nargs > 8)
		return fail(w, op, TILEC_ERR_UNSUPPORTED, "'%s' with %d operands is not supported by the GPU back end",
			    op_name(op), op->nargs);
	if (!get_args(w, op, al, a))
		return false;
	if (!alloc_regs(w, out, n, l))
		return false;
	ir_kind ak = op->nargs ? (ir_kind)vtype(w, op->args[0]).kind : k;
	for (int r = 0; r < n; r++) {
		LLVMValueRef x = NULL;
		switch (op->code) {
		case IR_OP_CONST:
			x = const_of(w, k, op->ival, op->fval);
			break;
		case IR_OP_PROGRAM_ID:
		case IR_OP_NUM_PROGRAMS: {
			static const char *const pid[3] = {"llvm.nvvm.read.ptx.sreg.ctaid.x", "llvm.nvvm.read.ptx.sreg.ctaid.y",
							   "llvm.nvvm.read.ptx.sreg.ctaid.z"};
			static const char *const np[3] = {"llvm.nvvm.read.ptx.sreg.nctaid.x", "llvm.nvvm.read.ptx.sreg.nctaid.y",
							  "llvm.nvvm.read.ptx.sreg.nctaid.z"};
			if (op->axis < 0 || op->axis > 2)
				return fail(w, op, TILEC_ERR_SEMANTIC, "%s axis must be 0, 1 or 2", op_name(op));
			x = sreg(w, (op->code == IR_OP_PROGRAM_ID ? pid : np)[op->axis]);
			x = LLVMBuildIntCast2(w->b, x, ltype(w, k), false, "");
			break;
		}
		case IR_OP_ARANGE: {
			LLVMValueRef c[IR_MAX_RANK];
			reg_coords(w, &m, 1, r, c);
			x = LLVMBuildAdd(w->b, c[0], ci32(w, op->ival), "");
			break;
		}
		case IR_OP_SPLAT:
			x = a[0].r[0];
			break;
		case IR_OP_BROADCAST: {
			layout_map ms = map_of(l, vtype(w, op->args[0]));
			int32_t idx[IR_MAX_RANK];
			layout_reg_split(&m, r, idx);
			for (int d = 0; d < m.rank; d++)
				idx[d] %= ms.regs_per_dim[d];
			x = a[0].r[layout_reg_join(&ms, idx)];
			break;
		}
		case IR_OP_EXPAND_DIMS:
		case IR_OP_HINT:
			x = a[0].r[r];
			break;
		case IR_OP_CAST:
			x = cast(w, a[0].r[r], ak, k);
			break;
		case IR_OP_BITCAST:
			x = LLVMBuildBitCast(w->b, a[0].r[r], ltype(w, k), "");
			break;
		case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_REM:
		case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR: case IR_OP_SHL: case IR_OP_SHR:
		case IR_OP_MIN: case IR_OP_MAX:
			x = binop(w, op, k, a[0].r[r], a[1].r[r]);
			break;
		case IR_OP_NEG:
			x = is_f(k) ? LLVMBuildFNeg(w->b, a[0].r[r], "") : LLVMBuildNeg(w->b, a[0].r[r], "");
			break;
		case IR_OP_NOT:
			x = LLVMBuildNot(w->b, a[0].r[r], "");
			break;
		case IR_OP_CMP:
			x = compare(w, op->sub, ak, a[0].r[r], a[1].r[r]);
			break;
		case IR_OP_SELECT:
			x = LLVMBuildSelect(w->b, a[0].r[r], a[1].r[r], a[2].r[r], "");
			break;
		case IR_OP_MATH:
			x = math(w, op, k, a[0].r[r]);
			if (!x)
				return fail(w, op, TILEC_ERR_UNSUPPORTED, "%s of %s is not supported by the GPU back end",
					    ir_math_name((ir_math)op->sub), ir_kind_name(k));
			break;
		case IR_OP_FMA:
			if (is_f(k)) {
				LLVMValueRef v3[3] = {widen(w, a[0].r[r], k), widen(w, a[1].r[r], k), widen(w, a[2].r[r], k)};
				x = narrow(w, call(w, LLVMTypeOf(v3[0]) == w->f64 ? "llvm.fma.f64" : "llvm.fma.f32",
						   LLVMTypeOf(v3[0]), v3, 3), k);
			} else {
				x = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, a[0].r[r], a[1].r[r], ""), a[2].r[r], "");
			}
			break;
		case IR_OP_PTR_ADD: {
			ir_kind ok = (ir_kind)vtype(w, op->args[1]).kind;
			LLVMValueRef off = LLVMBuildIntCast2(w->b, a[1].r[r], w->i64, ir_kind_is_signed(ok), "");
			x = LLVMBuildGEP2(w->b, stype(w, (ir_kind)rt.pointee), a[0].r[r], &off, 1, "");
			break;
		}
		case IR_OP_EXTERN: {
			if (!op->name)
				return fail(w, op, TILEC_ERR_INVALID, "extern call without a name");
			LLVMValueRef args[8];
			for (int i = 0; i < op->nargs; i++)
				args[i] = a[i].n > 1 ? a[i].r[r] : a[i].r[0];
			if (strncmp(op->name, "__nv_", 5) != 0)
				return fail(w, op, TILEC_ERR_UNSUPPORTED, "extern function '%s' is not a libdevice function",
					    op->name);
			LLVMValueRef fn = LLVMGetNamedFunction(w->m, op->name);
			if (fn && (LLVMCountParams(fn) != (unsigned)op->nargs ||
				   LLVMGetReturnType(LLVMGlobalGetValueType(fn)) != ltype(w, k)))
				return fail(w, op, TILEC_ERR_SEMANTIC, "'%s' called with two different signatures", op->name);
			x = libdevice(w, op->name, ltype(w, k), args, op->nargs);
			break;
		}
		default:
			return fail(w, op, TILEC_ERR_UNSUPPORTED, "'%s' is not supported by the GPU back end yet",
				    op_name(op));
		}
		if (!x)
			return fail(w, op, TILEC_ERR_UNSUPPORTED, "'%s' on %s is not supported by the GPU back end",
				    op_name(op), ir_kind_name(k));
		out->r[r] = x;
	}
	return true;
}

/* ---- reductions ---- */

/* Exchanges x with the lane `off` away (xor): 32-bit pieces through
 * shfl.sync.bfly. */
static LLVMValueRef shfl_xor(lw *w, LLVMValueRef x, int off)
{
	LLVMTypeRef t = LLVMTypeOf(x);
	LLVMValueRef args[4] = {ci32(w, -1), NULL, ci32(w, off), ci32(w, 31)};
	if (t == w->f32) {
		args[1] = x;
		return call(w, "llvm.nvvm.shfl.sync.bfly.f32", w->f32, args, 4);
	}
	unsigned bits = t == w->f64 ? 64 : t == w->f16 || t == w->bf16 ? 16 : LLVMGetIntTypeWidth(t);
	LLVMTypeRef it = LLVMIntTypeInContext(w->c, bits);
	LLVMValueRef xi = LLVMBuildBitCast(w->b, x, it, "");
	LLVMValueRef res;
	if (bits == 64) {
		LLVMValueRef lo = LLVMBuildTrunc(w->b, xi, w->i32, "");
		LLVMValueRef hi = LLVMBuildTrunc(w->b, LLVMBuildLShr(w->b, xi, LLVMConstInt(w->i64, 32, false), ""), w->i32, "");
		args[1] = lo;
		lo = call(w, "llvm.nvvm.shfl.sync.bfly.i32", w->i32, args, 4);
		args[1] = hi;
		hi = call(w, "llvm.nvvm.shfl.sync.bfly.i32", w->i32, args, 4);
		res = LLVMBuildOr(w->b, LLVMBuildZExt(w->b, lo, w->i64, ""),
				  LLVMBuildShl(w->b, LLVMBuildZExt(w->b, hi, w->i64, ""), LLVMConstInt(w->i64, 32, false), ""), "");
	} else {
		args[1] = bits == 32 ? xi : LLVMBuildZExt(w->b, xi, w->i32, "");
		res = call(w, "llvm.nvvm.shfl.sync.bfly.i32", w->i32, args, 4);
		if (bits < 32)
			res = LLVMBuildTrunc(w->b, res, it, "");
	}
	return LLVMBuildBitCast(w->b, res, t, "");
}

/* acc = combine(acc, x); index reductions carry (value, index) and keep
 * the smaller index on ties, as Triton's argmax/argmin combine does. */
static void combine(lw *w, int sub, ir_kind k, LLVMValueRef *acc, LLVMValueRef *acci, LLVMValueRef x, LLVMValueRef xi)
{
	bool f = is_f(k), sg = ir_kind_is_signed(k);
	switch (sub) {
	case IR_REDUCE_SUM:
		*acc = f ? LLVMBuildFAdd(w->b, *acc, x, "") : LLVMBuildAdd(w->b, *acc, x, "");
		return;
	case IR_REDUCE_XOR_SUM:
		*acc = LLVMBuildXor(w->b, *acc, x, "");
		return;
	case IR_REDUCE_MAX:
	case IR_REDUCE_MIN: {
		bool mx = sub == IR_REDUCE_MAX;
		if (f) {
			*acc = narrow(w, intrinsic2(w, mx ? "llvm.maxnum" : "llvm.minnum", widen(w, *acc, k), widen(w, x, k)), k);
			return;
		}
		LLVMIntPredicate p = mx ? (sg ? LLVMIntSGT : LLVMIntUGT) : (sg ? LLVMIntSLT : LLVMIntULT);
		*acc = LLVMBuildSelect(w->b, LLVMBuildICmp(w->b, p, *acc, x, ""), *acc, x, "");
		return;
	}
	default: {
		int better = sub == IR_REDUCE_ARGMAX ? IR_CMP_GT : IR_CMP_LT;
		LLVMValueRef a = widen(w, *acc, k), b = widen(w, x, k);
		ir_kind wk = narrow_f(k) ? IR_F32 : k;
		LLVMValueRef tie = LLVMBuildAnd(w->b, compare(w, IR_CMP_EQ, wk, a, b),
						LLVMBuildICmp(w->b, LLVMIntSLT, *acci, xi, ""), "");
		LLVMValueRef keep = LLVMBuildOr(w->b, compare(w, better, wk, a, b), tie, "");
		*acc = LLVMBuildSelect(w->b, keep, *acc, x, "");
		*acci = LLVMBuildSelect(w->b, keep, *acci, xi, "");
		return;
	}
	}
}

/* Within each thread, then across the lanes of the axis with butterfly
 * shuffles, then across its warps through shared memory. The result is in
 * the slice layout: every thread of the axis holds it. */
static bool emit_reduce(lw *w, const ir_op *op, const layout *l, lval *out)
{
	int src = op->args[0], k = op->axis, sub = op->sub;
	ir_type st = vtype(w, src), rt = vtype(w, op->results[0]);
	ir_kind ek = (ir_kind)st.kind;
	bool arg = sub == IR_REDUCE_ARGMAX || sub == IR_REDUCE_ARGMIN;
	const layout *pl = l && l->kind == LAYOUT_SLICE ? l->parent : w->p->of[src];
	if (!pl || pl->kind != LAYOUT_BLOCKED)
		pl = w->p->by_rank[st.rank];
	const layout *sl = layout_slice(w->a, pl, k);
	lval x;
	if (!sl || !get(w, src, pl, &x))
		return sl ? false : oom(w);
	layout_map ms = map_of(pl, st), mr = map_of(sl, rt);
	int nq = mr.nregs;
	LLVMValueRef *acc = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)nq * 2);
	if (!acc || !alloc_regs(w, out, nq, rt.rank ? sl : NULL))
		return oom(w);
	LLVMValueRef *acci = acc + nq;
	LLVMValueRef tk = arg ? thread_coord(w, &ms, k) : NULL;
	for (int q = 0; q < nq; q++) {
		int32_t idx[IR_MAX_RANK], cc[IR_MAX_RANK];
		layout_reg_split(&mr, q, idx);
		for (int j = 0; j < ms.regs_per_dim[k]; j++) {
			idx[k] = j;
			int r = layout_reg_join(&ms, idx);
			LLVMValueRef xi = NULL;
			if (arg) {
				layout_reg_coords(&ms, r, cc);
				xi = LLVMBuildAdd(w->b, tk, ci32(w, cc[k]), "");
			}
			if (j == 0) {
				acc[q] = x.r[r];
				acci[q] = xi;
			} else {
				combine(w, sub, ek, &acc[q], &acci[q], x.r[r], xi);
			}
		}
	}
	layout_field fl = layout_dim_field(&ms, k);
	int lanes = fl.lanes, span = st.shape[k] / fl.lane_scale;
	if (span < lanes)
		lanes = span > 1 ? span : 1;
	for (int off = 1; off < lanes; off <<= 1)
		for (int q = 0; q < nq; q++) {
			LLVMValueRef y = shfl_xor(w, acc[q], off << fl.lane_shift);
			LLVMValueRef yi = arg ? shfl_xor(w, acci[q], off << fl.lane_shift) : NULL;
			combine(w, sub, ek, &acc[q], &acci[q], y, yi);
		}
	int warps = fl.warps, wspan = st.shape[k] / fl.warp_scale;
	if (wspan < warps)
		warps = wspan > 1 ? wspan : 1;
	if (warps > 1) {
		/* Partials at [warp][element] (values, then indices). */
		int64_t nr = ir_numel(rt), eb = ir_kind_bytes(ek);
		int64_t ibase = ((warps * nr * eb) + 3) & ~(int64_t)3;
		smem_need(w, (uint64_t)(arg ? ibase + warps * nr * 4 : warps * nr * eb));
		LLVMValueRef wk = LLVMBuildAnd(w->b, LLVMBuildLShr(w->b, w->warp, ci32(w, fl.warp_shift), ""),
					       ci32(w, fl.warps - 1), "");
		LLVMValueRef lk = LLVMBuildAnd(w->b, LLVMBuildLShr(w->b, w->lane, ci32(w, fl.lane_shift), ""),
					       ci32(w, fl.lanes - 1), "");
		LLVMValueRef pred = LLVMBuildAnd(w->b, LLVMBuildICmp(w->b, LLVMIntEQ, lk, ci32(w, 0), ""),
						 LLVMBuildICmp(w->b, LLVMIntULT, wk, ci32(w, warps), ""), "");
		for (int d = 0; d < ms.rank; d++) {
			layout_field fd = layout_dim_field(&ms, d);
			if (d == k || (int64_t)fd.warp_scale * fd.warps <= ms.shape[d])
				continue;
			pred = LLVMBuildAnd(w->b, pred, LLVMBuildICmp(w->b, LLVMIntULT, thread_raw(w, &ms, d),
								      ci32(w, ms.shape[d]), ""), "");
		}
		barrier(w);
		LLVMBasicBlockRef join = begin_if(w, pred);
		LLVMValueRef *lin = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)nq);
		if (!lin)
			return oom(w);
		for (int q = 0; q < nq; q++) {
			LLVMValueRef slot = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, wk, ci32(w, nr), ""),
							 linear_index(w, &mr, rt, q), "");
			LLVMValueRef s = LLVMBuildStore(w->b, acc[q], smem_addr(w, LLVMBuildMul(w->b, slot, ci32(w, eb), "")));
			LLVMSetAlignment(s, (unsigned)eb);
			if (arg) {
				LLVMValueRef off = LLVMBuildAdd(w->b, ci32(w, ibase), LLVMBuildMul(w->b, slot, ci32(w, 4), ""), "");
				LLVMSetAlignment(LLVMBuildStore(w->b, acci[q], smem_addr(w, off)), 4);
			}
		}
		end_if(w, join);
		barrier(w);
		for (int q = 0; q < nq; q++) {
			LLVMValueRef li = linear_index(w, &mr, rt, q);
			for (int wi = 0; wi < warps; wi++) {
				LLVMValueRef slot = LLVMBuildAdd(w->b, ci32(w, wi * nr), li, "");
				LLVMValueRef y = LLVMBuildLoad2(w->b, ltype(w, ek), smem_addr(w, LLVMBuildMul(w->b, slot, ci32(w, eb), "")), "");
				LLVMSetAlignment(y, (unsigned)eb);
				LLVMValueRef yi = NULL;
				if (arg) {
					LLVMValueRef off = LLVMBuildAdd(w->b, ci32(w, ibase), LLVMBuildMul(w->b, slot, ci32(w, 4), ""), "");
					yi = LLVMBuildLoad2(w->b, w->i32, smem_addr(w, off), "");
					LLVMSetAlignment(yi, 4);
				}
				if (wi == 0) {
					acc[q] = y;
					acci[q] = yi;
				} else {
					combine(w, sub, ek, &acc[q], &acci[q], y, yi);
				}
			}
		}
	}
	for (int q = 0; q < nq; q++)
		out->r[q] = arg ? acci[q] : acc[q];
	return true;
}

/* ---- dot ---- */

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
	x = widen(w, x, k);
	if (!tf32)
		return x;
	/* round to nearest, ties away: what the tensor cores get */
	if (w->p->tensor_cores)
		return LLVMBuildBitCast(w->b, asm_call(w, w->i32, "cvt.rna.tf32.f32 $0, $1;", "=r,f", &x, 1, false), w->f32, "");
	/* cvt.rna.tf32 needs sm_80: the same in integers, as the interpreter's to_tf32 */
	LLVMValueRef u = LLVMBuildBitCast(w->b, x, w->i32, "");
	LLVMValueRef e = LLVMBuildAnd(w->b, u, ci32(w, 0x7f800000), "");
	LLVMValueRef special = LLVMBuildICmp(w->b, LLVMIntEQ, e, ci32(w, 0x7f800000), "");
	LLVMValueRef r = LLVMBuildAnd(w->b, LLVMBuildAdd(w->b, u, ci32(w, 0x1000), ""), ci32(w, (int32_t)0xffffe000), "");
	return LLVMBuildBitCast(w->b, LLVMBuildSelect(w->b, special, u, r, ""), w->f32, "");
}

/* Replaces x's registers by dot operands (dot_operand), converted once
 * each; a copy, since the registers belong to the value. */
static bool dot_operands(lw *w, lval *x, ir_kind k, bool tf32)
{
	LLVMValueRef *r = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)(x->n + 1));
	if (!r)
		return oom(w);
	for (int i = 0; i < x->n; i++)
		r[i] = dot_operand(w, x->r[i], k, tf32);
	x->r = r;
	return true;
}

/* Writes a 2-D block to shared memory row-major from `base` (bytes), rows
 * `stride` elements apart; replicas do not write. */
static void stage_rows(lw *w, const lval *x, ir_type t, int64_t stride, int64_t base)
{
	int64_t bytes = ir_kind_bytes((ir_kind)t.kind);
	layout_map m = map_of(x->l, t);
	LLVMValueRef own = owner(w, &m);
	LLVMBasicBlockRef join = own ? begin_if(w, own) : NULL;
	for (int r = 0; r < x->n; r++) {
		LLVMValueRef cc[2];
		reg_coords(w, &m, 2, r, cc);
		LLVMValueRef e = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, cc[0], ci32(w, stride), ""), cc[1], "");
		LLVMValueRef off = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, e, ci32(w, bytes), ""), ci32(w, base), "");
		LLVMSetAlignment(LLVMBuildStore(w->b, x->r[r], smem_addr(w, off)), (unsigned)bytes);
	}
	if (join)
		end_if(w, join);
}

/* n 32-bit registers from ldmatrix (x2 or x4, .trans) at this lane's row
 * address (bytes into shared memory). */
static void ldmatrix(lw *w, LLVMValueRef off, int n, bool trans, LLVMValueRef *out)
{
	LLVMTypeRef el[4] = {w->i32, w->i32, w->i32, w->i32};
	LLVMTypeRef st = LLVMStructTypeInContext(w->c, el, (unsigned)n, false);
	char name[64];
	snprintf(name, sizeof name, "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x%d%s.b16.p3", n, trans ? ".trans" : "");
	LLVMValueRef p = smem_addr(w, off);
	LLVMValueRef v = call(w, name, st, &p, 1);
	for (int i = 0; i < n; i++)
		out[i] = LLVMBuildExtractValue(w->b, v, (unsigned)i, "");
}

/* tl.dot on tensor cores: mma.sync m16n8k16, fp16 or bf16 in, fp32 out;
 * fp32 operands of a "tf32" dot round to tf32 and run m16n8k8, whose A
 * fragment has ldmatrix's shape in 32-bit words (B's is loaded word by
 * word: ldmatrix.trans moves 16-bit elements).
 * A (MxK) and B (KxN) go to shared memory row-major, each row padded by
 * 16 bytes, which keeps ldmatrix's row addresses 16-byte aligned and puts
 * 8 consecutive rows in distinct banks. Then, per 16-deep (tf32: 8-deep)
 * slice of K, each warp loads the B fragments of its 8-column tiles and,
 * per 16-row tile of A (ldmatrix), accumulates into its 16x8 tiles. The
 * result is in layout_mma, so a tile's registers are the instruction's
 * c0..c3 (rows g and g+8, columns 2t and 2t+1, g = lane/4, t = lane%4). */
static bool emit_dot_mma(lw *w, const ir_op *op, const layout *l, lval *out)
{
	ir_type at = vtype(w, op->args[0]), bt = vtype(w, op->args[1]), ct = vtype(w, op->results[0]);
	int64_t M = at.shape[0], K = at.shape[1], N = bt.shape[1];
	bool tf32 = at.kind == IR_F32;
	/* rows padded by 16 bytes (A: 4 tf32 words, keeping 8 rows of ldmatrix
	 * in distinct banks; B: 8 words, so that a tf32 B fragment's 4 rows of
	 * 8 words do too) */
	int64_t e = tf32 ? 4 : 2, kstep = tf32 ? 8 : 16;
	int64_t a_stride = K + 16 / e, b_stride = N + 8;
	int64_t a_bytes = M * a_stride * e;
	lval a, b, c;
	if (!get(w, op->args[0], NULL, &a) || !get(w, op->args[1], NULL, &b) || !get(w, op->args[2], l, &c))
		return false;
	layout_map mc = map_of(l, ct);
	int mt = mc.regs_per_dim[0] / 2, nt = mc.regs_per_dim[1] / 2;
	if (mc.rank != 2 || mt < 1 || nt < 1)
		return fail(w, op, TILEC_ERR_INVALID, "internal: dot accumulator of %d x %d registers", mc.regs_per_dim[0],
			    mc.regs_per_dim[1]);
	/* rounded to tf32 as the fma path and the interpreter do */
	if (tf32 && (!dot_operands(w, &a, IR_F32, true) || !dot_operands(w, &b, IR_F32, true)))
		return false;
	smem_need(w, (uint64_t)(a_bytes + K * b_stride * e));
	barrier(w);
	stage_rows(w, &a, at, a_stride, 0);
	stage_rows(w, &b, bt, b_stride, a_bytes);
	barrier(w);

	if (!alloc_regs(w, out, mc.nregs, l))
		return false;
	for (int r = 0; r < mc.nregs; r++)
		out->r[r] = c.r[r];
	LLVMValueRef t2 = LLVMBuildShl(w->b, LLVMBuildAnd(w->b, w->lane, ci32(w, 3), ""), ci32(w, 1), "");
	LLVMValueRef lrow = LLVMBuildAnd(w->b, w->lane, ci32(w, 15), "");
	LLVMValueRef lcol = LLVMBuildMul(w->b, LLVMBuildLShr(w->b, w->lane, ci32(w, 4), ""), ci32(w, kstep / 2), "");
	LLVMValueRef g = LLVMBuildLShr(w->b, w->lane, ci32(w, 2), "");
	LLVMValueRef t = LLVMBuildAnd(w->b, w->lane, ci32(w, 3), "");
	/* column 2t of the thread's first register, less 2t: its tiles' origin */
	LLVMValueRef col0 = LLVMBuildSub(w->b, thread_raw(w, &mc, 1), t2, "");
	int *reg = arena_alloc(w->a, sizeof(int) * 4 * (size_t)(mt * nt));
	LLVMValueRef *bfrag = arena_alloc(w->a, sizeof(LLVMValueRef) * 2 * (size_t)nt);
	int32_t *rowc = arena_alloc(w->a, sizeof(int32_t) * (size_t)mt);
	int32_t *colc = arena_alloc(w->a, sizeof(int32_t) * (size_t)nt);
	if (!reg || !bfrag || !rowc || !colc)
		return oom(w);
	for (int i = 0; i < mt; i++)
		for (int j = 0; j < nt; j++)
			for (int q = 0; q < 4; q++) {
				int32_t idx[2] = {2 * i + (q >> 1), 2 * j + (q & 1)}, cc[2];
				int r = layout_reg_join(&mc, idx);
				layout_reg_coords(&mc, r, cc);
				if (q == 0) {
					rowc[i] = cc[0];
					colc[j] = cc[1];
				} else if (cc[0] != rowc[i] + 8 * (q >> 1) || cc[1] != colc[j] + (q & 1)) {
					return fail(w, op, TILEC_ERR_INVALID, "internal: dot accumulator register %d is not "
						    "an mma.sync c%d", r, q);
				}
				reg[(i * nt + j) * 4 + q] = r;
			}
	const char *ty = tf32 ? "tf32" : at.kind == IR_BF16 ? "bf16" : "f16";
	char text[160];
	snprintf(text, sizeof text, "mma.sync.aligned.m16n8k%d.row.col.f32.%s.%s.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, "
		 "{$10,$11,$12,$13};", (int)kstep, ty, ty);
	LLVMTypeRef f4[4] = {w->f32, w->f32, w->f32, w->f32};
	LLVMTypeRef rt = LLVMStructTypeInContext(w->c, f4, 4, false);
	for (int64_t k0 = 0; k0 < K; k0 += kstep) {
		for (int j = 0; j < nt; j++) {
			LLVMValueRef col = LLVMBuildAnd(w->b, LLVMBuildAdd(w->b, col0, ci32(w, colc[j]), ""), ci32(w, N - 1), "");
			if (tf32) { /* b0 = B[k0 + t][col + g], b1 four rows down: 32-bit, no ldmatrix.trans */
				for (int h = 0; h < 2; h++) {
					LLVMValueRef k = LLVMBuildAdd(w->b, t, ci32(w, k0 + 4 * h), "");
					LLVMValueRef el = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, k, ci32(w, b_stride), ""),
								       LLVMBuildAdd(w->b, col, g, ""), "");
					LLVMValueRef off = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, el, ci32(w, e), ""),
									ci32(w, a_bytes), "");
					LLVMValueRef x = LLVMBuildLoad2(w->b, w->i32, smem_addr(w, off), "");
					LLVMSetAlignment(x, 4);
					bfrag[2 * j + h] = x;
				}
				continue;
			}
			LLVMValueRef el = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, LLVMBuildAdd(w->b, lrow, ci32(w, k0), ""),
									 ci32(w, b_stride), ""), col, "");
			LLVMValueRef off = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, el, ci32(w, e), ""), ci32(w, a_bytes), "");
			ldmatrix(w, off, 2, true, &bfrag[2 * j]);
		}
		for (int i = 0; i < mt; i++) {
			LLVMValueRef afrag[4];
			LLVMValueRef row = LLVMBuildAdd(w->b, lrow, ci32(w, rowc[i]), "");
			LLVMValueRef el = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, row, ci32(w, a_stride), ""),
						       LLVMBuildAdd(w->b, lcol, ci32(w, k0), ""), "");
			ldmatrix(w, LLVMBuildMul(w->b, el, ci32(w, e), ""), 4, false, afrag);
			for (int j = 0; j < nt; j++) {
				int *rr = &reg[(i * nt + j) * 4];
				LLVMValueRef args[14] = {afrag[0], afrag[1], afrag[2], afrag[3], bfrag[2 * j], bfrag[2 * j + 1],
							 out->r[rr[0]], out->r[rr[1]], out->r[rr[2]], out->r[rr[3]]};
				LLVMValueRef d = asm_call(w, rt, text, "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f", args, 10, false);
				for (int q = 0; q < 4; q++)
					out->r[rr[q]] = LLVMBuildExtractValue(w->b, d, (unsigned)q, "");
			}
		}
	}
	return true;
}

/* tl.dot without tensor cores: each thread keeps the rows of A and the
 * columns of B its accumulator elements need, all of K, and runs one fma
 * chain per element in k order (fp32, i32 for i8), as the reference
 * interpreter does. */
static bool emit_dot(lw *w, const ir_op *op, const layout *l, lval *out)
{
	if (l && l->mma)
		return emit_dot_mma(w, op, l, out);
	ir_type at = vtype(w, op->args[0]), bt = vtype(w, op->args[1]), ct = vtype(w, op->results[0]);
	ir_kind ak = (ir_kind)at.kind, ck = (ir_kind)ct.kind;
	int kk = at.shape[1];
	if (!l || l->kind != LAYOUT_BLOCKED)
		l = w->p->by_rank[2];
	const layout *la = whole_dim(w, l, 1, kk), *lb = whole_dim(w, l, 0, kk);
	lval a, b, c;
	if (!la || !lb)
		return oom(w);
	if (!get(w, op->args[0], la, &a) || !get(w, op->args[1], lb, &b) || !get(w, op->args[2], l, &c))
		return false;
	layout_map mc = map_of(l, ct), ma = map_of(la, at), mb = map_of(lb, bt);
	bool tf32 = ak == IR_F32 && op->sub == IR_PRECISION_TF32;
	if (!dot_operands(w, &a, ak, tf32) || !dot_operands(w, &b, ak, tf32) || !alloc_regs(w, out, mc.nregs, l))
		return false;
	for (int r = 0; r < mc.nregs; r++) {
		int32_t idx[2], ia[2], ib[2];
		layout_reg_split(&mc, r, idx);
		LLVMValueRef acc = ak == IR_I8 ? c.r[r] : widen(w, c.r[r], ck);
		for (int t = 0; t < kk; t++) {
			ia[0] = idx[0];
			ia[1] = t;
			ib[0] = t;
			ib[1] = idx[1];
			LLVMValueRef x = a.r[layout_reg_join(&ma, ia)], y = b.r[layout_reg_join(&mb, ib)];
			if (ak == IR_I8) {
				acc = LLVMBuildAdd(w->b, acc, LLVMBuildMul(w->b, x, y, ""), "");
			} else {
				LLVMValueRef v3[3] = {x, y, acc};
				acc = call(w, ak == IR_F64 ? "llvm.fma.f64" : "llvm.fma.f32", LLVMTypeOf(acc), v3, 3);
			}
		}
		out->r[r] = ak == IR_I8 ? acc : narrow(w, acc, ck);
	}
	return true;
}

/* ---- structured control flow ---- */

static bool lower_op(lw *w, const ir_op *op);

static const ir_op *terminator(const ir_region *r, ir_opcode code)
{
	const ir_op *t = r->nops ? r->ops[r->nops - 1] : NULL;
	return t && t->code == code ? t : NULL;
}

/* The region's ops but its terminator. */
static bool lower_body(lw *w, const ir_region *r)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		if (op->code == IR_OP_YIELD || op->code == IR_OP_CONDITION)
			continue;
		if (!lower_op(w, op))
			return false;
	}
	return true;
}

/* Value v in the layout of value `like` (a parameter or result). */
static bool get_like(lw *w, int v, int like, lval *out)
{
	return get(w, v, w->p->of[like], out);
}

/* One phi per register of `init` (in `from`), bound to value id `id`. */
static bool make_phis(lw *w, int id, const lval *init, LLVMBasicBlockRef from)
{
	if (!alloc_regs(w, &w->v[id], init->n, init->l))
		return false;
	for (int i = 0; i < init->n; i++) {
		LLVMValueRef phi = LLVMBuildPhi(w->b, LLVMTypeOf(init->r[i]), "");
		LLVMValueRef in = init->r[i];
		LLVMAddIncoming(phi, &in, &from, 1);
		w->v[id].r[i] = phi;
	}
	return true;
}

static void add_incoming(const lval *phis, const lval *x, LLVMBasicBlockRef from)
{
	for (int i = 0; i < phis->n && i < x->n; i++) {
		LLVMValueRef in = x->r[i];
		LLVMAddIncoming(phis->r[i], &in, &from, 1);
	}
}

/* for iv in range(lb, ub, step): the test sits in the header; LLVM
 * rotates the loop. */
static bool lower_for(lw *w, const ir_op *op)
{
	const ir_region *body = &op->regions[0];
	const ir_op *y = terminator(body, IR_OP_YIELD);
	int n = op->nargs - 3;
	lval lb, ub, step;
	if (!get(w, op->args[0], NULL, &lb) || !get(w, op->args[1], NULL, &ub) || !get(w, op->args[2], NULL, &step))
		return false;
	lval *init = arena_alloc(w->a, sizeof(lval) * (size_t)(n + 1));
	if (!init)
		return oom(w);
	for (int i = 0; i < n; i++)
		if (!get_like(w, op->args[3 + i], body->params[1 + i], &init[i]))
			return false;
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(w->b), head, loop, exit;
	new_block(w, "for.head", &head);
	new_block(w, "for.body", &loop);
	new_block(w, "for.exit", &exit);
	LLVMBuildBr(w->b, head);
	LLVMPositionBuilderAtEnd(w->b, head);
	if (!make_phis(w, body->params[0], &lb, pre))
		return false;
	for (int i = 0; i < n; i++)
		if (!make_phis(w, body->params[1 + i], &init[i], pre))
			return false;
	ir_kind ik = (ir_kind)vtype(w, op->args[0]).kind;
	LLVMValueRef iv = w->v[body->params[0]].r[0];
	LLVMValueRef more = LLVMBuildICmp(w->b, ir_kind_is_signed(ik) ? LLVMIntSLT : LLVMIntULT, iv, ub.r[0], "");
	LLVMBuildCondBr(w->b, more, loop, exit);
	LLVMPositionBuilderAtEnd(w->b, loop);
	if (!lower_body(w, body))
		return false;
	for (int i = 0; i < n; i++) {
		lval next;
		if (!y || i >= y->nargs)
			return fail(w, op, TILEC_ERR_INVALID, "loop body yields too few values");
		if (!get_like(w, y->args[i], body->params[1 + i], &next))
			return false;
		add_incoming(&w->v[body->params[1 + i]], &next, LLVMGetInsertBlock(w->b));
	}
	lval ivn = {1, NULL, NULL};
	LLVMValueRef next_iv = LLVMBuildAdd(w->b, iv, step.r[0], "");
	ivn.r = &next_iv;
	add_incoming(&w->v[body->params[0]], &ivn, LLVMGetInsertBlock(w->b));
	LLVMBuildBr(w->b, head);
	LLVMPositionBuilderAtEnd(w->b, exit);
	for (int i = 0; i < op->nresults; i++)
		w->v[op->results[i]] = w->v[body->params[1 + i]];
	return true;
}

static bool lower_if(lw *w, const ir_op *op)
{
	lval c;
	if (!get(w, op->args[0], NULL, &c))
		return false;
	LLVMBasicBlockRef then, els, join;
	new_block(w, "if.then", &then);
	new_block(w, "if.else", &els);
	new_block(w, "if.join", &join);
	LLVMBuildCondBr(w->b, c.r[0], then, els);
	lval *ys[2];
	LLVMBasicBlockRef ends[2];
	for (int g = 0; g < 2; g++) {
		LLVMPositionBuilderAtEnd(w->b, g ? els : then);
		ys[g] = arena_alloc(w->a, sizeof(lval) * (size_t)(op->nresults + 1));
		if (!ys[g])
			return oom(w);
		if (g < op->nregions) {
			const ir_region *r = &op->regions[g];
			const ir_op *y = terminator(r, IR_OP_YIELD);
			if (!lower_body(w, r))
				return false;
			for (int i = 0; i < op->nresults; i++) {
				if (!y || i >= y->nargs)
					return fail(w, op, TILEC_ERR_INVALID, "if branch yields too few values");
				if (!get_like(w, y->args[i], op->results[i], &ys[g][i]))
					return false;
			}
		} else if (op->nresults) {
			return fail(w, op, TILEC_ERR_INVALID, "if with results has no else branch");
		}
		ends[g] = LLVMGetInsertBlock(w->b);
		LLVMBuildBr(w->b, join);
	}
	LLVMPositionBuilderAtEnd(w->b, join);
	for (int i = 0; i < op->nresults; i++) {
		if (!make_phis(w, op->results[i], &ys[0][i], ends[0]))
			return false;
		add_incoming(&w->v[op->results[i]], &ys[1][i], ends[1]);
	}
	return true;
}

/* while: the before region computes the condition and the values passed
 * on (to the after region, or out as results). */
static bool lower_while(lw *w, const ir_op *op)
{
	const ir_region *before = &op->regions[0], *after = &op->regions[1];
	const ir_op *cond = terminator(before, IR_OP_CONDITION), *y = terminator(after, IR_OP_YIELD);
	if (!cond || !y || cond->nargs - 1 < after->nparams || cond->nargs - 1 < op->nresults ||
	    y->nargs < before->nparams)
		return fail(w, op, TILEC_ERR_INVALID, "malformed while loop");
	int n = before->nparams;
	lval *init = arena_alloc(w->a, sizeof(lval) * (size_t)(n + 1));
	if (!init)
		return oom(w);
	for (int i = 0; i < n; i++)
		if (!get_like(w, op->args[i], before->params[i], &init[i]))
			return false;
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(w->b), head, loop, exit;
	new_block(w, "while.head", &head);
	new_block(w, "while.body", &loop);
	new_block(w, "while.exit", &exit);
	LLVMBuildBr(w->b, head);
	LLVMPositionBuilderAtEnd(w->b, head);
	for (int i = 0; i < n; i++)
		if (!make_phis(w, before->params[i], &init[i], pre))
			return false;
	if (!lower_body(w, before))
		return false;
	lval c;
	if (!get(w, cond->args[0], NULL, &c))
		return false;
	for (int i = 0; i < after->nparams; i++)
		if (!get_like(w, cond->args[1 + i], after->params[i], &w->v[after->params[i]]))
			return false;
	for (int i = 0; i < op->nresults; i++)
		if (!get_like(w, cond->args[1 + i], op->results[i], &w->v[op->results[i]]))
			return false;
	LLVMBuildCondBr(w->b, c.r[0], loop, exit);
	LLVMPositionBuilderAtEnd(w->b, loop);
	if (!lower_body(w, after))
		return false;
	for (int i = 0; i < n; i++) {
		lval next;
		if (!get_like(w, y->args[i], before->params[i], &next))
			return false;
		add_incoming(&w->v[before->params[i]], &next, LLVMGetInsertBlock(w->b));
	}
	LLVMBuildBr(w->b, head);
	LLVMPositionBuilderAtEnd(w->b, exit);
	return true;
}

/* ---- ops ---- */

static bool lower_op(lw *w, const ir_op *op)
{
	switch (op->code) {
	case IR_OP_STORE:
		return emit_store(w, op);
	case IR_OP_ASSUME:
		return true;
	case IR_OP_FOR:
		return lower_for(w, op);
	case IR_OP_IF:
		return lower_if(w, op);
	case IR_OP_WHILE:
		return lower_while(w, op);
	default:
		break;
	}
	if (op->nresults != 1)
		return fail(w, op, TILEC_ERR_UNSUPPORTED, "'%s' is not supported by the GPU back end yet", op_name(op));
	int res = op->results[0];
	return emit_value(w, op, w->p->of[res], &w->v[res]);
}

/* ---- the kernel ---- */

static void annotate(lw *w, const char *key, int value)
{
	LLVMMetadataRef md[3] = {
		LLVMValueAsMetadata(w->fn),
		LLVMMDStringInContext2(w->c, key, strlen(key)),
		LLVMValueAsMetadata(ci32(w, value)),
	};
	LLVMAddNamedMetadataOperand(w->m, "nvvm.annotations",
				    LLVMMetadataAsValue(w->c, LLVMMDNodeInContext2(w->c, md, 3)));
}

static void init_types(lw *w)
{
	w->i1 = LLVMInt1TypeInContext(w->c);
	w->i8 = LLVMInt8TypeInContext(w->c);
	w->i16 = LLVMInt16TypeInContext(w->c);
	w->i32 = LLVMInt32TypeInContext(w->c);
	w->i64 = LLVMInt64TypeInContext(w->c);
	w->f16 = LLVMHalfTypeInContext(w->c);
	w->bf16 = LLVMBFloatTypeInContext(w->c);
	w->f32 = LLVMFloatTypeInContext(w->c);
	w->f64 = LLVMDoubleTypeInContext(w->c);
	w->gptr = LLVMPointerTypeInContext(w->c, 1);
	w->vd = LLVMVoidTypeInContext(w->c);
}

/* Kernel parameters: pointers in the global address space, i1 as a byte
 * (what the generated C passes). */
static bool build_entry(lw *w, const char *symbol)
{
	const ir_func *f = w->f;
	LLVMTypeRef *pt = arena_alloc(w->a, sizeof(LLVMTypeRef) * (size_t)(f->nparams + 1));
	if (!pt)
		return oom(w);
	for (int i = 0; i < f->nparams; i++) {
		ir_type t = f->params[i].type;
		if (t.rank)
			return fail(w, NULL, TILEC_ERR_INVALID, "kernel parameter %d is a block", i);
		pt[i] = t.kind == IR_I1 ? w->i8 : ltype(w, (ir_kind)t.kind);
	}
	if (LLVMGetNamedFunction(w->m, symbol))
		return fail(w, NULL, TILEC_ERR_INVALID, "two kernels named '%s' in one module", symbol);
	w->fn = LLVMAddFunction(w->m, symbol, LLVMFunctionType(w->vd, pt, (unsigned)f->nparams, false));
	LLVMSetFunctionCallConv(w->fn, PTX_KERNEL_CC);
	annotate(w, "kernel", 1);
	annotate(w, "reqntidx", 32 * f->num_warps); /* as Triton: ptxas may rely on the exact block size */
	LLVMBasicBlockRef entry;
	new_block(w, "entry", &entry);
	LLVMPositionBuilderAtEnd(w->b, entry);
	for (int i = 0; i < f->nparams; i++) {
		if (!alloc_regs(w, &w->v[i], 1, NULL))
			return false;
		LLVMValueRef x = LLVMGetParam(w->fn, (unsigned)i);
		if (f->params[i].type.kind == IR_I1)
			x = LLVMBuildICmp(w->b, LLVMIntNE, x, LLVMConstInt(w->i8, 0, false), "");
		w->v[i].r[0] = x;
	}
	w->tid = sreg(w, "llvm.nvvm.read.ptx.sreg.tid.x");
	w->lane = LLVMBuildAnd(w->b, w->tid, ci32(w, 31), "lane");
	w->warp = LLVMBuildLShr(w->b, w->tid, ci32(w, 5), "warp");
	char name[300];
	snprintf(name, sizeof name, "%.256s.smem", symbol);
	w->smem = LLVMAddGlobalInAddressSpace(w->m, LLVMArrayType(w->i8, 0), name, 3);
	return true;
}

/* The shared scratch gets its final size once every use is known; past
 * the 48 KB a static allocation may take it is dynamic shared memory. */
static void finish_smem(lw *w, const char *symbol)
{
	if (!w->smem_bytes) {
		LLVMDeleteGlobal(w->smem);
		return;
	}
	char name[300];
	snprintf(name, sizeof name, "__tile_smem_%.256s", symbol);
	uint32_t size = (w->smem_bytes + 15) & ~15u;
	w->smem_dynamic = size > 48 * 1024;
	LLVMTypeRef at = LLVMArrayType(w->i8, w->smem_dynamic ? 0 : size);
	LLVMValueRef g = LLVMAddGlobalInAddressSpace(w->m, at, name, 3);
	if (!w->smem_dynamic) {
		LLVMSetInitializer(g, LLVMGetUndef(at));
		LLVMSetLinkage(g, LLVMInternalLinkage);
	}
	LLVMSetAlignment(g, 16);
	LLVMReplaceAllUsesWith(w->smem, g);
	LLVMDeleteGlobal(w->smem);
	w->smem_bytes = size;
}

tilec_status lower_kernel(tilec_ctx *ctx, LLVMModuleRef m, const ir_func *f, const char *symbol,
			  const axis_info *ai, const layout_plan *plan, lower_result *out)
{
	lw w;
	memset(&w, 0, sizeof w);
	w.ctx = ctx;
	w.m = m;
	w.c = LLVMGetModuleContext(m);
	w.f = f;
	w.ai = ai;
	w.p = plan;
	w.a = arena_new();
	if (!w.a)
		return TILEC_ERR_NOMEM;
	w.v = arena_alloc(w.a, sizeof(lval) * (size_t)(f->nvalues + 1));
	if (!w.v) {
		arena_free(w.a);
		return TILEC_ERR_NOMEM;
	}
	init_types(&w);
	w.b = LLVMCreateBuilderInContext(w.c);
	if (build_entry(&w, symbol) && lower_body(&w, &f->body))
		LLVMBuildRetVoid(w.b);
	if (w.fn && w.st != TILEC_OK) {
		LLVMDeleteFunction(w.fn);
		w.fn = NULL;
	}
	if (w.smem)
		finish_smem(&w, symbol);
	LLVMDisposeBuilder(w.b);
	arena_free(w.a);
	if (out && w.st == TILEC_OK) {
		out->uses_libdevice = w.libdevice;
		out->shared_bytes = w.smem_bytes;
		out->shared_dynamic = w.smem_dynamic;
	}
	return w.st;
}
