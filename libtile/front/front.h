/* front.h - the front end as the rest of the compiler sees it: a Python
 * file in, typed tile IR out.
 *
 * fe_load reads and parses a file; the fe_kernel_*, fe_config_* and
 * fe_param_* queries list its kernels, autotune configs and parameters;
 * fe_specialize turns one kernel, a signature and constexpr values into an
 * ir_func. How it does that is private to front/: the lexer, parser and
 * AST in front/syntax.h, the specialization in sema*.c around
 * front/sema.h; only the tests of the lexer and parser look inside.
 */
#ifndef TILE_FRONT_H
#define TILE_FRONT_H

#include "ir/ir.h"

/* ======================================================================
 * sema.c / sema_expr.c / sema_call.c - the front end: specialization of a
 * @jit kernel into typed tile IR
 *
 * fe_load parses a file into an fe_module; fe_specialize takes a kernel,
 * a signature in Triton's AOT syntax over ALL parameters in order
 * ("*fp32:16, *fp32, i32:1, 1024": pointer and scalar types with :16 and :1
 * hints, bare Python literals for constexprs; constexprs may instead come
 * from `defines`, which also override defaults and signature values),
 * num_warps and num_stages, and produces an ir_func: params are the
 * runtime parameters in order (div16/equal_one set from the hints; an :1
 * int is folded as the constant 1 in the body but stays a parameter),
 * constexprs lists every constexpr of the specialization.
 * ====================================================================== */

/* value: a Python literal as text: 1024, 0.5, True, None, "str", 'str',
 * tl.float16 (or float16, triton.language.float16). */
typedef struct fe_define {
	const char *name;
	const char *value;
} fe_define;

typedef struct fe_spec {
	const char *kernel;    /* function name in the file */
	const char *signature; /* Triton AOT syntax over all parameters in order, or over
	                          the runtime ones only (all types; constexprs then come
	                          from `defines`, defaults, heuristics); NULL or "" when
	                          every parameter is a constexpr */
	const fe_define *defines;
	int ndefines;
	int num_warps, num_stages; /* 0: the defaults (4, 3) */
	int num_ctas;              /* CTAs per program (1, 2, 4, 8: a thread block cluster); 0: 1 */
	int maxnreg;               /* registers per thread ptxas may use (.maxnreg); 0: its choice */
	bool debug;                /* keep tl.device_assert/assert and tl.device_print/print
	                              (as TRITON_DEBUG=1); without it they are left out */
	const char *const *include_dirs; /* where `from mypkg.ops import helper` looks after
	                                    the kernel's directory (-I DIR) */
	int ninclude_dirs;
	bool tensormaps;           /* targets with TMA (sm_90 on): a host-side descriptor whose
	                              blocks TMA can copy gets a tensor-map parameter too, and
	                              a device-side one that the launch arguments determine a
	                              hidden one (ir_func.maps) */
	const fe_define *binds;    /* --bind NAME=VALUE: the values of module-level names that
	                              host code computes. NAME may be qualified by its module
	                              (flag_gems.utils.tl_extra_shim: the name in a module whose
	                              file ends in flag_gems/utils.py or flag_gems/utils/__init__.py),
	                              else it binds the name in every module; VALUE is a Python
	                              literal, a dtype, or a Triton module or object by its
	                              dotted path (triton.language.extra.libdevice.rsqrt) */
	int nbinds;
} fe_spec;

typedef struct fe_module fe_module;

/* Reads and parses a file (diagnostics on failure). */
tilec_status fe_load(tilec_ctx *ctx, arena *a, const char *path, fe_module **out);
/* The same from text already in memory (tests). */
tilec_status fe_load_text(tilec_ctx *ctx, arena *a, const char *path, const char *text, fe_module **out);
/* The @jit functions of the file that can be kernels: the module-level
 * ones in source order, then those defined in defs' bodies. */
int fe_kernel_count(const fe_module *m);
const char *fe_kernel_name(const fe_module *m, int i);
/* Autotune configs of a kernel (0 when it has none or the kernel does not
 * exist). fe_config_get fills defines, ndefines, num_warps, num_stages, num_ctas, maxnreg of
 * *spec from config i (the other fields are kept); the defines live in the
 * arena given to fe_load. */
int fe_config_count(const fe_module *m, const char *kernel);
/* @triton.autotune's key: the names (up to max, in the arena given to
 * fe_load) and their number; 0 without autotune or key, -1 when the key is
 * not a literal list of strings. */
int fe_autotune_key(const fe_module *m, const char *kernel, const char **names, int max);
/* Whether @triton.autotune passes the keyword (prune_configs_by, ...),
 * other than None. */
bool fe_autotune_has(const fe_module *m, const char *kernel, const char *kwarg);
/* A @triton.heuristics entry that reads runtime arguments, evaluated at
 * launch: the constexpr it computes, its lambda's body as a grid
 * expression over parameter and constexpr names (comparisons, and, or,
 * not, + - * // %, cdiv, min, max, next_power_of_2, float literals;
 * args["X"] as X), whether it is True/False valued (then both values are
 * compiled). */
typedef struct fe_heuristic {
	const char *name;
	const char *expr; /* NULL when the lambda cannot be evaluated at launch: */
	const char *why;  /* then the diagnostic, at why_loc, that the caller */
	src_loc why_loc;  /* reports unless a single -D value fixes the constexpr */
	bool is_bool;
	src_loc loc;
} fe_heuristic;
/* The kernel's heuristics that read runtime arguments, in order (up to
 * max; -1 after a diagnostic when there are more). Heuristics over
 * constexprs only still fold at specialization. */
int fe_runtime_heuristics(tilec_ctx *ctx, const fe_module *m, const char *kernel, fe_heuristic *out, int max);
tilec_status fe_config_get(tilec_ctx *ctx, const fe_module *m, const char *kernel, int i, fe_spec *spec_inout);
/* Puts defines after the config's in *spec (dropping the config's that
 * defines names again) and num_warps, when non-zero, over the config's;
 * the list is allocated in a. TILEC_ERR_NOMEM when that fails. */
tilec_status fe_config_override(arena *a, fe_spec *spec, const fe_define *defines, int ndefines, int num_warps);
/* The parameter list as written: -1 / NULL / false when out of range. */
int fe_param_count(const fe_module *m, const char *kernel);
const char *fe_param_name(const fe_module *m, const char *kernel, int i);
bool fe_param_is_constexpr(const fe_module *m, const char *kernel, int i);
/* Specializes a kernel into IR allocated in `a`. */
tilec_status fe_specialize(tilec_ctx *ctx, arena *a, const fe_module *m, const fe_spec *spec, ir_func **out);

#endif
