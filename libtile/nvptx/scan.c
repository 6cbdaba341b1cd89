/* scan.c - scans along one axis (tl.cumsum, tl.cumprod, tl.associative_scan).
 *
 * As Triton's ScanOpToLLVM: in a blocked layout each thread holds, per
 * repetition of the CTA tile along the axis, a chunk of consecutive
 * elements. A scan runs sequentially over each chunk, then across the
 * lanes of the axis (Hillis-Steele with shfl.sync.up, log2(lanes) steps),
 * then across its warps: each warp's totals (of every repetition, behind
 * one pair of barriers) go through shared memory and every thread combines
 * the totals of the warps before it. Repetitions are chained by a carry,
 * the tile's total. The combine region (any @jit
 * function, lowered as scalar code) is always applied as combine(earlier,
 * later), so it need not commute; a reversed scan mirrors every position
 * (shfl.sync.down, later warps first). Replicated lanes and warps (an axis
 * shorter than the layout's tile) compute the same values as their owners;
 * only owners write shared memory.
 */
#include "nvptx/lower.h"

enum { SCAN_MAX_K = 8 };

/* The state of one scan: its op, the k components, the combine region. */
typedef struct scan {
	lw *w;
	const ir_op *op;
	int k;
	ir_kind kinds[SCAN_MAX_K];
} scan;

/* out = combine(a, b) over the k components (out may alias a or b). */
static bool combine(scan *sc, const LLVMValueRef *a, const LLVMValueRef *b, LLVMValueRef *out)
{
	LLVMValueRef params[2 * SCAN_MAX_K], res[SCAN_MAX_K];
	for (int i = 0; i < sc->k; i++) {
		params[i] = a[i];
		params[sc->k + i] = b[i];
	}
	if (!lw_lower_scalar_region(sc->w, &sc->op->regions[0], params, res))
		return false;
	for (int i = 0; i < sc->k; i++)
		out[i] = res[i];
	return true;
}

static void select_k(scan *sc, LLVMValueRef pred, const LLVMValueRef *a, const LLVMValueRef *b, LLVMValueRef *out)
{
	for (int i = 0; i < sc->k; i++)
		out[i] = LLVMBuildSelect(sc->w->b, pred, a[i], b[i], "");
}

/* (pa ? a : nothing) then (pb ? b : nothing), combined: out and its flag. */
static bool join_opt(scan *sc, LLVMValueRef pa, const LLVMValueRef *a, LLVMValueRef pb, const LLVMValueRef *b,
		     LLVMValueRef *out, LLVMValueRef *pout)
{
	lw *w = sc->w;
	if (!pa) {
		for (int i = 0; i < sc->k; i++)
			out[i] = b[i];
		*pout = pb;
		return true;
	}
	if (!pb) {
		for (int i = 0; i < sc->k; i++)
			out[i] = a[i];
		*pout = pa;
		return true;
	}
	LLVMValueRef both[SCAN_MAX_K], tmp[SCAN_MAX_K];
	if (!combine(sc, a, b, both))
		return false;
	select_k(sc, pb, both, a, tmp);
	select_k(sc, pa, tmp, b, out);
	*pout = LLVMBuildOr(w->b, pa, pb, "");
	return true;
}

bool lw_emit_scan(lw *w, const ir_op *op)
{
	scan sc = {w, op, op->nargs, {0}};
	int k = sc.k, ax = op->axis;
	bool rev = op->ival != 0;
	if (k > SCAN_MAX_K)
		return lw_fail(w, op, TILEC_ERR_UNSUPPORTED, "a scan of more than %d tensors is not supported by the GPU back end",
			       SCAN_MAX_K);
	ir_type st = lw_vtype(w, op->args[0]);
	for (int i = 0; i < k; i++)
		sc.kinds[i] = (ir_kind)lw_vtype(w, op->args[i]).kind;
	/* a blocked layout: the operands' own when they have one */
	const layout *l = w->p->of[op->results[0]];
	if (!l || l->kind != LAYOUT_BLOCKED || l->mma)
		l = w->p->by_rank[st.rank];
	const layout *sl = layout_slice(w->a, l, ax);
	if (!sl)
		return lw_oom(w);
	lval x[SCAN_MAX_K];
	for (int i = 0; i < k; i++)
		if (!lw_get(w, op->args[i], l, &x[i]))
			return false;
	ir_type rt = st; /* the rows: the shape without the axis */
	for (int d = ax; d + 1 < st.rank; d++)
		rt.shape[d] = st.shape[d + 1];
	rt.rank = (uint8_t)(st.rank - 1);
	layout_map ms = lw_map_of(l, st), mr = lw_map_of(sl, rt);
	int n = ms.nregs, nrow = mr.nregs;
	for (int i = 0; i < k; i++)
		if (!lw_alloc_regs(w, &w->v[op->results[i]], n, l))
			return false;
	int32_t len = st.shape[ax], spt = l->size_per_thread[ax];
	int32_t chunk = spt < len ? spt : len;
	int regs = ms.regs_per_dim[ax], reps = regs / chunk;
	layout_field fl = layout_dim_field(&ms, ax);
	int lanes = fl.lanes, warps = fl.warps;
	int lanes_eff = len / spt < 1 ? 1 : len / spt < lanes ? len / spt : lanes;
	int warps_eff = len / (spt * lanes) < 1 ? 1 : len / (spt * lanes) < warps ? len / (spt * lanes) : warps;
	/* positions of this thread's lane and warp along the axis, in scan order */
	LLVMValueRef li = LLVMBuildAnd(w->b, LLVMBuildLShr(w->b, w->lane, lw_ci32(w, fl.lane_shift), ""), lw_ci32(w, lanes - 1), "");
	LLVMValueRef wi = LLVMBuildAnd(w->b, LLVMBuildLShr(w->b, w->warp, lw_ci32(w, fl.warp_shift), ""), lw_ci32(w, warps - 1), "");
	LLVMValueRef li_e = LLVMBuildAnd(w->b, li, lw_ci32(w, lanes_eff - 1), "");
	LLVMValueRef wi_e = LLVMBuildAnd(w->b, wi, lw_ci32(w, warps_eff - 1), "");
	LLVMValueRef pos_l = rev ? LLVMBuildSub(w->b, lw_ci32(w, lanes_eff - 1), li_e, "") : li_e;
	LLVMValueRef pos_w = rev ? LLVMBuildSub(w->b, lw_ci32(w, warps_eff - 1), wi_e, "") : wi_e;
	lw_shfl_mode toward = rev ? LW_SHFL_DOWN : LW_SHFL_UP;
	/* per row: the values (registers of the row), the carry between
	 * repetitions; per repetition and row: the lanes' inclusive total */
	size_t nv = (size_t)nrow * (size_t)(regs + 3 + reps) * k;
	LLVMValueRef *mem = arena_alloc(w->a, sizeof(LLVMValueRef) * (nv ? nv : 1));
	int *rowreg = arena_alloc(w->a, sizeof(int) * (size_t)(nrow * regs + 1));
	if (!mem || !rowreg)
		return lw_oom(w);
	for (int q = 0; q < nrow; q++) {
		int32_t idx[IR_MAX_RANK];
		layout_reg_split(&mr, q, idx);
		for (int j = 0; j < regs; j++) {
			idx[ax] = j;
			rowreg[q * regs + j] = layout_reg_join(&ms, idx);
		}
	}
#define VAL(q, j) (mem + ((size_t)(q) * (size_t)(regs + 3 + reps) + (size_t)(j)) * (size_t)k)
#define CARRY(q) VAL(q, regs)     /* all earlier repetitions */
#define TILE(q) VAL(q, regs + 1)  /* this repetition's total */
#define PRE(q) VAL(q, regs + 2)   /* earlier lanes and warps in this repetition */
#define TOT(q, rr) VAL(q, regs + 3 + (rr)) /* the thread's, then the lanes', inclusive total */
	/* shared memory for the warps' totals: [component][repetition][row][warp] */
	int64_t nrows_all = ir_numel(rt), off[SCAN_MAX_K + 1];
	off[0] = 0;
	for (int i = 0; i < k; i++)
		off[i + 1] = (off[i] + reps * nrows_all * warps_eff * ir_kind_bytes(sc.kinds[i]) + 7) & ~(int64_t)7;
	/* 1. each chunk, in scan order; 2. across the lanes of the axis */
	for (int rr = 0; rr < reps; rr++) {
		int rep = rev ? reps - 1 - rr : rr;
		for (int q = 0; q < nrow; q++) {
			LLVMValueRef *acc = TOT(q, rr);
			for (int e = 0; e < chunk; e++) {
				int j = rep * chunk + (rev ? chunk - 1 - e : e);
				int r = rowreg[q * regs + j];
				LLVMValueRef xe[SCAN_MAX_K];
				for (int i = 0; i < k; i++)
					xe[i] = x[i].r[r];
				if (e == 0) {
					for (int i = 0; i < k; i++)
						acc[i] = xe[i];
				} else if (!combine(&sc, acc, xe, acc)) {
					return false;
				}
				for (int i = 0; i < k; i++)
					VAL(q, j)[i] = acc[i];
			}
			for (int o = 1; o < lanes_eff; o <<= 1) {
				LLVMValueRef y[SCAN_MAX_K], both[SCAN_MAX_K];
				for (int i = 0; i < k; i++)
					y[i] = lw_shfl(w, toward, acc[i], lw_ci32(w, o << fl.lane_shift));
				if (!combine(&sc, y, acc, both))
					return false;
				select_k(&sc, LLVMBuildICmp(w->b, LLVMIntUGE, pos_l, lw_ci32(w, o), ""), both, acc, acc);
			}
		}
	}
	/* 3. across warps: every repetition's totals through shared memory at once */
	if (warps_eff > 1) {
		/* the owner of each warp's total: the warp's last lane in scan order */
		LLVMValueRef writer = LLVMBuildAnd(w->b, LLVMBuildICmp(w->b, LLVMIntEQ, li, lw_ci32(w, rev ? 0 : lanes_eff - 1), ""),
						   LLVMBuildICmp(w->b, LLVMIntULT, wi, lw_ci32(w, warps_eff), ""), "");
		for (int d = 0; d < ms.rank; d++) {
			layout_field fd = layout_dim_field(&ms, d);
			if (d == ax || (int64_t)fd.warp_scale * fd.warps <= ms.shape[d])
				continue;
			writer = LLVMBuildAnd(w->b, writer, LLVMBuildICmp(w->b, LLVMIntULT, lw_thread_raw(w, &ms, d),
									  lw_ci32(w, ms.shape[d]), ""), "");
		}
		lw_smem_need(w, (uint64_t)off[k]);
		lw_barrier(w);
		LLVMBasicBlockRef join = lw_begin_if(w, writer);
		for (int rr = 0; rr < reps; rr++)
			for (int q = 0; q < nrow; q++) {
				LLVMValueRef row = LLVMBuildAdd(w->b, lw_ci32(w, rr * nrows_all), lw_linear_index(w, &mr, rt, q), "");
				LLVMValueRef slot = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, row, lw_ci32(w, warps_eff), ""), wi_e, "");
				for (int i = 0; i < k; i++) {
					int eb = ir_kind_bytes(sc.kinds[i]);
					LLVMValueRef a = lw_smem_addr(w, LLVMBuildAdd(w->b, lw_ci32(w, off[i]), LLVMBuildMul(w->b, slot, lw_ci32(w, eb), ""), ""));
					LLVMSetAlignment(LLVMBuildStore(w->b, lw_to_storage(w, TOT(q, rr)[i], sc.kinds[i]), a), (unsigned)eb);
				}
			}
		lw_end_if(w, join);
		lw_barrier(w);
	}
	/* 4. each repetition in scan order: earlier warps, lanes and
	 * repetitions combined into a prefix for the chunk's values */
	for (int rr = 0; rr < reps; rr++) {
		int rep = rev ? reps - 1 - rr : rr;
		for (int q = 0; q < nrow; q++) {
			LLVMValueRef *acc = TOT(q, rr), *pre = PRE(q), *tile = TILE(q);
			LLVMValueRef lex[SCAN_MAX_K], has_l = NULL;
			if (lanes_eff > 1) {
				for (int i = 0; i < k; i++)
					lex[i] = lw_shfl(w, toward, acc[i], lw_ci32(w, 1 << fl.lane_shift));
				has_l = LLVMBuildICmp(w->b, LLVMIntUGE, pos_l, lw_ci32(w, 1), "");
			}
			LLVMValueRef wex[SCAN_MAX_K], has_w = NULL;
			if (warps_eff > 1) {
				/* the warps' totals in scan order; P_m: the first m+1 combined */
				LLVMValueRef row = LLVMBuildAdd(w->b, lw_ci32(w, rr * nrows_all), lw_linear_index(w, &mr, rt, q), "");
				LLVMValueRef lin = LLVMBuildMul(w->b, row, lw_ci32(w, warps_eff), "");
				LLVMValueRef p[SCAN_MAX_K];
				for (int m = 0; m < warps_eff; m++) {
					int wsrc = rev ? warps_eff - 1 - m : m;
					LLVMValueRef t[SCAN_MAX_K];
					for (int i = 0; i < k; i++) {
						int eb = ir_kind_bytes(sc.kinds[i]);
						LLVMValueRef slot = LLVMBuildAdd(w->b, lin, lw_ci32(w, wsrc), "");
						LLVMValueRef a = lw_smem_addr(w, LLVMBuildAdd(w->b, lw_ci32(w, off[i]), LLVMBuildMul(w->b, slot, lw_ci32(w, eb), ""), ""));
						LLVMValueRef ld = LLVMBuildLoad2(w->b, lw_stype(w, sc.kinds[i]), a, "");
						LLVMSetAlignment(ld, (unsigned)eb);
						t[i] = lw_from_storage(w, ld, sc.kinds[i]);
					}
					if (m == 0) {
						for (int i = 0; i < k; i++)
							p[i] = wex[i] = t[i];
					} else {
						/* a thread at warp position pos takes P_{pos-1} */
						select_k(&sc, LLVMBuildICmp(w->b, LLVMIntUGT, pos_w, lw_ci32(w, m - 1), ""), p, wex, wex);
						if (!combine(&sc, p, t, p))
							return false;
					}
				}
				for (int i = 0; i < k; i++)
					tile[i] = p[i];
				has_w = LLVMBuildICmp(w->b, LLVMIntUGE, pos_w, lw_ci32(w, 1), "");
			} else if (reps > 1 && lanes_eff > 1) {
				/* the tile's total: the inclusive total of the last lane in scan order */
				LLVMValueRef mask = lw_ci32(w, ~((lanes - 1) << fl.lane_shift));
				LLVMValueRef grp = LLVMBuildAnd(w->b, li, lw_ci32(w, ~(lanes_eff - 1)), "");
				LLVMValueRef src = LLVMBuildOr(w->b, LLVMBuildAnd(w->b, w->lane, mask, ""),
							       LLVMBuildShl(w->b, LLVMBuildOr(w->b, grp, lw_ci32(w, rev ? 0 : lanes_eff - 1), ""),
									    lw_ci32(w, fl.lane_shift), ""), "");
				for (int i = 0; i < k; i++)
					tile[i] = lw_shfl(w, LW_SHFL_IDX, acc[i], src);
			} else {
				for (int i = 0; i < k; i++)
					tile[i] = acc[i];
			}
			LLVMValueRef has_p;
			if (!join_opt(&sc, has_w, wex, has_l, lex, pre, &has_p))
				return false;
			/* earlier repetitions come first */
			LLVMValueRef has_c = rr > 0 ? LLVMConstInt(w->i1, 1, false) : NULL;
			if (!join_opt(&sc, has_c, CARRY(q), has_p, pre, pre, &has_p))
				return false;
			for (int e = 0; e < chunk; e++) {
				int j = rep * chunk + e, r = rowreg[q * regs + j];
				LLVMValueRef out[SCAN_MAX_K];
				if (has_p) {
					LLVMValueRef both[SCAN_MAX_K];
					if (!combine(&sc, pre, VAL(q, j), both))
						return false;
					select_k(&sc, has_p, both, VAL(q, j), out);
				} else {
					for (int i = 0; i < k; i++)
						out[i] = VAL(q, j)[i];
				}
				for (int i = 0; i < k; i++)
					w->v[op->results[i]].r[r] = out[i];
			}
			if (rr + 1 < reps) {
				if (rr == 0) {
					for (int i = 0; i < k; i++)
						CARRY(q)[i] = tile[i];
				} else if (!combine(&sc, CARRY(q), tile, CARRY(q))) {
					return false;
				}
			}
		}
	}
#undef VAL
#undef CARRY
#undef TILE
#undef PRE
#undef TOT
	return true;
}
