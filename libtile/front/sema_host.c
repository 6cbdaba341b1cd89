/* sema_host.c - what the host code around kernels binds, as far as it can
 * be known without running Python.
 *
 * A kernel (or helper) defined in a def's body sees that def's names
 * first, as a Python closure does (Triton merges the closure's cells over
 * the globals). A name the def binds once, directly in its body, is known:
 * an import, a def, or `NAME = expr` whose expression is a compile-time
 * value in the def's own scope (evaluated there, as host code). Anything
 * else is known only to the running program and refused, naming why: a
 * parameter of the def, a binding inside an `if` or a loop, several
 * bindings, a `for` target. `global` sends a name to the module,
 * `nonlocal` to the next def out.
 *
 * A plain def that a kernel may call (marked @tl.constexpr or
 * @triton.constexpr_function, or reached as a module's attribute; host
 * code may call any) runs at compile time, as Triton's code generator
 * calls it: its arguments must be compile-time values, and its body may
 * hold `if`/`else` on them, assignments, `assert`, `return`, `pass` and a
 * docstring, over expressions that fold (dtype predicates, arithmetic,
 * dtypes). Any other statement or expression is an error naming the
 * function and the construct.
 *
 * A module-level name bound in a `try` is bound as Python runs it with
 * Triton 3.6: when every statement of the body is one tile can evaluate
 * (an import of Triton, an assignment of a compile-time value, `pass`),
 * the body completes and its binding (or the else/finally clause's) holds,
 * the except clauses' do not. A body that runs other host code leaves the
 * value to the running program: an error that suggests --bind.
 *
 * --bind NAME=VALUE (fe_spec.binds) gives such a value explicitly, as a
 * literal or a Triton module or object by its dotted path; NAME, optionally
 * qualified by its module, shadows the module-level binding.
 */
#include "front/sema.h"

#include <string.h>

/* docs/LANGUAGE.md, limits */
#define SEMA_MAX_HOST_CALLS 65536

/* ---------------------------------------------------------------- a def's names */

typedef enum { BIND_ASSIGN, BIND_IMPORT, BIND_DEF, BIND_OTHER } bind_kind;

/* The bindings of one name in a def's own scope. */
typedef struct binds {
	const char *name;
	int n;                 /* statements that bind it */
	bool all_imports;
	bool global, nonlocal; /* declared so */
	bind_kind kind;        /* of the last binding */
	const ast_node *first, *last; /* the first and last binding statements */
	bool top;              /* it is directly in the def's body */
	const ast_node *other; /* the first binding tile cannot evaluate, and why */
	const char *why;
} binds;

static void add(binds *b, bind_kind k, const ast_node *stmt, bool top, const char *why)
{
	b->n++;
	b->all_imports = (b->n == 1 || b->all_imports) && k == BIND_IMPORT;
	b->kind = k;
	if (!b->first)
		b->first = stmt;
	b->last = stmt;
	b->top = top;
	if (why && !b->other) {
		b->other = stmt;
		b->why = why;
	}
}

/* Whether target t (a name, a tuple of them, *x) binds b->name. */
static bool target_binds(const binds *b, const ast_node *t)
{
	switch (t->kind) {
	case AST_NAME: return !strcmp(t->name.id, b->name);
	case AST_STARRED: return target_binds(b, t->unary.operand);
	case AST_TUPLE:
	case AST_LIST:
		for (int i = 0; i < t->seq.items.n; i++)
			if (target_binds(b, t->seq.items.items[i]))
				return true;
		return false;
	default: return false;
	}
}

/* `NAME := value` anywhere in expression n binds NAME in the def (in a
 * comprehension too, by PEP 572); lambdas have their own scope. */
static void walrus(binds *b, const ast_node *stmt, bool top, const ast_node *n)
{
	if (!n)
		return;
	const ast_node *kids[4] = {0};
	const ast_list *lists[3] = {0};
	switch (n->kind) {
	case AST_NAMED:
		if (target_binds(b, n->binary.left))
			add(b, BIND_OTHER, stmt, top, "an assignment expression (:=)");
		kids[0] = n->binary.right;
		break;
	case AST_ATTR: kids[0] = n->attr.value; break;
	case AST_CALL: kids[0] = n->call.func, lists[0] = &n->call.args, lists[1] = &n->call.kwargs; break;
	case AST_KEYWORD: kids[0] = n->keyword.value; break;
	case AST_WITH_ITEM: kids[0] = n->binary.left; break;
	case AST_SUBSCRIPT: kids[0] = n->subscript.value, kids[1] = n->subscript.index; break;
	case AST_SLICE: kids[0] = n->slice.lo, kids[1] = n->slice.hi, kids[2] = n->slice.step; break;
	case AST_STARRED: case AST_UNARY: case AST_AWAIT: case AST_YIELD: case AST_YIELD_FROM: case AST_COMP_IF:
		kids[0] = n->unary.operand;
		break;
	case AST_BINARY: case AST_BOOLOP: case AST_COMPARE: kids[0] = n->binary.left, kids[1] = n->binary.right; break;
	case AST_IFEXP: kids[0] = n->ifexp.cond, kids[1] = n->ifexp.then, kids[2] = n->ifexp.orelse; break;
	case AST_TUPLE: case AST_LIST: case AST_SET: lists[0] = &n->seq.items; break;
	case AST_DICT: lists[0] = &n->dict.keys, lists[1] = &n->dict.values; break;
	case AST_COMP: kids[0] = n->comp.elt, kids[1] = n->comp.value, lists[0] = &n->comp.clauses; break;
	case AST_COMP_FOR: kids[0] = n->for_.iter; break;
	default: break;
	}
	for (int i = 0; i < 4; i++)
		walrus(b, stmt, top, kids[i]);
	for (int i = 0; i < 3 && lists[i]; i++)
		for (int k = 0; k < lists[i]->n; k++)
			walrus(b, stmt, top, lists[i]->items[k]);
}

/* The expressions a statement evaluates in the def's own scope. */
static void stmt_walrus(binds *b, const ast_node *s, bool top)
{
	const ast_node *kids[3] = {0};
	const ast_list *list = NULL;
	switch (s->kind) {
	case AST_EXPR_STMT: case AST_RETURN: kids[0] = s->unary.operand; break;
	case AST_ASSIGN: kids[0] = s->assign.value, list = &s->assign.targets; break;
	case AST_AUGASSIGN: kids[0] = s->augassign.value; break;
	case AST_ANNASSIGN: kids[0] = s->annassign.value; break;
	case AST_IF: kids[0] = s->if_.cond; break;
	case AST_FOR: kids[0] = s->for_.iter; break;
	case AST_WHILE: kids[0] = s->while_.cond; break;
	case AST_ASSERT: kids[0] = s->assert_.cond, kids[1] = s->assert_.msg; break;
	case AST_RAISE: kids[0] = s->binary.left, kids[1] = s->binary.right; break;
	case AST_WITH: list = &s->with_.items; break;
	case AST_FUNCDEF:
		list = &s->func->decorators;
		for (int i = 0; i < s->func->nparams; i++)
			walrus(b, s, top, s->func->params[i].default_value);
		break;
	case AST_CLASSDEF: list = &s->class_.decorators; break;
	default: break;
	}
	for (int i = 0; i < 3; i++)
		walrus(b, s, top, kids[i]);
	for (int k = 0; list && k < list->n; k++)
		walrus(b, s, top, list->items[k]);
}

static bool names_has(const ast_node *s, const char *name)
{
	for (int i = 0; i < s->names.n; i++)
		if (!strcmp(s->names.names[i], name))
			return true;
	return false;
}

/* The statements of l, not those of defs and classes in them. */
static void scan(binds *b, const ast_list *l, bool top)
{
	for (int i = 0; i < l->n; i++) {
		const ast_node *s = l->items[i];
		stmt_walrus(b, s, top);
		switch (s->kind) {
		case AST_ASSIGN:
			for (int k = 0; k < s->assign.targets.n; k++) {
				const ast_node *t = s->assign.targets.items[k];
				if (!target_binds(b, t))
					continue;
				bool simple = s->assign.targets.n == 1 && t->kind == AST_NAME;
				add(b, simple ? BIND_ASSIGN : BIND_OTHER, s, top, simple ? NULL : "an unpacking or chained assignment");
			}
			break;
		case AST_ANNASSIGN:
			if (target_binds(b, s->annassign.target))
				add(b, s->annassign.value ? BIND_ASSIGN : BIND_OTHER, s, top,
				    s->annassign.value ? NULL : "an annotation without a value");
			break;
		case AST_AUGASSIGN:
			if (target_binds(b, s->augassign.target))
				add(b, BIND_OTHER, s, top, "an augmented assignment");
			break;
		case AST_FOR:
			if (target_binds(b, s->for_.target))
				add(b, BIND_OTHER, s, top, "a `for` loop's target");
			scan(b, &s->for_.body, false);
			scan(b, &s->for_.orelse, false);
			break;
		case AST_WHILE:
			scan(b, &s->while_.body, false);
			scan(b, &s->while_.orelse, false);
			break;
		case AST_IF:
			scan(b, &s->if_.body, false);
			scan(b, &s->if_.orelse, false);
			break;
		case AST_WITH:
			for (int k = 0; k < s->with_.items.n; k++) {
				const ast_node *as = s->with_.items.items[k]->binary.right;
				if (as && target_binds(b, as))
					add(b, BIND_OTHER, s, top, "a `with ... as` target");
			}
			scan(b, &s->with_.body, false);
			break;
		case AST_TRY:
			scan(b, &s->try_.body, false);
			for (int k = 0; k < s->try_.handlers.n; k++) {
				const ast_node *h = s->try_.handlers.items[k];
				if (h->except_.name && !strcmp(h->except_.name, b->name))
					add(b, BIND_OTHER, h, false, "an `except ... as` name");
				scan(b, &h->except_.body, false);
			}
			scan(b, &s->try_.orelse, false);
			scan(b, &s->try_.finalbody, false);
			break;
		case AST_IMPORT:
		case AST_IMPORT_FROM:
			for (int k = 0; k < s->import_.n; k++)
				if (!strcmp(s->import_.names[k].alias, b->name))
					add(b, BIND_IMPORT, s, top, NULL);
			break;
		case AST_FUNCDEF:
			if (!strcmp(s->func->name, b->name))
				add(b, BIND_DEF, s, top, NULL);
			break;
		case AST_CLASSDEF:
			if (!strcmp(s->class_.name, b->name))
				add(b, BIND_OTHER, s, top, "a class");
			break;
		case AST_DEL:
			for (int k = 0; k < s->seq.items.n; k++)
				if (target_binds(b, s->seq.items.items[k]))
					add(b, BIND_OTHER, s, top, "a `del`");
			break;
		case AST_GLOBAL:
			b->global |= names_has(s, b->name);
			break;
		case AST_NONLOCAL:
			b->nonlocal |= names_has(s, b->name);
			break;
		default:
			break;
		}
	}
}

/* `NAME = expr` of def e, evaluated in e's scope as host code. */
static bool encl_value(sema *s, src_loc loc, const ast_func *e, const ast_node *stmt, const char *name, sv *out)
{
	if (s->global_depth > 16)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` of `%s` is defined in terms of itself", name, e->name);
	ast_node *value = stmt->kind == AST_ASSIGN ? stmt->assign.value : stmt->annassign.value;
	if (!sema_host_value(s, e, value, out))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s`, bound in `%s` at line %d, is not a compile-time constant", name,
				  e->name, stmt->loc.line);
	return true;
}

bool sema_encl_lookup(sema *s, src_loc loc, const char *name, sv *out, bool *found)
{
	*found = false;
	for (const ast_func *e = s->encl; e; e = e->outer) {
		for (int i = 0; i < e->nparams; i++)
			if (!strcmp(e->params[i].name, name))
				return sema_error(s, loc, TILEC_ERR_SEMANTIC,
						  "`%s` is a parameter of `%s`, in whose body this code is defined: its value is known "
						  "only when the program calls `%s`", name, e->name, e->name);
		binds b = {.name = name};
		scan(&b, &e->body, true);
		if (b.global)
			return true;
		if (b.nonlocal || b.n == 0)
			continue;
		*found = true;
		bool ok;
		if (b.all_imports && sema_import_binding(s, loc, e->imports, e->nimports, name, out, &ok))
			return ok;
		if (b.n == 1 && b.top && b.kind == BIND_DEF) {
			out->kind = SV_FUNC;
			out->fn = b.last->func;
			return true;
		}
		if (b.n == 1 && b.top && b.kind == BIND_ASSIGN)
			return encl_value(s, loc, e, b.last, name, out);
		const ast_node *at = b.other ? b.other : b.first;
		const char *why = b.other ? b.why : b.n > 1 ? "more than one statement" : "a statement inside a compound statement";
		sema_error(s, loc, TILEC_ERR_SEMANTIC,
			   "`%s` is bound in `%s`, in whose body this code is defined, by %s (line %d): its value is known only "
			   "when the program runs `%s`", name, e->name, why, at->loc.line, e->name);
		diag_note(s->ctx, at->loc, "`%s` is bound here", name);
		if (b.last != at)
			diag_note(s->ctx, b.last->loc, "and here");
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- plain functions */

/* A compile-time value: a constexpr, a module, a function, a tuple of them. */
static bool host_value(sv v)
{
	if (sema_is_const(v) || v.kind == SV_MODULE || v.kind == SV_FUNC || v.kind == SV_BUILTIN)
		return true;
	if (v.kind != SV_TUPLE)
		return false;
	for (int i = 0; i < v.n; i++)
		if (!host_value(v.items[i]))
			return false;
	return true;
}

static const char *construct(const ast_node *n)
{
	switch (n->kind) {
	case AST_FOR: return "a `for` loop";
	case AST_WHILE: return "a `while` loop";
	case AST_TRY: return "a `try` statement";
	case AST_WITH: return "a `with` statement";
	case AST_IMPORT:
	case AST_IMPORT_FROM: return "an `import`";
	case AST_FUNCDEF: return "a nested `def`";
	case AST_CLASSDEF: return "a `class`";
	case AST_EXPR_STMT: return "an expression statement (a call whose value is unused)";
	case AST_GLOBAL: return "a `global` statement";
	case AST_NONLOCAL: return "a `nonlocal` statement";
	case AST_DEL: return "a `del` statement";
	case AST_SKIPPED: return "a statement tilec does not read (`match`)";
	default: return "this statement";
	}
}

static bool host_stmts(sema *s, const ast_func *fn, const ast_list *l);

static bool host_stmt(sema *s, const ast_func *fn, ast_node *n)
{
	sv v;
	bool b;
	switch (n->kind) {
	case AST_PASS:
		return true;
	case AST_EXPR_STMT:
		if (n->unary.operand->kind == AST_STR) /* a docstring */
			return true;
		break;
	case AST_ASSIGN:
		if (!sema_expr(s, n->assign.value, &v))
			return false;
		for (int i = 0; i < n->assign.targets.n; i++)
			if (!sema_assign(s, n->assign.targets.items[i], v))
				return false;
		return true;
	case AST_ANNASSIGN:
		return !n->annassign.value ||
		       (sema_expr(s, n->annassign.value, &v) && sema_assign(s, n->annassign.target, v));
	case AST_AUGASSIGN: {
		sv old;
		return sema_expr(s, n->augassign.target, &old) && sema_expr(s, n->augassign.value, &v) &&
		       sema_binop(s, n->loc, n->augassign.op, old, v, &v) && sema_assign(s, n->augassign.target, v);
	}
	case AST_IF:
		if (!sema_expr(s, n->if_.cond, &v) || !sema_truth(s, n->if_.cond->loc, v, &b))
			return false;
		return host_stmts(s, fn, b ? &n->if_.body : &n->if_.orelse);
	case AST_RETURN:
		v = (sv){.kind = SV_NONE};
		if (n->unary.operand && !sema_expr(s, n->unary.operand, &v))
			return false;
		s->returned = true;
		s->ret = v;
		return true;
	case AST_ASSERT: {
		sv msg = {.kind = SV_NONE};
		if (!sema_expr(s, n->assert_.cond, &v) || !sema_truth(s, n->assert_.cond->loc, v, &b) ||
		    (!b && n->assert_.msg && !sema_expr(s, n->assert_.msg, &msg)))
			return false;
		if (!b)
			return sema_error(s, n->loc, TILEC_ERR_SEMANTIC, "assertion failed in `%s` (run at compile time)%s%.*s",
					  fn->name, msg.kind == SV_STR ? ": " : "", msg.kind == SV_STR ? (int)msg.slen : 0,
					  msg.kind == SV_STR ? msg.s : "");
		return true;
	}
	case AST_RAISE:
		return sema_error(s, n->loc, TILEC_ERR_SEMANTIC, "`%s` (run at compile time) raises an exception here", fn->name);
	default:
		break;
	}
	return sema_error(s, n->loc, TILEC_ERR_UNSUPPORTED,
			  "`%s` runs at compile time (a plain Python function), where tilec evaluates `if` on compile-time "
			  "values, assignments, `assert`, `return` and `pass`, not %s", fn->name, construct(n));
}

static bool host_stmts(sema *s, const ast_func *fn, const ast_list *l)
{
	for (int i = 0; i < l->n && !s->returned; i++)
		if (!host_stmt(s, fn, l->items[i]))
			return false;
	return true;
}

/* Binds the arguments to fn's parameters in the current (fresh) scope:
 * defaults evaluated in fn's module and defs, as host code. */
static bool host_args(sema *s, src_loc loc, const ast_func *fn, int npos, const sv *pos, int nkw,
		      const char *const *kwnames, const sv *kwargs)
{
	int npositional = 0;
	while (npositional < fn->nparams && fn->params[npositional].kind == AST_PARAM_NORMAL)
		npositional++;
	if (npos > npositional)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` takes %d positional arguments, got %d", fn->name,
				  npositional, npos);
	for (int i = 0; i < fn->nparams; i++) {
		const ast_param *p = &fn->params[i];
		if (p->kind == AST_PARAM_VARARGS || p->kind == AST_PARAM_KWARGS)
			return sema_error(s, p->loc, TILEC_ERR_UNSUPPORTED,
					  "`%s` runs at compile time (a plain Python function), where tilec does not take "
					  "*args or **kwargs parameters", fn->name);
		sv v = {.kind = SV_UNDEF};
		bool given = i < npos;
		if (given)
			v = pos[i];
		for (int k = 0; k < nkw; k++)
			if (!strcmp(kwnames[k], p->name)) {
				if (given)
					return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` got two values for parameter `%s`",
							  fn->name, p->name);
				v = kwargs[k];
				given = true;
			}
		if (!given && !p->default_value)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` is missing argument `%s`", fn->name, p->name);
		if (!given) { /* evaluated where the def runs, not among the parameters */
			sema_scope empty = {0}, *scope = s->scope;
			s->scope = &empty;
			bool ok = sema_expr(s, p->default_value, &v);
			s->scope = scope;
			if (!ok)
				return false;
		}
		if (!host_value(v))
			return sema_error(s, loc, TILEC_ERR_SEMANTIC,
					  "`%s` runs at compile time (a plain Python function): its argument `%s` must be a "
					  "compile-time value, not %s", fn->name, p->name, sema_sv_str(s, v));
		if (!sema_set_var(s, p->loc, p->name, v))
			return false;
	}
	for (int k = 0; k < nkw; k++) {
		int i = 0;
		while (i < fn->nparams && strcmp(fn->params[i].name, kwnames[k]))
			i++;
		if (i == fn->nparams)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` has no parameter `%s`", fn->name, kwnames[k]);
	}
	return true;
}

bool sema_host_call(sema *s, src_loc loc, ast_func *fn, int npos, const sv *pos, int nkw, const char *const *kwnames,
		    const sv *kwargs, sv *out)
{
	for (int i = 0; i < fn->decorators.n; i++)
		if (fn->deco_kinds[i] != AST_DECO_CONSTEXPR)
			return sema_error(s, fn->decorators.items[i]->loc, TILEC_ERR_UNSUPPORTED,
					  "`%s` would run at compile time, but its decorator is host code that tilec does "
					  "not run", fn->name);
	if (s->depth >= 64)
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "helper calls nested more than 64 deep (recursion is not supported)");
	/* functions that call the next twice, 40 deep, would run 2^40 times */
	if (++s->host_calls > SEMA_MAX_HOST_CALLS)
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED,
				  "plain functions run at compile time make more than %d calls for this kernel",
				  SEMA_MAX_HOST_CALLS);
	sema_scope sc = {0}, *scope = s->scope;
	const fe_module *m = s->m;
	const ast_func *encl = s->encl, *host_fn = s->host_fn;
	bool host = s->host, returned = s->returned;
	sv ret = s->ret;
	s->scope = &sc;
	s->m = sema_module_of(s, fn);
	s->encl = fn->outer;
	s->host = true;
	s->host_fn = fn;
	s->returned = false;
	s->global_depth++;
	s->depth++;
	bool args = host_args(s, loc, fn, npos, pos, nkw, kwnames, kwargs);
	bool ok = args && host_stmts(s, fn, &fn->body);
	*out = s->returned ? s->ret : (sv){.kind = SV_NONE};
	s->depth--;
	s->global_depth--;
	s->scope = scope;
	s->m = m;
	s->encl = encl;
	s->host = host;
	s->host_fn = host_fn;
	s->returned = returned;
	s->ret = ret;
	if (args && !ok && s->depth <= 3)
		diag_note(s->ctx, loc, "in the call of `%s` here", fn->name);
	return ok;
}

/* ---------------------------------------------------------------- --bind */

/* Whether a module's file is the module a dotted qualifier names:
 * "a.b" is .../a/b.py or .../a/b/__init__.py. */
static bool module_matches(const char *file, const char *qual, size_t qlen)
{
	char rel[512];
	if (qlen + 16 > sizeof rel)
		return false;
	for (size_t i = 0; i < qlen; i++)
		rel[i] = qual[i] == '.' ? '/' : qual[i];
	static const char *const tails[2] = {".py", "/__init__.py"};
	size_t flen = strlen(file);
	for (int k = 0; k < 2; k++) {
		strcpy(rel + qlen, tails[k]);
		size_t n = strlen(rel);
		if (flen >= n && !strcmp(file + flen - n, rel) && (flen == n || file[flen - n - 1] == '/'))
			return true;
	}
	return false;
}

bool sema_bound(sema *s, const char *name, sv *out)
{
	for (int i = s->nbinds - 1; i >= 0; i--) {
		const char *full = s->binds[i].name, *dot = strrchr(full, '.');
		const char *base = dot ? dot + 1 : full;
		if (strcmp(base, name) || (dot && !module_matches(s->m->file->path, full, (size_t)(dot - full))))
			continue;
		*out = s->bind_vals[i];
		return true;
	}
	return false;
}

static bool dotted(const char *t)
{
	bool start = true;
	for (; *t; t++) {
		bool alpha = (*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || *t == '_';
		if (*t == '.' ? start : !(alpha || (!start && *t >= '0' && *t <= '9')))
			return false;
		start = *t == '.';
	}
	return !start;
}

bool sema_bind_values(sema *s)
{
	src_loc none = {0};
	sv *vals = arena_alloc(s->a, sizeof(sv) * (size_t)(s->nbinds + 1));
	if (!vals)
		return sema_error(s, none, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < s->nbinds; i++) {
		const char *name = s->binds[i].name, *text = s->binds[i].value;
		if (!dotted(name))
			return sema_error(s, none, TILEC_ERR_INVALID, "--bind %s=%s: `%s` is not a name (or a module's name, "
					  "a.b.NAME)", name, text, name);
		if (sema_parse_literal(s->a, text, strlen(text), &vals[i]))
			continue;
		bool ok = dotted(text) && !strncmp(text, "triton", 6) && (text[6] == '.' || !text[6]);
		if (ok) {
			sema_quiet q;
			sema_quiet_begin(s, &q);
			sv v = {.kind = SV_MODULE, .s = "triton"};
			for (const char *p = text + 6; ok && *p == '.';) {
				const char *e = strchr(p + 1, '.');
				size_t n = e ? (size_t)(e - p - 1) : strlen(p + 1);
				const char *part = arena_strndup(s->a, p + 1, n);
				ok = part && sema_attr(s, none, v, part, &v);
				p += n + 1;
			}
			sema_quiet_end(s, &q);
			vals[i] = v;
			ok = ok && (v.kind == SV_MODULE || v.kind == SV_BUILTIN || sema_is_const(v));
		}
		if (!ok)
			return sema_error(s, none, TILEC_ERR_INVALID,
					  "--bind %s=%s: the value is neither a Python literal nor a Triton module or object "
					  "that tile knows, by its dotted path (such as triton.language.extra.libdevice.rsqrt)",
					  name, text);
	}
	s->bind_vals = vals;
	return true;
}

bool sema_host_code_error(sema *s, src_loc loc, const char *name, const char *why)
{
	const char *example = sema_is_libdevice(name) ? arena_printf(s->a, "triton.language.extra.libdevice.%s", name)
						      : "triton.language.extra.cuda.libdevice";
	return sema_error(s, loc, TILEC_ERR_SEMANTIC,
			  "global `%s` is not a compile-time constant: host code computes it%s%s%s, which tilec does not run "
			  "(give its value with --bind %s=VALUE: a Python literal, a dtype, or a Triton module or object "
			  "by its path, such as %s)", name, why ? " (" : "", why ? why : "", why ? ")" : "", name,
			  example ? example : "triton.language.extra.cuda.libdevice");
}

/* ---------------------------------------------------------------- module-level try */

static const ast_global *global_of(const ast_module *am, const ast_node *stmt)
{
	for (int i = 0; i < am->nglobals; i++)
		if (am->globals[i].stmt == stmt)
			return &am->globals[i];
	return NULL;
}

/* Whether the statements of l surely complete with Triton 3.6: Triton
 * imports that resolve, assignments of compile-time values, pass. */
static bool completes(sema *s, src_loc loc, const ast_list *l)
{
	const ast_module *am = s->m->ast;
	for (int i = 0; i < l->n; i++) {
		const ast_node *n = l->items[i];
		bool ok = n->kind == AST_PASS || (n->kind == AST_EXPR_STMT && n->unary.operand->kind == AST_STR);
		if (n->kind == AST_IMPORT || n->kind == AST_IMPORT_FROM) {
			ok = true;
			for (int k = 0; k < n->import_.n && ok; k++)
				ok = !sema_is_user_module(n->import_.names[k].path) &&
				     sema_import_resolves(s, loc, &n->import_.names[k]);
		} else if (n->kind == AST_ASSIGN || n->kind == AST_ANNASSIGN) {
			const ast_global *g = global_of(am, n);
			sema_quiet q;
			sv v;
			sema_quiet_begin(s, &q);
			ok = g && sema_global_value(s, loc, g, &v);
			sema_quiet_end(s, &q);
		}
		if (!ok)
			return false;
	}
	return true;
}

bool sema_try_global(sema *s, src_loc loc, const ast_node *t, const ast_global *g, sv *out, bool *outer)
{
	*outer = false;
	for (int i = 0; i < s->ntries; i++)
		if (s->tries[i] == t)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "global `%s` is defined in terms of itself", g->name);
	if (s->ntries == (int)(sizeof s->tries / sizeof s->tries[0]))
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "globals bound in `try` statements nest too deeply");
	const ast_list *runs[3] = {&t->try_.body, &t->try_.orelse, &t->try_.finalbody};
	s->tries[s->ntries++] = t;
	bool known = true;
	for (int k = 0; k < 3 && known; k++)
		known = completes(s, loc, runs[k]);
	s->ntries--;
	if (!known)
		return sema_host_code_error(s, loc, g->name,
					    arena_printf(s->a, "the `try` at %s:%d runs host code, and its `except` clauses "
							 "bind it only if that raises", t->loc.file->path, t->loc.line));
	/* the body completes: its binding (or else's, finally's) holds, the handlers' do not run */
	const ast_global *last = NULL;
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < runs[k]->n; i++) {
			const ast_global *x = global_of(s->m->ast, runs[k]->items[i]);
			if (x && !strcmp(x->name, g->name))
				last = x;
		}
	if (!last) {
		*outer = true;
		return true;
	}
	return sema_global_value(s, loc, last, out);
}
