/* main.c - two blobs compiled at build time (add_kernels.h, scale_kernels.h,
 * from tile_add_kernels in CMakeLists.txt or the pattern rule in
 * ../make/Makefile): lists their kernels and images, then on a GPU computes
 * out = 2 * (x + y) and checks it. Without a CUDA driver it says so and
 * exits 0: listing needs no driver, only launching does.
 *
 * The device memory comes from the driver itself (dlopen, like tile.h):
 * allocating is the application's business, tile.h only loads and
 * launches. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILE_IMPLEMENTATION
#include "tile.h"
#include "add_kernels.h"
#include "scale_kernels.h"

enum { N = 100003 }; /* not a multiple of the blocks: the masks matter */

static void list(const char *blob, tile_status (*get)(tile_module **))
{
	tile_module *m;
	tile_status st = get(&m);
	if (st != TILE_SUCCESS) {
		printf("%s: %s: %s\n", blob, tile_status_string(st), tile_last_error());
		return;
	}
	for (int k = 0; k < tile_kernel_count(m); k++)
		printf("%s: kernel %s, %d variants\n", blob, tile_kernel_name(m, k), tile_variant_count(m, k));
	for (int i = 0; i < tile_image_count(m); i++) {
		tile_image_info im;
		if (tile_image_get_info(m, i, &im) == TILE_SUCCESS)
			printf("%s: image %s sm_%d%s\n", blob, im.kind ? "ptx" : "cubin", im.arch, im.flags & 1 ? "a" : "");
	}
}

typedef int (*mem_alloc_fn)(tile_deviceptr *, size_t);
typedef int (*mem_free_fn)(tile_deviceptr);
typedef int (*htod_fn)(tile_deviceptr, const void *, size_t);
typedef int (*dtoh_fn)(void *, tile_deviceptr, size_t);
typedef int (*sync_fn)(void);

static void *sym(void *lib, const char *name)
{
	return lib ? dlsym(lib, name) : NULL;
}

static int run(void)
{
	/* loads both modules into the primary context of device 0 */
	tile_status st = add_kernels_load();
	if (st == TILE_SUCCESS)
		st = scale_kernels_load();
	if (st != TILE_SUCCESS) {
		printf("no GPU to run on (%s: %s)\n", tile_status_string(st), tile_last_error());
		return st == TILE_ERROR_NO_DRIVER || st == TILE_ERROR_CUDA ? 0 : 1;
	}
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	mem_alloc_fn mem_alloc;
	mem_free_fn mem_free;
	htod_fn htod;
	dtoh_fn dtoh;
	sync_fn sync;
	void *p;
	p = sym(lib, "cuMemAlloc_v2"), memcpy(&mem_alloc, &p, sizeof p);
	p = sym(lib, "cuMemFree_v2"), memcpy(&mem_free, &p, sizeof p);
	p = sym(lib, "cuMemcpyHtoD_v2"), memcpy(&htod, &p, sizeof p);
	p = sym(lib, "cuMemcpyDtoH_v2"), memcpy(&dtoh, &p, sizeof p);
	p = sym(lib, "cuCtxSynchronize"), memcpy(&sync, &p, sizeof p);
	if (!mem_alloc || !mem_free || !htod || !dtoh || !sync)
		return fprintf(stderr, "libcuda.so.1 lacks an entry point\n"), 1;
	size_t bytes = sizeof(float) * N;
	float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
	tile_deviceptr dx = 0, dy = 0, dsum = 0, dout = 0;
	int bad = 0, rc = !x || !y || !out;
	for (int i = 0; !rc && i < N; i++)
		x[i] = (float)(i % 1000) * 0.5f, y[i] = (float)(i % 77) - 20.25f;
	rc = rc || mem_alloc(&dx, bytes) || mem_alloc(&dy, bytes) || mem_alloc(&dsum, bytes) || mem_alloc(&dout, bytes) ||
	     htod(dx, x, bytes) || htod(dy, y, bytes);
	if (!rc && ((st = add_kernel(NULL, dx, dy, dsum, N)) != TILE_SUCCESS ||
		    (st = scale_kernel(NULL, dsum, dout, 2.0f, N)) != TILE_SUCCESS)) {
		fprintf(stderr, "launch: %s: %s\n", tile_status_string(st), tile_last_error());
		rc = 1;
	}
	rc = rc || sync() || dtoh(out, dout, bytes);
	for (int i = 0; !rc && i < N; i++)
		if (out[i] != 2.0f * (x[i] + y[i]) && bad++ < 5)
			fprintf(stderr, "out[%d] = %g, expected %g\n", i, out[i], 2.0f * (x[i] + y[i]));
	if (!rc)
		printf("out = 2 * (x + y) over %d elements: %s\n", N, bad ? "WRONG" : "all correct");
	mem_free(dx), mem_free(dy), mem_free(dsum), mem_free(dout);
	free(x), free(y), free(out);
	add_kernels_unload();
	scale_kernels_unload();
	return rc || bad;
}

int main(void)
{
	list("add_kernels", add_kernels_module);
	list("scale_kernels", scale_kernels_module);
	return run();
}
