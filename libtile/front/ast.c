/* ast.c - what the front end does with the AST besides building it: the
 * kernel-language check, small queries, and the S-expression dump.
 *
 * The check walks a @jit function's body and refuses, each at its own
 * location and by name, what Python accepts but Triton's kernel language
 * does not; it keeps going after the first so one run shows them all.
 * Messages follow Triton's where Triton has a specific one (chained
 * comparisons, multiple assignment targets); elsewhere Triton only says
 * "unsupported AST node type", so ours name the construct.
 *
 * The dump prints expressions inline and statements one per line, indented,
 * so golden tests read like the source they came from.
 */
#include "front/syntax.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {
#define AST_NAME_STR(k, s) s,
	AST_KINDS(AST_NAME_STR)
#undef AST_NAME_STR
};

const char *ast_kind_name(ast_kind k)
{
	return (unsigned)k < AST_KIND_COUNT ? kind_names[k] : "?";
}

const char *ast_op_name(ast_op op)
{
	static const char *const names[AST_OP_COUNT] = {
		"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@",
		"-", "+", "~", "not", "and", "or",
		"<", "<=", ">", ">=", "==", "!=", "is", "is not", "in", "not in",
	};
	return (unsigned)op < AST_OP_COUNT ? names[op] : "?";
}

ast_func *ast_find_func(const ast_module *m, const char *name)
{
	for (int i = m->nfuncs - 1; i >= 0; i--)
		if (strcmp(m->funcs[i]->name, name) == 0)
			return m->funcs[i];
	return NULL;
}

ast_func *ast_find_kernel(const ast_module *m, const char *name)
{
	ast_func *f = ast_find_func(m, name);
	for (int i = m->nnested - 1; i >= 0 && !f; i--)
		if (strcmp(m->nested[i]->name, name) == 0)
			f = m->nested[i];
	return f;
}

ast_node *ast_call_kwarg(const ast_node *call, const char *name)
{
	if (!call || call->kind != AST_CALL)
		return NULL;
	for (int i = 0; i < call->call.kwargs.n; i++) {
		ast_node *k = call->call.kwargs.items[i];
		if (k->keyword.name && strcmp(k->keyword.name, name) == 0)
			return k->keyword.value;
	}
	return NULL;
}

/* ---- the kernel check ---- */

typedef struct checker {
	tilec_ctx *ctx;
	int errors;
} checker;

static void refuse(checker *c, src_loc loc, const char *fmt, ...) TILE_PRINTF(3, 4);
static void refuse(checker *c, src_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(c->ctx, loc, "error", fmt, ap);
	va_end(ap);
	c->ctx->errors++;
	c->errors++;
}

static void check_expr(checker *c, const ast_node *n);

static void check_exprs(checker *c, const ast_list *l)
{
	for (int i = 0; i < l->n; i++)
		check_expr(c, l->items[i]);
}

static void check_expr(checker *c, const ast_node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case AST_NAME: case AST_INT: case AST_FLOAT: case AST_STR: case AST_NONE: case AST_TRUE:
	case AST_FALSE: case AST_ELLIPSIS:
		return;
	case AST_IMAG: refuse(c, n->loc, "complex numbers are not supported in kernels"); return;
	case AST_BYTES: refuse(c, n->loc, "bytes literals are not supported in kernels"); return;
	case AST_FSTRING: refuse(c, n->loc, "f-strings are not supported in kernels"); return;
	case AST_ATTR: check_expr(c, n->attr.value); return;
	case AST_CALL:
		check_expr(c, n->call.func);
		check_exprs(c, &n->call.args);
		check_exprs(c, &n->call.kwargs);
		return;
	case AST_KEYWORD:
		if (!n->keyword.name)
			refuse(c, n->loc, "`**` arguments are not supported in kernels");
		check_expr(c, n->keyword.value);
		return;
	case AST_STARRED:
		refuse(c, n->loc, "starred expressions (`*x`) are not supported in kernels");
		return;
	case AST_SUBSCRIPT:
		check_expr(c, n->subscript.value);
		check_expr(c, n->subscript.index);
		return;
	case AST_SLICE:
		check_expr(c, n->slice.lo);
		check_expr(c, n->slice.hi);
		check_expr(c, n->slice.step);
		return;
	case AST_UNARY: check_expr(c, n->unary.operand); return;
	case AST_COMPARE:
		if (n->binary.chained)
			refuse(c, n->loc, "simultaneous multiple comparison is not supported: "
				   "chained comparisons (`a < b < c`) must be split");
		else if (n->binary.op == AST_OP_IN || n->binary.op == AST_OP_NOT_IN)
			refuse(c, n->loc, "`%s` comparisons are not supported in kernels", ast_op_name(n->binary.op));
		/* fall through */
	case AST_BINARY: case AST_BOOLOP:
		check_expr(c, n->binary.left);
		check_expr(c, n->binary.right);
		return;
	case AST_IFEXP:
		check_expr(c, n->ifexp.cond);
		check_expr(c, n->ifexp.then);
		check_expr(c, n->ifexp.orelse);
		return;
	case AST_TUPLE: case AST_LIST: check_exprs(c, &n->seq.items); return;
	case AST_SET: refuse(c, n->loc, "set literals are not supported in kernels"); return;
	case AST_DICT: refuse(c, n->loc, "dict literals are not supported in kernels"); return;
	case AST_LAMBDA: refuse(c, n->loc, "lambda expressions are not supported in kernels"); return;
	case AST_NAMED: refuse(c, n->loc, "assignment expressions (`:=`) are not supported in kernels"); return;
	case AST_COMP:
		refuse(c, n->loc, "%s are not supported in kernels",
		       n->comp.kind == '[' ? "list comprehensions" : n->comp.kind == '{' ? "set comprehensions" :
		       n->comp.kind == 'd' ? "dict comprehensions" : "generator expressions");
		return;
	case AST_AWAIT: refuse(c, n->loc, "`await` is not supported in kernels"); return;
	case AST_YIELD: case AST_YIELD_FROM: refuse(c, n->loc, "`yield` is not supported in kernels"); return;
	default:
		refuse(c, n->loc, "%s is not supported in kernels", ast_kind_name(n->kind));
		return;
	}
}

/* The keyword a skipped statement starts with, read from the source. */
static const char *skipped_keyword(const ast_node *n)
{
	const src_file *f = n->loc.file;
	const char *p = f->text, *end = f->text + f->len;
	for (int line = 1; line < n->loc.line && p < end; p++)
		if (*p == '\n' || (*p == '\r' && (p + 1 >= end || p[1] != '\n')))
			line++;
	p += n->loc.col - 1;
	return p + 4 < end && strncmp(p, "type", 4) == 0 ? "type" : "match";
}

static void check_stmts(checker *c, const ast_list *l);

static void check_stmt(checker *c, const ast_node *n)
{
	switch (n->kind) {
	case AST_EXPR_STMT: case AST_RETURN: check_expr(c, n->unary.operand); return;
	case AST_ASSIGN:
		if (n->assign.targets.n > 1)
			refuse(c, n->loc, "simultaneous multiple assignment is not supported (`a = b = ...`)");
		check_exprs(c, &n->assign.targets);
		check_expr(c, n->assign.value);
		return;
	case AST_AUGASSIGN:
		check_expr(c, n->augassign.target);
		check_expr(c, n->augassign.value);
		return;
	case AST_ANNASSIGN:
		check_expr(c, n->annassign.target);
		check_expr(c, n->annassign.value);
		return;
	case AST_IF:
		check_expr(c, n->if_.cond);
		check_stmts(c, &n->if_.body);
		check_stmts(c, &n->if_.orelse);
		return;
	case AST_FOR:
		if (n->for_.is_async)
			refuse(c, n->loc, "`async for` is not supported in kernels");
		if (n->for_.orelse.n)
			refuse(c, n->for_.orelse.items[0]->loc, "`else` clauses of `for` loops are not supported in kernels");
		check_expr(c, n->for_.target);
		check_expr(c, n->for_.iter);
		check_stmts(c, &n->for_.body);
		return;
	case AST_WHILE:
		if (n->while_.orelse.n)
			refuse(c, n->while_.orelse.items[0]->loc, "`else` clauses of `while` loops are not supported in kernels");
		check_expr(c, n->while_.cond);
		check_stmts(c, &n->while_.body);
		return;
	case AST_ASSERT:
		check_expr(c, n->assert_.cond);
		check_expr(c, n->assert_.msg);
		return;
	case AST_PASS: return;
	case AST_BREAK: refuse(c, n->loc, "`break` statements are not supported in kernels"); return;
	case AST_CONTINUE: refuse(c, n->loc, "`continue` statements are not supported in kernels"); return;
	case AST_RAISE: return; /* refused where compiled (sema): a constexpr branch may leave it out */
	case AST_DEL: refuse(c, n->loc, "`del` statements are not supported in kernels"); return;
	case AST_GLOBAL: refuse(c, n->loc, "`global` declarations are not supported in kernels"); return;
	case AST_NONLOCAL: refuse(c, n->loc, "`nonlocal` declarations are not supported in kernels"); return;
	case AST_IMPORT: case AST_IMPORT_FROM:
		refuse(c, n->loc, "`import` statements are not supported in kernels");
		return;
	case AST_FUNCDEF: refuse(c, n->loc, "nested function definitions are not supported in kernels"); return;
	case AST_CLASSDEF: refuse(c, n->loc, "class definitions are not supported in kernels"); return;
	case AST_WITH: refuse(c, n->loc, "`with` statements are not supported in kernels"); return;
	case AST_TRY: refuse(c, n->loc, "`try` statements are not supported in kernels"); return;
	case AST_SKIPPED:
		refuse(c, n->loc, "`%s` statements are not supported in kernels", skipped_keyword(n));
		return;
	default:
		refuse(c, n->loc, "%s is not supported in kernels", ast_kind_name(n->kind));
		return;
	}
}

static void check_stmts(checker *c, const ast_list *l)
{
	for (int i = 0; i < l->n; i++)
		check_stmt(c, l->items[i]);
}

tilec_status ast_check_kernel(tilec_ctx *ctx, const ast_func *f)
{
	checker c = {ctx, 0};
	if (f->is_async)
		refuse(&c, f->loc, "`async` functions cannot be kernels");
	for (int i = 0; i < f->nparams; i++)
		if (f->params[i].kind == AST_PARAM_VARARGS || f->params[i].kind == AST_PARAM_KWARGS)
			refuse(&c, f->params[i].loc, "`%s%s` parameters are not supported in kernels",
			       f->params[i].kind == AST_PARAM_VARARGS ? "*" : "**", f->params[i].name);
	check_stmts(&c, &f->body);
	return c.errors ? TILEC_ERR_UNSUPPORTED : TILEC_OK;
}

/* ---- dump ---- */

static void dump_str(strbuf *sb, const char *prefix, const char *s, size_t n)
{
	sb_puts(sb, prefix);
	sb_putc(sb, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\')
			sb_printf(sb, "\\%c", ch);
		else if (ch == '\n')
			sb_puts(sb, "\\n");
		else if (ch == '\t')
			sb_puts(sb, "\\t");
		else if (ch < 0x20 || ch >= 0x7f)
			sb_printf(sb, "\\x%02x", ch);
		else
			sb_putc(sb, (char)ch);
	}
	sb_putc(sb, '"');
}

static void dump_list(strbuf *sb, const ast_list *l)
{
	for (int i = 0; i < l->n; i++) {
		sb_putc(sb, ' ');
		ast_dump(sb, l->items[i]);
	}
}

static void dump_params(strbuf *sb, int n, const ast_param *params)
{
	static const char *const kinds[] = {"", " kwonly", " *", " **"};
	for (int i = 0; i < n; i++) {
		const ast_param *p = &params[i];
		sb_printf(sb, "%s(param %s%s%s", i ? " " : "", p->name, kinds[p->kind], p->is_constexpr ? " constexpr" : "");
		if (p->annotation) {
			sb_puts(sb, " : ");
			ast_dump(sb, p->annotation);
		}
		if (p->default_value) {
			sb_puts(sb, " = ");
			ast_dump(sb, p->default_value);
		}
		sb_putc(sb, ')');
	}
}

static void dump_stmts(strbuf *sb, const ast_list *l, int indent);

/* "\n<indent>(label" then the statements one level deeper, then ")". */
static void dump_block(strbuf *sb, const char *label, const ast_list *l, int indent)
{
	sb_printf(sb, "\n%*s(%s", indent, "", label);
	dump_stmts(sb, l, indent + 2);
	sb_putc(sb, ')');
}

/* The shortest form that reads back as the same double; integral values
 * below 1e16 without an exponent, as Python prints them. */
static void fmt_float(char *buf, size_t size, double v)
{
	if (v > -1e16 && v < 1e16 && v == (double)(long long)v) { /* range first: no UB on inf/NaN */
		snprintf(buf, size, "%lld", (long long)v);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static void dump_expr(strbuf *sb, const ast_node *n)
{
	switch (n->kind) {
	case AST_NAME: sb_puts(sb, n->name.id); return;
	case AST_INT:
		if (n->lit.big)
			sb_puts(sb, "(int too-large)");
		else
			sb_printf(sb, "%llu", (unsigned long long)n->lit.ival);
		return;
	case AST_FLOAT: {
		/* like Python's repr: a float always shows it is one */
		char buf[32];
		fmt_float(buf, sizeof buf, n->lit.fval);
		sb_printf(sb, "%s%s", buf, strpbrk(buf, ".eni") ? "" : ".0");
		return;
	}
	case AST_IMAG: {
		char buf[32];
		fmt_float(buf, sizeof buf, n->lit.fval);
		sb_printf(sb, "%sj", buf);
		return;
	}
	case AST_STR: dump_str(sb, "", n->lit.sval, n->lit.slen); return;
	case AST_BYTES: dump_str(sb, "b", n->lit.sval, n->lit.slen); return;
	case AST_FSTRING: dump_str(sb, "f", n->lit.sval, n->lit.slen); return;
	case AST_NONE: case AST_TRUE: case AST_FALSE: case AST_ELLIPSIS:
		sb_puts(sb, ast_kind_name(n->kind));
		return;
	case AST_ATTR:
		sb_puts(sb, "(. ");
		ast_dump(sb, n->attr.value);
		sb_printf(sb, " %s)", n->attr.name);
		return;
	case AST_CALL:
		sb_puts(sb, "(call ");
		ast_dump(sb, n->call.func);
		dump_list(sb, &n->call.args);
		dump_list(sb, &n->call.kwargs);
		sb_putc(sb, ')');
		return;
	case AST_KEYWORD:
		sb_printf(sb, "(kw %s ", n->keyword.name ? n->keyword.name : "**");
		ast_dump(sb, n->keyword.value);
		sb_putc(sb, ')');
		return;
	case AST_STARRED: case AST_AWAIT: case AST_YIELD: case AST_YIELD_FROM: case AST_COMP_IF:
		sb_printf(sb, "(%s ", n->kind == AST_STARRED ? "*" : ast_kind_name(n->kind));
		ast_dump(sb, n->unary.operand);
		sb_putc(sb, ')');
		return;
	case AST_SUBSCRIPT:
		sb_puts(sb, "([] ");
		ast_dump(sb, n->subscript.value);
		sb_putc(sb, ' ');
		ast_dump(sb, n->subscript.index);
		sb_putc(sb, ')');
		return;
	case AST_SLICE:
		sb_puts(sb, "(: ");
		ast_dump(sb, n->slice.lo);
		sb_putc(sb, ' ');
		ast_dump(sb, n->slice.hi);
		sb_putc(sb, ' ');
		ast_dump(sb, n->slice.step);
		sb_putc(sb, ')');
		return;
	case AST_UNARY:
		sb_printf(sb, "(%s ", n->unary.op == AST_OP_NEG ? "neg" : n->unary.op == AST_OP_POS ? "pos" :
			  ast_op_name(n->unary.op));
		ast_dump(sb, n->unary.operand);
		sb_putc(sb, ')');
		return;
	case AST_BINARY: case AST_BOOLOP: case AST_COMPARE: case AST_NAMED:
		sb_printf(sb, "(%s%s ", n->binary.chained ? "chained " : "",
			  n->kind == AST_NAMED ? ":=" : ast_op_name(n->binary.op));
		ast_dump(sb, n->binary.left);
		sb_putc(sb, ' ');
		ast_dump(sb, n->binary.right);
		sb_putc(sb, ')');
		return;
	case AST_IFEXP:
		sb_puts(sb, "(ifexp ");
		ast_dump(sb, n->ifexp.cond);
		sb_putc(sb, ' ');
		ast_dump(sb, n->ifexp.then);
		sb_putc(sb, ' ');
		ast_dump(sb, n->ifexp.orelse);
		sb_putc(sb, ')');
		return;
	case AST_TUPLE: case AST_LIST: case AST_SET:
		sb_printf(sb, "(%s", ast_kind_name(n->kind));
		dump_list(sb, &n->seq.items);
		sb_putc(sb, ')');
		return;
	case AST_DICT:
		sb_puts(sb, "(dict");
		for (int i = 0; i < n->dict.keys.n; i++) {
			sb_puts(sb, " (");
			ast_dump(sb, n->dict.keys.items[i]);
			sb_putc(sb, ' ');
			ast_dump(sb, n->dict.values.items[i]);
			sb_putc(sb, ')');
		}
		sb_putc(sb, ')');
		return;
	case AST_LAMBDA:
		sb_puts(sb, "(lambda (");
		dump_params(sb, n->lambda.nparams, n->lambda.params);
		sb_puts(sb, ") ");
		ast_dump(sb, n->lambda.body);
		sb_putc(sb, ')');
		return;
	case AST_COMP:
		sb_printf(sb, "(%s ", n->comp.kind == '[' ? "listcomp" : n->comp.kind == '{' ? "setcomp" :
			  n->comp.kind == 'd' ? "dictcomp" : "genexp");
		ast_dump(sb, n->comp.elt);
		if (n->comp.value) {
			sb_putc(sb, ' ');
			ast_dump(sb, n->comp.value);
		}
		dump_list(sb, &n->comp.clauses);
		sb_putc(sb, ')');
		return;
	case AST_COMP_FOR:
		sb_printf(sb, "(%sfor ", n->for_.is_async ? "async " : "");
		ast_dump(sb, n->for_.target);
		sb_putc(sb, ' ');
		ast_dump(sb, n->for_.iter);
		sb_putc(sb, ')');
		return;
	case AST_WITH_ITEM:
		sb_puts(sb, "(as ");
		ast_dump(sb, n->binary.left);
		sb_putc(sb, ' ');
		ast_dump(sb, n->binary.right);
		sb_putc(sb, ')');
		return;
	default:
		sb_printf(sb, "(%s)", ast_kind_name(n->kind));
		return;
	}
}

/* A statement at `indent` (the caller has started its line). */
static void dump_stmt(strbuf *sb, const ast_node *n, int indent)
{
	switch (n->kind) {
	case AST_EXPR_STMT: case AST_RETURN:
		sb_printf(sb, "(%s", n->kind == AST_RETURN ? "return" : "expr");
		if (n->unary.operand) {
			sb_putc(sb, ' ');
			ast_dump(sb, n->unary.operand);
		}
		sb_putc(sb, ')');
		return;
	case AST_ASSIGN:
		sb_puts(sb, "(=");
		dump_list(sb, &n->assign.targets);
		sb_putc(sb, ' ');
		ast_dump(sb, n->assign.value);
		sb_putc(sb, ')');
		return;
	case AST_AUGASSIGN:
		sb_printf(sb, "(%s= ", ast_op_name(n->augassign.op));
		ast_dump(sb, n->augassign.target);
		sb_putc(sb, ' ');
		ast_dump(sb, n->augassign.value);
		sb_putc(sb, ')');
		return;
	case AST_ANNASSIGN:
		sb_puts(sb, "(=: ");
		ast_dump(sb, n->annassign.target);
		sb_putc(sb, ' ');
		ast_dump(sb, n->annassign.annotation);
		sb_putc(sb, ' ');
		ast_dump(sb, n->annassign.value);
		sb_putc(sb, ')');
		return;
	case AST_IF:
		sb_puts(sb, "(if ");
		ast_dump(sb, n->if_.cond);
		dump_block(sb, "then", &n->if_.body, indent + 2);
		if (n->if_.orelse.n)
			dump_block(sb, "else", &n->if_.orelse, indent + 2);
		sb_putc(sb, ')');
		return;
	case AST_FOR: case AST_WHILE:
		if (n->kind == AST_FOR) {
			sb_printf(sb, "(%sfor ", n->for_.is_async ? "async " : "");
			ast_dump(sb, n->for_.target);
			sb_putc(sb, ' ');
			ast_dump(sb, n->for_.iter);
		} else {
			sb_puts(sb, "(while ");
			ast_dump(sb, n->while_.cond);
		}
		dump_block(sb, "body", n->kind == AST_FOR ? &n->for_.body : &n->while_.body, indent + 2);
		if ((n->kind == AST_FOR ? n->for_.orelse : n->while_.orelse).n)
			dump_block(sb, "else", n->kind == AST_FOR ? &n->for_.orelse : &n->while_.orelse, indent + 2);
		sb_putc(sb, ')');
		return;
	case AST_ASSERT:
		sb_puts(sb, "(assert ");
		ast_dump(sb, n->assert_.cond);
		if (n->assert_.msg) {
			sb_putc(sb, ' ');
			ast_dump(sb, n->assert_.msg);
		}
		sb_putc(sb, ')');
		return;
	case AST_RAISE:
		sb_puts(sb, "(raise ");
		ast_dump(sb, n->binary.left);
		sb_putc(sb, ' ');
		ast_dump(sb, n->binary.right);
		sb_putc(sb, ')');
		return;
	case AST_DEL:
		sb_puts(sb, "(del");
		dump_list(sb, &n->seq.items);
		sb_putc(sb, ')');
		return;
	case AST_GLOBAL: case AST_NONLOCAL:
		sb_printf(sb, "(%s", ast_kind_name(n->kind));
		for (int i = 0; i < n->names.n; i++)
			sb_printf(sb, " %s", n->names.names[i]);
		sb_putc(sb, ')');
		return;
	case AST_IMPORT: case AST_IMPORT_FROM:
		sb_puts(sb, "(import");
		for (int i = 0; i < n->import_.n; i++)
			sb_printf(sb, " (%s %s)", n->import_.names[i].alias, n->import_.names[i].path);
		sb_putc(sb, ')');
		return;
	case AST_FUNCDEF:
		ast_dump_func(sb, n->func);
		return;
	case AST_CLASSDEF:
		sb_printf(sb, "(class %s", n->class_.name);
		dump_list(sb, &n->class_.bases);
		dump_list(sb, &n->class_.kwargs);
		dump_block(sb, "body", &n->class_.body, indent + 2);
		sb_putc(sb, ')');
		return;
	case AST_WITH:
		sb_printf(sb, "(%swith", n->with_.is_async ? "async " : "");
		dump_list(sb, &n->with_.items);
		dump_block(sb, "body", &n->with_.body, indent + 2);
		sb_putc(sb, ')');
		return;
	case AST_TRY:
		sb_puts(sb, "(try");
		dump_block(sb, "body", &n->try_.body, indent + 2);
		for (int i = 0; i < n->try_.handlers.n; i++) {
			const ast_node *h = n->try_.handlers.items[i];
			sb_printf(sb, "\n%*s(except ", indent + 2, "");
			ast_dump(sb, h->except_.type);
			sb_printf(sb, " %s", h->except_.name ? h->except_.name : "_");
			dump_stmts(sb, &h->except_.body, indent + 4);
			sb_putc(sb, ')');
		}
		if (n->try_.orelse.n)
			dump_block(sb, "else", &n->try_.orelse, indent + 2);
		if (n->try_.finalbody.n)
			dump_block(sb, "finally", &n->try_.finalbody, indent + 2);
		sb_putc(sb, ')');
		return;
	case AST_SKIPPED:
		sb_printf(sb, "(skipped %d tokens)", n->skipped.ntoks);
		return;
	default:
		dump_expr(sb, n);
		return;
	}
}

static void dump_stmts(strbuf *sb, const ast_list *l, int indent)
{
	for (int i = 0; i < l->n; i++) {
		sb_printf(sb, "\n%*s", indent, "");
		dump_stmt(sb, l->items[i], indent);
	}
}

void ast_dump(strbuf *sb, const ast_node *n)
{
	if (!n)
		sb_putc(sb, '_');
	else if (n->kind >= AST_EXPR_STMT)
		dump_stmt(sb, n, 0);
	else
		dump_expr(sb, n);
}

void ast_dump_func(strbuf *sb, const ast_func *f)
{
	sb_printf(sb, "(%sdef %s", f->is_async ? "async " : "", f->name);
	for (int i = 0; i < f->decorators.n; i++) {
		static const char *const kinds[] = {"decorator", "jit", "autotune", "heuristics", "constexpr"};
		sb_printf(sb, "\n  (%s ", kinds[f->deco_kinds ? f->deco_kinds[i] : 0]);
		ast_dump(sb, f->decorators.items[i]);
		sb_putc(sb, ')');
	}
	sb_puts(sb, "\n  (params");
	for (int i = 0; i < f->nparams; i++) {
		sb_puts(sb, "\n    ");
		dump_params(sb, 1, &f->params[i]);
	}
	sb_putc(sb, ')');
	if (f->returns) {
		sb_puts(sb, "\n  (returns ");
		ast_dump(sb, f->returns);
		sb_putc(sb, ')');
	}
	dump_block(sb, "body", &f->body, 2);
	sb_putc(sb, ')');
}

void ast_dump_module(strbuf *sb, const ast_module *m)
{
	sb_puts(sb, "(module");
	for (int i = 0; i < m->nimports; i++)
		sb_printf(sb, "\n  (import %s %s)", m->imports[i].alias, m->imports[i].path);
	for (int i = 0; i < m->nglobals; i++) {
		sb_printf(sb, "\n  (global %s ", m->globals[i].name);
		ast_dump(sb, m->globals[i].value);
		sb_putc(sb, ')');
	}
	for (int i = 0; i < m->nfuncs; i++) {
		sb_puts(sb, "\n");
		ast_dump_func(sb, m->funcs[i]);
	}
	sb_puts(sb, ")\n");
}
