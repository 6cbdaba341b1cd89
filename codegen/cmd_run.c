/* cmd_run.c - `tilec run`: run a kernel on the CPU with the reference
 * interpreter.
 *
 * The kernel is specialized exactly as `tilec compile` would (signature,
 * constexprs, num_warps), then each runtime parameter takes one --arg in
 * order: a scalar value, or a host buffer of COUNT elements of the
 * pointer's element type, zeroed, filled with a deterministic pseudo-random
 * sequence, with 0, 1, 2, ..., or read from a raw little-endian file. After
 * the run, --out writes buffers back to files and --print shows their first
 * elements. Errors of the kernel (an out-of-bounds access, a division by
 * zero) are diagnostics naming the source line, and exit status 1.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "front/front.h"
#include "compile.h"
#include "passes/passes.h"

static const char usage_text[] =
	"usage: tilec run FILE -n KERNEL -s SIGNATURE -g X[,Y[,Z]] [--arg SPEC]... [options]\n"
	"\n"
	"Runs a @triton.jit kernel on the CPU with tile's reference interpreter.\n"
	"\n"
	"  -n, --kernel NAME      the kernel to run\n"
	"  -s, --signature SIG    Triton AOT signature over all parameters, constexprs as\n"
	"                         values: \"*fp32:16, *fp32:16, i32, 1024\"\n"
	"  -D NAME=VALUE          a constexpr (repeatable; overrides the signature)\n"
	"  --bind NAME=VALUE      a module-level name that host code computes, given as a\n"
	"                         Triton module or object by its dotted path\n"
	"                         (triton.language.extra.libdevice.rsqrt) or a literal;\n"
	"                         NAME may be qualified by its module (tilec compile --help)\n"
	"  -c, --config N         take the constexprs and num_warps of autotune config N\n"
	"                         (0-based) of the kernel; -D and -w override them\n"
	"  -w, --num-warps N      num_warps of the specialization (default 4)\n"
	"  -nc N                  split each program's blocks over a cluster of N (2, 4, 8)\n"
	"                         CTAs, as tilec compile does for sm_90 and newer, and run\n"
	"                         the CTAs one after another (a warning and one CTA per\n"
	"                         program where the blocks cannot be split)\n"
	"  -g, --grid X[,Y[,Z]]   the launch grid (programs per axis)\n"
	"  --pipelined[=registers|=wgmma]\n"
	"                         run the program the passes make of the loads that feed\n"
	"                         dots (tilec ir --help), with -ns NUM_STAGES (default 3).\n"
	"                         With =wgmma a loop of tl.range(..., warp_specialize=True)\n"
	"                         runs as its two sides do: the producer's copies and the\n"
	"                         scalars they read apart from the consumers' program, the\n"
	"                         rings shared, each copy's slot and phase checked\n"
	"  --producer-lag N       with =wgmma: the producer's iteration j runs before the\n"
	"                         consumers' iteration j + N (default 0: as far ahead as\n"
	"                         its rings let it; up to the copies issued before the loop)\n"
	"  -I DIR                 look for imported Python modules (from mypkg.ops import\n"
	"                         helper) in DIR too, after the kernel's directory\n"
	"  --debug                run tl.device_assert/assert (a false one stops the run\n"
	"                         with its message) and tl.device_print/print (to stdout)\n"
	"  --arg SPEC             the argument of the next runtime parameter, in order:\n"
	"                           scalar parameters:  a number: 1000, -3, 0.5\n"
	"                           pointer parameters: buf:COUNT[:INIT] with INIT one of\n"
	"                             zeros (default), random, arange, file=PATH\n"
	"                           or buf:file=PATH (COUNT from the file's size)\n"
	"                         elements have the pointer's type; files are raw little-endian\n"
	"  --seed N               seed of 'random' (default 1): floats uniform in [-1, 1),\n"
	"                         signed ints in [-100, 100), unsigned in [0, 100)\n"
	"  --out PARAM=PATH       after the run, write PARAM's buffer (raw bytes) to PATH\n"
	"  --print PARAM[:N]      after the run, print the first N (default 16) elements\n"
	"                         of PARAM's buffer\n"
	"  -h, --help             this text\n"
	"\n"
	"PARAM is a runtime parameter's name or its index among the runtime parameters\n"
	"(the --arg order, from 0). Exit status: 0 on success, 1 when the kernel fails to\n"
	"compile or run (diagnostics on stderr), 2 on a bad command line.\n"
	"\n"
	"example:\n"
	"  tilec run vector_add.py -n add_kernel -s '*fp32:16, *fp32:16, *fp32:16, i32, 1024' \\\n"
	"      -g 4 --arg buf:4000:random --arg buf:4000:arange --arg buf:4000 --arg 4000 --print output_ptr:8\n";

enum { MAX_LIST = 64 };

typedef struct run_opts {
	const char *file, *kernel, *signature;
	fe_define defines[MAX_LIST];
	int ndefines, num_warps, num_ctas, config;
	fe_define binds[MAX_LIST]; /* --bind */
	int nbinds;
	uint32_t grid[3];
	bool have_grid;
	const char *args[MAX_LIST];
	int nargs;
	const char *outs[MAX_LIST];
	int nouts;
	const char *prints[MAX_LIST];
	int nprints;
	uint64_t seed;
	bool debug;
	const char *incs[MAX_LIST]; /* -I DIR: where imported modules are looked for */
	int nincs;
	bool pipelined; /* --pipelined: the passes' program, with these options */
	pipeline_options po;
	int num_stages, producer_lag;
} run_opts;

static int bad_usage(const char *fmt, ...) TILE_PRINTF(1, 2);

static int bad_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "tilec run: error: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n(tilec run --help for usage)\n");
	va_end(ap);
	return 2;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		return false;
	*out = v;
	return true;
}

static bool parse_grid(const char *s, uint32_t grid[3])
{
	grid[0] = grid[1] = grid[2] = 1;
	for (int i = 0; i < 3; i++) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(s, &end, 10);
		if (errno || end == s || *s == '-' || v > UINT32_MAX)
			return false;
		grid[i] = (uint32_t)v;
		if (!*end)
			return true;
		if (*end != ',')
			return false;
		s = end + 1;
	}
	return false;
}

/* Options may come before or after FILE. Returns 0 or an exit status. */
static int parse_args(int argc, char **argv, run_opts *o)
{
	o->seed = 1;
	o->config = -1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKES_VALUE() \
	do { \
		if (!v) \
			return bad_usage("option '%s' needs a value", a); \
		i++; \
	} while (0)
#define PUSH(list, n) \
	do { \
		if (n == MAX_LIST) \
			return bad_usage("too many '%s' options", a); \
		list[n++] = v; \
	} while (0)
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			return -1;
		} else if (!strcmp(a, "-n") || !strcmp(a, "--kernel")) {
			TAKES_VALUE();
			o->kernel = v;
		} else if (!strcmp(a, "-s") || !strcmp(a, "--signature")) {
			TAKES_VALUE();
			o->signature = v;
		} else if (!strcmp(a, "-D") || !strcmp(a, "--bind")) {
			TAKES_VALUE();
			const char *eq = strchr(v, '=');
			bool def = a[1] == 'D';
			int *n = def ? &o->ndefines : &o->nbinds;
			if (!eq || eq == v || *n == MAX_LIST)
				return bad_usage(def ? "bad constexpr '%s' (want NAME=VALUE)" : "bad --bind '%s' (want NAME=VALUE)", v);
			fe_define *d = def ? &o->defines[(*n)++] : &o->binds[(*n)++];
			d->name = strndup(v, (size_t)(eq - v));
			d->value = eq + 1;
			if (!d->name)
				return bad_usage("%s", "out of memory");
		} else if (!strcmp(a, "-w") || !strcmp(a, "--num-warps")) {
			TAKES_VALUE();
			uint64_t w;
			if (!parse_u64(v, &w) || w == 0 || w > 32 || (w & (w - 1)))
				return bad_usage("bad num_warps '%s' (a power of two up to 32)", v);
			o->num_warps = (int)w;
		} else if (!strcmp(a, "-nc")) {
			TAKES_VALUE();
			uint64_t c;
			if (!parse_u64(v, &c) || c == 0 || c > 8 || (c & (c - 1)))
				return bad_usage("bad num_ctas '%s' (1, 2, 4 or 8)", v);
			o->num_ctas = (int)c;
		} else if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
			TAKES_VALUE();
			uint64_t c;
			if (!parse_u64(v, &c) || c > 1024)
				return bad_usage("bad autotune config '%s' (a non-negative index)", v);
			o->config = (int)c;
		} else if (cmd_pipelined(a, &o->po)) {
			o->pipelined = true;
		} else if (!strcmp(a, "-ns")) {
			TAKES_VALUE();
			uint64_t n;
			if (!parse_u64(v, &n) || n == 0 || n > 8)
				return bad_usage("bad num_stages '%s' (1 to 8)", v);
			o->num_stages = (int)n;
		} else if (!strcmp(a, "--producer-lag")) {
			TAKES_VALUE();
			char *end;
			errno = 0;
			long n = strtol(v, &end, 10);
			if (errno || end == v || *end || n < -64 || n > 64)
				return bad_usage("bad --producer-lag '%s' (an integer)", v);
			o->producer_lag = (int)n;
		} else if (!strcmp(a, "--debug")) {
			o->debug = true;
		} else if (!strcmp(a, "-I")) {
			TAKES_VALUE();
			PUSH(o->incs, o->nincs);
		} else if (!strcmp(a, "-g") || !strcmp(a, "--grid")) {
			TAKES_VALUE();
			if (!parse_grid(v, o->grid))
				return bad_usage("bad grid '%s' (want X[,Y[,Z]])", v);
			o->have_grid = true;
		} else if (!strcmp(a, "--arg")) {
			TAKES_VALUE();
			PUSH(o->args, o->nargs);
		} else if (!strcmp(a, "--out")) {
			TAKES_VALUE();
			PUSH(o->outs, o->nouts);
		} else if (!strcmp(a, "--print")) {
			TAKES_VALUE();
			PUSH(o->prints, o->nprints);
		} else if (!strcmp(a, "--seed")) {
			TAKES_VALUE();
			if (!parse_u64(v, &o->seed))
				return bad_usage("bad seed '%s'", v);
		} else if (a[0] == '-' && a[1]) {
			return bad_usage("unknown option '%s'", a);
		} else if (o->file) {
			return bad_usage("more than one FILE ('%s')", a);
		} else {
			o->file = a;
		}
#undef TAKES_VALUE
#undef PUSH
	}
	if (!o->file)
		return bad_usage("%s", "no kernel FILE given");
	if (!o->kernel)
		return bad_usage("%s", "no kernel name given (-n KERNEL)");
	if (!o->have_grid)
		return bad_usage("%s", "no grid given (-g X[,Y[,Z]])");
	return 0;
}

/* splitmix64: a small, well-mixed deterministic sequence. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static bool read_file(const char *path, unsigned char **data, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	bool ok = fseek(f, 0, SEEK_END) == 0;
	long n = ok ? ftell(f) : -1;
	ok = n >= 0 && fseek(f, 0, SEEK_SET) == 0;
	*data = ok ? malloc((size_t)n + 1) : NULL;
	ok = *data && fread(*data, 1, (size_t)n, f) == (size_t)n;
	fclose(f);
	if (!ok) {
		free(*data);
		*data = NULL;
		return false;
	}
	*size = (size_t)n;
	return true;
}

/* Builds the buffer of a pointer parameter from "buf:COUNT[:INIT]". */
static int make_buffer(const char *spec, const char *pname, ir_kind k, uint64_t *seed, interp_buffer *out)
{
	size_t esize = (size_t)ir_kind_bytes(k);
	if (strncmp(spec, "buf:", 4))
		return bad_usage("pointer parameter '%s' needs --arg buf:COUNT[:INIT]", pname);
	const char *p = spec + 4;
	if (!strncmp(p, "file=", 5)) {
		unsigned char *data;
		size_t size;
		if (!read_file(p + 5, &data, &size)) {
			fprintf(stderr, "tilec run: error: cannot read '%s': %s\n", p + 5, strerror(errno));
			return 1;
		}
		if (size % esize) {
			free(data);
			fprintf(stderr, "tilec run: error: '%s' holds %zu bytes, not a whole number of %s elements\n", p + 5,
				size, ir_kind_name(k));
			return 1;
		}
		out->data = data;
		out->size = size;
		return 0;
	}
	char *end;
	errno = 0;
	unsigned long long count = strtoull(p, &end, 10);
	if (errno || end == p || *p == '-' || (*end && *end != ':') || count > (UINT64_C(1) << 36) / esize)
		return bad_usage("bad buffer size in '%s'", spec);
	const char *init = *end ? end + 1 : "zeros";
	size_t size = (size_t)count * esize;
	if (!strncmp(init, "file=", 5)) {
		unsigned char *data;
		size_t fsize;
		if (!read_file(init + 5, &data, &fsize)) {
			fprintf(stderr, "tilec run: error: cannot read '%s': %s\n", init + 5, strerror(errno));
			return 1;
		}
		if (fsize != size) {
			free(data);
			fprintf(stderr, "tilec run: error: '%s' holds %zu bytes, %s needs %zu\n", init + 5, fsize, spec, size);
			return 1;
		}
		out->data = data;
		out->size = size;
		return 0;
	}
	bool random = !strcmp(init, "random"), arange = !strcmp(init, "arange");
	if (!random && !arange && strcmp(init, "zeros"))
		return bad_usage("unknown buffer contents '%s' (zeros, random, arange, file=PATH)", init);
	unsigned char *data = calloc(size ? size : 1, 1);
	if (!data)
		return bad_usage("%s", "out of memory");
	out->data = data;
	out->size = size;
	for (size_t i = 0; i < count && (random || arange); i++) {
		interp_scalar v;
		if (ir_kind_is_float(k)) {
			v.f = arange ? (double)i : (double)(next_random(seed) >> 11) * 0x1p-52 - 1.0;
			if (ir_kind_is_fp8(k)) /* fp8 elements are their bytes */
				v.u = ir_fp8_from_f32(k, (float)v.f, IR_FP8_SM90);
		} else {
			uint64_t r = arange ? i : next_random(seed) % (ir_kind_is_signed(k) ? 200 : k == IR_I1 ? 2 : 100);
			v.i = arange || !ir_kind_is_signed(k) ? (int64_t)r : (int64_t)r - 100;
		}
		interp_write(k, data + i * esize, v);
	}
	return 0;
}

static int make_scalar(const char *spec, const char *pname, ir_kind k, interp_scalar *out)
{
	char *end;
	errno = 0;
	if (ir_kind_is_float(k)) {
		out->f = strtod(spec, &end);
	} else if (!strcmp(spec, "True") || !strcmp(spec, "true")) {
		out->i = 1;
		end = (char *)spec + strlen(spec);
	} else if (!strcmp(spec, "False") || !strcmp(spec, "false")) {
		out->i = 0;
		end = (char *)spec + strlen(spec);
	} else if (ir_kind_is_signed(k) || k == IR_I1) {
		out->i = strtoll(spec, &end, 0);
	} else {
		out->u = strtoull(spec, &end, 0);
	}
	if (errno || end == spec || *end)
		return bad_usage("bad value '%s' for %s parameter '%s'", spec, ir_kind_name(k), pname);
	return 0;
}

/* A PARAM of --out/--print: a runtime parameter's name or index. */
static int find_param(const ir_func *f, const char *s, size_t len)
{
	for (int i = 0; i < f->nparams; i++)
		if (f->params[i].name && strlen(f->params[i].name) == len && !strncmp(f->params[i].name, s, len))
			return i;
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s + len && len && v >= 0 && v < f->nparams)
		return (int)v;
	return -1;
}

static void print_buffer(const ir_func *f, int p, const interp_buffer *b, size_t n)
{
	ir_kind k = (ir_kind)f->params[p].type.pointee;
	size_t esize = (size_t)ir_kind_bytes(k), count = b->size / esize;
	if (n > count)
		n = count;
	printf("%s[0:%zu] (%s, %zu elements):", f->params[p].name ? f->params[p].name : "?", n, ir_kind_name(k), count);
	for (size_t i = 0; i < n; i++) {
		interp_scalar v = interp_read(k, (const unsigned char *)b->data + i * esize);
		if (ir_kind_is_fp8(k))
			printf(" %.9g", ir_fp8_to_f32(k, (uint8_t)v.u));
		else if (ir_kind_is_float(k))
			printf(" %.9g", v.f);
		else if (ir_kind_is_signed(k) || k == IR_I1)
			printf(" %" PRId64, v.i);
		else
			printf(" %" PRIu64, v.u);
	}
	printf("\n");
}

static bool write_file(const char *path, const interp_buffer *b)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return false;
	bool ok = fwrite(b->data, 1, b->size, f) == b->size;
	return fclose(f) == 0 && ok;
}

/* After the run: --out and --print, in the order given. */
static int report(const run_opts *o, const ir_func *f, const interp_buffer *bufs, const int *buf_of)
{
	for (int pass = 0; pass < 2; pass++) {
		const char *const *list = pass ? o->prints : o->outs;
		int n = pass ? o->nprints : o->nouts;
		for (int i = 0; i < n; i++) {
			const char *s = list[i];
			const char *sep = pass ? strchr(s, ':') : strchr(s, '=');
			size_t len = sep ? (size_t)(sep - s) : strlen(s);
			int p = find_param(f, s, len);
			if (p < 0 || buf_of[p] < 0)
				return bad_usage("'%s' names no pointer parameter", s);
			const interp_buffer *b = &bufs[buf_of[p]];
			if (!pass) {
				if (!sep || !sep[1])
					return bad_usage("bad --out '%s' (want PARAM=PATH)", s);
				if (!write_file(sep + 1, b)) {
					fprintf(stderr, "tilec run: error: cannot write '%s': %s\n", sep + 1, strerror(errno));
					return 1;
				}
				continue;
			}
			uint64_t count = 16;
			if (sep && !parse_u64(sep + 1, &count))
				return bad_usage("bad element count in --print '%s'", s);
			print_buffer(f, p, b, (size_t)count);
		}
	}
	return 0;
}

static int run_kernel(const run_opts *o, tilec_ctx *ctx, arena *a)
{
	fe_module *m;
	ir_func *f;
	fe_spec spec = {.kernel = o->kernel, .signature = o->signature, .defines = o->defines, .ndefines = o->ndefines,
			.num_warps = o->num_warps, .debug = o->debug, .include_dirs = o->incs, .ninclude_dirs = o->nincs,
			.binds = o->binds, .nbinds = o->nbinds};
	if (fe_load(ctx, a, o->file, &m))
		return 1;
	if (o->config >= 0) {
		/* the config's constexprs and options first; -D and -w win */
		if (fe_config_get(ctx, m, o->kernel, o->config, &spec) ||
		    fe_config_override(a, &spec, o->defines, o->ndefines, o->num_warps))
			return 1;
	}
	if (o->num_ctas)
		spec.num_ctas = o->num_ctas;
	if (o->num_stages)
		spec.num_stages = o->num_stages;
	spec.tensormaps = o->pipelined && o->po.tensormaps; /* =wgmma: sm_90a's code path */
	if (fe_specialize(ctx, a, m, &spec, &f))
		return 1;
	const char *why = f->num_ctas > 1 ? cluster_refusal(f, f->num_ctas) : NULL;
	if (why) { /* as tilec compile: one CTA per program */
		fprintf(stderr, "tilec run: warning: num_ctas=%d is run as one CTA per program: %s\n", f->num_ctas, why);
		f->num_ctas = 1;
	} else if (f->num_ctas > 1 && cluster_split(ctx, f)) {
		return 1;
	}
	if (o->pipelined && compile_pipeline(ctx, a, f, &o->po))
		return 1;
	if (o->nargs != f->nparams) {
		fprintf(stderr, "tilec run: error: kernel '%s' has %d runtime parameter(s), %d --arg given\n", o->kernel,
			f->nparams, o->nargs);
		for (int i = 0; i < f->nparams; i++) {
			strbuf sb;
			sb_init(&sb);
			ir_type_str(&sb, f->params[i].type);
			fprintf(stderr, "  %d: %s %s\n", i, f->params[i].name ? f->params[i].name : "?", sb_str(&sb));
			sb_free(&sb);
		}
		return 2;
	}
	interp_buffer bufs[MAX_LIST];
	interp_arg args[MAX_LIST];
	int buf_of[MAX_LIST], nbufs = 0, rc = 0;
	uint64_t seed = o->seed;
	memset(args, 0, sizeof args);
	for (int i = 0; i < f->nparams && !rc; i++) {
		const char *name = f->params[i].name ? f->params[i].name : "?";
		buf_of[i] = -1;
		if (f->params[i].type.kind == IR_PTR) {
			rc = make_buffer(o->args[i], name, (ir_kind)f->params[i].type.pointee, &seed, &bufs[nbufs]);
			if (!rc)
				buf_of[i] = args[i].buffer = nbufs++;
		} else {
			args[i].buffer = -1;
			rc = make_scalar(o->args[i], name, (ir_kind)f->params[i].type.kind, &args[i].value);
		}
	}
	if (!rc && (o->pipelined ? interp_run_split(ctx, f, o->grid, bufs, nbufs, args, o->producer_lag)
				 : interp_run(ctx, f, o->grid, bufs, nbufs, args)))
		rc = 1;
	fputs(tilec_device_output(ctx), stdout); /* device prints, also those before a failed assertion */
	if (!rc)
		rc = report(o, f, bufs, buf_of);
	for (int i = 0; i < nbufs; i++)
		free(bufs[i].data);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	run_opts o;
	memset(&o, 0, sizeof o);
	int rc = parse_args(argc, argv, &o);
	if (rc == 0) {
		tilec_ctx *ctx = tilec_ctx_new();
		arena *a = arena_new();
		if (!ctx || !a) {
			fprintf(stderr, "tilec run: error: out of memory\n");
			rc = 1;
		} else {
			rc = run_kernel(&o, ctx, a);
			fputs(tilec_diagnostics(ctx), stderr);
		}
		arena_free(a);
		tilec_ctx_free(ctx);
	}
	for (int i = 0; i < o.ndefines; i++)
		free((char *)o.defines[i].name);
	for (int i = 0; i < o.nbinds; i++)
		free((char *)o.binds[i].name);
	return rc < 0 ? 0 : rc;
}
