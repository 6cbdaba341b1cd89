/* blob_builder.h - a small blob writer for the loader's tests.
 *
 * Independent of libtile's writer on purpose: the loader's tests describe a
 * blob as plain structs, get the bytes of docs/FORMAT.md (version 5, as
 * blobs were written before version 6, unless a variant has preds or the
 * blob asks for 6), and corrupt them field by field (tb_fix_crc
 * recomputes the checksum so that a corruption reaches the check it aims
 * at). Records are written as given, unchecked: a variant's recipes and
 * preds in the order of its lists, so that a test can write them out of
 * order or twice.
 * Uses zlib for compression and CRC-32. */
#ifndef TILE_TEST_BLOB_BUILDER_H
#define TILE_TEST_BLOB_BUILDER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct tb_param {
	const char *name;
	int kind, size, dtype;
	int hidden;       /* written as the flags byte: 1 hidden (a hidden tensor map with kind 4), 2 reset_to_zero, ... */
} tb_param;

/* A hidden tensor map's recipe (FORMAT.md); its variant is the variant
 * that lists it. */
typedef struct tb_recipe {
	int param, base, rank;  /* parameter indices of the kernel */
	const uint8_t *code;    /* program bytes, appended to grid_code */
	uint32_t size;
	uint16_t block[5];
	uint16_t reserved;
} tb_recipe;

/* A predicate on a parameter from 32 on (FORMAT.md's preds, version 6);
 * its variant is the variant that lists it. */
typedef struct tb_pred {
	int param;              /* visible parameter index of the kernel */
	int by;                 /* 16, 8, 4: divisible by it; 1: equal to 1 */
	int reserved;
} tb_pred;

typedef struct tb_constexpr {
	const char *name;
	int kind;
	int64_t value;    /* float: bits; string: ignored */
	const char *sval; /* string kind */
} tb_constexpr;

typedef struct tb_variant {
	const char *symbol;
	int group, num_warps, num_stages;
	uint32_t shared_static, shared_dynamic;
	uint16_t cluster[3];
	uint16_t n_regs;
	int spills_unknown;                  /* else spill_stores/spill_loads bytes */
	uint32_t spill_stores, spill_loads;
	uint32_t div16, eq1;
	uint32_t div8, div4;
	const uint8_t *grid; /* grid program bytes; NULL: none */
	uint32_t grid_size;
	int n_constexprs;
	tb_constexpr cx[8];
	int config;          /* the kernel's config */
	int source_config;   /* written as is; 0 with the rest zeroed */
	int n_recipes;
	tb_recipe recipes[4];
	int n_preds;
	tb_pred preds[4];
	int producer_warps;  /* byte 21, beside num_warps */
} tb_variant;

typedef struct tb_kernel {
	const char *name;
	int n_params;
	tb_param params[48];
	int n_variants;
	tb_variant variants[8];
	int n_configs;       /* 0: written as 1 */
	int default_config;
	int n_keys;
	int keys[8];         /* visible parameter indices */
	int n_entries;
	int64_t entries[64]; /* n_entries rows of n_keys values then a config, written as given */
	int n_heuristics;
	struct {
		const char *name;     /* the constexpr it computes */
		const uint8_t *code;  /* a program of one result */
		uint32_t size;
	} heuristics[4];
} tb_kernel;

typedef struct tb_image {
	int group, kind, arch, flags;
	const void *data;
	uint32_t raw_size;
	int compress;
} tb_image;

typedef struct tb_blob {
	int n_kernels;
	tb_kernel kernels[4];
	int n_images;
	tb_image images[8];
	int n_groups;
	int version;         /* 0: 5, or 6 where a variant has preds */
} tb_blob;

typedef struct tb_buf {
	uint8_t *p;
	size_t n, cap;
} tb_buf;

static inline void tb_put(tb_buf *b, const void *data, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = (uint8_t *)realloc(b->p, b->cap);
	}
	if (n)
		memcpy(b->p + b->n, data, n);
	b->n += n;
}

static inline void tb_u8(tb_buf *b, unsigned v) { uint8_t x = (uint8_t)v; tb_put(b, &x, 1); }
static inline void tb_u16(tb_buf *b, unsigned v) { tb_u8(b, v & 255); tb_u8(b, v >> 8 & 255); }
static inline void tb_u32(tb_buf *b, uint32_t v) { tb_u16(b, v & 0xffff); tb_u16(b, v >> 16); }
static inline void tb_u64(tb_buf *b, uint64_t v) { tb_u32(b, (uint32_t)v); tb_u32(b, (uint32_t)(v >> 32)); }
static inline void tb_pad4(tb_buf *b) { while (b->n % 4) tb_u8(b, 0); }

static inline void tb_set32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t tb_get32(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* Adds s to the string table (no sharing) and returns its offset. */
static inline uint32_t tb_str(tb_buf *strtab, const char *s)
{
	uint32_t off = (uint32_t)strtab->n;
	tb_put(strtab, s, strlen(s) + 1);
	return off;
}

static inline void tb_fix_crc(uint8_t *blob, size_t size)
{
	tb_set32(blob + 12, (uint32_t)crc32(0, blob + 32, (uInt)(size - 32)));
}

/* Offsets of the metadata arrays of a built blob (from its counts). */
typedef struct tb_layout {
	size_t kernels, params, variants, constexprs, images, keys, tune, heuristics, recipes, preds, grid_code, strtab, data;
} tb_layout;

#define TB_RECIPE_SIZE 36
#define TB_PRED_SIZE 8

/* The metadata header's bytes: version 6 adds n_preds. */
static inline size_t tb_meta_header_size(int version) { return version == 5 ? 48 : 52; }

static inline tb_layout tb_layout_of(const uint8_t *blob)
{
	tb_layout l;
	const uint8_t *h = blob + 32;
	size_t meta_header = tb_meta_header_size(blob[4] | blob[5] << 8);
	l.kernels = 32 + meta_header;
	l.params = l.kernels + 52 * (size_t)tb_get32(h);
	l.variants = l.params + 12 * (size_t)tb_get32(h + 4);
	l.constexprs = l.variants + 80 * (size_t)tb_get32(h + 8);
	l.images = l.constexprs + 16 * (size_t)tb_get32(h + 12);
	l.keys = l.images + 32 * (size_t)tb_get32(h + 16);
	l.tune = l.keys + 4 * (size_t)tb_get32(h + 32);
	l.heuristics = l.tune + 8 * (size_t)tb_get32(h + 36);
	l.recipes = l.heuristics + 12 * (size_t)tb_get32(h + 40);
	l.preds = l.recipes + TB_RECIPE_SIZE * (size_t)tb_get32(h + 44);
	l.grid_code = l.preds + (meta_header > 48 ? TB_PRED_SIZE * (size_t)tb_get32(h + 48) : 0);
	l.strtab = l.grid_code + ((tb_get32(h + 20) + 3) & ~3u);
	l.data = l.strtab + tb_get32(h + 24);
	return l;
}

/* Builds the blob; the caller frees *out. Returns its size. */
static inline size_t tb_build(const tb_blob *d, uint8_t **out)
{
	tb_buf kernels = {0}, params = {0}, variants = {0}, cxs = {0}, images = {0}, keys = {0}, tune = {0}, heur = {0}, recipes = {0},
	       preds = {0}, grid = {0}, strtab = {0}, data = {0}, blob = {0};
	uint32_t n_params = 0, n_variants = 0, n_cx = 0, n_keys = 0, n_words = 0, n_heur = 0, n_recipes = 0, n_preds = 0, meta_size,
		 data_start;
	int version = d->version;
	uint32_t img_off[8], img_size[8];
	int k, i, j, c;
	tb_u8(&strtab, 0);
	for (k = 0; k < d->n_kernels; k++) {
		const tb_kernel *kd = &d->kernels[k];
		tb_u32(&kernels, tb_str(&strtab, kd->name));
		tb_u32(&kernels, n_params);
		tb_u32(&kernels, (uint32_t)kd->n_params);
		tb_u32(&kernels, n_variants);
		tb_u32(&kernels, (uint32_t)kd->n_variants);
		tb_u32(&kernels, (uint32_t)(kd->n_configs ? kd->n_configs : 1));
		tb_u32(&kernels, (uint32_t)kd->default_config);
		tb_u32(&kernels, n_keys);
		tb_u32(&kernels, (uint32_t)kd->n_keys);
		tb_u32(&kernels, n_words);
		tb_u32(&kernels, (uint32_t)kd->n_entries);
		for (i = 0; i < kd->n_keys; i++, n_keys++)
			tb_u32(&keys, (uint32_t)kd->keys[i]);
		for (i = 0; i < kd->n_entries * (kd->n_keys + 1); i++, n_words++)
			tb_u64(&tune, (uint64_t)kd->entries[i]);
		tb_u32(&kernels, n_heur);
		tb_u32(&kernels, (uint32_t)kd->n_heuristics);
		for (i = 0; i < kd->n_heuristics; i++, n_heur++) {
			tb_u32(&heur, tb_str(&strtab, kd->heuristics[i].name));
			tb_u32(&heur, (uint32_t)grid.n);
			tb_u32(&heur, kd->heuristics[i].size);
			tb_put(&grid, kd->heuristics[i].code, kd->heuristics[i].size);
		}
		for (i = 0; i < kd->n_params; i++) {
			const tb_param *p = &kd->params[i];
			tb_u32(&params, tb_str(&strtab, p->name));
			tb_u8(&params, (unsigned)p->kind);
			tb_u8(&params, (unsigned)p->size);
			tb_u8(&params, (unsigned)p->dtype);
			tb_u8(&params, (unsigned)p->hidden);
			tb_u32(&params, 0);
			n_params++;
		}
		for (j = 0; j < kd->n_variants; j++) {
			const tb_variant *v = &kd->variants[j];
			uint32_t goff = (uint32_t)grid.n;
			tb_u32(&variants, (uint32_t)k);
			tb_u32(&variants, tb_str(&strtab, v->symbol));
			tb_u32(&variants, (uint32_t)v->group);
			tb_u32(&variants, n_cx);
			tb_u32(&variants, (uint32_t)v->n_constexprs);
			tb_u16(&variants, (unsigned)v->num_warps | (unsigned)v->producer_warps << 8);
			tb_u16(&variants, (unsigned)v->num_stages);
			tb_u32(&variants, v->shared_static);
			tb_u32(&variants, v->shared_dynamic);
			tb_u16(&variants, v->cluster[0]);
			tb_u16(&variants, v->cluster[1]);
			tb_u16(&variants, v->cluster[2]);
			tb_u16(&variants, v->n_regs);
			tb_u32(&variants, v->div16);
			tb_u32(&variants, v->eq1);
			tb_u32(&variants, v->grid ? goff : 0);
			tb_u32(&variants, v->grid ? v->grid_size : 0);
			tb_u32(&variants, v->spills_unknown ? 0xffffffffu : v->spill_stores);
			tb_u32(&variants, v->spills_unknown ? 0xffffffffu : v->spill_loads);
			tb_u32(&variants, (uint32_t)v->config);
			tb_u32(&variants, (uint32_t)v->source_config);
			tb_u32(&variants, v->div8);
			tb_u32(&variants, v->div4);
			if (v->grid)
				tb_put(&grid, v->grid, v->grid_size);
			for (c = 0; c < v->n_recipes; c++, n_recipes++) {
				const tb_recipe *r = &v->recipes[c];
				int b;
				tb_u32(&recipes, n_variants);
				tb_u32(&recipes, (uint32_t)r->param);
				tb_u32(&recipes, (uint32_t)r->base);
				tb_u32(&recipes, (uint32_t)r->rank);
				tb_u32(&recipes, (uint32_t)grid.n);
				tb_u32(&recipes, r->size);
				for (b = 0; b < 5; b++)
					tb_u16(&recipes, r->block[b]);
				tb_u16(&recipes, r->reserved);
				tb_put(&grid, r->code, r->size);
			}
			for (c = 0; c < v->n_preds; c++, n_preds++) {
				tb_u32(&preds, n_variants);
				tb_u16(&preds, (unsigned)v->preds[c].param);
				tb_u8(&preds, (unsigned)v->preds[c].by);
				tb_u8(&preds, (unsigned)v->preds[c].reserved);
			}
			for (c = 0; c < v->n_constexprs; c++) {
				const tb_constexpr *x = &v->cx[c];
				tb_u32(&cxs, tb_str(&strtab, x->name));
				tb_u8(&cxs, (unsigned)x->kind);
				tb_u8(&cxs, 0);
				tb_u16(&cxs, 0);
				tb_u64(&cxs, x->kind == 3 ? tb_str(&strtab, x->sval) : (uint64_t)x->value);
				n_cx++;
			}
			n_variants++;
		}
	}
	tb_pad4(&strtab);
	if (!version)
		version = n_preds ? 6 : 5;
	meta_size = (uint32_t)(tb_meta_header_size(version) + kernels.n + params.n + variants.n + cxs.n + 32 * (size_t)d->n_images +
			       keys.n + tune.n + heur.n + recipes.n + preds.n + ((grid.n + 3) & ~(size_t)3) + strtab.n);
	data_start = 32 + meta_size;
	for (i = 0; i < d->n_images; i++) {
		const tb_image *im = &d->images[i];
		img_off[i] = data_start + (uint32_t)data.n;
		if (im->compress) {
			uLongf n = compressBound(im->raw_size);
			uint8_t *z = (uint8_t *)malloc(n);
			compress2(z, &n, (const Bytef *)im->data, im->raw_size, 9);
			tb_put(&data, z, n);
			img_size[i] = (uint32_t)n;
			free(z);
		} else {
			tb_put(&data, im->data, im->raw_size);
			img_size[i] = im->raw_size;
		}
		tb_pad4(&data);
		tb_u32(&images, (uint32_t)im->group);
		tb_u32(&images, (uint32_t)im->kind);
		tb_u32(&images, (uint32_t)im->arch);
		tb_u32(&images, (uint32_t)im->flags);
		tb_u32(&images, img_off[i]);
		tb_u32(&images, img_size[i]);
		tb_u32(&images, im->raw_size);
		tb_u32(&images, (uint32_t)im->compress);
	}
	tb_put(&blob, "TILE", 4);
	tb_u16(&blob, (unsigned)version);
	tb_u16(&blob, 32);
	tb_u32(&blob, 32 + meta_size + (uint32_t)data.n);
	tb_u32(&blob, 0);
	tb_u32(&blob, 32);
	tb_u32(&blob, meta_size);
	tb_u32(&blob, 0);
	tb_u32(&blob, 0);
	tb_u32(&blob, (uint32_t)d->n_kernels);
	tb_u32(&blob, n_params);
	tb_u32(&blob, n_variants);
	tb_u32(&blob, n_cx);
	tb_u32(&blob, (uint32_t)d->n_images);
	tb_u32(&blob, (uint32_t)grid.n);
	tb_u32(&blob, (uint32_t)strtab.n);
	tb_u32(&blob, (uint32_t)d->n_groups);
	tb_u32(&blob, n_keys);
	tb_u32(&blob, n_words);
	tb_u32(&blob, n_heur);
	tb_u32(&blob, n_recipes);
	if (version > 5)
		tb_u32(&blob, n_preds);
	tb_put(&blob, kernels.p, kernels.n);
	tb_put(&blob, params.p, params.n);
	tb_put(&blob, variants.p, variants.n);
	tb_put(&blob, cxs.p, cxs.n);
	tb_put(&blob, images.p, images.n);
	tb_put(&blob, keys.p, keys.n);
	tb_put(&blob, tune.p, tune.n);
	tb_put(&blob, heur.p, heur.n);
	tb_put(&blob, recipes.p, recipes.n);
	tb_put(&blob, preds.p, preds.n);
	tb_put(&blob, grid.p, grid.n);
	tb_pad4(&blob);
	tb_put(&blob, strtab.p, strtab.n);
	tb_put(&blob, data.p, data.n);
	tb_fix_crc(blob.p, blob.n);
	free(kernels.p);
	free(params.p);
	free(variants.p);
	free(cxs.p);
	free(images.p);
	free(keys.p);
	free(tune.p);
	free(heur.p);
	free(recipes.p);
	free(preds.p);
	free(grid.p);
	free(strtab.p);
	free(data.p);
	*out = blob.p;
	return blob.n;
}

/* Grid program helpers: tb_grid(buf, &n, ndims) then ops. */
static inline void tb_op(uint8_t *g, uint32_t *n, int op) { g[(*n)++] = (uint8_t)op; }
static inline void tb_op_u8(uint8_t *g, uint32_t *n, int op, int operand)
{
	g[(*n)++] = (uint8_t)op;
	g[(*n)++] = (uint8_t)operand;
}
static inline void tb_op_const(uint8_t *g, uint32_t *n, int64_t value)
{
	int i;
	g[(*n)++] = 0x02;
	for (i = 0; i < 8; i++)
		g[(*n)++] = (uint8_t)((uint64_t)value >> (8 * i));
}

#endif
