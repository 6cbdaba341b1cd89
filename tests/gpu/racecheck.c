/* racecheck.c - a small C driver for compute-sanitizer: launches the
 * kernels of .gpu/race/race.{c,h} on awkward shapes, checks the statuses
 * and the values against plain C, so that racecheck and memcheck watch
 * tile's shared-memory code run: a row softmax (warp shuffles and a
 * cross-warp exchange through shared memory), a column sum over a 256-row
 * tile, a matmul pipelined through 3-stage rings of asynchronous copies
 * (a K tail masked off, ldmatrix from swizzled tiles) and causal attention
 * (two dots per iteration, the second fed from registers), tutorial 09's
 * persistent matmul through host-side descriptors (on sm_90a the copy
 * engine fills its rings, on barriers set up again for each tile), and atomics
 * whose old values go through shared memory (a scalar ticket per program,
 * a replicated block), a contended histogram and tutorial 05's spin lock. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILE_IMPLEMENTATION
#include "tile.h"
#include "race.h"
#include "common/gpu.h"

enum { M = 200, N = 781 };

/* fp16 <-> fp32 (round to nearest even; no NaN or overflow here) */
static uint16_t to_half(float f)
{
	union { float f; uint32_t u; } v = {f};
	uint32_t sign = (v.u >> 16) & 0x8000, a = v.u & 0x7fffffff;
	if (a < 0x38800000) { /* subnormal halves */
		float m = fabsf(f) * 16777216.0f; /* units of 2^-24 */
		uint32_t q = (uint32_t)nearbyintf(m);
		return (uint16_t)(sign | q);
	}
	uint32_t h = (a - 0x38000000) >> 13, rem = a & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

static float from_half(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e == 0)
		return (sign ? -1.0f : 1.0f) * ldexpf((float)m, -24);
	union { uint32_t u; float f; } v = {sign | ((e + 112) << 23) | (m << 13)};
	return v.f;
}

static uint16_t *halves(int n, int seed)
{
	uint16_t *p = malloc(sizeof *p * (size_t)n);
	for (int i = 0; p && i < n; i++)
		p[i] = to_half((float)(((i + seed) * 7919) % 201 - 100) / 100.0f);
	return p;
}

/* The pipelined matmul: C = A B, fp16 in and out, K with a tail. */
static int check_matmul(void)
{
	enum { MM = 200, MN = 144, MK = 1008 }; /* K: a tail of 16 past 31 blocks of 32 */
	uint16_t *a = halves(MM * MK, 1), *b = halves(MK * MN, 2), *c = malloc(sizeof(uint16_t) * MM * MN);
	gpu_ptr da = 0, db = 0, dc = 0;
	if (!a || !b || !c || gpu_check(gpu.alloc(&da, 2 * MM * MK), "cuMemAlloc") ||
	    gpu_check(gpu.alloc(&db, 2 * MK * MN), "cuMemAlloc") || gpu_check(gpu.alloc(&dc, 2 * MM * MN), "cuMemAlloc") ||
	    gpu_check(gpu.htod(da, a, 2 * MM * MK), "cuMemcpyHtoD") || gpu_check(gpu.htod(db, b, 2 * MK * MN), "cuMemcpyHtoD"))
		return 1;
	tile_status st = race_matmul(NULL, da, db, dc, MM, MN, MK, MK, 1, MN, 1, MN, 1);
	if (st != TILE_SUCCESS) {
		fprintf(stderr, "race_matmul: %s: %s\n", tile_status_string(st), tile_last_error());
		return 1;
	}
	if (gpu_check(gpu.sync(), "cuCtxSynchronize") || gpu_check(gpu.dtoh(c, dc, 2 * MM * MN), "cuMemcpyDtoH"))
		return 1;
	int bad = 0;
	for (int i = 0; i < MM; i++)
		for (int j = 0; j < MN; j++) {
			double s = 0;
			for (int k = 0; k < MK; k++)
				s += (double)from_half(a[i * MK + k]) * from_half(b[k * MN + j]);
			bad += fabs(s - from_half(c[i * MN + j])) > 2e-2 + 2e-3 * fabs(s);
		}
	printf("racecheck: pipelined matmul right: %s\n", bad ? "NO" : "yes");
	gpu.free(da);
	gpu.free(db);
	gpu.free(dc);
	free(a);
	free(b);
	free(c);
	return bad != 0;
}

/* Causal attention, one head of 256 rows, head dim 64. */
static int check_attention(void)
{
	enum { T = 256, D = 64 };
	uint16_t *q = halves(T * D, 3), *k = halves(T * D, 4), *v = halves(T * D, 5), *o = malloc(sizeof(uint16_t) * T * D);
	gpu_ptr dq = 0, dk = 0, dv = 0, dout = 0;
	const float scale = 0.125f;
	size_t bytes = sizeof(uint16_t) * T * D;
	if (!q || !k || !v || !o || gpu_check(gpu.alloc(&dq, bytes), "cuMemAlloc") || gpu_check(gpu.alloc(&dk, bytes), "cuMemAlloc") ||
	    gpu_check(gpu.alloc(&dv, bytes), "cuMemAlloc") || gpu_check(gpu.alloc(&dout, bytes), "cuMemAlloc") ||
	    gpu_check(gpu.htod(dq, q, bytes), "cuMemcpyHtoD") || gpu_check(gpu.htod(dk, k, bytes), "cuMemcpyHtoD") ||
	    gpu_check(gpu.htod(dv, v, bytes), "cuMemcpyHtoD"))
		return 1;
	tile_status st = race_attn(NULL, T / 128, 1, 1, dq, dk, dv, dout, scale, T * D, T * D, D, 1, T);
	if (st != TILE_SUCCESS) {
		fprintf(stderr, "race_attn: %s: %s\n", tile_status_string(st), tile_last_error());
		return 1;
	}
	if (gpu_check(gpu.sync(), "cuCtxSynchronize") || gpu_check(gpu.dtoh(o, dout, bytes), "cuMemcpyDtoH"))
		return 1;
	int bad = 0;
	static double p[T];
	for (int i = 0; i < T; i++) {
		double mx = -1e30, sum = 0;
		for (int j = 0; j <= i; j++) {
			double s = 0;
			for (int d = 0; d < D; d++)
				s += (double)from_half(q[i * D + d]) * from_half(k[j * D + d]);
			p[j] = s * scale;
			mx = p[j] > mx ? p[j] : mx;
		}
		for (int j = 0; j <= i; j++)
			sum += p[j] = exp(p[j] - mx);
		for (int d = 0; d < D; d++) {
			double acc = 0;
			for (int j = 0; j <= i; j++)
				acc += p[j] * from_half(v[j * D + d]);
			bad += fabs(acc / sum - from_half(o[i * D + d])) > 1e-2;
		}
	}
	printf("racecheck: causal attention right: %s\n", bad ? "NO" : "yes");
	gpu.free(dq);
	gpu.free(dk);
	gpu.free(dv);
	gpu.free(dout);
	free(q);
	free(k);
	free(v);
	free(o);
	return bad != 0;
}

/* Tutorial 09's persistent matmul through host-side descriptors, B as
 * N x K: 3 programs of 4 tiles each, K with a tail the copies zero-fill. */
static int check_tma_matmul(void)
{
	enum { TM = 200, TN = 136, TK = 1000 };
	uint16_t *a = halves(TM * TK, 6), *b = halves(TN * TK, 7), *c = malloc(sizeof(uint16_t) * TM * TN);
	gpu_ptr da = 0, db = 0, dc = 0;
	if (!a || !b || !c || gpu_check(gpu.alloc(&da, 2 * TM * TK), "cuMemAlloc") ||
	    gpu_check(gpu.alloc(&db, 2 * TN * TK), "cuMemAlloc") || gpu_check(gpu.alloc(&dc, 2 * TM * TN), "cuMemAlloc") ||
	    gpu_check(gpu.htod(da, a, 2 * TM * TK), "cuMemcpyHtoD") || gpu_check(gpu.htod(db, b, 2 * TN * TK), "cuMemcpyHtoD"))
		return 1;
	tile_tensordesc ad = {da, 2, {TM, TK}, {TK, 1}, {64, 32}}, bd = {db, 2, {TN, TK}, {TK, 1}, {64, 32}},
			cd = {dc, 2, {TM, TN}, {TN, 1}, {64, 64}};
	tile_status st = race_tma(NULL, ad, bd, cd, TM, TN, TK);
	if (st != TILE_SUCCESS) {
		fprintf(stderr, "race_tma: %s: %s\n", tile_status_string(st), tile_last_error());
		return 1;
	}
	if (gpu_check(gpu.sync(), "cuCtxSynchronize") || gpu_check(gpu.dtoh(c, dc, 2 * TM * TN), "cuMemcpyDtoH"))
		return 1;
	int bad = 0;
	for (int i = 0; i < TM; i++)
		for (int j = 0; j < TN; j++) {
			double s = 0;
			for (int k = 0; k < TK; k++)
				s += (double)from_half(a[i * TK + k]) * from_half(b[j * TK + k]);
			bad += fabs(s - from_half(c[i * TN + j])) > 2e-2 + 2e-3 * fabs(s);
		}
	printf("racecheck: persistent descriptor matmul right: %s\n", bad ? "NO" : "yes");
	gpu.free(da);
	gpu.free(db);
	gpu.free(dc);
	free(a);
	free(b);
	free(c);
	return bad != 0;
}

/* Atomics: a scalar ticket (one thread, then shared memory to all) and a
 * replicated block's old values (owners, then shared memory). */
static int check_tickets(void)
{
	enum { P = 100, SLOTS = 32 };
	int32_t count = 0, slots[SLOTS], *seen = malloc(sizeof(int32_t) * P * 128), *hits = malloc(sizeof(int32_t) * P * SLOTS);
	gpu_ptr dc = 0, ds = 0, dseen = 0, dhits = 0;
	int bad = 0;
	memset(slots, 0, sizeof slots);
	if (!seen || !hits || gpu_check(gpu.alloc(&dc, sizeof count), "cuMemAlloc") ||
	    gpu_check(gpu.alloc(&ds, sizeof slots), "cuMemAlloc") || gpu_check(gpu.alloc(&dseen, sizeof(int32_t) * P * 128), "cuMemAlloc") ||
	    gpu_check(gpu.alloc(&dhits, sizeof(int32_t) * P * SLOTS), "cuMemAlloc") ||
	    gpu_check(gpu.htod(dc, &count, sizeof count), "cuMemcpyHtoD") || gpu_check(gpu.htod(ds, slots, sizeof slots), "cuMemcpyHtoD"))
		return 1;
	tile_status st = race_ticket(NULL, P, 1, 1, dc, ds, dseen, dhits);
	if (st != TILE_SUCCESS) {
		fprintf(stderr, "race_ticket: %s: %s\n", tile_status_string(st), tile_last_error());
		return 1;
	}
	if (gpu_check(gpu.sync(), "cuCtxSynchronize") || gpu_check(gpu.dtoh(&count, dc, sizeof count), "cuMemcpyDtoH") ||
	    gpu_check(gpu.dtoh(slots, ds, sizeof slots), "cuMemcpyDtoH") ||
	    gpu_check(gpu.dtoh(seen, dseen, sizeof(int32_t) * P * 128), "cuMemcpyDtoH") ||
	    gpu_check(gpu.dtoh(hits, dhits, sizeof(int32_t) * P * SLOTS), "cuMemcpyDtoH"))
		return 1;
	bad += count != P;
	for (int j = 0; j < SLOTS; j++)
		bad += slots[j] != P;
	for (int i = 0; i < P * 128; i++)
		bad += seen[i] != i / 128 + 1;
	for (int i = 0; i < P * SLOTS; i++)
		bad += hits[i] != i % SLOTS + 1;
	printf("racecheck: atomic tickets and old values right: %s\n", bad ? "NO" : "yes");
	gpu.free(dc);
	gpu.free(ds);
	gpu.free(dseen);
	gpu.free(dhits);
	free(seen);
	free(hits);
	return bad != 0;
}

/* A histogram whose bins many threads hit at once (values mod 256, most
 * of them in a few bins): every count right. */
static int check_histogram(void)
{
	enum { NX = 100003, NB = 256 };
	int32_t *x = malloc(sizeof(int32_t) * NX), bins[NB], want[NB];
	gpu_ptr dx = 0, db = 0;
	int bad = 0;
	memset(bins, 0, sizeof bins);
	memset(want, 0, sizeof want);
	if (!x)
		return 1;
	for (int i = 0; i < NX; i++) {
		x[i] = i % 7 ? i % 3 : (int32_t)(((uint32_t)i * 2654435761u) % 100000u);
		want[x[i] % NB]++;
	}
	if (gpu_check(gpu.alloc(&dx, sizeof(int32_t) * NX), "cuMemAlloc") || gpu_check(gpu.alloc(&db, sizeof bins), "cuMemAlloc") ||
	    gpu_check(gpu.htod(dx, x, sizeof(int32_t) * NX), "cuMemcpyHtoD") || gpu_check(gpu.htod(db, bins, sizeof bins), "cuMemcpyHtoD"))
		return 1;
	tile_status st = race_hist(NULL, dx, db, NX);
	if (st != TILE_SUCCESS) {
		fprintf(stderr, "race_hist: %s: %s\n", tile_status_string(st), tile_last_error());
		return 1;
	}
	if (gpu_check(gpu.sync(), "cuCtxSynchronize") || gpu_check(gpu.dtoh(bins, db, sizeof bins), "cuMemcpyDtoH"))
		return 1;
	for (int b = 0; b < NB; b++)
		bad += bins[b] != want[b];
	printf("racecheck: contended histogram right: %s\n", bad ? "NO" : "yes");
	gpu.free(dx);
	gpu.free(db);
	free(x);
	return bad != 0;
}

/* Tutorial 05's layer norm backward: each row adds its dy into one of 32
 * partial rows under a spin lock (atomic_cas, atomic_xchg); the partial
 * rows must sum to the column sums of dy, and every lock be free again. */
static int check_spin_lock(void)
{
	enum { R = 300, C = 781, G = 32 };
	size_t rc = sizeof(float) * R * C, gc = sizeof(float) * G * C;
	float *dy = malloc(rc), *x = malloc(rc), *db = malloc(gc), w[C], mean[R], rstd[R];
	int32_t lock[2 * G];
	gpu_ptr ddx = 0, ddy = 0, ddw = 0, ddb = 0, dxx = 0, dw = 0, dmean = 0, drstd = 0, dlock = 0;
	int bad = 0;
	if (!dy || !x || !db)
		return 1;
	for (int i = 0; i < R * C; i++) {
		dy[i] = (float)((i * 13) % 17) - 8.0f;
		x[i] = (float)((i * 7) % 11) / 5.0f;
	}
	for (int c = 0; c < C; c++)
		w[c] = 1.0f + (float)(c % 5) / 10.0f;
	for (int r = 0; r < R; r++) {
		mean[r] = 1.0f;
		rstd[r] = 0.5f;
	}
	memset(db, 0, gc);
	memset(lock, 0, sizeof lock);
	if (gpu_check(gpu.alloc(&ddx, rc), "cuMemAlloc") || gpu_check(gpu.alloc(&ddy, rc), "cuMemAlloc") ||
	    gpu_check(gpu.alloc(&ddw, gc), "cuMemAlloc") || gpu_check(gpu.alloc(&ddb, gc), "cuMemAlloc") ||
	    gpu_check(gpu.alloc(&dxx, rc), "cuMemAlloc") || gpu_check(gpu.alloc(&dw, sizeof w), "cuMemAlloc") ||
	    gpu_check(gpu.alloc(&dmean, sizeof mean), "cuMemAlloc") || gpu_check(gpu.alloc(&drstd, sizeof rstd), "cuMemAlloc") ||
	    gpu_check(gpu.alloc(&dlock, sizeof lock), "cuMemAlloc") || gpu_check(gpu.htod(ddy, dy, rc), "cuMemcpyHtoD") ||
	    gpu_check(gpu.htod(dxx, x, rc), "cuMemcpyHtoD") || gpu_check(gpu.htod(ddw, db, gc), "cuMemcpyHtoD") ||
	    gpu_check(gpu.htod(ddb, db, gc), "cuMemcpyHtoD") || gpu_check(gpu.htod(dw, w, sizeof w), "cuMemcpyHtoD") ||
	    gpu_check(gpu.htod(dmean, mean, sizeof mean), "cuMemcpyHtoD") ||
	    gpu_check(gpu.htod(drstd, rstd, sizeof rstd), "cuMemcpyHtoD") ||
	    gpu_check(gpu.htod(dlock, lock, sizeof lock), "cuMemcpyHtoD"))
		return 1;
	tile_status st = race_lock(NULL, R, 1, 1, ddx, ddy, ddw, ddb, dxx, dw, dmean, drstd, dlock, C, C);
	if (st != TILE_SUCCESS) {
		fprintf(stderr, "race_lock: %s: %s\n", tile_status_string(st), tile_last_error());
		return 1;
	}
	if (gpu_check(gpu.sync(), "cuCtxSynchronize") || gpu_check(gpu.dtoh(db, ddb, gc), "cuMemcpyDtoH") ||
	    gpu_check(gpu.dtoh(lock, dlock, sizeof lock), "cuMemcpyDtoH"))
		return 1;
	for (int c = 0; c < C; c++) {
		double want = 0, got = 0;
		for (int r = 0; r < R; r++)
			want += dy[r * C + c];
		for (int g = 0; g < G; g++)
			got += db[g * C + c];
		bad += fabs(got - want) > 1e-3 * (1 + fabs(want));
	}
	for (int g = 0; g < G; g++)
		bad += lock[g] != 0 || lock[G + g] != 1;
	printf("racecheck: spin-locked partial sums right, locks free: %s\n", bad ? "NO" : "yes");
	gpu.free(ddx), gpu.free(ddy), gpu.free(ddw), gpu.free(ddb), gpu.free(dxx);
	gpu.free(dw), gpu.free(dmean), gpu.free(drstd), gpu.free(dlock);
	free(dy);
	free(x);
	free(db);
	return bad != 0;
}

int main(void)
{
	char why[128];
	if (gpu_open(why, sizeof why) != 0) {
		printf("racecheck: no GPU (%s)\n", why);
		return 1;
	}
	size_t bytes = sizeof(float) * M * N;
	float *x = malloc(bytes), *y = malloc(bytes), col[N];
	gpu_ptr dx = 0, dy = 0, dcol = 0;
	int bad = 0;
	if (!x || !y)
		return 1;
	for (int i = 0; i < M * N; i++)
		x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
	if (gpu_check(gpu.alloc(&dx, bytes), "cuMemAlloc") || gpu_check(gpu.alloc(&dy, bytes), "cuMemAlloc") ||
	    gpu_check(gpu.alloc(&dcol, sizeof col), "cuMemAlloc") || gpu_check(gpu.htod(dx, x, bytes), "cuMemcpyHtoD"))
		return 1;
	tile_status st = race_softmax(NULL, M, 1, 1, dy, dx, N, N, N);
	if (st == TILE_SUCCESS)
		st = race_colsum(NULL, dx, dcol, M, N, N);
	if (st != TILE_SUCCESS) {
		fprintf(stderr, "launch: %s: %s\n", tile_status_string(st), tile_last_error());
		return 1;
	}
	if (gpu_check(gpu.sync(), "cuCtxSynchronize") || gpu_check(gpu.dtoh(y, dy, bytes), "cuMemcpyDtoH") ||
	    gpu_check(gpu.dtoh(col, dcol, sizeof col), "cuMemcpyDtoH"))
		return 1;
	for (int r = 0; r < M; r++) {
		double s = 0;
		for (int c = 0; c < N; c++)
			s += y[r * N + c];
		bad += fabs(s - 1.0) > 1e-4;
	}
	for (int c = 0; c < N; c++) {
		double s = 0;
		for (int r = 0; r < M; r++)
			s += x[r * N + c];
		bad += fabs(s - col[c]) > 1e-3 * (1 + fabs(s));
	}
	printf("racecheck: softmax rows sum to 1, column sums right: %s\n", bad ? "NO" : "yes");
	bad += check_matmul();
	bad += check_attention();
	bad += check_tma_matmul();
	bad += check_tickets();
	bad += check_histogram();
	bad += check_spin_lock();
	gpu.free(dx);
	gpu.free(dy);
	gpu.free(dcol);
	race_unload();
	free(x);
	free(y);
	return bad != 0;
}
