/* reduce.c - reductions along one axis (sum, max, min, argmax, argmin,
 * xor_sum, and tl.reduce's REDUCE_FN with a combine region).
 *
 * Reductions combine within a thread, then across the lanes of the axis
 * with butterfly shuffles, then across its warps through shared memory,
 * leaving the result in the slice layout where expand_dims and broadcast
 * find it without moving data. The order is Triton's, so that float sums
 * round as Triton's do: a thread's registers in order, the butterflies
 * from the widest offset down (lane l first with l ^ 16), and the warps'
 * partials as the same tree (warp w first with w + warps / 2), which
 * Triton runs as butterflies over the partials in one warp's lanes. From
 * 16 warps on, where the axis has as many lanes, so does tile (one shared
 * load a thread); otherwise every thread reads them all and combines them
 * in registers, which is faster there and rounds the same. A REDUCE_FN
 * takes the same steps over k components at once, each step one call of
 * the combine region (lowered as scalar code, as a scan's):
 * combine(acc, x) in a thread, combine(own, partner) after, so as in
 * Triton's lowering the combine must commute for every lane to agree.
 */
#include "nvptx/lower.h"

LLVMValueRef lw_shfl(lw *w, lw_shfl_mode mode, LLVMValueRef x, LLVMValueRef by)
{
	static const char *const names[] = {"llvm.nvvm.shfl.sync.up.i32", "llvm.nvvm.shfl.sync.down.i32",
					    "llvm.nvvm.shfl.sync.idx.i32", "llvm.nvvm.shfl.sync.bfly.i32"};
	/* clamp: up 0, the others 31 (no segments) */
	LLVMValueRef args[4] = {lw_ci32(w, -1), NULL, by, lw_ci32(w, mode == LW_SHFL_UP ? 0 : 31)};
	LLVMTypeRef t = LLVMTypeOf(x);
	if (mode == LW_SHFL_BFLY && t == w->f32) {
		args[1] = x;
		return lw_call(w, "llvm.nvvm.shfl.sync.bfly.f32", w->f32, args, 4);
	}
	unsigned bits = t == w->f64 ? 64 : t == w->f32 ? 32 : t == w->f16 || t == w->bf16 ? 16 : LLVMGetIntTypeWidth(t);
	LLVMTypeRef it = LLVMIntTypeInContext(w->c, bits);
	LLVMValueRef xi = LLVMBuildBitCast(w->b, x, it, "");
	LLVMValueRef res;
	if (bits == 64) {
		LLVMValueRef lo = LLVMBuildTrunc(w->b, xi, w->i32, "");
		LLVMValueRef hi = LLVMBuildTrunc(w->b, LLVMBuildLShr(w->b, xi, LLVMConstInt(w->i64, 32, false), ""), w->i32, "");
		args[1] = lo;
		lo = lw_call(w, names[mode], w->i32, args, 4);
		args[1] = hi;
		hi = lw_call(w, names[mode], w->i32, args, 4);
		res = LLVMBuildOr(w->b, LLVMBuildZExt(w->b, lo, w->i64, ""),
				  LLVMBuildShl(w->b, LLVMBuildZExt(w->b, hi, w->i64, ""), LLVMConstInt(w->i64, 32, false), ""), "");
	} else {
		args[1] = bits == 32 ? xi : LLVMBuildZExt(w->b, xi, w->i32, "");
		res = lw_call(w, names[mode], w->i32, args, 4);
		if (bits < 32)
			res = LLVMBuildTrunc(w->b, res, it, "");
	}
	return LLVMBuildBitCast(w->b, res, t, "");
}

/* acc = combine(acc, x); index reductions carry (value, index) and keep
 * the smaller index on ties, as Triton's argmax/argmin combine does;
 * `ordered`: acc's index is known to be the smaller (a thread's registers
 * in order), so a tie keeps acc without comparing the indices. */
static void combine(lw *w, int sub, ir_kind k, LLVMValueRef *acc, LLVMValueRef *acci, LLVMValueRef x, LLVMValueRef xi,
		    bool ordered)
{
	bool f = lw_is_f(k), sg = ir_kind_is_signed(k);
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
			*acc = lw_narrow(w, lw_intrinsic2(w, mx ? "llvm.maxnum" : "llvm.minnum", lw_widen(w, *acc, k), lw_widen(w, x, k)), k);
			return;
		}
		LLVMIntPredicate p = mx ? (sg ? LLVMIntSGT : LLVMIntUGT) : (sg ? LLVMIntSLT : LLVMIntULT);
		*acc = LLVMBuildSelect(w->b, LLVMBuildICmp(w->b, p, *acc, x, ""), *acc, x, "");
		return;
	}
	default: {
		int better = sub == IR_REDUCE_ARGMAX ? IR_CMP_GT : IR_CMP_LT;
		LLVMValueRef a = lw_widen(w, *acc, k), b = lw_widen(w, x, k);
		ir_kind wk = lw_narrow_f(k) ? IR_F32 : k;
		LLVMValueRef tie = lw_compare(w, IR_CMP_EQ, wk, a, b);
		if (!ordered)
			tie = LLVMBuildAnd(w->b, tie, LLVMBuildICmp(w->b, LLVMIntSLT, *acci, xi, ""), "");
		LLVMValueRef keep = LLVMBuildOr(w->b, lw_compare(w, better, wk, a, b), tie, "");
		*acc = LLVMBuildSelect(w->b, keep, *acc, x, "");
		*acci = LLVMBuildSelect(w->b, keep, *acci, xi, "");
		return;
	}
	}
}

/* Butterflies over `lanes` lanes of the axis (lane bits from `shift`),
 * from the widest offset down. */
static void butterflies(lw *w, int sub, ir_kind ek, bool arg, LLVMValueRef *acc, LLVMValueRef *acci, int nq, int lanes,
			int shift)
{
	for (int off = lanes >> 1; off >= 1; off >>= 1)
		for (int q = 0; q < nq; q++) {
			LLVMValueRef y = lw_shfl(w, LW_SHFL_BFLY, acc[q], lw_ci32(w, off << shift));
			LLVMValueRef yi = arg ? lw_shfl(w, LW_SHFL_BFLY, acci[q], lw_ci32(w, off << shift)) : NULL;
			combine(w, sub, ek, &acc[q], &acci[q], y, yi, false);
		}
}

/* Whether the warps' partials are combined by the lanes of the axis: lane
 * j reads warp (j mod warps)'s and butterflies finish, as in Triton; one
 * load a thread where reading them all would hold `warps` registers of
 * the 64 a thread has at 1024 threads. Below 16 warps the register tree
 * is faster (two 16-byte shared loads beat the shuffles' latency). */
static bool partials_in_lanes(layout_field fl, int warps)
{
	return warps >= 16 && fl.lanes >= warps;
}

/* The lane's warp along the axis under partials_in_lanes. */
static LLVMValueRef partial_reader(lw *w, layout_field fl, int warps)
{
	return LLVMBuildAnd(w->b, LLVMBuildLShr(w->b, w->lane, lw_ci32(w, fl.lane_shift), ""), lw_ci32(w, warps - 1), "");
}

/* Across warps: whether this thread writes its warp's partial results
 * (lane 0 of the reduced dim, one of the first `warps` warps along it, and
 * inside the block along the other dims), and *wk its warp's index along
 * the reduced dim `axis`. */
static LLVMValueRef partial_writer(lw *w, const layout_map *ms, layout_field fl, int warps, int axis, LLVMValueRef *wk)
{
	*wk = LLVMBuildAnd(w->b, LLVMBuildLShr(w->b, w->warp, lw_ci32(w, fl.warp_shift), ""), lw_ci32(w, fl.warps - 1), "");
	LLVMValueRef lk = LLVMBuildAnd(w->b, LLVMBuildLShr(w->b, w->lane, lw_ci32(w, fl.lane_shift), ""),
				       lw_ci32(w, fl.lanes - 1), "");
	LLVMValueRef pred = LLVMBuildAnd(w->b, LLVMBuildICmp(w->b, LLVMIntEQ, lk, lw_ci32(w, 0), ""),
					 LLVMBuildICmp(w->b, LLVMIntULT, *wk, lw_ci32(w, warps), ""), "");
	for (int d = 0; d < ms->rank; d++) {
		layout_field fd = layout_dim_field(ms, d);
		if (d == axis || (int64_t)fd.warp_scale * fd.warps <= ms->shape[d])
			continue;
		pred = LLVMBuildAnd(w->b, pred, LLVMBuildICmp(w->b, LLVMIntULT, lw_thread_raw(w, ms, d), lw_ci32(w, ms->shape[d]), ""),
				    "");
	}
	return pred;
}

/* Within each thread, then across the lanes of the axis with butterfly
 * shuffles, then across its warps through shared memory. The result is in
 * the slice layout: every thread of the axis holds it. */
bool lw_emit_reduce(lw *w, const ir_op *op, const layout *l, lval *out)
{
	int src = op->args[0], k = op->axis, sub = op->sub;
	ir_type st = lw_vtype(w, src), rt = lw_vtype(w, op->results[0]);
	ir_kind ek = (ir_kind)st.kind;
	bool arg = sub == IR_REDUCE_ARGMAX || sub == IR_REDUCE_ARGMIN;
	const layout *pl = l && l->kind == LAYOUT_SLICE ? l->parent : w->p->of[src];
	if (!pl || pl->kind != LAYOUT_BLOCKED)
		pl = w->p->by_rank[st.rank];
	const layout *sl = layout_slice(w->a, pl, k);
	lval x;
	if (!sl || !lw_get(w, src, pl, &x))
		return sl ? false : lw_oom(w);
	layout_map ms = lw_map_of(pl, st), mr = lw_map_of(sl, rt);
	int nq = mr.nregs;
	LLVMValueRef *acc = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)nq * 2);
	if (!acc || !lw_alloc_regs(w, out, nq, rt.rank ? sl : NULL))
		return lw_oom(w);
	LLVMValueRef *acci = acc + nq;
	LLVMValueRef tk = arg ? lw_thread_coord(w, &ms, k) : NULL;
	for (int q = 0; q < nq; q++) {
		int32_t idx[IR_MAX_RANK], cc[IR_MAX_RANK], last = 0;
		layout_reg_split(&mr, q, idx);
		for (int j = 0; j < ms.regs_per_dim[k]; j++) {
			idx[k] = j;
			int r = layout_reg_join(&ms, idx);
			LLVMValueRef xi = NULL;
			layout_reg_coords(&ms, r, cc);
			if (arg)
				xi = LLVMBuildAdd(w->b, tk, lw_ci32(w, cc[k]), "");
			if (j == 0)
				acc[q] = x.r[r], acci[q] = xi;
			else
				combine(w, sub, ek, &acc[q], &acci[q], x.r[r], xi, cc[k] > last);
			if (j == 0 || cc[k] > last)
				last = cc[k];
		}
	}
	layout_field fl = layout_dim_field(&ms, k);
	int lanes = fl.lanes, span = st.shape[k] / fl.lane_scale;
	if (span < lanes)
		lanes = span > 1 ? span : 1;
	butterflies(w, sub, ek, arg, acc, acci, nq, lanes, fl.lane_shift);
	int warps = fl.warps, wspan = st.shape[k] / fl.warp_scale;
	if (wspan < warps)
		warps = wspan > 1 ? wspan : 1;
	if (warps > 1) {
		/* Partials at [warp][element] (values, then indices). */
		int64_t nr = ir_numel(rt), eb = ir_kind_bytes(ek);
		int64_t ibase = ((warps * nr * eb) + 3) & ~(int64_t)3;
		lw_smem_need(w, (uint64_t)(arg ? ibase + warps * nr * 4 : warps * nr * eb));
		LLVMValueRef wk, pred = partial_writer(w, &ms, fl, warps, k, &wk);
		lw_barrier(w);
		LLVMBasicBlockRef join = lw_begin_if(w, pred);
		LLVMValueRef *lin = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)nq);
		if (!lin)
			return lw_oom(w);
		for (int q = 0; q < nq; q++) {
			LLVMValueRef slot = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, wk, lw_ci32(w, nr), ""),
							 lw_linear_index(w, &mr, rt, q), "");
			LLVMValueRef s = LLVMBuildStore(w->b, acc[q], lw_smem_addr(w, LLVMBuildMul(w->b, slot, lw_ci32(w, eb), "")));
			LLVMSetAlignment(s, (unsigned)eb);
			if (arg) {
				LLVMValueRef off = LLVMBuildAdd(w->b, lw_ci32(w, ibase), LLVMBuildMul(w->b, slot, lw_ci32(w, 4), ""), "");
				LLVMSetAlignment(LLVMBuildStore(w->b, acci[q], lw_smem_addr(w, off)), 4);
			}
		}
		lw_end_if(w, join);
		lw_barrier(w);
		bool in_lanes = partials_in_lanes(fl, warps);
		int nread = in_lanes ? 1 : warps;
		LLVMValueRef from = in_lanes ? partial_reader(w, fl, warps) : NULL;
		LLVMValueRef *v = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)nread * 2), *vi = v + nread;
		if (!v)
			return lw_oom(w);
		for (int q = 0; q < nq; q++) {
			LLVMValueRef li = lw_linear_index(w, &mr, rt, q);
			for (int wi = 0; wi < nread; wi++) {
				LLVMValueRef base = in_lanes ? LLVMBuildMul(w->b, from, lw_ci32(w, nr), "") : lw_ci32(w, wi * nr);
				LLVMValueRef slot = LLVMBuildAdd(w->b, base, li, "");
				v[wi] = LLVMBuildLoad2(w->b, lw_ltype(w, ek), lw_smem_addr(w, LLVMBuildMul(w->b, slot, lw_ci32(w, eb), "")), "");
				LLVMSetAlignment(v[wi], (unsigned)eb);
				vi[wi] = NULL;
				if (arg) {
					LLVMValueRef off = LLVMBuildAdd(w->b, lw_ci32(w, ibase), LLVMBuildMul(w->b, slot, lw_ci32(w, 4), ""), "");
					vi[wi] = LLVMBuildLoad2(w->b, w->i32, lw_smem_addr(w, off), "");
					LLVMSetAlignment(vi[wi], 4);
				}
			}
			for (int o = nread >> 1; o >= 1; o >>= 1)
				for (int wi = 0; wi < o; wi++)
					combine(w, sub, ek, &v[wi], &vi[wi], v[wi + o], vi[wi + o], false);
			acc[q] = v[0];
			acci[q] = vi[0];
		}
		if (in_lanes)
			butterflies(w, sub, ek, arg, acc, acci, nq, warps, fl.lane_shift);
	}
	for (int q = 0; q < nq; q++)
		out->r[q] = arg ? acci[q] : acc[q];
	if (op->nresults > 1) { /* the value at the index (tl.max's with return_indices) */
		lval *v = &w->v[op->results[1]];
		if (!lw_alloc_regs(w, v, nq, rt.rank ? sl : NULL))
			return lw_oom(w);
		for (int q = 0; q < nq; q++)
			v->r[q] = acc[q];
	}
	return true;
}

enum { REDUCE_FN_MAX_K = 8 };

/* out = combine(a, b) over the k components of a REDUCE_FN */
static bool combine_fn(lw *w, const ir_op *op, const LLVMValueRef *a, const LLVMValueRef *b, LLVMValueRef *out)
{
	int k = op->nargs;
	LLVMValueRef params[2 * REDUCE_FN_MAX_K] = {0}, res[REDUCE_FN_MAX_K] = {0};
	for (int i = 0; i < k; i++) {
		params[i] = a[i];
		params[k + i] = b[i];
	}
	if (!lw_lower_scalar_region(w, &op->regions[0], params, res))
		return false;
	for (int i = 0; i < k; i++)
		out[i] = res[i];
	return true;
}

/* butterflies() for a REDUCE_FN's k components */
static bool butterflies_fn(lw *w, const ir_op *op, LLVMValueRef *acc, int nq, int lanes, int shift)
{
	int k = op->nargs;
	for (int off = lanes >> 1; off >= 1; off >>= 1)
		for (int q = 0; q < nq; q++) {
			LLVMValueRef y[REDUCE_FN_MAX_K];
			for (int i = 0; i < k; i++)
				y[i] = lw_shfl(w, LW_SHFL_BFLY, acc[q * k + i], lw_ci32(w, off << shift));
			if (!combine_fn(w, op, &acc[q * k], y, &acc[q * k]))
				return false;
		}
	return true;
}

bool lw_emit_reduce_fn(lw *w, const ir_op *op)
{
	int k = op->nargs, ax = op->axis;
	if (k > REDUCE_FN_MAX_K)
		return lw_fail(w, op, TILEC_ERR_UNSUPPORTED,
			       "a tl.reduce of more than %d tensors is not supported by the GPU back end", REDUCE_FN_MAX_K);
	ir_type st = lw_vtype(w, op->args[0]), rt = lw_vtype(w, op->results[0]);
	const layout *l = w->p->of[op->results[0]];
	const layout *pl = l && l->kind == LAYOUT_SLICE ? l->parent : w->p->of[op->args[0]];
	if (!pl || pl->kind != LAYOUT_BLOCKED)
		pl = w->p->by_rank[st.rank];
	const layout *sl = layout_slice(w->a, pl, ax);
	if (!sl)
		return lw_oom(w);
	lval x[REDUCE_FN_MAX_K];
	ir_kind kinds[REDUCE_FN_MAX_K];
	for (int i = 0; i < k; i++) {
		kinds[i] = (ir_kind)lw_vtype(w, op->args[i]).kind;
		if (!lw_get(w, op->args[i], pl, &x[i]))
			return false;
	}
	layout_map ms = lw_map_of(pl, st), mr = lw_map_of(sl, rt);
	int nq = mr.nregs;
	/* acc[q * k + i]: component i of row q */
	LLVMValueRef *acc = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)nq * (size_t)k);
	if (!acc)
		return lw_oom(w);
	for (int i = 0; i < k; i++)
		if (!lw_alloc_regs(w, &w->v[op->results[i]], nq, rt.rank ? sl : NULL))
			return lw_oom(w);
	/* 1. within the thread, registers in order */
	for (int q = 0; q < nq; q++) {
		int32_t idx[IR_MAX_RANK];
		layout_reg_split(&mr, q, idx);
		for (int j = 0; j < ms.regs_per_dim[ax]; j++) {
			idx[ax] = j;
			int r = layout_reg_join(&ms, idx);
			LLVMValueRef xe[REDUCE_FN_MAX_K];
			for (int i = 0; i < k; i++)
				xe[i] = x[i].r[r];
			if (j == 0) {
				for (int i = 0; i < k; i++)
					acc[q * k + i] = xe[i];
			} else if (!combine_fn(w, op, &acc[q * k], xe, &acc[q * k])) {
				return false;
			}
		}
	}
	/* 2. across the lanes of the axis: butterflies */
	layout_field fl = layout_dim_field(&ms, ax);
	int lanes = fl.lanes, span = st.shape[ax] / fl.lane_scale;
	if (span < lanes)
		lanes = span > 1 ? span : 1;
	if (!butterflies_fn(w, op, acc, nq, lanes, fl.lane_shift))
		return false;
	/* 3. across warps: partials at [component][warp][row] in shared memory */
	int warps = fl.warps, wspan = st.shape[ax] / fl.warp_scale;
	if (wspan < warps)
		warps = wspan > 1 ? wspan : 1;
	if (warps > 1) {
		int64_t nr = ir_numel(rt), off[REDUCE_FN_MAX_K + 1];
		off[0] = 0;
		for (int i = 0; i < k; i++)
			off[i + 1] = (off[i] + warps * nr * ir_kind_bytes(kinds[i]) + 7) & ~(int64_t)7;
		lw_smem_need(w, (uint64_t)off[k]);
		LLVMValueRef wk, pred = partial_writer(w, &ms, fl, warps, ax, &wk);
		lw_barrier(w);
		LLVMBasicBlockRef join = lw_begin_if(w, pred);
		for (int q = 0; q < nq; q++) {
			LLVMValueRef slot = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, wk, lw_ci32(w, nr), ""),
							 lw_linear_index(w, &mr, rt, q), "");
			for (int i = 0; i < k; i++) {
				int eb = ir_kind_bytes(kinds[i]);
				LLVMValueRef a = lw_smem_addr(w, LLVMBuildAdd(w->b, lw_ci32(w, off[i]),
									      LLVMBuildMul(w->b, slot, lw_ci32(w, eb), ""), ""));
				LLVMSetAlignment(LLVMBuildStore(w->b, lw_to_storage(w, acc[q * k + i], kinds[i]), a), (unsigned)eb);
			}
		}
		lw_end_if(w, join);
		lw_barrier(w);
		/* v[wi * k + i]: component i of warp wi's partial (of the lane's warp
		 * under partials_in_lanes) */
		bool in_lanes = partials_in_lanes(fl, warps);
		int nread = in_lanes ? 1 : warps;
		LLVMValueRef from = in_lanes ? partial_reader(w, fl, warps) : NULL;
		LLVMValueRef *v = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)nread * (size_t)k);
		if (!v)
			return lw_oom(w);
		for (int q = 0; q < nq; q++) {
			LLVMValueRef li = lw_linear_index(w, &mr, rt, q);
			for (int wi = 0; wi < nread; wi++) {
				LLVMValueRef base = in_lanes ? LLVMBuildMul(w->b, from, lw_ci32(w, nr), "") : lw_ci32(w, wi * nr);
				LLVMValueRef slot = LLVMBuildAdd(w->b, base, li, "");
				for (int i = 0; i < k; i++) {
					int eb = ir_kind_bytes(kinds[i]);
					LLVMValueRef a = lw_smem_addr(w, LLVMBuildAdd(w->b, lw_ci32(w, off[i]),
										      LLVMBuildMul(w->b, slot, lw_ci32(w, eb), ""), ""));
					LLVMValueRef ld = LLVMBuildLoad2(w->b, lw_stype(w, kinds[i]), a, "");
					LLVMSetAlignment(ld, (unsigned)eb);
					v[wi * k + i] = lw_from_storage(w, ld, kinds[i]);
				}
			}
			for (int o = nread >> 1; o >= 1; o >>= 1)
				for (int wi = 0; wi < o; wi++)
					if (!combine_fn(w, op, &v[wi * k], &v[(wi + o) * k], &v[wi * k]))
						return false;
			for (int i = 0; i < k; i++)
				acc[q * k + i] = v[i];
		}
		if (in_lanes && !butterflies_fn(w, op, acc, nq, warps, fl.lane_shift))
			return false;
	}
	for (int q = 0; q < nq; q++)
		for (int i = 0; i < k; i++)
			w->v[op->results[i]].r[q] = acc[q * k + i];
	return true;
}
