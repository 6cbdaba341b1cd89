/* sema_expr.c - values, Triton's type promotion, broadcasting, operators.
 *
 * An expression evaluates to an sv: either a constexpr (folded here with
 * Python's semantics: 64-bit ints checked for overflow, `//` and `%`
 * rounding toward -inf) or a tensor, an IR value. Operators on tensors
 * follow Triton's semantic.py: a Python number meeting a tensor adopts the
 * tensor's dtype when its kind (bool < int < float) is not higher,
 * otherwise the usual promotion applies (fp64 > fp32 > fp16 > bf16 with
 * `/` and `%` of 16-bit floats done in fp32, C's integer conversions);
 * runtime `//` and `%` truncate like C. Every implicit conversion and
 * broadcast becomes an explicit CAST, SPLAT, EXPAND_DIMS or BROADCAST op so
 * that elementwise operands have identical types, as the IR requires.
 */
#include "front/sema.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

sv sema_tensor(int id)
{
	sv v = {0};
	v.kind = SV_TENSOR;
	v.id = id;
	return v;
}

sv sema_int(int64_t i)
{
	sv v = {0};
	v.kind = SV_INT;
	v.i = i;
	return v;
}

sv sema_bool(bool b)
{
	sv v = {0};
	v.kind = SV_BOOL;
	v.i = b;
	return v;
}

sv sema_float(double f)
{
	sv v = {0};
	v.kind = SV_FLOAT;
	v.f = f;
	return v;
}

bool sema_is_const(sv v)
{
	return v.kind >= SV_NONE && v.kind <= SV_DTYPE;
}

bool sema_is_num(sv v)
{
	return v.kind == SV_BOOL || v.kind == SV_INT || v.kind == SV_FLOAT;
}

ir_type sema_type(const sema *s, int id)
{
	return s->f->values[id].type;
}

const char *sema_type_str(sema *s, ir_type t)
{
	strbuf sb;
	sb_init(&sb);
	ir_type_str(&sb, t);
	const char *r = arena_strdup(s->a, sb_str(&sb));
	sb_free(&sb);
	return r ? r : "?";
}

const char *sema_sv_str(sema *s, sv v)
{
	switch (v.kind) {
	case SV_UNDEF: return "an undefined value";
	case SV_NONE: return "None";
	case SV_BOOL: return v.i ? "True" : "False";
	case SV_INT: return arena_printf(s->a, "%lld", (long long)v.i);
	case SV_FLOAT: return arena_printf(s->a, "%g", v.f);
	case SV_STR: return arena_printf(s->a, "\"%.*s\"", (int)v.slen, v.s);
	case SV_DTYPE: return arena_printf(s->a, "dtype %s", sema_type_str(s, v.t));
	case SV_TENSOR: return arena_printf(s->a, "a tensor of type %s", sema_type_str(s, sema_type(s, v.id)));
	case SV_TUPLE: return "a tuple";
	case SV_MODULE: return arena_printf(s->a, "module `%s`", v.s);
	case SV_FUNC: return arena_printf(s->a, "function `%s`", v.fn->name);
	case SV_BUILTIN: return arena_printf(s->a, "`%s`", v.s);
	case SV_METHOD: return arena_printf(s->a, "method `%s`", v.s);
	case SV_SLICE: return "a slice";
	case SV_ARGS: return "the arguments of a heuristic";
	case SV_DESC: return arena_printf(s->a, "a tensor descriptor of blocks %s", sema_type_str(s, v.t));
	case SV_BLOCKPTR: return arena_printf(s->a, "a block pointer to blocks %s", sema_type_str(s, v.t));
	}
	return "?";
}

/* ---------------------------------------------------------------- emit */

ir_op *sema_emit_n(sema *s, src_loc loc, ir_opcode code, int nargs, const int *args, int nresults, const ir_type *rts)
{
	if (!s->f || s->global_depth) {
		sema_error(s, loc, TILEC_ERR_SEMANTIC, "this expression is not a compile-time constant");
		return NULL;
	}
	ir_op *op = ir_op_new(s->f, code, loc, nargs, args, nresults, rts, 0);
	if (!op || !ir_region_append(s->f, s->cur, op)) {
		sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		return NULL;
	}
	return op;
}

ir_op *sema_emit(sema *s, src_loc loc, ir_opcode code, int nargs, const int *args, ir_type rt)
{
	return sema_emit_n(s, loc, code, nargs, args, rt.kind != IR_VOID ? 1 : 0, &rt);
}

static int result(ir_op *op)
{
	return op ? op->results[0] : -1;
}

int sema_const(sema *s, src_loc loc, ir_type t, int64_t ival, double fval)
{
	ir_op *op = sema_emit(s, loc, IR_OP_CONST, 0, NULL, t);
	if (!op)
		return -1;
	if (ir_kind_is_float((ir_kind)t.kind))
		op->fval = fval;
	else
		op->ival = t.kind == IR_I1 ? (ival != 0) : ival;
	return op->results[0];
}

static ir_type reshaped(ir_type shape, ir_type elem)
{
	return ir_block(elem, shape.rank, shape.shape);
}

/* SPLAT; a scalar CONST becomes a block CONST directly. */
static int splat(sema *s, src_loc loc, int id, ir_type shape)
{
	ir_type rt = reshaped(shape, sema_type(s, id));
	const ir_op *def = s->f->values[id].def;
	if (def && def->code == IR_OP_CONST)
		return sema_const(s, loc, rt, def->ival, def->fval);
	return result(sema_emit(s, loc, IR_OP_SPLAT, 1, &id, rt));
}

int sema_expand_dims(sema *s, src_loc loc, int id, int axis)
{
	ir_type t = sema_type(s, id);
	if (t.rank >= IR_MAX_RANK) {
		sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "blocks of more than %d dimensions are not supported", IR_MAX_RANK);
		return -1;
	}
	if (axis < 0 || axis > t.rank) {
		sema_error(s, loc, TILEC_ERR_SEMANTIC, "expand_dims axis %d is out of range for a block of rank %d", axis, t.rank);
		return -1;
	}
	ir_type r = t;
	for (int i = t.rank; i > axis; i--)
		r.shape[i] = t.shape[i - 1];
	r.shape[axis] = 1;
	r.rank = (uint8_t)(t.rank + 1);
	if (t.rank == 0)
		return splat(s, loc, id, r);
	ir_op *op = sema_emit(s, loc, IR_OP_EXPAND_DIMS, 1, &id, r);
	if (op)
		op->axis = axis;
	return result(op);
}

static void shape_str(strbuf *sb, ir_type t)
{
	sb_putc(sb, '[');
	for (int i = 0; i < t.rank; i++)
		sb_printf(sb, i ? ", %d" : "%d", (int)t.shape[i]);
	sb_putc(sb, ']');
}

static const char *shape_text(sema *s, ir_type t)
{
	strbuf sb;
	sb_init(&sb);
	shape_str(&sb, t);
	const char *r = arena_strdup(s->a, sb_str(&sb));
	sb_free(&sb);
	return r ? r : "?";
}

int sema_splat_to(sema *s, src_loc loc, int id, ir_type shape)
{
	ir_type t = sema_type(s, id);
	if (t.rank == 0)
		return shape.rank ? splat(s, loc, id, shape) : id;
	if (t.rank != shape.rank) {
		sema_error(s, loc, TILEC_ERR_SEMANTIC, "cannot broadcast a block of shape %s to shape %s (rank mismatch)",
			   shape_text(s, t), shape_text(s, shape));
		return -1;
	}
	if (ir_same_shape(t, shape))
		return id;
	for (int i = 0; i < t.rank; i++)
		if (t.shape[i] != shape.shape[i] && t.shape[i] != 1) {
			sema_error(s, loc, TILEC_ERR_SEMANTIC, "cannot broadcast a block of shape %s to shape %s (dimension %d)",
				   shape_text(s, t), shape_text(s, shape), i);
			return -1;
		}
	return result(sema_emit(s, loc, IR_OP_BROADCAST, 1, &id, reshaped(shape, t)));
}

bool sema_broadcast(sema *s, src_loc loc, int *a, int *b)
{
	ir_type ta = sema_type(s, *a), tb = sema_type(s, *b);
	if (ta.rank == 0 && tb.rank == 0)
		return true;
	if (ta.rank == 0) {
		*a = splat(s, loc, *a, tb);
		return *a >= 0;
	}
	if (tb.rank == 0) {
		*b = splat(s, loc, *b, ta);
		return *b >= 0;
	}
	while (ta.rank < tb.rank) {
		if ((*a = sema_expand_dims(s, loc, *a, 0)) < 0)
			return false;
		ta = sema_type(s, *a);
	}
	while (tb.rank < ta.rank) {
		if ((*b = sema_expand_dims(s, loc, *b, 0)) < 0)
			return false;
		tb = sema_type(s, *b);
	}
	ir_type r = ta;
	for (int i = 0; i < ta.rank; i++) {
		if (ta.shape[i] == 1)
			r.shape[i] = tb.shape[i];
		else if (tb.shape[i] != 1 && tb.shape[i] != ta.shape[i])
			return sema_error(s, loc, TILEC_ERR_SEMANTIC,
					  "incompatible shapes %s and %s: dimension %d differs (%d and %d)",
					  shape_text(s, ta), shape_text(s, tb), i, (int)ta.shape[i], (int)tb.shape[i]);
	}
	*a = sema_splat_to(s, loc, *a, r);
	*b = *a >= 0 ? sema_splat_to(s, loc, *b, r) : -1;
	return *a >= 0 && *b >= 0;
}

bool sema_check_shape(sema *s, src_loc loc, int rank, const int64_t *shape)
{
	if (rank > IR_MAX_RANK)
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "blocks of more than %d dimensions are not supported", IR_MAX_RANK);
	int64_t numel = 1;
	for (int i = 0; i < rank; i++) {
		if (shape[i] <= 0 || (shape[i] & (shape[i] - 1)) != 0)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "block shape dimension %d is %lld, not a power of two",
					  i, (long long)shape[i]);
		if (shape[i] > (1 << 20) || (numel *= shape[i]) > (1 << 20))
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "block of more than 1048576 elements");
	}
	return true;
}

/* ---------------------------------------------------------------- casts */

static bool elem_eq(ir_type a, ir_type b)
{
	return a.kind == b.kind && (a.kind != IR_PTR || a.pointee == b.pointee);
}

int sema_cast(sema *s, src_loc loc, int id, ir_type elem)
{
	ir_type t = sema_type(s, id);
	if (elem_eq(t, elem))
		return id;
	ir_kind from = (ir_kind)t.kind, to = (ir_kind)elem.kind;
	/* Triton converts fp8 only to and from these (its backend aborts on the rest) */
	if ((ir_kind_is_fp8(from) || ir_kind_is_fp8(to)) &&
	    !(ir_kind_is_fp8(from) ? to == IR_F32 || to == IR_F16 || to == IR_BF16
				   : from == IR_F32 || from == IR_F16 || from == IR_BF16)) {
		sema_error(s, loc, TILEC_ERR_SEMANTIC,
			   "cannot cast %s to %s: fp8 converts only to and from fp32, fp16 and bf16, as in Triton (cast through fp32)",
			   sema_type_str(s, t), sema_type_str(s, elem));
		return -1;
	}
	if (to == IR_I1 && from != IR_PTR) {
		/* Triton: x != 0 (unordered for floats) */
		int zero = sema_const(s, loc, reshaped(t, ir_elem(t)), 0, 0.0);
		if (zero < 0)
			return -1;
		int args[2] = {id, zero};
		ir_op *op = sema_emit(s, loc, IR_OP_CMP, 2, args, reshaped(t, ir_scalar(IR_I1)));
		if (op)
			op->sub = IR_CMP_NE;
		return result(op);
	}
	if (from == IR_PTR && to == IR_PTR)
		return result(sema_emit(s, loc, IR_OP_BITCAST, 1, &id, reshaped(t, elem)));
	/* Triton's int_to_ptr takes 64-bit integers only (its verifier refuses the rest) */
	if (to == IR_PTR && ir_kind_is_int(from) && from != IR_I64 && from != IR_U64) {
		sema_error(s, loc, TILEC_ERR_SEMANTIC, "cannot cast %s to %s: a pointer is made from a 64-bit integer, "
			   "as in Triton (.to(tl.int64) first)", sema_type_str(s, t), sema_type_str(s, elem));
		return -1;
	}
	if ((from == IR_PTR && to != IR_I64) || (to == IR_PTR && !ir_kind_is_int(from))) {
		sema_error(s, loc, TILEC_ERR_SEMANTIC, "cannot cast %s to %s", sema_type_str(s, t), sema_type_str(s, elem));
		return -1;
	}
	return result(sema_emit(s, loc, IR_OP_CAST, 1, &id, reshaped(t, elem)));
}

int sema_bitcast(sema *s, src_loc loc, int id, ir_type elem)
{
	ir_type t = sema_type(s, id);
	if (elem_eq(t, elem))
		return id;
	if (t.kind == IR_PTR || elem.kind == IR_PTR)
		return sema_cast(s, loc, id, elem);
	if (ir_kind_bits((ir_kind)t.kind) != ir_kind_bits((ir_kind)elem.kind)) {
		sema_error(s, loc, TILEC_ERR_SEMANTIC, "cannot bitcast %s to %s: sizes differ (%d and %d bits)",
			   sema_type_str(s, t), sema_type_str(s, elem), ir_kind_bits((ir_kind)t.kind),
			   ir_kind_bits((ir_kind)elem.kind));
		return -1;
	}
	return result(sema_emit(s, loc, IR_OP_BITCAST, 1, &id, reshaped(t, elem)));
}

/* ---------------------------------------------------------------- promotion */

/* The dtype Triton gives a Python number turned into a tensor. */
static ir_kind literal_kind(sv v)
{
	if (v.kind == SV_BOOL)
		return IR_I1;
	if (v.kind == SV_INT)
		return v.i >= INT32_MIN && v.i <= INT32_MAX ? IR_I32 : v.i >= 0 && v.i <= UINT32_MAX ? IR_U32 : IR_I64;
	double a = fabs(v.f);
	if (isinf(a) || a == 0.0 || isnan(a) || (a >= 0x1p-126 && a <= 0x1.fffffep127))
		return IR_F32;
	return IR_F64;
}

static int kind_class(ir_kind k)
{
	return k == IR_I1 ? 0 : ir_kind_is_int(k) ? 1 : 2;
}

static ir_kind int_promote(ir_kind a, ir_kind b)
{
	int ab = ir_kind_bits(a), bb = ir_kind_bits(b);
	bool as = ir_kind_is_signed(a), bs = ir_kind_is_signed(b);
	if (as == bs)
		return ab > bb ? a : b;
	if (!as)
		return ab >= bb ? a : b;
	return bb >= ab ? b : a;
}

/* Triton's computation_type_impl; false (with a message) when there is none. */
static bool computation_type(sema *s, src_loc loc, const char *what, ir_kind a, bool as, ir_kind b, bool bs,
			     bool divmod, ir_kind *out)
{
	if (as != bs) {
		ir_kind sc = as ? a : b, tk = as ? b : a;
		if (kind_class(sc) <= kind_class(tk)) {
			*out = divmod && (tk == IR_F16 || tk == IR_BF16) ? IR_F32 : tk;
			return true;
		}
	}
	if (a == IR_F64 || b == IR_F64)
		*out = IR_F64;
	else if (a == IR_F32 || b == IR_F32)
		*out = IR_F32;
	else if (a == IR_F16 || b == IR_F16)
		*out = divmod ? IR_F32 : IR_F16;
	else if (a == IR_BF16 && b == IR_BF16)
		*out = divmod ? IR_F32 : IR_BF16;
	else if (a == IR_BF16 || b == IR_BF16)
		*out = IR_F32;
	else if (ir_kind_is_fp8(a) && ir_kind_is_fp8(b))
		*out = a == b ? a : IR_F16;
	else if (ir_kind_is_fp8(a) || ir_kind_is_fp8(b))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "unexpected types %s and %s for `%s`", ir_kind_name(a),
				  ir_kind_name(b), what);
	else if (divmod && ir_kind_is_signed(a) != ir_kind_is_signed(b) && a != IR_I1 && b != IR_I1)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC,
				  "cannot use `%s` with %s and %s because they have different signedness; cast them to the same signedness",
				  what, ir_kind_name(a), ir_kind_name(b));
	else
		*out = int_promote(a, b);
	return true;
}

static bool int_in_range(ir_kind k, int64_t v)
{
	switch (k) {
	case IR_I1: return v == 0 || v == 1;
	case IR_I8: return v >= INT8_MIN && v <= INT8_MAX;
	case IR_I16: return v >= INT16_MIN && v <= INT16_MAX;
	case IR_I32: return v >= INT32_MIN && v <= INT32_MAX;
	case IR_U8: return v >= 0 && v <= UINT8_MAX;
	case IR_U16: return v >= 0 && v <= UINT16_MAX;
	case IR_U32: return v >= 0 && v <= (int64_t)UINT32_MAX;
	case IR_U64: return v >= 0;
	default: return true;
	}
}

/* A float truncated toward zero as an integer conversion does, saturated
 * (and NaN as 0) instead of undefined. */
static int64_t float_to_int(double f)
{
	if (f != f)
		return 0;
	if (f >= 9223372036854775807.0)
		return INT64_MAX;
	if (f <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)f;
}

int sema_number(sema *s, src_loc loc, sv v, ir_type t)
{
	double f = v.kind == SV_FLOAT ? v.f : (double)v.i;
	int64_t i = v.kind == SV_FLOAT ? float_to_int(v.f) : v.i;
	return sema_const(s, loc, t, i, f);
}

/* A Python number as a constant of kind k and the shape of `shape`. */
static int number_const(sema *s, src_loc loc, sv v, ir_kind k, ir_type shape)
{
	return sema_number(s, loc, v, reshaped(shape, ir_scalar(k)));
}

int sema_to_tensor(sema *s, src_loc loc, sv v)
{
	if (v.kind == SV_TENSOR)
		return v.id;
	if (sema_is_num(v))
		return number_const(s, loc, v, literal_kind(v), ir_scalar(IR_VOID));
	sema_error(s, loc, TILEC_ERR_SEMANTIC, "%s cannot be converted to a tensor", sema_sv_str(s, v));
	return -1;
}

static ir_kind elem_kind(const sema *s, sv v)
{
	return v.kind == SV_TENSOR ? (ir_kind)sema_type(s, v.id).kind : literal_kind(v);
}

/* Triton's binary_op_type_checking_impl: numbers adopt the computation
 * type, tensors are cast to it (arith), then both are broadcast. */
bool sema_typecheck(sema *s, src_loc loc, const char *what, sv a, sv b, bool lptr, bool rptr, bool arith, bool divmod,
		    int *ia, int *ib)
{
	for (int k = 0; k < 2; k++) {
		sv v = k ? b : a;
		if (v.kind != SV_TENSOR && !sema_is_num(v))
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "unsupported operand for `%s`: %s", what, sema_sv_str(s, v));
	}
	bool as = sema_is_num(a), bs = sema_is_num(b);
	ir_kind ak = elem_kind(s, a), bk = elem_kind(s, b);
	ir_type at = a.kind == SV_TENSOR ? ir_elem(sema_type(s, a.id)) : ir_scalar(ak);
	ir_type bt = b.kind == SV_TENSOR ? ir_elem(sema_type(s, b.id)) : ir_scalar(bk);
	for (int k = 0; k < 2; k++) {
		ir_type x = k ? bt : at, y = k ? at : bt;
		bool allow = k ? rptr : lptr;
		if (x.kind == IR_PTR && (!allow || (y.kind == IR_PTR && !elem_eq(x, y)) || ir_kind_is_float((ir_kind)y.kind)))
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "invalid operands of type %s and %s for `%s`",
					  sema_type_str(s, at), sema_type_str(s, bt), what);
	}
	/* tl.where moves fp8 bytes; arithmetic and comparisons on them are not lowered */
	if (arith && strcmp(what, "where") && (ir_kind_is_fp8(ak) || ir_kind_is_fp8(bk)))
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED,
				  "`%s` on %s is not supported: convert fp8 to fp16 or fp32 first (`x.to(tl.float32)`)", what,
				  ir_kind_name(ir_kind_is_fp8(ak) ? ak : bk));
	int x, y;
	if (arith && ak != IR_PTR && bk != IR_PTR) {
		ir_kind rk = IR_VOID;
		if (!computation_type(s, loc, what, ak, as, bk, bs, divmod, &rk))
			return false;
		for (int k = 0; k < 2; k++) {
			sv v = k ? b : a;
			if (!sema_is_num(v) || !ir_kind_is_int(rk))
				continue;
			if (v.i < 0 && !ir_kind_is_signed(rk) && rk != IR_I1)
				return sema_error(s, loc, TILEC_ERR_SEMANTIC,
						  "cannot apply `%s` to an unsigned tensor (%s) and a negative number; cast one of them",
						  what, ir_kind_name(rk));
			if (!int_in_range(rk, v.i))
				return sema_error(s, loc, TILEC_ERR_SEMANTIC, "%lld is out of range for %s in `%s`",
						  (long long)v.i, ir_kind_name(rk), what);
		}
		/* a number becomes a constant of the other operand's shape directly */
		x = as ? -1 : sema_cast(s, loc, a.id, ir_scalar(rk));
		y = bs ? -1 : sema_cast(s, loc, b.id, ir_scalar(rk));
		if ((!as && x < 0) || (!bs && y < 0))
			return false;
		if (as)
			x = number_const(s, loc, a, rk, bs ? ir_scalar(rk) : sema_type(s, y));
		if (bs && x >= 0)
			y = number_const(s, loc, b, rk, sema_type(s, x));
	} else {
		x = as ? -1 : a.id;
		y = bs ? -1 : b.id;
		if (as)
			x = number_const(s, loc, a, ak, bs ? ir_scalar(ak) : sema_type(s, y));
		if (bs && x >= 0)
			y = number_const(s, loc, b, bk, sema_type(s, x));
	}
	if (x < 0 || y < 0 || !sema_broadcast(s, loc, &x, &y))
		return false;
	*ia = x;
	*ib = y;
	return true;
}

/* ---------------------------------------------------------------- constexpr folding */

static bool div_zero(sema *s, src_loc loc)
{
	return sema_error(s, loc, TILEC_ERR_SEMANTIC, "division by zero in a constant expression");
}

static bool overflow(sema *s, src_loc loc)
{
	return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "constant expression overflows 64-bit integers");
}

static int64_t floordiv64(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t floormod64(int64_t a, int64_t b)
{
	int64_t r = a % b;
	return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

static bool fold_cmp(ast_op op, int c, sv *out)
{
	bool r = false;
	switch (op) {
	case AST_OP_LT: r = c < 0; break;
	case AST_OP_LE: r = c <= 0; break;
	case AST_OP_GT: r = c > 0; break;
	case AST_OP_GE: r = c >= 0; break;
	case AST_OP_EQ: r = c == 0; break;
	case AST_OP_NE: r = c != 0; break;
	default: return false;
	}
	*out = sema_bool(r);
	return true;
}

static bool fold_float(ast_op op, double a, double b, sv *out)
{
	switch (op) {
	case AST_OP_ADD: *out = sema_float(a + b); return true;
	case AST_OP_SUB: *out = sema_float(a - b); return true;
	case AST_OP_MUL: *out = sema_float(a * b); return true;
	case AST_OP_DIV: *out = sema_float(a / b); return true;
	case AST_OP_FLOORDIV: *out = sema_float(floor(a / b)); return true;
	case AST_OP_MOD: {
		double r = fmod(a, b);
		if (r != 0 && ((r < 0) != (b < 0)))
			r += b;
		*out = sema_float(r);
		return true;
	}
	case AST_OP_POW: *out = sema_float(pow(a, b)); return true;
	default:
		if (isnan(a) || isnan(b)) {
			*out = sema_bool(op == AST_OP_NE);
			return op >= AST_OP_LT && op <= AST_OP_NE;
		}
		return fold_cmp(op, a < b ? -1 : a > b ? 1 : 0, out);
	}
}

static bool fold_int(sema *s, src_loc loc, ast_op op, int64_t a, int64_t b, bool bools, sv *out)
{
	int64_t r;
	switch (op) {
	case AST_OP_ADD: if (__builtin_add_overflow(a, b, &r)) return overflow(s, loc); break;
	case AST_OP_SUB: if (__builtin_sub_overflow(a, b, &r)) return overflow(s, loc); break;
	case AST_OP_MUL: if (__builtin_mul_overflow(a, b, &r)) return overflow(s, loc); break;
	case AST_OP_DIV:
		*out = sema_float((double)a / (double)b);
		return true;
	case AST_OP_FLOORDIV:
		if (a == INT64_MIN && b == -1)
			return overflow(s, loc);
		r = floordiv64(a, b);
		break;
	case AST_OP_MOD:
		r = b == -1 ? 0 : floormod64(a, b);
		break;
	case AST_OP_POW:
		if (b < 0) {
			*out = sema_float(pow((double)a, (double)b));
			return true;
		}
		r = 1;
		for (int64_t base = a, e = b; e; e >>= 1) { /* by squaring: b may be huge when |a| <= 1 */
			if ((e & 1) && __builtin_mul_overflow(r, base, &r))
				return overflow(s, loc);
			if (e > 1 && __builtin_mul_overflow(base, base, &base))
				return overflow(s, loc);
		}
		break;
	case AST_OP_LSHIFT:
		if (b < 0)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "negative shift count");
		if (b >= 63 || (a != 0 && (a > (INT64_MAX >> b) || a < (INT64_MIN >> b))))
			return a == 0 ? (*out = sema_int(0), true) : overflow(s, loc);
		r = (int64_t)((uint64_t)a << b);
		break;
	case AST_OP_RSHIFT:
		if (b < 0)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "negative shift count");
		r = b >= 63 ? (a < 0 ? -1 : 0) : a >> b;
		break;
	case AST_OP_BITAND: r = a & b; if (bools) { *out = sema_bool(r); return true; } break;
	case AST_OP_BITOR: r = a | b; if (bools) { *out = sema_bool(r); return true; } break;
	case AST_OP_BITXOR: r = a ^ b; if (bools) { *out = sema_bool(r); return true; } break;
	default:
		return fold_cmp(op, a < b ? -1 : a > b ? 1 : 0, out);
	}
	*out = sema_int(r);
	return true;
}

static bool fold(sema *s, src_loc loc, ast_op op, sv a, sv b, sv *out)
{
	if (op == AST_OP_IS || op == AST_OP_IS_NOT) {
		bool same = a.kind == b.kind && (a.kind == SV_NONE || (a.kind == SV_BOOL && a.i == b.i) ||
						  (a.kind == SV_DTYPE && elem_eq(a.t, b.t)));
		*out = sema_bool(op == AST_OP_IS ? same : !same);
		return true;
	}
	if (sema_is_num(a) && sema_is_num(b)) {
		if ((op == AST_OP_DIV || op == AST_OP_FLOORDIV || op == AST_OP_MOD) &&
		    (b.kind == SV_FLOAT ? b.f == 0 : b.i == 0))
			return div_zero(s, loc);
		if (a.kind == SV_FLOAT || b.kind == SV_FLOAT) {
			double x = a.kind == SV_FLOAT ? a.f : (double)a.i, y = b.kind == SV_FLOAT ? b.f : (double)b.i;
			if (op >= AST_OP_LSHIFT && op <= AST_OP_BITXOR)
				goto bad;
			return fold_float(op, x, y, out);
		}
		if (op == AST_OP_MATMUL)
			goto bad;
		return fold_int(s, loc, op, a.i, b.i, a.kind == SV_BOOL && b.kind == SV_BOOL, out);
	}
	if (op == AST_OP_EQ || op == AST_OP_NE) {
		bool eq;
		if (a.kind == SV_STR && b.kind == SV_STR)
			eq = a.slen == b.slen && memcmp(a.s, b.s, a.slen) == 0;
		else if (a.kind == SV_DTYPE && b.kind == SV_DTYPE)
			eq = elem_eq(a.t, b.t);
		else
			eq = a.kind == SV_NONE && b.kind == SV_NONE;
		*out = sema_bool(op == AST_OP_EQ ? eq : !eq);
		return true;
	}
	if (op == AST_OP_ADD && a.kind == SV_STR && b.kind == SV_STR) {
		char *t = arena_alloc(s->a, a.slen + b.slen + 1);
		if (!t)
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		memcpy(t, a.s, a.slen);
		memcpy(t + a.slen, b.s, b.slen);
		*out = a;
		out->s = t;
		out->slen = a.slen + b.slen;
		return true;
	}
bad:
	return sema_error(s, loc, TILEC_ERR_SEMANTIC, "unsupported operand types for `%s`: %s and %s", ast_op_name(op),
			  sema_sv_str(s, a), sema_sv_str(s, b));
}

bool sema_truth(sema *s, src_loc loc, sv v, bool *out)
{
	switch (v.kind) {
	case SV_NONE: *out = false; return true;
	case SV_BOOL:
	case SV_INT: *out = v.i != 0; return true;
	case SV_FLOAT: *out = v.f != 0; return true;
	case SV_STR: *out = v.slen != 0; return true;
	case SV_TUPLE: *out = v.n != 0; return true;
	case SV_DTYPE: *out = true; return true;
	default:
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "the truth value of %s is not known at compile time",
				  sema_sv_str(s, v));
	}
}

/* ---------------------------------------------------------------- tensor operators */

static int binary(sema *s, src_loc loc, ir_opcode code, int a, int b)
{
	int args[2] = {a, b};
	return result(sema_emit(s, loc, code, 2, args, sema_type(s, a)));
}

static int negate(sema *s, src_loc loc, int id)
{
	ir_type t = sema_type(s, id);
	int zero = sema_const(s, loc, t, 0, 0.0);
	return zero < 0 ? -1 : binary(s, loc, IR_OP_SUB, zero, id);
}

static bool tensor_cmp(sema *s, src_loc loc, ast_op op, sv a, sv b, sv *out)
{
	int x, y;
	if (!sema_typecheck(s, loc, ast_op_name(op), a, b, false, false, true, false, &x, &y))
		return false;
	static const ir_cmp map[] = {IR_CMP_LT, IR_CMP_LE, IR_CMP_GT, IR_CMP_GE, IR_CMP_EQ, IR_CMP_NE};
	int args[2] = {x, y};
	ir_type t = sema_type(s, x);
	ir_op *op_ = sema_emit(s, loc, IR_OP_CMP, 2, args, reshaped(t, ir_scalar(IR_I1)));
	if (!op_)
		return false;
	op_->sub = map[op - AST_OP_LT];
	*out = sema_tensor(op_->results[0]);
	return true;
}

static bool int_operands(sema *s, src_loc loc, const char *what, int *x, int *y)
{
	ir_kind a = (ir_kind)sema_type(s, *x).kind, b = (ir_kind)sema_type(s, *y).kind;
	if (!ir_kind_is_int(a) || !ir_kind_is_int(b))
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` needs integer operands, got %s and %s", what,
				  ir_kind_name(a), ir_kind_name(b));
	ir_kind r = int_promote(a, b);
	*x = sema_cast(s, loc, *x, ir_scalar(r));
	*y = sema_cast(s, loc, *y, ir_scalar(r));
	return *x >= 0 && *y >= 0;
}

bool sema_binop(sema *s, src_loc loc, ast_op op, sv a, sv b, sv *out)
{
	if (sema_is_const(a) && sema_is_const(b))
		return fold(s, loc, op, a, b, out);
	if (op == AST_OP_IS || op == AST_OP_IS_NOT) {
		/* identity, known at compile time: `ptr is not None` */
		bool same = a.kind == SV_TENSOR && b.kind == SV_TENSOR && a.id == b.id;
		*out = sema_bool(op == AST_OP_IS ? same : !same);
		return true;
	}
	const char *what = ast_op_name(op);
	if (op >= AST_OP_LT && op <= AST_OP_NE)
		return tensor_cmp(s, loc, op, a, b, out);
	int x, y, r = -1;
	switch (op) {
	case AST_OP_ADD:
	case AST_OP_SUB: {
		if (!sema_typecheck(s, loc, what, a, b, true, op == AST_OP_ADD, true, false, &x, &y))
			return false;
		ir_type tx = sema_type(s, x), ty = sema_type(s, y);
		if (tx.kind == IR_PTR && ty.kind == IR_PTR)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "cannot %s pointers", op == AST_OP_ADD ? "add" : "subtract");
		if (ty.kind == IR_PTR) {
			int t = x;
			x = y;
			y = t;
			tx = sema_type(s, x);
			ty = sema_type(s, y);
		}
		if (tx.kind == IR_PTR) {
			if (op == AST_OP_SUB && (y = negate(s, loc, y)) < 0)
				return false;
			/* addptr treats offsets as signed: zero-extend narrow unsigned ones */
			if (!ir_kind_is_signed((ir_kind)ty.kind) && ir_kind_bits((ir_kind)ty.kind) < 64 &&
			    (y = sema_cast(s, loc, y, ir_scalar(IR_I64))) < 0)
				return false;
			r = binary(s, loc, IR_OP_PTR_ADD, x, y);
		} else {
			r = binary(s, loc, op == AST_OP_ADD ? IR_OP_ADD : IR_OP_SUB, x, y);
		}
		break;
	}
	case AST_OP_MUL:
		if (!sema_typecheck(s, loc, what, a, b, false, false, true, false, &x, &y))
			return false;
		r = binary(s, loc, IR_OP_MUL, x, y);
		break;
	case AST_OP_DIV: {
		if (!sema_typecheck(s, loc, what, a, b, false, false, true, true, &x, &y))
			return false;
		ir_kind kx = (ir_kind)sema_type(s, x).kind, ky = (ir_kind)sema_type(s, y).kind;
		ir_kind k = ir_kind_is_float(kx) ? kx : ir_kind_is_float(ky) ? ky : IR_F32;
		if (ir_kind_is_float(kx) && ir_kind_is_float(ky) && ir_kind_bits(ky) > ir_kind_bits(kx))
			k = ky;
		if ((x = sema_cast(s, loc, x, ir_scalar(k))) < 0 || (y = sema_cast(s, loc, y, ir_scalar(k))) < 0)
			return false;
		r = binary(s, loc, IR_OP_DIV, x, y);
		break;
	}
	case AST_OP_FLOORDIV:
	case AST_OP_MOD: {
		if (!sema_typecheck(s, loc, what, a, b, false, false, true, true, &x, &y))
			return false;
		ir_kind k = (ir_kind)sema_type(s, x).kind;
		if (op == AST_OP_FLOORDIV && !ir_kind_is_int(k))
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`//` needs integer operands, got %s (Triton refuses it too)",
					  ir_kind_name(k));
		r = binary(s, loc, op == AST_OP_MOD ? IR_OP_REM : IR_OP_DIV, x, y);
		break;
	}
	case AST_OP_BITAND:
	case AST_OP_BITOR:
	case AST_OP_BITXOR:
	case AST_OP_LSHIFT:
	case AST_OP_RSHIFT: {
		static const ir_opcode codes[] = {IR_OP_SHL, IR_OP_SHR, IR_OP_AND, IR_OP_OR, IR_OP_XOR};
		if (!sema_typecheck(s, loc, what, a, b, false, false, true, false, &x, &y) ||
		    !int_operands(s, loc, what, &x, &y))
			return false;
		r = binary(s, loc, codes[op - AST_OP_LSHIFT], x, y);
		break;
	}
	case AST_OP_POW:
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED,
				  "`**` on tensors is not supported (Triton has none either); use libdevice.pow");
	default:
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "operator `%s` on tensors is not supported yet", what);
	}
	if (r < 0)
		return false;
	*out = sema_tensor(r);
	return true;
}

bool sema_unop(sema *s, src_loc loc, ast_op op, sv a, sv *out)
{
	if (op == AST_OP_NOT && a.kind != SV_TENSOR) {
		bool t;
		if (!sema_truth(s, loc, a, &t))
			return false;
		*out = sema_bool(!t);
		return true;
	}
	if (sema_is_num(a)) {
		switch (op) {
		case AST_OP_POS: *out = a.kind == SV_BOOL ? sema_int(a.i) : a; return true;
		case AST_OP_NEG:
			if (a.kind == SV_FLOAT) {
				*out = sema_float(-a.f);
				return true;
			}
			if (a.i == INT64_MIN)
				return overflow(s, loc);
			*out = sema_int(-a.i);
			return true;
		case AST_OP_INVERT:
			if (a.kind == SV_FLOAT)
				break;
			*out = sema_int(~a.i);
			return true;
		default: break;
		}
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "bad operand for unary `%s`: %s", ast_op_name(op), sema_sv_str(s, a));
	}
	if (a.kind != SV_TENSOR)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "bad operand for unary `%s`: %s", ast_op_name(op), sema_sv_str(s, a));
	ir_type t = sema_type(s, a.id);
	int r;
	switch (op) {
	case AST_OP_POS: *out = a; return true;
	case AST_OP_NEG:
		if (t.kind == IR_PTR)
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "cannot negate a pointer");
		if (ir_kind_is_fp8((ir_kind)t.kind))
			return sema_error(s, loc, TILEC_ERR_UNSUPPORTED,
					  "`-` on %s is not supported: convert fp8 to fp16 or fp32 first (`x.to(tl.float32)`)",
					  ir_kind_name((ir_kind)t.kind));
		r = negate(s, loc, a.id);
		break;
	case AST_OP_INVERT:
	case AST_OP_NOT:
		if (op == AST_OP_NOT ? t.kind != IR_I1 : !ir_kind_is_int((ir_kind)t.kind))
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "`%s` needs %s tensor, got %s", ast_op_name(op),
					  op == AST_OP_NOT ? "a boolean (i1)" : "an integer", sema_type_str(s, t));
		r = result(sema_emit(s, loc, IR_OP_NOT, 1, &a.id, t));
		break;
	default:
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "unary `%s` is not supported", ast_op_name(op));
	}
	if (r < 0)
		return false;
	*out = sema_tensor(r);
	return true;
}

/* ---------------------------------------------------------------- expressions */

static bool boolop(sema *s, ast_node *n, sv *out)
{
	sv a, b;
	if (!sema_expr(s, n->binary.left, &a))
		return false;
	if (a.kind != SV_TENSOR) {
		/* Python's short circuit on constexprs: the operand itself is the result */
		bool t;
		if (!sema_truth(s, n->loc, a, &t))
			return false;
		if ((n->binary.op == AST_OP_AND) != t) {
			*out = a;
			return true;
		}
		if (!sema_expr(s, n->binary.right, &b))
			return false;
		if (b.kind != SV_TENSOR) {
			*out = b;
			return true;
		}
	} else if (!sema_expr(s, n->binary.right, &b)) {
		return false;
	}
	int x = sema_to_tensor(s, n->loc, a), y = x >= 0 ? sema_to_tensor(s, n->loc, b) : -1;
	if (y < 0)
		return false;
	if (sema_type(s, x).kind != IR_I1 || sema_type(s, y).kind != IR_I1)
		return sema_error(s, n->loc, TILEC_ERR_SEMANTIC, "`%s` needs boolean (i1) operands, got %s and %s",
				  ast_op_name(n->binary.op), sema_type_str(s, sema_type(s, x)), sema_type_str(s, sema_type(s, y)));
	return sema_binop(s, n->loc, n->binary.op == AST_OP_AND ? AST_OP_BITAND : AST_OP_BITOR, sema_tensor(x),
			  sema_tensor(y), out);
}

static bool ifexp(sema *s, ast_node *n, sv *out)
{
	sv c;
	if (!sema_expr(s, n->ifexp.cond, &c))
		return false;
	if (c.kind != SV_TENSOR) {
		bool t;
		if (!sema_truth(s, n->loc, c, &t))
			return false;
		return sema_expr(s, t ? n->ifexp.then : n->ifexp.orelse, out);
	}
	int cond = sema_cast(s, n->loc, c.id, ir_scalar(IR_I1));
	if (cond < 0)
		return false;
	if (sema_type(s, cond).rank)
		return sema_error(s, n->loc, TILEC_ERR_SEMANTIC, "the condition of a conditional expression must be a scalar, got %s",
				  sema_type_str(s, sema_type(s, cond)));
	ir_op *op = ir_op_new(s->f, IR_OP_IF, n->loc, 1, &cond, 0, NULL, 2);
	if (!op)
		return sema_error(s, n->loc, TILEC_ERR_NOMEM, "out of memory");
	ir_region *saved = s->cur;
	int vals[2];
	for (int k = 0; k < 2; k++) {
		sv v;
		s->cur = &op->regions[k];
		bool ok = sema_expr(s, k ? n->ifexp.orelse : n->ifexp.then, &v) && (vals[k] = sema_to_tensor(s, n->loc, v)) >= 0;
		if (ok && !sema_emit(s, n->loc, IR_OP_YIELD, 1, &vals[k], ir_scalar(IR_VOID)))
			ok = false;
		if (!ok) {
			s->cur = saved;
			return false;
		}
	}
	s->cur = saved;
	ir_type t0 = sema_type(s, vals[0]), t1 = sema_type(s, vals[1]);
	if (!ir_type_eq(t0, t1))
		return sema_error(s, n->loc, TILEC_ERR_SEMANTIC,
				  "conditional expression with a runtime condition has inconsistent types %s and %s",
				  sema_type_str(s, t0), sema_type_str(s, t1));
	op->nresults = 1;
	op->results[0] = ir_value_new(s->f, t0);
	if (op->results[0] < 0 || !ir_region_append(s->f, s->cur, op))
		return sema_error(s, n->loc, TILEC_ERR_NOMEM, "out of memory");
	s->f->values[op->results[0]].def = op;
	*out = sema_tensor(op->results[0]);
	return true;
}

static bool seq(sema *s, ast_node *n, sv *out)
{
	sv t = {0};
	t.kind = SV_TUPLE;
	t.n = n->seq.items.n;
	t.items = arena_alloc(s->a, sizeof(sv) * (size_t)(t.n + 1));
	if (!t.items)
		return sema_error(s, n->loc, TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < t.n; i++) {
		if (n->seq.items.items[i]->kind == AST_STARRED)
			return sema_error(s, n->seq.items.items[i]->loc, TILEC_ERR_UNSUPPORTED, "starred expressions are not supported");
		if (!sema_expr(s, n->seq.items.items[i], &t.items[i]))
			return false;
	}
	*out = t;
	return true;
}

/* x[None, :], x[:, None], tuple[i], shape[i] */
static bool subscript(sema *s, ast_node *n, sv *out)
{
	sv v;
	if (!sema_expr(s, n->subscript.value, &v))
		return false;
	ast_node *idx = n->subscript.index;
	if (v.kind == SV_ARGS) {
		sv k;
		if (!sema_expr(s, idx, &k))
			return false;
		for (int i = 0; k.kind == SV_STR && i < s->nargs_vals; i++)
			if (strlen(s->args_names[i]) == k.slen && !memcmp(s->args_names[i], k.s, k.slen)) {
				const ast_func *af = s->args_fn;
				if (s->args_vals[i].kind == SV_UNDEF && af && i < af->nparams && af->params[i].is_constexpr)
					return sema_error(s, idx->loc, TILEC_ERR_SEMANTIC,
							  "this heuristic reads constexpr `%s`, which has no value: give it in the "
							  "signature or with -D %s=VALUE%s", s->args_names[i], s->args_names[i],
							  af->autotune ? ", or pick an autotune config with --config N" : "");
				if (s->args_vals[i].kind == SV_UNDEF)
					return sema_error(s, idx->loc, TILEC_ERR_UNSUPPORTED,
							  "this heuristic reads runtime argument `%s`, unknown at compile time; give the "
							  "parameter it computes with -D instead", s->args_names[i]);
				*out = s->args_vals[i];
				return true;
			}
		return sema_error(s, idx->loc, TILEC_ERR_SEMANTIC, "the kernel has no parameter %s", sema_sv_str(s, k));
	}
	if (v.kind == SV_TUPLE) {
		sv i;
		if (!sema_expr(s, idx, &i))
			return false;
		if (i.kind != SV_INT && i.kind != SV_BOOL)
			return sema_error(s, idx->loc, TILEC_ERR_SEMANTIC, "tuple index must be a constexpr int, got %s",
					  sema_sv_str(s, i));
		int64_t k = i.i < 0 ? i.i + v.n : i.i;
		if (k < 0 || k >= v.n)
			return sema_error(s, idx->loc, TILEC_ERR_SEMANTIC, "tuple index %lld out of range (%d items)",
					  (long long)i.i, v.n);
		*out = v.items[k];
		return true;
	}
	if (v.kind != SV_TENSOR)
		return sema_error(s, n->loc, TILEC_ERR_SEMANTIC, "%s cannot be indexed", sema_sv_str(s, v));
	int nidx = idx->kind == AST_TUPLE ? idx->seq.items.n : 1;
	ast_node **items = idx->kind == AST_TUPLE ? idx->seq.items.items : &idx;
	int id = v.id, dim = 0;
	for (int i = 0; i < nidx; i++) {
		ast_node *it = items[i];
		if (it->kind == AST_NONE) {
			if ((id = sema_expand_dims(s, it->loc, id, dim)) < 0)
				return false;
			dim++;
		} else if (it->kind == AST_SLICE && !it->slice.lo && !it->slice.hi && !it->slice.step) {
			dim++;
		} else {
			return sema_error(s, it->loc, TILEC_ERR_UNSUPPORTED,
					  "indexing a tensor is supported only with `None` and `:` (as in x[:, None])");
		}
	}
	if (dim > sema_type(s, id).rank)
		return sema_error(s, n->loc, TILEC_ERR_SEMANTIC, "too many indices for a tensor of rank %d", sema_type(s, v.id).rank);
	*out = sema_tensor(id);
	return true;
}

bool sema_expr(sema *s, ast_node *n, sv *out)
{
	memset(out, 0, sizeof *out);
	switch (n->kind) {
	case AST_NAME:
		return sema_lookup(s, n->loc, n->name.id, out);
	case AST_INT:
		if (n->lit.big || n->lit.ival > INT64_MAX)
			return sema_error(s, n->loc, TILEC_ERR_UNSUPPORTED, "integer literal does not fit in 64 bits");
		*out = sema_int((int64_t)n->lit.ival);
		return true;
	case AST_FLOAT:
		*out = sema_float(n->lit.fval);
		return true;
	case AST_STR:
		out->kind = SV_STR;
		out->s = n->lit.sval;
		out->slen = n->lit.slen;
		return true;
	case AST_NONE:
		out->kind = SV_NONE;
		return true;
	case AST_TRUE:
	case AST_FALSE:
		*out = sema_bool(n->kind == AST_TRUE);
		return true;
	case AST_ATTR: {
		sv v;
		return sema_expr(s, n->attr.value, &v) && sema_attr(s, n->loc, v, n->attr.name, out);
	}
	case AST_CALL: {
		sv fn;
		return sema_expr(s, n->call.func, &fn) && sema_call(s, n, fn, out);
	}
	case AST_SUBSCRIPT:
		return subscript(s, n, out);
	case AST_UNARY: {
		sv a;
		return sema_expr(s, n->unary.operand, &a) && sema_unop(s, n->loc, n->unary.op, a, out);
	}
	case AST_BINARY:
	case AST_COMPARE: {
		sv a, b;
		if (n->kind == AST_COMPARE && n->binary.chained)
			return sema_error(s, n->loc, TILEC_ERR_UNSUPPORTED, "chained comparisons are not supported");
		return sema_expr(s, n->binary.left, &a) && sema_expr(s, n->binary.right, &b) &&
		       sema_binop(s, n->loc, n->binary.op, a, b, out);
	}
	case AST_BOOLOP:
		return boolop(s, n, out);
	case AST_IFEXP:
		return ifexp(s, n, out);
	case AST_TUPLE:
	case AST_LIST:
		return seq(s, n, out);
	case AST_SLICE:
		out->kind = SV_SLICE;
		return true;
	default:
		if (s->host_fn)
			return sema_error(s, n->loc, TILEC_ERR_UNSUPPORTED,
					  "`%s` runs at compile time (a plain Python function), where tilec does not evaluate "
					  "`%s` expressions", s->host_fn->name, ast_kind_name(n->kind));
		return sema_error(s, n->loc, TILEC_ERR_UNSUPPORTED, "`%s` expressions are not supported in kernels",
				  ast_kind_name(n->kind));
	}
}
