/* test_fp8.c - fp8e4nv and fp8e5: the conversions of ir/fp8.c against
 * references written here from the formats' definitions, then fp8 kernels
 * in the reference interpreter, then what the front end refuses.
 *
 * Widening: all 256 bytes of each kind decoded by sign, exponent and
 * mantissa (NaN, infinities, subnormals, -0) and compared with fp32, fp16
 * and bf16 results (fp8e5's bf16 as Triton computes it: infinities and NaNs
 * scaled to finite values). Narrowing, sm_90 and sm_89 rules: the nearest
 * fp8 value found by scanning all 256, ties to the even byte, saturated at
 * the largest finite, NaN to NaN; every fp16 and bf16 pattern, and fp32
 * inputs around every fp8 value and midpoint (ties, one ulp either side),
 * subnormals, overflow, infinities and NaN; sm_89's fp32 through an fp16
 * rounded toward zero; sm_80's fp8e5 with ties away from zero and no
 * saturation. Kernels: casts both ways, bitcasts, tl.full and tl.where on
 * fp8, fp8 dots (both kinds and mixed) against a C loop.
 */
#include <math.h>
#include <stdlib.h>

#include "kernel_launch.h"

#define KDIR "tests/kernels/"

/* ---------------------------------------------------------------------
 * References from the formats' definitions
 * --------------------------------------------------------------------- */

/* The value of byte b (NAN for NaNs). */
static double ref_value(ir_kind k, unsigned b)
{
	bool e4 = k == IR_F8E4NV;
	int mbits = e4 ? 3 : 2, bias = e4 ? 7 : 15, ebits = e4 ? 4 : 5;
	int s = b >> 7, e = (b >> mbits) & ((1 << ebits) - 1), m = b & ((1 << mbits) - 1);
	double v;
	if (e4 && e == 15 && m == 7)
		return NAN;
	if (!e4 && e == 31)
		v = m ? NAN : INFINITY;
	else if (e == 0)
		v = ldexp(m, 1 - bias - mbits);
	else
		v = ldexp(1.0 + m / (double)(1 << mbits), e - bias);
	return s ? -v : v;
}

static bool is_nan_byte(ir_kind k, unsigned b)
{
	return isnan(ref_value(k, b));
}

/* Nearest fp8 byte to x: by scan, ties to the even byte; `sat`: beyond the
 * largest finite value (and infinities) clamp to it; else (fp8e5) round to
 * infinity from the midpoint to the next binade up; `away`: ties away from zero. */
static unsigned ref_round(ir_kind k, double x, bool sat, bool away)
{
	double maxv = k == IR_F8E4NV ? 448.0 : 57344.0;
	unsigned sign = signbit(x) ? 0x80 : 0;
	double a = fabs(x);
	if (!sat && a >= (k == IR_F8E4NV ? 480.0 : 61440.0))
		return sign | 0x7c;
	if (a >= maxv)
		return sign | (k == IR_F8E4NV ? 0x7e : 0x7b);
	unsigned best = 0;
	double bd = INFINITY;
	for (unsigned b = 0; b < 0x80; b++) {
		double v = ref_value(k, b);
		if (isnan(v) || isinf(v))
			continue;
		double d = fabs(v - a);
		if (d < bd || (d == bd && (away ? v > ref_value(k, best) : (b & 1) == 0))) {
			bd = d;
			best = b;
		}
	}
	return sign | best;
}

static uint32_t fbits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float bitsf(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* fp16 value of bits h, by definition */
static double ref_f16(unsigned h)
{
	int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
	double v = e == 31 ? (m ? NAN : INFINITY) : e ? ldexp(1.0 + m / 1024.0, e - 15) : ldexp(m, -24);
	return s ? -v : v;
}

/* cvt.rz.f16.f32 by search: the largest fp16 magnitude not above |x| */
static unsigned ref_rz_f16(float x)
{
	double a = fabs((double)x);
	unsigned sign = signbit(x) ? 0x8000 : 0;
	if (isinf(a))
		return sign | 0x7c00;
	unsigned lo = 0, hi = 0x7bff;
	while (lo < hi) {
		unsigned mid = (lo + hi + 1) / 2;
		if (ref_f16(mid) <= a)
			lo = mid;
		else
			hi = mid - 1;
	}
	return sign | lo;
}

static bool same_fp8(ir_kind k, unsigned got, unsigned want)
{
	return got == want || (is_nan_byte(k, got) && is_nan_byte(k, want));
}

/* ---------------------------------------------------------------------
 * Conversions
 * --------------------------------------------------------------------- */

static const ir_kind KINDS[2] = {IR_F8E4NV, IR_F8E5};

static void test_widening(void)
{
	for (int i = 0; i < 2; i++) {
		ir_kind k = KINDS[i];
		int bad32 = 0, bad16 = 0, badb = 0;
		for (unsigned b = 0; b < 256; b++) {
			double v = ref_value(k, b);
			float f = ir_fp8_to_f32(k, (uint8_t)b);
			if (isnan(v) ? !isnan(f) : (f != v || !signbit(f) != !signbit(v)))
				bad32++;
			double h = ref_f16(ir_fp8_to_f16(k, (uint8_t)b));
			if (isnan(v) ? !isnan(h) : (h != v || !signbit(h) != !signbit(v)))
				bad16++;
			float bf = interp_bf16_to_f32(ir_fp8_to_bf16(k, (uint8_t)b));
			double wb = v;
			if (k == IR_F8E5 && ((b >> 2) & 31) == 31) /* Triton: 2^16 * (1 + m/4), finite */
				wb = ((b & 0x80) ? -1 : 1) * ldexp(1.0 + (b & 3) / 4.0, 16);
			if (isnan(wb) ? !isnan(bf) : (bf != wb || !signbit(bf) != !signbit(wb)))
				badb++;
		}
		CHECK_MSG(bad32 == 0, "%s to fp32: %d of 256 bytes wrong", ir_kind_name(k), bad32);
		CHECK_MSG(bad16 == 0, "%s to fp16: %d of 256 bytes wrong", ir_kind_name(k), bad16);
		CHECK_MSG(badb == 0, "%s to bf16: %d of 256 bytes wrong", ir_kind_name(k), badb);
	}
	/* anchors of the formats */
	CHECK(ir_fp8_to_f32(IR_F8E4NV, 0x7e) == 448.0f);
	CHECK(ir_fp8_to_f32(IR_F8E4NV, 0x01) == 0x1p-9f);
	CHECK(ir_fp8_to_f32(IR_F8E4NV, 0x08) == 0x1p-6f);
	CHECK(isnan(ir_fp8_to_f32(IR_F8E4NV, 0x7f)) && isnan(ir_fp8_to_f32(IR_F8E4NV, 0xff)));
	CHECK(ir_fp8_to_f32(IR_F8E4NV, 0x78) == 256.0f);
	CHECK(ir_fp8_to_f32(IR_F8E5, 0x7b) == 57344.0f);
	CHECK(ir_fp8_to_f32(IR_F8E5, 0x7c) == INFINITY && ir_fp8_to_f32(IR_F8E5, 0xfc) == -INFINITY);
	CHECK(ir_fp8_to_f32(IR_F8E5, 0x01) == 0x1p-16f);
	CHECK(signbit(ir_fp8_to_f32(IR_F8E5, 0x80)) && ir_fp8_to_f32(IR_F8E5, 0x80) == 0.0f);
	CHECK(ir_fp8_to_bf16(IR_F8E5, 0x7c) == 0x4780); /* Triton's infinity: 65536 */
}

/* fp32 inputs: every fp8 value and midpoint, one fp32 ulp either side,
 * both signs; special values; pseudo-random bit patterns */
static int sweep_f32(float *out, int cap)
{
	int n = 0;
	for (int i = 0; i < 2; i++)
		for (unsigned b = 0; b < 0x80; b++) {
			double v = ref_value(KINDS[i], b), w = ref_value(KINDS[i], b + 1 < 0x80 ? b + 1 : b);
			if (isnan(v) || isinf(v))
				continue;
			double pts[2] = {v, isnan(w) || isinf(w) ? v * 1.0625 : (v + w) / 2};
			for (int p = 0; p < 2; p++)
				for (int d = -1; d <= 1; d++) {
					float f = (float)pts[p];
					if (d)
						f = nextafterf(f, d > 0 ? INFINITY : 0.0f);
					if (n + 2 <= cap) {
						out[n++] = f;
						out[n++] = -f;
					}
				}
		}
	static const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, 1e-30f, 65504.0f, 65520.0f,
					 70000.0f, 1e30f, 3.4e38f, 448.0f, 464.0f, 465.0f, 480.0f, 57344.0f, 61440.0f,
					 61439.0f, 0x1p-10f, 0x1p-17f, 0x1.8p-17f};
	for (size_t i = 0; i < sizeof specials / sizeof specials[0] && n + 2 <= cap; i++) {
		out[n++] = specials[i];
		out[n++] = -specials[i];
	}
	uint64_t st = 7;
	while (n < cap) {
		st = st * UINT64_C(6364136223846793005) + 1442695040888963407u;
		uint32_t u = (uint32_t)(st >> 32);
		/* mostly magnitudes near fp8's range: exponents 2^-20 .. 2^17 */
		if (u & 1)
			u = (u & 0x807fffff) | ((uint32_t)(107 + (u >> 24) % 38) << 23);
		out[n++] = bitsf(u);
	}
	return n;
}

static void test_narrowing(void)
{
	enum { N = 8192 };
	static float xs[N];
	int n = sweep_f32(xs, N);
	for (int i = 0; i < 2; i++) {
		ir_kind k = KINDS[i];
		int bad90 = 0, bad89 = 0, bad80 = 0, first90 = -1;
		for (int j = 0; j < n; j++) {
			float x = xs[j];
			unsigned want = isnan(x) ? 0x7f : ref_round(k, x, true, false);
			if (!same_fp8(k, ir_fp8_from_f32(k, x, IR_FP8_SM90), want) && !bad90++)
				first90 = j;
			unsigned h = ref_rz_f16(x);
			unsigned w89 = isnan(x) ? 0x7f : ref_round(k, ref_f16(h), true, false);
			if (!same_fp8(k, ir_fp8_from_f32(k, x, IR_FP8_SM89), w89))
				bad89++;
			if (k == IR_F8E5 && !isnan(x)) {
				unsigned w80 = ref_round(k, ref_f16(h), false, true);
				if (ir_fp8_from_f32(k, x, IR_FP8_SM80) != w80)
					bad80++;
			}
		}
		CHECK_MSG(bad90 == 0, "fp32 to %s (sm_90): %d of %d wrong; first %a: got 0x%02x", ir_kind_name(k), bad90, n,
			  first90 >= 0 ? xs[first90] : 0.0f,
			  first90 >= 0 ? ir_fp8_from_f32(k, xs[first90], IR_FP8_SM90) : 0);
		CHECK_MSG(bad89 == 0, "fp32 to %s (sm_89): %d of %d wrong", ir_kind_name(k), bad89, n);
		CHECK_MSG(bad80 == 0, "fp32 to %s (sm_80): %d of %d wrong", ir_kind_name(k), bad80, n);
		/* every fp16 and bf16 pattern */
		int bh = 0, bb = 0, bh80 = 0;
		for (unsigned u = 0; u < 65536; u++) {
			double h = ref_f16(u), b = bitsf(u << 16);
			if (!same_fp8(k, ir_fp8_from_f16(k, (uint16_t)u, IR_FP8_SM90), isnan(h) ? 0x7f : ref_round(k, h, true, false)))
				bh++;
			if (!same_fp8(k, ir_fp8_from_bf16(k, (uint16_t)u, IR_FP8_SM89), isnan(b) ? 0x7f : ref_round(k, b, true, false)))
				bb++;
			if (k == IR_F8E5 && !isnan(h) && ir_fp8_from_f16(k, (uint16_t)u, IR_FP8_SM80) != ref_round(k, h, false, true))
				bh80++;
		}
		CHECK_MSG(bh == 0, "fp16 to %s: %d of 65536 wrong", ir_kind_name(k), bh);
		CHECK_MSG(bb == 0, "bf16 to %s: %d of 65536 wrong", ir_kind_name(k), bb);
		CHECK_MSG(bh80 == 0, "fp16 to %s (sm_80): %d of 65536 wrong", ir_kind_name(k), bh80);
	}
	/* round trips are exact */
	for (int i = 0; i < 2; i++)
		for (unsigned b = 0; b < 256; b++)
			if (!is_nan_byte(KINDS[i], b) && !(KINDS[i] == IR_F8E5 && ((b >> 2) & 31) == 31))
				CHECK(ir_fp8_from_f32(KINDS[i], ir_fp8_to_f32(KINDS[i], (uint8_t)b), IR_FP8_SM90) == b);
	/* anchors: ties to even, saturation, sm_80's overflow and ties away */
	CHECK(ir_fp8_from_f32(IR_F8E4NV, 1.0625f, IR_FP8_SM90) == 0x38);  /* 1.0 */
	CHECK(ir_fp8_from_f32(IR_F8E4NV, 1.1875f, IR_FP8_SM90) == 0x3a);  /* 1.25 */
	CHECK(ir_fp8_from_f32(IR_F8E4NV, 1e9f, IR_FP8_SM90) == 0x7e);
	CHECK(ir_fp8_from_f32(IR_F8E4NV, -INFINITY, IR_FP8_SM90) == 0xfe);
	CHECK(ir_fp8_from_f32(IR_F8E5, INFINITY, IR_FP8_SM90) == 0x7b);
	CHECK(ir_fp8_from_f32(IR_F8E5, INFINITY, IR_FP8_SM80) == 0x7c);
	CHECK(ir_fp8_from_f32(IR_F8E5, 61440.0f, IR_FP8_SM80) == 0x7c);
	CHECK(ir_fp8_from_f32(IR_F8E5, 1.125f, IR_FP8_SM80) == 0x3d); /* tie: away from zero */
	CHECK(ir_fp8_from_f32(IR_F8E5, 1.125f, IR_FP8_SM90) == 0x3c); /* tie: to even */
	/* sm_89: fp32 just above a tie truncates to the tie in fp16, then rounds to even */
	float above = nextafterf(1.0625f, 2.0f);
	CHECK(ir_fp8_from_f32(IR_F8E4NV, above, IR_FP8_SM90) == 0x39);
	CHECK(ir_fp8_from_f32(IR_F8E4NV, above, IR_FP8_SM89) == 0x38);
	/* sm_80's bf16 routine: exact over fp8e5's normal range, a wrapped byte beyond it */
	CHECK(ir_fp8_from_bf16(IR_F8E5, 0x3f80, IR_FP8_SM80) == 0x3c);
	CHECK(ir_fp8_from_bf16(IR_F8E5, 0x4800, IR_FP8_SM80) == 0x80); /* 2^17, as Triton's routine gives */
	CHECK(ir_fp8_from_bf16(IR_F8E5, 0x3700, IR_FP8_SM80) == 0x00); /* below 2^-15: zero */
}

/* ---------------------------------------------------------------------
 * Kernels in the interpreter
 * --------------------------------------------------------------------- */

static launch kl(const char *file, const char *kernel, const char *signature, uint32_t gx, uint32_t gy)
{
	return kl_grid(file, kernel, signature, gx, gy, 1);
}

static void test_cast_kernels(void)
{
	enum { N = 8192 };
	static float xs[N];
	static uint16_t hs[N], bs[N];
	static uint8_t out[N], bytes[N];
	static float f32[N];
	static uint16_t h16[N];
	int n = sweep_f32(xs, N);
	for (int i = 0; i < n; i++) {
		hs[i] = interp_f32_to_f16(xs[i]);
		bs[i] = interp_f32_to_bf16(xs[i]);
		bytes[i] = (uint8_t)i;
	}
	for (int i = 0; i < 2; i++) {
		ir_kind k = KINDS[i];
		char sig[128];
		/* fp32, fp16, bf16 -> fp8 */
		static const char *const src[3] = {"fp32", "fp16", "bf16"};
		for (int s = 0; s < 3; s++) {
			snprintf(sig, sizeof sig, "*%s:16, *%s:16, i32, 1024", src[s], ir_kind_name(k));
			memset(out, 0xee, sizeof out);
			launch l = kl(KDIR "fp8.py", "to_fp8_kernel", sig, (uint32_t)(n + 1023) / 1024, 1);
			kl_ptr(&l, s == 0 ? (void *)xs : s == 1 ? (void *)hs : (void *)bs, (size_t)n * (s ? 2 : 4));
			kl_ptr(&l, out, (size_t)n);
			kl_int(&l, n);
			if (!kl_run(&l))
				continue;
			int bad = 0;
			for (int j = 0; j < n; j++) {
				unsigned want = s == 0 ? ir_fp8_from_f32(k, xs[j], IR_FP8_SM90)
					      : s == 1 ? ir_fp8_from_f16(k, hs[j], IR_FP8_SM90)
						       : ir_fp8_from_bf16(k, bs[j], IR_FP8_SM90);
				bad += out[j] != want;
			}
			CHECK_MSG(bad == 0, "to_fp8_kernel %s -> %s: %d of %d wrong", src[s], ir_kind_name(k), bad, n);
		}
		/* every byte, fp8 -> fp32 and fp16 (against the decoded table) */
		snprintf(sig, sizeof sig, "*%s:16, *fp32:16, i32, 256", ir_kind_name(k));
		launch l = kl(KDIR "fp8.py", "from_fp8_kernel", sig, 1, 1);
		kl_ptr(&l, bytes, 256);
		kl_ptr(&l, f32, 256 * 4);
		kl_int(&l, 256);
		if (kl_run(&l)) {
			int bad = 0;
			for (unsigned b = 0; b < 256; b++) {
				double v = ref_value(k, b);
				bad += isnan(v) ? !isnan(f32[b]) : f32[b] != v || !signbit(f32[b]) != !signbit(v);
			}
			CHECK_MSG(bad == 0, "from_fp8_kernel %s -> fp32: %d of 256 wrong", ir_kind_name(k), bad);
		}
		snprintf(sig, sizeof sig, "*%s:16, *bf16:16, i32, 256", ir_kind_name(k));
		l = kl(KDIR "fp8.py", "from_fp8_kernel", sig, 1, 1);
		kl_ptr(&l, bytes, 256);
		kl_ptr(&l, h16, 256 * 2);
		kl_int(&l, 256);
		if (kl_run(&l)) {
			int bad = 0;
			for (unsigned b = 0; b < 256; b++)
				bad += h16[b] != ir_fp8_to_bf16(k, (uint8_t)b) &&
				       !(isnan(interp_bf16_to_f32(h16[b])) && is_nan_byte(k, b));
			CHECK_MSG(bad == 0, "from_fp8_kernel %s -> bf16: %d of 256 wrong", ir_kind_name(k), bad);
		}
	}
	/* bitcasts, tl.full, tl.where and a masked load's other on fp8 */
	static const char *const sigs[2] = {"*fp8e4nv:16, *u8:16, *fp32:16, i32, tl.float8e4nv, 64",
					    "*fp8e5:16, *u8:16, *fp32:16, i32, tl.float8e5, 64"};
	for (int i = 0; i < 2; i++) {
		uint8_t x[64], bits[64];
		float y[64];
		for (int j = 0; j < 64; j++)
			x[j] = (uint8_t)(j * 37 + 5);
		memset(bits, 0, sizeof bits);
		launch l = kl(KDIR "fp8.py", "fp8_bits_kernel", sigs[i], 1, 1);
		kl_ptr(&l, x, sizeof x);
		kl_ptr(&l, bits, sizeof bits);
		kl_ptr(&l, y, sizeof y);
		kl_int(&l, 50);
		if (!kl_run(&l))
			continue;
		int bad = 0;
		for (int j = 0; j < 64; j++) {
			double want = j % 2 ? 2.0 : j < 50 ? ref_value(KINDS[i], x[j]) : 0.0;
			if (j < 50)
				bad += bits[j] != x[j];
			else
				bad += bits[j] != 0;
			if (j < 50 || j % 2)
				bad += isnan(want) ? !isnan(y[j]) : y[j] != want;
			else /* masked off: bits was not stored, its load reads the 0 already there */
				bad += y[j] != 0.0f;
		}
		CHECK_MSG(bad == 0, "fp8_bits_kernel %s: %d wrong", ir_kind_name(KINDS[i]), bad);
	}
}

static void test_dot_kernels(void)
{
	enum { M = 48, N = 40, KK = 40, BM = 32, BN = 32, BK = 32 };
	static const struct {
		ir_kind a, b;
		const char *sig;
	} cases[] = {
		{IR_F8E5, IR_F8E5, "*fp8e5:16, *fp8e5:16, *fp16:16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32"},
		{IR_F8E4NV, IR_F8E4NV, "*fp8e4nv:16, *fp8e4nv:16, *fp16:16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32"},
		{IR_F8E4NV, IR_F8E5, "*fp8e4nv:16, *fp8e5:16, *fp16:16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32"},
	};
	static uint8_t a[M * KK], bt[N * KK];
	static uint16_t c[M * N];
	uint64_t st = 3;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		/* small finite values: fp8 bytes with exponents near 1, either sign */
		for (int j = 0; j < M * KK; j++) {
			st = st * UINT64_C(6364136223846793005) + 1;
			a[j] = (uint8_t)(((st >> 40) & 0x87) | (cases[i].a == IR_F8E5 ? 0x38 : 0x30));
		}
		for (int j = 0; j < N * KK; j++) {
			st = st * UINT64_C(6364136223846793005) + 1;
			bt[j] = (uint8_t)(((st >> 40) & 0x87) | (cases[i].b == IR_F8E5 ? 0x38 : 0x30));
		}
		launch l = kl(KDIR "fp8.py", "fp8_matmul_kernel", cases[i].sig, (M + BM - 1) / BM, (N + BN - 1) / BN);
		kl_ptr(&l, a, sizeof a);
		kl_ptr(&l, bt, sizeof bt);
		kl_ptr(&l, c, sizeof c);
		/* B is given K-major (N x K storage), as tutorial 03 pre-transposes it */
		int64_t args[] = {M, N, KK, KK, 1, 1, KK, N, 1};
		for (size_t j = 0; j < sizeof args / sizeof args[0]; j++)
			kl_int(&l, args[j]);
		if (!kl_run(&l))
			continue;
		int bad = 0;
		for (int m = 0; m < M; m++)
			for (int nn = 0; nn < N; nn++) {
				float acc = 0.0f;
				for (int k = 0; k < KK; k++)
					acc = fmaf((float)ref_value(cases[i].a, a[m * KK + k]), (float)ref_value(cases[i].b, bt[nn * KK + k]),
						   acc);
				bad += c[m * N + nn] != interp_f32_to_f16(acc);
			}
		CHECK_MSG(bad == 0, "fp8 dot %s x %s: %d of %d wrong", ir_kind_name(cases[i].a), ir_kind_name(cases[i].b),
			  bad, M * N);
	}
	(void)fbits;
}

static void test_refused(void)
{
	static const struct {
		const char *kernel, *signature, *needle;
	} cases[] = {
		{"add", "*fp8e5, *fp8e5", "`+` on fp8e5 is not supported: convert fp8 to fp16 or fp32 first"},
		{"neg", "*fp8e4nv, *fp8e4nv", "`-` on fp8e4nv is not supported"},
		{"compare", "*fp8e5, *i1", "`>` on fp8e5 is not supported"},
		{"sum_fp8", "*fp8e5, *fp32", "`tl.sum` of fp8e5 is not supported: convert fp8 to fp32 first"},
		{"to_int", "*fp8e5, *i32", "cannot cast <16xfp8e5> to i32: fp8 converts only to and from fp32, fp16 and bf16"},
		{"from_fp64", "*fp64, *fp8e5", "cannot cast <16xfp64> to fp8e5"},
		{"fp8_to_fp8", "*fp8e4nv, *fp8e5", "cannot cast <16xfp8e4nv> to fp8e5"},
		{"dot_fp16_out", "*fp8e5, *fp16", "out_dtype=fp16 is not supported yet"},
		{"dot_k16", "*fp8e5, *fp32", "with 8-bit operands needs K of at least 32, got 16x16x16"},
		{"dot_mixed", "*fp8e5, *fp16, *fp32", "both operands of `tl.dot` must have the same dtype, got fp8e5 and fp16"},
		{"scalar_param", "fp8e5, *fp32", "an fp8 scalar cannot be passed; fp8 parameters are pointers (*fp8e5)"},
		{"atomic_fp8", "*fp8e5", "`tl.atomic_add` does not support fp8e5"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		launch l = kl("tests/fixtures/fp8_errors.py", cases[i].kernel, cases[i].signature, 1, 1);
		kl_refused(&l, cases[i].needle);
	}
}

/* dtype predicates on fp8 (static_asserts in the kernel) */
static void test_dtype_preds(void)
{
	static const char *const sigs[2] = {"*fp8e4nv, *fp32", "*fp8e5, *fp32"};
	for (int i = 0; i < 2; i++) {
		uint8_t x[16];
		float y[16];
		for (int j = 0; j < 16; j++)
			x[j] = (uint8_t)(0x30 + j);
		launch l = kl("tests/fixtures/fp8_errors.py", "dtype_preds", sigs[i], 1, 1);
		kl_ptr(&l, x, sizeof x);
		kl_ptr(&l, y, sizeof y);
		if (kl_run(&l))
			CHECK(y[3] == (float)ref_value(KINDS[i], 0x33));
	}
}

int main(void)
{
	test_widening();
	test_narrowing();
	test_cast_kernels();
	test_dot_kernels();
	test_dtype_preds();
	test_refused();
	return check_report("test_fp8");
}
