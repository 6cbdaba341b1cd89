/* carried.c - loop-carried rows recomputed from the induction variable.
 *
 * A matmul that masks K carries its column offsets (`offs_k += BLOCK_K`)
 * and broadcasts them along two axes: `offs_k[None, :] < K` into A's mask,
 * `offs_k[:, None] < K` into B's. One value has one layout, so every
 * iteration moved the row, or the mask made from it, through shared memory
 * (a store, a load and two barriers; vLLM's AWQ GEMM moved three such
 * masks an iteration). A row carried from a start the layouts recompute
 * anywhere (an arange, splats, constants) and advanced by a loop-invariant
 * step is, at iteration k, `start + k * step`: written so, the row and the
 * masks made from it are cheap values computed in each use's own layout,
 * as are the copies the pipeline issues for later iterations, and LLVM
 * strength-reduces each back into an add per iteration. The arithmetic is
 * the same modular arithmetic as the carried adds, so the values are
 * equal. The carried value stays for what the loop hands on after it.
 *
 * Rows a loop broadcasts along one axis only are left alone: their layout
 * follows that axis (analysis/layout.c's carried_chain).
 */
#include "passes/passes.h"

/* The value of a scalar constant op, or false. */
static bool const_of(const ir_func *f, int v, int64_t *out)
{
	const ir_op *d = f->values[v].def;
	if (!d || d->code != IR_OP_CONST || f->values[v].type.rank != 0)
		return false;
	*out = d->ival;
	return true;
}

/* Whether v is computed from aranges, constants and splats alone (what the
 * layouts recompute in any layout), at most `depth` ops deep. */
static bool cheap_start(const ir_func *f, int v, int depth)
{
	const ir_op *d = f->values[v].def;
	if (f->values[v].type.rank == 0)
		return true;
	if (!d || depth < 0 || d->nresults != 1 || d->nregions)
		return false;
	switch (d->code) {
	case IR_OP_ARANGE: case IR_OP_CONST: case IR_OP_SPLAT:
		return true;
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_BROADCAST: case IR_OP_EXPAND_DIMS: case IR_OP_CAST:
		for (int i = 0; i < d->nargs; i++)
			if (!cheap_start(f, d->args[i], depth - 1))
				return false;
		return true;
	default:
		return false;
	}
}

static bool in_region(const ir_region *r, const ir_op *op)
{
	for (int i = 0; i < r->nops; i++)
		if (r->ops[i] == op)
			return true;
	return false;
}

/* Whether v is defined outside body b (not by one of its ops, not one of
 * its parameters). */
static bool invariant(const ir_func *f, const ir_region *b, int v)
{
	for (int i = 0; i < b->nparams; i++)
		if (b->params[i] == v)
			return false;
	const ir_op *d = f->values[v].def;
	return !d || !in_region(b, d);
}

/* Elementwise ops a row's uses may pass through on their way to a broadcast. */
static bool elementwise(ir_opcode c)
{
	switch (c) {
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_REM: case IR_OP_AND:
	case IR_OP_OR: case IR_OP_XOR: case IR_OP_SHL: case IR_OP_SHR: case IR_OP_MIN: case IR_OP_MAX:
	case IR_OP_NEG: case IR_OP_NOT: case IR_OP_CMP: case IR_OP_SELECT: case IR_OP_CAST:
		return true;
	default:
		return false;
	}
}

/* Adds to *axes (a bit per axis) the axes along which the uses of v in b,
 * through elementwise ops of rank 1, expand it; `skip` (the row's own
 * update) is not a use. false where a use is in a nested region or the
 * chain is deeper than `depth`. */
static bool broadcast_axes(const ir_func *f, const ir_region *b, int v, const ir_op *skip, int depth, unsigned *axes)
{
	if (depth < 0)
		return false;
	for (int i = 0; i < b->nops; i++) {
		const ir_op *op = b->ops[i];
		if (op == skip || !ir_op_reads(op, v))
			continue;
		bool direct = false;
		for (int a = 0; a < op->nargs; a++)
			direct |= op->args[a] == v;
		if (!direct)
			return false;
		if (op->code == IR_OP_EXPAND_DIMS)
			*axes |= 1u << op->axis;
		else if (elementwise(op->code) && op->nresults == 1 && f->values[op->results[0]].type.rank == 1 &&
			 !broadcast_axes(f, b, op->results[0], NULL, depth - 1, axes))
			return false;
	}
	return true;
}

static ir_op *emit(ir_func *f, ir_region *b, int *at, ir_opcode code, src_loc loc, int nargs, const int *args, ir_type t)
{
	ir_op *op = ir_op_new(f, code, loc, nargs, args, 1, &t, 0);
	if (!op || !ir_region_insert(f, b, *at, op))
		return NULL;
	(*at)++;
	return op;
}

static int emit_value(ir_func *f, ir_region *b, int *at, ir_opcode code, src_loc loc, int nargs, const int *args,
		      ir_type t)
{
	ir_op *op = emit(f, b, at, code, loc, nargs, args, t);
	return op ? op->results[0] : -1;
}

static int emit_int(ir_func *f, ir_region *b, int *at, src_loc loc, ir_kind k, int64_t v)
{
	ir_op *op = emit(f, b, at, IR_OP_CONST, loc, 0, NULL, ir_scalar(k));
	if (!op)
		return -1;
	op->ival = v;
	return op->results[0];
}

/* Whether the block c a row advances by is the same every iteration: a
 * constant, or a splat of a scalar from outside body b. */
static bool invariant_step(const ir_func *f, const ir_region *b, int c, ir_kind k)
{
	const ir_op *d = f->values[c].def;
	return d && (d->code == IR_OP_CONST ||
		     (d->code == IR_OP_SPLAT && f->values[d->args[0]].type.kind == k && invariant(f, b, d->args[0])));
}

/* The scalar that step block c splats: its scalar, or a new constant
 * (at b[*at]); -1 when out of memory. */
static int step_scalar(ir_func *f, ir_region *b, int *at, int c, ir_kind k)
{
	const ir_op *d = f->values[c].def;
	return d->code == IR_OP_SPLAT ? d->args[0] : emit_int(f, b, at, d->loc, k, d->ival);
}

/* Rewrites carried row i of `loop` (iteration index k at value `iter`,
 * built at b[*at] on first need: *iter < 0 until then); false when out of
 * memory. */
static bool recompute_row(ir_func *f, ir_op *loop, int i, int *iter, int *at)
{
	ir_region *b = &loop->regions[0];
	const ir_op *yield = b->ops[b->nops - 1];
	int param = b->params[1 + i], init = loop->args[3 + i], next = yield->args[i];
	ir_type t = f->values[param].type;
	const ir_op *upd = f->values[next].def;
	if (t.rank != 1 || !ir_kind_is_int((ir_kind)t.kind) || t.kind == IR_I1 || !upd || upd->code != IR_OP_ADD ||
	    !in_region(b, upd) || !cheap_start(f, init, 12))
		return true;
	int c = upd->args[0] == param ? upd->args[1] : upd->args[1] == param ? upd->args[0] : -1;
	ir_kind k = (ir_kind)t.kind;
	unsigned axes = 0;
	if (c < 0 || c == param || !invariant_step(f, b, c, k) || !broadcast_axes(f, b, param, upd, 8, &axes) ||
	    (axes & (axes - 1)) == 0)
		return true;
	int step = step_scalar(f, b, at, c, k);
	if (step < 0)
		return false;
	src_loc loc = upd->loc;
	int iv = b->params[0];
	if (*iter < 0) {
		int64_t lb, st;
		const_of(f, loop->args[0], &lb);
		const_of(f, loop->args[2], &st);
		ir_type it = f->values[iv].type;
		*iter = iv;
		if (lb != 0) {
			int lbv = emit_int(f, b, at, loc, (ir_kind)it.kind, lb);
			int args[2] = {*iter, lbv};
			if (lbv < 0 || (*iter = emit_value(f, b, at, IR_OP_SUB, loc, 2, args, it)) < 0)
				return false;
		}
		if (st != 1) {
			int stv = emit_int(f, b, at, loc, (ir_kind)it.kind, st);
			int args[2] = {*iter, stv};
			if (stv < 0 || (*iter = emit_value(f, b, at, IR_OP_DIV, loc, 2, args, it)) < 0)
				return false;
		}
	}
	int k_in = *iter;
	if (f->values[k_in].type.kind != k && (k_in = emit_value(f, b, at, IR_OP_CAST, loc, 1, &k_in, ir_scalar(k))) < 0)
		return false;
	int mul_args[2] = {k_in, step};
	int moved = emit_value(f, b, at, IR_OP_MUL, loc, 2, mul_args, ir_scalar(k));
	int row = moved < 0 ? -1 : emit_value(f, b, at, IR_OP_SPLAT, loc, 1, &moved, t);
	int add_args[2] = {init, row};
	int now = row < 0 ? -1 : emit_value(f, b, at, IR_OP_ADD, loc, 2, add_args, t);
	if (now < 0)
		return false;
	for (int j = *at; j < b->nops; j++) {
		ir_op *op = b->ops[j];
		for (int a = 0; op != upd && a < op->nargs; a++)
			if (op->args[a] == param)
				op->args[a] = now;
	}
	return true;
}

/* A runtime loop from a constant start >= 0 by a constant step > 0 (the
 * iteration index is then (iv - start) / step, exactly, without
 * overflow). */
static bool counted(const ir_func *f, const ir_op *loop)
{
	int64_t lb, st;
	return const_of(f, loop->args[0], &lb) && const_of(f, loop->args[2], &st) && lb >= 0 && st > 0 &&
	       loop->regions[0].nops > 0 && loop->regions[0].ops[loop->regions[0].nops - 1]->code == IR_OP_YIELD;
}

static bool walk(ir_func *f, ir_region *r)
{
	for (int i = 0; i < r->nops; i++) {
		ir_op *op = r->ops[i];
		for (int g = 0; g < op->nregions; g++)
			if (!walk(f, &op->regions[g]))
				return false;
		if (op->code != IR_OP_FOR || !counted(f, op))
			continue;
		int iter = -1, at = 0;
		for (int c = 0; c < op->nargs - 3; c++)
			if (!recompute_row(f, op, c, &iter, &at))
				return false;
	}
	return true;
}

tilec_status recompute_carried_rows(tilec_ctx *ctx, ir_func *f)
{
	if (walk(f, &f->body))
		return TILEC_OK;
	diag_error(ctx, f->loc, "out of memory while rewriting loop-carried rows");
	return TILEC_ERR_NOMEM;
}
