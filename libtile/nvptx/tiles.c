/* tiles.c - 2-D tiles in shared memory: the swizzled layout's addresses,
 * rings of tiles, the asynchronous copies that fill them, reads out of them.
 *
 * A tile is stored as rows along its contiguous dim (smem_layout, chosen by
 * analysis/layout.c) with its 16-byte chunks XOR-swizzled by row, so that
 * the 8 rows one ldmatrix phase or one column of 16-byte copies touches
 * fall in distinct banks and no padding is needed. A ring (LOCAL_ALLOC) is
 * num_stages such tiles pushed on the shared-memory stack before a
 * pipelined loop (and popped by LOCAL_DEALLOC after it); ASYNC_COPY fills
 * tile `slot` with cp.async of 16 bytes (.cg) or 4 and 8 (.ca) per group
 * of registers, zero-filling where the mask is off through the ignore-src
 * predicate; pieces under 4 bytes are loaded at once instead, addressed
 * so that the loop keeps no pointer an element (a run from its first
 * element, a carried block from its first element and invariant offsets:
 * carried_offsets), and stored up to 16 bytes at a time; under a mask
 * of many predicates they are copied unmasked when all of them hold (a K
 * loop's full tiles), under their predicates otherwise. LOCAL_LOAD
 * leaves a tile in place for the tensor-core dots that read it (a view:
 * dot_mma.c reads its fragments with ldmatrix) or loads it into registers
 * for any other use.
 */
#include "nvptx/lower.h"

#include <stdio.h>

static int ilog2_32(int v)
{
	int n = 0;
	while (n < 30 && (1 << (n + 1)) <= v)
		n++;
	return n;
}

/* Byte offset (i32) of element (row, col) of a tile laid out by sl at
 * byte `base`: the panel, the row of the stored tile in it, then its
 * 16-byte chunk XOR-ed with the row's phase. */
LLVMValueRef lw_swizzled(lw *w, const smem_layout *sl, LLVMValueRef base, LLVMValueRef row, LLVMValueRef col)
{
	if (sl->transposed) {
		LLVMValueRef t = row;
		row = col;
		col = t;
	}
	LLVMValueRef byte = LLVMBuildMul(w->b, col, lw_ci32(w, sl->elem_bytes), "");
	LLVMValueRef chunk = LLVMBuildLShr(w->b, byte, lw_ci32(w, 4), "");
	if (sl->max_phase > 1) {
		LLVMValueRef phase = LLVMBuildLShr(w->b, row, lw_ci32(w, ilog2_32(sl->per_phase)), "");
		phase = LLVMBuildAnd(w->b, phase, lw_ci32(w, sl->max_phase - 1), "");
		if (sl->phase_mix) {
			/* smem_layout_phase */
			LLVMValueRef up = LLVMBuildShl(w->b, phase, lw_ci32(w, sl->phase_mix), "");
			phase = LLVMBuildAnd(w->b, LLVMBuildXor(w->b, phase, up, ""), lw_ci32(w, sl->max_phase - 1), "");
		}
		if (sl->phase_shift)
			phase = LLVMBuildShl(w->b, phase, lw_ci32(w, sl->phase_shift), "");
		chunk = LLVMBuildXor(w->b, chunk, phase, "");
	}
	int pb = sl->panel_bytes;
	LLVMValueRef panel = NULL;
	if (pb < sl->row_bytes) {
		/* the panel, and the chunk within it (pb is a power of two) */
		panel = LLVMBuildLShr(w->b, byte, lw_ci32(w, ilog2_32(pb)), "");
		chunk = LLVMBuildAnd(w->b, chunk, lw_ci32(w, pb / 16 - 1), "");
	}
	LLVMValueRef off = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, row, lw_ci32(w, pb), ""),
					LLVMBuildShl(w->b, chunk, lw_ci32(w, 4), ""), "");
	if (panel)
		off = LLVMBuildAdd(w->b, off, LLVMBuildMul(w->b, panel, lw_ci32(w, (int64_t)sl->rows * pb), ""), "");
	if (sl->elem_bytes < 16)
		off = LLVMBuildAdd(w->b, off, LLVMBuildAnd(w->b, byte, lw_ci32(w, 15), ""), "");
	return LLVMBuildAdd(w->b, base, off, "");
}

/* Offsets computed in full, for tile_offset to derive others from: up to
 * `max` of them. Copies of pieces under 4 bytes keep OFFSET_ANCHORS (one a
 * row phase: 16 times fewer swizzles for B's 2-byte stores in the 4095³
 * matmul); the other accesses register 0's alone, as measured before. */
enum { OFFSET_ANCHORS = 16 };
typedef struct offset_anchors {
	int n, max;
	int reg[OFFSET_ANCHORS];
	LLVMValueRef off[OFFSET_ANCHORS];
} offset_anchors;

/* The byte offset of register r's element in a tile laid out by sl at
 * byte `base` (a 3-D value: one tile per index of its dim 0, smem_tile_stride
 * apart): an earlier register's in *an plus a constant where the swizzle
 * allows (registers a whole swizzle period of rows apart), so a thread
 * computes the swizzle's arithmetic once per row phase, not per access. */
static LLVMValueRef tile_offset(lw *w, const layout_map *m, ir_type t, const smem_layout *sl, LLVMValueRef base, int r,
				offset_anchors *an)
{
	int rr = t.rank - 2, rc = t.rank - 1; /* the tile's rows and columns in the value */
	int32_t ca[IR_MAX_RANK], cr[IR_MAX_RANK];
	layout_reg_coords(m, r, cr);
	for (int i = 0; i < an->n; i++) {
		int64_t delta;
		layout_reg_coords(m, an->reg[i], ca);
		if (!smem_layout_delta(sl, cr[m->dim_of[rr]] - ca[m->dim_of[rr]], cr[m->dim_of[rc]] - ca[m->dim_of[rc]], &delta))
			continue;
		if (t.rank == 3)
			delta += (int64_t)(cr[m->dim_of[0]] - ca[m->dim_of[0]]) * smem_tile_stride(sl);
		return LLVMBuildAdd(w->b, an->off[i], lw_ci32(w, delta), "");
	}
	LLVMValueRef cc[IR_MAX_RANK];
	lw_reg_coords(w, m, t.rank, r, cc);
	if (t.rank == 3)
		base = LLVMBuildAdd(w->b, base, LLVMBuildMul(w->b, cc[0], lw_ci32(w, smem_tile_stride(sl)), ""), "");
	LLVMValueRef off = lw_swizzled(w, sl, base, cc[rr], cc[rc]);
	if (an->n < an->max) {
		an->reg[an->n] = r;
		an->off[an->n++] = off;
	}
	return off;
}

/* Registers r .. r+n-1 as one access of n storage elements at p. */
static void store_run(lw *w, const lval *x, int r, int n, ir_kind k, LLVMValueRef p, int align)
{
	LLVMValueRef v = lw_to_storage(w, x->r[r], k);
	if (n > 1) {
		v = LLVMGetUndef(LLVMVectorType(lw_stype(w, k), (unsigned)n));
		for (int i = 0; i < n; i++)
			v = LLVMBuildInsertElement(w->b, v, lw_to_storage(w, x->r[r + i], k), lw_ci32(w, i), "");
	}
	LLVMSetAlignment(LLVMBuildStore(w->b, v, p), (unsigned)align);
}

static void load_run(lw *w, lval *x, int r, int n, ir_kind k, LLVMValueRef p, int align)
{
	LLVMTypeRef st = lw_stype(w, k);
	LLVMValueRef v = LLVMBuildLoad2(w->b, n > 1 ? LLVMVectorType(st, (unsigned)n) : st, p, "");
	LLVMSetAlignment(v, (unsigned)align);
	for (int i = 0; i < n; i++)
		x->r[r + i] = lw_from_storage(w, n > 1 ? LLVMBuildExtractElement(w->b, v, lw_ci32(w, i), "") : v, k);
}

/* The panel of sl that register r of m holds an element of in every
 * thread, or -1 where threads' elements of it lie in different panels: the
 * thread's part of the column spans at most (lanes - 1) * lane_scale +
 * (warps - 1) * warp_scale past the register's. */
static int reg_panel(const layout_map *m, ir_type t, const smem_layout *sl, int r)
{
	int d = m->dim_of[t.rank - 1];
	int32_t cc[IR_MAX_RANK];
	layout_reg_coords(m, r, cc);
	layout_field fl = layout_dim_field(m, d);
	int64_t span = (int64_t)(fl.lanes - 1) * fl.lane_scale + (int64_t)(fl.warps - 1) * fl.warp_scale;
	if (span > m->shape[d] - 1)
		span = m->shape[d] - 1;
	int64_t cols = sl->panel_bytes / sl->elem_bytes;
	return cc[d] / cols == (cc[d] + span) / cols ? (int)(cc[d] / cols) : -1;
}

bool lw_panels_apart(const lval *x, ir_type t, const smem_layout *sl)
{
	if (t.rank != 2 || sl->transposed)
		return false;
	layout_map m = lw_map_of(x->l, t);
	for (int r = 0; r < x->n; r++)
		if (reg_panel(&m, t, sl, r) < 0)
			return false;
	return true;
}

/* count 0: every panel (lw_stage_tile) */
void lw_stage_panels(lw *w, const lval *x, ir_type t, const smem_layout *sl, int64_t base, int first, int count)
{
	layout_map m = lw_map_of(x->l, t);
	ir_kind k = (ir_kind)t.kind;
	int vec = smem_access_run(&m, t, sl, x->n);
	offset_anchors an = {.max = 1};
	/* the tile's origin, so that panel `first` lands at base */
	int64_t origin = base - (int64_t)first * sl->rows * sl->panel_bytes;
	LLVMValueRef own = lw_owner(w, &m), b = lw_ci32(w, (int64_t)w->smem_top + origin);
	if (w->stage_shift) /* a flying dot's B: the tile of the iteration's parity */
		b = LLVMBuildAdd(w->b, b, w->stage_shift, "");
	LLVMBasicBlockRef join = own ? lw_begin_if(w, own) : NULL;
	for (int r = 0; r < x->n; r += vec) {
		int p = count ? reg_panel(&m, t, sl, r) : first;
		if (p < first || (count && p >= first + count))
			continue;
		store_run(w, x, r, vec, k, lw_smem_at(w, tile_offset(w, &m, t, sl, b, r, &an)), vec * sl->elem_bytes);
	}
	if (join)
		lw_end_if(w, join);
}

void lw_stage_tile(lw *w, const lval *x, ir_type t, const smem_layout *sl, int64_t base)
{
	lw_stage_panels(w, x, t, sl, base, 0, 0);
}

bool lw_read_tile(lw *w, lval *out, const layout *l, ir_type t, const smem_layout *sl, LLVMValueRef base)
{
	layout_map m = lw_map_of(l, t);
	ir_kind k = (ir_kind)t.kind;
	if (!lw_alloc_regs(w, out, m.nregs, l))
		return false;
	int vec = smem_access_run(&m, t, sl, m.nregs);
	offset_anchors an = {.max = 1};
	for (int r = 0; r < m.nregs; r += vec)
		load_run(w, out, r, vec, k, lw_smem_at(w, tile_offset(w, &m, t, sl, base, r, &an)), vec * sl->elem_bytes);
	return true;
}

/* ---- rings of tiles and asynchronous copies (passes/pipeline.c) ---- */

bool lw_emit_local_alloc(lw *w, const ir_op *op)
{
	int ring = op->results[0];
	const smem_layout *sl = w->p->ring[ring];
	if (!sl)
		return lw_fail(w, op, TILEC_ERR_INVALID, "internal: ring %%%d has no layout", ring);
	/* the ring may cover scratch that threads read just before */
	lw_barrier(w);
	/* the swizzle repeats every 128 bytes; wgmma reads it and TMA writes
	 * it (a ring with barriers) by the address's bits, whose pattern
	 * repeats every 1024 */
	uint32_t barriers = lw_tma_barrier_bytes(w, ring);
	uint32_t align = w->p->unit == DOT_UNIT_WGMMA || barriers ? 1024 : 128;
	uint32_t at = (w->smem_top + align - 1) & ~(align - 1);
	w->ring_at[ring] = at;
	/* scratch above the ring is read and written 16 bytes at a time
	 * (st.shared.v4, ldmatrix): an odd number of 8-byte barriers must
	 * not leave it 8 bytes off */
	w->smem_top = (at + (uint32_t)lw_vtype(w, ring).shape[0] * sl->tile_bytes + barriers + 15) & ~15u;
	lw_smem_stage(w, 0);
	lw_tma_ring_pushed(w, ring);
	return true;
}

/* The byte offset of tile `slot` of a ring. */
static LLVMValueRef ring_tile(lw *w, int ring, LLVMValueRef slot)
{
	LLVMValueRef off = LLVMBuildMul(w->b, slot, lw_ci32(w, w->p->ring[ring]->tile_bytes), "");
	return LLVMBuildAdd(w->b, off, lw_ci32(w, w->ring_at[ring]), "");
}

/* The FOR op whose body has parameter v, its index in *k; NULL if none. */
static const ir_op *loop_of_param(const ir_region *r, int v, int *k)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int g = 0; g < op->nregions; g++) {
			const ir_region *b = &op->regions[g];
			for (int p = 0; op->code == IR_OP_FOR && p < b->nparams; p++)
				if (b->params[p] == v) {
					*k = p;
					return op;
				}
			const ir_op *in = loop_of_param(b, v, k);
			if (in)
				return in;
		}
	}
	return NULL;
}

/* A block whose elements are all equal: a splat, a constant, or one
 * broadcast from such a block. */
static bool uniform_block(const ir_func *f, int v)
{
	const ir_op *d = f->values[v].def;
	while (d && (d->code == IR_OP_BROADCAST || d->code == IR_OP_EXPAND_DIMS))
		d = f->values[d->args[0]].def;
	return d && (d->code == IR_OP_SPLAT || d->code == IR_OP_CONST);
}

/* The i32 offsets of a loop-carried pointer block that starts as a
 * scalar pointer plus those offsets and only ever moves by uniform
 * amounts, before and in the loop; -1 where it is not one. Each element
 * is then the block's first plus the difference of their offsets. */
static int carried_offsets(const ir_func *f, int ptr)
{
	int k;
	const ir_op *loop = loop_of_param(&f->body, ptr, &k);
	if (!loop || k == 0)
		return -1;
	const ir_region *body = &loop->regions[0];
	const ir_op *yield = body->nops ? body->ops[body->nops - 1] : NULL;
	const ir_op *next = yield && k - 1 < yield->nargs ? f->values[yield->args[k - 1]].def : NULL;
	if (!next || next->code != IR_OP_PTR_ADD || next->args[0] != ptr || !uniform_block(f, next->args[1]))
		return -1;
	int v = loop->args[3 + k - 1];
	for (int depth = 0; depth < 64; depth++) {
		const ir_op *d = f->values[v].def;
		if (!d || d->code != IR_OP_PTR_ADD)
			return -1;
		const ir_op *b = f->values[d->args[0]].def;
		if (b && b->code == IR_OP_SPLAT)
			return f->values[d->args[1]].type.kind == IR_I32 ? d->args[1] : -1;
		if (!uniform_block(f, d->args[1]))
			return -1;
		v = d->args[0];
	}
	return -1;
}

/* Whether value v is computed again in any layout, or held in m's. */
static bool in_copy_layout(lw *w, int v, const layout_map *m)
{
	if (w->p->remat[v])
		return true;
	if (!w->v[v].r)
		return false;
	layout_map mv = lw_map_of(w->v[v].l, lw_vtype(w, v));
	return layout_map_eq(&mv, m);
}

/* How a copy addresses its pieces under 4 bytes: registers of one
 * contiguous run (`run` long) from the run's first element, so the other
 * pointers die and a loop carries one a run, not one an element; and
 * where the block is carried as carried_offsets says, from `origin` (its
 * first element less that element's offset) plus each run's offset, or
 * plus the offset's row and column parts where it is their sum
 * (`rows[:, None] * stride + cols[None, :]`: a thread then holds its rows
 * and its columns, not their sums). */
typedef struct piece_addresses {
	int run;
	LLVMValueRef origin;
	lval offs, part[2];
	bool parts;
} piece_addresses;

static bool address_pieces(lw *w, const ir_op *op, const layout *cl, const layout_map *m, int cd, int contig,
			   int eb, const lval *ptr, piece_addresses *pa)
{
	*pa = (piece_addresses){.run = 1};
	int64_t c = w->ai[op->args[2]].contiguity[cd];
	while (pa->run * 2 <= contig && pa->run * 2 <= c)
		pa->run *= 2;
	int offs = carried_offsets(w->f, op->args[2]);
	if (offs < 0 || !in_copy_layout(w, offs, m))
		return true; /* moving the offsets into the copy's layout would cost more */
	const ir_op *sum = w->f->values[offs].def;
	pa->parts = sum && sum->code == IR_OP_ADD && lw_vtype(w, offs).rank == 2;
	for (int i = 0; pa->parts && i < 2; i++) {
		const ir_op *b = w->f->values[sum->args[i]].def;
		pa->parts = b && b->code == IR_OP_BROADCAST && in_copy_layout(w, sum->args[i], m);
	}
	for (int i = 0; pa->parts && i < 2; i++)
		if (!lw_get(w, sum->args[i], cl, &pa->part[i]))
			return false;
	if (!lw_get(w, offs, cl, &pa->offs))
		return false;
	LLVMValueRef o = LLVMBuildSExt(w->b, pa->offs.r[0], w->i64, "");
	o = LLVMBuildNeg(w->b, LLVMBuildMul(w->b, o, LLVMConstInt(w->i64, (unsigned)eb, false), ""), "");
	pa->origin = LLVMBuildGEP2(w->b, w->i8, ptr->r[0], &o, 1, "");
	return true;
}

static lw_address piece_at(const piece_addresses *pa, const lval *ptr, int q, int eb)
{
	int r0 = q - q % pa->run, off = q % pa->run * eb;
	if (pa->origin && pa->parts)
		return (lw_address){pa->origin, pa->part[0].r[r0], pa->part[1].r[r0], off};
	if (pa->origin)
		return (lw_address){pa->origin, pa->offs.r[r0], NULL, off};
	return (lw_address){ptr->r[r0], NULL, NULL, off};
}

/* The copy of one ring tile's registers to its slot at base: cp.async per
 * register group of 4 bytes or more, else pieces loaded and stored
 * `group` registers at a time; under mask's predicates unless NULL.
 * `asm_loads` (the unmasked path of a masked copy) and 1-byte pieces are
 * still loaded one by one in asm, under a true predicate: as plain loads,
 * LLVM merges a run of 16 into one `load <16 x i8>, align 1`, which LLVM
 * 19's NVPTX back end emits as `ld.global.v4.u32` whatever the alignment
 * (fp8 rows 70 bytes apart: misaligned 16-byte loads on the GPU). */
static void copy_to_slot(lw *w, const layout_map *m, ir_type pt, const smem_layout *sl, LLVMValueRef base,
			 const lval *ptr, const lval *mask, bool asm_loads, const piece_addresses *pa, int group,
			 int vec, int bytes, ir_kind k)
{
	int eb = sl->elem_bytes;
	LLVMValueRef always = asm_loads || eb == 1 ? LLVMConstInt(w->i1, 1, false) : NULL;
	offset_anchors an = {.max = bytes < 4 ? OFFSET_ANCHORS : 1};
	for (int r = 0; r < ptr->n; r += group) {
		/* registers r .. r+group-1 run along the stored rows */
		LLVMValueRef dst = lw_smem_at(w, tile_offset(w, m, pt, sl, base, r, &an));
		if (bytes >= 4) {
			/* inline PTX (LLVM 19 has no intrinsic for 32-bit shared
			 * pointers); masked off, the ignore-src predicate zero-fills */
			char text[96];
			snprintf(text, sizeof text, "cp.async.%s.shared.global [$0], [$1], %d%s;", bytes == 16 ? "cg" : "ca", bytes,
				 mask ? ", $2" : "");
			LLVMValueRef args[3] = {LLVMBuildPtrToInt(w->b, dst, w->i32, ""), ptr->r[r],
						mask ? LLVMBuildNot(w->b, mask->r[r], "") : NULL};
			lw_asm_call(w, w->vd, text, mask ? "r,l,b" : "r,l", args, mask ? 3 : 2, true);
			continue;
		}
		LLVMValueRef elems[16] = {0}, zeros[16];
		for (int i = 0; i < vec; i++)
			zeros[i] = LLVMConstNull(lw_stype(w, k));
		for (int q = r; q < r + group; q += vec)
			lw_load_vector(w, piece_at(pa, ptr, q, eb), mask ? mask->r[q] : always, vec, k, mask ? zeros : NULL,
				       LW_FILL_AFTER_ELEMS, false, elems + (q - r));
		LLVMValueRef x = elems[0];
		if (group > 1) {
			x = LLVMGetUndef(LLVMVectorType(lw_stype(w, k), (unsigned)group));
			for (int i = 0; i < group; i++)
				x = LLVMBuildInsertElement(w->b, x, elems[i], lw_ci32(w, i), "");
		}
		LLVMSetAlignment(LLVMBuildStore(w->b, x, dst), (unsigned)(group * eb));
	}
}

/* A copy of at least this many pieces under a mask gets an unmasked path */
enum { PIECES_TWO_PATHS = 16 };

/* cp.async of 4, 8 or 16 bytes per register group, zero-filling where the
 * mask is off (source size 0); pieces under 4 bytes (elements that are not
 * contiguous in memory, or not aligned) are loaded at once (address_pieces)
 * and stored together: the layout's consecutive registers along the stored
 * rows, up to 16 bytes, lie side by side in one swizzled chunk. */
bool lw_emit_async_copy(lw *w, const ir_op *op)
{
	int ring = op->args[0];
	const smem_layout *sl = w->p->ring[ring];
	const layout *cl = w->p->copy[ring];
	if (!sl || !cl)
		return lw_fail(w, op, TILEC_ERR_INVALID, "internal: ring %%%d has no layout", ring);
	ir_type pt = lw_vtype(w, op->args[2]);
	ir_kind k = (ir_kind)pt.pointee;
	bool has_mask = op->flags & IR_FLAG_HAS_MASK;
	lval slot, ptr, mask = {0};
	if (!lw_get(w, op->args[1], NULL, &slot) || !lw_get(w, op->args[2], cl, &ptr) ||
	    (has_mask && !lw_get(w, op->args[3], cl, &mask)))
		return false;
	layout_map m = lw_map_of(cl, pt);
	int cd = sl->transposed ? 0 : 1;
	int vec = axis_vector_width_dim(w->f, w->ai, op->args[2], has_mask ? op->args[3] : -1, cd);
	int contig = layout_contig_regs(&m, m.dim_of[cd]);
	if (vec > contig)
		vec = contig;
	int eb = sl->elem_bytes, bytes = vec * eb;
	piece_addresses pa = {.run = 1};
	if (bytes < 4 && !address_pieces(w, op, cl, &m, cd, contig, eb, &ptr, &pa))
		return false;
	int group = vec; /* registers a store of pieces covers */
	while (bytes < 4 && group * 2 <= contig && group * 2 * eb <= 16)
		group *= 2;
	LLVMValueRef base = ring_tile(w, ring, slot.r[0]);
	LLVMValueRef own = lw_owner(w, &m);
	LLVMBasicBlockRef join = own ? lw_begin_if(w, own) : NULL;
	/* Pieces under a mask of many predicates are copied twice over: once
	 * unmasked, taken when every predicate of the thread holds (a K loop's
	 * full tiles: the bound checks of constant offsets against one bound
	 * fold into one), else under their predicates. The loop then runs
	 * neither the per-piece checks nor the selects of zeros. */
	LLVMValueRef all = NULL;
	if (has_mask && bytes < 4 && ptr.n / vec >= PIECES_TWO_PATHS)
		for (int q = 0; q < ptr.n; q += vec)
			all = !all ? mask.r[q] : mask.r[q] == mask.r[q - vec] ? all : LLVMBuildAnd(w->b, all, mask.r[q], "");
	LLVMBasicBlockRef unmasked = all ? lw_begin_if(w, all) : NULL;
	copy_to_slot(w, &m, pt, sl, base, &ptr, has_mask && !all ? &mask : NULL, all != NULL, &pa, group, vec, bytes, k);
	if (unmasked) {
		lw_end_if(w, unmasked);
		unmasked = lw_begin_if(w, LLVMBuildNot(w->b, all, ""));
		copy_to_slot(w, &m, pt, sl, base, &ptr, &mask, false, &pa, group, vec, bytes, k);
		lw_end_if(w, unmasked);
	}
	if (join)
		lw_end_if(w, join);
	return true;
}

/* A tile of a ring: left in shared memory for the dots that read it (a
 * view), or loaded into registers of layout l. */
bool lw_view(lw *w, lval *out, const layout *l, LLVMValueRef base, const smem_layout *sl)
{
	smem_tile *t = arena_alloc(w->a, sizeof *t);
	if (!t || !lw_alloc_regs(w, out, 0, l))
		return lw_oom(w);
	t->base = base;
	t->sl = sl;
	out->view = t;
	return true;
}

bool lw_view_of(lw *w, lval *out, const layout *l, const smem_tile *from, bool flip, bool cast, ir_kind stored)
{
	smem_layout *sl = arena_alloc(w->a, sizeof *sl);
	if (!sl)
		return lw_oom(w);
	*sl = *from->sl;
	sl->transposed ^= flip;
	if (!lw_view(w, out, l, from->base, sl))
		return false;
	smem_tile *t = (smem_tile *)out->view;
	t->converts = from->converts || cast;
	t->stored = from->converts ? from->stored : stored;
	return true;
}

bool lw_emit_local_load(lw *w, const ir_op *op, const layout *l, lval *out)
{
	int ring = op->args[0], res = op->results[0];
	const smem_layout *sl = w->p->ring[ring];
	lval slot;
	if (!sl)
		return lw_fail(w, op, TILEC_ERR_INVALID, "internal: ring %%%d has no layout", ring);
	if (!lw_get(w, op->args[1], NULL, &slot))
		return false;
	LLVMValueRef base = ring_tile(w, ring, slot.r[0]);
	if (w->p->view[res])
		return lw_view(w, out, l, base, sl);
	return lw_read_tile(w, out, l, lw_vtype(w, res), sl, base);
}
