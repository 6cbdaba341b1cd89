/* pdl.c - programmatic dependent launch (TILE_LAUNCH_PDL) on the GPU.
 *
 * tests/gpu/kernels/pdl.py's kernel (Triton's tutorial 11: gdc_wait before
 * its loads, gdc_launch_dependents after them) in a chain of 400 launches
 * where each reads what the one before wrote: a = a + y into b, then
 * b + y into a, and so on, all through the generated pdl_add_kernel_pdl,
 * so each kernel may start while the one before still runs. The result
 * must be exactly a0 + 400 y (small integers in fp32), element by element,
 * as the same chain through the ordinary launcher gives; a gdc_wait that
 * did not wait would read a half-written buffer somewhere among 4M
 * elements and 400 launches. Prints the time of both chains. The exit
 * status is non-zero on any failure. Built by tests/gpu/soak.sh with the
 * generated C from tests/gpu/soak_prepare.sh. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TILE_IMPLEMENTATION
#include "tile.h"
#include "pdl.h"

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

#define PDL_DRIVER(X) \
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
	X(cuStreamCreate, (void **, unsigned int)) \
	X(cuStreamDestroy_v2, (void *)) \
	X(cuStreamSynchronize, (void *)) \
	X(cuGetErrorName, (CUresult, const char **))

static struct {
#define PDL_FIELD(name, params) CUresult(*name) params;
	PDL_DRIVER(PDL_FIELD)
#undef PDL_FIELD
} cu;

static void die(const char *what, CUresult r)
{
	const char *name = NULL;
	if (cu.cuGetErrorName)
		cu.cuGetErrorName(r, &name);
	fprintf(stderr, "pdl: %s: %s (%d)\n", what, name ? name : "?", r);
	exit(2);
}

#define CU(call) \
	do { \
		CUresult r_ = cu.call; \
		if (r_) \
			die(#call, r_); \
	} while (0)

enum { N = 1 << 22, LAUNCHES = 400 };

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float a_init(int i) { return (float)(i % 1000 - 500); }
static float y_init(int i) { return (float)(i % 7 - 3); }

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
			fprintf(stderr, "pdl: launch %d: %s: %s\n", i, tile_status_string(st), tile_last_error());
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

int main(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), *ctx = NULL, *stream = NULL;
	CUdeviceptr a, b, y;
	int dev, major = 0, minor = 0, i, failures = 0;
	float *host = malloc((size_t)N * sizeof(float));
	double t_pdl, t_plain;
	if (!lib || !host) {
		fprintf(stderr, "pdl: no libcuda.so.1 or no memory\n");
		return 2;
	}
#define PDL_LOAD(name, params) \
	if (!(*(void **)&cu.name = dlsym(lib, #name))) { \
		fprintf(stderr, "pdl: libcuda has no %s\n", #name); \
		return 2; \
	}
	PDL_DRIVER(PDL_LOAD)
#undef PDL_LOAD
	CU(cuInit(0));
	CU(cuDeviceGet(&dev, 0));
	CU(cuDeviceGetAttribute(&major, 75, dev));
	CU(cuDeviceGetAttribute(&minor, 76, dev));
	CU(cuDevicePrimaryCtxRetain(&ctx, dev));
	CU(cuCtxSetCurrent(ctx));
	CU(cuStreamCreate(&stream, 1)); /* non-blocking: nothing else orders the chain */
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
	printf("pdl: compute capability %d.%d, %d dependent launches over %d elements: %.1f us each with "
	       "TILE_LAUNCH_PDL, %.1f us without\n",
	       major, minor, LAUNCHES, N, 1e6 * t_pdl / LAUNCHES, 1e6 * t_plain / LAUNCHES);
	CU(cuMemFree_v2(a));
	CU(cuMemFree_v2(b));
	CU(cuMemFree_v2(y));
	CU(cuStreamDestroy_v2(stream));
	pdl_unload();
	CU(cuDevicePrimaryCtxRelease_v2(dev));
	free(host);
	printf("pdl: %s\n", failures ? "FAILED" : "all correct");
	return failures != 0;
}
