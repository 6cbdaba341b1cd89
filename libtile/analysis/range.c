/* range.c - the values an integer block can hold.
 *
 * A conservative interval for every element of a value, found on demand
 * by walking its definition a few ops deep: constants, masks (`x & 15`),
 * shifts and remainders by constants, sums, differences and products,
 * casts between integer kinds, and the ops that only move elements
 * (broadcast, join, reshape, ...). Anything else (loads, loop-carried
 * values, parameters) holds its kind's whole range. 64-bit kinds are left
 * unknown, so every bound fits an int64_t with room to add. The lowering
 * asks where a narrow range buys a cheaper instruction: an integer of at
 * most 1024 values converts to fp16 through its bits (nvptx/math.c).
 */
#include "analysis/analysis.h"

/* The walk gives up (its kind's range) past this depth or this many ops
 * visited, so a query costs little whatever the kernel: the lowering asks
 * once per element converted. */
enum { RANGE_DEPTH = 16, RANGE_VISITS = 64 };

typedef struct range {
	int64_t lo, hi;
} range;

static bool kind_range(ir_kind k, range *r)
{
	int b = ir_kind_bits(k);
	if (!ir_kind_is_int(k) || b <= 0 || b > 32)
		return false;
	if (k == IR_I1)
		*r = (range){0, 1};
	else if (ir_kind_is_signed(k))
		*r = (range){-((int64_t)1 << (b - 1)), ((int64_t)1 << (b - 1)) - 1};
	else
		*r = (range){0, ((int64_t)1 << b) - 1};
	return true;
}

/* r, or the kind's whole range where r leaves it (the op wrapped). */
static bool within(ir_kind k, range r, range *out)
{
	if (!kind_range(k, out))
		return false;
	if (r.lo >= out->lo && r.hi <= out->hi)
		*out = r;
	return true;
}

static int64_t floor_shift(int64_t x, int s)
{
	return x >= 0 ? x >> s : -((-x + ((int64_t)1 << s) - 1) >> s);
}

static bool walk(const ir_func *f, int v, int depth, int *visits, range *out);

/* The constant scalar or splat value v, if it is one. */
static bool constant(const ir_func *f, int v, int *visits, int64_t *c)
{
	range r;
	if (!walk(f, v, RANGE_DEPTH - 2, visits, &r) || r.lo != r.hi)
		return false;
	*c = r.lo;
	return true;
}

static bool walk(const ir_func *f, int v, int depth, int *visits, range *out)
{
	const ir_value *val = &f->values[v];
	ir_kind k = (ir_kind)val->type.kind;
	const ir_op *op = val->def;
	if (!kind_range(k, out))
		return false;
	if (!op || depth >= RANGE_DEPTH || ++*visits > RANGE_VISITS)
		return true;
	range a, b;
	int64_t c;
	switch (op->code) {
	case IR_OP_CONST:
		return within(k, (range){op->ival, op->ival}, out);
	case IR_OP_SPLAT: case IR_OP_BROADCAST: case IR_OP_EXPAND_DIMS: case IR_OP_RESHAPE: case IR_OP_PERMUTE:
	case IR_OP_FLIP: case IR_OP_HINT:
		return walk(f, op->args[0], depth + 1, visits, out);
	case IR_OP_JOIN: case IR_OP_CAT: case IR_OP_SELECT: {
		int i = op->code == IR_OP_SELECT;
		if (walk(f, op->args[i], depth + 1, visits, &a) && walk(f, op->args[i + 1], depth + 1, visits, &b))
			*out = (range){min64(a.lo, b.lo), max64(a.hi, b.hi)};
		return true;
	}
	case IR_OP_CAST:
		if (walk(f, op->args[0], depth + 1, visits, &a))
			return within(k, a, out);
		return true;
	case IR_OP_AND: /* an operand that is not negative bounds the result */
		for (int i = 0; i < 2; i++)
			if (walk(f, op->args[i], depth + 1, visits, &a) && a.lo >= 0)
				*out = (range){0, min64(a.hi, out->hi)};
		return true;
	case IR_OP_SHR:
		if (constant(f, op->args[1], visits, &c) && c >= 0 && c < ir_kind_bits(k) && walk(f, op->args[0], depth + 1, visits, &a))
			*out = (range){floor_shift(a.lo, (int)c), floor_shift(a.hi, (int)c)};
		return true;
	case IR_OP_REM: /* C's remainder by a positive constant: the dividend's sign, under c */
		if (constant(f, op->args[1], visits, &c) && c > 0 && walk(f, op->args[0], depth + 1, visits, &a))
			*out = (range){min64(0, max64(a.lo, -(c - 1))), max64(0, min64(a.hi, c - 1))};
		return true;
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_MIN: case IR_OP_MAX: {
		if (!walk(f, op->args[0], depth + 1, visits, &a) || !walk(f, op->args[1], depth + 1, visits, &b))
			return true;
		range r;
		if (op->code == IR_OP_ADD) {
			r = (range){a.lo + b.lo, a.hi + b.hi};
		} else if (op->code == IR_OP_SUB) {
			r = (range){a.lo - b.hi, a.hi - b.lo};
		} else if (op->code == IR_OP_MIN) {
			r = (range){min64(a.lo, b.lo), min64(a.hi, b.hi)};
		} else if (op->code == IR_OP_MAX) {
			r = (range){max64(a.lo, b.lo), max64(a.hi, b.hi)};
		} else {
			int64_t big = (int64_t)1 << 31; /* the products fit */
			if (a.lo < -big || a.hi > big || b.lo < -big || b.hi > big)
				return true;
			int64_t p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
			r = (range){p[0], p[0]};
			for (int i = 1; i < 4; i++)
				r = (range){min64(r.lo, p[i]), max64(r.hi, p[i])};
		}
		return within(k, r, out);
	}
	default:
		return true;
	}
}

bool range_of(const ir_func *f, int v, int64_t *lo, int64_t *hi)
{
	range r;
	int visits = 0;
	if (!walk(f, v, 0, &visits, &r))
		return false;
	*lo = r.lo;
	*hi = r.hi;
	return true;
}
