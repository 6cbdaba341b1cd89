/* tensordesc.h - tensor descriptors: the checks of a host-side
 * tile_tensordesc before a launch, and the TMA tensor maps encoded at
 * launch, from a host-side descriptor or from a variant's recipe.
 *
 * A kernel parameter declared `tensordesc<fp16[64, 64]>` is compiled as a
 * base pointer, rank int32 shapes and rank int64 strides; its generated
 * launch function takes one tile_tensordesc, checks it here and passes the
 * fields. The rules are those Triton's TensorDescriptor asserts on the host
 * (rank, 16-byte aligned base, a contiguous last dimension, other strides
 * multiples of 16 bytes) plus what the kernel was compiled for (rank, block
 * shape) and the int32 range of the shape the kernel's bounds use. The
 * kernel relies on the alignment (its vector widths assume it), so a
 * descriptor that breaks a rule never reaches the driver. A device-side
 * descriptor (tl.make_tensor_descriptor) read with TMA is a hidden map
 * parameter whose descriptor the launch builds from a recipe; the same
 * rules (tile__desc_rules) hold for it, as Triton states them there. */

/* How a refusal names what it refuses: "tensor descriptor NAME", or with
 * a kernel, "kernel K: tensor map NAME". */
#define TILE__WHO_FMT "%s%s%s%s %s"
#define TILE__WHO(kernel, what, name) (kernel) ? "kernel " : "", (kernel) ? (kernel) : "", (kernel) ? ": " : "", what, name

/* Triton's rules of a descriptor's fields: a 16-byte aligned base, shapes
 * in [0, 2^31), the last stride 1, the others multiples of 16 bytes. */
static tile_status tile__desc_rules(const tile_tensordesc *d, int rank, int elem_bytes, const char *kernel, const char *what,
				    const char *name)
{
	int i;
	if (d->base % 16)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, TILE__WHO_FMT ": base 0x%llx is not 16-byte aligned",
				  TILE__WHO(kernel, what, name), (unsigned long long)d->base);
	for (i = 0; i < rank; i++) {
		if (d->shape[i] < 0 || d->shape[i] > INT32_MAX)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, TILE__WHO_FMT ": shape[%d] = %lld is outside [0, 2^31)",
					  TILE__WHO(kernel, what, name), i, (long long)d->shape[i]);
		if (i == rank - 1 && d->strides[i] != 1)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  TILE__WHO_FMT ": strides[%d] is %lld; the last dimension must be contiguous (1)",
					  TILE__WHO(kernel, what, name), i, (long long)d->strides[i]);
		if (i < rank - 1 && (d->strides[i] < 0 || d->strides[i] > INT64_MAX / 16 || (d->strides[i] * elem_bytes) % 16))
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  TILE__WHO_FMT ": strides[%d] = %lld elements of %d bytes is not a multiple of 16 bytes",
					  TILE__WHO(kernel, what, name), i, (long long)d->strides[i], elem_bytes);
	}
	return TILE_SUCCESS;
}

TILEDEF tile_status tile_tensordesc_check(const tile_tensordesc *d, const char *param, int rank, int elem_bytes,
					  const int32_t *block_shape)
{
	tile_status st;
	int i;
	if (!param)
		param = "?";
	if (!d || !block_shape || rank < 1 || rank > TILE_TENSORDESC_MAX_RANK || elem_bytes < 1 || elem_bytes > 16)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tensor descriptor %s: NULL descriptor or bad call", param);
	if (d->rank != rank)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tensor descriptor %s: rank %d, the kernel takes rank %d",
				  param, (int)d->rank, rank);
	if ((st = tile__desc_rules(d, rank, elem_bytes, NULL, "tensor descriptor", param)) != TILE_SUCCESS)
		return st;
	for (i = 0; i < rank; i++)
		if (d->block_shape[i] != block_shape[i])
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  "tensor descriptor %s: block_shape[%d] is %d, the kernel was compiled for %d", param, i,
					  (int)d->block_shape[i], (int)block_shape[i]);
	return TILE_SUCCESS;
}

/* TMA tensor maps. A kernel built for a tensor-core target from sm_90 on
 * that reads a descriptor with TMA takes a 128-byte CUtensorMap by value
 * (a parameter of kind 4, FORMAT.md). A host-side descriptor's map comes
 * right after the descriptor's strides; the caller passes a pointer to the
 * tile_tensordesc there. A device-side descriptor's map is a hidden
 * parameter (flags 1) the caller never passes; the chosen variant's recipe
 * for it gives the descriptor: the base pointer argument, and the shape and
 * strides its program computes from the arguments (tile__recipe_desc).
 * The launch puts in each map parameter's place a map encoded with
 * cuTensorMapEncodeTiled, or 128 zero bytes when the image loaded for the
 * context does not read maps (an image for another arch), and for a
 * hidden map the variant has no recipe for. Both sorts take one path from
 * the descriptor on (tile__map_encode): the encoding follows one rule
 * (tile__tensormap_plan, FORMAT.md), which the compiler's shared-memory
 * tiles are laid out for. Encoding costs host time on every launch, so
 * each slot keeps the last map of every map parameter, keyed by the encode
 * call's inputs: a seqlock whose words are all atomics (the launch path is
 * lock-free), written by one thread at a time (a try-lock: a thread that
 * finds it taken keeps its own map uncached), read by copying out and
 * checking the sequence did not move. */

/* FORMAT.md's dtype codes to CUtensorMapDataType (-1: none) and to bytes. */
static const signed char tile__tma_types[16] = {-1, -1, 0, 1, 3, 5, 0, 1, 2, 4, 6, 9, 7, 8, 0, 0};
static const unsigned char tile__dtype_bytes[16] = {0, 1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 1, 1};

/* The arguments of cuTensorMapEncodeTiled that depend on the descriptor;
 * innermost dimension first, as the driver counts. */
typedef struct tile__tensormap_args {
	int data_type;       /* CUtensorMapDataType */
	int swizzle;         /* CUtensorMapSwizzle: 1 32B, 2 64B, 3 128B */
	uint32_t rank;
	uint64_t address;
	uint64_t dims[TILE_TENSORDESC_MAX_RANK];
	uint64_t strides[TILE_TENSORDESC_MAX_RANK - 1]; /* bytes, of dimensions 1.. */
	uint32_t box[TILE_TENSORDESC_MAX_RANK];
} tile__tensormap_args;

/* The encoding rule: the swizzle is the widest of 128, 64, 32 bytes that
 * the block's innermost row (B[r-1] elements of e bytes) fills (a multiple
 * of 128, or exactly 64 or 32); the box is one swizzle span of elements
 * innermost, then the block's other dimensions (at most 256 each); the
 * global dims and byte strides are the descriptor's shape and strides.
 * kernel and param name the map in the detail of a refusal. */
static tile_status tile__tensormap_plan(const tile_tensordesc *d, int dtype, int rank, const char *kernel, const char *param,
					tile__tensormap_args *out)
{
	uint64_t e, inner, span;
	int i;
	memset(out, 0, sizeof *out);
	if (dtype < 1 || dtype > 15 || tile__tma_types[dtype] < 0)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "kernel %s: tensor map %s: dtype %d has no TMA data type", kernel, param,
				  dtype);
	if (rank < 1 || rank > TILE_TENSORDESC_MAX_RANK || d->rank != rank)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "kernel %s: tensor map %s: the descriptor has rank %d, the kernel takes %d",
				  kernel, param, (int)d->rank, rank);
	e = tile__dtype_bytes[dtype];
	for (i = 0; i < rank; i++) {
		if (d->block_shape[i] < 1)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "kernel %s: tensor map %s: block_shape[%d] is %d", kernel, param, i,
					  (int)d->block_shape[i]);
		if (d->shape[i] < 1 || d->shape[i] > INT64_C(1) << 32)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  "kernel %s: tensor map %s: shape[%d] = %lld; a TMA dimension holds 1 to 2^32 elements", kernel,
					  param, i, (long long)d->shape[i]);
		if (i < rank - 1 && (d->strides[i] < 0 || d->strides[i] > INT64_MAX / 8))
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "kernel %s: tensor map %s: strides[%d] = %lld", kernel, param, i,
					  (long long)d->strides[i]);
	}
	inner = (uint64_t)d->block_shape[rank - 1] * e;
	span = inner % 128 == 0 ? 128 : inner == 64 ? 64 : inner == 32 ? 32 : 0;
	if (!span)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
				  "kernel %s: tensor map %s: block_shape[%d] = %d elements of %d bytes: a TMA row needs 32, 64 or a "
				  "multiple of 128 bytes",
				  kernel, param, rank - 1, (int)d->block_shape[rank - 1], (int)e);
	out->data_type = tile__tma_types[dtype];
	out->swizzle = span == 128 ? 3 : span == 64 ? 2 : 1;
	out->rank = (uint32_t)rank;
	out->address = d->base;
	out->box[0] = (uint32_t)(span / e);
	for (i = 0; i < rank; i++) {
		out->dims[i] = (uint64_t)d->shape[rank - 1 - i];
		if (i == 0)
			continue;
		if (d->block_shape[rank - 1 - i] > 256)
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT,
					  "kernel %s: tensor map %s: block_shape[%d] = %d; a TMA box holds at most 256 elements a "
					  "dimension",
					  kernel, param, rank - 1 - i, (int)d->block_shape[rank - 1 - i]);
		out->box[i] = (uint32_t)d->block_shape[rank - 1 - i];
		out->strides[i - 1] = (uint64_t)d->strides[rank - 1 - i] * e;
	}
	return TILE_SUCCESS;
}

/* A slot's cached map of one map parameter (see above). seq is odd while
 * a writer fills the entry, 0 while it was never filled. */
#define TILE__MAP_KEY_WORDS 12
#define TILE__MAP_WORDS (TILE__TENSORMAP_SIZE / 8)
typedef struct tile__map_entry {
	uint32_t seq;
	uint64_t key[TILE__MAP_KEY_WORDS];
	uint64_t map[TILE__MAP_WORDS];
} tile__map_entry;

/* A plan as the words of a cache key: equal keys, equal encode calls. */
static void tile__tensormap_key(const tile__tensormap_args *p, uint64_t *key)
{
	int i;
	key[0] = p->address;
	for (i = 0; i < TILE_TENSORDESC_MAX_RANK; i++)
		key[1 + i] = p->dims[i];
	for (i = 0; i < TILE_TENSORDESC_MAX_RANK - 1; i++)
		key[6 + i] = p->strides[i];
	/* box entries are at most 256 */
	key[10] = p->box[0] | (uint64_t)p->box[1] << 16 | (uint64_t)p->box[2] << 32 | (uint64_t)p->box[3] << 48;
	key[11] = p->box[4] | (uint64_t)p->rank << 16 | (uint64_t)p->swizzle << 24 | (uint64_t)p->data_type << 32;
}

/* Copies the entry's map into `map` when its key is `key`. The data words
 * are read with acquire loads so that the closing read of seq comes after
 * them; a writer's release stores of the data then make that read see its
 * odd seq, whenever one of them was seen. */
static int tile__map_cached(tile__map_entry *e, const uint64_t *key, uint64_t *map)
{
	uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	int i, same = seq && !(seq & 1);
	for (i = 0; same && i < TILE__MAP_KEY_WORDS; i++)
		same = __atomic_load_n(&e->key[i], __ATOMIC_ACQUIRE) == key[i];
	for (i = 0; same && i < (int)TILE__MAP_WORDS; i++)
		map[i] = __atomic_load_n(&e->map[i], __ATOMIC_ACQUIRE);
	return same && __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE) == seq;
}

/* Caches a map unless another thread is writing the entry. */
static void tile__map_store(tile__map_entry *e, const uint64_t *key, const uint64_t *map)
{
	uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
	int i;
	if ((seq & 1) || !__atomic_compare_exchange_n(&e->seq, &seq, seq + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	for (i = 0; i < TILE__MAP_KEY_WORDS; i++)
		__atomic_store_n(&e->key[i], key[i], __ATOMIC_RELEASE);
	for (i = 0; i < (int)TILE__MAP_WORDS; i++)
		__atomic_store_n(&e->map[i], map[i], __ATOMIC_RELEASE);
	__atomic_store_n(&e->seq, seq + 2, __ATOMIC_RELEASE);
}

/* What a map parameter gets when the image does not read maps, or, a
 * hidden one, when the variant has no recipe for it. */
static const uint64_t tile__zero_map[TILE__MAP_WORDS] = {0};

/* The map of map parameter p of kernel k for descriptor d (rank: what the
 * kernel takes) into `map`, 64-byte aligned: the slot's cached one when
 * the encode inputs are the same, else encoded and cached. */
static tile_status tile__map_encode(const tile_module *m, const tile__kernel *k, tile__slot *slot, const tile__param *p,
				    const tile_tensordesc *d, int rank, uint64_t *map)
{
	static const uint32_t ones[TILE_TENSORDESC_MAX_RANK] = {1, 1, 1, 1, 1};
	const char *kernel = tile__str(m, k->name);
	tile__map_entry *e = &slot->maps[p->map_index];
	uint64_t key[TILE__MAP_KEY_WORDS];
	tile__tensormap_args plan;
	tile__CUresult r;
	tile_status st = tile__tensormap_plan(d, p->dtype, rank, kernel, tile__str(m, p->name), &plan);
	if (st)
		return st;
	tile__tensormap_key(&plan, key);
	if (tile__map_cached(e, key, map))
		return TILE_SUCCESS;
	/* interleave none, L2 promotion 128B, out-of-bounds elements read as zero */
	r = tile__cu.cuTensorMapEncodeTiled(map, plan.data_type, plan.rank, (void *)(uintptr_t)plan.address, plan.dims, plan.strides,
					    plan.box, ones, 0, plan.swizzle, 2, 0);
	if (r)
		return tile__fail(TILE_ERROR_CUDA, "kernel %s: cuTensorMapEncodeTiled (tensor map %s): %s (%d)", kernel,
				  tile__str(m, p->name), tile__cuda_error_name(r), r);
	tile__map_store(e, key, map);
	return TILE_SUCCESS;
}

/* The descriptor of hidden map recipe r (of variant v of kernel k) for the
 * caller's arguments: the base pointer argument, the shape and strides its
 * program leaves (the last stride 1), its block shape; refused, naming the
 * kernel and the map, when the program fails (TILE_ERROR_GRID, as a grid
 * program) or the descriptor breaks Triton's rules. */
static tile_status tile__recipe_desc(const tile_module *m, const tile__kernel *k, const tile__variant *v, const tile__recipe *r,
				     void *const *args, tile_tensordesc *d)
{
	const tile__param *p = &m->params[k->first_param + r->param];
	int64_t values[2 * TILE_TENSORDESC_MAX_RANK - 1];
	uint32_t i, rank = r->rank;
	tile_status st = tile__program_eval(m, v, m->grid_code + r->code_offset, r->code_size, args, values, 2 * rank - 1,
					    "tensor map", tile__str(m, p->name));
	if (st)
		return st;
	memset(d, 0, sizeof *d);
	d->base = tile__param_bits(&m->params[k->first_param + r->base], args[r->base]);
	d->rank = (int32_t)rank;
	for (i = 0; i < rank; i++) {
		d->shape[i] = values[i];
		d->strides[i] = i + 1 < rank ? values[rank + i] : 1;
		d->block_shape[i] = r->block[i];
	}
	return tile__desc_rules(d, (int)rank, tile__dtype_bytes[p->dtype], tile__str(m, k->name), "tensor map",
				tile__str(m, p->name));
}

/* Puts the maps of a launch of variant v of kernel k (in the slot's
 * context) into params, the launch's own copy of the arguments, where each
 * descriptor's map parameter holds the caller's tile_tensordesc pointer;
 * args: the caller's arguments, which recipe programs read. buffers:
 * TILE__MAX_MAPS maps, 64-byte aligned (the driver's alignment for a
 * CUtensorMap). */
static tile_status tile__tensormaps(const tile_module *m, const tile__kernel *k, const tile__variant *v, tile__slot *slot,
				    void *const *args, void **params, uint64_t *buffers)
{
	uint64_t descs = k->map_mask & ~k->hidden_maps, mask;
	const tile__recipe *r = m->recipes + v->first_recipe, *end = r + v->n_recipes;
	tile_status st;
	if (!(__atomic_load_n(&slot->group_flags[v->group], __ATOMIC_RELAXED) & TILE__GROUP_MAPS)) {
		for (mask = k->map_mask; mask; mask &= mask - 1)
			params[__builtin_ctzll(mask)] = (void *)tile__zero_map;
		return TILE_SUCCESS;
	}
	if ((descs || r < end) && !tile__cu.cuTensorMapEncodeTiled)
		return tile__fail(TILE_ERROR_DRIVER_SYMBOL,
				  "kernel %s: its image reads TMA tensor maps, and the CUDA driver library has no "
				  "cuTensorMapEncodeTiled (CUDA 12.0 or newer)",
				  tile__str(m, k->name));
	for (mask = descs; mask; mask &= mask - 1, buffers += TILE__MAP_WORDS) {
		int j = __builtin_ctzll(mask);
		const tile__param *p = &m->params[k->first_param + (uint32_t)j];
		if ((st = tile__map_encode(m, k, slot, p, (const tile_tensordesc *)params[j], p->desc_rank, buffers)) != TILE_SUCCESS)
			return st;
		params[j] = buffers;
	}
	/* hidden maps: zeros unless the variant has a recipe */
	for (mask = k->hidden_maps; mask; mask &= mask - 1)
		params[__builtin_ctzll(mask)] = (void *)tile__zero_map;
	for (; r < end; r++, buffers += TILE__MAP_WORDS) {
		tile_tensordesc d;
		if ((st = tile__recipe_desc(m, k, v, r, args, &d)) != TILE_SUCCESS ||
		    (st = tile__map_encode(m, k, slot, &m->params[k->first_param + r->param], &d, (int)r->rank, buffers)) != TILE_SUCCESS)
			return st;
		params[r->param] = buffers;
	}
	return TILE_SUCCESS;
}
