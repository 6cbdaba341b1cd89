/* test_gridexpr.c - grid expressions: compiled programs evaluated by a
 * small reference evaluator here (Python semantics), precedence, errors
 * with their carets, validation and the round trip through gridexpr_format.
 * Float comparisons (a heuristic's `args["eps"] > 0.0`) are compiled here
 * and checked and run by the loader (tile.h) on sample arguments: NaN,
 * -0.0, infinities, fp16 and bf16 bits, integers past 2^53 compared
 * exactly; what else is done to a float is refused with a caret. */
#define TILE_IMPLEMENTATION
#include "tile.h"

#include "check.h"
#include "fake_cuda/blob_builder.h"
#include "pack/pack.h"

#include <math.h>
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

/* ---- float comparisons, run by the loader ---------------------------- */

/* n: i32, big: i64, u: u64, s: fp32, d: fp64, h: fp16, b: bf16, odd: a
 * 2-byte float whose type says fp32 (no loader reads it) */
static const blob_param fparams[] = {
	{"n", BLOB_PARAM_INT, 4, IR_I32, 0, NULL, 0, {0}},     {"big", BLOB_PARAM_INT, 8, IR_I64, 0, NULL, 0, {0}},
	{"u", BLOB_PARAM_UINT, 8, IR_U64, 0, NULL, 0, {0}},    {"s", BLOB_PARAM_FLOAT, 4, IR_F32, 0, NULL, 0, {0}},
	{"d", BLOB_PARAM_FLOAT, 8, IR_F64, 0, NULL, 0, {0}},   {"h", BLOB_PARAM_FLOAT, 2, IR_F16, 0, NULL, 0, {0}},
	{"b", BLOB_PARAM_FLOAT, 2, IR_BF16, 0, NULL, 0, {0}},  {"odd", BLOB_PARAM_FLOAT, 2, IR_F32, 0, NULL, 0, {0}},
};
#define NFPARAMS (int)(sizeof fparams / sizeof fparams[0])

typedef struct fargs {
	int32_t n;
	int64_t big;
	uint64_t u;
	float s;
	double d;
	uint16_t h, b, odd;
} fargs;

static const char fake_cubin[] = "FAKE cubin sm_80: k";

static tilec_status fcompile(tilec_ctx *ctx, const char *e, uint8_t *code, size_t *len)
{
	tilec_clear_diagnostics(ctx);
	return gridexpr_compile(ctx, "-g", e, NFPARAMS, fparams, 1, constexprs, code, GRIDEXPR_MAX_CODE, len);
}

/* Compiles e, packs it as the grid program of a one-kernel blob, opens
 * that with the loader (which checks it) and evaluates it for a. */
static bool feval(tilec_ctx *ctx, const char *e, const fargs *a, int64_t *out)
{
	uint8_t code[GRIDEXPR_MAX_CODE];
	size_t len;
	static tb_blob d;
	uint8_t *blob;
	tile_module *m = NULL;
	fargs v = *a;
	void *args[NFPARAMS] = {&v.n, &v.big, &v.u, &v.s, &v.d, &v.h, &v.b, &v.odd};
	int64_t dims[3] = {0, 0, 0};
	if (fcompile(ctx, e, code, &len) != TILEC_OK) {
		CHECK_MSG(false, "'%s': %s", e, tilec_diagnostics(ctx));
		return false;
	}
	CHECK_MSG(gridexpr_validate(code, len, NFPARAMS, fparams, 1, constexprs) == NULL, "'%s' does not validate", e);
	memset(&d, 0, sizeof d);
	d.n_kernels = 1;
	d.kernels[0].name = "k";
	d.kernels[0].n_params = NFPARAMS;
	for (int i = 0; i < NFPARAMS; i++)
		d.kernels[0].params[i] = (tb_param){fparams[i].name, fparams[i].kind, fparams[i].size, fparams[i].dtype, 0};
	d.kernels[0].n_variants = 1;
	d.kernels[0].variants[0] = (tb_variant){.symbol = "k", .num_warps = 4, .grid = code, .grid_size = (uint32_t)len,
						.n_constexprs = 1, .cx = {{"BLOCK", 0, 128, NULL}}};
	d.n_groups = 1;
	d.n_images = 1;
	d.images[0] = (tb_image){0, 0, 80, 0, fake_cubin, sizeof fake_cubin, 0};
	size_t n = tb_build(&d, &blob);
	bool ok = tile_module_create(blob, n, &m) == TILE_SUCCESS;
	CHECK_MSG(ok, "'%s': the loader refuses it: %s", e, tile_last_error());
	if (ok)
		ok = tile__grid_eval(m, &m->variants[0], args, dims) == TILE_SUCCESS;
	CHECK_MSG(ok, "'%s': %s", e, tile_last_error());
	tile_module_destroy(m);
	free(blob);
	*out = dims[0];
	return ok;
}

static void check_f(tilec_ctx *ctx, const char *e, const fargs *a, int64_t want)
{
	int64_t got;
	if (feval(ctx, e, a, &got))
		CHECK_MSG(got == want, "'%s' (n %d, big %lld, s %g, d %g, h 0x%04x, b 0x%04x): %lld, not %lld", e, a->n,
			  (long long)a->big, (double)a->s, a->d, a->h, a->b, (long long)got, (long long)want);
}

static void check_ferror(tilec_ctx *ctx, const char *e, const char *msg, int col)
{
	uint8_t code[GRIDEXPR_MAX_CODE];
	size_t len;
	char where[32];
	CHECK_MSG(fcompile(ctx, e, code, &len) != TILEC_OK, "'%s' compiled", e);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), msg);
	snprintf(where, sizeof where, "-g:1:%d: error:", col);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), where);
}

static void check_fformat(tilec_ctx *ctx, const char *e, const char *expect)
{
	uint8_t code[GRIDEXPR_MAX_CODE], again[GRIDEXPR_MAX_CODE];
	size_t len, len2;
	const char *pn[NFPARAMS];
	for (int i = 0; i < NFPARAMS; i++)
		pn[i] = fparams[i].name;
	CHECK(fcompile(ctx, e, code, &len) == TILEC_OK);
	strbuf sb;
	sb_init(&sb);
	CHECK(gridexpr_format(&sb, code, len, NFPARAMS, pn, 0, NULL));
	CHECK_MSG(!strcmp(sb_str(&sb), expect), "'%s' formats as '%s', not '%s'", e, sb_str(&sb), expect);
	CHECK_MSG(fcompile(ctx, sb_str(&sb), again, &len2) == TILEC_OK && len2 == len && !memcmp(code, again, len),
		  "'%s' does not compile back to the same program", sb_str(&sb));
	sb_free(&sb);
}

static void test_floats(tilec_ctx *ctx)
{
	fargs a = {.n = 3, .big = 0, .s = 0.0f, .d = 0.0};
	/* a heuristic's HAS_SMOOTHING: smoothing > 0.0 */
	check_f(ctx, "s > 0.0", &a, 0);
	a.s = 0.1f;
	check_f(ctx, "s > 0.0", &a, 1);
	check_f(ctx, "s > 0.1", &a, 1);  /* the fp32 0.1 widened exactly: 0.100000001490116 */
	check_f(ctx, "s == 0.1", &a, 0);
	check_f(ctx, "s == 0.10000000149011612", &a, 1);
	a.s = -0.0f;
	check_f(ctx, "s > 0.0", &a, 0);
	check_f(ctx, "s == 0.0", &a, 1); /* -0.0 == 0.0 */
	check_f(ctx, "s == 0", &a, 1);   /* and == 0 */
	check_f(ctx, "s < 0.0", &a, 0);
	check_f(ctx, "s >= -0.0", &a, 1);
	a.s = NAN;
	check_f(ctx, "s > 0.0", &a, 0);  /* NaN: unordered */
	check_f(ctx, "s < 0.0", &a, 0);
	check_f(ctx, "s <= 1e300", &a, 0);
	check_f(ctx, "s >= 0", &a, 0);
	check_f(ctx, "s == s", &a, 0);
	check_f(ctx, "s != s", &a, 1);
	check_f(ctx, "s != 0", &a, 1);
	check_f(ctx, "n != s", &a, 1);
	check_f(ctx, "n == s", &a, 0);
	a.s = INFINITY;
	check_f(ctx, "s > 1e308", &a, 1);
	check_f(ctx, "s == 1e999", &a, 1); /* a literal too large is inf, as in Python */
	check_f(ctx, "s > 9223372036854775807", &a, 1);
	a.s = -0.25f;
	check_f(ctx, "s > -0.5", &a, 1);
	check_f(ctx, "s > -.25", &a, 0);
	check_f(ctx, "s >= -(0.25)", &a, 1);
	check_f(ctx, "-0.5 < s", &a, 1);
	/* literals: Python's spellings */
	check_f(ctx, ".5 == 0.5", &a, 1);
	check_f(ctx, "1. == 1", &a, 1);
	check_f(ctx, "1e-6 == 0.000001", &a, 1);
	check_f(ctx, "1_000.0 == 1e3", &a, 1);
	check_f(ctx, "2.5E+1 == 25", &a, 1);
	/* an int against a float: exactly, as Python compares */
	a.n = 1;
	check_f(ctx, "n < 1.5", &a, 1);
	check_f(ctx, "n > 0.5", &a, 1);
	check_f(ctx, "n == 1.0", &a, 1);
	check_f(ctx, "1.0 == n", &a, 1);
	check_f(ctx, "n <= 0.999", &a, 0);
	check_f(ctx, "0.5 < n", &a, 1);
	a.n = -1;
	check_f(ctx, "n < -0.5", &a, 1);
	check_f(ctx, "n > -1.5", &a, 1);
	check_f(ctx, "n >= -1.0", &a, 1);
	a.big = (INT64_C(1) << 53) + 1; /* no double holds it */
	check_f(ctx, "big == 9007199254740992.0", &a, 0);
	check_f(ctx, "big > 9007199254740992.0", &a, 1);
	check_f(ctx, "big < 9007199254740994.0", &a, 1);
	a.d = 9007199254740992.0;
	check_f(ctx, "big != d", &a, 1);
	check_f(ctx, "d < big", &a, 1);
	a.big = INT64_MAX;
	check_f(ctx, "big < 9223372036854775807.0", &a, 1); /* the literal is 2^63 */
	check_f(ctx, "big == 9.223372036854775807e18", &a, 0);
	a.big = INT64_MIN;
	check_f(ctx, "big == -9223372036854775808.0", &a, 1);
	check_f(ctx, "big > -1e19", &a, 1);
	a.u = UINT64_MAX / 2;
	check_f(ctx, "u > 0.5", &a, 1);
	/* fp64, fp16, bf16 */
	a.d = 5e-7;
	check_f(ctx, "d < 1e-6", &a, 1);
	check_f(ctx, "d > 4.9999999999999998e-7", &a, 0);
	a.h = 0x3c00; /* 1.0 */
	check_f(ctx, "h == 1.0", &a, 1);
	a.h = 0x0001; /* the least subnormal, 2^-24 */
	check_f(ctx, "h == 5.9604644775390625e-08", &a, 1);
	a.h = 0x83ff; /* the greatest negative subnormal */
	check_f(ctx, "h == -6.0975551605224609e-05", &a, 1);
	a.h = 0x7bff; /* 65504 */
	check_f(ctx, "h == 65504", &a, 1);
	a.h = 0xfc00; /* -inf */
	check_f(ctx, "h < -1e308", &a, 1);
	a.h = 0x7e00; /* NaN */
	check_f(ctx, "h != h", &a, 1);
	check_f(ctx, "h >= 0", &a, 0);
	a.h = 0x8000; /* -0.0 */
	check_f(ctx, "h == 0", &a, 1);
	a.b = 0x3fc0; /* 1.5 */
	check_f(ctx, "b == 1.5", &a, 1);
	a.b = 0xc2f7; /* -123.5 */
	check_f(ctx, "b == -123.5", &a, 1);
	a.b = 0x7fc0; /* NaN */
	check_f(ctx, "b == b", &a, 0);
	/* comparisons are integers: and/or/not and arithmetic take them */
	a.s = 0.5f;
	a.n = 4;
	check_f(ctx, "s > 0.0 and n % 2 == 0", &a, 1);
	check_f(ctx, "not s > 0.0", &a, 0);
	check_f(ctx, "(s > 0.0) + (d > 0.0) + (h == 0)", &a, 3);
	check_f(ctx, "s < 0.0 or n", &a, 4);

	/* refused: whatever is not a comparison of a float */
	check_ferror(ctx, "s * 2 > 0", "float operand of '*': a grid expression only compares floats (==, !=, <, <=, >, >=)", 1);
	check_ferror(ctx, "2 * s > 0", "float operand of '*'", 5);
	check_ferror(ctx, "s + 0.5 > 1", "float operand of '+'", 1);
	check_ferror(ctx, "n + 0.5 > 1", "float operand of '+'", 5);
	check_ferror(ctx, "s - 1.0 > 0", "float operand of '-'", 1);
	check_ferror(ctx, "n // 2.0", "float operand of '//'", 6);
	check_ferror(ctx, "s % 1.0 == 0", "float operand of '%'", 1);
	check_ferror(ctx, "-s > 0", "float operand of '-'", 2);
	check_ferror(ctx, "s", "float value", 1);
	check_ferror(ctx, "n > 0, 0.5", "float value", 8);
	check_ferror(ctx, "not s", "float operand of 'not'", 5);
	check_ferror(ctx, "s and n > 0", "float operand of 'and'", 1);
	check_ferror(ctx, "n > 0 or 0.5", "float operand of 'or'", 10);
	check_ferror(ctx, "cdiv(n, 0.5)", "float argument of cdiv()", 9);
	check_ferror(ctx, "max(s, 1) > 0", "float argument of max()", 5);
	check_ferror(ctx, "next_power_of_2(s) > 1", "float argument of next_power_of_2()", 17);
	check_ferror(ctx, "(s) + 1 > 0", "float operand of '+'", 1);
	check_ferror(ctx, "odd > 0.0",
		     "parameter 'odd' is a float of 2 bytes and type 12, which a grid expression cannot read (fp16, bf16, fp32, fp64)",
		     1);
	check_ferror(ctx, "s > 1e", "invalid integer literal", 5);

	/* disassembly, and back */
	check_fformat(ctx, "s > 0.0", "s > 0.0");
	check_fformat(ctx, "s >= -0.0", "s >= -0.0");
	check_fformat(ctx, "1e-6 < d", "1e-06 < d");
	check_fformat(ctx, ".5 == 0.5", "0.5 == 0.5");
	check_fformat(ctx, "d < 1e999 and h != -1e400", "d < 1e999 and h != -1e999");
	check_fformat(ctx, "n < 0.1 or not b != 2.5", "n < 0.1 or not b != 2.5");
	check_fformat(ctx, "(s > 1e20) == (big <= 3)", "(s > 1e+20) == (big <= 3)");
	check_fformat(ctx, "0.1 > 0.30000000000000004", "0.1 > 0.30000000000000004");
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
	check_error(ctx, "cdiv(n, q)",
		    "unknown name 'q' in grid expression (integer names: n, m, BLOCK, EVEN; float parameters, to compare: scale)",
		    9);
	check_error(ctx, "x_ptr * 2", "parameter 'x_ptr' is a pointer", 1);
	check_error(ctx, "scale", "float value: a grid expression only compares floats (==, !=, <, <=, >, >=)", 1);
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
	check_error(ctx, "1.5", "float value", 1);
	check_error(ctx, "12x", "invalid integer literal", 1);
	check_error(ctx, "1.5.2 > 0", "invalid float literal", 1);
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

	test_floats(ctx);

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
		uint8_t code[24];
		size_t len;
		const char *why;
		bool structural; /* gridexpr_format, which knows no types, refuses it too */
	} bad[] = {
		{{0}, 1, "ndims", true},
		{{4, 2, 1, 0, 0, 0, 0, 0, 0, 0}, 10, "ndims", true},
		{{1, 0x23}, 2, "unknown opcode", true},
		{{1, 0x06}, 2, "unknown opcode", true},
		{{1, 0x22}, 2, "truncated operand", true},
		{{1, 0x04}, 2, "truncated operand", true},
		{{1, 5, 0, 0, 0, 0, 0, 0, 0xe0}, 9, "truncated constant", true},
		{{1, 0x22, 0x08}, 3, "underflow", true},
		{{1, 1, 1, 1, 1, 0x22, 0x0e}, 7, "float comparison operand", true}, /* comparison 6 */
		{{1, 1, 1, 1, 1, 0x22, 0x02}, 7, "float comparison operand", true}, /* no float operand */
		{{1, 1, 1, 1, 1, 0x22, 0x28}, 7, "float comparison operand", true}, /* bit 5 */
		{{1, 4, 3}, 3, "a value is a float", false},
		{{1, 4, 1}, 3, "visible fp16, bf16, fp32 or fp64 parameter", false}, /* n: an integer */
		{{1, 4, 0}, 3, "visible fp16, bf16, fp32 or fp64 parameter", false}, /* x_ptr */
		{{1, 4, 9}, 3, "visible fp16, bf16, fp32 or fp64 parameter", false},
		{{1, 1, 3}, 3, "visible integer parameter", false},                  /* scale: a float */
		{{1, 4, 3, 1, 1, 0x22, 0x12}, 7, "operand's type", false},           /* says b is the float */
		{{1, 4, 3, 4, 3, 0x22, 0x0a}, 7, "operand's type", false},           /* b is a float too */
		{{1, 4, 3, 1, 1, 0x10}, 6, "operand's type", false},                 /* scale + n */
		{{1, 4, 3, 0x20}, 4, "operand's type", false},                       /* not scale */
		{{1, 4, 3, 0x21}, 4, "operand's type", false},                       /* next_power_of_2(scale) */
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
					   ")", ",", "cdiv(", "min(", "max(", "meta['BLOCK']", " ", "0x1f", "/", "q",
					   "scale", "0.5", "1e-3", " > ", " == ", "not ", " and "};
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
