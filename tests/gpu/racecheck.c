/* racecheck.c - a small C driver for compute-sanitizer: launches the two
 * tier-2 reductions of .gpu/race/race.{c,h} (a row softmax: warp shuffles and
 * a cross-warp exchange through shared memory; a column sum over a
 * 256-row tile) on awkward shapes, checks the statuses and a few values, so
 * that racecheck and memcheck watch tile's shared-memory code run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TILE_IMPLEMENTATION
#include "tile.h"
#include "race.h"
#include "common/gpu.h"

enum { M = 200, N = 781 };

int main(void)
{
	char why[128];
	if (gpu_open(why, sizeof why) != 0) {
		printf("racecheck: no GPU (%s)\n", why);
		return 1;
	}
	size_t bytes = sizeof(float) * M * N;
	float *x = malloc(bytes), *y = malloc(bytes), col[N];
	gpu_ptr dx = 0, dy = 0, dcol = 0;
	int bad = 0;
	if (!x || !y)
		return 1;
	for (int i = 0; i < M * N; i++)
		x[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
	if (gpu_check(gpu.alloc(&dx, bytes), "cuMemAlloc") || gpu_check(gpu.alloc(&dy, bytes), "cuMemAlloc") ||
	    gpu_check(gpu.alloc(&dcol, sizeof col), "cuMemAlloc") || gpu_check(gpu.htod(dx, x, bytes), "cuMemcpyHtoD"))
		return 1;
	tile_status st = race_softmax(NULL, M, 1, 1, dy, dx, N, N, N);
	if (st == TILE_SUCCESS)
		st = race_colsum(NULL, dx, dcol, M, N, N);
	if (st != TILE_SUCCESS) {
		fprintf(stderr, "launch: %s: %s\n", tile_status_string(st), tile_last_error());
		return 1;
	}
	if (gpu_check(gpu.sync(), "cuCtxSynchronize") || gpu_check(gpu.dtoh(y, dy, bytes), "cuMemcpyDtoH") ||
	    gpu_check(gpu.dtoh(col, dcol, sizeof col), "cuMemcpyDtoH"))
		return 1;
	for (int r = 0; r < M; r++) {
		double s = 0;
		for (int c = 0; c < N; c++)
			s += y[r * N + c];
		bad += fabs(s - 1.0) > 1e-4;
	}
	for (int c = 0; c < N; c++) {
		double s = 0;
		for (int r = 0; r < M; r++)
			s += x[r * N + c];
		bad += fabs(s - col[c]) > 1e-3 * (1 + fabs(s));
	}
	printf("racecheck: softmax rows sum to 1, column sums right: %s\n", bad ? "NO" : "yes");
	gpu.free(dx);
	gpu.free(dy);
	gpu.free(dcol);
	race_unload();
	free(x);
	free(y);
	return bad != 0;
}
