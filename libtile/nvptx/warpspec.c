/* warpspec.c - the two sides of a warp-specialized loop (sm_90a).
 *
 * passes/partition.c marks a `tl.range(..., warp_specialize=True)` loop
 * fed by TMA rings (or such a loop of two dots it chooses itself), its
 * copies and the scalars they read as the producer warp's program
 * (IR_FLAG_PRODUCER). The block runs one warp more than
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
 * away (tma.c), and the producer is done. A loop after it with rings of
 * its own (causal attention's diagonal) is the consumers': they set its
 * rings up and issue its copies as without specialization.
 *
 * The producer is one warp where a second block could share the SM (2
 * blocks of 8 warps of 128x128 tiles need 90 registers a thread; a warp
 * group more would leave 80), and for a matmul's one dot, where a warp
 * group measured no faster. Where two consumer warp groups run a loop of
 * two dots (attention's) and the rings alone keep a second block out, it
 * is a warp group that hands registers to the consumers, as
 * CUTLASS's and FlashAttention-3's kernels do: ptxas holds a block of 288
 * threads to the registers of 384 (168 a thread) and serializes the wgmma
 * of a consumer that needs more (attention at head dim 128), so the block
 * runs 384 threads that start at 168 (.maxnreg), the producer's drop to 40
 * and the two consumer warp groups' rise to 232 (setmaxnreg), which fills
 * the SM's 64K exactly; ptxas assembles each side within its count.
 */
#include "nvptx/lower.h"
#include "passes/passes.h"

#include <stdio.h>
#include <string.h>

/* A producer warp group: its warps, and the registers a thread of the
 * block has at the entry (65536 / 384, in 8s), then on the producer's side
 * and on the two consumer groups' (128 * 40 + 256 * 232 = 384 * 168) */
enum { WS_GROUP_WARPS = 4, WS_ENTRY_REGS = 168, WS_PRODUCER_REGS = 40, WS_CONSUMER_REGS = 232 };
_Static_assert(3 * 128 * WS_ENTRY_REGS <= TARGET_SM_REGISTERS &&
		       128 * WS_PRODUCER_REGS + 2 * 128 * WS_CONSUMER_REGS <= 3 * 128 * WS_ENTRY_REGS,
	       "the two sides' registers fit the block's");

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
	w->ws_producer_warps = PARTITION_PRODUCER_WARPS;
	/* two consumer warp groups over a body of two dots or more at its top
	 * level (attention's): they take turns at the first and the last
	 * (lw_pp_begin) */
	const ir_region *body = &loop->regions[0];
	w->ws_dot_first = w->ws_dot_last = NULL;
	for (int i = 0; i < body->nops && f->num_warps == 2 * WS_GROUP_WARPS; i++)
		if (body->ops[i]->code == IR_OP_DOT) {
			if (!w->ws_dot_first)
				w->ws_dot_first = body->ops[i];
			w->ws_dot_last = body->ops[i];
		}
	if (w->ws_dot_first == w->ws_dot_last) {
		w->ws_dot_first = w->ws_dot_last = NULL;
		return true;
	}
	/* there, a producer warp group where the rings alone keep a second
	 * block off the SM (a matmul's one dot, measured, gains nothing from it) */
	uint64_t rings = 0;
	for (int i = 0; i < f->body.nops; i++) {
		const ir_op *op = f->body.ops[i];
		if (op->code == IR_OP_LOCAL_ALLOC && w->p->ring[op->results[0]] && lw_ws_ring(w, op->results[0]))
			rings += (uint64_t)lw_vtype(w, op->results[0]).shape[0] * w->p->ring[op->results[0]]->tile_bytes +
				 lw_tma_barrier_bytes(w, op->results[0]);
	}
	if (!f->maxnreg && 2 * (rings + TARGET_BLOCK_RESERVED_SMEM) > target_smem_per_sm(90))
		w->ws_producer_warps = WS_GROUP_WARPS;
	return true;
}

bool lw_ws_ring(const lw *w, int ring)
{
	return w->ws_loop && partition_ring(w->ws_loop, ring);
}

uint32_t lw_ws_threads(const lw *w)
{
	return 32u * (uint32_t)(w->f->num_warps + (w->ws_loop ? w->ws_producer_warps : 0));
}

int lw_ws_entry_regs(const lw *w)
{
	return w->ws_loop && w->ws_producer_warps == WS_GROUP_WARPS ? WS_ENTRY_REGS : 0;
}

void lw_ws_side_entered(lw *w)
{
	if (!lw_ws_entry_regs(w))
		return;
	char text[64];
	snprintf(text, sizeof text, "setmaxnreg.%s.sync.aligned.u32 %d;", w->ws_role == LW_WS_PRODUCER ? "dec" : "inc",
		 w->ws_role == LW_WS_PRODUCER ? WS_PRODUCER_REGS : WS_CONSUMER_REGS);
	lw_asm_call(w, w->vd, text, "~{memory}", NULL, 0, true);
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

/* the named barriers of the turns: 0 is the block's, 1 the consumers' */
#define PP_BARRIER 2

/* Turns (FlashAttention-3's ping-pong). Two consumer warpgroups each own
 * their rows of a loop such as attention's, whose first dot (the scores)
 * is waited for within the iteration and whose last (P @ V) is left in
 * flight across the back edge. Each issues its last dot of iteration j and
 * its first of j + 1 in one turn, and the turns alternate, warpgroup 0
 * first: the tensor cores run one group's dots while the other computes
 * its softmax, instead of both groups' dots at once and then both
 * softmaxes. A turn starts with bar.sync on the group's own named barrier
 * (2 for group 0, 3 for group 1) and ends with bar.arrive on the other's,
 * 256 threads each:
 * before the loop group 1 arrives on group 0's barrier (group 0 goes
 * first) and each group starts its first turn (the first dot of iteration
 * 0); after it group 0 ends its last turn. Group 1's last arrival then has
 * no turn to start, so it is left out: each barrier sees as many arrivals
 * as waits. The groups are at most one turn apart, so the producer needs
 * copies two iterations ahead (a group waiting for its turn has released
 * the slots up to iteration j - 1's, and the other needs iteration j + 1's
 * copies to finish its turn). A barrier of all consumers in the body
 * (a value moved through shared memory) would deadlock against the turns:
 * lw_pp_end takes them out again where the body emitted one. */
static void pp_barrier(lw *w, bool sync, int for_group0, int for_group1)
{
	/* constant ids (a register one makes ptxas reserve all 16 barriers) */
	char text[160];
	int n = snprintf(text, sizeof text, "{\n\t.reg .pred p;\n\tsetp.eq.u32 p, $0, 0;\n");
	if (for_group0)
		n += snprintf(text + n, sizeof text - (size_t)n, "\t@p bar.%s %d, 256;\n", sync ? "sync" : "arrive",
			      for_group0);
	if (for_group1)
		n += snprintf(text + n, sizeof text - (size_t)n, "\t@!p bar.%s %d, 256;\n", sync ? "sync" : "arrive",
			      for_group1);
	snprintf(text + n, sizeof text - (size_t)n, "\t}");
	/* the consumer's warpgroup, 0 or 1 */
	LLVMValueRef group = LLVMBuildLShr(w->b, w->tid, lw_ci32(w, 7), "");
	LLVMValueRef call = lw_asm_call(w, w->vd, text, "r,~{memory}", &group, 1, true);
	/* never duplicated into paths some threads of a group do not take */
	unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10);
	LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(w->c, kind, 0));
	if (w->pp_ncalls < (int)(sizeof w->pp_calls / sizeof w->pp_calls[0]))
		w->pp_calls[w->pp_ncalls++] = call;
}

void lw_pp_begin(lw *w)
{
	w->pp_first = w->pp_last = NULL;
	w->pp_first_issued = w->pp_last_issued = false;
	w->pp_ncalls = 0;
	if (!w->ws_dot_first || w->ws_ahead < 2)
		return;
	w->pp_first = w->ws_dot_first;
	w->pp_last = w->ws_dot_last;
	w->pp_barriers_before = w->nbarriers;
	pp_barrier(w, false, 0, PP_BARRIER);
	pp_barrier(w, true, PP_BARRIER, PP_BARRIER + 1);
}

void lw_pp_dot(lw *w, const ir_op *dot, bool before)
{
	if (!w->pp_first || w->ws_role != LW_WS_CONSUMER)
		return;
	if (before && dot == w->pp_last) {
		w->pp_last_issued = true;
		pp_barrier(w, true, PP_BARRIER, PP_BARRIER + 1);
	} else if (!before && dot == w->pp_first) {
		w->pp_first_issued = true;
		pp_barrier(w, false, PP_BARRIER + 1, PP_BARRIER);
	}
}

void lw_pp_end(lw *w)
{
	if (!w->pp_first)
		return;
	if (w->pp_first_issued && w->pp_last_issued && w->nbarriers == w->pp_barriers_before && w->pp_ncalls == 4) {
		pp_barrier(w, false, PP_BARRIER + 1, 0);
	} else {
		for (int i = 0; i < w->pp_ncalls; i++)
			LLVMInstructionEraseFromParent(w->pp_calls[i]);
	}
	w->pp_first = w->pp_last = NULL;
	w->pp_ncalls = 0;
}
