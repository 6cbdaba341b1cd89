/* memorder.c - a barrier between a store and a later load of the same
 * memory in one program.
 *
 * Triton's language promises that a load sees what the program stored
 * before it, whatever layouts the two ops get. The lowering spreads each
 * block over the threads by its own layout, so the thread that loads an
 * element is not always the one that stored it (flash attention's forward
 * kernel stores a row of scale factors to scratch and reads it straight
 * back into another layout), and nothing orders one thread's store before
 * another's load but a barrier (bar.sync orders global memory among the
 * CTA's threads; a cluster barrier among a cluster's). This pass inserts
 * one (IR_OP_BARRIER, ival 1: the whole program) before each global load
 * or cp.async copy whose pointer may reach memory a store or atomic wrote
 * since the last barrier on some path.
 *
 * "May reach" is decided by the pointer's roots: the kernel parameters it
 * is derived from (through ptr_add, splat, broadcast, reshapes, selects,
 * loop-carried values, if results); a pointer of any other origin (loaded
 * from memory, cast from an integer, assembly) reaches everything. Two
 * pointer parameters are taken not to overlap, as Triton's kernels assume.
 * Paths are followed through ifs (the union of both branches) and loops
 * (to a fixpoint over the back edge, so a load at the top of a body is
 * ordered after a store at its bottom). TMA copies read through the async
 * proxy, which a barrier does not order: they are not handled.
 *
 * Across a for loop's back edge the roots are not the whole story: a scalar
 * load whose address moves with the induction variable (base + c * iv +
 * loop-invariant terms, c != 0) never meets a scalar store of the same
 * form in an earlier iteration, so those stores alone do not order it.
 * FlagGems' MoE alignment reads and rewrites one counter an iteration;
 * with a barrier before each read, every iteration waited for memory. Nor
 * does a pointer block the loop carries, advanced by a constant step past
 * the block's span, meet what earlier iterations stored through it.
 */
#include "passes/passes.h"

#include <string.h>

#define ROOT_ANY (UINT64_C(1) << 63)

typedef struct order {
	ir_func *f;
	uint64_t *root;    /* per value: its roots, once known */
	uint8_t *state;    /* per value: 0 unknown, 1 being computed, 2 known */
	const ir_op **def; /* per region param: the op owning the region */
	int *def_region;   /* ...and which of its regions */
	uint8_t *inside;   /* per value: defined in the loop being asked about */
	const ir_op *inside_of;
} order;

/* A scalar address: base + coef * iv + cst + sum of tcoef[i] * term[i],
 * the terms values defined outside the loop (offsets in elements). */
#define AFFINE_TERMS 8
typedef struct affine {
	int base;
	int64_t coef, cst;
	int nterm;
	int term[AFFINE_TERMS];
	int64_t tcoef[AFFINE_TERMS];
} affine;

static uint64_t roots(order *o, int v);

static uint64_t param_roots(order *o, int v)
{
	const ir_op *op = o->def[v];
	if (!op)
		return ROOT_ANY;
	const ir_region *r = &op->regions[o->def_region[v]];
	int idx = 0;
	while (idx < r->nparams && r->params[idx] != v)
		idx++;
	const ir_op *y;
	switch (op->code) {
	case IR_OP_FOR:
		if (idx == 0)
			return 0; /* the induction variable */
		y = r->nops ? r->ops[r->nops - 1] : NULL;
		return roots(o, op->args[3 + idx - 1]) |
		       (y && y->code == IR_OP_YIELD && idx - 1 < y->nargs ? roots(o, y->args[idx - 1]) : ROOT_ANY);
	case IR_OP_WHILE:
		if (o->def_region[v] == 0) {
			const ir_region *after = &op->regions[1];
			y = after->nops ? after->ops[after->nops - 1] : NULL;
			return roots(o, op->args[idx]) |
			       (y && y->code == IR_OP_YIELD && idx < y->nargs ? roots(o, y->args[idx]) : ROOT_ANY);
		} else {
			const ir_region *before = &op->regions[0];
			y = before->nops ? before->ops[before->nops - 1] : NULL;
			return y && y->code == IR_OP_CONDITION && idx + 1 < y->nargs ? roots(o, y->args[idx + 1]) : ROOT_ANY;
		}
	default:
		return ROOT_ANY; /* combine functions' params: scalars */
	}
}

static uint64_t op_roots(order *o, const ir_op *op, int v)
{
	int res = 0;
	while (res < op->nresults && op->results[res] != v)
		res++;
	const ir_op *y;
	switch (op->code) {
	case IR_OP_PTR_ADD: case IR_OP_SPLAT: case IR_OP_BROADCAST: case IR_OP_EXPAND_DIMS: case IR_OP_RESHAPE:
	case IR_OP_PERMUTE: case IR_OP_HINT: case IR_OP_FLIP:
		return roots(o, op->args[0]);
	case IR_OP_SELECT:
		return roots(o, op->args[1]) | roots(o, op->args[2]);
	case IR_OP_JOIN: case IR_OP_CAT:
		return roots(o, op->args[0]) | roots(o, op->args[1]);
	case IR_OP_SPLIT:
		return roots(o, op->args[0]);
	case IR_OP_IF: {
		uint64_t m = 0;
		for (int g = 0; g < op->nregions; g++) {
			const ir_region *r = &op->regions[g];
			y = r->nops ? r->ops[r->nops - 1] : NULL;
			m |= y && y->code == IR_OP_YIELD && res < y->nargs ? roots(o, y->args[res]) : ROOT_ANY;
		}
		return m;
	}
	case IR_OP_FOR:
		return roots(o, op->regions[0].params[1 + res]);
	case IR_OP_WHILE: {
		const ir_region *before = &op->regions[0];
		y = before->nops ? before->ops[before->nops - 1] : NULL;
		return y && y->code == IR_OP_CONDITION && res + 1 < y->nargs ? roots(o, y->args[res + 1]) : ROOT_ANY;
	}
	default:
		return ROOT_ANY;
	}
}

/* The parameters value v's pointers may come from (ROOT_ANY: anything).
 * A value met again while its roots are being computed (a loop-carried
 * pointer) adds nothing: its other sources decide. */
static uint64_t roots(order *o, int v)
{
	if (v < 0 || v >= o->f->nvalues)
		return ROOT_ANY;
	if (o->state[v] == 2)
		return o->root[v];
	if (o->state[v] == 1)
		return 0;
	o->state[v] = 1;
	uint64_t m;
	const ir_op *def = o->f->values[v].def;
	if (v < o->f->nparams)
		m = v < 63 ? UINT64_C(1) << v : ROOT_ANY;
	else if (def)
		m = op_roots(o, def, v);
	else
		m = param_roots(o, v);
	o->root[v] = m;
	o->state[v] = 2;
	return m;
}

static void note_params(order *o, const ir_region *r)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int g = 0; g < op->nregions; g++) {
			const ir_region *q = &op->regions[g];
			for (int k = 0; k < q->nparams; k++) {
				o->def[q->params[k]] = op;
				o->def_region[q->params[k]] = g;
			}
			note_params(o, q);
		}
	}
}

static bool overlaps(uint64_t a, uint64_t b)
{
	return (a & b) || ((a & ROOT_ANY) && b) || ((b & ROOT_ANY) && a);
}

static void mark_inside(order *o, const ir_region *r)
{
	for (int k = 0; k < r->nparams; k++)
		o->inside[r->params[k]] = 1;
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int k = 0; k < op->nresults; k++)
			o->inside[op->results[k]] = 1;
		for (int g = 0; g < op->nregions; g++)
			mark_inside(o, &op->regions[g]);
	}
}

static bool add_term(affine *a, int v, int64_t scale)
{
	for (int i = 0; i < a->nterm; i++)
		if (a->term[i] == v) {
			a->tcoef[i] += scale;
			return true;
		}
	if (a->nterm == AFFINE_TERMS)
		return false;
	a->term[a->nterm] = v;
	a->tcoef[a->nterm++] = scale;
	return true;
}

/* Adds scale * v (a scalar integer) to a; false where v is not affine in
 * the loop's induction variable. Integers are taken not to wrap, as the
 * pointer arithmetic they feed does not. */
static bool affine_int(order *o, const ir_op *loop, int v, int64_t scale, affine *a, int depth)
{
	const ir_value *val = &o->f->values[v];
	if (depth > 16 || val->type.rank || !ir_kind_is_int((ir_kind)val->type.kind) ||
	    scale > INT64_C(1) << 40 || scale < -(INT64_C(1) << 40))
		return false;
	if (v == loop->regions[0].params[0]) {
		a->coef += scale;
		return true;
	}
	if (!o->inside[v])
		return add_term(a, v, scale);
	const ir_op *d = val->def;
	if (!d)
		return false;
	switch (d->code) {
	case IR_OP_CONST:
		if (d->ival > INT32_MAX || d->ival < INT32_MIN)
			return false;
		a->cst += scale * d->ival;
		return true;
	case IR_OP_ADD:
		return affine_int(o, loop, d->args[0], scale, a, depth + 1) &&
		       affine_int(o, loop, d->args[1], scale, a, depth + 1);
	case IR_OP_SUB:
		return affine_int(o, loop, d->args[0], scale, a, depth + 1) &&
		       affine_int(o, loop, d->args[1], -scale, a, depth + 1);
	case IR_OP_MUL:
		for (int side = 0; side < 2; side++) {
			const ir_op *c = o->f->values[d->args[side]].def;
			if (c && c->code == IR_OP_CONST && c->ival <= INT32_MAX && c->ival >= INT32_MIN)
				return affine_int(o, loop, d->args[!side], scale * c->ival, a, depth + 1);
		}
		return false;
	case IR_OP_CAST:
		return ir_kind_is_int((ir_kind)o->f->values[d->args[0]].type.kind) &&
		       affine_int(o, loop, d->args[0], scale, a, depth + 1);
	default:
		return false;
	}
}

static bool affine_ptr(order *o, const ir_op *loop, int v, affine *a)
{
	for (int depth = 0; depth < 16; depth++) {
		const ir_value *val = &o->f->values[v];
		if (val->type.rank)
			return false;
		if (!o->inside[v]) {
			a->base = v;
			return true;
		}
		if (!val->def || val->def->code != IR_OP_PTR_ADD || !affine_int(o, loop, val->def->args[1], 1, a, 0))
			return false;
		v = val->def->args[0];
	}
	return false;
}

static bool affine_same(const affine *a, const affine *b)
{
	if (a->base != b->base || a->coef != b->coef || a->cst != b->cst)
		return false;
	int n = 0;
	for (int i = 0; i < a->nterm; i++) {
		if (!a->tcoef[i])
			continue;
		n++;
		int j = 0;
		while (j < b->nterm && b->term[j] != a->term[i])
			j++;
		if (j == b->nterm || b->tcoef[j] != a->tcoef[i])
			return false;
	}
	for (int j = 0; j < b->nterm; j++)
		n -= b->tcoef[j] != 0;
	return n == 0;
}

/* Whether every store of r that may reach m's memory writes through the
 * pointer block p itself (p >= 0), or else a scalar at the address `at`
 * names (in its own iteration). */
static bool stores_at(order *o, const ir_op *loop, const ir_region *r, uint64_t m, int p, const affine *at)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		if ((op->code == IR_OP_STORE || op->code == IR_OP_ATOMIC_RMW || op->code == IR_OP_ATOMIC_CAS) &&
		    overlaps(roots(o, op->args[0]), m)) {
			affine b = {.base = -1};
			if (p >= 0 ? op->args[0] != p : !affine_ptr(o, loop, op->args[0], &b) || !affine_same(at, &b))
				return false;
		}
		for (int g = 0; g < op->nregions; g++)
			if (!stores_at(o, loop, &op->regions[g], m, p, at))
				return false;
	}
	return true;
}

/* Bounds lo <= x <= hi for every element x of integer value v, from
 * constants, aranges and sums and constant multiples of them (offsets
 * within a pointer block); false for anything else. */
static bool offset_range(const ir_func *f, int v, int64_t *lo, int64_t *hi, int depth)
{
	const ir_op *d = f->values[v].def;
	int64_t alo, ahi, blo, bhi;
	if (!d || depth > 16 || !ir_kind_is_int((ir_kind)f->values[v].type.kind))
		return false;
	switch (d->code) {
	case IR_OP_CONST:
		*lo = *hi = d->ival;
		return d->ival <= INT32_MAX && d->ival >= INT32_MIN;
	case IR_OP_ARANGE:
		*lo = d->ival;
		*hi = d->ival + f->values[v].type.shape[0] - 1;
		return true;
	case IR_OP_SPLAT: case IR_OP_BROADCAST: case IR_OP_EXPAND_DIMS: case IR_OP_CAST:
		return offset_range(f, d->args[0], lo, hi, depth + 1);
	case IR_OP_ADD:
		if (!offset_range(f, d->args[0], &alo, &ahi, depth + 1) || !offset_range(f, d->args[1], &blo, &bhi, depth + 1))
			return false;
		*lo = alo + blo;
		*hi = ahi + bhi;
		return true;
	case IR_OP_MUL:
		if (!offset_range(f, d->args[0], &alo, &ahi, depth + 1) || !offset_range(f, d->args[1], &blo, &bhi, depth + 1) ||
		    blo != bhi || alo < -(INT64_C(1) << 31) || ahi > INT64_C(1) << 31)
			return false;
		*lo = blo < 0 ? ahi * blo : alo * blo;
		*hi = blo < 0 ? alo * blo : ahi * blo;
		return true;
	default:
		return false;
	}
}

/* The elements pointer block v reaches past its uniform part: lo and hi
 * of the offsets added to a scalar pointer, in elements. */
static bool block_span(const ir_func *f, int v, int64_t *lo, int64_t *hi, int depth)
{
	const ir_op *d = f->values[v].def;
	if (!f->values[v].type.rank) {
		*lo = *hi = 0;
		return true;
	}
	if (!d || depth > 16)
		return false;
	int64_t olo, ohi;
	switch (d->code) {
	case IR_OP_SPLAT:
		*lo = *hi = 0;
		return true;
	case IR_OP_BROADCAST: case IR_OP_EXPAND_DIMS:
		return block_span(f, d->args[0], lo, hi, depth + 1);
	case IR_OP_PTR_ADD:
		if (!block_span(f, d->args[0], lo, hi, depth + 1) || !offset_range(f, d->args[1], &olo, &ohi, 0))
			return false;
		*lo += olo;
		*hi += ohi;
		return true;
	default:
		return false;
	}
}

/* Whether load reads through a pointer block p the for loop carries,
 * advanced by a constant step an iteration that passes the block's span,
 * and the loop stores into its memory through p alone: each iteration
 * then reads elements no earlier one wrote (vLLM's lightning attention
 * reduction loads a [d, e] block an iteration and rewrites it). */
static bool carried_block(order *o, const ir_op *loop, const ir_op *load, uint64_t m)
{
	const ir_region *body = &loop->regions[0];
	int p = load->args[0], idx = 1;
	while (idx < body->nparams && body->params[idx] != p)
		idx++;
	const ir_op *y = body->nops ? body->ops[body->nops - 1] : NULL;
	if (idx >= body->nparams || !y || y->code != IR_OP_YIELD || idx - 1 >= y->nargs || 3 + idx - 1 >= loop->nargs)
		return false;
	const ir_op *next = o->f->values[y->args[idx - 1]].def;
	int64_t step, lo, hi;
	if (!next || next->code != IR_OP_PTR_ADD || next->args[0] != p ||
	    !offset_range(o->f, next->args[1], &step, &hi, 0) || step != hi ||
	    !block_span(o->f, loop->args[3 + idx - 1], &lo, &hi, 0))
		return false;
	return hi - lo < (step < 0 ? -step : step) && stores_at(o, loop, body, m, p, NULL);
}

/* Whether load's address differs in every iteration of loop from those
 * the loop's stores into its memory wrote in earlier ones. */
static bool private_to_iteration(order *o, const ir_op *loop, const ir_op *load, uint64_t m)
{
	if (load->code != IR_OP_LOAD || (m & ROOT_ANY))
		return false;
	if (o->inside_of != loop) {
		memset(o->inside, 0, (size_t)o->f->nvalues);
		mark_inside(o, &loop->regions[0]);
		o->inside_of = loop;
	}
	if (o->f->values[load->args[0]].type.rank)
		return carried_block(o, loop, load, m);
	affine a = {.base = -1};
	return affine_ptr(o, loop, load->args[0], &a) && a.coef && stores_at(o, loop, &loop->regions[0], m, -1, &a);
}

/* The roots stored since the last barrier, after r, starting from
 * `pending`; marks the loads that need one. When r is the body of the for
 * loop `loop`, `carried` holds what its earlier iterations stored, which a
 * load of r's own top level private to its iteration does not wait for. */
static uint64_t walk(order *o, const ir_region *r, uint64_t pending, const ir_op *loop, uint64_t carried)
{
	for (int i = 0; i < r->nops; i++) {
		ir_op *op = r->ops[i];
		switch (op->code) {
		case IR_OP_STORE: case IR_OP_ATOMIC_RMW: case IR_OP_ATOMIC_CAS:
			pending |= roots(o, op->args[0]);
			break;
		case IR_OP_LOAD: case IR_OP_ASYNC_COPY: {
			uint64_t m = roots(o, op->args[op->code == IR_OP_LOAD ? 0 : 2]);
			if (overlaps(m, pending) || (overlaps(m, carried) && !private_to_iteration(o, loop, op, m))) {
				op->flags |= IR_FLAG_AFTER_STORE;
				pending = carried = 0;
			}
			break;
		}
		case IR_OP_BARRIER: case IR_OP_ASYNC_WAIT:
			pending = carried = 0;
			break;
		case IR_OP_IF: {
			pending |= carried;
			carried = 0;
			uint64_t m = op->nregions > 1 ? walk(o, &op->regions[1], pending, NULL, 0) : pending;
			pending = walk(o, &op->regions[0], pending, NULL, 0) | m;
			break;
		}
		case IR_OP_FOR: case IR_OP_WHILE: {
			pending |= carried;
			carried = 0;
			/* what reaches the head: the entry's, and each iteration's end */
			uint64_t back = 0, out;
			for (int round = 0; round < 64; round++) {
				if (op->code == IR_OP_FOR) {
					out = walk(o, &op->regions[0], pending, op, back);
				} else {
					out = walk(o, &op->regions[0], pending | back, NULL, 0);
					out = walk(o, &op->regions[1], out, NULL, 0);
				}
				if ((out | back) == back)
					break;
				back |= out;
			}
			/* a for may run no iteration; a while leaves after its before region */
			pending = op->code == IR_OP_FOR ? pending | back : walk(o, &op->regions[0], pending | back, NULL, 0);
			break;
		}
		default:
			break;
		}
	}
	return pending | carried;
}

/* Inserts the barriers before the flagged ops of r and its regions. */
static bool insert(order *o, ir_region *r)
{
	int n = 0;
	for (int i = 0; i < r->nops; i++) {
		for (int g = 0; g < r->ops[i]->nregions; g++)
			if (!insert(o, &r->ops[i]->regions[g]))
				return false;
		n += (r->ops[i]->flags & IR_FLAG_AFTER_STORE) != 0;
	}
	if (!n)
		return true;
	ir_op **ops = arena_alloc(o->f->arena, sizeof(ir_op *) * (size_t)(r->nops + n));
	if (!ops)
		return false;
	int k = 0;
	for (int i = 0; i < r->nops; i++) {
		ir_op *op = r->ops[i];
		if (op->flags & IR_FLAG_AFTER_STORE) {
			ir_op *b = ir_op_new(o->f, IR_OP_BARRIER, op->loc, 0, NULL, 0, NULL, 0);
			if (!b)
				return false;
			b->ival = 1;
			ops[k++] = b;
			op->flags &= ~IR_FLAG_AFTER_STORE;
		}
		ops[k++] = op;
	}
	r->ops = ops;
	r->nops = k;
	return true;
}

tilec_status order_stores_loads(tilec_ctx *ctx, ir_func *f)
{
	size_t n = (size_t)f->nvalues + 1;
	order o = {.f = f};
	o.root = arena_alloc(f->arena, sizeof(uint64_t) * n);
	o.state = arena_alloc(f->arena, n);
	o.def = arena_alloc(f->arena, sizeof(ir_op *) * n);
	o.def_region = arena_alloc(f->arena, sizeof(int) * n);
	o.inside = arena_alloc(f->arena, n);
	if (!o.root || !o.state || !o.def || !o.def_region || !o.inside) {
		diag_error(ctx, (src_loc){0}, "out of memory while ordering stores and loads");
		return TILEC_ERR_NOMEM;
	}
	memset(o.state, 0, n);
	memset(o.def, 0, sizeof(ir_op *) * n);
	note_params(&o, &f->body);
	walk(&o, &f->body, 0, NULL, 0);
	if (!insert(&o, &f->body)) {
		diag_error(ctx, (src_loc){0}, "out of memory while ordering stores and loads");
		return TILEC_ERR_NOMEM;
	}
	return TILEC_OK;
}
