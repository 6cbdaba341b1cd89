/* sema_call.c - calls: tl.* builtins, libdevice, tensor methods, Python builtins.
 *
 * Module attributes resolve to canonical builtin names ("tl.load",
 * "libdevice.tanh") through one table, so `tl.exp`, `triton.language.exp`,
 * `tl.math.exp` and `x.exp()` reach the same handler and a name missing
 * from the table is refused where it is written ("`tl.atomic_add` is not
 * supported yet"). Arguments are bound to Triton's parameter names, so
 * keywords and defaults work as in Triton. Each handler mirrors the
 * corresponding function of Triton's semantic.py/standard.py/math.py: the
 * dtype checks of the math functions, the dtype widening of reductions,
 * the conversions of load/store, the shape rules of dot. Functions Triton
 * writes in its own language (sigmoid, cdiv, zeros, softmax) are expanded
 * into the same operations it would produce.
 */
#include "front/sema.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAXARGS 64 /* arguments of one call (a kernel has at most 64 parameters) */

typedef struct call {
	sema *s;
	ast_node *node;
	const char *name;
	int sub;      /* the builtin's `sub` */
	const char *const *pnames;
	sv v[MAXARGS];
	bool given[MAXARGS];
	int nextra;   /* positional arguments past the named ones (varargs) */
	sv extra[MAXARGS];
} call;

typedef bool (*builtin_fn)(call *c, sv *out);

typedef struct builtin {
	const char *name;
	builtin_fn fn;
	int sub;               /* handler-specific */
	const char *params[8]; /* Triton's parameter names; "*" marks varargs after them */
} builtin;

static src_loc cloc(call *c)
{
	return c->node->loc;
}

static bool err(call *c, const char *fmt, ...) TILE_PRINTF(2, 3);

static bool err(call *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "%s", msg);
}

static sv mk_dtype(ir_type t)
{
	sv v = {0};
	v.kind = SV_DTYPE;
	v.t = ir_elem(t);
	return v;
}

static bool out_tensor(call *c, int id, sv *out)
{
	(void)c;
	if (id < 0)
		return false;
	*out = sema_tensor(id);
	return true;
}

/* (a, b) as a 2-tuple; false when out of memory */
static bool out_pair(call *c, sv a, sv b, sv *out)
{
	out->kind = SV_TUPLE;
	out->n = 2;
	out->items = arena_alloc(c->s->a, 2 * sizeof(sv));
	if (!out->items)
		return false;
	out->items[0] = a;
	out->items[1] = b;
	return true;
}

static ir_type ty(call *c, int id)
{
	return sema_type(c->s, id);
}

/* Argument i as a tensor (numbers converted as Triton's to_tensor does). */
static int arg_tensor(call *c, int i)
{
	return sema_to_tensor(c->s, cloc(c), c->v[i]);
}

static bool arg_int(call *c, int i, int64_t *out)
{
	if (c->v[i].kind != SV_INT && c->v[i].kind != SV_BOOL)
		return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "argument `%s` of `%s` must be a constexpr int, got %s",
				  c->pnames[i], c->name, sema_sv_str(c->s, c->v[i]));
	*out = c->v[i].i;
	return true;
}

static bool arg_bool(call *c, int i, bool *out)
{
	return sema_truth(c->s, cloc(c), c->v[i], out);
}

static bool is_none(call *c, int i)
{
	return !c->given[i] || c->v[i].kind == SV_NONE;
}

/* A shape: a tuple/list of constexpr ints, or one int. */
static bool get_shape(call *c, sv v, int *rank, int64_t *shape)
{
	int n = v.kind == SV_TUPLE ? v.n : 1;
	const sv *items = v.kind == SV_TUPLE ? v.items : &v;
	if (n > IR_MAX_RANK)
		return sema_error(c->s, cloc(c), TILEC_ERR_UNSUPPORTED, "blocks of more than %d dimensions are not supported",
				  IR_MAX_RANK);
	for (int i = 0; i < n; i++) {
		if (items[i].kind != SV_INT)
			return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "shape of `%s` must be constexpr ints, got %s",
					  c->name, sema_sv_str(c->s, items[i]));
		shape[i] = items[i].i;
	}
	*rank = n;
	return sema_check_shape(c->s, cloc(c), n, shape);
}

static ir_type shape_type(ir_type elem, int rank, const int64_t *shape)
{
	int32_t sh[IR_MAX_RANK] = {0};
	for (int i = 0; i < rank; i++)
		sh[i] = (int32_t)shape[i];
	return ir_block(elem, rank, sh);
}

static ir_type like(ir_type shape, ir_kind k)
{
	return ir_block(ir_scalar(k), shape.rank, shape.shape);
}

static bool need_dtype(call *c, int i, ir_type *out)
{
	*out = ir_scalar(IR_VOID);
	if (c->v[i].kind != SV_DTYPE)
		return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "`%s` needs a dtype (such as tl.float32), got %s", c->name,
				  sema_sv_str(c->s, c->v[i]));
	*out = c->v[i].t;
	return true;
}

static ir_op *emit1(call *c, ir_opcode code, int nargs, const int *args, ir_type rt)
{
	return sema_emit(c->s, cloc(c), code, nargs, args, rt);
}

/* ---------------------------------------------------------------- creation */

static bool b_program_id(call *c, sv *out)
{
	int64_t axis = 0;
	if (c->given[0] && !arg_int(c, 0, &axis))
		return false;
	if (axis < 0 || axis > 2)
		return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "`%s` axis must be 0, 1 or 2, got %lld", c->name, (long long)axis);
	ir_op *op = emit1(c, (ir_opcode)c->sub, 0, NULL, ir_scalar(IR_I32));
	if (!op)
		return false;
	op->axis = (int)axis;
	return out_tensor(c, op->results[0], out);
}

static bool b_arange(call *c, sv *out)
{
	int64_t lo = 0, hi = 0;
	if (!arg_int(c, 0, &lo) || !arg_int(c, 1, &hi))
		return false;
	if (lo < INT32_MIN || hi > INT32_MAX || lo > INT32_MAX || hi < INT32_MIN)
		return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "arange bounds must fit in int32");
	if (hi <= lo)
		return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "arange's end (%lld) must be greater than its start (%lld)",
				  (long long)hi, (long long)lo);
	int64_t n = hi - lo;
	if (n & (n - 1))
		return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "arange's range must be a power of two, got %lld", (long long)n);
	if (!sema_check_shape(c->s, cloc(c), 1, &n))
		return false;
	ir_op *op = emit1(c, IR_OP_ARANGE, 0, NULL, shape_type(ir_scalar(IR_I32), 1, &n));
	if (!op)
		return false;
	op->ival = lo;
	op->ival2 = hi;
	return out_tensor(c, op->results[0], out);
}

/* full(shape, value, dtype); zeros(shape, dtype) has sub 1 */
static bool b_full(call *c, sv *out)
{
	int rank;
	int64_t shape[IR_MAX_RANK];
	ir_type dt;
	int di = c->sub ? 1 : 2;
	if (!get_shape(c, c->v[0], &rank, shape) || !need_dtype(c, di, &dt))
		return false;
	ir_type rt = shape_type(dt, rank, shape);
	sv val = c->sub ? sema_int(0) : c->v[1];
	if (sema_is_num(val))
		return out_tensor(c, sema_number(c->s, cloc(c), val, rt), out);
	if (val.kind != SV_TENSOR || ty(c, val.id).rank)
		return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "the value of `%s` must be a number or a scalar, got %s",
				  c->name, sema_sv_str(c->s, val));
	int id = sema_cast(c->s, cloc(c), val.id, dt);
	return out_tensor(c, id < 0 ? -1 : sema_splat_to(c->s, cloc(c), id, rt), out);
}

static bool b_zeros_like(call *c, sv *out)
{
	if (c->v[0].kind != SV_TENSOR)
		return err(c, "`%s` needs a tensor", c->name);
	ir_type t = ty(c, c->v[0].id);
	return out_tensor(c, sema_const(c->s, cloc(c), t, 0, 0.0), out);
}

/* ---------------------------------------------------------------- memory */

static int mask_arg(call *c, int i)
{
	int m = arg_tensor(c, i);
	if (m >= 0 && ty(c, m).kind != IR_I1) {
		sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "the mask of `%s` must be boolean (i1), got %s", c->name,
			   sema_type_str(c->s, ty(c, m)));
		return -1;
	}
	return m;
}

static bool check_ptr(call *c, int ptr)
{
	if (ty(c, ptr).kind != IR_PTR)
		return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "`%s` needs a pointer or a block of pointers, got %s", c->name,
				  sema_type_str(c->s, ty(c, ptr)));
	return true;
}

/* pointers to i1 are accessed as i8, as Triton does */
static int bool_ptr(call *c, int ptr)
{
	if (ty(c, ptr).pointee != IR_I1)
		return ptr;
	return sema_bitcast(c->s, cloc(c), ptr, ir_ptr(IR_I8));
}

/* load(pointer, mask, other, boundary_check, padding_option, cache_modifier, eviction_policy, volatile) */
static bool b_load(call *c, sv *out)
{
	src_loc loc = cloc(c);
	if (c->v[0].kind == SV_BLOCKPTR)
		return sema_bptr_load(c->s, loc, c->v[0], !is_none(c, 1) || !is_none(c, 2), c->v[3], c->v[4], out);
	int ptr = arg_tensor(c, 0);
	if (ptr < 0 || !check_ptr(c, ptr))
		return false;
	if (c->given[3] && !(c->v[3].kind == SV_TUPLE && c->v[3].n == 0) && c->v[3].kind != SV_NONE)
		return sema_error(c->s, loc, TILEC_ERR_SEMANTIC,
				  "`boundary_check` argument is not supported for loading a tensor of pointers or a scalar: "
				  "the compiler does not know the boundary; use block pointers (tl.make_block_ptr) instead");
	if (c->given[4] && !(c->v[4].kind == SV_STR && c->v[4].slen == 0) && c->v[4].kind != SV_NONE)
		return sema_error(c->s, loc, TILEC_ERR_SEMANTIC,
				  "`padding_option` is only supported for block pointers (tl.make_block_ptr); use `other`");
	bool has_mask = !is_none(c, 1), has_other = !is_none(c, 2);
	if (has_other && !has_mask)
		return sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "`other` cannot be given without `mask`");
	bool is_bool = ty(c, ptr).pointee == IR_I1;
	ir_type elem = ir_scalar(is_bool ? IR_I8 : (ir_kind)ty(c, ptr).pointee);
	int mask = -1, other = -1;
	if (has_mask) {
		if ((mask = mask_arg(c, 1)) < 0)
			return false;
		if (!ty(c, ptr).rank && ty(c, mask).rank)
			return sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "the mask cannot be a block when the pointer is a scalar");
		if (!sema_broadcast(c->s, loc, &ptr, &mask))
			return false;
	}
	if (has_other) {
		sv o = c->v[2];
		if (sema_is_num(o)) {
			other = sema_number(c->s, loc, o, like(ty(c, ptr), (ir_kind)elem.kind));
		} else {
			other = arg_tensor(c, 2);
			if (other >= 0 && !ty(c, ptr).rank && ty(c, other).rank)
				return sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "`other` cannot be a block when the pointer is a scalar");
			if (other >= 0)
				other = sema_cast(c->s, loc, other, elem);
		}
		if (other < 0 || !sema_broadcast(c->s, loc, &ptr, &other) ||
		    (has_mask && (mask = sema_splat_to(c->s, loc, mask, ty(c, ptr))) < 0))
			return false;
	}
	bool vol = false;
	if (c->given[7] && !arg_bool(c, 7, &vol))
		return false;
	if ((ptr = bool_ptr(c, ptr)) < 0)
		return false;
	int args[3] = {ptr, mask, other};
	ir_op *op = emit1(c, IR_OP_LOAD, 1 + has_mask + has_other, args, like(ty(c, ptr), (ir_kind)elem.kind));
	if (!op)
		return false;
	op->flags = (has_mask ? IR_FLAG_HAS_MASK : 0) | (has_other ? IR_FLAG_HAS_OTHER : 0) | (vol ? IR_FLAG_VOLATILE : 0);
	int r = op->results[0];
	if (is_bool)
		r = sema_cast(c->s, loc, r, ir_scalar(IR_I1));
	return out_tensor(c, r, out);
}

/* store(pointer, value, mask, boundary_check, cache_modifier, eviction_policy) */
static bool b_store(call *c, sv *out)
{
	src_loc loc = cloc(c);
	if (c->v[0].kind == SV_BLOCKPTR)
		return sema_bptr_store(c->s, loc, c->v[0], c->v[1], !is_none(c, 2), c->v[3], out);
	int ptr = arg_tensor(c, 0);
	if (ptr < 0 || !check_ptr(c, ptr))
		return false;
	if (c->given[3] && !(c->v[3].kind == SV_TUPLE && c->v[3].n == 0) && c->v[3].kind != SV_NONE)
		return sema_error(c->s, loc, TILEC_ERR_SEMANTIC,
				  "`boundary_check` argument is not supported for storing a tensor of pointers or a scalar: "
				  "the compiler does not know the boundary; use block pointers (tl.make_block_ptr) instead");
	int val = arg_tensor(c, 1);
	if (val < 0)
		return false;
	ir_type pt = ty(c, ptr);
	if (!pt.rank && ty(c, val).rank)
		return sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "the value cannot be a block when the pointer is a scalar (%s)",
				  sema_type_str(c->s, ty(c, val)));
	if ((val = sema_splat_to(c->s, loc, val, pt)) < 0)
		return false;
	bool has_mask = !is_none(c, 2);
	int mask = -1;
	if (has_mask) {
		if ((mask = mask_arg(c, 2)) < 0)
			return false;
		if (!pt.rank && ty(c, mask).rank)
			return sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "the mask cannot be a block when the pointer is a scalar");
		if ((mask = sema_splat_to(c->s, loc, mask, pt)) < 0)
			return false;
	}
	if ((ptr = bool_ptr(c, ptr)) < 0 || (val = sema_cast(c->s, loc, val, ir_scalar((ir_kind)ty(c, ptr).pointee))) < 0)
		return false;
	int args[3] = {ptr, val, mask};
	ir_op *op = emit1(c, IR_OP_STORE, 2 + has_mask, args, ir_scalar(IR_VOID));
	if (!op)
		return false;
	op->flags = has_mask ? IR_FLAG_HAS_MASK : 0;
	out->kind = SV_NONE;
	return true;
}

/* ---------------------------------------------------------------- elementwise */

/* Whether values x and y are equal wherever they are read: one value, or
 * constants of one type and bits. */
static bool same_value(const sema *s, int x, int y)
{
	if (x == y)
		return true;
	const ir_op *a = s->f->values[x].def, *b = s->f->values[y].def;
	return a && b && a->code == IR_OP_CONST && b->code == IR_OP_CONST &&
	       ir_type_eq(s->f->values[x].type, s->f->values[y].type) && a->ival == b->ival &&
	       !memcmp(&a->fval, &b->fval, sizeof a->fval);
}

static bool b_where(call *c, sv *out)
{
	src_loc loc = cloc(c);
	int cond = arg_tensor(c, 0), x, y;
	if (cond < 0 || (cond = sema_cast(c->s, loc, cond, ir_scalar(IR_I1))) < 0)
		return false;
	if (!sema_typecheck(c->s, loc, "where", c->v[1], c->v[2], true, true, true, false, &x, &y) ||
	    !sema_broadcast(c->s, loc, &cond, &x) || !sema_broadcast(c->s, loc, &x, &y) ||
	    (cond = sema_splat_to(c->s, loc, cond, ty(c, x))) < 0)
		return false;
	/* Both sides the same value: so is the result. Choosing between equal
	 * strides (xformers' `tl.where(c, stride_ak1, tl.where(..))` over
	 * strides specialized to 1) keeps what axis info proves of them. */
	if (same_value(c->s, x, y))
		return out_tensor(c, x, out);
	int args[3] = {cond, x, y};
	ir_op *op = emit1(c, IR_OP_SELECT, 3, args, ty(c, x));
	return op && out_tensor(c, op->results[0], out);
}

static bool b_minmax(call *c, sv *out)
{
	int x, y;
	if (!sema_typecheck(c->s, cloc(c), c->name, c->v[0], c->v[1], false, false, true, false, &x, &y))
		return false;
	ir_type t = ty(c, x);
	if (t.kind == IR_PTR)
		return err(c, "`%s` does not take pointers", c->name);
	int64_t nan = 0;
	if (!is_none(c, 2) && !arg_int(c, 2, &nan))
		return false;
	int args[2] = {x, y};
	ir_op *op = emit1(c, (ir_opcode)c->sub, 2, args, t);
	if (!op)
		return false;
	if (nan && ir_kind_is_float((ir_kind)t.kind))
		op->flags |= IR_FLAG_PROPAGATE_NAN;
	return out_tensor(c, op->results[0], out);
}

/* clamp(x, min, max, propagate_nan): floats only, min(max(x, lo), hi) */
static bool b_clamp(call *c, sv *out)
{
	src_loc loc = cloc(c);
	int x, lo, hi;
	if (!sema_typecheck(c->s, loc, c->name, c->v[1], c->v[2], false, false, true, false, &lo, &hi) ||
	    !sema_typecheck(c->s, loc, c->name, c->v[0], sema_tensor(lo), false, false, true, false, &x, &lo) ||
	    !sema_typecheck(c->s, loc, c->name, sema_tensor(x), sema_tensor(hi), false, false, true, false, &x, &hi) ||
	    !sema_broadcast(c->s, loc, &lo, &hi))
		return false;
	if (!ir_kind_is_float((ir_kind)ty(c, x).kind))
		return err(c, "`%s` supports floating-point values only, got %s", c->name, sema_type_str(c->s, ty(c, x)));
	int64_t nan = 0;
	if (!is_none(c, 3) && !arg_int(c, 3, &nan))
		return false;
	int a1[2] = {x, lo};
	ir_op *mx = emit1(c, IR_OP_MAX, 2, a1, ty(c, x));
	int a2[2] = {mx ? mx->results[0] : -1, hi};
	ir_op *mn = mx ? emit1(c, IR_OP_MIN, 2, a2, ty(c, x)) : NULL;
	if (!mn)
		return false;
	mx->flags = mn->flags = nan ? IR_FLAG_PROPAGATE_NAN : 0;
	return out_tensor(c, mn->results[0], out);
}

/* swizzle2d(i, j, size_i, size_j, size_g), as standard.py writes it */
static bool b_swizzle2d(call *c, sv *out)
{
	src_loc loc = cloc(c);
	sema *s = c->s;
	sv ij, t, size_gj, group, off_i, rem, size_g, ij2, r, new_i, new_j;
	if (!sema_binop(s, loc, AST_OP_MUL, c->v[0], c->v[3], &t) || !sema_binop(s, loc, AST_OP_ADD, t, c->v[1], &ij) ||
	    !sema_binop(s, loc, AST_OP_MUL, c->v[4], c->v[3], &size_gj) ||
	    !sema_binop(s, loc, AST_OP_FLOORDIV, ij, size_gj, &group) ||
	    !sema_binop(s, loc, AST_OP_MUL, group, c->v[4], &off_i) || !sema_binop(s, loc, AST_OP_SUB, c->v[2], off_i, &rem))
		return false;
	call m = *c;
	m.name = "tl.minimum";
	m.v[0] = rem;
	m.v[1] = c->v[4];
	m.v[2].kind = SV_NONE;
	m.sub = IR_OP_MIN;
	if (!b_minmax(&m, &size_g) || !sema_binop(s, loc, AST_OP_MOD, ij, size_gj, &ij2) ||
	    !sema_binop(s, loc, AST_OP_MOD, ij2, size_g, &r) || !sema_binop(s, loc, AST_OP_ADD, off_i, r, &new_i) ||
	    !sema_binop(s, loc, AST_OP_FLOORDIV, ij2, size_g, &new_j))
		return false;
	return out_pair(c, new_i, new_j, out);
}

static bool float_only(call *c, int id, bool f64)
{
	ir_kind k = (ir_kind)ty(c, id).kind;
	if (k == IR_F32 || (f64 && k == IR_F64))
		return true;
	return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "`%s` expects %s, got %s (cast with .to(tl.float32))", c->name,
			  f64 ? "fp32 or fp64" : "fp32", ir_kind_name(k));
}

static int math1(call *c, int x, ir_math m)
{
	if (m != IR_MATH_ABS && !float_only(c, x, m != IR_MATH_SQRT_RN))
		return -1;
	ir_op *op = emit1(c, IR_OP_MATH, 1, &x, ty(c, x));
	if (!op)
		return -1;
	op->sub = m;
	return op->results[0];
}

static bool b_math(call *c, sv *out)
{
	int x = arg_tensor(c, 0);
	if (x < 0)
		return false;
	ir_type t = ty(c, x);
	if (c->sub == IR_MATH_ABS && (t.kind == IR_PTR || (ir_kind_is_int((ir_kind)t.kind) && !ir_kind_is_signed((ir_kind)t.kind))))
		return t.kind == IR_PTR ? err(c, "`%s` does not take pointers", c->name) : out_tensor(c, x, out);
	return out_tensor(c, math1(c, x, (ir_math)c->sub), out);
}

/* 1 / (1 + exp(-x)), as Triton's standard.py writes it */
static bool b_sigmoid(call *c, sv *out)
{
	src_loc loc = cloc(c);
	sv one = sema_int(1), neg, den;
	int x = arg_tensor(c, 0);
	if (x < 0 || !sema_unop(c->s, loc, AST_OP_NEG, sema_tensor(x), &neg))
		return false;
	int e = math1(c, neg.id, IR_MATH_EXP);
	return e >= 0 && sema_binop(c->s, loc, AST_OP_ADD, one, sema_tensor(e), &den) &&
	       sema_binop(c->s, loc, AST_OP_DIV, one, den, out);
}

static bool b_fma(call *c, sv *out)
{
	src_loc loc = cloc(c);
	int x, y, z, t;
	if (!sema_typecheck(c->s, loc, "fma", c->v[0], c->v[1], false, false, true, false, &x, &y) ||
	    !sema_typecheck(c->s, loc, "fma", c->v[2], sema_tensor(x), false, false, true, false, &z, &x) ||
	    !sema_typecheck(c->s, loc, "fma", sema_tensor(z), sema_tensor(y), false, false, true, false, &z, &y) ||
	    !sema_broadcast(c->s, loc, &x, &y) || !sema_broadcast(c->s, loc, &x, &z) || !sema_broadcast(c->s, loc, &y, &z))
		return false;
	t = x;
	if (!ir_kind_is_float((ir_kind)ty(c, t).kind))
		return err(c, "`%s` needs floating-point operands, got %s", c->name, sema_type_str(c->s, ty(c, t)));
	if (!ir_type_eq(ty(c, x), ty(c, y)) || !ir_type_eq(ty(c, x), ty(c, z)))
		return err(c, "`%s` operands have different types", c->name);
	int args[3] = {x, y, z};
	ir_op *op = emit1(c, IR_OP_FMA, 3, args, ty(c, x));
	return op && out_tensor(c, op->results[0], out);
}

/* fdiv(x, y, ieee_rounding) sub 0; div_rn(x, y) sub 1 */
static bool b_fdiv(call *c, sv *out)
{
	int x = arg_tensor(c, 0), y = x >= 0 ? arg_tensor(c, 1) : -1;
	if (y < 0)
		return false;
	if (!ir_kind_is_float((ir_kind)ty(c, x).kind) || !ir_kind_is_float((ir_kind)ty(c, y).kind))
		return err(c, "both operands of `%s` must be floating-point", c->name);
	if (c->sub && (!float_only(c, x, false) || !float_only(c, y, false)))
		return false;
	if (!sema_broadcast(c->s, cloc(c), &x, &y))
		return false;
	if (!ir_type_eq(ty(c, x), ty(c, y)))
		return err(c, "operands of `%s` have different types: %s", c->name,
			   arena_printf(c->s->a, "%s and %s", sema_type_str(c->s, ty(c, x)), sema_type_str(c->s, ty(c, y))));
	int args[2] = {x, y};
	ir_op *op = emit1(c, IR_OP_DIV, 2, args, ty(c, x));
	if (!op)
		return false;
	if (c->sub)
		op->flags |= IR_FLAG_PRECISE;
	return out_tensor(c, op->results[0], out);
}

/* (x + div - 1) // div, folded when both are constexprs */
static bool b_cdiv(call *c, sv *out)
{
	src_loc loc = cloc(c);
	sv t, u;
	return sema_binop(c->s, loc, AST_OP_ADD, c->v[0], c->v[1], &t) && sema_binop(c->s, loc, AST_OP_SUB, t, sema_int(1), &u) &&
	       sema_binop(c->s, loc, AST_OP_FLOORDIV, u, c->v[1], out);
}

/* cast(input, dtype, fp_downcast_rounding, bitcast); also x.to(dtype, ...) */
static bool b_cast(call *c, sv *out)
{
	ir_type dt;
	bool bit = false;
	int x = arg_tensor(c, 0);
	if (x < 0 || !need_dtype(c, 1, &dt) || (c->given[3] && !arg_bool(c, 3, &bit)))
		return false;
	if (!is_none(c, 2)) {
		sv r = c->v[2];
		if (!(r.kind == SV_STR && r.slen == 4 && !memcmp(r.s, "rtne", 4)))
			return sema_error(c->s, cloc(c), TILEC_ERR_UNSUPPORTED, "fp_downcast_rounding other than \"rtne\" is not supported yet");
	}
	return out_tensor(c, bit ? sema_bitcast(c->s, cloc(c), x, dt) : sema_cast(c->s, cloc(c), x, dt), out);
}

/* ---------------------------------------------------------------- shapes */

static int reshape(call *c, int x, int rank, const int64_t *shape)
{
	ir_type t = ty(c, x), rt = shape_type(t, rank, shape);
	if (ir_numel(t) != ir_numel(rt)) {
		sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "`%s` cannot change the number of elements (%lld to %lld)", c->name,
			   (long long)ir_numel(t), (long long)ir_numel(rt));
		return -1;
	}
	if (ir_same_shape(t, rt))
		return x;
	if (t.rank == 0)
		return sema_splat_to(c->s, cloc(c), x, rt);
	ir_op *op = sema_emit(c->s, cloc(c), IR_OP_RESHAPE, 1, &x, rt);
	return op ? op->results[0] : -1;
}

/* shape given as one tuple argument or as varargs */
static sv shape_args(call *c, int i)
{
	if (c->nextra == 0)
		return c->v[i];
	sv t = {0};
	t.kind = SV_TUPLE;
	t.n = c->nextra + 1;
	t.items = arena_alloc(c->s->a, sizeof(sv) * (size_t)t.n);
	if (t.items) {
		t.items[0] = c->v[i];
		memcpy(t.items + 1, c->extra, sizeof(sv) * (size_t)c->nextra);
	}
	return t;
}

static bool b_reshape(call *c, sv *out)
{
	int rank;
	int64_t shape[IR_MAX_RANK];
	int x = arg_tensor(c, 0);
	if (x < 0 || !c->given[1] || !get_shape(c, shape_args(c, 1), &rank, shape))
		return x < 0 || c->given[1] ? false : err(c, "`%s` needs a shape", c->name);
	/* Triton forbids 0-d blocks: its reshape to () fails in block_type */
	if (rank == 0 && ty(c, x).rank > 0)
		return err(c, "`%s` to the empty shape () is not supported: Triton has no 0-d tensors (reduce the "
			      "1-element tensor with tl.sum or tl.max to get a scalar)", c->name);
	return out_tensor(c, reshape(c, x, rank, shape), out);
}

static bool b_ravel(call *c, sv *out)
{
	int x = arg_tensor(c, 0);
	int64_t n = x >= 0 ? ir_numel(ty(c, x)) : 0;
	return x >= 0 && out_tensor(c, reshape(c, x, 1, &n), out);
}

static int permute(call *c, int x, int n, const int64_t *order)
{
	ir_type t = ty(c, x);
	bool seen[IR_MAX_RANK] = {false};
	if (n != t.rank) {
		sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "`%s` got %d dims for a block of rank %d", c->name, n, t.rank);
		return -1;
	}
	ir_type rt = t;
	for (int i = 0; i < n; i++) {
		if (order[i] < 0 || order[i] >= n || seen[order[i]]) {
			sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "the dims of `%s` must be a permutation of 0..%d", c->name, n - 1);
			return -1;
		}
		seen[order[i]] = true;
		rt.shape[i] = t.shape[order[i]];
	}
	ir_op *op = sema_emit(c->s, cloc(c), IR_OP_PERMUTE, 1, &x, rt);
	if (!op)
		return -1;
	for (int i = 0; i < n; i++)
		op->ints[i] = (int32_t)order[i];
	return op->results[0];
}

/* permute(input, *dims); trans(input, *dims) defaults to (1, 0) */
static bool b_permute(call *c, sv *out)
{
	int x = arg_tensor(c, 0);
	if (x < 0)
		return false;
	int64_t order[IR_MAX_RANK] = {1, 0};
	int n = 2;
	if (c->given[1]) {
		sv d = shape_args(c, 1);
		n = d.kind == SV_TUPLE ? d.n : 1;
		const sv *items = d.kind == SV_TUPLE ? d.items : &d;
		if (n > IR_MAX_RANK)
			return err(c, "too many dims for `%s`", c->name);
		for (int i = 0; i < n; i++) {
			if (items[i].kind != SV_INT)
				return err(c, "the dims of `%s` must be constexpr ints", c->name);
			order[i] = items[i].i;
		}
	} else if (!c->sub) {
		return err(c, "`%s` needs dims", c->name);
	}
	return out_tensor(c, permute(c, x, n, order), out);
}

/* join(a, b): broadcast to one shape, a new last dim of 2; two scalars
 * give a <2> block, as Triton's semantic.join */
static int join(call *c, int x, int y)
{
	if (!sema_broadcast(c->s, cloc(c), &x, &y))
		return -1;
	ir_type a = ty(c, x), b = ty(c, y);
	if (!ir_type_eq(ir_elem(a), ir_elem(b))) {
		err(c, "`%s` needs two tensors of one dtype, got %s and %s", c->name, sema_type_str(c->s, ir_elem(a)),
		    sema_type_str(c->s, ir_elem(b)));
		return -1;
	}
	bool scalars = a.rank == 0;
	if (scalars && ((x = sema_expand_dims(c->s, cloc(c), x, 0)) < 0 || (y = sema_expand_dims(c->s, cloc(c), y, 0)) < 0))
		return -1;
	ir_type rt = ty(c, x);
	if (rt.rank >= IR_MAX_RANK) {
		err(c, "`%s` would make a block of more than %d dimensions", c->name, IR_MAX_RANK);
		return -1;
	}
	rt.shape[rt.rank++] = 2;
	int ids[2] = {x, y};
	ir_op *op = sema_emit(c->s, cloc(c), IR_OP_JOIN, 2, ids, rt);
	if (!op)
		return -1;
	int64_t two = 2;
	return scalars ? reshape(c, op->results[0], 1, &two) : op->results[0];
}

static bool b_join(call *c, sv *out)
{
	int x = arg_tensor(c, 0), y = x >= 0 ? arg_tensor(c, 1) : -1;
	return y >= 0 && out_tensor(c, join(c, x, y), out);
}

/* interleave(a, b): join, then the last two dims merged */
static bool b_interleave(call *c, sv *out)
{
	int x = arg_tensor(c, 0), y = x >= 0 ? arg_tensor(c, 1) : -1;
	int j = y >= 0 ? join(c, x, y) : -1;
	if (j < 0)
		return false;
	ir_type t = ty(c, j);
	if (t.rank == 1)
		return out_tensor(c, j, out);
	int64_t shape[IR_MAX_RANK];
	for (int i = 0; i + 2 < t.rank; i++)
		shape[i] = t.shape[i];
	shape[t.rank - 2] = 2 * (int64_t)t.shape[t.rank - 2];
	return out_tensor(c, reshape(c, j, t.rank - 1, shape), out);
}

/* split(a): a last dim of 2 into two tensors without it */
static bool b_split(call *c, sv *out)
{
	int x = arg_tensor(c, 0);
	if (x < 0)
		return false;
	ir_type t = ty(c, x);
	if (t.rank == 0 || t.shape[t.rank - 1] != 2)
		return err(c, "`%s` needs a block whose last dimension is 2, got %s", c->name, sema_type_str(c->s, t));
	ir_type rt[2] = {t, t};
	rt[0].rank = rt[1].rank = (uint8_t)(t.rank - 1);
	ir_op *op = sema_emit_n(c->s, cloc(c), IR_OP_SPLIT, 1, &x, 2, rt);
	if (!op)
		return false;
	return out_pair(c, sema_tensor(op->results[0]), sema_tensor(op->results[1]), out) ||
	       sema_error(c->s, cloc(c), TILEC_ERR_NOMEM, "out of memory");
}

/* cat(input, other, can_reorder): Triton's only cat may reorder, and takes
 * 1-D blocks; here the result is input's elements, then other's */
static bool b_cat(call *c, sv *out)
{
	bool reorder = false;
	int x = arg_tensor(c, 0), y = x >= 0 ? arg_tensor(c, 1) : -1;
	if (y < 0 || (c->given[2] && !arg_bool(c, 2, &reorder)))
		return false;
	if (!reorder)
		return err(c, "`%s` needs can_reorder=True: Triton's cat may reorder the elements and refuses "
			      "can_reorder=False", c->name);
	ir_type a = ty(c, x), b = ty(c, y);
	if (a.rank != 1 || b.rank != 1)
		return err(c, "`%s` takes 1-D blocks, got %s and %s", c->name, sema_type_str(c->s, a), sema_type_str(c->s, b));
	if (!ir_type_eq(ir_elem(a), ir_elem(b)))
		return err(c, "`%s` needs two tensors of one dtype, got %s and %s", c->name, sema_type_str(c->s, ir_elem(a)),
			   sema_type_str(c->s, ir_elem(b)));
	int64_t n = (int64_t)a.shape[0] + b.shape[0];
	if (!sema_check_shape(c->s, cloc(c), 1, &n))
		return false;
	int ids[2] = {x, y};
	ir_op *op = sema_emit(c->s, cloc(c), IR_OP_CAT, 2, ids, shape_type(a, 1, &n));
	return op && out_tensor(c, op->results[0], out);
}

/* flip(x, dim): reversed along dim. Triton 3.6 declares dim=None but its
 * static_assert compares None, so it refuses a call without dim: so do we. */
static bool b_flip(call *c, sv *out)
{
	int x = arg_tensor(c, 0);
	if (x < 0)
		return false;
	ir_type t = ty(c, x);
	if (t.rank == 0)
		return err(c, "`%s` needs a block, got a scalar", c->name);
	int64_t d = 0;
	if (is_none(c, 1))
		return err(c, "`%s` needs `dim`: Triton 3.6 refuses a flip without it (its default None fails its own check)",
			   c->name);
	if (!arg_int(c, 1, &d))
		return false;
	if (d < -(int64_t)t.rank || d >= t.rank)
		return err(c, "dim %lld is out of range for a block of rank %d", (long long)d, t.rank);
	if (d < 0)
		d += t.rank;
	if (t.shape[d] == 1)
		return out_tensor(c, x, out);
	ir_op *op = sema_emit(c->s, cloc(c), IR_OP_FLIP, 1, &x, t);
	if (!op)
		return false;
	op->axis = (int)d;
	op->ival = t.shape[d] - 1;
	return out_tensor(c, op->results[0], out);
}

/* inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack): the
 * arguments broadcast to one shape (no promotion), one result per dtype */
static bool b_inline_asm(call *c, sv *out)
{
	sv a = c->v[0], k = c->v[1], args = c->v[2], dt = c->v[3];
	if (a.kind != SV_STR || k.kind != SV_STR)
		return err(c, "`%s` takes the assembly and the constraints as string literals", c->name);
	int64_t pack;
	bool pure;
	if (!arg_bool(c, 4, &pure) || !arg_int(c, 5, &pack))
		return false;
	if (pack < 1 || pack > 16)
		return err(c, "`%s`: pack must be 1 to 16, got %lld", c->name, (long long)pack);
	int n = args.kind == SV_TUPLE ? args.n : 1, nd = dt.kind == SV_TUPLE ? dt.n : 1;
	const sv *items = args.kind == SV_TUPLE ? args.items : &args, *dts = dt.kind == SV_TUPLE ? dt.items : &dt;
	if (n > 16 || nd > 8 || nd < 1)
		return err(c, "`%s` takes up to 16 arguments and 1 to 8 dtypes", c->name);
	int ids[16], shaped = -1;
	for (int i = 0; i < n; i++) {
		if ((ids[i] = sema_to_tensor(c->s, cloc(c), items[i])) < 0)
			return false;
		if (ty(c, ids[i]).rank && shaped < 0)
			shaped = i;
	}
	for (int i = 0; shaped >= 0 && i < n; i++)
		if (i != shaped && !sema_broadcast(c->s, cloc(c), &ids[shaped], &ids[i]))
			return false;
	for (int i = 0; shaped >= 0 && i < n; i++)
		if ((ids[i] = sema_splat_to(c->s, cloc(c), ids[i], ty(c, ids[shaped]))) < 0)
			return false;
	ir_type shape = shaped >= 0 ? ty(c, ids[shaped]) : ir_scalar(IR_I32);
	ir_type rt[8];
	for (int i = 0; i < nd; i++) {
		if (dts[i].kind != SV_DTYPE || dts[i].t.kind == IR_PTR)
			return err(c, "the dtype of `%s` must be a (non-pointer) dtype or a tuple of them, got %s", c->name,
				   sema_sv_str(c->s, dts[i]));
		rt[i] = like(shape, (ir_kind)dts[i].t.kind);
	}
	ir_op *op = sema_emit_n(c->s, cloc(c), IR_OP_INLINE_ASM, n, ids, nd, rt);
	if (!op)
		return false;
	op->name = arena_printf(c->s->a, "%.*s", (int)a.slen, a.s);
	op->text = arena_printf(c->s->a, "%.*s", (int)k.slen, k.s);
	op->ival = pack;
	op->flags = pure ? 0 : IR_FLAG_VOLATILE;
	if (!op->name || !op->text)
		return sema_error(c->s, cloc(c), TILEC_ERR_NOMEM, "out of memory");
	if (dt.kind != SV_TUPLE) {
		*out = sema_tensor(op->results[0]);
		return true;
	}
	out->kind = SV_TUPLE;
	out->n = nd;
	if (!(out->items = arena_alloc(c->s->a, sizeof(sv) * (size_t)nd)))
		return sema_error(c->s, cloc(c), TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < nd; i++)
		out->items[i] = sema_tensor(op->results[i]);
	return true;
}

/* triton.language.extra.cuda: globaltimer() and smid() read special
 * registers through inline assembly as Triton's cuda/utils.py does;
 * num_threads() and num_warps() are constexprs of the specialization. */
static bool b_cuda(call *c, sv *out)
{
	if (c->sub >= 2) {
		int warps = c->s->f ? c->s->f->num_warps : 4;
		*out = sema_int(c->sub == 2 ? 32 * warps : warps);
		return true;
	}
	ir_type rt = ir_scalar(c->sub ? IR_I32 : IR_I64);
	ir_op *op = sema_emit_n(c->s, cloc(c), IR_OP_INLINE_ASM, 0, NULL, 1, &rt);
	if (!op)
		return false;
	op->name = c->sub ? "mov.u32 $0, %smid;" : "mov.u64 $0, %globaltimer;";
	op->text = c->sub ? "=r" : "=l";
	op->ival = 1;
	op->flags = IR_FLAG_VOLATILE;
	*out = sema_tensor(op->results[0]);
	return true;
}

/* triton.language.extra.cuda: gdc_wait() and gdc_launch_dependents(),
 * programmatic dependent launch's grid dependency control (Triton's
 * tutorial 11); statements, their value None. */
static bool b_grid_dep(call *c, sv *out)
{
	ir_op *op = sema_emit(c->s, cloc(c), IR_OP_GRID_DEP, 0, NULL, ir_scalar(IR_VOID));
	if (!op)
		return false;
	op->sub = c->sub;
	memset(out, 0, sizeof *out);
	out->kind = SV_NONE;
	return true;
}

/* sort(x, dim=None, descending=False); topk(x, k, dim=None) */
static bool b_sort(call *c, sv *out)
{
	int x = arg_tensor(c, 0);
	if (x < 0)
		return false;
	if (c->sub)
		return sema_topk(c->s, cloc(c), sema_tensor(x), c->v[1], c->v[2], out);
	bool desc = false;
	if (c->given[2] && !arg_bool(c, 2, &desc))
		return false;
	return sema_sort(c->s, cloc(c), sema_tensor(x), c->v[1], desc, out);
}

/* gather(src, index, axis): src's elements picked along axis by index */
static bool b_gather(call *c, sv *out)
{
	int src = arg_tensor(c, 0), idx = src >= 0 ? arg_tensor(c, 1) : -1;
	int64_t axis;
	if (idx < 0 || !arg_int(c, 2, &axis))
		return false;
	ir_type st = ty(c, src), it = ty(c, idx);
	if (st.rank == 0)
		return err(c, "src must be a tensor, got a scalar");
	if (!ir_kind_is_int((ir_kind)it.kind))
		return err(c, "index must be an integer tensor, got %s", sema_type_str(c->s, it));
	if (it.rank != st.rank)
		return err(c, "source and index tensors must have the same rank, got %s and %s", sema_type_str(c->s, st),
			   sema_type_str(c->s, it));
	if (axis < -(int64_t)st.rank || axis >= st.rank)
		return err(c, "gather axis %lld must be < source rank (%d)", (long long)axis, st.rank);
	if (axis < 0)
		axis += st.rank;
	for (int d = 0; d < st.rank; d++)
		if (d != axis && it.shape[d] != st.shape[d])
			return err(c, "index dim %d must match the corresponding source dim (%s and %s)", d, sema_type_str(c->s, it),
				   sema_type_str(c->s, st));
	int ids[2] = {src, idx};
	ir_type rt = it;
	rt.kind = st.kind;
	rt.pointee = st.pointee;
	ir_op *op = sema_emit(c->s, cloc(c), IR_OP_GATHER, 2, ids, rt);
	if (!op)
		return false;
	op->axis = (int)axis;
	return out_tensor(c, op->results[0], out);
}

/* histogram(input, num_bins, mask=None): int32 counts of 0 .. num_bins-1 */
static bool b_histogram(call *c, sv *out)
{
	int x = arg_tensor(c, 0);
	int64_t bins;
	if (x < 0 || !arg_int(c, 1, &bins))
		return false;
	ir_type t = ty(c, x);
	if (t.rank != 1)
		return err(c, "histogram only supports 1D input, got %s", sema_type_str(c->s, t));
	if (!ir_kind_is_int((ir_kind)t.kind))
		return err(c, "histogram only supports integer input, got %s", sema_type_str(c->s, t));
	if (!sema_check_shape(c->s, cloc(c), 1, &bins))
		return false;
	int args[2] = {x, -1}, n = 1;
	if (!is_none(c, 2)) {
		int m = arg_tensor(c, 2);
		if (m < 0 || (m = sema_splat_to(c->s, cloc(c), m, t)) < 0)
			return false;
		if (ty(c, m).kind != IR_I1)
			return err(c, "Mask must have boolean scalar type, got %s", sema_type_str(c->s, ty(c, m)));
		args[n++] = m;
	}
	ir_op *op = sema_emit(c->s, cloc(c), IR_OP_HISTOGRAM, n, args, shape_type(ir_scalar(IR_I32), 1, &bins));
	if (!op)
		return false;
	op->ival = bins;
	op->flags = n > 1 ? IR_FLAG_HAS_MASK : 0;
	return out_tensor(c, op->results[0], out);
}

static bool b_expand_dims(call *c, sv *out)
{
	int x = arg_tensor(c, 0);
	if (x < 0)
		return false;
	sv a = c->v[1];
	int n = a.kind == SV_TUPLE ? a.n : 1;
	const sv *items = a.kind == SV_TUPLE ? a.items : &a;
	int rank = ty(c, x).rank + n;
	int64_t axes[IR_MAX_RANK];
	if (rank > IR_MAX_RANK)
		return err(c, "`%s` would make a block of more than 4 dimensions", c->name);
	for (int i = 0; i < n; i++) {
		if (items[i].kind != SV_INT)
			return err(c, "the axis of `%s` must be a constexpr int", c->name);
		axes[i] = items[i].i < 0 ? items[i].i + rank : items[i].i;
		if (axes[i] < 0 || axes[i] >= rank)
			return err(c, "axis out of range in `%s`", c->name);
	}
	for (int i = 0; i < n; i++) /* ascending */
		for (int j = i + 1; j < n; j++)
			if (axes[j] < axes[i]) {
				int64_t t = axes[i];
				axes[i] = axes[j];
				axes[j] = t;
			}
	for (int i = 0; i < n && x >= 0; i++)
		x = sema_expand_dims(c->s, cloc(c), x, (int)axes[i]);
	return out_tensor(c, x, out);
}

static bool b_broadcast_to(call *c, sv *out)
{
	int rank;
	int64_t shape[IR_MAX_RANK];
	int x = arg_tensor(c, 0);
	if (x < 0 || !get_shape(c, shape_args(c, 1), &rank, shape))
		return false;
	return out_tensor(c, sema_splat_to(c->s, cloc(c), x, shape_type(ty(c, x), rank, shape)), out);
}

static bool b_broadcast(call *c, sv *out)
{
	int x = arg_tensor(c, 0), y = x >= 0 ? arg_tensor(c, 1) : -1;
	if (y < 0 || !sema_broadcast(c->s, cloc(c), &x, &y))
		return false;
	return out_pair(c, sema_tensor(x), sema_tensor(y), out);
}

/* ---------------------------------------------------------------- reductions */

/* A reduction's result r, with keep_dims its axis (every axis, for a
 * reduction of the whole block of rank orig_rank) put back as size 1. */
static int kept(call *c, int r, sv axis_v, int axis, int orig_rank, bool keep)
{
	if (!keep)
		return r;
	if (axis_v.kind == SV_INT)
		return sema_expand_dims(c->s, cloc(c), r, axis);
	int64_t ones[IR_MAX_RANK] = {1, 1, 1, 1};
	return sema_splat_to(c->s, cloc(c), r, shape_type(ty(c, r), orig_rank, ones));
}

/* The reduction of x along axis_v (None: the whole block); with value, an
 * index reduction also yields, in *value, the value at the index. */
static int reduce_with(call *c, int x, ir_reduce kind, sv axis_v, bool keep, int *value)
{
	src_loc loc = cloc(c);
	ir_type t = ty(c, x);
	int orig_rank = t.rank, axis = 0;
	if (t.rank == 0) {
		sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "`%s` needs a block, got a scalar", c->name);
		return -1;
	}
	if (ir_kind_is_fp8((ir_kind)t.kind)) {
		sema_error(c->s, loc, TILEC_ERR_UNSUPPORTED, "`%s` of %s is not supported: convert fp8 to fp32 first",
			   c->name, ir_kind_name((ir_kind)t.kind));
		return -1;
	}
	if (axis_v.kind == SV_NONE || axis_v.kind == SV_UNDEF) {
		int64_t n = ir_numel(t);
		if (t.rank > 1 && (x = reshape(c, x, 1, &n)) < 0)
			return -1;
		t = ty(c, x);
	} else {
		if (axis_v.kind != SV_INT) {
			sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "the axis of `%s` must be a constexpr int or None", c->name);
			return -1;
		}
		int64_t a = axis_v.i < 0 ? axis_v.i + t.rank : axis_v.i;
		if (a < 0 || a >= t.rank) {
			sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "axis %lld is out of range for a block of rank %d", (long long)axis_v.i, t.rank);
			return -1;
		}
		axis = (int)a;
	}
	ir_type rt = t;
	for (int i = axis; i + 1 < t.rank; i++)
		rt.shape[i] = t.shape[i + 1];
	rt.rank = (uint8_t)(t.rank - 1);
	ir_type rts[2] = {rt, rt};
	if (kind == IR_REDUCE_ARGMAX || kind == IR_REDUCE_ARGMIN)
		rts[0] = like(rt, IR_I32);
	ir_op *op = sema_emit_n(c->s, loc, IR_OP_REDUCE, 1, &x, value ? 2 : 1, rts);
	if (!op)
		return -1;
	op->sub = kind;
	op->axis = axis;
	if (value && (*value = kept(c, op->results[1], axis_v, axis, orig_rank, keep)) < 0)
		return -1;
	return kept(c, op->results[0], axis_v, axis, orig_rank, keep);
}

static int reduce(call *c, int x, ir_reduce kind, sv axis_v, bool keep)
{
	return reduce_with(c, x, kind, axis_v, keep, NULL);
}

static bool keep_dims(call *c, int i, bool *keep)
{
	*keep = false;
	return !c->given[i] || arg_bool(c, i, keep);
}

/* sum(input, axis, keep_dims, dtype) */
static bool b_sum(call *c, sv *out)
{
	bool keep;
	int x = arg_tensor(c, 0);
	if (x < 0 || !keep_dims(c, 2, &keep))
		return false;
	ir_kind k = (ir_kind)ty(c, x).kind;
	ir_type dt = ir_scalar(k);
	if (!is_none(c, 3)) {
		if (!need_dtype(c, 3, &dt))
			return false;
	} else if (ir_kind_is_int(k) && ir_kind_bits(k) < 32) {
		dt = ir_scalar(ir_kind_is_signed(k) ? IR_I32 : IR_U32);
	}
	if (k == IR_PTR)
		return err(c, "`%s` does not take pointers", c->name);
	if ((x = sema_cast(c->s, cloc(c), x, dt)) < 0)
		return false;
	return out_tensor(c, reduce(c, x, IR_REDUCE_SUM, c->v[1], keep), out);
}

/* max/min(input, axis, return_indices, return_indices_tie_break_left, keep_dims) */
static bool b_max(call *c, sv *out)
{
	bool keep, indices = false;
	int x = arg_tensor(c, 0);
	if (x < 0 || !keep_dims(c, 4, &keep) || (c->given[2] && !arg_bool(c, 2, &indices)))
		return false;
	ir_kind k = (ir_kind)ty(c, x).kind;
	if (k == IR_PTR)
		return err(c, "`%s` does not take pointers", c->name);
	if (k == IR_BF16)
		k = IR_F32;
	if (!indices && ir_kind_bits(k) < 32)
		k = ir_kind_is_float(k) ? IR_F32 : IR_I32;
	if ((x = sema_cast(c->s, cloc(c), x, ir_scalar(k))) < 0)
		return false;
	if (!indices)
		return out_tensor(c, reduce(c, x, (ir_reduce)c->sub, c->v[1], keep), out);
	/* one index reduction yields both, as Triton's combine of (value,
	 * index) pairs does: the value is the one at the index */
	int v = -1, i = reduce_with(c, x, c->sub == IR_REDUCE_MAX ? IR_REDUCE_ARGMAX : IR_REDUCE_ARGMIN, c->v[1], keep, &v);
	if (i < 0)
		return false;
	return out_pair(c, sema_tensor(v), sema_tensor(i), out);
}

/* argmax/argmin(input, axis, tie_break_left, keep_dims) */
static bool b_argmax(call *c, sv *out)
{
	bool keep;
	int x = arg_tensor(c, 0);
	if (x < 0 || !keep_dims(c, 3, &keep))
		return false;
	if (ty(c, x).kind == IR_BF16 && (x = sema_cast(c->s, cloc(c), x, ir_scalar(IR_F32))) < 0)
		return false;
	return out_tensor(c, reduce(c, x, (ir_reduce)c->sub, c->v[1], keep), out);
}

static bool b_xor_sum(call *c, sv *out)
{
	bool keep;
	int x = arg_tensor(c, 0);
	if (x < 0 || !keep_dims(c, 2, &keep))
		return false;
	if (!ir_kind_is_int((ir_kind)ty(c, x).kind))
		return err(c, "`%s` only supports integers, got %s", c->name, sema_type_str(c->s, ty(c, x)));
	return out_tensor(c, reduce(c, x, IR_REDUCE_XOR_SUM, c->v[1], keep), out);
}

/* ---------------------------------------------------------------- scans */

/* A scan's constexpr axis (argument ia; `def` when None or absent) and reverse flag. */
static bool scan_args(call *c, int ia, int ir, bool need_axis, int *axis, bool *rev)
{
	int64_t a = 0;
	*rev = false;
	if (is_none(c, ia)) {
		if (need_axis)
			return err(c, "`%s` needs an axis", c->name);
	} else if (!arg_int(c, ia, &a)) {
		return false;
	}
	if (c->given[ir] && !arg_bool(c, ir, rev))
		return false;
	*axis = a < -64 || a > 64 ? 64 : (int)a; /* out of range either way */
	return true;
}

/* associative_scan(input, axis, combine_fn, reverse) */
static bool b_associative_scan(call *c, sv *out)
{
	int axis;
	bool rev;
	if (!scan_args(c, 1, 3, true, &axis, &rev))
		return false;
	sv in = c->v[0];
	if (sema_is_num(in)) {
		int id = arg_tensor(c, 0);
		if (id < 0)
			return false;
		in = sema_tensor(id);
	}
	return sema_associative_scan(c->s, cloc(c), in, axis, c->v[2], rev, out);
}

/* reduce(input, axis, combine_fn, keep_dims): a tensor or a tuple of
 * tensors of one shape; axis None reduces the flattened inputs */
static bool b_reduce(call *c, sv *out)
{
	bool keep;
	if (!keep_dims(c, 3, &keep))
		return false;
	sv in = c->v[0];
	bool tuple = in.kind == SV_TUPLE;
	int k = tuple ? in.n : 1;
	if (k < 1)
		return err(c, "tl.reduce of an empty tuple");
	int *ids = arena_alloc(c->s->a, sizeof(int) * (size_t)k);
	if (!ids)
		return sema_error(c->s, cloc(c), TILEC_ERR_NOMEM, "out of memory");
	for (int i = 0; i < k; i++) {
		sv v = tuple ? in.items[i] : in;
		if (v.kind != SV_TENSOR && !sema_is_num(v))
			return err(c, "tl.reduce takes tensors, got %s", sema_sv_str(c->s, v));
		if ((ids[i] = sema_to_tensor(c->s, cloc(c), v)) < 0)
			return false;
	}
	int rank = ty(c, ids[0]).rank, axis = 0;
	bool all = is_none(c, 1);
	if (all) {
		/* reshape(x, [numel], can_reorder=True), as Triton's reduction */
		for (int i = 0; i < k; i++) {
			ir_type t = ty(c, ids[i]);
			int64_t n = ir_numel(t);
			if (t.rank > 1 && (ids[i] = reshape(c, ids[i], 1, &n)) < 0)
				return false;
		}
	} else {
		int64_t a;
		if (!arg_int(c, 1, &a))
			return false;
		axis = a < -64 || a > 64 ? 64 : (int)a; /* out of range either way */
	}
	if (!sema_reduce(c->s, cloc(c), k, ids, axis, c->v[2], tuple, out))
		return false;
	if (axis < 0)
		axis += rank; /* in range: sema_reduce checked it */
	if (!keep)
		return true;
	int64_t ones[IR_MAX_RANK] = {1, 1, 1, 1};
	for (int i = 0; i < k; i++) {
		sv *r = out->kind == SV_TUPLE ? &out->items[i] : out;
		int id = all ? sema_splat_to(c->s, cloc(c), r->id, shape_type(ty(c, r->id), rank, ones))
			     : sema_expand_dims(c->s, cloc(c), r->id, axis);
		if (id < 0)
			return false;
		*r = sema_tensor(id);
	}
	return true;
}

/* cumsum(input, axis, reverse, dtype), cumprod(input, axis, reverse) */
static bool b_cumulative(call *c, sv *out)
{
	int axis;
	bool rev;
	int x = arg_tensor(c, 0);
	if (x < 0 || !scan_args(c, 1, 2, false, &axis, &rev))
		return false;
	ir_type dt;
	bool has_dt = !c->sub && !is_none(c, 3);
	if (has_dt && !need_dtype(c, 3, &dt))
		return false;
	return sema_cumulative(c->s, cloc(c), x, axis, rev, c->sub, has_dt ? &dt : NULL, out);
}

/* softmax(x, dim, keep_dims, ieee_rounding), as standard.py writes it */
static bool b_softmax(call *c, sv *out)
{
	bool keep;
	int x = arg_tensor(c, 0);
	if (x < 0 || !keep_dims(c, 2, &keep))
		return false;
	sv dim = is_none(c, 1) ? sema_int(0) : c->v[1];
	call m = *c;
	m.name = "max";
	ir_kind k = (ir_kind)ty(c, x).kind;
	/* tl.max widens sub-32-bit floats; x - max then follows the promotion */
	int xm = ir_kind_is_float(k) && ir_kind_bits(k) < 32 ? sema_cast(c->s, cloc(c), x, ir_scalar(IR_F32)) : x;
	int mx = xm < 0 ? -1 : reduce(&m, xm, IR_REDUCE_MAX, dim, keep);
	sv z;
	if (mx < 0 || !sema_binop(c->s, cloc(c), AST_OP_SUB, sema_tensor(x), sema_tensor(mx), &z))
		return false;
	int num = math1(c, z.id, IR_MATH_EXP);
	int den = num >= 0 ? reduce(&m, num, IR_REDUCE_SUM, dim, keep) : -1;
	if (den < 0 || !sema_broadcast(c->s, cloc(c), &num, &den))
		return false;
	int args[2] = {num, den};
	ir_op *op = emit1(c, IR_OP_DIV, 2, args, ty(c, num));
	return op && out_tensor(c, op->results[0], out);
}

/* ---------------------------------------------------------------- dot, hints */

static bool str_is(sv v, const char *s)
{
	return v.kind == SV_STR && v.slen == strlen(s) && !memcmp(v.s, s, v.slen);
}

/* dot(input, other, acc, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype) */
static bool b_dot(call *c, sv *out)
{
	src_loc loc = cloc(c);
	int a = arg_tensor(c, 0), b = a >= 0 ? arg_tensor(c, 1) : -1;
	if (b < 0)
		return false;
	ir_type ta = ty(c, a), tb = ty(c, b);
	if ((ta.rank != 2 && ta.rank != 3) || tb.rank != ta.rank)
		return sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "`%s` needs two 2-D or two 3-D blocks, got %s and %s", c->name,
				  sema_type_str(c->s, ta), sema_type_str(c->s, tb));
	int r = ta.rank; /* 3-D: a batch of independent products along dim 0 */
	if (r == 3 && ta.shape[0] != tb.shape[0])
		return sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "`%s`: the batch dimensions differ (%s and %s)", c->name,
				  sema_type_str(c->s, ta), sema_type_str(c->s, tb));
	ir_kind k = (ir_kind)ta.kind;
	bool fp8 = ir_kind_is_fp8(k) && ir_kind_is_fp8((ir_kind)tb.kind); /* Triton mixes the two fp8 kinds */
	if (k != IR_I8 && k != IR_U8 && k != IR_F16 && k != IR_BF16 && k != IR_F32 && k != IR_F64 && !ir_kind_is_fp8(k))
		return err(c, "unsupported operand dtype %s for `%s`", ir_kind_name(k), c->name);
	if (tb.kind != ta.kind && !fp8)
		return sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "both operands of `%s` must have the same dtype, got %s and %s",
				  c->name, ir_kind_name(k), ir_kind_name((ir_kind)tb.kind));
	int32_t M = ta.shape[r - 2], K = ta.shape[r - 1], N = tb.shape[r - 1];
	if (K != tb.shape[r - 2])
		return sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "`%s`: inner dimensions differ (%s and %s)", c->name,
				  sema_type_str(c->s, ta), sema_type_str(c->s, tb));
	if (M < 16 || N < 16 || K < 16)
		return sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "`%s` needs M, N and K of at least 16, got %dx%dx%d", c->name,
				  (int)M, (int)N, (int)K);
	if (ir_kind_bits(k) == 8 && K < 32) /* Triton's minimum dot size for 8-bit operands */
		return sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "`%s` with 8-bit operands needs K of at least 32, got %dx%dx%d",
				  c->name, (int)M, (int)N, (int)K);
	int prec = IR_PRECISION_TF32;
	if (!is_none(c, 3)) {
		sv p = c->v[3];
		if (str_is(p, "tf32"))
			prec = IR_PRECISION_TF32;
		else if (str_is(p, "tf32x3"))
			prec = IR_PRECISION_TF32X3;
		else if (str_is(p, "ieee"))
			prec = IR_PRECISION_IEEE;
		else
			return err(c, "input_precision of `%s` must be \"tf32\", \"tf32x3\" or \"ieee\", got %s", c->name,
				   sema_sv_str(c->s, p));
	} else if (!is_none(c, 4)) {
		bool tf32;
		if (!arg_bool(c, 4, &tf32))
			return false;
		prec = tf32 ? IR_PRECISION_TF32 : IR_PRECISION_IEEE;
	}
	ir_type od = ir_scalar(IR_F32);
	if (!is_none(c, 6) && !need_dtype(c, 6, &od))
		return false;
	ir_kind rk;
	if (fp8 && od.kind != IR_F32)
		return err(c, "`%s` of fp8 operands accumulates in float32 here; out_dtype=%s is not supported yet", c->name,
			   ir_kind_name((ir_kind)od.kind));
	if (k == IR_I8 || k == IR_U8)
		rk = IR_I32;
	else if (od.kind == IR_BF16)
		return err(c, "out_dtype=bfloat16 is not supported by `%s`; use float32 and cast", c->name);
	else if (k == IR_F32 || k == IR_BF16 || fp8)
		rk = IR_F32;
	else if (k == IR_F64)
		rk = IR_F64;
	else
		rk = od.kind == IR_F16 ? IR_F16 : IR_F32;
	int32_t sh[3] = {ta.shape[0], r == 3 ? M : N, N};
	ir_type rt = ir_block(ir_scalar(rk), r, sh);
	int acc;
	if (is_none(c, 2)) {
		acc = sema_const(c->s, loc, rt, 0, 0.0);
	} else {
		acc = arg_tensor(c, 2);
		if (acc >= 0 && !ir_type_eq(ty(c, acc), rt))
			return sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "the accumulator of `%s` must be %s, got %s", c->name,
					  sema_type_str(c->s, rt), sema_type_str(c->s, ty(c, acc)));
	}
	if (acc < 0)
		return false;
	int args[3] = {a, b, acc};
	ir_op *op = emit1(c, IR_OP_DOT, 3, args, rt);
	if (!op)
		return false;
	op->sub = prec;
	return out_tensor(c, op->results[0], out);
}

static bool b_hint(call *c, sv *out)
{
	int x = arg_tensor(c, 0);
	if (x < 0)
		return false;
	ir_type t = ty(c, x);
	sv v = c->v[1];
	int n = v.kind == SV_TUPLE ? v.n : 1;
	const sv *items = v.kind == SV_TUPLE ? v.items : &v;
	int want = c->sub == IR_HINT_MULTIPLE_OF && t.rank == 0 ? 1 : t.rank;
	if (n != want)
		return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "`%s` needs %d value%s for %s, got %d", c->name, want,
				  want == 1 ? "" : "s", sema_type_str(c->s, t), n);
	ir_op *op = emit1(c, IR_OP_HINT, 1, &x, t);
	if (!op)
		return false;
	op->sub = c->sub;
	for (int i = 0; i < n; i++) {
		if (items[i].kind != SV_INT || items[i].i <= 0 || items[i].i > INT32_MAX)
			return err(c, "the values of `%s` must be positive constexpr ints", c->name);
		op->ints[i] = (int32_t)items[i].i;
	}
	return out_tensor(c, op->results[0], out);
}

static bool b_assume(call *c, sv *out)
{
	out->kind = SV_NONE;
	if (c->v[0].kind != SV_TENSOR) {
		bool t;
		if (!arg_bool(c, 0, &t))
			return false;
		return t ? true : err(c, "`%s` of a false constant", c->name);
	}
	int x = c->v[0].id;
	if (ty(c, x).kind != IR_I1 || ty(c, x).rank)
		return err(c, "`%s` needs a boolean scalar, got %s", c->name, sema_type_str(c->s, ty(c, x)));
	return emit1(c, IR_OP_ASSUME, 1, &x, ir_scalar(IR_VOID)) != NULL;
}

/* ---------------------------------------------------------------- compile-time */

static bool b_constexpr(call *c, sv *out)
{
	if (c->v[0].kind == SV_TENSOR)
		return err(c, "`%s` of a runtime value", c->name);
	*out = c->v[0];
	return true;
}

static bool b_static_assert(call *c, sv *out)
{
	bool t;
	out->kind = SV_NONE;
	if (!arg_bool(c, 0, &t))
		return false;
	if (t)
		return true;
	sv m = c->v[1];
	return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "static_assert failed%s%.*s", m.kind == SV_STR ? ": " : "",
			  m.kind == SV_STR ? (int)m.slen : 0, m.kind == SV_STR ? m.s : "");
}

/* device_assert(cond, msg, mask): where mask is false the element passes */
static bool b_device_assert(call *c, sv *out)
{
	out->kind = SV_NONE;
	sv cond = c->v[0];
	if (!is_none(c, 2)) {
		sv nm;
		sv ne;
		if (!sema_binop(c->s, cloc(c), AST_OP_EQ, c->v[2], sema_int(0), &nm) ||
		    !sema_binop(c->s, cloc(c), AST_OP_NE, cond, sema_int(0), &ne) ||
		    !sema_binop(c->s, cloc(c), AST_OP_BITOR, ne, nm, &cond))
			return false;
	}
	return sema_device_assert(c->s, cloc(c), cond, c->v[1]);
}

/* device_print(prefix, *args, hex=False); Python's print(*args) */
static bool b_device_print(call *c, sv *out)
{
	out->kind = SV_NONE;
	bool hex = false;
	if (c->sub) { /* print: the first argument is the prefix */
		if (c->nextra == 0)
			return err(c, "print in a kernel needs a string prefix first, as tl.device_print");
		return sema_device_print(c->s, cloc(c), c->extra[0], c->nextra - 1, c->extra + 1, false);
	}
	if (c->given[2] && !arg_bool(c, 2, &hex))
		return false;
	return sema_device_print(c->s, cloc(c), c->v[0], c->nextra, c->extra, hex);
}

static bool b_static_print(call *c, sv *out)
{
	out->kind = SV_NONE;
	return sema_static_print(c->s, cloc(c), c->nextra, c->extra, c->v[1]);
}

static bool b_pointer_type(call *c, sv *out)
{
	ir_type dt = {0};
	if (!need_dtype(c, 0, &dt))
		return false;
	if (dt.kind == IR_PTR)
		return err(c, "pointers to pointers are not supported");
	*out = mk_dtype(ir_ptr((ir_kind)dt.kind));
	return true;
}

static bool b_loop_only(call *c, sv *out)
{
	(void)out;
	return err(c, "`%s` can only be the iterable of a `for` loop", c->name);
}

/* Python's min/max over constexpr numbers */
static bool b_py_minmax(call *c, sv *out)
{
	int n = 1 + c->nextra;
	const sv *items = c->v;
	sv all[MAXARGS + 1];
	if (n == 1 && c->v[0].kind == SV_TUPLE) {
		n = c->v[0].n;
		items = c->v[0].items;
	} else {
		all[0] = c->v[0];
		memcpy(all + 1, c->extra, sizeof(sv) * (size_t)c->nextra);
		items = all;
	}
	if (n == 0)
		return err(c, "`%s` of an empty sequence", c->name);
	sv best = items[0];
	for (int i = 0; i < n; i++) {
		if (items[i].kind == SV_TENSOR && n == 2) {
			/* Triton binds the builtins min/max to tl.minimum/tl.maximum */
			call m = *c;
			m.v[0] = items[0];
			m.v[1] = items[1];
			m.v[2].kind = SV_NONE;
			m.sub = c->sub ? IR_OP_MAX : IR_OP_MIN;
			return b_minmax(&m, out);
		}
		if (!sema_is_num(items[i]))
			return sema_error(c->s, cloc(c), TILEC_ERR_SEMANTIC, "`%s` takes numbers, or two tensors, got %s", c->name,
					  sema_sv_str(c->s, items[i]));
		sv lt;
		if (i && !sema_binop(c->s, cloc(c), c->sub ? AST_OP_GT : AST_OP_LT, items[i], best, &lt))
			return false;
		if (i && lt.i)
			best = items[i];
	}
	*out = best;
	return true;
}

static bool b_py_conv(call *c, sv *out)
{
	sv v = c->v[0];
	if (!c->given[0]) {
		*out = c->sub == 1 ? sema_float(0) : sema_int(0);
		if (c->sub == 2)
			*out = sema_bool(false);
		return true;
	}
	if (c->sub == 1 && v.kind == SV_STR) { /* float('inf') */
		char buf[16];
		size_t n = v.slen < 15 ? v.slen : 15;
		for (size_t i = 0; i < n; i++)
			buf[i] = (char)(v.s[i] >= 'A' && v.s[i] <= 'Z' ? v.s[i] + 32 : v.s[i]);
		buf[n] = 0;
		const char *p = buf + (buf[0] == '-' || buf[0] == '+');
		double f = !strcmp(p, "inf") || !strcmp(p, "infinity") ? INFINITY : !strcmp(p, "nan") ? NAN : 0;
		if (f == 0)
			return err(c, "`float` of %s is not supported", sema_sv_str(c->s, v));
		*out = sema_float(buf[0] == '-' ? -f : f);
		return true;
	}
	if (c->sub == 2) {
		bool t;
		if (!sema_truth(c->s, cloc(c), v, &t))
			return false;
		*out = sema_bool(t);
		return true;
	}
	if (!sema_is_num(v))
		return err(c, "`%s` of %s is not supported", c->name, sema_sv_str(c->s, v));
	if (c->sub == 1) {
		*out = sema_float(v.kind == SV_FLOAT ? v.f : (double)v.i);
		return true;
	}
	if (v.kind == SV_FLOAT && (isnan(v.f) || isinf(v.f) || fabs(v.f) >= 9.2e18))
		return err(c, "`int` of %s is not representable", sema_sv_str(c->s, v));
	*out = sema_int(v.kind == SV_FLOAT ? (int64_t)v.f : v.i);
	return true;
}

static bool b_next_pow2(call *c, sv *out)
{
	int64_t n;
	if (!arg_int(c, 0, &n))
		return false;
	if (n > ((int64_t)1 << 62))
		return err(c, "`%s` of %s overflows", c->name, sema_sv_str(c->s, c->v[0]));
	int64_t p = 1;
	while (p < n)
		p <<= 1;
	*out = sema_int(p);
	return true;
}

/* math.sqrt, math.log2, ... of a constexpr number */
static bool b_py_math(call *c, sv *out)
{
	sv v = c->v[0];
	if (!sema_is_num(v))
		return err(c, "`%s` takes a constexpr number, got %s", c->name, sema_sv_str(c->s, v));
	double x = v.kind == SV_FLOAT ? v.f : (double)v.i, r;
	switch (c->sub) {
	case 0: r = sqrt(x); break;
	case 1: r = log(x); break;
	case 2: r = log2(x); break;
	case 3: r = exp(x); break;
	case 4: r = exp2(x); break;
	default: /* floor, ceil: ints */
		r = c->sub == 5 ? floor(x) : ceil(x);
		if (!(fabs(r) < 9.2e18))
			return err(c, "`%s` of %s is not representable", c->name, sema_sv_str(c->s, v));
		*out = sema_int((int64_t)r);
		return true;
	}
	*out = sema_float(r);
	return true;
}

static bool b_py_len(call *c, sv *out)
{
	if (c->v[0].kind == SV_TUPLE) {
		*out = sema_int(c->v[0].n);
		return true;
	}
	if (c->v[0].kind == SV_STR) {
		*out = sema_int((int64_t)c->v[0].slen);
		return true;
	}
	return err(c, "`len` of %s is not supported", sema_sv_str(c->s, c->v[0]));
}

static bool b_py_abs(call *c, sv *out)
{
	sv v = c->v[0];
	if (v.kind == SV_TENSOR)
		return b_math(c, out);
	if (!sema_is_num(v))
		return err(c, "`abs` of %s is not supported", sema_sv_str(c->s, v));
	if (v.kind == SV_FLOAT)
		*out = sema_float(fabs(v.f));
	else
		*out = sema_int(v.i < 0 ? -v.i : v.i);
	return true;
}

/* ---------------------------------------------------------------- libdevice */

/* Variants "ARGS:SYMBOL:RET" with f fp32, d fp64, i i32, l i64; a NULL
 * list means the usual pair "f:__nv_NAMEf:f", "d:__nv_NAME:d" for the arity. */
typedef struct libdevice_fn {
	const char *name;
	int nargs;
	const char *variants[4];
} libdevice_fn;

static const libdevice_fn libdevice[] = {
	{"acos", 1, {0}}, {"acosh", 1, {0}}, {"asin", 1, {0}}, {"asinh", 1, {0}}, {"atan", 1, {0}},
	{"atanh", 1, {0}}, {"cbrt", 1, {0}}, {"ceil", 1, {0}}, {"cos", 1, {0}}, {"cosh", 1, {0}},
	{"cospi", 1, {0}}, {"erf", 1, {0}}, {"erfc", 1, {0}}, {"erfcinv", 1, {0}}, {"erfcx", 1, {0}},
	{"erfinv", 1, {0}}, {"exp", 1, {0}}, {"exp10", 1, {0}}, {"exp2", 1, {0}}, {"expm1", 1, {0}},
	{"floor", 1, {0}}, {"j0", 1, {0}}, {"j1", 1, {0}}, {"lgamma", 1, {0}}, {"log", 1, {0}},
	{"log10", 1, {0}}, {"log1p", 1, {0}}, {"log2", 1, {0}}, {"logb", 1, {0}}, {"nearbyint", 1, {0}},
	{"normcdf", 1, {0}}, {"normcdfinv", 1, {0}}, {"rcbrt", 1, {0}}, {"rint", 1, {0}}, {"round", 1, {0}},
	{"rsqrt", 1, {0}}, {"sin", 1, {0}}, {"sinh", 1, {0}}, {"sinpi", 1, {0}}, {"sqrt", 1, {0}},
	{"tan", 1, {0}}, {"tanh", 1, {0}}, {"tgamma", 1, {0}}, {"trunc", 1, {0}}, {"y0", 1, {0}}, {"y1", 1, {0}},
	{"atan2", 2, {0}}, {"copysign", 2, {0}}, {"fdim", 2, {0}}, {"fmax", 2, {0}}, {"fmin", 2, {0}},
	{"fmod", 2, {0}}, {"hypot", 2, {0}}, {"nextafter", 2, {0}}, {"remainder", 2, {0}}, {"fma", 3, {0}},
	{"pow", 2, {"ff:__nv_powf:f", "dd:__nv_pow:d", "fi:__nv_powif:f", "di:__nv_powi:d"}},
	{"ldexp", 2, {"fi:__nv_ldexpf:f", "di:__nv_ldexp:d"}},
	{"scalbn", 2, {"fi:__nv_scalbnf:f", "di:__nv_scalbn:d"}},
	{"abs", 1, {"i:__nv_abs:i", "l:__nv_llabs:l", "f:__nv_fabsf:f", "d:__nv_fabs:d"}},
	{"isnan", 1, {"f:__nv_isnanf:i", "d:__nv_isnand:i"}},
	{"isinf", 1, {"f:__nv_isinff:i", "d:__nv_isinfd:i"}},
	{"isfinited", 1, {"f:__nv_finitef:i", "d:__nv_isfinited:i"}},
	{"signbit", 1, {"f:__nv_signbitf:i", "d:__nv_signbitd:i"}},
	{"ilogb", 1, {"f:__nv_ilogbf:i", "d:__nv_ilogb:i"}},
	{"saturatef", 1, {"f:__nv_saturatef:f"}},
	{"div_rn", 2, {"ff:__nv_fdiv_rn:f", "dd:__nv_ddiv_rn:d"}},
	{"div_rz", 2, {"ff:__nv_fdiv_rz:f", "dd:__nv_ddiv_rz:d"}},
	{"div_rd", 2, {"ff:__nv_fdiv_rd:f", "dd:__nv_ddiv_rd:d"}},
	{"div_ru", 2, {"ff:__nv_fdiv_ru:f", "dd:__nv_ddiv_ru:d"}},
	{"mul_rn", 2, {"ff:__nv_fmul_rn:f", "dd:__nv_dmul_rn:d"}},
	{"mul_rz", 2, {"ff:__nv_fmul_rz:f", "dd:__nv_dmul_rz:d"}},
	{"add_rn", 2, {"ff:__nv_fadd_rn:f", "dd:__nv_dadd_rn:d"}},
	{"add_rz", 2, {"ff:__nv_fadd_rz:f", "dd:__nv_dadd_rz:d"}},
	{"sub_rn", 2, {"ff:__nv_fsub_rn:f", "dd:__nv_dsub_rn:d"}},
	{"sub_rz", 2, {"ff:__nv_fsub_rz:f", "dd:__nv_dsub_rz:d"}},
	{"rcp_rn", 1, {"f:__nv_frcp_rn:f", "d:__nv_drcp_rn:d"}},
	{"sqrt_rn", 1, {"f:__nv_fsqrt_rn:f", "d:__nv_dsqrt_rn:d"}},
	{"fma_rn", 3, {"fff:__nv_fmaf_rn:f", "ddd:__nv_fma_rn:d"}},
	{"fast_expf", 1, {"f:__nv_fast_expf:f"}}, {"fast_exp10f", 1, {"f:__nv_fast_exp10f:f"}},
	{"fast_logf", 1, {"f:__nv_fast_logf:f"}}, {"fast_log2f", 1, {"f:__nv_fast_log2f:f"}},
	{"fast_log10f", 1, {"f:__nv_fast_log10f:f"}}, {"fast_sinf", 1, {"f:__nv_fast_sinf:f"}},
	{"fast_cosf", 1, {"f:__nv_fast_cosf:f"}}, {"fast_tanf", 1, {"f:__nv_fast_tanf:f"}},
	{"fast_powf", 2, {"ff:__nv_fast_powf:f"}}, {"fast_dividef", 2, {"ff:__nv_fast_fdividef:f"}},
};

static const libdevice_fn *libdevice_find(const char *name)
{
	for (size_t i = 0; i < sizeof libdevice / sizeof libdevice[0]; i++)
		if (!strcmp(libdevice[i].name, name))
			return &libdevice[i];
	return NULL;
}

bool sema_is_libdevice(const char *name)
{
	return libdevice_find(name) != NULL;
}

static char kind_code(ir_kind k)
{
	return k == IR_F32 ? 'f' : k == IR_F64 ? 'd' : k == IR_I32 ? 'i' : k == IR_I64 ? 'l' : '?';
}

static ir_kind code_kind(char c)
{
	return c == 'f' ? IR_F32 : c == 'd' ? IR_F64 : c == 'i' ? IR_I32 : IR_I64;
}

/* Finds the variant for the argument kinds; fills symbol and result kind. */
static bool libdevice_match(call *c, const libdevice_fn *fn, const int *args, const char **sym, ir_kind *rk)
{
	char key[8];
	for (int i = 0; i < fn->nargs; i++)
		key[i] = kind_code((ir_kind)ty(c, args[i]).kind);
	key[fn->nargs] = 0;
	if (!fn->variants[0]) {
		for (int i = 1; i < fn->nargs; i++)
			if (key[i] != key[0])
				return false;
		if (key[0] != 'f' && key[0] != 'd')
			return false;
		*sym = arena_printf(c->s->a, "__nv_%s%s", fn->name, key[0] == 'f' ? "f" : "");
		*rk = code_kind(key[0]);
		return *sym != NULL;
	}
	for (int v = 0; v < 4 && fn->variants[v]; v++) {
		const char *var = fn->variants[v], *colon = strchr(var, ':'), *last = strrchr(var, ':');
		if ((size_t)(colon - var) == (size_t)fn->nargs && !memcmp(var, key, (size_t)fn->nargs)) {
			*sym = arena_strndup(c->s->a, colon + 1, (size_t)(last - colon - 1));
			*rk = code_kind(last[1]);
			return *sym != NULL;
		}
	}
	return false;
}

/* extern_elementwise: the exact variant if the argument dtypes have one,
 * else the arguments promoted together first, as Triton does. */
static bool b_libdevice(call *c, sv *out)
{
	const libdevice_fn *fn = libdevice_find(c->name + strlen("libdevice."));
	src_loc loc = cloc(c);
	int args[3];
	for (int i = 0; i < fn->nargs; i++)
		if ((args[i] = arg_tensor(c, i)) < 0)
			return false;
	const char *sym;
	ir_kind rk;
	bool exact = libdevice_match(c, fn, args, &sym, &rk);
	int b = args[0], dummy;
	for (int i = 0; i < fn->nargs; i++)
		if (!sema_typecheck(c->s, loc, c->name, sema_tensor(args[i]), sema_tensor(b), false, false, !exact, false, &dummy, &b))
			return false;
	for (int i = 0; i < fn->nargs; i++)
		if (!sema_typecheck(c->s, loc, c->name, sema_tensor(args[i]), sema_tensor(b), false, false, !exact, false, &args[i], &dummy))
			return false;
	if (!exact && !libdevice_match(c, fn, args, &sym, &rk)) {
		strbuf sb;
		sb_init(&sb);
		for (int i = 0; i < fn->nargs; i++)
			sb_printf(&sb, i ? ", %s" : "%s", ir_kind_name((ir_kind)ty(c, args[i]).kind));
		bool ok = sema_error(c->s, loc, TILEC_ERR_SEMANTIC, "`%s` has no variant for (%s); cast the arguments to fp32 or fp64",
				     c->name, sb_str(&sb));
		sb_free(&sb);
		return ok;
	}
	ir_op *op = emit1(c, IR_OP_EXTERN, fn->nargs, args, like(ty(c, args[0]), rk));
	if (!op)
		return false;
	op->name = sym;
	return out_tensor(c, op->results[0], out);
}

/* ---------------------------------------------------------------- the table */

/* ---------------------------------------------------------------- atomics, random (sema_atomic.c, sema_random.c) */

static bool b_atomic(call *c, sv *out)
{
	return sema_atomic(c->s, cloc(c), c->name, c->sub, c->v, out);
}

static bool b_debug_barrier(call *c, sv *out)
{
	return sema_debug_barrier(c->s, cloc(c), out);
}

static bool b_random(call *c, sv *out)
{
	return sema_random(c->s, cloc(c), c->name, c->sub, c->v, out);
}

static bool b_make_block_ptr(call *c, sv *out)
{
	return sema_bptr_make(c->s, cloc(c), c->v, out);
}

static bool b_advance(call *c, sv *out)
{
	return sema_bptr_advance(c->s, cloc(c), c->v[0], c->v[1], out);
}

static bool b_make_desc(call *c, sv *out)
{
	return sema_desc_make(c->s, cloc(c), c->v, out);
}

static bool b_desc_load(call *c, sv *out)
{
	return sema_desc_load(c->s, cloc(c), c->v[0], c->v[1], out);
}

static bool b_desc_store(call *c, sv *out)
{
	return sema_desc_store(c->s, cloc(c), c->v[0], c->v[1], c->v[2], out);
}

static const builtin builtins[] = {
	{"tl.program_id", b_program_id, IR_OP_PROGRAM_ID, {"axis"}},
	{"tl.num_programs", b_program_id, IR_OP_NUM_PROGRAMS, {"axis"}},
	{"tl.arange", b_arange, 0, {"start", "end"}},
	{"tl.full", b_full, 0, {"shape", "value", "dtype"}},
	{"tl.zeros", b_full, 1, {"shape", "dtype"}},
	{"tl.zeros_like", b_zeros_like, 0, {"input"}},
	{"tl.load", b_load, 0, {"pointer", "mask", "other", "boundary_check", "padding_option", "cache_modifier",
				"eviction_policy", "volatile"}},
	{"tl.store", b_store, 0, {"pointer", "value", "mask", "boundary_check", "cache_modifier", "eviction_policy"}},
	{"tl.where", b_where, 0, {"condition", "x", "y"}},
	{"tl.maximum", b_minmax, IR_OP_MAX, {"x", "y", "propagate_nan"}},
	{"tl.minimum", b_minmax, IR_OP_MIN, {"x", "y", "propagate_nan"}},
	{"tl.exp", b_math, IR_MATH_EXP, {"x"}},
	{"tl.exp2", b_math, IR_MATH_EXP2, {"x"}},
	{"tl.log", b_math, IR_MATH_LOG, {"x"}},
	{"tl.log2", b_math, IR_MATH_LOG2, {"x"}},
	{"tl.sqrt", b_math, IR_MATH_SQRT, {"x"}},
	{"tl.sqrt_rn", b_math, IR_MATH_SQRT_RN, {"x"}},
	{"tl.rsqrt", b_math, IR_MATH_RSQRT, {"x"}},
	{"tl.sin", b_math, IR_MATH_SIN, {"x"}},
	{"tl.cos", b_math, IR_MATH_COS, {"x"}},
	{"tl.abs", b_math, IR_MATH_ABS, {"x"}},
	{"tl.floor", b_math, IR_MATH_FLOOR, {"x"}},
	{"tl.ceil", b_math, IR_MATH_CEIL, {"x"}},
	{"tl.erf", b_math, IR_MATH_ERF, {"x"}},
	{"tl.sigmoid", b_sigmoid, 0, {"x"}},
	{"tl.clamp", b_clamp, 0, {"x", "min", "max", "propagate_nan"}},
	{"tl.swizzle2d", b_swizzle2d, 0, {"i", "j", "size_i", "size_j", "size_g"}},
	{"tl.fma", b_fma, 0, {"x", "y", "z"}},
	{"tl.fdiv", b_fdiv, 0, {"x", "y", "ieee_rounding"}},
	{"tl.div_rn", b_fdiv, 1, {"x", "y"}},
	{"tl.cdiv", b_cdiv, 0, {"x", "div"}},
	{"triton.cdiv", b_cdiv, 0, {"x", "y"}},
	{"triton.next_power_of_2", b_next_pow2, 0, {"n"}},
	{"tl.cast", b_cast, 0, {"input", "dtype", "fp_downcast_rounding", "bitcast"}},
	{"tl.reshape", b_reshape, 0, {"input", "shape", "*", "can_reorder"}},
	{"tl.view", b_reshape, 0, {"input", "shape", "*"}},
	{"tl.ravel", b_ravel, 0, {"x", "can_reorder"}},
	{"tl.permute", b_permute, 0, {"input", "dims", "*"}},
	{"tl.trans", b_permute, 1, {"input", "dims", "*"}},
	{"tl.expand_dims", b_expand_dims, 0, {"input", "axis"}},
	{"tl.join", b_join, 0, {"a", "b"}},
	{"tl.split", b_split, 0, {"a"}},
	{"tl.interleave", b_interleave, 0, {"a", "b"}},
	{"tl.cat", b_cat, 0, {"input", "other", "can_reorder"}},
	{"tl.flip", b_flip, 0, {"x", "dim"}},
	{"tl.sort", b_sort, 0, {"x", "dim", "descending"}},
	{"cuda.globaltimer", b_cuda, 0, {0}},
	{"cuda.smid", b_cuda, 1, {0}},
	{"cuda.num_threads", b_cuda, 2, {0}},
	{"cuda.num_warps", b_cuda, 3, {0}},
	{"cuda.gdc_wait", b_grid_dep, 0, {0}},
	{"cuda.gdc_launch_dependents", b_grid_dep, 1, {0}},
	{"tl.inline_asm_elementwise", b_inline_asm, 0, {"asm", "constraints", "args", "dtype", "is_pure", "pack"}},
	{"tl.gather", b_gather, 0, {"src", "index", "axis"}},
	{"tl.histogram", b_histogram, 0, {"input", "num_bins", "mask"}},
	{"tl.topk", b_sort, 1, {"x", "k", "dim"}},
	{"tl.broadcast_to", b_broadcast_to, 0, {"input", "shape", "*"}},
	{"tl.broadcast", b_broadcast, 0, {"input", "other"}},
	{"tl.sum", b_sum, 0, {"input", "axis", "keep_dims", "dtype"}},
	{"tl.max", b_max, IR_REDUCE_MAX, {"input", "axis", "return_indices", "return_indices_tie_break_left", "keep_dims"}},
	{"tl.min", b_max, IR_REDUCE_MIN, {"input", "axis", "return_indices", "return_indices_tie_break_left", "keep_dims"}},
	{"tl.argmax", b_argmax, IR_REDUCE_ARGMAX, {"input", "axis", "tie_break_left", "keep_dims"}},
	{"tl.argmin", b_argmax, IR_REDUCE_ARGMIN, {"input", "axis", "tie_break_left", "keep_dims"}},
	{"tl.xor_sum", b_xor_sum, 0, {"input", "axis", "keep_dims"}},
	{"tl.softmax", b_softmax, 0, {"x", "dim", "keep_dims", "ieee_rounding"}},
	{"tl.associative_scan", b_associative_scan, 0, {"input", "axis", "combine_fn", "reverse"}},
	{"tl.reduce", b_reduce, 0, {"input", "axis", "combine_fn", "keep_dims"}},
	{"tl.cumsum", b_cumulative, 0, {"input", "axis", "reverse", "dtype"}},
	{"tl.cumprod", b_cumulative, 1, {"input", "axis", "reverse"}},
	{"tl.dot", b_dot, 0, {"input", "other", "acc", "input_precision", "allow_tf32", "max_num_imprecise_acc", "out_dtype"}},
	{"tl.multiple_of", b_hint, IR_HINT_MULTIPLE_OF, {"input", "values"}},
	{"tl.max_contiguous", b_hint, IR_HINT_MAX_CONTIGUOUS, {"input", "values"}},
	{"tl.max_constancy", b_hint, IR_HINT_MAX_CONSTANCY, {"input", "values"}},
	{"tl.assume", b_assume, 0, {"cond"}},
	{"tl.constexpr", b_constexpr, 0, {"value"}},
	{"tl.static_assert", b_static_assert, 0, {"cond", "msg"}},
	{"tl.static_print", b_static_print, 0, {"*", "sep", "end", "file", "flush"}},
	{"tl.device_assert", b_device_assert, 0, {"cond", "msg", "mask"}}, /* emitted in debug mode only */
	{"tl.device_print", b_device_print, 0, {"prefix", "*", "hex"}},
	{"print", b_device_print, 1, {"*"}},
	{"tl.pointer_type", b_pointer_type, 0, {"element_ty", "address_space"}},
	{"tl.range", b_loop_only, 0, {"*"}},
	{"tl.static_range", b_loop_only, 0, {"*"}},
	{"range", b_loop_only, 0, {"*"}},
	{"min", b_py_minmax, 0, {"a", "*"}},
	{"max", b_py_minmax, 1, {"a", "*"}},
	{"int", b_py_conv, 0, {"x"}},
	{"float", b_py_conv, 1, {"x"}},
	{"bool", b_py_conv, 2, {"x"}},
	{"len", b_py_len, 0, {"obj"}},
	{"abs", b_py_abs, IR_MATH_ABS, {"x"}},
	{"math.sqrt", b_py_math, 0, {"x"}},
	{"math.log", b_py_math, 1, {"x"}},
	{"math.log2", b_py_math, 2, {"x"}},
	{"math.exp", b_py_math, 3, {"x"}},
	{"math.exp2", b_py_math, 4, {"x"}},
	{"math.floor", b_py_math, 5, {"x"}},
	{"math.ceil", b_py_math, 6, {"x"}},
	{"tl.atomic_add", b_atomic, IR_ATOMIC_ADD, {"pointer", "val", "mask", "sem", "scope"}},
	{"tl.atomic_max", b_atomic, IR_ATOMIC_MAX, {"pointer", "val", "mask", "sem", "scope"}},
	{"tl.atomic_min", b_atomic, IR_ATOMIC_MIN, {"pointer", "val", "mask", "sem", "scope"}},
	{"tl.atomic_and", b_atomic, IR_ATOMIC_AND, {"pointer", "val", "mask", "sem", "scope"}},
	{"tl.atomic_or", b_atomic, IR_ATOMIC_OR, {"pointer", "val", "mask", "sem", "scope"}},
	{"tl.atomic_xor", b_atomic, IR_ATOMIC_XOR, {"pointer", "val", "mask", "sem", "scope"}},
	{"tl.atomic_xchg", b_atomic, IR_ATOMIC_XCHG, {"pointer", "val", "mask", "sem", "scope"}},
	{"tl.atomic_cas", b_atomic, -1, {"pointer", "cmp", "val", "sem", "scope"}},
	{"tl.debug_barrier", b_debug_barrier, 0, {0}},
	{"tl.umulhi", b_random, SEMA_RANDOM_UMULHI, {"x", "y"}},
	{"tl.randint", b_random, SEMA_RANDOM_RANDINT, {"seed", "offset", "n_rounds"}},
	{"tl.randint4x", b_random, SEMA_RANDOM_RANDINT4X, {"seed", "offset", "n_rounds"}},
	{"tl.rand", b_random, SEMA_RANDOM_RAND, {"seed", "offset", "n_rounds"}},
	{"tl.rand4x", b_random, SEMA_RANDOM_RAND4X, {"seed", "offsets", "n_rounds"}},
	{"tl.randn", b_random, SEMA_RANDOM_RANDN, {"seed", "offset", "n_rounds"}},
	{"tl.randn4x", b_random, SEMA_RANDOM_RANDN4X, {"seed", "offset", "n_rounds"}},
	{"tl.philox", b_random, SEMA_RANDOM_PHILOX, {"seed", "c0", "c1", "c2", "c3", "n_rounds"}},
	{"tl.philox_impl", b_random, SEMA_RANDOM_PHILOX_IMPL, {"c0", "c1", "c2", "c3", "k0", "k1", "n_rounds"}},
	{"tl.uint_to_uniform_float", b_random, SEMA_RANDOM_UNIFORM, {"x"}},
	{"tl.pair_uniform_to_normal", b_random, SEMA_RANDOM_PAIR_NORMAL, {"u1", "u2"}},
	{"tl.make_block_ptr", b_make_block_ptr, 0, {"base", "shape", "strides", "offsets", "block_shape", "order"}},
	{"tl.advance", b_advance, 0, {"base", "offsets"}},
	{"tl.make_tensor_descriptor", b_make_desc, 0, {"base", "shape", "strides", "block_shape", "padding_option"}},
	{"tl.load_tensor_descriptor", b_desc_load, 0, {"desc", "offsets"}},
	{"tl.store_tensor_descriptor", b_desc_store, 0, {"desc", "offsets", "value"}},
};

static const builtin *builtin_find(const char *name)
{
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	return NULL;
}

/* Number of leading parameters without a default. */
static int required(const builtin *b)
{
	static const struct {
		const char *name;
		int n;
	} req[] = {
		{"tl.program_id", 0}, {"tl.num_programs", 0}, {"tl.arange", 2}, {"tl.full", 3}, {"tl.zeros", 2},
		{"tl.load", 1}, {"tl.store", 2}, {"tl.where", 3}, {"tl.maximum", 2}, {"tl.minimum", 2},
		{"tl.fma", 3}, {"tl.clamp", 3}, {"tl.swizzle2d", 5}, {"tl.fdiv", 2}, {"tl.div_rn", 2}, {"tl.cdiv", 2}, {"triton.cdiv", 2}, {"tl.cast", 2},
		{"tl.reshape", 1}, {"tl.view", 1}, {"tl.permute", 1}, {"tl.trans", 1}, {"tl.expand_dims", 2},
		{"tl.broadcast_to", 1}, {"tl.broadcast", 2}, {"tl.associative_scan", 3}, {"tl.reduce", 3}, {"tl.join", 2}, {"tl.interleave", 2}, {"tl.cat", 2}, {"tl.topk", 2}, {"tl.gather", 3}, {"tl.histogram", 2}, {"tl.inline_asm_elementwise", 6}, {"cuda.globaltimer", 0}, {"cuda.smid", 0}, {"cuda.num_threads", 0}, {"cuda.gdc_wait", 0}, {"cuda.gdc_launch_dependents", 0}, {"cuda.num_warps", 0}, {"tl.cumsum", 1},
		{"tl.cumprod", 1}, {"tl.argmax", 2}, {"tl.argmin", 2}, {"tl.dot", 2},
		{"tl.multiple_of", 2}, {"tl.max_contiguous", 2}, {"tl.max_constancy", 2}, {"tl.static_assert", 1},
		{"tl.static_print", 0}, {"tl.range", 0}, {"tl.static_range", 0}, {"range", 0}, {"int", 0},
		{"float", 0}, {"bool", 0}, {"tl.pointer_type", 1},
		{"tl.atomic_add", 2}, {"tl.atomic_max", 2}, {"tl.atomic_min", 2}, {"tl.atomic_and", 2},
		{"tl.atomic_or", 2}, {"tl.atomic_xor", 2}, {"tl.atomic_xchg", 2}, {"tl.atomic_cas", 3},
		{"tl.debug_barrier", 0}, {"tl.umulhi", 2}, {"tl.randint", 2}, {"tl.randint4x", 2}, {"tl.rand", 2},
		{"tl.rand4x", 2}, {"tl.randn", 2}, {"tl.randn4x", 2}, {"tl.philox", 5}, {"tl.philox_impl", 6},
		{"tl.pair_uniform_to_normal", 2}, {"tl.make_tensor_descriptor", 4}, {"tl.make_block_ptr", 6}, {"tl.advance", 2}, {"tl.load_tensor_descriptor", 2},
		{"tl.store_tensor_descriptor", 3},
	};
	for (size_t i = 0; i < sizeof req / sizeof req[0]; i++)
		if (!strcmp(req[i].name, b->name))
			return req[i].n;
	return 1;
}

/* ---------------------------------------------------------------- binding and dispatch */

static bool bind(sema *s, ast_node *node, const char *name, const char *const *params, int nreq,
		 int nself, const sv *self, int npos, const sv *pos, int nkw, const char *const *kwn, const sv *kwv, call *c)
{
	memset(c, 0, sizeof *c);
	c->s = s;
	c->node = node;
	c->name = name;
	c->pnames = params;
	int np = 0, star = -1;
	while (np < 8 && params[np]) {
		if (!strcmp(params[np], "*"))
			star = np;
		np++;
	}
	int nfixed = star >= 0 ? star : np;
	for (int i = 0; i < nself + npos; i++) {
		sv v = i < nself ? self[i] : pos[i - nself];
		if (i < nfixed) {
			c->v[i] = v;
			c->given[i] = true;
		} else if (star >= 0 && c->nextra < MAXARGS) {
			c->extra[c->nextra++] = v;
		} else {
			return sema_error(s, node->loc, TILEC_ERR_SEMANTIC, "`%s` takes at most %d positional arguments, got %d", name,
					  nfixed - nself, npos);
		}
	}
	for (int k = 0; k < nkw; k++) {
		int i = 0;
		while (i < np && (i == star || strcmp(params[i], kwn[k])))
			i++;
		if (i == np)
			return sema_error(s, node->loc, TILEC_ERR_SEMANTIC, "`%s` got an unexpected keyword argument `%s`", name, kwn[k]);
		if (c->given[i])
			return sema_error(s, node->loc, TILEC_ERR_SEMANTIC, "`%s` got multiple values for argument `%s`", name, kwn[k]);
		c->v[i] = kwv[k];
		c->given[i] = true;
	}
	for (int i = 0; i < nreq && i < np; i++)
		if (!c->given[i] && i != star)
			return sema_error(s, node->loc, TILEC_ERR_SEMANTIC, "`%s` is missing argument `%s`", name, params[i]);
	for (int i = 0; i < np; i++)
		if (!c->given[i])
			c->v[i].kind = SV_NONE;
	return true;
}

/* Evaluates the arguments of a CALL node. */
static bool eval_args(sema *s, ast_node *n, sv *pos, const char **kwn, sv *kwv)
{
	if (n->call.args.n > MAXARGS || n->call.kwargs.n > MAXARGS)
		return sema_error(s, n->loc, TILEC_ERR_UNSUPPORTED, "a call with more than %d positional or %d keyword "
				  "arguments is not supported", MAXARGS, MAXARGS);
	for (int i = 0; i < n->call.args.n; i++) {
		ast_node *a = n->call.args.items[i];
		if (a->kind == AST_STARRED)
			return sema_error(s, a->loc, TILEC_ERR_UNSUPPORTED, "`*args` in calls is not supported");
		if (!sema_expr(s, a, &pos[i]))
			return false;
	}
	for (int i = 0; i < n->call.kwargs.n; i++) {
		ast_node *k = n->call.kwargs.items[i];
		if (!k->keyword.name)
			return sema_error(s, k->loc, TILEC_ERR_UNSUPPORTED, "`**kwargs` in calls is not supported");
		kwn[i] = k->keyword.name;
		if (!sema_expr(s, k->keyword.value, &kwv[i]))
			return false;
	}
	return true;
}

/* Methods of tensors: the builtin they call with self first. */
static const char *method_builtin(const char *m)
{
	static const char *const same[] = {
		"sum", "max", "min", "argmax", "argmin", "xor_sum", "reshape", "view", "ravel", "permute", "trans",
		"expand_dims", "broadcast_to", "exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos",
		"abs", "floor", "ceil", "erf", "sigmoid", "softmax", "cdiv", "cast", "cumsum", "cumprod",
		"associative_scan", "reduce", "split", "join", "flip", "gather", "histogram",
		"atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor", "atomic_xchg", "atomic_cas",
	};
	if (!strcmp(m, "to"))
		return "tl.cast";
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
		if (!strcmp(same[i], m))
			return same[i];
	return NULL;
}

static bool dtype_method(sema *s, src_loc loc, ir_type t, const char *m, sv *out)
{
	ir_kind k = (ir_kind)t.kind;
	static const struct {
		const char *name;
		int what;
	} preds[] = {
		{"is_floating", 0}, {"is_int", 1}, {"is_int_signed", 2}, {"is_int_unsigned", 3}, {"is_fp16", 4},
		{"is_bf16", 5}, {"is_fp32", 6}, {"is_fp64", 7}, {"is_ptr", 8}, {"is_bool", 9}, {"is_integer", 1},
		{"is_standard_floating", 10}, {"is_fp8", 11}, {"is_fp8e4nv", 12}, {"is_fp8e5", 13},
	};
	/* is_int8 .. is_int64, is_uint8 .. is_uint64: one integer kind each */
	static const struct {
		const char *name;
		ir_kind kind;
	} ints[] = {
		{"is_int8", IR_I8}, {"is_int16", IR_I16}, {"is_int32", IR_I32}, {"is_int64", IR_I64},
		{"is_uint8", IR_U8}, {"is_uint16", IR_U16}, {"is_uint32", IR_U32}, {"is_uint64", IR_U64},
	};
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
		if (!strcmp(ints[i].name, m)) {
			*out = sema_bool(k == ints[i].kind);
			return true;
		}
	for (size_t i = 0; i < sizeof preds / sizeof preds[0]; i++) {
		if (strcmp(preds[i].name, m))
			continue;
		bool r = false;
		switch (preds[i].what) {
		case 0: r = ir_kind_is_float(k); break;
		case 1: r = ir_kind_is_int(k); break;
		case 2: r = ir_kind_is_signed(k); break;
		case 3: r = ir_kind_is_int(k) && !ir_kind_is_signed(k); break;
		case 4: r = k == IR_F16; break;
		case 5: r = k == IR_BF16; break;
		case 6: r = k == IR_F32; break;
		case 7: r = k == IR_F64; break;
		case 8: r = k == IR_PTR; break;
		case 9: r = k == IR_I1; break;
		case 10: r = ir_kind_is_float(k) && !ir_kind_is_fp8(k); break;
		case 11: r = ir_kind_is_fp8(k); break;
		case 12: r = k == IR_F8E4NV; break;
		case 13: r = k == IR_F8E5; break;
		}
		*out = sema_bool(r);
		return true;
	}
	return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "dtype method `%s` is not supported yet", m);
}

bool sema_builtin(sema *s, src_loc loc, const char *name, int npos, const sv *pos, sv *out)
{
	const builtin *b = builtin_find(name);
	if (!b)
		return sema_error(s, loc, TILEC_ERR_INVALID, "internal: no builtin `%s`", name);
	ast_node node;
	memset(&node, 0, sizeof node);
	node.loc = loc;
	call c;
	memset(out, 0, sizeof *out);
	if (!bind(s, &node, name, b->params, required(b), 0, NULL, npos, pos, 0, NULL, NULL, &c))
		return false;
	c.sub = b->sub;
	return b->fn(&c, out);
}

/* `tl.float32(x)`: a number becomes a scalar of that type (its exact
 * value rounded once), a tensor is converted (`x.to(tl.float32)`). */
static bool dtype_call(sema *s, src_loc loc, ir_type t, int npos, const sv *pos, int nkw, sv *out)
{
	const char *name = sema_type_str(s, t);
	if (npos != 1 || nkw)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "dtype %s called as a function takes one positional argument", name);
	if (t.kind == IR_PTR)
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "pointer type %s cannot be called as a function", name);
	int id;
	sv v = pos[0];
	if (sema_is_num(v) && ir_kind_is_int((ir_kind)t.kind) && v.kind != SV_FLOAT) {
		/* wrapped to the type's width, as a conversion of the integer would */
		int bits = ir_kind_bits((ir_kind)t.kind);
		uint64_t u = (uint64_t)v.i;
		if (bits == 1)
			u = u != 0;
		else if (bits < 64 && ir_kind_is_signed((ir_kind)t.kind))
			u = (uint64_t)(((int64_t)(u << (64 - bits))) >> (64 - bits));
		else if (bits < 64)
			u &= (UINT64_C(1) << bits) - 1;
		v = sema_int((int64_t)u);
	}
	if (sema_is_num(v))
		id = sema_number(s, loc, v, t);
	else if (pos[0].kind == SV_TENSOR)
		id = sema_cast(s, loc, pos[0].id, t);
	else
		return sema_error(s, loc, TILEC_ERR_SEMANTIC, "dtype %s called as a function takes a number or a tensor, got %s",
				  name, sema_sv_str(s, pos[0]));
	if (id < 0)
		return false;
	*out = sema_tensor(id);
	return true;
}

bool sema_call(sema *s, ast_node *n, sv fn, sv *out)
{
	sv pos[MAXARGS], kwv[MAXARGS];
	const char *kwn[MAXARGS];
	if (!eval_args(s, n, pos, kwn, kwv))
		return false;
	int npos = n->call.args.n, nkw = n->call.kwargs.n;
	memset(out, 0, sizeof *out);
	if (fn.kind == SV_FUNC && !fn.fn->jit) /* plain Python, run at compile time */
		return sema_host_call(s, n->loc, fn.fn, npos, pos, nkw, kwn, kwv, out);
	if (fn.kind == SV_FUNC)
		return sema_inline(s, n->loc, fn.fn, npos, pos, nkw, kwn, kwv, out);
	const char *name = NULL;
	int nself = 0;
	sv self = {0};
	if (fn.kind == SV_BUILTIN) {
		name = fn.s;
	} else if (fn.kind == SV_METHOD && fn.items[0].kind == SV_DTYPE) {
		if (npos || nkw)
			return sema_error(s, n->loc, TILEC_ERR_SEMANTIC, "dtype method `%s` takes no arguments", fn.s);
		return dtype_method(s, n->loc, fn.items[0].t, fn.s, out);
	} else if (fn.kind == SV_METHOD && fn.items[0].kind == SV_DESC) {
		name = !strcmp(fn.s, "load") ? "tl.load_tensor_descriptor" : "tl.store_tensor_descriptor";
		self = fn.items[0];
		nself = 1;
	} else if (fn.kind == SV_METHOD) {
		const char *b = method_builtin(fn.s);
		if (!b)
			return sema_error(s, n->loc, TILEC_ERR_UNSUPPORTED, "tensor method `%s` is not supported yet", fn.s);
		name = b[0] == 't' && b[1] == 'l' ? b : arena_printf(s->a, "tl.%s", b);
		self = fn.items[0];
		nself = 1;
	} else if (fn.kind == SV_DTYPE) {
		return dtype_call(s, n->loc, fn.t, npos, pos, nkw, out);
	} else {
		return sema_error(s, n->loc, TILEC_ERR_SEMANTIC, "%s is not callable", sema_sv_str(s, fn));
	}
	const builtin *b = builtin_find(name);
	const libdevice_fn *ld = !b && !strncmp(name, "libdevice.", 10) ? libdevice_find(name + 10) : NULL;
	static const char *const ldparams[4][4] = {{0}, {"arg0"}, {"arg0", "arg1"}, {"arg0", "arg1", "arg2"}};
	if (!b && !ld)
		return sema_error(s, n->loc, TILEC_ERR_UNSUPPORTED, "`%s` is not supported yet", name);
	call c;
	const char *const *params = b ? b->params : ldparams[ld->nargs];
	int nreq = b ? required(b) : ld->nargs;
	if (!bind(s, n, name, params, nreq, nself, &self, npos, pos, nkw, kwn, kwv, &c))
		return false;
	c.sub = b ? b->sub : 0;
	return b ? b->fn(&c, out) : b_libdevice(&c, out);
}

/* ---------------------------------------------------------------- attributes */

static const char *const modules[] = {
	"triton", "triton.language", "triton.language.math", "triton.language.core", "triton.language.standard",
	"triton.language.extra", "triton.language.extra.cuda", "triton.language.extra.libdevice",
	"triton.language.extra.cuda.libdevice", "triton.language.PropagateNan",
};

bool sema_module_attr(sema *s, src_loc loc, const char *path, const char *name, sv *out)
{
	if (sema_is_user_module(path))
		return sema_user_attr(s, loc, path, name, out);
	const char *full = arena_printf(s->a, "%s.%s", path, name);
	if (!full)
		return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++)
		if (!strcmp(modules[i], full)) {
			out->kind = SV_MODULE;
			out->s = full;
			return true;
		}
	if (!strcmp(path, "triton.language.PropagateNan")) {
		if (strcmp(name, "ALL") && strcmp(name, "NONE"))
			return sema_error(s, loc, TILEC_ERR_SEMANTIC, "tl.PropagateNan has no member `%s`", name);
		*out = sema_int(!strcmp(name, "ALL") ? 0xFFFF : 0);
		return true;
	}
	bool lang = !strcmp(path, "triton.language") || !strcmp(path, "triton.language.math") ||
		    !strcmp(path, "triton.language.core") || !strcmp(path, "triton.language.standard");
	bool libdev = !strcmp(path, "triton.language.extra.libdevice") || !strcmp(path, "triton.language.extra.cuda.libdevice");
	if (lang) {
		ir_kind k;
		if (ir_kind_from_name(name, strlen(name), &k) && strcmp(name, "bool")) {
			*out = mk_dtype(ir_scalar(k));
			return true;
		}
		const char *canon = arena_printf(s->a, "tl.%s", name);
		if (!canon)
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		if (builtin_find(canon)) {
			out->kind = SV_BUILTIN;
			out->s = canon;
			return true;
		}
		/* Triton 2.x's tl.math held the libdevice functions */
		if (!strcmp(path, "triton.language.math") && libdevice_find(name)) {
			out->kind = SV_BUILTIN;
			out->s = arena_printf(s->a, "libdevice.%s", name);
			return true;
		}
		return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "`%s` is not supported yet", canon);
	}
	if (libdev) {
		if (!libdevice_find(name))
			return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "`libdevice.%s` is not supported yet", name);
		out->kind = SV_BUILTIN;
		out->s = arena_printf(s->a, "libdevice.%s", name);
		return true;
	}
	if (!strcmp(path, "math")) { /* Python's math module on constexprs */
		static const struct {
			const char *name;
			double v;
		} consts[] = {{"pi", M_PI}, {"e", M_E}, {"tau", 2 * M_PI}, {"inf", INFINITY}, {"nan", NAN}};
		for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++)
			if (!strcmp(name, consts[i].name)) {
				out->kind = SV_FLOAT;
				out->f = consts[i].v;
				return true;
			}
		const char *canon = arena_printf(s->a, "math.%s", name);
		if (canon && builtin_find(canon)) {
			out->kind = SV_BUILTIN;
			out->s = canon;
			return true;
		}
	}
	if (!strcmp(path, "triton.language.extra.cuda")) {
		const char *canon = arena_printf(s->a, "cuda.%s", name);
		if (canon && builtin_find(canon)) {
			out->kind = SV_BUILTIN;
			out->s = canon;
			return true;
		}
	}
	if (!strcmp(path, "triton") && (!strcmp(name, "cdiv") || !strcmp(name, "next_power_of_2"))) {
		out->kind = SV_BUILTIN;
		out->s = name[0] == 'c' ? "triton.cdiv" : "triton.next_power_of_2";
		return true;
	}
	return sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "`%s` is not supported yet", full);
}

bool sema_attr(sema *s, src_loc loc, sv v, const char *name, sv *out)
{
	memset(out, 0, sizeof *out);
	if (v.kind == SV_MODULE)
		return sema_module_attr(s, loc, v.s, name, out);
	if (v.kind == SV_DESC)
		return sema_desc_attr(s, loc, v, name, out);
	if (v.kind == SV_TENSOR) {
		ir_type t = sema_type(s, v.id);
		/* a scalar's type is its dtype (Out.type.element_ty for a pointer) */
		if (!strcmp(name, "dtype") || (!strcmp(name, "type") && t.rank == 0)) {
			*out = mk_dtype(t);
			return true;
		}
		if (!strcmp(name, "shape")) {
			out->kind = SV_TUPLE;
			out->n = t.rank;
			out->items = arena_alloc(s->a, sizeof(sv) * (size_t)(t.rank + 1));
			if (!out->items)
				return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
			for (int i = 0; i < t.rank; i++)
				out->items[i] = sema_int(t.shape[i]);
			return true;
		}
		if (!strcmp(name, "numel")) {
			*out = sema_int(ir_numel(t));
			return true;
		}
		if (!strcmp(name, "T")) {
			call c = {0};
			c.s = s;
			c.name = "T";
			ast_node fake = {0};
			fake.loc = loc;
			c.node = &fake;
			int64_t order[2] = {1, 0};
			int r = permute(&c, v.id, 2, order);
			return out_tensor(&c, r, out);
		}
	}
	if (v.kind == SV_DTYPE) {
		ir_kind k = (ir_kind)v.t.kind;
		if (!strcmp(name, "primitive_bitwidth") || (!strcmp(name, "int_bitwidth") && ir_kind_is_int(k))) {
			*out = sema_int(ir_kind_bits(k));
			return true;
		}
		if (!strcmp(name, "element_ty") && k == IR_PTR) {
			*out = mk_dtype(ir_scalar((ir_kind)v.t.pointee));
			return true;
		}
	}
	if ((sema_is_num(v) || v.kind == SV_DTYPE || v.kind == SV_STR || v.kind == SV_NONE) &&
	    !strcmp(name, "value")) { /* tl.constexpr(x).value */
		*out = v;
		return true;
	}
	if (v.kind == SV_TENSOR || v.kind == SV_DTYPE) {
		out->kind = SV_METHOD;
		out->s = name;
		out->n = 1;
		out->items = arena_alloc(s->a, sizeof(sv));
		if (!out->items)
			return sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
		out->items[0] = v;
		return true;
	}
	return sema_error(s, loc, TILEC_ERR_SEMANTIC, "%s has no attribute `%s`", sema_sv_str(s, v), name);
}
