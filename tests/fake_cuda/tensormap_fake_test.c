/* tensormap_fake_test.c - TMA tensor maps in tile.h against the fake driver.
 *
 * Built and run by tests/test_loader_fake.sh. A hand-built blob holds
 * tma(a: a 2-D fp16 descriptor with its map, n: i32, a hidden scratch
 * pointer) and tma3(b: a 3-D fp32 descriptor with its map), with a cubin
 * for sm_90a that reads maps (image flag bit 1) and one for sm_80 that does
 * not. Checked, mode tensormap: the blob rules for parameter kind 4 and
 * image flag bit 1; the arguments the loader gives cuTensorMapEncodeTiled
 * (the fake records them) for a 128-byte inner row (swizzle 128B), a
 * 64-byte and a 32-byte one, fp32 in 3-D, and the encoding rule itself
 * (tile__tensormap_plan) over the dtypes; that the launch passes the map,
 * 64-byte aligned, in place of the descriptor pointer, without writing the
 * caller's argument array; 128 zero bytes and no encode on the sm_80
 * device, even for a descriptor no map could describe; precise refusals
 * where the image reads maps (a shape of 0, a row of no swizzle width, a
 * box over 256, a wrong rank, a failing encode) and none for an empty grid;
 * the per-context cache (a hit neither encodes nor allocates; a new base,
 * shape, stride or block shape encodes again); and, under ThreadSanitizer
 * too, threads launching two descriptors in turn on one context, whose
 * maps the fake kernel checks against its base pointer (a torn map would
 * show). Hidden maps (format 4): hmap(a: *fp16, M: i64, K: i32, a 2-D
 * fp32 descriptor c with its map, hidden flat_tmap and a_tmap) whose
 * variant for K % 16 == 0 builds flat_tmap as [M * K] and a_tmap as
 * [M, K] (strides [K, 1], block [128, 64]) of a, and whose other variant
 * has a recipe for a_tmap only: the encode calls of both hidden maps and of
 * the descriptor's, in one launch; the cache (no encode for the same
 * arguments, a new one for another K); zeros for the map a variant has no
 * recipe for and, with no encode, on the sm_80 image; refusals naming the
 * kernel and the map (a misaligned base, a stride of no 16-byte multiple, a
 * shape of 2^31 or of 0, a program that overflows), with no encode; and
 * threads launching it too; honly, whose only map is hidden, and whose
 * variant for K % 16 != 0 has no recipe. Mode tensormap_old, on a driver without
 * cuTensorMapEncodeTiled: TILE_ERROR_DRIVER_SYMBOL where the image reads
 * maps and a map is to be encoded, zeros where not. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

static const char *fake_library(void)
{
	const char *p = getenv("TILE_FAKE_CUDA");
	return p ? p : "libfakecuda.so";
}

static int allocations;

static void *counting_malloc(size_t n)
{
	__atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
	return malloc(n);
}

#define TILE_MALLOC(n) counting_malloc(n)
#define TILE_LIBCUDA_NAME fake_library()
#define TILE_IMPLEMENTATION
#include "tile.h"

#include "check.h"
#include "fake_cuda/blob_builder.h"
#include "fake_cuda/fake_cuda.h"

static fake_cuda_calls_fn fake_calls;
static fake_cuda_fail_fn fake_fail;
static fake_cuda_set_devices_fn fake_set_devices;
static fake_cuda_ctx_create_fn fake_ctx_create;
static fake_cuda_param_sizes_fn fake_param_sizes;
static fake_cuda_last_launch_fn fake_last_launch;
static fake_cuda_last_tensormap_fn fake_last_tensormap;
static fake_cuda_recent_tensormap_fn fake_recent_tensormap;
static fake_cuda_map_mismatches_fn fake_map_mismatches;
static int (*drv_ctx_set_current)(void *);
static int (*drv_stream_create)(void **, unsigned int);

static void *lookup(void *lib, const char *name)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "fake driver lacks %s\n", name);
		exit(1);
	}
	return p;
}

#define LOOKUP(var, name) do { void *p_ = lookup(lib, name); memcpy(&var, &p_, sizeof p_); } while (0)

static void open_fake(void)
{
	void *lib = dlopen(fake_library(), RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "cannot open %s: %s\n", fake_library(), dlerror());
		exit(1);
	}
	LOOKUP(fake_calls, "fake_cuda_calls");
	LOOKUP(fake_fail, "fake_cuda_fail");
	LOOKUP(fake_set_devices, "fake_cuda_set_devices");
	LOOKUP(fake_ctx_create, "fake_cuda_ctx_create");
	LOOKUP(fake_param_sizes, "fake_cuda_param_sizes");
	LOOKUP(fake_last_launch, "fake_cuda_last_launch");
	LOOKUP(fake_last_tensormap, "fake_cuda_last_tensormap");
	LOOKUP(fake_recent_tensormap, "fake_cuda_recent_tensormap");
	LOOKUP(fake_map_mismatches, "fake_cuda_map_mismatches");
	LOOKUP(drv_ctx_set_current, "cuCtxSetCurrent");
	LOOKUP(drv_stream_create, "cuStreamCreate");
}

static const char cubin90a[] = "FAKE cubin sm_90a: tma_k tma3_k hmap_k hmap_nr_k honly_k honly_nr_k";
static const char cubin80[] = "FAKE cubin sm_80: tma_k tma3_k hmap_k hmap_nr_k honly_k honly_nr_k";

enum { FP16 = 10, FP32 = 12 };

/* A descriptor group of `rank` named NAME_base..., then its map. */
static void add_desc(tb_kernel *k, const char *names[], int rank, int dtype)
{
	tb_param *p = &k->params[k->n_params];
	int i;
	p[0] = (tb_param){names[0], 0, 8, dtype, 0};
	for (i = 1; i <= rank; i++)
		p[i] = (tb_param){names[i], 1, 4, 4, 0};
	for (; i <= 2 * rank; i++)
		p[i] = (tb_param){names[i], 1, 8, 5, 0};
	p[i] = (tb_param){names[i], 4, 128, dtype, 0};
	k->n_params += i + 1;
}

static const char *a_names[] = {"a_base", "a_shape0", "a_shape1", "a_stride0", "a_stride1", "a_tmap"};
static const char *b_names[] = {"b_base", "b_shape0", "b_shape1", "b_shape2", "b_stride0", "b_stride1", "b_stride2", "b_tmap"};
static const char *c_names[] = {"c_base", "c_shape0", "c_shape1", "c_stride0", "c_stride1", "c_tmap"};

/* hmap's recipe programs: M * K; M, K, K */
static const uint8_t prog_flat[] = {1, 0x01, 1, 0x01, 2, 0x12};
static const uint8_t prog_mk[] = {3, 0x01, 1, 0x01, 2, 0x01, 2};

static void make_desc(tb_blob *d)
{
	tb_kernel *k;
	memset(d, 0, sizeof *d);
	d->n_kernels = 4;
	k = &d->kernels[0];
	k->name = "tma";
	add_desc(k, a_names, 2, FP16);
	k->params[k->n_params++] = (tb_param){"n", 1, 4, 4, 0};
	k->params[k->n_params++] = (tb_param){"scratch", 0, 8, 2, 1};
	k->n_variants = 1;
	k->variants[0].symbol = "tma_k";
	k->variants[0].num_warps = 4;
	k->variants[0].div16 = 1; /* a_base */
	k = &d->kernels[1];
	k->name = "tma3";
	add_desc(k, b_names, 3, FP32);
	k->n_variants = 1;
	k->variants[0].symbol = "tma3_k";
	k->variants[0].num_warps = 4;
	k = &d->kernels[2];
	k->name = "hmap";
	k->params[k->n_params++] = (tb_param){"a", 0, 8, FP16, 0};
	k->params[k->n_params++] = (tb_param){"M", 1, 8, 5, 0};
	k->params[k->n_params++] = (tb_param){"K", 1, 4, 4, 0};
	add_desc(k, c_names, 2, FP32);
	k->params[k->n_params++] = (tb_param){"flat_tmap", 4, 128, FP16, 1};
	k->params[k->n_params++] = (tb_param){"a_tmap", 4, 128, FP16, 1};
	k->n_variants = 2;
	k->variants[0].symbol = "hmap_k";
	k->variants[0].num_warps = 4;
	k->variants[0].div16 = 1u << 2; /* K */
	k->variants[0].n_recipes = 2;
	k->variants[0].recipes[0] = (tb_recipe){9, 0, 1, prog_flat, sizeof prog_flat, {64, 0, 0, 0, 0}, 0};
	k->variants[0].recipes[1] = (tb_recipe){10, 0, 2, prog_mk, sizeof prog_mk, {128, 64, 0, 0, 0}, 0};
	k->variants[1].symbol = "hmap_nr_k";
	k->variants[1].num_warps = 4;
	k->variants[1].n_recipes = 1;
	k->variants[1].recipes[0] = (tb_recipe){10, 0, 2, prog_mk, sizeof prog_mk, {128, 64, 0, 0, 0}, 0};
	k = &d->kernels[3];
	k->name = "honly";
	k->params[k->n_params++] = (tb_param){"a", 0, 8, FP16, 0};
	k->params[k->n_params++] = (tb_param){"M", 1, 8, 5, 0};
	k->params[k->n_params++] = (tb_param){"K", 1, 4, 4, 0};
	k->params[k->n_params++] = (tb_param){"a_tmap", 4, 128, FP16, 1};
	k->n_variants = 2;
	k->variants[0].symbol = "honly_k";
	k->variants[0].num_warps = 4;
	k->variants[0].div16 = 1u << 2; /* K */
	k->variants[0].n_recipes = 1;
	k->variants[0].recipes[0] = (tb_recipe){3, 0, 2, prog_mk, sizeof prog_mk, {64, 64, 0, 0, 0}, 0};
	k->variants[1].symbol = "honly_nr_k";
	k->variants[1].num_warps = 4;
	d->n_groups = 1;
	d->n_images = 2;
	d->images[0] = (tb_image){0, 0, 90, 3, cubin90a, sizeof cubin90a, 1};
	d->images[1] = (tb_image){0, 0, 80, 0, cubin80, sizeof cubin80, 0};
}

static uint8_t *blob;
static size_t blob_size;

static tile_module *create(void)
{
	tile_module *m = NULL;
	tb_blob d;
	make_desc(&d);
	free(blob);
	blob_size = tb_build(&d, &blob);
	CHECK_EQ_INT(tile_module_create(blob, blob_size, &m), TILE_SUCCESS);
	return m;
}

/* tma's arguments: the descriptor, its fields as the kernel's scalars, n. */
typedef struct tma_args {
	tile_tensordesc d;
	int32_t shape[2], n;
	void *args[7];
} tma_args;

static void tma_init(tma_args *a, tile_deviceptr base, int64_t rows, int64_t cols, int64_t stride0, int32_t block0,
		     int32_t block1)
{
	memset(a, 0, sizeof *a);
	a->d.base = base;
	a->d.rank = 2;
	a->d.shape[0] = rows;
	a->d.shape[1] = cols;
	a->d.strides[0] = stride0;
	a->d.strides[1] = 1;
	a->d.block_shape[0] = block0;
	a->d.block_shape[1] = block1;
	a->shape[0] = (int32_t)rows;
	a->shape[1] = (int32_t)cols;
	a->n = 7;
	a->args[0] = &a->d.base;
	a->args[1] = &a->shape[0];
	a->args[2] = &a->shape[1];
	a->args[3] = &a->d.strides[0];
	a->args[4] = &a->d.strides[1];
	a->args[5] = &a->d;
	a->args[6] = &a->n;
}

static const uint32_t one_block[3] = {1, 1, 1};

static tile_status tma_launch(tile_module *m, tma_args *a)
{
	return tile_launch(m, 0, one_block, NULL, a->args, 7);
}

static uint64_t map_word(const fake_launch *l, int map, int word)
{
	uint64_t w;
	memcpy(&w, l->maps[map] + 8 * word, 8);
	return w;
}

static void test_blob_rules(void)
{
	tb_blob d;
	uint8_t *b;
	size_t n;
	tile_module *m = NULL;
	tile_param_info p;
	tile_image_info ii;
	struct {
		int param, field, value; /* field: 0 kind, 1 size, 2 dtype, 3 flags */
		const char *msg;
	} bad[] = {
		{5, 1, 127, "param 5: size 127 invalid for kind 4"},
		{5, 2, FP32, "kernel 0: tensor map parameter 5 does not follow a descriptor group"},
		{5, 3, 2, "param 5: flags 0x2 on a tensor map (0: a descriptor's, 1: hidden)"},
		{5, 3, 1, "kernel 0: parameter 6 is visible after a hidden one"}, /* a hidden map among the visible */
		{0, 0, 1, "kernel 0: tensor map parameter 5 does not follow a descriptor group"},
		{2, 1, 8, "kernel 0: tensor map parameter 5 does not follow a descriptor group"},
		{3, 1, 4, "kernel 0: tensor map parameter 5 does not follow a descriptor group"},
		{6, 0, 4, "param 6: size 4 invalid for kind 4"},
	};
	size_t i;
	m = create();
	if (!m)
		return;
	CHECK_EQ_INT(tile_param_get_info(m, 0, 5, &p), TILE_SUCCESS);
	CHECK(p.kind == 4 && p.size == 128 && p.dtype == FP16 && !p.hidden && strcmp(p.name, "a_tmap") == 0);
	CHECK_EQ_INT(tile_image_get_info(m, 0, &ii), TILE_SUCCESS);
	CHECK_EQ_INT(ii.flags, 3);
	CHECK_EQ_INT(m->kernels[0].map_mask, 1u << 5);
	CHECK_EQ_INT(m->kernels[1].map_mask, 1u << 7);
	CHECK_EQ_INT(m->params[m->kernels[1].first_param + 7].desc_rank, 3);
	CHECK_EQ_INT(m->kernels[2].map_mask, (1u << 8) | (1u << 9) | (1u << 10));
	CHECK_EQ_INT(m->kernels[2].hidden_maps, (1u << 9) | (1u << 10));
	CHECK_EQ_INT(m->n_maps, 6);
	tile_module_destroy(m);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		tb_param *q;
		make_desc(&d);
		q = &d.kernels[0].params[bad[i].param];
		if (bad[i].field == 0)
			q->kind = bad[i].value;
		else if (bad[i].field == 1)
			q->size = bad[i].value;
		else if (bad[i].field == 2)
			q->dtype = bad[i].value;
		else
			q->hidden = bad[i].value;
		n = tb_build(&d, &b);
		CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_ERROR_BAD_BLOB);
		CHECK_STR_CONTAINS(tile_last_error(), bad[i].msg);
		free(b);
	}
	/* a map as the first parameter, and rank 6 (six int64 before it) */
	make_desc(&d);
	d.kernels[1].params[0] = (tb_param){"m", 4, 128, FP32, 0};
	n = tb_build(&d, &b);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_ERROR_BAD_BLOB);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel 1: tensor map parameter 0 does not follow");
	free(b);
	make_desc(&d);
	d.kernels[1].n_params = 0;
	{
		static const char *six[] = {"p", "s0", "s1", "s2", "s3", "s4", "s5", "t0", "t1", "t2", "t3", "t4", "t5", "m"};
		int j;
		d.kernels[1].params[0] = (tb_param){six[0], 0, 8, FP32, 0};
		for (j = 1; j <= 6; j++)
			d.kernels[1].params[j] = (tb_param){six[j], 1, 4, 4, 0};
		for (j = 7; j <= 12; j++)
			d.kernels[1].params[j] = (tb_param){six[j], 1, 8, 5, 0};
		d.kernels[1].params[13] = (tb_param){six[13], 4, 128, FP32, 0};
		d.kernels[1].n_params = 14;
	}
	n = tb_build(&d, &b);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_ERROR_BAD_BLOB);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel 1: tensor map parameter 13 does not follow");
	free(b);
	/* no :16 predicate on a map; image flag bits past 1 */
	make_desc(&d);
	d.kernels[0].variants[0].div16 = 1u << 5;
	n = tb_build(&d, &b);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_ERROR_BAD_BLOB);
	CHECK_STR_CONTAINS(tile_last_error(), "pred_div16 on tensor-map parameter 5");
	free(b);
	make_desc(&d);
	d.images[0].flags = 11;
	n = tb_build(&d, &b);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_ERROR_BAD_BLOB);
	CHECK_STR_CONTAINS(tile_last_error(), "flags 0xb (only bits 0 to 2 defined)");
	free(b);
}

/* The rule by itself, over dtypes and shapes. */
static void test_plan(void)
{
	static const struct {
		int dtype, block1, data_type, swizzle, box0;
	} cases[] = {
		{2, 128, 0, 3, 128},  /* i8 */
		{6, 64, 0, 2, 64},    /* u8 */
		{14, 32, 0, 1, 32},   /* fp8e4nv */
		{15, 256, 0, 3, 128}, /* fp8e5: two boxes a row */
		{3, 64, 1, 3, 64},    /* i16 */
		{7, 16, 1, 1, 16},    /* u16 */
		{4, 32, 3, 3, 32},    /* i32 */
		{8, 16, 2, 2, 16},    /* u32 */
		{5, 16, 5, 3, 16},    /* i64 */
		{9, 8, 4, 2, 8},      /* u64 */
		{10, 64, 6, 3, 64},   /* fp16 */
		{11, 32, 9, 2, 32},   /* bf16 */
		{12, 8, 7, 1, 8},     /* fp32 */
		{13, 4, 8, 1, 4},     /* fp64 */
	};
	tile_tensordesc d;
	tile__tensormap_args p;
	size_t i;
	memset(&d, 0, sizeof d);
	d.base = 0x200000;
	d.rank = 2;
	d.shape[0] = 300;
	d.shape[1] = 70;
	d.strides[0] = 80;
	d.strides[1] = 1;
	d.block_shape[0] = 16;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		d.block_shape[1] = cases[i].block1;
		CHECK_EQ_INT(tile__tensormap_plan(&d, cases[i].dtype, 2, "k", "m", &p), TILE_SUCCESS);
		CHECK_EQ_INT(p.data_type, cases[i].data_type);
		CHECK_EQ_INT(p.swizzle, cases[i].swizzle);
		CHECK_EQ_INT(p.box[0], cases[i].box0);
		CHECK(p.rank == 2 && p.box[1] == 16 && p.dims[0] == 70 && p.dims[1] == 300 && p.address == 0x200000);
	}
	d.block_shape[1] = 64;
	CHECK_EQ_INT(tile__tensormap_plan(&d, 13, 2, "k", "m", &p), TILE_SUCCESS); /* fp64: 512 bytes a row */
	CHECK(p.strides[0] == 640 && p.box[0] == 16 && p.swizzle == 3);
	CHECK_EQ_INT(tile__tensormap_plan(&d, 1, 2, "k", "m", &p), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel k: tensor map m: dtype 1 has no TMA data type");
	d.block_shape[1] = 8;
	CHECK_EQ_INT(tile__tensormap_plan(&d, 10, 2, "k", "m", &p), TILE_ERROR_INVALID_ARGUMENT); /* 16 bytes */
	CHECK_STR_CONTAINS(tile_last_error(), "block_shape[1] = 8 elements of 2 bytes: a TMA row needs 32, 64 or a multiple of 128");
	d.block_shape[1] = 96;
	CHECK_EQ_INT(tile__tensormap_plan(&d, 10, 2, "k", "m", &p), TILE_ERROR_INVALID_ARGUMENT); /* 192 bytes */
	d.block_shape[1] = 64;
	d.block_shape[0] = 257;
	CHECK_EQ_INT(tile__tensormap_plan(&d, 10, 2, "k", "m", &p), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "block_shape[0] = 257; a TMA box holds at most 256");
	d.block_shape[0] = 256;
	CHECK_EQ_INT(tile__tensormap_plan(&d, 10, 2, "k", "m", &p), TILE_SUCCESS);
	d.block_shape[0] = 0;
	CHECK_EQ_INT(tile__tensormap_plan(&d, 10, 2, "k", "m", &p), TILE_ERROR_INVALID_ARGUMENT);
	d.block_shape[0] = 16;
	d.shape[1] = 0;
	CHECK_EQ_INT(tile__tensormap_plan(&d, 10, 2, "k", "m", &p), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "shape[1] = 0; a TMA dimension holds 1 to 2^32 elements");
	d.shape[1] = 70;
	d.strides[0] = -80;
	CHECK_EQ_INT(tile__tensormap_plan(&d, 10, 2, "k", "m", &p), TILE_ERROR_INVALID_ARGUMENT);
	d.strides[0] = 80;
	CHECK_EQ_INT(tile__tensormap_plan(&d, 10, 3, "k", "m", &p), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "the descriptor has rank 2, the kernel takes 3");
}

static void test_encode(tile_module *m, void *ctx90)
{
	static const int sizes[8] = {8, 4, 4, 8, 8, 128, 4, 8};
	static const int sizes3[8] = {8, 4, 4, 4, 8, 8, 8, 128};
	tma_args a;
	void *saved[7];
	fake_launch l;
	fake_tensormap t;
	int encodes;
	drv_ctx_set_current(ctx90);
	fake_param_sizes(8, sizes);
	/* fp16, block 128 x 64: 128-byte rows */
	tma_init(&a, 0x100000, 1000, 512, 512, 128, 64);
	memcpy(saved, a.args, sizeof saved);
	CHECK_EQ_INT(tma_launch(m, &a), TILE_SUCCESS);
	CHECK(memcmp(saved, a.args, sizeof saved) == 0);
	fake_last_tensormap(&t);
	CHECK_EQ_INT(t.data_type, 6);
	CHECK_EQ_INT(t.rank, 2);
	CHECK(t.address == 0x100000 && t.dims[0] == 512 && t.dims[1] == 1000 && t.strides[0] == 1024);
	CHECK(t.box[0] == 64 && t.box[1] == 128 && t.element_strides[0] == 1 && t.element_strides[1] == 1);
	CHECK(t.interleave == 0 && t.swizzle == 3 && t.l2_promotion == 2 && t.oob_fill == 0 && t.map_misalign == 0);
	fake_last_launch(&l);
	CHECK(strcmp(l.symbol, "tma_k") == 0 && l.n_maps == 1 && l.map_misalign[0] == 0);
	CHECK((map_word(&l, 0, 0) & ~0xffffffffull) == FAKE_MAP_MAGIC && map_word(&l, 0, 1) == 0x100000);
	CHECK(l.params[0] == 0x100000 && l.params[1] == 1000 && l.params[2] == 512 && l.params[3] == 512 && l.params[4] == 1);
	CHECK(l.params[6] == 7 && l.params[7] == 0);
	encodes = fake_calls("cuTensorMapEncodeTiled");
	/* the same descriptor: the cached map, no encode, no allocation */
	allocations = 0;
	CHECK_EQ_INT(tma_launch(m, &a), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes);
	CHECK_EQ_INT(allocations, 0);
	{
		fake_launch l2;
		fake_last_launch(&l2);
		CHECK(memcmp(l2.maps[0], l.maps[0], 128) == 0 && l2.map_misalign[0] == 0);
	}
	/* a new base, shape, stride or block shape: encoded again */
	a.d.base = 0x180000;
	CHECK_EQ_INT(tma_launch(m, &a), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), ++encodes);
	fake_last_launch(&l);
	CHECK(map_word(&l, 0, 1) == 0x180000);
	a.d.shape[0] = 999;
	CHECK_EQ_INT(tma_launch(m, &a), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), ++encodes);
	fake_last_tensormap(&t);
	CHECK(t.dims[1] == 999);
	a.d.strides[0] = 1024;
	CHECK_EQ_INT(tma_launch(m, &a), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), ++encodes);
	fake_last_tensormap(&t);
	CHECK(t.strides[0] == 2048);
	CHECK_EQ_INT(tma_launch(m, &a), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes);
	/* fp16, block 64 x 32: 64-byte rows */
	tma_init(&a, 0x100000, 1000, 512, 512, 64, 32);
	CHECK_EQ_INT(tma_launch(m, &a), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), ++encodes);
	fake_last_tensormap(&t);
	CHECK(t.swizzle == 2 && t.box[0] == 32 && t.box[1] == 64);
	/* fp16, block 16 x 16: 32-byte rows */
	tma_init(&a, 0x100000, 1000, 512, 512, 16, 16);
	CHECK_EQ_INT(tma_launch(m, &a), TILE_SUCCESS);
	fake_last_tensormap(&t);
	CHECK(t.swizzle == 1 && t.box[0] == 16 && t.box[1] == 16);
	/* fp16, block 64 x 256: 512-byte rows, read 128 bytes a box */
	tma_init(&a, 0x100000, 1000, 512, 512, 64, 256);
	CHECK_EQ_INT(tma_launch(m, &a), TILE_SUCCESS);
	fake_last_tensormap(&t);
	CHECK(t.swizzle == 3 && t.box[0] == 64 && t.box[1] == 64);
	/* fp32 in 3-D, block 2 x 16 x 32 */
	{
		tile_tensordesc b;
		int32_t shape[3] = {4, 100, 256};
		void *args[8];
		memset(&b, 0, sizeof b);
		b.base = 0x300000;
		b.rank = 3;
		b.shape[0] = 4, b.shape[1] = 100, b.shape[2] = 256;
		b.strides[0] = 25600, b.strides[1] = 256, b.strides[2] = 1;
		b.block_shape[0] = 2, b.block_shape[1] = 16, b.block_shape[2] = 32;
		args[0] = &b.base;
		args[1] = &shape[0], args[2] = &shape[1], args[3] = &shape[2];
		args[4] = &b.strides[0], args[5] = &b.strides[1], args[6] = &b.strides[2];
		args[7] = &b;
		fake_param_sizes(8, sizes3);
		CHECK_EQ_INT(tile_launch(m, 1, one_block, NULL, args, 8), TILE_SUCCESS);
		CHECK(args[7] == (void *)&b);
		fake_last_tensormap(&t);
		CHECK(t.data_type == 7 && t.rank == 3 && t.swizzle == 3 && t.address == 0x300000);
		CHECK(t.dims[0] == 256 && t.dims[1] == 100 && t.dims[2] == 4);
		CHECK(t.strides[0] == 1024 && t.strides[1] == 102400);
		CHECK(t.box[0] == 32 && t.box[1] == 16 && t.box[2] == 2);
		CHECK(t.element_strides[0] == 1 && t.element_strides[1] == 1 && t.element_strides[2] == 1);
		fake_last_launch(&l);
		CHECK(strcmp(l.symbol, "tma3_k") == 0 && l.n_maps == 1 && map_word(&l, 0, 1) == 0x300000);
		CHECK(l.params[0] == 0x300000 && l.params[3] == 256 && l.params[6] == 1);
	}
	fake_param_sizes(8, sizes);
}

static void test_refusals(tile_module *m, void *ctx90)
{
	static const uint32_t empty[3] = {0, 1, 1};
	tma_args a;
	int encodes;
	drv_ctx_set_current(ctx90);
	encodes = fake_calls("cuTensorMapEncodeTiled");
	tma_init(&a, 0x100000, 0, 512, 512, 128, 64);
	CHECK_EQ_INT(tma_launch(m, &a), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel tma: tensor map a_tmap: shape[0] = 0");
	/* an empty grid encodes nothing */
	CHECK_EQ_INT(tile_launch(m, 0, empty, NULL, a.args, 7), TILE_SUCCESS);
	tma_init(&a, 0x100000, 1000, 512, 512, 128, 24);
	CHECK_EQ_INT(tma_launch(m, &a), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel tma: tensor map a_tmap: block_shape[1] = 24 elements of 2 bytes");
	tma_init(&a, 0x100000, 1000, 512, 512, 512, 64);
	CHECK_EQ_INT(tma_launch(m, &a), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "block_shape[0] = 512; a TMA box holds at most 256");
	tma_init(&a, 0x100000, 1000, 512, 512, 128, 64);
	a.d.rank = 3;
	CHECK_EQ_INT(tma_launch(m, &a), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "the descriptor has rank 3, the kernel takes 2");
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes);
	/* the driver refuses: 100 fp16 elements a row are not 16-byte units */
	tma_init(&a, 0x100000, 1000, 100, 100, 128, 64);
	CHECK_EQ_INT(tma_launch(m, &a), TILE_ERROR_CUDA);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel tma: cuTensorMapEncodeTiled (tensor map a_tmap): CUDA_ERROR_INVALID_VALUE (1)");
	/* an injected failure, on a descriptor not cached */
	tma_init(&a, 0x140000, 1000, 512, 512, 128, 64);
	fake_fail("cuTensorMapEncodeTiled", 2);
	CHECK_EQ_INT(tma_launch(m, &a), TILE_ERROR_CUDA);
	CHECK_STR_CONTAINS(tile_last_error(), "cuTensorMapEncodeTiled (tensor map a_tmap): CUDA_ERROR_OUT_OF_MEMORY");
	fake_fail("cuTensorMapEncodeTiled", 0);
	CHECK_EQ_INT(tma_launch(m, &a), TILE_SUCCESS);
}

/* On the sm_80 device the image does not read maps: zeros, whatever the
 * descriptor. */
static void test_zeros(tile_module *m, void *ctx80)
{
	static const uint8_t zero[128] = {0};
	tma_args a;
	fake_launch l;
	int encodes = fake_calls("cuTensorMapEncodeTiled");
	drv_ctx_set_current(ctx80);
	tma_init(&a, 0x100000, 0, 512, 512, 128, 24);
	CHECK_EQ_INT(tma_launch(m, &a), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(strcmp(l.image, cubin80) == 0 && l.n_maps == 1 && memcmp(l.maps[0], zero, 128) == 0);
	CHECK(l.params[0] == 0x100000 && l.params[6] == 7);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes);
}

/* hmap's arguments: a, M, K, the descriptor c and its fields. */
typedef struct hmap_args {
	tile_deviceptr a;
	int64_t M;
	int32_t K;
	tile_tensordesc c;
	int32_t c_shape[2];
	void *args[9];
} hmap_args;

static void hmap_init(hmap_args *h, tile_deviceptr a, int64_t M, int32_t K)
{
	memset(h, 0, sizeof *h);
	h->a = a;
	h->M = M;
	h->K = K;
	h->c.base = 0x500000;
	h->c.rank = 2;
	h->c.shape[0] = 64, h->c.shape[1] = 32;
	h->c.strides[0] = 32, h->c.strides[1] = 1;
	h->c.block_shape[0] = 16, h->c.block_shape[1] = 32;
	h->c_shape[0] = 64, h->c_shape[1] = 32;
	h->args[0] = &h->a;
	h->args[1] = &h->M;
	h->args[2] = &h->K;
	h->args[3] = &h->c.base;
	h->args[4] = &h->c_shape[0];
	h->args[5] = &h->c_shape[1];
	h->args[6] = &h->c.strides[0];
	h->args[7] = &h->c.strides[1];
	h->args[8] = &h->c;
}

static const int hmap_sizes[11] = {8, 8, 4, 8, 4, 4, 8, 8, 128, 128, 128};
static const int tma_sizes[8] = {8, 4, 4, 8, 8, 128, 4, 8};

static tile_status hmap_launch(tile_module *m, hmap_args *h)
{
	return tile_launch(m, 2, one_block, NULL, h->args, 9);
}

/* Hidden maps built from the variant's recipes, with a descriptor's map. */
static void test_hidden(tile_module *m, void *ctx90)
{
	static const uint8_t zero[128] = {0};
	hmap_args h;
	void *saved[9];
	fake_launch l, l2;
	fake_tensormap t;
	int encodes;
	drv_ctx_set_current(ctx90);
	fake_param_sizes(11, hmap_sizes);
	hmap_init(&h, 0x600000, 1000, 512);
	memcpy(saved, h.args, sizeof saved);
	encodes = fake_calls("cuTensorMapEncodeTiled");
	CHECK_EQ_INT(hmap_launch(m, &h), TILE_SUCCESS);
	CHECK(memcmp(saved, h.args, sizeof saved) == 0);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes + 3);
	encodes += 3;
	/* the descriptor's map first, then the hidden ones by parameter */
	CHECK(fake_recent_tensormap(2, &t));
	CHECK(t.data_type == 7 && t.rank == 2 && t.address == 0x500000 && t.dims[0] == 32 && t.dims[1] == 64);
	CHECK(t.strides[0] == 128 && t.box[0] == 32 && t.box[1] == 16 && t.swizzle == 3);
	/* flat_tmap: [M * K] of a, block [64] */
	CHECK(fake_recent_tensormap(1, &t));
	CHECK_EQ_INT(t.data_type, 6);
	CHECK_EQ_INT(t.rank, 1);
	CHECK(t.address == 0x600000 && t.dims[0] == 512000 && t.box[0] == 64 && t.element_strides[0] == 1);
	CHECK(t.swizzle == 3 && t.interleave == 0 && t.l2_promotion == 2 && t.oob_fill == 0 && t.map_misalign == 0);
	/* a_tmap: [M, K], strides [K, 1], block [128, 64]: innermost first */
	CHECK(fake_recent_tensormap(0, &t));
	CHECK_EQ_INT(t.data_type, 6);
	CHECK_EQ_INT(t.rank, 2);
	CHECK(t.address == 0x600000 && t.dims[0] == 512 && t.dims[1] == 1000 && t.strides[0] == 1024);
	CHECK(t.box[0] == 64 && t.box[1] == 128 && t.element_strides[0] == 1 && t.element_strides[1] == 1);
	CHECK(t.swizzle == 3 && t.interleave == 0 && t.l2_promotion == 2 && t.oob_fill == 0 && t.map_misalign == 0);
	fake_last_launch(&l);
	CHECK(strcmp(l.symbol, "hmap_k") == 0 && l.n_maps == 3);
	CHECK(l.map_misalign[0] == 0 && l.map_misalign[1] == 0 && l.map_misalign[2] == 0);
	CHECK(map_word(&l, 0, 1) == 0x500000 && map_word(&l, 1, 1) == 0x600000 && map_word(&l, 2, 1) == 0x600000);
	CHECK((map_word(&l, 1, 0) & ~0xffffffffull) == FAKE_MAP_MAGIC && (map_word(&l, 2, 0) & ~0xffffffffull) == FAKE_MAP_MAGIC);
	CHECK(map_word(&l, 1, 0) != map_word(&l, 2, 0));
	CHECK(l.params[0] == 0x600000 && l.params[1] == 1000 && l.params[2] == 512 && l.params[3] == 0x500000);
	/* the same arguments: every map cached, nothing allocated */
	allocations = 0;
	CHECK_EQ_INT(hmap_launch(m, &h), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes);
	CHECK_EQ_INT(allocations, 0);
	fake_last_launch(&l2);
	CHECK(memcmp(l2.maps, l.maps, sizeof l.maps) == 0);
	/* another K: both hidden maps again, the descriptor's cached */
	h.K = 256;
	CHECK_EQ_INT(hmap_launch(m, &h), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes + 2);
	encodes += 2;
	fake_last_tensormap(&t);
	CHECK(t.dims[0] == 256 && t.dims[1] == 1000 && t.strides[0] == 512);
	CHECK(fake_recent_tensormap(1, &t) && t.rank == 1 && t.dims[0] == 256000);
	/* another base: encoded again */
	h.a = 0x700000;
	CHECK_EQ_INT(hmap_launch(m, &h), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes + 2);
	encodes += 2;
	fake_last_launch(&l);
	CHECK(map_word(&l, 1, 1) == 0x700000 && map_word(&l, 2, 1) == 0x700000);
	/* K % 16 != 0: the variant with no recipe for flat_tmap, which gets zeros */
	hmap_init(&h, 0x600000, 1000, 8);
	CHECK_EQ_INT(hmap_launch(m, &h), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes + 1);
	encodes += 1;
	fake_last_tensormap(&t);
	CHECK(t.rank == 2 && t.dims[0] == 8 && t.dims[1] == 1000 && t.strides[0] == 16 && t.box[0] == 64 && t.box[1] == 128);
	fake_last_launch(&l);
	CHECK(strcmp(l.symbol, "hmap_nr_k") == 0 && l.n_maps == 3);
	CHECK(memcmp(l.maps[1], zero, 128) == 0 && map_word(&l, 2, 1) == 0x600000 && map_word(&l, 0, 1) == 0x500000);
	/* refusals, naming the kernel and the map; nothing encoded */
	hmap_init(&h, 0x600008, 1000, 512);
	CHECK_EQ_INT(hmap_launch(m, &h), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel hmap: tensor map flat_tmap: base 0x600008 is not 16-byte aligned");
	hmap_init(&h, 0x600000, 1000, 100); /* 200 bytes a row */
	CHECK_EQ_INT(hmap_launch(m, &h), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(),
			   "kernel hmap: tensor map a_tmap: strides[0] = 100 elements of 2 bytes is not a multiple of 16 bytes");
	hmap_init(&h, 0x600000, INT64_C(1) << 31, 8);
	CHECK_EQ_INT(hmap_launch(m, &h), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel hmap: tensor map a_tmap: shape[0] = 2147483648 is outside [0, 2^31)");
	hmap_init(&h, 0x600000, INT64_C(1) << 27, 16);
	CHECK_EQ_INT(hmap_launch(m, &h), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel hmap: tensor map flat_tmap: shape[0] = 2147483648 is outside [0, 2^31)");
	hmap_init(&h, 0x600000, 0, 16);
	CHECK_EQ_INT(hmap_launch(m, &h), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel hmap: tensor map flat_tmap: shape[0] = 0; a TMA dimension holds 1 to 2^32");
	hmap_init(&h, 0x600000, INT64_C(1) << 62, 16);
	CHECK_EQ_INT(hmap_launch(m, &h), TILE_ERROR_GRID);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel hmap: tensor map flat_tmap: overflow at byte 5");
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes);
	/* an empty grid evaluates no recipe */
	{
		static const uint32_t empty[3] = {1, 0, 1};
		CHECK_EQ_INT(tile_launch(m, 2, empty, NULL, h.args, 9), TILE_SUCCESS);
	}
	fake_param_sizes(8, tma_sizes);
}

static const int honly_sizes[4] = {8, 8, 4, 128};

/* honly(a, M, K, hidden a_tmap) with K as the arguments' */
static tile_status honly_launch(tile_module *m, tile_deviceptr a, int64_t M, int32_t K)
{
	void *args[3];
	args[0] = &a;
	args[1] = &M;
	args[2] = &K;
	return tile_launch(m, 3, one_block, NULL, args, 3);
}

/* A kernel whose only map is hidden. */
static void test_hidden_only(tile_module *m, void *ctx90)
{
	static const uint8_t zero[128] = {0};
	fake_launch l;
	fake_tensormap t;
	int encodes = fake_calls("cuTensorMapEncodeTiled");
	drv_ctx_set_current(ctx90);
	fake_param_sizes(4, honly_sizes);
	CHECK_EQ_INT(honly_launch(m, 0x600000, 1000, 512), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes + 1);
	fake_last_tensormap(&t);
	CHECK(t.rank == 2 && t.address == 0x600000 && t.dims[0] == 512 && t.dims[1] == 1000 && t.strides[0] == 1024);
	CHECK(t.box[0] == 64 && t.box[1] == 64 && t.swizzle == 3 && t.data_type == 6);
	fake_last_launch(&l);
	CHECK(strcmp(l.symbol, "honly_k") == 0 && l.n_maps == 1 && l.map_misalign[0] == 0 && map_word(&l, 0, 1) == 0x600000);
	CHECK_EQ_INT(honly_launch(m, 0x600000, 1000, 512), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes + 1);
	/* hmap's a_tmap is another parameter: its cache entry is not this one's */
	CHECK_EQ_INT(m->params[m->kernels[3].first_param + 3].map_index, 5);
	CHECK_EQ_INT(honly_launch(m, 0x600000, 1000, 8), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(strcmp(l.symbol, "honly_nr_k") == 0 && l.n_maps == 1 && memcmp(l.maps[0], zero, 128) == 0);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes + 1);
	fake_param_sizes(8, tma_sizes);
}

/* On the sm_80 image: zeros for every map, no program run, no check. */
static void test_hidden_zeros(tile_module *m, void *ctx80)
{
	static const uint8_t zero[128] = {0};
	hmap_args h;
	fake_launch l;
	int encodes = fake_calls("cuTensorMapEncodeTiled"), i;
	drv_ctx_set_current(ctx80);
	fake_param_sizes(11, hmap_sizes);
	hmap_init(&h, 0x600008, INT64_C(1) << 62, 16);
	CHECK_EQ_INT(hmap_launch(m, &h), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(strcmp(l.image, cubin80) == 0 && strcmp(l.symbol, "hmap_k") == 0 && l.n_maps == 3);
	for (i = 0; i < 3; i++)
		CHECK(memcmp(l.maps[i], zero, 128) == 0);
	CHECK(l.params[0] == 0x600008 && l.params[2] == 16);
	CHECK_EQ_INT(fake_calls("cuTensorMapEncodeTiled"), encodes);
	fake_param_sizes(8, tma_sizes);
}

static tile_module *race_module;
static void *race_ctx, *race_stream;
static int race_failures;

static void *race_thread(void *arg)
{
	tma_args a[2];
	hmap_args h[2];
	int i;
	drv_ctx_set_current(race_ctx);
	tma_init(&a[0], 0x400000 + 0x10000 * (tile_deviceptr)(uintptr_t)arg, 1000, 512, 512, 128, 64);
	tma_init(&a[1], 0x800000 + 0x10000 * (tile_deviceptr)(uintptr_t)arg, 1000, 512, 512, 128, 64);
	hmap_init(&h[0], 0xc00000 + 0x10000 * (tile_deviceptr)(uintptr_t)arg, 1000, 512);
	hmap_init(&h[1], 0xe00000 + 0x10000 * (tile_deviceptr)(uintptr_t)arg, 1000, 512);
	h[1].c.base = 0x580000;
	for (i = 0; i < 2000; i++) {
		if (tile_launch(race_module, 0, one_block, (tile_stream)race_stream, a[i & 1].args, 7) != TILE_SUCCESS)
			__atomic_add_fetch(&race_failures, 1, __ATOMIC_RELAXED);
		if (i % 2 == 0 &&
		    tile_launch(race_module, 2, one_block, (tile_stream)race_stream, h[(i >> 1) & 1].args, 9) != TILE_SUCCESS)
			__atomic_add_fetch(&race_failures, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Threads share the slot's cache entry of a_tmap (and of hmap's three
 * maps) with their own descriptors and arguments; every map launched must
 * be the one of its base pointer. */
static void test_threads(tile_module *m, void *ctx90)
{
	pthread_t t[6];
	uintptr_t i;
	race_module = m;
	race_ctx = ctx90;
	drv_ctx_set_current(ctx90);
	CHECK_EQ_INT(drv_stream_create(&race_stream, 0), 0);
	for (i = 0; i < 6; i++)
		pthread_create(&t[i], NULL, race_thread, (void *)(i % 3));
	for (i = 0; i < 6; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_INT(race_failures, 0);
	CHECK_EQ_INT(fake_map_mismatches(), 0);
}

static int run_tensormap(void)
{
	static const int cc[2] = {90, 80};
	tile_module *m;
	void *ctx90, *ctx80;
	open_fake();
	fake_set_devices(2, cc);
	test_blob_rules();
	test_plan();
	m = create();
	if (!m)
		return check_report("test_loader_fake");
	ctx90 = fake_ctx_create(0);
	ctx80 = fake_ctx_create(1);
	test_encode(m, ctx90);
	test_refusals(m, ctx90);
	test_zeros(m, ctx80);
	test_hidden(m, ctx90);
	test_hidden_zeros(m, ctx80);
	test_hidden_only(m, ctx90);
	test_threads(m, ctx90);
	drv_ctx_set_current(NULL);
	tile_module_destroy(m);
	free(blob);
	return check_report("test_loader_fake");
}

/* A driver older than CUDA 12: no cuTensorMapEncodeTiled. */
static int run_tensormap_old(void)
{
	static const int cc[2] = {90, 80};
	static const int sizes[8] = {8, 4, 4, 8, 8, 128, 4, 8};
	static const uint8_t zero[128] = {0};
	tile_module *m;
	tma_args a;
	fake_launch l;
	open_fake();
	fake_set_devices(2, cc);
	m = create();
	if (!m)
		return check_report("test_loader_fake");
	fake_param_sizes(8, sizes);
	tma_init(&a, 0x100000, 1000, 512, 512, 128, 64);
	drv_ctx_set_current(fake_ctx_create(0));
	CHECK_EQ_INT(tma_launch(m, &a), TILE_ERROR_DRIVER_SYMBOL);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel tma: its image reads TMA tensor maps, and the CUDA driver library has no "
					      "cuTensorMapEncodeTiled");
	{
		/* hidden maps too, with or without a descriptor's map to encode */
		hmap_args h;
		hmap_init(&h, 0x600000, 1000, 512);
		CHECK_EQ_INT(hmap_launch(m, &h), TILE_ERROR_DRIVER_SYMBOL);
		CHECK_STR_CONTAINS(tile_last_error(), "kernel hmap: its image reads TMA tensor maps");
		h.K = 8;
		CHECK_EQ_INT(hmap_launch(m, &h), TILE_ERROR_DRIVER_SYMBOL);
		/* a hidden map only: refused where a recipe is to be encoded, zeros where none */
		fake_param_sizes(4, honly_sizes);
		CHECK_EQ_INT(honly_launch(m, 0x600000, 1000, 512), TILE_ERROR_DRIVER_SYMBOL);
		CHECK_STR_CONTAINS(tile_last_error(), "kernel honly: its image reads TMA tensor maps");
		CHECK_EQ_INT(honly_launch(m, 0x600000, 1000, 8), TILE_SUCCESS);
		fake_last_launch(&l);
		CHECK(strcmp(l.symbol, "honly_nr_k") == 0 && l.n_maps == 1 && memcmp(l.maps[0], zero, 128) == 0);
		fake_param_sizes(8, sizes);
	}
	drv_ctx_set_current(fake_ctx_create(1));
	CHECK_EQ_INT(tma_launch(m, &a), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(l.n_maps == 1 && memcmp(l.maps[0], zero, 128) == 0);
	{
		hmap_args h;
		int i;
		fake_param_sizes(11, hmap_sizes);
		hmap_init(&h, 0x600000, 1000, 512);
		CHECK_EQ_INT(hmap_launch(m, &h), TILE_SUCCESS);
		fake_last_launch(&l);
		CHECK(l.n_maps == 3);
		for (i = 0; i < 3; i++)
			CHECK(memcmp(l.maps[i], zero, 128) == 0);
	}
	drv_ctx_set_current(NULL);
	tile_module_destroy(m);
	free(blob);
	return check_report("test_loader_fake");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "tensormap";
	if (strcmp(mode, "tensormap_old") == 0)
		return run_tensormap_old();
	return run_tensormap();
}
