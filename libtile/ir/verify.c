/* verify.c - the IR verifier.
 *
 * One walk over the function's regions in program order. A bitmap of the
 * value ids visible at the current point stands for dominance: kernel
 * parameters are visible everywhere, a region's parameters and the results
 * of its ops become visible as the walk reaches them and are hidden again
 * when it leaves the region, so a use outside the region that defines a
 * value, or before its definition, is caught. Each op is then checked by
 * its opcode's rule (arity, regions, attributes, operand and result types),
 * and structured ops check their regions' parameters and terminators. Every
 * problem is an error at the op's location; the walk goes on so that one run
 * reports them all.
 */
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>

typedef struct verifier {
	tilec_ctx *ctx;
	const ir_func *f;
	unsigned char *visible; /* per value id: currently in scope */
	unsigned char *defined; /* per value id: already defined once */
	int errors;
} verifier;

static void fail(verifier *v, const ir_op *op, const char *fmt, ...) TILE_PRINTF(3, 4);

static void fail(verifier *v, const ir_op *op, const char *fmt, ...)
{
	strbuf sb;
	sb_init(&sb);
	if (op)
		sb_printf(&sb, "IR verifier: '%s': ", ir_opcode_name(op->code));
	else
		sb_puts(&sb, "IR verifier: ");
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	diag_error(v->ctx, op ? op->loc : v->f->loc, "%s", sb_str(&sb));
	sb_free(&sb);
	v->errors++;
}

static bool is_pow2(int64_t n)
{
	return n > 0 && (n & (n - 1)) == 0;
}

/* A well-formed type: a known element kind, a pointee for pointers, a rank
 * within bounds and power-of-two dimensions. */
static bool type_ok(ir_type t)
{
	if (t.kind <= IR_VOID || t.kind >= IR_KIND_COUNT || t.rank > IR_MAX_RANK)
		return false;
	if (t.kind == IR_PTR && (t.pointee <= IR_VOID || t.pointee >= IR_KIND_COUNT))
		return false;
	/* a ring of any number of power-of-two tiles of a number kind */
	if (t.kind == IR_SMEM && (t.rank != 3 || t.shape[0] < 1 ||
				  (!ir_kind_is_float((ir_kind)t.pointee) && !ir_kind_is_int((ir_kind)t.pointee))))
		return false;
	for (int i = t.kind == IR_SMEM; i < t.rank; i++)
		if (!is_pow2(t.shape[i]))
			return false;
	return true;
}

static const char *tstr(verifier *v, ir_type t)
{
	strbuf sb;
	sb_init(&sb);
	ir_type_str(&sb, t);
	char *s = arena_strdup(v->f->arena, sb_str(&sb));
	sb_free(&sb);
	return s ? s : "?";
}

static ir_type vtype(const verifier *v, int id)
{
	return v->f->values[id].type;
}

static ir_type arg(const verifier *v, const ir_op *op, int i)
{
	return vtype(v, op->args[i]);
}

static ir_type res(const verifier *v, const ir_op *op, int i)
{
	return vtype(v, op->results[i]);
}

static bool is_num(ir_type t)
{
	return ir_kind_is_int((ir_kind)t.kind) || ir_kind_is_float((ir_kind)t.kind);
}

static bool is_i1_scalar(ir_type t)
{
	return t.kind == IR_I1 && t.rank == 0;
}

static bool is_int_scalar(ir_type t)
{
	return t.rank == 0 && ir_kind_is_int((ir_kind)t.kind) && t.kind != IR_I1;
}

/* Arity of an op: exact counts, or at least `nargs` operands when
 * `variadic`. Returns false (after reporting) when the shape is wrong, so
 * the opcode's rule does not index missing operands. */
static bool arity(verifier *v, const ir_op *op, int nargs, bool variadic, int nresults, int nregions)
{
	bool ok = true;
	if (variadic ? op->nargs < nargs : op->nargs != nargs) {
		fail(v, op, "expects %s%d operand(s), has %d", variadic ? "at least " : "", nargs, op->nargs);
		ok = false;
	}
	if (nresults >= 0 && op->nresults != nresults) {
		fail(v, op, "expects %d result(s), has %d", nresults, op->nresults);
		ok = false;
	}
	if (op->nregions != nregions) {
		fail(v, op, "expects %d region(s), has %d", nregions, op->nregions);
		ok = false;
	}
	return ok;
}

/* Checks that the result has exactly the operand's type. */
static void same_as_arg(verifier *v, const ir_op *op, int i)
{
	if (!ir_type_eq(res(v, op, 0), arg(v, op, i)))
		fail(v, op, "result type %s differs from operand type %s", tstr(v, res(v, op, 0)), tstr(v, arg(v, op, i)));
}

/* Elementwise ops: every operand and the result of one type. */
static void elementwise(verifier *v, const ir_op *op, int n, bool ints_only, bool floats_only)
{
	if (!arity(v, op, n, false, 1, 0))
		return;
	ir_type t = res(v, op, 0);
	for (int i = 0; i < n; i++)
		same_as_arg(v, op, i);
	if (!is_num(t) || ir_kind_is_fp8((ir_kind)t.kind) || (ints_only && !ir_kind_is_int((ir_kind)t.kind)) ||
	    (floats_only && !ir_kind_is_float((ir_kind)t.kind)))
		fail(v, op, "operand type %s is not %s", tstr(v, t),
		     ints_only ? "an integer" : floats_only ? "a float" : "numeric (fp8 has no arithmetic)");
}

static void check_const(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 0, false, 1, 0))
		return;
	if (!is_num(res(v, op, 0)))
		fail(v, op, "constant of non-numeric type %s", tstr(v, res(v, op, 0)));
}

static void check_program_id(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 0, false, 1, 0))
		return;
	if (!ir_type_eq(res(v, op, 0), ir_scalar(IR_I32)))
		fail(v, op, "result must be i32, is %s", tstr(v, res(v, op, 0)));
	if (op->axis < 0 || op->axis > 2)
		fail(v, op, "axis %d out of range 0..2", op->axis);
}

static void check_arange(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 0, false, 1, 0))
		return;
	ir_type t = res(v, op, 0);
	if (t.kind != IR_I32 || t.rank != 1 || op->ival2 - op->ival != t.shape[0])
		fail(v, op, "range %lld..%lld does not match result type %s", (long long)op->ival, (long long)op->ival2,
		     tstr(v, t));
	if (op->ival < 0 || op->ival2 > INT32_MAX)
		fail(v, op, "range %lld..%lld outside i32", (long long)op->ival, (long long)op->ival2);
}

static void check_splat(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 1, false, 1, 0))
		return;
	ir_type a = arg(v, op, 0), r = res(v, op, 0);
	if (a.rank != 0 || r.rank == 0 || !ir_type_eq(ir_elem(r), a))
		fail(v, op, "cannot splat %s to %s", tstr(v, a), tstr(v, r));
}

static void check_broadcast(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 1, false, 1, 0))
		return;
	ir_type a = arg(v, op, 0), r = res(v, op, 0);
	bool ok = a.rank == r.rank && a.rank > 0 && ir_type_eq(ir_elem(a), ir_elem(r));
	for (int i = 0; ok && i < a.rank; i++)
		ok = a.shape[i] == r.shape[i] || a.shape[i] == 1;
	if (!ok)
		fail(v, op, "cannot broadcast %s to %s", tstr(v, a), tstr(v, r));
}

static void check_expand_dims(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 1, false, 1, 0))
		return;
	ir_type a = arg(v, op, 0), r = res(v, op, 0);
	bool ok = r.rank == a.rank + 1 && op->axis >= 0 && op->axis <= a.rank && ir_type_eq(ir_elem(a), ir_elem(r));
	for (int i = 0, j = 0; ok && i < r.rank; i++)
		ok = i == op->axis ? r.shape[i] == 1 : r.shape[i] == a.shape[j++];
	if (!ok)
		fail(v, op, "axis %d: %s is not %s with a size-1 dimension inserted", op->axis, tstr(v, r), tstr(v, a));
}

static void check_reshape(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 1, false, 1, 0))
		return;
	ir_type a = arg(v, op, 0), r = res(v, op, 0);
	if (!ir_type_eq(ir_elem(a), ir_elem(r)) || ir_numel(a) != ir_numel(r) || r.rank == 0)
		fail(v, op, "cannot reshape %s to %s", tstr(v, a), tstr(v, r));
}

static void check_permute(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 1, false, 1, 0))
		return;
	ir_type a = arg(v, op, 0), r = res(v, op, 0);
	bool ok = a.rank == r.rank && a.rank > 0 && ir_type_eq(ir_elem(a), ir_elem(r));
	unsigned seen = 0;
	for (int i = 0; ok && i < r.rank; i++) {
		int d = op->ints[i];
		ok = d >= 0 && d < a.rank && !(seen & (1u << d)) && r.shape[i] == a.shape[d];
		if (ok)
			seen |= 1u << d;
	}
	if (!ok)
		fail(v, op, "order is not a permutation taking %s to %s", tstr(v, a), tstr(v, r));
}

static void check_cast(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 1, false, 1, 0))
		return;
	ir_type a = arg(v, op, 0), r = res(v, op, 0);
	bool ok = ir_same_shape(a, r);
	if (ok && (a.kind == IR_PTR || r.kind == IR_PTR))
		ok = (a.kind == IR_PTR || a.kind == IR_I64 || a.kind == IR_U64) &&
		     (r.kind == IR_PTR || r.kind == IR_I64 || r.kind == IR_U64);
	ir_kind ak = (ir_kind)a.kind, rk = (ir_kind)r.kind, other = ir_kind_is_fp8(ak) ? rk : ak;
	if (ok && ak != rk && (ir_kind_is_fp8(ak) || ir_kind_is_fp8(rk)))
		ok = other == IR_F32 || other == IR_F16 || other == IR_BF16;
	if (!ok)
		fail(v, op, "cannot cast %s to %s", tstr(v, a), tstr(v, r));
}

static void check_bitcast(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 1, false, 1, 0))
		return;
	ir_type a = arg(v, op, 0), r = res(v, op, 0);
	if (!ir_same_shape(a, r) || ir_kind_bits((ir_kind)a.kind) != ir_kind_bits((ir_kind)r.kind))
		fail(v, op, "cannot bitcast %s to %s", tstr(v, a), tstr(v, r));
}

static void check_cmp(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 2, false, 1, 0))
		return;
	ir_type a = arg(v, op, 0), r = res(v, op, 0);
	if (!ir_type_eq(a, arg(v, op, 1)))
		fail(v, op, "operand types %s and %s differ", tstr(v, a), tstr(v, arg(v, op, 1)));
	if (r.kind != IR_I1 || !ir_same_shape(a, r))
		fail(v, op, "result %s is not i1 of the operands' shape", tstr(v, r));
	if (op->sub < IR_CMP_EQ || op->sub > IR_CMP_GE)
		fail(v, op, "unknown predicate %d", op->sub);
}

static void check_select(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 3, false, 1, 0))
		return;
	ir_type c = arg(v, op, 0), r = res(v, op, 0);
	if (c.kind != IR_I1 || !ir_same_shape(c, r))
		fail(v, op, "condition %s is not i1 of the result's shape %s", tstr(v, c), tstr(v, r));
	same_as_arg(v, op, 1);
	same_as_arg(v, op, 2);
}

static void check_math(verifier *v, const ir_op *op)
{
	if (op->sub == IR_MATH_ABS)
		elementwise(v, op, 1, false, false);
	else
		elementwise(v, op, 1, false, true);
	if (op->sub < 0 || op->sub >= IR_MATH_COUNT)
		fail(v, op, "unknown function %d", op->sub);
}

static void check_extern(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 1, true, 1, 0))
		return;
	if (!op->name || !op->name[0])
		fail(v, op, "no symbol name");
	ir_type r = res(v, op, 0);
	if (!is_num(r))
		fail(v, op, "result type %s is not numeric", tstr(v, r));
	for (int i = 0; i < op->nargs; i++)
		if (!is_num(arg(v, op, i)) || !ir_same_shape(arg(v, op, i), r))
			fail(v, op, "operand %d type %s does not fit result %s", i, tstr(v, arg(v, op, i)), tstr(v, r));
}

static void check_ptr_add(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 2, false, 1, 0))
		return;
	ir_type p = arg(v, op, 0), o = arg(v, op, 1);
	if (p.kind != IR_PTR)
		fail(v, op, "first operand %s is not a pointer", tstr(v, p));
	if (!ir_kind_is_int((ir_kind)o.kind) || o.kind == IR_I1 || !ir_same_shape(p, o))
		fail(v, op, "offset %s is not an integer of the pointer's shape %s", tstr(v, o), tstr(v, p));
	same_as_arg(v, op, 0);
}

/* The operand after the pointer (mask) and its flags for LOAD and STORE. */
static void check_mask(verifier *v, const ir_op *op, int i, ir_type ptr)
{
	ir_type m = arg(v, op, i);
	if (m.kind != IR_I1 || !ir_same_shape(m, ptr))
		fail(v, op, "mask %s is not i1 of the pointer's shape %s", tstr(v, m), tstr(v, ptr));
}

/* Operands first.. are the i32 coordinates of a block of type t, which
 * tensor-map parameter ival copies. */
static void check_map(verifier *v, const ir_op *op, int first, ir_type t)
{
	ir_type bt;
	if (op->ival < 0 || op->ival >= v->f->nparams || !ir_tensormap_block(v->f, (int)op->ival, &bt)) {
		fail(v, op, "map %%%lld is not a tensor-map parameter", (long long)op->ival);
		return;
	}
	if (!ir_type_eq(bt, t))
		fail(v, op, "the map copies blocks %s, not %s", tstr(v, bt), tstr(v, t));
	for (int i = first; i < op->nargs; i++)
		if (!ir_type_eq(arg(v, op, i), ir_scalar(IR_I32)))
			fail(v, op, "coordinate %d is %s, not an i32 scalar", i - first, tstr(v, arg(v, op, i)));
}

static void check_load(verifier *v, const ir_op *op)
{
	bool has_mask = op->flags & IR_FLAG_HAS_MASK, has_other = op->flags & IR_FLAG_HAS_OTHER;
	if (has_other && !has_mask) {
		fail(v, op, "'other' without a mask");
		return;
	}
	bool map = op->flags & IR_FLAG_TENSORMAP;
	int ncoords = map && op->nresults == 1 ? res(v, op, 0).rank : 0;
	if (map && !has_other) {
		fail(v, op, "a descriptor block without its mask and 'other'");
		return;
	}
	if (!arity(v, op, 1 + has_mask + has_other + ncoords, false, 1, 0))
		return;
	ir_type p = arg(v, op, 0), r = res(v, op, 0);
	if (p.kind != IR_PTR || r.kind != p.pointee || !ir_same_shape(p, r))
		fail(v, op, "loading %s through %s", tstr(v, r), tstr(v, p));
	if (has_mask)
		check_mask(v, op, 1, p);
	if (has_other)
		same_as_arg(v, op, 2);
	if (map)
		check_map(v, op, 3, r);
}

static void check_store(verifier *v, const ir_op *op)
{
	bool has_mask = op->flags & IR_FLAG_HAS_MASK, map = op->flags & IR_FLAG_TENSORMAP;
	if (op->flags & IR_FLAG_HAS_OTHER)
		fail(v, op, "'other' on a store");
	if (map && !has_mask) {
		fail(v, op, "a descriptor block without its mask");
		return;
	}
	int ncoords = map && op->nargs > 1 ? arg(v, op, 1).rank : 0;
	if (!arity(v, op, 2 + has_mask + ncoords, false, 0, 0))
		return;
	ir_type p = arg(v, op, 0), x = arg(v, op, 1);
	if (p.kind != IR_PTR || x.kind != p.pointee || !ir_same_shape(p, x))
		fail(v, op, "storing %s through %s", tstr(v, x), tstr(v, p));
	if (has_mask)
		check_mask(v, op, 2, p);
	if (map)
		check_map(v, op, 3, x);
}

/* Atomics: the value (and compare) operands and the result have the
 * pointee's kind and the pointer's shape; kinds as Triton accepts them. */
static void check_atomic(verifier *v, const ir_op *op)
{
	bool cas = op->code == IR_OP_ATOMIC_CAS, has_mask = op->flags & IR_FLAG_HAS_MASK;
	if (cas && has_mask)
		fail(v, op, "a masked compare-and-swap");
	if (!arity(v, op, cas ? 3 : 2 + has_mask, false, 1, 0))
		return;
	ir_type p = arg(v, op, 0), r = res(v, op, 0);
	if (p.kind != IR_PTR) {
		fail(v, op, "operand %s is not a pointer", tstr(v, p));
		return;
	}
	for (int i = 1; i < (cas ? 3 : 2); i++)
		if (arg(v, op, i).kind != p.pointee || !ir_same_shape(p, arg(v, op, i)))
			fail(v, op, "operand %d %s does not fit %s", i, tstr(v, arg(v, op, i)), tstr(v, p));
	if (r.kind != p.pointee || !ir_same_shape(p, r))
		fail(v, op, "result %s does not fit %s", tstr(v, r), tstr(v, p));
	if (has_mask)
		check_mask(v, op, 2, p);
	if ((unsigned long long)op->ival >= IR_SEM_COUNT || (unsigned long long)op->ival2 >= IR_SCOPE_COUNT)
		fail(v, op, "bad memory semantics %lld or scope %lld", (long long)op->ival, (long long)op->ival2);
	ir_kind k = (ir_kind)p.pointee;
	int bits = k == IR_PTR ? 64 : ir_kind_bits(k);
	if (cas) {
		if (bits != 16 && bits != 32 && bits != 64)
			fail(v, op, "compare-and-swap of %s", ir_kind_name(k));
		return;
	}
	bool ok = bits >= 32 || ((k == IR_F16 || k == IR_BF16) && op->sub == IR_ATOMIC_ADD);
	switch (op->sub) {
	case IR_ATOMIC_ADD: case IR_ATOMIC_XCHG: break;
	case IR_ATOMIC_MAX: case IR_ATOMIC_MIN: case IR_ATOMIC_AND: case IR_ATOMIC_OR: case IR_ATOMIC_XOR:
		ok = ok && ir_kind_is_int(k);
		break;
	default: ok = false; break;
	}
	if (!ok || k == IR_PTR || k == IR_I1)
		fail(v, op, "atomic %s of %s", ir_atomic_name((ir_atomic)op->sub), ir_kind_name(k));
}

static void check_reduce(verifier *v, const ir_op *op)
{
	bool arg_index = op->sub == IR_REDUCE_ARGMAX || op->sub == IR_REDUCE_ARGMIN;
	if (!arity(v, op, 1, false, arg_index && op->nresults == 2 ? 2 : 1, 0))
		return;
	ir_type a = arg(v, op, 0), r = res(v, op, 0);
	if (op->nresults == 2 && !ir_type_eq(res(v, op, 1), ir_block(ir_scalar((ir_kind)a.kind), r.rank, r.shape)))
		fail(v, op, "the value of an index reduction of %s is %s", tstr(v, a), tstr(v, res(v, op, 1)));
	bool ok = a.rank >= 1 && op->axis >= 0 && op->axis < a.rank && r.rank == a.rank - 1;
	for (int i = 0, j = 0; ok && i < a.rank; i++)
		if (i != op->axis)
			ok = r.shape[j++] == a.shape[i];
	if (!ok)
		fail(v, op, "axis %d: %s is not %s with the axis removed", op->axis, tstr(v, r), tstr(v, a));
	ir_kind ak = (ir_kind)a.kind, rk = (ir_kind)r.kind;
	switch (op->sub) {
	case IR_REDUCE_ARGMAX:
	case IR_REDUCE_ARGMIN:
		if (rk != IR_I32 || !is_num(a))
			fail(v, op, "index reduction of %s must yield i32, yields %s", tstr(v, a), tstr(v, r));
		break;
	case IR_REDUCE_XOR_SUM:
		if (rk != ak || !ir_kind_is_int(ak))
			fail(v, op, "xor_sum of %s yields %s", tstr(v, a), tstr(v, r));
		break;
	case IR_REDUCE_SUM:
	case IR_REDUCE_MAX:
	case IR_REDUCE_MIN:
		/* the front end widens by casting first; the reduce keeps its kind */
		if (rk != ak || !is_num(a))
			fail(v, op, "%s of %s yields %s", ir_reduce_name((ir_reduce)op->sub), tstr(v, a), tstr(v, r));
		break;
	default:
		fail(v, op, "unknown reduction %d", op->sub);
	}
}

static void walk_region(verifier *v, const ir_region *r, const ir_op *parent);

/* k inputs of one block shape, k results of their types; the combine
 * region takes (accumulated, next) as 2k scalars of the element types and
 * yields k of them; nothing in it is a block. */
static void check_scan(verifier *v, const ir_op *op)
{
	int k = op->nargs;
	if (k < 1 || op->nresults != k || op->nregions != 1) {
		fail(v, op, "scan of %d inputs with %d results and %d regions", k, op->nresults, op->nregions);
		return;
	}
	ir_type a0 = arg(v, op, 0);
	if (a0.rank < 1 || op->axis < 0 || op->axis >= a0.rank)
		fail(v, op, "scan axis %d of %s", op->axis, tstr(v, a0));
	for (int i = 0; i < k; i++) {
		ir_type a = arg(v, op, i), want = a;
		if (op->code == IR_OP_REDUCE_FN && a.rank >= 1 && op->axis >= 0 && op->axis < a.rank) {
			/* a reduction drops the axis */
			for (int d = op->axis; d + 1 < a.rank; d++)
				want.shape[d] = a.shape[d + 1];
			want.rank = (uint8_t)(a.rank - 1);
		}
		if (!ir_same_shape(a, a0) || !ir_type_eq(want, res(v, op, i)))
			fail(v, op, "input %d %s: the inputs must have one shape and the results their types", i, tstr(v, a));
	}
	const ir_region *r = &op->regions[0];
	if (r->nparams != 2 * k) {
		fail(v, op, "the combine region takes %d parameters, not %d", r->nparams, 2 * k);
		return;
	}
	for (int i = 0; i < 2 * k; i++)
		if (!ir_type_eq(vtype(v, r->params[i]), ir_elem(arg(v, op, i % k))))
			fail(v, op, "combine parameter %d is %s, not the element type of input %d", i,
			     tstr(v, vtype(v, r->params[i])), i % k);
	walk_region(v, r, op);
	const ir_op *y = r->nops ? r->ops[r->nops - 1] : NULL;
	if (!y || y->code != IR_OP_YIELD || y->nargs != k) {
		fail(v, op, "the combine region must end with a yield of %d values", k);
		return;
	}
	for (int i = 0; i < k; i++)
		if (!ir_type_eq(vtype(v, y->args[i]), ir_elem(arg(v, op, i))))
			fail(v, op, "the combine region yields %s for input %d of %s", tstr(v, vtype(v, y->args[i])), i,
			     tstr(v, arg(v, op, i)));
	for (int i = 0; i < r->nops; i++)
		for (int j = 0; j < r->ops[i]->nresults; j++)
			if (vtype(v, r->ops[i]->results[j]).rank)
				fail(v, r->ops[i], "a block in a scan's combine region");
}

static void check_dot(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 3, false, 1, 0))
		return;
	ir_type a = arg(v, op, 0), b = arg(v, op, 1), c = arg(v, op, 2);
	int r = a.rank; /* 3-D: a batch along dim 0 */
	if ((r != 2 && r != 3) || b.rank != r || c.rank != r || a.shape[r - 1] != b.shape[r - 2] ||
	    a.shape[r - 2] != c.shape[r - 2] || b.shape[r - 1] != c.shape[r - 1] ||
	    (r == 3 && (a.shape[0] != b.shape[0] || a.shape[0] != c.shape[0])))
		fail(v, op, "shapes %s x %s + %s do not chain", tstr(v, a), tstr(v, b), tstr(v, c));
	bool fp8 = ir_kind_is_fp8((ir_kind)a.kind) && ir_kind_is_fp8((ir_kind)b.kind);
	if ((a.kind != b.kind && !fp8) ||
	    !(a.kind == IR_F16 || a.kind == IR_BF16 || a.kind == IR_F32 || a.kind == IR_F64 || a.kind == IR_I8 || fp8))
		fail(v, op, "operand types %s and %s are not fp16, bf16, fp32, fp64, i8 or fp8 pairs", tstr(v, a), tstr(v, b));
	if (fp8 && c.kind != IR_F32)
		fail(v, op, "accumulator %s of an fp8 dot is not fp32", tstr(v, c));
	/* fp64 operands accumulate in fp64 (as Triton's), the others not */
	bool ok = a.kind == IR_I8 ? c.kind == IR_I32
		  : a.kind == IR_F64 ? c.kind == IR_F64 : ir_kind_is_float((ir_kind)c.kind) && c.kind != IR_F64;
	if (!ok)
		fail(v, op, "accumulator %s does not fit operands %s", tstr(v, c), tstr(v, a));
	same_as_arg(v, op, 2);
	if (op->sub < IR_PRECISION_TF32 || op->sub > IR_PRECISION_IEEE)
		fail(v, op, "unknown precision %d", op->sub);
}

static void check_hint(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 1, false, 1, 0))
		return;
	same_as_arg(v, op, 0);
	ir_type a = arg(v, op, 0);
	if (op->sub < IR_HINT_MULTIPLE_OF || op->sub > IR_HINT_MAX_CONSTANCY)
		fail(v, op, "unknown hint %d", op->sub);
	for (int i = 0; i < (a.rank ? a.rank : 1); i++)
		if (op->ints[i] < 1)
			fail(v, op, "hint value %d is not positive", (int)op->ints[i]);
}

static void check_assume(verifier *v, const ir_op *op)
{
	if (arity(v, op, 1, false, 0, 0) && !is_i1_scalar(arg(v, op, 0)))
		fail(v, op, "condition %s is not a scalar i1", tstr(v, arg(v, op, 0)));
}

static void walk_region(verifier *v, const ir_region *r, const ir_op *parent);

/* The region's parameters must have the listed types. */
static void region_params(verifier *v, const ir_op *op, const ir_region *r, const char *which, int n,
			  const ir_type *types)
{
	if (r->nparams != n) {
		fail(v, op, "%s region has %d parameter(s), expects %d", which, r->nparams, n);
		return;
	}
	for (int i = 0; i < n; i++)
		if (r->params[i] >= 0 && r->params[i] < v->f->nvalues && !ir_type_eq(vtype(v, r->params[i]), types[i]))
			fail(v, op, "%s region parameter %d is %s, expects %s", which, i, tstr(v, vtype(v, r->params[i])),
			     tstr(v, types[i]));
}

/* The region's terminator: `code` with operands of the listed types (after
 * `skip` leading operands). */
static void terminator(verifier *v, const ir_op *op, const ir_region *r, const char *which, ir_opcode code,
		       int skip, int n, const ir_type *types)
{
	const ir_op *t = r->nops ? r->ops[r->nops - 1] : NULL;
	if (!t || t->code != code) {
		fail(v, op, "%s region does not end with '%s'", which, ir_opcode_name(code));
		return;
	}
	if (t->nargs != skip + n) {
		fail(v, op, "%s region's '%s' has %d value(s), expects %d", which, ir_opcode_name(code), t->nargs - skip, n);
		return;
	}
	for (int i = 0; i < n; i++) {
		int id = t->args[skip + i];
		if (id >= 0 && id < v->f->nvalues && !ir_type_eq(vtype(v, id), types[i]))
			fail(v, op, "%s region yields %s as value %d, expects %s", which, tstr(v, vtype(v, id)), i,
			     tstr(v, types[i]));
	}
}

static ir_type *types_of(verifier *v, const int *ids, int n)
{
	ir_type *t = arena_alloc(v->f->arena, sizeof(ir_type) * (size_t)(n + 1));
	for (int i = 0; t && i < n; i++)
		t[i] = ids[i] >= 0 && ids[i] < v->f->nvalues ? vtype(v, ids[i]) : ir_scalar(IR_VOID);
	return t;
}

static void check_for(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 3, true, op->nargs - 3, 1))
		return;
	ir_type lb = arg(v, op, 0);
	if (!is_int_scalar(lb) || !ir_type_eq(lb, arg(v, op, 1)) || !ir_type_eq(lb, arg(v, op, 2)))
		fail(v, op, "bounds %s, %s, %s are not one integer scalar type", tstr(v, lb), tstr(v, arg(v, op, 1)),
		     tstr(v, arg(v, op, 2)));
	int n = op->nargs - 3;
	ir_type *types = types_of(v, op->args + 2, n + 1); /* types[0] is overwritten by the iv */
	if (!types)
		return;
	types[0] = lb;
	for (int i = 0; i < n; i++)
		if (!ir_type_eq(res(v, op, i), types[i + 1]))
			fail(v, op, "result %d is %s, carried value is %s", i, tstr(v, res(v, op, i)), tstr(v, types[i + 1]));
	region_params(v, op, &op->regions[0], "body", n + 1, types);
	walk_region(v, &op->regions[0], op);
	terminator(v, op, &op->regions[0], "body", IR_OP_YIELD, 0, n, types + 1);
}

static void check_if(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 1, false, -1, 2))
		return;
	if (!is_i1_scalar(arg(v, op, 0)))
		fail(v, op, "condition %s is not a scalar i1", tstr(v, arg(v, op, 0)));
	ir_type *types = types_of(v, op->results, op->nresults);
	if (!types)
		return;
	static const char *const names[2] = {"then", "else"};
	for (int i = 0; i < 2; i++) {
		region_params(v, op, &op->regions[i], names[i], 0, NULL);
		walk_region(v, &op->regions[i], op);
		terminator(v, op, &op->regions[i], names[i], IR_OP_YIELD, 0, op->nresults, types);
	}
}

static void check_while(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 0, true, -1, 2))
		return;
	ir_type *inits = types_of(v, op->args, op->nargs);
	ir_type *results = types_of(v, op->results, op->nresults);
	if (!inits || !results)
		return;
	const ir_region *before = &op->regions[0], *after = &op->regions[1];
	region_params(v, op, before, "before", op->nargs, inits);
	walk_region(v, before, op);
	terminator(v, op, before, "before", IR_OP_CONDITION, 1, op->nresults, results);
	const ir_op *c = before->nops ? before->ops[before->nops - 1] : NULL;
	if (c && c->code == IR_OP_CONDITION && c->nargs >= 1 && c->args[0] >= 0 && c->args[0] < v->f->nvalues &&
	    !is_i1_scalar(vtype(v, c->args[0])))
		fail(v, op, "condition %s is not a scalar i1", tstr(v, vtype(v, c->args[0])));
	region_params(v, op, after, "after", op->nresults, results);
	walk_region(v, after, op);
	terminator(v, op, after, "after", IR_OP_YIELD, 0, op->nargs, inits);
}

/* A ring operand and its slot index: the tile type the ring holds. */
static ir_type ring_tile(verifier *v, const ir_op *op)
{
	ir_type m = arg(v, op, 0), i = arg(v, op, 1);
	if (m.kind != IR_SMEM)
		fail(v, op, "operand 0 %s is not a shared-memory ring", tstr(v, m));
	if (!is_int_scalar(i))
		fail(v, op, "slot %s is not an integer scalar", tstr(v, i));
	return ir_block(ir_scalar((ir_kind)m.pointee), 2, m.shape + 1);
}

static void check_async_copy(verifier *v, const ir_op *op)
{
	bool has_mask = op->flags & IR_FLAG_HAS_MASK;
	if (op->flags & IR_FLAG_HAS_OTHER)
		fail(v, op, "'other' on an asynchronous copy (masked-off elements are zero)");
	if (!arity(v, op, 3 + has_mask, false, 0, 0))
		return;
	ir_type tile = ring_tile(v, op), p = arg(v, op, 2);
	if (p.kind != IR_PTR || p.pointee != tile.kind || !ir_same_shape(p, tile))
		fail(v, op, "copying through %s into tiles %s", tstr(v, p), tstr(v, tile));
	if (has_mask)
		check_mask(v, op, 3, p);
}

static bool is_tma_ring(verifier *v, int ring)
{
	const ir_op *d = v->f->values[ring].def;
	return d && d->code == IR_OP_LOCAL_ALLOC && d->flags & IR_FLAG_TENSORMAP;
}

static void check_tma(verifier *v, const ir_op *op)
{
	bool copy = op->code == IR_OP_TMA_COPY;
	if (!arity(v, op, copy ? 5 : 3, false, 0, 0))
		return;
	ir_type tile = ring_tile(v, op), x = arg(v, op, 2);
	if (!is_tma_ring(v, op->args[0]))
		fail(v, op, "the ring is not one TMA fills");
	if (copy && !ir_type_eq(x, ir_scalar(IR_I1)))
		fail(v, op, "the predicate is %s, not an i1 scalar", tstr(v, x));
	if (!copy && !ir_type_eq(x, ir_scalar(IR_I32)))
		fail(v, op, "the phase is %s, not an i32 scalar", tstr(v, x));
	if (copy)
		check_map(v, op, 3, tile);
}

static void check_local_load(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 2, false, 1, 0))
		return;
	ir_type tile = ring_tile(v, op);
	if (!ir_type_eq(res(v, op, 0), tile))
		fail(v, op, "result %s is not the ring's tile %s", tstr(v, res(v, op, 0)), tstr(v, tile));
}

/* JOIN, SPLIT, FLIP, CAT: shapes as the ops move elements. */
static void check_shape_op(verifier *v, const ir_op *op)
{
	int nargs = op->code == IR_OP_JOIN || op->code == IR_OP_CAT ? 2 : 1;
	if (!arity(v, op, nargs, false, op->code == IR_OP_SPLIT ? 2 : 1, 0))
		return;
	ir_type a = arg(v, op, 0), r = res(v, op, 0), want = a;
	if (a.rank < 1 || a.kind == IR_SMEM) {
		fail(v, op, "operand %s is not a block", tstr(v, a));
		return;
	}
	switch (op->code) {
	case IR_OP_JOIN:
		if (!ir_type_eq(arg(v, op, 1), a) || a.rank >= IR_MAX_RANK)
			fail(v, op, "joins %s and %s", tstr(v, a), tstr(v, arg(v, op, 1)));
		if (a.rank < IR_MAX_RANK)
			want.shape[want.rank++] = 2;
		break;
	case IR_OP_SPLIT:
		if (a.shape[a.rank - 1] != 2)
			fail(v, op, "splits %s, whose last dim is not 2", tstr(v, a));
		want.rank--;
		if (!ir_type_eq(res(v, op, 1), want))
			fail(v, op, "result 1 %s is not %s without its last dim", tstr(v, res(v, op, 1)), tstr(v, a));
		break;
	case IR_OP_FLIP:
		if (op->axis < 0 || op->axis >= a.rank)
			fail(v, op, "flip axis %d of %s", op->axis, tstr(v, a));
		else if (op->ival < 0 || op->ival >= a.shape[op->axis] || (a.shape[op->axis] & (a.shape[op->axis] - 1)))
			fail(v, op, "flip mask %lld along a dim of %d", (long long)op->ival, (int)a.shape[op->axis]);
		break;
	default: {
		ir_type b = arg(v, op, 1);
		if (a.rank != 1 || b.rank != 1 || b.kind != a.kind || (a.kind == IR_PTR && a.pointee != b.pointee))
			fail(v, op, "concatenates %s and %s", tstr(v, a), tstr(v, b));
		want.shape[0] = a.shape[0] + b.shape[0];
		break;
	}
	}
	if (!ir_type_eq(r, want))
		fail(v, op, "result %s, expected %s", tstr(v, r), tstr(v, want));
}

static void check_gather(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 2, false, 1, 0))
		return;
	ir_type src = arg(v, op, 0), idx = arg(v, op, 1), r = res(v, op, 0);
	bool ok = src.rank >= 1 && idx.rank == src.rank && op->axis >= 0 && op->axis < src.rank &&
		  ir_kind_is_int((ir_kind)idx.kind) && src.kind != IR_SMEM;
	for (int d = 0; ok && d < src.rank; d++)
		ok = d == op->axis || idx.shape[d] == src.shape[d];
	if (!ok)
		fail(v, op, "gathers %s with index %s along axis %d", tstr(v, src), tstr(v, idx), op->axis);
	else if (!ir_same_shape(r, idx) || !ir_type_eq(ir_elem(r), ir_elem(src)))
		fail(v, op, "result %s: expected the index's shape with the source's elements", tstr(v, r));
}

static void check_device_debug(verifier *v, const ir_op *op)
{
	if (!arity(v, op, op->code == IR_OP_DEVICE_ASSERT ? 1 : 0, op->code == IR_OP_DEVICE_PRINT, 0, 0))
		return;
	if (!op->name)
		fail(v, op, "no message");
	if (op->code == IR_OP_DEVICE_ASSERT && arg(v, op, 0).kind != IR_I1)
		fail(v, op, "condition %s is not i1", tstr(v, arg(v, op, 0)));
	for (int i = 1; op->code == IR_OP_DEVICE_PRINT && i < op->nargs; i++)
		if (arg(v, op, i).rank && !ir_same_shape(arg(v, op, i), arg(v, op, 0)))
			fail(v, op, "printed values of shapes %s and %s", tstr(v, arg(v, op, 0)), tstr(v, arg(v, op, i)));
}

static void check_inline_asm(verifier *v, const ir_op *op)
{
	if (!arity(v, op, 0, true, -1, 0))
		return;
	if (!op->name || !op->text || op->nresults < 1 || op->ival < 1)
		fail(v, op, "inline asm without text, constraints, results or pack");
	ir_type s = op->nresults ? res(v, op, 0) : ir_scalar(IR_VOID);
	for (int i = 0; i < op->nargs; i++)
		if (!ir_same_shape(arg(v, op, i), s))
			fail(v, op, "operand %d %s is not of the results' shape %s", i, tstr(v, arg(v, op, i)), tstr(v, s));
	for (int i = 1; i < op->nresults; i++)
		if (!ir_same_shape(res(v, op, i), s))
			fail(v, op, "results of shapes %s and %s", tstr(v, s), tstr(v, res(v, op, i)));
}

static void check_histogram(verifier *v, const ir_op *op)
{
	bool has_mask = (op->flags & IR_FLAG_HAS_MASK) != 0;
	if (!arity(v, op, has_mask ? 2 : 1, false, 1, 0))
		return;
	ir_type x = arg(v, op, 0), r = res(v, op, 0);
	if (x.rank != 1 || !ir_kind_is_int((ir_kind)x.kind))
		fail(v, op, "histogram of %s: needs a 1-D integer block", tstr(v, x));
	if (has_mask && (arg(v, op, 1).kind != IR_I1 || !ir_same_shape(arg(v, op, 1), x)))
		fail(v, op, "histogram mask %s", tstr(v, arg(v, op, 1)));
	if (r.kind != IR_I32 || r.rank != 1 || r.shape[0] != op->ival)
		fail(v, op, "histogram of %lld bins yields %s", (long long)op->ival, tstr(v, r));
}

/* Per-opcode rule for ops without regions. */
static void check_simple(verifier *v, const ir_op *op)
{
	switch (op->code) {
	case IR_OP_CONST: check_const(v, op); break;
	case IR_OP_PROGRAM_ID:
	case IR_OP_NUM_PROGRAMS: check_program_id(v, op); break;
	case IR_OP_CTA_RANK:
		if (arity(v, op, 0, false, 1, 0) && !ir_type_eq(res(v, op, 0), ir_scalar(IR_I32)))
			fail(v, op, "result must be i32, is %s", tstr(v, res(v, op, 0)));
		break;
	case IR_OP_ARANGE: check_arange(v, op); break;
	case IR_OP_SPLAT: check_splat(v, op); break;
	case IR_OP_BROADCAST: check_broadcast(v, op); break;
	case IR_OP_EXPAND_DIMS: check_expand_dims(v, op); break;
	case IR_OP_RESHAPE: check_reshape(v, op); break;
	case IR_OP_PERMUTE: check_permute(v, op); break;
	case IR_OP_JOIN: case IR_OP_SPLIT: case IR_OP_FLIP: case IR_OP_CAT: check_shape_op(v, op); break;
	case IR_OP_GATHER: check_gather(v, op); break;
	case IR_OP_HISTOGRAM: check_histogram(v, op); break;
	case IR_OP_DEVICE_ASSERT: case IR_OP_DEVICE_PRINT: check_device_debug(v, op); break;
	case IR_OP_INLINE_ASM: check_inline_asm(v, op); break;
	case IR_OP_CAST: check_cast(v, op); break;
	case IR_OP_BITCAST: check_bitcast(v, op); break;
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_REM:
	case IR_OP_MIN: case IR_OP_MAX:
		elementwise(v, op, 2, false, false);
		break;
	case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR: case IR_OP_SHL: case IR_OP_SHR:
		elementwise(v, op, 2, true, false);
		break;
	case IR_OP_NEG: elementwise(v, op, 1, false, false); break;
	case IR_OP_NOT: elementwise(v, op, 1, true, false); break;
	case IR_OP_CMP: check_cmp(v, op); break;
	case IR_OP_SELECT: check_select(v, op); break;
	case IR_OP_MATH: check_math(v, op); break;
	case IR_OP_FMA: elementwise(v, op, 3, false, true); break;
	case IR_OP_EXTERN: check_extern(v, op); break;
	case IR_OP_PTR_ADD: check_ptr_add(v, op); break;
	case IR_OP_LOAD: check_load(v, op); break;
	case IR_OP_STORE: check_store(v, op); break;
	case IR_OP_REDUCE: check_reduce(v, op); break;
	case IR_OP_DOT: check_dot(v, op); break;
	case IR_OP_HINT: check_hint(v, op); break;
	case IR_OP_ASSUME: check_assume(v, op); break;
	case IR_OP_BARRIER: arity(v, op, 0, false, 0, 0); break;
	case IR_OP_GRID_DEP:
		if (arity(v, op, 0, false, 0, 0) && (op->sub < 0 || op->sub > 1))
			fail(v, op, "grid_dep %d is neither wait (0) nor launch_dependents (1)", op->sub);
		break;
	case IR_OP_LOCAL_ALLOC:
		if (arity(v, op, 0, false, 1, 0) && res(v, op, 0).kind != IR_SMEM)
			fail(v, op, "result %s is not a shared-memory ring", tstr(v, res(v, op, 0)));
		break;
	case IR_OP_LOCAL_DEALLOC:
		if (arity(v, op, 1, false, 0, 0) && arg(v, op, 0).kind != IR_SMEM)
			fail(v, op, "operand %s is not a shared-memory ring", tstr(v, arg(v, op, 0)));
		break;
	case IR_OP_ASYNC_COPY: check_async_copy(v, op); break;
	case IR_OP_ASYNC_COMMIT: arity(v, op, 0, false, 0, 0); break;
	case IR_OP_ASYNC_WAIT:
		if (arity(v, op, 0, false, 0, 0) && op->ival < 0)
			fail(v, op, "negative number of pending groups %lld", (long long)op->ival);
		break;
	case IR_OP_LOCAL_LOAD: check_local_load(v, op); break;
	case IR_OP_TMA_COPY: case IR_OP_TMA_WAIT: check_tma(v, op); break;
	case IR_OP_ATOMIC_RMW: case IR_OP_ATOMIC_CAS: check_atomic(v, op); break;
	default: break;
	}
}

/* Operand ids in range and visible; result ids fresh, well-typed and
 * pointing back at their op. Returns false when ids are unusable. */
static bool check_ids(verifier *v, const ir_op *op)
{
	bool ok = true;
	for (int i = 0; i < op->nargs; i++) {
		int id = op->args[i];
		if (id < 0 || id >= v->f->nvalues) {
			fail(v, op, "operand %d: no value %%%d", i, id);
			ok = false;
		} else if (!v->visible[id]) {
			fail(v, op, "operand %d: %%%d is used where it is not defined", i, id);
		}
	}
	for (int i = 0; i < op->nresults; i++) {
		int id = op->results[i];
		if (id < 0 || id >= v->f->nvalues) {
			fail(v, op, "result %d: no value %%%d", i, id);
			ok = false;
		} else if (v->f->values[id].def != op || v->f->values[id].def_index != i) {
			fail(v, op, "result %d: %%%d is not defined by this op", i, id);
		} else if (!type_ok(vtype(v, id))) {
			fail(v, op, "result %d: %%%d has an invalid type %s (shapes must be powers of two)", i, id,
			     tstr(v, vtype(v, id)));
			ok = false;
		}
	}
	return ok;
}

static void define(verifier *v, const ir_op *op, int id)
{
	if (v->defined[id])
		fail(v, op, "%%%d is defined twice", id);
	v->defined[id] = 1;
	v->visible[id] = 1;
}

static void check_op(verifier *v, const ir_op *op, const ir_region *r, int index, const ir_op *parent)
{
	if (op->code >= IR_OP_COUNT) {
		fail(v, NULL, "unknown opcode %d", (int)op->code);
		return;
	}
	if (!check_ids(v, op))
		return;
	/* the producer warp's program (passes/partition.c): its loop, its
	 * copies and scalars */
	if (op->flags & IR_FLAG_PRODUCER &&
	    !(op->code == IR_OP_FOR ? op->flags & IR_FLAG_WARP_SPECIALIZE
				    : op->code == IR_OP_TMA_COPY ||
					      (op->nresults == 1 && !op->nregions && v->f->values[op->results[0]].type.rank == 0)))
		fail(v, op, "marked as the producer's but not a warp_specialize loop, a TMA copy or a scalar op");
	bool last = index == r->nops - 1;
	switch (op->code) {
	case IR_OP_YIELD:
		if (!last || !parent || (parent->code == IR_OP_WHILE && r == &parent->regions[0]))
			fail(v, op, "not the terminator of a for, if or while-after region");
		else if (!arity(v, op, 0, true, 0, 0))
			return;
		break;
	case IR_OP_CONDITION:
		if (!last || !parent || parent->code != IR_OP_WHILE || r != &parent->regions[0])
			fail(v, op, "not the terminator of a while-before region");
		else
			arity(v, op, 1, true, 0, 0);
		break;
	case IR_OP_FOR: check_for(v, op); break;
	case IR_OP_IF: check_if(v, op); break;
	case IR_OP_WHILE: check_while(v, op); break;
	case IR_OP_SCAN:
	case IR_OP_REDUCE_FN: check_scan(v, op); break;
	default: check_simple(v, op); break;
	}
	for (int i = 0; i < op->nresults; i++)
		define(v, op, op->results[i]);
}

/* Walks a region; values it defines are hidden again on exit. */
static void walk_region(verifier *v, const ir_region *r, const ir_op *parent)
{
	for (int i = 0; i < r->nparams; i++) {
		int id = r->params[i];
		if (id < 0 || id >= v->f->nvalues) {
			fail(v, parent, "region parameter %d: no value %%%d", i, id);
			continue;
		}
		if (v->f->values[id].def)
			fail(v, parent, "region parameter %%%d is also an op result", id);
		if (!type_ok(vtype(v, id)))
			fail(v, parent, "region parameter %%%d has an invalid type %s", id, tstr(v, vtype(v, id)));
		define(v, parent, id);
	}
	for (int i = 0; i < r->nops; i++) {
		const ir_op *op = r->ops[i];
		if (!op) {
			fail(v, parent, "null op in a region");
			continue;
		}
		check_op(v, op, r, i, parent);
	}
	for (int i = 0; i < r->nparams; i++)
		if (r->params[i] >= 0 && r->params[i] < v->f->nvalues)
			v->visible[r->params[i]] = 0;
	for (int i = 0; i < r->nops; i++)
		for (int j = 0; r->ops[i] && j < r->ops[i]->nresults; j++)
			if (r->ops[i]->results[j] >= 0 && r->ops[i]->results[j] < v->f->nvalues)
				v->visible[r->ops[i]->results[j]] = 0;
}

tilec_status ir_verify(tilec_ctx *ctx, const ir_func *f)
{
	if (!ctx || !f)
		return TILEC_ERR_INVALID;
	verifier v = {ctx, f, NULL, NULL, 0};
	size_t n = (size_t)f->nvalues + 1;
	v.visible = calloc(n, 1);
	v.defined = calloc(n, 1);
	if (!v.visible || !v.defined) {
		free(v.visible);
		free(v.defined);
		return TILEC_ERR_NOMEM;
	}
	for (int i = 0; i < f->nparams && i < f->nvalues; i++) {
		ir_type t = f->params[i].type;
		if (!type_ok(t) || t.rank != 0 || !ir_type_eq(t, f->values[i].type) || f->values[i].def)
			fail(&v, NULL, "parameter %d ('%s') has an invalid type %s", i, f->params[i].name ? f->params[i].name : "?",
			     tstr(&v, t));
		v.visible[i] = v.defined[i] = 1;
	}
	if (f->nparams > f->nvalues)
		fail(&v, NULL, "%d parameters but only %d values", f->nparams, f->nvalues);
	if (f->num_ctas < 1 || f->num_ctas > 8 || (f->num_ctas & (f->num_ctas - 1)))
		fail(&v, NULL, "num_ctas=%d is not 1, 2, 4 or 8", f->num_ctas);
	if (f->maxnreg && (f->maxnreg < IR_MAXNREG_MIN || f->maxnreg > IR_MAXNREG_MAX))
		fail(&v, NULL, "maxnreg=%d is outside %d..%d", f->maxnreg, IR_MAXNREG_MIN, IR_MAXNREG_MAX);
	/* The body belongs to no op: walk it with no parent so terminators are refused. */
	for (int i = 0; i < f->body.nops; i++) {
		if (!f->body.ops[i])
			fail(&v, NULL, "null op in the body");
		else
			check_op(&v, f->body.ops[i], &f->body, i, NULL);
	}
	free(v.visible);
	free(v.defined);
	return v.errors ? TILEC_ERR_SEMANTIC : TILEC_OK;
}
