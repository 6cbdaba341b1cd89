/* compile.h - the top of libtile: compile_module runs the whole pipeline
 * from specialized tile IR to PTX and cubins.
 *
 * It is the one place that knows every phase: passes, analysis, nvptx, and
 * pack's image kinds. compile_kernel_info, what ptxas reports per kernel
 * and arch, is defined in nvptx/nvptx.h beside target_ptxas_info that fills
 * it. Its users are tilec (codegen/) and the tests.
 */
#ifndef TILE_COMPILE_H
#define TILE_COMPILE_H

#include "nvptx/nvptx.h"
#include "pack/pack.h"
#include "passes/passes.h"

/* ======================================================================
 * compile.c - the pass pipeline: verify, axis info, layouts, lowering,
 * O3, PTX per arch, cubin per arch
 * ====================================================================== */

typedef struct compile_options {
	int narchs;
	const int *archs;        /* 80, 87, 90, 90 | TARGET_ARCH_SPECIFIC: one cubin each */
	bool emit_ptx;           /* also a PTX image for forward compatibility */
	bool ptx_if_lowered;     /* with emit_ptx: only where a cubin's family lowers its code
	                            anyway (a PTX image kept for reading, not for the blob) */
	int ptx_arch;            /* its target (compute_<ptx_arch>), e.g. 80 */
	const char *ptxas;       /* NULL: TILE_PTXAS, CUDA_HOME/bin, /usr/local/cuda/bin, PATH */
	bool debug_verify;       /* run ir_verify first */
	bool no_auto_warp_specialize; /* wgmma: only loops marked warp_specialize=True get a producer */
	bool libdevice_keeps_subnormals; /* nvvm-reflect-ftz 0: libdevice's math keeps subnormal inputs and
	                            results; by default they flush to zero, as Triton links libdevice */
	bool lower_only;         /* stop once each family is lowered and its module passes LLVM's
	                            verifier: no libdevice, O3 or image, out holds nothing */
	const bool *may_leave_out; /* NULL, or per kernel: one whose shared memory does not fit a
	                            block on some target is reported in out->misfits, not an error */
	int jobs;                /* threads for the families and the images; <= 1: one after the
	                            other in the calling thread. The result is the same for any. */
	/* Called as each family's lowering or image's PTX starts, from the
	 * thread that runs it, one call at a time: the started-th step of n,
	 * and what it is ("sm_90a (PTX, ptxas)"); may be NULL. */
	void (*progress)(void *arg, int started, int n, const char *step);
	void *progress_arg;
} compile_options;

/* A kernel that needs more shared memory than a block may have. */
typedef struct compile_misfit {
	uint32_t bytes;          /* what it needs (on the first target that cannot hold it) */
	int arch;                /* that target, as in compile_options.archs; 0: it fits */
} compile_misfit;

typedef struct compile_image {
	int arch;                /* the number: 90 for sm_90 and sm_90a */
	uint32_t flags;          /* BLOB_IMAGE_ARCH_SPECIFIC for sm_90a */
	int kind;                /* BLOB_IMAGE_CUBIN or BLOB_IMAGE_PTX */
	uint8_t *data;           /* in the arena; PTX is NUL-terminated, size without the NUL */
	size_t size;
	const char *ptx;         /* a cubin's PTX (in the arena), for --keep-ptx */
	size_t ptx_size;
	bool left_out;           /* an arch-specific target whose code would be its plain arch's
	                            (no kernel uses wgmma) while that arch is a target too: no image */
	bool shadowed;           /* a plain cubin (sm_90) whose arch-specific one (sm_90a) has code of
	                            its own: never loaded, so not for the blob (compiled, reported) */
} compile_image;

typedef struct compile_result {
	int nimages;
	compile_image *images;   /* cubins in archs order, then the PTX */
	int nkernels;
	compile_kernel_info *kernels; /* kernel-major: kernels[k * ncubins + arch index] */
	bool ptx_only;           /* no cubin: PTX images only (no ptxas, a warning says so; or
	                            compute_XX targets only); kernels[] has one entry per kernel */
	int nmisfits;            /* kernels opt->may_leave_out lets through that do not fit */
	compile_misfit *misfits; /* per kernel, with opt->may_leave_out */
} compile_result;

/* The IR passes of the pass pipeline on their own (tilec ir --pipelined
 * shows their result): the loads cp.async cannot copy are found from the
 * axis info first (axis_narrow_loads), then pipeline_loads, sink_loads,
 * order_stores_loads and, for wgmma (opt->warp_specialize),
 * partition_warps. */
tilec_status compile_pipeline(tilec_ctx *ctx, arena *a, ir_func *f, const pipeline_options *opt);

/* Whether a target's code copies descriptor blocks with TMA (tensor-core
 * targets from sm_90 on: sm_90a's wgmma, sm_90's and newer archs' mma.sync):
 * kernels built for it give their host-side descriptors tensor-map
 * parameters (fe_spec.tensormaps). */
bool compile_target_tma(int target);

/* Compiles n specialized kernels into ONE module per arch (entry names =
 * symbols); everything in *out lives in `a`. The images and diagnostics
 * are the same for every opt->jobs. No ptxas: PTX per arch, a
 * warning, ptx_only. ptxas failing: TILEC_ERR_PTXAS with its output;
 * LLVM's verifier failing: TILEC_ERR_LLVM. A kernel that needs more shared
 * memory than a block may have on a target is an error naming it, unless
 * opt->may_leave_out marks it: then every kernel is still lowered, to find
 * them all, and compile_module returns TILEC_ERR_UNSUPPORTED with no
 * diagnostic and no image, out->nmisfits > 0 and out->misfits[k] set for
 * each such kernel, for the caller to compile again without them. */
tilec_status compile_module(tilec_ctx *ctx, arena *a, ir_func *const *funcs, const char *const *symbols,
			    int n, const compile_options *opt, compile_result *out);

/* "BLOCK=64, num_warps=4, num_stages=3": the int constexprs, num_warps and
 * num_stages a kernel was specialized with, as diagnostics name a config
 * (in `a`; "" when out of memory). */
const char *compile_config_text(arena *a, const ir_func *f);

#endif
