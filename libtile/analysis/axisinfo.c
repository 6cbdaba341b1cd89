/* axisinfo.c - contiguity, divisibility and constancy (Triton's AxisInfo).
 *
 * For every integer and pointer value and every dim, a forward pass keeps
 * three powers-of-two facts about the block cut into aligned runs:
 * contiguity (runs of values increasing by one), divisibility (the largest
 * power of two dividing the first value of each run; bytes for pointers)
 * and constancy (runs of equal values). They start at arange, constants,
 * splats of parameters specialized as divisible by 16 and the
 * multiple_of/max_contiguous hints, and propagate through add, mul,
 * pointer offsets, comparisons and selects with Triton's rules. Known
 * constant scalars are tracked too (multiplying by one keeps contiguity).
 * Loop-carried values get what holds for their initial value and for all
 * the values the body yields (a fixpoint of gcds), an if's results what
 * holds for both branches' values. The main consumer is
 * the width of memory accesses, so facts are conservative where unsure.
 * Beside them, runs and steadiness are the contiguity and constancy a
 * remainder or quotient by a value equal along the dim would keep if it
 * did not wrap (a convolution's `offs % width`, `offs // width`): the
 * layout's order where no access is provably contiguous (likely_facts).
 */
#include "analysis/analysis.h"

#include <string.h>

#define AXIS_MAX_DIV ((int64_t)1 << 30)

typedef struct axis_state {
	const ir_func *f;
	axis_info *ai;
	bool *known;     /* scalar or splat with a known integer value */
	int64_t *value;
} axis_state;

static int64_t gcd64(int64_t a, int64_t b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static int64_t pow2_divisor(int64_t v)
{
	if (v == 0)
		return AXIS_MAX_DIV;
	int64_t d = 1;
	while (d < AXIS_MAX_DIV && (v & d) == 0)
		d <<= 1;
	return d;
}

static int rank_of(const axis_state *s, int v)
{
	return s->f->values[v].type.rank;
}

static int dims_of(const axis_state *s, int v)
{
	int r = rank_of(s, v);
	return r ? r : 1;
}

static void set_unknown(axis_info *x)
{
	for (int d = 0; d < IR_MAX_RANK; d++)
		x->contiguity[d] = x->divisibility[d] = x->constancy[d] = x->runs[d] = x->steady[d] = 1;
}

static void set_constant(axis_state *s, int v, int64_t value)
{
	axis_info *x = &s->ai[v];
	ir_type t = s->f->values[v].type;
	for (int d = 0; d < IR_MAX_RANK; d++) {
		x->contiguity[d] = 1;
		x->divisibility[d] = pow2_divisor(value);
		x->constancy[d] = x->steady[d] = d < t.rank ? t.shape[d] : 1;
		x->runs[d] = 1;
	}
	s->known[v] = true;
	s->value[v] = value;
}

static void binary(axis_state *s, const ir_op *op)
{
	int r = op->results[0], a = op->args[0], b = op->args[1];
	const axis_info *x = &s->ai[a], *y = &s->ai[b];
	axis_info *o = &s->ai[r];
	int64_t scale = 1; /* PTR_ADD: offsets count elements, pointers bytes */
	if (op->code == IR_OP_PTR_ADD) {
		ir_type pt = s->f->values[a].type;
		scale = ir_kind_bytes((ir_kind)pt.pointee);
	}
	/* x % 1 and x * 0 are 0 whatever x holds: FLA's layer norm indexes its
	 * weights by `o_t % G`, at G = 1 one row for every row of the block. */
	if ((op->code == IR_OP_REM && s->known[b] && (s->value[b] == 1 || s->value[b] == -1)) ||
	    (op->code == IR_OP_MUL && ((s->known[a] && s->value[a] == 0) || (s->known[b] && s->value[b] == 0)))) {
		set_constant(s, r, 0);
		return;
	}
	for (int d = 0; d < dims_of(s, r); d++) {
		int64_t cst = gcd64(x->constancy[d], y->constancy[d]);
		int64_t con = 1, div = 1;
		switch (op->code) {
		case IR_OP_ADD:
		case IR_OP_PTR_ADD:
			con = max64(gcd64(x->contiguity[d], y->constancy[d]), gcd64(x->constancy[d], y->contiguity[d]));
			div = gcd64(x->divisibility[d], min64(y->divisibility[d] * scale, AXIS_MAX_DIV));
			break;
		case IR_OP_SUB:
			con = gcd64(x->contiguity[d], y->constancy[d]);
			div = gcd64(x->divisibility[d], y->divisibility[d]);
			break;
		case IR_OP_MUL:
			if (s->known[b] && s->value[b] == 1)
				con = x->contiguity[d];
			else if (s->known[a] && s->value[a] == 1)
				con = y->contiguity[d];
			div = min64(x->divisibility[d] * y->divisibility[d], AXIS_MAX_DIV);
			break;
		case IR_OP_DIV:
			/* By a runtime value equal along d: it is a multiple of its
			 * divisibility D', so a run from a multiple of gcd(D, D')
			 * reaches no multiple of it before its end, as Triton's axis
			 * analysis takes it (FlagGems' `i // head_size`, head_size a
			 * multiple of 16: one quotient for a thread's 8 elements). */
			if (!s->known[b] && x->contiguity[d] > 1 && (y->constancy[d] >= x->contiguity[d] || rank_of(s, b) == 0))
				cst = max64(cst, gcd64(x->contiguity[d], gcd64(x->divisibility[d], y->divisibility[d])));
			if (s->known[b] && s->value[b] > 0) {
				int64_t c = s->value[b];
				if (x->divisibility[d] % c == 0)
					div = x->divisibility[d] / c;
				/* A contiguous run divided by c changes value only at multiples of c. */
				if (x->contiguity[d] > 1)
					cst = max64(cst, gcd64(x->contiguity[d], gcd64(x->divisibility[d], c)));
			}
			break;
		case IR_OP_REM:
			/* A run from a multiple of D wraps modulo a multiple of D' only at
			 * multiples of gcd(D, D'). */
			if (y->constancy[d] > 1 || rank_of(s, r) == 0) {
				con = gcd64(x->contiguity[d], gcd64(x->divisibility[d], y->divisibility[d]));
				div = gcd64(x->divisibility[d], y->divisibility[d]);
			}
			break;
		case IR_OP_AND:
			div = max64(x->divisibility[d], y->divisibility[d]);
			break;
		case IR_OP_OR:
		case IR_OP_XOR:
		case IR_OP_MIN:
		case IR_OP_MAX:
			div = gcd64(x->divisibility[d], y->divisibility[d]);
			break;
		case IR_OP_SHL:
			if (s->known[b] && s->value[b] >= 0 && s->value[b] < 31)
				div = min64(x->divisibility[d] << s->value[b], AXIS_MAX_DIV);
			break;
		case IR_OP_SHR:
			if (s->known[b] && s->value[b] >= 0 && s->value[b] < 31)
				div = max64(x->divisibility[d] >> s->value[b], 1);
			break;
		default:
			break;
		}
		o->contiguity[d] = max64(con, 1);
		o->divisibility[d] = max64(div, 1);
		o->constancy[d] = max64(cst, 1);
	}
	if (s->known[a] && s->known[b]) {
		int64_t va = s->value[a], vb = s->value[b], v;
		bool ok = true;
		switch (op->code) {
		case IR_OP_ADD: v = (int64_t)((uint64_t)va + (uint64_t)vb); break;
		case IR_OP_SUB: v = (int64_t)((uint64_t)va - (uint64_t)vb); break;
		case IR_OP_MUL: v = (int64_t)((uint64_t)va * (uint64_t)vb); break;
		default: ok = false; v = 0; break;
		}
		if (ok) {
			s->known[r] = true;
			s->value[r] = v;
		}
	}
}

/* offsets < n: with offsets contiguous from a multiple of D and n a
 * multiple of D', the result is constant on aligned runs of
 * gcd(contiguity, D, D'). */
static void compare(axis_state *s, const ir_op *op)
{
	int r = op->results[0];
	const axis_info *x = &s->ai[op->args[0]], *y = &s->ai[op->args[1]];
	axis_info *o = &s->ai[r];
	bool ordered = op->sub == IR_CMP_LT || op->sub == IR_CMP_LE || op->sub == IR_CMP_GT || op->sub == IR_CMP_GE;
	for (int d = 0; d < dims_of(s, r); d++) {
		int64_t cst = gcd64(x->constancy[d], y->constancy[d]);
		if (ordered && x->contiguity[d] > 1 && y->constancy[d] > 1)
			cst = max64(cst, gcd64(gcd64(x->contiguity[d], y->constancy[d]),
					       gcd64(x->divisibility[d], y->divisibility[d])));
		if (ordered && y->contiguity[d] > 1 && x->constancy[d] > 1)
			cst = max64(cst, gcd64(gcd64(y->contiguity[d], x->constancy[d]),
					       gcd64(x->divisibility[d], y->divisibility[d])));
		o->contiguity[d] = 1;
		o->divisibility[d] = 1;
		o->constancy[d] = max64(cst, 1);
	}
}

static void analyze_region(axis_state *s, const ir_region *r);

/* x = join(x, y): what holds for both; true when x changed. */
static bool join(axis_info *x, const axis_info *y)
{
	bool changed = false;
	for (int d = 0; d < IR_MAX_RANK; d++) {
		int64_t c = gcd64(x->contiguity[d], y->contiguity[d]), v = gcd64(x->divisibility[d], y->divisibility[d]);
		int64_t k = gcd64(x->constancy[d], y->constancy[d]);
		int64_t u = gcd64(x->runs[d], y->runs[d]), e = gcd64(x->steady[d], y->steady[d]);
		changed |= c != x->contiguity[d] || v != x->divisibility[d] || k != x->constancy[d] || u != x->runs[d] ||
			   e != x->steady[d];
		x->contiguity[d] = c;
		x->divisibility[d] = v;
		x->constancy[d] = k;
		x->runs[d] = u;
		x->steady[d] = e;
	}
	return changed;
}

/* Value dst takes what holds for src (its facts and known constant). */
static void copy_facts(axis_state *s, int dst, int src)
{
	s->ai[dst] = s->ai[src];
	s->known[dst] = s->known[src];
	s->value[dst] = s->value[src];
}

/* Value dst keeps what holds for src as well; true when dst changed. */
static bool join_facts(axis_state *s, int dst, int src)
{
	bool changed = join(&s->ai[dst], &s->ai[src]);
	if (s->known[dst] && !(s->known[src] && s->value[src] == s->value[dst])) {
		s->known[dst] = false;
		changed = true;
	}
	return changed;
}

/* Loop-carried values: what holds for the initial values and for every
 * value the body yields back, found by iterating the body until nothing
 * changes (gcds only shrink, so this ends quickly; the bound is a guard). */
/* A while loop's after region takes what the before region's CONDITION
 * passes (the same values). */
static void analyze_second(axis_state *s, const ir_region *body, const ir_region *second)
{
	const ir_op *c = body->nops ? body->ops[body->nops - 1] : NULL;
	for (int i = 0; c && c->code == IR_OP_CONDITION && i < second->nparams && i + 1 < c->nargs; i++)
		copy_facts(s, second->params[i], c->args[i + 1]);
	analyze_region(s, second);
}

static void analyze_loop(axis_state *s, const ir_region *body, const int *params, const int *inits, int n,
			 const ir_region *yielder, const ir_region *second)
{
	/* A parameter keeps its initial value's known constant while every
	 * iteration yields it back unchanged (a loop-invariant value carried
	 * along, such as a block pointer's stride). */
	for (int i = 0; i < n; i++)
		copy_facts(s, params[i], inits[i]);
	for (int iter = 0; iter < 16; iter++) {
		analyze_region(s, body);
		if (second)
			analyze_second(s, body, second);
		const ir_op *y = yielder->nops ? yielder->ops[yielder->nops - 1] : NULL;
		bool changed = false;
		for (int i = 0; y && y->code == IR_OP_YIELD && i < n && i < y->nargs; i++)
			changed |= join_facts(s, params[i], y->args[i]);
		if (!y || y->code != IR_OP_YIELD || y->nargs < n)
			break; /* malformed: give up as below */
		if (!changed)
			return;
	}
	for (int i = 0; i < n; i++) {
		set_unknown(&s->ai[params[i]]);
		s->known[params[i]] = false;
	}
	analyze_region(s, body);
	if (second)
		analyze_second(s, body, second);
}

/* Runs and steadiness of op's result o, its proven facts already set:
 * where a remainder by a value equal along the dim would not wrap, a
 * contiguous run stays one, and its quotient stays equal. */
static void likely_facts(const axis_state *s, const ir_op *op, axis_info *o)
{
	ir_type rt = s->f->values[op->results[0]].type;
	const axis_info *x = op->nargs > 0 ? &s->ai[op->args[0]] : NULL, *y = op->nargs > 1 ? &s->ai[op->args[1]] : NULL;
	ir_type xt = x ? s->f->values[op->args[0]].type : rt;
	bool ints = !ir_kind_is_float((ir_kind)rt.kind);
	for (int d = 0, j = 0; d < (rt.rank ? rt.rank : 1); d++) {
		int64_t run = o->contiguity[d], steady = o->constancy[d];
		switch (op->code) {
		case IR_OP_BROADCAST:
			if (!(xt.shape[d] == 1 && rt.shape[d] > 1)) {
				run = x->runs[d];
				steady = x->steady[d];
			}
			break;
		case IR_OP_EXPAND_DIMS:
			if (d != op->axis) {
				run = x->runs[j];
				steady = x->steady[j];
				j++;
			}
			break;
		case IR_OP_CAST: case IR_OP_HINT:
			run = x->runs[d];
			steady = x->steady[d];
			break;
		case IR_OP_SELECT: {
			const axis_info *c = x, *a = y, *b = &s->ai[op->args[2]];
			run = gcd64(min64(a->runs[d], b->runs[d]), c->steady[d]);
			steady = gcd64(c->steady[d], gcd64(a->steady[d], b->steady[d]));
			break;
		}
		case IR_OP_ADD: case IR_OP_PTR_ADD:
			if (ints) {
				run = max64(gcd64(x->runs[d], y->steady[d]), gcd64(x->steady[d], y->runs[d]));
				steady = gcd64(x->steady[d], y->steady[d]);
			}
			break;
		case IR_OP_SUB:
			if (ints) {
				run = gcd64(x->runs[d], y->steady[d]);
				steady = gcd64(x->steady[d], y->steady[d]);
			}
			break;
		case IR_OP_MUL:
			if (ints) {
				if (s->known[op->args[1]] && s->value[op->args[1]] == 1)
					run = x->runs[d];
				else if (s->known[op->args[0]] && s->value[op->args[0]] == 1)
					run = y->runs[d];
				steady = gcd64(x->steady[d], y->steady[d]);
			}
			break;
		case IR_OP_DIV: case IR_OP_REM: {
			/* by a runtime value equal along d (a known one's facts are
			 * exact): taken to be larger than the runs it cuts */
			bool wide = ints && !s->known[op->args[1]] && (y->steady[d] > 1 || !rt.rank);
			if (ints)
				steady = gcd64(x->steady[d], y->steady[d]);
			if (wide && op->code == IR_OP_DIV)
				steady = max64(steady, x->runs[d]);
			else if (wide)
				run = x->runs[d];
			break;
		}
		default:
			break;
		}
		o->runs[d] = max64(run, o->contiguity[d]);
		o->steady[d] = max64(steady, o->constancy[d]);
	}
}

static void analyze_op(axis_state *s, const ir_op *op)
{
	for (int i = 0; i < op->nresults; i++) {
		set_unknown(&s->ai[op->results[i]]);
		s->known[op->results[i]] = false; /* loops analyze their bodies more than once */
	}
	for (int g = 0; g < op->nregions; g++)
		for (int i = 0; i < op->regions[g].nparams; i++) {
			set_unknown(&s->ai[op->regions[g].params[i]]);
			s->known[op->regions[g].params[i]] = false;
		}
	int r = op->nresults ? op->results[0] : -1;
	ir_type rt = r >= 0 ? s->f->values[r].type : ir_scalar(IR_VOID);
	axis_info *o = r >= 0 ? &s->ai[r] : NULL;
	switch (op->code) {
	case IR_OP_CONST:
		if (!ir_kind_is_float((ir_kind)rt.kind))
			set_constant(s, r, op->ival);
		break;
	case IR_OP_ARANGE:
		o->contiguity[0] = rt.shape[0];
		o->divisibility[0] = pow2_divisor(op->ival);
		break;
	case IR_OP_SPLAT: {
		const axis_info *x = &s->ai[op->args[0]];
		for (int d = 0; d < rt.rank; d++) {
			o->divisibility[d] = x->divisibility[0];
			o->constancy[d] = rt.shape[d];
		}
		s->known[r] = s->known[op->args[0]];
		s->value[r] = s->value[op->args[0]];
		break;
	}
	case IR_OP_BROADCAST: {
		const axis_info *x = &s->ai[op->args[0]];
		ir_type st = s->f->values[op->args[0]].type;
		for (int d = 0; d < rt.rank; d++) {
			bool stretched = st.shape[d] == 1 && rt.shape[d] > 1;
			o->contiguity[d] = stretched ? 1 : x->contiguity[d];
			o->divisibility[d] = x->divisibility[d];
			o->constancy[d] = stretched ? rt.shape[d] : x->constancy[d];
		}
		s->known[r] = s->known[op->args[0]];
		s->value[r] = s->value[op->args[0]];
		break;
	}
	case IR_OP_EXPAND_DIMS: {
		const axis_info *x = &s->ai[op->args[0]];
		int64_t div = AXIS_MAX_DIV;
		bool contiguous = false;
		for (int d = 0, j = 0; d < rt.rank; d++) {
			if (d == op->axis)
				continue;
			o->contiguity[d] = x->contiguity[j];
			o->divisibility[d] = x->divisibility[j];
			o->constancy[d] = x->constancy[j];
			div = min64(div, x->divisibility[j]);
			contiguous |= x->contiguity[j] > 1;
			j++;
		}
		/* Along the new dim every element starts a run. */
		o->divisibility[op->axis] = contiguous ? 1 : div;
		o->contiguity[op->axis] = 1;
		o->constancy[op->axis] = 1;
		break;
	}
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_REM:
	case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR: case IR_OP_SHL: case IR_OP_SHR:
	case IR_OP_MIN: case IR_OP_MAX: case IR_OP_PTR_ADD:
		if (!ir_kind_is_float((ir_kind)rt.kind))
			binary(s, op);
		break;
	case IR_OP_CMP:
		compare(s, op);
		break;
	case IR_OP_SELECT: {
		const axis_info *c = &s->ai[op->args[0]], *x = &s->ai[op->args[1]], *y = &s->ai[op->args[2]];
		for (int d = 0; d < (rt.rank ? rt.rank : 1); d++) {
			o->contiguity[d] = max64(gcd64(min64(x->contiguity[d], y->contiguity[d]), c->constancy[d]), 1);
			o->divisibility[d] = gcd64(x->divisibility[d], y->divisibility[d]);
			o->constancy[d] = gcd64(c->constancy[d], gcd64(x->constancy[d], y->constancy[d]));
		}
		break;
	}
	case IR_OP_CAST:
		if (!ir_kind_is_float((ir_kind)rt.kind) && !ir_kind_is_float((ir_kind)s->f->values[op->args[0]].type.kind) &&
		    rt.kind != IR_I1) {
			*o = s->ai[op->args[0]];
			s->known[r] = s->known[op->args[0]];
			s->value[r] = s->value[op->args[0]];
		}
		break;
	case IR_OP_HINT:
		*o = s->ai[op->args[0]];
		for (int d = 0; d < (rt.rank ? rt.rank : 1); d++) {
			int64_t h = op->ints[d] > 0 ? op->ints[d] : 1;
			if (op->sub == IR_HINT_MULTIPLE_OF)
				o->divisibility[d] = min64(max64(o->divisibility[d], pow2_divisor(h)), AXIS_MAX_DIV);
			else if (op->sub == IR_HINT_MAX_CONTIGUOUS)
				o->contiguity[d] = max64(o->contiguity[d], h);
			else
				o->constancy[d] = max64(o->constancy[d], h);
		}
		break;
	case IR_OP_FOR: {
		/* The induction variable steps from lb by step. */
		const ir_region *body = &op->regions[0];
		axis_info *iv = &s->ai[body->params[0]];
		iv->divisibility[0] = gcd64(s->ai[op->args[0]].divisibility[0], s->ai[op->args[2]].divisibility[0]);
		int n = op->nargs - 3 < body->nparams - 1 ? op->nargs - 3 : body->nparams - 1;
		analyze_loop(s, body, body->params + 1, op->args + 3, n, body, NULL);
		for (int i = 0; i < op->nresults && i < n; i++)
			copy_facts(s, op->results[i], body->params[1 + i]);
		return;
	}
	case IR_OP_IF:
		/* each result: what holds for the values both branches yield */
		for (int g = 0; g < op->nregions; g++)
			analyze_region(s, &op->regions[g]);
		for (int i = 0; op->nregions == 2 && i < op->nresults; i++) {
			int res = op->results[i];
			for (int g = 0; g < 2; g++) {
				const ir_region *b = &op->regions[g];
				const ir_op *y = b->nops ? b->ops[b->nops - 1] : NULL;
				if (!y || y->code != IR_OP_YIELD || i >= y->nargs) {
					set_unknown(&s->ai[res]);
					s->known[res] = false;
					break;
				}
				if (g == 0)
					copy_facts(s, res, y->args[i]);
				else
					join_facts(s, res, y->args[i]);
			}
		}
		return;
	case IR_OP_WHILE:
		if (op->nregions == 2) {
			const ir_region *before = &op->regions[0];
			int n = op->nargs < before->nparams ? op->nargs : before->nparams;
			analyze_loop(s, before, before->params, op->args, n, &op->regions[1], &op->regions[1]);
			return;
		}
		break;
	default:
		break;
	}
	if (o)
		likely_facts(s, op, o);
	for (int g = 0; g < op->nregions; g++)
		analyze_region(s, &op->regions[g]);
}

static void analyze_region(axis_state *s, const ir_region *r)
{
	for (int i = 0; i < r->nops; i++)
		analyze_op(s, r->ops[i]);
}

/* hint[i], when given and non-zero, is a divisibility assumed of parameter
 * i beyond its own hints (a :8 or :4 variant tilec considers adding). */
static tilec_status analyze_hinted(arena *a, const ir_func *f, const uint8_t *hint, axis_info **out)
{
	axis_state s;
	s.f = f;
	s.ai = arena_alloc(a, sizeof(axis_info) * (size_t)(f->nvalues + 1));
	s.known = arena_alloc(a, sizeof(bool) * (size_t)(f->nvalues + 1));
	s.value = arena_alloc(a, sizeof(int64_t) * (size_t)(f->nvalues + 1));
	if (!s.ai || !s.known || !s.value)
		return TILEC_ERR_NOMEM;
	for (int v = 0; v < f->nvalues; v++)
		set_unknown(&s.ai[v]);
	for (int i = 0; i < f->nparams; i++)
		if (f->params[i].div16)
			s.ai[i].divisibility[0] = 16;
		else if (f->params[i].div_by)
			s.ai[i].divisibility[0] = f->params[i].div_by;
		else if (hint && hint[i])
			s.ai[i].divisibility[0] = hint[i];
	analyze_region(&s, &f->body);
	*out = s.ai;
	return TILEC_OK;
}

tilec_status axis_analyze(tilec_ctx *ctx, arena *a, const ir_func *f, axis_info **out)
{
	(void)ctx;
	return analyze_hinted(a, f, NULL, out);
}

int axis_vector_width(const ir_func *f, const axis_info *ai, int ptr, int mask)
{
	ir_type pt = f->values[ptr].type;
	return pt.rank ? axis_vector_width_dim(f, ai, ptr, mask, pt.rank - 1) : 1;
}

int axis_vector_width_dim(const ir_func *f, const axis_info *ai, int ptr, int mask, int last)
{
	ir_type pt = f->values[ptr].type;
	if (pt.rank == 0)
		return 1;
	int64_t bytes = ir_kind_bytes((ir_kind)pt.pointee);
	if (bytes <= 0)
		return 1;
	int64_t w = min64(ai[ptr].contiguity[last], 16 / bytes);
	w = min64(w, max64(ai[ptr].divisibility[last] / bytes, 1));
	w = min64(w, pt.shape[last]);
	if (mask >= 0 && f->values[mask].type.rank)
		w = min64(w, ai[mask].constancy[last]);
	int64_t p = 1;
	while (p * 2 <= w)
		p *= 2;
	return (int)p;
}

static void mark_narrow(const ir_func *f, const axis_info *ai, const ir_region *r, bool *narrow)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int k = 0; k < op->nregions; k++)
			mark_narrow(f, ai, &op->regions[k], narrow);
		if (op->code != IR_OP_LOAD || f->values[op->args[0]].type.rank != 2)
			continue;
		ir_type pt = f->values[op->args[0]].type;
		int mask = op->flags & IR_FLAG_HAS_MASK ? op->args[1] : -1;
		int64_t bytes = ir_kind_bytes((ir_kind)pt.pointee);
		int64_t widest = 0;
		for (int d = 0; d < 2; d++)
			widest = max64(widest, axis_vector_width_dim(f, ai, op->args[0], mask, d) * bytes);
		narrow[op->results[0]] = widest < 4;
	}
}

bool *axis_narrow_loads(arena *a, const ir_func *f, const axis_info *ai)
{
	bool *narrow = arena_alloc(a, sizeof(bool) * (size_t)(f->nvalues + 1));
	if (narrow) {
		memset(narrow, 0, sizeof(bool) * (size_t)(f->nvalues + 1));
		mark_narrow(f, ai, &f->body, narrow);
	}
	return narrow;
}

/* The widest access (bytes) of every load and store through pointer
 * blocks, each dimension, in op order: what a hint may widen. */
static int access_widths(const ir_func *f, const axis_info *ai, const ir_region *r, int *w, int n)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int k = 0; k < op->nregions; k++)
			n = access_widths(f, ai, &op->regions[k], w, n);
		if ((op->code != IR_OP_LOAD && op->code != IR_OP_STORE) || (op->flags & IR_FLAG_TENSORMAP))
			continue;
		ir_type pt = f->values[op->args[0]].type;
		if (pt.kind != IR_PTR || pt.rank == 0)
			continue;
		int mask = !(op->flags & IR_FLAG_HAS_MASK) ? -1 : op->code == IR_OP_LOAD ? op->args[1] : op->args[2];
		int bytes = ir_kind_bytes((ir_kind)pt.pointee);
		for (int d = 0; d < pt.rank; d++, n++)
			if (w)
				w[n] = axis_vector_width_dim(f, ai, op->args[0], mask, d) * bytes;
	}
	return n;
}

static tilec_status widths_under(arena *a, const ir_func *f, const uint8_t *hint, int *w)
{
	axis_info *ai;
	tilec_status st = analyze_hinted(a, f, hint, &ai);
	if (st == TILEC_OK)
		access_widths(f, ai, &f->body, w, 0);
	return st;
}

int axis_hint_params(arena *a, const ir_func *f, int by, uint8_t *chosen)
{
	int n = access_widths(f, NULL, &f->body, NULL, 0), np = f->nparams, count = 0;
	int *base = arena_alloc(a, sizeof(int) * (size_t)(n + 1)), *all = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
	int *w = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
	if (!base || !all || !w)
		return -1;
	memset(chosen, 0, (size_t)np);
	for (int i = 0; i < np && n; i++) {
		const ir_param *p = &f->params[i];
		bool integer = p->type.kind == IR_I32 || p->type.kind == IR_I64;
		if (integer && p->type.rank == 0 && !p->div16 && !p->div_by && !p->equal_one && !p->tensormap)
			chosen[i] = (uint8_t)by, count++;
	}
	if (!count)
		return 0; /* no access, or no parameter to hint */
	if (widths_under(a, f, NULL, base) != TILEC_OK || widths_under(a, f, chosen, all) != TILEC_OK)
		return -1;
	if (!memcmp(base, all, sizeof(int) * (size_t)n)) {
		memset(chosen, 0, (size_t)np);
		return 0; /* nothing widens */
	}
	/* keep only the parameters some access needs: a hint on a size no
	 * access depends on would only make the variant apply less often */
	for (int i = 0; i < np; i++) {
		if (!chosen[i])
			continue;
		chosen[i] = 0;
		if (widths_under(a, f, chosen, w) != TILEC_OK)
			return -1;
		if (memcmp(w, all, sizeof(int) * (size_t)n))
			chosen[i] = (uint8_t)by;
		else
			count--;
	}
	return count;
}

int axis_same_widths(arena *a, const ir_func *f, const uint8_t *x, const uint8_t *y)
{
	int n = access_widths(f, NULL, &f->body, NULL, 0);
	int *wx = arena_alloc(a, sizeof(int) * (size_t)(n + 1)), *wy = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
	if (!wx || !wy || widths_under(a, f, x, wx) != TILEC_OK || widths_under(a, f, y, wy) != TILEC_OK)
		return -1;
	return !memcmp(wx, wy, sizeof(int) * (size_t)n);
}
