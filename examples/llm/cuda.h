/* cuda.h - the CUDA driver calls examples/llm makes, opened with dlopen as
 * tile.h opens them, so the program needs no CUDA headers or libraries to
 * build and only libcuda.so.1 to run. An extension of examples/common/gpu.h:
 * besides memory, streams (the decode step runs on one, non-blocking),
 * stream capture into a CUDA graph and its replay, and events for timing.
 * Each entry point is one X(name, parameter list) line; cu.name calls it. */
#ifndef LLM_CUDA_H
#define LLM_CUDA_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef unsigned long long cu_ptr;
typedef void *cu_handle; /* CUcontext, CUstream, CUgraph, CUgraphExec, CUevent */

#define LLM_CUDA_CALLS(X) \
	X(cuInit, (unsigned)) \
	X(cuDeviceGetCount, (int *)) \
	X(cuDeviceGet, (int *, int)) \
	X(cuDeviceGetName, (char *, int, int)) \
	X(cuDeviceGetAttribute, (int *, int, int)) \
	X(cuDevicePrimaryCtxRetain, (cu_handle *, int)) \
	X(cuDevicePrimaryCtxRelease_v2, (int)) \
	X(cuCtxSetCurrent, (cu_handle)) \
	X(cuMemAlloc_v2, (cu_ptr *, size_t)) \
	X(cuMemFree_v2, (cu_ptr)) \
	X(cuMemsetD8Async, (cu_ptr, unsigned char, size_t, cu_handle)) \
	X(cuMemcpyHtoDAsync_v2, (cu_ptr, const void *, size_t, cu_handle)) \
	X(cuMemcpyDtoHAsync_v2, (void *, cu_ptr, size_t, cu_handle)) \
	X(cuStreamCreate, (cu_handle *, unsigned)) \
	X(cuStreamDestroy_v2, (cu_handle)) \
	X(cuStreamSynchronize, (cu_handle)) \
	X(cuStreamBeginCapture_v2, (cu_handle, int)) \
	X(cuStreamEndCapture, (cu_handle, cu_handle *)) \
	X(cuGraphInstantiateWithFlags, (cu_handle *, cu_handle, unsigned long long)) \
	X(cuGraphLaunch, (cu_handle, cu_handle)) \
	X(cuGraphExecDestroy, (cu_handle)) \
	X(cuGraphDestroy, (cu_handle)) \
	X(cuEventCreate, (cu_handle *, unsigned)) \
	X(cuEventRecord, (cu_handle, cu_handle)) \
	X(cuEventSynchronize, (cu_handle)) \
	X(cuEventElapsedTime, (float *, cu_handle, cu_handle)) \
	X(cuEventDestroy_v2, (cu_handle)) \
	X(cuGetErrorName, (int, const char **))

#define LLM_CUDA_FIELD(name, params) int(*name) params;
static struct {
	void *lib;
	LLM_CUDA_CALLS(LLM_CUDA_FIELD)
} cu;
#undef LLM_CUDA_FIELD

enum {
	CU_ATTR_MULTIPROCESSOR_COUNT = 16,
	CU_ATTR_CC_MAJOR = 75,
	CU_ATTR_CC_MINOR = 76,
	CU_STREAM_NON_BLOCKING = 1,
	CU_CAPTURE_MODE_THREAD_LOCAL = 1,
};

/* Opens libcuda.so.1 and resolves every entry point; 0, or -1 with the
 * reason in why. */
static int cu_open(char *why, size_t cap)
{
	cu.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cu.lib) {
		snprintf(why, cap, "libcuda.so.1 not found");
		return -1;
	}
#define LLM_CUDA_SYM(name, params) \
	{ \
		void *p = dlsym(cu.lib, #name); \
		if (!p) { \
			snprintf(why, cap, "libcuda.so.1 lacks %s (driver too old?)", #name); \
			return -1; \
		} \
		memcpy(&cu.name, &p, sizeof p); \
	}
	LLM_CUDA_CALLS(LLM_CUDA_SYM)
#undef LLM_CUDA_SYM
	return 0;
}

/* Prints a failed call with the driver's error name; returns 1 on failure. */
static int cu_fail(int status, const char *what)
{
	const char *name = "?";
	if (status == 0)
		return 0;
	if (cu.cuGetErrorName)
		cu.cuGetErrorName(status, &name);
	fprintf(stderr, "llm: %s failed: %s (%d)\n", what, name ? name : "?", status);
	return 1;
}

#endif
