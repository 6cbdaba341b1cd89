/* test_desc.c - tensor descriptors in the reference interpreter, against
 * plain C written here, and the loader's checks of host-side descriptors.
 *
 * Device-side descriptors (tl.make_tensor_descriptor) load blocks at
 * offsets that straddle every edge of odd-shaped tensors (negative offsets
 * included: out-of-bounds elements read as zero, or NaN with
 * padding_option="nan") and store blocks whose out-of-bounds part must not
 * be written (the rest of the buffer keeps its poison); 2-D and 3-D;
 * host-side descriptor parameters (tensordesc<fp16[16, 8]>) as their
 * expanded base/shape/stride arguments, with the :16 base and == 1 last
 * stride enforced. Tutorial 09's kernels (host descriptors, persistent
 * device-side descriptors, with b.T and without) are run at M = N = K odd
 * and compared with the tutorial's plain persistent matmul, bit for bit;
 * with num_stages 3 their descriptor loads become rings of asynchronous
 * copies (counted in the IR) and the results stay identical. Last,
 * tile_tensordesc_check, which generated launch functions call.
 */
#include <math.h>
#include <stdlib.h>

#define TILE_IMPLEMENTATION
#define TILE_STATIC
#include "tile.h"

#include "kernel_launch.h"

#define KDIR "tests/kernels/"
#define GDIR "tests/gpu/kernels/"

static launch kl(const char *file, const char *kernel, const char *signature, uint32_t gx, uint32_t gy, uint32_t gz)
{
	return kl_grid(file, kernel, signature, gx, gy, gz);
}

/* A host-side 2-D descriptor's arguments: base, shape, strides (and,
 * built for TMA, the tensor map, which the interpreter does not read). */
static void kl_desc2(launch *l, void *data, size_t bytes, int64_t rows, int64_t cols, int64_t stride0, int64_t stride1)
{
	kl_ptr(l, data, bytes);
	kl_int(l, rows);
	kl_int(l, cols);
	kl_int(l, stride0);
	kl_int(l, stride1);
	if (l->tma)
		kl_int(l, 0);
}

/* Tutorial 09's host-descriptor matmul arguments: a (M x K), bt (N x K)
 * and c (M x N) as descriptors with row strides SK, SK, SN, then M, N, K. */
static void kl_matmul_descs(launch *l, uint16_t *a, size_t abytes, uint16_t *bt, size_t btbytes, uint16_t *c, size_t cbytes,
			    int M, int N, int K, int SK, int SN)
{
	kl_desc2(l, a, abytes, M, K, SK, 1);
	kl_desc2(l, bt, btbytes, N, K, SK, 1);
	kl_desc2(l, c, cbytes, M, N, SN, 1);
	kl_int(l, M), kl_int(l, N), kl_int(l, K);
}

static uint64_t rng = 7;

static float frand(void)
{
	rng = rng * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return (float)((rng >> 40) & 0xffff) / 32768.0f - 1.0f;
}

static float h2f(uint16_t h) { return interp_f16_to_f32(h); }
static uint16_t f2h(float f) { return interp_f32_to_f16(f); }

/* rows x SK fp16: random in the first K columns, 100 in the padding,
 * which a kernel must never read */
static void fill_padded(uint16_t *x, int rows, int K, int SK)
{
	for (int i = 0; i < rows * SK; i++)
		x[i] = f2h(i % SK < K ? frand() : 100.0f);
}

/* The elements of c (M x SN, N columns written, the rest 0xffff) that are
 * not a @ bt.T accumulated in fp32 in k order, as the interpreter's dot. */
static int matmul_bt_mismatches(const uint16_t *a, const uint16_t *bt, const uint16_t *c, int M, int N, int K, int SK,
				int SN)
{
	int bad = 0;
	for (int m = 0; m < M; m++)
		for (int n = 0; n < SN; n++) {
			float acc = 0;
			for (int k = 0; k < K && n < N; k++)
				acc += h2f(a[m * SK + k]) * h2f(bt[n * SK + k]);
			bad += c[m * SN + n] != (n < N ? f2h(acc) : 0xffff);
		}
	return bad;
}

static const float POISON = -12345.0f;

/* ---- device-side descriptors ------------------------------------------- */

static void test_load_edges(void)
{
	enum { M = 37, N = 21, SM = 24, BM = 16, BN = 8 };
	static float in[M * SM], out[BM * BN];
	for (int i = 0; i < M * SM; i++)
		in[i] = (float)i + 0.5f;
	/* every edge: inside, straddling the top-left (negative offsets), the
	 * bottom-right, wholly outside */
	static const int offs[][2] = {{0, 0}, {5, 3}, {-3, -5}, {30, 16}, {36, 20}, {-16, 0}, {40, 0}, {0, 21}, {-20, -20}};
	for (size_t t = 0; t < sizeof offs / sizeof offs[0]; t++) {
		int om = offs[t][0], on = offs[t][1];
		for (int i = 0; i < BM * BN; i++)
			out[i] = POISON;
		launch l = kl(KDIR "descriptors.py", "desc_load_block", "*fp32:16, *fp32:16, i32, i32, i32, i32, i32", 1, 1, 1);
		kl_define(&l, "BM", "16");
		kl_define(&l, "BN", "8");
		kl_ptr(&l, in, sizeof in);
		kl_ptr(&l, out, sizeof out);
		kl_int(&l, M);
		kl_int(&l, N);
		kl_int(&l, SM);
		kl_int(&l, om);
		kl_int(&l, on);
		if (!kl_run(&l))
			return;
		int bad = 0;
		for (int i = 0; i < BM; i++)
			for (int j = 0; j < BN; j++) {
				int r = om + i, c = on + j;
				float want = r >= 0 && r < M && c >= 0 && c < N ? in[r * SM + c] : 0.0f;
				bad += out[i * BN + j] != want;
			}
		CHECK_MSG(bad == 0, "desc_load_block at (%d, %d): %d wrong elements", om, on, bad);
	}
}

static void test_store_edges(void)
{
	enum { M = 29, N = 13, SM = 16, BM = 16, BN = 8 };
	static float in[BM * BN], out[M * SM];
	for (int i = 0; i < BM * BN; i++)
		in[i] = (float)(i + 1);
	static const int offs[][2] = {{0, 0}, {20, 10}, {-5, -3}, {28, 12}, {-16, 0}, {29, 0}, {8, 8}};
	for (size_t t = 0; t < sizeof offs / sizeof offs[0]; t++) {
		int om = offs[t][0], on = offs[t][1];
		for (int i = 0; i < M * SM; i++)
			out[i] = POISON;
		launch l = kl(KDIR "descriptors.py", "desc_store_block", "*fp32:16, *fp32:16, i32, i32, i32, i32, i32", 1, 1, 1);
		kl_define(&l, "BM", "16");
		kl_define(&l, "BN", "8");
		kl_ptr(&l, in, sizeof in);
		kl_ptr(&l, out, sizeof out);
		kl_int(&l, M);
		kl_int(&l, N);
		kl_int(&l, SM);
		kl_int(&l, om);
		kl_int(&l, on);
		if (!kl_run(&l))
			return;
		int bad = 0, written = 0;
		for (int r = 0; r < M; r++)
			for (int c = 0; c < SM; c++) {
				int i = r - om, j = c - on;
				bool in_block = i >= 0 && i < BM && j >= 0 && j < BN && c < N;
				float want = in_block ? in[i * BN + j] : POISON;
				bad += out[r * SM + c] != want;
				written += in_block;
			}
		CHECK_MSG(bad == 0, "desc_store_block at (%d, %d): %d wrong elements (%d written)", om, on, bad, written);
	}
}

static void test_scale_grid(void)
{
	/* partial blocks on the right and at the bottom; N a multiple of 4
	 * (16-byte strides of fp32) */
	enum { M = 45, N = 28, BM = 16, BN = 16 };
	static float x[M * N], y[M * N + 64];
	for (int i = 0; i < M * N; i++)
		x[i] = frand();
	for (int i = 0; i < M * N + 64; i++)
		y[i] = POISON;
	launch l = kl(KDIR "descriptors.py", "desc_scale_2d", "*fp32:16, *fp32:16, i32, i32", (M + BM - 1) / BM,
		      (N + BN - 1) / BN, 1);
	kl_define(&l, "BM", "16");
	kl_define(&l, "BN", "16");
	kl_ptr(&l, x, sizeof x);
	kl_ptr(&l, y, sizeof y);
	kl_int(&l, M);
	kl_int(&l, N);
	if (!kl_run(&l))
		return;
	int bad = 0;
	for (int i = 0; i < M * N; i++)
		bad += y[i] != x[i] * 2 + 1;
	for (int i = M * N; i < M * N + 64; i++)
		bad += y[i] != POISON;
	CHECK_EQ_INT(bad, 0);
}

static void test_copy_3d(void)
{
	enum { A = 5, B = 7, C = 12, BA = 2, BB = 4, BC = 8 };
	static int32_t x[A * B * C], y[A * B * C];
	for (int i = 0; i < A * B * C; i++) {
		x[i] = i * 3;
		y[i] = -1;
	}
	launch l = kl(KDIR "descriptors.py", "desc_copy_3d", "*i32:16, *i32:16, i32, i32, i32", (A + BA - 1) / BA,
		      (B + BB - 1) / BB, (C + BC - 1) / BC);
	kl_define(&l, "BA", "2");
	kl_define(&l, "BB", "4");
	kl_define(&l, "BC", "8");
	kl_ptr(&l, x, sizeof x);
	kl_ptr(&l, y, sizeof y);
	kl_int(&l, A);
	kl_int(&l, B);
	kl_int(&l, C);
	if (!kl_run(&l))
		return;
	int bad = 0;
	for (int i = 0; i < A * B * C; i++)
		bad += y[i] != x[i] - 3;
	CHECK_EQ_INT(bad, 0);
}

static void test_nan_padding(void)
{
	enum { M = 10, N = 8, BM = 16, BN = 8 };
	static float in[M * N], out[BM * BN];
	for (int i = 0; i < M * N; i++)
		in[i] = (float)i;
	launch l = kl(KDIR "descriptors.py", "desc_nan_pad", "*fp32:16, *fp32:16, i32, i32, i32", 1, 1, 1);
	kl_define(&l, "BM", "16");
	kl_define(&l, "BN", "8");
	kl_ptr(&l, in, sizeof in);
	kl_ptr(&l, out, sizeof out);
	kl_int(&l, M);
	kl_int(&l, N);
	kl_int(&l, -2);
	if (!kl_run(&l))
		return;
	int bad = 0;
	for (int i = 0; i < BM; i++)
		for (int j = 0; j < BN; j++) {
			int r = i - 2;
			float got = out[i * BN + j];
			bad += r >= 0 && r < M ? got != in[r * N + j] : !isnan(got);
		}
	CHECK_EQ_INT(bad, 0);
}

/* ---- host-side descriptors ----------------------------------------------- */

static void test_host_desc(void)
{
	enum { M = 37, N = 19, SX = 24, BM = 16, BN = 8 };
	static uint16_t x[M * SX], y[M * SX];
	for (int i = 0; i < M * SX; i++) {
		x[i] = f2h(frand());
		y[i] = 0x7e00; /* NaN: must stay where nothing is stored */
	}
	const char *sig = "tensordesc<fp16[16, 8]>, tensordesc<fp16[16, 8]>, fp32";
	launch l = kl(KDIR "descriptors.py", "host_desc_scale", sig, (M + BM - 1) / BM, (N + BN - 1) / BN, 1);
	kl_desc2(&l, x, sizeof x, M, N, SX, 1);
	kl_desc2(&l, y, sizeof y, M, N, SX, 1);
	kl_float(&l, 1.5);
	if (!kl_run(&l))
		return;
	int bad = 0;
	for (int r = 0; r < M; r++)
		for (int c = 0; c < SX; c++) {
			uint16_t want = c < N ? f2h(h2f(x[r * SX + c]) * 1.5f) : 0x7e00;
			bad += y[r * SX + c] != want;
		}
	CHECK_EQ_INT(bad, 0);

	/* the last stride is specialized to 1 and the base to 16-byte alignment,
	 * both checked against the arguments */
	l = kl(KDIR "descriptors.py", "host_desc_scale", sig, 1, 1, 1);
	kl_desc2(&l, x, sizeof x, M, N, SX, 2);
	kl_desc2(&l, y, sizeof y, M, N, SX, 1);
	kl_float(&l, 1.0);
	kl_refused(&l, "x_desc_stride1");
	l = kl(KDIR "descriptors.py", "host_desc_scale", sig, 1, 1, 1);
	kl_desc2(&l, x, sizeof x, M, N, SX, 1);
	kl_desc2(&l, y, sizeof y, M, N, SX, 1);
	l.args[5].offset = 2; /* y's base off by one element */
	kl_float(&l, 1.0);
	kl_refused(&l, "y_desc_base");
}

/* ---- tutorial 09 -------------------------------------------------------- */

static void define_mm(launch *l, bool persistent)
{
	kl_define(l, "BLOCK_SIZE_M", "32");
	kl_define(l, "BLOCK_SIZE_N", "32");
	kl_define(l, "BLOCK_SIZE_K", "16");
	kl_define(l, "GROUP_SIZE_M", "2");
	if (persistent)
		kl_define(l, "NUM_SMS", "3");
}

static void test_tutorial09(void)
{
	/* odd sizes: partial tiles everywhere, K not a multiple of the block;
	 * row strides padded to multiples of 8 fp16 (16 bytes), as descriptors need */
	enum { M = 75, N = 53, K = 41, SK = 48, SN = 56 };
	static uint16_t a[M * SK], b[K * SN], bt[N * SK], ref[M * SN], c[M * SN];
	for (int i = 0; i < M * SK; i++)
		a[i] = f2h(i % SK < K ? frand() : 100.0f); /* padding: must never be read */
	for (int k = 0; k < K; k++)
		for (int n = 0; n < SN; n++)
			b[k * SN + n] = f2h(n < N ? frand() : 100.0f);
	for (int n = 0; n < N; n++)
		for (int k = 0; k < SK; k++)
			bt[n * SK + k] = k < K ? b[k * SN + n] : f2h(100.0f);
	const uint32_t tiles = ((M + 31) / 32) * ((N + 31) / 32);

	/* the plain persistent matmul of the tutorial: the reference */
	for (int i = 0; i < M * SN; i++)
		ref[i] = 0xffff;
	launch l = kl(GDIR "descriptors.py", "matmul_kernel_persistent",
		      "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1", 3, 1, 1);
	define_mm(&l, true);
	kl_ptr(&l, a, sizeof a);
	kl_ptr(&l, b, sizeof b);
	kl_ptr(&l, ref, sizeof ref);
	kl_int(&l, M), kl_int(&l, N), kl_int(&l, K);
	kl_int(&l, SK), kl_int(&l, 1), kl_int(&l, SN), kl_int(&l, 1), kl_int(&l, SN), kl_int(&l, 1);
	if (!kl_run(&l))
		return;
	/* and against C: fp32 accumulation in k order, as the interpreter's dot */
	int bad = 0;
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float acc = 0;
			for (int k = 0; k < K; k++)
				acc += h2f(a[m * SK + k]) * h2f(b[k * SN + n]);
			bad += ref[m * SN + n] != f2h(acc);
		}
	CHECK_MSG(bad == 0, "plain persistent matmul: %d elements differ from C", bad);

	for (int stages = 1; stages <= 3; stages += 2)
	for (int dtma = 0; dtma <= (stages > 1); dtma++) {
		/* device-side descriptors, b as N x K read through b.T; pipelined
		 * also as for sm_90a, where their maps are built at launch */
		for (int i = 0; i < M * SN; i++)
			c[i] = 0xffff;
		l = kl(GDIR "descriptors.py", "matmul_kernel_descriptor_persistent", "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32", 3,
		       1, 1);
		define_mm(&l, true);
		kl_define(&l, "EPILOGUE_SUBTILE", "False");
		kl_define(&l, "WARP_SPECIALIZE", "False");
		kl_define(&l, "FLATTEN", "True");
		l.stages = stages;
		l.async = true; /* rings of asynchronous copies */
		l.tma = dtma;
		l.run_on = true;
		/* strides are [K, 1]: this kernel needs K itself padded, so it
		 * reads a and bt with the padded K (the padding columns hold 100,
		 * and K-padding of a times K-padding of bt would add to the result:
		 * zero them for this run) */
		static uint16_t a0[M * SK], bt0[N * SK];
		for (int i = 0; i < M * SK; i++)
			a0[i] = i % SK < K ? a[i] : 0;
		for (int i = 0; i < N * SK; i++)
			bt0[i] = i % SK < K ? bt[i] : 0;
		static uint16_t c2[M * N];
		for (int i = 0; i < M * N; i++)
			c2[i] = 0xffff;
		kl_ptr(&l, a0, sizeof a0);
		kl_ptr(&l, bt0, sizeof bt0);
		kl_ptr(&l, c2, sizeof c2);
		kl_int(&l, M), kl_int(&l, N), kl_int(&l, SK);
		for (int k = 0; dtma && k < 3; k++)
			kl_int(&l, 0); /* the three derived maps, which the interpreter does not read */
		if (!kl_run(&l))
			return;
		if (stages > 1)
			CHECK_MSG(dtma ? l.tma_after > 0 && l.copies_after == 0 : l.copies_after > 0,
				  "device-side descriptor loads were not pipelined%s", dtma ? " through derived maps" : "");
		/* TMA: the copies run on from tile to tile (an if per copy issued
		 * ahead: the prologue's two and the K loop's) */
		if (dtma)
			CHECK_MSG(l.ifs_after == 3, "device-side descriptor copies do not run on across tiles (%d ifs)", l.ifs_after);
		/* cp.async: the copies' masks test the tile's bounds, so each
		 * tile starts its pipeline again (mask_reads_tile) */
		else
			CHECK_MSG(l.ifs_after == 0, "cp.async copies of descriptor blocks run on across tiles (%d ifs)", l.ifs_after);
		bad = 0;
		for (int m = 0; m < M; m++)
			for (int n = 0; n < N; n++)
				bad += c2[m * N + n] != ref[m * SN + n];
		CHECK_MSG(bad == 0, "descriptor persistent (stages %d%s): %d elements differ", stages, dtma ? ", TMA" : "", bad);
		if (dtma)
			continue;

		/* host-side descriptors, persistent and not, b as N x K; pipelined
		 * also as for sm_90a, the rings filled through tensor maps */
		for (int run = 0; run < (stages > 1 ? 4 : 2); run++) {
			int persistent = run % 2;
			bool tma = run >= 2;
			for (int i = 0; i < M * SN; i++)
				c[i] = 0xffff;
			const char *sig = "tensordesc<fp16[32, 16]>, tensordesc<fp16[32, 16]>, tensordesc<fp16[32, 32]>, i32, i32, i32";
			l = kl(GDIR "descriptors.py", persistent ? "matmul_kernel_tma_persistent" : "matmul_kernel_tma", sig,
			       persistent ? 3 : tiles, 1, 1);
			define_mm(&l, persistent);
			kl_define(&l, "WARP_SPECIALIZE", "False");
			if (persistent)
				kl_define(&l, "EPILOGUE_SUBTILE", "False");
			l.stages = stages;
			l.async = true; /* rings of asynchronous copies */
			l.tma = l.run_on = tma;
			kl_matmul_descs(&l, a, sizeof a, bt, sizeof bt, c, sizeof c, M, N, K, SK, SN);
			if (!kl_run(&l))
				return;
			if (stages > 1)
				CHECK_MSG(tma ? l.tma_after > 0 && l.copies_after == 0 : l.copies_after > 0,
					  "host descriptor loads were not pipelined %s", tma ? "through tensor maps" : "");
			if (tma)
				CHECK_MSG(l.ifs_after == (persistent ? 3 : 0), "%s: %d ifs after pipelining", l.kernel, l.ifs_after);
			bad = 0;
			for (int i = 0; i < M * SN; i++)
				bad += c[i] != (i % SN < N ? ref[i] : 0xffff);
			CHECK_MSG(bad == 0, "%s (stages %d%s): %d elements differ", l.kernel, stages, tma ? ", TMA" : "", bad);
		}

		/* the K x N device-side variant: both operands feed the dot as loaded */
		for (int i = 0; i < M * N; i++)
			c2[i] = 0xffff;
		l = kl(GDIR "descriptors.py", "matmul_descriptor_persistent_kn", "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32", 3, 1,
		       1);
		define_mm(&l, true);
		l.stages = stages;
		l.async = true; /* rings of asynchronous copies */
		/* N = 53 is no multiple of 8: give b the padded width, c its own */
		static uint16_t bkp[SK * SN]; /* rows K .. SK-1 zero, as a0's columns */
		for (int i = 0; i < SK * SN; i++)
			bkp[i] = i < K * SN ? b[i] : 0;
		kl_ptr(&l, a0, sizeof a0);
		kl_ptr(&l, bkp, sizeof bkp);
		static uint16_t c3[M * SN];
		for (int i = 0; i < M * SN; i++)
			c3[i] = 0xffff;
		kl_ptr(&l, c3, sizeof c3);
		kl_int(&l, M), kl_int(&l, SN), kl_int(&l, SK);
		if (!kl_run(&l))
			return;
		if (stages > 1)
			CHECK_MSG(l.copies_after >= 2, "K x N descriptor loads were not both pipelined (%d copies)", l.copies_after);
		bad = 0;
		for (int m = 0; m < M; m++)
			for (int n = 0; n < N; n++)
				bad += c3[m * SN + n] != ref[m * SN + n];
		CHECK_MSG(bad == 0, "descriptor persistent K x N (stages %d): %d elements differ", stages, bad);
	}
}

/* TMA copies that run on across the persistent loop, with fewer K
 * iterations (K 10: one) than copies in flight (num_stages 4: three): the
 * K loop's copies land two and three tiles ahead; 1, 2 or 3 programs
 * walking 6 tiles, compared with C. */
static void test_tutorial09_short_k(void)
{
	enum { M = 75, N = 53, K = 10, SK = 16, SN = 56 };
	static uint16_t a[M * SK], bt[N * SK], c[M * SN];
	fill_padded(a, M, K, SK);
	fill_padded(bt, N, K, SK);
	for (uint32_t programs = 1; programs <= 3; programs++) {
		for (int i = 0; i < M * SN; i++)
			c[i] = 0xffff;
		const char *sig = "tensordesc<fp16[32, 16]>, tensordesc<fp16[32, 16]>, tensordesc<fp16[32, 32]>, i32, i32, i32";
		launch l = kl(GDIR "descriptors.py", "matmul_kernel_tma_persistent", sig, programs, 1, 1);
		define_mm(&l, false);
		char sms[8];
		snprintf(sms, sizeof sms, "%u", programs);
		kl_define(&l, "NUM_SMS", sms);
		kl_define(&l, "WARP_SPECIALIZE", "False");
		kl_define(&l, "EPILOGUE_SUBTILE", "False");
		l.stages = 4;
		l.async = l.tma = l.run_on = true;
		kl_matmul_descs(&l, a, sizeof a, bt, sizeof bt, c, sizeof c, M, N, K, SK, SN);
		if (!kl_run(&l))
			return;
		CHECK_MSG(l.ifs_after == 4, "short K: the copies do not run on across tiles (%d ifs)", l.ifs_after);
		int bad = matmul_bt_mismatches(a, bt, c, M, N, K, SK, SN);
		CHECK_MSG(bad == 0, "short K, %u programs: %d elements differ", programs, bad);
	}
}

/* Two persistent loops the copies treat differently, against C: a K loop
 * stepping by BK whose copies run on across tiles (the trip count from
 * the step), and a tile index carried by the loop over tiles, which the
 * copies read, so each tile starts its pipeline again. */
static void test_persistent_variants(void)
{
	enum { M = 75, N = 53, K = 41, SK = 48, SN = 56 };
	static uint16_t a[M * SK], bt[N * SK], c[M * SN];
	fill_padded(a, M, K, SK);
	fill_padded(bt, N, K, SK);
	static const struct {
		const char *kernel;
		int ifs; /* if ops after pipelining: the prologue's and the K loop's, or none */
	} kernels[] = {{"persistent_k_step", 3}, {"persistent_carried_tile", 0}};
	for (size_t kk = 0; kk < sizeof kernels / sizeof kernels[0]; kk++) {
		for (int i = 0; i < M * SN; i++)
			c[i] = 0xffff;
		const char *sig = "tensordesc<fp16[32, 16]>, tensordesc<fp16[32, 16]>, tensordesc<fp16[32, 32]>, i32, i32, i32";
		launch l = kl(KDIR "descriptors.py", kernels[kk].kernel, sig, 2, 1, 1);
		kl_define(&l, "BM", "32");
		kl_define(&l, "BN", "32");
		kl_define(&l, "BK", "16");
		kl_define(&l, "PROGRAMS", "2");
		l.stages = 3;
		l.async = l.tma = l.run_on = true;
		kl_matmul_descs(&l, a, sizeof a, bt, sizeof bt, c, sizeof c, M, N, K, SK, SN);
		if (!kl_run(&l))
			return;
		CHECK_MSG(l.ifs_after == kernels[kk].ifs, "%s: %d ifs after pipelining, want %d", l.kernel, l.ifs_after,
			  kernels[kk].ifs);
		int bad = matmul_bt_mismatches(a, bt, c, M, N, K, SK, SN);
		CHECK_MSG(bad == 0, "%s: %d elements differ", l.kernel, bad);
	}
}

/* The tutorial's plain persistent matmul pipelined as for sm_90a: rings of
 * cp.async copies that run on across tiles, the tile rows their addresses
 * read (tensors of the loop over tiles) computed again with each copy. K 41
 * (three K iterations) and 10 (one, fewer than the copies in flight), 3
 * and 4 stages, 1-3 programs walking 6 tiles, against C. */
static void test_persistent_pointers(void)
{
	enum { M = 75, N = 53, SK = 48, SN = 56 };
	static uint16_t a[M * SK], b[SK * SN], bt[N * SK], c[M * SN];
	static const int ks[] = {41, 10};
	for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
		int K = ks[ki];
		fill_padded(a, M, K, SK);
		fill_padded(bt, N, K, SK);
		for (int k = 0; k < SK; k++)
			for (int n = 0; n < SN; n++)
				b[k * SN + n] = k < K && n < N ? bt[n * SK + k] : f2h(100.0f); /* padding: never read */
		for (int stages = 3; stages <= 4; stages++)
			for (uint32_t programs = 1; programs <= 3; programs++) {
				for (int i = 0; i < M * SN; i++)
					c[i] = 0xffff;
				launch l = kl(GDIR "descriptors.py", "matmul_kernel_persistent",
					      "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1",
					      programs, 1, 1);
				define_mm(&l, false);
				char sms[8];
				snprintf(sms, sizeof sms, "%u", programs);
				kl_define(&l, "NUM_SMS", sms);
				l.stages = stages;
				l.async = l.run_on = true;
				kl_ptr(&l, a, sizeof a);
				kl_ptr(&l, b, sizeof b);
				kl_ptr(&l, c, sizeof c);
				kl_int(&l, M), kl_int(&l, N), kl_int(&l, K);
				kl_int(&l, SK), kl_int(&l, 1), kl_int(&l, SN), kl_int(&l, 1), kl_int(&l, SN), kl_int(&l, 1);
				if (!kl_run(&l))
					return;
				/* an if per copy issued ahead: the prologue's S-1 and the K loop's */
				CHECK_MSG(l.copies_after > 0 && l.ifs_after == stages,
					  "pointer persistent, %d stages: %d copies, %d ifs (copies not running on)", stages,
					  l.copies_after, l.ifs_after);
				int bad = matmul_bt_mismatches(a, bt, c, M, N, K, SK, SN);
				CHECK_MSG(bad == 0, "pointer persistent, K %d, %d stages, %u programs: %d elements differ", K, stages,
					  programs, bad);
			}
	}
}

/* ---- refused -------------------------------------------------------------- */

static void test_refused(void)
{
	static const struct {
		const char *kernel, *sig, *needle;
	} cases[] = {
		{"err_block_runtime", "*fp32, i32, i32", "must be constexpr ints: dimension 1"},
		{"err_block_pow2", "*fp32, i32", "is 24, not a power of two"},
		{"err_rank", "*fp32, i32", "Expected block_shape to have 2 dimensions but got 1"},
		{"err_last_stride", "*fp32, i32", "last dim must be 1 but got 2"},
		{"err_last_stride_runtime", "*fp32, i32, i32", "must be the constant 1"},
		{"err_narrow", "*fp16, i32", "at least 16 bytes in the last dimension, but got 4 * 2 = 8 bytes"},
		{"err_stride_align", "*fp16, i32", "stride 0 is 6 elements of 2 bytes"},
		{"err_rank5", "*fp32, i32", "descriptors of 5 dimensions are not supported"},
		{"err_offsets", "*fp32, i32", "expected 2 offsets, but got 1"},
		{"err_store_shape", "*fp32, i32", "must have its block shape <16x16xfp32>"},
		{"err_nan_int", "*i32, i32", "`nan` is not supported for integer blocks"},
		{"err_gather", "*fp32, i32", "`gather` is not supported yet"},
		{"host_desc_scale", "tensordesc<fp16[16, 3]>, tensordesc<fp16[16, 8]>, fp32", "must be a power of two"},
		{"host_desc_scale", "tensordesc<fp16[16 8]>, tensordesc<fp16[16, 8]>, fp32", "integers separated by commas"},
		{"host_desc_scale", "tensordesc<fp99[16, 8]>, tensordesc<fp16[16, 8]>, fp32", "tensordesc<DTYPE[B0, B1, ...]>"},
		{"host_desc_scale", "tensordesc<fp16[]>, tensordesc<fp16[16, 8]>, fp32", "block shape is empty"},
		{"host_desc_scale", "tensordesc<fp16[1,1,1,1,1,1]>, tensordesc<fp16[16, 8]>, fp32", "more than 4 dimensions"},
		{"host_desc_scale", "tensordesc<fp16[16, 4]>, tensordesc<fp16[16, 8]>, fp32", "4 * 2 = 8 bytes"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		launch l = kl(KDIR "descriptors.py", cases[i].kernel, cases[i].sig, 1, 1, 1);
		kl_refused(&l, cases[i].needle);
	}
}

/* ---- the loader's checks ---------------------------------------------------- */

static void test_loader_check(void)
{
	static const int32_t block[2] = {64, 32};
	tile_tensordesc d;
	memset(&d, 0, sizeof d);
	d.base = 0x10000;
	d.rank = 2;
	d.shape[0] = 1000;
	d.shape[1] = 1000;
	d.strides[0] = 1000;
	d.strides[1] = 1;
	d.block_shape[0] = 64;
	d.block_shape[1] = 32;
	CHECK_EQ_INT(tile_tensordesc_check(&d, "a", 2, 2, block), TILE_SUCCESS);
	static const struct {
		int field;
		int64_t value;
		const char *needle;
	} bad[] = {
		{0, 0x10008, "not 16-byte aligned"}, {1, 3, "rank 3"}, {2, -1, "shape[0] = -1"},
		{3, INT64_C(1) << 31, "shape[1] = 2147483648"}, {4, 1004, "strides[0] = 1004 elements of 2 bytes"},
		{5, 2, "strides[1] is 2"}, {6, 128, "block_shape[0] is 128"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		tile_tensordesc e = d;
		switch (bad[i].field) {
		case 0: e.base = (tile_deviceptr)bad[i].value; break;
		case 1: e.rank = (int32_t)bad[i].value; break;
		case 2: e.shape[0] = bad[i].value; break;
		case 3: e.shape[1] = bad[i].value; break;
		case 4: e.strides[0] = bad[i].value; break;
		case 5: e.strides[1] = bad[i].value; break;
		default: e.block_shape[0] = (int32_t)bad[i].value; break;
		}
		CHECK_EQ_INT(tile_tensordesc_check(&e, "a_desc", 2, 2, block), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_STR_CONTAINS(tile_last_error(), bad[i].needle);
		CHECK_STR_CONTAINS(tile_last_error(), "a_desc");
	}
	CHECK_EQ_INT(tile_tensordesc_check(NULL, "a", 2, 2, block), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_EQ_INT(tile_tensordesc_check(&d, "a", 6, 2, block), TILE_ERROR_INVALID_ARGUMENT);
	/* entries past the rank are ignored; fp32 strides need multiples of 4 */
	d.strides[4] = 7;
	d.strides[0] = 1004;
	CHECK_EQ_INT(tile_tensordesc_check(&d, "a", 2, 4, block), TILE_SUCCESS);
}

int main(void)
{
	test_load_edges();
	test_store_edges();
	test_scale_grid();
	test_copy_3d();
	test_nan_padding();
	test_host_desc();
	test_tutorial09();
	test_tutorial09_short_k();
	test_persistent_variants();
	test_persistent_pointers();
	test_refused();
	test_loader_check();
	return check_report("test_desc");
}
