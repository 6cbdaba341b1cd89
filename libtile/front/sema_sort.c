/* sema_sort.c - tl.sort and tl.topk as Triton 3.6's standard.py builds them.
 *
 * Triton sorts the last dimension with a bitonic network written in the
 * language itself: the tensor is seen as a hypercube of 2s, and each
 * compare-and-swap step fetches every element's partner (its index along
 * the dim with one bit flipped) and keeps `where((x > y) != (flip ^
 * is_right), y, x)`, `flip` the step's direction bit. That rule is applied
 * here element for element, so results agree with Triton's bit for bit,
 * including how the network treats NaNs and -0.0 (both compare false).
 * tile's blocks have at most 4 dimensions, so the partner comes from one
 * FLIP op (the index along the dim xored with 1 << j) instead of a
 * hypercube reshape and an xor_sum; the direction bits are bits of the
 * in-row index `tl.arange(0, n)`. topk is Triton's bitonic top-k: the first
 * log2(k) stages, then per remaining stage the maximum of the two halves'
 * k-blocks (tl.max, which widens as Triton's max does) and a merge.
 */
#include "front/sema.h"

#include <string.h>

static int log2_of(int64_t n)
{
	int l = 0;
	while ((int64_t)1 << l < n)
		l++;
	return l;
}

/* The in-row index 0..n-1 along the last of `rank` dims (1s before it). */
static bool row_index(sema *s, src_loc loc, int64_t n, int rank, sv *out)
{
	sv range[2] = {sema_int(0), sema_int(n)};
	if (!sema_builtin(s, loc, "tl.arange", 2, range, out))
		return false;
	int id = out->id;
	for (int i = 1; i < rank; i++)
		if ((id = sema_expand_dims(s, loc, id, 0)) < 0)
			return false;
	*out = sema_tensor(id);
	return true;
}

/* bit `b` of the in-row index r, as 0/1 */
static bool index_bit(sema *s, src_loc loc, sv r, int b, sv *out)
{
	sv sh;
	return sema_binop(s, loc, AST_OP_RSHIFT, r, sema_int(b), &sh) && sema_binop(s, loc, AST_OP_BITAND, sh, sema_int(1), out);
}

/* One compare-and-swap between elements 1 << j apart along the last dim;
 * `flip` is the direction (0/1, a number or a tensor of the row index). */
static bool compare_swap(sema *s, src_loc loc, sv x, sv r, int j, sv flip, sv *out)
{
	ir_type t = sema_type(s, x.id);
	ir_op *op = sema_emit(s, loc, IR_OP_FLIP, 1, &x.id, t);
	if (!op)
		return false;
	op->axis = t.rank - 1;
	op->ival = (int64_t)1 << j;
	sv y = sema_tensor(op->results[0]), right, dir, gt, want, cond;
	if (!index_bit(s, loc, r, j, &right) || !sema_binop(s, loc, AST_OP_BITXOR, flip, right, &dir) ||
	    !sema_binop(s, loc, AST_OP_GT, x, y, &gt) || !sema_binop(s, loc, AST_OP_NE, dir, sema_int(0), &want) ||
	    !sema_binop(s, loc, AST_OP_NE, gt, want, &cond))
		return false;
	sv w[3] = {cond, y, x};
	return sema_builtin(s, loc, "tl.where", 3, w, out);
}

/* Triton's _bitonic_merge_hypercube: `stage` compare-and-swaps, order 0
 * ascending, 1 descending, 2 alternating by bit `stage` of the index. */
static bool merge(sema *s, src_loc loc, sv x, int stage, int order, sv *out)
{
	ir_type t = sema_type(s, x.id);
	sv r, flip = sema_int(order);
	if (!row_index(s, loc, t.shape[t.rank - 1], t.rank, &r) || (order == 2 && !index_bit(s, loc, r, stage, &flip)))
		return false;
	for (int i = 0; i < stage; i++)
		if (!compare_swap(s, loc, x, r, stage - 1 - i, flip, &x))
			return false;
	*out = x;
	return true;
}

/* x as a tensor whose last dim the sort may take; *n its length */
static bool sortable(sema *s, src_loc loc, const char *what, sv x, sv dim, int64_t *n)
{
	if (x.kind != SV_TENSOR)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` takes a tensor, got %s", what, sema_sv_str(s, x));
	ir_type t = sema_type(s, x.id);
	if (t.rank == 0)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` needs a block, got a scalar", what);
	if (t.kind == IR_PTR || ir_kind_is_fp8((ir_kind)t.kind))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` does not take %s", what, sema_type_str(s, ir_elem(t)));
	if (!(dim.kind == SV_NONE || dim.kind == SV_UNDEF || (dim.kind == SV_INT && dim.i == t.rank - 1)))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s`: only minor dimension is currently supported (dim %s of a block of rank %d)",
				  what, sema_sv_str(s, dim), t.rank);
	*n = t.shape[t.rank - 1];
	return true;
}

bool sema_sort(sema *s, src_loc loc, sv x, sv dim, bool descending, sv *out)
{
	int64_t n;
	if (!sortable(s, loc, "tl.sort", x, dim, &n))
		return false;
	int L = log2_of(n);
	for (int i = 1; i <= L; i++)
		if (!merge(s, loc, x, i, i < L ? 2 : descending, &x))
			return false;
	*out = x;
	return true;
}

static bool reshape_to(sema *s, src_loc loc, sv x, int rank, const int64_t *shape, sv *out)
{
	sv items[IR_MAX_RANK], a[2];
	for (int i = 0; i < rank; i++)
		items[i] = sema_int(shape[i]);
	a[0] = x;
	a[1].kind = SV_TUPLE;
	a[1].n = rank;
	a[1].items = items;
	return sema_builtin(s, loc, "tl.reshape", 2, a, out);
}

bool sema_topk(sema *s, src_loc loc, sv x, sv k, sv dim, sv *out)
{
	int64_t n;
	if (!sortable(s, loc, "tl.topk", x, dim, &n))
		return false;
	if (k.kind != SV_INT || k.i < 1 || (k.i & (k.i - 1)) || k.i > n)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`tl.topk` needs k a constexpr power of two of at most %lld, got %s",
				  (long long)n, sema_sv_str(s, k));
	ir_type t = sema_type(s, x.id);
	int L = log2_of(n), lk = log2_of(k.i);
	/* the leading dims as one, so that the halving reshapes stay within 4 dims */
	int64_t outer = ir_numel(t) / n, shape[IR_MAX_RANK];
	int rank = t.rank > 1 ? 2 : 1;
	shape[0] = outer;
	shape[rank - 1] = n;
	if (t.rank > 2 && !reshape_to(s, loc, x, rank, shape, &x))
		return false;
	for (int i = 1; i <= lk; i++)
		if (!merge(s, loc, x, i, i < L ? 2 : 1, &x))
			return false;
	for (int i = lk + 1, m = (int)n; i <= L; i++, m /= 2) {
		/* the larger of the k-blocks j and j ^ k, elementwise */
		int64_t h[IR_MAX_RANK];
		int hr = 0;
		if (rank == 2)
			h[hr++] = outer;
		h[hr++] = m / (2 * k.i);
		h[hr++] = 2;
		h[hr++] = k.i;
		sv a[2];
		if (!reshape_to(s, loc, x, hr, h, &a[0]))
			return false;
		a[1] = sema_int(hr - 2);
		if (!sema_builtin(s, loc, "tl.max", 2, a, &x))
			return false;
		shape[rank - 1] = m / 2;
		if (!reshape_to(s, loc, x, rank, shape, &x) || !merge(s, loc, x, lk, i < L ? 2 : 1, &x))
			return false;
	}
	int64_t final[IR_MAX_RANK];
	for (int i = 0; i + 1 < t.rank; i++)
		final[i] = t.shape[i];
	final[t.rank - 1] = k.i;
	if (!reshape_to(s, loc, x, t.rank, final, &x))
		return false;
	*out = x;
	return true;
}
