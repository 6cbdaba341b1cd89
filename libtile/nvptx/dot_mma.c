/* dot_mma.c - tl.dot on tensor cores: mma.sync with ldmatrix (sm_80 and
 * newer).
 *
 * fp16 and bf16 operands run mma.sync m16n8k16 into fp32, fp32 operands of
 * a "tf32" dot m16n8k8 after rounding. A and B are staged in shared memory
 * row-major with padded rows, fragments come through ldmatrix (.trans for
 * B; tf32 B word by word), and the accumulator stays in layout_mma,
 * mma.sync's own fragment layout, so that a K loop keeps it in registers.
 */
#include "nvptx/lower.h"

#include <stdio.h>

/* Writes a 2-D block to shared memory row-major from `base` (bytes), rows
 * `stride` elements apart; replicas do not write. */
static void stage_rows(lw *w, const lval *x, ir_type t, int64_t stride, int64_t base)
{
	int64_t bytes = ir_kind_bytes((ir_kind)t.kind);
	layout_map m = lw_map_of(x->l, t);
	LLVMValueRef own = lw_owner(w, &m);
	LLVMBasicBlockRef join = own ? lw_begin_if(w, own) : NULL;
	for (int r = 0; r < x->n; r++) {
		LLVMValueRef cc[2];
		lw_reg_coords(w, &m, 2, r, cc);
		LLVMValueRef e = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, cc[0], lw_ci32(w, stride), ""), cc[1], "");
		LLVMValueRef off = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, e, lw_ci32(w, bytes), ""), lw_ci32(w, base), "");
		LLVMSetAlignment(LLVMBuildStore(w->b, x->r[r], lw_smem_addr(w, off)), (unsigned)bytes);
	}
	if (join)
		lw_end_if(w, join);
}

/* n 32-bit registers from ldmatrix (x2 or x4, .trans) at this lane's row
 * address (bytes into shared memory). */
static void ldmatrix(lw *w, LLVMValueRef off, int n, bool trans, LLVMValueRef *out)
{
	LLVMTypeRef el[4] = {w->i32, w->i32, w->i32, w->i32};
	LLVMTypeRef st = LLVMStructTypeInContext(w->c, el, (unsigned)n, false);
	char name[64];
	snprintf(name, sizeof name, "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x%d%s.b16.p3", n, trans ? ".trans" : "");
	LLVMValueRef p = lw_smem_addr(w, off);
	LLVMValueRef v = lw_call(w, name, st, &p, 1);
	for (int i = 0; i < n; i++)
		out[i] = LLVMBuildExtractValue(w->b, v, (unsigned)i, "");
}

/* tl.dot on tensor cores: mma.sync m16n8k16, fp16 or bf16 in, fp32 out;
 * fp32 operands of a "tf32" dot round to tf32 and run m16n8k8, whose A
 * fragment has ldmatrix's shape in 32-bit words (B's is loaded word by
 * word: ldmatrix.trans moves 16-bit elements).
 * A (MxK) and B (KxN) go to shared memory row-major, each row padded by
 * 16 bytes, which keeps ldmatrix's row addresses 16-byte aligned and puts
 * 8 consecutive rows in distinct banks. Then, per 16-deep (tf32: 8-deep)
 * slice of K, each warp loads the B fragments of its 8-column tiles and,
 * per 16-row tile of A (ldmatrix), accumulates into its 16x8 tiles. The
 * result is in layout_mma, so a tile's registers are the instruction's
 * c0..c3 (rows g and g+8, columns 2t and 2t+1, g = lane/4, t = lane%4). */
bool lw_emit_dot_mma(lw *w, const ir_op *op, const layout *l, lval *out)
{
	ir_type at = lw_vtype(w, op->args[0]), bt = lw_vtype(w, op->args[1]), ct = lw_vtype(w, op->results[0]);
	int64_t M = at.shape[0], K = at.shape[1], N = bt.shape[1];
	bool tf32 = at.kind == IR_F32;
	/* rows padded by 16 bytes (A: 4 tf32 words, keeping 8 rows of ldmatrix
	 * in distinct banks; B: 8 words, so that a tf32 B fragment's 4 rows of
	 * 8 words do too) */
	int64_t e = tf32 ? 4 : 2, kstep = tf32 ? 8 : 16;
	int64_t a_stride = K + 16 / e, b_stride = N + 8;
	int64_t a_bytes = M * a_stride * e;
	lval a, b, c;
	if (!lw_get(w, op->args[0], NULL, &a) || !lw_get(w, op->args[1], NULL, &b) || !lw_get(w, op->args[2], l, &c))
		return false;
	layout_map mc = lw_map_of(l, ct);
	int mt = mc.regs_per_dim[0] / 2, nt = mc.regs_per_dim[1] / 2;
	if (mc.rank != 2 || mt < 1 || nt < 1)
		return lw_fail(w, op, TILEC_ERR_INVALID, "internal: dot accumulator of %d x %d registers", mc.regs_per_dim[0],
			       mc.regs_per_dim[1]);
	/* rounded to tf32 as the fma path and the interpreter do */
	if (tf32 && (!lw_dot_operands(w, &a, IR_F32, true) || !lw_dot_operands(w, &b, IR_F32, true)))
		return false;
	lw_smem_need(w, (uint64_t)(a_bytes + K * b_stride * e));
	lw_barrier(w);
	stage_rows(w, &a, at, a_stride, 0);
	stage_rows(w, &b, bt, b_stride, a_bytes);
	lw_barrier(w);

	if (!lw_alloc_regs(w, out, mc.nregs, l))
		return false;
	for (int r = 0; r < mc.nregs; r++)
		out->r[r] = c.r[r];
	LLVMValueRef t2 = LLVMBuildShl(w->b, LLVMBuildAnd(w->b, w->lane, lw_ci32(w, 3), ""), lw_ci32(w, 1), "");
	LLVMValueRef lrow = LLVMBuildAnd(w->b, w->lane, lw_ci32(w, 15), "");
	LLVMValueRef lcol = LLVMBuildMul(w->b, LLVMBuildLShr(w->b, w->lane, lw_ci32(w, 4), ""), lw_ci32(w, kstep / 2), "");
	LLVMValueRef g = LLVMBuildLShr(w->b, w->lane, lw_ci32(w, 2), "");
	LLVMValueRef t = LLVMBuildAnd(w->b, w->lane, lw_ci32(w, 3), "");
	/* column 2t of the thread's first register, less 2t: its tiles' origin */
	LLVMValueRef col0 = LLVMBuildSub(w->b, lw_thread_raw(w, &mc, 1), t2, "");
	int *reg = arena_alloc(w->a, sizeof(int) * 4 * (size_t)(mt * nt));
	LLVMValueRef *bfrag = arena_alloc(w->a, sizeof(LLVMValueRef) * 2 * (size_t)nt);
	int32_t *rowc = arena_alloc(w->a, sizeof(int32_t) * (size_t)mt);
	int32_t *colc = arena_alloc(w->a, sizeof(int32_t) * (size_t)nt);
	if (!reg || !bfrag || !rowc || !colc)
		return lw_oom(w);
	for (int i = 0; i < mt; i++)
		for (int j = 0; j < nt; j++)
			for (int q = 0; q < 4; q++) {
				int32_t idx[2] = {2 * i + (q >> 1), 2 * j + (q & 1)}, cc[2];
				int r = layout_reg_join(&mc, idx);
				layout_reg_coords(&mc, r, cc);
				if (q == 0) {
					rowc[i] = cc[0];
					colc[j] = cc[1];
				} else if (cc[0] != rowc[i] + 8 * (q >> 1) || cc[1] != colc[j] + (q & 1)) {
					return lw_fail(w, op, TILEC_ERR_INVALID, "internal: dot accumulator register %d is not "
						       "an mma.sync c%d", r, q);
				}
				reg[(i * nt + j) * 4 + q] = r;
			}
	const char *ty = tf32 ? "tf32" : at.kind == IR_BF16 ? "bf16" : "f16";
	char text[160];
	snprintf(text, sizeof text, "mma.sync.aligned.m16n8k%d.row.col.f32.%s.%s.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, "
		 "{$10,$11,$12,$13};", (int)kstep, ty, ty);
	LLVMTypeRef f4[4] = {w->f32, w->f32, w->f32, w->f32};
	LLVMTypeRef rt = LLVMStructTypeInContext(w->c, f4, 4, false);
	for (int64_t k0 = 0; k0 < K; k0 += kstep) {
		for (int j = 0; j < nt; j++) {
			LLVMValueRef col = LLVMBuildAnd(w->b, LLVMBuildAdd(w->b, col0, lw_ci32(w, colc[j]), ""), lw_ci32(w, N - 1), "");
			if (tf32) { /* b0 = B[k0 + t][col + g], b1 four rows down: 32-bit, no ldmatrix.trans */
				for (int h = 0; h < 2; h++) {
					LLVMValueRef k = LLVMBuildAdd(w->b, t, lw_ci32(w, k0 + 4 * h), "");
					LLVMValueRef el = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, k, lw_ci32(w, b_stride), ""),
								       LLVMBuildAdd(w->b, col, g, ""), "");
					LLVMValueRef off = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, el, lw_ci32(w, e), ""),
									lw_ci32(w, a_bytes), "");
					LLVMValueRef x = LLVMBuildLoad2(w->b, w->i32, lw_smem_addr(w, off), "");
					LLVMSetAlignment(x, 4);
					bfrag[2 * j + h] = x;
				}
				continue;
			}
			LLVMValueRef el = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, LLVMBuildAdd(w->b, lrow, lw_ci32(w, k0), ""),
									 lw_ci32(w, b_stride), ""), col, "");
			LLVMValueRef off = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, el, lw_ci32(w, e), ""), lw_ci32(w, a_bytes), "");
			ldmatrix(w, off, 2, true, &bfrag[2 * j]);
		}
		for (int i = 0; i < mt; i++) {
			LLVMValueRef afrag[4];
			LLVMValueRef row = LLVMBuildAdd(w->b, lrow, lw_ci32(w, rowc[i]), "");
			LLVMValueRef el = LLVMBuildAdd(w->b, LLVMBuildMul(w->b, row, lw_ci32(w, a_stride), ""),
						       LLVMBuildAdd(w->b, lcol, lw_ci32(w, k0), ""), "");
			ldmatrix(w, LLVMBuildMul(w->b, el, lw_ci32(w, e), ""), 4, false, afrag);
			for (int j = 0; j < nt; j++) {
				int *rr = &reg[(i * nt + j) * 4];
				LLVMValueRef args[14] = {afrag[0], afrag[1], afrag[2], afrag[3], bfrag[2 * j], bfrag[2 * j + 1],
							 out->r[rr[0]], out->r[rr[1]], out->r[rr[2]], out->r[rr[3]]};
				LLVMValueRef d = lw_asm_call(w, rt, text, "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f", args, 10, false);
				for (int q = 0; q < 4; q++)
					out->r[rr[q]] = LLVMBuildExtractValue(w->b, d, (unsigned)q, "");
			}
		}
	}
	return true;
}
