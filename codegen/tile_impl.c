/* tile_impl.c - tile.h's implementation inside tilec. `tilec inspect`
 * validates and lists blobs with the loader's own reader, so it accepts
 * exactly what a program linking tile.h would. */
#define TILE_IMPLEMENTATION
#include "../tile.h"
