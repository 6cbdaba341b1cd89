/* sema.h - the internals of specialization: one module in several files.
 *
 * sema.c (the fe_* API, signature, statements, control flow, inlining),
 * sema_expr.c (values, promotion, broadcasting, operators),
 * sema_call.c (tl.*, libdevice.*, methods, builtins), sema_atomic.c
 * (tl.atomic_*), sema_random.c (random.py's functions), sema_scan.c
 * (scans, tl.reduce and their combine regions), sema_desc.c (tensor
 * descriptors), sema_blockptr.c (block pointers) and sema_host.c (what
 * host code binds: a factory's names, plain functions, --bind) call each other
 * freely: an expression contains calls, a call inlines a helper's
 * statements, a statement evaluates expressions. This header is their
 * shared interface, the one place the module's types and cross-file
 * functions are declared; nothing outside front/ includes it.
 */
#ifndef TILE_FRONT_SEMA_H
#define TILE_FRONT_SEMA_H

#include "front/front.h"
#include "front/syntax.h"

/* A value during specialization: a constexpr (NONE .. DTYPE, folded with
 * Python semantics), a tensor (an IR value), a tuple, or something that
 * can be called or have attributes taken. */
typedef enum sv_kind {
	SV_UNDEF, SV_NONE, SV_BOOL, SV_INT, SV_FLOAT, SV_STR, SV_DTYPE,
	SV_TENSOR, SV_TUPLE, SV_MODULE, SV_FUNC, SV_BUILTIN, SV_METHOD, SV_SLICE,
	SV_ARGS, /* a heuristic's `args`: args['NAME'] reads a constexpr parameter */
	SV_DESC, /* a tensor descriptor (sema_desc.c): t is the block type, items[0] the base
		    pointer, items[1..rank] the shape (i32), items[rank+1..2*rank] the strides
		    (i64; the last one the constexpr 1), n = 1 + 2 * rank, i the padding (1: nan) */
	SV_BLOCKPTR /* a block pointer (sema_blockptr.c): t is the block type, items are scalar
		       tensors: [0] the base pointer, [1..rank] the shape (i64), [rank+1..2*rank]
		       the strides (i64), [2*rank+1..3*rank] the offsets (i32); n = 1 + 3 * rank */
} sv_kind;

typedef struct sv {
	sv_kind kind;
	int id;            /* TENSOR: value id */
	int64_t i;         /* BOOL, INT */
	double f;          /* FLOAT */
	const char *s;     /* STR (slen bytes), MODULE: dotted path, BUILTIN: canonical
	                      name ("tl.load", "libdevice.tanh", "min"), METHOD: name */
	size_t slen;
	ir_type t;         /* DTYPE: the element type (rank 0) */
	int n;             /* TUPLE: items; METHOD: items[0] is self */
	struct sv *items;
	ast_func *fn;      /* FUNC */
} sv;

typedef struct sema_var {
	const char *name;
	sv val;
} sema_var;

typedef struct sema_scope {
	int n, cap;
	sema_var *vars;
} sema_scope;

struct fe_module {
	arena *a;
	const src_file *file;
	ast_module *ast;
};

typedef struct sema {
	tilec_ctx *ctx;
	arena *a;
	const fe_module *m;
	ir_func *f;
	ir_region *cur;      /* where ops go */
	sema_scope *scope;   /* the current function's variables */
	int depth;           /* helper inlining depth */
	int loops;           /* runtime for/while nesting in the current function */
	bool returned;       /* the current function has executed `return` */
	sv ret;              /* and returned this */
	int global_depth;    /* nesting of module-global evaluation: no ops may be emitted */
	const char *const *args_names; /* SV_ARGS: parameter names and their values */
	const sv *args_vals;
	int nargs_vals;
	const ast_func *args_fn;       /* whose parameters they are */
	bool debug;          /* fe_spec.debug: device asserts and prints are emitted */
	const fe_module *root;           /* the kernel's module (m: the current function's) */
	const fe_module *mods[32];       /* modules imported from other files (sema_import.c) */
	int nmods;
	const char *const *include_dirs; /* fe_spec.include_dirs */
	int ninclude_dirs;
	bool tensormaps;     /* fe_spec.tensormaps: descriptors TMA can copy get maps */
	ir_derived_map *maps; /* device-side descriptors' maps the launch builds (sema_desc.c); */
	int nmaps, capmaps;  /* their params are appended when the body is done */
	const ast_func *encl; /* the innermost def whose names the current code sees after its
				 own (a factory around a nested kernel); NULL: the module's */
	bool host;           /* evaluating host code (a module's globals, a factory's names, a
				plain function): plain functions may be called */
	const ast_func *host_fn; /* the plain function being run at compile time, or NULL */
	const fe_define *binds; /* fe_spec.binds, and their values */
	const sv *bind_vals;
	int nbinds;
	const ast_node *tries[8]; /* module-level try statements being evaluated (sema_host.c) */
	int ntries;
	int host_calls;      /* plain functions run so far (a bound on compile time) */
	tilec_status status; /* of the first error */
} sema;

/* sema_desc.c: the derived maps' parameters, appended to the finished
 * kernel (their loads and stores name them by placeholder until then) */
bool sema_desc_append_maps(sema *s);
/* sema.c */
bool sema_error(sema *s, src_loc loc, tilec_status st, const char *fmt, ...) TILE_PRINTF(4, 5);
bool sema_lookup(sema *s, src_loc loc, const char *name, sv *out);
/* A name bound by a list of imports (a module's, a def's), grouped as
 * ast_import says: the last binding, or, inside a compound statement, the
 * first of that statement's that resolves. false: none binds it. */
bool sema_import_binding(sema *s, src_loc loc, const ast_import *imps, int n, const char *name, sv *out, bool *ok);
/* Whether an import names something tile knows, without a diagnostic */
bool sema_import_resolves(sema *s, src_loc loc, const ast_import *imp);
/* A Python literal as -D takes it (numbers, strings, True, None, dtypes) */
bool sema_parse_literal(arena *a, const char *text, size_t len, sv *out);
bool sema_set_var(sema *s, src_loc loc, const char *name, sv v);
/* A module-level assignment's value, evaluated as host code in its module */
bool sema_global_value(sema *s, src_loc loc, const ast_global *g, sv *out);
bool sema_host_value(sema *s, const ast_func *encl, ast_node *value, sv *out);
bool sema_assign(sema *s, ast_node *target, sv v); /* to names and tuples of them, as it is */
/* Diagnostics of what runs between begin and end are dropped (trial
 * evaluations); end restores the status. */
typedef struct sema_quiet {
	tilec_ctx ctx, *saved;
	tilec_status status;
} sema_quiet;
void sema_quiet_begin(sema *s, sema_quiet *q);
void sema_quiet_end(sema *s, sema_quiet *q);
bool sema_inline(sema *s, src_loc loc, ast_func *fn, int nargs, const sv *args,
		 int nkw, const char *const *kwnames, const sv *kwargs, sv *out);
/* sema_expr.c */
bool sema_expr(sema *s, ast_node *n, sv *out);
bool sema_binop(sema *s, src_loc loc, ast_op op, sv a, sv b, sv *out);
bool sema_unop(sema *s, src_loc loc, ast_op op, sv a, sv *out);
bool sema_truth(sema *s, src_loc loc, sv v, bool *out); /* a constexpr's truth value */
bool sema_is_const(sv v);                               /* NONE .. DTYPE */
bool sema_is_num(sv v);                                 /* BOOL, INT, FLOAT */
sv sema_tensor(int id);
sv sema_int(int64_t i);
sv sema_bool(bool b);
sv sema_float(double f);
ir_type sema_type(const sema *s, int id);
const char *sema_type_str(sema *s, ir_type t);
const char *sema_sv_str(sema *s, sv v);                 /* for messages */
ir_op *sema_emit(sema *s, src_loc loc, ir_opcode code, int nargs, const int *args, ir_type rt);
/* sema_emit of an op with nresults results of types rts */
ir_op *sema_emit_n(sema *s, src_loc loc, ir_opcode code, int nargs, const int *args, int nresults, const ir_type *rts);
int sema_const(sema *s, src_loc loc, ir_type t, int64_t ival, double fval);
int sema_number(sema *s, src_loc loc, sv v, ir_type t); /* a number as a CONST of type t */
int sema_to_tensor(sema *s, src_loc loc, sv v);         /* -1 after an error */
int sema_cast(sema *s, src_loc loc, int id, ir_type elem);
int sema_bitcast(sema *s, src_loc loc, int id, ir_type elem);
int sema_splat_to(sema *s, src_loc loc, int id, ir_type shape); /* broadcast to shape's shape */
bool sema_broadcast(sema *s, src_loc loc, int *a, int *b);
bool sema_typecheck(sema *s, src_loc loc, const char *what, sv a, sv b, bool lptr, bool rptr,
		    bool arith, bool divmod, int *ia, int *ib);
int sema_expand_dims(sema *s, src_loc loc, int id, int axis);
bool sema_check_shape(sema *s, src_loc loc, int rank, const int64_t *shape);
/* sema_scan.c: scans; dtype NULL when not given */
bool sema_associative_scan(sema *s, src_loc loc, sv input, int axis, sv combine, bool reverse, sv *out);
bool sema_cumulative(sema *s, src_loc loc, int x, int axis, bool reverse, bool prod, const ir_type *dtype, sv *out);
/* tl.reduce over ids[0..k) along axis (in range or not: checked); a tuple in
 * *out when `tuple` or k > 1 */
bool sema_reduce(sema *s, src_loc loc, int k, const int *ids, int axis, sv combine, bool tuple, sv *out);
/* sema_call.c */
bool sema_call(sema *s, ast_node *call, sv fn, sv *out);
bool sema_is_libdevice(const char *name); /* a libdevice function tile has */
bool sema_attr(sema *s, src_loc loc, sv v, const char *name, sv *out);
bool sema_module_attr(sema *s, src_loc loc, const char *path, const char *name, sv *out);
/* Calls builtin `name` ("tl.maximum") with positional arguments, as if a
 * kernel had written the call at loc. */
bool sema_builtin(sema *s, src_loc loc, const char *name, int npos, const sv *pos, sv *out);
/* sema_atomic.c: tl.atomic_<op> (which: an ir_atomic, or -1 for
 * atomic_cas) with args bound to Triton's parameters (pointer, val, mask,
 * sem, scope) or (pointer, cmp, val, sem, scope), unbound ones NONE */
bool sema_atomic(sema *s, src_loc loc, const char *name, int which, const sv *args, sv *out);
bool sema_debug_barrier(sema *s, src_loc loc, sv *out);
/* sema_random.c: random.py's functions and tl.umulhi, args bound to
 * Triton's parameters */
enum {
	SEMA_RANDOM_RANDINT, SEMA_RANDOM_RANDINT4X, SEMA_RANDOM_RAND, SEMA_RANDOM_RAND4X, SEMA_RANDOM_RANDN,
	SEMA_RANDOM_RANDN4X, SEMA_RANDOM_PHILOX, SEMA_RANDOM_PHILOX_IMPL, SEMA_RANDOM_UNIFORM,
	SEMA_RANDOM_PAIR_NORMAL, SEMA_RANDOM_UMULHI
};
bool sema_random(sema *s, src_loc loc, const char *name, int which, const sv *args, sv *out);
/* sema_desc.c: tensor descriptors, expanded into pointer arithmetic and
 * masked loads and stores. sema_desc_make is tl.make_tensor_descriptor
 * with args bound to (base, shape, strides, block_shape, padding_option);
 * sema_desc_param builds the descriptor of a host-side descriptor
 * parameter from its IR parameters (first: the base's index); load and
 * store take the offsets as a tuple. */
bool sema_desc_make(sema *s, src_loc loc, const sv *args, sv *out);
bool sema_desc_param(sema *s, src_loc loc, int first, sv *out);
bool sema_desc_load(sema *s, src_loc loc, sv desc, sv offsets, sv *out);
bool sema_desc_store(sema *s, src_loc loc, sv desc, sv offsets, sv value, sv *out);
/* One dim k (of rank r) of a block's addresses, which descriptors and block
 * pointers share: idx = offset + tl.arange(0, size), expanded to rank r;
 * *p += i64(idx) * stride (stride SV_NONE: 1); with check, *m &= 0 <= idx
 * < shape (*m SV_NONE before the first checked dim). */
bool sema_block_dim(sema *s, src_loc loc, int k, int r, int32_t size, sv offset, sv shape, sv stride, bool check, sv *p,
		    sv *m);
bool sema_desc_attr(sema *s, src_loc loc, sv desc, const char *name, sv *out);
/* sema_import.c: modules of the user's source tree. is_user_module: a
 * dotted path (or "@file") that is not Triton's or math; user_attr: NAME
 * of that module (a helper, a submodule, a constant); user_module: the
 * module itself (`import mypkg.ops as ops`); module_of: the module a @jit
 * function belongs to */
bool sema_is_user_module(const char *path);
bool sema_user_attr(sema *s, src_loc loc, const char *path, const char *name, sv *out);
bool sema_user_module(sema *s, src_loc loc, const char *path, sv *out);
const fe_module *sema_module_of(const sema *s, const ast_func *fn);
/* sema_host.c: what host code binds, as far as it can be known without
 * running it. encl_lookup: `name` in the defs around the current code
 * (s->encl outward); false after an error, *found false when none binds
 * it (or one declares it global). host_call: a plain function run at
 * compile time on compile-time arguments. bind_values: fe_spec.binds'
 * values (diagnostics for bad ones); bound: `name` of module s->m given
 * by --bind. try_global: module global g (bound inside module-level
 * `try` statement try_) as Python on Triton 3.6 would bind it, or an error naming the
 * host code; *outer: the try binds it only in clauses that do not run, so
 * an earlier binding outside the try holds. host_code_error: a global
 * host code computes, with the --bind that gives it. */
bool sema_encl_lookup(sema *s, src_loc loc, const char *name, sv *out, bool *found);
bool sema_host_call(sema *s, src_loc loc, ast_func *fn, int npos, const sv *pos, int nkw, const char *const *kwnames,
		    const sv *kwargs, sv *out);
bool sema_bind_values(sema *s);
bool sema_bound(sema *s, const char *name, sv *out);
bool sema_try_global(sema *s, src_loc loc, const ast_node *try_, const ast_global *g, sv *out, bool *outer);
bool sema_host_code_error(sema *s, src_loc loc, const char *name, const char *why);
/* sema_debug.c: device assertions and prints (emitted in debug mode
 * only), static_print (a note) */
bool sema_device_assert(sema *s, src_loc loc, sv cond, sv msg);
bool sema_device_print(sema *s, src_loc loc, sv prefix, int n, const sv *args, bool hex);
bool sema_static_print(sema *s, src_loc loc, int n, const sv *args, sv sep);
/* sema_sort.c: tl.sort and tl.topk (dim: None or the last dim; k a
 * constexpr), Triton's bitonic network over FLIP ops */
bool sema_sort(sema *s, src_loc loc, sv x, sv dim, bool descending, sv *out);
bool sema_topk(sema *s, src_loc loc, sv x, sv k, sv dim, sv *out);
/* sema_blockptr.c: block pointers, expanded into pointer arithmetic and
 * masked loads and stores. make takes args bound to (base, shape, strides,
 * offsets, block_shape, order); load and store refuse mask/other
 * (mask_given) as Triton does. */
bool sema_bptr_make(sema *s, src_loc loc, const sv *args, sv *out);
bool sema_bptr_advance(sema *s, src_loc loc, sv bp, sv offsets, sv *out);
bool sema_bptr_load(sema *s, src_loc loc, sv bp, bool mask_given, sv boundary_check, sv padding, sv *out);
bool sema_bptr_store(sema *s, src_loc loc, sv bp, sv value, bool mask_given, sv boundary_check, sv *out);

#endif
