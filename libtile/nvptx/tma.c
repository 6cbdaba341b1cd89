/* tma.c - rings that the copy engine fills through a tensor map (TMA).
 *
 * passes/pipeline.c gives a descriptor block that only dots read a ring
 * flagged IR_FLAG_TENSORMAP where the target has TMA (sm_90a's wgmma, and
 * mma.sync from sm_90 on: compile.c's family_tma). Such a ring has a
 * barrier (an mbarrier object, 8 bytes) per tile after its tiles, which
 * thread 0 initializes for one arrival when the ring is pushed and
 * invalidates when it is popped. TMA_COPY: thread 0 announces the tile's
 * bytes on its slot's barrier (arrive.expect_tx) and issues one bulk
 * tensor copy per panel of the tile, the map's box (ir_tensormap_box); the
 * engine zero-fills what lies outside the tensor and completes the bytes
 * on the barrier, so the tile's phase ends when all of it has landed.
 * TMA_WAIT: every thread polls the barrier until the phase of the given
 * parity is over. analysis/layout.c lays the tile out as the box lands
 * (rows along the contiguous dim, panels of the swizzle width, the same
 * XOR of 16-byte chunks by row), so the dots read it as they read a ring
 * that cp.async filled. The kernel receives each map by value, a
 * 128-byte grid constant (lower.c), and names it by its generic address.
 * A 2-D descriptor store is staged in scratch and written by thread 0
 * with bulk tensor stores; the engine reads the scratch asynchronously,
 * so the next use of scratch (lw_smem_need), the kernel's end, and every
 * path into it (a loop's body and exit, lower.c) first wait for the
 * reads (bulk_pending), instead of each store waiting at once. Where the
 * whole tile's scratch would pass the block's shared memory (a persistent
 * kernel's rings kept through its epilogue), the tile goes out a few
 * panels at a time through the scratch that fits, each piece staged once
 * the engine has read the one before.
 */
#include "nvptx/lower.h"

#include <stdio.h>

static bool is_tma_ring(const lw *w, int ring)
{
	const ir_op *d = w->f->values[ring].def;
	return d && d->code == IR_OP_LOCAL_ALLOC && d->flags & IR_FLAG_TENSORMAP;
}

/* The byte offset of the barrier of tile `slot` (NULL: of tile 0); with
 * `empty`, of its second barrier, on which a warp-specialized kernel's
 * consumers release the tile (warpspec.c). */
static LLVMValueRef barrier_at(lw *w, int ring, LLVMValueRef slot, bool empty)
{
	uint32_t tiles = (uint32_t)lw_vtype(w, ring).shape[0];
	uint32_t first = w->ring_at[ring] + tiles * w->p->ring[ring]->tile_bytes + (empty ? 8 * tiles : 0);
	LLVMValueRef off = lw_ci32(w, first);
	if (slot)
		off = LLVMBuildAdd(w->b, off, LLVMBuildMul(w->b, slot, lw_ci32(w, 8), ""), "");
	return off;
}

/* A shared-memory byte offset as the 32-bit address PTX takes. */
static LLVMValueRef smem_address(lw *w, LLVMValueRef off)
{
	return LLVMBuildPtrToInt(w->b, lw_smem_at(w, off), w->i32, "");
}

static LLVMValueRef thread_zero(lw *w)
{
	return LLVMBuildICmp(w->b, LLVMIntEQ, w->tid, lw_ci32(w, 0), "");
}

/* The thread that issues the copies: the producer's first, or thread 0. */
static LLVMValueRef copier(lw *w)
{
	int first = w->ws_role == LW_WS_PRODUCER ? 32 * w->f->num_warps : 0;
	return LLVMBuildICmp(w->b, LLVMIntEQ, w->tid, lw_ci32(w, first), "");
}

uint32_t lw_tma_barrier_bytes(const lw *w, int ring)
{
	return is_tma_ring(w, ring) ? (w->ws_loop ? 16u : 8u) * (uint32_t)lw_vtype(w, ring).shape[0] : 0;
}

void lw_tma_ring_pushed(lw *w, int ring)
{
	if (!is_tma_ring(w, ring))
		return;
	/* the copy engine may write where ordinary stores wrote before (an
	 * earlier tile's epilogue): each thread hands its stores over first */
	lw_asm_call(w, w->vd, "fence.proxy.async.shared::cta;", "", NULL, 0, true);
	LLVMBasicBlockRef join = lw_begin_if(w, thread_zero(w));
	char empty[64];
	snprintf(empty, sizeof empty, "mbarrier.init.shared::cta.b64 [$0], %d;", w->f->num_warps);
	for (int s = 0; s < lw_vtype(w, ring).shape[0]; s++) {
		LLVMValueRef bar = smem_address(w, barrier_at(w, ring, lw_ci32(w, s), false));
		lw_asm_call(w, w->vd, "mbarrier.init.shared::cta.b64 [$0], 1;", "r", &bar, 1, true);
		/* a slot is released by each consumer warp */
		if (w->ws_loop) {
			bar = smem_address(w, barrier_at(w, ring, lw_ci32(w, s), true));
			lw_asm_call(w, w->vd, empty, "r", &bar, 1, true);
		}
	}
	/* the copy engine completes bytes on them: the inits must reach it */
	lw_asm_call(w, w->vd, "fence.mbarrier_init.release.cluster;", "", NULL, 0, true);
	lw_end_if(w, join);
	lw_barrier(w);
}

void lw_tma_ring_popped(lw *w, int ring)
{
	if (!is_tma_ring(w, ring))
		return;
	/* a warp-specialized kernel's two sides meet again as the first ring
	 * is popped (they set the rings up together before they split): the
	 * producer's last accesses to the barriers come before they are put
	 * away and their memory is used again */
	if (w->ws_loop && lw_ws_ring(w, ring) && w->ws_popped++ == 0)
		lw_barrier_all(w);
	if (w->ws_role == LW_WS_PRODUCER)
		return;
	/* every thread waited for every copy before (ASYNC_WAIT 0's barrier);
	 * the memory serves other uses only once the objects are invalid */
	LLVMBasicBlockRef join = lw_begin_if(w, thread_zero(w));
	for (int s = 0; s < lw_vtype(w, ring).shape[0]; s++)
		for (int e = 0; e <= (w->ws_loop != NULL); e++) {
			LLVMValueRef bar = smem_address(w, barrier_at(w, ring, lw_ci32(w, s), e));
			lw_asm_call(w, w->vd, "mbarrier.inval.shared::cta.b64 [$0];", "r", &bar, 1, true);
		}
	lw_end_if(w, join);
	lw_barrier(w);
}

/* Each warp arrives once on the empty barrier of tile `slot`: a
 * warp-specialized kernel's consumers release the tile. */
static void release(lw *w, int ring, LLVMValueRef slot)
{
	LLVMBasicBlockRef join = lw_begin_if(w, LLVMBuildICmp(w->b, LLVMIntEQ, w->lane, lw_ci32(w, 0), ""));
	LLVMValueRef bar = smem_address(w, barrier_at(w, ring, slot, true));
	lw_asm_call(w, w->vd, "mbarrier.arrive.shared::cta.b64 _, [$0];", "r,~{memory}", &bar, 1, true);
	lw_end_if(w, join);
}

/* Polls barrier args[0] until its phase of parity args[1] is over. */
static void wait_parity(lw *w, LLVMValueRef *args)
{
	/* the label is local to the braces, so copies of the loop do not clash */
	lw_asm_call(w, w->vd,
		    "{\n\t.reg .pred done;\n\twait:\n\t"
		    "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n\t"
		    "@!done bra.uni wait;\n\t}",
		    "r,r", args, 2, true);
}

bool lw_emit_tma_copy(lw *w, const ir_op *op)
{
	int ring = op->args[0];
	const smem_layout *sl = w->p->ring[ring];
	ir_type rt = lw_vtype(w, ring);
	ir_type mb;
	uint32_t box[IR_MAX_RANK];
	int swizzle = ir_tensormap_block(w->f, (int)op->ival, &mb) ? ir_tensormap_box((ir_kind)rt.pointee, mb.rank, mb.shape, box) : 0;
	if (!sl || !is_tma_ring(w, ring) || !swizzle || sl->transposed || sl->panel_bytes != swizzle ||
	    (uint32_t)sl->rows != box[1])
		return lw_fail(w, op, TILEC_ERR_INVALID, "internal: ring %%%d is not laid out as its tensor map's box", ring);
	lval slot, pred, row, col;
	if (!lw_get(w, op->args[1], NULL, &slot) || !lw_get(w, op->args[2], NULL, &pred) ||
	    !lw_get(w, op->args[3], NULL, &row) || !lw_get(w, op->args[4], NULL, &col))
		return false;
	if (w->ws_role == LW_WS_CONSUMER && op->flags & IR_FLAG_PRODUCER) {
		/* where the plain code refills the slot the consumers release it:
		 * each warp once the dots that read it are waited for (lower.c
		 * waits for them before this point), while this iteration's run */
		if (w->ws_iter) {
			LLVMBasicBlockRef join = lw_begin_if(w, lw_ws_refill(w, ring, NULL));
			release(w, ring, slot.r[0]);
			lw_end_if(w, join);
		}
		return true;
	}
	LLVMValueRef map = LLVMBuildPtrToInt(w->b, w->v[op->ival].r[0], w->i64, "");
	LLVMBasicBlockRef join = lw_begin_if(w, LLVMBuildAnd(w->b, pred.r[0], copier(w), ""));
	if (w->ws_role == LW_WS_PRODUCER && w->ws_iter) {
		/* a slot used before: wait until the consumers released it */
		LLVMValueRef use;
		LLVMValueRef refill = lw_ws_refill(w, ring, &use);
		LLVMBasicBlockRef wait_join = lw_begin_if(w, refill);
		LLVMValueRef parity = LLVMBuildAnd(w->b, LLVMBuildSub(w->b, use, lw_ci32(w, 1), ""), lw_ci32(w, 1), "");
		LLVMValueRef args[2] = {smem_address(w, barrier_at(w, ring, slot.r[0], true)), parity};
		wait_parity(w, args);
		lw_end_if(w, wait_join);
	}
	/* mma.sync's ldmatrix read the tile (the generic proxy) before the
	 * barrier that lets it be refilled; wgmma reads through the async proxy */
	if (w->p->unit != DOT_UNIT_WGMMA)
		lw_asm_call(w, w->vd, "fence.proxy.async.shared::cta;", "", NULL, 0, true);
	LLVMValueRef bar = smem_address(w, barrier_at(w, ring, slot.r[0], false));
	LLVMValueRef expect[2] = {bar, lw_ci32(w, sl->tile_bytes)};
	lw_asm_call(w, w->vd, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r", expect, 2, true);
	LLVMValueRef tile = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, slot.r[0], lw_ci32(w, sl->tile_bytes), ""),
					 lw_ci32(w, w->ring_at[ring]), "");
	int panels = sl->row_bytes / sl->panel_bytes;
	for (int p = 0; p < panels; p++) {
		LLVMValueRef dst = LLVMBuildAdd(w->b, tile, lw_ci32(w, (int64_t)p * sl->rows * sl->panel_bytes), "");
		LLVMValueRef x = p ? LLVMBuildAdd(w->b, col.r[0], lw_ci32(w, (int64_t)p * box[0]), "") : col.r[0];
		LLVMValueRef args[5] = {smem_address(w, dst), map, x, row.r[0], bar};
		lw_asm_call(w, w->vd,
			    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
			    " [$0], [$1, {$2, $3}], [$4];",
			    "r,l,r,r,r", args, 5, true);
	}
	lw_end_if(w, join);
	w->tensormaps = true;
	return true;
}

bool lw_emit_tma_wait(lw *w, const ir_op *op)
{
	lval slot, phase;
	if (!lw_get(w, op->args[1], NULL, &slot) || !lw_get(w, op->args[2], NULL, &phase))
		return false;
	LLVMValueRef args[2] = {smem_address(w, barrier_at(w, op->args[0], slot.r[0], false)), phase.r[0]};
	wait_parity(w, args);
	return true;
}

bool lw_emit_tma_store(lw *w, const ir_op *op)
{
	ir_type t = lw_vtype(w, op->args[1]);
	ir_type mb;
	uint32_t box[IR_MAX_RANK];
	int swizzle = ir_tensormap_block(w->f, (int)op->ival, &mb) ? ir_tensormap_box((ir_kind)t.kind, mb.rank, mb.shape, box) : 0;
	smem_layout sl = smem_layout_make(t.shape[0], t.shape[1], ir_kind_bytes((ir_kind)t.kind), false, true);
	if (!swizzle || sl.panel_bytes != swizzle || (uint32_t)sl.rows != box[1])
		return lw_fail(w, op, TILEC_ERR_INVALID, "internal: a descriptor block is not its tensor map's box");
	lval x, row, col;
	if (!lw_get(w, op->args[1], NULL, &x) || !lw_get(w, op->args[3], NULL, &row) || !lw_get(w, op->args[4], NULL, &col))
		return false;
	/* the box lands swizzled by address bits: a 1024-byte boundary */
	int64_t at = (((int64_t)w->smem_top + 1023) & ~(int64_t)1023) - w->smem_top;
	int panels = sl.row_bytes / sl.panel_bytes, per = panels;
	int64_t panel_tile = (int64_t)sl.rows * sl.panel_bytes;
	/* pieces of panels where the whole box would pass the limit */
	uint32_t limit = w->p->smem_limit;
	if (limit && w->smem_top + at + per * panel_tile > limit && lw_panels_apart(&x, t, &sl))
		while (per % 2 == 0 && w->smem_top + at + per * panel_tile > limit)
			per /= 2;
	lw_smem_need(w, (uint64_t)(at + per * panel_tile));
	LLVMValueRef map = LLVMBuildPtrToInt(w->b, w->v[op->ival].r[0], w->i64, "");
	for (int first = 0; first < panels; first += per) {
		if (first)
			lw_bulk_wait(w, false);
		lw_barrier(w); /* the scratch may still be read by the op or the piece before */
		lw_stage_panels(w, &x, t, &sl, at, first, per < panels ? per : 0);
		/* the copy engine reads what ordinary stores wrote */
		lw_asm_call(w, w->vd, "fence.proxy.async.shared::cta;", "", NULL, 0, true);
		lw_barrier(w);
		LLVMBasicBlockRef join = lw_begin_if(w, thread_zero(w));
		for (int p = first; p < first + per; p++) {
			LLVMValueRef src = lw_ci32(w, (int64_t)w->smem_top + at + (int64_t)(p - first) * panel_tile);
			LLVMValueRef c = p ? LLVMBuildAdd(w->b, col.r[0], lw_ci32(w, (int64_t)p * box[0]), "") : col.r[0];
			LLVMValueRef args[4] = {map, c, row.r[0], smem_address(w, src)};
			lw_asm_call(w, w->vd, "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$0, {$1, $2}], [$3];",
				    "l,r,r,r", args, 4, true);
		}
		lw_asm_call(w, w->vd, "cp.async.bulk.commit_group;", "", NULL, 0, true);
		lw_end_if(w, join);
	}
	/* the engine reads the box while the kernel goes on: the scratch is
	 * waited for when it is next used (lw_bulk_wait); the writes to global
	 * memory complete on their own */
	w->bulk_pending = true;
	w->tensormaps = true;
	return true;
}

void lw_bulk_wait(lw *w, bool barrier)
{
	LLVMBasicBlockRef join = lw_begin_if(w, thread_zero(w));
	lw_asm_call(w, w->vd, "cp.async.bulk.wait_group.read 0;", "", NULL, 0, true);
	lw_end_if(w, join);
	if (barrier)
		lw_barrier(w);
	w->bulk_pending = false;
}

bool lw_bulk_store(const lw *w, const ir_op *op)
{
	return op->code == IR_OP_STORE && op->flags & IR_FLAG_TENSORMAP && w->p->tma && lw_vtype(w, op->args[1]).rank == 2;
}

bool lw_bulk_stores(const lw *w, const ir_region *r)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		if (lw_bulk_store(w, op))
			return true;
		for (int g = 0; g < op->nregions; g++)
			if (lw_bulk_stores(w, &op->regions[g]))
				return true;
	}
	return false;
}
