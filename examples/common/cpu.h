/* cpu.h - the examples' fallback when there is no GPU: the same kernel .py
 * specialized by tile's front end and run by its reference interpreter
 * (libtile.a), so the program still computes and checks its result. Built
 * only when examples/build.sh links the example with libtile.a and defines
 * EXAMPLE_CPU with the kernel's file, name and signature. */
#ifndef EXAMPLE_CPU_H
#define EXAMPLE_CPU_H

#include <stdio.h>

#include "front/front.h"

/* A kernel argument: a host buffer (data, size in bytes) or, with data
 * NULL, an integer scalar. */
typedef struct cpu_arg {
	void *data;
	size_t size;
	int64_t value;
} cpu_arg;

/* Runs `kernel` of file `py`, specialized for `signature` (Triton's AOT
 * syntax over all parameters), over `grid`; 0 on success, else the
 * diagnostics are printed. */
static int cpu_run(const char *py, const char *kernel, const char *signature, const uint32_t grid[3],
		   const cpu_arg *args, int nargs)
{
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	interp_buffer bufs[16];
	interp_arg iargs[16];
	int nbufs = 0;
	fe_module *m = NULL;
	ir_func *f = NULL;
	fe_spec spec = {.kernel = kernel, .signature = signature};
	tilec_status st = ctx && a && nargs <= 16 ? TILEC_OK : TILEC_ERR_NOMEM;
	for (int i = 0; st == TILEC_OK && i < nargs; i++) {
		iargs[i].buffer = args[i].data ? nbufs : -1;
		iargs[i].offset = 0;
		iargs[i].value.i = args[i].value;
		if (args[i].data) {
			bufs[nbufs].data = args[i].data;
			bufs[nbufs++].size = args[i].size;
		}
	}
	if (st == TILEC_OK)
		st = fe_load(ctx, a, py, &m);
	if (st == TILEC_OK)
		st = fe_specialize(ctx, a, m, &spec, &f);
	if (st == TILEC_OK)
		st = interp_run(ctx, f, grid, bufs, nbufs, iargs);
	if (st != TILEC_OK)
		fprintf(stderr, "%s%s\n", ctx ? tilec_diagnostics(ctx) : "", tilec_status_string(st));
	arena_free(a);
	tilec_ctx_free(ctx);
	return st == TILEC_OK ? 0 : 1;
}

#endif
