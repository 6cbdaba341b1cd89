/* lower.h - what the lowering files of nvptx/ share: the state of one
 * kernel's lowering and the helpers that more than one of them calls.
 *
 * lower.c owns the state and the helpers every op needs (types, small
 * builders, coordinates, shared memory, values in layouts) and dispatches
 * each op to its family: memory.c (loads, stores), math.c (elementwise
 * arithmetic, compare, math functions, casts), reduce.c (reductions),
 * scan.c (scans), atomic.c (atomics), fp8.c (fp8 conversions),
 * convert.c (layout changes, reshape, permute), tiles.c (tiles and rings
 * of them in shared memory, asynchronous copies), dot_fma.c and dot_mma.c
 * (tl.dot). Functions declared here carry the lw_ prefix, after the state
 * `lw` they take; everything else is static in its file. This header
 * includes llvm-c, so only nvptx/ includes it.
 */
#ifndef TILE_NVPTX_LOWER_H
#define TILE_NVPTX_LOWER_H

#include "nvptx/nvptx.h"

#include <llvm-c/Core.h>

/* A tile in shared memory that dots read directly (a view). */
typedef struct smem_tile {
	LLVMValueRef base;        /* i32 byte offset of the tile in shared memory */
	const smem_layout *sl;
	bool converts;            /* stored as `stored` (8-bit integers), converted as read */
	ir_kind stored;
} smem_tile;

/* A value as the thread holds it: one LLVM value per register. */
typedef struct lval {
	int n;               /* registers; 1 for scalars */
	LLVMValueRef *r;
	const layout *l;     /* NULL for scalars */
	const smem_tile *view; /* a LOCAL_LOAD the plan reads in place: no registers */
} lval;

/* A dot operand a loop reads but does not compute (dot_mma.c): its
 * fragments loaded once before the loop, or (frags NULL) its value staged
 * once into a tile of shared memory that the loop's dots read from. */
typedef struct frag_cache {
	int value, which;        /* the operand value, 0 for A and 1 for B; LW_KEPT_WGMMA_A and _B
	                            for operands staged in panels for wgmma (lw_wgmma_keep) */
	const layout *l;         /* of the dot it was loaded for */
	LLVMValueRef *frags;
	smem_tile tile;          /* with frags NULL: the staged tile */
	bool loaded;             /* staged: the first loop took its fragments */
	bool loop_only;          /* fragments of a staged tile: for one loop */
} frag_cache;

enum { LW_KEPT_WGMMA_A = 2, LW_KEPT_WGMMA_B = 3 };

/* The lowering of one kernel. */
typedef struct lw {
	tilec_ctx *ctx;
	arena *a; /* scratch, freed after lowering */
	LLVMContextRef c;
	LLVMModuleRef m;
	LLVMBuilderRef b;
	LLVMValueRef fn;
	const ir_func *f;
	const axis_info *ai;
	const layout_plan *p;
	lval *v;
	LLVMValueRef tid, lane, warp;
	LLVMValueRef ctaid[3]; /* read at the entry and again after each loop */
	LLVMValueRef smem;   /* placeholder, resized at the end */
	uint32_t smem_bytes; /* the most any point of the kernel uses */
	uint32_t smem_top;   /* the rings live below; scratch goes from here */
	uint32_t smem_kept;  /* the top of the staged operands (lw_keep_resident) */
	uint32_t *ring_at;   /* per ring value id: its byte offset */
	frag_cache cached[8]; /* dot operands loaded or staged before the loops being lowered */
	int ncached;
	bool kept_operands;  /* lw_wgmma_keep staged one */
	int wgmma_pending;   /* a dot whose wgmma group is not waited for yet, -1 when none */
	int wgmma_older;     /* a loop value whose group, issued before wgmma_pending's, the
	                        previous iteration left in flight (lower.c: carried_value) */
	bool wgmma_scratch;  /* a group in flight reads operands staged in the scratch: the
	                        next write there goes above them or waits (lw_smem_need) */
	uint32_t wgmma_staged_top; /* where those operands end (bytes from smem's start) */
	bool wgmma_phantom;  /* the group the previous iteration left in flight, which no value
	                        names, may still read them (lower.c: lower_for) */
	const ir_op *flying_dot; /* that group's dot, whose B the body stages into one of two */
	LLVMValueRef stage_parity; /* tiles by the iteration's parity (0 or 1, i32) */
	LLVMValueRef stage_shift; /* bytes lw_stage_panels adds to its base (NULL: none) */
	uint32_t scratch_lift; /* the op being lowered has its scratch this far above the
	                          operands' start, clear of them (lw_smem_need) */
	const ir_region *in_flight_body; /* the loop body whose end lower_for handles */
	int epoch;           /* loops lowered so far (lower.c: fresh_after_loop) */
	int *born;           /* per value id: the epoch it was computed in */
	lval *again;         /* per value id: computed again after a loop (lw_get), */
	LLVMBasicBlockRef *again_at; /* in this block */
	bool smem_dynamic;
	bool libdevice;
	bool arch_specific; /* emitted wgmma */
	bool tensormaps;    /* emitted TMA copies */
	bool bulk_pending;  /* a bulk store may still read scratch (tma.c) */
	bool cp_async;      /* the kernel holds cp.async copies (their groups are committed and waited for) */
	/* warp specialization (warpspec.c): the loop whose copies a producer
	 * warp issues (NULL: none), what the producer computes (per value
	 * id), how many iterations ahead the loop copies, which side is being
	 * lowered, and in the loop's body the iteration's index from 0 */
	const ir_op *ws_loop;
	bool *ws_needed;
	int ws_ahead;
	int ws_producer_warps; /* 1, or a warp group handing registers to the consumers */
	const ir_op *ws_dot_first, *ws_dot_last; /* the loop's, where two consumer groups may take turns */
	int ws_popped;       /* rings popped so far by the side being lowered */
	enum { LW_WS_NONE, LW_WS_PRODUCER, LW_WS_CONSUMER } ws_role;
	LLVMValueRef ws_iter;
	/* the consumers' two warpgroups taking turns at issuing the loop's
	 * dots (warpspec.c): the dots that end and begin a turn, whether each
	 * was issued as wgmma, the barriers placed so far, and the barriers
	 * (lw_barrier) the kernel has emitted */
	const ir_op *pp_first, *pp_last;
	bool pp_first_issued, pp_last_issued;
	LLVMValueRef pp_calls[5];
	int pp_ncalls, nbarriers, pp_barriers_before;
	tilec_status st;
	LLVMTypeRef i1, i8, i16, i32, i64, f16, bf16, f32, f64, gptr, vd;
} lw;

/* lower.c: errors (the first one wins; each returns false) and value types */
bool lw_fail(lw *w, const ir_op *op, tilec_status st, const char *fmt, ...) TILE_PRINTF(4, 5);
bool lw_oom(lw *w);
ir_type lw_vtype(const lw *w, int v);

/* lower.c: types and small builders; stype is the type in memory (i1 a
 * byte, pointers i64), to_storage/from_storage convert to and from it */
LLVMTypeRef lw_ltype(const lw *w, ir_kind k);
LLVMTypeRef lw_stype(const lw *w, ir_kind k);
LLVMValueRef lw_ci32(const lw *w, int64_t v);
LLVMValueRef lw_call(lw *w, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n);
LLVMValueRef lw_asm_call(lw *w, LLVMTypeRef ret, const char *text, const char *cons, LLVMValueRef *args,
			 int n, bool side_effects);
/* The program's threads wait for one another (the consumers' named
 * barrier in a warp-specialized kernel); lw_barrier_all: every thread of
 * the block, the producer too. */
void lw_barrier(lw *w);
void lw_barrier_all(lw *w);
/* __nvvm_reflect("__CUDA_ARCH"): 10 x the target's sm number once O3 ran */
LLVMValueRef lw_cuda_arch(lw *w);
bool lw_alloc_regs(lw *w, lval *out, int n, const layout *l);
LLVMValueRef lw_to_storage(lw *w, LLVMValueRef x, ir_kind k);
LLVMValueRef lw_from_storage(lw *w, LLVMValueRef x, ir_kind k);
/* Code between begin_if and end_if runs only where pred holds. */
LLVMBasicBlockRef lw_begin_if(lw *w, LLVMValueRef pred);
void lw_end_if(lw *w, LLVMBasicBlockRef join);

/* lower.c: coordinates of the elements a thread holds */
layout_map lw_map_of(const layout *l, ir_type t);
LLVMValueRef lw_thread_raw(lw *w, const layout_map *m, int d);
LLVMValueRef lw_thread_coord(lw *w, const layout_map *m, int d);
LLVMValueRef lw_owner(lw *w, const layout_map *m);
void lw_reg_coords(lw *w, const layout_map *m, int rank, int r, LLVMValueRef *out);
LLVMValueRef lw_linear_index(lw *w, const layout_map *m, ir_type t, int r);

/* lower.c: shared memory is a stack in program order: rings of tiles
 * (tiles.c) are pushed and popped around their loops, scratch (layout
 * conversions, reductions, staged dot operands) lies above the live rings;
 * the kernel's size is the largest smem_need. smem_at takes a byte offset
 * from the start, smem_addr one into the scratch. An op that uses the
 * scratch calls smem_need first (its scratch may start above operands a
 * wgmma group in flight reads, until the op is lowered: scratch_unlift);
 * what stages operands or places tiles there calls smem_stage (it waits
 * for those groups); smem_account counts bytes alone. */
LLVMValueRef lw_smem_at(lw *w, LLVMValueRef byte_offset);
LLVMValueRef lw_smem_addr(lw *w, LLVMValueRef byte_offset);
void lw_smem_need(lw *w, uint64_t bytes);
void lw_smem_stage(lw *w, uint64_t bytes);
void lw_smem_account(lw *w, uint64_t bytes);
void lw_scratch_unlift(lw *w);

/* lower.c: value v, or an op's operands, in layout l (recomputed or moved
 * when held in another) */
bool lw_get(lw *w, int v, const layout *l, lval *out);
bool lw_get_args(lw *w, const ir_op *op, const layout *l, lval *args);

/* math.c: one register at a time; widen/narrow take fp16/bf16 through fp32 */
bool lw_is_f(ir_kind k);
bool lw_narrow_f(ir_kind k);
LLVMValueRef lw_widen(lw *w, LLVMValueRef x, ir_kind k);
LLVMValueRef lw_narrow(lw *w, LLVMValueRef x, ir_kind k);
LLVMValueRef lw_intrinsic2(lw *w, const char *base, LLVMValueRef x, LLVMValueRef y);
LLVMValueRef lw_libdevice(lw *w, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n);
LLVMValueRef lw_binop(lw *w, const ir_op *op, ir_kind k, LLVMValueRef x, LLVMValueRef y);
bool lw_binop_pair(lw *w, const ir_op *op, ir_kind k, LLVMValueRef x[2], LLVMValueRef y[2], LLVMValueRef out[2]);
LLVMValueRef lw_compare(lw *w, int sub, ir_kind k, LLVMValueRef x, LLVMValueRef y);
/* NULL when the function has no lowering for kind k */
LLVMValueRef lw_math(lw *w, const ir_op *op, ir_kind k, LLVMValueRef x);
LLVMValueRef lw_cast(lw *w, LLVMValueRef x, ir_kind from, ir_kind to);
/* An integer x of kind `from` known to lie in [lo, hi] to fp16: through
 * its bits where the range allows (see math.c), else lw_cast. */
LLVMValueRef lw_cast_ranged(lw *w, LLVMValueRef x, ir_kind from, int64_t lo, int64_t hi);

/* fp8.c: casts to and from fp8 (an i8 of its bits), with fp32, fp16 and
 * bf16 on the other side, as Triton converts them on the target's tier */
LLVMValueRef lw_fp8_cast(lw *w, LLVMValueRef x, ir_kind from, ir_kind to);

/* memory.c; load_vector: vec consecutive elements at a global pointer as
 * storage elements, with pred one predicated access: where it is off, the
 * elements are `fill` (vec storage elements), or undefined with fill NULL,
 * set as `mode` says; is_volatile reads with ld.volatile (tl.load's
 * volatile=True) */
typedef enum {
	LW_FILL_FIRST,       /* the registers set before the access, in its asm */
	LW_FILL_AFTER,       /* selected after it, a word at a time where elements are narrower */
	LW_FILL_AFTER_ELEMS, /* selected after it an element at a time */
} lw_fill_mode;
bool lw_emit_load(lw *w, const ir_op *op, const layout *l, lval *out);
bool lw_emit_store(lw *w, const ir_op *op);
/* The values the `own` threads hold in out (a block's registers in map m,
 * or a scalar, m NULL) to every thread, through shared memory: a scalar
 * atomic's old value, a scalar volatile load */
void lw_share_owned(lw *w, lval *out, const layout_map *m, ir_type t, LLVMValueRef own, ir_kind k);
/* Where a load reads: ptr, plus index (an i32, with index2 added when not
 * NULL, the i32 sum sign-extended and scaled by the element's bytes; NULL
 * for none) and off bytes. */
typedef struct lw_address {
	LLVMValueRef ptr;
	LLVMValueRef index, index2;
	int off;
} lw_address;
/* How many times ops of `code` (any op where code < 0) read value v in r
 * and the regions inside it. */
int lw_uses(const ir_region *r, int v, int code);
void lw_load_vector(lw *w, lw_address at, LLVMValueRef pred, int vec, ir_kind k, const LLVMValueRef *fill,
		    lw_fill_mode mode, bool is_volatile, LLVMValueRef *elems);
/* How many consecutive registers of op's pointer (args[0]) one access
 * covers: contiguity and alignment, the mask's constancy (mask: its value
 * id, -1 for none) and the layout's runs. */
int lw_access_width(lw *w, const ir_op *op, const layout *l, int mask);


/* tiles.c: tiles in shared memory (the swizzled smem_layout), rings of
 * them and the asynchronous copies that fill them */
LLVMValueRef lw_swizzled(lw *w, const smem_layout *sl, LLVMValueRef base, LLVMValueRef row, LLVMValueRef col);
/* Writes a 2-D block's elements into a tile laid out by sl at scratch byte
 * `base` (from the scratch's start), a 3-D block's into one such tile per
 * index of its dim 0, smem_tile_stride apart (replicas do not write);
 * registers consecutive along the stored rows go out as one access. */
void lw_stage_tile(lw *w, const lval *x, ir_type t, const smem_layout *sl, int64_t base);
/* Whether each register of a 2-D block (sl not transposed) holds, in every
 * thread, an element of one panel of sl, the same one: then
 * lw_stage_panels writes panels first .. first + count - 1 alone, panel
 * `first` at scratch byte `base`. */
bool lw_panels_apart(const lval *x, ir_type t, const smem_layout *sl);
void lw_stage_panels(lw *w, const lval *x, ir_type t, const smem_layout *sl, int64_t base, int first, int count);
/* Reads such a tile (or tiles) at shared byte `base` into out, in layout l. */
bool lw_read_tile(lw *w, lval *out, const layout *l, ir_type t, const smem_layout *sl, LLVMValueRef base);
bool lw_emit_local_alloc(lw *w, const ir_op *op);
bool lw_emit_async_copy(lw *w, const ir_op *op);
bool lw_emit_local_load(lw *w, const ir_op *op, const layout *l, lval *out);
/* out: a tile read in place (no registers) at byte `base` laid out by sl */
bool lw_view(lw *w, lval *out, const layout *l, LLVMValueRef base, const smem_layout *sl);
/* A view of the same bytes as `from`: its transpose (flip), or its
 * conversion (cast: `from` holds elements of kind `stored`). */
bool lw_view_of(lw *w, lval *out, const layout *l, const smem_tile *from, bool flip, bool cast, ir_kind stored);

/* tma.c: rings TMA fills: their barriers' bytes (0 for other rings), set
 * up after a ring is pushed and put away before it is popped; TMA_COPY,
 * TMA_WAIT */
uint32_t lw_tma_barrier_bytes(const lw *w, int ring);
void lw_tma_ring_pushed(lw *w, int ring);
void lw_tma_ring_popped(lw *w, int ring);
bool lw_emit_tma_copy(lw *w, const ir_op *op);
bool lw_emit_tma_wait(lw *w, const ir_op *op);
/* tma.c: a descriptor block's STORE on sm_90a: staged in shared memory as
 * its map's box, then one bulk tensor store per panel */
bool lw_emit_tma_store(lw *w, const ir_op *op);
/* tma.c: thread 0 waits until the bulk stores issued have read their
 * scratch, then (with `barrier`) every thread waits for it; clears
 * bulk_pending. Whether op is a store the copy engine writes (a 2-D
 * descriptor block where the family has TMA), whether a region holds one. */
void lw_bulk_wait(lw *w, bool barrier);
bool lw_bulk_store(const lw *w, const ir_op *op);
bool lw_bulk_stores(const lw *w, const ir_region *r);

/* atomic.c: ATOMIC_RMW and ATOMIC_CAS (atom/red, one per owned element) */
bool lw_emit_atomic(lw *w, const ir_op *op, const layout *l, lval *out);

/* reduce.c: REDUCE; REDUCE_FN's k results; lw_shfl, x from another lane
 * (up or down by `by` lanes, from lane `by`, or xor `by`) 32 bits at a
 * time, which the reductions and the scans share */
bool lw_emit_reduce(lw *w, const ir_op *op, const layout *l, lval *out);
bool lw_emit_reduce_fn(lw *w, const ir_op *op);
typedef enum lw_shfl_mode { LW_SHFL_UP, LW_SHFL_DOWN, LW_SHFL_IDX, LW_SHFL_BFLY } lw_shfl_mode;
LLVMValueRef lw_shfl(lw *w, lw_shfl_mode mode, LLVMValueRef x, LLVMValueRef by);

/* scan.c: a SCAN op's k results; lower.c: a region of scalar ops (a scan's
 * combine) run on the given parameter values, the yielded values in out */
bool lw_emit_scan(lw *w, const ir_op *op);
bool lw_lower_scalar_region(lw *w, const ir_region *r, const LLVMValueRef *params, LLVMValueRef *out);

/* inline_asm.c: INLINE_ASM's results */
bool lw_emit_inline_asm(lw *w, const ir_op *op);

/* debug.c: DEVICE_ASSERT (__assertfail) and DEVICE_PRINT (vprintf) */
bool lw_emit_device_assert(lw *w, const ir_op *op);
bool lw_emit_device_print(lw *w, const ir_op *op);

/* shape.c: JOIN, FLIP, CAT (one result, in layout l) and SPLIT (two) */
bool lw_emit_shape_op(lw *w, const ir_op *op, const layout *l, lval *out);
bool lw_emit_split(lw *w, const ir_op *op);
/* Registers first .. first + n of a folded value (layout_fold) in layout l,
 * picked from its sources' registers. */
bool lw_emit_fold(lw *w, const layout_fold *f, const layout *l, int first, int n, lval *out);
/* shape.c: GATHER (the source through shared memory, read at the indices)
 * and HISTOGRAM (shared-memory atomic adds into the bins) */
bool lw_emit_gather(lw *w, const ir_op *op, const layout *l, lval *out);
bool lw_emit_histogram(lw *w, const ir_op *op, const layout *l, lval *out);

/* convert.c: src (shape st) as dt in layout `to`; perm for permute */
bool lw_move(lw *w, const lval *src, ir_type st, ir_type dt, const int32_t *perm, const layout *to, lval *out);

/* dot_fma.c: every tl.dot */
bool lw_emit_dot(lw *w, const ir_op *op, const layout *l, lval *out);

/* dot_mma.c: a dot whose accumulator is in layout_mma; before a loop, the
 * fragments of operands its dots read but do not compute */
bool lw_emit_dot_mma(lw *w, const ir_op *op, const layout *l, lval *out);
bool lw_hoist_fragments(lw *w, const ir_region *body, bool keep_a);
/* A dot A operand several loops of a region read (lw_shared_operands). */
typedef struct shared_operand {
	int value;
	const ir_op *dot;       /* its first loop's dot */
	int loops, last_loop;   /* how many loops read it; the last one counted */
} shared_operand;
int lw_shared_operands(lw *w, const ir_region *r, shared_operand **out);
bool lw_keep_resident(lw *w, const ir_op *def, const shared_operand *so, int n);
void lw_drop_loop_fragments(lw *w, int from);

/* dot_mma.c, shared with dot_wgmma.c: */
/* One mma.sync instruction: K depth, operand and accumulator types. Every
 * kind moves 32 bytes of K per instruction, so a fragment register is one
 * 32-bit word of 4 / eb elements. */
typedef struct mma_kind {
	int kstep, eb;
	bool tf32, f16acc, int8;
	const char *ab;   /* operand type in the instruction */
} mma_kind;
mma_kind lw_mma_kind(ir_kind a, ir_kind c);

/* Where a dot operand's fragments come from: a tile in shared memory, or
 * (A only) the registers of a chained dot's result in the same mma
 * layout, or fragments loaded once before the loop (cache). */
typedef struct mma_operand {
	smem_tile tile;          /* base NULL: not in shared memory */
	const lval *regs;        /* the chained result */
	layout_map regm;
	LLVMValueRef *cache;     /* [tile][kstep][words] */
} mma_operand;

/* Per warp: the accumulator's tiles (mt x nt of 16 x 8) and their rows
 * and columns (constants of the layout, plus the warp's origin). */
typedef struct mma_tiles {
	int mt, nt;
	bool wide;           /* layout_mma's wide: col[j] is the first column of j's 4-tile group */
	int *reg;            /* [i][j][q]: the accumulator register of c_q */
	LLVMValueRef *row;   /* [i]: first row of A's tile i, wrapped to M */
	LLVMValueRef *col;   /* [j]: first column of B's tile j, wrapped to N */
} mma_tiles;
/* The tiles of the accumulator (layout map mc) of a dot of M x N. */
bool lw_mma_tiles(lw *w, const ir_op *op, const layout_map *mc, int64_t M, int64_t N, mma_tiles *tl);
/* Operand `which` (0: A, 1: B) of a dot: its ring tile when it is a view,
 * A's chained registers, fragments loaded before the loop, or its
 * registers staged into scratch at byte `scratch` (*staged bytes). */
/* The registers a tensor-core dot's operand v is staged from: its own, or
 * (*flip) those of the transpose's source where layout.c folded a
 * transpose into the staging (t: their type); lw_stage_operand stores them
 * into scratch laid out by sl, the operand's layout. */
bool lw_operand_regs(lw *w, int v, lval *x, ir_type *t, bool *flip);
/* The value whose registers lw_operand_regs stages operand v from. */
int lw_staged_from(lw *w, int v, bool *flip);
void lw_stage_operand(lw *w, const lval *x, ir_type t, bool flip, const smem_layout *sl, int64_t base);
bool lw_mma_operand(lw *w, const ir_op *op, int which, const layout_map *mc, const mma_kind *mk,
		    int64_t scratch, mma_operand *o, int64_t *staged);
/* Whether lw_mma_operand would read the operand without staging it
 * (fragments hoisted before the loop, a tile kept, a ring's view, a
 * chained dot's registers), described in *o. */
bool lw_operand_in_place(lw *w, const ir_op *op, int which, const layout_map *mc, const mma_kind *mk,
			 mma_operand *o);
/* A's fragment words (4) of 16-row tile i (first row `row`), K step ks of nks. */
void lw_mma_a(lw *w, const mma_kind *mk, const mma_operand *o, LLVMValueRef row, int i, int ks, int nks,
	      LLVMValueRef *a);

/* dot_wgmma.c: a dot layout_assign gave to wgmma (sm_90a), whose group
 * is left in flight (w->wgmma_pending) until lw_wgmma_wait, which lower.c
 * calls before anything reads the result */
bool lw_emit_dot_wgmma(lw *w, const ir_op *op, const layout *l, lval *out);
/* Before a loop: operand `which` of wgmma dot op when the loop does not
 * compute it (attention backward's K and V, attention's Q), staged once
 * into a panel tile of its own above the scratch, which the loop's dots
 * read in place by descriptor; *slot describes it, or has value -1 where
 * the loop computes the operand (or reads it in place, or it is a chained
 * dot's A, or plan->keep_operands is off). The caller gives the tile's
 * shared memory back after the loop. */
bool lw_wgmma_keep(lw *w, const ir_op *op, int which, frag_cache *slot);
/* The tile operand `which` (value v: LW_KEPT_WGMMA_A or _B) was staged
 * into before the loops being lowered (lw_wgmma_keep), or NULL. */
const smem_tile *lw_kept_tile(lw *w, int v, int which);
void lw_wgmma_wait(lw *w);
/* wait_group `groups` with value v's registers tied through it (v -1:
 * none), and those of the older group in flight, which it completes */
void lw_wgmma_wait_for(lw *w, int v, int groups);

/* warpspec.c: the loop passes/partition.c gave a producer warp
 * (w->ws_loop, what the producer computes, how far ahead it copies); the
 * block's threads; in the loop's body, whether copy j of ring
 * `ring` (this iteration's) refills a slot used before, with `use` (may be
 * NULL) set to j / tiles, the refill's count from 1 */
bool lw_ws_plan(lw *w);
uint32_t lw_ws_threads(const lw *w);
/* whether a ring is one the producer fills (the loop's; a later loop's
 * are the consumers') */
bool lw_ws_ring(const lw *w, int ring);
/* the registers at the entry of a kernel whose producer is a warp group
 * (.maxnreg), 0 elsewhere; the first code of each side (setmaxnreg) */
int lw_ws_entry_regs(const lw *w);
void lw_ws_side_entered(lw *w);
LLVMValueRef lw_ws_refill(lw *w, int ring, LLVMValueRef *use);
/* The consumers' turns over the warp-specialized loop: lw_pp_begin before
 * the loop (it decides whether the loop takes turns), lw_pp_dot around each
 * wgmma dot's issue (before: ahead of its fence, else after its commit),
 * lw_pp_end at the loop's exit (it removes the turns where the body turned
 * out to hold a barrier of all consumers or a dot not issued as wgmma) */
void lw_pp_begin(lw *w);
void lw_pp_dot(lw *w, const ir_op *dot, bool before);
void lw_pp_end(lw *w);

#endif
