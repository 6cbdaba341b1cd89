/* sema_random.c - tl.rand, tl.randn, tl.randint, tl.randint4x, tl.rand4x,
 * tl.randn4x, tl.philox, tl.philox_impl, tl.uint_to_uniform_float,
 * tl.pair_uniform_to_normal and tl.umulhi.
 *
 * Triton writes its random numbers in its own language (random.py); these
 * handlers expand them step for step into the same operations, through
 * the same promotion code a kernel's own expressions take (sema_binop,
 * the tl.* builtins), so the bits are Triton's: Philox 4x32 (a 64-bit
 * offset as its low and high words; 4x64 through tl.philox on 64-bit
 * counters) with n_rounds rounds (default 10), the seed cast to
 * uint64 and split into hi/lo words, `umulhi` as libdevice's
 * __nv_umulhi/__nv_umul64hi, uint_to_uniform_float's sign fold and scale,
 * and Box-Muller with tl.log, tl.sqrt, tl.cos and tl.sin lowered as those
 * builtins are.
 */
#include "front/sema.h"

#include <string.h>

#define N_ROUNDS_DEFAULT 10

typedef struct rng {
	sema *s;
	src_loc loc;
	const char *name;
	bool ok;
} rng;

static sv bad(void)
{
	sv v;
	memset(&v, 0, sizeof v);
	v.kind = SV_UNDEF;
	return v;
}

static sv bin(rng *g, ast_op op, sv a, sv b)
{
	sv r;
	if (!g->ok || !sema_binop(g->s, g->loc, op, a, b, &r)) {
		g->ok = false;
		return bad();
	}
	return r;
}

static sv call1(rng *g, const char *fn, int n, sv a, sv b, sv c)
{
	sv args[3] = {a, b, c}, r;
	if (!g->ok || !sema_builtin(g->s, g->loc, fn, n, args, &r)) {
		g->ok = false;
		return bad();
	}
	return r;
}

static sv tensor_of(rng *g, sv v)
{
	if (!g->ok)
		return bad();
	int id = sema_to_tensor(g->s, g->loc, v);
	if (id < 0) {
		g->ok = false;
		return bad();
	}
	return sema_tensor(id);
}

static sv conv(rng *g, sv v, ir_kind k, bool bitcast)
{
	if (!g->ok)
		return bad();
	v = tensor_of(g, v);
	if (!g->ok)
		return bad();
	int id = bitcast ? sema_bitcast(g->s, g->loc, v.id, ir_scalar(k)) : sema_cast(g->s, g->loc, v.id, ir_scalar(k));
	if (id < 0) {
		g->ok = false;
		return bad();
	}
	return sema_tensor(id);
}

static ir_kind kind_of(rng *g, sv v)
{
	return g->ok && v.kind == SV_TENSOR ? (ir_kind)sema_type(g->s, v.id).kind : IR_VOID;
}

static bool fail(rng *g, const char *fmt, const char *arg)
{
	if (g->ok)
		sema_error(g->s, g->loc, TILEC_ERR_SEMANTIC, fmt, g->name, arg);
	g->ok = false;
	return false;
}

static bool out_tuple(rng *g, int n, const sv *items, sv *out)
{
	if (!g->ok)
		return false;
	memset(out, 0, sizeof *out);
	out->kind = SV_TUPLE;
	out->n = n;
	out->items = arena_alloc(g->s->a, sizeof(sv) * (size_t)n);
	if (!out->items)
		return sema_error(g->s, g->loc, TILEC_ERR_NOMEM, "out of memory");
	memcpy(out->items, items, sizeof(sv) * (size_t)n);
	return true;
}

/* math.umulhi(x, y): both to tensors, Triton's binary promotion, then
 * the high half of the unsigned product (MulhiUIOp, libdevice umulhi). */
static sv umulhi(rng *g, sv x, sv y)
{
	x = tensor_of(g, x);
	y = tensor_of(g, y);
	if (!g->ok)
		return bad();
	int a, b;
	if (!sema_typecheck(g->s, g->loc, "umulhi", x, y, false, false, true, false, &a, &b)) {
		g->ok = false;
		return bad();
	}
	ir_type t = sema_type(g->s, a);
	if (t.kind != IR_I32 && t.kind != IR_U32 && t.kind != IR_I64 && t.kind != IR_U64) {
		fail(g, "`%s` expects int32, int64, uint32 or uint64, got %s", ir_kind_name((ir_kind)t.kind));
		return bad();
	}
	int args[2] = {a, b};
	ir_op *op = sema_emit(g->s, g->loc, IR_OP_EXTERN, 2, args, t);
	if (!op) {
		g->ok = false;
		return bad();
	}
	op->name = ir_kind_bits((ir_kind)t.kind) == 64 ? "__nv_umul64hi" : "__nv_umulhi";
	return sema_tensor(op->results[0]);
}

static sv u64_const(rng *g, uint64_t v)
{
	if (!g->ok)
		return bad();
	int id = sema_const(g->s, g->loc, ir_scalar(IR_U64), (int64_t)v, 0.0);
	if (id < 0)
		g->ok = false;
	return id < 0 ? bad() : sema_tensor(id);
}

/* philox_impl(c0, c1, c2, c3, k0, k1, n_rounds) */
static bool philox_impl(rng *g, sv c[4], sv k0, sv k1, int64_t rounds)
{
	sv ka, kb, ra, rb;
	ir_kind k = kind_of(g, c[0]);
	if (k == IR_U32) {
		ka = sema_int(0x9E3779B9);
		kb = sema_int(0xBB67AE85);
		ra = sema_int(0xD2511F53);
		rb = sema_int(0xCD9E8D57);
	} else if (k == IR_U64) {
		/* beyond int64: typed constants instead of Python literals */
		ka = u64_const(g, UINT64_C(0x9E3779B97F4A7C15));
		kb = u64_const(g, UINT64_C(0xBB67AE8584CAA73B));
		ra = u64_const(g, UINT64_C(0xD2E7470EE14C6C93));
		rb = u64_const(g, UINT64_C(0xCA5A826395121157));
	} else {
		return fail(g, "`%s`: dtype not supported in philox_impl (the counters must be uint32 or uint64, got %s)",
			    c[0].kind == SV_TENSOR ? ir_kind_name(k) : sema_sv_str(g->s, c[0]));
	}
	for (int64_t i = 0; i < rounds && g->ok; i++) {
		sv c0 = c[0], c2 = c[2];
		c[0] = bin(g, AST_OP_BITXOR, bin(g, AST_OP_BITXOR, umulhi(g, rb, c2), c[1]), k0);
		c[2] = bin(g, AST_OP_BITXOR, bin(g, AST_OP_BITXOR, umulhi(g, ra, c0), c[3]), k1);
		c[1] = bin(g, AST_OP_MUL, rb, c2);
		c[3] = bin(g, AST_OP_MUL, ra, c0);
		k0 = bin(g, AST_OP_ADD, k0, ka);
		k1 = bin(g, AST_OP_ADD, k1, kb);
	}
	return g->ok;
}

/* philox(seed, c0, c1, c2, c3, n_rounds) */
static bool philox(rng *g, sv seed, sv c[4], int64_t rounds)
{
	seed = tensor_of(g, seed);
	for (int i = 0; i < 4; i++)
		c[i] = tensor_of(g, c[i]);
	seed = conv(g, seed, IR_U64, false);
	if (!g->ok)
		return false;
	int bits = ir_kind_bits(kind_of(g, c[0]));
	sv hi, lo;
	ir_kind ik;
	if (bits == 32) {
		ik = IR_U32;
		hi = conv(g, bin(g, AST_OP_BITAND, bin(g, AST_OP_RSHIFT, seed, sema_int(32)), sema_int(0xffffffff)), IR_U32, false);
		lo = conv(g, bin(g, AST_OP_BITAND, seed, sema_int(0xffffffff)), IR_U32, false);
	} else if (bits == 64) {
		ik = IR_U64;
		int32_t one = 1;
		int id = sema_const(g->s, g->loc, ir_block(ir_scalar(IR_U64), 1, &one), 0, 0.0);
		if (id < 0)
			return g->ok = false;
		hi = sema_tensor(id);
		lo = seed;
	} else {
		return fail(g, "`%s`: bitwidth not supported in philox (offsets of type %s; use 32- or 64-bit integers)",
			    ir_kind_name(kind_of(g, c[0])));
	}
	for (int i = 0; i < 4; i++)
		c[i] = conv(g, c[i], ik, true);
	return philox_impl(g, c, lo, hi, rounds);
}

/* A 64-bit offset is two 32-bit counters, low word then high word, as
 * in Triton 3.6 (Philox 4x32 either way; 4x64 is philox() on 64-bit
 * counters only). */
static bool randint4x(rng *g, sv seed, sv offset, int64_t rounds, sv c[4])
{
	offset = tensor_of(g, offset);
	if (!g->ok)
		return false;
	bool wide = ir_kind_bits(kind_of(g, offset)) > 32;
	sv lo = conv(g, offset, IR_U32, false);
	sv zero = bin(g, AST_OP_MUL, lo, sema_int(0));
	c[0] = lo;
	c[1] = wide ? conv(g, bin(g, AST_OP_RSHIFT, offset, sema_int(32)), IR_U32, false) : zero;
	c[2] = c[3] = zero;
	return g->ok && philox(g, seed, c, rounds);
}

static sv uint_to_uniform_float(rng *g, sv x)
{
	ir_kind k = kind_of(g, x);
	double scale;
	if (k == IR_U32 || k == IR_I32) {
		x = conv(g, x, IR_I32, true);
		scale = 4.6566127342e-10;
	} else if (k == IR_U64 || k == IR_I64) {
		x = conv(g, x, IR_I64, true);
		scale = 1.0842020432385337e-19;
	} else {
		if (g->ok)
			fail(g, "`%s` expects int32, uint32, int64 or uint64 integers, got %s",
			     x.kind == SV_TENSOR ? ir_kind_name(k) : sema_sv_str(g->s, x));
		return bad();
	}
	sv neg;
	if (!g->ok || !sema_unop(g->s, g->loc, AST_OP_NEG, x, &neg)) {
		g->ok = false;
		return bad();
	}
	sv folded = bin(g, AST_OP_SUB, neg, sema_int(1));
	x = call1(g, "tl.where", 3, bin(g, AST_OP_LT, x, sema_int(0)), folded, x);
	return bin(g, AST_OP_MUL, x, sema_float(scale));
}

static void pair_uniform_to_normal(rng *g, sv u1, sv u2, sv out[2])
{
	sv none = bad();
	u1 = call1(g, "tl.maximum", 2, sema_float(1.0e-7), u1, none);
	sv th = bin(g, AST_OP_MUL, sema_float(6.283185307179586), u2);
	sv r = call1(g, "tl.sqrt", 1, bin(g, AST_OP_MUL, sema_float(-2.0), call1(g, "tl.log", 1, u1, none, none)), none, none);
	out[0] = bin(g, AST_OP_MUL, r, call1(g, "tl.cos", 1, th, none, none));
	out[1] = bin(g, AST_OP_MUL, r, call1(g, "tl.sin", 1, th, none, none));
}

static bool rounds_of(rng *g, sv v, int64_t *out)
{
	*out = N_ROUNDS_DEFAULT;
	if (v.kind == SV_NONE)
		return true;
	if (v.kind != SV_INT)
		return fail(g, "`%s`: n_rounds must be a constexpr int, got %s", sema_sv_str(g->s, v));
	if (v.i < 0 || v.i > 4096)
		return fail(g, "`%s`: n_rounds must be between 0 and 4096, got %s", sema_sv_str(g->s, v));
	*out = v.i;
	return true;
}

bool sema_random(sema *s, src_loc loc, const char *name, int which, const sv *a, sv *out)
{
	rng g = {s, loc, name, true};
	sv c[4], n[4];
	int64_t rounds;
	memset(out, 0, sizeof *out);
	switch (which) {
	case SEMA_RANDOM_UMULHI:
		*out = umulhi(&g, a[0], a[1]);
		return g.ok;
	case SEMA_RANDOM_UNIFORM:
		*out = uint_to_uniform_float(&g, tensor_of(&g, a[0]));
		return g.ok;
	case SEMA_RANDOM_PAIR_NORMAL:
		pair_uniform_to_normal(&g, a[0], a[1], n);
		return out_tuple(&g, 2, n, out);
	case SEMA_RANDOM_PHILOX_IMPL:
		for (int i = 0; i < 4; i++)
			c[i] = a[i];
		if (!rounds_of(&g, a[6], &rounds) || !philox_impl(&g, c, a[4], a[5], rounds))
			return false;
		return out_tuple(&g, 4, c, out);
	case SEMA_RANDOM_PHILOX:
		for (int i = 0; i < 4; i++)
			c[i] = a[1 + i];
		if (!rounds_of(&g, a[5], &rounds) || !philox(&g, a[0], c, rounds))
			return false;
		return out_tuple(&g, 4, c, out);
	default:
		break;
	}
	/* (seed, offset, n_rounds) */
	if (!rounds_of(&g, a[2], &rounds) || !randint4x(&g, a[0], a[1], rounds, c))
		return false;
	switch (which) {
	case SEMA_RANDOM_RANDINT:
		*out = c[0];
		return true;
	case SEMA_RANDOM_RANDINT4X:
		return out_tuple(&g, 4, c, out);
	case SEMA_RANDOM_RAND:
		*out = uint_to_uniform_float(&g, c[0]);
		return g.ok;
	case SEMA_RANDOM_RAND4X:
		for (int i = 0; i < 4; i++)
			n[i] = uint_to_uniform_float(&g, c[i]);
		return out_tuple(&g, 4, n, out);
	case SEMA_RANDOM_RANDN:
		pair_uniform_to_normal(&g, uint_to_uniform_float(&g, c[0]), uint_to_uniform_float(&g, c[1]), n);
		*out = n[0];
		return g.ok;
	case SEMA_RANDOM_RANDN4X: {
		sv u[4];
		for (int i = 0; i < 4; i++)
			u[i] = uint_to_uniform_float(&g, c[i]);
		pair_uniform_to_normal(&g, u[0], u[1], n);
		pair_uniform_to_normal(&g, u[2], u[3], n + 2);
		return out_tuple(&g, 4, n, out);
	}
	default:
		return sema_error(s, loc, TILEC_ERR_INVALID, "internal: unknown random function %d", which);
	}
}
