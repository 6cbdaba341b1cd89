/* gpu.h - just enough of the CUDA driver for the examples: libcuda opened
 * with dlopen (like tile.h, so no CUDA headers or libraries at build time),
 * the primary context of device 0 made current, device memory and copies.
 * Allocating memory is the application's business, not tile's: tile.h only
 * loads and launches kernels, in whatever context is current. */
#ifndef EXAMPLE_GPU_H
#define EXAMPLE_GPU_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef unsigned long long gpu_ptr;

static struct {
	int (*init)(unsigned);
	int (*device_count)(int *);
	int (*device_get)(int *, int);
	int (*primary_retain)(void **, int);
	int (*set_current)(void *);
	int (*alloc)(gpu_ptr *, size_t);
	int (*free)(gpu_ptr);
	int (*htod)(gpu_ptr, const void *, size_t);
	int (*dtoh)(void *, gpu_ptr, size_t);
	int (*sync)(void);
	int (*error_name)(int, const char **);
} gpu;

/* dlsym's object pointer copied into a function pointer (valid POSIX,
 * and quiet under -pedantic unlike a cast). */
static int gpu_sym(void *lib, const char *name, void *fn, size_t size)
{
	void *p = dlsym(lib, name);
	memcpy(fn, &p, size);
	return p != NULL;
}

/* 0 when a GPU is ready; otherwise why not, in why. */
static int gpu_open(char *why, size_t cap)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	int dev, n = 0;
	void *ctx;
	if (!lib) {
		snprintf(why, cap, "libcuda.so.1 not found");
		return -1;
	}
	if (!gpu_sym(lib, "cuInit", &gpu.init, sizeof gpu.init) ||
	    !gpu_sym(lib, "cuDeviceGetCount", &gpu.device_count, sizeof gpu.device_count) ||
	    !gpu_sym(lib, "cuDeviceGet", &gpu.device_get, sizeof gpu.device_get) ||
	    !gpu_sym(lib, "cuDevicePrimaryCtxRetain", &gpu.primary_retain, sizeof gpu.primary_retain) ||
	    !gpu_sym(lib, "cuCtxSetCurrent", &gpu.set_current, sizeof gpu.set_current) ||
	    !gpu_sym(lib, "cuMemAlloc_v2", &gpu.alloc, sizeof gpu.alloc) ||
	    !gpu_sym(lib, "cuMemFree_v2", &gpu.free, sizeof gpu.free) ||
	    !gpu_sym(lib, "cuMemcpyHtoD_v2", &gpu.htod, sizeof gpu.htod) ||
	    !gpu_sym(lib, "cuMemcpyDtoH_v2", &gpu.dtoh, sizeof gpu.dtoh) ||
	    !gpu_sym(lib, "cuCtxSynchronize", &gpu.sync, sizeof gpu.sync) ||
	    !gpu_sym(lib, "cuGetErrorName", &gpu.error_name, sizeof gpu.error_name)) {
		snprintf(why, cap, "libcuda.so.1 lacks a driver entry point");
		return -1;
	}
	if (gpu.init(0) != 0 || gpu.device_count(&n) != 0 || n == 0) {
		snprintf(why, cap, "no CUDA device");
		return -1;
	}
	if (gpu.device_get(&dev, 0) != 0 || gpu.primary_retain(&ctx, dev) != 0 || gpu.set_current(ctx) != 0) {
		snprintf(why, cap, "cannot create a context on device 0");
		return -1;
	}
	return 0;
}

/* Reports a failed driver call; returns its status. */
static int gpu_check(int status, const char *what)
{
	const char *name = "?";
	if (status != 0) {
		gpu.error_name(status, &name);
		fprintf(stderr, "%s failed: %s\n", what, name);
	}
	return status;
}

#endif
