/* test_lang.c - the language constructs real kernels write that go beyond
 * the tiers of test_kernels.c: early returns (in kernels, helpers with
 * values, static_range iterations), branch-local temporaries, dtypes called
 * as functions, and (in their own sections) scans and the smaller builtins.
 * Each kernel of tests/kernels/lang.py is specialized by the front end, run
 * by the interpreter on pseudo-random inputs and compared with a C
 * reference written here; refusals are checked by their diagnostics.
 */
#include <math.h>
#include <stdlib.h>

#include "kernel_launch.h"

#define LANG "tests/kernels/lang.py"

/* a kernel of tests/kernels/lang.py over a gx x gy grid, its IR kept */
static launch kl(const char *kernel, const char *signature, uint32_t gx, uint32_t gy)
{
	launch l = kl_grid(LANG, kernel, signature, gx, gy, 1);
	l.keep_ir = true;
	sb_init(&l.ir);
	return l;
}

/* Specialization of `kernel` in `file` fails with `needle` in the diagnostics. */
static void refused(const char *file, const char *kernel, const char *signature, const char *needle)
{
	launch l = kl(kernel, signature, 1, 1);
	l.file = file;
	tilec_status st = kl_go(&l);
	CHECK_MSG(st != TILEC_OK, "%s: accepted, expected an error with \"%s\"", kernel, needle);
	CHECK_STR_CONTAINS(tilec_diagnostics(l.ctx), needle);
	kl_release(&l);
}

static uint64_t rng_state = 777;

static uint32_t rnd(void)
{
	rng_state = rng_state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return (uint32_t)(rng_state >> 33);
}

static float *fvec(size_t n, float lo, float hi)
{
	float *v = malloc(sizeof(float) * (n ? n : 1));
	for (size_t i = 0; i < n; i++)
		v[i] = lo + (hi - lo) * (float)(rnd() & 0xffffff) / (float)0x1000000;
	return v;
}

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

static int count_of(const char *hay, const char *needle)
{
	int k = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		k++;
	return k;
}

/* ---------------------------------------------------------------- early returns */

static void test_xent_ignore_index(void)
{
	enum { ROWS = 9, COLS = 37 };
	float *x = fvec(ROWS * COLS, -4, 4), loss[ROWS], want[ROWS];
	int32_t labels[ROWS];
	for (int r = 0; r < ROWS; r++) {
		labels[r] = r % 3 == 1 ? -100 : (int32_t)(rnd() % COLS);
		loss[r] = 12345.0f; /* every row must be written */
		if (labels[r] == -100) {
			want[r] = 0.0f;
			continue;
		}
		double m = -INFINITY, s = 0;
		for (int c = 0; c < COLS; c++)
			m = fmax(m, x[r * COLS + c]);
		for (int c = 0; c < COLS; c++)
			s += exp(x[r * COLS + c] - m);
		want[r] = (float)(log(s) + m - x[r * COLS + labels[r]]);
	}
	launch l = kl("xent_kernel", "*fp32, *i32, *fp32, i32, i32, 64", ROWS, 1);
	kl_ptr(&l, x, sizeof(float) * ROWS * COLS);
	kl_ptr(&l, labels, sizeof labels);
	kl_ptr(&l, loss, sizeof loss);
	kl_int(&l, COLS);
	kl_int(&l, -100);
	if (kl_run(&l)) {
		close_f("xent_kernel", loss, want, ROWS, 1e-5, 1e-5);
		/* the rest of the kernel went into the else branch: one if, no early exit op */
		CHECK(count_of(sb_str(&l.ir), "} else {") == 1);
	}
	kl_release(&l);
	free(x);
}

static float scale_or_shift(float x, int c)
{
	return c > 0 ? x * 2.0f : c < -5 ? x - 1.0f : x + 1.0f;
}

static void test_early_helpers(void)
{
	enum { N = 100, BLOCK = 16, PROGS = (N + BLOCK - 1) / BLOCK };
	float *x = fvec(N, -3, 3), a[N], b[N], wa[N], wb[N];
	int32_t c[PROGS] = {3, -7, 0, -2, 5, -9, 1};
	for (int i = 0; i < N; i++) {
		int ci = c[i / BLOCK];
		float v = scale_or_shift(x[i], ci);
		wa[i] = v;
		wb[i] = ci % 2 == 0 ? v + 1.0f : v * v;
	}
	launch l = kl("early_helpers_kernel", "*fp32, *i32, *fp32, *fp32, i32, 16", PROGS, 1);
	kl_ptr(&l, x, sizeof(float) * N);
	kl_ptr(&l, c, sizeof c);
	kl_ptr(&l, a, sizeof a);
	kl_ptr(&l, b, sizeof b);
	kl_int(&l, N);
	if (kl_run(&l)) {
		close_f("early_helpers_kernel a", a, wa, N, 0, 0);
		close_f("early_helpers_kernel b", b, wb, N, 0, 0);
		/* the tuple's shared first item is not yielded: the second if has one result */
		CHECK_STR_CONTAINS(sb_str(&l.ir), "= if %34 : <16xfp32> {");
	}
	kl_release(&l);
	free(x);
}

static void test_nested_return(void)
{
	enum { N = 300, BLOCK = 32, PROGS = (N + BLOCK - 1) / BLOCK };
	float *x = fvec(N, -3, 3), o[N], w[N];
	for (int i = 0; i < N; i++) {
		int pid = i / BLOCK;
		float v = x[i];
		if (pid % 2 == 0) {
			v = v + 10.0f;
			if (pid % 4 == 0) {
				w[i] = v * 0.0f - 1.0f;
				continue;
			}
			v = v * 3.0f;
		}
		bool done = false;
		for (int k = 0; k < 3 && !done; k++) {
			if (pid == 5 + k) {
				w[i] = v + (float)k * 100.0f;
				done = true;
			}
			v = v + 1.0f;
		}
		if (!done)
			w[i] = v;
	}
	launch l = kl("nested_return_kernel", "*fp32, *fp32, i32, 32", PROGS, 1);
	kl_ptr(&l, x, sizeof(float) * N);
	kl_ptr(&l, o, sizeof o);
	kl_int(&l, N);
	if (kl_run(&l))
		close_f("nested_return_kernel", o, w, N, 0, 0);
	kl_release(&l);
	free(x);
}

static void test_branch_temps(void)
{
	enum { N = 200, BLOCK = 16, PROGS = (N + BLOCK - 1) / BLOCK };
	float *x = fvec(N, -50, 50), o[N], w[N];
	for (int i = 0; i < N; i++)
		w[i] = (i / BLOCK) % 2 == 0 ? x[i] * 2.0f : (float)(int32_t)x[i];
	launch l = kl("branch_temps_kernel", "*fp32, *fp32, i32, 16", PROGS, 1);
	kl_ptr(&l, x, sizeof(float) * N);
	kl_ptr(&l, o, sizeof o);
	kl_int(&l, N);
	if (kl_run(&l))
		close_f("branch_temps_kernel", o, w, N, 0, 0);
	kl_release(&l);
	free(x);
}

/* Pointers from a table of 64-bit addresses (.to(tl.pointer_type(...))):
 * the interpreter's address of buffer b is (b + 1) << 40 (interp.c). */
static void test_pointer_table(void)
{
	enum { G = 3, BLOCK = 16 };
	uint16_t rows[G][BLOCK], out[G * BLOCK];
	uint64_t table[G];
	for (int g = 0; g < G; g++) {
		for (int i = 0; i < BLOCK; i++)
			rows[g][i] = (uint16_t)(0x3c00 + ((g * BLOCK + i) << 2)); /* 1.0 and up, exact when doubled */
		table[G - 1 - g] = ((uint64_t)(2 + 1) << 40) + sizeof rows[0] * (uint64_t)g; /* buffer 2: rows, reversed */
	}
	launch l = kl("pointer_table_kernel", "*u64, *fp16, 16", G, 1);
	kl_ptr(&l, table, sizeof table);
	kl_ptr(&l, out, sizeof out);
	l.bufs[l.nbufs++] = (interp_buffer){rows, sizeof rows}; /* buffer 2: no parameter, reached through the table */
	if (kl_run(&l))
		for (int g = 0; g < G; g++)
			for (int i = 0; i < BLOCK; i++)
				CHECK_EQ_INT(out[g * BLOCK + i], rows[G - 1 - g][i] + 0x400); /* doubling adds 1 to the exponent */
	kl_release(&l);
}

static void test_dtype_call(void)
{
	enum { ROWS = 3, COLS = 100 };
	float *x = fvec(ROWS * COLS, -1000, -10), o[ROWS], w[ROWS];
	for (int r = 0; r < ROWS; r++) {
		float m = -INFINITY;
		for (int c = 0; c < COLS; c++)
			m = fmaxf(m, x[r * COLS + c]);
		w[r] = m + 44.0f + 0.5f; /* tl.int8(300) wraps to 44 */
	}
	launch l = kl("dtype_call_kernel", "*fp32, *fp32, i32, 32", ROWS, 1);
	kl_ptr(&l, x, sizeof(float) * ROWS * COLS);
	kl_ptr(&l, o, sizeof o);
	kl_int(&l, COLS);
	if (kl_run(&l)) {
		close_f("dtype_call_kernel", o, w, ROWS, 0, 0);
		CHECK_STR_CONTAINS(sb_str(&l.ir), "const -inf : fp32");
		CHECK_STR_CONTAINS(sb_str(&l.ir), "const 44 : i8");
	}
	kl_release(&l);
	free(x);
}

/* Conditional and try-guarded module-level imports, Triton 2.x tl.math names. */
static void test_imports(void)
{
	enum { N = 70 };
	float *x = fvec(N, -2, 2), o[N], w[N];
	for (int i = 0; i < N; i++) {
		double v = x[i];
		w[i] = (float)((float)tanh(v) + (float)erf(v) + (float)tanh(v) * 2.0f + (float)(v * v) + (float)exp(v));
	}
	launch l = kl("imports_kernel", "*fp32, *fp32, i32, 32", (N + 31) / 32, 1);
	l.file = "tests/kernels/lang_imports.py";
	kl_ptr(&l, x, sizeof(float) * N);
	kl_ptr(&l, o, sizeof o);
	kl_int(&l, N);
	if (kl_run(&l)) {
		close_f("imports_kernel", o, w, N, 1e-5, 1e-5);
		CHECK(count_of(sb_str(&l.ir), "extern @__nv_tanhf") == 2);
		CHECK_STR_CONTAINS(sb_str(&l.ir), "math erf");
		CHECK_STR_CONTAINS(sb_str(&l.ir), "extern @__nv_powf");
	}
	kl_release(&l);
	free(x);
}

/* ---------------------------------------------------------------- scans */

static void test_cumsum(void)
{
	for (int rev = 0; rev < 2; rev++) {
		enum { N = 1000 };
		float *x = fvec(N, -1, 1), o[N], w[N];
		double acc = 0;
		for (int t = 0; t < N; t++) {
			int i = rev ? N - 1 - t : t;
			acc += x[i];
			w[i] = (float)acc;
		}
		launch l = kl("cumsum_kernel", rev ? "*fp32, *fp32, i32, 1024, True" : "*fp32, *fp32, i32, 1024, False", 1, 1);
		kl_ptr(&l, x, sizeof(float) * N);
		kl_ptr(&l, o, sizeof o);
		kl_int(&l, N);
		if (kl_run(&l)) {
			close_f(rev ? "cumsum reverse" : "cumsum", o, w, N, 1e-4, 1e-5);
			CHECK_STR_CONTAINS(sb_str(&l.ir), rev ? "scan axis=0 reverse" : "scan axis=0 %");
		}
		kl_release(&l);
		free(x);
	}
}

static void test_scan_2d(void)
{
	enum { M = 5, N = 13 };
	for (int axis = 0; axis < 2; axis++) {
		float *x = fvec(M * N, 0.5f, 1.5f), s[M * N], p[M * N], ws[M * N], wp[M * N];
		for (int a = 0; a < (axis ? M : N); a++) {
			double sum = 0, prod = 1;
			int len = axis ? N : M;
			for (int t = 0; t < len; t++) {
				int i = axis ? a * N + t : t * N + a;
				sum += x[i];
				ws[i] = (float)sum;
				int ir = axis ? a * N + (len - 1 - t) : (len - 1 - t) * N + a;
				prod *= x[ir];
				wp[ir] = (float)prod;
			}
		}
		launch l = kl("scan_2d_kernel", axis ? "*fp32, *fp32, *fp32, i32, i32, 8, 16, 1" : "*fp32, *fp32, *fp32, i32, i32, 8, 16, 0", 1, 1);
		kl_ptr(&l, x, sizeof(float) * M * N);
		kl_ptr(&l, s, sizeof s);
		kl_ptr(&l, p, sizeof p);
		kl_int(&l, M);
		kl_int(&l, N);
		if (kl_run(&l)) {
			close_f("scan_2d cumsum", s, ws, M * N, 1e-5, 1e-5);
			close_f("scan_2d cumprod reverse", p, wp, M * N, 1e-5, 1e-5);
		}
		kl_release(&l);
		free(x);
	}
}

static void test_associative_scan(void)
{
	enum { N = 200 };
	int32_t a[N], b[N], h[N], m[N], mi[N];
	for (int i = 0; i < N; i++) {
		a[i] = (int32_t)(rnd() % 2001) - 1000;
		b[i] = (int32_t)(rnd() % 41) - 20; /* ties for the first-index rule */
	}
	launch l = kl("recurrence_kernel", "*i32, *i32, *i32, *i32, *i32, i32, 256", 1, 1);
	kl_ptr(&l, a, sizeof a);
	kl_ptr(&l, b, sizeof b);
	kl_ptr(&l, h, sizeof h);
	kl_ptr(&l, m, sizeof m);
	kl_ptr(&l, mi, sizeof mi);
	kl_int(&l, N);
	if (kl_run(&l)) {
		uint32_t hv = 0;
		int32_t best = 0, bi = 0;
		int bad = 0;
		for (int i = 0; i < N; i++) {
			hv = (uint32_t)a[i] * hv + (uint32_t)b[i];
			if (i == 0 || b[i] > best)
				best = b[i], bi = i;
			bad += h[i] != (int32_t)hv || m[i] != best || mi[i] != bi;
		}
		CHECK_MSG(bad == 0, "recurrence_kernel: %d of %d elements differ", bad, N);
		CHECK_STR_CONTAINS(sb_str(&l.ir), "scan axis=0 %");
	}
	kl_release(&l);
}

static void test_cumsum_int8(void)
{
	int8_t x[64];
	int32_t o[64];
	int32_t acc = 0;
	bool ok = true;
	for (int i = 0; i < 64; i++)
		x[i] = (int8_t)(100 - (int)(rnd() % 30)); /* sums past 127: widened */
	launch l = kl("cumsum_int8_kernel", "*i8, *i32, 64", 1, 1);
	kl_ptr(&l, x, sizeof x);
	kl_ptr(&l, o, sizeof o);
	if (kl_run(&l)) {
		for (int i = 0; i < 64; i++) {
			acc += x[i];
			ok &= o[i] == acc;
		}
		CHECK_MSG(ok, "cumsum_int8_kernel: int8 sums not widened to int32");
		CHECK_STR_CONTAINS(sb_str(&l.ir), "scan axis=0 %");
		CHECK_STR_CONTAINS(sb_str(&l.ir), ": <64xi32> { (");
	}
	kl_release(&l);
}

/* ---------------------------------------------------------------- tl.reduce */

static void test_reduce_fn(void)
{
	enum { M = 21, N = 27, BM = 8, P = (M + BM - 1) / BM };
	int32_t x[M * N], mx[M], mi[M], sums[P * N], total[P];
	for (int i = 0; i < M * N; i++)
		x[i] = (int32_t)(rnd() % 41) - 20; /* ties for the smaller-index rule */
	x[5] = INT32_MAX;
	x[6] = INT32_MAX; /* sums wrap */
	launch l = kl("reduce_fn_kernel", "*i32, *i32, *i32, *i32, *i32, i32, i32, 8, 32", P, 1);
	kl_ptr(&l, x, sizeof x);
	kl_ptr(&l, mx, sizeof mx);
	kl_ptr(&l, mi, sizeof mi);
	kl_ptr(&l, sums, sizeof sums);
	kl_ptr(&l, total, sizeof total);
	kl_int(&l, M);
	kl_int(&l, N);
	if (kl_run(&l)) {
		int bad = 0;
		for (int r = 0; r < M; r++) {
			int32_t best = x[r * N], bi = 0;
			for (int c = 1; c < N; c++)
				if (x[r * N + c] > best)
					best = x[r * N + c], bi = c;
			bad += mx[r] != best || mi[r] != bi;
		}
		CHECK_MSG(bad == 0, "reduce_fn_kernel: %d rows with a wrong (max, first index)", bad);
		bad = 0;
		for (int p = 0; p < P; p++) {
			uint32_t t = 0;
			for (int c = 0; c < N; c++) {
				uint32_t cs = 0;
				for (int r = p * BM; r < (p + 1) * BM && r < M; r++)
					cs += (uint32_t)x[r * N + c];
				bad += sums[p * N + c] != (int32_t)cs;
				t += cs;
			}
			bad += total[p] != (int32_t)t;
		}
		CHECK_MSG(bad == 0, "reduce_fn_kernel: %d wrong sums", bad);
		CHECK_STR_CONTAINS(sb_str(&l.ir), "reduce_fn axis=1 %");
		CHECK_STR_CONTAINS(sb_str(&l.ir), "reduce_fn axis=0 %");
	}
	kl_release(&l);
}

/* ---------------------------------------------------------------- shape ops */

static void test_shapes(void)
{
	enum { B = 64 };
	float *x = fvec(B, -8, 8), *y = fvec(B, -8, 8);
	float jn[2 * B], in[2 * B], a[B / 2], b[B / 2], fl[B], f0[B], cat[2 * B], pq[2];
	launch l = kl("shapes_kernel", "*fp32, *fp32, *fp32, *fp32, *fp32, *fp32, *fp32, *fp32, *fp32, *fp32, 64", 1, 1);
	kl_ptr(&l, x, sizeof(float) * B);
	kl_ptr(&l, y, sizeof(float) * B);
	kl_ptr(&l, jn, sizeof jn);
	kl_ptr(&l, in, sizeof in);
	kl_ptr(&l, a, sizeof a);
	kl_ptr(&l, b, sizeof b);
	kl_ptr(&l, fl, sizeof fl);
	kl_ptr(&l, f0, sizeof f0);
	kl_ptr(&l, cat, sizeof cat);
	kl_ptr(&l, pq, sizeof pq);
	if (kl_run(&l)) {
		int bad = 0;
		float mx = x[0], mn = y[0];
		for (int i = 0; i < B; i++) {
			bad += jn[2 * i] != x[i] || jn[2 * i + 1] != y[i];
			bad += in[2 * i] != x[i] || in[2 * i + 1] != y[i];
			bad += fl[i] != x[B - 1 - i];
			/* y as 4 x 16, its rows reversed */
			bad += f0[i] != y[(3 - i / 16) * 16 + i % 16];
			bad += cat[i] != x[i] || cat[B + i] != y[i];
			mx = x[i] > mx ? x[i] : mx;
			mn = y[i] < mn ? y[i] : mn;
		}
		for (int i = 0; i < B / 2; i++)
			bad += a[i] != x[2 * i] || b[i] != x[2 * i + 1];
		bad += pq[0] != mx || pq[1] != mn;
		CHECK_MSG(bad == 0, "shapes_kernel: %d wrong elements", bad);
		const char *ir = sb_str(&l.ir);
		CHECK_STR_CONTAINS(ir, "= join %");
		CHECK_STR_CONTAINS(ir, "= split %");
		CHECK_STR_CONTAINS(ir, "= flip axis=0 xor=63 %");
		CHECK_STR_CONTAINS(ir, "= flip axis=0 xor=3 %");
		CHECK_STR_CONTAINS(ir, "= cat %");
	}
	kl_release(&l);
	free(x);
	free(y);
}

/* ---------------------------------------------------------------- sort and topk */

static int cmp_f(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

static void sort_case(const char *sig, int rows, int n, int k, bool ints)
{
	size_t tot = (size_t)rows * (size_t)n;
	float *x = fvec(tot, -50, 50), *asc = malloc(sizeof(float) * tot), *desc = malloc(sizeof(float) * tot),
	      *top = malloc(sizeof(float) * (size_t)rows * (size_t)k), *w = malloc(sizeof(float) * tot);
	int32_t *xi = (int32_t *)x;
	for (size_t i = 0; i < tot; i++) {
		if (ints)
			xi[i] = (int32_t)(rnd() % 21) - 10; /* duplicates */
		else if (i % 7 == 3)
			x[i] = x[i - 1]; /* duplicates */
	}
	launch l = kl("sort_kernel", sig, 1, 1);
	kl_ptr(&l, x, sizeof(float) * tot);
	kl_ptr(&l, asc, sizeof(float) * tot);
	kl_ptr(&l, desc, sizeof(float) * tot);
	kl_ptr(&l, top, sizeof(float) * (size_t)rows * (size_t)k);
	if (kl_run(&l)) {
		int bad = 0;
		for (int r = 0; r < rows; r++) {
			float *row = w + (size_t)r * n;
			for (int i = 0; i < n; i++)
				row[i] = ints ? (float)xi[(size_t)r * n + i] : x[(size_t)r * n + i];
			qsort(row, (size_t)n, sizeof(float), cmp_f);
			for (int i = 0; i < n; i++) {
				size_t at = (size_t)r * n + i;
				float a = ints ? (float)((int32_t *)asc)[at] : asc[at];
				float d = ints ? (float)((int32_t *)desc)[at] : desc[at];
				bad += a != row[i] || d != row[n - 1 - i];
			}
			for (int i = 0; i < k; i++) {
				size_t at = (size_t)r * k + i;
				bad += (ints ? (float)((int32_t *)top)[at] : top[at]) != row[n - 1 - i];
			}
		}
		CHECK_MSG(bad == 0, "sort_kernel %s: %d elements out of order", sig, bad);
		CHECK_STR_CONTAINS(sb_str(&l.ir), "flip axis=1 xor=1 %");
	}
	kl_release(&l);
	free(x);
	free(asc);
	free(desc);
	free(top);
	free(w);
}

static void test_sort(void)
{
	sort_case("*fp32, *fp32, *fp32, *fp32, 4, 64, 8", 4, 64, 8, false);
	sort_case("*i32, *i32, *i32, *i32, 2, 32, 32", 2, 32, 32, true);
	sort_case("*fp32, *fp32, *fp32, *fp32, 1, 128, 1", 1, 128, 1, false);
}

/* ---------------------------------------------------------------- gather and histogram */

static void test_gather_hist(void)
{
	enum { B = 32, BINS = 32, R = 8, N = 100 };
	float *x = fvec(R * B, -9, 9), g[R * B], g0[R * B];
	int32_t idx[R * B], h[BINS], hm[BINS], wh[BINS] = {0}, whm[BINS] = {0};
	for (int r = 0; r < R; r++)
		for (int c = 0; c < B; c++)
			idx[r * B + c] = (int32_t)(rnd() % B);
	for (int i = 0; i < R * B; i++) {
		if (idx[i] - 3 >= 0)
			wh[idx[i] - 3]++;
		if (i < N)
			whm[idx[i]]++;
	}
	launch l = kl("gather_hist_kernel", "*fp32, *i32, *fp32, *fp32, *i32, *i32, i32, 32, 32", 1, 1);
	kl_ptr(&l, x, sizeof(float) * R * B);
	kl_ptr(&l, idx, sizeof idx);
	kl_ptr(&l, g, sizeof g);
	kl_ptr(&l, g0, sizeof g0);
	kl_ptr(&l, h, sizeof h);
	kl_ptr(&l, hm, sizeof hm);
	kl_int(&l, N);
	if (kl_run(&l)) {
		int bad = 0;
		for (int r = 0; r < R; r++)
			for (int c = 0; c < B; c++) {
				bad += g[r * B + c] != x[r * B + idx[r * B + c]];
				bad += g0[r * B + c] != x[(idx[r * B + c] % 8) * B + c];
			}
		for (int b = 0; b < BINS; b++)
			bad += h[b] != wh[b] || hm[b] != whm[b];
		CHECK_MSG(bad == 0, "gather_hist_kernel: %d wrong elements", bad);
		CHECK_STR_CONTAINS(sb_str(&l.ir), "= gather axis=1 %");
		CHECK_STR_CONTAINS(sb_str(&l.ir), "= histogram bins=32 %");
	}
	kl_release(&l);
	free(x);
}

/* ---------------------------------------------------------------- debugging */

static void test_debug(void)
{
	float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, o[8];
	for (int dbg = 0; dbg < 2; dbg++) {
		launch l = kl("debug_kernel", "*fp32, *fp32, i32, 100, 8", 1, 1);
		l.debug = dbg;
		kl_ptr(&l, x, sizeof x);
		kl_ptr(&l, o, sizeof o);
		kl_int(&l, 6);
		tilec_status st = kl_go(&l);
		CHECK_MSG(st == TILEC_OK, "debug_kernel: %s\n%s", tilec_status_string(st), tilec_diagnostics(l.ctx));
		if (st == TILEC_OK) {
			const char *ir = sb_str(&l.ir), *out = tilec_device_output(l.ctx);
			CHECK_STR_CONTAINS(tilec_diagnostics(l.ctx), "note: static_print: debug_kernel BLOCK = 8");
			CHECK_MSG(o[5] == 7.0f, "debug_kernel: o[5] = %g", o[5]);
			if (dbg) {
				CHECK_STR_CONTAINS(ir, "device_assert \"x is too large\"");
				CHECK_STR_CONTAINS(ir, "device_assert \"n must be positive\"");
				CHECK_STR_CONTAINS(ir, "device_print \"sum\"");
				CHECK_STR_CONTAINS(out, "pid (0, 0, 0) sum 21.000000\n");
				CHECK_STR_CONTAINS(out, "pid (0, 0, 0) idx (6) x  0.000000 6\n");
				CHECK_STR_CONTAINS(out, "pid (0, 0, 0) idx (2) x  3.000000 2\n");
			} else {
				CHECK_MSG(!strstr(ir, "device_"), "debug_kernel: device asserts or prints without debug mode");
				CHECK_MSG(!*out, "debug_kernel: printed without debug mode");
			}
		}
		kl_release(&l);
	}
	/* a false assertion stops the run in debug mode only */
	x[3] = 500;
	for (int dbg = 0; dbg < 2; dbg++) {
		launch l = kl("debug_kernel", "*fp32, *fp32, i32, 100, 8", 1, 1);
		l.debug = dbg;
		kl_ptr(&l, x, sizeof x);
		kl_ptr(&l, o, sizeof o);
		kl_int(&l, 6);
		tilec_status st = kl_go(&l);
		if (dbg) {
			CHECK_MSG(st != TILEC_OK, "debug_kernel: a false device assertion passed");
			CHECK_STR_CONTAINS(tilec_diagnostics(l.ctx), "device assertion failed: x is too large (element 3)");
		} else {
			CHECK_MSG(st == TILEC_OK, "debug_kernel: failed without debug mode");
		}
		kl_release(&l);
	}
}

/* ---------------------------------------------------------------- inline assembly */

static void test_inline_asm(void)
{
	/* specialized (the IR below), but PTX does not run on the CPU */
	launch l = kl("inline_asm_kernel", "*u8, *fp32, *i32, *fp32, *fp16, 64", 1, 1);
	uint8_t a[64] = {0};
	float b[64] = {0}, d[64];
	int32_t c[64];
	uint16_t h[64];
	kl_ptr(&l, a, sizeof a);
	kl_ptr(&l, b, sizeof b);
	kl_ptr(&l, c, sizeof c);
	kl_ptr(&l, d, sizeof d);
	kl_ptr(&l, h, sizeof h);
	tilec_status st = kl_go(&l);
	CHECK_MSG(st == TILEC_ERR_RUNTIME, "inline_asm_kernel: %s", tilec_status_string(st));
	CHECK_STR_CONTAINS(tilec_diagnostics(l.ctx), "the interpreter cannot run tl.inline_asm_elementwise");
	CHECK_STR_CONTAINS(sb_str(&l.ir), "= inline_asm pack=4 constraints=\"=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r\" %");
	CHECK_STR_CONTAINS(sb_str(&l.ir), " : <64xi32>, <64xfp32>\n");
	CHECK_STR_CONTAINS(sb_str(&l.ir), "pack=2 constraints=\"=r,r,r\"");
	kl_release(&l);
	/* the cuda helpers' special registers do run: SM 0, a monotonic timer */
	int32_t o[4] = {0};
	launch k = kl("cuda_helpers_kernel", "*i32", 1, 1);
	kl_ptr(&k, o, sizeof o);
	if (kl_run(&k)) {
		CHECK_MSG(o[0] == 1 && o[1] == 1, "cuda_helpers_kernel: timer order %d, smid %d", o[0], o[1]);
		CHECK_MSG(o[2] == 128 && o[3] == 4, "cuda_helpers_kernel: num_threads %d, num_warps %d", o[2], o[3]);
		CHECK_STR_CONTAINS(sb_str(&k.ir), "pack=1 not_pure constraints=\"=l\"");
	}
	kl_release(&k);
}

/* ---------------------------------------------------------------- helpers from other files */

static void test_cross_file(void)
{
	enum { N = 50 };
	float *x = fvec(N, -3, 3), o[N], w[N];
	launch l = kl_grid("tests/kernels/pkg/kern.py", "rel_kernel", "*fp32, *fp32, i32, 64", 1, 1, 1);
	kl_ptr(&l, x, sizeof(float) * N);
	kl_ptr(&l, o, sizeof o);
	kl_int(&l, N);
	if (kl_run(&l)) {
		for (int i = 0; i < N; i++)
			w[i] = (2 * x[i] + 3) + (2 * (2 * x[i] + 3) + 3) * 2;
		close_f("rel_kernel", o, w, N, 1e-5, 1e-6);
	}
	static const char *const incs[] = {"tests/kernels/incdir"};
	launch k = kl_grid("tests/kernels/imports_cross.py", "abs_kernel", "*fp32, *fp32, i32, 64", 1, 1, 1);
	k.include_dirs = incs;
	k.ninclude_dirs = 1;
	kl_ptr(&k, x, sizeof(float) * N);
	kl_ptr(&k, o, sizeof o);
	kl_int(&k, N);
	if (kl_run(&k)) {
		for (int i = 0; i < N; i++)
			w[i] = (2 * x[i] + 3) + 3 + (x[i] * x[i] + 1.5f);
		close_f("abs_kernel", o, w, N, 1e-5, 1e-6);
	}
	/* without the search path: the module and the paths tried */
	launch m = kl_grid("tests/kernels/imports_cross.py", "abs_kernel", "*fp32, *fp32, i32, 64", 1, 1, 1);
	kl_refused(&m, "cannot find module `mylib.ops` imported by tests/kernels/imports_cross.py: tried "
		       "tests/kernels/mylib/ops.py, tests/kernels/mylib/ops/__init__.py (add search paths with -I DIR)");
	launch n = kl_grid("tests/kernels/imports_cross.py", "missing_kernel", "*fp32", 1, 1, 1);
	n.include_dirs = incs;
	n.ninclude_dirs = 1;
	kl_refused(&n, "cannot find module `nowhere.mod` imported by tests/kernels/imports_cross.py: tried "
		       "tests/kernels/nowhere/mod.py, tests/kernels/nowhere/mod/__init__.py, tests/kernels/incdir/nowhere/mod.py");
	free(x);
}

/* ---------------------------------------------------------------- block pointers */

static void test_block_ptr_copy(void)
{
	enum { M = 37, N = 45, S = 50, BM = 16, BN = 16, OM = -3, ON = 5, SIZE = M * S + 64 };
	float *x = fvec(SIZE, -4, 4), *out = malloc(sizeof(float) * SIZE), *zero = malloc(sizeof(float) * SIZE),
	      *nan_ = malloc(sizeof(float) * SIZE);
	for (int i = 0; i < SIZE; i++)
		out[i] = zero[i] = nan_[i] = 1234.5f;
	launch l = kl("block_ptr_copy_kernel", "*fp32, *fp32, *fp32, *fp32, i32, i32, i32, 16, 16, -3, 5", (M + BM - 1) / BM,
		      (N + BN - 1) / BN);
	kl_ptr(&l, x, sizeof(float) * SIZE);
	kl_ptr(&l, out, sizeof(float) * SIZE);
	kl_ptr(&l, zero, sizeof(float) * SIZE);
	kl_ptr(&l, nan_, sizeof(float) * SIZE);
	kl_int(&l, M);
	kl_int(&l, N);
	kl_int(&l, S);
	if (kl_run(&l)) {
		int bad = 0;
		for (int i = 0; i < SIZE; i++) {
			int r = i / S, c = i % S, sr = r + OM, sc = c + ON;
			bool stored = i < M * S && c < N, rin = sr >= 0 && sr < M, in = rin && sc >= 0 && sc < N;
			float w = !stored ? 1234.5f : in ? x[sr * S + sc] : 0.0f;
			float wz = !stored ? 1234.5f : rin ? 2.0f * x[sr * S + sc] : 0.0f;
			bad += out[i] != w || zero[i] != wz;
			bad += stored && !in ? !isnan(nan_[i]) : nan_[i] != w;
		}
		CHECK_MSG(bad == 0, "block_ptr_copy_kernel: %d wrong elements", bad);
		CHECK_STR_CONTAINS(sb_str(&l.ir), "load %");
	}
	kl_release(&l);
	free(x);
	free(out);
	free(zero);
	free(nan_);
}

static void test_block_ptr_matmul(void)
{
	enum { M = 50, N = 40, K = 70 };
	float *a = fvec(M * K, -1, 1), *b = fvec(K * N, -1, 1), c[M * N], w[M * N];
	uint16_t ah[M * K], bh[K * N];
	for (int i = 0; i < M * K; i++) {
		ah[i] = interp_f32_to_f16(a[i]);
		a[i] = interp_f16_to_f32(ah[i]);
	}
	for (int i = 0; i < K * N; i++) {
		bh[i] = interp_f32_to_f16(b[i]);
		b[i] = interp_f16_to_f32(bh[i]);
	}
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			double acc = 0;
			for (int k = 0; k < K; k++)
				acc += (double)a[i * K + k] * b[k * N + j];
			w[i * N + j] = (float)acc;
		}
	launch l = kl("block_ptr_matmul_kernel", "*fp16, *fp16, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 16, 16, 16",
		      (M + 15) / 16, (N + 15) / 16);
	kl_ptr(&l, ah, sizeof ah);
	kl_ptr(&l, bh, sizeof bh);
	kl_ptr(&l, c, sizeof c);
	int32_t sc[9] = {M, N, K, K, 1, N, 1, N, 1};
	for (int i = 0; i < 9; i++)
		kl_int(&l, sc[i]);
	if (kl_run(&l)) {
		close_f("block_ptr_matmul_kernel", c, w, M * N, 1e-4, 1e-4);
		/* the offsets are carried by the loop */
		CHECK_STR_CONTAINS(sb_str(&l.ir), "= for %");
	}
	kl_release(&l);
	free(a);
	free(b);
}

static void test_block_ptr_if(void)
{
	enum { N = 100, B = 16, P = (N + B - 1) / B };
	float *x = fvec(N, -1, 1), o[N];
	launch l = kl("block_ptr_if_kernel", "*fp32, *fp32, i32, 16", P, 1);
	kl_ptr(&l, x, sizeof(float) * N);
	kl_ptr(&l, o, sizeof o);
	kl_int(&l, N);
	if (kl_run(&l)) {
		int bad = 0;
		for (int i = 0; i < N; i++) {
			int p = i / B, src = p % 2 ? i - B : i;
			bad += o[i] != x[src];
		}
		CHECK_MSG(bad == 0, "block_ptr_if_kernel: %d wrong elements", bad);
	}
	kl_release(&l);
	free(x);
}

static void test_block_ptr_while(void)
{
	enum { N = 100 };
	float *x = fvec(N, -1, 1), o = 0, w = 0;
	for (int i = 0; i < N; i++)
		w += x[i];
	launch l = kl("block_ptr_while_kernel", "*fp32, *fp32, i32, 32", 1, 1);
	kl_ptr(&l, x, sizeof(float) * N);
	kl_ptr(&l, &o, sizeof o);
	kl_int(&l, N);
	if (kl_run(&l))
		close_f("block_ptr_while_kernel", &o, &w, 1, 1e-5, 1e-5);
	kl_release(&l);
	free(x);
}

/* ---------------------------------------------------------------- smaller builtins */

static void test_while_and_or(void)
{
	enum { P = 4, N = 20 };
	float *x = fvec(P * N, 0, 2), o[P], w[P];
	float limit = 7.5f;
	for (int p = 0; p < P; p++) {
		int i = 0;
		float acc = 0;
		while ((i < N && acc < limit) || i == 0)
			acc += x[p * N + i++];
		w[p] = acc + (float)i * 1000.0f;
	}
	launch l = kl("while_and_or_kernel", "*fp32, *fp32, i32, fp32", P, 1);
	kl_ptr(&l, x, sizeof(float) * P * N);
	kl_ptr(&l, o, sizeof o);
	kl_int(&l, N);
	l.args[l.nargs++] = (interp_arg){-1, 0, {.f = limit}};
	if (kl_run(&l))
		close_f("while_and_or_kernel", o, w, P, 0, 0);
	kl_release(&l);
	free(x);
}

static void test_umulhi(void)
{
	enum { N = 64 };
	uint32_t a[N], b[N], hi[N];
	int32_t shi[N];
	uint64_t lhi[N];
	for (int i = 0; i < N; i++) {
		a[i] = rnd() ^ (rnd() << 16);
		b[i] = rnd() ^ (rnd() << 16);
	}
	launch l = kl("umulhi_kernel", "*u32, *u32, *u32, *i32, *u64, 64", 1, 1);
	kl_ptr(&l, a, sizeof a);
	kl_ptr(&l, b, sizeof b);
	kl_ptr(&l, hi, sizeof hi);
	kl_ptr(&l, shi, sizeof shi);
	kl_ptr(&l, lhi, sizeof lhi);
	if (kl_run(&l)) {
		int bad = 0;
		for (int i = 0; i < N; i++) {
			uint64_t la = (uint64_t)a[i] << 20, lb = (uint64_t)b[i] << 30;
			bad += hi[i] != (uint32_t)(((uint64_t)a[i] * b[i]) >> 32);
			/* int32 too: the unsigned high half, as Triton's mulhiui */
			bad += shi[i] != (int32_t)(uint32_t)(((uint64_t)a[i] * b[i]) >> 32);
			bad += lhi[i] != (uint64_t)(((unsigned __int128)la * lb) >> 64);
		}
		CHECK_MSG(bad == 0, "umulhi_kernel: %d wrong high halves", bad);
		CHECK_STR_CONTAINS(sb_str(&l.ir), "extern @__nv_umulhi");
		CHECK_STR_CONTAINS(sb_str(&l.ir), "extern @__nv_umul64hi");
		CHECK_STR_CONTAINS(sb_str(&l.ir), "  barrier\n");
	}
	kl_release(&l);
}

#define ERR "tests/kernels/lang_errors.py"

static void test_refusals(void)
{
	refused(ERR, "return_in_loop", "*fp32, i32", "`return` inside a runtime `for` or `while` loop is not supported");
	refused(ERR, "return_in_while_if", "*fp32, i32", "`return` inside a runtime `for` or `while` loop is not supported");
	refused(ERR, "return_types_differ", "*fp32, i32", "inconsistent return types: fp32 in the then branch");
	refused(ERR, "return_value_and_none", "*fp32, i32", "return different values that cannot be merged");
	refused(ERR, "kernel_returns_value", "*fp32, i32", "a kernel cannot return a value");
	refused(ERR, "read_after_one_branch", "*fp32, i32", "`t` is defined in only one branch of the runtime `if` at line");
	refused(ERR, "read_after_type_change", "*fp32, i32", "`t` has type fp32 in the then branch but i32 in the else branch");
	refused(ERR, "dtype_call_args", "*fp32", "dtype fp32 called as a function takes one positional argument");
	refused(ERR, "dtype_call_pointer", "*fp32", "cannot cast *fp32 to fp32");
	/* no binding of the try statement resolves: the first one's error */
	refused(ERR, "scan_not_jit", "*fp32", "the combine function of tl.associative_scan must be a @triton.jit function");
	refused(ERR, "scan_bad_combine", "*fp32", "the combine function `_bad_combine` returns 1 value for a scan of 2");
	refused(ERR, "scan_axis", "*fp32", "axis 1 is out of range for a block of rank 1");
	refused(ERR, "scan_scalar", "*fp32", "a scan needs a block, got a scalar");
	refused(ERR, "scan_block_combine", "*fp32", "the combine function `_block_combine` of a scan makes a block");
	refused(ERR, "reduce_not_jit", "*fp32", "the combine function of tl.reduce must be a @triton.jit function");
	refused(ERR, "reduce_bad_combine", "*fp32", "the combine function `_bad_combine` returns 1 value for a reduction of 2");
	refused(ERR, "reduce_axis", "*fp32", "axis 1 is out of range for a block of rank 1");
	refused(ERR, "reduce_shapes", "*fp32", "the inputs of a reduction must have one shape, got <8xfp32> and <16xfp32>");
	refused(ERR, "split_not_two", "*fp32", "`tl.split` needs a block whose last dimension is 2, got <8xfp32>");
	refused(ERR, "join_dtypes", "*fp32", "`tl.interleave` needs two tensors of one dtype, got fp32 and i32");
	refused(ERR, "cat_no_reorder", "*fp32", "`tl.cat` needs can_reorder=True");
	refused(ERR, "cat_not_pow2", "*fp32", "power of two");
	refused(ERR, "flip_dim", "*fp32", "dim 1 is out of range for a block of rank 1");
	refused(ERR, "flip_no_dim", "*fp32", "`tl.flip` needs `dim`");
	refused(ERR, "bptr_mask", "*fp32", "`mask` and `other` arguments cannot be specified for loading block pointers");
	refused(ERR, "bptr_order", "*fp32", "Expected a permutation of (0, 1, ..., len(order)-1) in order");
	refused(ERR, "bptr_lengths", "*fp32", "Expected shape/strides/offsets/block_shape to have the same length");
	refused(ERR, "bptr_nan_int", "*i32", "Padding option `nan` is not supported for integer block pointers");
	refused(ERR, "bptr_store_shape", "*fp32", "Block shape(<16xfp32>) and value shape(<8xfp32>) mismatch");
	refused(ERR, "bptr_boundary_plain", "*fp32", "`boundary_check` argument is not supported for loading a tensor of pointers");
	refused(ERR, "bptr_check_dim", "*fp32", "boundary_check must name dims of the block (0 to 0), got 1");
	refused(ERR, "bptr_offset_i64", "*fp32, i32", "Block pointers only support 32 bit `offsets`");
	refused(ERR, "sort_dim0", "*fp32", "only minor dimension is currently supported");
	refused(ERR, "topk_k", "*fp32", "`tl.topk` needs k a constexpr power of two of at most 8, got 3");
	refused(ERR, "gather_rank", "*fp32", "source and index tensors must have the same rank");
	refused(ERR, "gather_float_index", "*fp32", "index must be an integer tensor, got <8xfp32>");
	refused(ERR, "histogram_float", "*fp32", "histogram only supports integer input, got <8xfp32>");
	refused(ERR, "print_no_prefix", "*fp32", "the prefix of tl.device_print must be a string literal");
	refused(ERR, "assert_msg", "*fp32", "the message of an assertion must be a string literal");
	refused(ERR, "inline_asm_dtype", "*fp32", "the dtype of `tl.inline_asm_elementwise` must be a (non-pointer) dtype or a tuple of them, got 3");
	refused(ERR, "umulhi_float", "*fp32", "`tl.umulhi` expects int32, int64, uint32 or uint64, got fp32");
	refused(ERR, "break_in_loop", "*fp32, i32", "`break` statements are not supported in kernels");
	refused(ERR, "unresolved_import", "*fp32", "`libdevice.no_such_fn` is not supported yet");
}

int main(void)
{
	test_xent_ignore_index();
	test_early_helpers();
	test_nested_return();
	test_branch_temps();
	test_dtype_call();
	test_imports();
	test_cumsum();
	test_scan_2d();
	test_associative_scan();
	test_cumsum_int8();
	test_reduce_fn();
	test_shapes();
	test_sort();
	test_gather_hist();
	test_debug();
	test_inline_asm();
	test_cross_file();
	test_block_ptr_copy();
	test_block_ptr_matmul();
	test_block_ptr_while();
	test_block_ptr_if();
	test_while_and_or();
	test_umulhi();
	test_pointer_table();
	test_refusals();
	return check_report("test_lang");
}
