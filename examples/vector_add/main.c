/* main.c - vector add with tile: out = x + y over n floats on the GPU,
 * checked against the same sum on the host.
 *
 * kernel.py is compiled by examples/build.sh into kernels.c/kernels.h:
 * the blob and add_kernel(stream, x, y, out, n_elements), whose grid,
 * cdiv(n_elements, BLOCK_SIZE), is computed by the loader. Without a GPU
 * the program says so and runs kernel.py in tile's reference interpreter
 * instead (when built with it). Exit status 0 only when every element is
 * right. */
#include <stdio.h>
#include <stdlib.h>

#define TILE_IMPLEMENTATION
#include "tile.h"
#include "kernels.h"
#include "common/gpu.h"
#ifdef EXAMPLE_CPU
#include "common/cpu.h"
#endif

enum { N = (1 << 20) + 3 }; /* not a multiple of the block: the mask matters */

static int run_gpu(const float *x, const float *y, float *out)
{
	size_t bytes = sizeof(float) * N;
	gpu_ptr dx = 0, dy = 0, dout = 0;
	int rc = gpu_check(gpu.alloc(&dx, bytes), "cuMemAlloc") || gpu_check(gpu.alloc(&dy, bytes), "cuMemAlloc") ||
		 gpu_check(gpu.alloc(&dout, bytes), "cuMemAlloc") || gpu_check(gpu.htod(dx, x, bytes), "cuMemcpyHtoD") ||
		 gpu_check(gpu.htod(dy, y, bytes), "cuMemcpyHtoD");
	if (!rc) {
		tile_status st = add_kernel(NULL, dx, dy, dout, N);
		if (st != TILE_SUCCESS) {
			fprintf(stderr, "add_kernel: %s: %s\n", tile_status_string(st), tile_last_error());
			rc = 1;
		}
	}
	rc = rc || gpu_check(gpu.sync(), "cuCtxSynchronize") || gpu_check(gpu.dtoh(out, dout, bytes), "cuMemcpyDtoH");
	gpu.free(dx);
	gpu.free(dy);
	gpu.free(dout);
	kernels_unload();
	return rc;
}

static int run_cpu(float *x, float *y, float *out)
{
#ifdef EXAMPLE_CPU
	const uint32_t grid[3] = {(N + EXAMPLE_BLOCK - 1) / EXAMPLE_BLOCK, 1, 1};
	const cpu_arg args[] = {
		{x, sizeof(float) * N, 0}, {y, sizeof(float) * N, 0}, {out, sizeof(float) * N, 0}, {NULL, 0, N},
	};
	return cpu_run(EXAMPLE_PY, "add_kernel", EXAMPLE_SIG, grid, args, 4);
#else
	(void)x, (void)y, (void)out;
	fprintf(stderr, "built without the reference interpreter\n");
	return 1;
#endif
}

int main(void)
{
	float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N), *out = malloc(sizeof(float) * N);
	char why[128];
	int rc, bad = 0;
	if (!x || !y || !out)
		return 1;
	for (int i = 0; i < N; i++) {
		x[i] = (float)(i % 1000) * 0.5f;
		y[i] = (float)(i % 77) - 20.25f;
		out[i] = -1.0f;
	}
	if (gpu_open(why, sizeof why) == 0) {
		printf("vector_add: %d elements on the GPU\n", N);
		rc = run_gpu(x, y, out);
	} else {
		printf("vector_add: no GPU (%s): running kernel.py in the reference interpreter\n", why);
		rc = run_cpu(x, y, out);
	}
	for (int i = 0; !rc && i < N; i++)
		if (out[i] != x[i] + y[i] && bad++ < 5)
			fprintf(stderr, "out[%d] = %g, expected %g\n", i, out[i], x[i] + y[i]);
	if (!rc)
		printf("vector_add: out[0] = %g, out[%d] = %g: %s\n", out[0], N - 1, out[N - 1],
		       bad ? "WRONG" : "all correct");
	free(x);
	free(y);
	free(out);
	return rc || bad ? 1 : 0;
}
