/* partition.c - a warp_specialize loop's program split between a producer
 * warp and the consumers (sm_90a's wgmma family).
 *
 * A loop the kernel marks `tl.range(..., warp_specialize=True)` whose
 * loads pipeline.c made TMA rings is split in two: the producer warp runs
 * the copies (the prologue's and the loop's) and the slice of the program
 * they read, scalars of pure ops (slots, predicates, coordinates, and the
 * loop values carrying them); the consumers run everything else. This pass
 * decides whether the loop qualifies and marks the producer's program,
 * the loop, its copies and that slice, IR_FLAG_PRODUCER (`tilec ir
 * --pipelined=wgmma` shows them as `producer`); nothing else changes, so
 * the interpreter runs the same program. nvptx/warpspec.c lowers the two
 * sides from the marks. A marked loop that does not qualify gets a
 * warning that says why and runs as written: not at the kernel's top
 * level, a persistent kernel's loop over tiles (its copies in the loop
 * inside), a copy by cp.async rather than TMA, a ring of the loop another
 * loop reads or a loop before it reading rings (loops after it may have
 * rings of their own, which the consumers fill as without specialization:
 * causal attention's diagonal),
 * a programmatic dependent launch's wait (the producer would read before
 * the grid before it completed), a cluster, num_warps not whole warp
 * groups with room for one warp more, a step not a positive constant, no
 * copies ahead (num_stages < 2), or a copy reading more than scalar
 * arithmetic. Where no loop is marked, tilec marks one itself where that
 * measured faster (unasked_loop: attention's loop of two dots over two
 * consumer warp groups, its rings filling the SM), silently where it does
 * not qualify; --no-auto-warp-specialize leaves that out. A kernel has one
 * producer: a later marked loop gets a warning and runs as written.
 */
#include "passes/passes.h"

#include <stdlib.h>
#include <string.h>

/* An op the producer may compute on its own: a pure scalar op. */
static bool pure_scalar(const ir_func *f, const ir_op *op)
{
	if (op->nresults != 1 || f->values[op->results[0]].type.rank || op->nregions)
		return false;
	switch (op->code) {
	case IR_OP_CONST: case IR_OP_PROGRAM_ID: case IR_OP_NUM_PROGRAMS: case IR_OP_CAST: case IR_OP_BITCAST:
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_REM: case IR_OP_AND: case IR_OP_OR:
	case IR_OP_XOR: case IR_OP_SHL: case IR_OP_SHR: case IR_OP_MIN: case IR_OP_MAX: case IR_OP_NEG: case IR_OP_NOT:
	case IR_OP_CMP: case IR_OP_SELECT: case IR_OP_PTR_ADD: case IR_OP_HINT:
		return true;
	default:
		return false;
	}
}

/* The first loop marked warp_specialize (a top-level one first), or NULL;
 * *top: whether it is at the kernel's top level. */
static ir_op *find_marked(const ir_region *r, bool *top)
{
	for (int i = 0; i < r->nops; i++)
		if (r->ops[i]->code == IR_OP_FOR && r->ops[i]->flags & IR_FLAG_WARP_SPECIALIZE)
			return *top = true, r->ops[i];
	for (int i = 0; i < r->nops; i++)
		for (int g = 0; g < r->ops[i]->nregions; g++) {
			ir_op *in = find_marked(&r->ops[i]->regions[g], top);
			if (in)
				return *top = false, in;
		}
	return NULL;
}

/* Whether a loop nested in r issues TMA copies. */
static bool inner_copies(const ir_region *r)
{
	for (int i = 0; i < r->nops; i++)
		if (r->ops[i]->code == IR_OP_FOR && ir_region_has(&r->ops[i]->regions[0], IR_OP_TMA_COPY))
			return true;
	return false;
}

bool partition_ring(const ir_op *loop, int ring)
{
	return ir_op_reads(loop, ring);
}

int partition_ahead(const ir_func *f, const ir_op *loop)
{
	int first_ring = -1, ahead = 0;
	for (int i = 0; i < f->body.nops && f->body.ops[i] != loop; i++) {
		const ir_op *op = f->body.ops[i];
		if (op->code == IR_OP_TMA_COPY) {
			if (first_ring < 0)
				first_ring = op->args[0];
			ahead += op->args[0] == first_ring;
		}
	}
	return ahead;
}

bool partition_slice(const ir_func *f, const ir_op *loop, bool *need, const char **why)
{
	const ir_region *body = &loop->regions[0];
	const ir_op *y = NULL;
	for (int i = 0; i < body->nops; i++)
		if (body->ops[i]->code == IR_OP_YIELD)
			y = body->ops[i];
	for (int i = 0; i < 3; i++)
		need[loop->args[i]] = true;
	const ir_region *rs[2] = {&f->body, body};
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < rs[k]->nops; i++) {
			const ir_op *op = rs[k]->ops[i];
			if (op->code != IR_OP_TMA_COPY || !partition_ring(loop, op->args[0]))
				continue;
			for (int a = 1; a < op->nargs; a++)
				need[op->args[a]] = true;
			/* a map built at launch from values the kernel computes
			 * (a device-side descriptor's shape and strides): the
			 * interpreter's copy reads them on the producer's side */
			const ir_derived_map *dm = ir_derived_map_at(f, (int)op->ival);
			for (int d = 0; dm && d < dm->rank; d++) {
				need[dm->shape[d]] = true;
				if (d < dm->rank - 1)
					need[dm->strides[d]] = true;
			}
		}
	bool changed = true;
	while (changed) {
		changed = false;
		for (int v = f->nvalues - 1; v >= f->nparams; v--) {
			if (!need[v])
				continue;
			const ir_op *d = f->values[v].def;
			if (!d) { /* a region parameter: the loop's iv or a carried value */
				int p = -1;
				for (int i = 0; i < body->nparams; i++)
					if (body->params[i] == v)
						p = i;
				if (p < 0) {
					*why = "its copies read a value of another region";
					return false;
				}
				if (p > 0 && y && p - 1 < y->nargs) {
					int from[2] = {loop->args[3 + p - 1], y->args[p - 1]};
					for (int j = 0; j < 2; j++)
						if (!need[from[j]])
							need[from[j]] = changed = true;
				}
				continue;
			}
			if (d->code == IR_OP_LOCAL_ALLOC)
				continue;
			if (!pure_scalar(f, d)) {
				*why = "its copies' coordinates or predicates come from more than scalar arithmetic";
				return false;
			}
			for (int a = 0; a < d->nargs; a++)
				if (!need[d->args[a]])
					need[d->args[a]] = changed = true;
		}
	}
	return true;
}

/* NULL where the loop qualifies, else why not. */
static const char *refusal(const ir_func *f, const ir_op *loop, bool top)
{
	const ir_op *step = f->values[loop->args[2]].def;
	if (!top)
		return "the loop is not at the kernel's top level";
	if (f->num_warps % 4 || f->num_warps + PARTITION_PRODUCER_WARPS > 32)
		return "num_warps is not a multiple of 4 with room for a warp more";
	if (f->num_ctas > 1)
		return "its program is split over a cluster";
	if (ir_region_has(&f->body, IR_OP_GRID_DEP))
		return "the kernel waits for the grid before it (programmatic dependent launch)";
	if (ir_region_has(&f->body, IR_OP_ASYNC_COPY))
		return "a load is copied by cp.async, not TMA";
	if (inner_copies(&loop->regions[0]))
		return "its copies are issued in a loop inside it (a persistent kernel's; not warp-specialized yet)";
	if (!ir_region_has(&loop->regions[0], IR_OP_TMA_COPY))
		return "its loads are not copied by TMA (no descriptor block a dot reads alone)";
	if (!step || step->code != IR_OP_CONST || step->ival <= 0)
		return "its step is not a positive constant";
	/* the loop's rings are filled by TMA before it and in it and read by
	 * no other loop; loops after it may have rings of their own (the
	 * consumers run them as written: causal attention's diagonal) */
	bool after = false;
	for (int i = 0; i < f->body.nops; i++) {
		const ir_op *op = f->body.ops[i];
		after |= op == loop;
		if (op->code == IR_OP_LOCAL_ALLOC && !(op->flags & IR_FLAG_TENSORMAP))
			return "a ring is not filled by TMA";
		if (op->code == IR_OP_TMA_COPY && partition_ring(loop, op->args[0]) == after)
			return after ? "TMA copies into its rings follow the loop" : "copies before it fill another loop's rings";
		if (op->code == IR_OP_FOR && op != loop && !after &&
		    (ir_region_has(&op->regions[0], IR_OP_LOCAL_LOAD) || ir_region_has(&op->regions[0], IR_OP_TMA_COPY)))
			return "a loop before it reads rings";
		for (int r = 0; op->code == IR_OP_FOR && op != loop && after && r < f->body.nops; r++)
			if (f->body.ops[r]->code == IR_OP_LOCAL_ALLOC && partition_ring(loop, f->body.ops[r]->results[0]) &&
			    ir_op_reads(op, f->body.ops[r]->results[0]))
				return "another loop of the kernel reads its rings";
	}
	if (partition_ahead(f, loop) < 1)
		return "no copies before the loop (num_stages < 2)";
	return NULL;
}

/* The loop tilec specializes where the kernel does not ask: the first
 * top-level loop that copies by TMA, two dots or more at its body's top
 * level (attention's) run by two consumer warp groups (num_warps 8), whose
 * rings alone keep a second block off the SM (rings_smem: the SM's shared
 * memory, 1 KB a block the system's), and whose registers the kernel
 * leaves to tilec (no maxnreg): there nvptx/warpspec.c gives it a producer
 * warp group and turns, measured faster than the plain pipeline
 * (docs/PERF.md, "Warp specialization unasked"). A matmul's one dot is
 * left alone: a producer measured no faster there. NULL where none.
 * Where the rings leave room for a second block but the dots' fp32
 * accumulators alone take three quarters of the 128 registers a thread
 * two blocks allow (fp8 attention at head dim 128: 96), it is the loop
 * too where the kernel has another loop of dots (causal attention), and
 * where it has not, the loop is marked IR_FLAG_KEEP_A instead: Q in
 * shared memory lets two blocks in, measured faster than a producer warp
 * ("Operands a loop does not compute"). */
static ir_op *unasked_loop(const ir_func *f, uint32_t rings_smem)
{
	if (f->num_warps != 8 || f->maxnreg || !rings_smem)
		return NULL;
	ir_op *loop = NULL;
	for (int i = 0; i < f->body.nops && !loop; i++)
		if (f->body.ops[i]->code == IR_OP_FOR && ir_region_has(&f->body.ops[i]->regions[0], IR_OP_TMA_COPY))
			loop = f->body.ops[i];
	uint64_t rings = 0;
	for (int i = 0; loop && i < f->body.nops; i++) {
		const ir_op *op = f->body.ops[i];
		if (op->code == IR_OP_LOCAL_ALLOC && partition_ring(loop, op->results[0])) {
			ir_type t = f->values[op->results[0]].type;
			rings += (uint64_t)ir_numel(t) * (uint64_t)ir_kind_bytes((ir_kind)t.pointee);
		}
	}
	int dots = 0;
	int64_t acc = 0; /* accumulator elements a thread */
	for (int i = 0; loop && i < loop->regions[0].nops; i++) {
		const ir_op *op = loop->regions[0].ops[i];
		if (op->code == IR_OP_DOT) {
			dots++;
			acc += ir_numel(f->values[op->results[0]].type) / (32 * f->num_warps);
		}
	}
	if (dots < 2)
		return NULL;
	if (2 * (rings + 1024) > rings_smem)
		return loop;
	if (4 * acc < 3 * 128)
		return NULL;
	/* rings that leave room for a second block, accumulators that alone
	 * take three quarters of the registers two blocks allow a thread (fp8
	 * attention at head dim 128): where it is the kernel's only loop of
	 * dots, the loop keeps Q in shared memory and two blocks fit, measured
	 * faster than a producer warp's one; a later loop (causal attention's
	 * diagonal) would still hold Q as fragments and keep the second block
	 * out, so there the producer warp it is */
	for (int i = 0; i < f->body.nops; i++)
		if (f->body.ops[i] != loop && f->body.ops[i]->code == IR_OP_FOR &&
		    ir_region_has(&f->body.ops[i]->regions[0], IR_OP_DOT))
			return loop;
	loop->flags |= IR_FLAG_KEEP_A;
	return NULL;
}

tilec_status partition_warps(tilec_ctx *ctx, ir_func *f, const pipeline_options *opt)
{
	bool top = false;
	ir_op *loop = find_marked(&f->body, &top);
	bool asked = loop != NULL;
	if (!asked) {
		ir_op *unasked = unasked_loop(f, opt->sm_smem);
		if (opt->auto_warp_specialize)
			top = (loop = unasked) != NULL;
	}
	if (!loop)
		return TILEC_OK;
	const char *why = refusal(f, loop, top);
	/* unasked, only with the copies two iterations ahead the turns need */
	if (!why && !asked && partition_ahead(f, loop) < 2)
		why = "fewer than 3 stages";
	bool *need = why ? NULL : calloc((size_t)f->nvalues + 1, sizeof(bool));
	if (!why && !need) {
		diag_error(ctx, loop->loc, "out of memory");
		return TILEC_ERR_NOMEM;
	}
	if (!why && partition_slice(f, loop, need, &why)) {
		loop->flags |= IR_FLAG_PRODUCER | IR_FLAG_WARP_SPECIALIZE;
		const ir_region *rs[2] = {&f->body, &loop->regions[0]};
		for (int k = 0; k < 2; k++)
			for (int i = 0; i < rs[k]->nops; i++) {
				ir_op *op = rs[k]->ops[i];
				if ((op->code == IR_OP_TMA_COPY && partition_ring(loop, op->args[0])) ||
				    (op->nresults == 1 && need[op->results[0]] && op->code != IR_OP_LOCAL_ALLOC))
					op->flags |= IR_FLAG_PRODUCER;
			}
	}
	free(need);
	if (why && asked)
		diag_warning(ctx, loop->loc, "warp_specialize=True: the loop runs without a producer warp: %s", why);
	/* one producer a kernel: later marked loops run as written */
	for (int i = 0; asked && i < f->body.nops; i++) {
		const ir_op *op = f->body.ops[i];
		if (op != loop && op->code == IR_OP_FOR && op->flags & IR_FLAG_WARP_SPECIALIZE)
			diag_warning(ctx, op->loc,
				     "warp_specialize=True: the loop runs without a producer warp: only a kernel's first "
				     "such loop gets one");
	}
	return TILEC_OK;
}
