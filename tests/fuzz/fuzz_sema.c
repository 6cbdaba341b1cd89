/* fuzz_sema.c - fuzz target over the front end's specialization and the
 * passes that follow it, up to the layouts: every @jit kernel of the input
 * is specialized (fe_specialize) with a spec made up from its parameters'
 * names and the input's own bytes (kernel_spec.h's first guess), verified, dumped, split
 * over the cluster where cluster_refusal allows (which must then succeed
 * and verify), then pipelined (num_stages 3) and given layouts as tilec
 * compile does before it lowers, for mma.sync or for wgmma with TMA.
 * Any input must end in a status with a diagnostic, never a crash, a hang
 * or a leak; IR that the front end or a pass produced and the verifier
 * refuses is a finding (abort). Mutations follow Python's shape
 * (python_input.h); seeds are the kernels of tests/kernels,
 * tests/gpu/kernels and the public corpus (tests/corpus) and what the fuzz
 * corpus has kept (tests/fuzz/corpus/fuzz_sema).
 * fuzz-seeds: tests/kernels tests/gpu/kernels tests/corpus/... */
#include "analysis/analysis.h"
#include "front/front.h"
#include "fuzz/kernel_spec.h"
#include "fuzz/python_input.h"
#include "passes/passes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* IR that a stage produced and the verifier refuses: a compiler bug. */
static void must_verify(tilec_ctx *ctx, const ir_func *f, const char *after)
{
	if (ir_verify(ctx, f) != TILEC_OK) {
		fprintf(stderr, "fuzz_sema: the IR after %s does not verify:\n%s\n", after, tilec_diagnostics(ctx));
		abort();
	}
}

/* As tilec compile does for one family of targets: mma.sync (sm_80's
 * rings of num_stages - 1 tiles) or wgmma (sm_90a's spare tiles, TMA
 * copies running on across a persistent loop). */
static void passes(tilec_ctx *ctx, arena *a, ir_func *f, dot_unit unit)
{
	axis_info *ai = NULL;
	bool *narrow = NULL;
	bool wg = unit == DOT_UNIT_WGMMA;
	pipeline_options po = {.async_copies = true, .spare_budget = wg ? 232448 : 0, .sm_smem = wg ? 233472 : 0,
			       .reuse_read_tile = !wg, .tensormaps = wg, .run_on = wg, .operand_prep = true};
	if (axis_analyze(ctx, a, f, &ai) != TILEC_OK || !(narrow = axis_narrow_loads(a, f, ai)))
		return;
	if (pipeline_loads(ctx, f, &po, narrow) != TILEC_OK)
		return;
	sink_loads(f);
	must_verify(ctx, f, "pipelining");
	layout_plan plan;
	if (axis_analyze(ctx, a, f, &ai) == TILEC_OK)
		(void)layout_assign(ctx, a, f, ai, unit, &plan);
}

static void specialize_all(tilec_ctx *ctx, arena *a, const fe_module *m, uint32_t bits)
{
	for (int k = 0; k < fe_kernel_count(m); k++) {
		fe_spec spec;
		if (!fuzz_kernel_spec(a, m, fe_kernel_name(m, k), 0, &bits, &spec))
			return;
		bool wg = bits >> 22 & 1;
		spec.tensormaps = wg;
		ir_func *f = NULL;
		if (fe_specialize(ctx, a, m, &spec, &f) != TILEC_OK || !f)
			continue;
		must_verify(ctx, f, "specialization");
		strbuf sb;
		sb_init(&sb);
		ir_dump(&sb, f);
		sb_free(&sb);
		if (f->num_ctas > 1 && !cluster_refusal(f, f->num_ctas)) {
			if (cluster_split(ctx, f) != TILEC_OK) {
				fprintf(stderr, "fuzz_sema: cluster_split failed where cluster_refusal allowed it:\n%s\n",
					tilec_diagnostics(ctx));
				abort();
			}
			must_verify(ctx, f, "the split over a cluster");
		}
		passes(ctx, a, f, wg ? DOT_UNIT_WGMMA : DOT_UNIT_MMA);
	}
}

static void load_and_specialize(tilec_ctx *ctx, arena *a, char *text, size_t size)
{
	fe_module *m;
	if (fe_load_text(ctx, a, "fuzz.py", text, &m) == TILEC_OK)
		specialize_all(ctx, a, m, fuzz_input_bits(text, size));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_python(data, size, load_and_specialize);
	return 0;
}
