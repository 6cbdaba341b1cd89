/* test_lower.c - GPU code generation from hand-built IR: layouts, vector
 * widths from axis info, the PTX the back end emits, ptxas, diagnostics. */
#include "check.h"
#include "compile.h"
#include "ir_build.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const int archs[2] = {80, 90};

/* out[i] = x[i] + y[i] for i < n, BLOCK elements per program. */
static ir_func *vector_add(arena *a, bool hints, int block)
{
	ir_type i32 = ir_scalar(IR_I32);
	ir_param params[4] = {
		{"x_ptr", ir_ptr(IR_F32), hints, false, false, 0},
		{"y_ptr", ir_ptr(IR_F32), hints, false, false, 0},
		{"out_ptr", ir_ptr(IR_F32), hints, false, false, 0},
		{"n_elements", i32, hints, false, false, 0},
	};
	irb b = irb_new(a, 4, params);
	ir_type vi = irb_vec(i32, block), vb = irb_vec(ir_scalar(IR_I1), block);
	ir_type vp = irb_vec(ir_ptr(IR_F32), block), vf = irb_vec(ir_scalar(IR_F32), block);
	int pid = irb_pid(&b, 0);
	int start = irb_2(&b, IR_OP_MUL, i32, pid, irb_c(&b, i32, block, 0));
	int offs = irb_2(&b, IR_OP_ADD, vi, irb_1(&b, IR_OP_SPLAT, vi, start), irb_arange(&b, block));
	int mask = irb_cmp(&b, IR_CMP_LT, offs, irb_1(&b, IR_OP_SPLAT, vi, 3));
	int px = irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 0), offs);
	int py = irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 1), offs);
	int po = irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 2), offs);
	int x = irb_load(&b, px, mask, -1);
	int y = irb_load(&b, py, mask, -1);
	irb_store(&b, po, irb_2(&b, IR_OP_ADD, vf, x, y), mask);
	(void)vb;
	return b.f;
}

static const char *ptx_of(const compile_result *r)
{
	for (int i = 0; i < r->nimages; i++)
		if (r->images[i].kind == BLOB_IMAGE_PTX)
			return (const char *)r->images[i].data;
	return "";
}

static tilec_status compile1(tilec_ctx *ctx, arena *a, ir_func *f, const char *ptxas, compile_result *r)
{
	compile_options o = {.narchs = 2, .archs = archs, .emit_ptx = true, .ptx_arch = 80, .ptxas = ptxas,
			     .debug_verify = true, .jobs = 1};
	const char *sym = "kernel";
	return compile_module(ctx, a, &f, &sym, 1, &o, r);
}

/* Every element of the shape is held by exactly one owner (thread,
 * register), and every register of every thread holds an element inside
 * the shape: the arithmetic lower.c emits, done on the CPU. */
static bool covers(const layout *l, int rank, const int32_t *shape, int nthreads)
{
	layout_map m = layout_map_of(l, rank, shape);
	int64_t n = 1;
	for (int d = 0; d < m.rank; d++)
		n *= m.shape[d];
	int *seen = calloc((size_t)n, sizeof(int));
	bool ok = seen != NULL;
	for (int t = 0; ok && t < nthreads; t++) {
		int lane = t & 31, warp = t >> 5;
		int32_t raw[IR_MAX_RANK];
		bool own = true;
		for (int d = 0; d < m.rank; d++) {
			layout_field f = layout_dim_field(&m, d);
			raw[d] = ((lane >> f.lane_shift) & (f.lanes - 1)) * f.lane_scale +
				 ((warp >> f.warp_shift) & (f.warps - 1)) * f.warp_scale;
			if ((int64_t)f.warp_scale * f.warps > m.shape[d] && raw[d] >= m.shape[d])
				own = false;
		}
		for (int r = 0; ok && r < m.nregs; r++) {
			int32_t c[IR_MAX_RANK];
			layout_reg_coords(&m, r, c);
			int64_t lin = 0;
			for (int d = 0; d < m.rank; d++) {
				int32_t x = (raw[d] & (m.shape[d] - 1)) + c[d];
				ok &= x >= 0 && x < m.shape[d];
				lin = lin * m.shape[d] + x;
			}
			if (ok && own)
				seen[lin]++;
		}
	}
	for (int64_t i = 0; ok && i < n; i++)
		ok = seen[i] == 1;
	free(seen);
	return ok;
}

static void layout_coverage(arena *a)
{
	static const int32_t sizes[] = {1, 2, 8, 64, 4096};
	const int ns = (int)(sizeof sizes / sizeof sizes[0]);
	int bad = 0, total = 0;
	for (int w = 1; w <= 8; w *= 2)
		for (int vec = 1; vec <= 8; vec *= 2)
			for (int i = 0; i < ns; i++) {
				int32_t s1[1] = {sizes[i]};
				layout *l1 = layout_blocked(a, 1, s1, w, vec);
				total++;
				bad += !covers(l1, 1, s1, 32 * w);
				for (int j = 0; j < ns; j++) {
					int32_t s2[2] = {sizes[i] > 64 ? 64 : sizes[i], sizes[j] > 1024 ? 1024 : sizes[j]};
					layout *l2 = layout_blocked(a, 2, s2, w, vec);
					int32_t small[2] = {s2[0] > 4 ? s2[0] / 4 : s2[0], s2[1]};
					total += 4;
					bad += !covers(l2, 2, s2, 32 * w);
					bad += !covers(l2, 2, small, 32 * w);
					for (int k = 0; k < 2; k++) {
						int32_t rest[1] = {s2[1 - k]};
						bad += !covers(layout_slice(a, l2, k), 1, rest, 32 * w);
					}
				}
			}
	CHECK_MSG(bad == 0, "%d of %d layouts do not cover their shape exactly once", bad, total);
}

/* An element's byte offset in a swizzled tile, by the formula of
 * analysis.h (value coordinates). */
static int64_t smem_offset(const smem_layout *s, int64_t r, int64_t c)
{
	if (s->transposed) {
		int64_t t = r;
		r = c;
		c = t;
	}
	int64_t b = c * s->elem_bytes, p = s->panel_bytes;
	int64_t phase = (r / s->per_phase) % s->max_phase;
	if (s->phase_mix)
		phase = (phase ^ (phase << s->phase_mix)) & (s->max_phase - 1);
	return b / p * s->rows * p + r * p + ((b % p / 16) ^ (phase << s->phase_shift)) * 16 + b % 16;
}

/* smem_layout_delta's constant is right at every place of the tile it
 * claims it for, and claimed for the steps the copies and tf32 reads take. */
static void test_smem_delta(void)
{
	struct { int r, c, eb; bool tr, panels; int shift; } ls[] = {
		{64, 32, 2, false, false, 0}, {32, 128, 4, false, false, 1}, {32, 128, 4, false, true, 1},
		{128, 64, 2, true, false, 0}, {64, 64, 2, false, true, 0}, {16, 8, 4, false, false, 0},
	};
	int bad = 0, claimed = 0;
	for (size_t i = 0; i < sizeof ls / sizeof ls[0]; i++) {
		smem_layout s = smem_layout_make(ls[i].r, ls[i].c, ls[i].eb, ls[i].tr, ls[i].panels);
		if (ls[i].shift) {
			s.max_phase = 4;
			s.phase_shift = ls[i].shift;
		}
		for (int dr = -16; dr <= 16; dr += 4)
			for (int dc = -64; dc <= 64; dc += 8) {
				int64_t d;
				if (!smem_layout_delta(&s, dr, dc, &d))
					continue;
				claimed++;
				for (int r = 0; r < ls[i].r; r++)
					for (int c = 0; c < ls[i].c; c++)
						if (r + dr >= 0 && r + dr < ls[i].r && c + dc >= 0 && c + dc < ls[i].c)
							bad += smem_offset(&s, r + dr, c + dc) != smem_offset(&s, r, c) + d;
			}
	}
	CHECK_MSG(bad == 0, "%d places where smem_layout_delta's constant is wrong", bad);
	CHECK(claimed > 50);
	/* a tf32 B ring: rows 4 apart and 8 K steps apart are constants away */
	smem_layout t = smem_layout_make(32, 128, 4, false, false);
	t.max_phase = 4;
	t.phase_shift = 1;
	int64_t d;
	CHECK(smem_layout_delta(&t, 4, 0, &d) && d == 4 * 512);
	CHECK(!smem_layout_delta(&t, 2, 0, &d));
	/* copies of rows 32 apart in a plain 8-phase ring */
	smem_layout u = smem_layout_make(64, 32, 2, false, false);
	CHECK(smem_layout_delta(&u, 32, 0, &d) && d == 32 * 64);
	CHECK(!smem_layout_delta(&u, 0, 8, &d));
}

/* The library's offsets are the formula's, a mixed phase keeps them a
 * permutation of the tile, and the deltas hold with it too. */
static void test_smem_mixed(void)
{
	struct { int r, c, eb; bool tr, panels; } ls[] = {
		{128, 128, 2, false, false}, {64, 32, 2, false, false}, {32, 64, 4, false, false},
		{64, 64, 2, false, true}, {16, 8, 4, false, false}, {128, 64, 2, true, false},
	};
	int bad = 0, clash = 0, delta_bad = 0;
	for (size_t i = 0; i < sizeof ls / sizeof ls[0]; i++)
		for (int mix = 0; mix < 3; mix++) {
			smem_layout s = smem_layout_make(ls[i].r, ls[i].c, ls[i].eb, ls[i].tr, ls[i].panels);
			if ((1 << mix) >= s.max_phase && mix)
				continue;
			s.phase_mix = mix;
			int64_t n = (int64_t)ls[i].r * ls[i].c;
			unsigned char *seen = calloc((size_t)s.tile_bytes, 1);
			for (int r = 0; r < ls[i].r; r++)
				for (int c = 0; c < ls[i].c; c++) {
					int64_t o = smem_layout_offset(&s, r, c);
					bad += o != smem_offset(&s, r, c);
					if (o < 0 || o >= (int64_t)s.tile_bytes || o % ls[i].eb)
						clash++;
					else
						clash += seen[o]++ != 0;
					int64_t d;
					if (r + 8 < ls[i].r && c + 8 < ls[i].c && smem_layout_delta(&s, 8, 8, &d))
						delta_bad += smem_layout_offset(&s, r + 8, c + 8) != o + d;
				}
			free(seen);
			CHECK(n * ls[i].eb == (int64_t)s.tile_bytes);
		}
	CHECK_MSG(bad == 0, "%d offsets differ from the formula", bad);
	CHECK_MSG(clash == 0, "%d elements share or leave their tile's bytes", clash);
	CHECK_MSG(delta_bad == 0, "%d deltas wrong with a mixed phase", delta_bad);
}

/* The wavefront model: the tensor cores' accumulator (8 rows, one chunk
 * each per wavefront) is served without conflicts in every phase order; a
 * reader whose 8 lanes take 2 rows x 4 chunks meets 2-way conflicts under
 * the plain phase and none with the phase's low bit mixed into its top
 * (phase_mix 2), and the chooser takes that; a reader of 8 whole chunks
 * per row keeps the plain phase; lanes down one column of an fp32 tile
 * meet 4-way conflicts. */
static void test_banks(arena *a)
{
	ir_type t = {.rank = 2, .kind = IR_F16, .shape = {128, 128}};
	smem_layout s = smem_layout_make(128, 128, 2, false, false);
	const layout *acc = layout_mma(a, 2, 1, 4, 1, false);
	const layout *narrow = layout_blocked(a, 2, (int32_t[]){128, 32}, 4, 8); /* spt [1,8], tpw [8,4] */
	const layout *wide = layout_blocked(a, 2, (int32_t[]){128, 128}, 4, 8);  /* spt [1,8], tpw [2,16] */
	CHECK_EQ_INT(narrow->threads_per_warp[1], 4);
	CHECK_EQ_INT(wide->threads_per_warp[1], 16);
	for (int mix = 0; mix < 3; mix++) {
		s.phase_mix = mix;
		/* 64 four-byte stores a thread, 4 warps, one wavefront each */
		CHECK_EQ_INT((int)smem_wavefronts(acc, t, &s, 4, true), 4 * 64);
		CHECK_EQ_INT((int)smem_wavefronts(wide, t, &s, 4, false), 4 * 16 * 4);
	}
	s.phase_mix = 0;
	CHECK_EQ_INT((int)smem_wavefronts(narrow, t, &s, 4, false), 4 * 16 * 8);
	s.phase_mix = 2;
	CHECK_EQ_INT((int)smem_wavefronts(narrow, t, &s, 4, false), 4 * 16 * 4);
	smem_layout_order_phase(&s, acc, narrow, t, 4);
	CHECK_EQ_INT(s.phase_mix, 2);
	smem_layout_order_phase(&s, acc, wide, t, 4);
	CHECK_EQ_INT(s.phase_mix, 0);
	/* one column at a time: lane i reads row i of a 32 x 32 fp32 tile,
	 * rows 8 apart share a bank */
	ir_type tc = {.rank = 2, .kind = IR_F32, .shape = {32, 32}};
	smem_layout sc = smem_layout_make(32, 32, 4, false, false);
	layout *col = arena_alloc(a, sizeof *col);
	*col = (layout){.kind = LAYOUT_BLOCKED, .rank = 2, .size_per_thread = {1, 1}, .threads_per_warp = {32, 1},
			.warps_per_cta = {1, 1}, .order = {0, 1}};
	CHECK_EQ_INT((int)smem_wavefronts(col, tc, &sc, 1, false), 32 * 4);
}

/* wgmma's warps go along M while there are 64-row blocks for their
 * warpgroups (Triton's rule), then split N; a split's layout covers its
 * block once, its warps count along M first (four consecutive warps: one
 * warpgroup's 64 rows) and each warp's columns are one contiguous block of
 * N / wn, its 8-column tiles in registers. */
static void test_wgmma_layout(arena *a)
{
	int wm = 0, wn = 0;
	CHECK(layout_wgmma_warps(64, 128, 8, &wm, &wn) && wm == 4 && wn == 2);
	CHECK(layout_wgmma_warps(128, 128, 8, &wm, &wn) && wm == 8 && wn == 1);
	CHECK(layout_wgmma_warps(128, 256, 16, &wm, &wn) && wm == 8 && wn == 2);
	CHECK(layout_wgmma_warps(64, 64, 4, &wm, &wn) && wm == 4 && wn == 1);
	CHECK(!layout_wgmma_warps(32, 128, 4, &wm, &wn)); /* no 64-row block */
	CHECK(!layout_wgmma_warps(64, 8, 8, &wm, &wn));   /* 4 columns a warpgroup */
	CHECK(!layout_wgmma_warps(64, 64, 2, &wm, &wn));  /* no warpgroup */
	const int32_t shapes[][2] = {{64, 128}, {64, 16}, {128, 256}};
	const int grids[][2] = {{4, 2}, {4, 2}, {8, 2}};
	for (int i = 0; i < 3; i++) {
		const layout *l = layout_wgmma(a, grids[i][0], grids[i][1]);
		CHECK(l && l->warp_blocks);
		CHECK(covers(l, 2, shapes[i], 32 * grids[i][0] * grids[i][1]));
	}
	const layout *l = layout_wgmma(a, 4, 2);
	layout_map m = layout_map_of(l, 2, shapes[0]);
	layout_field fm = layout_dim_field(&m, 0), fn = layout_dim_field(&m, 1);
	CHECK_EQ_INT(fm.warp_shift, 0);
	CHECK_EQ_INT(fm.warps, 4);
	CHECK_EQ_INT(fn.warp_shift, 2);
	CHECK_EQ_INT(fn.warp_scale, 64);
	int32_t idx[2] = {0, 0}, c[2];
	for (idx[1] = 0; idx[1] < m.regs_per_dim[1]; idx[1]++) {
		layout_reg_coords(&m, layout_reg_join(&m, idx), c);
		CHECK_EQ_INT(c[1], 8 * (idx[1] / 2) + idx[1] % 2);
	}
	CHECK(!layout_eq(l, layout_mma(a, 2, 1, 4, 2, false)));
	CHECK(layout_wgmma(a, 8, 1)->warp_blocks == false);
	strbuf sb;
	sb_init(&sb);
	layout_str(&sb, l);
	CHECK_STR_CONTAINS(sb_str(&sb), "wpc=[4,2], order=[1,0], mma, warp blocks}");
	sb_free(&sb);
}

/* range_of: the int4 dequantization's nibbles, less their offset, fit
 * fp16's exact integers (nvptx/math.c converts them through their bits);
 * what may wrap keeps its kind's whole range. */
static void test_ranges(arena *a)
{
	ir_param params[2] = {{"w", ir_scalar(IR_U8), false, false, false, 0}, {"n", ir_scalar(IR_I32), false, false, false, 0}};
	irb b = irb_new(a, 2, params);
	ir_type u8 = irb_vec(ir_scalar(IR_U8), 64), i8 = irb_vec(ir_scalar(IR_I8), 64), i32 = irb_vec(ir_scalar(IR_I32), 64);
	int w = irb_1(&b, IR_OP_SPLAT, u8, 0);
	int lo = irb_2(&b, IR_OP_AND, u8, w, irb_c(&b, u8, 15, 0));
	int lo8 = irb_2(&b, IR_OP_SUB, i8, irb_1(&b, IR_OP_CAST, i8, lo), irb_c(&b, i8, 8, 0));
	int hi = irb_2(&b, IR_OP_SHR, u8, w, irb_c(&b, u8, 4, 0));
	int wide = irb_2(&b, IR_OP_MUL, i32, irb_1(&b, IR_OP_CAST, i32, hi), irb_c(&b, i32, -3, 0));
	int sum = irb_2(&b, IR_OP_ADD, u8, w, lo);                          /* may wrap */
	int rem = irb_2(&b, IR_OP_REM, i32, irb_1(&b, IR_OP_SPLAT, i32, 1), irb_c(&b, i32, 10, 0));
	int neg = irb_2(&b, IR_OP_SHR, i8, irb_c(&b, i8, -100, 0), irb_c(&b, i8, 3, 0));
	int64_t l = 0, h = 0;
	CHECK(range_of(b.f, lo, &l, &h) && l == 0 && h == 15);
	CHECK(range_of(b.f, lo8, &l, &h) && l == -8 && h == 7);
	CHECK(range_of(b.f, hi, &l, &h) && l == 0 && h == 15);
	CHECK(range_of(b.f, wide, &l, &h) && l == -45 && h == 0);
	CHECK(range_of(b.f, sum, &l, &h) && l == 0 && h == 255);
	CHECK(range_of(b.f, rem, &l, &h) && l == -9 && h == 9);
	CHECK(range_of(b.f, neg, &l, &h) && l == -13 && h == -13);
	CHECK(range_of(b.f, w, &l, &h) && l == 0 && h == 255);
	CHECK(!range_of(b.f, irb_1(&b, IR_OP_CAST, irb_vec(ir_scalar(IR_F16), 64), lo), &l, &h));
	/* a DAG that doubles 40 times would take 2^40 steps walked naively:
	 * the walk gives up early, with the kind's range */
	int y = irb_1(&b, IR_OP_CAST, i32, lo);
	for (int i = 0; i < 40; i++)
		y = irb_2(&b, IR_OP_ADD, i32, y, y);
	CHECK(range_of(b.f, y, &l, &h) && l == INT32_MIN && h == INT32_MAX);
}

int main(void)
{
	test_smem_delta();
	test_smem_mixed();
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	test_banks(a);
	test_wgmma_layout(a);
	test_ranges(a);
	const char *ptxas = target_find_ptxas(a, NULL);

	/* Vector add with :16 hints: 16-byte masked loads and stores. */
	compile_result r;
	tilec_status st = compile1(ctx, a, vector_add(a, true, 1024), NULL, &r);
	CHECK_MSG(st == TILEC_OK, "%s", tilec_diagnostics(ctx));
	if (st == TILEC_OK) {
		const char *ptx = ptx_of(&r);
		CHECK_STR_CONTAINS(ptx, "ld.global.v4.b32");
		CHECK_STR_CONTAINS(ptx, "st.global.v4.b32");
		CHECK_STR_CONTAINS(ptx, ".entry kernel");
		CHECK_STR_CONTAINS(ptx, ".reqntid 128");
		if (getenv("TILE_TEST_VERBOSE"))
			fputs(ptx, stderr);
		CHECK_EQ_INT(r.nimages, 3);
		if (ptxas) {
			CHECK(!r.ptx_only);
			CHECK_EQ_INT(r.images[0].kind, BLOB_IMAGE_CUBIN);
			CHECK_EQ_INT(r.images[1].arch, 90);
			CHECK_EQ_INT(r.nkernels, 2);
			CHECK(r.kernels[0].n_regs > 0 && r.kernels[0].n_regs < 64);
			CHECK(r.kernels[0].spills_known);
			CHECK_EQ_INT(r.kernels[0].spill_stores, 0);
			CHECK_EQ_INT(r.kernels[0].spill_loads, 0);
			fprintf(stderr, "vector add: sm_80 %d registers, sm_90 %d registers\n", r.kernels[0].n_regs,
				r.kernels[1].n_regs);
		}
	}

	/* Without the hints the mask may change every element: scalar accesses. */
	tilec_clear_diagnostics(ctx);
	st = compile1(ctx, a, vector_add(a, false, 1024), NULL, &r);
	CHECK_MSG(st == TILEC_OK, "%s", tilec_diagnostics(ctx));
	if (st == TILEC_OK) {
		const char *ptx = ptx_of(&r);
		CHECK(strstr(ptx, "ld.global.v4") == NULL);
		CHECK_STR_CONTAINS(ptx, "ld.global.b32");
		CHECK_STR_CONTAINS(ptx, "st.global.b32");
	}

	/* Two kernels, one module per arch; kernel info kernel-major. */
	tilec_clear_diagnostics(ctx);
	{
		ir_func *fs[2] = {vector_add(a, true, 1024), vector_add(a, false, 128)};
		const char *syms[2] = {"add_div16", "add_plain"};
		compile_options o = {.narchs = 2, .archs = archs, .emit_ptx = true, .ptx_arch = 80, .jobs = 3};
		st = compile_module(ctx, a, fs, syms, 2, &o, &r);
		CHECK_MSG(st == TILEC_OK, "%s", tilec_diagnostics(ctx));
		if (st == TILEC_OK) {
			CHECK_STR_CONTAINS(ptx_of(&r), ".entry add_div16");
			CHECK_STR_CONTAINS(ptx_of(&r), ".entry add_plain");
			CHECK_EQ_INT(r.nkernels, ptxas ? 4 : 2);
			CHECK(strcmp(r.kernels[0].symbol, "add_div16") == 0);
			CHECK(strcmp(r.kernels[r.nkernels - 1].symbol, "add_plain") == 0);
			if (ptxas)
				CHECK_EQ_INT(r.kernels[3].arch, 90);
		}
	}

	/* ptxas failing: its message comes back with TILEC_ERR_PTXAS. */
	char script[] = "/tmp/tile-fake-ptxas-XXXXXX";
	int fd = mkstemp(script);
	CHECK(fd >= 0);
	if (fd >= 0) {
		const char *body = "#!/bin/sh\necho 'ptxas fatal   : fake failure for the test' >&2\nexit 3\n";
		CHECK(write(fd, body, strlen(body)) == (ssize_t)strlen(body));
		close(fd);
		chmod(script, 0700);
		tilec_clear_diagnostics(ctx);
		st = compile1(ctx, a, vector_add(a, true, 256), script, &r);
		CHECK_EQ_INT(st, TILEC_ERR_PTXAS);
		CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "fake failure for the test");
		CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "sm_80");
		unlink(script);
	}

	/* No ptxas anywhere: PTX images, a warning, ptx_only. */
	tilec_clear_diagnostics(ctx);
	setenv("TILE_PTXAS", "/nonexistent/ptxas", 1);
	st = compile1(ctx, a, vector_add(a, true, 256), NULL, &r);
	unsetenv("TILE_PTXAS");
	CHECK_EQ_INT(st, TILEC_OK);
	CHECK(r.ptx_only);
	CHECK_EQ_INT(tilec_warning_count(ctx), 1);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "ptxas not found");
	CHECK_EQ_INT(r.images[0].kind, BLOB_IMAGE_PTX);
	CHECK_STR_CONTAINS((const char *)r.images[1].data, ".target sm_90");

	/* An fp16 dot on tensor cores: operands through ldmatrix into mma.sync. */
	tilec_clear_diagnostics(ctx);
	{
		ir_param p[2] = {{"x", ir_ptr(IR_F16), true, false, false, 0}, {"y", ir_ptr(IR_F32), true, false, false, 0}};
		irb b = irb_new(a, 2, p);
		ir_type mp = irb_mat(ir_ptr(IR_F16), 16, 16), acc = irb_mat(ir_scalar(IR_F32), 16, 16);
		ir_type op = irb_mat(ir_ptr(IR_F32), 16, 16);
		int x = irb_load(&b, irb_1(&b, IR_OP_SPLAT, mp, 0), -1, -1);
		int z = irb_c(&b, acc, 0, 0.0);
		int d = irb_3(&b, IR_OP_DOT, acc, x, x, z);
		irb_store(&b, irb_1(&b, IR_OP_SPLAT, op, 1), d, -1);
		st = compile1(ctx, a, b.f, NULL, &r);
		CHECK_MSG(st == TILEC_OK, "%s", tilec_diagnostics(ctx));
		if (st == TILEC_OK) {
			CHECK_STR_CONTAINS(ptx_of(&r), "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
			CHECK_STR_CONTAINS(ptx_of(&r), "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16");
			CHECK(!strstr(ptx_of(&r), "fma.rn.f32"));
		}
	}

	/* Arithmetic on constants folds in the builder (no flags to set). */
	tilec_clear_diagnostics(ctx);
	{
		ir_param p[1] = {{"y", ir_ptr(IR_F32), true, false, false, 0}};
		irb b = irb_new(a, 1, p);
		ir_type vf = irb_vec(ir_scalar(IR_F32), 128), vp = irb_vec(ir_ptr(IR_F32), 128);
		int two = irb_c(&b, vf, 0, 2.0), three = irb_c(&b, vf, 0, 3.0);
		int v = irb_2(&b, IR_OP_ADD, vf, irb_2(&b, IR_OP_MUL, vf, two, three), two);
		int ptrs = irb_2(&b, IR_OP_PTR_ADD, vp, irb_1(&b, IR_OP_SPLAT, vp, 0), irb_arange(&b, 128));
		irb_store(&b, ptrs, v, -1);
		st = compile1(ctx, a, b.f, NULL, &r);
		CHECK_MSG(st == TILEC_OK, "%s", tilec_diagnostics(ctx));
		if (st == TILEC_OK)
			CHECK_STR_CONTAINS(ptx_of(&r), "1090519040"); /* the bits of 8.0 */
	}

	/* libdevice calls: a name libdevice lacks, a name outside it. */
	{
		static const char *const names[2] = {"__nv_no_such_function", "my_helper"};
		static const char *const msgs[2] = {"libdevice has no function '__nv_no_such_function'",
						    "kernel.py:2:1: error: extern function 'my_helper' is not a libdevice function"};
		for (int i = 0; i < 2; i++) {
			tilec_clear_diagnostics(ctx);
			ir_param p[1] = {{"x", ir_ptr(IR_F32), true, false, false, 0}};
			irb b = irb_new(a, 1, p);
			int x = irb_load(&b, 0, -1, -1);
			b.line = 2;
			ir_op *e = irb_op(&b, IR_OP_EXTERN, ir_scalar(IR_F32), 1, &x);
			e->name = names[i];
			b.line = 3;
			irb_store(&b, 0, irb_res(e), -1);
			st = compile1(ctx, a, b.f, NULL, &r);
			CHECK_EQ_INT(st, TILEC_ERR_UNSUPPORTED);
			CHECK_STR_CONTAINS(tilec_diagnostics(ctx), msgs[i]);
		}
	}

	/* The slice layout of a row reduction sees the parent's registers. */
	{
		int32_t shape[2] = {64, 128};
		layout *p2 = layout_blocked(a, 2, shape, 4, 4);
		CHECK_EQ_INT(p2->size_per_thread[1], 4);
		CHECK_EQ_INT(p2->threads_per_warp[1], 32);
		CHECK_EQ_INT(p2->warps_per_cta[0], 4);
		layout_map m = layout_map_of(p2, 2, shape);
		CHECK_EQ_INT(m.nregs, 64 * 128 / 128);
		layout *s1 = layout_slice(a, p2, 1);
		int32_t rows[1] = {64};
		layout_map ms = layout_map_of(s1, 1, rows);
		CHECK_EQ_INT(ms.rank, 2);
		CHECK_EQ_INT(ms.nregs, 16);
		CHECK_EQ_INT(ms.dim_of[0], 0);
		layout_field f = layout_dim_field(&m, 0);
		CHECK_EQ_INT(f.lane_shift, 5);
		CHECK_EQ_INT(f.warp_scale, 1);
		strbuf sb;
		sb_init(&sb);
		layout_str(&sb, s1);
		CHECK_STR_CONTAINS(sb_str(&sb), "slice{dim=1, blocked{spt=[1,4], tpw=[1,32], wpc=[4,1], order=[1,0]}}");
		sb_free(&sb);
	}

	layout_coverage(a);

	tilec_ctx_free(ctx);
	arena_free(a);
	return check_report("test_lower");
}
