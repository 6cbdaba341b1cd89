/* pipeline.c - software pipelining of the loads that feed tl.dot.
 *
 * In a runtime for loop with a positive constant step whose body stores
 * nothing and has no nested regions, a load whose only users are dots of
 * that body (directly, or through a transpose or a dequantization such as
 * w.to(tl.float16) * scale that only dots read) is pipelined; the
 * operand's preparation then runs on the tile read from the ring. What a
 * pipelined load needs (pointer, mask,
 * `other`) is recomputed for a later iteration by cloning the cheap,
 * effect-free ops it depends on, with the induction variable and the
 * carried values it reads renamed to their values in that iteration; the
 * pass only adds ops and loop-carried values, the original load goes away
 * and the ops only it used are left for ir_prune (compile.c runs it after
 * the passes: the layouts would count them as uses). Since the body
 * stores nothing, loading earlier reads the same memory.
 *
 * With asynchronous copies (every target has cp.async, sm_80 and newer),
 * num_stages = S >= 2 gives Triton's multi-stage pipeline: each load
 * becomes a ring of S shared-memory tiles (LOCAL_ALLOC). A prologue issues
 * the copies of iterations 0 .. S-2, one commit group per iteration; the
 * body starts by waiting until at most S-2 groups are in flight (its own
 * tile has landed) with one barrier, reads its tile from slot i % S
 * (LOCAL_LOAD, which the dots take straight from shared memory), then
 * issues the copies of iteration i + S-1 into the slot that iteration i-1
 * read, the barrier having retired those reads (at the body's end, after
 * its dots; with copies_first, decode GEMVs' loops, right after the wait).
 * Copies past the end are masked off (they zero-fill), so the group count
 * stays the same on every path. The carried values the copies' addresses read are carried S-1
 * iterations ahead as extra loop values; after the loop all copies are
 * waited for and the rings freed. For mma.sync (reuse_read_tile) and S >= 3
 * the rings have S-1 tiles, as Triton's: the copies of iteration i + S-1
 * go into the tile iteration i just read, behind a second barrier after
 * the dots; the smaller footprint lets more blocks share an SM (fp16
 * 128x128x64 tiles at 4 stages: 96 KB instead of 128, two blocks per SM
 * of an H100 where one fitted). Otherwise rings get one tile more (S + 1, the copies
 * going S-1 tiles ahead of the read, into the tile iteration i-2 read)
 * when they fit the caller's spare budget: wgmma's groups may then stay
 * in flight across the back edge. Only loads whose masked-off elements are
 * zero qualify (`other` absent or 0), since that is what a zero-filling
 * copy gives. In a persistent kernel (the loop inside a loop over tiles),
 * the copies may run on from one tile into the next instead of the
 * pipeline starting again for each (plan_continue below).
 *
 * Without asynchronous copies (a target below sm_80), or where a load's
 * tile can only be copied in pieces under 4 bytes (cp.async's smallest;
 * the caller says which from axis info) and the loop's tiles are small
 * (has_narrow_load), num_stages >= 2 issues each load
 * of the loop one iteration ahead into registers instead: a
 * prologue loads the first iteration's tile, the body begins by loading
 * the next iteration's (masked off past the end of the loop) and the dots
 * read the tile carried in from the previous iteration (not in a loop
 * inside one of constant bounds where the target has cp.async: the
 * prologue would run every outer iteration). Rings copied in such pieces keep two
 * stages on wgmma (ring_stages). A loop that got
 * rings has its other loads, scalars and 1-D rows (scales), issued one
 * iteration ahead into registers the same way where dots alone read them
 * or each scales a dot's result (blockwise fp8's a_s[:, None]).
 */
#include "passes/passes.h"

#include <string.h>

typedef struct pipe {
	ir_func *f;
	bool async;  /* multi-stage rings of asynchronous copies */
	uint32_t spare_budget; /* rings up to this many bytes get a spare tile */
	bool reuse;  /* S-1 tiles per ring, the copies into the tile just read */
	bool first;  /* S tiles: the copies before the dots */
	bool tma;    /* descriptor blocks are copied by their tensor maps */
	bool run_on; /* TMA copies may run on across a persistent loop */
	bool prep;   /* loads reaching dots through a dequantization qualify */
	uint32_t sm_smem; /* shared memory per SM: a spare tile must not cost a block (0: may) */
	int loops;   /* loops around the region being walked */
	const bool *narrow; /* by value id: a load cp.async cannot copy (NULL: none) */
	bool oom;
	/* the loop whose body holds the region being walked (NULL: none), the
	 * region holding that loop and its index there (kept up to date as
	 * ops go in before it) */
	ir_op *outer;
	ir_region *outer_region;
	int outer_pos;
} pipe;

/* Ops a pipelined load's operands may be recomputed from: no effects, no
 * memory, no regions, and cheap (a dot or a reduction is not worth a copy). */
static bool clonable(const ir_op *op)
{
	if (ir_op_orders_memory(op))
		return false;
	switch (op->code) {
	case IR_OP_LOAD: case IR_OP_FOR: case IR_OP_IF: case IR_OP_WHILE:
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
	if (!op || !ir_region_insert(p->f, r, *at, op)) {
		p->oom = true;
		return NULL;
	}
	(*at)++;
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

/* Clones the ops marked in `in` (in body order) at r[*at], renamed
 * through map; false when out of memory. */
static bool clone_marked(pipe *p, ir_op *const *ops, int nops, const bool *in, rename *map, ir_region *r, int *at)
{
	for (int i = 0; i < nops; i++)
		if (in[i] && !clone_into(p, ops[i], map, r, at))
			return false;
	return true;
}

/* `lo < hi` at r[*at]; -1 when out of memory. */
static int less_than(pipe *p, ir_region *r, int *at, src_loc loc, int lo, int hi)
{
	int cmp_args[2] = {lo, hi};
	return emit(p, r, at, IR_OP_CMP, loc, 2, cmp_args, ir_scalar(IR_I1), IR_CMP_LT);
}

/* The load's mask renamed through map and-ed with `cond` (the iteration
 * it is issued for exists), at r[*at]; -1 on failure. */
static int iteration_mask(pipe *p, const ir_op *load, rename *map, int cond, ir_region *r, int *at)
{
	ir_type lt = p->f->values[load->results[0]].type;
	ir_type mt = ir_block(ir_scalar(IR_I1), lt.rank, lt.shape);
	int mask = cond < 0 ? -1 : emit(p, r, at, IR_OP_SPLAT, load->loc, 1, &cond, mt, 0);
	if (mask < 0 || !(load->flags & IR_FLAG_HAS_MASK))
		return mask;
	int and_args[2] = {mapped(map, load->args[1]), mask};
	return emit(p, r, at, IR_OP_AND, load->loc, 2, and_args, mt, 0);
}

/* Clones the load's slice (ops marked in `in`) and the load itself at
 * r[*at], renamed through map, its mask and-ed with `lo < hi`; returns the
 * loaded value, -1 on failure. */
static int clone_load(pipe *p, ir_op *const *ops, int nops, const bool *in, const ir_op *load, rename *map, int lo,
		      int hi, ir_region *r, int *at)
{
	ir_func *f = p->f;
	if (!clone_marked(p, ops, nops, in, map, r, at))
		return -1;
	ir_type lt = f->values[load->results[0]].type;
	int args[3] = {mapped(map, load->args[0]), iteration_mask(p, load, map, less_than(p, r, at, load->loc, lo, hi), r, at),
		       -1};
	int nargs = 2;
	if (args[1] < 0)
		return -1;
	if (load->flags & IR_FLAG_HAS_OTHER)
		args[nargs++] = mapped(map, load->args[2]);
	ir_op *c = place(p, r, at, ir_op_new(f, IR_OP_LOAD, load->loc, nargs, args, 1, &lt, 0));
	if (!c)
		return -1;
	c->flags = (load->flags & ~IR_FLAG_TENSORMAP) | IR_FLAG_HAS_MASK;
	c->name = load->name;
	f->values[c->results[0]].name = f->values[load->results[0]].name;
	return c->results[0];
}

/* Ops that may sit between a pipelined load and the dots reading it: a
 * transpose, and with `prep` the dequantization of weights stored narrower
 * than the dot takes them (w.to(tl.float16) * scale, int4 nibbles unpacked
 * and interleaved), computed after the tile is read from its ring. */
static bool operand_prep(const ir_op *op, bool prep)
{
	if (!prep)
		return op->code == IR_OP_PERMUTE && op->ints[0] == 1 && op->ints[1] == 0;
	switch (op->code) {
	case IR_OP_PERMUTE: case IR_OP_CAST: case IR_OP_BITCAST: case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL:
	case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR: case IR_OP_SHL: case IR_OP_SHR: case IR_OP_MIN:
	case IR_OP_MAX: case IR_OP_NEG: case IR_OP_NOT: case IR_OP_SELECT: case IR_OP_FMA: case IR_OP_JOIN:
	case IR_OP_RESHAPE: case IR_OP_BROADCAST: case IR_OP_EXPAND_DIMS:
		return op->nresults == 1;
	default:
		return false;
	}
}

/* Are all users of value v dots of body b (as A or B), or ops preparing
 * an operand (operand_prep, at most `depth` deep: AWQ's packed weights
 * reach its dot through three interleaves, shifts, a mask, a subtraction,
 * a conversion and a scale, 12 ops) whose users all are? */
static bool only_dots_use(const ir_region *b, int v, int depth, bool prep)
{
	bool used = false;
	for (int i = 0; i < b->nops; i++) {
		const ir_op *op = b->ops[i];
		bool reads = false, operand = op->code == IR_OP_DOT;
		for (int a = 0; a < op->nargs; a++)
			if (op->args[a] == v) {
				reads = true;
				operand &= a <= 1;
			}
		/* once per op: an interleave's join reads its value twice */
		if (reads && !operand &&
		    !(depth > 0 && operand_prep(op, prep) && only_dots_use(b, op->results[0], depth - 1, prep)))
			return false;
		used |= reads;
	}
	return used;
}

/* The load at body index li: do all its users lead to dots of the body,
 * directly or through a transpose (`tl.dot(a, b.T)`) or a dequantization
 * (`tl.dot(x, w.to(tl.float16))`), or (with `scales`) does it scale a
 * dot's result (ir_scaled_dot)? */
static bool feeds_only_dots(const pipe *p, const ir_region *b, int li, bool scales)
{
	int v = b->ops[li]->results[0], axis;
	return only_dots_use(b, v, p->prep ? 16 : 1, p->prep) || (scales && ir_scaled_dot(p->f, b, v, &axis));
}

/* Points the users of value `old` in body b at `now`. */
static void replace_uses(ir_region *b, int old, int now)
{
	for (int i = 0; i < b->nops; i++)
		for (int a = 0; a < b->ops[i]->nargs; a++)
			if (b->ops[i]->args[a] == old)
				b->ops[i]->args[a] = now;
}

/* Pipelines the load at body index li of loop `loop` (at index pos of
 * region r): false when it does not qualify or memory ran out. */
static bool pipeline_load(pipe *p, ir_region *r, int pos, ir_op *loop, int li, bool scales)
{
	ir_func *f = p->f;
	ir_region *b = &loop->regions[0];
	const ir_op *load = b->ops[li];
	ir_op *yield = b->ops[b->nops - 1];
	int ncarried = loop->nargs - 3, nops = b->nops;
	if ((load->flags & IR_FLAG_VOLATILE) || !feeds_only_dots(p, b, li, scales))
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
	replace_uses(b, load->results[0], carried);
	for (int i = 0; i < b->nops; i++)
		if (b->ops[i] == load) {
			memmove(&b->ops[i], &b->ops[i + 1], sizeof(ir_op *) * (size_t)(b->nops - 1 - i));
			b->nops--;
			break;
		}
	return true;
}

/* ---- multi-stage pipelines of asynchronous copies ---- */

static bool is_zero_const(const ir_func *f, int v)
{
	const ir_op *d = f->values[v].def;
	if (d && d->code == IR_OP_SPLAT)
		d = f->values[d->args[0]].def;
	if (!d || d->code != IR_OP_CONST)
		return false;
	ir_kind k = (ir_kind)f->values[d->results[0]].type.kind;
	/* +0.0 only: a zero-filled copy has no sign */
	return ir_kind_is_float(k) ? d->fval == 0.0 && 1.0 / d->fval > 0 : d->ival == 0;
}

/* The load at body index li can become an asynchronous copy into a ring:
 * a 2-D tile that only dots read, whose masked-off elements are zero. */
static bool copy_qualifies(const pipe *p, const ir_region *b, int li)
{
	const ir_func *f = p->f;
	const ir_op *load = b->ops[li];
	return load->code == IR_OP_LOAD && !(load->flags & IR_FLAG_VOLATILE) &&
	       f->values[load->results[0]].type.rank == 2 &&
	       (!(load->flags & IR_FLAG_HAS_OTHER) || is_zero_const(f, load->args[2])) && feeds_only_dots(p, b, li, false);
}

/* A descriptor block the ring's copies take through its tensor map. */
static bool tma_load(const pipe *p, const ir_op *load)
{
	return p->tma && load->flags & IR_FLAG_TENSORMAP && p->f->values[load->results[0]].type.rank == 2;
}

static int emit_const(pipe *p, ir_region *r, int *at, src_loc loc, ir_type t, int64_t v)
{
	ir_op *op = place(p, r, at, ir_op_new(p->f, IR_OP_CONST, loc, 0, NULL, 1, &t, 0));
	if (!op)
		return -1;
	op->ival = v;
	return op->results[0];
}

/* An effect-only op (no results) at r[*at]; false when out of memory. */
static ir_op *emit_effect(pipe *p, ir_region *r, int *at, ir_opcode code, src_loc loc, int nargs, const int *args)
{
	return place(p, r, at, ir_op_new(p->f, code, loc, nargs, args, 0, NULL, 0));
}

/* The copy of one load into ring slot `slot`, for the iteration whose
 * renaming is `map` (masked off unless `exists`, an i1 scalar). */
static bool emit_copy(pipe *p, const ir_op *load, int ring, int slot, rename *map, int exists, ir_region *r, int *at)
{
	if (exists < 0)
		return false;
	if (tma_load(p, load)) {
		/* issued only for iterations that exist: a copy never waited for
		 * would leave its barrier a phase behind */
		int args[5] = {ring, slot, exists, mapped(map, load->args[3]), mapped(map, load->args[4])};
		ir_op *op = emit_effect(p, r, at, IR_OP_TMA_COPY, load->loc, 5, args);
		if (op)
			op->ival = load->ival;
		return op != NULL;
	}
	int mask = iteration_mask(p, load, map, exists, r, at);
	int args[4] = {ring, slot, mapped(map, load->args[0]), mask};
	ir_op *op = mask < 0 ? NULL : emit_effect(p, r, at, IR_OP_ASYNC_COPY, load->loc, 4, args);
	if (op)
		op->flags = IR_FLAG_HAS_MASK;
	return op != NULL;
}

/* Adds a loop-carried value: initial value `init`, next value `next`
 * (yielded); returns the body parameter, -1 when out of memory. */
static int add_carried(pipe *p, ir_op *loop, int init, int next)
{
	ir_func *f = p->f;
	ir_region *b = &loop->regions[0];
	ir_op *yield = b->ops[b->nops - 1];
	ir_type t = f->values[init].type;
	int param = ir_region_add_param(f, b, t);
	int res = ir_value_new(f, t);
	if (param < 0 || res < 0) {
		p->oom = true;
		return -1;
	}
	f->values[res].def = loop;
	f->values[res].def_index = loop->nresults;
	if (!append_int(p, &loop->args, &loop->nargs, init) || !append_int(p, &loop->results, &loop->nresults, res) ||
	    !append_int(p, &yield->args, &yield->nargs, next))
		return -1;
	return param;
}

/* Whether rings of ring_bytes (S + 1 tiles each) leave as many blocks on
 * an SM as rings of S tiles would: a spare tile that costs a block (tile
 * 128x128x64 in 8 warps: one block of 128 KB instead of two of 96) loses
 * more than it gains (H200: 0.84 of Triton against 1.03; 64x64x32 in 4
 * warps 0.90 against 0.97). Registers bound the blocks too, estimated from
 * the accumulators of the loop's dots (one register per 32-bit element)
 * and 40 more per thread: where they allow no more blocks, the spare tile
 * stays (128x128x32 in 4 warps: 3 blocks either way). A loop inside
 * another (a persistent kernel's) keeps it: its programs stay, one per SM
 * however many would fit. */
static bool spare_keeps_blocks(const pipe *p, const ir_region *b, uint64_t ring_bytes, int S)
{
	if (!p->sm_smem || p->loops > 0)
		return true;
	int64_t threads = 32 * (p->f->num_warps > 0 ? p->f->num_warps : 4), regs = 40;
	for (int i = 0; i < b->nops; i++)
		if (b->ops[i]->code == IR_OP_DOT) {
			ir_type ct = p->f->values[b->ops[i]->results[0]].type;
			regs += (ir_numel(ct) * ir_kind_bytes((ir_kind)ct.kind) / 4 + threads - 1) / threads;
		}
	uint64_t by_regs = 65536 / ((uint64_t)((regs + 7) & ~7) * (uint64_t)threads);
	uint64_t plain = ring_bytes / (uint64_t)(S + 1) * (uint64_t)S;
	uint64_t with = p->sm_smem / (ring_bytes + 1024), without = p->sm_smem / (plain + 1024); /* 1 KB: the system's */
	return (with < by_regs ? with : by_regs) >= (without < by_regs ? without : by_regs);
}

/* ---- copies that run on across an outer loop ----
 *
 * A persistent kernel's loop over tiles holds the pipelined loop over K.
 * Restarting that pipeline for each tile leaves the tensor cores idle
 * while the next tile's first copies land, and through the epilogue.
 * Where the copies' operands come only from the inner iteration and from
 * values the outer body computes before the inner loop from its induction
 * variable (clonable ops of the outer iteration), the copies run on instead (Triton's flatten=True
 * reaches the same with one fused loop): the rings live around the outer
 * loop, the prologue before it issues the first S-1 copies of the first
 * tile, and the copy an inner iteration issues S-1 iterations ahead may
 * belong to the next tile (or further, with fewer than S-1 inner
 * iterations). Where it is lives in an ahead state carried through both
 * loops: the inner index k (0 .. T-1 of T inner iterations), the outer
 * induction variable o, and the outer body's scalars for o, recomputed (in
 * an if) each time k wraps. A copy exists while o is below the outer
 * bound. The next tile's first copies are then in flight during this
 * tile's last iterations and its epilogue. Only scalars are carried: a
 * TMA copy's operands are scalar coordinates, and the tensors a cp.async
 * copy's addresses read from the outer body (the rows of a tile) are
 * computed again with each copy from the scalars they derive from. */

#define CONT_MAX_VALUES 8

typedef struct cont_plan {
	ir_op *outer;      /* the loop around the pipelined one */
	ir_op **oops;      /* the outer body's ops, as they were */
	bool *oin;         /* the scalar ones the copies' operands need */
	bool *tin;         /* the tensor ones, computed again with each copy */
	int noops;
	int ev[CONT_MAX_VALUES], nev; /* the outer body's values the copies read */
	int trips;         /* T, computed before the outer loop */
} cont_plan;

typedef struct cont_state {
	int k, o, vals[CONT_MAX_VALUES];
} cont_state;

static bool is_param(const ir_region *r, int v)
{
	for (int i = 0; i < r->nparams; i++)
		if (r->params[i] == v)
			return true;
	return false;
}

/* Adds v, a scalar of outer body r, to the values the copies read; false
 * when it cannot be computed ahead. */
static bool cont_scalar(const ir_func *f, const ir_region *r, const ir_op *loop, cont_plan *cp, int v)
{
	for (int j = 0; j < cp->nev; j++)
		if (cp->ev[j] == v)
			return true;
	if (cp->nev == CONT_MAX_VALUES || !slice(f, r, v, loop, cp->oin))
		return false;
	cp->ev[cp->nev++] = v;
	return true;
}

static bool cont_operand(const ir_func *f, const ir_region *r, const ir_op *loop, cont_plan *cp, int v);

/* Marks in cp->tin the tensor ops of outer body r that value v (defined
 * there) depends on, down to scalars (cont_scalar) and values from outside
 * the body; false when one is not clonable or reads a carried value. */
static bool cont_tensor(const ir_func *f, const ir_region *r, const ir_op *loop, cont_plan *cp, int v)
{
	int d = def_index(f, r, v);
	if (d < 0 || cp->tin[d])
		return true;
	const ir_op *op = r->ops[d];
	if (op == loop || !clonable(op))
		return false;
	cp->tin[d] = true;
	for (int a = 0; a < op->nargs; a++)
		if (!cont_operand(f, r, loop, cp, op->args[a]))
			return false;
	return true;
}

/* What the copies need of a value v they read in outer body r: nothing for
 * the outer induction variable and values from outside r, the scalar or
 * the tensor ops it comes from otherwise; false for a carried value of r
 * or one that cannot be computed ahead. */
static bool cont_operand(const ir_func *f, const ir_region *r, const ir_op *loop, cont_plan *cp, int v)
{
	if (v == r->params[0])
		return true;
	if (is_param(r, v))
		return false; /* an outer carried value */
	if (def_index(f, r, v) < 0)
		return true;
	return f->values[v].type.rank ? cont_tensor(f, r, loop, cp, v) : cont_scalar(f, r, loop, cp, v);
}

/* Whether the mask of `load` (of inner body b) reads a value of outer body
 * r: bounds of the tile, which a pipeline per tile tests once a tile (LLVM
 * hoists them out of the K loop) and copies running on would test in every
 * iteration. For cp.async copies of descriptor blocks that measured slower
 * than starting each tile again (docs/PERF.md); TMA copies have no mask. */
static bool mask_reads_tile(pipe *p, const ir_region *r, const ir_region *b, const ir_op *load)
{
	ir_func *f = p->f;
	if (!(load->flags & IR_FLAG_HAS_MASK))
		return false;
	int mask = load->args[1];
	bool *mine = arena_alloc(f->arena, sizeof(bool) * (size_t)b->nops);
	if (!mine) {
		p->oom = true;
		return true;
	}
	if (mask == r->params[0] || def_index(f, r, mask) >= 0 || !slice(f, b, mask, NULL, mine))
		return true;
	for (int i = 0; i < b->nops; i++)
		for (int a = 0; mine[i] && a < b->ops[i]->nargs; a++)
			if (b->ops[i]->args[a] == r->params[0] || def_index(f, r, b->ops[i]->args[a]) >= 0)
				return true;
	return false;
}

/* Whether the copies of loop (body ops orig, slices `in`, loads `sel`) may
 * run on across the loop around it (p->outer); fills cp but `trips`. */
static bool plan_continue(pipe *p, ir_region *r, const ir_op *loop, ir_op *const *orig, int nops, const bool *in,
			  const bool *sel, const bool *needs, int ncarried, cont_plan *cp)
{
	ir_func *f = p->f;
	ir_op *outer = p->outer;
	memset(cp, 0, sizeof *cp);
	if (!outer || !p->run_on || outer->code != IR_OP_FOR || r != &outer->regions[0] || !p->outer_region)
		return false;
	const ir_op *ostep = f->values[outer->args[2]].def;
	ir_type ot = f->values[r->params[0]].type;
	if (!ostep || ostep->code != IR_OP_CONST || ostep->ival <= 0 || !ir_type_eq(f->values[outer->args[0]].type, ot) ||
	    !ir_type_eq(f->values[outer->args[1]].type, ot) || !ir_type_eq(f->values[outer->args[2]].type, ot))
		return false;
	for (int c = 0; c < ncarried; c++)
		if (needs[c])
			return false;
	for (int i = 0; i < nops; i++)
		if (sel[i] && !tma_load(p, orig[i]) && mask_reads_tile(p, r, &loop->regions[0], orig[i]))
			return false;
	int loops = 0;
	for (int i = 0; i < r->nops; i++)
		loops += r->ops[i]->code == IR_OP_FOR || r->ops[i]->code == IR_OP_WHILE;
	if (loops != 1)
		return false;
	for (int a = 0; a < 3; a++) {
		int d = def_index(f, r, loop->args[a]);
		if ((d >= 0 && r->ops[d]->code != IR_OP_CONST) || is_param(r, loop->args[a]))
			return false;
	}
	cp->outer = outer;
	cp->noops = r->nops;
	cp->oops = arena_alloc(f->arena, sizeof(ir_op *) * (size_t)r->nops);
	cp->oin = arena_alloc(f->arena, sizeof(bool) * (size_t)r->nops);
	cp->tin = arena_alloc(f->arena, sizeof(bool) * (size_t)r->nops);
	if (!cp->oops || !cp->oin || !cp->tin) {
		p->oom = true;
		return false;
	}
	memcpy(cp->oops, r->ops, sizeof(ir_op *) * (size_t)r->nops);
	for (int i = 0; i < nops; i++) {
		if (!in[i] && !sel[i])
			continue;
		for (int a = 0; a < orig[i]->nargs; a++)
			if (!cont_operand(f, r, loop, cp, orig[i]->args[a]))
				return false;
	}
	for (int i = 0; i < cp->noops; i++)
		for (int a = 0; cp->oin[i] && a < cp->oops[i]->nargs; a++)
			if (cp->oops[i]->args[a] != r->params[0] && is_param(r, cp->oops[i]->args[a]))
				return false;
	return true;
}

/* A renaming of the copies' operands to the iteration of state s: the
 * outer induction variable o, the outer body's scalars and the tensors
 * computed from them, the inner induction variable lb + k step (emitted
 * at r[*at]). */
static bool cont_map(pipe *p, const cont_plan *cp, const ir_op *loop, const cont_state *s, rename *map, ir_region *r,
		     int *at)
{
	ir_func *f = p->f;
	const ir_region *b = &loop->regions[0];
	ir_type ivt = f->values[b->params[0]].type;
	if (!rename_init(p, map))
		return false;
	rename_set(map, cp->outer->regions[0].params[0], s->o);
	for (int j = 0; j < cp->nev; j++)
		rename_set(map, cp->ev[j], s->vals[j]);
	if (!clone_marked(p, cp->oops, cp->noops, cp->tin, map, r, at))
		return false;
	int k = s->k;
	if (f->values[loop->args[2]].def->ival != 1) {
		int a[2] = {k, loop->args[2]};
		k = emit(p, r, at, IR_OP_MUL, loop->loc, 2, a, ivt, 0);
	}
	int a[2] = {loop->args[0], k};
	int iv = k < 0 ? -1 : emit(p, r, at, IR_OP_ADD, loop->loc, 2, a, ivt, 0);
	rename_set(map, b->params[0], iv);
	return iv >= 0;
}

/* The outer body's values for outer iteration o, cloned at r[*at]. */
static bool cont_values(pipe *p, const cont_plan *cp, int o, int *vals, ir_region *r, int *at)
{
	rename map;
	if (!rename_init(p, &map))
		return false;
	rename_set(&map, cp->outer->regions[0].params[0], o);
	if (!clone_marked(p, cp->oops, cp->noops, cp->oin, &map, r, at))
		return false;
	for (int j = 0; j < cp->nev; j++)
		vals[j] = mapped(&map, cp->ev[j]);
	return true;
}

/* State s moved on by one copy, at r[*at]: k + 1, or 0 and the next outer
 * iteration (its values computed in an if) where k reaches T. */
static bool cont_advance(pipe *p, const cont_plan *cp, cont_state *s, ir_region *r, int *at, src_loc loc)
{
	ir_func *f = p->f;
	ir_type kt = f->values[s->k].type, ot = f->values[s->o].type;
	int one = emit_const(p, r, at, loc, kt, 1), zero = emit_const(p, r, at, loc, kt, 0);
	int a[2] = {s->k, one};
	int k1 = one < 0 || zero < 0 ? -1 : emit(p, r, at, IR_OP_ADD, loc, 2, a, kt, 0);
	a[0] = k1;
	a[1] = cp->trips;
	int wrap = k1 < 0 ? -1 : emit(p, r, at, IR_OP_CMP, loc, 2, a, ir_scalar(IR_I1), IR_CMP_EQ);
	int a3[3] = {wrap, zero, k1};
	int k = wrap < 0 ? -1 : emit(p, r, at, IR_OP_SELECT, loc, 3, a3, kt, 0);
	a[0] = s->o;
	a[1] = cp->outer->args[2];
	int next = k < 0 ? -1 : emit(p, r, at, IR_OP_ADD, loc, 2, a, ot, 0);
	int a4[3] = {wrap, next, s->o};
	int o = next < 0 ? -1 : emit(p, r, at, IR_OP_SELECT, loc, 3, a4, ot, 0);
	if (o < 0)
		return false;
	if (cp->nev) {
		ir_type types[CONT_MAX_VALUES];
		for (int j = 0; j < cp->nev; j++)
			types[j] = f->values[cp->ev[j]].type;
		ir_op *iff = place(p, r, at, ir_op_new(f, IR_OP_IF, loc, 1, &wrap, cp->nev, types, 2));
		int vals[CONT_MAX_VALUES], tat = 0, eat = 0;
		if (!iff || !cont_values(p, cp, o, vals, &iff->regions[0], &tat) ||
		    !place(p, &iff->regions[0], &tat, ir_op_new(f, IR_OP_YIELD, loc, cp->nev, vals, 0, NULL, 0)) ||
		    !place(p, &iff->regions[1], &eat, ir_op_new(f, IR_OP_YIELD, loc, cp->nev, s->vals, 0, NULL, 0)))
			return false;
		for (int j = 0; j < cp->nev; j++)
			s->vals[j] = iff->results[j];
	}
	s->k = k;
	s->o = o;
	return true;
}

/* The inner trip count T (0 when the inner loop runs no iteration), at
 * r[*at]. */
static int trip_count(pipe *p, const ir_op *loop, ir_region *r, int *at)
{
	ir_func *f = p->f;
	ir_type t = f->values[loop->args[0]].type;
	int lb = loop->args[0], ub = loop->args[1], step = loop->args[2];
	int64_t step_v = f->values[step].def->ival;
	int a[2] = {ub, lb};
	int n = emit(p, r, at, IR_OP_SUB, loop->loc, 2, a, t, 0);
	if (step_v != 1) {
		int c = emit_const(p, r, at, loop->loc, t, step_v - 1);
		a[0] = n;
		a[1] = c;
		n = n < 0 || c < 0 ? -1 : emit(p, r, at, IR_OP_ADD, loop->loc, 2, a, t, 0);
		a[0] = n;
		a[1] = step;
		n = n < 0 ? -1 : emit(p, r, at, IR_OP_DIV, loop->loc, 2, a, t, 0);
	}
	int pos = less_than(p, r, at, loop->loc, lb, ub), zero = emit_const(p, r, at, loop->loc, t, 0);
	int a3[3] = {pos, n, zero};
	return n < 0 || pos < 0 || zero < 0 ? -1 : emit(p, r, at, IR_OP_SELECT, loop->loc, 3, a3, t, 0);
}

/* Rewrites loop `loop` (at index pos of region r) into an S-stage pipeline
 * of asynchronous copies; false when no load qualifies or memory ran out. */
static bool pipeline_async(pipe *p, ir_region *r, int pos, ir_op *loop, int S)
{
	ir_func *f = p->f;
	ir_region *b = &loop->regions[0];
	ir_op *yield = b->ops[b->nops - 1];
	int ncarried = loop->nargs - 3, nops = b->nops;
	bool *in = arena_alloc(f->arena, sizeof(bool) * (size_t)nops);
	bool *sel = arena_alloc(f->arena, sizeof(bool) * (size_t)nops);
	bool *needs = arena_alloc(f->arena, sizeof(bool) * (size_t)(ncarried + 1));
	ir_op **orig = arena_alloc(f->arena, sizeof(ir_op *) * (size_t)nops);
	if (!in || !sel || !needs || !orig) {
		p->oom = true;
		return false;
	}
	memcpy(orig, b->ops, sizeof(ir_op *) * (size_t)nops);
	/* the loads, and the ops their operands need (in) */
	int nsel = 0;
	for (int li = 0; li < nops; li++) {
		if (!copy_qualifies(p, b, li))
			continue;
		bool *mine = arena_alloc(f->arena, sizeof(bool) * (size_t)nops);
		bool ok = mine != NULL;
		for (int a = 0; ok && a < orig[li]->nargs; a++)
			ok = slice(f, b, orig[li]->args[a], NULL, mine);
		if (!mine)
			p->oom = true;
		if (!ok)
			continue;
		for (int i = 0; i < nops; i++)
			in[i] |= mine[i];
		sel[li] = true;
		nsel++;
	}
	if (!nsel)
		return false;
	/* The carried values the copies' addresses read, closed over what
	 * computing their next values reads; those ops join `in`. */
	for (bool grew = true; grew;) {
		grew = false;
		for (int c = 0; c < ncarried; c++) {
			bool read = false;
			for (int i = 0; i < nops && !read; i++)
				for (int a = 0; (in[i] || sel[i]) && a < orig[i]->nargs; a++)
					read |= orig[i]->args[a] == b->params[1 + c];
			for (int d = 0; d < ncarried && !read; d++)
				read = needs[d] && yield->args[d] == b->params[1 + c];
			if (!read || needs[c])
				continue;
			if (!slice(f, b, yield->args[c], NULL, in))
				return false;
			needs[c] = grew = true;
		}
	}
	int lb = loop->args[0], ub = loop->args[1], step = loop->args[2], iv = b->params[0];
	ir_type ivt = f->values[iv].type, i32 = ir_scalar(IR_I32);
	int64_t step_v = f->values[step].def->ival;
	src_loc loc = loop->loc;
	int *ring = arena_alloc(f->arena, sizeof(int) * (size_t)nops);
	int *state = arena_alloc(f->arena, sizeof(int) * (size_t)(ncarried + 1));
	if (!ring || !state) {
		p->oom = true;
		return false;
	}

	/* N tiles per ring: S-1 when reusing the tile just read; else S, or
	 * S + 1 when they fit the spare budget, so that the copies of iteration
	 * i + S-1 go into the tile iteration i-2 read and an asynchronous dot
	 * of iteration i-1 may still be reading its own (the loop is flagged
	 * IR_FLAG_SPARE_TILE). */
	uint64_t ring_bytes = 0;
	for (int i = 0; i < nops; i++)
		if (sel[i]) {
			ir_type lt = f->values[orig[i]->results[0]].type;
			ring_bytes += (uint64_t)(S + 1) * (uint64_t)lt.shape[0] * (uint64_t)lt.shape[1] *
				      (uint64_t)ir_kind_bytes((ir_kind)lt.kind);
		}
	int N = p->reuse && S >= 3 ? S - 1 : ring_bytes <= p->spare_budget && spare_keeps_blocks(p, b, ring_bytes, S) ? S + 1 : S;
	if (N > S)
		loop->flags |= IR_FLAG_SPARE_TILE;
	/* copies that run on across the outer loop: the rings and the
	 * prologue go before that loop (pr at *pat) */
	cont_plan cp;
	bool cont = plan_continue(p, r, loop, orig, nops, in, sel, needs, ncarried, &cp);
	int at = pos;
	ir_region *pr = cont ? p->outer_region : r;
	int *pat = cont ? &p->outer_pos : &at;

	/* Before the loop: the rings, then the copies of iterations 0 .. S-2. */
	int ntma = 0;
	for (int i = 0; i < nops; i++) {
		if (!sel[i])
			continue;
		ir_type lt = f->values[orig[i]->results[0]].type;
		ir_type rt = {.kind = IR_SMEM, .pointee = lt.kind, .rank = 3, .shape = {N, lt.shape[0], lt.shape[1]}};
		ir_op *alloc = place(p, pr, pat, ir_op_new(f, IR_OP_LOCAL_ALLOC, orig[i]->loc, 0, NULL, 1, &rt, 0));
		if (!alloc)
			return false;
		if (tma_load(p, orig[i])) {
			alloc->flags |= IR_FLAG_TENSORMAP;
			ntma++;
		}
		ring[i] = alloc->results[0];
	}
	for (int c = 0; c < ncarried; c++)
		state[c] = loop->args[3 + c];
	cont_state cs = {0};
	if (cont) {
		/* the inner loop's constant bounds move out of the outer body,
		 * for the prologue before it */
		for (int a = 0; a < 3; a++) {
			int d = def_index(f, r, loop->args[a]);
			if (d < 0)
				continue;
			ir_op *c = r->ops[d];
			memmove(&r->ops[d], &r->ops[d + 1], sizeof(ir_op *) * (size_t)(r->nops - 1 - d));
			r->nops--;
			if (!place(p, pr, pat, c))
				return false;
		}
		cp.trips = trip_count(p, loop, pr, pat);
		cs.k = emit_const(p, pr, pat, loc, ivt, 0);
		cs.o = cp.outer->args[0];
		if (cp.trips < 0 || cs.k < 0 || !cont_values(p, &cp, cs.o, cs.vals, pr, pat))
			return false;
	}
	for (int s = 0; cont && s < S - 1; s++) {
		rename map;
		if (!cont_map(p, &cp, loop, &cs, &map, pr, pat) || !clone_marked(p, orig, nops, in, &map, pr, pat))
			return false;
		int both[2] = {less_than(p, pr, pat, loc, cs.k, cp.trips), less_than(p, pr, pat, loc, cs.o, cp.outer->args[1])};
		int exists = both[0] < 0 || both[1] < 0 ? -1 : emit(p, pr, pat, IR_OP_AND, loc, 2, both, ir_scalar(IR_I1), 0);
		int slot = emit_const(p, pr, pat, loc, i32, s);
		for (int i = 0; i < nops && slot >= 0; i++)
			if (sel[i] && !emit_copy(p, orig[i], ring[i], slot, &map, exists, pr, pat))
				return false;
		if (slot < 0 || !emit_effect(p, pr, pat, IR_OP_ASYNC_COMMIT, loc, 0, NULL) ||
		    !cont_advance(p, &cp, &cs, pr, pat, loc))
			return false;
	}
	int iv_s = lb;
	for (int s = 0; !cont && s < S - 1; s++) {
		rename map;
		if (!rename_init(p, &map))
			return false;
		rename_set(&map, iv, iv_s);
		for (int c = 0; c < ncarried; c++)
			if (needs[c])
				rename_set(&map, b->params[1 + c], state[c]);
		if (!clone_marked(p, orig, nops, in, &map, r, &at))
			return false;
		int slot = emit_const(p, r, &at, loc, i32, s);
		for (int i = 0; i < nops && slot >= 0; i++)
			if (sel[i] && !emit_copy(p, orig[i], ring[i], slot, &map, less_than(p, r, &at, orig[i]->loc, iv_s, ub), r, &at))
				return false;
		if (slot < 0 || !emit_effect(p, r, &at, IR_OP_ASYNC_COMMIT, loc, 0, NULL))
			return false;
		for (int c = 0; c < ncarried; c++)
			if (needs[c])
				state[c] = mapped(&map, yield->args[c]);
		int add_args[2] = {iv_s, step};
		if (s < S - 2 && (iv_s = emit(p, r, &at, IR_OP_ADD, loc, 2, add_args, ivt, 0)) < 0)
			return false;
	}

	/* The loop's new values: the slot it reads, and the needed carried
	 * values S-1 iterations ahead (running on: the slot, phase and ahead
	 * state carried through the outer loop as well). Each value's yield
	 * operand is set below. */
	int zero = emit_const(p, pr, pat, loc, i32, 0);
	if (zero < 0)
		return false;
	/* running on: the outer loop's parameters (slot, phase, ahead state),
	 * its yield operands set to the inner loop's results after it */
	int slot_init = zero, phase_init = zero, oy = 0;
	cont_state is = cs, os = cs;
	ir_op *oyield = cont ? cp.outer->regions[0].ops[cp.outer->regions[0].nops - 1] : NULL;
	if (cont) {
		oy = oyield->nargs;
		slot_init = add_carried(p, cp.outer, zero, zero);
		phase_init = ntma ? add_carried(p, cp.outer, zero, zero) : zero;
		os.k = add_carried(p, cp.outer, cs.k, cs.k);
		os.o = add_carried(p, cp.outer, cs.o, cs.o);
		for (int j = 0; j < cp.nev; j++)
			if ((os.vals[j] = add_carried(p, cp.outer, cs.vals[j], cs.vals[j])) < 0)
				return false;
		if (slot_init < 0 || phase_init < 0 || os.k < 0 || os.o < 0)
			return false;
	}
	int first_result = loop->nresults;
	int slot = add_carried(p, loop, slot_init, zero);
	int slot_y = yield->nargs - 1;
	/* the parity of the barrier phase a TMA ring's tile completes: it
	 * flips each time the slot wraps */
	int phase = slot < 0 || !ntma ? slot : add_carried(p, loop, phase_init, zero);
	int phase_y = yield->nargs - 1;
	if (slot < 0 || phase < 0)
		return false;
	int cont_y = yield->nargs; /* the inner ahead state's yield operands from here */
	if (cont) {
		is.k = add_carried(p, loop, os.k, os.k);
		is.o = add_carried(p, loop, os.o, os.o);
		for (int j = 0; j < cp.nev; j++)
			if ((is.vals[j] = add_carried(p, loop, os.vals[j], os.vals[j])) < 0)
				return false;
		if (is.k < 0 || is.o < 0)
			return false;
		/* the outer loop yields what the inner loop leaves (same order) */
		for (int i = 0; oy + i < oyield->nargs; i++)
			oyield->args[oy + i] = loop->results[first_result + i];
	}
	int *ahead = arena_alloc(f->arena, sizeof(int) * (size_t)(ncarried + 1));
	int *ahead_y = arena_alloc(f->arena, sizeof(int) * (size_t)(ncarried + 1));
	if (!ahead || !ahead_y) {
		p->oom = true;
		return false;
	}
	for (int c = 0; c < ncarried; c++) {
		if (needs[c] && (ahead[c] = add_carried(p, loop, state[c], state[c])) < 0)
			return false;
		ahead_y[c] = yield->nargs - 1;
	}

	/* The body's start: wait for this iteration's tiles and read them. */
	int bat = 0;
	ir_op *wait = emit_effect(p, b, &bat, IR_OP_ASYNC_WAIT, loc, 0, NULL);
	if (!wait)
		return false;
	wait->ival = S - 2;
	for (int i = 0; i < nops; i++) {
		if (!sel[i])
			continue;
		ir_type lt = f->values[orig[i]->results[0]].type;
		int args[3] = {ring[i], slot, phase};
		if (tma_load(p, orig[i]) && !emit_effect(p, b, &bat, IR_OP_TMA_WAIT, loc, 3, args))
			return false;
		ir_op *ld = place(p, b, &bat, ir_op_new(f, IR_OP_LOCAL_LOAD, orig[i]->loc, 2, args, 1, &lt, 0));
		if (!ld)
			return false;
		f->values[ld->results[0]].name = f->values[orig[i]->results[0]].name;
		replace_uses(b, orig[i]->results[0], ld->results[0]);
	}
	/* The body's end, after its dots: the copies of iteration i + S-1
	 * (their address arithmetic then overlaps the last tensor-core work,
	 * and nothing makes ldmatrix wait for the copies' issue). With S tiles
	 * and dots that read theirs synchronously (copies_first), the tile they
	 * refill was read in iteration i-1, which the wait's barrier retired:
	 * they go right after it, S-1 iterations in flight through the dots
	 * instead of S-2 (a loop of a few iterations, a decode GEMV's, waits on
	 * its copies more than on its dots). */
	int eat = b->nops - 1;
	bool early = p->first && N == S && !ntma && !cont;
	int *cat = early ? &bat : &eat;
	int before = b->nops;
	int c0 = emit_const(p, b, cat, loc, i32, 0), c1 = emit_const(p, b, cat, loc, i32, 1);
	int cS = emit_const(p, b, cat, loc, i32, N), cL = emit_const(p, b, cat, loc, i32, S - 1);
	if (c0 < 0 || c1 < 0 || cS < 0 || cL < 0)
		return false;
	int a2[2] = {slot, c0}, wslot;
	if (N == S - 1) {
		/* every warp is done reading this iteration's tile */
		wslot = emit_effect(p, b, cat, IR_OP_BARRIER, loc, 0, NULL) ? slot : -1;
	} else if (N == S) {
		/* slot - 1, wrapped */
		int first = emit(p, b, cat, IR_OP_CMP, loc, 2, a2, ir_scalar(IR_I1), IR_CMP_EQ);
		a2[1] = c1;
		int prev = emit(p, b, cat, IR_OP_SUB, loc, 2, a2, i32, 0);
		int a3[3] = {first, cL, prev};
		wslot = first < 0 || prev < 0 ? -1 : emit(p, b, cat, IR_OP_SELECT, loc, 3, a3, i32, 0);
	} else {
		/* slot + S-1, wrapped at N */
		a2[1] = cL;
		int sum = emit(p, b, cat, IR_OP_ADD, loc, 2, a2, i32, 0);
		int a[2] = {sum, cS};
		int ge = sum < 0 ? -1 : emit(p, b, cat, IR_OP_CMP, loc, 2, a, ir_scalar(IR_I1), IR_CMP_GE);
		int less = sum < 0 ? -1 : emit(p, b, cat, IR_OP_SUB, loc, 2, a, i32, 0);
		int a3[3] = {ge, less, sum};
		wslot = ge < 0 || less < 0 ? -1 : emit(p, b, cat, IR_OP_SELECT, loc, 3, a3, i32, 0);
	}
	if (wslot < 0)
		return false;
	rename map;
	/* the copies exist while lo < hi: the iteration S-1 ahead, or (running
	 * on) the outer iteration the ahead state names */
	int lo, hi;
	if (cont) {
		if (!cont_map(p, &cp, loop, &is, &map, b, cat))
			return false;
		lo = is.o;
		hi = cp.outer->args[1];
	} else {
		a2[0] = iv;
		a2[1] = emit_const(p, b, cat, loc, ivt, (int64_t)(S - 1) * step_v);
		lo = a2[1] < 0 ? -1 : emit(p, b, cat, IR_OP_ADD, loc, 2, a2, ivt, 0);
		hi = ub;
		if (lo < 0 || !rename_init(p, &map))
			return false;
		rename_set(&map, iv, lo);
		for (int c = 0; c < ncarried; c++)
			if (needs[c])
				rename_set(&map, b->params[1 + c], ahead[c]);
	}
	if (!clone_marked(p, orig, nops, in, &map, b, cat))
		return false;
	for (int i = 0; i < nops; i++)
		if (sel[i] && !emit_copy(p, orig[i], ring[i], wslot, &map, less_than(p, b, cat, orig[i]->loc, lo, hi), b, cat))
			return false;
	if (!emit_effect(p, b, cat, IR_OP_ASYNC_COMMIT, loc, 0, NULL))
		return false;
	if (early)
		eat += b->nops - before; /* the ops placed before it */
	a2[0] = slot;
	a2[1] = c1;
	int inc = emit(p, b, &eat, IR_OP_ADD, loc, 2, a2, i32, 0);
	a2[0] = inc;
	a2[1] = cS;
	int wrap = inc < 0 ? -1 : emit(p, b, &eat, IR_OP_CMP, loc, 2, a2, ir_scalar(IR_I1), IR_CMP_EQ);
	int a4[3] = {wrap, c0, inc};
	int next_slot = wrap < 0 ? -1 : emit(p, b, &eat, IR_OP_SELECT, loc, 3, a4, i32, 0);
	if (next_slot < 0)
		return false;
	int next_phase = -1;
	if (ntma) {
		a2[0] = phase;
		a2[1] = c1;
		int flipped = emit(p, b, &eat, IR_OP_XOR, loc, 2, a2, i32, 0);
		int a5[3] = {wrap, flipped, phase};
		if (flipped < 0 || (next_phase = emit(p, b, &eat, IR_OP_SELECT, loc, 3, a5, i32, 0)) < 0)
			return false;
	}
	/* the yields of the new values: the slot (and phase), the ahead values
	 * or state */
	for (int c = 0; c < ncarried; c++)
		if (needs[c])
			yield->args[ahead_y[c]] = mapped(&map, yield->args[c]);
	if (ntma)
		yield->args[phase_y] = next_phase;
	yield->args[slot_y] = next_slot;
	if (cont) {
		if (!cont_advance(p, &cp, &is, b, &eat, loc))
			return false;
		yield->args[cont_y] = is.k;
		yield->args[cont_y + 1] = is.o;
		for (int j = 0; j < cp.nev; j++)
			yield->args[cont_y + 2 + j] = is.vals[j];
	}
	/* the loads are gone */
	int kept = 0;
	for (int i = 0; i < b->nops; i++) {
		bool gone = false;
		for (int j = 0; j < nops && !gone; j++)
			gone = sel[j] && b->ops[i] == orig[j];
		if (!gone)
			b->ops[kept++] = b->ops[i];
	}
	b->nops = kept;

	/* After the loop (running on: after the outer loop): no copy left in
	 * flight, the rings freed. */
	int after = *pat + 1; /* past the loop */
	ir_op *done = emit_effect(p, pr, &after, IR_OP_ASYNC_WAIT, loc, 0, NULL);
	if (!done)
		return false;
	done->ival = 0;
	for (int i = nops - 1; i >= 0; i--)
		if (sel[i] && !emit_effect(p, pr, &after, IR_OP_LOCAL_DEALLOC, loc, 1, &ring[i]))
			return false;
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
		if (ir_op_orders_memory(b->ops[i]) || b->ops[i]->nregions)
			return false;
	return true;
}

/* Whether a load the rings would take in `loop` is one cp.async cannot
 * copy (pieces under 4 bytes, copied synchronously); *elems: the elements
 * of the loop's ring loads. */
static bool ring_narrow(const pipe *p, const ir_op *loop, int64_t *elems)
{
	const ir_region *b = &loop->regions[0];
	bool narrow = false;
	*elems = 0;
	for (int li = 0; p->narrow && li < b->nops; li++)
		if (copy_qualifies(p, b, li) && !tma_load(p, b->ops[li])) {
			narrow |= p->narrow[b->ops[li]->results[0]];
			*elems += ir_numel(p->f->values[b->ops[li]->results[0]].type);
		}
	return narrow;
}

/* A loop with such a load (narrow) whose loads hold at most 48 elements
 * (elems) per thread: it is pipelined through registers instead, the
 * loads' latency hidden behind an iteration of work. Larger tiles held in
 * registers a second time spill (tutorial 03's 128x256x64 config ran 1.9x
 * slower so on an H100, its 128x32x32 config 1.3x faster), so they keep
 * the rings, the narrow pieces copied synchronously. */
static bool has_narrow_load(const pipe *p, bool narrow, int64_t elems)
{
	int threads = 32 * (p->f->num_warps > 0 ? p->f->num_warps : 4);
	return narrow && elems <= 48 * (int64_t)threads;
}

/* The stages of a loop's rings (narrow: ring_narrow's). A ring copied in
 * synchronous pieces gains nothing from tiles further ahead: its copies
 * wait for their loads whatever the distance, and what overlaps them is
 * the asynchronous wgmma of the iteration before, which one tile ahead
 * already gives. Deeper rings only cost shared memory and the registers of
 * the addresses carried ahead, so on wgmma they keep two stages (fp16
 * 4095^3 on an H200: 128x128x64 from 32 to 65 TFLOP/s, two blocks an SM
 * where the five tiles of four stages left room for one; 128x256x64 from
 * 77 to 86). On mma.sync, whose dots wait, the two configs measured 6%
 * faster and 7% slower so: its stages stay. */
static int ring_stages(const pipe *p, bool narrow)
{
	int stages = p->f->num_stages;
	return !p->reuse && stages > 2 && narrow ? 2 : stages;
}

/* The loads of the loop at index *pos of r that qualify (`scales`:
 * feeds_only_dots's), one iteration ahead into registers; *pos follows
 * the loop as prologues go in before it. */
static void registers_ahead(pipe *p, ir_region *r, int *pos, ir_op *loop, bool scales)
{
	for (int li = 0; li < loop->regions[0].nops && !p->oom; li++) {
		if (loop->regions[0].ops[li]->code != IR_OP_LOAD)
			continue;
		int before = r->nops;
		if (pipeline_load(p, r, *pos, loop, li, scales)) {
			*pos += r->nops - before; /* the prologue went in before the loop */
			li = -1;                  /* the body changed: scan it again */
		}
	}
}

/* After the rings: the loop's loads that rings cannot take, scalars and
 * 1-D rows (a scale per column of int4 weights, loaded each iteration;
 * blockwise fp8's scales of each block's product), one iteration ahead
 * into registers, as without asynchronous copies, so that the iteration
 * does not wait for them. Only where every one of them only dots read, or
 * scales a dot's result: while one load stays in place the iteration waits
 * for it anyway, and carrying the others cost Mamba's chunk kernels 5% (a
 * time step's dt carried, its cumulative decay, read through an exp, not).
 * The rings took every 2-D load, so registers_ahead sees these alone. */
static void prefetch_rest(pipe *p, ir_region *r, ir_op *loop)
{
	const ir_region *b = &loop->regions[0];
	for (int li = 0; li < b->nops; li++)
		if (b->ops[li]->code == IR_OP_LOAD &&
		    (p->f->values[b->ops[li]->results[0]].type.rank > 1 || (b->ops[li]->flags & IR_FLAG_VOLATILE) ||
		     !feeds_only_dots(p, b, li, true)))
			return;
	int pos = 0;
	while (pos < r->nops && r->ops[pos] != loop)
		pos++;
	registers_ahead(p, r, &pos, loop, true);
}

/* Whether a for loop's start, end and step are constants. */
static bool constant_bounds(const ir_func *f, const ir_op *loop)
{
	for (int i = 0; i < 3; i++) {
		const ir_op *d = f->values[loop->args[i]].def;
		if (!d || d->code != IR_OP_CONST)
			return false;
	}
	return true;
}

static void walk(pipe *p, ir_region *r)
{
	for (int i = 0; i < r->nops && !p->oom; i++) {
		ir_op *op = r->ops[i];
		bool loop = op->code == IR_OP_FOR || op->code == IR_OP_WHILE;
		ir_op *outer = p->outer;
		ir_region *outer_region = p->outer_region;
		int outer_pos = p->outer_pos;
		p->outer = op->code == IR_OP_FOR ? op : NULL;
		p->outer_region = r;
		p->outer_pos = i;
		p->loops += loop;
		for (int g = 0; g < op->nregions; g++)
			walk(p, &op->regions[g]);
		p->loops -= loop;
		i = p->outer_pos; /* rings and a prologue may have gone in before op */
		p->outer = outer;
		p->outer_region = outer_region;
		p->outer_pos = outer_pos;
		if (op->code != IR_OP_FOR || !loop_qualifies(p->f, op))
			continue;
		int64_t elems;
		bool narrow = ring_narrow(p, op, &elems);
		if (p->async && !has_narrow_load(p, narrow, elems)) {
			int before = r->nops;
			if (pipeline_async(p, r, i, op, ring_stages(p, narrow))) {
				prefetch_rest(p, r, op);
				i += r->nops - before; /* the prologues and epilogue went in around the loop */
			}
			continue;
		}
		/* Inside a loop of constant bounds (a convolution's kernel rows
		 * and columns), the loop splits a reduction whose parts may be a
		 * single iteration: the prologue that loads the first iteration
		 * ahead runs every outer iteration, and the body computes the
		 * addresses and masks of one more, masked off. attorch's conv2d,
		 * its channel loop one or two iterations long, ran 2.2x slower
		 * so on an H200 (67 against 31 us, 4x the spills). A persistent
		 * kernel's loop over tiles has runtime bounds and keeps them. */
		if (p->async && p->outer && constant_bounds(p->f, p->outer))
			continue;
		registers_ahead(p, r, &i, op, false);
	}
}

tilec_status pipeline_loads(tilec_ctx *ctx, ir_func *f, const pipeline_options *opt, const bool *narrow)
{
	if (f->num_stages < 2)
		return TILEC_OK;
	bool async = opt->async_copies;
	pipe p = {.f = f, .async = async, .spare_budget = async ? opt->spare_budget : 0,
		  .reuse = async && opt->reuse_read_tile, .first = async && opt->copies_first, .tma = async && opt->tensormaps, .run_on = async && opt->run_on,
		  .sm_smem = opt->sm_smem, .prep = opt->operand_prep, .narrow = narrow};
	walk(&p, &f->body);
	if (p.oom) {
		diag_error(ctx, (src_loc){0}, "out of memory while pipelining loads");
		return TILEC_ERR_NOMEM;
	}
	return TILEC_OK;
}
