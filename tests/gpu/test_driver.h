/* test_driver.h - the CUDA driver as the GPU test programs (graph.c,
 * soak.c, launch_flags.c) call it, without its headers. A program defines
 * TEST_NAME (its name in messages) and TEST_DRIVER(X), the entry points it
 * calls as X(name, (parameter types)), cuGetErrorName among them, then
 * includes this for the table `cu`, test_driver_load(library), which opens
 * the library and finds every entry point (exit status 2 with a message
 * when it cannot), and CU(call), which exits with status 2 and the
 * driver's error name when a call fails. */
#ifndef TEST_DRIVER_H
#define TEST_DRIVER_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

static struct {
#define TEST_FIELD(name, params) CUresult(*name) params;
	TEST_DRIVER(TEST_FIELD)
#undef TEST_FIELD
} cu;

static void test_driver_load(const char *library)
{
	void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL), *sym;
	if (!lib) {
		fprintf(stderr, "%s: cannot open %s: %s\n", TEST_NAME, library, dlerror());
		exit(2);
	}
#define TEST_LOAD(name, params) \
	if (!(sym = dlsym(lib, #name))) { \
		fprintf(stderr, "%s: the driver has no %s\n", TEST_NAME, #name); \
		exit(2); \
	} \
	memcpy(&cu.name, &sym, sizeof sym);
	TEST_DRIVER(TEST_LOAD)
#undef TEST_LOAD
}

static void die(const char *what, CUresult r)
{
	const char *name = NULL;
	if (cu.cuGetErrorName)
		cu.cuGetErrorName(r, &name);
	fprintf(stderr, "%s: %s: %s (%d)\n", TEST_NAME, what, name ? name : "?", r);
	exit(2);
}

#define CU(call) \
	do { \
		CUresult r_ = cu.call; \
		if (r_) \
			die(#call, r_); \
	} while (0)

#endif
