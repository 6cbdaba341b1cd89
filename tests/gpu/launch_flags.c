/* launch_flags.c - tile_launch_ex's flags on the GPU.
 *
 * 1. TILE_LAUNCH_PDL: tests/gpu/kernels/pdl.py's kernel (Triton's tutorial
 *    11: gdc_wait before its loads, gdc_launch_dependents after them) in a
 *    chain of 400 launches where each reads what the one before wrote: a +
 *    y into b, then b + y into a, and so on, all through the generated
 *    pdl_add_kernel_pdl, so each kernel may start while the one before
 *    still runs. The result must be exactly a0 + 400 y (small integers in
 *    fp32), element by element, as the same chain through the ordinary
 *    launcher gives; a gdc_wait that did not wait would read a
 *    half-written buffer somewhere among 4M elements and 400 launches.
 *    Prints the time of both chains.
 * 2. TILE_LAUNCH_COOPERATIVE: tests/gpu/kernels/grid_sync.py's kernel, whose
 *    programs wait for one another at a barrier made of atomics, launched
 *    cooperatively (tile_launch_ex on the module) with one program per SM
 *    and with four: every program must write the total of all programs'
 *    sums. With 64 programs per SM, more than the GPU holds at once, the
 *    launch must fail with the driver's CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
 *    rather than hang.
 * 3. Thread block clusters: tests/gpu/kernels/cluster_ids.ptx packed with
 *    `tilec pack --cluster 2` (cluster.c), launched over G clusters: the
 *    loader launches 2G blocks in clusters of 2 (cuLaunchKernelEx), and
 *    every block must report its rank (b % 2), its cluster (b / 2), a
 *    cluster of 2 blocks, and the id of the other block of its cluster,
 *    which that block wrote into this one's shared memory through the
 *    cluster's distributed shared memory. Nothing past the 2G blocks may
 *    be written. Needs compute capability 9.0 or newer.
 * The exit status is non-zero on any failure. Built by tests/gpu/soak.sh
 * with the generated C from tests/gpu/soak_prepare.sh (flags.c, cluster.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TILE_IMPLEMENTATION
#include "tile.h"
#include "cluster.h"
#include "flags.h"

#define TEST_DRIVER(X) \
	X(cuInit, (unsigned int)) \
	X(cuDeviceGet, (int *, int)) \
	X(cuDeviceGetAttribute, (int *, int, int)) \
	X(cuDevicePrimaryCtxRetain, (void **, int)) \
	X(cuDevicePrimaryCtxRelease_v2, (int)) \
	X(cuCtxSetCurrent, (void *)) \
	X(cuMemAlloc_v2, (CUdeviceptr *, size_t)) \
	X(cuMemFree_v2, (CUdeviceptr)) \
	X(cuMemcpyHtoD_v2, (CUdeviceptr, const void *, size_t)) \
	X(cuMemcpyDtoH_v2, (void *, CUdeviceptr, size_t)) \
	X(cuMemsetD32_v2, (CUdeviceptr, unsigned int, size_t)) \
	X(cuStreamCreate, (void **, unsigned int)) \
	X(cuStreamDestroy_v2, (void *)) \
	X(cuStreamSynchronize, (void *)) \
	X(cuGetErrorName, (CUresult, const char **))

#define TEST_NAME "launch_flags"
#include "test_driver.h"

enum { N = 1 << 22, LAUNCHES = 400, GRID_BLOCK = 1024, GRID_MAX = 1024, CLUSTERS = 1000 };

/* 3: the clusters' report (5 words a block, 2 blocks a cluster); returns
 * the number of wrong words. */
static int check_clusters(const int32_t *o, int clusters)
{
	int b, wrong = 0;
	for (b = 0; b < 2 * clusters; b++) {
		const int32_t *w = o + 5 * b, want[5] = {b, b % 2, b / 2, 2, b ^ 1};
		int j;
		for (j = 0; j < 5; j++)
			if (w[j] != want[j] && wrong++ < 5)
				printf("FAIL clusters: block %d word %d: %d, wanted %d\n", b, j, w[j], want[j]);
	}
	for (b = 10 * clusters; b < 10 * clusters + 10; b++)
		if (o[b] != -1 && wrong++ < 5)
			printf("FAIL clusters: word %d past the last block written (%d)\n", b, o[b]);
	return wrong;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float a_init(int i) { return (float)(i % 1000 - 500); }
static float y_init(int i) { return (float)(i % 7 - 3); }
static int32_t x_init(int i) { return i % 100 - 40; }

/* The chain from a0 through `launch` (the PDL launcher or the ordinary
 * one); the result left in host[]. Returns the seconds the chain took. */
static double chain(void *stream, CUdeviceptr a, CUdeviceptr b, CUdeviceptr y, float *host, int pdl)
{
	int i;
	double t;
	for (i = 0; i < N; i++)
		host[i] = a_init(i);
	CU(cuMemcpyHtoD_v2(a, host, (size_t)N * sizeof(float)));
	CU(cuStreamSynchronize(stream));
	t = now();
	for (i = 0; i < LAUNCHES; i++) {
		CUdeviceptr in = i % 2 ? b : a, out = i % 2 ? a : b;
		tile_status st = pdl ? pdl_add_kernel_pdl((tile_stream)stream, in, y, out, N)
				     : pdl_add_kernel((tile_stream)stream, in, y, out, N);
		if (st != TILE_SUCCESS) {
			fprintf(stderr, "launch_flags: launch %d: %s: %s\n", i, tile_status_string(st), tile_last_error());
			exit(2);
		}
	}
	CU(cuStreamSynchronize(stream));
	t = now() - t;
	CU(cuMemcpyDtoH_v2(host, LAUNCHES % 2 ? b : a, (size_t)N * sizeof(float)));
	return t;
}

static int check(const float *got, const char *what)
{
	int i, bad = 0;
	for (i = 0; i < N; i++) {
		float want = a_init(i) + (float)LAUNCHES * y_init(i);
		if (got[i] != want && bad++ < 5)
			printf("FAIL %s: element %d is %g, not %g\n", what, i, (double)got[i], (double)want);
	}
	return bad;
}

/* Part 2: the grid-wide sum with `programs` programs, cooperatively;
 * returns the launch's status, and counts wrong totals in *bad. */
static tile_status grid_sum(void *stream, CUdeviceptr x, CUdeviceptr partial, CUdeviceptr count, CUdeviceptr out,
			    uint32_t programs, int *bad)
{
	tile_module *m;
	int k, n = N;
	uint32_t grid[3] = {programs, 1, 1}, i;
	void *args[5] = {&x, &partial, &count, &out, &n};
	tile_status st = flags_module(&m);
	static int32_t got[GRID_MAX];
	int64_t want = 0;
	if (st != TILE_SUCCESS || (k = tile_kernel_index(m, "grid_sum_kernel")) < 0)
		return st != TILE_SUCCESS ? st : TILE_ERROR_INVALID_ARGUMENT;
	CU(cuMemsetD32_v2(count, 0, 1));
	CU(cuMemsetD32_v2(out, 0, GRID_MAX));
	st = tile_launch_ex(m, k, -1, grid, (tile_stream)stream, args, 5, TILE_LAUNCH_COOPERATIVE);
	if (st != TILE_SUCCESS)
		return st;
	CU(cuStreamSynchronize(stream));
	CU(cuMemcpyDtoH_v2(got, out, programs * sizeof(int32_t)));
	for (i = 0; i < programs * GRID_BLOCK && i < (uint32_t)N; i++)
		want += x_init((int)i);
	for (i = 0; i < programs; i++)
		if (got[i] != (int32_t)want && (*bad)++ < 5)
			printf("FAIL cooperative, %u programs: program %u wrote %d, not %lld\n", programs, i, got[i], (long long)want);
	return TILE_SUCCESS;
}

int main(void)
{
	void *ctx = NULL, *stream = NULL;
	CUdeviceptr a, b, y, x, partial, count, out;
	int dev, major = 0, minor = 0, sms = 0, i, failures = 0, bad = 0;
	float *host = malloc((size_t)N * sizeof(float));
	int32_t *xi = malloc((size_t)N * sizeof(int32_t));
	double t_pdl, t_plain;
	tile_status st;
	if (!host || !xi) {
		fprintf(stderr, "launch_flags: out of memory\n");
		return 2;
	}
	test_driver_load("libcuda.so.1");
	CU(cuInit(0));
	CU(cuDeviceGet(&dev, 0));
	CU(cuDeviceGetAttribute(&major, 75, dev));
	CU(cuDeviceGetAttribute(&minor, 76, dev));
	CU(cuDeviceGetAttribute(&sms, 16, dev)); /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
	CU(cuDevicePrimaryCtxRetain(&ctx, dev));
	CU(cuCtxSetCurrent(ctx));
	CU(cuStreamCreate(&stream, 1)); /* non-blocking: nothing else orders the chain */

	/* 1. programmatic dependent launch */
	CU(cuMemAlloc_v2(&a, (size_t)N * sizeof(float)));
	CU(cuMemAlloc_v2(&b, (size_t)N * sizeof(float)));
	CU(cuMemAlloc_v2(&y, (size_t)N * sizeof(float)));
	for (i = 0; i < N; i++)
		host[i] = y_init(i);
	CU(cuMemcpyHtoD_v2(y, host, (size_t)N * sizeof(float)));
	chain(stream, a, b, y, host, 1); /* loads the module, warms up */
	t_plain = chain(stream, a, b, y, host, 0);
	failures += check(host, "ordinary launches") != 0;
	t_pdl = chain(stream, a, b, y, host, 1);
	failures += check(host, "programmatic dependent launches") != 0;
	printf("launch_flags: compute capability %d.%d, %d dependent launches over %d elements: %.1f us each with "
	       "TILE_LAUNCH_PDL, %.1f us without\n",
	       major, minor, LAUNCHES, N, 1e6 * t_pdl / LAUNCHES, 1e6 * t_plain / LAUNCHES);
	CU(cuMemFree_v2(a));
	CU(cuMemFree_v2(b));
	CU(cuMemFree_v2(y));

	/* 2. cooperative launch */
	CU(cuMemAlloc_v2(&x, (size_t)N * sizeof(int32_t)));
	CU(cuMemAlloc_v2(&partial, GRID_MAX * sizeof(int32_t)));
	CU(cuMemAlloc_v2(&count, sizeof(int32_t)));
	CU(cuMemAlloc_v2(&out, GRID_MAX * sizeof(int32_t)));
	for (i = 0; i < N; i++)
		xi[i] = x_init(i);
	CU(cuMemcpyHtoD_v2(x, xi, (size_t)N * sizeof(int32_t)));
	if (sms < 1 || 4 * sms > GRID_MAX) {
		printf("FAIL cooperative: %d SMs\n", sms);
		failures++;
	} else {
		for (i = 1; i <= 4; i *= 4) {
			st = grid_sum(stream, x, partial, count, out, (uint32_t)(i * sms), &bad);
			if (st != TILE_SUCCESS) {
				printf("FAIL cooperative, %d programs: %s: %s\n", i * sms, tile_status_string(st), tile_last_error());
				failures++;
			}
		}
		failures += bad != 0;
		st = grid_sum(stream, x, partial, count, out, (uint32_t)(64 * sms), &bad);
		if (st != TILE_ERROR_CUDA || !strstr(tile_last_error(), "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE")) {
			printf("FAIL cooperative, %d programs: %s: %s (wanted CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)\n",
			       64 * sms, tile_status_string(st), st == TILE_SUCCESS ? "" : tile_last_error());
			failures++;
		} else {
			printf("launch_flags: cooperative grid-wide sums over %d and %d programs correct; %d programs "
			       "refused: %s\n", sms, 4 * sms, 64 * sms, tile_last_error());
		}
	}
	CU(cuMemFree_v2(x));
	CU(cuMemFree_v2(partial));
	CU(cuMemFree_v2(count));
	CU(cuMemFree_v2(out));

	/* 3. thread block clusters */
	if (major >= 9) {
		size_t words = 10 * CLUSTERS + 10;
		int wrong;
		CU(cuMemAlloc_v2(&out, words * sizeof(int32_t)));
		CU(cuMemsetD32_v2(out, 0xffffffffu, words));
		st = cluster_ids((tile_stream)stream, CLUSTERS, 1, 1, out);
		if (st != TILE_SUCCESS) {
			printf("FAIL clusters: %s: %s\n", tile_status_string(st), tile_last_error());
			failures++;
		} else {
			CU(cuStreamSynchronize(stream));
			CU(cuMemcpyDtoH_v2(xi, out, words * sizeof(int32_t)));
			wrong = check_clusters(xi, CLUSTERS);
			failures += wrong != 0;
			if (!wrong)
				printf("launch_flags: clusters of 2 over %d clusters (%d blocks): ranks, cluster ids and "
				       "distributed shared memory correct\n", CLUSTERS, 2 * CLUSTERS);
		}
		CU(cuMemFree_v2(out));
	} else {
		printf("launch_flags: clusters not run: compute capability %d.%d has none\n", major, minor);
	}
	CU(cuStreamDestroy_v2(stream));
	cluster_unload();
	flags_unload();
	CU(cuDevicePrimaryCtxRelease_v2(dev));
	free(host);
	free(xi);
	printf("launch_flags: %s\n", failures ? "FAILED" : "all correct");
	return failures != 0;
}
