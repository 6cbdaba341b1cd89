/* soak.c - the loader under load: many threads, several devices and
 * contexts, many streams, lazy first loads racing, results checked.
 *
 * T threads (--threads, 64) each run N iterations (--launches, 100000); an
 * iteration launches three kernels from two blobs (soak_inc and soak_axpy
 * of soak_a, soak_acc of soak_b; tests/gpu/soak_ops.py, soak_acc.py)
 * through their generated launch functions. A "place" is a context of a
 * device: the primary context of each of the D devices (--devices, all by
 * default), reached as a thread without a context that names the device
 * with tile_set_device, plus C - 1 contexts per device (--contexts, 2)
 * the program creates and makes current itself. Each thread moves to
 * another place every 8 iterations and alternates between two streams of
 * each place, so the first launches of both modules race in every context
 * at the start (all threads leave a barrier together). Every thread has
 * its own buffers in every place; the kernels only add, atomically, so the
 * results do not depend on the order of streams: after the run, in every
 * place, p[i] = k, y[i] = y0[i] + a * x[i] * k and counter = k, where k is
 * the number of iterations the thread ran there.
 *
 * The same loop then runs again with cuLaunchKernel straight on a
 * function loaded from PTX (soak_raw_inc below, three launches an
 * iteration into a buffer r: r[i] = 3k), the raw driver's figure in the
 * same run. Printed: launches per second of both, statuses other than
 * TILE_SUCCESS (goal 0), mismatched values; the exit status is non-zero on
 * any error or mismatch.
 *
 * The driver library is SOAK_LIBCUDA (default libcuda.so.1), for tile.h
 * and for the program's own calls: tests/test_loader_fake.sh runs this
 * program under ThreadSanitizer against the fake driver
 * (tests/fake_cuda/fake_cuda.c), which runs the three kernels on the host,
 * with kernels packed from fake PTX by tests/gpu/soak_fake.sh. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *soak_library(void)
{
	const char *p = getenv("SOAK_LIBCUDA");
	return p && *p ? p : "libcuda.so.1";
}

#define TILE_LIBCUDA_NAME soak_library()
#define TILE_IMPLEMENTATION
#include "tile.h"
#include "soak_a.h"
#include "soak_b.h"

/* The driver entry points the program calls itself. */
#define TEST_DRIVER(X) \
	X(cuInit, (unsigned int)) \
	X(cuDeviceGetCount, (int *)) \
	X(cuDeviceGet, (int *, int)) \
	X(cuDevicePrimaryCtxRetain, (void **, int)) \
	X(cuDevicePrimaryCtxRelease_v2, (int)) \
	X(cuCtxCreate_v2, (void **, unsigned int, int)) \
	X(cuCtxDestroy_v2, (void *)) \
	X(cuCtxSetCurrent, (void *)) \
	X(cuMemAlloc_v2, (CUdeviceptr *, size_t)) \
	X(cuMemFree_v2, (CUdeviceptr)) \
	X(cuMemcpyHtoD_v2, (CUdeviceptr, const void *, size_t)) \
	X(cuMemcpyDtoH_v2, (void *, CUdeviceptr, size_t)) \
	X(cuStreamCreate, (void **, unsigned int)) \
	X(cuStreamDestroy_v2, (void *)) \
	X(cuStreamSynchronize, (void *)) \
	X(cuModuleLoadData, (void **, const void *)) \
	X(cuModuleUnload, (void *)) \
	X(cuModuleGetFunction, (void **, void *, const char *)) \
	X(cuLaunchKernel, (void *, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, \
			   unsigned int, void *, void **, void **)) \
	X(cuGetErrorName, (CUresult, const char **))

#define TEST_NAME "soak"
#include "test_driver.h"

/* The raw baseline's kernel: r[i] += 1 for i < n (one thread per element).
 * The first line is a comment for the GPU and what the fake driver reads. */
static const char raw_ptx[] =
	"// FAKE ptx compute_80: soak_raw_inc \n"
	".version 7.0\n"
	".target sm_70\n"
	".address_size 64\n"
	".visible .entry soak_raw_inc(.param .u64 p, .param .u32 n)\n"
	"{\n"
	"	.reg .pred %q<2>;\n"
	"	.reg .b32 %r<8>;\n"
	"	.reg .b64 %rd<5>;\n"
	"	ld.param.u64 %rd1, [p];\n"
	"	ld.param.u32 %r1, [n];\n"
	"	mov.u32 %r2, %ctaid.x;\n"
	"	mov.u32 %r3, %ntid.x;\n"
	"	mov.u32 %r4, %tid.x;\n"
	"	mad.lo.s32 %r5, %r2, %r3, %r4;\n"
	"	setp.ge.s32 %q1, %r5, %r1;\n"
	"	@%q1 bra DONE;\n"
	"	cvta.to.global.u64 %rd2, %rd1;\n"
	"	mul.wide.s32 %rd3, %r5, 4;\n"
	"	add.s64 %rd4, %rd2, %rd3;\n"
	"	red.global.add.u32 [%rd4], 1;\n"
	"DONE:\n"
	"	ret;\n"
	"}\n";

enum { N_STREAMS = 2, SWITCH_EVERY = 8, RAW_BLOCK = 256 };

typedef struct place {
	int device;      /* ordinal */
	int primary;     /* reached through tile_set_device */
	void *ctx;
	void *raw_module, *raw_func;
} place;

typedef struct buffers {
	CUdeviceptr p, x, y, counter, r;
	void *streams[N_STREAMS];
	long long iterations, raw_iterations;
} buffers;

static int n_threads = 64, n_devices, n_contexts = 2, n_places, n_elems = 1000;
static long long n_launches = 100000;
static place *places;
static buffers *bufs; /* [thread][place] */
static pthread_barrier_t barrier;
static long long errors;
static char first_error[4800];
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;

static int32_t x_init(int i) { return i % 7 - 3; }
static int32_t y_init(int i) { return 1000 + i; }
static int32_t axpy_a(int place_index) { return place_index + 1; }

static void record(tile_status st, const char *what)
{
	if (st == TILE_SUCCESS)
		return;
	pthread_mutex_lock(&error_lock);
	if (!errors++)
		snprintf(first_error, sizeof first_error, "%s: %s: %s", what, tile_status_string(st), tile_last_error());
	pthread_mutex_unlock(&error_lock);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Makes place pl the one this thread's launches go to. */
static void enter(int pl, int raw)
{
	if (places[pl].primary && !raw) {
		CU(cuCtxSetCurrent(NULL));
		record(tile_set_device(places[pl].device), "tile_set_device");
	} else {
		CU(cuCtxSetCurrent(places[pl].ctx));
	}
}

static int place_of(int t, long long i) { return (int)((i / SWITCH_EVERY * 7 + t) % n_places); }

static void *tile_thread(void *arg)
{
	int t = (int)(size_t)arg, pl = -1, n = n_elems;
	long long i;
	pthread_barrier_wait(&barrier);
	for (i = 0; i < n_launches; i++) {
		int next = place_of(t, i);
		buffers *b;
		void *stream;
		if (next != pl)
			enter(pl = next, 0);
		b = &bufs[t * n_places + pl];
		stream = b->streams[(i / 2) % N_STREAMS];
		record(soak_inc((tile_stream)stream, b->p, n), "soak_inc");
		record(soak_axpy((tile_stream)stream, b->x, b->y, n, axpy_a(pl)), "soak_axpy");
		record(soak_acc((tile_stream)stream, b->counter, 1), "soak_acc");
		b->iterations++;
	}
	for (pl = 0; pl < n_places; pl++) {
		enter(pl, 1);
		for (i = 0; i < N_STREAMS; i++)
			CU(cuStreamSynchronize(bufs[t * n_places + pl].streams[i]));
	}
	CU(cuCtxSetCurrent(NULL));
	pthread_barrier_wait(&barrier);
	return NULL;
}

static void *raw_thread(void *arg)
{
	int t = (int)(size_t)arg, pl = -1, n = n_elems, k;
	unsigned int grid = (unsigned int)((n_elems + RAW_BLOCK - 1) / RAW_BLOCK);
	long long i;
	pthread_barrier_wait(&barrier);
	for (i = 0; i < n_launches; i++) {
		int next = place_of(t, i);
		buffers *b;
		void *stream, *params[2];
		if (next != pl)
			enter(pl = next, 1);
		b = &bufs[t * n_places + pl];
		stream = b->streams[(i / 2) % N_STREAMS];
		params[0] = &b->r;
		params[1] = &n;
		for (k = 0; k < 3; k++) {
			CUresult r = cu.cuLaunchKernel(places[pl].raw_func, grid, 1, 1, RAW_BLOCK, 1, 1, 0, stream, params, NULL);
			if (r)
				die("cuLaunchKernel", r);
		}
		b->raw_iterations++;
	}
	for (pl = 0; pl < n_places; pl++) {
		enter(pl, 1);
		for (i = 0; i < N_STREAMS; i++)
			CU(cuStreamSynchronize(bufs[t * n_places + pl].streams[i]));
	}
	CU(cuCtxSetCurrent(NULL));
	pthread_barrier_wait(&barrier);
	return NULL;
}

/* Runs fn on every thread; the seconds from the barrier to the last
 * thread's synchronized streams. */
static double run_phase(void *(*fn)(void *))
{
	pthread_t *th = malloc(sizeof *th * (size_t)n_threads);
	double t0, t1;
	int t;
	for (t = 0; t < n_threads; t++)
		if (pthread_create(&th[t], NULL, fn, (void *)(size_t)t) != 0) {
			fprintf(stderr, "soak: pthread_create failed\n");
			exit(2);
		}
	pthread_barrier_wait(&barrier);
	t0 = now();
	pthread_barrier_wait(&barrier);
	t1 = now();
	for (t = 0; t < n_threads; t++)
		pthread_join(th[t], NULL);
	free(th);
	return t1 - t0;
}

static long long check(void)
{
	int32_t *p = malloc(sizeof(int32_t) * (size_t)n_elems), *y = malloc(sizeof(int32_t) * (size_t)n_elems),
		*r = malloc(sizeof(int32_t) * (size_t)n_elems), counter;
	long long bad = 0;
	int t, pl, i;
	for (t = 0; t < n_threads; t++)
		for (pl = 0; pl < n_places; pl++) {
			buffers *b = &bufs[t * n_places + pl];
			int32_t k = (int32_t)b->iterations, kr = (int32_t)b->raw_iterations;
			long long before = bad;
			CU(cuCtxSetCurrent(places[pl].ctx));
			CU(cuMemcpyDtoH_v2(p, b->p, sizeof(int32_t) * (size_t)n_elems));
			CU(cuMemcpyDtoH_v2(y, b->y, sizeof(int32_t) * (size_t)n_elems));
			CU(cuMemcpyDtoH_v2(r, b->r, sizeof(int32_t) * (size_t)n_elems));
			CU(cuMemcpyDtoH_v2(&counter, b->counter, sizeof counter));
			for (i = 0; i < n_elems; i++) {
				bad += p[i] != k;
				bad += y[i] != (int32_t)(y_init(i) + (long long)axpy_a(pl) * x_init(i) * k);
				bad += r[i] != 3 * kr;
			}
			bad += counter != k;
			if (bad != before && before == 0)
				fprintf(stderr, "soak: thread %d place %d: p[0] %d y[0] %d counter %d r[0] %d; want %d %d %d %d\n", t, pl,
					p[0], y[0], counter, r[0], k, (int32_t)(y_init(0) + (long long)axpy_a(pl) * x_init(0) * k), k, 3 * kr);
		}
	free(p);
	free(y);
	free(r);
	return bad;
}

static void setup(void)
{
	int d, c, t, pl, i, count = 0;
	int32_t *init = malloc(sizeof(int32_t) * (size_t)n_elems);
	test_driver_load(soak_library());
	CU(cuInit(0));
	CU(cuDeviceGetCount(&count));
	if (count < 1) {
		fprintf(stderr, "soak: no device\n");
		exit(2);
	}
	if (!n_devices || n_devices > count)
		n_devices = count;
	n_places = n_devices * n_contexts;
	places = calloc((size_t)n_places, sizeof *places);
	bufs = calloc((size_t)(n_threads * n_places), sizeof *bufs);
	for (d = 0; d < n_devices; d++)
		for (c = 0; c < n_contexts; c++) {
			place *p = &places[d * n_contexts + c];
			int dev;
			CU(cuDeviceGet(&dev, d));
			p->device = d;
			p->primary = c == 0;
			if (p->primary) {
				/* the program's own reference, for its memory */
				CU(cuDevicePrimaryCtxRetain(&p->ctx, dev));
				CU(cuCtxSetCurrent(p->ctx));
			} else {
				CU(cuCtxCreate_v2(&p->ctx, 0, dev));
			}
			CU(cuModuleLoadData(&p->raw_module, raw_ptx));
			CU(cuModuleGetFunction(&p->raw_func, p->raw_module, "soak_raw_inc"));
		}
	for (pl = 0; pl < n_places; pl++) {
		CU(cuCtxSetCurrent(places[pl].ctx));
		for (t = 0; t < n_threads; t++) {
			buffers *b = &bufs[t * n_places + pl];
			size_t size = sizeof(int32_t) * (size_t)n_elems;
			CU(cuMemAlloc_v2(&b->p, size));
			CU(cuMemAlloc_v2(&b->x, size));
			CU(cuMemAlloc_v2(&b->y, size));
			CU(cuMemAlloc_v2(&b->r, size));
			CU(cuMemAlloc_v2(&b->counter, sizeof(int32_t)));
			memset(init, 0, size);
			CU(cuMemcpyHtoD_v2(b->p, init, size));
			CU(cuMemcpyHtoD_v2(b->r, init, size));
			CU(cuMemcpyHtoD_v2(b->counter, init, sizeof(int32_t)));
			for (i = 0; i < n_elems; i++)
				init[i] = x_init(i);
			CU(cuMemcpyHtoD_v2(b->x, init, size));
			for (i = 0; i < n_elems; i++)
				init[i] = y_init(i);
			CU(cuMemcpyHtoD_v2(b->y, init, size));
			for (i = 0; i < N_STREAMS; i++)
				CU(cuStreamCreate(&b->streams[i], 1 /* CU_STREAM_NON_BLOCKING */));
		}
	}
	CU(cuCtxSetCurrent(NULL));
	free(init);
}

static void teardown(void)
{
	int t, pl, i;
	/* the modules go first: tile.h's slots still name these contexts */
	soak_a_unload();
	soak_b_unload();
	for (pl = 0; pl < n_places; pl++) {
		CU(cuCtxSetCurrent(places[pl].ctx));
		for (t = 0; t < n_threads; t++) {
			buffers *b = &bufs[t * n_places + pl];
			for (i = 0; i < N_STREAMS; i++)
				CU(cuStreamDestroy_v2(b->streams[i]));
			CU(cuMemFree_v2(b->p));
			CU(cuMemFree_v2(b->x));
			CU(cuMemFree_v2(b->y));
			CU(cuMemFree_v2(b->r));
			CU(cuMemFree_v2(b->counter));
		}
		CU(cuModuleUnload(places[pl].raw_module));
	}
	CU(cuCtxSetCurrent(NULL));
	for (pl = 0; pl < n_places; pl++) {
		if (places[pl].primary)
			CU(cuDevicePrimaryCtxRelease_v2(places[pl].device));
		else
			CU(cuCtxDestroy_v2(places[pl].ctx));
	}
	free(places);
	free(bufs);
}

int main(int argc, char **argv)
{
	double tile_s, raw_s;
	long long total, bad;
	int i;
	for (i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--threads") == 0)
			n_threads = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--launches") == 0)
			n_launches = atoll(argv[i + 1]);
		else if (strcmp(argv[i], "--devices") == 0)
			n_devices = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--contexts") == 0)
			n_contexts = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--elems") == 0)
			n_elems = atoi(argv[i + 1]);
		else
			break;
	}
	if (i < argc || n_threads < 1 || n_launches < 1 || n_contexts < 1 || n_elems < 1) {
		fprintf(stderr, "usage: soak [--threads T] [--launches N] [--devices D] [--contexts C] [--elems E]\n");
		return 2;
	}
	setup();
	pthread_barrier_init(&barrier, NULL, (unsigned)n_threads + 1);
	printf("soak: %d threads, %d device(s), %d context(s) per device, %lld iterations of 3 launches per thread, %d elements\n",
	       n_threads, n_devices, n_contexts, n_launches, n_elems);
	total = 3 * n_launches * n_threads;
	tile_s = run_phase(tile_thread);
	raw_s = run_phase(raw_thread);
	bad = check();
	printf("soak: tile.h     %lld launches in %.3f s: %.0f launches/s\n", total, tile_s, (double)total / tile_s);
	printf("soak: raw driver %lld launches in %.3f s: %.0f launches/s (tile/raw %.2f)\n", total, raw_s, (double)total / raw_s,
	       raw_s / tile_s);
	if (errors)
		printf("soak: first error: %s\n", first_error);
	teardown();
	pthread_barrier_destroy(&barrier);
	printf("soak: %lld errors, %lld wrong values: %s\n", errors, bad, errors || bad ? "FAIL" : "OK");
	return errors || bad ? 1 : 0;
}
