/* sema_atomic.c - tl.atomic_* and tl.debug_barrier, as Triton's semantic.py.
 *
 * Each atomic checks its pointer's element type the way Triton's
 * atom_red_typechecking_impl does (fp16 and bf16 only add; no 8- or
 * 16-bit integers), broadcasts the value and the mask to the pointer's
 * shape, casts the value to the element type and emits one ATOMIC_RMW or
 * ATOMIC_CAS whose result is the old values. Float atomic_max/min take
 * Triton's integer route so the results match its bits exactly: values
 * whose sign bit is clear go through a signed integer max (min) of their
 * bits, the others through an unsigned integer min (max), each masked to
 * its half, and the old values are put back together with a select.
 * `sem` and `scope` default to acq_rel and gpu, as in Triton.
 */
#include "front/sema.h"

#include <string.h>

static bool str_is(sv v, const char *s)
{
	return v.kind == SV_STR && v.slen == strlen(s) && !memcmp(v.s, s, v.slen);
}

static bool parse_sem(sema *s, src_loc loc, sv v, ir_sem *out)
{
	static const char *const names[] = {"acq_rel", "relaxed", "acquire", "release"};
	*out = IR_SEM_ACQ_REL;
	if (v.kind == SV_NONE)
		return true;
	for (int i = 0; i < IR_SEM_COUNT; i++)
		if (str_is(v, names[i])) {
			*out = (ir_sem)i;
			return true;
		}
	return sema_error(s, loc, TILEC_ERR_SEMANTIC,
			  "memory semantic %s is not supported: use \"relaxed\", \"acquire\", \"release\" or \"acq_rel\"",
			  sema_sv_str(s, v));
}

static bool parse_scope(sema *s, src_loc loc, sv v, ir_scope *out)
{
	static const char *const names[] = {"gpu", "cta", "sys"};
	*out = IR_SCOPE_GPU;
	if (v.kind == SV_NONE)
		return true;
	for (int i = 0; i < IR_SCOPE_COUNT; i++)
		if (str_is(v, names[i])) {
			*out = (ir_scope)i;
			return true;
		}
	return sema_error(s, loc, TILEC_ERR_SEMANTIC, "memory scope %s is not supported: use \"gpu\", \"cta\" or \"sys\"",
			  sema_sv_str(s, v));
}

static ir_type shaped(ir_type shape, ir_type elem)
{
	return ir_block(elem, shape.rank, shape.shape);
}

/* A value operand: a tensor of the pointer's shape and element kind. */
static int value_operand(sema *s, src_loc loc, const char *name, sv v, ir_type pt)
{
	int id = sema_to_tensor(s, loc, v);
	if (id < 0)
		return -1;
	if (!pt.rank && sema_type(s, id).rank) {
		sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s`: the value cannot be a block when the pointer is a scalar (%s)",
			   name, sema_type_str(s, sema_type(s, id)));
		return -1;
	}
	if ((id = sema_splat_to(s, loc, id, pt)) < 0)
		return -1;
	return sema_cast(s, loc, id, ir_scalar((ir_kind)pt.pointee));
}

static int emit_rmw(sema *s, src_loc loc, ir_atomic a, int ptr, int val, int mask, ir_sem sem, ir_scope scope)
{
	ir_type pt = sema_type(s, ptr);
	int args[3] = {ptr, val, mask};
	ir_op *op = sema_emit(s, loc, IR_OP_ATOMIC_RMW, mask >= 0 ? 3 : 2, args, shaped(pt, ir_scalar((ir_kind)pt.pointee)));
	if (!op)
		return -1;
	op->sub = a;
	op->ival = sem;
	op->ival2 = scope;
	op->flags = mask >= 0 ? IR_FLAG_HAS_MASK : 0;
	return op->results[0];
}

static int emit_binary(sema *s, src_loc loc, ir_opcode code, int a, int b)
{
	int args[2] = {a, b};
	ir_op *op = sema_emit(s, loc, code, 2, args, sema_type(s, a));
	return op ? op->results[0] : -1;
}

/* Float max/min: Triton's signed-max-of-the-positive-half and
 * unsigned-min-of-the-negative-half (the reverse for min). */
static int float_minmax(sema *s, src_loc loc, ir_atomic a, int ptr, int val, int mask, ir_sem sem, ir_scope scope)
{
	ir_type vt = sema_type(s, val);
	bool wide = vt.kind == IR_F64;
	ir_type it = ir_scalar(wide ? IR_I64 : IR_I32), ut = ir_scalar(wide ? IR_U64 : IR_U32);
	int ival = sema_bitcast(s, loc, val, it), uval = sema_bitcast(s, loc, val, ut);
	int iptr = sema_cast(s, loc, ptr, ir_ptr((ir_kind)it.kind)), uptr = sema_cast(s, loc, ptr, ir_ptr((ir_kind)ut.kind));
	int shift = sema_const(s, loc, shaped(vt, ut), wide ? 63 : 31, 0.0);
	if (ival < 0 || uval < 0 || iptr < 0 || uptr < 0 || shift < 0)
		return -1;
	int sign = emit_binary(s, loc, IR_OP_SHR, uval, shift);
	int neg = sign < 0 ? -1 : sema_cast(s, loc, sign, ir_scalar(IR_I1));
	if (neg < 0)
		return -1;
	ir_op *notop = sema_emit(s, loc, IR_OP_NOT, 1, &neg, sema_type(s, neg));
	if (!notop)
		return -1;
	int pos = notop->results[0];
	int pmask = mask >= 0 ? emit_binary(s, loc, IR_OP_AND, mask, pos) : pos;
	int nmask = mask >= 0 ? emit_binary(s, loc, IR_OP_AND, mask, neg) : neg;
	if (pmask < 0 || nmask < 0)
		return -1;
	int pret = emit_rmw(s, loc, a, iptr, ival, pmask, sem, scope);
	int nret = emit_rmw(s, loc, a == IR_ATOMIC_MAX ? IR_ATOMIC_MIN : IR_ATOMIC_MAX, uptr, uval, nmask, sem, scope);
	if (pret < 0 || nret < 0 || (nret = sema_bitcast(s, loc, nret, it)) < 0)
		return -1;
	int args[3] = {pos, pret, nret};
	ir_op *sel = sema_emit(s, loc, IR_OP_SELECT, 3, args, sema_type(s, pret));
	return sel ? sema_bitcast(s, loc, sel->results[0], ir_scalar((ir_kind)vt.kind)) : -1;
}

/* The element kinds Triton's atom_red_typechecking_impl lets through. */
static bool check_kind(sema *s, src_loc loc, const char *name, const char *what, ir_kind k, bool cas)
{
	if (k == IR_PTR)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` does not support pointers to pointers", name);
	int bits = ir_kind_bits(k);
	if (cas) {
		if (bits != 16 && bits != 32 && bits != 64)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC,
					  "`%s` only supports elements with width {16, 32, 64}, got %s", name, ir_kind_name(k));
		return true;
	}
	if ((k == IR_F16 || k == IR_BF16) && strcmp(what, "add"))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` does not support %s (only atomic_add does)", name,
				  ir_kind_name(k));
	if (k == IR_I16 || k == IR_U16 || bits < 16)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` does not support %s", name, ir_kind_name(k));
	if (ir_kind_is_float(k) && (!strcmp(what, "and") || !strcmp(what, "or") || !strcmp(what, "xor")))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` does not support %s (integers only)", name,
				  ir_kind_name(k));
	return true;
}

bool sema_atomic(sema *s, src_loc loc, const char *name, int which, const sv *a, sv *out)
{
	bool cas = which < 0;
	int ptr = sema_to_tensor(s, loc, a[0]);
	if (ptr < 0)
		return false;
	ir_type pt = sema_type(s, ptr);
	if (pt.kind != IR_PTR)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` needs a pointer or a block of pointers, got %s", name,
				  sema_type_str(s, pt));
	ir_kind k = (ir_kind)pt.pointee;
	ir_sem sem;
	ir_scope scope;
	if (!check_kind(s, loc, name, cas ? "cas" : ir_atomic_name((ir_atomic)which), k, cas) ||
	    !parse_sem(s, loc, a[3], &sem) || !parse_scope(s, loc, a[4], &scope))
		return false;
	int r;
	if (cas) {
		int cmp = value_operand(s, loc, name, a[1], pt), val = cmp < 0 ? -1 : value_operand(s, loc, name, a[2], pt);
		if (val < 0)
			return false;
		int args[3] = {ptr, cmp, val};
		ir_op *op = sema_emit(s, loc, IR_OP_ATOMIC_CAS, 3, args, shaped(pt, ir_scalar(k)));
		if (!op)
			return false;
		op->ival = sem;
		op->ival2 = scope;
		r = op->results[0];
	} else {
		int val = value_operand(s, loc, name, a[1], pt), mask = -1;
		if (val < 0)
			return false;
		if (a[2].kind != SV_NONE) {
			if ((mask = sema_to_tensor(s, loc, a[2])) < 0)
				return false;
			if (sema_type(s, mask).kind != IR_I1)
				return sema_error(s, loc, TILEC_ERR_SEMANTIC, "the mask of `%s` must be boolean (i1), got %s", name,
						  sema_type_str(s, sema_type(s, mask)));
			if (!pt.rank && sema_type(s, mask).rank)
				return sema_error(s, loc, TILEC_ERR_SEMANTIC, "the mask cannot be a block when the pointer is a scalar");
			if ((mask = sema_splat_to(s, loc, mask, pt)) < 0)
				return false;
		}
		ir_atomic op = (ir_atomic)which;
		if (ir_kind_is_float(k) && (op == IR_ATOMIC_MAX || op == IR_ATOMIC_MIN))
			r = float_minmax(s, loc, op, ptr, val, mask, sem, scope);
		else
			r = emit_rmw(s, loc, op, ptr, val, mask, sem, scope);
	}
	if (r < 0)
		return false;
	*out = sema_tensor(r);
	return true;
}

bool sema_debug_barrier(sema *s, src_loc loc, sv *out)
{
	if (!sema_emit(s, loc, IR_OP_BARRIER, 0, NULL, ir_scalar(IR_VOID)))
		return false;
	memset(out, 0, sizeof *out);
	out->kind = SV_NONE;
	return true;
}
