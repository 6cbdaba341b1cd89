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
 * cuLaunchKernelEx (the missing-symbol test), with -DFAKE_CUDA_OMIT_CTX_ID
 * it lacks cuCtxGetId, cuStreamIsCapturing and cuTensorMapEncodeTiled (a
 * driver older than CUDA 12). cuTensorMapEncodeTiled checks its arguments
 * as the driver documents them, records them (fake_cuda_last_tensormap,
 * and the last few calls: fake_cuda_recent_tensormap) and writes a
 * numbered map. Contexts have unique IDs; a destroyed
 * context's entry (its address) is reused by the next one created, as a real driver may do, and its
 * modules die with it; a primary context gets a new ID each time it is
 * activated (its first retain, or after a reset). Streams can be marked as
 * being captured (fake_cuda_capture): loading a module is then refused,
 * as in global capture mode. For the soak program (tests/gpu/soak.c) it
 * also has contexts, streams and "device" memory (host memory) through the
 * driver API, and runs the soak's three kernels (by their symbol's name) on
 * the host, atomically, so that the program checks its results here as on
 * a GPU. A stream made by cuStreamCreate belongs to its context: launching
 * on it from another context fails, as on a GPU. It is a test double for
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
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_NOT_FOUND = 500,
	CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
	CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906
};

#define FAKE_CALLS(X) \
	X(cuInit) X(cuDeviceGet) X(cuDeviceGetAttribute) X(cuCtxGetCurrent) X(cuCtxSetCurrent) \
	X(cuCtxGetDevice) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease_v2) X(cuModuleLoadData) \
	X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetAttribute) \
	X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuGetErrorName) X(cuDeviceGetCount) \
	X(cuCtxGetId) X(cuStreamIsCapturing) X(cuCtxCreate_v2) X(cuCtxDestroy_v2) X(cuMemAlloc_v2) X(cuMemFree_v2) \
	X(cuMemcpyHtoD_v2) X(cuMemcpyDtoH_v2) X(cuStreamCreate) X(cuStreamDestroy_v2) X(cuStreamSynchronize) \
	X(cuCtxSynchronize) X(cuTensorMapEncodeTiled)

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

#define MAX_CTX 1024
#define MAX_MODULES 16384
#define MAX_FUNCS 65536
#define MAX_CAPTURING 8

typedef struct fake_ctx {
	int device, primary, live;
	unsigned long long id;
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
/* the first FAKE_MAX_DEVICES are the primary contexts */
static unsigned long long next_ctx_id = 1;
static void *capturing[MAX_CAPTURING];
static fake_module modules[MAX_MODULES];
static int n_modules;
static fake_func funcs[MAX_FUNCS];
static int n_funcs;
static int initialized;
static fake_launch last;
static int n_param_sizes, param_sizes[16];
static fake_tensormap last_map;
#define RECENT_MAPS 8
static fake_tensormap recent_maps[RECENT_MAPS]; /* a ring: the call numbered n at n % RECENT_MAPS */
static unsigned long long n_encode_calls;
static __thread fake_ctx *current;

#define MAX_STREAMS 4096
typedef struct fake_stream {
	fake_ctx *ctx;
	int live;
} fake_stream;
static fake_stream streams[MAX_STREAMS];
static long long per_ctx_launches[MAX_CTX];

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

/* The first free entry: a destroyed context's address comes back. */
FAKE_API void *fake_cuda_ctx_create(int device)
{
	fake_ctx *c = NULL;
	int i;
	pthread_mutex_lock(&lock);
	for (i = FAKE_MAX_DEVICES; i < MAX_CTX && !c; i++)
		if (!contexts[i].live)
			c = &contexts[i];
	if (c) {
		c->device = device;
		c->primary = 0;
		c->live = 1;
		c->id = next_ctx_id++;
	}
	pthread_mutex_unlock(&lock);
	return c;
}

/* Locked: the context's modules die with it. */
static void kill_modules(fake_ctx *c)
{
	int i;
	for (i = 0; i < n_modules; i++)
		if (modules[i].ctx == c && modules[i].live) {
			modules[i].live = 0;
			free(modules[i].text);
			modules[i].text = NULL;
		}
}

/* As cuCtxDestroy: the context and its modules are gone; it is no longer
 * current on the calling thread. */
FAKE_API void fake_cuda_ctx_destroy(void *ctx)
{
	fake_ctx *c = (fake_ctx *)ctx;
	pthread_mutex_lock(&lock);
	c->live = 0;
	kill_modules(c);
	pthread_mutex_unlock(&lock);
	if (current == c)
		current = NULL;
}

/* As cuDevicePrimaryCtxReset: the primary context's resources are freed;
 * the next retain activates it again, with a new ID. */
FAKE_API void fake_cuda_primary_reset(int device)
{
	pthread_mutex_lock(&lock);
	contexts[device].live = 0;
	kill_modules(&contexts[device]);
	pthread_mutex_unlock(&lock);
}

FAKE_API void fake_cuda_capture(void *stream, int on)
{
	int i;
	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_CAPTURING; i++) {
		if (on && !capturing[i]) {
			capturing[i] = stream;
			break;
		}
		if (!on && capturing[i] == stream) {
			capturing[i] = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}

/* Locked. */
static int any_capturing(void)
{
	int i;
	for (i = 0; i < MAX_CAPTURING; i++)
		if (capturing[i])
			return 1;
	return 0;
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
	const char *env = getenv("FAKE_CUDA_INIT_ERROR"), *devices = getenv("FAKE_CUDA_DEVICES");
	int f = enter(FAKE_cuInit);
	if (f)
		return f;
	if (env)
		return atoi(env);
	/* the soak asks for devices this way (the tests call fake_cuda_set_devices) */
	if (devices && atoi(devices) >= 1 && atoi(devices) <= FAKE_MAX_DEVICES)
		n_devices = atoi(devices);
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
	int f = enter(FAKE_cuCtxSetCurrent), live;
	if (f)
		return f;
	if (ctx) {
		pthread_mutex_lock(&lock);
		live = ((fake_ctx *)ctx)->live;
		pthread_mutex_unlock(&lock);
		if (!live)
			return CUDA_ERROR_INVALID_CONTEXT;
	}
	current = (fake_ctx *)ctx;
	return CUDA_SUCCESS;
}

FAKE_API int cuCtxGetDevice(int *device)
{
	int f = enter(FAKE_cuCtxGetDevice);
	if (f)
		return f;
	if (!current || !current->live)
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
	if (!contexts[device].live) {
		contexts[device].live = 1;
		contexts[device].id = next_ctx_id++;
	}
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
	/* the last release destroys it */
	if (--primary_refs[device] == 0) {
		contexts[device].live = 0;
		kill_modules(&contexts[device]);
	}
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
	if (any_capturing()) {
		pthread_mutex_unlock(&lock);
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	if (!current->live || n_modules == MAX_MODULES) {
		pthread_mutex_unlock(&lock);
		return !current->live ? CUDA_ERROR_INVALID_CONTEXT : CUDA_ERROR_OUT_OF_MEMORY;
	}
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
	/* PTX too, as the real driver (JIT with default options) */
	if (strncmp((const char *)image, "// FAKE ptx", 11) == 0)
		return load(module, (const char *)image, "// FAKE ptx");
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
	pthread_mutex_lock(&lock);
	if (!m->live || m->ctx != current) {
		pthread_mutex_unlock(&lock);
		return !m->live ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_CONTEXT;
	}
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
	pthread_mutex_lock(&lock);
	if (!m->live || !defines(m->text, name)) {
		pthread_mutex_unlock(&lock);
		return !m->live ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_NOT_FOUND;
	}
	if (n_funcs == MAX_FUNCS) {
		pthread_mutex_unlock(&lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
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

/* Launches of tma_k whose map (parameter 5) is not one this driver
 * encoded for the base pointer (parameter 0), and of hmap_k whose maps
 * (parameters 8, 9, 10) are not those of its pointers (3, 0, 0). */
static int map_mismatches;

FAKE_API int fake_cuda_map_mismatches(void) { return __atomic_load_n(&map_mismatches, __ATOMIC_RELAXED); }

/* The soak's kernels, on the host: soak_inc(p, n) (and the raw baseline's
 * soak_raw_inc) adds 1 to p[0..n),
 * soak_axpy(x, y, n, a) adds a * x[i] to y[i], soak_acc(c, v) adds v to
 * c[0]; tma_k and hmap_k check their maps against their base pointers
 * (a torn map is counted); other symbols run nothing. */
static void run_kernel(const char *symbol, void **params)
{
	static const int hmap_maps[3] = {8, 9, 10}, hmap_bases[3] = {3, 0, 0};
	int32_t *p, *x, n, a, i;
	unsigned long long base, words[16];
	if (strcmp(symbol, "tma_k") == 0 || strcmp(symbol, "hmap_k") == 0) {
		int hmap = symbol[0] == 'h';
		for (i = 0; i < (hmap ? 3 : 1); i++) {
			memcpy(&base, params[hmap ? hmap_bases[i] : 0], sizeof base);
			memcpy(words, params[hmap ? hmap_maps[i] : 5], sizeof words);
			if ((words[0] & ~0xffffffffull) != FAKE_MAP_MAGIC || words[1] != base || words[2] != base)
				__atomic_add_fetch(&map_mismatches, 1, __ATOMIC_RELAXED);
		}
		return;
	}
	if (strncmp(symbol, "soak_inc", 8) == 0 || strcmp(symbol, "soak_raw_inc") == 0) {
		memcpy(&p, params[0], sizeof p);
		memcpy(&n, params[1], sizeof n);
		for (i = 0; i < n; i++)
			__atomic_add_fetch(&p[i], 1, __ATOMIC_RELAXED);
	} else if (strncmp(symbol, "soak_axpy", 9) == 0) {
		memcpy(&x, params[0], sizeof x);
		memcpy(&p, params[1], sizeof p);
		memcpy(&n, params[2], sizeof n);
		memcpy(&a, params[3], sizeof a);
		for (i = 0; i < n; i++)
			__atomic_add_fetch(&p[i], a * __atomic_load_n(&x[i], __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	} else if (strncmp(symbol, "soak_acc", 8) == 0) {
		memcpy(&p, params[0], sizeof p);
		memcpy(&a, params[1], sizeof a);
		__atomic_add_fetch(p, a, __ATOMIC_RELAXED);
	}
}

static int launch(fake_func *fn, const unsigned int grid[3], const unsigned int block[3], unsigned int shared,
		  void *stream, void **params, void **extra, int ex, const unsigned int cluster[3])
{
	int i, count;
	fake_stream *st = (fake_stream *)stream;
	int own = st >= streams && st < streams + MAX_STREAMS;
	pthread_mutex_lock(&lock);
	if (!fn->module->live || fn->module->ctx != current || !current->live || extra || !params ||
	    shared > (unsigned int)fn->max_dynamic_shared || (own && (!st->live || st->ctx != current))) {
		int r = !fn->module->live ? CUDA_ERROR_INVALID_HANDLE
			: fn->module->ctx != current || !current->live ? CUDA_ERROR_INVALID_CONTEXT
			: own ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE;
		pthread_mutex_unlock(&lock);
		return r;
	}
	if (own) {
		/* the soak: no launch record (its threads would fight over it) */
		per_ctx_launches[current - contexts]++;
		pthread_mutex_unlock(&lock);
		run_kernel(fn->name, params);
		return CUDA_SUCCESS;
	}
	per_ctx_launches[current - contexts]++;
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
	for (i = 0; i < n_param_sizes; i++) {
		if (param_sizes[i] == 128 && last.n_maps < 4) {
			memcpy(last.maps[last.n_maps], params[i], 128);
			last.map_misalign[last.n_maps++] = (unsigned int)((uintptr_t)params[i] % 64);
		} else if (param_sizes[i] <= 8) {
			memcpy(&last.params[i], params[i], (size_t)param_sizes[i]);
		}
	}
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
		int programmatic;
		int cooperative;
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
	int f = enter(FAKE_cuLaunchKernelEx), policy = 0, programmatic = 0, cooperative = 0, r;
	if (f)
		return f;
	for (i = 0; i < config->n_attrs; i++) {
		const launch_attr *a = &config->attrs[i];
		if (a->id == 5 && (a->value.policy == 0 || a->value.policy == 1 || a->value.policy == 2)) {
			policy = a->value.policy;
			continue;
		}
		if (a->id == 6 && (a->value.programmatic == 0 || a->value.programmatic == 1)) {
			programmatic = a->value.programmatic;
			continue;
		}
		if (a->id == 2 && (a->value.cooperative == 0 || a->value.cooperative == 1)) {
			cooperative = a->value.cooperative;
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
	last.programmatic = programmatic;
	last.cooperative = cooperative;
	pthread_mutex_unlock(&lock);
	return r;
}
#endif

FAKE_API int cuDeviceGetCount(int *count)
{
	int f = enter(FAKE_cuDeviceGetCount);
	if (f)
		return f;
	if (!initialized)
		return CUDA_ERROR_NOT_INITIALIZED;
	*count = n_devices;
	return CUDA_SUCCESS;
}

FAKE_API void fake_cuda_last_tensormap(fake_tensormap *out)
{
	pthread_mutex_lock(&lock);
	*out = last_map;
	pthread_mutex_unlock(&lock);
}

FAKE_API int fake_cuda_recent_tensormap(int back, fake_tensormap *out)
{
	int ok;
	pthread_mutex_lock(&lock);
	ok = back >= 0 && back < RECENT_MAPS && (unsigned long long)back < n_encode_calls;
	if (ok)
		*out = recent_maps[(n_encode_calls - 1 - (unsigned long long)back) % RECENT_MAPS];
	pthread_mutex_unlock(&lock);
	return ok;
}

#ifndef FAKE_CUDA_OMIT_CTX_ID
FAKE_API int cuCtxGetId(void *ctx, unsigned long long *id)
{
	fake_ctx *c = (fake_ctx *)ctx;
	int f = enter(FAKE_cuCtxGetId), r = CUDA_SUCCESS;
	if (f)
		return f;
	if (!c)
		c = current;
	pthread_mutex_lock(&lock);
	if (!c || !c->live)
		r = CUDA_ERROR_INVALID_CONTEXT;
	else
		*id = c->id;
	pthread_mutex_unlock(&lock);
	return r;
}

/* The driver's rules (CUDA 12 documentation of cuTensorMapEncodeTiled)
 * for the tiled, non-interleaved maps the loader asks for. */
FAKE_API int cuTensorMapEncodeTiled(void *map, int data_type, unsigned int rank, void *address, const unsigned long long *dims,
				    const unsigned long long *strides, const unsigned int *box, const unsigned int *element_strides,
				    int interleave, int swizzle, int l2_promotion, int oob_fill)
{
	static const unsigned int bytes[13] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
	static unsigned long long n_maps_encoded; /* under the lock */
	unsigned long long words[16] = {0};
	unsigned int i, e;
	int f = enter(FAKE_cuTensorMapEncodeTiled), ok;
	if (f)
		return f;
	ok = map && data_type >= 0 && data_type <= 12 && rank >= 1 && rank <= 5 && (uintptr_t)address % 16 == 0 &&
	     interleave == 0 && swizzle >= 0 && swizzle <= 3 && l2_promotion >= 0 && l2_promotion <= 3 &&
	     (oob_fill == 0 || oob_fill == 1);
	e = ok ? bytes[data_type] : 1;
	for (i = 0; ok && i < rank; i++) {
		ok = dims[i] >= 1 && dims[i] <= 1ull << 32 && box[i] >= 1 && box[i] <= 256 && element_strides[i] >= 1 &&
		     element_strides[i] <= 8;
		if (ok && i > 0)
			ok = strides[i - 1] % 16 == 0 && strides[i - 1] < 1ull << 40;
	}
	/* the innermost box row: whole 16-byte units, within the swizzle span */
	if (ok)
		ok = box[0] * e % 16 == 0 && (swizzle == 0 || box[0] * e <= (16u << swizzle));
	pthread_mutex_lock(&lock);
	memset(&last_map, 0, sizeof last_map);
	last_map.data_type = data_type;
	last_map.rank = rank;
	last_map.address = (unsigned long long)(uintptr_t)address;
	for (i = 0; i < rank && i < 5; i++) {
		last_map.dims[i] = dims[i];
		last_map.box[i] = box[i];
		last_map.element_strides[i] = element_strides[i];
		if (i > 0)
			last_map.strides[i - 1] = strides[i - 1];
	}
	last_map.interleave = interleave;
	last_map.swizzle = swizzle;
	last_map.l2_promotion = l2_promotion;
	last_map.oob_fill = oob_fill;
	last_map.map_misalign = (unsigned int)((uintptr_t)map % 64);
	recent_maps[n_encode_calls++ % RECENT_MAPS] = last_map;
	if (ok && (uintptr_t)map % 64 == 0)
		words[0] = FAKE_MAP_MAGIC + ++n_maps_encoded;
	pthread_mutex_unlock(&lock);
	if (!ok || (uintptr_t)map % 64)
		return CUDA_ERROR_INVALID_VALUE;
	words[1] = words[2] = (unsigned long long)(uintptr_t)address;
	memcpy(map, words, sizeof words);
	return CUDA_SUCCESS;
}

FAKE_API int cuStreamIsCapturing(void *stream, int *status)
{
	int f = enter(FAKE_cuStreamIsCapturing), i, r = CUDA_SUCCESS;
	if (f)
		return f;
	*status = 0;
	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_CAPTURING; i++)
		if (capturing[i] && capturing[i] == stream)
			*status = 1;
	/* the legacy default stream while another stream captures */
	if (!stream && any_capturing())
		r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
	pthread_mutex_unlock(&lock);
	return r;
}
#endif

FAKE_API int cuCtxCreate_v2(void **ctx, unsigned int flags, int device)
{
	int f = enter(FAKE_cuCtxCreate_v2);
	(void)flags;
	if (f)
		return f;
	if (device < 0 || device >= n_devices)
		return CUDA_ERROR_INVALID_DEVICE;
	*ctx = fake_cuda_ctx_create(device);
	if (!*ctx)
		return CUDA_ERROR_OUT_OF_MEMORY;
	current = (fake_ctx *)*ctx;
	return CUDA_SUCCESS;
}

FAKE_API int cuCtxDestroy_v2(void *ctx)
{
	int f = enter(FAKE_cuCtxDestroy_v2);
	if (f)
		return f;
	if (!ctx || !((fake_ctx *)ctx)->live || ((fake_ctx *)ctx)->primary)
		return CUDA_ERROR_INVALID_CONTEXT;
	fake_cuda_ctx_destroy(ctx);
	return CUDA_SUCCESS;
}

FAKE_API int cuCtxSynchronize(void)
{
	int f = enter(FAKE_cuCtxSynchronize);
	return f ? f : current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/* "Device" memory is host memory; CUdeviceptr holds its address. */
FAKE_API int cuMemAlloc_v2(unsigned long long *dptr, size_t size)
{
	int f = enter(FAKE_cuMemAlloc_v2);
	void *p;
	if (f)
		return f;
	if (!current)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!(p = calloc(1, size ? size : 1)))
		return CUDA_ERROR_OUT_OF_MEMORY;
	*dptr = (unsigned long long)(uintptr_t)p;
	return CUDA_SUCCESS;
}

FAKE_API int cuMemFree_v2(unsigned long long dptr)
{
	int f = enter(FAKE_cuMemFree_v2);
	if (f)
		return f;
	free((void *)(uintptr_t)dptr);
	return CUDA_SUCCESS;
}

/* Copies read and write atomically word by word: launches on other
 * threads may still be adding (a GPU copy is ordered by its stream; here
 * every launch completes before it returns, so only the sanitizer cares). */
static void copy_words(void *dst, const void *src, size_t size)
{
	size_t i;
	for (i = 0; i + 4 <= size; i += 4)
		__atomic_store_n((int32_t *)((char *)dst + i), __atomic_load_n((const int32_t *)((const char *)src + i), __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
	memcpy((char *)dst + i, (const char *)src + i, size - i);
}

FAKE_API int cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t size)
{
	int f = enter(FAKE_cuMemcpyHtoD_v2);
	if (f)
		return f;
	copy_words((void *)(uintptr_t)dst, src, size);
	return CUDA_SUCCESS;
}

FAKE_API int cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t size)
{
	int f = enter(FAKE_cuMemcpyDtoH_v2);
	if (f)
		return f;
	copy_words(dst, (const void *)(uintptr_t)src, size);
	return CUDA_SUCCESS;
}

FAKE_API int cuStreamCreate(void **stream, unsigned int flags)
{
	int f = enter(FAKE_cuStreamCreate), i;
	(void)flags;
	if (f)
		return f;
	if (!current)
		return CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_STREAMS && streams[i].live; i++)
		;
	if (i < MAX_STREAMS) {
		streams[i].live = 1;
		streams[i].ctx = current;
	}
	pthread_mutex_unlock(&lock);
	if (i == MAX_STREAMS)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*stream = &streams[i];
	return CUDA_SUCCESS;
}

FAKE_API int cuStreamDestroy_v2(void *stream)
{
	fake_stream *st = (fake_stream *)stream;
	int f = enter(FAKE_cuStreamDestroy_v2);
	if (f)
		return f;
	if (st < streams || st >= streams + MAX_STREAMS)
		return CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_lock(&lock);
	st->live = 0;
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

FAKE_API int cuStreamSynchronize(void *stream)
{
	int f = enter(FAKE_cuStreamSynchronize);
	(void)stream;
	return f;
}

/* Launches that reached a kernel in ctx since the start. */
FAKE_API long long fake_cuda_ctx_launches(void *ctx)
{
	long long n;
	pthread_mutex_lock(&lock);
	n = per_ctx_launches[(fake_ctx *)ctx - contexts];
	pthread_mutex_unlock(&lock);
	return n;
}

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
	case 900: *name = "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"; return 0;
	case 906: *name = "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"; return 0;
	default: *name = NULL; return CUDA_ERROR_INVALID_VALUE;
	}
}
