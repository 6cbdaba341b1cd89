/* blob.c - the blob writer: a blob_desc to the bytes of docs/FORMAT.md.
 *
 * The description is checked first, with a diagnostic per problem, so that
 * whatever the writer emits passes the loader's validation. Writing is two
 * passes over plain arrays: the images are deflated (zlib level 9, stored
 * when that does not shrink them) and the string table is built with
 * duplicates shared, then every section's offset is known and the records
 * are written field by field in little-endian order. A kernel's variants
 * are ordered most specialized first (stable, so ties keep their order),
 * identical grid programs are shared, and nothing depends on addresses or
 * time: the same description gives the same bytes.
 */
#include "pack/pack.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define HEADER_SIZE 32
#define META_HEADER_SIZE_V5 48 /* version 6 adds n_preds */
#define META_HEADER_SIZE 52
#define SPILLS_UNKNOWN 0xffffffffu
#define MAX_RAW_SIZE (256u << 20)
/* FORMAT.md's record sizes in bytes */
#define BLOB_KERNEL_SIZE 52
#define BLOB_HEURISTIC_SIZE 12
#define BLOB_RECIPE_SIZE 36
#define BLOB_PARAM_SIZE 12
#define BLOB_VARIANT_SIZE 80
#define BLOB_CONSTEXPR_SIZE 16
#define BLOB_IMAGE_SIZE 32
#define BLOB_PRED_SIZE 8
#define PRED_MASK_BITS 32 /* a variant record's masks hold parameters 0..31; the preds array the rest */

blob_param blob_param_make(const char *name, ir_kind kind, bool pointer)
{
	blob_param p;
	memset(&p, 0, sizeof p);
	p.name = name;
	p.kind = BLOB_PARAM_PTR;
	p.size = 8;
	p.dtype = (uint8_t)kind;
	if (pointer)
		return p;
	p.size = (uint8_t)ir_kind_bytes(kind);
	if (ir_kind_is_float(kind))
		p.kind = BLOB_PARAM_FLOAT;
	else
		p.kind = ir_kind_is_signed(kind) ? BLOB_PARAM_INT : BLOB_PARAM_UINT;
	return p;
}

bool blob_param_parse(const char *s, size_t len, blob_param *out)
{
	bool pointer = len > 0 && s[0] == '*';
	ir_kind k;
	if (!ir_kind_from_name(s + pointer, len - pointer, &k))
		return false;
	*out = blob_param_make(NULL, k, pointer);
	return true;
}

/* ---- reading cubins ------------------------------------------------ */

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* The kernel of that name; a new one when `add` (NULL when full). */
static blob_cubin_kernel *cubin_kernel(blob_cubin *c, const char *name, bool add)
{
	for (int i = 0; i < c->nkernels; i++)
		if (!strcmp(c->kernels[i].name, name))
			return &c->kernels[i];
	if (!add || c->nkernels == (int)(sizeof c->kernels / sizeof c->kernels[0]))
		return NULL;
	blob_cubin_kernel *k = &c->kernels[c->nkernels++];
	k->name = name;
	return k;
}

tilec_status blob_cubin_read(tilec_ctx *ctx, const char *path, const void *data, size_t size, blob_cubin *out)
{
	src_loc none = {0};
	const uint8_t *d = data;
	memset(out, 0, sizeof *out);
	if (size < 64 || memcmp(d, "\177ELF", 4) != 0 || d[4] != 2 || d[5] != 1 || (d[18] | d[19] << 8) != 190) {
		diag_error(ctx, none, "'%s' is not a cubin (a 64-bit little-endian ELF file for EM_CUDA)", path);
		return TILEC_ERR_FORMAT;
	}
	uint32_t flags = get32(d + 48);
	out->arch = d[8] >= 8 ? (int)((flags >> 8) & 0xff) : (int)(flags & 0xff);
	uint64_t shoff = get64(d + 40);
	unsigned shentsize = d[58] | d[59] << 8, shnum = d[60] | d[61] << 8, shstrndx = d[62] | d[63] << 8;
	if (shentsize < 64 || shoff > size || shnum > (size - shoff) / shentsize || shstrndx >= shnum) {
		diag_error(ctx, none, "'%s': bad cubin section header table", path);
		return TILEC_ERR_FORMAT;
	}
	const uint8_t *strsh = d + shoff + (uint64_t)shstrndx * shentsize;
	uint64_t stroff = get64(strsh + 24), strsize = get64(strsh + 32);
	if (stroff > size || strsize > size - stroff) {
		diag_error(ctx, none, "'%s': bad cubin section name table", path);
		return TILEC_ERR_FORMAT;
	}
	/* pass 0 finds the kernels (text sections), pass 1 their shared memory */
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < shnum; i++) {
			const uint8_t *sh = d + shoff + (uint64_t)i * shentsize;
			uint32_t name = get32(sh);
			if (name >= strsize)
				continue;
			const char *s = (const char *)d + stroff + name;
			size_t maxlen = strsize - name, len = strnlen(s, maxlen);
			if (len == maxlen)
				continue; /* not NUL-terminated inside the table */
			blob_cubin_kernel *k;
			if (pass == 0 && len > 6 && !strncmp(s, ".text.", 6) && (k = cubin_kernel(out, s + 6, true)) != NULL)
				k->n_regs = (uint16_t)(get32(sh + 44) >> 24);
			else if (pass == 1 && len > 11 && !strncmp(s, ".nv.shared.", 11) &&
				 (k = cubin_kernel(out, s + 11, false)) != NULL)
				k->shared_static = (uint32_t)get64(sh + 32);
		}
	}
	return TILEC_OK;
}

/* ---- checking the description ------------------------------------- */

static int popcount64(uint64_t x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

/* The descriptor group a tensor map (parameter i) must directly follow,
 * as the loader checks it: r int64 strides right before it (the run of
 * int64 parameters there, 1..5 long), r int32 shapes before those, and a
 * pointer of the map's dtype before them. NULL when it does, else what is
 * wrong. */
static const char *check_map_group(const blob_kernel *k, int i)
{
	const blob_param *p = k->params;
	int r = 0;
	while (r < i && r <= 5 && p[i - 1 - r].kind == BLOB_PARAM_INT && p[i - 1 - r].size == 8)
		r++;
	if (r < 1 || r > 5 || i < 2 * r + 1)
		return "it does not follow 1..5 int64 strides";
	for (int j = 1; j <= r; j++)
		if (p[i - r - j].kind != BLOB_PARAM_INT || p[i - r - j].size != 4)
			return "the strides do not follow as many int32 shapes";
	if (p[i - 1 - 2 * r].kind != BLOB_PARAM_PTR || p[i - 1 - 2 * r].dtype != p[i].dtype)
		return "the shapes do not follow a pointer of its dtype";
	return NULL;
}

static bool check_param(tilec_ctx *ctx, const blob_kernel *k, int i, bool *seen_hidden)
{
	src_loc none = {0};
	const blob_param *p = &k->params[i];
	if (!p->name || !*p->name) {
		diag_error(ctx, none, "kernel '%s': parameter %d has no name", k->name, i);
		return false;
	}
	bool ok_type;
	switch (p->kind) {
	case BLOB_PARAM_PTR:
		ok_type = p->size == 8 && p->dtype > IR_VOID && p->dtype < IR_PTR;
		break;
	case BLOB_PARAM_INT:
	case BLOB_PARAM_UINT:
		ok_type = p->dtype > IR_VOID && p->dtype < IR_PTR && ir_kind_is_int((ir_kind)p->dtype) &&
			  p->size == ir_kind_bytes((ir_kind)p->dtype);
		break;
	case BLOB_PARAM_FLOAT:
		ok_type = p->dtype > IR_VOID && p->dtype < IR_PTR && ir_kind_is_float((ir_kind)p->dtype) &&
			  !ir_kind_is_fp8((ir_kind)p->dtype) && p->size == ir_kind_bytes((ir_kind)p->dtype);
		break;
	case BLOB_PARAM_TENSORMAP:
		ok_type = p->size == 128 && p->dtype > IR_VOID && p->dtype < IR_PTR &&
			  ((p->flags & BLOB_PARAM_HIDDEN) || !check_map_group(k, i));
		break;
	default:
		ok_type = false;
	}
	if (!ok_type) {
		const char *why = p->kind == BLOB_PARAM_TENSORMAP && !(p->flags & BLOB_PARAM_HIDDEN) ? check_map_group(k, i) : NULL;
		if (why)
			diag_error(ctx, none, "kernel '%s': tensor map '%s' does not follow its descriptor's parameters: %s",
				   k->name, p->name, why);
		else
			diag_error(ctx, none, "kernel '%s': parameter '%s' has an inconsistent kind, size or dtype",
				   k->name, p->name);
		return false;
	}
	if (p->flags & ~(BLOB_PARAM_HIDDEN | BLOB_PARAM_RESET_TO_ZERO | BLOB_PARAM_RESTORE_VALUE)) {
		diag_error(ctx, none, "kernel '%s': parameter '%s' has unknown flags", k->name, p->name);
		return false;
	}
	if (p->flags & ~BLOB_PARAM_HIDDEN && p->kind == BLOB_PARAM_TENSORMAP) {
		diag_error(ctx, none, "kernel '%s': tensor map '%s' has flags other than hidden", k->name, p->name);
		return false;
	}
	if ((p->flags & (BLOB_PARAM_RESET_TO_ZERO | BLOB_PARAM_RESTORE_VALUE)) && p->kind != BLOB_PARAM_PTR) {
		diag_error(ctx, none, "kernel '%s': reset_to_zero/restore_value on '%s', which is not a pointer", k->name, p->name);
		return false;
	}
	if (*seen_hidden && !(p->flags & BLOB_PARAM_HIDDEN)) {
		diag_error(ctx, none, "kernel '%s': parameter '%s' follows a hidden parameter; hidden ones come last",
			   k->name, p->name);
		return false;
	}
	*seen_hidden |= (p->flags & BLOB_PARAM_HIDDEN) != 0;
	for (int j = 0; j < i; j++)
		if (!strcmp(k->params[j].name, p->name)) {
			diag_error(ctx, none, "kernel '%s': two parameters named '%s'", k->name, p->name);
			return false;
		}
	return true;
}

/* A recipe of variant v: a hidden map of k built from a visible pointer
 * of its dtype, a block, a program of its shape and strides; one recipe
 * per map. */
static bool check_recipe(tilec_ctx *ctx, const blob_kernel *k, int nvisible, const blob_variant *v, const blob_recipe *r)
{
	src_loc none = {0};
	const char *why = NULL;
	if (r->param < nvisible || r->param >= k->nparams || k->params[r->param].kind != BLOB_PARAM_TENSORMAP)
		why = "its map is not a hidden tensor map";
	else if (r->base < 0 || r->base >= nvisible || k->params[r->base].kind != BLOB_PARAM_PTR ||
		 k->params[r->base].dtype != k->params[r->param].dtype)
		why = "its base is not a visible pointer of the map's dtype";
	else if (r->rank < 1 || r->rank > 5)
		why = "its rank is not 1..5";
	for (int i = 0; !why && i < 5; i++)
		if (i < r->rank ? r->block[i] < 1 || r->block[i] > 0xffff : r->block[i] != 0)
			why = "its block shape is not 1..65535 per dimension (0 past the rank)";
	uint32_t box[IR_MAX_RANK];
	if (!why && (r->rank > IR_MAX_RANK || !ir_tensormap_box((ir_kind)k->params[r->param].dtype, r->rank, r->block, box)))
		why = "the encoding rule has no map for its block";
	for (const blob_recipe *o = v->recipes; !why && o < r; o++)
		if (o->param == r->param)
			why = "its map has a recipe already";
	if (!why)
		why = r->size > GRIDEXPR_MAX_CODE ? "its program is too long"
		      : gridexpr_validate_values(r->code, r->size, 2 * r->rank - 1, k->nparams, k->params, v->nconstexprs,
						 v->constexprs);
	if (why)
		diag_error(ctx, none, "kernel '%s': variant '%s': a tensor-map recipe is malformed: %s", k->name, v->symbol, why);
	return !why;
}

static bool check_variant(tilec_ctx *ctx, const blob_desc *d, const blob_kernel *k, int nvisible,
			  const blob_variant *v)
{
	src_loc none = {0};
	const char *sym = v->symbol && *v->symbol ? v->symbol : NULL;
	if (!sym) {
		diag_error(ctx, none, "kernel '%s': a variant has no symbol", k->name);
		return false;
	}
	if (v->group < 0 || v->group >= d->ngroups) {
		diag_error(ctx, none, "kernel '%s': variant '%s' names group %d of %d", k->name, sym, v->group, d->ngroups);
		return false;
	}
	int nconfigs = k->nconfigs > 0 ? k->nconfigs : 1;
	if (v->config < 0 || v->config >= nconfigs) {
		diag_error(ctx, none, "kernel '%s': variant '%s' belongs to config %d of %d", k->name, sym, v->config, nconfigs);
		return false;
	}
	if (v->num_warps < 1 || v->num_warps > 32 || v->num_stages < 0 || v->num_stages > 0xffff) {
		diag_error(ctx, none, "kernel '%s': variant '%s' has num_warps %d (1..32) or num_stages %d",
			   k->name, sym, v->num_warps, v->num_stages);
		return false;
	}
	if (v->producer_warps < 0 || v->num_warps + v->producer_warps > 32) {
		diag_error(ctx, none, "kernel '%s': variant '%s' has %d producer warps (num_warps and they at most 32)",
			   k->name, sym, v->producer_warps);
		return false;
	}
	if (v->spills_known && (v->spill_stores > BLOB_MAX_SPILL || v->spill_loads > BLOB_MAX_SPILL)) {
		diag_error(ctx, none, "kernel '%s': variant '%s' has %u bytes of spill stores and %u of loads (at most %u)",
			   k->name, sym, v->spill_stores, v->spill_loads, BLOB_MAX_SPILL);
		return false;
	}
	const uint16_t *c = v->cluster;
	if ((c[0] | c[1] | c[2]) && !(c[0] && c[1] && c[2])) {
		diag_error(ctx, none, "kernel '%s': variant '%s' has cluster %u x %u x %u (0 0 0 for none)",
			   k->name, sym, c[0], c[1], c[2]);
		return false;
	}
	uint64_t int_mask = 0, div16_mask = 0; /* visible integers; visible pointers and integers */
	for (int i = 0; i < nvisible; i++) {
		if (k->params[i].kind == BLOB_PARAM_INT || k->params[i].kind == BLOB_PARAM_UINT)
			int_mask |= UINT64_C(1) << i;
		if (k->params[i].kind != BLOB_PARAM_FLOAT && k->params[i].kind != BLOB_PARAM_TENSORMAP)
			div16_mask |= UINT64_C(1) << i;
	}
	uint64_t div = v->pred_div16 | v->pred_div8 | v->pred_div4;
	if ((div & ~div16_mask) || (v->pred_eq1 & ~int_mask)) {
		diag_error(ctx, none, "kernel '%s': variant '%s' has predicates on parameters that are not "
			   "visible pointers or integers (divisible by 16, 8, 4) or not integers (== 1)", k->name, sym);
		return false;
	}
	if ((v->pred_div16 & v->pred_div8) || (v->pred_div16 & v->pred_div4) || (v->pred_div8 & v->pred_div4) ||
	    (div & v->pred_eq1)) {
		diag_error(ctx, none, "kernel '%s': variant '%s' gives a parameter more than one of the predicates "
			   "divisible by 16, by 8, by 4 and == 1", k->name, sym);
		return false;
	}
	for (int i = 0; i < v->nconstexprs; i++) {
		const ir_constexpr *c = &v->constexprs[i];
		if (!c->name || !*c->name || (unsigned)c->kind > IR_CONSTEXPR_DTYPE ||
		    (c->kind == IR_CONSTEXPR_STRING && !c->sval)) {
			diag_error(ctx, none, "kernel '%s': variant '%s' has a malformed constexpr %d", k->name, sym, i);
			return false;
		}
	}
	for (int i = 0; i < v->nrecipes; i++)
		if (!check_recipe(ctx, k, nvisible, v, &v->recipes[i]))
			return false;
	if (v->grid_size) {
		const char *why = v->grid_size > GRIDEXPR_MAX_CODE ? "too long"
				  : gridexpr_validate(v->grid_code, v->grid_size, k->nparams, k->params,
						      v->nconstexprs, v->constexprs);
		if (why) {
			diag_error(ctx, none, "kernel '%s': variant '%s' has a bad grid program: %s", k->name, sym, why);
			return false;
		}
	}
	return true;
}

/* Compares two table rows by their key values (signed, lexicographic). */
static int row_cmp(const int64_t *a, const int64_t *b, int nkeys)
{
	for (int i = 0; i < nkeys; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* The entries of k sorted by key (insertion sort into *out, malloc'd):
 * tables hold a few hundred rows at most. */
static int64_t *sorted_entries(const blob_kernel *k)
{
	int stride = k->nkeys + 1;
	int64_t *w = malloc(sizeof(int64_t) * (size_t)(k->nentries * stride + 1));
	if (!w)
		return NULL;
	for (int i = 0; i < k->nentries; i++) {
		const int64_t *row = k->entries + (size_t)i * stride;
		int j = i;
		for (; j > 0 && row_cmp(w + (size_t)(j - 1) * stride, row, k->nkeys) > 0; j--)
			memcpy(w + (size_t)j * stride, w + (size_t)(j - 1) * stride, sizeof(int64_t) * (size_t)stride);
		memcpy(w + (size_t)j * stride, row, sizeof(int64_t) * (size_t)stride);
	}
	return w;
}

/* Configs, key and tuning table of an autotuned kernel. */
static bool check_tuning(tilec_ctx *ctx, const blob_kernel *k, int nvisible)
{
	src_loc none = {0};
	int nconfigs = k->nconfigs > 0 ? k->nconfigs : 1;
	for (int c = 0; c < nconfigs; c++) {
		bool seen = false;
		for (int i = 0; i < k->nvariants && !seen; i++)
			seen = k->variants[i].config == c;
		if (!seen) {
			diag_error(ctx, none, "kernel '%s': config %d has no variant", k->name, c);
			return false;
		}
	}
	if (k->nkeys < 0 || k->nkeys > BLOB_MAX_KEYS || k->nentries < 0 || (k->nentries && !k->nkeys)) {
		diag_error(ctx, none, "kernel '%s': a tuning table needs 1..%d keys (%d keys, %d entries)", k->name,
			   BLOB_MAX_KEYS, k->nkeys, k->nentries);
		return false;
	}
	for (int i = 0; i < k->nkeys; i++) {
		int p = k->keys[i];
		if (p < 0 || p >= nvisible || (k->params[p].kind != BLOB_PARAM_INT && k->params[p].kind != BLOB_PARAM_UINT)) {
			diag_error(ctx, none, "kernel '%s': tuning key %d is not a visible integer parameter", k->name, i);
			return false;
		}
		for (int j = 0; j < i; j++)
			if (k->keys[j] == p) {
				diag_error(ctx, none, "kernel '%s': tuning key '%s' appears twice", k->name, k->params[p].name);
				return false;
			}
	}
	if (k->default_config < 0 || k->default_config >= nconfigs) {
		diag_error(ctx, none, "kernel '%s': default config %d of %d", k->name, k->default_config, nconfigs);
		return false;
	}
	int stride = k->nkeys + 1;
	for (int i = 0; i < k->nentries; i++) {
		int64_t c = k->entries[(size_t)i * stride + k->nkeys];
		if (c < 0 || c >= nconfigs) {
			diag_error(ctx, none, "kernel '%s': tuning entry %d names config %lld of %d", k->name, i, (long long)c,
				   nconfigs);
			return false;
		}
	}
	int64_t *w = sorted_entries(k);
	if (!w) {
		diag_error(ctx, none, "out of memory");
		return false;
	}
	bool ok = true;
	for (int i = 1; i < k->nentries && ok; i++)
		if (!row_cmp(w + (size_t)(i - 1) * stride, w + (size_t)i * stride, k->nkeys)) {
			diag_error(ctx, none, "kernel '%s': the tuning table has two entries for one key", k->name);
			ok = false;
		}
	free(w);
	return ok;
}

/* Heuristics: distinct names that every variant has as an int or bool
 * constexpr, programs of one result valid for every variant. */
static bool check_heuristics(tilec_ctx *ctx, const blob_kernel *k)
{
	src_loc none = {0};
	if (k->nheuristics < 0 || k->nheuristics > BLOB_MAX_HEURISTICS) {
		diag_error(ctx, none, "kernel '%s': %d heuristics (at most %d)", k->name, k->nheuristics, BLOB_MAX_HEURISTICS);
		return false;
	}
	for (int h = 0; h < k->nheuristics; h++) {
		const blob_heuristic *hd = &k->heuristics[h];
		if (!hd->name || !*hd->name || !hd->code || hd->size < 2 || hd->size > GRIDEXPR_MAX_CODE || hd->code[0] != 1) {
			diag_error(ctx, none, "kernel '%s': heuristic %d needs a name and a program of one result", k->name, h);
			return false;
		}
		for (int j = 0; j < h; j++)
			if (!strcmp(k->heuristics[j].name, hd->name)) {
				diag_error(ctx, none, "kernel '%s': two heuristics compute '%s'", k->name, hd->name);
				return false;
			}
		for (int i = 0; i < k->nvariants; i++) {
			const blob_variant *v = &k->variants[i];
			const char *why = gridexpr_validate(hd->code, hd->size, k->nparams, k->params, v->nconstexprs, v->constexprs);
			int c = 0;
			while (c < v->nconstexprs && strcmp(v->constexprs[c].name, hd->name))
				c++;
			if (!why && (c == v->nconstexprs || (v->constexprs[c].kind != IR_CONSTEXPR_INT &&
							      v->constexprs[c].kind != IR_CONSTEXPR_BOOL)))
				why = "the variant has no int or bool constexpr of that name";
			if (why) {
				diag_error(ctx, none, "kernel '%s': heuristic '%s' for variant '%s': %s", k->name, hd->name,
					   v->symbol ? v->symbol : "?", why);
				return false;
			}
		}
	}
	return true;
}

static bool check_desc(tilec_ctx *ctx, const blob_desc *d)
{
	src_loc none = {0};
	if (d->nkernels < 1 || d->ngroups < 1 || d->nimages < 1) {
		diag_error(ctx, none, "a blob needs at least one kernel, group and image");
		return false;
	}
	for (int ki = 0; ki < d->nkernels; ki++) {
		const blob_kernel *k = &d->kernels[ki];
		if (!k->name || !*k->name) {
			diag_error(ctx, none, "kernel %d has no name", ki);
			return false;
		}
		for (int j = 0; j < ki; j++)
			if (!strcmp(d->kernels[j].name, k->name)) {
				diag_error(ctx, none, "two kernels named '%s' in one blob", k->name);
				return false;
			}
		if (k->nparams < 0 || k->nparams > BLOB_MAX_PARAMS) {
			diag_error(ctx, none, "kernel '%s' has %d parameters; at most %d are supported",
				   k->name, k->nparams, BLOB_MAX_PARAMS);
			return false;
		}
		bool hidden = false;
		int nvisible = 0, nmaps = 0;
		for (int i = 0; i < k->nparams; i++) {
			if (!check_param(ctx, k, i, &hidden))
				return false;
			nvisible += !hidden;
			nmaps += k->params[i].kind == BLOB_PARAM_TENSORMAP;
		}
		if (nmaps > BLOB_MAX_TENSORMAPS) {
			diag_error(ctx, none, "kernel '%s' has %d tensor maps; at most %d are supported", k->name, nmaps,
				   BLOB_MAX_TENSORMAPS);
			return false;
		}
		if (k->nvariants < 1) {
			diag_error(ctx, none, "kernel '%s' has no variant", k->name);
			return false;
		}
		for (int i = 0; i < k->nvariants; i++)
			if (!check_variant(ctx, d, k, nvisible, &k->variants[i]))
				return false;
		if (!check_tuning(ctx, k, nvisible) || !check_heuristics(ctx, k))
			return false;
	}
	for (int i = 0; i < d->nimages; i++) {
		const blob_image *im = &d->images[i];
		if (im->group < 0 || im->group >= d->ngroups || (im->kind != BLOB_IMAGE_CUBIN && im->kind != BLOB_IMAGE_PTX) ||
		    im->arch <= 0 || (im->flags & ~(BLOB_IMAGE_ARCH_SPECIFIC | BLOB_IMAGE_TENSORMAPS | BLOB_IMAGE_PRODUCER)) ||
		    !im->data || im->size == 0 ||
		    im->size >= MAX_RAW_SIZE) {
			diag_error(ctx, none, "image %d: bad group, kind, arch, flags or size", i);
			return false;
		}
		for (int j = 0; j < i; j++) {
			const blob_image *o = &d->images[j];
			if (o->group == im->group && o->kind == im->kind && o->arch == im->arch &&
			    (o->flags & BLOB_IMAGE_ARCH_SPECIFIC) == (im->flags & BLOB_IMAGE_ARCH_SPECIFIC)) {
				diag_error(ctx, none, "two %s images for sm_%d%s in group %d",
					   im->kind == BLOB_IMAGE_PTX ? "PTX" : "cubin", im->arch,
					   im->flags & BLOB_IMAGE_ARCH_SPECIFIC ? "a" : "", im->group);
				return false;
			}
		}
	}
	for (int g = 0; g < d->ngroups; g++) {
		bool has = false;
		for (int i = 0; i < d->nimages && !has; i++)
			has = d->images[i].group == g;
		if (!has) {
			diag_error(ctx, none, "group %d has no image", g);
			return false;
		}
	}
	return true;
}

/* ---- writing ------------------------------------------------------- */

typedef struct strtab {
	strbuf data;
} strtab;

/* Offset of s in the table, adding it when new. */
static uint32_t str_add(strtab *t, const char *s)
{
	size_t n = strlen(s);
	for (size_t off = 0; off < t->data.len;) {
		const char *e = t->data.data + off;
		size_t el = strlen(e);
		if (el == n && !memcmp(e, s, n))
			return (uint32_t)off;
		off += el + 1;
	}
	size_t off = t->data.len;
	sb_putn(&t->data, s, n);
	sb_putc(&t->data, '\0'); /* strbuf keeps a NUL past len; this one is counted */
	return (uint32_t)off;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

typedef struct packed_image {
	uint8_t *data; /* malloc'd: compressed, or a copy when stored */
	size_t size, raw_size;
	int compression;
} packed_image;

static tilec_status pack_image(const blob_image *im, packed_image *out)
{
	const uint8_t *raw = im->data;
	size_t raw_size = im->size;
	uint8_t *owned = NULL;
	if (im->kind == BLOB_IMAGE_PTX && raw[raw_size - 1] != '\0') {
		owned = malloc(raw_size + 1);
		if (!owned)
			return TILEC_ERR_NOMEM;
		memcpy(owned, raw, raw_size);
		owned[raw_size++] = '\0';
		raw = owned;
	}
	uLongf cap = compressBound((uLong)raw_size);
	out->data = malloc(cap > raw_size ? cap : raw_size);
	out->raw_size = raw_size;
	if (!out->data) {
		free(owned);
		return TILEC_ERR_NOMEM;
	}
	if (compress2(out->data, &cap, raw, (uLong)raw_size, 9) != Z_OK) {
		free(owned); /* zlib fails only for want of memory here */
		return TILEC_ERR_NOMEM;
	}
	if (cap < raw_size) {
		out->size = cap;
		out->compression = 1;
	} else {
		memcpy(out->data, raw, raw_size);
		out->size = raw_size;
		out->compression = 0;
	}
	free(owned);
	return TILEC_OK;
}

/* How specialized a variant is, as the loader ranks it (FORMAT.md): 3 for
 * each divisible by 16 or == 1, 2 for each by 8, 1 for each by 4. */
static int specialization(const blob_variant *v)
{
	return 3 * (popcount64(v->pred_div16) + popcount64(v->pred_eq1)) + 2 * popcount64(v->pred_div8) +
	       popcount64(v->pred_div4);
}

/* The variants of k, most specialized first (stable). */
static void order_variants(const blob_kernel *k, int *order)
{
	for (int i = 0; i < k->nvariants; i++) {
		int bits = specialization(&k->variants[i]), j = i;
		for (; j > 0; j--) {
			if (specialization(&k->variants[order[j - 1]]) >= bits)
				break;
			order[j] = order[j - 1];
		}
		order[j] = i;
	}
}

/* Where a program goes in grid_code: an earlier copy of its bytes, or the
 * end (appended), so identical programs are stored once. */
static uint32_t place_program(strbuf *grid, const uint8_t *code, size_t size)
{
	for (size_t off = 0; off + size <= grid->len; off++)
		if (!memcmp(grid->data + off, code, size))
			return (uint32_t)off;
	uint32_t at = (uint32_t)grid->len;
	sb_putn(grid, (const char *)code, size);
	return at;
}

/* The predicates of v on parameters from 32 on, which go to the preds
 * array: one record each. */
static int high_preds(const blob_variant *v)
{
	return popcount64((v->pred_div16 | v->pred_div8 | v->pred_div4 | v->pred_eq1) >> PRED_MASK_BITS);
}

/* A variant's recipes in order of their maps (insertion sort: a few). */
static void sort_recipes(const blob_variant *v, const blob_recipe **out)
{
	for (int i = 0; i < v->nrecipes; i++) {
		int j = i;
		for (; j > 0 && out[j - 1]->param > v->recipes[i].param; j--)
			out[j] = out[j - 1];
		out[j] = &v->recipes[i];
	}
}

tilec_status blob_write(tilec_ctx *ctx, const blob_desc *d, uint8_t **out, size_t *out_size)
{
	src_loc none = {0};
	*out = NULL;
	*out_size = 0;
	if (!check_desc(ctx, d))
		return TILEC_ERR_INVALID;

	int nparams = 0, nvariants = 0, nconstexprs = 0, nkeys = 0, ntune = 0, nheur = 0, nrecipes = 0, npreds = 0;
	for (int ki = 0; ki < d->nkernels; ki++) {
		nheur += d->kernels[ki].nheuristics;
		nkeys += d->kernels[ki].nkeys;
		ntune += d->kernels[ki].nentries * (d->kernels[ki].nkeys + 1);
		nparams += d->kernels[ki].nparams;
		nvariants += d->kernels[ki].nvariants;
		for (int i = 0; i < d->kernels[ki].nvariants; i++) {
			nconstexprs += d->kernels[ki].variants[i].nconstexprs;
			nrecipes += d->kernels[ki].variants[i].nrecipes;
			npreds += high_preds(&d->kernels[ki].variants[i]);
		}
	}
	/* version 5 where it says all: older loaders read it */
	size_t meta_header = npreds ? META_HEADER_SIZE : META_HEADER_SIZE_V5;

	tilec_status st = TILEC_ERR_NOMEM;
	packed_image *imgs = calloc((size_t)d->nimages, sizeof *imgs);
	int *order = calloc((size_t)nvariants, sizeof *order);
	const blob_variant **vlist = calloc((size_t)nvariants, sizeof *vlist);
	uint32_t *grid_off = calloc((size_t)nvariants, sizeof *grid_off);
	uint32_t *heur_off = calloc((size_t)nheur + 1, sizeof *heur_off);
	const blob_recipe **recipes = calloc((size_t)nrecipes + 1, sizeof *recipes);
	uint32_t *recipe_off = calloc((size_t)nrecipes + 1, sizeof *recipe_off);
	strbuf grid;
	strtab tab;
	sb_init(&grid);
	sb_init(&tab.data);
	uint8_t *b = NULL;
	if (!imgs || !order || !vlist || !grid_off || !heur_off || !recipes || !recipe_off)
		goto done;
	for (int i = 0; i < d->nimages; i++)
		if ((st = pack_image(&d->images[i], &imgs[i])) != TILEC_OK)
			goto done;
	st = TILEC_ERR_NOMEM;

	/* Variants in blob order; grid programs and strings in first-use order. */
	int nv = 0;
	for (int ki = 0; ki < d->nkernels; ki++) {
		const blob_kernel *k = &d->kernels[ki];
		order_variants(k, order + nv);
		for (int i = 0; i < k->nvariants; i++, nv++) {
			const blob_variant *v = vlist[nv] = &k->variants[order[nv]];
			grid_off[nv] = v->grid_size ? place_program(&grid, v->grid_code, v->grid_size) : 0;
		}
	}
	/* heuristic programs after the grid programs, then the recipes', in
	 * blob order */
	for (int ki = 0, hi = 0; ki < d->nkernels; ki++)
		for (int h = 0; h < d->kernels[ki].nheuristics; h++, hi++)
			heur_off[hi] = place_program(&grid, d->kernels[ki].heuristics[h].code, d->kernels[ki].heuristics[h].size);
	for (int i = 0, ri = 0; i < nvariants; i++) {
		sort_recipes(vlist[i], recipes + ri);
		for (int r = 0; r < vlist[i]->nrecipes; r++, ri++)
			recipe_off[ri] = place_program(&grid, recipes[ri]->code, recipes[ri]->size);
	}
	for (int ki = 0; ki < d->nkernels; ki++) {
		const blob_kernel *k = &d->kernels[ki];
		str_add(&tab, k->name);
		for (int h = 0; h < k->nheuristics; h++)
			str_add(&tab, k->heuristics[h].name);
		for (int i = 0; i < k->nparams; i++)
			str_add(&tab, k->params[i].name);
	}
	for (int i = 0; i < nvariants; i++) {
		str_add(&tab, vlist[i]->symbol);
		for (int c = 0; c < vlist[i]->nconstexprs; c++) {
			str_add(&tab, vlist[i]->constexprs[c].name);
			if (vlist[i]->constexprs[c].kind == IR_CONSTEXPR_STRING)
				str_add(&tab, vlist[i]->constexprs[c].sval);
		}
	}
	while (tab.data.len % 4)
		sb_putc(&tab.data, '\0');
	if (grid.failed || tab.data.failed)
		goto done;

	size_t meta_size = meta_header + (size_t)d->nkernels * BLOB_KERNEL_SIZE + (size_t)nparams * BLOB_PARAM_SIZE +
			   (size_t)nvariants * BLOB_VARIANT_SIZE + (size_t)nconstexprs * BLOB_CONSTEXPR_SIZE +
			   (size_t)d->nimages * BLOB_IMAGE_SIZE + (size_t)nkeys * 4 + (size_t)ntune * 8 +
			   (size_t)nheur * BLOB_HEURISTIC_SIZE + (size_t)nrecipes * BLOB_RECIPE_SIZE +
			   (size_t)npreds * BLOB_PRED_SIZE + align4(grid.len) + tab.data.len;
	size_t total = HEADER_SIZE + meta_size;
	for (int i = 0; i < d->nimages; i++)
		total = align4(total) + imgs[i].size;
	total = align4(total);
	if (total > UINT32_MAX) {
		diag_error(ctx, none, "the blob would be %zu bytes; the format holds at most 4 GiB", total);
		st = TILEC_ERR_INVALID;
		goto done;
	}
	b = calloc(1, total);
	if (!b)
		goto done;

	uint8_t *m = b + HEADER_SIZE;
	put32(m + 0, (uint32_t)d->nkernels);
	put32(m + 4, (uint32_t)nparams);
	put32(m + 8, (uint32_t)nvariants);
	put32(m + 12, (uint32_t)nconstexprs);
	put32(m + 16, (uint32_t)d->nimages);
	put32(m + 20, (uint32_t)grid.len);
	put32(m + 24, (uint32_t)tab.data.len);
	put32(m + 28, (uint32_t)d->ngroups);
	put32(m + 32, (uint32_t)nkeys);
	put32(m + 36, (uint32_t)ntune);
	put32(m + 40, (uint32_t)nheur);
	put32(m + 44, (uint32_t)nrecipes);
	if (npreds)
		put32(m + 48, (uint32_t)npreds);
	uint8_t *kp = m + meta_header;
	uint8_t *pp = kp + (size_t)d->nkernels * BLOB_KERNEL_SIZE;
	uint8_t *vp = pp + (size_t)nparams * BLOB_PARAM_SIZE;
	uint8_t *cp = vp + (size_t)nvariants * BLOB_VARIANT_SIZE;
	uint8_t *ip = cp + (size_t)nconstexprs * BLOB_CONSTEXPR_SIZE;
	uint8_t *yp = ip + (size_t)d->nimages * BLOB_IMAGE_SIZE;
	uint8_t *tp = yp + (size_t)nkeys * 4;
	uint8_t *hp = tp + (size_t)ntune * 8;
	uint8_t *rp = hp + (size_t)nheur * BLOB_HEURISTIC_SIZE;
	uint8_t *qp = rp + (size_t)nrecipes * BLOB_RECIPE_SIZE;
	uint8_t *gp = qp + (size_t)npreds * BLOB_PRED_SIZE;
	for (int i = 0, ri = 0; i < nvariants; i++)
		for (int r = 0; r < vlist[i]->nrecipes; r++, ri++, rp += BLOB_RECIPE_SIZE) {
			const blob_recipe *x = recipes[ri];
			put32(rp + 0, (uint32_t)i);
			put32(rp + 4, (uint32_t)x->param);
			put32(rp + 8, (uint32_t)x->base);
			put32(rp + 12, (uint32_t)x->rank);
			put32(rp + 16, recipe_off[ri]);
			put32(rp + 20, (uint32_t)x->size);
			for (int k = 0; k < 5; k++)
				put16(rp + 24 + 2 * k, (uint32_t)x->block[k]);
		}
	/* by variant, then parameter */
	for (int i = 0; i < nvariants; i++)
		for (int p = PRED_MASK_BITS; p < BLOB_MAX_PARAMS; p++) {
			const blob_variant *v = vlist[i];
			uint64_t bit = UINT64_C(1) << p;
			int by = v->pred_div16 & bit ? 16 : v->pred_div8 & bit ? 8 : v->pred_div4 & bit ? 4 : v->pred_eq1 & bit ? 1 : 0;
			if (!by)
				continue;
			put32(qp + 0, (uint32_t)i);
			put16(qp + 4, (uint32_t)p);
			qp[6] = (uint8_t)by;
			qp += BLOB_PRED_SIZE;
		}
	uint8_t *sp = gp + align4(grid.len);
	if (grid.len)
		memcpy(gp, grid.data, grid.len);
	memcpy(sp, tab.data.data, tab.data.len);

	uint32_t pi = 0, vi = 0, ci = 0, yi = 0, ti = 0, hi = 0;
	for (int ki = 0; ki < d->nkernels; ki++, kp += BLOB_KERNEL_SIZE) {
		const blob_kernel *k = &d->kernels[ki];
		put32(kp + 0, str_add(&tab, k->name));
		put32(kp + 4, pi);
		put32(kp + 8, (uint32_t)k->nparams);
		put32(kp + 12, vi);
		put32(kp + 16, (uint32_t)k->nvariants);
		put32(kp + 20, (uint32_t)(k->nconfigs > 0 ? k->nconfigs : 1));
		put32(kp + 24, (uint32_t)k->default_config);
		put32(kp + 28, yi);
		put32(kp + 32, (uint32_t)k->nkeys);
		put32(kp + 36, ti);
		put32(kp + 40, (uint32_t)k->nentries);
		put32(kp + 44, hi);
		put32(kp + 48, (uint32_t)k->nheuristics);
		for (int h = 0; h < k->nheuristics; h++, hi++) {
			uint8_t *r = hp + (size_t)hi * BLOB_HEURISTIC_SIZE;
			put32(r + 0, str_add(&tab, k->heuristics[h].name));
			put32(r + 4, heur_off[hi]);
			put32(r + 8, (uint32_t)k->heuristics[h].size);
		}
		for (int i = 0; i < k->nkeys; i++, yi++)
			put32(yp + (size_t)yi * 4, (uint32_t)k->keys[i]);
		if (k->nentries) {
			int64_t *w = sorted_entries(k);
			if (!w)
				goto done;
			for (int i = 0; i < k->nentries * (k->nkeys + 1); i++, ti++)
				put64(tp + (size_t)ti * 8, (uint64_t)w[i]);
			free(w);
		}
		for (int i = 0; i < k->nparams; i++, pi++, pp += BLOB_PARAM_SIZE) {
			const blob_param *p = &k->params[i];
			put32(pp + 0, str_add(&tab, p->name));
			pp[4] = p->kind;
			pp[5] = p->size;
			pp[6] = p->dtype;
			pp[7] = p->flags;
		}
		for (int i = 0; i < k->nvariants; i++, vi++, vp += BLOB_VARIANT_SIZE) {
			const blob_variant *v = vlist[vi];
			put32(vp + 0, (uint32_t)ki);
			put32(vp + 4, str_add(&tab, v->symbol));
			put32(vp + 8, (uint32_t)v->group);
			put32(vp + 12, ci);
			put32(vp + 16, (uint32_t)v->nconstexprs);
			vp[20] = (uint8_t)v->num_warps;
			vp[21] = (uint8_t)v->producer_warps;
			put16(vp + 22, (uint32_t)v->num_stages);
			put32(vp + 24, v->shared_static);
			put32(vp + 28, v->shared_dynamic);
			for (int c = 0; c < 3; c++)
				put16(vp + 32 + 2 * c, v->cluster[c]);
			put16(vp + 38, v->n_regs);
			put32(vp + 40, (uint32_t)v->pred_div16);
			put32(vp + 44, (uint32_t)v->pred_eq1);
			put32(vp + 48, grid_off[vi]);
			put32(vp + 52, (uint32_t)v->grid_size);
			put32(vp + 56, v->spills_known ? v->spill_stores : SPILLS_UNKNOWN);
			put32(vp + 60, v->spills_known ? v->spill_loads : SPILLS_UNKNOWN);
			put32(vp + 64, (uint32_t)v->config);
			/* a kernel of one config built by a writer that leaves the field 0 has no source config */
			bool source = v->source_config > 0 || (v->source_config == 0 && k->nconfigs > 1);
			put32(vp + 68, source ? (uint32_t)v->source_config : 0xffffffffu);
			put32(vp + 72, (uint32_t)v->pred_div8);
			put32(vp + 76, (uint32_t)v->pred_div4);
			for (int c = 0; c < v->nconstexprs; c++, ci++, cp += BLOB_CONSTEXPR_SIZE) {
				const ir_constexpr *x = &v->constexprs[c];
				uint64_t val = (uint64_t)x->ival;
				if (x->kind == IR_CONSTEXPR_FLOAT)
					memcpy(&val, &x->fval, sizeof val);
				else if (x->kind == IR_CONSTEXPR_STRING)
					val = str_add(&tab, x->sval);
				put32(cp + 0, str_add(&tab, x->name));
				cp[4] = (uint8_t)x->kind;
				put64(cp + 8, val);
			}
		}
	}
	size_t off = HEADER_SIZE + meta_size;
	for (int i = 0; i < d->nimages; i++, ip += BLOB_IMAGE_SIZE) {
		const blob_image *im = &d->images[i];
		off = align4(off);
		put32(ip + 0, (uint32_t)im->group);
		put32(ip + 4, (uint32_t)im->kind);
		put32(ip + 8, (uint32_t)im->arch);
		put32(ip + 12, im->flags);
		put32(ip + 16, (uint32_t)off);
		put32(ip + 20, (uint32_t)imgs[i].size);
		put32(ip + 24, (uint32_t)imgs[i].raw_size);
		put32(ip + 28, (uint32_t)imgs[i].compression);
		memcpy(b + off, imgs[i].data, imgs[i].size);
		off += imgs[i].size;
	}

	memcpy(b, "TILE", 4);
	put16(b + 4, npreds ? BLOB_VERSION : BLOB_VERSION_NO_PREDS);
	put16(b + 6, HEADER_SIZE);
	put32(b + 8, (uint32_t)total);
	put32(b + 16, HEADER_SIZE);
	put32(b + 20, (uint32_t)meta_size);
	put32(b + 12, (uint32_t)crc32(crc32(0L, Z_NULL, 0), b + HEADER_SIZE, (uInt)(total - HEADER_SIZE)));
	*out = b;
	*out_size = total;
	b = NULL;
	st = TILEC_OK;
done:
	if (st == TILEC_ERR_NOMEM)
		diag_error(ctx, none, "out of memory while writing a blob");
	if (imgs)
		for (int i = 0; i < d->nimages; i++)
			free(imgs[i].data);
	free(imgs);
	free(order);
	free(vlist);
	free(grid_off);
	free(heur_off);
	free(recipes);
	free(recipe_off);
	sb_free(&grid);
	sb_free(&tab.data);
	free(b);
	return st;
}
