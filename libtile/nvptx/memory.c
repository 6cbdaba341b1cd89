/* memory.c - loads and stores.
 *
 * Each thread's consecutive registers are grouped into vectors as wide as
 * axis info proves safe (contiguity, alignment, mask constancy, 16 bytes);
 * unmasked groups are LLVM vector loads and stores, masked ones predicated
 * ld/st.global inline PTX with one predicate per vector, as Triton emits
 * them. Replicated elements are stored by their owner only.
 */
#include "nvptx/lower.h"

#include <stdio.h>

typedef struct vec_shape {
	int nw;            /* words per access */
	LLVMTypeRef word;  /* i32, or i16 for 1- and 2-byte accesses */
	const char *cons;  /* constraint letter of a word */
	const char *ptx;   /* ptx type of a word */
} vec_shape;

static vec_shape vec_words(lw *w, int bytes)
{
	vec_shape v;
	if (bytes >= 4) {
		v.nw = bytes / 4;
		v.word = w->i32;
		v.cons = "r";
		v.ptx = "b32";
	} else {
		v.nw = 1;
		v.word = w->i16;
		v.cons = "h";
		v.ptx = bytes == 2 ? "b16" : "b8";
	}
	return v;
}

static const char *vsuffix(int nw)
{
	return nw == 4 ? ".v4" : nw == 2 ? ".v2" : "";
}

/* Words returned by inline PTX -> n storage elements. */
static void unpack_words(lw *w, LLVMValueRef *words, vec_shape vs, int n, LLVMTypeRef st, int elem_bytes,
			 LLVMValueRef *elems)
{
	LLVMValueRef x;
	if (vs.nw == 1) {
		x = words[0];
	} else {
		LLVMTypeRef wv = LLVMVectorType(vs.word, (unsigned)vs.nw);
		x = LLVMGetUndef(wv);
		for (int i = 0; i < vs.nw; i++)
			x = LLVMBuildInsertElement(w->b, x, words[i], lw_ci32(w, i), "");
	}
	if (n * elem_bytes == 1) {
		elems[0] = LLVMBuildTrunc(w->b, x, w->i8, "");
		if (st != w->i8)
			elems[0] = LLVMBuildBitCast(w->b, elems[0], st, "");
		return;
	}
	if (n == 1) {
		elems[0] = LLVMBuildBitCast(w->b, x, st, "");
		return;
	}
	LLVMValueRef v = LLVMBuildBitCast(w->b, x, LLVMVectorType(st, (unsigned)n), "");
	for (int i = 0; i < n; i++)
		elems[i] = LLVMBuildExtractElement(w->b, v, lw_ci32(w, i), "");
}

/* Storage elements -> words: one i32 per 4 bytes, else one i16. */
static void to_words(lw *w, LLVMValueRef *elems, int n, LLVMTypeRef st, int elem_bytes, vec_shape vs,
		     LLVMValueRef *words)
{
	LLVMValueRef x;
	if (n == 1) {
		x = elems[0];
	} else {
		x = LLVMGetUndef(LLVMVectorType(st, (unsigned)n));
		for (int i = 0; i < n; i++)
			x = LLVMBuildInsertElement(w->b, x, elems[i], lw_ci32(w, i), "");
	}
	if (n * elem_bytes == 1) {
		if (st != w->i8)
			x = LLVMBuildBitCast(w->b, x, w->i8, "");
		words[0] = LLVMBuildZExt(w->b, x, w->i16, "");
		return;
	}
	if (vs.nw == 1) {
		words[0] = LLVMBuildBitCast(w->b, x, vs.word, "");
		return;
	}
	LLVMValueRef v = LLVMBuildBitCast(w->b, x, LLVMVectorType(vs.word, (unsigned)vs.nw), "");
	for (int i = 0; i < vs.nw; i++)
		words[i] = LLVMBuildExtractElement(w->b, v, lw_ci32(w, i), "");
}

int lw_access_width(lw *w, const ir_op *op, const layout *l, int mask)
{
	ir_type pt = lw_vtype(w, op->args[0]);
	if (pt.rank == 0)
		return 1;
	layout_map m = lw_map_of(l, pt);
	/* along the dim whose registers are consecutive: the layout's first
	 * (the last, but where every access of the rank runs down another) */
	int t = pt.rank - 1;
	for (int d = 0; d < pt.rank; d++)
		if (m.dim_of[d] == m.blocked->order[0])
			t = d;
	int vec = axis_vector_width_dim(w->f, w->ai, op->args[0], mask, t);
	int c = layout_contig_regs(&m, m.dim_of[t]);
	return vec < c ? vec : c;
}

static LLVMValueRef and_pred(lw *w, LLVMValueRef a, LLVMValueRef b)
{
	return !a ? b : !b ? a : LLVMBuildAnd(w->b, a, b, "");
}

void lw_load_vector(lw *w, lw_address at, LLVMValueRef pred, int vec, ir_kind k, const LLVMValueRef *fill,
		    lw_fill_mode mode, bool is_volatile, LLVMValueRef *elems)
{
	LLVMTypeRef st = lw_stype(w, k);
	int eb = ir_kind_bytes(k == IR_PTR ? IR_I64 : k);
	LLVMValueRef ptr = at.ptr;
	int off = at.off;
	if (!pred && at.index)
		pred = LLVMConstInt(w->i1, 1, false);
	if (!pred) {
		if (off)
			ptr = LLVMBuildGEP2(w->b, w->i8, ptr, (LLVMValueRef[]){lw_ci32(w, off)}, 1, "");
		LLVMTypeRef vt = vec > 1 ? LLVMVectorType(st, (unsigned)vec) : st;
		LLVMValueRef x = LLVMBuildLoad2(w->b, vt, ptr, "");
		LLVMSetAlignment(x, (unsigned)(vec * eb));
		/* ld.volatile: read again each time, never hoisted out of a spin loop */
		LLVMSetVolatile(x, is_volatile);
		for (int i = 0; i < vec; i++)
			elems[i] = vec > 1 ? LLVMBuildExtractElement(w->b, x, lw_ci32(w, i), "") : x;
		return;
	}
	vec_shape vs = vec_words(w, vec * eb);
	/* With a fill the words are set in the load's own asm before the
	 * predicated access (constant words as immediates, others moved from
	 * inputs), as Triton's loads do, and the predicate dies at the load
	 * (lw_emit_load says when). Unset, they are live from the kernel's
	 * entry for ptxas. LW_FILL_AFTER selects the fill after the access
	 * instead: a word at a time where elements are narrower (not an
	 * element at a time, with 2-byte elements repacked around it). */
	LLVMValueRef words[4] = {0}, args[3 + 4], after[4] = {0};
	bool select_words = fill && mode == LW_FILL_AFTER && eb < 4 && vec > 1;
	if (select_words)
		to_words(w, (LLVMValueRef *)fill, vec, st, eb, vs, after);
	const LLVMValueRef *select_elems = fill && mode != LW_FILL_FIRST && !select_words ? fill : NULL;
	if (mode != LW_FILL_FIRST)
		fill = NULL;
	int nargs = 2;
	args[0] = ptr;
	args[1] = pred;
	if (at.index)
		args[nargs++] = at.index;
	if (at.index && at.index2)
		args[nargs++] = at.index2;
	if (fill)
		to_words(w, (LLVMValueRef *)fill, vec, st, eb, vs, words);
	char text[384], cons[128];
	int pos = 0, cp = 0;
	for (int i = 0; i < vs.nw; i++)
		cp += snprintf(cons + cp, sizeof cons - (size_t)cp, fill ? "=&%s," : "=%s,", vs.cons);
	cp += snprintf(cons + cp, sizeof cons - (size_t)cp, !at.index ? "l,b" : at.index2 ? "l,b,r,r" : "l,b,r");
	/* an index is summed, scaled and added in the asm itself, where LLVM
	 * cannot turn the sums back into a pointer an element (lw_address) */
	if (at.index && at.index2)
		pos += snprintf(text + pos, sizeof text - (size_t)pos,
				"{ .reg .b64 ta; .reg .b32 ti; add.s32 ti, $%d, $%d; mad.wide.s32 ta, ti, %d, $%d; ", vs.nw + 2,
				vs.nw + 3, eb, vs.nw);
	else if (at.index)
		pos += snprintf(text + pos, sizeof text - (size_t)pos, "{ .reg .b64 ta; mad.wide.s32 ta, $%d, %d, $%d; ",
				vs.nw + 2, eb, vs.nw);
	for (int i = 0; i < vs.nw && fill; i++) {
		const char *mov = vs.ptx[1] == '8' ? "b16" : vs.ptx;
		if (LLVMIsAConstantInt(words[i])) {
			pos += snprintf(text + pos, sizeof text - (size_t)pos, "mov.%s $%d, %llu; ", mov, i,
					LLVMConstIntGetZExtValue(words[i]));
			continue;
		}
		pos += snprintf(text + pos, sizeof text - (size_t)pos, "mov.%s $%d, $%d; ", mov, i, vs.nw + nargs);
		cp += snprintf(cons + cp, sizeof cons - (size_t)cp, ",%s", vs.cons);
		args[nargs++] = words[i];
	}
	pos += snprintf(text + pos, sizeof text - (size_t)pos, "@$%d ld%s.global%s.%s {", vs.nw + 1,
			is_volatile ? ".volatile" : "", vsuffix(vs.nw), vs.ptx);
	for (int i = 0; i < vs.nw; i++)
		pos += snprintf(text + pos, sizeof text - (size_t)pos, "%s$%d", i ? ", " : "", i);
	/* an offset in the address itself: LLVM would give each one a register */
	if (at.index)
		snprintf(text + pos, sizeof text - (size_t)pos, off ? "}, [ta+%d]; }" : "}, [ta]; }", off);
	else
		snprintf(text + pos, sizeof text - (size_t)pos, off ? "}, [$%d+%d];" : "}, [$%d];", vs.nw, off);
	LLVMTypeRef ret;
	if (vs.nw == 1) {
		ret = vs.word;
	} else {
		LLVMTypeRef fields[4] = {vs.word, vs.word, vs.word, vs.word};
		ret = LLVMStructTypeInContext(w->c, fields, (unsigned)vs.nw, false);
	}
	LLVMValueRef res = lw_asm_call(w, ret, text, cons, args, nargs, true);
	for (int i = 0; i < vs.nw; i++) {
		words[i] = vs.nw == 1 ? res : LLVMBuildExtractValue(w->b, res, (unsigned)i, "");
		if (after[i])
			words[i] = LLVMBuildSelect(w->b, pred, words[i], after[i], "");
	}
	unpack_words(w, words, vs, vec, st, eb, elems);
	for (int i = 0; i < vec && select_elems; i++)
		elems[i] = LLVMBuildSelect(w->b, pred, elems[i], select_elems[i], "");
}

/* From how many distinct predicates a thread's accesses of one masked load
 * set their registers before the access (lw_load_vector) rather than
 * select `other` after it. Selected after, every predicate stays live
 * until its data arrive; past the 7 predicate registers ptxas moves them
 * through general registers and consumes each load before issuing the
 * next (FlagGems' reductions over [4, 1024] blocks: 32 loads a thread,
 * 0.19-0.60 of Triton, 1.00-1.03 set first; layer norm over 50257
 * columns 0.36 -> 1.78). With 8 or fewer, setting first measured slower
 * (H200: softmax over 4095 columns 0.99 -> 0.94, fla's gated RMS norm
 * 0.96 -> 0.76), and loads moved to their user (IR_FLAG_SUNK) are set
 * first whatever their count (passes/sink.c). */
enum { SET_FIRST_PREDICATES = 9 };

/* How many different predicates the n / vec accesses use. */
static int distinct_preds(LLVMValueRef *preds, int n, int vec)
{
	int d = 0;
	for (int r = 0; r < n; r += vec) {
		int s = 0;
		while (s < r && preds[s] != preds[r])
			s += vec;
		d += s == r;
	}
	return d;
}

/* The dims along which every element of the load's block reads one
 * address under one predicate (axis info: runs of equal pointers, and of
 * equal mask bits, as long as the block: a scale per 128 columns), as a
 * bit mask; 0 where a register's own `other` or a volatile access rules
 * out sharing. */
static unsigned whole_dims(lw *w, const ir_op *op, ir_type pt)
{
	if (op->flags & (IR_FLAG_HAS_OTHER | IR_FLAG_VOLATILE))
		return 0;
	const axis_info *p = &w->ai[op->args[0]];
	const axis_info *k = op->flags & IR_FLAG_HAS_MASK ? &w->ai[op->args[1]] : NULL;
	unsigned whole = 0;
	for (int d = 0; d < pt.rank; d++)
		if (p->constancy[d] >= pt.shape[d] && (!k || k->constancy[d] >= pt.shape[d]))
			whole |= 1u << d;
	return whole;
}

/* An earlier register of the load whose element differs from register
 * r's only along `whole` dims, so reads the same address (its value is
 * r's too), else r itself. */
static int same_access(const layout_map *m, ir_type pt, unsigned whole, int r)
{
	int32_t cr[IR_MAX_RANK], cq[IR_MAX_RANK];
	layout_reg_coords(m, r, cr);
	for (int q = 0; q < r; q++) {
		layout_reg_coords(m, q, cq);
		bool same = true;
		for (int d = 0; d < pt.rank && same; d++)
			same = (whole >> d & 1) || cr[m->dim_of[d]] == cq[m->dim_of[d]];
		if (same)
			return q;
	}
	return r;
}

void lw_share_owned(lw *w, lval *out, const layout_map *m, ir_type t, LLVMValueRef own, ir_kind k)
{
	LLVMTypeRef st = lw_ltype(w, k);
	int eb = ir_kind_bytes(k);
	lw_smem_need(w, (uint64_t)eb * (uint64_t)ir_numel(t));
	lw_barrier(w); /* the scratch may still be read by the op before */
	LLVMBasicBlockRef join = lw_begin_if(w, own);
	for (int r = 0; r < out->n; r++) {
		LLVMValueRef idx = m ? lw_linear_index(w, m, t, r) : lw_ci32(w, 0);
		LLVMBuildStore(w->b, out->r[r], lw_smem_addr(w, LLVMBuildMul(w->b, idx, lw_ci32(w, eb), "")));
	}
	lw_end_if(w, join);
	lw_barrier(w);
	for (int r = 0; r < out->n; r++) {
		LLVMValueRef idx = m ? lw_linear_index(w, m, t, r) : lw_ci32(w, 0);
		out->r[r] = LLVMBuildLoad2(w->b, st, lw_smem_addr(w, LLVMBuildMul(w->b, idx, lw_ci32(w, eb), "")), "");
	}
}

/* A scalar volatile load (a flag another program sets) is read by thread 0
 * alone and shared: every thread may read it at another moment and see
 * another value, and a loop or branch on it would then diverge within the
 * program, its barriers (shared-memory scratch, memorder.c's) reached a
 * different number of times by different warps. */
static bool emit_volatile_scalar(lw *w, const ir_op *op, const lval *a, lval *out)
{
	ir_kind k = (ir_kind)lw_vtype(w, op->args[0]).pointee;
	bool has_mask = op->flags & IR_FLAG_HAS_MASK, has_other = op->flags & IR_FLAG_HAS_OTHER;
	LLVMValueRef own = LLVMBuildICmp(w->b, LLVMIntEQ, w->tid, lw_ci32(w, 0), "");
	LLVMValueRef fill = has_other ? lw_to_storage(w, a[2].r[0], k) : LLVMConstNull(lw_stype(w, k)), elem;
	if (!lw_alloc_regs(w, out, 1, NULL))
		return false;
	lw_load_vector(w, (lw_address){a[0].r[0], NULL, NULL, 0}, has_mask ? LLVMBuildAnd(w->b, own, a[1].r[0], "") : own,
		       1, k, &fill, LW_FILL_FIRST, true, &elem);
	out->r[0] = lw_from_storage(w, elem, k);
	lw_share_owned(w, out, NULL, (ir_type){0}, own, k);
	return true;
}

bool lw_emit_load(lw *w, const ir_op *op, const layout *l, lval *out)
{
	ir_type pt = lw_vtype(w, op->args[0]);
	ir_kind k = (ir_kind)pt.pointee;
	lval a[3 + IR_MAX_RANK]; /* and a descriptor block's coordinates */
	if (!lw_get_args(w, op, l, a))
		return false;
	if (!pt.rank && (op->flags & IR_FLAG_VOLATILE))
		return emit_volatile_scalar(w, op, a, out);
	bool has_mask = op->flags & IR_FLAG_HAS_MASK, has_other = op->flags & IR_FLAG_HAS_OTHER;
	int vec = lw_access_width(w, op, l, has_mask ? op->args[1] : -1);
	if (!lw_alloc_regs(w, out, a[0].n, pt.rank ? l : NULL))
		return false;
	bool set_first = has_mask && ((op->flags & IR_FLAG_SUNK) ||
				      distinct_preds(a[1].r, a[0].n, vec) >= SET_FIRST_PREDICATES);
	/* a dot's operand staged through shared memory keeps its selects an
	 * element at a time: a word at a time, 2048³ fp16 matmul at one stage
	 * ran 5% slower on an H200, its loop 55 SASS instructions against 105
	 * (why was not established) */
	bool staged = has_mask && !set_first && lw_uses(&w->f->body, op->results[0], IR_OP_DOT) > 0;
	unsigned whole = vec == 1 && a[0].n <= 64 ? whole_dims(w, op, pt) : 0;
	layout_map m = whole ? lw_map_of(l, pt) : (layout_map){0};
	for (int r = 0; r < a[0].n; r += vec) {
		LLVMValueRef elems[16] = {0}, fill[16];
		int q = whole ? same_access(&m, pt, whole, r) : r;
		if (q != r) {
			out->r[r] = out->r[q];
			continue;
		}
		/* Masked-off elements are `other`, or zeros without it: Triton
		 * documents them as undefined but its loads zero their registers
		 * first, and real kernels sum such rows */
		for (int i = 0; i < vec && has_mask; i++)
			fill[i] = has_other ? lw_to_storage(w, a[2].r[r + i], k) : LLVMConstNull(lw_stype(w, k));
		lw_load_vector(w, (lw_address){a[0].r[r], NULL, NULL, 0}, has_mask ? a[1].r[r] : NULL, vec, k,
			       has_mask ? fill : NULL, set_first ? LW_FILL_FIRST : staged ? LW_FILL_AFTER_ELEMS : LW_FILL_AFTER,
			       (op->flags & IR_FLAG_VOLATILE) != 0, elems);
		for (int i = 0; i < vec; i++)
			out->r[r + i] = lw_from_storage(w, elems[i], k);
	}
	return true;
}

bool lw_emit_store(lw *w, const ir_op *op)
{
	if (lw_bulk_store(w, op))
		return lw_emit_tma_store(w, op);
	int ptr = op->args[0], val = op->args[1];
	ir_type pt = lw_vtype(w, ptr);
	ir_kind k = (ir_kind)pt.pointee;
	LLVMTypeRef st = lw_stype(w, k);
	int eb = ir_kind_bytes(k == IR_PTR ? IR_I64 : k);
	const layout *l = NULL;
	if (pt.rank) {
		l = w->p->remat[val] && !w->p->remat[ptr] ? w->p->of[ptr] : w->p->of[val];
		/* a tensor-core result holds 2 consecutive elements per thread: it
		 * goes through shared memory to the default layout's wide stores */
		if (!l || l->mma)
			l = w->p->by_rank[pt.rank];
	}
	lval a[3 + IR_MAX_RANK]; /* and a descriptor block's coordinates */
	if (!lw_get_args(w, op, l, a))
		return false;
	bool has_mask = op->flags & IR_FLAG_HAS_MASK;
	int vec = lw_access_width(w, op, l, has_mask ? op->args[2] : -1);
	LLVMValueRef own;
	if (pt.rank) {
		layout_map m = lw_map_of(l, pt);
		own = lw_owner(w, &m);
	} else {
		own = LLVMBuildICmp(w->b, LLVMIntEQ, w->tid, lw_ci32(w, 0), "");
	}
	vec_shape vs = vec_words(w, vec * eb);
	for (int r = 0; r < a[0].n; r += vec) {
		LLVMValueRef elems[16] = {0};
		for (int i = 0; i < vec; i++)
			elems[i] = lw_to_storage(w, a[1].r[r + i], k);
		LLVMValueRef pred = and_pred(w, own, has_mask ? a[2].r[r] : NULL);
		if (!pred) {
			LLVMValueRef x = elems[0];
			if (vec > 1) {
				x = LLVMGetUndef(LLVMVectorType(st, (unsigned)vec));
				for (int i = 0; i < vec; i++)
					x = LLVMBuildInsertElement(w->b, x, elems[i], lw_ci32(w, i), "");
			}
			LLVMValueRef s = LLVMBuildStore(w->b, x, a[0].r[r]);
			LLVMSetAlignment(s, (unsigned)(vec * eb));
			continue;
		}
		LLVMValueRef words[4], args[6];
		to_words(w, elems, vec, st, eb, vs, words);
		char text[160], cons[96];
		int pos = snprintf(text, sizeof text, "@$0 st.global%s.%s [$1], {", vsuffix(vs.nw), vs.ptx);
		int cp = snprintf(cons, sizeof cons, "b,l");
		args[0] = pred;
		args[1] = a[0].r[r];
		for (int i = 0; i < vs.nw; i++) {
			pos += snprintf(text + pos, sizeof text - (size_t)pos, "%s$%d", i ? ", " : "", i + 2);
			cp += snprintf(cons + cp, sizeof cons - (size_t)cp, ",%s", vs.cons);
			args[2 + i] = words[i];
		}
		snprintf(text + pos, sizeof text - (size_t)pos, "};");
		lw_asm_call(w, w->vd, text, cons, args, 2 + vs.nw, true);
	}
	return true;
}
