/* sema_desc.c - tensor descriptors (Triton 3.6's tl.make_tensor_descriptor,
 * host-side `tensordesc<...>` parameters, desc.load/desc.store).
 *
 * A descriptor is a value of the specializer only (SV_DESC): a base
 * pointer, a shape, strides and a constexpr block shape. It never becomes
 * an IR value: desc.load(offsets) expands right here into what a kernel
 * author would write by hand, per dimension `offset + tl.arange(0, B)`
 * broadcast into its axis, the bounds mask `0 <= index < shape` and the
 * index times the stride added to the base, then one tl.load with that
 * mask and `other` 0 (NaN for padding_option="nan"); desc.store is a
 * tl.store with the same pointers and mask. So the interpreter, axis info
 * (vector widths), the load pipeline (a descriptor load that only dots read
 * is an ordinary 2-D load with `other` 0: it becomes a ring of cp.async
 * copies) and the lowering all see ordinary loads and stores. Triton's
 * rules are checked where it checks them (rank 1..5, last stride 1, at
 * least 16 bytes in the last block dimension, block dims powers of two,
 * store values of exactly the block shape); the alignment Triton's
 * descriptors promise (a 16-byte aligned base, strides other than the last
 * multiples of 16 bytes) is given to axis info as multiple_of hints, and
 * refused at compile time where a stride is a known constant that breaks it.
 * Blocks have at most 4 dimensions in tile, so 5-D descriptors are refused.
 */
#include "front/sema.h"

#include <math.h>
#include <string.h>

static bool nomem(sema *s, src_loc loc)
{
	return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
}

/* A list or tuple argument, or an error naming it. */
static bool seq(sema *s, src_loc loc, sv v, const char *what, int *n, const sv **items)
{
	if (v.kind != SV_TUPLE)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "the %s of a tensor descriptor must be a list or tuple, got %s",
				  what, sema_sv_str(s, v));
	*n = v.n;
	*items = v.items;
	return true;
}

/* An integer scalar (a constexpr int or a scalar integer tensor) as a
 * tensor of kind k; -1 after an error. */
static int int_scalar(sema *s, src_loc loc, sv v, ir_kind k, const char *what, int i)
{
	if (v.kind != SV_INT && v.kind != SV_BOOL && v.kind != SV_TENSOR)
		goto bad;
	int id = sema_to_tensor(s, loc, v);
	if (id < 0)
		return -1;
	ir_type t = sema_type(s, id);
	if (t.rank || !ir_kind_is_int((ir_kind)t.kind))
		goto bad;
	return sema_cast(s, loc, id, ir_scalar(k));
bad:
	sema_error(s, loc, TILEC_ERR_SEMANTIC, "%s %d of a tensor descriptor must be an integer scalar, got %s", what, i,
		   sema_sv_str(s, v));
	return -1;
}

static int hint(sema *s, src_loc loc, int id, int32_t value)
{
	ir_op *op = sema_emit(s, loc, IR_OP_HINT, 1, &id, sema_type(s, id));
	if (!op)
		return -1;
	op->sub = IR_HINT_MULTIPLE_OF;
	op->ints[0] = value;
	return op->results[0];
}

/* The checks every descriptor passes, then the alignment hints. d has its
 * type, base, shape and strides set. */
static bool finish(sema *s, src_loc loc, sv *d)
{
	int r = d->t.rank;
	int elem = ir_kind_bytes((ir_kind)d->t.kind);
	int64_t last = d->t.shape[r - 1];
	if (d->t.kind == IR_I1 || last * elem < 16)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC,
				  "Descriptor block shape must have at least 16 bytes in the last dimension, but got %lld * %d = %lld bytes",
				  (long long)last, d->t.kind == IR_I1 ? 0 : elem, d->t.kind == IR_I1 ? 0LL : (long long)(last * elem));
	int bi = d->items[0].id;
	if ((bi = hint(s, loc, bi, 16)) < 0)
		return false;
	d->items[0] = sema_tensor(bi);
	for (int i = 0; i < r - 1; i++) {
		sv *st = &d->items[1 + r + i];
		if (st->kind == SV_INT) {
			if ((st->i * elem) % 16)
				return sema_error(s, loc, TILEC_ERR_SEMANTIC,
						  "the strides of a tensor descriptor (but the last) must be multiples of 16 bytes: "
						  "stride %d is %lld elements of %d bytes", i, (long long)st->i, elem);
			continue;
		}
		int id = hint(s, loc, st->id, 16 / elem);
		if (id < 0)
			return false;
		*st = sema_tensor(id);
	}
	return true;
}

/* ---- derived maps ---------------------------------------------------------
 * A device-side descriptor whose base is a pointer parameter and whose
 * shape and strides are integer parameters and constants combined by +, -
 * and * (Triton's tutorials: shape=[M, K], strides=[K, 1]; attention's
 * y_dim = Z * H * N_CTX) is fixed by the launch arguments: the loader can
 * build its TMA map on the host as it does a host-side descriptor's, from
 * a recipe (docs/FORMAT.md), where Triton's kernels write the map into
 * global scratch on the GPU. Any other descriptor stays expanded. */

/* Value id as a launch-time expression over the parameters' names (the
 * grid expressions' syntax), or false where it is not one. Widening casts
 * keep the value; a narrowing one, or any other op, is not computed alike
 * in 64 bits. */
static bool launch_expr(sema *s, int id, strbuf *sb, int depth)
{
	const ir_func *f = s->f;
	ir_type t = f->values[id].type;
	if (depth > 16 || t.rank || !ir_kind_is_int((ir_kind)t.kind) || t.kind == IR_I1)
		return false;
	if (id < f->nparams) {
		if (f->params[id].tensormap || !f->params[id].name)
			return false;
		sb_puts(sb, f->params[id].name);
		return true;
	}
	const ir_op *op = f->values[id].def;
	if (!op)
		return false;
	switch (op->code) {
	case IR_OP_CONST:
		if (op->ival < 0)
			return false;
		sb_printf(sb, "%lld", (long long)op->ival);
		return true;
	case IR_OP_HINT:
		return launch_expr(s, op->args[0], sb, depth + 1);
	case IR_OP_CAST: {
		ir_type from = f->values[op->args[0]].type;
		return ir_kind_is_int((ir_kind)from.kind) && ir_kind_bytes((ir_kind)from.kind) <= ir_kind_bytes((ir_kind)t.kind) &&
		       launch_expr(s, op->args[0], sb, depth + 1);
	}
	case IR_OP_ADD:
	case IR_OP_SUB:
	case IR_OP_MUL:
		sb_puts(sb, "(");
		if (!launch_expr(s, op->args[0], sb, depth + 1))
			return false;
		sb_puts(sb, op->code == IR_OP_ADD ? " + " : op->code == IR_OP_SUB ? " - " : " * ");
		if (!launch_expr(s, op->args[1], sb, depth + 1))
			return false;
		sb_puts(sb, ")");
		return true;
	default:
		return false;
	}
}

/* Gives descriptor d (made from pointer `base`) a derived map where it can
 * have one: d->id then names it by placeholder, -2 - its index. */
static bool derive_map(sema *s, src_loc loc, sv base, sv *d)
{
	int r = d->t.rank, nmaps = s->nmaps;
	uint32_t box[IR_MAX_RANK];
	for (int i = 0; i < s->f->ndescs; i++)
		nmaps += s->f->descs[i].tensormap;
	/* 2-D blocks only: the code copies no other rank through a map */
	if (!s->tensormaps || d->i || r != 2 || base.id >= s->f->nparams || nmaps >= IR_MAX_TENSORMAPS ||
	    s->f->nparams + s->nmaps >= IR_MAX_PARAMS || !ir_tensormap_box((ir_kind)d->t.kind, r, d->t.shape, box))
		return true;
	ir_derived_map m = {.param = -1, .base = base.id, .rank = r};
	memcpy(m.block, d->t.shape, sizeof m.block);
	strbuf sb;
	sb_init(&sb);
	bool ok = true;
	for (int i = 0; ok && i < 2 * r - 1; i++) {
		sv v = d->items[1 + i]; /* the shape, then the strides */
		int id = v.kind == SV_INT ? sema_const(s, loc, ir_scalar(IR_I64), v.i, 0) : v.id;
		if (id < 0) {
			sb_free(&sb);
			return false;
		}
		if (i)
			sb_puts(&sb, ", ");
		ok = launch_expr(s, id, &sb, 0);
		*(i < r ? &m.shape[i] : &m.strides[i - r]) = id;
	}
	if (ok && !(m.values = arena_strdup(s->a, sb_str(&sb)))) {
		sb_free(&sb);
		return nomem(s, loc);
	}
	sb_free(&sb);
	if (!ok)
		return true;
	int k = 0;
	while (k < s->nmaps && !(s->maps[k].base == m.base && s->maps[k].rank == r &&
				 !memcmp(s->maps[k].block, m.block, sizeof m.block) && !strcmp(s->maps[k].values, m.values)))
		k++;
	if (k == s->nmaps) {
		if (s->nmaps == s->capmaps) {
			int cap = s->capmaps ? 2 * s->capmaps : 4;
			ir_derived_map *n = arena_realloc(s->a, s->maps, sizeof *n * (size_t)s->capmaps, sizeof *n * (size_t)cap);
			if (!n)
				return nomem(s, loc);
			s->maps = n;
			s->capmaps = cap;
		}
		s->maps[s->nmaps++] = m;
	}
	d->id = -2 - k;
	return true;
}

static void fix_maps(ir_region *r, int first)
{
	for (int i = 0; i < r->nops; i++) {
		ir_op *op = r->ops[i];
		if (op->flags & IR_FLAG_TENSORMAP && op->ival <= -2)
			op->ival = first + (-2 - op->ival);
		for (int j = 0; j < op->nregions; j++)
			fix_maps(&op->regions[j], first);
	}
}

/* The loads and stores of derived maps name them -2 - index until the
 * body is done; their parameters then follow all others (hidden: the
 * loader fills them), BASE_tmap, BASE_tmap2, ... by base. */
bool sema_desc_append_maps(sema *s)
{
	ir_func *f = s->f;
	int n = s->nmaps, first = f->nparams;
	if (!n)
		return true;
	ir_param *p = arena_alloc(s->a, sizeof(ir_param) * (size_t)n);
	if (!p)
		return nomem(s, f->loc);
	for (int k = 0; k < n; k++) {
		int same = 0;
		for (int j = 0; j < k; j++)
			same += s->maps[j].base == s->maps[k].base;
		const char *base = f->params[s->maps[k].base].name;
		p[k] = (ir_param){.type = ir_ptr(IR_I8), .tensormap = true,
				  .name = same ? arena_printf(s->a, "%s_tmap%d", base, same + 1) : arena_printf(s->a, "%s_tmap", base)};
		if (!p[k].name)
			return nomem(s, f->loc);
	}
	if (!ir_append_params(f, n, p))
		return nomem(s, f->loc);
	for (int k = 0; k < n; k++) {
		ir_derived_map *m = &s->maps[k];
		m->param = first + k;
		for (int i = 0; i < m->rank; i++) {
			m->shape[i] += m->shape[i] >= first ? n : 0;
			m->strides[i] += i < m->rank - 1 && m->strides[i] >= first ? n : 0;
		}
	}
	f->maps = s->maps;
	f->nmaps = n;
	fix_maps(&f->body, first);
	return true;
}

/* args: base, shape, strides, block_shape, padding_option */
bool sema_desc_make(sema *s, src_loc loc, const sv *args, sv *out)
{
	sv base = args[0];
	if (base.kind != SV_TENSOR || sema_type(s, base.id).kind != IR_PTR || sema_type(s, base.id).rank)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "the base of a tensor descriptor must be a scalar pointer, got %s",
				  sema_sv_str(s, base));
	int r = 0, ns = 0, nb = 0;
	const sv *shape = NULL, *strides = NULL, *block = NULL;
	if (!seq(s, loc, args[1], "shape", &r, &shape) || !seq(s, loc, args[2], "strides", &ns, &strides) ||
	    !seq(s, loc, args[3], "block_shape", &nb, &block))
		return false;
	if (r < 1 || r > 5)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "Expected 1 <= ndim <= 5 but got %d dimensions", r);
	if (ns != r)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "Expected %d strides but got %d", r, ns);
	if (nb != r)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "Expected block_shape to have %d dimensions but got %d", r, nb);
	if (r > IR_MAX_RANK)
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED,
				  "tensor descriptors of %d dimensions are not supported: blocks have at most %d", r, IR_MAX_RANK);
	int64_t bs[IR_MAX_RANK];
	for (int i = 0; i < r; i++) {
		if (block[i].kind != SV_INT)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC,
					  "the block shape of a tensor descriptor must be constexpr ints: dimension %d is %s", i,
					  sema_sv_str(s, block[i]));
		bs[i] = block[i].i;
	}
	if (!sema_check_shape(s, loc, r, bs))
		return false;
	sv ls = strides[r - 1];
	if (ls.kind == SV_INT || ls.kind == SV_BOOL) {
		if (ls.i != 1)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "Tensor descriptor last dim must be 1 but got %lld",
					  (long long)ls.i);
	} else {
		return sema_error(s, loc, TILEC_ERR_SEMANTIC,
				  "the last stride of a tensor descriptor must be the constant 1 (a contiguous last dimension), "
				  "got %s", sema_sv_str(s, ls));
	}
	int padding = 0;
	if (args[4].kind != SV_NONE) {
		sv p = args[4];
		if (p.kind == SV_STR && p.slen == 3 && !memcmp(p.s, "nan", 3))
			padding = 1;
		else if (!(p.kind == SV_STR && p.slen == 4 && !memcmp(p.s, "zero", 4)))
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "padding_option must be \"zero\" or \"nan\", got %s",
					  sema_sv_str(s, p));
	}
	ir_type bt = sema_type(s, base.id);
	ir_kind ek = (ir_kind)bt.pointee;
	if (padding && !ir_kind_is_float(ek))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "Padding option `nan` is not supported for integer blocks");
	sv d = {0};
	d.kind = SV_DESC;
	d.id = -1; /* no tensor map */
	d.i = padding;
	int32_t sh[IR_MAX_RANK];
	for (int i = 0; i < r; i++)
		sh[i] = (int32_t)bs[i];
	d.t = ir_block(ir_scalar(ek), r, sh);
	d.n = 1 + 2 * r;
	if (!(d.items = arena_alloc(s->a, sizeof(sv) * (size_t)d.n)))
		return nomem(s, loc);
	d.items[0] = base;
	for (int i = 0; i < r; i++) {
		int id = int_scalar(s, loc, shape[i], IR_I32, "shape", i);
		if (id < 0)
			return false;
		d.items[1 + i] = sema_tensor(id);
		if (i == r - 1) {
			d.items[1 + r + i] = sema_int(1);
		} else if (strides[i].kind == SV_INT) {
			d.items[1 + r + i] = strides[i];
		} else {
			if ((id = int_scalar(s, loc, strides[i], IR_I64, "stride", i)) < 0)
				return false;
			d.items[1 + r + i] = sema_tensor(id);
		}
	}
	if (!finish(s, loc, &d) || !derive_map(s, loc, base, &d))
		return false;
	*out = d;
	return true;
}

bool sema_desc_param(sema *s, src_loc loc, int first, sv *out)
{
	const ir_param *p = &s->f->params[first];
	const ir_desc_param *dp = ir_param_desc(s->f, first);
	int r = dp->rank;
	sv d = {0};
	d.kind = SV_DESC;
	d.id = dp->tensormap ? first + 1 + 2 * r : -1;
	d.t = ir_block(ir_scalar((ir_kind)p->type.pointee), r, dp->block);
	d.n = 1 + 2 * r;
	if (!(d.items = arena_alloc(s->a, sizeof(sv) * (size_t)d.n)))
		return nomem(s, loc);
	for (int i = 0; i < d.n; i++)
		d.items[i] = sema_tensor(first + i);
	d.items[2 * r] = sema_int(1); /* the last stride: an :1 parameter */
	if (!finish(s, loc, &d))
		return false;
	*out = d;
	return true;
}

bool sema_block_dim(sema *s, src_loc loc, int k, int r, int32_t size, sv offset, sv shape, sv stride, bool check, sv *p,
		    sv *m)
{
	sv ar, idx;
	sv range[2] = {sema_int(0), sema_int(size)};
	if (!sema_builtin(s, loc, "tl.arange", 2, range, &ar) || !sema_binop(s, loc, AST_OP_ADD, offset, ar, &idx))
		return false;
	int id = idx.id;
	for (int j = 0; j < r; j++)
		if (j != k && (id = sema_expand_dims(s, loc, id, j)) < 0)
			return false;
	idx = sema_tensor(id);
	if (check) {
		sv lo, hi, in;
		if (!sema_binop(s, loc, AST_OP_GE, idx, sema_int(0), &lo) || !sema_binop(s, loc, AST_OP_LT, idx, shape, &hi) ||
		    !sema_binop(s, loc, AST_OP_BITAND, lo, hi, &in) ||
		    (m->kind != SV_NONE && !sema_binop(s, loc, AST_OP_BITAND, *m, in, &in)))
			return false;
		*m = in;
	}
	sv term = sema_tensor(sema_cast(s, loc, id, ir_scalar(IR_I64)));
	return term.id >= 0 && (stride.kind == SV_NONE || sema_binop(s, loc, AST_OP_MUL, term, stride, &term)) &&
	       sema_binop(s, loc, AST_OP_ADD, *p, term, p);
}

/* The pointers and the bounds mask of the block at `offsets`, and the
 * offsets as i32 values (coords, NULL: not wanted). */
static bool addresses(sema *s, src_loc loc, sv d, sv offsets, const char *what, sv *ptr, sv *mask, int *coords)
{
	int r = d.t.rank, n;
	const sv *offs;
	if (offsets.kind != SV_TUPLE)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` of a tensor descriptor takes the offsets as a list, got %s",
				  what, sema_sv_str(s, offsets));
	n = offsets.n;
	offs = offsets.items;
	if (n != r)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "expected %d offsets, but got %d", r, n);
	sv p = d.items[0], m = {.kind = SV_NONE}, one = {.kind = SV_NONE};
	for (int k = 0; k < r; k++) {
		int o = int_scalar(s, loc, offs[k], IR_I32, "offset", k);
		if (coords)
			coords[k] = o;
		/* the last stride is 1 (descriptors require it) */
		if (o < 0 || !sema_block_dim(s, loc, k, r, d.t.shape[k], sema_tensor(o), d.items[1 + k],
					     k < r - 1 ? d.items[1 + r + k] : one, true, &p, &m))
			return false;
	}
	*ptr = p;
	*mask = m;
	return true;
}

/* Marks op, the load or store of a block of d, as one its tensor map may
 * copy (passes/pipeline.c and the sm_90a lowering decide): the
 * coordinates join its operands. */
static bool tensormap_access(sema *s, src_loc loc, sv d, const int *coords, ir_op *op)
{
	unsigned need = op && op->code == IR_OP_LOAD ? IR_FLAG_HAS_MASK | IR_FLAG_HAS_OTHER : IR_FLAG_HAS_MASK;
	if (!op || (op->code != IR_OP_LOAD && op->code != IR_OP_STORE) || (op->flags & need) != need)
		return true;
	int r = d.t.rank, n = op->nargs;
	int *args = arena_alloc(s->a, sizeof(int) * (size_t)(n + r));
	if (!args)
		return nomem(s, loc);
	memcpy(args, op->args, sizeof(int) * (size_t)n);
	memcpy(args + n, coords, sizeof(int) * (size_t)r);
	op->args = args;
	op->nargs = n + r;
	op->flags |= IR_FLAG_TENSORMAP;
	op->ival = d.id;
	return true;
}

bool sema_desc_load(sema *s, src_loc loc, sv d, sv offsets, sv *out)
{
	if (d.kind != SV_DESC)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`tl.load_tensor_descriptor` needs a tensor descriptor, got %s",
				  sema_sv_str(s, d));
	sv a[3];
	int coords[IR_MAX_RANK];
	if (!addresses(s, loc, d, offsets, "load", &a[0], &a[1], coords))
		return false;
	a[2] = d.i ? sema_float(NAN) : sema_int(0);
	if (!sema_builtin(s, loc, "tl.load", 3, a, out))
		return false;
	return d.id == -1 || d.i || tensormap_access(s, loc, d, coords, s->f->values[out->id].def);
}

bool sema_desc_store(sema *s, src_loc loc, sv d, sv offsets, sv value, sv *out)
{
	if (d.kind != SV_DESC)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`tl.store_tensor_descriptor` needs a tensor descriptor, got %s",
				  sema_sv_str(s, d));
	if (value.kind != SV_TENSOR || !ir_same_shape(sema_type(s, value.id), d.t))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC,
				  "the value stored through a tensor descriptor must have its block shape %s, got %s",
				  sema_type_str(s, d.t), sema_sv_str(s, value));
	sv a[3];
	int coords[IR_MAX_RANK];
	if (!addresses(s, loc, d, offsets, "store", &a[0], &a[2], coords))
		return false;
	a[1] = value;
	if (!sema_builtin(s, loc, "tl.store", 3, a, out))
		return false;
	ir_op *last = s->cur->nops ? s->cur->ops[s->cur->nops - 1] : NULL;
	return d.id == -1 || !last || last->code != IR_OP_STORE || tensormap_access(s, loc, d, coords, last);
}

static bool tuple(sema *s, src_loc loc, int n, const sv *items, sv *out)
{
	out->kind = SV_TUPLE;
	out->n = n;
	if (!(out->items = arena_alloc(s->a, sizeof(sv) * (size_t)(n + 1))))
		return nomem(s, loc);
	memcpy(out->items, items, sizeof(sv) * (size_t)n);
	return true;
}

bool sema_desc_attr(sema *s, src_loc loc, sv d, const char *name, sv *out)
{
	int r = d.t.rank;
	memset(out, 0, sizeof *out);
	if (!strcmp(name, "dtype")) {
		out->kind = SV_DTYPE;
		out->t = ir_elem(d.t);
		return true;
	}
	if (!strcmp(name, "block_shape")) {
		sv items[IR_MAX_RANK];
		for (int i = 0; i < r; i++)
			items[i] = sema_int(d.t.shape[i]);
		return tuple(s, loc, r, items, out);
	}
	if (!strcmp(name, "shape"))
		return tuple(s, loc, r, d.items + 1, out);
	if (!strcmp(name, "strides"))
		return tuple(s, loc, r, d.items + 1 + r, out);
	if (!strcmp(name, "load") || !strcmp(name, "store")) {
		out->kind = SV_METHOD;
		out->s = name;
		out->n = 1;
		if (!(out->items = arena_alloc(s->a, sizeof(sv))))
			return nomem(s, loc);
		out->items[0] = d;
		return true;
	}
	return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "tensor descriptor attribute `%s` is not supported yet", name);
}
