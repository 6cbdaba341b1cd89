/* test_parse.c - the parser: seed kernels and a host-code-heavy module,
 * decorators, imports and globals, AST dumps of kernels, every diagnostic
 * (syntax errors reported inside kernels, host code skipped silently, the
 * kernel-language check), and the fuzz target over mutated inputs. */
#include "front/syntax.h"
#include "check.h"

#include <stdlib.h>

#include "fuzz/fuzz_parse.c"

typedef struct parsed {
	tilec_ctx *ctx;
	arena *a;
	src_file file;
	src_file *filep;
	ast_module *m;
	tilec_status st;
} parsed;

static void parse_text(parsed *p, const char *src)
{
	p->ctx = tilec_ctx_new();
	p->a = arena_new();
	p->file = (src_file){"k.py", src, strlen(src)};
	p->m = NULL;
	p->st = parse_module(p->ctx, p->a, &p->file, &p->m);
}

static void parse_path(parsed *p, const char *path)
{
	p->ctx = tilec_ctx_new();
	p->a = arena_new();
	p->m = NULL;
	p->st = src_read_file(p->ctx, p->a, path, &p->filep);
	if (p->st == TILEC_OK)
		p->st = parse_module(p->ctx, p->a, p->filep, &p->m);
}

static void done(parsed *p)
{
	arena_free(p->a);
	tilec_ctx_free(p->ctx);
}

/* The diagnostics of parsing src and checking each @jit function. */
static char *diagnose(const char *src)
{
	parsed p;
	parse_text(&p, src);
	if (p.st == TILEC_OK)
		for (int i = 0; i < p.m->nfuncs; i++)
			ast_check_kernel(p.ctx, p.m->funcs[i]);
	char *s = strdup(tilec_diagnostics(p.ctx));
	done(&p);
	return s;
}

#define KERNEL_HEAD "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x, N: tl.constexpr):\n"

/* The first diagnostic line for a kernel whose body is `body` (its first
 * body line is line 5 of k.py). */
#define DIAG(body, want) \
	do { \
		char *got_ = diagnose(KERNEL_HEAD body); \
		char *nl_ = strchr(got_, '\n'); \
		if (nl_) \
			*nl_ = 0; \
		if (!check_at(strcmp(got_, want) == 0, "diagnostic for " #body, __FILE__, __LINE__)) \
			fprintf(stderr, "    got:  %s\n    want: %s\n", got_, want); \
		free(got_); \
	} while (0)

static char *func_dump(const ast_func *f)
{
	strbuf sb;
	sb_init(&sb);
	ast_dump_func(&sb, f);
	char *s = strdup(sb_str(&sb));
	sb_free(&sb);
	return s;
}

#define CHECK_DUMP(f, want) \
	do { \
		char *got_ = func_dump(f); \
		if (!check_at(strcmp(got_, want) == 0, "dump of " #f, __FILE__, __LINE__)) \
			fprintf(stderr, "    got:\n%s\n    want:\n%s\n", got_, want); \
		free(got_); \
	} while (0)

static const char *import_path(const ast_module *m, const char *alias)
{
	for (int i = m->nimports - 1; i >= 0; i--)
		if (strcmp(m->imports[i].alias, alias) == 0)
			return m->imports[i].path;
	return "(none)";
}

static int count_skipped(const ast_list *l)
{
	int n = 0;
	for (int i = 0; i < l->n; i++) {
		const ast_node *s = l->items[i];
		n += s->kind == AST_SKIPPED;
		if (s->kind == AST_IF)
			n += count_skipped(&s->if_.body) + count_skipped(&s->if_.orelse);
		if (s->kind == AST_TRY)
			n += count_skipped(&s->try_.body);
	}
	return n;
}

static void test_seed_vector_add(void)
{
	parsed p;
	parse_path(&p, "tests/kernels/seeds/add_sin_cos.py");
	CHECK_EQ_INT(p.st, TILEC_OK);
	if (p.st != TILEC_OK) {
		fputs(tilec_diagnostics(p.ctx), stderr);
		done(&p);
		return;
	}
	CHECK_EQ_INT(p.m->nfuncs, 4);
	CHECK_EQ_INT(count_skipped(&p.m->body), 0);
	const char *names[] = {"add_kernel", "add_kernel_autotuned", "sin_kernel", "cos_kernel"};
	for (int i = 0; i < 4 && i < p.m->nfuncs; i++) {
		ast_func *f = p.m->funcs[i];
		CHECK(strcmp(f->name, names[i]) == 0);
		CHECK(f->jit != NULL);
		CHECK(f->params[f->nparams - 1].is_constexpr);
		CHECK(!f->params[0].is_constexpr);
		CHECK_EQ_INT(f->params[f->nparams - 1].annotation->kind, AST_STR);
		CHECK_EQ_INT(ast_check_kernel(p.ctx, f), TILEC_OK);
	}
	CHECK(strcmp(import_path(p.m, "tl"), "triton.language") == 0);
	CHECK(strcmp(import_path(p.m, "triton"), "triton") == 0);
	ast_func *at = ast_find_func(p.m, "add_kernel_autotuned");
	CHECK(at && at->autotune && !at->heuristics);
	if (at && at->autotune) {
		ast_node *configs = ast_call_kwarg(at->autotune, "configs");
		ast_node *key = ast_call_kwarg(at->autotune, "key");
		CHECK(configs && configs->kind == AST_LIST && configs->seq.items.n == 4);
		CHECK(key && key->kind == AST_LIST && key->seq.items.n == 0);
		CHECK(ast_call_kwarg(at->autotune, "warmup") == NULL);
		if (configs && configs->seq.items.n == 4) {
			ast_node *c = configs->seq.items.items[1];
			CHECK_EQ_INT(c->kind, AST_CALL);
			ast_node *warps = ast_call_kwarg(c, "num_warps"), *stages = ast_call_kwarg(c, "num_stages");
			CHECK(warps && warps->kind == AST_INT && warps->lit.ival == 4);
			CHECK(stages && stages->kind == AST_INT && stages->lit.ival == 4);
			CHECK(c->call.args.n == 1 && c->call.args.items[0]->kind == AST_DICT);
		}
		CHECK_EQ_INT(at->deco_kinds[0], AST_DECO_AUTOTUNE);
		CHECK_EQ_INT(at->deco_kinds[1], AST_DECO_JIT);
	}
	ast_func *sin = ast_find_func(p.m, "sin_kernel");
	CHECK(sin && sin->loc.line == 98 && sin->loc.col == 5);
	CHECK_EQ_INT(tilec_error_count(p.ctx), 0);
	done(&p);
}

static void test_seed_silu(void)
{
	parsed p;
	parse_path(&p, "tests/kernels/seeds/silu.py");
	CHECK_EQ_INT(p.st, TILEC_OK);
	if (p.st != TILEC_OK) {
		done(&p);
		return;
	}
	CHECK_EQ_INT(p.m->nfuncs, 1);
	CHECK_EQ_INT(count_skipped(&p.m->body), 0);
	CHECK_DUMP(p.m->funcs[0],
		   "(def triton_silu_kernel\n"
		   "  (jit (. triton jit))\n"
		   "  (params\n"
		   "    (param in_ptr)\n"
		   "    (param out_ptr)\n"
		   "    (param n_elements)\n"
		   "    (param BLOCK_SIZE constexpr : (. tl constexpr)))\n"
		   "  (body\n"
		   "    (= pid (call (. tl program_id) (kw axis 0)))\n"
		   "    (= block_start (* pid BLOCK_SIZE))\n"
		   "    (= offsets (+ block_start (call (. tl arange) 0 BLOCK_SIZE)))\n"
		   "    (= mask (< offsets n_elements))\n"
		   "    (= x (call (. tl load) (+ in_ptr offsets) (kw mask mask)))\n"
		   "    (= x_f32 (call (. x to) (. tl float32)))\n"
		   "    (= sigmoid_x (/ 1.0 (+ 1.0 (call (. tl exp) (neg x_f32)))))\n"
		   "    (= out (call (. (* x_f32 sigmoid_x) to) (. x dtype)))\n"
		   "    (expr (call (. tl store) (+ out_ptr offsets) out (kw mask mask)))))");
	CHECK_EQ_INT(ast_check_kernel(p.ctx, p.m->funcs[0]), TILEC_OK);
	CHECK(strcmp(import_path(p.m, "tl"), "triton.language") == 0);
	done(&p);
}

/* Every other kernel file of the suite parses and passes the check. */
static void test_suite_kernels(void)
{
	static const char *const files[] = {
		"argmax", "casts", "constexpr_branch", "elementwise", "helpers", "int_ops", "layernorm",
		"loops", "masked_copy", "matmul", "reductions", "silu_bf16", "softmax", "tile2d", "tiles3d", "trig",
		"vector_add",
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char path[128];
		snprintf(path, sizeof path, "tests/kernels/%s.py", files[i]);
		parsed p;
		parse_path(&p, path);
		if (p.st == TILEC_ERR_IO) { /* the suite may rename its files */
			done(&p);
			continue;
		}
		CHECK_MSG(p.st == TILEC_OK, "%s: %s", path, tilec_diagnostics(p.ctx));
		if (p.st == TILEC_OK) {
			CHECK_MSG(p.m->nfuncs > 0, "%s has no @jit function", path);
			for (int k = 0; k < p.m->nfuncs; k++)
				CHECK_MSG(ast_check_kernel(p.ctx, p.m->funcs[k]) == TILEC_OK, "%s: %s", path,
					  tilec_diagnostics(p.ctx));
		}
		done(&p);
	}
}

static void test_host_heavy(void)
{
	parsed p;
	parse_path(&p, "tests/parse/host_heavy.py");
	CHECK_EQ_INT(p.st, TILEC_OK);
	if (p.st != TILEC_OK) {
		fputs(tilec_diagnostics(p.ctx), stderr);
		done(&p);
		return;
	}
	/* only the match statement is skipped: everything else parses */
	CHECK_EQ_INT(count_skipped(&p.m->body), 1);
	CHECK_EQ_INT(p.m->nfuncs, 2);
	ast_func *helper = ast_find_func(p.m, "helper"), *k = ast_find_func(p.m, "kernel");
	CHECK(helper && k);
	CHECK(ast_find_func(p.m, "gen_fn") == NULL);
	CHECK(ast_find_func(p.m, "tabs") == NULL);
	if (k) {
		CHECK_EQ_INT(k->decorators.n, 3);
		CHECK_EQ_INT(k->deco_kinds[0], AST_DECO_AUTOTUNE);
		CHECK_EQ_INT(k->deco_kinds[1], AST_DECO_HEURISTICS);
		CHECK_EQ_INT(k->deco_kinds[2], AST_DECO_JIT);
		CHECK(k->jit && k->jit->kind == AST_CALL);
		ast_node *dns = ast_call_kwarg(k->jit, "do_not_specialize");
		CHECK(dns && dns->kind == AST_LIST && dns->seq.items.n == 1);
		ast_node *noinline = ast_call_kwarg(k->jit, "noinline");
		CHECK(noinline && noinline->kind == AST_FALSE);
		CHECK(k->heuristics && k->heuristics->call.args.n == 1);
		if (k->heuristics && k->heuristics->call.args.n == 1) {
			ast_node *d = k->heuristics->call.args.items[0];
			CHECK_EQ_INT(d->kind, AST_DICT);
			CHECK(d->dict.keys.n == 1 && d->dict.values.items[0]->kind == AST_LAMBDA);
			CHECK(strcmp(d->dict.keys.items[0]->lit.sval, "EVEN_M") == 0);
		}
		ast_node *key = ast_call_kwarg(k->autotune, "key");
		CHECK(key && key->seq.items.n == 2);
		CHECK_EQ_INT(k->nparams, 8);
		if (k->nparams == 8) {
			CHECK(!k->params[3].is_constexpr); /* N: tl.int32 */
			CHECK(k->params[5].is_constexpr && !k->params[5].default_value);
			CHECK(k->params[6].is_constexpr && k->params[6].default_value->lit.ival == 32);
			CHECK(k->params[7].is_constexpr && k->params[7].default_value->kind == AST_FALSE);
		}
		CHECK_EQ_INT(ast_check_kernel(p.ctx, k), TILEC_OK);
	}
	CHECK(strcmp(import_path(p.m, "tl"), "triton.language") == 0);
	CHECK(strcmp(import_path(p.m, "libdevice"), "triton.language.extra.libdevice") == 0);
	CHECK(strcmp(import_path(p.m, "cuda_libdevice"), "triton.language.extra.cuda.libdevice") == 0);
	CHECK(strcmp(import_path(p.m, "core"), "triton.language.core") == 0);
	CHECK(strcmp(import_path(p.m, "system"), "sys") == 0);
	CHECK(strcmp(import_path(p.m, "sibling"), ".sibling") == 0);
	CHECK(strcmp(import_path(p.m, "a1"), "..pkg.mod.alpha") == 0);
	CHECK(strcmp(import_path(p.m, "*"), "typing") == 0);
	/* globals: simple NAME = value, in source order, inside module-level blocks too */
	int block = -1, x = -1, y = 0, hex = 0, scale = -1;
	for (int i = 0; i < p.m->nglobals; i++) {
		const ast_global *g = &p.m->globals[i];
		if (strcmp(g->name, "BLOCK") == 0)
			block = i;
		if (strcmp(g->name, "X") == 0)
			x = i;
		if (strcmp(g->name, "SCALE") == 0)
			scale = i;
		y += strcmp(g->name, "Y") == 0;
		hex += strcmp(g->name, "HEX") == 0; /* a tuple target: not a global */
	}
	CHECK(block >= 0 && p.m->globals[block].value->kind == AST_CALL);
	CHECK(x >= 0 && p.m->globals[x].value->kind == AST_INT && p.m->globals[x].value->lit.ival == 3);
	CHECK(scale >= 0 && p.m->globals[scale].annotation && p.m->globals[scale].value->kind == AST_FLOAT);
	CHECK_EQ_INT(y, 3);
	CHECK_EQ_INT(hex, 0);
	CHECK_EQ_INT(tilec_error_count(p.ctx), 0);
	done(&p);
}

static void test_kernel_dump(void)
{
	parsed p;
	parse_text(&p,
		   "from triton import language as tl\n"
		   "import triton\n"
		   "@triton.jit\n"
		   "def k(X, Y, n, B: tl.constexpr = 128):\n"
		   "    i = tl.program_id(0)\n"
		   "    a, b = helper(X, n)\n"
		   "    x: tl.constexpr = 3\n"
		   "    acc = tl.zeros([B, B], dtype=tl.float32)\n"
		   "    for j in tl.range(0, n, 2, num_stages=3):\n"
		   "        if j % 2 == 0:\n"
		   "            acc += x[:, None] * x[None, :]\n"
		   "        elif not j:\n"
		   "            pass\n"
		   "        else:\n"
		   "            acc -= -1.5e3\n"
		   "    while i < n and i >= 0 or i is None:\n"
		   "        i = i + 1 if i != 2 else float('inf')\n"
		   "    assert n > 0, 'n'\n"
		   "    tl.static_assert(B >= 16)\n"
		   "    y = X[1:n:2, ...] ** 2 // 3 % 4 << 1 >> 1 & 7 | 8 ^ ~9\n"
		   "    return a, (b,)\n");
	CHECK_EQ_INT(p.st, TILEC_OK);
	if (p.st == TILEC_OK && p.m->nfuncs == 1) {
		CHECK_DUMP(p.m->funcs[0],
			   "(def k\n"
			   "  (jit (. triton jit))\n"
			   "  (params\n"
			   "    (param X)\n"
			   "    (param Y)\n"
			   "    (param n)\n"
			   "    (param B constexpr : (. tl constexpr) = 128))\n"
			   "  (body\n"
			   "    (= i (call (. tl program_id) 0))\n"
			   "    (= (tuple a b) (call helper X n))\n"
			   "    (=: x (. tl constexpr) 3)\n"
			   "    (= acc (call (. tl zeros) (list B B) (kw dtype (. tl float32))))\n"
			   "    (for j (call (. tl range) 0 n 2 (kw num_stages 3))\n"
			   "      (body\n"
			   "        (if (== (% j 2) 0)\n"
			   "          (then\n"
			   "            (+= acc (* ([] x (tuple (: _ _ _) None)) ([] x (tuple None (: _ _ _))))))\n"
			   "          (else\n"
			   "            (if (not j)\n"
			   "              (then\n"
			   "                (pass))\n"
			   "              (else\n"
			   "                (-= acc (neg 1500.0))))))))\n"
			   "    (while (or (and (< i n) (>= i 0)) (is i None))\n"
			   "      (body\n"
			   "        (= i (ifexp (!= i 2) (+ i 1) (call float \"inf\")))))\n"
			   "    (assert (> n 0) \"n\")\n"
			   "    (expr (call (. tl static_assert) (>= B 16)))\n"
			   "    (= y (| (& (>> (<< (% (// (** ([] X (tuple (: 1 n 2) ...)) 2) 3) 4) 1) 1) 7) (^ 8 (~ 9))))\n"
			   "    (return (tuple a (tuple b)))))");
		CHECK_EQ_INT(ast_check_kernel(p.ctx, p.m->funcs[0]), TILEC_OK);
		/* locations: the statement's first token, an operator node's operator */
		ast_node *s = p.m->funcs[0]->body.items[1];
		CHECK(s->loc.line == 6 && s->loc.col == 5);
		ast_node *w = p.m->funcs[0]->body.items[5];
		CHECK(w->kind == AST_WHILE && w->while_.cond->loc.line == 16 && w->while_.cond->loc.col == 28);
	}
	CHECK(strcmp(import_path(p.m, "tl"), "triton.language") == 0);
	done(&p);
}

static void test_decorators(void)
{
	parsed p;
	parse_text(&p,
		   "from triton import jit\n"
		   "import triton as tr\n"
		   "import torch\n"
		   "@jit\n"
		   "def a(): pass\n"
		   "@tr.jit\n"
		   "def b(): pass\n"
		   "@torch.jit.script\n"
		   "def c(): pass\n"
		   "@tr.heuristics({'E': lambda args: True})\n"
		   "@tr.autotune(configs=[], key=['n'])\n"
		   "@tr.jit(noinline=True)\n"
		   "def d(n): pass\n"
		   "class C:\n"
		   "    @tr.jit\n"
		   "    def method(self): pass\n"
		   "def host():\n"
		   "    @tr.jit\n"
		   "    def inner(): pass\n"
		   "@tr.jit\n"
		   "def a(x): return x\n"
		   "@functools.cache\n"
		   "def e(): pass\n");
	CHECK_EQ_INT(p.st, TILEC_OK);
	if (p.st == TILEC_OK) {
		CHECK_EQ_INT(p.m->nfuncs, 4);
		CHECK(ast_find_func(p.m, "b") != NULL);
		CHECK(ast_find_func(p.m, "c") == NULL);
		CHECK(ast_find_func(p.m, "method") == NULL);
		CHECK(ast_find_func(p.m, "inner") == NULL);
		CHECK(ast_find_func(p.m, "e") == NULL);
		ast_func *a = ast_find_func(p.m, "a");
		CHECK(a && a->nparams == 1); /* the later definition wins */
		ast_func *d = ast_find_func(p.m, "d");
		CHECK(d && d->autotune && d->heuristics && d->jit);
		if (d) {
			CHECK(ast_call_kwarg(d->jit, "noinline")->kind == AST_TRUE);
			CHECK(ast_call_kwarg(d->autotune, "key")->seq.items.n == 1);
		}
	}
	done(&p);
}

/* Kernels a factory function defines in its body: listed apart, each
 * with the def around it (through compound statements, not classes);
 * their decorators resolve through the factory's imports first, which are
 * recorded on the factory by the body statement they are in. Plain defs
 * marked @tl.constexpr are flagged. A syntax error in such a kernel is
 * reported. */
static void test_nested_kernels(void)
{
	parsed p;
	parse_text(&p,
		   "import functools\n"
		   "import triton.language as tl\n"
		   "def factory(flag):\n"
		   "    import triton as tr\n"
		   "    if flag:\n"
		   "        from triton import jit\n"
		   "    @tr.jit\n"
		   "    def k(x):\n"
		   "        pass\n"
		   "    @functools.cache\n"
		   "    def host(): pass\n"
		   "    class C:\n"
		   "        import triton as tr\n"
		   "        @tr.jit\n"
		   "        def method(self): pass\n"
		   "    def inner():\n"
		   "        @jit\n"
		   "        def deep(): pass\n"
		   "        return deep\n"
		   "    return k\n"
		   "@tl.constexpr\n"
		   "def acc(dtype): return dtype\n"
		   "def plain(): pass\n");
	CHECK_EQ_INT(p.st, TILEC_OK);
	if (p.st == TILEC_OK) {
		CHECK_EQ_INT(p.m->nfuncs, 0);
		CHECK_EQ_INT(p.m->nnested, 2);
		CHECK(ast_find_func(p.m, "k") == NULL);
		ast_func *k = ast_find_kernel(p.m, "k"), *deep = ast_find_kernel(p.m, "deep");
		CHECK(k && k->outer && !strcmp(k->outer->name, "factory") && !k->outer->outer);
		CHECK(deep && deep->outer && !strcmp(deep->outer->name, "inner") && deep->outer->outer == k->outer);
		CHECK(ast_find_kernel(p.m, "method") == NULL && ast_find_kernel(p.m, "host") == NULL);
		if (k && k->outer) {
			const ast_func *f = k->outer;
			CHECK_EQ_INT(f->nimports, 2);
			CHECK(f->nimports == 2 && !strcmp(f->imports[0].alias, "tr") && f->imports[0].group == 0);
			CHECK(f->nimports == 2 && !strcmp(f->imports[1].path, "triton.jit") && f->imports[1].group == 2);
		}
		CHECK_EQ_INT(p.m->nhost_funcs, 3);
		CHECK(p.m->nhost_funcs == 3 && !strcmp(p.m->host_funcs[1]->name, "acc") && p.m->host_funcs[1]->constexpr_fn);
		CHECK(p.m->nhost_funcs == 3 && !p.m->host_funcs[2]->constexpr_fn);
		if (p.m->nhost_funcs == 3) {
			strbuf sb;
			sb_init(&sb);
			ast_dump_func(&sb, p.m->host_funcs[1]);
			CHECK_STR_CONTAINS(sb_str(&sb), "(constexpr ");
			sb_free(&sb);
		}
	}
	done(&p);
	char *got = diagnose("import triton\n"
			     "def factory():\n"
			     "    @triton.jit\n"
			     "    def k(x):\n"
			     "        x = = 1\n");
	CHECK_STR_CONTAINS(got, "k.py:5:13: error: expected an expression, found '='");
	free(got);
	/* host code after it that does not parse: the factory is skipped whole */
	parse_text(&p, "import triton\ndef factory():\n    @triton.jit\n    def k(x): pass\n    y = = 1\n");
	CHECK_EQ_INT(p.st, TILEC_OK);
	CHECK(p.st != TILEC_OK || p.m->nnested == 0);
	done(&p);
}

/* Host code is skipped where it cannot be parsed; kernels after it are
 * still found and nothing is reported. */
static void test_host_recovery(void)
{
	parsed p;
	parse_text(&p,
		   "import triton\n"
		   "print(1 2)\n"
		   "def host()\n"
		   "    x = [\n"
		   "      1 2]\n"
		   "    return x\n"
		   "if cond:\n"
		   "    y = = 2\n"
		   "    @triton.jit\n"
		   "    def k1(a): a + 1\n"
		   "else:\n"
		   "    @triton.jit\n"
		   "    def k2(a):\n"
		   "        return a\n"
		   "class C(1 2):\n"
		   "    pass\n"
		   "@decorator(\n"
		   "   1 2)\n"
		   "def f(): pass\n"
		   "try:\n"
		   "    x = 1 1\n"
		   "except E: pass\n"
		   "finally: pass\n"
		   "@triton.jit\n"
		   "def k3(a): pass\n");
	CHECK_EQ_INT(p.st, TILEC_OK);
	CHECK_EQ_INT(tilec_error_count(p.ctx), 0);
	if (p.st == TILEC_OK) {
		CHECK_EQ_INT(p.m->nfuncs, 3);
		CHECK(ast_find_func(p.m, "k1") && ast_find_func(p.m, "k2") && ast_find_func(p.m, "k3"));
		CHECK_EQ_INT(count_skipped(&p.m->body), 6);
	}
	done(&p);
}

/* Syntax errors: reported inside a kernel, at module level only when the
 * file is not Python at all. */
static void test_syntax_errors(void)
{
	DIAG("    x = (1 +)\n", "k.py:5:13: error: expected an expression, found ')'");
	DIAG("    if x\n        pass\n", "k.py:5:9: error: expected ':', found end of line");
	DIAG("    x = 1 2\n", "k.py:5:11: error: expected end of statement, found '2'");
	DIAG("    x.(1)\n", "k.py:5:7: error: expected a name, found '('");
	DIAG("    x = 1\n        y = 2\n", "k.py:6:9: error: unexpected indent");
	DIAG("    if x:\n    y = 2\n", "k.py:6:5: error: expected an indented block, found 'y'");
	DIAG("    1 = x\n", "k.py:5:5: error: cannot assign to int");
	DIAG("    f(x) = 1\n", "k.py:5:5: error: cannot assign to call");
	DIAG("    for 1 in x: pass\n", "k.py:5:9: error: cannot assign to int");
	DIAG("    f(a=1, b)\n", "k.py:5:12: error: positional argument follows keyword argument");
	DIAG("    f() += 1\n", "k.py:5:5: error: 'call' is an illegal expression for augmented assignment");
	DIAG("    a, b: int = 1, 2\n", "k.py:5:9: error: only single target (not tuple) can be annotated");
	DIAG("    x = b'a' 'b'\n", "k.py:5:14: error: cannot mix bytes and nonbytes literals");
	DIAG("    async x\n", "k.py:5:11: error: expected 'def', 'for' or 'with' after 'async', found 'x'");
	DIAG("    @dec\n    x = 1\n", "k.py:6:5: error: expected 'def' or 'class' after a decorator, found 'x'");
	DIAG("    try:\n        pass\n    x = 1\n", "k.py:7:5: error: expected 'except' or 'finally' block, found 'x'");
	DIAG("    return (x\n", "k.py:5:12: error: '(' was never closed");
	DIAG("    if x: if y: pass\n", "k.py:5:11: error: expected an expression, found 'if'");
	{
		strbuf sb;
		sb_init(&sb);
		sb_puts(&sb, KERNEL_HEAD "    x = ");
		for (int i = 0; i < 300; i++)
			sb_puts(&sb, "- ");
		sb_puts(&sb, "1\n");
		char *got = diagnose(sb_str(&sb));
		CHECK_STR_CONTAINS(got, "k.py:5:");
		CHECK_STR_CONTAINS(got, "error: expression nested too deeply");
		free(got);
		sb_free(&sb);
	}
	/* at module level: a lexical error anywhere, an unexpected indent */
	char *got = diagnose("x = 1\n  y = 2\n");
	CHECK_STR_CONTAINS(got, "k.py:2:3: error: unexpected indent\n  y = 2\n  ^");
	free(got);
	got = diagnose("def host():\n    return 'abc\n");
	CHECK_STR_CONTAINS(got, "k.py:2:12: error: unterminated string literal (detected at line 2)");
	free(got);
	parsed p;
	parse_text(&p, KERNEL_HEAD "    x = (1 +)\n");
	CHECK_EQ_INT(p.st, TILEC_ERR_SYNTAX);
	CHECK_EQ_INT(tilec_error_count(p.ctx), 1);
	done(&p);
}

/* What Python accepts and Triton's kernel language refuses, by name. */
static void test_kernel_check(void)
{
	DIAG("    for i in range(N):\n        break\n", "k.py:6:9: error: `break` statements are not supported in kernels");
	DIAG("    while x:\n        continue\n", "k.py:6:9: error: `continue` statements are not supported in kernels");
	DIAG("    m = 0 < x < N\n", "k.py:5:15: error: simultaneous multiple comparison is not supported: "
	     "chained comparisons (`a < b < c`) must be split");
	DIAG("    m = x in (1, 2)\n", "k.py:5:11: error: `in` comparisons are not supported in kernels");
	DIAG("    m = x not in (1, 2)\n", "k.py:5:11: error: `not in` comparisons are not supported in kernels");
	DIAG("    with ctx() as c:\n        pass\n", "k.py:5:5: error: `with` statements are not supported in kernels");
	DIAG("    try:\n        pass\n    finally:\n        pass\n", "k.py:5:5: error: `try` statements are not supported in kernels");
	DIAG("    del x\n", "k.py:5:5: error: `del` statements are not supported in kernels");
	DIAG("    global G\n", "k.py:5:5: error: `global` declarations are not supported in kernels");
	DIAG("    nonlocal G\n", "k.py:5:5: error: `nonlocal` declarations are not supported in kernels");
	DIAG("    import math\n", "k.py:5:5: error: `import` statements are not supported in kernels");
	DIAG("    from math import sin\n", "k.py:5:5: error: `import` statements are not supported in kernels");
	DIAG("    def inner():\n        pass\n", "k.py:5:5: error: nested function definitions are not supported in kernels");
	DIAG("    class C:\n        pass\n", "k.py:5:5: error: class definitions are not supported in kernels");
	DIAG("    match x:\n        case 1:\n            pass\n", "k.py:5:5: error: `match` statements are not supported in kernels");
	DIAG("    type T = int\n", "k.py:5:5: error: `type` statements are not supported in kernels");
	DIAG("    f = lambda a: a\n", "k.py:5:9: error: lambda expressions are not supported in kernels");
	DIAG("    y = [i for i in range(4)]\n", "k.py:5:9: error: list comprehensions are not supported in kernels");
	DIAG("    y = {i for i in range(4)}\n", "k.py:5:9: error: set comprehensions are not supported in kernels");
	DIAG("    y = {i: i for i in range(4)}\n", "k.py:5:9: error: dict comprehensions are not supported in kernels");
	DIAG("    y = sum(i for i in range(4))\n", "k.py:5:13: error: generator expressions are not supported in kernels");
	DIAG("    y = {'a': 1}\n", "k.py:5:9: error: dict literals are not supported in kernels");
	DIAG("    y = {1, 2}\n", "k.py:5:9: error: set literals are not supported in kernels");
	DIAG("    tl.device_print(f'{x}')\n", "k.py:5:21: error: f-strings are not supported in kernels");
	DIAG("    y = b'x'\n", "k.py:5:9: error: bytes literals are not supported in kernels");
	DIAG("    y = 2j\n", "k.py:5:9: error: complex numbers are not supported in kernels");
	DIAG("    f(*x)\n", "k.py:5:7: error: starred expressions (`*x`) are not supported in kernels");
	DIAG("    a, *b = x\n", "k.py:5:8: error: starred expressions (`*x`) are not supported in kernels");
	DIAG("    f(**x)\n", "k.py:5:7: error: `**` arguments are not supported in kernels");
	DIAG("    if (y := x):\n        pass\n", "k.py:5:11: error: assignment expressions (`:=`) are not supported in kernels");
	DIAG("    yield x\n", "k.py:5:5: error: `yield` is not supported in kernels");
	DIAG("    a = b = x\n", "k.py:5:5: error: simultaneous multiple assignment is not supported (`a = b = ...`)");
	DIAG("    for i in range(N):\n        pass\n    else:\n        pass\n",
	     "k.py:8:9: error: `else` clauses of `for` loops are not supported in kernels");
	DIAG("    while x:\n        pass\n    else:\n        pass\n",
	     "k.py:8:9: error: `else` clauses of `while` loops are not supported in kernels");
	char *got = diagnose("import triton\n@triton.jit\ndef k(x, *args, **kw):\n    pass\n");
	CHECK_STR_CONTAINS(got, "k.py:3:11: error: `*args` parameters are not supported in kernels");
	CHECK_STR_CONTAINS(got, "k.py:3:19: error: `**kw` parameters are not supported in kernels");
	free(got);
	got = diagnose("import triton\n@triton.jit\nasync def k(x):\n    await x\n    async for i in x:\n        pass\n");
	CHECK_STR_CONTAINS(got, "k.py:3:11: error: `async` functions cannot be kernels");
	CHECK_STR_CONTAINS(got, "k.py:4:5: error: `await` is not supported in kernels");
	CHECK_STR_CONTAINS(got, "k.py:5:5: error: `async for` is not supported in kernels");
	free(got);
	/* all problems are reported, each with its line and caret */
	parsed p;
	parse_text(&p, KERNEL_HEAD "    for i in range(N):\n        if i:\n            break\n        continue\n    return 0 < i < N\n");
	CHECK_EQ_INT(p.st, TILEC_OK);
	if (p.st == TILEC_OK) {
		CHECK_EQ_INT(ast_check_kernel(p.ctx, p.m->funcs[0]), TILEC_ERR_UNSUPPORTED);
		CHECK_EQ_INT(tilec_error_count(p.ctx), 3);
		CHECK_STR_CONTAINS(tilec_diagnostics(p.ctx), "k.py:7:13: error: `break` statements are not supported in kernels\n"
				   "            break\n            ^");
		CHECK_STR_CONTAINS(tilec_diagnostics(p.ctx), "k.py:9:18: error: simultaneous multiple comparison");
	}
	done(&p);
	/* host code around kernels may use all of it */
	got = diagnose("def host():\n    for i in x:\n        break\n    return [j for j in x if 0 < j < 3]\n");
	CHECK(strcmp(got, "") == 0);
	free(got);
}

/* A small deterministic generator for the fuzz smoke run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* The engine's blind mutation, which the grammar-aware mutator of
 * fuzz_parse.c falls back on: one byte changed. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
	(void)max_size;
	if (size)
		data[rng() % size] ^= (uint8_t)(1 + rng() % 255);
	return size;
}

/* The grammar-aware mutator: its mutants stay within the bound it is
 * given, differ from their parent, and the target survives them. */
static void test_fuzz_mutator(void)
{
	enum { MAX = 65536 };
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	src_file *f;
	uint8_t *buf = malloc(MAX);
	int changed = 0, within = 1;
	if (src_read_file(ctx, a, "tests/kernels/seeds/silu.py", &f) != TILEC_OK || f->len > MAX) {
		CHECK_MSG(0, "cannot read the seed");
	} else {
		size_t len = f->len;
		memcpy(buf, f->text, len);
		for (unsigned i = 0; i < 2000; i++) {
			size_t n = LLVMFuzzerCustomMutator(buf, len, MAX, i * 2654435761u);
			within &= n <= MAX;
			changed += n != len || memcmp(buf, f->text, n) != 0;
			LLVMFuzzerTestOneInput(buf, n);
			/* from the seed again now and then, else from the mutant */
			len = i % 8 == 7 ? f->len : n;
			if (i % 8 == 7)
				memcpy(buf, f->text, len);
		}
	}
	CHECK(within);
	CHECK(changed > 1500);
	free(buf);
	arena_free(a);
	tilec_ctx_free(ctx);
}

/* The fuzz target on mutations of real inputs: byte changes, insertions of
 * Python's troublemakers, cuts. Any crash, leak or sanitizer report fails
 * the test run. */
static void test_fuzz_target(void)
{
	static const char *const files[] = {
		"tests/kernels/seeds/silu.py", "tests/kernels/seeds/add_sin_cos.py", "tests/parse/host_heavy.py",
	};
	static const char *const pieces[] = {
		"(", ")", "[", "]", "{", "}", "'", "\"", "'''", "\\", "\n", "\t", "    ", ":", "@triton.jit\n",
		"f'{", "0x", "1e", "lambda", "break", "<", "=", ",", "*", "**", "\r", "#", "\0", "\xff", "if x:\n",
	};
	int runs = 0;
	for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
		tilec_ctx *ctx = tilec_ctx_new();
		arena *a = arena_new();
		src_file *f;
		if (src_read_file(ctx, a, files[fi], &f) != TILEC_OK) {
			CHECK_MSG(0, "cannot read %s", files[fi]);
			arena_free(a);
			tilec_ctx_free(ctx);
			continue;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)f->text, f->len);
		runs++;
		char *buf = malloc(f->len + 64);
		for (int iter = 0; iter < 300; iter++) {
			size_t len = f->len;
			memcpy(buf, f->text, len);
			int edits = 1 + (int)(rng() % 4);
			for (int e = 0; e < edits && len > 0; e++) {
				size_t at = rng() % len;
				switch (rng() % 3) {
				case 0: buf[at] = (char)rng(); break;
				case 1: {
					const char *s = pieces[rng() % (sizeof pieces / sizeof pieces[0])];
					size_t n = s[0] ? strlen(s) : 1;
					if (len + n <= f->len + 64 - 1) {
						memmove(buf + at + n, buf + at, len - at);
						memcpy(buf + at, s, n);
						len += n;
					}
					break;
				}
				default: len = at + (len - at) / 2; break;
				}
			}
			LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
			runs++;
		}
		free(buf);
		arena_free(a);
		tilec_ctx_free(ctx);
	}
	/* inputs shaped to reach the limits */
	strbuf sb;
	sb_init(&sb);
	for (int i = 0; i < 5000; i++)
		sb_puts(&sb, "not ");
	sb_puts(&sb, "x\n");
	for (int i = 0; i < 199; i++)
		sb_putc(&sb, '(');
	LLVMFuzzerTestOneInput((const uint8_t *)sb.data, sb.len);
	sb_free(&sb);
	LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
	CHECK_EQ_INT(runs, 903);
}

int main(void)
{
	test_seed_vector_add();
	test_seed_silu();
	test_suite_kernels();
	test_host_heavy();
	test_kernel_dump();
	test_decorators();
	test_nested_kernels();
	test_host_recovery();
	test_syntax_errors();
	test_kernel_check();
	test_fuzz_target();
	test_fuzz_mutator();
	return check_report("test_parse");
}
