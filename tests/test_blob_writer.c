/* test_blob_writer.c - the blob writer against tile.h's reader: every field
 * written comes back through the introspection API, the bytes follow
 * FORMAT.md (decoded here by hand), images inflate back to their input,
 * any corrupted byte is refused, and bad descriptions are refused by the
 * writer with a diagnostic; TMA tensor-map parameters, written, read and
 * emitted; predicates past parameter 31 (a version 6 blob's preds). */
#define TILE_IMPLEMENTATION
#include "tile.h"

#include "check.h"
#include "pack/pack.h"

#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

static uint32_t u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const blob_param add_params[] = {
	{"x", BLOB_PARAM_PTR, 8, IR_F32, 0, NULL, 0, {0}},
	{"y", BLOB_PARAM_PTR, 8, IR_F8E5, 0, NULL, 0, {0}}, /* dtype 15: the newest code */
	{"n", BLOB_PARAM_INT, 4, IR_I32, 0, NULL, 0, {0}},
	{"alpha", BLOB_PARAM_FLOAT, 4, IR_F32, 0, NULL, 0, {0}},
	{"flag", BLOB_PARAM_UINT, 1, IR_I1, 0, NULL, 0, {0}},
	{"global_scratch", BLOB_PARAM_PTR, 8, IR_I8, BLOB_PARAM_HIDDEN, NULL, 0, {0}},
};
static const ir_constexpr cx[] = {
	{"BLOCK", IR_CONSTEXPR_INT, 1024, 0, NULL},
	{"EPS", IR_CONSTEXPR_FLOAT, 0, 1e-5, NULL},
	{"MODE", IR_CONSTEXPR_STRING, 0, 0, "fast"},
	{"DT", IR_CONSTEXPR_DTYPE, IR_F16, 0, NULL},
	{"EVEN", IR_CONSTEXPR_BOOL, 1, 0, NULL},
};

static uint8_t cubin80[4000], cubin90[3000];
static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
	"// add_kernel add_kernel add_kernel add_kernel add_kernel add_kernel add_kernel\n"
	"// add_kernel add_kernel add_kernel add_kernel add_kernel add_kernel add_kernel\n";

static uint8_t grid1[64], grid2[64];
static size_t grid1_len, grid2_len;
static blob_variant add_variants[3], scale_variant;
static blob_kernel kernels[2];
static blob_image images[3];
static blob_param scale_params[1] = {{"out", BLOB_PARAM_PTR, 8, IR_F64, 0, NULL, 0, {0}}};

static blob_desc make_desc(void)
{
	for (size_t i = 0; i < sizeof cubin80; i++)
		cubin80[i] = (uint8_t)(i % 7 == 0 ? i : 0); /* compressible */
	uint32_t r = 12345;
	for (size_t i = 0; i < sizeof cubin90; i++) {
		r = r * 1103515245u + 12345u;
		cubin90[i] = (uint8_t)(r >> 16); /* incompressible: stored */
	}
	/* given least specialized first: the writer reorders */
	add_variants[0] = (blob_variant){"add_kernel_plain", 0, 5, cx, 4, 3, 0, 0, {0, 0, 0}, 0, 0, 0, grid1, grid1_len, false, 0, 0, 0, -1, 0, NULL,
					 0x2, 0, 0};
	add_variants[1] = (blob_variant){"add_kernel_x16", 0, 1, cx, 8, 2, 256, 1024, {0, 0, 0}, 40, 0x1, 0, grid2, grid2_len,
					 true, 16, 24, 0, -1, 0, NULL, 0, 0, 0};
	add_variants[2] = (blob_variant){"add_kernel_all", 0, 0, NULL, 2, 1, 0, 0, {1, 1, 1}, 0, 0x3, 0x10, NULL, 0, true, 0, 0, 0, -1, 0, NULL,
					 0, 0x4, 0};
	scale_variant = (blob_variant){"scale", 1, 0, NULL, 1, 0, 0, 100000, {2, 1, 1}, 0, 0, 0, NULL, 0, false, 0, 0, 0, -1, 0, NULL, 0, 0, 0};
	kernels[0] = (blob_kernel){"add_kernel", 6, add_params, 3, add_variants, 0, 0, NULL, 0, NULL, 0, 0, NULL, false};
	kernels[1] = (blob_kernel){"scale", 1, scale_params, 1, &scale_variant, 0, 0, NULL, 0, NULL, 0, 0, NULL, false};
	images[0] = (blob_image){0, BLOB_IMAGE_CUBIN, 80, 0, cubin80, sizeof cubin80};
	images[1] = (blob_image){0, BLOB_IMAGE_PTX, 90, 0, ptx, strlen(ptx)};
	images[2] = (blob_image){1, BLOB_IMAGE_CUBIN, 90, BLOB_IMAGE_ARCH_SPECIFIC | BLOB_IMAGE_PRODUCER, cubin90,
				 sizeof cubin90};
	add_variants[1].producer_warps = 1; /* warp-specialized where an image says so */
	return (blob_desc){2, kernels, 3, images, 2};
}

static void check_header(const uint8_t *b, size_t size)
{
	CHECK(!memcmp(b, "TILE", 4));
	CHECK_EQ_INT(b[4] | b[5] << 8, 5);
	CHECK_EQ_INT(b[6] | b[7] << 8, 32);
	CHECK_EQ_INT(u32(b + 8), size);
	CHECK_EQ_INT(u32(b + 12), crc32(0, b + 32, (uInt)(size - 32)));
	CHECK_EQ_INT(u32(b + 16), 32);
	CHECK_EQ_INT(u32(b + 24), 0);
	CHECK_EQ_INT(u32(b + 28), 0);
	CHECK_EQ_INT(size % 4, 0);
	const uint8_t *m = b + 32;
	uint32_t nk = u32(m), np = u32(m + 4), nv = u32(m + 8), nc = u32(m + 12), ni = u32(m + 16);
	uint32_t gsize = u32(m + 20), ssize = u32(m + 24);
	CHECK_EQ_INT(nk, 2);
	CHECK_EQ_INT(np, 7);
	CHECK_EQ_INT(nv, 4);
	CHECK_EQ_INT(nc, 6);
	CHECK_EQ_INT(ni, 3);
	CHECK_EQ_INT(u32(m + 28), 2);
	CHECK_EQ_INT(ssize % 4, 0);
	CHECK_EQ_INT(u32(m + 32), 0); /* no tuning keys */
	CHECK_EQ_INT(u32(m + 36), 0); /* no tuning words */
	CHECK_EQ_INT(u32(m + 40), 0); /* no heuristics */
	CHECK_EQ_INT(u32(m + 44), 0); /* no tensor-map recipes */
	size_t meta = 48 + nk * 52 + np * 12 + nv * 80 + nc * 16 + ni * 32 + ((gsize + 3) & ~3u) + ssize;
	CHECK_EQ_INT(u32(b + 20), meta);
	CHECK_EQ_INT(gsize, grid1_len + grid2_len);
	/* spills in the variant records, most specialized first (all, x16,
	 * plain, scale): unknown is 0xffffffff in both fields */
	const uint8_t *vr = m + 48 + nk * 52 + np * 12;
	static const uint32_t spills[4][2] = {{0, 0}, {16, 24}, {0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}};
	static const uint32_t div8[4] = {0, 0, 0x2, 0}, div4[4] = {0x4, 0, 0, 0};
	for (int i = 0; i < 4; i++) {
		CHECK_EQ_INT(u32(vr + 80 * i + 56), spills[i][0]);
		CHECK_EQ_INT(u32(vr + 80 * i + 60), spills[i][1]);
		CHECK_EQ_INT(u32(vr + 80 * i + 64), 0);           /* config */
		CHECK_EQ_INT(u32(vr + 80 * i + 68), 0xffffffffu); /* no source config */
		CHECK_EQ_INT(u32(vr + 80 * i + 72), div8[i]);
		CHECK_EQ_INT(u32(vr + 80 * i + 76), div4[i]);
	}
	/* images: aligned, after the metadata, inflating to the input */
	const uint8_t *im = m + 48 + nk * 52 + np * 12 + nv * 80 + nc * 16;
	for (uint32_t i = 0; i < ni; i++, im += 32) {
		uint32_t off = u32(im + 16), sz = u32(im + 20), raw = u32(im + 24), comp = u32(im + 28);
		CHECK_EQ_INT(off % 4, 0);
		CHECK(off >= 32 + meta && off + sz <= size);
		CHECK_EQ_INT(raw, i == 1 ? sizeof ptx : images[i].size); /* PTX gains its NUL */
		uint8_t *out = malloc(raw);
		uLongf len = raw;
		if (comp == 1)
			CHECK(uncompress(out, &len, b + off, sz) == Z_OK && len == raw);
		else
			memcpy(out, b + off, sz);
		CHECK(!memcmp(out, images[i].data, images[i].size));
		free(out);
		CHECK_EQ_INT(comp, i == 2 ? 0 : 1);
		if (comp == 1)
			CHECK(sz < raw);
	}
}

static void check_introspection(const uint8_t *b, size_t size)
{
	tile_module *m = NULL;
	tile_status st = tile_module_create(b, size, &m);
	CHECK_MSG(st == TILE_SUCCESS, "%s: %s", tile_status_string(st), tile_last_error());
	if (st != TILE_SUCCESS)
		return;
	CHECK_EQ_INT(tile_kernel_count(m), 2);
	CHECK(!strcmp(tile_kernel_name(m, 0), "add_kernel"));
	CHECK(!strcmp(tile_kernel_name(m, 1), "scale"));
	CHECK_EQ_INT(tile_kernel_index(m, "scale"), 1);
	CHECK_EQ_INT(tile_param_count(m, 0), 6);
	for (int i = 0; i < 6; i++) {
		tile_param_info p;
		CHECK(tile_param_get_info(m, 0, i, &p) == TILE_SUCCESS);
		CHECK(!strcmp(p.name, add_params[i].name));
		CHECK_EQ_INT(p.kind, add_params[i].kind);
		CHECK_EQ_INT(p.size, add_params[i].size);
		CHECK_EQ_INT(p.dtype, add_params[i].dtype);
		CHECK_EQ_INT(p.hidden, i == 5);
	}
	/* most specialized first: all (3 bits), x16 (1 bit), plain (0) */
	static const int order[] = {2, 1, 0};
	CHECK_EQ_INT(tile_variant_count(m, 0), 3);
	for (int i = 0; i < 3; i++) {
		const blob_variant *w = &add_variants[order[i]];
		tile_variant_info v;
		CHECK(tile_variant_get_info(m, 0, i, &v) == TILE_SUCCESS);
		CHECK(!strcmp(v.symbol, w->symbol));
		CHECK_EQ_INT(v.group, w->group);
		CHECK_EQ_INT(v.num_warps, w->num_warps);
		CHECK_EQ_INT(v.producer_warps, w->producer_warps);
		CHECK_EQ_INT(v.num_stages, w->num_stages);
		CHECK_EQ_INT(v.shared_static, w->shared_static);
		CHECK_EQ_INT(v.shared_dynamic, w->shared_dynamic);
		for (int c = 0; c < 3; c++) /* 0 0 0 reads back as 1 1 1: both mean none */
			CHECK_EQ_INT(v.cluster[c], w->cluster[c] ? w->cluster[c] : 1);
		CHECK_EQ_INT(v.n_regs, w->n_regs);
		CHECK_EQ_INT(v.spill_stores, w->spills_known ? (int)w->spill_stores : -1);
		CHECK_EQ_INT(v.spill_loads, w->spills_known ? (int)w->spill_loads : -1);
		CHECK_EQ_INT(v.pred_div16, w->pred_div16);
		CHECK_EQ_INT(v.pred_div8, w->pred_div8);
		CHECK_EQ_INT(v.pred_div4, w->pred_div4);
		CHECK_EQ_INT(v.pred_eq1, w->pred_eq1);
		CHECK_EQ_INT(v.n_constexprs, w->nconstexprs);
		CHECK_EQ_INT(v.has_grid_program, w->grid_size != 0);
		for (int c = 0; c < w->nconstexprs; c++) {
			tile_constexpr_info ci;
			CHECK(tile_constexpr_get_info(m, 0, i, c, &ci) == TILE_SUCCESS);
			CHECK(!strcmp(ci.name, cx[c].name));
			CHECK_EQ_INT(ci.kind, cx[c].kind);
			if (cx[c].kind == IR_CONSTEXPR_FLOAT)
				CHECK(ci.fval == cx[c].fval);
			else if (cx[c].kind == IR_CONSTEXPR_STRING)
				CHECK(ci.sval && !strcmp(ci.sval, cx[c].sval));
			else
				CHECK_EQ_INT(ci.ival, cx[c].ival);
		}
	}
	tile_variant_info v;
	CHECK(tile_variant_get_info(m, 1, 0, &v) == TILE_SUCCESS);
	CHECK(!strcmp(v.symbol, "scale") && v.group == 1 && v.cluster[0] == 2 && v.shared_dynamic == 100000);
	CHECK_EQ_INT(tile_image_count(m), 3);
	for (int i = 0; i < 3; i++) {
		tile_image_info ii;
		CHECK(tile_image_get_info(m, i, &ii) == TILE_SUCCESS);
		CHECK_EQ_INT(ii.group, images[i].group);
		CHECK_EQ_INT(ii.kind, images[i].kind);
		CHECK_EQ_INT(ii.arch, images[i].arch);
		CHECK_EQ_INT(ii.flags, images[i].flags);
		CHECK_EQ_INT(ii.compression, i == 2 ? 0 : 1);
		CHECK_EQ_INT(ii.raw_size, i == 1 ? sizeof ptx : images[i].size);
	}
	tile_module_destroy(m);
}

/* A description the writer refuses, with the words it should say. */
static void check_refused(blob_desc d, const char *msg)
{
	tilec_ctx *ctx = tilec_ctx_new();
	uint8_t *out = (uint8_t *)1;
	size_t size = 1;
	CHECK(blob_write(ctx, &d, &out, &size) == TILEC_ERR_INVALID);
	CHECK(out == NULL && size == 0);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), msg);
	tilec_ctx_free(ctx);
}

static void check_bad_descriptions(void)
{
	blob_desc d = make_desc();
	blob_kernel k[2];
	blob_variant v[3];
	blob_param p[BLOB_MAX_PARAMS + 1];
	blob_image im[3];

	memcpy(k, kernels, sizeof k);
	k[1].name = "add_kernel";
	d.kernels = k;
	check_refused(d, "two kernels named 'add_kernel'");

	d = make_desc();
	memcpy(k, kernels, sizeof k);
	for (int i = 0; i <= BLOB_MAX_PARAMS; i++)
		p[i] = blob_param_make("p", IR_I32, false);
	k[1].params = p;
	k[1].nparams = BLOB_MAX_PARAMS + 1;
	d.kernels = k;
	check_refused(d, "at most 64");

	memcpy(p, add_params, sizeof add_params);
	p[3].flags = BLOB_PARAM_HIDDEN;
	memcpy(k, kernels, sizeof k);
	k[0].params = p;
	k[0].nparams = 6;
	check_refused(d, "hidden ones come last");

	memcpy(p, add_params, sizeof add_params);
	p[2].size = 8;
	check_refused(d, "inconsistent kind, size or dtype");

	memcpy(p, add_params, sizeof add_params);
	p[3].dtype = IR_F8E4NV; /* no fp8 scalar parameters */
	p[3].size = 1;
	check_refused(d, "inconsistent kind, size or dtype");

	memcpy(p, add_params, sizeof add_params);
	p[1].name = "x";
	check_refused(d, "two parameters named 'x'");

	memcpy(k, kernels, sizeof k);
	memcpy(v, add_variants, sizeof v);
	k[0].variants = v;
	v[1].pred_eq1 = 0x1; /* x is a pointer */
	check_refused(d, "predicates on parameters");

	memcpy(v, add_variants, sizeof v);
	v[2].cluster[1] = 0;
	check_refused(d, "cluster 1 x 0 x 1");

	memcpy(v, add_variants, sizeof v);
	v[0].num_warps = 0;
	check_refused(d, "num_warps 0");

	memcpy(v, add_variants, sizeof v);
	v[1].producer_warps = 25;
	check_refused(d, "has 25 producer warps (num_warps and they at most 32)");
	v[1].producer_warps = -1;
	check_refused(d, "has -1 producer warps");

	memcpy(v, add_variants, sizeof v);
	v[1].spill_loads = (512u << 10) + 1;
	check_refused(d, "has 16 bytes of spill stores and 524289 of loads (at most 524288)");
	v[1].spills_known = false; /* unknown: the values are not written */
	d.kernels = k;
	{
		tilec_ctx *ctx = tilec_ctx_new();
		uint8_t *out = NULL;
		size_t size = 0;
		CHECK(blob_write(ctx, &d, &out, &size) == TILEC_OK);
		free(out);
		tilec_ctx_free(ctx);
	}

	memcpy(v, add_variants, sizeof v);
	v[1].group = 2;
	check_refused(d, "names group 2 of 2");

	memcpy(v, add_variants, sizeof v);
	v[0].nconstexprs = 0; /* its grid program reads constexpr 0 */
	check_refused(d, "bad grid program: constexpr index");

	memcpy(k, kernels, sizeof k);
	d = make_desc();
	memcpy(im, images, sizeof im);
	im[2].group = 0;
	d.images = im;
	check_refused(d, "group 1 has no image");

	memcpy(im, images, sizeof im);
	im[1].kind = BLOB_IMAGE_CUBIN;
	im[1].arch = 80;
	check_refused(d, "two cubin images for sm_80 in group 0");

	d = make_desc();
	d.nkernels = 0;
	check_refused(d, "at least one kernel");
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[1 << 17];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/* The generated files: signatures, doc comments that stay comments, and
 * names that cannot be C refused. */
static void check_emit(const uint8_t *b, size_t size)
{
	char dir[] = "/tmp/tile_emit_XXXXXX", base[64], path[80];
	if (!CHECK(mkdtemp(dir) != NULL))
		return;
	snprintf(base, sizeof base, "%s/k", dir);
	blob_desc d = make_desc();
	ir_constexpr c[5];
	memcpy(c, cx, sizeof c);
	c[2].sval = "a*/b";
	add_variants[0].constexprs = c;
	tilec_ctx *ctx = tilec_ctx_new();
	CHECK(emit_c(ctx, &d, b, size, base, "kk") == TILEC_OK);
	snprintf(path, sizeof path, "%s.h", base);
	const char *h = slurp(path);
	CHECK_STR_CONTAINS(h, "tile_status add_kernel(tile_stream stream, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, "
			      "tile_deviceptr x, tile_deviceptr y, int32_t n, float alpha, uint8_t flag);");
	CHECK_STR_CONTAINS(h, "tile_status scale(tile_stream stream, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, tile_deviceptr out);");
	CHECK_STR_CONTAINS(h, "MODE=\"a*|b\"");
	CHECK_STR_CONTAINS(h, "grid (cdiv(n, BLOCK))");
	CHECK_STR_CONTAINS(h, "flag == 1");
	CHECK(h && !strstr(h, "a*/b"));
	snprintf(path, sizeof path, "%s.c", base);
	const char *src = slurp(path);
	CHECK_STR_CONTAINS(src, "tile_w4 = flag;");
	CHECK_STR_CONTAINS(src, "return tile_launch(tile_m, 1, tile_grid, stream, tile_args, 1);");
	CHECK_STR_CONTAINS(src, "unsigned char bytes[");
	remove(path);
	snprintf(path, sizeof path, "%s.h", base);
	remove(path);
	add_variants[0].constexprs = cx;

	blob_param p[6];
	memcpy(p, add_params, sizeof p);
	p[1].name = "tile_row_start_ptr";
	p[2].name = "stream";
	p[3].name = "kk_module";
	p[4].name = "p2_stream"; /* what `stream` becomes: made unique */
	kernels[0].params = p;
	CHECK(emit_c(ctx, &d, b, size, base, "kk") == TILEC_OK);
	snprintf(path, sizeof path, "%s.h", base);
	const char *hr = slurp(path);
	CHECK_STR_CONTAINS(hr, "tile_deviceptr p1_tile_row_start_ptr, int32_t p2_stream, float p3_kk_module, uint8_t p2_stream_)");
	CHECK_STR_CONTAINS(hr, " *   stream           i32 (C parameter p2_stream)\n");
	CHECK_STR_CONTAINS(hr, " *   x                *fp32\n");
	CHECK_STR_CONTAINS(hr, " *   tile_row_start_ptr *fp8e5 (C parameter p1_tile_row_start_ptr)\n");
	remove(path);
	snprintf(path, sizeof path, "%s.c", base);
	const char *sr = slurp(path);
	CHECK_STR_CONTAINS(sr, "tile_args[1] = &p1_tile_row_start_ptr;");
	CHECK_STR_CONTAINS(sr, "uint32_t tile_w4 = p2_stream_;");
	remove(path);
	kernels[0].params = add_params;
	CHECK(emit_c(ctx, &d, b, size, base, "k-k") == TILEC_ERR_INVALID);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "'k-k' is not a C identifier");
	kernels[1].name = "int";
	CHECK(emit_c(ctx, &d, b, size, base, "kk") == TILEC_ERR_INVALID);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "kernel name 'int' cannot name a C function");
	kernels[1].name = "kk_load";
	CHECK(emit_c(ctx, &d, b, size, base, "kk") == TILEC_ERR_INVALID);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "kernel name 'kk_load' clashes with the generated kk_load");
	kernels[1].name = "scale";
	snprintf(path, sizeof path, "%s/nodir/k", dir);
	CHECK(emit_c(ctx, &d, b, size, path, "kk") == TILEC_ERR_IO);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "cannot write");
	tilec_ctx_free(ctx);
	rmdir(dir);
}

/* The cubin reader on a ptxas-built fixture, then on every truncation and
 * on a corrupted section table. */
static void check_cubin_reader(void)
{
	FILE *f = fopen("tests/fixtures/pack/shared_sm_80.cubin", "rb");
	static uint8_t buf[1 << 16];
	size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
	if (f)
		fclose(f);
	if (!CHECK(n > 64))
		return;
	tilec_ctx *ctx = tilec_ctx_new();
	blob_cubin c;
	CHECK(blob_cubin_read(ctx, "shared.cubin", buf, n, &c) == TILEC_OK);
	CHECK_EQ_INT(c.arch, 80);
	CHECK_EQ_INT(c.nkernels, 1);
	CHECK(c.nkernels == 1 && !strcmp(c.kernels[0].name, "shk"));
	CHECK_EQ_INT(c.kernels[0].n_regs, 8);
	CHECK_EQ_INT(c.kernels[0].shared_static, 1000);
	int refused = 0;
	for (size_t len = 0; len < n; len++) {
		uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees any overread */
		memcpy(copy, buf, len);
		refused += blob_cubin_read(ctx, "t.cubin", copy, len, &c) != TILEC_OK;
		free(copy);
		tilec_clear_diagnostics(ctx);
	}
	CHECK(refused >= 64); /* every length up to the header at least */
	buf[46] = 0x7f; /* e_shoff far past the end */
	CHECK(blob_cubin_read(ctx, "bad.cubin", buf, n, &c) == TILEC_ERR_FORMAT);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "'bad.cubin': bad cubin section header table");
	CHECK(blob_cubin_read(ctx, "x.ptx", ".version 8.0\n.target sm_80\n" "......................................", 64, &c) ==
	      TILEC_ERR_FORMAT);
	CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "'x.ptx' is not a cubin");
	tilec_ctx_free(ctx);
}

/* An autotuned kernel: three configs, key (n, m), entries given out of
 * order; they come back sorted through tile.h; bad tables are refused. */
static void check_tuning(void)
{
	static const blob_param params[] = {
		{"x", BLOB_PARAM_PTR, 8, IR_F32, BLOB_PARAM_RESET_TO_ZERO, NULL, 0, {0}},
		{"n", BLOB_PARAM_INT, 4, IR_I32, 0, NULL, 0, {0}},
		{"m", BLOB_PARAM_UINT, 8, IR_U64, 0, NULL, 0, {0}},
		{"s", BLOB_PARAM_FLOAT, 4, IR_F32, 0, NULL, 0, {0}},
	};
	blob_variant v[4];
	memset(v, 0, sizeof v);
	for (int i = 0; i < 4; i++) {
		v[i].symbol = i == 3 ? "k_c2_x16" : i == 0 ? "k_c0" : i == 1 ? "k_c1" : "k_c2";
		v[i].num_warps = 4;
		v[i].config = i < 3 ? i : 2;
		v[i].source_config = i < 3 ? 2 * i : 4;
		v[i].pred_div16 = i == 3 ? 1 : 0;
	}
	static const int keys[] = {1, 2};
	int64_t entries[] = {4096, 4096, 2, 128, 512, 1, 128, 64, 0, -5, 7, 1};
	blob_kernel k = {"k", 4, params, 4, v, 3, 2, keys, 4, entries, 1, 0, NULL, false};
	static const uint8_t data[16] = "FAKE cubin k_c0";
	blob_image im = {0, BLOB_IMAGE_CUBIN, 80, 0, data, sizeof data};
	blob_desc d = {1, &k, 1, &im, 1};
	tilec_ctx *ctx = tilec_ctx_new();
	uint8_t *b = NULL;
	size_t size = 0;
	tile_module *m = NULL;
	tilec_status st = blob_write(ctx, &d, &b, &size);
	CHECK_MSG(st == TILEC_OK, "%s", tilec_diagnostics(ctx));
	if (st == TILEC_OK && CHECK(tile_module_create(b, size, &m) == TILE_SUCCESS)) {
		tile_tuning_info ti;
		tile_param_info pi;
		tile_variant_info vi;
		int64_t kv[8];
		int cfg;
		CHECK_EQ_INT(tile_config_count(m, 0), 3);
		CHECK(tile_tuning_get_info(m, 0, &ti) == TILE_SUCCESS);
		CHECK(ti.n_keys == 2 && ti.key_params[0] == 1 && ti.key_params[1] == 2 && ti.n_entries == 4 &&
		      ti.default_config == 1 && ti.runtime == 0);
		static const int64_t want[4][3] = {{-5, 7, 1}, {128, 64, 0}, {128, 512, 1}, {4096, 4096, 2}};
		for (int e = 0; e < 4; e++) {
			CHECK(tile_tuning_get_entry(m, 0, e, kv, &cfg) == TILE_SUCCESS);
			CHECK_MSG(kv[0] == want[e][0] && kv[1] == want[e][1] && cfg == want[e][2], "entry %d", e);
		}
		CHECK(tile_param_get_info(m, 0, 0, &pi) == TILE_SUCCESS && pi.reset_to_zero == 1 && pi.restore_value == 0);
		/* variants most specialized first: k_c2_x16, then in order */
		CHECK(tile_variant_get_info(m, 0, 0, &vi) == TILE_SUCCESS && vi.config == 2 && vi.source_config == 4);
		CHECK(tile_variant_get_info(m, 0, 2, &vi) == TILE_SUCCESS && vi.config == 1 && vi.source_config == 2);
		tile_module_destroy(m);
	}
	free(b);
	b = NULL;
	/* a duplicate key, a config out of range, a config without variant,
	 * a key on a float, a default out of range */
	struct {
		int64_t e0, e1, cfg;
		int nconfigs, key0, def;
		const char *msg;
	} bad[] = {
		{4096, 4096, 0, 3, 1, 1, "two entries for one key"},
		{1, 2, 3, 3, 1, 1, "names config 3 of 3"},
		{1, 2, 0, 4, 1, 1, "config 3 has no variant"},
		{1, 2, 0, 3, 3, 1, "tuning key 0 is not a visible integer parameter"},
		{1, 2, 0, 3, 1, 5, "default config 5 of 3"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int64_t e[] = {4096, 4096, 2, bad[i].e0, bad[i].e1, bad[i].cfg};
		int bkeys[] = {bad[i].key0, 2};
		blob_kernel bk = {"k", 4, params, 4, v, bad[i].nconfigs, 2, bkeys, 2, e, bad[i].def, 0, NULL, false};
		blob_desc bd = {1, &bk, 1, &im, 1};
		tilec_ctx *c2 = tilec_ctx_new();
		CHECK(blob_write(c2, &bd, &b, &size) == TILEC_ERR_INVALID);
		CHECK_STR_CONTAINS(tilec_diagnostics(c2), bad[i].msg);
		tilec_ctx_free(c2);
		free(b);
		b = NULL;
	}
	tilec_ctx_free(ctx);
}

/* A device-side descriptor's map, built at launch: a hidden tensor map and
 * the variant's recipe, written, read back (tile_recipe_get_info) and left
 * out of the launch function; malformed recipes refused. */
static void check_recipes(void)
{
	blob_param p[5] = {
		{"x_ptr", BLOB_PARAM_PTR, 8, IR_F16, 0, NULL, 0, {0}},
		{"M", BLOB_PARAM_INT, 4, IR_I32, 0, NULL, 0, {0}},
		{"K", BLOB_PARAM_INT, 4, IR_I32, 0, NULL, 0, {0}},
		{"x_ptr_tmap", BLOB_PARAM_TENSORMAP, 128, IR_F16, BLOB_PARAM_HIDDEN, NULL, 0, {0}},
		{"x_ptr_tmap2", BLOB_PARAM_TENSORMAP, 128, IR_F16, BLOB_PARAM_HIDDEN, NULL, 0, {0}},
	};
	tilec_ctx *ctx = tilec_ctx_new();
	uint8_t code[GRIDEXPR_MAX_CODE], code2[GRIDEXPR_MAX_CODE];
	size_t len = 0, len2 = 0;
	CHECK(gridexpr_compile_values(ctx, "tensor map", "M, K, K", 3, 5, p, 0, NULL, code, sizeof code, &len) == TILEC_OK);
	CHECK(gridexpr_compile_values(ctx, "tensor map", "M * 2, K", 2, 5, p, 0, NULL, code2, sizeof code2, &len2) == TILEC_OK);
	/* given in reverse: the writer orders them by map */
	blob_recipe r[2] = {{4, 0, 2, {64, 32}, code, len}, {3, 0, 2, {128, 64}, code, len}};
	static const char cubin[] = "not really a cubin";
	blob_variant v = {"mm_k", 0, 0, NULL, 4, 3, 0, 0, {0, 0, 0}, 0, 0, 0, NULL, 0, false, 0, 0, 0, -1, 2, r, 0, 0, 0};
	blob_kernel k = {"mm", 5, p, 1, &v, 0, 0, NULL, 0, NULL, 0, 0, NULL, false};
	blob_image im = {0, BLOB_IMAGE_CUBIN, 90, BLOB_IMAGE_TENSORMAPS, cubin, sizeof cubin};
	blob_desc d = {1, &k, 1, &im, 1};
	uint8_t *b = NULL;
	size_t size = 0;
	tile_module *m = NULL;
	tile_variant_info vi;
	tile_recipe_info ri;
	tile_param_info pi;
	char dir[] = "/tmp/tile_recipe_XXXXXX", base[64], path[80];
	if (!CHECK(blob_write(ctx, &d, &b, &size) == TILEC_OK))
		fprintf(stderr, "%s\n", tilec_diagnostics(ctx));
	if (b && CHECK(tile_module_create(b, size, &m) == TILE_SUCCESS)) {
		CHECK(tile_param_get_info(m, 0, 3, &pi) == TILE_SUCCESS && pi.kind == 4 && pi.hidden);
		CHECK(tile_variant_get_info(m, 0, 0, &vi) == TILE_SUCCESS && vi.n_recipes == 2);
		CHECK(tile_recipe_get_info(m, 0, 0, 0, &ri) == TILE_SUCCESS && ri.param == 3 && ri.base == 0 && ri.rank == 2 &&
		      ri.block_shape[0] == 128 && ri.block_shape[1] == 64 && ri.block_shape[2] == 0 && ri.program_size == len &&
		      !memcmp(ri.program, code, len));
		CHECK(tile_recipe_get_info(m, 0, 0, 1, &ri) == TILE_SUCCESS && ri.param == 4 && ri.block_shape[0] == 64);
		CHECK(tile_recipe_get_info(m, 0, 0, 2, &ri) == TILE_ERROR_INVALID_ARGUMENT);
		tile_module_destroy(m);
	}
	if (b && CHECK(mkdtemp(dir) != NULL)) {
		snprintf(base, sizeof base, "%s/t", dir);
		CHECK(emit_c(ctx, &d, b, size, base, "tt") == TILEC_OK);
		snprintf(path, sizeof path, "%s.h", base);
		CHECK_STR_CONTAINS(slurp(path), "tile_status mm(tile_stream stream, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, "
						"tile_deviceptr x_ptr, int32_t M, int32_t K);");
		remove(path);
		snprintf(path, sizeof path, "%s.c", base);
		CHECK_STR_CONTAINS(slurp(path), "return tile_launch(tile_m, 0, tile_grid, stream, tile_args, 3);");
		remove(path);
		rmdir(dir);
	}
	free(b);
	tilec_ctx_free(ctx);

	r[0].param = 2;
	check_refused(d, "a tensor-map recipe is malformed: its map is not a hidden tensor map");
	r[0].param = 3;
	check_refused(d, "a tensor-map recipe is malformed: its map has a recipe already");
	r[0].param = 4;
	r[0].base = 1;
	check_refused(d, "its base is not a visible pointer of the map's dtype");
	r[0].base = 0;
	p[0].dtype = IR_F32;
	check_refused(d, "its base is not a visible pointer of the map's dtype");
	p[0].dtype = IR_F16;
	r[0].rank = 0;
	check_refused(d, "its rank is not 1..5");
	r[0].rank = 2;
	r[0].block[2] = 1;
	check_refused(d, "its block shape is not 1..65535 per dimension (0 past the rank)");
	r[0].block[2] = 0;
	r[0].block[1] = 12; /* 24 bytes a row: no swizzle span */
	check_refused(d, "the encoding rule has no map for its block");
	r[0].block[1] = 32;
	r[0].code = code2;
	r[0].size = len2;
	check_refused(d, "a tensor-map recipe is malformed: the count of values is not the one wanted");
	r[0].code = code;
	r[0].size = len;
	p[3].flags = 0;
	check_refused(d, "tensor map 'x_ptr_tmap' does not follow its descriptor's parameters");
	p[3].flags = BLOB_PARAM_HIDDEN;
}

/* A host-side descriptor read with TMA: its group, then its map (kind 4),
 * written, read back, and emitted as one tile_tensordesc whose address the
 * launcher passes for the map; maps that do not follow their group, and
 * image flags past bit 1, refused. */
static void check_tensormaps(void)
{
	blob_param p[7] = {
		{"a_base", BLOB_PARAM_PTR, 8, IR_F16, 0, "a", 2, {128, 64}},
		{"a_shape0", BLOB_PARAM_INT, 4, IR_I32, 0, NULL, 0, {0}},
		{"a_shape1", BLOB_PARAM_INT, 4, IR_I32, 0, NULL, 0, {0}},
		{"a_stride0", BLOB_PARAM_INT, 8, IR_I64, 0, NULL, 0, {0}},
		{"a_stride1", BLOB_PARAM_INT, 8, IR_I64, 0, NULL, 0, {0}},
		{"a_tmap", BLOB_PARAM_TENSORMAP, 128, IR_F16, 0, NULL, 0, {0}},
		{"n", BLOB_PARAM_INT, 4, IR_I32, 0, NULL, 0, {0}},
	};
	static const char cubin[] = "not really a cubin";
	blob_variant v = {"mm_k", 0, 0, NULL, 4, 3, 0, 0, {0, 0, 0}, 0, 0x1, 0, NULL, 0, false, 0, 0, 0, -1, 0, NULL, 0, 0, 0};
	blob_kernel k = {"mm", 7, p, 1, &v, 0, 0, NULL, 0, NULL, 0, 0, NULL, false};
	blob_image im = {0, BLOB_IMAGE_CUBIN, 90, BLOB_IMAGE_ARCH_SPECIFIC | BLOB_IMAGE_TENSORMAPS, cubin, sizeof cubin};
	blob_desc d = {1, &k, 1, &im, 1};
	tilec_ctx *ctx = tilec_ctx_new();
	uint8_t *b = NULL;
	size_t size = 0;
	tile_module *m = NULL;
	tile_param_info pi;
	tile_image_info ii;
	char dir[] = "/tmp/tile_tmap_XXXXXX", base[64], path[80];
	if (!CHECK(blob_write(ctx, &d, &b, &size) == TILEC_OK))
		fprintf(stderr, "%s\n", tilec_diagnostics(ctx));
	if (b && CHECK(tile_module_create(b, size, &m) == TILE_SUCCESS)) {
		CHECK(tile_param_get_info(m, 0, 5, &pi) == TILE_SUCCESS && pi.kind == 4 && pi.size == 128 && pi.dtype == IR_F16);
		CHECK(tile_image_get_info(m, 0, &ii) == TILE_SUCCESS && ii.flags == 3);
		tile_module_destroy(m);
	}
	if (b && CHECK(mkdtemp(dir) != NULL)) {
		snprintf(base, sizeof base, "%s/t", dir);
		CHECK(emit_c(ctx, &d, b, size, base, "tt") == TILEC_OK);
		snprintf(path, sizeof path, "%s.h", base);
		const char *h = slurp(path);
		CHECK_STR_CONTAINS(h, "tile_status mm(tile_stream stream, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, "
				      "tile_tensordesc a, int32_t n);");
		CHECK_STR_CONTAINS(h, "(kernel parameters a_base .. a_stride1, and the TMA map a_tmap encoded from it at launch)");
		remove(path);
		snprintf(path, sizeof path, "%s.c", base);
		const char *c = slurp(path);
		CHECK_STR_CONTAINS(c, "tile_args[4] = &a.strides[1];\n\ttile_args[5] = &a;\n\ttile_args[6] = &n;\n");
		CHECK_STR_CONTAINS(c, "return tile_launch(tile_m, 0, tile_grid, stream, tile_args, 7);");
		remove(path);
		/* the map of a group the launcher does not know as a descriptor */
		p[0].desc_rank = 0;
		CHECK(emit_c(ctx, &d, b, size, base, "tt") == TILEC_ERR_INVALID);
		CHECK_STR_CONTAINS(tilec_diagnostics(ctx), "kernel 'mm': tensor map 'a_tmap' does not follow a tensor descriptor parameter");
		p[0].desc_rank = 2;
		rmdir(dir);
	}
	free(b);
	tilec_ctx_free(ctx);

	p[5].dtype = IR_F32;
	check_refused(d, "tensor map 'a_tmap' does not follow its descriptor's parameters: the shapes do not follow a pointer of its dtype");
	p[5].dtype = IR_F16;
	p[1].size = 8;
	p[1].dtype = IR_I64;
	check_refused(d, "the strides do not follow as many int32 shapes");
	p[1].size = 4;
	p[1].dtype = IR_I32;
	p[4].size = 4;
	p[4].dtype = IR_I32;
	check_refused(d, "it does not follow 1..5 int64 strides");
	p[4].size = 8;
	p[4].dtype = IR_I64;
	blob_param q = p[5];
	p[5] = p[6];
	p[6] = q;
	check_refused(d, "tensor map 'a_tmap' does not follow its descriptor's parameters: it does not follow 1..5 int64 strides");
	p[6] = p[5];
	p[5] = q;
	p[5].size = 64;
	check_refused(d, "parameter 'a_tmap' has an inconsistent kind, size or dtype");
	p[5].size = 128;
	p[5].flags = BLOB_PARAM_RESET_TO_ZERO;
	check_refused(d, "tensor map 'a_tmap' has flags other than hidden");
	p[5].flags = BLOB_PARAM_HIDDEN; /* a derived map: hidden ones come last */
	check_refused(d, "parameter 'n' follows a hidden parameter");
	p[5].flags = 0;
	v.pred_div16 = 1u << 5;
	check_refused(d, "has predicates on parameters that are not visible pointers or integers");
	v.pred_div16 = 0;
	v.pred_div4 = 1u << 5;
	check_refused(d, "has predicates on parameters that are not visible pointers or integers");
	v.pred_div4 = 0;
	v.pred_div8 = 1;
	v.pred_div16 = 1;
	check_refused(d, "gives a parameter more than one of the predicates divisible by 16, by 8, by 4 and == 1");
	v.pred_div8 = 0;
	im.flags = 8;
	check_refused(d, "image 0: bad group, kind, arch, flags or size");
}

/* A kernel of 40 visible parameters with predicates past parameter 31:
 * written as version 6 with one pred record each, in (variant, parameter)
 * order, read back whole; refused on a float or past the visible ones. */
static void check_high_preds(void)
{
	static blob_param params[41];
	static char names[41][8];
	blob_variant v[2];
	memset(v, 0, sizeof v);
	for (int i = 0; i < 41; i++) {
		snprintf(names[i], sizeof names[i], "p%d", i);
		params[i] = blob_param_make(names[i], i == 33 ? IR_F32 : IR_I32, i == 32);
	}
	params[40].flags = BLOB_PARAM_HIDDEN;
	v[0] = (blob_variant){.symbol = "wide", .num_warps = 4, .source_config = -1};
	v[1] = v[0];
	v[1].symbol = "wide_b1";
	v[1].pred_eq1 = UINT64_C(1) << 35;
	v[1].pred_div16 = UINT64_C(1) << 32 | 1;
	v[1].pred_div4 = UINT64_C(1) << 39;
	blob_kernel k = {.name = "wide", .nparams = 41, .params = params, .nvariants = 2, .variants = v};
	blob_image im = {0, BLOB_IMAGE_CUBIN, 80, 0, cubin80, sizeof cubin80};
	blob_desc d = {1, &k, 1, &im, 1};
	tilec_ctx *ctx = tilec_ctx_new();
	uint8_t *b = NULL;
	size_t size = 0;
	CHECK_MSG(blob_write(ctx, &d, &b, &size) == TILEC_OK, "%s", tilec_diagnostics(ctx));
	if (b) {
		const uint8_t *m = b + 32;
		/* the preds array: after the metadata header of 52 bytes and the records */
		const uint8_t *q = m + 52 + 52 + 41 * 12 + 2 * 80 + 32;
		static const uint8_t want[3][8] = {{0, 0, 0, 0, 32, 0, 16, 0}, {0, 0, 0, 0, 35, 0, 1, 0}, {0, 0, 0, 0, 39, 0, 4, 0}};
		CHECK_EQ_INT(b[4] | b[5] << 8, 6);
		CHECK_EQ_INT(u32(m + 48), 3);
		CHECK(!memcmp(q, want, sizeof want)); /* wide_b1 is variant 0: the most specialized first */
		CHECK_EQ_INT(u32(m + 52 + 52 + 41 * 12 + 40), 1); /* its mask keeps parameter 0 */
		tile_module *mod;
		if (CHECK(tile_module_create(b, size, &mod) == TILE_SUCCESS)) {
			tile_variant_info vi;
			CHECK(tile_variant_get_info(mod, 0, 0, &vi) == TILE_SUCCESS && vi.pred_div16 == 1 && vi.n_high_preds == 3);
			CHECK_EQ_INT(tile_variant_predicate(mod, 0, 0, 32), 16);
			CHECK_EQ_INT(tile_variant_predicate(mod, 0, 0, 35), 1);
			CHECK_EQ_INT(tile_variant_predicate(mod, 0, 0, 39), 4);
			CHECK_EQ_INT(tile_variant_predicate(mod, 0, 1, 35), 0);
			tile_module_destroy(mod);
		}
	}
	free(b);
	tilec_ctx_free(ctx);
	v[1].pred_div8 = UINT64_C(1) << 33;
	check_refused(d, "has predicates on parameters that are not visible pointers or integers");
	v[1].pred_div8 = 0;
	v[1].pred_eq1 |= UINT64_C(1) << 32;
	check_refused(d, "has predicates on parameters that are not visible pointers or integers");
	v[1].pred_eq1 = UINT64_C(1) << 40; /* the hidden one */
	check_refused(d, "has predicates on parameters that are not visible pointers or integers");
	v[1].pred_eq1 = UINT64_C(1) << 35;
	v[1].pred_div8 = UINT64_C(1) << 35;
	check_refused(d, "gives a parameter more than one of the predicates");
}

int main(void)
{
	check_tuning();
	tilec_ctx *ctx = tilec_ctx_new();
	CHECK(gridexpr_compile(ctx, "-g", "cdiv(n, BLOCK)", 6, add_params, 5, cx, grid1, sizeof grid1, &grid1_len) == TILEC_OK);
	CHECK(gridexpr_compile(ctx, "-g", "n, 2, BLOCK", 6, add_params, 1, cx, grid2, sizeof grid2, &grid2_len) == TILEC_OK);

	blob_desc d = make_desc();
	uint8_t *b = NULL, *b2 = NULL;
	size_t size = 0, size2 = 0;
	tilec_status st = blob_write(ctx, &d, &b, &size);
	CHECK_MSG(st == TILEC_OK, "%s", tilec_diagnostics(ctx));
	if (st == TILEC_OK) {
		CHECK(blob_write(ctx, &d, &b2, &size2) == TILEC_OK);
		CHECK(size == size2 && !memcmp(b, b2, size)); /* deterministic */
		check_header(b, size);
		check_introspection(b, size);
		check_emit(b, size);

		/* any byte changed is refused */
		tile_module *m;
		int accepted = 0;
		for (size_t i = 0; i < size; i++) {
			b[i] ^= 0x20;
			if (tile_module_create(b, size, &m) == TILE_SUCCESS) {
				accepted++;
				tile_module_destroy(m);
			}
			b[i] ^= 0x20;
		}
		CHECK_EQ_INT(accepted, 0);
		CHECK(tile_module_create(b, size - 4, &m) != TILE_SUCCESS);
		b[12] ^= 1;
		CHECK(tile_module_create(b, size, &m) == TILE_ERROR_CHECKSUM);
		b[12] ^= 1;
		b[4] = BLOB_VERSION + 1;
		CHECK(tile_module_create(b, size, &m) == TILE_ERROR_VERSION);
		b[4] = BLOB_VERSION_NO_PREDS;
		if (CHECK(tile_module_create(b, size, &m) == TILE_SUCCESS))
			tile_module_destroy(m);
	}
	free(b);
	free(b2);
	tilec_ctx_free(ctx);

	check_bad_descriptions();
	check_tensormaps();
	check_recipes();
	check_high_preds();
	check_cubin_reader();
	return check_report("test_blob_writer");
}
