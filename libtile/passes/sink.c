/* sink.c - global loads of the kernel's top level moved down to their
 * first user.
 *
 * A load whose value is needed only after a long run of arithmetic (a
 * dropout's mask, computed from Philox rounds, then applied to the loaded
 * block) is issued where the source wrote it, at the top. ptxas keeps a
 * predicated load's registers live from the kernel's entry (where the
 * predicate is off they hold whatever they held), so the loaded block
 * costs registers across all of that arithmetic: dropout ran on 48
 * registers (62.5% occupancy) where Triton's build runs on 32. Moved to
 * just before its first user, past pure ops only (never past a store, an
 * atomic, a barrier, assembly, a print or assert, or control flow), the
 * load means the same, and flagged IR_FLAG_SUNK, its registers are set
 * before it (the lowering: to `other`, or zeros, as Triton sets every
 * masked load's), so that they live only from there. Other loads are set
 * first only where a thread's accesses use many predicates
 * (nvptx/memory.c's SET_FIRST_PREDICATES): with few, setting them first
 * measured slower.
 * Loads inside loops stay where they are: there an early load is what
 * hides the latency of memory (and the pipeliner places its own).
 */
#include "passes/passes.h"

/* Whether a load may move past op: op neither writes memory nor orders
 * it, nor branches. Combine functions (scans, tl.reduce) are pure. */
static bool pure(const ir_op *op)
{
	if (ir_op_orders_memory(op))
		return false;
	switch (op->code) {
	case IR_OP_DEVICE_ASSERT:
	case IR_OP_DEVICE_PRINT:
	case IR_OP_INLINE_ASM:
	case IR_OP_FOR:
	case IR_OP_IF:
	case IR_OP_WHILE:
	case IR_OP_YIELD:
	case IR_OP_CONDITION:
	case IR_OP_LOCAL_ALLOC:
	case IR_OP_LOCAL_DEALLOC:
	case IR_OP_ASYNC_COPY:
	case IR_OP_ASYNC_COMMIT:
	case IR_OP_ASYNC_WAIT:
	case IR_OP_LOCAL_LOAD:
	case IR_OP_TMA_COPY:
	case IR_OP_TMA_WAIT:
		return false;
	default:
		return true;
	}
}

void sink_loads(ir_func *f)
{
	ir_region *r = &f->body;
	/* from the end, so that a load moved never passes one still to move */
	for (int i = r->nops - 1; i >= 0; i--) {
		ir_op *op = r->ops[i];
		if (op->code != IR_OP_LOAD || op->nresults != 1)
			continue;
		int j = i + 1;
		while (j < r->nops && !ir_op_reads(r->ops[j], op->results[0]) && pure(r->ops[j]))
			j++;
		if (j >= r->nops || !ir_op_reads(r->ops[j], op->results[0]) || j == i + 1)
			continue;
		for (int k = i; k < j - 1; k++)
			r->ops[k] = r->ops[k + 1];
		r->ops[j - 1] = op;
		op->flags |= IR_FLAG_SUNK;
	}
}
