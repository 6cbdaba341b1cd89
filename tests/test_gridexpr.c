/* test_gridexpr.c - grid expressions: compiled programs evaluated by a
 * small reference evaluator here (Python semantics), precedence, errors
 * with their carets, validation and the round trip through gridexpr_format. */
#include "check.h"
#include "pack/pack.h"

#include <stdlib.h>

static const blob_param params[] = {
	{"x_ptr", BLOB_PARAM_PTR, 8, IR_F32, 0, NULL, 0, {0}},
	{"n", BLOB_PARAM_INT, 4, IR_I32, 0, NULL, 0, {0}},
	{"m", BLOB_PARAM_UINT, 8, IR_U64, 0, NULL, 0, {0}},
	{"scale", BLOB_PARAM_FLOAT, 4, IR_F32, 0, NULL, 0, {0}},
	{"scratch", BLOB_PARAM_PTR, 8, IR_I8, BLOB_PARAM_HIDDEN, NULL, 0, {0}},
};
static const ir_constexpr constexprs[] = {
	{"BLOCK", IR_CONSTEXPR_INT, 128, 0, NULL},
	{"EVEN", IR_CONSTEXPR_BOOL, 1, 0, NULL},
	{"EPS", IR_CONSTEXPR_FLOAT, 0, 1e-5, NULL},
};
static const int64_t pvals[] = {0, 1000, 7, 0, 0};

static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Evaluates a program; returns ndims, -1 when it is malformed. */
static int eval(const uint8_t *c, size_t n, int64_t out[3])
{
	int64_t st[16];
	int sp = 0;
	for (size_t pc = 1; pc < n;) {
		uint8_t op = c[pc++];
		if (op == 1 || op == 3) {
			st[sp++] = op == 1 ? pvals[c[pc]] : constexprs[c[pc]].ival;
			pc++;
		} else if (op == 2) {
			uint64_t u = 0;
			for (int i = 0; i < 8; i++)
				u |= (uint64_t)c[pc + i] << (8 * i);
			pc += 8;
			st[sp++] = (int64_t)u;
		} else if (op == 0x20 || op == 0x21) {
			int64_t a = st[sp - 1], r = 1;
			if (op == 0x20)
				r = !a;
			else if (a <= 0)
				r = 0;
			else
				while (r < a)
					r *= 2;
			st[sp - 1] = r;
		} else {
			int64_t b = st[--sp], a = st[--sp], r;
			switch (op) {
			case 0x10: r = a + b; break;
			case 0x11: r = a - b; break;
			case 0x12: r = a * b; break;
			case 0x13: r = floordiv(a, b); break;
			case 0x14: r = floordiv(a + b - 1, b); break;
			case 0x15: r = a - floordiv(a, b) * b; break;
			case 0x16: r = a < b ? a : b; break;
			case 0x17: r = a > b ? a : b; break;
			case 0x18: r = a == b; break;
			case 0x19: r = a != b; break;
			case 0x1a: r = a < b; break;
			case 0x1b: r = a <= b; break;
			case 0x1c: r = a > b; break;
			case 0x1d: r = a >= b; break;
			case 0x1e: r = a ? b : a; break;
			case 0x1f: r = a ? a : b; break;
			default: return -1;
			}
			st[sp++] = r;
		}
	}
	for (int i = 0; i < sp && i < 3; i++)
		out[i] = st[i];
	return sp == c[0] ? sp : -1;
}

static tilec_status compile(tilec_ctx *ctx, const char *e, uint8_t *code, size_t *len)
{
	tilec_clear_diagnostics(ctx);
	return gridexpr_compile(ctx, "-g", e, 5, params, 3, constexprs, code, GRIDEXPR_MAX_CODE, len);
}

static void check_value(tilec_ctx *ctx, const char *e, int ndims, int64_t x, int64_t y, int64_t z)
{
	uint8_t code[GRIDEXPR_MAX_CODE];
	size_t len;
	int64_t v[3] = {0, 0, 0};
	tilec_status st = compile(ctx, e, code, &len);
	CHECK_MSG(st == TILEC_OK, "'%s': %s", e, tilec_diagnostics(ctx));
	if (st != TILEC_OK)
		return;
	CHECK_MSG(gridexpr_validate(code, len, 5, params, 3, constexprs) == NULL, "'%s' does not validate", e);
	int nd = eval(code, len, v);
	CHECK_MSG(nd == ndims && v[0] == x && (nd < 2 || v[1] == y) && (nd < 3 || v[2] == z),
		  "'%s': ndims %d, values %lld %lld %lld", e, nd, (long long)v[0], (long long)v[1], (long long)v[2]);
}

static void check_error(tilec_ctx *ctx, const char *e, const char *msg, int col)
{
	uint8_t code[GRIDEXPR_MAX_CODE];
	size_t len = 99;
	CHECK_MSG(compile(ctx, e, code, &len) != TILEC_OK, "'%s' compiled", e);
	CHECK_EQ_INT(len, 0);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), msg);
	char where[32];
	snprintf(where, sizeof where, "-g:1:%d: error:", col);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), where);
	CHECK_EQ_INT(tilec_error_count(ctx), 1);
}

static void check_format(tilec_ctx *ctx, const char *e, const char *expect)
{
	uint8_t code[GRIDEXPR_MAX_CODE];
	size_t len;
	CHECK(compile(ctx, e, code, &len) == TILEC_OK);
	const char *pn[] = {"x_ptr", "n", "m", "scale", "scratch"}, *cn[] = {"BLOCK", "EVEN", "EPS"};
	strbuf sb;
	sb_init(&sb);
	CHECK(gridexpr_format(&sb, code, len, 5, pn, 3, cn));
	CHECK_MSG(!strcmp(sb_str(&sb), expect), "'%s' formats as '%s', not '%s'", e, sb_str(&sb), expect);
	sb_free(&sb);
}

int main(void)
{
	tilec_ctx *ctx = tilec_ctx_new();

	/* values and precedence; n = 1000, m = 7, BLOCK = 128, EVEN = 1 */
	check_value(ctx, "1 + 2 * 3", 1, 7, 0, 0);
	check_value(ctx, "(1 + 2) * 3", 1, 9, 0, 0);
	check_value(ctx, "10 - 4 - 3", 1, 3, 0, 0);
	check_value(ctx, "100 // 10 // 3", 1, 3, 0, 0);
	check_value(ctx, "-7 // 2", 1, -4, 0, 0);
	check_value(ctx, "-7 % 3", 1, 2, 0, 0);
	check_value(ctx, "7 % -3", 1, -2, 0, 0);
	check_value(ctx, "- -5 + +2", 1, 7, 0, 0);
	check_value(ctx, "2 * -3", 1, -6, 0, 0);
	check_value(ctx, "cdiv(n, BLOCK)", 1, 8, 0, 0);
	check_value(ctx, "triton.cdiv(n, 128), m, 1", 3, 8, 7, 1);
	check_value(ctx, "tl.cdiv(n,meta['BLOCK'])", 1, 8, 0, 0);
	check_value(ctx, "(cdiv(n, META[\"BLOCK\"]),)", 1, 8, 0, 0);
	check_value(ctx, "(n // 2, m)", 2, 500, 7, 0);
	check_value(ctx, "(n) * 2", 1, 2000, 0, 0);
	check_value(ctx, "min(n, 64, m) + max(1, EVEN)", 1, 8, 0, 0);
	check_value(ctx, "0x10 * 1_000", 1, 16000, 0, 0);
	check_value(ctx, "n, m,", 2, 1000, 7, 0);
	/* heuristics: comparisons, and/or/not (Python's precedence and values), next_power_of_2 */
	check_value(ctx, "n % BLOCK == 0", 1, 0, 0, 0);
	check_value(ctx, "n % 8 == 0", 1, 1, 0, 0);
	check_value(ctx, "n != 1000, m < 8, m <= 6", 3, 0, 1, 0);
	check_value(ctx, "n > m, n >= 1001", 2, 1, 0, 0);
	check_value(ctx, "not n < 4 and m >= 2", 1, 1, 0, 0);
	check_value(ctx, "n < 4 or m", 1, 7, 0, 0);     /* `or` gives its operand */
	check_value(ctx, "m and n", 1, 1000, 0, 0);     /* `and` too */
	check_value(ctx, "0 and n or m", 1, 7, 0, 0);
	check_value(ctx, "not not EVEN", 1, 1, 0, 0);
	check_value(ctx, "1 + 2 == 3", 1, 1, 0, 0);     /* + binds tighter than == */
	check_value(ctx, "next_power_of_2(n), triton.next_power_of_2(m), next_power_of_2(0)", 3, 1024, 8, 0);
	check_value(ctx, "next_power_of_2(BLOCK) * 2", 1, 256, 0, 0);
	check_value(ctx, "(n % 8 == 0) + (m == 7)", 1, 2, 0, 0);
	check_error(ctx, "nothing", "unknown name 'nothing'", 1); /* `not` is a whole word */
	check_error(ctx, "n < m < 4", "chained comparisons are not supported", 7);
	check_error(ctx, "next_power_of_2(n, m)", "next_power_of_2() takes 1 arguments, got 2", 1);
	check_error(ctx, "n ==", "expected an operand", 5);

	/* errors: message and column */
	check_error(ctx, "cdiv(n, q)", "unknown name 'q' in grid expression (integer names: n, m, BLOCK, EVEN)", 9);
	check_error(ctx, "x_ptr * 2", "parameter 'x_ptr' is a pointer", 1);
	check_error(ctx, "scale", "parameter 'scale' is a float", 1);
	check_error(ctx, "scratch", "unknown name 'scratch'", 1);
	check_error(ctx, "EPS + 1", "constexpr 'EPS' is not an integer", 1);
	check_error(ctx, "n / 2", "'/' is true division", 3);
	check_error(ctx, "1, 2, 3, 4", "at most 3 dimensions", 10);
	check_error(ctx, "cdiv(n)", "cdiv() takes 2 arguments, got 1", 1);
	check_error(ctx, "min(n)", "min() takes 2 or more arguments", 1);
	check_error(ctx, "floor(n, 2)", "unknown function 'floor'", 1);
	check_error(ctx, "n 2", "unexpected '2'", 3);
	check_error(ctx, "(n + 1", "expected ')' at the end", 7);
	check_error(ctx, "", "expected an operand", 1);
	check_error(ctx, "n +", "expected an operand", 4);
	check_error(ctx, "1.5", "invalid integer literal", 1);
	check_error(ctx, "99999999999999999999", "out of range", 1);
	check_error(ctx, "os.getenv", "unknown name 'os.getenv'", 1);
	check_error(ctx, "meta[BLOCK]", "expected a quoted name", 6);
	check_error(ctx, "n $ 2", "unexpected '$'", 3);
	/* 17 values on the stack at once */
	check_error(ctx, "1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+(1+1))))))))))))))))",
		    "stack depth above 16", 49);
	{
		uint8_t small[4];
		size_t len;
		tilec_clear_diagnostics(ctx);
		CHECK(gridexpr_compile(ctx, "-g", "n + 1", 5, params, 0, NULL, small, sizeof small, &len) != TILEC_OK);
		CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "grid expression too long");
	}
	/* a tensor-map recipe's program: exactly the values asked for, up to 9 */
	{
		uint8_t code[GRIDEXPR_MAX_CODE];
		size_t len;
		tilec_clear_diagnostics(ctx);
		CHECK(gridexpr_compile_values(ctx, "tensor map", "n, m, n * m, m, 1", 5, 5, params, 3, constexprs, code, sizeof code,
					      &len) == TILEC_OK);
		CHECK(code[0] == 5);
		CHECK(gridexpr_validate_values(code, len, 5, 5, params, 3, constexprs) == NULL);
		CHECK(gridexpr_validate_values(code, len, 3, 5, params, 3, constexprs) != NULL);
		CHECK(gridexpr_validate(code, len, 5, params, 3, constexprs) != NULL); /* no grid of 5 dimensions */
		strbuf sb;
		sb_init(&sb);
		CHECK(gridexpr_format(&sb, code, len, 0, NULL, 0, NULL));
		CHECK_MSG(!strcmp(sb_str(&sb), "p1, p2, p1 * p2, p2, 1"), "recipe formats as '%s'", sb_str(&sb));
		sb_free(&sb);
		CHECK(gridexpr_compile_values(ctx, "tensor map", "n, m", 3, 5, params, 3, constexprs, code, sizeof code, &len) !=
		      TILEC_OK);
		CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "gives 2 values, not 3");
		CHECK(gridexpr_compile_values(ctx, "tensor map", "n, m, 1, 1, 1, 1", 5, 5, params, 3, constexprs, code,
					      sizeof code, &len) != TILEC_OK);
		CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "more than 5 values");
	}
	/* the quoted line and caret */
	compile(ctx, "cdiv(n, q)", (uint8_t[GRIDEXPR_MAX_CODE]){0}, &(size_t){0});
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "cdiv(n, q)\n        ^\n");

	/* disassembly */
	check_format(ctx, "cdiv(n, BLOCK), 1", "cdiv(n, BLOCK), 1");
	check_format(ctx, "(n + m) * 2 - n % 3", "(n + m) * 2 - n % 3");
	check_format(ctx, "n - (m - 1)", "n - (m - 1)");
	check_format(ctx, "max(n, -4) // EVEN", "max(n, -4) // EVEN");
	check_format(ctx, "n % BLOCK == 0", "n % BLOCK == 0");
	check_format(ctx, "not (n < 4) and (m >= 2 or EVEN)", "not n < 4 and (m >= 2 or EVEN)");
	check_format(ctx, "(n == 1) == (m == 2)", "(n == 1) == (m == 2)");
	check_format(ctx, "next_power_of_2(n + 1) > 4 or not EVEN", "next_power_of_2(n + 1) > 4 or not EVEN");
	check_format(ctx, "(not n) + 1", "(not n) + 1");

	/* validation of hand-made programs */
	static const struct {
		uint8_t code[12];
		size_t len;
		const char *why;
		bool structural; /* gridexpr_format, which knows no types, refuses it too */
	} bad[] = {
		{{0}, 1, "ndims", true},
		{{4, 2, 1, 0, 0, 0, 0, 0, 0, 0}, 10, "ndims", true},
		{{1, 0x22}, 2, "unknown opcode", true},
		{{1, 0x20}, 2, "underflow", true},
		{{1, 0x18}, 2, "underflow", true},
		{{1, 2, 1, 0}, 4, "truncated constant", true},
		{{1, 1}, 2, "truncated operand", true},
		{{1, 1, 0}, 3, "visible integer parameter", false}, /* x_ptr */
		{{1, 1, 4}, 3, "visible integer parameter", false}, /* hidden */
		{{1, 1, 9}, 3, "visible integer parameter", false},
		{{1, 3, 2}, 3, "int or bool constexpr", false},
		{{1, 1, 1, 0x10}, 4, "underflow", true},
		{{2, 1, 1}, 3, "ndims values", true},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *why = gridexpr_validate(bad[i].code, bad[i].len, 5, params, 3, constexprs);
		CHECK_MSG(why && strstr(why, bad[i].why), "bad program %zu: %s", i, why ? why : "accepted");
		if (!bad[i].structural)
			continue;
		strbuf sb;
		sb_init(&sb);
		CHECK(!gridexpr_format(&sb, bad[i].code, bad[i].len, 0, NULL, 0, NULL));
		CHECK_STR_CONTAINS(sb_str(&sb), "<invalid grid program");
		sb_free(&sb);
	}

	/* random token soup: never a crash; whatever compiles validates, and
	 * formats to text that compiles back to the same bytes */
	static const char *const toks[] = {"n", "m", "BLOCK", "EVEN", "x_ptr", "7", "-", "+", "*", "//", "%", "(",
					   ")", ",", "cdiv(", "min(", "max(", "meta['BLOCK']", " ", "0x1f", "/", "q"};
	const char *pn[] = {"x_ptr", "n", "m", "scale", "scratch"}, *cn[] = {"BLOCK", "EVEN", "EPS"};
	uint32_t r = 1;
	int compiled = 0, roundtrip_bad = 0, invalid = 0;
	for (int i = 0; i < 20000; i++) {
		char e[200] = "";
		int ntok = 1 + i % 12;
		for (int t = 0; t < ntok; t++) {
			r = r * 1103515245u + 12345u;
			strcat(e, toks[(r >> 16) % (sizeof toks / sizeof toks[0])]);
		}
		uint8_t code[GRIDEXPR_MAX_CODE], again[GRIDEXPR_MAX_CODE];
		size_t len, len2;
		if (compile(ctx, e, code, &len) != TILEC_OK)
			continue;
		compiled++;
		invalid += gridexpr_validate(code, len, 5, params, 3, constexprs) != NULL;
		strbuf sb;
		sb_init(&sb);
		bool ok = gridexpr_format(&sb, code, len, 5, pn, 3, cn);
		if (!ok || compile(ctx, sb_str(&sb), again, &len2) != TILEC_OK || len2 != len || memcmp(code, again, len)) {
			if (!roundtrip_bad++)
				fprintf(stderr, "round trip of '%s' via '%s' differs\n", e, sb_str(&sb));
		}
		sb_free(&sb);
	}
	CHECK(compiled > 100);
	CHECK_EQ_INT(invalid, 0);
	CHECK_EQ_INT(roundtrip_bad, 0);

	tilec_ctx_free(ctx);
	return check_report("test_gridexpr");
}
