/* internal.h - libtile's one internal header, a section per source file.
 *
 * Names here are module-prefixed (arena_, diag_, ir_, ...) and private to
 * libtile and tilec; the public API is tilec.h. Only the lowering files
 * include llvm-c headers, so nothing LLVM appears here.
 */
#ifndef TILE_INTERNAL_H
#define TILE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tilec.h"

#if defined(__GNUC__)
#define TILE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TILE_PRINTF(f, a)
#endif

/* ======================================================================
 * arena.c - bump allocation per compilation, growable strings
 * ====================================================================== */

typedef struct arena arena;

arena *arena_new(void);
void arena_free(arena *a);
/* Zeroed, 16-byte aligned; NULL when out of memory. */
void *arena_alloc(arena *a, size_t size);
/* Grows a block obtained from this arena (copying); old may be NULL. */
void *arena_realloc(arena *a, void *old, size_t old_size, size_t new_size);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_strdup(arena *a, const char *s);
char *arena_printf(arena *a, const char *fmt, ...) TILE_PRINTF(2, 3);

/* A growable, always NUL-terminated byte buffer on the C heap. A failed
 * allocation sets `failed` and further appends are ignored. */
typedef struct strbuf {
	char *data;
	size_t len, cap;
	bool failed;
} strbuf;

void sb_init(strbuf *sb);
void sb_free(strbuf *sb);
void sb_putn(strbuf *sb, const char *s, size_t n);
void sb_puts(strbuf *sb, const char *s);
void sb_putc(strbuf *sb, char c);
void sb_printf(strbuf *sb, const char *fmt, ...) TILE_PRINTF(2, 3);
void sb_vprintf(strbuf *sb, const char *fmt, va_list ap);
/* The text ("" for an empty buffer); never NULL. */
const char *sb_str(const strbuf *sb);

/* ======================================================================
 * diag.c - source files, locations and diagnostics
 * ====================================================================== */

typedef struct src_file {
	const char *path; /* as given by the user */
	const char *text; /* NUL-terminated */
	size_t len;
} src_file;

/* 1-based line and column; file NULL means "no location". */
typedef struct src_loc {
	const src_file *file;
	int line, col;
} src_loc;

struct tilec_ctx {
	strbuf diags;
	int errors, warnings;
};

/* "path:line:col: error: message", then the source line and a caret. */
void diag_error(tilec_ctx *ctx, src_loc loc, const char *fmt, ...) TILE_PRINTF(3, 4);
void diag_warning(tilec_ctx *ctx, src_loc loc, const char *fmt, ...) TILE_PRINTF(3, 4);
void diag_note(tilec_ctx *ctx, src_loc loc, const char *fmt, ...) TILE_PRINTF(3, 4);
void diag_verror(tilec_ctx *ctx, src_loc loc, const char *kind, const char *fmt, va_list ap);

/* Reads a whole file into an arena; NUL-terminated. Emits a diagnostic and
 * returns TILEC_ERR_IO on failure. */
tilec_status src_read_file(tilec_ctx *ctx, arena *a, const char *path, src_file **out);

typedef enum { FILE_READ_OK, FILE_READ_NO_OPEN, FILE_READ_ERROR, FILE_READ_NOMEM } file_read_status;
/* The whole file at path in *data (malloc'd, NUL-terminated) and *size (the
 * NUL not counted); no diagnostics. After FILE_READ_NO_OPEN errno is
 * fopen's. */
file_read_status file_read(const char *path, uint8_t **data, size_t *size);

/* ======================================================================
 * ir.c - the tile IR: types, values, ops, builder, dump
 *
 * Typed SSA over scalars, pointers and blocks (rank 1..IR_MAX_RANK, power-
 * of-two shapes). Ops live in regions; structured control flow (FOR, IF,
 * WHILE) owns nested regions whose parameters are values and whose last op
 * is a terminator (YIELD, CONDITION). A value id indexes ir_func.values;
 * ids 0..nparams-1 are the kernel's runtime parameters.
 *
 * Operand rules the front end guarantees (the verifier checks them):
 * elementwise ops take operands of identical type (broadcast/splat are
 * explicit ops); CMP yields i1 of the operands' shape; SELECT's condition is
 * i1 of the result's shape; PTR_ADD takes a pointer and an integer of the
 * same shape; constexprs are folded away and never appear as values.
 * ====================================================================== */

typedef enum ir_kind {
	IR_VOID = 0,
	IR_I1, IR_I8, IR_I16, IR_I32, IR_I64,
	IR_U8, IR_U16, IR_U32, IR_U64,
	IR_F16, IR_BF16, IR_F32, IR_F64,
	IR_PTR,
	IR_SMEM, /* a ring of shared-memory tiles: pointee = element kind, shape [stages, rows, cols] */
	IR_KIND_COUNT
} ir_kind;

#define IR_MAX_RANK 4

typedef struct ir_type {
	uint8_t kind;    /* ir_kind of the scalar or of each block element */
	uint8_t pointee; /* when kind == IR_PTR: the ir_kind pointed to */
	uint8_t rank;    /* 0: scalar; 1..IR_MAX_RANK: block */
	int32_t shape[IR_MAX_RANK];
} ir_type;

ir_type ir_scalar(ir_kind kind);
ir_type ir_ptr(ir_kind pointee);
ir_type ir_block(ir_type elem, int rank, const int32_t *shape);
ir_type ir_elem(ir_type t); /* the element type (rank 0) */
bool ir_type_eq(ir_type a, ir_type b);
bool ir_same_shape(ir_type a, ir_type b);
int64_t ir_numel(ir_type t);   /* 1 for scalars */
int ir_kind_bits(ir_kind k);    /* 1 for i1, 64 for pointers */
int ir_kind_bytes(ir_kind k);   /* storage size: i1 is stored as 1 byte */
bool ir_kind_is_float(ir_kind k);
bool ir_kind_is_int(ir_kind k); /* i1 included */
bool ir_kind_is_signed(ir_kind k);
const char *ir_kind_name(ir_kind k); /* Triton's names: i1 i8 .. u64 fp16 bf16 fp32 fp64 ptr */
/* Parses a Triton dtype name ("fp32", "float32", "i32", "int32", "bf16", ...). */
bool ir_kind_from_name(const char *name, size_t len, ir_kind *out);
/* "fp32", "*fp16", "<128x64xfp32>", "<128x*fp32>" */
void ir_type_str(strbuf *sb, ir_type t);

#define IR_OPCODES(X) \
	X(CONST, "const")               /* ival or fval by result kind; splat when block */ \
	X(PROGRAM_ID, "program_id")     /* axis */ \
	X(NUM_PROGRAMS, "num_programs") /* axis */ \
	X(ARANGE, "arange")             /* ival = start, ival2 = end; <end-start x i32> */ \
	X(SPLAT, "splat")               /* scalar -> block */ \
	X(BROADCAST, "broadcast")       /* same rank, size-1 dims stretched */ \
	X(EXPAND_DIMS, "expand_dims")   /* axis: insert a size-1 dim */ \
	X(RESHAPE, "reshape")           /* same numel, row-major order */ \
	X(PERMUTE, "permute")           /* ints[] = order (trans: {1,0}) */ \
	X(CAST, "cast")                 /* numeric conversion; ptr <-> i64 */ \
	X(BITCAST, "bitcast")           /* same bit width */ \
	X(ADD, "add") X(SUB, "sub") X(MUL, "mul") \
	X(DIV, "div")                   /* float: approx unless IR_FLAG_PRECISE; int: truncating */ \
	X(REM, "rem")                   /* int: C remainder; float: fmod (sign of dividend) */ \
	X(AND, "and") X(OR, "or") X(XOR, "xor") \
	X(SHL, "shl") X(SHR, "shr")     /* SHR: arithmetic for signed kinds, logical for unsigned */ \
	X(MIN, "min") X(MAX, "max")     /* float: IR_FLAG_PROPAGATE_NAN selects NaN-propagating */ \
	X(NEG, "neg") X(NOT, "not")     /* NOT: bitwise (logical on i1) */ \
	X(CMP, "cmp")                   /* sub = ir_cmp; signedness from operand kind */ \
	X(SELECT, "select")             /* cond, a, b */ \
	X(MATH, "math")                 /* sub = ir_math, one operand */ \
	X(FMA, "fma") \
	X(EXTERN, "extern")             /* name = libdevice symbol ("__nv_tanhf") */ \
	X(PTR_ADD, "ptr_add")           /* ptr + offset * sizeof(pointee) */ \
	X(LOAD, "load")                 /* ptr [, mask [, other]]: flags IR_FLAG_HAS_MASK/OTHER */ \
	X(STORE, "store")               /* ptr, value [, mask] */ \
	X(REDUCE, "reduce")             /* sub = ir_reduce, axis; the axis is removed */ \
	X(DOT, "dot")                   /* a <MxK>, b <KxN>, acc <MxN>; sub = ir_precision */ \
	X(HINT, "hint")                 /* sub = ir_hint, ints[] per dim; result = operand */ \
	X(ASSUME, "assume")             /* i1 scalar */ \
	X(FOR, "for")                   /* lb, ub, step, inits... ; region params: iv, carried... */ \
	X(IF, "if")                     /* cond; regions then, else; results = yielded */ \
	X(WHILE, "while")               /* inits...; regions before (ends CONDITION), after (ends YIELD) */ \
	X(YIELD, "yield") \
	X(CONDITION, "condition")       /* cond, values passed to the after region / results */ \
	/* asynchronous pipelining (passes/pipeline.c): rings of tiles in shared memory */ \
	X(LOCAL_ALLOC, "local_alloc")   /* -> smem<S x R x C x elem> */ \
	X(LOCAL_DEALLOC, "local_dealloc") /* smem: its memory is free again (after ASYNC_WAIT 0) */ \
	X(ASYNC_COPY, "async_copy")     /* smem, slot, ptr [, mask]: tile `slot` <- load(ptr, mask, other=0), \
	                                   complete once ASYNC_WAIT lets its group go */ \
	X(ASYNC_COMMIT, "async_commit") /* closes the group of copies issued since the last commit */ \
	X(ASYNC_WAIT, "async_wait")     /* ival: committed groups that may still be in flight; then a barrier */ \
	X(LOCAL_LOAD, "local_load")     /* smem, slot -> the tile <R x C x elem> */

typedef enum ir_opcode {
#define IR_ENUM_(name, text) IR_OP_##name,
	IR_OPCODES(IR_ENUM_)
#undef IR_ENUM_
	IR_OP_COUNT
} ir_opcode;

typedef enum ir_cmp { IR_CMP_EQ, IR_CMP_NE, IR_CMP_LT, IR_CMP_LE, IR_CMP_GT, IR_CMP_GE } ir_cmp;

typedef enum ir_math {
	IR_MATH_EXP, IR_MATH_EXP2, IR_MATH_LOG, IR_MATH_LOG2, IR_MATH_SQRT, IR_MATH_SQRT_RN,
	IR_MATH_RSQRT, IR_MATH_SIN, IR_MATH_COS, IR_MATH_ABS, IR_MATH_FLOOR, IR_MATH_CEIL,
	IR_MATH_ERF, IR_MATH_COUNT
} ir_math;

typedef enum ir_reduce { IR_REDUCE_SUM, IR_REDUCE_MAX, IR_REDUCE_MIN, IR_REDUCE_ARGMAX, IR_REDUCE_ARGMIN, IR_REDUCE_XOR_SUM } ir_reduce;
typedef enum ir_precision { IR_PRECISION_TF32, IR_PRECISION_TF32X3, IR_PRECISION_IEEE } ir_precision;
typedef enum ir_hint { IR_HINT_MULTIPLE_OF, IR_HINT_MAX_CONTIGUOUS, IR_HINT_MAX_CONSTANCY } ir_hint;

enum {
	IR_FLAG_PRECISE = 1u << 0,       /* DIV: IEEE round-to-nearest (tl.div_rn) */
	IR_FLAG_PROPAGATE_NAN = 1u << 1, /* MIN/MAX on floats */
	IR_FLAG_HAS_MASK = 1u << 2,      /* LOAD/STORE */
	IR_FLAG_HAS_OTHER = 1u << 3,     /* LOAD */
	IR_FLAG_VOLATILE = 1u << 4       /* LOAD */
};

typedef struct ir_op ir_op;

typedef struct ir_region {
	int nparams;
	int *params; /* value ids */
	int nops, capops;
	ir_op **ops;  /* the last op is the terminator where one is required */
} ir_region;

struct ir_op {
	ir_opcode code;
	src_loc loc;
	int nargs;
	int *args;    /* operand value ids */
	int nresults;
	int *results; /* result value ids */
	int nregions;
	ir_region *regions;
	/* attributes, by opcode (see IR_OPCODES) */
	int64_t ival, ival2;
	double fval;
	int axis;
	int sub;
	unsigned flags;
	const char *name;
	int32_t ints[IR_MAX_RANK];
};

typedef struct ir_value {
	ir_type type;
	ir_op *def;        /* NULL for kernel and region parameters */
	int def_index;     /* result index in def */
	const char *name;  /* source variable name, for dumps; may be NULL */
} ir_value;

typedef struct ir_param {
	const char *name;
	ir_type type;      /* scalar or pointer */
	bool div16;        /* specialized: value (address) divisible by 16 */
	bool equal_one;    /* specialized: value == 1 (folded into the body) */
} ir_param;

typedef enum ir_constexpr_kind { IR_CONSTEXPR_INT, IR_CONSTEXPR_FLOAT, IR_CONSTEXPR_BOOL, IR_CONSTEXPR_STRING, IR_CONSTEXPR_DTYPE } ir_constexpr_kind;

typedef struct ir_constexpr {
	const char *name;
	ir_constexpr_kind kind;
	int64_t ival;     /* INT, BOOL, DTYPE (an ir_kind) */
	double fval;      /* FLOAT */
	const char *sval; /* STRING */
} ir_constexpr;

typedef struct ir_func {
	arena *arena;
	const char *name;
	src_loc loc;
	int nparams;
	ir_param *params;  /* value id i is parameter i */
	ir_region body;
	ir_value *values;
	int nvalues, capvalues;
	int nconstexprs;
	ir_constexpr *constexprs; /* the specialization's constexpr values, for metadata */
	int num_warps, num_stages;
} ir_func;

ir_func *ir_func_new(arena *a, const char *name, int nparams, const ir_param *params);
/* A new value of the given type; returns its id, -1 when out of memory. */
int ir_value_new(ir_func *f, ir_type type);
/* A new op with fresh result values of the given types and nregions empty
 * regions; NULL when out of memory. The op is not yet in any region. */
ir_op *ir_op_new(ir_func *f, ir_opcode code, src_loc loc, int nargs, const int *args,
		 int nresults, const ir_type *result_types, int nregions);
/* Appends op to region; false when out of memory. */
bool ir_region_append(ir_func *f, ir_region *r, ir_op *op);
/* Adds a parameter of the given type to a region; returns its value id. */
int ir_region_add_param(ir_func *f, ir_region *r, ir_type type);
const char *ir_opcode_name(ir_opcode code);
const char *ir_math_name(ir_math m);
const char *ir_cmp_name(ir_cmp c);
const char *ir_reduce_name(ir_reduce r);
/* Readable text dump, stable for golden tests. */
void ir_dump(strbuf *sb, const ir_func *f);

/* ======================================================================
 * verify.c - IR verifier (run between passes in debug builds and in tests)
 * ====================================================================== */

/* Checks types, operand rules, dominance of region-scoped values and
 * terminators; reports each problem as an error at the op's location. */
tilec_status ir_verify(tilec_ctx *ctx, const ir_func *f);

/* ======================================================================
 * blob.c / emit.c / gridexpr.c - the blob writer (docs/FORMAT.md), the
 * generated .c/.h pair, grid expressions compiled to grid programs
 *
 * A blob_desc describes kernels, their parameters and variants, and the
 * images (cubin, PTX) of each group (module); blob_write turns it into the
 * bytes of FORMAT.md, emit_c into BASE.c/BASE.h. Constexprs reuse
 * ir_constexpr: its kind numbering is FORMAT.md's.
 * ====================================================================== */

enum { BLOB_PARAM_PTR = 0, BLOB_PARAM_INT = 1, BLOB_PARAM_UINT = 2, BLOB_PARAM_FLOAT = 3 };
enum { BLOB_PARAM_HIDDEN = 1u << 0 };
enum { BLOB_IMAGE_CUBIN = 0, BLOB_IMAGE_PTX = 1 };
enum { BLOB_IMAGE_ARCH_SPECIFIC = 1u << 0 }; /* sm_90a */
#define BLOB_MAX_PARAMS 64
#define BLOB_VERSION 2             /* FORMAT.md's version field */
#define BLOB_MAX_SPILL (512u << 10) /* bytes: a thread's local memory */
#define GRIDEXPR_MAX_CODE 256 /* bytes; larger programs are refused */

typedef struct blob_param {
	const char *name;
	uint8_t kind;  /* BLOB_PARAM_* */
	uint8_t size;  /* bytes: pointer 8 */
	uint8_t dtype; /* ir_kind of the scalar, or of the pointee */
	uint8_t flags; /* BLOB_PARAM_HIDDEN: trailing, never passed by the caller */
} blob_param;

typedef struct blob_variant {
	const char *symbol; /* entry point in the images of `group` */
	int group;
	int nconstexprs;
	const ir_constexpr *constexprs;
	int num_warps, num_stages;
	uint32_t shared_static, shared_dynamic;
	uint16_t cluster[3];            /* 0 0 0: none */
	uint16_t n_regs;                /* 0: unknown */
	uint32_t pred_div16, pred_eq1;  /* bit i: visible parameter i */
	const uint8_t *grid_code;       /* from gridexpr_compile; NULL/0: caller passes the grid */
	size_t grid_size;
	bool spills_known;              /* false: written as unknown */
	uint32_t spill_stores, spill_loads; /* bytes per thread */
} blob_variant;

typedef struct blob_kernel {
	const char *name;
	int nparams; /* hidden ones last */
	const blob_param *params;
	int nvariants;
	const blob_variant *variants; /* any order: the writer sorts them */
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
 * caller frees). Same input, same bytes. */
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

/* Compiles a grid expression: one to three comma-separated integer
 * expressions over literals, visible integer parameter names, int/bool
 * constexpr names, + - * // % unary -, parentheses, cdiv/min/max (also
 * spelled triton.cdiv, tl.cdiv). Errors quote the expression with a caret,
 * under the file name `where` ("-g"). Writes at most `cap` bytes. */
tilec_status gridexpr_compile(tilec_ctx *ctx, const char *where, const char *expr,
			      int nparams, const blob_param *params,
			      int nconstexprs, const ir_constexpr *constexprs,
			      uint8_t *out, size_t cap, size_t *len);
/* Checks a grid program as the loader does: opcodes, operands inside the
 * program, parameter indices naming visible integer parameters, constexpr
 * indices naming int/bool constexprs, stack depth at most 16, exactly
 * ndims values at the end. NULL when valid, else what is wrong. */
const char *gridexpr_validate(const uint8_t *code, size_t size, int nparams, const blob_param *params,
			      int nconstexprs, const ir_constexpr *constexprs);
/* Renders a grid program back as an expression ("cdiv(n, 1024), 1");
 * names may be NULL (then p0.., c0..). False, with "<invalid ...>"
 * appended, when the program is malformed. */
bool gridexpr_format(strbuf *sb, const uint8_t *code, size_t size,
		     int nparams, const char *const *param_names,
		     int nconstexprs, const char *const *constexpr_names);

/* ======================================================================
 * lex.c / parse.c: tokens and AST
 *
 * lex.c turns a whole Python source file into a token array (Python's
 * lexical grammar: NEWLINE/INDENT/DEDENT, implicit and explicit line
 * joining, every string and number form). parse.c builds an AST of the
 * whole module with a full Python statement/expression parser, so host code
 * parses too; a host statement the parser cannot handle is kept as
 * AST_SKIPPED. The module node lists what the front end needs: the @jit
 * functions (with their decorators classified), import aliases and simple
 * module-level assignments, collected from the top level and from the
 * blocks of top-level compound statements (`if`, `else`, `try`, `with`...)
 * but never from inside a def or class. Nothing is evaluated here.
 *
 * Constructs that Python accepts but Triton's kernel language does not
 * (break, continue, chained comparisons, lambda, comprehensions, with,
 * try, star-args, dict/set literals, f-strings, ...) parse normally;
 * ast_check_kernel refuses them with a named diagnostic. Sema calls it on
 * every @jit function it compiles (kernel and helpers), so a broken
 * function that is never compiled does not stop the others, as in Triton.
 * ====================================================================== */

#define LEX_TOKENS(X) \
	X(TOK_EOF, "end of file") X(TOK_NEWLINE, "newline") \
	X(TOK_INDENT, "indent") X(TOK_DEDENT, "dedent") \
	X(TOK_NAME, "name") X(TOK_INT, "integer") X(TOK_FLOAT, "float") \
	X(TOK_IMAG, "imaginary number") X(TOK_STRING, "string") \
	X(TOK_LPAREN, "(") X(TOK_RPAREN, ")") X(TOK_LBRACKET, "[") X(TOK_RBRACKET, "]") \
	X(TOK_LBRACE, "{") X(TOK_RBRACE, "}") X(TOK_COLON, ":") X(TOK_COMMA, ",") \
	X(TOK_SEMI, ";") X(TOK_DOT, ".") X(TOK_ELLIPSIS, "...") X(TOK_ARROW, "->") \
	X(TOK_WALRUS, ":=") X(TOK_AT, "@") X(TOK_ASSIGN, "=") \
	X(TOK_PLUS, "+") X(TOK_MINUS, "-") X(TOK_STAR, "*") X(TOK_SLASH, "/") \
	X(TOK_DSLASH, "//") X(TOK_PERCENT, "%") X(TOK_DSTAR, "**") \
	X(TOK_LSHIFT, "<<") X(TOK_RSHIFT, ">>") X(TOK_AMP, "&") X(TOK_PIPE, "|") \
	X(TOK_CARET, "^") X(TOK_TILDE, "~") \
	X(TOK_LT, "<") X(TOK_GT, ">") X(TOK_LE, "<=") X(TOK_GE, ">=") \
	X(TOK_EQ, "==") X(TOK_NE, "!=") \
	X(TOK_PLUS_ASSIGN, "+=") X(TOK_MINUS_ASSIGN, "-=") X(TOK_STAR_ASSIGN, "*=") \
	X(TOK_SLASH_ASSIGN, "/=") X(TOK_DSLASH_ASSIGN, "//=") X(TOK_PERCENT_ASSIGN, "%=") \
	X(TOK_DSTAR_ASSIGN, "**=") X(TOK_LSHIFT_ASSIGN, "<<=") X(TOK_RSHIFT_ASSIGN, ">>=") \
	X(TOK_AMP_ASSIGN, "&=") X(TOK_PIPE_ASSIGN, "|=") X(TOK_CARET_ASSIGN, "^=") \
	X(TOK_AT_ASSIGN, "@=") \
	X(TOK_FALSE, "False") X(TOK_NONE, "None") X(TOK_TRUE, "True") X(TOK_AND, "and") \
	X(TOK_AS, "as") X(TOK_ASSERT, "assert") X(TOK_ASYNC, "async") X(TOK_AWAIT, "await") \
	X(TOK_BREAK, "break") X(TOK_CLASS, "class") X(TOK_CONTINUE, "continue") \
	X(TOK_DEF, "def") X(TOK_DEL, "del") X(TOK_ELIF, "elif") X(TOK_ELSE, "else") \
	X(TOK_EXCEPT, "except") X(TOK_FINALLY, "finally") X(TOK_FOR, "for") \
	X(TOK_FROM, "from") X(TOK_GLOBAL, "global") X(TOK_IF, "if") X(TOK_IMPORT, "import") \
	X(TOK_IN, "in") X(TOK_IS, "is") X(TOK_LAMBDA, "lambda") X(TOK_NONLOCAL, "nonlocal") \
	X(TOK_NOT, "not") X(TOK_OR, "or") X(TOK_PASS, "pass") X(TOK_RAISE, "raise") \
	X(TOK_RETURN, "return") X(TOK_TRY, "try") X(TOK_WHILE, "while") X(TOK_WITH, "with") \
	X(TOK_YIELD, "yield")

typedef enum tok_kind {
#define LEX_ENUM(k, s) k,
	LEX_TOKENS(LEX_ENUM)
#undef LEX_ENUM
	TOK_KIND_COUNT
} tok_kind;

/* Flags of a TOK_STRING (its prefix). */
enum { TOKF_BYTES = 1u << 0, TOKF_RAW = 1u << 1, TOKF_FSTRING = 1u << 2 };

typedef struct tok {
	src_loc loc;
	const char *text;   /* the token's source text (not NUL-terminated) */
	/* TOK_INT: ival (`big` when it does not fit in 64 bits); TOK_FLOAT,
	 * TOK_IMAG: fval; TOK_NAME: sval, the NUL-terminated name; TOK_STRING:
	 * sval, the decoded contents (escapes processed unless raw; f-strings
	 * are kept as written between the quotes), slen bytes plus a NUL, may
	 * contain NUL bytes. */
	union {
		uint64_t ival;
		double fval;
		const char *sval;
	};
	size_t slen;
	uint32_t len;       /* of text */
	tok_kind kind;
	uint8_t flags;      /* TOKF_* for strings */
	bool big;
} tok;

/* Tokenizes a whole file into an arena array ending with TOK_EOF; emits a
 * diagnostic and returns TILEC_ERR_SYNTAX on the first lexical error. */
tilec_status lex_file(tilec_ctx *ctx, arena *a, const src_file *file, tok **out, int *ntoks);
/* "(", "name", "if", ...: for messages and dumps. */
const char *lex_kind_name(tok_kind k);

/* Expressions, then statements. Field use per kind is listed beside it. */
#define AST_KINDS(X) \
	X(AST_NAME, "name")           /* name.id */ \
	X(AST_INT, "int")             /* lit.ival, lit.big */ \
	X(AST_FLOAT, "float")         /* lit.fval */ \
	X(AST_IMAG, "imag")           /* lit.fval */ \
	X(AST_STR, "str")             /* lit.sval, lit.slen (adjacent literals joined) */ \
	X(AST_BYTES, "bytes")         /* lit.sval, lit.slen */ \
	X(AST_FSTRING, "fstring")     /* lit.sval: the raw text */ \
	X(AST_NONE, "None") X(AST_TRUE, "True") X(AST_FALSE, "False") \
	X(AST_ELLIPSIS, "...") \
	X(AST_ATTR, "attr")           /* attr.value . attr.name */ \
	X(AST_CALL, "call")           /* call.func, call.args, call.kwargs (AST_KEYWORD) */ \
	X(AST_KEYWORD, "kw")          /* keyword.name (NULL for **x), keyword.value */ \
	X(AST_STARRED, "star")        /* unary.operand: *x in calls, targets, displays */ \
	X(AST_SUBSCRIPT, "subscript") /* subscript.value [subscript.index]; x[a, b]: index is a TUPLE */ \
	X(AST_SLICE, "slice")         /* slice.lo : slice.hi : slice.step, each may be NULL */ \
	X(AST_UNARY, "unary")         /* unary.op (NEG POS INVERT NOT), unary.operand */ \
	X(AST_BINARY, "binary")       /* binary.op, binary.left, binary.right */ \
	X(AST_BOOLOP, "boolop")       /* binary.op (AND OR), left-associative */ \
	X(AST_COMPARE, "compare")     /* binary.op (LT ... NOT_IN); a < b < c is \
	                                 COMPARE(<, COMPARE(<, a, b), c) with binary.chained */ \
	X(AST_IFEXP, "ifexp")         /* ifexp.then if ifexp.cond else ifexp.orelse */ \
	X(AST_TUPLE, "tuple")         /* seq.items */ \
	X(AST_LIST, "list")           /* seq.items */ \
	X(AST_SET, "set")             /* seq.items */ \
	X(AST_DICT, "dict")           /* dict.keys, dict.values (a NULL key: **x) */ \
	X(AST_LAMBDA, "lambda")       /* lambda.params, lambda.nparams, lambda.body */ \
	X(AST_NAMED, "walrus")        /* binary.left := binary.right */ \
	X(AST_COMP, "comprehension")  /* comp.kind ('[', '{', 'd' dict, '(' generator), \
	                                 comp.elt, comp.value (dict), comp.clauses */ \
	X(AST_COMP_FOR, "comp-for")   /* for_.target, for_.iter, for_.is_async */ \
	X(AST_COMP_IF, "comp-if")     /* unary.operand */ \
	X(AST_AWAIT, "await")         /* unary.operand */ \
	X(AST_YIELD, "yield")         /* unary.operand (may be NULL) */ \
	X(AST_YIELD_FROM, "yield-from") /* unary.operand */ \
	\
	X(AST_EXPR_STMT, "expr-stmt") /* unary.operand */ \
	X(AST_ASSIGN, "assign")       /* assign.targets (a = b = v: two), assign.value */ \
	X(AST_AUGASSIGN, "augassign") /* augassign.op (ADD ...), .target, .value */ \
	X(AST_ANNASSIGN, "annassign") /* annassign.target, .annotation, .value (may be NULL) */ \
	X(AST_IF, "if")               /* if_.cond, if_.body, if_.orelse (elif: one AST_IF) */ \
	X(AST_FOR, "for")             /* for_.target, for_.iter, for_.body, for_.orelse, for_.is_async */ \
	X(AST_WHILE, "while")         /* while_.cond, while_.body, while_.orelse */ \
	X(AST_RETURN, "return")       /* unary.operand (NULL; a TUPLE for return a, b) */ \
	X(AST_PASS, "pass") X(AST_BREAK, "break") X(AST_CONTINUE, "continue") \
	X(AST_ASSERT, "assert")       /* assert_.cond, assert_.msg (may be NULL) */ \
	X(AST_RAISE, "raise")         /* binary.left (exception, may be NULL), binary.right (from) */ \
	X(AST_DEL, "del")             /* seq.items */ \
	X(AST_GLOBAL, "global")       /* names.names, names.n */ \
	X(AST_NONLOCAL, "nonlocal")   /* names.names, names.n */ \
	X(AST_IMPORT, "import")       /* import_ (see ast_import) */ \
	X(AST_IMPORT_FROM, "import-from") /* import_ */ \
	X(AST_FUNCDEF, "def")         /* func */ \
	X(AST_CLASSDEF, "class")      /* class_.name, .bases, .kwargs, .body, .decorators */ \
	X(AST_WITH, "with")           /* with_.items (AST_WITH_ITEM), with_.body, with_.is_async */ \
	X(AST_WITH_ITEM, "with-item") /* binary.left (context), binary.right (as target, may be NULL) */ \
	X(AST_TRY, "try")             /* try_.body, .handlers (AST_EXCEPT), .orelse, .finalbody */ \
	X(AST_EXCEPT, "except")       /* except_.type (may be NULL), except_.name, except_.body */ \
	X(AST_SKIPPED, "skipped")     /* a host statement skipped by its extent (match, \
	                                 or one the parser could not read); skipped.ntoks */

typedef enum ast_kind {
#define AST_ENUM(k, s) k,
	AST_KINDS(AST_ENUM)
#undef AST_ENUM
	AST_KIND_COUNT
} ast_kind;

typedef enum ast_op {
	AST_OP_ADD, AST_OP_SUB, AST_OP_MUL, AST_OP_DIV, AST_OP_FLOORDIV, AST_OP_MOD,
	AST_OP_POW, AST_OP_LSHIFT, AST_OP_RSHIFT, AST_OP_BITAND, AST_OP_BITOR,
	AST_OP_BITXOR, AST_OP_MATMUL,
	AST_OP_NEG, AST_OP_POS, AST_OP_INVERT, AST_OP_NOT,
	AST_OP_AND, AST_OP_OR,
	AST_OP_LT, AST_OP_LE, AST_OP_GT, AST_OP_GE, AST_OP_EQ, AST_OP_NE,
	AST_OP_IS, AST_OP_IS_NOT, AST_OP_IN, AST_OP_NOT_IN,
	AST_OP_COUNT
} ast_op;

typedef struct ast_node ast_node;

typedef struct ast_list {
	int n;
	ast_node **items;
} ast_list;

typedef enum ast_param_kind {
	AST_PARAM_NORMAL,  /* positional-or-keyword (also positional-only, before `/`) */
	AST_PARAM_KWONLY,  /* after `*` or `*args` */
	AST_PARAM_VARARGS, /* *args */
	AST_PARAM_KWARGS   /* **kwargs */
} ast_param_kind;

typedef struct ast_param {
	src_loc loc;
	const char *name;
	ast_param_kind kind;
	ast_node *annotation; /* NULL, or the expression (a STR for "tl.constexpr") */
	ast_node *default_value; /* NULL when none */
	/* Triton's rule: the annotation's text contains "constexpr"
	 * (tl.constexpr, triton.language.constexpr, "tl.constexpr"). */
	bool is_constexpr;
} ast_param;

/* What a decorator of a def is, after import aliases are resolved
 * (`@triton.jit`, `@jit` from `from triton import jit`, `@tr.jit` after
 * `import triton as tr`; a bare `@jit` is taken as Triton's). */
typedef enum ast_deco_kind {
	AST_DECO_OTHER, AST_DECO_JIT, AST_DECO_AUTOTUNE, AST_DECO_HEURISTICS
} ast_deco_kind;

typedef struct ast_func {
	src_loc loc;              /* the name after `def` */
	const char *name;
	int nparams;
	ast_param *params;
	ast_node *returns;        /* -> annotation, NULL when none */
	ast_list body;
	ast_list decorators;      /* the decorator expressions, top first */
	ast_deco_kind *deco_kinds; /* one per decorator */
	bool is_async;
	/* Filled from the decorators (pointers into them, NULL when absent):
	 * jit: the @triton.jit decorator (a NAME/ATTR, or a CALL whose kwargs
	 * hold do_not_specialize=, noinline=, ...); autotune: the
	 * @triton.autotune(configs=[triton.Config({...}, num_warps=...,
	 * num_stages=...), ...], key=[...]) CALL, unevaluated (ast_call_kwarg
	 * finds configs/key); heuristics: the @triton.heuristics({...}) CALL
	 * whose args[0] is a DICT of STR keys and LAMBDA values. */
	ast_node *jit;
	ast_node *autotune;
	ast_node *heuristics;
} ast_func;

/* One name bound by an import, resolved to the dotted path it names:
 *   import triton                        -> triton    = "triton"
 *   import triton.language as tl         -> tl        = "triton.language"
 *   import triton.language.extra.libdevice -> triton  = "triton"
 *   from triton import language as tl    -> tl        = "triton.language"
 *   from triton.language.extra import libdevice
 *                                        -> libdevice = "triton.language.extra.libdevice"
 *   from triton.language import *        -> *         = "triton.language"
 * Relative imports keep their leading dots in `path`. */
typedef struct ast_import {
	src_loc loc;
	const char *alias; /* the name bound in the module */
	const char *path;  /* the dotted path it refers to */
} ast_import;

/* A module-level `NAME = expr` or `NAME: ann = expr`, unevaluated. */
typedef struct ast_global {
	src_loc loc;
	const char *name;
	ast_node *annotation; /* NULL when none */
	ast_node *value;
} ast_global;

struct ast_node {
	ast_kind kind;
	/* The node's first token; but an operator node (unary, binary, boolop,
	 * compare, ifexp, walrus): its operator, and a call, attribute or
	 * subscript: the start of the expression it applies to, as Python's
	 * col_offset. */
	src_loc loc;
	union {
		struct { const char *id; } name;
		struct { uint64_t ival; bool big; double fval; const char *sval; size_t slen; } lit;
		struct { ast_node *value; const char *name; } attr;
		struct { ast_node *func; ast_list args, kwargs; } call;
		struct { const char *name; ast_node *value; } keyword;
		struct { ast_node *value, *index; } subscript;
		struct { ast_node *lo, *hi, *step; } slice;
		struct { ast_op op; ast_node *operand; } unary;
		struct { ast_op op; ast_node *left, *right; bool chained; } binary;
		struct { ast_node *cond, *then, *orelse; } ifexp;
		struct { ast_list items; } seq;
		struct { ast_list keys, values; } dict;
		struct { int nparams; ast_param *params; ast_node *body; } lambda;
		struct { int kind; ast_node *elt, *value; ast_list clauses; } comp;
		struct { ast_list targets; ast_node *value; } assign;
		struct { ast_op op; ast_node *target, *value; } augassign;
		struct { ast_node *target, *annotation, *value; } annassign;
		struct { ast_node *cond; ast_list body, orelse; } if_;
		struct { ast_node *target, *iter; ast_list body, orelse; bool is_async; } for_;
		struct { ast_node *cond; ast_list body, orelse; } while_;
		struct { ast_node *cond, *msg; } assert_;
		struct { int n; const char **names; } names;
		struct { int n; ast_import *names; } import_;
		ast_func *func;
		struct { const char *name; ast_list bases, kwargs, body, decorators; } class_;
		struct { ast_list items, body; bool is_async; } with_;
		struct { ast_list body, handlers, orelse, finalbody; } try_;
		struct { ast_node *type; const char *name; ast_list body; } except_;
		struct { int ntoks; } skipped;
	};
};

typedef struct ast_module {
	const src_file *file;
	ast_list body;       /* every top-level statement */
	int nfuncs;
	ast_func **funcs;    /* @jit functions, in source order */
	int nimports;
	ast_import *imports; /* in source order; a later binding of an alias wins */
	int nglobals;
	ast_global *globals; /* in source order; a later assignment wins */
	int nhost_funcs;
	const char **host_funcs; /* names of the module-level defs without @jit */
} ast_module;

/* Lexes and parses a file. TILEC_ERR_SYNTAX (with a diagnostic) when the
 * file is not valid Python in a part the front end reads: a lexical
 * error anywhere, a syntax error in a @jit function. */
tilec_status parse_module(tilec_ctx *ctx, arena *a, const src_file *file, ast_module **out);
/* The last @jit function of that name, NULL when none. */
ast_func *ast_find_func(const ast_module *m, const char *name);
/* Refuses what Triton's kernel language does not accept in a @jit
 * function's parameters and body, each with a named diagnostic at its
 * location; TILEC_ERR_UNSUPPORTED when there was one (all are reported). */
tilec_status ast_check_kernel(tilec_ctx *ctx, const ast_func *f);
/* The value of keyword argument `name` of a CALL node, NULL when absent. */
ast_node *ast_call_kwarg(const ast_node *call, const char *name);
const char *ast_kind_name(ast_kind k);
/* "+", "not in", ... */
const char *ast_op_name(ast_op op);
/* S-expression dumps, stable for golden tests. */
void ast_dump(strbuf *sb, const ast_node *n);
void ast_dump_func(strbuf *sb, const ast_func *f);
void ast_dump_module(strbuf *sb, const ast_module *m);

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
} fe_spec;

typedef struct fe_module fe_module;

/* Reads and parses a file (diagnostics on failure). */
tilec_status fe_load(tilec_ctx *ctx, arena *a, const char *path, fe_module **out);
/* The same from text already in memory (tests). */
tilec_status fe_load_text(tilec_ctx *ctx, arena *a, const char *path, const char *text, fe_module **out);
/* The @jit functions of the file that can be kernels, in source order. */
int fe_kernel_count(const fe_module *m);
const char *fe_kernel_name(const fe_module *m, int i);
/* Autotune configs of a kernel (0 when it has none or the kernel does not
 * exist). fe_config_get fills defines, ndefines, num_warps, num_stages of
 * *spec from config i (the other fields are kept); the defines live in the
 * arena given to fe_load. */
int fe_config_count(const fe_module *m, const char *kernel);
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

/* ======================================================================
 * pipeline.c - loads feeding tl.dot issued one loop iteration ahead
 * ====================================================================== */

/* With num_stages >= 2, rewrites each qualifying runtime for loop so that
 * the loads its dots read are issued an iteration early (a prologue, a
 * carried tile, the next tile loaded at the top of the body). The IR stays
 * valid; only ops are added and the pipelined loads removed. */
tilec_status pipeline_loads(tilec_ctx *ctx, ir_func *f, bool async_copies);

/* ======================================================================
 * axisinfo.c - contiguity, divisibility and constancy of integer and
 * pointer values, per dimension (Triton's AxisInfo); it decides how wide
 * memory accesses may be
 * ====================================================================== */

typedef struct axis_info {
	int64_t contiguity[IR_MAX_RANK];   /* runs of values increasing by one */
	int64_t divisibility[IR_MAX_RANK]; /* power of two dividing each run's first value (bytes for pointers) */
	int64_t constancy[IR_MAX_RANK];    /* runs of equal values */
} axis_info;

/* One entry per value id (scalars use index 0), allocated in `a`. */
tilec_status axis_analyze(tilec_ctx *ctx, arena *a, const ir_func *f, axis_info **out);
/* How many consecutive elements of the last dimension one access of the
 * pointer block `ptr` (with `mask`, -1 for none) may cover: contiguity,
 * alignment, mask constancy and 16 bytes. */
int axis_vector_width(const ir_func *f, const axis_info *ai, int ptr, int mask);
/* The same along dimension `dim` (accesses running down that dim). */
int axis_vector_width_dim(const ir_func *f, const axis_info *ai, int ptr, int mask, int dim);

/* ======================================================================
 * layout.c - distributed layouts: which thread holds which element
 *
 * A layout maps each element of a block to (thread, register). BLOCKED is
 * Triton's BlockedEncoding (powers of two everywhere); SLICE is a parent
 * layout with one dimension removed (reduction results, expand_dims
 * sources). Every coordinate is a sum of lane and warp bit fields plus a
 * per-register constant. mma.sync's accumulator is such a blocked layout
 * (flagged `mma`: the dot producing it runs on tensor cores). A layout
 * applies to any shape of its rank: dims smaller than the CTA tile
 * replicate, larger ones wrap.
 * ====================================================================== */

typedef enum layout_kind { LAYOUT_BLOCKED = 1, LAYOUT_SLICE = 2 } layout_kind;

typedef struct layout layout;
struct layout {
	layout_kind kind;
	int rank;
	int32_t size_per_thread[IR_MAX_RANK]; /* BLOCKED */
	int32_t threads_per_warp[IR_MAX_RANK];
	int32_t warps_per_cta[IR_MAX_RANK];
	int32_t order[IR_MAX_RANK];           /* dims, fastest-varying first */
	int dim;                              /* SLICE: the parent's removed dim */
	const layout *parent;                 /* SLICE */
	bool mma;                             /* BLOCKED: mma.sync's accumulator (layout_mma) */
};

/* A layout applied to one shape, flattened to a blocked layout over an
 * equal-or-higher-rank shape (slices reinsert their dims with size 1). */
typedef struct layout_map {
	const layout *blocked;
	int rank;                  /* of the blocked layout */
	int32_t shape[IR_MAX_RANK];
	int nregs;                 /* registers (elements) per thread */
	int32_t regs_per_dim[IR_MAX_RANK];
	int8_t dim_of[IR_MAX_RANK]; /* the map's dim of each dim of the value */
} layout_map;

/* How a 2-D tile is laid out in shared memory: stored rows of the
 * contiguous dim (the value's dim 1, or dim 0 when transposed), 16-byte
 * chunks XOR-swizzled so that 8 consecutive rows read at one chunk column
 * (an ldmatrix phase, a column of 16-byte copies) hit distinct banks:
 * element (row r, byte b of the row) is at
 *   r * row_bytes + ((b / 16) ^ ((r / per_phase) % max_phase)) * 16 + b % 16
 * (Triton's shared encoding with vec = 16 bytes). */
typedef struct smem_layout {
	bool transposed;          /* stored rows run along the value's dim 0 */
	int elem_bytes;
	int rows, row_bytes;      /* of the stored tile */
	int per_phase, max_phase;
	uint32_t tile_bytes;      /* one tile of a ring */
} smem_layout;

/* The swizzled layout of an R x C tile of elem_bytes elements. */
smem_layout smem_layout_make(int32_t r, int32_t c, int elem_bytes, bool transposed);
void smem_layout_str(strbuf *sb, const smem_layout *s);

/* The layouts of a kernel for num_warps * 32 threads. Values computed
 * from constants, aranges and splats alone are rematerialized in whatever
 * layout a use needs; others move between layouts through shared memory. */
typedef struct layout_plan {
	const layout **of;       /* per value id; NULL for scalars */
	bool *remat;             /* per value id: cheap to recompute in any layout */
	const layout *by_rank[IR_MAX_RANK + 1]; /* the default blocked layout per rank */
	bool tensor_cores;       /* every target is sm_80 or newer (mma.sync, cvt.rna.tf32) */
	/* rings of shared-memory tiles (pipeline.c), per value id of a ring: */
	const smem_layout **ring;  /* its tiles' layout */
	const layout **copy;       /* the layout its asynchronous copies read their pointers in */
	bool *view;              /* per value id: a LOCAL_LOAD only tensor-core dots read, straight
	                            from shared memory (it has no registers) */
} layout_plan;

/* Memory ops' layouts use 16-byte vectors where axis info allows; with
 * tensor_cores (every target sm_80 or newer) the dots layout_dot_mma
 * accepts produce layout_mma. */
tilec_status layout_assign(tilec_ctx *ctx, arena *a, const ir_func *f, const axis_info *ai,
			   bool tensor_cores, layout_plan *out);
/* The accumulator layout of mma.sync m16n8 over a wm x wn grid of warps:
 * per warp, lane l holds rows l/4 (+8) and columns 2*(l%4) (+1) of each
 * 16x8 tile, which is blocked spt [1,2], tpw [8,4], wpc [wm,wn] except
 * that along M (flagged `mma`) a warp's rows come in 16-row tiles whose
 * rows 8 apart are registers of one thread, as the instruction wants. */
layout *layout_mma(arena *a, int wm, int wn);
/* Triton's warps for an M x N mma.sync accumulator: wm along M, wn along N
 * (wm * wn = num_warps); `chained`: the dot feeds, or is fed by, another. */
void layout_mma_warps(int64_t m, int64_t n, int num_warps, bool chained, int *wm, int *wn);
/* A dot mma.sync can run: fp16 operands with an fp32 or fp16 result, bf16
 * or fp32 at "tf32" precision (the default) with an fp32 result, int8 with
 * an int32 result; M a multiple of 16, N of 8, K of the instruction's
 * depth (16, 8 for tf32, 32 for int8). */
bool layout_dot_mma(const ir_func *f, const ir_op *op);
/* A default blocked layout for a shape: `vec` consecutive elements of the
 * last dim per thread, threads then warps filling dims fastest first. */
layout *layout_blocked(arena *a, int rank, const int32_t *shape, int num_warps, int vec);
/* The same with `vec` elements along dim order[0], dims filled in `order`. */
layout *layout_blocked_order(arena *a, int rank, const int32_t *shape, int num_warps, int vec, const int32_t *order);
layout *layout_slice(arena *a, const layout *parent, int dim);
bool layout_eq(const layout *x, const layout *y);
layout_map layout_map_of(const layout *l, int rank, const int32_t *shape);
/* The per-register constant part of register reg's coordinates (in the
 * map's rank); registers run fastest along order[0], wraps outermost. */
void layout_reg_coords(const layout_map *m, int reg, int32_t *coords);
/* A register as per-dim register indices and back. */
void layout_reg_split(const layout_map *m, int reg, int32_t *idx);
int layout_reg_join(const layout_map *m, const int32_t *idx);
/* How many consecutive registers hold consecutive elements along dim d
 * (the chunk a thread owns), 1 when dim d is not the registers' fastest. */
int layout_contig_regs(const layout_map *m, int d);
/* Coordinate d of a thread's first element = (((lane >> lane_shift) &
 * (lanes - 1)) * lane_scale + ((warp >> warp_shift) & (warps - 1)) *
 * warp_scale); it is a replica (not the owner) when that is >= shape[d],
 * otherwise no reduction of the modulo is needed. */
typedef struct layout_field {
	int lane_shift, lanes, warp_shift, warps;
	int32_t lane_scale, warp_scale;
} layout_field;
layout_field layout_dim_field(const layout_map *m, int d);
/* Same mapping of elements to (thread, register) for this shape. */
bool layout_map_eq(const layout_map *x, const layout_map *y);
void layout_str(strbuf *sb, const layout *l);

/* ======================================================================
 * lower.c - tile IR to LLVM IR (nvptx64-nvidia-cuda) under the layouts
 * target.c - target machines, libdevice, the O3 pipeline, PTX, ptxas
 *
 * Only these files (and compile.c) include llvm-c; the opaque LLVM handles
 * are forward-declared here so the interfaces need no LLVM header.
 * ====================================================================== */

struct LLVMOpaqueModule;
struct LLVMOpaqueTargetMachine;

typedef struct lower_result {
	bool uses_libdevice;      /* calls __nv_* functions */
	uint32_t shared_bytes;    /* shared memory of the kernel */
	bool shared_dynamic;      /* over 48 KB: dynamic (extern) shared memory, the launch passes it */
} lower_result;

/* Adds the kernel `symbol` (PTX entry, 32 * num_warps threads) to m. */
tilec_status lower_kernel(tilec_ctx *ctx, struct LLVMOpaqueModule *m, const ir_func *f,
			  const char *symbol, const axis_info *ai, const layout_plan *plan,
			  lower_result *out);

/* A target machine for sm_<arch> (PTX ISA 8.0). */
tilec_status target_machine(tilec_ctx *ctx, int arch, struct LLVMOpaqueTargetMachine **out);
/* Links the libdevice functions m uses (found through TILE_LIBDEVICE,
 * CUDA_HOME, /usr/local/cuda, next to ptxas), internalizing them. */
tilec_status target_link_libdevice(tilec_ctx *ctx, struct LLVMOpaqueModule *m, const char *ptxas);
/* Verifies m, then runs default<O3>. */
tilec_status target_optimize(tilec_ctx *ctx, struct LLVMOpaqueModule *m, struct LLVMOpaqueTargetMachine *tm);
/* PTX text of m (a malloc'd NUL-terminated string in *out). */
tilec_status target_emit_ptx(tilec_ctx *ctx, struct LLVMOpaqueModule *m, struct LLVMOpaqueTargetMachine *tm,
			     char **out, size_t *len);
/* The ptxas to use: `explicit_path` when given, else TILE_PTXAS,
 * $CUDA_HOME/bin, /usr/local/cuda/bin, PATH; NULL when none. */
const char *target_find_ptxas(arena *a, const char *explicit_path);
/* Assembles PTX with `ptxas -v -arch=sm_<arch>`; the cubin in *cubin
 * (malloc'd), ptxas's messages in *log (caller frees). */
tilec_status target_ptxas(tilec_ctx *ctx, const char *ptxas, const char *ptx, int arch,
			  uint8_t **cubin, size_t *size, strbuf *log);

/* ======================================================================
 * compile.c - the pass pipeline: verify, axis info, layouts, lowering,
 * O3, PTX per arch, cubin per arch
 * ====================================================================== */

typedef struct compile_options {
	int narchs;
	const int *archs;        /* 80, 87, 90: one cubin each */
	bool emit_ptx;           /* also a PTX image for forward compatibility */
	int ptx_arch;            /* its target (compute_<ptx_arch>), e.g. 80 */
	const char *ptxas;       /* NULL: TILE_PTXAS, CUDA_HOME/bin, /usr/local/cuda/bin, PATH */
	bool debug_verify;       /* run ir_verify first */
} compile_options;

typedef struct compile_kernel_info {
	const char *symbol;
	int arch;                /* one entry per (kernel, cubin arch) */
	int n_regs;
	bool spills_known;       /* ptxas reported on the entry */
	uint32_t spill_stores, spill_loads; /* bytes per thread */
	uint32_t shared_static, shared_dynamic;
} compile_kernel_info;

/* (target.c) Registers, spill stores and loads (bytes) and static shared
 * bytes of one entry from ptxas -v output; false when the entry is not
 * mentioned. */
bool target_ptxas_info(const char *log, const char *symbol, compile_kernel_info *info);

typedef struct compile_image {
	int arch;
	int kind;                /* BLOB_IMAGE_CUBIN or BLOB_IMAGE_PTX */
	uint8_t *data;           /* in the arena; PTX is NUL-terminated, size without the NUL */
	size_t size;
} compile_image;

typedef struct compile_result {
	int nimages;
	compile_image *images;   /* cubins in archs order, then the PTX */
	int nkernels;
	compile_kernel_info *kernels; /* kernel-major: kernels[k * ncubins + arch index] */
	bool ptx_only;           /* no ptxas: PTX images only (a warning says so) */
} compile_result;

/* Compiles n specialized kernels into ONE module per arch (entry names =
 * symbols); everything in *out lives in `a`. No ptxas: PTX per arch, a
 * warning, ptx_only. ptxas failing: TILEC_ERR_PTXAS with its output;
 * LLVM's verifier failing: TILEC_ERR_LLVM. */
tilec_status compile_module(tilec_ctx *ctx, arena *a, ir_func *const *funcs, const char *const *symbols,
			    int n, const compile_options *opt, compile_result *out);


/* Internals shared by sema.c (module API, signature, statements, control
 * flow, inlining), sema_expr.c (values, promotion, broadcasting,
 * operators) and sema_call.c (tl.*, libdevice.*, methods, builtins). */

/* A value during specialization: a constexpr (NONE .. DTYPE, folded with
 * Python semantics), a tensor (an IR value), a tuple, or something that
 * can be called or have attributes taken. */
typedef enum sv_kind {
	SV_UNDEF, SV_NONE, SV_BOOL, SV_INT, SV_FLOAT, SV_STR, SV_DTYPE,
	SV_TENSOR, SV_TUPLE, SV_MODULE, SV_FUNC, SV_BUILTIN, SV_METHOD, SV_SLICE,
	SV_ARGS /* a heuristic's `args`: args['NAME'] reads a constexpr parameter */
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
	int scf;             /* runtime if/for/while nesting in the current function */
	bool returned;       /* the current function has executed `return` */
	sv ret;              /* and returned this */
	int global_depth;    /* nesting of module-global evaluation: no ops may be emitted */
	const char *const *args_names; /* SV_ARGS: parameter names and their values */
	const sv *args_vals;
	int nargs_vals;
	const ast_func *args_fn;       /* whose parameters they are */
	tilec_status status; /* of the first error */
} sema;

/* sema.c */
bool sema_error(sema *s, src_loc loc, tilec_status st, const char *fmt, ...) TILE_PRINTF(4, 5);
bool sema_lookup(sema *s, src_loc loc, const char *name, sv *out);
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
/* sema_call.c */
bool sema_call(sema *s, ast_node *call, sv fn, sv *out);
bool sema_attr(sema *s, src_loc loc, sv v, const char *name, sv *out);
bool sema_module_attr(sema *s, src_loc loc, const char *path, const char *name, sv *out);

/* ======================================================================
 * interp.c - the reference interpreter: runs tile IR on the CPU
 *
 * Buffers are host memory standing for device allocations. A pointer
 * argument names a buffer (or -1 for a null pointer) and a byte offset into
 * it; every access of the kernel must lie wholly inside one buffer, else the
 * run stops with TILEC_ERR_RUNTIME and a diagnostic at the op naming the
 * program, the element, the offset and the buffer. Buffers count as 16-byte
 * aligned for the div16 predicates, which are checked against the
 * arguments (as is == 1) before anything runs; the function is verified
 * first. Programs run one after another, x fastest.
 * ====================================================================== */

typedef struct interp_buffer {
	void *data;
	size_t size; /* bytes */
} interp_buffer;

/* A scalar argument or element: i for signed kinds and i1, u for unsigned
 * kinds and pointers, f for floats. */
typedef union interp_scalar {
	int64_t i;
	uint64_t u;
	double f;
} interp_scalar;

/* One per ir_func parameter, in order. */
typedef struct interp_arg {
	int buffer;          /* pointers: index into buffers, -1 for null */
	uint64_t offset;     /* pointers: byte offset into the buffer */
	interp_scalar value; /* scalars (converted to the parameter's kind) */
} interp_arg;

tilec_status interp_run(tilec_ctx *ctx, const ir_func *f, const uint32_t grid[3], interp_buffer *buffers,
			int nbuffers, const interp_arg *args);

/* Round-to-nearest-even conversions between fp32 and fp16/bf16 bits. */
uint16_t interp_f32_to_f16(float f);
float interp_f16_to_f32(uint16_t h);
uint16_t interp_f32_to_bf16(float f);
float interp_bf16_to_f32(uint16_t h);
/* One element of kind k in memory (little-endian, i1 as a byte), as an
 * interp_scalar and back (floats rounded to the kind). */
interp_scalar interp_read(ir_kind k, const void *p);
void interp_write(ir_kind k, void *p, interp_scalar v);

#endif
