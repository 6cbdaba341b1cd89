/* nvptx.h - the NVPTX target: tile IR to LLVM IR, PTX and cubins.
 *
 * lower_kernel turns a kernel under its layout plan into an LLVM function
 * (the lowering files of nvptx/ share nvptx/lower.h); target.c makes
 * target machines, links libdevice, runs O3, emits PTX and runs ptxas,
 * whose report fills a compile_kernel_info. This is the only phase that
 * uses LLVM: its files (and compile.c) include llvm-c, and this header
 * forward-declares the opaque handles so that its users need none.
 */
#ifndef TILE_NVPTX_H
#define TILE_NVPTX_H

#include "analysis/analysis.h"

/* ======================================================================
 * lower.c and the op families beside it (memory.c, math.c, reduce.c, atomic.c,
 * convert.c, dot_fma.c, dot_mma.c) - tile IR to LLVM IR
 * (nvptx64-nvidia-cuda) under the layouts
 * target.c - target machines, libdevice, the O3 pipeline, PTX, ptxas
 *
 * Only nvptx/ (and compile.c) includes llvm-c; the opaque LLVM handles
 * are forward-declared here so the interfaces need no LLVM header.
 * ====================================================================== */

struct LLVMOpaqueModule;
struct LLVMOpaqueTargetMachine;

typedef struct lower_result {
	bool uses_libdevice;      /* calls __nv_* functions */
	bool uses_arch_specific;  /* has what only an arch-specific target runs (wgmma) */
	bool uses_tensormaps;     /* copies through its tensor-map parameters (TMA) */
	uint32_t shared_bytes;    /* shared memory of the kernel */
	bool shared_dynamic;      /* over 48 KB: dynamic (extern) shared memory, the launch passes it */
	int producer_warps;       /* warps the block runs beyond num_warps: a producer warp (1), or 0 */
	bool kept_operands;       /* staged loop-invariant operands once (layout_plan.keep_operands) */
} lower_result;

/* Adds the kernel `symbol` (PTX entry, 32 * num_warps threads) to m. */
tilec_status lower_kernel(tilec_ctx *ctx, struct LLVMOpaqueModule *m, const ir_func *f,
			  const char *symbol, const axis_info *ai, const layout_plan *plan,
			  lower_result *out);

/* A target is an arch number (80 for sm_80), or'd with
 * TARGET_ARCH_SPECIFIC for the arch-specific feature set (sm_90a: wgmma),
 * whose code runs on that arch alone. */
enum { TARGET_ARCH_SPECIFIC = 1 << 10 };
#define TARGET_ARCH(t) ((t) & (TARGET_ARCH_SPECIFIC - 1))
/* "sm_90a" and the like, in buf. */
const char *target_name(int target, char *buf, size_t n);
/* What a target's dots run on: fma chains below sm_80, wgmma on sm_90a,
 * mma.sync on the rest. */
dot_unit target_dot_unit(int target);
/* The CPU LLVM emits PTX for on a target: the target itself, or for one
 * LLVM may not know (sm_88, sm_100 and later) the newest it knows below
 * (sm_87, sm_90); ptxas then assembles that PTX for the target. */
int target_llvm_cpu(int target);
/* A new LLVM context whose diagnostics (errors, warnings) go to d->ctx as
 * "LLVM: ..." instead of stderr (and, for errors, exit), errors counted in
 * d->errors; d must outlive the context (LLVMContextDispose). NULL when
 * out of memory. */
typedef struct target_diag {
	tilec_ctx *ctx;
	int errors;
} target_diag;
struct LLVMOpaqueContext *target_context(target_diag *d);
/* A target machine for a target (PTX ISA 8.0, CPU target_llvm_cpu; 8.4
 * from sm_89 on with LLVM 19 and later, for fp8). */
tilec_status target_machine(tilec_ctx *ctx, int arch, struct LLVMOpaqueTargetMachine **out);
/* Links the libdevice functions m uses (found through TILE_LIBDEVICE,
 * CUDA_HOME, /usr/local/cuda, next to ptxas), internalizing them; with
 * flush_subnormals they take their flush-to-zero paths (nvvm-reflect-ftz 1). */
tilec_status target_link_libdevice(tilec_ctx *ctx, struct LLVMOpaqueModule *m, const char *ptxas, bool flush_subnormals);
/* LLVM's verifier on m: TILEC_ERR_LLVM and its message where it refuses
 * the module. */
tilec_status target_verify(tilec_ctx *ctx, struct LLVMOpaqueModule *m);
/* Verifies m (target_verify), then runs default<O3>. */
tilec_status target_optimize(tilec_ctx *ctx, struct LLVMOpaqueModule *m, struct LLVMOpaqueTargetMachine *tm);
/* PTX text of m (a malloc'd NUL-terminated string in *out). */
tilec_status target_emit_ptx(tilec_ctx *ctx, struct LLVMOpaqueModule *m, struct LLVMOpaqueTargetMachine *tm,
			     char **out, size_t *len);
/* The ptxas to use: `explicit_path` when given, else TILE_PTXAS,
 * $CUDA_HOME/bin, /usr/local/cuda/bin, PATH; NULL when none. */
const char *target_find_ptxas(arena *a, const char *explicit_path);
/* The most shared memory one block may use on sm_<arch> (bytes, with the
 * opt-in above 48 KB). */
uint32_t target_smem_limit(int arch);
/* The shared memory of one SM that its blocks share (bytes; 0 where
 * tilec does not know it), what the driver reserves of it per block, and
 * an SM's registers. */
uint32_t target_smem_per_sm(int arch);
enum { TARGET_BLOCK_RESERVED_SMEM = 1024, TARGET_SM_REGISTERS = 65536 };
/* Assembles PTX with `ptxas -v -arch=sm_<arch>`; the cubin in *cubin
 * (malloc'd), ptxas's messages in *log (caller frees). */
tilec_status target_ptxas(tilec_ctx *ctx, const char *ptxas, const char *ptx, int arch,
			  uint8_t **cubin, size_t *size, strbuf *log);

/* (occupancy.c) target_ptxas, then again with `.minnctapersm 2` on the
 * entries whose registers alone keep a second block of funcs[k]'s threads
 * off an SM whose shared memory holds two (shared[k] bytes each), kept
 * where ptxas reports no spill, and `.minnctapersm 1` on entries ptxas gave
 * few registers and spills (it went for occupancy), kept where the spills
 * shrink: *ptx (malloc'd) is then replaced by the PTX the cubin comes from,
 * *cubin and *log by its cubin and report. Kernels that set their own
 * maxnreg are left as they are. A block has 32 * (num_warps +
 * producer_warps[k]) threads (producer_warps may be NULL: none). */
tilec_status target_ptxas_occupancy(tilec_ctx *ctx, const char *ptxas, int arch, char **ptx,
				    const char *const *symbols, ir_func *const *funcs, const uint32_t *shared,
				    const int *producer_warps, int n, uint8_t **cubin, size_t *size, strbuf *log);

/* What ptxas -v reports on one kernel for one arch; compile_result lists
 * one per (kernel, cubin arch). */
typedef struct compile_kernel_info {
	const char *symbol;
	int arch;                /* one entry per (kernel, cubin arch) */
	int n_regs;
	bool spills_known;       /* ptxas reported on the entry */
	uint32_t spill_stores, spill_loads; /* bytes per thread */
	uint32_t shared_static, shared_dynamic;
	int producer_warps;      /* warps the block runs beyond num_warps on this arch (lower_result) */
} compile_kernel_info;

/* (target.c) Registers, spill stores and loads (bytes) and static shared
 * bytes of one entry from ptxas -v output; false when the entry is not
 * mentioned. */
bool target_ptxas_info(const char *log, const char *symbol, compile_kernel_info *info);

#endif
