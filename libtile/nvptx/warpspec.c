/* warpspec.c - the two sides of a warp-specialized loop (sm_90a).
 *
 * passes/partition.c marks a `tl.range(..., warp_specialize=True)` loop
 * fed by TMA rings, its copies and the scalars they read as the producer
 * warp's program (IR_FLAG_PRODUCER). The block runs one warp more than
 * num_warps, the last. Every thread sets the rings and their barriers up
 * at the kernel's entry, then the block splits (lower.c: lower_split).
 * The producer lowers only its marked program, and its first lane issues
 * every copy; before it refills a slot it waits on the slot's second
 * barrier, "empty", until the consumers released what the slot held
 * before. The consumers, warps 0 .. num_warps-1, run the program as
 * lowered without specialization (their layouts never see the producer)
 * with three differences: they issue no copies; where the plain code
 * would refill a slot they release it instead (one arrival a warp on its
 * empty barrier, once the wgmma group that read the slot is waited for:
 * the rule the plain code's refill follows, lower.c), and their barriers
 * are the named barrier 1 over the consumer threads, not the block's. The
 * two sides meet at the block's barrier again where the first ring is put
 * away (tma.c).
 *
 * One warp, not a warp group with its registers handed to the consumers
 * (setmaxnreg): ptxas assembles the consumers' code within the registers
 * every thread starts with whatever setmaxnreg asks for later, so a warp
 * group only takes registers from them (2 blocks of 8 warps of 128x128
 * tiles need 90 a thread; a warp group more leaves 80).
 */
#include "nvptx/lower.h"
#include "passes/passes.h"

#include <string.h>

bool lw_ws_plan(lw *w)
{
	const ir_func *f = w->f;
	int at = ir_producer_loop(f);
	const ir_op *loop = at >= 0 ? f->body.ops[at] : NULL;
	if (!loop || w->p->unit != DOT_UNIT_WGMMA)
		return true;
	const char *why = NULL;
	w->ws_needed = arena_alloc(w->a, sizeof(bool) * (size_t)(f->nvalues + 1));
	if (!w->ws_needed)
		return lw_oom(w);
	memset(w->ws_needed, 0, sizeof(bool) * (size_t)(f->nvalues + 1));
	if (!partition_slice(f, loop, w->ws_needed, &why))
		return lw_fail(w, loop, TILEC_ERR_INVALID, "internal: a producer loop's copies read %s", why);
	w->ws_loop = loop;
	w->ws_ahead = partition_ahead(f, loop);
	return true;
}

uint32_t lw_ws_threads(const lw *w)
{
	return 32u * (uint32_t)(w->f->num_warps + (w->ws_loop ? PARTITION_PRODUCER_WARPS : 0));
}

LLVMValueRef lw_ws_refill(lw *w, int ring, LLVMValueRef *use)
{
	/* copy j = iteration + ahead goes into slot j % tiles; the slot held
	 * copy j - tiles before, when j >= tiles: its use counts from 1 */
	int64_t tiles = lw_vtype(w, ring).shape[0];
	LLVMValueRef j = LLVMBuildAdd(w->b, w->ws_iter, lw_ci32(w, w->ws_ahead), "");
	if (use)
		*use = LLVMBuildUDiv(w->b, j, lw_ci32(w, tiles), "");
	return LLVMBuildICmp(w->b, LLVMIntUGE, j, lw_ci32(w, tiles), "");
}
