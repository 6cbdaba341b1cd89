/* lower.c - tile IR to LLVM IR for nvptx64-nvidia-cuda: the core.
 *
 * Each block value lives in registers under its layout: one LLVM scalar per
 * element the thread holds (LLVM's scalar optimizations do well on that),
 * scalars are one uniform value. An op is emitted in the layout its result
 * was assigned; operands in another layout are either recomputed there
 * (cheap values: constants, aranges, splats and elementwise chains of
 * them) or moved through shared memory (convert.c). Element coordinates
 * are the thread's lane and warp bit fields plus a per-register constant,
 * so aranges, masks and addresses fold into a few integer ops per thread.
 *
 * This file holds what every op needs (the context, types and small
 * builders, coordinates, values in layouts), the op dispatch, structured
 * control flow and the kernel: for/if/while become LLVM loops and branches
 * with one phi per register of each carried value. Shared memory is one
 * array used as a stack in program order: the rings of a pipelined loop
 * are pushed before it and popped after it, scratch for conversions and
 * reductions lies above the live rings, and the array is sized at the end
 * by the largest use. The op families are lowered beside it: memory.c,
 * math.c, reduce.c, convert.c, tiles.c, dot_fma.c and dot_mma.c, sharing
 * nvptx/lower.h.
 */
#include "nvptx/lower.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PTX_KERNEL_CC 71

static const char *op_name(const ir_op *op)
{
	return ir_opcode_name(op->code);
}

bool lw_fail(lw *w, const ir_op *op, tilec_status st, const char *fmt, ...)
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

bool lw_oom(lw *w)
{
	if (w->st == TILEC_OK)
		w->st = TILEC_ERR_NOMEM;
	return false;
}

ir_type lw_vtype(const lw *w, int v)
{
	return w->f->values[v].type;
}

/* ---- types and small builders ---- */

LLVMTypeRef lw_ltype(const lw *w, ir_kind k)
{
	switch (k) {
	case IR_I1: return w->i1;
	case IR_I8: case IR_U8: case IR_F8E4NV: case IR_F8E5: return w->i8;
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
LLVMTypeRef lw_stype(const lw *w, ir_kind k)
{
	return k == IR_I1 ? w->i8 : k == IR_PTR ? w->i64 : lw_ltype(w, k);
}

LLVMValueRef lw_ci32(const lw *w, int64_t v)
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

LLVMValueRef lw_call(lw *w, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n)
{
	LLVMTypeRef at[8];
	for (int i = 0; i < n && i < 8; i++)
		at[i] = LLVMTypeOf(args[i]);
	LLVMValueRef fn = func_decl(w, name, ret, at, n);
	return LLVMBuildCall2(w->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)n, "");
}

static LLVMValueRef sreg(lw *w, const char *name)
{
	return lw_call(w, name, w->i32, NULL, 0);
}

LLVMValueRef lw_cuda_arch(lw *w)
{
	static const char key[] = "__CUDA_ARCH";
	LLVMValueRef g = LLVMGetNamedGlobal(w->m, "tile.cuda_arch");
	if (!g) {
		LLVMValueRef init = LLVMConstStringInContext(w->c, key, sizeof key - 1, false);
		g = LLVMAddGlobalInAddressSpace(w->m, LLVMTypeOf(init), "tile.cuda_arch", 4);
		LLVMSetInitializer(g, init);
		LLVMSetGlobalConstant(g, true);
		LLVMSetLinkage(g, LLVMPrivateLinkage);
		LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
	}
	/* a generic pointer, as libdevice declares __nvvm_reflect */
	LLVMValueRef p = LLVMConstAddrSpaceCast(g, LLVMPointerTypeInContext(w->c, 0));
	return lw_call(w, "__nvvm_reflect", w->i32, &p, 1);
}

/* gdc_wait, gdc_launch_dependents: griddepcontrol from sm_90 on, nothing
 * below, where no launch lets a grid start before the one it follows
 * (compile.c lowers the tiers apart when a kernel has them). The wait
 * orders memory: the loads after it see the grid before's stores. */
static bool emit_grid_dep(lw *w, const ir_op *op)
{
	LLVMValueRef sm90 = LLVMBuildICmp(w->b, LLVMIntSGE, lw_cuda_arch(w), lw_ci32(w, 900), "");
	LLVMBasicBlockRef join = lw_begin_if(w, sm90);
	lw_asm_call(w, w->vd, op->sub ? "griddepcontrol.launch_dependents;" : "griddepcontrol.wait;", "~{memory}", NULL, 0,
		    true);
	lw_end_if(w, join);
	return true;
}

LLVMValueRef lw_asm_call(lw *w, LLVMTypeRef ret, const char *text, const char *cons, LLVMValueRef *args,
			 int n, bool side_effects)
{
	LLVMTypeRef small[16], *at = small;
	if (n > 16 && !(at = arena_alloc(w->a, sizeof(LLVMTypeRef) * (size_t)n)))
		return lw_oom(w), LLVMGetUndef(ret);
	for (int i = 0; i < n; i++)
		at[i] = LLVMTypeOf(args[i]);
	LLVMTypeRef ft = LLVMFunctionType(ret, at, (unsigned)n, false);
	LLVMValueRef fn = LLVMGetInlineAsm(ft, text, strlen(text), cons, strlen(cons), side_effects, false,
					   LLVMInlineAsmDialectATT, false);
	return LLVMBuildCall2(w->b, ft, fn, args, (unsigned)n, "");
}

void lw_barrier(lw *w)
{
	w->nbarriers++;
	if (w->ws_role == LW_WS_CONSUMER) {
		/* named barrier 1 over the consumers (convergent, as barrier0:
		 * LLVM never splits one between the paths of a branch) */
		LLVMValueRef args[2] = {lw_ci32(w, 1), lw_ci32(w, 32 * w->f->num_warps)};
		lw_call(w, "llvm.nvvm.barrier.sync.cnt", w->vd, args, 2);
	} else if (w->ws_role == LW_WS_NONE) {
		lw_call(w, "llvm.nvvm.barrier0", w->vd, NULL, 0);
	} /* the producer shares no scratch */
}

void lw_barrier_all(lw *w)
{
	/* not barrier0, which target.c merges where two meet: the producer's
	 * and the consumers' counts must stay equal */
	LLVMValueRef id = lw_ci32(w, 0);
	lw_call(w, "llvm.nvvm.barrier.sync", w->vd, &id, 1);
}

bool lw_alloc_regs(lw *w, lval *out, int n, const layout *l)
{
	out->n = n;
	out->l = l;
	out->r = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)(n ? n : 1));
	return out->r ? true : lw_oom(w);
}

static void new_block(lw *w, const char *name, LLVMBasicBlockRef *bb)
{
	*bb = LLVMAppendBasicBlockInContext(w->c, w->fn, name);
}

/* ---- coordinates ---- */

layout_map lw_map_of(const layout *l, ir_type t)
{
	return layout_map_of(l, t.rank, t.shape);
}

/* The thread's coordinate along map dim d before the modulo, and after. */
LLVMValueRef lw_thread_raw(lw *w, const layout_map *m, int d)
{
	layout_field fl = layout_dim_field(m, d);
	LLVMValueRef s = lw_ci32(w, 0);
	if (fl.lanes > 1) {
		LLVMValueRef x = LLVMBuildLShr(w->b, w->lane, lw_ci32(w, fl.lane_shift), "");
		x = LLVMBuildAnd(w->b, x, lw_ci32(w, fl.lanes - 1), "");
		s = LLVMBuildMul(w->b, x, lw_ci32(w, fl.lane_scale), "");
	}
	if (fl.warps > 1) {
		LLVMValueRef x = LLVMBuildLShr(w->b, w->warp, lw_ci32(w, fl.warp_shift), "");
		x = LLVMBuildAnd(w->b, x, lw_ci32(w, fl.warps - 1), "");
		s = LLVMBuildAdd(w->b, s, LLVMBuildMul(w->b, x, lw_ci32(w, fl.warp_scale), ""), "");
	}
	return s;
}

LLVMValueRef lw_thread_coord(lw *w, const layout_map *m, int d)
{
	return LLVMBuildAnd(w->b, lw_thread_raw(w, m, d), lw_ci32(w, m->shape[d] - 1), "");
}

/* True in the one thread that owns each element (others hold replicas);
 * NULL when no element is replicated. */
LLVMValueRef lw_owner(lw *w, const layout_map *m)
{
	LLVMValueRef p = NULL;
	for (int d = 0; d < m->rank; d++) {
		layout_field fl = layout_dim_field(m, d);
		if ((int64_t)fl.warp_scale * fl.warps <= m->shape[d])
			continue;
		LLVMValueRef c = LLVMBuildICmp(w->b, LLVMIntULT, lw_thread_raw(w, m, d), lw_ci32(w, m->shape[d]), "");
		p = p ? LLVMBuildAnd(w->b, p, c, "") : c;
	}
	return p;
}

/* Coordinates (value dims) of register r as i32 values. */
void lw_reg_coords(lw *w, const layout_map *m, int rank, int r, LLVMValueRef *out)
{
	int32_t cc[IR_MAX_RANK];
	layout_reg_coords(m, r, cc);
	for (int j = 0; j < rank; j++) {
		int d = m->dim_of[j];
		out[j] = LLVMBuildAdd(w->b, lw_thread_coord(w, m, d), lw_ci32(w, cc[d]), "");
	}
}

LLVMValueRef lw_linear_index(lw *w, const layout_map *m, ir_type t, int r)
{
	LLVMValueRef c[IR_MAX_RANK];
	lw_reg_coords(w, m, t.rank, r, c);
	LLVMValueRef lin = lw_ci32(w, 0);
	for (int j = 0; j < t.rank; j++)
		lin = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, lin, lw_ci32(w, t.shape[j]), ""), c[j], "");
	return lin;
}

/* ---- shared memory ---- */

LLVMValueRef lw_smem_at(lw *w, LLVMValueRef byte_offset)
{
	return LLVMBuildGEP2(w->b, w->i8, w->smem, &byte_offset, 1, "");
}

LLVMValueRef lw_smem_addr(lw *w, LLVMValueRef byte_offset)
{
	if (w->smem_top)
		byte_offset = LLVMBuildAdd(w->b, byte_offset, lw_ci32(w, w->smem_top), "");
	return lw_smem_at(w, byte_offset);
}

void lw_smem_account(lw *w, uint64_t bytes)
{
	bytes += w->smem_top;
	if (bytes > w->smem_bytes)
		w->smem_bytes = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
}

static bool scratch_read_in_flight(const lw *w)
{
	return w->wgmma_scratch && (w->wgmma_pending >= 0 || w->wgmma_older >= 0 || w->wgmma_phantom);
}

/* Blocks an SM holds by shared memory at `bytes` a block (the driver
 * keeps 1 KB a block). */
static uint32_t blocks_by_smem(const lw *w, uint64_t bytes)
{
	return (uint32_t)(w->p->sm_smem / (bytes + TARGET_BLOCK_RESERVED_SMEM));
}

/* Whether shared memory may end at `top` (from its start) where the
 * kernel needs `had`: under the block's limit, and where it passes `had`,
 * with as many blocks an SM, or as many as registers allow at most
 * (by_regs): scratch above staged operands costs shared memory only where
 * it costs nothing else. */
static bool scratch_fits(const lw *w, uint64_t top, uint64_t had, uint32_t by_regs)
{
	if (w->p->smem_limit && top > w->p->smem_limit)
		return false;
	if (top <= had)
		return true;
	uint32_t then = blocks_by_smem(w, top);
	return w->p->sm_smem && (then >= blocks_by_smem(w, had) || then >= by_regs);
}

void lw_smem_need(lw *w, uint64_t bytes)
{
	/* the scratch is about to be written: the copy engine is done with it
	 * first; a wgmma group in flight that reads operands staged there is
	 * left running where the op's scratch fits above them (a multiple of
	 * 1024 bytes up, which keeps every alignment the op computes), else
	 * waited for */
	if (w->bulk_pending)
		lw_bulk_wait(w, true);
	if (!w->scratch_lift && scratch_read_in_flight(w)) {
		uint32_t lift = w->wgmma_staged_top > w->smem_top ? (w->wgmma_staged_top - w->smem_top + 1023) & ~1023u : 0;
		if (lift && scratch_fits(w, (uint64_t)w->smem_top + lift + bytes, w->smem_bytes, UINT32_MAX)) {
			w->smem_top += lift;
			w->scratch_lift = lift;
		} else {
			lw_wgmma_wait(w);
		}
	}
	lw_smem_account(w, bytes);
}

void lw_smem_stage(lw *w, uint64_t bytes)
{
	/* operands staged or tiles placed from the scratch's start: every
	 * group that reads the scratch is done first */
	if (w->bulk_pending)
		lw_bulk_wait(w, true);
	if (scratch_read_in_flight(w))
		lw_wgmma_wait(w);
	lw_scratch_unlift(w);
	lw_smem_account(w, bytes);
}

void lw_scratch_unlift(lw *w)
{
	w->smem_top -= w->scratch_lift;
	w->scratch_lift = 0;
}

LLVMValueRef lw_to_storage(lw *w, LLVMValueRef x, ir_kind k)
{
	if (k == IR_I1)
		return LLVMBuildZExt(w->b, x, w->i8, "");
	if (k == IR_PTR)
		return LLVMBuildPtrToInt(w->b, x, w->i64, "");
	return x;
}

LLVMValueRef lw_from_storage(lw *w, LLVMValueRef x, ir_kind k)
{
	if (k == IR_I1)
		return LLVMBuildICmp(w->b, LLVMIntNE, x, LLVMConstInt(w->i8, 0, false), "");
	if (k == IR_PTR)
		return LLVMBuildIntToPtr(w->b, x, w->gptr, "");
	return x;
}

/* Runs `body` regions only where pred holds: returns the join block. */
LLVMBasicBlockRef lw_begin_if(lw *w, LLVMValueRef pred)
{
	LLVMBasicBlockRef then, join;
	new_block(w, "then", &then);
	new_block(w, "join", &join);
	LLVMBuildCondBr(w->b, pred, then, join);
	LLVMPositionBuilderAtEnd(w->b, then);
	return join;
}

void lw_end_if(lw *w, LLVMBasicBlockRef join)
{
	LLVMBuildBr(w->b, join);
	LLVMPositionBuilderAtEnd(w->b, join);
}

/* ---- values in layouts ---- */

static bool emit_value(lw *w, const ir_op *op, const layout *l, lval *out);

/* A scalar of integer arithmetic on kernel parameters, constants and
 * program ids: computed again after a loop where it is used (lw_get). */
static bool cheap_scalar(const lw *w, int v, int depth)
{
	if (v < w->f->nparams)
		return true;
	const ir_op *def = w->f->values[v].def;
	if (!def || depth > 8 || lw_vtype(w, v).rank)
		return false;
	switch (def->code) {
	case IR_OP_CONST: case IR_OP_PROGRAM_ID: case IR_OP_CAST: case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL:
	case IR_OP_SHL: case IR_OP_SHR: case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR: case IR_OP_PTR_ADD:
		break;
	default:
		return false;
	}
	for (int i = 0; i < def->nargs; i++)
		if (!cheap_scalar(w, def->args[i], depth + 1))
			return false;
	return true;
}

/* Value v's registers in layout l. */
bool lw_get(lw *w, int v, const layout *l, lval *out)
{
	ir_type t = lw_vtype(w, v);
	const lval *have = &w->v[v];
	if (!have->r)
		return lw_fail(w, w->f->values[v].def, TILEC_ERR_INVALID, "value %%%d used before it is defined", v);
	if (have->view)
		return lw_fail(w, w->f->values[v].def, TILEC_ERR_INVALID, "internal: %%%d is read in place by dots only", v);
	/* a cheap value computed before a loop is computed again after it,
	 * from the thread's coordinates read afresh, rather than held in
	 * registers through the loop; once per block (and layout), so that a
	 * chain of such values is computed again link by link, not once per
	 * path through it */
	const ir_op *cheap = w->f->values[v].def;
	if (cheap && cheap->nresults == 1 && w->born[v] < w->epoch &&
	    (t.rank ? w->p->remat[v] : cheap_scalar(w, v, 0))) {
		const layout *want = t.rank ? (l ? l : have->l) : NULL;
		lval *again = &w->again[v];
		if (again->r && w->again_at[v] == LLVMGetInsertBlock(w->b) && (!t.rank || layout_eq(again->l, want))) {
			*out = *again;
			return true;
		}
		if (!emit_value(w, cheap, want, out))
			return false;
		*again = *out;
		w->again_at[v] = LLVMGetInsertBlock(w->b);
		return true;
	}
	if (t.rank == 0 || !l) {
		*out = *have;
		return true;
	}
	if (l->rank != t.rank)
		return lw_fail(w, w->f->values[v].def, TILEC_ERR_INVALID, "internal: %%%d wanted in a rank-%d layout", v, l->rank);
	layout_map mh = lw_map_of(have->l, t), ml = lw_map_of(l, t);
	if (layout_map_eq(&mh, &ml)) {
		*out = *have;
		out->l = l;
		return true;
	}
	const ir_op *def = w->f->values[v].def;
	if (w->p->remat[v] && def && def->nresults == 1)
		return emit_value(w, def, l, out);
	/* a broadcast (or the expand_dims under it) is rebuilt in l from its
	 * source moved instead: a bias row added to a dot's result moves its
	 * N elements through shared memory, not the M x N block */
	if (def && (def->code == IR_OP_BROADCAST || def->code == IR_OP_EXPAND_DIMS) && l->kind == LAYOUT_BLOCKED &&
	    lw_vtype(w, def->args[0]).rank)
		return emit_value(w, def, l, out);
	return lw_move(w, have, t, t, NULL, l, out);
}

bool lw_get_args(lw *w, const ir_op *op, const layout *l, lval *args)
{
	for (int i = 0; i < op->nargs; i++)
		if (!lw_get(w, op->args[i], lw_vtype(w, op->args[i]).rank ? l : NULL, &args[i]))
			return false;
	return true;
}

static LLVMValueRef const_of(lw *w, ir_kind k, int64_t iv, double fv)
{
	if (ir_kind_is_fp8(k)) /* the interpreter's rounding (sm_90's) */
		return LLVMConstInt(w->i8, ir_fp8_from_f32(k, (float)fv, IR_FP8_SM90), false);
	if (ir_kind_is_float(k))
		return LLVMConstReal(lw_ltype(w, k), fv);
	if (k == IR_PTR)
		return LLVMConstIntToPtr(LLVMConstInt(w->i64, (unsigned long long)iv, false), w->gptr);
	return LLVMConstInt(lw_ltype(w, k), (unsigned long long)iv, ir_kind_is_signed(k));
}

/* ---- value ops ---- */

/* One element of an elementwise op of result type rt, from one element
 * of each operand (x; ak: the first operand's kind); NULL where the op is
 * not supported (lw_fail has said why). */
static LLVMValueRef elementwise(lw *w, const ir_op *op, ir_type rt, ir_kind ak, LLVMValueRef *x)
{
	ir_kind k = (ir_kind)rt.kind;
	LLVMValueRef y;
	switch (op->code) {
	case IR_OP_CAST: {
		int64_t lo, hi;
		if (k == IR_F16 && range_of(w->f, op->args[0], &lo, &hi)) /* integers of 32 bits or fewer */
			return lw_cast_ranged(w, x[0], ak, lo, hi);
		return lw_cast(w, x[0], ak, k);
	}
	case IR_OP_BITCAST:
		return LLVMBuildBitCast(w->b, x[0], lw_ltype(w, k), "");
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_REM:
	case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR: case IR_OP_SHL: case IR_OP_SHR:
	case IR_OP_MIN: case IR_OP_MAX:
		return lw_binop(w, op, k, x[0], x[1]);
	case IR_OP_NEG:
		return lw_is_f(k) ? LLVMBuildFNeg(w->b, x[0], "") : LLVMBuildNeg(w->b, x[0], "");
	case IR_OP_NOT:
		return LLVMBuildNot(w->b, x[0], "");
	case IR_OP_CMP:
		return lw_compare(w, op->sub, ak, x[0], x[1]);
	case IR_OP_SELECT:
		return LLVMBuildSelect(w->b, x[0], x[1], x[2], "");
	case IR_OP_MATH:
		y = lw_math(w, op, k, x[0]);
		if (!y)
			lw_fail(w, op, TILEC_ERR_UNSUPPORTED, "%s of %s is not supported by the GPU back end",
				ir_math_name((ir_math)op->sub), ir_kind_name(k));
		return y;
	case IR_OP_FMA:
		if (lw_is_f(k)) {
			LLVMValueRef v3[3] = {lw_widen(w, x[0], k), lw_widen(w, x[1], k), lw_widen(w, x[2], k)};
			return lw_narrow(w, lw_call(w, LLVMTypeOf(v3[0]) == w->f64 ? "llvm.fma.f64" : "llvm.fma.f32",
						 LLVMTypeOf(v3[0]), v3, 3), k);
		}
		return LLVMBuildAdd(w->b, LLVMBuildMul(w->b, x[0], x[1], ""), x[2], "");
	case IR_OP_PTR_ADD: {
		ir_kind ok = (ir_kind)lw_vtype(w, op->args[1]).kind;
		LLVMValueRef off = LLVMBuildIntCast2(w->b, x[1], w->i64, ir_kind_is_signed(ok), "");
		return LLVMBuildGEP2(w->b, lw_stype(w, (ir_kind)rt.pointee), x[0], &off, 1, "");
	}
	case IR_OP_EXTERN: {
		if (!op->name) {
			lw_fail(w, op, TILEC_ERR_INVALID, "extern call without a name");
			return NULL;
		}
		if (strncmp(op->name, "__nv_", 5) != 0) {
			lw_fail(w, op, TILEC_ERR_UNSUPPORTED, "extern function '%s' is not a libdevice function", op->name);
			return NULL;
		}
		LLVMValueRef fn = LLVMGetNamedFunction(w->m, op->name);
		if (fn && (LLVMCountParams(fn) != (unsigned)op->nargs ||
			   LLVMGetReturnType(LLVMGlobalGetValueType(fn)) != lw_ltype(w, k))) {
			lw_fail(w, op, TILEC_ERR_SEMANTIC, "'%s' called with two different signatures", op->name);
			return NULL;
		}
		return lw_libdevice(w, op->name, lw_ltype(w, k), x, op->nargs);
	}
	default:
		lw_fail(w, op, TILEC_ERR_UNSUPPORTED, "'%s' is not supported by the GPU back end yet", op_name(op));
		return NULL;
	}
}

/* For each register of a block value in map m: an earlier register
 * holding an equal element (axis info's constancy: runs of c equal
 * elements starting at multiples of c), or itself. Along a dim the
 * thread's coordinate is a multiple of A (the power of two dividing its
 * lanes' and warps' scales and the shape), so two registers whose offsets
 * lie in one aligned block of min(A, c) hold equal elements in every
 * thread. A row mask over rows a thread holds several of (`rows < M`
 * with M a multiple of the block) is then one compare, and the masks it
 * is ANDed into are as many as the columns, not rows times columns.
 * NULL where no register shares (the common case) or out of memory. */
static int *equal_registers(lw *w, int v, const layout_map *m)
{
	ir_type t = lw_vtype(w, v);
	const axis_info *ai = w->ai ? &w->ai[v] : NULL;
	int64_t q[IR_MAX_RANK];
	bool any = false;
	for (int d = 0; d < m->rank; d++)
		q[d] = 1;
	for (int j = 0; ai && j < t.rank; j++) {
		int d = m->dim_of[j];
		int64_t c = ai->constancy[j];
		if (c < 2 || m->regs_per_dim[d] < 2)
			continue;
		/* the largest power of two dividing the thread's coordinate */
		layout_field fl = layout_dim_field(m, d);
		int64_t bits = m->shape[d] | (fl.lanes > 1 ? fl.lane_scale : 0) | (fl.warps > 1 ? fl.warp_scale : 0);
		int64_t align = bits & -bits;
		if (c >= m->shape[d])
			q[d] = m->shape[d];
		else if (!(c & (c - 1)))
			q[d] = c < align ? c : align;
		any |= q[d] > 1;
	}
	if (!any || m->nregs > 1024)
		return NULL;
	int *same = arena_alloc(w->a, sizeof(int) * (size_t)m->nregs);
	int32_t (*key)[IR_MAX_RANK] = arena_alloc(w->a, sizeof *key * (size_t)m->nregs);
	if (!same || !key)
		return NULL;
	bool shared = false;
	for (int r = 0; r < m->nregs; r++) {
		int32_t cc[IR_MAX_RANK];
		layout_reg_coords(m, r, cc);
		for (int d = 0; d < m->rank; d++)
			key[r][d] = (int32_t)(cc[d] / q[d]);
		same[r] = r;
		for (int e = 0; e < r && same[r] == r; e++)
			if (same[e] == e && !memcmp(key[e], key[r], sizeof(int32_t) * (size_t)m->rank))
				same[r] = e;
		shared |= same[r] != r;
	}
	return shared ? same : NULL;
}

/* Element c (i32 coordinates; none for a scalar) of a cheap value v: its
 * chain of constants, aranges, splats, broadcasts, reshapes, permutes and
 * elementwise ops evaluated for that one element. A reshape or permute of
 * a cheap value (AWQ's shifts: [K * N / 8, 8] to [K, N]) has no layout
 * whose registers its operand's match; so evaluated, it is computed in
 * any layout where it is used instead of moved through shared memory. */
static LLVMValueRef cheap_at(lw *w, int v, LLVMValueRef *c)
{
	ir_type t = lw_vtype(w, v);
	const ir_op *op = w->f->values[v].def;
	if (!t.rank || !op) {
		lval x;
		return lw_get(w, v, NULL, &x) ? x.r[0] : NULL;
	}
	ir_type st = op->nargs ? lw_vtype(w, op->args[0]) : t;
	LLVMValueRef sc[IR_MAX_RANK], xs[8];
	switch (op->code) {
	case IR_OP_CONST:
		return const_of(w, (ir_kind)t.kind, op->ival, op->fval);
	case IR_OP_ARANGE:
		return LLVMBuildAdd(w->b, c[0], lw_ci32(w, op->ival), "");
	case IR_OP_SPLAT:
		return cheap_at(w, op->args[0], NULL);
	case IR_OP_HINT:
		return cheap_at(w, op->args[0], c);
	case IR_OP_BROADCAST:
		for (int d = 0; d < t.rank; d++)
			sc[d] = st.shape[d] == 1 ? lw_ci32(w, 0) : c[d];
		return cheap_at(w, op->args[0], sc);
	case IR_OP_EXPAND_DIMS:
		for (int d = 0, j = 0; d < t.rank; d++)
			if (d != op->axis)
				sc[j++] = c[d];
		return cheap_at(w, op->args[0], sc);
	case IR_OP_PERMUTE:
		for (int d = 0; d < t.rank; d++)
			sc[op->ints[d]] = c[d];
		return cheap_at(w, op->args[0], sc);
	case IR_OP_RESHAPE: {
		LLVMValueRef lin = lw_ci32(w, 0);
		for (int d = 0; d < t.rank; d++)
			lin = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, lin, lw_ci32(w, t.shape[d]), ""), c[d], "");
		for (int d = st.rank - 1; d >= 0; d--) {
			sc[d] = LLVMBuildURem(w->b, lin, lw_ci32(w, st.shape[d]), "");
			lin = LLVMBuildUDiv(w->b, lin, lw_ci32(w, st.shape[d]), "");
		}
		return cheap_at(w, op->args[0], sc);
	}
	default:
		if (op->nargs > 8)
			return NULL;
		for (int i = 0; i < op->nargs; i++)
			if (!(xs[i] = cheap_at(w, op->args[i], lw_vtype(w, op->args[i]).rank ? c : NULL)))
				return NULL;
		return elementwise(w, op, t, (ir_kind)st.kind, xs);
	}
}

/* A cheap reshape or permute (cheap_at) in layout l. */
static bool cheap_in(lw *w, int v, const layout *l, lval *out)
{
	ir_type t = lw_vtype(w, v);
	layout_map m = lw_map_of(l, t);
	if (!lw_alloc_regs(w, out, m.nregs, l))
		return false;
	for (int r = 0; r < m.nregs; r++) {
		LLVMValueRef c[IR_MAX_RANK];
		lw_reg_coords(w, &m, t.rank, r, c);
		if (!(out->r[r] = cheap_at(w, v, c)))
			return w->st == TILEC_OK ? lw_fail(w, w->f->values[v].def, TILEC_ERR_INVALID, "internal: %%%d is not cheap", v)
						 : false;
	}
	return true;
}

static bool emit_value(lw *w, const ir_op *op, const layout *l, lval *out)
{
	int res = op->results[0];
	ir_type rt = lw_vtype(w, res);
	ir_kind k = (ir_kind)rt.kind;
	layout_map m;
	int n = 1;
	if (rt.rank) {
		if (!l)
			l = w->p->by_rank[rt.rank];
		m = lw_map_of(l, rt);
		n = m.nregs;
	} else {
		l = NULL;
	}
	switch (op->code) {
	case IR_OP_LOAD:
		return lw_emit_load(w, op, l, out);
	case IR_OP_REDUCE:
		return lw_emit_reduce(w, op, l, out);
	case IR_OP_DOT:
		return lw_emit_dot(w, op, l, out);
	case IR_OP_LOCAL_LOAD:
		return lw_emit_local_load(w, op, l, out);
	case IR_OP_CAST: /* a ring's 8-bit tile that the dots convert as they read it */
		if (w->p->view[res] && w->v[op->args[0]].view)
			return lw_view_of(w, out, l, w->v[op->args[0]].view, false, true,
					  (ir_kind)lw_vtype(w, op->args[0]).kind);
		break;
	case IR_OP_ATOMIC_RMW:
	case IR_OP_ATOMIC_CAS:
		return lw_emit_atomic(w, op, l, out);
	case IR_OP_JOIN:
	case IR_OP_FLIP:
	case IR_OP_CAT:
		return lw_emit_shape_op(w, op, l, out);
	case IR_OP_GATHER:
		return lw_emit_gather(w, op, l, out);
	case IR_OP_HISTOGRAM:
		return lw_emit_histogram(w, op, l, out);
	case IR_OP_RESHAPE:
	case IR_OP_PERMUTE: {
		int src = op->args[0];
		if (w->p->remat[res])
			return cheap_in(w, res, l, out);
		const layout_fold *fold = w->p->fold[op->results[0]];
		if (fold) /* the source's registers (fold_reorder), or an interleave of a join's operands' */
			return lw_emit_fold(w, fold, l, 0, lw_map_of(l, rt).nregs, out);
		if (w->p->view[op->results[0]] && w->v[src].view) /* the same tile, its rows the other dim */
			return lw_view_of(w, out, l, w->v[src].view, true, false, IR_F16);
		lval x;
		if (!lw_get(w, src, NULL, &x))
			return false;
		ir_type st = lw_vtype(w, src);
		if (st.rank == 0 || rt.rank == 0) /* a one-element block to a scalar or back */
			return lw_fail(w, op, TILEC_ERR_UNSUPPORTED, "'%s' to or from a scalar is not supported by the GPU back end yet",
				       op_name(op));
		return lw_move(w, &x, st, rt, op->code == IR_OP_PERMUTE ? op->ints : NULL, l, out);
	}
	default:
		break;
	}
	lval a[8];
	const layout *al = l;
	if (op->code == IR_OP_EXPAND_DIMS) {
		al = layout_slice(w->a, l, op->axis);
		if (!al)
			return lw_oom(w);
	}
	if (op->nargs > 8)
		return lw_fail(w, op, TILEC_ERR_UNSUPPORTED, "'%s' with %d operands is not supported by the GPU back end",
			       op_name(op), op->nargs);
	if (!lw_get_args(w, op, al, a))
		return false;
	if (!lw_alloc_regs(w, out, n, l))
		return false;
	ir_kind ak = op->nargs ? (ir_kind)lw_vtype(w, op->args[0]).kind : k;
	/* elementwise ops compute each distinct element of the thread once
	 * (integer quotients too: equal ones from different dividends are not
	 * LLVM's to merge) */
	const int *same = rt.rank && (op->code == IR_OP_CMP || op->code == IR_OP_AND || op->code == IR_OP_OR ||
				      op->code == IR_OP_SELECT || (op->code == IR_OP_DIV && !ir_kind_is_float(k)))
				  ? equal_registers(w, res, &m)
				  : NULL;
	for (int r = 0; r < n; r++) {
		LLVMValueRef x = NULL;
		if (same && same[r] != r) {
			out->r[r] = out->r[same[r]];
			continue;
		}
		switch (op->code) {
		case IR_OP_CONST:
			x = const_of(w, k, op->ival, op->fval);
			break;
		case IR_OP_PROGRAM_ID:
		case IR_OP_NUM_PROGRAMS: {
			static const char *const np[3] = {"llvm.nvvm.read.ptx.sreg.nctaid.x", "llvm.nvvm.read.ptx.sreg.nctaid.y",
							  "llvm.nvvm.read.ptx.sreg.nctaid.z"};
			static const char *const ncl[3] = {"mov.u32 $0, %nclusterid.x;", "mov.u32 $0, %nclusterid.y;",
							   "mov.u32 $0, %nclusterid.z;"};
			if (op->axis < 0 || op->axis > 2)
				return lw_fail(w, op, TILEC_ERR_SEMANTIC, "%s axis must be 0, 1 or 2", op_name(op));
			x = op->code == IR_OP_PROGRAM_ID ? w->ctaid[op->axis]
			    : w->f->num_ctas > 1         ? lw_asm_call(w, w->i32, ncl[op->axis], "=r", NULL, 0, false)
							 : sreg(w, np[op->axis]);
			x = LLVMBuildIntCast2(w->b, x, lw_ltype(w, k), false, "");
			break;
		}
		case IR_OP_CTA_RANK:
			x = w->f->num_ctas > 1 ? lw_asm_call(w, w->i32, "mov.u32 $0, %cluster_ctarank;", "=r", NULL, 0, false)
					       : lw_ci32(w, 0);
			break;
		case IR_OP_ARANGE: {
			LLVMValueRef c[IR_MAX_RANK];
			lw_reg_coords(w, &m, 1, r, c);
			x = LLVMBuildAdd(w->b, c[0], lw_ci32(w, op->ival), "");
			break;
		}
		case IR_OP_SPLAT:
			x = a[0].r[0];
			break;
		case IR_OP_BROADCAST: {
			layout_map ms = lw_map_of(l, lw_vtype(w, op->args[0]));
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
		default: {
			LLVMValueRef xs[8];
			if (op->nargs == 2 && r + 1 < n && rt.rank) {
				LLVMValueRef px[2], py[2], po[2];
				for (int i = 0; i < 2; i++) {
					px[i] = a[0].n > 1 ? a[0].r[r + i] : a[0].r[0];
					py[i] = a[1].n > 1 ? a[1].r[r + i] : a[1].r[0];
				}
				if (lw_binop_pair(w, op, k, px, py, po)) {
					out->r[r] = po[0];
					out->r[++r] = po[1];
					continue;
				}
			}
			for (int i = 0; i < op->nargs; i++)
				xs[i] = a[i].n > 1 ? a[i].r[r] : a[i].r[0];
			x = elementwise(w, op, rt, ak, xs);
			if (!x && w->st != TILEC_OK)
				return false;
			break;
		}
		}
		if (!x)
			return lw_fail(w, op, TILEC_ERR_UNSUPPORTED, "'%s' on %s is not supported by the GPU back end",
				       op_name(op), ir_kind_name(k));
		out->r[r] = x;
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

/* An if of scalar arithmetic alone (the pipeliner's next tile, for the
 * copies that run on across a persistent loop): nothing in it touches
 * memory, a dot or a wgmma result, so groups stay in flight through it. */
static bool quiet_if(const lw *w, const ir_op *op)
{
	if (op->code != IR_OP_IF)
		return false;
	for (int g = 0; g < op->nregions; g++)
		for (int i = 0; i < op->regions[g].nops; i++) {
			const ir_op *x = op->regions[g].ops[i];
			if (x->nregions || x->code == IR_OP_DOT || ir_op_orders_memory(x) || x->nresults > 1 ||
			    (x->nresults && w->f->values[x->results[0]].type.rank) || ir_op_reads(x, w->wgmma_pending) ||
			    ir_op_reads(x, w->wgmma_older))
				return false;
		}
	return true;
}

/* Whether op may read the result of a wgmma group in flight: it names
 * it, holds regions that might, or is another dot while one is pending
 * (a dot may follow the older group a loop left in flight: the wait for
 * its group completes both). */
static bool reads_pending(const lw *w, const ir_op *op)
{
	int pending = w->wgmma_pending, older = w->wgmma_older;
	if (pending < 0 && older < 0)
		return false;
	return (op->nregions && !quiet_if(w, op)) || (op->code == IR_OP_DOT && pending >= 0) || ir_op_reads(op, pending) ||
	       ir_op_reads(op, older);
}

/* What a side of a warp-specialized kernel (warpspec.c) does not lower:
 * the loop's rings' set-up, done before the split (lower_split); and in
 * the producer everything but its loop, its copies, what those read and
 * its rings' put-away (a later loop's rings and copies are the
 * consumers', run as without specialization). */
static bool split_skips(const lw *w, const ir_op *op)
{
	if (w->ws_role == LW_WS_NONE)
		return false;
	if (op->code == IR_OP_LOCAL_ALLOC) /* a later loop's rings are the consumers' own */
		return w->ws_role == LW_WS_PRODUCER || lw_ws_ring(w, op->results[0]);
	if (w->ws_role != LW_WS_PRODUCER || op == w->ws_loop)
		return false;
	if (op->code == IR_OP_TMA_COPY) /* the copies partition.c marked: into the loop's rings */
		return !(op->flags & IR_FLAG_PRODUCER);
	if (op->code == IR_OP_LOCAL_DEALLOC)
		return !lw_ws_ring(w, op->args[0]);
	return !(op->nresults == 1 && w->ws_needed[op->results[0]]);
}

/* The ops of a region; the terminator is its owner's. A wgmma group in
 * flight is waited for before the first op that reads its result, and at
 * the end (the terminator may). Fragments hoisted before a loop
 * (lw_hoist_fragments) and operands staged for the region's loops
 * (lw_keep_resident) dominate the rest of the region: later loops of the
 * region take them too (causal attention's two loops share Q), and they
 * are dropped with the region. */
static bool lower_body(lw *w, const ir_region *r)
{
	int ncached = w->ncached;
	uint32_t smem_top = w->smem_top, smem_kept = w->smem_kept;
	shared_operand *so;
	int nso = lw_shared_operands(w, r, &so);
	if (nso < 0)
		return false;
	lw_scratch_unlift(w);
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		if (op->code == IR_OP_YIELD || op->code == IR_OP_CONDITION || split_skips(w, op))
			continue;
		if (reads_pending(w, op))
			lw_wgmma_wait(w);
		bool ok = lower_op(w, op);
		lw_scratch_unlift(w); /* an op's scratch above staged operands is its own */
		if (!ok || !lw_keep_resident(w, op, so, nso))
			return false;
		for (int j = 0; j < op->nresults; j++)
			w->born[op->results[j]] = w->epoch;
	}
	if ((w->wgmma_pending >= 0 || w->wgmma_older >= 0) && w->in_flight_body != r)
		lw_wgmma_wait(w);
	/* the region's staged operands (lw_keep_resident) are dropped with it */
	if (w->smem_kept != smem_kept)
		w->smem_top = smem_top;
	w->smem_kept = smem_kept;
	w->ncached = ncached;
	return true;
}

int lw_uses(const ir_region *r, int v, int code)
{
	int n = 0;
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int a = 0; a < op->nargs; a++)
			n += op->args[a] == v && (code < 0 || (int)op->code == code);
		for (int g = 0; g < op->nregions; g++)
			n += lw_uses(&op->regions[g], v, code);
	}
	return n;
}

/* The loop value (its index) a dot of the body accumulates into and
 * yields straight, neither read by anything else, or -1. */
static int accumulated_value(const ir_region *body, const ir_op *y, const ir_op *dot)
{
	int v = dot->results[0];
	for (int i = 0; i < y->nargs; i++)
		if (y->args[i] == v && dot->args[2] == body->params[1 + i] && lw_uses(body, body->params[1 + i], -1) == 1 &&
		    lw_uses(body, v, -1) == 1)
			return i;
	return -1;
}

/* The loop value (its index) through which a wgmma group of the body may
 * stay in flight across the back edge, or -1: the loop's rings have a
 * spare tile (the next iteration's copies then go into a tile no group in
 * flight reads), the body ends with the group of a dot pending, and its
 * accumulator is a loop value only that dot reads, yielded straight. */
static int in_flight_value(const lw *w, const ir_op *loop)
{
	const ir_region *body = &loop->regions[0];
	const ir_op *y = terminator(body, IR_OP_YIELD);
	int v = w->wgmma_pending;
	if (!(loop->flags & IR_FLAG_SPARE_TILE) || v < 0 || !y)
		return -1;
	return accumulated_value(body, y, w->f->values[v].def);
}

/* The dot of in_flight_value's case whose B the body computes (a
 * dequantizing matmul's weights, converted in registers) and stages, and
 * where its two tiles would end (bytes from smem's start), or NULL: the
 * body stages that B into one of two tiles by the iteration's parity
 * (dot_wgmma.c: stage_panels), so its group may stay in flight across the
 * back edge while the next iteration converts and stages the next B, and
 * the ops between use the scratch above both tiles (lw_smem_need). The
 * body's one dot; A a ring's tile, kept, or a chained dot's fragments
 * (nothing else staged); the two tiles cost no block an SM (by shared
 * memory, where registers would allow it). lower_for checks the staging
 * against the prediction. */
static const ir_op *flying_dot(lw *w, const ir_op *loop, uint32_t *top)
{
	const ir_region *body = &loop->regions[0];
	const ir_op *y = terminator(body, IR_OP_YIELD);
	if (w->ws_role != LW_WS_NONE || !(loop->flags & IR_FLAG_SPARE_TILE) || !y || !w->p->wgmma)
		return NULL;
	const ir_op *dot = NULL;
	for (int k = 0; k < body->nops; k++) {
		const ir_op *op = body->ops[k];
		for (int g = 0; g < op->nregions; g++)
			if (ir_region_has(&op->regions[g], IR_OP_DOT))
				return NULL;
		if (op->code == IR_OP_DOT && dot)
			return NULL;
		if (op->code == IR_OP_DOT)
			dot = op;
	}
	if (!dot || !w->p->wgmma[dot->results[0]])
		return NULL;
	int a = dot->args[0], b = dot->args[1];
	const layout *la = w->p->of[a];
	ir_type tb = lw_vtype(w, b);
	if (accumulated_value(body, y, dot) < 0 || !(w->p->view[a] || lw_kept_tile(w, a, LW_KEPT_WGMMA_A) || (la && la->mma)) ||
	    w->p->view[b] || lw_kept_tile(w, b, LW_KEPT_WGMMA_B) || tb.rank != 2)
		return NULL;
	uint64_t tile = (uint64_t)ir_numel(tb) * (uint64_t)ir_kind_bytes((ir_kind)tb.kind);
	uint64_t at = ((uint64_t)w->smem_top + 1023) & ~(uint64_t)1023;
	uint64_t one = at + tile, two = at + ((tile + 1023) & ~(uint64_t)1023) + tile;
	/* blocks an SM takes at most by registers: the accumulator's a thread
	 * and 32 more (HQQ's 128x256 over 8 warps: one) */
	int64_t threads = 32 * (int64_t)w->f->num_warps;
	uint32_t by_regs = (uint32_t)(TARGET_SM_REGISTERS / (threads * (ir_numel(lw_vtype(w, dot->results[0])) / threads + 32)));
	if (!scratch_fits(w, two, one > w->smem_bytes ? one : w->smem_bytes, by_regs))
		return NULL;
	*top = (uint32_t)two;
	return dot;
}

/* The loop value (its index) whose wgmma group may stay in flight across
 * the back edge until the next iteration's first dot is waited for, or
 * -1: attention's second dot, whose accumulator the next iteration
 * rescales only after the first dot's result is in (that wait completes
 * both groups, and the tensor cores run the two back to back, as in
 * Triton's code). The loop's rings have a spare tile (the next
 * iteration's copies go into tiles neither group reads), the value is
 * yielded straight from a wgmma dot of the body that nothing else reads
 * and that does not take the loop value itself (in_flight_value's case),
 * and in the body another wgmma dot comes before anything that reads the
 * loop value or holds regions. */
static int carried_value(const lw *w, const ir_op *loop)
{
	const ir_region *body = &loop->regions[0];
	const ir_op *y = terminator(body, IR_OP_YIELD);
	if (!(loop->flags & IR_FLAG_SPARE_TILE) || !y || !w->p->wgmma)
		return -1;
	for (int i = 0; i < y->nargs; i++) {
		int v = y->args[i], p = body->params[1 + i];
		const ir_op *dot = w->f->values[v].def;
		if (!dot || dot->code != IR_OP_DOT || !w->p->wgmma[v] || dot->args[2] == p || lw_uses(body, v, -1) != 1)
			continue;
		for (int k = 0; k < body->nops; k++) {
			const ir_op *op = body->ops[k];
			if (op == dot || op->nregions || ir_op_reads(op, p))
				break;
			if (op->code == IR_OP_DOT) {
				if (w->p->wgmma[op->results[0]])
					return i;
				break;
			}
		}
	}
	return -1;
}

bool lw_lower_scalar_region(lw *w, const ir_region *r, const LLVMValueRef *params, LLVMValueRef *out)
{
	for (int i = 0; i < r->nparams; i++) {
		if (!lw_alloc_regs(w, &w->v[r->params[i]], 1, NULL))
			return false;
		w->v[r->params[i]].r[0] = params[i];
	}
	const ir_op *y = terminator(r, IR_OP_YIELD);
	if (!y)
		return lw_fail(w, NULL, TILEC_ERR_INVALID, "internal: a scalar region without a yield");
	if (!lower_body(w, r))
		return false;
	for (int i = 0; i < y->nargs; i++) {
		lval x;
		if (!lw_get(w, y->args[i], NULL, &x))
			return false;
		out[i] = x.r[0];
	}
	return true;
}

/* Value v in the layout of value `like` (a parameter or result). */
static bool get_like(lw *w, int v, int like, lval *out)
{
	return lw_get(w, v, w->p->of[like], out);
}

/* A loop value the producer of a warp-specialized kernel does not carry. */
static bool unused_by_producer(const lw *w, int v)
{
	return w->ws_role == LW_WS_PRODUCER && !w->ws_needed[v];
}

/* One phi per register of `init` (in `from`), bound to value id `id`. */
static bool make_phis(lw *w, int id, const lval *init, LLVMBasicBlockRef from)
{
	if (!lw_alloc_regs(w, &w->v[id], init->n, init->l))
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

/* The n yielded values in their parameters' layouts, into the parameters'
 * phis from the block the back edge leaves: the last conversion's (one
 * through shared memory may branch, so the block must be taken after all
 * of them). */
static bool yield_back(lw *w, const int *yielded, const int *params, int n)
{
	lval *next = arena_alloc(w->a, sizeof(lval) * (size_t)(n + 1));
	if (!next)
		return lw_oom(w);
	for (int i = 0; i < n; i++)
		if (!unused_by_producer(w, params[i]) && !get_like(w, yielded[i], params[i], &next[i]))
			return false;
	LLVMBasicBlockRef from = LLVMGetInsertBlock(w->b);
	for (int i = 0; i < n; i++)
		if (!unused_by_producer(w, params[i]))
			add_incoming(&w->v[params[i]], &next[i], from);
	return true;
}

/* The thread's index (and lane, warp) and the program ids; `fresh`: by a
 * read LLVM keeps, so that what is derived from them after it is not
 * merged with what was derived before. */
static void read_coordinates(lw *w, bool fresh)
{
	static const char *const ctaid[3] = {"llvm.nvvm.read.ptx.sreg.ctaid.x", "llvm.nvvm.read.ptx.sreg.ctaid.y",
					     "llvm.nvvm.read.ptx.sreg.ctaid.z"};
	static const char *const asm_ctaid[3] = {"mov.u32 $0, %ctaid.x;", "mov.u32 $0, %ctaid.y;", "mov.u32 $0, %ctaid.z;"};
	w->tid = fresh ? lw_asm_call(w, w->i32, "mov.u32 $0, %tid.x;", "=r", NULL, 0, true)
		       : sreg(w, "llvm.nvvm.read.ptx.sreg.tid.x");
	w->lane = LLVMBuildAnd(w->b, w->tid, lw_ci32(w, 31), "lane");
	w->warp = LLVMBuildLShr(w->b, w->tid, lw_ci32(w, 5), "warp");
	/* a program split over a cluster (passes/cluster.c) is the cluster */
	static const char *const asm_clusterid[3] = {"mov.u32 $0, %clusterid.x;", "mov.u32 $0, %clusterid.y;",
						     "mov.u32 $0, %clusterid.z;"};
	for (int i = 0; i < 3; i++)
		w->ctaid[i] = w->f->num_ctas > 1 ? lw_asm_call(w, w->i32, asm_clusterid[i], "=r", NULL, 0, fresh)
			      : fresh        ? lw_asm_call(w, w->i32, asm_ctaid[i], "=r", NULL, 0, true)
					     : sreg(w, ctaid[i]);
}

/* After a loop: the coordinates read afresh, and the cheap values
 * computed before the loop to be computed again where used (lw_get),
 * instead of held in registers through it (causal attention's epilogue
 * offsets were held through both loops, and spilled). */
static void fresh_after_loop(lw *w)
{
	w->epoch++;
	read_coordinates(w, true);
}

/* for iv in range(lb, ub, step): the test sits in the header; LLVM
 * rotates the loop. */
static bool lower_for(lw *w, const ir_op *op)
{
	const ir_region *body = &op->regions[0];
	const ir_op *y = terminator(body, IR_OP_YIELD);
	int n = op->nargs - 3;
	lval lb, ub, step;
	if (!lw_get(w, op->args[0], NULL, &lb) || !lw_get(w, op->args[1], NULL, &ub) || !lw_get(w, op->args[2], NULL, &step))
		return false;
	lval *init = arena_alloc(w->a, sizeof(lval) * (size_t)(n + 1));
	if (!init)
		return lw_oom(w);
	for (int i = 0; i < n; i++)
		if (!unused_by_producer(w, body->params[1 + i]) && !get_like(w, op->args[3 + i], body->params[1 + i], &init[i]))
			return false;
	int hoisted = w->ncached;
	uint32_t smem_top = w->smem_top, smem_kept = w->smem_kept;
	if (w->ws_role != LW_WS_PRODUCER && !lw_hoist_fragments(w, body, op->flags & IR_FLAG_KEEP_A))
		return false;
	LLVMBasicBlockRef pre = LLVMGetInsertBlock(w->b), head, loop, exit;
	new_block(w, "for.head", &head);
	new_block(w, "for.body", &loop);
	new_block(w, "for.exit", &exit);
	if (op == w->ws_loop && w->ws_role == LW_WS_CONSUMER)
		lw_pp_begin(w);
	LLVMBuildBr(w->b, head);
	LLVMPositionBuilderAtEnd(w->b, head);
	if (!make_phis(w, body->params[0], &lb, pre))
		return false;
	for (int i = 0; i < n; i++)
		if (!unused_by_producer(w, body->params[1 + i]) && !make_phis(w, body->params[1 + i], &init[i], pre))
			return false;
	ir_kind ik = (ir_kind)lw_vtype(w, op->args[0]).kind;
	LLVMValueRef iv = w->v[body->params[0]].r[0];
	bool sg = ir_kind_is_signed(ik);
	LLVMValueRef more = LLVMBuildICmp(w->b, sg ? LLVMIntSLT : LLVMIntULT, iv, ub.r[0], "");
	/* a constant negative step counts down while iv > ub, as Python's range
	 * and Triton's loops do (kernl's `for k in range(K, 0, -BLOCK_K)`); a
	 * runtime step is taken as positive, as Triton's scf.for takes it */
	LLVMValueRef st = step.r[0];
	if (sg && LLVMIsAConstantInt(st) && LLVMConstIntGetSExtValue(st) < 0)
		more = LLVMBuildICmp(w->b, LLVMIntSGT, iv, ub.r[0], "");
	LLVMBuildCondBr(w->b, more, loop, exit);
	LLVMPositionBuilderAtEnd(w->b, loop);
	if (op == w->ws_loop) /* the iteration's index: the step is a positive constant (lw_ws_plan) */
		w->ws_iter = LLVMBuildUDiv(w->b, LLVMBuildSub(w->b, iv, lb.r[0], ""), st, "");
	/* a carried value is the older group in flight at the body's start
	 * (none in the first iteration: its wait then waits for nothing); the
	 * wait ties registers of their own, the phis stay for the back edge */
	int carried = w->ws_role == LW_WS_PRODUCER ? -1 : carried_value(w, op); /* the producer issues no dots */
	lval carried_phis = {0};
	if (carried >= 0) {
		int p = body->params[1 + carried];
		carried_phis = w->v[p];
		lval own = carried_phis;
		if (!lw_alloc_regs(w, &own, own.n, own.l))
			return false;
		memcpy(own.r, carried_phis.r, sizeof(LLVMValueRef) * (size_t)own.n);
		w->v[p] = own;
		w->wgmma_older = p;
		w->wgmma_scratch = true; /* its dot, lowered later, may stage operands there */
	}
	/* or the group of a dot whose B the body stages, into two tiles in turn */
	uint32_t flying_top = 0;
	const ir_op *outer_dot = w->flying_dot;
	LLVMValueRef outer_parity = w->stage_parity, parity = NULL;
	w->flying_dot = carried < 0 ? flying_dot(w, op, &flying_top) : NULL;
	w->stage_parity = NULL;
	if (w->flying_dot) {
		w->wgmma_phantom = w->wgmma_scratch = true;
		w->wgmma_staged_top = flying_top;
		if (flying_top > w->smem_bytes)
			w->smem_bytes = flying_top; /* the dot stages up to there: what the scratch above costs counts from it */
		LLVMBasicBlockRef at = LLVMGetInsertBlock(w->b);
		LLVMPositionBuilderBefore(w->b, LLVMGetFirstInstruction(head));
		parity = LLVMBuildPhi(w->b, w->i32, "");
		LLVMValueRef zero = lw_ci32(w, 0);
		LLVMAddIncoming(parity, &zero, &pre, 1);
		LLVMPositionBuilderAtEnd(w->b, at);
		w->stage_parity = parity;
	}
	const ir_region *outer_flight = w->in_flight_body;
	w->in_flight_body = body;
	/* a bulk store of an earlier iteration may still read scratch */
	bool bulk = w->bulk_pending || lw_bulk_stores(w, body);
	w->bulk_pending = bulk;
	bool ok = lower_body(w, body);
	w->bulk_pending = bulk;
	w->in_flight_body = outer_flight;
	w->ws_iter = NULL;
	if (!ok)
		return false;
	if (carried >= 0)
		w->v[body->params[1 + carried]] = carried_phis;
	/* a group that reads operands staged in the scratch stays in flight
	 * only as the carried one, or as flying_dot's where its staging ended
	 * within the two tiles, which the next iteration's ops leave alone
	 * (lw_smem_need) */
	w->wgmma_phantom = false;
	w->flying_dot = outer_dot;
	w->stage_parity = outer_parity;
	bool scratch_ok = !w->wgmma_scratch || (flying_top && w->wgmma_staged_top <= flying_top);
	int flying = scratch_ok ? in_flight_value(w, op) : -1;
	if (carried >= 0 && w->wgmma_pending == y->args[carried] && w->wgmma_older < 0) {
		flying = carried; /* left in flight: the next iteration's first dot waits */
		w->wgmma_pending = -1;
	} else if (flying >= 0) {
		lw_wgmma_wait_for(w, w->wgmma_pending, 1); /* this group may go on; the one before not */
	} else {
		carried = -1;
		if (w->wgmma_pending >= 0 || w->wgmma_older >= 0)
			lw_wgmma_wait(w);
	}
	if (!y || y->nargs < n)
		return lw_fail(w, op, TILEC_ERR_INVALID, "loop body yields too few values");
	if (!yield_back(w, y->args, body->params + 1, n))
		return false;
	lval ivn = {1, NULL, NULL, NULL};
	LLVMValueRef next_iv = LLVMBuildAdd(w->b, iv, step.r[0], "");
	ivn.r = &next_iv;
	add_incoming(&w->v[body->params[0]], &ivn, LLVMGetInsertBlock(w->b));
	if (parity) {
		LLVMValueRef next = LLVMBuildXor(w->b, parity, lw_ci32(w, 1), "");
		LLVMBasicBlockRef latch = LLVMGetInsertBlock(w->b);
		LLVMAddIncoming(parity, &next, &latch, 1);
	}
	LLVMBuildBr(w->b, head);
	LLVMPositionBuilderAtEnd(w->b, exit);
	if (op == w->ws_loop && w->ws_role == LW_WS_CONSUMER)
		lw_pp_end(w);
	for (int i = 0; i < op->nresults; i++)
		w->v[op->results[i]] = w->v[body->params[1 + i]];
	if (flying >= 0) {
		/* the last group: its result gets registers of its own */
		lval *x = &w->v[op->results[flying]];
		lval own = *x;
		if (!lw_alloc_regs(w, &own, x->n, x->l))
			return false;
		memcpy(own.r, x->r, sizeof(LLVMValueRef) * (size_t)x->n);
		*x = own;
		lw_wgmma_wait_for(w, op->results[flying], 0);
	}
	lw_drop_loop_fragments(w, hoisted);
	if (w->smem_kept != smem_kept) { /* the loop's own staged operands (lw_wgmma_keep) */
		w->smem_top = smem_top;
		w->smem_kept = smem_kept;
	}
	fresh_after_loop(w);
	return true;
}

/* The coordinates in use, kept around an if: a loop in one branch reads
 * them afresh there (fresh_after_loop), and those reads dominate neither
 * the other branch nor the join. */
typedef struct {
	LLVMValueRef tid, lane, warp, ctaid[3];
} coordinates;

static coordinates save_coordinates(const lw *w)
{
	coordinates c = {w->tid, w->lane, w->warp, {w->ctaid[0], w->ctaid[1], w->ctaid[2]}};
	return c;
}

static void restore_coordinates(lw *w, const coordinates *c)
{
	w->tid = c->tid;
	w->lane = c->lane;
	w->warp = c->warp;
	memcpy(w->ctaid, c->ctaid, sizeof(w->ctaid));
}

static bool lower_if(lw *w, const ir_op *op)
{
	lval c;
	if (!lw_get(w, op->args[0], NULL, &c))
		return false;
	coordinates before = save_coordinates(w);
	LLVMBasicBlockRef then, els, join;
	new_block(w, "if.then", &then);
	new_block(w, "if.else", &els);
	new_block(w, "if.join", &join);
	LLVMBuildCondBr(w->b, c.r[0], then, els);
	lval *ys[2];
	LLVMBasicBlockRef ends[2];
	/* groups in flight go through a quiet if, not waited for in it */
	bool quiet = (w->wgmma_pending >= 0 || w->wgmma_older >= 0) && quiet_if(w, op);
	const ir_region *outer_flight = w->in_flight_body;
	bool bulk_in = w->bulk_pending, bulk_out = false;
	for (int g = 0; g < 2; g++) {
		w->bulk_pending = bulk_in;
		restore_coordinates(w, &before);
		LLVMPositionBuilderAtEnd(w->b, g ? els : then);
		ys[g] = arena_alloc(w->a, sizeof(lval) * (size_t)(op->nresults + 1));
		if (!ys[g])
			return lw_oom(w);
		if (g < op->nregions) {
			const ir_region *r = &op->regions[g];
			const ir_op *y = terminator(r, IR_OP_YIELD);
			if (quiet)
				w->in_flight_body = r;
			bool ok = lower_body(w, r);
			w->in_flight_body = outer_flight;
			if (!ok)
				return false;
			for (int i = 0; i < op->nresults; i++) {
				if (!y || i >= y->nargs)
					return lw_fail(w, op, TILEC_ERR_INVALID, "if branch yields too few values");
				if (!get_like(w, y->args[i], op->results[i], &ys[g][i]))
					return false;
			}
		} else if (op->nresults) {
			return lw_fail(w, op, TILEC_ERR_INVALID, "if with results has no else branch");
		}
		bulk_out |= w->bulk_pending;
		ends[g] = LLVMGetInsertBlock(w->b);
		LLVMBuildBr(w->b, join);
	}
	w->bulk_pending = bulk_out;
	restore_coordinates(w, &before);
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
		return lw_fail(w, op, TILEC_ERR_INVALID, "malformed while loop");
	int n = before->nparams;
	lval *init = arena_alloc(w->a, sizeof(lval) * (size_t)(n + 1));
	if (!init)
		return lw_oom(w);
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
	/* a bulk store of an earlier iteration may still read scratch */
	bool bulk = w->bulk_pending || lw_bulk_stores(w, before) || lw_bulk_stores(w, after);
	w->bulk_pending = bulk;
	if (!lower_body(w, before))
		return false;
	lval c;
	if (!lw_get(w, cond->args[0], NULL, &c))
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
	w->bulk_pending = bulk;
	if (!yield_back(w, y->args, before->params, n))
		return false;
	LLVMBuildBr(w->b, head);
	LLVMPositionBuilderAtEnd(w->b, exit);
	fresh_after_loop(w);
	return true;
}

/* ---- ops ---- */

bool lw_emit_fold(lw *w, const layout_fold *f, const layout *l, int first, int n, lval *out)
{
	lval x[2];
	/* the sources in their own layouts: the target's may differ (fold_layouts) */
	if (!lw_get(w, f->src[0], NULL, &x[0]) || !lw_get(w, f->src[1], NULL, &x[1]) || !lw_alloc_regs(w, out, n, l))
		return false;
	for (int r = 0; r < n; r++) {
		int32_t q = f->regs[first + r];
		out->r[r] = x[q / x[0].n].r[q % x[0].n];
	}
	return true;
}

static bool lower_op(lw *w, const ir_op *op)
{
	if (op->nresults == 1 && w->p->folded[op->results[0]])
		return true; /* a reshape or permute the split it feeds reads through (fold_split) */
	switch (op->code) {
	case IR_OP_STORE:
		return lw_emit_store(w, op);
	case IR_OP_ASSUME:
		return true;
	case IR_OP_BARRIER:
		if (op->ival && w->f->num_ctas > 1) /* the user's, in a program split over a cluster */
			lw_asm_call(w, w->vd, "barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;",
				    "~{memory}", NULL, 0, true);
		else
			lw_barrier(w);
		return true;
	case IR_OP_GRID_DEP:
		return emit_grid_dep(w, op);
	case IR_OP_FOR:
		return lower_for(w, op);
	case IR_OP_IF:
		return lower_if(w, op);
	case IR_OP_SCAN:
		return lw_emit_scan(w, op);
	case IR_OP_REDUCE_FN:
		return lw_emit_reduce_fn(w, op);
	case IR_OP_SPLIT:
		return lw_emit_split(w, op);
	case IR_OP_INLINE_ASM:
		return lw_emit_inline_asm(w, op);
	case IR_OP_DEVICE_ASSERT:
		return lw_emit_device_assert(w, op);
	case IR_OP_DEVICE_PRINT:
		return lw_emit_device_print(w, op);
	case IR_OP_WHILE:
		return lower_while(w, op);
	case IR_OP_LOCAL_ALLOC:
		return lw_emit_local_alloc(w, op);
	case IR_OP_LOCAL_DEALLOC:
		lw_tma_ring_popped(w, op->args[0]);
		/* a staged operand above the ring stays (lw_keep_resident) */
		w->smem_top = w->ring_at[op->args[0]] > w->smem_kept ? w->ring_at[op->args[0]] : w->smem_kept;
		return true;
	case IR_OP_ASYNC_COPY:
		return lw_emit_async_copy(w, op);
	case IR_OP_TMA_COPY:
		return lw_emit_tma_copy(w, op);
	case IR_OP_TMA_WAIT:
		return lw_emit_tma_wait(w, op);
	/* where every ring is filled by TMA no cp.async group exists: only
	 * the wait's barrier remains */
	case IR_OP_ASYNC_COMMIT:
		if (w->cp_async)
			lw_call(w, "llvm.nvvm.cp.async.commit.group", w->vd, NULL, 0);
		return true;
	case IR_OP_ASYNC_WAIT: {
		LLVMValueRef n = lw_ci32(w, op->ival);
		/* no proxy fence before wgmma reads the tiles: Triton's sm_90 code
		 * has none after cp.async either (a MEMBAR.ALL.CTA per iteration) */
		if (w->cp_async)
			lw_call(w, "llvm.nvvm.cp.async.wait.group", w->vd, &n, 1);
		/* a warp-specialized loop's slots change hands on their barriers */
		if (!w->ws_iter)
			lw_barrier(w);
		return true;
	}
	default:
		break;
	}
	/* an index reduction's second result, its value, comes with the first */
	if (op->nresults != 1 && !(op->code == IR_OP_REDUCE && op->nresults == 2))
		return lw_fail(w, op, TILEC_ERR_UNSUPPORTED, "'%s' is not supported by the GPU back end yet", op_name(op));
	int res = op->results[0];
	return emit_value(w, op, w->p->of[res], &w->v[res]);
}

/* ---- the kernel ---- */

static void annotate(lw *w, const char *key, int value)
{
	LLVMMetadataRef md[3] = {
		LLVMValueAsMetadata(w->fn),
		LLVMMDStringInContext2(w->c, key, strlen(key)),
		LLVMValueAsMetadata(lw_ci32(w, value)),
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

/* Tensor maps are passed by value, 128 bytes aligned to 64 that the
 * kernel addresses in place (grid constants: nvvm.annotations lists their
 * 1-based indices), as CUDA's __grid_constant__ CUtensorMap. */
static bool tensormap_params(lw *w)
{
	LLVMMetadataRef *idx = arena_alloc(w->a, sizeof(LLVMMetadataRef) * (size_t)(w->f->nparams + 1));
	int n = 0;
	for (int i = 0; idx && i < w->f->nparams; i++) {
		if (!w->f->params[i].tensormap)
			continue;
		unsigned at = (unsigned)i + 1; /* LLVM's attribute index of parameter i */
		LLVMTypeRef bytes = LLVMArrayType(w->i8, 128);
		LLVMAddAttributeAtIndex(w->fn, at, LLVMCreateTypeAttribute(w->c, LLVMGetEnumAttributeKindForName("byval", 5), bytes));
		LLVMAddAttributeAtIndex(w->fn, at, LLVMCreateEnumAttribute(w->c, LLVMGetEnumAttributeKindForName("align", 5), 64));
		idx[n++] = LLVMValueAsMetadata(lw_ci32(w, i + 1));
	}
	if (!idx)
		return lw_oom(w);
	if (!n)
		return true;
	LLVMMetadataRef md[3] = {LLVMValueAsMetadata(w->fn), LLVMMDStringInContext2(w->c, "grid_constant", 13),
				 LLVMMDNodeInContext2(w->c, idx, (size_t)n)};
	LLVMAddNamedMetadataOperand(w->m, "nvvm.annotations", LLVMMetadataAsValue(w->c, LLVMMDNodeInContext2(w->c, md, 3)));
	return true;
}

/* Kernel parameters: pointers in the global address space, i1 as a byte
 * (what the generated C passes), tensor maps by value. */
static bool build_entry(lw *w, const char *symbol)
{
	const ir_func *f = w->f;
	LLVMTypeRef *pt = arena_alloc(w->a, sizeof(LLVMTypeRef) * (size_t)(f->nparams + 1));
	if (!pt)
		return lw_oom(w);
	for (int i = 0; i < f->nparams; i++) {
		ir_type t = f->params[i].type;
		if (t.rank)
			return lw_fail(w, NULL, TILEC_ERR_INVALID, "kernel parameter %d is a block", i);
		pt[i] = f->params[i].tensormap ? LLVMPointerTypeInContext(w->c, 0)
			: t.kind == IR_I1	       ? w->i8
						       : lw_ltype(w, (ir_kind)t.kind);
	}
	if (LLVMGetNamedFunction(w->m, symbol))
		return lw_fail(w, NULL, TILEC_ERR_INVALID, "two kernels named '%s' in one module", symbol);
	w->fn = LLVMAddFunction(w->m, symbol, LLVMFunctionType(w->vd, pt, (unsigned)f->nparams, false));
	LLVMSetFunctionCallConv(w->fn, PTX_KERNEL_CC);
	if (!tensormap_params(w))
		return false;
	annotate(w, "kernel", 1);
	annotate(w, "reqntidx", (int)lw_ws_threads(w)); /* as Triton: ptxas may rely on the exact block size */
	if (f->maxnreg)
		annotate(w, "maxnreg", f->maxnreg);
	else if (lw_ws_entry_regs(w))
		annotate(w, "maxnreg", lw_ws_entry_regs(w));
	LLVMBasicBlockRef entry;
	new_block(w, "entry", &entry);
	LLVMPositionBuilderAtEnd(w->b, entry);
	for (int i = 0; i < f->nparams; i++) {
		if (!lw_alloc_regs(w, &w->v[i], 1, NULL))
			return false;
		LLVMValueRef x = LLVMGetParam(w->fn, (unsigned)i);
		if (f->params[i].type.kind == IR_I1)
			x = LLVMBuildICmp(w->b, LLVMIntNE, x, LLVMConstInt(w->i8, 0, false), "");
		w->v[i].r[0] = x;
	}
	read_coordinates(w, false);
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
	LLVMSetAlignment(g, w->p->unit == DOT_UNIT_WGMMA ? 1024 : 16);
	LLVMReplaceAllUsesWith(w->smem, g);
	LLVMDeleteGlobal(w->smem);
	w->smem_bytes = size;
}

/* A warp-specialized kernel (warpspec.c): the last warp is the
 * producer, the others run the program; each side is lowered from the
 * whole function, the producer's ops filtered (split_skips). The loop's
 * rings are pushed first, their barriers set up with every thread at the same
 * block barriers: set up by the consumers after the split, with the sides
 * meeting at barrier 0 from different places, racecheck reported the
 * producer's first arrivals against the set-up. */
static bool lower_split(lw *w)
{
	for (int i = 0; i < w->f->body.nops; i++) {
		const ir_op *op = w->f->body.ops[i];
		if (op->code == IR_OP_LOCAL_ALLOC && lw_ws_ring(w, op->results[0]) && !lower_op(w, op))
			return false;
	}
	uint32_t smem_top = w->smem_top, smem_kept = w->smem_kept;
	LLVMValueRef producer = LLVMBuildICmp(w->b, LLVMIntUGE, w->tid, lw_ci32(w, 32 * w->f->num_warps), "");
	LLVMBasicBlockRef prod, cons;
	new_block(w, "producer", &prod);
	new_block(w, "consumers", &cons);
	LLVMBuildCondBr(w->b, producer, prod, cons);
	coordinates at_entry = save_coordinates(w);
	LLVMPositionBuilderAtEnd(w->b, prod);
	w->ws_role = LW_WS_PRODUCER;
	w->ws_popped = 0;
	lw_ws_side_entered(w);
	if (!lower_body(w, &w->f->body))
		return false;
	LLVMBuildRetVoid(w->b);
	/* the consumers start from the entry's state: coordinates, shared memory */
	restore_coordinates(w, &at_entry);
	w->smem_top = smem_top;
	w->smem_kept = smem_kept;
	w->epoch++;
	LLVMPositionBuilderAtEnd(w->b, cons);
	w->ws_role = LW_WS_CONSUMER;
	w->ws_popped = 0;
	lw_ws_side_entered(w);
	return lower_body(w, &w->f->body);
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
	w.ring_at = arena_alloc(w.a, sizeof(uint32_t) * (size_t)(f->nvalues + 1));
	w.born = arena_alloc(w.a, sizeof(int) * (size_t)(f->nvalues + 1));
	w.again = arena_alloc(w.a, sizeof(lval) * (size_t)(f->nvalues + 1));
	w.again_at = arena_alloc(w.a, sizeof(LLVMBasicBlockRef) * (size_t)(f->nvalues + 1));
	if (!w.v || !w.ring_at || !w.born || !w.again || !w.again_at) {
		arena_free(w.a);
		return TILEC_ERR_NOMEM;
	}
	init_types(&w);
	w.wgmma_pending = w.wgmma_older = -1;
	w.cp_async = ir_region_has(&f->body, IR_OP_ASYNC_COPY);
	w.b = LLVMCreateBuilderInContext(w.c);
	if (lw_ws_plan(&w) && build_entry(&w, symbol) && (w.ws_loop ? lower_split(&w) : lower_body(&w, &f->body))) {
		if (w.bulk_pending) /* the block's shared memory outlives the engine's reads */
			lw_bulk_wait(&w, false);
		LLVMBuildRetVoid(w.b);
	}
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
		out->uses_arch_specific = w.arch_specific;
		out->uses_tensormaps = w.tensormaps;
		out->shared_bytes = w.smem_bytes;
		out->shared_dynamic = w.smem_dynamic;
		out->producer_warps = (int)(lw_ws_threads(&w) / 32u) - f->num_warps;
		out->kept_operands = w.kept_operands;
	}
	return w.st;
}
