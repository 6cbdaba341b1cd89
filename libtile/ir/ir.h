/* ir.h - the tile IR, the language every phase after the front end speaks.
 *
 * Types, values and ops with structured control flow, a builder, a
 * readable dump (stable for golden tests), the verifier that runs between
 * passes in debug builds and in tests, and the reference interpreter that
 * executes the IR on the CPU (the oracle of the CPU test suite, and
 * `tilec run`). It builds on base only. The front end produces it, passes
 * rewrite it, analysis and nvptx read it, and pack reuses its kinds and
 * constexpr values (their numbering is docs/FORMAT.md's).
 */
#ifndef TILE_IR_H
#define TILE_IR_H

#include "base/base.h"

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
	IR_F8E4NV, IR_F8E5, /* fp8 e4m3fn and e5m2: held as their bytes (ir/fp8.c) */
	IR_PTR,
	IR_SMEM, /* a ring of shared-memory tiles: pointee = element kind, shape [stages, rows, cols] */
	IR_KIND_COUNT
} ir_kind;

#define IR_MAX_RANK 4
#define IR_MAX_PARAMS 64     /* runtime parameters of a kernel (the blob's limit) */
#define IR_MAX_TENSORMAPS 16 /* tensor-map parameters of a kernel (the loader's) */

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
bool ir_kind_is_float(ir_kind k); /* fp8 included, as Triton's is_floating() */
/* An fp32 value's bits and back (for the interpreter's and fp8's conversions). */
uint32_t ir_f32_bits(float f);
float ir_f32_from_bits(uint32_t u);
bool ir_kind_is_fp8(ir_kind k);
bool ir_kind_is_int(ir_kind k); /* i1 included */
bool ir_kind_is_signed(ir_kind k);
const char *ir_kind_name(ir_kind k); /* Triton's names: i1 i8 .. u64 fp16 bf16 fp32 fp64 fp8e4nv fp8e5 ptr */
/* Parses a Triton dtype name ("fp32", "float32", "i32", "int32", "bf16", ...). */
bool ir_kind_from_name(const char *name, size_t len, ir_kind *out);
/* "fp32", "*fp16", "<128x64xfp32>", "<128x*fp32>" */
void ir_type_str(strbuf *sb, ir_type t);

#define IR_OPCODES(X) \
	X(CONST, "const")               /* ival or fval by result kind; splat when block */ \
	X(PROGRAM_ID, "program_id")     /* axis */ \
	X(NUM_PROGRAMS, "num_programs") /* axis */ \
	X(CTA_RANK, "cta_rank")         /* i32: this CTA's rank in its program's cluster (passes/cluster.c; \
	                                   0 where a program is one CTA) */ \
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
	X(LOAD, "load")                 /* ptr [, mask [, other]]: flags IR_FLAG_HAS_MASK/OTHER; with \
	                                   IR_FLAG_TENSORMAP a host descriptor's block: mask and other, then \
	                                   its coordinates (i32 each), ival = the tensor-map parameter */ \
	X(STORE, "store")               /* ptr, value [, mask]; with IR_FLAG_TENSORMAP a host descriptor's \
	                                   block: mask, then its coordinates, ival = the tensor-map parameter */ \
	X(REDUCE, "reduce")             /* sub = ir_reduce, axis; the axis is removed; argmax/argmin may \
	                                   have a second result, the value at the index (tl.max's) */ \
	X(SCAN, "scan")                 /* k inputs of one shape -> k results; axis; ival: reverse; \
	                                   region: 2k scalar params (accumulated, next), yields k */ \
	X(REDUCE_FN, "reduce_fn")       /* tl.reduce: k inputs of one shape -> k results without the axis; axis; \
	                                   region: 2k scalar params (two partial results), yields k */ \
	X(JOIN, "join")                 /* a, b of one type (rank >= 1) -> shape + [2]: [..., 0] a, [..., 1] b */ \
	X(SPLIT, "split")               /* x <... x 2> -> two results of shape[:-1] (scalars from <2>) */ \
	X(FLIP, "flip")                 /* x with its index along axis xored with ival: n - 1 reverses it \
	                                   (tl.flip), 1 << j swaps neighbours j apart (sort's partners) */ \
	X(CAT, "cat")                   /* 1-D a, b of one kind -> <na + nb>: a, then b */ \
	X(GATHER, "gather")             /* src, index (integers, src's shape but along axis) -> index's \
	                                   shape of src's elements: r[i] = src[i with i[axis] = index[i]] */ \
	X(HISTOGRAM, "histogram")       /* x (1-D integers) [, mask]: flags IR_FLAG_HAS_MASK -> <ival x i32>, \
	                                   counts of the values 0 .. ival-1 (others not counted) */ \
	X(DOT, "dot")                   /* a <MxK>, b <KxN>, acc <MxN>; sub = ir_precision */ \
	X(HINT, "hint")                 /* sub = ir_hint, ints[] per dim; result = operand */ \
	X(ASSUME, "assume")             /* i1 scalar */ \
	X(BARRIER, "barrier")           /* tl.debug_barrier: the program's threads wait for one another; \
	                                   ival 1: the user's, across a cluster where a program is one */ \
	X(GRID_DEP, "grid_dep")         /* programmatic dependent launch (sm_90 on; nothing below): sub 0 \
	                                   waits for the grid before (gdc_wait), 1 lets the next start \
	                                   (gdc_launch_dependents) */ \
	X(DEVICE_ASSERT, "device_assert") /* cond (i1 scalar or block); name = the message: traps where false \
	                                   (emitted in debug mode only) */ \
	X(DEVICE_PRINT, "device_print") /* values of one shape (or scalars); name = the prefix; ival: hex \
	                                   (emitted in debug mode only) */ \
	X(INLINE_ASM, "inline_asm")     /* args of one shape -> results of that shape; name = PTX, text = \
	                                   constraints, ival = pack, flags IR_FLAG_VOLATILE: not pure */ \
	X(FOR, "for")                   /* lb, ub, step, inits... ; region params: iv, carried... */ \
	X(IF, "if")                     /* cond; regions then, else; results = yielded */ \
	X(WHILE, "while")               /* inits...; regions before (ends CONDITION), after (ends YIELD) */ \
	X(YIELD, "yield") \
	X(CONDITION, "condition")       /* cond, values passed to the after region / results */ \
	/* asynchronous pipelining (passes/pipeline.c): rings of tiles in shared memory */ \
	X(LOCAL_ALLOC, "local_alloc")   /* -> smem<S x R x C x elem>; IR_FLAG_TENSORMAP: filled by TMA_COPY, \
	                                   a barrier per tile */ \
	X(LOCAL_DEALLOC, "local_dealloc") /* smem: its memory is free again (after ASYNC_WAIT 0) */ \
	X(ASYNC_COPY, "async_copy")     /* smem, slot, ptr [, mask]: tile `slot` <- load(ptr, mask, other=0), \
	                                   complete once ASYNC_WAIT lets its group go */ \
	X(ASYNC_COMMIT, "async_commit") /* closes the group of copies issued since the last commit */ \
	X(ASYNC_WAIT, "async_wait")     /* ival: committed groups that may still be in flight; then a barrier */ \
	X(LOCAL_LOAD, "local_load")     /* smem, slot -> the tile <R x C x elem> */ \
	X(TMA_COPY, "tma_copy")         /* smem, slot, pred (i1), coords (i32 each): where pred, tile `slot` \
	                                   <- the block at coords through tensor-map parameter ival (zero \
	                                   outside the tensor), landing on the slot's barrier */ \
	X(TMA_WAIT, "tma_wait")         /* smem, slot, phase (i32, 0 or 1): waits until the copy of tile \
	                                   `slot` that completes that phase of its barrier has landed */ \
	/* atomics: one read-modify-write per element, in element order; result = the old values */ \
	X(ATOMIC_RMW, "atomic_rmw")     /* ptr, val [, mask]: sub = ir_atomic, ival = ir_sem, ival2 = ir_scope */ \
	X(ATOMIC_CAS, "atomic_cas")     /* ptr, cmp, val: ival = ir_sem, ival2 = ir_scope */

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
/* Atomic read-modify-write operations; signedness (MAX, MIN) and float
 * addition follow the element kind, as Triton's MAX/UMAX/FADD do. */
typedef enum ir_atomic { IR_ATOMIC_ADD, IR_ATOMIC_MAX, IR_ATOMIC_MIN, IR_ATOMIC_AND, IR_ATOMIC_OR, IR_ATOMIC_XOR, IR_ATOMIC_XCHG, IR_ATOMIC_COUNT } ir_atomic;
/* Memory semantics and scopes of atomics (Triton's defaults first). */
typedef enum ir_sem { IR_SEM_ACQ_REL, IR_SEM_RELAXED, IR_SEM_ACQUIRE, IR_SEM_RELEASE, IR_SEM_COUNT } ir_sem;
typedef enum ir_scope { IR_SCOPE_GPU, IR_SCOPE_CTA, IR_SCOPE_SYS, IR_SCOPE_COUNT } ir_scope;
typedef enum ir_hint { IR_HINT_MULTIPLE_OF, IR_HINT_MAX_CONTIGUOUS, IR_HINT_MAX_CONSTANCY } ir_hint;

enum {
	IR_FLAG_PRECISE = 1u << 0,       /* DIV: IEEE round-to-nearest (tl.div_rn) */
	IR_FLAG_PROPAGATE_NAN = 1u << 1, /* MIN/MAX on floats */
	IR_FLAG_HAS_MASK = 1u << 2,      /* LOAD/STORE */
	IR_FLAG_HAS_OTHER = 1u << 3,     /* LOAD */
	IR_FLAG_VOLATILE = 1u << 4,      /* LOAD */
	IR_FLAG_SPARE_TILE = 1u << 5,    /* FOR: its rings hold a tile more than its copies in flight need */
	IR_FLAG_SUNK = 1u << 6,          /* LOAD: moved down to its first user (passes/sink.c) */
	IR_FLAG_TENSORMAP = 1u << 7,     /* LOAD/STORE: a descriptor block TMA may copy; LOCAL_ALLOC: a TMA ring */
	IR_FLAG_AFTER_STORE = 1u << 8,   /* LOAD/ASYNC_COPY: needs a barrier first (passes/memorder.c's own mark) */
	IR_FLAG_WARP_SPECIALIZE = 1u << 9, /* FOR: tl.range(..., warp_specialize=True), or chosen by passes/partition.c */
	IR_FLAG_PRODUCER = 1u << 10,     /* the producer warp's program (passes/partition.c): such a FOR,
	                                    its TMA_COPYs and the scalar ops they read */
	IR_FLAG_KEEP_A = 1u << 11        /* FOR: its wgmma dots' A operands computed before it are staged once
	                                    into shared memory, not held as fragments (passes/partition.c) */
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
	const char *text; /* INLINE_ASM: the constraints (name: the assembly) */
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
	bool tensormap;    /* a descriptor's 128-byte TMA map, passed by value (type: ptr<i8>) */
	uint8_t div_by;    /* specialized by tile's :8 or :4 hint: divisible by 8 or 4; 0 without (never with div16) */
} ir_param;

/* A host-side tensor descriptor parameter (`tensordesc<fp16[64, 64]>`) is
 * 1 + 2 * rank consecutive runtime parameters from `first`: the base
 * pointer, the shape (i32 each), the strides (i64 each, the last one == 1),
 * and, where the kernel is built for TMA, its tensor map
 * (`ir_tensormap_box` says which descriptors have one); the launch
 * function takes them as one struct. */
typedef struct ir_desc_param {
	int first;         /* index of the base in ir_func.params */
	const char *name;  /* the parameter's name in the source */
	int rank;
	int32_t block[IR_MAX_RANK];
	bool tensormap;    /* parameter first + 1 + 2 * rank is its TMA map */
} ir_desc_param;

/* A device-side descriptor (tl.make_tensor_descriptor) whose base is a
 * pointer parameter and whose shape and strides are computed from integer
 * parameters and constants alone: the launch arguments determine it, so
 * its TMA map is a hidden trailing parameter the loader builds at launch
 * (docs/FORMAT.md's recipes), where no kernel code has to. */
typedef struct ir_derived_map {
	int param;          /* the map's index in ir_func.params (trailing, tensormap) */
	int base;           /* the pointer parameter */
	int rank;
	int32_t block[IR_MAX_RANK];
	const char *values; /* the shape, then the strides but the last (1), as
	                       launch-time expressions over the parameters'
	                       names: "M, K, K" (gridexpr syntax) */
	int shape[IR_MAX_RANK], strides[IR_MAX_RANK]; /* the same as value ids (the
	                       interpreter's); strides[rank - 1] unused */
} ir_derived_map;

typedef enum ir_constexpr_kind { IR_CONSTEXPR_INT, IR_CONSTEXPR_FLOAT, IR_CONSTEXPR_BOOL, IR_CONSTEXPR_STRING, IR_CONSTEXPR_DTYPE } ir_constexpr_kind;

typedef struct ir_constexpr {
	const char *name;
	ir_constexpr_kind kind;
	int64_t ival;     /* INT, BOOL, DTYPE (an ir_kind) */
	double fval;      /* FLOAT */
	const char *sval; /* STRING */
} ir_constexpr;

/* The .maxnreg values a kernel may carry: ptxas raises anything lower to 24. */
enum { IR_MAXNREG_MIN = 24, IR_MAXNREG_MAX = 255 };

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
	/* CTAs per program (a config's num_ctas): > 1 asks for a thread block
	 * cluster of that many, splitting each block of the program over
	 * them (passes/cluster.c); compile_module may set it back to 1 */
	int num_ctas;
	int maxnreg; /* .maxnreg for ptxas (24..255); 0: ptxas chooses */
	/* @triton.autotune's reset_to_zero and restore_value: bit i names
	 * runtime parameter i (a pointer). Recorded, not acted on: they only
	 * matter between Triton's benchmark runs of configs. */
	uint64_t reset_to_zero, restore_value;
	int ndescs;
	const ir_desc_param *descs; /* in parameter order */
	int nmaps;
	const ir_derived_map *maps; /* their params follow all others, in this order */
} ir_func;

/* The descriptor whose base is parameter i, or NULL. */
const ir_desc_param *ir_param_desc(const ir_func *f, int i);
/* The descriptor whose tensor map is parameter i, or NULL. */
const ir_desc_param *ir_tensormap_desc(const ir_func *f, int i);
/* The derived map that is parameter i, or NULL. */
const ir_derived_map *ir_derived_map_at(const ir_func *f, int i);
/* The block type a tensor-map parameter (a descriptor's or a derived one)
 * copies: its element kind, rank and block shape; false when parameter i
 * is no map. */
bool ir_tensormap_block(const ir_func *f, int i, ir_type *block);
/* Appends n parameters after the existing ones, renumbering every other
 * value (value id i stays parameter i); false when out of memory. */
bool ir_append_params(ir_func *f, int n, const ir_param *params);
/* The TMA box a descriptor's map copies a block with (docs/FORMAT.md's
 * rule, the loader's too): the swizzle width in bytes (32, 64 or 128: the
 * block's rows are cut into panels that wide) and the box, innermost
 * dim first; 0 when no map can copy the block. */
int ir_tensormap_box(ir_kind elem, int rank, const int32_t *block, uint32_t *box);

ir_func *ir_func_new(arena *a, const char *name, int nparams, const ir_param *params);
/* A deep copy in `a` (the same value ids), for passes that rewrite a
 * kernel once per target family; NULL when out of memory. */
ir_func *ir_clone(arena *a, const ir_func *f);
/* A new value of the given type; returns its id, -1 when out of memory. */
int ir_value_new(ir_func *f, ir_type type);
/* A new op with fresh result values of the given types and nregions empty
 * regions; NULL when out of memory. The op is not yet in any region. */
ir_op *ir_op_new(ir_func *f, ir_opcode code, src_loc loc, int nargs, const int *args,
		 int nresults, const ir_type *result_types, int nregions);
/* Appends op to region; false when out of memory. */
bool ir_region_append(ir_func *f, ir_region *r, ir_op *op);
/* Inserts op into region r before its op `at` (at == r->nops: appends). */
bool ir_region_insert(ir_func *f, ir_region *r, int at, ir_op *op);
bool ir_region_has(const ir_region *r, ir_opcode code); /* an op of r or of its regions' */
/* The index in f's body of the loop passes/partition.c split for a producer
 * warp (IR_FLAG_PRODUCER), or -1. */
int ir_producer_loop(const ir_func *f);
bool ir_op_reads(const ir_op *op, int v); /* op takes value v, itself or in its regions */
/* Adds to uses[v] each time an op of r or of its regions takes v. */
void ir_count_uses(const ir_region *r, int *uses);
/* Removes the ops without effects whose results nothing reads (a derived
 * map's shape and strides, maps[0..nmaps), count as read), until none is
 * left; false when out of memory. */
bool ir_prune(ir_func *f, int nmaps, const ir_derived_map *maps);
/* The dot of region r whose result 1-D value v only scales: through an
 * expand_dims (its axis in *axis) and a broadcast into a product, sum,
 * difference or quotient with the dot's 2-D result, itself perhaps through
 * such ops (blockwise fp8's `tl.dot(a, b) * a_s[:, None] * b_s[None, :]`);
 * NULL where not so. */
const ir_op *ir_scaled_dot(const ir_func *f, const ir_region *r, int v, int *axis);
/* An op that writes memory or orders accesses to it (stores, atomics,
 * barriers, grid dependency control): no load moves across it. */
bool ir_op_orders_memory(const ir_op *op);
/* Adds a parameter of the given type to a region; returns its value id. */
int ir_region_add_param(ir_func *f, ir_region *r, ir_type type);
const char *ir_opcode_name(ir_opcode code);
const char *ir_math_name(ir_math m);
const char *ir_cmp_name(ir_cmp c);
const char *ir_reduce_name(ir_reduce r);
const char *ir_atomic_name(ir_atomic a); /* Triton's names: add max min and or xor xchg */
const char *ir_sem_name(ir_sem m);       /* acq_rel relaxed acquire release */
const char *ir_scope_name(ir_scope c);   /* gpu cta sys */
/* Readable text dump, stable for golden tests. */
void ir_dump(strbuf *sb, const ir_func *f);

/* ======================================================================
 * verify.c - IR verifier (run between passes in debug builds and in tests)
 * ====================================================================== */

/* Checks types, operand rules, dominance of region-scoped values and
 * terminators; reports each problem as an error at the op's location. */
tilec_status ir_verify(tilec_ctx *ctx, const ir_func *f);

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
 * first. Programs run one after another, x fastest; a program split over
 * a cluster (CTA_RANK in its body) runs its CTAs one after another.
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
/* interp_run for a program passes/partition.c split between a producer
 * warp and the consumers: its sides run apart, sharing the rings, the
 * producer's iteration j of the split loop before the consumers' j + lag,
 * and the partition and the rings' order are checked (interp.c); a
 * program without such a loop runs as interp_run runs it. */
tilec_status interp_run_split(tilec_ctx *ctx, const ir_func *f, const uint32_t grid[3], interp_buffer *buffers,
			      int nbuffers, const interp_arg *args, int lag);

/* Round-to-nearest-even conversions between fp32 and fp16/bf16 bits. */
uint16_t interp_f32_to_f16(float f);
float interp_f16_to_f32(uint16_t h);
uint16_t interp_f32_to_bf16(float f);
float interp_bf16_to_f32(uint16_t h);

/* ======================================================================
 * fp8.c - fp8e4nv (e4m3fn) and fp8e5 (e5m2) conversions, as Triton 3.6
 * converts them on NVIDIA GPUs; narrowing depends on the arch's tier
 * (fp8e4nv needs sm_89; the SM80 tier defines fp8e5 only)
 * ====================================================================== */
typedef enum ir_fp8_tier { IR_FP8_SM80, IR_FP8_SM89, IR_FP8_SM90 } ir_fp8_tier;
uint8_t ir_fp8_from_f32(ir_kind k, float x, ir_fp8_tier tier);
uint8_t ir_fp8_from_f16(ir_kind k, uint16_t h, ir_fp8_tier tier);
uint8_t ir_fp8_from_bf16(ir_kind k, uint16_t h, ir_fp8_tier tier);
float ir_fp8_to_f32(ir_kind k, uint8_t b);     /* exact (NaN: fp16's canonical one widened) */
uint16_t ir_fp8_to_f16(ir_kind k, uint8_t b);  /* exact */
uint16_t ir_fp8_to_bf16(ir_kind k, uint8_t b); /* exact for fp8e4nv; fp8e5 infinities and NaNs turn finite */

/* One element of kind k in memory (little-endian, i1 as a byte), as an
 * interp_scalar and back (floats rounded to the kind; fp8: the byte in .u). */
interp_scalar interp_read(ir_kind k, const void *p);
void interp_write(ir_kind k, void *p, interp_scalar v);

#endif
