/* kernel_launch.h - the CPU suite's way to run one kernel of a .py file:
 * the front end specializes it, the verifier checks it, pipeline_loads
 * optionally rewrites it (as tilec compile would for sm_80 and newer, or
 * older targets), and the reference interpreter runs it over buffers the
 * test owns. A test builds a `launch` (kl), adds its arguments in order
 * (kl_ptr, kl_int, kl_float) and constexprs (kl_define), then expects it to
 * run (kl_run) or to be refused with a message (kl_fail, kl_refused);
 * with keep_ir the IR it ran stays in `ir` until kl_release. With
 * kl_cluster_ctas set (> 1), every kernel whose blocks can be split over a
 * cluster of that many CTAs runs split (passes/cluster.c; the interpreter
 * runs the CTAs one after another), counted in kl_cluster_splits.
 * Everything is static inline, so a test includes what it uses.
 */
#ifndef TILE_TESTS_KERNEL_LAUNCH_H
#define TILE_TESTS_KERNEL_LAUNCH_H

#include "check.h"
#include "front/front.h"
#include "passes/passes.h"

#include <string.h>

enum { KL_MAX_ARGS = 32, KL_MAX_DEFINES = 12 };

static int kl_cluster_ctas, kl_cluster_splits;

typedef struct launch {
	const char *file, *kernel, *signature;
	fe_define defines[KL_MAX_DEFINES];
	int ndefines;
	uint32_t grid[3];
	interp_buffer bufs[KL_MAX_ARGS];
	interp_arg args[KL_MAX_ARGS];
	int nbufs, nargs;
	int stages;       /* >= 2: run pipeline_loads with this num_stages before the interpreter */
	bool async;       /* ... as for sm_80 and newer targets (rings of asynchronous copies) */
	bool reuse;       /* ... rings of num_stages - 1 tiles, as for mma.sync */
	int loads_after;  /* pipelined: load ops left in the IR */
	int copies_after; /* pipelined: async_copy ops in the IR */
	bool tma;         /* ... as for sm_90a: host descriptors get tensor maps, their blocks TMA copies */
	bool run_on;      /* ... TMA copies run on across a persistent loop */
	int tma_after;    /* pipelined: tma_copy ops in the IR */
	int ifs_after;    /* pipelined: if ops in the IR */
	bool sink;        /* run sink_loads before the interpreter */
	bool keep_ir;     /* keep the IR dump of the last run in `ir` (kl_release frees it) */
	bool debug;       /* specialize in debug mode (device asserts and prints kept) */
	const char *const *include_dirs; /* module search paths (-I) */
	int ninclude_dirs;
	strbuf ir;
	tilec_ctx *ctx;
} launch;

static inline launch kl_grid(const char *file, const char *kernel, const char *signature, uint32_t gx, uint32_t gy,
			     uint32_t gz)
{
	launch l;
	memset(&l, 0, sizeof l);
	l.file = file;
	l.kernel = kernel;
	l.signature = signature;
	l.grid[0] = gx;
	l.grid[1] = gy;
	l.grid[2] = gz;
	return l;
}

static inline void kl_ptr(launch *l, void *data, size_t bytes)
{
	l->bufs[l->nbufs] = (interp_buffer){data, bytes};
	l->args[l->nargs++] = (interp_arg){l->nbufs++, 0, {0}};
}

static inline void kl_int(launch *l, int64_t v)
{
	l->args[l->nargs++] = (interp_arg){-1, 0, {.i = v}};
}

static inline void kl_float(launch *l, double v)
{
	l->args[l->nargs++] = (interp_arg){-1, 0, {.f = v}};
}

static inline void kl_define(launch *l, const char *name, const char *value)
{
	l->defines[l->ndefines++] = (fe_define){name, value};
}

/* Front end, then interpreter; the diagnostics stay in l->ctx (freed by
 * kl_done) so error tests can look at them. */
static inline tilec_status kl_go(launch *l)
{
	l->ctx = tilec_ctx_new();
	arena *a = arena_new();
	fe_module *m = NULL;
	ir_func *f = NULL;
	fe_spec spec = {.kernel = l->kernel, .signature = l->signature, .defines = l->defines, .ndefines = l->ndefines,
			.debug = l->debug, .include_dirs = l->include_dirs, .ninclude_dirs = l->ninclude_dirs,
			.tensormaps = l->tma};
	tilec_status st = fe_load(l->ctx, a, l->file, &m);
	if (!st)
		st = fe_specialize(l->ctx, a, m, &spec, &f);
	if (!st)
		st = ir_verify(l->ctx, f);
	if (!st && kl_cluster_ctas > 1 && !cluster_refusal(f, kl_cluster_ctas)) {
		f->num_ctas = kl_cluster_ctas;
		st = cluster_split(l->ctx, f);
		if (!st)
			st = ir_verify(l->ctx, f);
		kl_cluster_splits++;
	}
	if (!st && l->stages >= 2) {
		f->num_stages = l->stages;
		pipeline_options po = {.async_copies = l->async, .reuse_read_tile = l->reuse, .tensormaps = l->tma,
				       .run_on = l->run_on};
		st = pipeline_loads(l->ctx, f, &po, NULL);
		if (!st)
			st = ir_verify(l->ctx, f);
		strbuf sb;
		sb_init(&sb);
		ir_dump(&sb, f);
		l->loads_after = l->copies_after = l->tma_after = l->ifs_after = 0;
		for (const char *p = sb_str(&sb); (p = strstr(p, "= load ")) != NULL; p++)
			l->loads_after++;
		for (const char *p = sb_str(&sb); (p = strstr(p, "async_copy ")) != NULL; p++)
			l->copies_after++;
		for (const char *p = sb_str(&sb); (p = strstr(p, "tma_copy ")) != NULL; p++)
			l->tma_after++;
		for (const char *p = sb_str(&sb); (p = strstr(p, " = if ")) != NULL; p++)
			l->ifs_after++;
		sb_free(&sb);
	}
	if (!st && l->sink) {
		sink_loads(f);
		st = ir_verify(l->ctx, f);
	}
	if (!st && l->keep_ir) {
		sb_free(&l->ir);
		sb_init(&l->ir);
		ir_dump(&l->ir, f);
	}
	if (!st)
		st = interp_run(l->ctx, f, l->grid, l->bufs, l->nbufs, l->args);
	arena_free(a);
	return st;
}

static inline void kl_done(launch *l)
{
	tilec_ctx_free(l->ctx);
	l->ctx = NULL;
}

/* kl_done, and the kept IR dump. */
static inline void kl_release(launch *l)
{
	kl_done(l);
	if (l->keep_ir) {
		sb_free(&l->ir);
		sb_init(&l->ir);
	}
}

/* Runs and expects success; prints the diagnostics when not. */
static inline bool kl_run(launch *l)
{
	tilec_status st = kl_go(l);
	CHECK_MSG(st == TILEC_OK, "%s(%s) [%s]: %s\n%s", l->kernel, l->file, l->signature ? l->signature : "",
		  tilec_status_string(st), tilec_diagnostics(l->ctx));
	kl_done(l);
	return st == TILEC_OK;
}

/* Runs and expects `want`, with `needle` in the diagnostics. */
static inline void kl_fail(launch *l, tilec_status want, const char *needle)
{
	tilec_status st = kl_go(l);
	CHECK_MSG(st == want, "%s: got %s, want %s\n%s", l->kernel, tilec_status_string(st), tilec_status_string(want),
		  tilec_diagnostics(l->ctx));
	CHECK_STR_CONTAINS(tilec_diagnostics(l->ctx), needle);
	kl_done(l);
}

/* Runs and expects any error, with `needle` in the diagnostics. */
static inline void kl_refused(launch *l, const char *needle)
{
	tilec_status st = kl_go(l);
	CHECK_MSG(st != TILEC_OK, "%s [%s] should fail", l->kernel, l->signature ? l->signature : "");
	CHECK_STR_CONTAINS(tilec_diagnostics(l->ctx), needle);
	kl_done(l);
}

#endif
