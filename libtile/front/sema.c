/* sema.c - specialization: a @jit kernel, a signature and constexprs in,
 * typed tile IR out.
 *
 * The kernel body is executed abstractly, statement by statement, the way
 * Triton's code generator walks the Python AST: constexprs are values
 * (folded, `if CONSTEXPR:` runs only the taken branch, static_range
 * unrolls), everything else becomes IR in the current region. @jit helpers
 * are inlined at each call with their own variables. Runtime `if`, `for`
 * and `while` build structured ops: the variables a branch or a loop body
 * rebinds are found by comparing the variable tables before and after (for
 * loops, a syntactic scan of the body's assignments decides which ones are
 * carried), then yielded; their types must agree, as Triton requires. A
 * name bound differently by the branches in a way that cannot be merged
 * (only in one branch, or with two types) becomes undefined after the
 * `if`, carrying the reason, which is reported only where it is read.
 * A runtime `if` that may `return` (outside runtime loops, as in Triton)
 * takes what follows it up to the end of the function (the continuation:
 * the rest of each enclosing statement list and static_range iteration)
 * into both of its branches, so the function returns in both and the
 * returned values become the `if`'s results: `if c: return` followed by
 * statements is `if c {} else {statements}`.
 * A plain assignment turns a Python number into a tensor (Triton's
 * `_sanitize_value`); `x: tl.constexpr = ...` keeps it a constexpr.
 */
#include "front/sema.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

bool sema_error(sema *s, src_loc loc, tilec_status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(s->ctx, loc, "error", fmt, ap);
	va_end(ap);
	s->ctx->errors++;
	if (s->status == TILEC_OK)
		s->status = st;
	return false;
}

/* ---------------------------------------------------------------- variables */

static sema_var *var_find(sema_scope *sc, const char *name)
{
	for (int i = sc->n - 1; i >= 0; i--)
		if (!strcmp(sc->vars[i].name, name))
			return &sc->vars[i];
	return NULL;
}

static bool var_set(sema *s, src_loc loc, const char *name, sv v)
{
	sema_var *x = var_find(s->scope, name);
	if (x) {
		x->val = v;
		return true;
	}
	sema_scope *sc = s->scope;
	if (sc->n == sc->cap) {
		int cap = sc->cap ? sc->cap * 2 : 16;
		sema_var *nv = arena_realloc(s->a, sc->vars, sizeof(sema_var) * (size_t)sc->cap, sizeof(sema_var) * (size_t)cap);
		if (!nv)
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		sc->vars = nv;
		sc->cap = cap;
	}
	sc->vars[sc->n].name = name;
	sc->vars[sc->n].val = v;
	sc->n++;
	return true;
}

static sema_scope *scope_copy(sema *s, const sema_scope *from)
{
	sema_scope *sc = arena_alloc(s->a, sizeof *sc);
	if (!sc)
		return NULL;
	sc->cap = from->n + 8;
	sc->n = from->n;
	sc->vars = arena_alloc(s->a, sizeof(sema_var) * (size_t)sc->cap);
	if (!sc->vars)
		return NULL;
	if (from->n)
		memcpy(sc->vars, from->vars, sizeof(sema_var) * (size_t)from->n);
	return sc;
}

/* Same binding: the same IR value or the same constexpr. */
static bool sv_same(sv a, sv b)
{
	if (a.kind != b.kind)
		return false;
	switch (a.kind) {
	case SV_TENSOR: return a.id == b.id;
	case SV_BOOL:
	case SV_INT: return a.i == b.i;
	case SV_FLOAT: return a.f == b.f || (a.f != a.f && b.f != b.f);
	case SV_STR: return a.slen == b.slen && !memcmp(a.s, b.s, a.slen);
	case SV_DTYPE: return a.t.kind == b.t.kind && a.t.pointee == b.t.pointee;
	case SV_TUPLE:
		if (a.n != b.n)
			return false;
		for (int i = 0; i < a.n; i++)
			if (!sv_same(a.items[i], b.items[i]))
				return false;
		return true;
	case SV_MODULE:
	case SV_BUILTIN: return !strcmp(a.s, b.s);
	case SV_FUNC: return a.fn == b.fn;
	case SV_DESC:
	case SV_BLOCKPTR:
		if (a.n != b.n || a.i != b.i || !ir_type_eq(a.t, b.t))
			return false;
		for (int i = 0; i < a.n; i++)
			if (!sv_same(a.items[i], b.items[i]))
				return false;
		return true;
	default: return true;
	}
}

/* ---------------------------------------------------------------- names */

void sema_quiet_begin(sema *s, sema_quiet *q)
{
	memset(&q->ctx, 0, sizeof q->ctx);
	q->saved = s->ctx;
	q->status = s->status;
	s->ctx = &q->ctx;
}

void sema_quiet_end(sema *s, sema_quiet *q)
{
	tilec_ctx *ctx = q->saved;
	s->ctx = ctx;
	s->status = q->status;
	sb_free(&q->ctx.diags);
	sb_free(&q->ctx.device_out);
	/* files read meanwhile are still the compile's inputs (--depfile) */
	for (int i = 0; i < q->ctx.ninputs; i++) {
		bool known = false;
		for (int k = 0; k < ctx->ninputs && !known; k++)
			known = !strcmp(ctx->inputs[k], q->ctx.inputs[i]);
		if (!known && ctx->ninputs == ctx->capinputs) {
			int cap = ctx->capinputs ? ctx->capinputs * 2 : 8;
			char **p = realloc(ctx->inputs, sizeof(char *) * (size_t)cap);
			if (p) {
				ctx->inputs = p;
				ctx->capinputs = cap;
			}
		}
		if (!known && ctx->ninputs < ctx->capinputs)
			ctx->inputs[ctx->ninputs++] = q->ctx.inputs[i];
		else
			free(q->ctx.inputs[i]);
	}
	free(q->ctx.inputs);
}

/* A module-level assignment, evaluated as a constant where it is used: in
 * the module's scope, as host code. */
bool sema_global_value(sema *s, src_loc loc, const ast_global *g, sv *out)
{
	if (s->global_depth > 16)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "global `%s` is defined in terms of itself", g->name);
	return sema_host_value(s, NULL, g->value, out) || sema_host_code_error(s, loc, g->name, NULL);
}

/* value as host code in the scope of encl's body (NULL: the module's),
 * away from the kernel's locals; the caller bounds the depth. */
bool sema_host_value(sema *s, const ast_func *encl, ast_node *value, sv *out)
{
	sema_scope empty = {0}, *saved = s->scope;
	const ast_func *saved_encl = s->encl, *host_fn = s->host_fn;
	bool host = s->host;
	s->scope = &empty;
	s->encl = encl;
	s->host = true;
	s->host_fn = NULL;
	s->global_depth++;
	bool ok = sema_expr(s, value, out);
	s->global_depth--;
	s->scope = saved;
	s->encl = saved_encl;
	s->host = host;
	s->host_fn = host_fn;
	return ok;
}

/* The value an import binds: a module, or an attribute of one. */
static bool import_value(sema *s, src_loc loc, const ast_import *imp, sv *out)
{
	const char *path = imp->path;
	const char *dot = strrchr(path, '.');
	memset(out, 0, sizeof *out);
	/* `from triton.language import exp`: an attribute of a module */
	if (dot && dot > path && dot[-1] != '.')
		return sema_module_attr(s, loc, arena_strndup(s->a, path, (size_t)(dot - path)), dot + 1, out);
	/* `from . import utils`, `from .. import x`: the leading dots are the package */
	if (dot && path[0] == '.') {
		size_t n = strspn(path, ".");
		if (strchr(path + n, '.') == NULL)
			return sema_user_attr(s, loc, arena_strndup(s->a, path, n), path + n, out);
	}
	if (sema_is_user_module(path))
		return sema_user_module(s, loc, path, out);
	out->kind = SV_MODULE;
	out->s = path;
	return true;
}

/* Whether an import names something tile knows, without a diagnostic. */
bool sema_import_resolves(sema *s, src_loc loc, const ast_import *imp)
{
	sema_quiet q;
	sema_quiet_begin(s, &q);
	sv v;
	bool ok = import_value(s, loc, imp, &v);
	sema_quiet_end(s, &q);
	/* a plain `import x` binds a module whatever x is: only known roots count */
	if (ok && v.kind == SV_MODULE && !strchr(imp->path, '.'))
		ok = !strcmp(imp->path, "triton") || !strcmp(imp->path, "math");
	return ok;
}

bool sema_import_binding(sema *s, src_loc loc, const ast_import *imps, int n, const char *name, sv *out, bool *ok)
{
	for (int i = n - 1; i >= 0; i--)
		if (!strcmp(imps[i].alias, name)) {
			int g = imps[i].group;
			if (!g) {
				*ok = import_value(s, loc, &imps[i], out);
				return true;
			}
			/* bound inside an if/try: the first binding of the statement
			 * that resolves, as a current Triton's import would */
			int first = -1;
			for (int j = 0; j < n; j++)
				if (imps[j].group == g && !strcmp(imps[j].alias, name)) {
					if (first < 0)
						first = j;
					if (sema_import_resolves(s, loc, &imps[j])) {
						*ok = import_value(s, loc, &imps[j], out);
						return true;
					}
				}
			*ok = import_value(s, loc, &imps[first], out);
			return true;
		}
	return false;
}

/* The module-level statement that holds statement `stmt`, through the
 * blocks of compound statements; NULL when stmt is not below `l`. */
static const ast_node *holder(const ast_list *l, const ast_node *stmt)
{
	for (int i = 0; i < l->n; i++) {
		const ast_node *n = l->items[i];
		if (n == stmt)
			return n;
		const ast_list *blocks[4] = {0};
		switch (n->kind) {
		case AST_IF: blocks[0] = &n->if_.body, blocks[1] = &n->if_.orelse; break;
		case AST_FOR: blocks[0] = &n->for_.body, blocks[1] = &n->for_.orelse; break;
		case AST_WHILE: blocks[0] = &n->while_.body, blocks[1] = &n->while_.orelse; break;
		case AST_WITH: blocks[0] = &n->with_.body; break;
		case AST_TRY:
			blocks[0] = &n->try_.body, blocks[1] = &n->try_.orelse, blocks[2] = &n->try_.finalbody;
			for (int h = 0; h < n->try_.handlers.n; h++)
				if (holder(&n->try_.handlers.items[h]->except_.body, stmt))
					return n;
			break;
		default: break;
		}
		for (int b = 0; b < 4 && blocks[b]; b++)
			if (holder(blocks[b], stmt))
				return n;
	}
	return NULL;
}

/* A name of module s->m: --bind, @jit functions, imports, globals (those a
 * module-level `try` binds as Python would run it), builtins, plain defs. */
static bool module_lookup(sema *s, src_loc loc, const char *name, sv *out)
{
	const ast_module *am = s->m->ast;
	if (sema_bound(s, name, out))
		return true;
	ast_func *fn = ast_find_func(am, name);
	if (fn) {
		out->kind = SV_FUNC;
		out->fn = fn;
		return true;
	}
	bool ok;
	if (sema_import_binding(s, loc, am->imports, am->nimports, name, out, &ok))
		return ok;
	const ast_node *unrun = NULL; /* a try that binds it only in clauses that do not run */
	for (int i = am->nglobals - 1; i >= 0; i--) {
		const ast_global *g = &am->globals[i];
		if (strcmp(g->name, name))
			continue;
		const ast_node *t = g->group ? holder(&am->body, g->stmt) : NULL;
		if (!t || t->kind != AST_TRY)
			return sema_global_value(s, loc, g, out);
		bool outer = false;
		if (!sema_try_global(s, loc, t, g, out, &outer))
			return false;
		if (!outer)
			return true;
		unrun = t;
		while (i > 0 && am->globals[i - 1].group == g->group)
			i--;
	}
	if (unrun)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC,
				  "global `%s` is bound only in the `except` clauses of the `try` at %s:%d, which do not run "
				  "(its body does not raise with Triton 3.6)", name, unrun->loc.file->path, unrun->loc.line);
	static const char *const py[] = {"range", "min", "max", "int", "float", "bool", "len", "abs"};
	for (size_t i = 0; i < sizeof py / sizeof py[0]; i++)
		if (!strcmp(py[i], name)) {
			out->kind = SV_BUILTIN;
			out->s = py[i];
			return true;
		}
	if (!strcmp(name, "print")) { /* Python's print in a kernel is tl.device_print */
		out->kind = SV_BUILTIN;
		out->s = "print";
		return true;
	}
	for (int i = 0; i < am->nimports; i++)
		if (!strcmp(am->imports[i].alias, "*"))
			return sema_module_attr(s, loc, am->imports[i].path, name, out);
	for (int i = am->nhost_funcs - 1; i >= 0; i--)
		if (!strcmp(am->host_funcs[i]->name, name)) {
			out->kind = SV_FUNC;
			out->fn = am->host_funcs[i];
			return true;
		}
	return sema_error(s, loc, TILEC_ERR_SEMANTIC, "name `%s` is not defined", name);
}

bool sema_lookup(sema *s, src_loc loc, const char *name, sv *out)
{
	memset(out, 0, sizeof *out);
	sema_var *v = var_find(s->scope, name);
	if (v) {
		if (v->val.kind == SV_UNDEF && v->val.s)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "%s, and cannot be used here", v->val.s);
		if (v->val.kind == SV_UNDEF)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC,
					  "`%s` is defined in only one branch of a runtime `if` (or only inside a loop) and cannot be used here",
					  name);
		*out = v->val;
		return true;
	}
	bool found = false;
	if (s->encl && !sema_encl_lookup(s, loc, name, out, &found))
		return false;
	if (!found && !module_lookup(s, loc, name, out))
		return false;
	/* Triton reads a global (a factory's name too) that is a plain function
	 * only when it is marked constexpr; host code calls any */
	if (out->kind == SV_FUNC && !out->fn->jit && !out->fn->constexpr_fn && !s->host)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC,
				  "`%s` is not a @triton.jit function: a kernel can call only @jit helpers, and plain functions "
				  "marked @tl.constexpr (run at compile time)", name);
	return true;
}

/* ---------------------------------------------------------------- statements */

/* What follows a statement up to the end of its function, innermost first:
 * statements l->items[idx..], or the static_range iterations of `body` from
 * `next` (bound to `var`). Only a runtime `if` that may return uses it. */
typedef struct sema_cont {
	const ast_list *l;
	int idx;
	const ast_list *body;
	const char *var;
	src_loc loc;
	int64_t next, end, step;
	const struct sema_cont *up;
} sema_cont;

static bool stmts(sema *s, const ast_list *l, const sema_cont *after);
static bool stmts_from(sema *s, const ast_list *l, int idx, const sema_cont *after);

/* Triton's _sanitize_value: numbers assigned to variables become tensors. */
static bool sanitize(sema *s, src_loc loc, sv v, sv *out)
{
	if (sema_is_num(v)) {
		int id = sema_to_tensor(s, loc, v);
		if (id < 0)
			return false;
		*out = sema_tensor(id);
		return true;
	}
	if (v.kind == SV_TUPLE) {
		sv t = v;
		t.items = arena_alloc(s->a, sizeof(sv) * (size_t)(v.n + 1));
		if (!t.items)
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		for (int i = 0; i < v.n; i++)
			if (!sanitize(s, loc, v.items[i], &t.items[i]))
				return false;
		*out = t;
		return true;
	}
	*out = v;
	return true;
}

static bool assign(sema *s, ast_node *target, sv v)
{
	switch (target->kind) {
	case AST_NAME:
		return var_set(s, target->loc, target->name.id, v);
	case AST_TUPLE:
	case AST_LIST:
		if (v.kind != SV_TUPLE)
			return sema_error(s, target->loc, TILEC_ERR_SEMANTIC, "cannot unpack %s", sema_sv_str(s, v));
		if (v.n != target->seq.items.n)
			return sema_error(s, target->loc, TILEC_ERR_SEMANTIC, "cannot unpack %d values into %d names", v.n,
					  target->seq.items.n);
		for (int i = 0; i < v.n; i++)
			if (!assign(s, target->seq.items.items[i], v.items[i]))
				return false;
		return true;
	default:
		return sema_error(s, target->loc, TILEC_ERR_UNSUPPORTED, "assignment to `%s` is not supported",
				  ast_kind_name(target->kind));
	}
}

bool sema_set_var(sema *s, src_loc loc, const char *name, sv v)
{
	return var_set(s, loc, name, v);
}

bool sema_assign(sema *s, ast_node *target, sv v)
{
	return assign(s, target, v);
}

static bool is_constexpr_annotation(sema *s, ast_node *ann)
{
	if (ann->kind == AST_STR)
		return ann->lit.slen >= 9 && strstr(ann->lit.sval, "constexpr") != NULL;
	sv v;
	sema_scope empty = {0}, *saved = s->scope;
	tilec_ctx quiet = {0};
	tilec_ctx *ctx = s->ctx;
	tilec_status st = s->status;
	s->ctx = &quiet;
	s->scope = &empty;
	s->global_depth++;
	bool ok = sema_expr(s, ann, &v);
	s->global_depth--;
	s->scope = saved;
	s->ctx = ctx;
	s->status = st;
	sb_free(&quiet.diags);
	return ok && v.kind == SV_BUILTIN && !strcmp(v.s, "tl.constexpr");
}

/* Names a statement list assigns, for loop-carried values. */
static void assigned_names(sema *s, const ast_list *l, const char ***names, int *n, int *cap);

static void add_name(sema *s, const char *name, const char ***names, int *n, int *cap)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp((*names)[i], name))
			return;
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 8;
		const char **nn = arena_realloc(s->a, (void *)*names, sizeof(char *) * (size_t)*cap, sizeof(char *) * (size_t)nc);
		if (!nn)
			return;
		*names = nn;
		*cap = nc;
	}
	(*names)[(*n)++] = name;
}

static void target_names(sema *s, ast_node *t, const char ***names, int *n, int *cap)
{
	if (t->kind == AST_NAME)
		add_name(s, t->name.id, names, n, cap);
	else if (t->kind == AST_TUPLE || t->kind == AST_LIST)
		for (int i = 0; i < t->seq.items.n; i++)
			target_names(s, t->seq.items.items[i], names, n, cap);
}

static void assigned_names(sema *s, const ast_list *l, const char ***names, int *n, int *cap)
{
	for (int i = 0; i < l->n; i++) {
		ast_node *st = l->items[i];
		switch (st->kind) {
		case AST_ASSIGN:
			for (int k = 0; k < st->assign.targets.n; k++)
				target_names(s, st->assign.targets.items[k], names, n, cap);
			break;
		case AST_AUGASSIGN: target_names(s, st->augassign.target, names, n, cap); break;
		case AST_ANNASSIGN: target_names(s, st->annassign.target, names, n, cap); break;
		case AST_IF:
			assigned_names(s, &st->if_.body, names, n, cap);
			assigned_names(s, &st->if_.orelse, names, n, cap);
			break;
		case AST_FOR:
			target_names(s, st->for_.target, names, n, cap);
			assigned_names(s, &st->for_.body, names, n, cap);
			break;
		case AST_WHILE: assigned_names(s, &st->while_.body, names, n, cap); break;
		default: break;
		}
	}
}

/* Sets an op's results (built after its regions). */
static bool set_results(sema *s, src_loc loc, ir_op *op, int n, const ir_type *types)
{
	int *r = arena_alloc(s->a, sizeof(int) * (size_t)(n + 1));
	if (!r)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		if ((r[i] = ir_value_new(s->f, types[i])) < 0)
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		s->f->values[r[i]].def = op;
		s->f->values[r[i]].def_index = i;
	}
	op->results = r;
	op->nresults = n;
	return true;
}

static bool yield(sema *s, src_loc loc, int n, const int *vals)
{
	ir_op *op = ir_op_new(s->f, IR_OP_YIELD, loc, n, vals, 0, NULL, 0);
	if (!op || !ir_region_append(s->f, s->cur, op))
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	return true;
}

static void name_value(sema *s, int id, const char *name)
{
	if (id >= s->f->nparams && !s->f->values[id].name)
		s->f->values[id].name = name;
}

/* An unbound name that says why when it is read. */
static sv undefined(sema *s, const char *fmt, ...) TILE_PRINTF(2, 3);
static sv undefined(sema *s, const char *fmt, ...)
{
	strbuf sb;
	sb_init(&sb);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	sv v = {.kind = SV_UNDEF};
	v.s = arena_strdup(s->a, sb_str(&sb));
	sb_free(&sb);
	return v;
}

static bool bound(const sema_var *v)
{
	return v && v->val.kind != SV_UNDEF;
}

static int leaves(sv v, int *ids);
static bool with_leaves(sema *s, src_loc loc, sv v, const int *ids, sv *out);

static bool runtime_if(sema *s, ast_node *n, int cond)
{
	src_loc loc = n->loc;
	ir_op *op = ir_op_new(s->f, IR_OP_IF, loc, 1, &cond, 0, NULL, 2);
	if (!op)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	sema_scope *before = s->scope, *branch[2];
	ir_region *saved = s->cur;
	for (int k = 0; k < 2; k++) {
		if (!(branch[k] = scope_copy(s, before)))
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		s->scope = branch[k];
		s->cur = &op->regions[k];
		if (!stmts(s, k ? &n->if_.orelse : &n->if_.body, NULL)) {
			s->scope = before;
			s->cur = saved;
			return false;
		}
		/* a runtime if inside the branch leaves its names in a scope of its own */
		branch[k] = s->scope;
	}
	/* names bound differently by the two branches (or new in both) */
	/* a block pointer yields its parts (names[] NULL for them), rebuilt after */
	int nb = branch[0]->n + branch[1]->n + 1, cap = nb * (1 + 3 * IR_MAX_RANK), ny = 0, nbp = 0;
	const char **names = arena_alloc(s->a, sizeof(char *) * (size_t)cap);
	int *vals[2] = {arena_alloc(s->a, sizeof(int) * (size_t)cap), arena_alloc(s->a, sizeof(int) * (size_t)cap)};
	ir_type *types = arena_alloc(s->a, sizeof(ir_type) * (size_t)cap);
	const char **bp_name = arena_alloc(s->a, sizeof(char *) * (size_t)nb);
	sv *bp_tmpl = arena_alloc(s->a, sizeof(sv) * (size_t)nb);
	int *bp_first = arena_alloc(s->a, sizeof(int) * (size_t)nb);
	sema_scope *after = scope_copy(s, before);
	if (!names || !vals[0] || !vals[1] || !types || !after || !bp_name || !bp_tmpl || !bp_first)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < branch[k]->n; i++) {
			const char *name = branch[k]->vars[i].name;
			sema_var *b0 = var_find(branch[0], name), *b1 = var_find(branch[1], name), *old = var_find(before, name);
			bool listed = false;
			for (int j = 0; j < ny; j++)
				listed |= names[j] && !strcmp(names[j], name);
			for (int j = 0; j < nbp; j++)
				listed |= !strcmp(bp_name[j], name);
			if (listed || (k == 1 && b0))
				continue;
			s->scope = after;
			if (!bound(b0) || !bound(b1)) {
				if (bound(b0) || bound(b1)) {
					sv u = undefined(s, "`%s` is defined in only one branch of the runtime `if` at line %d", name,
							 loc.line);
					if (!var_set(s, loc, name, u))
						return false;
				}
				continue;
			}
			if (sv_same(b0->val, b1->val)) {
				if (!old || !sv_same(old->val, b0->val))
					if (!var_set(s, loc, name, b0->val))
						return false;
				continue;
			}
			if (b0->val.kind == SV_BLOCKPTR && b1->val.kind == SV_BLOCKPTR && b0->val.n == b1->val.n &&
			    ir_type_eq(b0->val.t, b1->val.t)) {
				int k0 = leaves(b0->val, vals[0] + ny);
				leaves(b1->val, vals[1] + ny);
				bool same = true;
				for (int j = 0; j < k0; j++) {
					types[ny + j] = sema_type(s, vals[0][ny + j]);
					same &= ir_type_eq(types[ny + j], sema_type(s, vals[1][ny + j]));
					names[ny + j] = NULL;
				}
				if (same) {
					bp_name[nbp] = name;
					bp_tmpl[nbp] = b0->val;
					bp_first[nbp++] = ny;
					ny += k0;
					continue;
				}
			}
			sv u = {.kind = SV_NONE};
			for (int j = 0; j < 2 && u.kind == SV_NONE; j++) {
				sv v = j ? b1->val : b0->val;
				if (v.kind != SV_TENSOR && !sema_is_num(v))
					u = undefined(s, "`%s` is bound to different values of a kind that cannot be yielded (%s) in the branches of the runtime `if` at line %d",
						      name, sema_sv_str(s, v), loc.line);
			}
			for (int j = 0; j < 2 && u.kind == SV_NONE; j++) {
				s->cur = &op->regions[j];
				vals[j][ny] = sema_to_tensor(s, loc, j ? b1->val : b0->val);
				s->cur = saved;
				if (vals[j][ny] < 0) {
					s->scope = before;
					return false;
				}
			}
			ir_type t0 = u.kind == SV_NONE ? sema_type(s, vals[0][ny]) : ir_scalar(IR_VOID);
			ir_type t1 = u.kind == SV_NONE ? sema_type(s, vals[1][ny]) : ir_scalar(IR_VOID);
			if (u.kind == SV_NONE && !ir_type_eq(t0, t1))
				u = undefined(s, "`%s` has type %s in the then branch but %s in the else branch of the runtime `if` at line %d",
					      name, sema_type_str(s, t0), sema_type_str(s, t1), loc.line);
			if (u.kind == SV_UNDEF) {
				if (!var_set(s, loc, name, u))
					return false;
				continue;
			}
			types[ny] = t0;
			names[ny++] = name;
		}
	for (int k = 0; k < 2; k++) {
		s->cur = &op->regions[k];
		if (!yield(s, loc, ny, vals[k]))
			return false;
	}
	s->cur = saved;
	s->scope = after;
	if (!set_results(s, loc, op, ny, types) || !ir_region_append(s->f, s->cur, op))
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < ny; i++) {
		if (!names[i])
			continue; /* a part of a block pointer */
		name_value(s, op->results[i], names[i]);
		if (!var_set(s, loc, names[i], sema_tensor(op->results[i])))
			return false;
	}
	for (int i = 0; i < nbp; i++) {
		sv v;
		if (!with_leaves(s, loc, bp_tmpl[i], op->results + bp_first[i], &v) || !var_set(s, loc, bp_name[i], v))
			return false;
	}
	return true;
}

/* ---------------------------------------------------------------- early returns */

/* A `return` anywhere in the statements (helpers' returns are their own). */
static bool has_return(const ast_list *l)
{
	for (int i = 0; i < l->n; i++) {
		const ast_node *n = l->items[i];
		switch (n->kind) {
		case AST_RETURN: return true;
		case AST_IF:
			if (has_return(&n->if_.body) || has_return(&n->if_.orelse))
				return true;
			break;
		case AST_FOR:
			if (has_return(&n->for_.body))
				return true;
			break;
		case AST_WHILE:
			if (has_return(&n->while_.body))
				return true;
			break;
		default: break;
		}
	}
	return false;
}

/* The values two branches return, merged: equal constexprs and shared
 * values stay, tensors pair up as the `if`'s results (placeholders
 * -1 - k until the results exist), tuples item by item. */
typedef struct ret_merge {
	int n, cap;
	int *v[2];
	ir_type *types;
} ret_merge;

static bool merge_returns(sema *s, src_loc loc, ret_merge *m, sv a, sv b, sv *out)
{
	if (a.kind == SV_TUPLE && b.kind == SV_TUPLE && a.n == b.n) {
		*out = a;
		out->items = arena_alloc(s->a, sizeof(sv) * (size_t)(a.n + 1));
		if (!out->items)
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		for (int i = 0; i < a.n; i++)
			if (!merge_returns(s, loc, m, a.items[i], b.items[i], &out->items[i]))
				return false;
		return true;
	}
	if (sv_same(a, b)) {
		*out = a;
		return true;
	}
	if (a.kind != SV_TENSOR || b.kind != SV_TENSOR)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC,
				  "the branches of this runtime `if` return different values that cannot be merged: %s and %s",
				  sema_sv_str(s, a), sema_sv_str(s, b));
	ir_type ta = sema_type(s, a.id), tb = sema_type(s, b.id);
	if (!ir_type_eq(ta, tb))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC,
				  "inconsistent return types: %s in the then branch of this runtime `if`, %s in the else branch",
				  sema_type_str(s, ta), sema_type_str(s, tb));
	if (m->n == m->cap) {
		int cap = m->cap ? m->cap * 2 : 4;
		int *v0 = arena_realloc(s->a, m->v[0], sizeof(int) * (size_t)m->cap, sizeof(int) * (size_t)cap);
		int *v1 = arena_realloc(s->a, m->v[1], sizeof(int) * (size_t)m->cap, sizeof(int) * (size_t)cap);
		ir_type *t = arena_realloc(s->a, m->types, sizeof(ir_type) * (size_t)m->cap, sizeof(ir_type) * (size_t)cap);
		if (!v0 || !v1 || !t)
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		m->v[0] = v0, m->v[1] = v1, m->types = t, m->cap = cap;
	}
	m->v[0][m->n] = a.id;
	m->v[1][m->n] = b.id;
	m->types[m->n] = ta;
	*out = sema_tensor(-1 - m->n++);
	return true;
}

static void bind_results(sv *v, const ir_op *op)
{
	if (v->kind == SV_TENSOR && v->id < 0)
		v->id = op->results[-1 - v->id];
	else if (v->kind == SV_TUPLE)
		for (int i = 0; i < v->n; i++)
			bind_results(&v->items[i], op);
}

/* Runs the continuation: each frame's rest, innermost first. */
static bool run_after(sema *s, const sema_cont *c)
{
	for (; c && !s->returned; c = c->up) {
		if (c->l) {
			if (!stmts_from(s, c->l, c->idx, c->up))
				return false;
			continue;
		}
		for (int64_t i = c->next; c->step > 0 ? i < c->end : i > c->end;) {
			int64_t nx;
			bool last = __builtin_add_overflow(i, c->step, &nx);
			sema_cont rest = {.var = c->var, .body = c->body, .loc = c->loc, .next = last ? c->end : nx,
					  .end = c->end, .step = c->step, .up = c->up};
			if (!var_set(s, c->loc, c->var, sema_int(i)) || !stmts(s, c->body, &rest))
				return false;
			if (s->returned || last)
				break;
			i = nx;
		}
	}
	return true;
}

/* `if cond:` that may return: the continuation runs in both branches, the
 * function returns in both, with the merged values. */
static bool returning_if(sema *s, ast_node *n, int cond, const sema_cont *after)
{
	src_loc loc = n->loc;
	ir_op *op = ir_op_new(s->f, IR_OP_IF, loc, 1, &cond, 0, NULL, 2);
	if (!op)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	sema_scope *before = s->scope;
	ir_region *saved = s->cur;
	sv rets[2];
	for (int k = 0; k < 2; k++) {
		if (!(s->scope = scope_copy(s, before)))
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		s->cur = &op->regions[k];
		s->returned = false;
		s->ret = (sv){.kind = SV_NONE};
		bool ok = stmts(s, k ? &n->if_.orelse : &n->if_.body, after) && run_after(s, after);
		rets[k] = s->returned ? s->ret : (sv){.kind = SV_NONE};
		if (!ok) {
			s->scope = before;
			s->cur = saved;
			return false;
		}
	}
	s->scope = before;
	ret_merge m = {0};
	sv merged;
	if (!merge_returns(s, loc, &m, rets[0], rets[1], &merged)) {
		s->cur = saved;
		return false;
	}
	for (int k = 0; k < 2; k++) {
		s->cur = &op->regions[k];
		if (!yield(s, loc, m.n, m.v[k]))
			return false;
	}
	s->cur = saved;
	if (!set_results(s, loc, op, m.n, m.types) || !ir_region_append(s->f, s->cur, op))
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	bind_results(&merged, op);
	s->returned = true;
	s->ret = merged;
	return true;
}

/* The IR values a loop carries for a variable's value: a tensor is one, a
 * block pointer its base, shape, strides and offsets (tl.advance in the
 * body makes new offsets); anything else none. ids may be NULL. */
static int leaves(sv v, int *ids)
{
	if (v.kind == SV_TENSOR) {
		if (ids)
			ids[0] = v.id;
		return 1;
	}
	if (v.kind != SV_BLOCKPTR)
		return 0;
	for (int i = 0; ids && i < v.n; i++)
		ids[i] = v.items[i].id;
	return v.n;
}

/* v with its carried values replaced by ids[0..leaves(v)). */
static bool with_leaves(sema *s, src_loc loc, sv v, const int *ids, sv *out)
{
	if (v.kind == SV_TENSOR) {
		*out = sema_tensor(ids[0]);
		return true;
	}
	*out = v;
	if (!(out->items = arena_alloc(s->a, sizeof(sv) * (size_t)v.n)))
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < v.n; i++)
		out->items[i] = sema_tensor(ids[i]);
	return true;
}

/* Carried variables of a loop: assigned in the body and holding tensors (or
 * block pointers) before it; their values before the loop in *tmpl, the
 * number of IR values they carry in *nleaves. */
static int carried(sema *s, const ast_list *body, const char ***out, sv **tmpl, int *nleaves)
{
	const char **names = NULL;
	int n = 0, cap = 0, k = 0;
	assigned_names(s, body, &names, &n, &cap);
	*tmpl = arena_alloc(s->a, sizeof(sv) * (size_t)(n + 1));
	*nleaves = 0;
	for (int i = 0; *tmpl && i < n; i++) {
		sema_var *v = var_find(s->scope, names[i]);
		if (v && leaves(v->val, NULL)) {
			(*tmpl)[k] = v->val;
			*nleaves += leaves(v->val, NULL);
			names[k++] = names[i];
		}
	}
	*out = names;
	return *tmpl ? k : -1;
}

/* After a loop body: the carried values' final bindings, checked: the same
 * kind (block pointers of the same block type) and IR types. */
static bool loop_finals(sema *s, src_loc loc, sema_scope *before, int nc, const char **names, const sv *tmpl,
			const ir_type *types, int *finals)
{
	int at = 0;
	for (int i = 0; i < nc; i++) {
		sema_var *v = var_find(s->scope, names[i]);
		int k = leaves(tmpl[i], NULL);
		if (v->val.kind != tmpl[i].kind || (v->val.kind == SV_BLOCKPTR && !ir_type_eq(v->val.t, tmpl[i].t)))
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "loop-carried variable `%s` is rebound to %s in the loop",
					  names[i], sema_sv_str(s, v->val));
		leaves(v->val, finals + at);
		for (int j = 0; j < k; j++) {
			ir_type t = sema_type(s, finals[at + j]);
			if (!ir_type_eq(t, types[at + j]))
				return sema_error(s, loc, TILEC_ERR_SEMANTIC,
						  "loop-carried variable `%s` has type %s before the loop but %s after an iteration; the type must stay the same",
						  names[i], sema_type_str(s, types[at + j]), sema_type_str(s, t));
		}
		at += k;
	}
	/* constexprs may not be rebound in a loop */
	for (int i = 0; i < before->n; i++) {
		sema_var *v = var_find(s->scope, before->vars[i].name);
		if (!leaves(before->vars[i].val, NULL) && !sv_same(v->val, before->vars[i].val))
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "constexpr `%s` cannot be reassigned in a runtime loop",
					  before->vars[i].name);
	}
	return true;
}

/* The carried variables bound to region parameters (or results) ids. */
static bool bind_carried(sema *s, src_loc loc, int nc, const char **names, const sv *tmpl, const int *ids)
{
	for (int i = 0, at = 0; i < nc; at += leaves(tmpl[i], NULL), i++) {
		sv v;
		if (!with_leaves(s, loc, tmpl[i], ids + at, &v) || !var_set(s, loc, names[i], v))
			return false;
		for (int j = 0; j < leaves(tmpl[i], NULL); j++)
			if (ids[at + j] >= s->f->nparams && !s->f->values[ids[at + j]].name)
				s->f->values[ids[at + j]].name = names[i];
	}
	return true;
}

/* After a loop's regions (ok when they were built): back in the enclosing
 * region saved, the op appended there with its results, the variables of
 * before restored and the carried ones bound to the results. */
static bool loop_exit(sema *s, src_loc loc, bool ok, ir_region *saved, sema_scope *before, ir_op *op, int nc,
		      const char **names, const sv *tmpl, int nl, const ir_type *types)
{
	s->loops--;
	s->cur = saved;
	if (!ok) {
		s->scope = before;
		return false;
	}
	if (!set_results(s, loc, op, nl, types) || !ir_region_append(s->f, s->cur, op))
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	s->scope = before;
	return bind_carried(s, loc, nc, names, tmpl, op->results);
}

static bool range_args(sema *s, ast_node *it, const char **kind, sv *b, int *nb, bool *warp_specialize)
{
	sv fn;
	*nb = 0;
	*warp_specialize = false;
	if (it->kind != AST_CALL || !sema_expr(s, it->call.func, &fn) || fn.kind != SV_BUILTIN ||
	    (strcmp(fn.s, "range") && strcmp(fn.s, "tl.range") && strcmp(fn.s, "tl.static_range")))
		return s->status != TILEC_OK && s->ctx->errors ? false
		       : sema_error(s, it->loc, TILEC_ERR_UNSUPPORTED,
				    "only `range`, `tl.range` and `tl.static_range` loops are supported");
	*kind = fn.s;
	static const char *const kw[] = {"start", "end", "step", "arg1", "arg2", "arg3"};
	for (int i = 0; i < it->call.args.n; i++) {
		if (i >= 3)
			return sema_error(s, it->loc, TILEC_ERR_SEMANTIC, "`%s` takes at most 3 positional arguments", fn.s);
		if (!sema_expr(s, it->call.args.items[i], &b[(*nb)++]))
			return false;
	}
	for (int i = 0; i < it->call.kwargs.n; i++) {
		ast_node *k = it->call.kwargs.items[i];
		int slot = -1;
		for (int j = 0; j < 6; j++)
			if (k->keyword.name && !strcmp(k->keyword.name, kw[j]))
				slot = j % 3;
		if (slot < 0 && k->keyword.name && !strcmp(k->keyword.name, "warp_specialize")) {
			sv ws;
			if (!sema_expr(s, k->keyword.value, &ws))
				return false;
			if (ws.kind != SV_BOOL && ws.kind != SV_INT && ws.kind != SV_NONE)
				return sema_error(s, k->loc, TILEC_ERR_SEMANTIC, "`warp_specialize` must be a constexpr bool, got %s",
						  sema_sv_str(s, ws));
			*warp_specialize = ws.kind != SV_NONE && ws.i != 0;
			continue;
		}
		if (slot < 0)
			continue; /* num_stages, loop_unroll_factor, flatten, ...: scheduling hints */
		if (!sema_expr(s, k->keyword.value, &b[slot]))
			return false;
		if (slot >= *nb)
			*nb = slot + 1;
	}
	if (*nb == 0)
		return sema_error(s, it->loc, TILEC_ERR_SEMANTIC, "`%s` needs at least one argument", fn.s);
	if (*nb == 1) {
		b[1] = b[0];
		b[0] = sema_int(0);
	}
	if (*nb < 3)
		b[2] = sema_int(1);
	return true;
}

/* Unrolling (tl.static_range) and inlining multiply code: a kernel may
 * grow to SEMA_MAX_VALUES IR values, which bounds the memory and time of
 * everything after (docs/LANGUAGE.md, limits). */
#define SEMA_MAX_VALUES 65536
static bool sema_size_ok(sema *s, src_loc loc)
{
	if (s->f && s->f->nvalues > SEMA_MAX_VALUES)
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED,
				  "the kernel grows past %d IR values (tl.static_range unrolling and inlined helper calls)",
				  SEMA_MAX_VALUES);
	return true;
}

static bool for_stmt(sema *s, ast_node *n, const sema_cont *after)
{
	src_loc loc = n->loc;
	const char *kind = NULL;
	sv b[3];
	int nb;
	bool warp_specialize;
	if (!range_args(s, n->for_.iter, &kind, b, &nb, &warp_specialize))
		return false;
	if (n->for_.orelse.n)
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "`for ... else` is not supported");
	ast_node *target = n->for_.target;
	if (target->kind != AST_NAME)
		return sema_error(s, target->loc, TILEC_ERR_UNSUPPORTED, "the target of a `for` loop must be a name");
	if (!strcmp(kind, "tl.static_range")) {
		for (int i = 0; i < 3; i++)
			if (b[i].kind != SV_INT && b[i].kind != SV_BOOL)
				return sema_error(s, loc, TILEC_ERR_SEMANTIC, "the bounds of tl.static_range must be constexpr ints, got %s",
						  sema_sv_str(s, b[i]));
		if (b[2].i == 0)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "tl.static_range step must not be zero");
		int64_t count = 0;
		for (int64_t i = b[0].i; b[2].i > 0 ? i < b[1].i : i > b[1].i;) {
			if (++count > 4096)
				return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "tl.static_range of more than 4096 iterations");
			if (!sema_size_ok(s, loc))
				return false;
			int64_t nx;
			bool last = __builtin_add_overflow(i, b[2].i, &nx);
			sema_cont rest = {.body = &n->for_.body, .var = target->name.id, .loc = loc,
					  .next = last ? b[1].i : nx, .end = b[1].i, .step = b[2].i, .up = after};
			if (!var_set(s, loc, target->name.id, sema_int(i)) || !stmts(s, &n->for_.body, &rest))
				return false;
			if (s->returned || last)
				return true;
			i = nx;
		}
		return true;
	}
	if (b[2].kind == SV_INT && b[2].i == 0)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "range step must not be zero");
	/* A constant negative step runs up instead, as Triton's front end
	 * does: range(a, b, -s) is range(b, a, s) with the variable a + b - i,
	 * so the passes (the load pipeliner above all) see a loop counting
	 * up. */
	bool downward = b[2].kind == SV_INT && b[2].i < 0 && b[2].i != INT64_MIN;
	if (downward) {
		sv start = b[0];
		b[0] = b[1], b[1] = start, b[2].i = -b[2].i;
	}
	int bounds[3];
	ir_kind iv = IR_I1;
	for (int i = 0; i < 3; i++) {
		if ((bounds[i] = sema_to_tensor(s, loc, b[i])) < 0)
			return false;
		ir_type t = sema_type(s, bounds[i]);
		if (!ir_kind_is_int((ir_kind)t.kind) || t.rank)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "loop bounds and step must be integer scalars, got %s",
					  sema_type_str(s, t));
		ir_kind k = (ir_kind)t.kind;
		iv = i == 0 ? k : (ir_kind_bits(k) > ir_kind_bits(iv) || (ir_kind_bits(k) == ir_kind_bits(iv) && !ir_kind_is_signed(k))) ? k : iv;
	}
	if (iv == IR_I1)
		iv = IR_I32;
	for (int i = 0; i < 3; i++)
		if ((bounds[i] = sema_cast(s, loc, bounds[i], ir_scalar(iv))) < 0)
			return false;
	const char **names;
	sv *tmpl;
	int nl, nc = carried(s, &n->for_.body, &names, &tmpl, &nl);
	int *args = arena_alloc(s->a, sizeof(int) * (size_t)(nl + 3));
	ir_type *types = arena_alloc(s->a, sizeof(ir_type) * (size_t)(nl + 1));
	int *finals = arena_alloc(s->a, sizeof(int) * (size_t)(nl + 1));
	int *params = arena_alloc(s->a, sizeof(int) * (size_t)(nl + 1));
	if (nc < 0 || !args || !types || !finals || !params)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	memcpy(args, bounds, sizeof bounds);
	for (int i = 0, at = 3; i < nc; i++)
		at += leaves(tmpl[i], args + at);
	for (int i = 0; i < nl; i++)
		types[i] = sema_type(s, args[3 + i]);
	ir_op *op = ir_op_new(s->f, IR_OP_FOR, loc, 3 + nl, args, 0, NULL, 1);
	if (!op)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	if (warp_specialize)
		op->flags |= IR_FLAG_WARP_SPECIALIZE;
	sema_scope *before = s->scope;
	ir_region *saved = s->cur;
	if (!(s->scope = scope_copy(s, before)))
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	int ivid = ir_region_add_param(s->f, &op->regions[0], ir_scalar(iv));
	if (ivid < 0)
		return false;
	s->f->values[ivid].name = target->name.id;
	for (int i = 0; i < nl; i++)
		if ((params[i] = ir_region_add_param(s->f, &op->regions[0], types[i])) < 0)
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	s->cur = &op->regions[0];
	int user_iv = ivid;
	if (downward) { /* (upper - i) + lower, in the body */
		int from_top[2] = {bounds[1], ivid};
		ir_op *sub = sema_emit(s, loc, IR_OP_SUB, 2, from_top, ir_scalar(iv));
		int shifted[2] = {sub ? sub->results[0] : -1, bounds[0]};
		ir_op *add = sub ? sema_emit(s, loc, IR_OP_ADD, 2, shifted, ir_scalar(iv)) : NULL;
		if (!add)
			return false;
		user_iv = add->results[0];
		s->f->values[user_iv].name = target->name.id;
	}
	if (!var_set(s, loc, target->name.id, sema_tensor(user_iv)) || !bind_carried(s, loc, nc, names, tmpl, params))
		return false;
	s->loops++;
	bool ok = stmts(s, &n->for_.body, NULL) && loop_finals(s, loc, before, nc, names, tmpl, types, finals) &&
		  yield(s, loc, nl, finals);
	return loop_exit(s, loc, ok, saved, before, op, nc, names, tmpl, nl, types);
}

static bool while_stmt(sema *s, ast_node *n)
{
	src_loc loc = n->loc;
	if (n->while_.orelse.n)
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "`while ... else` is not supported");
	const char **names;
	sv *tmpl;
	int nl, nc = carried(s, &n->while_.body, &names, &tmpl, &nl);
	int *args = arena_alloc(s->a, sizeof(int) * (size_t)(nl + 2));
	ir_type *types = arena_alloc(s->a, sizeof(ir_type) * (size_t)(nl + 1));
	int *finals = arena_alloc(s->a, sizeof(int) * (size_t)(nl + 2));
	if (nc < 0 || !args || !types || !finals)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0, at = 0; i < nc; i++)
		at += leaves(tmpl[i], args + at);
	for (int i = 0; i < nl; i++)
		types[i] = sema_type(s, args[i]);
	ir_op *op = ir_op_new(s->f, IR_OP_WHILE, loc, nl, args, 0, NULL, 2);
	if (!op)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	sema_scope *before = s->scope;
	ir_region *saved = s->cur;
	s->loops++;
	bool ok = true;
	for (int r = 0; r < 2 && ok; r++) {
		if (!(s->scope = scope_copy(s, before))) {
			ok = sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
			break;
		}
		s->cur = &op->regions[r];
		for (int i = 0; i < nl && ok; i++) {
			int p = ir_region_add_param(s->f, s->cur, types[i]);
			ok = p >= 0 || sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
			finals[i + 1] = p;
		}
		if (!ok || !(ok = bind_carried(s, loc, nc, names, tmpl, finals + 1)))
			break;
		if (r == 0) {
			sv c;
			ok = sema_expr(s, n->while_.cond, &c) && (finals[0] = sema_to_tensor(s, loc, c)) >= 0 &&
			     (finals[0] = sema_cast(s, loc, finals[0], ir_scalar(IR_I1))) >= 0;
			if (ok && sema_type(s, finals[0]).rank)
				ok = sema_error(s, n->while_.cond->loc, TILEC_ERR_SEMANTIC, "the condition of `while` must be a scalar");
			ir_op *cond = ok ? ir_op_new(s->f, IR_OP_CONDITION, loc, nl + 1, finals, 0, NULL, 0) : NULL;
			ok = ok && cond && ir_region_append(s->f, s->cur, cond);
		} else {
			ok = stmts(s, &n->while_.body, NULL) && loop_finals(s, loc, before, nc, names, tmpl, types, finals) &&
			     yield(s, loc, nl, finals);
		}
	}
	return loop_exit(s, loc, ok, saved, before, op, nc, names, tmpl, nl, types);
}

static bool stmt(sema *s, ast_node *n, const sema_cont *after)
{
	sv v;
	switch (n->kind) {
	case AST_EXPR_STMT:
		if (n->unary.operand->kind == AST_STR)
			return true; /* docstring */
		return sema_expr(s, n->unary.operand, &v);
	case AST_ASSIGN:
		if (!sema_expr(s, n->assign.value, &v) || !sanitize(s, n->loc, v, &v))
			return false;
		for (int i = 0; i < n->assign.targets.n; i++) {
			if (v.kind == SV_TENSOR && n->assign.targets.items[i]->kind == AST_NAME)
				name_value(s, v.id, n->assign.targets.items[i]->name.id);
			if (!assign(s, n->assign.targets.items[i], v))
				return false;
		}
		return true;
	case AST_ANNASSIGN:
		if (!n->annassign.value)
			return true;
		if (!sema_expr(s, n->annassign.value, &v))
			return false;
		if (is_constexpr_annotation(s, n->annassign.annotation)) {
			if (v.kind == SV_TENSOR)
				return sema_error(s, n->loc, TILEC_ERR_SEMANTIC, "the value of a constexpr must be known at compile time");
			return assign(s, n->annassign.target, v);
		}
		return sanitize(s, n->loc, v, &v) && assign(s, n->annassign.target, v);
	case AST_AUGASSIGN: {
		sv cur;
		if (n->augassign.target->kind != AST_NAME)
			return sema_error(s, n->loc, TILEC_ERR_UNSUPPORTED, "augmented assignment to `%s` is not supported",
					  ast_kind_name(n->augassign.target->kind));
		if (!sema_lookup(s, n->augassign.target->loc, n->augassign.target->name.id, &cur) ||
		    !sema_expr(s, n->augassign.value, &v) || !sema_binop(s, n->loc, n->augassign.op, cur, v, &v) ||
		    !sanitize(s, n->loc, v, &v))
			return false;
		if (v.kind == SV_TENSOR)
			name_value(s, v.id, n->augassign.target->name.id);
		return assign(s, n->augassign.target, v);
	}
	case AST_IF: {
		if (!sema_expr(s, n->if_.cond, &v))
			return false;
		if (v.kind == SV_TENSOR) {
			int cond = sema_cast(s, n->loc, v.id, ir_scalar(IR_I1));
			if (cond < 0)
				return false;
			if (sema_type(s, cond).rank)
				return sema_error(s, n->if_.cond->loc, TILEC_ERR_SEMANTIC,
						  "the condition of `if` must be a scalar, got %s", sema_type_str(s, sema_type(s, cond)));
			if (!s->loops && (has_return(&n->if_.body) || has_return(&n->if_.orelse)))
				return returning_if(s, n, cond, after);
			return runtime_if(s, n, cond);
		}
		bool t;
		if (!sema_truth(s, n->if_.cond->loc, v, &t))
			return false;
		return stmts(s, t ? &n->if_.body : &n->if_.orelse, after);
	}
	case AST_FOR:
		return for_stmt(s, n, after);
	case AST_WHILE:
		return while_stmt(s, n);
	case AST_RETURN:
		if (s->loops)
			return sema_error(s, n->loc, TILEC_ERR_UNSUPPORTED,
					  "`return` inside a runtime `for` or `while` loop is not supported (as in Triton)");
		memset(&v, 0, sizeof v);
		v.kind = SV_NONE;
		if (n->unary.operand && (!sema_expr(s, n->unary.operand, &v) || !sanitize(s, n->loc, v, &v)))
			return false;
		s->ret = v;
		s->returned = true;
		return true;
	case AST_PASS:
		return true;
	case AST_RAISE:
		return sema_error(s, n->loc, TILEC_ERR_UNSUPPORTED,
				  "`raise` statements are not supported in kernels (only in a branch a constexpr condition "
				  "leaves out, as in Triton)");
	case AST_ASSERT:
		if (!sema_expr(s, n->assert_.cond, &v))
			return false;
		if (v.kind != SV_TENSOR) { /* a constant assertion is checked now; device asserts need debug mode */
			bool t;
			if (!sema_truth(s, n->loc, v, &t))
				return false;
			if (!t)
				return sema_error(s, n->loc, TILEC_ERR_SEMANTIC, "assertion failed at compile time");
			return true;
		}
		sv msg = {.kind = SV_STR, .s = "", .slen = 0};
		if (n->assert_.msg && !sema_expr(s, n->assert_.msg, &msg))
			return false;
		return sema_device_assert(s, n->loc, v, msg);
	default:
		return sema_error(s, n->loc, TILEC_ERR_UNSUPPORTED, "`%s` statements are not supported in kernels",
				  ast_kind_name(n->kind));
	}
}

static bool stmts_from(sema *s, const ast_list *l, int idx, const sema_cont *after)
{
	for (int i = idx; i < l->n && !s->returned; i++) {
		sema_cont rest = {.l = l, .idx = i + 1, .up = after};
		if (!stmt(s, l->items[i], &rest))
			return false;
	}
	return true;
}

static bool stmts(sema *s, const ast_list *l, const sema_cont *after)
{
	return stmts_from(s, l, 0, after);
}

/* ---------------------------------------------------------------- helpers */

static bool inline_in_module(sema *s, src_loc loc, ast_func *fn, int nargs, const sv *args, int nkw,
			     const char *const *kwnames, const sv *kwargs, sv *out);

/* A helper runs with the names of the module that defines it, and of
 * the defs around it (a helper a factory defines), as Python's closures. */
bool sema_inline(sema *s, src_loc loc, ast_func *fn, int nargs, const sv *args, int nkw, const char *const *kwnames,
		 const sv *kwargs, sv *out)
{
	if (!fn->jit)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` is not a @triton.jit function", fn->name);
	const fe_module *saved = s->m;
	const ast_func *encl = s->encl, *host_fn = s->host_fn;
	bool host = s->host;
	s->m = sema_module_of(s, fn);
	s->encl = fn->outer;
	s->host = false;
	s->host_fn = NULL;
	bool ok = inline_in_module(s, loc, fn, nargs, args, nkw, kwnames, kwargs, out);
	s->m = saved;
	s->encl = encl;
	s->host = host;
	s->host_fn = host_fn;
	return ok;
}

static bool inline_in_module(sema *s, src_loc loc, ast_func *fn, int nargs, const sv *args, int nkw,
			     const char *const *kwnames, const sv *kwargs, sv *out)
{
	if (s->depth >= 64)
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "helper calls nested more than 64 deep (recursion is not supported)");
	if (!sema_size_ok(s, loc))
		return false;
	if (ast_check_kernel(s->ctx, fn) != TILEC_OK) {
		if (s->status == TILEC_OK)
			s->status = TILEC_ERR_UNSUPPORTED;
		return false;
	}
	sema_scope *sc = arena_alloc(s->a, sizeof *sc);
	if (!sc)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	bool *given = arena_alloc(s->a, sizeof(bool) * (size_t)(fn->nparams + 1));
	sv *vals = arena_alloc(s->a, sizeof(sv) * (size_t)(fn->nparams + 1));
	if (!given || !vals)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	if (nargs > fn->nparams)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` takes %d arguments, got %d", fn->name, fn->nparams, nargs);
	for (int i = 0; i < nargs; i++) {
		vals[i] = args[i];
		given[i] = true;
	}
	for (int k = 0; k < nkw; k++) {
		int i = 0;
		while (i < fn->nparams && strcmp(fn->params[i].name, kwnames[k]))
			i++;
		if (i == fn->nparams)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` has no parameter `%s`", fn->name, kwnames[k]);
		if (given[i])
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` got two values for parameter `%s`", fn->name, kwnames[k]);
		vals[i] = kwargs[k];
		given[i] = true;
	}
	for (int i = 0; i < fn->nparams; i++) {
		const ast_param *p = &fn->params[i];
		if (!given[i]) {
			if (!p->default_value)
				return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` is missing argument `%s`", fn->name, p->name);
			/* evaluated by Python where the def runs: host code */
			sema_scope empty = {0}, *saved = s->scope;
			s->scope = &empty;
			s->global_depth++;
			s->host = true;
			bool ok = sema_expr(s, p->default_value, &vals[i]);
			s->host = false;
			s->global_depth--;
			s->scope = saved;
			if (!ok)
				return false;
		}
		/* a helper's tl.constexpr annotation is not enforced (Triton
		 * honours it on kernels only): a tensor passed there stays one */
	}
	sema_scope *saved_scope = s->scope;
	int saved_loops = s->loops;
	s->scope = sc;
	for (int i = 0; i < fn->nparams; i++)
		if (!var_set(s, fn->params[i].loc, fn->params[i].name, vals[i])) {
			s->scope = saved_scope;
			return false;
		}
	s->depth++;
	s->loops = 0;
	s->returned = false;
	s->ret = (sv){.kind = SV_NONE};
	bool ok = stmts(s, &fn->body, NULL);
	s->depth--;
	*out = s->returned ? s->ret : (sv){.kind = SV_NONE};
	s->returned = false;
	s->loops = saved_loops;
	s->scope = saved_scope;
	if (!ok && s->depth <= 3) /* the outermost calls: enough to find the way in */
		diag_note(s->ctx, loc, "in the call of `%s` here", fn->name);
	return ok;
}

/* ---------------------------------------------------------------- literals */

/* "fp32", "tl.float16", "*bf16", ... */
static bool parse_dtype(const char *text, ir_type *out)
{
	size_t len = strlen(text);
	bool ptr = len && text[0] == '*';
	if (ptr)
		text++;
	static const char *const prefixes[] = {"triton.language.", "tl."};
	for (size_t i = 0; i < 2; i++)
		if (!strncmp(text, prefixes[i], strlen(prefixes[i])))
			text += strlen(prefixes[i]);
	ir_kind k;
	if (!ir_kind_from_name(text, strlen(text), &k))
		return false;
	*out = ptr ? ir_ptr(k) : ir_scalar(k);
	return true;
}

/* A Python literal as -D and signatures give them; false when it is not one. */
bool sema_parse_literal(arena *a, const char *text, size_t len, sv *out)
{
	while (len && (*text == ' ' || *text == '\t'))
		text++, len--;
	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	char *t = arena_strndup(a, text, len);
	if (!t || !len)
		return false;
	memset(out, 0, sizeof *out);
	if (!strcmp(t, "True") || !strcmp(t, "False")) {
		out->kind = SV_BOOL;
		out->i = t[0] == 'T';
		return true;
	}
	if (!strcmp(t, "None")) {
		out->kind = SV_NONE;
		return true;
	}
	if (len >= 2 && (t[0] == '"' || t[0] == '\'') && t[len - 1] == t[0]) {
		out->kind = SV_STR;
		out->s = t + 1;
		out->slen = len - 2;
		t[len - 1] = 0;
		return true;
	}
	char *end;
	errno = 0;
	long long i = strtoll(t, &end, 0);
	if (*end == 0 && errno == 0 && (t[0] != '0' || len == 1 || t[1] == 'x' || t[1] == 'X' || t[1] == 'b' || t[1] == 'o')) {
		out->kind = SV_INT;
		out->i = i;
		return true;
	}
	double f = strtod(t, &end);
	if (*end == 0 && (t[0] == '-' || t[0] == '+' || t[0] == '.' || (t[0] >= '0' && t[0] <= '9'))) {
		out->kind = SV_FLOAT;
		out->f = f;
		return true;
	}
	ir_type dt;
	if (parse_dtype(t, &dt)) {
		out->kind = SV_DTYPE;
		out->t = dt;
		return true;
	}
	return false;
}

/* ---------------------------------------------------------------- signature */

typedef struct sig_entry {
	const char *text;
	bool is_type;
	ir_type type;      /* a descriptor: the pointer to its element type */
	bool div16, one;
	uint8_t div_by; /* :8 or :4 */
	sv value;
	int desc_rank;     /* tensordesc<fp16[64, 64]>: 2 */
	int32_t desc_block[IR_MAX_RANK];
} sig_entry;

/* Triton's spelling of a host-side tensor descriptor parameter,
 * `tensordesc<fp16[64, 64]>` (its runtime's mangle of TensorDescriptor),
 * and tile's `:16` after it (the innermost shape is a multiple of 16):
 * false when t is no such entry; an error when it is a malformed one. */
static bool parse_tensordesc(tilec_ctx *ctx, const char *t, int index, sig_entry *x, bool *bad)
{
	src_loc none = {0};
	*bad = false;
	if (strncmp(t, "tensordesc", 10))
		return false;
	*bad = true;
	const char *p = t + 10, *open = strchr(t, '['), *close = open ? strchr(open, ']') : NULL;
	size_t len = strlen(t);
	if (len > 3 && !strcmp(t + len - 3, ":16")) {
		x->div16 = true;
		len -= 3;
	}
	ir_kind k;
	if (*p != '<' || !open || !close || len < 2 || t[len - 1] != '>' || close != t + len - 2 ||
	    !ir_kind_from_name(p + 1, (size_t)(open - p - 1), &k) || k == IR_PTR) {
		diag_error(ctx, none, "signature entry %d (`%s`): a tensor descriptor is written tensordesc<DTYPE[B0, B1, ...]>, "
			   "such as tensordesc<fp16[64, 64]>, and :16 after it when its innermost shape is a multiple of 16",
			   index + 1, t);
		return false;
	}
	int r = 0;
	for (const char *q = open + 1; q < close;) {
		char *end;
		while (*q == ' ')
			q++;
		long long v = strtoll(q, &end, 10);
		if (end == q || v <= 0 || v > (1 << 20) || (v & (v - 1))) {
			diag_error(ctx, none, "signature entry %d (`%s`): block dimension %d must be a power of two up to 1048576",
				   index + 1, t, r);
			return false;
		}
		if (r == 5 || r == IR_MAX_RANK) {
			diag_error(ctx, none, "signature entry %d (`%s`): %s", index + 1, t,
				   r == 5 ? "a tensor descriptor has at most 5 dimensions"
					  : "tensor descriptors of more than 4 dimensions are not supported: blocks have at most 4");
			return false;
		}
		x->desc_block[r++] = (int32_t)v;
		for (q = end; *q == ' '; q++)
			;
		if (*q == ',')
			q++;
		else if (q != close) {
			diag_error(ctx, none, "signature entry %d (`%s`): the block shape must be integers separated by commas",
				   index + 1, t);
			return false;
		}
	}
	if (!r) {
		diag_error(ctx, none, "signature entry %d (`%s`): the block shape is empty", index + 1, t);
		return false;
	}
	*bad = false;
	x->is_type = true;
	x->type = ir_ptr(k);
	x->desc_rank = r;
	return true;
}

static bool parse_signature(tilec_ctx *ctx, arena *a, const char *sig, sig_entry **out, int *n)
{
	src_loc none = {0};
	*n = 0;
	*out = NULL;
	if (!sig)
		return true;
	int cap = 1;
	for (const char *p = sig; *p; p++)
		cap += *p == ',';
	sig_entry *e = arena_alloc(a, sizeof(sig_entry) * (size_t)cap);
	if (!e)
		return false;
	const char *p = sig;
	while (*p == ' ')
		p++;
	if (!*p)
		return true;
	for (;;) {
		const char *start = p;
		char quote = 0;
		int depth = 0; /* tensordesc<fp16[64, 64]> holds commas */
		while (*p && (quote || depth || *p != ',')) {
			if (quote && *p == quote)
				quote = 0;
			else if (!quote && (*p == '"' || *p == '\''))
				quote = *p;
			else if (!quote && (*p == '<' || *p == '['))
				depth++;
			else if (!quote && (*p == '>' || *p == ']') && depth)
				depth--;
			p++;
		}
		size_t len = (size_t)(p - start);
		while (len && (*start == ' ' || *start == '\t'))
			start++, len--;
		while (len && (start[len - 1] == ' ' || start[len - 1] == '\t'))
			len--;
		sig_entry *x = &e[*n];
		memset(x, 0, sizeof *x);
		x->text = arena_strndup(a, start, len);
		if (!x->text)
			return false;
		bool bad;
		if (parse_tensordesc(ctx, x->text, *n, x, &bad)) {
			(*n)++;
			if (!*p)
				break;
			p++;
			continue;
		}
		if (bad)
			return false;
		if (!sema_parse_literal(a, start, len, &x->value) || x->value.kind == SV_DTYPE) {
			char *t = arena_strdup(a, x->text), *colon = strchr(t, ':');
			if (colon)
				*colon = 0;
			ir_type ty;
			if ((t[0] == '*' || x->value.kind != SV_DTYPE || !strchr(t, '.')) && parse_dtype(t, &ty)) {
				if (ir_kind_is_fp8((ir_kind)ty.kind)) {
					diag_error(ctx, none, "signature entry %d (`%s`): an fp8 scalar cannot be passed; "
							      "fp8 parameters are pointers (*%s)", *n + 1, x->text, ir_kind_name((ir_kind)ty.kind));
					return false;
				}
				x->is_type = true;
				x->type = ty;
				if (colon) {
					bool by8 = !strcmp(colon + 1, "8"), by4 = !strcmp(colon + 1, "4");
					if (!strcmp(colon + 1, "16") && !ir_kind_is_float((ir_kind)ty.kind))
						x->div16 = true;
					else if ((by8 || by4) && !ir_kind_is_float((ir_kind)ty.kind))
						x->div_by = by8 ? 8 : 4;
					else if (!strcmp(colon + 1, "1") && ty.kind != IR_PTR && ir_kind_is_int((ir_kind)ty.kind))
						x->one = true;
					else {
						diag_error(ctx, none, "signature entry %d (`%s`): %s", *n + 1, x->text,
							   ty.kind == IR_PTR ? "the hint must be :16, :8 or :4"
							   : ir_kind_is_float((ir_kind)ty.kind) ? "floats take no hint"
							   : "the hint must be :16, :8, :4 or :1");
						return false;
					}
				}
			} else if (x->value.kind != SV_DTYPE) {
				diag_error(ctx, none, "signature entry %d (`%s`) is neither a type (such as *fp32, i32:16) nor a constexpr value",
					   *n + 1, x->text);
				return false;
			}
		}
		(*n)++;
		if (!*p)
			break;
		p++;
	}
	*out = e;
	return true;
}

/* ---------------------------------------------------------------- module API */

static tilec_status load_file(tilec_ctx *ctx, arena *a, const src_file *f, fe_module **out)
{
	fe_module *m = arena_alloc(a, sizeof *m);
	if (!m)
		return TILEC_ERR_NOMEM;
	m->a = a;
	m->file = f;
	tilec_status st = parse_module(ctx, a, f, &m->ast);
	if (st == TILEC_OK)
		*out = m;
	return st;
}

tilec_status fe_load(tilec_ctx *ctx, arena *a, const char *path, fe_module **out)
{
	src_file *f;
	tilec_status st = src_read_file(ctx, a, path, &f);
	return st == TILEC_OK ? load_file(ctx, a, f, out) : st;
}

tilec_status fe_load_text(tilec_ctx *ctx, arena *a, const char *path, const char *text, fe_module **out)
{
	src_file *f = arena_alloc(a, sizeof *f);
	if (!f || !(f->path = arena_strdup(a, path)) || !(f->text = arena_strdup(a, text)))
		return TILEC_ERR_NOMEM;
	f->len = strlen(text);
	return load_file(ctx, a, f, out);
}

int fe_kernel_count(const fe_module *m)
{
	return m->ast->nfuncs + m->ast->nnested;
}

const char *fe_kernel_name(const fe_module *m, int i)
{
	const ast_module *am = m->ast;
	if (i >= 0 && i < am->nfuncs)
		return am->funcs[i]->name;
	return i >= am->nfuncs && i < am->nfuncs + am->nnested ? am->nested[i - am->nfuncs]->name : NULL;
}

int fe_param_count(const fe_module *m, const char *kernel)
{
	const ast_func *f = ast_find_kernel(m->ast, kernel);
	return f ? f->nparams : -1;
}

const char *fe_param_name(const fe_module *m, const char *kernel, int i)
{
	const ast_func *f = ast_find_kernel(m->ast, kernel);
	return f && i >= 0 && i < f->nparams ? f->params[i].name : NULL;
}

bool fe_param_is_constexpr(const fe_module *m, const char *kernel, int i)
{
	const ast_func *f = ast_find_kernel(m->ast, kernel);
	return f && i >= 0 && i < f->nparams && f->params[i].is_constexpr;
}

static ast_node *autotune_configs(const fe_module *m, const char *kernel)
{
	const ast_func *f = ast_find_kernel(m->ast, kernel);
	if (!f || !f->autotune)
		return NULL;
	ast_node *c = ast_call_kwarg(f->autotune, "configs");
	if (!c && f->autotune->call.args.n)
		c = f->autotune->call.args.items[0];
	if (!c || (c->kind != AST_LIST && c->kind != AST_TUPLE))
		return NULL;
	/* configs built by host code (a helper's calls) are not read: the
	 * kernel takes its constexprs from -D, as with configs=helper() */
	for (int i = 0; i < c->seq.items.n; i++) {
		const ast_node *cfg = c->seq.items.items[i], *d = NULL;
		if (cfg->kind == AST_CALL)
			d = cfg->call.args.n ? cfg->call.args.items[0] : ast_call_kwarg(cfg, "kwargs");
		if (!d || d->kind != AST_DICT)
			return NULL;
	}
	return c;
}

/* @triton.autotune's reset_to_zero= and restore_value=: lists of the
 * names of pointer parameters, checked and recorded on f as bit sets. */
static bool autotune_buffers(sema *s, const ast_func *fn, ir_func *f)
{
	static const char *const keys[2] = {"reset_to_zero", "restore_value"};
	for (int k = 0; fn->autotune && k < 2; k++) {
		ast_node *list = ast_call_kwarg(fn->autotune, keys[k]);
		if (!list || list->kind == AST_NONE)
			continue;
		if (list->kind != AST_LIST && list->kind != AST_TUPLE)
			return sema_error(s, list->loc, TILEC_ERR_SEMANTIC, "autotune's `%s` must be a list of parameter names", keys[k]);
		for (int j = 0; j < list->seq.items.n; j++) {
			ast_node *e = list->seq.items.items[j];
			int i = 0;
			if (e->kind != AST_STR)
				return sema_error(s, e->loc, TILEC_ERR_SEMANTIC, "autotune's `%s` must list parameter names as strings", keys[k]);
			while (i < f->nparams && (strlen(f->params[i].name) != e->lit.slen ||
						  memcmp(f->params[i].name, e->lit.sval, e->lit.slen)))
				i++;
			if (i == f->nparams || i >= 64)
				return sema_error(s, e->loc, TILEC_ERR_SEMANTIC, "autotune's `%s` names `%.*s`, which is not a runtime parameter of `%s`",
						  keys[k], (int)e->lit.slen, e->lit.sval, fn->name);
			if (f->params[i].type.kind != IR_PTR)
				return sema_error(s, e->loc, TILEC_ERR_SEMANTIC, "autotune's `%s` names `%s`, which is not a pointer", keys[k],
						  f->params[i].name);
			if (k)
				f->restore_value |= UINT64_C(1) << i;
			else
				f->reset_to_zero |= UINT64_C(1) << i;
		}
	}
	return true;
}

int fe_autotune_key(const fe_module *m, const char *kernel, const char **names, int max)
{
	const ast_func *f = ast_find_kernel(m->ast, kernel);
	if (!f || !f->autotune)
		return 0;
	ast_node *key = ast_call_kwarg(f->autotune, "key");
	if (!key && f->autotune->call.args.n > 1)
		key = f->autotune->call.args.items[1];
	if (!key || key->kind == AST_NONE)
		return 0;
	if (key->kind != AST_LIST && key->kind != AST_TUPLE)
		return -1;
	int n = key->seq.items.n;
	for (int i = 0; i < n; i++) {
		ast_node *e = key->seq.items.items[i];
		if (e->kind != AST_STR)
			return -1;
		if (i < max && !(names[i] = arena_strndup(m->a, e->lit.sval, e->lit.slen)))
			return -1;
	}
	return n;
}

bool fe_autotune_has(const fe_module *m, const char *kernel, const char *kwarg)
{
	const ast_func *f = ast_find_kernel(m->ast, kernel);
	ast_node *v = f && f->autotune ? ast_call_kwarg(f->autotune, kwarg) : NULL;
	return v && v->kind != AST_NONE;
}

/* ---- heuristics evaluated at launch ---------------------------------------- */

typedef struct heur_text {
	tilec_ctx *ctx;
	const ast_func *fn;
	const char *arg;  /* the lambda's parameter */
	strbuf sb;
	bool runtime;     /* reads a runtime argument */
	bool failed;
	const ast_node *fail_at;
	const char *fail_what;
	const char *name; /* the heuristic's constexpr, for messages */
} heur_text;

/* Records the first construct that cannot be translated; reported only
 * when the heuristic reads runtime arguments (the others fold at compile
 * time as before) and is not fixed with -D (its caller's to say). */
static void heur_fail(heur_text *h, const ast_node *n, const char *what)
{
	if (!h->failed) {
		h->fail_at = n;
		h->fail_what = what;
	}
	h->failed = true;
}

/* Whether the expression reads args["X"] of a runtime parameter X. */
static bool heur_reads_runtime(const heur_text *h, const ast_node *n)
{
	if (!n)
		return false;
	switch (n->kind) {
	case AST_SUBSCRIPT: {
		const ast_node *v = n->subscript.value, *i = n->subscript.index;
		if (v->kind == AST_NAME && !strcmp(v->name.id, h->arg) && i->kind == AST_STR) {
			for (int p = 0; p < h->fn->nparams; p++)
				if (strlen(h->fn->params[p].name) == i->lit.slen &&
				    !memcmp(h->fn->params[p].name, i->lit.sval, i->lit.slen))
					return !h->fn->params[p].is_constexpr;
			return false;
		}
		return heur_reads_runtime(h, v) || heur_reads_runtime(h, i);
	}
	case AST_BINARY: case AST_COMPARE: case AST_BOOLOP:
		return heur_reads_runtime(h, n->binary.left) || heur_reads_runtime(h, n->binary.right);
	case AST_UNARY:
		return heur_reads_runtime(h, n->unary.operand);
	case AST_IFEXP:
		return heur_reads_runtime(h, n->ifexp.cond) || heur_reads_runtime(h, n->ifexp.then) ||
		       heur_reads_runtime(h, n->ifexp.orelse);
	case AST_CALL:
		for (int i = 0; i < n->call.args.n; i++)
			if (heur_reads_runtime(h, n->call.args.items[i]))
				return true;
		return false;
	case AST_TUPLE: case AST_LIST:
		for (int i = 0; i < n->seq.items.n; i++)
			if (heur_reads_runtime(h, n->seq.items.items[i]))
				return true;
		return false;
	default:
		return false;
	}
}

/* Whether the expression is True/False valued. */
static bool heur_is_bool(const ast_node *n)
{
	switch (n->kind) {
	case AST_TRUE: case AST_FALSE: case AST_COMPARE: return true;
	case AST_UNARY: return n->unary.op == AST_OP_NOT;
	case AST_BOOLOP: return heur_is_bool(n->binary.left) && heur_is_bool(n->binary.right);
	default: return false;
	}
}

/* The expression as a grid expression (gridexpr.c's syntax), fully
 * parenthesized; args["X"] becomes X. */
static void heur_put(heur_text *h, const ast_node *n)
{
	if (h->failed)
		return;
	switch (n->kind) {
	case AST_INT:
		if (n->lit.big || n->lit.ival > (uint64_t)INT64_MAX)
			heur_fail(h, n, "an integer this large");
		else
			sb_printf(&h->sb, "%llu", (unsigned long long)n->lit.ival);
		return;
	case AST_FLOAT: /* read back by the grid parser as the same double */
		sb_put_float(&h->sb, n->lit.fval);
		return;
	case AST_TRUE: sb_puts(&h->sb, "1"); return;
	case AST_FALSE: sb_puts(&h->sb, "0"); return;
	case AST_SUBSCRIPT: {
		const ast_node *v = n->subscript.value, *i = n->subscript.index;
		if (v->kind != AST_NAME || strcmp(v->name.id, h->arg) || i->kind != AST_STR) {
			heur_fail(h, n, "this subscript");
			return;
		}
		for (int p = 0; p < h->fn->nparams; p++)
			if (strlen(h->fn->params[p].name) == i->lit.slen && !memcmp(h->fn->params[p].name, i->lit.sval, i->lit.slen)) {
				h->runtime |= !h->fn->params[p].is_constexpr;
				sb_puts(&h->sb, h->fn->params[p].name);
				return;
			}
		heur_fail(h, i, "a name that is not a parameter of the kernel");
		return;
	}
	case AST_BINARY:
	case AST_COMPARE: {
		static const struct { ast_op op; const char *s; } ops[] = {
			{AST_OP_ADD, " + "}, {AST_OP_SUB, " - "}, {AST_OP_MUL, " * "}, {AST_OP_FLOORDIV, " // "}, {AST_OP_MOD, " % "},
			{AST_OP_LT, " < "}, {AST_OP_LE, " <= "}, {AST_OP_GT, " > "}, {AST_OP_GE, " >= "}, {AST_OP_EQ, " == "},
			{AST_OP_NE, " != "}};
		bool compare = n->kind == AST_COMPARE;
		for (size_t k = 0; k < sizeof ops / sizeof ops[0] && !(compare && n->binary.chained); k++)
			if (ops[k].op == n->binary.op && (k >= 5) == compare) {
				sb_putc(&h->sb, '(');
				heur_put(h, n->binary.left);
				sb_puts(&h->sb, ops[k].s);
				heur_put(h, n->binary.right);
				sb_putc(&h->sb, ')');
				return;
			}
		heur_fail(h, n, compare ? "this comparison" : "this operator");
		return;
	}
	case AST_BOOLOP:
		sb_putc(&h->sb, '(');
		heur_put(h, n->binary.left);
		sb_puts(&h->sb, n->binary.op == AST_OP_AND ? " and " : " or ");
		heur_put(h, n->binary.right);
		sb_putc(&h->sb, ')');
		return;
	case AST_UNARY:
		if (n->unary.op != AST_OP_NEG && n->unary.op != AST_OP_NOT) {
			heur_fail(h, n, "this operator");
			return;
		}
		sb_puts(&h->sb, n->unary.op == AST_OP_NEG ? "(-" : "(not ");
		heur_put(h, n->unary.operand);
		sb_putc(&h->sb, ')');
		return;
	case AST_CALL: {
		const ast_node *f = n->call.func;
		const char *fname = f->kind == AST_NAME ? f->name.id : f->kind == AST_ATTR ? f->attr.name : NULL;
		static const char *const known[] = {"cdiv", "min", "max", "next_power_of_2"};
		size_t k = 0;
		while (fname && k < sizeof known / sizeof known[0] && strcmp(fname, known[k]))
			k++;
		if (!fname || k == sizeof known / sizeof known[0] || n->call.kwargs.n) {
			heur_fail(h, n, "this call");
			return;
		}
		sb_printf(&h->sb, "%s(", known[k]);
		for (int i = 0; i < n->call.args.n; i++) {
			if (i)
				sb_puts(&h->sb, ", ");
			heur_put(h, n->call.args.items[i]);
		}
		sb_putc(&h->sb, ')');
		return;
	}
	default:
		heur_fail(h, n, "this expression");
	}
}

int fe_runtime_heuristics(tilec_ctx *ctx, const fe_module *m, const char *kernel, fe_heuristic *out, int max)
{
	const ast_func *fn = ast_find_kernel(m->ast, kernel);
	if (!fn || !fn->heuristics)
		return 0;
	ast_node *d = fn->heuristics->call.args.n ? fn->heuristics->call.args.items[0] : ast_call_kwarg(fn->heuristics, "values");
	if (!d || d->kind != AST_DICT)
		return 0; /* fe_specialize says what is wrong */
	int n = 0;
	for (int k = 0; k < d->dict.keys.n; k++) {
		ast_node *kn = d->dict.keys.items[k], *lam = d->dict.values.items[k];
		if (!kn || kn->kind != AST_STR || !lam || lam->kind != AST_LAMBDA || lam->lambda.nparams != 1)
			continue; /* refused by fe_specialize */
		heur_text h = {.ctx = ctx, .fn = fn, .arg = lam->lambda.params[0].name};
		h.name = arena_strndup(m->a, kn->lit.sval, kn->lit.slen);
		sb_init(&h.sb);
		if (!heur_reads_runtime(&h, lam->lambda.body)) {
			sb_free(&h.sb);
			continue; /* folded at compile time, as before */
		}
		heur_put(&h, lam->lambda.body);
		if (n == max) {
			diag_error(ctx, kn->loc, "more than %d heuristics of `%s` read runtime arguments", max, kernel);
			sb_free(&h.sb);
			return -1;
		}
		out[n] = (fe_heuristic){.name = h.name, .is_bool = heur_is_bool(lam->lambda.body), .loc = kn->loc};
		if (h.failed) {
			out[n].why_loc = h.fail_at->loc;
			out[n].why = arena_printf(m->a, "the heuristic for `%s` reads runtime arguments, so it is evaluated at "
						  "launch, where %s is not supported (comparisons, and/or/not, + - * // %%, cdiv, "
						  "min, max, next_power_of_2 over integer arguments and constexprs are, and "
						  "comparisons of float arguments and literals); give `%s` with -D instead",
						  h.name, h.fail_what, h.name);
		} else {
			out[n].expr = arena_strdup(m->a, sb_str(&h.sb));
		}
		n++;
		sb_free(&h.sb);
	}
	return n;
}

int fe_config_count(const fe_module *m, const char *kernel)
{
	ast_node *c = autotune_configs(m, kernel);
	return c ? c->seq.items.n : 0;
}

static void sema_init(sema *s, tilec_ctx *ctx, arena *a, const fe_module *m, sema_scope *scope)
{
	memset(s, 0, sizeof *s);
	s->ctx = ctx;
	s->a = a;
	s->m = m;
	memset(scope, 0, sizeof *scope);
	s->scope = scope;
}

/* A constexpr value as the Python literal fe_define holds. */
static const char *literal_text(arena *a, sv v)
{
	switch (v.kind) {
	case SV_NONE: return "None";
	case SV_BOOL: return v.i ? "True" : "False";
	case SV_INT: return arena_printf(a, "%lld", (long long)v.i);
	case SV_FLOAT: return arena_printf(a, "%.17g", v.f);
	case SV_STR: return arena_printf(a, "\"%.*s\"", (int)v.slen, v.s);
	case SV_DTYPE: return arena_printf(a, "%s%s", v.t.kind == IR_PTR ? "*" : "",
					   ir_kind_name((ir_kind)(v.t.kind == IR_PTR ? v.t.pointee : v.t.kind)));
	default: return NULL;
	}
}

static bool const_expr(sema *s, ast_node *n, sv *out)
{
	s->global_depth++;
	bool ok = sema_expr(s, n, out);
	s->global_depth--;
	return ok;
}

tilec_status fe_config_get(tilec_ctx *ctx, const fe_module *m, const char *kernel, int i, fe_spec *spec)
{
	ast_node *list = autotune_configs(m, kernel);
	src_loc none = {0};
	if (!list || i < 0 || i >= list->seq.items.n) {
		diag_error(ctx, none, "kernel `%s` has no autotune config %d", kernel, i);
		return TILEC_ERR_INVALID;
	}
	sema s;
	sema_scope scope;
	sema_init(&s, ctx, m->a, m, &scope);
	/* host code, where the decorator runs */
	s.encl = ast_find_kernel(m->ast, kernel)->outer;
	s.host = true;
	ast_node *cfg = list->seq.items.items[i];
	ast_node *dict = NULL;
	if (cfg->kind == AST_CALL)
		dict = cfg->call.args.n ? cfg->call.args.items[0] : ast_call_kwarg(cfg, "kwargs");
	if (!dict || dict->kind != AST_DICT) {
		sema_error(&s, cfg->loc, TILEC_ERR_UNSUPPORTED, "autotune config %d is not a literal triton.Config({...}, ...)", i);
		return s.status;
	}
	int n = dict->dict.keys.n;
	fe_define *d = arena_alloc(m->a, sizeof(fe_define) * (size_t)(n + 1));
	if (!d)
		return TILEC_ERR_NOMEM;
	for (int k = 0; k < n; k++) {
		sv key, val;
		ast_node *kn = dict->dict.keys.items[k];
		if (!kn) {
			sema_error(&s, cfg->loc, TILEC_ERR_UNSUPPORTED, "`**` in an autotune config is not supported");
			return s.status;
		}
		if (!const_expr(&s, kn, &key) || !const_expr(&s, dict->dict.values.items[k], &val))
			return s.status;
		if (key.kind != SV_STR || !(d[k].value = literal_text(m->a, val))) {
			sema_error(&s, kn->loc, TILEC_ERR_SEMANTIC, "autotune config keys must be strings and values constexprs");
			return s.status;
		}
		d[k].name = arena_strndup(m->a, key.s, key.slen);
	}
	spec->defines = d;
	spec->ndefines = n;
	static const char *const opts[2] = {"num_warps", "num_stages"};
	int *dst[2] = {&spec->num_warps, &spec->num_stages};
	for (int k = 0; k < 2; k++) {
		ast_node *v = ast_call_kwarg(cfg, opts[k]);
		sv x;
		*dst[k] = 0;
		if (!v)
			continue;
		if (!const_expr(&s, v, &x))
			return s.status;
		if (x.kind != SV_INT || x.i <= 0 || x.i > 64) {
			sema_error(&s, v->loc, TILEC_ERR_SEMANTIC, "%s must be a positive int", opts[k]);
			return s.status;
		}
		*dst[k] = (int)x.i;
	}
	/* a pre_hook is Python run before each launch (tutorial 09's sets
	 * descriptor block shapes, which the launch functions check instead):
	 * said and left out */
	ast_node *hook = ast_call_kwarg(cfg, "pre_hook"), *ctas = ast_call_kwarg(cfg, "num_ctas"),
		 *maxnreg = ast_call_kwarg(cfg, "maxnreg");
	sv x;
	spec->maxnreg = 0;
	if (maxnreg && maxnreg->kind != AST_NONE) {
		if (!const_expr(&s, maxnreg, &x))
			return s.status;
		if (x.kind != SV_INT || x.i < IR_MAXNREG_MIN || x.i > IR_MAXNREG_MAX) {
			sema_error(&s, maxnreg->loc, TILEC_ERR_SEMANTIC,
				   "maxnreg must be an int from %d to %d (registers per thread; ptxas allocates at least %d)",
				   IR_MAXNREG_MIN, IR_MAXNREG_MAX, IR_MAXNREG_MIN);
			return s.status;
		}
		spec->maxnreg = (int)x.i;
	}
	if (hook && hook->kind != AST_NONE)
		diag_warning(ctx, hook->loc, "autotune config %d: its pre_hook (Python, run before each launch) is not run: "
			     "what it does to the arguments, the caller must do", i);
	spec->num_ctas = 0;
	if (ctas && ctas->kind != AST_NONE) {
		if (!const_expr(&s, ctas, &x))
			return s.status;
		if (x.kind != SV_INT || x.i <= 0 || x.i > 8 || (x.i & (x.i - 1))) {
			sema_error(&s, ctas->loc, TILEC_ERR_SEMANTIC,
				   "num_ctas must be 1, 2, 4 or 8 (the CTAs of a thread block cluster a program runs on)");
			return s.status;
		}
		spec->num_ctas = (int)x.i;
	}
	return TILEC_OK;
}

tilec_status fe_config_override(arena *a, fe_spec *spec, const fe_define *defines, int ndefines, int num_warps)
{
	fe_define *all = arena_alloc(a, sizeof *all * (size_t)(spec->ndefines + ndefines + 1));
	if (!all)
		return TILEC_ERR_NOMEM;
	int n = 0;
	for (int i = 0; i < spec->ndefines; i++) {
		bool overridden = false;
		for (int k = 0; k < ndefines; k++)
			overridden |= !strcmp(defines[k].name, spec->defines[i].name);
		if (!overridden)
			all[n++] = spec->defines[i];
	}
	for (int k = 0; k < ndefines; k++)
		all[n++] = defines[k];
	spec->defines = all;
	spec->ndefines = n;
	if (num_warps)
		spec->num_warps = num_warps;
	return TILEC_OK;
}

/* ---------------------------------------------------------------- specialization */

/* Applies @triton.heuristics: each entry computes a constexpr parameter
 * not given explicitly, from the values known at compile time. */
static bool heuristics(sema *s, const ast_func *fn, sv *vals, const bool *explicit_)
{
	if (!fn->heuristics)
		return true;
	ast_node *d = fn->heuristics->call.args.n ? fn->heuristics->call.args.items[0] : ast_call_kwarg(fn->heuristics, "values");
	if (!d || d->kind != AST_DICT) {
		/* built by host code: fine where -D gives every constexpr it could set */
		for (int i = 0; i < fn->nparams; i++)
			if (fn->params[i].is_constexpr && !explicit_[i] && !fn->params[i].default_value)
				return sema_error(s, fn->heuristics->loc, TILEC_ERR_UNSUPPORTED,
						  "@triton.heuristics needs a literal dict of lambdas (or give constexpr `%s` "
						  "and the others it sets with -D)", fn->params[i].name);
		return true;
	}
	const char **names = arena_alloc(s->a, sizeof(char *) * (size_t)(fn->nparams + 1));
	if (!names)
		return sema_error(s, fn->loc, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < fn->nparams; i++)
		names[i] = fn->params[i].name;
	s->args_names = names;
	s->args_vals = vals;
	s->nargs_vals = fn->nparams;
	s->args_fn = fn;
	for (int k = 0; k < d->dict.keys.n; k++) {
		ast_node *kn = d->dict.keys.items[k], *lam = d->dict.values.items[k];
		sv key;
		if (!kn || !const_expr(s, kn, &key))
			return false;
		int p = 0;
		while (key.kind == SV_STR && p < fn->nparams &&
		       (strlen(fn->params[p].name) != key.slen || memcmp(fn->params[p].name, key.s, key.slen)))
			p++;
		if (key.kind != SV_STR || p == fn->nparams || !fn->params[p].is_constexpr)
			return sema_error(s, kn->loc, TILEC_ERR_SEMANTIC, "heuristic key %s is not a constexpr parameter of `%s`",
					  sema_sv_str(s, key), fn->name);
		if (explicit_[p])
			continue;
		if (lam->kind != AST_LAMBDA || lam->lambda.nparams != 1)
			return sema_error(s, lam->loc, TILEC_ERR_UNSUPPORTED, "a heuristic must be a lambda of one argument");
		sema_scope sc = {0}, *saved = s->scope;
		s->scope = &sc;
		bool ok = var_set(s, lam->loc, lam->lambda.params[0].name, (sv){.kind = SV_ARGS}) &&
			  const_expr(s, lam->lambda.body, &vals[p]);
		s->scope = saved;
		if (!ok)
			return sema_error(s, lam->loc, s->status ? s->status : TILEC_ERR_UNSUPPORTED,
					  "cannot evaluate the heuristic for `%s` at compile time", fn->params[p].name);
	}
	s->args_vals = NULL;
	s->nargs_vals = 0;
	s->args_fn = NULL;
	return true;
}

static bool constexpr_record(sema *s, ir_constexpr *c, const char *name, sv v)
{
	memset(c, 0, sizeof *c);
	c->name = name;
	switch (v.kind) {
	case SV_INT: c->kind = IR_CONSTEXPR_INT; c->ival = v.i; return true;
	case SV_BOOL: c->kind = IR_CONSTEXPR_BOOL; c->ival = v.i; return true;
	case SV_FLOAT: c->kind = IR_CONSTEXPR_FLOAT; c->fval = v.f; return true;
	case SV_STR:
		c->kind = IR_CONSTEXPR_STRING;
		c->sval = arena_strndup(s->a, v.s, v.slen);
		return c->sval != NULL;
	case SV_DTYPE: c->kind = IR_CONSTEXPR_DTYPE; c->ival = v.t.kind == IR_PTR ? v.t.pointee : v.t.kind; return true;
	default: return false;
	}
}

static bool is_zero_const(const ir_func *f, int v)
{
	const ir_op *d = f->values[v].def;
	return d && d->code == IR_OP_CONST && (ir_kind_is_float((ir_kind)f->values[v].type.kind) ? d->fval == 0.0 : d->ival == 0);
}

/* `acc + tl.dot(a, b)` (either order) becomes `tl.dot(a, b, acc)` where the
 * dot's own accumulator is zero and the add is its only user, as Triton's
 * combine patterns rewrite it before anything else sees the kernel: the
 * products then accumulate into acc inside the dot (Triton's rounding), and
 * the tensor cores never wait for a separate add. The add becomes the dot in
 * place (a and b are defined before the old dot, which prune removes). */
static void combine_dot_add(ir_func *f, ir_region *r, const int *uses)
{
	for (int i = 0; i < r->nops; i++) {
		ir_op *op = r->ops[i];
		for (int j = 0; j < op->nregions; j++)
			combine_dot_add(f, &op->regions[j], uses);
		if (op->code != IR_OP_ADD || op->nargs != 2)
			continue;
		for (int side = 0; side < 2; side++) {
			int dv = op->args[side], acc = op->args[1 - side];
			const ir_op *dot = f->values[dv].def;
			if (!dot || dot->code != IR_OP_DOT || uses[dv] != 1 || !is_zero_const(f, dot->args[2]) ||
			    !ir_type_eq(f->values[acc].type, f->values[op->results[0]].type) ||
			    !ir_type_eq(f->values[dv].type, f->values[op->results[0]].type))
				continue;
			int *args = arena_alloc(f->arena, sizeof(int) * 3);
			if (!args)
				return; /* left as it is: still correct */
			args[0] = dot->args[0];
			args[1] = dot->args[1];
			args[2] = acc;
			op->code = IR_OP_DOT;
			op->args = args;
			op->nargs = 3;
			op->sub = dot->sub;
			op->flags = dot->flags;
			op->loc = dot->loc;
			break;
		}
	}
}

/* Dead code: ops without side effects whose results are unused
 * (constants made for implicit conversions, values a kernel never uses),
 * removed as Triton's canonicalization removes them, after `acc + dot`
 * folds. */
static bool prune(sema *s)
{
	int *uses = arena_alloc(s->a, sizeof(int) * (size_t)(s->f->nvalues + 1));
	if (!uses)
		return sema_error(s, s->f->loc, TILEC_ERR_NOMEM, "out of memory");
	memset(uses, 0, sizeof(int) * (size_t)s->f->nvalues);
	ir_count_uses(&s->f->body, uses);
	combine_dot_add(s->f, &s->f->body, uses);
	/* a derived map's shape and strides, for the interpreter */
	if (!ir_prune(s->f, s->nmaps, s->maps))
		return sema_error(s, s->f->loc, TILEC_ERR_NOMEM, "out of memory");
	return true;
}

static bool specialize(sema *s, const fe_spec *spec, ir_func **out)
{
	src_loc none = {0};
	const ast_module *am = s->m->ast;
	ast_func *fn = ast_find_kernel(am, spec->kernel ? spec->kernel : "");
	if (!fn)
		return sema_error(s, none, TILEC_ERR_INVALID, "no @triton.jit function `%s` in %s", spec->kernel ? spec->kernel : "",
				  s->m->file->path);
	/* kernels of one name made by two factories: the program alone knows which one it launches */
	for (int i = 0; fn->outer && i < am->nnested; i++)
		if (!strcmp(am->nested[i]->name, fn->name) && am->nested[i]->outer != fn->outer)
			return sema_error(s, fn->loc, TILEC_ERR_INVALID,
					  "kernel `%s` is defined in `%s` (line %d) and in `%s` (line %d): tilec cannot tell which "
					  "one the program launches", fn->name, am->nested[i]->outer->name, am->nested[i]->loc.line,
					  fn->outer->name, fn->loc.line);
	/* a kernel a factory defines sees the factory's names */
	s->encl = fn->outer;
	if (ast_check_kernel(s->ctx, fn) != TILEC_OK) {
		s->status = TILEC_ERR_UNSUPPORTED;
		return false;
	}
	sig_entry *sig;
	int nsig;
	if (!parse_signature(s->ctx, s->a, spec->signature, &sig, &nsig)) {
		s->status = TILEC_ERR_INVALID;
		return false;
	}
	int np = fn->nparams, ndecl = 0, ntypes = 0;
	if (nsig > np)
		return sema_error(s, fn->loc, TILEC_ERR_INVALID, "the signature has %d entries but `%s` has %d parameters", nsig,
				  fn->name, np);
	/* entry of each parameter: in order, or, when the signature lists
	 * exactly the runtime parameters (all types), those only */
	sig_entry **entry = arena_alloc(s->a, sizeof(sig_entry *) * (size_t)(np + 1));
	if (!entry)
		return sema_error(s, none, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < np; i++)
		ndecl += !fn->params[i].is_constexpr;
	for (int i = 0; i < nsig; i++)
		ntypes += sig[i].is_type;
	bool runtime_only = nsig < np && nsig == ndecl && ntypes == nsig;
	for (int i = 0, k = 0; i < np; i++)
		if (!runtime_only)
			entry[i] = i < nsig ? &sig[i] : NULL;
		else
			entry[i] = fn->params[i].is_constexpr ? NULL : &sig[k++];
	/* a tensor descriptor is 1 + 2 * rank runtime parameters */
	int nslots = np + 1;
	for (int i = 0; i < np; i++)
		if (entry[i] && entry[i]->desc_rank)
			nslots += 2 * entry[i]->desc_rank + 1;
	sv *vals = arena_alloc(s->a, sizeof(sv) * (size_t)(np + 1));
	bool *expl = arena_alloc(s->a, sizeof(bool) * (size_t)(np + 1));
	ir_param *params = arena_alloc(s->a, sizeof(ir_param) * (size_t)nslots);
	ir_desc_param *descs = arena_alloc(s->a, sizeof(ir_desc_param) * (size_t)(np + 1));
	int ndescs = 0;
	if (!descs)
		return sema_error(s, none, TILEC_ERR_NOMEM, "out of memory");
	if (!vals || !expl || !params)
		return sema_error(s, none, TILEC_ERR_NOMEM, "out of memory");
	for (int d = 0; d < spec->ndefines; d++) {
		const fe_define *def = &spec->defines[d];
		int i = 0;
		while (i < np && strcmp(fn->params[i].name, def->name))
			i++;
		if (i == np || !fn->params[i].is_constexpr)
			return sema_error(s, fn->loc, TILEC_ERR_INVALID, "-D %s: `%s` has no constexpr parameter `%s`", def->name,
					  fn->name, def->name);
		if (!def->value || !sema_parse_literal(s->a, def->value, strlen(def->value), &vals[i]))
			return sema_error(s, none, TILEC_ERR_INVALID, "-D %s=%s: the value is not a Python literal", def->name,
					  def->value ? def->value : "");
		expl[i] = true;
	}
	int nrt = 0;
	for (int i = 0; i < np; i++) {
		const ast_param *p = &fn->params[i];
		sig_entry *e = entry[i];
		if (p->kind != AST_PARAM_NORMAL && p->kind != AST_PARAM_KWONLY)
			return sema_error(s, p->loc, TILEC_ERR_UNSUPPORTED, "*args and **kwargs kernel parameters are not supported");
		if (p->is_constexpr) {
			if (e && e->is_type)
				return sema_error(s, p->loc, TILEC_ERR_INVALID,
						  "signature entry %d (`%s`) gives a type, but parameter `%s` is a constexpr: give its value",
						  i + 1, e->text, p->name);
			if (expl[i])
				continue;
			if (e) {
				vals[i] = e->value;
				expl[i] = true;
			}
			continue;
		}
		if (!e)
			return sema_error(s, p->loc, TILEC_ERR_INVALID, "the signature gives no type for parameter `%s`", p->name);
		if (!e->is_type)
			return sema_error(s, p->loc, TILEC_ERR_INVALID,
					  "signature entry %d (`%s`) is a value, but parameter `%s` is not a constexpr: give its type (such as i32)",
					  i + 1, e->text, p->name);
		vals[i] = (sv){.kind = SV_UNDEF};
		int base = nrt;
		ir_param *ip = &params[nrt++];
		memset(ip, 0, sizeof *ip);
		ip->name = p->name;
		ip->type = e->type;
		ip->div16 = e->div16;
		ip->div_by = e->div_by;
		ip->equal_one = e->one;
		if (!e->desc_rank)
			continue;
		/* base (16-byte aligned, as Triton's TensorDescriptor asserts), shape
		 * (i32), strides (i64, the last one 1) */
		int r = e->desc_rank;
		ip->name = arena_printf(s->a, "%s_base", p->name);
		ip->div16 = true;
		ir_desc_param *dp = &descs[ndescs++];
		dp->first = base;
		dp->name = p->name;
		dp->rank = r;
		dp->tensormap = false;
		memcpy(dp->block, e->desc_block, sizeof dp->block);
		for (int k = 0; k < 2 * r; k++) {
			ir_param *q = &params[nrt++];
			memset(q, 0, sizeof *q);
			q->name = arena_printf(s->a, "%s_%s%d", p->name, k < r ? "shape" : "stride", k % r);
			q->type = ir_scalar(k < r ? IR_I32 : IR_I64);
			q->equal_one = k == 2 * r - 1;
			q->div16 = k == r - 1 && e->div16; /* the rows' bounds then cut no 16-byte copy */
			if (!q->name)
				return sema_error(s, none, TILEC_ERR_NOMEM, "out of memory");
		}
		uint32_t box[IR_MAX_RANK];
		if (spec->tensormaps && ir_tensormap_box((ir_kind)e->type.pointee, r, dp->block, box)) {
			ir_param *q = &params[nrt++];
			memset(q, 0, sizeof *q);
			q->name = arena_printf(s->a, "%s_tmap", p->name);
			q->type = ir_ptr(IR_I8);
			q->tensormap = dp->tensormap = true;
			if (!q->name)
				return sema_error(s, none, TILEC_ERR_NOMEM, "out of memory");
		}
		if (!ip->name)
			return sema_error(s, none, TILEC_ERR_NOMEM, "out of memory");
	}
	/* defaults, then heuristics, of the constexprs not given: host code */
	s->host = true;
	for (int i = 0; i < np; i++) {
		const ast_param *p = &fn->params[i];
		if (p->is_constexpr && !expl[i] && p->default_value && !const_expr(s, p->default_value, &vals[i]))
			return false;
	}
	bool *known = arena_alloc(s->a, sizeof(bool) * (size_t)(np + 1));
	if (!known)
		return sema_error(s, none, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < np; i++)
		known[i] = expl[i] || !fn->params[i].is_constexpr;
	if (!heuristics(s, fn, vals, known))
		return false;
	s->host = false;
	int nce = 0;
	for (int i = 0; i < np; i++) {
		const ast_param *p = &fn->params[i];
		if (p->is_constexpr && !expl[i] && !p->default_value && vals[i].kind == SV_UNDEF)
			return sema_error(s, p->loc, TILEC_ERR_INVALID,
					  "no value for constexpr parameter `%s`: give it in the signature or with -D %s=VALUE%s",
					  p->name, p->name, fn->autotune ? ", or pick an autotune config with --config N" : "");
		nce += p->is_constexpr;
	}
	ir_func *f = ir_func_new(s->a, fn->name, nrt, params);
	if (!f)
		return sema_error(s, none, TILEC_ERR_NOMEM, "out of memory");
	f->loc = fn->loc;
	f->ndescs = ndescs;
	f->descs = descs;
	if (spec->num_warps)
		f->num_warps = spec->num_warps;
	if (spec->num_stages)
		f->num_stages = spec->num_stages;
	if (spec->num_ctas)
		f->num_ctas = spec->num_ctas;
	f->maxnreg = spec->maxnreg;
	f->constexprs = arena_alloc(s->a, sizeof(ir_constexpr) * (size_t)(nce + 1));
	if (!f->constexprs)
		return sema_error(s, none, TILEC_ERR_NOMEM, "out of memory");
	if (!autotune_buffers(s, fn, f))
		return false;
	s->f = f;
	s->cur = &f->body;
	for (int i = 0, r = 0; i < np; i++) {
		const ast_param *p = &fn->params[i];
		sv v = vals[i];
		if (p->is_constexpr) {
			if (constexpr_record(s, &f->constexprs[f->nconstexprs], p->name, v))
				f->nconstexprs++;
		} else if (ir_param_desc(f, r)) {
			const ir_desc_param *dp = ir_param_desc(f, r);
			if (!sema_desc_param(s, p->loc, r, &v))
				return false;
			r += 1 + 2 * dp->rank + dp->tensormap;
		} else {
			/* an int equal to 1 is specialized into the constexpr 1, as Triton does */
			v = params[r].equal_one ? sema_int(1) : sema_tensor(r);
			r++;
		}
		if (!var_set(s, p->loc, p->name, v))
			return false;
	}
	s->depth = 1;
	if (!stmts(s, &fn->body, NULL))
		return false;
	if (s->returned && s->ret.kind != SV_NONE)
		return sema_error(s, fn->loc, TILEC_ERR_SEMANTIC, "a kernel cannot return a value");
	if (!prune(s) || !sema_desc_append_maps(s))
		return false;
	*out = f;
	return true;
}

tilec_status fe_specialize(tilec_ctx *ctx, arena *a, const fe_module *m, const fe_spec *spec, ir_func **out)
{
	sema s;
	sema_scope scope;
	sema_init(&s, ctx, a, m, &scope);
	s.debug = spec->debug;
	s.root = m;
	s.include_dirs = spec->include_dirs;
	s.ninclude_dirs = spec->ninclude_dirs;
	s.tensormaps = spec->tensormaps;
	s.binds = spec->binds;
	s.nbinds = spec->nbinds;
	if (!sema_bind_values(&s) || !specialize(&s, spec, out))
		return s.status != TILEC_OK ? s.status : TILEC_ERR_SEMANTIC;
	return TILEC_OK;
}
