/* fuzz_blob.c - fuzz target: tile.h's blob validation and inflate.
 *
 * The first input byte picks the mode. Even: the rest is a blob whose
 * total_size and checksum are patched to match, so that mutations reach the
 * metadata checks instead of dying at the checksum; a blob that passes is
 * exercised like a loader would (introspection, variant selection, grid
 * programs and the selected variant's tensor-map recipes (descriptor and
 * encoding plan) with zero and one arguments, inflate of every image). Odd: the
 * rest is a zlib stream inflated into a buffer whose size the next two
 * bytes give. Built by tests/fuzz/run.sh with libFuzzer or the plain
 * driver (tests/fuzz/driver.c).
 *
 * LLVMFuzzerCustomMutator knows the format: for a blob it mutates the
 * metadata as records (a field of a kernel, parameter, variant, constexpr,
 * image, recipe or pred record set to a value that matters there: 0, 1, counts and
 * indices around the tables' sizes, offsets at the edges of the blob, the
 * top of the range), grid program bytes as opcodes and operands, string
 * table terminators, and whole records (duplicated or removed, with the
 * count and meta_size kept consistent), then stores total_size and the
 * checksum, so that what it writes (and the corpus keeps) is a blob that
 * reaches the checks past the checksum. One mutation in four is the
 * engine's blind one (LLVMFuzzerMutate), the checksum fixed after it too.
 * Record sizes come from tile.h, so the mutator follows the format, of
 * either version (5, or 6 with preds). */
#define TILE_IMPLEMENTATION
#include "tile.h"

#include <stdlib.h>

static void exercise(tile_module *m)
{
	uint64_t values[TILE__MAX_PARAMS];
	void *args[TILE__MAX_PARAMS];
	uint32_t i, k;
	int v;
	for (i = 0; i < TILE__MAX_PARAMS; i++)
		args[i] = &values[i];
	for (v = 0; v < 2; v++) {
		for (i = 0; i < TILE__MAX_PARAMS; i++)
			values[i] = (uint64_t)v;
		for (k = 0; k < m->n_kernels; k++) {
			int64_t dims[3];
			const tile__kernel *kern = &m->kernels[k];
			int sel = tile__select_variant(m, kern, tile__dispatch(m, kern, args), args);
			tile_status st;
			uint32_t r;
			if (sel >= 0 && m->variants[sel].grid_size &&
			    tile__grid_eval(m, &m->variants[sel], args, dims) == TILE_SUCCESS)
				tile__grid_limits(m, kern, dims, &st);
			for (r = 0; sel >= 0 && r < m->variants[sel].n_recipes; r++) {
				const tile__recipe *rc = &m->recipes[m->variants[sel].first_recipe + r];
				tile_tensordesc d;
				tile__tensormap_args plan;
				if (tile__recipe_desc(m, kern, &m->variants[sel], rc, args, &d) == TILE_SUCCESS)
					tile__tensormap_plan(&d, m->params[kern->first_param + rc->param].dtype, (int)rc->rank, "k", "p",
							     &plan);
			}
		}
	}
	for (k = 0; k < m->n_kernels; k++) {
		tile_param_info p;
		tile_variant_info vi;
		tile_constexpr_info c;
		int j, n = tile_variant_count(m, (int)k);
		tile_kernel_index(m, tile_kernel_name(m, (int)k));
		for (j = 0; j < tile_param_count(m, (int)k); j++)
			tile_param_get_info(m, (int)k, j, &p);
		for (v = 0; v < n; v++) {
			tile_variant_get_info(m, (int)k, v, &vi);
			for (j = 0; j < vi.n_constexprs; j++)
				tile_constexpr_get_info(m, (int)k, v, j, &c);
			for (j = 0; j <= (int)m->kernels[k].n_visible; j++)
				tile_variant_predicate(m, (int)k, v, j);
		}
	}
	for (i = 0; i < m->n_images; i++) {
		const tile__image *im = &m->images[i];
		uint8_t *out;
		/* Keep the fuzzer's memory bounded; validation allows 256 MiB. */
		if (im->compression != 1 || im->raw_size > (1u << 20))
			continue;
		out = (uint8_t *)malloc(im->raw_size);
		tile__inflate_image(i, m->blob + im->offset, im->size, out, im->raw_size);
		free(out);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static uint32_t mut_state;
static uint32_t mut_rnd(void)
{
	mut_state = mut_state * 1664525u + 1013904223u;
	return mut_state >> 8;
}

static void put32(uint8_t *p, uint32_t v)
{
	int i;
	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* total_size and checksum of the blob b[0..n). */
static void fix_blob(uint8_t *b, size_t n)
{
	if (n >= TILE__HEADER_SIZE) {
		put32(b + 8, (uint32_t)n);
		put32(b + 12, tile__crc32(b + TILE__HEADER_SIZE, n - TILE__HEADER_SIZE));
	}
}

/* The tables of the metadata, as the loader lays them out: the record
 * tables kernels params variants constexprs images recipes preds
 * (T_RECORDS of them; no preds in a version 5 blob), then grid_code
 * (T_GRID) and strtab (T_STRTAB); keys, tune and heuristics are stepped
 * over. */
enum { T_RECORDS = 7, T_PREDS = 6, T_GRID = 7, T_STRTAB = 8, T_N = 9 };
typedef struct tables {
	uint32_t off[T_N], count[T_N], size[T_N];
	int ok;
} tables;

/* Where each table's count is in the metadata header. */
static const uint32_t count_at[T_N] = {0, 4, 8, 12, 16, 44, 48, 20, 24};

static tables find_tables(const uint8_t *b, size_t n)
{
	static const uint32_t rec[T_RECORDS] = {TILE__KERNEL_SIZE, TILE__PARAM_SIZE, TILE__VARIANT_SIZE, TILE__CONSTEXPR_SIZE,
						TILE__IMAGE_SIZE, TILE__RECIPE_SIZE, TILE__PRED_SIZE};
	const uint8_t *h = b + TILE__HEADER_SIZE;
	tables t;
	uint32_t meta_header = n >= 6 && tile__u16(b + 4) == 5 ? TILE__META_HEADER_SIZE_V5 : TILE__META_HEADER_SIZE;
	uint64_t at = TILE__HEADER_SIZE + meta_header;
	int i;
	memset(&t, 0, sizeof t);
	if (n < at)
		return t;
	for (i = 0; i < T_N; i++) {
		uint32_t c = i == T_PREDS && meta_header == TILE__META_HEADER_SIZE_V5 ? 0 : tile__u32(h + count_at[i]);
		uint64_t bytes;
		if (i == 5) /* keys (u32), tune (i64), heuristics come before the recipes */
			at += (uint64_t)tile__u32(h + 32) * 4 + (uint64_t)tile__u32(h + 36) * 8 +
			      (uint64_t)tile__u32(h + 40) * TILE__HEURISTIC_SIZE;
		t.count[i] = c;
		t.size[i] = i < T_RECORDS ? rec[i] : 1;
		bytes = i < T_RECORDS ? (uint64_t)c * rec[i] : i == T_GRID ? ((uint64_t)c + 3) / 4 * 4 : c;
		t.off[i] = (uint32_t)at;
		at += bytes;
		if (at > n)
			return t;
	}
	t.ok = 1;
	return t;
}

/* A value that matters in a field of table `ti` of blob b[0..n). */
static uint32_t telling_value(const tables *t, size_t n, int ti)
{
	uint32_t c = t->count[mut_rnd() % T_RECORDS];
	switch (mut_rnd() % 12) {
	case 0: return 0;
	case 1: return 1;
	case 2: return c;
	case 3: return c ? c - 1 : 0;
	case 4: return c + 1;
	case 5: return t->count[T_STRTAB] ? t->count[T_STRTAB] - 1 - mut_rnd() % 4 : 0; /* near the strtab's end */
	case 6: return (uint32_t)n - mut_rnd() % 8;                      /* near the blob's end */
	case 7: return 0xffffffffu - mut_rnd() % 4;
	case 8: return 0x80000000u;
	case 9: return t->count[ti] + mut_rnd() % 3;
	case 10: return 1u << (mut_rnd() % 32);
	default: return mut_rnd() % 64;
	}
}

static size_t mutate_blob(uint8_t *b, size_t n, size_t max)
{
	tables t = find_tables(b, n);
	uint32_t ti, r;
	if (!t.ok)
		return LLVMFuzzerMutate(b, n, max);
	switch (mut_rnd() % 8) {
	case 0:
	case 1:
	case 2: { /* a field of a record */
		uint32_t at, width = 1u << (mut_rnd() % 3), v;
		ti = mut_rnd() % T_RECORDS;
		if (!t.count[ti])
			break;
		r = mut_rnd() % t.count[ti];
		at = t.off[ti] + r * t.size[ti] + (mut_rnd() % (t.size[ti] / width)) * width;
		v = telling_value(&t, n, (int)ti);
		if (width == 4)
			put32(b + at, v);
		else if (width == 2)
			b[at] = (uint8_t)v, b[at + 1] = (uint8_t)(v >> 8);
		else
			b[at] = (uint8_t)v;
		break;
	}
	case 3: /* grid program: an opcode or operand byte */
		if (t.count[T_GRID])
			b[t.off[T_GRID] + mut_rnd() % t.count[T_GRID]] = (uint8_t)(mut_rnd() % 3 ? mut_rnd() % 0x23 : mut_rnd());
		break;
	case 4: /* string table: a terminator gone, or one more */
		if (t.count[T_STRTAB]) {
			uint32_t at = t.off[T_STRTAB] + mut_rnd() % t.count[T_STRTAB];
			b[at] = b[at] ? 0 : (uint8_t)('a' + mut_rnd() % 26);
		}
		break;
	case 5: /* a metadata header count, or the header's meta_size / flags / version */
		r = mut_rnd() % 5;
		if (r == 0) /* version 5 read as 6 and back: the header's n_preds comes and goes */
			b[4] ^= 5 ^ 6;
		else if (r < 3)
			put32(b + TILE__HEADER_SIZE + 4 * (mut_rnd() % (TILE__META_HEADER_SIZE / 4)),
			      telling_value(&t, n, (int)(mut_rnd() % T_RECORDS)));
		else
			put32(b + 4 * (1 + mut_rnd() % 7), mut_rnd() % 2 ? telling_value(&t, n, 0) : tile__u32(b + 4 * (1 + mut_rnd() % 7)));
		break;
	case 6: /* a record duplicated: count and meta_size follow */
		ti = mut_rnd() % T_RECORDS;
		if (t.count[ti] && n + t.size[ti] <= max) {
			uint32_t at = t.off[ti] + (mut_rnd() % t.count[ti]) * t.size[ti];
			memmove(b + at + t.size[ti], b + at, n - at);
			n += t.size[ti];
			put32(b + TILE__HEADER_SIZE + count_at[ti], t.count[ti] + 1);
			put32(b + 20, tile__u32(b + 20) + t.size[ti]);
		}
		break;
	default: /* a record removed */
		ti = mut_rnd() % T_RECORDS;
		if (t.count[ti]) {
			uint32_t at = t.off[ti] + (mut_rnd() % t.count[ti]) * t.size[ti];
			memmove(b + at, b + at + t.size[ti], n - at - t.size[ti]);
			n -= t.size[ti];
			put32(b + TILE__HEADER_SIZE + count_at[ti], t.count[ti] - 1);
			put32(b + 20, tile__u32(b + 20) - t.size[ti]);
		}
		break;
	}
	return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	mut_state = seed;
	if (size < 1 || max_size < 2)
		return LLVMFuzzerMutate(data, size, max_size);
	if (data[0] % 2 == 0 && mut_rnd() % 4) {
		size = 1 + mutate_blob(data + 1, size - 1, max_size - 1);
	} else {
		size = LLVMFuzzerMutate(data, size, max_size);
	}
	if (size >= 1 && data[0] % 2 == 0)
		fix_blob(data + 1, size - 1);
	return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] % 2 == 0) {
		size_t n = size - 1;
		uint8_t *blob = (uint8_t *)malloc(n ? n : 1);
		tile_module *m = NULL;
		memcpy(blob, data + 1, n);
		if (n >= 32) {
			uint32_t crc = tile__crc32(blob + 32, n - 32), i;
			for (i = 0; i < 4; i++) {
				blob[8 + i] = (uint8_t)(n >> (8 * i));
				blob[12 + i] = (uint8_t)(crc >> (8 * i));
			}
		}
		if (tile_module_create(blob, n, &m) == TILE_SUCCESS) {
			exercise(m);
			tile_module_destroy(m);
		}
		free(blob);
	} else if (size >= 3) {
		size_t out_len = ((size_t)data[1] | (size_t)data[2] << 8) * 16, at;
		uint8_t *out = (uint8_t *)malloc(out_len ? out_len : 1);
		tile__inflate(data + 3, size - 3, out, out_len, &at);
		free(out);
	}
	return 0;
}
