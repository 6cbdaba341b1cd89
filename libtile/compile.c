/* compile.c - the pass pipeline, written out in compile_module.
 *
 * Per kernel: verify the IR (debug), pipeline the loads that feed dots
 * (num_stages >= 2; verified again in debug), axis info, layouts, lowering
 * into one LLVM module per family of targets (those whose dots run alike,
 * split further by fp8 tier when a kernel narrows to fp8 or has fp8 dots). Per module:
 * libdevice when a kernel calls it, the verifier and default<O3> once (with
 * the family's first target, which resolves __nvvm_reflect), then per arch a copy of the module goes through the
 * NVPTX back end to PTX and through ptxas to a cubin whose -v report gives
 * each kernel's registers, spills and static shared memory. With no ptxas
 * the images are PTX (one per arch) and a warning says so. Every family is
 * lowered before any is optimized, so that kernels the caller lets through
 * when they do not fit in shared memory (autotune configs, which tilec
 * leaves out) are all found before the expensive half of the work.
 */
#include "compile.h"
#include "passes/passes.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>
#include <llvm-c/TargetMachine.h>

static const src_loc no_loc;

static uint8_t *arena_copy(arena *a, const void *data, size_t n)
{
	uint8_t *p = arena_alloc(a, n + 1);
	if (p && n)
		memcpy(p, data, n);
	return p;
}

/* A compile target: a cubin arch, or the PTX image's (index narchs). */
static int target_at(const compile_options *opt, int i)
{
	return i < opt->narchs ? opt->archs[i] : opt->ptx_arch;
}

static int ntargets(const compile_options *opt)
{
	return opt->narchs + (opt->emit_ptx ? 1 : 0);
}

const char *compile_config_text(arena *a, const ir_func *f)
{
	strbuf cx;
	sb_init(&cx);
	for (int c = 0; c < f->nconstexprs; c++)
		if (f->constexprs[c].kind == IR_CONSTEXPR_INT)
			sb_printf(&cx, "%s=%lld, ", f->constexprs[c].name, (long long)f->constexprs[c].ival);
	sb_printf(&cx, "num_warps=%d, num_stages=%d", f->num_warps, f->num_stages);
	const char *s = arena_strdup(a, sb_str(&cx));
	sb_free(&cx);
	return s ? s : "";
}

/* The kernel's shared memory (pipelined rings and scratch) fits a block
 * on every target of the family; else the first target that cannot hold
 * it goes to *misfit where the caller may leave the kernel out, or is
 * named in an error. */
static tilec_status check_smem(tilec_ctx *ctx, arena *a, const ir_func *f, const char *symbol, uint32_t bytes,
			       const compile_options *opt, dot_unit unit, compile_misfit *misfit)
{
	for (int i = 0; i < ntargets(opt); i++) {
		int arch = target_at(opt, i);
		if (target_dot_unit(arch) != unit || bytes <= target_smem_limit(arch))
			continue;
		if (misfit) {
			if (!misfit->arch)
				*misfit = (compile_misfit){bytes, arch};
			return TILEC_OK;
		}
		char name[16];
		diag_error(ctx, f->loc, "kernel '%s' (%s) needs %u bytes of shared memory, more than a block may have on %s "
			   "(%u): lower num_stages or the block sizes", symbol, compile_config_text(a, f), bytes,
			   target_name(arch, name, sizeof name), target_smem_limit(arch));
		return TILEC_ERR_UNSUPPORTED;
	}
	return TILEC_OK;
}
/* One arch: PTX, then the cubin and its kernels' resources; ptxas asked
 * for a second block per SM where registers alone keep it out
 * (occupancy.c). With `ptx_image`, the image is the PTX, with the
 * directives that decision put in when ptxas is at hand. */
static tilec_status emit_arch(tilec_ctx *ctx, arena *a, LLVMModuleRef m, int arch, const char *ptxas, bool ptx_image,
			      compile_image *img, compile_kernel_info *info, const char *const *symbols,
			      const int *threads, int n, const uint32_t *shared, int stride)
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
	img->arch = TARGET_ARCH(arch);
	img->flags = arch & TARGET_ARCH_SPECIFIC ? BLOB_IMAGE_ARCH_SPECIFIC : 0;
	uint8_t *cubin = NULL;
	size_t size = 0;
	strbuf log;
	sb_init(&log);
	if (ptx_image) {
		/* ptxas only decides the directives: a failure leaves the plain PTX */
		tilec_ctx *scratch = ptxas ? tilec_ctx_new() : NULL;
		if (scratch)
			target_ptxas_occupancy(scratch, ptxas, arch, &ptx, symbols, threads, shared, n, &cubin, &size, &log);
		tilec_ctx_free(scratch);
		free(cubin);
		sb_free(&log);
		img->kind = BLOB_IMAGE_PTX;
		img->size = strlen(ptx);
		img->data = arena_copy(a, ptx, img->size);
		free(ptx);
		return img->data ? TILEC_OK : TILEC_ERR_NOMEM;
	}
	st = target_ptxas_occupancy(ctx, ptxas, arch, &ptx, symbols, threads, shared, n, &cubin, &size, &log);
	img->ptx_size = strlen(ptx);
	img->ptx = (const char *)arena_copy(a, ptx, img->ptx_size);
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

static LLVMModuleRef new_module(LLVMContextRef c, const char *data_layout)
{
	LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tile", c);
	LLVMSetTarget(m, "nvptx64-nvidia-cuda");
	LLVMSetDataLayout(m, data_layout);
	return m;
}

/* fp8 (Triton converts per compute capability, ir/fp8.c): casts to fp8
 * round differently below sm_89, on sm_89 and from sm_90 on, and fp8 dots
 * run mma.sync from sm_89 on, so a compile with such casts or dots lowers
 * each tier apart; the lowering picks the tier's instructions through
 * __nvvm_reflect("__CUDA_ARCH"), which the O3 of the family's first target
 * resolves. fp8e4nv needs sm_89, as in Triton. */
static int fp8_tier(int target)
{
	int arch = TARGET_ARCH(target);
	return arch >= 90 ? IR_FP8_SM90 : arch >= 89 ? IR_FP8_SM89 : IR_FP8_SM80;
}

/* A family: the targets whose dots run alike, split by fp8 tier when `tiers`
 * (kernels narrow to fp8, or have fp8 dots, which run mma.sync from sm_89 on). */
static int family_of(int target, bool tiers)
{
	return (int)target_dot_unit(target) * 3 + (tiers ? fp8_tier(target) : 0);
}

typedef struct fp8_use {
	const ir_op *e4nv; /* a cast or dot on fp8e4nv */
	bool narrows;      /* a cast to fp8 */
	bool dots;         /* a dot of fp8 operands: mma.sync from sm_89 on */
} fp8_use;

static void scan_fp8(const ir_func *f, const ir_region *r, fp8_use *u)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int j = 0; j < op->nregions; j++)
			scan_fp8(f, &op->regions[j], u);
		if ((op->code != IR_OP_CAST && op->code != IR_OP_DOT) || !op->nresults)
			continue;
		ir_kind from = (ir_kind)f->values[op->args[0]].type.kind, to = (ir_kind)f->values[op->results[0]].type.kind;
		ir_kind b = op->code == IR_OP_DOT ? (ir_kind)f->values[op->args[1]].type.kind : from;
		if (!u->e4nv && (from == IR_F8E4NV || to == IR_F8E4NV || b == IR_F8E4NV))
			u->e4nv = op;
		if (op->code == IR_OP_CAST && ir_kind_is_fp8(to) && from != to)
			u->narrows = true;
		if (op->code == IR_OP_DOT && ir_kind_is_fp8(from))
			u->dots = true;
	}
}

tilec_status compile_pipeline(tilec_ctx *ctx, arena *a, ir_func *f, bool async_copies, uint32_t spare_budget,
			      bool reuse_read_tile)
{
	axis_info *ai = NULL;
	bool *narrow = NULL;
	tilec_status st = TILEC_OK;
	if (async_copies && f->num_stages >= 2 && (st = axis_analyze(ctx, a, f, &ai)) == TILEC_OK &&
	    !(narrow = axis_narrow_loads(a, f, ai))) {
		diag_error(ctx, (src_loc){0}, "out of memory while pipelining loads");
		st = TILEC_ERR_NOMEM;
	}
	return st ? st : pipeline_loads(ctx, f, async_copies, spare_budget, reuse_read_tile, narrow);
}

/* One family of targets (those whose dots run on `unit`): every kernel
 * through the passes on its own copy of the IR, lowered into one module
 * (lower_family), then linked with libdevice and optimized with the
 * family's first target (compile_module). */
typedef struct family {
	LLVMModuleRef m;
	LLVMTargetMachineRef tm; /* the family's first target */
	uint32_t *shared;
	bool *dynamic;
	bool arch_specific; /* a kernel uses what only the arch-specific target runs */
	bool libdevice;     /* a kernel calls libdevice */
} family;

static tilec_status lower_family(tilec_ctx *ctx, arena *a, ir_func *const *funcs, const char *const *symbols, int n,
				 const compile_options *opt, int key, bool tiers, LLVMContextRef c, family *fam,
				 compile_misfit *misfits)
{
	dot_unit unit = (dot_unit)(key / 3);
	int first = -1;
	for (int i = 0; i < ntargets(opt) && first < 0; i++)
		if (family_of(target_at(opt, i), tiers) == key)
			first = target_at(opt, i);
	tilec_status st = target_machine(ctx, first, &fam->tm);
	if (st)
		return st;
	fam->shared = arena_alloc(a, sizeof(uint32_t) * (size_t)n);
	fam->dynamic = arena_alloc(a, sizeof(bool) * (size_t)n);
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(fam->tm);
	char *dl = LLVMCopyStringRepOfTargetData(td);
	LLVMDisposeTargetData(td);
	fam->m = new_module(c, dl);
	if (!fam->shared || !fam->dynamic)
		st = TILEC_ERR_NOMEM;
	/* wgmma's rings get a spare tile where the kernel still fits */
	uint32_t limit = UINT32_MAX;
	for (int i = 0; i < ntargets(opt); i++)
		if (family_of(target_at(opt, i), tiers) == key && target_smem_limit(target_at(opt, i)) < limit)
			limit = target_smem_limit(target_at(opt, i));
	for (int k = 0; k < n && st == TILEC_OK; k++) {
		ir_func *f = NULL;
		lower_result lr = {0};
		for (uint32_t spare = unit == DOT_UNIT_WGMMA ? limit : 0;; spare = 0) {
			axis_info *ai = NULL;
			layout_plan plan;
			f = ir_clone(a, funcs[k]);
			if (!f)
				st = TILEC_ERR_NOMEM;
			if (st == TILEC_OK && opt->debug_verify)
				st = ir_verify(ctx, f);
			if (st == TILEC_OK)
				st = compile_pipeline(ctx, a, f, unit != DOT_UNIT_FMA, spare, unit == DOT_UNIT_MMA);
			if (st == TILEC_OK && opt->debug_verify)
				st = ir_verify(ctx, f);
			if (st == TILEC_OK)
				st = axis_analyze(ctx, a, f, &ai);
			if (st == TILEC_OK)
				st = layout_assign(ctx, a, f, ai, unit, tiers && fp8_tier(first) >= IR_FP8_SM89, &plan);
			/* each kernel in a module of its own, linked in once it is kept */
			LLVMModuleRef km = st == TILEC_OK ? new_module(c, dl) : NULL;
			if (km)
				st = lower_kernel(ctx, km, f, symbols[k], ai, &plan, &lr);
			if (km && st == TILEC_OK && spare && lr.shared_bytes > limit) {
				LLVMDisposeModule(km); /* the spare tiles left no room for the rest: again without */
				continue;
			}
			if (km && st == TILEC_OK && LLVMLinkModules2(fam->m, km)) {
				diag_error(ctx, no_loc, "LLVM could not link kernel '%s' into its module", symbols[k]);
				st = TILEC_ERR_LLVM;
			} else if (km && st != TILEC_OK) {
				LLVMDisposeModule(km);
			}
			break;
		}
		fam->libdevice |= lr.uses_libdevice;
		fam->arch_specific |= lr.uses_arch_specific;
		if (st == TILEC_OK) {
			fam->shared[k] = lr.shared_bytes;
			fam->dynamic[k] = lr.shared_dynamic;
			st = check_smem(ctx, a, f, symbols[k], lr.shared_bytes, opt, unit,
					opt->may_leave_out && opt->may_leave_out[k] ? &misfits[k] : NULL);
		}
	}
	LLVMDisposeMessage(dl);
	return st;
}

/* An arch-specific cubin (sm_90a) whose kernels use nothing of its own
 * is its plain arch's cubin again; when that arch is a target too, the
 * loader takes the plain one on the device, so it is left out. */
static bool redundant_specific(const compile_options *opt, int i, const family *fm)
{
	int arch = opt->archs[i];
	if (!(arch & TARGET_ARCH_SPECIFIC) || fm->arch_specific)
		return false;
	for (int j = 0; j < opt->narchs; j++)
		if (opt->archs[j] == TARGET_ARCH(arch))
			return true;
	return false;
}

tilec_status compile_module(tilec_ctx *ctx, arena *a, ir_func *const *funcs, const char *const *symbols,
			    int n, const compile_options *opt, compile_result *out)
{
	memset(out, 0, sizeof *out);
	if (n <= 0 || !opt || opt->narchs < 0 || (opt->narchs == 0 && !opt->emit_ptx)) {
		diag_error(ctx, no_loc, "compile_module: no kernels or no target");
		return TILEC_ERR_INVALID;
	}
	const char *ptxas = target_find_ptxas(a, opt->ptxas);
	int first_arch = target_at(opt, 0);
	int *threads = arena_alloc(a, sizeof(int) * (size_t)n);
	if (!threads)
		return TILEC_ERR_NOMEM;
	for (int k = 0; k < n; k++)
		threads[k] = 32 * (funcs[k]->num_warps > 0 ? funcs[k]->num_warps : 4);
	/* LLVM's own diagnostics become ours; an error among them fails the
	 * compile even where the call that reported it returned success. */
	target_diag llvm_diags = {ctx, 0};
	LLVMContextRef c = target_context(&llvm_diags);
	if (!c) {
		diag_error(ctx, no_loc, "LLVM: cannot create a context");
		return TILEC_ERR_NOMEM;
	}
	/* Lowered once per family: the targets whose dots run alike share a
	 * module, so an sm_75 target does not take tensor cores from sm_80's
	 * code, nor sm_80 wgmma from sm_90a's. */
	enum { NFAM = (DOT_UNIT_WGMMA + 1) * 3 };
	family fams[NFAM];
	memset(fams, 0, sizeof fams);
	tilec_status st = TILEC_OK;
	fp8_use fp8 = {0};
	for (int k = 0; k < n; k++)
		scan_fp8(funcs[k], &funcs[k]->body, &fp8);
	for (int i = 0; i < ntargets(opt) && fp8.e4nv; i++)
		if (TARGET_ARCH(target_at(opt, i)) < 89) {
			char name[16];
			diag_error(ctx, fp8.e4nv->loc,
				   "fp8e4nv is not supported on CUDA arch < 89, as in Triton: the targets include %s (choose them with --arch)",
				   target_name(target_at(opt, i), name, sizeof name));
			st = TILEC_ERR_UNSUPPORTED;
			break;
		}
	bool tiers = fp8.narrows || fp8.dots;
	if (st == TILEC_OK && opt->may_leave_out) {
		out->misfits = arena_alloc(a, sizeof(compile_misfit) * (size_t)n);
		if (!out->misfits)
			st = TILEC_ERR_NOMEM;
	}
	for (int key = 0; key < NFAM && st == TILEC_OK; key++)
		for (int i = 0; i < ntargets(opt); i++)
			if (family_of(target_at(opt, i), tiers) == key) {
				st = lower_family(ctx, a, funcs, symbols, n, opt, key, tiers, c, &fams[key], out->misfits);
				break;
			}
	for (int k = 0; k < n && out->misfits && st == TILEC_OK; k++)
		out->nmisfits += out->misfits[k].arch != 0;
	if (out->nmisfits)
		st = TILEC_ERR_UNSUPPORTED; /* the caller compiles again without them */
	for (int key = 0; key < NFAM && st == TILEC_OK; key++) {
		if (fams[key].m && fams[key].libdevice)
			st = target_link_libdevice(ctx, fams[key].m, ptxas);
		if (fams[key].m && st == TILEC_OK)
			st = target_optimize(ctx, fams[key].m, fams[key].tm);
	}

	int nimg = ntargets(opt);
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
	for (int i = 0; i < opt->narchs && st == TILEC_OK; i++) {
		const family *fm = &fams[family_of(opt->archs[i], tiers)];
		if (redundant_specific(opt, i, fm)) {
			out->images[i].left_out = true;
			out->images[i].arch = TARGET_ARCH(opt->archs[i]);
			out->images[i].flags = BLOB_IMAGE_ARCH_SPECIFIC;
			continue;
		}
		st = emit_arch(ctx, a, fm->m, opt->archs[i], ptxas, !ptxas, &out->images[i], ptxas ? &out->kernels[i] : NULL,
			       symbols, threads, n, fm->shared, opt->narchs);
	}
	if (st == TILEC_OK && opt->emit_ptx) {
		/* the PTX of a cubin of the same arch, directives and all, or its own */
		const compile_image *same = NULL;
		for (int i = 0; i < opt->narchs && ptxas; i++)
			if (opt->archs[i] == opt->ptx_arch && !out->images[i].left_out && out->images[i].ptx)
				same = &out->images[i];
		compile_image *img = &out->images[opt->narchs];
		if (same) {
			*img = (compile_image){.arch = same->arch, .kind = BLOB_IMAGE_PTX, .size = same->ptx_size,
					       .data = arena_copy(a, same->ptx, same->ptx_size)};
			if (!img->data)
				st = TILEC_ERR_NOMEM;
		} else {
			const family *fm = &fams[family_of(opt->ptx_arch, tiers)];
			st = emit_arch(ctx, a, fm->m, opt->ptx_arch, ptxas, true, img, NULL, symbols, threads, n, fm->shared, 1);
		}
	}
	for (int u = 0; u < NFAM; u++) {
		if (fams[u].m)
			LLVMDisposeModule(fams[u].m);
		if (fams[u].tm)
			LLVMDisposeTargetMachine(fams[u].tm);
	}
	LLVMContextDispose(c);
	if (st == TILEC_OK && llvm_diags.errors)
		st = TILEC_ERR_LLVM;
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
			int arch = cubins ? opt->archs[i] : first_arch;
			const family *fm = &fams[family_of(arch, tiers)];
			ki->symbol = symbols[k];
			ki->arch = arch;
			if (!cubins)
				ki->shared_static = fm->shared[k];
			if (fm->dynamic[k]) {
				ki->shared_static = 0;
				ki->shared_dynamic = fm->shared[k];
			}
		}
	return TILEC_OK;
}
