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
 * gets the primary context of device 0, retained once per module and made
 * current on that thread, as the CUDA runtime does. */

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
	if (!st)
		slot->modules[group] = mod;
	return st;
}

static tile__slot *tile__slot_find(tile_module *m, void *ctx)
{
	unsigned n = __atomic_load_n(&m->n_slots, __ATOMIC_ACQUIRE), i;
	for (i = 0; i < n; i++)
		if (m->slots[i].ctx == ctx)
			return &m->slots[i];
	return NULL;
}

/* A new slot for ctx (current on this thread). Locked. */
static tile_status tile__slot_add(tile_module *m, void *ctx, tile__slot **out)
{
	tile__slot *slot;
	int major = 0, minor = 0;
	tile__CUresult r;
	if (m->n_slots == TILE_MAX_CONTEXTS)
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "module used in more than %d contexts (TILE_MAX_CONTEXTS)", TILE_MAX_CONTEXTS);
	slot = &m->slots[m->n_slots];
	if ((r = tile__cu.cuCtxGetDevice(&slot->device)) != 0)
		return tile__cuda_fail("cuCtxGetDevice", r);
	if ((r = tile__cu.cuDeviceGetAttribute(&major, TILE__CU_DEVICE_ATTRIBUTE_CC_MAJOR, slot->device)) != 0 ||
	    (r = tile__cu.cuDeviceGetAttribute(&minor, TILE__CU_DEVICE_ATTRIBUTE_CC_MINOR, slot->device)) != 0)
		return tile__cuda_fail("cuDeviceGetAttribute", r);
	slot->arch = major * 10 + minor;
	slot->smem_optin = 0;
	slot->modules = (void **)tile__alloc_zeroed(m->n_groups, sizeof(void *));
	slot->funcs = (void **)tile__alloc_zeroed(m->n_variants, sizeof(void *));
	if (!slot->modules || !slot->funcs) {
		TILE_FREE(slot->modules);
		TILE_FREE(slot->funcs);
		slot->modules = slot->funcs = NULL;
		return tile__fail(TILE_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	slot->ctx = ctx;
	__atomic_store_n(&m->n_slots, m->n_slots + 1, __ATOMIC_RELEASE);
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

/* The thread's current context; with none, the module's primary context of
 * device 0, made current. */
static tile_status tile__context(tile_module *m, void **ctx)
{
	tile__CUresult r = tile__cu.cuCtxGetCurrent(ctx);
	tile_status st = TILE_SUCCESS;
	if (r)
		return tile__cuda_fail("cuCtxGetCurrent", r);
	if (*ctx)
		return TILE_SUCCESS;
	pthread_mutex_lock(&m->lock);
	if (!m->primary_ctx) {
		void *primary = NULL;
		if ((r = tile__cu.cuDeviceGet(&m->primary_device, 0)) != 0)
			st = tile__cuda_fail("cuDeviceGet", r);
		else if ((r = tile__cu.cuDevicePrimaryCtxRetain(&primary, m->primary_device)) != 0)
			st = tile__cuda_fail("cuDevicePrimaryCtxRetain", r);
		else
			m->primary_ctx = primary;
	}
	*ctx = m->primary_ctx;
	pthread_mutex_unlock(&m->lock);
	if (!st && (r = tile__cu.cuCtxSetCurrent(*ctx)) != 0)
		st = tile__cuda_fail("cuCtxSetCurrent", r);
	return st;
}

/* The slow path of a launch, and tile_module_load: variants [first, end)
 * ready in context ctx, under the lock; *func (when given) is first's. */
static tile_status tile__prepare(tile_module *m, void *ctx, uint32_t first, uint32_t end, void **func)
{
	tile__slot *slot;
	tile_status st = TILE_SUCCESS;
	uint32_t vi;
	pthread_mutex_lock(&m->lock);
	slot = tile__slot_find(m, ctx);
	if (!slot)
		st = tile__slot_add(m, ctx, &slot);
	for (vi = first; !st && vi < end; vi++)
		st = tile__prepare_variant(m, slot, vi);
	if (!st && func)
		*func = slot->funcs[first];
	pthread_mutex_unlock(&m->lock);
	return st;
}

TILEDEF tile_status tile_module_load(tile_module *m)
{
	void *ctx;
	tile_status st;
	if (!m)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_module_load: module is NULL");
	if ((st = tile__driver()) != TILE_SUCCESS || (st = tile__context(m, &ctx)) != TILE_SUCCESS)
		return st;
	return tile__prepare(m, ctx, 0, m->n_variants, NULL);
}

/* The most specialized variant of `config` whose predicates hold; -1 when none. */
static int tile__select_variant(const tile_module *m, const tile__kernel *k, uint32_t config, void *const *args)
{
	uint32_t div16 = 0, eq1 = 0, i, mask;
	int best = -1, best_preds = -1;
	for (mask = k->pred_mask; mask; mask &= mask - 1) {
		uint64_t bits;
		i = (uint32_t)__builtin_ctz(mask);
		bits = tile__param_bits(&m->params[k->first_param + i], args[i]);
		div16 |= (uint32_t)(bits % 16 == 0) << i;
		eq1 |= (uint32_t)(bits == 1) << i;
	}
	for (i = k->first_variant; i < k->first_variant + k->n_variants; i++) {
		const tile__variant *v = &m->variants[i];
		if (v->config != config || (v->pred_div16 & ~div16) || (v->pred_eq1 & ~eq1) || v->n_preds <= best_preds ||
		    !tile__heuristics_hold(m, k, v, args))
			continue;
		best = (int)i;
		best_preds = v->n_preds;
	}
	return best;
}

TILEDEF tile_status tile_launch(tile_module *m, int kernel, const uint32_t *grid, tile_stream stream, void **args, int nargs)
{
	return tile_launch_config(m, kernel, -1, grid, stream, args, nargs);
}

TILEDEF tile_status tile_launch_config(tile_module *m, int kernel, int which, const uint32_t *grid, tile_stream stream,
				       void **args, int nargs)
{
	const tile__kernel *k = tile__kernel_at(m, kernel);
	const tile__variant *v;
	void *params[TILE__MAX_PARAMS], **launch_args = args, *ctx, *f = NULL;
	tile_deviceptr zero = 0;
	int64_t dims[3];
	tile__slot *slot;
	tile__CUresult r;
	tile_status st;
	int vi, i;
	if (!k)
		return tile__fail(TILE_ERROR_INVALID_ARGUMENT, "tile_launch: no kernel %d in the module", kernel);
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
	if ((st = tile__driver()) != TILE_SUCCESS || (st = tile__context(m, &ctx)) != TILE_SUCCESS)
		return st;
	slot = tile__slot_find(m, ctx);
	if (slot)
		f = __atomic_load_n(&slot->funcs[vi], __ATOMIC_ACQUIRE);
	if (!f && (st = tile__prepare(m, ctx, (uint32_t)vi, (uint32_t)vi + 1, &f)) != TILE_SUCCESS)
		return st;
	if (k->n_params > k->n_visible) {
		/* Hidden trailing parameters (scratch pointers) get a null pointer. */
		for (i = 0; i < (int)k->n_params; i++)
			params[i] = i < nargs ? args[i] : (void *)&zero;
		launch_args = params;
	}
	if (v->cluster) {
		tile__CUlaunchConfig config;
		tile__CUlaunchAttribute attr[2];
		uint64_t gx = (uint64_t)dims[0] * v->cluster_dim[0], gy = (uint64_t)dims[1] * v->cluster_dim[1],
			 gz = (uint64_t)dims[2] * v->cluster_dim[2];
		/* As Triton: the grid counts clusters, the launch counts blocks,
		 * and a cluster's blocks are spread over the SMs. */
		if (gx > 2147483647u || gy > 65535u || gz > 65535u)
			return tile__fail(TILE_ERROR_GRID, "kernel %s: grid times cluster exceeds the grid limits", tile__str(m, k->name));
		memset(&config, 0, sizeof config);
		memset(attr, 0, sizeof attr);
		attr[0].id = TILE__CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
		attr[0].value.cluster.x = v->cluster_dim[0];
		attr[0].value.cluster.y = v->cluster_dim[1];
		attr[0].value.cluster.z = v->cluster_dim[2];
		attr[1].id = TILE__CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
		attr[1].value.policy = TILE__CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
		config.gridDimX = (unsigned int)gx;
		config.gridDimY = (unsigned int)gy;
		config.gridDimZ = (unsigned int)gz;
		config.blockDimX = v->block;
		config.blockDimY = config.blockDimZ = 1;
		config.sharedMemBytes = v->shared_dynamic;
		config.hStream = stream;
		config.attrs = attr;
		config.numAttrs = 2;
		if ((r = tile__cu.cuLaunchKernelEx(&config, f, launch_args, NULL)) != 0)
			return tile__cuda_fail("cuLaunchKernelEx", r);
		return TILE_SUCCESS;
	}
	r = tile__cu.cuLaunchKernel(f, (unsigned int)dims[0], (unsigned int)dims[1], (unsigned int)dims[2], v->block, 1, 1,
				    v->shared_dynamic, stream, launch_args, NULL);
	if (r)
		return tile__cuda_fail("cuLaunchKernel", r);
	return TILE_SUCCESS;
}

TILEDEF void tile_module_destroy(tile_module *m)
{
	unsigned i;
	uint32_t g;
	if (!m)
		return;
	/* Contexts exist only once the driver opened; errors are ignored: the
	 * context may already be gone. */
	if (m->n_slots || m->primary_ctx) {
		void *previous = NULL;
		tile__cu.cuCtxGetCurrent(&previous);
		for (i = 0; i < m->n_slots; i++) {
			tile__slot *slot = &m->slots[i];
			int current = 0;
			for (g = 0; g < m->n_groups; g++) {
				if (!slot->modules[g])
					continue;
				if (!current)
					current = tile__cu.cuCtxSetCurrent(slot->ctx) == 0;
				tile__cu.cuModuleUnload(slot->modules[g]);
			}
			TILE_FREE(slot->modules);
			TILE_FREE(slot->funcs);
		}
		tile__cu.cuCtxSetCurrent(previous);
		if (m->primary_ctx)
			tile__cu.cuDevicePrimaryCtxRelease(m->primary_device);
	}
	pthread_mutex_destroy(&m->lock);
	tile__module_free(m);
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
