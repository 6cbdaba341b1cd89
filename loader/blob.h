/* blob.h - blob validation, module creation and introspection.
 *
 * tile_module_create checks every rule of docs/FORMAT.md before anything
 * else looks at the blob: header, checksum, the metadata layout (the arrays
 * must tile meta_size exactly), every string, index, range and enum, the
 * grid programs, and the images' ranges (inside the blob, after the
 * metadata, pairwise disjoint). Counts are multiplied in 64 bits and bounded
 * by the metadata size before anything is allocated, so a hostile blob can
 * at most make the loader allocate in proportion to its own size. The first
 * failing rule is reported with the record and field it concerns. Records
 * are then decoded into the structs of common.h; nothing is inflated here.
 *
 * Tensor maps come in two sorts: a descriptor's (flags 0), which must
 * follow its descriptor group, and a hidden one (flags 1), built at launch
 * from a recipe of the chosen variant. Recipes are checked once every
 * variant is decoded: sorted by (variant, param), each names a hidden map
 * of its variant's kernel, a visible pointer of the map's dtype, and a
 * program checked as a grid program is, with 2 * rank - 1 results. Their
 * order makes each variant's recipes one range, which the variant records,
 * so that a launch reads its own recipes only.
 *
 * Version 6 adds the preds array: predicates on parameters 32 and up,
 * which the variant records' 32-bit masks cannot hold. A version 5 blob is
 * read as one with no preds. Both end up in the variant's 64-bit masks, so
 * a launch tests every parameter the same way. */

#define TILE__HEADER_SIZE 32u
#define TILE__META_HEADER_SIZE_V5 48u
#define TILE__META_HEADER_SIZE 52u
#define TILE__PRED_SIZE 8u
#define TILE__RECIPE_SIZE 36u
#define TILE__KERNEL_SIZE 52u
#define TILE__HEURISTIC_SIZE 12u
#define TILE__PARAM_SIZE 12u
#define TILE__VARIANT_SIZE 80u
#define TILE__NO_SOURCE_CONFIG 0xffffffffu
#define TILE__SPILLS_UNKNOWN 0xffffffffu
#define TILE__MAX_SPILL (512u << 10)
#define TILE__IMAGE_SIZE 32u
#define TILE__MAX_PARAMS 64u
#define TILE__MAX_RAW_SIZE (256u << 20)

/* dispatch.h: the tuning tables, checked once the kernels and their
 * parameters are. */
static tile_status tile__check_tables(tile_module *m, const uint8_t *kernel_records, const uint8_t *keys, const uint8_t *tune);
static tile_status tile__check_heuristics(tile_module *m, const uint8_t *kernel_records, const uint8_t *heuristics);

/* A string offset naming a NUL-terminated string inside the table. */
static int tile__str_ok(const tile_module *m, uint32_t off, int allow_empty)
{
	return off < m->strtab_size && (allow_empty || m->strtab[off] != 0) &&
	       memchr(m->strtab + off, 0, m->strtab_size - off) != NULL;
}

static const char *tile__str(const tile_module *m, uint32_t off) { return (const char *)m->strtab + off; }

/* malloc(0) may return NULL: ask for at least one element. */
static void *tile__alloc_array(uint32_t n, size_t size)
{
	return TILE_MALLOC((n ? n : 1) * size);
}

/* The same, zeroed. */
static void *tile__alloc_zeroed(uint32_t n, size_t size)
{
	void *p = tile__alloc_array(n, size);
	if (p)
		memset(p, 0, (n ? n : 1) * size);
	return p;
}

/* The metadata header's size: version 6 adds n_preds. */
static uint32_t tile__meta_header_size(const tile_module *m)
{
	return tile__u16(m->blob + 4) == 5 ? TILE__META_HEADER_SIZE_V5 : TILE__META_HEADER_SIZE;
}

static tile_status tile__check_header(tile_module *m)
{
	const uint8_t *b = m->blob;
	uint32_t total, meta_offset, meta_size;
	if (m->size < TILE__HEADER_SIZE)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: %lu bytes, shorter than the %u-byte header",
				  (unsigned long)m->size, TILE__HEADER_SIZE);
	if (memcmp(b, "TILE", 4) != 0)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: bad magic (not a tile blob)");
	if (tile__u16(b + 4) < TILE_BLOB_VERSION_MIN || tile__u16(b + 4) > TILE_BLOB_VERSION)
		return tile__fail(TILE_ERROR_VERSION, "header: blob format version %u, but this tile.h reads versions %u..%u only%s",
				  tile__u16(b + 4), (unsigned)TILE_BLOB_VERSION_MIN, (unsigned)TILE_BLOB_VERSION,
				  tile__u16(b + 4) < TILE_BLOB_VERSION ? ": regenerate the blob with the tilec of this tile.h"
								      : ": use the tile.h of the tilec that wrote it");
	if (tile__u16(b + 6) != TILE__HEADER_SIZE)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: header_size %u (expected 32)", tile__u16(b + 6));
	total = tile__u32(b + 8);
	if (total != m->size)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: total_size %u but %lu bytes given", total, (unsigned long)m->size);
	if (tile__u32(b + 24) != 0)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: flags 0x%x (must be 0)", tile__u32(b + 24));
	if (tile__u32(b + 28) != 0)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: reserved field not 0");
	meta_offset = tile__u32(b + 16);
	meta_size = tile__u32(b + 20);
	if (meta_offset != TILE__HEADER_SIZE)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: meta_offset %u (expected 32)", meta_offset);
	if (meta_size < tile__meta_header_size(m) || meta_size % 4 || (uint64_t)meta_offset + meta_size > total)
		return tile__fail(TILE_ERROR_BAD_BLOB, "header: meta_size %u does not fit the blob of %u bytes", meta_size, total);
	if (tile__crc32(b + TILE__HEADER_SIZE, total - TILE__HEADER_SIZE) != tile__u32(b + 12))
		return tile__fail(TILE_ERROR_CHECKSUM, "header: checksum mismatch (blob corrupted)");
	return TILE_SUCCESS;
}

/* The metadata arrays in order (FORMAT.md). */
enum {
	TILE__A_KERNELS, TILE__A_PARAMS, TILE__A_VARIANTS, TILE__A_CONSTEXPRS, TILE__A_IMAGES, TILE__A_KEYS, TILE__A_TUNE,
	TILE__A_HEURISTICS, TILE__A_RECIPES, TILE__A_PREDS, TILE__A_GRID_CODE, TILE__A_STRTAB, TILE__N_ARRAYS
};

/* Reads the metadata header and places the arrays; the sizes must add up
 * to meta_size exactly. A version 5 header ends before n_preds: no preds. */
static tile_status tile__check_layout(tile_module *m, const uint8_t **arrays)
{
	const uint8_t *h = m->blob + TILE__HEADER_SIZE;
	uint32_t meta_size = tile__u32(m->blob + 20), grid_padded, i;
	uint64_t sizes[TILE__N_ARRAYS], offsets[TILE__N_ARRAYS], want = tile__meta_header_size(m);
	m->n_kernels = tile__u32(h);
	m->n_params = tile__u32(h + 4);
	m->n_variants = tile__u32(h + 8);
	m->n_constexprs = tile__u32(h + 12);
	m->n_images = tile__u32(h + 16);
	m->grid_code_size = tile__u32(h + 20);
	m->strtab_size = tile__u32(h + 24);
	m->n_groups = tile__u32(h + 28);
	m->n_keys = tile__u32(h + 32);
	m->tune_words = tile__u32(h + 36);
	m->n_heuristics = tile__u32(h + 40);
	m->n_recipes = tile__u32(h + 44);
	m->n_preds = want > TILE__META_HEADER_SIZE_V5 ? tile__u32(h + 48) : 0;
	if (m->strtab_size % 4)
		return tile__fail(TILE_ERROR_BAD_BLOB, "metadata: strtab_size %u is not a multiple of 4", m->strtab_size);
	grid_padded = m->grid_code_size + (4 - m->grid_code_size % 4) % 4;
	sizes[TILE__A_KERNELS] = (uint64_t)m->n_kernels * TILE__KERNEL_SIZE;
	sizes[TILE__A_PARAMS] = (uint64_t)m->n_params * TILE__PARAM_SIZE;
	sizes[TILE__A_VARIANTS] = (uint64_t)m->n_variants * TILE__VARIANT_SIZE;
	sizes[TILE__A_CONSTEXPRS] = (uint64_t)m->n_constexprs * TILE__CONSTEXPR_SIZE;
	sizes[TILE__A_IMAGES] = (uint64_t)m->n_images * TILE__IMAGE_SIZE;
	sizes[TILE__A_KEYS] = (uint64_t)m->n_keys * 4;
	sizes[TILE__A_TUNE] = (uint64_t)m->tune_words * 8;
	sizes[TILE__A_HEURISTICS] = (uint64_t)m->n_heuristics * TILE__HEURISTIC_SIZE;
	sizes[TILE__A_RECIPES] = (uint64_t)m->n_recipes * TILE__RECIPE_SIZE;
	sizes[TILE__A_PREDS] = (uint64_t)m->n_preds * TILE__PRED_SIZE;
	sizes[TILE__A_GRID_CODE] = m->grid_code_size > 0xfffffffcu ? UINT64_C(1) << 33 : grid_padded;
	sizes[TILE__A_STRTAB] = m->strtab_size;
	for (i = 0; i < TILE__N_ARRAYS; i++) {
		offsets[i] = want;
		want += sizes[i];
	}
	if (want != meta_size)
		return tile__fail(TILE_ERROR_BAD_BLOB, "metadata: counts describe %llu bytes but meta_size is %u",
				  (unsigned long long)want, meta_size);
	/* Pointers only now: the offsets are known to lie inside the metadata. */
	for (i = 0; i < TILE__N_ARRAYS; i++)
		arrays[i] = h + offsets[i];
	for (i = m->grid_code_size; i < grid_padded; i++)
		if (arrays[TILE__A_GRID_CODE][i] != 0)
			return tile__fail(TILE_ERROR_BAD_BLOB, "metadata: grid_code padding not zero");
	if (m->n_groups > m->n_images)
		return tile__fail(TILE_ERROR_BAD_BLOB, "metadata: %u groups but only %u images", m->n_groups, m->n_images);
	m->grid_code = arrays[TILE__A_GRID_CODE];
	m->strtab = arrays[TILE__A_STRTAB];
	m->constexprs = arrays[TILE__A_CONSTEXPRS];
	return TILE_SUCCESS;
}

static tile_status tile__check_params(tile_module *m, const uint8_t *p)
{
	uint32_t i;
	for (i = 0; i < m->n_params; i++, p += TILE__PARAM_SIZE) {
		tile__param *d = &m->params[i];
		int size_ok;
		d->name = tile__u32(p);
		d->kind = p[4];
		d->size = p[5];
		d->dtype = p[6];
		d->hidden = p[7] & 1;
		d->flags = p[7];
		d->desc_rank = 0;
		d->map_index = 0;
		if (!tile__str_ok(m, d->name, 0))
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: name is not a string of the table", i);
		switch (d->kind) {
		case TILE__KIND_PTR: size_ok = d->size == 8; break;
		case TILE__KIND_INT:
		case TILE__KIND_UINT: size_ok = d->size == 1 || d->size == 2 || d->size == 4 || d->size == 8; break;
		case TILE__KIND_FLOAT: size_ok = d->size == 2 || d->size == 4 || d->size == 8; break;
		case TILE__KIND_TENSORMAP: size_ok = d->size == TILE__TENSORMAP_SIZE; break;
		default: return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: kind %u (0..4)", i, d->kind);
		}
		if (!size_ok)
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: size %u invalid for kind %u", i, d->size, d->kind);
		if (d->dtype < 1 || d->dtype > 15)
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: dtype %u (1..15)", i, d->dtype);
		if (p[7] & ~7u)
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: flags 0x%x (only bits 0..2 defined)", i, p[7]);
		if (p[7] > 1 && d->kind == TILE__KIND_TENSORMAP)
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: flags 0x%x on a tensor map (0: a descriptor's, 1: hidden)", i,
					  p[7]);
		if ((p[7] & 6u) && d->kind != TILE__KIND_PTR)
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: reset_to_zero/restore_value on a parameter that is not a pointer", i);
		if (tile__u32(p + 8) != 0)
			return tile__fail(TILE_ERROR_BAD_BLOB, "param %u: reserved field not 0", i);
	}
	return TILE_SUCCESS;
}

static tile_status tile__check_constexprs(tile_module *m)
{
	uint32_t i;
	for (i = 0; i < m->n_constexprs; i++) {
		const uint8_t *c = m->constexprs + (size_t)i * TILE__CONSTEXPR_SIZE;
		uint64_t value = tile__u64(c + 8);
		if (!tile__str_ok(m, tile__u32(c), 0))
			return tile__fail(TILE_ERROR_BAD_BLOB, "constexpr %u: name is not a string of the table", i);
		if (c[4] > 4)
			return tile__fail(TILE_ERROR_BAD_BLOB, "constexpr %u: kind %u (0..4)", i, c[4]);
		if (c[5] || c[6] || c[7])
			return tile__fail(TILE_ERROR_BAD_BLOB, "constexpr %u: reserved bytes not 0", i);
		if (c[4] == 2 && value > 1)
			return tile__fail(TILE_ERROR_BAD_BLOB, "constexpr %u: bool value %llu", i, (unsigned long long)value);
		if (c[4] == 3 && (value > 0xffffffffu || !tile__str_ok(m, (uint32_t)value, 1)))
			return tile__fail(TILE_ERROR_BAD_BLOB, "constexpr %u: string value is not a string of the table", i);
		if (c[4] == 4 && (value < 1 || value > 15))
			return tile__fail(TILE_ERROR_BAD_BLOB, "constexpr %u: dtype %llu (1..15)", i, (unsigned long long)value);
	}
	return TILE_SUCCESS;
}

typedef struct tile__name_ref {
	const tile_module *m;
	uint32_t name, index;
} tile__name_ref;

/* By name, then by index; the same offset is the same name without a strcmp. */
static int tile__name_ref_cmp(const void *a, const void *b)
{
	const tile__name_ref *x = (const tile__name_ref *)a, *y = (const tile__name_ref *)b;
	int c = x->name == y->name ? 0 : strcmp(tile__str(x->m, x->name), tile__str(x->m, y->name));
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* first[i]: the first kernel with kernel i's name (i itself when none comes
 * before it), found by sorting rather than comparing every pair, so that a
 * blob of many kernels cannot make validation quadratic. Kernels whose name
 * is not a string of the table are left out: their own check fails first. */
static tile_status tile__kernel_first_names(const tile_module *m, const uint8_t *p, uint32_t *first)
{
	tile__name_ref *refs = (tile__name_ref *)tile__alloc_array(m->n_kernels, sizeof *refs);
	uint32_t i, n = 0;
	if (!refs)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	for (i = 0; i < m->n_kernels; i++, p += TILE__KERNEL_SIZE) {
		first[i] = i;
		if (tile__str_ok(m, tile__u32(p), 0)) {
			refs[n].m = m;
			refs[n].name = tile__u32(p);
			refs[n++].index = i;
		}
	}
	qsort(refs, n, sizeof *refs, tile__name_ref_cmp);
	for (i = 1; i < n; i++)
		if (refs[i - 1].name == refs[i].name || strcmp(tile__str(m, refs[i - 1].name), tile__str(m, refs[i].name)) == 0)
			first[refs[i].index] = first[refs[i - 1].index];
	TILE_FREE(refs);
	return TILE_SUCCESS;
}

/* Kernels own disjoint parameter and variant ranges; `owned` marks them.
 * first: from tile__kernel_first_names. */
static tile_status tile__check_kernel_records(tile_module *m, const uint8_t *p, uint8_t *param_owned, uint8_t *variant_owned,
					      const uint32_t *first)
{
	uint32_t i, j;
	for (i = 0; i < m->n_kernels; i++, p += TILE__KERNEL_SIZE) {
		tile__kernel *k = &m->kernels[i];
		k->name = tile__u32(p);
		k->first_param = tile__u32(p + 4);
		k->n_params = tile__u32(p + 8);
		k->first_variant = tile__u32(p + 12);
		k->n_variants = tile__u32(p + 16);
		k->n_configs = tile__u32(p + 20);
		if (!tile__str_ok(m, k->name, 0))
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: name is not a string of the table", i);
		if (first[i] != i)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: name '%s' already used by kernel %u", i, tile__str(m, k->name), first[i]);
		if (k->n_params > TILE__MAX_PARAMS)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u parameters (at most %u)", i, k->n_params, TILE__MAX_PARAMS);
		if ((uint64_t)k->first_param + k->n_params > m->n_params)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: parameter range %u+%u outside the %u parameters", i,
					  k->first_param, k->n_params, m->n_params);
		if (k->n_variants == 0)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: no variants", i);
		if ((uint64_t)k->first_variant + k->n_variants > m->n_variants)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: variant range %u+%u outside the %u variants", i,
					  k->first_variant, k->n_variants, m->n_variants);
		if (k->n_configs < 1 || k->n_configs > k->n_variants)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u configs (1..%u, each needs a variant)", i, k->n_configs,
					  k->n_variants);
		k->n_visible = 0;
		k->pred_mask = k->div_mask[0] = k->div_mask[1] = k->div_mask[2] = 0;
		for (j = 0; j < k->n_params; j++) {
			const tile__param *q = &m->params[k->first_param + j];
			if (param_owned[k->first_param + j]++)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: parameter range overlaps another kernel's", i);
			if (!q->hidden && k->n_visible != j)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: parameter %u is visible after a hidden one", i, j);
			k->n_visible += !q->hidden;
		}
		for (j = 0; j < k->n_variants; j++)
			if (variant_owned[k->first_variant + j]++)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: variant range overlaps another kernel's", i);
	}
	for (j = 0; j < m->n_variants; j++)
		if (!variant_owned[j])
			return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: belongs to no kernel", j);
	return TILE_SUCCESS;
}

/* A descriptor's tensor map directly follows its descriptor group: r
 * int64 strides right before it (the run of int64 parameters there, 1..5
 * long), r int32 shapes before those, and a pointer of the map's dtype
 * before them, all parameters of the same kernel. A hidden map (flags 1,
 * hence among the trailing hidden parameters) follows no group. At most
 * TILE__MAX_MAPS of both sorts a kernel. Numbers the maps for the slots'
 * caches. */
static tile_status tile__check_maps(tile_module *m, uint32_t ki)
{
	tile__kernel *k = &m->kernels[ki];
	tile__param *p = &m->params[k->first_param];
	uint32_t j, r, i, n = 0;
	int ok;
	for (j = 0; j < k->n_params; j++)
		n += p[j].kind == TILE__KIND_TENSORMAP;
	if (n > TILE__MAX_MAPS)
		return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u tensor maps (at most %u, descriptors' and hidden ones together)",
				  ki, n, TILE__MAX_MAPS);
	for (j = 0; j < k->n_params; j++) {
		if (p[j].kind != TILE__KIND_TENSORMAP)
			continue;
		p[j].map_index = m->n_maps++;
		k->map_mask |= UINT64_C(1) << j;
		if (p[j].flags) {
			k->hidden_maps |= UINT64_C(1) << j;
			continue;
		}
		for (r = 0; r < j && r <= TILE_TENSORDESC_MAX_RANK && p[j - 1 - r].kind == TILE__KIND_INT && p[j - 1 - r].size == 8; r++)
			;
		ok = r >= 1 && r <= TILE_TENSORDESC_MAX_RANK && j >= 2 * r + 1;
		for (i = 1; ok && i <= r; i++)
			ok = p[j - r - i].kind == TILE__KIND_INT && p[j - r - i].size == 4;
		if (!ok || p[j - 1 - 2 * r].kind != TILE__KIND_PTR || p[j - 1 - 2 * r].dtype != p[j].dtype)
			return tile__fail(TILE_ERROR_BAD_BLOB,
					  "kernel %u: tensor map parameter %u does not follow a descriptor group (a pointer of "
					  "its dtype, rank int32 shapes, rank int64 strides; rank 1..5)",
					  ki, j);
		p[j].desc_rank = (uint8_t)r;
	}
	k->copy_args = k->n_params > k->n_visible || k->map_mask;
	return TILE_SUCCESS;
}

static tile_status tile__check_kernels(tile_module *m, const uint8_t *p, uint8_t *param_owned, uint8_t *variant_owned)
{
	uint32_t *first = (uint32_t *)tile__alloc_array(m->n_kernels, sizeof *first), i;
	tile_status st;
	if (!first)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	st = tile__kernel_first_names(m, p, first);
	if (!st)
		st = tile__check_kernel_records(m, p, param_owned, variant_owned, first);
	for (i = 0; !st && i < m->n_kernels; i++)
		st = tile__check_maps(m, i);
	TILE_FREE(first);
	return st;
}

static int tile__popcount(uint64_t x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

static tile_status tile__check_variants(tile_module *m, const uint8_t *p, uint8_t *config_seen)
{
	uint32_t i, j, k;
	for (k = 0; k < m->n_kernels; k++) {
		memset(config_seen, 0, m->kernels[k].n_configs);
		const tile__kernel *kern = &m->kernels[k];
		uint64_t div;
		uint32_t int_mask = 0, visible_mask = kern->n_visible >= 32 ? 0xffffffffu : (1u << kern->n_visible) - 1;
		for (j = 0; j < kern->n_visible && j < 32; j++)
			if (m->params[kern->first_param + j].kind == TILE__KIND_INT || m->params[kern->first_param + j].kind == TILE__KIND_UINT)
				int_mask |= 1u << j;
		for (i = kern->first_variant; i < kern->first_variant + kern->n_variants; i++) {
			const uint8_t *r = p + (size_t)i * TILE__VARIANT_SIZE;
			tile__variant *v = &m->variants[i];
			int c0, c1, c2;
			v->kernel = tile__u32(r);
			v->symbol = tile__u32(r + 4);
			v->group = tile__u32(r + 8);
			v->first_constexpr = tile__u32(r + 12);
			v->n_constexprs = tile__u32(r + 16);
			v->num_warps = r[20];
			v->producer_warps = r[21];
			v->num_stages = (uint16_t)tile__u16(r + 22);
			v->shared_static = tile__u32(r + 24);
			v->shared_dynamic = tile__u32(r + 28);
			c0 = (int)tile__u16(r + 32);
			c1 = (int)tile__u16(r + 34);
			c2 = (int)tile__u16(r + 36);
			v->n_regs = (uint16_t)tile__u16(r + 38);
			v->pred_div16 = tile__u32(r + 40);
			v->pred_eq1 = tile__u32(r + 44);
			v->grid_offset = tile__u32(r + 48);
			v->grid_size = tile__u32(r + 52);
			v->spill_stores = tile__u32(r + 56);
			v->spill_loads = tile__u32(r + 60);
			v->config = tile__u32(r + 64);
			v->source_config = tile__u32(r + 68);
			v->pred_div8 = tile__u32(r + 72);
			v->pred_div4 = tile__u32(r + 76);
			if (v->kernel != k)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: kernel %u but listed by kernel %u", i, v->kernel, k);
			if (!tile__str_ok(m, v->symbol, 0))
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: symbol is not a string of the table", i);
			if (v->config >= kern->n_configs)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: config %u (kernel %u has %u)", i, v->config, k,
						  kern->n_configs);
			config_seen[v->config] = 1;
			if (v->group >= m->n_groups)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: group %u (blob has %u)", i, v->group, m->n_groups);
			if ((uint64_t)v->first_constexpr + v->n_constexprs > m->n_constexprs)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: constexpr range %u+%u outside the %u constexprs", i,
						  v->first_constexpr, v->n_constexprs, m->n_constexprs);
			if (v->num_warps < 1 || v->num_warps > 32)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: num_warps %u (1..32)", i, v->num_warps);
			if (v->num_warps + v->producer_warps > 32)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: num_warps %u and %u producer warps (at most 32)", i,
						  v->num_warps, v->producer_warps);
			if (c0 == 0 && c1 == 0 && c2 == 0)
				c0 = c1 = c2 = 1;
			if (c0 == 0 || c1 == 0 || c2 == 0)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: cluster %d x %d x %d", i, c0, c1, c2);
			v->cluster_dim[0] = (uint16_t)c0;
			v->cluster_dim[1] = (uint16_t)c1;
			v->cluster_dim[2] = (uint16_t)c2;
			v->cluster = c0 != 1 || c1 != 1 || c2 != 1;
			div = v->pred_div16 | v->pred_div8 | v->pred_div4;
			if ((div | v->pred_eq1) & ~visible_mask)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: predicate on a parameter the kernel does not have", i);
			if (v->pred_eq1 & ~int_mask)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: pred_eq1 on a parameter that is not an integer", i);
			if ((v->pred_div16 & v->pred_div8) | (v->pred_div16 & v->pred_div4) | (v->pred_div8 & v->pred_div4) |
			    (div & v->pred_eq1))
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: more than one predicate on a parameter", i);
			for (j = 0; j < kern->n_visible && j < 32; j++)
				if ((div >> j & 1) && m->params[kern->first_param + j].kind >= TILE__KIND_FLOAT)
					return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: pred_div%s on %s parameter %u", i,
							  v->pred_div16 >> j & 1 ? "16" : v->pred_div8 >> j & 1 ? "8" : "4",
							  m->params[kern->first_param + j].kind == TILE__KIND_FLOAT ? "float" : "tensor-map", j);
			if ((v->spill_stores == TILE__SPILLS_UNKNOWN) != (v->spill_loads == TILE__SPILLS_UNKNOWN) ||
			    (v->spill_stores != TILE__SPILLS_UNKNOWN &&
			     (v->spill_stores > TILE__MAX_SPILL || v->spill_loads > TILE__MAX_SPILL)))
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: spills %u stored, %u loaded (at most %u, or both unknown)",
						  i, v->spill_stores, v->spill_loads, TILE__MAX_SPILL);
			if ((uint64_t)v->grid_offset + v->grid_size > m->grid_code_size)
				return tile__fail(TILE_ERROR_BAD_BLOB, "variant %u: grid program %u+%u outside grid_code of %u bytes", i,
						  v->grid_offset, v->grid_size, m->grid_code_size);
			v->block = 32u * v->num_warps;
			/* divisible by 16 or == 1 outranks by 8, which outranks by 4 (FORMAT.md) */
			v->n_preds = 3 * (tile__popcount(v->pred_div16) + tile__popcount(v->pred_eq1)) +
				     2 * tile__popcount(v->pred_div8) + tile__popcount(v->pred_div4);
			m->kernels[k].pred_mask |= div | v->pred_eq1;
			m->kernels[k].div_mask[0] |= v->pred_div16;
			m->kernels[k].div_mask[1] |= v->pred_div8;
			m->kernels[k].div_mask[2] |= v->pred_div4;
			if (v->grid_size) {
				tile_status st = tile__grid_check(m, i);
				if (st)
					return st;
			}
		}
		for (j = 0; j < kern->n_configs; j++)
			if (!config_seen[j])
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: config %u has no variant", k, j);
	}
	return TILE_SUCCESS;
}

/* Predicates on parameters 32 and up (version 6), once the variants are
 * decoded: each names a visible parameter of its variant's kernel from 32
 * on (the record's masks hold 0..31) and what it asks of it, by the rules
 * of the masks. (variant, param) ascends strictly, so a parameter has one
 * predicate at most. They join the variant's masks and rank and the
 * kernel's masks. */
static tile_status tile__check_preds(tile_module *m, const uint8_t *p)
{
	uint32_t i, prev_variant = 0, prev_param = 0;
	for (i = 0; i < m->n_preds; i++, p += TILE__PRED_SIZE) {
		uint32_t vi = tile__u32(p), j = tile__u16(p + 4), by = p[6];
		tile__variant *v;
		tile__kernel *k;
		const tile__param *q;
		uint64_t bit;
		if (vi >= m->n_variants)
			return tile__fail(TILE_ERROR_BAD_BLOB, "pred %u: variant %u (blob has %u)", i, vi, m->n_variants);
		if (i && (vi < prev_variant || (vi == prev_variant && j <= prev_param)))
			return tile__fail(TILE_ERROR_BAD_BLOB,
					  "pred %u: variant %u, parameter %u after pred %u's variant %u, parameter %u (preds ascend "
					  "by variant, then parameter; one a parameter)",
					  i, vi, j, i - 1, prev_variant, prev_param);
		prev_variant = vi;
		prev_param = j;
		v = &m->variants[vi];
		k = &m->kernels[v->kernel];
		if (j < 32 || j >= k->n_visible)
			return tile__fail(TILE_ERROR_BAD_BLOB,
					  "pred %u: parameter %u of kernel %u (%u visible) is not a visible parameter from 32 on", i,
					  j, v->kernel, k->n_visible);
		q = &m->params[k->first_param + j];
		if (by != 16 && by != 8 && by != 4 && by != 1)
			return tile__fail(TILE_ERROR_BAD_BLOB, "pred %u: predicate %u (16, 8, 4: divisible by it; 1: equal to 1)", i,
					  by);
		if (by != 1 && q->kind >= TILE__KIND_FLOAT)
			return tile__fail(TILE_ERROR_BAD_BLOB, "pred %u: divisible by %u on %s parameter %u", i, by,
					  q->kind == TILE__KIND_FLOAT ? "float" : "tensor-map", j);
		if (by == 1 && q->kind != TILE__KIND_INT && q->kind != TILE__KIND_UINT)
			return tile__fail(TILE_ERROR_BAD_BLOB, "pred %u: equal to 1 on parameter %u, which is not an integer", i, j);
		if (p[7])
			return tile__fail(TILE_ERROR_BAD_BLOB, "pred %u: reserved byte not 0", i);
		bit = UINT64_C(1) << j;
		if (by == 16) {
			v->pred_div16 |= bit;
			k->div_mask[0] |= bit;
		} else if (by == 8) {
			v->pred_div8 |= bit;
			k->div_mask[1] |= bit;
		} else if (by == 4) {
			v->pred_div4 |= bit;
			k->div_mask[2] |= bit;
		} else {
			v->pred_eq1 |= bit;
		}
		v->n_preds += by == 8 ? 2 : by == 4 ? 1 : 3; /* the rank, as check_variants weighs the masks */
		k->pred_mask |= bit;
	}
	return TILE_SUCCESS;
}

/* Recipes, once the variants are decoded: each names a hidden tensor map
 * of its variant's kernel, the visible pointer of the map's dtype it
 * addresses, a rank, a program leaving the shape and the strides but the
 * last (2 * rank - 1 values), and the block shape. (variant, param)
 * ascends strictly, so each variant's recipes are one range. */
static tile_status tile__check_recipes(tile_module *m, const uint8_t *p)
{
	uint32_t i, j;
	for (i = 0; i < m->n_recipes; i++, p += TILE__RECIPE_SIZE) {
		tile__recipe *r = &m->recipes[i];
		const tile__recipe *prev = i ? r - 1 : NULL;
		const tile__param *map, *base;
		const tile__kernel *k;
		tile__variant *v;
		const uint8_t *code;
		uint32_t values;
		char who[48];
		tile_status st;
		r->variant = tile__u32(p);
		r->param = tile__u32(p + 4);
		r->base = tile__u32(p + 8);
		r->rank = tile__u32(p + 12);
		r->code_offset = tile__u32(p + 16);
		r->code_size = tile__u32(p + 20);
		for (j = 0; j < 5; j++)
			r->block[j] = (int32_t)tile__u16(p + 24 + 2 * j);
		if (r->variant >= m->n_variants)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: variant %u (blob has %u)", i, r->variant, m->n_variants);
		if (prev && prev->variant == r->variant && prev->param == r->param)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: variant %u, parameter %u again (recipe %u)", i, r->variant,
					  r->param, i - 1);
		if (prev && (prev->variant > r->variant || (prev->variant == r->variant && prev->param > r->param)))
			return tile__fail(TILE_ERROR_BAD_BLOB,
					  "recipe %u: variant %u, parameter %u after recipe %u's variant %u, parameter %u (recipes "
					  "ascend by variant, then parameter)",
					  i, r->variant, r->param, i - 1, prev->variant, prev->param);
		v = &m->variants[r->variant];
		k = &m->kernels[v->kernel];
		if (r->param >= k->n_params || !(k->hidden_maps >> r->param & 1))
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: parameter %u of kernel %u is not a hidden tensor map", i,
					  r->param, v->kernel);
		map = &m->params[k->first_param + r->param];
		base = r->base < k->n_params ? &m->params[k->first_param + r->base] : NULL;
		if (!base || base->kind != TILE__KIND_PTR || base->hidden)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: base %u is not a visible pointer parameter of kernel %u", i,
					  r->base, v->kernel);
		if (base->dtype != map->dtype)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: base %u points to dtype %u, the tensor map's is %u", i, r->base,
					  base->dtype, map->dtype);
		if (r->rank < 1 || r->rank > TILE_TENSORDESC_MAX_RANK)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: rank %u (1..%d)", i, r->rank, TILE_TENSORDESC_MAX_RANK);
		if (r->code_size < 2 || (uint64_t)r->code_offset + r->code_size > m->grid_code_size)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: program %u+%u outside grid_code of %u bytes (or under 2 bytes)",
					  i, r->code_offset, r->code_size, m->grid_code_size);
		code = m->grid_code + r->code_offset;
		values = 2 * r->rank - 1;
		if (code[0] != values)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: a program of %u values for rank %u (2 * rank - 1 = %u)", i,
					  code[0], r->rank, values);
		snprintf(who, sizeof who, "recipe %u: program", i);
		if ((st = tile__program_check(m, k, v, code, r->code_size, values, who)) != TILE_SUCCESS)
			return st;
		for (j = 0; j < 5; j++) {
			if (j < r->rank && r->block[j] == 0)
				return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: block[%u] = 0 (1..65535)", i, j);
			if (j >= r->rank && r->block[j] != 0)
				return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: block[%u] = %d past rank %u (must be 0)", i, j,
						  (int)r->block[j], r->rank);
		}
		if (tile__u16(p + 34) != 0)
			return tile__fail(TILE_ERROR_BAD_BLOB, "recipe %u: reserved field not 0", i);
		if (!v->n_recipes)
			v->first_recipe = i;
		v->n_recipes++;
	}
	return TILE_SUCCESS;
}

static int tile__image_cmp(const void *a, const void *b)
{
	const tile__image *x = (const tile__image *)a, *y = (const tile__image *)b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static tile_status tile__check_images(tile_module *m, const uint8_t *p, uint8_t *group_seen)
{
	uint32_t data_start = TILE__HEADER_SIZE + tile__u32(m->blob + 20), i;
	tile__image *sorted;
	for (i = 0; i < m->n_images; i++, p += TILE__IMAGE_SIZE) {
		tile__image *im = &m->images[i];
		im->group = tile__u32(p);
		im->kind = tile__u32(p + 4);
		im->arch = tile__u32(p + 8);
		im->flags = tile__u32(p + 12);
		im->offset = tile__u32(p + 16);
		im->size = tile__u32(p + 20);
		im->raw_size = tile__u32(p + 24);
		im->compression = tile__u32(p + 28);
		if (im->group >= m->n_groups)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: group %u (blob has %u)", i, im->group, m->n_groups);
		if (im->kind > TILE__IMAGE_PTX)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: kind %u (0 cubin, 1 PTX)", i, im->kind);
		if (im->arch < 10 || im->arch > 9999)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: arch %u", i, im->arch);
		if (im->flags & ~(uint32_t)(TILE__IMAGE_ARCH_SPECIFIC | TILE__IMAGE_TENSORMAPS | TILE__IMAGE_PRODUCER))
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: flags 0x%x (only bits 0 to 2 defined)", i, im->flags);
		if (im->offset % 4 || im->offset < data_start || (uint64_t)im->offset + im->size > m->size)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: data %u+%u outside the image area %u..%lu", i,
					  im->offset, im->size, data_start, (unsigned long)m->size);
		if (im->raw_size == 0 || im->raw_size > TILE__MAX_RAW_SIZE)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: raw_size %u (1..256 MiB)", i, im->raw_size);
		if (im->compression > 1)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: compression %u (0 stored, 1 zlib)", i, im->compression);
		if (im->compression == 0 && im->size != im->raw_size)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: stored with size %u != raw_size %u", i, im->size, im->raw_size);
		if (im->compression == 1 && im->size < 8)
			return tile__fail(TILE_ERROR_BAD_BLOB, "image %u: zlib stream of %u bytes", i, im->size);
		group_seen[im->group] = 1;
	}
	for (i = 0; i < m->n_groups; i++)
		if (!group_seen[i])
			return tile__fail(TILE_ERROR_BAD_BLOB, "group %u: no image", i);
	if (m->n_images < 2)
		return TILE_SUCCESS;
	sorted = (tile__image *)TILE_MALLOC(m->n_images * sizeof *sorted);
	if (!sorted)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	memcpy(sorted, m->images, m->n_images * sizeof *sorted);
	qsort(sorted, m->n_images, sizeof *sorted, tile__image_cmp);
	for (i = 1; i < m->n_images; i++)
		if ((uint64_t)sorted[i - 1].offset + sorted[i - 1].size > sorted[i].offset)
			break;
	if (i < m->n_images) {
		uint32_t at = sorted[i].offset;
		TILE_FREE(sorted);
		return tile__fail(TILE_ERROR_BAD_BLOB, "images: data ranges overlap at offset %u", at);
	}
	TILE_FREE(sorted);
	return TILE_SUCCESS;
}

static void tile__module_free(tile_module *m)
{
	uint32_t i;
	for (i = 0; m->kernels && i < m->n_kernels; i++)
		TILE_FREE(m->kernels[i].runtime);
	TILE_FREE(m->tune);
	TILE_FREE(m->kernels);
	TILE_FREE(m->params);
	TILE_FREE(m->variants);
	TILE_FREE(m->images);
	TILE_FREE(m->recipes);
	TILE_FREE(m);
}

static tile_status tile__validate(tile_module *m)
{
	const uint8_t *arrays[TILE__N_ARRAYS];
	uint8_t *marks;
	uint32_t n_marks;
	tile_status st = tile__check_header(m);
	if (!st)
		st = tile__check_layout(m, arrays);
	if (st)
		return st;
	m->kernels = (tile__kernel *)tile__alloc_zeroed(m->n_kernels, sizeof *m->kernels);
	m->params = (tile__param *)tile__alloc_array(m->n_params, sizeof *m->params);
	m->variants = (tile__variant *)tile__alloc_zeroed(m->n_variants, sizeof *m->variants);
	m->images = (tile__image *)tile__alloc_array(m->n_images, sizeof *m->images);
	m->recipes = (tile__recipe *)tile__alloc_array(m->n_recipes, sizeof *m->recipes);
	/* marks: params owned, variants owned, groups with an image, configs
	 * seen (a kernel has at most as many configs as variants) */
	n_marks = m->n_params + 2 * m->n_variants + m->n_groups;
	marks = (uint8_t *)tile__alloc_zeroed(n_marks, 1);
	if (!m->kernels || !m->params || !m->variants || !m->images || !m->recipes || !marks) {
		TILE_FREE(marks);
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	st = tile__check_params(m, arrays[TILE__A_PARAMS]);
	if (!st)
		st = tile__check_constexprs(m);
	if (!st)
		st = tile__check_kernels(m, arrays[TILE__A_KERNELS], marks, marks + m->n_params);
	if (!st)
		st = tile__check_variants(m, arrays[TILE__A_VARIANTS], marks + m->n_params + m->n_variants + m->n_groups);
	if (!st)
		st = tile__check_preds(m, arrays[TILE__A_PREDS]);
	if (!st)
		st = tile__check_recipes(m, arrays[TILE__A_RECIPES]);
	if (!st)
		st = tile__check_images(m, arrays[TILE__A_IMAGES], marks + m->n_params + m->n_variants);
	if (!st)
		st = tile__check_tables(m, arrays[TILE__A_KERNELS], arrays[TILE__A_KEYS], arrays[TILE__A_TUNE]);
	if (!st)
		st = tile__check_heuristics(m, arrays[TILE__A_KERNELS], arrays[TILE__A_HEURISTICS]);
	TILE_FREE(marks);
	return st;
}

TILEDEF tile_status tile_module_create(const void *blob, size_t size, tile_module **out)
{
	tile_module *m;
	tile_status st;
	if (!out)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_module_create: out is NULL");
	*out = NULL;
	if (!blob)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_module_create: blob is NULL");
	m = (tile_module *)TILE_MALLOC(sizeof *m);
	if (!m)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	memset(m, 0, sizeof *m);
	m->blob = (const uint8_t *)blob;
	m->size = size;
	st = tile__validate(m);
	if (!st && pthread_mutex_init(&m->lock, NULL) != 0)
		st = tile__fail(TILE_ERROR_OUT_OF_MEMORY, "pthread_mutex_init failed");
	if (st) {
		tile__module_free(m);
		return st;
	}
#ifdef TILE_DEBUG
	m->alive = TILE__ALIVE;
#endif
	*out = m;
	return TILE_SUCCESS;
}

TILEDEF int tile_kernel_count(const tile_module *m) { return m ? (int)m->n_kernels : 0; }

TILEDEF int tile_kernel_index(const tile_module *m, const char *name)
{
	uint32_t i;
	if (!m || !name)
		return -1;
	for (i = 0; i < m->n_kernels; i++)
		if (strcmp(tile__str(m, m->kernels[i].name), name) == 0)
			return (int)i;
	return -1;
}

static const tile__kernel *tile__kernel_at(const tile_module *m, int kernel)
{
	return m && kernel >= 0 && (uint32_t)kernel < m->n_kernels ? &m->kernels[kernel] : NULL;
}

TILEDEF const char *tile_kernel_name(const tile_module *m, int kernel)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	return k ? tile__str(m, k->name) : NULL;
}

TILEDEF int tile_param_count(const tile_module *m, int kernel)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	return k ? (int)k->n_params : -1;
}

TILEDEF tile_status tile_param_get_info(const tile_module *m, int kernel, int param, tile_param_info *out)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	const tile__param *p;
	if (!k || !out || param < 0 || (uint32_t)param >= k->n_params)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_param_get_info: no parameter %d of kernel %d", param, kernel);
	p = &m->params[k->first_param + (uint32_t)param];
	out->name = tile__str(m, p->name);
	out->kind = p->kind;
	out->size = p->size;
	out->dtype = p->dtype;
	out->hidden = p->hidden;
	out->reset_to_zero = (p->flags >> 1) & 1;
	out->restore_value = (p->flags >> 2) & 1;
	return TILE_SUCCESS;
}

TILEDEF int tile_variant_count(const tile_module *m, int kernel)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	return k ? (int)k->n_variants : -1;
}

static const tile__variant *tile__variant_at(const tile_module *m, int kernel, int variant)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	if (!k || variant < 0 || (uint32_t)variant >= k->n_variants)
		return NULL;
	return &m->variants[k->first_variant + (uint32_t)variant];
}

TILEDEF tile_status tile_variant_get_info(const tile_module *m, int kernel, int variant, tile_variant_info *out)
{
	const tile__variant *v = tile__variant_at(m, kernel, variant);
	if (!v || !out)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_variant_get_info: no variant %d of kernel %d", variant, kernel);
	out->symbol = tile__str(m, v->symbol);
	out->group = (int)v->group;
	out->num_warps = v->num_warps;
	out->producer_warps = v->producer_warps;
	out->num_stages = v->num_stages;
	out->shared_static = v->shared_static;
	out->shared_dynamic = v->shared_dynamic;
	memcpy(out->cluster, v->cluster_dim, sizeof out->cluster);
	out->n_regs = v->n_regs;
	out->spill_stores = v->spill_stores == TILE__SPILLS_UNKNOWN ? -1 : (int)v->spill_stores;
	out->spill_loads = v->spill_loads == TILE__SPILLS_UNKNOWN ? -1 : (int)v->spill_loads;
	/* parameters 0..31; n_high_preds counts the rest */
	out->pred_div16 = (uint32_t)v->pred_div16;
	out->pred_div8 = (uint32_t)v->pred_div8;
	out->pred_div4 = (uint32_t)v->pred_div4;
	out->pred_eq1 = (uint32_t)v->pred_eq1;
	out->n_constexprs = (int)v->n_constexprs;
	out->has_grid_program = v->grid_size != 0;
	out->config = (int)v->config;
	out->source_config = v->source_config == TILE__NO_SOURCE_CONFIG ? -1 : (int)v->source_config;
	out->n_recipes = (int)v->n_recipes;
	out->n_high_preds = tile__popcount((v->pred_div16 | v->pred_div8 | v->pred_div4 | v->pred_eq1) >> 32);
	return TILE_SUCCESS;
}

TILEDEF int tile_variant_predicate(const tile_module *m, int kernel, int variant, int param)
{
	const tile__variant *v = tile__variant_at(m, kernel, variant);
	uint64_t bit;
	if (!v || param < 0 || (uint32_t)param >= m->kernels[kernel].n_visible)
		return -1;
	bit = UINT64_C(1) << param;
	return v->pred_div16 & bit ? 16 : v->pred_div8 & bit ? 8 : v->pred_div4 & bit ? 4 : v->pred_eq1 & bit ? 1 : 0;
}

TILEDEF tile_status tile_recipe_get_info(const tile_module *m, int kernel, int variant, int index, tile_recipe_info *out)
{
	const tile__variant *v = tile__variant_at(m, kernel, variant);
	const tile__recipe *r;
	if (!v || !out || index < 0 || (uint32_t)index >= v->n_recipes)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_recipe_get_info: no recipe %d of variant %d of kernel %d", index,
				  variant, kernel);
	r = &m->recipes[v->first_recipe + (uint32_t)index];
	out->param = (int)r->param;
	out->base = (int)r->base;
	out->rank = (int)r->rank;
	memcpy(out->block_shape, r->block, sizeof out->block_shape);
	out->program = m->grid_code + r->code_offset;
	out->program_size = r->code_size;
	return TILE_SUCCESS;
}

TILEDEF tile_status tile_constexpr_get_info(const tile_module *m, int kernel, int variant, int index, tile_constexpr_info *out)
{
	const tile__variant *v = tile__variant_at(m, kernel, variant);
	const uint8_t *c;
	uint64_t value;
	if (!v || !out || index < 0 || (uint32_t)index >= v->n_constexprs)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_constexpr_get_info: no constexpr %d of variant %d of kernel %d",
				  index, variant, kernel);
	c = m->constexprs + (size_t)(v->first_constexpr + (uint32_t)index) * TILE__CONSTEXPR_SIZE;
	value = tile__u64(c + 8);
	out->name = tile__str(m, tile__u32(c));
	out->kind = c[4];
	out->ival = (int64_t)value;
	memcpy(&out->fval, &value, sizeof out->fval);
	out->sval = c[4] == 3 ? tile__str(m, (uint32_t)value) : NULL;
	return TILE_SUCCESS;
}

TILEDEF int tile_image_count(const tile_module *m) { return m ? (int)m->n_images : 0; }

TILEDEF tile_status tile_image_get_info(const tile_module *m, int image, tile_image_info *out)
{
	const tile__image *im;
	if (!m || !out || image < 0 || (uint32_t)image >= m->n_images)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_image_get_info: no image %d", image);
	im = &m->images[image];
	out->group = (int)im->group;
	out->kind = (int)im->kind;
	out->arch = (int)im->arch;
	out->flags = im->flags;
	out->size = im->size;
	out->raw_size = im->raw_size;
	out->compression = (int)im->compression;
	return TILE_SUCCESS;
}

TILEDEF const char *tile_status_string(tile_status status)
{
	switch (status) {
	case TILE_SUCCESS: return "success";
	case TILE_ERROR_INVALID_ARGUMENT: return "invalid argument";
	case TILE_ERROR_OUT_OF_MEMORY: return "out of memory";
	case TILE_ERROR_BAD_BLOB: return "invalid blob";
	case TILE_ERROR_VERSION: return "unsupported blob version";
	case TILE_ERROR_CHECKSUM: return "blob checksum mismatch";
	case TILE_ERROR_INFLATE: return "corrupt compressed image";
	case TILE_ERROR_NO_DRIVER: return "CUDA driver library not found";
	case TILE_ERROR_DRIVER_SYMBOL: return "CUDA driver entry point missing";
	case TILE_ERROR_CUDA: return "CUDA driver call failed";
	case TILE_ERROR_NO_IMAGE: return "no image for this device";
	case TILE_ERROR_JIT: return "PTX JIT compilation failed";
	case TILE_ERROR_GRID: return "invalid grid";
	case TILE_ERROR_NO_VARIANT: return "no variant matches the arguments";
	case TILE_ERROR_NOT_FOUND: return "not found";
	case TILE_ERROR_CAPTURING: return "module load during stream capture";
	case TILE_ERROR_DESTROYED: return "module used during or after destroy";
	}
	return "unknown status";
}

TILEDEF const char *tile_last_error(void) { return tile__detail; }
