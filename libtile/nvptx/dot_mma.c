/* dot_mma.c - tl.dot on tensor cores: mma.sync.
 *
 * m16n8k16 for fp16 and bf16 (fp32 accumulators, or fp16 for fp16),
 * m16n8k8 for fp32 at "tf32" precision (the fp32 registers as they are, as
 * Triton gives them: the tensor cores drop the low 13 mantissa bits),
 * m16n8k32 for int8 into int32 and for fp8 (either kind, sm_89; ptxas
 * emulates it on sm_90 with fp16 tensor-core instructions) into fp32;
 * below sm_89 (plan->fp8_widen) the same fp8 fragments are widened to
 * fp16 in registers for two m16n8k16 products each. The
 * accumulator is in layout_mma over the warp grid analysis/layout.c chose
 * (Triton's warpsPerTile), so a tile's registers are the instruction's
 * c0..c3 and a K loop keeps it in registers. Per K step each warp reads
 * the B fragments of its 8-column tiles (ldmatrix x4: two tiles at once)
 * and, per 16-row tile of A, its A fragment, then multiplies into its
 * tiles. Operands come from shared memory: the tiles of a pipelined loop
 * read in place (views, tiles.c), registers staged into a swizzled scratch
 * tile otherwise (between barriers); ldmatrix serves both orders of 16-bit
 * tiles and K-contiguous tiles of every kind, single loads the rest. A is
 * taken straight from registers when it is a chained dot's result in the
 * same warps (attention's softmax output), and operands a loop reads but
 * does not compute are loaded into fragments once before it.
 */
#include "nvptx/lower.h"

#include <stdio.h>
#include <string.h>

mma_kind lw_mma_kind(ir_kind a, ir_kind c)
{
	mma_kind k = {16, 2, false, c == IR_F16, a == IR_I8, a == IR_BF16 ? "bf16" : "f16"};
	if (a == IR_F32) {
		k.kstep = 8;
		k.eb = 4;
		k.tf32 = true;
		k.ab = "tf32";
	} else if (a == IR_I8) {
		k.kstep = 32;
		k.eb = 1;
		k.ab = "s8";
	} else if (ir_kind_is_fp8(a)) { /* int8's fragments, fp32 accumulators (sm_89) */
		k.kstep = 32;
		k.eb = 1;
		k.ab = a == IR_F8E4NV ? "e4m3" : "e5m2";
	}
	return k;
}

/* n 32-bit registers from ldmatrix (x2 or x4, .trans) at this lane's row
 * address (bytes into shared memory). */
static void ldmatrix(lw *w, LLVMValueRef off, int n, bool trans, LLVMValueRef *out)
{
	LLVMTypeRef el[4] = {w->i32, w->i32, w->i32, w->i32};
	LLVMTypeRef st = LLVMStructTypeInContext(w->c, el, (unsigned)n, false);
	char name[64];
	snprintf(name, sizeof name, "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x%d%s.b16.p3", n, trans ? ".trans" : "");
	LLVMValueRef p = lw_smem_at(w, off);
	LLVMValueRef v = lw_call(w, name, st, &p, 1);
	for (int i = 0; i < n; i++)
		out[i] = LLVMBuildExtractValue(w->b, v, (unsigned)i, "");
}

/* One fragment word read element by element: element e of word (row,
 * col + e) in value coordinates; for layouts ldmatrix cannot serve. */
static LLVMValueRef frag_word(lw *w, const mma_kind *mk, const smem_tile *t, LLVMValueRef row, LLVMValueRef col)
{
	LLVMTypeRef et = LLVMIntTypeInContext(w->c, (unsigned)(8 * mk->eb));
	LLVMValueRef word = LLVMConstInt(w->i32, 0, false);
	for (int e = 0; e < 4 / mk->eb; e++) {
		LLVMValueRef c = LLVMBuildAdd(w->b, col, lw_ci32(w, e), "");
		LLVMValueRef x = LLVMBuildLoad2(w->b, et, lw_smem_at(w, lw_swizzled(w, t->sl, t->base, row, c)), "");
		LLVMSetAlignment(x, (unsigned)mk->eb);
		x = LLVMBuildZExt(w->b, x, w->i32, "");
		word = e ? LLVMBuildOr(w->b, word, LLVMBuildShl(w->b, x, lw_ci32(w, 8 * mk->eb * e), ""), "") : x;
	}
	return word;
}

/* Two 16-bit elements packed into one fragment word. */
static LLVMValueRef pack2(lw *w, LLVMValueRef x, LLVMValueRef y)
{
	LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(x), 2);
	LLVMValueRef v = LLVMBuildInsertElement(w->b, LLVMGetUndef(vt), x, lw_ci32(w, 0), "");
	v = LLVMBuildInsertElement(w->b, v, y, lw_ci32(w, 1), "");
	return LLVMBuildBitCast(w->b, v, w->i32, "");
}

/* One 16-bit B fragment word of a converted view (tiles.c: 8-bit
 * integers stored with K along the stored rows, converted as read): K
 * rows k and k + 1 of column n, adjacent bytes (a 16-byte chunk keeps its
 * bytes' order under the swizzle), so one 2-byte load reads both. To
 * fp16 both convert at once: each byte (offset by 128 when signed) below
 * fp16's 1024 (0x64 above it) is 1024 + u exactly, less 1024 (or 1152)
 * is the value; three instructions where a cvt each took five. */
static LLVMValueRef cvt_word(lw *w, const mma_kind *mk, const smem_tile *t, LLVMValueRef k, LLVMValueRef n)
{
	ir_kind to = strcmp(mk->ab, "bf16") ? IR_F16 : IR_BF16;
	LLVMValueRef x = LLVMBuildLoad2(w->b, w->i16, lw_smem_at(w, lw_swizzled(w, t->sl, t->base, k, n)), "");
	LLVMSetAlignment(x, 2);
	if (to == IR_F16 && (t->stored == IR_I8 || t->stored == IR_U8)) {
		bool sign = t->stored == IR_I8;
		char text[256];
		snprintf(text, sizeof text,
			 "{\n.reg .b32 t, c;\n%s"
			 "prmt.b32 t, t, 0x64646464, 0x4140;\nmov.b32 c, %s;\nsub.f16x2 $0, t, c;\n}",
			 sign ? "xor.b32 t, $1, 0x8080;\n" : "mov.b32 t, $1;\n", sign ? "0x64806480" : "0x64006400");
		LLVMValueRef arg = LLVMBuildZExt(w->b, x, w->i32, "");
		return lw_asm_call(w, w->i32, text, "=r,r", &arg, 1, false);
	}
	LLVMValueRef e[2] = {LLVMBuildTrunc(w->b, x, w->i8, ""),
			     LLVMBuildTrunc(w->b, LLVMBuildLShr(w->b, x, LLVMConstInt(w->i16, 8, false), ""), w->i8, "")};
	for (int i = 0; i < 2; i++)
		e[i] = lw_cast(w, e[i], t->stored, to);
	return pack2(w, e[0], e[1]);
}

/* A's fragment words a0..a3 for the 16-row tile at rows row0.. and K
 * k0..: a_q holds row g + 8 (q & 1), columns (q >> 1) kstep/2 + t (4/eb) ..
 * (g = lane / 4, t = lane % 4). ldmatrix reads stored rows of 16 bytes:
 * the rows themselves when K is contiguous, transposed for 16-bit
 * elements stored along M. */
static void frag_a(lw *w, const mma_kind *mk, const smem_tile *t, LLVMValueRef row0, int64_t k0, LLVMValueRef *a)
{
	LLVMValueRef l = w->lane;
	if (!t->sl->transposed) {
		LLVMValueRef row = LLVMBuildAdd(w->b, row0, LLVMBuildAnd(w->b, l, lw_ci32(w, 15), ""), "");
		LLVMValueRef col = LLVMBuildAdd(w->b, lw_ci32(w, k0),
						LLVMBuildMul(w->b, LLVMBuildLShr(w->b, l, lw_ci32(w, 4), ""), lw_ci32(w, 16 / mk->eb), ""), "");
		ldmatrix(w, lw_swizzled(w, t->sl, t->base, row, col), 4, false, a);
	} else if (mk->eb == 2) {
		/* matrix q: K rows k0 + 8 (q >> 1) .., M columns row0 + 8 (q & 1) .. */
		LLVMValueRef k = LLVMBuildAdd(w->b, lw_ci32(w, k0),
					      LLVMBuildAdd(w->b, LLVMBuildAnd(w->b, l, lw_ci32(w, 7), ""),
							   LLVMBuildMul(w->b, LLVMBuildLShr(w->b, l, lw_ci32(w, 4), ""), lw_ci32(w, 8), ""), ""), "");
		LLVMValueRef m = LLVMBuildAdd(w->b, row0, LLVMBuildAnd(w->b, l, lw_ci32(w, 8), ""), "");
		ldmatrix(w, lw_swizzled(w, t->sl, t->base, m, k), 4, true, a);
	} else {
		LLVMValueRef g = LLVMBuildLShr(w->b, l, lw_ci32(w, 2), "");
		LLVMValueRef tk = LLVMBuildMul(w->b, LLVMBuildAnd(w->b, l, lw_ci32(w, 3), ""), lw_ci32(w, 4 / mk->eb), "");
		for (int q = 0; q < 4; q++) {
			LLVMValueRef row = LLVMBuildAdd(w->b, row0, LLVMBuildAdd(w->b, g, lw_ci32(w, 8 * (q & 1)), ""), "");
			LLVMValueRef col = LLVMBuildAdd(w->b, tk, lw_ci32(w, k0 + (q >> 1) * mk->kstep / 2), "");
			a[q] = frag_word(w, mk, t, row, col);
		}
	}
}

/* B's fragment words b0, b1 for the 8-column tiles at columns col0 and
 * (when col1) col1, K k0..: b_q holds column g, rows q kstep/2 + t (4/eb)
 * ..; with two tiles, one ldmatrix x4 reads both (b[0..1], b[2..3]). */
static void frag_b(lw *w, const mma_kind *mk, const smem_tile *t, LLVMValueRef col0, LLVMValueRef col1, int64_t k0,
		   LLVMValueRef *b)
{
	LLVMValueRef l = w->lane;
	int n = col1 ? 4 : 2;
	if (t->converts) {
		/* b_q: column g, K rows q 8 + 2t and the next */
		LLVMValueRef g = LLVMBuildLShr(w->b, l, lw_ci32(w, 2), "");
		LLVMValueRef tk = LLVMBuildMul(w->b, LLVMBuildAnd(w->b, l, lw_ci32(w, 3), ""), lw_ci32(w, 2), "");
		for (int j = 0; j < n / 2; j++)
			for (int q = 0; q < 2; q++)
				b[2 * j + q] = cvt_word(w, mk, t, LLVMBuildAdd(w->b, tk, lw_ci32(w, k0 + 8 * q), ""),
							LLVMBuildAdd(w->b, j ? col1 : col0, g, ""));
		return;
	}
	LLVMValueRef hi = LLVMBuildICmp(w->b, LLVMIntUGE, l, lw_ci32(w, 16), "");
	LLVMValueRef col = col1 ? LLVMBuildSelect(w->b, hi, col1, col0, "") : col0;
	if (t->sl->transposed) {
		/* stored rows are N: matrix q of a tile holds K k0 + q kstep/2 .. */
		LLVMValueRef row = LLVMBuildAdd(w->b, col, LLVMBuildAnd(w->b, l, lw_ci32(w, 7), ""), "");
		LLVMValueRef k = LLVMBuildAdd(w->b, lw_ci32(w, k0),
					      LLVMBuildMul(w->b, LLVMBuildAnd(w->b, LLVMBuildLShr(w->b, l, lw_ci32(w, 3), ""), lw_ci32(w, 1), ""),
							   lw_ci32(w, mk->kstep / 2), ""), "");
		ldmatrix(w, lw_swizzled(w, t->sl, t->base, k, row), n, false, b);
	} else if (mk->eb == 2) {
		/* stored rows are K: .trans gives column g of rows k0 + 8q + 2t .. */
		LLVMValueRef k = LLVMBuildAdd(w->b, lw_ci32(w, k0), LLVMBuildAnd(w->b, l, lw_ci32(w, 15), ""), "");
		ldmatrix(w, lw_swizzled(w, t->sl, t->base, k, col), n, true, b);
	} else {
		LLVMValueRef g = LLVMBuildLShr(w->b, l, lw_ci32(w, 2), "");
		LLVMValueRef tk = LLVMBuildMul(w->b, LLVMBuildAnd(w->b, l, lw_ci32(w, 3), ""), lw_ci32(w, 4 / mk->eb), "");
		/* rows a whole number of swizzle periods below row tk are the
		 * same address plus a constant (a tf32 B ring's phase repeats
		 * every 4 rows: layout.c), so one register serves a tile */
		for (int j = 0; j < n / 2; j++)
			for (int q = 0; q < 2; q++) {
				LLVMValueRef c = LLVMBuildAdd(w->b, j ? col1 : col0, g, "");
				int64_t dk = k0 + q * mk->kstep / 2;
				LLVMValueRef k = LLVMBuildAdd(w->b, tk, lw_ci32(w, dk), "");
				/* word of K elements k .. k + 4/eb - 1 at column c: one per element */
				LLVMTypeRef et = LLVMIntTypeInContext(w->c, (unsigned)(8 * mk->eb));
				LLVMValueRef word = NULL;
				for (int e = 0; e < 4 / mk->eb; e++) {
					LLVMValueRef ke = LLVMBuildAdd(w->b, k, lw_ci32(w, e), "");
					int64_t delta;
					LLVMValueRef off = smem_layout_delta(t->sl, dk + e, 0, &delta)
								   ? LLVMBuildAdd(w->b, lw_swizzled(w, t->sl, t->base, tk, c),
										  lw_ci32(w, delta), "")
								   : lw_swizzled(w, t->sl, t->base, ke, c);
					LLVMValueRef x = LLVMBuildLoad2(w->b, et, lw_smem_at(w, off), "");
					LLVMSetAlignment(x, (unsigned)mk->eb);
					x = LLVMBuildZExt(w->b, x, w->i32, "");
					word = e ? LLVMBuildOr(w->b, word, LLVMBuildShl(w->b, x, lw_ci32(w, 8 * mk->eb * e), ""), "") : x;
				}
				b[2 * j + q] = word;
			}
	}
}

/* The B fragment words of the four interleaved tiles of a wide layout's
 * 32-column group at `col` (its first column), K k0..: tile j's word
 * b_h holds column col + 4g + j, rows h kstep/2 + t (4/eb) .., so a lane
 * reads one run of 4 columns per row: tf32 one 16-byte access per h, int8
 * one 4-byte access for each of 4 rows, transposed by byte permutes.
 * out[2j + h]. */
static void frag_b_wide(lw *w, const mma_kind *mk, const smem_tile *t, LLVMValueRef col, int64_t k0, LLVMValueRef *out)
{
	LLVMValueRef g = LLVMBuildLShr(w->b, w->lane, lw_ci32(w, 2), "");
	LLVMValueRef tk = LLVMBuildMul(w->b, LLVMBuildAnd(w->b, w->lane, lw_ci32(w, 3), ""), lw_ci32(w, 4 / mk->eb), "");
	LLVMValueRef c = LLVMBuildAdd(w->b, col, LLVMBuildShl(w->b, g, lw_ci32(w, 2), ""), "");
	for (int h = 0; h < 2; h++) {
		LLVMValueRef k = LLVMBuildAdd(w->b, tk, lw_ci32(w, k0 + h * mk->kstep / 2), "");
		if (mk->eb == 4) {
			LLVMTypeRef v4 = LLVMVectorType(w->i32, 4);
			LLVMValueRef x = LLVMBuildLoad2(w->b, v4, lw_smem_at(w, lw_swizzled(w, t->sl, t->base, k, c)), "");
			LLVMSetAlignment(x, 16);
			for (int j = 0; j < 4; j++)
				out[2 * j + h] = LLVMBuildExtractElement(w->b, x, lw_ci32(w, j), "");
			continue;
		}
		LLVMValueRef r[4], p[4];
		for (int e = 0; e < 4; e++) {
			LLVMValueRef ke = LLVMBuildAdd(w->b, k, lw_ci32(w, e), "");
			r[e] = LLVMBuildLoad2(w->b, w->i32, lw_smem_at(w, lw_swizzled(w, t->sl, t->base, ke, c)), "");
			LLVMSetAlignment(r[e], 4);
		}
		/* 4x4 bytes transposed: word j gathers byte j of rows 0..3 */
		static const int lo[2] = {0x5140, 0x7362};
		for (int q = 0; q < 2; q++) {
			LLVMValueRef a0[3] = {r[0], r[1], lw_ci32(w, lo[q])}, a1[3] = {r[2], r[3], lw_ci32(w, lo[q])};
			p[2 * q] = lw_asm_call(w, w->i32, "prmt.b32 $0, $1, $2, $3;", "=r,r,r,n", a0, 3, false);
			p[2 * q + 1] = lw_asm_call(w, w->i32, "prmt.b32 $0, $1, $2, $3;", "=r,r,r,n", a1, 3, false);
		}
		for (int q = 0; q < 2; q++) {
			LLVMValueRef a0[3] = {p[2 * q], p[2 * q + 1], lw_ci32(w, 0x5410)};
			LLVMValueRef a1[3] = {p[2 * q], p[2 * q + 1], lw_ci32(w, 0x7632)};
			out[2 * (2 * q) + h] = lw_asm_call(w, w->i32, "prmt.b32 $0, $1, $2, $3;", "=r,r,r,n", a0, 3, false);
			out[2 * (2 * q + 1) + h] = lw_asm_call(w, w->i32, "prmt.b32 $0, $1, $2, $3;", "=r,r,r,n", a1, 3, false);
		}
	}
}

/* A's fragment from a chained dot's result held in the same mma layout:
 * the accumulator tiles 2ks and 2ks+1 of a warp's rows are exactly the
 * A fragment of K step ks. */
static void frag_a_regs(lw *w, const mma_operand *o, int i, int ks, LLVMValueRef *a)
{
	for (int q = 0; q < 4; q++) {
		int32_t i0[2] = {2 * i + (q & 1), 4 * ks + 2 * (q >> 1)}, i1[2] = {i0[0], i0[1] + 1};
		a[q] = pack2(w, o->regs->r[layout_reg_join(&o->regm, i0)], o->regs->r[layout_reg_join(&o->regm, i1)]);
	}
}

/* The warp's first row (d = 0) or column (d = 1) of an mma layout. */
static LLVMValueRef warp_origin(lw *w, const layout_map *m, int d)
{
	layout_field fl = layout_dim_field(m, d);
	if (fl.warps <= 1)
		return lw_ci32(w, 0);
	LLVMValueRef x = LLVMBuildAnd(w->b, LLVMBuildLShr(w->b, w->warp, lw_ci32(w, fl.warp_shift), ""),
				      lw_ci32(w, fl.warps - 1), "");
	return LLVMBuildMul(w->b, x, lw_ci32(w, fl.warp_scale), "");
}

/* What was hoisted of operand `which` (value v) for dots of layout l
 * before the loops being lowered (a staged tile serves every layout), or
 * NULL. */
static frag_cache *cached_operand(lw *w, int v, int which, const layout *l)
{
	for (int i = w->ncached - 1; i >= 0; i--) { /* a loop's fragments before the tile they came from */
		frag_cache *c = &w->cached[i];
		if (c->value == v && c->which == which && (!c->frags || layout_eq(c->l, l)))
			return c;
	}
	return NULL;
}

const smem_tile *lw_kept_tile(lw *w, int v, int which)
{
	const frag_cache *c = cached_operand(w, v, which, NULL);
	return c && !c->frags ? &c->tile : NULL;
}

int lw_staged_from(lw *w, int v, bool *flip)
{
	const ir_op *d = w->f->values[v].def;
	*flip = d && d->code == IR_OP_PERMUTE && w->p->folded[v];
	return *flip ? d->args[0] : v;
}

bool lw_operand_regs(lw *w, int v, lval *x, ir_type *t, bool *flip)
{
	v = lw_staged_from(w, v, flip);
	*t = lw_vtype(w, v);
	return lw_get(w, v, NULL, x);
}

void lw_stage_operand(lw *w, const lval *x, ir_type t, bool flip, const smem_layout *sl, int64_t base)
{
	smem_layout src = *sl;
	src.transposed ^= flip; /* the same bytes, seen from the transpose's source */
	lw_stage_tile(w, x, t, &src, base);
}

/* Whether B^T's registers (x, [N, K] of 16-bit elements) hold each
 * thread's B fragments: blocked {spt [1, 2], tpw [8, 4], wpc [wn, 1]},
 * order [1, 0], the accumulator's wn warps along N and none along M, so
 * that lane l holds columns l / 4 of each of its warp's 8-column tiles
 * (N rep j: tile j) and K pairs 2 (l % 4) and 8 on (K rep 2 ks + q: word
 * q of K step ks). analysis/layout.c's dequant_b lays a dequantization out
 * so. */
static bool b_fragment_regs(const layout *l, ir_type xt, const layout_map *mc, const mma_kind *mk)
{
	const layout *c = mc->blocked;
	return l && l->kind == LAYOUT_BLOCKED && !l->mma && l->rank == 2 && xt.rank == 2 && mk->eb == 2 && !mk->tf32 &&
	       l->size_per_thread[0] == 1 && l->size_per_thread[1] == 2 && l->threads_per_warp[0] == 8 &&
	       l->threads_per_warp[1] == 4 && l->warps_per_cta[0] == c->warps_per_cta[1] && l->warps_per_cta[1] == 1 &&
	       c->warps_per_cta[0] == 1 && c->size_per_thread[1] == 2 && l->order[0] == 1 &&
	       xt.shape[0] == mc->shape[1] && xt.shape[1] % 16 == 0;
}

/* The operand `which` (0: A, 1: B) of a tensor-core dot: its ring tile
 * when it is a view, A's chained registers when they sit in the
 * accumulator's warps, else its registers staged into scratch at byte
 * `scratch` (A stored row-major, B with K rows for 16-bit elements and N
 * rows otherwise, so that ldmatrix serves every kind). Staging writes
 * between barriers; *staged says how many bytes it took. */
bool lw_operand_in_place(lw *w, const ir_op *op, int which, const layout_map *mc, const mma_kind *mk,
			 mma_operand *o)
{
	int v = op->args[which];
	ir_type t = lw_vtype(w, v);
	memset(o, 0, sizeof *o);
	const lval *have = &w->v[v];
	const layout *hl = have->l;
	if (t.rank != 2)
		return false; /* a batched dot's operands are always staged */
	const frag_cache *c = cached_operand(w, v, which, mc->blocked);
	if (c) {
		if (c->frags)
			o->cache = c->frags;
		else
			o->tile = c->tile;
		return true;
	}
	if (have->view) {
		o->tile = *have->view;
		return true;
	}
	if (which == 0 && mk->eb == 2 && !mk->tf32 && hl && hl->mma && hl->warps_per_cta[1] == 1 &&
	    layout_eq(hl, mc->blocked) && have->r) {
		o->regs = have;
		o->regm = lw_map_of(hl, t);
		return true;
	}
	return false;
}

bool lw_mma_operand(lw *w, const ir_op *op, int which, const layout_map *mc, const mma_kind *mk,
			   int64_t scratch, mma_operand *o, int64_t *staged)
{
	int v = op->args[which];
	ir_type t = lw_vtype(w, v);
	*staged = 0;
	if (lw_operand_in_place(w, op, which, mc, mk, o))
		return true;
	lval x;
	ir_type xt;
	bool flip;
	if (!lw_operand_regs(w, v, &x, &xt, &flip))
		return false;
	if (which == 1 && flip && b_fragment_regs(x.l, xt, mc, mk)) {
		lval *keep = arena_alloc(w->a, sizeof *keep);
		if (!keep)
			return lw_oom(w);
		*keep = x;
		o->regs = keep;
		o->regm = lw_map_of(x.l, xt);
		return true;
	}
	smem_layout *sl = arena_alloc(w->a, sizeof *sl);
	if (!sl)
		return lw_oom(w);
	/* B with K rows for 16-bit elements (ldmatrix.trans) and for a wide
	 * layout (runs of 4 columns), N rows otherwise (ldmatrix); with N rows
	 * too where its registers run along K (a transpose's source, or a load
	 * along K: layout.c's operand_load), so that each run is one store */
	bool wide = mc->blocked->size_per_thread[1] == 8;
	bool n_rows = which == 1 && !wide && mk->eb != 2;
	if (which == 1 && !wide && (flip || mk->eb == 2)) {
		layout_map m = lw_map_of(x.l, xt);
		/* B's K is the registers' dim 0, a transpose's source's dim 1 */
		int along_k = layout_contig_regs(&m, flip), along_n = layout_contig_regs(&m, !flip);
		n_rows = along_k > along_n || (flip && along_k == along_n);
	}
	/* a 3-D operand: one tile per batch index, smem_tile_stride apart */
	int r0 = t.rank - 2;
	*sl = smem_layout_make(t.shape[r0], t.shape[r0 + 1], mk->eb, n_rows, false);
	*staged = smem_tile_stride(sl) * (t.rank == 3 ? t.shape[0] : 1);
	lw_smem_stage(w, (uint64_t)(scratch + *staged));
	if (!scratch)
		lw_barrier(w); /* the scratch may still be read by the op before */
	lw_stage_operand(w, &x, xt, flip, sl, scratch);
	o->tile.sl = sl;
	o->tile.base = lw_ci32(w, (int64_t)w->smem_top + scratch);
	return true;
}

/* A's fragment words (4) of tile i, K step ks. */
void lw_mma_a(lw *w, const mma_kind *mk, const mma_operand *o, LLVMValueRef row, int i, int ks, int nks,
		  LLVMValueRef *a)
{
	if (o->cache) {
		memcpy(a, &o->cache[((size_t)i * nks + ks) * 4], sizeof(LLVMValueRef) * 4);
		return;
	}
	if (o->regs) {
		frag_a_regs(w, o, i, ks, a);
		return;
	}
	frag_a(w, mk, &o->tile, row, (int64_t)ks * mk->kstep, a);
}

/* B's fragment words (2 per tile) of tiles j (and j + 1 when col1), K step ks. */
static void mma_b(lw *w, const mma_kind *mk, const mma_operand *o, LLVMValueRef col0, LLVMValueRef col1, int j,
		  int ks, int nks, LLVMValueRef *b)
{
	if (o->regs) { /* B^T's registers in b_fragment_regs's layout: tile j's columns are N rep j */
		for (int h = 0; h < (col1 ? 2 : 1); h++)
			for (int q = 0; q < 2; q++) {
				int32_t i0[2] = {j + h, 2 * (2 * ks + q)}, i1[2] = {j + h, 2 * (2 * ks + q) + 1};
				b[2 * h + q] = pack2(w, o->regs->r[layout_reg_join(&o->regm, i0)],
						     o->regs->r[layout_reg_join(&o->regm, i1)]);
			}
		return;
	}
	if (o->cache) {
		for (int h = 0; h < (col1 ? 2 : 1); h++)
			memcpy(&b[2 * h], &o->cache[((size_t)(j + h) * nks + ks) * 2], sizeof(LLVMValueRef) * 2);
		return;
	}
	frag_b(w, mk, &o->tile, col0, col1, (int64_t)ks * mk->kstep, b);
}

bool lw_mma_tiles(lw *w, const ir_op *op, const layout_map *mc, int64_t M, int64_t N, mma_tiles *tl)
{
	tl->mt = mc->regs_per_dim[0] / 2;
	tl->nt = mc->regs_per_dim[1] / 2;
	if (mc->rank != 2 || tl->mt < 1 || tl->nt < 1)
		return lw_fail(w, op, TILEC_ERR_INVALID, "internal: dot accumulator of %d x %d registers", mc->regs_per_dim[0],
			    mc->regs_per_dim[1]);
	tl->reg = arena_alloc(w->a, sizeof(int) * 4 * (size_t)(tl->mt * tl->nt));
	tl->row = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)tl->mt);
	tl->col = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)tl->nt);
	if (!tl->reg || !tl->row || !tl->col)
		return lw_oom(w);
	LLVMValueRef r0 = warp_origin(w, mc, 0), c0 = warp_origin(w, mc, 1);
	tl->wide = mc->blocked->size_per_thread[1] == 8;
	for (int i = 0; i < tl->mt; i++)
		for (int j = 0; j < tl->nt; j++)
			for (int q = 0; q < 4; q++) {
				/* c_q of tile j: column 2t + (q & 1), or in a wide group
				 * column 8t + 4 (q & 1) + j % 4 */
				int32_t col = tl->wide ? 8 * (j / 4) + 4 * (q & 1) + j % 4 : 2 * j + (q & 1);
				int32_t idx[2] = {2 * i + (q >> 1), col}, cc[2], base[2];
				int r = layout_reg_join(mc, idx);
				layout_reg_coords(mc, r, cc);
				int32_t i0[2] = {2 * i, tl->wide ? 8 * (j / 4) : 2 * j};
				layout_reg_coords(mc, layout_reg_join(mc, i0), base);
				int32_t want = tl->wide ? 4 * (q & 1) + j % 4 : (q & 1);
				if (cc[0] != base[0] + 8 * (q >> 1) || cc[1] != base[1] + want)
					return lw_fail(w, op, TILEC_ERR_INVALID, "internal: dot accumulator register %d is not "
						    "an mma.sync c%d", r, q);
				tl->reg[(i * tl->nt + j) * 4 + q] = r;
				if (q == 0 && j == 0)
					tl->row[i] = LLVMBuildAnd(w->b, LLVMBuildAdd(w->b, r0, lw_ci32(w, base[0]), ""), lw_ci32(w, M - 1), "");
				if (q == 0 && i == 0)
					tl->col[j] = LLVMBuildAnd(w->b, LLVMBuildAdd(w->b, c0, lw_ci32(w, base[1]), ""), lw_ci32(w, N - 1), "");
			}
	return true;
}

/* The products of one K step (fragments a, b) into the accumulator
 * registers acc, one mma.sync per 16 x 8 tile of the warp. */
static void mma_products(lw *w, const mma_kind *mk, const mma_tiles *tl, LLVMTypeRef rt, const char *text,
			 const char *cons, LLVMValueRef *a, LLVMValueRef *b, LLVMValueRef *acc)
{
	for (int i = 0; i < tl->mt; i++) {
		for (int j = 0; j < tl->nt; j++) {
			int *rr = &tl->reg[(i * tl->nt + j) * 4];
			LLVMValueRef args[14] = {a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3], b[2 * j], b[2 * j + 1]};
			int na = 6;
			if (mk->f16acc) {
				args[na++] = pack2(w, acc[rr[0]], acc[rr[1]]);
				args[na++] = pack2(w, acc[rr[2]], acc[rr[3]]);
			} else {
				for (int q = 0; q < 4; q++)
					args[na++] = acc[rr[q]];
			}
			LLVMValueRef d = lw_asm_call(w, rt, text, cons, args, na, false);
			if (mk->f16acc) {
				for (int h = 0; h < 2; h++) {
					LLVMValueRef v = LLVMBuildBitCast(w->b, LLVMBuildExtractValue(w->b, d, (unsigned)h, ""),
									  LLVMVectorType(w->f16, 2), "");
					acc[rr[2 * h]] = LLVMBuildExtractElement(w->b, v, lw_ci32(w, 0), "");
					acc[rr[2 * h + 1]] = LLVMBuildExtractElement(w->b, v, lw_ci32(w, 1), "");
				}
			} else {
				for (int q = 0; q < 4; q++)
					acc[rr[q]] = LLVMBuildExtractValue(w->b, d, (unsigned)q, "");
			}
		}
	}
}

/* An fp8 k32 product below sm_89 (fp8e5 only there), which has no fp8
 * mma.sync: each fragment word's bytes k, k+1 and k+2, k+3 widened to fp16
 * pairs (an fp8e5 byte is the high byte of the fp16 of the same value),
 * two m16n8k16 products; A and B take the same K positions into each, so
 * the two sum to the k32 product. Operands as the k32 instruction's. */
static const char widened_fp8_mma[] =
	"{\n.reg .b32 a<8>, b<4>;\n"
	"prmt.b32 a0, $4, 0, 0x1404; prmt.b32 a1, $5, 0, 0x1404; prmt.b32 a2, $6, 0, 0x1404; "
	"prmt.b32 a3, $7, 0, 0x1404;\nprmt.b32 b0, $8, 0, 0x1404; prmt.b32 b1, $9, 0, 0x1404;\n"
	"prmt.b32 a4, $4, 0, 0x3424; prmt.b32 a5, $5, 0, 0x3424; prmt.b32 a6, $6, 0, 0x3424; "
	"prmt.b32 a7, $7, 0, 0x3424;\nprmt.b32 b2, $8, 0, 0x3424; prmt.b32 b3, $9, 0, 0x3424;\n"
	"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0,$1,$2,$3}, {a0,a1,a2,a3}, {b0,b1}, {$10,$11,$12,$13};\n"
	"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0,$1,$2,$3}, {a4,a5,a6,a7}, {b2,b3}, {$0,$1,$2,$3};\n}";

/* tl.dot on tensor cores: mma.sync m16n8k16 (fp16, bf16; fp32 or fp16
 * accumulators), m16n8k8 (tf32, fp32 registers as they are) and
 * m16n8k32 (int8, int32 accumulators; fp8, fp32 accumulators). The
 * accumulator is in layout_mma, so a tile's registers are the
 * instruction's c0..c3 (rows g and g+8, columns 2t and 2t+1). Per K step,
 * each warp reads the B fragments of its
 * 8-column tiles (ldmatrix x4: two tiles at once) and, per 16-row tile of
 * A, its A fragment, then multiplies into its tiles. Operands come from
 * shared memory (the tiles of a pipelined loop in place, registers staged
 * into a swizzled scratch tile otherwise) or, for A, straight from a
 * chained dot's registers. */
bool lw_emit_dot_mma(lw *w, const ir_op *op, const layout *l, lval *out)
{
	ir_type at = lw_vtype(w, op->args[0]), ct = lw_vtype(w, op->results[0]);
	/* a batched dot: the 2-D dot of each of this warp's batch indices in
	 * turn, its accumulator the registers of that index (the batch dim is
	 * the layout's slowest, over warps then registers: layout_mma) */
	int r0 = ct.rank - 2;
	int64_t wb = ct.rank == 3 ? l->warps_per_cta[0] : 1, nbatch = ct.rank == 3 ? ct.shape[0] / wb : 1;
	int64_t M = at.shape[r0], K = at.shape[r0 + 1], N = ct.shape[r0 + 1];
	mma_kind mk = lw_mma_kind((ir_kind)at.kind, (ir_kind)ct.kind);
	/* fp8 operands may differ in kind (.e4m3.e5m2) */
	const char *btype = lw_mma_kind((ir_kind)lw_vtype(w, op->args[1]).kind, (ir_kind)ct.kind).ab;
	lval c;
	if (!lw_get(w, op->args[2], l, &c))
		return false;
	const layout *l2 = ct.rank == 3 ? layout_mma(w->a, 2, 1, l->warps_per_cta[1], l->warps_per_cta[2], false) : l;
	if (!l2)
		return lw_oom(w);
	ir_type ct2 = ct;
	ct2.rank = 2;
	ct2.shape[0] = (int32_t)M;
	ct2.shape[1] = (int32_t)N;
	layout_map mc = lw_map_of(l2, ct2);
	int n2 = mc.nregs;
	if ((int64_t)n2 * nbatch != lw_map_of(l, ct).nregs)
		return lw_fail(w, op, TILEC_ERR_INVALID, "internal: a batched dot's accumulator is not %lld tiles",
			       (long long)nbatch);
	mma_tiles tl;
	if (!lw_mma_tiles(w, op, &mc, M, N, &tl))
		return false;
	mma_operand A, B;
	int64_t sa, sb;
	if (!lw_mma_operand(w, op, 0, &mc, &mk, 0, &A, &sa) || !lw_mma_operand(w, op, 1, &mc, &mk, sa, &B, &sb))
		return false;
	if (sa || sb)
		lw_barrier(w);
	if (!lw_alloc_regs(w, out, n2 * (int)nbatch, l))
		return false;
	for (int r = 0; r < out->n; r++)
		out->r[r] = c.r[r];
	int nks = (int)(K / mk.kstep);
	if (tl.wide && !B.tile.sl)
		return lw_fail(w, op, TILEC_ERR_INVALID, "internal: a wide dot layout with B outside shared memory");
	char buf[200];
	const char *text = buf, *cons;
	int nd;
	if (mk.int8) {
		snprintf(buf, sizeof buf, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, "
			 "{$8,$9}, {$10,$11,$12,$13};");
		cons = "=r,=r,=r,=r,r,r,r,r,r,r,r,r,r,r";
		nd = 4;
	} else if (mk.f16acc) {
		snprintf(buf, sizeof buf, "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {$0,$1}, {$2,$3,$4,$5}, "
			 "{$6,$7}, {$8,$9};");
		cons = "=r,=r,r,r,r,r,r,r,r,r";
		nd = 2;
	} else if (mk.eb == 1 && w->p->fp8_widen) {
		text = widened_fp8_mma;
		cons = "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f";
		nd = 4;
	} else {
		snprintf(buf, sizeof buf, "mma.sync.aligned.m16n8k%d.row.col.f32.%s.%s.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, "
			 "{$8,$9}, {$10,$11,$12,$13};", mk.kstep, mk.ab, btype);
		cons = "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f";
		nd = 4;
	}
	LLVMTypeRef dt = mk.int8 || mk.f16acc ? w->i32 : w->f32, d4[4] = {dt, dt, dt, dt};
	LLVMTypeRef rt = LLVMStructTypeInContext(w->c, d4, (unsigned)nd, false);
	/* the fragments of K step ks + 1 are read before the products of step
	 * ks, so that shared-memory latency overlaps tensor-core work */
	size_t na_ = 4 * (size_t)tl.mt, nb_ = 2 * (size_t)(tl.nt + 1);
	LLVMValueRef *frag = arena_alloc(w->a, sizeof(LLVMValueRef) * 2 * (na_ + nb_));
	if (!frag)
		return lw_oom(w);
	LLVMValueRef *afrag[2] = {frag, frag + na_}, *bfrag[2] = {frag + 2 * na_, frag + 2 * na_ + nb_};
	mma_operand A0 = A, B0 = B;
	if (wb > 1) {
		/* the tiles of this warp's first batch index; the base goes
		 * through a move LLVM cannot see into, or it folds the warp's
		 * offset into every fragment address's swizzle arithmetic
		 * instead of one register plus constants */
		layout_map m3 = lw_map_of(l, ct);
		LLVMValueRef first = lw_thread_coord(w, &m3, m3.dim_of[0]);
		mma_operand *o[2] = {&A0, &B0};
		for (int i = 0; i < 2; i++) {
			LLVMValueRef at = LLVMBuildAdd(w->b, o[i]->tile.base,
						       LLVMBuildMul(w->b, first, lw_ci32(w, smem_tile_stride(o[i]->tile.sl)), ""), "");
			o[i]->tile.base = lw_asm_call(w, w->i32, "mov.b32 $0, $1;", "=r,r", &at, 1, false);
		}
		A = A0;
		B = B0;
	}
	for (int64_t bi = 0; bi < nbatch; bi++) {
		if (bi) {
			int64_t at = bi * wb;
			A.tile.base = LLVMBuildAdd(w->b, A0.tile.base, lw_ci32(w, at * smem_tile_stride(A0.tile.sl)), "");
			B.tile.base = LLVMBuildAdd(w->b, B0.tile.base, lw_ci32(w, at * smem_tile_stride(B0.tile.sl)), "");
		}
		for (int ks = 0; ks <= nks; ks++) {
			LLVMValueRef *a = afrag[ks & 1], *b = bfrag[ks & 1];
			if (ks < nks) {
				for (int j = 0; j < tl.nt; j += tl.wide ? 4 : 2) {
					if (tl.wide)
						frag_b_wide(w, &mk, &B.tile, tl.col[j], (int64_t)ks * mk.kstep, &b[2 * j]);
					else
						mma_b(w, &mk, &B, tl.col[j], j + 1 < tl.nt ? tl.col[j + 1] : NULL, j, ks, nks,
						      &b[2 * j]);
				}
				for (int i = 0; i < tl.mt; i++)
					lw_mma_a(w, &mk, &A, tl.row[i], i, ks, nks, &a[4 * i]);
			}
			if (ks)
				mma_products(w, &mk, &tl, rt, text, cons, afrag[(ks - 1) & 1], bfrag[(ks - 1) & 1],
					     out->r + bi * n2);
		}
	}
	return true;
}

/* Before a loop: the fragments of dot operands the loop body reads but
 * does not compute (attention's Q), loaded once into registers (unless an
 * earlier loop of the region loaded them); for wgmma, B staged once into
 * shared memory instead (lw_wgmma_keep) where it fits, and A too in a
 * loop marked keep_a (held as fragments, Q measured 3-5% faster in
 * attention's loop, where registers do not decide the blocks an SM runs). */
bool lw_hoist_fragments(lw *w, const ir_region *body, bool keep_a)
{
	for (int i = 0; i < body->nops; i++) {
		const ir_op *op = body->ops[i];
		const layout *l = op->code == IR_OP_DOT ? w->p->of[op->results[0]] : NULL;
		if (!l || !l->mma || l->rank != 2)
			continue; /* batched dots stage their operands */
		for (int which = 0; which < 2; which++) {
			int v = op->args[which];
			const lval *have = &w->v[v];
			if (w->p->wgmma[op->results[0]]) {
				/* wgmma reads its operands (but a chained dot's A) from shared
				 * memory: staged there once, else B in each iteration and A
				 * as the fragments below */
				if (lw_kept_tile(w, v, which ? LW_KEPT_WGMMA_B : LW_KEPT_WGMMA_A))
					continue;
				if ((which || keep_a) && w->ncached < (int)(sizeof w->cached / sizeof w->cached[0])) {
					frag_cache *slot = &w->cached[w->ncached];
					if (!lw_wgmma_keep(w, op, which, slot))
						return false;
					if (slot->value >= 0) {
						w->ncached++;
						continue;
					}
				}
				if (which)
					continue;
			}
			frag_cache *had = cached_operand(w, v, which, l);
			if (!have->r || have->view || w->ncached == (int)(sizeof w->cached / sizeof w->cached[0]) ||
			    (had && (had->frags || had->loaded)))
				continue; /* computed in the loop, read in place, or loaded already */
			ir_type at = lw_vtype(w, op->args[0]), ct = lw_vtype(w, op->results[0]);
			mma_kind mk = lw_mma_kind((ir_kind)at.kind, (ir_kind)ct.kind);
			layout_map mc = lw_map_of(l, ct);
			mma_tiles tl;
			mma_operand o;
			int64_t staged;
			if (!lw_mma_tiles(w, op, &mc, at.shape[0], ct.shape[1], &tl))
				return false;
			int nks = (int)(at.shape[1] / mk.kstep), nt = which ? tl.nt : tl.mt, words = which ? 2 : 4;
			if (nt * nks * words > 64)
				continue; /* too many registers: read it from shared memory each time */
			if (have->l && have->l->mma && which == 0)
				continue; /* a chained dot's registers already are fragments */
			if (which == 1 && l->size_per_thread[1] == 8)
				continue; /* a wide layout reads B in 4-tile groups, in place */
			if (!lw_mma_operand(w, op, which, &mc, &mk, 0, &o, &staged))
				return false;
			if (staged)
				lw_barrier(w);
			LLVMValueRef *frags = arena_alloc(w->a, sizeof(LLVMValueRef) * (size_t)(nt * nks * words + 4));
			if (!frags)
				return lw_oom(w);
			for (int t = 0; t < nt; t++)
				for (int ks = 0; ks < nks; ks++) {
					LLVMValueRef *f = &frags[((size_t)t * nks + ks) * words];
					if (which)
						mma_b(w, &mk, &o, tl.col[t], NULL, t, ks, nks, f);
					else
						lw_mma_a(w, &mk, &o, tl.row[t], t, ks, nks, f);
				}
			w->cached[w->ncached++] = (frag_cache){v, which, l, frags, {.base = NULL}, false, had != NULL};
			if (had)
				had->loaded = true;
		}
	}
	return true;
}

/* The A operands that two or more loops of region r give their dots
 * (causal attention's Q), each with its first loop's dot, found once
 * before the region's ops are lowered (lw_keep_resident stages them as
 * they are computed; a value of r that loops of r read is computed before
 * them). mma.sync only: wgmma reads A its own way. */
int lw_shared_operands(lw *w, const ir_region *r, shared_operand **out)
{
	int cap = 0, n = 0;
	*out = NULL;
	if (w->p->unit != DOT_UNIT_MMA)
		return 0;
	for (int k = 0; k < r->nops; k++)
		if (r->ops[k]->code == IR_OP_FOR)
			cap += r->ops[k]->regions[0].nops;
	if (!cap)
		return 0;
	shared_operand *so = *out = arena_alloc(w->a, sizeof(shared_operand) * (size_t)cap);
	if (!so) {
		lw_oom(w);
		return -1;
	}
	for (int k = 0; k < r->nops; k++) {
		const ir_region *body = r->ops[k]->code == IR_OP_FOR ? &r->ops[k]->regions[0] : NULL;
		for (int i = 0; body && i < body->nops; i++) {
			const ir_op *op = body->ops[i];
			const layout *l = op->code == IR_OP_DOT ? w->p->of[op->results[0]] : NULL;
			if (!l || !l->mma || l->rank != 2 || op->args[0] == op->args[1])
				continue;
			int e = 0;
			while (e < n && so[e].value != op->args[0])
				e++;
			if (e == n)
				so[n++] = (shared_operand){op->args[0], op, 0, -1};
			if (so[e].last_loop != k) {
				so[e].loops++;
				so[e].last_loop = k;
			}
		}
	}
	return n;
}

/* After op `op` of a region: a result that two or more of the region's
 * loops take as the A operand of their dots (so, lw_shared_operands) is
 * staged into a tile of shared memory of its own, kept below the scratch
 * and the rings until the region ends. The first loop loads its
 * fragments from the tile into registers before it (lw_hoist_fragments),
 * the later ones read them from the tile in each iteration, as Triton's
 * code does: fragments held through both loops left the diagonal block's
 * loop (its mask) too few registers, and it spilled; reading them in
 * every loop cost attention's long first loop 4-20% (H200, sm_80-class
 * code). */
bool lw_keep_resident(lw *w, const ir_op *def, const shared_operand *so, int n)
{
	for (int j = 0; j < def->nresults; j++) {
		int v = def->results[j], e = 0;
		while (e < n && so[e].value != v)
			e++;
		if (e == n || so[e].loops < 2 || w->ncached == (int)(sizeof w->cached / sizeof w->cached[0]))
			continue;
		const ir_op *dot = so[e].dot;
		ir_type ta = lw_vtype(w, dot->args[0]), ct = lw_vtype(w, dot->results[0]);
		mma_kind mk = lw_mma_kind((ir_kind)ta.kind, (ir_kind)ct.kind);
		layout_map mc = lw_map_of(w->p->of[dot->results[0]], ct);
		mma_operand o;
		int64_t staged;
		w->smem_top = (w->smem_top + 127) & ~(uint32_t)127; /* the swizzle's pattern repeats every 128 bytes */
		if (!lw_mma_operand(w, dot, 0, &mc, &mk, 0, &o, &staged))
			return false;
		if (!staged)
			continue; /* already fragments (a chained dot's registers) */
		lw_barrier(w);
		w->smem_top += (uint32_t)staged;
		w->smem_kept = w->smem_top;
		lw_smem_stage(w, 0);
		w->cached[w->ncached++] = (frag_cache){v, 0, NULL, NULL, o.tile, false, false};
	}
	return true;
}

/* After a loop: the fragments it loaded from staged tiles (entries from
 * `from` on) are not held for the later loops, which read the tiles. */
void lw_drop_loop_fragments(lw *w, int from)
{
	int n = from;
	for (int i = from; i < w->ncached; i++)
		if (!w->cached[i].loop_only)
			w->cached[n++] = w->cached[i];
	w->ncached = n;
}
