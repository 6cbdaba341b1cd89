/* convert.c - layout conversion, reshape and permute through shared memory.
 *
 * A value wanted in a layout it does not have, and not cheap enough to
 * recompute there (lw_get in lower.c decides), moves: the owners of its
 * elements write them at their row-major index, one pad element per 32 so
 * that column-wise accesses spread over the banks, and after a barrier
 * every thread reads the elements its new layout gives it. reshape (the
 * row-major order kept) and permute are the same move with another index
 * on the reading side. A tensor-core result (the accumulator of a dot on
 * its way to a store; a batched dot's, a tile per batch index) goes through
 * a swizzled tile instead (tiles.c), each thread writing its runs of
 * consecutive elements and reading those of the new layout (up to 16
 * bytes) as single accesses, the swizzle's phase ordered for the fewest
 * bank conflicts of both (banks.c).
 */
#include "nvptx/lower.h"

/* A tensor-core result (2-D, or a batched dot's 3-D one: a tile per index
 * of its dim 0) to layout `to`, through swizzled tiles. */
static bool move_tile(lw *w, const lval *src, ir_type t, const layout *to, lval *out)
{
	int r0 = t.rank - 2;
	smem_layout sl = smem_layout_make(t.shape[r0], t.shape[r0 + 1], ir_kind_bytes((ir_kind)t.kind), false, false);
	smem_layout_order_phase(&sl, src->l, to, t, w->f->num_warps);
	lw_smem_need(w, t.rank == 3 ? (uint64_t)smem_tile_stride(&sl) * (uint64_t)t.shape[0] : sl.tile_bytes);
	lw_barrier(w);
	lw_stage_tile(w, src, t, &sl, 0);
	lw_barrier(w);
	return lw_read_tile(w, out, to, t, &sl, lw_ci32(w, w->smem_top));
}

/* Byte offset of element `lin` with one pad element per 32, so that
 * column-wise accesses of rows of 32 words hit different banks. */
static LLVMValueRef padded(lw *w, LLVMValueRef lin, int64_t bytes)
{
	LLVMValueRef e = LLVMBuildAdd(w->b, lin, LLVMBuildLShr(w->b, lin, lw_ci32(w, 5), ""), "");
	return LLVMBuildMul(w->b, e, lw_ci32(w, bytes), "");
}

/* Moves a block through shared memory: owners write their elements at
 * their row-major index in the source shape `st`, everyone reads its own
 * after a barrier. The target `dt` is the same block in another layout,
 * the same elements in another shape (reshape, row-major order kept), or
 * a permutation (perm[i]: the source dim of target dim i). */
bool lw_move(lw *w, const lval *src, ir_type st, ir_type dt, const int32_t *perm, const layout *to, lval *out)
{
	ir_kind k = (ir_kind)st.kind;
	if (src->l && src->l->mma && !perm && (st.rank == 2 || st.rank == 3) && ir_type_eq(st, dt) && (ir_kind_is_float(k) ||
	    (ir_kind_is_int(k) && k != IR_I1)))
		return move_tile(w, src, st, to, out);
	LLVMTypeRef ty = lw_stype(w, k);
	int64_t bytes = ir_kind_bytes(k == IR_PTR ? IR_I64 : k);
	int64_t numel = ir_numel(st);
	lw_smem_need(w, (uint64_t)(numel + numel / 32) * (uint64_t)bytes);
	layout_map ms = lw_map_of(src->l, st), md = lw_map_of(to, dt);
	lw_barrier(w);
	LLVMValueRef own = lw_owner(w, &ms);
	LLVMBasicBlockRef join = own ? lw_begin_if(w, own) : NULL;
	for (int r = 0; r < src->n; r++) {
		LLVMValueRef off = padded(w, lw_linear_index(w, &ms, st, r), bytes);
		LLVMValueRef x = LLVMBuildStore(w->b, lw_to_storage(w, src->r[r], k), lw_smem_addr(w, off));
		LLVMSetAlignment(x, (unsigned)bytes);
	}
	if (join)
		lw_end_if(w, join);
	lw_barrier(w);
	if (!lw_alloc_regs(w, out, md.nregs, to))
		return false;
	for (int r = 0; r < md.nregs; r++) {
		LLVMValueRef lin;
		if (perm) {
			LLVMValueRef c[IR_MAX_RANK], sc[IR_MAX_RANK];
			lw_reg_coords(w, &md, dt.rank, r, c);
			for (int i = 0; i < dt.rank; i++)
				sc[perm[i]] = c[i];
			lin = lw_ci32(w, 0);
			for (int j = 0; j < st.rank; j++)
				lin = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, lin, lw_ci32(w, st.shape[j]), ""), sc[j], "");
		} else {
			lin = lw_linear_index(w, &md, dt, r);
		}
		LLVMValueRef x = LLVMBuildLoad2(w->b, ty, lw_smem_addr(w, padded(w, lin, bytes)), "");
		LLVMSetAlignment(x, (unsigned)bytes);
		out->r[r] = lw_from_storage(w, x, k);
	}
	return true;
}
