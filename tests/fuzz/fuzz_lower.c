/* fuzz_lower.c - fuzz target over tilec compile up to LLVM's verifier:
 * every @jit kernel of the input is specialized with a spec made up from
 * its parameters' names and the input's own bytes (kernel_spec.h: its
 * first guess, then its second where the first does not specialize), or,
 * for one kernel in two that has autotune configs, with one of them;
 * num_stages 1 to 4, tensor maps for the targets with TMA but on one input
 * in four (tilec compile --no-tma), device asserts and prints kept on one
 * input in four (-g). The IR is verified, and the kernels that specialize
 * go through compile_module together, as the kernels of one blob do (each
 * alone again where one of them is refused), with lower_only: per family
 * of targets (mma.sync on sm_80, sm_89 or sm_90, wgmma on sm_90a, and on
 * one input in four fma chains on sm_75) the split over a cluster, the
 * passes, axis info, layouts and the lowering into one LLVM module, which
 * LLVM's verifier checks (target_verify) before libdevice and O3; neither
 * of those runs here, nor the NVPTX back end or ptxas (too slow to fuzz).
 * Any input must end in a status with a diagnostic, never a crash, a hang
 * or a leak. Findings (abort, with the diagnostics): a module the verifier
 * refuses (TILEC_ERR_LLVM: whatever the input, tile must not build invalid
 * IR; a kernel LLVM cannot link into its module is one too), and IR that
 * a pass produced and ir_verify refuses or that fails the lowering's
 * internal checks (TILEC_ERR_INVALID, which nothing a kernel's author
 * writes should reach once the kernel has specialized). Mutations follow
 * Python's shape (python_input.h); seeds are fuzz_sema.c's and what the
 * fuzz corpus has kept (tests/fuzz/corpus/fuzz_lower). run.sh links it
 * with all of libtile and LLVM, since it includes compile.h.
 * fuzz-seeds: tests/kernels tests/gpu/kernels tests/corpus/... */
#include "compile.h"
#include "front/front.h"
#include "fuzz/kernel_spec.h"
#include "fuzz/python_input.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(tilec_ctx *ctx, const char *what)
{
	fprintf(stderr, "fuzz_lower: %s:\n%s\n", what, tilec_diagnostics(ctx));
	abort();
}

/* compile_module on n kernels, lowering only; aborts on a finding. */
static tilec_status lower_checked(tilec_ctx *ctx, arena *a, ir_func *const *funcs, const char *const *symbols, int n,
				  const compile_options *opt)
{
	compile_result res;
	tilec_clear_diagnostics(ctx); /* what came before: the abort shows this compile's alone */
	tilec_status st = compile_module(ctx, a, funcs, symbols, n, opt, &res);
	if (st == TILEC_ERR_LLVM)
		fail(ctx, "LLVM refused the module tile built");
	if (st == TILEC_ERR_INVALID)
		fail(ctx, "a pass or the lowering broke the IR");
	return st;
}

static void compile_all(tilec_ctx *ctx, arena *a, const fe_module *m, uint32_t bits)
{
	const uint32_t pick = bits; /* the choices of the whole input */
	bool tma = (pick >> 28 & 3) != 0;
	int n = fe_kernel_count(m), nf = 0;
	ir_func **funcs = arena_alloc(a, sizeof *funcs * (size_t)(n > 0 ? n : 1));
	const char **symbols = arena_alloc(a, sizeof *symbols * (size_t)(n > 0 ? n : 1));
	if (!funcs || !symbols)
		return;
	for (int k = 0; k < n; k++) {
		const char *name = fe_kernel_name(m, k);
		int nconfigs = fe_config_count(m, name);
		uint32_t start = bits;
		ir_func *f = NULL;
		for (int guess = 0; guess < 2 && !f; guess++) {
			fe_spec spec;
			bits = start;
			if (!fuzz_kernel_spec(a, m, name, guess, &bits, &spec))
				return;
			spec.num_stages = 1 + (int)(bits >> 12 & 3);
			if (nconfigs > 0 && bits >> 27 & 1 &&
			    fe_config_get(ctx, m, name, (int)((bits >> 4 & 0xff) % (uint32_t)nconfigs), &spec) != TILEC_OK)
				break;
			spec.tensormaps = tma;
			spec.debug = (pick >> 20 & 3) == 0; /* device asserts and prints kept */
			if (fe_specialize(ctx, a, m, &spec, &f) != TILEC_OK)
				f = NULL;
		}
		if (!f)
			continue;
		if (ir_verify(ctx, f) != TILEC_OK)
			fail(ctx, "the IR after specialization does not verify");
		/* symbols of their own: a file may define a kernel's name twice */
		if (!(symbols[nf] = arena_printf(a, "kernel%d", nf)))
			return;
		funcs[nf++] = f;
	}
	if (!nf)
		return;
	/* sm_90's mma.sync copies through tensor maps too */
	static const int mma_archs[4] = {80, 89, 90, 80};
	int archs[3], narchs = 0;
	if ((pick >> 30) == 0)
		archs[narchs++] = 75;
	archs[narchs++] = mma_archs[pick >> 24 & 3];
	archs[narchs++] = 90 | TARGET_ARCH_SPECIFIC;
	compile_options opt = {.narchs = narchs, .archs = archs, .debug_verify = true, .lower_only = true, .jobs = 1};
	/* one kernel that tile refuses stops the compile: then each alone */
	if (lower_checked(ctx, a, funcs, symbols, nf, &opt) != TILEC_OK && nf > 1)
		for (int k = 0; k < nf; k++)
			lower_checked(ctx, a, &funcs[k], &symbols[k], 1, &opt);
}

static void load_and_compile(tilec_ctx *ctx, arena *a, char *text, size_t size)
{
	fe_module *m;
	if (fe_load_text(ctx, a, "fuzz.py", text, &m) == TILEC_OK)
		compile_all(ctx, a, m, fuzz_input_bits(text, size));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_python(data, size, load_and_compile);
	return 0;
}
