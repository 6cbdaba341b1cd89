/* test_verify.c - the IR verifier: a well-formed function passes, and each
 * rule (types, operand rules, arity, scoping, terminators, shapes) is
 * broken once, expecting an error at the offending op's line. */
#include "check.h"
#include "ir_build.h"

static const ir_type I32 = {IR_I32, 0, 0, {0}};
static const ir_type F32 = {IR_F32, 0, 0, {0}};

typedef struct fixture {
	arena *a;
	irb b;
	tilec_ctx *ctx;
} fixture;

static fixture setup(void)
{
	fixture fx;
	fx.a = arena_new();
	ir_param ps[3] = {{"x", ir_ptr(IR_F32), true, false, false, 0}, {"n", I32, false, false, false, 0}, {"s", F32, false, false, false, 0}};
	fx.b = irb_new(fx.a, 3, ps);
	fx.ctx = tilec_ctx_new();
	return fx;
}

/* Verifies, expects failure with `msg` at line `line`, and frees. */
static void expect_error(fixture *fx, int line, const char *msg)
{
	CHECK_EQ_INT(ir_verify(fx->ctx, fx->b.f), TILEC_ERR_SEMANTIC);
	char where[64];
	snprintf(where, sizeof where, "kernel.py:%d:1: error: IR verifier", line);
	CHECK_STR_CONTAINS(tilec_diagnostics(fx->ctx), where);
	CHECK_STR_CONTAINS(tilec_diagnostics(fx->ctx), msg);
	tilec_ctx_free(fx->ctx);
	arena_free(fx->a);
}

static void expect_ok(fixture *fx)
{
	CHECK_EQ_INT(ir_verify(fx->ctx, fx->b.f), TILEC_OK);
	CHECK_STR_CONTAINS(tilec_diagnostics(fx->ctx), "");
	if (tilec_error_count(fx->ctx))
		fprintf(stderr, "%s", tilec_diagnostics(fx->ctx));
	tilec_ctx_free(fx->ctx);
	arena_free(fx->a);
}

/* x[offs] * s stored back under a mask, inside a loop with a carried sum. */
static void test_valid(void)
{
	fixture fx = setup();
	irb *b = &fx.b;
	ir_type vi = irb_vec(I32, 64), vf = irb_vec(F32, 64), vp = irb_vec(ir_ptr(IR_F32), 64);
	int offs = irb_arange(b, 64);
	int mask = irb_cmp(b, IR_CMP_LT, offs, irb_1(b, IR_OP_SPLAT, vi, 1));
	int ptrs = irb_2(b, IR_OP_PTR_ADD, vp, irb_1(b, IR_OP_SPLAT, vp, 0), offs);
	int x = irb_load(b, ptrs, mask, irb_c(b, vf, 0, 0.0));
	irb_store(b, ptrs, irb_2(b, IR_OP_MUL, vf, x, irb_1(b, IR_OP_SPLAT, vf, 2)), mask);
	int zero = irb_c(b, F32, 0, 0.0);
	ir_op *loop = irb_for(b, irb_c(b, I32, 0, 0), 1, irb_c(b, I32, 1, 0), 1, &zero);
	ir_op *red = irb_op(b, IR_OP_REDUCE, F32, 1, &x);
	red->sub = IR_REDUCE_SUM;
	int s = irb_2(b, IR_OP_ADD, F32, loop->regions[0].params[1], red->results[0]);
	irb_end(b, IR_OP_YIELD, 1, &s, &b->f->body);
	irb_store(b, 0, loop->results[0], -1);
	expect_ok(&fx);
}

static void test_type_mismatch(void)
{
	fixture fx = setup();
	fx.b.line = 3;
	irb_2(&fx.b, IR_OP_ADD, F32, 1, 2); /* i32 + fp32 */
	expect_error(&fx, 3, "result type fp32 differs from operand type i32");
}

static void test_non_power_of_two(void)
{
	fixture fx = setup();
	fx.b.line = 2;
	ir_op *op = irb_op(&fx.b, IR_OP_ARANGE, irb_vec(I32, 100), 0, NULL);
	op->ival2 = 100;
	expect_error(&fx, 2, "invalid type <100xi32> (shapes must be powers of two)");
}

/* IR_FLAG_PRODUCER (passes/partition.c): on a scalar op and a
 * warp_specialize loop, not on a block or an unmarked loop. */
static void test_producer_marks(void)
{
	fixture fx = setup();
	fx.b.line = 5;
	fx.b.f->values[irb_2(&fx.b, IR_OP_ADD, I32, 1, 1)].def->flags |= IR_FLAG_PRODUCER;
	expect_ok(&fx);
	fx = setup();
	fx.b.line = 6;
	ir_op *op = irb_op(&fx.b, IR_OP_ARANGE, irb_vec(I32, 128), 0, NULL);
	op->ival2 = 128;
	op->flags |= IR_FLAG_PRODUCER;
	expect_error(&fx, 6, "marked as the producer's but not a warp_specialize loop, a TMA copy or a scalar op");
	fx = setup();
	irb *b = &fx.b;
	b->line = 7;
	ir_op *loop = irb_for(b, irb_c(b, I32, 0, 0), 1, irb_c(b, I32, 1, 0), 0, NULL);
	irb_end(b, IR_OP_YIELD, 0, NULL, &b->f->body);
	loop->flags |= IR_FLAG_PRODUCER;
	expect_error(&fx, 7, "marked as the producer's");
	fx = setup();
	b = &fx.b;
	loop = irb_for(b, irb_c(b, I32, 0, 0), 1, irb_c(b, I32, 1, 0), 0, NULL);
	irb_end(b, IR_OP_YIELD, 0, NULL, &b->f->body);
	loop->flags |= IR_FLAG_PRODUCER | IR_FLAG_WARP_SPECIALIZE;
	expect_ok(&fx);
}

static void test_arity(void)
{
	fixture fx = setup();
	fx.b.line = 4;
	irb_1(&fx.b, IR_OP_SUB, I32, 1);
	expect_error(&fx, 4, "expects 2 operand(s), has 1");
}

static void test_use_before_def(void)
{
	fixture fx = setup();
	int later = ir_value_new(fx.b.f, I32); /* a value no op defines yet */
	fx.b.line = 5;
	irb_2(&fx.b, IR_OP_ADD, I32, 1, later);
	expect_error(&fx, 5, "is used where it is not defined");
}

/* A value defined in a loop body is not visible after the loop. */
static void test_region_scope(void)
{
	fixture fx = setup();
	irb *b = &fx.b;
	ir_op *loop = irb_for(b, 1, 1, 1, 0, NULL);
	int inner = irb_2(b, IR_OP_ADD, I32, loop->regions[0].params[0], 1);
	irb_end(b, IR_OP_YIELD, 0, NULL, &b->f->body);
	b->line = 6;
	irb_2(b, IR_OP_MUL, I32, inner, 1);
	expect_error(&fx, 6, "is used where it is not defined");
}

static void test_for_yield_types(void)
{
	fixture fx = setup();
	irb *b = &fx.b;
	b->line = 7;
	int init = irb_c(b, F32, 0, 0.0);
	irb_for(b, 1, 1, 1, 1, &init);
	irb_end(b, IR_OP_YIELD, 1, (int[]){1}, &b->f->body); /* yields the i32 n */
	expect_error(&fx, 7, "body region yields i32 as value 0, expects fp32");
}

static void test_for_missing_yield(void)
{
	fixture fx = setup();
	irb *b = &fx.b;
	b->line = 2;
	int init = irb_c(b, F32, 0, 0.0);
	irb_for(b, 1, 1, 1, 1, &init);
	b->cur = &b->f->body;
	expect_error(&fx, 2, "body region does not end with 'yield'");
	/* also when nothing is carried, and for an if's empty else */
	fx = setup();
	b = &fx.b;
	b->line = 3;
	int c = irb_cmp(b, IR_CMP_GT, 1, irb_c(b, I32, 0, 0));
	src_loc loc = {&irb_file, 3, 1};
	ir_op *op = ir_op_new(b->f, IR_OP_IF, loc, 1, &c, 0, NULL, 2);
	ir_region_append(b->f, &b->f->body, op);
	b->cur = &op->regions[0];
	irb_end(b, IR_OP_YIELD, 0, NULL, &b->f->body);
	expect_error(&fx, 3, "else region does not end with 'yield'");
}

static void test_if_yield_count(void)
{
	fixture fx = setup();
	irb *b = &fx.b;
	b->line = 8;
	int c = irb_cmp(b, IR_CMP_GT, 1, irb_c(b, I32, 0, 0));
	src_loc loc = {&irb_file, 8, 1};
	ir_op *op = ir_op_new(b->f, IR_OP_IF, loc, 1, &c, 1, &I32, 2);
	ir_region_append(b->f, &b->f->body, op);
	b->cur = &op->regions[0];
	irb_end(b, IR_OP_YIELD, 1, (int[]){1}, &op->regions[1]);
	irb_end(b, IR_OP_YIELD, 0, NULL, &b->f->body);
	expect_error(&fx, 8, "else region's 'yield' has 0 value(s), expects 1");
}

static void test_while_terminators(void)
{
	fixture fx = setup();
	irb *b = &fx.b;
	b->line = 9;
	src_loc loc = {&irb_file, 9, 1};
	ir_op *w = ir_op_new(b->f, IR_OP_WHILE, loc, 1, (int[]){1}, 1, &I32, 2);
	ir_region_append(b->f, &b->f->body, w);
	int p = ir_region_add_param(b->f, &w->regions[0], I32);
	b->cur = &w->regions[0];
	irb_end(b, IR_OP_YIELD, 1, &p, &w->regions[1]); /* should be a condition */
	ir_region_add_param(b->f, &w->regions[1], I32);
	irb_end(b, IR_OP_YIELD, 1, &p, &b->f->body); /* p is not visible here */
	CHECK_EQ_INT(ir_verify(fx.ctx, b->f), TILEC_ERR_SEMANTIC);
	CHECK_STR_CONTAINS(tilec_diagnostics(fx.ctx), "before region does not end with 'condition'");
	CHECK_STR_CONTAINS(tilec_diagnostics(fx.ctx), "not the terminator of a for, if or while-after region");
	expect_error(&fx, 9, "is used where it is not defined");
}

static void test_terminator_at_top(void)
{
	fixture fx = setup();
	fx.b.line = 3;
	irb_op(&fx.b, IR_OP_YIELD, ir_scalar(IR_VOID), 0, NULL);
	expect_error(&fx, 3, "not the terminator");
}

static void test_load_mask_shape(void)
{
	fixture fx = setup();
	irb *b = &fx.b;
	ir_type vp = irb_vec(ir_ptr(IR_F32), 64);
	int ptrs = irb_2(b, IR_OP_PTR_ADD, vp, irb_1(b, IR_OP_SPLAT, vp, 0), irb_arange(b, 64));
	int m32 = irb_cmp(b, IR_CMP_LT, irb_arange(b, 32), irb_1(b, IR_OP_SPLAT, irb_vec(I32, 32), 1));
	b->line = 4;
	irb_load(b, ptrs, m32, -1);
	expect_error(&fx, 4, "mask <32xi1> is not i1 of the pointer's shape <64x*fp32>");
}

static void test_ptr_add_and_broadcast(void)
{
	fixture fx = setup();
	irb *b = &fx.b;
	b->line = 5;
	irb_2(b, IR_OP_PTR_ADD, ir_ptr(IR_F32), 0, 2); /* fp32 offset */
	b->line = 6;
	irb_1(b, IR_OP_BROADCAST, irb_mat(I32, 4, 8), irb_1(b, IR_OP_EXPAND_DIMS, irb_mat(I32, 2, 1), irb_arange(b, 2)));
	CHECK_EQ_INT(ir_verify(fx.ctx, b->f), TILEC_ERR_SEMANTIC);
	CHECK_STR_CONTAINS(tilec_diagnostics(fx.ctx), "offset fp32 is not an integer");
	CHECK_STR_CONTAINS(tilec_diagnostics(fx.ctx), "cannot broadcast <2x1xi32> to <4x8xi32>");
	expect_error(&fx, 6, "expand_dims");
}

static void test_reduce_and_dot(void)
{
	fixture fx = setup();
	irb *b = &fx.b;
	int m = irb_c(b, irb_mat(F32, 16, 32), 0, 1.0);
	b->line = 7;
	ir_op *r = irb_op(b, IR_OP_REDUCE, irb_vec(F32, 32), 1, &m);
	r->axis = 1;
	b->line = 8;
	irb_3(b, IR_OP_DOT, irb_mat(F32, 16, 16), m, m, irb_c(b, irb_mat(F32, 16, 16), 0, 0.0));
	CHECK_EQ_INT(ir_verify(fx.ctx, b->f), TILEC_ERR_SEMANTIC);
	CHECK_STR_CONTAINS(tilec_diagnostics(fx.ctx), "axis 1: <32xfp32> is not <16x32xfp32> with the axis removed");
	expect_error(&fx, 8, "shapes <16x32xfp32> x <16x32xfp32> + <16x16xfp32> do not chain");
}

/* An index reduction's second result is the value at the index: of the
 * operand's kind; a sum has none. */
static void test_reduce_value(void)
{
	fixture fx = setup();
	irb *b = &fx.b;
	int m = irb_c(b, irb_mat(F32, 16, 32), 0, 1.0);
	ir_type good[2] = {irb_vec(I32, 16), irb_vec(F32, 16)}, bad[2] = {irb_vec(I32, 16), irb_vec(I32, 16)};
	ir_op *r = ir_op_new(b->f, IR_OP_REDUCE, (src_loc){&irb_file, 4, 1}, 1, &m, 2, good, 0);
	CHECK(r && ir_region_append(b->f, b->cur, r));
	r->sub = IR_REDUCE_ARGMAX;
	r->axis = 1;
	CHECK_EQ_INT(ir_verify(fx.ctx, b->f), TILEC_OK);
	ir_op *w = ir_op_new(b->f, IR_OP_REDUCE, (src_loc){&irb_file, 5, 1}, 1, &m, 2, bad, 0);
	CHECK(w && ir_region_append(b->f, b->cur, w));
	w->sub = IR_REDUCE_ARGMIN;
	w->axis = 1;
	expect_error(&fx, 5, "the value of an index reduction of <16x32xfp32> is <16xi32>");
	fx = setup();
	b = &fx.b;
	m = irb_c(b, irb_mat(F32, 16, 32), 0, 1.0);
	ir_type two[2] = {irb_vec(F32, 16), irb_vec(F32, 16)};
	ir_op *s = ir_op_new(b->f, IR_OP_REDUCE, (src_loc){&irb_file, 6, 1}, 1, &m, 2, two, 0);
	CHECK(s && ir_region_append(b->f, b->cur, s));
	s->sub = IR_REDUCE_SUM;
	s->axis = 1;
	expect_error(&fx, 6, "expects 1 result(s), has 2");
}

/* A 16x8 by 8x16 dot of `operand` elements into a `acc` accumulator:
 * verifies, or fails with `error`. */
static void check_dot_kinds(ir_kind operand, ir_kind acc, const char *error)
{
	const ir_type o = {operand, 0, 0, {0}}, c = {acc, 0, 0, {0}};
	fixture fx = setup();
	irb *b = &fx.b;
	int x = irb_c(b, irb_mat(o, 16, 8), 0, 1.0), y = irb_c(b, irb_mat(o, 8, 16), 0, 1.0);
	b->line = 3;
	irb_3(b, IR_OP_DOT, irb_mat(c, 16, 16), x, y, irb_c(b, irb_mat(c, 16, 16), 0, 0.0));
	if (error)
		expect_error(&fx, 3, error);
	else
		expect_ok(&fx);
}

/* fp64 operands accumulate in fp64 (tl.dot with input_precision="ieee"),
 * never in fp32; fp32 operands never in fp64. */
static void test_dot_fp64(void)
{
	check_dot_kinds(IR_F64, IR_F64, NULL);
	check_dot_kinds(IR_F64, IR_F32, "accumulator <16x16xfp32> does not fit operands <16x8xfp64>");
	check_dot_kinds(IR_F32, IR_F64, "accumulator <16x16xfp64> does not fit operands <16x8xfp32>");
}

/* TMA: a copy into a ring that has no barriers, through a parameter
 * that is no tensor map, and a wait whose phase is a float. */
static void test_tma(void)
{
	fixture fx = setup();
	irb *b = &fx.b;
	ir_type rt = {.kind = IR_SMEM, .pointee = IR_F32, .rank = 3, .shape = {2, 16, 8}};
	int ring = irb_res(irb_op(b, IR_OP_LOCAL_ALLOC, rt, 0, NULL));
	int zero = irb_c(b, I32, 0, 0), yes = irb_c(b, ir_scalar(IR_I1), 1, 0);
	b->line = 9;
	int cargs[5] = {ring, zero, yes, zero, zero};
	irb_op(b, IR_OP_TMA_COPY, ir_scalar(IR_VOID), 5, cargs)->ival = 1;
	b->line = 10;
	int wargs[3] = {ring, zero, 2};
	irb_op(b, IR_OP_TMA_WAIT, ir_scalar(IR_VOID), 3, wargs);
	CHECK_EQ_INT(ir_verify(fx.ctx, b->f), TILEC_ERR_SEMANTIC);
	CHECK_STR_CONTAINS(tilec_diagnostics(fx.ctx), "the ring is not one TMA fills");
	CHECK_STR_CONTAINS(tilec_diagnostics(fx.ctx), "map %1 is not a tensor-map parameter");
	expect_error(&fx, 10, "the phase is fp32, not an i32 scalar");
}

static void test_double_definition(void)
{
	fixture fx = setup();
	irb *b = &fx.b;
	ir_op *op = irb_op(b, IR_OP_CONST, I32, 0, NULL);
	b->line = 2;
	ir_region_append(b->f, &b->f->body, op); /* the same op twice */
	expect_error(&fx, 1, "is defined twice");
}

/* .maxnreg outside what ptxas takes; 0 (unset) and the bounds pass */
static void test_maxnreg(void)
{
	int values[] = {0, IR_MAXNREG_MIN, IR_MAXNREG_MAX, IR_MAXNREG_MIN - 1, IR_MAXNREG_MAX + 1};
	for (int i = 0; i < 5; i++) {
		fixture fx = setup();
		fx.b.f->maxnreg = values[i];
		tilec_status st = ir_verify(fx.ctx, fx.b.f);
		CHECK_EQ_INT(st, i < 3 ? TILEC_OK : TILEC_ERR_SEMANTIC);
		if (i >= 3)
			CHECK_STR_CONTAINS(tilec_diagnostics(fx.ctx), "is outside 24..255");
		tilec_ctx_free(fx.ctx);
		arena_free(fx.a);
	}
}

int main(void)
{
	test_valid();
	test_type_mismatch();
	test_non_power_of_two();
	test_arity();
	test_use_before_def();
	test_region_scope();
	test_for_yield_types();
	test_for_missing_yield();
	test_if_yield_count();
	test_while_terminators();
	test_terminator_at_top();
	test_load_mask_shape();
	test_ptr_add_and_broadcast();
	test_reduce_and_dot();
	test_reduce_value();
	test_dot_fp64();
	test_double_definition();
	test_tma();
	test_maxnreg();
	test_producer_marks();
	return check_report("test_verify");
}
