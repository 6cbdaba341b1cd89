/* main.c - SiLU on bf16 with tile: out = x * sigmoid(x) on the GPU,
 * checked against a host computation in float.
 *
 * bf16 values travel as their 16-bit patterns (uint16_t); the kernel
 * computes in fp32 with Triton's fast exp and division, so the check allows
 * one bf16 rounding step (a relative 2^-7) plus a little. Without a GPU the
 * program says so and runs kernel.py in tile's reference interpreter. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILE_IMPLEMENTATION
#include "tile.h"
#include "kernels.h"
#include "common/gpu.h"
#ifdef EXAMPLE_CPU
#include "common/cpu.h"
#endif

enum { N = 1000003 };

static float bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static uint16_t float_to_bf16(float f) /* round to nearest even; no NaNs here */
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static int run_gpu(const uint16_t *x, uint16_t *out)
{
	size_t bytes = sizeof(uint16_t) * N;
	gpu_ptr dx = 0, dout = 0;
	int rc = gpu_check(gpu.alloc(&dx, bytes), "cuMemAlloc") || gpu_check(gpu.alloc(&dout, bytes), "cuMemAlloc") ||
		 gpu_check(gpu.htod(dx, x, bytes), "cuMemcpyHtoD");
	if (!rc) {
		tile_status st = silu_kernel(NULL, dx, dout, N);
		if (st != TILE_SUCCESS) {
			fprintf(stderr, "silu_kernel: %s: %s\n", tile_status_string(st), tile_last_error());
			rc = 1;
		}
	}
	rc = rc || gpu_check(gpu.sync(), "cuCtxSynchronize") || gpu_check(gpu.dtoh(out, dout, bytes), "cuMemcpyDtoH");
	gpu.free(dx);
	gpu.free(dout);
	kernels_unload();
	return rc;
}

static int run_cpu(uint16_t *x, uint16_t *out)
{
#ifdef EXAMPLE_CPU
	const uint32_t grid[3] = {(N + EXAMPLE_BLOCK - 1) / EXAMPLE_BLOCK, 1, 1};
	const cpu_arg args[] = {{x, sizeof(uint16_t) * N, 0}, {out, sizeof(uint16_t) * N, 0}, {NULL, 0, N}};
	return cpu_run(EXAMPLE_PY, "silu_kernel", EXAMPLE_SIG, grid, args, 3);
#else
	(void)x, (void)out;
	fprintf(stderr, "built without the reference interpreter\n");
	return 1;
#endif
}

int main(void)
{
	uint16_t *x = malloc(sizeof(uint16_t) * N), *out = malloc(sizeof(uint16_t) * N);
	char why[128];
	int rc, bad = 0;
	double worst = 0;
	if (!x || !out)
		return 1;
	for (int i = 0; i < N; i++) {
		x[i] = float_to_bf16((float)((int)((i * 7919u) % 20001u) - 10000) / 1000.0f); /* -10 .. 10 */
		out[i] = 0xffff;
	}
	if (gpu_open(why, sizeof why) == 0) {
		printf("silu: %d bf16 elements on the GPU\n", N);
		rc = run_gpu(x, out);
	} else {
		printf("silu: no GPU (%s): running kernel.py in the reference interpreter\n", why);
		rc = run_cpu(x, out);
	}
	for (int i = 0; !rc && i < N; i++) {
		float v = bf16_to_float(x[i]);
		double want = v / (1.0 + exp(-(double)v)), got = bf16_to_float(out[i]);
		double err = fabs(got - want) / (fabs(want) + 1e-6);
		if (err > worst)
			worst = err;
		if (!(err <= 1.0 / 128 + 1e-3) && bad++ < 5)
			fprintf(stderr, "out[%d] = %g, expected %g (x = %g)\n", i, got, want, v);
	}
	if (!rc)
		printf("silu: silu(%g) = %g, worst relative error %.2g: %s\n", bf16_to_float(x[1]),
		       bf16_to_float(out[1]), worst, bad ? "WRONG" : "all correct");
	free(x);
	free(out);
	return rc || bad ? 1 : 0;
}
