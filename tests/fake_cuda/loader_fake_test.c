/* loader_fake_test.c - tile.h against the fake driver (fake_cuda.c).
 *
 * Built and run by tests/test_loader_fake.sh, once per mode:
 *   main      bookkeeping: lazy load once per context under 32 racing
 *             threads, cached handles, no lock and no allocation once
 *             cached, image choice per device, PTX JIT
 *             and its log, threads without a context, variant selection,
 *             hidden parameters, clusters, the shared-memory opt-in, every
 *             driver failure as a status, unload of everything; contexts
 *             by identity (a context destroyed and another created at its
 *             address), any number of contexts (the slot table growing
 *             under launching threads), primary contexts per device
 *             (tile_set_device), stream capture (TILE_ERROR_CAPTURING)
 *   noctxid   a driver without cuCtxGetId and cuStreamIsCapturing (older
 *             than CUDA 12): launches work; a reused handle is the
 *             documented limitation
 *   debug     (built with TILE_DEBUG) a launch racing with destroy is
 *             reported as TILE_ERROR_DESTROYED, never a crash
 *   nodriver  the library does not exist: TILE_ERROR_NO_DRIVER
 *   nosym     the library lacks cuLaunchKernelEx: TILE_ERROR_DRIVER_SYMBOL
 *   noinit    cuInit fails: TILE_ERROR_CUDA naming cuInit
 * TILE_FAKE_CUDA names the library tile.h opens (through TILE_LIBCUDA_NAME)
 * and the test opens too, to reach the fake's control functions. Built
 * with LOADER_TEST_TSAN (ThreadSanitizer), it does not interpose
 * pthread_mutex_lock (the sanitizer does) and skips the lock count. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

static const char *fake_library(void)
{
	const char *p = getenv("TILE_FAKE_CUDA");
	return p ? p : "libfakecuda.so";
}

/* Every allocation tile.h makes, and every lock of one module's mutex (the
 * test's pthread_mutex_lock interposes the C library's), are counted: the
 * launch path after the first launch must do neither. */
static int allocations;
static pthread_mutex_t *watched_lock;
static int watched_locks;
static int (*real_mutex_lock)(pthread_mutex_t *);

static void *counting_malloc(size_t n)
{
	__atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
	return malloc(n);
}

#ifndef LOADER_TEST_TSAN
int pthread_mutex_lock(pthread_mutex_t *mutex)
{
	if (mutex == watched_lock)
		__atomic_add_fetch(&watched_locks, 1, __ATOMIC_RELAXED);
	return real_mutex_lock(mutex);
}
#endif

#define TILE_MALLOC(n) counting_malloc(n)
#define TILE_LIBCUDA_NAME fake_library()
#define TILE_IMPLEMENTATION
#include "tile.h"

#include "check.h"
#include "fake_cuda/blob_builder.h"
#include "fake_cuda/fake_cuda.h"

static fake_cuda_reset_fn fake_reset;
static fake_cuda_calls_fn fake_calls;
static fake_cuda_fail_fn fake_fail;
static fake_cuda_set_devices_fn fake_set_devices;
static fake_cuda_ctx_create_fn fake_ctx_create;
static fake_cuda_live_modules_fn fake_live_modules;
static fake_cuda_primary_refs_fn fake_primary_refs;
static fake_cuda_param_sizes_fn fake_param_sizes;
static fake_cuda_last_launch_fn fake_last_launch;
static fake_cuda_ctx_destroy_fn fake_ctx_destroy;
static fake_cuda_capture_fn fake_capture;
static fake_cuda_ctx_launches_fn fake_ctx_launches;

/* The driver's own entry points, to set contexts as an application would. */
static int (*drv_ctx_set_current)(void *);
static int (*drv_ctx_get_current)(void **);

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
	LOOKUP(fake_reset, "fake_cuda_reset");
	LOOKUP(fake_calls, "fake_cuda_calls");
	LOOKUP(fake_fail, "fake_cuda_fail");
	LOOKUP(fake_set_devices, "fake_cuda_set_devices");
	LOOKUP(fake_ctx_create, "fake_cuda_ctx_create");
	LOOKUP(fake_live_modules, "fake_cuda_live_modules");
	LOOKUP(fake_primary_refs, "fake_cuda_primary_refs");
	LOOKUP(fake_param_sizes, "fake_cuda_param_sizes");
	LOOKUP(fake_last_launch, "fake_cuda_last_launch");
	LOOKUP(fake_ctx_destroy, "fake_cuda_ctx_destroy");
	LOOKUP(fake_capture, "fake_cuda_capture");
	LOOKUP(fake_ctx_launches, "fake_cuda_ctx_launches");
	LOOKUP(drv_ctx_set_current, "cuCtxSetCurrent");
	LOOKUP(drv_ctx_get_current, "cuCtxGetCurrent");
}

static const char cubin80[] = "FAKE cubin sm_80: add_div16 add_generic big";
static const char cubin90[] = "FAKE cubin sm_90: add_div16 add_generic big";
static const char ptx80[] = "// FAKE ptx compute_80: add_div16 add_generic big";
static const char ptx_bad[] = "// FAKE ptx compute_80: JITFAIL add_div16 add_generic big";

/* cdiv(n, BLOCK) */
static const uint8_t grid_cdiv[] = {1, 0x01, 3, 0x03, 0, 0x14};

/* add_generic's producer warps (test_producer_warps) */
static int generic_producer_warps;

/* add(x, y, out, n, hidden scratch): add_div16 (BLOCK 1024) and
 * add_generic (BLOCK 256); big(p): 100000 bytes of dynamic shared memory,
 * cluster 2x1x1, caller-given grid. Images as given. */
static size_t make_blob(uint8_t **out, int n_images, const tb_image *images)
{
	tb_blob d;
	tb_kernel *k;
	int i;
	memset(&d, 0, sizeof d);
	d.n_kernels = 2;
	k = &d.kernels[0];
	k->name = "add";
	k->n_params = 5;
	k->params[0] = (tb_param){"x", 0, 8, 12, 0};
	k->params[1] = (tb_param){"y", 0, 8, 12, 0};
	k->params[2] = (tb_param){"out", 0, 8, 12, 0};
	k->params[3] = (tb_param){"n", 1, 4, 4, 0};
	k->params[4] = (tb_param){"scratch", 0, 8, 2, 1};
	k->n_variants = 2;
	k->variants[0].symbol = "add_div16";
	k->variants[0].num_warps = 4;
	k->variants[0].div16 = 0xf;
	k->variants[0].grid = grid_cdiv;
	k->variants[0].grid_size = sizeof grid_cdiv;
	k->variants[0].n_constexprs = 1;
	k->variants[0].cx[0] = (tb_constexpr){"BLOCK", 0, 1024, NULL};
	k->variants[1].symbol = "add_generic";
	k->variants[1].num_warps = 8;
	k->variants[1].producer_warps = generic_producer_warps;
	k->variants[1].grid = grid_cdiv;
	k->variants[1].grid_size = sizeof grid_cdiv;
	k->variants[1].n_constexprs = 1;
	k->variants[1].cx[0] = (tb_constexpr){"BLOCK", 0, 256, NULL};
	k = &d.kernels[1];
	k->name = "big";
	k->n_params = 1;
	k->params[0] = (tb_param){"p", 0, 8, 12, 0};
	k->n_variants = 1;
	k->variants[0].symbol = "big";
	k->variants[0].num_warps = 2;
	k->variants[0].shared_dynamic = 100000;
	k->variants[0].cluster[0] = 2;
	k->variants[0].cluster[1] = 1;
	k->variants[0].cluster[2] = 1;
	d.n_groups = 1;
	d.n_images = n_images;
	for (i = 0; i < n_images; i++)
		d.images[i] = images[i];
	return tb_build(&d, out);
}

static uint8_t *blob;
static size_t blob_size;

static tile_module *create(void)
{
	tile_module *m = NULL;
	CHECK_EQ_INT(tile_module_create(blob, blob_size, &m), TILE_SUCCESS);
	return m;
}

/* Launch arguments of add. */
typedef struct add_args {
	tile_deviceptr x, y, out;
	int32_t n;
	void *args[4];
} add_args;

static void add_args_init(add_args *a, tile_deviceptr x, int32_t n)
{
	a->x = x;
	a->y = 0x20000;
	a->out = 0x30000;
	a->n = n;
	a->args[0] = &a->x;
	a->args[1] = &a->y;
	a->args[2] = &a->out;
	a->args[3] = &a->n;
}

static tile_status launch_add(tile_module *m, tile_deviceptr x, int32_t n)
{
	add_args a;
	add_args_init(&a, x, n);
	return tile_launch(m, 0, NULL, (tile_stream)0x77, a.args, 4);
}

static void set_current(void *ctx) { drv_ctx_set_current(ctx); }

static void *get_current(void)
{
	void *ctx = NULL;
	drv_ctx_get_current(&ctx);
	return ctx;
}

static void test_first_launch_without_context(void)
{
	static const int sizes[5] = {8, 8, 8, 4, 8};
	tile_module *m = create();
	fake_launch l;
	if (!m)
		return;
	/* parameter values are recorded for the add kernel's launches only */
	fake_param_sizes(5, sizes);
	CHECK(get_current() == NULL);
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_SUCCESS);
	CHECK(get_current() != NULL);
	CHECK_EQ_INT(fake_primary_refs(0), 1);
	CHECK_EQ_INT(fake_calls("cuModuleLoadData"), 1);
	fake_last_launch(&l);
	CHECK(strcmp(l.symbol, "add_div16") == 0);
	CHECK_STR_CONTAINS(l.image, "sm_90");
	CHECK(l.grid[0] == 4 && l.grid[1] == 1 && l.grid[2] == 1);
	CHECK(l.block[0] == 128 && l.block[1] == 1 && l.block[2] == 1);
	CHECK(l.stream == (void *)0x77 && !l.ex && l.shared == 0);
	CHECK(l.params[0] == 0x10000 && l.params[1] == 0x20000 && l.params[2] == 0x30000);
	CHECK(l.params[3] == 4096 && l.params[4] == 0);
	fake_param_sizes(0, sizes);
	/* misaligned x: the generic variant, BLOCK 256, 8 warps */
	CHECK_EQ_INT(launch_add(m, 0x10004, 4097), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(strcmp(l.symbol, "add_generic") == 0 && l.grid[0] == 17 && l.block[0] == 256);
	CHECK_EQ_INT(fake_calls("cuModuleLoadData"), 1);
	CHECK_EQ_INT(fake_calls("cuModuleGetFunction"), 2);
	/* cached: no driver call but the context query and the launch */
	fake_reset();
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_SUCCESS);
	CHECK_EQ_INT(launch_add(m, 0x10004, 4096), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuCtxGetCurrent"), 2);
	CHECK_EQ_INT(fake_calls("cuCtxGetId"), 2);
	CHECK_EQ_INT(fake_calls("cuLaunchKernel"), 2);
	CHECK_EQ_INT(fake_calls("cuModuleGetFunction") + fake_calls("cuModuleLoadData") + fake_calls("cuCtxGetDevice") +
			     fake_calls("cuStreamIsCapturing"), 0);
	/* an empty grid reaches no driver call at all */
	CHECK_EQ_INT(launch_add(m, 0x10000, 0), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuCtxGetCurrent") + fake_calls("cuLaunchKernel") + fake_calls("cuCtxGetId"), 6);
	/* destroy: unloads in the primary context, releases it, restores the current one */
	set_current(NULL);
	tile_module_destroy(m);
	CHECK_EQ_INT(fake_live_modules(), 0);
	CHECK_EQ_INT(fake_primary_refs(0), 0);
	CHECK(get_current() == NULL);
	CHECK_EQ_INT(fake_calls("cuModuleUnload"), 1);
}

/* After the first launch of a variant in a context, launches take no lock
 * and allocate nothing; the counters do see the first launch's. */
static void test_no_lock_no_allocation(void)
{
	tile_module *m = create();
	int i;
	if (!m)
		return;
	set_current(fake_ctx_create(0));
	allocations = 0;
	watched_lock = &m->lock;
	watched_locks = 0;
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_SUCCESS);
	CHECK_EQ_INT(launch_add(m, 0x10004, 4096), TILE_SUCCESS);
	CHECK(allocations > 0);
#ifndef LOADER_TEST_TSAN
	CHECK(watched_locks > 0);
#endif
	allocations = 0;
	watched_locks = 0;
	for (i = 0; i < 100; i++) {
		CHECK_EQ_INT(launch_add(m, 0x10000, 4096 + 16 * i), TILE_SUCCESS);
		CHECK_EQ_INT(launch_add(m, 0x10004, 4096 + i), TILE_SUCCESS);
	}
	CHECK_EQ_INT(allocations, 0);
#ifndef LOADER_TEST_TSAN
	CHECK_EQ_INT(watched_locks, 0);
#endif
	watched_lock = NULL;
	tile_module_destroy(m);
	set_current(NULL);
}

static tile_module *race_module;
static void *race_ctx;
static pthread_barrier_t race_barrier;
static int race_failures;

static void *race_thread(void *arg)
{
	size_t i = (size_t)arg;
	set_current(race_ctx);
	pthread_barrier_wait(&race_barrier);
	if (launch_add(race_module, i % 2 ? 0x10004 : 0x10000, 4096) != TILE_SUCCESS)
		__atomic_add_fetch(&race_failures, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void test_threads_and_contexts(void)
{
	pthread_t t[32];
	size_t i;
	void *ctx2;
	fake_launch l;
	race_module = create();
	if (!race_module)
		return;
	fake_reset();
	race_ctx = fake_ctx_create(1); /* sm_80 device */
	pthread_barrier_init(&race_barrier, NULL, 32);
	for (i = 0; i < 32; i++)
		pthread_create(&t[i], NULL, race_thread, (void *)i);
	for (i = 0; i < 32; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&race_barrier);
	CHECK_EQ_INT(race_failures, 0);
	CHECK_EQ_INT(fake_calls("cuModuleLoadData"), 1);
	CHECK_EQ_INT(fake_calls("cuModuleGetFunction"), 2);
	CHECK_EQ_INT(fake_calls("cuLaunchKernel"), 32);
	fake_last_launch(&l);
	CHECK_STR_CONTAINS(l.image, "sm_80");
	CHECK(l.ctx == race_ctx);
	/* a second context on another device: a second load, of its own image */
	ctx2 = fake_ctx_create(3); /* sm_86: the sm_80 cubin is compatible */
	set_current(ctx2);
	CHECK_EQ_INT(launch_add(race_module, 0x10000, 4096), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuModuleLoadData"), 2);
	fake_last_launch(&l);
	CHECK(l.ctx == ctx2);
	CHECK_STR_CONTAINS(l.image, "sm_80");
	/* tile_module_load on a third context loads and looks up everything now */
	set_current(fake_ctx_create(0));
	CHECK_EQ_INT(tile_module_load(race_module), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuModuleLoadData"), 3);
	CHECK_EQ_INT(fake_calls("cuModuleGetFunction"), 2 + 1 + 3);
	CHECK_EQ_INT(fake_live_modules(), 3);
	/* destroy unloads each module in its own context and restores ours */
	set_current(ctx2);
	tile_module_destroy(race_module);
	CHECK_EQ_INT(fake_live_modules(), 0);
	CHECK_EQ_INT(fake_calls("cuModuleUnload"), 3);
	CHECK(get_current() == ctx2);
	set_current(NULL);
}

static void *no_context_thread(void *arg)
{
	tile_module *m = (tile_module *)arg;
	CHECK(get_current() == NULL);
	CHECK_EQ_INT(launch_add(m, 0x10000, 64), TILE_SUCCESS);
	return NULL;
}

static void test_thread_without_context(void)
{
	tile_module *m = create();
	pthread_t t;
	fake_launch l;
	if (!m)
		return;
	pthread_create(&t, NULL, no_context_thread, m);
	pthread_join(t, NULL);
	pthread_create(&t, NULL, no_context_thread, m);
	pthread_join(t, NULL);
	CHECK_EQ_INT(fake_primary_refs(0), 1);
	fake_last_launch(&l);
	CHECK(l.grid[0] == 1);
	tile_module_destroy(m);
	CHECK_EQ_INT(fake_primary_refs(0), 0);
}

static void test_cluster_and_shared(void)
{
	tile_module *m = create();
	tile_deviceptr p = 0x40000;
	void *args[1];
	uint32_t grid[3] = {3, 2, 1};
	fake_launch l;
	if (!m)
		return;
	args[0] = &p;
	set_current(fake_ctx_create(0));
	fake_reset();
	CHECK_EQ_INT(tile_launch(m, 1, grid, NULL, args, 1), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(l.ex && strcmp(l.symbol, "big") == 0);
	CHECK(l.grid[0] == 6 && l.grid[1] == 2 && l.grid[2] == 1);
	CHECK(l.cluster[0] == 2 && l.cluster[1] == 1 && l.cluster[2] == 1 && l.cluster_policy == 1);
	CHECK(l.block[0] == 64 && l.shared == 100000);
	CHECK_EQ_INT(fake_calls("cuFuncSetAttribute"), 1);
	CHECK_EQ_INT(tile_launch(m, 1, grid, NULL, args, 1), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuFuncSetAttribute"), 1);
	CHECK_EQ_INT(fake_calls("cuLaunchKernelEx"), 2);
	CHECK_EQ_INT(fake_calls("cuLaunchKernel"), 0);
	/* the grid times the cluster must stay inside the limits */
	grid[0] = 1u << 30;
	CHECK_EQ_INT(tile_launch(m, 1, grid, NULL, args, 1), TILE_ERROR_GRID);
	/* on a device of compute capability 8.0 the sm_80 cubin runs one CTA
	 * per program (tilec compiles it so): no cluster, the grid as given */
	set_current(fake_ctx_create(1));
	grid[0] = 3;
	CHECK_EQ_INT(tile_launch(m, 1, grid, NULL, args, 1), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(!l.ex && strcmp(l.symbol, "big") == 0 && strstr(l.image, "sm_80") != NULL);
	CHECK(l.grid[0] == 3 && l.grid[1] == 2 && l.grid[2] == 1);
	CHECK(l.cluster[0] == 1 && l.cluster[1] == 1 && l.cluster[2] == 1);
	CHECK_EQ_INT(fake_calls("cuLaunchKernel"), 1);
	tile_module_destroy(m);
	set_current(NULL);
}

/* Variants specialized by divisibility by 16, 8 and 4 (tile's :16, :8, :4
 * hints): the launch takes the most specialized one whose predicates hold,
 * a predicate by 16 counting 3, by 8 2, by 4 1, the earliest on a tie. */
static void test_divisibility_variants(void)
{
	static const char cubin[] = "FAKE cubin sm_80: sel_none sel_n4 sel_n8 sel_n16 sel_x8n4";
	static const struct {
		const char *symbol;
		uint32_t div16, div8, div4;
	} vs[] = {{"sel_none", 0, 0, 0}, {"sel_n4", 0, 0, 2}, {"sel_n8", 0, 2, 0}, {"sel_n16", 2, 0, 0}, {"sel_x8n4", 0, 1, 2}};
	static const struct {
		tile_deviceptr x;
		int32_t n;
		const char *want;
	} calls[] = {{0x10000, 32, "sel_n16"}, {0x10000, 24, "sel_x8n4"}, {0x10004, 24, "sel_n8"},
		     {0x10000, 12, "sel_x8n4"}, {0x10004, 12, "sel_n4"}, {0x10004, 6, "sel_none"}, {0x10002, -8, "sel_n8"}};
	tb_blob d;
	tb_kernel *k;
	uint8_t *b = NULL;
	tile_module *m = NULL;
	uint32_t grid[3] = {1, 1, 1};
	size_t i, n;
	memset(&d, 0, sizeof d);
	d.n_kernels = 1;
	k = &d.kernels[0];
	k->name = "sel";
	k->n_params = 2;
	k->params[0] = (tb_param){"x", 0, 8, 12, 0};
	k->params[1] = (tb_param){"n", 1, 4, 4, 0};
	k->n_variants = (int)(sizeof vs / sizeof vs[0]);
	for (i = 0; i < sizeof vs / sizeof vs[0]; i++) {
		k->variants[i].symbol = vs[i].symbol;
		k->variants[i].num_warps = 4;
		k->variants[i].div16 = vs[i].div16;
		k->variants[i].div8 = vs[i].div8;
		k->variants[i].div4 = vs[i].div4;
	}
	d.n_groups = 1;
	d.n_images = 1;
	d.images[0] = (tb_image){0, 0, 80, 0, (const uint8_t *)cubin, sizeof cubin, 1};
	n = tb_build(&d, &b);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_SUCCESS);
	if (!m) {
		free(b);
		return;
	}
	set_current(fake_ctx_create(1));
	for (i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		tile_deviceptr x = calls[i].x;
		int32_t nv = calls[i].n;
		void *args[2] = {&x, &nv};
		fake_launch l;
		fake_reset();
		CHECK_EQ_INT(tile_launch(m, 0, grid, NULL, args, 2), TILE_SUCCESS);
		fake_last_launch(&l);
		if (strcmp(l.symbol, calls[i].want))
			CHECK_MSG(0, "x 0x%llx, n %d: launched %s, not %s", (unsigned long long)x, nv, l.symbol, calls[i].want);
	}
	tile_module_destroy(m);
	set_current(NULL);
	free(b);
}

/* A kernel of 40 visible parameters whose variants have predicates past
 * parameter 31 (a version 6 blob: FORMAT.md's preds): batch (parameter
 * 35) == 1 or % 16 == 0, and w (parameter 39) % 8 == 0, pick the variant
 * launched, each way. */
static void test_wide_predicates(void)
{
	static const char cubin[] = "FAKE cubin sm_80: wide wide_b1 wide_b1_w8 wide_b16";
	static const struct {
		const char *symbol;
		int n_preds;
		tb_pred preds[2];
	} vs[] = {{"wide", 0, {{0, 0, 0}}},
		  {"wide_b1", 1, {{35, 1, 0}}},
		  {"wide_b1_w8", 2, {{35, 1, 0}, {39, 8, 0}}},
		  {"wide_b16", 1, {{35, 16, 0}}}};
	static const struct {
		int32_t batch;
		int64_t w;
		const char *want;
	} calls[] = {{1, 8, "wide_b1_w8"}, {1, 4, "wide_b1"}, {2, 8, "wide"}, {32, 8, "wide_b16"},
		     {1, 16, "wide_b1_w8"}, {-16, 3, "wide_b16"}, {0, 0, "wide_b16"}, {3, 0, "wide"}};
	static const char *names[40] = {"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10", "p11", "p12", "p13",
					"p14", "p15", "p16", "p17", "p18", "p19", "p20", "p21", "p22", "p23", "p24", "p25", "p26", "p27",
					"p28", "p29", "p30", "p31", "p32", "p33", "p34", "batch", "p36", "p37", "p38", "w"};
	tb_blob d;
	tb_kernel *k;
	uint8_t *b = NULL;
	tile_module *m = NULL;
	uint32_t grid[3] = {1, 1, 1};
	int64_t values[40];
	void *args[40];
	size_t i, n;
	memset(&d, 0, sizeof d);
	d.n_kernels = 1;
	k = &d.kernels[0];
	k->name = "wide";
	k->n_params = 40;
	for (i = 0; i < 40; i++) {
		k->params[i] = (tb_param){names[i], 1, 4, 4, 0};
		values[i] = 0;
		args[i] = &values[i];
	}
	k->params[39] = (tb_param){"w", 1, 8, 5, 0};
	k->n_variants = (int)(sizeof vs / sizeof vs[0]);
	for (i = 0; i < sizeof vs / sizeof vs[0]; i++) {
		k->variants[i].symbol = vs[i].symbol;
		k->variants[i].num_warps = 4;
		k->variants[i].n_preds = vs[i].n_preds;
		memcpy(k->variants[i].preds, vs[i].preds, sizeof vs[i].preds);
	}
	d.n_groups = 1;
	d.n_images = 1;
	d.images[0] = (tb_image){0, 0, 80, 0, (const uint8_t *)cubin, sizeof cubin, 1};
	n = tb_build(&d, &b);
	CHECK_EQ_INT(b[4], 6);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_SUCCESS);
	if (!m) {
		free(b);
		return;
	}
	CHECK_EQ_INT(tile_variant_predicate(m, 0, 2, 35), 1);
	CHECK_EQ_INT(tile_variant_predicate(m, 0, 2, 39), 8);
	CHECK_EQ_INT(tile_variant_predicate(m, 0, 3, 35), 16);
	set_current(fake_ctx_create(1));
	for (i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		fake_launch l;
		values[35] = 0;
		memcpy(&values[35], &calls[i].batch, sizeof calls[i].batch); /* an i32 argument: its 4 bytes */
		values[39] = calls[i].w;
		fake_reset();
		CHECK_EQ_INT(tile_launch(m, 0, grid, NULL, args, 40), TILE_SUCCESS);
		fake_last_launch(&l);
		if (strcmp(l.symbol, calls[i].want))
			CHECK_MSG(0, "batch %d, w %lld: launched %s, not %s", (int)calls[i].batch, (long long)calls[i].w, l.symbol,
				  calls[i].want);
	}
	tile_module_destroy(m);
	set_current(NULL);
	free(b);
}

/* TILE_LAUNCH_PDL: cuLaunchKernelEx with programmatic stream
 * serialization on compute capability 9.0 (device 0), an ordinary launch
 * on 8.0 (device 1); TILE_LAUNCH_COOPERATIVE on both; unknown flags are
 * refused. */
static void test_programmatic_launch(void)
{
	tile_module *m = create();
	add_args a;
	fake_launch l;
	if (!m)
		return;
	add_args_init(&a, 0x10000, 4096);
	set_current(fake_ctx_create(0));
	fake_reset();
	CHECK_EQ_INT(tile_launch_ex(m, 0, -1, NULL, (tile_stream)0x77, a.args, 4, TILE_LAUNCH_PDL), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(l.ex && l.programmatic == 1 && l.cluster[0] == 1 && l.stream == (void *)0x77);
	CHECK(strcmp(l.symbol, "add_div16") == 0 && l.grid[0] == 4);
	CHECK_EQ_INT(tile_launch_ex(m, 0, -1, NULL, (tile_stream)0x77, a.args, 4, 0), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(!l.ex && l.programmatic == 0);
	CHECK_EQ_INT(fake_calls("cuLaunchKernelEx"), 1);
	CHECK_EQ_INT(tile_launch_ex(m, 0, -1, NULL, NULL, a.args, 4, 4), TILE_ERROR_INVALID_ARGUMENT);
	CHECK(strstr(tile_last_error(), "unknown launch flags 0x4") != NULL);
	CHECK_EQ_INT(tile_launch_ex(m, 0, -1, NULL, NULL, a.args, 4, TILE_LAUNCH_COOPERATIVE | TILE_LAUNCH_PDL), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(l.ex && l.cooperative == 1 && l.programmatic == 1);
	set_current(fake_ctx_create(1));
	fake_reset();
	CHECK_EQ_INT(tile_launch_ex(m, 0, -1, NULL, NULL, a.args, 4, TILE_LAUNCH_PDL), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(!l.ex && l.programmatic == 0 && fake_calls("cuLaunchKernel") == 1);
	CHECK_EQ_INT(fake_calls("cuLaunchKernelEx"), 0);
	/* cooperative launches are for every compute capability */
	CHECK_EQ_INT(tile_launch_ex(m, 0, -1, NULL, NULL, a.args, 4, TILE_LAUNCH_COOPERATIVE | TILE_LAUNCH_PDL), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(l.ex && l.cooperative == 1 && l.programmatic == 0);
	tile_module_destroy(m);
	set_current(NULL);
}

/* Image choice: exact cubin, compatible cubin, PTX, none. */
/* A variant with a producer warp runs it where the image loaded is
 * warp-specialized (flag bit 2: sm_90's here) and not elsewhere; a
 * variant without one launches num_warps everywhere. */
static void test_producer_warps(void)
{
	static const tb_image images[] = {
		{0, 0, 80, 0, cubin80, sizeof cubin80, 1},
		{0, 0, 90, 4, cubin90, sizeof cubin90, 1},
	};
	uint8_t *b;
	size_t n;
	tile_module *m = NULL;
	tile_variant_info vi;
	fake_launch l;
	generic_producer_warps = 1;
	n = make_blob(&b, 2, images);
	generic_producer_warps = 0;
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_SUCCESS);
	CHECK_EQ_INT(tile_variant_get_info(m, 0, 1, &vi), TILE_SUCCESS);
	CHECK(vi.num_warps == 8 && vi.producer_warps == 1);
	CHECK_EQ_INT(tile_variant_get_info(m, 0, 0, &vi), TILE_SUCCESS);
	CHECK(vi.num_warps == 4 && vi.producer_warps == 0);
	set_current(fake_ctx_create(0)); /* sm_90 */
	CHECK_EQ_INT(launch_add(m, 0x10004, 4097), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(strcmp(l.symbol, "add_generic") == 0 && l.block[0] == 288 && l.block[1] == 1);
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(strcmp(l.symbol, "add_div16") == 0 && l.block[0] == 128);
	set_current(fake_ctx_create(1)); /* sm_80: the plain image */
	CHECK_EQ_INT(launch_add(m, 0x10004, 4097), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(strcmp(l.symbol, "add_generic") == 0 && l.block[0] == 256 && strstr(l.image, "sm_80") != NULL);
	tile_module_destroy(m);
	free(b);
	set_current(NULL);
}

static void test_images(void)
{
	static const tb_image ptx_only[] = {{0, 1, 80, 0, ptx80, sizeof ptx80, 1}};
	static const tb_image ptx_fail[] = {{0, 1, 80, 0, ptx_bad, sizeof ptx_bad, 1}};
	static const tb_image arch_a[] = {{0, 0, 90, 1, cubin90, sizeof cubin90, 1}};
	static const tb_image no_nul[] = {{0, 1, 80, 0, ptx80, sizeof ptx80 - 1, 0}};
	uint8_t *b;
	size_t n;
	tile_module *m = NULL;
	fake_launch l;
	void *ctx75 = fake_ctx_create(2), *ctx90 = fake_ctx_create(0), *ctx86 = fake_ctx_create(3);

	/* sm_75: no cubin, PTX compute_80 too new */
	set_current(ctx75);
	m = create();
	CHECK_EQ_INT(launch_add(m, 0x10000, 16), TILE_ERROR_NO_IMAGE);
	CHECK_STR_CONTAINS(tile_last_error(), "no image for the device (sm_75)");
	CHECK_STR_CONTAINS(tile_last_error(), "cubin sm_80, cubin sm_90, PTX compute_80");
	tile_module_destroy(m);

	/* PTX only: JIT through cuModuleLoadDataEx on sm_86 and sm_90 */
	n = make_blob(&b, 1, ptx_only);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_SUCCESS);
	fake_reset();
	set_current(ctx86);
	CHECK_EQ_INT(launch_add(m, 0x10000, 16), TILE_SUCCESS);
	set_current(ctx90);
	CHECK_EQ_INT(launch_add(m, 0x10000, 16), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuModuleLoadDataEx"), 2);
	CHECK_EQ_INT(fake_calls("cuModuleLoadData"), 0);
	fake_last_launch(&l);
	CHECK_STR_CONTAINS(l.image, "FAKE ptx");
	set_current(ctx75);
	CHECK_EQ_INT(launch_add(m, 0x10000, 16), TILE_ERROR_NO_IMAGE);
	CHECK_STR_CONTAINS(tile_last_error(), "the blob has PTX compute_80");
	tile_module_destroy(m);
	free(b);

	/* the JIT fails: its log is in the detail */
	n = make_blob(&b, 1, ptx_fail);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_SUCCESS);
	set_current(ctx90);
	CHECK_EQ_INT(launch_add(m, 0x10000, 16), TILE_ERROR_JIT);
	CHECK_STR_CONTAINS(tile_last_error(), "cuModuleLoadDataEx (PTX compute_80 for sm_90): CUDA_ERROR_INVALID_PTX: ptxas fatal: fake JIT error in line 3");
	tile_module_destroy(m);
	free(b);

	/* sm_90a: on 9.0 only */
	n = make_blob(&b, 1, arch_a);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_SUCCESS);
	set_current(ctx90);
	CHECK_EQ_INT(launch_add(m, 0x10000, 16), TILE_SUCCESS);
	set_current(ctx86);
	CHECK_EQ_INT(launch_add(m, 0x10000, 16), TILE_ERROR_NO_IMAGE);
	CHECK_STR_CONTAINS(tile_last_error(), "cubin sm_90a");
	tile_module_destroy(m);
	free(b);

	/* a PTX image without its NUL */
	n = make_blob(&b, 1, no_nul);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_SUCCESS);
	CHECK_EQ_INT(launch_add(m, 0x10000, 16), TILE_ERROR_BAD_BLOB);
	CHECK_STR_CONTAINS(tile_last_error(), "image 0: PTX text is not NUL-terminated");
	tile_module_destroy(m);
	free(b);
	CHECK_EQ_INT(fake_live_modules(), 0);
	set_current(NULL);
}

/* Each driver call made on the way to a launch, failing: the status and
 * the detail name the call and the CUDA error; once the failure is gone,
 * the same module works (nothing was left half-done). */
static void test_driver_failures(void)
{
	static const struct {
		const char *call;
		int kernel; /* 0 add, 1 big */
		int no_context;
		tile_status status;
	} cases[] = {
		{"cuCtxGetCurrent", 0, 0, TILE_ERROR_CUDA},
		{"cuCtxGetId", 0, 0, TILE_ERROR_CUDA},
		{"cuStreamIsCapturing", 0, 0, TILE_ERROR_CUDA},
		{"cuDeviceGetCount", 0, 1, TILE_ERROR_CUDA},
		{"cuDeviceGet", 0, 1, TILE_ERROR_CUDA},
		{"cuDevicePrimaryCtxRetain", 0, 1, TILE_ERROR_CUDA},
		{"cuCtxSetCurrent", 0, 1, TILE_ERROR_CUDA},
		{"cuCtxGetDevice", 0, 0, TILE_ERROR_CUDA},
		{"cuDeviceGetAttribute", 0, 0, TILE_ERROR_CUDA},
		{"cuModuleLoadData", 0, 0, TILE_ERROR_CUDA},
		{"cuModuleGetFunction", 0, 0, TILE_ERROR_CUDA},
		{"cuLaunchKernel", 0, 0, TILE_ERROR_CUDA},
		{"cuFuncGetAttribute", 1, 0, TILE_ERROR_CUDA},
		{"cuFuncSetAttribute", 1, 0, TILE_ERROR_CUDA},
		{"cuLaunchKernelEx", 1, 0, TILE_ERROR_CUDA},
	};
	size_t i;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tile_module *m = create();
		tile_deviceptr p = 0x40000;
		uint32_t grid[3] = {1, 1, 1};
		void *big_args[1];
		add_args a;
		char want[128];
		big_args[0] = &p;
		add_args_init(&a, 0x10000, 4096);
		set_current(cases[i].no_context ? NULL : fake_ctx_create(0));
		fake_fail(cases[i].call, 719);
		if (cases[i].kernel == 0)
			CHECK_EQ_INT(tile_launch(m, 0, NULL, NULL, a.args, 4), cases[i].status);
		else
			CHECK_EQ_INT(tile_launch(m, 1, grid, NULL, big_args, 1), cases[i].status);
		snprintf(want, sizeof want, "%s", cases[i].call);
		CHECK(strncmp(tile_last_error(), want, strlen(want)) == 0);
		CHECK_STR_CONTAINS(tile_last_error(), ": CUDA_ERROR_LAUNCH_FAILED (719)");
		fake_fail(cases[i].call, 0);
		if (cases[i].kernel == 0)
			CHECK_EQ_INT(tile_launch(m, 0, NULL, NULL, a.args, 4), TILE_SUCCESS);
		else
			CHECK_EQ_INT(tile_launch(m, 1, grid, NULL, big_args, 1), TILE_SUCCESS);
		tile_module_destroy(m);
		CHECK_EQ_INT(fake_live_modules(), 0);
		CHECK_EQ_INT(fake_primary_refs(0), 0);
	}
	/* an error the driver has no name for */
	{
		tile_module *m = create();
		set_current(fake_ctx_create(0));
		fake_fail("cuModuleLoadData", 12345);
		CHECK_EQ_INT(launch_add(m, 0x10000, 16), TILE_ERROR_CUDA);
		CHECK_STR_CONTAINS(tile_last_error(), "cuModuleLoadData (cubin sm_90): unknown CUDA error (12345)");
		fake_fail("cuModuleLoadData", 0);
		tile_module_destroy(m);
	}
	/* the detail is per thread: another thread's failure leaves ours alone */
	CHECK_STR_CONTAINS(tile_last_error(), "unknown CUDA error (12345)");
	set_current(NULL);
}

static void *other_thread_error(void *arg)
{
	(void)arg;
	CHECK(tile_last_error()[0] == 0);
	CHECK_EQ_INT(tile_launch(NULL, 0, NULL, NULL, NULL, 0), TILE_ERROR_INVALID_ARGUMENT);
	return NULL;
}

static void test_error_per_thread(void)
{
	pthread_t t;
	pthread_create(&t, NULL, other_thread_error, NULL);
	pthread_join(t, NULL);
	CHECK_STR_CONTAINS(tile_last_error(), "unknown CUDA error (12345)");
}

static void test_lazy_module(void)
{
	static tile_lazy_module lazy;
	tile_module *m = NULL, *m2 = NULL;
	CHECK_EQ_INT(tile_lazy_get(&lazy, blob, blob_size, &m), TILE_SUCCESS);
	CHECK_EQ_INT(tile_lazy_get(&lazy, blob, blob_size, &m2), TILE_SUCCESS);
	CHECK(m != NULL && m == m2);
	set_current(fake_ctx_create(1));
	CHECK_EQ_INT(launch_add(m, 0x10000, 16), TILE_SUCCESS);
	CHECK_EQ_INT(fake_live_modules(), 1);
	tile_lazy_release(&lazy);
	CHECK_EQ_INT(fake_live_modules(), 0);
	set_current(NULL);
}


/* A context destroyed and another created at its address: the new one is
 * a new context (its own ID), so the module loads again instead of
 * launching the dead context's functions; the dead one's slot is recycled
 * (no second slot, no unload of what the driver freed). */
static void test_context_identity(void)
{
	tile_module *m = create();
	void *a, *b, *c, *d;
	fake_launch l;
	if (!m)
		return;
	fake_reset();
	a = fake_ctx_create(0);
	set_current(a);
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_SUCCESS);
	fake_ctx_destroy(a);
	b = fake_ctx_create(0);
	CHECK(b == a); /* the address comes back */
	set_current(b);
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuModuleLoadData"), 2);
	fake_last_launch(&l);
	CHECK(l.ctx == b && strcmp(l.symbol, "add_div16") == 0);
	/* again, on another device: the new context's device is asked again */
	fake_ctx_destroy(b);
	c = fake_ctx_create(1);
	CHECK(c == a);
	set_current(c);
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK_STR_CONTAINS(l.image, "sm_80");
	CHECK_EQ_INT(m->slots->n, 1);
	/* a dead context whose address is not reused: destroy skips it */
	d = fake_ctx_create(0);
	CHECK(d != c);
	set_current(d);
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_SUCCESS);
	CHECK_EQ_INT(m->slots->n, 2);
	fake_ctx_destroy(d);
	CHECK_EQ_INT(fake_live_modules(), 1);
	set_current(c);
	tile_module_destroy(m);
	CHECK_EQ_INT(fake_calls("cuModuleUnload"), 1);
	CHECK_EQ_INT(fake_live_modules(), 0);
	CHECK(get_current() == c);
	fake_ctx_destroy(c);
	CHECK(get_current() == NULL);
}

/* More contexts than the first table holds, many times over: every one
 * loads once, and launching threads keep going while others add
 * contexts (the table is replaced under them). */
#define GROW_THREADS 8
#define GROW_CONTEXTS 24 /* per thread */
static tile_module *grow_module;
static int grow_failures;
static pthread_barrier_t grow_barrier;

static void *grow_thread(void *arg)
{
	void *ctx[GROW_CONTEXTS];
	size_t t = (size_t)arg;
	int i, j;
	pthread_barrier_wait(&grow_barrier);
	for (i = 0; i < GROW_CONTEXTS; i++) {
		ctx[i] = fake_ctx_create((int)((t + (size_t)i) % 2));
		set_current(ctx[i]);
		/* each new context, then a launch in every older one */
		for (j = 0; j <= i; j++) {
			set_current(ctx[j]);
			if (launch_add(grow_module, 0x10000, 4096) != TILE_SUCCESS)
				__atomic_add_fetch(&grow_failures, 1, __ATOMIC_RELAXED);
		}
	}
	set_current(NULL);
	return NULL;
}

static void test_many_contexts(void)
{
	pthread_t t[GROW_THREADS];
	size_t i;
	grow_module = create();
	if (!grow_module)
		return;
	fake_reset();
	pthread_barrier_init(&grow_barrier, NULL, GROW_THREADS);
	for (i = 0; i < GROW_THREADS; i++)
		pthread_create(&t[i], NULL, grow_thread, (void *)i);
	for (i = 0; i < GROW_THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&grow_barrier);
	CHECK_EQ_INT(grow_failures, 0);
	CHECK_EQ_INT(fake_calls("cuModuleLoadData"), GROW_THREADS * GROW_CONTEXTS);
	CHECK_EQ_INT(fake_calls("cuLaunchKernel"), GROW_THREADS * GROW_CONTEXTS * (GROW_CONTEXTS + 1) / 2);
	CHECK_EQ_INT(grow_module->slots->n, GROW_THREADS * GROW_CONTEXTS);
	CHECK(grow_module->slots->cap >= GROW_THREADS * GROW_CONTEXTS && grow_module->slots->retired != NULL);
	CHECK_EQ_INT(fake_live_modules(), GROW_THREADS * GROW_CONTEXTS);
	tile_module_destroy(grow_module);
	CHECK_EQ_INT(fake_live_modules(), 0);
	CHECK_EQ_INT(fake_calls("cuModuleUnload"), GROW_THREADS * GROW_CONTEXTS);
}

static void *device_thread(void *arg)
{
	tile_module *m = (tile_module *)arg;
	fake_launch l;
	void *own;
	CHECK(get_current() == NULL);
	CHECK_EQ_INT(tile_get_device(), 0);
	CHECK_EQ_INT(tile_set_device(1), TILE_SUCCESS);
	CHECK_EQ_INT(launch_add(m, 0x10000, 64), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK_STR_CONTAINS(l.image, "sm_80");
	CHECK(l.ctx == get_current());
	CHECK_EQ_INT(fake_primary_refs(1), 1);
	/* to device 3: the loader's own primary context gives way */
	CHECK_EQ_INT(tile_set_device(3), TILE_SUCCESS);
	CHECK_EQ_INT(launch_add(m, 0x10000, 64), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(l.ctx != NULL && l.ctx == get_current());
	CHECK_EQ_INT(fake_primary_refs(3), 1);
	CHECK_EQ_INT(fake_primary_refs(1), 1);
	/* back to 1: no second retain */
	CHECK_EQ_INT(tile_set_device(1), TILE_SUCCESS);
	CHECK_EQ_INT(launch_add(m, 0x10000, 64), TILE_SUCCESS);
	CHECK_EQ_INT(fake_primary_refs(1), 1);
	CHECK_EQ_INT(fake_calls("cuDevicePrimaryCtxRetain"), 2);
	/* a context of the thread's own is used whatever the device says */
	own = fake_ctx_create(0);
	set_current(own);
	CHECK_EQ_INT(tile_set_device(3), TILE_SUCCESS);
	CHECK_EQ_INT(launch_add(m, 0x10000, 64), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK(l.ctx == own && get_current() == own);
	CHECK_STR_CONTAINS(l.image, "sm_90");
	/* bad devices */
	set_current(NULL);
	CHECK_EQ_INT(tile_set_device(-1), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_EQ_INT(tile_set_device(7), TILE_SUCCESS);
	CHECK_EQ_INT(launch_add(m, 0x10000, 64), TILE_ERROR_CUDA);
	CHECK_STR_CONTAINS(tile_last_error(), "cuDeviceGet: CUDA_ERROR_INVALID_DEVICE");
	fake_ctx_destroy(own);
	return NULL;
}

/* tile_set_device: primary contexts per device, retained once each by the
 * module, released on destroy; other threads keep device 0. */
static void test_devices(void)
{
	tile_module *m = create();
	pthread_t t;
	fake_launch l;
	if (!m)
		return;
	fake_reset();
	pthread_create(&t, NULL, device_thread, m);
	pthread_join(t, NULL);
	set_current(NULL);
	CHECK_EQ_INT(tile_get_device(), 0);
	CHECK_EQ_INT(launch_add(m, 0x10000, 64), TILE_SUCCESS);
	fake_last_launch(&l);
	CHECK_STR_CONTAINS(l.image, "sm_90");
	CHECK_EQ_INT(fake_primary_refs(0), 1);
	tile_module_destroy(m);
	CHECK_EQ_INT(fake_primary_refs(0) + fake_primary_refs(1) + fake_primary_refs(3), 0);
	CHECK_EQ_INT(fake_live_modules(), 0);
	set_current(NULL);
}

/* Stream capture: a first load would happen during capture: refused
 * before the driver is asked to load; loaded before, launches are
 * captured. */
static void test_capture(void)
{
	tile_module *m = create();
	void *stream = (void *)0x99;
	tile_deviceptr p = 0x40000;
	uint32_t grid[3] = {1, 1, 1};
	void *big_args[1];
	add_args a;
	if (!m)
		return;
	big_args[0] = &p;
	add_args_init(&a, 0x10000, 4096);
	set_current(fake_ctx_create(0));
	fake_reset();
	fake_capture(stream, 1);
	CHECK_EQ_INT(tile_launch(m, 0, NULL, (tile_stream)stream, a.args, 4), TILE_ERROR_CAPTURING);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel add: first launch in this context while the stream is being captured");
	CHECK_STR_CONTAINS(tile_last_error(), "NAME_load()");
	/* the legacy default stream, while another stream captures */
	CHECK_EQ_INT(tile_launch(m, 0, NULL, NULL, a.args, 4), TILE_ERROR_CAPTURING);
	/* another stream is not being captured, but the load would fail (global mode) */
	CHECK_EQ_INT(tile_launch(m, 0, NULL, (tile_stream)0x98, a.args, 4), TILE_ERROR_CUDA);
	CHECK_STR_CONTAINS(tile_last_error(), "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
	CHECK_EQ_INT(fake_calls("cuLaunchKernel"), 0);
	fake_capture(stream, 0);
	CHECK_EQ_INT(tile_module_load(m), TILE_SUCCESS);
	fake_capture(stream, 1);
	fake_reset();
	CHECK_EQ_INT(tile_launch(m, 0, NULL, (tile_stream)stream, a.args, 4), TILE_SUCCESS);
	a.x = 0x10004; /* the other variant */
	CHECK_EQ_INT(tile_launch(m, 0, NULL, (tile_stream)stream, a.args, 4), TILE_SUCCESS);
	CHECK_EQ_INT(tile_launch(m, 1, grid, (tile_stream)stream, big_args, 1), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuLaunchKernel") + fake_calls("cuLaunchKernelEx"), 3);
	CHECK_EQ_INT(fake_calls("cuModuleLoadData") + fake_calls("cuStreamIsCapturing"), 0);
	fake_capture(stream, 0);
	tile_module_destroy(m);
	set_current(NULL);
}

static int run_main(void)
{
	static const int cc[4] = {90, 80, 75, 86};
	static const tb_image images[] = {
		{0, 0, 80, 0, cubin80, sizeof cubin80, 1},
		{0, 0, 90, 0, cubin90, sizeof cubin90, 0},
		{0, 1, 80, 0, ptx80, sizeof ptx80, 1},
	};
	open_fake();
	fake_set_devices(4, cc);
	blob_size = make_blob(&blob, 3, images);
	test_first_launch_without_context();
	test_no_lock_no_allocation();
	test_threads_and_contexts();
	test_thread_without_context();
	test_cluster_and_shared();
	test_divisibility_variants();
	test_wide_predicates();
	test_programmatic_launch();
	test_images();
	test_producer_warps();
	test_driver_failures();
	test_error_per_thread();
	test_lazy_module();
	test_context_identity();
	test_many_contexts();
	test_devices();
	test_capture();
	free(blob);
	return check_report("test_loader_fake");
}

/* A driver without cuCtxGetId: slots are keyed by the handle. Launches
 * and loads work; a context destroyed and another created at its address
 * finds the old slot, and the launch fails with the driver's error (the
 * documented limitation) rather than crashing. Without cuStreamIsCapturing
 * a load during capture fails in the driver, as a status. */
static int run_noctxid(void)
{
	static const tb_image images[] = {{0, 0, 90, 0, cubin90, sizeof cubin90, 1}};
	tile_module *m;
	void *a, *b;
	open_fake();
	blob_size = make_blob(&blob, 1, images);
	m = create();
	a = fake_ctx_create(0);
	set_current(a);
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_SUCCESS);
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_SUCCESS);
	CHECK_EQ_INT(fake_calls("cuCtxGetId"), 0);
	fake_ctx_destroy(a);
	b = fake_ctx_create(0);
	CHECK(a == b);
	set_current(b);
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_ERROR_CUDA);
	CHECK_STR_CONTAINS(tile_last_error(), "cuLaunchKernel: CUDA_ERROR_INVALID_HANDLE");
	tile_module_destroy(m);
	m = create();
	fake_capture((void *)0x99, 1);
	CHECK_EQ_INT(tile_launch(m, 0, NULL, (tile_stream)0x99, NULL, 0), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_ERROR_CUDA);
	CHECK_STR_CONTAINS(tile_last_error(), "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED");
	fake_capture((void *)0x99, 0);
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), TILE_SUCCESS);
	tile_module_destroy(m);
	CHECK_EQ_INT(fake_live_modules(), 0);
	fake_ctx_destroy(b);
	free(blob);
	return check_report("test_loader_fake");
}

#ifdef TILE_DEBUG
static tile_module *debug_module;
static int debug_destroyed_seen, debug_other_errors;
static volatile int debug_started;

static void *debug_thread(void *arg)
{
	long launches = 0;
	(void)arg;
	set_current(race_ctx);
	for (;;) {
		tile_status st = launch_add(debug_module, 0x10000, 4096);
		if (++launches == 100)
			__atomic_store_n(&debug_started, 1, __ATOMIC_RELEASE);
		if (st == TILE_ERROR_DESTROYED) {
			/* counted here, checked by the main thread (CHECK is not thread-safe) */
			if (strstr(tile_last_error(), "tile_launch: the module is being destroyed or was destroyed"))
				__atomic_add_fetch(&debug_destroyed_seen, 1, __ATOMIC_RELAXED);
			else
				__atomic_add_fetch(&debug_other_errors, 1, __ATOMIC_RELAXED);
			break;
		}
		if (st != TILE_SUCCESS)
			__atomic_add_fetch(&debug_other_errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* TILE_DEBUG: threads launch while the module is destroyed; each sees
 * TILE_ERROR_DESTROYED (no crash, no sanitizer report), and so does any
 * later use; a second destroy is harmless. */
static int run_debug(void)
{
	static const tb_image images[] = {{0, 0, 90, 0, cubin90, sizeof cubin90, 1}};
	pthread_t t[4];
	int i;
	open_fake();
	blob_size = make_blob(&blob, 1, images);
	debug_module = create();
	race_ctx = fake_ctx_create(0);
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, debug_thread, NULL);
	while (!__atomic_load_n(&debug_started, __ATOMIC_ACQUIRE))
		sched_yield();
	tile_module_destroy(debug_module);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_INT(debug_destroyed_seen, 4);
	CHECK_EQ_INT(debug_other_errors, 0);
	CHECK_EQ_INT(fake_live_modules(), 0);
	set_current(race_ctx);
	CHECK_EQ_INT(launch_add(debug_module, 0x10000, 16), TILE_ERROR_DESTROYED);
	CHECK_EQ_INT(tile_module_load(debug_module), TILE_ERROR_DESTROYED);
	tile_module_destroy(debug_module);
	CHECK_STR_CONTAINS(tile_status_string(TILE_ERROR_DESTROYED), "destroy");
	set_current(NULL);
	free(blob);
	return check_report("test_loader_fake");
}
#endif

/* The driver cannot be used at all: launches and loads say why, by name. */
static int run_unusable(tile_status want, const char *text)
{
	static const tb_image images[] = {{0, 0, 80, 0, cubin80, sizeof cubin80, 1}};
	tile_module *m;
	blob_size = make_blob(&blob, 1, images);
	m = create();
	CHECK_EQ_INT(launch_add(m, 0x10000, 4096), want);
	CHECK_STR_CONTAINS(tile_last_error(), text);
	CHECK_EQ_INT(tile_module_load(m), want);
	CHECK_STR_CONTAINS(tile_last_error(), text);
	/* an empty grid still needs no driver */
	CHECK_EQ_INT(launch_add(m, 0x10000, 0), TILE_SUCCESS);
	tile_module_destroy(m);
	free(blob);
	return check_report("test_loader_fake");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "main";
	void *real = dlsym(RTLD_NEXT, "pthread_mutex_lock");
	memcpy(&real_mutex_lock, &real, sizeof real);
	if (strcmp(mode, "nodriver") == 0)
		return run_unusable(TILE_ERROR_NO_DRIVER, "cannot open the CUDA driver library");
	if (strcmp(mode, "nosym") == 0)
		return run_unusable(TILE_ERROR_DRIVER_SYMBOL, "the CUDA driver library has no cuLaunchKernelEx");
	if (strcmp(mode, "noinit") == 0)
		return run_unusable(TILE_ERROR_CUDA, "cuInit: CUDA_ERROR_NO_DEVICE");
	if (strcmp(mode, "noctxid") == 0)
		return run_noctxid();
#ifdef TILE_DEBUG
	if (strcmp(mode, "debug") == 0)
		return run_debug();
#endif
	return run_main();
}
