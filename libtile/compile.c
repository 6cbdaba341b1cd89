/* compile.c - the pass pipeline, written out in compile_module.
 *
 * Per kernel: a config's num_ctas checked (cluster_refusal; a warning and
 * one CTA per program where the blocks cannot be split); per family and
 * kernel: the blocks split over a cluster (sm_90 on, num_ctas > 1), verify
 * the IR (debug), rows loops carry recomputed from the induction variable
 * where two broadcasts want them in two layouts, pipeline the loads that
 * feed dots (num_stages >= 2; verified again in debug), sink the top
 * level's loads to their first users, remove what is left unread, axis
 * info, layouts, lowering
 * into one LLVM module per family of targets (those whose dots run alike,
 * split further by fp8 tier when a kernel narrows to fp8 or has fp8 dots). Per module:
 * libdevice when a kernel calls it, the verifier and default<O3> once (with
 * the family's first target, which resolves __nvvm_reflect), then the
 * module goes through the NVPTX back end to PTX once per LLVM CPU among its
 * targets (sm_80's cubin and the compute_80 image share one PTX), and
 * through ptxas to a cubin per arch whose -v report gives each kernel's
 * registers, spills and static shared memory. With no ptxas the images
 * are PTX (one per arch) and a warning says so. With lower_only the
 * compilation stops at the verifier, before libdevice: what a check of the
 * lowering alone needs (tests/fuzz/fuzz_lower.c), in a fraction of the time.
 *
 * These steps run as tasks on up to opt->jobs threads (base/jobs.c): a
 * family's lowering and O3; a PTX once its family is done; a ptxas once
 * its PTX is. An LLVM context is one thread's, so each task has its own:
 * a family hands its optimized module on as bitcode, which each PTX task
 * reads into a fresh context. Each task reports into a tilec_ctx of its
 * own; compile_module appends them in task order (the order of the serial
 * loop) up to the first that failed, so the diagnostics, like the images,
 * are the same for any number of threads.
 *
 * ptxas is asked for a second block per SM where a kernel's registers alone
 * keep it out (occupancy.c); a cubin's PTX is then the one with those
 * directives, and so is the PTX image of its arch (or, with no such cubin,
 * ptxas decides them for the image). Kernels the caller lets through when
 * they do not fit in shared memory (autotune configs, which tilec leaves
 * out) skip O3 and every image, so compile_module returns them all.
 */
#include "compile.h"
#include "passes/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
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

static LLVMModuleRef new_module(LLVMContextRef c, const char *data_layout)
{
	LLVMModuleRef m = LLVMModuleCreateWithNameInContext("tile", c);
	LLVMSetTarget(m, "nvptx64-nvidia-cuda");
	LLVMSetDataLayout(m, data_layout);
	return m;
}

/* fp8 (Triton converts per compute capability, ir/fp8.c): casts to fp8
 * round differently below sm_89, on sm_89 and from sm_90 on, and fp8 dots
 * run mma.sync's fp8 shape from sm_89 on (below, their fragments widened
 * to fp16: layout_plan.fp8_widen), so a compile with such casts or dots lowers
 * each tier apart; the lowering picks the tier's instructions through
 * __nvvm_reflect("__CUDA_ARCH"), which the O3 of the family's first target
 * resolves. fp8e4nv needs sm_89, as in Triton. */
static int fp8_tier(int target)
{
	int arch = TARGET_ARCH(target);
	return arch >= 90 ? IR_FP8_SM90 : arch >= 89 ? IR_FP8_SM89 : IR_FP8_SM80;
}

/* A family: the targets whose dots run alike, split by fp8 tier when `tiers`
 * (kernels narrow to fp8, or have fp8 dots, whose fp8 mma.sync is sm_89's,
 * or control grid dependencies, read tensor maps or add bf16 atomically,
 * which sm_90 on does). */
static int family_of(int target, bool tiers)
{
	return (int)target_dot_unit(target) * 3 + (tiers ? fp8_tier(target) : 0);
}

/* TMA and thread block clusters are sm_90's: wgmma's family and the
 * mma.sync tier from sm_90 on (sm_90, and the Blackwell cubins ptxas makes
 * of its PTX) copy through tensor maps and split programs over clusters. */
static bool family_sm90(int key, bool tiers)
{
	dot_unit unit = (dot_unit)(key / 3);
	return unit == DOT_UNIT_WGMMA || (unit == DOT_UNIT_MMA && tiers && key % 3 == IR_FP8_SM90);
}

bool compile_target_tma(int target)
{
	return target_dot_unit(target) != DOT_UNIT_FMA && TARGET_ARCH(target) >= 90;
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

/* How many dots r has, -1 unless all are decode-shaped: one 16-row tile of M (the
 * batch; mma.sync's, wgmma takes 64 rows) against B tiles wide enough to
 * give each warp columns of its own. Such a loop does little tensor-core
 * work per byte and waits on its copies, so on sm_90a its rings are
 * refilled before its dots (copies_first). Measured on an H200: such
 * GEMVs 20-45% faster; 128x128 tf32 tiles 4-7% slower, and 16x16 tiles,
 * whose 4 warps compute the same columns twice, 2.5-5% slower. */
static int decode_dots(const ir_func *f, const ir_region *r)
{
	int n = 0;
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int j = 0; j < op->nregions; j++) {
			int inner = decode_dots(f, &op->regions[j]);
			if (inner < 0)
				return -1;
			n += inner;
		}
		if (op->code != IR_OP_DOT)
			continue;
		ir_type at = f->values[op->args[0]].type, bt = f->values[op->args[1]].type;
		if (at.rank != 2 || at.shape[0] > 16 || bt.shape[1] < 8 * (int64_t)f->num_warps)
			return -1;
		n++;
	}
	return n;
}

/* A bf16 atomic addition: `atom.add.bf16(x2)` from sm_90 on, a
 * compare-and-swap loop below (nvptx/atomic.c). */
static bool adds_bf16(const ir_func *f, const ir_region *r)
{
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		for (int j = 0; j < op->nregions; j++)
			if (adds_bf16(f, &op->regions[j]))
				return true;
		if (op->code == IR_OP_ATOMIC_RMW && f->values[op->args[0]].type.pointee == IR_BF16)
			return true;
	}
	return false;
}

tilec_status compile_pipeline(tilec_ctx *ctx, arena *a, ir_func *f, const pipeline_options *opt)
{
	axis_info *ai = NULL;
	bool *narrow = NULL;
	tilec_status st = recompute_carried_rows(ctx, f);
	if (!st && opt->async_copies && f->num_stages >= 2 && (st = axis_analyze(ctx, a, f, &ai)) == TILEC_OK &&
	    !(narrow = axis_narrow_loads(a, f, ai))) {
		diag_error(ctx, (src_loc){0}, "out of memory while pipelining loads");
		st = TILEC_ERR_NOMEM;
	}
	if (!st && (st = pipeline_loads(ctx, f, opt, narrow)) == TILEC_OK)
		sink_loads(f);
	/* what pipelining left unread (the masks of loads that became copies)
	 * would count as uses when layouts are chosen */
	if (!st && !ir_prune(f, f->nmaps, f->maps)) {
		diag_error(ctx, (src_loc){0}, "out of memory while pipelining loads");
		st = TILEC_ERR_NOMEM;
	}
	if (!st)
		st = order_stores_loads(ctx, f);
	if (!st && opt->warp_specialize)
		st = partition_warps(ctx, f, opt);
	return st;
}

/* One family of targets (those whose dots run on `unit`): every kernel
 * through the passes on its own copy of the IR, lowered into one module,
 * linked with libdevice and optimized; the module then goes to the PTX
 * tasks as bitcode, each reading it into an LLVM context of its own.
 * shared, dynamic and misfits are the compilation's (allocated before the
 * tasks run), written by the family's task alone; a family with a misfit
 * is not optimized (the caller compiles again without those kernels). */
typedef struct family {
	LLVMMemoryBufferRef bitcode;
	uint32_t *shared;
	bool *dynamic;
	compile_misfit *misfits; /* with opt->may_leave_out */
	int nmisfits;
	bool arch_specific; /* a kernel uses what only the arch-specific target runs */
	bool tensormaps;    /* a kernel copies through its tensor maps: the loader encodes them */
	int *producer;      /* per kernel: warps beyond num_warps (a producer warp: nvptx/warpspec.c) */
} family;

enum { NFAM = (DOT_UNIT_WGMMA + 1) * 3 };

/* A task: a family's lowering and O3; the PTX of the family's module for
 * one LLVM CPU, which every target of the family with that CPU shares
 * (sm_80's cubin and the compute_80 image; sm_90, sm_100 and sm_120);
 * or ptxas for one cubin target. Each reports into a tilec_ctx of its
 * own; what it makes stays malloc'd until compile_module copies it into
 * the arena once all are done. */
enum { TASK_FAMILY, TASK_PTX, TASK_PTXAS };

typedef struct task {
	int kind;
	int key;          /* the family */
	int target;       /* PTX: the first target it is for; ptxas: its target */
	int ptx;          /* ptxas: its PTX task */
	const char *what; /* for progress: "sm_87: ptxas" */
	tilec_ctx *diags;
	int llvm_errors;  /* LLVM's own error diagnostics among them */
	tilec_status st;
	char *text;       /* PTX */
	size_t text_len;
	uint8_t *cubin;   /* ptxas */
	size_t cubin_size;
	bool left_out;    /* PTX: redundant_specific, no image */
} task;

/* What every task reads: written before they run, but for what a task
 * makes, which the tasks after it read only once it is done. */
typedef struct compile_run {
	const compile_options *opt;
	ir_func *const *funcs;
	const char *const *symbols;
	int n;
	const char *ptxas;
	bool tiers;
	family fams[NFAM];
	task *tasks;
	int ntasks;
	int *ptx_of, *ptxas_of; /* per target: its PTX task, and its ptxas task or -1 */
	compile_kernel_info *kernels;
	int misfits;            /* families with a misfit so far (atomic): the images are not made */
} compile_run;

static tilec_status lower_family(tilec_ctx *ctx, arena *a, const compile_run *r, int key, LLVMContextRef c,
				 family *fam, LLVMModuleRef *out)
{
	const compile_options *opt = r->opt;
	ir_func *const *funcs = r->funcs;
	const char *const *symbols = r->symbols;
	int n = r->n;
	bool tiers = r->tiers;
	dot_unit unit = (dot_unit)(key / 3);
	bool tma = family_sm90(key, tiers);
	int first = -1;
	for (int i = 0; i < ntargets(opt) && first < 0; i++)
		if (family_of(target_at(opt, i), tiers) == key)
			first = target_at(opt, i);
	LLVMTargetMachineRef tm;
	tilec_status st = target_machine(ctx, first, &tm);
	if (st)
		return st;
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
	char *dl = LLVMCopyStringRepOfTargetData(td);
	LLVMDisposeTargetData(td);
	LLVMModuleRef m = *out = new_module(c, dl);
	/* wgmma's rings get a spare tile where the kernel still fits */
	uint32_t limit = UINT32_MAX, sm_smem = UINT32_MAX;
	for (int i = 0; i < ntargets(opt); i++)
		if (family_of(target_at(opt, i), tiers) == key) {
			if (target_smem_limit(target_at(opt, i)) < limit)
				limit = target_smem_limit(target_at(opt, i));
			if (target_smem_per_sm(target_at(opt, i)) < sm_smem)
				sm_smem = target_smem_per_sm(target_at(opt, i));
		}
	bool libdev = false;
	for (int k = 0; k < n && st == TILEC_OK; k++) {
		ir_func *f = NULL;
		lower_result lr = {0};
		/* wgmma's rings: first with spare tiles and with copies running
		 * on across persistent loops (whose rings stay through the
		 * epilogue), then each alone (the spare tile first: it measured
		 * faster where both do not fit), then neither, while the kernel
		 * leaves no room (on mma.sync, running on measured slower:
		 * docs/PERF.md); all that first with the loads dots read through a
		 * dequantization in rings too, then without them */
		static const struct {
			bool spare, run_on;
		} wgmma_tries[] = {{true, true}, {true, false}, {false, true}, {false, false}};
		int nbase = unit == DOT_UNIT_WGMMA ? (int)(sizeof wgmma_tries / sizeof wgmma_tries[0]) : 1;
		int ntries = 2 * nbase;
		bool wg = unit == DOT_UNIT_WGMMA, decode = wg && decode_dots(funcs[k], &funcs[k]->body) > 0;
		bool keep = true; /* loop-invariant wgmma operands staged once, while they leave room */
		for (int t = 0;; t++) {
			axis_info *ai = NULL;
			layout_plan plan;
			int bt = t % nbase;
			pipeline_options po = {.async_copies = unit != DOT_UNIT_FMA,
					       .spare_budget = wg && wgmma_tries[bt].spare ? limit : 0,
					       .sm_smem = sm_smem, .reuse_read_tile = unit == DOT_UNIT_MMA,
					       .copies_first = decode, .tensormaps = tma,
					       .run_on = wg && wgmma_tries[bt].run_on, .operand_prep = t < nbase,
					       .warp_specialize = wg, .auto_warp_specialize = wg && !opt->no_auto_warp_specialize};
			f = ir_clone(a, funcs[k]);
			if (!f)
				st = TILEC_ERR_NOMEM;
			else if (f->num_ctas > 1 && !tma)
				f->num_ctas = 1; /* no clusters below sm_90: one CTA per program */
			else if (f->num_ctas > 1)
				st = cluster_split(ctx, f);
			if (st == TILEC_OK && opt->debug_verify)
				st = ir_verify(ctx, f);
			if (st == TILEC_OK)
				st = compile_pipeline(ctx, a, f, &po);
			if (st == TILEC_OK && opt->debug_verify)
				st = ir_verify(ctx, f);
			if (st == TILEC_OK)
				st = axis_analyze(ctx, a, f, &ai);
			if (st == TILEC_OK)
				st = layout_assign(ctx, a, f, ai, unit, &plan);
			plan.tma = tma;
			plan.fp8_widen = unit == DOT_UNIT_MMA && tiers && fp8_tier(first) < IR_FP8_SM89;
			plan.smem_limit = limit;
			plan.sm_smem = sm_smem == UINT32_MAX ? 0 : sm_smem;
			plan.keep_operands = keep;
			/* each kernel in a module of its own, linked in once it is kept */
			LLVMModuleRef km = st == TILEC_OK ? new_module(c, dl) : NULL;
			if (km)
				st = lower_kernel(ctx, km, f, symbols[k], ai, &plan, &lr);
			if (km && st == TILEC_OK && lr.shared_bytes > limit && lr.kept_operands) {
				LLVMDisposeModule(km); /* the same try again, each iteration staging its operands */
				keep = false;
				t--;
				continue;
			}
			if (km && st == TILEC_OK && t + 1 < ntries && lr.shared_bytes > limit) {
				LLVMDisposeModule(km); /* the spare tiles, rings kept through an epilogue or a dequantization's rings left no room */
				continue;
			}
			if (km && st == TILEC_OK && LLVMLinkModules2(m, km)) {
				diag_error(ctx, no_loc, "LLVM could not link kernel '%s' into its module", symbols[k]);
				st = TILEC_ERR_LLVM;
			} else if (km && st != TILEC_OK) {
				LLVMDisposeModule(km);
			}
			break;
		}
		libdev |= lr.uses_libdevice;
		/* sm_90a's rings are laid out for wgmma: the plain sm_90 cubin stands in for none of its code */
		fam->arch_specific |= lr.uses_arch_specific || (lr.uses_tensormaps && unit == DOT_UNIT_WGMMA);
		fam->tensormaps |= lr.uses_tensormaps;
		if (st == TILEC_OK) {
			fam->shared[k] = lr.shared_bytes;
			fam->producer[k] = lr.producer_warps;
			fam->dynamic[k] = lr.shared_dynamic;
			st = check_smem(ctx, a, f, symbols[k], lr.shared_bytes, opt, unit,
					opt->may_leave_out && opt->may_leave_out[k] ? &fam->misfits[k] : NULL);
			fam->nmisfits += fam->misfits && fam->misfits[k].arch;
		}
	}
	LLVMDisposeMessage(dl);
	if (fam->nmisfits) {
		__atomic_add_fetch((int *)&r->misfits, 1, __ATOMIC_RELAXED);
		LLVMDisposeTargetMachine(tm);
		return st; /* no O3: nothing of it is kept */
	}
	if (st == TILEC_OK && opt->lower_only)
		st = target_verify(ctx, m); /* the module as lowered */
	else if (st == TILEC_OK && libdev)
		st = target_link_libdevice(ctx, m, r->ptxas, !opt->libdevice_keeps_subnormals);
	if (st == TILEC_OK && !opt->lower_only)
		st = target_optimize(ctx, m, tm);
	LLVMDisposeTargetMachine(tm);
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

/* The plain arch's cubin (sm_90) where its arch-specific one (sm_90a) is a
 * target too and holds code of its own (wgmma): both load on compute
 * capability 9.0 only and the loader prefers the specific one, so the plain
 * cubin would never run. It is compiled (its PTX is the compute_90 image's,
 * --keep-ptx writes it, -v reports it) but kept out of the blob. */
static bool shadowed_plain(const compile_run *r, int i)
{
	const compile_options *opt = r->opt;
	if (i >= opt->narchs || (opt->archs[i] & TARGET_ARCH_SPECIFIC))
		return false;
	for (int j = 0; j < opt->narchs; j++)
		if (opt->archs[j] == (opt->archs[i] | TARGET_ARCH_SPECIFIC) &&
		    r->fams[family_of(opt->archs[j], r->tiers)].arch_specific)
			return true;
	return false;
}

/* A family's task: its module in a context and an arena of its own (the
 * IR copies, analyses and plans go with the arena), kept as bitcode. */
static tilec_status family_task(compile_run *r, task *t)
{
	family *fam = &r->fams[t->key];
	target_diag d = {t->diags, 0};
	arena *a = arena_new();
	LLVMContextRef c = a ? target_context(&d) : NULL;
	if (!c) {
		arena_free(a);
		diag_error(t->diags, no_loc, "LLVM: cannot create a context");
		return TILEC_ERR_NOMEM;
	}
	LLVMModuleRef m = NULL;
	tilec_status st = lower_family(t->diags, a, r, t->key, c, fam, &m);
	if (st == TILEC_OK && !fam->nmisfits && !r->opt->lower_only && !(fam->bitcode = LLVMWriteBitcodeToMemoryBuffer(m)))
		st = TILEC_ERR_NOMEM;
	if (m)
		LLVMDisposeModule(m);
	LLVMContextDispose(c);
	arena_free(a);
	t->llvm_errors = d.errors;
	return st;
}

/* A PTX task: the family's module read into a context of its own, through
 * the NVPTX back end. */
static tilec_status ptx_task(compile_run *r, task *t)
{
	const compile_options *opt = r->opt;
	if (t->target < opt->narchs && redundant_specific(opt, t->target, &r->fams[t->key])) {
		t->left_out = true;
		return TILEC_OK;
	}
	if (!r->fams[t->key].bitcode || __atomic_load_n(&r->misfits, __ATOMIC_RELAXED))
		return TILEC_OK; /* kernels to leave out: no image is made */
	target_diag d = {t->diags, 0};
	LLVMContextRef c = target_context(&d);
	if (!c) {
		diag_error(t->diags, no_loc, "LLVM: cannot create a context");
		return TILEC_ERR_NOMEM;
	}
	LLVMModuleRef m = NULL;
	LLVMTargetMachineRef tm = NULL;
	tilec_status st = TILEC_OK;
	if (LLVMParseBitcodeInContext2(c, r->fams[t->key].bitcode, &m)) {
		diag_error(t->diags, no_loc, "LLVM cannot read back the optimized module");
		st = TILEC_ERR_LLVM;
	}
	if (st == TILEC_OK)
		st = target_machine(t->diags, target_at(opt, t->target), &tm);
	if (st == TILEC_OK)
		st = target_emit_ptx(t->diags, m, tm, &t->text, &t->text_len);
	if (tm)
		LLVMDisposeTargetMachine(tm);
	if (m)
		LLVMDisposeModule(m);
	LLVMContextDispose(c);
	t->llvm_errors = d.errors;
	return st;
}

/* A ptxas task: the cubin of one target and its kernels' resources,
 * kernels[k * narchs + target] for kernel k, from its own copy of the PTX,
 * which gets the directives occupancy.c asks for (the task's text). For
 * the PTX image (target narchs, no cubin of its arch) ptxas only decides
 * those directives: a failure there leaves the plain PTX. */
static tilec_status ptxas_task(compile_run *r, task *t)
{
	const task *p = &r->tasks[t->ptx];
	const compile_options *opt = r->opt;
	if (p->left_out || !p->text)
		return TILEC_OK;
	if (!(t->text = malloc(p->text_len + 1))) {
		diag_error(t->diags, no_loc, "out of memory");
		return TILEC_ERR_NOMEM;
	}
	memcpy(t->text, p->text, p->text_len + 1);
	bool image = t->target == opt->narchs;
	tilec_ctx *scratch = image ? tilec_ctx_new() : NULL;
	if (image && !scratch)
		return TILEC_OK; /* the plain PTX */
	strbuf log;
	sb_init(&log);
	tilec_status st = target_ptxas_occupancy(image ? scratch : t->diags, r->ptxas, target_at(opt, t->target), &t->text,
						 r->symbols, r->funcs, r->fams[t->key].shared, r->fams[t->key].producer, r->n, &t->cubin,
						 &t->cubin_size, &log);
	t->text_len = strlen(t->text);
	if (image) {
		tilec_ctx_free(scratch);
		free(t->cubin);
		t->cubin = NULL;
		sb_free(&log);
		return TILEC_OK;
	}
	for (int k = 0; k < r->n && st == TILEC_OK; k++) {
		compile_kernel_info *ki = &r->kernels[k * r->opt->narchs + t->target];
		if (!target_ptxas_info(sb_str(&log), r->symbols[k], ki))
			ki->shared_static = r->fams[t->key].shared[k];
	}
	sb_free(&log);
	return st;
}

static bool run_task(void *arg, int i)
{
	compile_run *r = arg;
	task *t = &r->tasks[i];
	t->st = t->kind == TASK_FAMILY ? family_task(r, t) : t->kind == TASK_PTX ? ptx_task(r, t) : ptxas_task(r, t);
	return t->st == TILEC_OK;
}

static void task_started(void *arg, int i, int started, int n)
{
	const compile_run *r = arg;
	r->opt->progress(r->opt->progress_arg, started, n, r->tasks[i].what);
}

/* "sm_90a", or "compute_80" for the PTX image (target narchs). */
static const char *target_label(const compile_options *opt, int i, char *buf, size_t n)
{
	if (i < opt->narchs)
		return target_name(opt->archs[i], buf, n);
	snprintf(buf, n, "compute_%d", TARGET_ARCH(opt->ptx_arch));
	return buf;
}

static task *add_task(compile_run *r, int *after, int kind, int key, int target, int wait)
{
	task *t = &r->tasks[r->ntasks];
	*t = (task){.kind = kind, .key = key, .target = target};
	after[r->ntasks++] = wait;
	return t;
}

/* The tasks in the order a serial compile runs them: each family that has
 * a target; then per target in order (cubins in archs order, the PTX
 * image last) its PTX where no target before it has the same family and
 * LLVM CPU, and its ptxas (none when ptxas was not found, or was named but
 * cannot run: then no PTX either). *after receives what each task waits
 * for: a PTX task its family, a ptxas task its PTX. */
/* The cubin target whose arch is the PTX image's, or -1. */
static int same_arch_cubin(const compile_options *opt)
{
	for (int i = 0; i < opt->narchs; i++)
		if (opt->archs[i] == opt->ptx_arch)
			return i;
	return -1;
}

static tilec_status plan_tasks(arena *a, compile_run *r, bool images, int **after)
{
	const compile_options *opt = r->opt;
	int nt = ntargets(opt), famtask[NFAM], max = NFAM + 2 * nt;
	r->tasks = arena_alloc(a, sizeof(task) * (size_t)max);
	r->ptx_of = arena_alloc(a, sizeof(int) * (size_t)nt);
	r->ptxas_of = arena_alloc(a, sizeof(int) * (size_t)nt);
	*after = arena_alloc(a, sizeof(int) * (size_t)max);
	if (!r->tasks || !r->ptx_of || !r->ptxas_of || !*after)
		return TILEC_ERR_NOMEM;
	char name[16];
	for (int key = 0; key < NFAM; key++) {
		famtask[key] = -1;
		strbuf sb;
		sb_init(&sb);
		for (int i = 0; i < nt; i++)
			if (family_of(target_at(opt, i), r->tiers) == key)
				sb_printf(&sb, "%s ", target_label(opt, i, name, sizeof name));
		if (sb_str(&sb)[0]) {
			famtask[key] = r->ntasks;
			add_task(r, *after, TASK_FAMILY, key, -1, -1)->what = arena_printf(a, "%.*s: lowering, O3",
											  (int)sb.len - 1, sb_str(&sb));
		}
		sb_free(&sb);
	}
	for (int i = 0; images && i < nt; i++) {
		int key = family_of(target_at(opt, i), r->tiers), cpu = target_llvm_cpu(target_at(opt, i));
		int j = 0;
		while (j < i && (family_of(target_at(opt, j), r->tiers) != key || target_llvm_cpu(target_at(opt, j)) != cpu))
			j++;
		if (j == i) {
			strbuf sb;
			sb_init(&sb);
			for (int u = i; u < nt; u++)
				if (family_of(target_at(opt, u), r->tiers) == key && target_llvm_cpu(target_at(opt, u)) == cpu)
					sb_printf(&sb, "%s ", target_label(opt, u, name, sizeof name));
			r->ptx_of[i] = r->ntasks;
			add_task(r, *after, TASK_PTX, key, i, famtask[key])->what = arena_printf(a, "%.*s: PTX",
												(int)sb.len - 1, sb_str(&sb));
			sb_free(&sb);
		} else {
			r->ptx_of[i] = r->ptx_of[j];
		}
		r->ptxas_of[i] = -1;
		/* the PTX image's own ptxas run decides its directives where no
		 * cubin of its arch does (same_arch_cubin) */
		if (r->ptxas && (i < opt->narchs || same_arch_cubin(opt) < 0)) {
			r->ptxas_of[i] = r->ntasks;
			task *t = add_task(r, *after, TASK_PTXAS, key, i, r->ptx_of[i]);
			t->ptx = r->ptx_of[i];
			t->what = arena_printf(a, "%s: ptxas", target_label(opt, i, name, sizeof name));
		}
	}
	for (int i = 0; i < r->ntasks; i++)
		if (!r->tasks[i].what || !(r->tasks[i].diags = tilec_ctx_new()))
			return TILEC_ERR_NOMEM;
	return TILEC_OK;
}

/* What tasks [from, to) reported, in task order up to the first that
 * failed, whose status it returns. */
static tilec_status replay(tilec_ctx *ctx, const compile_run *r, int from, int to, int *llvm_errors)
{
	for (int i = from; i < to; i++) {
		const task *t = &r->tasks[i];
		diag_append(ctx, t->diags);
		*llvm_errors += t->llvm_errors;
		if (t->st != TILEC_OK)
			return t->st;
	}
	return TILEC_OK;
}

/* Target i's image from its tasks into the arena. */
static tilec_status keep_image(arena *a, const compile_run *r, int i, compile_image *img)
{
	const task *p = &r->tasks[r->ptx_of[i]], *c = r->ptxas_of[i] >= 0 ? &r->tasks[r->ptxas_of[i]] : NULL;
	int arch = target_at(r->opt, i);
	img->arch = TARGET_ARCH(arch);
	img->flags = arch & TARGET_ARCH_SPECIFIC ? BLOB_IMAGE_ARCH_SPECIFIC : 0;
	const family *fm = &r->fams[family_of(arch, r->tiers)];
	if (fm->tensormaps)
		img->flags |= BLOB_IMAGE_TENSORMAPS;
	for (int k = 0; k < r->n; k++)
		if (fm->producer[k])
			img->flags |= BLOB_IMAGE_PRODUCER;
	img->left_out = p->left_out;
	if (p->left_out)
		return TILEC_OK;
	img->shadowed = shadowed_plain(r, i);
	if (c && i < r->opt->narchs) {
		img->kind = BLOB_IMAGE_CUBIN;
		img->data = arena_copy(a, c->cubin, c->cubin_size);
		img->size = c->cubin_size;
		img->ptx = (const char *)arena_copy(a, c->text, c->text_len);
		img->ptx_size = c->text_len;
		return img->data && img->ptx ? TILEC_OK : TILEC_ERR_NOMEM;
	}
	/* the PTX image: as ptxas left it for its arch, directives and all */
	int same = same_arch_cubin(r->opt);
	if (!c && same >= 0 && r->ptxas_of[same] >= 0 && r->tasks[r->ptxas_of[same]].text)
		c = &r->tasks[r->ptxas_of[same]];
	const task *src = c && c->text ? c : p;
	img->kind = BLOB_IMAGE_PTX;
	img->data = arena_copy(a, src->text, src->text_len);
	img->size = src->text_len;
	return img->data ? TILEC_OK : TILEC_ERR_NOMEM;
}

static void free_run(compile_run *r)
{
	for (int i = 0; i < r->ntasks; i++) {
		tilec_ctx_free(r->tasks[i].diags);
		free(r->tasks[i].text);
		free(r->tasks[i].cubin);
	}
	for (int u = 0; u < NFAM; u++)
		if (r->fams[u].bitcode)
			LLVMDisposeMemoryBuffer(r->fams[u].bitcode);
}

tilec_status compile_module(tilec_ctx *ctx, arena *a, ir_func *const *funcs, const char *const *symbols,
			    int n, const compile_options *opt, compile_result *out)
{
	memset(out, 0, sizeof *out);
	if (n <= 0 || !opt || opt->narchs < 0 || (opt->narchs == 0 && !opt->emit_ptx)) {
		diag_error(ctx, no_loc, "compile_module: no kernels or no target");
		return TILEC_ERR_INVALID;
	}
	compile_run r = {.opt = opt, .funcs = funcs, .symbols = symbols, .n = n};
	r.ptxas = target_find_ptxas(a, opt->ptxas);
	int first_arch = target_at(opt, 0);
	fp8_use fp8 = {0};
	for (int k = 0; k < n; k++)
		scan_fp8(funcs[k], &funcs[k]->body, &fp8);
	for (int i = 0; i < ntargets(opt) && fp8.e4nv; i++)
		if (TARGET_ARCH(target_at(opt, i)) < 89) {
			char name[16];
			diag_error(ctx, fp8.e4nv->loc,
				   "fp8e4nv is not supported on CUDA arch < 89, as in Triton: the targets include %s (choose them with --arch)",
				   target_name(target_at(opt, i), name, sizeof name));
			return TILEC_ERR_UNSUPPORTED;
		}
	r.tiers = fp8.narrows || fp8.dots;
	for (int k = 0; k < n; k++) { /* griddepcontrol, TMA and bf16 atomics from sm_90 on */
		r.tiers = r.tiers || ir_region_has(&funcs[k]->body, IR_OP_GRID_DEP) || adds_bf16(funcs[k], &funcs[k]->body);
		for (int i = 0; i < funcs[k]->nparams; i++) /* a descriptor's map or a derived one */
			r.tiers = r.tiers || funcs[k]->params[i].tensormap;
	}
	/* num_ctas: programs split over clusters where the blocks allow it
	 * (passes/cluster.c), lowered apart from sm_90 on */
	bool sm90 = false;
	for (int i = 0; i < ntargets(opt); i++)
		sm90 |= compile_target_tma(target_at(opt, i));
	for (int k = 0; k < n; k++) {
		ir_func *f = funcs[k];
		const char *why = f->num_ctas > 1 ? cluster_refusal(f, f->num_ctas) : NULL;
		if (f->num_ctas > 1 && (why || !sm90)) {
			diag_warning(ctx, f->loc, "kernel '%s' (%s): num_ctas=%d is compiled as one CTA per program: %s", symbols[k],
				     compile_config_text(a, f), f->num_ctas,
				     why ? why : "no target has thread block clusters (sm_90 and newer)");
			f->num_ctas = 1;
		}
		r.tiers = r.tiers || f->num_ctas > 1;
	}
	/* a PTX image wanted only where it comes with a cubin's lowering */
	compile_options kept;
	if (opt->emit_ptx && opt->ptx_if_lowered && opt->narchs > 0) {
		bool shared_family = false;
		for (int i = 0; i < opt->narchs; i++)
			shared_family |= family_of(opt->archs[i], r.tiers) == family_of(opt->ptx_arch, r.tiers);
		kept = *opt;
		kept.emit_ptx = shared_family;
		r.opt = opt = &kept;
	}
	int nimg = ntargets(opt);
	out->images = arena_alloc(a, sizeof(compile_image) * (size_t)(nimg + 1));
	out->kernels = r.kernels = arena_alloc(a, sizeof(compile_kernel_info) * (size_t)(n * (opt->narchs + 1)));
	for (int u = 0; u < NFAM; u++) {
		r.fams[u].shared = arena_alloc(a, sizeof(uint32_t) * (size_t)n);
		r.fams[u].dynamic = arena_alloc(a, sizeof(bool) * (size_t)n);
		r.fams[u].producer = arena_alloc(a, sizeof(int) * (size_t)n);
		r.fams[u].misfits = opt->may_leave_out ? arena_alloc(a, sizeof(compile_misfit) * (size_t)n) : NULL;
		if (!r.fams[u].shared || !r.fams[u].dynamic || !r.fams[u].producer ||
		    (opt->may_leave_out && !r.fams[u].misfits))
			return TILEC_ERR_NOMEM;
	}
	if (!out->images || !out->kernels)
		return TILEC_ERR_NOMEM;
	/* Lowered once per family: the targets whose dots run alike share a
	 * module, so an sm_75 target does not take tensor cores from sm_80's
	 * code, nor sm_80 wgmma from sm_90a's. A ptxas that was named but
	 * cannot run fails the compile once the families are lowered. */
	bool bad_ptxas = opt->ptxas && !r.ptxas;
	int *after;
	tilec_status st = plan_tasks(a, &r, !bad_ptxas && !opt->lower_only, &after);
	int nfam = 0;
	while (nfam < r.ntasks && r.tasks[nfam].kind == TASK_FAMILY)
		nfam++;
	jobs_spec spec = {.n = r.ntasks, .after = after, .threads = opt->jobs, .run = run_task,
			  .start = opt->progress ? task_started : NULL, .arg = &r};
	if (st == TILEC_OK && jobs_run(&spec) < 0)
		st = TILEC_ERR_NOMEM;
	/* kernels to leave out, where every family was lowered: each one's
	 * first misfit in family order, no diagnostic, no image */
	bool lowered = st == TILEC_OK;
	for (int i = 0; i < nfam; i++)
		lowered &= r.tasks[i].st == TILEC_OK;
	if (lowered && r.misfits) {
		out->misfits = arena_alloc(a, sizeof(compile_misfit) * (size_t)n);
		for (int k = 0; k < n && out->misfits; k++) {
			out->misfits[k] = (compile_misfit){0};
			for (int u = 0; u < NFAM && !out->misfits[k].arch; u++)
				if (r.fams[u].misfits && r.fams[u].misfits[k].arch)
					out->misfits[k] = r.fams[u].misfits[k];
			out->nmisfits += out->misfits[k].arch != 0;
		}
		free_run(&r);
		return out->misfits ? TILEC_ERR_UNSUPPORTED : TILEC_ERR_NOMEM; /* the caller compiles again without them */
	}
	/* LLVM's own diagnostics became the tasks'; an error among them fails
	 * the compile even where the call that reported it returned success. */
	int llvm_errors = 0;
	if (st == TILEC_OK)
		st = replay(ctx, &r, 0, nfam, &llvm_errors);
	if (opt->lower_only) {
		free_run(&r);
		return st == TILEC_OK && llvm_errors ? TILEC_ERR_LLVM : st;
	}
	if (st == TILEC_OK && bad_ptxas) {
		diag_error(ctx, no_loc, "ptxas '%s' is not an executable file", opt->ptxas);
		st = TILEC_ERR_PTXAS;
	}
	if (st == TILEC_OK && !r.ptxas && opt->narchs)
		diag_warning(ctx, no_loc, "ptxas not found (TILE_PTXAS, CUDA_HOME, /usr/local/cuda, PATH): "
			     "the module carries PTX only, compiled by the driver at load time");
	if (st == TILEC_OK)
		st = replay(ctx, &r, nfam, r.ntasks, &llvm_errors);
	for (int i = 0; i < nimg && st == TILEC_OK; i++)
		st = keep_image(a, &r, i, &out->images[i]);
	free_run(&r);
	if (st == TILEC_OK && llvm_errors)
		st = TILEC_ERR_LLVM;
	if (st != TILEC_OK)
		return st;
	out->nimages = nimg;
	/* no cubin (no ptxas, or compute_XX targets only): one entry per kernel */
	bool cubins = r.ptxas && opt->narchs > 0;
	out->ptx_only = !cubins;
	int per = cubins ? opt->narchs : 1;
	out->nkernels = n * per;
	for (int k = 0; k < n; k++)
		for (int i = 0; i < per; i++) {
			/* PTX only: resources are unknown but shared memory. */
			compile_kernel_info *ki = &out->kernels[k * per + i];
			int arch = cubins ? opt->archs[i] : first_arch;
			const family *fm = &r.fams[family_of(arch, r.tiers)];
			ki->symbol = symbols[k];
			ki->arch = arch;
			ki->producer_warps = fm->producer[k];
			if (!cubins)
				ki->shared_static = fm->shared[k];
			if (fm->dynamic[k]) {
				ki->shared_static = 0;
				ki->shared_dynamic = fm->shared[k];
			}
		}
	return TILEC_OK;
}
