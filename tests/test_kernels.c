/* test_kernels.c - the kernel suite: every kernel of tests/kernels/ (and
 * the seed kernels) specialized by the front end, run by the reference
 * interpreter on pseudo-random inputs and compared with a plain C
 * reference written here. Tolerances: exact where the kernel's arithmetic
 * is exact or fully determined (integers, copies, single fp32 ops), a few
 * fp32 ulp for transcendental functions and reductions (whose order the
 * GPU picks), one ulp of the output format for fp16/bf16 results, and the
 * tf32 error for fp32 dots. A few launches must fail cleanly: out-of-bounds
 * accesses, a division by zero, a misaligned :16 argument. The suite then
 * runs again with every kernel whose blocks can be split over a cluster of
 * two CTAs split so (passes/cluster.c), against the same references.
 */
#include <math.h>
#include <stdlib.h>

#include "kernel_launch.h"

#define KDIR "tests/kernels/"

/* ---------------------------------------------------------------------
 * Launch helper
 * --------------------------------------------------------------------- */

/* tilec's file, kernel and signature over a gx x gy grid */
static launch kl(const char *file, const char *kernel, const char *signature, uint32_t gx, uint32_t gy)
{
	return kl_grid(file, kernel, signature, gx, gy, 1);
}

/* ---------------------------------------------------------------------
 * Data and comparison
 * --------------------------------------------------------------------- */

static uint64_t rng_state = 12345;

static uint32_t rnd(void)
{
	rng_state = rng_state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return (uint32_t)(rng_state >> 33);
}

static float frand(float lo, float hi)
{
	return lo + (hi - lo) * (float)(rnd() & 0xffffff) / (float)0x1000000;
}

static int irand(int lo, int hi) /* [lo, hi) */
{
	return lo + (int)(rnd() % (uint32_t)(hi - lo));
}

static float *fvec(size_t n, float lo, float hi)
{
	float *v = malloc(sizeof(float) * (n ? n : 1));
	for (size_t i = 0; i < n; i++)
		v[i] = frand(lo, hi);
	return v;
}

static float *fzeros(size_t n)
{
	return calloc(n ? n : 1, sizeof(float));
}

static int32_t *ivec(size_t n, int lo, int hi)
{
	int32_t *v = malloc(sizeof(int32_t) * (n ? n : 1));
	for (size_t i = 0; i < n; i++)
		v[i] = irand(lo, hi);
	return v;
}

static float h2f(uint16_t h) { return interp_f16_to_f32(h); }
static uint16_t f2h(float f) { return interp_f32_to_f16(f); }
static float rh(float f) { return h2f(f2h(f)); } /* rounded to fp16 */
static float rb(float f) { return interp_bf16_to_f32(interp_f32_to_bf16(f)); }

/* |got - want| <= atol + rtol * |want| everywhere (NaN/inf must match). */
static void close_f(const char *what, const float *got, const float *want, size_t n, double atol, double rtol)
{
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < n; i++) {
		double g = got[i], w = want[i];
		bool ok = (isnan(g) && isnan(w)) || (isinf(w) && g == w) || fabs(g - w) <= atol + rtol * fabs(w);
		if (!ok && !bad++)
			first = i;
	}
	CHECK_MSG(bad == 0, "%s: %zu of %zu elements differ; first [%zu]: got %.9g, want %.9g", what, bad, n, first,
		  bad ? got[first] : 0.0, bad ? want[first] : 0.0);
}

static void same_i(const char *what, const int32_t *got, const int32_t *want, size_t n)
{
	size_t bad = 0, first = 0;
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i] && !bad++)
			first = i;
	CHECK_MSG(bad == 0, "%s: %zu of %zu elements differ; first [%zu]: got %d, want %d", what, bad, n, first,
		  bad ? got[first] : 0, bad ? want[first] : 0);
}

static float sigmoidf_(float x)
{
	return 1.0f / (1.0f + expf(-x));
}

/* A SiLU kernel (x, out, n) on n bf16 values drawn from [-range, range]:
 * computed in fp32 and rounded once. */
static void silu_bf16(const char *file, const char *kernel, const char *signature, uint32_t gx, size_t n, float range,
		      const char *what)
{
	uint16_t *x = malloc(n * 2), *o = calloc(n, 2);
	for (size_t i = 0; i < n; i++)
		x[i] = interp_f32_to_bf16(frand(-range, range));
	launch l = kl(file, kernel, signature, gx, 1);
	kl_ptr(&l, x, n * 2);
	kl_ptr(&l, o, n * 2);
	kl_int(&l, (int64_t)n);
	if (kl_run(&l)) {
		float *got = fzeros(n), *want = fzeros(n);
		for (size_t i = 0; i < n; i++) {
			float v = interp_bf16_to_f32(x[i]);
			got[i] = interp_bf16_to_f32(o[i]);
			want[i] = rb(v * sigmoidf_(v));
		}
		close_f(what, got, want, n, 1e-30, 1.0 / 128);
		free(got);
		free(want);
	}
	free(x);
	free(o);
}

/* ---------------------------------------------------------------------
 * Seed kernels
 * --------------------------------------------------------------------- */

static void test_seeds(void)
{
	const char *file = KDIR "seeds/add_sin_cos.py";
	size_t n = 10;
	float *x = fvec(n, -3, 3), *y = fvec(n, -3, 3), *o = fzeros(n), *want = fzeros(n);
	launch l = kl(file, "add_kernel", "*fp32, *fp32, *fp32, i32, 4", 3, 1);
	kl_ptr(&l, x, n * 4);
	kl_ptr(&l, y, n * 4);
	kl_ptr(&l, o, n * 4);
	kl_int(&l, (int64_t)n);
	if (kl_run(&l)) {
		for (size_t i = 0; i < n; i++)
			want[i] = x[i] + y[i];
		close_f("seed add_kernel", o, want, n, 0, 0);
	}
	for (int k = 0; k < 2; k++) {
		launch t = kl(file, k ? "cos_kernel" : "sin_kernel", "*fp32, *fp32, i32, 4", 3, 1);
		kl_ptr(&t, x, n * 4);
		kl_ptr(&t, o, n * 4);
		kl_int(&t, (int64_t)n);
		if (kl_run(&t)) {
			for (size_t i = 0; i < n; i++)
				want[i] = k ? cosf(x[i]) : sinf(x[i]);
			close_f(k ? "seed cos_kernel" : "seed sin_kernel", o, want, n, 1e-6, 1e-6);
		}
	}
	free(x);
	free(y);
	free(o);
	free(want);

	/* SiLU on bf16, computed in fp32 and rounded once */
	silu_bf16(KDIR "seeds/silu.py", "triton_silu_kernel", "*bf16:16, *bf16:16, i32, 256", 4, 1000, 6,
		  "seed triton_silu_kernel");
}

/* ---------------------------------------------------------------------
 * Elementwise kernels
 * --------------------------------------------------------------------- */

static void test_vector_add(void)
{
	size_t n = 3000;
	float *x = fvec(n, -10, 10), *y = fvec(n, -10, 10), *o = fzeros(n), *want = fzeros(n);
	launch l = kl(KDIR "vector_add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024", 3, 1);
	kl_ptr(&l, x, n * 4);
	kl_ptr(&l, y, n * 4);
	kl_ptr(&l, o, n * 4);
	kl_int(&l, (int64_t)n);
	if (kl_run(&l)) {
		for (size_t i = 0; i < n; i++)
			want[i] = x[i] + y[i];
		close_f("add_kernel", o, want, n, 0, 0);
	}
	/* n larger than the buffers: the unmasked tail reads past x */
	l.args[3].value.i = 3072;
	kl_fail(&l, TILEC_ERR_RUNTIME, "vector_add.py:12:");
	l.args[3].value.i = 3072;
	kl_fail(&l, TILEC_ERR_RUNTIME, "byte offset 12000 is out of bounds of buffer 0 (12000 bytes)");
	/* a pointer that breaks the :16 specialization */
	l.args[3].value.i = (int64_t)n - 4;
	l.args[0].offset = 8;
	kl_fail(&l, TILEC_ERR_INVALID, "is not divisible by 16");
	free(x);
	free(y);
	free(o);
	free(want);
}

static void test_silu_bf16(void)
{
	silu_bf16(KDIR "silu_bf16.py", "silu_bf16_kernel", "*bf16:16, *bf16:16, i32, 128", 7, 777, 8, "silu_bf16_kernel");
}

static void test_trig(void)
{
	size_t n = 500;
	float *x = fvec(n, -10, 10), *s = fzeros(n), *c = fzeros(n), *want = fzeros(n);
	launch l = kl(KDIR "trig.py", "sincos_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 256", 2, 1);
	kl_ptr(&l, x, n * 4);
	kl_ptr(&l, s, n * 4);
	kl_ptr(&l, c, n * 4);
	kl_int(&l, (int64_t)n);
	if (kl_run(&l)) {
		for (size_t i = 0; i < n; i++)
			want[i] = sinf(x[i]);
		close_f("sincos_kernel sin", s, want, n, 1e-6, 1e-6);
		for (size_t i = 0; i < n; i++)
			want[i] = cosf(x[i]);
		close_f("sincos_kernel cos", c, want, n, 1e-6, 1e-6);
	}
	float *px = fvec(n, -1, 1), *py = fvec(n, -1, 1), *wx = fzeros(n), *wy = fzeros(n);
	float theta = 0.7f;
	for (size_t i = 0; i < n; i++) {
		wx[i] = px[i] * cosf(theta) - py[i] * sinf(theta);
		wy[i] = px[i] * sinf(theta) + py[i] * cosf(theta);
	}
	launch r = kl(KDIR "trig.py", "rotate_kernel", "*fp32:16, *fp32:16, fp32, i32, 128", 4, 1);
	kl_ptr(&r, px, n * 4);
	kl_ptr(&r, py, n * 4);
	kl_float(&r, theta);
	kl_int(&r, (int64_t)n);
	if (kl_run(&r)) {
		close_f("rotate_kernel x", px, wx, n, 1e-6, 1e-6);
		close_f("rotate_kernel y", py, wy, n, 1e-6, 1e-6);
	}
	free(x);
	free(s);
	free(c);
	free(want);
	free(px);
	free(py);
	free(wx);
	free(wy);
}

static void test_masked_copy(void)
{
	size_t n = 100, blocks = 2, block = 64;
	float *src = fvec(n, -1, 1), *dst = fzeros(blocks * block), *want = fzeros(blocks * block);
	launch l = kl(KDIR "masked_copy.py", "padded_copy_kernel", "*fp32:16, *fp32:16, i32, fp32, 64", 2, 1);
	kl_ptr(&l, src, n * 4);
	kl_ptr(&l, dst, blocks * block * 4);
	kl_int(&l, (int64_t)n);
	kl_float(&l, -1.5);
	if (kl_run(&l)) {
		for (size_t i = 0; i < blocks * block; i++)
			want[i] = i < n ? src[i] : -1.5f;
		close_f("padded_copy_kernel", dst, want, blocks * block, 0, 0);
	}
	/* n beyond the source buffer: the masked load itself goes out of bounds */
	l.args[2].value.i = 128;
	kl_fail(&l, TILEC_ERR_RUNTIME, "masked_copy.py:9:");

	int32_t *is = ivec(n, -1000, 1000), *id = calloc(n, 4), *iw = calloc(n, 4);
	int shifts[2] = {3, -5};
	for (int k = 0; k < 2; k++) {
		launch s = kl(KDIR "masked_copy.py", "shift_kernel", "*i32:16, *i32:16, i32, i32, 32", 4, 1);
		kl_ptr(&s, is, n * 4);
		kl_ptr(&s, id, n * 4);
		kl_int(&s, (int64_t)n);
		kl_int(&s, shifts[k]);
		if (kl_run(&s)) {
			for (int i = 0; i < (int)n; i++)
				iw[i] = i - shifts[k] >= 0 && i - shifts[k] < (int)n ? is[i - shifts[k]] : 0;
			same_i("shift_kernel", id, iw, n);
		}
	}
	free(src);
	free(dst);
	free(want);
	free(is);
	free(id);
	free(iw);
}

static void test_tile2d(void)
{
	int M = 37, N = 50, sxm = 64, som = 1, son = 40;
	float *x = fvec((size_t)M * sxm, -2, 2), *o = fzeros((size_t)N * son), *want = fzeros((size_t)N * son);
	launch l = kl(KDIR "tile2d.py", "scale_2d_kernel",
		      "*fp32:16, *fp32:16, i32, i32, i32, i32:1, i32:1, i32, fp32, fp32, 16, 32", 3, 2);
	kl_ptr(&l, x, (size_t)M * sxm * 4);
	kl_ptr(&l, o, (size_t)N * son * 4);
	kl_int(&l, M);
	kl_int(&l, N);
	kl_int(&l, sxm);
	kl_int(&l, 1);
	kl_int(&l, som);
	kl_int(&l, son);
	kl_float(&l, 1.5);
	kl_float(&l, -0.25);
	if (kl_run(&l)) {
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++)
				want[i * som + j * son] = 1.5f * x[i * sxm + j] + -0.25f;
		close_f("scale_2d_kernel", o, want, (size_t)N * son, 0, 0);
	}
	/* an output buffer one column short: the store must fail, not write */
	l.bufs[1].size = (size_t)(N - 1) * son * 4;
	kl_fail(&l, TILEC_ERR_RUNTIME, "tile2d.py:14:");

	int tm = 20, tn = 35;
	float *t = fvec((size_t)tm * tn, -1, 1), *to = fzeros((size_t)tm * tn), *tw = fzeros((size_t)tm * tn);
	launch tr = kl(KDIR "tile2d.py", "transpose_kernel", "*fp32:16, *fp32:16, i32, i32, 16", 2, 3);
	kl_ptr(&tr, t, (size_t)tm * tn * 4);
	kl_ptr(&tr, to, (size_t)tm * tn * 4);
	kl_int(&tr, tm);
	kl_int(&tr, tn);
	if (kl_run(&tr)) {
		for (int i = 0; i < tm; i++)
			for (int j = 0; j < tn; j++)
				tw[j * tm + i] = t[i * tn + j];
		close_f("transpose_kernel", to, tw, (size_t)tm * tn, 0, 0);
	}
	free(x);
	free(o);
	free(want);
	free(t);
	free(to);
	free(tw);
}

/* ---------------------------------------------------------------------
 * 3-D blocks (tiles3d.py): every kind of op on blocks of awkward shapes,
 * P programs, each over its own block
 * --------------------------------------------------------------------- */

enum { P3 = 2 }; /* programs */

typedef struct {
	int d[3];
} shape3;

static const shape3 shapes3[] = {{{2, 4, 8}}, {{4, 8, 16}}, {{8, 2, 32}}};

static int n3(shape3 s)
{
	return s.d[0] * s.d[1] * s.d[2];
}

/* the flat index of i in a row-major block of dims d */
static int at3(const int *d, const int *i)
{
	return (i[0] * d[1] + i[1]) * d[2] + i[2];
}

/* a launch of tiles3d.py's kernel over P3 programs: `ptrs` the pointer
 * parameters' types, then the shape and `extra` constexprs */
static launch kl3(const char *kernel, const char *ptrs, shape3 s, const char *extra, char *sig, size_t cap)
{
	snprintf(sig, cap, "%s, %d, %d, %d%s", ptrs, s.d[0], s.d[1], s.d[2], extra);
	return kl(KDIR "tiles3d.py", kernel, sig, P3, 1);
}

/* for every element i of a P3 x d block set, `body` with its flat index e */
#define EACH3(d, i, e, ...)                                                           \
	for (int p_ = 0, e = 0; p_ < P3; p_++)                                        \
		for (i[0] = 0; i[0] < (d)[0]; i[0]++)                                 \
			for (i[1] = 0; i[1] < (d)[1]; i[1]++)                         \
				for (i[2] = 0; i[2] < (d)[2]; i[2]++, e++) {          \
					int base_ = p_ * (d)[0] * (d)[1] * (d)[2];    \
					(void)base_;                                  \
					__VA_ARGS__                                   \
				}

static void test_tiles3d_elementwise(shape3 s)
{
	int n = n3(s), total = P3 * n, limit = total - 5, i[3];
	char sig[128], what[192];
	float *x = fvec((size_t)total, -1, 1), *y = fvec((size_t)s.d[2], -1, 1), *o = fzeros((size_t)total),
	      *w = fzeros((size_t)total);
	for (int e = 0; e < total; e++)
		o[e] = w[e] = 7.0f; /* masked off: left alone */
	launch l = kl3("where3d_kernel", "*fp32, *fp32, *fp32, i32", s, "", sig, sizeof sig);
	kl_ptr(&l, x, (size_t)total * 4);
	kl_ptr(&l, y, (size_t)s.d[2] * 4);
	kl_ptr(&l, o, (size_t)total * 4);
	kl_int(&l, limit);
	snprintf(what, sizeof what, "where3d_kernel [%s]", sig);
	if (kl_run(&l)) {
		EACH3(s.d, i, e, {
			if (e < limit) {
				float xv = x[e], yv = y[i[2]];
				w[e] = xv > yv && i[0] % 2 == 0 ? xv * 2.0f + yv : yv - xv;
			}
		});
		close_f(what, o, w, (size_t)total, 0, 0);
	}

	/* reshape then permute (2, 0, 1): out is C x A x B */
	launch r = kl3("reshape_permute_kernel", "*fp32, *fp32", s, "", sig, sizeof sig);
	kl_ptr(&r, x, (size_t)total * 4);
	kl_ptr(&r, o, (size_t)total * 4);
	snprintf(what, sizeof what, "reshape_permute_kernel [%s]", sig);
	if (kl_run(&r)) {
		int od[3] = {s.d[2], s.d[0], s.d[1]};
		EACH3(s.d, i, e, {
			int j[3] = {i[2], i[0], i[1]};
			w[base_ + at3(od, j)] = x[e];
		});
		close_f(what, o, w, (size_t)total, 0, 0);
	}

	/* tl.trans(x, 1, 0, 2) + x.permute(1, 0, 2): out is B x A x C */
	launch t = kl3("trans3d_kernel", "*fp32, *fp32", s, "", sig, sizeof sig);
	kl_ptr(&t, x, (size_t)total * 4);
	kl_ptr(&t, o, (size_t)total * 4);
	snprintf(what, sizeof what, "trans3d_kernel [%s]", sig);
	if (kl_run(&t)) {
		int od[3] = {s.d[1], s.d[0], s.d[2]};
		EACH3(s.d, i, e, {
			int j[3] = {i[1], i[0], i[2]};
			w[base_ + at3(od, j)] = x[e] + x[e];
		});
		close_f(what, o, w, (size_t)total, 0, 0);
	}

	/* join to A x B x C x 2 (stored as A x B x 2C), split back */
	float *j = fzeros((size_t)total * 2), *wj = fzeros((size_t)total * 2);
	launch js = kl3("join_split3d_kernel", "*fp32, *fp32, *fp32, *fp32", s, "", sig, sizeof sig);
	float *y2 = fvec((size_t)total, -1, 1);
	kl_ptr(&js, x, (size_t)total * 4);
	kl_ptr(&js, y2, (size_t)total * 4);
	kl_ptr(&js, j, (size_t)total * 8);
	kl_ptr(&js, o, (size_t)total * 4);
	snprintf(what, sizeof what, "join_split3d_kernel [%s]", sig);
	if (kl_run(&js)) {
		for (int e = 0; e < total; e++) {
			wj[2 * e] = x[e];
			wj[2 * e + 1] = y2[e];
			w[e] = x[e] * 2.0f - y2[e] * 2.0f;
		}
		close_f(what, j, wj, (size_t)total * 2, 0, 0);
		close_f(what, o, w, (size_t)total, 0, 0);
	}
	free(x);
	free(y);
	free(y2);
	free(o);
	free(w);
	free(j);
	free(wj);
}

/* x (A x B) times y (B x C) through x[:, :, None] * y[None, :, :] summed
 * along axis 1 */
static void test_tiles3d_outer(shape3 s)
{
	int A = s.d[0], B = s.d[1], C = s.d[2];
	char sig[128], what[192];
	float *x = fvec((size_t)P3 * A * B, -1, 1), *y = fvec((size_t)P3 * B * C, -1, 1);
	float *o = fzeros((size_t)P3 * A * C), *w = fzeros((size_t)P3 * A * C);
	launch l = kl3("outer_sum_kernel", "*fp32, *fp32, *fp32", s, "", sig, sizeof sig);
	kl_ptr(&l, x, (size_t)P3 * A * B * 4);
	kl_ptr(&l, y, (size_t)P3 * B * C * 4);
	kl_ptr(&l, o, (size_t)P3 * A * C * 4);
	snprintf(what, sizeof what, "outer_sum_kernel [%s]", sig);
	if (kl_run(&l)) {
		for (int p = 0; p < P3; p++)
			for (int a = 0; a < A; a++)
				for (int c = 0; c < C; c++) {
					double acc = 0;
					for (int b = 0; b < B; b++)
						acc += (double)(x[(p * A + a) * B + b] * y[(p * B + b) * C + c]);
					w[(p * A + a) * C + c] = (float)acc;
				}
		close_f(what, o, w, (size_t)P3 * A * C, 1e-6, 1e-5);
	}
	free(x);
	free(y);
	free(o);
	free(w);
}

/* sum, max and argmax along each axis (keep_dims), and tl.reduce of a
 * (value, index) pair */
static void test_tiles3d_reduce(shape3 s)
{
	int n = n3(s), total = P3 * n, i[3];
	char sig[128], what[192], ax[16];
	float *x = fvec((size_t)total, -4, 4);
	for (int e = 0; e < total; e += 3)
		x[e] = (float)irand(-4, 4); /* ties, taken at the smaller index */
	for (int axis = 0; axis < 3; axis++) {
		int od[3] = {s.d[0], s.d[1], s.d[2]};
		od[axis] = 1;
		int m = P3 * od[0] * od[1] * od[2];
		float *sum = fzeros((size_t)m), *mx = fzeros((size_t)m), *ws = fzeros((size_t)m), *wm = fzeros((size_t)m);
		int32_t *arg = calloc((size_t)m, 4), *wa = calloc((size_t)m, 4), *ri = calloc((size_t)m, 4),
			*wri = calloc((size_t)m, 4);
		double *acc = calloc((size_t)m, sizeof(double));
		for (int k = 0; k < m; k++)
			wm[k] = -INFINITY;
		EACH3(s.d, i, e, {
			int j[3] = {i[0], i[1], i[2]};
			j[axis] = 0;
			int k = base_ / n * (m / P3) + at3(od, j);
			acc[k] += x[e];
			if (x[e] > wm[k]) {
				wm[k] = x[e];
				wa[k] = i[axis];
				wri[k] = e;
			}
		});
		for (int k = 0; k < m; k++)
			ws[k] = (float)acc[k];
		snprintf(ax, sizeof ax, ", %d", axis);
		launch l = kl3("reduce3d_kernel", "*fp32, *fp32, *fp32, *i32", s, ax, sig, sizeof sig);
		kl_ptr(&l, x, (size_t)total * 4);
		kl_ptr(&l, sum, (size_t)m * 4);
		kl_ptr(&l, mx, (size_t)m * 4);
		kl_ptr(&l, arg, (size_t)m * 4);
		snprintf(what, sizeof what, "reduce3d_kernel [%s]", sig);
		if (kl_run(&l)) {
			close_f(what, sum, ws, (size_t)m, 1e-5, 1e-5);
			close_f(what, mx, wm, (size_t)m, 0, 0);
			same_i(what, arg, wa, (size_t)m);
		}
		launch r = kl3("reduce_fn3d_kernel", "*fp32, *fp32, *i32", s, ax, sig, sizeof sig);
		kl_ptr(&r, x, (size_t)total * 4);
		kl_ptr(&r, mx, (size_t)m * 4);
		kl_ptr(&r, ri, (size_t)m * 4);
		snprintf(what, sizeof what, "reduce_fn3d_kernel [%s]", sig);
		memset(mx, 0, (size_t)m * 4);
		if (kl_run(&r)) {
			close_f(what, mx, wm, (size_t)m, 0, 0);
			same_i(what, ri, wri, (size_t)m);
		}
		free(sum);
		free(mx);
		free(ws);
		free(wm);
		free(arg);
		free(wa);
		free(ri);
		free(wri);
		free(acc);
	}
	free(x);
}

static int cmp_desc(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x < y) - (x > y);
}

/* scans, sort, flip and gather along each axis */
static void test_tiles3d_axis(shape3 s)
{
	int n = n3(s), total = P3 * n, i[3];
	char sig[128], what[192], ax[16];
	int32_t *xi = ivec((size_t)total, -3, 4), *cs = calloc((size_t)total, 4), *sc = calloc((size_t)total, 4),
		*wcs = calloc((size_t)total, 4), *wsc = calloc((size_t)total, 4), *idx = calloc((size_t)total, 4);
	float *x = fvec((size_t)total, -1, 1), *o1 = fzeros((size_t)total), *o2 = fzeros((size_t)total),
	      *w1 = fzeros((size_t)total), *w2 = fzeros((size_t)total);
	for (int axis = 0; axis < 3; axis++) {
		int step = axis == 0 ? s.d[1] * s.d[2] : axis == 1 ? s.d[2] : 1, len = s.d[axis];
		/* inclusive sum from the start, product (wrapping) to the end */
		EACH3(s.d, i, e, {
			uint32_t sum = 0, prod = 1;
			for (int k = 0; k <= i[axis]; k++)
				sum += (uint32_t)xi[e + (k - i[axis]) * step];
			for (int k = i[axis]; k < len; k++)
				prod *= (uint32_t)xi[e + (k - i[axis]) * step];
			wcs[e] = (int32_t)sum;
			wsc[e] = (int32_t)prod;
		});
		snprintf(ax, sizeof ax, ", %d", axis);
		launch l = kl3("scan3d_kernel", "*i32, *i32, *i32", s, ax, sig, sizeof sig);
		kl_ptr(&l, xi, (size_t)total * 4);
		kl_ptr(&l, cs, (size_t)total * 4);
		kl_ptr(&l, sc, (size_t)total * 4);
		snprintf(what, sizeof what, "scan3d_kernel [%s]", sig);
		if (kl_run(&l)) {
			same_i(what, cs, wcs, (size_t)total);
			same_i(what, sc, wsc, (size_t)total);
		}

		/* sorted rows (descending, the last dim); flipped along axis */
		memcpy(w1, x, (size_t)total * 4);
		for (int r = 0; r < total; r += s.d[2])
			qsort(w1 + r, (size_t)s.d[2], 4, cmp_desc);
		EACH3(s.d, i, e, { w2[e] = x[e + (len - 1 - 2 * i[axis]) * step]; });
		launch f = kl3("sort_flip3d_kernel", "*fp32, *fp32, *fp32", s, ax, sig, sizeof sig);
		kl_ptr(&f, x, (size_t)total * 4);
		kl_ptr(&f, o1, (size_t)total * 4);
		kl_ptr(&f, o2, (size_t)total * 4);
		snprintf(what, sizeof what, "sort_flip3d_kernel [%s]", sig);
		if (kl_run(&f)) {
			close_f(what, o1, w1, (size_t)total, 0, 0);
			close_f(what, o2, w2, (size_t)total, 0, 0);
		}

		/* gather: x at the index along axis */
		EACH3(s.d, i, e, {
			idx[e] = irand(0, len);
			w1[e] = x[e + (idx[e] - i[axis]) * step];
		});
		launch g = kl3("gather3d_kernel", "*fp32, *i32, *fp32", s, ax, sig, sizeof sig);
		kl_ptr(&g, x, (size_t)total * 4);
		kl_ptr(&g, idx, (size_t)total * 4);
		kl_ptr(&g, o1, (size_t)total * 4);
		snprintf(what, sizeof what, "gather3d_kernel [%s]", sig);
		if (kl_run(&g))
			close_f(what, o1, w1, (size_t)total, 0, 0);
	}
	free(xi);
	free(cs);
	free(sc);
	free(wcs);
	free(wsc);
	free(idx);
	free(x);
	free(o1);
	free(o2);
	free(w1);
	free(w2);
}

/* batched dots [BATCH, M, K] @ [BATCH, K, N]: fp32 ("ieee") and fp16 with
 * an accumulator of ones */
static void test_tiles3d_dot(int batch, int M, int N, int K)
{
	size_t na = (size_t)P3 * batch * M * K, nb = (size_t)P3 * batch * K * N, nc = (size_t)P3 * batch * M * N;
	char sig[128], what[192];
	float *a = fvec(na, -1, 1), *b = fvec(nb, -1, 1), *c = fzeros(nc), *w = fzeros(nc), *wh = fzeros(nc);
	uint16_t *ah = malloc(na * 2), *bh = malloc(nb * 2);
	for (size_t e = 0; e < na; e++)
		ah[e] = f2h(a[e]);
	for (size_t e = 0; e < nb; e++)
		bh[e] = f2h(b[e]);
	for (int q = 0; q < P3 * batch; q++)
		for (int m = 0; m < M; m++)
			for (int j = 0; j < N; j++) {
				double acc = 0, acch = 1;
				for (int k = 0; k < K; k++) {
					acc += (double)a[(q * M + m) * K + k] * b[(q * K + k) * N + j];
					acch += (double)h2f(ah[(q * M + m) * K + k]) * h2f(bh[(q * K + k) * N + j]);
				}
				w[(q * M + m) * N + j] = (float)acc;
				wh[(q * M + m) * N + j] = (float)acch;
			}
	snprintf(sig, sizeof sig, "*fp32, *fp32, *fp32, %d, %d, %d, %d", batch, M, N, K);
	launch l = kl(KDIR "tiles3d.py", "bmm_kernel", sig, P3, 1);
	kl_ptr(&l, a, na * 4);
	kl_ptr(&l, b, nb * 4);
	kl_ptr(&l, c, nc * 4);
	snprintf(what, sizeof what, "bmm_kernel [%s]", sig);
	if (kl_run(&l))
		close_f(what, c, w, nc, 1e-5, 1e-5);
	snprintf(sig, sizeof sig, "*fp16, *fp16, *fp32, %d, %d, %d, %d", batch, M, N, K);
	launch h = kl(KDIR "tiles3d.py", "bmm_fp16_kernel", sig, P3, 1);
	kl_ptr(&h, ah, na * 2);
	kl_ptr(&h, bh, nb * 2);
	kl_ptr(&h, c, nc * 4);
	snprintf(what, sizeof what, "bmm_fp16_kernel [%s]", sig);
	if (kl_run(&h))
		close_f(what, c, wh, nc, 1e-5, 1e-5);
	free(a);
	free(b);
	free(c);
	free(w);
	free(wh);
	free(ah);
	free(bh);
}

static void test_tiles3d(void)
{
	for (size_t k = 0; k < sizeof shapes3 / sizeof shapes3[0]; k++) {
		test_tiles3d_elementwise(shapes3[k]);
		test_tiles3d_outer(shapes3[k]);
		test_tiles3d_reduce(shapes3[k]);
		test_tiles3d_axis(shapes3[k]);
	}
	test_tiles3d_dot(2, 16, 32, 16);
	test_tiles3d_dot(4, 16, 16, 32);

	/* what Triton 3.6 refuses on 3-D blocks */
	char sig[128];
	shape3 s = shapes3[0];
	launch c = kl3("cat3d_kernel", "*fp32, *fp32", s, "", sig, sizeof sig);
	kl_refused(&c, "`tl.cat` takes 1-D blocks, got <2x4x8xfp32>");
	launch h = kl3("histogram3d_kernel", "*i32, *i32", s, "", sig, sizeof sig);
	kl_refused(&h, "histogram only supports 1D input, got <2x4x8xi32>");
	launch o = kl3("sort_dim0_kernel", "*fp32, *fp32", s, "", sig, sizeof sig);
	kl_refused(&o, "only minor dimension is currently supported (dim 0 of a block of rank 3)");
}

static void test_int_ops(void)
{
	size_t n = 300;
	int32_t *a = ivec(n, -100000, 100000), *b = ivec(n, -50, 50), *q = calloc(n, 4), *r = calloc(n, 4);
	int32_t *wq = calloc(n, 4), *wr = calloc(n, 4);
	for (size_t i = 0; i < n; i++)
		if (b[i] == 0)
			b[i] = 7;
	launch l = kl(KDIR "int_ops.py", "divmod_kernel", "*i32:16, *i32:16, *i32:16, *i32:16, i32, 128", 3, 1);
	kl_ptr(&l, a, n * 4);
	kl_ptr(&l, b, n * 4);
	kl_ptr(&l, q, n * 4);
	kl_ptr(&l, r, n * 4);
	kl_int(&l, (int64_t)n);
	if (kl_run(&l)) {
		for (size_t i = 0; i < n; i++) {
			wq[i] = a[i] / b[i];
			wr[i] = a[i] % b[i];
		}
		same_i("divmod_kernel //", q, wq, n);
		same_i("divmod_kernel %", r, wr, n);
	}
	b[17] = 0;
	kl_fail(&l, TILEC_ERR_RUNTIME, "integer division by zero");

	launch m = kl(KDIR "int_ops.py", "index_math_kernel", "*i32:16, i32, 7, 64", 2, 1);
	kl_ptr(&m, q, n * 4);
	kl_int(&m, 100);
	if (kl_run(&m)) {
		for (int i = 0; i < 100; i++)
			wq[i] = (i / 7) * 1000 + i % 7 - 4; /* -7 // 2 == -4 */
		same_i("index_math_kernel", q, wq, 100);
	}

	uint32_t *h = calloc(n, 4), *wh = calloc(n, 4);
	launch c = kl(KDIR "int_ops.py", "lcg_hash_kernel", "*i32:16, *u32:16, i32, 128", 3, 1);
	kl_ptr(&c, a, n * 4);
	kl_ptr(&c, h, n * 4);
	kl_int(&c, (int64_t)n);
	if (kl_run(&c)) {
		for (size_t i = 0; i < n; i++) {
			uint32_t v = (uint32_t)a[i] * 1664525u + 1013904223u;
			wh[i] = v ^ (v >> 16);
		}
		same_i("lcg_hash_kernel", (int32_t *)h, (int32_t *)wh, n);
	}
	free(a);
	free(b);
	free(q);
	free(r);
	free(wq);
	free(wr);
	free(h);
	free(wh);
}

static void test_casts(void)
{
	size_t n = 200;
	float *x = fvec(n, -300, 300), *f = fzeros(n), *wf = fzeros(n);
	x[0] = 70000.0f; /* past fp16's range */
	x[1] = -2.5f;
	x[2] = 1.0f / 3.0f;
	uint16_t *h = calloc(n, 2), *b = calloc(n, 2);
	int32_t *iv = calloc(n, 4), *wi = calloc(n, 4);
	launch l = kl(KDIR "casts.py", "cast_chain_kernel", "*fp32:16, *fp16:16, *bf16:16, *i32:16, *fp32:16, i32, 64", 4, 1);
	kl_ptr(&l, x, n * 4);
	kl_ptr(&l, h, n * 2);
	kl_ptr(&l, b, n * 2);
	kl_ptr(&l, iv, n * 4);
	kl_ptr(&l, f, n * 4);
	kl_int(&l, (int64_t)n);
	if (kl_run(&l)) {
		int hb = 0, bb = 0;
		for (size_t i = 0; i < n; i++) {
			hb += h[i] != f2h(x[i]);
			bb += b[i] != interp_f32_to_bf16(x[i]);
			wi[i] = (int32_t)x[i];
			wf[i] = (float)wi[i] + rh(x[i]);
		}
		CHECK_EQ_INT(hb, 0);
		CHECK_EQ_INT(bb, 0);
		CHECK_EQ_INT(h[0], 0x7c00);
		same_i("cast_chain_kernel int", iv, wi, n);
		close_f("cast_chain_kernel sum", f, wf, n, 0, 0);
	}

	/* y = a * x + y in fp16: each op rounds to fp16 */
	uint16_t *hx = calloc(n, 2), *hy = calloc(n, 2);
	float *got = fzeros(n), *want = fzeros(n);
	for (size_t i = 0; i < n; i++) {
		hx[i] = f2h(frand(-4, 4));
		hy[i] = f2h(frand(-4, 4));
		want[i] = rh(rh(rh(0.3f) * h2f(hx[i])) + h2f(hy[i]));
	}
	launch a = kl(KDIR "casts.py", "axpy_fp16_kernel", "*fp16:16, *fp16:16, fp32, i32, 128", 2, 1);
	kl_ptr(&a, hx, n * 2);
	kl_ptr(&a, hy, n * 2);
	kl_float(&a, 0.3);
	kl_int(&a, (int64_t)n);
	if (kl_run(&a)) {
		for (size_t i = 0; i < n; i++)
			got[i] = h2f(hy[i]);
		close_f("axpy_fp16_kernel", got, want, n, 1e-3, 1e-3);
	}

	/* fp16 input summed in fp32 */
	size_t m = 1000;
	uint16_t *sx = calloc(m, 2);
	double s = 0;
	for (size_t i = 0; i < m; i++) {
		sx[i] = f2h(frand(-1, 1));
		s += h2f(sx[i]);
	}
	float out = 0, ws = (float)s;
	launch sm = kl(KDIR "casts.py", "sum_fp16_kernel", "*fp16:16, *fp32, i32, 1024", 1, 1);
	kl_ptr(&sm, sx, m * 2);
	kl_ptr(&sm, &out, 4);
	kl_int(&sm, (int64_t)m);
	if (kl_run(&sm))
		close_f("sum_fp16_kernel", &out, &ws, 1, 1e-4, 1e-5);
	free(x);
	free(f);
	free(wf);
	free(h);
	free(b);
	free(iv);
	free(wi);
	free(hx);
	free(hy);
	free(got);
	free(want);
	free(sx);
}

static void test_elementwise(void)
{
	size_t n = 400;
	float *x = fvec(n, -3, 3), *o = fzeros(n), *want = fzeros(n);
	launch l = kl(KDIR "elementwise.py", "clamp_kernel", "*fp32:16, *fp32:16, fp32, fp32, i32, 128", 4, 1);
	kl_ptr(&l, x, n * 4);
	kl_ptr(&l, o, n * 4);
	kl_float(&l, -1.25);
	kl_float(&l, 2.0);
	kl_int(&l, (int64_t)n);
	if (kl_run(&l)) {
		for (size_t i = 0; i < n; i++)
			want[i] = fabsf(x[i]) < 0.1f ? 0.0f : fminf(fmaxf(x[i], -1.25f), 2.0f);
		close_f("clamp_kernel", o, want, n, 0, 0);
	}

	float *p = fvec(n, 0.01f, 20), *e = fzeros(n), *lg = fzeros(n), *sq = fzeros(n), *rs = fzeros(n);
	launch m = kl(KDIR "elementwise.py", "math_kernel", "*fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, 256", 2, 1);
	kl_ptr(&m, p, n * 4);
	kl_ptr(&m, e, n * 4);
	kl_ptr(&m, lg, n * 4);
	kl_ptr(&m, sq, n * 4);
	kl_ptr(&m, rs, n * 4);
	kl_int(&m, (int64_t)n);
	if (kl_run(&m)) {
		for (size_t i = 0; i < n; i++)
			want[i] = expf(p[i]) + exp2f(p[i]);
		close_f("math_kernel exp", e, want, n, 0, 1e-6);
		for (size_t i = 0; i < n; i++)
			want[i] = logf(p[i]) - log2f(p[i]);
		close_f("math_kernel log", lg, want, n, 1e-6, 1e-6);
		for (size_t i = 0; i < n; i++)
			want[i] = fmaf(sqrtf(p[i]), 2.0f, 1.0f);
		close_f("math_kernel sqrt", sq, want, n, 0, 1e-7);
		for (size_t i = 0; i < n; i++)
			want[i] = 1.0f / sqrtf(p[i]);
		close_f("math_kernel rsqrt", rs, want, n, 0, 1e-6);
	}

	int32_t *k = ivec(n, -5, 6);
	launch w = kl(KDIR "elementwise.py", "swish_int_mix_kernel", "*fp32:16, *i32:16, *fp32:16, i32, 128", 4, 1);
	kl_ptr(&w, x, n * 4);
	kl_ptr(&w, k, n * 4);
	kl_ptr(&w, o, n * 4);
	kl_int(&w, (int64_t)n);
	if (kl_run(&w)) {
		for (size_t i = 0; i < n; i++)
			want[i] = x[i] * (float)k[i] + (k[i] > 2 ? 1.0f : 0.0f);
		close_f("swish_int_mix_kernel", o, want, n, 0, 0);
	}
	free(x);
	free(o);
	free(want);
	free(p);
	free(e);
	free(lg);
	free(sq);
	free(rs);
	free(k);
}

static void test_constexpr_branch(void)
{
	size_t n = 300;
	float *x = fvec(n, -4, 4), *o = fzeros(n), *want = fzeros(n);
	static const char *const sigs[3] = {"*fp32:16, *fp32:16, i32, fp32, 0, False, 256",
					    "*fp32:16, *fp32:16, i32, fp32, 1, True, 256",
					    "*fp32:16, *fp32:16, i32, fp32, 2, False, 256"};
	for (int act = 0; act < 3; act++) {
		launch l = kl(KDIR "constexpr_branch.py", "activation_kernel", sigs[act], 2, 1);
		kl_ptr(&l, x, n * 4);
		kl_ptr(&l, o, n * 4);
		kl_int(&l, (int64_t)n);
		kl_float(&l, 0.125);
		if (!kl_run(&l))
			continue;
		for (size_t i = 0; i < n; i++) {
			float v = x[i];
			float y = act == 0 ? fmaxf(v, 0.0f) : act == 1 ? (v >= 0 ? v : v * 0.125f) : sigmoidf_(v);
			want[i] = act == 1 ? y * 2.0f : y;
		}
		close_f(sigs[act], o, want, n, 1e-7, act == 2 ? 1e-6 : 0);
	}
	/* the same kernel with the constexprs given by name */
	launch d = kl(KDIR "constexpr_branch.py", "activation_kernel", "*fp32:16, *fp32:16, i32, fp32", 2, 1);
	kl_define(&d, "ACTIVATION", "0");
	kl_define(&d, "SCALE", "True");
	kl_define(&d, "BLOCK", "256");
	kl_ptr(&d, x, n * 4);
	kl_ptr(&d, o, n * 4);
	kl_int(&d, (int64_t)n);
	kl_float(&d, 0.125);
	if (kl_run(&d)) {
		for (size_t i = 0; i < n; i++)
			want[i] = fmaxf(x[i], 0.0f) * 2.0f;
		close_f("activation_kernel -D", o, want, n, 0, 0);
	}
	free(x);
	free(o);
	free(want);
}

/* ---------------------------------------------------------------------
 * Reductions, loops, helpers
 * --------------------------------------------------------------------- */

static void test_softmax(void)
{
	int rows = 5, cols = 100, sin_ = 104, sout = 100;
	float *x = fvec((size_t)rows * sin_, -5, 5), *o = fzeros((size_t)rows * sout), *want = fzeros((size_t)rows * sout);
	launch l = kl(KDIR "softmax.py", "softmax_kernel", "*fp32:16, *fp32:16, i32, i32, i32, i32, 128", (uint32_t)rows, 1);
	kl_ptr(&l, o, (size_t)rows * sout * 4);
	kl_ptr(&l, x, (size_t)rows * sin_ * 4);
	kl_int(&l, sin_);
	kl_int(&l, sout);
	kl_int(&l, rows);
	kl_int(&l, cols);
	if (kl_run(&l)) {
		for (int r = 0; r < rows; r++) {
			double mx = -INFINITY, s = 0;
			for (int c = 0; c < cols; c++)
				mx = fmax(mx, x[r * sin_ + c]);
			for (int c = 0; c < cols; c++)
				s += exp(x[r * sin_ + c] - mx);
			for (int c = 0; c < cols; c++)
				want[r * sout + c] = (float)(exp(x[r * sin_ + c] - mx) / s);
		}
		close_f("softmax_kernel", o, want, (size_t)rows * sout, 1e-8, 1e-5);
	}
	free(x);
	free(o);
	free(want);
}

static void test_layernorm(void)
{
	int rows = 4, N = 300;
	size_t total = (size_t)rows * N;
	uint16_t *X = calloc(total, 2), *Y = calloc(total, 2), *W = calloc((size_t)N, 2), *B = calloc((size_t)N, 2);
	float mean[4], rstd[4], wmean[4], wrstd[4];
	for (size_t i = 0; i < total; i++)
		X[i] = f2h(frand(-2, 3));
	for (int i = 0; i < N; i++) {
		W[i] = f2h(frand(0.5f, 1.5f));
		B[i] = f2h(frand(-0.5f, 0.5f));
	}
	launch l = kl(KDIR "layernorm.py", "_layer_norm_fwd", "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32, i32, fp32, 128",
		      (uint32_t)rows, 1);
	kl_ptr(&l, X, total * 2);
	kl_ptr(&l, Y, total * 2);
	kl_ptr(&l, W, (size_t)N * 2);
	kl_ptr(&l, B, (size_t)N * 2);
	kl_ptr(&l, mean, sizeof mean);
	kl_ptr(&l, rstd, sizeof rstd);
	kl_int(&l, N);
	kl_int(&l, N);
	kl_float(&l, 1e-5);
	if (kl_run(&l)) {
		float *got = fzeros(total), *want = fzeros(total);
		for (int r = 0; r < rows; r++) {
			double m = 0, v = 0;
			for (int c = 0; c < N; c++)
				m += h2f(X[r * N + c]);
			m /= N;
			for (int c = 0; c < N; c++)
				v += (h2f(X[r * N + c]) - m) * (h2f(X[r * N + c]) - m);
			v /= N;
			wmean[r] = (float)m;
			wrstd[r] = (float)(1.0 / sqrt(v + 1e-5));
			for (int c = 0; c < N; c++) {
				got[r * N + c] = h2f(Y[r * N + c]);
				want[r * N + c] = rh((float)((h2f(X[r * N + c]) - m) * wrstd[r] * h2f(W[c]) + h2f(B[c])));
			}
		}
		close_f("_layer_norm_fwd mean", mean, wmean, 4, 1e-6, 1e-5);
		close_f("_layer_norm_fwd rstd", rstd, wrstd, 4, 0, 1e-5);
		close_f("_layer_norm_fwd y", got, want, total, 1e-3, 1e-3);
		free(got);
		free(want);
	}
	free(X);
	free(Y);
	free(W);
	free(B);
}

static void test_reductions(void)
{
	int M = 20, N = 50;
	float *x = fvec((size_t)M * N, -1, 1), *o = fzeros((size_t)M * N), *want = fzeros((size_t)M * N);
	launch l = kl(KDIR "reductions.py", "col_sum_kernel", "*fp32:16, *fp32:16, i32, i32, i32, 32, 16", 4, 1);
	kl_ptr(&l, x, (size_t)M * N * 4);
	kl_ptr(&l, o, (size_t)N * 4);
	kl_int(&l, M);
	kl_int(&l, N);
	kl_int(&l, N);
	if (kl_run(&l)) {
		for (int j = 0; j < N; j++) {
			double s = 0;
			for (int i = 0; i < M; i++)
				s += x[i * N + j];
			want[j] = (float)s;
		}
		close_f("col_sum_kernel", o, want, (size_t)N, 1e-6, 1e-5);
	}

	int cm = 10, cn = 24;
	float mx[16] = {0}, wmx[16] = {0};
	launch c = kl(KDIR "reductions.py", "row_center_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, i32, 4, 32", 3, 1);
	kl_ptr(&c, x, (size_t)cm * cn * 4);
	kl_ptr(&c, o, (size_t)cm * cn * 4);
	kl_ptr(&c, mx, (size_t)cm * 4);
	kl_int(&c, cm);
	kl_int(&c, cn);
	if (kl_run(&c)) {
		for (int i = 0; i < cm; i++) {
			float m = -INFINITY;
			for (int j = 0; j < cn; j++)
				m = fmaxf(m, x[i * cn + j]);
			wmx[i] = m;
			for (int j = 0; j < cn; j++)
				want[i * cn + j] = x[i * cn + j] - m;
		}
		close_f("row_center_kernel y", o, want, (size_t)cm * cn, 0, 0);
		close_f("row_center_kernel max", mx, wmx, (size_t)cm, 0, 0);
	}

	int32_t *iv = ivec(100, -1000000, 1000000), out[2] = {0, 0}, wout[2] = {INT32_MAX, INT32_MIN};
	for (int i = 0; i < 100; i++) {
		wout[0] = iv[i] < wout[0] ? iv[i] : wout[0];
		wout[1] = iv[i] > wout[1] ? iv[i] : wout[1];
	}
	launch mm = kl(KDIR "reductions.py", "min_max_kernel", "*i32:16, *i32:16, i32, 128", 1, 1);
	kl_ptr(&mm, iv, 400);
	kl_ptr(&mm, out, sizeof out);
	kl_int(&mm, 100);
	if (kl_run(&mm))
		same_i("min_max_kernel", out, wout, 2);
	free(x);
	free(o);
	free(want);
	free(iv);
}

static void test_argmax(void)
{
	int rows = 6, N = 50, stride = 56;
	float *x = fzeros((size_t)rows * stride), vals[6], wvals[6];
	int32_t idx[6], widx[6];
	for (int i = 0; i < rows * stride; i++)
		x[i] = (float)irand(0, 8); /* many ties */
	x[3 * stride + 49] = 9; /* the last column wins once */
	for (int r = 0; r < rows; r++) {
		widx[r] = 0;
		for (int c = 1; c < N; c++)
			if (x[r * stride + c] > x[r * stride + widx[r]])
				widx[r] = c;
		wvals[r] = x[r * stride + widx[r]];
	}
	launch l = kl(KDIR "argmax.py", "row_argmax_kernel", "*fp32:16, *i32:16, *fp32:16, i32, i32, 64", (uint32_t)rows, 1);
	kl_ptr(&l, x, (size_t)rows * stride * 4);
	kl_ptr(&l, idx, sizeof idx);
	kl_ptr(&l, vals, sizeof vals);
	kl_int(&l, N);
	kl_int(&l, stride);
	if (kl_run(&l)) {
		same_i("row_argmax_kernel", idx, widx, (size_t)rows);
		close_f("row_argmax_kernel max", vals, wvals, (size_t)rows, 0, 0);
	}

	int M = 12, n2 = 10;
	int32_t *y = ivec((size_t)M * n2, -3, 3), cidx[16] = {0}, wc[16] = {0};
	for (int c = 0; c < n2; c++)
		for (int r = 1; r < M; r++)
			if (y[r * n2 + c] < y[wc[c] * n2 + c])
				wc[c] = r;
	launch a = kl(KDIR "argmax.py", "col_argmin_kernel", "*i32:16, *i32:16, i32, i32, 16, 16", 1, 1);
	kl_ptr(&a, y, (size_t)M * n2 * 4);
	kl_ptr(&a, cidx, sizeof cidx);
	kl_int(&a, M);
	kl_int(&a, n2);
	if (kl_run(&a))
		same_i("col_argmin_kernel", cidx, wc, (size_t)n2);
	free(x);
	free(y);
}

static void test_loops(void)
{
	int rows = 3, N = 1000;
	float *x = fvec((size_t)rows * N, -1, 1), sums[3], wsums[3];
	launch l = kl(KDIR "loops.py", "row_sum_loop_kernel", "*fp32:16, *fp32:16, i32, i32, 128", (uint32_t)rows, 1);
	kl_ptr(&l, x, (size_t)rows * N * 4);
	kl_ptr(&l, sums, sizeof sums);
	kl_int(&l, N);
	kl_int(&l, N);
	if (kl_run(&l)) {
		for (int r = 0; r < rows; r++) {
			double s = 0;
			for (int c = 0; c < N; c++)
				s += x[r * N + c];
			wsums[r] = (float)s;
		}
		close_f("row_sum_loop_kernel", sums, wsums, 3, 1e-5, 1e-5);
	}

	size_t n = 3000;
	float *o = fzeros(n), *want = fzeros(n);
	launch g = kl(KDIR "loops.py", "grid_stride_kernel", "*fp32:16, *fp32:16, i32, 256", 4, 1);
	kl_ptr(&g, x, n * 4);
	kl_ptr(&g, o, n * 4);
	kl_int(&g, (int64_t)n);
	if (kl_run(&g)) {
		for (size_t i = 0; i < n; i++)
			want[i] = x[i] * 3.0f - 1.0f;
		close_f("grid_stride_kernel", o, want, n, 0, 0);
	}

	n = 100;
	launch p = kl(KDIR "loops.py", "poly_kernel", "*fp32:16, *fp32:16, i32, 5, 128", 1, 1);
	kl_ptr(&p, x, n * 4);
	kl_ptr(&p, o, n * 4);
	kl_int(&p, (int64_t)n);
	if (kl_run(&p)) {
		for (size_t i = 0; i < n; i++) {
			float acc = 0, coef = 6.0f;
			for (int k = 0; k <= 5; k++) {
				acc = acc * x[i] + coef;
				coef -= 1.0f;
			}
			want[i] = acc;
		}
		close_f("poly_kernel", o, want, n, 1e-6, 1e-6);
	}

	int32_t nv = 1000, steps = -1, wsteps = 9; /* 1000 500 250 125 62 31 15 7 3 1 */
	launch h = kl(KDIR "loops.py", "halvings_kernel", "*i32, *i32", 1, 1);
	kl_ptr(&h, &nv, 4);
	kl_ptr(&h, &steps, 4);
	if (kl_run(&h))
		same_i("halvings_kernel", &steps, &wsteps, 1);
	free(x);
	free(o);
	free(want);
}

static void test_helpers(void)
{
	int rows = 4, N = 100;
	size_t total = (size_t)rows * N;
	float *x = fvec(total, -3, 3), *bias = fvec((size_t)N, -1, 1), *o = fzeros(total), *want = fzeros(total);
	launch l = kl(KDIR "helpers.py", "bias_gelu_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, i32, 128", (uint32_t)rows, 1);
	kl_ptr(&l, x, total * 4);
	kl_ptr(&l, bias, (size_t)N * 4);
	kl_ptr(&l, o, total * 4);
	kl_int(&l, N);
	kl_int(&l, N);
	if (kl_run(&l)) {
		for (int r = 0; r < rows; r++)
			for (int c = 0; c < N; c++) {
				double v = (double)(x[r * N + c] + bias[c]);
				want[r * N + c] = (float)(0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))));
			}
		close_f("bias_gelu_kernel", o, want, total, 1e-6, 1e-5);
	}
	size_t n = total;
	float *y = fvec(n, -3, 3);
	launch h = kl(KDIR "helpers.py", "hypot_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 256", 2, 1);
	kl_ptr(&h, x, n * 4);
	kl_ptr(&h, y, n * 4);
	kl_ptr(&h, o, n * 4);
	kl_int(&h, (int64_t)n);
	if (kl_run(&h)) {
		for (size_t i = 0; i < n; i++)
			want[i] = sqrtf(x[i] * x[i] + y[i] * y[i]);
		close_f("hypot_kernel", o, want, n, 0, 1e-6);
	}
	free(x);
	free(bias);
	free(o);
	free(want);
	free(y);
}

static void test_runtime_if(void)
{
	size_t n = 300;
	float *x = fvec(n, -2, 2), *o = fzeros(n), *want = fzeros(n);
	for (int flag = -1; flag <= 1; flag += 2) {
		launch l = kl(KDIR "runtime_if.py", "sign_scale_kernel", "*fp32:16, *fp32:16, i32, i32, 128", 3, 1);
		kl_ptr(&l, x, n * 4);
		kl_ptr(&l, o, n * 4);
		kl_int(&l, (int64_t)n);
		kl_int(&l, flag);
		if (kl_run(&l)) {
			for (size_t i = 0; i < n; i++)
				want[i] = flag > 0 ? x[i] * 2.0f : -x[i];
			close_f("sign_scale_kernel", o, want, n, 0, 0);
		}
	}
	float sums[3] = {0}, wsums[3] = {0};
	int32_t count = -1, wcount = (int32_t)n;
	for (size_t i = 0; i < n; i++)
		wsums[i / 128] += x[i];
	launch b = kl(KDIR "runtime_if.py", "block_sums_kernel", "*fp32:16, *fp32:16, *i32, i32, 128", 3, 1);
	kl_ptr(&b, x, n * 4);
	kl_ptr(&b, sums, sizeof sums);
	kl_ptr(&b, &count, 4);
	kl_int(&b, (int64_t)n);
	if (kl_run(&b)) {
		close_f("block_sums_kernel", sums, wsums, 3, 1e-5, 1e-5);
		same_i("block_sums_kernel count", &count, &wcount, 1);
	}
	free(x);
	free(o);
	free(want);
}

/* The arguments of the tutorial's matmul_kernel for row-major fp16 A (MxK),
 * B (KxN) and C (MxN), buffers sized for K rows of B. */
static void matmul_args(launch *l, uint16_t *a, uint16_t *b, uint16_t *c, int M, int N, int K)
{
	kl_ptr(l, a, (size_t)M * (K ? K : 1) * 2);
	kl_ptr(l, b, (size_t)(K ? K : 1) * N * 2);
	kl_ptr(l, c, (size_t)M * N * 2);
	const int64_t ints[9] = {M, N, K, K, 1, N, 1, N, 1};
	for (int i = 0; i < 9; i++)
		kl_int(l, ints[i]);
}

/* The arguments of matmul_fp32_kernel: row-major A (MxK) and B (KxN) of
 * `esize`-byte elements, fp32 C (MxN). */
static void matmul_fp32_args(launch *l, void *a, void *b, float *c, size_t esize, int M, int N, int K)
{
	kl_ptr(l, a, (size_t)M * (K ? K : 1) * esize);
	kl_ptr(l, b, (size_t)(K ? K : 1) * N * esize);
	kl_ptr(l, c, (size_t)M * N * 4);
	kl_int(l, M);
	kl_int(l, N);
	kl_int(l, K);
}

/* Pipelined loops (pipeline.c) compute the same bits as the plain loop:
 * the tutorial matmul (step 1, a K-tail mask, carried pointers) and
 * matmul_fp32_kernel on bf16 (step BLOCK_K, addresses from the induction
 * variable) and a matmul of tl.trans(b), for K giving no, one, and several iterations with and without
 * a tail: loads one iteration ahead into registers (mode 0), and rings of
 * asynchronous copies with 2 to 5 stages (fewer iterations than stages
 * included), whose loops keep no load, with num_stages tiles per ring and
 * with num_stages - 1 (reuse: the copies go into the tile just read). */
static void test_pipelined_loads(void)
{
	static const int ks[] = {0, 1, 16, 32, 70, 96, 160};
	for (int reuse = 0; reuse <= 1; reuse++)
	for (int mode = 0; mode <= 5; mode++)
	for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
		if (mode == 1 || (reuse && mode == 0))
			continue; /* one stage is no pipeline; registers have no rings */
		int stages = mode ? mode : 2;
		bool async = mode != 0;
		int M = 48, N = 40, K = ks[t];
		uint16_t *a = calloc((size_t)M * (K ? K : 1), 2), *b = calloc((size_t)(K ? K : 1) * N, 2);
		uint16_t *c[2] = {calloc((size_t)M * N, 2), calloc((size_t)M * N, 2)};
		uint16_t *e[2] = {calloc((size_t)M * N, 2), calloc((size_t)M * N, 2)};
		float *d[2] = {fzeros((size_t)M * N), fzeros((size_t)M * N)};
		for (int i = 0; i < M * K; i++)
			a[i] = f2h(frand(-1, 1));
		for (int i = 0; i < K * N; i++)
			b[i] = f2h(frand(-1, 1));
		for (int run = 0; run < 2; run++) {
			launch l = kl(KDIR "matmul.py", "matmul_kernel",
				      "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, 32, 16, 16, 2",
				      2 * 3, 1);
			l.stages = run == 1 ? stages : 0;
			l.async = async;
			l.reuse = reuse;
			matmul_args(&l, a, b, c[run], M, N, K);
			/* registers: two prologue loads, two in the body; rings: two copies
			 * per prologue stage and two in the body, no load */
			if (kl_run(&l) && run == 1) {
				CHECK_EQ_INT(l.loads_after, async ? 0 : 4);
				CHECK_EQ_INT(l.copies_after, async ? 2 * stages : 0);
			}
			launch g = kl(KDIR "matmul.py", "matmul_fp32_kernel",
				      "*bf16:16, *bf16:16, *fp32:16, i32, i32, i32, 16, 16, 16", 3, 3);
			g.stages = run == 1 ? stages : 0;
			g.async = async;
			g.reuse = reuse;
			matmul_fp32_args(&g, a, b, d[run], 2, M, N, K);
			if (kl_run(&g) && run == 1) {
				CHECK_EQ_INT(g.loads_after, async ? 0 : 4);
				CHECK_EQ_INT(g.copies_after, async ? 2 * stages : 0);
			}
			/* B as N x K, used through tl.trans: its loads are pipelined too */
			launch h = kl("tests/gpu/kernels/dots.py", "matmul_bt_kernel",
				      "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, 16, 16, 16", 3, 3);
			h.stages = run == 1 ? stages : 0;
			h.async = async;
			h.reuse = reuse;
			kl_ptr(&h, a, (size_t)M * (K ? K : 1) * 2);
			kl_ptr(&h, b, (size_t)(K ? K : 1) * N * 2);
			kl_ptr(&h, e[run], (size_t)M * N * 2);
			kl_int(&h, M);
			kl_int(&h, N);
			kl_int(&h, K);
			if (kl_run(&h) && run == 1) {
				CHECK_EQ_INT(h.loads_after, async ? 0 : 4);
				CHECK_EQ_INT(h.copies_after, async ? 2 * stages : 0);
			}
		}
		CHECK_MSG(!memcmp(e[0], e[1], (size_t)M * N * 2), "pipelined matmul_bt_kernel (%d stages%s%s) differs at K=%d",
			  stages, async ? ", async" : "", reuse ? ", reuse" : "", K);
		CHECK_MSG(!memcmp(c[0], c[1], (size_t)M * N * 2), "pipelined matmul_kernel (%d stages%s%s) differs at K=%d",
			  stages, async ? ", async" : "", reuse ? ", reuse" : "", K);
		CHECK_MSG(!memcmp(d[0], d[1], (size_t)M * N * 4),
			  "pipelined matmul_fp32_kernel (bf16, %d stages%s%s) differs at K=%d", stages,
			  async ? ", async" : "", reuse ? ", reuse" : "", K);
		if (K == 70) /* a nonzero result, so the comparison means something */
			CHECK(c[0][0] != 0 && d[0][0] != 0);
		free(a);
		free(b);
		free(c[0]);
		free(c[1]);
		free(e[0]);
		free(e[1]);
		free(d[0]);
		free(d[1]);
	}
}

static void test_matmul(void)
{
	int M = 64, N = 48, K = 80;
	uint16_t *a = calloc((size_t)M * K, 2), *b = calloc((size_t)K * N, 2), *c = calloc((size_t)M * N, 2);
	for (int i = 0; i < M * K; i++)
		a[i] = f2h(frand(-1, 1));
	for (int i = 0; i < K * N; i++)
		b[i] = f2h(frand(-1, 1));
	launch l = kl(KDIR "matmul.py", "matmul_kernel",
		      "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1, 32, 32, 32, 4", 4, 1);
	matmul_args(&l, a, b, c, M, N, K);
	if (kl_run(&l)) {
		float *got = fzeros((size_t)M * N), *want = fzeros((size_t)M * N);
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;
				for (int k = 0; k < K; k++)
					s += (double)h2f(a[i * K + k]) * h2f(b[k * N + j]);
				want[i * N + j] = rh((float)s);
				got[i * N + j] = h2f(c[i * N + j]);
			}
		close_f("matmul_kernel", got, want, (size_t)M * N, 1e-3, 2e-3);
		free(got);
		free(want);
	}

	int fm = 40, fn = 24, fk = 50;
	float *fa = fvec((size_t)fm * fk, -1, 1), *fb = fvec((size_t)fk * fn, -1, 1), *fc = fzeros((size_t)fm * fn),
	      *fw = fzeros((size_t)fm * fn);
	launch f = kl(KDIR "matmul.py", "matmul_fp32_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32, 16, 16, 16", 3, 2);
	matmul_fp32_args(&f, fa, fb, fc, 4, fm, fn, fk);
	if (kl_run(&f)) {
		for (int i = 0; i < fm; i++)
			for (int j = 0; j < fn; j++) {
				double s = 0;
				for (int k = 0; k < fk; k++)
					s += (double)fa[i * fk + k] * fb[k * fn + j];
				fw[i * fn + j] = (float)s;
			}
		/* tf32 keeps 10 mantissa bits: |error| <~ K * 2^-11 */
		close_f("matmul_fp32_kernel", fc, fw, (size_t)fm * fn, 2e-2, 0);
	}
	/* the same kernel on bf16 operands: exact products, fp32 sums */
	uint16_t *ba = calloc((size_t)fm * fk, 2), *bb = calloc((size_t)fk * fn, 2);
	for (int i = 0; i < fm * fk; i++)
		ba[i] = interp_f32_to_bf16(fa[i]);
	for (int i = 0; i < fk * fn; i++)
		bb[i] = interp_f32_to_bf16(fb[i]);
	launch bf = kl(KDIR "matmul.py", "matmul_fp32_kernel", "*bf16:16, *bf16:16, *fp32:16, i32, i32, i32, 16, 16, 16", 3, 2);
	matmul_fp32_args(&bf, ba, bb, fc, 2, fm, fn, fk);
	if (kl_run(&bf)) {
		for (int i = 0; i < fm; i++)
			for (int j = 0; j < fn; j++) {
				double s = 0;
				for (int k = 0; k < fk; k++)
					s += (double)interp_bf16_to_f32(ba[i * fk + k]) * interp_bf16_to_f32(bb[k * fn + j]);
				fw[i * fn + j] = (float)s;
			}
		close_f("matmul_fp32_kernel bf16", fc, fw, (size_t)fm * fn, 1e-5, 1e-5);
	}
	free(ba);
	free(bb);
	/* input_precision="ieee": fp32 products, no tf32 rounding */
	launch ie = kl(KDIR "matmul.py", "dot_ieee_kernel", "*fp32:16, *fp32:16, *fp32:16, 16, 16, 32", 1, 1);
	kl_ptr(&ie, fa, 16 * 32 * 4);
	kl_ptr(&ie, fb, 32 * 16 * 4);
	kl_ptr(&ie, fc, 16 * 16 * 4);
	if (kl_run(&ie)) {
		for (int i = 0; i < 16; i++)
			for (int j = 0; j < 16; j++) {
				double s = 0;
				for (int k = 0; k < 32; k++)
					s += (double)fa[i * 32 + k] * fb[k * 16 + j];
				fw[i * 16 + j] = (float)s;
			}
		close_f("dot_ieee_kernel", fc, fw, 16 * 16, 1e-6, 1e-6);
	}
	free(a);
	free(b);
	free(c);
	free(fa);
	free(fb);
	free(fc);
	free(fw);
}

/* passes/sink.c moves a load down to its first user past pure ops only:
 * a store to the load's addresses keeps it above (q gets the old values
 * plus one, not the new ones). */
static void test_sink_loads(void)
{
	enum { N = 300 };
	float p[N], q[N];
	for (int i = 0; i < N; i++)
		p[i] = (float)i * 0.5f - 40.0f;
	launch l = kl(KDIR "sink.py", "load_store_use_kernel", "*fp32:16, *fp32:16, i32, 128", (N + 127) / 128, 1);
	l.sink = true;
	l.keep_ir = true;
	kl_ptr(&l, p, sizeof p);
	kl_ptr(&l, q, sizeof q);
	kl_int(&l, N);
	if (kl_run(&l)) {
		CHECK_MSG(!strstr(sb_str(&l.ir), " sunk"), "a load moved past a store:\n%s", sb_str(&l.ir));
		for (int i = 0; i < N; i++) {
			CHECK_MSG(q[i] == (float)i * 0.5f - 40.0f + 1.0f, "q[%d] = %g", i, (double)q[i]);
			CHECK_MSG(p[i] == (float)i * 2.0f, "p[%d] = %g", i, (double)p[i]);
		}
	}
	kl_release(&l);
}

static void run_all(void)
{
	test_seeds();
	test_vector_add();
	test_silu_bf16();
	test_trig();
	test_masked_copy();
	test_tile2d();
	test_tiles3d();
	test_int_ops();
	test_casts();
	test_elementwise();
	test_constexpr_branch();
	test_softmax();
	test_layernorm();
	test_reductions();
	test_argmax();
	test_loops();
	test_helpers();
	test_runtime_if();
	test_matmul();
	test_pipelined_loads();
	test_sink_loads();
}

int main(void)
{
	run_all();
	/* again with each program split over a cluster of 2 where its blocks
	 * allow (passes/cluster.c): the same references must hold */
	kl_cluster_ctas = 2;
	run_all();
	CHECK_MSG(kl_cluster_splits >= 300, "only %d launches were split over a cluster", kl_cluster_splits);
	printf("test_kernels: %d launches split over clusters of 2\n", kl_cluster_splits);
	return check_report("test_kernels");
}
