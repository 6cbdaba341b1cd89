/* dispatch_fake_test.c - autotuned kernels in tile.h against the fake driver.
 *
 * Built and run by tests/test_loader_fake.sh. A hand-built blob holds
 * mm(x: *fp32, M: i32, N: i32, K: i64) with three configs (config 1 has a
 * variant for x and M divisible by 16 and a generic one, config 0 one for
 * N divisible by 8 and a generic one), keyed on M, N, K; the launches
 * reach the fake driver, which records the symbol launched. Checked: exact
 * keys, keys between entries (power-of-two buckets; an entry whose M has
 * the launch's divisibility by 16, and whose N has its divisibility by 8,
 * first; K having no such variant), the default config of an empty table,
 * predicates inside a config, explicit configs and their range, runtime
 * tables from tuning files (accepted, refused all or nothing; refused when
 * measured on another build of the kernel: tile_kernel_identity), the
 * validation of tables in blobs (unsorted, duplicate keys, configs out of
 * range, keys on non-integers), and that dispatching launches, once each
 * config is loaded, neither allocate nor lock (malloc counted through
 * TILE_MALLOC, the module's mutex through an interposed
 * pthread_mutex_lock). Heuristics at launch: one over an integer
 * argument and a constexpr, and one comparing a float argument
 * (HAS_SMOOTHING = smoothing > 0.0, as flash-attention's cross entropy):
 * the variant launched for 0.0, -0.0, NaN, tiny and negative values.
 * Prints the cost of a dispatch (a table of 256 entries, hit and miss). */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static const char *fake_library(void)
{
	const char *p = getenv("TILE_FAKE_CUDA");
	return p ? p : "libfakecuda.so";
}

static int allocations;
static pthread_mutex_t *watched_lock;
static int watched_locks;
static int (*real_mutex_lock)(pthread_mutex_t *);

static void *counting_malloc(size_t n)
{
	__atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED);
	return malloc(n);
}

int pthread_mutex_lock(pthread_mutex_t *mutex)
{
	if (mutex == watched_lock)
		__atomic_add_fetch(&watched_locks, 1, __ATOMIC_RELAXED);
	return real_mutex_lock(mutex);
}

#define TILE_MALLOC(n) counting_malloc(n)
#define TILE_LIBCUDA_NAME fake_library()
#define TILE_IMPLEMENTATION
#include "tile.h"

#include "check.h"
#include "fake_cuda/blob_builder.h"
#include "fake_cuda/fake_cuda.h"

static fake_cuda_set_devices_fn fake_set_devices;
static fake_cuda_last_launch_fn fake_last_launch;
static fake_cuda_calls_fn fake_calls;

static void open_fake(void)
{
	void *lib = dlopen(fake_library(), RTLD_NOW | RTLD_LOCAL), *p;
	if (!lib) {
		fprintf(stderr, "cannot open %s: %s\n", fake_library(), dlerror());
		exit(1);
	}
	p = dlsym(lib, "fake_cuda_set_devices");
	memcpy(&fake_set_devices, &p, sizeof p);
	p = dlsym(lib, "fake_cuda_last_launch");
	memcpy(&fake_last_launch, &p, sizeof p);
	p = dlsym(lib, "fake_cuda_calls");
	memcpy(&fake_calls, &p, sizeof p);
	if (!fake_set_devices || !fake_last_launch || !fake_calls) {
		fprintf(stderr, "the fake driver lacks its control functions\n");
		exit(1);
	}
}

static const char cubin[] = "FAKE cubin sm_80: mm_c0 mm_c1_x16 mm_c1 mm_c2 mm_c0_n8 flat_a flat_b h_c0_even h_c0_odd h_c1_even "
			    "xent_smooth xent_plain";
/* HAS_SMOOTHING = smoothing > 0.0 (smoothing: fp32 parameter 1): the float
 * parameter, the double 0.0, a float comparison (4: >; both floats) */
static const uint8_t has_smoothing[] = {1, 0x04, 1, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0x22, 0x04 | 0x08 | 0x10};
/* the same, corrupted: comparison 6 */
static const uint8_t bad_fcmp[] = {1, 0x04, 1, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0x22, 0x06 | 0x08 | 0x10};
/* the same, reading the pointer as a float */
static const uint8_t bad_farg[] = {1, 0x04, 0, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0x22, 0x04 | 0x08 | 0x10};
static const uint8_t grid_one[] = {1, 0x02, 1, 0, 0, 0, 0, 0, 0, 0};
/* EVEN_K = K % BLOCK_K == 0 (K: parameter 1, BLOCK_K: constexpr 0) */
static const uint8_t even_k[] = {1, 0x01, 1, 0x03, 0, 0x15, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0x18};
/* cdiv(M, BLOCK) */
static const uint8_t grid_m[] = {1, 0x01, 1, 0x03, 0, 0x14};

/* mm: configs 0..2 (BLOCK 64, 128, 256), key M, N, K; entries as given.
 * flat(x, n): two configs, key n, no entries, default 1.
 * heur(x, K): configs 0 (BLOCK_K 32: EVEN_K True and False) and 1
 * (BLOCK_K 64: EVEN_K True only), heuristic EVEN_K at launch, key K:
 * 32 -> 0, 4096 -> 1.
 * xent(x, smoothing: fp32): HAS_SMOOTHING True and False, heuristic
 * HAS_SMOOTHING at launch. */
static void describe(tb_blob *d, int n_entries, const int64_t *entries)
{
	static const char *const syms[5] = {"mm_c0", "mm_c1_x16", "mm_c1", "mm_c2", "mm_c0_n8"};
	static const int configs[5] = {0, 1, 1, 2, 0};
	tb_kernel *k = &d->kernels[0];
	int i;
	memset(d, 0, sizeof *d);
	d->n_kernels = 2;
	k->name = "mm";
	k->n_params = 4;
	k->params[0] = (tb_param){"x", 0, 8, 12, 0};
	k->params[1] = (tb_param){"M", 1, 4, 4, 0};
	k->params[2] = (tb_param){"N", 1, 4, 4, 0};
	k->params[3] = (tb_param){"K", 1, 8, 5, 0};
	k->n_variants = 5;
	for (i = 0; i < 5; i++) {
		tb_variant *v = &k->variants[i];
		v->symbol = syms[i];
		v->num_warps = 4;
		v->num_stages = 3;
		v->config = configs[i];
		v->source_config = configs[i] * 2;
		v->div16 = i == 1 ? 0x3 : 0; /* x and M */
		v->div8 = i == 4 ? 0x4 : 0;  /* N */
		v->grid = grid_m;
		v->grid_size = sizeof grid_m;
		v->n_constexprs = 1;
		v->cx[0] = (tb_constexpr){"BLOCK", 0, 64 << configs[i], NULL};
	}
	k->n_configs = 3;
	k->default_config = 1;
	k->n_keys = 3;
	k->keys[0] = 1;
	k->keys[1] = 2;
	k->keys[2] = 3;
	k->n_entries = n_entries;
	memcpy(k->entries, entries, sizeof(int64_t) * 4 * (size_t)n_entries);
	k = &d->kernels[1];
	k->name = "flat";
	k->n_params = 2;
	k->params[0] = (tb_param){"x", 0, 8, 12, 0};
	k->params[1] = (tb_param){"n", 1, 4, 4, 0};
	k->n_variants = 2;
	for (i = 0; i < 2; i++) {
		tb_variant *v = &k->variants[i];
		v->symbol = i ? "flat_b" : "flat_a";
		v->num_warps = 4;
		v->config = i;
		v->grid = grid_m;
		v->grid_size = sizeof grid_m;
		v->n_constexprs = 1;
		v->cx[0] = (tb_constexpr){"BLOCK", 0, 32, NULL};
	}
	k->n_configs = 2;
	k->default_config = 1;
	k->n_keys = 1;
	k->keys[0] = 1;
	k = &d->kernels[2];
	d->n_kernels = 3;
	k->name = "heur";
	k->n_params = 2;
	k->params[0] = (tb_param){"x", 0, 8, 12, 0};
	k->params[1] = (tb_param){"K", 1, 4, 4, 0};
	k->n_variants = 3;
	for (i = 0; i < 3; i++) {
		tb_variant *v = &k->variants[i];
		v->symbol = i == 0 ? "h_c0_even" : i == 1 ? "h_c0_odd" : "h_c1_even";
		v->num_warps = 4;
		v->config = i == 2;
		v->grid = grid_m;
		v->grid_size = sizeof grid_m;
		v->n_constexprs = 2;
		v->cx[0] = (tb_constexpr){"BLOCK_K", 0, i == 2 ? 64 : 32, NULL};
		v->cx[1] = (tb_constexpr){"EVEN_K", 2, i != 1, NULL};
	}
	k->n_configs = 2;
	k->n_keys = 1;
	k->keys[0] = 1;
	k->n_entries = 2;
	k->entries[0] = 32;
	k->entries[1] = 0;
	k->entries[2] = 4096;
	k->entries[3] = 1;
	k->n_heuristics = 1;
	k->heuristics[0].name = "EVEN_K";
	k->heuristics[0].code = even_k;
	k->heuristics[0].size = sizeof even_k;
	k = &d->kernels[3];
	d->n_kernels = 4;
	k->name = "xent";
	k->n_params = 2;
	k->params[0] = (tb_param){"x", 0, 8, 12, 0};
	k->params[1] = (tb_param){"smoothing", 3, 4, 12, 0};
	k->n_variants = 2;
	for (i = 0; i < 2; i++) {
		tb_variant *v = &k->variants[i];
		v->symbol = i ? "xent_plain" : "xent_smooth";
		v->num_warps = 4;
		v->grid = grid_one;
		v->grid_size = sizeof grid_one;
		v->n_constexprs = 1;
		v->cx[0] = (tb_constexpr){"HAS_SMOOTHING", 2, !i, NULL};
	}
	k->n_heuristics = 1;
	k->heuristics[0].name = "HAS_SMOOTHING";
	k->heuristics[0].code = has_smoothing;
	k->heuristics[0].size = sizeof has_smoothing;
	d->n_images = 1;
	d->n_groups = 1;
	d->images[0] = (tb_image){0, 0, 80, 0, cubin, sizeof cubin, 1};
}

static const int64_t good_entries[] = {64, 64, 64, 0, 1024, 1024, 1024, 1, 4096, 4096, 4096, 2};

static uint8_t *blob;
static size_t blob_size;

/* text, a tuning file written as version 1 without identities, as tile-tune
 * writes it for m: 'tile-tuning 2', and each kernel line with m's identity
 * of its kernel (zeros for a kernel m lacks). Four buffers in turn. */
static const char *tuned(const tile_module *m, const char *text)
{
	static char bufs[4][4096];
	static int turn;
	char *out = bufs[turn++ & 3], *o = out;
	const char *p = text;
	while (*p && o < out + sizeof bufs[0] - 64) {
		if (!strncmp(p, "tile-tuning 1\n", 14)) {
			o += sprintf(o, "tile-tuning 2");
			p += 13;
		} else if (!strncmp(p, "kernel ", 7)) {
			char name[64];
			size_t n = strcspn(p + 7, " \n");
			snprintf(name, sizeof name, "%.*s", (int)n, p + 7);
			o += sprintf(o, "kernel %s identity %016llx", name,
				     (unsigned long long)tile_kernel_identity(m, tile_kernel_index(m, name)));
			p += 7 + n;
		}
		while (*p && *p != '\n' && o < out + sizeof bufs[0] - 64)
			*o++ = *p++;
		if (*p == '\n')
			*o++ = *p++;
	}
	*o = 0;
	return out;
}

/* Launches mm and returns the symbol the driver saw ("" on failure). */
static const char *launch_mm(tile_module *m, int config, tile_deviceptr x, int32_t M, int32_t N, int64_t K)
{
	static fake_launch l;
	void *args[4];
	args[0] = &x;
	args[1] = &M;
	args[2] = &N;
	args[3] = &K;
	if (tile_launch_config(m, 0, config, NULL, NULL, args, 4) != TILE_SUCCESS)
		return "";
	fake_last_launch(&l);
	return l.symbol;
}

/* Launches heur; the symbol the driver saw, "" on failure. */
static const char *launch_heur(tile_module *m, int config, int32_t K)
{
	static fake_launch l;
	tile_deviceptr x = 0x1000;
	void *args[2];
	args[0] = &x;
	args[1] = &K;
	if (tile_launch_config(m, 2, config, NULL, NULL, args, 2) != TILE_SUCCESS)
		return "";
	fake_last_launch(&l);
	return l.symbol;
}

/* Heuristics evaluated at launch: the config from the table, then the
 * variant whose EVEN_K the arguments give. */
static void test_heuristics(tile_module *m)
{
	tile_heuristic_info hi;
	CHECK_EQ_INT(tile_heuristic_count(m, 2), 1);
	CHECK_EQ_INT(tile_heuristic_count(m, 0), 0);
	CHECK(tile_heuristic_get_info(m, 2, 0, &hi) == TILE_SUCCESS && !strcmp(hi.name, "EVEN_K") &&
	      hi.program_size == sizeof even_k && !memcmp(hi.program, even_k, sizeof even_k));
	CHECK_EQ_INT(tile_heuristic_get_info(m, 2, 1, &hi), TILE_ERROR_INVALID_ARGUMENT);
	CHECK(strcmp(launch_heur(m, -1, 32), "h_c0_even") == 0);
	CHECK(strcmp(launch_heur(m, -1, 48), "h_c0_odd") == 0);    /* nearest 32: config 0; 48 % 32 != 0 */
	CHECK(strcmp(launch_heur(m, -1, 4096), "h_c1_even") == 0);
	CHECK(strcmp(launch_heur(m, 0, 4096), "h_c0_even") == 0);  /* explicit config */
	CHECK(strcmp(launch_heur(m, 0, 4100), "h_c0_odd") == 0);
	/* config 1 was compiled for EVEN_K True only */
	CHECK(strcmp(launch_heur(m, -1, 4100), "") == 0);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel heur: no variant's predicates hold");
}

/* Launches xent; the symbol the driver saw, "" on failure. */
static const char *launch_xent(tile_module *m, float smoothing)
{
	static fake_launch l;
	tile_deviceptr x = 0x1000;
	void *args[2];
	args[0] = &x;
	args[1] = &smoothing;
	if (tile_launch(m, 3, NULL, NULL, args, 2) != TILE_SUCCESS)
		return "";
	fake_last_launch(&l);
	return l.symbol;
}

/* A heuristic comparing a float argument: Python's smoothing > 0.0. */
static void test_float_heuristic(tile_module *m)
{
	tile_heuristic_info hi;
	CHECK(tile_heuristic_get_info(m, 3, 0, &hi) == TILE_SUCCESS && !strcmp(hi.name, "HAS_SMOOTHING") &&
	      hi.program_size == sizeof has_smoothing);
	CHECK(strcmp(launch_xent(m, 0.0f), "xent_plain") == 0);
	CHECK(strcmp(launch_xent(m, 0.1f), "xent_smooth") == 0);
	CHECK(strcmp(launch_xent(m, -0.0f), "xent_plain") == 0);
	CHECK(strcmp(launch_xent(m, NAN), "xent_plain") == 0);
	CHECK(strcmp(launch_xent(m, 1e-45f), "xent_smooth") == 0); /* the least fp32 subnormal */
	CHECK(strcmp(launch_xent(m, -0.1f), "xent_plain") == 0);
	CHECK(strcmp(launch_xent(m, INFINITY), "xent_smooth") == 0);
}

static int dispatch_mm(tile_module *m, int32_t M, int32_t N, int64_t K)
{
	tile_deviceptr x = 0x1000;
	void *args[4];
	args[0] = &x;
	args[1] = &M;
	args[2] = &N;
	args[3] = &K;
	return tile_dispatch_config(m, 0, args, 4);
}

static void test_dispatch(tile_module *m)
{
	void *args[2];
	tile_deviceptr x = 0x1000;
	int32_t n = 100;
	/* exact keys; config 1 by predicates */
	CHECK(strcmp(launch_mm(m, -1, 0x1000, 64, 64, 64), "mm_c0_n8") == 0);
	CHECK(strcmp(launch_mm(m, -1, 0x1000, 1024, 1024, 1024), "mm_c1_x16") == 0);
	CHECK(strcmp(launch_mm(m, -1, 0x1004, 1024, 1024, 1024), "mm_c1") == 0);
	CHECK(strcmp(launch_mm(m, -1, 0x1000, 4096, 4096, 4096), "mm_c2") == 0);
	/* unseen keys: nearest in octaves (log2 differences summed); every
	 * entry's M is divisible by 16, so an M that is not weighs the same
	 * against each of them */
	CHECK_EQ_INT(dispatch_mm(m, 3000, 5000, 4000), 2);   /* 0.77 octaves from 4096s, 5.8 from 1024s */
	CHECK_EQ_INT(dispatch_mm(m, 100, 70, 64), 0);
	CHECK_EQ_INT(dispatch_mm(m, 600, 700, 2000), 1);     /* 2.3 from 1024s, 6.3 from 4096s */
	CHECK_EQ_INT(dispatch_mm(m, 1 << 30, 1 << 30, (int64_t)1 << 40), 2);
	CHECK_EQ_INT(dispatch_mm(m, -5, 0, 0), 0);           /* log 0: nearest is 64s */
	/* between two entries, the nearer in ratio: 1536 is 0.415 octaves
	 * from 2048, 0.585 from 1024 (one bit length with 1024) */
	CHECK_EQ_INT(dispatch_mm(m, 2560, 2560, 2560), 2);   /* 0.68 octaves from 4096s, 1.32 from 1024s */
	CHECK_EQ_INT(dispatch_mm(m, 1800, 1800, 1800), 1);   /* 0.81 from 1024s, 1.19 from 4096s */
	/* a tie: the first entry */
	CHECK_EQ_INT(dispatch_mm(m, 256, 256, 256), 0);      /* 2 octaves from 64 and from 1024, in each dim */
	CHECK(strcmp(launch_mm(m, -1, 0x1000, 3000, 5000, 4000), "mm_c2") == 0);
	/* explicit configs */
	CHECK(strcmp(launch_mm(m, 0, 0x1000, 4096, 4096, 4096), "mm_c0_n8") == 0);
	CHECK(strcmp(launch_mm(m, 0, 0x1000, 4096, 4092, 4096), "mm_c0") == 0);
	CHECK(strcmp(launch_mm(m, 1, 0x1004, 4096, 4096, 4096), "mm_c1") == 0);
	CHECK(strcmp(launch_mm(m, 2, 0x1000, 64, 64, 64), "mm_c2") == 0);
	CHECK(strcmp(launch_mm(m, 3, 0x1000, 64, 64, 64), "") == 0);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel mm has 3 configs, not config 3");
	CHECK(strcmp(launch_mm(m, -2, 0x1000, 64, 64, 64), "") == 0);
	/* an empty table: the default config */
	args[0] = &x;
	args[1] = &n;
	CHECK_EQ_INT(tile_dispatch_config(m, 1, args, 2), 1);
	CHECK_EQ_INT(tile_launch(m, 1, NULL, NULL, args, 2), TILE_SUCCESS);
	{
		fake_launch l;
		fake_last_launch(&l);
		CHECK(strcmp(l.symbol, "flat_b") == 0 && l.grid[0] == 4);
	}
	CHECK_EQ_INT(tile_config_count(m, 0), 3);
	CHECK_EQ_INT(tile_config_count(m, 1), 2);
	CHECK_EQ_INT(tile_config_count(m, 2), 2);
	CHECK_EQ_INT(tile_config_count(m, 3), 1);
	CHECK_EQ_INT(tile_config_count(m, 4), -1);
	CHECK_EQ_INT(tile_dispatch_config(m, 0, args, 2), -1); /* wrong argument count */
}

/* Every config loaded once, then dispatching launches at exact, bucketed
 * and default keys: no allocation, no lock of the module's mutex. */
static void test_no_lock_no_allocation(tile_module *m)
{
	void *args[2];
	tile_deviceptr x = 0x1000;
	int32_t n = 77;
	int i, launched = 0;
	for (i = 0; i < 3; i++)
		launch_mm(m, i, 0x1000, 64, 64, 64);
	launch_mm(m, 1, 0x1004, 64, 64, 64);
	args[0] = &x;
	args[1] = &n;
	tile_launch(m, 1, NULL, NULL, args, 2);
	launch_heur(m, -1, 32);
	launch_heur(m, -1, 48);
	launch_heur(m, -1, 4096);
	allocations = 0;
	watched_locks = 0;
	watched_lock = &m->lock;
	for (i = 0; i < 300; i++) {
		static const int32_t ms[5] = {64, 1024, 4096, 3000, 123};
		launched += launch_mm(m, -1, (i & 1) ? 0x1004 : 0x1000, ms[i % 5], ms[(i / 5) % 5], ms[i % 3])[0] != 0;
		launched += tile_launch(m, 1, NULL, NULL, args, 2) == TILE_SUCCESS;
		launched += launch_heur(m, -1, (i % 3) == 0 ? 32 : (i % 3) == 1 ? 48 : 4096)[0] != 0;
	}
	watched_lock = NULL;
	CHECK_EQ_INT(launched, 900);
	CHECK_EQ_INT(allocations, 0);
	CHECK_EQ_INT(watched_locks, 0);
}

static void test_runtime_tables(tile_module *m)
{
	tile_tuning_info ti;
	int64_t keys[8];
	int config;
	const char *good = "# measured on a fake GPU\n"
			   "tile-tuning 1\n"
			   "kernel mm configs 3 key M,N,K default 2   # comment\n"
			   "4096 4096 4096 0\n"
			   "\n"
			   "64 64 64 2\n"
			   "kernel flat configs 2 key n default 0\n";
	CHECK_EQ_INT(tile_tuning_get_info(m, 0, &ti), TILE_SUCCESS);
	CHECK(ti.runtime == 0 && ti.n_entries == 3 && ti.n_keys == 3 && ti.default_config == 1);
	CHECK_EQ_INT(tile_tuning_apply(m, tuned(m, good), 0), TILE_SUCCESS);
	CHECK_EQ_INT(tile_tuning_get_info(m, 0, &ti), TILE_SUCCESS);
	CHECK(ti.runtime == 1 && ti.n_entries == 2 && ti.default_config == 2);
	CHECK_EQ_INT(tile_tuning_get_entry(m, 0, 0, keys, &config), TILE_SUCCESS); /* sorted */
	CHECK(keys[0] == 64 && keys[2] == 64 && config == 2);
	CHECK_EQ_INT(tile_tuning_get_entry(m, 0, 2, keys, &config), TILE_ERROR_INVALID_ARGUMENT);
	CHECK(strcmp(launch_mm(m, -1, 0x1000, 64, 64, 64), "mm_c2") == 0);
	CHECK(strcmp(launch_mm(m, -1, 0x1000, 4096, 4096, 4096), "mm_c0_n8") == 0);
	CHECK_EQ_INT(dispatch_mm(m, 1024, 1024, 1024), 0); /* bit lengths 11: 6 from the 4096s, 12 from the 64s */
	{
		void *args[2];
		tile_deviceptr x = 0;
		int32_t n = 5;
		args[0] = &x;
		args[1] = &n;
		CHECK_EQ_INT(tile_dispatch_config(m, 1, args, 2), 0);
	}
	/* refused files leave the tables as they were */
	{
		static const struct {
			const char *text;
			tile_status st;
			const char *msg;
		} bad[] = {
			{"tile-tuning 3\n", TILE_ERROR_INVALID_ARGUMENT, "line 1: expected 'tile-tuning 2'"},
			{"tile-tuning 1\nkernel nope configs 3 key M default 0\n", TILE_ERROR_NOT_FOUND, "no kernel 'nope'"},
			{"tile-tuning 1\nkernel mm configs 4 key M default 0\n", TILE_ERROR_INVALID_ARGUMENT, "measured with 4 configs, the blob has 3"},
			{"tile-tuning 1\nkernel mm configs 3 key M default 3\n", TILE_ERROR_INVALID_ARGUMENT, "needs 'default D' with D < 3"},
			{"tile-tuning 1\nkernel mm configs 3 key x default 0\n", TILE_ERROR_INVALID_ARGUMENT, "key 'x' is not an integer parameter"},
			{"tile-tuning 1\nkernel mm configs 3 key M,M default 0\n", TILE_ERROR_INVALID_ARGUMENT, "key 'M' given twice"},
			{"tile-tuning 1\nkernel mm configs 3 key M default 0\n5 1\n5 2\n", TILE_ERROR_INVALID_ARGUMENT, "a key appears twice"},
			{"tile-tuning 1\nkernel mm configs 3 key M default 0\n5 3\n", TILE_ERROR_INVALID_ARGUMENT, "line 3: config 3"},
			{"tile-tuning 1\nkernel mm configs 3 key M default 0\n5 1 1\n", TILE_ERROR_INVALID_ARGUMENT, "line 3: 3 fields"},
			{"tile-tuning 1\nkernel mm configs 3 key M default 0\n5x 1\n", TILE_ERROR_INVALID_ARGUMENT, "'5x' is not an integer"},
			{"tile-tuning 1\nkernel mm configs 3 key M default 0\nkernel mm configs 3 key M default 0\n",
			 TILE_ERROR_INVALID_ARGUMENT, "kernel mm appears twice"},
			{"tile-tuning 1\nkernel flat configs 2 key n default 1\nkernel mm configs 3 default 0\n",
			 TILE_ERROR_INVALID_ARGUMENT, "needs 'key P1,P2,...'"},
			{"tile-tuning 1\n4 4\n", TILE_ERROR_INVALID_ARGUMENT, "expected 'kernel NAME ...'"},
		};
		size_t i;
		for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
			const char *text = tuned(m, bad[i].text);
			CHECK_EQ_INT(tile_tuning_apply(m, text, strlen(text)), bad[i].st);
			CHECK_STR_CONTAINS(tile_last_error(), bad[i].msg);
		}
		CHECK_EQ_INT(tile_tuning_get_info(m, 1, &ti), TILE_SUCCESS);
		CHECK(ti.runtime == 1 && ti.default_config == 0); /* not the refused file's default 1 */
	}
	CHECK_EQ_INT(tile_tuning_apply(m, NULL, 0), TILE_ERROR_INVALID_ARGUMENT);
}

/* Tuning files carry the identity of the kernel they were measured on: a
 * file of another build of mm with as many configs (config 2 at 8 warps;
 * a BLOCK of another value; the configs in another order) is refused,
 * naming both identities, a version 1 file (no identity) and a kernel line
 * without one too; the identity does not depend on the table, and a
 * matching file applies. */
static void test_identity(tile_module *m)
{
	static const char *const what[3] = {"num_warps", "constexpr", "config order"};
	const char *file = "tile-tuning 1\nkernel mm configs 3 key M,N,K default 2\n64 64 64 0\n";
	uint64_t id = tile_kernel_identity(m, 0);
	tile_tuning_info before, ti;
	tb_blob d;
	uint8_t *b;
	size_t n;
	int i;
	char ids[2][17];
	CHECK(id != 0 && id != tile_kernel_identity(m, 1));
	CHECK(tile_kernel_identity(m, 99) == 0 && tile_kernel_identity(NULL, 0) == 0);
	CHECK_EQ_INT(tile_tuning_get_info(m, 0, &before), TILE_SUCCESS);
	/* the table is not part of it: the blob without entries has the same identity */
	describe(&d, 0, good_entries);
	n = tb_build(&d, &b);
	{
		tile_module *e = NULL;
		if (CHECK(tile_module_create(b, n, &e) == TILE_SUCCESS)) {
			CHECK(tile_kernel_identity(e, 0) == id);
			tile_module_destroy(e);
		}
	}
	free(b);
	for (i = 0; i < 3; i++) {
		tile_module *other = NULL;
		describe(&d, 3, good_entries);
		if (i == 0)
			d.kernels[0].variants[3].num_warps = 8;
		else if (i == 1)
			d.kernels[0].variants[0].cx[0].value = 96;
		else
			d.kernels[0].variants[0].config = 2, d.kernels[0].variants[4].config = 2, d.kernels[0].variants[3].config = 0;
		n = tb_build(&d, &b);
		if (CHECK(tile_module_create(b, n, &other) == TILE_SUCCESS)) {
			CHECK(tile_kernel_identity(other, 0) != id);
			CHECK_EQ_INT(tile_tuning_apply(m, tuned(other, file), 0), TILE_ERROR_INVALID_ARGUMENT);
			snprintf(ids[0], sizeof ids[0], "%016llx", (unsigned long long)tile_kernel_identity(other, 0));
			snprintf(ids[1], sizeof ids[1], "%016llx", (unsigned long long)id);
			CHECK_STR_CONTAINS(tile_last_error(), "tuning line 2: kernel mm: the file was tuned for identity");
			CHECK_STR_CONTAINS(tile_last_error(), ids[0]);
			CHECK_STR_CONTAINS(tile_last_error(), ids[1]);
			CHECK_STR_CONTAINS(tile_last_error(), "re-run tile-tune with this blob");
			if (i == 0) /* the other blob takes its own file */
				CHECK_EQ_INT(tile_tuning_apply(other, tuned(other, file), 0), TILE_SUCCESS);
			tile_module_destroy(other);
		} else {
			fprintf(stderr, "%s: %s\n", what[i], tile_last_error());
		}
		free(b);
	}
	CHECK_EQ_INT(tile_tuning_apply(m, file, 0), TILE_ERROR_INVALID_ARGUMENT); /* as written: version 1 */
	CHECK_STR_CONTAINS(tile_last_error(), "tuning line 1: a version 1 file ('tile-tuning 1') does not record the identity "
			   "of the blob it was tuned for: re-run tile-tune with this blob");
	CHECK_EQ_INT(tile_tuning_apply(m, "tile-tuning 2\nkernel mm configs 3 key M default 0\n", 0), TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "tuning line 2: kernel mm: needs 'identity H'");
	CHECK_EQ_INT(tile_tuning_apply(m, "tile-tuning 2\nkernel mm identity 12345 configs 3 key M default 0\n", 0),
		     TILE_ERROR_INVALID_ARGUMENT);
	CHECK_STR_CONTAINS(tile_last_error(), "unknown or bad field 'identity 12345'");
	/* nothing applied by the refused files */
	CHECK_EQ_INT(tile_tuning_get_info(m, 0, &ti), TILE_SUCCESS);
	CHECK(ti.runtime == before.runtime && ti.n_entries == before.n_entries && ti.default_config == before.default_config);
	/* the matching file, upper-case hex too */
	{
		char text[256];
		snprintf(text, sizeof text, "tile-tuning 2\nkernel mm identity %016llX configs 3 key M,N,K default 2\n64 64 64 0\n",
			 (unsigned long long)id);
		CHECK_EQ_INT(tile_tuning_apply(m, text, 0), TILE_SUCCESS);
		CHECK_EQ_INT(tile_tuning_get_info(m, 0, &ti), TILE_SUCCESS);
		CHECK(ti.runtime == 1 && ti.n_entries == 1 && ti.default_config == 2);
		CHECK_EQ_INT(dispatch_mm(m, 64, 64, 64), 0);
	}
}

/* The nearest entry prefers the launch's divisibility by 16 on M (a :16
 * predicate of config 1's first variant) over the distance in octaves; N
 * and K (no :16 variant; N's :8 one holds for every N here) count by
 * distance only. */
static void test_alignment(tile_module *m)
{
	const char *text = "tile-tuning 1\n"
			   "kernel mm configs 3 key M,N,K default 1\n"
			   "2048 2048 2048 0\n"
			   "1000 1000 1000 2\n"; /* 1000 % 16 == 8 */
	CHECK_EQ_INT(tile_tuning_apply(m, tuned(m, text), 0), TILE_SUCCESS);
	/* unaligned M: the unaligned entry, 4.8 octaves away, over the aligned one, 1.7 away */
	CHECK_EQ_INT(dispatch_mm(m, 3000, 3000, 3000), 2);
	CHECK(strcmp(launch_mm(m, -1, 0x1000, 3000, 3000, 3000), "mm_c2") == 0);
	CHECK_EQ_INT(dispatch_mm(m, 3000, 2048, 2048), 2);
	/* aligned M: the aligned entry, 3 octaves away, over the unaligned one, 0.03 away */
	CHECK_EQ_INT(dispatch_mm(m, 1008, 1008, 1008), 0);
	CHECK_EQ_INT(dispatch_mm(m, 4000, 4000, 4000), 0);
	/* N and K unaligned but never specialized: distance decides */
	CHECK_EQ_INT(dispatch_mm(m, 2048, 3000, 3000), 0);
	/* counted, N and K would make the aligned entry 2 off, the unaligned one 1 */
	CHECK_EQ_INT(dispatch_mm(m, 1024, 1000, 1000), 0);
	/* exact keys are exact whatever their alignment */
	CHECK_EQ_INT(dispatch_mm(m, 1000, 1000, 1000), 2);
}

/* N has a :8 predicate (config 0's variant mm_c0_n8) and no :16 one: the
 * nearest entry prefers the launch's divisibility of N by 8, and only by
 * 8. */
static void test_alignment8(tile_module *m)
{
	const char *text = "tile-tuning 1\n"
			   "kernel mm configs 3 key M,N,K default 1\n"
			   "2048 1004 2048 2\n" /* 1004 % 8 == 4 */
			   "2048 2048 2048 0\n";
	CHECK_EQ_INT(tile_tuning_apply(m, tuned(m, text), 0), TILE_SUCCESS);
	/* N not divisible by 8: the entry whose N is not either, 1.6 octaves away, over 0.55 */
	CHECK_EQ_INT(dispatch_mm(m, 2048, 3004, 2048), 2);
	/* N divisible by 8: the entry whose N is too, 1 octave away, over 0.02 */
	CHECK_EQ_INT(dispatch_mm(m, 2048, 1016, 2048), 0);
	/* and by 16 or by 8 alone alike (1032 % 16 == 8) */
	CHECK_EQ_INT(dispatch_mm(m, 2048, 1032, 2048), 0);
	/* however near the other entry: 2044 is 0.003 octaves from 2048 */
	CHECK_EQ_INT(dispatch_mm(m, 2048, 2044, 2048), 2);
}

/* Blobs whose tables break a rule: refused with the rule named. */
static void test_table_validation(void)
{
	tb_blob d;
	uint8_t *b;
	size_t n;
	tile_module *m = NULL;
	static const int64_t unsorted[] = {1024, 1024, 1024, 1, 64, 64, 64, 0};
	static const int64_t duplicate[] = {64, 64, 64, 0, 64, 64, 64, 1};
	static const int64_t out_of_range[] = {64, 64, 64, 3};
	static const int64_t negative[] = {64, 64, 64, -1};
	static const uint8_t two_dims[] = {2, 0x01, 1, 0x01, 1};
	static const uint8_t reads_float[] = {1, 0x03, 1};
	static const struct {
		int what;
		const char *msg;
	} cases[] = {
		{0, "kernel 0: tuning entry 1: keys not in ascending order"},
		{1, "kernel 0: tuning entry 1: the same key as the entry before"},
		{2, "kernel 0: tuning entry 0: config 3 (it has 3)"},
		{3, "kernel 0: tuning entry 0: config -1"},
		{4, "kernel 0: default config 3 (it has 3)"},
		{5, "kernel 0: key 0 names parameter 0, not a visible integer parameter"},
		{6, "kernel 0: key 1 repeats parameter 1"},
		{7, "variant 3: config 3 (kernel 0 has 3)"},
		{8, "kernel 0: config 2 has no variant"},
		{9, "kernel 0: 0 configs"},
		{10, "kernel 1: 1 tuning entries but no key"},
		{11, "kernel 2: heuristic 0: variant 9 has no int or bool constexpr 'EVEN_K'"},
		{12, "kernel 2: heuristic 0: a program of 2 results (1)"},
		{13, "kernel 2: heuristic 0: constexpr 1 is not an int or bool at byte 1"},
		{14, "kernel 2: heuristic 0: program 42+200 outside grid_code"},
		{15, "kernel 2: heuristic 1: 'EVEN_K' computed twice"},
		{16, "kernel 3: heuristic 0: float comparison operand 0x1e (a comparison 0..5, bits 3 and 4 its float operands, "
		     "one at least) at byte 12"},
		{17, "kernel 3: heuristic 0: parameter 0 is not an fp16, bf16, fp32 or fp64 float at byte 1"},
	};
	size_t i;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		switch (cases[i].what) {
		case 0: describe(&d, 2, unsorted); break;
		case 1: describe(&d, 2, duplicate); break;
		case 2: describe(&d, 1, out_of_range); break;
		case 3: describe(&d, 1, negative); break;
		default: describe(&d, 3, good_entries); break;
		}
		switch (cases[i].what) {
		case 4: d.kernels[0].default_config = 3; break;
		case 5: d.kernels[0].keys[0] = 0; break;
		case 6: d.kernels[0].keys[1] = 1; break;
		case 7: d.kernels[0].variants[3].config = 3; break;
		case 8: d.kernels[0].variants[3].config = 1; break;
		case 9: d.kernels[0].n_configs = 0; break; /* written as 1: patched below */
		case 10: d.kernels[1].n_keys = 0; d.kernels[1].n_entries = 1; d.kernels[1].entries[0] = 0; break;
		case 11: d.kernels[2].variants[2].cx[1].name = "ODD"; break;
		case 12: d.kernels[2].heuristics[0].code = two_dims; d.kernels[2].heuristics[0].size = sizeof two_dims; break;
		case 13: d.kernels[2].heuristics[0].code = reads_float; d.kernels[2].heuristics[0].size = sizeof reads_float;
			 d.kernels[2].variants[0].cx[1].kind = 1; break;
		case 14: break; /* patched below */
		case 15: d.kernels[2].n_heuristics = 2; d.kernels[2].heuristics[1] = d.kernels[2].heuristics[0]; break;
		case 16: d.kernels[3].heuristics[0].code = bad_fcmp; break;
		case 17: d.kernels[3].heuristics[0].code = bad_farg; break;
		default: break;
		}
		n = tb_build(&d, &b);
		if (cases[i].what == 9) {
			tb_set32(b + tb_layout_of(b).kernels + 20, 0);
			tb_fix_crc(b, n);
		}
		if (cases[i].what == 14) {
			tb_set32(b + tb_layout_of(b).heuristics + 8, 200);
			tb_fix_crc(b, n);
		}
		CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_ERROR_BAD_BLOB);
		CHECK_STR_CONTAINS(tile_last_error(), cases[i].msg);
		free(b);
	}
	/* the kernels' key ranges must follow one another */
	describe(&d, 3, good_entries);
	n = tb_build(&d, &b);
	tb_set32(b + tb_layout_of(b).kernels + 52 + 28, 0);
	tb_fix_crc(b, n);
	CHECK_EQ_INT(tile_module_create(b, n, &m), TILE_ERROR_BAD_BLOB);
	CHECK_STR_CONTAINS(tile_last_error(), "kernel 1: first_key 0 (expected 3");
	free(b);
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The cost of a dispatch over 256 entries: a hit (binary search) and a
 * miss (the scan over the table). Printed, and bounded loosely. */
static void measure(void)
{
	static int64_t e[256 * 4];
	int i, sink = 0;
	double t0, hit, miss;
	const int reps = 200000;
	for (i = 0; i < 256; i++) {
		e[4 * i] = 64 * (i / 16 + 1);
		e[4 * i + 1] = 64 * (i % 16 + 1);
		e[4 * i + 2] = 4096;
		e[4 * i + 3] = i % 3;
	}
	/* the loader's lookup on a table of 256 entries, directly */
	{
		tile__table t;
		int64_t key[3] = {512, 320, 4096};
		memset(&t, 0, sizeof t);
		t.n_keys = 3;
		t.n_entries = 256;
		t.aligned = 0x49; /* :16 on the three keys (bits 0, 3, 6) */
		t.words = e;
		t0 = now_ns();
		for (i = 0; i < reps; i++) {
			key[0] = 64 * ((i & 15) + 1);
			sink += (int)tile__table_lookup(&t, key);
		}
		hit = (now_ns() - t0) / reps;
		key[2] = 3000;
		t0 = now_ns();
		for (i = 0; i < reps / 20; i++) {
			key[0] = 64 * ((i & 15) + 1) + 1;
			sink += (int)tile__table_lookup(&t, key);
		}
		miss = (now_ns() - t0) / (reps / 20);
		key[0] = 512;
		key[1] = 320;
		key[2] = 4096;
		CHECK_EQ_INT(tile__table_lookup(&t, key), (uint32_t)((7 * 16 + 4) % 3));
	}
	printf("dispatch over 256 entries (3 keys): %.1f ns a hit (binary search), %.1f ns a miss (table scan) [%d]\n", hit,
	       miss, sink & 1);
	CHECK(hit < 5000 && miss < 100000);
}

int main(void)
{
	static const int cc[1] = {80};
	tb_blob d;
	tile_module *m = NULL;
	void *real = dlsym(RTLD_NEXT, "pthread_mutex_lock");
	memcpy(&real_mutex_lock, &real, sizeof real);
	open_fake();
	fake_set_devices(1, cc);
	describe(&d, 3, good_entries);
	blob_size = tb_build(&d, &blob);
	if (CHECK(tile_module_create(blob, blob_size, &m) == TILE_SUCCESS)) {
		test_dispatch(m);
		test_no_lock_no_allocation(m);
		test_runtime_tables(m);
		test_identity(m);
		test_alignment(m);
		test_alignment8(m);
		test_heuristics(m);
		test_float_heuristic(m);
		tile_module_destroy(m);
	} else {
		fprintf(stderr, "%s\n", tile_last_error());
	}
	free(blob);
	test_table_validation();
	measure();
	return check_report("test_loader_fake");
}
