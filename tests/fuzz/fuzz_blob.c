/* fuzz_blob.c - fuzz target: tile.h's blob validation and inflate.
 *
 * The first input byte picks the mode. Even: the rest is a blob whose
 * total_size and checksum are patched to match, so that mutations reach the
 * metadata checks instead of dying at the checksum; a blob that passes is
 * exercised like a loader would (introspection, variant selection, grid
 * programs with zero and one arguments, inflate of every image). Odd: the
 * rest is a zlib stream inflated into a buffer whose size the next two
 * bytes give. Built by tests/fuzz/run.sh with libFuzzer or the plain
 * driver (tests/fuzz/driver.c). */
#define TILE_IMPLEMENTATION
#include "tile.h"

#include <stdlib.h>

static void exercise(tile_module *m)
{
	uint64_t values[TILE__MAX_PARAMS];
	void *args[TILE__MAX_PARAMS];
	uint32_t i, k;
	int v;
	for (i = 0; i < TILE__MAX_PARAMS; i++)
		args[i] = &values[i];
	for (v = 0; v < 2; v++) {
		for (i = 0; i < TILE__MAX_PARAMS; i++)
			values[i] = (uint64_t)v;
		for (k = 0; k < m->n_kernels; k++) {
			int64_t dims[3];
			int sel = tile__select_variant(m, &m->kernels[k], tile__dispatch(m, &m->kernels[k], args), args);
			tile_status st;
			if (sel >= 0 && m->variants[sel].grid_size &&
			    tile__grid_eval(m, &m->variants[sel], args, dims) == TILE_SUCCESS)
				tile__grid_limits(m, &m->kernels[k], dims, &st);
		}
	}
	for (k = 0; k < m->n_kernels; k++) {
		tile_param_info p;
		tile_variant_info vi;
		tile_constexpr_info c;
		int j, n = tile_variant_count(m, (int)k);
		tile_kernel_index(m, tile_kernel_name(m, (int)k));
		for (j = 0; j < tile_param_count(m, (int)k); j++)
			tile_param_get_info(m, (int)k, j, &p);
		for (v = 0; v < n; v++) {
			tile_variant_get_info(m, (int)k, v, &vi);
			for (j = 0; j < vi.n_constexprs; j++)
				tile_constexpr_get_info(m, (int)k, v, j, &c);
		}
	}
	for (i = 0; i < m->n_images; i++) {
		const tile__image *im = &m->images[i];
		uint8_t *out;
		/* Keep the fuzzer's memory bounded; validation allows 256 MiB. */
		if (im->compression != 1 || im->raw_size > (1u << 20))
			continue;
		out = (uint8_t *)malloc(im->raw_size);
		tile__inflate_image(i, m->blob + im->offset, im->size, out, im->raw_size);
		free(out);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] % 2 == 0) {
		size_t n = size - 1;
		uint8_t *blob = (uint8_t *)malloc(n ? n : 1);
		tile_module *m = NULL;
		memcpy(blob, data + 1, n);
		if (n >= 32) {
			uint32_t crc = tile__crc32(blob + 32, n - 32), i;
			for (i = 0; i < 4; i++) {
				blob[8 + i] = (uint8_t)(n >> (8 * i));
				blob[12 + i] = (uint8_t)(crc >> (8 * i));
			}
		}
		if (tile_module_create(blob, n, &m) == TILE_SUCCESS) {
			exercise(m);
			tile_module_destroy(m);
		}
		free(blob);
	} else if (size >= 3) {
		size_t out_len = ((size_t)data[1] | (size_t)data[2] << 8) * 16, at;
		uint8_t *out = (uint8_t *)malloc(out_len ? out_len : 1);
		tile__inflate(data + 3, size - 3, out, out_len, &at);
		free(out);
	}
	return 0;
}
