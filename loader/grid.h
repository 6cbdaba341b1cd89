/* grid.h - grid programs: validation when the blob is opened, evaluation at
 * launch. Heuristic programs (dispatch.h) and the recipe programs of hidden
 * tensor maps (blob.h, tensordesc.h) are the same bytecode with another
 * number of results, checked and run by the same two functions, which take
 * that number from their caller: 1..3 for a grid, 1 for a heuristic,
 * 2 * rank - 1 for a recipe.
 *
 * A grid program is a few bytes of stack code over signed 64-bit integers
 * (docs/FORMAT.md), and doubles that only float comparisons read (a
 * heuristic's `args["eps"] > 0.0`). Validation proves every opcode,
 * operand, parameter and constexpr index, the stack depth at every step and
 * which entries hold doubles, so the evaluator only has to care about
 * arithmetic: each operation is overflow-checked without compiler
 * builtins, division follows Python (floor division, modulo with the
 * divisor's sign) since that is what the kernel's grid lambda meant, and
 * comparisons give Python's results (NaN unordered, an int compared with a
 * float exactly). */

enum {
	TILE__OP_ARG = 0x01, TILE__OP_CONST = 0x02, TILE__OP_CONSTEXPR = 0x03, TILE__OP_FARG = 0x04, TILE__OP_FCONST = 0x05,
	TILE__OP_ADD = 0x10, TILE__OP_SUB = 0x11, TILE__OP_MUL = 0x12, TILE__OP_FLOORDIV = 0x13,
	TILE__OP_CDIV = 0x14, TILE__OP_MOD = 0x15, TILE__OP_MIN = 0x16, TILE__OP_MAX = 0x17,
	TILE__OP_EQ = 0x18, TILE__OP_NE = 0x19, TILE__OP_LT = 0x1a, TILE__OP_LE = 0x1b, TILE__OP_GT = 0x1c,
	TILE__OP_GE = 0x1d, TILE__OP_AND = 0x1e, TILE__OP_OR = 0x1f, TILE__OP_NOT = 0x20, TILE__OP_NEXTPOW2 = 0x21,
	TILE__OP_FCMP = 0x22
};
/* TILE__OP_FCMP's operand: bits 0..2 the comparison (0..5: == != < <= > >=),
 * bit 3 the first operand is a float, bit 4 the second (one at least). */
enum { TILE__FCMP_A = 0x08, TILE__FCMP_B = 0x10 };
/* The float parameters a program reads: their type codes (FORMAT.md). */
enum { TILE__DT_FP16 = 10, TILE__DT_BF16 = 11, TILE__DT_FP32 = 12, TILE__DT_FP64 = 13 };
#define TILE__GRID_MAX_DEPTH 16

/* Checks a program of n >= 1 bytes of kernel k whose constexpr operands
 * index variant v's constexprs, and which must leave `values` values (its
 * first byte says how many; the caller has checked the range that byte
 * may take, with its own message); `who` prefixes the messages
 * ("variant 3: grid program"). */
static tile_status tile__program_check(const tile_module *m, const tile__kernel *k, const tile__variant *v, const uint8_t *code,
				       uint32_t n, uint32_t values, const char *who)
{
	uint32_t pc = 1;
	unsigned depth = 0;
	uint32_t floats = 0; /* bit i: stack entry i holds a double */
	if (code[0] != values)
		return tile__fail(TILE_ERROR_BAD_BLOB, "%s: a program of %u values, %u expected", who, code[0], values);
	while (pc < n) {
		uint32_t at = pc, op = code[pc++], idx, in = 0, want = 0;
		switch (op) {
		case TILE__OP_ARG:
		case TILE__OP_FARG:
		case TILE__OP_CONSTEXPR:
			if (pc >= n)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: operand past the end at byte %u", who, at);
			idx = code[pc++];
			if (op != TILE__OP_CONSTEXPR) {
				const tile__param *p;
				if (idx >= k->n_visible)
					return tile__fail(TILE_ERROR_BAD_BLOB, "%s: parameter %u out of range at byte %u", who, idx, at);
				p = &m->params[k->first_param + idx];
				if (op == TILE__OP_ARG && p->kind != TILE__KIND_INT && p->kind != TILE__KIND_UINT)
					return tile__fail(TILE_ERROR_BAD_BLOB, "%s: parameter %u is not an integer at byte %u", who, idx, at);
				/* the evaluator converts by the dtype: it must agree with the size */
				if (op == TILE__OP_FARG &&
				    (p->kind != TILE__KIND_FLOAT ||
				     !(p->size == 2 ? p->dtype == TILE__DT_FP16 || p->dtype == TILE__DT_BF16
						    : p->dtype == (p->size == 4 ? TILE__DT_FP32 : TILE__DT_FP64))))
					return tile__fail(TILE_ERROR_BAD_BLOB,
							  "%s: parameter %u is not an fp16, bf16, fp32 or fp64 float at byte %u", who, idx, at);
				floats |= (uint32_t)(op == TILE__OP_FARG) << depth;
			} else {
				uint8_t kind;
				if (idx >= v->n_constexprs)
					return tile__fail(TILE_ERROR_BAD_BLOB, "%s: constexpr %u out of range at byte %u", who, idx, at);
				kind = m->constexprs[(size_t)(v->first_constexpr + idx) * TILE__CONSTEXPR_SIZE + 4];
				if (kind != 0 && kind != 2)
					return tile__fail(TILE_ERROR_BAD_BLOB, "%s: constexpr %u is not an int or bool at byte %u", who, idx, at);
			}
			depth++;
			break;
		case TILE__OP_CONST:
		case TILE__OP_FCONST:
			if (n - pc < 8)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: operand past the end at byte %u", who, at);
			pc += 8;
			floats |= (uint32_t)(op == TILE__OP_FCONST) << depth;
			depth++;
			break;
		case TILE__OP_NOT: case TILE__OP_NEXTPOW2:
			in = 1;
			break;
		case TILE__OP_ADD: case TILE__OP_SUB: case TILE__OP_MUL: case TILE__OP_FLOORDIV:
		case TILE__OP_CDIV: case TILE__OP_MOD: case TILE__OP_MIN: case TILE__OP_MAX:
		case TILE__OP_EQ: case TILE__OP_NE: case TILE__OP_LT: case TILE__OP_LE: case TILE__OP_GT:
		case TILE__OP_GE: case TILE__OP_AND: case TILE__OP_OR:
			in = 2;
			break;
		case TILE__OP_FCMP:
			if (pc >= n)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: operand past the end at byte %u", who, at);
			want = code[pc++];
			if ((want & 7) > 5 || !(want & (TILE__FCMP_A | TILE__FCMP_B)) || (want & ~0x1fu))
				return tile__fail(TILE_ERROR_BAD_BLOB,
						  "%s: float comparison operand 0x%02x (a comparison 0..5, bits 3 and 4 its float "
						  "operands, one at least) at byte %u", who, want, at);
			want = (want & TILE__FCMP_A ? 1u : 0u) | (want & TILE__FCMP_B ? 2u : 0u);
			in = 2;
			break;
		default:
			return tile__fail(TILE_ERROR_BAD_BLOB, "%s: unknown opcode 0x%02x at byte %u", who, op, at);
		}
		if (in) {
			/* the operands' types: doubles where a float comparison
			 * says so, integers everywhere else */
			if (depth < in)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: stack underflow at byte %u", who, at);
			if ((floats >> (depth - in) & 3u) != want)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: %s at byte %u", who,
						  want ? "operands of other types than the float comparison's operand bits say"
						       : "a float operand of an integer operation",
						  at);
			depth -= in - 1;
			floats &= (1u << (depth - 1)) - 1; /* the result is an integer */
		}
		if (depth > TILE__GRID_MAX_DEPTH)
			return tile__fail(TILE_ERROR_BAD_BLOB, "%s: stack deeper than %d at byte %u", who, TILE__GRID_MAX_DEPTH, at);
	}
	if (depth != values)
		return tile__fail(TILE_ERROR_BAD_BLOB, "%s: %u values left, %u expected", who, depth, values);
	if (floats)
		return tile__fail(TILE_ERROR_BAD_BLOB, "%s: a float among the values left", who);
	return TILE_SUCCESS;
}

/* Variant vi's grid program (grid_size >= 1 bytes inside grid_code). */
static tile_status tile__grid_check(const tile_module *m, uint32_t vi)
{
	const tile__variant *v = &m->variants[vi];
	const uint8_t *code = m->grid_code + v->grid_offset;
	char who[48];
	snprintf(who, sizeof who, "variant %u: grid program", vi);
	if (code[0] < 1 || code[0] > 3)
		return tile__fail(TILE_ERROR_BAD_BLOB, "%s: %u dimensions (1..3)", who, code[0]);
	return tile__program_check(m, &m->kernels[v->kernel], v, code, v->grid_size, code[0], who);
}

/* A parameter's value as 64 bits: sign- or zero-extended by its kind. */
static uint64_t tile__param_bits(const tile__param *p, const void *value)
{
	uint8_t b1;
	uint16_t b2;
	uint32_t b4;
	uint64_t b8 = 0;
	int sign = p->kind == TILE__KIND_INT;
	switch (p->size) {
	case 1: memcpy(&b1, value, 1); return sign ? (uint64_t)(int64_t)(int8_t)b1 : b1;
	case 2: memcpy(&b2, value, 2); return sign ? (uint64_t)(int64_t)(int16_t)b2 : b2;
	case 4: memcpy(&b4, value, 4); return sign ? (uint64_t)(int64_t)(int32_t)b4 : b4;
	default: memcpy(&b8, value, 8); return b8;
	}
}

/* An fp16 as a double (exact). */
static double tile__half_double(uint16_t h)
{
	uint32_t e = h >> 10 & 31, man = h & 1023;
	uint64_t u;
	double d;
	if (e == 0) {
		d = man / 16777216.0; /* subnormal: man * 2^-24 */
	} else {
		u = (uint64_t)(e == 31 ? 2047 : e - 15 + 1023) << 52 | (uint64_t)man << 42; /* 31: inf, NaN */
		memcpy(&d, &u, 8);
	}
	return h >> 15 ? -d : d;
}

/* A float parameter's value as a double (exact for all four types; the
 * checker proved the dtype agrees with the size). */
static double tile__param_double(const tile__param *p, const void *value)
{
	uint16_t h;
	uint32_t w;
	float f;
	double d;
	switch (p->dtype) {
	case TILE__DT_FP16: memcpy(&h, value, 2); return tile__half_double(h);
	case TILE__DT_BF16: memcpy(&h, value, 2); w = (uint32_t)h << 16; memcpy(&f, &w, 4); return f;
	case TILE__DT_FP32: memcpy(&f, value, 4); return f;
	default: memcpy(&d, value, 8); return d;
	}
}

/* A stack entry holding a double, and back. */
static int64_t tile__from_double(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return (int64_t)u;
}

static double tile__to_double(int64_t v)
{
	uint64_t u = (uint64_t)v;
	double d;
	memcpy(&d, &u, 8);
	return d;
}

/* i against d exactly, as Python compares an int with a float (no rounding
 * of i to a double): -1 i < d, 0 equal, 1 i > d, 2 d is NaN. */
static int tile__cmp_int_double(int64_t i, double d)
{
	int64_t t;
	double frac;
	if (d != d)
		return 2;
	if (d >= 9223372036854775808.0)
		return -1;
	if (d < -9223372036854775808.0)
		return 1;
	t = (int64_t)d; /* in range: truncation toward zero */
	if (i != t)
		return i < t ? -1 : 1;
	frac = d - (double)t; /* exact: d's fractional part, 0 from 2^52 on */
	return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

/* a OP b for TILE__OP_FCMP's operand c: each side a double where its bit
 * says so, else an integer. NaN compares unequal and unordered, -0.0
 * equals 0.0 (C's double comparisons, which are Python's). */
static int64_t tile__fcompare(uint32_t c, int64_t a, int64_t b)
{
	int rel;
	if ((c & TILE__FCMP_A) && (c & TILE__FCMP_B)) {
		double x = tile__to_double(a), y = tile__to_double(b);
		rel = x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
	} else if (c & TILE__FCMP_A) {
		rel = tile__cmp_int_double(b, tile__to_double(a));
		rel = rel == 2 ? 2 : -rel;
	} else {
		rel = tile__cmp_int_double(a, tile__to_double(b));
	}
	switch (c & 7) {
	case 0: return rel == 0;
	case 1: return rel != 0;
	case 2: return rel == -1;
	case 3: return rel == -1 || rel == 0;
	case 4: return rel == 1;
	default: return rel == 1 || rel == 0;
	}
}

/* 0: the result overflows int64. */
static int tile__add(int64_t a, int64_t b, int64_t *r)
{
	if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
		return 0;
	*r = a + b;
	return 1;
}

static int tile__sub(int64_t a, int64_t b, int64_t *r)
{
	if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b))
		return 0;
	*r = a - b;
	return 1;
}

static int tile__mul(int64_t a, int64_t b, int64_t *r)
{
	if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
		  : (b > 0 ? a < INT64_MIN / b : (a != 0 && b < INT64_MAX / a)))
		return 0;
	*r = a * b;
	return 1;
}

/* Python's a // b; b != 0. */
static int tile__floordiv(int64_t a, int64_t b, int64_t *r)
{
	if (a == INT64_MIN && b == -1)
		return 0;
	*r = a / b - (a % b != 0 && (a < 0) != (b < 0));
	return 1;
}

/* Evaluates a checked program of v's kernel (constexprs: v's) for the
 * launch arguments (the caller's: visible parameters) into out[0..n_out),
 * n_out at least the program's count of values; entries past that count
 * are 1 (a grid's missing dimensions). `who`, followed by `name` when not
 * NULL, names the program in errors ("grid program"; "tensor map", "a_tmap"). */
static tile_status tile__program_eval(const tile_module *m, const tile__variant *v, const uint8_t *code, uint32_t n,
				      void *const *args, int64_t *out, uint32_t n_out, const char *who, const char *name)
{
	const tile__kernel *k = &m->kernels[v->kernel];
	int64_t stack[TILE__GRID_MAX_DEPTH], a, b, r = 0;
	uint32_t pc = 1, values = code[0], i;
	int sp = 0;
	const char *what = NULL;
	while (pc < n) {
		uint32_t at = pc, op = code[pc++];
		if (op == TILE__OP_ARG) {
			const tile__param *p = &m->params[k->first_param + code[pc]];
			uint64_t bits = tile__param_bits(p, args[code[pc++]]);
			if (p->kind == TILE__KIND_UINT && bits > (uint64_t)INT64_MAX)
				return tile__fail(TILE_ERROR_GRID, "kernel %s: %s%s%s: argument out of range at byte %u",
						  (const char *)m->strtab + k->name, who, name ? " " : "", name ? name : "", at);
			stack[sp++] = (int64_t)bits;
			continue;
		}
		if (op == TILE__OP_FARG) {
			stack[sp++] = tile__from_double(tile__param_double(&m->params[k->first_param + code[pc]], args[code[pc]]));
			pc++;
			continue;
		}
		if (op == TILE__OP_CONST || op == TILE__OP_FCONST) {
			stack[sp++] = (int64_t)tile__u64(code + pc); /* a double's bits as they are */
			pc += 8;
			continue;
		}
		if (op == TILE__OP_FCMP) {
			sp--;
			stack[sp - 1] = tile__fcompare(code[pc++], stack[sp - 1], stack[sp]);
			continue;
		}
		if (op == TILE__OP_CONSTEXPR) {
			stack[sp++] = (int64_t)tile__u64(m->constexprs + (size_t)(v->first_constexpr + code[pc++]) * TILE__CONSTEXPR_SIZE + 8);
			continue;
		}
		if (op == TILE__OP_NOT) {
			stack[sp - 1] = !stack[sp - 1];
			continue;
		}
		if (op == TILE__OP_NEXTPOW2) {
			/* triton.next_power_of_2: 0 for n <= 0 */
			a = stack[sp - 1];
			if (a > (INT64_C(1) << 62))
				return tile__fail(TILE_ERROR_GRID, "kernel %s: %s%s%s: overflow at byte %u",
						  (const char *)m->strtab + k->name, who, name ? " " : "", name ? name : "", at);
			for (r = a > 0; r && r < a;)
				r *= 2;
			stack[sp - 1] = r;
			continue;
		}
		b = stack[--sp];
		a = stack[--sp];
		switch (op) {
		case TILE__OP_ADD: if (!tile__add(a, b, &r)) what = "overflow"; break;
		case TILE__OP_SUB: if (!tile__sub(a, b, &r)) what = "overflow"; break;
		case TILE__OP_MUL: if (!tile__mul(a, b, &r)) what = "overflow"; break;
		case TILE__OP_FLOORDIV:
			if (b == 0) what = "division by zero";
			else if (!tile__floordiv(a, b, &r)) what = "overflow";
			break;
		case TILE__OP_CDIV:
			/* (a + b - 1) // b; for b > 0 computed without the sum's overflow. */
			if (b == 0) what = "division by zero";
			else if (b > 0) r = a / b + (a % b != 0 && a > 0);
			else if (!tile__add(a, b, &r) || !tile__sub(r, 1, &r) || !tile__floordiv(r, b, &r)) what = "overflow";
			break;
		case TILE__OP_MOD:
			if (b == 0) what = "division by zero";
			else if (b == -1) r = 0;
			else r = a % b + (a % b != 0 && (a % b < 0) != (b < 0) ? b : 0);
			break;
		case TILE__OP_MIN: r = a < b ? a : b; break;
		case TILE__OP_MAX: r = a > b ? a : b; break;
		case TILE__OP_EQ: r = a == b; break;
		case TILE__OP_NE: r = a != b; break;
		case TILE__OP_LT: r = a < b; break;
		case TILE__OP_LE: r = a <= b; break;
		case TILE__OP_GT: r = a > b; break;
		case TILE__OP_GE: r = a >= b; break;
		case TILE__OP_AND: r = a ? b : a; break; /* Python's: an operand */
		default: r = a ? a : b; break;           /* or */
		}
		if (what)
			return tile__fail(TILE_ERROR_GRID, "kernel %s: %s%s%s: %s at byte %u", (const char *)m->strtab + k->name, who,
					  name ? " " : "", name ? name : "", what, at);
		stack[sp++] = r;
	}
	for (i = 0; i < n_out; i++)
		out[i] = i < values ? stack[i] : 1;
	return TILE_SUCCESS;
}

/* Evaluates variant v's grid program for the launch arguments into dims. */
static tile_status tile__grid_eval(const tile_module *m, const tile__variant *v, void *const *args, int64_t dims[3])
{
	return tile__program_eval(m, v, m->grid_code + v->grid_offset, v->grid_size, args, dims, 3, "grid program", NULL);
}

/* Checks a grid against the hardware limits. 1: launch; 0: empty grid. */
static int tile__grid_limits(const tile_module *m, const tile__kernel *k, const int64_t dims[3], tile_status *st)
{
	static const int64_t limit[3] = {INT64_C(2147483647), 65535, 65535};
	int i, empty = 0;
	*st = TILE_SUCCESS;
	for (i = 0; i < 3; i++) {
		if (dims[i] < 0 || dims[i] > limit[i]) {
			*st = tile__fail(TILE_ERROR_GRID, "kernel %s: grid dimension %c = %lld outside 0..%lld",
					 (const char *)m->strtab + k->name, "xyz"[i], (long long)dims[i], (long long)limit[i]);
			return 0;
		}
		empty |= dims[i] == 0;
	}
	return !empty;
}
