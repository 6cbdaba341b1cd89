/* vecadd_main.c - the runtime check of tile.h on a real GPU.
 *
 * A standalone program: tile.h plus the two files tilec pack generated from
 * the hand-written vecadd.ptx (vecadd.c: sm_80 and sm_90 cubins and PTX;
 * vecadd_ptx.c: PTX only). cuda.h is used only where the program acts as
 * the application (context, allocations, copies, synchronization) and for
 * the raw cuLaunchKernel the launch cost is compared with. Checks and
 * measures, in one run:
 *   - correct results against the CPU, for several sizes;
 *   - time from the first tile call (blob validation, driver open, inflate,
 *     module load, function lookup, launch) to the kernel's completion, the
 *     CUDA context already existing, and the validation and the load timed
 *     apart on a second module;
 *   - the PTX-only blob (driver JIT) gives the same results;
 *   - a thread with no current context launches (primary context of device 0);
 *   - every other device, each in its own context;
 *   - host time per launch: tile_launch, the generated wrapper, and raw
 *     cuLaunchKernel on the very same CUfunction, medians over 100k
 *     launches of a one-block grid, interleaved in batches;
 *   - blob size against the raw cubins and PTX;
 *   - unload, then use again.
 * Prints a table; exits non-zero when a check fails. */
#define TILE_IMPLEMENTATION
#include "tile.h"
#include "vecadd.h"
#include "vecadd_ptx.h"

#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;

#define CHECK_CU(call) \
	do { \
		CUresult r_ = (call); \
		if (r_ != CUDA_SUCCESS) { \
			const char *n_ = NULL; \
			cuGetErrorName(r_, &n_); \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, n_ ? n_ : "?"); \
			exit(2); \
		} \
	} while (0)

#define EXPECT(cond, ...) \
	do { \
		if (!(cond)) { \
			failures++; \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__); \
			fprintf(stderr, " (tile: %s)\n", tile_last_error()); \
		} \
	} while (0)

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static long file_size(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;
	long n;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n;
}

typedef struct buffers {
	int n;
	CUdeviceptr x, y, out;
	float *hx, *hy, *hout;
} buffers;

static void buffers_init(buffers *b, int n)
{
	int i;
	b->n = n;
	CHECK_CU(cuMemAlloc(&b->x, (size_t)n * 4 + 4));
	CHECK_CU(cuMemAlloc(&b->y, (size_t)n * 4 + 4));
	CHECK_CU(cuMemAlloc(&b->out, (size_t)n * 4 + 4));
	b->hx = (float *)malloc((size_t)n * 4 + 4);
	b->hy = (float *)malloc((size_t)n * 4 + 4);
	b->hout = (float *)malloc((size_t)n * 4 + 4);
	for (i = 0; i < n; i++) {
		b->hx[i] = (float)i * 0.5f;
		b->hy[i] = 1.0f - (float)(i % 1000) * 0.25f;
	}
	CHECK_CU(cuMemcpyHtoD(b->x, b->hx, (size_t)n * 4));
	CHECK_CU(cuMemcpyHtoD(b->y, b->hy, (size_t)n * 4));
}

static void buffers_free(buffers *b)
{
	cuMemFree(b->x);
	cuMemFree(b->y);
	cuMemFree(b->out);
	free(b->hx);
	free(b->hy);
	free(b->hout);
}

/* out == x + y on the first n elements; the element after is untouched. */
static int verify(buffers *b, int n, const char *what)
{
	int i, bad = 0;
	const float canary = -12345.0f;
	CHECK_CU(cuCtxSynchronize());
	CHECK_CU(cuMemcpyDtoH(b->hout, b->out, (size_t)n * 4 + 4));
	for (i = 0; i < n; i++)
		bad += b->hout[i] != b->hx[i] + b->hy[i];
	EXPECT(bad == 0, "%s: %d of %d elements wrong", what, bad, n);
	EXPECT(memcmp(&b->hout[n], &canary, 4) == 0, "%s: wrote past n (out[n] = %g, x[n-1] + y[n-1] = %g)", what,
	       (double)b->hout[n], (double)(b->hx[n - 1] + b->hy[n - 1]));
	return bad == 0;
}

static void clear_out(buffers *b)
{
	const float canary = -12345.0f;
	int i;
	for (i = 0; i <= b->n; i++)
		b->hout[i] = canary;
	CHECK_CU(cuMemcpyHtoD(b->out, b->hout, (size_t)b->n * 4 + 4));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

/* A thread that never set a context launches; tile.h makes the primary
 * context of device 0 current. */
static buffers *thread_buffers;
static tile_status thread_status;
static CUcontext thread_ctx;

static void *no_context_thread(void *arg)
{
	CUcontext before = NULL;
	(void)arg;
	cuCtxGetCurrent(&before);
	if (before != NULL) {
		thread_status = TILE_ERROR_INVALID_ARGUMENT;
		return NULL;
	}
	thread_status = vecadd(NULL, thread_buffers->x, thread_buffers->y, thread_buffers->out, thread_buffers->n);
	cuCtxGetCurrent(&thread_ctx);
	if (thread_status == TILE_SUCCESS)
		cuCtxSynchronize();
	return NULL;
}

#define BATCH 500
#define LAUNCHES 100000

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	char name[256];
	int major, minor, ndev, d, i;
	double t0, t_first_us, t_first_ptx_us, t_init_us, t_create_us = 0, t_load_us = 0;
	double *t_tile, *t_wrap, *t_raw, med_tile, med_wrap, med_raw;
	buffers b, small;
	tile_module *m = NULL, *mp = NULL;
	tile_image_info info;
	long raw_total = 0, sizes[3];
	size_t blob_bytes = 0, ptx_blob_bytes = 0;
	static const int check_sizes[] = {1, 255, 256, 257, 100000, (1 << 22) + 3};

	/* The application's part: driver and context, not counted. */
	t0 = now_us();
	CHECK_CU(cuInit(0));
	CHECK_CU(cuDeviceGet(&dev, 0));
	CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK_CU(cuCtxSetCurrent(ctx));
	t_init_us = now_us() - t0;
	CHECK_CU(cuDeviceGetName(name, sizeof name, dev));
	CHECK_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
	CHECK_CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
	CHECK_CU(cuDeviceGetCount(&ndev));
	printf("device 0: %s, sm_%d%d, %d device(s)\n", name, major, minor, ndev);
	buffers_init(&b, (1 << 22) + 3);
	clear_out(&b);
	CHECK_CU(cuCtxSynchronize());

	/* First use: lazy create + load + launch + completion. */
	t0 = now_us();
	EXPECT(vecadd(NULL, b.x, b.y, b.out, b.n) == TILE_SUCCESS, "first launch");
	CHECK_CU(cuCtxSynchronize());
	t_first_us = now_us() - t0;
	verify(&b, b.n, "first launch");

	/* The parts of a first use, on a second module of the same blob. */
	{
		tile_module *first = NULL, *again = NULL;
		EXPECT(vecadd_module(&first) == TILE_SUCCESS, "module");
		t0 = now_us();
		EXPECT(first && tile_module_create(first->blob, first->size, &again) == TILE_SUCCESS, "second module");
		t_create_us = now_us() - t0;
		t0 = now_us();
		EXPECT(again && tile_module_load(again) == TILE_SUCCESS, "load of the second module");
		t_load_us = now_us() - t0;
		tile_module_destroy(again);
	}

	for (i = 0; i < (int)(sizeof check_sizes / sizeof check_sizes[0]); i++) {
		char what[64];
		snprintf(what, sizeof what, "n = %d", check_sizes[i]);
		clear_out(&b);
		EXPECT(vecadd(NULL, b.x, b.y, b.out, check_sizes[i]) == TILE_SUCCESS, "%s", what);
		verify(&b, check_sizes[i], what);
	}
	clear_out(&b);
	EXPECT(vecadd(NULL, b.x, b.y, b.out, 0) == TILE_SUCCESS, "n = 0 is a no-op");
	verify(&b, 0, "n = 0");
	/* A pointer not divisible by 16: the only variant requires it. */
	EXPECT(vecadd(NULL, b.x + 4, b.y, b.out, 16) == TILE_ERROR_NO_VARIANT, "misaligned x refused");

	/* The PTX-only blob: the driver JITs it. */
	clear_out(&b);
	t0 = now_us();
	EXPECT(vecadd_ptx(NULL, b.x, b.y, b.out, b.n) == TILE_SUCCESS, "PTX-only launch");
	CHECK_CU(cuCtxSynchronize());
	t_first_ptx_us = now_us() - t0;
	verify(&b, b.n, "PTX-only blob");

	/* A thread without a context. */
	clear_out(&b);
	thread_buffers = &b;
	{
		pthread_t t;
		pthread_create(&t, NULL, no_context_thread, NULL);
		pthread_join(t, NULL);
	}
	EXPECT(thread_status == TILE_SUCCESS, "launch from a thread without a context: %s", tile_status_string(thread_status));
	EXPECT(thread_ctx == ctx, "the thread got the primary context of device 0");
	verify(&b, b.n, "thread without a context");

	/* Every other device, in its own primary context (released only after
	 * the unload below, which unloads the module from it). */
	for (d = 1; d < ndev && d < 16; d++) {
		CUdevice dd;
		CUcontext c;
		buffers bd;
		char what[64];
		snprintf(what, sizeof what, "device %d", d);
		CHECK_CU(cuDeviceGet(&dd, d));
		CHECK_CU(cuDevicePrimaryCtxRetain(&c, dd));
		CHECK_CU(cuCtxSetCurrent(c));
		buffers_init(&bd, 1000003);
		clear_out(&bd);
		EXPECT(vecadd(NULL, bd.x, bd.y, bd.out, bd.n) == TILE_SUCCESS, "%s", what);
		verify(&bd, bd.n, what);
		buffers_free(&bd);
		CHECK_CU(cuCtxSetCurrent(ctx));
	}

	/* Host cost per launch, one block, same stream, same CUfunction. */
	buffers_init(&small, 256);
	clear_out(&small);
	CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
	EXPECT(vecadd_module(&m) == TILE_SUCCESS, "module");
	t_tile = (double *)malloc(sizeof(double) * LAUNCHES);
	t_wrap = (double *)malloc(sizeof(double) * LAUNCHES);
	t_raw = (double *)malloc(sizeof(double) * LAUNCHES);
	{
		/* slots are keyed by the driver's context ID (tile__context_key) */
		uint64_t key = 0;
		tile__slot *slot = tile__context_key(ctx, &key) == TILE_SUCCESS ? tile__slot_find(m, key) : NULL;
		CUfunction f = slot ? (CUfunction)slot->funcs[0] : NULL;
		int32_t n = small.n;
		void *args[4];
		int k, j;
		args[0] = &small.x;
		args[1] = &small.y;
		args[2] = &small.out;
		args[3] = &n;
		EXPECT(f != NULL, "the module's function handle for this context");
		for (k = 0; f && k < 2000; k++) {
			cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, stream, args, NULL);
			tile_launch(m, 0, NULL, (tile_stream)stream, args, 4);
		}
		CHECK_CU(cuStreamSynchronize(stream));
		for (k = 0; f && k < LAUNCHES; k += BATCH) {
			for (j = k; j < k + BATCH; j++) {
				double a = now_us();
				cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, stream, args, NULL);
				t_raw[j] = now_us() - a;
			}
			CHECK_CU(cuStreamSynchronize(stream));
			for (j = k; j < k + BATCH; j++) {
				double a = now_us();
				tile_launch(m, 0, NULL, (tile_stream)stream, args, 4);
				t_tile[j] = now_us() - a;
			}
			CHECK_CU(cuStreamSynchronize(stream));
			for (j = k; j < k + BATCH; j++) {
				double a = now_us();
				vecadd((tile_stream)stream, small.x, small.y, small.out, small.n);
				t_wrap[j] = now_us() - a;
			}
			CHECK_CU(cuStreamSynchronize(stream));
		}
		EXPECT(vecadd((tile_stream)stream, small.x, small.y, small.out, small.n) == TILE_SUCCESS, "timed launches");
		CHECK_CU(cuStreamSynchronize(stream));
	}
	med_raw = median(t_raw, LAUNCHES);
	med_tile = median(t_tile, LAUNCHES);
	med_wrap = median(t_wrap, LAUNCHES);
	verify(&small, small.n, "after the timed launches");

	/* Sizes. */
	for (i = 0; i < tile_image_count(m); i++)
		if (tile_image_get_info(m, i, &info) == TILE_SUCCESS)
			raw_total += info.raw_size;
	sizes[0] = file_size(dir, "vecadd.sm_80.cubin");
	sizes[1] = file_size(dir, "vecadd.sm_90.cubin");
	sizes[2] = file_size(dir, "vecadd.ptx");
	EXPECT(vecadd_ptx_module(&mp) == TILE_SUCCESS, "PTX module");
	blob_bytes = m->size;
	ptx_blob_bytes = mp ? mp->size : 0;

	/* Unload everything, then use again. */
	vecadd_unload();
	vecadd_ptx_unload();
	clear_out(&b);
	EXPECT(vecadd(NULL, b.x, b.y, b.out, b.n) == TILE_SUCCESS, "launch after unload");
	verify(&b, b.n, "after unload");
	vecadd_unload();
	for (d = 1; d < ndev && d < 16; d++) {
		CUdevice dd;
		if (cuDeviceGet(&dd, d) == CUDA_SUCCESS)
			cuDevicePrimaryCtxRelease(dd);
	}

	printf("\n| runtime check (tile.h, vecadd)                       | value |\n|---|---|\n");
	printf("| device                                               | %s (sm_%d%d) |\n", name, major, minor);
	printf("| cuInit + primary context (not counted)               | %.0f us |\n", t_init_us);
	printf("| first use -> first kernel done (cubin)               | %.0f us |\n", t_first_us);
	printf("|   of which: validate the blob (tile_module_create)   | %.1f us |\n", t_create_us);
	printf("|   of which: inflate, load, lookup (tile_module_load) | %.1f us |\n", t_load_us);
	printf("| first use -> first kernel done (PTX only, JIT)       | %.0f us |\n", t_first_ptx_us);
	printf("| host time per launch: raw cuLaunchKernel (median)    | %.3f us |\n", med_raw);
	printf("| host time per launch: tile_launch (median)           | %.3f us (%+.3f) |\n", med_tile, med_tile - med_raw);
	printf("| host time per launch: generated vecadd() (median)    | %.3f us (%+.3f) |\n", med_wrap, med_wrap - med_raw);
	printf("| blob bytes (cubin sm_80 + sm_90 + PTX, zlib)         | %lu |\n", (unsigned long)blob_bytes);
	printf("| blob bytes (PTX only, zlib)                          | %lu |\n", (unsigned long)ptx_blob_bytes);
	printf("| raw bytes: cubin sm_80, cubin sm_90, PTX (sum)       | %ld, %ld, %ld (%ld) |\n", sizes[0], sizes[1], sizes[2],
	       raw_total);
	printf("| checks                                               | %s |\n", failures ? "FAILED" : "all passed");
	buffers_free(&small);
	buffers_free(&b);
	cuStreamDestroy(stream);
	free(t_tile);
	free(t_wrap);
	free(t_raw);
	return failures ? 1 : 0;
}
