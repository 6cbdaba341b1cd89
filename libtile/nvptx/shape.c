/* shape.c - JOIN, SPLIT, FLIP, CAT and GATHER: elements moved through
 * shared memory; HISTOGRAM: bins counted there.
 *
 * Each op is one exchange in the scratch area, as convert.c moves a value
 * between layouts: the owners of the operands' elements write them at a
 * slot computed from their coordinates, a barrier, and every thread reads
 * the slots of the result's elements in the layout the plan gave it. The
 * slot map is what differs: JOIN writes a and b at 2i and 2i + 1 of the
 * result's row-major order, SPLIT reads them back from there, FLIP writes
 * each element at its coordinate xored with the op's mask (mirrored for
 * tl.flip, the partner of a sorting network's compare-and-swap), CAT writes b after a. Slots are
 * padded by one element per 32, so that strided accesses spread over the
 * banks. GATHER writes the source the same way and reads each result
 * element at its coordinates with the index's value along the axis.
 * HISTOGRAM zeroes the bins, then the owner of each element adds 1 to its
 * bin with a shared-memory atomic (an element masked off or outside the
 * bins adds 0), then the counts are read in the result's layout.
 * Correct for every layout. A FLIP whose partners sit in the same warp
 * (a sorting network's steps below the warp's span) skips shared memory:
 * registers and shuffles (flip_in_warps).
 */
#include "nvptx/lower.h"

#include <string.h>

/* An element's slot: its coordinates (the one along axis `flip` xored
 * with `mask`; flip -1 for none) in row-major order, times mul, plus add. */
typedef struct slot_map {
	int flip;
	int64_t mask, mul, add;
} slot_map;

static const slot_map SAME = {-1, 0, 1, 0};

static LLVMValueRef slot_of(lw *w, const layout_map *m, ir_type t, int r, slot_map sm)
{
	LLVMValueRef lin;
	if (sm.flip >= 0) {
		LLVMValueRef c[IR_MAX_RANK];
		lw_reg_coords(w, m, t.rank, r, c);
		c[sm.flip] = LLVMBuildXor(w->b, c[sm.flip], lw_ci32(w, sm.mask), "");
		lin = lw_ci32(w, 0);
		for (int j = 0; j < t.rank; j++)
			lin = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, lin, lw_ci32(w, t.shape[j]), ""), c[j], "");
	} else {
		lin = lw_linear_index(w, m, t, r);
	}
	if (sm.mul != 1)
		lin = LLVMBuildMul(w->b, lin, lw_ci32(w, sm.mul), "");
	if (sm.add)
		lin = LLVMBuildAdd(w->b, lin, lw_ci32(w, sm.add), "");
	return lin;
}

static LLVMValueRef slot_addr(lw *w, LLVMValueRef slot, int64_t bytes)
{
	LLVMValueRef e = LLVMBuildAdd(w->b, slot, LLVMBuildLShr(w->b, slot, lw_ci32(w, 5), ""), "");
	return lw_smem_addr(w, LLVMBuildMul(w->b, e, lw_ci32(w, bytes), ""));
}

static int64_t elem_bytes(ir_kind k)
{
	return ir_kind_bytes(k == IR_PTR ? IR_I64 : k);
}

/* Scratch for `slots` elements of kind k; a barrier so that earlier
 * readers of the scratch are done. */
static void begin(lw *w, int64_t slots, ir_kind k)
{
	lw_smem_need(w, (uint64_t)(slots + slots / 32 + 1) * (uint64_t)elem_bytes(k));
	lw_barrier(w);
}

/* x (shape t) written at its slots by the owners of its elements. */
static void put(lw *w, const lval *x, ir_type t, slot_map sm)
{
	ir_kind k = (ir_kind)t.kind;
	int64_t bytes = elem_bytes(k);
	layout_map m = lw_map_of(x->l, t);
	LLVMValueRef own = lw_owner(w, &m);
	LLVMBasicBlockRef join = own ? lw_begin_if(w, own) : NULL;
	for (int r = 0; r < x->n; r++) {
		LLVMValueRef st = LLVMBuildStore(w->b, lw_to_storage(w, x->r[r], k), slot_addr(w, slot_of(w, &m, t, r, sm), bytes));
		LLVMSetAlignment(st, (unsigned)bytes);
	}
	if (join)
		lw_end_if(w, join);
}

/* The value of shape t in layout l (a scalar when t has rank 0: slot
 * sm.add), read from its slots. */
static bool take(lw *w, ir_type t, const layout *l, slot_map sm, lval *out)
{
	ir_kind k = (ir_kind)t.kind;
	int64_t bytes = elem_bytes(k);
	layout_map m = {0};
	int n = 1;
	if (t.rank) {
		if (!l)
			l = w->p->by_rank[t.rank];
		m = lw_map_of(l, t);
		n = m.nregs;
	}
	if (!lw_alloc_regs(w, out, n, t.rank ? l : NULL))
		return false;
	for (int r = 0; r < n; r++) {
		LLVMValueRef slot = t.rank ? slot_of(w, &m, t, r, sm) : lw_ci32(w, sm.add);
		LLVMValueRef x = LLVMBuildLoad2(w->b, lw_stype(w, k), slot_addr(w, slot, bytes), "");
		LLVMSetAlignment(x, (unsigned)bytes);
		out->r[r] = lw_from_storage(w, x, k);
	}
	return true;
}

static int log2_exact(int64_t v)
{
	int b = 0;
	while (((int64_t)1 << b) < v)
		b++;
	return ((int64_t)1 << b) == v ? b : -1;
}

/* A FLIP that moves no element across warps, in registers and warp
 * shuffles: each bit of the mask is a bit of the coordinate that either
 * the registers' constants, the lane or the warp number carries (blocked
 * layouts, no element of the flipped dim on two threads). Register bits
 * pick the partner register, lane bits one shfl.bfly per register; a
 * warp bit leaves it to shared memory (false, nothing emitted). A sorting
 * network's steps below the warp size thus cost no barrier. */
static bool flip_in_warps(lw *w, const ir_op *op, const lval *a, ir_type t, const layout *l, lval *out)
{
	if (!a->l || a->l->kind != LAYOUT_BLOCKED || a->l->mma || t.kind == IR_PTR)
		return false;
	/* the result in the operand's layout: it must be the one asked for */
	layout_map m = lw_map_of(a->l, t), want = lw_map_of(l ? l : w->p->by_rank[t.rank], t);
	if (!layout_map_eq(&m, &want))
		return false;
	int d = m.dim_of[op->axis];
	layout_field fl = layout_dim_field(&m, d);
	int lane_lo = log2_exact(fl.lane_scale), warp_lo = log2_exact(fl.warp_scale);
	if (lane_lo < 0 || warp_lo < 0 || log2_exact(m.shape[d]) < 0 || (int64_t)fl.warp_scale * fl.warps > m.shape[d])
		return false;
	int lane_bits = log2_exact(fl.lanes), warp_bits = log2_exact(fl.warps);
	int64_t mask = op->ival, reg_mask = 0;
	int lane_mask = 0;
	for (int bit = 0; ((int64_t)1 << bit) <= mask; bit++) {
		if (!(mask >> bit & 1))
			continue;
		if (bit >= lane_lo && bit < lane_lo + lane_bits)
			lane_mask |= 1 << (fl.lane_shift + bit - lane_lo);
		else if (bit >= warp_lo && bit < warp_lo + warp_bits)
			return false;
		else
			reg_mask |= (int64_t)1 << bit;
	}
	/* each register's partner: its coordinates with reg_mask flipped */
	int *partner = arena_alloc(w->a, sizeof(int) * (size_t)m.nregs);
	if (!partner)
		return lw_oom(w);
	for (int r = 0; r < m.nregs; r++) {
		int32_t target[IR_MAX_RANK], cc[IR_MAX_RANK];
		layout_reg_coords(&m, r, target);
		target[d] ^= (int32_t)reg_mask;
		partner[r] = -1;
		for (int q = 0; q < m.nregs && partner[r] < 0; q++) {
			layout_reg_coords(&m, q, cc);
			if (!memcmp(cc, target, sizeof(int32_t) * (size_t)m.rank))
				partner[r] = q;
		}
		if (partner[r] < 0)
			return false;
	}
	if (!lw_alloc_regs(w, out, m.nregs, a->l))
		return false;
	for (int r = 0; r < m.nregs; r++)
		out->r[r] = lane_mask ? lw_shfl(w, LW_SHFL_BFLY, a->r[partner[r]], lw_ci32(w, lane_mask)) : a->r[partner[r]];
	return true;
}

bool lw_emit_shape_op(lw *w, const ir_op *op, const layout *l, lval *out)
{
	ir_type at = lw_vtype(w, op->args[0]), rt = lw_vtype(w, op->results[0]);
	lval a, b;
	if (!lw_get(w, op->args[0], NULL, &a))
		return false;
	if (op->nargs > 1 && !lw_get(w, op->args[1], NULL, &b))
		return false;
	if (op->code == IR_OP_FLIP && flip_in_warps(w, op, &a, at, l, out))
		return true;
	if (w->st)
		return false;
	begin(w, ir_numel(rt), (ir_kind)rt.kind);
	switch (op->code) {
	case IR_OP_JOIN:
		put(w, &a, at, (slot_map){-1, 0, 2, 0});
		put(w, &b, at, (slot_map){-1, 0, 2, 1});
		break;
	case IR_OP_FLIP:
		put(w, &a, at, (slot_map){op->axis, op->ival, 1, 0});
		break;
	case IR_OP_CAT:
		put(w, &a, at, SAME);
		put(w, &b, lw_vtype(w, op->args[1]), (slot_map){-1, 0, 1, at.shape[0]});
		break;
	default:
		return lw_fail(w, op, TILEC_ERR_INVALID, "internal: '%s' is not a shape op", ir_opcode_name(op->code));
	}
	lw_barrier(w);
	return take(w, rt, l, SAME, out);
}

bool lw_emit_split(lw *w, const ir_op *op)
{
	ir_type at = lw_vtype(w, op->args[0]), rt = lw_vtype(w, op->results[0]);
	lval a;
	const layout_fold *fold = w->p->fold[op->results[0]];
	if (fold) { /* the halves are registers of the reshaped and permuted source */
		const layout *l = w->p->of[op->results[0]];
		int n = lw_map_of(l, rt).nregs;
		for (int h = 0; h < 2; h++)
			if (!lw_emit_fold(w, fold, l, h * n, n, &w->v[op->results[h]]))
				return false;
		return true;
	}
	if (!lw_get(w, op->args[0], NULL, &a))
		return false;
	begin(w, ir_numel(at), (ir_kind)at.kind);
	put(w, &a, at, SAME);
	lw_barrier(w);
	for (int i = 0; i < 2; i++)
		if (!take(w, rt, w->p->of[op->results[i]], (slot_map){-1, 0, 2, i}, &w->v[op->results[i]]))
			return false;
	return true;
}

/* An integer register as an i32 slot coordinate (wider ones truncated:
 * in range they fit). */
static LLVMValueRef as_i32(lw *w, LLVMValueRef v, ir_kind k)
{
	unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(v));
	if (bits > 32)
		return LLVMBuildTrunc(w->b, v, w->i32, "");
	if (bits < 32)
		return ir_kind_is_signed(k) ? LLVMBuildSExt(w->b, v, w->i32, "") : LLVMBuildZExt(w->b, v, w->i32, "");
	return v;
}

bool lw_emit_gather(lw *w, const ir_op *op, const layout *l, lval *out)
{
	ir_type st = lw_vtype(w, op->args[0]), rt = lw_vtype(w, op->results[0]);
	ir_kind k = (ir_kind)st.kind, ik = (ir_kind)lw_vtype(w, op->args[1]).kind;
	int64_t bytes = elem_bytes(k);
	if (!l)
		l = w->p->by_rank[rt.rank];
	lval src, idx;
	if (!lw_get(w, op->args[0], NULL, &src) || !lw_get(w, op->args[1], l, &idx))
		return false;
	begin(w, ir_numel(st), k);
	put(w, &src, st, SAME);
	lw_barrier(w);
	layout_map m = lw_map_of(l, rt);
	if (!lw_alloc_regs(w, out, m.nregs, l))
		return false;
	for (int r = 0; r < m.nregs; r++) {
		LLVMValueRef c[IR_MAX_RANK];
		lw_reg_coords(w, &m, rt.rank, r, c);
		c[op->axis] = as_i32(w, idx.r[r], ik);
		LLVMValueRef lin = lw_ci32(w, 0);
		for (int j = 0; j < st.rank; j++)
			lin = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, lin, lw_ci32(w, st.shape[j]), ""), c[j], "");
		LLVMValueRef x = LLVMBuildLoad2(w->b, lw_stype(w, k), slot_addr(w, lin, bytes), "");
		LLVMSetAlignment(x, (unsigned)bytes);
		out->r[r] = lw_from_storage(w, x, k);
	}
	return true;
}

bool lw_emit_histogram(lw *w, const ir_op *op, const layout *l, lval *out)
{
	ir_type xt = lw_vtype(w, op->args[0]), rt = lw_vtype(w, op->results[0]);
	ir_kind xk = (ir_kind)xt.kind;
	bool has_mask = (op->flags & IR_FLAG_HAS_MASK) != 0;
	if (!l)
		l = w->p->by_rank[1];
	lval x, mask;
	if (!lw_get(w, op->args[0], NULL, &x) || (has_mask && !lw_get(w, op->args[1], x.l, &mask)))
		return false;
	/* the bins zeroed by the owners of the result's elements */
	begin(w, op->ival, IR_I32);
	layout_map mr = lw_map_of(l, rt);
	LLVMValueRef own = lw_owner(w, &mr);
	LLVMBasicBlockRef join = own ? lw_begin_if(w, own) : NULL;
	for (int r = 0; r < mr.nregs; r++)
		LLVMSetAlignment(LLVMBuildStore(w->b, lw_ci32(w, 0), slot_addr(w, slot_of(w, &mr, rt, r, SAME), 4)), 4);
	if (join)
		lw_end_if(w, join);
	lw_barrier(w);
	/* one shared-memory atomic add per element, by its owner; elements
	 * masked off or outside the bins add 0 to bin 0 */
	layout_map mx = lw_map_of(x.l, xt);
	own = lw_owner(w, &mx);
	join = own ? lw_begin_if(w, own) : NULL;
	for (int r = 0; r < x.n; r++) {
		LLVMValueRef v = x.r[r];
		if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) < 64)
			v = ir_kind_is_signed(xk) ? LLVMBuildSExt(w->b, v, w->i64, "") : LLVMBuildZExt(w->b, v, w->i64, "");
		/* unsigned: a negative signed value is huge, so one compare covers both ends */
		LLVMValueRef in = LLVMBuildICmp(w->b, LLVMIntULT, v, LLVMConstInt(w->i64, (unsigned long long)op->ival, false), "");
		if (has_mask) {
			LLVMValueRef mv = mask.r[r];
			if (LLVMTypeOf(mv) != w->i1)
				mv = LLVMBuildICmp(w->b, LLVMIntNE, mv, LLVMConstNull(LLVMTypeOf(mv)), "");
			in = LLVMBuildAnd(w->b, in, mv, "");
		}
		LLVMValueRef slot = LLVMBuildSelect(w->b, in, LLVMBuildTrunc(w->b, v, w->i32, ""), lw_ci32(w, 0), "");
		LLVMValueRef one = LLVMBuildZExt(w->b, in, w->i32, "");
		LLVMBuildAtomicRMW(w->b, LLVMAtomicRMWBinOpAdd, slot_addr(w, slot, 4), one, LLVMAtomicOrderingMonotonic, false);
	}
	if (join)
		lw_end_if(w, join);
	lw_barrier(w);
	return take(w, rt, l, SAME, out);
}
