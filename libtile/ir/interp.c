/* interp.c - the reference interpreter: runs a tile IR function on the CPU.
 *
 * Each value id owns a fixed array of slots (one per block element, row-
 * major), allocated once per run from the value's static type; an op simply
 * overwrites its results' slots, so loop bodies reuse their storage. A slot
 * holds an integer normalized to its kind's width (sign- or zero-extended),
 * a float as a double whose value is exactly representable in the kind
 * (fp16/bf16/fp32 results are rounded after every op, as the GPU computes
 * them in their own precision), or a pointer. Pointers are fake 64-bit
 * addresses: buffer b starts at (b + 1) << 40, so buffers are 16-byte (in
 * fact 2^40-byte) aligned and pointer arithmetic is plain integer
 * arithmetic; every access maps the address back to (buffer, offset) and
 * checks it lies wholly inside the buffer. Each op runs one loop over its
 * elements with the kind dispatch outside or at the top of the loop.
 *
 * Approximations: float division and exp are computed exactly (the GPU's
 * approximate instructions differ by a few ulp); fp32 math functions use
 * the C library's float versions and libdevice calls are computed in double
 * and rounded; tl.dot accumulates in fp32 in k order, with fp32 operands
 * truncated to tf32 (as the tensor cores read fp32) for the tf32 precision (tf32x3 and
 * ieee multiply the fp32 values themselves); float sums
 * reduce pairwise (the GPU's tree order differs by rounding only).
 *
 * Asynchronous copies into shared-memory rings (the pipelined form of a
 * loop) complete when they are issued; commits, waits and barriers have
 * nothing to wait for. A ring is its value's slots.
 *
 * A program passes/partition.c split (a top-level loop marked
 * IR_FLAG_PRODUCER) runs as its two sides do on the GPU, each over values
 * of its own and sharing the rings: the producer runs only the marked ops
 * (its copies and the scalars they read), the consumers everything but
 * those copies (a later loop's are theirs), and the loop's iterations of
 * the two interleave, the producer's iteration j before the consumers'
 * iteration j + lag. The producer may read only what it computed itself;
 * a copy may land only in a slot whose last copy the consumers waited
 * for, and a consumer's wait (TMA_WAIT) must find exactly one copy it has
 * not waited for, completing the phase it names. Any other order is a runtime error naming the slot,
 * so a run that ends compares the partition's results with the plain
 * program's.
 */
#include "ir/ir.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef interp_scalar slot;

#define ADDR_SHIFT 40
#define ADDR_MASK ((UINT64_C(1) << ADDR_SHIFT) - 1)

typedef struct interp {
	tilec_ctx *ctx;
	const ir_func *f;
	interp_buffer *bufs;
	int nbufs;
	slot **vals; /* per value id */
	slot *store; /* backing storage of vals */
	uint32_t grid[3], pid[3];
	uint32_t rank; /* CTA_RANK: the CTA of the program's cluster being run */
	/* a split program's run (run_split): this side, and the rings' copies
	 * made (fills) and waited for (waits) per slot, from ring_at[value] */
	int side;
	bool *known; /* the producer's side: the values it has computed */
	int *ring_at, *fills, *waits, nslots;
} interp;

enum { SIDE_ALL, SIDE_PRODUCER, SIDE_CONSUMERS };

/* ---------------------------------------------------------------------
 * Numeric formats
 * --------------------------------------------------------------------- */

uint16_t interp_f32_to_f16(float f)
{
	uint32_t x = ir_f32_bits(f);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
	uint32_t a = x & 0x7fffffff;
	if (a > 0x7f800000) /* NaN: keep it quiet */
		return (uint16_t)(sign | 0x7e00 | ((a >> 13) & 0x3ff));
	if (a >= 0x477ff000) /* 65520 and above round to infinity */
		return sign | 0x7c00;
	if (a < 0x38800000) { /* below 2^-14: a subnormal half, in units of 2^-24 */
		if (a < 0x33000000)
			return sign;
		uint32_t e = a >> 23, m = (a & 0x7fffff) | 0x800000, s = 126 - e;
		uint32_t q = m >> s, rem = m & ((1u << s) - 1), half = 1u << (s - 1);
		if (rem > half || (rem == half && (q & 1)))
			q++;
		return (uint16_t)(sign | q);
	}
	uint32_t h = (a - 0x38000000) >> 13, rem = a & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

float interp_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e == 0) {
		float v = ldexpf((float)m, -24);
		return sign ? -v : v;
	}
	if (e == 31)
		return ir_f32_from_bits(sign | 0x7f800000 | (m << 13));
	return ir_f32_from_bits(sign | ((e + 112) << 23) | (m << 13));
}

uint16_t interp_f32_to_bf16(float f)
{
	uint32_t x = ir_f32_bits(f);
	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((x >> 16) | 0x40);
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

float interp_bf16_to_f32(uint16_t h)
{
	return ir_f32_from_bits((uint32_t)h << 16);
}

/* A value rounded to a float kind. */
static double round_to(ir_kind k, double x)
{
	switch (k) {
	case IR_F16: return interp_f16_to_f32(interp_f32_to_f16((float)x));
	case IR_BF16: return interp_bf16_to_f32(interp_f32_to_bf16((float)x));
	case IR_F32: return (float)x;
	default: return x;
	}
}

/* An integer wrapped to an integer kind's width and extended back. */
static int64_t wrap(ir_kind k, uint64_t x)
{
	switch (k) {
	case IR_I1: return (int64_t)(x & 1);
	case IR_I8: return (int8_t)x;
	case IR_I16: return (int16_t)x;
	case IR_I32: return (int32_t)x;
	case IR_U8: return (uint8_t)x;
	case IR_U16: return (uint16_t)x;
	case IR_U32: return (uint32_t)x;
	default: return (int64_t)x;
	}
}

/* A slot's value as a double, by kind. */
static double as_double(ir_kind k, slot s)
{
	if (ir_kind_is_fp8(k))
		return ir_fp8_to_f32(k, (uint8_t)s.u);
	if (ir_kind_is_float(k))
		return s.f;
	return ir_kind_is_signed(k) ? (double)s.i : (double)s.u;
}

/* Float to integer as the GPU converts: toward zero, saturating, NaN to 0. */
static int64_t float_to_int(ir_kind k, double x)
{
	if (k == IR_I1)
		return x != 0;
	if (isnan(x))
		return 0;
	x = trunc(x);
	if (ir_kind_is_signed(k)) {
		int bits = ir_kind_bits(k);
		double hi = ldexp(1.0, bits - 1), lo = -hi;
		if (x >= hi)
			return (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
		if (x <= lo)
			return bits == 64 ? INT64_MIN : -(int64_t)(UINT64_C(1) << (bits - 1));
		return (int64_t)x;
	}
	int bits = ir_kind_bits(k);
	if (x <= 0)
		return 0;
	if (x >= ldexp(1.0, bits))
		return bits == 64 ? (int64_t)UINT64_MAX : (int64_t)((UINT64_C(1) << bits) - 1);
	return (int64_t)(uint64_t)x;
}

/* Numeric conversion of one slot between kinds (CAST). */
static slot convert(ir_kind from, ir_kind to, slot s)
{
	slot r;
	if (from == to) {
		r = s;
	} else if (ir_kind_is_fp8(to)) { /* the front end casts to fp8 from fp32, fp16 and bf16 only */
		if (from == IR_F16)
			r.u = ir_fp8_from_f16(to, interp_f32_to_f16((float)s.f), IR_FP8_SM90);
		else if (from == IR_BF16)
			r.u = ir_fp8_from_bf16(to, interp_f32_to_bf16((float)s.f), IR_FP8_SM90);
		else
			r.u = ir_fp8_from_f32(to, (float)s.f, IR_FP8_SM90);
	} else if (ir_kind_is_fp8(from)) {
		if (to == IR_F16)
			r.f = interp_f16_to_f32(ir_fp8_to_f16(from, (uint8_t)s.u));
		else if (to == IR_BF16)
			r.f = interp_bf16_to_f32(ir_fp8_to_bf16(from, (uint8_t)s.u));
		else
			r.f = ir_fp8_to_f32(from, (uint8_t)s.u);
	} else if (from == IR_PTR || to == IR_PTR) {
		r.u = s.u;
	} else if (ir_kind_is_float(to)) {
		if (ir_kind_is_float(from))
			r.f = round_to(to, s.f);
		else if (to == IR_F64)
			r.f = ir_kind_is_signed(from) ? (double)s.i : (double)s.u;
		else /* via float so an integer is rounded once for fp32 */
			r.f = round_to(to, ir_kind_is_signed(from) ? (float)s.i : (float)s.u);
	} else if (ir_kind_is_float(from)) {
		r.i = float_to_int(to, s.f);
	} else if (to == IR_I1) {
		r.i = s.u != 0;
	} else {
		r.i = wrap(to, s.u);
	}
	return r;
}

static uint64_t raw_bits(ir_kind k, slot s)
{
	switch (k) {
	case IR_F16: return interp_f32_to_f16((float)s.f);
	case IR_BF16: return interp_f32_to_bf16((float)s.f);
	case IR_F32: return ir_f32_bits((float)s.f);
	case IR_F64: {
		uint64_t u;
		memcpy(&u, &s.f, 8);
		return u;
	}
	default: {
		int bits = ir_kind_bits(k);
		return bits == 64 ? s.u : s.u & ((UINT64_C(1) << bits) - 1);
	}
	}
}

static slot from_bits(ir_kind k, uint64_t u)
{
	slot r;
	switch (k) {
	case IR_F16: r.f = interp_f16_to_f32((uint16_t)u); break;
	case IR_BF16: r.f = interp_bf16_to_f32((uint16_t)u); break;
	case IR_F32: r.f = ir_f32_from_bits((uint32_t)u); break;
	case IR_F64: memcpy(&r.f, &u, 8); break;
	case IR_F8E4NV: case IR_F8E5: r.u = u & 0xff; break;
	case IR_PTR: r.u = u; break;
	default: r.i = wrap(k, u); break;
	}
	return r;
}

interp_scalar interp_read(ir_kind k, const void *p)
{
	uint64_t u = 0;
	int n = ir_kind_bytes(k);
	unsigned char b[8] = {0};
	memcpy(b, p, (size_t)n);
	for (int i = n - 1; i >= 0; i--)
		u = u << 8 | b[i];
	if (k == IR_I1)
		u = u != 0;
	return from_bits(k, u);
}

void interp_write(ir_kind k, void *p, interp_scalar v)
{
	uint64_t u = raw_bits(k, v);
	unsigned char b[8];
	int n = ir_kind_bytes(k);
	for (int i = 0; i < n; i++, u >>= 8)
		b[i] = (unsigned char)u;
	memcpy(p, b, (size_t)n);
}

/* ---------------------------------------------------------------------
 * Helpers
 * --------------------------------------------------------------------- */

static ir_type vtype(const interp *in, int id)
{
	return in->f->values[id].type;
}

static slot *V(const interp *in, int id)
{
	return in->vals[id];
}

static ir_kind rkind(const interp *in, const ir_op *op)
{
	return (ir_kind)vtype(in, op->results[0]).kind;
}

static int64_t rnumel(const interp *in, const ir_op *op)
{
	return ir_numel(vtype(in, op->results[0]));
}

static tilec_status runtime_error(interp *in, const ir_op *op, const char *fmt, ...) TILE_PRINTF(3, 4);

static tilec_status runtime_error(interp *in, const ir_op *op, const char *fmt, ...)
{
	strbuf sb;
	sb_init(&sb);
	sb_printf(&sb, "program (%u, %u, %u): ", in->pid[0], in->pid[1], in->pid[2]);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	diag_error(in->ctx, op ? op->loc : in->f->loc, "%s", sb_str(&sb));
	sb_free(&sb);
	return TILEC_ERR_RUNTIME;
}

/* Maps an address to memory for an access of n bytes, or reports why not. */
static unsigned char *address(interp *in, const ir_op *op, const char *what, int64_t lane, uint64_t addr, int n,
			      tilec_status *st)
{
	uint64_t b = addr >> ADDR_SHIFT, off = addr & ADDR_MASK;
	if (b == 0 || b > (uint64_t)in->nbufs) {
		*st = runtime_error(in, op, "%s of %d byte(s) at element %lld: address 0x%llx lies outside every buffer",
				    what, n, (long long)lane, (unsigned long long)addr);
		return NULL;
	}
	const interp_buffer *buf = &in->bufs[b - 1];
	if (off + (uint64_t)n > buf->size) {
		*st = runtime_error(in, op,
				    "%s of %d byte(s) at element %lld: byte offset %llu is out of bounds of buffer %llu (%zu bytes)",
				    what, n, (long long)lane, (unsigned long long)off, (unsigned long long)(b - 1), buf->size);
		return NULL;
	}
	return (unsigned char *)buf->data + off;
}

/* ---------------------------------------------------------------------
 * Elementwise ops
 * --------------------------------------------------------------------- */

static float fmath(ir_math m, float x)
{
	switch (m) {
	case IR_MATH_EXP: return expf(x);
	case IR_MATH_EXP2: { /* the GPU's ex2.approx.ftz flushes denormal results */
		float r = exp2f(x);
		return r < FLT_MIN ? 0.0f : r;
	}
	case IR_MATH_LOG: return logf(x);
	case IR_MATH_LOG2: return log2f(x);
	case IR_MATH_SQRT:
	case IR_MATH_SQRT_RN: return sqrtf(x);
	case IR_MATH_RSQRT: return 1.0f / sqrtf(x);
	case IR_MATH_SIN: return sinf(x);
	case IR_MATH_COS: return cosf(x);
	case IR_MATH_ABS: return fabsf(x);
	case IR_MATH_FLOOR: return floorf(x);
	case IR_MATH_CEIL: return ceilf(x);
	case IR_MATH_ERF: return erff(x);
	default: return x;
	}
}

static double dmath(ir_math m, double x)
{
	switch (m) {
	case IR_MATH_EXP: return exp(x);
	case IR_MATH_EXP2: return exp2(x);
	case IR_MATH_LOG: return log(x);
	case IR_MATH_LOG2: return log2(x);
	case IR_MATH_SQRT:
	case IR_MATH_SQRT_RN: return sqrt(x);
	case IR_MATH_RSQRT: return 1.0 / sqrt(x);
	case IR_MATH_SIN: return sin(x);
	case IR_MATH_COS: return cos(x);
	case IR_MATH_ABS: return fabs(x);
	case IR_MATH_FLOOR: return floor(x);
	case IR_MATH_CEIL: return ceil(x);
	case IR_MATH_ERF: return erf(x);
	default: return x;
	}
}

/* min/max: minnum semantics (a NaN operand loses) unless propagating. */
static double fminmax(bool is_max, bool propagate, double a, double b)
{
	if (isnan(a) || isnan(b))
		return propagate ? NAN : isnan(a) ? b : a;
	return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

static double fbinary(ir_opcode code, unsigned flags, double a, double b)
{
	switch (code) {
	case IR_OP_ADD: return a + b;
	case IR_OP_SUB: return a - b;
	case IR_OP_MUL: return a * b;
	case IR_OP_DIV: return a / b;
	case IR_OP_REM: return fmod(a, b);
	case IR_OP_MIN: return fminmax(false, flags & IR_FLAG_PROPAGATE_NAN, a, b);
	case IR_OP_MAX: return fminmax(true, flags & IR_FLAG_PROPAGATE_NAN, a, b);
	default: return 0;
	}
}

static float sbinary(ir_opcode code, unsigned flags, float a, float b)
{
	switch (code) {
	case IR_OP_ADD: return a + b;
	case IR_OP_SUB: return a - b;
	case IR_OP_MUL: return a * b;
	case IR_OP_DIV: return a / b;
	case IR_OP_REM: return fmodf(a, b);
	default: return (float)fminmax(code == IR_OP_MAX, flags & IR_FLAG_PROPAGATE_NAN, a, b);
	}
}

/* Shifts clamp the amount to the width, as PTX's shl/shr do. */
static uint64_t ibinary(ir_opcode code, ir_kind k, slot a, slot b, bool *div0)
{
	bool sgn = ir_kind_is_signed(k);
	int bits = ir_kind_bits(k);
	switch (code) {
	case IR_OP_ADD: return a.u + b.u;
	case IR_OP_SUB: return a.u - b.u;
	case IR_OP_MUL: return a.u * b.u;
	case IR_OP_DIV:
	case IR_OP_REM:
		if (b.u == 0) {
			*div0 = true;
			return 0;
		}
		if (sgn) {
			if (b.i == -1) /* avoids INT64_MIN / -1; wraps like the GPU */
				return code == IR_OP_DIV ? 0 - a.u : 0;
			return (uint64_t)(code == IR_OP_DIV ? a.i / b.i : a.i % b.i);
		}
		return code == IR_OP_DIV ? a.u / b.u : a.u % b.u;
	case IR_OP_AND: return a.u & b.u;
	case IR_OP_OR: return a.u | b.u;
	case IR_OP_XOR: return a.u ^ b.u;
	case IR_OP_SHL: return b.u >= (uint64_t)bits ? 0 : a.u << b.u;
	case IR_OP_SHR:
		if (sgn)
			return (uint64_t)(a.i >> (b.u >= (uint64_t)bits ? 63 : b.u));
		return b.u >= (uint64_t)bits ? 0 : a.u >> b.u;
	case IR_OP_MIN: return sgn ? (uint64_t)(a.i < b.i ? a.i : b.i) : (a.u < b.u ? a.u : b.u);
	case IR_OP_MAX: return sgn ? (uint64_t)(a.i > b.i ? a.i : b.i) : (a.u > b.u ? a.u : b.u);
	default: return 0;
	}
}

static tilec_status exec_binary(interp *in, const ir_op *op)
{
	ir_kind k = rkind(in, op);
	int64_t n = rnumel(in, op);
	const slot *a = V(in, op->args[0]), *b = V(in, op->args[1]);
	slot *r = V(in, op->results[0]);
	if (k == IR_F64) {
		for (int64_t i = 0; i < n; i++)
			r[i].f = fbinary(op->code, op->flags, a[i].f, b[i].f);
	} else if (ir_kind_is_float(k)) {
		for (int64_t i = 0; i < n; i++)
			r[i].f = round_to(k, sbinary(op->code, op->flags, (float)a[i].f, (float)b[i].f));
	} else {
		bool div0 = false;
		for (int64_t i = 0; i < n; i++) {
			r[i].i = wrap(k, ibinary(op->code, k, a[i], b[i], &div0));
			if (div0)
				return runtime_error(in, op, "integer %s by zero at element %lld",
						     op->code == IR_OP_DIV ? "division" : "remainder", (long long)i);
		}
	}
	return TILEC_OK;
}

static void exec_unary(interp *in, const ir_op *op)
{
	ir_kind k = rkind(in, op);
	int64_t n = rnumel(in, op);
	const slot *a = V(in, op->args[0]);
	slot *r = V(in, op->results[0]);
	for (int64_t i = 0; i < n; i++) {
		if (ir_kind_is_float(k)) {
			double x = a[i].f;
			if (op->code == IR_OP_NEG)
				r[i].f = -x;
			else
				r[i].f = k == IR_F64 ? dmath((ir_math)op->sub, x) : round_to(k, fmath((ir_math)op->sub, (float)x));
		} else if (op->code == IR_OP_NEG) {
			r[i].i = wrap(k, 0 - a[i].u);
		} else if (op->code == IR_OP_NOT) {
			r[i].i = wrap(k, ~a[i].u);
		} else { /* integer abs */
			r[i].i = wrap(k, ir_kind_is_signed(k) && a[i].i < 0 ? 0 - a[i].u : a[i].u);
		}
	}
}

static void exec_cmp(interp *in, const ir_op *op)
{
	ir_kind k = (ir_kind)vtype(in, op->args[0]).kind;
	int64_t n = rnumel(in, op);
	const slot *a = V(in, op->args[0]), *b = V(in, op->args[1]);
	slot *r = V(in, op->results[0]);
	ir_cmp c = (ir_cmp)op->sub;
	for (int64_t i = 0; i < n; i++) {
		int lt, eq; /* ordered comparisons; NaN makes all but NE false */
		if (ir_kind_is_float(k)) {
			double x = a[i].f, y = b[i].f;
			if (isnan(x) || isnan(y)) {
				r[i].i = c == IR_CMP_NE;
				continue;
			}
			lt = x < y;
			eq = x == y;
		} else if (ir_kind_is_signed(k)) {
			lt = a[i].i < b[i].i;
			eq = a[i].i == b[i].i;
		} else {
			lt = a[i].u < b[i].u;
			eq = a[i].u == b[i].u;
		}
		switch (c) {
		case IR_CMP_EQ: r[i].i = eq; break;
		case IR_CMP_NE: r[i].i = !eq; break;
		case IR_CMP_LT: r[i].i = lt; break;
		case IR_CMP_LE: r[i].i = lt || eq; break;
		case IR_CMP_GT: r[i].i = !lt && !eq; break;
		default: r[i].i = !lt; break;
		}
	}
}

static void exec_fma(interp *in, const ir_op *op)
{
	ir_kind k = rkind(in, op);
	int64_t n = rnumel(in, op);
	const slot *a = V(in, op->args[0]), *b = V(in, op->args[1]), *c = V(in, op->args[2]);
	slot *r = V(in, op->results[0]);
	for (int64_t i = 0; i < n; i++)
		r[i].f = k == IR_F64 ? fma(a[i].f, b[i].f, c[i].f)
				     : round_to(k, fmaf((float)a[i].f, (float)b[i].f, (float)c[i].f));
}

/* libdevice functions by name without "__nv_" and the "f" suffix. */
typedef double (*fn1)(double);
typedef double (*fn2)(double, double);
typedef double (*fn2i)(double, int64_t); /* a float and an integer operand */

static double rsqrt_(double x) { return 1.0 / sqrt(x); }
static double rcbrt_(double x) { return 1.0 / cbrt(x); }
static double exp10_(double x) { return pow(10.0, x); }
static double sigmoid_(double x) { return 1.0 / (1.0 + exp(-x)); }
static double isnan_(double x) { return isnan(x); }
static double isinf_(double x) { return isinf(x); }
static double finite_(double x) { return isfinite(x); }
static double signbit_(double x) { return signbit(x) != 0; }
static double sinpi_(double x) { return sin(M_PI * x); }
static double cospi_(double x) { return cos(M_PI * x); }
static double rcp_(double x) { return 1.0 / x; }
static double normcdf_(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
static double saturate_(double x) { return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0; } /* NaN gives 0 */
static double ilogb_(double x) { return ilogb(x); }
static double add_(double x, double y) { return x + y; }
static double sub_(double x, double y) { return x - y; }
static double mul_(double x, double y) { return x * y; }
static double div_(double x, double y) { return x / y; }
static double powi_(double x, int64_t n) { return pow(x, (double)n); }
static double ldexp_(double x, int64_t n) { return ldexp(x, n < INT_MIN ? INT_MIN : n > INT_MAX ? INT_MAX : (int)n); }

static const struct {
	const char *name;
	fn1 f1;
	fn2 f2;
	fn2i fi;
} libdevice[] = {
	{"exp", exp, NULL, NULL}, {"exp2", exp2, NULL, NULL}, {"exp10", exp10_, NULL, NULL}, {"expm1", expm1, NULL, NULL},
	{"log", log, NULL, NULL}, {"log2", log2, NULL, NULL}, {"log10", log10, NULL, NULL}, {"log1p", log1p, NULL, NULL},
	{"logb", logb, NULL, NULL}, {"ilogb", ilogb_, NULL, NULL},
	{"sqrt", sqrt, NULL, NULL}, {"rsqrt", rsqrt_, NULL, NULL}, {"cbrt", cbrt, NULL, NULL}, {"rcbrt", rcbrt_, NULL, NULL},
	{"sin", sin, NULL, NULL}, {"cos", cos, NULL, NULL}, {"tan", tan, NULL, NULL},
	{"sinpi", sinpi_, NULL, NULL}, {"cospi", cospi_, NULL, NULL},
	{"asin", asin, NULL, NULL}, {"acos", acos, NULL, NULL}, {"atan", atan, NULL, NULL},
	{"sinh", sinh, NULL, NULL}, {"cosh", cosh, NULL, NULL}, {"tanh", tanh, NULL, NULL},
	{"asinh", asinh, NULL, NULL}, {"acosh", acosh, NULL, NULL}, {"atanh", atanh, NULL, NULL},
	{"erf", erf, NULL, NULL}, {"erfc", erfc, NULL, NULL}, {"normcdf", normcdf_, NULL, NULL},
	{"lgamma", lgamma, NULL, NULL}, {"tgamma", tgamma, NULL, NULL},
	{"floor", floor, NULL, NULL}, {"ceil", ceil, NULL, NULL}, {"trunc", trunc, NULL, NULL}, {"round", round, NULL, NULL},
	{"rint", rint, NULL, NULL}, {"nearbyint", nearbyint, NULL, NULL}, {"fabs", fabs, NULL, NULL}, {"abs", fabs, NULL, NULL},
	{"rcp", rcp_, NULL, NULL}, {"sigmoid", sigmoid_, NULL, NULL}, {"saturate", saturate_, NULL, NULL},
	{"isnan", isnan_, NULL, NULL}, {"isinf", isinf_, NULL, NULL}, {"finite", finite_, NULL, NULL},
	{"isfinited", finite_, NULL, NULL}, {"signbit", signbit_, NULL, NULL},
	{"pow", NULL, pow, NULL}, {"atan2", NULL, atan2, NULL}, {"fmod", NULL, fmod, NULL}, {"remainder", NULL, remainder, NULL},
	{"hypot", NULL, hypot, NULL}, {"fmin", NULL, fmin, NULL}, {"fmax", NULL, fmax, NULL}, {"copysign", NULL, copysign, NULL},
	{"fdim", NULL, fdim, NULL}, {"nextafter", NULL, nextafter, NULL},
	{"add", NULL, add_, NULL}, {"sub", NULL, sub_, NULL}, {"mul", NULL, mul_, NULL}, {"div", NULL, div_, NULL},
	{"powi", NULL, NULL, powi_}, {"ldexp", NULL, NULL, ldexp_}, {"scalbn", NULL, NULL, ldexp_},
	{"fma", NULL, NULL, NULL}, /* three operands: exec_extern */
};

/* Symbols whose names do not follow NAME / NAMEf: the fp64 predicates, the
 * integer-operand variants, the round-to-nearest variants (computed as the
 * plain operation: in double, then rounded once to the result type) and
 * the fast_ variants (computed as the accurate function). */
static const struct {
	const char *sym, *name;
} libdevice_alias[] = {
	{"isnand", "isnan"}, {"isinfd", "isinf"}, {"signbitd", "signbit"}, {"saturatef", "saturate"},
	{"ilogbf", "ilogb"}, {"powif", "powi"}, {"ldexpf", "ldexp"}, {"scalbnf", "scalbn"},
	{"fadd_rn", "add"}, {"dadd_rn", "add"}, {"fsub_rn", "sub"}, {"dsub_rn", "sub"},
	{"fmul_rn", "mul"}, {"dmul_rn", "mul"}, {"fdiv_rn", "div"}, {"ddiv_rn", "div"},
	{"frcp_rn", "rcp"}, {"drcp_rn", "rcp"}, {"fsqrt_rn", "sqrt"}, {"dsqrt_rn", "sqrt"},
	{"fmaf_rn", "fma"}, {"fma_rn", "fma"},
	{"fast_expf", "exp"}, {"fast_exp10f", "exp10"}, {"fast_logf", "log"}, {"fast_log2f", "log2"},
	{"fast_log10f", "log10"}, {"fast_sinf", "sin"}, {"fast_cosf", "cos"}, {"fast_tanf", "tan"},
	{"fast_powf", "pow"}, {"fast_fdividef", "div"},
};

static tilec_status extern_unsupported(interp *in, const ir_op *op)
{
	strbuf sb;
	sb_init(&sb);
	for (int i = 0; i < op->nargs; i++)
		sb_printf(&sb, i ? ", %s" : "%s", ir_kind_name((ir_kind)vtype(in, op->args[i]).kind));
	tilec_status st = runtime_error(in, op, "the interpreter does not implement '%s' on (%s)", op->name, sb_str(&sb));
	sb_free(&sb);
	return st;
}

static tilec_status exec_extern(interp *in, const ir_op *op)
{
	const char *name = op->name;
	size_t len = strlen(name);
	if (len > 5 && !strncmp(name, "__nv_", 5)) {
		name += 5;
		len -= 5;
	}
	for (size_t j = 0; j < sizeof libdevice_alias / sizeof libdevice_alias[0]; j++)
		if (!strcmp(name, libdevice_alias[j].sym)) {
			name = libdevice_alias[j].name;
			len = strlen(name);
			break;
		}
	if (op->nargs < 1 || op->nargs > 3)
		return extern_unsupported(in, op);
	ir_kind ak[3], k = rkind(in, op);
	for (int i = 0; i < op->nargs; i++)
		ak[i] = (ir_kind)vtype(in, op->args[i]).kind;
	int64_t n = rnumel(in, op);
	const slot *a = V(in, op->args[0]), *b = op->nargs > 1 ? V(in, op->args[1]) : NULL;
	const slot *c = op->nargs > 2 ? V(in, op->args[2]) : NULL;
	slot *r = V(in, op->results[0]);
	/* the high halves of unsigned products (tl.umulhi, Philox) */
	if (op->nargs == 2 && (!strcmp(name, "umulhi") || !strcmp(name, "umul64hi")) && ir_kind_is_int(ak[0]) &&
	    ir_kind_is_int(ak[1])) {
		bool wide = !strcmp(name, "umul64hi");
		for (int64_t i = 0; i < n; i++) {
			uint64_t x = a[i].u, y = b[i].u, hi;
			if (wide) {
				uint64_t xl = x & 0xffffffffu, xh = x >> 32, yl = y & 0xffffffffu, yh = y >> 32;
				uint64_t ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
				uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
				hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
			} else {
				hi = ((x & 0xffffffffu) * (y & 0xffffffffu)) >> 32;
			}
			r[i].i = wrap(k, hi);
		}
		return TILEC_OK;
	}
	/* abs and llabs of integers */
	if (op->nargs == 1 && (!strcmp(name, "abs") || !strcmp(name, "llabs")) && ir_kind_is_signed(ak[0]) &&
	    !ir_kind_is_float(ak[0])) {
		for (int64_t i = 0; i < n; i++) {
			slot x = {.u = a[i].i < 0 ? 0 - a[i].u : a[i].u};
			r[i] = convert(IR_I64, k, x);
		}
		return TILEC_OK;
	}
	/* high halves of integer products (tl.umulhi) */
	if (op->nargs == 2 && (!strcmp(name, "mulhi") || !strcmp(name, "umulhi") || !strcmp(name, "mul64hi") ||
			       !strcmp(name, "umul64hi"))) {
		for (int64_t i = 0; i < n; i++) {
			if (name[0] == 'u' && name[4] == 'h')
				r[i].i = (int64_t)(uint32_t)(((uint64_t)(uint32_t)a[i].u * (uint32_t)b[i].u) >> 32);
			else if (name[0] == 'm' && name[3] == 'h')
				r[i].i = (int64_t)(int32_t)(((int64_t)(int32_t)a[i].i * (int32_t)b[i].i) >> 32);
			else if (name[0] == 'u')
				r[i].u = (uint64_t)(((unsigned __int128)a[i].u * b[i].u) >> 64);
			else
				r[i].i = (int64_t)(((__int128)a[i].i * b[i].i) >> 64);
		}
		return TILEC_OK;
	}
	bool f32 = ak[0] != IR_F64 && len > 1 && name[len - 1] == 'f';
	for (size_t j = 0; j < sizeof libdevice / sizeof libdevice[0]; j++) {
		const char *e = libdevice[j].name;
		size_t el = strlen(e);
		if (!(el == len && !strncmp(e, name, len)) && !(f32 && el == len - 1 && !strncmp(e, name, el)))
			continue;
		int want = libdevice[j].f1 ? 1 : libdevice[j].f2 || libdevice[j].fi ? 2 : 3;
		bool int2 = libdevice[j].fi != NULL; /* the second operand is an integer */
		if (op->nargs != want || !ir_kind_is_float(ak[0]))
			break;
		for (int i = 1; i < want; i++)
			if (int2 ? ir_kind_is_float(ak[i]) : !ir_kind_is_float(ak[i]))
				return extern_unsupported(in, op);
		for (int64_t i = 0; i < n; i++) {
			slot x;
			if (want == 3) /* fma: one rounding in the operands' precision */
				x.f = ak[0] == IR_F64 ? fma(a[i].f, b[i].f, c[i].f)
						      : (double)fmaf((float)a[i].f, (float)b[i].f, (float)c[i].f);
			else if (want == 1)
				x.f = libdevice[j].f1(a[i].f);
			else if (int2)
				x.f = libdevice[j].fi(a[i].f, ir_kind_is_signed(ak[1]) ? b[i].i : (int64_t)b[i].u);
			else
				x.f = libdevice[j].f2(a[i].f, b[i].f);
			r[i] = convert(IR_F64, k, x);
		}
		return TILEC_OK;
	}
	return extern_unsupported(in, op);
}

/* ---------------------------------------------------------------------
 * Shape ops
 * --------------------------------------------------------------------- */

/* Row-major strides of a shape. */
static void strides(ir_type t, int64_t *s)
{
	int64_t acc = 1;
	for (int i = t.rank - 1; i >= 0; i--) {
		s[i] = acc;
		acc *= t.shape[i];
	}
}

/* r[i] = a[sum over d of (index d of i in the result) * from[d]] */
static void gather(interp *in, const ir_op *op, const int64_t *from)
{
	ir_type rt = vtype(in, op->results[0]);
	int64_t rs[IR_MAX_RANK];
	strides(rt, rs);
	const slot *a = V(in, op->args[0]);
	slot *r = V(in, op->results[0]);
	int64_t n = ir_numel(rt);
	for (int64_t i = 0; i < n; i++) {
		int64_t src = 0;
		for (int d = 0; d < rt.rank; d++)
			src += (i / rs[d] % rt.shape[d]) * from[d];
		r[i] = a[src];
	}
}

/* a dimension of size 1 repeats: its stride in the source is 0 */
static void exec_broadcast(interp *in, const ir_op *op)
{
	ir_type at = vtype(in, op->args[0]);
	int64_t as[IR_MAX_RANK], from[IR_MAX_RANK];
	strides(at, as);
	for (int d = 0; d < at.rank; d++)
		from[d] = at.shape[d] != 1 ? as[d] : 0;
	gather(in, op, from);
}

/* result dimension d is source dimension ints[d] */
static void exec_permute(interp *in, const ir_op *op)
{
	ir_type at = vtype(in, op->args[0]);
	int64_t as[IR_MAX_RANK], from[IR_MAX_RANK];
	strides(at, as);
	for (int d = 0; d < at.rank; d++)
		from[d] = as[op->ints[d]];
	gather(in, op, from);
}

static void exec_cast(interp *in, const ir_op *op)
{
	ir_kind from = (ir_kind)vtype(in, op->args[0]).kind, to = rkind(in, op);
	int64_t n = rnumel(in, op);
	const slot *a = V(in, op->args[0]);
	slot *r = V(in, op->results[0]);
	for (int64_t i = 0; i < n; i++)
		r[i] = op->code == IR_OP_BITCAST ? from_bits(to, raw_bits(from, a[i])) : convert(from, to, a[i]);
}

/* ---------------------------------------------------------------------
 * Memory
 * --------------------------------------------------------------------- */

static void exec_ptr_add(interp *in, const ir_op *op)
{
	ir_type pt = vtype(in, op->args[0]);
	ir_kind ok = (ir_kind)vtype(in, op->args[1]).kind;
	uint64_t size = (uint64_t)ir_kind_bytes((ir_kind)pt.pointee);
	int64_t n = ir_numel(pt);
	const slot *p = V(in, op->args[0]), *o = V(in, op->args[1]);
	slot *r = V(in, op->results[0]);
	for (int64_t i = 0; i < n; i++)
		r[i].u = p[i].u + (ir_kind_is_signed(ok) ? (uint64_t)o[i].i : o[i].u) * size;
}

static tilec_status exec_load(interp *in, const ir_op *op)
{
	ir_kind k = rkind(in, op);
	int bytes = ir_kind_bytes(k);
	int64_t n = rnumel(in, op);
	const slot *p = V(in, op->args[0]);
	const slot *mask = op->flags & IR_FLAG_HAS_MASK ? V(in, op->args[1]) : NULL;
	const slot *other = op->flags & IR_FLAG_HAS_OTHER ? V(in, op->args[2]) : NULL;
	slot *r = V(in, op->results[0]);
	for (int64_t i = 0; i < n; i++) {
		if (mask && !mask[i].i) {
			r[i] = other ? other[i] : (slot){0};
			continue;
		}
		tilec_status st;
		const unsigned char *m = address(in, op, "load", i, p[i].u, bytes, &st);
		if (!m)
			return st;
		r[i] = interp_read(k, m);
	}
	return TILEC_OK;
}

static tilec_status exec_store(interp *in, const ir_op *op)
{
	ir_kind k = (ir_kind)vtype(in, op->args[1]).kind;
	int bytes = ir_kind_bytes(k);
	int64_t n = ir_numel(vtype(in, op->args[0]));
	const slot *p = V(in, op->args[0]), *x = V(in, op->args[1]);
	const slot *mask = op->flags & IR_FLAG_HAS_MASK ? V(in, op->args[2]) : NULL;
	for (int64_t i = 0; i < n; i++) {
		if (mask && !mask[i].i)
			continue;
		tilec_status st;
		unsigned char *m = address(in, op, "store", i, p[i].u, bytes, &st);
		if (!m)
			return st;
		interp_write(k, m, x[i]);
	}
	return TILEC_OK;
}

/* atom.add.f32 flushes subnormal inputs and results to zero (PTX ISA);
 * the 16-bit additions (.noftz) and fp64 keep them. */
static double flush_f32(double x)
{
	return fabs(x) < FLT_MIN ? copysign(0.0, x) : x;
}

static slot atomic_apply(ir_atomic a, ir_kind k, slot old, slot x)
{
	slot r;
	if (a == IR_ATOMIC_XCHG)
		return x;
	if (ir_kind_is_float(k)) { /* only addition: the front end sends float max/min through integers */
		if (k == IR_F32)
			r.f = flush_f32((float)(flush_f32(old.f) + flush_f32(x.f)));
		else
			r.f = round_to(k, old.f + x.f);
		return r;
	}
	static const ir_opcode code[] = {
		[IR_ATOMIC_ADD] = IR_OP_ADD, [IR_ATOMIC_MAX] = IR_OP_MAX, [IR_ATOMIC_MIN] = IR_OP_MIN,
		[IR_ATOMIC_AND] = IR_OP_AND, [IR_ATOMIC_OR] = IR_OP_OR, [IR_ATOMIC_XOR] = IR_OP_XOR,
	};
	bool div0 = false;
	r.i = wrap(k, ibinary(code[a], k, old, x, &div0));
	return r;
}

/* Atomics run one element after another in row-major order, each a read,
 * an update and a write: with programs run one after another this is one
 * of the orders the GPU may choose. Masked-off elements give 0. */
static tilec_status exec_atomic(interp *in, const ir_op *op)
{
	bool cas = op->code == IR_OP_ATOMIC_CAS;
	ir_kind k = rkind(in, op);
	int bytes = ir_kind_bytes(k);
	int64_t n = rnumel(in, op);
	const slot *p = V(in, op->args[0]), *x = V(in, op->args[cas ? 2 : 1]);
	const slot *cmp = cas ? V(in, op->args[1]) : NULL;
	const slot *mask = !cas && (op->flags & IR_FLAG_HAS_MASK) ? V(in, op->args[2]) : NULL;
	slot *r = V(in, op->results[0]);
	if (!cas && (unsigned)op->sub >= IR_ATOMIC_COUNT)
		return runtime_error(in, op, "unknown atomic operation %d", op->sub);
	for (int64_t i = 0; i < n; i++) {
		if (mask && !mask[i].i) {
			r[i] = (slot){0};
			continue;
		}
		tilec_status st;
		unsigned char *m = address(in, op, cas ? "atomic_cas" : "atomic", i, p[i].u, bytes, &st);
		if (!m)
			return st;
		slot old = interp_read(k, m);
		r[i] = old;
		if (cas) { /* compares bits, as atom.cas does (-0.0 is not 0.0, NaN may equal NaN) */
			if (raw_bits(k, old) == raw_bits(k, cmp[i]))
				interp_write(k, m, x[i]);
		} else {
			interp_write(k, m, atomic_apply((ir_atomic)op->sub, k, old, x[i]));
		}
	}
	return TILEC_OK;
}

/* ---------------------------------------------------------------------
 * Reductions and dot
 * --------------------------------------------------------------------- */

/* Combines two partial results of a SUM/MAX/MIN/XOR_SUM. */
static slot combine(ir_reduce red, ir_kind k, slot a, slot b)
{
	slot r;
	if (ir_kind_is_float(k)) {
		if (red == IR_REDUCE_SUM)
			r.f = k == IR_F64 ? a.f + b.f : round_to(k, (float)a.f + (float)b.f);
		else
			r.f = fminmax(red == IR_REDUCE_MAX, false, a.f, b.f);
		return r;
	}
	bool dummy = false;
	ir_opcode code = red == IR_REDUCE_SUM ? IR_OP_ADD : red == IR_REDUCE_MAX ? IR_OP_MAX
						  : red == IR_REDUCE_MIN ? IR_OP_MIN : IR_OP_XOR;
	r.i = wrap(k, ibinary(code, k, a, b, &dummy));
	return r;
}

static tilec_status exec_reduce(interp *in, const ir_op *op)
{
	ir_type at = vtype(in, op->args[0]);
	ir_kind k = (ir_kind)at.kind;
	ir_reduce red = (ir_reduce)op->sub;
	int64_t len = at.shape[op->axis], outer = 1, inner = 1;
	for (int d = 0; d < op->axis; d++)
		outer *= at.shape[d];
	for (int d = op->axis + 1; d < at.rank; d++)
		inner *= at.shape[d];
	const slot *a = V(in, op->args[0]);
	slot *r = V(in, op->results[0]), *rv = op->nresults > 1 ? V(in, op->results[1]) : NULL;
	slot *tmp = malloc(sizeof(slot) * (size_t)len);
	if (!tmp)
		return TILEC_ERR_NOMEM;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < inner; j++) {
			const slot *x = a + o * len * inner + j;
			slot *out = &r[o * inner + j];
			if (red == IR_REDUCE_ARGMAX || red == IR_REDUCE_ARGMIN) {
				/* left to right; ties keep the smaller index */
				int64_t best = 0;
				for (int64_t t = 1; t < len; t++) {
					double v = as_double(k, x[t * inner]), b = as_double(k, x[best * inner]);
					if (red == IR_REDUCE_ARGMAX ? v > b : v < b)
						best = t;
				}
				out->i = best;
				if (rv)
					rv[o * inner + j] = x[best * inner];
				continue;
			}
			/* pairwise, like the GPU's tree, keeps fp16/fp32 sums accurate */
			for (int64_t t = 0; t < len; t++)
				tmp[t] = x[t * inner];
			for (int64_t step = 1; step < len; step *= 2)
				for (int64_t t = 0; t + step < len; t += 2 * step)
					tmp[t] = combine(red, k, tmp[t], tmp[t + step]);
			*out = tmp[0];
		}
	free(tmp);
	return TILEC_OK;
}

/* fp32 to tf32: 10 mantissa bits, the low 13 dropped, as the tensor
 * cores take the fp32 registers Triton gives them. */
static float to_tf32(float x)
{
	uint32_t u = ir_f32_bits(x);
	if ((u & 0x7f800000) == 0x7f800000)
		return x;
	return ir_f32_from_bits(u & 0xffffe000);
}

/* One product of a 2-D or batched (3-D) dot: batch element z. */
static tilec_status dot2(interp *in, const ir_op *op, int64_t z)
{
	ir_type at = vtype(in, op->args[0]), ct = vtype(in, op->args[2]);
	int rk = at.rank;
	int64_t M = at.shape[rk - 2], K = at.shape[rk - 1], N = ct.shape[rk - 1];
	ir_kind ak = (ir_kind)at.kind, ck = (ir_kind)ct.kind;
	const slot *a = V(in, op->args[0]) + z * M * K, *b = V(in, op->args[1]) + z * K * N;
	const slot *c = V(in, op->args[2]) + z * M * N;
	slot *r = V(in, op->results[0]) + z * M * N;
	if (ak == IR_I8) {
		for (int64_t i = 0; i < M; i++)
			for (int64_t j = 0; j < N; j++) {
				uint64_t acc = c[i * N + j].u;
				for (int64_t t = 0; t < K; t++)
					acc += (uint64_t)(a[i * K + t].i * b[t * N + j].i);
				r[i * N + j].i = wrap(IR_I32, acc);
			}
		return TILEC_OK;
	}
	ir_kind bk = (ir_kind)vtype(in, op->args[1]).kind;
	bool tf32 = ak == IR_F32 && op->sub == IR_PRECISION_TF32;
	float *row = malloc(sizeof(float) * (size_t)(N + K));
	if (!row)
		return TILEC_ERR_NOMEM;
	float *arow = row + N;
	for (int64_t i = 0; i < M; i++) {
		for (int64_t j = 0; j < N; j++)
			row[j] = (float)c[i * N + j].f;
		for (int64_t t = 0; t < K; t++)
			arow[t] = tf32 ? to_tf32((float)a[i * K + t].f) : (float)as_double(ak, a[i * K + t]);
		for (int64_t t = 0; t < K; t++) {
			float x = arow[t];
			const slot *brow = b + t * N;
			for (int64_t j = 0; j < N; j++)
				row[j] = fmaf(x, tf32 ? to_tf32((float)brow[j].f) : (float)as_double(bk, brow[j]), row[j]);
		}
		for (int64_t j = 0; j < N; j++)
			r[i * N + j].f = round_to(ck, row[j]);
	}
	free(row);
	return TILEC_OK;
}

static tilec_status exec_dot(interp *in, const ir_op *op)
{
	ir_type at = vtype(in, op->args[0]);
	int64_t batch = at.rank == 3 ? at.shape[0] : 1;
	for (int64_t z = 0; z < batch; z++) {
		tilec_status st = dot2(in, op, z);
		if (st)
			return st;
	}
	return TILEC_OK;
}

/* A ring's tile `slot` (the ring is the value's own slots); NULL after a
 * runtime error for a slot outside the ring. */
static slot *ring_tile(interp *in, const ir_op *op, tilec_status *st)
{
	ir_type t = vtype(in, op->args[0]);
	int64_t i = V(in, op->args[1])[0].i, tile = (int64_t)t.shape[1] * t.shape[2];
	if (i < 0 || i >= t.shape[0]) {
		*st = runtime_error(in, op, "slot %lld of a ring of %d tiles", (long long)i, (int)t.shape[0]);
		return NULL;
	}
	return V(in, op->args[0]) + i * tile;
}

/* Copies run at once: what the GPU makes visible at the ASYNC_WAIT that
 * covers them is what was in memory when they were issued, since the
 * pipelined loops store nothing. */
static tilec_status exec_async_copy(interp *in, const ir_op *op)
{
	tilec_status st = TILEC_OK;
	slot *r = ring_tile(in, op, &st);
	if (!r)
		return st;
	ir_type pt = vtype(in, op->args[2]);
	ir_kind k = (ir_kind)pt.pointee;
	const slot *p = V(in, op->args[2]);
	const slot *mask = op->flags & IR_FLAG_HAS_MASK ? V(in, op->args[3]) : NULL;
	for (int64_t i = 0; i < ir_numel(pt); i++) {
		if (mask && !mask[i].i) {
			r[i] = (slot){0};
			continue;
		}
		const unsigned char *m = address(in, op, "load", i, p[i].u, ir_kind_bytes(k), &st);
		if (!m)
			return st;
		r[i] = interp_read(k, m);
	}
	return TILEC_OK;
}

/* A split run's counters of the slot (ring, slot: op's first two
 * operands, ring_tile checked) an op names. */
static int slot_at(const interp *in, const ir_op *op)
{
	return in->ring_at[op->args[0]] + (int)V(in, op->args[1])[0].i;
}

/* A tensor map's copy: the block at the coordinates of the descriptor the
 * map was built from, zero outside its shape, as the copy engine fills it. */
static tilec_status exec_tma_copy(interp *in, const ir_op *op)
{
	tilec_status st = TILEC_OK;
	slot *r = ring_tile(in, op, &st);
	if (!r || !V(in, op->args[2])[0].i)
		return st;
	if (in->side != SIDE_ALL) {
		int at = slot_at(in, op);
		if (in->fills[at] > in->waits[at])
			return runtime_error(in, op, "the producer copies into slot %lld of ring %%%d before the consumers "
						     "waited for the copy it holds",
					     (long long)V(in, op->args[1])[0].i, op->args[0]);
		in->fills[at]++;
	}
	const ir_desc_param *dp = ir_tensormap_desc(in->f, (int)op->ival);
	const ir_derived_map *dm = ir_derived_map_at(in->f, (int)op->ival);
	ir_type t = vtype(in, op->args[0]);
	ir_kind k = (ir_kind)t.pointee;
	int64_t eb = ir_kind_bytes(k), rows = t.shape[1], cols = t.shape[2];
	int b = dp ? dp->first : dm->base;
	int64_t r0 = V(in, op->args[3])[0].i, c0 = V(in, op->args[4])[0].i;
	int64_t shape0 = V(in, dp ? b + 1 : dm->shape[0])[0].i, shape1 = V(in, dp ? b + 2 : dm->shape[1])[0].i;
	int64_t stride0 = V(in, dp ? b + 3 : dm->strides[0])[0].i;
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++) {
			int64_t row = r0 + i, col = c0 + j;
			slot *x = &r[i * cols + j];
			*x = (slot){0};
			if (row < 0 || row >= shape0 || col < 0 || col >= shape1)
				continue;
			uint64_t at = V(in, b)[0].u + (uint64_t)((row * stride0 + col) * eb);
			const unsigned char *m = address(in, op, "load", i * cols + j, at, (int)eb, &st);
			if (!m)
				return st;
			*x = interp_read(k, m);
		}
	return TILEC_OK;
}

static tilec_status exec_local_load(interp *in, const ir_op *op)
{
	tilec_status st = TILEC_OK;
	const slot *t = ring_tile(in, op, &st);
	if (!t)
		return st;
	int at = in->side != SIDE_ALL ? slot_at(in, op) : -1;
	if (at >= 0 && in->fills[at] != in->waits[at])
		return runtime_error(in, op, "the consumers read slot %lld of ring %%%d before waiting for its copy",
				     (long long)V(in, op->args[1])[0].i, op->args[0]);
	memcpy(V(in, op->results[0]), t, sizeof(slot) * (size_t)rnumel(in, op));
	return TILEC_OK;
}

/* A split program's wait: the slot holds exactly one copy the consumers
 * have not waited for, and that copy (the slot's n-th, from 0) completes
 * phase n % 2 of the slot's barrier. Elsewhere copies have landed. */
static tilec_status exec_tma_wait(interp *in, const ir_op *op)
{
	tilec_status st = TILEC_OK;
	if (in->side == SIDE_ALL || !ring_tile(in, op, &st))
		return st;
	int64_t slot_i = V(in, op->args[1])[0].i, phase = V(in, op->args[2])[0].i;
	int at = slot_at(in, op);
	if (in->fills[at] != in->waits[at] + 1)
		return runtime_error(in, op, "the consumers wait for slot %lld of ring %%%d, which holds %s", (long long)slot_i,
				     op->args[0], in->fills[at] == in->waits[at] ? "no copy they have not waited for" :
										   "two copies they have not waited for");
	if (phase != (in->waits[at] & 1))
		return runtime_error(in, op, "the consumers wait for phase %lld of slot %lld of ring %%%d, which its copy %d "
					     "completes phase %d of",
				     (long long)phase, (long long)slot_i, op->args[0], in->waits[at], in->waits[at] & 1);
	in->waits[at]++;
	return TILEC_OK;
}

/* ---------------------------------------------------------------------
 * Control flow
 * --------------------------------------------------------------------- */

static tilec_status exec_region(interp *in, const ir_region *r);

static void copy_value(interp *in, int dst, int src)
{
	if (dst != src)
		memcpy(V(in, dst), V(in, src), sizeof(slot) * (size_t)ir_numel(vtype(in, src)));
}

static const ir_op *terminator_of(const ir_region *r, ir_opcode code)
{
	return r->nops && r->ops[r->nops - 1]->code == code ? r->ops[r->nops - 1] : NULL;
}

/* Copies the values `src[0..n)` into `dst[0..n)` through scratch, as a
 * yield may pass a region parameter on to another one. */
static tilec_status parallel_copy(interp *in, const int *dst, const int *src, int n)
{
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += (size_t)ir_numel(vtype(in, src[i]));
	slot *tmp = malloc(sizeof(slot) * (total ? total : 1));
	if (!tmp)
		return TILEC_ERR_NOMEM;
	size_t at = 0;
	for (int i = 0; i < n; i++) {
		size_t m = (size_t)ir_numel(vtype(in, src[i]));
		memcpy(tmp + at, V(in, src[i]), sizeof(slot) * m);
		at += m;
	}
	at = 0;
	for (int i = 0; i < n; i++) {
		size_t m = (size_t)ir_numel(vtype(in, dst[i]));
		memcpy(V(in, dst[i]), tmp + at, sizeof(slot) * m);
		at += m;
	}
	free(tmp);
	return TILEC_OK;
}

/* A loop being run one iteration at a time (exec_for; run_split steps
 * the two sides of a split loop in turns). carry[i]: whether this side
 * carries loop value i (the producer's side those its own ops yield). */
typedef struct loop_run {
	const ir_op *op;
	slot iv, ub, step;
	bool sgn, *carry;
	int n, iter;
	int *dst, *src; /* the carried values' parameters and yields */
} loop_run;

static bool loop_more(const loop_run *lr)
{
	return lr->sgn ? (lr->step.i > 0 ? lr->iv.i < lr->ub.i : lr->iv.i > lr->ub.i) : lr->iv.u < lr->ub.u;
}

static void loop_free(loop_run *lr)
{
	free(lr->carry);
	free(lr->dst);
}

static tilec_status loop_begin(interp *in, const ir_op *op, loop_run *lr)
{
	const ir_region *body = &op->regions[0];
	ir_kind k = (ir_kind)vtype(in, op->args[0]).kind;
	*lr = (loop_run){op, V(in, op->args[0])[0], V(in, op->args[1])[0], V(in, op->args[2])[0],
			 ir_kind_is_signed(k), NULL, op->nargs - 3, 0, NULL, NULL};
	if (lr->sgn ? lr->step.i == 0 : lr->step.u == 0)
		return runtime_error(in, op, "loop step is zero");
	lr->carry = malloc(sizeof(bool) * (size_t)(lr->n + 1));
	lr->dst = malloc(sizeof(int) * (size_t)(2 * lr->n + 1));
	if (!lr->carry || !lr->dst) {
		loop_free(lr);
		return TILEC_ERR_NOMEM;
	}
	lr->src = lr->dst + lr->n;
	const ir_op *y = terminator_of(body, IR_OP_YIELD);
	for (int i = 0; i < lr->n; i++) {
		/* the producer's: what it starts from and yields its own ops compute */
		const ir_op *d = in->known ? in->f->values[y->args[i]].def : NULL;
		lr->carry[i] = !in->known || (in->known[op->args[i + 3]] && (!d || d->flags & IR_FLAG_PRODUCER));
		if (lr->carry[i])
			copy_value(in, body->params[i + 1], op->args[i + 3]);
		if (in->known)
			in->known[body->params[i + 1]] = lr->carry[i];
	}
	if (in->known)
		in->known[body->params[0]] = true;
	return TILEC_OK;
}

/* One iteration, then its yields into the carried values. */
static tilec_status loop_step(interp *in, loop_run *lr)
{
	const ir_region *body = &lr->op->regions[0];
	const ir_op *y = terminator_of(body, IR_OP_YIELD);
	V(in, body->params[0])[0] = lr->iv;
	tilec_status st = exec_region(in, body);
	if (st)
		return st;
	int m = 0;
	for (int i = 0; i < lr->n; i++)
		if (lr->carry[i]) {
			if (in->known && !in->known[y->args[i]])
				return runtime_error(in, y, "the producer carries %%%d, which only the consumers compute",
						     y->args[i]);
			lr->dst[m] = body->params[i + 1];
			lr->src[m++] = y->args[i];
		}
	if (m && (st = parallel_copy(in, lr->dst, lr->src, m)))
		return st;
	lr->iter++;
	/* The bounds are compared in 64 bits, so the iv cannot wrap around. */
	if (lr->sgn ? __builtin_add_overflow(lr->iv.i, lr->step.i, &lr->iv.i)
		    : __builtin_add_overflow(lr->iv.u, lr->step.u, &lr->iv.u))
		lr->ub = lr->iv; /* no further iteration */
	return TILEC_OK;
}

static void loop_end(interp *in, const loop_run *lr)
{
	for (int i = 0; i < lr->n; i++)
		if (lr->carry[i])
			copy_value(in, lr->op->results[i], lr->op->regions[0].params[i + 1]);
}

static tilec_status exec_for(interp *in, const ir_op *op)
{
	loop_run lr;
	tilec_status st = loop_begin(in, op, &lr);
	while (!st && loop_more(&lr))
		st = loop_step(in, &lr);
	if (!st)
		loop_end(in, &lr);
	loop_free(&lr);
	return st;
}

static tilec_status exec_if(interp *in, const ir_op *op)
{
	const ir_region *r = &op->regions[V(in, op->args[0])[0].i ? 0 : 1];
	tilec_status st = exec_region(in, r);
	if (st)
		return st;
	const ir_op *y = terminator_of(r, IR_OP_YIELD);
	for (int i = 0; i < op->nresults; i++)
		copy_value(in, op->results[i], y->args[i]);
	return TILEC_OK;
}

/* A scan runs its combine region once per element along the axis, in
 * order (from the end when reversed): acc = combine(acc, x[t]). */
static tilec_status exec_scan(interp *in, const ir_op *op)
{
	ir_type at = vtype(in, op->args[0]);
	const ir_region *r = &op->regions[0];
	const ir_op *y = terminator_of(r, IR_OP_YIELD);
	int k = op->nargs;
	bool rev = op->ival != 0;
	int64_t len = at.shape[op->axis], outer = 1, inner = 1;
	for (int d = 0; d < op->axis; d++)
		outer *= at.shape[d];
	for (int d = op->axis + 1; d < at.rank; d++)
		inner *= at.shape[d];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < inner; j++)
			for (int64_t t = 0; t < len; t++) {
				int64_t e = o * len * inner + (rev ? len - 1 - t : t) * inner + j;
				if (t == 0) {
					for (int i = 0; i < k; i++)
						V(in, op->results[i])[e] = V(in, op->args[i])[e];
					continue;
				}
				int64_t prev = e + (rev ? inner : -inner);
				for (int i = 0; i < k; i++) {
					V(in, r->params[i])[0] = V(in, op->results[i])[prev];
					V(in, r->params[k + i])[0] = V(in, op->args[i])[e];
				}
				tilec_status st = exec_region(in, r);
				if (st)
					return st;
				for (int i = 0; i < k; i++)
					V(in, op->results[i])[e] = V(in, y->args[i])[0];
			}
	return TILEC_OK;
}

/* JOIN, SPLIT, FLIP (the index along the axis xored), CAT: elements moved,
 * row-major. */
static void exec_shape_op(interp *in, const ir_op *op)
{
	ir_type a = vtype(in, op->args[0]);
	const slot *x = V(in, op->args[0]);
	int64_t n = ir_numel(a);
	switch (op->code) {
	case IR_OP_JOIN: {
		const slot *y = V(in, op->args[1]);
		slot *r = V(in, op->results[0]);
		for (int64_t i = 0; i < n; i++) {
			r[2 * i] = x[i];
			r[2 * i + 1] = y[i];
		}
		return;
	}
	case IR_OP_SPLIT: {
		slot *r0 = V(in, op->results[0]), *r1 = V(in, op->results[1]);
		for (int64_t i = 0; i < n / 2; i++) {
			r0[i] = x[2 * i];
			r1[i] = x[2 * i + 1];
		}
		return;
	}
	case IR_OP_FLIP: {
		int64_t len = a.shape[op->axis], inner = 1;
		for (int d = op->axis + 1; d < a.rank; d++)
			inner *= a.shape[d];
		slot *r = V(in, op->results[0]);
		for (int64_t i = 0; i < n; i++) {
			int64_t t = i / inner % len;
			r[i + ((t ^ op->ival) - t) * inner] = x[i];
		}
		return;
	}
	default: {
		slot *r = V(in, op->results[0]);
		memcpy(r, x, sizeof(slot) * (size_t)n);
		memcpy(r + n, V(in, op->args[1]), sizeof(slot) * (size_t)ir_numel(vtype(in, op->args[1])));
		return;
	}
	}
}

/* tl.device_assert in debug mode: a false element is an error naming the
 * message (the GPU traps through __assertfail). */
static tilec_status exec_device_assert(interp *in, const ir_op *op)
{
	const slot *c = V(in, op->args[0]);
	int64_t n = ir_numel(vtype(in, op->args[0]));
	for (int64_t i = 0; i < n; i++)
		if (!c[i].i)
			return runtime_error(in, op, "device assertion failed: %s (element %lld)", op->name, (long long)i);
	return TILEC_OK;
}

/* One value as the GPU's vprintf formats it (debug.c uses the same
 * conversions): floats %f, integers in decimal, hex the raw bits. */
static void print_value(strbuf *sb, ir_kind k, slot v, bool hex)
{
	if (hex) {
		uint64_t bits = ir_kind_is_float(k) ? raw_bits(k, v) : v.u;
		int nb = ir_kind_bytes(k);
		if (nb < 8)
			bits &= ((uint64_t)1 << (8 * nb)) - 1;
		sb_printf(sb, "0x%llx", (unsigned long long)bits);
	} else if (ir_kind_is_float(k)) {
		sb_printf(sb, "%f", v.f);
	} else if (ir_kind_is_signed(k) || k == IR_I1) {
		sb_printf(sb, "%lld", (long long)v.i);
	} else {
		sb_printf(sb, "%llu", (unsigned long long)v.u);
	}
}

/* tl.device_print in debug mode: one line per element, "pid (x, y, z)
 * idx (i, j) PREFIX values", into the context's device output. */
static tilec_status exec_device_print(interp *in, const ir_op *op)
{
	ir_type t = op->nargs ? vtype(in, op->args[0]) : ir_scalar(IR_VOID);
	for (int i = 1; i < op->nargs; i++)
		if (vtype(in, op->args[i]).rank)
			t = vtype(in, op->args[i]);
	int64_t n = ir_numel(t);
	strbuf *sb = &in->ctx->device_out;
	for (int64_t e = 0; e < n; e++) {
		sb_printf(sb, "pid (%u, %u, %u)", in->pid[0], in->pid[1], in->pid[2]);
		if (t.rank) {
			sb_puts(sb, " idx (");
			for (int d = 0; d < t.rank; d++) {
				int64_t below = 1;
				for (int j = d + 1; j < t.rank; j++)
					below *= t.shape[j];
				sb_printf(sb, d ? ", %lld" : "%lld", (long long)(e / below % t.shape[d]));
			}
			sb_putc(sb, ')');
		}
		sb_printf(sb, " %s", op->name);
		for (int i = 0; i < op->nargs; i++) {
			ir_type at = vtype(in, op->args[i]);
			sb_putc(sb, ' ');
			print_value(sb, (ir_kind)at.kind, V(in, op->args[i])[at.rank ? e : 0], op->ival != 0);
		}
		sb_putc(sb, '\n');
	}
	return TILEC_OK;
}

/* r[i] = src[i with its axis coordinate replaced by index[i]]; an index
 * outside the source is an error (the GPU reads something undefined). */
static tilec_status exec_gather(interp *in, const ir_op *op)
{
	ir_type st = vtype(in, op->args[0]), it = vtype(in, op->args[1]);
	ir_kind ik = (ir_kind)it.kind;
	const slot *src = V(in, op->args[0]), *idx = V(in, op->args[1]);
	slot *r = V(in, op->results[0]);
	int64_t n = ir_numel(it), inner = 1, len = it.shape[op->axis], slen = st.shape[op->axis];
	for (int d = op->axis + 1; d < it.rank; d++)
		inner *= it.shape[d];
	for (int64_t i = 0; i < n; i++) {
		int64_t o = i / (inner * len), j = i % inner;
		int64_t k = ir_kind_is_signed(ik) ? idx[i].i : (int64_t)idx[i].u;
		if (k < 0 || k >= slen)
			return runtime_error(in, op, "tl.gather: index %lld is outside the source's %lld elements along axis %d",
					     (long long)k, (long long)slen, op->axis);
		r[i] = src[(o * slen + k) * inner + j];
	}
	return TILEC_OK;
}

/* counts of the values 0 .. bins-1 among the (unmasked) elements */
static tilec_status exec_histogram(interp *in, const ir_op *op)
{
	ir_type xt = vtype(in, op->args[0]);
	bool sg = ir_kind_is_signed((ir_kind)xt.kind);
	const slot *x = V(in, op->args[0]), *m = op->flags & IR_FLAG_HAS_MASK ? V(in, op->args[1]) : NULL;
	slot *r = V(in, op->results[0]);
	for (int64_t b = 0; b < op->ival; b++)
		r[b].i = 0;
	for (int64_t i = 0; i < xt.shape[0]; i++) {
		if (m && !m[i].i)
			continue;
		if (sg ? (x[i].i >= 0 && x[i].i < op->ival) : x[i].u < (uint64_t)op->ival)
			r[x[i].i].i++;
	}
	return TILEC_OK;
}

/* tl.reduce with a combine region: each row along the axis is folded
 * pairwise as a tree (neighbours first, the earlier partial result always
 * the left operand), the order the GPU's in-thread and butterfly steps
 * approximate; for an associative and commutative combine every order
 * gives the same result. */
static tilec_status exec_reduce_fn(interp *in, const ir_op *op)
{
	ir_type at = vtype(in, op->args[0]);
	const ir_region *r = &op->regions[0];
	const ir_op *y = terminator_of(r, IR_OP_YIELD);
	int k = op->nargs;
	int64_t len = at.shape[op->axis], outer = 1, inner = 1;
	for (int d = 0; d < op->axis; d++)
		outer *= at.shape[d];
	for (int d = op->axis + 1; d < at.rank; d++)
		inner *= at.shape[d];
	slot *tmp = malloc(sizeof(slot) * (size_t)(len * k));
	if (!tmp)
		return TILEC_ERR_NOMEM;
	tilec_status st = TILEC_OK;
	for (int64_t o = 0; o < outer && !st; o++)
		for (int64_t j = 0; j < inner && !st; j++) {
			for (int64_t t = 0; t < len; t++)
				for (int i = 0; i < k; i++)
					tmp[i * len + t] = V(in, op->args[i])[o * len * inner + t * inner + j];
			for (int64_t step = 1; step < len && !st; step *= 2)
				for (int64_t t = 0; t + step < len && !st; t += 2 * step) {
					for (int i = 0; i < k; i++) {
						V(in, r->params[i])[0] = tmp[i * len + t];
						V(in, r->params[k + i])[0] = tmp[i * len + t + step];
					}
					if ((st = exec_region(in, r)) != TILEC_OK)
						break;
					for (int i = 0; i < k; i++)
						tmp[i * len + t] = V(in, y->args[i])[0];
				}
			for (int i = 0; i < k && !st; i++)
				V(in, op->results[i])[o * inner + j] = tmp[i * len];
		}
	free(tmp);
	return st;
}

static tilec_status exec_while(interp *in, const ir_op *op)
{
	const ir_region *before = &op->regions[0], *after = &op->regions[1];
	const ir_op *cond = terminator_of(before, IR_OP_CONDITION), *y = terminator_of(after, IR_OP_YIELD);
	tilec_status st = parallel_copy(in, before->params, op->args, op->nargs);
	for (;;) {
		if (st || (st = exec_region(in, before)))
			return st;
		if (!V(in, cond->args[0])[0].i)
			break;
		if ((st = parallel_copy(in, after->params, cond->args + 1, op->nresults)) || (st = exec_region(in, after)))
			return st;
		st = parallel_copy(in, before->params, y->args, op->nargs);
	}
	return parallel_copy(in, op->results, cond->args + 1, op->nresults);
}

static tilec_status exec_op(interp *in, const ir_op *op)
{
	int64_t n = op->nresults ? rnumel(in, op) : 0;
	slot *r = op->nresults ? V(in, op->results[0]) : NULL;
	switch (op->code) {
	case IR_OP_CONST: {
		ir_kind k = rkind(in, op);
		slot s;
		if (ir_kind_is_fp8(k))
			s.u = ir_fp8_from_f32(k, (float)op->fval, IR_FP8_SM90);
		else if (ir_kind_is_float(k))
			s.f = round_to(k, op->fval);
		else
			s.i = wrap(k, (uint64_t)op->ival);
		for (int64_t i = 0; i < n; i++)
			r[i] = s;
		return TILEC_OK;
	}
	case IR_OP_PROGRAM_ID: r[0].i = in->pid[op->axis]; return TILEC_OK;
	case IR_OP_NUM_PROGRAMS: r[0].i = in->grid[op->axis]; return TILEC_OK;
	case IR_OP_CTA_RANK: r[0].i = in->rank; return TILEC_OK;
	case IR_OP_ARANGE:
		for (int64_t i = 0; i < n; i++)
			r[i].i = op->ival + i;
		return TILEC_OK;
	case IR_OP_SPLAT: {
		slot s = V(in, op->args[0])[0];
		for (int64_t i = 0; i < n; i++)
			r[i] = s;
		return TILEC_OK;
	}
	case IR_OP_BROADCAST: exec_broadcast(in, op); return TILEC_OK;
	case IR_OP_EXPAND_DIMS:
	case IR_OP_RESHAPE:
	case IR_OP_HINT: copy_value(in, op->results[0], op->args[0]); return TILEC_OK;
	case IR_OP_PERMUTE: exec_permute(in, op); return TILEC_OK;
	case IR_OP_JOIN: case IR_OP_SPLIT: case IR_OP_FLIP: case IR_OP_CAT: exec_shape_op(in, op); return TILEC_OK;
	case IR_OP_GATHER: return exec_gather(in, op);
	case IR_OP_DEVICE_ASSERT: return exec_device_assert(in, op);
	case IR_OP_DEVICE_PRINT: return exec_device_print(in, op);
	case IR_OP_INLINE_ASM:
		/* the special registers Triton's cuda helpers read: the program runs
		 * on "SM 0", the global timer is the host's monotonic clock */
		if (op->nargs == 0 && op->name && !strcmp(op->name, "mov.u32 $0, %smid;")) {
			r[0].i = 0;
			return TILEC_OK;
		}
		if (op->nargs == 0 && op->name && !strcmp(op->name, "mov.u64 $0, %globaltimer;")) {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			r[0].i = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
			return TILEC_OK;
		}
		return runtime_error(in, op, "the interpreter cannot run tl.inline_asm_elementwise (its PTX runs on the GPU only)");
	case IR_OP_HISTOGRAM: return exec_histogram(in, op);
	case IR_OP_CAST:
	case IR_OP_BITCAST: exec_cast(in, op); return TILEC_OK;
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: case IR_OP_DIV: case IR_OP_REM:
	case IR_OP_AND: case IR_OP_OR: case IR_OP_XOR: case IR_OP_SHL: case IR_OP_SHR:
	case IR_OP_MIN: case IR_OP_MAX:
		return exec_binary(in, op);
	case IR_OP_NEG: case IR_OP_NOT: case IR_OP_MATH: exec_unary(in, op); return TILEC_OK;
	case IR_OP_CMP: exec_cmp(in, op); return TILEC_OK;
	case IR_OP_SELECT: {
		const slot *c = V(in, op->args[0]), *a = V(in, op->args[1]), *b = V(in, op->args[2]);
		for (int64_t i = 0; i < n; i++)
			r[i] = c[i].i ? a[i] : b[i];
		return TILEC_OK;
	}
	case IR_OP_FMA: exec_fma(in, op); return TILEC_OK;
	case IR_OP_EXTERN: return exec_extern(in, op);
	case IR_OP_PTR_ADD: exec_ptr_add(in, op); return TILEC_OK;
	case IR_OP_LOAD: return exec_load(in, op);
	case IR_OP_STORE: return exec_store(in, op);
	case IR_OP_ATOMIC_RMW:
	case IR_OP_ATOMIC_CAS: return exec_atomic(in, op);
	case IR_OP_BARRIER: return TILEC_OK; /* a program's threads run as one */
	case IR_OP_GRID_DEP: return TILEC_OK; /* the grid before has finished */
	case IR_OP_REDUCE: return exec_reduce(in, op);
	case IR_OP_SCAN: return exec_scan(in, op);
	case IR_OP_REDUCE_FN: return exec_reduce_fn(in, op);
	case IR_OP_DOT: return exec_dot(in, op);
	case IR_OP_ASSUME:
		return V(in, op->args[0])[0].i ? TILEC_OK : runtime_error(in, op, "tl.assume: the condition does not hold");
	case IR_OP_FOR: return exec_for(in, op);
	case IR_OP_IF: return exec_if(in, op);
	case IR_OP_WHILE: return exec_while(in, op);
	case IR_OP_YIELD:
	case IR_OP_CONDITION: return TILEC_OK; /* read by the parent op */
	case IR_OP_ASYNC_COPY: return exec_async_copy(in, op);
	case IR_OP_TMA_COPY: return exec_tma_copy(in, op);
	case IR_OP_LOCAL_LOAD: return exec_local_load(in, op);
	case IR_OP_LOCAL_ALLOC: /* the ring is the value's slots */
	case IR_OP_LOCAL_DEALLOC:
	case IR_OP_ASYNC_COMMIT:
	case IR_OP_ASYNC_WAIT: return TILEC_OK; /* copies complete when issued */
	case IR_OP_TMA_WAIT: return exec_tma_wait(in, op);
	default: return runtime_error(in, op, "cannot interpret '%s'", ir_opcode_name(op->code));
	}
}

/* The producer's side reads v: an error where its own ops did not compute it. */
static tilec_status producer_reads(interp *in, const ir_op *op, int v)
{
	return in->known[v] ? TILEC_OK
			    : runtime_error(in, op, "the producer reads %%%d, which only the consumers compute", v);
}

/* Ops from..to of r on this side: the producer's runs the marked ones,
 * reading only what it computed; the consumers' all but the marked copies. */
static tilec_status exec_ops(interp *in, const ir_region *r, int from, int to)
{
	for (int i = from; i < to; i++) {
		const ir_op *op = r->ops[i];
		if (in->side == SIDE_CONSUMERS && op->code == IR_OP_TMA_COPY && op->flags & IR_FLAG_PRODUCER)
			continue;
		if (in->side == SIDE_PRODUCER) {
			if (!(op->flags & IR_FLAG_PRODUCER))
				continue;
			/* a copy's ring was allocated before the split */
			tilec_status st = TILEC_OK;
			for (int a = op->code == IR_OP_TMA_COPY; a < op->nargs && !st; a++)
				st = producer_reads(in, op, op->args[a]);
			if (st)
				return st;
		}
		tilec_status st = exec_op(in, op);
		if (st)
			return st;
		for (int j = 0; in->known && j < op->nresults; j++)
			in->known[op->results[j]] = true;
	}
	return TILEC_OK;
}

static tilec_status exec_region(interp *in, const ir_region *r)
{
	return exec_ops(in, r, 0, r->nops);
}

/* ---------------------------------------------------------------------
 * Entry point
 * --------------------------------------------------------------------- */

/* Loads the arguments into the parameters' slots and checks the
 * specialization's predicates (divisible by 16, 8 or 4; == 1) against them. */
static tilec_status bind_args(interp *in, const interp_arg *args)
{
	const ir_func *f = in->f;
	for (int i = 0; i < f->nparams; i++) {
		const ir_param *p = &f->params[i];
		ir_kind k = (ir_kind)p->type.kind;
		slot *s = V(in, i);
		const char *name = p->name ? p->name : "?";
		if (k == IR_PTR) {
			int b = args[i].buffer;
			if (b < -1 || b >= in->nbufs) {
				diag_error(in->ctx, f->loc, "argument %d ('%s'): no buffer %d", i, name, b);
				return TILEC_ERR_INVALID;
			}
			if (args[i].offset > ADDR_MASK) {
				diag_error(in->ctx, f->loc, "argument %d ('%s'): offset %llu is too large", i, name,
					   (unsigned long long)args[i].offset);
				return TILEC_ERR_INVALID;
			}
			s->u = ((uint64_t)(b + 1) << ADDR_SHIFT) + args[i].offset;
		} else {
			*s = convert(ir_kind_is_float(k) ? IR_F64 : ir_kind_is_signed(k) ? IR_I64 : IR_U64, k, args[i].value);
		}
		int by = p->div16 ? 16 : p->div_by;
		bool divisible = by && (k == IR_PTR || ir_kind_is_signed(k) ? s->i % by == 0 : s->u % (uint64_t)by == 0);
		if (by && (ir_kind_is_float(k) || !divisible)) {
			diag_error(in->ctx, f->loc, "argument %d ('%s') is not divisible by %d, as the kernel was specialized for",
				   i, name, by);
			return TILEC_ERR_INVALID;
		}
		if (p->equal_one && (ir_kind_is_float(k) || s->i != 1)) {
			diag_error(in->ctx, f->loc, "argument %d ('%s') is not 1, as the kernel was specialized for", i, name);
			return TILEC_ERR_INVALID;
		}
	}
	return TILEC_OK;
}

/* One program of a split function: the ops before the loop on each side
 * (the producer's first: the prologue's copies), the loop's iterations
 * interleaved (the producer's iteration j before the consumers' j + lag),
 * the rest on the consumers' side. */
static tilec_status run_split(interp *p, interp *c, int at, int lag)
{
	const ir_func *f = p->f;
	const ir_op *loop = f->body.ops[at];
	for (int i = 0; i < f->nvalues; i++)
		p->known[i] = i < f->nparams;
	memset(p->fills, 0, sizeof(int) * (size_t)(p->nslots + 1));
	memset(p->waits, 0, sizeof(int) * (size_t)(p->nslots + 1));
	tilec_status st = exec_ops(p, &f->body, 0, at);
	if (!st)
		st = exec_ops(c, &f->body, 0, at);
	for (int a = 0; !st && a < 3; a++)
		st = producer_reads(p, loop, loop->args[a]);
	if (st)
		return st;
	loop_run pl, cl;
	if ((st = loop_begin(p, loop, &pl)))
		return st;
	if ((st = loop_begin(c, loop, &cl))) {
		loop_free(&pl);
		return st;
	}
	while (!st && (loop_more(&cl) || loop_more(&pl))) {
		if (loop_more(&pl) && (!loop_more(&cl) || pl.iter + lag <= cl.iter))
			st = loop_step(p, &pl);
		else
			st = loop_step(c, &cl);
	}
	if (!st) {
		loop_end(c, &cl);
		st = exec_ops(c, &f->body, at + 1, f->body.nops);
	}
	loop_free(&pl);
	loop_free(&cl);
	return st;
}

/* The values' slots, one block of storage. */
static tilec_status alloc_values(interp *in)
{
	const ir_func *f = in->f;
	size_t total = 0;
	for (int i = 0; i < f->nvalues; i++)
		total += (size_t)ir_numel(f->values[i].type);
	in->vals = malloc(sizeof(slot *) * (size_t)(f->nvalues + 1));
	in->store = calloc(total ? total : 1, sizeof(slot));
	if (!in->vals || !in->store)
		return TILEC_ERR_NOMEM;
	size_t at = 0;
	for (int i = 0; i < f->nvalues; i++) {
		in->vals[i] = in->store + at;
		at += (size_t)ir_numel(f->values[i].type);
	}
	return TILEC_OK;
}

/* The consumers' side of a split run: values of its own, the producer's
 * rings, and the bookkeeping of their copies. */
static tilec_status alloc_split(interp *p, interp *c)
{
	const ir_func *f = p->f;
	tilec_status st = alloc_values(c);
	int nslots = 0;
	p->known = calloc((size_t)f->nvalues + 1, sizeof(bool));
	p->ring_at = malloc(sizeof(int) * (size_t)(f->nvalues + 1));
	if (st || !p->known || !p->ring_at)
		return TILEC_ERR_NOMEM;
	for (int i = 0; i < f->nvalues; i++) {
		const ir_op *d = f->values[i].def;
		p->ring_at[i] = d && d->code == IR_OP_LOCAL_ALLOC ? nslots : -1;
		if (p->ring_at[i] >= 0) {
			nslots += (int)f->values[i].type.shape[0];
			c->vals[i] = p->vals[i];
		}
	}
	p->fills = calloc((size_t)nslots + 1, sizeof(int));
	p->waits = calloc((size_t)nslots + 1, sizeof(int));
	if (!p->fills || !p->waits)
		return TILEC_ERR_NOMEM;
	p->nslots = nslots;
	c->ring_at = p->ring_at;
	c->fills = p->fills;
	c->waits = p->waits;
	p->side = SIDE_PRODUCER;
	c->side = SIDE_CONSUMERS;
	return TILEC_OK;
}

static tilec_status run(tilec_ctx *ctx, const ir_func *f, const uint32_t grid[3], interp_buffer *buffers, int nbuffers,
		       const interp_arg *args, bool split_run, int lag)
{
	if (!ctx || !f || !grid || nbuffers < 0 || (nbuffers && !buffers) || (f->nparams && !args))
		return TILEC_ERR_INVALID;
	if ((uint64_t)nbuffers >= (UINT64_C(1) << (64 - ADDR_SHIFT)) - 1)
		return TILEC_ERR_INVALID;
	tilec_status st = ir_verify(ctx, f);
	if (st)
		return st;
	int split = split_run ? ir_producer_loop(f) : -1;
	interp in = {ctx, f, buffers, nbuffers, NULL, NULL, {grid[0], grid[1], grid[2]}, {0, 0, 0}, 0,
		     SIDE_ALL, NULL, NULL, NULL, NULL, 0};
	interp cons = in;
	st = alloc_values(&in);
	if (!st && split >= 0)
		st = alloc_split(&in, &cons);
	if (!st)
		st = bind_args(&in, args);
	for (int i = 0; !st && split >= 0 && i < f->nparams; i++) /* the consumers' parameters */
		memcpy(cons.vals[i], in.vals[i], sizeof(slot) * (size_t)ir_numel(f->values[i].type));
	/* a program split over a cluster (passes/cluster.c) runs its CTAs one
	 * after another */
	uint32_t ctas = f->num_ctas > 1 && ir_region_has(&f->body, IR_OP_CTA_RANK) ? (uint32_t)f->num_ctas : 1;
	for (uint32_t z = 0; !st && z < grid[2]; z++)
		for (uint32_t y = 0; !st && y < grid[1]; y++)
			for (uint32_t x = 0; !st && x < grid[0]; x++)
				for (in.rank = 0; !st && in.rank < ctas; in.rank++) {
					in.pid[0] = cons.pid[0] = x;
					in.pid[1] = cons.pid[1] = y;
					in.pid[2] = cons.pid[2] = z;
					cons.rank = in.rank;
					st = split >= 0 ? run_split(&in, &cons, split, lag) : exec_region(&in, &f->body);
				}
	free(in.vals);
	free(in.store);
	free(cons.vals);
	free(cons.store);
	free(in.known);
	free(in.ring_at);
	free(in.fills);
	free(in.waits);
	return st;
}

tilec_status interp_run(tilec_ctx *ctx, const ir_func *f, const uint32_t grid[3], interp_buffer *buffers,
			int nbuffers, const interp_arg *args)
{
	return run(ctx, f, grid, buffers, nbuffers, args, false, 0);
}

tilec_status interp_run_split(tilec_ctx *ctx, const ir_func *f, const uint32_t grid[3], interp_buffer *buffers,
			      int nbuffers, const interp_arg *args, int lag)
{
	return run(ctx, f, grid, buffers, nbuffers, args, true, lag);
}
