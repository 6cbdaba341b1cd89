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
 * gridexpr_format turns a program back into an expression for `tilec
 * inspect`.
 */
#include "pack/pack.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum {
	OP_PARAM = 0x01, OP_CONST = 0x02, OP_CONSTEXPR = 0x03,
	OP_ADD = 0x10, OP_SUB, OP_MUL, OP_FLOORDIV, OP_CDIV, OP_MOD, OP_MIN, OP_MAX,
	OP_EQ = 0x18, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_AND, OP_OR,
	OP_NOT = 0x20, OP_NEXTPOW2 = 0x21
};
#define MAX_DEPTH 16

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

/* Pushes add one value, binary operations take one away, unary ones
 * (not, next_power_of_2) none. */
static int stack_effect(uint8_t op)
{
	return op < OP_ADD ? 1 : op >= OP_NOT ? 0 : -1;
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

static void emit_const(gparser *g, const char *at, int64_t v)
{
	emit_op(g, at, OP_CONST);
	uint64_t u = (uint64_t)v;
	for (int i = 0; i < 8; i++)
		emit_byte(g, at, (uint8_t)(u >> (8 * i)));
}

static bool name_eq(const char *s, size_t n, const char *name)
{
	return name && strlen(name) == n && memcmp(s, name, n) == 0;
}

static void parse_expr(gparser *g);
static void parse_or(gparser *g);

/* Pushes the value of a name: a visible integer parameter or an int/bool
 * constexpr. */
static void emit_name(gparser *g, const char *at, const char *s, size_t n)
{
	for (int i = 0; i < g->nparams; i++) {
		const blob_param *p = &g->params[i];
		if (!name_eq(s, n, p->name) || (p->flags & BLOB_PARAM_HIDDEN))
			continue;
		if (p->kind != BLOB_PARAM_INT && p->kind != BLOB_PARAM_UINT) {
			gerror(g, at, "parameter '%.*s' is a %s; a grid expression takes integer parameters",
			       (int)n, s, p->kind == BLOB_PARAM_PTR ? "pointer" : "float");
			return;
		}
		if (i > 255) {
			gerror(g, at, "parameter '%.*s' is past the 256th", (int)n, s);
			return;
		}
		emit_op(g, at, OP_PARAM);
		emit_byte(g, at, (uint8_t)i);
		return;
	}
	for (int i = 0; i < g->nconstexprs; i++) {
		const ir_constexpr *c = &g->constexprs[i];
		if (!name_eq(s, n, c->name))
			continue;
		if (c->kind != IR_CONSTEXPR_INT && c->kind != IR_CONSTEXPR_BOOL) {
			gerror(g, at, "constexpr '%.*s' is not an integer", (int)n, s);
			return;
		}
		if (i > 255) {
			gerror(g, at, "constexpr '%.*s' is past the 256th", (int)n, s);
			return;
		}
		emit_op(g, at, OP_CONSTEXPR);
		emit_byte(g, at, (uint8_t)i);
		return;
	}
	strbuf known;
	sb_init(&known);
	for (int i = 0; i < g->nparams; i++)
		if (!(g->params[i].flags & BLOB_PARAM_HIDDEN) &&
		    (g->params[i].kind == BLOB_PARAM_INT || g->params[i].kind == BLOB_PARAM_UINT))
			sb_printf(&known, "%s%s", known.len ? ", " : "", g->params[i].name);
	for (int i = 0; i < g->nconstexprs; i++)
		if (g->constexprs[i].kind == IR_CONSTEXPR_INT || g->constexprs[i].kind == IR_CONSTEXPR_BOOL)
			sb_printf(&known, "%s%s", known.len ? ", " : "", g->constexprs[i].name);
	gerror(g, at, "unknown name '%.*s' in grid expression (integer names: %s)", (int)n, s,
	       known.len ? sb_str(&known) : "none");
	sb_free(&known);
}

/* cdiv(a, b), min(a, b, ...), max(a, b, ...) after the opening '('. */
static void parse_call(gparser *g, const char *at, uint8_t op, const char *fname)
{
	int nargs = 0;
	do {
		skip_space(g);
		if (*g->p == ')')
			break;
		parse_or(g);
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

static void parse_primary(gparser *g)
{
	skip_space(g);
	const char *at = g->p;
	if (isdigit((unsigned char)*g->p)) {
		uint64_t v = 0;
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
			if (v > (UINT64_C(0x7fffffffffffffff) - (uint64_t)d) / base) {
				gerror(g, at, "integer literal out of range");
				return;
			}
			v = v * base + (uint64_t)d;
		}
		if (g->p == digits || isalpha((unsigned char)*g->p) || *g->p == '.') {
			gerror(g, at, "invalid integer literal (a grid expression takes integers only)");
			return;
		}
		emit_const(g, at, (int64_t)v);
		return;
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
			return;
		}
		if (memchr(s, '.', n)) {
			gerror(g, at, "unknown name '%.*s' in grid expression", (int)n, s);
			return;
		}
		if (accept(g, "[")) { /* meta['BLOCK'] names a constexpr */
			skip_space(g);
			char q = *g->p;
			const char *key = g->p + 1, *end = q == '\'' || q == '"' ? strchr(key, q) : NULL;
			if (!end) {
				gerror(g, g->p, "expected a quoted name in '[...]'");
				return;
			}
			g->p = end + 1;
			expect(g, "]");
			if (!g->failed)
				emit_name(g, key, key, (size_t)(end - key));
			return;
		}
		emit_name(g, at, s, n);
		return;
	}
	if (accept(g, "(")) {
		parse_or(g);
		expect(g, ")");
		return;
	}
	if (*g->p == '\0')
		gerror(g, at, "expected an operand at the end of the expression");
	else
		gerror(g, at, "unexpected '%c' in grid expression", *g->p);
}

static void parse_unary(gparser *g)
{
	skip_space(g);
	const char *at = g->p;
	if (accept(g, "+")) {
		parse_unary(g);
		return;
	}
	if (accept(g, "-")) {
		size_t start = g->len;
		emit_const(g, at, 0);
		parse_unary(g);
		/* "0 c sub" of a literal c folds to the constant -c */
		if (!g->failed && g->len == start + 18 && g->out[start + 9] == OP_CONST) {
			uint64_t u = 0;
			for (int i = 0; i < 8; i++)
				u |= (uint64_t)g->out[start + 10 + i] << (8 * i);
			if ((int64_t)u != INT64_MIN) {
				g->len = start;
				g->depth -= 2;
				emit_const(g, at, -(int64_t)u);
				return;
			}
		}
		emit_op(g, at, OP_SUB);
		return;
	}
	parse_primary(g);
}

static void parse_term(gparser *g)
{
	parse_unary(g);
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
			return;
		} else
			return;
		parse_unary(g);
		emit_op(g, at, op);
	}
}

static void parse_expr(gparser *g)
{
	parse_term(g);
	while (!g->failed) {
		skip_space(g);
		const char *at = g->p;
		uint8_t op;
		if (accept(g, "+"))
			op = OP_ADD;
		else if (accept(g, "-"))
			op = OP_SUB;
		else
			return;
		parse_term(g);
		emit_op(g, at, op);
	}
}

/* a < b (one comparison: a chained one is refused, as in kernels) */
static void parse_cmp(gparser *g)
{
	static const struct { const char *tok; uint8_t op; } ops[] = {
		{"==", OP_EQ}, {"!=", OP_NE}, {"<=", OP_LE}, {">=", OP_GE}, {"<", OP_LT}, {">", OP_GT}};
	parse_expr(g);
	for (int round = 0; !g->failed; round++) {
		skip_space(g);
		const char *at = g->p;
		size_t k = 0;
		while (k < sizeof ops / sizeof ops[0] && !accept(g, ops[k].tok))
			k++;
		if (k == sizeof ops / sizeof ops[0])
			return;
		if (round) {
			gerror(g, at, "chained comparisons are not supported");
			return;
		}
		parse_expr(g);
		emit_op(g, at, ops[k].op);
	}
}

static void parse_not(gparser *g)
{
	skip_space(g);
	const char *at = g->p;
	if (accept_word(g, "not")) {
		parse_not(g);
		emit_op(g, at, OP_NOT);
		return;
	}
	parse_cmp(g);
}

static void parse_and(gparser *g)
{
	parse_not(g);
	while (!g->failed) {
		skip_space(g);
		const char *at = g->p;
		if (!accept_word(g, "and"))
			return;
		parse_not(g);
		emit_op(g, at, OP_AND);
	}
}

static void parse_or(gparser *g)
{
	parse_and(g);
	while (!g->failed) {
		skip_space(g);
		const char *at = g->p;
		if (!accept_word(g, "or"))
			return;
		parse_and(g);
		emit_op(g, at, OP_OR);
	}
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
		parse_or(&g);
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
	if (*op == OP_PARAM || *op == OP_CONSTEXPR) {
		if (*pc >= size)
			return "truncated operand";
		*operand = code[(*pc)++];
	} else if (*op == OP_CONST) {
		if (size - *pc < 8)
			return "truncated constant";
		uint64_t u = 0;
		for (int i = 0; i < 8; i++)
			u |= (uint64_t)code[*pc + (size_t)i] << (8 * i);
		*pc += 8;
		*operand = (int64_t)u;
	} else if (*op < OP_ADD || (*op > OP_MAX && *op < OP_EQ) || *op > OP_NEXTPOW2) {
		return "unknown opcode";
	}
	return NULL;
}

static const char *validate(const uint8_t *code, size_t size, int lo, int hi, int nparams, const blob_param *params,
			    int nconstexprs, const ir_constexpr *constexprs)
{
	if (size < 1 || code[0] < lo || code[0] > hi)
		return lo == 1 && hi == 3 ? "ndims is not 1..3" : "the count of values is not the one wanted";
	int depth = 0;
	for (size_t pc = 1; pc < size;) {
		uint8_t op;
		int64_t v;
		const char *bad = decode(code, size, &pc, &op, &v);
		if (bad)
			return bad;
		if (op == OP_PARAM && (v >= nparams || (params[v].flags & BLOB_PARAM_HIDDEN) ||
				       (params[v].kind != BLOB_PARAM_INT && params[v].kind != BLOB_PARAM_UINT)))
			return "parameter index does not name a visible integer parameter";
		if (op == OP_CONSTEXPR && (v >= nconstexprs || (constexprs[v].kind != IR_CONSTEXPR_INT &&
								 constexprs[v].kind != IR_CONSTEXPR_BOOL)))
			return "constexpr index does not name an int or bool constexpr";
		if (op >= OP_ADD && depth < (op >= OP_NOT ? 1 : 2))
			return "stack underflow";
		depth += stack_effect(op);
		if (depth > MAX_DEPTH)
			return "stack depth above 16";
	}
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
			it->prec = op == OP_CONST && v < 0 ? 6 : 7;
			bool param = op == OP_PARAM;
			const char *const *names = param ? param_names : constexpr_names;
			if (op == OP_CONST)
				sb_printf(&it->text, "%lld", (long long)v);
			else if (names && v < (param ? nparams : nconstexprs) && names[v])
				sb_puts(&it->text, names[v]);
			else
				sb_printf(&it->text, "%s%d", param ? "p" : "c", (int)v);
			continue;
		}
		if (op >= OP_NOT) {
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
			prec = op == OP_AND ? 1 : op == OP_OR ? 0 : 3;
			item_put(&t, a, op >= OP_AND ? prec : prec + 1);
			sb_puts(&t, sym[op - OP_EQ]);
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
