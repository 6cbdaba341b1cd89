/* tile_tune.c - tile-tune: measures the autotune configs of a blob's kernels
 * on the GPU it runs on and writes a tuning file (docs/TUNING.md).
 *
 * Not part of tile.h: a program built from tile.h and the C that `tilec
 * compile` generated for an autotuned kernel, on the target machine, where
 * neither Python nor LLVM is needed:
 *
 *     cc -O2 -std=c11 -I. -DTILE_TUNE_BLOB=matmul tools/tile-tune/tile_tune.c matmul.c -ldl -lpthread -o tile-tune
 *
 * (TILE_TUNE_BLOB is the blob's C name, the NAME of NAME_module()). For each
 * shape (--key NAME=V,..., repeated, or --shapes FILE with one such list a
 * line) it evaluates the kernel's arguments (--arg NAME=EXPR: for a pointer
 * the number of elements to allocate, filled with uniform values in [-1, 1)
 * for float element types and zeros otherwise; for a scalar its value; an
 * integer parameter named by the key takes the key's value; a TMA tensor
 * map is refused: the blob lacks the block shape to encode it), then times
 * every config through tile_launch_config the way triton.testing.do_bench
 * does: five runs to estimate, warm-up runs filling --warmup milliseconds,
 * then runs filling --rep milliseconds, each after a 256 MiB memset that
 * flushes L2, timed with CUDA events, the median kept. Buffers autotune
 * lists in reset_to_zero are zeroed before each run and those in
 * restore_value copied back after it, inside the timed region, as Triton's
 * hooks do. A config that cannot launch (too much shared memory for this
 * device, predicates that the arguments break) is reported and skipped.
 * It prints a progress line per shape and a table, and writes the entries
 * (the fastest config per shape) and the default (the config whose time,
 * relative to each shape's best, sums lowest) under the kernel's identity
 * (tile_kernel_identity: the file applies to this build of the kernel
 * only); configs are the blob's,
 * numbered as tilec compiled them (the file says which autotune config of
 * the source each one is). --once launches the dispatched config once at
 * the first shape (after --tuning FILE is applied) and exits: a fresh
 * process's time to its first result.
 *
 * The driver's memory, copy and event calls come from libcuda.so.1, opened
 * here as tile.h opens it (dlopen), so the program needs no CUDA headers. */
#define _GNU_SOURCE
#define TILE_IMPLEMENTATION
#include "tile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef TILE_TUNE_BLOB
#error "define TILE_TUNE_BLOB as the blob's C name (the NAME of NAME_module in the generated .h)"
#endif
#define TT_CAT2(a, b) a##b
#define TT_CAT(a, b) TT_CAT2(a, b)
tile_status TT_CAT(TILE_TUNE_BLOB, _module)(tile_module **out);

static struct {
	int (*cuInit)(unsigned);
	int (*cuDeviceGet)(int *, int);
	int (*cuDeviceGetName)(char *, int, int);
	int (*cuDevicePrimaryCtxRetain)(void **, int);
	int (*cuCtxSetCurrent)(void *);
	int (*cuCtxSynchronize)(void);
	int (*cuMemAlloc_v2)(unsigned long long *, size_t);
	int (*cuMemFree_v2)(unsigned long long);
	int (*cuMemcpyHtoD_v2)(unsigned long long, const void *, size_t);
	int (*cuMemcpyDtoDAsync_v2)(unsigned long long, unsigned long long, size_t, void *);
	int (*cuMemsetD8Async)(unsigned long long, unsigned char, size_t, void *);
	int (*cuEventCreate)(void **, unsigned);
	int (*cuEventRecord)(void *, void *);
	int (*cuEventSynchronize)(void *);
	int (*cuEventElapsedTime)(float *, void *, void *);
	int (*cuEventDestroy_v2)(void *);
} cu;

static void die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "tile-tune: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "\n");
	exit(1);
}

#define CU(call) do { int r_ = (call); if (r_) { char n_[16]; snprintf(n_, sizeof n_, "%d", r_); die("%s failed: CUDA error %s", #call, n_); } } while (0)

static void open_driver(void)
{
	static const char *const names[] = {"cuInit", "cuDeviceGet", "cuDeviceGetName", "cuDevicePrimaryCtxRetain",
					    "cuCtxSetCurrent", "cuCtxSynchronize", "cuMemAlloc_v2", "cuMemFree_v2",
					    "cuMemcpyHtoD_v2", "cuMemcpyDtoDAsync_v2", "cuMemsetD8Async", "cuEventCreate",
					    "cuEventRecord", "cuEventSynchronize", "cuEventElapsedTime", "cuEventDestroy_v2"};
	const char *lib = getenv("TILE_TUNE_LIBCUDA") ? getenv("TILE_TUNE_LIBCUDA") : "libcuda.so.1";
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	void **slots = (void **)(void *)&cu;
	size_t i;
	if (!h)
		die("cannot open the CUDA driver (%s): %s", lib, dlerror());
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		void *p = dlsym(h, names[i]);
		if (!p)
			die("the CUDA driver has no %s%s", names[i], "");
		memcpy(&slots[i], &p, sizeof p);
	}
}

/* ---- expressions: integers, names, + - * / % ( ) ------------------------- */

#define TT_MAX_VARS 64
static const char *var_name[TT_MAX_VARS];
static int64_t var_value[TT_MAX_VARS];
static int n_vars;

static void set_var(const char *name, size_t len, int64_t v)
{
	int i;
	for (i = 0; i < n_vars; i++)
		if (strlen(var_name[i]) == len && !strncmp(var_name[i], name, len)) {
			var_value[i] = v;
			return;
		}
	if (n_vars == TT_MAX_VARS)
		die("more than %s names%s", "64", "");
	var_name[n_vars] = strndup(name, len);
	var_value[n_vars++] = v;
}

static int get_var(const char *name, size_t len, int64_t *v)
{
	int i;
	for (i = 0; i < n_vars; i++)
		if (strlen(var_name[i]) == len && !strncmp(var_name[i], name, len)) {
			*v = var_value[i];
			return 1;
		}
	return 0;
}

typedef struct expr {
	const char *s, *p;
	const char *err;
} expr;

static int64_t e_sum(expr *e);

static void e_space(expr *e)
{
	while (*e->p == ' ')
		e->p++;
}

static int64_t e_atom(expr *e)
{
	int64_t v = 0;
	e_space(e);
	if (*e->p == '(') {
		e->p++;
		v = e_sum(e);
		e_space(e);
		if (*e->p != ')')
			e->err = "missing )";
		else
			e->p++;
	} else if (*e->p == '-') {
		e->p++;
		v = -e_atom(e);
	} else if (*e->p >= '0' && *e->p <= '9') {
		char *end;
		v = strtoll(e->p, &end, 0);
		e->p = end;
	} else if ((*e->p >= 'a' && *e->p <= 'z') || (*e->p >= 'A' && *e->p <= 'Z') || *e->p == '_') {
		const char *s = e->p;
		while ((*e->p >= 'a' && *e->p <= 'z') || (*e->p >= 'A' && *e->p <= 'Z') || *e->p == '_' ||
		       (*e->p >= '0' && *e->p <= '9'))
			e->p++;
		if (!get_var(s, (size_t)(e->p - s), &v))
			e->err = "an unknown name (give it with --key or --arg)";
	} else {
		e->err = "a number, a name or ( expected";
	}
	return v;
}

static int64_t e_prod(expr *e)
{
	int64_t v = e_atom(e);
	for (;;) {
		e_space(e);
		char op = *e->p;
		if (op != '*' && op != '/' && op != '%')
			return v;
		e->p++;
		int64_t w = e_atom(e);
		if (op == '*')
			v *= w;
		else if (w == 0)
			e->err = "division by zero";
		else
			v = op == '/' ? v / w : v % w;
	}
}

static int64_t e_sum(expr *e)
{
	int64_t v = e_prod(e);
	for (;;) {
		e_space(e);
		if (*e->p == '+')
			e->p++, v += e_prod(e);
		else if (*e->p == '-')
			e->p++, v -= e_prod(e);
		else
			return v;
	}
}

static int64_t eval(const char *what, const char *s)
{
	expr e = {s, s, NULL};
	int64_t v = e_sum(&e);
	e_space(&e);
	if (!e.err && *e.p)
		e.err = "unexpected text";
	if (e.err) {
		fprintf(stderr, "tile-tune: %s: '%s': %s at '%s'\n", what, s, e.err, e.p);
		exit(1);
	}
	return v;
}

/* ---- the kernel's arguments ---------------------------------------------- */

typedef struct arg {
	tile_param_info info;
	const char *expr;             /* --arg's, or NULL */
	union { uint64_t u; int64_t i; double d; float f; uint16_t h; uint8_t b; } value;
	unsigned long long dptr, saved; /* a pointer's buffer; restore_value's copy */
	size_t bytes;
} arg;

#define TT_MAX_ARGS 64
static arg args[TT_MAX_ARGS];
static int n_args;

static int elem_bytes(int dtype)
{
	static const int bytes[16] = {0, 1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 1, 1};
	return dtype > 0 && dtype < 16 ? bytes[dtype] : 1;
}

static uint16_t to_half(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t sign = (x >> 16) & 0x8000, mant = x & 0x7fffff;
	int exp = (int)((x >> 23) & 0xff) - 127 + 15;
	if (exp <= 0)
		return (uint16_t)sign;
	return (uint16_t)(sign | (uint32_t)exp << 10 | (mant + 0x1000) >> 13);
}

static void fill(arg *a, size_t n)
{
	size_t i, eb = (size_t)elem_bytes(a->info.dtype);
	uint8_t *h = (uint8_t *)calloc(n ? n : 1, eb);
	uint32_t r = 0x12345u + (uint32_t)n;
	if (!h)
		die("out of host memory for %s%s", a->info.name, "");
	for (i = 0; i < n; i++) {
		float f;
		r = r * 1664525u + 1013904223u;
		f = (float)(r >> 8) / 8388608.0f - 1.0f;
		switch (a->info.dtype) {
		case 10: { uint16_t v = to_half(f); memcpy(h + 2 * i, &v, 2); break; }
		case 11: { uint32_t x; memcpy(&x, &f, 4); uint16_t v = (uint16_t)((x + 0x8000) >> 16); memcpy(h + 2 * i, &v, 2); break; }
		case 12: memcpy(h + 4 * i, &f, 4); break;
		case 13: { double d = f; memcpy(h + 8 * i, &d, 8); break; }
		default: break;
		}
	}
	CU(cu.cuMemcpyHtoD_v2(a->dptr, h, n * eb));
	free(h);
}

/* Evaluates the arguments for the current key values; allocates buffers. */
static void setup_args(void)
{
	int i;
	for (i = 0; i < n_args; i++) {
		arg *a = &args[i];
		if (a->info.kind == 0) {
			int64_t n;
			if (!a->expr)
				die("pointer %s needs --arg %s=ELEMENTS", a->info.name, a->info.name);
			n = eval(a->info.name, a->expr);
			if (n < 0)
				die("%s: a negative element count%s", a->info.name, "");
			a->bytes = (size_t)n * (size_t)elem_bytes(a->info.dtype);
			CU(cu.cuMemAlloc_v2(&a->dptr, a->bytes ? a->bytes : 16));
			fill(a, (size_t)n);
			a->value.u = a->dptr;
			if (a->info.restore_value) {
				CU(cu.cuMemAlloc_v2(&a->saved, a->bytes ? a->bytes : 16));
				CU(cu.cuMemcpyDtoDAsync_v2(a->saved, a->dptr, a->bytes, NULL));
			}
		} else if (a->info.kind == 3) {
			double d;
			if (!a->expr)
				die("float %s needs --arg %s=VALUE", a->info.name, a->info.name);
			d = strtod(a->expr, NULL);
			if (a->info.size == 8)
				a->value.d = d;
			else if (a->info.size == 4)
				a->value.f = (float)d;
			else
				a->value.h = to_half((float)d);
		} else {
			int64_t v;
			if (a->expr)
				v = eval(a->info.name, a->expr);
			else if (!get_var(a->info.name, strlen(a->info.name), &v))
				die("no value for %s: give --arg %s=EXPR or a key value", a->info.name, a->info.name);
			a->value.u = 0;
			memcpy(&a->value, &v, (size_t)a->info.size); /* little-endian: the low bytes */
		}
	}
}

static void free_args(void)
{
	int i;
	for (i = 0; i < n_args; i++) {
		if (args[i].dptr)
			cu.cuMemFree_v2(args[i].dptr);
		if (args[i].saved)
			cu.cuMemFree_v2(args[i].saved);
		args[i].dptr = args[i].saved = 0;
	}
}

/* ---- timing, as triton.testing.do_bench ---------------------------------- */

static tile_module *mod;
static int kernel;
static unsigned long long flush_buf;
static const size_t flush_bytes = 256u << 20;

/* One call as Triton's autotuner makes it: reset_to_zero, launch, restore_value. */
static tile_status call(int config)
{
	void *ptrs[TT_MAX_ARGS];
	int i;
	tile_status st;
	for (i = 0; i < n_args; i++) {
		ptrs[i] = &args[i].value;
		if (args[i].info.reset_to_zero)
			CU(cu.cuMemsetD8Async(args[i].dptr, 0, args[i].bytes, NULL));
	}
	st = tile_launch_config(mod, kernel, config, NULL, NULL, ptrs, n_args);
	for (i = 0; i < n_args; i++)
		if (args[i].info.restore_value)
			CU(cu.cuMemcpyDtoDAsync_v2(args[i].dptr, args[i].saved, args[i].bytes, NULL));
	return st;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

static double warmup_ms = 25, rep_ms = 100;

/* Median milliseconds of config, or -1 (why in *why) when it cannot run. */
static double bench(int config, const char **why)
{
	void *e0, *e1, **starts, **ends;
	float ms, *times;
	double estimate;
	int i, n_warmup, n_repeat;
	tile_status st = call(config);
	if (st != TILE_SUCCESS || cu.cuCtxSynchronize() != 0) {
		*why = st ? tile_last_error() : "the launch failed on the device";
		return -1;
	}
	CU(cu.cuEventCreate(&e0, 0));
	CU(cu.cuEventCreate(&e1, 0));
	CU(cu.cuEventRecord(e0, NULL));
	for (i = 0; i < 5; i++) {
		CU(cu.cuMemsetD8Async(flush_buf, 0, flush_bytes, NULL));
		call(config);
	}
	CU(cu.cuEventRecord(e1, NULL));
	CU(cu.cuEventSynchronize(e1));
	CU(cu.cuEventElapsedTime(&ms, e0, e1));
	estimate = ms / 5 > 1e-6 ? ms / 5 : 1e-6;
	n_warmup = (int)(warmup_ms / estimate);
	n_repeat = (int)(rep_ms / estimate);
	n_warmup = n_warmup < 1 ? 1 : n_warmup;
	n_repeat = n_repeat < 1 ? 1 : n_repeat > 4000 ? 4000 : n_repeat;
	for (i = 0; i < n_warmup; i++)
		call(config);
	starts = (void **)calloc((size_t)n_repeat, sizeof *starts);
	ends = (void **)calloc((size_t)n_repeat, sizeof *ends);
	times = (float *)calloc((size_t)n_repeat, sizeof *times);
	if (!starts || !ends || !times)
		die("out of host memory%s%s", "", "");
	for (i = 0; i < n_repeat; i++) {
		CU(cu.cuEventCreate(&starts[i], 0));
		CU(cu.cuEventCreate(&ends[i], 0));
	}
	for (i = 0; i < n_repeat; i++) {
		CU(cu.cuMemsetD8Async(flush_buf, 0, flush_bytes, NULL));
		CU(cu.cuEventRecord(starts[i], NULL));
		call(config);
		CU(cu.cuEventRecord(ends[i], NULL));
	}
	CU(cu.cuCtxSynchronize());
	for (i = 0; i < n_repeat; i++) {
		CU(cu.cuEventElapsedTime(&times[i], starts[i], ends[i]));
		cu.cuEventDestroy_v2(starts[i]);
		cu.cuEventDestroy_v2(ends[i]);
	}
	qsort(times, (size_t)n_repeat, sizeof *times, cmp_float);
	ms = n_repeat % 2 ? times[n_repeat / 2] : (times[n_repeat / 2 - 1] + times[n_repeat / 2]) / 2;
	free(starts);
	free(ends);
	free(times);
	cu.cuEventDestroy_v2(e0);
	cu.cuEventDestroy_v2(e1);
	return ms;
}

/* ---- main ----------------------------------------------------------------- */

static const char usage[] =
	"usage: tile-tune --key NAME=V[,NAME=V...] [--key ...] [--shapes FILE] [--arg NAME=EXPR]...\n"
	"                 [--kernel NAME] [--flops EXPR] [--warmup MS] [--rep MS] [-o FILE]\n"
	"       tile-tune --once --key NAME=V,... [--tuning FILE] [--arg NAME=EXPR]...\n"
	"\n"
	"Times every autotune config of an autotuned kernel of the blob it was built\n"
	"with, at each shape, as triton.testing.do_bench does (L2 flushed, CUDA events,\n"
	"median), and writes the tuning file (default tuning.txt) that\n"
	"`tilec compile --tuning FILE` embeds and tile_tuning_apply() reads.\n"
	"  --key LIST     key values of one shape; names usable in --arg expressions\n"
	"  --shapes FILE  one LIST per line ('#' comments)\n"
	"  --arg N=EXPR   a pointer: elements to allocate; an integer: its value\n"
	"                 (EXPR over integers, key names, + - * / % and parentheses;\n"
	"                 integer parameters named by the key default to its value)\n"
	"  --flops EXPR   floating-point operations of one launch: TFLOP/s printed\n"
	"  --warmup MS, --rep MS   do_bench's budgets (25, 100)\n"
	"  --once         launch the dispatched config once at the first shape, print\n"
	"                 its config and exit (a fresh process's first result)\n"
	"  --tuning FILE  apply FILE's tables before --once\n"
	"  --device N     CUDA device (0)\n";

/* "0,1,2,5": each config's index in the source's autotune list (tilec
 * leaves out the configs that do not fit a target, and --config selects),
 * at most cap bytes. */
static void config_sources(int n_configs, char *buf, size_t cap)
{
	int c, v, n = tile_variant_count(mod, kernel);
	size_t at = 0;
	buf[0] = 0;
	for (c = 0; c < n_configs && at < cap; c++) {
		int src = -1;
		for (v = 0; v < n && src < 0; v++) {
			tile_variant_info vi;
			if (tile_variant_get_info(mod, kernel, v, &vi) == TILE_SUCCESS && vi.config == c)
				src = vi.source_config;
		}
		at += (size_t)snprintf(buf + at, cap - at, "%s%d", c ? "," : "", src);
	}
}

#define TT_MAX_SHAPES 256
static char *shapes[TT_MAX_SHAPES];
static int n_shapes;

static void add_shape(const char *s)
{
	if (n_shapes == TT_MAX_SHAPES)
		die("more than %s shapes%s", "256", "");
	shapes[n_shapes++] = strdup(s);
}

static void apply_shape(const char *s)
{
	const char *p = s;
	while (*p) {
		const char *eq = strchr(p, '='), *comma;
		if (!eq)
			die("--key wants NAME=V[,NAME=V...], not '%s'%s", s, "");
		comma = strchr(eq, ',');
		char buf[64];
		size_t n = comma ? (size_t)(comma - eq - 1) : strlen(eq + 1);
		if (n >= sizeof buf)
			die("a key value too long in '%s'%s", s, "");
		memcpy(buf, eq + 1, n);
		buf[n] = 0;
		set_var(p, (size_t)(eq - p), eval("--key", buf));
		p = comma ? comma + 1 : eq + 1 + n;
	}
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *t;
	long n;
	if (!f)
		die("cannot read %s%s", path, "");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	t = (char *)malloc((size_t)n + 1);
	if (!t || fread(t, 1, (size_t)n, f) != (size_t)n)
		die("cannot read %s%s", path, "");
	t[n] = 0;
	fclose(f);
	return t;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *kernel_name = NULL, *out_path = "tuning.txt", *flops_expr = NULL, *tuning_path = NULL;
	const char *arg_exprs[TT_MAX_ARGS * 2];
	int n_arg_exprs = 0, once = 0, device = 0, i, s, c, n_configs;
	char sources[1024];
	tile_tuning_info ti;
	double t_start = now_s();
	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(o, "--once")) {
			once = 1;
			continue;
		}
		if (!v)
			die("%s needs a value (tile-tune --help)%s", o, "");
		i++;
		if (!strcmp(o, "--key")) {
			add_shape(v);
		} else if (!strcmp(o, "--shapes")) {
			char *t = read_text(v), *line = t, *nl;
			for (; line && *line; line = nl ? nl + 1 : NULL) {
				char *hash, *b, *e;
				nl = strchr(line, '\n');
				if (nl)
					*nl = 0;
				if ((hash = strchr(line, '#')) != NULL)
					*hash = 0;
				for (b = line; *b == ' ' || *b == '\t'; b++)
					;
				for (e = b + strlen(b); e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'); e--)
					;
				*e = 0;
				if (*b)
					add_shape(b);
			}
			free(t);
		} else if (!strcmp(o, "--arg")) {
			const char *eq = strchr(v, '=');
			if (!eq || n_arg_exprs == TT_MAX_ARGS * 2)
				die("--arg wants NAME=EXPR, not '%s'%s", v, "");
			arg_exprs[n_arg_exprs++] = v;
		} else if (!strcmp(o, "--kernel")) {
			kernel_name = v;
		} else if (!strcmp(o, "--flops")) {
			flops_expr = v;
		} else if (!strcmp(o, "--warmup")) {
			warmup_ms = atof(v);
		} else if (!strcmp(o, "--rep")) {
			rep_ms = atof(v);
		} else if (!strcmp(o, "-o")) {
			out_path = v;
		} else if (!strcmp(o, "--tuning")) {
			tuning_path = v;
		} else if (!strcmp(o, "--device")) {
			device = atoi(v);
		} else {
			die("unknown option '%s' (tile-tune --help)%s", o, "");
		}
	}
	if (!n_shapes)
		die("no shape: give --key NAME=V,... or --shapes FILE%s%s", "", "");
	if (TT_CAT(TILE_TUNE_BLOB, _module)(&mod) != TILE_SUCCESS)
		die("cannot create the module: %s%s", tile_last_error(), "");
	for (kernel = 0; kernel < tile_kernel_count(mod); kernel++)
		if (kernel_name ? !strcmp(tile_kernel_name(mod, kernel), kernel_name) : tile_config_count(mod, kernel) > 1)
			break;
	if (kernel == tile_kernel_count(mod))
		die("the blob has no %s%s", kernel_name ? "kernel " : "autotuned kernel", kernel_name ? kernel_name : "");
	n_configs = tile_config_count(mod, kernel);
	config_sources(n_configs, sources, sizeof sources);
	n_args = 0;
	for (i = 0; i < tile_param_count(mod, kernel); i++) {
		arg *a = &args[n_args];
		int j;
		tile_param_get_info(mod, kernel, i, &a->info);
		if (a->info.hidden)
			continue;
		if (a->info.kind == 4)
			die("parameter %s is a TMA tensor map (the kernel reads a tensor descriptor with TMA): tile-tune cannot "
			    "build one, the blob does not record the descriptor's block shape%s", a->info.name, "");
		for (j = 0; j < n_arg_exprs; j++)
			if (!strncmp(arg_exprs[j], a->info.name, strlen(a->info.name)) && arg_exprs[j][strlen(a->info.name)] == '=')
				a->expr = arg_exprs[j] + strlen(a->info.name) + 1;
		n_args++;
	}
	for (i = 0; i < n_arg_exprs; i++) {
		int j, found = 0;
		for (j = 0; j < n_args; j++)
			found |= args[j].expr == arg_exprs[i] + strlen(args[j].info.name) + 1;
		if (!found)
			die("--arg %s: the kernel has no such parameter%s", arg_exprs[i], "");
	}
	open_driver();
	{
		int dev;
		void *ctx;
		char name[128];
		CU(cu.cuInit(0));
		CU(cu.cuDeviceGet(&dev, device));
		CU(cu.cuDevicePrimaryCtxRetain(&ctx, dev));
		CU(cu.cuCtxSetCurrent(ctx));
		CU(cu.cuDeviceGetName(name, sizeof name, dev));
		if (!once)
			printf("tile-tune: %s on %s: %d configs (the source's autotune configs %s), %d shapes\n",
			       tile_kernel_name(mod, kernel), name, n_configs, sources, n_shapes);
	}
	if (once) {
		void *ptrs[TT_MAX_ARGS];
		int cfg;
		if (tuning_path) {
			char *t = read_text(tuning_path);
			if (tile_tuning_apply(mod, t, 0) != TILE_SUCCESS)
				die("%s: %s", tuning_path, tile_last_error());
			free(t);
		}
		apply_shape(shapes[0]);
		setup_args();
		for (i = 0; i < n_args; i++)
			ptrs[i] = &args[i].value;
		cfg = tile_dispatch_config(mod, kernel, ptrs, n_args);
		if (tile_launch(mod, kernel, NULL, NULL, ptrs, n_args) != TILE_SUCCESS)
			die("launch: %s%s", tile_last_error(), "");
		CU(cu.cuCtxSynchronize());
		printf("first result: config %d in %.3f s (process start to synchronized result, less exec)\n", cfg, now_s() - t_start);
		free_args();
		return 0;
	}
	CU(cu.cuMemAlloc_v2(&flush_buf, flush_bytes));
	tile_tuning_get_info(mod, kernel, &ti);
	double *ms = (double *)calloc((size_t)n_shapes * (size_t)n_configs, sizeof *ms);
	int *best = (int *)calloc((size_t)n_shapes, sizeof *best);
	if (!ms || !best)
		die("out of host memory%s%s", "", "");
	double t0 = now_s();
	for (s = 0; s < n_shapes; s++) {
		double t_shape = now_s();
		apply_shape(shapes[s]);
		setup_args();
		best[s] = -1;
		for (c = 0; c < n_configs; c++) {
			const char *why = "";
			double t = bench(c, &why);
			ms[s * n_configs + c] = t;
			if (t < 0)
				printf("  shape %s: config %d skipped: %s\n", shapes[s], c, why);
			else if (best[s] < 0 || t < ms[s * n_configs + best[s]])
				best[s] = c;
		}
		free_args();
		if (best[s] < 0)
			die("shape %s: no config could run%s", shapes[s], "");
		printf("[%d/%d] %s: best config %d, %.4f ms", s + 1, n_shapes, shapes[s], best[s], ms[s * n_configs + best[s]]);
		if (flops_expr)
			printf(", %.1f TFLOP/s", (double)eval("--flops", flops_expr) / (ms[s * n_configs + best[s]] * 1e-3) / 1e12);
		printf(" (%.1f s)\n", now_s() - t_shape);
		fflush(stdout);
	}
	double tuning_s = now_s() - t0;
	/* the default: lowest sum of time relative to each shape's best */
	int def = 0;
	double def_score = -1;
	for (c = 0; c < n_configs; c++) {
		double score = 0;
		for (s = 0; s < n_shapes; s++) {
			double t = ms[s * n_configs + c];
			score += t < 0 ? 1e9 : t / ms[s * n_configs + best[s]];
		}
		if (def_score < 0 || score < def_score) {
			def_score = score;
			def = c;
		}
	}
	printf("\n| shape |");
	for (c = 0; c < n_configs; c++)
		printf(" c%d ms |", c);
	printf(" best |\n|---|");
	for (c = 0; c <= n_configs; c++)
		printf("---|");
	printf("\n");
	for (s = 0; s < n_shapes; s++) {
		printf("| %s |", shapes[s]);
		for (c = 0; c < n_configs; c++) {
			double t = ms[s * n_configs + c];
			if (t < 0)
				printf(" - |");
			else
				printf(c == best[s] ? " **%.4f** |" : " %.4f |", t);
		}
		printf(" %d |\n", best[s]);
	}
	printf("\ndefault config %d; tuning took %.1f s on the GPU\n", def, tuning_s);
	{
		FILE *f = fopen(out_path, "w");
		char name[128] = "";
		int dev = 0;
		if (!f)
			die("cannot write %s%s", out_path, "");
		cu.cuDeviceGet(&dev, device);
		cu.cuDeviceGetName(name, sizeof name, dev);
		fprintf(f, "# written by tile-tune on %s: medians in ms per config, as do_bench measures them\n", name);
		fprintf(f, "# configs 0..%d are the source's autotune configs %s\n", n_configs - 1, sources);
		/* the identity: tile_tuning_apply and tilec refuse the file for any other build of the kernel */
		fprintf(f, "tile-tuning %d\nkernel %s identity %016llx configs %d key ", TILE_TUNING_VERSION,
			tile_kernel_name(mod, kernel), (unsigned long long)tile_kernel_identity(mod, kernel), n_configs);
		for (i = 0; i < ti.n_keys; i++) {
			tile_param_info p;
			tile_param_get_info(mod, kernel, ti.key_params[i], &p);
			fprintf(f, "%s%s", i ? "," : "", p.name);
		}
		fprintf(f, "%s default %d\n", ti.n_keys ? "" : "-", def);
		int64_t *written = (int64_t *)calloc((size_t)n_shapes * TILE_TUNING_MAX_KEYS, sizeof *written);
		int n_written = 0;
		if (!written)
			die("out of host memory%s%s", "", "");
		for (s = 0; s < n_shapes && ti.n_keys; s++) {
			int64_t *kv = written + (size_t)n_written * TILE_TUNING_MAX_KEYS;
			int dup = 0, w;
			apply_shape(shapes[s]);
			for (i = 0; i < ti.n_keys; i++) {
				tile_param_info p;
				tile_param_get_info(mod, kernel, ti.key_params[i], &p);
				if (!get_var(p.name, strlen(p.name), &kv[i]))
					die("shape %s does not give key %s", shapes[s], p.name);
			}
			for (w = 0; w < n_written && !dup; w++)
				dup = !memcmp(written + (size_t)w * TILE_TUNING_MAX_KEYS, kv, sizeof *kv * (size_t)ti.n_keys);
			if (dup)
				continue; /* the same key twice: its first measurement stands */
			n_written++;
			for (i = 0; i < ti.n_keys; i++) {
				tile_param_info p;
				int64_t v;
				tile_param_get_info(mod, kernel, ti.key_params[i], &p);
				if (!get_var(p.name, strlen(p.name), &v))
					die("shape %s does not give key %s", shapes[s], p.name);
				fprintf(f, "%s%lld", i ? " " : "", (long long)v);
			}
			fprintf(f, " %d  #", best[s]);
			for (c = 0; c < n_configs; c++)
				fprintf(f, " %.4f", ms[s * n_configs + c]);
			fprintf(f, "\n");
		}
		free(written);
		fclose(f);
		printf("wrote %s\n", out_path);
	}
	cu.cuMemFree_v2(flush_buf);
	free(ms);
	free(best);
	tile_module_destroy(mod);
	return 0;
}
