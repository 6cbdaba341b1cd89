/* lex.c - Python's lexical grammar, for whole files.
 *
 * One pass over the text produces the whole token array: the parser then
 * needs no lookahead buffer and can rewind (it does, to skip host
 * statements it cannot read). Logical lines follow Python's tokenizer:
 * NEWLINE ends a logical line only outside brackets, blank and comment-only
 * lines produce nothing, indentation is measured with tabs to multiples of
 * 8 and checked again with tabs as 1 column (Python's TabError), INDENT and
 * DEDENT come from a stack. Strings are decoded here (escapes, prefixes);
 * an f-string stays one token, scanned with a small state machine so that
 * nested quotes inside its replacement fields (Python 3.12) do not end it.
 * The first error stops the lexer: a file with a lexical error is not
 * Python, so nothing after it matters.
 */
#include "front/syntax.h"

#include <stdlib.h>
#include <string.h>

/* Python's own limits: deeper input is refused, which also bounds the
 * parser's recursion. */
#define LEX_MAX_INDENT 100
#define LEX_MAX_BRACKETS 200

typedef struct lexer {
	tilec_ctx *ctx;
	arena *a;
	const src_file *file;
	const char *p, *end, *line_start;
	int line;
	tok *toks;
	int n, cap;
	int indent[LEX_MAX_INDENT + 1], indent1[LEX_MAX_INDENT + 1]; /* tab = 8, tab = 1 */
	int nindent;
	char brackets[LEX_MAX_BRACKETS];
	src_loc bracket_loc[LEX_MAX_BRACKETS];
	int depth;
	bool failed;
} lexer;

static const char *const tok_names[] = {
#define LEX_NAME(k, s) s,
	LEX_TOKENS(LEX_NAME)
#undef LEX_NAME
};

const char *lex_kind_name(tok_kind k)
{
	return (unsigned)k < TOK_KIND_COUNT ? tok_names[k] : "?";
}

static src_loc loc_at(const lexer *lx, const char *p)
{
	return (src_loc){lx->file, lx->line, (int)(p - lx->line_start) + 1};
}

static void lex_error(lexer *lx, src_loc loc, const char *fmt, ...) TILE_PRINTF(3, 4);
static void lex_error(lexer *lx, src_loc loc, const char *fmt, ...)
{
	if (lx->failed)
		return;
	va_list ap;
	va_start(ap, fmt);
	diag_verror(lx->ctx, loc, "error", fmt, ap);
	va_end(ap);
	lx->ctx->errors++;
	lx->failed = true;
}

static void nomem(lexer *lx)
{
	lex_error(lx, (src_loc){0}, "out of memory");
}

static tok *push(lexer *lx, tok_kind kind, src_loc loc, const char *text, size_t len)
{
	if (lx->n == lx->cap) {
		/* about one token per 3 bytes of real code: usually one allocation */
		int cap = lx->cap ? lx->cap * 2 : (int)(lx->end - lx->file->text) / 3 + 64;
		tok *t = arena_realloc(lx->a, lx->toks, sizeof(tok) * (size_t)lx->cap, sizeof(tok) * (size_t)cap);
		if (!t) {
			nomem(lx);
			return NULL;
		}
		lx->toks = t;
		lx->cap = cap;
	}
	tok *t = &lx->toks[lx->n++];
	memset(t, 0, sizeof *t);
	t->kind = kind;
	t->loc = loc;
	t->text = text;
	t->len = (uint32_t)len;
	return t;
}

static bool is_ident_start(unsigned char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static bool is_ident_char(unsigned char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_newline(char c)
{
	return c == '\n' || c == '\r';
}

/* Consumes one physical line end at p ("\n", "\r\n" or "\r"). */
static void newline(lexer *lx)
{
	if (lx->p[0] == '\r' && lx->p + 1 < lx->end && lx->p[1] == '\n')
		lx->p++;
	lx->p++;
	lx->line++;
	lx->line_start = lx->p;
}

/* ---- keywords ---- */

/* Binary search: kws is in ASCII order. */
static tok_kind keyword(const char *s, size_t n)
{
	static const tok_kind kws[] = {
		TOK_FALSE, TOK_NONE, TOK_TRUE, TOK_AND, TOK_AS, TOK_ASSERT, TOK_ASYNC, TOK_AWAIT,
		TOK_BREAK, TOK_CLASS, TOK_CONTINUE, TOK_DEF, TOK_DEL, TOK_ELIF, TOK_ELSE,
		TOK_EXCEPT, TOK_FINALLY, TOK_FOR, TOK_FROM, TOK_GLOBAL, TOK_IF, TOK_IMPORT,
		TOK_IN, TOK_IS, TOK_LAMBDA, TOK_NONLOCAL, TOK_NOT, TOK_OR, TOK_PASS, TOK_RAISE,
		TOK_RETURN, TOK_TRY, TOK_WHILE, TOK_WITH, TOK_YIELD,
	};
	if (n < 2 || n > 8)
		return TOK_NAME;
	size_t lo = 0, hi = sizeof kws / sizeof kws[0];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *k = tok_names[kws[mid]];
		int cmp = strncmp(s, k, n);
		if (cmp == 0 && k[n] != 0)
			cmp = -1; /* s is a proper prefix of k */
		if (cmp == 0)
			return kws[mid];
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return TOK_NAME;
}

/* ---- numbers ---- */

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Scans digits of the base with single `_` between digits; `lead_us`
 * allows one `_` before the first digit (after 0x). Returns the number of
 * digits, -1 after reporting a misplaced `_`. */
static int scan_digits(lexer *lx, int base, bool lead_us, const char *kind)
{
	int ndigits = 0;
	for (;;) {
		const char *p = lx->p;
		if (*p == '_' && (ndigits > 0 || lead_us)) {
			if (lx->p + 1 >= lx->end || digit_value(p[1]) >= base) {
				lex_error(lx, loc_at(lx, p), "invalid %s literal", kind);
				return -1;
			}
			lx->p++;
			lead_us = false;
			continue;
		}
		if (p < lx->end && digit_value(*p) < base) {
			lx->p++;
			ndigits++;
			continue;
		}
		return ndigits;
	}
}

/* Python allows a keyword right after a number (`1if x else 2`); any other
 * identifier character there is an error. */
static bool number_end_ok(const lexer *lx)
{
	static const char *const after[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
	const char *p = lx->p;
	if (p >= lx->end || !is_ident_char((unsigned char)*p))
		return true;
	for (size_t i = 0; i < sizeof after / sizeof after[0]; i++)
		if (strncmp(p, after[i], strlen(after[i])) == 0)
			return true;
	return false;
}

/* A copy of the literal without `_`, for strtod. */
static double parse_float(lexer *lx, const char *s, size_t n)
{
	char buf[128], *b = n < sizeof buf ? buf : arena_alloc(lx->a, n + 1);
	if (!b) {
		nomem(lx);
		return 0;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] != '_' && s[i] != 'j' && s[i] != 'J')
			b[k++] = s[i];
	b[k] = 0;
	return strtod(b, NULL);
}

static void lex_number(lexer *lx)
{
	const char *start = lx->p;
	src_loc loc = loc_at(lx, start);
	int base = 10;
	const char *kind = "decimal";
	bool is_float = false;
	if (start[0] == '0' && start + 1 < lx->end && start[1] && strchr("xXoObB", start[1])) {
		char c = (char)(start[1] | 0x20);
		base = c == 'x' ? 16 : c == 'o' ? 8 : 2;
		kind = c == 'x' ? "hexadecimal" : c == 'o' ? "octal" : "binary";
		lx->p += 2;
		int nd = scan_digits(lx, base, true, kind);
		if (nd < 0)
			return;
		if (nd == 0 || (lx->p < lx->end && digit_value(*lx->p) < 10)) {
			lex_error(lx, loc_at(lx, lx->p), "invalid %s literal", kind);
			return;
		}
	} else {
		if (scan_digits(lx, 10, false, kind) < 0)
			return;
		if (lx->p < lx->end && *lx->p == '.') {
			lx->p++;
			is_float = true;
			if (lx->p < lx->end && *lx->p >= '0' && *lx->p <= '9' && scan_digits(lx, 10, false, kind) < 0)
				return;
		}
		if (lx->p < lx->end && (*lx->p == 'e' || *lx->p == 'E')) {
			const char *e = lx->p + 1;
			if (e < lx->end && (*e == '+' || *e == '-'))
				e++;
			if (e < lx->end && *e >= '0' && *e <= '9') {
				lx->p = e;
				is_float = true;
				if (scan_digits(lx, 10, false, kind) < 0)
					return;
			} else {
				lex_error(lx, loc_at(lx, lx->p), "invalid float literal: exponent has no digits");
				return;
			}
		}
	}
	bool imag = base == 10 && lx->p < lx->end && (*lx->p == 'j' || *lx->p == 'J');
	if (imag)
		lx->p++;
	if (!number_end_ok(lx)) {
		lex_error(lx, loc_at(lx, lx->p), "invalid %s literal", imag ? "imaginary" : is_float ? "float" : kind);
		return;
	}
	size_t len = (size_t)(lx->p - start);
	tok *t = push(lx, imag ? TOK_IMAG : is_float ? TOK_FLOAT : TOK_INT, loc, start, len);
	if (!t)
		return;
	if (imag || is_float) {
		t->fval = parse_float(lx, start, len);
		return;
	}
	const char *d = base == 10 ? start : start + 2;
	if (base == 10 && start[0] == '0') {
		for (const char *q = start; q < lx->p; q++)
			if (*q != '0' && *q != '_') {
				lex_error(lx, loc, "leading zeros in decimal integer literals are not permitted; "
					  "use an 0o prefix for octal integers");
				return;
			}
	}
	for (; d < lx->p; d++) {
		if (*d == '_')
			continue;
		uint64_t v = (uint64_t)digit_value(*d);
		if (t->ival > (UINT64_MAX - v) / (uint64_t)base)
			t->big = true;
		t->ival = t->ival * (uint64_t)base + v;
	}
}

/* ---- strings ---- */

static void put_utf8(strbuf *sb, uint32_t c)
{
	if (c < 0x80) {
		sb_putc(sb, (char)c);
	} else if (c < 0x800) {
		sb_putc(sb, (char)(0xc0 | (c >> 6)));
		sb_putc(sb, (char)(0x80 | (c & 0x3f)));
	} else if (c < 0x10000) {
		sb_putc(sb, (char)(0xe0 | (c >> 12)));
		sb_putc(sb, (char)(0x80 | ((c >> 6) & 0x3f)));
		sb_putc(sb, (char)(0x80 | (c & 0x3f)));
	} else {
		sb_putc(sb, (char)(0xf0 | (c >> 18)));
		sb_putc(sb, (char)(0x80 | ((c >> 12) & 0x3f)));
		sb_putc(sb, (char)(0x80 | ((c >> 6) & 0x3f)));
		sb_putc(sb, (char)(0x80 | (c & 0x3f)));
	}
}

/* Decodes the escape at s (just after the backslash) into sb; returns the
 * characters consumed, 0 after reporting an error. */
static size_t decode_escape(lexer *lx, strbuf *sb, const char *s, const char *end, bool bytes, src_loc loc)
{
	static const char simple[] = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
	for (const char *m = simple; *m; m += 2)
		if (*s == m[0]) {
			sb_putc(sb, m[1]);
			return 1;
		}
	if (*s >= '0' && *s <= '7') {
		unsigned v = 0;
		size_t i = 0;
		while (i < 3 && s + i < end && s[i] >= '0' && s[i] <= '7')
			v = v * 8 + (unsigned)(s[i++] - '0');
		if (bytes)
			sb_putc(sb, (char)(v & 0xff));
		else
			put_utf8(sb, v);
		return i;
	}
	size_t want = *s == 'x' ? 2 : (*s == 'u' && !bytes) ? 4 : (*s == 'U' && !bytes) ? 8 : 0;
	if (want) {
		uint32_t v = 0;
		for (size_t i = 1; i <= want; i++) {
			if (s + i >= end || digit_value(s[i]) > 15) {
				lex_error(lx, loc, "truncated \\%c escape in string literal", *s);
				return 0;
			}
			v = v * 16 + (uint32_t)digit_value(s[i]);
		}
		if (v > 0x10ffff) {
			lex_error(lx, loc, "illegal Unicode character in string literal");
			return 0;
		}
		if (bytes)
			sb_putc(sb, (char)v);
		else
			put_utf8(sb, v);
		return want + 1;
	}
	/* \N{name} needs the Unicode name table and unknown escapes stay as
	 * written, as Python keeps them. */
	sb_putc(sb, '\\');
	sb_putc(sb, *s);
	return 1;
}

/* Skips one f-string replacement field body starting after its `{`, up to
 * and including the matching `}`; nested strings and format specs with
 * their own fields are followed. Returns false at the end of the string's
 * line (single-quoted) or file. */
static bool skip_fstring_field(lexer *lx, const char *end)
{
	int depth = 0;       /* brackets inside the expression */
	bool spec = false;   /* in the format spec after `:` */
	const char *p = lx->p;
	while (p < end) {
		char c = *p;
		if (spec) {
			if (c == '{') {
				lx->p = p + 1;
				if (!skip_fstring_field(lx, end))
					return false;
				p = lx->p;
				continue;
			}
			if (c == '}') {
				lx->p = p + 1;
				return true;
			}
		} else if (c == '\'' || c == '"') {
			/* a nested string: same-quote nesting is valid since 3.12 */
			char q = c;
			bool triple = p + 2 < end && p[1] == q && p[2] == q;
			p += triple ? 3 : 1;
			while (p < end && !(*p == q && (!triple || (p + 2 < end && p[1] == q && p[2] == q)))) {
				if (*p == '\\' && p + 1 < end && !is_newline(p[1]))
					p++;
				if (is_newline(*p)) {
					lx->p = p;
					newline(lx);
					p = lx->p;
				} else {
					p++;
				}
			}
			if (p >= end)
				return false;
			p += triple ? 3 : 1;
			continue;
		} else if (c == '(' || c == '[' || c == '{') {
			depth++;
		} else if (c == ')' || c == ']') {
			depth--;
		} else if (c == '}') {
			if (depth == 0) {
				lx->p = p + 1;
				return true;
			}
			depth--;
		} else if (c == ':' && depth == 0) {
			spec = true;
		} else if (c == '!' && depth == 0 && p + 1 < end && p[1] == '=') {
			p++;
		}
		if (c == '\n' || c == '\r') {
			lx->p = p;
			newline(lx);
			p = lx->p;
			continue;
		}
		p++;
	}
	lx->p = p;
	return false;
}

static void lex_string(lexer *lx, const char *start, unsigned flags)
{
	src_loc loc = loc_at(lx, start);
	char q = *lx->p;
	bool triple = lx->p + 2 < lx->end && lx->p[1] == q && lx->p[2] == q;
	lx->p += triple ? 3 : 1;
	const char *body = lx->p;
	bool bytes = flags & TOKF_BYTES, raw = flags & TOKF_RAW, fstr = flags & TOKF_FSTRING;
	strbuf sb;
	sb_init(&sb);
	for (;;) {
		if (lx->p >= lx->end || (!triple && is_newline(*lx->p))) {
			lex_error(lx, loc, "unterminated %sstring literal (detected at line %d)",
				  triple ? "triple-quoted " : "", lx->line);
			break;
		}
		const char *p = lx->p;
		char c = *p;
		if (c == q && (!triple || (p + 2 < lx->end && p[1] == q && p[2] == q))) {
			tok *t = push(lx, TOK_STRING, loc, start, (size_t)(p + (triple ? 3 : 1) - start));
			lx->p = p + (triple ? 3 : 1);
			if (!t)
				break;
			t->flags = (uint8_t)flags;
			if (fstr) {
				t->sval = arena_strndup(lx->a, body, (size_t)(p - body));
				t->slen = (size_t)(p - body);
			} else {
				t->sval = arena_strndup(lx->a, sb_str(&sb), sb.len);
				t->slen = sb.len;
			}
			if (!t->sval || sb.failed)
				nomem(lx);
			break;
		}
		if (bytes && (unsigned char)c >= 0x80) {
			lex_error(lx, loc_at(lx, p), "bytes can only contain ASCII literal characters");
			break;
		}
		if (is_newline(c)) {
			newline(lx);
			sb_putc(&sb, '\n');
			continue;
		}
		if (fstr && c == '{') {
			if (p + 1 < lx->end && p[1] == '{') {
				lx->p += 2;
				continue;
			}
			lx->p++;
			if (!skip_fstring_field(lx, lx->end)) {
				lex_error(lx, loc, "unterminated f-string (detected at line %d)", lx->line);
				break;
			}
			continue;
		}
		if (c == '\\' && p + 1 < lx->end) {
			if (is_newline(p[1])) {
				/* backslash-newline: a line continuation inside the literal */
				lx->p++;
				if (raw || fstr) {
					sb_putc(&sb, '\\');
					sb_putc(&sb, '\n');
				}
				newline(lx);
				continue;
			}
			if (raw || fstr) {
				sb_putn(&sb, p, 2);
				lx->p += 2;
				continue;
			}
			size_t used = decode_escape(lx, &sb, p + 1, lx->end, bytes, loc_at(lx, p));
			if (!used)
				break;
			lx->p += 1 + used;
			continue;
		}
		sb_putc(&sb, c);
		lx->p++;
	}
	sb_free(&sb);
}

/* A string prefix (r, b, u, f, t and their valid pairs, any case) right
 * before a quote; returns its TOKF_* flags, -1 when it is not one. */
static int string_prefix(const char *s, size_t n)
{
	unsigned flags = 0;
	bool u = false;
	if (n > 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned f;
		switch (s[i] | 0x20) {
		case 'r': f = TOKF_RAW; break;
		case 'b': f = TOKF_BYTES; break;
		case 'f': case 't': f = TOKF_FSTRING; break;
		case 'u': u = true; f = 0; break;
		default: return -1;
		}
		if (flags & f)
			return -1;
		flags |= f;
	}
	/* u combines with nothing; b and f exclude each other */
	if ((u && n != 1) || ((flags & TOKF_BYTES) && (flags & TOKF_FSTRING)))
		return -1;
	return (int)flags;
}

/* ---- operators ---- */

/* `X` or `X=` */
static int with_eq(char c1, tok_kind *k, tok_kind plain, tok_kind assign)
{
	*k = c1 == '=' ? assign : plain;
	return c1 == '=' ? 2 : 1;
}

/* `X`, `X=`, `XX` or `XX=` */
static int doubled(char c0, char c1, char c2, tok_kind *k, tok_kind one, tok_kind one_eq, tok_kind two,
		   tok_kind two_eq)
{
	if (c1 == c0)
		return 1 + with_eq(c2, k, two, two_eq);
	return with_eq(c1, k, one, one_eq);
}

/* The operator or delimiter at p (NUL-terminated text): its kind and
 * length, 0 when there is none. */
static int match_op(const char *p, tok_kind *k)
{
	char c0 = p[0], c1 = c0 ? p[1] : 0, c2 = c1 ? p[2] : 0;
	switch (c0) {
	case '(': *k = TOK_LPAREN; return 1;
	case ')': *k = TOK_RPAREN; return 1;
	case '[': *k = TOK_LBRACKET; return 1;
	case ']': *k = TOK_RBRACKET; return 1;
	case '{': *k = TOK_LBRACE; return 1;
	case '}': *k = TOK_RBRACE; return 1;
	case ',': *k = TOK_COMMA; return 1;
	case ';': *k = TOK_SEMI; return 1;
	case '~': *k = TOK_TILDE; return 1;
	case ':': return with_eq(c1, k, TOK_COLON, TOK_WALRUS);
	case '=': return with_eq(c1, k, TOK_ASSIGN, TOK_EQ);
	case '+': return with_eq(c1, k, TOK_PLUS, TOK_PLUS_ASSIGN);
	case '%': return with_eq(c1, k, TOK_PERCENT, TOK_PERCENT_ASSIGN);
	case '&': return with_eq(c1, k, TOK_AMP, TOK_AMP_ASSIGN);
	case '|': return with_eq(c1, k, TOK_PIPE, TOK_PIPE_ASSIGN);
	case '^': return with_eq(c1, k, TOK_CARET, TOK_CARET_ASSIGN);
	case '@': return with_eq(c1, k, TOK_AT, TOK_AT_ASSIGN);
	case '!':
		*k = TOK_NE;
		return c1 == '=' ? 2 : 0;
	case '.':
		*k = c1 == '.' && c2 == '.' ? TOK_ELLIPSIS : TOK_DOT;
		return *k == TOK_ELLIPSIS ? 3 : 1;
	case '-':
		if (c1 == '>') {
			*k = TOK_ARROW;
			return 2;
		}
		return with_eq(c1, k, TOK_MINUS, TOK_MINUS_ASSIGN);
	case '*': return doubled(c0, c1, c2, k, TOK_STAR, TOK_STAR_ASSIGN, TOK_DSTAR, TOK_DSTAR_ASSIGN);
	case '/': return doubled(c0, c1, c2, k, TOK_SLASH, TOK_SLASH_ASSIGN, TOK_DSLASH, TOK_DSLASH_ASSIGN);
	case '<': return doubled(c0, c1, c2, k, TOK_LT, TOK_LE, TOK_LSHIFT, TOK_LSHIFT_ASSIGN);
	case '>': return doubled(c0, c1, c2, k, TOK_GT, TOK_GE, TOK_RSHIFT, TOK_RSHIFT_ASSIGN);
	default: return 0;
	}
}

static void bracket(lexer *lx, tok_kind k, src_loc loc)
{
	static const char open[] = "([{", close[] = ")]}";
	char c = k == TOK_LPAREN ? '(' : k == TOK_LBRACKET ? '[' : k == TOK_LBRACE ? '{' :
		 k == TOK_RPAREN ? ')' : k == TOK_RBRACKET ? ']' : k == TOK_RBRACE ? '}' : 0;
	if (!c)
		return;
	if (strchr(open, c)) {
		if (lx->depth == LEX_MAX_BRACKETS) {
			lex_error(lx, loc, "too many nested parentheses");
			return;
		}
		lx->bracket_loc[lx->depth] = loc;
		lx->brackets[lx->depth++] = c;
		return;
	}
	if (lx->depth == 0) {
		lex_error(lx, loc, "unmatched '%c'", c);
		return;
	}
	char o = lx->brackets[lx->depth - 1];
	if (strchr(close, c) - close != strchr(open, o) - open) {
		if (lx->bracket_loc[lx->depth - 1].line != loc.line)
			lex_error(lx, loc, "closing parenthesis '%c' does not match opening parenthesis '%c' on line %d",
				  c, o, lx->bracket_loc[lx->depth - 1].line);
		else
			lex_error(lx, loc, "closing parenthesis '%c' does not match opening parenthesis '%c'", c, o);
		return;
	}
	lx->depth--;
}

/* ---- lines and indentation ---- */

/* At the start of a line outside brackets: skips blank and comment-only
 * lines, then emits INDENT or DEDENTs for the first line with content. */
static void line_start(lexer *lx)
{
	for (;;) {
		int col = 0, col1 = 0;
		while (lx->p < lx->end) {
			char c = *lx->p;
			if (c == ' ') {
				col++, col1++;
			} else if (c == '\t') {
				col = (col / 8 + 1) * 8;
				col1++;
			} else if (c == '\f') {
				col = col1 = 0;
			} else {
				break;
			}
			lx->p++;
		}
		if (lx->p >= lx->end)
			return;
		if (*lx->p == '#') {
			while (lx->p < lx->end && !is_newline(*lx->p))
				lx->p++;
		}
		if (lx->p < lx->end && is_newline(*lx->p)) {
			newline(lx);
			continue;
		}
		if (lx->p >= lx->end)
			return;
		src_loc loc = loc_at(lx, lx->p);
		int top = lx->indent[lx->nindent], top1 = lx->indent1[lx->nindent];
		if (col == top) {
			if (col1 != top1)
				lex_error(lx, loc, "inconsistent use of tabs and spaces in indentation");
		} else if (col > top) {
			if (lx->nindent == LEX_MAX_INDENT) {
				lex_error(lx, loc, "too many levels of indentation");
				return;
			}
			if (col1 <= top1) {
				lex_error(lx, loc, "inconsistent use of tabs and spaces in indentation");
				return;
			}
			lx->nindent++;
			lx->indent[lx->nindent] = col;
			lx->indent1[lx->nindent] = col1;
			push(lx, TOK_INDENT, loc, lx->p, 0);
		} else {
			while (lx->nindent > 0 && col < lx->indent[lx->nindent]) {
				lx->nindent--;
				push(lx, TOK_DEDENT, loc, lx->p, 0);
			}
			if (col != lx->indent[lx->nindent])
				lex_error(lx, loc, "unindent does not match any outer indentation level");
			else if (col1 != lx->indent1[lx->nindent])
				lex_error(lx, loc, "inconsistent use of tabs and spaces in indentation");
		}
		return;
	}
}

static void end_line(lexer *lx, src_loc loc)
{
	if (lx->n > 0 && lx->toks[lx->n - 1].kind != TOK_NEWLINE)
		push(lx, TOK_NEWLINE, loc, lx->p, 0);
}

static void lex_name(lexer *lx)
{
	const char *start = lx->p;
	while (lx->p < lx->end && is_ident_char((unsigned char)*lx->p))
		lx->p++;
	size_t n = (size_t)(lx->p - start);
	if (lx->p < lx->end && (*lx->p == '\'' || *lx->p == '"')) {
		int flags = string_prefix(start, n);
		if (flags >= 0) {
			lx->p = start + n;
			lex_string(lx, start, (unsigned)flags);
			return;
		}
	}
	tok *t = push(lx, keyword(start, n), loc_at(lx, start), start, n);
	if (t && t->kind == TOK_NAME && !(t->sval = arena_strndup(lx->a, start, n)))
		nomem(lx);
}

tilec_status lex_file(tilec_ctx *ctx, arena *a, const src_file *file, tok **out, int *ntoks)
{
	lexer lx = {.ctx = ctx, .a = a, .file = file, .p = file->text, .end = file->text + file->len,
		    .line_start = file->text, .line = 1};
	bool at_line_start = true;
	/* a UTF-8 byte order mark is not part of the text */
	if (file->len >= 3 && memcmp(file->text, "\xef\xbb\xbf", 3) == 0)
		lx.p += 3, lx.line_start += 3;
	while (!lx.failed) {
		if (at_line_start && lx.depth == 0)
			line_start(&lx);
		at_line_start = false;
		while (lx.p < lx.end && (*lx.p == ' ' || *lx.p == '\t' || *lx.p == '\f'))
			lx.p++;
		if (lx.p >= lx.end || lx.failed)
			break;
		const char *p = lx.p;
		unsigned char c = (unsigned char)*p;
		if (c == '#') {
			while (lx.p < lx.end && !is_newline(*lx.p))
				lx.p++;
		} else if (is_newline((char)c)) {
			if (lx.depth == 0) {
				end_line(&lx, loc_at(&lx, p));
				at_line_start = true;
			}
			newline(&lx);
		} else if (c == '\\') {
			lx.p++;
			if (lx.p >= lx.end)
				lex_error(&lx, loc_at(&lx, p), "unexpected end of file after line continuation character");
			else if (!is_newline(*lx.p))
				lex_error(&lx, loc_at(&lx, p), "unexpected character after line continuation character");
			else
				newline(&lx);
		} else if ((c >= '0' && c <= '9') || (c == '.' && p + 1 < lx.end && p[1] >= '0' && p[1] <= '9')) {
			lex_number(&lx);
		} else if (is_ident_start(c)) {
			lex_name(&lx);
		} else if (c == '\'' || c == '"') {
			lex_string(&lx, p, 0);
		} else if (c == 0) {
			lex_error(&lx, loc_at(&lx, p), "source code cannot contain null bytes");
		} else {
			tok_kind k;
			int n = match_op(p, &k);
			if (n == 0) {
				if (c >= 0x20 && c < 0x7f)
					lex_error(&lx, loc_at(&lx, p), "invalid character '%c'", c);
				else
					lex_error(&lx, loc_at(&lx, p), "invalid non-printable character U+%04X", c);
				break;
			}
			src_loc loc = loc_at(&lx, p);
			lx.p += n;
			push(&lx, k, loc, p, (size_t)n);
			bracket(&lx, k, loc);
		}
	}
	if (!lx.failed && lx.depth > 0)
		lex_error(&lx, lx.bracket_loc[lx.depth - 1], "'%c' was never closed", lx.brackets[lx.depth - 1]);
	if (lx.failed)
		return TILEC_ERR_SYNTAX;
	src_loc eof = loc_at(&lx, lx.p);
	end_line(&lx, eof);
	while (lx.nindent > 0) {
		lx.nindent--;
		push(&lx, TOK_DEDENT, eof, lx.p, 0);
	}
	/* a parser that failed reads EOF from then on: give it a name too */
	tok *t = push(&lx, TOK_EOF, eof, lx.p, 0);
	if (t)
		t->sval = "";
	if (lx.failed)
		return TILEC_ERR_NOMEM;
	*out = lx.toks;
	*ntoks = lx.n;
	return TILEC_OK;
}
