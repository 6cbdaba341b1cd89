/* passes.h - rewrites of the tile IR between the front end and the
 * analyses.
 *
 * A pass takes a verified ir_func and leaves a verified ir_func; it needs
 * nothing but the IR. The order in which passes run is written out in one
 * function, compile_module (compile.c).
 */
#ifndef TILE_PASSES_H
#define TILE_PASSES_H

#include "ir/ir.h"

/* ======================================================================
 * pipeline.c - software pipelining of the loads that feed tl.dot
 * ====================================================================== */

/* How pipeline_loads rewrites, per target family. */
typedef struct pipeline_options {
	bool async_copies;     /* every target has cp.async (sm_80 and newer) */
	uint32_t spare_budget; /* rings up to this many bytes get a spare tile (wgmma) */
	uint32_t sm_smem;      /* shared memory per SM (0: not known) */
	bool reuse_read_tile;  /* rings of num_stages - 1 tiles (mma.sync) */
	bool copies_first;     /* rings of num_stages tiles: the copies of iteration i + num_stages-1 go
	                          before the dots (which must read their tiles synchronously: mma.sync) */
	bool tensormaps;       /* descriptor blocks are copied by TMA */
	bool run_on;           /* TMA copies run on across a persistent loop */
	bool operand_prep;     /* loads that dots read through a dequantization (w.to(tl.float16) *
	                          scale) are pipelined too, the conversion done on the tile read */
	bool warp_specialize;  /* then partition_warps (wgmma targets) */
	bool auto_warp_specialize; /* and it specializes a loop the kernel does not mark where that pays */
} pipeline_options;

/* With num_stages >= 2, rewrites each qualifying runtime for loop: with
 * async_copies (every target has cp.async, sm_80 and newer), its dots'
 * loads become rings of num_stages shared-memory tiles filled by
 * asynchronous copies num_stages - 1 iterations ahead (LOCAL_ALLOC,
 * ASYNC_COPY/COMMIT/WAIT, LOCAL_LOAD); without, they are issued one
 * iteration early into registers (a prologue, a carried tile, the next
 * tile loaded at the top of the body). The IR stays valid; only ops and
 * loop-carried values are added and the pipelined loads removed. A loop
 * whose rings take at most spare_budget bytes with one tile more each gets
 * that spare tile (for wgmma, which reads tiles asynchronously) and the
 * flag IR_FLAG_SPARE_TILE; with reuse_read_tile (mma.sync, which reads
 * tiles synchronously) and num_stages >= 3 the rings have num_stages - 1
 * tiles and the copies go into the tile just read, behind a barrier; with
 * copies_first, rings of num_stages tiles are refilled at the top of the
 * body, before its dots. narrow (indexed by value id, may be NULL) marks
 * the loads whose tiles cp.async could only copy in pieces under 4 bytes
 * (its smallest; unaligned fp16 rows, axis_narrow_loads): a loop with such
 * a load, whose loads hold at most 48 elements per thread, is pipelined
 * through registers, one iteration ahead, as without asynchronous copies,
 * instead of copying those pieces synchronously. With tensormaps, a 2-D
 * descriptor block (a LOAD flagged IR_FLAG_TENSORMAP) is copied into its
 * ring by TMA (TMA_COPY, TMA_WAIT; a barrier per tile) instead. With
 * sm_smem (shared memory per SM; 0: none), a loop gets its spare tile only
 * where that leaves as many blocks per SM (estimated from shared memory and
 * the dots' accumulators), or where it lies inside another loop. With
 * run_on, a loop of TMA copies inside a loop over tiles (a persistent
 * kernel) keeps copying into the next tile instead of starting again for
 * each: its rings then live around the outer loop, through the epilogue. */
tilec_status pipeline_loads(tilec_ctx *ctx, ir_func *f, const pipeline_options *opt, const bool *narrow);

/* ======================================================================
 * partition.c - a warp_specialize loop split between a producer warp and
 * the consumers (wgmma targets)
 * ====================================================================== */

/* The producer's warps: one, the block's last. */
enum { PARTITION_PRODUCER_WARPS = 1 };
/* Marks IR_FLAG_PRODUCER on a top-level loop marked warp_specialize that
 * qualifies, its TMA copies and the pure scalar ops they read (the
 * producer warp's program); a warning says why a marked loop does not.
 * With opt->auto_warp_specialize and no loop marked, an attention-like
 * loop that qualifies is specialized too (and marked IR_FLAG_WARP_SPECIALIZE),
 * silently where it does not. */
tilec_status partition_warps(tilec_ctx *ctx, ir_func *f, const pipeline_options *opt);
/* need (per value id, zeroed) gets what the copies before and in `loop`
 * read, through its carried values; false, with *why, where one of those
 * is not a pure scalar. */
bool partition_slice(const ir_func *f, const ir_op *loop, bool *need, const char **why);
/* Whether `ring` (a LOCAL_ALLOC's value) is one `loop` reads: a ring the
 * producer fills where the loop is split. */
bool partition_ring(const ir_op *loop, int ring);
/* The copies of a ring issued before `loop`: how far ahead it copies. */
int partition_ahead(const ir_func *f, const ir_op *loop);

/* ======================================================================
 * cluster.c - a program's blocks split over the CTAs of a thread block
 * cluster (num_ctas > 1, sm_90 on)
 * ====================================================================== */

/* NULL where f's blocks can be split over num_ctas CTAs with no CTA
 * needing another's elements, else why not (static text). */
const char *cluster_refusal(const ir_func *f, int num_ctas);
/* Splits them (f->num_ctas > 1, cluster_refusal NULL): each value along
 * the dims chosen holds its CTA's part, aranges add the CTA's offset
 * (CTA_RANK), stores and atomics of values every CTA holds are rank 0's,
 * and the user's barriers span the cluster (ival 1). An error where the
 * blocks cannot be split. */
tilec_status cluster_split(tilec_ctx *ctx, ir_func *f);

/* ======================================================================
 * carried.c - loop-carried rows recomputed from the induction variable
 * ====================================================================== */

/* Rewrites each row a counted loop carries from a cheap start by a
 * loop-invariant step and broadcasts along two axes (`offs_k += BLOCK_K`
 * in A's and B's masks) as start + iteration * step, so that each use
 * computes it in its own layout. */
tilec_status recompute_carried_rows(tilec_ctx *ctx, ir_func *f);

/* ======================================================================
 * sink.c - loads of the kernel's top level moved to their first user
 * ====================================================================== */

/* Moves each global load of f's top-level region down to just before the
 * first op that reads it, past pure ops only (no memory writes, barriers,
 * assembly, prints, asserts or control flow in between). */
void sink_loads(ir_func *f);

/* ======================================================================
 * memorder.c - a barrier between a store and a later load of the same
 * memory in one program
 * ====================================================================== */

/* Inserts a barrier (ival 1) before each global load or cp.async copy
 * whose pointer may reach memory that a store or atomic of the program
 * wrote since the last barrier: the thread loading an element need not be
 * the one that stored it. */
tilec_status order_stores_loads(tilec_ctx *ctx, ir_func *f);

#endif
