/* grid.h - grid programs: validation when the blob is opened, evaluation at
 * launch. Heuristic programs (dispatch.h) and the recipe programs of hidden
 * tensor maps (blob.h, tensordesc.h) are the same bytecode with another
 * number of results, checked and run by the same two functions, which take
 * that number from their caller: 1..3 for a grid, 1 for a heuristic,
 * 2 * rank - 1 for a recipe.
 *
 * A grid program is a few bytes of stack code over signed 64-bit integers
 * (docs/FORMAT.md). Validation proves every opcode, operand, parameter and
 * constexpr index, and the stack depth at every step, so the evaluator only
 * has to care about arithmetic: each operation is overflow-checked without
 * compiler builtins, and division follows Python (floor division, modulo with
 * the divisor's sign) since that is what the kernel's grid lambda meant. */

enum {
	TILE__OP_ARG = 0x01, TILE__OP_CONST = 0x02, TILE__OP_CONSTEXPR = 0x03,
	TILE__OP_ADD = 0x10, TILE__OP_SUB = 0x11, TILE__OP_MUL = 0x12, TILE__OP_FLOORDIV = 0x13,
	TILE__OP_CDIV = 0x14, TILE__OP_MOD = 0x15, TILE__OP_MIN = 0x16, TILE__OP_MAX = 0x17,
	TILE__OP_EQ = 0x18, TILE__OP_NE = 0x19, TILE__OP_LT = 0x1a, TILE__OP_LE = 0x1b, TILE__OP_GT = 0x1c,
	TILE__OP_GE = 0x1d, TILE__OP_AND = 0x1e, TILE__OP_OR = 0x1f, TILE__OP_NOT = 0x20, TILE__OP_NEXTPOW2 = 0x21
};
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
	if (code[0] != values)
		return tile__fail(TILE_ERROR_BAD_BLOB, "%s: a program of %u values, %u expected", who, code[0], values);
	while (pc < n) {
		uint32_t at = pc, op = code[pc++], idx;
		switch (op) {
		case TILE__OP_ARG:
		case TILE__OP_CONSTEXPR:
			if (pc >= n)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: operand past the end at byte %u", who, at);
			idx = code[pc++];
			if (op == TILE__OP_ARG) {
				uint8_t kind;
				if (idx >= k->n_visible)
					return tile__fail(TILE_ERROR_BAD_BLOB, "%s: parameter %u out of range at byte %u", who, idx, at);
				kind = m->params[k->first_param + idx].kind;
				if (kind != TILE__KIND_INT && kind != TILE__KIND_UINT)
					return tile__fail(TILE_ERROR_BAD_BLOB, "%s: parameter %u is not an integer at byte %u", who, idx, at);
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
			if (n - pc < 8)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: operand past the end at byte %u", who, at);
			pc += 8;
			depth++;
			break;
		case TILE__OP_NOT: case TILE__OP_NEXTPOW2:
			if (depth < 1)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: stack underflow at byte %u", who, at);
			break;
		case TILE__OP_ADD: case TILE__OP_SUB: case TILE__OP_MUL: case TILE__OP_FLOORDIV:
		case TILE__OP_CDIV: case TILE__OP_MOD: case TILE__OP_MIN: case TILE__OP_MAX:
		case TILE__OP_EQ: case TILE__OP_NE: case TILE__OP_LT: case TILE__OP_LE: case TILE__OP_GT:
		case TILE__OP_GE: case TILE__OP_AND: case TILE__OP_OR:
			if (depth < 2)
				return tile__fail(TILE_ERROR_BAD_BLOB, "%s: stack underflow at byte %u", who, at);
			depth--;
			break;
		default:
			return tile__fail(TILE_ERROR_BAD_BLOB, "%s: unknown opcode 0x%02x at byte %u", who, op, at);
		}
		if (depth > TILE__GRID_MAX_DEPTH)
			return tile__fail(TILE_ERROR_BAD_BLOB, "%s: stack deeper than %d at byte %u", who, TILE__GRID_MAX_DEPTH, at);
	}
	if (depth != values)
		return tile__fail(TILE_ERROR_BAD_BLOB, "%s: %u values left, %u expected", who, depth, values);
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
		if (op == TILE__OP_CONST) {
			stack[sp++] = (int64_t)tile__u64(code + pc);
			pc += 8;
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
