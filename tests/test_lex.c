/* test_lex.c - the tokenizer on tricky inputs: indentation, line joining,
 * strings, numbers, operators, and every lexical error with its location. */
#include "front/syntax.h"
#include "check.h"

#include <stdlib.h>

/* The tokens of src as one line: names and operators as written, INT as
 * its value, FLOAT as %g, STRING as s"decoded" (f"..." / b"..."), NEWLINE
 * as ';', INDENT '>', DEDENT '<', EOF '$'. On a lexical error: the
 * diagnostics. */
static char *tokens(const char *src)
{
	src_file f = {"t.py", src, strlen(src)};
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	tok *t;
	int n;
	strbuf sb;
	sb_init(&sb);
	if (lex_file(ctx, a, &f, &t, &n) != TILEC_OK) {
		sb_puts(&sb, tilec_diagnostics(ctx));
	} else {
		for (int i = 0; i < n; i++) {
			if (i)
				sb_putc(&sb, ' ');
			switch (t[i].kind) {
			case TOK_NEWLINE: sb_putc(&sb, ';'); break;
			case TOK_INDENT: sb_putc(&sb, '>'); break;
			case TOK_DEDENT: sb_putc(&sb, '<'); break;
			case TOK_EOF: sb_putc(&sb, '$'); break;
			case TOK_INT:
				if (t[i].big)
					sb_puts(&sb, "BIG");
				else
					sb_printf(&sb, "%llu", (unsigned long long)t[i].ival);
				break;
			case TOK_FLOAT: sb_printf(&sb, "%gf", t[i].fval); break;
			case TOK_IMAG: sb_printf(&sb, "%gj", t[i].fval); break;
			case TOK_STRING:
				sb_printf(&sb, "%s\"", t[i].flags & TOKF_FSTRING ? "f" : t[i].flags & TOKF_BYTES ? "b" : "s");
				for (size_t k = 0; k < t[i].slen; k++) {
					unsigned char c = (unsigned char)t[i].sval[k];
					if (c < 0x20 || c >= 0x7f)
						sb_printf(&sb, "<%02x>", c);
					else
						sb_putc(&sb, (char)c);
				}
				sb_putc(&sb, '"');
				break;
			default: sb_putn(&sb, t[i].text, t[i].len); break;
			}
		}
	}
	char *s = strdup(sb_str(&sb));
	sb_free(&sb);
	arena_free(a);
	tilec_ctx_free(ctx);
	return s;
}

#define TOKS(src, want) \
	do { \
		char *got_ = tokens(src); \
		if (!check_at(strcmp(got_, want) == 0, "tokens of " #src, __FILE__, __LINE__)) \
			fprintf(stderr, "    got:  %s\n    want: %s\n", got_, want); \
		free(got_); \
	} while (0)

/* The first line of the diagnostics for src. */
#define LEX_ERROR(src, want) \
	do { \
		char *got_ = tokens(src); \
		char *nl_ = strchr(got_, '\n'); \
		if (nl_) \
			*nl_ = 0; \
		if (!check_at(strcmp(got_, want) == 0, "error for " #src, __FILE__, __LINE__)) \
			fprintf(stderr, "    got:  %s\n    want: %s\n", got_, want); \
		free(got_); \
	} while (0)

static void test_lines(void)
{
	TOKS("", "$");
	TOKS("x", "x ; $");
	TOKS("\n\n  # only a comment\n\n", "$");
	TOKS("if x:\n    y\n  \n# c\n    z\nw\n", "if x : ; > y ; z ; < w ; $");
	TOKS("a:\n b:\n  c\nd", "a : ; > b : ; > c ; < < d ; $");
	TOKS("a:\n  b:\n    c\n", "a : ; > b : ; > c ; < < $");
	TOKS("if x:\n\ty\n\tz\n", "if x : ; > y ; z ; < $");
	TOKS("f(a,\n      b,\n\n  # c\n c)\nx", "f ( a , b , c ) ; x ; $");
	TOKS("x = [1,\n2]  # tail\n", "x = [ 1 , 2 ] ; $");
	TOKS("x = 1 + \\\n    2\ny", "x = 1 + 2 ; y ; $");
	TOKS("a\r\nb\r\n  \r\nc\rd", "a ; b ; c ; d ; $");
	TOKS("x = 1; y = 2;\n", "x = 1 ; y = 2 ; ; $");
	TOKS("\xef\xbb\xbfx\n", "x ; $");
	TOKS("\fx\n", "x ; $");
	TOKS("class A:\n    def f(self):\n        return 1\n\n\n    x = 2\n",
	     "class A : ; > def f ( self ) : ; > return 1 ; < x = 2 ; < $");
}

static void test_operators(void)
{
	TOKS("a := b -> c ** d // e @ f ... g",
	     "a := b -> c ** d // e @ f ... g ; $");
	TOKS("a **= 1; a //= 1; a >>= 1; a <<= 1; a @= 1; a ^= 1; a |= 1; a &= 1; a %= 1",
	     "a **= 1 ; a //= 1 ; a >>= 1 ; a <<= 1 ; a @= 1 ; a ^= 1 ; a |= 1 ; a &= 1 ; a %= 1 ; $");
	TOKS("a != b == c <= d >= e < f > g ~h", "a != b == c <= d >= e < f > g ~ h ; $");
	TOKS("x[:, None] {a: b}", "x [ : , None ] { a : b } ; $");
}

static void test_keywords(void)
{
	src_file f = {"t.py", "if match lambda None async _ type", 33};
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	tok *t;
	int n;
	CHECK(lex_file(ctx, a, &f, &t, &n) == TILEC_OK);
	CHECK_EQ_INT(t[0].kind, TOK_IF);
	CHECK_EQ_INT(t[1].kind, TOK_NAME); /* soft keywords stay names */
	CHECK_EQ_INT(t[2].kind, TOK_LAMBDA);
	CHECK_EQ_INT(t[3].kind, TOK_NONE);
	CHECK_EQ_INT(t[4].kind, TOK_ASYNC);
	CHECK_EQ_INT(t[5].kind, TOK_NAME);
	CHECK_EQ_INT(t[6].kind, TOK_NAME);
	CHECK(strcmp(t[6].sval, "type") == 0);
	CHECK_EQ_INT(t[2].loc.line, 1);
	CHECK_EQ_INT(t[2].loc.col, 10);
	CHECK(strcmp(lex_kind_name(TOK_DSLASH_ASSIGN), "//=") == 0);
	arena_free(a);
	tilec_ctx_free(ctx);
}

static void test_numbers(void)
{
	TOKS("0 00 0_0 7 1_000 0x_1F 0XfF 0o17 0O1_7 0b1_0 0B11",
	     "0 0 0 7 1000 31 255 15 15 2 3 ; $");
	TOKS("18446744073709551615 18446744073709551616 123_456_789_012_345_678_901",
	     "18446744073709551615 BIG BIG ; $");
	TOKS("1.5 1. .5 1e3 1E-3 1.5e+2 1_0.0_1 09.5 0e0", "1.5f 1f 0.5f 1000f 0.001f 150f 10.01f 9.5f 0f ; $");
	TOKS("3j 1.5J 1e2j 0j", "3j 1.5j 100j 0j ; $");
	TOKS("x.real 1 .real", "x . real 1 . real ; $");
	TOKS("1if x else 2", "1 if x else 2 ; $");
	TOKS("[0x1for x in y]", "[ 31 or x in y ] ; $"); /* Python reads 0x1f then `or` */
	TOKS("1..real", "1f . real ; $");
}

static void test_strings(void)
{
	TOKS("'a' \"b\" '''c'''\"\"\"d\"\"\"", "s\"a\" s\"b\" s\"c\" s\"d\" ; $");
	TOKS("'it''s'", "s\"it\" s\"s\" ; $");
	TOKS("'\\n\\t\\\\\\'\\\"\\a\\x41\\101\\0'", "s\"<0a><09>\\'\"<07>AA<00>\" ; $");
	TOKS("'\\u00e9\\U0001F600'", "s\"<c3><a9><f0><9f><98><80>\" ; $");
	TOKS("'\\q\\N{BULLET}'", "s\"\\q\\N{BULLET}\" ; $");
	TOKS("r'\\n\\'' R\"\\d\"", "s\"\\n\\'\" s\"\\d\" ; $");
	TOKS("b'\\x00\\xff' Rb'\\x' bR'x' B'\\101'", "b\"<00><ff>\" b\"\\x\" b\"x\" b\"A\" ; $");
	TOKS("u'x' U'y'", "s\"x\" s\"y\" ; $");
	TOKS("f'{x}' F\"{y!r:>10}\" rf'{z}\\n' fR'{w}' t'{v}'",
	     "f\"{x}\" f\"{y!r:>10}\" f\"{z}\\n\" f\"{w}\" f\"{v}\" ; $");
	/* Python 3.12: the same quote inside a replacement field */
	TOKS("f\"{x[\"a\"]}\" + f'{a:{b}}' + f'{{}}' + f'{ {1: 2}[1] }'",
	     "f\"{x[\"a\"]}\" + f\"{a:{b}}\" + f\"{{}}\" + f\"{ {1: 2}[1] }\" ; $");
	TOKS("f'''{\n x\n}''' y", "f\"{<0a> x<0a>}\" y ; $");
	TOKS("'''a\nb''' c", "s\"a<0a>b\" c ; $");
	TOKS("'a\\\nb' c", "s\"ab\" c ; $");
	TOKS("x = '''\n  unindented\n''' \ny", "x = s\"<0a>  unindented<0a>\" ; y ; $");
	TOKS("rb = 1; f = fr; br", "rb = 1 ; f = fr ; br ; $");
	TOKS("ub'x' bf'y'", "ub s\"x\" bf s\"y\" ; $"); /* not prefixes: a name, then a string */
}

static void test_locations(void)
{
	src_file f = {"t.py", "def f(a,\n      b):\n    '''x\ny'''\n    return a\n", 0};
	f.len = strlen(f.text);
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	tok *t;
	int n;
	CHECK(lex_file(ctx, a, &f, &t, &n) == TILEC_OK);
	/* def f ( a , b ) : NL INDENT STRING NL return */
	CHECK_EQ_INT(t[5].loc.line, 2);
	CHECK_EQ_INT(t[5].loc.col, 7);
	CHECK_EQ_INT(t[9].kind, TOK_INDENT);
	CHECK_EQ_INT(t[10].kind, TOK_STRING);
	CHECK_EQ_INT(t[10].loc.line, 3);
	CHECK_EQ_INT(t[10].loc.col, 5);
	CHECK_EQ_INT(t[12].kind, TOK_RETURN);
	CHECK_EQ_INT(t[12].loc.line, 5);
	CHECK_EQ_INT(t[12].loc.col, 5);
	arena_free(a);
	tilec_ctx_free(ctx);
}

static void test_errors(void)
{
	LEX_ERROR("x = 'abc\ny = 1\n", "t.py:1:5: error: unterminated string literal (detected at line 1)");
	LEX_ERROR("x = 1\ns = \"\"\"abc\n\n", "t.py:2:5: error: unterminated triple-quoted string literal (detected at line 4)");
	LEX_ERROR("f'{x'", "t.py:1:1: error: unterminated f-string (detected at line 1)");
	LEX_ERROR("if x:\n    a\n  b\n", "t.py:3:3: error: unindent does not match any outer indentation level");
	LEX_ERROR("if x:\n\ta\n        b\n", "t.py:3:9: error: inconsistent use of tabs and spaces in indentation");
	LEX_ERROR("if x:\n        a\n\tb\n", "t.py:3:2: error: inconsistent use of tabs and spaces in indentation");
	LEX_ERROR("x = 1 $ 2", "t.py:1:7: error: invalid character '$'");
	LEX_ERROR("a ? b", "t.py:1:3: error: invalid character '?'");
	LEX_ERROR("a ! b", "t.py:1:3: error: invalid character '!'");
	LEX_ERROR("a = \x01", "t.py:1:5: error: invalid non-printable character U+0001");
	LEX_ERROR("x = 012", "t.py:1:5: error: leading zeros in decimal integer literals are not permitted; "
		  "use an 0o prefix for octal integers");
	LEX_ERROR("x = 1_", "t.py:1:6: error: invalid decimal literal");
	LEX_ERROR("x = 1__0", "t.py:1:6: error: invalid decimal literal");
	LEX_ERROR("x = 0x", "t.py:1:7: error: invalid hexadecimal literal");
	LEX_ERROR("x = 0b12", "t.py:1:8: error: invalid binary literal");
	LEX_ERROR("x = 0o8", "t.py:1:7: error: invalid octal literal");
	LEX_ERROR("x = 1e", "t.py:1:6: error: invalid float literal: exponent has no digits");
	LEX_ERROR("x = 1abc", "t.py:1:6: error: invalid decimal literal");
	LEX_ERROR("x = 1.5x", "t.py:1:8: error: invalid float literal");
	LEX_ERROR("x = 2jx", "t.py:1:7: error: invalid imaginary literal");
	LEX_ERROR("x = 1 \\ 2", "t.py:1:7: error: unexpected character after line continuation character");
	LEX_ERROR("x = 1 \\", "t.py:1:7: error: unexpected end of file after line continuation character");
	LEX_ERROR("x = (1, 2))", "t.py:1:11: error: unmatched ')'");
	LEX_ERROR("x = (1, 2]", "t.py:1:10: error: closing parenthesis ']' does not match opening parenthesis '('");
	LEX_ERROR("x = (1,\n 2]", "t.py:2:3: error: closing parenthesis ']' does not match opening parenthesis '(' on line 1");
	LEX_ERROR("x = 1\nf(a, [b,\n", "t.py:2:6: error: '[' was never closed");
	LEX_ERROR("'\\x4'", "t.py:1:2: error: truncated \\x escape in string literal");
	LEX_ERROR("'\\u12'", "t.py:1:2: error: truncated \\u escape in string literal");
	LEX_ERROR("'\\U00110000'", "t.py:1:2: error: illegal Unicode character in string literal");
	LEX_ERROR("b'\xc3\xa9'", "t.py:1:3: error: bytes can only contain ASCII literal characters");
	{
		char src[] = "x = 1\n y";
		src[5] = 0; /* "x = 1\0 y": a NUL byte in the text */
		src_file f = {"t.py", src, sizeof src - 1};
		tilec_ctx *ctx = tilec_ctx_new();
		arena *a = arena_new();
		tok *t;
		int n;
		CHECK(lex_file(ctx, a, &f, &t, &n) == TILEC_ERR_SYNTAX);
		CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "t.py:1:6: error: source code cannot contain null bytes");
		arena_free(a);
		tilec_ctx_free(ctx);
	}
	/* Python's limits: 200 brackets, 100 indentation levels */
	{
		char src[512];
		memset(src, '(', 201);
		src[201] = 0;
		LEX_ERROR(src, "t.py:1:201: error: too many nested parentheses");
		strbuf sb;
		sb_init(&sb);
		for (int i = 0; i <= 100; i++)
			sb_printf(&sb, "%*sif x:\n", i, "");
		sb_printf(&sb, "%*spass\n", 101, "");
		LEX_ERROR(sb_str(&sb), "t.py:102:102: error: too many levels of indentation");
		sb_free(&sb);
	}
	/* the diagnostic quotes the line with a caret */
	char *full = tokens("ok = 1\nx = 1 $ 2\n");
	CHECK_STR_CONTAINS(full, "t.py:2:7: error: invalid character '$'\nx = 1 $ 2\n      ^");
	free(full);
}

int main(void)
{
	test_lines();
	test_operators();
	test_keywords();
	test_numbers();
	test_strings();
	test_locations();
	test_errors();
	return check_report("test_lex");
}
