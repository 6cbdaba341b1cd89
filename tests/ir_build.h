/* ir_build.h - terse IR construction for the verifier and interpreter
 * tests: one call per op, appended to the current region, with a source
 * location on a fake file so diagnostics can be checked by line. */
#ifndef TILE_TEST_IR_BUILD_H
#define TILE_TEST_IR_BUILD_H

#include "ir/ir.h"

static src_file irb_file = {"kernel.py", "line1\nline2\nline3\nline4\nline5\nline6\nline7\nline8\nline9\n", 54};

typedef struct irb {
	ir_func *f;
	ir_region *cur;
	int line; /* location of the next op */
} irb;

static inline irb irb_new(arena *a, int nparams, const ir_param *params)
{
	irb b = {ir_func_new(a, "k", nparams, params), NULL, 1};
	b.cur = &b.f->body;
	return b;
}

/* Appends an op with one result of type t (or none when t.kind is VOID). */
static inline ir_op *irb_op(irb *b, ir_opcode code, ir_type t, int nargs, const int *args)
{
	src_loc loc = {&irb_file, b->line, 1};
	ir_op *op = ir_op_new(b->f, code, loc, nargs, args, t.kind != IR_VOID, &t, 0);
	if (op)
		ir_region_append(b->f, b->cur, op);
	return op;
}

static inline int irb_res(ir_op *op)
{
	return op ? op->results[0] : -1;
}

static inline int irb_c(irb *b, ir_type t, int64_t i, double f)
{
	ir_op *op = irb_op(b, IR_OP_CONST, t, 0, NULL);
	op->ival = i;
	op->fval = f;
	return irb_res(op);
}

static inline int irb_1(irb *b, ir_opcode code, ir_type t, int a)
{
	return irb_res(irb_op(b, code, t, 1, &a));
}

static inline int irb_2(irb *b, ir_opcode code, ir_type t, int a0, int a1)
{
	int args[2] = {a0, a1};
	return irb_res(irb_op(b, code, t, 2, args));
}

static inline int irb_3(irb *b, ir_opcode code, ir_type t, int a0, int a1, int a2)
{
	int args[3] = {a0, a1, a2};
	return irb_res(irb_op(b, code, t, 3, args));
}

static inline int irb_arange(irb *b, int n)
{
	int32_t s[1] = {n};
	ir_op *op = irb_op(b, IR_OP_ARANGE, ir_block(ir_scalar(IR_I32), 1, s), 0, NULL);
	op->ival2 = n;
	return irb_res(op);
}

static inline int irb_pid(irb *b, int axis)
{
	ir_op *op = irb_op(b, IR_OP_PROGRAM_ID, ir_scalar(IR_I32), 0, NULL);
	op->axis = axis;
	return irb_res(op);
}

static inline int irb_cmp(irb *b, ir_cmp c, int x, int y)
{
	ir_type t = b->f->values[x].type;
	t.kind = IR_I1;
	t.pointee = 0;
	int args[2] = {x, y};
	ir_op *op = irb_op(b, IR_OP_CMP, t, 2, args);
	op->sub = c;
	return irb_res(op);
}

/* A load (mask/other optional: -1) of the pointer block's pointee. */
static inline int irb_load(irb *b, int ptr, int mask, int other)
{
	ir_type t = b->f->values[ptr].type;
	t.kind = t.pointee;
	t.pointee = 0;
	int args[3] = {ptr, mask, other}, n = 1 + (mask >= 0) + (other >= 0);
	ir_op *op = irb_op(b, IR_OP_LOAD, t, n, args);
	op->flags = (mask >= 0 ? IR_FLAG_HAS_MASK : 0) | (other >= 0 ? IR_FLAG_HAS_OTHER : 0);
	return irb_res(op);
}

static inline void irb_store(irb *b, int ptr, int val, int mask)
{
	int args[3] = {ptr, val, mask};
	ir_op *op = irb_op(b, IR_OP_STORE, ir_scalar(IR_VOID), mask >= 0 ? 3 : 2, args);
	op->flags = mask >= 0 ? IR_FLAG_HAS_MASK : 0;
}

static inline ir_type irb_vec(ir_type elem, int n)
{
	int32_t s[1] = {n};
	return ir_block(elem, 1, s);
}

static inline ir_type irb_mat(ir_type elem, int m, int n)
{
	int32_t s[2] = {m, n};
	return ir_block(elem, 2, s);
}

/* A FOR op over [lb, ub) by step with the carried inits; returns it with
 * its body made current (iv = params[0]); irb_end closes it with a YIELD. */
static inline ir_op *irb_for(irb *b, int lb, int ub, int step, int ninits, const int *inits)
{
	int args[8] = {lb, ub, step};
	ir_type types[8];
	for (int i = 0; i < ninits; i++) {
		args[3 + i] = inits[i];
		types[i] = b->f->values[inits[i]].type;
	}
	src_loc loc = {&irb_file, b->line, 1};
	ir_op *op = ir_op_new(b->f, IR_OP_FOR, loc, 3 + ninits, args, ninits, types, 1);
	ir_region_append(b->f, b->cur, op);
	ir_region_add_param(b->f, &op->regions[0], b->f->values[lb].type);
	for (int i = 0; i < ninits; i++)
		ir_region_add_param(b->f, &op->regions[0], types[i]);
	b->cur = &op->regions[0];
	return op;
}

/* Ends the current region with a terminator and makes `outer` current. */
static inline void irb_end(irb *b, ir_opcode term, int nvals, const int *vals, ir_region *outer)
{
	irb_op(b, term, ir_scalar(IR_VOID), nvals, vals);
	b->cur = outer;
}

#endif
