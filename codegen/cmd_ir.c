/* cmd_ir.c - `tilec ir`: specialize a kernel and print its tile IR.
 *
 * The flags follow Triton's compile.py (-n kernel, -s signature, -w
 * num_warps, -ns num_stages) plus -D NAME=VALUE for constexprs, --bind
 * NAME=VALUE for module-level names host code computes, and -c N to
 * take the constexprs and options of autotune config N (later -D, -w, -ns
 * override them). The IR is verified before it is printed. Diagnostics go
 * to stderr and the exit status is 1 when the kernel does not compile, 2
 * for a bad command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "front/front.h"
#include "compile.h"
#include "passes/passes.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: tilec ir FILE -n KERNEL [-s SIGNATURE] [-D NAME=VALUE]... [-c|--config CONFIG] [-w NUM_WARPS] [-ns NUM_STAGES]\n"
		   "                [-nc NUM_CTAS] [--bind NAME=VALUE]... [--pipelined[=registers|=wgmma]] [--debug]\n"
		   "\n"
		   "Specializes the @triton.jit function KERNEL of FILE and prints its tile IR.\n"
		   "  -s SIGNATURE  Triton AOT signature over the parameters in order: types with\n"
		   "                :16/:8/:4/:1 hints for runtime ones, values for constexprs\n"
		   "                (\"*fp32:16, *fp32:16, i32, 1024\")\n"
		   "  -D NAME=VALUE a constexpr by name (1024, 0.5, True, \"str\", tl.float16)\n"
		   "  --bind NAME=VALUE\n"
		   "                a module-level name that host code computes, given as a Triton\n"
		   "                module or object (triton.language.extra.libdevice.rsqrt) or a\n"
		   "                literal; NAME may be qualified by its module (tilec compile --help)\n"
		   "  -c, --config CONFIG\n"
		   "                use autotune config CONFIG (0-based) of the kernel\n"
		   "  -w, -ns       num_warps (default 4), num_stages (default 3)\n"
		   "  -nc NUM_CTAS  after the program's blocks are split over a thread block\n"
		   "                cluster of NUM_CTAS (2, 4, 8) CTAs, as tilec compile\n"
		   "                lowers it for sm_90 and newer (a warning where it cannot)\n"
		   "  --pipelined   after the loads that feed dots are pipelined (what\n"
		   "                tilec compile lowers when num_stages >= 2): as for mma.sync\n"
		   "                (sm_80 and newer), rings of num_stages - 1 shared-memory\n"
		   "                tiles (2 with num_stages 2) filled by asynchronous copies,\n"
		   "                the next copies into the tile just read after a barrier;\n"
		   "                =wgmma as for sm_90a, rings of num_stages tiles and a\n"
		   "                spare; =registers as for older targets, loads issued one\n"
		   "                iteration ahead into registers\n"
		   "  --debug       keep device asserts and prints (tilec compile --debug)\n"
		   "  -I DIR        look for imported Python modules in DIR too\n");
}

static bool parse_int(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 0 || v > 1024)
		return false;
	*out = (int)v;
	return true;
}

int cmd_pipelined(const char *a, pipeline_options *po)
{
	if (strcmp(a, "--pipelined") && strcmp(a, "--pipelined=registers") && strcmp(a, "--pipelined=wgmma"))
		return 0;
	bool wgmma = !strcmp(a, "--pipelined=wgmma");
	*po = (pipeline_options){.async_copies = strcmp(a, "--pipelined=registers") != 0,
				 .spare_budget = wgmma ? UINT32_MAX : 0, .sm_smem = wgmma ? target_smem_per_sm(90) : 0,
				 .reuse_read_tile = !wgmma, .tensormaps = wgmma, .run_on = true, .operand_prep = true,
				 .warp_specialize = wgmma, .auto_warp_specialize = wgmma};
	return 1;
}

int cmd_ir(int argc, char **argv)
{
	const char *file = NULL, *kernel = NULL, *sig = NULL;
	int warps = 0, stages = 0, ctas = 0, config = -1, ndef = 0, nbind = 0;
	bool pipelined = false, debug = false;
	pipeline_options po;
	const char **incs = calloc((size_t)argc + 1, sizeof *incs);
	int nincs = 0;
	fe_define *defs = calloc((size_t)argc + 1, sizeof *defs), *binds = calloc((size_t)argc + 1, sizeof *binds);
	if (!defs || !incs || !binds) {
		free(defs);
		free(binds);
		free(incs);
		return 1;
	}
	int rc = 2;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			free(defs);
			free(binds);
			free(incs);
			return 0;
		}
		if (cmd_pipelined(a, &po)) {
			pipelined = true;
			continue;
		}
		if (!strcmp(a, "--debug")) {
			debug = true;
			continue;
		}
		bool flag = a[0] == '-' && a[1];
		if (flag && !v) {
			fprintf(stderr, "tilec ir: error: %s needs a value\n", a);
			goto out;
		}
		if (!strcmp(a, "-n"))
			kernel = argv[++i];
		else if (!strcmp(a, "-I"))
			incs[nincs++] = argv[++i];
		else if (!strcmp(a, "-s"))
			sig = argv[++i];
		else if (!strcmp(a, "-w") || !strcmp(a, "-ns") || !strcmp(a, "-nc") || !strcmp(a, "-c") ||
			 !strcmp(a, "--config")) {
			int *dst = a[1] == 'w' ? &warps : !strcmp(a, "-nc") ? &ctas : a[1] == 'c' || a[1] == '-' ? &config : &stages;
			if (!parse_int(argv[++i], dst)) {
				fprintf(stderr, "tilec ir: error: %s needs a small non-negative integer, got '%s'\n", a, argv[i]);
				goto out;
			}
		} else if (!strcmp(a, "-D") || !strcmp(a, "--bind")) {
			char *eq = strchr(argv[++i], '=');
			if (!eq) {
				fprintf(stderr, "tilec ir: error: %s needs NAME=VALUE, got '%s'\n", a, argv[i]);
				goto out;
			}
			*eq = 0;
			fe_define *d = a[1] == 'D' ? &defs[ndef++] : &binds[nbind++];
			d->name = argv[i];
			d->value = eq + 1;
		} else if (!flag && !file) {
			file = a;
		} else {
			fprintf(stderr, "tilec ir: error: unexpected argument '%s'\n", a);
			usage(stderr);
			goto out;
		}
	}
	if (!file || !kernel) {
		usage(stderr);
		goto out;
	}
	rc = 1;
	tilec_ctx *ctx = tilec_ctx_new();
	arena *ar = arena_new();
	fe_module *m = NULL;
	ir_func *f = NULL;
	fe_spec spec = {0};
	spec.kernel = kernel;
	spec.signature = sig;
	spec.debug = debug;
	spec.include_dirs = incs;
	spec.ninclude_dirs = nincs;
	spec.binds = binds;
	spec.nbinds = nbind;
	spec.tensormaps = pipelined && po.tensormaps; /* --pipelined=wgmma: sm_90a's code path */
	tilec_status st = ctx && ar ? fe_load(ctx, ar, file, &m) : TILEC_ERR_NOMEM;
	if (st == TILEC_OK && config >= 0)
		st = fe_config_get(ctx, m, kernel, config, &spec);
	if (st == TILEC_OK) {
		/* the config's constexprs first, then -D (a later define wins) */
		fe_define *all = arena_alloc(ar, sizeof *all * (size_t)(spec.ndefines + ndef + 1));
		int n = 0;
		for (int i = 0; all && i < spec.ndefines; i++) {
			bool overridden = false;
			for (int k = 0; k < ndef; k++)
				overridden |= !strcmp(defs[k].name, spec.defines[i].name);
			if (!overridden)
				all[n++] = spec.defines[i];
		}
		for (int k = 0; all && k < ndef; k++)
			all[n++] = defs[k];
		spec.defines = all;
		spec.ndefines = n;
		if (warps)
			spec.num_warps = warps;
		if (stages)
			spec.num_stages = stages;
		if (ctas)
			spec.num_ctas = ctas;
		st = all ? fe_specialize(ctx, ar, m, &spec, &f) : TILEC_ERR_NOMEM;
	}
	if (st == TILEC_OK) /* a dump is also a check of the front end's output */
		st = ir_verify(ctx, f);
	const char *why = st == TILEC_OK && f->num_ctas > 1 ? cluster_refusal(f, f->num_ctas) : NULL;
	if (why) { /* as tilec compile: one CTA per program */
		fprintf(stderr, "tilec ir: warning: num_ctas=%d is compiled as one CTA per program: %s\n", f->num_ctas, why);
		f->num_ctas = 1;
	} else if (st == TILEC_OK && f->num_ctas > 1 && (st = cluster_split(ctx, f)) == TILEC_OK) {
		st = ir_verify(ctx, f);
	}
	if (st == TILEC_OK && pipelined) {
		st = compile_pipeline(ctx, ar, f, &po);
		if (st == TILEC_OK)
			st = ir_verify(ctx, f);
	}
	if (st == TILEC_OK) {
		strbuf sb;
		sb_init(&sb);
		ir_dump(&sb, f);
		fputs(sb_str(&sb), stdout);
		sb_free(&sb);
		rc = 0;
	} else {
		fputs(ctx ? tilec_diagnostics(ctx) : "", stderr);
		if (ctx && !tilec_error_count(ctx))
			fprintf(stderr, "tilec ir: error: %s\n", tilec_status_string(st));
	}
	arena_free(ar);
	tilec_ctx_free(ctx);
out:
	free(defs);
	free(binds);
	free(incs);
	return rc;
}
