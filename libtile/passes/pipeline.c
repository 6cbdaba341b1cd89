/* pipeline.c - software pipelining of the loads that feed tl.dot.
 *
 * In a runtime for loop with a positive constant step whose body stores
 * nothing and has no nested regions, a load whose only users are dots of
 * that body (directly, or through transposes only dots read) is pipelined. What a pipelined load needs (pointer, mask,
 * `other`) is recomputed for a later iteration by cloning the cheap,
 * effect-free ops it depends on, with the induction variable and the
 * carried values it reads renamed to their values in that iteration; the
 * pass only adds ops and loop-carried values, the original load goes away
 * and the ops only it used are left for LLVM to delete. Since the body
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
 * read, the barrier having retired those reads. Copies past the end are
 * masked off (they zero-fill), so the group count stays the same on every
 * path. The carried values the copies' addresses read are carried S-1
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
 * copy gives.
 *
 * Without asynchronous copies (a target below sm_80), or where a load's
 * tile can only be copied in pieces under 4 bytes (cp.async's smallest;
 * the caller says which from axis info) and the loop's tiles are small
 * (has_narrow_load), num_stages >= 2 issues each load
 * of the loop one iteration ahead into registers instead: a
 * prologue loads the first iteration's tile, the body begins by loading
 * the next iteration's (masked off past the end of the loop) and the dots
 * read the tile carried in from the previous iteration.
 */
#include "passes/passes.h"

#include <string.h>

typedef struct pipe {
	ir_func *f;
	bool async;  /* multi-stage rings of asynchronous copies */
	uint32_t spare_budget; /* rings up to this many bytes get a spare tile */
	bool reuse;  /* S-1 tiles per ring, the copies into the tile just read */
	bool tma;    /* descriptor blocks are copied by their tensor maps */
	uint32_t sm_smem; /* shared memory per SM: a spare tile must not cost a block (0: may) */
	int loops;   /* loops around the region being walked */
	const bool *narrow; /* by value id: a load cp.async cannot copy (NULL: none) */
	bool oom;
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

/* Clones the ops marked in `in` (in body order) at r[*at], renamed
 * through map; false when out of memory. */
static bool clone_marked(pipe *p, ir_op *const *ops, int nops, const bool *in, rename *map, ir_region *r, int *at)
{
	for (int i = 0; i < nops; i++)
		if (in[i] && !clone_into(p, ops[i], map, r, at))
			return false;
	return true;
}

/* The load's mask renamed through map and-ed with `lo < hi` (the
 * iteration it is issued for exists), at r[*at]; -1 on failure. */
static int iteration_mask(pipe *p, const ir_op *load, rename *map, int lo, int hi, ir_region *r, int *at)
{
	ir_type lt = p->f->values[load->results[0]].type;
	ir_type mt = ir_block(ir_scalar(IR_I1), lt.rank, lt.shape);
	int cmp_args[2] = {lo, hi};
	int cond = emit(p, r, at, IR_OP_CMP, load->loc, 2, cmp_args, ir_scalar(IR_I1), IR_CMP_LT);
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
	int args[3] = {mapped(map, load->args[0]), iteration_mask(p, load, map, lo, hi, r, at), -1};
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

static bool is_transpose(const ir_op *op)
{
	return op->code == IR_OP_PERMUTE && op->ints[0] == 1 && op->ints[1] == 0;
}

/* Are all users of value v dots of body b (as A or B), or, with
 * `through`, transposes whose users all are? */
static bool only_dots_use(const ir_region *b, int v, bool through)
{
	bool used = false;
	for (int i = 0; i < b->nops; i++) {
		const ir_op *op = b->ops[i];
		for (int a = 0; a < op->nargs; a++) {
			if (op->args[a] != v)
				continue;
			if (through && is_transpose(op) && only_dots_use(b, op->results[0], false))
				;
			else if (op->code != IR_OP_DOT || a > 1)
				return false;
			used = true;
		}
	}
	return used;
}

/* The load at body index li: are all its users dots of the body, or
 * transposes that only dots read (`tl.dot(a, b.T)`)? */
static bool feeds_only_dots(const ir_region *b, int li)
{
	return only_dots_use(b, b->ops[li]->results[0], true);
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
		for (int a = 0; a < op->nargs; a++)
			if (op->args[a] == old && (op->code == IR_OP_DOT || is_transpose(op)))
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
static bool copy_qualifies(const ir_func *f, const ir_region *b, int li)
{
	const ir_op *load = b->ops[li];
	return load->code == IR_OP_LOAD && !(load->flags & IR_FLAG_VOLATILE) &&
	       f->values[load->results[0]].type.rank == 2 &&
	       (!(load->flags & IR_FLAG_HAS_OTHER) || is_zero_const(f, load->args[2])) && feeds_only_dots(b, li);
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
 * renaming is `map` and whose induction variable is `iv` (masked off
 * unless iv < ub). */
static bool emit_copy(pipe *p, const ir_op *load, int ring, int slot, rename *map, int iv, int ub, ir_region *r,
		      int *at)
{
	if (tma_load(p, load)) {
		/* issued only for iterations that exist: a copy never waited for
		 * would leave its barrier a phase behind */
		int cmp_args[2] = {iv, ub};
		int args[5] = {ring, slot, emit(p, r, at, IR_OP_CMP, load->loc, 2, cmp_args, ir_scalar(IR_I1), IR_CMP_LT),
			       mapped(map, load->args[3]), mapped(map, load->args[4])};
		ir_op *op = args[2] < 0 ? NULL : emit_effect(p, r, at, IR_OP_TMA_COPY, load->loc, 5, args);
		if (op)
			op->ival = load->ival;
		return op != NULL;
	}
	int mask = iteration_mask(p, load, map, iv, ub, r, at);
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
		if (!copy_qualifies(f, b, li))
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

	/* Before the loop: the rings, then the copies of iterations 0 .. S-2. */
	int at = pos, ntma = 0;
	for (int i = 0; i < nops; i++) {
		if (!sel[i])
			continue;
		ir_type lt = f->values[orig[i]->results[0]].type;
		ir_type rt = {.kind = IR_SMEM, .pointee = lt.kind, .rank = 3, .shape = {N, lt.shape[0], lt.shape[1]}};
		ir_op *alloc = place(p, r, &at, ir_op_new(f, IR_OP_LOCAL_ALLOC, orig[i]->loc, 0, NULL, 1, &rt, 0));
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
	int iv_s = lb;
	for (int s = 0; s < S - 1; s++) {
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
			if (sel[i] && !emit_copy(p, orig[i], ring[i], slot, &map, iv_s, ub, r, &at))
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
	 * values S-1 iterations ahead. */
	int zero = emit_const(p, r, &at, loc, i32, 0);
	int slot = zero < 0 ? -1 : add_carried(p, loop, zero, zero); /* next value set below */
	/* the parity of the barrier phase a TMA ring's tile completes: it
	 * flips each time the slot wraps */
	int phase = slot < 0 || !ntma ? slot : add_carried(p, loop, zero, zero);
	if (slot < 0 || phase < 0)
		return false;
	int *ahead = arena_alloc(f->arena, sizeof(int) * (size_t)(ncarried + 1));
	if (!ahead) {
		p->oom = true;
		return false;
	}
	for (int c = 0; c < ncarried; c++)
		if (needs[c] && (ahead[c] = add_carried(p, loop, state[c], state[c])) < 0)
			return false;

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
		int old = orig[i]->results[0];
		f->values[ld->results[0]].name = f->values[old].name;
		for (int k = 0; k < b->nops; k++)
			for (int a = 0; a < b->ops[k]->nargs; a++)
				if (b->ops[k]->args[a] == old && (b->ops[k]->code == IR_OP_DOT || is_transpose(b->ops[k])))
					b->ops[k]->args[a] = ld->results[0];
	}
	/* The body's end, after its dots: the copies of iteration i + S-1
	 * (their address arithmetic then overlaps the last tensor-core work,
	 * and nothing makes ldmatrix wait for the copies' issue). */
	int eat = b->nops - 1;
	int c0 = emit_const(p, b, &eat, loc, i32, 0), c1 = emit_const(p, b, &eat, loc, i32, 1);
	int cS = emit_const(p, b, &eat, loc, i32, N), cL = emit_const(p, b, &eat, loc, i32, S - 1);
	int dist = emit_const(p, b, &eat, loc, ivt, (int64_t)(S - 1) * step_v);
	if (c0 < 0 || c1 < 0 || cS < 0 || cL < 0 || dist < 0)
		return false;
	int a2[2] = {slot, c0}, wslot;
	if (N == S - 1) {
		/* every warp is done reading this iteration's tile */
		wslot = emit_effect(p, b, &eat, IR_OP_BARRIER, loc, 0, NULL) ? slot : -1;
	} else if (N == S) {
		/* slot - 1, wrapped */
		int first = emit(p, b, &eat, IR_OP_CMP, loc, 2, a2, ir_scalar(IR_I1), IR_CMP_EQ);
		a2[1] = c1;
		int prev = emit(p, b, &eat, IR_OP_SUB, loc, 2, a2, i32, 0);
		int a3[3] = {first, cL, prev};
		wslot = first < 0 || prev < 0 ? -1 : emit(p, b, &eat, IR_OP_SELECT, loc, 3, a3, i32, 0);
	} else {
		/* slot + S-1, wrapped at N */
		a2[1] = cL;
		int sum = emit(p, b, &eat, IR_OP_ADD, loc, 2, a2, i32, 0);
		int a[2] = {sum, cS};
		int ge = sum < 0 ? -1 : emit(p, b, &eat, IR_OP_CMP, loc, 2, a, ir_scalar(IR_I1), IR_CMP_GE);
		int less = sum < 0 ? -1 : emit(p, b, &eat, IR_OP_SUB, loc, 2, a, i32, 0);
		int a3[3] = {ge, less, sum};
		wslot = ge < 0 || less < 0 ? -1 : emit(p, b, &eat, IR_OP_SELECT, loc, 3, a3, i32, 0);
	}
	a2[0] = iv;
	a2[1] = dist;
	int iv_ahead = emit(p, b, &eat, IR_OP_ADD, loc, 2, a2, ivt, 0);
	if (wslot < 0 || iv_ahead < 0)
		return false;
	rename map;
	if (!rename_init(p, &map))
		return false;
	rename_set(&map, iv, iv_ahead);
	for (int c = 0; c < ncarried; c++)
		if (needs[c])
			rename_set(&map, b->params[1 + c], ahead[c]);
	if (!clone_marked(p, orig, nops, in, &map, b, &eat))
		return false;
	for (int i = 0; i < nops; i++)
		if (sel[i] && !emit_copy(p, orig[i], ring[i], wslot, &map, iv_ahead, ub, b, &eat))
			return false;
	if (!emit_effect(p, b, &eat, IR_OP_ASYNC_COMMIT, loc, 0, NULL))
		return false;
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
	/* the yields of the new values: the slot (and phase), then the ahead values */
	int y = yield->nargs - 1;
	for (int c = ncarried - 1; c >= 0; c--)
		if (needs[c])
			yield->args[y--] = mapped(&map, yield->args[c]);
	if (ntma)
		yield->args[y--] = next_phase;
	yield->args[y] = next_slot;
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

	/* After the loop: no copy left in flight, the rings freed. */
	at++; /* past the loop */
	ir_op *done = emit_effect(p, r, &at, IR_OP_ASYNC_WAIT, loc, 0, NULL);
	if (!done)
		return false;
	done->ival = 0;
	for (int i = nops - 1; i >= 0; i--)
		if (sel[i] && !emit_effect(p, r, &at, IR_OP_LOCAL_DEALLOC, loc, 1, &ring[i]))
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

/* A load the rings would take that cp.async cannot copy (pieces under 4
 * bytes), in a loop whose loads hold at most 48 elements per thread: it
 * is pipelined through registers instead, the loads' latency hidden behind
 * an iteration of work. Larger tiles held in registers a second time spill
 * (tutorial 03's 128x256x64 config ran 1.9x slower so on an H100, its
 * 128x32x32 config 1.3x faster), so they keep the rings, the narrow
 * pieces copied synchronously. */
static bool has_narrow_load(const pipe *p, const ir_op *loop)
{
	const ir_region *b = &loop->regions[0];
	bool narrow = false;
	int64_t elems = 0;
	for (int li = 0; p->narrow && li < b->nops; li++)
		if (copy_qualifies(p->f, b, li) && !tma_load(p, b->ops[li])) {
			narrow |= p->narrow[b->ops[li]->results[0]];
			elems += ir_numel(p->f->values[b->ops[li]->results[0]].type);
		}
	int threads = 32 * (p->f->num_warps > 0 ? p->f->num_warps : 4);
	return narrow && elems <= 48 * (int64_t)threads;
}

static void walk(pipe *p, ir_region *r)
{
	for (int i = 0; i < r->nops && !p->oom; i++) {
		ir_op *op = r->ops[i];
		bool loop = op->code == IR_OP_FOR || op->code == IR_OP_WHILE;
		p->loops += loop;
		for (int g = 0; g < op->nregions; g++)
			walk(p, &op->regions[g]);
		p->loops -= loop;
		if (op->code != IR_OP_FOR || !loop_qualifies(p->f, op))
			continue;
		if (p->async && !has_narrow_load(p, op)) {
			int before = r->nops;
			if (pipeline_async(p, r, i, op, p->f->num_stages))
				i += r->nops - before; /* the prologue and epilogue went in around the loop */
			continue;
		}
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

tilec_status pipeline_loads(tilec_ctx *ctx, ir_func *f, bool async_copies, uint32_t spare_budget, uint32_t sm_smem,
			    bool reuse_read_tile, bool tensormaps, const bool *narrow)
{
	if (f->num_stages < 2)
		return TILEC_OK;
	pipe p = {f, async_copies, async_copies ? spare_budget : 0, async_copies && reuse_read_tile,
		  async_copies && tensormaps, sm_smem, 0, narrow, false};
	walk(&p, &f->body);
	if (p.oom) {
		diag_error(ctx, (src_loc){0}, "out of memory while pipelining loads");
		return TILEC_ERR_NOMEM;
	}
	return TILEC_OK;
}
