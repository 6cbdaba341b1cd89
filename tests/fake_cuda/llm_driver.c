/* llm_driver.c - a stand-in for libcuda.so.1 for examples/llm's GPU path
 * (tests/test_llm.sh builds it as libcuda.so.1 and runs llm.c on it).
 *
 * fake_cuda.c beside it serves the loader's tests: it loads only its own
 * synthetic "FAKE cubin" images and is steered through dlsym'd control
 * calls from inside the test program. llm.c loads the real blob's cubins
 * and runs as a separate process, so this one accepts any image, is
 * steered by the environment, and adds what the program's step needs
 * (events, stream capture, graphs, asynchronous copies): every entry point
 * llm.c and tile.h resolve; "device" memory is host memory, launches do
 * nothing. FAKE_LLM_INIT_MS delays cuInit, FAKE_LLM_INIT_ERROR makes it
 * fail, FAKE_LLM_DEVICES sets the device count, FAKE_LLM_MODULE_ERROR
 * fails cuModuleLoadData, FAKE_LLM_DUMP names a file for the weights'
 * device copy (the first allocation), written when freed; with
 * FAKE_LLM_ONE_COPY it says so when their uploads did not read one host
 * copy of them. Calls that need a context fail without one current on the
 * calling thread, as the driver's do; what is left at exit is printed. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef unsigned long long ptr_t;
static char obj[8]; /* handles: context, stream, event, graph, exec, module, function */
static __thread void *current;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized, refs, allocs, streams, events, graphs, execs, modules;
static ptr_t first; /* the first allocation: the weights */
static size_t first_size;
static const char *source; /* where the weights came from in host memory, as one copy */
static int scattered;      /* not from one copy */

static int env(const char *name) { return getenv(name) ? atoi(getenv(name)) : 0; }
static int count(int *n, int d)
{
	pthread_mutex_lock(&lock);
	*n += d;
	pthread_mutex_unlock(&lock);
	return 0;
}
static int need_ctx(void) { return current == &obj[0] ? 0 : 201; /* CUDA_ERROR_INVALID_CONTEXT */ }

__attribute__((destructor)) static void left(void)
{
	if (refs || allocs || streams || events || graphs || execs || modules)
		fprintf(stderr, "fake libcuda: left at exit: %d context references, %d allocations, %d streams, %d events, "
			"%d graphs, %d graph instances, %d modules\n", refs, allocs, streams, events, graphs, execs, modules);
	if (scattered && env("FAKE_LLM_ONE_COPY"))
		fprintf(stderr, "fake libcuda: the weights did not come from one host copy\n");
}

int cuInit(unsigned flags)
{
	struct timespec ts = {env("FAKE_LLM_INIT_MS") / 1000, env("FAKE_LLM_INIT_MS") % 1000 * 1000000L};
	if (!initialized) /* tile.h's own cuInit comes second */
		nanosleep(&ts, NULL);
	if (flags || env("FAKE_LLM_INIT_ERROR"))
		return flags ? 1 : env("FAKE_LLM_INIT_ERROR");
	initialized = 1;
	return 0;
}
int cuGetErrorName(int e, const char **name)
{
	*name = e == 100 ? "CUDA_ERROR_NO_DEVICE" : e == 200 ? "CUDA_ERROR_INVALID_IMAGE"
		: e == 201 ? "CUDA_ERROR_INVALID_CONTEXT" : e == 3 ? "CUDA_ERROR_NOT_INITIALIZED" : "CUDA_ERROR_UNKNOWN";
	return 0;
}
int cuDeviceGetCount(int *n)
{
	*n = getenv("FAKE_LLM_DEVICES") ? env("FAKE_LLM_DEVICES") : 1;
	return initialized ? 0 : 3;
}
int cuDeviceGet(int *d, int ordinal)
{
	*d = ordinal;
	return initialized ? 0 : 3;
}
int cuDeviceGetName(char *name, int len, int d)
{
	snprintf(name, (size_t)len, "Fake GPU %d", d);
	return 0;
}
int cuDeviceGetAttribute(int *v, int attr, int d)
{
	*v = attr == 75 ? 9 : attr == 76 ? 0 : attr == 16 ? 132 : attr == 97 ? 232448 : 0;
	return d == 0 ? 0 : 101;
}
int cuDevicePrimaryCtxRetain(void **ctx, int d)
{
	*ctx = &obj[0];
	return !initialized ? 3 : d != 0 ? 101 : count(&refs, 1);
}
int cuDevicePrimaryCtxRelease_v2(int d) { return count(&refs, -1); }
int cuCtxSetCurrent(void *ctx)
{
	current = ctx;
	return 0;
}
int cuCtxGetCurrent(void **ctx)
{
	*ctx = current;
	return 0;
}
int cuCtxGetDevice(int *d)
{
	*d = 0;
	return need_ctx();
}
int cuMemAlloc_v2(ptr_t *p, size_t n)
{
	void *q;
	if (need_ctx() || !(q = calloc(1, n)))
		return need_ctx() ? need_ctx() : 2;
	*p = (ptr_t)(size_t)q;
	if (!first) {
		first = *p;
		first_size = n;
	}
	return count(&allocs, 1);
}
int cuMemFree_v2(ptr_t p)
{
	const char *dump = getenv("FAKE_LLM_DUMP");
	FILE *f;
	if (p == first && dump && (f = fopen(dump, "wb"))) {
		fwrite((void *)(size_t)p, 1, first_size, f);
		fclose(f);
	}
	free((void *)(size_t)p);
	return count(&allocs, -1);
}
int cuMemsetD8Async(ptr_t p, unsigned char v, size_t n, void *s)
{
	memset((void *)(size_t)p, v, n);
	return need_ctx();
}
int cuMemcpyHtoDAsync_v2(ptr_t dst, const void *src, size_t n, void *s)
{
	if (dst >= first && dst < first + first_size) {
		if (!source)
			source = (const char *)src - (dst - first);
		scattered |= source != (const char *)src - (dst - first);
	}
	memcpy((void *)(size_t)dst, src, n);
	return need_ctx();
}
int cuMemcpyDtoHAsync_v2(void *dst, ptr_t src, size_t n, void *s)
{
	memcpy(dst, (const void *)(size_t)src, n);
	return need_ctx();
}
int cuStreamCreate(void **s, unsigned flags)
{
	*s = &obj[1];
	return need_ctx() ? need_ctx() : count(&streams, 1);
}
int cuStreamDestroy_v2(void *s) { return count(&streams, -(s == &obj[1])); }
int cuStreamSynchronize(void *s) { return s == &obj[1] ? 0 : 400; /* CUDA_ERROR_INVALID_HANDLE */ }
int cuStreamBeginCapture_v2(void *s, int mode) { return s == &obj[1] && mode == 1 ? 0 : 1; }
int cuStreamEndCapture(void *s, void **g)
{
	*g = &obj[3];
	return s == &obj[1] ? count(&graphs, 1) : 400;
}
int cuGraphInstantiateWithFlags(void **e, void *g, unsigned long long flags)
{
	*e = &obj[4];
	return g == &obj[3] && !flags ? count(&execs, 1) : 400;
}
int cuGraphLaunch(void *e, void *s) { return e == &obj[4] && s == &obj[1] ? 0 : 400; }
int cuGraphExecDestroy(void *e) { return count(&execs, -(e == &obj[4])); }
int cuGraphDestroy(void *g) { return count(&graphs, -(g == &obj[3])); }
int cuEventCreate(void **e, unsigned flags)
{
	*e = &obj[2];
	return need_ctx() ? need_ctx() : count(&events, 1);
}
int cuEventRecord(void *e, void *s) { return e == &obj[2] && s == &obj[1] ? 0 : 400; }
int cuEventSynchronize(void *e) { return e == &obj[2] ? 0 : 400; }
int cuEventElapsedTime(float *ms, void *a, void *b)
{
	*ms = 1.0f;
	return a == &obj[2] && b == &obj[2] ? 0 : 400;
}
int cuEventDestroy_v2(void *e) { return count(&events, -(e == &obj[2])); }
int cuModuleLoadData(void **mod, const void *image)
{
	*mod = &obj[5];
	if (need_ctx() || env("FAKE_LLM_MODULE_ERROR") || !image)
		return need_ctx() ? need_ctx() : env("FAKE_LLM_MODULE_ERROR") ? env("FAKE_LLM_MODULE_ERROR") : 1;
	return count(&modules, 1);
}
int cuModuleLoadDataEx(void **mod, const void *image, unsigned n, int *options, void **values)
{
	return n && (!options || !values) ? 1 : cuModuleLoadData(mod, image);
}
int cuModuleUnload(void *mod) { return count(&modules, -(mod == &obj[5])); }
int cuModuleGetFunction(void **f, void *mod, const char *name)
{
	*f = &obj[6];
	return mod == &obj[5] && name ? 0 : 400;
}
int cuFuncGetAttribute(int *v, int attr, void *f)
{
	*v = 0;
	return f == &obj[6] ? 0 : 400;
}
int cuFuncSetAttribute(void *f, int attr, int v) { return f == &obj[6] && attr >= 0 && v >= 0 ? 0 : 1; }
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
		   unsigned shared, void *s, void **params, void **extra)
{
	return f == &obj[6] && gx && gy && gz && bx && by && bz && s == &obj[1] ? need_ctx() : 1;
}
int cuLaunchKernelEx(const void *config, void *f, void **params, void **extra)
{
	return config && f == &obj[6] && params && !extra ? need_ctx() : 1;
}
