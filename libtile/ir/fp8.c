/* fp8.c - the two fp8 formats and their conversions, bit for bit as Triton
 * 3.6 converts them on NVIDIA GPUs.
 *
 * fp8e4nv is e4m3fn (bias 7, no infinities, 0x7f/0xff NaN, largest 448);
 * fp8e5 is e5m2 (bias 15, IEEE-like). A value of either kind is its byte.
 * Widening is exact (fp8e5 to bf16 excepted: Triton moves the bits into
 * place and scales by 2^112, so infinities and NaNs come out finite).
 * Narrowing depends on the arch, because Triton picks different
 * instructions per compute capability:
 *   sm_90 and up: cvt.rn.satfinite from fp32, fp16 and (through fp32) bf16:
 *     round to nearest even, finite values beyond the largest clamp to it,
 *     infinities too, NaN stays NaN;
 *   sm_89: the same from fp16 and bf16, but fp32 goes to fp16 first with
 *     round-toward-zero (cvt.rz.f16.f32), then through the fp16 route;
 *   below sm_89: fp8e4nv is refused; fp8e5 comes from fp16 by adding half
 *     an ulp to the bits (ties away from zero, no saturation: overflow is
 *     infinity), from fp32 through an fp16 rounded toward zero, from bf16 by
 *     clamping the bits to [2^-15, 2^48] and rebasing the exponent (values
 *     beyond fp8e5's range wrap, as Triton's routine has it).
 * The interpreter converts with the sm_90 rules; the lowering (nvptx/math.c)
 * emits each tier's instructions and these functions are its reference.
 */
#include "ir/ir.h"

#include <math.h>

/* mantissa bits, bias, largest finite value, the NaN byte */
static void format_of(ir_kind k, int *mbits, int *bias, double *maxv)
{
	bool e4 = k == IR_F8E4NV;
	*mbits = e4 ? 3 : 2;
	*bias = e4 ? 7 : 15;
	*maxv = e4 ? 448.0 : 57344.0;
}

/* x rounded to a grid of `mbits` mantissa bits with minimum normal
 * exponent emin (subnormals below), to nearest even or toward zero. */
static double round_grid(double a, int mbits, int emin, bool rz)
{
	int e;
	frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
	e -= 1;
	if (e < emin)
		e = emin;
	double q = ldexp(1.0, e - mbits), n = a / q, f = floor(n), r = n - f;
	if (!rz && (r > 0.5 || (r == 0.5 && fmod(f, 2.0) != 0.0)))
		f += 1.0;
	return f * q;
}

/* Encodes a finite non-negative value already on fp8's grid. */
static uint8_t encode(ir_kind k, double v)
{
	int mbits, bias;
	double maxv;
	format_of(k, &mbits, &bias, &maxv);
	int emin = 1 - bias;
	if (v < ldexp(1.0, emin))
		return (uint8_t)(v / ldexp(1.0, emin - mbits));
	int e;
	frexp(v, &e);
	e -= 1;
	int m = (int)(v / ldexp(1.0, e - mbits)) - (1 << mbits);
	return (uint8_t)(((e + bias) << mbits) | m);
}

/* cvt.rn.satfinite to fp8 of an exact value (fp32, fp16 and bf16 values
 * are all exact doubles). */
static uint8_t satfinite(ir_kind k, double x)
{
	if (x != x)
		return 0x7f;
	int mbits, bias;
	double maxv;
	format_of(k, &mbits, &bias, &maxv);
	uint8_t sign = signbit(x) ? 0x80 : 0;
	double a = fabs(x);
	if (a == 0.0)
		return sign;
	double v = isinf(a) ? INFINITY : round_grid(a, mbits, 1 - bias, false);
	if (v > maxv)
		v = maxv;
	return (uint8_t)(sign | encode(k, v));
}

/* cvt.rz.f16.f32: toward zero, finite overflow gives 65504. */
static uint16_t f32_to_f16_rz(float x)
{
	uint32_t u = ir_f32_bits(x);
	uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
	double a = fabs((double)x);
	if (x != x)
		return 0x7fff; /* the canonical NaN */
	if (isinf(a))
		return sign | 0x7c00;
	double v = round_grid(a, 10, -14, true);
	if (v > 65504.0)
		v = 65504.0;
	return (uint16_t)(sign | interp_f32_to_f16((float)v));
}

uint8_t ir_fp8_from_f16(ir_kind k, uint16_t h, ir_fp8_tier tier)
{
	if (tier == IR_FP8_SM80 && k == IR_F8E5)
		return (uint8_t)(((h & 0xfffeu) + 0x80u) >> 8);
	return satfinite(k, interp_f16_to_f32(h));
}

uint8_t ir_fp8_from_f32(ir_kind k, float x, ir_fp8_tier tier)
{
	if (tier != IR_FP8_SM90)
		return ir_fp8_from_f16(k, f32_to_f16_rz(x), tier);
	return satfinite(k, x);
}

uint8_t ir_fp8_from_bf16(ir_kind k, uint16_t h, ir_fp8_tier tier)
{
	if (tier == IR_FP8_SM80 && k == IR_F8E5) {
		uint32_t v = h & 0x7fffu;
		v = v < 0x3800u ? 0x3800u : v > 0x57e0u ? 0x57e0u : v;
		return (uint8_t)((((v + 0x10u - 0x3800u) >> 5) & 0xffu) | ((h >> 8) & 0x80u));
	}
	return satfinite(k, interp_bf16_to_f32(h));
}

uint16_t ir_fp8_to_f16(ir_kind k, uint8_t b)
{
	if (k == IR_F8E5)
		return (uint16_t)(b << 8);
	uint16_t sign = (uint16_t)((b & 0x80) << 8);
	int e = (b >> 3) & 0xf, m = b & 7;
	if (e == 15 && m == 7)
		return 0x7fff; /* the canonical NaN */
	if (e == 0) /* m * 2^-9: normal in fp16 */
		return (uint16_t)(sign | interp_f32_to_f16(ldexpf((float)m, -9)));
	return (uint16_t)(sign | ((e + 8) << 10) | (m << 7));
}

float ir_fp8_to_f32(ir_kind k, uint8_t b)
{
	return interp_f16_to_f32(ir_fp8_to_f16(k, b));
}

uint16_t ir_fp8_to_bf16(ir_kind k, uint8_t b)
{
	if (k == IR_F8E5) /* the bits moved into place, times 2^112 */
		return (uint16_t)((ir_f32_bits(ir_f32_from_bits((uint32_t)(b & 0x7f) << 21) * 0x1p112f) >> 16) | ((b & 0x80u) << 8));
	return interp_f32_to_bf16(ir_fp8_to_f32(k, b));
}
