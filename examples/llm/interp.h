/* interp.h - llm.c's second back end: each launch runs in tile's reference
 * interpreter (libtile.a) on the CPU instead of on a GPU. Used by the CPU
 * test (tests/test_llm.sh, `llm --cpu --check`), which has no GPU.
 *
 * It runs exactly what the GPU runs: the launch functions' variants are read
 * from the same tilec manifest (kernels.tile: file, kernel, signature, -D
 * constexprs), each specialized by the front end on first use and cached,
 * with the grid llm.c computes. "Device" memory is host memory here, and
 * every buffer and weight tensor llm.c makes is registered as a region, so
 * a pointer argument becomes (region, offset) and the interpreter checks
 * every access against that region's bounds: an out-of-bounds load in a
 * kernel is an error naming the source line, not a silent read.
 *
 * Built only with -DLLM_CPU and -DLLM_MANIFEST="path/to/kernels.tile". */
#ifndef LLM_INTERP_H
#define LLM_INTERP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front/front.h"

enum { INTERP_MAX_VARIANTS = 64, INTERP_MAX_DEFS = 8, INTERP_MAX_ARGS = 24 };

typedef struct interp_variant {
	char launch[64], kernel[64], sig[512];
	char def_name[INTERP_MAX_DEFS][32], def_value[INTERP_MAX_DEFS][64];
	fe_define defs[INTERP_MAX_DEFS];
	int ndefs;
	ir_func *f; /* specialized on first use */
} interp_variant;

typedef struct interp_region {
	uint64_t base;
	size_t size;
} interp_region;

static struct {
	tilec_ctx *ctx;
	arena *a;
	fe_module *mod;
	interp_variant v[INTERP_MAX_VARIANTS];
	int nv;
	interp_region *regions;
	int nregions, cap;
} ip;

/* Copies a string that must fit; 1 when it does not. */
static int interp_copy(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	if (n >= cap)
		return 1;
	memcpy(dst, src, n + 1);
	return 0;
}

/* The next blank-separated field of a manifest line, quotes (" or ')
 * around a whole field removed; NULL at the end of the line or at '#'. */
static const char *interp_field(const char **s, char *out, size_t cap)
{
	const char *p = *s;
	size_t n = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n' || *p == '\r' || *p == '#')
		return NULL;
	if (*p == '"' || *p == '\'') {
		char q = *p++;
		while (*p && *p != q && n + 1 < cap)
			out[n++] = *p++;
		if (*p == q)
			p++;
	} else {
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && n + 1 < cap)
			out[n++] = *p++;
	}
	out[n] = 0;
	*s = p;
	return out;
}

/* Reads the manifest; every line must name the same kernel file. */
static int interp_open(const char *manifest)
{
	char line[2048], field[512], file[512] = "", path[1024];
	FILE *fp = fopen(manifest, "r");
	int lineno = 0;
	if (!fp) {
		fprintf(stderr, "llm: cannot open the manifest %s\n", manifest);
		return 1;
	}
	while (fgets(line, sizeof line, fp)) {
		const char *s = line;
		interp_variant *v;
		lineno++;
		if (!interp_field(&s, field, sizeof field))
			continue;
		if (ip.nv == INTERP_MAX_VARIANTS) {
			fprintf(stderr, "llm: %s: too many lines\n", manifest);
			fclose(fp);
			return 1;
		}
		if (file[0] && strcmp(file, field) != 0) {
			fprintf(stderr, "llm: %s:%d: every line must name one kernel file\n", manifest, lineno);
			fclose(fp);
			return 1;
		}
		snprintf(file, sizeof file, "%s", field);
		v = &ip.v[ip.nv++];
		memset(v, 0, sizeof *v);
		if (!interp_field(&s, v->kernel, sizeof v->kernel) || !interp_field(&s, v->sig, sizeof v->sig)) {
			fprintf(stderr, "llm: %s:%d: expected FILE KERNEL SIGNATURE\n", manifest, lineno);
			fclose(fp);
			return 1;
		}
		memcpy(v->launch, v->kernel, sizeof v->launch);
		while (interp_field(&s, field, sizeof field)) {
			char value[512];
			if (!interp_field(&s, value, sizeof value)) {
				fprintf(stderr, "llm: %s:%d: %s without a value\n", manifest, lineno, field);
				fclose(fp);
				return 1;
			}
			if (strcmp(field, "-on") == 0) {
				if (interp_copy(v->launch, sizeof v->launch, value)) {
					fprintf(stderr, "llm: %s:%d: name too long\n", manifest, lineno);
					fclose(fp);
					return 1;
				}
			} else if (strcmp(field, "-D") == 0) {
				char *eq = strchr(value, '=');
				if (!eq || v->ndefs == INTERP_MAX_DEFS ||
				    (size_t)(eq - value) >= sizeof v->def_name[0] || strlen(eq + 1) >= sizeof v->def_value[0]) {
					fprintf(stderr, "llm: %s:%d: bad -D %s\n", manifest, lineno, value);
					fclose(fp);
					return 1;
				}
				*eq = 0;
				interp_copy(v->def_name[v->ndefs], sizeof v->def_name[0], value);
				interp_copy(v->def_value[v->ndefs], sizeof v->def_value[0], eq + 1);
				v->ndefs++;
			} /* -w, -ns, -g: the interpreter has no use for them */
		}
		for (int i = 0; i < v->ndefs; i++) {
			v->defs[i].name = v->def_name[i];
			v->defs[i].value = v->def_value[i];
		}
	}
	fclose(fp);
	if (ip.nv == 0) {
		fprintf(stderr, "llm: %s lists no kernel\n", manifest);
		return 1;
	}
	{
		/* the kernel file is relative to the manifest */
		const char *slash = strrchr(manifest, '/');
		int dir = slash ? (int)(slash - manifest) : 0;
		snprintf(path, sizeof path, "%.*s%s%s", dir, manifest, dir ? "/" : "", file);
	}
	ip.ctx = tilec_ctx_new();
	ip.a = arena_new();
	if (!ip.ctx || !ip.a || fe_load(ip.ctx, ip.a, path, &ip.mod) != TILEC_OK) {
		fprintf(stderr, "llm: cannot load %s: %s\n", path, ip.ctx ? tilec_diagnostics(ip.ctx) : "out of memory");
		return 1;
	}
	return 0;
}

static void interp_close(void)
{
	if (ip.a)
		arena_free(ip.a);
	if (ip.ctx)
		tilec_ctx_free(ip.ctx);
	free(ip.regions);
	memset(&ip, 0, sizeof ip);
}

static int interp_region_add(uint64_t base, size_t size)
{
	if (ip.nregions == ip.cap) {
		int cap = ip.cap ? 2 * ip.cap : 64;
		interp_region *r = realloc(ip.regions, sizeof *r * (size_t)cap);
		if (!r)
			return 1;
		ip.regions = r;
		ip.cap = cap;
	}
	ip.regions[ip.nregions].base = base;
	ip.regions[ip.nregions++].size = size;
	return 0;
}

/* The smallest region holding address p (weights are registered tensor by
 * tensor), or -1. */
static int interp_region_of(uint64_t p)
{
	int best = -1;
	for (int i = 0; i < ip.nregions; i++)
		if (p >= ip.regions[i].base && p < ip.regions[i].base + ip.regions[i].size &&
		    (best < 0 || ip.regions[i].size < ip.regions[best].size))
			best = i;
	return best;
}

/* Integer constexpr `name` (-D) of launch function `launch`; 0 if none. */
static int interp_constexpr(const char *launch, const char *name)
{
	for (int i = 0; i < ip.nv; i++)
		if (strcmp(ip.v[i].launch, launch) == 0) {
			for (int j = 0; j < ip.v[i].ndefs; j++)
				if (strcmp(ip.v[i].def_name[j], name) == 0)
					return strcmp(ip.v[i].def_value[j], "True") == 0 ? 1 : atoi(ip.v[i].def_value[j]);
			return 0;
		}
	return 0;
}

/* kind: 'p' pointer (a host address here), 'i' i32, 'f' fp32. */
static int interp_launch(const char *launch, const uint32_t grid[3], int nargs, const char *kinds, const uint64_t *ptrs,
			 const int32_t *ints, const float *floats)
{
	interp_variant *v = NULL;
	interp_buffer bufs[INTERP_MAX_ARGS];
	interp_arg args[INTERP_MAX_ARGS];
	int nbufs = 0;
	for (int i = 0; i < ip.nv && !v; i++)
		if (strcmp(ip.v[i].launch, launch) == 0)
			v = &ip.v[i];
	if (!v) {
		fprintf(stderr, "llm: the manifest has no launch function %s\n", launch);
		return 1;
	}
	if (!v->f) {
		fe_spec spec;
		memset(&spec, 0, sizeof spec);
		spec.kernel = v->kernel;
		spec.signature = v->sig;
		spec.defines = v->defs;
		spec.ndefines = v->ndefs;
		if (fe_specialize(ip.ctx, ip.a, ip.mod, &spec, &v->f) != TILEC_OK) {
			fprintf(stderr, "llm: specializing %s: %s\n", launch, tilec_diagnostics(ip.ctx));
			return 1;
		}
	}
	if (nargs > INTERP_MAX_ARGS)
		return 1;
	for (int i = 0; i < nargs; i++) {
		args[i].buffer = -1;
		args[i].offset = 0;
		args[i].value.i = 0;
		if (kinds[i] == 'p') {
			int r;
			if (ptrs[i] == 0)
				continue;
			r = interp_region_of(ptrs[i]);
			if (r < 0) {
				fprintf(stderr, "llm: %s: argument %d points at no buffer\n", launch, i);
				return 1;
			}
			bufs[nbufs].data = (void *)(uintptr_t)ip.regions[r].base;
			bufs[nbufs].size = ip.regions[r].size;
			args[i].buffer = nbufs++;
			args[i].offset = ptrs[i] - ip.regions[r].base;
		} else if (kinds[i] == 'i') {
			args[i].value.i = ints[i];
		} else {
			args[i].value.f = floats[i];
		}
	}
	if (interp_run(ip.ctx, v->f, grid, bufs, nbufs, args) != TILEC_OK) {
		fprintf(stderr, "llm: %s in the interpreter: %s\n", launch, tilec_diagnostics(ip.ctx));
		return 1;
	}
	return 0;
}

#endif
