/* pack.h - packaging: what compiled kernels become on disk.
 *
 * The blob writer (blob.c: docs/FORMAT.md byte for byte, and what cubins
 * say about themselves), the generated BASE.c/BASE.h pair that carries a
 * blob and typed launch functions (emit.c), and grid expressions compiled
 * to the grid programs the loader runs (gridexpr.c). It knows kernels only
 * as descriptions (names, parameters, variants, images): it takes nothing
 * from the front end or the target, only the IR's kinds and constexprs, so
 * `tilec pack` packs kernels compiled elsewhere through the same code.
 * The loader (loader/, tile.h) is its reader and checks the same rules.
 */
#ifndef TILE_PACK_H
#define TILE_PACK_H

#include "ir/ir.h"

/* ======================================================================
 * blob.c / emit.c / gridexpr.c - the blob writer (docs/FORMAT.md), the
 * generated .c/.h pair, grid expressions compiled to grid programs
 *
 * A blob_desc describes kernels, their parameters and variants, and the
 * images (cubin, PTX) of each group (module); blob_write turns it into the
 * bytes of FORMAT.md, emit_c into BASE.c/BASE.h. Constexprs reuse
 * ir_constexpr: its kind numbering is FORMAT.md's.
 * ====================================================================== */

enum { BLOB_PARAM_PTR = 0, BLOB_PARAM_INT = 1, BLOB_PARAM_UINT = 2, BLOB_PARAM_FLOAT = 3,
       BLOB_PARAM_TENSORMAP = 4 /* 128 bytes: the TMA map of the descriptor before it */ };
enum { BLOB_PARAM_HIDDEN = 1u << 0, BLOB_PARAM_RESET_TO_ZERO = 1u << 1, BLOB_PARAM_RESTORE_VALUE = 1u << 2 };
enum { BLOB_IMAGE_CUBIN = 0, BLOB_IMAGE_PTX = 1 };
enum { BLOB_IMAGE_ARCH_SPECIFIC = 1u << 0, /* sm_90a */
       BLOB_IMAGE_TENSORMAPS = 1u << 1, /* reads its tensor-map parameters: the loader encodes them */
       BLOB_IMAGE_PRODUCER = 1u << 2 /* variants' producer warps run here (nvptx/warpspec.c) */ };
#define BLOB_MAX_PARAMS IR_MAX_PARAMS
#define BLOB_MAX_TENSORMAPS IR_MAX_TENSORMAPS
#define BLOB_VERSION 6             /* FORMAT.md's version field: the newest the writer writes */
#define BLOB_VERSION_NO_PREDS 5    /* what it writes for a blob with no predicate on a parameter from 32 on */
#define BLOB_MAX_KEYS 8            /* autotune key parameters a tuning table dispatches on */
#define BLOB_MAX_SPILL (512u << 10) /* bytes: a thread's local memory */
#define GRIDEXPR_MAX_CODE 256 /* bytes; larger programs are refused */
#define GRIDEXPR_MAX_VALUES 9 /* a recipe's: 5 shapes, 4 strides */

typedef struct blob_param {
	const char *name;
	uint8_t kind;  /* BLOB_PARAM_* */
	uint8_t size;  /* bytes: pointer 8 */
	uint8_t dtype; /* ir_kind of the scalar, or of the pointee */
	uint8_t flags; /* BLOB_PARAM_HIDDEN: trailing, never passed by the caller;
	                  BLOB_PARAM_RESET_TO_ZERO / _RESTORE_VALUE: autotune's lists (pointers) */
	/* In memory only, for the generated C (the blob records a descriptor's
	 * parameters one by one): on the base pointer of a host-side tensor
	 * descriptor, which is followed by desc_rank i32 shapes and desc_rank
	 * i64 strides (and, where the kernel reads it with TMA, its map: a
	 * BLOB_PARAM_TENSORMAP of the same dtype), the source parameter's name
	 * and the block shape; the launch function takes them all as one
	 * tile_tensordesc. */
	const char *desc_name;
	int desc_rank; /* 0: an ordinary parameter */
	int32_t desc_block[IR_MAX_RANK];
} blob_param;

/* How the loader builds one of a variant's hidden tensor maps at launch
 * (FORMAT.md's recipe): the map of the descriptor with the base pointer
 * argument, the shape and strides the program computes from the
 * arguments, and the block shape. */
typedef struct blob_recipe {
	int param;                      /* the kernel's hidden BLOB_PARAM_TENSORMAP */
	int base;                       /* a visible pointer parameter of the map's dtype */
	int rank;                       /* 1..5 */
	int32_t block[5];
	const uint8_t *code;            /* gridexpr_compile_values, 2 * rank - 1 values */
	size_t size;
} blob_recipe;

typedef struct blob_variant {
	const char *symbol; /* entry point in the images of `group` */
	int group;
	int nconstexprs;
	const ir_constexpr *constexprs;
	int num_warps, num_stages;
	uint32_t shared_static, shared_dynamic;
	uint16_t cluster[3];            /* 0 0 0: none */
	uint16_t n_regs;                /* 0: unknown */
	uint64_t pred_div16, pred_eq1;  /* bit i: visible parameter i (any of the 64) */
	const uint8_t *grid_code;       /* from gridexpr_compile; NULL/0: caller passes the grid */
	size_t grid_size;
	bool spills_known;              /* false: written as unknown */
	uint32_t spill_stores, spill_loads; /* bytes per thread */
	int config;                     /* the kernel's config (0..nconfigs-1) */
	int source_config;              /* its index in the source's autotune list; -1: none */
	int nrecipes;                   /* its hidden tensor maps' recipes, any order */
	const blob_recipe *recipes;
	uint64_t pred_div8, pred_div4;  /* as pred_div16, divisible by 8 and by 4; at most one predicate a parameter */
	int producer_warps;             /* warps launched beyond num_warps on BLOB_IMAGE_PRODUCER images */
} blob_variant;

/* A heuristic evaluated at launch: the int/bool constexpr it computes
 * (every variant of the kernel has it) and its program (gridexpr_compile,
 * one result; constexpr operands index each variant's constexprs). */
typedef struct blob_heuristic {
	const char *name;
	const uint8_t *code;
	size_t size;
} blob_heuristic;
#define BLOB_MAX_HEURISTICS 8

typedef struct blob_kernel {
	const char *name;
	int nparams; /* hidden ones last */
	const blob_param *params;
	int nvariants;
	const blob_variant *variants; /* any order: the writer sorts them */
	/* Autotuning (0 / NULL when the kernel has one config): the configs
	 * compiled, every one with at least one variant; the tuning table's key
	 * (visible integer parameter indices), its entries (nentries rows of
	 * nkeys key values then the config, any order: the writer sorts them
	 * and refuses duplicate keys) and the default config. */
	int nconfigs;
	int nkeys;
	const int *keys;
	int nentries;
	const int64_t *entries;
	int default_config;
	int nheuristics;
	const blob_heuristic *heuristics;
	bool pdl; /* not in the blob: the C gets a NAME_pdl launcher (gdc_wait/gdc_launch_dependents) */
} blob_kernel;

typedef struct blob_image {
	int group;
	int kind;       /* BLOB_IMAGE_* */
	int arch;       /* 80, 87, 90, ... */
	unsigned flags; /* BLOB_IMAGE_ARCH_SPECIFIC */
	const void *data; /* raw bytes; PTX text with or without its NUL (added) */
	size_t size;
} blob_image;

typedef struct blob_desc {
	int nkernels;
	const blob_kernel *kernels;
	int nimages;
	const blob_image *images;
	int ngroups;
} blob_desc;

/* The parameter for a dtype: a pointer to `kind` when `pointer`, else a
 * scalar of that kind. */
blob_param blob_param_make(const char *name, ir_kind kind, bool pointer);
/* Parses one Triton signature type, "*fp16" or "i32" (no ":16" hint);
 * false when it is not one. The name is left NULL. */
bool blob_param_parse(const char *s, size_t len, blob_param *out);
/* Validates the description (unique non-empty kernel names, at most 64
 * parameters, hidden ones last, groups with images, grid programs) with
 * diagnostics, then writes the blob to a malloc'd buffer (*out, the
 * caller frees). Same input, same bytes. The blob is of version
 * BLOB_VERSION_NO_PREDS unless a predicate is on a parameter from 32 on,
 * so that older loaders read every blob that does not need version 6. */
tilec_status blob_write(tilec_ctx *ctx, const blob_desc *d, uint8_t **out, size_t *out_size);

/* What a cubin says about itself. Kernel names point into the cubin. */
typedef struct blob_cubin_kernel {
	const char *name;       /* from its ".text.NAME" section */
	uint16_t n_regs;        /* registers per thread */
	uint32_t shared_static; /* bytes of ".nv.shared.NAME" */
} blob_cubin_kernel;

typedef struct blob_cubin {
	int arch; /* 80, 90, ... */
	int nkernels;
	blob_cubin_kernel kernels[64];
} blob_cubin;

/* Reads a cubin's ELF header and section table (bounds-checked): the arch
 * (e_flags bits 0..7 up to ELF ABI version 7, bits 8..15 from version 8),
 * and per kernel the registers (the top byte of its text section's
 * sh_info) and static shared memory. TILEC_ERR_FORMAT with a diagnostic
 * naming `path` when it is not a cubin. */
tilec_status blob_cubin_read(tilec_ctx *ctx, const char *path, const void *data, size_t size, blob_cubin *out);

/* The C type of a parameter in generated launch functions:
 * tile_deviceptr, int32_t, uint64_t, float, double; uint16_t holds fp16
 * and bf16 bit patterns, uint8_t an i1. */
const char *emit_c_type(const blob_param *p);
/* Writes base_path.c and base_path.h: the blob (from blob_write, of d) as
 * an aligned array, `tile_status NAME_load(void)`, `void NAME_unload(void)`,
 * `tile_status NAME_module(tile_module **)`, and one launch function per
 * kernel named after it: `tile_status KERNEL(tile_stream stream,
 * [uint32_t grid_x, grid_y, grid_z when a variant has no grid program,]
 * visible params...)`. `name` must be a C identifier. */
tilec_status emit_c(tilec_ctx *ctx, const blob_desc *d, const uint8_t *blob, size_t size,
		    const char *base_path, const char *name);
/* Writes n files all or nothing: each goes to a temporary file first and is
 * renamed into place once all were written. */
tilec_status emit_write_files(tilec_ctx *ctx, int n, const char *const *paths,
			      const void *const *data, const size_t *sizes);

/* A tuning file (tuning.c; docs/TUNING.md), as read: per kernel its name,
 * the identity of the kernel it was tuned on (tile_kernel_identity of
 * tile.h: the caller compares it with the blob's), config count, key
 * parameter names, entries (nentries rows of nkeys values then a config,
 * in file order) and default config. */
typedef struct tuning_kernel {
	const char *name;
	uint64_t identity;
	src_loc identity_loc; /* its identity field */
	int nconfigs, default_config;
	int nkeys;
	const char *keys[BLOB_MAX_KEYS];
	int nentries;
	int64_t *entries;
	src_loc loc; /* its kernel line */
} tuning_kernel;

typedef struct tuning_file {
	int nkernels;
	tuning_kernel *kernels;
} tuning_file;

/* Reads and parses a tuning file; diagnostics at file:line:col. */
tilec_status tuning_read(tilec_ctx *ctx, arena *a, const char *path, tuning_file *out);

/* Compiles a grid expression: one to three comma-separated integer
 * expressions over literals, visible integer parameter names, int/bool
 * constexpr names, + - * // % unary -, parentheses, cdiv/min/max (also
 * spelled triton.cdiv, tl.cdiv), comparisons, and/or/not,
 * next_power_of_2; float literals and visible fp16/bf16/fp32/fp64
 * parameters as operands of comparisons only. Errors quote the expression
 * with a caret, under the file name `where` ("-g"). Writes at most `cap`
 * bytes. */
tilec_status gridexpr_compile(tilec_ctx *ctx, const char *where, const char *expr,
			      int nparams, const blob_param *params,
			      int nconstexprs, const ir_constexpr *constexprs,
			      uint8_t *out, size_t cap, size_t *len);
/* The same for a program of exactly nvalues values (a tensor-map recipe's
 * shape and strides: up to GRIDEXPR_MAX_VALUES). */
tilec_status gridexpr_compile_values(tilec_ctx *ctx, const char *where, const char *expr, int nvalues, int nparams,
				     const blob_param *params, int nconstexprs, const ir_constexpr *constexprs, uint8_t *out,
				     size_t cap, size_t *len);
/* Checks a grid program as the loader does: opcodes, operands inside the
 * program, parameter indices naming visible integer (or, pushed as
 * floats, readable float) parameters, constexpr indices naming int/bool
 * constexprs, floats read by float comparisons only, stack depth at most
 * 16, exactly ndims integer values at the end. NULL when valid, else what
 * is wrong. */
const char *gridexpr_validate(const uint8_t *code, size_t size, int nparams, const blob_param *params,
			      int nconstexprs, const ir_constexpr *constexprs);
const char *gridexpr_validate_values(const uint8_t *code, size_t size, int nvalues, int nparams, const blob_param *params,
				     int nconstexprs, const ir_constexpr *constexprs);
/* Renders a grid program back as an expression ("cdiv(n, 1024), 1");
 * names may be NULL (then p0.., c0..). False, with "<invalid ...>"
 * appended, when the program is malformed. */
bool gridexpr_format(strbuf *sb, const uint8_t *code, size_t size,
		     int nparams, const char *const *param_names,
		     int nconstexprs, const char *const *constexpr_names);

#endif
