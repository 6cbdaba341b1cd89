/* pipeline.c - loads that feed tl.dot issued one iteration ahead.
 *
 * In a runtime for loop with a positive constant step whose body stores
 * nothing and has no nested regions, a load whose only users are dots of
 * that body is software-pipelined: a prologue before the loop loads the
 * first iteration's tile, the body begins by loading the next iteration's
 * (its pointer, mask and `other` recomputed for iv + step from the values
 * the body will yield, and masked off past the end of the loop), and the
 * dots read the tile carried in from the previous iteration. The latency
 * of iteration i+1's global loads then overlaps iteration i's shared-memory
 * staging and tensor-core work; this is Triton's num_stages = 2, applied
 * when num_stages is at least 2 (deeper pipelines are not built).
 *
 * What a pipelined load needs is recomputed by cloning the cheap,
 * effect-free ops it depends on, so the pass only adds ops, loop-carried values and one
 * prologue per load; the original load goes away and the ops only it used
 * are left for LLVM to delete. Nothing else moves, and since the body
 * stores nothing, loading earlier reads the same memory.
 */
#include "passes/passes.h"

#include <string.h>

typedef struct pipe {
	ir_func *f;
	bool oom;
} pipe;

/* Ops a pipelined load's operands may be recomputed from: no effects, no
 * memory, no regions, and cheap (a dot or a reduction is not worth a copy). */
static bool clonable(const ir_op *op)
{
	switch (op->code) {
	case IR_OP_LOAD: case IR_OP_STORE: case IR_OP_FOR: case IR_OP_IF: case IR_OP_WHILE:
	case IR_OP_YIELD: case IR_OP_CONDITION: case IR_OP_DOT: case IR_OP_REDUCE:
		return false;
	default:
		return op->nregions == 0 && op->nargs <= 8 && op->nresults <= 4;
	}
}

/* Index of the op of body b defining value v, or -1 (a parameter or a
 * value from outside the body). */
static int def_index(const ir_func *f, const ir_region *b, int v)
{
	const ir_op *d = f->values[v].def;
	for (int i = 0; d && i < b->nops; i++)
		if (b->ops[i] == d)
			return i;
	return -1;
}

/* Marks in `in` the body ops value v depends on; false when one of them is
 * not clonable (or is `stop`). */
static bool slice(const ir_func *f, const ir_region *b, int v, const ir_op *stop, bool *in)
{
	int i = def_index(f, b, v);
	if (i < 0 || in[i])
		return true;
	const ir_op *op = b->ops[i];
	if (op == stop || !clonable(op))
		return false;
	in[i] = true;
	for (int a = 0; a < op->nargs; a++)
		if (!slice(f, b, op->args[a], stop, in))
			return false;
	return true;
}

/* Renames a value through map (indexed by the ids that existed before
 * the pass touched the loop; later ids are their own names). */
typedef struct rename {
	int *to;
	int n;
} rename;

static int mapped(const rename *m, int v)
{
	return v < m->n && m->to[v] >= 0 ? m->to[v] : v;
}

static bool rename_init(pipe *p, rename *m)
{
	m->n = p->f->nvalues;
	m->to = arena_alloc(p->f->arena, sizeof(int) * (size_t)(m->n + 1));
	if (!m->to) {
		p->oom = true;
		return false;
	}
	for (int i = 0; i < m->n; i++)
		m->to[i] = -1;
	return true;
}

static void rename_set(rename *m, int from, int to)
{
	if (from < m->n)
		m->to[from] = to;
}

/* Puts a new op (NULL: out of memory) into r at index *at, which
 * advances past it. */
static ir_op *place(pipe *p, ir_region *r, int *at, ir_op *op)
{
	if (!op || !ir_region_append(p->f, r, op)) {
		p->oom = true;
		return NULL;
	}
	memmove(&r->ops[*at + 1], &r->ops[*at], sizeof(ir_op *) * (size_t)(r->nops - 1 - *at));
	r->ops[(*at)++] = op;
	return op;
}

/* Appends v to the int array *a of *n elements (arena memory). */
static bool append_int(pipe *p, int **a, int *n, int v)
{
	int *x = arena_realloc(p->f->arena, *a, sizeof(int) * (size_t)*n, sizeof(int) * (size_t)(*n + 1));
	if (!x) {
		p->oom = true;
		return false;
	}
	x[(*n)++] = v;
	*a = x;
	return true;
}

/* A copy of op with its arguments renamed through map, inserted into r at
 * *at (which advances); map learns the copy's results. */
static ir_op *clone_into(pipe *p, const ir_op *op, rename *map, ir_region *r, int *at)
{
	int args[8];
	ir_type types[4];
	if (op->nargs > 8 || op->nresults > 4 || op->nregions) {
		p->oom = true; /* not reached: slice() admits clonable ops only */
		return NULL;
	}
	for (int i = 0; i < op->nargs; i++)
		args[i] = mapped(map, op->args[i]);
	for (int i = 0; i < op->nresults; i++)
		types[i] = p->f->values[op->results[i]].type;
	ir_op *c = place(p, r, at, ir_op_new(p->f, op->code, op->loc, op->nargs, args, op->nresults, types, 0));
	if (!c)
		return NULL;
	c->ival = op->ival;
	c->ival2 = op->ival2;
	c->fval = op->fval;
	c->axis = op->axis;
	c->sub = op->sub;
	c->flags = op->flags;
	c->name = op->name;
	memcpy(c->ints, op->ints, sizeof c->ints);
	for (int i = 0; i < op->nresults; i++) {
		rename_set(map, op->results[i], c->results[i]);
		p->f->values[c->results[i]].name = p->f->values[op->results[i]].name;
	}
	return c;
}

/* A new op of one result placed at *at; -1 when out of memory. */
static int emit(pipe *p, ir_region *r, int *at, ir_opcode code, src_loc loc, int nargs, const int *args, ir_type t,
		int sub)
{
	ir_op *op = place(p, r, at, ir_op_new(p->f, code, loc, nargs, args, 1, &t, 0));
	if (!op)
		return -1;
	op->sub = sub;
	return op->results[0];
}

/* Clones the load's slice (ops marked in `in`, in body order) and the
 * load itself at r[*at], renamed through map, its mask and-ed with
 * `lo < hi`; returns the loaded value, -1 on failure. */
static int clone_load(pipe *p, ir_op *const *ops, int nops, const bool *in, const ir_op *load, rename *map, int lo,
		      int hi, ir_region *r, int *at)
{
	ir_func *f = p->f;
	for (int i = 0; i < nops; i++)
		if (in[i] && !clone_into(p, ops[i], map, r, at))
			return -1;
	ir_type lt = f->values[load->results[0]].type;
	ir_type mt = ir_block(ir_scalar(IR_I1), lt.rank, lt.shape);
	int cmp_args[2] = {lo, hi};
	int cond = emit(p, r, at, IR_OP_CMP, load->loc, 2, cmp_args, ir_scalar(IR_I1), IR_CMP_LT);
	int mask = cond < 0 ? -1 : emit(p, r, at, IR_OP_SPLAT, load->loc, 1, &cond, mt, 0);
	if (mask < 0)
		return -1;
	int args[3] = {mapped(map, load->args[0]), mask, -1};
	int nargs = 2;
	if (load->flags & IR_FLAG_HAS_MASK) {
		int and_args[2] = {mapped(map, load->args[1]), mask};
		if ((args[1] = emit(p, r, at, IR_OP_AND, load->loc, 2, and_args, mt, 0)) < 0)
			return -1;
	}
	if (load->flags & IR_FLAG_HAS_OTHER)
		args[nargs++] = mapped(map, load->args[2]);
	ir_op *c = place(p, r, at, ir_op_new(f, IR_OP_LOAD, load->loc, nargs, args, 1, &lt, 0));
	if (!c)
		return -1;
	c->flags = load->flags | IR_FLAG_HAS_MASK;
	c->name = load->name;
	f->values[c->results[0]].name = f->values[load->results[0]].name;
	return c->results[0];
}

/* The load at body index li: are all its users dots of the body? */
static bool feeds_only_dots(const ir_region *b, int li)
{
	int v = b->ops[li]->results[0];
	bool used = false;
	for (int i = 0; i < b->nops; i++) {
		const ir_op *op = b->ops[i];
		for (int a = 0; a < op->nargs; a++) {
			if (op->args[a] != v)
				continue;
			if (op->code != IR_OP_DOT || a > 1)
				return false;
			used = true;
		}
	}
	return used;
}

/* Pipelines the load at body index li of loop `loop` (at index pos of
 * region r): false when it does not qualify or memory ran out. */
static bool pipeline_load(pipe *p, ir_region *r, int pos, ir_op *loop, int li)
{
	ir_func *f = p->f;
	ir_region *b = &loop->regions[0];
	const ir_op *load = b->ops[li];
	ir_op *yield = b->ops[b->nops - 1];
	int ncarried = loop->nargs - 3, nops = b->nops;
	if ((load->flags & IR_FLAG_VOLATILE) || !feeds_only_dots(b, li))
		return false;
	bool *in = arena_alloc(f->arena, sizeof(bool) * (size_t)nops);
	bool *next_in = arena_alloc(f->arena, sizeof(bool) * (size_t)nops);
	bool *needs = arena_alloc(f->arena, sizeof(bool) * (size_t)(ncarried + 1));
	ir_op **orig = arena_alloc(f->arena, sizeof(ir_op *) * (size_t)nops);
	if (!in || !next_in || !needs || !orig) {
		p->oom = true;
		return false;
	}
	memcpy(orig, b->ops, sizeof(ir_op *) * (size_t)nops);
	for (int a = 0; a < load->nargs; a++)
		if (!slice(f, b, load->args[a], NULL, in))
			return false;
	/* The carried values the load reads, and how the body computes their
	 * next values: clonable ops that do not use the load. */
	for (int i = 0; i <= nops; i++) {
		const ir_op *op = i == nops ? load : in[i] ? orig[i] : NULL;
		for (int a = 0; op && a < op->nargs; a++)
			for (int c = 0; c < ncarried; c++)
				needs[c] |= op->args[a] == b->params[1 + c];
	}
	for (int c = 0; c < ncarried; c++)
		if (needs[c] && !slice(f, b, yield->args[c], load, next_in))
			return false;
	int lb = loop->args[0], ub = loop->args[1], step = loop->args[2], iv = b->params[0];
	ir_type lt = f->values[load->results[0]].type;
	rename first_map, cur_map, next_map;
	if (!rename_init(p, &first_map) || !rename_init(p, &cur_map) || !rename_init(p, &next_map))
		return false;

	/* The prologue: the first iteration's tile, just before the loop. */
	rename_set(&first_map, iv, lb);
	for (int c = 0; c < ncarried; c++)
		rename_set(&first_map, b->params[1 + c], loop->args[3 + c]);
	int at = pos;
	int first = clone_load(p, orig, nops, in, load, &first_map, lb, ub, r, &at);
	if (first < 0)
		return false;

	/* The body's start: the carried values' next values, then the next
	 * iteration's tile (masked off when iv + step reaches ub). */
	int bat = 0;
	for (int i = 0; i < nops; i++)
		if (next_in[i] && !clone_into(p, orig[i], &cur_map, b, &bat))
			return false;
	int add_args[2] = {iv, step};
	int iv_next = emit(p, b, &bat, IR_OP_ADD, loop->loc, 2, add_args, f->values[iv].type, 0);
	if (iv_next < 0)
		return false;
	rename_set(&next_map, iv, iv_next);
	for (int c = 0; c < ncarried; c++)
		if (needs[c])
			rename_set(&next_map, b->params[1 + c], mapped(&cur_map, yield->args[c]));
	int following = clone_load(p, orig, nops, in, load, &next_map, iv_next, ub, b, &bat);
	if (following < 0)
		return false;

	/* Carry the tile: a new loop argument, body parameter, yield operand
	 * and loop result; the dots read the parameter. */
	int carried = ir_region_add_param(f, b, lt);
	int res = ir_value_new(f, lt);
	if (carried < 0 || res < 0) {
		p->oom = true;
		return false;
	}
	f->values[res].def = loop;
	f->values[res].def_index = loop->nresults;
	if (!append_int(p, &loop->args, &loop->nargs, first) || !append_int(p, &loop->results, &loop->nresults, res) ||
	    !append_int(p, &yield->args, &yield->nargs, following))
		return false;
	int old = load->results[0];
	for (int i = 0; i < b->nops; i++) {
		ir_op *op = b->ops[i];
		for (int a = 0; op->code == IR_OP_DOT && a < 2; a++)
			if (op->args[a] == old)
				op->args[a] = carried;
	}
	for (int i = 0; i < b->nops; i++)
		if (b->ops[i] == load) {
			memmove(&b->ops[i], &b->ops[i + 1], sizeof(ir_op *) * (size_t)(b->nops - 1 - i));
			b->nops--;
			break;
		}
	return true;
}

/* A loop the pass may touch: constant positive step, bounds of one type,
 * a body without stores or nested regions. */
static bool loop_qualifies(const ir_func *f, const ir_op *loop)
{
	const ir_region *b = &loop->regions[0];
	const ir_op *step = f->values[loop->args[2]].def;
	if (!step || step->code != IR_OP_CONST || step->ival <= 0 || !b->nops ||
	    b->ops[b->nops - 1]->code != IR_OP_YIELD)
		return false;
	ir_type t = f->values[b->params[0]].type;
	if (!ir_type_eq(f->values[loop->args[0]].type, t) || !ir_type_eq(f->values[loop->args[1]].type, t) ||
	    !ir_type_eq(f->values[loop->args[2]].type, t))
		return false;
	for (int i = 0; i < b->nops; i++)
		if (b->ops[i]->code == IR_OP_STORE || b->ops[i]->nregions)
			return false;
	return true;
}

static void walk(pipe *p, ir_region *r)
{
	for (int i = 0; i < r->nops && !p->oom; i++) {
		ir_op *op = r->ops[i];
		for (int g = 0; g < op->nregions; g++)
			walk(p, &op->regions[g]);
		if (op->code != IR_OP_FOR || !loop_qualifies(p->f, op))
			continue;
		for (int li = 0; li < op->regions[0].nops && !p->oom; li++) {
			if (op->regions[0].ops[li]->code != IR_OP_LOAD)
				continue;
			int before = r->nops;
			if (pipeline_load(p, r, i, op, li)) {
				i += r->nops - before; /* the prologue went in before the loop */
				li = -1;               /* the body changed: scan it again */
			}
		}
	}
}

tilec_status pipeline_loads(tilec_ctx *ctx, ir_func *f)
{
	if (f->num_stages < 2)
		return TILEC_OK;
	pipe p = {f, false};
	walk(&p, &f->body);
	if (p.oom) {
		diag_error(ctx, (src_loc){0}, "out of memory while pipelining loads");
		return TILEC_ERR_NOMEM;
	}
	return TILEC_OK;
}
