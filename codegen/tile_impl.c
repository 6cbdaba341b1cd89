/* tile_impl.c - tile.h's implementation inside tilec. `tilec inspect`
 * validates and lists blobs with the loader's own reader, so it accepts
 * exactly what a program linking tile.h would. */
#define TILE_IMPLEMENTATION
#include "../tile.h"

#include "cmd.h"

const uint8_t *tilec_grid_program(const tile_module *m, int kernel, int variant, uint32_t *size)
{
	const tile__variant *v = &m->variants[m->kernels[kernel].first_variant + (uint32_t)variant];
	*size = v->grid_size;
	return m->grid_code + v->grid_offset;
}
