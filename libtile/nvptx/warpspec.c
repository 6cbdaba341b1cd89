/* warpspec.c - warp specialization of a TMA-fed wgmma loop (sm_90a).
 *
 * A loop the kernel marks `tl.range(..., warp_specialize=True)` whose
 * loads passes/pipeline.c made TMA rings gets a producer warp: the block
 * runs one warp more than num_warps, the last. At the kernel's entry the
 * block splits (lower.c: lower_split). The producer lowers only the
 * program's slice that its copies read (scalars: the slots, the
 * predicates, the coordinates, carried along the loop as the loop carries
 * them), and its first lane issues every copy; before it refills a slot
 * it waits on the slot's second barrier, "empty", until the consumers
 * released what the slot held before. The consumers, warps 0 ..
 * num_warps-1, run the program as lowered without specialization (their
 * layouts never see the producer) with three differences: they issue no
 * copies; where the plain code would refill a slot they release it
 * instead (one arrival a warp on its empty barrier, once the wgmma group
 * that read the slot is waited for: the rule the plain code's refill
 * follows, lower.c), and their barriers are the named barrier 1 over the
 * consumer threads, not the block's. Every thread sets the rings and
 * their barriers up before the split (lower.c), and the two sides meet at
 * the block's barrier again where the first ring is put away (tma.c).
 *
 * One warp, not a warp group with its registers handed to the consumers
 * (setmaxnreg): ptxas assembles the consumers' code within the registers
 * every thread starts with whatever setmaxnreg asks for later, so a warp
 * group only takes registers from them (2 blocks of 8 warps of 128x128
 * tiles need 90 a thread; a warp group more leaves 80).
 *
 * lw_ws_plan decides whether a marked loop qualifies, and otherwise says
 * why in a warning. What it needs: the loop at the kernel's top level, a
 * constant positive step, every copy of the kernel a TMA copy into a ring
 * of that loop, the copies' slice scalars of pure ops, no programmatic
 * dependent launch (the producer would read before the grid before it
 * completed), one CTA a program, num_warps a multiple of 4 (whole warp
 * groups for wgmma) with room for one more.
 */
#include "nvptx/lower.h"

#include <stdio.h>
#include <string.h>

/* An op the producer may compute on its own: a pure scalar op. */
static bool pure_scalar(const lw *w, const ir_op *op)
{
	if (op->nresults != 1 || lw_vtype(w, op->results[0]).rank || op->nregions)
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
static const ir_op *find_marked(const ir_region *r, bool *top)
{
	for (int i = 0; i < r->nops; i++)
		if (r->ops[i]->code == IR_OP_FOR && r->ops[i]->flags & IR_FLAG_WARP_SPECIALIZE)
			return *top = true, r->ops[i];
	for (int i = 0; i < r->nops; i++)
		for (int g = 0; g < r->ops[i]->nregions; g++) {
			const ir_op *in = find_marked(&r->ops[i]->regions[g], top);
			if (in)
				return *top = false, in;
		}
	return NULL;
}

static bool region_has_code(const ir_region *r, ir_opcode code)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		if (op->code == code)
			return true;
		for (int g = 0; g < op->nregions; g++)
			if (region_has_code(&op->regions[g], code))
				return true;
	}
	return false;
}

/* Whether a loop nested in r issues TMA copies. */
static bool inner_copies(const ir_region *r)
{
	for (int i = 0; i < r->nops; i++)
		if (r->ops[i]->code == IR_OP_FOR && region_has_code(&r->ops[i]->regions[0], IR_OP_TMA_COPY))
			return true;
	return false;
}

/* Marks what the copies read, through the loop's carried values, until
 * nothing changes; false where one of them is not the producer's to
 * compute (*why says what). */
static bool mark_slice(lw *w, const ir_op *loop, const char **why)
{
	const ir_func *f = w->f;
	const ir_region *body = &loop->regions[0];
	const ir_op *y = NULL;
	for (int i = 0; i < body->nops; i++)
		if (body->ops[i]->code == IR_OP_YIELD)
			y = body->ops[i];
	bool *need = w->ws_needed;
	for (int i = 0; i < 3; i++)
		need[loop->args[i]] = true;
	const ir_region *rs[2] = {&f->body, body};
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < rs[k]->nops; i++) {
			const ir_op *op = rs[k]->ops[i];
			if (op->code == IR_OP_TMA_COPY)
				for (int a = 1; a < op->nargs; a++)
					need[op->args[a]] = true;
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
			if (!pure_scalar(w, d)) {
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

bool lw_ws_plan(lw *w)
{
	const ir_func *f = w->f;
	bool top = false;
	const ir_op *loop = find_marked(&f->body, &top);
	if (!loop || w->p->unit != DOT_UNIT_WGMMA)
		return true; /* other targets run the loop as written */
	const char *why = NULL;
	int ahead = 0;
	if (!top)
		why = "the loop is not at the kernel's top level";
	else if (f->num_warps % 4 || f->num_warps + LW_WS_PRODUCER_WARPS > 32)
		why = "num_warps is not a multiple of 4 with room for a warp more";
	else if (!w->p->tma)
		why = "its loads are not copied by TMA (--no-tma)";
	else if (f->num_ctas > 1)
		why = "its program is split over a cluster";
	else if (region_has_code(&f->body, IR_OP_GRID_DEP))
		why = "the kernel waits for the grid before it (programmatic dependent launch)";
	else if (region_has_code(&f->body, IR_OP_ASYNC_COPY))
		why = "a load is copied by cp.async, not TMA";
	else if (inner_copies(&loop->regions[0]))
		why = "its copies are issued in a loop inside it (a persistent kernel's; not warp-specialized yet)";
	else if (!region_has_code(&loop->regions[0], IR_OP_TMA_COPY))
		why = "its loads are not copied by TMA (no descriptor block a dot reads alone)";
	else if (!w->f->values[loop->args[2]].def || w->f->values[loop->args[2]].def->code != IR_OP_CONST ||
		 w->f->values[loop->args[2]].def->ival <= 0)
		why = "its step is not a positive constant";
	if (!why) {
		/* every ring is the loop's, filled only by TMA: the prologue's
		 * copies (before the loop) say how far ahead the loop copies */
		int seen_loop = 0;
		for (int i = 0; i < f->body.nops && !why; i++) {
			const ir_op *op = f->body.ops[i];
			if (op == loop)
				seen_loop = 1;
			else if (op->code == IR_OP_LOCAL_ALLOC && !(op->flags & IR_FLAG_TENSORMAP))
				why = "a ring is not filled by TMA";
			else if (op->code == IR_OP_TMA_COPY && seen_loop)
				why = "TMA copies follow the loop";
		}
		for (int i = 0; i < f->body.nops && !why; i++)
			if (f->body.ops[i]->code == IR_OP_FOR && f->body.ops[i] != loop &&
			    (region_has_code(&f->body.ops[i]->regions[0], IR_OP_LOCAL_LOAD) ||
			     region_has_code(&f->body.ops[i]->regions[0], IR_OP_TMA_COPY)))
				why = "another loop of the kernel reads rings";
	}
	if (!why) {
		int first_ring = -1;
		for (int i = 0; i < f->body.nops; i++) {
			const ir_op *op = f->body.ops[i];
			if (op == loop)
				break;
			if (op->code == IR_OP_TMA_COPY) {
				if (first_ring < 0)
					first_ring = op->args[0];
				ahead += op->args[0] == first_ring;
			}
		}
		if (ahead < 1)
			why = "no copies before the loop (num_stages < 2)";
	}
	if (!why) {
		w->ws_needed = arena_alloc(w->a, sizeof(bool) * (size_t)(f->nvalues + 1));
		if (!w->ws_needed)
			return lw_oom(w);
		memset(w->ws_needed, 0, sizeof(bool) * (size_t)(f->nvalues + 1));
		if (!mark_slice(w, loop, &why))
			w->ws_needed = NULL;
	}
	if (why) {
		diag_warning(w->ctx, loop->loc,
			     "warp_specialize=True: the loop runs without a producer warp: %s", why);
		return true;
	}
	w->ws_loop = loop;
	w->ws_ahead = ahead;
	return true;
}

uint32_t lw_ws_threads(const lw *w)
{
	return 32u * (uint32_t)(w->f->num_warps + (w->ws_loop ? LW_WS_PRODUCER_WARPS : 0));
}

LLVMValueRef lw_ws_refill(lw *w, int ring, LLVMValueRef *use)
{
	/* copy j = iteration + ahead goes into slot j % tiles; the slot held
	 * copy j - tiles before, when j >= tiles: its use counts from 1 */
	int64_t tiles = lw_vtype(w, ring).shape[0];
	LLVMValueRef j = LLVMBuildAdd(w->b, w->ws_iter, lw_ci32(w, w->ws_ahead), "");
	if (use)
		*use = LLVMBuildUDiv(w->b, j, lw_ci32(w, tiles), "");
	return LLVMBuildICmp(w->b, LLVMIntUGE, j, lw_ci32(w, tiles), "");
}
