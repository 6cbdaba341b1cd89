/* passes.h - rewrites of the tile IR between the front end and the
 * analyses.
 *
 * A pass takes a verified ir_func and leaves a verified ir_func; it needs
 * nothing but the IR. The order in which passes run is written out in one
 * function, compile_module (compile.c).
 */
#ifndef TILE_PASSES_H
#define TILE_PASSES_H

#include "ir/ir.h"

/* ======================================================================
 * pipeline.c - loads feeding tl.dot issued one loop iteration ahead
 * ====================================================================== */

/* With num_stages >= 2, rewrites each qualifying runtime for loop so that
 * the loads its dots read are issued an iteration early (a prologue, a
 * carried tile, the next tile loaded at the top of the body). The IR stays
 * valid; only ops are added and the pipelined loads removed. */
tilec_status pipeline_loads(tilec_ctx *ctx, ir_func *f);

#endif
