/* launch.h - loading into contexts, launching, unloading, lazy creation.
 *
 * A module keeps one slot per CUDA context it has been used in. The launch
 * path asks the driver for the current context, scans the published slots
 * (an acquire load of n_slots, then plain compares), and reads the
 * variant's cached CUfunction with an acquire load: no lock, no allocation.
 * Only a miss takes the module's mutex, where the slot is created, the
 * group's image chosen for the device, inflated and loaded, and the function
 * looked up; the function is then published with a release store, so each
 * (group, context) is loaded once and each (variant, context) looked up once
 * whatever the number of racing threads. A thread without a current context
 * gets the primary context of its device (tile_set_device; 0 by default),
 * retained once per module and made current on that thread, as the CUDA
 * runtime does.
 *
 * A launch of a kernel with hidden parameters or TMA tensor maps builds
 * its own argument array (the caller's is never written): zeros for the
 * hidden ones, and where the image loaded in the context reads tensor
 * maps, maps encoded from the caller's descriptors and, for hidden map
 * parameters, from the chosen variant's recipes evaluated on the caller's
 * arguments (tensordesc.h); zeros where the image does not read maps.
 * The maps live in a buffer on the launch's stack. Other kernels pass the
 * caller's array as it is.
 *
 * Slots are keyed by the driver's unique context ID, not the handle: a
 * context destroyed and another created at the same address must not find
 * the first one's functions (the slot is recycled instead). That costs the
 * launch path one cuCtxGetId call. The slot table grows by copying (the
 * old copies retired until destroy), so a module serves any number of
 * contexts over its life and the launch path stays lock-free. */

/* The image of `group` to load on a device of compute capability `arch`:
 * the exact cubin (sm_90a counts as exact on 9.0 only), else the newest
 * cubin of the same major version not newer than the device, else the
 * newest PTX not newer than the device. -1 when none fits. */
static int tile__pick_image(const tile_module *m, uint32_t group, int arch)
{
	int best = -1, best_rank = 0;
	uint32_t i;
	for (i = 0; i < m->n_images; i++) {
		const tile__image *im = &m->images[i];
		int a = (int)im->arch, rank;
		if (im->group != group || a > arch)
			continue;
		if ((im->flags & TILE__IMAGE_ARCH_SPECIFIC) && a != arch)
			continue;
		if (im->kind == TILE__IMAGE_CUBIN && a == arch)
			rank = 40000 + a * 2 + (im->flags & TILE__IMAGE_ARCH_SPECIFIC);
		else if (im->kind == TILE__IMAGE_CUBIN && a / 10 == arch / 10)
			rank = 20000 + a;
		else if (im->kind == TILE__IMAGE_PTX)
			rank = 10000 + a;
		else
			continue;
		if (rank > best_rank) {
			best_rank = rank;
			best = (int)i;
		}
	}
	return best;
}

static tile_status tile__no_image(const tile_module *m, uint32_t group, int arch)
{
	char list[512];
	size_t len = 0;
	uint32_t i;
	list[0] = 0;
	for (i = 0; i < m->n_images && len < sizeof list; i++) {
		const tile__image *im = &m->images[i];
		if (im->group != group)
			continue;
		len += (size_t)snprintf(list + len, sizeof list - len, "%s%s %s_%u%s", len ? ", " : "",
					im->kind == TILE__IMAGE_PTX ? "PTX" : "cubin",
					im->kind == TILE__IMAGE_PTX ? "compute" : "sm", im->arch,
					im->flags & TILE__IMAGE_ARCH_SPECIFIC ? "a" : "");
	}
	return tile__fail(TILE_ERROR_NO_IMAGE, "group %u: no image for the device (sm_%d); the blob has %s", group, arch, list);
}

/* Loads `group` into the slot's context (current on this thread). Locked. */
static tile_status tile__load_group(tile_module *m, tile__slot *slot, uint32_t group)
{
	int pick = tile__pick_image(m, group, slot->arch);
	const tile__image *im;
	uint8_t *image;
	void *mod = NULL;
	tile__CUresult r;
	tile_status st = TILE_SUCCESS;
	if (pick < 0)
		return tile__no_image(m, group, slot->arch);
	im = &m->images[pick];
	/* A private copy: the driver wants aligned ELF, the blob is only 4-byte aligned. */
	image = (uint8_t *)TILE_MALLOC(im->raw_size);
	if (!image)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "image %d: out of memory for %u bytes", pick, im->raw_size);
	if (im->compression)
		st = tile__inflate_image((uint32_t)pick, m->blob + im->offset, im->size, image, im->raw_size);
	else
		memcpy(image, m->blob + im->offset, im->size);
	if (!st && im->kind == TILE__IMAGE_PTX && image[im->raw_size - 1] != 0)
		st = tile__fail(TILE_ERROR_BAD_BLOB, "image %d: PTX text is not NUL-terminated", pick);
	if (!st && im->kind == TILE__IMAGE_PTX) {
		char log[2048];
		int options[2] = {TILE__CU_JIT_ERROR_LOG_BUFFER, TILE__CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
		void *values[2];
		values[0] = log;
		values[1] = (void *)(uintptr_t)sizeof log;
		log[0] = 0;
		r = tile__cu.cuModuleLoadDataEx(&mod, image, 2, options, values);
		log[sizeof log - 1] = 0;
		if (r)
			st = tile__fail(TILE_ERROR_JIT, "cuModuleLoadDataEx (PTX compute_%u for sm_%d): %s: %s", im->arch,
					slot->arch, tile__cuda_error_name(r), log);
	} else if (!st) {
		r = tile__cu.cuModuleLoadData(&mod, image);
		if (r)
			st = tile__fail(TILE_ERROR_CUDA, "cuModuleLoadData (cubin sm_%u%s): %s (%d)", im->arch,
					im->flags & TILE__IMAGE_ARCH_SPECIFIC ? "a" : "", tile__cuda_error_name(r), r);
	}
	TILE_FREE(image);
	if (!st) {
		slot->modules[group] = mod;
		__atomic_store_n(&slot->group_flags[group],
				 (uint8_t)((im->flags & TILE__IMAGE_TENSORMAPS ? TILE__GROUP_MAPS : 0) |
					   (im->arch >= 90 ? TILE__GROUP_CLUSTERS : 0) |
					   (im->flags & TILE__IMAGE_PRODUCER ? TILE__GROUP_PRODUCER : 0)),
				 __ATOMIC_RELAXED);
	}
	return st;
}

/* The slot of the context whose key is `key`, or NULL. No lock: an
 * acquire load of the table, of its count, and of each slot's key. */
static tile__slot *tile__slot_find(tile_module *m, uint64_t key)
{
	tile__slot_table *t = __atomic_load_n(&m->slots, __ATOMIC_ACQUIRE);
	unsigned n, i;
	if (!t)
		return NULL;
	n = __atomic_load_n(&t->n, __ATOMIC_ACQUIRE);
	for (i = 0; i < n; i++)
		if (__atomic_load_n(&t->slot[i]->key, __ATOMIC_ACQUIRE) == key)
			return t->slot[i];
	return NULL;
}

/* Room for one more slot: the table, or a copy twice its size published in
 * its place (the old one retired, not freed: a launch may be reading it).
 * Locked. */
static tile_status tile__slot_room(tile_module *m)
{
	tile__slot_table *t = m->slots, *bigger;
	unsigned cap;
	if (t && t->n < t->cap)
		return TILE_SUCCESS;
	cap = t ? t->cap * 2 : (TILE_INITIAL_CONTEXTS > 0 ? TILE_INITIAL_CONTEXTS : 1);
	if (t && cap <= t->cap)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "too many contexts");
	bigger = (tile__slot_table *)TILE_MALLOC(sizeof *bigger + (size_t)(cap - 1) * sizeof(tile__slot *));
	if (!bigger)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory for a table of %u contexts", cap);
	bigger->cap = cap;
	bigger->n = t ? t->n : 0;
	bigger->retired = t;
	if (t)
		memcpy(bigger->slot, t->slot, t->n * sizeof(tile__slot *));
	__atomic_store_n(&m->slots, bigger, __ATOMIC_RELEASE);
	return TILE_SUCCESS;
}

static void tile__slot_free(tile__slot *slot)
{
	TILE_FREE(slot->modules);
	TILE_FREE(slot->funcs);
	TILE_FREE(slot->group_flags);
	TILE_FREE(slot->maps);
	TILE_FREE(slot);
}

/* A slot for the context ctx (current on this thread) whose key is `key`.
 * A slot holding the same handle under another key belonged to a context
 * that has been destroyed since (a live handle names one context): it is
 * recycled, its modules forgotten (the driver freed them with their
 * context). Locked. */
static tile_status tile__slot_add(tile_module *m, void *ctx, uint64_t key, tile__slot **out)
{
	tile__slot_table *t = m->slots;
	tile__slot *slot = NULL;
	int device = 0, major = 0, minor = 0;
	tile__CUresult r;
	tile_status st;
	unsigned i;
	uint32_t j;
	int fresh = 0;
	if ((r = tile__cu.cuCtxGetDevice(&device)) != 0)
		return tile__cuda_fail("cuCtxGetDevice", r);
	if ((r = tile__cu.cuDeviceGetAttribute(&major, TILE__CU_DEVICE_ATTRIBUTE_CC_MAJOR, device)) != 0 ||
	    (r = tile__cu.cuDeviceGetAttribute(&minor, TILE__CU_DEVICE_ATTRIBUTE_CC_MINOR, device)) != 0)
		return tile__cuda_fail("cuDeviceGetAttribute", r);
	for (i = 0; t && i < t->n; i++)
		if (t->slot[i]->ctx == ctx)
			slot = t->slot[i];
	if (slot) {
		/* No launch reads this slot's entries: its key is a dead context's. */
		for (j = 0; j < m->n_groups; j++) {
			slot->modules[j] = NULL;
			__atomic_store_n(&slot->group_flags[j], (uint8_t)0, __ATOMIC_RELAXED);
		}
		for (j = 0; j < m->n_variants; j++)
			__atomic_store_n(&slot->funcs[j], (void *)NULL, __ATOMIC_RELAXED);
	} else {
		if ((st = tile__slot_room(m)) != TILE_SUCCESS)
			return st;
		t = m->slots;
		slot = (tile__slot *)TILE_MALLOC(sizeof *slot);
		if (!slot)
			return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
		slot->modules = (void **)tile__alloc_zeroed(m->n_groups, sizeof(void *));
		slot->funcs = (void **)tile__alloc_zeroed(m->n_variants, sizeof(void *));
		slot->group_flags = (uint8_t *)tile__alloc_zeroed(m->n_groups, 1);
		/* the cached maps outlive a recycling: a map names no context */
		slot->maps = m->n_maps ? (tile__map_entry *)tile__alloc_zeroed(m->n_maps, sizeof(tile__map_entry)) : NULL;
		if (!slot->modules || !slot->funcs || !slot->group_flags || (m->n_maps && !slot->maps)) {
			tile__slot_free(slot);
			return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
		}
		slot->key = 0;
		t->slot[t->n] = slot;
		fresh = 1;
	}
	slot->ctx = ctx;
	slot->device = device;
	slot->arch = major * 10 + minor;
	slot->smem_optin = 0;
	__atomic_store_n(&slot->key, key, __ATOMIC_RELEASE);
	if (fresh)
		__atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELEASE);
	*out = slot;
	return TILE_SUCCESS;
}

/* Looks up variant vi's function in the slot's context, loading its group
 * first; raises the dynamic shared memory limit past the 48 KiB default
 * when the variant asks for more. Locked. */
static tile_status tile__prepare_variant(tile_module *m, tile__slot *slot, uint32_t vi)
{
	const tile__variant *v = &m->variants[vi];
	void *f = NULL;
	tile__CUresult r;
	tile_status st;
	if (slot->funcs[vi])
		return TILE_SUCCESS;
	if (!slot->modules[v->group] && (st = tile__load_group(m, slot, v->group)) != TILE_SUCCESS)
		return st;
	if ((r = tile__cu.cuModuleGetFunction(&f, slot->modules[v->group], tile__str(m, v->symbol))) != 0)
		return tile__fail(TILE_ERROR_CUDA, "cuModuleGetFunction(%s): %s (%d)", tile__str(m, v->symbol), tile__cuda_error_name(r), r);
	if (v->shared_dynamic > 48u * 1024) {
		int shared_static = 0;
		if (!slot->smem_optin &&
		    (r = tile__cu.cuDeviceGetAttribute(&slot->smem_optin, TILE__CU_DEVICE_ATTRIBUTE_SMEM_OPTIN, slot->device)) != 0)
			return tile__cuda_fail("cuDeviceGetAttribute", r);
		if ((r = tile__cu.cuFuncGetAttribute(&shared_static, TILE__CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f)) != 0)
			return tile__cuda_fail("cuFuncGetAttribute", r);
		if ((r = tile__cu.cuFuncSetAttribute(f, TILE__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
						      slot->smem_optin - shared_static)) != 0)
			return tile__cuda_fail("cuFuncSetAttribute", r);
	}
	__atomic_store_n(&slot->funcs[vi], f, __ATOMIC_RELEASE);
	return TILE_SUCCESS;
}

/* The device whose primary context this thread uses without a context of
 * its own, and the primary context the loader made current on it (with
 * its device), so that tile_set_device can move the thread to another. */
static TILE__THREAD_LOCAL int tile__thread_device;
static TILE__THREAD_LOCAL void *tile__thread_primary;
static TILE__THREAD_LOCAL int tile__thread_primary_device;

TILEDEF tile_status tile_set_device(int device)
{
	if (device < 0)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_set_device: device %d", device);
	tile__thread_device = device;
	return TILE_SUCCESS;
}

TILEDEF int tile_get_device(void) { return tile__thread_device; }

/* The module's retained primary context of device ordinal `device`, or
 * NULL. No lock: the table and its entries are published with release
 * stores. */
static void *tile__primary_held(tile_module *m, int device)
{
	tile__primary *p = __atomic_load_n(&m->primary, __ATOMIC_ACQUIRE);
	if (!p || device >= __atomic_load_n(&m->n_primary, __ATOMIC_ACQUIRE))
		return NULL;
	return __atomic_load_n(&p[device].ctx, __ATOMIC_ACQUIRE);
}

/* Retains the primary context of device ordinal `device` for the module
 * (once). Locked. */
static tile_status tile__primary_retain(tile_module *m, int device, void **ctx)
{
	tile__CUresult r;
	int count = 0, dev = 0;
	void *primary = NULL;
	if (!m->primary) {
		tile__primary *p;
		if ((r = tile__cu.cuDeviceGetCount(&count)) != 0)
			return tile__cuda_fail("cuDeviceGetCount", r);
		p = (tile__primary *)tile__alloc_zeroed(count > 0 ? (uint32_t)count : 1u, sizeof *p);
		if (!p)
			return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
		__atomic_store_n(&m->n_primary, count, __ATOMIC_RELAXED);
		__atomic_store_n(&m->primary, p, __ATOMIC_RELEASE);
	}
	if ((r = tile__cu.cuDeviceGet(&dev, device)) != 0)
		return tile__cuda_fail("cuDeviceGet", r);
	if (device >= m->n_primary)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "device %d: the driver counts %d devices", device, m->n_primary);
	if (m->primary[device].ctx) {
		*ctx = m->primary[device].ctx;
		return TILE_SUCCESS;
	}
	if ((r = tile__cu.cuDevicePrimaryCtxRetain(&primary, dev)) != 0)
		return tile__cuda_fail("cuDevicePrimaryCtxRetain", r);
	m->primary[device].device = dev;
	__atomic_store_n(&m->primary[device].ctx, primary, __ATOMIC_RELEASE);
	*ctx = primary;
	return TILE_SUCCESS;
}

/* The context a launch of this thread uses: its current context; with none
 * (or with a primary context the loader made current for another device
 * than tile_set_device names now), the primary context of the thread's
 * device, retained by the module and made current, as the CUDA runtime
 * does. */
static tile_status tile__context(tile_module *m, void **ctx)
{
	int device = tile__thread_device;
	tile__CUresult r = tile__cu.cuCtxGetCurrent(ctx);
	tile_status st = TILE_SUCCESS;
	if (r)
		return tile__cuda_fail("cuCtxGetCurrent", r);
	if (*ctx && *ctx != tile__thread_primary)
		return TILE_SUCCESS;
	if (*ctx && tile__thread_primary_device == device && tile__primary_held(m, device) == *ctx)
		return TILE_SUCCESS;
	pthread_mutex_lock(&m->lock);
	st = tile__primary_retain(m, device, ctx);
	pthread_mutex_unlock(&m->lock);
	if (!st && (r = tile__cu.cuCtxSetCurrent(*ctx)) != 0)
		st = tile__cuda_fail("cuCtxSetCurrent", r);
	if (!st) {
		tile__thread_primary = *ctx;
		tile__thread_primary_device = device;
	}
	return st;
}

/* The key a context's slot is found by: the driver's unique context ID
 * (handles are reused: a context created after another was destroyed may
 * get its address), or, from drivers older than CUDA 12.0 which have no
 * cuCtxGetId, the handle itself. */
static tile_status tile__context_key(void *ctx, uint64_t *key)
{
	unsigned long long id = 0;
	tile__CUresult r;
	if (!tile__cu.cuCtxGetId) {
		*key = (uint64_t)(uintptr_t)ctx;
		return TILE_SUCCESS;
	}
	if ((r = tile__cu.cuCtxGetId(ctx, &id)) != 0)
		return tile__cuda_fail("cuCtxGetId", r);
	*key = id;
	return TILE_SUCCESS;
}

/* A variant's first use in a context loads its module (or looks up its
 * function), which a stream being captured into a graph does not allow:
 * refused with TILE_ERROR_CAPTURING when the driver can tell. The launch
 * path comes here only on a miss. */
static tile_status tile__capture_check(const tile_module *m, const tile__kernel *k, void *stream)
{
	int status = TILE__CU_STREAM_CAPTURE_STATUS_NONE;
	tile__CUresult r;
	if (!tile__cu.cuStreamIsCapturing)
		return TILE_SUCCESS;
	r = tile__cu.cuStreamIsCapturing(stream, &status);
	if (r == TILE__CUDA_ERROR_STREAM_CAPTURE_IMPLICIT || (!r && status != TILE__CU_STREAM_CAPTURE_STATUS_NONE))
		return tile__fail(TILE_ERROR_CAPTURING,
				  "kernel %s: first launch in this context while the stream is being captured: the module must be "
				  "loaded before capture (NAME_load(), tile_module_load)",
				  tile__str(m, k->name));
	if (r)
		return tile__cuda_fail("cuStreamIsCapturing", r);
	return TILE_SUCCESS;
}

/* The slow path of a launch, and tile_module_load: variants [first, end)
 * ready in context ctx (key `key`), under the lock; *func (when given) is
 * first's, *slot_out (when given) the context's slot. */
static tile_status tile__prepare(tile_module *m, void *ctx, uint64_t key, uint32_t first, uint32_t end, void **func,
				 tile__slot **slot_out)
{
	tile__slot *slot;
	tile_status st = TILE_SUCCESS;
	uint32_t vi;
	pthread_mutex_lock(&m->lock);
	slot = tile__slot_find(m, key);
	if (!slot)
		st = tile__slot_add(m, ctx, key, &slot);
	for (vi = first; !st && vi < end; vi++)
		st = tile__prepare_variant(m, slot, vi);
	if (!st && func)
		*func = slot->funcs[first];
	if (!st && slot_out)
		*slot_out = slot;
	pthread_mutex_unlock(&m->lock);
	return st;
}

#ifdef TILE_DEBUG
/* TILE_DEBUG: every launch and load counts itself in m->users while it
 * runs and checks m->alive after; destroy clears m->alive first and waits
 * for the count to drain (both sequentially consistent, so one of the two
 * sees the other), then frees all but the module's struct, kept as a
 * tombstone on a process-wide chain (reachable: not a leak) so that a late
 * launch still reads a valid m->alive. */
static tile_status tile__debug_enter(tile_module *m, const char *what)
{
	if (__atomic_load_n(&m->alive, __ATOMIC_SEQ_CST) == TILE__ALIVE) {
		__atomic_add_fetch(&m->users, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&m->alive, __ATOMIC_SEQ_CST) == TILE__ALIVE)
			return TILE_SUCCESS;
		__atomic_sub_fetch(&m->users, 1, __ATOMIC_SEQ_CST);
	}
	return tile__fail(TILE_ERROR_DESTROYED, "%s: the module is being destroyed or was destroyed (a launch raced with "
			  "tile_module_destroy or NAME_unload)", what);
}
static void tile__debug_leave(tile_module *m) { __atomic_sub_fetch(&m->users, 1, __ATOMIC_SEQ_CST); }
#define TILE__DEBUG_ENTER(m, what) \
	do { \
		tile_status debug_st_ = tile__debug_enter(m, what); \
		if (debug_st_) \
			return debug_st_; \
	} while (0)
#define TILE__DEBUG_LEAVE(m) tile__debug_leave(m)
#else
#define TILE__DEBUG_ENTER(m, what) (void)0
#define TILE__DEBUG_LEAVE(m) (void)0
#endif

static tile_status tile__module_load(tile_module *m)
{
	void *ctx = NULL;
	uint64_t key = 0;
	tile_status st;
	if ((st = tile__driver()) != TILE_SUCCESS || (st = tile__context(m, &ctx)) != TILE_SUCCESS ||
	    (st = tile__context_key(ctx, &key)) != TILE_SUCCESS)
		return st;
	return tile__prepare(m, ctx, key, 0, m->n_variants, NULL, NULL);
}

TILEDEF tile_status tile_module_load(tile_module *m)
{
	tile_status st;
	if (!m)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_module_load: module is NULL");
	TILE__DEBUG_ENTER(m, "tile_module_load");
	st = tile__module_load(m);
	TILE__DEBUG_LEAVE(m);
	return st;
}

/* The most specialized variant of `config` whose predicates hold; -1 when none. */
static int tile__select_variant(const tile_module *m, const tile__kernel *k, uint32_t config, void *const *args)
{
	uint64_t div16 = 0, div8 = 0, div4 = 0, eq1 = 0, mask;
	uint32_t i;
	int best = -1, best_preds = -1;
	/* only the parameters some variant has a predicate on, whichever their index */
	for (mask = k->pred_mask; mask; mask &= mask - 1) {
		uint64_t bits;
		i = (uint32_t)__builtin_ctzll(mask);
		bits = tile__param_bits(&m->params[k->first_param + i], args[i]);
		div16 |= (uint64_t)(bits % 16 == 0) << i;
		div8 |= (uint64_t)(bits % 8 == 0) << i;
		div4 |= (uint64_t)(bits % 4 == 0) << i;
		eq1 |= (uint64_t)(bits == 1) << i;
	}
	for (i = k->first_variant; i < k->first_variant + k->n_variants; i++) {
		const tile__variant *v = &m->variants[i];
		if (v->config != config || (v->pred_div16 & ~div16) || (v->pred_div8 & ~div8) || (v->pred_div4 & ~div4) ||
		    (v->pred_eq1 & ~eq1) || v->n_preds <= best_preds ||
		    !tile__heuristics_hold(m, k, v, args))
			continue;
		best = (int)i;
		best_preds = v->n_preds;
	}
	return best;
}

#define TILE__LAUNCH_FLAGS (TILE_LAUNCH_PDL | TILE_LAUNCH_COOPERATIVE)

/* A launch of config `which` (-1: the one the tuning table gives). */
static tile_status tile__launch(tile_module *m, int kernel, int which, const uint32_t *grid, tile_stream stream, void **args,
				int nargs, unsigned flags)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	const tile__variant *v;
	void *params[TILE__MAX_PARAMS], **launch_args = args, *ctx, *f = NULL;
	uint64_t map_words[TILE__MAX_MAPS * TILE__MAP_WORDS + 8]; /* room to align TILE__MAX_MAPS maps to 64 bytes */
	tile_deviceptr zero = 0;
	uint64_t key = 0;
	int64_t dims[3];
	tile__slot *slot;
	tile__CUresult r;
	tile_status st;
	int vi, i, pdl, cluster;
	uint8_t group_flags;
	uint32_t block;
	if (!k)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: no kernel %d in the module", kernel);
	if (flags & ~TILE__LAUNCH_FLAGS)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: unknown launch flags 0x%x", flags & ~TILE__LAUNCH_FLAGS);
	if (nargs != (int)k->n_visible || (nargs && !args))
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: kernel %s takes %u arguments, %d given",
				  tile__str(m, k->name), k->n_visible, nargs);
	for (i = 0; i < nargs; i++)
		if (!args[i])
			return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: kernel %s: argument %d is NULL", tile__str(m, k->name), i);
	if (which < -1 || which >= (int)k->n_configs)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: kernel %s has %u configs, not config %d", tile__str(m, k->name),
				  k->n_configs, which);
	vi = tile__select_variant(m, k, which < 0 ? tile__dispatch(m, k, args) : (uint32_t)which, args);
	if (vi < 0)
		return tile__fail(TILE_ERROR_NO_VARIANT, "tile_launch: kernel %s: no variant's predicates hold for these arguments",
				  tile__str(m, k->name));
	v = &m->variants[vi];
	if (grid) {
		for (i = 0; i < 3; i++)
			dims[i] = grid[i];
	} else if (!v->grid_size) {
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: kernel %s has no grid program: pass the grid",
				  tile__str(m, k->name));
	} else if ((st = tile__grid_eval(m, v, args, dims)) != TILE_SUCCESS) {
		return st;
	}
	if (!tile__grid_limits(m, k, dims, &st))
		return st;
	if ((st = tile__driver()) != TILE_SUCCESS || (st = tile__context(m, &ctx)) != TILE_SUCCESS ||
	    (st = tile__context_key(ctx, &key)) != TILE_SUCCESS)
		return st;
	slot = tile__slot_find(m, key);
	if (slot)
		f = __atomic_load_n(&slot->funcs[vi], __ATOMIC_ACQUIRE);
	if (!f && ((st = tile__capture_check(m, k, stream)) != TILE_SUCCESS ||
		   (st = tile__prepare(m, ctx, key, (uint32_t)vi, (uint32_t)vi + 1, &f, &slot)) != TILE_SUCCESS))
		return st;
	if (k->copy_args) {
		/* Hidden trailing parameters (scratch pointers) get a null pointer;
		 * tensor maps are encoded from the caller's descriptors and the
		 * variant's recipes. */
		for (i = 0; i < (int)k->n_params; i++)
			params[i] = i < nargs ? args[i] : (void *)&zero;
		if (k->map_mask && (st = tile__tensormaps(m, k, v, slot, args, params,
							  (uint64_t *)(((uintptr_t)map_words + 63) & ~(uintptr_t)63))) != TILE_SUCCESS)
			return st;
		launch_args = params;
	}
	pdl = (flags & TILE_LAUNCH_PDL) && slot->arch >= 90;
	group_flags = __atomic_load_n(&slot->group_flags[v->group], __ATOMIC_RELAXED);
	/* a warp-specialized image runs the variant's producer warps too */
	block = v->block + (group_flags & TILE__GROUP_PRODUCER ? 32u * v->producer_warps : 0u);
	/* an image for an arch below 9.0 runs one CTA per program */
	cluster = v->cluster && (group_flags & TILE__GROUP_CLUSTERS);
	if (cluster || pdl || (flags & TILE_LAUNCH_COOPERATIVE)) {
		tile__CUlaunchConfig config;
		tile__CUlaunchAttribute attr[4];
		unsigned n = 0;
		uint64_t gx = (uint64_t)dims[0], gy = (uint64_t)dims[1], gz = (uint64_t)dims[2];
		memset(&config, 0, sizeof config);
		memset(attr, 0, sizeof attr);
		if (cluster) {
			/* As Triton: the grid counts clusters, the launch counts
			 * blocks, and a cluster's blocks are spread over the SMs. */
			gx *= v->cluster_dim[0];
			gy *= v->cluster_dim[1];
			gz *= v->cluster_dim[2];
			if (gx > 2147483647u || gy > 65535u || gz > 65535u)
				return tile__fail(TILE_ERROR_GRID, "kernel %s: grid times cluster exceeds the grid limits",
						  tile__str(m, k->name));
			attr[n].id = TILE__CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
			attr[n].value.cluster.x = v->cluster_dim[0];
			attr[n].value.cluster.y = v->cluster_dim[1];
			attr[n++].value.cluster.z = v->cluster_dim[2];
			attr[n].id = TILE__CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
			attr[n++].value.policy = TILE__CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
		}
		if (pdl) {
			attr[n].id = TILE__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
			attr[n++].value.programmatic = 1;
		}
		if (flags & TILE_LAUNCH_COOPERATIVE) {
			attr[n].id = TILE__CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
			attr[n++].value.cooperative = 1;
		}
		config.gridDimX = (unsigned int)gx;
		config.gridDimY = (unsigned int)gy;
		config.gridDimZ = (unsigned int)gz;
		config.blockDimX = block;
		config.blockDimY = config.blockDimZ = 1;
		config.sharedMemBytes = v->shared_dynamic;
		config.hStream = stream;
		config.attrs = attr;
		config.numAttrs = n;
		if ((r = tile__cu.cuLaunchKernelEx(&config, f, launch_args, NULL)) != 0)
			return tile__cuda_fail("cuLaunchKernelEx", r);
		return TILE_SUCCESS;
	}
	r = tile__cu.cuLaunchKernel(f, (unsigned int)dims[0], (unsigned int)dims[1], (unsigned int)dims[2], block, 1, 1,
				    v->shared_dynamic, stream, launch_args, NULL);
	if (r)
		return tile__cuda_fail("cuLaunchKernel", r);
	return TILE_SUCCESS;
}

TILEDEF tile_status tile_launch_ex(tile_module *m, int kernel, int which, const uint32_t *grid, tile_stream stream,
				   void **args, int nargs, unsigned flags)
{
	tile_status st;
	if (!m)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: module is NULL");
	TILE__DEBUG_ENTER(m, "tile_launch");
	st = tile__launch(m, kernel, which, grid, stream, args, nargs, flags);
	TILE__DEBUG_LEAVE(m);
	return st;
}

TILEDEF tile_status tile_launch_config(tile_module *m, int kernel, int which, const uint32_t *grid, tile_stream stream,
				       void **args, int nargs)
{
	return tile_launch_ex(m, kernel, which, grid, stream, args, nargs, 0);
}

TILEDEF tile_status tile_launch(tile_module *m, int kernel, const uint32_t *grid, tile_stream stream, void **args, int nargs)
{
	return tile_launch_config(m, kernel, -1, grid, stream, args, nargs);
}

/* Whether the slot's context is still the one its modules were loaded in:
 * the handle may name a newer context, or none. Without cuCtxGetId the
 * loader cannot tell and assumes it is. */
static int tile__slot_alive(const tile__slot *slot)
{
	unsigned long long id = 0;
	if (!tile__cu.cuCtxGetId)
		return 1;
	return tile__cu.cuCtxGetId(slot->ctx, &id) == 0 && id == slot->key;
}

#ifdef TILE_DEBUG
static tile_module *volatile tile__tombstones;
#endif

TILEDEF void tile_module_destroy(tile_module *m)
{
	tile__slot_table *t, *older;
	unsigned i;
	uint32_t g;
	int d;
	if (!m)
		return;
#ifdef TILE_DEBUG
	{
		uint32_t alive = TILE__ALIVE;
		if (!__atomic_compare_exchange_n(&m->alive, &alive, 0u, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return; /* destroyed already: a tombstone */
		while (__atomic_load_n(&m->users, __ATOMIC_SEQ_CST))
			sched_yield();
	}
#endif
	t = m->slots;
	/* Contexts exist only once the driver opened; errors are ignored: the
	 * context may already be gone. */
	if (t || m->primary) {
		void *previous = NULL;
		tile__cu.cuCtxGetCurrent(&previous);
		for (i = 0; t && i < t->n; i++) {
			tile__slot *slot = t->slot[i];
			int current = 0, alive = tile__slot_alive(slot);
			for (g = 0; alive && g < m->n_groups; g++) {
				if (!slot->modules[g])
					continue;
				if (!current)
					current = tile__cu.cuCtxSetCurrent(slot->ctx) == 0;
				tile__cu.cuModuleUnload(slot->modules[g]);
			}
			tile__slot_free(slot);
		}
		tile__cu.cuCtxSetCurrent(previous);
		for (d = 0; m->primary && d < m->n_primary; d++)
			if (m->primary[d].ctx)
				tile__cu.cuDevicePrimaryCtxRelease(m->primary[d].device);
	}
	for (; t; t = older) {
		older = t->retired;
		TILE_FREE(t);
	}
	m->slots = NULL;
	TILE_FREE(m->primary);
	m->primary = NULL;
	pthread_mutex_destroy(&m->lock);
#ifdef TILE_DEBUG
	{
		tile_module *head;
		TILE_FREE(m->kernels);
		TILE_FREE(m->params);
		TILE_FREE(m->variants);
		TILE_FREE(m->images);
		TILE_FREE(m->recipes);
		m->kernels = NULL;
		m->params = NULL;
		m->variants = NULL;
		m->images = NULL;
		m->recipes = NULL;
		head = __atomic_load_n(&tile__tombstones, __ATOMIC_ACQUIRE);
		do
			m->next_tombstone = head;
		while (!__atomic_compare_exchange_n(&tile__tombstones, &head, m, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	}
#else
	tile__module_free(m);
#endif
}

TILEDEF tile_status tile_lazy_get(tile_lazy_module *lazy, const void *blob, size_t size, tile_module **out)
{
	tile_module *m;
	if (!lazy || !out)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_lazy_get: NULL argument");
	for (;;) {
		int idle = 0;
		m = __atomic_load_n(&lazy->module, __ATOMIC_ACQUIRE);
		if (m) {
			*out = m;
			return TILE_SUCCESS;
		}
		/* state: 0 idle, 1 being created, 2 created; a failed creation
		 * goes back to 0 and the next caller tries again. */
		if (__atomic_compare_exchange_n(&lazy->state, &idle, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			tile_status st = tile_module_create(blob, size, &m);
			if (!st)
				__atomic_store_n(&lazy->module, m, __ATOMIC_RELEASE);
			__atomic_store_n(&lazy->state, st ? 0 : 2, __ATOMIC_RELEASE);
			*out = m;
			return st;
		}
		sched_yield();
	}
}

TILEDEF void tile_lazy_release(tile_lazy_module *lazy)
{
	if (!lazy)
		return;
	tile_module_destroy(__atomic_exchange_n(&lazy->module, (tile_module *)NULL, __ATOMIC_ACQ_REL));
	__atomic_store_n(&lazy->state, 0, __ATOMIC_RELEASE);
}
