/* cluster.c - a program's blocks split over the CTAs of a thread block
 * cluster (a config's num_ctas, from sm_90 on).
 *
 * Triton runs a program with num_ctas > 1 as a cluster of that many CTAs,
 * each holding a part of every block (its CTA layouts). tile does the same
 * where no CTA needs another's elements: one dimension of the program's
 * blocks, followed through every op that keeps it (elementwise ops,
 * broadcasts of other dims, expand_dims, permutes, loads and stores, a
 * dot's M or N, loop-carried values, reductions along other dims), is cut
 * into num_ctas equal parts. Such a set of dims is found with union-find
 * over (value, dim) pairs: each op joins the dims it keeps and marks the
 * ones it mixes (a reduction's or scan's axis, a dot's K, reshapes, cat,
 * histograms, descriptor blocks that TMA copies whole, prints) as not to be
 * cut. The set chosen is the first dot's M or N (M where each CTA keeps 64
 * rows per warpgroup, or N would keep fewer than 64 columns; else N first),
 * else the one covering the most elements; it
 * must leave no value cut twice, and its sizes must divide (a dot's M and
 * N keep at least 16). Cutting it is then a change of types: each value
 * with a dim in the set holds 1/num_ctas of it, and each arange along it
 * adds its CTA's offset (CTA_RANK times its new length). Values left whole
 * are computed by every CTA alike; their stores and atomics are done by
 * rank 0 alone (their mask ANDed with it), and an atomic whose old values
 * are read, a compare-and-swap, a descriptor store (TMA takes no mask) or
 * volatile assembly on such values refuses the split, as no CTA could do
 * it for the others. The user's barriers
 * then span the cluster (ival 1). program_id and num_programs count
 * clusters in the lowering (f->num_ctas stays > 1).
 */
#include "passes/passes.h"

#include <stdlib.h>
#include <string.h>

typedef struct cluster_sets {
	const ir_func *f;
	int C;
	int *base;      /* per value: its first node, -1 for scalars */
	int *parent;    /* union-find over the nodes */
	int *min_size;  /* per node (a root's after close): the least size a CTA may hold */
	const char **why; /* per node (a root's after close): why it must not be cut; NULL: it may be */
	int nnodes;
	int nvalues;          /* values the sets cover (the split adds more) */
	int first_m, first_n; /* the first dot's M and N nodes, -1 for none */
	int64_t dot_m, dot_n;  /* and its M and N */
} cluster_sets;

static int node(const cluster_sets *s, int v, int d)
{
	return v < s->nvalues && s->base[v] >= 0 && d < s->f->values[v].type.rank ? s->base[v] + d : -1;
}

static int find(cluster_sets *s, int n)
{
	while (s->parent[n] != n)
		n = s->parent[n] = s->parent[s->parent[n]];
	return n;
}

static void join(cluster_sets *s, int v, int dv, int w, int dw)
{
	int a = node(s, v, dv), b = node(s, w, dw);
	if (a < 0 || b < 0)
		return;
	a = find(s, a), b = find(s, b);
	if (a != b)
		s->parent[b] = a;
}

/* v and w (of one shape) keep every dim */
static void join_all(cluster_sets *s, int v, int w)
{
	int r = s->f->values[v].type.rank;
	if (r != s->f->values[w].type.rank)
		return;
	for (int d = 0; d < r; d++)
		join(s, v, d, w, d);
}

static void mark(cluster_sets *s, int v, int d, const char *why)
{
	int n = node(s, v, d);
	if (n >= 0 && !s->why[n])
		s->why[n] = why;
}

static void mark_all(cluster_sets *s, int v, const char *why)
{
	for (int d = 0; d < s->f->values[v].type.rank; d++)
		mark(s, v, d, why);
}

/* Every block operand and result of op of the result's rank keeps every dim. */
static void join_operands(cluster_sets *s, const ir_op *op, int ref)
{
	for (int i = 0; i < op->nargs; i++)
		join_all(s, ref, op->args[i]);
	for (int i = 0; i < op->nresults; i++)
		join_all(s, ref, op->results[i]);
}

static void mark_operands(cluster_sets *s, const ir_op *op, const char *why)
{
	for (int i = 0; i < op->nargs; i++)
		mark_all(s, op->args[i], why);
	for (int i = 0; i < op->nresults; i++)
		mark_all(s, op->results[i], why);
}

static const ir_op *terminator(const ir_region *r)
{
	return r->nops ? r->ops[r->nops - 1] : NULL;
}

static void visit_region(cluster_sets *s, const ir_region *r);

static void visit(cluster_sets *s, const ir_op *op)
{
	const ir_func *f = s->f;
	int res = op->nresults ? op->results[0] : -1;
	for (int i = 0; i < op->nregions; i++)
		visit_region(s, &op->regions[i]);
	switch (op->code) {
	case IR_OP_BROADCAST: {
		ir_type a = f->values[op->args[0]].type, t = f->values[res].type;
		for (int d = 0; d < t.rank; d++)
			if (a.shape[d] == t.shape[d])
				join(s, op->args[0], d, res, d);
		break;
	}
	case IR_OP_EXPAND_DIMS:
		for (int d = 0; d < f->values[res].type.rank; d++)
			if (d != op->axis)
				join(s, op->args[0], d < op->axis ? d : d - 1, res, d);
		break;
	case IR_OP_PERMUTE:
		for (int d = 0; d < f->values[res].type.rank; d++)
			join(s, op->args[0], op->ints[d], res, d);
		break;
	case IR_OP_JOIN:
		join_all(s, op->args[0], op->args[1]);
		for (int d = 0; d < f->values[op->args[0]].type.rank; d++)
			join(s, op->args[0], d, res, d);
		mark(s, res, f->values[res].type.rank - 1, "a join's new dim");
		break;
	case IR_OP_SPLIT:
		for (int i = 0; i < op->nresults; i++)
			for (int d = 0; d < f->values[op->results[i]].type.rank; d++)
				join(s, op->args[0], d, op->results[i], d);
		mark(s, op->args[0], f->values[op->args[0]].type.rank - 1, "a split's dim");
		break;
	case IR_OP_FLIP:
		join_operands(s, op, res);
		mark(s, res, op->axis, "a flip's axis");
		break;
	case IR_OP_GATHER:
		join_all(s, op->args[1], res);
		for (int d = 0; d < f->values[res].type.rank; d++)
			if (d != op->axis)
				join(s, op->args[0], d, res, d);
		mark(s, op->args[0], op->axis, "a gather's source axis");
		break;
	case IR_OP_DOT: {
		int r = f->values[res].type.rank, a = op->args[0], b = op->args[1];
		join_all(s, op->args[2], res);
		for (int d = 0; d < r - 2; d++) {
			join(s, a, d, res, d);
			join(s, b, d, res, d);
		}
		join(s, a, r - 2, res, r - 2);
		join(s, b, r - 1, res, r - 1);
		mark(s, a, r - 1, "a dot's K");
		mark(s, b, r - 2, "a dot's K");
		for (int d = r - 2; d < r; d++) { /* tensor cores want 16 rows and columns at least */
			int n = node(s, res, d);
			if (s->min_size[n] < 16)
				s->min_size[n] = 16;
		}
		if (s->first_m < 0) {
			s->first_m = node(s, res, r - 2);
			s->first_n = node(s, res, r - 1);
			s->dot_m = f->values[res].type.shape[r - 2];
			s->dot_n = f->values[res].type.shape[r - 1];
		}
		break;
	}
	case IR_OP_REDUCE:
	case IR_OP_REDUCE_FN:
		for (int i = 0; i < op->nargs; i++) {
			join_all(s, op->args[0], op->args[i]);
			mark(s, op->args[i], op->axis, "a reduction's axis");
		}
		for (int i = 0; i < op->nresults; i++)
			for (int d = 0; d < f->values[op->results[i]].type.rank; d++)
				join(s, op->args[0], d < op->axis ? d : d + 1, op->results[i], d);
		break;
	case IR_OP_SCAN:
		join_operands(s, op, op->args[0]);
		mark(s, op->args[0], op->axis, "a scan's axis");
		break;
	case IR_OP_RESHAPE: {
		/* one that only adds or drops size-1 dims keeps the others */
		ir_type a = f->values[op->args[0]].type, t = f->values[res].type;
		int da = 0, dt = 0;
		bool keeps = true;
		while (keeps) {
			while (da < a.rank && a.shape[da] == 1)
				da++;
			while (dt < t.rank && t.shape[dt] == 1)
				dt++;
			if (da == a.rank || dt == t.rank)
				break;
			keeps = a.shape[da] == t.shape[dt];
			join(s, op->args[0], da++, res, dt++);
		}
		if (!keeps || da != a.rank || dt != t.rank)
			mark_operands(s, op, "a reshape");
		break;
	}
	case IR_OP_CAT:
		mark_operands(s, op, "a cat");
		break;
	case IR_OP_HISTOGRAM:
		mark_operands(s, op, "a histogram");
		break;
	case IR_OP_DEVICE_PRINT:
	case IR_OP_DEVICE_ASSERT:
		mark_operands(s, op, "a device print or assert");
		break;
	case IR_OP_LOAD:
	case IR_OP_STORE:
		if (op->flags & IR_FLAG_TENSORMAP)
			mark_operands(s, op, "a descriptor block (TMA copies it whole)");
		else
			join_operands(s, op, op->code == IR_OP_LOAD ? res : op->args[1]);
		break;
	case IR_OP_INLINE_ASM:
		if (op->ival > 1)
			mark_operands(s, op, "inline assembly on packed elements");
		else if (res >= 0)
			join_operands(s, op, res);
		break;
	case IR_OP_FOR: {
		const ir_region *body = &op->regions[0];
		const ir_op *y = terminator(body);
		for (int i = 0; i < op->nresults; i++) {
			join_all(s, op->args[3 + i], op->results[i]);
			join_all(s, body->params[1 + i], op->results[i]);
			if (y && i < y->nargs)
				join_all(s, y->args[i], op->results[i]);
		}
		break;
	}
	case IR_OP_IF:
		for (int k = 0; k < op->nregions; k++) {
			const ir_op *y = terminator(&op->regions[k]);
			for (int i = 0; y && i < op->nresults && i < y->nargs; i++)
				join_all(s, y->args[i], op->results[i]);
		}
		break;
	case IR_OP_WHILE: {
		const ir_region *before = &op->regions[0], *after = &op->regions[1];
		const ir_op *c = terminator(before), *y = terminator(after);
		for (int i = 0; i < op->nargs && i < before->nparams; i++) {
			join_all(s, op->args[i], before->params[i]);
			if (y && i < y->nargs)
				join_all(s, y->args[i], before->params[i]);
		}
		for (int i = 0; i < op->nresults; i++) {
			if (c && 1 + i < c->nargs)
				join_all(s, c->args[1 + i], op->results[i]);
			if (i < after->nparams)
				join_all(s, after->params[i], op->results[i]);
		}
		break;
	}
	case IR_OP_CONST: case IR_OP_ARANGE: case IR_OP_SPLAT: case IR_OP_PROGRAM_ID: case IR_OP_NUM_PROGRAMS:
	case IR_OP_CTA_RANK: case IR_OP_ASSUME: case IR_OP_BARRIER: case IR_OP_GRID_DEP: case IR_OP_YIELD:
	case IR_OP_CONDITION:
		break;
	case IR_OP_CAST: case IR_OP_BITCAST: case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV:
	case IR_OP_REM: case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR: case IR_OP_SHL: case IR_OP_SHR:
	case IR_OP_MIN: case IR_OP_MAX: case IR_OP_NEG: case IR_OP_NOT: case IR_OP_CMP: case IR_OP_SELECT:
	case IR_OP_MATH: case IR_OP_FMA: case IR_OP_EXTERN: case IR_OP_PTR_ADD: case IR_OP_HINT:
	case IR_OP_ATOMIC_RMW: case IR_OP_ATOMIC_CAS:
		if (res >= 0)
			join_operands(s, op, res);
		break;
	default: /* the pipeliner's ops come later; anything else is left whole */
		mark_operands(s, op, "an op the split does not know");
		break;
	}
}

static void visit_region(cluster_sets *s, const ir_region *r)
{
	for (int i = 0; i < r->nops; i++)
		visit(s, r->ops[i]);
}

static bool sets_build(cluster_sets *s, const ir_func *f, int C)
{
	memset(s, 0, sizeof *s);
	s->f = f;
	s->C = C;
	s->first_m = s->first_n = -1;
	s->nvalues = f->nvalues;
	s->base = malloc(sizeof(int) * (size_t)(f->nvalues + 1));
	if (!s->base)
		return false;
	for (int v = 0; v < f->nvalues; v++) {
		int r = f->values[v].type.rank;
		s->base[v] = r ? s->nnodes : -1;
		s->nnodes += r;
	}
	size_t n = (size_t)s->nnodes + 1;
	s->parent = malloc(sizeof(int) * n);
	s->min_size = calloc(n, sizeof(int));
	s->why = calloc(n, sizeof(const char *));
	if (!s->parent || !s->min_size || !s->why)
		return false;
	for (int i = 0; i < s->nnodes; i++)
		s->parent[i] = i;
	visit_region(s, &f->body);
	/* each root gathers its members' marks */
	for (int i = 0; i < s->nnodes; i++) {
		int r = find(s, i);
		if (!s->why[r])
			s->why[r] = s->why[i];
		if (s->min_size[i] > s->min_size[r])
			s->min_size[r] = s->min_size[i];
	}
	return true;
}

static void sets_free(cluster_sets *s)
{
	free(s->base);
	free(s->parent);
	free(s->min_size);
	free(s->why);
}

/* The dim of value v in set `root`, or -1. */
static int dim_in(cluster_sets *s, int v, int root)
{
	for (int d = 0; d < s->f->values[v].type.rank; d++)
		if (node(s, v, d) >= 0 && find(s, node(s, v, d)) == root)
			return d;
	return -1;
}

/* What decides whether each set may be cut, found for all of them at
 * once: per root, why its own values refuse (its marks, a block too small
 * to cut, a value it would cut along two dims; NULL: they do not) and the
 * elements of the values it covers; and the side effects on values every
 * CTA would hold whole, in program order (whole_effects). Found by passes
 * over the values and the ops, not per set: a large kernel has thousands
 * of sets, and asking each of them about every value and op was
 * quadratic. */
typedef struct effect {
	int v;           /* the value a CTA must hold part of; -1: none will do */
	const char *why;
} effect;

typedef struct set_facts {
	const char **own;  /* per root */
	int64_t *weight;   /* per root */
	effect *effects;
	int neffects;
} set_facts;

static void own_refusals(cluster_sets *s, set_facts *sf)
{
	const ir_func *f = s->f;
	for (int i = 0; i < s->nnodes; i++) {
		sf->own[i] = s->why[i];
		sf->weight[i] = 0;
	}
	for (int v = 0; v < s->nvalues; v++) {
		ir_type t = f->values[v].type;
		int roots[IR_MAX_RANK];
		for (int d = 0; d < t.rank; d++)
			roots[d] = find(s, node(s, v, d));
		for (int d = 0; d < t.rank; d++) {
			int r = roots[d], hits = 0, least = s->min_size[r] ? s->min_size[r] : 1;
			bool seen = false;
			for (int e = 0; e < d; e++)
				seen |= roots[e] == r;
			if (seen)
				continue;
			for (int e = d; e < t.rank; e++) {
				if (roots[e] != r)
					continue;
				hits++;
				if (!sf->own[r] && (t.shape[e] % s->C || t.shape[e] / s->C < least))
					sf->own[r] = "a block too small to cut";
			}
			if (hits > 1 && !sf->own[r])
				sf->own[r] = "a block that would be cut along two dims";
			sf->weight[r] += ir_numel(t);
		}
	}
}

/* Side effects on values every CTA holds whole: stores and atomics are
 * done by rank 0 alone; what it cannot do for the others refuses every
 * set that leaves the effect's value whole. Listed (or, with out NULL,
 * counted) in the order they are to be reported: an op's regions first. */
static void whole_effects(const ir_region *r, const bool *read, effect *out, int *n)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int k = 0; k < op->nregions; k++)
			whole_effects(&op->regions[k], read, out, n);
		effect e = {0, NULL};
		if (op->code == IR_OP_ATOMIC_CAS && op->nargs)
			e = (effect){op->args[0], "an atomic_cas on values every CTA holds"};
		if (op->code == IR_OP_STORE && (op->flags & IR_FLAG_TENSORMAP) && op->nargs) /* TMA stores take no mask */
			e = (effect){op->args[0], "a descriptor store every CTA would repeat"};
		if (op->code == IR_OP_ATOMIC_RMW && op->nargs && read[op->results[0]])
			e = (effect){op->args[0], "an atomic whose old values are read, on values every CTA holds"};
		if (op->code == IR_OP_INLINE_ASM && (op->flags & IR_FLAG_VOLATILE))
			e = (effect){op->nresults ? op->results[0] : -1, "volatile inline assembly on values every CTA holds"};
		if (e.why && out)
			out[*n] = e;
		*n += e.why != NULL;
	}
}

static void mark_read(const ir_region *r, bool *read)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int k = 0; k < op->nargs; k++)
			read[op->args[k]] = true;
		for (int k = 0; k < op->nregions; k++)
			mark_read(&op->regions[k], read);
	}
}

static bool facts_build(cluster_sets *s, set_facts *sf)
{
	const ir_func *f = s->f;
	bool *read = calloc((size_t)f->nvalues + 1, sizeof(bool));
	memset(sf, 0, sizeof *sf);
	sf->own = malloc(sizeof *sf->own * ((size_t)s->nnodes + 1));
	sf->weight = malloc(sizeof *sf->weight * ((size_t)s->nnodes + 1));
	if (read) {
		mark_read(&f->body, read);
		whole_effects(&f->body, read, NULL, &sf->neffects);
		sf->effects = malloc(sizeof *sf->effects * ((size_t)sf->neffects + 1));
		sf->neffects = 0;
		if (sf->effects)
			whole_effects(&f->body, read, sf->effects, &sf->neffects);
	}
	free(read);
	if (!sf->own || !sf->weight || !sf->effects)
		return false;
	own_refusals(s, sf);
	return true;
}

static void facts_free(set_facts *sf)
{
	free(sf->own);
	free(sf->weight);
	free(sf->effects);
}

/* Why set `root` cannot be cut, NULL where it can; *weight receives the
 * elements of the values it covers either way. Each set reads the
 * effects only up to the first whose value it leaves whole, so all sets
 * together read each effect at most once per dim of its value. */
static const char *refusal(cluster_sets *s, const set_facts *sf, int root, int64_t *weight)
{
	*weight = sf->weight[root];
	if (sf->own[root])
		return sf->own[root];
	for (int i = 0; i < sf->neffects; i++)
		if (sf->effects[i].v < 0 || dim_in(s, sf->effects[i].v, root) < 0)
			return sf->effects[i].why;
	return NULL;
}

/* The set to cut (its root), or -1 with *why: the first dot's M or N,
 * else the set covering the most elements; where none can be cut, why the
 * one covering the most cannot. */
static int choose(cluster_sets *s, const char **why)
{
	set_facts sf;
	if (!facts_build(s, &sf)) {
		facts_free(&sf);
		*why = "out of memory";
		return -1;
	}
	/* M where each CTA keeps 64 rows per warpgroup (wgmma stacks its
	 * warpgroups along M: 128x256 in 8 warps over 2 CTAs is 128x128 each,
	 * not 64x256), or where N would keep fewer than 64 columns; else N.
	 * Triton's PlanCTA asks for 128 rows, and splits a 128x128 block of 4
	 * warps along N: 5% slower than along M on an H200 (docs/PERF.md) */
	bool m_first = s->dot_m / s->C >= 64 * ((s->f->num_warps + 3) / 4) || s->dot_n / s->C < 64;
	int best = -1, dots[2] = {m_first ? s->first_m : s->first_n, m_first ? s->first_n : s->first_m};
	int64_t best_weight = 0, no_weight = -1, w;
	*why = "no blocks";
	for (int t = 0; t < 2 && best < 0; t++)
		if (dots[t] >= 0 && !refusal(s, &sf, find(s, dots[t]), &w))
			best = find(s, dots[t]);
	bool by_dot = best >= 0;
	for (int i = 0; i < s->nnodes && !by_dot; i++) {
		if (find(s, i) != i)
			continue;
		const char *no = refusal(s, &sf, i, &w);
		if (!no && w > best_weight) {
			best = i;
			best_weight = w;
		} else if (no && w > no_weight) {
			no_weight = w;
			*why = no;
		}
	}
	facts_free(&sf);
	return best;
}

const char *cluster_refusal(const ir_func *f, int num_ctas)
{
	cluster_sets s;
	const char *why = NULL;
	if (!sets_build(&s, f, num_ctas))
		why = "out of memory";
	else if (choose(&s, &why) >= 0)
		why = NULL;
	sets_free(&s);
	return why;
}

/* ---------------------------------------------------------------------- */

typedef struct splitter {
	ir_func *f;
	cluster_sets *s;
	int root;
	int rank;   /* CTA_RANK's value */
	int rank0;  /* i1: rank == 0 */
	bool ok;
} splitter;

static ir_op *new_op(splitter *p, ir_opcode code, src_loc loc, int nargs, const int *args, ir_type t)
{
	ir_op *op = ir_op_new(p->f, code, loc, nargs, args, 1, &t, 0);
	p->ok = p->ok && op;
	return op;
}

/* The ops of r rebuilt with what the split adds before (masks) and after
 * (aranges' offsets) them. */
static void split_region(splitter *p, ir_region *r)
{
	ir_func *f = p->f;
	int C = p->s->C;
	/* at most 5 an op: an arange and its offset's 4 ops, a store and 2 */
	ir_op **ops = arena_alloc(f->arena, sizeof(ir_op *) * (size_t)(5 * r->nops + 1));
	int n = 0;
	if (!ops) {
		p->ok = false;
		return;
	}
	for (int i = 0; i < r->nops && p->ok; i++) {
		ir_op *op = r->ops[i];
		for (int k = 0; k < op->nregions; k++)
			split_region(p, &op->regions[k]);
		if (op->code == IR_OP_BARRIER)
			op->ival = 1;
		bool effect = op->code == IR_OP_STORE || op->code == IR_OP_ATOMIC_RMW;
		if (effect && dim_in(p->s, op->args[0], p->root) < 0) {
			/* every CTA holds it: rank 0 stores it */
			ir_type pt = f->values[op->args[0]].type;
			int mask = p->rank0;
			if (pt.rank) {
				ir_type mt = ir_block(ir_scalar(IR_I1), pt.rank, pt.shape);
				ir_op *sp = new_op(p, IR_OP_SPLAT, op->loc, 1, &p->rank0, mt);
				if (!sp)
					break;
				ops[n++] = sp;
				mask = sp->results[0];
			}
			if (op->flags & IR_FLAG_HAS_MASK) {
				int ab[2] = {op->args[2], mask};
				ir_op *and = new_op(p, IR_OP_AND, op->loc, 2, ab, f->values[mask].type);
				if (!and)
					break;
				ops[n++] = and;
				op->args[2] = and->results[0];
			} else {
				int *args = arena_alloc(f->arena, sizeof(int) * (size_t)(op->nargs + 1));
				if (!args) {
					p->ok = false;
					break;
				}
				memcpy(args, op->args, sizeof(int) * (size_t)op->nargs);
				args[op->nargs++] = mask; /* the mask follows the pointer and value */
				op->args = args;
				op->flags |= IR_FLAG_HAS_MASK;
			}
		}
		ops[n++] = op;
		if (op->code == IR_OP_HINT && op->sub != IR_HINT_MULTIPLE_OF) {
			int d = dim_in(p->s, op->results[0], p->root);
			if (d >= 0 && op->ints[d] > f->values[op->results[0]].type.shape[d]) /* already cut */
				op->ints[d] = f->values[op->results[0]].type.shape[d];
		}
		if (op->code == IR_OP_ARANGE && dim_in(p->s, op->results[0], p->root) == 0) {
			/* arange(s, e) -> arange(s, s + m) + rank * m, m = (e - s) / C,
			 * the original value id now the sum's */
			int64_t m = (op->ival2 - op->ival) / C;
			int out = op->results[0];
			ir_type t = f->values[out].type;
			t.shape[0] = (int32_t)m;
			int raw = ir_value_new(f, t);
			ir_op *c = new_op(p, IR_OP_CONST, op->loc, 0, NULL, ir_scalar(IR_I32));
			if (raw < 0 || !c) {
				p->ok = false;
				break;
			}
			c->ival = m;
			int rm[2] = {p->rank, c->results[0]};
			ir_op *mul = new_op(p, IR_OP_MUL, op->loc, 2, rm, ir_scalar(IR_I32));
			ir_op *sp = mul ? new_op(p, IR_OP_SPLAT, op->loc, 1, &mul->results[0], t) : NULL;
			int xs[2] = {raw, sp ? sp->results[0] : 0};
			ir_op *add = sp ? new_op(p, IR_OP_ADD, op->loc, 2, xs, t) : NULL;
			if (!add)
				break;
			f->values[add->results[0]].def = NULL; /* the sum's own result value is left unused */
			op->ival2 = op->ival + m;
			op->results[0] = raw;
			f->values[raw].def = op;
			f->values[raw].def_index = 0;
			f->values[raw].name = f->values[out].name;
			add->results[0] = out;
			f->values[out].def = add;
			f->values[out].def_index = 0;
			ops[n++] = c;
			ops[n++] = mul;
			ops[n++] = sp;
			ops[n++] = add;
		}
	}
	r->ops = ops;
	r->nops = r->capops = n;
}

tilec_status cluster_split(tilec_ctx *ctx, ir_func *f)
{
	cluster_sets s;
	const char *why = NULL;
	int root = -1;
	int nvalues = f->nvalues;
	if (sets_build(&s, f, f->num_ctas))
		root = choose(&s, &why);
	else
		why = "out of memory";
	splitter p = {.f = f, .s = &s, .root = root, .ok = root >= 0};
	if (p.ok) {
		/* the types first, from the sets (new values come after nvalues) */
		for (int v = 0; v < nvalues; v++) {
			int d = dim_in(&s, v, root);
			if (d >= 0)
				f->values[v].type.shape[d] /= f->num_ctas;
		}
		ir_op *rk = new_op(&p, IR_OP_CTA_RANK, f->loc, 0, NULL, ir_scalar(IR_I32));
		ir_op *zero = new_op(&p, IR_OP_CONST, f->loc, 0, NULL, ir_scalar(IR_I32));
		int args[2] = {rk ? rk->results[0] : 0, zero ? zero->results[0] : 0};
		ir_op *eq = rk && zero ? new_op(&p, IR_OP_CMP, f->loc, 2, args, ir_scalar(IR_I1)) : NULL;
		if (eq) {
			eq->sub = IR_CMP_EQ;
			p.rank = rk->results[0];
			p.rank0 = eq->results[0];
			split_region(&p, &f->body);
		}
		/* the rank and its test at the top, where they dominate every use */
		ir_op **ops = p.ok ? arena_alloc(f->arena, sizeof(ir_op *) * (size_t)(f->body.nops + 3)) : NULL;
		if (ops) {
			ops[0] = rk, ops[1] = zero, ops[2] = eq;
			memcpy(ops + 3, f->body.ops, sizeof(ir_op *) * (size_t)f->body.nops);
			f->body.ops = ops;
			f->body.nops = f->body.capops = f->body.nops + 3;
		} else {
			p.ok = false;
		}
	}
	sets_free(&s);
	if (root < 0) {
		diag_error(ctx, f->loc, "kernel '%s': num_ctas=%d cannot split its blocks: %s", f->name, f->num_ctas,
			   why ? why : "?");
		return TILEC_ERR_UNSUPPORTED;
	}
	if (!p.ok) {
		diag_error(ctx, f->loc, "out of memory while splitting blocks over a cluster");
		return TILEC_ERR_NOMEM;
	}
	return TILEC_OK;
}
