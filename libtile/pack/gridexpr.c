/* gridexpr.c - grid expressions to grid programs and back.
 *
 * A grid expression is what a Triton launch grid computes, written as text:
 * "cdiv(n_elements, BLOCK_SIZE), 1". A recursive-descent parser over the
 * string emits the stack bytecode of docs/FORMAT.md directly (postfix order
 * falls out of the recursion), tracking the stack depth so that a program
 * the loader would refuse is refused here with a caret under the culprit.
 * Names resolve to visible integer parameters first, then to int or bool
 * constexprs. Python's spelling of a grid lambda's tuple, "(a, b)", and of
 * a meta lookup, "meta['BLOCK']", are accepted too. Comparisons, `and`,
 * `or`, `not` and next_power_of_2 serve heuristics evaluated at launch
 * (Python's precedence; `and`/`or` give an operand, as Python does).
 * Float parameters and literals may only be compared (a heuristic's
 * `args["eps"] > 0.0`): the parser tracks which values are floats and
 * refuses anything else done to one, so the loader never needs float
 * arithmetic. gridexpr_format turns a program back into an expression for
 * `tilec inspect`.
 */
#include "pack/pack.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	OP_PARAM = 0x01, OP_CONST = 0x02, OP_CONSTEXPR = 0x03, OP_FPARAM = 0x04, OP_FCONST = 0x05,
	OP_ADD = 0x10, OP_SUB, OP_MUL, OP_FLOORDIV, OP_CDIV, OP_MOD, OP_MIN, OP_MAX,
	OP_EQ = 0x18, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_AND, OP_OR,
	OP_NOT = 0x20, OP_NEXTPOW2 = 0x21, OP_FCMP = 0x22
};
/* OP_FCMP's operand: the comparison (0..5 as OP_EQ..OP_GE) and which of
 * its operands are floats (at least one). */
enum { FCMP_A_FLOAT = 0x08, FCMP_B_FLOAT = 0x10 };
#define MAX_DEPTH 16

/* A value the parser has emitted: whether it is a float, and where its
 * text starts (for the caret of a refusal). */
typedef struct gval {
	bool fl;
	const char *at;
} gval;

typedef struct gparser {
	tilec_ctx *ctx;
	src_file file;
	const char *p;   /* next character */
	int nparams;
	const blob_param *params;
	int nconstexprs;
	const ir_constexpr *constexprs;
	uint8_t *out;
	size_t cap, len;
	int depth;
	bool failed;
} gparser;

static void gerror(gparser *g, const char *at, const char *fmt, ...) TILE_PRINTF(3, 4);

static void gerror(gparser *g, const char *at, const char *fmt, ...)
{
	if (g->failed)
		return;
	g->failed = true;
	src_loc loc = {&g->file, 1, (int)(at - g->file.text) + 1};
	va_list ap;
	va_start(ap, fmt);
	diag_verror(g->ctx, loc, "error", fmt, ap);
	va_end(ap);
	g->ctx->errors++;
}

static void skip_space(gparser *g)
{
	while (*g->p == ' ' || *g->p == '\t')
		g->p++;
}

/* Consumes `tok` (after spaces) when it is next. */
static bool accept(gparser *g, const char *tok)
{
	skip_space(g);
	size_t n = strlen(tok);
	if (strncmp(g->p, tok, n) != 0)
		return false;
	g->p += n;
	return true;
}

static void expect(gparser *g, const char *tok)
{
	if (!accept(g, tok))
		gerror(g, g->p, *g->p ? "expected '%s'" : "expected '%s' at the end of the expression", tok);
}

static void emit_byte(gparser *g, const char *at, uint8_t b)
{
	if (g->failed)
		return;
	if (g->len >= g->cap) {
		gerror(g, at, "grid expression too long (more than %zu bytes of grid program)", g->cap);
		return;
	}
	g->out[g->len++] = b;
}

/* Pushes add one value, binary operations (a float comparison too) take
 * one away, unary ones (not, next_power_of_2) none. */
static int stack_effect(uint8_t op)
{
	return op < OP_ADD ? 1 : op == OP_NOT || op == OP_NEXTPOW2 ? 0 : -1;
}

/* Consumes the keyword `word` when it is next and not the start of a longer name. */
static bool accept_word(gparser *g, const char *word)
{
	skip_space(g);
	size_t n = strlen(word);
	if (strncmp(g->p, word, n) != 0 || isalnum((unsigned char)g->p[n]) || g->p[n] == '_')
		return false;
	g->p += n;
	return true;
}

/* Emits an opcode and tracks the stack depth. */
static void emit_op(gparser *g, const char *at, uint8_t op)
{
	emit_byte(g, at, op);
	g->depth += stack_effect(op);
	if (g->depth > MAX_DEPTH)
		gerror(g, at, "grid expression too deeply nested (stack depth above %d)", MAX_DEPTH);
}

static void emit_u64(gparser *g, const char *at, uint8_t op, uint64_t u)
{
	emit_op(g, at, op);
	for (int i = 0; i < 8; i++)
		emit_byte(g, at, (uint8_t)(u >> (8 * i)));
}

static void emit_const(gparser *g, const char *at, int64_t v)
{
	emit_u64(g, at, OP_CONST, (uint64_t)v);
}

static void emit_fconst(gparser *g, const char *at, double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	emit_u64(g, at, OP_FCONST, u);
}

/* The arithmetic operations' operands, for float_refused. */
static const char *const operand_of[] = {"operand of '+'", "operand of '-'", "operand of '*'", "operand of '//'", NULL,
					  "operand of '%'"};

/* Refuses a float where only integers go: a float is only compared. */
static void float_refused(gparser *g, gval v, const char *what)
{
	if (v.fl)
		gerror(g, v.at, "float %s: a grid expression only compares floats (==, !=, <, <=, >, >=)", what);
}

static bool name_eq(const char *s, size_t n, const char *name)
{
	return name && strlen(name) == n && memcmp(s, name, n) == 0;
}

/* Whether the loader reads a float parameter of this dtype and size. */
static bool float_readable(const blob_param *p)
{
	return (p->size == 2 && (p->dtype == IR_F16 || p->dtype == IR_BF16)) || (p->size == 4 && p->dtype == IR_F32) ||
	       (p->size == 8 && p->dtype == IR_F64);
}

static gval parse_or(gparser *g);

/* Pushes the value of a name: a visible integer or float parameter, or an
 * int/bool constexpr. */
static gval emit_name(gparser *g, const char *at, const char *s, size_t n)
{
	gval v = {false, at};
	for (int i = 0; i < g->nparams; i++) {
		const blob_param *p = &g->params[i];
		if (!name_eq(s, n, p->name) || (p->flags & BLOB_PARAM_HIDDEN))
			continue;
		v.fl = p->kind == BLOB_PARAM_FLOAT;
		if (p->kind != BLOB_PARAM_INT && p->kind != BLOB_PARAM_UINT && !v.fl) {
			gerror(g, at, "parameter '%.*s' is a pointer; a grid expression takes integer parameters (and compares "
			       "float ones)", (int)n, s);
			return v;
		}
		if (v.fl && !float_readable(p)) {
			gerror(g, at, "parameter '%.*s' is a float of %d bytes and type %d, which a grid expression cannot read "
			       "(fp16, bf16, fp32, fp64)", (int)n, s, p->size, p->dtype);
			return v;
		}
		if (i > 255) {
			gerror(g, at, "parameter '%.*s' is past the 256th", (int)n, s);
			return v;
		}
		emit_op(g, at, v.fl ? OP_FPARAM : OP_PARAM);
		emit_byte(g, at, (uint8_t)i);
		return v;
	}
	for (int i = 0; i < g->nconstexprs; i++) {
		const ir_constexpr *c = &g->constexprs[i];
		if (!name_eq(s, n, c->name))
			continue;
		if (c->kind != IR_CONSTEXPR_INT && c->kind != IR_CONSTEXPR_BOOL) {
			gerror(g, at, "constexpr '%.*s' is not an integer", (int)n, s);
			return v;
		}
		if (i > 255) {
			gerror(g, at, "constexpr '%.*s' is past the 256th", (int)n, s);
			return v;
		}
		emit_op(g, at, OP_CONSTEXPR);
		emit_byte(g, at, (uint8_t)i);
		return v;
	}
	strbuf known, floats;
	sb_init(&known);
	sb_init(&floats);
	for (int i = 0; i < g->nparams; i++) {
		const blob_param *p = &g->params[i];
		if (p->flags & BLOB_PARAM_HIDDEN)
			continue;
		if (p->kind == BLOB_PARAM_INT || p->kind == BLOB_PARAM_UINT)
			sb_printf(&known, "%s%s", known.len ? ", " : "", p->name);
		else if (p->kind == BLOB_PARAM_FLOAT && float_readable(p))
			sb_printf(&floats, "%s%s", floats.len ? ", " : "", p->name);
	}
	for (int i = 0; i < g->nconstexprs; i++)
		if (g->constexprs[i].kind == IR_CONSTEXPR_INT || g->constexprs[i].kind == IR_CONSTEXPR_BOOL)
			sb_printf(&known, "%s%s", known.len ? ", " : "", g->constexprs[i].name);
	gerror(g, at, "unknown name '%.*s' in grid expression (integer names: %s%s%s)", (int)n, s,
	       known.len ? sb_str(&known) : "none", floats.len ? "; float parameters, to compare: " : "",
	       floats.len ? sb_str(&floats) : "");
	sb_free(&known);
	sb_free(&floats);
	return v;
}

/* cdiv(a, b), min(a, b, ...), max(a, b, ...) after the opening '('. */
static void parse_call(gparser *g, const char *at, uint8_t op, const char *fname)
{
	int nargs = 0;
	char what[48];
	snprintf(what, sizeof what, "argument of %s()", fname);
	do {
		skip_space(g);
		if (*g->p == ')')
			break;
		float_refused(g, parse_or(g), what);
		if (++nargs > 1 && op != OP_NEXTPOW2)
			emit_op(g, at, op);
	} while (!g->failed && accept(g, ","));
	if (g->failed)
		return;
	if (op == OP_NEXTPOW2 ? nargs != 1 : op == OP_CDIV ? nargs != 2 : nargs < 2) {
		gerror(g, at, "%s() takes %s arguments, got %d", fname,
		       op == OP_NEXTPOW2 ? "1" : op == OP_CDIV ? "2" : "2 or more", nargs);
		return;
	}
	if (op == OP_NEXTPOW2)
		emit_op(g, at, op);
	expect(g, ")");
}

/* The length of the float literal that s starts ("1.5", ".5", "1.",
 * "1e-6", "1_0.5"); 0 when s starts none (an integer, say). */
static size_t float_literal(const char *s)
{
	size_t n = 0;
	bool digits = false, frac = false, exp = false;
	while (isdigit((unsigned char)s[n]) || (s[n] == '_' && n && isdigit((unsigned char)s[n + 1])))
		digits |= s[n++] != '_';
	if (s[n] == '.') {
		frac = true;
		for (n++; isdigit((unsigned char)s[n]) || (s[n] == '_' && isdigit((unsigned char)s[n + 1])); n++)
			digits |= s[n] != '_';
	}
	if (digits && (s[n] == 'e' || s[n] == 'E')) {
		size_t e = n + 1 + (s[n + 1] == '+' || s[n + 1] == '-');
		if (isdigit((unsigned char)s[e])) {
			exp = true;
			for (n = e; isdigit((unsigned char)s[n]) || (s[n] == '_' && isdigit((unsigned char)s[n + 1])); n++)
				;
		}
	}
	return digits && (frac || exp) ? n : 0;
}

static gval parse_primary(gparser *g)
{
	skip_space(g);
	const char *at = g->p;
	gval v = {false, at};
	size_t flen = float_literal(g->p);
	if (flen) {
		char buf[64];
		size_t k = 0;
		if (flen >= sizeof buf) {
			gerror(g, at, "float literal too long");
			return v;
		}
		for (size_t i = 0; i < flen; i++)
			if (g->p[i] != '_')
				buf[k++] = g->p[i];
		buf[k] = '\0';
		g->p += flen;
		if (isalnum((unsigned char)*g->p) || *g->p == '_' || *g->p == '.') {
			gerror(g, at, "invalid float literal");
			return v;
		}
		v.fl = true;
		emit_fconst(g, at, strtod(buf, NULL)); /* out of range: inf or 0, as Python's literal */
		return v;
	}
	if (isdigit((unsigned char)*g->p)) {
		uint64_t u = 0;
		bool hex = g->p[0] == '0' && (g->p[1] == 'x' || g->p[1] == 'X');
		if (hex)
			g->p += 2;
		const char *digits = g->p;
		for (;; g->p++) {
			int d;
			char c = *g->p;
			if (c == '_')
				continue;
			if (isdigit((unsigned char)c))
				d = c - '0';
			else if (hex && isxdigit((unsigned char)c))
				d = tolower((unsigned char)c) - 'a' + 10;
			else
				break;
			uint64_t base = hex ? 16 : 10;
			if (u > (UINT64_C(0x7fffffffffffffff) - (uint64_t)d) / base) {
				gerror(g, at, "integer literal out of range");
				return v;
			}
			u = u * base + (uint64_t)d;
		}
		if (g->p == digits || isalpha((unsigned char)*g->p) || *g->p == '.') {
			gerror(g, at, "invalid integer literal");
			return v;
		}
		emit_const(g, at, (int64_t)u);
		return v;
	}
	if (isalpha((unsigned char)*g->p) || *g->p == '_') {
		const char *s = g->p;
		while (isalnum((unsigned char)*g->p) || *g->p == '_' || *g->p == '.')
			g->p++;
		size_t n = (size_t)(g->p - s);
		const char *base = s;
		size_t bn = n;
		for (const char *prefix[] = {"triton.language.", "triton.", "tl."}, **pp = prefix; pp < prefix + 3; pp++)
			if (n > strlen(*pp) && strncmp(s, *pp, strlen(*pp)) == 0) {
				base = s + strlen(*pp);
				bn = n - strlen(*pp);
				break;
			}
		if (accept(g, "(")) {
			if (name_eq(base, bn, "cdiv"))
				parse_call(g, at, OP_CDIV, "cdiv");
			else if (name_eq(base, bn, "min"))
				parse_call(g, at, OP_MIN, "min");
			else if (name_eq(base, bn, "max"))
				parse_call(g, at, OP_MAX, "max");
			else if (name_eq(base, bn, "next_power_of_2"))
				parse_call(g, at, OP_NEXTPOW2, "next_power_of_2");
			else
				gerror(g, at, "unknown function '%.*s' (grid expressions know cdiv, min, max, next_power_of_2)",
				       (int)n, s);
			return v;
		}
		if (memchr(s, '.', n)) {
			gerror(g, at, "unknown name '%.*s' in grid expression", (int)n, s);
			return v;
		}
		if (accept(g, "[")) { /* meta['BLOCK'] names a constexpr */
			skip_space(g);
			char q = *g->p;
			const char *key = g->p + 1, *end = q == '\'' || q == '"' ? strchr(key, q) : NULL;
			if (!end) {
				gerror(g, g->p, "expected a quoted name in '[...]'");
				return v;
			}
			g->p = end + 1;
			expect(g, "]");
			if (!g->failed)
				v = emit_name(g, key, key, (size_t)(end - key));
			return v;
		}
		return emit_name(g, at, s, n);
	}
	if (accept(g, "(")) {
		v.fl = parse_or(g).fl;
		expect(g, ")");
		return v;
	}
	if (*g->p == '\0')
		gerror(g, at, "expected an operand at the end of the expression");
	else
		gerror(g, at, "unexpected '%c' in grid expression", *g->p);
	return v;
}

static gval parse_unary(gparser *g)
{
	skip_space(g);
	const char *at = g->p;
	if (accept(g, "+")) {
		gval v = parse_unary(g);
		v.at = at;
		return v;
	}
	if (accept(g, "-")) {
		size_t start = g->len;
		emit_const(g, at, 0);
		gval v = parse_unary(g);
		/* "0 c sub" of a literal c folds to the constant -c, a float
		 * literal's too (the only float operand '-' takes: -0.0 stays
		 * negative zero, as in Python) */
		if (!g->failed && g->len == start + 18 && (g->out[start + 9] == OP_CONST || g->out[start + 9] == OP_FCONST)) {
			uint64_t u = 0;
			for (int i = 0; i < 8; i++)
				u |= (uint64_t)g->out[start + 10 + i] << (8 * i);
			if (v.fl || (int64_t)u != INT64_MIN) {
				g->len = start;
				g->depth -= 2;
				emit_u64(g, at, g->out[start + 9], v.fl ? u ^ UINT64_C(1) << 63 : (uint64_t)-(int64_t)u);
				return (gval){v.fl, at};
			}
		}
		float_refused(g, v, "operand of '-'");
		emit_op(g, at, OP_SUB);
		return (gval){false, at};
	}
	return parse_primary(g);
}

static gval parse_term(gparser *g)
{
	gval a = parse_unary(g);
	while (!g->failed) {
		skip_space(g);
		const char *at = g->p;
		uint8_t op;
		if (accept(g, "//"))
			op = OP_FLOORDIV;
		else if (accept(g, "*"))
			op = OP_MUL;
		else if (accept(g, "%"))
			op = OP_MOD;
		else if (*g->p == '/') {
			gerror(g, at, "'/' is true division; grid expressions use '//' or cdiv()");
			return a;
		} else
			return a;
		float_refused(g, a, operand_of[op - OP_ADD]);
		float_refused(g, parse_unary(g), operand_of[op - OP_ADD]);
		emit_op(g, at, op);
		a.fl = false;
	}
	return a;
}

static gval parse_expr(gparser *g)
{
	gval a = parse_term(g);
	while (!g->failed) {
		skip_space(g);
		const char *at = g->p;
		uint8_t op;
		if (accept(g, "+"))
			op = OP_ADD;
		else if (accept(g, "-"))
			op = OP_SUB;
		else
			return a;
		float_refused(g, a, operand_of[op - OP_ADD]);
		float_refused(g, parse_term(g), operand_of[op - OP_ADD]);
		emit_op(g, at, op);
		a.fl = false;
	}
	return a;
}

/* a < b (one comparison: a chained one is refused, as in kernels); with a
 * float operand, a float comparison (an integer one compared exactly, as
 * Python compares an int with a float) */
static gval parse_cmp(gparser *g)
{
	static const struct { const char *tok; uint8_t op; } ops[] = {
		{"==", OP_EQ}, {"!=", OP_NE}, {"<=", OP_LE}, {">=", OP_GE}, {"<", OP_LT}, {">", OP_GT}};
	gval a = parse_expr(g);
	for (int round = 0; !g->failed; round++) {
		skip_space(g);
		const char *at = g->p;
		size_t k = 0;
		while (k < sizeof ops / sizeof ops[0] && !accept(g, ops[k].tok))
			k++;
		if (k == sizeof ops / sizeof ops[0])
			return a;
		if (round) {
			gerror(g, at, "chained comparisons are not supported");
			return a;
		}
		gval b = parse_expr(g);
		if (a.fl || b.fl) {
			emit_op(g, at, OP_FCMP);
			emit_byte(g, at, (uint8_t)((ops[k].op - OP_EQ) | (a.fl ? FCMP_A_FLOAT : 0) | (b.fl ? FCMP_B_FLOAT : 0)));
		} else {
			emit_op(g, at, ops[k].op);
		}
		a.fl = false;
	}
	return a;
}

static gval parse_not(gparser *g)
{
	skip_space(g);
	const char *at = g->p;
	if (accept_word(g, "not")) {
		float_refused(g, parse_not(g), "operand of 'not'");
		emit_op(g, at, OP_NOT);
		return (gval){false, at};
	}
	return parse_cmp(g);
}

static gval parse_and(gparser *g)
{
	gval a = parse_not(g);
	while (!g->failed) {
		skip_space(g);
		const char *at = g->p;
		if (!accept_word(g, "and"))
			return a;
		float_refused(g, a, "operand of 'and'");
		float_refused(g, parse_not(g), "operand of 'and'");
		emit_op(g, at, OP_AND);
	}
	return a;
}

static gval parse_or(gparser *g)
{
	gval a = parse_and(g);
	while (!g->failed) {
		skip_space(g);
		const char *at = g->p;
		if (!accept_word(g, "or"))
			return a;
		float_refused(g, a, "operand of 'or'");
		float_refused(g, parse_and(g), "operand of 'or'");
		emit_op(g, at, OP_OR);
	}
	return a;
}

/* True when the text is "( ... )" with a top-level comma inside: a tuple. */
static bool is_tuple(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '(')
		return false;
	int level = 0;
	bool comma = false;
	for (const char *p = s; *p; p++) {
		if (*p == '(' || *p == '[')
			level++;
		else if (*p == ')' || *p == ']') {
			if (--level == 0) {
				for (p++; *p == ' ' || *p == '\t'; p++)
					;
				return comma && *p == '\0';
			}
		} else if (*p == ',' && level == 1)
			comma = true;
	}
	return false;
}

static tilec_status compile_values(tilec_ctx *ctx, const char *where, const char *expr, int max, int nparams,
				   const blob_param *params, int nconstexprs, const ir_constexpr *constexprs, uint8_t *out,
				   size_t cap, size_t *len)
{
	gparser g = {0};
	g.ctx = ctx;
	g.file.path = where ? where : "<grid>";
	g.file.text = expr;
	g.file.len = strlen(expr);
	g.p = expr;
	g.nparams = nparams;
	g.params = params;
	g.nconstexprs = nconstexprs;
	g.constexprs = constexprs;
	g.out = out;
	g.cap = cap;
	*len = 0;
	bool tuple = is_tuple(expr);
	if (tuple)
		accept(&g, "(");
	emit_byte(&g, expr, 0); /* ndims, patched below */
	int ndims = 0;
	do {
		skip_space(&g);
		if (ndims > 0 && (*g.p == '\0' || (tuple && *g.p == ')')))
			break; /* a trailing comma, as in "(x,)" */
		if (ndims == max) {
			if (max == 3)
				gerror(&g, g.p, "a grid has at most 3 dimensions");
			else
				gerror(&g, g.p, "more than %d values", max);
			break;
		}
		float_refused(&g, parse_or(&g), "value");
		ndims++;
	} while (!g.failed && accept(&g, ","));
	if (tuple)
		expect(&g, ")");
	skip_space(&g);
	if (!g.failed && *g.p != '\0')
		gerror(&g, g.p, "unexpected '%c' in grid expression", *g.p);
	if (g.failed)
		return TILEC_ERR_INVALID;
	out[0] = (uint8_t)ndims;
	*len = g.len;
	return TILEC_OK;
}

tilec_status gridexpr_compile(tilec_ctx *ctx, const char *where, const char *expr, int nparams, const blob_param *params,
			      int nconstexprs, const ir_constexpr *constexprs, uint8_t *out, size_t cap, size_t *len)
{
	return compile_values(ctx, where, expr, 3, nparams, params, nconstexprs, constexprs, out, cap, len);
}

tilec_status gridexpr_compile_values(tilec_ctx *ctx, const char *where, const char *expr, int nvalues, int nparams,
				     const blob_param *params, int nconstexprs, const ir_constexpr *constexprs, uint8_t *out,
				     size_t cap, size_t *len)
{
	tilec_status st = compile_values(ctx, where, expr, nvalues, nparams, params, nconstexprs, constexprs, out, cap, len);
	if (st == TILEC_OK && out[0] != nvalues) {
		src_loc loc = {NULL, 0, 0};
		diag_error(ctx, loc, "%s: '%s' gives %d values, not %d", where ? where : "<program>", expr, out[0], nvalues);
		return TILEC_ERR_INVALID;
	}
	return st;
}

/* ---- checking and disassembly ------------------------------------- */

/* Decodes the instruction at *pc; NULL when well-formed, else the reason. */
static const char *decode(const uint8_t *code, size_t size, size_t *pc, uint8_t *op, int64_t *operand)
{
	*op = code[(*pc)++];
	*operand = 0;
	if (*op == OP_PARAM || *op == OP_CONSTEXPR || *op == OP_FPARAM || *op == OP_FCMP) {
		if (*pc >= size)
			return "truncated operand";
		*operand = code[(*pc)++];
		if (*op == OP_FCMP && ((*operand & 7) > OP_GE - OP_EQ || !(*operand & (FCMP_A_FLOAT | FCMP_B_FLOAT)) ||
				       (*operand & ~(7 | FCMP_A_FLOAT | FCMP_B_FLOAT))))
			return "float comparison operand is not a comparison 0..5 with float operand bits 3, 4 (at least one)";
	} else if (*op == OP_CONST || *op == OP_FCONST) {
		if (size - *pc < 8)
			return "truncated constant";
		uint64_t u = 0;
		for (int i = 0; i < 8; i++)
			u |= (uint64_t)code[*pc + (size_t)i] << (8 * i);
		*pc += 8;
		*operand = (int64_t)u;
	} else if (*op < OP_ADD || (*op > OP_MAX && *op < OP_EQ) || *op > OP_FCMP) {
		return "unknown opcode";
	}
	return NULL;
}

/* Whether an operation reads its operands as floats: a float comparison
 * says which; every other operation takes integers. */
static bool reads_float(uint8_t op, int64_t operand, bool second)
{
	return op == OP_FCMP && (operand & (second ? FCMP_B_FLOAT : FCMP_A_FLOAT));
}

static const char *validate(const uint8_t *code, size_t size, int lo, int hi, int nparams, const blob_param *params,
			    int nconstexprs, const ir_constexpr *constexprs)
{
	if (size < 1 || code[0] < lo || code[0] > hi)
		return lo == 1 && hi == 3 ? "ndims is not 1..3" : "the count of values is not the one wanted";
	int depth = 0;
	uint32_t floats = 0; /* bit i: stack entry i is a float */
	for (size_t pc = 1; pc < size;) {
		uint8_t op;
		int64_t v;
		const char *bad = decode(code, size, &pc, &op, &v);
		if (bad)
			return bad;
		if (op == OP_PARAM && (v >= nparams || (params[v].flags & BLOB_PARAM_HIDDEN) ||
				       (params[v].kind != BLOB_PARAM_INT && params[v].kind != BLOB_PARAM_UINT)))
			return "parameter index does not name a visible integer parameter";
		if (op == OP_FPARAM && (v >= nparams || (params[v].flags & BLOB_PARAM_HIDDEN) ||
					params[v].kind != BLOB_PARAM_FLOAT || !float_readable(&params[v])))
			return "float parameter index does not name a visible fp16, bf16, fp32 or fp64 parameter";
		if (op == OP_CONSTEXPR && (v >= nconstexprs || (constexprs[v].kind != IR_CONSTEXPR_INT &&
								 constexprs[v].kind != IR_CONSTEXPR_BOOL)))
			return "constexpr index does not name an int or bool constexpr";
		int nin = op < OP_ADD ? 0 : op == OP_NOT || op == OP_NEXTPOW2 ? 1 : 2;
		if (depth < nin)
			return "stack underflow";
		for (int i = 0; i < nin; i++)
			if ((bool)(floats >> (depth - nin + i) & 1) != reads_float(op, v, i == 1))
				return "an operand's type (float or integer) is not the one the operation reads";
		depth += stack_effect(op);
		if (depth > MAX_DEPTH)
			return "stack depth above 16";
		floats &= (UINT32_C(1) << (depth - 1)) - 1;
		if (op == OP_FPARAM || op == OP_FCONST)
			floats |= UINT32_C(1) << (depth - 1);
	}
	if (floats)
		return "a value is a float";
	return depth == code[0] ? NULL : "the stack does not end with ndims values";
}

const char *gridexpr_validate(const uint8_t *code, size_t size, int nparams, const blob_param *params,
			      int nconstexprs, const ir_constexpr *constexprs)
{
	return validate(code, size, 1, 3, nparams, params, nconstexprs, constexprs);
}

const char *gridexpr_validate_values(const uint8_t *code, size_t size, int nvalues, int nparams, const blob_param *params,
				     int nconstexprs, const ir_constexpr *constexprs)
{
	return validate(code, size, nvalues, nvalues, nparams, params, nconstexprs, constexprs);
}

typedef struct gitem {
	strbuf text;
	int prec; /* 7 atom/call, 6 negative literal, 5 * // %, 4 + -, 3 comparison, 2 not, 1 and, 0 or */
} gitem;

static void item_put(strbuf *sb, const gitem *it, int need)
{
	if (it->prec < need)
		sb_printf(sb, "(%s)", sb_str(&it->text));
	else
		sb_puts(sb, sb_str(&it->text));
}

bool gridexpr_format(strbuf *sb, const uint8_t *code, size_t size,
		     int nparams, const char *const *param_names,
		     int nconstexprs, const char *const *constexpr_names)
{
	gitem st[MAX_DEPTH];
	int depth = 0;
	const char *bad = size < 1 || code[0] < 1 || code[0] > GRIDEXPR_MAX_VALUES ? "ndims is not 1..3" : NULL;
	for (size_t pc = 1; !bad && pc < size;) {
		uint8_t op;
		int64_t v;
		if ((bad = decode(code, size, &pc, &op, &v)) != NULL)
			break;
		if (op < OP_ADD) {
			if (depth == MAX_DEPTH) {
				bad = "stack depth above 16";
				break;
			}
			gitem *it = &st[depth++];
			sb_init(&it->text);
			it->prec = (op == OP_CONST || op == OP_FCONST) && v < 0 ? 6 : 7;
			bool param = op == OP_PARAM || op == OP_FPARAM;
			const char *const *names = param ? param_names : constexpr_names;
			if (op == OP_CONST)
				sb_printf(&it->text, "%lld", (long long)v);
			else if (op == OP_FCONST) {
				double d;
				memcpy(&d, &v, sizeof d);
				sb_put_float(&it->text, d);
			}
			else if (names && v < (param ? nparams : nconstexprs) && names[v])
				sb_puts(&it->text, names[v]);
			else
				sb_printf(&it->text, "%s%d", param ? "p" : "c", (int)v);
			continue;
		}
		if (op == OP_NOT || op == OP_NEXTPOW2) {
			if (depth < 1) {
				bad = "stack underflow";
				break;
			}
			gitem *x = &st[depth - 1];
			strbuf t;
			sb_init(&t);
			if (op == OP_NOT) {
				sb_puts(&t, "not ");
				item_put(&t, x, 2);
			} else {
				sb_printf(&t, "next_power_of_2(%s)", sb_str(&x->text));
			}
			sb_free(&x->text);
			x->text = t;
			x->prec = op == OP_NOT ? 2 : 7;
			continue;
		}
		if (depth < 2) {
			bad = "stack underflow";
			break;
		}
		gitem *a = &st[depth - 2], *b = &st[depth - 1];
		strbuf t;
		sb_init(&t);
		int prec;
		if (op == OP_CDIV || op == OP_MIN || op == OP_MAX) {
			sb_printf(&t, "%s(%s, %s)", op == OP_CDIV ? "cdiv" : op == OP_MIN ? "min" : "max",
				  sb_str(&a->text), sb_str(&b->text));
			prec = 7;
		} else if (op >= OP_EQ) {
			static const char *sym[] = {" == ", " != ", " < ", " <= ", " > ", " >= ", " and ", " or "};
			int k = op == OP_FCMP ? (int)(v & 7) : op - OP_EQ;
			prec = op == OP_AND ? 1 : op == OP_OR ? 0 : 3;
			item_put(&t, a, op == OP_AND || op == OP_OR ? prec : prec + 1);
			sb_puts(&t, sym[k]);
			item_put(&t, b, prec + 1);
		} else {
			static const char *sym[] = {" + ", " - ", " * ", " // ", NULL, " % "};
			prec = op <= OP_SUB ? 4 : 5;
			item_put(&t, a, prec);
			sb_puts(&t, sym[op - OP_ADD]);
			item_put(&t, b, prec + 1);
		}
		sb_free(&a->text);
		sb_free(&b->text);
		a->text = t;
		a->prec = prec;
		depth--;
	}
	if (!bad && depth != code[0])
		bad = "the stack does not end with ndims values";
	if (!bad)
		for (int i = 0; i < depth; i++)
			sb_printf(sb, "%s%s", i ? ", " : "", sb_str(&st[i].text));
	else
		sb_printf(sb, "<invalid grid program: %s>", bad);
	for (int i = 0; i < depth; i++)
		sb_free(&st[i].text);
	return bad == NULL;
}
