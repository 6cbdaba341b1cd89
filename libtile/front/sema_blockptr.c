/* sema_blockptr.c - block pointers (tl.make_block_ptr, tl.advance, and
 * tl.load/tl.store with boundary_check and padding_option), as Triton 3.6.
 *
 * A block pointer is a value of the specializer only (SV_BLOCKPTR): a base
 * pointer, per dimension a shape and a stride (i64 scalars, as Triton
 * converts them) and an offset (an i32 scalar), and the constexpr block
 * shape. tl.advance makes a new one with the offsets added. A load or store
 * expands right here into what Triton's RewriteTensorPointer pass makes of
 * it: per dimension `offset + tl.arange(0, B)` broadcast into its axis,
 * times the stride (in i64), summed onto the base; for each dimension of
 * boundary_check the mask `0 <= index < shape`; then one ordinary tl.load
 * (other 0 for "zero", NaN for "nan", none without padding_option, as
 * Triton leaves such elements undefined) or tl.store. So every later phase
 * sees ordinary memory ops. All parts are IR values, so a block pointer can
 * be a loop-carried variable (sema.c carries its parts): the matmul
 * pattern `a_ptrs = tl.advance(a_ptrs, (0, BLOCK_K))` in a `for` loop.
 * `order` is checked (a permutation) and otherwise unused: it only steers
 * Triton's layouts. Blocks have at most 4 dimensions in tile.
 */
#include "front/sema.h"

#include <math.h>
#include <string.h>

static bool nomem(sema *s, src_loc loc)
{
	return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
}

/* A list argument (a single value counts as a list of one, as Triton's
 * hasattr(__iter__) test takes it). */
static void as_list(const sv *v, int *n, const sv **items)
{
	if (v->kind == SV_TUPLE) {
		*n = v->n;
		*items = v->items;
	} else {
		*n = 1;
		*items = v;
	}
}

/* An integer scalar (a constexpr or a scalar integer tensor) as an i64
 * tensor (shape, strides) or an i32 tensor (offsets: Triton refuses 64-bit
 * offset tensors); -1 after an error. */
static int part(sema *s, src_loc loc, sv v, bool i64, const char *what)
{
	if (v.kind == SV_INT || v.kind == SV_BOOL) {
		if (!i64 && (v.i < INT32_MIN || v.i > INT32_MAX)) {
			sema_error(s, loc, TILEC_ERR_SEMANTIC, "a block pointer's %s must fit in int32, got %lld", what, (long long)v.i);
			return -1;
		}
		return sema_number(s, loc, v, ir_scalar(i64 ? IR_I64 : IR_I32));
	}
	ir_type t = v.kind == SV_TENSOR ? sema_type(s, v.id) : ir_scalar(IR_VOID);
	if (v.kind != SV_TENSOR || t.rank || !ir_kind_is_int((ir_kind)t.kind)) {
		sema_error(s, loc, TILEC_ERR_SEMANTIC, "Expected an integer scalar in a block pointer's %s, got %s", what,
			   sema_sv_str(s, v));
		return -1;
	}
	if (!i64 && ir_kind_bits((ir_kind)t.kind) == 64) {
		sema_error(s, loc, TILEC_ERR_SEMANTIC,
			   "Block pointers only support 32 bit `offsets`, add a `.to(tl.int32)` or use regular indexing for 64 bit "
			   "support (got %s)", sema_type_str(s, t));
		return -1;
	}
	return sema_cast(s, loc, v.id, ir_scalar(i64 ? IR_I64 : IR_I32));
}

/* args: base, shape, strides, offsets, block_shape, order */
bool sema_bptr_make(sema *s, src_loc loc, const sv *args, sv *out)
{
	sv base = args[0];
	ir_type bt = base.kind == SV_TENSOR ? sema_type(s, base.id) : ir_scalar(IR_VOID);
	if (base.kind != SV_TENSOR || bt.kind != IR_PTR || bt.rank)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC,
				  "Expected `base` to be a pointer type (but not a block pointer type or others), got %s",
				  sema_sv_str(s, base));
	if (bt.pointee == IR_I1) { /* Triton treats *i1 as *i8 */
		int id = sema_bitcast(s, loc, base.id, ir_ptr(IR_I8));
		if (id < 0)
			return false;
		base = sema_tensor(id);
		bt = sema_type(s, id);
	}
	int n[5];
	const sv *it[5];
	for (int i = 0; i < 5; i++)
		as_list(&args[1 + i], &n[i], &it[i]);
	int r = n[3];
	for (int i = 0; i < 5; i++)
		if (n[i] != r)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC,
					  "Expected shape/strides/offsets/block_shape to have the same length, got %d, %d, %d, %d "
					  "(and %d in order)", n[0], n[1], n[2], n[3], n[4]);
	if (r < 1 || r > IR_MAX_RANK)
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "block pointers of %d dimensions are not supported: blocks have 1 to %d",
				  r, IR_MAX_RANK);
	int64_t bs[IR_MAX_RANK];
	bool seen[IR_MAX_RANK] = {0};
	for (int i = 0; i < r; i++) {
		if (it[3][i].kind != SV_INT)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC,
					  "Expected a list of constant integers (`int32_t` range) in `block_shape`, got %s",
					  sema_sv_str(s, it[3][i]));
		bs[i] = it[3][i].i;
		const sv *o = &it[4][i];
		if (o->kind != SV_INT || o->i < 0 || o->i >= r || seen[o->i])
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "Expected a permutation of (0, 1, ..., len(order)-1) in order");
		seen[o->i] = true;
	}
	if (!sema_check_shape(s, loc, r, bs))
		return false;
	sv d = {0};
	d.kind = SV_BLOCKPTR;
	int32_t sh[IR_MAX_RANK];
	for (int i = 0; i < r; i++)
		sh[i] = (int32_t)bs[i];
	d.t = ir_block(ir_scalar((ir_kind)bt.pointee), r, sh);
	d.n = 1 + 3 * r;
	if (!(d.items = arena_alloc(s->a, sizeof(sv) * (size_t)d.n)))
		return nomem(s, loc);
	d.items[0] = base;
	static const char *const what[3] = {"shape", "strides", "offsets"};
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < r; i++) {
			int id = part(s, loc, it[k][i], k < 2, what[k]);
			if (id < 0)
				return false;
			d.items[1 + k * r + i] = sema_tensor(id);
		}
	*out = d;
	return true;
}

bool sema_bptr_advance(sema *s, src_loc loc, sv bp, sv offsets, sv *out)
{
	if (bp.kind != SV_BLOCKPTR)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "Expected `base` to be a block pointer type, got %s", sema_sv_str(s, bp));
	int r = bp.t.rank, n;
	const sv *items;
	as_list(&offsets, &n, &items);
	if (n != r)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "Expected %d offsets to advance a block pointer of rank %d, got %d", r, r, n);
	*out = bp;
	if (!(out->items = arena_alloc(s->a, sizeof(sv) * (size_t)bp.n)))
		return nomem(s, loc);
	memcpy(out->items, bp.items, sizeof(sv) * (size_t)bp.n);
	for (int i = 0; i < r; i++) {
		int id = part(s, loc, items[i], false, "offsets");
		sv sum;
		if (id < 0 || !sema_binop(s, loc, AST_OP_ADD, bp.items[1 + 2 * r + i], sema_tensor(id), &sum))
			return false;
		out->items[1 + 2 * r + i] = sum;
	}
	return true;
}

/* boundary_check as a set of dims (Triton's _canonicalize_boundary_check) */
static bool boundary(sema *s, src_loc loc, sv bc, int r, bool *check)
{
	memset(check, 0, sizeof(bool) * IR_MAX_RANK);
	if (bc.kind == SV_NONE || bc.kind == SV_UNDEF || (bc.kind == SV_TUPLE && bc.n == 0))
		return true;
	int n;
	const sv *items;
	as_list(&bc, &n, &items);
	for (int i = 0; i < n; i++) {
		if (items[i].kind != SV_INT || items[i].i < 0 || items[i].i >= r)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "boundary_check must name dims of the block (0 to %d), got %s", r - 1,
					  sema_sv_str(s, items[i]));
		if (check[items[i].i])
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "Duplicate dimension in `boundary_check`");
		check[items[i].i] = true;
	}
	return true;
}

/* The pointers of the block and the mask of its checked dims (mask NONE
 * when none is checked). */
static bool addresses(sema *s, src_loc loc, sv bp, const bool *check, sv *ptr, sv *mask)
{
	int r = bp.t.rank;
	sv p = bp.items[0], m = {.kind = SV_NONE};
	for (int k = 0; k < r; k++)
		if (!sema_block_dim(s, loc, k, r, bp.t.shape[k], bp.items[1 + 2 * r + k], bp.items[1 + k], bp.items[1 + r + k],
				    check[k], &p, &m))
			return false;
	/* a mask of fewer dims than the block: broadcast it to the pointers */
	if (m.kind != SV_NONE && !ir_same_shape(sema_type(s, m.id), sema_type(s, p.id))) {
		int id = sema_splat_to(s, loc, m.id, sema_type(s, p.id));
		if (id < 0)
			return false;
		m = sema_tensor(id);
	}
	*ptr = p;
	*mask = m;
	return true;
}

bool sema_bptr_load(sema *s, src_loc loc, sv bp, bool mask_given, sv bc, sv padding, sv *out)
{
	if (mask_given)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`mask` and `other` arguments cannot be specified for loading block pointers");
	int pad = 0; /* none, zero, nan */
	if (padding.kind == SV_STR && padding.slen == 4 && !memcmp(padding.s, "zero", 4))
		pad = 1;
	else if (padding.kind == SV_STR && padding.slen == 3 && !memcmp(padding.s, "nan", 3))
		pad = 2;
	else if (!(padding.kind == SV_NONE || padding.kind == SV_UNDEF || (padding.kind == SV_STR && padding.slen == 0)))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "padding_option must be \"\", \"zero\" or \"nan\", got %s",
				  sema_sv_str(s, padding));
	if (pad == 2 && !ir_kind_is_float((ir_kind)bp.t.kind))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "Padding option `nan` is not supported for integer block pointers");
	bool check[IR_MAX_RANK];
	sv a[3];
	if (!boundary(s, loc, bc, bp.t.rank, check) || !addresses(s, loc, bp, check, &a[0], &a[1]))
		return false;
	int n = 1;
	if (a[1].kind != SV_NONE) {
		n = 2;
		if (pad) {
			a[2] = pad == 2 ? sema_float(NAN) : sema_int(0);
			n = 3;
		}
	}
	return sema_builtin(s, loc, "tl.load", n, a, out);
}

bool sema_bptr_store(sema *s, src_loc loc, sv bp, sv value, bool mask_given, sv bc, sv *out)
{
	if (mask_given)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`mask` argument cannot be specified for storing block pointers");
	int v = sema_to_tensor(s, loc, value);
	if (v < 0)
		return false;
	ir_type vt = sema_type(s, v);
	if (!vt.rank && (v = sema_splat_to(s, loc, v, bp.t)) < 0)
		return false;
	vt = sema_type(s, v);
	if (!ir_same_shape(vt, bp.t))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "Block shape(%s) and value shape(%s) mismatch", sema_type_str(s, bp.t),
				  sema_type_str(s, vt));
	if (vt.kind != bp.t.kind)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "Block element type(%s) and value element type(%s) mismatch",
				  sema_type_str(s, ir_elem(bp.t)), sema_type_str(s, ir_elem(vt)));
	bool check[IR_MAX_RANK];
	sv a[3];
	if (!boundary(s, loc, bc, bp.t.rank, check) || !addresses(s, loc, bp, check, &a[0], &a[2]))
		return false;
	a[1] = sema_tensor(v);
	return sema_builtin(s, loc, "tl.store", a[2].kind != SV_NONE ? 3 : 2, a, out);
}
