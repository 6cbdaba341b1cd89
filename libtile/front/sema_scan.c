/* sema_scan.c - scans and reductions with a combine function:
 * tl.associative_scan, tl.cumsum, tl.cumprod, tl.reduce.
 *
 * A scan is one SCAN op over k inputs of one shape (a tuple scans its
 * items together) whose region is the combine function on scalars: its
 * 2k parameters are the accumulated values and the next elements, it
 * yields the k new accumulated values. A @jit combine function is inlined
 * into the region as any helper is (its own control flow included), so
 * cumsum and cumprod are scans whose region is one add or multiply, as
 * Triton's standard.py writes them over _sum_combine and _prod_combine.
 * The dtype rules are Triton's: bf16 scans in fp32, cumsum widens 8- and
 * 16-bit integers to 32 bits (or takes `dtype`). tl.reduce is the same
 * construction as a REDUCE_FN op, whose region combines two partial
 * results and whose results drop the axis; `axis=None` reduces the
 * flattened inputs and keep_dims puts the reduced axes back as 1s.
 */
#include "front/sema.h"

#include <string.h>

/* The first op of r (or of its nested regions) that makes a block. */
static const ir_op *block_op(const ir_func *f, const ir_region *r)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int j = 0; j < op->nresults; j++)
			if (f->values[op->results[j]].type.rank)
				return op;
		for (int g = 0; g < op->nregions; g++) {
			const ir_op *b = block_op(f, &op->regions[g]);
			if (b)
				return b;
		}
	}
	return NULL;
}

static void mark_args(const ir_region *r, bool *used)
{
	for (int i = 0; i < r->nops; i++) {
		for (int a = 0; a < r->ops[i]->nargs; a++)
			used[r->ops[i]->args[a]] = true;
		for (int g = 0; g < r->ops[i]->nregions; g++)
			mark_args(&r->ops[i]->regions[g], used);
	}
}

/* Drops the ops of r that nothing reads and that have no effect: a combine
 * function may make a block only to ask its type (Inductor's
 * triton_helpers.maximum tests `promote_to_tensor(a).dtype.is_floating()`,
 * `a + tl.zeros((1,), tl.int1)`), which leaves that block unused. vals[0..k)
 * are what the region yields. */
static bool drop_unused(sema *s, ir_region *r, const int *vals, int k)
{
	bool *used = arena_alloc(s->a, sizeof(bool) * (size_t)(s->f->nvalues + 1));
	if (!used)
		return false;
	for (int i = 0; i < k; i++)
		used[vals[i]] = true;
	for (int i = r->nops - 1; i >= 0; i--) {
		ir_op *op = r->ops[i];
		bool read = op->nregions || ir_op_orders_memory(op) || op->code == IR_OP_DEVICE_ASSERT ||
			    op->code == IR_OP_DEVICE_PRINT || op->code == IR_OP_INLINE_ASM;
		for (int j = 0; j < op->nresults && !read; j++)
			read = used[op->results[j]];
		if (!read) {
			r->ops[i] = NULL;
			continue;
		}
		for (int a = 0; a < op->nargs; a++)
			used[op->args[a]] = true;
		for (int g = 0; g < op->nregions; g++)
			mark_args(&op->regions[g], used);
	}
	int n = 0;
	for (int i = 0; i < r->nops; i++)
		if (r->ops[i])
			r->ops[n++] = r->ops[i];
	r->nops = n;
	return true;
}

/* The scan (or, with `reduce`, the reduction) op over ids[0..k) along
 * axis; `combine` is a @jit function, or NULL with `binop` the op of a
 * one-op region. Results as a tensor or a tuple of them (`tuple`, or k > 1)
 * in *out. */
static bool combine_op(sema *s, src_loc loc, int k, const int *ids, int axis, bool reverse, ast_func *combine,
		       ast_op binop, bool reduce, bool tuple, sv *out)
{
	const char *what = reduce ? "reduction" : "scan";
	ir_type t0 = sema_type(s, ids[0]);
	ir_type *types = arena_alloc(s->a, sizeof(ir_type) * (size_t)k);
	if (!types)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < k; i++) {
		types[i] = sema_type(s, ids[i]);
		if (!ir_same_shape(types[i], t0))
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "the inputs of a %s must have one shape, got %s and %s",
					  what, sema_type_str(s, t0), sema_type_str(s, types[i]));
		if (types[i].kind == IR_PTR)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "a %s does not take pointers", what);
	}
	if (t0.rank == 0)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "a %s needs a block, got a scalar", what);
	if (axis < 0)
		axis += t0.rank;
	if (axis < 0 || axis >= t0.rank)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "axis %d is out of range for a block of rank %d", axis, t0.rank);
	if (!s->f || s->global_depth)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "this expression is not a compile-time constant");
	ir_type *rtypes = types;
	if (reduce) {
		rtypes = arena_alloc(s->a, sizeof(ir_type) * (size_t)k);
		if (!rtypes)
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		for (int i = 0; i < k; i++) {
			rtypes[i] = types[i];
			for (int d = axis; d + 1 < t0.rank; d++)
				rtypes[i].shape[d] = types[i].shape[d + 1];
			rtypes[i].rank = (uint8_t)(t0.rank - 1);
		}
	}
	ir_op *op = ir_op_new(s->f, reduce ? IR_OP_REDUCE_FN : IR_OP_SCAN, loc, k, ids, k, rtypes, 1);
	if (!op)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	op->axis = axis;
	op->ival = reverse;
	ir_region *r = &op->regions[0], *saved = s->cur;
	sv *params = arena_alloc(s->a, sizeof(sv) * (size_t)(2 * k));
	if (!params)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < 2 * k; i++) {
		int p = ir_region_add_param(s->f, r, ir_elem(types[i % k]));
		if (p < 0)
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		params[i] = sema_tensor(p);
	}
	s->cur = r;
	sv res;
	bool ok;
	if (combine) {
		/* combine(a0, .., ak-1, b0, .., bk-1), as Triton calls it */
		ok = sema_inline(s, loc, combine, 2 * k, params, 0, NULL, NULL, &res);
	} else {
		ok = sema_binop(s, loc, binop, params[0], params[1], &res);
	}
	int *vals = arena_alloc(s->a, sizeof(int) * (size_t)k);
	if (ok && !vals)
		ok = sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	int n = res.kind == SV_TUPLE ? res.n : 1;
	if (ok && n != k)
		ok = sema_error(s, loc, TILEC_ERR_SEMANTIC, "the combine function `%s` returns %d value%s for a %s of %d",
				combine ? combine->name : "?", n, n == 1 ? "" : "s", what, k);
	for (int i = 0; ok && i < k; i++) {
		sv v = res.kind == SV_TUPLE ? res.items[i] : res;
		ir_type want = ir_elem(types[i]);
		if (sema_is_num(v)) {
			vals[i] = sema_number(s, loc, v, want);
		} else if (v.kind != SV_TENSOR || !ir_type_eq(sema_type(s, v.id), want)) {
			ok = sema_error(s, loc, TILEC_ERR_SEMANTIC,
					"the combine function `%s` returns %s for input %d, whose elements are %s",
					combine ? combine->name : "?", sema_sv_str(s, v), i, sema_type_str(s, want));
			break;
		} else {
			vals[i] = v.id;
		}
		ok = vals[i] >= 0;
	}
	if (ok && !drop_unused(s, r, vals, k))
		ok = sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	const ir_op *blk = ok ? block_op(s->f, r) : NULL;
	if (blk)
		ok = sema_error(s, blk->loc, TILEC_ERR_UNSUPPORTED,
				"the combine function `%s` of a %s makes a block (`%s`); it is called on scalars",
				combine ? combine->name : "?", what, ir_opcode_name(blk->code));
	if (ok) {
		ir_op *y = ir_op_new(s->f, IR_OP_YIELD, loc, k, vals, 0, NULL, 0);
		ok = (y && ir_region_append(s->f, r, y)) || sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	}
	s->cur = saved;
	if (!ok)
		return false;
	if (!ir_region_append(s->f, s->cur, op))
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	if (k == 1 && !tuple) {
		*out = sema_tensor(op->results[0]);
		return true;
	}
	out->kind = SV_TUPLE;
	out->n = k;
	out->items = arena_alloc(s->a, sizeof(sv) * (size_t)k);
	if (!out->items)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < k; i++)
		out->items[i] = sema_tensor(op->results[i]);
	return true;
}

bool sema_associative_scan(sema *s, src_loc loc, sv input, int axis, sv combine, bool reverse, sv *out)
{
	if (combine.kind != SV_FUNC)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC,
				  "the combine function of tl.associative_scan must be a @triton.jit function, got %s",
				  sema_sv_str(s, combine));
	int k = input.kind == SV_TUPLE ? input.n : 1;
	if (k < 1)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "tl.associative_scan of an empty tuple");
	int *ids = arena_alloc(s->a, sizeof(int) * (size_t)k);
	if (!ids)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < k; i++) {
		sv v = input.kind == SV_TUPLE ? input.items[i] : input;
		if (v.kind != SV_TENSOR)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "tl.associative_scan takes tensors, got %s", sema_sv_str(s, v));
		ids[i] = v.id;
	}
	return combine_op(s, loc, k, ids, axis, reverse, combine.fn, AST_OP_ADD, false, false, out);
}

bool sema_cumulative(sema *s, src_loc loc, int x, int axis, bool reverse, bool prod, const ir_type *dtype, sv *out)
{
	ir_kind k = (ir_kind)sema_type(s, x).kind;
	ir_kind to = k == IR_BF16 ? IR_F32 : k;
	if (!prod && dtype)
		to = (ir_kind)dtype->kind;
	else if (!prod && ir_kind_is_int(k) && ir_kind_bits(k) < 32)
		to = ir_kind_is_signed(k) ? IR_I32 : IR_U32;
	if (k == IR_PTR)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "a scan does not take pointers");
	if (to != k && (x = sema_cast(s, loc, x, ir_scalar(to))) < 0)
		return false;
	return combine_op(s, loc, 1, &x, axis, reverse, NULL, prod ? AST_OP_MUL : AST_OP_ADD, false, false, out);
}

bool sema_reduce(sema *s, src_loc loc, int k, const int *ids, int axis, sv combine, bool tuple, sv *out)
{
	if (combine.kind != SV_FUNC)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "the combine function of tl.reduce must be a @triton.jit function, got %s",
				  sema_sv_str(s, combine));
	for (int i = 0; i < k; i++)
		if (ir_kind_is_fp8((ir_kind)sema_type(s, ids[i]).kind))
			return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "tl.reduce of %s is not supported: convert fp8 to fp32 first",
					  ir_kind_name((ir_kind)sema_type(s, ids[i]).kind));
	return combine_op(s, loc, k, ids, axis, false, combine.fn, AST_OP_ADD, true, tuple, out);
}
