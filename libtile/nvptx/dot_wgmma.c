/* dot_wgmma.c - tl.dot on Hopper's warpgroup MMA (sm_90a).
 *
 * A dot layout_dot_wgmma accepted keeps its accumulator in layout_wgmma:
 * warps along M while there are 64-row blocks for their warpgroups (as
 * Triton places them), so warp w holds rows 16 (w % 4) .. of its
 * warpgroup's 64-row block in exactly the registers of wgmma's m64nNk16
 * (fp16, bf16) or m64nNk32 (fp8, int8) result (per 8-column tile, c0..c3 as in
 * mma.sync); warpgroups left over split N, each holding one contiguous
 * block of columns, its B descriptors starting at that block. Per 64-row
 * block and K step the warpgroup issues one wgmma.mma_async per chunk of
 * up to 256 of its columns. B always comes from
 * shared memory through a matrix descriptor: its ring tile in place
 * (analysis/layout.c cut the ring into 32-, 64- or 128-byte swizzled
 * panels, the layouts descriptors name), or its registers staged into such
 * a tile, once before the loop where the loop does not compute them
 * (attention backward's K and V: lw_wgmma_keep). A comes the same way
 * when it is a ring tile in panels, a transpose layout.c folded into its
 * staging, or a value kept before a loop marked keep_a, else from
 * registers as mma.sync's A fragment (a chained dot's result, fragments
 * loaded before the loop, ldmatrix). The instructions of one dot are one
 * commit group, left in flight while the ops after it that do not read the
 * result are lowered (a pipelined loop's copies for later stages), then
 * waited for (wait_group 0, or 1 across a loop's back edge when its rings
 * have a spare tile: lower.c) with every accumulator register tied through
 * the wait so nothing reads them early; wgmma.fence orders the registers
 * written before it. 8-bit operands must be K-major (wgmma cannot
 * transpose them; layout.c checks). Operands staged here by ordinary
 * stores are handed to the async proxy (fence.proxy.async) before their
 * barrier; tiles cp.async filled are not, as in Triton's code (the fence
 * costs a MEMBAR.ALL.CTA per iteration).
 */
#include "nvptx/lower.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void wgmma_sync(lw *w, const char *text)
{
	lw_asm_call(w, w->vd, text, "~{memory}", NULL, 0, true);
}

/* The descriptor of the panel tile sl at byte offset `at` (i32, 1024-byte
 * aligned): address, leading byte offset (from one panel to the next),
 * stride byte offset (from one 8-row group to the next), swizzle mode. */
static LLVMValueRef descriptor(lw *w, const smem_layout *sl, LLVMValueRef at)
{
	uint64_t pb = (uint64_t)sl->panel_bytes;
	uint64_t mode = pb == 128 ? 1 : pb == 64 ? 2 : 3;
	uint64_t lbo = (pb * (uint64_t)sl->rows) >> 4, sbo = (8 * pb) >> 4;
	uint64_t fixed = (lbo & 0x3fff) << 16 | (sbo & 0x3fff) << 32 | mode << 62;
	LLVMValueRef addr = LLVMBuildPtrToInt(w->b, lw_smem_at(w, at), w->i32, "");
	addr = LLVMBuildAnd(w->b, LLVMBuildLShr(w->b, addr, lw_ci32(w, 4), ""), lw_ci32(w, 0x3fff), "");
	addr = LLVMBuildZExt(w->b, addr, w->i64, "");
	return LLVMBuildOr(w->b, addr, LLVMConstInt(w->i64, fixed, false), "");
}

/* The descriptor of the operand starting `off` bytes (i32) into the tile
 * whose descriptor is d0: the address field moves by off / 16 (shared
 * memory stays below 256 KB, so the 14-bit field does not carry). */
static LLVMValueRef descriptor_at(lw *w, LLVMValueRef d0, LLVMValueRef off)
{
	LLVMValueRef o = LLVMBuildZExt(w->b, LLVMBuildLShr(w->b, off, lw_ci32(w, 4), ""), w->i64, "");
	return LLVMBuildAdd(w->b, d0, o, "");
}

/* A tile wgmma can name: panels of 32, 64 or 128 bytes. */
static bool descriptor_tile(const smem_tile *t)
{
	return t->sl && t->sl->panel_bytes >= 32 && t->sl->panel_bytes <= 128;
}

/* The panel tile operand `which` of a dot (0: A [M, K], 1: B [K, N];
 * type ot) is staged in from registers x (xt, flip: lw_operand_regs):
 * MN-major (the instruction transposes it) where 16-bit registers run
 * along M or N, as a transpose's source or a row-major B holds them, so
 * that each run is one store; K-major otherwise (8-bit and tf32 operands
 * must be). */
static smem_layout *panel_layout(lw *w, int which, ir_type ot, const lval *x, ir_type xt, bool flip)
{
	smem_layout *sl = arena_alloc(w->a, sizeof *sl);
	if (!sl) {
		lw_oom(w);
		return NULL;
	}
	int eb = ir_kind_bytes((ir_kind)ot.kind);
	layout_map m = lw_map_of(x->l, xt);
	int mn = which ? 1 : 0;                  /* the operand's M or N dim */
	int mn_regs = flip ? 1 - mn : mn;        /* the same dim in the registers staged */
	bool mn_major = eb == 2 && (ot.shape[mn] * eb) % (which ? 32 : 128) == 0 &&
			layout_contig_regs(&m, mn_regs) > layout_contig_regs(&m, 1 - mn_regs);
	/* A's rows are M (transposed: K), B's K (transposed: N) */
	*sl = smem_layout_make(ot.shape[0], ot.shape[1], eb, which ? !mn_major : mn_major, true);
	return sl;
}

/* Operand `which`'s registers staged into a panel tile at the next
 * 1024-byte boundary past `scratch` (bytes past smem_top), after a
 * barrier where scratch is 0 (the op before may still read it); the
 * caller hands it to the async proxy. *end: how far into the scratch it
 * reaches. The B of a loop's flying dot (lower.c: flying_dot)
 * goes into one of two such tiles by the iteration's parity, without
 * waiting: the group the previous iteration left in flight reads the
 * other, and the one before it, which read this one, was waited for at
 * that iteration's end (wait_group 1), before the barrier here. */
static bool stage_panels(lw *w, const ir_op *op, int which, int64_t scratch, smem_tile *t, int64_t *end)
{
	ir_type xt;
	lval x;
	bool flip;
	if (!lw_operand_regs(w, op->args[which], &x, &xt, &flip))
		return false;
	smem_layout *sl = panel_layout(w, which, lw_vtype(w, op->args[which]), &x, xt, flip);
	if (!sl)
		return false;
	bool two = which == 1 && op == w->flying_dot && w->stage_parity;
	if (two)
		lw_scratch_unlift(w);
	else
		lw_smem_stage(w, 0); /* the groups reading the scratch done, its start where it was */
	int64_t at = (((int64_t)w->smem_top + scratch + 1023) & ~(int64_t)1023) - w->smem_top;
	int64_t span = two ? ((int64_t)sl->tile_bytes + 1023) & ~(int64_t)1023 : 0;
	*end = at + span + sl->tile_bytes;
	if (two)
		lw_smem_account(w, (uint64_t)*end);
	else
		lw_smem_stage(w, (uint64_t)*end);
	if (!scratch)
		lw_barrier(w);
	t->sl = sl;
	t->base = lw_ci32(w, (int64_t)w->smem_top + at);
	if (two) {
		w->stage_shift = LLVMBuildMul(w->b, w->stage_parity, lw_ci32(w, span), "");
		t->base = LLVMBuildAdd(w->b, t->base, w->stage_shift, "");
	}
	lw_stage_operand(w, &x, xt, flip, sl, at);
	w->stage_shift = NULL;
	return true;
}

bool lw_wgmma_keep(lw *w, const ir_op *op, int which, frag_cache *slot)
{
	int v = op->args[which], role = which ? LW_KEPT_WGMMA_B : LW_KEPT_WGMMA_A;
	bool flip;
	int src = lw_staged_from(w, v, &flip);
	const lval *have = &w->v[src];
	slot->value = -1;
	if (!w->p->keep_operands || lw_vtype(w, v).rank != 2 || !have->r || have->view)
		return true; /* computed in the loop, or read in place */
	if (!which && !flip && have->l && have->l->mma)
		return true; /* a chained dot's registers: A's fragments as they are */
	for (int i = 0; i < w->ncached; i++) { /* `tl.trans(k)` written twice: one tile */
		bool f;
		if (w->cached[i].which == role && lw_staged_from(w, w->cached[i].value, &f) == src && f == flip) {
			*slot = w->cached[i];
			slot->value = v;
			return true;
		}
	}
	smem_tile t = {0};
	int64_t end;
	if (!stage_panels(w, op, which, 0, &t, &end))
		return false;
	wgmma_sync(w, "fence.proxy.async.shared::cta;");
	lw_barrier(w);
	w->smem_top = w->smem_kept = w->smem_top + (uint32_t)end;
	w->kept_operands = true;
	*slot = (frag_cache){v, role, NULL, NULL, t, false, true};
	return true;
}

/* The widest wgmma N (a multiple of 8 up to 256) that divides n. */
static int instr_n(int64_t n)
{
	for (int k = 256; k >= 8; k -= 8)
		if (n % k == 0)
			return k;
	return 8;
}

bool lw_emit_dot_wgmma(lw *w, const ir_op *op, const layout *l, lval *out)
{
	ir_type at = lw_vtype(w, op->args[0]), ct = lw_vtype(w, op->results[0]);
	int64_t M = at.shape[0], K = at.shape[1], N = ct.shape[1];
	mma_kind mk = lw_mma_kind((ir_kind)at.kind, (ir_kind)ct.kind);
	lval c;
	if (!lw_get(w, op->args[2], l, &c))
		return false;
	layout_map mc = lw_map_of(l, ct);
	mma_tiles tl;
	if (!lw_mma_tiles(w, op, &mc, M, N, &tl))
		return false;
	int wm = l->warps_per_cta[0], wn = l->warps_per_cta[1];
	if ((wn > 1 && !l->warp_blocks) || wm % 4 || tl.nt != N / (8 * wn) || w->f->num_warps % 4)
		return lw_fail(w, op, TILEC_ERR_INVALID, "internal: a wgmma accumulator of %d x %d warps", wm, wn);

	/* A: a descriptor when its tile is in panels, else fragments */
	mma_operand A;
	int64_t sa = 0;
	const lval *ha = &w->v[op->args[0]];
	const smem_tile *kept;
	bool a_desc = ha->view && descriptor_tile(ha->view);
	if (a_desc) {
		memset(&A, 0, sizeof A);
		A.tile = *ha->view;
	} else if ((kept = lw_kept_tile(w, op->args[0], LW_KEPT_WGMMA_A))) {
		memset(&A, 0, sizeof A);
		A.tile = *kept;
		a_desc = true;
	} else if (!lw_operand_in_place(w, op, 0, &mc, &mk, &A)) {
		/* a transpose folded into its staging (attention backward's
		 * tl.trans(p)) is read by descriptor; other staged A (a load, a
		 * computed block) as fragments, through ldmatrix: by descriptor
		 * the 2048^3 matmul at one stage ran 4% slower */
		bool flip;
		lw_staged_from(w, op->args[0], &flip);
		if (flip ? !stage_panels(w, op, 0, 0, &A.tile, &sa) : !lw_mma_operand(w, op, 0, &mc, &mk, 0, &A, &sa))
			return false;
		a_desc = flip;
	}
	smem_tile B = {0};
	const lval *hb = &w->v[op->args[1]];
	int64_t sb = 0;
	if ((kept = lw_kept_tile(w, op->args[1], LW_KEPT_WGMMA_B))) {
		B = *kept;
	} else if (hb->view && descriptor_tile(hb->view)) {
		B = *hb->view;
	} else if (!stage_panels(w, op, 1, sa, &B, &sb)) {
		return false;
	}
	if (sa || sb) {
		wgmma_sync(w, "fence.proxy.async.shared::cta;");
		lw_barrier(w);
	}
	if (!lw_alloc_regs(w, out, mc.nregs, l))
		return false;
	/* an accumulator of zeros is not read: the first K step's
	 * instructions scale it by 0 (registers set to zeros after the fence
	 * would make ptxas wait for the group, C7519 below) */
	bool czero = true, int8 = mk.int8;
	for (int r = 0; r < mc.nregs; r++) {
		LLVMBool lossy;
		double x = LLVMIsAConstantFP(c.r[r]) ? LLVMConstRealGetDouble(c.r[r], &lossy) : 1.0;
		out->r[r] = c.r[r];
		if (int8)
			czero = czero && LLVMIsAConstantInt(c.r[r]) && LLVMConstIntGetZExtValue(c.r[r]) == 0;
		else
			czero = czero && x == 0.0 && !signbit(x);
	}
	/* int8 accumulates in s32 registers; its instruction has no scales */
	LLVMTypeRef acc_t = int8 ? w->i32 : w->f32;

	/* stored K-major (K contiguous) or transposed (MN-major); 8-bit
	 * operands are K-major and the instruction names no transpose */
	int ta = a_desc && A.tile.sl->transposed ? 1 : 0;
	int tb = B.sl->transposed ? 0 : 1;
	char trans[16] = "";
	if (mk.eb == 2 && a_desc)
		snprintf(trans, sizeof trans, ", %d, %d", ta, tb);
	else if (mk.eb == 2)
		snprintf(trans, sizeof trans, ", %d", tb);
	ir_kind bk = (ir_kind)lw_vtype(w, op->args[1]).kind;
	const char *bty = bk == IR_F8E4NV ? "e4m3" : bk == IR_F8E5 ? "e5m2" : mk.ab;
	int n = instr_n(N / wn), nchunks = (int)(N / wn / n), nd = n / 2;
	int nin = a_desc ? 1 : 4;
	/* {d}, a, b-desc, scale-d */
	strbuf text, cons;
	sb_init(&text);
	sb_init(&cons);
	const char *scales = int8 ? "" : ", 1, 1";
	sb_printf(&text, "{\n.reg .pred p;\nsetp.ne.b32 p, $%d, 0;\nwgmma.mma_async.sync.aligned.m64n%dk%d.%s.%s.%s {",
		  2 * nd + nin + 1, n, mk.kstep, int8 ? "s32" : "f32", mk.ab, bty);
	for (int i = 0; i < nd; i++)
		sb_printf(&text, "%s$%d", i ? "," : "", i);
	if (a_desc)
		sb_printf(&text, "}, $%d, $%d, p%s%s;\n}", 2 * nd, 2 * nd + 1, scales, trans);
	else
		sb_printf(&text, "}, {$%d,$%d,$%d,$%d}, $%d, p%s%s;\n}", 2 * nd, 2 * nd + 1, 2 * nd + 2, 2 * nd + 3,
			  2 * nd + 4, scales, trans);
	for (int i = 0; i < nd; i++)
		sb_printf(&cons, "%s=%s", i ? "," : "", int8 ? "r" : "f");
	for (int i = 0; i < nd; i++)
		sb_printf(&cons, ",%d", i);
	sb_printf(&cons, a_desc ? ",l,l,r" : ",r,r,r,r,l,r");
	LLVMTypeRef *ft = arena_alloc(w->a, sizeof(LLVMTypeRef) * (size_t)nd);
	LLVMValueRef *args = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)(nd + 8));
	LLVMValueRef *afr = arena_alloc(w->a, sizeof(LLVMValueRef) * 4 * (size_t)(tl.mt * (K / mk.kstep) + 1));
	if (!ft || !args || !afr) {
		sb_free(&text), sb_free(&cons);
		return lw_oom(w);
	}
	for (int i = 0; i < nd; i++)
		ft[i] = acc_t;
	LLVMTypeRef rt = LLVMStructTypeInContext(w->c, ft, (unsigned)nd, false);
	LLVMValueRef one = lw_ci32(w, 1);
	/* the warpgroup's first row: the 64-row block of the warp's first
	 * (four warps along M share one); its first column: the block of N
	 * its warps hold (tile 0's column) */
	LLVMValueRef wg_row = LLVMBuildAnd(w->b, tl.row[0], lw_ci32(w, ~63), "");
	LLVMValueRef wg_col = wn > 1 ? tl.col[0] : lw_ci32(w, 0);
	int nks = (int)(K / mk.kstep);
	/* one descriptor per tile; the instructions' operands are offsets from it */
	LLVMValueRef adesc0 = a_desc ? descriptor(w, A.tile.sl, A.tile.base) : NULL;
	LLVMValueRef bdesc0 = descriptor(w, B.sl, B.base), zero = lw_ci32(w, 0);
	/* A's fragments are all in registers before the fence: a register
	 * of a later instruction written between the wgmmas of a group makes
	 * ptxas wait for the ones issued (C7519, "warpgroup.arrive is
	 * injected") */
	if (!a_desc)
		for (int ks = 0; ks < nks; ks++)
			for (int i = 0; i < tl.mt; i++)
				lw_mma_a(w, &mk, &A, tl.row[i], i, ks, nks, &afr[4 * ((size_t)ks * tl.mt + i)]);
	lw_pp_dot(w, op, true);
	wgmma_sync(w, "wgmma.fence.sync.aligned;");
	for (int ks = 0; ks < nks; ks++)
		for (int i = 0; i < tl.mt; i++) {
			/* row tile i of every warp: the 64-row block at 16 wm i + 64 g */
			LLVMValueRef m0 = LLVMBuildAdd(w->b, wg_row, lw_ci32(w, (int64_t)16 * l->warps_per_cta[0] * i), "");
			LLVMValueRef adesc = NULL;
			const LLVMValueRef *a = &afr[4 * ((size_t)ks * tl.mt + i)];
			if (a_desc)
				adesc = descriptor_at(w, adesc0, lw_swizzled(w, A.tile.sl, zero, m0, lw_ci32(w, mk.kstep * ks)));
			for (int ch = 0; ch < nchunks; ch++) {
				LLVMValueRef col = LLVMBuildAdd(w->b, wg_col, lw_ci32(w, (int64_t)ch * n), "");
				LLVMValueRef bdesc =
					descriptor_at(w, bdesc0, lw_swizzled(w, B.sl, zero, lw_ci32(w, mk.kstep * ks), col));
				int na = 0;
				bool fresh = czero && ks == 0;
				for (int jj = 0; jj < n / 8; jj++)
					for (int q = 0; q < 4; q++)
						args[na++] = fresh ? LLVMGetUndef(acc_t)
								   : out->r[tl.reg[(i * tl.nt + ch * (n / 8) + jj) * 4 + q]];
				if (a_desc) {
					args[na++] = adesc;
				} else {
					for (int q = 0; q < 4; q++)
						args[na++] = a[q];
				}
				args[na++] = bdesc;
				args[na++] = fresh ? zero : one;
				LLVMValueRef d = lw_asm_call(w, rt, sb_str(&text), sb_str(&cons), args, na, true);
				int k = 0;
				for (int jj = 0; jj < n / 8; jj++)
					for (int q = 0; q < 4; q++)
						out->r[tl.reg[(i * tl.nt + ch * (n / 8) + jj) * 4 + q]] =
							LLVMBuildExtractValue(w->b, d, (unsigned)k++, "");
			}
		}
	wgmma_sync(w, "wgmma.commit_group.sync.aligned;");
	lw_pp_dot(w, op, false);
	w->wgmma_pending = op->results[0];
	if (sa || sb) {
		uint32_t top = w->smem_top + (uint32_t)(sb > sa ? sb : sa);
		w->wgmma_scratch = true;
		if (top > w->wgmma_staged_top)
			w->wgmma_staged_top = top;
	}
	w->arch_specific = true;
	sb_free(&text);
	sb_free(&cons);
	return true;
}

/* wait_group 0 with the pending result's registers tied through it: what
 * reads them comes after the wait. */
void lw_wgmma_wait(lw *w)
{
	lw_wgmma_wait_for(w, w->wgmma_pending, 0);
}

void lw_wgmma_wait_for(lw *w, int v, int groups)
{
	/* the values whose registers the groups it completes write: v's, and
	 * an older group's (groups complete in order, so a wait for a later
	 * one completes it too) */
	lval *x[2];
	int nx = 0, n = 0;
	if (v >= 0)
		x[nx++] = &w->v[v];
	if (w->wgmma_older >= 0 && w->wgmma_older != v)
		x[nx++] = &w->v[w->wgmma_older];
	w->wgmma_pending = w->wgmma_older = -1;
	w->wgmma_phantom = false; /* older than any group a wait leaves running */
	if (!groups) {
		w->wgmma_scratch = false;
		w->wgmma_staged_top = 0;
	}
	for (int k = 0; k < nx; k++)
		n += x[k]->n;
	strbuf text, cons;
	sb_init(&text);
	sb_init(&cons);
	sb_printf(&text, "// %d registers\nwgmma.wait_group.sync.aligned %d;", n, groups);
	if (!n) { /* a group no value names (the previous iteration's): nothing to tie */
		lw_asm_call(w, w->vd, sb_str(&text), "~{memory}", NULL, 0, true);
		sb_free(&text);
		sb_free(&cons);
		return;
	}
	LLVMTypeRef *ft = arena_alloc(w->a, sizeof(LLVMTypeRef) * (size_t)(n + 1));
	LLVMValueRef *in = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)(n + 1));
	if (!ft || !in) {
		sb_free(&text), sb_free(&cons);
		lw_oom(w);
		return;
	}
	for (int k = 0, i = 0; k < nx; k++)
		for (int r = 0; r < x[k]->n; r++, i++) {
			in[i] = x[k]->r[r];
			ft[i] = LLVMTypeOf(in[i]); /* f32, or an int8 dot's s32 */
			sb_printf(&cons, "%s=%s", i ? "," : "", ft[i] == w->i32 ? "r" : "f");
		}
	for (int i = 0; i < n; i++)
		sb_printf(&cons, ",%d", i);
	LLVMTypeRef st = LLVMStructTypeInContext(w->c, ft, (unsigned)n, false);
	LLVMValueRef d = lw_asm_call(w, st, sb_str(&text), sb_str(&cons), in, n, true);
	for (int k = 0, i = 0; k < nx; k++)
		for (int r = 0; r < x[k]->n; r++, i++)
			x[k]->r[r] = LLVMBuildExtractValue(w->b, d, (unsigned)i, "");
	sb_free(&text);
	sb_free(&cons);
}
