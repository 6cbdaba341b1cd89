/* test_sema.c - the front-end API: module queries, autotune configs,
 * specialization results (parameters, hints, constexprs, options), status
 * codes of failures, and a 200-line file of 14 kernels. */

#include "check.h"
#include "analysis/analysis.h"
#include "front/front.h"

static const char *src =
	"import triton\n"
	"import triton.language as tl\n"
	"\n"
	"@triton.autotune(configs=[triton.Config({'BLOCK': 64}, num_warps=2),\n"
	"                          triton.Config({'BLOCK': 256, 'ODD': False}, num_warps=8, num_stages=5)], key=['n'])\n"
	"@triton.jit\n"
	"def scale(x_ptr, y_ptr, n, stride, alpha, BLOCK: tl.constexpr, ODD: tl.constexpr = True, D: tl.constexpr = tl.float16):\n"
	"    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
	"    x = tl.load(x_ptr + offs * stride, mask=offs < n)\n"
	"    tl.store(y_ptr + offs, (_twice(x) * alpha).to(D), mask=offs < n)\n"
	"\n"
	"@triton.jit\n"
	"def _twice(v):\n"
	"    return v + v\n"
	"\n"
	"def host_code():\n"
	"    return [i for i in range(3)]\n";

static ir_func *spec(tilec_ctx *ctx, arena *a, const fe_module *m, const char *sig, const fe_define *d, int nd,
		     tilec_status *st)
{
	fe_spec s = {0};
	s.kernel = "scale";
	s.signature = sig;
	s.defines = d;
	s.ndefines = nd;
	ir_func *f = NULL;
	*st = fe_specialize(ctx, a, m, &s, &f);
	return f;
}

static void test_module(void)
{
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	fe_module *m = NULL;
	CHECK_EQ_INT(fe_load_text(ctx, a, "k.py", src, &m), TILEC_OK);
	CHECK_EQ_INT(fe_kernel_count(m), 2);
	CHECK(!strcmp(fe_kernel_name(m, 0), "scale"));
	CHECK(fe_kernel_name(m, 2) == NULL);
	CHECK_EQ_INT(fe_param_count(m, "scale"), 8);
	CHECK_EQ_INT(fe_param_count(m, "nope"), -1);
	CHECK(!strcmp(fe_param_name(m, "scale", 4), "alpha"));
	CHECK(!fe_param_is_constexpr(m, "scale", 4));
	CHECK(fe_param_is_constexpr(m, "scale", 5));
	CHECK(fe_param_name(m, "scale", 8) == NULL);
	CHECK_EQ_INT(fe_config_count(m, "scale"), 2);
	CHECK_EQ_INT(fe_config_count(m, "_twice"), 0);

	fe_spec s = {0};
	s.kernel = "scale";
	CHECK_EQ_INT(fe_config_get(ctx, m, "scale", 1, &s), TILEC_OK);
	CHECK_EQ_INT(s.ndefines, 2);
	CHECK(!strcmp(s.defines[0].name, "BLOCK") && !strcmp(s.defines[0].value, "256"));
	CHECK(!strcmp(s.defines[1].name, "ODD") && !strcmp(s.defines[1].value, "False"));
	CHECK_EQ_INT(s.num_warps, 8);
	CHECK_EQ_INT(s.num_stages, 5);
	CHECK_EQ_INT(fe_config_get(ctx, m, "scale", 2, &s), TILEC_ERR_INVALID);
	tilec_clear_diagnostics(ctx);

	/* hints, folding of ==1 ints, constexprs by signature, define and default */
	tilec_status st;
	fe_define d[1] = {{"ODD", "False"}};
	ir_func *f = spec(ctx, a, m, "*fp32:16, *fp16, i32:16, i32:1, fp32, 128", d, 1, &st);
	CHECK_EQ_INT(st, TILEC_OK);
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ_INT(f->nparams, 5);
		CHECK(f->params[0].div16 && !f->params[1].div16 && f->params[2].div16);
		CHECK(f->params[3].equal_one);
		CHECK(f->params[4].type.kind == IR_F32);
		CHECK_EQ_INT(f->num_warps, 4);
		CHECK_EQ_INT(f->num_stages, 3);
		CHECK_EQ_INT(f->nconstexprs, 3);
		CHECK(!strcmp(f->constexprs[0].name, "BLOCK") && f->constexprs[0].kind == IR_CONSTEXPR_INT &&
		      f->constexprs[0].ival == 128);
		CHECK(f->constexprs[1].kind == IR_CONSTEXPR_BOOL && f->constexprs[1].ival == 0);
		CHECK(f->constexprs[2].kind == IR_CONSTEXPR_DTYPE && f->constexprs[2].ival == IR_F16);
		CHECK_EQ_INT(ir_verify(ctx, f), TILEC_OK);
		strbuf sb;
		sb_init(&sb);
		ir_dump(&sb, f);
		/* stride == 1 folds away: nothing uses the parameter %3 */
		int uses = 0;
		for (int i = 0; i < f->body.nops; i++)
			for (int k = 0; k < f->body.ops[i]->nargs; k++)
				uses += f->body.ops[i]->args[k] == 3;
		CHECK_EQ_INT(uses, 0);
		CHECK_STR_CONTAINS(sb_str(&sb), "cast");
		sb_free(&sb);
	}

	/* failures come back as statuses with diagnostics */
	CHECK(spec(ctx, a, m, "*fp32, *fp16, i32, i32, fp32", NULL, 0, &st) == NULL);
	CHECK_EQ_INT(st, TILEC_ERR_INVALID);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "no value for constexpr parameter `BLOCK`");
	tilec_clear_diagnostics(ctx);
	CHECK(spec(ctx, a, m, "*fp32, *fp16, i32, i32, fp32, 100", NULL, 0, &st) == NULL);
	CHECK_EQ_INT(st, TILEC_ERR_SEMANTIC);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "k.py:8:39: error: arange's range must be a power of two, got 100");
	tilec_clear_diagnostics(ctx);
	fe_define bad[1] = {{"D", "tl.float64x"}};
	CHECK(spec(ctx, a, m, "*fp32, *fp16, i32, i32, fp32, 64", bad, 1, &st) == NULL);
	CHECK_EQ_INT(st, TILEC_ERR_INVALID);
	tilec_clear_diagnostics(ctx);
	CHECK(spec(ctx, a, m, "*fp32, *i32, i32, i32, i64, 64", NULL, 0, &st) != NULL);
	CHECK_EQ_INT(st, TILEC_OK);

	/* tile's :8 and :4: divisible by 8 or 4, on pointers and integers */
	f = spec(ctx, a, m, "*fp32:8, *fp16:4, i32:8, i32:4, fp32, 64", d, 1, &st);
	CHECK_EQ_INT(st, TILEC_OK);
	if (f) {
		CHECK(f->params[0].div_by == 8 && f->params[1].div_by == 4 && f->params[2].div_by == 8 &&
		      f->params[3].div_by == 4 && !f->params[4].div_by);
		CHECK(!f->params[0].div16 && !f->params[2].div16 && !f->params[3].equal_one);
		strbuf sb;
		sb_init(&sb);
		ir_dump(&sb, f);
		CHECK_STR_CONTAINS(sb_str(&sb), "%0: *fp32 {div8}");
		CHECK_STR_CONTAINS(sb_str(&sb), "%3: i32 {div4}");
		sb_free(&sb);
		axis_info *ai = NULL;
		CHECK_EQ_INT(axis_analyze(ctx, a, f, &ai), TILEC_OK);
		if (ai)
			CHECK(ai[0].divisibility[0] == 8 && ai[1].divisibility[0] == 4 && ai[2].divisibility[0] == 8);
	}
	CHECK(spec(ctx, a, m, "*fp32, *fp16, i32, i32, fp32:8, 64", NULL, 0, &st) == NULL);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "(`fp32:8`): floats take no hint");
	tilec_clear_diagnostics(ctx);
	CHECK(spec(ctx, a, m, "*fp32:2, *fp16, i32, i32, fp32, 64", NULL, 0, &st) == NULL);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "(`*fp32:2`): the hint must be :16, :8 or :4");
	tilec_clear_diagnostics(ctx);
	CHECK(spec(ctx, a, m, "*fp32, *fp16, i32:32, i32, fp32, 64", NULL, 0, &st) == NULL);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "(`i32:32`): the hint must be :16, :8, :4 or :1");
	tilec_clear_diagnostics(ctx);
	arena_free(a);
	tilec_ctx_free(ctx);
}

static void test_unsupported(void)
{
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	fe_module *m = NULL;
	CHECK_EQ_INT(fe_load_text(ctx, a, "u.py",
				  "import triton.language as T\nfrom triton import jit\n@jit\ndef k(p):\n    T.dot_scaled(p, 1)\n", &m),
		     TILEC_OK);
	fe_spec s = {0};
	s.kernel = "k";
	s.signature = "*i32";
	ir_func *f = NULL;
	CHECK_EQ_INT(fe_specialize(ctx, a, m, &s, &f), TILEC_ERR_UNSUPPORTED);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "u.py:5:5: error: `tl.dot_scaled` is not supported yet");
	arena_free(a);
	tilec_ctx_free(ctx);
}

/* A factory's kernels are among the file's kernels, after the module's;
 * fe_spec.binds gives a module-level name host code computes, bare or
 * qualified by the module's file; a value tile cannot resolve is refused. */
static void test_host_names(void)
{
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	fe_module *m = NULL;
	CHECK_EQ_INT(fe_load_text(ctx, a, "pkg/h.py",
				  "import triton\n"
				  "import triton.language as tl\n"
				  "shim = pick_module()\n"
				  "@triton.jit\n"
				  "def top(x_ptr):\n"
				  "    tl.store(x_ptr, shim.exp(tl.load(x_ptr)))\n"
				  "def factory():\n"
				  "    import triton.language as tl\n"
				  "    @triton.jit\n"
				  "    def inner(x_ptr, B: tl.constexpr):\n"
				  "        tl.store(x_ptr, B)\n"
				  "    return inner\n",
				  &m),
		     TILEC_OK);
	if (!m) {
		arena_free(a);
		tilec_ctx_free(ctx);
		return;
	}
	CHECK_EQ_INT(fe_kernel_count(m), 2);
	CHECK(!strcmp(fe_kernel_name(m, 1), "inner"));
	CHECK_EQ_INT(fe_param_count(m, "inner"), 2);
	CHECK(fe_param_is_constexpr(m, "inner", 1));
	fe_spec s = {0};
	ir_func *f = NULL;
	s.kernel = "inner";
	s.signature = "*fp32, 2";
	CHECK_EQ_INT(fe_specialize(ctx, a, m, &s, &f), TILEC_OK);
	s.kernel = "top";
	s.signature = "*fp32";
	CHECK_EQ_INT(fe_specialize(ctx, a, m, &s, &f), TILEC_ERR_SEMANTIC);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "give its value with --bind shim=VALUE");
	tilec_clear_diagnostics(ctx);
	static const char *const names[3] = {"shim", "pkg.h.shim", "h.shim"};
	for (int i = 0; i < 3; i++) {
		fe_define bind = {names[i], "triton.language.extra.libdevice"};
		s.binds = &bind;
		s.nbinds = 1;
		CHECK_EQ_INT(fe_specialize(ctx, a, m, &s, &f), TILEC_OK);
	}
	fe_define elsewhere = {"other.shim", "triton.language.extra.libdevice"};
	s.binds = &elsewhere;
	CHECK_EQ_INT(fe_specialize(ctx, a, m, &s, &f), TILEC_ERR_SEMANTIC);
	tilec_clear_diagnostics(ctx);
	fe_define bad = {"shim", "triton.language.nope"};
	s.binds = &bad;
	CHECK_EQ_INT(fe_specialize(ctx, a, m, &s, &f), TILEC_ERR_INVALID);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "--bind shim=triton.language.nope: the value is neither");
	arena_free(a);
	tilec_ctx_free(ctx);
}

/* A file of about 200 lines and 14 kernels loads and specializes whole
 * (bench/frontend.sh measures the time). */
static void test_many_kernels(void)
{
	strbuf sb;
	sb_init(&sb);
	sb_puts(&sb, "import triton\nimport triton.language as tl\n\n");
	for (int i = 0; i < 14; i++)
		sb_printf(&sb,
			  "@triton.jit\n"
			  "def k%d(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
			  "    # kernel %d\n"
			  "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
			  "    mask = offs < n\n"
			  "    x = tl.load(x_ptr + offs, mask=mask, other=0.0)\n"
			  "    acc = tl.zeros([BLOCK], dtype=tl.float32)\n"
			  "    for i in range(0, n, BLOCK):\n"
			  "        acc += tl.where(x > 0, tl.exp(x), x * 0.5)\n"
			  "    y = tl.sigmoid(acc) * x + tl.sum(x, axis=0)\n"
			  "    tl.store(y_ptr + offs, y, mask=mask)\n"
			  "    tl.store(y_ptr, tl.max(y, axis=0))\n"
			  "\n",
			  i, i);
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	fe_module *m = NULL;
	CHECK_EQ_INT(fe_load_text(ctx, a, "speed.py", sb_str(&sb), &m), TILEC_OK);
	for (int i = 0; m && i < fe_kernel_count(m); i++) {
		fe_spec s = {0};
		s.kernel = fe_kernel_name(m, i);
		s.signature = "*fp32:16, *fp32:16, i32, 1024";
		ir_func *f = NULL;
		CHECK_EQ_INT(fe_specialize(ctx, a, m, &s, &f), TILEC_OK);
	}
	CHECK_EQ_INT(m ? fe_kernel_count(m) : 0, 14);
	arena_free(a);
	tilec_ctx_free(ctx);
	sb_free(&sb);
}

/* Kernel k(x_ptr, W) over `offs`, 128 consecutive indices a program, with
 * body `body`, specialized by signature sig, and its axis info; NULL (a
 * failed check) where a step fails. */
static ir_func *analyzed(tilec_ctx *ctx, arena *a, const char *body, const char *sig, axis_info **ai)
{
	char src[512];
	snprintf(src, sizeof src,
		 "import triton\nimport triton.language as tl\n@triton.jit\n"
		 "def k(x_ptr, W):\n"
		 "    offs = tl.program_id(0) * 128 + tl.arange(0, 128)\n%s",
		 body);
	fe_module *m = NULL;
	CHECK_EQ_INT(fe_load_text(ctx, a, "r.py", src, &m), TILEC_OK);
	fe_spec s = {0};
	s.kernel = "k";
	s.signature = sig;
	ir_func *f = NULL;
	*ai = NULL;
	if (m)
		CHECK_EQ_INT(fe_specialize(ctx, a, m, &s, &f), TILEC_OK);
	if (f)
		CHECK_EQ_INT(axis_analyze(ctx, a, f, ai), TILEC_OK);
	return *ai ? f : NULL;
}

/* Axis info's likely facts: a contiguous block modulo a runtime width is
 * proven contiguous nowhere but runs on between its wraps, its quotient
 * steady; modulo and divided by a known 8 they are the proven facts. */
static void test_likely_runs(void)
{
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	axis_info *ai;
	ir_func *f = analyzed(ctx, a,
			      "    tl.store(x_ptr + offs % W, offs // W)\n"
			      "    tl.store(x_ptr + offs % 8, offs // 8)\n",
			      "*i32:16, i32", &ai);
	int rems = 0, divs = 0;
	for (int i = 0; f && i < f->body.nops; i++) {
		const ir_op *op = f->body.ops[i];
		if (op->code != IR_OP_REM && op->code != IR_OP_DIV)
			continue;
		const axis_info *x = &ai[op->results[0]];
		bool by8 = rems + divs >= 2; /* the second store's */
		if (op->code == IR_OP_REM) {
			rems++;
			CHECK_EQ_INT((int)x->contiguity[0], by8 ? 8 : 1);
			CHECK_EQ_INT((int)x->runs[0], by8 ? 8 : 128);
		} else {
			divs++;
			CHECK_EQ_INT((int)x->constancy[0], by8 ? 8 : 1);
			CHECK_EQ_INT((int)x->steady[0], by8 ? 8 : 128);
		}
	}
	CHECK(rems == 2 && divs == 2);
	arena_free(a);
	tilec_ctx_free(ctx);
}

/* Divided by a runtime value proven a multiple of 16, a run of 128
 * consecutive indices from a multiple of 128 has one quotient for each 16
 * (as Triton's axis analysis takes it); a remainder by 1 and a product by
 * 0 are 0 everywhere, whatever the other operand. */
static void test_runtime_divisor(void)
{
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	axis_info *ai;
	ir_func *f = analyzed(ctx, a,
			      "    tl.store(x_ptr + offs, offs // W)\n"
			      "    tl.store(x_ptr + offs % 1 * W, offs * 0)\n",
			      "*i32:16, i32:16", &ai);
	int divs = 0, rems = 0, zeros = 0;
	for (int i = 0; f && i < f->body.nops; i++) {
		const ir_op *op = f->body.ops[i];
		const axis_info *x = op->nresults ? &ai[op->results[0]] : NULL;
		if (op->code == IR_OP_DIV) {
			divs++;
			CHECK_EQ_INT((int)x->constancy[0], 16);
		} else if (op->code == IR_OP_REM) {
			rems++;
			CHECK_EQ_INT((int)x->constancy[0], 128);
		} else if (op->code == IR_OP_MUL && f->values[op->results[0]].type.rank &&
			   x->constancy[0] == 128 && x->divisibility[0] >= 1 << 30) {
			zeros++; /* offs % 1 * W and offs * 0 */
		}
	}
	CHECK(divs == 1 && rems == 1 && zeros == 2);
	arena_free(a);
	tilec_ctx_free(ctx);
}

int main(void)
{
	test_likely_runs();
	test_runtime_divisor();
	test_module();
	test_unsupported();
	test_host_names();
	test_many_kernels();
	return check_report("test_sema");
}
