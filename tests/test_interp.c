/* test_interp.c - the reference interpreter on hand-built IR: arithmetic
 * by kind, fp16/bf16 rounding, masked and out-of-bounds memory, shape ops,
 * reductions, dot and structured control flow. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "ir_build.h"

static const ir_type I32 = {IR_I32, 0, 0, {0}};
static const ir_type F32 = {IR_F32, 0, 0, {0}};

static tilec_status run(tilec_ctx *ctx, ir_func *f, uint32_t gx, interp_buffer *bufs, int nbufs, const interp_arg *args)
{
	uint32_t grid[3] = {gx, 1, 1};
	return interp_run(ctx, f, grid, bufs, nbufs, args);
}

/* out[i] = x[i] + y[i] for i < n, in blocks of 128: the classic kernel. */
static void test_vector_add(void)
{
	arena *a = arena_new();
	ir_param ps[4] = {{"x", ir_ptr(IR_F32), true, false, false, 0}, {"y", ir_ptr(IR_F32), true, false, false, 0},
			  {"out", ir_ptr(IR_F32), true, false, false, 0}, {"n", I32, false, false, false, 0}};
	irb b = irb_new(a, 4, ps);
	enum { B = 128 };
	ir_type vi = irb_vec(I32, B), vp = irb_vec(ir_ptr(IR_F32), B);
	int pid = irb_pid(&b, 0);
	int start = irb_2(&b, IR_OP_MUL, I32, pid, irb_c(&b, I32, B, 0));
	int offs = irb_2(&b, IR_OP_ADD, vi, irb_1(&b, IR_OP_SPLAT, vi, start), irb_arange(&b, B));
	int mask = irb_cmp(&b, IR_CMP_LT, offs, irb_1(&b, IR_OP_SPLAT, vi, 3));
	int xp = irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 0), offs);
	int yp = irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 1), offs);
	int op = irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 2), offs);
	int x = irb_load(&b, xp, mask, -1), y = irb_load(&b, yp, mask, -1);
	irb_store(&b, op, irb_2(&b, IR_OP_ADD, irb_vec(F32, B), x, y), mask);

	tilec_ctx *ctx = tilec_ctx_new();
	int n = 1000;
	float *xs = malloc(sizeof(float) * 1024), *ys = malloc(sizeof(float) * 1024), *os = calloc(1024, sizeof(float));
	for (int i = 0; i < 1024; i++) {
		xs[i] = (float)i * 0.5f;
		ys[i] = 1.0f / (float)(i + 1);
	}
	interp_buffer bufs[3] = {{xs, sizeof(float) * (size_t)n}, {ys, sizeof(float) * (size_t)n}, {os, sizeof(float) * 1024}};
	interp_arg args[4] = {{0, 0, {0}}, {1, 0, {0}}, {2, 0, {0}}, {-1, 0, {.i = n}}};
	CHECK_EQ_INT(run(ctx, b.f, (uint32_t)(n + B - 1) / B, bufs, 3, args), TILEC_OK);
	int bad = 0;
	for (int i = 0; i < 1024; i++)
		bad += os[i] != (i < n ? xs[i] + ys[i] : 0.0f);
	CHECK_EQ_INT(bad, 0);

	/* A grid that covers more than n: the masked tail must stay untouched
	 * and the input buffers (exactly n long) must not be read past. */
	CHECK_EQ_INT(run(ctx, b.f, 9, bufs, 3, args), TILEC_OK);
	CHECK(os[1000] == 0.0f);

	/* Without the mask limit, reading past the end of x is an error with
	 * the load's location, the offset and the buffer. */
	args[3].value.i = 1024;
	CHECK_EQ_INT(run(ctx, b.f, 8, bufs, 3, args), TILEC_ERR_RUNTIME);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "kernel.py:1:1: error: program (7, 0, 0): load of 4 byte(s) at element 104: byte offset 4000 is out of bounds of buffer 0 (4000 bytes)");
	tilec_clear_diagnostics(ctx);

	/* An offset pointer argument shifts every access. */
	args[3].value.i = 1000;
	args[0].offset = 16;
	CHECK_EQ_INT(run(ctx, b.f, 8, bufs, 3, args), TILEC_ERR_RUNTIME);
	tilec_clear_diagnostics(ctx);
	/* ... and one that breaks the div16 specialization is refused up front. */
	args[0].offset = 4;
	CHECK_EQ_INT(run(ctx, b.f, 8, bufs, 3, args), TILEC_ERR_INVALID);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "argument 0 ('x') is not divisible by 16");
	tilec_clear_diagnostics(ctx);
	args[0].offset = 0;

	/* A buffer index that does not exist. */
	args[1].buffer = 7;
	CHECK_EQ_INT(run(ctx, b.f, 8, bufs, 3, args), TILEC_ERR_INVALID);
	tilec_clear_diagnostics(ctx);
	args[1].buffer = -1; /* a null pointer: the first unmasked access fails */
	CHECK_EQ_INT(run(ctx, b.f, 8, bufs, 3, args), TILEC_ERR_RUNTIME);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "lies outside every buffer");
	tilec_clear_diagnostics(ctx);
	free(xs);
	free(ys);
	free(os);
	tilec_ctx_free(ctx);
	arena_free(a);
}

/* A 2^16-element add runs in well under a second even with sanitizers. */
static void test_speed(void)
{
	arena *a = arena_new();
	ir_param ps[2] = {{"x", ir_ptr(IR_F32), true, false, false, 0}, {"out", ir_ptr(IR_F32), true, false, false, 0}};
	irb b = irb_new(a, 2, ps);
	enum { B = 4096 };
	ir_type vi = irb_vec(I32, B), vp = irb_vec(ir_ptr(IR_F32), B);
	int start = irb_2(&b, IR_OP_MUL, I32, irb_pid(&b, 0), irb_c(&b, I32, B, 0));
	int offs = irb_2(&b, IR_OP_ADD, vi, irb_1(&b, IR_OP_SPLAT, vi, start), irb_arange(&b, B));
	int xp = irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 0), offs);
	int x = irb_load(&b, xp, -1, -1);
	int y = irb_2(&b, IR_OP_MUL, irb_vec(F32, B), x, x);
	irb_store(&b, irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 1), offs), y, -1);
	size_t n = 1 << 16;
	float *xs = malloc(n * 4), *os = malloc(n * 4);
	for (size_t i = 0; i < n; i++)
		xs[i] = (float)i;
	interp_buffer bufs[2] = {{xs, n * 4}, {os, n * 4}};
	interp_arg args[2] = {{0, 0, {0}}, {1, 0, {0}}};
	tilec_ctx *ctx = tilec_ctx_new();
	clock_t t0 = clock();
	CHECK_EQ_INT(run(ctx, b.f, (uint32_t)(n / B), bufs, 2, args), TILEC_OK);
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	CHECK_MSG(secs < 1.0, "2^16 elements took %.3f s", secs);
	CHECK(os[12345] == 12345.0f * 12345.0f);
	free(xs);
	free(os);
	tilec_ctx_free(ctx);
	arena_free(a);
}

static void test_half_formats(void)
{
	CHECK_EQ_INT(interp_f32_to_f16(1.0f), 0x3c00);
	CHECK_EQ_INT(interp_f32_to_f16(65504.0f), 0x7bff);
	CHECK_EQ_INT(interp_f32_to_f16(65519.0f), 0x7bff);
	CHECK_EQ_INT(interp_f32_to_f16(65520.0f), 0x7c00);
	CHECK_EQ_INT(interp_f32_to_f16(-INFINITY), 0xfc00);
	CHECK_EQ_INT(interp_f32_to_f16(ldexpf(1.0f, -24)), 0x0001);
	CHECK_EQ_INT(interp_f32_to_f16(ldexpf(1.0f, -25)), 0x0000);          /* tie to even */
	CHECK_EQ_INT(interp_f32_to_f16(ldexpf(3.0f, -25)), 0x0002);          /* 1.5 units: tie to even */
	CHECK_EQ_INT(interp_f32_to_f16(1.0f + ldexpf(1.0f, -11)), 0x3c00);   /* tie to even */
	CHECK_EQ_INT(interp_f32_to_f16(1.0f + ldexpf(3.0f, -11)), 0x3c02);
	CHECK(isnan(interp_f16_to_f32(interp_f32_to_f16(NAN))));
	CHECK(interp_f16_to_f32(0x0001) == ldexpf(1.0f, -24));
	CHECK(interp_f16_to_f32(0xc000) == -2.0f);
	CHECK_EQ_INT(interp_f32_to_bf16(1.0f), 0x3f80);
	CHECK_EQ_INT(interp_f32_to_bf16(1.0f + ldexpf(1.0f, -8)), 0x3f80);   /* tie to even */
	CHECK_EQ_INT(interp_f32_to_bf16(1.0f + ldexpf(3.0f, -8)), 0x3f82);
	CHECK(interp_bf16_to_f32(0x4049) == 3.140625f);
	/* every fp16 value survives a round trip */
	int bad = 0;
	for (uint32_t h = 0; h < 0x10000; h++) {
		float f = interp_f16_to_f32((uint16_t)h);
		if (!isnan(f) && interp_f32_to_f16(f) != h)
			bad++;
	}
	CHECK_EQ_INT(bad, 0);
	unsigned char mem[8];
	interp_write(IR_I16, mem, (interp_scalar){.i = -2});
	CHECK(mem[0] == 0xfe && mem[1] == 0xff);
	CHECK_EQ_INT(interp_read(IR_I16, mem).i, -2);
	CHECK_EQ_INT(interp_read(IR_U16, mem).i, 65534);
}

/* Elementwise ops over a 4-element block of one kind, from two input
 * vectors, storing every result: returns the status and fills out. */
static tilec_status elementwise(ir_kind k, ir_opcode code, int sub, const interp_scalar *xa, const interp_scalar *xb,
				interp_scalar *out, tilec_ctx *ctx)
{
	arena *a = arena_new();
	ir_param ps[3] = {{"a", ir_ptr(k), false, false, false, 0}, {"b", ir_ptr(k), false, false, false, 0}, {"o", ir_ptr(k), false, false, false, 0}};
	irb b = irb_new(a, 3, ps);
	ir_type vk = irb_vec(ir_scalar(k), 4), vp = irb_vec(ir_ptr(k), 4);
	int r = irb_arange(&b, 4);
	int pa = irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 0), r);
	int pb = irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 1), r);
	int po = irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 2), r);
	int va = irb_load(&b, pa, -1, -1), vb = irb_load(&b, pb, -1, -1);
	ir_op *op = code == IR_OP_MATH || code == IR_OP_NEG ? irb_op(&b, code, vk, 1, &va) : irb_op(&b, code, vk, 2, (int[]){va, vb});
	op->sub = sub;
	irb_store(&b, po, op->results[0], -1);
	unsigned char ma[64], mb[64], mo[64];
	int sz = ir_kind_bytes(k);
	for (int i = 0; i < 4; i++) {
		interp_write(k, ma + i * sz, xa[i]);
		interp_write(k, mb + i * sz, xb[i]);
	}
	interp_buffer bufs[3] = {{ma, (size_t)(4 * sz)}, {mb, (size_t)(4 * sz)}, {mo, (size_t)(4 * sz)}};
	interp_arg args[3] = {{0, 0, {0}}, {1, 0, {0}}, {2, 0, {0}}};
	tilec_status st = run(ctx, b.f, 1, bufs, 3, args);
	for (int i = 0; i < 4; i++)
		out[i] = interp_read(k, mo + i * sz);
	arena_free(a);
	return st;
}

static void test_integers(void)
{
	tilec_ctx *ctx = tilec_ctx_new();
	interp_scalar a[4] = {{.i = 7}, {.i = -7}, {.i = 7}, {.i = -7}}, b[4] = {{.i = 2}, {.i = 2}, {.i = -2}, {.i = -2}}, o[4];
	CHECK_EQ_INT(elementwise(IR_I32, IR_OP_DIV, 0, a, b, o, ctx), TILEC_OK);
	CHECK(o[0].i == 3 && o[1].i == -3 && o[2].i == -3 && o[3].i == 3); /* truncating, like C */
	CHECK_EQ_INT(elementwise(IR_I32, IR_OP_REM, 0, a, b, o, ctx), TILEC_OK);
	CHECK(o[0].i == 1 && o[1].i == -1 && o[2].i == 1 && o[3].i == -1);
	/* wrap-around at the type's width */
	interp_scalar big[4] = {{.i = INT32_MAX}, {.i = 200}, {.i = -128}, {.i = 100}}, one[4] = {{.i = 1}, {.i = 100}, {.i = -1}, {.i = 28}};
	CHECK_EQ_INT(elementwise(IR_I32, IR_OP_ADD, 0, big, one, o, ctx), TILEC_OK);
	CHECK_EQ_INT(o[0].i, INT32_MIN);
	CHECK_EQ_INT(elementwise(IR_I8, IR_OP_MUL, 0, big, one, o, ctx), TILEC_OK);
	CHECK_EQ_INT(o[2].i, -128); /* -128 * -1 wraps */
	CHECK_EQ_INT(o[3].i, -16);  /* 2800 = 0xaf0 -> 0xf0 */
	CHECK_EQ_INT(elementwise(IR_U8, IR_OP_ADD, 0, big, one, o, ctx), TILEC_OK);
	CHECK_EQ_INT(o[1].i, 44); /* 200 + 100 - 256 */
	/* unsigned vs signed shifts, division and comparison */
	interp_scalar m[4] = {{.i = -16}, {.i = -16}, {.i = 1}, {.i = 1}}, s[4] = {{.i = 2}, {.i = 40}, {.i = 31}, {.i = 32}};
	CHECK_EQ_INT(elementwise(IR_I32, IR_OP_SHR, 0, m, s, o, ctx), TILEC_OK);
	CHECK(o[0].i == -4 && o[1].i == -1 && o[2].i == 0);
	CHECK_EQ_INT(elementwise(IR_I32, IR_OP_SHL, 0, m, s, o, ctx), TILEC_OK);
	CHECK(o[0].i == -64 && o[1].i == 0 && o[2].i == INT32_MIN && o[3].i == 0);
	interp_scalar um[4] = {{.u = 0xfffffff0u}, {.u = 7}, {.u = 9}, {.u = 1}};
	CHECK_EQ_INT(elementwise(IR_U32, IR_OP_SHR, 0, um, s, o, ctx), TILEC_OK);
	CHECK_EQ_INT(o[0].u, 0x3ffffffcu);
	CHECK_EQ_INT(elementwise(IR_U32, IR_OP_DIV, 0, um, s, o, ctx), TILEC_OK);
	CHECK_EQ_INT(o[0].u, 0x7ffffff8u);
	CHECK_EQ_INT(elementwise(IR_U32, IR_OP_MAX, 0, um, s, o, ctx), TILEC_OK);
	CHECK_EQ_INT(o[0].u, 0xfffffff0u);
	CHECK_EQ_INT(elementwise(IR_I32, IR_OP_MIN, 0, m, s, o, ctx), TILEC_OK);
	CHECK_EQ_INT(o[0].i, -16);
	/* division by zero is an error at the op */
	interp_scalar z[4] = {{.i = 1}, {.i = 0}, {.i = 1}, {.i = 1}};
	CHECK_EQ_INT(elementwise(IR_I32, IR_OP_DIV, 0, a, z, o, ctx), TILEC_ERR_RUNTIME);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "integer division by zero at element 1");
	tilec_clear_diagnostics(ctx);
	interp_scalar mn[4] = {{.i = INT32_MIN}, {.i = 0}, {.i = 0}, {.i = 0}}, m1[4] = {{.i = -1}, {.i = 1}, {.i = 1}, {.i = 1}};
	CHECK_EQ_INT(elementwise(IR_I32, IR_OP_DIV, 0, mn, m1, o, ctx), TILEC_OK);
	CHECK_EQ_INT(o[0].i, INT32_MIN);
	tilec_ctx_free(ctx);
}

static void test_floats(void)
{
	tilec_ctx *ctx = tilec_ctx_new();
	interp_scalar o[4];
	/* fp16 arithmetic rounds each result: 2048 + 1 is 2048 in fp16 */
	interp_scalar a[4] = {{.f = 2048}, {.f = 0.1}, {.f = 65504}, {.f = 1}}, b[4] = {{.f = 1}, {.f = 0.2}, {.f = 65504}, {.f = 3}};
	CHECK_EQ_INT(elementwise(IR_F16, IR_OP_ADD, 0, a, b, o, ctx), TILEC_OK);
	CHECK(o[0].f == 2048.0);
	CHECK(o[1].f == interp_f16_to_f32(interp_f32_to_f16(interp_f16_to_f32(interp_f32_to_f16(0.1f)) +
								  interp_f16_to_f32(interp_f32_to_f16(0.2f)))));
	CHECK(isinf(o[2].f));
	CHECK_EQ_INT(elementwise(IR_BF16, IR_OP_DIV, 0, a, b, o, ctx), TILEC_OK);
	CHECK(o[3].f == interp_bf16_to_f32(interp_f32_to_bf16(1.0f / 3.0f)));
	/* fp32 arithmetic is float, not double */
	CHECK_EQ_INT(elementwise(IR_F32, IR_OP_DIV, 0, a, b, o, ctx), TILEC_OK);
	CHECK(o[3].f == (double)(1.0f / 3.0f));
	/* min/max lose a NaN unless propagating; math functions */
	interp_scalar n[4] = {{.f = NAN}, {.f = 4}, {.f = -0.5}, {.f = 9}};
	CHECK_EQ_INT(elementwise(IR_F32, IR_OP_MAX, 0, n, b, o, ctx), TILEC_OK);
	CHECK(o[0].f == 1.0 && o[1].f == 4.0);
	CHECK_EQ_INT(elementwise(IR_F32, IR_OP_MATH, IR_MATH_RSQRT, n, b, o, ctx), TILEC_OK);
	CHECK(o[1].f == 0.5 && fabs(o[3].f - 1.0 / 3.0) < 1e-7);
	CHECK_EQ_INT(elementwise(IR_F32, IR_OP_MATH, IR_MATH_ABS, n, b, o, ctx), TILEC_OK);
	CHECK(o[2].f == 0.5);
	CHECK_EQ_INT(elementwise(IR_F32, IR_OP_REM, 0, n, b, o, ctx), TILEC_OK);
	CHECK(o[2].f == -0.5 && o[3].f == 0.0); /* fmod keeps the dividend's sign */
	tilec_ctx_free(ctx);
}

/* casts: float -> int truncates and saturates, int -> i1 is != 0. */
static void test_casts(void)
{
	arena *a = arena_new();
	ir_param ps[2] = {{"x", ir_ptr(IR_F32), false, false, false, 0}, {"o", ir_ptr(IR_I8), false, false, false, 0}};
	irb b = irb_new(a, 2, ps);
	ir_type vp = irb_vec(ir_ptr(IR_F32), 8), vo = irb_vec(ir_ptr(IR_I8), 8);
	int r = irb_arange(&b, 8);
	int x = irb_load(&b, irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 0), r), -1, -1);
	int c = irb_1(&b, IR_OP_CAST, irb_vec(ir_scalar(IR_I8), 8), x);
	irb_store(&b, irb_2(&b, IR_OP_PTR_ADD, vo, irb_1(&b, IR_OP_SPLAT, vo, 1), r), c, -1);
	float xs[8] = {1.9f, -1.9f, 300.0f, -300.0f, NAN, 127.5f, -0.5f, 42.0f};
	int8_t os[8];
	interp_buffer bufs[2] = {{xs, sizeof xs}, {os, sizeof os}};
	interp_arg args[2] = {{0, 0, {0}}, {1, 0, {0}}};
	tilec_ctx *ctx = tilec_ctx_new();
	CHECK_EQ_INT(run(ctx, b.f, 1, bufs, 2, args), TILEC_OK);
	CHECK(os[0] == 1 && os[1] == -1 && os[2] == 127 && os[3] == -128 && os[4] == 0 && os[5] == 127 && os[6] == 0 &&
	      os[7] == 42);
	tilec_ctx_free(ctx);
	arena_free(a);
}

/* 2-D: x[4x8] loaded with broadcast offsets, reduced over each axis;
 * argmax with ties takes the first index, and its second result is the
 * value there (tl.max's with return_indices); permute. */
static void test_reduce_2d(void)
{
	arena *a = arena_new();
	ir_param ps[5] = {{"x", ir_ptr(IR_F32), false, false, false, 0}, {"rows", ir_ptr(IR_F32), false, false, false, 0},
			  {"cols", ir_ptr(IR_I32), false, false, false, 0}, {"t", ir_ptr(IR_F32), false, false, false, 0},
			  {"vals", ir_ptr(IR_F32), false, false, false, 0}};
	irb b = irb_new(a, 5, ps);
	ir_type m = irb_mat(I32, 4, 8), m41 = irb_mat(I32, 4, 1), m18 = irb_mat(I32, 1, 8), mp = irb_mat(ir_ptr(IR_F32), 4, 8);
	int r4 = irb_arange(&b, 4), r8 = irb_arange(&b, 8);
	ir_op *e0 = irb_op(&b, IR_OP_EXPAND_DIMS, m41, 1, &r4);
	e0->axis = 1;
	ir_op *e1 = irb_op(&b, IR_OP_EXPAND_DIMS, m18, 1, &r8);
	e1->axis = 0;
	int rows = irb_2(&b, IR_OP_MUL, m, irb_1(&b, IR_OP_BROADCAST, m, e0->results[0]), irb_c(&b, m, 8, 0));
	int offs = irb_2(&b, IR_OP_ADD, m, rows, irb_1(&b, IR_OP_BROADCAST, m, e1->results[0]));
	int x = irb_load(&b, irb_2(&b, IR_OP_PTR_ADD, mp, irb_1(&b, IR_OP_SPLAT, mp, 0), offs), -1, -1);
	ir_op *s1 = irb_op(&b, IR_OP_REDUCE, irb_vec(F32, 4), 1, &x);
	s1->sub = IR_REDUCE_SUM;
	s1->axis = 1;
	ir_type vp4 = irb_vec(ir_ptr(IR_F32), 4), vp8 = irb_vec(ir_ptr(IR_I32), 8);
	irb_store(&b, irb_2(&b, IR_OP_PTR_ADD, vp4, irb_1(&b, IR_OP_SPLAT, vp4, 1), r4), s1->results[0], -1);
	ir_type amt[2] = {irb_vec(I32, 8), irb_vec(F32, 8)}, vf8 = irb_vec(ir_ptr(IR_F32), 8);
	ir_op *am = ir_op_new(b.f, IR_OP_REDUCE, (src_loc){&irb_file, 1, 1}, 1, &x, 2, amt, 0);
	CHECK(am && ir_region_append(b.f, b.cur, am));
	am->sub = IR_REDUCE_ARGMAX;
	am->axis = 0;
	irb_store(&b, irb_2(&b, IR_OP_PTR_ADD, vp8, irb_1(&b, IR_OP_SPLAT, vp8, 2), r8), am->results[0], -1);
	irb_store(&b, irb_2(&b, IR_OP_PTR_ADD, vf8, irb_1(&b, IR_OP_SPLAT, vf8, 4), r8), am->results[1], -1);
	ir_op *tr = irb_op(&b, IR_OP_PERMUTE, irb_mat(F32, 8, 4), 1, &x);
	tr->ints[0] = 1;
	tr->ints[1] = 0;
	ir_type m84 = irb_mat(I32, 8, 4), mp84 = irb_mat(ir_ptr(IR_F32), 8, 4);
	irb_store(&b, irb_2(&b, IR_OP_PTR_ADD, mp84, irb_1(&b, IR_OP_SPLAT, mp84, 3), irb_1(&b, IR_OP_RESHAPE, m84, offs)),
		  tr->results[0], -1);
	tilec_ctx *ctx = tilec_ctx_new();
	CHECK_EQ_INT(ir_verify(ctx, b.f), TILEC_OK);
	float xs[32], rs[4], ts[32], vs[8];
	int32_t cs[8];
	for (int i = 0; i < 32; i++)
		xs[i] = (float)((i * 7) % 5); /* values 0..4 with ties in each column */
	interp_buffer bufs[5] = {{xs, sizeof xs}, {rs, sizeof rs}, {cs, sizeof cs}, {ts, sizeof ts}, {vs, sizeof vs}};
	interp_arg args[5] = {{0, 0, {0}}, {1, 0, {0}}, {2, 0, {0}}, {3, 0, {0}}, {4, 0, {0}}};
	CHECK_EQ_INT(run(ctx, b.f, 1, bufs, 5, args), TILEC_OK);
	fputs(tilec_diagnostics(ctx), stderr);
	int bad = 0;
	for (int i = 0; i < 4; i++) {
		float s = 0;
		for (int j = 0; j < 8; j++)
			s += xs[i * 8 + j];
		bad += rs[i] != s;
	}
	for (int j = 0; j < 8; j++) {
		int best = 0;
		for (int i = 1; i < 4; i++)
			if (xs[i * 8 + j] > xs[best * 8 + j])
				best = i;
		bad += cs[j] != best || vs[j] != xs[best * 8 + j];
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 8; j++)
			bad += ts[j * 4 + i] != xs[i * 8 + j];
	CHECK_EQ_INT(bad, 0);
	tilec_ctx_free(ctx);
	arena_free(a);
}

/* sum = 0; for i in range(lb, n, step): sum += i * x[i] (an fp32 scalar
 * carried, the iv also cast), then an IF on the sum and a WHILE halving a
 * counter; the results are stored as three scalars. */
static void test_control_flow(void)
{
	arena *a = arena_new();
	ir_param ps[3] = {{"x", ir_ptr(IR_F32), false, false, false, 0}, {"o", ir_ptr(IR_F32), false, false, false, 0}, {"n", I32, false, false, false, 0}};
	irb b = irb_new(a, 3, ps);
	int zero = irb_c(&b, F32, 0, 0.0), lb = irb_c(&b, I32, 1, 0), step = irb_c(&b, I32, 2, 0);
	ir_op *loop = irb_for(&b, lb, 2, step, 1, &zero);
	int iv = loop->regions[0].params[0], acc = loop->regions[0].params[1];
	int xi = irb_load(&b, irb_2(&b, IR_OP_PTR_ADD, ir_ptr(IR_F32), 0, iv), -1, -1);
	int t = irb_2(&b, IR_OP_MUL, F32, irb_1(&b, IR_OP_CAST, F32, iv), xi);
	int nacc = irb_2(&b, IR_OP_ADD, F32, acc, t);
	irb_end(&b, IR_OP_YIELD, 1, &nacc, &b.f->body);
	int sum = loop->results[0];
	irb_store(&b, 1, sum, -1);

	/* if sum > 10: r = sum * 2 else r = -1 */
	int cond = irb_cmp(&b, IR_CMP_GT, sum, irb_c(&b, F32, 0, 10.0));
	src_loc loc = {&irb_file, 1, 1};
	ir_op *iff = ir_op_new(b.f, IR_OP_IF, loc, 1, &cond, 1, &F32, 2);
	ir_region_append(b.f, &b.f->body, iff);
	b.cur = &iff->regions[0];
	int dbl = irb_2(&b, IR_OP_MUL, F32, sum, irb_c(&b, F32, 0, 2.0));
	irb_end(&b, IR_OP_YIELD, 1, &dbl, &iff->regions[1]);
	int m1 = irb_c(&b, F32, 0, -1.0);
	irb_end(&b, IR_OP_YIELD, 1, &m1, &b.f->body);
	int o1 = irb_2(&b, IR_OP_PTR_ADD, ir_ptr(IR_F32), 1, irb_c(&b, I32, 1, 0));
	irb_store(&b, o1, iff->results[0], -1);

	/* k = n; steps = 0; while k > 1: k = k / 2; steps += 1 */
	int steps0 = irb_c(&b, I32, 0, 0);
	int inits[2] = {2, steps0};
	ir_type tys[2] = {I32, I32};
	ir_op *w = ir_op_new(b.f, IR_OP_WHILE, loc, 2, inits, 2, tys, 2);
	ir_region_append(b.f, &b.f->body, w);
	int k0 = ir_region_add_param(b.f, &w->regions[0], I32), s0 = ir_region_add_param(b.f, &w->regions[0], I32);
	b.cur = &w->regions[0];
	int c = irb_cmp(&b, IR_CMP_GT, k0, irb_c(&b, I32, 1, 0));
	irb_end(&b, IR_OP_CONDITION, 3, (int[]){c, k0, s0}, &w->regions[1]);
	int k1 = ir_region_add_param(b.f, &w->regions[1], I32), s1 = ir_region_add_param(b.f, &w->regions[1], I32);
	int k2 = irb_2(&b, IR_OP_DIV, I32, k1, irb_c(&b, I32, 2, 0));
	int s2 = irb_2(&b, IR_OP_ADD, I32, s1, irb_c(&b, I32, 1, 0));
	irb_end(&b, IR_OP_YIELD, 2, (int[]){k2, s2}, &b.f->body);
	int o2 = irb_2(&b, IR_OP_PTR_ADD, ir_ptr(IR_F32), 1, irb_c(&b, I32, 2, 0));
	irb_store(&b, o2, irb_1(&b, IR_OP_CAST, F32, w->results[1]), -1);

	tilec_ctx *ctx = tilec_ctx_new();
	CHECK_EQ_INT(ir_verify(ctx, b.f), TILEC_OK);
	fputs(tilec_diagnostics(ctx), stderr);
	float xs[16], os[3];
	for (int i = 0; i < 16; i++)
		xs[i] = 0.25f * (float)i;
	interp_buffer bufs[2] = {{xs, sizeof xs}, {os, sizeof os}};
	interp_arg args[3] = {{0, 0, {0}}, {1, 0, {0}}, {-1, 0, {.i = 13}}};
	CHECK_EQ_INT(run(ctx, b.f, 1, bufs, 2, args), TILEC_OK);
	float want = 0;
	for (int i = 1; i < 13; i += 2)
		want += (float)i * xs[i];
	CHECK(os[0] == want);
	CHECK(os[1] == want * 2);
	CHECK(os[2] == 3.0f); /* 13 -> 6 -> 3 -> 1 */
	/* an empty loop yields the inits, the else branch runs */
	args[2].value.i = 1;
	CHECK_EQ_INT(run(ctx, b.f, 1, bufs, 2, args), TILEC_OK);
	CHECK(os[0] == 0.0f && os[1] == -1.0f && os[2] == 0.0f);
	/* a loop reading past x fails inside the body, at its op */
	args[2].value.i = 40;
	CHECK_EQ_INT(run(ctx, b.f, 1, bufs, 2, args), TILEC_ERR_RUNTIME);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "byte offset 68 is out of bounds of buffer 0 (64 bytes)");
	tilec_ctx_free(ctx);
	arena_free(a);
}

/* A split program (passes/partition.c's marks) runs its producer's side
 * apart: that side reads only what its own ops computed. Here the marked
 * add reads a constant the marks leave to the consumers, and the split run
 * says so; marked too, the run gives the plain program's result. */
static void test_split_closure(void)
{
	arena *a = arena_new();
	ir_param ps[2] = {{"o", ir_ptr(IR_F32), false, false, false, 0}, {"n", I32, false, false, false, 0}};
	irb b = irb_new(a, 2, ps);
	int lb = irb_c(&b, I32, 0, 0), step = irb_c(&b, I32, 1, 0), five = irb_c(&b, I32, 5, 0);
	int zero = irb_c(&b, F32, 0, 0.0);
	ir_op *loop = irb_for(&b, lb, 1, step, 1, &zero);
	int iv = loop->regions[0].params[0], acc = loop->regions[0].params[1];
	int t = irb_2(&b, IR_OP_ADD, I32, iv, five);
	int nacc = irb_2(&b, IR_OP_ADD, F32, acc, irb_1(&b, IR_OP_CAST, F32, t));
	irb_end(&b, IR_OP_YIELD, 1, &nacc, &b.f->body);
	irb_store(&b, 0, loop->results[0], -1);
	loop->flags |= IR_FLAG_WARP_SPECIALIZE | IR_FLAG_PRODUCER;
	b.f->values[lb].def->flags |= IR_FLAG_PRODUCER;
	b.f->values[step].def->flags |= IR_FLAG_PRODUCER;
	b.f->values[t].def->flags |= IR_FLAG_PRODUCER;

	tilec_ctx *ctx = tilec_ctx_new();
	CHECK_EQ_INT(ir_verify(ctx, b.f), TILEC_OK);
	float o = 0;
	interp_buffer buf = {&o, sizeof o};
	interp_arg args[2] = {{0, 0, {0}}, {-1, 0, {.i = 4}}};
	const uint32_t grid[3] = {1, 1, 1};
	CHECK_EQ_INT(interp_run(ctx, b.f, grid, &buf, 1, args), TILEC_OK);
	CHECK(o == 26.0f); /* 5 + 6 + 7 + 8 */
	o = 0;
	CHECK_EQ_INT(interp_run_split(ctx, b.f, grid, &buf, 1, args, 0), TILEC_ERR_RUNTIME);
	char want[64];
	snprintf(want, sizeof want, "the producer reads %%%d, which only the consumers compute", five);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), want);
	b.f->values[five].def->flags |= IR_FLAG_PRODUCER;
	for (int lag = 0; lag < 3; lag++) {
		o = 0;
		CHECK_EQ_INT(interp_run_split(ctx, b.f, grid, &buf, 1, args, lag), TILEC_OK);
		CHECK(o == 26.0f);
	}
	tilec_ctx_free(ctx);
	arena_free(a);
}

/* dot: fp16 operands with fp32 accumulation; fp32 with tf32 rounding. */
static void test_dot(void)
{
	for (int pass = 0; pass < 2; pass++) {
		ir_kind k = pass ? IR_F32 : IR_F16;
		arena *a = arena_new();
		ir_param ps[3] = {{"a", ir_ptr(k), false, false, false, 0}, {"b", ir_ptr(k), false, false, false, 0}, {"c", ir_ptr(IR_F32), false, false, false, 0}};
		irb b = irb_new(a, 3, ps);
		enum { M = 16, N = 32, K = 64 };
		int rk = irb_arange(&b, K), rn = irb_arange(&b, N), rm = irb_arange(&b, M);
		/* offsets i * cols + j of an r x c tile */
		int offs[3];
		int dims[3][2] = {{M, K}, {K, N}, {M, N}}, ranges[3][2] = {{rm, rk}, {rk, rn}, {rm, rn}};
		for (int t = 0; t < 3; t++) {
			ir_type m = irb_mat(I32, dims[t][0], dims[t][1]);
			ir_op *e0 = irb_op(&b, IR_OP_EXPAND_DIMS, irb_mat(I32, dims[t][0], 1), 1, &ranges[t][0]);
			e0->axis = 1;
			ir_op *e1 = irb_op(&b, IR_OP_EXPAND_DIMS, irb_mat(I32, 1, dims[t][1]), 1, &ranges[t][1]);
			int rows = irb_2(&b, IR_OP_MUL, m, irb_1(&b, IR_OP_BROADCAST, m, e0->results[0]), irb_c(&b, m, dims[t][1], 0));
			offs[t] = irb_2(&b, IR_OP_ADD, m, rows, irb_1(&b, IR_OP_BROADCAST, m, e1->results[0]));
		}
		ir_type pa = irb_mat(ir_ptr(k), M, K), pb = irb_mat(ir_ptr(k), K, N), pc = irb_mat(ir_ptr(IR_F32), M, N);
		int va = irb_load(&b, irb_2(&b, IR_OP_PTR_ADD, pa, irb_1(&b, IR_OP_SPLAT, pa, 0), offs[0]), -1, -1);
		int vb = irb_load(&b, irb_2(&b, IR_OP_PTR_ADD, pb, irb_1(&b, IR_OP_SPLAT, pb, 1), offs[1]), -1, -1);
		int acc = irb_c(&b, irb_mat(F32, M, N), 0, 0.0);
		ir_op *d = irb_op(&b, IR_OP_DOT, irb_mat(F32, M, N), 3, (int[]){va, vb, acc});
		d->sub = IR_PRECISION_TF32;
		irb_store(&b, irb_2(&b, IR_OP_PTR_ADD, pc, irb_1(&b, IR_OP_SPLAT, pc, 2), offs[2]), d->results[0], -1);
		int sz = ir_kind_bytes(k);
		unsigned char *ma = malloc((size_t)(M * K * sz)), *mb = malloc((size_t)(K * N * sz));
		float *fa = malloc(sizeof(float) * M * K), *fb = malloc(sizeof(float) * K * N), *mc = malloc(sizeof(float) * M * N);
		srand(7);
		for (int i = 0; i < M * K; i++) {
			interp_write(k, ma + i * sz, (interp_scalar){.f = (double)rand() / RAND_MAX - 0.5});
			fa[i] = (float)interp_read(k, ma + i * sz).f;
		}
		for (int i = 0; i < K * N; i++) {
			interp_write(k, mb + i * sz, (interp_scalar){.f = (double)rand() / RAND_MAX - 0.5});
			fb[i] = (float)interp_read(k, mb + i * sz).f;
		}
		interp_buffer bufs[3] = {{ma, (size_t)(M * K * sz)}, {mb, (size_t)(K * N * sz)}, {mc, sizeof(float) * M * N}};
		interp_arg args[3] = {{0, 0, {0}}, {1, 0, {0}}, {2, 0, {0}}};
		tilec_ctx *ctx = tilec_ctx_new();
		CHECK_EQ_INT(run(ctx, b.f, 1, bufs, 3, args), TILEC_OK);
		double worst = 0;
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;
				for (int t = 0; t < K; t++)
					s += (double)fa[i * K + t] * fb[t * N + j];
				worst = fmax(worst, fabs(s - mc[i * N + j]));
			}
		/* fp16 products are exact in fp32; tf32 keeps 10 mantissa bits */
		CHECK_MSG(worst < (pass ? 1e-2 : 1e-5), "dot %s: max error %g", ir_kind_name(k), worst);
		CHECK_MSG(pass == 0 || worst > 1e-6, "tf32 rounding not applied (max error %g)", worst);
		free(ma);
		free(mb);
		free(fa);
		free(fb);
		free(mc);
		tilec_ctx_free(ctx);
		arena_free(a);
	}
}

/* A malformed function is refused by the verifier before anything runs. */
static void test_refuses_invalid(void)
{
	arena *a = arena_new();
	ir_param ps[1] = {{"x", ir_ptr(IR_F32), false, false, false, 0}};
	irb b = irb_new(a, 1, ps);
	irb_store(&b, 0, irb_c(&b, I32, 1, 0), -1); /* i32 through *fp32 */
	tilec_ctx *ctx = tilec_ctx_new();
	float x = 0;
	interp_buffer buf = {&x, sizeof x};
	interp_arg arg = {0, 0, {0}};
	CHECK_EQ_INT(run(ctx, b.f, 1, &buf, 1, &arg), TILEC_ERR_SEMANTIC);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "storing i32 through *fp32");
	tilec_ctx_free(ctx);
	arena_free(a);
}

int main(void)
{
	test_vector_add();
	test_speed();
	test_half_formats();
	test_integers();
	test_floats();
	test_casts();
	test_reduce_2d();
	test_control_flow();
	test_split_closure();
	test_dot();
	test_refuses_invalid();
	return check_report("test_interp");
}
