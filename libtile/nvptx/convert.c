/* convert.c - layout conversion, reshape and permute through shared memory.
 *
 * A value wanted in a layout it does not have, and not cheap enough to
 * recompute there (lw_get in lower.c decides), moves: the owners of its
 * elements write them at their row-major index, one pad element per 32 so
 * that column-wise accesses spread over the banks, and after a barrier
 * every thread reads the elements its new layout gives it. reshape (the
 * row-major order kept) and permute are the same move with another index
 * on the reading side. A tensor-core result (the accumulator of a dot on
 * its way to a store) goes through a swizzled tile instead (tiles.c), each
 * thread writing its runs of consecutive elements and reading those of the
 * new layout (up to 16 bytes) as single accesses.
 */
#include "nvptx/lower.h"

/* Registers r .. r+n-1 as one access of n storage elements at p. */
static void store_run(lw *w, const lval *x, int r, int n, ir_kind k, LLVMValueRef p, int align)
{
	LLVMTypeRef st = lw_stype(w, k);
	LLVMValueRef v = lw_to_storage(w, x->r[r], k);
	if (n > 1) {
		v = LLVMGetUndef(LLVMVectorType(st, (unsigned)n));
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

/* How many registers from r on hold consecutive elements along dim 1 (as
 * one aligned access of at most 16 bytes). */
static int run_of(const layout_map *m, int eb)
{
	int n = layout_contig_regs(m, m->dim_of[1]);
	while (n > 1 && n * eb > 16)
		n /= 2;
	return n;
}

/* A 2-D tensor-core result to layout `to`, through a swizzled tile. */
static bool move_tile(lw *w, const lval *src, ir_type t, const layout *to, lval *out)
{
	ir_kind k = (ir_kind)t.kind;
	int eb = ir_kind_bytes(k);
	smem_layout sl = smem_layout_make(t.shape[0], t.shape[1], eb, false, false);
	layout_map ms = lw_map_of(src->l, t), md = lw_map_of(to, t);
	int ns = run_of(&ms, eb), nd = run_of(&md, eb);
	lw_smem_need(w, sl.tile_bytes);
	lw_barrier(w);
	LLVMValueRef own = lw_owner(w, &ms);
	LLVMBasicBlockRef join = own ? lw_begin_if(w, own) : NULL;
	for (int r = 0; r < src->n; r += ns) {
		LLVMValueRef cc[2];
		lw_reg_coords(w, &ms, 2, r, cc);
		store_run(w, src, r, ns, k, lw_smem_addr(w, lw_swizzled(w, &sl, lw_ci32(w, 0), cc[0], cc[1])), ns * eb);
	}
	if (join)
		lw_end_if(w, join);
	lw_barrier(w);
	if (!lw_alloc_regs(w, out, md.nregs, to))
		return false;
	for (int r = 0; r < md.nregs; r += nd) {
		LLVMValueRef cc[2];
		lw_reg_coords(w, &md, 2, r, cc);
		load_run(w, out, r, nd, k, lw_smem_addr(w, lw_swizzled(w, &sl, lw_ci32(w, 0), cc[0], cc[1])), nd * eb);
	}
	return true;
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
	if (src->l && src->l->mma && !perm && st.rank == 2 && ir_type_eq(st, dt) && (ir_kind_is_float(k) ||
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
