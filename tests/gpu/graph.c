/* graph.c - tile.h's launch functions inside CUDA stream capture.
 *
 * 1. A capture begun before the module was loaded: the launch returns
 *    TILE_ERROR_CAPTURING (the loader refuses to load during capture,
 *    having asked cuStreamIsCapturing) and the capture itself is still
 *    valid: it ends without error.
 * 2. After soak_a_load(): 100 launches (soak_inc and soak_axpy of
 *    tests/gpu/soak_ops.py, alternating) captured into a graph, the graph
 *    replayed 1000 times; the buffers must hold exactly what 100000 eager
 *    launches give (p[i] = 50000, y[i] = y0[i] + a * x[i] * 50000), and the
 *    same 100 launches run eagerly 1000 times into other buffers must
 *    agree element by element. Prints the time of both.
 * 3. The same capture in thread-local capture mode, replayed 10 times.
 * The exit status is non-zero on any failure. Built by tests/gpu/soak.sh
 * with the soak's generated C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TILE_IMPLEMENTATION
#include "tile.h"
#include "soak_a.h"
#include "soak_b.h"

#define TEST_DRIVER(X) \
	X(cuInit, (unsigned int)) \
	X(cuDeviceGet, (int *, int)) \
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
	X(cuStreamBeginCapture_v2, (void *, int)) \
	X(cuStreamEndCapture, (void *, void **)) \
	X(cuGraphInstantiateWithFlags, (void **, void *, unsigned long long)) \
	X(cuGraphLaunch, (void *, void *)) \
	X(cuGraphExecDestroy, (void *)) \
	X(cuGraphDestroy, (void *)) \
	X(cuGetErrorName, (CUresult, const char **))

#define TEST_NAME "graph"
#include "test_driver.h"

static int failures;

#define EXPECT(cond, ...) \
	do { \
		if (!(cond)) { \
			failures++; \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__); \
			printf("\n"); \
		} \
	} while (0)

enum { N = 5000, LAUNCHES = 100, REPLAYS = 1000, A = 3 };

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int32_t x_init(int i) { return i % 11 - 5; }
static int32_t y_init(int i) { return 7 * i; }

typedef struct bufs {
	CUdeviceptr p, x, y;
} bufs;

static void alloc(bufs *b)
{
	static int32_t init[N];
	int i;
	CU(cuMemAlloc_v2(&b->p, sizeof init));
	CU(cuMemAlloc_v2(&b->x, sizeof init));
	CU(cuMemAlloc_v2(&b->y, sizeof init));
	memset(init, 0, sizeof init);
	CU(cuMemcpyHtoD_v2(b->p, init, sizeof init));
	for (i = 0; i < N; i++)
		init[i] = x_init(i);
	CU(cuMemcpyHtoD_v2(b->x, init, sizeof init));
	for (i = 0; i < N; i++)
		init[i] = y_init(i);
	CU(cuMemcpyHtoD_v2(b->y, init, sizeof init));
}

/* The 100 launches: soak_inc and soak_axpy alternating. */
static int launches(void *stream, const bufs *b)
{
	int i, bad = 0;
	for (i = 0; i < LAUNCHES; i++) {
		tile_status st = i % 2 ? soak_axpy((tile_stream)stream, b->x, b->y, N, A) : soak_inc((tile_stream)stream, b->p, N);
		if (st != TILE_SUCCESS && !bad++)
			printf("launch %d: %s: %s\n", i, tile_status_string(st), tile_last_error());
	}
	return bad;
}

static void read_back(const bufs *b, int32_t *p, int32_t *y)
{
	CU(cuMemcpyDtoH_v2(p, b->p, sizeof(int32_t) * N));
	CU(cuMemcpyDtoH_v2(y, b->y, sizeof(int32_t) * N));
}

int main(void)
{
	static int32_t p[N], y[N], p2[N], y2[N];
	void *ctx, *stream, *graph = NULL, *exec = NULL;
	const int32_t k = LAUNCHES / 2 * REPLAYS;
	bufs g, e;
	double t0, graph_s, eager_s;
	int dev, i, bad;
	tile_status st;
	test_driver_load("libcuda.so.1");
	CU(cuInit(0));
	CU(cuDeviceGet(&dev, 0));
	CU(cuDevicePrimaryCtxRetain(&ctx, dev));
	CU(cuCtxSetCurrent(ctx));
	CU(cuStreamCreate(&stream, 1));
	alloc(&g);
	alloc(&e);

	/* 1. no load during capture: a status, and the capture survives */
	CU(cuStreamBeginCapture_v2(stream, 0 /* CU_STREAM_CAPTURE_MODE_GLOBAL */));
	st = soak_acc((tile_stream)stream, g.p, 1);
	EXPECT(st == TILE_ERROR_CAPTURING, "soak_acc during capture before its load: %s: %s", tile_status_string(st),
	       tile_last_error());
	EXPECT(strstr(tile_last_error(), "NAME_load()") != NULL, "detail: %s", tile_last_error());
	st = soak_inc((tile_stream)stream, g.p, N);
	EXPECT(st == TILE_ERROR_CAPTURING, "soak_inc during capture before its load: %s", tile_status_string(st));
	{
		CUresult r = cu.cuStreamEndCapture(stream, &graph);
		EXPECT(r == 0, "cuStreamEndCapture after a refused launch: %d", r);
		if (!r && graph)
			CU(cuGraphDestroy(graph));
	}

	/* 2. loaded first: capture 100 launches, replay 1000 times */
	st = soak_a_load();
	EXPECT(st == TILE_SUCCESS, "soak_a_load: %s", tile_last_error());
	CU(cuStreamBeginCapture_v2(stream, 0));
	bad = launches(stream, &g);
	EXPECT(bad == 0, "%d launches failed during capture", bad);
	CU(cuStreamEndCapture(stream, &graph));
	CU(cuGraphInstantiateWithFlags(&exec, graph, 0));
	CU(cuStreamSynchronize(stream));
	t0 = now();
	for (i = 0; i < REPLAYS; i++)
		CU(cuGraphLaunch(exec, stream));
	CU(cuStreamSynchronize(stream));
	graph_s = now() - t0;
	t0 = now();
	for (i = 0; i < REPLAYS; i++)
		launches(stream, &e);
	CU(cuStreamSynchronize(stream));
	eager_s = now() - t0;
	read_back(&g, p, y);
	read_back(&e, p2, y2);
	bad = 0;
	for (i = 0; i < N; i++) {
		int32_t want_y = (int32_t)(y_init(i) + (long long)A * x_init(i) * k);
		if ((p[i] != k || y[i] != want_y || p2[i] != p[i] || y2[i] != y[i]) && !bad++)
			printf("element %d: graph p %d y %d, eager p %d y %d, want p %d y %d\n", i, p[i], y[i], p2[i], y2[i], k, want_y);
	}
	EXPECT(bad == 0, "%d elements differ", bad);
	printf("graph: %d launches captured, replayed %d times in %.3f s; the same launches eagerly in %.3f s\n", LAUNCHES,
	       REPLAYS, graph_s, eager_s);
	CU(cuGraphExecDestroy(exec));
	CU(cuGraphDestroy(graph));

	/* 3. thread-local capture mode */
	CU(cuStreamBeginCapture_v2(stream, 1 /* CU_STREAM_CAPTURE_MODE_THREAD_LOCAL */));
	bad = launches(stream, &g);
	EXPECT(bad == 0, "%d launches failed during thread-local capture", bad);
	CU(cuStreamEndCapture(stream, &graph));
	CU(cuGraphInstantiateWithFlags(&exec, graph, 0));
	for (i = 0; i < 10; i++)
		CU(cuGraphLaunch(exec, stream));
	CU(cuStreamSynchronize(stream));
	read_back(&g, p, y);
	EXPECT(p[0] == k + 500 && p[N - 1] == k + 500, "p[0] %d, want %d", p[0], k + 500);
	CU(cuGraphExecDestroy(exec));
	CU(cuGraphDestroy(graph));

	soak_a_unload();
	soak_b_unload();
	CU(cuMemFree_v2(g.p));
	CU(cuMemFree_v2(g.x));
	CU(cuMemFree_v2(g.y));
	CU(cuMemFree_v2(e.p));
	CU(cuMemFree_v2(e.x));
	CU(cuMemFree_v2(e.y));
	CU(cuStreamDestroy_v2(stream));
	CU(cuCtxSetCurrent(NULL));
	CU(cuDevicePrimaryCtxRelease_v2(dev));
	printf("graph: %s\n", failures ? "FAIL" : "OK");
	return failures ? 1 : 0;
}
