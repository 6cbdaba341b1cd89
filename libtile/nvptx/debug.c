/* debug.c - DEVICE_ASSERT and DEVICE_PRINT (kernels compiled in debug mode).
 *
 * As Triton lowers them: an assertion calls the PTX system function
 * __assertfail(message, file, line, function, 1) in every thread holding an
 * element whose condition is false, which stops the kernel with the message
 * (CUDA reports an assertion failure). A print calls vprintf once per
 * element, from the thread that owns it (scalars: the program's first
 * thread), with the line "pid (x, y, z) idx (i, j) PREFIX values": the
 * format is built at compile time, the arguments (program ids, the
 * element's coordinates, the values: floats as doubles for %f, integers
 * widened to 32 or 64 bits, hex as raw bits) go into a buffer on the stack
 * allocated once in the entry block. The interpreter prints the same text.
 */
#include "nvptx/lower.h"

#include <string.h>

static LLVMValueRef global_string(lw *w, const char *text)
{
	return LLVMBuildGlobalStringPtr(w->b, text, "");
}

bool lw_emit_device_assert(lw *w, const ir_op *op)
{
	lval c;
	if (!lw_get(w, op->args[0], NULL, &c))
		return false;
	LLVMValueRef bad = NULL;
	for (int r = 0; r < c.n; r++) {
		LLVMValueRef f = LLVMBuildNot(w->b, c.r[r], "");
		bad = bad ? LLVMBuildOr(w->b, bad, f, "") : f;
	}
	LLVMBasicBlockRef join = lw_begin_if(w, bad);
	const char *file = op->loc.file && op->loc.file->path ? op->loc.file->path : "kernel";
	LLVMValueRef args[5] = {global_string(w, op->name ? op->name : ""), global_string(w, file),
				lw_ci32(w, op->loc.line), global_string(w, w->f->name ? w->f->name : "kernel"),
				LLVMConstInt(w->i64, 1, false)};
	lw_call(w, "__assertfail", w->vd, args, 5);
	lw_end_if(w, join);
	return true;
}

/* One printf argument for value x of kind k; its conversion into fmt. */
static LLVMValueRef print_arg(lw *w, LLVMValueRef x, ir_kind k, bool hex, strbuf *fmt)
{
	int bits = ir_kind_bytes(k) * 8;
	if (hex) {
		if (lw_is_f(k))
			x = LLVMBuildBitCast(w->b, x, LLVMIntTypeInContext(w->c, (unsigned)bits), "");
		sb_puts(fmt, bits == 64 ? " 0x%llx" : " 0x%x");
		return bits == 64 ? x : LLVMBuildZExt(w->b, x, w->i32, "");
	}
	if (lw_is_f(k)) {
		sb_puts(fmt, " %f");
		return k == IR_F64 ? x : LLVMBuildFPExt(w->b, lw_widen(w, x, k), w->f64, "");
	}
	bool sg = ir_kind_is_signed(k);
	if (LLVMGetIntTypeWidth(LLVMTypeOf(x)) == 64) {
		sb_puts(fmt, sg ? " %lld" : " %llu");
		return x;
	}
	sb_puts(fmt, sg ? " %d" : " %u");
	if (LLVMGetIntTypeWidth(LLVMTypeOf(x)) == 32)
		return x;
	return sg ? LLVMBuildSExt(w->b, x, w->i32, "") : LLVMBuildZExt(w->b, x, w->i32, "");
}

bool lw_emit_device_print(lw *w, const ir_op *op)
{
	int n = op->nargs, shaped = -1;
	if (n > 16)
		return lw_fail(w, op, TILEC_ERR_UNSUPPORTED, "a print of more than 16 values is not supported by the GPU back end");
	for (int i = 0; i < n && shaped < 0; i++)
		if (lw_vtype(w, op->args[i]).rank)
			shaped = i;
	ir_type t = shaped >= 0 ? lw_vtype(w, op->args[shaped]) : ir_scalar(IR_VOID);
	const layout *l = shaped >= 0 ? w->p->of[op->args[shaped]] : NULL;
	if (shaped >= 0 && !l)
		l = w->p->by_rank[t.rank];
	lval x[16];
	for (int i = 0; i < n; i++)
		if (!lw_get(w, op->args[i], lw_vtype(w, op->args[i]).rank ? l : NULL, &x[i]))
			return false;
	layout_map m = {0};
	int nregs = 1;
	LLVMValueRef own;
	if (shaped >= 0) {
		m = lw_map_of(l, t);
		nregs = m.nregs;
		own = lw_owner(w, &m);
	} else {
		own = LLVMBuildAnd(w->b, LLVMBuildICmp(w->b, LLVMIntEQ, w->lane, lw_ci32(w, 0), ""),
				   LLVMBuildICmp(w->b, LLVMIntEQ, w->warp, lw_ci32(w, 0), ""), "");
	}
	LLVMBasicBlockRef join = own ? lw_begin_if(w, own) : NULL;
	LLVMValueRef pid[3]; /* the program's (a cluster's where it is one) */
	for (int d = 0; d < 3; d++)
		pid[d] = w->ctaid[d];
	LLVMValueRef fmt_str = NULL, buf = NULL;
	LLVMTypeRef st = NULL;
	for (int r = 0; r < nregs; r++) {
		LLVMValueRef vals[3 + IR_MAX_RANK + 16];
		int nv = 0;
		strbuf fmt;
		sb_init(&fmt);
		sb_puts(&fmt, "pid (%u, %u, %u)");
		for (int d = 0; d < 3; d++)
			vals[nv++] = pid[d];
		if (shaped >= 0) {
			LLVMValueRef c[IR_MAX_RANK];
			lw_reg_coords(w, &m, t.rank, r, c);
			sb_puts(&fmt, " idx (");
			for (int d = 0; d < t.rank; d++) {
				sb_puts(&fmt, d ? ", %u" : "%u");
				vals[nv++] = c[d];
			}
			sb_putc(&fmt, ')');
		}
		sb_printf(&fmt, " %s", op->name ? op->name : "");
		for (int i = 0; i < n; i++) {
			ir_kind k = (ir_kind)lw_vtype(w, op->args[i]).kind;
			vals[nv++] = print_arg(w, x[i].r[lw_vtype(w, op->args[i]).rank ? r : 0], k, op->ival != 0, &fmt);
		}
		sb_putc(&fmt, '\n');
		if (!st) {
			/* the format and the buffer's layout are the same for every element */
			LLVMTypeRef ft[3 + IR_MAX_RANK + 16];
			for (int i = 0; i < nv; i++)
				ft[i] = LLVMTypeOf(vals[i]);
			st = LLVMStructTypeInContext(w->c, ft, (unsigned)nv, false);
			fmt_str = global_string(w, sb_str(&fmt));
			LLVMBuilderRef eb = LLVMCreateBuilderInContext(w->c);
			LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(w->fn);
			LLVMValueRef first = LLVMGetFirstInstruction(entry);
			if (first)
				LLVMPositionBuilderBefore(eb, first);
			else
				LLVMPositionBuilderAtEnd(eb, entry);
			buf = LLVMBuildAlloca(eb, st, "");
			LLVMDisposeBuilder(eb);
		}
		sb_free(&fmt);
		for (int i = 0; i < nv; i++)
			LLVMBuildStore(w->b, vals[i], LLVMBuildStructGEP2(w->b, st, buf, (unsigned)i, ""));
		LLVMValueRef args[2] = {fmt_str, buf};
		lw_call(w, "vprintf", w->i32, args, 2);
	}
	if (join)
		lw_end_if(w, join);
	return true;
}
