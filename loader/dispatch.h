/* dispatch.h - autotuned kernels: tuning tables, config dispatch, tuning files.
 *
 * A kernel compiled with its @triton.autotune configs carries every config
 * as variants (each variant names its config) and a tuning table: the
 * integer parameters of the autotune key, entries of key values sorted in
 * signed lexicographic order with the config measured best for them, and a
 * default config. Validation (tile__check_tables, called by blob.h) decodes
 * the table words once into one array, checks that the kernels' key and
 * entry ranges follow one another and cover the arrays exactly, that keys
 * name distinct visible integer parameters, and that entries are strictly
 * ascending (no duplicate keys) with configs in range. At launch,
 * tile__dispatch reads the key arguments and looks them up by binary search
 * (O(k log n), no lock, no allocation); a key not in the table goes to the
 * nearest entry, in one pass over the table: first the fewest key
 * dimensions whose divisibility by 16, 8 or 4 differs from the arguments',
 * counting for each divisor only parameters some variant has that
 * predicate on (an aligned and an unaligned value run different variants,
 * whose best configs differ), then
 * the least distance in octaves (the absolute differences of the values'
 * base-2 logarithms, summed over the key's dimensions: 1536 is nearer
 * 2048 than 1024, 3000 nearer 4096 than 2048), then the first
 * entry in table order; an empty table goes to the default config. A
 * runtime table (tile_tuning_apply, from the text file tile-tune writes)
 * replaces the blob's: it is parsed, checked and sorted up front, then
 * published with a release store that the launch path reads with an
 * acquire load, so the launch path stays free of locks. */
#include <errno.h>

/* log2(v) in 1/256ths, 0 for values <= 1: the bit position of the
 * leading one, plus log2(1 + f) of the 16 bits after it taken as
 * f + 0.3466 f (1 - f) (within 0.005 of it), in integers. */
static int32_t tile__log2_q8(int64_t v)
{
	unsigned long long u = (unsigned long long)v;
	int e;
	uint32_t f;
	if (v <= 1)
		return 0;
	e = 63 - __builtin_clzll(u);
	f = (uint32_t)((e >= 16 ? u >> (e - 16) : u << (16 - e)) & 0xffff);
	return e * 256 + (int32_t)((f + (((uint64_t)f * (65536 - f)) >> 16) * 355 / 1024) >> 8);
}

/* <0, 0, >0 as key a (n values) sorts before, equal to, after b. */
static int tile__key_cmp(const int64_t *a, const int64_t *b, uint32_t n)
{
	uint32_t i;
	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* Bits 0, 1, 2: a value whose low 4 bits are the index is divisible by
 * 16, 8, 4 (two's complement: the low bits decide, negative values too).
 * Key dimension j's take bits 3j..3j+2. */
static const uint8_t tile__divisible[16] = {7, 0, 0, 0, 4, 0, 0, 0, 6, 0, 0, 0, 4, 0, 0, 0};

/* t->aligned for kernel k's table t, once its keys are known: bit 3j,
 * 3j+1 or 3j+2 when key j's parameter has a :16, :8 or :4 predicate in
 * some variant. */
static uint32_t tile__key_aligned(const tile__kernel *k, const tile__table *t)
{
	uint32_t i, by, aligned = 0;
	for (i = 0; i < t->n_keys; i++)
		for (by = 0; by < 3; by++)
			aligned |= (uint32_t)(k->div_mask[by] >> t->keys[i] & 1) << (3 * i + by);
	return aligned;
}

/* The config of the entry equal to key, else of the nearest entry, else
 * the default. Where t->aligned says a key dimension's parameter has a
 * divisibility predicate, an entry whose value's divisibility differs from
 * the key's was measured on another variant, so the number of such
 * dimensions ranks before the distance in octaves. */
static uint32_t tile__table_lookup(const tile__table *t, const int64_t *key)
{
	uint32_t stride = t->n_keys + 1, lo = 0, hi = t->n_entries, i, j, best = 0, key_div = 0;
	int64_t best_dist = -1;
	int32_t lq[TILE__MAX_KEYS];
	int best_miss = 0;
	if (!t->n_entries)
		return t->default_config;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const int64_t *e = t->words + (size_t)mid * stride;
		int c = tile__key_cmp(key, e, t->n_keys);
		if (c == 0)
			return (uint32_t)e[t->n_keys];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	for (j = 0; j < t->n_keys; j++) {
		lq[j] = tile__log2_q8(key[j]);
		key_div |= (uint32_t)tile__divisible[(uint64_t)key[j] & 15] << 3 * j;
	}
	for (i = 0; i < t->n_entries; i++) {
		const int64_t *e = t->words + (size_t)i * stride;
		int64_t dist = 0;
		uint32_t differ = 0;
		int miss;
		for (j = 0; j < t->n_keys; j++) {
			int32_t d = tile__log2_q8(e[j]) - lq[j];
			dist += d < 0 ? -d : d;
			differ |= (uint32_t)tile__divisible[(uint64_t)e[j] & 15] << 3 * j;
		}
		differ = (differ ^ key_div) & t->aligned;
		/* one count per dimension, whichever of its divisors differ */
		miss = tile__popcount((differ | differ >> 1 | differ >> 2) & 0x249249u);
		if (best_dist < 0 || miss < best_miss || (miss == best_miss && dist < best_dist)) {
			best_miss = miss;
			best_dist = dist;
			best = i;
		}
	}
	return (uint32_t)t->words[(size_t)best * stride + t->n_keys];
}

static const tile__table *tile__table_of(const tile__kernel *k)
{
	const tile__table *t = __atomic_load_n(&k->runtime, __ATOMIC_ACQUIRE);
	return t ? t : &k->table;
}

/* The config tile_launch runs for args (already checked non-NULL). */
static uint32_t tile__dispatch(const tile_module *m, const tile__kernel *k, void *const *args)
{
	const tile__table *t;
	int64_t key[TILE__MAX_KEYS];
	uint32_t i;
	if (k->n_configs <= 1)
		return 0;
	t = tile__table_of(k);
	for (i = 0; i < t->n_keys; i++)
		key[i] = (int64_t)tile__param_bits(&m->params[k->first_param + t->keys[i]], args[t->keys[i]]);
	return tile__table_lookup(t, key);
}

/* Key parameter `param` of kernel kernel: a visible integer parameter. */
static int tile__key_param_ok(const tile_module *m, const tile__kernel *k, uint32_t param)
{
	uint8_t kind;
	if (param >= k->n_visible)
		return 0;
	kind = m->params[k->first_param + param].kind;
	return kind == TILE__KIND_INT || kind == TILE__KIND_UINT;
}

static tile_status tile__check_tables(tile_module *m, const uint8_t *records, const uint8_t *keys, const uint8_t *tune)
{
	uint32_t ki, i, j, key_at = 0, word_at = 0;
	m->tune = (int64_t *)tile__alloc_array(m->tune_words, sizeof(int64_t));
	if (!m->tune)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	for (i = 0; i < m->tune_words; i++)
		m->tune[i] = (int64_t)tile__u64(tune + (size_t)i * 8);
	for (ki = 0; ki < m->n_kernels; ki++) {
		const uint8_t *r = records + (size_t)ki * TILE__KERNEL_SIZE;
		tile__kernel *k = &m->kernels[ki];
		tile__table *t = &k->table;
		uint32_t first_key = tile__u32(r + 28), first_entry = tile__u32(r + 36);
		uint64_t words;
		t->default_config = tile__u32(r + 24);
		t->n_keys = tile__u32(r + 32);
		t->n_entries = tile__u32(r + 40);
		if (t->default_config >= k->n_configs)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: default config %u (it has %u)", ki, t->default_config, k->n_configs);
		if (first_key != key_at)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: first_key %u (expected %u: kernels' keys follow one another)", ki,
					  first_key, key_at);
		if (t->n_keys > TILE__MAX_KEYS || t->n_keys > m->n_keys - key_at)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u keys (at most %u, inside the %u keys)", ki, t->n_keys,
					  TILE__MAX_KEYS, m->n_keys);
		for (i = 0; i < t->n_keys; i++) {
			uint32_t param = tile__u32(keys + (size_t)(key_at + i) * 4);
			if (!tile__key_param_ok(m, k, param))
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: key %u names parameter %u, not a visible integer parameter", ki,
						  i, param);
			for (j = 0; j < i; j++)
				if (t->keys[j] == param)
					return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: key %u repeats parameter %u", ki, i, param);
			t->keys[i] = (uint8_t)param;
		}
		t->aligned = tile__key_aligned(k, t);
		key_at += t->n_keys;
		if (first_entry != word_at)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: first_entry %u (expected %u: kernels' entries follow one another)",
					  ki, first_entry, word_at);
		if (t->n_entries && !t->n_keys)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u tuning entries but no key", ki, t->n_entries);
		words = (uint64_t)t->n_entries * (t->n_keys + 1);
		if (words > m->tune_words - word_at)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u tuning entries outside the %u table words", ki, t->n_entries,
					  m->tune_words);
		t->words = m->tune + word_at;
		for (i = 0; i < t->n_entries; i++) {
			const int64_t *e = t->words + (size_t)i * (t->n_keys + 1);
			if (e[t->n_keys] < 0 || (uint64_t)e[t->n_keys] >= k->n_configs)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: tuning entry %u: config %lld (it has %u)", ki, i,
						  (long long)e[t->n_keys], k->n_configs);
			if (i && tile__key_cmp(e - (t->n_keys + 1), e, t->n_keys) >= 0)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: tuning entry %u: %s", ki, i,
						  tile__key_cmp(e - (t->n_keys + 1), e, t->n_keys) ? "keys not in ascending order"
												   : "the same key as the entry before");
		}
		word_at += (uint32_t)words;
	}
	if (key_at != m->n_keys || word_at != m->tune_words)
		return tile__fail(TILE_ERROR_BAD_BLOB, "metadata: the kernels use %u of %u keys and %u of %u table words", key_at,
				  m->n_keys, word_at, m->tune_words);
	return TILE_SUCCESS;
}

/* Heuristics: each names an int or bool constexpr that every variant of
 * its kernel has (its value decoded into the variant), and a program of
 * one result valid for every variant's constexprs. Kernels' ranges follow
 * one another and cover the array. */
static tile_status tile__check_heuristics(tile_module *m, const uint8_t *records, const uint8_t *heuristics)
{
	uint32_t ki, h, vi, c, at = 0;
	for (ki = 0; ki < m->n_kernels; ki++) {
		const uint8_t *r = records + (size_t)ki * TILE__KERNEL_SIZE;
		tile__kernel *k = &m->kernels[ki];
		uint32_t first = tile__u32(r + 44);
		k->n_heuristics = tile__u32(r + 48);
		if (first != at)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: first_heuristic %u (expected %u: kernels' heuristics follow one "
					  "another)", ki, first, at);
		if (k->n_heuristics > TILE__MAX_HEURISTICS || k->n_heuristics > m->n_heuristics - at)
			return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: %u heuristics (at most %u, inside the %u heuristics)", ki,
					  k->n_heuristics, TILE__MAX_HEURISTICS, m->n_heuristics);
		for (h = 0; h < k->n_heuristics; h++) {
			const uint8_t *q = heuristics + (size_t)(at + h) * TILE__HEURISTIC_SIZE;
			tile__heuristic *hd = &k->heuristics[h];
			char who[64];
			hd->name = tile__u32(q);
			hd->offset = tile__u32(q + 4);
			hd->size = tile__u32(q + 8);
			if (!tile__str_ok(m, hd->name, 0))
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: heuristic %u: name is not a string of the table", ki, h);
			for (c = 0; c < h; c++)
				if (!strcmp(tile__str(m, k->heuristics[c].name), tile__str(m, hd->name)))
					return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: heuristic %u: '%s' computed twice", ki, h,
							  tile__str(m, hd->name));
			if (hd->size < 2 || (uint64_t)hd->offset + hd->size > m->grid_code_size)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: heuristic %u: program %u+%u outside grid_code of %u bytes", ki,
						  h, hd->offset, hd->size, m->grid_code_size);
			if (m->grid_code[hd->offset] != 1)
				return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: heuristic %u: a program of %u results (1)", ki, h,
						  m->grid_code[hd->offset]);
			snprintf(who, sizeof who, "kernel %u: heuristic %u", ki, h);
			for (vi = k->first_variant; vi < k->first_variant + k->n_variants; vi++) {
				tile__variant *v = &m->variants[vi];
				tile_status st = tile__program_check(m, k, v, m->grid_code + hd->offset, hd->size, 1, who);
				if (st)
					return st;
				for (c = 0; c < v->n_constexprs; c++) {
					const uint8_t *x = m->constexprs + (size_t)(v->first_constexpr + c) * TILE__CONSTEXPR_SIZE;
					if (!strcmp(tile__str(m, tile__u32(x)), tile__str(m, hd->name)) && (x[4] == 0 || x[4] == 2)) {
						v->heuristic_values[h] = (int64_t)tile__u64(x + 8);
						v->heuristic_bools |= (uint32_t)(x[4] == 2) << h;
						break;
					}
				}
				if (c == v->n_constexprs)
					return tile__fail(TILE_ERROR_BAD_BLOB, "kernel %u: heuristic %u: variant %u has no int or bool constexpr '%s'",
							  ki, h, vi, tile__str(m, hd->name));
			}
		}
		at += k->n_heuristics;
	}
	if (at != m->n_heuristics)
		return tile__fail(TILE_ERROR_BAD_BLOB, "metadata: the kernels use %u of %u heuristics", at, m->n_heuristics);
	return TILE_SUCCESS;
}

/* Whether each heuristic of k, evaluated for args with v's constexprs,
 * gives v's value. A program that fails (division by zero) holds for no
 * variant. */
static int tile__heuristics_hold(const tile_module *m, const tile__kernel *k, const tile__variant *v, void *const *args)
{
	uint32_t h;
	for (h = 0; h < k->n_heuristics; h++) {
		const tile__heuristic *hd = &k->heuristics[h];
		int64_t r[1];
		if (tile__program_eval(m, v, m->grid_code + hd->offset, hd->size, args, r, 1, "heuristic", NULL) != TILE_SUCCESS)
			return 0;
		/* a bool constexpr takes the result's truth, an int one its value */
		if ((v->heuristic_bools >> h & 1) ? (r[0] != 0) != (v->heuristic_values[h] != 0) : r[0] != v->heuristic_values[h])
			return 0;
	}
	return 1;
}

TILEDEF int tile_heuristic_count(const tile_module *m, int kernel)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	return k ? (int)k->n_heuristics : -1;
}

TILEDEF tile_status tile_heuristic_get_info(const tile_module *m, int kernel, int index, tile_heuristic_info *out)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	if (!k || !out || index < 0 || (uint32_t)index >= k->n_heuristics)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_heuristic_get_info: no heuristic %d of kernel %d", index, kernel);
	out->name = tile__str(m, k->heuristics[index].name);
	out->program = m->grid_code + k->heuristics[index].offset;
	out->program_size = k->heuristics[index].size;
	return TILE_SUCCESS;
}

TILEDEF int tile_config_count(const tile_module *m, int kernel)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	return k ? (int)k->n_configs : -1;
}

TILEDEF int tile_dispatch_config(const tile_module *m, int kernel, void **args, int nargs)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	int i;
	if (!k || nargs != (int)k->n_visible || (nargs && !args))
		return -1;
	for (i = 0; i < nargs; i++)
		if (!args[i])
			return -1;
	return (int)tile__dispatch(m, k, args);
}

TILEDEF tile_status tile_tuning_get_info(const tile_module *m, int kernel, tile_tuning_info *out)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	const tile__table *t;
	uint32_t i;
	if (!k || !out)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_tuning_get_info: no kernel %d", kernel);
	t = tile__table_of(k);
	memset(out, 0, sizeof *out);
	out->n_keys = (int)t->n_keys;
	for (i = 0; i < t->n_keys; i++)
		out->key_params[i] = t->keys[i];
	out->n_entries = (int)t->n_entries;
	out->default_config = (int)t->default_config;
	out->runtime = t != &k->table;
	return TILE_SUCCESS;
}

TILEDEF tile_status tile_tuning_get_entry(const tile_module *m, int kernel, int entry, int64_t *keys, int *config)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	const tile__table *t = k ? tile__table_of(k) : NULL;
	const int64_t *e;
	if (!t || entry < 0 || (uint32_t)entry >= t->n_entries || (!keys && t->n_keys) || !config)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_tuning_get_entry: no entry %d of kernel %d", entry, kernel);
	e = t->words + (size_t)entry * (t->n_keys + 1);
	if (t->n_keys)
		memcpy(keys, e, t->n_keys * sizeof *keys);
	*config = (int)e[t->n_keys];
	return TILE_SUCCESS;
}

/* ---- a kernel's identity (docs/TUNING.md) --------------------------------
 *
 * FNV-1a over what decides which code each config runs: integers as 8
 * little-endian bytes, strings with their NUL. Neither the tuning table
 * (tilec embeds the file's own) nor the images, symbols or resources. */

static void tile__fnv(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = (const uint8_t *)p;
	while (n--) {
		*h ^= *b++;
		*h *= 0x100000001b3ull;
	}
}

static void tile__fnv_u64(uint64_t *h, uint64_t v)
{
	uint8_t b[8];
	int i;
	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> 8 * i);
	tile__fnv(h, b, 8);
}

static void tile__fnv_str(uint64_t *h, const char *s) { tile__fnv(h, s, strlen(s) + 1); }

TILEDEF uint64_t tile_kernel_identity(const tile_module *m, int kernel)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i, c;
	if (!k)
		return 0;
	tile__fnv_str(&h, tile__str(m, k->name));
	tile__fnv_u64(&h, k->n_params);
	for (i = 0; i < k->n_params; i++) {
		const tile__param *p = &m->params[k->first_param + i];
		tile__fnv_str(&h, tile__str(m, p->name));
		tile__fnv_u64(&h, p->kind);
		tile__fnv_u64(&h, p->size);
		tile__fnv_u64(&h, p->dtype);
		tile__fnv_u64(&h, p->flags);
	}
	tile__fnv_u64(&h, k->n_configs);
	tile__fnv_u64(&h, k->n_heuristics);
	for (i = 0; i < k->n_heuristics; i++)
		tile__fnv_str(&h, tile__str(m, k->heuristics[i].name));
	tile__fnv_u64(&h, k->n_variants);
	for (i = 0; i < k->n_variants; i++) {
		const tile__variant *v = &m->variants[k->first_variant + i];
		tile__fnv_u64(&h, v->config);
		tile__fnv_u64(&h, v->source_config);
		tile__fnv_u64(&h, v->num_warps);
		tile__fnv_u64(&h, v->num_stages);
		for (c = 0; c < 3; c++)
			tile__fnv_u64(&h, v->cluster_dim[c]);
		tile__fnv_u64(&h, v->pred_div16);
		tile__fnv_u64(&h, v->pred_div8);
		tile__fnv_u64(&h, v->pred_div4);
		tile__fnv_u64(&h, v->pred_eq1);
		tile__fnv_u64(&h, v->n_constexprs);
		for (c = 0; c < v->n_constexprs; c++) {
			const uint8_t *x = m->constexprs + (size_t)(v->first_constexpr + c) * TILE__CONSTEXPR_SIZE;
			tile__fnv_str(&h, tile__str(m, tile__u32(x)));
			tile__fnv_u64(&h, x[4]);
			if (x[4] == 3) /* a string: its text, not its offset */
				tile__fnv_str(&h, tile__str(m, (uint32_t)tile__u64(x + 8)));
			else
				tile__fnv_u64(&h, tile__u64(x + 8));
		}
	}
	return h ? h : 1; /* 0 says: no such kernel */
}

/* ---- tuning files (docs/TUNING.md) ---------------------------------------
 *
 *   tile-tuning 2
 *   kernel NAME identity H configs N key P1,P2,... default D   ("key -": none;
 *                                                   H: tile_kernel_identity, 16 hex digits)
 *   V1 V2 ... CONFIG                                    one entry per line
 *
 * '#' starts a comment; blank lines are skipped. A version 1 file (no
 * identity) is refused: nothing says which blob it was measured on. */

#define TILE__TUNE_LINE 1024

typedef struct tile__tune_reader {
	const char *p, *end;
	int line;
	char buf[TILE__TUNE_LINE];
	char *tok[TILE__MAX_KEYS + 8];
	int ntok;
} tile__tune_reader;

/* The next line with tokens, split in place; 0 at the end, -1 when a line
 * is too long. */
static int tile__tune_next(tile__tune_reader *r)
{
	while (r->p < r->end) {
		const char *e = r->p;
		size_t n;
		char *s;
		while (e < r->end && *e != '\n')
			e++;
		n = (size_t)(e - r->p);
		r->line++;
		if (n >= sizeof r->buf)
			return -1;
		memcpy(r->buf, r->p, n);
		r->buf[n] = 0;
		r->p = e < r->end ? e + 1 : e;
		if ((s = strchr(r->buf, '#')) != NULL)
			*s = 0;
		r->ntok = 0;
		for (s = r->buf; *s;) {
			while (*s == ' ' || *s == '\t' || *s == '\r')
				*s++ = 0;
			if (!*s)
				break;
			if (r->ntok == (int)(sizeof r->tok / sizeof r->tok[0])) {
				r->ntok++;
				break;
			}
			r->tok[r->ntok++] = s;
			while (*s && *s != ' ' && *s != '\t' && *s != '\r')
				s++;
		}
		if (r->ntok)
			return 1;
	}
	return 0;
}

static int tile__tune_int(const char *s, int64_t *out)
{
	char *end;
	long long v;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno)
		return 0;
	*out = v;
	return 1;
}

/* An identity: exactly 16 hex digits. */
static int tile__tune_hex(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int i;
	for (i = 0; i < 16; i++) {
		char ch = s[i];
		int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
		if (d < 0)
			return 0;
		v = v << 4 | (uint64_t)d;
	}
	if (s[16])
		return 0;
	*out = v;
	return 1;
}

/* Entry lines after the current one, up to the next kernel line. */
static uint32_t tile__tune_count(const tile__tune_reader *r)
{
	tile__tune_reader peek = *r;
	uint32_t n = 0;
	while (tile__tune_next(&peek) == 1 && strcmp(peek.tok[0], "kernel") != 0)
		n++;
	return n;
}

/* Sorts the entries (insertion sort: tables are small and this runs once). */
static void tile__tune_sort(tile__table *t, int64_t *words)
{
	uint32_t stride = t->n_keys + 1, i, j;
	int64_t tmp[TILE__MAX_KEYS + 1];
	for (i = 1; i < t->n_entries; i++) {
		memcpy(tmp, words + (size_t)i * stride, stride * sizeof *tmp);
		for (j = i; j > 0 && tile__key_cmp(words + (size_t)(j - 1) * stride, tmp, t->n_keys) > 0; j--)
			memcpy(words + (size_t)j * stride, words + (size_t)(j - 1) * stride, stride * sizeof *tmp);
		memcpy(words + (size_t)j * stride, tmp, stride * sizeof *tmp);
	}
}

/* Parses the kernel line in r and the entries after it into a new table
 * (one allocation: the struct, its words, its key names). */
static tile_status tile__tune_section(tile_module *m, tile__tune_reader *r, uint32_t *kernel_out, tile__table **out)
{
	const tile__kernel *k;
	tile__table *t;
	int64_t *words, n_configs = 0, def = 0;
	uint64_t identity = 0, own;
	char *names, *key_list = NULL, *s;
	uint32_t cap, i, stride;
	int ki, line = r->line, have_configs = 0, have_default = 0, have_identity = 0;
	tile_status st;
	size_t names_len;
	if (r->ntok < 2)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: 'kernel' needs a name", line);
	ki = tile_kernel_index(m, r->tok[1]);
	if (ki < 0)
		return tile__fail(TILE_ERROR_NOT_FOUND, "tuning line %d: the module has no kernel '%s'", line, r->tok[1]);
	k = &m->kernels[ki];
	for (i = 2; i < (uint32_t)r->ntok; i += 2) {
		const char *name = r->tok[i], *val = i + 1 < (uint32_t)r->ntok ? r->tok[i + 1] : NULL;
		if (!val)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: '%s' needs a value", line, name);
		if (!strcmp(name, "configs") && tile__tune_int(val, &n_configs))
			have_configs = 1;
		else if (!strcmp(name, "default") && tile__tune_int(val, &def))
			have_default = 1;
		else if (!strcmp(name, "identity") && tile__tune_hex(val, &identity))
			have_identity = 1;
		else if (!strcmp(name, "key"))
			key_list = r->tok[i + 1];
		else
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: unknown or bad field '%s %s'", line, name, val);
	}
	if (!have_identity)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: needs 'identity H' (16 hex digits: the "
				  "kernel's tile_kernel_identity, as tile-tune writes it)", line, r->tok[1]);
	if (!have_configs || n_configs != (int64_t)k->n_configs)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: the file was measured with %lld configs, "
				  "the blob has %u", line, r->tok[1], (long long)n_configs, k->n_configs);
	own = tile_kernel_identity(m, ki);
	if (identity != own)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: the file was tuned for identity %016llx, "
				  "this blob's kernel %s is %016llx (other configs, signatures or constexprs): re-run tile-tune with "
				  "this blob", line, r->tok[1], (unsigned long long)identity, r->tok[1], (unsigned long long)own);
	if (!have_default || def < 0 || def >= n_configs)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: needs 'default D' with D < %lld", line,
				  r->tok[1], (long long)n_configs);
	if (!key_list)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: needs 'key P1,P2,...' (or 'key -')", line,
				  r->tok[1]);
	cap = tile__tune_count(r);
	names_len = strlen(key_list) + 1;
	/* at most TILE__MAX_KEYS keys: checked below, the words sized for that */
	t = (tile__table *)TILE_MALLOC(sizeof *t + (size_t)cap * (TILE__MAX_KEYS + 1) * sizeof(int64_t) + names_len);
	if (!t)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	memset(t, 0, sizeof *t);
	words = (int64_t *)(void *)(t + 1);
	names = (char *)(words + (size_t)cap * (TILE__MAX_KEYS + 1));
	memcpy(names, key_list, names_len);
	t->words = words;
	t->names = names;
	t->default_config = (uint32_t)def;
	for (s = names; strcmp(names, "-") != 0 && *s;) {
		char *comma = strchr(s, ',');
		uint32_t p;
		if (comma)
			*comma = 0;
		for (p = 0; p < k->n_visible; p++)
			if (!strcmp(tile__str(m, m->params[k->first_param + p].name), s))
				break;
		if (t->n_keys == TILE__MAX_KEYS || p == k->n_visible || !tile__key_param_ok(m, k, p)) {
			st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: key '%s' is not an integer parameter "
					  "(or more than %d keys)", line, tile__str(m, k->name), s, TILE__MAX_KEYS);
			goto fail;
		}
		for (i = 0; i < t->n_keys; i++)
			if (t->keys[i] == p) {
				st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: key '%s' given twice", line, s);
				goto fail;
			}
		t->keys[t->n_keys++] = (uint8_t)p;
		if (!comma)
			break;
		s = comma + 1;
	}
	t->aligned = tile__key_aligned(k, t);
	stride = t->n_keys + 1;
	while (t->n_entries < cap && tile__tune_next(r) == 1) {
		int64_t *e = words + (size_t)t->n_entries * stride;
		if (r->ntok != (int)stride) {
			st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: %d fields, expected %u key values and a config",
					  r->line, r->ntok, t->n_keys);
			goto fail;
		}
		for (i = 0; i < stride; i++)
			if (!tile__tune_int(r->tok[i], &e[i])) {
				st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: '%s' is not an integer", r->line, r->tok[i]);
				goto fail;
			}
		if (e[t->n_keys] < 0 || e[t->n_keys] >= n_configs) {
			st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: config %lld (the kernel has %lld)", r->line,
					  (long long)e[t->n_keys], (long long)n_configs);
			goto fail;
		}
		t->n_entries++;
	}
	if (t->n_entries && !t->n_keys) {
		st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: entries but 'key -'", line);
		goto fail;
	}
	tile__tune_sort(t, words);
	for (i = 1; i < t->n_entries; i++)
		if (!tile__key_cmp(words + (size_t)(i - 1) * stride, words + (size_t)i * stride, t->n_keys)) {
			st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: kernel %s: a key appears twice", line,
					  tile__str(m, k->name));
			goto fail;
		}
	*kernel_out = (uint32_t)ki;
	*out = t;
	return TILE_SUCCESS;
fail:
	TILE_FREE(t);
	return st;
}

TILEDEF tile_status tile_tuning_apply(tile_module *m, const char *text, size_t len)
{
	tile__tune_reader *r;
	tile__table **pending;
	tile_status st = TILE_SUCCESS;
	uint32_t i;
	int got;
	if (!m || !text)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_tuning_apply: NULL argument");
	r = (tile__tune_reader *)TILE_MALLOC(sizeof *r);
	pending = (tile__table **)tile__alloc_zeroed(m->n_kernels, sizeof *pending);
	if (!r || !pending) {
		TILE_FREE(r);
		TILE_FREE(pending);
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	memset(r, 0, sizeof *r);
	r->p = text;
	r->end = text + (len ? len : strlen(text));
	got = tile__tune_next(r);
	if (got == 1 && r->ntok == 2 && !strcmp(r->tok[0], "tile-tuning") && !strcmp(r->tok[1], "1"))
		st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: a version 1 file ('tile-tuning 1') does not record "
				"the identity of the blob it was tuned for: re-run tile-tune with this blob (this loader reads "
				"'tile-tuning 2')", r->line);
	else if (got != 1 || r->ntok != 2 || strcmp(r->tok[0], "tile-tuning") != 0 || strcmp(r->tok[1], "2") != 0)
		st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: expected 'tile-tuning 2'", r->line);
	while (!st && (got = tile__tune_next(r)) == 1) {
		uint32_t ki = 0;
		tile__table *t = NULL;
		if (strcmp(r->tok[0], "kernel") != 0) {
			st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: expected 'kernel NAME ...'", r->line);
			break;
		}
		if ((st = tile__tune_section(m, r, &ki, &t)) != TILE_SUCCESS)
			break;
		if (pending[ki]) {
			TILE_FREE(t);
			st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning: kernel %s appears twice", tile__str(m, m->kernels[ki].name));
		} else {
			pending[ki] = t;
		}
	}
	if (!st && got < 0)
		st = tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tuning line %d: longer than %d bytes", r->line, TILE__TUNE_LINE - 1);
	for (i = 0; i < m->n_kernels; i++) {
		if (st) {
			TILE_FREE(pending[i]);
		} else if (pending[i]) {
			tile__table *old = __atomic_exchange_n(&m->kernels[i].runtime, pending[i], __ATOMIC_ACQ_REL);
			TILE_FREE(old);
		}
	}
	TILE_FREE(pending);
	TILE_FREE(r);
	return st;
}
