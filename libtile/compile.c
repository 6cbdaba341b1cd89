/* compile.c - the pass pipeline, written out in compile_module.
 *
 * Per kernel: verify the IR (debug), pipeline the loads that feed dots
 * (num_stages >= 2; verified again in debug), axis info, layouts, lowering
 * into one LLVM module shared by all kernels of the call. Per module: libdevice when
 * a kernel calls it, the verifier and default<O3> once (the IR does not
 * depend on the arch), then per arch a copy of the module goes through the
 * NVPTX back end to PTX and through ptxas to a cubin whose -v report gives
 * each kernel's registers, spills and static shared memory. With no ptxas
 * the images are PTX (one per arch) and a warning says so.
 */
#include "compile.h"
#include "passes/passes.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

static const src_loc no_loc;

static uint8_t *arena_copy(arena *a, const void *data, size_t n)
{
	uint8_t *p = arena_alloc(a, n + 1);
	if (p && n)
		memcpy(p, data, n);
	return p;
}

/* The kernel's shared memory (pipelined rings and scratch) fits a block
 * on every target, or the config is named in an error. */
static tilec_status check_smem(tilec_ctx *ctx, const ir_func *f, const char *symbol, uint32_t bytes,
			       const compile_options *opt)
{
	for (int i = 0; i <= opt->narchs; i++) {
		int arch = i < opt->narchs ? opt->archs[i] : opt->ptx_arch;
		if ((i == opt->narchs && !opt->emit_ptx) || bytes <= target_smem_limit(arch))
			continue;
		strbuf cx;
		sb_init(&cx);
		for (int c = 0; c < f->nconstexprs; c++)
			if (f->constexprs[c].kind == IR_CONSTEXPR_INT)
				sb_printf(&cx, "%s%s=%lld", sb_str(&cx)[0] ? ", " : "", f->constexprs[c].name,
					  (long long)f->constexprs[c].ival);
		diag_error(ctx, f->loc, "kernel '%s' (%s%snum_warps=%d, num_stages=%d) needs %u bytes of shared memory, more "
			   "than a block may have on sm_%d (%u): lower num_stages or the block sizes", symbol, sb_str(&cx),
			   sb_str(&cx)[0] ? ", " : "", f->num_warps, f->num_stages, bytes, arch, target_smem_limit(arch));
		sb_free(&cx);
		return TILEC_ERR_UNSUPPORTED;
	}
	return TILEC_OK;
}

/* One arch: PTX, then the cubin and its kernels' resources. */
static tilec_status emit_arch(tilec_ctx *ctx, arena *a, LLVMModuleRef m, int arch, const char *ptxas,
			      compile_image *img, compile_kernel_info *info, const char *const *symbols, int n,
			      const uint32_t *shared, int stride)
{
	LLVMTargetMachineRef tm;
	tilec_status st = target_machine(ctx, arch, &tm);
	if (st)
		return st;
	LLVMModuleRef copy = LLVMCloneModule(m);
	char *ptx = NULL;
	size_t len = 0;
	st = target_emit_ptx(ctx, copy, tm, &ptx, &len);
	LLVMDisposeModule(copy);
	LLVMDisposeTargetMachine(tm);
	if (st)
		return st;
	img->arch = arch;
	if (!ptxas) {
		img->kind = BLOB_IMAGE_PTX;
		img->data = arena_copy(a, ptx, len);
		img->size = len;
		free(ptx);
		return img->data ? TILEC_OK : TILEC_ERR_NOMEM;
	}
	uint8_t *cubin = NULL;
	size_t size = 0;
	strbuf log;
	sb_init(&log);
	st = target_ptxas(ctx, ptxas, ptx, arch, &cubin, &size, &log);
	free(ptx);
	if (st == TILEC_OK) {
		img->kind = BLOB_IMAGE_CUBIN;
		img->data = arena_copy(a, cubin, size);
		img->size = size;
		if (!img->data)
			st = TILEC_ERR_NOMEM;
		for (int k = 0; k < n && info; k++) {
			compile_kernel_info *ki = &info[k * stride];
			if (!target_ptxas_info(sb_str(&log), symbols[k], ki))
				ki->shared_static = shared[k];
		}
	}
	free(cubin);
	sb_free(&log);
	return st;
}

tilec_status compile_module(tilec_ctx *ctx, arena *a, ir_func *const *funcs, const char *const *symbols,
			    int n, const compile_options *opt, compile_result *out)
{
	memset(out, 0, sizeof *out);
	if (n <= 0 || !opt || opt->narchs < 0 || (opt->narchs == 0 && !opt->emit_ptx)) {
		diag_error(ctx, no_loc, "compile_module: no kernels or no target");
		return TILEC_ERR_INVALID;
	}
	uint32_t *shared = arena_alloc(a, sizeof(uint32_t) * (size_t)n);
	bool *dynamic = arena_alloc(a, sizeof(bool) * (size_t)n);
	if (!shared || !dynamic)
		return TILEC_ERR_NOMEM;
	int first_arch = opt->narchs ? opt->archs[0] : opt->ptx_arch;
	LLVMTargetMachineRef tm;
	tilec_status st = target_machine(ctx, first_arch, &tm);
	if (st)
		return st;
	LLVMContextRef c = LLVMContextCreate();
	LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tile", c);
	LLVMSetTarget(m, "nvptx64-nvidia-cuda");
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
	char *dl = LLVMCopyStringRepOfTargetData(td);
	LLVMSetDataLayout(m, dl);
	LLVMDisposeMessage(dl);
	LLVMDisposeTargetData(td);

	/* One module serves every target: mma.sync only when all have it. */
	bool tensor_cores = !opt->emit_ptx || opt->ptx_arch >= 80;
	for (int i = 0; i < opt->narchs; i++)
		tensor_cores = tensor_cores && opt->archs[i] >= 80;
	bool libdev = false;
	for (int k = 0; k < n && st == TILEC_OK; k++) {
		ir_func *f = funcs[k];
		axis_info *ai = NULL;
		layout_plan plan;
		lower_result lr = {0};
		if (opt->debug_verify)
			st = ir_verify(ctx, f);
		if (st == TILEC_OK)
			st = pipeline_loads(ctx, f, tensor_cores);
		if (st == TILEC_OK && opt->debug_verify)
			st = ir_verify(ctx, f);
		if (st == TILEC_OK)
			st = axis_analyze(ctx, a, f, &ai);
		if (st == TILEC_OK)
			st = layout_assign(ctx, a, f, ai, tensor_cores, &plan);
		if (st == TILEC_OK)
			st = lower_kernel(ctx, m, f, symbols[k], ai, &plan, &lr);
		libdev |= lr.uses_libdevice;
		shared[k] = lr.shared_bytes;
		dynamic[k] = lr.shared_dynamic;
		if (st == TILEC_OK)
			st = check_smem(ctx, f, symbols[k], lr.shared_bytes, opt);
	}
	const char *ptxas = target_find_ptxas(a, opt->ptxas);
	if (st == TILEC_OK && libdev)
		st = target_link_libdevice(ctx, m, ptxas);
	if (st == TILEC_OK)
		st = target_optimize(ctx, m, tm);
	LLVMDisposeTargetMachine(tm);

	int nimg = opt->narchs + (opt->emit_ptx ? 1 : 0);
	out->images = arena_alloc(a, sizeof(compile_image) * (size_t)(nimg + 1));
	out->kernels = arena_alloc(a, sizeof(compile_kernel_info) * (size_t)(n * (opt->narchs + 1)));
	if (st == TILEC_OK && (!out->images || !out->kernels))
		st = TILEC_ERR_NOMEM;
	if (st == TILEC_OK && opt->ptxas && !ptxas) {
		diag_error(ctx, no_loc, "ptxas '%s' is not an executable file", opt->ptxas);
		st = TILEC_ERR_PTXAS;
	}
	if (st == TILEC_OK && !ptxas && opt->narchs)
		diag_warning(ctx, no_loc, "ptxas not found (TILE_PTXAS, CUDA_HOME, /usr/local/cuda, PATH): "
			     "the module carries PTX only, compiled by the driver at load time");
	for (int i = 0; i < opt->narchs && st == TILEC_OK; i++)
		st = emit_arch(ctx, a, m, opt->archs[i], ptxas, &out->images[i],
			       ptxas ? &out->kernels[i] : NULL, symbols, n, shared, opt->narchs);
	if (st == TILEC_OK && opt->emit_ptx)
		st = emit_arch(ctx, a, m, opt->ptx_arch, NULL, &out->images[opt->narchs], NULL, symbols, n, shared, 1);
	LLVMDisposeModule(m);
	LLVMContextDispose(c);
	if (st != TILEC_OK)
		return st;
	out->nimages = nimg;
	/* no cubin (no ptxas, or compute_XX targets only): one entry per kernel */
	bool cubins = ptxas && opt->narchs > 0;
	out->ptx_only = !cubins;
	int per = cubins ? opt->narchs : 1;
	out->nkernels = n * per;
	for (int k = 0; k < n; k++)
		for (int i = 0; i < per; i++) {
			/* PTX only: resources are unknown but shared memory. */
			compile_kernel_info *ki = &out->kernels[k * per + i];
			ki->symbol = symbols[k];
			ki->arch = cubins ? opt->archs[i] : first_arch;
			if (!cubins)
				ki->shared_static = shared[k];
			if (dynamic[k]) {
				ki->shared_static = 0;
				ki->shared_dynamic = shared[k];
			}
		}
	return TILEC_OK;
}
