/* fake_cuda.c - a stand-in for libcuda.so.1, for the loader's tests.
 *
 * It exports the driver entry points tile.h resolves, with the real ABI,
 * and keeps just enough state to check the loader's bookkeeping: devices
 * with a compute capability, primary and created contexts, a thread-local
 * current context, modules (a "cubin" is text starting "FAKE cubin", a "PTX"
 * text starting "// FAKE ptx", each listing the symbols it defines) and
 * functions. Calls that need a context check that the right one is current,
 * as the real driver does. Every entry point counts its calls and can be
 * told to fail with a given CUresult (fake_cuda_fail); the last launch is
 * recorded with its parameter values. Control functions are looked up by
 * the tests with dlsym. Built with -DFAKE_CUDA_OMIT_LAUNCH_EX it lacks
 * cuLaunchKernelEx (the missing-symbol test). It is a test double for
 * bookkeeping only; the GPU suite checks the real thing. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_cuda.h"

#define FAKE_API __attribute__((visibility("default")))

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_NOT_FOUND = 500
};

#define FAKE_CALLS(X) \
	X(cuInit) X(cuDeviceGet) X(cuDeviceGetAttribute) X(cuCtxGetCurrent) X(cuCtxSetCurrent) \
	X(cuCtxGetDevice) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease_v2) X(cuModuleLoadData) \
	X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetAttribute) \
	X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuGetErrorName)

enum {
#define FAKE_ENUM(name) FAKE_##name,
	FAKE_CALLS(FAKE_ENUM)
#undef FAKE_ENUM
	FAKE_N
};

static const char *const call_names[FAKE_N] = {
#define FAKE_NAME(name) #name,
	FAKE_CALLS(FAKE_NAME)
#undef FAKE_NAME
};

#define MAX_CTX 64
#define MAX_MODULES 256
#define MAX_FUNCS 1024

typedef struct fake_ctx {
	int device, primary;
} fake_ctx;

typedef struct fake_module {
	fake_ctx *ctx;
	char *text;
	int live;
} fake_module;

typedef struct fake_func {
	fake_module *module;
	char name[64];
	int max_dynamic_shared;
} fake_func;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int calls[FAKE_N], fail_with[FAKE_N];
static int n_devices = 1, device_cc[FAKE_MAX_DEVICES] = {90, 80, 75, 86};
static int primary_refs[FAKE_MAX_DEVICES];
static fake_ctx contexts[MAX_CTX];
static int n_contexts = FAKE_MAX_DEVICES; /* the first ones are the primary contexts */
static fake_module modules[MAX_MODULES];
static int n_modules;
static fake_func funcs[MAX_FUNCS];
static int n_funcs;
static int initialized;
static fake_launch last;
static int n_param_sizes, param_sizes[16];
static __thread fake_ctx *current;

/* Counts the call; returns the injected failure, if any. */
static int enter(int call)
{
	int f;
	pthread_mutex_lock(&lock);
	calls[call]++;
	f = fail_with[call];
	pthread_mutex_unlock(&lock);
	return f;
}

static int find_call(const char *name)
{
	int i;
	for (i = 0; i < FAKE_N; i++)
		if (strcmp(call_names[i], name) == 0)
			return i;
	return -1;
}

FAKE_API void fake_cuda_reset(void)
{
	pthread_mutex_lock(&lock);
	memset(calls, 0, sizeof calls);
	memset(fail_with, 0, sizeof fail_with);
	pthread_mutex_unlock(&lock);
}

FAKE_API int fake_cuda_calls(const char *name)
{
	int i = find_call(name), n;
	if (i < 0)
		return -1;
	pthread_mutex_lock(&lock);
	n = calls[i];
	pthread_mutex_unlock(&lock);
	return n;
}

FAKE_API void fake_cuda_fail(const char *name, int result)
{
	int i = find_call(name);
	if (i < 0)
		return;
	pthread_mutex_lock(&lock);
	fail_with[i] = result;
	pthread_mutex_unlock(&lock);
}

FAKE_API void fake_cuda_set_devices(int n, const int *cc)
{
	int i;
	n_devices = n;
	for (i = 0; i < n && i < FAKE_MAX_DEVICES; i++)
		device_cc[i] = cc[i];
}

FAKE_API void *fake_cuda_ctx_create(int device)
{
	fake_ctx *c;
	pthread_mutex_lock(&lock);
	c = &contexts[n_contexts++];
	c->device = device;
	c->primary = 0;
	pthread_mutex_unlock(&lock);
	return c;
}

FAKE_API int fake_cuda_live_modules(void)
{
	int i, n = 0;
	pthread_mutex_lock(&lock);
	for (i = 0; i < n_modules; i++)
		n += modules[i].live;
	pthread_mutex_unlock(&lock);
	return n;
}

FAKE_API int fake_cuda_primary_refs(int device) { return primary_refs[device]; }

FAKE_API void fake_cuda_param_sizes(int n, const int *sizes)
{
	n_param_sizes = n;
	memcpy(param_sizes, sizes, (size_t)n * sizeof *sizes);
}

FAKE_API void fake_cuda_last_launch(fake_launch *out)
{
	pthread_mutex_lock(&lock);
	*out = last;
	pthread_mutex_unlock(&lock);
}

FAKE_API int cuInit(unsigned int flags)
{
	const char *env = getenv("FAKE_CUDA_INIT_ERROR");
	int f = enter(FAKE_cuInit);
	if (f)
		return f;
	if (env)
		return atoi(env);
	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	initialized = 1;
	return CUDA_SUCCESS;
}

FAKE_API int cuDeviceGet(int *device, int ordinal)
{
	int f = enter(FAKE_cuDeviceGet);
	if (f)
		return f;
	if (!initialized)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (ordinal < 0 || ordinal >= n_devices)
		return CUDA_ERROR_INVALID_DEVICE;
	*device = ordinal;
	return CUDA_SUCCESS;
}

FAKE_API int cuDeviceGetAttribute(int *value, int attribute, int device)
{
	int f = enter(FAKE_cuDeviceGetAttribute);
	if (f)
		return f;
	if (device < 0 || device >= n_devices)
		return CUDA_ERROR_INVALID_DEVICE;
	switch (attribute) {
	case 75: *value = device_cc[device] / 10; return CUDA_SUCCESS;
	case 76: *value = device_cc[device] % 10; return CUDA_SUCCESS;
	case 97: *value = FAKE_SMEM_OPTIN; return CUDA_SUCCESS;
	default: return CUDA_ERROR_INVALID_VALUE;
	}
}

FAKE_API int cuCtxGetCurrent(void **ctx)
{
	int f = enter(FAKE_cuCtxGetCurrent);
	if (f)
		return f;
	*ctx = current;
	return CUDA_SUCCESS;
}

FAKE_API int cuCtxSetCurrent(void *ctx)
{
	int f = enter(FAKE_cuCtxSetCurrent);
	if (f)
		return f;
	current = (fake_ctx *)ctx;
	return CUDA_SUCCESS;
}

FAKE_API int cuCtxGetDevice(int *device)
{
	int f = enter(FAKE_cuCtxGetDevice);
	if (f)
		return f;
	if (!current)
		return CUDA_ERROR_INVALID_CONTEXT;
	*device = current->device;
	return CUDA_SUCCESS;
}

FAKE_API int cuDevicePrimaryCtxRetain(void **ctx, int device)
{
	int f = enter(FAKE_cuDevicePrimaryCtxRetain);
	if (f)
		return f;
	if (device < 0 || device >= n_devices)
		return CUDA_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&lock);
	primary_refs[device]++;
	contexts[device].device = device;
	contexts[device].primary = 1;
	*ctx = &contexts[device];
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

FAKE_API int cuDevicePrimaryCtxRelease_v2(int device)
{
	int f = enter(FAKE_cuDevicePrimaryCtxRelease_v2);
	if (f)
		return f;
	if (device < 0 || device >= n_devices || primary_refs[device] == 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&lock);
	primary_refs[device]--;
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

static int load(void **module, const char *image, const char *prefix)
{
	fake_module *m;
	if (!current)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (strncmp(image, prefix, strlen(prefix)) != 0)
		return CUDA_ERROR_INVALID_IMAGE;
	/* Widens the window in which racing threads could load twice. */
	usleep(2000);
	pthread_mutex_lock(&lock);
	m = &modules[n_modules++];
	m->ctx = current;
	m->text = strdup(image);
	m->live = 1;
	pthread_mutex_unlock(&lock);
	*module = m;
	return CUDA_SUCCESS;
}

FAKE_API int cuModuleLoadData(void **module, const void *image)
{
	int f = enter(FAKE_cuModuleLoadData);
	if (f)
		return f;
	return load(module, (const char *)image, "FAKE cubin");
}

FAKE_API int cuModuleLoadDataEx(void **module, const void *image, unsigned int n, int *options, void **values)
{
	const char *text = (const char *)image;
	unsigned int i;
	int f = enter(FAKE_cuModuleLoadDataEx);
	char *log = NULL;
	size_t log_size = 0;
	for (i = 0; i < n; i++) {
		if (options[i] == 5)
			log = (char *)values[i];
		if (options[i] == 6)
			log_size = (size_t)(uintptr_t)values[i];
	}
	if (f)
		return f;
	if (strstr(text, "JITFAIL")) {
		if (log && log_size > 0) {
			strncpy(log, "ptxas fatal: fake JIT error in line 3", log_size - 1);
			log[log_size - 1] = 0;
		}
		return CUDA_ERROR_INVALID_PTX;
	}
	return load(module, text, "// FAKE ptx");
}

FAKE_API int cuModuleUnload(void *module)
{
	fake_module *m = (fake_module *)module;
	int f = enter(FAKE_cuModuleUnload);
	if (f)
		return f;
	if (!m->live)
		return CUDA_ERROR_INVALID_HANDLE;
	if (m->ctx != current)
		return CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&lock);
	m->live = 0;
	free(m->text);
	m->text = NULL;
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

/* The image lists its symbols as space-separated words. */
static int defines(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p;
	for (p = strstr(text, name); p; p = strstr(p + 1, name))
		if (p > text && p[-1] == ' ' && (p[n] == ' ' || p[n] == 0))
			return 1;
	return 0;
}

FAKE_API int cuModuleGetFunction(void **func, void *module, const char *name)
{
	fake_module *m = (fake_module *)module;
	fake_func *fn;
	int f = enter(FAKE_cuModuleGetFunction);
	if (f)
		return f;
	if (!m->live)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!defines(m->text, name))
		return CUDA_ERROR_NOT_FOUND;
	pthread_mutex_lock(&lock);
	fn = &funcs[n_funcs++];
	fn->module = m;
	strncpy(fn->name, name, sizeof fn->name - 1);
	fn->max_dynamic_shared = 48 * 1024;
	pthread_mutex_unlock(&lock);
	*func = fn;
	return CUDA_SUCCESS;
}

FAKE_API int cuFuncGetAttribute(int *value, int attribute, void *func)
{
	int f = enter(FAKE_cuFuncGetAttribute);
	(void)func;
	if (f)
		return f;
	if (attribute != 1)
		return CUDA_ERROR_INVALID_VALUE;
	*value = FAKE_SHARED_STATIC;
	return CUDA_SUCCESS;
}

FAKE_API int cuFuncSetAttribute(void *func, int attribute, int value)
{
	fake_func *fn = (fake_func *)func;
	int f = enter(FAKE_cuFuncSetAttribute);
	if (f)
		return f;
	if (attribute != 8 || value + FAKE_SHARED_STATIC > FAKE_SMEM_OPTIN)
		return CUDA_ERROR_INVALID_VALUE;
	fn->max_dynamic_shared = value;
	return CUDA_SUCCESS;
}

static int launch(fake_func *fn, const unsigned int grid[3], const unsigned int block[3], unsigned int shared,
		  void *stream, void **params, void **extra, int ex, const unsigned int cluster[3])
{
	int i, count;
	if (!fn->module->live)
		return CUDA_ERROR_INVALID_HANDLE;
	if (fn->module->ctx != current)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (extra || !params || shared > (unsigned int)fn->max_dynamic_shared)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&lock);
	count = last.count;
	memset(&last, 0, sizeof last);
	last.count = count + 1;
	strncpy(last.symbol, fn->name, sizeof last.symbol - 1);
	strncpy(last.image, fn->module->text, sizeof last.image - 1);
	memcpy(last.grid, grid, sizeof last.grid);
	memcpy(last.block, block, sizeof last.block);
	memcpy(last.cluster, cluster, sizeof last.cluster);
	last.shared = shared;
	last.stream = stream;
	last.ex = ex;
	last.ctx = current;
	for (i = 0; i < n_param_sizes; i++)
		memcpy(&last.params[i], params[i], (size_t)param_sizes[i]);
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

FAKE_API int cuLaunchKernel(void *func, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
			    unsigned int by, unsigned int bz, unsigned int shared, void *stream, void **params, void **extra)
{
	unsigned int grid[3], block[3], cluster[3] = {1, 1, 1};
	int f = enter(FAKE_cuLaunchKernel);
	if (f)
		return f;
	grid[0] = gx, grid[1] = gy, grid[2] = gz;
	block[0] = bx, block[1] = by, block[2] = bz;
	return launch((fake_func *)func, grid, block, shared, stream, params, extra, 0, cluster);
}

#ifndef FAKE_CUDA_OMIT_LAUNCH_EX
/* The driver's CUlaunchConfig and CUlaunchAttribute layouts. */
typedef struct launch_attr {
	int id;
	char pad[4];
	union {
		char bytes[64];
		struct {
			unsigned int x, y, z;
		} cluster;
		int policy;
	} value;
} launch_attr;

typedef struct launch_config {
	unsigned int grid[3], block[3], shared;
	void *stream;
	launch_attr *attrs;
	unsigned int n_attrs;
} launch_config;

FAKE_API int cuLaunchKernelEx(const launch_config *config, void *func, void **params, void **extra)
{
	unsigned int cluster[3] = {1, 1, 1}, i;
	int f = enter(FAKE_cuLaunchKernelEx), policy = 0, r;
	if (f)
		return f;
	for (i = 0; i < config->n_attrs; i++) {
		const launch_attr *a = &config->attrs[i];
		if (a->id == 5 && (a->value.policy == 0 || a->value.policy == 1 || a->value.policy == 2)) {
			policy = a->value.policy;
			continue;
		}
		if (a->id != 4)
			return CUDA_ERROR_INVALID_VALUE;
		cluster[0] = a->value.cluster.x;
		cluster[1] = a->value.cluster.y;
		cluster[2] = a->value.cluster.z;
	}
	for (i = 0; i < 3; i++)
		if (cluster[i] == 0 || config->grid[i] % cluster[i])
			return CUDA_ERROR_INVALID_VALUE;
	r = launch((fake_func *)func, config->grid, config->block, config->shared, config->stream, params, extra, 1, cluster);
	pthread_mutex_lock(&lock);
	last.cluster_policy = policy;
	pthread_mutex_unlock(&lock);
	return r;
}
#endif

FAKE_API int cuGetErrorName(int error, const char **name)
{
	enter(FAKE_cuGetErrorName);
	switch (error) {
	case 0: *name = "CUDA_SUCCESS"; return 0;
	case 1: *name = "CUDA_ERROR_INVALID_VALUE"; return 0;
	case 2: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
	case 3: *name = "CUDA_ERROR_NOT_INITIALIZED"; return 0;
	case 100: *name = "CUDA_ERROR_NO_DEVICE"; return 0;
	case 101: *name = "CUDA_ERROR_INVALID_DEVICE"; return 0;
	case 200: *name = "CUDA_ERROR_INVALID_IMAGE"; return 0;
	case 201: *name = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
	case 218: *name = "CUDA_ERROR_INVALID_PTX"; return 0;
	case 400: *name = "CUDA_ERROR_INVALID_HANDLE"; return 0;
	case 500: *name = "CUDA_ERROR_NOT_FOUND"; return 0;
	case 719: *name = "CUDA_ERROR_LAUNCH_FAILED"; return 0;
	default: *name = NULL; return CUDA_ERROR_INVALID_VALUE;
	}
}
