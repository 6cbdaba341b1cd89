/* test_atomic_random.c - atomics and random numbers in the reference
 * interpreter, against plain C written here.
 *
 * Random numbers: Philox 4x32-10 against Random123's known-answer vectors
 * and a C Philox (4x32 and 4x64, any round count), then tl.randint4x,
 * tl.rand, tl.randint with a scalar offset and 64-bit seeds, 64-bit
 * offsets (two 32-bit counters), tl.philox's 4x64 path on 64-bit counters
 * and tutorial 04's dropout, all bit for bit as
 * Triton's random.py computes them; tl.randn and tl.randn4x through the
 * interpreter's math functions, within 2.5 * 2^-23 of Box-Muller computed
 * in double, where the GPU's libdevice and 1-ulp sqrt.approx keep within
 * 4.5 * 2^-23 (docs/LANGUAGE.md: the two differ by a few ulp).
 * Atomics run sequentially in the interpreter, so their results are exact:
 * histograms, every fetch-and-op with its old values (i32, u32, i64,
 * fp32, fp16), float max/min through Triton's integer route (-0.0, NaN,
 * negatives), a scalar ticket counter, a compare-and-swap spin lock, a
 * column sum across programs; then the diagnostics of what is refused.
 */
#include <math.h>
#include <stdlib.h>

#include "kernel_launch.h"

#define KDIR "tests/kernels/"

static launch kl(const char *file, const char *kernel, const char *signature, uint32_t gx)
{
	return kl_grid(file, kernel, signature, gx, 1, 1);
}

static uint64_t rng_state = 99;

static uint32_t rnd(void)
{
	rng_state = rng_state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return (uint32_t)(rng_state >> 33);
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

/* Element-wise bit equality of n 32-bit words. */
static void same_bits(const char *what, const void *got, const void *want, size_t n)
{
	const uint32_t *g = got, *w = want;
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < n; i++)
		if (g[i] != w[i] && !bad++)
			first = i;
	CHECK_MSG(bad == 0, "%s: %zu of %zu differ; first [%zu]: got 0x%08x, want 0x%08x", what, bad, n, first,
		  bad ? g[first] : 0, bad ? w[first] : 0);
}

/* ---------------------------------------------------------------------
 * Philox, as Random123 defines it and Triton's random.py computes it
 * --------------------------------------------------------------------- */

static void philox32(uint32_t c[4], uint32_t k0, uint32_t k1, int rounds)
{
	for (int i = 0; i < rounds; i++) {
		uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
		uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
		c[1] = (uint32_t)p1;
		c[3] = (uint32_t)p0;
		c[0] = n0;
		c[2] = n2;
		k0 += 0x9E3779B9u;
		k1 += 0xBB67AE85u;
	}
}

static uint64_t mulhi64(uint64_t a, uint64_t b)
{
	return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

static void philox64(uint64_t c[4], uint64_t k0, uint64_t k1, int rounds)
{
	const uint64_t A = UINT64_C(0xD2E7470EE14C6C93), B = UINT64_C(0xCA5A826395121157);
	for (int i = 0; i < rounds; i++) {
		uint64_t n0 = mulhi64(B, c[2]) ^ c[1] ^ k0, n2 = mulhi64(A, c[0]) ^ c[3] ^ k1;
		c[1] = B * c[2];
		c[3] = A * c[0];
		c[0] = n0;
		c[2] = n2;
		k0 += UINT64_C(0x9E3779B97F4A7C15);
		k1 += UINT64_C(0xBB67AE8584CAA73B);
	}
}

/* randint4x(seed, offset): the seed as uint64 split into (lo, hi) */
static void randint4x(int64_t seed, uint32_t offset, uint32_t out[4])
{
	uint64_t s = (uint64_t)seed;
	out[0] = offset;
	out[1] = out[2] = out[3] = 0;
	philox32(out, (uint32_t)s, (uint32_t)(s >> 32), 10);
}

static float uniform32(uint32_t x)
{
	int32_t i = (int32_t)x;
	if (i < 0)
		i = -i - 1;
	return (float)i * 4.6566127342e-10f;
}

static float uniform64(uint64_t x)
{
	int64_t i = (int64_t)x;
	if (i < 0)
		i = -i - 1;
	return (float)i * (float)1.0842020432385337e-19;
}

static void test_philox_kat(void)
{
	/* Random123's kat_vectors for philox4x32 with 10 rounds */
	static const uint32_t kat[3][10] = {
		{0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
		{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e,
		 0xa20bc7c6, 0x6d5451fd},
		{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb,
		 0x5001e420, 0x24126ea1},
	};
	enum { N = 32 };
	uint32_t c[N * 4], k[N * 2], out[N * 4], want[N * 4];
	for (int i = 0; i < N; i++) {
		for (int j = 0; j < 4; j++)
			c[i * 4 + j] = i < 3 ? kat[i][j] : rnd();
		for (int j = 0; j < 2; j++)
			k[i * 2 + j] = i < 3 ? kat[i][4 + j] : rnd();
	}
	for (int i = 0; i < 3; i++) { /* the C Philox itself first */
		uint32_t x[4] = {kat[i][0], kat[i][1], kat[i][2], kat[i][3]};
		philox32(x, kat[i][4], kat[i][5], 10);
		same_bits("C philox4x32-10 vs Random123", x, kat[i] + 6, 4);
	}
	static const int rounds[] = {10, 7, 0};
	for (int r = 0; r < 3; r++) {
		char sig[64];
		snprintf(sig, sizeof sig, "*u32, *u32, *u32, %d, %d", N, rounds[r]);
		launch l = kl(KDIR "random.py", "philox_block", sig, 1);
		kl_ptr(&l, c, sizeof c);
		kl_ptr(&l, k, sizeof k);
		kl_ptr(&l, out, sizeof out);
		if (!kl_run(&l))
			continue;
		memcpy(want, c, sizeof c);
		for (int i = 0; i < N; i++)
			philox32(want + i * 4, k[i * 2], k[i * 2 + 1], rounds[r]);
		same_bits(rounds[r] == 10 ? "philox_impl, 10 rounds" : rounds[r] ? "philox_impl, 7 rounds" : "philox_impl, 0 rounds",
			  out, want, N * 4);
		if (rounds[r] == 10)
			for (int i = 0; i < 3; i++)
				same_bits("philox_impl vs Random123", out + i * 4, kat[i] + 6, 4);
	}
}

static void test_random_streams(void)
{
	enum { N = 1000, BLOCK = 256 };
	const uint32_t grid = (N + BLOCK - 1) / BLOCK;
	static const int64_t seeds[] = {0, 42, -5, 0x7fffffff};
	for (size_t si = 0; si < sizeof seeds / sizeof seeds[0]; si++) {
		int64_t seed = seeds[si];
		uint32_t got4[N * 4], want4[N * 4];
		launch l = kl(KDIR "random.py", "randint4x_kernel", "*u32, i32, i32, 256", grid);
		kl_ptr(&l, got4, sizeof got4);
		kl_int(&l, seed);
		kl_int(&l, N);
		if (kl_run(&l)) {
			for (uint32_t i = 0; i < N; i++)
				randint4x(seed, i, want4 + i * 4);
			same_bits("randint4x", got4, want4, N * 4);
		}
		float got[N], want[N];
		l = kl(KDIR "random.py", "rand_kernel", "*fp32, i32, i32, 256", grid);
		kl_ptr(&l, got, sizeof got);
		kl_int(&l, seed);
		kl_int(&l, N);
		if (kl_run(&l)) {
			bool in_range = true;
			for (uint32_t i = 0; i < N; i++) {
				uint32_t r[4];
				randint4x(seed, i, r);
				want[i] = uniform32(r[0]);
				in_range &= got[i] >= 0.0f && got[i] < 1.0f;
			}
			same_bits("rand", got, want, N);
			CHECK(in_range);
		}
		l = kl(KDIR "random.py", "randn_kernel", "*fp32, i32, i32, 256", grid);
		kl_ptr(&l, got, sizeof got);
		kl_int(&l, seed);
		kl_int(&l, N);
		if (kl_run(&l)) {
			size_t bad = 0;
			double mean = 0;
			for (uint32_t i = 0; i < N; i++) {
				uint32_t r[4];
				randint4x(seed, i, r);
				float u1 = fmaxf(1.0e-7f, uniform32(r[0])), th = 6.2831853071795862f * uniform32(r[1]);
				float w = sqrtf(-2.0f * logf(u1)) * cosf(th);
				bad += fabsf(got[i] - w) > 4e-7f * (1.0f + fabsf(w));
				mean += got[i];
			}
			CHECK_MSG(bad == 0, "randn: %zu of %d differ from Box-Muller", bad, N);
			CHECK(fabs(mean / N) < 0.15);
		}
	}
	/* a scalar offset per program and 64-bit seeds: the seed's high word is the second key */
	static const int64_t wide[] = {INT64_C(0x123456789abcdef0), -1, 7};
	for (size_t si = 0; si < 3; si++) {
		uint32_t got[40], want[40];
		launch l = kl(KDIR "random.py", "randint_scalar", "*u32, i64", 40);
		kl_ptr(&l, got, sizeof got);
		kl_int(&l, wide[si]);
		if (kl_run(&l)) {
			for (uint32_t i = 0; i < 40; i++) {
				uint32_t r[4];
				randint4x(wide[si], i, r);
				want[i] = r[0];
			}
			same_bits("randint with a scalar offset and an i64 seed", got, want, 40);
		}
	}
	/* 64-bit offsets (past 2^32): Philox 4x32 on their low and high words */
	{
		float got[N], want[N];
		launch l = kl(KDIR "random.py", "rand_wide", "*fp32, i64, i32, 256", grid);
		kl_ptr(&l, got, sizeof got);
		kl_int(&l, INT64_C(0x0123456789abcdef));
		kl_int(&l, N);
		if (kl_run(&l)) {
			uint64_t s = UINT64_C(0x0123456789abcdef);
			for (uint64_t i = 0; i < N; i++) {
				uint64_t off = i + UINT64_C(0x300000005);
				uint32_t c[4] = {(uint32_t)off, (uint32_t)(off >> 32), 0, 0};
				philox32(c, (uint32_t)s, (uint32_t)(s >> 32), 10);
				want[i] = uniform32(c[0]);
			}
			same_bits("rand with 64-bit offsets", got, want, N);
		}
	}
	/* 64-bit counters: Philox 4x64, the seed as the low key, a zero high key */
	{
		float got[N], want[N];
		launch l = kl(KDIR "random.py", "philox_wide", "*fp32, i64, i32, 256", grid);
		kl_ptr(&l, got, sizeof got);
		kl_int(&l, INT64_C(0x0123456789abcdef));
		kl_int(&l, N);
		if (kl_run(&l)) {
			for (uint64_t i = 0; i < N; i++) {
				uint64_t c[4] = {i + UINT64_C(0x300000005), 0, 0, 0};
				philox64(c, UINT64_C(0x0123456789abcdef), 0, 10);
				want[i] = uniform64(c[0]);
			}
			same_bits("tl.philox on 64-bit counters", got, want, N);
		}
	}
}

/* Box-Muller in double from the float inputs the kernel computes (u1
 * clamped to 1e-7, th = 2pi * u2 rounded to float): the exact value that
 * the float results approximate. */
static double box_muller(float u1, float u2, bool sine)
{
	double r = sqrt(-2.0 * log((double)fmaxf(1.0e-7f, u1)));
	double th = (double)(6.2831853071795862f * u2);
	return r * (sine ? sin(th) : cos(th));
}

/* tl.randn's error bound, relative to the exact value, in units of 2^-23
 * (one ulp of a float is at most 2^-23 of it). The interpreter, on the
 * host's libm: logf 1 ulp (halved by the square root), sqrtf 0.5, cosf or
 * sinf 1, the product 0.5: 2.5. The GPU (docs/LANGUAGE.md): libdevice's
 * logf 1 ulp (0.5), sqrt.approx 1 ulp from the correctly rounded root
 * (1.5), cosf/sinf 2, the product 0.5: 4.5. Each side within its bound of
 * the exact value, the two differ by at most 7 units: a few ulp. */
enum { RANDN_HOST_ULPS2 = 5, RANDN_GPU_ULPS2 = 9 }; /* the bounds doubled */

static bool within(double got, double exact, int ulps2)
{
	return fabs(got - exact) <= ldexp(fabs(exact), -23) * ulps2 / 2.0;
}

/* tl.randn and tl.randn4x in the interpreter against Box-Muller in double,
 * within the interpreter's bound; and the values a GPU whose square root
 * is 1 ulp off gives (sqrtf's neighbours, times the host's cosine) within
 * the GPU's bound, which is what keeps the two a few ulp apart. */
static void test_randn_bound(void)
{
	enum { N = 4096, BLOCK = 256 };
	static float got[N * 4];
	static const int64_t seeds[] = {-7, 0x5eed};
	size_t bad = 0, bad_gpu = 0, first = 0;
	for (size_t si = 0; si < sizeof seeds / sizeof seeds[0]; si++) {
		launch l = kl(KDIR "random.py", "randn4x_kernel", "*fp32, i32, i32, 256", N / BLOCK);
		kl_ptr(&l, got, sizeof got);
		kl_int(&l, seeds[si]);
		kl_int(&l, N);
		float one[N];
		launch l1 = kl(KDIR "random.py", "randn_kernel", "*fp32, i32, i32, 256", N / BLOCK);
		kl_ptr(&l1, one, sizeof one);
		kl_int(&l1, seeds[si]);
		kl_int(&l1, N);
		if (!kl_run(&l) || !kl_run(&l1))
			continue;
		for (uint32_t i = 0; i < N; i++) {
			uint32_t r[4];
			randint4x(seeds[si], i, r);
			for (int j = 0; j < 4; j++) {
				float u1 = uniform32(r[j & 2]), u2 = uniform32(r[(j & 2) + 1]);
				double exact = box_muller(u1, u2, j & 1);
				if (!within(got[i * 4 + j], exact, RANDN_HOST_ULPS2) && !bad++)
					first = i * 4 + j;
				/* tl.randn is randn4x's first */
				bad += j == 0 && !within(one[i], exact, RANDN_HOST_ULPS2);
				float s = sqrtf(-2.0f * logf(fmaxf(1.0e-7f, u1))), th = 6.2831853071795862f * u2;
				float c = j & 1 ? sinf(th) : cosf(th);
				bad_gpu += !within(nextafterf(s, 0.0f) * c, exact, RANDN_GPU_ULPS2) +
					   !within(nextafterf(s, INFINITY) * c, exact, RANDN_GPU_ULPS2);
			}
		}
	}
	CHECK_MSG(bad == 0, "randn: %zu values over 2.5 * 2^-23 from Box-Muller in double; first [%zu]", bad, first);
	CHECK_MSG(bad_gpu == 0, "randn: %zu values of a 1-ulp square root over 4.5 * 2^-23", bad_gpu);
}

static void test_dropout(void)
{
	enum { N = 3000, BLOCK = 1024 };
	static float x[N], out[N], want[N];
	for (int i = 0; i < N; i++)
		x[i] = (float)(rnd() % 2000) / 100.0f - 10.0f;
	const float p = 0.3f;
	/* as written, and with the load moved down past the Philox rounds to
	 * its first user (passes/sink.c): the same bits */
	static float sunk[N];
	for (int run = 0; run < 2; run++) {
		launch l = kl(KDIR "random.py", "seeded_dropout", "*fp32, *fp32, i32, fp32, i32, 1024", (N + BLOCK - 1) / BLOCK);
		l.sink = run == 1;
		l.keep_ir = true;
		kl_ptr(&l, x, sizeof x);
		kl_ptr(&l, run ? sunk : out, sizeof out);
		kl_int(&l, N);
		kl_float(&l, p);
		kl_int(&l, 123);
		bool ok = kl_run(&l);
		if (ok)
			CHECK_MSG((strstr(sb_str(&l.ir), " sunk") != NULL) == (run == 1), "dropout's load %s", sb_str(&l.ir));
		kl_release(&l);
		if (!ok)
			return;
	}
	same_bits("dropout, its load sunk", sunk, out, N);
	int kept = 0;
	for (uint32_t i = 0; i < N; i++) {
		uint32_t r[4];
		randint4x(123, i, r);
		bool keep = uniform32(r[0]) > p;
		want[i] = keep ? x[i] / (1.0f - p) : 0.0f;
		kept += keep;
	}
	same_bits("dropout", out, want, N);
	CHECK(kept > N * 6 / 10 && kept < N * 8 / 10);
}

/* ---------------------------------------------------------------------
 * Atomics
 * --------------------------------------------------------------------- */

static void test_histogram(void)
{
	enum { N = 5000, NBINS = 64 };
	static int32_t x[N];
	int32_t bins[NBINS], want[NBINS];
	for (int i = 0; i < N; i++) /* skewed: most values land in a few bins */
		x[i] = (int32_t)(rnd() % 4 ? rnd() % 3 : rnd() % 100000);
	static const char *const kernels[] = {"histogram", "histogram_relaxed"};
	for (int k = 0; k < 2; k++) {
		memset(bins, 0, sizeof bins);
		memset(want, 0, sizeof want);
		launch l = kl(KDIR "atomics.py", kernels[k], "*i32, *i32, i32, 64, 512", (N + 511) / 512);
		kl_ptr(&l, x, sizeof x);
		kl_ptr(&l, bins, sizeof bins);
		kl_int(&l, N);
		if (!kl_run(&l))
			continue;
		for (int i = 0; i < N; i++)
			want[x[i] % NBINS]++;
		same_bits(kernels[k], bins, want, NBINS);
	}
}

/* Triton's float atomic_max/min on bits: a clear sign bit takes the signed
 * integer max (min) of the bits, a set one the unsigned min (max). */
static uint32_t float_minmax(bool is_max, uint32_t old, uint32_t v)
{
	if (!(v >> 31))
		return is_max ? ((int32_t)old > (int32_t)v ? old : v) : ((int32_t)old < (int32_t)v ? old : v);
	return is_max ? (old < v ? old : v) : (old > v ? old : v);
}

static void test_fetch_ops(void)
{
	enum { N = 24, P = 5 };
	static const char *const ops[] = {"add", "max", "min", "and", "or", "xor", "xchg"};
	for (int o = 0; o < 7; o++) {
		for (int t = 0; t < 3; t++) { /* i32, u32, i64 */
			static const char *const tn[] = {"i32", "u32", "i64"};
			int64_t p[N], v[N * P], wp[N], wold[N * P];
			for (int i = 0; i < N; i++)
				wp[i] = p[i] = t == 1 ? (int64_t)(rnd() % 1000) : (int64_t)(rnd() % 2001) - 1000;
			for (int i = 0; i < N * P; i++)
				v[i] = t == 1 ? (int64_t)(rnd() % 1000) : (int64_t)(rnd() % 2001) - 1000;
			if (t == 2)
				for (int i = 0; i < N; i++)
					wp[i] = p[i] = p[i] * INT64_C(3000000000);
			/* packed as the element type */
			int eb = t == 2 ? 8 : 4;
			unsigned char bp[N * 8], bv[N * P * 8], bo[N * P * 8];
			for (int i = 0; i < N; i++)
				memcpy(bp + i * eb, &p[i], (size_t)eb);
			for (int i = 0; i < N * P; i++)
				memcpy(bv + i * eb, &v[i], (size_t)eb);
			char sig[96];
			snprintf(sig, sizeof sig, "*%s, *%s, *%s, i32, \"%s\", 32", tn[t], tn[t], tn[t], ops[o]);
			launch l = kl(KDIR "atomics.py", "fetch_ops", sig, P);
			kl_ptr(&l, bp, (size_t)(N * eb));
			kl_ptr(&l, bv, (size_t)(N * P * eb));
			kl_ptr(&l, bo, (size_t)(N * P * eb));
			kl_int(&l, N);
			if (!kl_run(&l))
				continue;
			bool ok = true;
			for (int pid = 0; pid < P; pid++)
				for (int i = 0; i < N; i++) {
					int64_t a = wp[i], b = v[pid * N + i], r;
					wold[pid * N + i] = a;
					bool uns = t == 1;
					switch (o) {
					case 0: r = (int64_t)((uint64_t)a + (uint64_t)b); break;
					case 1: r = uns ? ((uint64_t)a > (uint64_t)b ? a : b) : (a > b ? a : b); break;
					case 2: r = uns ? ((uint64_t)a < (uint64_t)b ? a : b) : (a < b ? a : b); break;
					case 3: r = a & b; break;
					case 4: r = a | b; break;
					case 5: r = a ^ b; break;
					default: r = b; break;
					}
					if (t == 0)
						r = (int32_t)r;
					if (t == 1)
						r = (uint32_t)r;
					wp[i] = r;
				}
			for (int i = 0; i < N && ok; i++) {
				int64_t g = 0;
				memcpy(&g, bp + i * eb, (size_t)eb);
				if (t == 0)
					g = (int32_t)g;
				ok = g == wp[i];
			}
			for (int i = 0; i < N * P && ok; i++) {
				int64_t g = 0;
				memcpy(&g, bo + i * eb, (size_t)eb);
				if (t == 0)
					g = (int32_t)g;
				ok = g == wold[i];
			}
			CHECK_MSG(ok, "atomic_%s on %s: memory or old values differ", ops[o], tn[t]);
		}
	}
}

static void test_float_atomics(void)
{
	enum { N = 16, P = 6 };
	/* specials: -0.0, 0.0, NaN (both signs), infinities, negatives */
	static const uint32_t special[] = {0x80000000u, 0x00000000u, 0x7fc00000u, 0xffc00000u, 0x7f800000u,
					   0xff800000u, 0xbf800000u, 0x3f800000u, 0xc2c80000u, 0x00000001u};
	for (int is_max = 0; is_max < 2; is_max++) {
		uint32_t p[N], v[N * P], old[N * P], wp[N], wold[N * P];
		for (int i = 0; i < N; i++)
			wp[i] = p[i] = special[rnd() % 10];
		for (int i = 0; i < N * P; i++)
			v[i] = rnd() % 3 ? special[rnd() % 10] : fbits((float)((int)(rnd() % 200) - 100) / 7.0f);
		launch l = kl(KDIR "atomics.py", "fetch_ops", is_max ? "*fp32, *fp32, *fp32, i32, \"max\", 16"
								: "*fp32, *fp32, *fp32, i32, \"min\", 16", P);
		kl_ptr(&l, p, sizeof p);
		kl_ptr(&l, v, sizeof v);
		kl_ptr(&l, old, sizeof old);
		kl_int(&l, N);
		if (!kl_run(&l))
			continue;
		for (int pid = 0; pid < P; pid++)
			for (int i = 0; i < N; i++) {
				wold[pid * N + i] = wp[i];
				wp[i] = float_minmax(is_max, wp[i], v[pid * N + i]);
			}
		same_bits(is_max ? "float atomic_max: memory" : "float atomic_min: memory", p, wp, N);
		same_bits(is_max ? "float atomic_max: old values" : "float atomic_min: old values", old, wold, N * P);
	}
	/* the integer route keeps -0.0 apart from 0.0: max(-0.0, 0.0) is 0.0, min(0.0, -0.0) is -0.0 */
	CHECK(float_minmax(true, 0x80000000u, 0) == 0 && float_minmax(false, 0, 0x80000000u) == 0x80000000u);
	/* fp32 addition: every program adds its values, in program order */
	{
		float p[N], v[N * P], old[N * P];
		uint32_t wp[N], wold[N * P];
		for (int i = 0; i < N; i++)
			p[i] = (float)(int)(rnd() % 100) / 8.0f;
		for (int i = 0; i < N * P; i++)
			v[i] = (float)((int)(rnd() % 200) - 100) / 3.0f;
		float acc[N];
		memcpy(acc, p, sizeof p);
		for (int pid = 0; pid < P; pid++)
			for (int i = 0; i < N; i++) {
				wold[pid * N + i] = fbits(acc[i]);
				acc[i] += v[pid * N + i];
			}
		for (int i = 0; i < N; i++)
			wp[i] = fbits(acc[i]);
		launch l = kl(KDIR "atomics.py", "fetch_ops", "*fp32, *fp32, *fp32, i32, \"add\", 16", P);
		kl_ptr(&l, p, sizeof p);
		kl_ptr(&l, v, sizeof v);
		kl_ptr(&l, old, sizeof old);
		kl_int(&l, N);
		if (kl_run(&l)) {
			same_bits("fp32 atomic_add: memory", p, wp, N);
			same_bits("fp32 atomic_add: old values", old, wold, N * P);
		}
	}
	/* fp16 addition, rounded to fp16 after each add */
	{
		uint16_t p[N], v[N * P], old[N * P];
		float acc[N];
		for (int i = 0; i < N; i++) {
			p[i] = interp_f32_to_f16((float)(int)(rnd() % 100) / 8.0f);
			acc[i] = interp_f16_to_f32(p[i]);
		}
		for (int i = 0; i < N * P; i++)
			v[i] = interp_f32_to_f16((float)((int)(rnd() % 200) - 100) / 3.0f);
		launch l = kl(KDIR "atomics.py", "fetch_ops", "*fp16, *fp16, *fp16, i32, \"add\", 16", P);
		kl_ptr(&l, p, sizeof p);
		kl_ptr(&l, v, sizeof v);
		kl_ptr(&l, old, sizeof old);
		kl_int(&l, N);
		if (kl_run(&l)) {
			bool ok = true;
			for (int pid = 0; pid < P; pid++)
				for (int i = 0; i < N; i++) {
					ok &= old[pid * N + i] == interp_f32_to_f16(acc[i]);
					acc[i] = interp_f16_to_f32(interp_f32_to_f16(acc[i] + interp_f16_to_f32(v[pid * N + i])));
				}
			for (int i = 0; i < N; i++)
				ok &= p[i] == interp_f32_to_f16(acc[i]);
			CHECK_MSG(ok, "fp16 atomic_add differs from rounding after each addition");
		}
	}
	(void)bitsf;
}

static void test_scalars_and_locks(void)
{
	enum { P = 37 };
	int32_t count = 5, tickets[P];
	launch l = kl(KDIR "atomics.py", "scalar_counter", "*i32, *i32", P);
	kl_ptr(&l, &count, sizeof count);
	kl_ptr(&l, tickets, sizeof tickets);
	if (kl_run(&l)) {
		bool ok = count == 5 + P;
		for (int i = 0; i < P; i++)
			ok &= tickets[i] == 5 + i;
		CHECK_MSG(ok, "scalar atomic_add: count %d", count);
	}
	int32_t lock[2] = {0, 0}, order[P];
	l = kl(KDIR "atomics.py", "cas_ticket", "*i32, *i32", P);
	kl_ptr(&l, lock, sizeof lock);
	kl_ptr(&l, order, sizeof order);
	if (kl_run(&l)) {
		bool ok = lock[0] == 0 && lock[1] == P;
		for (int i = 0; i < P; i++)
			ok &= order[i] == i;
		CHECK_MSG(ok, "spin lock: lock %d, counter %d", lock[0], lock[1]);
	}
	/* column sums across programs */
	enum { M = 100, NC = 48 };
	static float x[M * NC];
	float out[NC];
	double want[NC] = {0};
	for (int i = 0; i < M * NC; i++)
		x[i] = (float)((int)(rnd() % 200) - 100) / 16.0f;
	for (int i = 0; i < NC; i++)
		out[i] = 0.0f;
	for (int r = 0; r < M; r++)
		for (int c = 0; c < NC; c++)
			want[c] += x[r * NC + c];
	l = kl(KDIR "atomics.py", "col_sum", "*fp32, *fp32, i32, i32, 16, 64", (M + 15) / 16);
	kl_ptr(&l, x, sizeof x);
	kl_ptr(&l, out, sizeof out);
	kl_int(&l, M);
	kl_int(&l, NC);
	if (kl_run(&l)) {
		bool ok = true;
		for (int c = 0; c < NC; c++)
			ok &= out[c] == (float)want[c]; /* sixteenths: every partial sum is exact */
		CHECK_MSG(ok, "col_sum by atomic_add across programs");
	}
}

static void test_refused(void)
{
	static const struct {
		const char *kernel, *signature, *needle;
	} cases[] = {
		{"max_fp16", "*fp16", "`tl.atomic_max` does not support fp16 (only atomic_add does)"},
		{"add_i16", "*i16", "`tl.atomic_add` does not support i16"},
		{"add_i8", "*i8", "`tl.atomic_add` does not support i8"},
		{"and_fp32", "*fp32", "`tl.atomic_and` does not support fp32 (integers only)"},
		{"cas_i8", "*i8", "`tl.atomic_cas` only supports elements with width {16, 32, 64}, got i8"},
		{"bad_sem", "*i32", "memory semantic \"seq_cst\" is not supported"},
		{"bad_scope", "*i32", "memory scope \"block\" is not supported"},
		{"not_pointer", "i32", "`tl.atomic_add` needs a pointer or a block of pointers, got i32"},
		{"block_to_scalar", "*i32", "the value cannot be a block when the pointer is a scalar"},
		{"philox_i16", "*i16", "bitwidth not supported in philox"},
		{"philox_impl_i32", "*i32", "dtype not supported in philox_impl"},
		{"rounds_runtime", "*i32, i32", "n_rounds must be a constexpr int"},
		{"rand_float_offsets", "*fp32", "`tl.uint_to_uniform_float` expects int32, uint32, int64 or uint64 integers, got fp32"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		launch l = kl("tests/fixtures/atomic_errors.py", cases[i].kernel, cases[i].signature, 1);
		kl_refused(&l, cases[i].needle);
	}
}

/* @triton.autotune(reset_to_zero=, restore_value=): checked, recorded on the IR */
static const char *autotune_src(const char *reset, const char *restore)
{
	static char buf[1024];
	snprintf(buf, sizeof buf,
		 "import triton\nimport triton.language as tl\n"
		 "@triton.autotune(configs=[triton.Config({'B': 128}, num_warps=4)], key=['n'], reset_to_zero=%s, restore_value=%s)\n"
		 "@triton.jit\ndef k(x_ptr, out_ptr, n, B: tl.constexpr):\n"
		 "    offs = tl.arange(0, B)\n"
		 "    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0)))\n",
		 reset, restore);
	return buf;
}

static void test_autotune_buffers(void)
{
	static const struct {
		const char *reset, *restore, *want; /* want: in the dump, or in the error */
		bool ok;
	} cases[] = {
		{"['out_ptr']", "['x_ptr', 'out_ptr']", "reset_to_zero=[out_ptr] restore_value=[x_ptr,out_ptr]", true},
		{"None", "[]", "num_stages=3 constexprs", true},
		{"['n']", "[]", "autotune's `reset_to_zero` names `n`, which is not a pointer", false},
		{"['y_ptr']", "[]", "names `y_ptr`, which is not a runtime parameter of `k`", false},
		{"[]", "'x_ptr'", "autotune's `restore_value` must be a list of parameter names", false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tilec_ctx *ctx = tilec_ctx_new();
		arena *a = arena_new();
		fe_module *m = NULL;
		ir_func *f = NULL;
		fe_spec spec = {.kernel = "k", .signature = "*fp32, *fp32, i32"};
		tilec_status st = fe_load_text(ctx, a, "at.py", autotune_src(cases[i].reset, cases[i].restore), &m);
		if (!st)
			st = fe_config_get(ctx, m, "k", 0, &spec);
		if (!st)
			st = fe_specialize(ctx, a, m, &spec, &f);
		CHECK_MSG((st == TILEC_OK) == cases[i].ok, "autotune case %zu: %s\n%s", i, tilec_status_string(st),
			  tilec_diagnostics(ctx));
		if (st == TILEC_OK) {
			strbuf sb;
			sb_init(&sb);
			ir_dump(&sb, f);
			CHECK_STR_CONTAINS(sb_str(&sb), cases[i].want);
			sb_free(&sb);
		} else {
			CHECK_STR_CONTAINS(tilec_diagnostics(ctx), cases[i].want);
		}
		arena_free(a);
		tilec_ctx_free(ctx);
	}
}

int main(void)
{
	test_philox_kat();
	test_random_streams();
	test_randn_bound();
	test_dropout();
	test_histogram();
	test_fetch_ops();
	test_float_atomics();
	test_scalars_and_locks();
	test_refused();
	test_autotune_buffers();
	return check_report("test_atomic_random");
}
