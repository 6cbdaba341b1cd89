/* test_loader_blob.c - tile.h's blob validation, introspection, grid
 * programs and variant selection; no driver involved.
 *
 * A reference blob comes from the test builder (tests/fake_cuda/
 * blob_builder.h). Then: every field corrupted (checksum recomputed so the
 * corruption reaches its own check) with the expected status and the field
 * named in the detail; every truncation; every byte flipped; random
 * multi-byte mutations (ASan/UBSan watch for the crash); each grid program
 * rule; grid arithmetic (floor division and modulo of negatives, cdiv,
 * overflow, division by zero, limits, empty grids); predicate-driven
 * variant selection; tile_lazy_get from many threads. Tensor-map recipes
 * (format 4): a blob with hidden maps and recipes opens and each variant
 * finds its own recipes; each recipe rule and the hidden-map parameter
 * rules refused with the field named; a recipe's descriptor computed from
 * the arguments, and refused where it breaks Triton's rules. Float
 * comparisons in grid programs: each float type read, NaN and -0.0, and
 * each rule of their opcodes refused with the byte named. Predicates past
 * parameter 31 (format 6's preds): introspection, selection, each rule
 * refused with the record named, random mutations; the reference is a
 * version 5 blob, which loads as before. */
#define TILE_IMPLEMENTATION
#include "tile.h"

#include <math.h>
#include <pthread.h>

#include "check.h"
#include "fake_cuda/blob_builder.h"

static const char cubin80[] = "FAKE cubin sm_80: add_div16 add_generic scale_one scale";
static const char cubin90[] = "FAKE cubin sm_90: add_div16 add_generic scale_one scale";
static const char ptx80[] = "// FAKE ptx compute_80: add_div16 add_generic scale_one scale";

static uint8_t grid_add[32];
static uint32_t grid_add_size;
static uint8_t grid_scale[32];
static uint32_t grid_scale_size;

/* add(x, y, out: *fp32, n: i32, hidden scratch) with a div16 variant and a
 * generic one, grid cdiv(n, BLOCK); scale(a: *fp32, s: fp32, m: i64, k: u32)
 * with an eq1(m) variant (grid max(m, k)) and one without a grid program. */
static void reference(tb_blob *d)
{
	tb_kernel *k;
	tb_variant *v;
	uint32_t n = 0;
	memset(d, 0, sizeof *d);
	grid_add[n++] = 1;
	tb_op_u8(grid_add, &n, 0x01, 3);
	tb_op_u8(grid_add, &n, 0x03, 0);
	tb_op(grid_add, &n, 0x14);
	grid_add_size = n;
	n = 0;
	grid_scale[n++] = 2;
	tb_op_u8(grid_scale, &n, 0x01, 2);
	tb_op_u8(grid_scale, &n, 0x01, 3);
	tb_op(grid_scale, &n, 0x17);
	tb_op_const(grid_scale, &n, 3);
	grid_scale_size = n;

	d->n_kernels = 2;
	k = &d->kernels[0];
	k->name = "add";
	k->n_params = 5;
	k->params[0] = (tb_param){"x", 0, 8, 12, 0};
	k->params[1] = (tb_param){"y", 0, 8, 12, 0};
	k->params[2] = (tb_param){"out", 0, 8, 12, 0};
	k->params[3] = (tb_param){"n", 1, 4, 4, 0};
	k->params[4] = (tb_param){"scratch", 0, 8, 2, 1};
	k->n_variants = 2;
	v = &k->variants[0];
	v->symbol = "add_div16";
	v->num_warps = 4;
	v->num_stages = 3;
	v->n_regs = 24;
	v->spill_stores = 8;
	v->spill_loads = 12;
	v->div16 = 0xf;
	v->grid = grid_add;
	v->grid_size = grid_add_size;
	v->n_constexprs = 5;
	v->cx[0] = (tb_constexpr){"BLOCK", 0, 1024, NULL};
	v->cx[1] = (tb_constexpr){"EPS", 1, 0x3ff8000000000000ll, NULL}; /* 1.5 */
	v->cx[2] = (tb_constexpr){"MODE", 3, 0, "fast"};
	v->cx[3] = (tb_constexpr){"EVEN", 2, 1, NULL};
	v->cx[4] = (tb_constexpr){"DT", 4, 12, NULL};
	v = &k->variants[1];
	v->symbol = "add_generic";
	v->num_warps = 4;
	v->grid = grid_add;
	v->grid_size = grid_add_size;
	v->n_constexprs = 1;
	v->cx[0] = (tb_constexpr){"BLOCK", 0, 512, NULL};
	k = &d->kernels[1];
	k->name = "scale";
	k->n_params = 4;
	k->params[0] = (tb_param){"a", 0, 8, 12, 0};
	k->params[1] = (tb_param){"s", 3, 4, 12, 0};
	k->params[2] = (tb_param){"m", 1, 8, 5, 0};
	k->params[3] = (tb_param){"k", 2, 4, 8, 0};
	k->n_variants = 2;
	v = &k->variants[0];
	v->symbol = "scale_one";
	v->num_warps = 8;
	v->shared_dynamic = 100000;
	v->cluster[0] = 2;
	v->cluster[1] = 1;
	v->cluster[2] = 1;
	v->eq1 = 1u << 2;
	v->grid = grid_scale;
	v->grid_size = grid_scale_size;
	v = &k->variants[1];
	v->symbol = "scale";
	v->num_warps = 1;
	v->spills_unknown = 1;
	d->n_groups = 1;
	d->n_images = 3;
	d->images[0] = (tb_image){0, 0, 80, 0, cubin80, sizeof cubin80, 1};
	d->images[1] = (tb_image){0, 0, 90, 0, cubin90, sizeof cubin90, 0};
	d->images[2] = (tb_image){0, 1, 80, 0, ptx80, sizeof ptx80, 1};
}

static uint8_t *ref_blob;
static size_t ref_size;
static tb_layout ref_layout;

/* Creates a module from blob; destroys it; returns the status. */
static tile_status try_blob(const uint8_t *blob, size_t n)
{
	tile_module *m = NULL;
	tile_status st = tile_module_create(blob, n, &m);
	if (st == TILE_SUCCESS)
		tile_module_destroy(m);
	else
		CHECK(m == NULL);
	return st;
}

/* blob with `width` bytes at `off` set to `value`, checksum fixed. */
static tile_status try_patch_blob(const uint8_t *blob, size_t size, size_t off, uint64_t value, int width)
{
	uint8_t *b = (uint8_t *)malloc(size);
	tile_status st;
	int i;
	memcpy(b, blob, size);
	for (i = 0; i < width; i++)
		b[off + (size_t)i] = (uint8_t)(value >> (8 * i));
	tb_fix_crc(b, size);
	st = try_blob(b, size);
	free(b);
	return st;
}

/* The reference blob, patched. */
static tile_status try_patch(size_t off, uint64_t value, int width) { return try_patch_blob(ref_blob, ref_size, off, value, width); }

#define EXPECT_PATCH(off, value, width, status, text) \
	do { \
		CHECK_EQ_INT(try_patch((off), (value), (width)), (status)); \
		CHECK_STR_CONTAINS(tile_last_error(), (text)); \
	} while (0)

static void test_reference(void)
{
	tile_module *m = NULL;
	tile_param_info p;
	tile_variant_info v;
	tile_constexpr_info c;
	tile_image_info im;
	CHECK_EQ_INT(tile_module_create(ref_blob, ref_size, &m), TILE_SUCCESS);
	CHECK_STR_CONTAINS(tile_status_string(TILE_ERROR_BAD_BLOB), "invalid blob");
	if (!m)
		return;
	CHECK_EQ_INT(tile_kernel_count(m), 2);
	CHECK_EQ_INT(tile_kernel_index(m, "scale"), 1);
	CHECK_EQ_INT(tile_kernel_index(m, "nope"), -1);
	CHECK(strcmp(tile_kernel_name(m, 0), "add") == 0);
	CHECK(tile_kernel_name(m, 2) == NULL);
	CHECK_EQ_INT(tile_param_count(m, 0), 5);
	CHECK_EQ_INT(tile_param_get_info(m, 0, 4, &p), TILE_SUCCESS);
	CHECK(strcmp(p.name, "scratch") == 0 && p.hidden == 1 && p.kind == 0 && p.size == 8);
	CHECK_EQ_INT(tile_param_get_info(m, 0, 5, &p), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_EQ_INT(tile_variant_count(m, 1), 2);
	CHECK_EQ_INT(tile_variant_get_info(m, 1, 0, &v), TILE_SUCCESS);
	CHECK(strcmp(v.symbol, "scale_one") == 0 && v.num_warps == 8 && v.shared_dynamic == 100000);
	CHECK(v.cluster[0] == 2 && v.cluster[1] == 1 && v.pred_eq1 == 4 && v.has_grid_program);
	CHECK_EQ_INT(tile_variant_get_info(m, 1, 1, &v), TILE_SUCCESS);
	CHECK(v.cluster[0] == 1 && v.cluster[1] == 1 && v.cluster[2] == 1 && !v.has_grid_program);
	CHECK_EQ_INT(tile_variant_get_info(m, 0, 0, &v), TILE_SUCCESS);
	CHECK(v.n_constexprs == 5 && v.n_regs == 24 && v.num_stages == 3 && v.pred_div16 == 0xf);
	CHECK(v.spill_stores == 8 && v.spill_loads == 12);
	CHECK_EQ_INT(tile_variant_get_info(m, 1, 1, &v), TILE_SUCCESS);
	CHECK(v.spill_stores == -1 && v.spill_loads == -1);
	CHECK_EQ_INT(tile_constexpr_get_info(m, 0, 0, 1, &c), TILE_SUCCESS);
	CHECK(strcmp(c.name, "EPS") == 0 && c.kind == 1 && c.fval == 1.5);
	CHECK_EQ_INT(tile_constexpr_get_info(m, 0, 0, 2, &c), TILE_SUCCESS);
	CHECK(c.kind == 3 && strcmp(c.sval, "fast") == 0);
	CHECK_EQ_INT(tile_constexpr_get_info(m, 0, 0, 5, &c), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_EQ_INT(tile_image_count(m), 3);
	CHECK_EQ_INT(tile_image_get_info(m, 2, &im), TILE_SUCCESS);
	CHECK(im.kind == 1 && im.arch == 80 && im.compression == 1 && im.raw_size == sizeof ptx80);
	CHECK_EQ_INT(tile_image_get_info(m, 1, &im), TILE_SUCCESS);
	CHECK(im.kind == 0 && im.arch == 90 && im.compression == 0 && im.size == sizeof cubin90);
	tile_module_destroy(m);
	CHECK_EQ_INT(tile_module_create(NULL, 10, &m), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_EQ_INT(tile_module_create(ref_blob, ref_size, NULL), TILE_ERROR_INVALID_ARGUMENT);
}

static void test_header_fields(void)
{
	const size_t meta = 32;
	EXPECT_PATCH(0, 'X', 1, TILE_ERROR_BAD_BLOB, "header: bad magic");
	EXPECT_PATCH(4, 1, 2, TILE_ERROR_VERSION, "blob format version 1, but this tile.h reads versions 5..6 only");
	EXPECT_PATCH(4, 2, 2, TILE_ERROR_VERSION, "blob format version 2, but this tile.h reads versions 5..6 only: regenerate");
	EXPECT_PATCH(4, 4, 2, TILE_ERROR_VERSION,
		     "header: blob format version 4, but this tile.h reads versions 5..6 only: regenerate the blob with the tilec of this "
		     "tile.h");
	EXPECT_PATCH(4, 7, 2, TILE_ERROR_VERSION, "blob format version 7, but this tile.h reads versions 5..6 only: use the tile.h");
	/* the reference is a version 5 blob: as version 6 its metadata header
	 * would hold n_preds, and the arrays no longer add up */
	CHECK_EQ_INT(ref_blob[4], 5);
	EXPECT_PATCH(4, 6, 2, TILE_ERROR_BAD_BLOB, "metadata: counts describe");
	EXPECT_PATCH(6, 31, 2, TILE_ERROR_BAD_BLOB, "header_size");
	EXPECT_PATCH(8, ref_size + 4, 4, TILE_ERROR_BAD_BLOB, "total_size");
	EXPECT_PATCH(16, 36, 4, TILE_ERROR_BAD_BLOB, "meta_offset");
	EXPECT_PATCH(20, 0xfffffff0u, 4, TILE_ERROR_BAD_BLOB, "meta_size");
	EXPECT_PATCH(20, 30, 4, TILE_ERROR_BAD_BLOB, "meta_size");
	EXPECT_PATCH(20, tb_get32(ref_blob + 20) + 4, 4, TILE_ERROR_BAD_BLOB, "metadata: counts describe");
	EXPECT_PATCH(24, 1, 4, TILE_ERROR_BAD_BLOB, "header: flags");
	EXPECT_PATCH(28, 1, 4, TILE_ERROR_BAD_BLOB, "header: reserved");
	/* The checksum itself, and a byte it covers, without fixing it. */
	{
		uint8_t *b = (uint8_t *)malloc(ref_size);
		memcpy(b, ref_blob, ref_size);
		b[12] ^= 1;
		CHECK_EQ_INT(try_blob(b, ref_size), TILE_ERROR_CHECKSUM);
		b[12] ^= 1;
		b[ref_size - 1] ^= 1;
		CHECK_EQ_INT(try_blob(b, ref_size), TILE_ERROR_CHECKSUM);
		free(b);
	}
	/* Counts: each one record more, and oversized. */
	{
		size_t i;
		for (i = 0; i < 12; i++) {
			if (i == 7)
				continue; /* n_groups: below */
			EXPECT_PATCH(meta + 4 * i, tb_get32(ref_blob + meta + 4 * i) + 4, 4, TILE_ERROR_BAD_BLOB, "metadata:");
			EXPECT_PATCH(meta + 4 * i, 0xffffffffu, 4, TILE_ERROR_BAD_BLOB, "metadata:");
		}
	}
	EXPECT_PATCH(meta + 24, tb_get32(ref_blob + meta + 24) - 2, 4, TILE_ERROR_BAD_BLOB, "is not a multiple of 4");
	EXPECT_PATCH(meta + 28, 2, 4, TILE_ERROR_BAD_BLOB, "group 1: no image");
	EXPECT_PATCH(meta + 28, 1000, 4, TILE_ERROR_BAD_BLOB, "1000 groups but only 3 images");
	EXPECT_PATCH(meta + 28, 0, 4, TILE_ERROR_BAD_BLOB, "variant 0: group 0 (blob has 0)");
}

static void test_record_fields(void)
{
	const tb_layout *l = &ref_layout;
	uint32_t strtab = tb_get32(ref_blob + 32 + 24);
	size_t k1 = l->kernels + 52, v3 = l->variants + 3 * 80, v2 = l->variants + 2 * 80, i1 = l->images + 32;
	/* kernels */
	EXPECT_PATCH(l->kernels, strtab, 4, TILE_ERROR_BAD_BLOB, "kernel 0: name");
	EXPECT_PATCH(l->kernels, 0, 4, TILE_ERROR_BAD_BLOB, "kernel 0: name");
	EXPECT_PATCH(k1, tb_get32(ref_blob + l->kernels), 4, TILE_ERROR_BAD_BLOB, "kernel 1: name 'add' already used");
	EXPECT_PATCH(l->kernels + 8, 65, 4, TILE_ERROR_BAD_BLOB, "kernel 0: 65 parameters");
	EXPECT_PATCH(l->kernels + 4, 7, 4, TILE_ERROR_BAD_BLOB, "kernel 0: parameter range");
	EXPECT_PATCH(l->kernels + 4, 0xfffffffeu, 4, TILE_ERROR_BAD_BLOB, "kernel 0: parameter range");
	EXPECT_PATCH(k1 + 4, 3, 4, TILE_ERROR_BAD_BLOB, "kernel 1: parameter range overlaps");
	EXPECT_PATCH(l->kernels + 16, 0, 4, TILE_ERROR_BAD_BLOB, "kernel 0: no variants");
	EXPECT_PATCH(l->kernels + 16, 3, 4, TILE_ERROR_BAD_BLOB, "kernel 1: variant range overlaps");
	EXPECT_PATCH(l->kernels + 12, 3, 4, TILE_ERROR_BAD_BLOB, "kernel 0: variant range 3+2");
	EXPECT_PATCH(k1 + 16, 1, 4, TILE_ERROR_BAD_BLOB, "variant 3: belongs to no kernel");
	/* params */
	EXPECT_PATCH(l->params, strtab + 8, 4, TILE_ERROR_BAD_BLOB, "param 0: name");
	EXPECT_PATCH(l->params + 4, 5, 1, TILE_ERROR_BAD_BLOB, "param 0: kind 5 (0..4)");
	EXPECT_PATCH(l->params + 4, 4, 1, TILE_ERROR_BAD_BLOB, "param 0: size 8 invalid for kind 4");
	EXPECT_PATCH(l->params + 5, 4, 1, TILE_ERROR_BAD_BLOB, "param 0: size 4 invalid for kind 0");
	EXPECT_PATCH(l->params + 3 * 12 + 5, 3, 1, TILE_ERROR_BAD_BLOB, "param 3: size 3");
	EXPECT_PATCH(l->params + 6, 0, 1, TILE_ERROR_BAD_BLOB, "param 0: dtype 0");
	EXPECT_PATCH(l->params + 6, 16, 1, TILE_ERROR_BAD_BLOB, "param 0: dtype 16");
	EXPECT_PATCH(l->params + 7, 8, 1, TILE_ERROR_BAD_BLOB, "param 0: flags");
	CHECK_EQ_INT(try_patch(l->params + 7, 6, 1), TILE_SUCCESS); /* reset_to_zero, restore_value on a pointer */
	EXPECT_PATCH(l->params + 3 * 12 + 7, 2, 1, TILE_ERROR_BAD_BLOB, "param 3: reset_to_zero/restore_value on a parameter that is not a pointer");
	EXPECT_PATCH(l->params + 8, 1, 4, TILE_ERROR_BAD_BLOB, "param 0: reserved");
	EXPECT_PATCH(l->params + 12 + 7, 1, 1, TILE_ERROR_BAD_BLOB, "kernel 0: parameter 2 is visible after a hidden one");
	/* variants */
	EXPECT_PATCH(l->variants, 1, 4, TILE_ERROR_BAD_BLOB, "variant 0: kernel 1 but listed by kernel 0");
	EXPECT_PATCH(l->variants + 4, 0, 4, TILE_ERROR_BAD_BLOB, "variant 0: symbol");
	EXPECT_PATCH(l->variants + 8, 1, 4, TILE_ERROR_BAD_BLOB, "variant 0: group 1");
	EXPECT_PATCH(l->variants + 16, 7, 4, TILE_ERROR_BAD_BLOB, "variant 0: constexpr range");
	EXPECT_PATCH(l->variants + 20, 0, 2, TILE_ERROR_BAD_BLOB, "variant 0: num_warps 0");
	EXPECT_PATCH(l->variants + 20, 33, 2, TILE_ERROR_BAD_BLOB, "variant 0: num_warps 33");
	/* byte 21: producer warps, launched beside num_warps where the image is warp-specialized */
	EXPECT_PATCH(l->variants + 21, 29, 1, TILE_ERROR_BAD_BLOB, "variant 0: num_warps 4 and 29 producer warps (at most 32)");
	EXPECT_PATCH(v2 + 34, 0, 2, TILE_ERROR_BAD_BLOB, "variant 2: cluster 2 x 0 x 1");
	EXPECT_PATCH(l->variants + 40, 0x10, 4, TILE_ERROR_BAD_BLOB, "variant 0: predicate on a parameter");
	EXPECT_PATCH(l->variants + 44, 1, 4, TILE_ERROR_BAD_BLOB, "variant 0: pred_eq1 on a parameter that is not an integer");
	EXPECT_PATCH(v2 + 40, 2, 4, TILE_ERROR_BAD_BLOB, "variant 2: pred_div16 on float parameter 1");
	EXPECT_PATCH(l->variants + 72, 0x10, 4, TILE_ERROR_BAD_BLOB, "variant 0: predicate on a parameter");
	EXPECT_PATCH(l->variants + 76, 0x10, 4, TILE_ERROR_BAD_BLOB, "variant 0: predicate on a parameter");
	EXPECT_PATCH(l->variants + 72, 1, 4, TILE_ERROR_BAD_BLOB, "variant 0: more than one predicate on a parameter");
	EXPECT_PATCH(v2 + 72, 4, 4, TILE_ERROR_BAD_BLOB, "variant 2: more than one predicate on a parameter");
	EXPECT_PATCH(v2 + 72, 2, 4, TILE_ERROR_BAD_BLOB, "variant 2: pred_div8 on float parameter 1");
	EXPECT_PATCH(v2 + 76, 2, 4, TILE_ERROR_BAD_BLOB, "variant 2: pred_div4 on float parameter 1");
	CHECK_EQ_INT(try_patch(l->variants + 80 + 72, 1, 4), TILE_SUCCESS); /* variant 1: x % 8 == 0 */
	CHECK_EQ_INT(try_patch(v2 + 76, 1, 4), TILE_SUCCESS);               /* variant 2: a % 4 == 0 */
	EXPECT_PATCH(l->variants + 48, tb_get32(ref_blob + 32 + 20), 4, TILE_ERROR_BAD_BLOB, "variant 0: grid program");
	EXPECT_PATCH(l->variants + 52, 200, 4, TILE_ERROR_BAD_BLOB, "variant 0: grid program 0+200");
	EXPECT_PATCH(l->variants + 56, 0xffffffffu, 4, TILE_ERROR_BAD_BLOB, "variant 0: spills 4294967295 stored, 12 loaded");
	EXPECT_PATCH(v3 + 60, 0, 4, TILE_ERROR_BAD_BLOB, "variant 3: spills 4294967295 stored, 0 loaded");
	EXPECT_PATCH(l->variants + 56, (512u << 10) + 1, 4, TILE_ERROR_BAD_BLOB, "variant 0: spills 524289 stored");
	EXPECT_PATCH(l->variants + 60, (512u << 10) + 1, 4, TILE_ERROR_BAD_BLOB, "variant 0: spills 8 stored, 524289 loaded");
	CHECK_EQ_INT(try_patch(l->variants + 56, 512u << 10, 4), TILE_SUCCESS);
	/* The other informative fields may hold anything. */
	CHECK_EQ_INT(try_patch(l->variants + 22, 0xffff, 2), TILE_SUCCESS);
	CHECK_EQ_INT(try_patch(l->variants + 24, 0xffffffffu, 4), TILE_SUCCESS);
	CHECK_EQ_INT(try_patch(l->variants + 38, 0xffff, 2), TILE_SUCCESS);
	/* constexprs */
	EXPECT_PATCH(l->constexprs, 0, 4, TILE_ERROR_BAD_BLOB, "constexpr 0: name");
	EXPECT_PATCH(l->constexprs + 4, 5, 1, TILE_ERROR_BAD_BLOB, "constexpr 0: kind 5");
	EXPECT_PATCH(l->constexprs + 5, 1, 1, TILE_ERROR_BAD_BLOB, "constexpr 0: reserved");
	EXPECT_PATCH(l->constexprs + 2 * 16 + 8, strtab, 8, TILE_ERROR_BAD_BLOB, "constexpr 2: string value");
	EXPECT_PATCH(l->constexprs + 2 * 16 + 8, 1ull << 32, 8, TILE_ERROR_BAD_BLOB, "constexpr 2: string value");
	EXPECT_PATCH(l->constexprs + 3 * 16 + 8, 2, 8, TILE_ERROR_BAD_BLOB, "constexpr 3: bool value 2");
	EXPECT_PATCH(l->constexprs + 4 * 16 + 8, 16, 8, TILE_ERROR_BAD_BLOB, "constexpr 4: dtype 16");
	/* a grid program reading a float constexpr: make BLOCK a float */
	EXPECT_PATCH(l->constexprs + 4, 1, 1, TILE_ERROR_BAD_BLOB, "variant 0: grid program: constexpr 0 is not an int or bool at byte 3");
	/* images */
	EXPECT_PATCH(i1, 1, 4, TILE_ERROR_BAD_BLOB, "image 1: group 1");
	EXPECT_PATCH(i1 + 4, 2, 4, TILE_ERROR_BAD_BLOB, "image 1: kind 2");
	EXPECT_PATCH(i1 + 8, 0, 4, TILE_ERROR_BAD_BLOB, "image 1: arch 0");
	EXPECT_PATCH(i1 + 12, 8, 4, TILE_ERROR_BAD_BLOB, "image 1: flags 0x8 (only bits 0 to 2 defined)");
	EXPECT_PATCH(i1 + 16, tb_get32(ref_blob + i1 + 16) + 2, 4, TILE_ERROR_BAD_BLOB, "image 1: data");
	EXPECT_PATCH(i1 + 16, l->strtab, 4, TILE_ERROR_BAD_BLOB, "image 1: data");
	EXPECT_PATCH(i1 + 20, ref_size, 4, TILE_ERROR_BAD_BLOB, "image 1: data");
	EXPECT_PATCH(i1 + 20, 4, 4, TILE_ERROR_BAD_BLOB, "image 1: stored with size 4 != raw_size");
	EXPECT_PATCH(i1 + 20, 0xfffffff0u, 4, TILE_ERROR_BAD_BLOB, "image 1: data");
	EXPECT_PATCH(i1 + 24, 0, 4, TILE_ERROR_BAD_BLOB, "image 1: raw_size 0");
	EXPECT_PATCH(i1 + 24, (256u << 20) + 1, 4, TILE_ERROR_BAD_BLOB, "image 1: raw_size");
	EXPECT_PATCH(i1 + 28, 2, 4, TILE_ERROR_BAD_BLOB, "image 1: compression 2");
	EXPECT_PATCH(l->images + 20, 4, 4, TILE_ERROR_BAD_BLOB, "image 0: zlib stream of 4 bytes");
	EXPECT_PATCH(i1 + 16, tb_get32(ref_blob + l->images + 16), 4, TILE_ERROR_BAD_BLOB, "images: data ranges overlap");
	/* grid code padding */
	EXPECT_PATCH(l->grid_code + tb_get32(ref_blob + 32 + 20), 1, 1, TILE_ERROR_BAD_BLOB, "grid_code padding");
}

/* A one-kernel blob: k(a: i64, b: i64, u: u64, c: i8, p: *fp32), one
 * variant running `program`, constexprs C0 = 7 (int), F = 2.0 (float). */
static size_t grid_blob(const uint8_t *program, uint32_t size, uint8_t **out)
{
	tb_blob d;
	tb_kernel *k = &d.kernels[0];
	memset(&d, 0, sizeof d);
	d.n_kernels = 1;
	k->name = "k";
	k->n_params = 5;
	k->params[0] = (tb_param){"a", 1, 8, 5, 0};
	k->params[1] = (tb_param){"b", 1, 8, 5, 0};
	k->params[2] = (tb_param){"u", 2, 8, 9, 0};
	k->params[3] = (tb_param){"c", 1, 1, 2, 0};
	k->params[4] = (tb_param){"p", 0, 8, 12, 0};
	k->n_variants = 1;
	k->variants[0].symbol = "k";
	k->variants[0].num_warps = 1;
	k->variants[0].grid = program;
	k->variants[0].grid_size = size;
	k->variants[0].n_constexprs = 2;
	k->variants[0].cx[0] = (tb_constexpr){"C0", 0, 7, NULL};
	k->variants[0].cx[1] = (tb_constexpr){"F", 1, 0x4000000000000000ll, NULL};
	d.n_groups = 1;
	d.n_images = 1;
	d.images[0] = (tb_image){0, 0, 80, 0, cubin80, sizeof cubin80, 0};
	return tb_build(&d, out);
}

static tile_status grid_check(const uint8_t *program, uint32_t size)
{
	uint8_t *b;
	size_t n = grid_blob(program, size, &b);
	tile_status st = try_blob(b, n);
	free(b);
	return st;
}

#define EXPECT_GRID_CHECK(text, ...) \
	do { \
		static const uint8_t prog_[] = {__VA_ARGS__}; \
		CHECK_EQ_INT(grid_check(prog_, sizeof prog_), TILE_ERROR_BAD_BLOB); \
		CHECK_STR_CONTAINS(tile_last_error(), text); \
	} while (0)

static void test_grid_validation(void)
{
	static const uint8_t ok[] = {3, 1, 0, 1, 1, 0x10, 3, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0};
	uint8_t deep[64];
	uint32_t n = 0, i;
	CHECK_EQ_INT(grid_check(ok, sizeof ok), TILE_SUCCESS);
	EXPECT_GRID_CHECK("variant 0: grid program: 0 dimensions", 0);
	EXPECT_GRID_CHECK("variant 0: grid program: 4 dimensions", 4, 1, 0, 1, 0, 1, 0, 1, 0);
	EXPECT_GRID_CHECK("variant 0: grid program: stack underflow at byte 3", 1, 1, 0, 0x10);
	EXPECT_GRID_CHECK("variant 0: grid program: stack underflow at byte 1", 1, 0x13);
	EXPECT_GRID_CHECK("variant 0: grid program: unknown opcode 0x23 at byte 3", 1, 1, 0, 0x23);
	EXPECT_GRID_CHECK("variant 0: grid program: unknown opcode 0x06 at byte 3", 1, 1, 0, 0x06);
	EXPECT_GRID_CHECK("variant 0: grid program: stack underflow at byte 3", 1, 1, 0, 0x18);
	EXPECT_GRID_CHECK("variant 0: grid program: stack underflow at byte 1", 1, 0x20);
	EXPECT_GRID_CHECK("variant 0: grid program: unknown opcode 0x00 at byte 1", 1, 0);
	EXPECT_GRID_CHECK("variant 0: grid program: operand past the end at byte 1", 1, 1);
	EXPECT_GRID_CHECK("variant 0: grid program: operand past the end at byte 1", 1, 2, 1, 0, 0, 0, 0, 0, 0);
	EXPECT_GRID_CHECK("variant 0: grid program: parameter 5 out of range at byte 1", 1, 1, 5);
	EXPECT_GRID_CHECK("variant 0: grid program: parameter 4 is not an integer at byte 1", 1, 1, 4);
	EXPECT_GRID_CHECK("variant 0: grid program: constexpr 2 out of range at byte 1", 1, 3, 2);
	EXPECT_GRID_CHECK("variant 0: grid program: constexpr 1 is not an int or bool at byte 1", 1, 3, 1);
	EXPECT_GRID_CHECK("variant 0: grid program: 2 values left, 1 expected", 1, 1, 0, 1, 1);
	EXPECT_GRID_CHECK("variant 0: grid program: 1 values left, 2 expected", 2, 1, 0);
	deep[n++] = 1;
	for (i = 0; i < 17; i++)
		tb_op_u8(deep, &n, 0x01, 0);
	CHECK_EQ_INT(grid_check(deep, n), TILE_ERROR_BAD_BLOB);
	CHECK_STR_CONTAINS(tile_last_error(), "stack deeper than 16 at byte 33");
}

/* Runs `program` with the given arguments; dims receives the grid. */
static tile_status grid_run(const uint8_t *program, uint32_t size, int64_t a, int64_t b, uint64_t u, int8_t c, int64_t dims[3])
{
	uint8_t *blob;
	size_t n = grid_blob(program, size, &blob);
	tile_module *m = NULL;
	tile_deviceptr p = 0;
	void *args[5];
	tile_status st;
	args[0] = &a;
	args[1] = &b;
	args[2] = &u;
	args[3] = &c;
	args[4] = &p;
	st = tile_module_create(blob, n, &m);
	CHECK_EQ_INT(st, TILE_SUCCESS);
	if (!st)
		st = tile__grid_eval(m, &m->variants[0], args, dims);
	tile_module_destroy(m);
	free(blob);
	return st;
}

/* Evaluates `a OP b` through a one-dimensional program. */
static tile_status binop(int op, int64_t a, int64_t b, int64_t *r)
{
	const uint8_t prog[] = {1, 1, 0, 1, 1, (uint8_t)op};
	int64_t dims[3] = {0, 0, 0};
	tile_status st = grid_run(prog, sizeof prog, a, b, 0, 0, dims);
	*r = dims[0];
	return st;
}

#define EXPECT_OP(op, a, b, want) \
	do { \
		int64_t r_; \
		CHECK_EQ_INT(binop(op, a, b, &r_), TILE_SUCCESS); \
		CHECK_EQ_INT(r_, want); \
	} while (0)
#define EXPECT_OP_FAIL(op, a, b, text) \
	do { \
		int64_t r_; \
		CHECK_EQ_INT(binop(op, a, b, &r_), TILE_ERROR_GRID); \
		CHECK_STR_CONTAINS(tile_last_error(), text); \
	} while (0)

static void test_grid_arithmetic(void)
{
	int64_t dims[3];
	EXPECT_OP(0x10, 5, -7, -2);
	EXPECT_OP(0x11, 5, -7, 12);
	EXPECT_OP(0x12, -5, 7, -35);
	EXPECT_OP(0x13, 7, 2, 3);
	EXPECT_OP(0x13, -7, 2, -4);
	EXPECT_OP(0x13, 7, -2, -4);
	EXPECT_OP(0x13, -7, -2, 3);
	EXPECT_OP(0x13, -8, 2, -4);
	EXPECT_OP(0x15, -7, 2, 1);
	EXPECT_OP(0x15, 7, -2, -1);
	EXPECT_OP(0x15, -7, -2, -1);
	EXPECT_OP(0x15, 7, 3, 1);
	EXPECT_OP(0x15, INT64_MIN, -1, 0);
	EXPECT_OP(0x14, 7, 2, 4);
	EXPECT_OP(0x14, 8, 2, 4);
	EXPECT_OP(0x14, 0, 5, 0);
	EXPECT_OP(0x14, -7, 2, -3);
	EXPECT_OP(0x14, INT64_MAX, 2, INT64_C(4611686018427387904));
	EXPECT_OP(0x14, 7, -2, -2); /* (7 + -2 - 1) // -2, as Triton computes cdiv */
	EXPECT_OP(0x16, -3, 2, -3);
	EXPECT_OP(0x17, -3, 2, 2);
	EXPECT_OP_FAIL(0x10, INT64_MAX, 1, "kernel k: grid program: overflow at byte 5");
	EXPECT_OP_FAIL(0x10, INT64_MIN, -1, "overflow");
	EXPECT_OP_FAIL(0x11, INT64_MIN, 1, "overflow");
	EXPECT_OP_FAIL(0x11, 0, INT64_MIN, "overflow");
	EXPECT_OP_FAIL(0x12, INT64_C(1) << 62, 2, "overflow");
	EXPECT_OP_FAIL(0x12, -1, INT64_MIN, "overflow");
	EXPECT_OP_FAIL(0x12, INT64_MIN, -1, "overflow");
	EXPECT_OP_FAIL(0x12, INT64_C(-3037000500), INT64_C(3037000500), "overflow");
	EXPECT_OP(0x12, INT64_C(-3037000499), INT64_C(3037000499), INT64_C(-9223372030926249001));
	EXPECT_OP_FAIL(0x13, INT64_MIN, -1, "overflow");
	EXPECT_OP_FAIL(0x13, 1, 0, "kernel k: grid program: division by zero at byte 5");
	EXPECT_OP_FAIL(0x14, 1, 0, "division by zero");
	EXPECT_OP_FAIL(0x15, 1, 0, "division by zero");
	EXPECT_OP_FAIL(0x14, INT64_MIN, -1, "overflow");
	{
		/* u64 above INT64_MAX; i8 sign extension; constexpr; three dims */
		static const uint8_t pu[] = {1, 1, 2};
		static const uint8_t pc[] = {3, 1, 3, 3, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
		static const uint8_t p2[] = {2, 1, 3, 3, 0};
		CHECK_EQ_INT(grid_run(pu, sizeof pu, 0, 0, UINT64_MAX, 0, dims), TILE_ERROR_GRID);
		CHECK_STR_CONTAINS(tile_last_error(), "argument out of range at byte 1");
		CHECK_EQ_INT(grid_run(pu, sizeof pu, 0, 0, 1ull << 40, 0, dims), TILE_SUCCESS);
		CHECK(dims[0] == INT64_C(1) << 40 && dims[1] == 1 && dims[2] == 1);
		CHECK_EQ_INT(grid_run(pc, sizeof pc, 0, 0, 0, -5, dims), TILE_SUCCESS);
		CHECK(dims[0] == -5 && dims[1] == 7 && dims[2] == INT64_MAX);
		CHECK_EQ_INT(grid_run(p2, sizeof p2, 0, 0, 0, 9, dims), TILE_SUCCESS);
		CHECK(dims[0] == 9 && dims[1] == 7 && dims[2] == 1);
	}
}

/* A one-kernel blob: f(a: i64, s: fp32, d: fp64, h: fp16, b: bf16, odd: a
 * 2-byte float of type fp32, w: a 4-byte float of type fp16), one variant
 * running `program` (the loader reads floats by their type, which must
 * agree with their size). */
static size_t float_blob(const uint8_t *program, uint32_t size, uint8_t **out)
{
	static tb_blob d;
	tb_kernel *k = &d.kernels[0];
	memset(&d, 0, sizeof d);
	d.n_kernels = 1;
	k->name = "f";
	k->n_params = 7;
	k->params[0] = (tb_param){"a", 1, 8, 5, 0};
	k->params[1] = (tb_param){"s", 3, 4, 12, 0};
	k->params[2] = (tb_param){"d", 3, 8, 13, 0};
	k->params[3] = (tb_param){"h", 3, 2, 10, 0};
	k->params[4] = (tb_param){"b", 3, 2, 11, 0};
	k->params[5] = (tb_param){"odd", 3, 2, 12, 0};
	k->params[6] = (tb_param){"w", 3, 4, 10, 0};
	k->n_variants = 1;
	k->variants[0].symbol = "k";
	k->variants[0].num_warps = 1;
	k->variants[0].grid = program;
	k->variants[0].grid_size = size;
	d.n_groups = 1;
	d.n_images = 1;
	d.images[0] = (tb_image){0, 0, 80, 0, cubin80, sizeof cubin80, 0};
	return tb_build(&d, out);
}

#define EXPECT_FLOAT_CHECK(text, ...) \
	do { \
		static const uint8_t prog_[] = {__VA_ARGS__}; \
		uint8_t *b_; \
		size_t n_ = float_blob(prog_, sizeof prog_, &b_); \
		CHECK_EQ_INT(try_blob(b_, n_), TILE_ERROR_BAD_BLOB); \
		CHECK_STR_CONTAINS(tile_last_error(), text); \
		free(b_); \
	} while (0)

/* Runs `program` of float_blob for a, s, d, h, b; the first value. */
static tile_status float_run(const uint8_t *program, uint32_t size, int64_t a, float s, double d, uint16_t h, uint16_t b,
			     int64_t *r)
{
	uint8_t *blob;
	size_t n = float_blob(program, size, &blob);
	tile_module *m = NULL;
	uint16_t odd = 0;
	float w = 0;
	void *args[7];
	int64_t dims[3] = {0, 0, 0};
	tile_status st;
	args[0] = &a;
	args[1] = &s;
	args[2] = &d;
	args[3] = &h;
	args[4] = &b;
	args[5] = &odd;
	args[6] = &w;
	st = tile_module_create(blob, n, &m);
	CHECK_EQ_INT(st, TILE_SUCCESS);
	if (!st)
		st = tile__grid_eval(m, &m->variants[0], args, dims);
	tile_module_destroy(m);
	free(blob);
	*r = dims[0];
	return st;
}

/* float parameter i OP constant c (a double), as a heuristic compiles
 * `args["s"] > 0.0`: 0x04 i, 0x05 c, 0x22 (comparison | first operand float
 * | second operand float) */
#define FCMP_PARAM_CONST(i, cmp, c) \
	{1, 0x04, (i), 0x05, (uint8_t)(c), (uint8_t)((c) >> 8), (uint8_t)((c) >> 16), (uint8_t)((c) >> 24), \
	 (uint8_t)((c) >> 32), (uint8_t)((c) >> 40), (uint8_t)((c) >> 48), (uint8_t)((c) >> 56), 0x22, (uint8_t)((cmp) | 0x18)}
#define F_ZERO UINT64_C(0)
#define F_HALF UINT64_C(0x3fe0000000000000)     /* 0.5 */
#define F_NEG_HALF UINT64_C(0xbfe0000000000000) /* -0.5 */
#define F_2P53 UINT64_C(0x4340000000000000)     /* 2^53 */

static void test_grid_floats(void)
{
	static const uint8_t s_gt_0[] = FCMP_PARAM_CONST(1, 4, F_ZERO);
	static const uint8_t s_eq_0[] = FCMP_PARAM_CONST(1, 0, F_ZERO);
	static const uint8_t s_ne_0[] = FCMP_PARAM_CONST(1, 1, F_ZERO);
	static const uint8_t s_le_0[] = FCMP_PARAM_CONST(1, 3, F_ZERO);
	static const uint8_t d_lt_half[] = FCMP_PARAM_CONST(2, 2, F_HALF);
	static const uint8_t h_ge_neg_half[] = FCMP_PARAM_CONST(3, 5, F_NEG_HALF);
	static const uint8_t b_eq_half[] = FCMP_PARAM_CONST(4, 0, F_HALF);
	/* a == 2^53 with a an integer (first operand), compared exactly */
	static const uint8_t a_eq_2p53[] = {1, 0x01, 0, 0x05, 0, 0, 0, 0, 0, 0, 0x40, 0x43, 0x22, 0x10};
	/* (s > 0.0) + 1: a comparison's result is an integer */
	static const uint8_t sum[] = {1, 0x04, 1, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0x22, 0x1c, 0x02, 1, 0, 0, 0, 0, 0, 0, 0, 0x10};
	int64_t r;
	/* every float type, NaN, -0.0 */
	CHECK(float_run(s_gt_0, sizeof s_gt_0, 0, 0.0f, 0, 0, 0, &r) == TILE_SUCCESS && r == 0);
	CHECK(float_run(s_gt_0, sizeof s_gt_0, 0, 0.1f, 0, 0, 0, &r) == TILE_SUCCESS && r == 1);
	CHECK(float_run(s_gt_0, sizeof s_gt_0, 0, -0.0f, 0, 0, 0, &r) == TILE_SUCCESS && r == 0);
	CHECK(float_run(s_gt_0, sizeof s_gt_0, 0, NAN, 0, 0, 0, &r) == TILE_SUCCESS && r == 0);
	CHECK(float_run(s_gt_0, sizeof s_gt_0, 0, INFINITY, 0, 0, 0, &r) == TILE_SUCCESS && r == 1);
	CHECK(float_run(s_eq_0, sizeof s_eq_0, 0, -0.0f, 0, 0, 0, &r) == TILE_SUCCESS && r == 1);
	CHECK(float_run(s_eq_0, sizeof s_eq_0, 0, NAN, 0, 0, 0, &r) == TILE_SUCCESS && r == 0);
	CHECK(float_run(s_ne_0, sizeof s_ne_0, 0, NAN, 0, 0, 0, &r) == TILE_SUCCESS && r == 1);
	CHECK(float_run(s_le_0, sizeof s_le_0, 0, NAN, 0, 0, 0, &r) == TILE_SUCCESS && r == 0);
	CHECK(float_run(s_le_0, sizeof s_le_0, 0, -1e-45f, 0, 0, 0, &r) == TILE_SUCCESS && r == 1);
	CHECK(float_run(d_lt_half, sizeof d_lt_half, 0, 0, 0.49999999999999994, 0, 0, &r) == TILE_SUCCESS && r == 1);
	CHECK(float_run(d_lt_half, sizeof d_lt_half, 0, 0, 0.5, 0, 0, &r) == TILE_SUCCESS && r == 0);
	CHECK(float_run(h_ge_neg_half, sizeof h_ge_neg_half, 0, 0, 0, 0xb800, 0, &r) == TILE_SUCCESS && r == 1); /* -0.5 */
	CHECK(float_run(h_ge_neg_half, sizeof h_ge_neg_half, 0, 0, 0, 0xb801, 0, &r) == TILE_SUCCESS && r == 0);
	CHECK(float_run(h_ge_neg_half, sizeof h_ge_neg_half, 0, 0, 0, 0x8001, 0, &r) == TILE_SUCCESS && r == 1); /* -2^-24 */
	CHECK(float_run(h_ge_neg_half, sizeof h_ge_neg_half, 0, 0, 0, 0xfe00, 0, &r) == TILE_SUCCESS && r == 0); /* NaN */
	CHECK(float_run(h_ge_neg_half, sizeof h_ge_neg_half, 0, 0, 0, 0x7c00, 0, &r) == TILE_SUCCESS && r == 1); /* inf */
	CHECK(float_run(b_eq_half, sizeof b_eq_half, 0, 0, 0, 0, 0x3f00, &r) == TILE_SUCCESS && r == 1);
	CHECK(float_run(b_eq_half, sizeof b_eq_half, 0, 0, 0, 0, 0x3f01, &r) == TILE_SUCCESS && r == 0);
	CHECK(float_run(a_eq_2p53, sizeof a_eq_2p53, INT64_C(1) << 53, 0, 0, 0, 0, &r) == TILE_SUCCESS && r == 1);
	CHECK(float_run(a_eq_2p53, sizeof a_eq_2p53, (INT64_C(1) << 53) + 1, 0, 0, 0, 0, &r) == TILE_SUCCESS && r == 0);
	CHECK(float_run(sum, sizeof sum, 0, 2.0f, 0, 0, 0, &r) == TILE_SUCCESS && r == 2);

	/* what the checker proves: operands, types the loader reads, a float
	 * never reaching an integer operation or the values left */
	EXPECT_FLOAT_CHECK("variant 0: grid program: operand past the end at byte 1", 1, 0x04);
	EXPECT_FLOAT_CHECK("variant 0: grid program: operand past the end at byte 1", 1, 0x05, 0, 0, 0, 0, 0, 0, 0);
	EXPECT_FLOAT_CHECK("variant 0: grid program: parameter 7 out of range at byte 1", 1, 0x04, 7, 0x04, 1, 0x22, 0x18);
	EXPECT_FLOAT_CHECK("variant 0: grid program: parameter 0 is not an fp16, bf16, fp32 or fp64 float at byte 1", 1, 0x04, 0,
			   0x04, 1, 0x22, 0x18);
	EXPECT_FLOAT_CHECK("variant 0: grid program: parameter 5 is not an fp16, bf16, fp32 or fp64 float at byte 3", 1, 0x04, 1,
			   0x04, 5, 0x22, 0x18); /* odd: 2 bytes of fp32 */
	EXPECT_FLOAT_CHECK("variant 0: grid program: parameter 6 is not an fp16, bf16, fp32 or fp64 float at byte 1", 1, 0x04, 6,
			   0x04, 1, 0x22, 0x18); /* w: 4 bytes of fp16 */
	EXPECT_FLOAT_CHECK("variant 0: grid program: parameter 1 is not an integer at byte 1", 1, 0x01, 1);
	EXPECT_FLOAT_CHECK("variant 0: grid program: operand past the end at byte 5", 1, 0x04, 1, 0x04, 2, 0x22);
	EXPECT_FLOAT_CHECK("variant 0: grid program: stack underflow at byte 3", 1, 0x04, 1, 0x22, 0x18);
	EXPECT_FLOAT_CHECK("variant 0: grid program: float comparison operand 0x1e (a comparison 0..5, bits 3 and 4 its float "
			   "operands, one at least) at byte 5", 1, 0x04, 1, 0x04, 2, 0x22, 0x1e);
	EXPECT_FLOAT_CHECK("variant 0: grid program: float comparison operand 0x04 (", 1, 0x01, 0, 0x01, 0, 0x22, 0x04);
	EXPECT_FLOAT_CHECK("variant 0: grid program: float comparison operand 0x3c (", 1, 0x04, 1, 0x04, 2, 0x22, 0x3c);
	EXPECT_FLOAT_CHECK("variant 0: grid program: operands of other types than the float comparison's operand bits say at "
			   "byte 5", 1, 0x04, 1, 0x01, 0, 0x22, 0x08 | 0x10);
	EXPECT_FLOAT_CHECK("variant 0: grid program: operands of other types than the float comparison's operand bits say at "
			   "byte 5", 1, 0x04, 1, 0x01, 0, 0x22, 0x10);
	EXPECT_FLOAT_CHECK("variant 0: grid program: a float operand of an integer operation at byte 5", 1, 0x04, 1, 0x01, 0,
			   0x10);
	EXPECT_FLOAT_CHECK("variant 0: grid program: a float operand of an integer operation at byte 5", 1, 0x01, 0, 0x04, 1,
			   0x1a);
	EXPECT_FLOAT_CHECK("variant 0: grid program: a float operand of an integer operation at byte 3", 1, 0x04, 1, 0x20);
	EXPECT_FLOAT_CHECK("variant 0: grid program: a float operand of an integer operation at byte 3", 1, 0x04, 2, 0x21);
	EXPECT_FLOAT_CHECK("variant 0: grid program: a float among the values left", 1, 0x04, 1);
	EXPECT_FLOAT_CHECK("variant 0: grid program: a float among the values left", 2, 0x01, 0, 0x05, 0, 0, 0, 0, 0, 0, 0,
			   0);
	/* a heuristic's float program, corrupted in a blob: the operand byte */
	{
		uint8_t *b;
		size_t n = float_blob(s_gt_0, sizeof s_gt_0, &b);
		tb_layout l = tb_layout_of(b);
		CHECK_EQ_INT(try_blob(b, n), TILE_SUCCESS);
		CHECK_EQ_INT(try_patch_blob(b, n, l.grid_code + 13, 0x06 | 0x18, 1), TILE_ERROR_BAD_BLOB);
		CHECK_STR_CONTAINS(tile_last_error(), "variant 0: grid program: float comparison operand 0x1e");
		CHECK_EQ_INT(try_patch_blob(b, n, l.grid_code + 12, 0x23, 1), TILE_ERROR_BAD_BLOB);
		CHECK_STR_CONTAINS(tile_last_error(), "variant 0: grid program: unknown opcode 0x23 at byte 12");
		CHECK_EQ_INT(try_patch_blob(b, n, l.grid_code + 2, 0, 1), TILE_ERROR_BAD_BLOB);
		CHECK_STR_CONTAINS(tile_last_error(), "parameter 0 is not an fp16, bf16, fp32 or fp64 float at byte 1");
		CHECK_EQ_INT(try_patch_blob(b, n, l.grid_code + 1, 0x01, 1), TILE_ERROR_BAD_BLOB);
		CHECK_STR_CONTAINS(tile_last_error(), "parameter 1 is not an integer at byte 1");
		CHECK_EQ_INT(try_patch_blob(b, n, l.grid_code + 3, 0x02, 1), TILE_ERROR_BAD_BLOB); /* the constant an integer */
		CHECK_STR_CONTAINS(tile_last_error(), "operands of other types than the float comparison's operand bits say at byte 12");
		free(b);
	}
}

/* tile_launch's checks that come before any driver call. */
static void test_launch_checks(void)
{
	tile_module *m = NULL;
	tile_deviceptr x = 0x1000, y = 0x2000, out = 0x3000;
	int32_t n = 0;
	void *args[4];
	uint32_t grid[3] = {0, 1, 1};
	args[0] = &x;
	args[1] = &y;
	args[2] = &out;
	args[3] = &n;
	CHECK_EQ_INT(tile_module_create(ref_blob, ref_size, &m), TILE_SUCCESS);
	if (!m)
		return;
	CHECK_EQ_INT(tile_launch(m, 2, NULL, NULL, args, 4), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "no kernel 2");
	CHECK_EQ_INT(tile_launch(m, -1, NULL, NULL, args, 4), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_EQ_INT(tile_launch(NULL, 0, NULL, NULL, args, 4), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_EQ_INT(tile_launch(m, 0, NULL, NULL, args, 5), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel add takes 4 arguments, 5 given");
	CHECK_EQ_INT(tile_launch(m, 0, NULL, NULL, NULL, 4), TILE_ERROR_INVALID_ARGUMENT);
	args[1] = NULL;
	CHECK_EQ_INT(tile_launch(m, 0, NULL, NULL, args, 4), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "argument 1 is NULL");
	args[1] = &y;
	/* n = 0: cdiv(0, BLOCK) = 0 blocks, a successful no-op without a driver */
	CHECK_EQ_INT(tile_launch(m, 0, NULL, NULL, args, 4), TILE_SUCCESS);
	CHECK_EQ_INT(tile_launch(m, 0, grid, NULL, args, 4), TILE_SUCCESS);
	n = -5000;
	CHECK_EQ_INT(tile_launch(m, 0, NULL, NULL, args, 4), TILE_ERROR_GRID);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel add: grid dimension x = -9 outside 0..2147483647");
	n = 0;
	grid[0] = 1u << 31;
	CHECK_EQ_INT(tile_launch(m, 0, grid, NULL, args, 4), TILE_ERROR_GRID);
	CHECK_STR_CONTAINS(tile_last_error(), "grid dimension x = 2147483648");
	grid[0] = 1;
	grid[1] = 65536;
	CHECK_EQ_INT(tile_launch(m, 0, grid, NULL, args, 4), TILE_ERROR_GRID);
	CHECK_STR_CONTAINS(tile_last_error(), "grid dimension y = 65536 outside 0..65535");
	grid[1] = 1;
	grid[2] = 65536;
	CHECK_EQ_INT(tile_launch(m, 0, grid, NULL, args, 4), TILE_ERROR_GRID);
	grid[2] = 0;
	CHECK_EQ_INT(tile_launch(m, 0, grid, NULL, args, 4), TILE_SUCCESS);
	{
		/* scale: the generic variant has no grid program */
		float s = 1;
		int64_t mm = 2;
		uint32_t k = 0;
		void *sargs[4];
		sargs[0] = &x;
		sargs[1] = &s;
		sargs[2] = &mm;
		sargs[3] = &k;
		CHECK_EQ_INT(tile_launch(m, 1, NULL, NULL, sargs, 4), TILE_ERROR_INVALID_ARGUMENT);
		CHECK_STR_CONTAINS(tile_last_error(), "kernel scale has no grid program: pass the grid");
		/* m == 1 picks scale_one: grid max(m, k) x 3 with m = 1, k = 0 */
		mm = 1;
		CHECK_EQ_INT(tile__select_variant(m, &m->kernels[1], 0, sargs), 2);
		grid[2] = 0;
		CHECK_EQ_INT(tile_launch(m, 1, grid, NULL, sargs, 4), TILE_SUCCESS);
	}
	tile_module_destroy(m);
}

static void test_variant_selection(void)
{
	tile_module *m = NULL;
	tile_deviceptr x = 0x1000, y = 0x2000, out = 0x3000;
	int32_t n = 4096;
	void *args[4];
	args[0] = &x;
	args[1] = &y;
	args[2] = &out;
	args[3] = &n;
	CHECK_EQ_INT(tile_module_create(ref_blob, ref_size, &m), TILE_SUCCESS);
	if (!m)
		return;
	CHECK_EQ_INT(tile__select_variant(m, &m->kernels[0], 0, args), 0);
	y = 0x2004;
	CHECK_EQ_INT(tile__select_variant(m, &m->kernels[0], 0, args), 1);
	y = 0x2000;
	n = 4097;
	CHECK_EQ_INT(tile__select_variant(m, &m->kernels[0], 0, args), 1);
	n = -32;
	CHECK_EQ_INT(tile__select_variant(m, &m->kernels[0], 0, args), 0);
	tile_module_destroy(m);
}

/* A kernel whose only variant is specialized refuses other arguments. */
static void test_no_variant(void)
{
	uint8_t *b;
	size_t n;
	tb_blob d;
	tile_module *m = NULL;
	int64_t a = 3;
	void *args[1];
	memset(&d, 0, sizeof d);
	d.n_kernels = 1;
	d.kernels[0].name = "only";
	d.kernels[0].n_params = 1;
	d.kernels[0].params[0] = (tb_param){"a", 1, 8, 5, 0};
	d.kernels[0].n_variants = 1;
	d.kernels[0].variants[0].symbol = "only_a1";
	d.kernels[0].variants[0].num_warps = 1;
	d.kernels[0].variants[0].eq1 = 1;
	d.n_groups = 1;
	d.n_images = 1;
	d.images[0] = (tb_image){0, 0, 80, 0, cubin80, sizeof cubin80, 0};
	n = tb_build(&d, &b);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_SUCCESS);
	args[0] = &a;
	if (m) {
		CHECK_EQ_INT(tile_launch(m, 0, NULL, NULL, args, 1), TILE_ERROR_NO_VARIANT);
		CHECK_STR_CONTAINS(tile_last_error(), "kernel only: no variant");
		a = 1;
		CHECK_EQ_INT(tile__select_variant(m, &m->kernels[0], 0, args), 0);
	}
	tile_module_destroy(m);
	free(b);
}

/* Four one-variant kernels named `names`: the first repeated name is
 * reported against the first kernel that has it. */
static tile_status names_blob(const char *const names[4])
{
	uint8_t *b;
	size_t n;
	tb_blob d;
	tile_status st;
	int i;
	memset(&d, 0, sizeof d);
	d.n_kernels = 4;
	for (i = 0; i < 4; i++) {
		d.kernels[i].name = names[i];
		d.kernels[i].n_variants = 1;
		d.kernels[i].variants[0].symbol = "k";
		d.kernels[i].variants[0].num_warps = 1;
	}
	d.n_groups = 1;
	d.n_images = 1;
	d.images[0] = (tb_image){0, 0, 80, 0, cubin80, sizeof cubin80, 0};
	n = tb_build(&d, &b);
	st = try_blob(b, n);
	free(b);
	return st;
}

static void test_kernel_names(void)
{
	static const char *const distinct[4] = {"c", "b", "a", "ab"};
	static const char *const late[4] = {"a", "b", "c", "b"};
	static const char *const two[4] = {"b", "a", "b", "a"};
	static const char *const three[4] = {"z", "y", "z", "z"};
	CHECK_EQ_INT(names_blob(distinct), TILE_SUCCESS);
	CHECK_EQ_INT(names_blob(late), TILE_ERROR_BAD_BLOB);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel 3: name 'b' already used by kernel 1");
	CHECK_EQ_INT(names_blob(two), TILE_ERROR_BAD_BLOB);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel 2: name 'b' already used by kernel 0");
	CHECK_EQ_INT(names_blob(three), TILE_ERROR_BAD_BLOB);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel 2: name 'z' already used by kernel 0");
}

static void test_truncation_and_flips(void)
{
	uint8_t *b = (uint8_t *)malloc(ref_size);
	size_t len, i;
	int bad = 0, ok = 0;
	for (len = 0; len < ref_size; len++) {
		memcpy(b, ref_blob, len);
		bad += try_blob(b, len) == TILE_SUCCESS;
	}
	CHECK_EQ_INT(bad, 0);
	/* Every single bit flip is caught, by the checksum at the latest. */
	bad = 0;
	for (i = 0; i < ref_size * 8; i++) {
		memcpy(b, ref_blob, ref_size);
		b[i / 8] ^= (uint8_t)(1u << (i % 8));
		bad += try_blob(b, ref_size) == TILE_SUCCESS;
	}
	CHECK_EQ_INT(bad, 0);
	/* Every byte set to each of a few values with the checksum fixed: no
	 * crash, and the metadata bytes mostly refused. */
	for (i = 32; i < ref_layout.data; i++) {
		static const uint8_t values[] = {0x00, 0xff, 0x7f, 0x80, 0x01};
		size_t v;
		for (v = 0; v < sizeof values; v++) {
			tile_status st;
			if (ref_blob[i] == values[v])
				continue;
			memcpy(b, ref_blob, ref_size);
			b[i] = values[v];
			tb_fix_crc(b, ref_size);
			st = try_blob(b, ref_size);
			ok += st == TILE_SUCCESS;
			bad += st != TILE_SUCCESS;
		}
	}
	CHECK_MSG(bad > 2 * ok, "%d refused, %d accepted", bad, ok);
	free(b);
}

/* Random bytes of blob[from..size) changed, the checksum fixed: no crash. */
static void random_mutations(const uint8_t *blob, size_t size, size_t from, int rounds)
{
	uint8_t *b = (uint8_t *)malloc(size);
	uint32_t seed = 99;
	int round, i;
	for (round = 0; round < rounds; round++) {
		memcpy(b, blob, size);
		for (i = 0; i < 1 + round % 6; i++) {
			seed = seed * 1103515245u + 12345u;
			b[from + (seed >> 8) % (size - from)] = (uint8_t)(seed >> 24);
		}
		tb_fix_crc(b, size);
		try_blob(b, size);
	}
	CHECK(1); /* reaching here without a sanitizer report is the check */
	free(b);
}

static void test_random_mutations(void) { random_mutations(ref_blob, ref_size, 0, 20000); }

/* Tensor-map recipes. mm(a: *fp16, M: i32, K: i32, c: *fp32, then a rank-1
 * fp16 descriptor d (d_base, d_shape0, d_stride0, d_tmap), hidden: scratch
 * (*fp16), a_tmap and b_tmap (fp16 hidden maps)); variant 0 (K % 16 == 0)
 * builds a_tmap as a [M, K] view of a (strides [K, 1], block [128, 64])
 * and b_tmap as a flat [M * K] one of d_base (block [64]); variant 1,
 * a_tmap only, with block [64, BK] from its constexpr BK = 64. */
enum { FP16 = 10, FP32 = 12 };
static uint8_t prog_mk[16], prog_flat[16], prog_bk[16];
static uint32_t prog_mk_size, prog_flat_size, prog_bk_size;

static void recipe_reference(tb_blob *d)
{
	tb_kernel *k = &d->kernels[0];
	tb_variant *v;
	uint32_t n = 0;
	memset(d, 0, sizeof *d);
	prog_mk[n++] = 3; /* M, K, then the stride K */
	tb_op_u8(prog_mk, &n, 0x01, 1);
	tb_op_u8(prog_mk, &n, 0x01, 2);
	tb_op_u8(prog_mk, &n, 0x01, 2);
	prog_mk_size = n;
	n = 0;
	prog_flat[n++] = 1; /* M * K */
	tb_op_u8(prog_flat, &n, 0x01, 1);
	tb_op_u8(prog_flat, &n, 0x01, 2);
	tb_op(prog_flat, &n, 0x12);
	prog_flat_size = n;
	n = 0;
	prog_bk[n++] = 3; /* M, cdiv(K, BK) * BK, K */
	tb_op_u8(prog_bk, &n, 0x01, 1);
	tb_op_u8(prog_bk, &n, 0x01, 2);
	tb_op_u8(prog_bk, &n, 0x03, 0);
	tb_op(prog_bk, &n, 0x14);
	tb_op_u8(prog_bk, &n, 0x03, 0);
	tb_op(prog_bk, &n, 0x12);
	tb_op_u8(prog_bk, &n, 0x01, 2);
	prog_bk_size = n;
	d->n_kernels = 1;
	k->name = "mm";
	k->n_params = 11;
	k->params[0] = (tb_param){"a", 0, 8, FP16, 0};
	k->params[1] = (tb_param){"M", 1, 4, 4, 0};
	k->params[2] = (tb_param){"K", 1, 4, 4, 0};
	k->params[3] = (tb_param){"c", 0, 8, FP32, 0};
	k->params[4] = (tb_param){"d_base", 0, 8, FP16, 0};
	k->params[5] = (tb_param){"d_shape0", 1, 4, 4, 0};
	k->params[6] = (tb_param){"d_stride0", 1, 8, 5, 0};
	k->params[7] = (tb_param){"d_tmap", 4, 128, FP16, 0};
	k->params[8] = (tb_param){"scratch", 0, 8, FP16, 1};
	k->params[9] = (tb_param){"a_tmap", 4, 128, FP16, 1};
	k->params[10] = (tb_param){"b_tmap", 4, 128, FP16, 1};
	k->n_variants = 2;
	v = &k->variants[0];
	v->symbol = "mm_k16";
	v->num_warps = 4;
	v->div16 = 1u << 2;
	v->n_recipes = 2;
	v->recipes[0] = (tb_recipe){9, 0, 2, prog_mk, prog_mk_size, {128, 64, 0, 0, 0}, 0};
	v->recipes[1] = (tb_recipe){10, 4, 1, prog_flat, prog_flat_size, {64, 0, 0, 0, 0}, 0};
	v = &k->variants[1];
	v->symbol = "mm";
	v->num_warps = 4;
	v->n_constexprs = 1;
	v->cx[0] = (tb_constexpr){"BK", 0, 64, NULL};
	v->n_recipes = 1;
	v->recipes[0] = (tb_recipe){9, 0, 2, prog_bk, prog_bk_size, {64, 64, 0, 0, 0}, 0};
	d->n_groups = 1;
	d->n_images = 1;
	d->images[0] = (tb_image){0, 0, 90, 2, cubin90, sizeof cubin90, 0};
}

static tile_status try_desc(const tb_blob *d)
{
	uint8_t *b;
	size_t n = tb_build(d, &b);
	tile_status st = try_blob(b, n);
	free(b);
	return st;
}

#define EXPECT_DESC(d, text) \
	do { \
		CHECK_EQ_INT(try_desc(d), TILE_ERROR_BAD_BLOB); \
		CHECK_STR_CONTAINS(tile_last_error(), text); \
	} while (0)

static void test_recipes_valid(void)
{
	tb_blob d;
	uint8_t *b;
	size_t n;
	tile_module *m = NULL;
	tile_param_info p;
	recipe_reference(&d);
	n = tb_build(&d, &b);
	CHECK_EQ_INT(tb_get32(b + 4) & 0xffff, 5);
	CHECK_EQ_INT(tb_get32(b + 32 + 44), 3);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_SUCCESS);
	if (m) {
		const tile__kernel *k = &m->kernels[0];
		CHECK_EQ_INT(m->n_recipes, 3);
		CHECK(m->variants[0].first_recipe == 0 && m->variants[0].n_recipes == 2);
		CHECK(m->variants[1].first_recipe == 2 && m->variants[1].n_recipes == 1);
		CHECK(m->recipes[1].param == 10 && m->recipes[1].base == 4 && m->recipes[1].rank == 1 && m->recipes[1].block[0] == 64);
		CHECK(m->recipes[2].variant == 1 && m->recipes[2].block[1] == 64 && m->recipes[2].code_size == prog_bk_size);
		CHECK_EQ_INT(k->map_mask, (1u << 7) | (1u << 9) | (1u << 10));
		CHECK_EQ_INT(k->hidden_maps, (1u << 9) | (1u << 10));
		CHECK(k->n_visible == 8 && k->copy_args);
		CHECK_EQ_INT(m->n_maps, 3);
		CHECK(m->params[7].map_index == 0 && m->params[9].map_index == 1 && m->params[10].map_index == 2);
		CHECK(m->params[7].desc_rank == 1 && m->params[9].desc_rank == 0);
		CHECK_EQ_INT(tile_param_get_info(m, 0, 9, &p), TILE_SUCCESS);
		CHECK(p.kind == 4 && p.size == 128 && p.dtype == FP16 && p.hidden == 1 && strcmp(p.name, "a_tmap") == 0);
		tile_module_destroy(m);
	}
	/* recipes mutated at random: no crash */
	random_mutations(b, n, tb_layout_of(b).recipes, 20000);
	free(b);
	/* a variant without recipes, a kernel of 16 maps (one descriptor, 15 hidden) */
	recipe_reference(&d);
	d.kernels[0].variants[1].n_recipes = 0;
	CHECK_EQ_INT(try_desc(&d), TILE_SUCCESS);
	{
		static const char *names[] = {"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9", "h10", "h11", "h12", "h13", "h14", "h15"};
		int i;
		recipe_reference(&d);
		for (i = 11; i < 24; i++)
			d.kernels[0].params[i] = (tb_param){names[i - 11], 4, 128, FP16, 1};
		d.kernels[0].n_params = 24;
		CHECK_EQ_INT(try_desc(&d), TILE_SUCCESS);
		/* the scratch pointer a hidden map too: 17 */
		d.kernels[0].params[8] = (tb_param){"h16", 4, 128, FP16, 1};
		EXPECT_DESC(&d, "kernel 0: 17 tensor maps (at most 16, descriptors' and hidden ones together)");
	}
}

#define EXPECT_RPATCH(off, value, width, text) \
	do { \
		CHECK_EQ_INT(try_patch_blob(b, n, (off), (value), (width)), TILE_ERROR_BAD_BLOB); \
		CHECK_STR_CONTAINS(tile_last_error(), (text)); \
	} while (0)

/* Each recipe rule, and the parameter rules of hidden maps. */
static void test_recipe_fields(void)
{
	tb_blob d;
	tb_layout l;
	uint8_t *b;
	size_t n, r0, r1, r2;
	uint32_t grid_size;
	recipe_reference(&d);
	n = tb_build(&d, &b);
	l = tb_layout_of(b);
	r0 = l.recipes;
	r1 = r0 + TB_RECIPE_SIZE;
	r2 = r1 + TB_RECIPE_SIZE;
	grid_size = tb_get32(b + 32 + 20);
	/* the metadata header's count */
	EXPECT_RPATCH(32 + 44, 4, 4, "metadata: counts describe");
	EXPECT_RPATCH(32 + 44, 2, 4, "metadata: counts describe");
	EXPECT_RPATCH(32 + 44, 0xffffffffu, 4, "metadata: counts describe");
	EXPECT_RPATCH(32 + 44, 0x80000000u, 4, "metadata: counts describe");
	/* variant */
	EXPECT_RPATCH(r0, 2, 4, "recipe 0: variant 2 (blob has 2)");
	EXPECT_RPATCH(r2, 0xffffffffu, 4, "recipe 2: variant 4294967295 (blob has 2)");
	/* order: by variant, then parameter; a pair once */
	EXPECT_RPATCH(r0, 1, 4, "recipe 1: variant 0, parameter 10 after recipe 0's variant 1, parameter 9 (recipes ascend");
	EXPECT_RPATCH(r2, 0, 4, "recipe 2: variant 0, parameter 9 after recipe 1's variant 0, parameter 10");
	EXPECT_RPATCH(r1 + 4, 9, 4, "recipe 1: variant 0, parameter 9 again (recipe 0)");
	/* the parameter: a hidden map of the variant's kernel */
	EXPECT_RPATCH(r0 + 4, 7, 4, "recipe 0: parameter 7 of kernel 0 is not a hidden tensor map"); /* a descriptor's map */
	EXPECT_RPATCH(r0 + 4, 8, 4, "recipe 0: parameter 8 of kernel 0 is not a hidden tensor map"); /* a hidden pointer */
	EXPECT_RPATCH(r0 + 4, 1, 4, "recipe 0: parameter 1 of kernel 0 is not a hidden tensor map");
	EXPECT_RPATCH(r1 + 4, 11, 4, "recipe 1: parameter 11 of kernel 0 is not a hidden tensor map");
	EXPECT_RPATCH(r1 + 4, 0xffffffffu, 4, "recipe 1: parameter 4294967295 of kernel 0 is not a hidden tensor map");
	/* the base: a visible pointer of the map's dtype */
	EXPECT_RPATCH(r0 + 8, 1, 4, "recipe 0: base 1 is not a visible pointer parameter of kernel 0");
	EXPECT_RPATCH(r0 + 8, 8, 4, "recipe 0: base 8 is not a visible pointer parameter of kernel 0"); /* hidden */
	EXPECT_RPATCH(r0 + 8, 9, 4, "recipe 0: base 9 is not a visible pointer parameter of kernel 0");
	EXPECT_RPATCH(r0 + 8, 11, 4, "recipe 0: base 11 is not a visible pointer parameter of kernel 0");
	EXPECT_RPATCH(r0 + 8, 3, 4, "recipe 0: base 3 points to dtype 12, the tensor map's is 10");
	CHECK_EQ_INT(try_patch_blob(b, n, r0 + 8, 4, 4), TILE_SUCCESS); /* d_base: fp16 too */
	/* rank 1..5 */
	EXPECT_RPATCH(r0 + 12, 0, 4, "recipe 0: rank 0 (1..5)");
	EXPECT_RPATCH(r0 + 12, 6, 4, "recipe 0: rank 6 (1..5)");
	EXPECT_RPATCH(r0 + 12, 0x80000001u, 4, "recipe 0: rank 2147483649 (1..5)");
	/* the program: inside grid_code, 2 bytes at least, 2 * rank - 1 values */
	EXPECT_RPATCH(r0 + 16, grid_size, 4, "recipe 0: program");
	EXPECT_RPATCH(r0 + 16, grid_size - 1, 4, "outside grid_code of");
	EXPECT_RPATCH(r0 + 16, 0xffffffffu, 4, "recipe 0: program 4294967295+7 outside grid_code");
	EXPECT_RPATCH(r0 + 20, 1, 4, "recipe 0: program 0+1 outside grid_code");
	EXPECT_RPATCH(r0 + 20, 0, 4, "recipe 0: program 0+0 outside grid_code");
	EXPECT_RPATCH(r0 + 20, grid_size + 1, 4, "outside grid_code");
	EXPECT_RPATCH(r0 + 20, 0xfffffffcu, 4, "outside grid_code");
	EXPECT_RPATCH(r0 + 12, 1, 4, "recipe 0: a program of 3 values for rank 1 (2 * rank - 1 = 1)");
	EXPECT_RPATCH(r0 + 12, 3, 4, "recipe 0: a program of 3 values for rank 3 (2 * rank - 1 = 5)");
	EXPECT_RPATCH(r1 + 12, 2, 4, "recipe 1: a program of 1 values for rank 2 (2 * rank - 1 = 3)");
	EXPECT_RPATCH(r0 + 20, prog_mk_size - 2, 4, "recipe 0: program: 2 values left, 3 expected");
	EXPECT_RPATCH(r0 + 20, prog_mk_size + 1, 4, "recipe 0: program: operand past the end at byte 7"); /* the next program's 1 */
	/* the program's bytes: checked as a grid program is */
	EXPECT_RPATCH(l.grid_code + 1, 0x23, 1, "recipe 0: program: unknown opcode 0x23 at byte 1");
	EXPECT_RPATCH(l.grid_code + 2, 0, 1, "recipe 0: program: parameter 0 is not an integer at byte 1");
	EXPECT_RPATCH(l.grid_code + 2, 8, 1, "recipe 0: program: parameter 8 out of range at byte 1"); /* hidden */
	EXPECT_RPATCH(l.grid_code + 1, 0x03, 1, "recipe 0: program: constexpr 1 out of range at byte 1");
	EXPECT_RPATCH(l.grid_code + 1, 0x10, 1, "recipe 0: program: stack underflow at byte 1");
	EXPECT_RPATCH(l.grid_code + prog_mk_size + prog_flat_size + 6, 0x05, 1, "recipe 2: program: constexpr 5 out of range at byte 5");
	EXPECT_RPATCH(l.grid_code, 5, 1, "recipe 0: a program of 5 values for rank 2 (2 * rank - 1 = 3)");
	/* block: 1..65535 up to the rank, 0 past it; reserved 0 */
	CHECK_EQ_INT(try_patch_blob(b, n, r0 + 24, 65535, 2), TILE_SUCCESS);
	EXPECT_RPATCH(r0 + 24, 0, 2, "recipe 0: block[0] = 0 (1..65535)");
	EXPECT_RPATCH(r0 + 26, 0, 2, "recipe 0: block[1] = 0 (1..65535)");
	EXPECT_RPATCH(r0 + 28, 1, 2, "recipe 0: block[2] = 1 past rank 2 (must be 0)");
	EXPECT_RPATCH(r0 + 32, 0xffff, 2, "recipe 0: block[4] = 65535 past rank 2 (must be 0)");
	EXPECT_RPATCH(r1 + 26, 64, 2, "recipe 1: block[1] = 64 past rank 1 (must be 0)");
	EXPECT_RPATCH(r0 + 34, 1, 2, "recipe 0: reserved field not 0");
	EXPECT_RPATCH(r2 + 35, 0x80, 1, "recipe 2: reserved field not 0");
	free(b);
	/* hidden maps' flags: 1 only (2, reset_to_zero, is a pointer's) */
	recipe_reference(&d);
	d.kernels[0].params[9].hidden = 2;
	EXPECT_DESC(&d, "param 9: flags 0x2 on a tensor map (0: a descriptor's, 1: hidden)");
	d.kernels[0].params[9].hidden = 3;
	EXPECT_DESC(&d, "param 9: flags 0x3 on a tensor map");
	d.kernels[0].params[9].hidden = 5;
	EXPECT_DESC(&d, "param 9: flags 0x5 on a tensor map");
	d.kernels[0].params[9].hidden = 8;
	EXPECT_DESC(&d, "param 9: flags 0x8 (only bits 0..2 defined)");
	/* a hidden map follows no descriptor group, but trails the visible ones */
	recipe_reference(&d);
	d.kernels[0].params[8] = (tb_param){"c2", 0, 8, FP16, 0};
	d.kernels[0].params[7] = (tb_param){"x_tmap", 4, 128, FP16, 1};
	EXPECT_DESC(&d, "kernel 0: parameter 8 is visible after a hidden one");
	/* a map without flags still follows its group */
	recipe_reference(&d);
	d.kernels[0].params[9].hidden = 0;
	d.kernels[0].params[10].hidden = 0;
	d.kernels[0].params[8].hidden = 0;
	d.kernels[0].variants[0].n_recipes = 0;
	d.kernels[0].variants[1].n_recipes = 0;
	EXPECT_DESC(&d, "kernel 0: tensor map parameter 9 does not follow a descriptor group");
	/* recipes written out of order, twice, for a descriptor's map */
	recipe_reference(&d);
	d.kernels[0].variants[0].recipes[0].param = 10;
	d.kernels[0].variants[0].recipes[1].param = 9;
	EXPECT_DESC(&d, "recipe 1: variant 0, parameter 9 after recipe 0's variant 0, parameter 10");
	recipe_reference(&d);
	d.kernels[0].variants[1].n_recipes = 2;
	d.kernels[0].variants[1].recipes[1] = d.kernels[0].variants[1].recipes[0];
	EXPECT_DESC(&d, "recipe 3: variant 1, parameter 9 again (recipe 2)");
	recipe_reference(&d);
	d.kernels[0].variants[1].recipes[0].param = 7;
	d.kernels[0].variants[1].recipes[0].rank = 1;
	EXPECT_DESC(&d, "recipe 2: parameter 7 of kernel 0 is not a hidden tensor map");
}

/* A recipe's descriptor for the arguments (no driver), and its refusals. */
static void test_recipe_desc(void)
{
	tb_blob d;
	uint8_t *b;
	size_t n;
	tile_module *m = NULL;
	tile_deviceptr a = 0x10000, c = 0x20000, db = 0x30040;
	int32_t M = 1000, K = 72, ds = 5;
	int64_t dst = 1;
	void *args[8];
	tile_tensordesc t;
	args[0] = &a, args[1] = &M, args[2] = &K, args[3] = &c, args[4] = &db, args[5] = &ds, args[6] = &dst, args[7] = &dst;
	recipe_reference(&d);
	n = tb_build(&d, &b);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_SUCCESS);
	if (!m) {
		free(b);
		return;
	}
	/* variant 0: a_tmap [M, K] strides [K, 1] */
	CHECK_EQ_INT(tile__recipe_desc(m, &m->kernels[0], &m->variants[0], &m->recipes[0], args, &t), TILE_SUCCESS);
	CHECK(t.base == 0x10000 && t.rank == 2 && t.shape[0] == 1000 && t.shape[1] == 72 && t.strides[0] == 72 && t.strides[1] == 1);
	CHECK(t.block_shape[0] == 128 && t.block_shape[1] == 64 && t.block_shape[2] == 0 && t.shape[2] == 0);
	/* b_tmap: [M * K] of d_base */
	CHECK_EQ_INT(tile__recipe_desc(m, &m->kernels[0], &m->variants[0], &m->recipes[1], args, &t), TILE_SUCCESS);
	CHECK(t.base == 0x30040 && t.rank == 1 && t.shape[0] == 72000 && t.strides[0] == 1 && t.block_shape[0] == 64);
	/* variant 1, with its constexpr: shape [M, cdiv(K, 64) * 64] */
	CHECK_EQ_INT(tile__recipe_desc(m, &m->kernels[0], &m->variants[1], &m->recipes[2], args, &t), TILE_SUCCESS);
	CHECK(t.shape[0] == 1000 && t.shape[1] == 128 && t.strides[0] == 72);
	/* Triton's rules, the kernel and the map named */
	a = 0x10008;
	CHECK_EQ_INT(tile__recipe_desc(m, &m->kernels[0], &m->variants[0], &m->recipes[0], args, &t), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel mm: tensor map a_tmap: base 0x10008 is not 16-byte aligned");
	a = 0x10000;
	K = 100; /* 200 bytes a row */
	CHECK_EQ_INT(tile__recipe_desc(m, &m->kernels[0], &m->variants[0], &m->recipes[0], args, &t), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel mm: tensor map a_tmap: strides[0] = 100 elements of 2 bytes is not a multiple of 16 bytes");
	K = -8;
	CHECK_EQ_INT(tile__recipe_desc(m, &m->kernels[0], &m->variants[0], &m->recipes[0], args, &t), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel mm: tensor map a_tmap: strides[0] = -8 elements of 2 bytes");
	K = 8;
	M = -1;
	CHECK_EQ_INT(tile__recipe_desc(m, &m->kernels[0], &m->variants[0], &m->recipes[0], args, &t), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel mm: tensor map a_tmap: shape[0] = -1 is outside [0, 2^31)");
	K = 65536;
	M = 65536; /* M * K = 2^32 */
	CHECK_EQ_INT(tile__recipe_desc(m, &m->kernels[0], &m->variants[0], &m->recipes[1], args, &t), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel mm: tensor map b_tmap: shape[0] = 4294967296 is outside [0, 2^31)");
	M = INT32_MAX;
	K = INT32_MAX - 55; /* cdiv(K, 64) * 64 = 2^31; K * 2 bytes a multiple of 16 */
	CHECK_EQ_INT(tile__recipe_desc(m, &m->kernels[0], &m->variants[1], &m->recipes[2], args, &t), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel mm: tensor map a_tmap: shape[1] = 2147483648 is outside [0, 2^31)");
	tile_module_destroy(m);
	free(b);
	/* a program that overflows fails as a grid program does */
	{
		static const uint8_t big[] = {1, 0x01, 1, 0x02, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x12};
		recipe_reference(&d);
		d.kernels[0].variants[0].recipes[1].code = big;
		d.kernels[0].variants[0].recipes[1].size = sizeof big;
		n = tb_build(&d, &b);
		CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_SUCCESS);
		if (m) {
			M = 1;
			CHECK_EQ_INT(tile__recipe_desc(m, &m->kernels[0], &m->variants[0], &m->recipes[1], args, &t),
				     TILE_ERROR_INVALID_ARGUMENT); /* 2^62 */
			M = 2;
			CHECK_EQ_INT(tile__recipe_desc(m, &m->kernels[0], &m->variants[0], &m->recipes[1], args, &t), TILE_ERROR_GRID);
			CHECK_STR_CONTAINS(tile_last_error(), "kernel mm: tensor map b_tmap: overflow at byte 12");
			tile_module_destroy(m);
		}
		free(b);
	}
}

static tile_lazy_module lazy;
static tile_module *lazy_seen[16];

static void *lazy_thread(void *arg)
{
	tile_module *m = NULL;
	CHECK_EQ_INT(tile_lazy_get(&lazy, ref_blob, ref_size, &m), TILE_SUCCESS);
	lazy_seen[(size_t)arg] = m;
	return NULL;
}

/* wide(p0: *fp32, p1..p31: i32, p32: *fp32, p33: fp32, p34: u64, batch:
 * i32, a descriptor group (p36: *fp16, p37: i32, p38: i64, p39: its
 * tensor map), hidden scratch): three variants, two with predicates past
 * parameter 31 (a version 6 blob). */
static const char wide_cubin[] = "FAKE cubin sm_80: wide_b1 wide_a8 wide";
static void wide_blob(tb_blob *d)
{
	static const char *names[32] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10",
					"p11", "p12", "p13", "p14", "p15", "p16", "p17", "p18", "p19", "p20", "p21",
					"p22", "p23", "p24", "p25", "p26", "p27", "p28", "p29", "p30", "p31"};
	tb_kernel *k = &d->kernels[0];
	tb_variant *v;
	int i;
	memset(d, 0, sizeof *d);
	d->n_kernels = 1;
	k->name = "wide";
	k->n_params = 41;
	k->params[0] = (tb_param){"p0", 0, 8, 12, 0};
	for (i = 1; i < 32; i++)
		k->params[i] = (tb_param){names[i], 1, 4, 4, 0};
	k->params[32] = (tb_param){"p32", 0, 8, 12, 0};
	k->params[33] = (tb_param){"p33", 3, 4, 12, 0};
	k->params[34] = (tb_param){"p34", 2, 8, 9, 0};
	k->params[35] = (tb_param){"batch", 1, 4, 4, 0};
	k->params[36] = (tb_param){"d_base", 0, 8, 10, 0};
	k->params[37] = (tb_param){"d_shape0", 1, 4, 4, 0};
	k->params[38] = (tb_param){"d_stride0", 1, 8, 5, 0};
	k->params[39] = (tb_param){"d_tmap", 4, 128, 10, 0};
	k->params[40] = (tb_param){"scratch", 0, 8, 2, 1};
	k->n_variants = 3;
	v = &k->variants[0];
	v->symbol = "wide_b1";
	v->num_warps = 4;
	v->div16 = 1;
	v->n_preds = 2;
	v->preds[0] = (tb_pred){32, 16, 0};
	v->preds[1] = (tb_pred){35, 1, 0};
	v = &k->variants[1];
	v->symbol = "wide_a8";
	v->num_warps = 4;
	v->n_preds = 2;
	v->preds[0] = (tb_pred){32, 8, 0};
	v->preds[1] = (tb_pred){34, 4, 0};
	v = &k->variants[2];
	v->symbol = "wide";
	v->num_warps = 4;
	d->n_groups = 1;
	d->n_images = 1;
	d->images[0] = (tb_image){0, 0, 80, 0, wide_cubin, sizeof wide_cubin, 0};
}

/* Predicates past parameter 31: introspection, selection, each rule of
 * the preds array refused with the record named, and the version rules:
 * a version 5 blob (the reference) loads as before, and the same kernel
 * written as version 5 and 6 without preds is the same kernel. */
static void test_high_preds(void)
{
	tb_blob d;
	uint8_t *b, *b5, *b6;
	size_t n, n5, n6;
	tb_layout l;
	tile_module *m = NULL;
	tile_variant_info vi;
	tile_deviceptr p0 = 0x1000, p32 = 0x2000, p36 = 0x3000;
	uint64_t p34 = 4;
	int32_t batch = 1, i32 = 0;
	int64_t i64 = 0;
	float p33 = 0;
	tile_tensordesc desc;
	void *args[40];
	int i;
	wide_blob(&d);
	n = tb_build(&d, &b);
	l = tb_layout_of(b);
	CHECK_EQ_INT(b[4], 6);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_SUCCESS);
	if (m) {
		CHECK_EQ_INT(tile_variant_get_info(m, 0, 0, &vi), TILE_SUCCESS);
		CHECK(vi.pred_div16 == 1 && vi.pred_eq1 == 0 && vi.n_high_preds == 2);
		CHECK_EQ_INT(tile_variant_predicate(m, 0, 0, 0), 16);
		CHECK_EQ_INT(tile_variant_predicate(m, 0, 0, 1), 0);
		CHECK_EQ_INT(tile_variant_predicate(m, 0, 0, 32), 16);
		CHECK_EQ_INT(tile_variant_predicate(m, 0, 0, 35), 1);
		CHECK_EQ_INT(tile_variant_predicate(m, 0, 1, 32), 8);
		CHECK_EQ_INT(tile_variant_predicate(m, 0, 1, 34), 4);
		CHECK_EQ_INT(tile_variant_predicate(m, 0, 2, 35), 0);
		CHECK_EQ_INT(tile_variant_predicate(m, 0, 0, 40), -1); /* hidden */
		CHECK_EQ_INT(tile_variant_predicate(m, 0, 3, 0), -1);
		CHECK_EQ_INT(tile_variant_predicate(m, 1, 0, 0), -1);
		CHECK_EQ_INT(tile_variant_predicate(m, 0, 0, -1), -1);
		for (i = 0; i < 40; i++)
			args[i] = i < 32 ? (void *)&i32 : (void *)&i64;
		args[0] = &p0;
		args[32] = &p32;
		args[33] = &p33;
		args[34] = &p34;
		args[35] = &batch;
		args[36] = &p36;
		args[37] = &i32;
		args[39] = &desc;
		CHECK_EQ_INT(tile__select_variant(m, &m->kernels[0], 0, args), 0);
		batch = 2;
		CHECK_EQ_INT(tile__select_variant(m, &m->kernels[0], 0, args), 1);
		p34 = 6;
		CHECK_EQ_INT(tile__select_variant(m, &m->kernels[0], 0, args), 2);
		p34 = 4;
		p32 = 0x2008;
		batch = 1;
		CHECK_EQ_INT(tile__select_variant(m, &m->kernels[0], 0, args), 1);
		tile_module_destroy(m);
	}
	/* each rule of a pred record */
	EXPECT_RPATCH(l.preds, 3, 4, "pred 0: variant 3 (blob has 3)");
	EXPECT_RPATCH(l.preds + 8 + 4, 32, 2, "pred 1: variant 0, parameter 32 after pred 0's variant 0, parameter 32");
	EXPECT_RPATCH(l.preds + 4, 36, 2, "pred 1: variant 0, parameter 35 after pred 0's variant 0, parameter 36");
	EXPECT_RPATCH(l.preds + 8, 1, 4, "pred 2: variant 1, parameter 32 after pred 1's variant 1, parameter 35");
	EXPECT_RPATCH(l.preds + 4, 31, 2, "pred 0: parameter 31 of kernel 0 (40 visible) is not a visible parameter from 32 on");
	EXPECT_RPATCH(l.preds + 8 + 4, 40, 2, "pred 1: parameter 40 of kernel 0 (40 visible) is not a visible parameter");
	EXPECT_RPATCH(l.preds + 8 + 4, 0xffff, 2, "pred 1: parameter 65535 of kernel 0");
	EXPECT_RPATCH(l.preds + 6, 2, 1, "pred 0: predicate 2 (16, 8, 4: divisible by it; 1: equal to 1)");
	EXPECT_RPATCH(l.preds + 6, 0, 1, "pred 0: predicate 0");
	EXPECT_RPATCH(l.preds + 8 + 4, 33, 2, "pred 1: equal to 1 on parameter 33, which is not an integer");
	EXPECT_RPATCH(l.preds + 4, 33, 2, "pred 0: divisible by 16 on float parameter 33");
	EXPECT_RPATCH(l.preds + 8 + 4, 39, 2, "pred 1: equal to 1 on parameter 39, which is not an integer");
	EXPECT_RPATCH(l.preds + 3 * 8 + 4, 39, 2, "pred 3: divisible by 4 on tensor-map parameter 39");
	EXPECT_RPATCH(l.preds + 7, 1, 1, "pred 0: reserved byte not 0");
	random_mutations(b, n, 32, 5000);
	free(b);
	/* the masks' own rules are untouched; a pred on parameter 32 of a
	 * kernel of 32 visible parameters names one it does not have */
	wide_blob(&d);
	d.kernels[0].n_params = 32;
	d.kernels[0].variants[1].n_preds = 0;
	d.kernels[0].variants[0].n_preds = 1;
	n = tb_build(&d, &b);
	l = tb_layout_of(b);
	EXPECT_RPATCH(l.preds + 7, 0, 1, "pred 0: parameter 32 of kernel 0 (32 visible) is not a visible parameter from 32 on");
	free(b);
	/* the count: one more, or vast */
	wide_blob(&d);
	n = tb_build(&d, &b);
	EXPECT_RPATCH(32 + 48, 5, 4, "metadata: counts describe");
	EXPECT_RPATCH(32 + 48, 0xffffffffu, 4, "metadata: counts describe");
	/* as version 5 the header ends before n_preds: the arrays do not add up */
	EXPECT_RPATCH(4, 5, 2, "metadata: counts describe");
	free(b);
	/* version 5 and 6 of one kernel without preds: both load, one identity */
	wide_blob(&d);
	d.kernels[0].variants[0].n_preds = 0;
	d.kernels[0].variants[1].n_preds = 0;
	n5 = tb_build(&d, &b5);
	d.version = 6;
	n6 = tb_build(&d, &b6);
	CHECK(b5[4] == 5 && b6[4] == 6 && n6 == n5 + 4);
	{
		tile_module *m5 = NULL, *m6 = NULL;
		CHECK_EQ_INT(tile_module_create(b5, n5, &m5), TILE_SUCCESS);
		CHECK_EQ_INT(tile_module_create(b6, n6, &m6), TILE_SUCCESS);
		if (m5 && m6) {
			CHECK(tile_kernel_identity(m5, 0) == tile_kernel_identity(m6, 0));
			CHECK_EQ_INT(tile_variant_get_info(m6, 0, 0, &vi), TILE_SUCCESS);
			CHECK(vi.pred_div16 == 1 && vi.n_high_preds == 0);
		}
		tile_module_destroy(m5);
		tile_module_destroy(m6);
	}
	free(b5);
	free(b6);
}

static void test_lazy(void)
{
	pthread_t t[16];
	size_t i;
	tile_lazy_module bad_lazy;
	tile_module *m = (tile_module *)1;
	for (i = 0; i < 16; i++)
		pthread_create(&t[i], NULL, lazy_thread, (void *)i);
	for (i = 0; i < 16; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 16; i++)
		CHECK(lazy_seen[i] != NULL && lazy_seen[i] == lazy_seen[0]);
	tile_lazy_release(&lazy);
	CHECK(lazy.module == NULL && lazy.state == 0);
	memset(&bad_lazy, 0, sizeof bad_lazy);
	CHECK_EQ_INT(tile_lazy_get(&bad_lazy, ref_blob, ref_size - 1, &m), TILE_ERROR_BAD_BLOB);
	CHECK(m == NULL && bad_lazy.state == 0);
	CHECK_EQ_INT(tile_lazy_get(&bad_lazy, ref_blob, ref_size, &m), TILE_SUCCESS);
	CHECK(m != NULL);
	tile_lazy_release(&bad_lazy);
	tile_lazy_release(&bad_lazy);
}

int main(void)
{
	tb_blob d;
	reference(&d);
	ref_size = tb_build(&d, &ref_blob);
	ref_layout = tb_layout_of(ref_blob);
	test_reference();
	test_header_fields();
	test_record_fields();
	test_kernel_names();
	test_high_preds();
	test_grid_validation();
	test_grid_arithmetic();
	test_grid_floats();
	test_launch_checks();
	test_variant_selection();
	test_no_variant();
	test_recipes_valid();
	test_recipe_fields();
	test_recipe_desc();
	test_truncation_and_flips();
	test_random_mutations();
	test_lazy();
	free(ref_blob);
	return check_report("test_loader_blob");
}
