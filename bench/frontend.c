/* frontend.c - time of the front end (read, lex, parse, specialize to tile
 * IR) on one kernel file, in process, so that neither process start nor
 * LLVM's loading is counted.
 *
 *   frontend FILE ITERATIONS KERNEL=SIGNATURE...
 *
 * Each iteration uses a fresh arena and context, loads FILE and specializes
 * every KERNEL with its SIGNATURE (Triton AOT syntax, constexprs inline).
 * Prints the median and minimum per iteration in milliseconds. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "front/front.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: frontend FILE ITERATIONS KERNEL=SIGNATURE...\n");
		return 2;
	}
	int iters = atoi(argv[2]);
	if (iters < 1)
		iters = 1;
	double *t = malloc(sizeof(double) * (size_t)iters);
	if (!t)
		return 1;
	for (int it = 0; it < iters; it++) {
		double start = now_ms();
		tilec_ctx *ctx = tilec_ctx_new();
		arena *a = arena_new();
		fe_module *m = NULL;
		tilec_status st = fe_load(ctx, a, argv[1], &m);
		for (int k = 3; st == TILEC_OK && k < argc; k++) {
			char *eq = strchr(argv[k], '=');
			if (!eq) {
				fprintf(stderr, "frontend: expected KERNEL=SIGNATURE, got '%s'\n", argv[k]);
				return 2;
			}
			*eq = 0;
			fe_spec spec = {.kernel = argv[k], .signature = eq + 1};
			ir_func *f = NULL;
			st = fe_specialize(ctx, a, m, &spec, &f);
			*eq = '=';
		}
		t[it] = now_ms() - start;
		if (st != TILEC_OK) {
			fputs(tilec_diagnostics(ctx), stderr);
			return 1;
		}
		arena_free(a);
		tilec_ctx_free(ctx);
	}
	qsort(t, (size_t)iters, sizeof(double), cmp_double);
	printf("front end: %s, %d kernel(s): median %.3f ms, min %.3f ms over %d iterations\n", argv[1], argc - 3,
	       t[iters / 2], t[0], iters);
	free(t);
	return 0;
}
