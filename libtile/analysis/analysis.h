/* analysis.h - facts about a specialized kernel that the GPU lowering needs,
 * computed from the IR without changing it.
 *
 * Axis info (axisinfo.c) says how values vary along each dimension and so
 * how wide memory accesses may be; the layout plan (layout.c) says which
 * thread holds which element of every block value. Both are plain data
 * over value ids, read by nvptx/; they depend on the IR only (whether the
 * targets have tensor cores is an argument).
 */
#ifndef TILE_ANALYSIS_H
#define TILE_ANALYSIS_H

#include "ir/ir.h"

/* bounds arithmetic the analyses share */
static inline int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static inline int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* ======================================================================
 * axisinfo.c - contiguity, divisibility and constancy of integer and
 * pointer values, per dimension (Triton's AxisInfo); it decides how wide
 * memory accesses may be
 * ====================================================================== */

typedef struct axis_info {
	int64_t contiguity[IR_MAX_RANK];   /* runs of values increasing by one */
	int64_t divisibility[IR_MAX_RANK]; /* power of two dividing each run's first value (bytes for pointers) */
	int64_t constancy[IR_MAX_RANK];    /* runs of equal values */
	/* The same two where a remainder or quotient by a value that is equal
	 * along the dim is taken not to wrap (`x % width` of a contiguous x
	 * runs on but for its wraps): likely, not proven, so they only choose
	 * which dim a layout's threads run along when no access has a proven
	 * contiguous one (layout.c), never how wide an access is. */
	int64_t runs[IR_MAX_RANK];
	int64_t steady[IR_MAX_RANK];
} axis_info;

/* One entry per value id (scalars use index 0), allocated in `a`. */
tilec_status axis_analyze(tilec_ctx *ctx, arena *a, const ir_func *f, axis_info **out);
/* How many consecutive elements of the last dimension one access of the
 * pointer block `ptr` (with `mask`, -1 for none) may cover: contiguity,
 * alignment, mask constancy and 16 bytes. */
int axis_vector_width(const ir_func *f, const axis_info *ai, int ptr, int mask);
/* The same along dimension `dim` (accesses running down that dim). */
int axis_vector_width_dim(const ir_func *f, const axis_info *ai, int ptr, int mask, int dim);
/* For the pipeliner: per value id, whether it is a 2-D load whose tile
 * cp.async could only copy in pieces under 4 bytes (its smallest copy)
 * along either dimension. NULL when out of memory. */
bool *axis_narrow_loads(arena *a, const ir_func *f, const axis_info *ai);
/* Which integer parameters without a hint, if divisible by `by` (8 or
 * 4), would widen some load or store through pointer blocks: chosen[i] =
 * by for those (the fewest that give all the widening), 0 for the rest.
 * Returns their number (0: no hint widens anything), -1 when out of
 * memory. tilec compiles such a variant besides the user's own. */
int axis_hint_params(arena *a, const ir_func *f, int by, uint8_t *chosen);
/* Whether hints x and y (as axis_hint_params chooses them) give every
 * access the same width: 1 yes, 0 no, -1 out of memory. */
int axis_same_widths(arena *a, const ir_func *f, const uint8_t *x, const uint8_t *y);

/* ======================================================================
 * range.c - the values an integer block can hold
 * ====================================================================== */

/* Bounds lo <= x <= hi for every element x of integer value v (of at most
 * 32 bits), conservative: its kind's whole range where nothing narrower
 * is known. false for other kinds. */
bool range_of(const ir_func *f, int v, int64_t *lo, int64_t *hi);

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
	bool warp_blocks;                     /* BLOCKED mma: warps count along M first and each holds one
	                                         contiguous block of N (layout_wgmma) */
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
	int vrank;                 /* the value's rank (rank, less a slice's dims) */
} layout_map;

/* What dots run on, per target family: fma chains (below sm_80),
 * mma.sync (sm_80 and newer), wgmma (sm_90a). */
typedef enum dot_unit { DOT_UNIT_FMA, DOT_UNIT_MMA, DOT_UNIT_WGMMA } dot_unit;

/* How a 2-D tile is laid out in shared memory: stored rows of the
 * contiguous dim (the value's dim 1, or dim 0 when transposed), cut into
 * panels of panel_bytes (the whole row unless panels were asked for),
 * each panel a rows x panel_bytes tile of its own, panels one after
 * another; 16-byte chunks XOR-swizzled so that 8 consecutive rows read at
 * one chunk column (an ldmatrix phase, a column of 16-byte copies) hit
 * distinct banks: element (row r, byte b of the row) is at
 *   (b / P) * rows * P + r * P + ((b % P / 16) ^ (mix((r / per_phase) % max_phase) << phase_shift)) * 16 + b % 16
 * with P = panel_bytes (Triton's shared encoding with vec = 16 bytes; with
 * panels of 32, 64 or 128 bytes it is the layout wgmma's descriptors name,
 * Triton's NVMMA shared encoding). phase_shift is 0 but for a tf32 dot's
 * N-contiguous B, read element by element (layout.c); mix(p) is p, or
 * with phase_mix > 0 p ^ (p << phase_mix) kept to p's log2(max_phase)
 * bits (a permutation of the phases), which only tiles that threads'
 * accesses alone touch take (banks.c). */
typedef struct smem_layout {
	bool transposed;          /* stored rows run along the value's dim 0 */
	int elem_bytes;
	int rows, row_bytes;      /* of the stored tile */
	int panel_bytes;          /* row_bytes, or the wgmma swizzle width (32, 64, 128) it is cut into */
	int per_phase, max_phase;
	int phase_shift;          /* the phase XORs chunk bits phase_shift .. */
	int phase_mix;            /* the phase XOR-ed with itself shifted left by this many (0: not) */
	uint32_t tile_bytes;      /* one tile of a ring */
} smem_layout;

/* The swizzled layout of an R x C tile of elem_bytes elements; `panels`:
 * rows cut into the widest of 128, 64 or 32 bytes that divides them, as
 * wgmma reads them. */
smem_layout smem_layout_make(int32_t r, int32_t c, int elem_bytes, bool transposed, bool panels);
/* How many bytes element (row + dr, col + dc) lies from (row, col), in
 * the value's coordinates, when that is the same for every (row, col): dr
 * a whole number of phase periods, dc whole swizzle spans or panels; false
 * when it depends on where (row, col) is. Lets a thread address its
 * elements from one register plus constants. */
bool smem_layout_delta(const smem_layout *s, int64_t dr, int64_t dc, int64_t *bytes);
void smem_layout_str(strbuf *sb, const smem_layout *s);

/* ======================================================================
 * banks.c - shared-memory bank conflicts of threads' accesses to a
 * swizzled tile
 * ====================================================================== */

/* The byte offset of element (r, c) (value coordinates) by the formula
 * above, and the phase of stored row `row` (shifted into place). */
int64_t smem_layout_offset(const smem_layout *s, int64_t r, int64_t c);
int smem_layout_phase(const smem_layout *s, int64_t row);
/* The bytes from one staged tile to the next (128-byte aligned). */
int64_t smem_tile_stride(const smem_layout *s);
/* How many consecutive registers, from each multiple of the result on,
 * hold elements of value type t consecutive along the dim sl stores its
 * rows in, starting at a multiple of it, in every thread (its coordinate
 * along that dim is one too): they lie in one 16-byte chunk of the tile,
 * one access. 1 where the layout does not promise it. */
int smem_access_run(const layout_map *m, ir_type t, const smem_layout *sl, int nregs);
/* Wavefronts num_warps warps take to write (`store`: owners only) or read
 * value type t in layout l to or from tiles laid out by sl (a 3-D value:
 * one tile per index of its dim 0, smem_tile_stride apart), each run of
 * registers one access. */
uint64_t smem_wavefronts(const layout *l, ir_type t, const smem_layout *sl, int num_warps, bool store);
/* Sets sl's phase_mix to the shift under which `writer` stores and
 * `reader` loads type t in the fewest wavefronts (the smallest on a tie). */
void smem_layout_order_phase(smem_layout *sl, const layout *writer, const layout *reader, ir_type t, int num_warps);

/* The layouts of a kernel for num_warps * 32 threads. Values computed
 * from constants, aranges and splats alone are rematerialized in whatever
 * layout a use needs; others move between layouts through shared memory. */
/* Registers a value takes from others': target register i is register
 * regs[i] % m of src[regs[i] / m], m a source's registers (a split: one
 * source, half 0's registers then half 1's; an interleave: the join's two
 * operands). */
typedef struct layout_fold {
	int src[2];
	const int32_t *regs;
} layout_fold;

typedef struct layout_plan {
	const layout **of;       /* per value id; NULL for scalars */
	bool *remat;             /* per value id: cheap to recompute in any layout */
	const layout *by_rank[IR_MAX_RANK + 1]; /* the default blocked layout per rank */
	dot_unit unit;           /* what the targets' dots run on */
	bool tensor_cores;       /* unit is mma.sync or wgmma */
	bool tma;                /* the code copies descriptor blocks through tensor maps (sm_90 on; set by the caller) */
	bool fp8_widen;          /* fp8 dots widen their fragments to fp16 for m16n8k16 (mma.sync below
	                            sm_89, which takes no fp8; set by the caller) */
	bool keep_operands;      /* wgmma operands a loop does not compute are staged once before it
	                            (nvptx/dot_wgmma.c: lw_wgmma_keep; off where they leave no room) */
	uint32_t smem_limit;     /* a block's shared memory at most (set by the caller; 0: no limit):
	                            a descriptor store whose scratch would pass it goes in pieces */
	uint32_t sm_smem;        /* an SM's shared memory (set by the caller; 0: not known) */
	/* rings of shared-memory tiles (pipeline.c), per value id of a ring: */
	const smem_layout **ring;  /* its tiles' layout */
	const layout **copy;       /* the layout its asynchronous copies read their pointers in */
	bool *view;              /* per value id: a LOCAL_LOAD only tensor-core dots read, straight
	                            from shared memory (it has no registers) */
	bool *wgmma;             /* per value id: a dot result wgmma computes */
	/* A split of a value that reshapes and permutes only reorder (tutorial
	 * 09's subtiled epilogue), or those ops' last of a join (an
	 * interleave), reads its source's registers where each thread holds
	 * the elements there (layout.c's fold_split, fold_join): */
	bool *folded;            /* per value id: a join, reshape or permute only a fold reads (not lowered) */
	const layout_fold **fold; /* per value id of a split's first result or an interleave's last op, or NULL */
} layout_plan;

/* Memory ops' layouts use 16-byte vectors where axis info allows; on
 * tensor cores (mma.sync, wgmma) the dots layout_dot_mma accepts produce
 * layout_mma (as do the fp8 dots layout_dot_mma_fp8 accepts: m16n8k32 from
 * sm_89 on, widened below, plan->fp8_widen), those layout_dot_wgmma accepts
 * layout_wgmma (four consecutive warps cover an instruction's 64 rows) and
 * run on wgmma, whose operand rings are cut into panels. */
tilec_status layout_assign(tilec_ctx *ctx, arena *a, const ir_func *f, const axis_info *ai,
			   dot_unit unit, layout_plan *out);
/* The accumulator layout of mma.sync m16n8 over a wm x wn grid of warps:
 * per warp, lane l holds rows l/4 (+8) and columns 2*(l%4) (+1) of each
 * 16x8 tile, which is blocked spt [1,2], tpw [8,4], wpc [wm,wn] except
 * that along M (flagged `mma`) a warp's rows come in 16-row tiles whose
 * rows 8 apart are registers of one thread, as the instruction wants.
 * `wide` (spt [1,8]): four 8-column tiles interleave their columns, tile
 * j's column n being column 4n + j of a 32-column group, so a lane holds 8
 * consecutive columns and reads B for four tiles with one access. Rank 3
 * (a batched dot's) adds a leading batch dim over wb warps (the slowest
 * bits of the warp id), its indices beyond them in registers; wb is 1 for
 * rank 2. */
layout *layout_mma(arena *a, int rank, int wb, int wm, int wn, bool wide);
/* Triton's warps for an M x N mma.sync accumulator: wm along M, wn along N
 * (wm * wn = num_warps); `chained`: the dot feeds, or is fed by, another. */
void layout_mma_warps(int64_t m, int64_t n, int num_warps, bool chained, int *wm, int *wn);
/* A dot mma.sync can run: fp16 operands with an fp32 or fp16 result, bf16
 * or fp32 at "tf32" precision (the default) with an fp32 result, int8 with
 * an int32 result; M a multiple of 16, N of 8, K of the instruction's
 * depth (16, 8 for tf32, 32 for int8); 2-D, or 3-D (batched: each batch
 * index such a dot). */
bool layout_dot_mma(const ir_func *f, const ir_op *op);
/* An fp8 dot mma.sync m16n8k32 can run (sm_89 and newer; below, its
 * fragments widened to fp16 for two m16n8k16): fp8 operands of either kind
 * with an fp32 result, M a multiple of 16, N of 8, K of 32. */
bool layout_dot_mma_fp8(const ir_func *f, const ir_op *op);
/* A dot wgmma runs (on sm_90a): fp16 or bf16 operands with an fp32
 * result, num_warps a multiple of 4 (warpgroups) that layout_wgmma_warps
 * can place, K a multiple of 16. */
bool layout_dot_wgmma(const ir_func *f, const ir_op *op);
/* Triton's warps for an M x N wgmma accumulator: warpgroups go along M
 * while M has 64-row blocks for them, then split N (wm * wn = num_warps,
 * wm a multiple of 4); false where that leaves no whole 64-row block per
 * warpgroup or N not in 8-column tiles per warpgroup. */
bool layout_wgmma_warps(int64_t m, int64_t n, int num_warps, int *wm, int *wn);
/* The accumulator layout of wgmma over wm x wn warps: layout_mma's, with
 * wn > 1 the warps counted along M first (four consecutive warps are a
 * warpgroup, holding its 64 rows) and each warp's columns one contiguous
 * block of N / wn (an instruction writes contiguous columns), its 8-column
 * tiles in registers. */
layout *layout_wgmma(arena *a, int wm, int wn);
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
/* Same mapping of elements to (thread, register) for this shape: the same
 * layout, or two that put every element in the same register of the same
 * threads (a slice and a blocked layout can, such as [1, N]'s blocked
 * layout sliced along dim 0 and [N]'s). */
bool layout_map_eq(const layout_map *x, const layout_map *y);
void layout_str(strbuf *sb, const layout *l);

#endif
