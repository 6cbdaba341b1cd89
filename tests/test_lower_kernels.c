/* test_lower_kernels.c - every kernel of the front-end suite through the
 * whole GPU pipeline: specialize, lower, O3, PTX for sm_80 and sm_90,
 * ptxas when installed. Kernels the back end does not support yet must be
 * refused with a located diagnostic. Also checks the PTX of the kernels
 * that matter for speed: warp shuffles in row reductions, 16-byte
 * accesses, libdevice inlined. */
#include "check.h"
#include "compile.h"
#include "front/front.h"

#include <stdlib.h>

#define KDIR "tests/kernels/"

typedef struct kcase {
	const char *file, *kernel, *signature;
	int num_warps;
	const char *unsupported; /* NULL: must compile; else the expected message fragment */
	const char *ptx_has, *ptx_lacks; /* in the sm_80 PTX */
} kcase;

static const kcase cases[] = {
	{KDIR "vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", 4, NULL, "st.global.v4.b32", "ld.global.b32"},
	{KDIR "vector_add.py", "add_kernel", "*fp32, *fp32, *fp32, i32, 1024", 4, NULL, "ld.global.b32", "ld.global.v4"},
	/* dropout's load, moved down to its user, sets its registers first */
	{KDIR "random.py", "seeded_dropout", "*fp32:16, *fp32:16, i32, fp32, i32, 1024", 4, NULL, "0; @%p", NULL},
	{KDIR "seeds/add_sin_cos.py", "sin_kernel", "*fp32:16, *fp32:16, i32:16, 1024", 4, NULL, "ld.global.v4.b32", ".extern .func"},
	{KDIR "seeds/add_sin_cos.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024", 4, NULL, NULL, NULL},
	{KDIR "seeds/silu.py", "triton_silu_kernel", "*bf16:16, *bf16:16, i32:16, 1024", 4, NULL, NULL, NULL},
	{KDIR "silu_bf16.py", "silu_bf16_kernel", "*bf16:16, *bf16:16, i32:16, 1024", 4, NULL, NULL, NULL},
	{KDIR "trig.py", "sincos_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 256", 4, NULL, NULL, NULL},
	{KDIR "trig.py", "rotate_kernel", "*fp32:16, *fp32:16, fp32, i32, 128", 4, NULL, NULL, NULL},
	{KDIR "masked_copy.py", "padded_copy_kernel", "*fp32:16, *fp32:16, i32, fp32, 64", 4, NULL, NULL, NULL},
	{KDIR "masked_copy.py", "shift_kernel", "*i32:16, *i32:16, i32, i32, 32", 4, NULL, NULL, NULL},
	{KDIR "tile2d.py", "scale_2d_kernel", "*fp32:16, *fp32:16, i32, i32, i32, i32:1, i32:1, i32, fp32, fp32, 16, 32", 4, NULL, NULL, NULL},
	{KDIR "tile2d.py", "transpose_kernel", "*fp32:16, *fp32:16, i32, i32, 16", 4, NULL, NULL, NULL},
	{KDIR "int_ops.py", "divmod_kernel", "*i32:16, *i32:16, *i32:16, *i32:16, i32, 128", 4, NULL, NULL, NULL},
	{KDIR "int_ops.py", "index_math_kernel", "*i32:16, i32, 7, 64", 4, NULL, NULL, NULL},
	{KDIR "int_ops.py", "lcg_hash_kernel", "*i32:16, *u32:16, i32, 128", 4, NULL, NULL, NULL},
	{KDIR "casts.py", "cast_chain_kernel", "*fp32:16, *fp16:16, *bf16:16, *i32:16, *fp32:16, i32, 64", 4, NULL, NULL, NULL},
	{KDIR "casts.py", "axpy_fp16_kernel", "*fp16:16, *fp16:16, fp32, i32, 128", 4, NULL, NULL, NULL},
	{KDIR "casts.py", "sum_fp16_kernel", "*fp16:16, *fp32, i32, 1024", 4, NULL, NULL, NULL},
	{KDIR "elementwise.py", "clamp_kernel", "*fp32:16, *fp32:16, fp32, fp32, i32, 128", 4, NULL, NULL, NULL},
	{KDIR "elementwise.py", "math_kernel", "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, 256", 4, NULL, "ex2.approx.f32", ".extern"},
	{KDIR "elementwise.py", "swish_int_mix_kernel", "*fp32:16, *i32:16, *fp32:16, i32, 128", 4, NULL, NULL, NULL},
	{KDIR "constexpr_branch.py", "activation_kernel", "*fp32:16, *fp32:16, i32, fp32, 0, False, 256", 4, NULL, NULL, NULL},
	{KDIR "softmax.py", "softmax_kernel", "*fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 1024", 4, NULL, "shfl.sync.bfly", NULL},
	{KDIR "softmax.py", "softmax_kernel", "*fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 4096", 16, NULL, "ld.global.v4.b32", NULL},
	{KDIR "softmax.py", "softmax_kernel", "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024", 4, NULL, "bar.sync", NULL},
	{KDIR "layernorm.py", "_layer_norm_fwd", "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, fp32, 1024", 8, NULL, "fma.rn.f32", "add.rn.f32"},
	{KDIR "reductions.py", "col_sum_kernel", "*fp32:16, *fp32:16, i32, i32, i32, 32, 16", 4, NULL, NULL, NULL},
	{KDIR "reductions.py", "row_center_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, i32, 4, 32", 4, NULL, NULL, NULL},
	{KDIR "reductions.py", "min_max_kernel", "*i32:16, *i32:16, i32, 128", 4, NULL, NULL, NULL},
	{KDIR "argmax.py", "row_argmax_kernel", "*fp32:16, *i32:16, *fp32:16, i32, i32, 64", 4, NULL, "shfl.sync.bfly", NULL},
	{KDIR "argmax.py", "col_argmin_kernel", "*i32:16, *i32:16, i32, i32, 16, 16", 4, NULL, NULL, NULL},
	{KDIR "loops.py", "row_sum_loop_kernel", "*fp32:16, *fp32:16, i32, i32, 128", 4, NULL, NULL, NULL},
	{KDIR "loops.py", "grid_stride_kernel", "*fp32:16, *fp32:16, i32, 256", 4, NULL, NULL, NULL},
	{KDIR "loops.py", "poly_kernel", "*fp32:16, *fp32:16, i32, 5, 128", 4, NULL, NULL, NULL},
	{KDIR "loops.py", "halvings_kernel", "*i32, *i32", 4, NULL, NULL, NULL},
	{KDIR "runtime_if.py", "sign_scale_kernel", "*fp32:16, *fp32:16, i32:16, i32, 1024", 4, NULL, "ld.global.v4.b32", NULL},
	{KDIR "runtime_if.py", "block_sums_kernel", "*fp32:16, *fp32:16, *i32, i32, 1024", 4, NULL, "shfl.sync.bfly", NULL},
	{KDIR "lang.py", "xent_kernel", "*fp32:16, *i32:16, *fp32:16, i32, i32, 1024", 4, NULL, "shfl.sync.bfly", NULL},
	{KDIR "lang.py", "early_helpers_kernel", "*fp32:16, *i32:16, *fp32:16, *fp32:16, i32, 1024", 4, NULL, NULL, NULL},
	{KDIR "lang.py", "nested_return_kernel", "*fp32:16, *fp32:16, i32, 256", 4, NULL, NULL, NULL},
	{KDIR "lang.py", "branch_temps_kernel", "*fp32:16, *fp32:16, i32, 256", 4, NULL, NULL, NULL},
	{KDIR "lang.py", "dtype_call_kernel", "*fp32:16, *fp32:16, i32, 256", 4, NULL, NULL, NULL},
	{KDIR "lang.py", "cumsum_kernel", "*fp32:16, *fp32:16, i32, 1024, False", 4, NULL, "shfl.sync.up", NULL},
	{KDIR "lang.py", "cumsum_kernel", "*fp32:16, *fp32:16, i32, 1024, True", 4, NULL, "shfl.sync.down", NULL},
	{KDIR "lang.py", "scan_2d_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, i32, 64, 32, 0", 4, NULL, "bar.sync", NULL},
	{KDIR "lang.py", "scan_2d_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, i32, 8, 16, 1", 4, NULL, NULL, NULL},
	{KDIR "lang.py", "recurrence_kernel", "*i32:16, *i32:16, *i32:16, *i32:16, *i32:16, i32, 1024", 8, NULL, "st.shared", NULL},
	{KDIR "lang.py", "cumsum_int8_kernel", "*i8:16, *i32:16, 64", 1, NULL, NULL, NULL},
	/* tl.reduce: lanes by butterflies; rows of 512 over 8 warps through shared memory */
	{KDIR "lang.py", "reduce_fn_kernel", "*i32:16, *i32:16, *i32:16, *i32:16, *i32:16, i32, i32, 8, 32", 4, NULL, "shfl.sync.bfly", NULL},
	{KDIR "lang.py", "reduce_fn_kernel", "*i32:16, *i32:16, *i32:16, *i32:16, *i32:16, i32, i32, 2, 512", 8, NULL, "st.shared", NULL},
	/* sort and topk: compare-and-swap partners across warps through
	 * shared memory, within a warp by shuffles */
	{KDIR "lang.py", "sort_kernel", "*fp32:16, *fp32:16, *fp32:16, *fp32:16, 4, 64, 8", 4, NULL, "bar.sync", NULL},
	{KDIR "lang.py", "sort_kernel", "*fp32:16, *fp32:16, *fp32:16, *fp32:16, 1, 1024, 16", 4, NULL, "shfl.sync.bfly", NULL},
	/* gather through shared memory; histogram bins counted by shared-memory atomics */
	{KDIR "lang.py", "gather_hist_kernel", "*fp32:16, *i32:16, *fp32:16, *fp32:16, *i32:16, *i32:16, i32, 32, 32", 4, NULL, "shared.add", NULL},
	/* inline assembly: the documented example (bytes packed 4 to a register) and f16x2 pairs */
	{KDIR "lang.py", "inline_asm_kernel", "*u8:16, *fp32:16, *i32:16, *fp32:16, *fp16:16, 1024", 4, NULL, "add.f16x2", NULL},
	/* pointer operands pass their addresses (was an invalid bitcast) */
	{KDIR "lang.py", "inline_asm_ptr_kernel", "*i32:16, *i32:16, i32, 256", 4, NULL, "prefetch.global.L2 [%rd", NULL},
	{KDIR "lang.py", "cuda_helpers_kernel", "*i32:16", 4, NULL, "%globaltimer", NULL},
	/* block pointers: the K loop's advanced pointers keep their alignment and
	 * strides, so the loads become 16-byte cp.async rings, none left scalar */
	{KDIR "lang.py", "block_ptr_matmul_kernel", "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 64, 64, 32", 4, NULL, "cp.async.cg.shared.global", "ld.global.b16"},
	{KDIR "lang.py", "block_ptr_copy_kernel", "*fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, i32, i32:16, 16, 16, -3, 5", 4, NULL, NULL, NULL},
	{KDIR "lang.py", "block_ptr_while_kernel", "*fp32:16, *fp32:16, i32, 256", 4, NULL, NULL, NULL},
	{KDIR "lang.py", "block_ptr_if_kernel", "*fp32:16, *fp32:16, i32, 256", 4, NULL, NULL, NULL},
	/* a while loop's after region sees the condition's values: the carried stride 1 gives 16-byte loads */
	{KDIR "lang.py", "block_ptr_while_kernel", "*fp32:16, *fp32:16, i32:16, 1024", 4, NULL, "ld.global.v4.b32", "ld.global.b32"},
	/* join, interleave, split, flip, cat: through shared memory */
	{KDIR "lang.py", "shapes_kernel", "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, 64", 1, NULL, "st.shared", NULL},
	{KDIR "lang.py", "shapes_kernel", "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, 1024", 4, NULL, "bar.sync", NULL},
	{KDIR "lang.py", "while_and_or_kernel", "*fp32:16, *fp32:16, i32, fp32", 4, NULL, NULL, NULL},
	{KDIR "lang.py", "umulhi_kernel", "*u32:16, *u32:16, *u32:16, *i32:16, *u64:16, 256", 4, NULL, "mul.hi.u32", NULL},
	{KDIR "helpers.py", "bias_gelu_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, i32, 128", 4, NULL, NULL, NULL},
	{KDIR "helpers.py", "hypot_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 256", 4, NULL, NULL, NULL},
	{KDIR "matmul.py", "matmul_kernel",
	 "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, 32, 32, 32, 4", 4, NULL, "mma.sync", "fma.rn.f32"},
	/* Pointers advanced in the loop keep their 16-byte alignment; % M keeps
	 * runs: 16-byte asynchronous copies, no narrow loads. */
	{KDIR "matmul.py", "matmul_kernel",
	 "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1, 32, 32, 32, 4", 4, NULL,
	 "cp.async.cg.shared.global", "ld.global.b16"},
	/* batched (3-D) dots on tensor cores, each batch index a 2-D mma.sync dot */
	{KDIR "tiles3d.py", "bmm_fp16_kernel", "*fp16:16, *fp16:16, *fp32:16, 4, 16, 16, 32", 4, NULL, "mma.sync", "fma.rn.f32"},
	/* fp32 registers straight into the tf32 mma, as Triton's PTX has it */
	{KDIR "matmul.py", "matmul_fp32_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, 16, 16, 16", 4, NULL,
	 "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "cvt.rna.tf32"},
	/* fp8e5 for sm_80: Triton's integer rounding after a round-toward-zero fp16, no fp8 cvt;
	 * fp8 dots on fp16's mma, their fragments widened in registers */
	{KDIR "fp8.py", "to_fp8_kernel", "*fp32:16, *fp8e5:16, i32:16, 1024", 4, NULL, "cvt.rz.f16.f32", "satfinite"},
	{KDIR "fp8.py", "from_fp8_kernel", "*fp8e5:16, *bf16:16, i32:16, 1024", 4, NULL, NULL, "e5m2"},
	{KDIR "fp8.py", "fp8_bits_kernel", "*fp8e5:16, *u8:16, *fp32:16, i32, tl.float8e5, 128", 4, NULL, NULL, NULL},
	{KDIR "fp8.py", "fp8_matmul_kernel",
	 "*fp8e5:16, *fp8e5:16, *fp16:16, i32, i32, i32, i32, i32:1, i32:1, i32, i32, i32:1, 32, 32, 32", 4, NULL,
	 "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "fma.rn.f32"},
	/* fp8e4nv needs sm_89, as in Triton */
	{KDIR "fp8.py", "to_fp8_kernel", "*fp16:16, *fp8e4nv:16, i32:16, 1024", 4,
	 "fp8e4nv is not supported on CUDA arch < 89, as in Triton: the targets include sm_80", NULL, NULL},
};

static const int archs[2] = {80, 90};

/* Compiles one case; returns the PTX (sm_80) in the arena or NULL. */
static const char *compile_case(tilec_ctx *ctx, arena *a, const kcase *k, tilec_status *st, compile_result *r)
{
	fe_module *m;
	*st = fe_load(ctx, a, k->file, &m);
	if (*st)
		return NULL;
	fe_spec spec = {.kernel = k->kernel, .signature = k->signature, .num_warps = k->num_warps};
	ir_func *f;
	*st = fe_specialize(ctx, a, m, &spec, &f);
	if (*st)
		return NULL;
	/* on threads, as tilec compiles by default */
	compile_options o = {.narchs = 2, .archs = archs, .emit_ptx = true, .ptx_arch = 80, .debug_verify = true, .jobs = 3};
	const char *sym = k->kernel;
	*st = compile_module(ctx, a, &f, &sym, 1, &o, r);
	if (*st)
		return NULL;
	return (const char *)r->images[2].data;
}

int main(void)
{
	bool verbose = getenv("TILE_TEST_VERBOSE") != NULL;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const kcase *k = &cases[i];
		tilec_ctx *ctx = tilec_ctx_new();
		arena *a = arena_new();
		tilec_status st;
		compile_result r;
		const char *ptx = compile_case(ctx, a, k, &st, &r);
		if (k->unsupported) {
			CHECK_MSG(st == TILEC_ERR_UNSUPPORTED, "%s %s: %s", k->file, k->kernel, tilec_diagnostics(ctx));
			CHECK_STR_CONTAINS(tilec_diagnostics(ctx), k->unsupported);
			CHECK_STR_CONTAINS(tilec_diagnostics(ctx), k->file);
		} else {
			CHECK_MSG(st == TILEC_OK, "%s %s [%s]: %s", k->file, k->kernel, k->signature, tilec_diagnostics(ctx));
			if (ptx && k->ptx_has)
				CHECK_STR_CONTAINS(ptx, k->ptx_has);
			if (ptx && k->ptx_lacks)
				CHECK_MSG(!strstr(ptx, k->ptx_lacks), "%s %s: PTX has %s", k->file, k->kernel, k->ptx_lacks);
			if (ptx && !r.ptx_only)
				fprintf(stderr, "%-22s %-22s sm_80 %3d regs %2d spills %5u smem | sm_90 %3d regs\n",
					k->file + sizeof KDIR - 1, k->kernel, r.kernels[0].n_regs, (int)r.kernels[0].spill_stores,
					r.kernels[0].shared_static, r.kernels[1].n_regs);
			if (ptx && verbose)
				fprintf(stderr, "%s\n", ptx);
		}
		arena_free(a);
		tilec_ctx_free(ctx);
	}
	/* A 128x128 fp32 transpose needs 66 KB of shared memory: dynamic. */
	{
		const kcase big = {KDIR "tile2d.py", "transpose_kernel", "*fp32:16, *fp32:16, i32, i32, 128", 8, NULL, NULL, NULL};
		tilec_ctx *ctx = tilec_ctx_new();
		arena *a = arena_new();
		tilec_status st;
		compile_result r;
		const char *ptx = compile_case(ctx, a, &big, &st, &r);
		CHECK_MSG(st == TILEC_OK, "%s", tilec_diagnostics(ctx));
		if (ptx) {
			CHECK_STR_CONTAINS(ptx, ".extern .shared .align 16 .b8 __tile_smem_transpose_kernel[]");
			CHECK(r.kernels[0].shared_dynamic >= 128 * 128 * 4);
			CHECK_EQ_INT(r.kernels[0].shared_static, 0);
		}
		arena_free(a);
		tilec_ctx_free(ctx);
	}
	return check_report("test_lower_kernels");
}
