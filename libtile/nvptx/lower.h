/* lower.h - what the lowering files of nvptx/ share: the state of one
 * kernel's lowering and the helpers that more than one of them calls.
 *
 * lower.c owns the state and the helpers every op needs (types, small
 * builders, coordinates, shared memory, values in layouts) and dispatches
 * each op to its family: memory.c (loads, stores), math.c (elementwise
 * arithmetic, compare, math functions, casts), reduce.c (reductions),
 * convert.c (layout changes, reshape, permute), dot_fma.c and dot_mma.c
 * (tl.dot). Functions declared here carry the lw_ prefix, after the state
 * `lw` they take; everything else is static in its file. This header
 * includes llvm-c, so only nvptx/ includes it.
 */
#ifndef TILE_NVPTX_LOWER_H
#define TILE_NVPTX_LOWER_H

#include "nvptx/nvptx.h"

#include <llvm-c/Core.h>

/* A value as the thread holds it: one LLVM value per register. */
typedef struct lval {
	int n;               /* registers; 1 for scalars */
	LLVMValueRef *r;
	const layout *l;     /* NULL for scalars */
} lval;

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
	LLVMValueRef smem;   /* placeholder, resized at the end */
	uint32_t smem_bytes;
	bool smem_dynamic;
	bool libdevice;
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
void lw_barrier(lw *w);
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

/* lower.c: the kernel's shared-memory scratch (sized at the end by the
 * largest smem_need) */
LLVMValueRef lw_smem_addr(lw *w, LLVMValueRef byte_offset);
void lw_smem_need(lw *w, uint64_t bytes);

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
LLVMValueRef lw_compare(lw *w, int sub, ir_kind k, LLVMValueRef x, LLVMValueRef y);
/* NULL when the function has no lowering for kind k */
LLVMValueRef lw_math(lw *w, const ir_op *op, ir_kind k, LLVMValueRef x);
LLVMValueRef lw_cast(lw *w, LLVMValueRef x, ir_kind from, ir_kind to);

/* memory.c */
bool lw_emit_load(lw *w, const ir_op *op, const layout *l, lval *out);
bool lw_emit_store(lw *w, const ir_op *op);

/* reduce.c */
bool lw_emit_reduce(lw *w, const ir_op *op, const layout *l, lval *out);

/* convert.c: src (shape st) as dt in layout `to`; perm for permute */
bool lw_move(lw *w, const lval *src, ir_type st, ir_type dt, const int32_t *perm, const layout *to, lval *out);

/* dot_fma.c: every tl.dot; dot operands converted (and tf32-rounded) */
bool lw_emit_dot(lw *w, const ir_op *op, const layout *l, lval *out);
bool lw_dot_operands(lw *w, lval *x, ir_kind k, bool tf32);

/* dot_mma.c: a dot whose accumulator is in layout_mma */
bool lw_emit_dot_mma(lw *w, const ir_op *op, const layout *l, lval *out);

#endif
