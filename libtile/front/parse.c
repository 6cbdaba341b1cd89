/* parse.c - a recursive-descent parser for Python 3 modules.
 *
 * The grammar is Python's (3.12: statements, decorators, comprehensions,
 * lambdas, walrus, async, parenthesized with-items, star-targets), so the
 * host code around kernels parses as well as the kernels do. Errors unwind
 * without longjmp: the first one sets `failed`, from then on the current
 * token reads as EOF so every loop ends, and node constructors never
 * return NULL (a scratch node stands in after an allocation failure).
 *
 * Recovery: a statement at module level (or in the blocks of module-level
 * compound statements), outside any @jit function, is re-read by its token
 * extent when it fails to parse and kept as AST_SKIPPED without a
 * diagnostic. Inside a @jit function an error is reported at once and
 * stops the parse. `match` and `type` statements are always skipped by
 * extent: the front end never needs them.
 *
 * While parsing the module level it records, in source order, imports
 * (resolved to dotted paths; those inside a module-level compound
 * statement, as `try: from ... import x / except ...:`, tagged with it),
 * simple `NAME = expr` assignments and @jit
 * functions, whose decorators are classified through the imports seen so
 * far (a decorator runs when its def does, so later imports do not count).
 * Inside a def's body (not a class's) it records the imports on the def
 * and the @jit defs in the module's list of nested ones, each pointing at
 * its def; their decorators see the imports of the defs around them first.
 */
#include "front/syntax.h"

#include <stdio.h>
#include <string.h>

/* Nesting of expressions and blocks the parser accepts; the lexer bounds
 * brackets and indentation, this bounds unary chains, lambdas and
 * conditional expressions, and so the recursion. */
#define PARSE_MAX_DEPTH 200

typedef struct parser {
	tilec_ctx *ctx;
	arena *a;
	tok *toks;
	int ntoks, pos;
	bool failed;    /* a syntax error is unwinding */
	bool fatal;     /* ...and was reported: no recovery */
	bool nomem;
	bool in_kernel; /* inside a @jit function: errors are reported */
	int blocks;     /* enclosing blocks (if/try/with/... bodies) */
	int top;        /* 1-based index of the module-level statement being parsed */
	int speculating; /* errors are not reported (trial parses) */
	int scope;      /* enclosing defs and classes */
	int depth;
	int elifs;      /* elif clauses of the if chain being parsed */
	ast_module *m;
	ast_node scratch;
	ast_func **defs; /* module-level defs without @jit, for f = triton.jit(f) */
	int ndefs;
	ast_func *frame; /* the def whose body is being parsed; NULL at module level and in a class */
} parser;

/* ---- tokens ---- */

static tok *cur(parser *p)
{
	return p->failed ? &p->toks[p->ntoks - 1] : &p->toks[p->pos];
}

static tok_kind peek(parser *p)
{
	return cur(p)->kind;
}

static tok_kind peek_at(parser *p, int k)
{
	if (p->failed)
		return TOK_EOF;
	int i = p->pos + k;
	return i < p->ntoks ? p->toks[i].kind : TOK_EOF;
}

static tok *advance(parser *p)
{
	tok *t = cur(p);
	if (!p->failed && t->kind != TOK_EOF)
		p->pos++;
	return t;
}

static bool accept(parser *p, tok_kind k)
{
	if (peek(p) != k)
		return false;
	advance(p);
	return true;
}

static bool is_soft(parser *p, int k, const char *name)
{
	tok *t = p->failed ? NULL : p->pos + k < p->ntoks ? &p->toks[p->pos + k] : NULL;
	return t && t->kind == TOK_NAME && strcmp(t->sval, name) == 0;
}

static void error_at(parser *p, src_loc loc, const char *fmt, ...) TILE_PRINTF(3, 4);
static void error_at(parser *p, src_loc loc, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = true;
	if (p->in_kernel && !p->speculating) {
		va_list ap;
		va_start(ap, fmt);
		diag_verror(p->ctx, loc, "error", fmt, ap);
		va_end(ap);
		p->ctx->errors++;
		p->fatal = true;
	}
}

static const char *tok_desc(const tok *t)
{
	switch (t->kind) {
	case TOK_NEWLINE: return "end of line";
	case TOK_INDENT: return "unexpected indent";
	case TOK_DEDENT: return "unindent";
	case TOK_EOF: return "end of file";
	default: return NULL;
	}
}

/* "expected ':'" naming what was found instead. */
static void expected(parser *p, const char *what)
{
	tok *t = cur(p);
	const char *d = tok_desc(t);
	if (d)
		error_at(p, t->loc, "expected %s, found %s", what, d);
	else
		error_at(p, t->loc, "expected %s, found '%.*s'", what, (int)(t->len > 40 ? 40 : t->len), t->text);
}

static tok *expect(parser *p, tok_kind k)
{
	if (peek(p) == k)
		return advance(p);
	char what[32];
	const char *name = lex_kind_name(k);
	snprintf(what, sizeof what, k == TOK_NAME || k == TOK_NEWLINE || k == TOK_INDENT ? "%s" : "'%s'",
		 k == TOK_NAME ? "a name" : k == TOK_INDENT ? "an indented block" : name);
	expected(p, what);
	return cur(p);
}

static void out_of_memory(parser *p)
{
	if (!p->nomem)
		diag_error(p->ctx, (src_loc){0}, "out of memory");
	p->nomem = p->failed = p->fatal = true;
}

/* ---- nodes and lists ---- */

static ast_node *node(parser *p, ast_kind kind, src_loc loc)
{
	ast_node *n = arena_alloc(p->a, sizeof *n);
	if (!n) {
		out_of_memory(p);
		n = &p->scratch;
	}
	n->kind = kind;
	n->loc = loc;
	return n;
}

/* Arrays grow at counts 0, 4, 8, 16, ...: no capacity to keep. */
static bool grow(parser *p, void **arr, int n, size_t size)
{
	if (n != 0 && (n < 4 || (n & (n - 1))))
		return true;
	size_t cap = n ? (size_t)n * 2 : 4;
	void *q = arena_realloc(p->a, *arr, size * (size_t)n, size * cap);
	if (!q) {
		out_of_memory(p);
		return false;
	}
	*arr = q;
	return true;
}

static void list_push(parser *p, ast_list *l, ast_node *n)
{
	if (grow(p, (void **)&l->items, l->n, sizeof *l->items))
		l->items[l->n++] = n;
}

/* ---- expressions ---- */

static ast_node *parse_expr(parser *p);
static ast_node *parse_named(parser *p);
static ast_node *parse_or(parser *p);
static ast_node *parse_bitor(parser *p);
static ast_node *parse_star_exprs(parser *p, bool allow_yield);
static ast_node *parse_targets(parser *p);
static void parse_for_clauses(parser *p, ast_node *comp);

static bool enter(parser *p)
{
	if (++p->depth > PARSE_MAX_DEPTH) {
		error_at(p, cur(p)->loc, "expression nested too deeply");
		return false;
	}
	return true;
}

/* Adjacent string literals join into one; any f-string makes the whole an
 * f-string, bytes and text do not mix. */
static ast_node *parse_strings(parser *p)
{
	tok *first = cur(p);
	unsigned flags = 0;
	size_t total = 0;
	int n = 0;
	while (peek_at(p, n) == TOK_STRING) {
		tok *t = &p->toks[p->pos + n];
		if (n > 0 && ((flags ^ t->flags) & TOKF_BYTES)) {
			error_at(p, t->loc, "cannot mix bytes and nonbytes literals");
			return node(p, AST_STR, first->loc);
		}
		flags |= t->flags;
		total += t->slen;
		n++;
	}
	ast_node *s = node(p, flags & TOKF_FSTRING ? AST_FSTRING : flags & TOKF_BYTES ? AST_BYTES : AST_STR, first->loc);
	if (n == 1) {
		s->lit.sval = first->sval;
		s->lit.slen = first->slen;
		advance(p);
		return s;
	}
	char *buf = arena_alloc(p->a, total + 1);
	if (!buf) {
		out_of_memory(p);
		return s;
	}
	size_t k = 0;
	for (int i = 0; i < n; i++) {
		tok *t = advance(p);
		memcpy(buf + k, t->sval, t->slen);
		k += t->slen;
	}
	s->lit.sval = buf;
	s->lit.slen = total;
	return s;
}

/* Call arguments after '('; the ')' is consumed. */
static void parse_call_args(parser *p, ast_node *call)
{
	while (peek(p) != TOK_RPAREN && peek(p) != TOK_EOF) {
		tok *t = cur(p);
		if (t->kind == TOK_STAR) {
			advance(p);
			ast_node *s = node(p, AST_STARRED, t->loc);
			s->unary.operand = parse_expr(p);
			list_push(p, &call->call.args, s);
		} else if (t->kind == TOK_DSTAR) {
			advance(p);
			ast_node *k = node(p, AST_KEYWORD, t->loc);
			k->keyword.value = parse_expr(p);
			list_push(p, &call->call.kwargs, k);
		} else if (t->kind == TOK_NAME && peek_at(p, 1) == TOK_ASSIGN) {
			advance(p);
			advance(p);
			ast_node *k = node(p, AST_KEYWORD, t->loc);
			k->keyword.name = t->sval;
			k->keyword.value = parse_expr(p);
			list_push(p, &call->call.kwargs, k);
		} else {
			ast_node *e = parse_named(p);
			if (peek(p) == TOK_FOR || peek(p) == TOK_ASYNC) {
				ast_node *g = node(p, AST_COMP, e->loc);
				g->comp.kind = '(';
				g->comp.elt = e;
				parse_for_clauses(p, g);
				e = g;
			} else if (call->call.kwargs.n > 0) {
				error_at(p, e->loc, "positional argument follows keyword argument");
			}
			list_push(p, &call->call.args, e);
		}
		if (!accept(p, TOK_COMMA))
			break;
	}
	expect(p, TOK_RPAREN);
}

/* One subscript element: a slice or an expression. */
static ast_node *parse_slice(parser *p)
{
	tok *t = cur(p);
	ast_node *lo = NULL;
	if (t->kind == TOK_STAR) {
		advance(p);
		ast_node *s = node(p, AST_STARRED, t->loc);
		s->unary.operand = parse_bitor(p);
		return s;
	}
	if (t->kind != TOK_COLON) {
		lo = parse_named(p);
		if (peek(p) != TOK_COLON)
			return lo;
	}
	ast_node *s = node(p, AST_SLICE, t->loc);
	s->slice.lo = lo;
	expect(p, TOK_COLON);
	tok_kind k = peek(p);
	if (k != TOK_COLON && k != TOK_COMMA && k != TOK_RBRACKET)
		s->slice.hi = parse_expr(p);
	if (accept(p, TOK_COLON)) {
		k = peek(p);
		if (k != TOK_COMMA && k != TOK_RBRACKET)
			s->slice.step = parse_expr(p);
	}
	return s;
}

static ast_node *parse_subscript_index(parser *p)
{
	tok *t = cur(p);
	ast_node *first = parse_slice(p);
	if (peek(p) != TOK_COMMA)
		return first;
	ast_node *tup = node(p, AST_TUPLE, t->loc);
	list_push(p, &tup->seq.items, first);
	while (accept(p, TOK_COMMA) && peek(p) != TOK_RBRACKET)
		list_push(p, &tup->seq.items, parse_slice(p));
	return tup;
}

/* The comprehension clauses after the element: for ... in ... if ... */
static void parse_for_clauses(parser *p, ast_node *comp)
{
	while (peek(p) == TOK_FOR || peek(p) == TOK_ASYNC) {
		tok *t = cur(p);
		ast_node *f = node(p, AST_COMP_FOR, t->loc);
		f->for_.is_async = accept(p, TOK_ASYNC);
		expect(p, TOK_FOR);
		f->for_.target = parse_targets(p);
		expect(p, TOK_IN);
		f->for_.iter = parse_or(p);
		list_push(p, &comp->comp.clauses, f);
		while (peek(p) == TOK_IF) {
			ast_node *c = node(p, AST_COMP_IF, advance(p)->loc);
			c->unary.operand = parse_or(p);
			list_push(p, &comp->comp.clauses, c);
		}
	}
}

/* Element of a display: `*x` or a named expression. */
static ast_node *parse_display_item(parser *p)
{
	if (peek(p) == TOK_STAR) {
		tok *t = advance(p);
		ast_node *s = node(p, AST_STARRED, t->loc);
		s->unary.operand = parse_bitor(p);
		return s;
	}
	return parse_named(p);
}

/* ( ... ), [ ... ]: tuple, parenthesized expression, generator, list, list
 * comprehension. */
static ast_node *parse_paren_or_list(parser *p, tok_kind close)
{
	tok *open = advance(p);
	ast_kind seq = close == TOK_RPAREN ? AST_TUPLE : AST_LIST;
	if (accept(p, close))
		return node(p, seq, open->loc);
	if (close == TOK_RPAREN && (peek(p) == TOK_YIELD)) {
		ast_node *y = parse_star_exprs(p, true);
		expect(p, close);
		return y;
	}
	ast_node *first = parse_display_item(p);
	if (peek(p) == TOK_FOR || peek(p) == TOK_ASYNC) {
		ast_node *c = node(p, AST_COMP, open->loc);
		c->comp.kind = close == TOK_RPAREN ? '(' : '[';
		c->comp.elt = first;
		parse_for_clauses(p, c);
		expect(p, close);
		return c;
	}
	if (close == TOK_RPAREN && peek(p) != TOK_COMMA) {
		expect(p, close);
		return first;
	}
	ast_node *s = node(p, seq, open->loc);
	list_push(p, &s->seq.items, first);
	while (accept(p, TOK_COMMA) && peek(p) != close)
		list_push(p, &s->seq.items, parse_display_item(p));
	expect(p, close);
	return s;
}

/* { ... }: dict, set, and their comprehensions. */
static ast_node *parse_brace(parser *p)
{
	tok *open = advance(p);
	if (accept(p, TOK_RBRACE))
		return node(p, AST_DICT, open->loc);
	ast_node *key = NULL, *value;
	bool is_dict;
	if (accept(p, TOK_DSTAR)) {
		value = parse_bitor(p);
		is_dict = true;
	} else {
		key = parse_display_item(p);
		is_dict = accept(p, TOK_COLON);
		value = is_dict ? parse_expr(p) : NULL;
	}
	if (peek(p) == TOK_FOR || peek(p) == TOK_ASYNC) {
		ast_node *c = node(p, AST_COMP, open->loc);
		c->comp.kind = is_dict ? 'd' : '{';
		c->comp.elt = key;
		c->comp.value = value;
		parse_for_clauses(p, c);
		expect(p, TOK_RBRACE);
		return c;
	}
	ast_node *d = node(p, is_dict ? AST_DICT : AST_SET, open->loc);
	for (;;) {
		if (is_dict) {
			list_push(p, &d->dict.keys, key);
			list_push(p, &d->dict.values, value);
		} else {
			list_push(p, &d->seq.items, key);
		}
		if (!accept(p, TOK_COMMA) || peek(p) == TOK_RBRACE)
			break;
		if (is_dict && accept(p, TOK_DSTAR)) {
			key = NULL;
			value = parse_bitor(p);
			continue;
		}
		key = parse_display_item(p);
		if (is_dict) {
			expect(p, TOK_COLON);
			value = parse_expr(p);
		}
	}
	expect(p, TOK_RBRACE);
	return d;
}

static ast_node *parse_atom(parser *p)
{
	tok *t = cur(p);
	ast_node *n;
	switch (t->kind) {
	case TOK_NAME:
		advance(p);
		n = node(p, AST_NAME, t->loc);
		n->name.id = t->sval;
		return n;
	case TOK_INT:
		advance(p);
		n = node(p, AST_INT, t->loc);
		n->lit.ival = t->ival;
		n->lit.big = t->big;
		return n;
	case TOK_FLOAT:
	case TOK_IMAG:
		advance(p);
		n = node(p, t->kind == TOK_FLOAT ? AST_FLOAT : AST_IMAG, t->loc);
		n->lit.fval = t->fval;
		return n;
	case TOK_STRING: return parse_strings(p);
	case TOK_NONE: advance(p); return node(p, AST_NONE, t->loc);
	case TOK_TRUE: advance(p); return node(p, AST_TRUE, t->loc);
	case TOK_FALSE: advance(p); return node(p, AST_FALSE, t->loc);
	case TOK_ELLIPSIS: advance(p); return node(p, AST_ELLIPSIS, t->loc);
	case TOK_LPAREN: return parse_paren_or_list(p, TOK_RPAREN);
	case TOK_LBRACKET: return parse_paren_or_list(p, TOK_RBRACKET);
	case TOK_LBRACE: return parse_brace(p);
	default:
		expected(p, "an expression");
		return node(p, AST_NONE, t->loc);
	}
}

static ast_node *parse_primary(parser *p)
{
	ast_node *e = parse_atom(p);
	for (;;) {
		tok *t = cur(p);
		if (t->kind == TOK_DOT) {
			advance(p);
			ast_node *a = node(p, AST_ATTR, e->loc);
			a->attr.value = e;
			a->attr.name = expect(p, TOK_NAME)->sval;
			e = a;
		} else if (t->kind == TOK_LPAREN) {
			advance(p);
			ast_node *c = node(p, AST_CALL, e->loc);
			c->call.func = e;
			parse_call_args(p, c);
			e = c;
		} else if (t->kind == TOK_LBRACKET) {
			advance(p);
			ast_node *s = node(p, AST_SUBSCRIPT, e->loc);
			s->subscript.value = e;
			s->subscript.index = parse_subscript_index(p);
			expect(p, TOK_RBRACKET);
			e = s;
		} else {
			return e;
		}
	}
}

static ast_node *parse_factor(parser *p);

static ast_node *parse_power(parser *p)
{
	tok *t = cur(p);
	ast_node *e;
	if (t->kind == TOK_AWAIT) {
		advance(p);
		e = node(p, AST_AWAIT, t->loc);
		e->unary.operand = parse_primary(p);
	} else {
		e = parse_primary(p);
	}
	if (peek(p) == TOK_DSTAR) {
		ast_node *b = node(p, AST_BINARY, advance(p)->loc);
		b->binary.op = AST_OP_POW;
		b->binary.left = e;
		b->binary.right = parse_factor(p);
		e = b;
	}
	return e;
}

static ast_node *parse_factor(parser *p)
{
	tok *t = cur(p);
	ast_op op = t->kind == TOK_MINUS ? AST_OP_NEG : t->kind == TOK_PLUS ? AST_OP_POS :
		    t->kind == TOK_TILDE ? AST_OP_INVERT : AST_OP_COUNT;
	if (op == AST_OP_COUNT)
		return parse_power(p);
	advance(p);
	ast_node *u = node(p, AST_UNARY, t->loc);
	u->unary.op = op;
	if (enter(p))
		u->unary.operand = parse_factor(p);
	p->depth--;
	return u;
}

/* The binary operator a token is and its level, loosest first from `|`
 * (0) to `*` (5); -1 for other tokens. */
static int binop(tok_kind k, ast_op *op)
{
	switch (k) {
	case TOK_PIPE: *op = AST_OP_BITOR; return 0;
	case TOK_CARET: *op = AST_OP_BITXOR; return 1;
	case TOK_AMP: *op = AST_OP_BITAND; return 2;
	case TOK_LSHIFT: *op = AST_OP_LSHIFT; return 3;
	case TOK_RSHIFT: *op = AST_OP_RSHIFT; return 3;
	case TOK_PLUS: *op = AST_OP_ADD; return 4;
	case TOK_MINUS: *op = AST_OP_SUB; return 4;
	case TOK_STAR: *op = AST_OP_MUL; return 5;
	case TOK_SLASH: *op = AST_OP_DIV; return 5;
	case TOK_DSLASH: *op = AST_OP_FLOORDIV; return 5;
	case TOK_PERCENT: *op = AST_OP_MOD; return 5;
	case TOK_AT: *op = AST_OP_MATMUL; return 5;
	default: *op = AST_OP_COUNT; return -1;
	}
}

static ast_node *parse_binary(parser *p, int level)
{
	if (level > 5)
		return parse_factor(p);
	ast_node *e = parse_binary(p, level + 1);
	for (;;) {
		tok *t = cur(p);
		ast_op op;
		if (binop(t->kind, &op) != level)
			return e;
		advance(p);
		ast_node *b = node(p, AST_BINARY, t->loc);
		b->binary.op = op;
		b->binary.left = e;
		b->binary.right = parse_binary(p, level + 1);
		e = b;
	}
}

static ast_node *parse_bitor(parser *p)
{
	return parse_binary(p, 0);
}

/* A comparison operator at the current token (consumed), AST_OP_COUNT when
 * there is none. */
static ast_op compare_op(parser *p)
{
	switch (peek(p)) {
	case TOK_LT: advance(p); return AST_OP_LT;
	case TOK_LE: advance(p); return AST_OP_LE;
	case TOK_GT: advance(p); return AST_OP_GT;
	case TOK_GE: advance(p); return AST_OP_GE;
	case TOK_EQ: advance(p); return AST_OP_EQ;
	case TOK_NE: advance(p); return AST_OP_NE;
	case TOK_IN: advance(p); return AST_OP_IN;
	case TOK_IS:
		advance(p);
		return accept(p, TOK_NOT) ? AST_OP_IS_NOT : AST_OP_IS;
	case TOK_NOT:
		if (peek_at(p, 1) != TOK_IN)
			return AST_OP_COUNT;
		advance(p);
		advance(p);
		return AST_OP_NOT_IN;
	default: return AST_OP_COUNT;
	}
}

static ast_node *parse_comparison(parser *p)
{
	ast_node *e = parse_bitor(p);
	for (bool chained = false;; chained = true) {
		tok *t = cur(p);
		ast_op op = compare_op(p);
		if (op == AST_OP_COUNT)
			return e;
		ast_node *c = node(p, AST_COMPARE, t->loc);
		c->binary.op = op;
		c->binary.left = e;
		c->binary.right = parse_bitor(p);
		c->binary.chained = chained;
		e = c;
	}
}

static ast_node *parse_not(parser *p)
{
	if (peek(p) != TOK_NOT)
		return parse_comparison(p);
	ast_node *u = node(p, AST_UNARY, advance(p)->loc);
	u->unary.op = AST_OP_NOT;
	if (enter(p))
		u->unary.operand = parse_not(p);
	p->depth--;
	return u;
}

/* Left-associative `and`/`or` chains over operands parsed by `next`. */
static ast_node *parse_boolop(parser *p, tok_kind tk, ast_op op, ast_node *(*next)(parser *))
{
	ast_node *e = next(p);
	while (peek(p) == tk) {
		ast_node *b = node(p, AST_BOOLOP, advance(p)->loc);
		b->binary.op = op;
		b->binary.left = e;
		b->binary.right = next(p);
		e = b;
	}
	return e;
}

static ast_node *parse_and(parser *p)
{
	return parse_boolop(p, TOK_AND, AST_OP_AND, parse_not);
}

static ast_node *parse_or(parser *p)
{
	return parse_boolop(p, TOK_OR, AST_OP_OR, parse_and);
}

static int parse_params(parser *p, ast_param **out, tok_kind close, bool annotations);

static ast_node *parse_lambda(parser *p)
{
	ast_node *l = node(p, AST_LAMBDA, advance(p)->loc);
	l->lambda.nparams = parse_params(p, &l->lambda.params, TOK_COLON, false);
	expect(p, TOK_COLON);
	l->lambda.body = parse_expr(p);
	return l;
}

/* expression: lambda, or a disjunction with an optional `if ... else`. */
static ast_node *parse_expr(parser *p)
{
	if (!enter(p)) {
		p->depth--;
		return node(p, AST_NONE, cur(p)->loc);
	}
	ast_node *e;
	if (peek(p) == TOK_LAMBDA) {
		e = parse_lambda(p);
	} else {
		e = parse_or(p);
		if (peek(p) == TOK_IF) {
			ast_node *c = node(p, AST_IFEXP, advance(p)->loc);
			c->ifexp.then = e;
			c->ifexp.cond = parse_or(p);
			expect(p, TOK_ELSE);
			c->ifexp.orelse = parse_expr(p);
			e = c;
		}
	}
	p->depth--;
	return e;
}

/* named_expression: NAME := expression, or an expression. */
static ast_node *parse_named(parser *p)
{
	if (peek(p) == TOK_NAME && peek_at(p, 1) == TOK_WALRUS) {
		ast_node *target = parse_atom(p);
		ast_node *w = node(p, AST_NAMED, advance(p)->loc);
		w->binary.left = target;
		w->binary.right = parse_expr(p);
		return w;
	}
	return parse_expr(p);
}

/* yield [from e | star_expressions] */
static ast_node *parse_yield(parser *p)
{
	tok *t = advance(p);
	if (accept(p, TOK_FROM)) {
		ast_node *y = node(p, AST_YIELD_FROM, t->loc);
		y->unary.operand = parse_expr(p);
		return y;
	}
	ast_node *y = node(p, AST_YIELD, t->loc);
	tok_kind k = peek(p);
	if (k != TOK_NEWLINE && k != TOK_RPAREN && k != TOK_SEMI && k != TOK_ASSIGN && k != TOK_EOF)
		y->unary.operand = parse_star_exprs(p, false);
	return y;
}

/* A comma-separated sequence of `item`s or `*x`, a TUPLE when there is a
 * comma: star_expressions (item = named expression) and targets (item =
 * bitwise or, so that `for x in y` does not read `x in y`). */
static ast_node *parse_seq(parser *p, ast_node *(*item)(parser *))
{
	ast_node *tup = NULL, *first = NULL;
	tok *start = cur(p);
	do {
		tok_kind k = peek(p);
		if (tup && (k == TOK_NEWLINE || k == TOK_ASSIGN || k == TOK_RPAREN || k == TOK_SEMI ||
			    k == TOK_COLON || k == TOK_EOF || k == TOK_IN ||
			    (k >= TOK_PLUS_ASSIGN && k <= TOK_AT_ASSIGN)))
			break;
		tok *t = cur(p);
		ast_node *e;
		if (t->kind == TOK_STAR) {
			advance(p);
			e = node(p, AST_STARRED, t->loc);
			e->unary.operand = parse_bitor(p);
		} else {
			e = item(p);
		}
		if (!first) {
			first = e;
			if (peek(p) != TOK_COMMA)
				return first;
			tup = node(p, AST_TUPLE, start->loc);
		}
		list_push(p, &tup->seq.items, e);
	} while (accept(p, TOK_COMMA));
	return tup;
}

static ast_node *parse_star_exprs(parser *p, bool allow_yield)
{
	if (allow_yield && peek(p) == TOK_YIELD)
		return parse_yield(p);
	return parse_seq(p, parse_named);
}

static ast_node *parse_targets(parser *p)
{
	return parse_seq(p, parse_bitor);
}

/* ---- parameters ---- */

/* Triton's test for a constexpr parameter: its annotation, as text,
 * contains "constexpr". */
static bool mentions_constexpr(parser *p, int from, int to, ast_node *ann)
{
	if (ann->kind == AST_STR)
		return ann->lit.sval && strstr(ann->lit.sval, "constexpr");
	for (int i = from; i < to; i++)
		if (p->toks[i].kind == TOK_NAME && strcmp(p->toks[i].sval, "constexpr") == 0)
			return true;
	return false;
}

/* def and lambda parameters, up to `close` (not consumed). */
static int parse_params(parser *p, ast_param **out, tok_kind close, bool annotations)
{
	int n = 0;
	ast_param_kind kind = AST_PARAM_NORMAL;
	*out = NULL;
	while (peek(p) != close && peek(p) != TOK_EOF) {
		tok *t = cur(p);
		if (t->kind == TOK_SLASH) {
			advance(p);
		} else if (t->kind == TOK_STAR && peek_at(p, 1) != TOK_NAME) {
			advance(p);
			kind = AST_PARAM_KWONLY;
		} else {
			ast_param_kind k = kind;
			if (accept(p, TOK_STAR))
				k = AST_PARAM_VARARGS, kind = AST_PARAM_KWONLY;
			else if (accept(p, TOK_DSTAR))
				k = AST_PARAM_KWARGS;
			tok *name = expect(p, TOK_NAME);
			if (!grow(p, (void **)out, n, sizeof **out))
				return n;
			ast_param *prm = &(*out)[n++];
			memset(prm, 0, sizeof *prm);
			prm->loc = name->loc;
			prm->name = name->sval;
			prm->kind = k;
			if (annotations && accept(p, TOK_COLON)) {
				int from = p->pos;
				prm->annotation = peek(p) == TOK_STAR ? parse_star_exprs(p, false) : parse_expr(p);
				prm->is_constexpr = mentions_constexpr(p, from, p->pos, prm->annotation);
			}
			if (accept(p, TOK_ASSIGN))
				prm->default_value = parse_expr(p);
		}
		if (!accept(p, TOK_COMMA))
			break;
	}
	return n;
}

/* ---- statements ---- */

static void parse_statement(parser *p, ast_list *out);
static void parse_simple_stmts(parser *p, ast_list *out);
static void record_from(parser *p, ast_list *l, int n0);

/* A module-level statement may be skipped when it fails to parse. */
static bool recoverable(const parser *p)
{
	return p->scope == 0 && !p->in_kernel;
}

/* Skips one statement by its extent: its logical lines, their indented
 * blocks, and the clauses that continue it (elif, else, except, finally;
 * the def after decorators). */
static void skip_statement(parser *p)
{
	for (;;) {
		tok_kind first = p->toks[p->pos].kind;
		while (p->toks[p->pos].kind != TOK_NEWLINE && p->toks[p->pos].kind != TOK_EOF)
			p->pos++;
		if (p->toks[p->pos].kind == TOK_NEWLINE)
			p->pos++;
		if (p->toks[p->pos].kind == TOK_INDENT) {
			int level = 0;
			do {
				tok_kind k = p->toks[p->pos].kind;
				level += k == TOK_INDENT ? 1 : k == TOK_DEDENT ? -1 : 0;
				p->pos++;
			} while (level > 0 && p->toks[p->pos].kind != TOK_EOF);
		}
		tok_kind k = p->toks[p->pos].kind;
		if (first != TOK_AT && k != TOK_ELIF && k != TOK_ELSE && k != TOK_EXCEPT && k != TOK_FINALLY)
			return;
	}
}

static ast_node *skipped(parser *p, int from)
{
	ast_node *s = node(p, AST_SKIPPED, p->toks[from].loc);
	s->skipped.ntoks = p->pos - from;
	return s;
}

/* A statement, recovered by extent where that is allowed. */
static void parse_statement_or_skip(parser *p, ast_list *out)
{
	int from = p->pos, n = out->n, nested = p->m->nnested;
	parse_statement(p, out);
	if (p->failed && !p->fatal && recoverable(p)) {
		p->failed = false;
		p->pos = from;
		out->n = n;
		p->m->nnested = nested; /* kernels of a def that is skipped whole */
		skip_statement(p);
		list_push(p, out, skipped(p, from));
	}
}

/* ':' then a simple statement list on the same line or an indented block. */
static void parse_block(parser *p, ast_list *body)
{
	expect(p, TOK_COLON);
	if (!accept(p, TOK_NEWLINE)) {
		/* only simple statements may follow on the same line */
		int n0 = body->n;
		parse_simple_stmts(p, body);
		p->blocks++;
		record_from(p, body, n0);
		p->blocks--;
		return;
	}
	if (!enter(p)) {
		p->depth--;
		return;
	}
	expect(p, TOK_INDENT);
	p->blocks++;
	while (peek(p) != TOK_DEDENT && peek(p) != TOK_EOF)
		parse_statement_or_skip(p, body);
	p->blocks--;
	expect(p, TOK_DEDENT);
	p->depth--;
}

static void check_target(parser *p, ast_node *t)
{
	switch (t->kind) {
	case AST_NAME: case AST_ATTR: case AST_SUBSCRIPT:
		return;
	case AST_STARRED:
		check_target(p, t->unary.operand);
		return;
	case AST_TUPLE: case AST_LIST:
		for (int i = 0; i < t->seq.items.n; i++)
			check_target(p, t->seq.items.items[i]);
		return;
	default:
		error_at(p, t->loc, "cannot assign to %s", ast_kind_name(t->kind));
	}
}

static bool is_augassign(tok_kind k, ast_op *op)
{
	static const struct { tok_kind k; ast_op op; } aug[] = {
		{TOK_PLUS_ASSIGN, AST_OP_ADD}, {TOK_MINUS_ASSIGN, AST_OP_SUB}, {TOK_STAR_ASSIGN, AST_OP_MUL},
		{TOK_SLASH_ASSIGN, AST_OP_DIV}, {TOK_DSLASH_ASSIGN, AST_OP_FLOORDIV},
		{TOK_PERCENT_ASSIGN, AST_OP_MOD}, {TOK_DSTAR_ASSIGN, AST_OP_POW},
		{TOK_LSHIFT_ASSIGN, AST_OP_LSHIFT}, {TOK_RSHIFT_ASSIGN, AST_OP_RSHIFT},
		{TOK_AMP_ASSIGN, AST_OP_BITAND}, {TOK_PIPE_ASSIGN, AST_OP_BITOR},
		{TOK_CARET_ASSIGN, AST_OP_BITXOR}, {TOK_AT_ASSIGN, AST_OP_MATMUL},
	};
	for (size_t i = 0; i < sizeof aug / sizeof aug[0]; i++)
		if (aug[i].k == k) {
			*op = aug[i].op;
			return true;
		}
	return false;
}

/* Expression statement, assignment (chained, augmented, annotated). */
static ast_node *parse_expr_stmt(parser *p)
{
	tok *t = cur(p);
	ast_node *e = parse_star_exprs(p, true);
	ast_op op;
	if (peek(p) == TOK_COLON) {
		tok *colon = advance(p);
		if (e->kind != AST_NAME && e->kind != AST_ATTR && e->kind != AST_SUBSCRIPT)
			error_at(p, colon->loc, "only single target (not %s) can be annotated", ast_kind_name(e->kind));
		ast_node *a = node(p, AST_ANNASSIGN, t->loc);
		a->annassign.target = e;
		a->annassign.annotation = parse_expr(p);
		if (accept(p, TOK_ASSIGN))
			a->annassign.value = parse_star_exprs(p, true);
		return a;
	}
	if (is_augassign(peek(p), &op)) {
		tok *o = advance(p);
		if (e->kind != AST_NAME && e->kind != AST_ATTR && e->kind != AST_SUBSCRIPT)
			error_at(p, e->loc, "'%s' is an illegal expression for augmented assignment", ast_kind_name(e->kind));
		ast_node *a = node(p, AST_AUGASSIGN, o->loc);
		a->augassign.op = op;
		a->augassign.target = e;
		a->augassign.value = parse_star_exprs(p, true);
		return a;
	}
	if (peek(p) != TOK_ASSIGN) {
		ast_node *s = node(p, AST_EXPR_STMT, t->loc);
		s->unary.operand = e;
		return s;
	}
	ast_node *a = node(p, AST_ASSIGN, t->loc);
	while (accept(p, TOK_ASSIGN)) {
		check_target(p, e);
		list_push(p, &a->assign.targets, e);
		e = parse_star_exprs(p, true);
	}
	a->assign.value = e;
	return a;
}

static const char *dotted_name(parser *p)
{
	strbuf sb;
	sb_init(&sb);
	for (;;) {
		tok *t = expect(p, TOK_NAME);
		if (p->failed)
			break;
		sb_puts(&sb, t->sval);
		if (!accept(p, TOK_DOT))
			break;
		sb_putc(&sb, '.');
	}
	const char *s = arena_strndup(p->a, sb_str(&sb), sb.len);
	if (!s || sb.failed)
		out_of_memory(p);
	sb_free(&sb);
	return s ? s : "";
}

static void add_import(parser *p, ast_node *stmt, src_loc loc, const char *alias, const char *path)
{
	if (!grow(p, (void **)&stmt->import_.names, stmt->import_.n, sizeof(ast_import)))
		return;
	stmt->import_.names[stmt->import_.n++] = (ast_import){loc, alias, path, 0};
}

/* import a.b.c [as x], ... */
static ast_node *parse_import(parser *p)
{
	ast_node *s = node(p, AST_IMPORT, advance(p)->loc);
	do {
		src_loc loc = cur(p)->loc;
		const char *path = dotted_name(p);
		if (accept(p, TOK_AS)) {
			add_import(p, s, loc, expect(p, TOK_NAME)->sval, path);
		} else {
			/* `import a.b` binds `a` */
			const char *dot = strchr(path, '.');
			const char *root = dot ? arena_strndup(p->a, path, (size_t)(dot - path)) : path;
			add_import(p, s, loc, root ? root : "", root ? root : "");
		}
	} while (accept(p, TOK_COMMA));
	return s;
}

/* from [.]*module import (name [as x], ... | *) */
static ast_node *parse_import_from(parser *p)
{
	ast_node *s = node(p, AST_IMPORT_FROM, advance(p)->loc);
	strbuf sb;
	sb_init(&sb);
	while (peek(p) == TOK_DOT || peek(p) == TOK_ELLIPSIS)
		sb_puts(&sb, advance(p)->kind == TOK_DOT ? "." : "...");
	if (peek(p) != TOK_IMPORT)
		sb_puts(&sb, dotted_name(p));
	expect(p, TOK_IMPORT);
	bool paren = accept(p, TOK_LPAREN);
	do {
		if (paren && peek(p) == TOK_RPAREN)
			break;
		tok *t = cur(p);
		const char *name = accept(p, TOK_STAR) ? "*" : expect(p, TOK_NAME)->sval;
		const char *alias = accept(p, TOK_AS) ? expect(p, TOK_NAME)->sval : name;
		bool rel = sb.len > 0 && sb.data[sb.len - 1] == '.';
		const char *path = strcmp(name, "*") == 0 ? arena_strdup(p->a, sb_str(&sb)) :
				   arena_printf(p->a, "%s%s%s", sb_str(&sb), rel ? "" : ".", name ? name : "");
		if (!path)
			out_of_memory(p);
		else
			add_import(p, s, t->loc, alias, path);
	} while (accept(p, TOK_COMMA));
	if (paren)
		expect(p, TOK_RPAREN);
	if (sb.failed)
		out_of_memory(p);
	sb_free(&sb);
	return s;
}

static ast_node *parse_names_stmt(parser *p, ast_kind kind)
{
	ast_node *s = node(p, kind, advance(p)->loc);
	do {
		const char *name = expect(p, TOK_NAME)->sval;
		if (grow(p, (void **)&s->names.names, s->names.n, sizeof *s->names.names))
			s->names.names[s->names.n++] = name;
	} while (accept(p, TOK_COMMA));
	return s;
}

static bool at_stmt_end(parser *p)
{
	tok_kind k = peek(p);
	return k == TOK_NEWLINE || k == TOK_SEMI || k == TOK_EOF;
}

static ast_node *parse_simple_stmt(parser *p)
{
	tok *t = cur(p);
	ast_node *s;
	switch (t->kind) {
	case TOK_PASS: advance(p); return node(p, AST_PASS, t->loc);
	case TOK_BREAK: advance(p); return node(p, AST_BREAK, t->loc);
	case TOK_CONTINUE: advance(p); return node(p, AST_CONTINUE, t->loc);
	case TOK_RETURN:
		advance(p);
		s = node(p, AST_RETURN, t->loc);
		if (!at_stmt_end(p))
			s->unary.operand = parse_star_exprs(p, false);
		return s;
	case TOK_ASSERT:
		advance(p);
		s = node(p, AST_ASSERT, t->loc);
		s->assert_.cond = parse_expr(p);
		if (accept(p, TOK_COMMA))
			s->assert_.msg = parse_expr(p);
		return s;
	case TOK_RAISE:
		advance(p);
		s = node(p, AST_RAISE, t->loc);
		if (!at_stmt_end(p)) {
			s->binary.left = parse_expr(p);
			if (accept(p, TOK_FROM))
				s->binary.right = parse_expr(p);
		}
		return s;
	case TOK_DEL:
		advance(p);
		s = node(p, AST_DEL, t->loc);
		do
			list_push(p, &s->seq.items, parse_bitor(p));
		while (accept(p, TOK_COMMA) && !at_stmt_end(p));
		return s;
	case TOK_GLOBAL: return parse_names_stmt(p, AST_GLOBAL);
	case TOK_NONLOCAL: return parse_names_stmt(p, AST_NONLOCAL);
	case TOK_IMPORT: return parse_import(p);
	case TOK_FROM: return parse_import_from(p);
	default: return parse_expr_stmt(p);
	}
}

static void parse_simple_stmts(parser *p, ast_list *out)
{
	do {
		if (at_stmt_end(p))
			break;
		list_push(p, out, parse_simple_stmt(p));
	} while (accept(p, TOK_SEMI));
	if (!accept(p, TOK_NEWLINE) && peek(p) != TOK_EOF)
		expected(p, "end of statement");
}

/* ---- module-level bookkeeping ---- */

/* The dotted path a decorator names, with its first name resolved through
 * the imports seen so far: `tr.jit` after `import triton as tr` is
 * "triton.jit". NULL when it is not a dotted name. */
static const char *resolve_decorator(parser *p, const ast_node *d)
{
	if (d->kind == AST_CALL)
		d = d->call.func;
	const char *parts[16];
	int n = 0;
	for (; d->kind == AST_ATTR && n < 15; d = d->attr.value)
		parts[n++] = d->attr.name;
	if (d->kind != AST_NAME)
		return NULL;
	const char *root = d->name.id;
	bool found = false;
	/* a def's own imports hide the module's (triton imported in a factory) */
	for (const ast_func *f = p->frame; f && !found; f = f->outer)
		for (int i = f->nimports - 1; i >= 0 && !found; i--)
			if (strcmp(f->imports[i].alias, root) == 0) {
				root = f->imports[i].path;
				found = true;
			}
	for (int i = p->m->nimports - 1; i >= 0 && !found; i--)
		if (strcmp(p->m->imports[i].alias, root) == 0) {
			root = p->m->imports[i].path;
			found = true;
		}
	strbuf sb;
	sb_init(&sb);
	sb_puts(&sb, root);
	while (n > 0) {
		sb_putc(&sb, '.');
		sb_puts(&sb, parts[--n]);
	}
	const char *s = arena_strndup(p->a, sb_str(&sb), sb.len);
	sb_free(&sb);
	return s;
}

static ast_deco_kind decorator_kind(parser *p, const ast_node *d)
{
	static const struct { const char *path; ast_deco_kind kind; } known[] = {
		{"triton.jit", AST_DECO_JIT}, {"triton.runtime.jit", AST_DECO_JIT},
		{"triton.runtime.jit.jit", AST_DECO_JIT}, {"jit", AST_DECO_JIT},
		{"triton.autotune", AST_DECO_AUTOTUNE}, {"triton.runtime.autotune", AST_DECO_AUTOTUNE},
		{"triton.runtime.autotuner.autotune", AST_DECO_AUTOTUNE},
		{"triton.heuristics", AST_DECO_HEURISTICS}, {"triton.runtime.heuristics", AST_DECO_HEURISTICS},
		{"triton.runtime.autotuner.heuristics", AST_DECO_HEURISTICS},
		{"triton.language.constexpr", AST_DECO_CONSTEXPR}, {"triton.language.core.constexpr", AST_DECO_CONSTEXPR},
		{"triton.constexpr_function", AST_DECO_CONSTEXPR},
		{"triton.language.constexpr_function", AST_DECO_CONSTEXPR},
		{"triton.language.core.constexpr_function", AST_DECO_CONSTEXPR},
		{"triton.runtime.jit.constexpr_function", AST_DECO_CONSTEXPR},
	};
	const char *path = resolve_decorator(p, d);
	if (!path)
		return AST_DECO_OTHER;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (strcmp(path, known[i].path) == 0)
			return known[i].kind;
		/* `from vllm.triton_utils import triton`: a project module that
		 * re-exports triton (its name ends in .triton) */
		size_t n = strlen(path), k = strlen(known[i].path);
		if (strncmp(known[i].path, "triton.", 7) == 0 && n > k && path[n - k - 1] == '.' &&
		    strcmp(path + n - k, known[i].path) == 0)
			return known[i].kind;
	}
	return AST_DECO_OTHER;
}

/* `k = triton.jit(f)`, `k = triton.jit(do_not_specialize=...)(f)`,
 * `k = triton.heuristics({...})(f)`, `k = triton.autotune(...)(f)`: a
 * decorator applied by hand after the def (unsloth writes kernels so).
 * The decorator expression is what `@` would have held; f is a
 * module-level def, plain or already wrapped. k names the result: a new
 * kernel when it differs from f. Returns whether s was such a statement. */
static bool record_late_decorator(parser *p, ast_node *s)
{
	ast_module *m = p->m;
	if (s->kind != AST_ASSIGN || s->assign.targets.n != 1 || s->assign.targets.items[0]->kind != AST_NAME)
		return false;
	ast_node *call = s->assign.value;
	if (call->kind != AST_CALL || call->call.args.n != 1 || call->call.kwargs.n ||
	    call->call.args.items[0]->kind != AST_NAME)
		return false;
	ast_node *deco = call->call.func;
	ast_deco_kind kind = decorator_kind(p, deco);
	if (kind == AST_DECO_OTHER || ((kind == AST_DECO_AUTOTUNE || kind == AST_DECO_HEURISTICS) && deco->kind != AST_CALL))
		return false;
	const char *target = s->assign.targets.items[0]->name.id, *wrapped = call->call.args.items[0]->name.id;
	ast_func *f = ast_find_func(m, wrapped);
	for (int i = p->ndefs - 1; i >= 0 && !f; i--)
		if (!strcmp(p->defs[i]->name, wrapped))
			f = p->defs[i];
	if (!f)
		return false;
	ast_func *g = f;
	if (strcmp(target, f->name) != 0 || !f->jit) {
		/* a kernel of its own: the plain def stays callable as host code */
		g = arena_alloc(p->a, sizeof *g);
		if (!g) {
			out_of_memory(p);
			return true;
		}
		*g = *f;
		g->name = target;
	}
	if (kind == AST_DECO_JIT && !g->jit)
		g->jit = deco;
	else if (kind == AST_DECO_AUTOTUNE && !g->autotune)
		g->autotune = deco;
	else if (kind == AST_DECO_HEURISTICS && !g->heuristics)
		g->heuristics = deco;
	if (g != f && g->jit && grow(p, (void **)&m->funcs, m->nfuncs, sizeof *m->funcs))
		m->funcs[m->nfuncs++] = g;
	else if (g != f && grow(p, (void **)&p->defs, p->ndefs, sizeof *p->defs))
		p->defs[p->ndefs++] = g; /* wrapped, not yet jit: k = triton.jit(k) may follow */
	return true;
}

/* Records what the front end needs from a module-level statement. */
static void record(parser *p, ast_node *s)
{
	ast_module *m = p->m;
	if (record_late_decorator(p, s))
		return;
	if (s->kind == AST_IMPORT || s->kind == AST_IMPORT_FROM) {
		for (int i = 0; i < s->import_.n; i++)
			if (grow(p, (void **)&m->imports, m->nimports, sizeof *m->imports)) {
				m->imports[m->nimports] = s->import_.names[i];
				m->imports[m->nimports++].group = p->blocks ? p->top : 0;
			}
	} else if ((s->kind == AST_ASSIGN && s->assign.targets.n == 1 && s->assign.targets.items[0]->kind == AST_NAME) ||
		   (s->kind == AST_ANNASSIGN && s->annassign.target->kind == AST_NAME && s->annassign.value)) {
		bool ann = s->kind == AST_ANNASSIGN;
		ast_node *target = ann ? s->annassign.target : s->assign.targets.items[0];
		if (grow(p, (void **)&m->globals, m->nglobals, sizeof *m->globals))
			m->globals[m->nglobals++] = (ast_global){target->loc, target->name.id,
								  ann ? s->annassign.annotation : NULL,
								  ann ? s->annassign.value : s->assign.value,
								  p->blocks ? p->top : 0, s};
	} else if (s->kind == AST_FUNCDEF && s->func->jit) {
		if (grow(p, (void **)&m->funcs, m->nfuncs, sizeof *m->funcs))
			m->funcs[m->nfuncs++] = s->func;
	} else if (s->kind == AST_FUNCDEF && s->func->name) {
		if (grow(p, (void **)&m->host_funcs, m->nhost_funcs, sizeof *m->host_funcs))
			m->host_funcs[m->nhost_funcs++] = s->func;
		if (grow(p, (void **)&p->defs, p->ndefs, sizeof *p->defs))
			p->defs[p->ndefs++] = s->func;
	}
}

/* Records what the front end needs from a statement of the body of def
 * p->frame (l: the list that holds it): its imports, grouped by the
 * body's statement they are in, and a @jit def. */
static void record_local(parser *p, const ast_list *l, ast_node *s)
{
	ast_func *f = p->frame;
	if (s->kind == AST_IMPORT || s->kind == AST_IMPORT_FROM) {
		/* a compound statement is appended to the body once parsed */
		int group = l == &f->body ? 0 : f->body.n + 1;
		for (int i = 0; i < s->import_.n; i++)
			if (grow(p, (void **)&f->imports, f->nimports, sizeof *f->imports)) {
				f->imports[f->nimports] = s->import_.names[i];
				f->imports[f->nimports++].group = group;
			}
	} else if (s->kind == AST_FUNCDEF && s->func->jit) {
		ast_module *m = p->m;
		if (grow(p, (void **)&m->nested, m->nnested, sizeof *m->nested))
			m->nested[m->nnested++] = s->func;
	}
}

/* Records the statements of l from index n0 at module level, or in the
 * body of a def outside kernels. */
static void record_from(parser *p, ast_list *l, int n0)
{
	if (p->failed || p->in_kernel)
		return;
	for (int i = n0; i < l->n; i++)
		if (p->scope == 0)
			record(p, l->items[i]);
		else if (p->frame)
			record_local(p, l, l->items[i]);
}

/* ---- compound statements ---- */

static ast_node *parse_funcdef(parser *p, ast_list *decorators, bool is_async, src_loc loc)
{
	ast_func *f = arena_alloc(p->a, sizeof *f);
	ast_node *s = node(p, AST_FUNCDEF, loc);
	if (!f) {
		out_of_memory(p);
		return s;
	}
	s->func = f;
	f->decorators = *decorators;
	f->is_async = is_async;
	f->deco_kinds = arena_alloc(p->a, sizeof *f->deco_kinds * (size_t)(decorators->n + 1));
	if (!f->deco_kinds) {
		out_of_memory(p);
		return s;
	}
	bool outer_kernel = p->in_kernel;
	bool classify = (p->scope == 0 || p->frame) && !outer_kernel;
	for (int i = 0; i < decorators->n && classify && !p->failed; i++) {
		ast_node *d = decorators->items[i];
		ast_deco_kind k = f->deco_kinds[i] = decorator_kind(p, d);
		if (k == AST_DECO_JIT && !f->jit)
			f->jit = d;
		else if (k == AST_DECO_AUTOTUNE && !f->autotune && d->kind == AST_CALL)
			f->autotune = d;
		else if (k == AST_DECO_HEURISTICS && !f->heuristics && d->kind == AST_CALL)
			f->heuristics = d;
		else if (k == AST_DECO_CONSTEXPR)
			f->constexpr_fn = true;
	}
	f->outer = p->frame;
	tok *name = expect(p, TOK_NAME);
	f->loc = name->loc;
	f->name = name->sval ? name->sval : "";
	p->in_kernel = outer_kernel || f->jit;
	if (peek(p) == TOK_LBRACKET && !p->in_kernel) {
		/* PEP 695 type parameters: host code only */
		while (peek(p) != TOK_RBRACKET && peek(p) != TOK_EOF)
			advance(p);
		expect(p, TOK_RBRACKET);
	}
	expect(p, TOK_LPAREN);
	f->nparams = parse_params(p, &f->params, TOK_RPAREN, true);
	expect(p, TOK_RPAREN);
	if (accept(p, TOK_ARROW))
		f->returns = parse_expr(p);
	ast_func *frame = p->frame;
	p->frame = f;
	p->scope++;
	parse_block(p, &f->body);
	p->scope--;
	p->frame = frame;
	p->in_kernel = outer_kernel;
	return s;
}

static ast_node *parse_classdef(parser *p, ast_list *decorators, src_loc loc)
{
	ast_node *s = node(p, AST_CLASSDEF, loc);
	s->class_.decorators = *decorators;
	s->class_.name = expect(p, TOK_NAME)->sval;
	if (peek(p) == TOK_LBRACKET) {
		while (peek(p) != TOK_RBRACKET && peek(p) != TOK_EOF)
			advance(p);
		expect(p, TOK_RBRACKET);
	}
	if (peek(p) == TOK_LPAREN) {
		ast_node call = {.kind = AST_CALL};
		advance(p);
		parse_call_args(p, &call);
		s->class_.bases = call.call.args;
		s->class_.kwargs = call.call.kwargs;
	}
	/* a class body is no def's body: nothing in it is recorded */
	ast_func *frame = p->frame;
	p->frame = NULL;
	p->scope++;
	parse_block(p, &s->class_.body);
	p->scope--;
	p->frame = frame;
	return s;
}

static ast_node *parse_if(parser *p)
{
	ast_node *s = node(p, AST_IF, advance(p)->loc);
	s->if_.cond = parse_named(p);
	parse_block(p, &s->if_.body);
	if (peek(p) == TOK_ELIF) {
		/* an elif is an if nested in the else: the chain is bounded */
		if (++p->elifs > PARSE_MAX_DEPTH)
			error_at(p, cur(p)->loc, "if/elif chain of more than %d clauses", PARSE_MAX_DEPTH);
		else
			list_push(p, &s->if_.orelse, parse_if(p));
		p->elifs--;
	} else if (accept(p, TOK_ELSE))
		parse_block(p, &s->if_.orelse);
	return s;
}

static ast_node *parse_while(parser *p)
{
	ast_node *s = node(p, AST_WHILE, advance(p)->loc);
	s->while_.cond = parse_named(p);
	parse_block(p, &s->while_.body);
	if (accept(p, TOK_ELSE))
		parse_block(p, &s->while_.orelse);
	return s;
}

static ast_node *parse_for(parser *p, bool is_async, src_loc loc)
{
	ast_node *s = node(p, AST_FOR, loc);
	s->for_.is_async = is_async;
	expect(p, TOK_FOR);
	s->for_.target = parse_targets(p);
	check_target(p, s->for_.target);
	expect(p, TOK_IN);
	s->for_.iter = parse_star_exprs(p, false);
	parse_block(p, &s->for_.body);
	if (accept(p, TOK_ELSE))
		parse_block(p, &s->for_.orelse);
	return s;
}

static ast_node *parse_with_item(parser *p)
{
	ast_node *w = node(p, AST_WITH_ITEM, cur(p)->loc);
	w->binary.left = parse_expr(p);
	if (accept(p, TOK_AS)) {
		w->binary.right = parse_bitor(p);
		check_target(p, w->binary.right);
	}
	return w;
}

static ast_node *parse_with(parser *p, bool is_async, src_loc loc)
{
	ast_node *s = node(p, AST_WITH, loc);
	s->with_.is_async = is_async;
	expect(p, TOK_WITH);
	/* `with (a as b, c):` is a parenthesized item list only when ':'
	 * follows the ')'; otherwise '(' starts an expression. */
	if (peek(p) == TOK_LPAREN) {
		int from = p->pos;
		p->speculating++;
		advance(p);
		while (peek(p) != TOK_RPAREN && peek(p) != TOK_EOF) {
			list_push(p, &s->with_.items, parse_with_item(p));
			if (!accept(p, TOK_COMMA))
				break;
		}
		expect(p, TOK_RPAREN);
		if (peek(p) != TOK_COLON)
			expected(p, "':'");
		p->speculating--;
		if (!p->failed || p->fatal) {
			parse_block(p, &s->with_.body);
			return s;
		}
		p->failed = false;
		p->pos = from;
		s->with_.items.n = 0;
	}
	do
		list_push(p, &s->with_.items, parse_with_item(p));
	while (accept(p, TOK_COMMA));
	parse_block(p, &s->with_.body);
	return s;
}

static ast_node *parse_try(parser *p)
{
	ast_node *s = node(p, AST_TRY, advance(p)->loc);
	parse_block(p, &s->try_.body);
	while (peek(p) == TOK_EXCEPT) {
		ast_node *h = node(p, AST_EXCEPT, advance(p)->loc);
		accept(p, TOK_STAR);
		if (peek(p) != TOK_COLON) {
			h->except_.type = parse_star_exprs(p, false);
			if (accept(p, TOK_AS))
				h->except_.name = expect(p, TOK_NAME)->sval;
		}
		parse_block(p, &h->except_.body);
		list_push(p, &s->try_.handlers, h);
	}
	if (s->try_.handlers.n > 0 && accept(p, TOK_ELSE))
		parse_block(p, &s->try_.orelse);
	if (accept(p, TOK_FINALLY))
		parse_block(p, &s->try_.finalbody);
	if (s->try_.handlers.n == 0 && s->try_.finalbody.n == 0)
		expected(p, "'except' or 'finally' block");
	return s;
}

/* `match subject:` followed by an indented block of `case` clauses. */
static bool at_match(parser *p)
{
	if (!is_soft(p, 0, "match"))
		return false;
	int i = p->pos + 1;
	while (i < p->ntoks && p->toks[i].kind != TOK_NEWLINE && p->toks[i].kind != TOK_EOF)
		i++;
	return i + 2 < p->ntoks && p->toks[i - 1].kind == TOK_COLON && p->toks[i + 1].kind == TOK_INDENT &&
	       p->toks[i + 2].kind == TOK_NAME && strcmp(p->toks[i + 2].sval, "case") == 0;
}

/* `type X = ...` and `type X[T] = ...` (PEP 695). */
static bool at_type_alias(parser *p)
{
	return is_soft(p, 0, "type") && peek_at(p, 1) == TOK_NAME &&
	       (peek_at(p, 2) == TOK_ASSIGN || peek_at(p, 2) == TOK_LBRACKET);
}

static void parse_statement(parser *p, ast_list *out)
{
	tok *t = cur(p);
	int n0 = out->n;
	ast_list decorators = {0};
	bool is_async = false;
	ast_node *s = NULL;
	while (peek(p) == TOK_AT) {
		advance(p);
		list_push(p, &decorators, parse_named(p));
		expect(p, TOK_NEWLINE);
	}
	if (peek(p) == TOK_ASYNC) {
		advance(p);
		is_async = true;
		if (peek(p) != TOK_DEF && peek(p) != TOK_FOR && peek(p) != TOK_WITH)
			expected(p, "'def', 'for' or 'with' after 'async'");
	}
	if (decorators.n > 0 && peek(p) != TOK_DEF && peek(p) != TOK_CLASS)
		expected(p, "'def' or 'class' after a decorator");
	switch (peek(p)) {
	case TOK_DEF:
		advance(p);
		s = parse_funcdef(p, &decorators, is_async, t->loc);
		break;
	case TOK_CLASS:
		advance(p);
		s = parse_classdef(p, &decorators, t->loc);
		break;
	case TOK_IF: s = parse_if(p); break;
	case TOK_WHILE: s = parse_while(p); break;
	case TOK_FOR: s = parse_for(p, is_async, t->loc); break;
	case TOK_WITH: s = parse_with(p, is_async, t->loc); break;
	case TOK_TRY: s = parse_try(p); break;
	case TOK_INDENT:
		/* not Python at all, and no statement extent to skip */
		if (!p->failed)
			diag_error(p->ctx, t->loc, "unexpected indent");
		p->failed = p->fatal = true;
		return;
	default:
		if (at_match(p) || at_type_alias(p)) {
			int from = p->pos;
			skip_statement(p);
			s = skipped(p, from);
			break;
		}
		parse_simple_stmts(p, out);
		break;
	}
	if (s)
		list_push(p, out, s);
	record_from(p, out, n0);
}

tilec_status parse_module(tilec_ctx *ctx, arena *a, const src_file *file, ast_module **out)
{
	parser p = {.ctx = ctx, .a = a};
	tilec_status st = lex_file(ctx, a, file, &p.toks, &p.ntoks);
	if (st != TILEC_OK)
		return st;
	p.m = arena_alloc(a, sizeof *p.m);
	if (!p.m) {
		out_of_memory(&p);
		return TILEC_ERR_NOMEM;
	}
	p.m->file = file;
	while (peek(&p) != TOK_EOF) {
		p.top++;
		parse_statement_or_skip(&p, &p.m->body);
	}
	if (p.nomem)
		return TILEC_ERR_NOMEM;
	if (p.failed)
		return TILEC_ERR_SYNTAX;
	*out = p.m;
	return TILEC_OK;
}
