/* cmd_compile.c - `tilec compile`: Triton kernels to one blob and a C pair.
 *
 * A compilation is a list of jobs, each one variant of one kernel: a .py
 * file, a kernel name, a signature, constexpr defines, a grid expression,
 * num_warps and num_stages. The command line makes one job per -s (several
 * -s give several variants of one kernel); a manifest (-m) makes one job per
 * line. A job of an @triton.autotune kernel becomes one job per config it
 * selects (--config LIST, default all). Jobs sharing a launch name become
 * the variants of one blob kernel: each variant records its config, the
 * loader picks the config through the kernel's tuning table (its key from
 * autotune's `key`, its entries from --tuning FILE) and then, among that
 * config's variants, the most specialized whose predicates hold; variants
 * of one config that differ only in constexprs are refused (nothing could
 * select them). Every job is specialized by the front end and grouped into
 * its launch function (group_variants: the checks, and the entry point
 * names), then all of them are lowered together into one module per arch
 * (compile_module, on -j threads, with progress lines on stderr when it is
 * a terminal). With --config all, compile_module reports the
 * variants that do not fit in shared memory instead of failing: their
 * configs are left out with a warning, the rest renumbered, and the jobs
 * left compiled again (compile_jobs). The blob's kernels and tuning tables
 * are then built from the jobs compiled (build_kernels), so a tuning file
 * is checked against the configs the blob has; blob_write packs them and
 * emit_c writes them. A failing job does not stop the others from being
 * checked, so one run reports every error; any error means no file is
 * written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "../tile.h"
#include "analysis/analysis.h"
#include "cmd.h"
#include "compile.h"
#include "front/front.h"

static const char usage_text[] =
	"usage: tilec compile FILE.py -n KERNEL -s SIGNATURE [-s SIGNATURE]... [options]\n"
	"       tilec compile -m MANIFEST -o OUT_BASE [options]\n"
	"\n"
	"Compiles @triton.jit kernels into one blob written as OUT_BASE.c and\n"
	"OUT_BASE.h: the blob, NAME_load/NAME_unload/NAME_module, and a launch\n"
	"function per kernel: tile_status KERNEL(tile_stream stream,\n"
	"[uint32_t grid_x, uint32_t grid_y, uint32_t grid_z,] parameters...).\n"
	"\n"
	"kernel options (on the command line they apply to every -s):\n"
	"  -n KERNEL          the @triton.jit function to compile\n"
	"  -s SIGNATURE       Triton's AOT signature: \"*fp32:16, *fp32, i32:16, 1024\",\n"
	"                     every parameter in order, :16 (divisible by 16) and :1\n"
	"                     (equal to 1) hints (and tile's :8 and :4, divisible by\n"
	"                     8 and 4), bare values for constexprs; or the\n"
	"                     runtime parameters only, constexprs then coming from -D.\n"
	"                     A TensorDescriptor is tensordesc<fp16[64, 64]>, with :16\n"
	"                     when its innermost shape is a multiple of 16.\n"
	"                     Repeat -s for variants of one launch function, chosen at\n"
	"                     run time by their hints (most specialized first).\n"
	"  -D NAME=VALUE      a constexpr's value (a Python literal or tl.float16 ...)\n"
	"  --bind NAME=VALUE  the value of a module-level name that host code computes\n"
	"                     (rsqrt = libdevice_find(\"rsqrt\")), which tilec does not\n"
	"                     run: a Triton module or object by its dotted path\n"
	"                     (triton.language.extra.libdevice.rsqrt), a dtype or a\n"
	"                     Python literal. NAME may be qualified by its module\n"
	"                     (flag_gems.utils.tl_extra_shim); a bare NAME is bound in\n"
	"                     every module. It shadows the module's own binding\n"
	"  -g GRID            grid expression over parameter and constexpr names,\n"
	"                     + - * // %, cdiv, min, max: \"cdiv(n_elements, BLOCK_SIZE)\";\n"
	"                     up to 3 comma-separated dimensions. Without -g the launch\n"
	"                     function takes grid_x, grid_y, grid_z.\n"
	"  -w NUM_WARPS       default 4 (Triton's launch default; compile.py's is 1)\n"
	"  -ns NUM_STAGES     default 3\n"
	"  -nc NUM_CTAS       CTAs per program, 1 (the default), 2, 4 or 8: on sm_90\n"
	"                     and newer each program runs as a thread block cluster\n"
	"                     of that many, its blocks split over them (Triton's\n"
	"                     num_ctas); a kernel whose blocks cannot be split so\n"
	"                     gets a warning and one CTA per program\n"
	"  --maxnreg N        at most N registers per thread (24 to 255; ptxas's\n"
	"                     .maxnreg, Triton's maxnreg option); default: ptxas\n"
	"                     chooses\n"
	"  -on OUT_NAME       the launch function's name (default: KERNEL)\n"
	"  --config LIST      with @triton.autotune, the configs to compile: all (the\n"
	"                     default), N, or N,M,...; they become configs 0, 1, ...\n"
	"                     of the launch function, chosen at run time through the\n"
	"                     kernel's tuning table (--tuning; default: the first);\n"
	"                     -D, -w and -ns override their values. With all, a\n"
	"                     config that needs more shared memory than a target's\n"
	"                     block may have is left out, with a warning\n"
	"\n"
	"output options:\n"
	"  -o OUT_BASE        output path without extension (default: OUT_NAME)\n"
	"  --name NAME        C name of the blob, NAME_load() (default: from OUT_BASE)\n"
	"  -m MANIFEST        compile every line of MANIFEST into one blob (below)\n"
	"  --tuning FILE      embed the tuning tables of FILE (written by tile-tune on\n"
	"                     the target GPU, docs/TUNING.md) for the autotuned kernels;\n"
	"                     each kernel's identity in FILE must be this build's\n"
	"  --arch LIST        cubin targets, default sm_80,sm_87,sm_90. sm_90 (Hopper)\n"
	"                     brings sm_90a along: the blob keeps sm_90a's cubin\n"
	"                     (wgmma, TMA) where a kernel uses them, else sm_90's\n"
	"                     (mma.sync); both load on compute capability 9.0 only;\n"
	"                     sm_90a alone is accepted too. A compute_XX entry sets\n"
	"                     the PTX target (default: the lowest sm; compute_90's is\n"
	"                     mma.sync code); compute_XX alone gives PTX only (the way\n"
	"                     to run mma.sync code on Hopper). Presets:\n"
	"                     orin (sm_87), thor (sm_110), hopper (sm_90),\n"
	"                     blackwell (sm_100,sm_120). Archs newer than LLVM's\n"
	"                     NVPTX knows (sm_100, sm_103, sm_110, sm_120, sm_121)\n"
	"                     get sm_90 PTX, assembled by ptxas for the real arch\n"
	"  --depfile FILE     also write a Make-syntax depfile: OUT_BASE.c and\n"
	"                     OUT_BASE.h depend on every file the compile read\n"
	"                     (the .py files, the manifest)\n"
	"  -I DIR             look for imported Python modules (from mypkg.ops import\n"
	"                     helper) in DIR too, after the kernel's directory\n"
	"  --debug            keep tl.device_assert/assert (a false one traps with its\n"
	"                     message) and tl.device_print/print (vprintf), which are\n"
	"                     left out otherwise (Triton's TRITON_DEBUG=1)\n"
	"  --no-ptx           no PTX image for forward compatibility\n"
	"  --no-hint-variants no variants of tilec's own: by default a variant whose\n"
	"                     loads or stores :8 or :4 on some of its unhinted integers\n"
	"                     would widen gets such a variant besides (the loader\n"
	"                     launches it where those arguments are divisible); not\n"
	"                     for a kernel given :8 or :4 hints by the user\n"
	"  --no-auto-warp-specialize\n"
	"                     on sm_90a, a producer warp group only for loops marked\n"
	"                     tl.range(..., warp_specialize=True): by default an\n"
	"                     attention-like loop (two dots or more, 8 warps, TMA\n"
	"                     rings filling the SM, 3 stages or more) gets one too\n"
	"  --no-reflect-ftz   libdevice's functions (tl.log, tl.sqrt, tl.rsqrt, tl.erf,\n"
	"                     libdevice.*) keep subnormal inputs and results: by\n"
	"                     default they flush them to zero, as Triton links\n"
	"                     libdevice (its enable_reflect_ftz option, on by\n"
	"                     default), which runs shorter code\n"
	"  --no-tma           on sm_90 and newer, copy the blocks of host-side tensor\n"
	"                     descriptors with cp.async, as elsewhere, instead of\n"
	"                     TMA through tensor maps the loader builds at launch\n"
	"  --keep-ptx DIR     also write the PTX as DIR/NAME.compute_XX.ptx and each\n"
	"                     cubin's as DIR/NAME.sm_XX.ptx (DIR is created); with\n"
	"                     --no-ptx, compute_XX's only where a cubin's lowering\n"
	"                     gives it (not --arch sm_90a alone)\n"
	"  --ptxas PATH       the ptxas to use (default: TILE_PTXAS, CUDA_HOME, PATH)\n"
	"  -v                 print registers, spills and shared memory per variant, and\n"
	"                     the first 2-D load a variant moves in pieces under 4 bytes\n"
	"  -j N, --jobs N     run up to N steps at once: each family of targets' LLVM\n"
	"                     lowering and O3, then each arch's PTX and ptxas (default:\n"
	"                     the CPUs tilec may run on, or 1 as a job of a parallel\n"
	"                     make (MAKEFLAGS with -jN or a jobserver), whose other\n"
	"                     jobs use the other CPUs; -j 1: one after the other);\n"
	"                     the output is the same for every N\n"
	"  -q                 no progress lines ([3/7] BLOB sm_90a (PTX, ptxas)), which\n"
	"                     are printed on stderr only when it is a terminal\n"
	"\n"
	"MANIFEST: one variant per line, FILE.py KERNEL SIGNATURE [kernel options];\n"
	"fields are separated by blanks, a field with blanks is quoted with \" or ',\n"
	"'#' starts a comment, relative paths are relative to the manifest. Lines\n"
	"with the same launch name (-on, default KERNEL) are variants of one kernel.\n"
	"  vector_add.py add_kernel \"*fp32:16, *fp32:16, *fp32:16, i32:16\" -D BLOCK_SIZE=1024 -g \"cdiv(n_elements, BLOCK_SIZE)\"\n"
	"  vector_add.py add_kernel \"*fp32:16, *fp32:16, *fp32:16, i32\" -D BLOCK_SIZE=1024 -g \"cdiv(n_elements, BLOCK_SIZE)\"\n";

/* One variant to compile, and what becomes of it. */
typedef struct job {
	const char *file, *kernel, *name, *signature, *grid;
	fe_define *defines;
	int ndefines, capdefines;
	fe_define *binds; /* --bind */
	int nbinds, capbinds;
	int num_warps, num_stages, config; /* 0 / -1: not given; config: the autotune config's index */
	int num_ctas;                      /* 0: not given */
	int maxnreg;                       /* 0: not given */
	const char *configs;               /* --config's text; NULL: all */
	int slot, nslots;                  /* the config's index in the blob kernel, and their number */
	int left_out;                      /* configs of the kernel left out (shared memory) */
	fe_heuristic *heur;                /* heuristics evaluated at launch, and their number */
	int nheur;
	const char *heur_values;           /* "EVEN_K=True;..." the values this job is compiled for */
	src_loc where;                     /* the manifest line; none on the command line */
	ir_func *func;
	blob_param *params;  /* the visible ones, then the derived maps (hidden) */
	int nparams;
	blob_recipe *recipes; /* the derived maps' (param: an index into params) */
	int nrecipes;
	uint8_t grid_code[GRIDEXPR_MAX_CODE];
	size_t grid_size;
	const char *symbol;   /* set once the job is placed in a kernel */
	blob_variant *variant;
	uint64_t pred_div16, pred_div8, pred_div4, pred_eq1; /* bit i: visible parameter i */
} job;

typedef struct loaded {
	const char *path;
	fe_module *module;
	tilec_status status;
} loaded;

typedef struct compile_cmd {
	tilec_ctx *ctx;
	arena *a;
	job *jobs;
	int njobs, capjobs;
	loaded *files;
	int nfiles, capfiles;
	const char *out_base, *blob_name, *manifest, *keep_ptx, *ptxas, *depfile, *tuning_path;
	tuning_file tuning;
	bool *tuning_used;
	int archs[16], narchs, ptx_arch;
	bool no_ptx, verbose, debug, quiet, no_tma, no_hint_variants, no_auto_warp_specialize, no_reflect_ftz;
	int threads; /* -j */
	const char *incs[16]; /* -I DIR: where imported Python modules are looked for */
	int nincs;
} compile_cmd;

static const src_loc no_loc = {0};

/* Kernels times variants in one blob (docs/LANGUAGE.md, limits). */
#define COMPILE_MAX_JOBS 1024
/* -j: more threads than a compile has steps only wait */
#define COMPILE_MAX_THREADS 1024

static job *new_job(compile_cmd *c)
{
	if (c->njobs == COMPILE_MAX_JOBS) {
		diag_error(c->ctx, no_loc, "more than %d kernels and variants in one blob", COMPILE_MAX_JOBS);
		return NULL;
	}
	if (!arena_grow(c->a, (void **)&c->jobs, &c->capjobs, c->njobs, sizeof(job)))
		return NULL;
	job *j = &c->jobs[c->njobs++];
	memset(j, 0, sizeof *j);
	j->config = -1;
	j->nslots = 1;
	return j;
}

static bool parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < lo || v > hi)
		return false;
	*out = (int)v;
	return true;
}

/* -D's and --bind's NAME=VALUE, appended to *list */
static bool add_define(compile_cmd *c, job *j, const char *opt, const char *text, fe_define **list, int *n, int *cap)
{
	const char *eq = strchr(text, '=');
	if (!eq || eq == text || !eq[1]) {
		diag_error(c->ctx, j->where, "%s wants NAME=VALUE, not '%s'", opt, text);
		return false;
	}
	if (!arena_grow(c->a, (void **)list, cap, *n, sizeof(fe_define)))
		return false;
	fe_define *d = &(*list)[(*n)++];
	d->name = arena_strndup(c->a, text, (size_t)(eq - text));
	d->value = arena_strdup(c->a, eq + 1);
	return d->name && d->value;
}

/* Kernel options shared by the command line and manifest lines. Returns
 * the number of arguments consumed (0: not a kernel option, -1: error). */
static int kernel_option(compile_cmd *c, job *j, int argc, char **argv, int i)
{
	const char *o = argv[i];
	if (!strncmp(o, "-D", 2) && o[2])
		return add_define(c, j, "-D", o + 2, &j->defines, &j->ndefines, &j->capdefines) ? 1 : -1;
	static const char *const with_value[] = {"-n", "-D", "-g", "-w", "-ns", "-nc", "-on", "--config", "--maxnreg",
						 "--bind"};
	bool known = false;
	for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
		known |= !strcmp(o, with_value[k]);
	if (!known)
		return 0;
	if (i + 1 >= argc) {
		diag_error(c->ctx, j->where, "%s needs a value", o);
		return -1;
	}
	const char *v = argv[i + 1];
	bool ok = true;
	if (!strcmp(o, "-n"))
		j->kernel = v;
	else if (!strcmp(o, "-D"))
		ok = add_define(c, j, "-D", v, &j->defines, &j->ndefines, &j->capdefines);
	else if (!strcmp(o, "--bind"))
		ok = add_define(c, j, "--bind", v, &j->binds, &j->nbinds, &j->capbinds);
	else if (!strcmp(o, "-g"))
		j->grid = v;
	else if (!strcmp(o, "-on"))
		j->name = v;
	else if (!strcmp(o, "-w") && !parse_int(v, 1, 32, &j->num_warps))
		diag_error(c->ctx, j->where, "-w wants a number of warps from 1 to 32, not '%s'", v), ok = false;
	else if (!strcmp(o, "-ns") && !parse_int(v, 1, 16, &j->num_stages))
		diag_error(c->ctx, j->where, "-ns wants a number of stages from 1 to 16, not '%s'", v), ok = false;
	else if (!strcmp(o, "-nc") && (!parse_int(v, 1, 8, &j->num_ctas) || (j->num_ctas & (j->num_ctas - 1))))
		diag_error(c->ctx, j->where, "-nc wants 1, 2, 4 or 8 CTAs per program, not '%s'", v), ok = false;
	else if (!strcmp(o, "--maxnreg") && !parse_int(v, IR_MAXNREG_MIN, IR_MAXNREG_MAX, &j->maxnreg))
		diag_error(c->ctx, j->where, "--maxnreg wants registers per thread from %d to %d, not '%s'", IR_MAXNREG_MIN,
			   IR_MAXNREG_MAX, v),
			ok = false;
	else if (!strcmp(o, "--config"))
		j->configs = v;
	return ok ? 2 : -1;
}

/* Named sets of targets, for the machines people ship to. */
static const struct {
	const char *name, *archs;
} arch_presets[] = {
	{"orin", "sm_87"},
	{"thor", "sm_110"},
	{"hopper", "sm_90"},
	{"blackwell", "sm_100,sm_120"},
};

static bool parse_archs(compile_cmd *c, const char *list)
{
	c->narchs = 0;
	c->ptx_arch = 0;
	/* presets expanded in place first */
	strbuf expanded;
	sb_init(&expanded);
	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		const char *with = NULL;
		for (size_t k = 0; k < sizeof arch_presets / sizeof arch_presets[0]; k++)
			if (strlen(arch_presets[k].name) == n && !strncmp(p, arch_presets[k].name, n))
				with = arch_presets[k].archs;
		if (p != list)
			sb_putc(&expanded, ',');
		if (with)
			sb_printf(&expanded, "%s", with);
		else
			sb_putn(&expanded, p, n);
		p += n + (e ? 1 : 0);
	}
	const char *all = arena_strdup(c->a, sb_str(&expanded));
	sb_free(&expanded);
	if (!all)
		return false;
	for (const char *p = all; *p;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char item[32];
		if (n == 0 || n >= sizeof item)
			goto bad;
		memcpy(item, p, n);
		item[n] = 0;
		const char *num = item;
		bool ptx = false;
		if (!strncmp(item, "sm_", 3))
			num = item + 3;
		else if (!strncmp(item, "compute_", 8))
			num = item + 8, ptx = true;
		char digits[32];
		snprintf(digits, sizeof digits, "%s", num);
		size_t nd = strlen(digits);
		bool specific = nd > 0 && digits[nd - 1] == 'a';
		if (specific)
			digits[nd - 1] = 0;
		int arch;
		if (!parse_int(digits, 50, 999, &arch)) {
			diag_error(c->ctx, no_loc, "--arch: '%s' is not sm_XX, sm_90a, compute_XX or a preset (orin, thor, "
				   "hopper, blackwell)", item);
			return false;
		}
		if (specific && (ptx || arch != 90)) {
			diag_error(c->ctx, no_loc, "--arch: '%s': the arch-specific target tilec knows is sm_90a (a cubin)", item);
			return false;
		}
		if (specific)
			arch |= TARGET_ARCH_SPECIFIC;
		if (ptx) {
			c->ptx_arch = arch;
		} else {
			if (c->narchs == (int)(sizeof c->archs / sizeof c->archs[0]))
				goto bad;
			for (int i = 0; i < c->narchs; i++)
				if (c->archs[i] == arch) {
					diag_error(c->ctx, no_loc, "--arch: '%s' is listed twice", item);
					return false;
				}
			c->archs[c->narchs++] = arch;
		}
		p += n + (e ? 1 : 0);
	}
	/* sm_90 is Hopper, whose tensor-core code (wgmma, TMA into its rings)
	 * only the arch-specific cubin holds: sm_90 brings sm_90a along, which
	 * the blob keeps where a kernel has such code (else the plain cubin) */
	for (int i = 0; i < c->narchs; i++) {
		bool specific_listed = false;
		for (int j = 0; j < c->narchs; j++)
			specific_listed |= c->archs[j] == (90 | TARGET_ARCH_SPECIFIC);
		if (c->archs[i] != 90 || specific_listed)
			continue;
		if (c->narchs == (int)(sizeof c->archs / sizeof c->archs[0]))
			goto bad;
		memmove(&c->archs[i + 2], &c->archs[i + 1], sizeof c->archs[0] * (size_t)(c->narchs - i - 1));
		c->archs[i + 1] = 90 | TARGET_ARCH_SPECIFIC;
		c->narchs++;
	}
	if (c->narchs > 0 || c->ptx_arch)
		return true; /* compute_XX alone: a blob of PTX only */
bad:
	diag_error(c->ctx, no_loc, "--arch wants a list such as sm_80,sm_87,sm_90 or orin,thor, not '%s'", list);
	return false;
}

/* ---- manifest ---------------------------------------------------------- */

/* Splits a manifest line into fields (quotes group, '#' ends the line);
 * cols[i] is the 1-based column of field i. */
static int split_fields(compile_cmd *c, const src_file *f, int line, const char *s, size_t len,
			char **fields, int *cols, int max)
{
	int n = 0;
	size_t i = 0;
	while (i < len) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= len || s[i] == '#')
			break;
		if (n == max) {
			diag_error(c->ctx, (src_loc){f, line, (int)i + 1}, "too many fields on this line");
			return -1;
		}
		cols[n] = (int)i + 1;
		strbuf sb;
		sb_init(&sb);
		while (i < len && s[i] != ' ' && s[i] != '\t') {
			if (s[i] == '"' || s[i] == '\'') {
				char q = s[i];
				size_t start = i++;
				while (i < len && s[i] != q)
					sb_putc(&sb, s[i++]);
				if (i >= len) {
					diag_error(c->ctx, (src_loc){f, line, (int)start + 1}, "unterminated quote");
					sb_free(&sb);
					return -1;
				}
				i++;
			} else {
				sb_putc(&sb, s[i++]);
			}
		}
		fields[n] = arena_strdup(c->a, sb_str(&sb));
		sb_free(&sb);
		if (!fields[n])
			return -1;
		n++;
	}
	return n;
}

/* A path relative to the manifest's directory. */
static const char *manifest_path(compile_cmd *c, const char *p)
{
	const char *slash = strrchr(c->manifest, '/');
	if (p[0] == '/' || !slash)
		return p;
	return arena_printf(c->a, "%.*s/%s", (int)(slash - c->manifest), c->manifest, p);
}

static bool read_manifest(compile_cmd *c)
{
	src_file *f;
	if (src_read_file(c->ctx, c->a, c->manifest, &f) != TILEC_OK)
		return false;
	bool ok = true;
	int line = 0;
	for (const char *p = f->text, *end = f->text + f->len; p < end; line++) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t len = eol ? (size_t)(eol - p) : (size_t)(end - p);
		if (len && p[len - 1] == '\r')
			len--;
		char *fields[64];
		int cols[64];
		int n = split_fields(c, f, line + 1, p, len, fields, cols, 64);
		p += len + 1;
		if (p < end && p[-1] == '\r')
			p++;
		if (n <= 0) {
			ok &= n == 0;
			continue;
		}
		job *j = new_job(c);
		if (!j)
			return false;
		j->where = (src_loc){f, line + 1, 1};
		if (n < 3) {
			diag_error(c->ctx, j->where, "a manifest line is FILE.py KERNEL SIGNATURE [options]");
			ok = false;
			continue;
		}
		j->file = manifest_path(c, fields[0]);
		j->kernel = fields[1];
		j->signature = fields[2];
		for (int i = 3; i < n;) {
			j->where.col = cols[i];
			int used = kernel_option(c, j, n, fields, i);
			if (used == 0)
				diag_error(c->ctx, j->where, "unknown option '%s' in a manifest line", fields[i]);
			if (used <= 0) {
				ok = false;
				break;
			}
			i += used;
		}
		j->where.col = 1;
	}
	if (ok && c->njobs == 0) {
		diag_error(c->ctx, (src_loc){f, 1, 1}, "the manifest lists no kernel");
		ok = false;
	}
	return ok;
}

/* ---- front end ----------------------------------------------------------- */

static fe_module *load_file(compile_cmd *c, const char *path, tilec_status *st)
{
	for (int i = 0; i < c->nfiles; i++)
		if (!strcmp(c->files[i].path, path)) {
			*st = c->files[i].status;
			return c->files[i].module;
		}
	if (!arena_grow(c->a, (void **)&c->files, &c->capfiles, c->nfiles, sizeof(loaded))) {
		*st = TILEC_ERR_NOMEM;
		return NULL;
	}
	loaded *l = &c->files[c->nfiles++];
	l->path = path;
	l->module = NULL;
	l->status = *st = fe_load(c->ctx, c->a, path, &l->module);
	return l->module;
}

/* Specializes a job into IR, its blob parameters and its grid program. */
static bool specialize(compile_cmd *c, job *j)
{
	tilec_status st;
	fe_module *m = load_file(c, j->file, &st);
	if (st != TILEC_OK)
		return false;
	if (fe_param_count(m, j->kernel) < 0) {
		strbuf sb;
		sb_init(&sb);
		for (int i = 0; i < fe_kernel_count(m); i++)
			sb_printf(&sb, "%s%s", i ? ", " : "", fe_kernel_name(m, i));
		diag_error(c->ctx, j->where, "%s: no @triton.jit kernel named '%s' (there are: %s)", j->file, j->kernel,
			   fe_kernel_count(m) ? sb_str(&sb) : "none");
		sb_free(&sb);
		return false;
	}
	fe_spec spec = {.kernel = j->kernel};
	int nconfigs = fe_config_count(m, j->kernel);
	if (nconfigs > 0 && fe_config_get(c->ctx, m, j->kernel, j->config < 0 ? 0 : j->config, &spec) != TILEC_OK)
		return false;
	/* The config's values first, the job's own -D and -w over them. */
	if (fe_config_override(c->a, &spec, j->defines, j->ndefines, j->num_warps) != TILEC_OK)
		return false;
	if (j->num_stages)
		spec.num_stages = j->num_stages;
	if (j->num_ctas)
		spec.num_ctas = j->num_ctas;
	if (j->maxnreg)
		spec.maxnreg = j->maxnreg;
	spec.signature = j->signature; /* all parameters, or a prefix: the front end checks it */
	spec.debug = c->debug;
	for (int i = 0; i < c->narchs && !c->no_tma; i++)
		spec.tensormaps |= compile_target_tma(c->archs[i]);
	spec.include_dirs = c->incs;
	spec.ninclude_dirs = c->nincs;
	spec.binds = j->binds;
	spec.nbinds = j->nbinds;
	if (fe_specialize(c->ctx, c->a, m, &spec, &j->func) != TILEC_OK) {
		if (j->where.file)
			diag_note(c->ctx, j->where, "while compiling this line");
		return false;
	}
	ir_func *f = j->func;
	if (f->nparams > BLOB_MAX_PARAMS) {
		diag_error(c->ctx, f->loc, "'%s' has %d runtime parameters; a blob kernel takes at most %d", j->kernel,
			   f->nparams, BLOB_MAX_PARAMS);
		return false;
	}
	j->nparams = f->nparams;
	j->params = arena_alloc(c->a, sizeof(blob_param) * (size_t)(f->nparams ? f->nparams : 1));
	if (!j->params)
		return false;
	for (int i = 0; i < f->nparams; i++) {
		const ir_param *p = &f->params[i];
		bool ptr = p->type.kind == IR_PTR;
		j->params[i] = blob_param_make(p->name, (ir_kind)(ptr ? p->type.pointee : p->type.kind), ptr);
		const ir_desc_param *dp = ir_param_desc(f, i);
		if (dp) {
			j->params[i].desc_name = dp->name;
			j->params[i].desc_rank = dp->rank;
			memcpy(j->params[i].desc_block, dp->block, sizeof dp->block);
		}
		const ir_desc_param *mp = p->tensormap ? ir_tensormap_desc(f, i) : NULL;
		const ir_derived_map *dm = p->tensormap ? ir_derived_map_at(f, i) : NULL;
		if (mp || dm) { /* the loader encodes it from the descriptor or the recipe (docs/FORMAT.md) */
			j->params[i].kind = BLOB_PARAM_TENSORMAP;
			j->params[i].size = 128;
			j->params[i].dtype = (uint8_t)f->params[mp ? mp->first : dm->base].type.pointee;
			j->params[i].flags = dm ? BLOB_PARAM_HIDDEN : 0;
		}
		if (ptr && i < 64 && (f->reset_to_zero >> i & 1))
			j->params[i].flags |= BLOB_PARAM_RESET_TO_ZERO;
		if (ptr && i < 64 && (f->restore_value >> i & 1))
			j->params[i].flags |= BLOB_PARAM_RESTORE_VALUE;
		j->pred_div16 |= (uint64_t)p->div16 << i;
		j->pred_div8 |= (uint64_t)(p->div_by == 8) << i;
		j->pred_div4 |= (uint64_t)(p->div_by == 4) << i;
		j->pred_eq1 |= (uint64_t)p->equal_one << i;
	}
	if (f->nmaps && !(j->recipes = arena_alloc(c->a, sizeof(blob_recipe) * (size_t)f->nmaps)))
		return false;
	for (int k = 0; k < f->nmaps; k++) {
		const ir_derived_map *dm = &f->maps[k];
		blob_recipe *r = &j->recipes[j->nrecipes++];
		uint8_t *code = arena_alloc(c->a, GRIDEXPR_MAX_CODE);
		*r = (blob_recipe){.param = dm->param, .base = dm->base, .rank = dm->rank, .code = code};
		for (int d = 0; d < dm->rank; d++)
			r->block[d] = dm->block[d];
		/* names of visible integer parameters and constants: it compiles */
		if (!code || gridexpr_compile_values(c->ctx, "tensor map", dm->values, 2 * dm->rank - 1, j->nparams, j->params,
						     f->nconstexprs, f->constexprs, code, GRIDEXPR_MAX_CODE, &r->size) != TILEC_OK) {
			diag_note(c->ctx, f->loc, "internal: the recipe of '%s'", f->params[dm->param].name);
			return false;
		}
	}
	if (j->grid && gridexpr_compile(c->ctx, "-g", j->grid, j->nparams, j->params, f->nconstexprs, f->constexprs,
					j->grid_code, sizeof j->grid_code, &j->grid_size) != TILEC_OK) {
		if (j->where.file)
			diag_note(c->ctx, j->where, "in the grid of this line");
		return false;
	}
	return true;
}

/* ---- autotune configs ---------------------------------------------------- */

/* Parses --config's LIST ("all", "3", "0,3,5") against n configs into
 * idx (distinct, in the order given); the count, or -1 after a diagnostic. */
static int parse_config_list(compile_cmd *c, const job *j, int n, int *idx)
{
	if (!j->configs || !strcmp(j->configs, "all")) {
		for (int i = 0; i < n; i++)
			idx[i] = i;
		return n;
	}
	int count = 0;
	for (const char *p = j->configs; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char item[16];
		int v;
		snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
		if (len == 0 || len >= sizeof item || !parse_int(item, 0, 1 << 20, &v)) {
			diag_error(c->ctx, j->where, "--config wants all, N or N,M,..., not '%s'", j->configs);
			return -1;
		}
		if (v >= n) {
			diag_error(c->ctx, j->where, "--config %d: '%s' has %d autotune config%s", v, j->kernel, n, n == 1 ? "" : "s");
			return -1;
		}
		for (int i = 0; i < count; i++)
			if (idx[i] == v) {
				diag_error(c->ctx, j->where, "--config lists config %d twice", v);
				return -1;
			}
		idx[count++] = v;
		p += len + (e ? 1 : 0);
	}
	return count;
}

/* The job list, left empty for a pass that expands each of its jobs into
 * new ones (new_job). */
static job *take_jobs(compile_cmd *c, int *n)
{
	job *old = c->jobs;
	*n = c->njobs;
	c->jobs = NULL;
	c->njobs = c->capjobs = 0;
	return old;
}

/* One job per selected config of each autotuned kernel's job. */
static bool expand_configs(compile_cmd *c)
{
	int nold;
	job *old = take_jobs(c, &nold);
	bool ok = true;
	for (int i = 0; i < nold; i++) {
		const job *o = &old[i];
		tilec_status st;
		fe_module *m = load_file(c, o->file, &st);
		int n = m ? fe_config_count(m, o->kernel) : 0;
		if (n == 0 && o->configs && m && fe_param_count(m, o->kernel) >= 0) {
			diag_error(c->ctx, o->where, "--config %s: '%s' has no @triton.autotune configs", o->configs, o->kernel);
			ok = false;
			continue;
		}
		int *idx = arena_alloc(c->a, sizeof(int) * (size_t)(n ? n : 1));
		if (!idx)
			return false;
		int count = n ? parse_config_list(c, o, n, idx) : 1;
		if (count < 0) {
			ok = false;
			continue;
		}
		for (int s = 0; s < count; s++) {
			job *j = new_job(c);
			if (!j)
				return false;
			*j = *o;
			j->config = n ? idx[s] : -1;
			j->slot = s;
			j->nslots = count;
		}
	}
	return ok;
}

/* Splits a -D value "1,2,4" into its items; 0 when it has no comma. */
static int value_list(arena *a, const char *v, const char **items, int max)
{
	if (!strchr(v, ','))
		return 0;
	int n = 0;
	for (const char *p = v; n < max;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		items[n++] = arena_strndup(a, p, len);
		if (!e)
			break;
		p = e + 1;
	}
	return n;
}

/* One job per combination of values of the kernel's heuristics that read
 * runtime arguments (fe_runtime_heuristics): True and False for a bool
 * one, the values `-D NAME=v1,v2,...` lists otherwise; a single -D value
 * fixes the heuristic, whose lambda then need not translate. Each job
 * gets the values as defines. */
static bool expand_heuristics(compile_cmd *c)
{
	int nold;
	job *old = take_jobs(c, &nold);
	bool ok = true;
	for (int i = 0; i < nold; i++) {
		const job *o = &old[i];
		tilec_status st;
		fe_module *m = load_file(c, o->file, &st);
		fe_heuristic all[BLOB_MAX_HEURISTICS];
		int nall = m && fe_param_count(m, o->kernel) >= 0 ? fe_runtime_heuristics(c->ctx, m, o->kernel, all, BLOB_MAX_HEURISTICS) : 0;
		if (nall < 0) {
			ok = false;
			continue;
		}
		fe_heuristic *heur = arena_alloc(c->a, sizeof(fe_heuristic) * (size_t)(nall + 1));
		const char **values[BLOB_MAX_HEURISTICS];
		int nvalues[BLOB_MAX_HEURISTICS], nheur = 0, combos = 1;
		if (!heur)
			return false;
		for (int h = 0; h < nall; h++) {
			const fe_define *given = NULL;
			for (int d = 0; d < o->ndefines; d++)
				if (!strcmp(o->defines[d].name, all[h].name))
					given = &o->defines[d];
			const char **items = arena_alloc(c->a, sizeof(char *) * 64);
			if (!items)
				return false;
			int n = given ? value_list(c->a, given->value, items, 64) : 0;
			if (given && n == 0)
				continue; /* fixed by -D: the lambda is not evaluated at all */
			if (!all[h].expr) {
				diag_error(c->ctx, all[h].why_loc, "%s", all[h].why);
				ok = false;
				break;
			}
			if (!given && !all[h].is_bool) {
				diag_error(c->ctx, all[h].loc, "the heuristic for `%s` reads runtime arguments and is not True/False "
					   "valued: list the values to compile with -D %s=V1,V2,... (a launch computing another "
					   "value fails), or fix it with -D %s=V", all[h].name, all[h].name, all[h].name);
				ok = false;
				break;
			}
			if (!given) {
				items[0] = "False";
				items[1] = "True";
				n = 2;
			}
			heur[nheur] = all[h];
			values[nheur] = items;
			nvalues[nheur++] = n;
			combos *= n;
			if (combos > 256) {
				diag_error(c->ctx, all[h].loc, "more than 256 combinations of heuristic values for '%s'", o->kernel);
				return false;
			}
		}
		if (!ok)
			continue;
		for (int combo = 0; combo < combos; combo++) {
			job *j = new_job(c);
			if (!j)
				return false;
			*j = *o;
			j->heur = heur;
			j->nheur = nheur;
			if (!nheur)
				continue;
			/* the job's defines without the lists, then the values */
			fe_define *defs = arena_alloc(c->a, sizeof(fe_define) * (size_t)(o->ndefines + nheur + 1));
			if (!defs)
				return false;
			int nd = 0;
			for (int d = 0; d < o->ndefines; d++) {
				bool listed = false;
				for (int h = 0; h < nheur; h++)
					listed |= !strcmp(o->defines[d].name, heur[h].name);
				if (!listed)
					defs[nd++] = o->defines[d];
			}
			strbuf sb;
			sb_init(&sb);
			for (int h = 0, rest = combo; h < nheur; h++) {
				defs[nd].name = heur[h].name;
				defs[nd++].value = values[h][rest % nvalues[h]];
				sb_printf(&sb, "%s=%s;", heur[h].name, values[h][rest % nvalues[h]]);
				rest /= nvalues[h];
			}
			j->defines = defs;
			j->ndefines = j->capdefines = nd;
			j->heur_values = arena_strdup(c->a, sb_str(&sb));
			sb_free(&sb);
		}
	}
	return ok;
}

/* The heuristics of kernel k compiled to programs over its parameters and
 * the first variant's constexprs (blob_write checks them against every
 * variant). */
static bool build_heuristics(compile_cmd *c, const job *first, blob_kernel *k)
{
	blob_heuristic *hs = arena_alloc(c->a, sizeof(blob_heuristic) * (size_t)first->nheur);
	if (!hs)
		return false;
	for (int h = 0; h < first->nheur; h++) {
		uint8_t *code = arena_alloc(c->a, GRIDEXPR_MAX_CODE);
		size_t len = 0;
		if (!code)
			return false;
		const char *where = arena_printf(c->a, "heuristic %s", first->heur[h].name);
		if (gridexpr_compile(c->ctx, where, first->heur[h].expr, k->nparams, k->params, first->func->nconstexprs,
				     first->func->constexprs, code, GRIDEXPR_MAX_CODE, &len) != TILEC_OK) {
			diag_note(c->ctx, first->heur[h].loc, "in the heuristic for `%s`", first->heur[h].name);
			return false;
		}
		/* a grid expression of one dimension: the program has one result */
		hs[h] = (blob_heuristic){first->heur[h].name, code, len};
	}
	k->heuristics = hs;
	k->nheuristics = first->nheur;
	return true;
}

/* The tuning table of kernel k (launch name), from autotune's key and the
 * tuning file: keys the visible integer parameters the key names (a pointer
 * is keyed by its dtype in Triton, fixed here by the signature; a constexpr
 * is fixed per config), entries and default from the file's kernel of the
 * same name, whose configs must match. Notes what is left out. */
static bool build_table(compile_cmd *c, const job *first, blob_kernel *k)
{
	tilec_status st;
	fe_module *m = load_file(c, first->file, &st);
	const char *names[BLOB_MAX_KEYS * 4];
	int n = fe_autotune_key(m, first->kernel, names, BLOB_MAX_KEYS * 4);
	if (n < 0) {
		diag_error(c->ctx, first->where, "'%s': autotune's key must be a literal list of parameter names", first->kernel);
		return false;
	}
	static const char *const host_only[] = {"prune_configs_by", "early_config_prune", "perf_model", "do_bench"};
	for (size_t i = 0; i < sizeof host_only / sizeof host_only[0]; i++)
		if (fe_autotune_has(m, first->kernel, host_only[i]))
			diag_note(c->ctx, first->where, "'%s': autotune's %s is host Python and is ignored: every selected "
				  "config is compiled", first->kernel, host_only[i]);
	int *keys = arena_alloc(c->a, sizeof(int) * BLOB_MAX_KEYS);
	if (!keys)
		return false;
	k->keys = keys;
	for (int i = 0; i < n && i < BLOB_MAX_KEYS * 4; i++) {
		int p = 0;
		while (p < k->nparams && strcmp(k->params[p].name, names[i]))
			p++;
		if (p == k->nparams) {
			diag_note(c->ctx, first->where, "'%s': autotune key '%s' is not a runtime parameter (a constexpr is "
				  "fixed per config): not part of the dispatch key", first->kernel, names[i]);
		} else if (k->params[p].kind == BLOB_PARAM_PTR || k->params[p].kind == BLOB_PARAM_FLOAT) {
			diag_note(c->ctx, first->where, "'%s': autotune key '%s' is a %s, whose type the signature fixes: not "
				  "part of the dispatch key", first->kernel, names[i],
				  k->params[p].kind == BLOB_PARAM_PTR ? "pointer" : "float");
		} else if (k->nkeys == BLOB_MAX_KEYS) {
			diag_error(c->ctx, first->where, "'%s': more than %d integer autotune keys", first->kernel, BLOB_MAX_KEYS);
			return false;
		} else {
			keys[k->nkeys++] = p;
		}
	}
	for (int t = 0; t < c->tuning.nkernels; t++) {
		tuning_kernel *tk = &c->tuning.kernels[t];
		if (strcmp(tk->name, k->name))
			continue;
		c->tuning_used[t] = true;
		if (tk->nconfigs != k->nconfigs) {
			const char *left = first->left_out ? arena_printf(c->a, "; %d left out for shared memory", first->left_out) : "";
			diag_error(c->ctx, tk->loc, "kernel %s was tuned with %d configs; this blob compiles %d (--config%s)",
				   tk->name, tk->nconfigs, k->nconfigs, left ? left : "");
			return false;
		}
		int *tkeys = arena_alloc(c->a, sizeof(int) * BLOB_MAX_KEYS);
		if (!tkeys)
			return false;
		for (int i = 0; i < tk->nkeys; i++) {
			int p = 0;
			while (p < k->nparams && strcmp(k->params[p].name, tk->keys[i]))
				p++;
			if (p == k->nparams || (k->params[p].kind != BLOB_PARAM_INT && k->params[p].kind != BLOB_PARAM_UINT)) {
				diag_error(c->ctx, tk->loc, "kernel %s: tuning key '%s' is not an integer parameter", tk->name,
					   tk->keys[i]);
				return false;
			}
			tkeys[i] = p;
		}
		k->keys = tkeys;
		k->nkeys = tk->nkeys;
		k->nentries = tk->nentries;
		k->entries = tk->entries;
		k->default_config = tk->default_config;
	}
	return true;
}

/* ---- kernels and variants ------------------------------------------------ */

/* Visible parameters: a job's derived maps (hidden) may differ, the
 * kernel takes them all (kernel_params). */
static int visible_params(const job *j)
{
	int n = 0;
	while (n < j->nparams && !(j->params[n].flags & BLOB_PARAM_HIDDEN))
		n++;
	return n;
}

static bool same_params(const job *x, const job *y)
{
	if (visible_params(x) != visible_params(y))
		return false;
	for (int i = 0; i < visible_params(x); i++) {
		const blob_param *p = &x->params[i], *q = &y->params[i];
		if (p->kind != q->kind || p->size != q->size || p->dtype != q->dtype || strcmp(p->name, q->name))
			return false;
		/* one launch function checks one block shape */
		if (p->desc_rank != q->desc_rank || memcmp(p->desc_block, q->desc_block, sizeof p->desc_block))
			return false;
	}
	return true;
}

/* Whether the loader could tell x and y apart: the same predicates, config
 * and heuristic values select both. */
static bool same_selection(const job *x, const job *y)
{
	return x->pred_div16 == y->pred_div16 && x->pred_div8 == y->pred_div8 && x->pred_div4 == y->pred_div4 &&
	       x->pred_eq1 == y->pred_eq1 && x->slot == y->slot &&
	       !strcmp(x->heur_values ? x->heur_values : "", y->heur_values ? y->heur_values : "");
}

/* ---- variants tilec adds -------------------------------------------------- */

/* jobs[i] again with `by` (8 or 4) on the parameters h marks: a clone of its
 * specialized kernel with those hints, as the front end would have
 * specialized it (hints reach only the axis info). Not added when it
 * selects as another job does (the user's own, or one added already). */
static bool add_hinted_variant(compile_cmd *c, int i, const uint8_t *h, int by)
{
	ir_func *g = ir_clone(c->a, c->jobs[i].func);
	job *k = g ? new_job(c) : NULL;
	if (!k)
		return false;
	*k = c->jobs[i]; /* new_job may have moved the jobs: by index */
	k->func = g;
	strbuf names;
	sb_init(&names);
	for (int p = 0; p < g->nparams; p++)
		if (h[p]) {
			g->params[p].div_by = (uint8_t)by;
			*(by == 8 ? &k->pred_div8 : &k->pred_div4) |= (uint64_t)1 << p;
			sb_printf(&names, "%s%s", names.len ? ", " : "", g->params[p].name);
		}
	bool twice = false;
	for (int u = 0; u < c->njobs - 1 && !twice; u++)
		twice = !strcmp(c->jobs[u].name, k->name) && same_selection(&c->jobs[u], k);
	if (twice)
		c->njobs--;
	else if (c->verbose)
		printf("%s: tilec adds a variant with :%d on %s (wider loads or stores where they divide)\n", k->name, by,
		       sb_str(&names));
	sb_free(&names);
	return true;
}

/* A signature without hints on a size or stride leaves the accesses through
 * it narrow (an fp16 row of unknown alignment moves in 2-byte pieces).
 * Where :8 or :4 on some of a job's unhinted integers would widen a load or
 * store (axis_hint_params), the job gets that variant besides: the loader
 * launches it where those arguments divide, the job's own elsewhere. A :8
 * variant only where it widens beyond the :4 one (for 4-byte elements both
 * reach 16 bytes); none for a kernel the user gives :8 or :4 hints. */
static bool add_hint_variants(compile_cmd *c)
{
	int n = c->njobs;
	for (int i = 0; i < n; i++) {
		bool own = false;
		for (int u = 0; u < n && !own; u++)
			own = !strcmp(c->jobs[u].name, c->jobs[i].name) && (c->jobs[u].pred_div8 | c->jobs[u].pred_div4);
		if (own)
			continue;
		const ir_func *f = c->jobs[i].func;
		uint8_t *h8 = arena_alloc(c->a, (size_t)f->nparams + 1), *h4 = arena_alloc(c->a, (size_t)f->nparams + 1);
		if (!h8 || !h4)
			return false;
		int n8 = axis_hint_params(c->a, f, 8, h8), n4 = axis_hint_params(c->a, f, 4, h4);
		int same = n8 > 0 && n4 > 0 ? axis_same_widths(c->a, f, h8, h4) : 0;
		if (n8 < 0 || n4 < 0 || same < 0)
			return false;
		if ((n8 > 0 && !same && !add_hinted_variant(c, i, h8, 8)) || (n4 > 0 && !add_hinted_variant(c, i, h4, 4)))
			return false;
	}
	return true;
}

/* Groups jobs by launch name (first appearance order), checks that each
 * group can share one launch function, and names each job's entry point
 * NAME_N, N its place in the group. */
static bool group_variants(compile_cmd *c)
{
	bool ok = true;
	for (int i = 0; i < c->njobs; i++) {
		if (c->jobs[i].symbol)
			continue; /* already placed in a group */
		const job *first = &c->jobs[i];
		int nv = 0;
		for (int t = i; t < c->njobs; t++) {
			job *j = &c->jobs[t];
			if (j->symbol || strcmp(j->name, first->name))
				continue;
			if (!same_params(first, j)) {
				diag_error(c->ctx, j->where, "'%s': this variant's parameters differ from the first variant's "
					   "(variants share one launch function; give it its own name with -on)", j->name);
				ok = false;
			}
			if ((j->grid_size == 0) != (first->grid_size == 0)) {
				diag_error(c->ctx, j->where, "'%s': every variant needs a grid expression (-g), or none", j->name);
				ok = false;
			}
			bool same_heur = j->nheur == first->nheur;
			for (int h = 0; same_heur && h < j->nheur; h++)
				same_heur = !strcmp(j->heur[h].name, first->heur[h].name);
			if (j->nslots != first->nslots || strcmp(j->configs ? j->configs : "all", first->configs ? first->configs : "all") ||
			    strcmp(j->file, first->file) || strcmp(j->kernel, first->kernel) || !same_heur) {
				diag_error(c->ctx, j->where, "'%s': every variant of a launch function compiles the same kernel "
					   "with the same autotune configs (--config) and heuristics given with -D", j->name);
				ok = false;
			}
			for (int u = i, nu = 0; u < t; u++) {
				const job *o = &c->jobs[u];
				if (strcmp(o->name, first->name))
					continue;
				if (same_selection(o, j)) {
					diag_error(c->ctx, j->where,
						   "'%s': variants %d and %d have the same :16/:8/:4/:1 hints and config, so the loader could "
						   "never choose the second (constexprs are not selected at run time: give each its "
						   "own launch name with -on)", j->name, nu, nv);
					ok = false;
				}
				nu++;
			}
			j->symbol = arena_printf(c->a, "%s_%d", j->name, nv++);
			if (!j->symbol)
				return false;
		}
	}
	return ok;
}

/* The parameters of the kernel whose first job is jobs[i]: the visible
 * ones, then every derived map of any of its jobs (by name: a map of the
 * same base in the same place of the same kernel), first appearance
 * order. */
static bool kernel_params(compile_cmd *c, int i, blob_kernel *k)
{
	const job *first = &c->jobs[i];
	int nvis = visible_params(first), n = nvis;
	blob_param *ps = arena_alloc(c->a, sizeof(blob_param) * (BLOB_MAX_PARAMS + 1));
	if (!ps)
		return false;
	memcpy(ps, first->params, sizeof(blob_param) * (size_t)nvis);
	for (int t = i; t < c->njobs; t++) {
		const job *j = &c->jobs[t];
		if (strcmp(j->name, first->name))
			continue;
		for (int q = nvis; q < j->nparams; q++) {
			int at = nvis;
			while (at < n && strcmp(ps[at].name, j->params[q].name))
				at++;
			if (at < n)
				continue;
			if (n == BLOB_MAX_PARAMS) {
				diag_error(c->ctx, j->where, "'%s': its variants' tensor maps make more than %d parameters", j->name,
					   BLOB_MAX_PARAMS);
				return false;
			}
			ps[n++] = j->params[q];
		}
	}
	k->nparams = n;
	k->params = ps;
	return true;
}

/* A job's recipes with their maps' indices among its kernel's params. */
static blob_recipe *kernel_recipes(compile_cmd *c, const job *j, const blob_kernel *k)
{
	blob_recipe *rs = arena_alloc(c->a, sizeof(blob_recipe) * (size_t)(j->nrecipes + 1));
	for (int r = 0; rs && r < j->nrecipes; r++) {
		rs[r] = j->recipes[r];
		rs[r].param = visible_params(j);
		while (strcmp(k->params[rs[r].param].name, j->params[j->recipes[r].param].name))
			rs[r].param++; /* kernel_params put every map of the job there */
	}
	return rs;
}

/* The blob's kernels: the jobs of each launch name (first appearance
 * order, as group_variants checked them) as its variants, with the tuning
 * table and heuristics of an autotuned one. */
static bool build_kernels(compile_cmd *c, blob_kernel **out, int *nout)
{
	blob_kernel *ks = arena_alloc(c->a, sizeof(blob_kernel) * (size_t)c->njobs);
	blob_variant *vs = arena_alloc(c->a, sizeof(blob_variant) * (size_t)c->njobs);
	bool *placed = arena_alloc(c->a, sizeof(bool) * (size_t)c->njobs);
	if (!ks || !vs || !placed)
		return false;
	int nk = 0, nv = 0;
	bool ok = true;
	for (int i = 0; i < c->njobs; i++) {
		if (placed[i])
			continue;
		const job *first = &c->jobs[i];
		blob_kernel *k = &ks[nk++];
		k->name = first->name;
		if (!kernel_params(c, i, k))
			return false;
		k->variants = &vs[nv];
		for (int t = i; t < c->njobs; t++) {
			job *j = &c->jobs[t];
			if (placed[t] || strcmp(j->name, first->name))
				continue;
			placed[t] = true;
			blob_variant *v = &vs[nv++];
			memset(v, 0, sizeof *v);
			v->symbol = j->symbol;
			v->nconstexprs = j->func->nconstexprs;
			v->constexprs = j->func->constexprs;
			v->num_warps = j->func->num_warps;
			v->num_stages = j->func->num_stages;
			if (j->func->num_ctas > 1) /* compile_module kept it: the images from sm_90 on split programs */
				v->cluster[0] = (uint16_t)j->func->num_ctas, v->cluster[1] = v->cluster[2] = 1;
			v->pred_div16 = j->pred_div16;
			v->pred_div8 = j->pred_div8;
			v->pred_div4 = j->pred_div4;
			v->pred_eq1 = j->pred_eq1;
			v->grid_code = j->grid_size ? j->grid_code : NULL;
			v->grid_size = j->grid_size;
			v->config = j->slot;
			v->source_config = j->config;
			v->nrecipes = j->nrecipes;
			if (j->nrecipes && !(v->recipes = kernel_recipes(c, j, k)))
				return false;
			j->variant = v;
			k->nvariants++;
			k->pdl = k->pdl || ir_region_has(&j->func->body, IR_OP_GRID_DEP);
		}
		k->nconfigs = first->nslots;
		if (k->nconfigs > 1 && !build_table(c, first, k))
			ok = false;
		if (first->nheur && !build_heuristics(c, first, k))
			ok = false;
	}
	*out = ks;
	*nout = nk;
	return ok;
}

/* Leaves out the autotune configs that have a variant in r->misfits, with
 * a warning each, as Triton's autotuner skips a config that runs out of
 * resources; the kept configs of each kernel are renumbered in order (the
 * blob records each one's source index). False when a kernel keeps none. */
static bool leave_out_configs(compile_cmd *c, const compile_result *r)
{
	bool *drop = arena_alloc(c->a, sizeof(bool) * (size_t)c->njobs);
	bool *done = arena_alloc(c->a, sizeof(bool) * (size_t)c->njobs);
	if (!drop || !done)
		return false;
	for (int t = 0; t < c->njobs; t++) {
		const job *j = &c->jobs[t];
		const compile_misfit *m = &r->misfits[t];
		if (!m->arch || drop[t])
			continue; /* fits, or its config was left out already */
		char name[16];
		diag_warning(c->ctx, j->func->loc, "'%s': autotune config %d (%s) needs %u bytes of shared memory, more than "
			     "a block may have on %s (%u): left out of the blob", j->name, j->config,
			     compile_config_text(c->a, j->func), m->bytes, target_name(m->arch, name, sizeof name),
			     target_smem_limit(m->arch));
		for (int u = 0; u < c->njobs; u++)
			drop[u] |= c->jobs[u].slot == j->slot && !strcmp(c->jobs[u].name, j->name);
	}
	bool ok = true;
	for (int i = 0; i < c->njobs; i++) {
		if (done[i])
			continue;
		job *first = &c->jobs[i];
		int nslots = first->nslots, kept = 0;
		int *slot = arena_alloc(c->a, sizeof(int) * (size_t)nslots); /* old slot -> new; -1: left out */
		if (!slot)
			return false;
		for (int s = 0; s < nslots; s++)
			slot[s] = -1;
		for (int t = i; t < c->njobs; t++)
			if (!drop[t] && !strcmp(c->jobs[t].name, first->name))
				slot[c->jobs[t].slot] = 0;
		for (int s = 0; s < nslots; s++)
			if (slot[s] == 0)
				slot[s] = kept++;
		if (!kept) {
			diag_error(c->ctx, first->func->loc, "'%s': none of its %d autotune configs fits in shared memory on "
				   "every target (--arch)", first->name, nslots);
			ok = false;
		}
		for (int t = i; t < c->njobs; t++) {
			job *j = &c->jobs[t];
			if (strcmp(j->name, first->name))
				continue;
			done[t] = true;
			j->slot = slot[j->slot]; /* -1 for the left out, which go below */
			j->nslots = kept;
			j->left_out = nslots - kept;
		}
	}
	int n = 0;
	for (int t = 0; t < c->njobs; t++)
		if (!drop[t])
			c->jobs[n++] = c->jobs[t];
	c->njobs = n;
	return ok;
}

/* "[3/7] matmul sm_90a (PTX, ptxas)": one line as each step starts. */
static void progress(void *arg, int started, int n, const char *step)
{
	const compile_cmd *c = arg;
	fprintf(stderr, "[%d/%d] %s %s\n", started, n, c->blob_name, step);
}

/* Compiles every job into one module per arch. A job of an autotuned
 * kernel compiled with all its configs may be left out when it does not
 * fit in shared memory: its config goes (leave_out_configs) and the rest
 * is compiled again. */
static bool compile_jobs(compile_cmd *c, compile_result *r)
{
	bool *may_leave_out = arena_alloc(c->a, sizeof(bool) * (size_t)c->njobs);
	if (!may_leave_out)
		return false;
	bool any = false;
	for (int t = 0; t < c->njobs; t++) {
		const job *j = &c->jobs[t];
		may_leave_out[t] = j->nslots > 1 && (!j->configs || !strcmp(j->configs, "all"));
		any |= may_leave_out[t];
	}
	compile_options opt = {
		.narchs = c->narchs,
		.archs = c->archs,
		.emit_ptx = !c->no_ptx || c->keep_ptx,
		.ptx_if_lowered = c->no_ptx, /* for --keep-ptx only: not worth a lowering of its own */
		.ptx_arch = c->ptx_arch,
		.ptxas = c->ptxas,
		.no_auto_warp_specialize = c->no_auto_warp_specialize,
		.libdevice_keeps_subnormals = c->no_reflect_ftz,
		.may_leave_out = any ? may_leave_out : NULL,
		.jobs = c->threads,
	};
	/* progress where someone watches a compile of more than one variant or target */
	if (!c->quiet && isatty(2) && c->njobs * (opt.narchs + (opt.emit_ptx ? 1 : 0)) > 1) {
		opt.progress = progress;
		opt.progress_arg = c;
	}
	for (;;) {
		ir_func **funcs = arena_alloc(c->a, sizeof(ir_func *) * (size_t)c->njobs);
		const char **symbols = arena_alloc(c->a, sizeof(char *) * (size_t)c->njobs);
		if (!funcs || !symbols)
			return false;
		for (int i = 0; i < c->njobs; i++) {
			funcs[i] = c->jobs[i].func;
			symbols[i] = c->jobs[i].symbol;
		}
		if (compile_module(c->ctx, c->a, funcs, symbols, c->njobs, &opt, r) == TILEC_OK)
			return true;
		if (!r->nmisfits || !leave_out_configs(c, r))
			return false;
		opt.may_leave_out = NULL; /* what is left fits */
	}
}

/* Registers, spills and shared memory from the compile result: the
 * largest over the archs (the fields are per variant, not per image);
 * spills are known when ptxas reported them for every arch. */
static void fill_resources(compile_cmd *c, const compile_result *r)
{
	int ncubins = r->nkernels / (c->njobs ? c->njobs : 1);
	for (int t = 0; t < c->njobs; t++) {
		blob_variant *v = c->jobs[t].variant;
		v->spills_known = !r->ptx_only && ncubins > 0;
		for (int a = 0; a < ncubins; a++) {
			const compile_kernel_info *info = &r->kernels[t * ncubins + a];
			char name[16];
			if (r->images[a].left_out)
				continue;
			if (c->verbose)
				printf("%s: %s: %d registers, spills %u bytes stored + %u loaded, %u bytes static shared, "
				       "%u dynamic%s\n", v->symbol, target_name(info->arch, name, sizeof name), info->n_regs, info->spill_stores, info->spill_loads,
				       info->shared_static, info->shared_dynamic,
				       r->images[a].shadowed ? " (not kept: the arch-specific cubin replaces it)" : "");
			if (r->images[a].shadowed)
				continue; /* the blob's figures are its images' */
			v->spills_known = v->spills_known && info->spills_known;
			if (info->spill_stores > v->spill_stores)
				v->spill_stores = info->spill_stores;
			if (info->spill_loads > v->spill_loads)
				v->spill_loads = info->spill_loads;
			if (info->n_regs > v->n_regs)
				v->n_regs = (uint16_t)info->n_regs;
			if (info->producer_warps > v->producer_warps)
				v->producer_warps = info->producer_warps;
			if (info->shared_static > v->shared_static)
				v->shared_static = info->shared_static;
			if (info->shared_dynamic > v->shared_dynamic)
				v->shared_dynamic = info->shared_dynamic;
		}
	}
}

static bool write_ptx(compile_cmd *c, const compile_result *r)
{
	if (mkdir(c->keep_ptx, 0777) != 0 && errno != EEXIST) {
		diag_error(c->ctx, (src_loc){0}, "cannot create '%s': %s", c->keep_ptx, strerror(errno));
		return false;
	}
	for (int i = 0; i < r->nimages; i++) {
		const compile_image *im = &r->images[i];
		if (im->left_out)
			continue;
		const char *path = im->kind == BLOB_IMAGE_PTX
					   ? arena_printf(c->a, "%s/%s.compute_%d.ptx", c->keep_ptx, c->blob_name, im->arch)
					   : arena_printf(c->a, "%s/%s.sm_%d%s.ptx", c->keep_ptx, c->blob_name, im->arch,
							  im->flags & BLOB_IMAGE_ARCH_SPECIFIC ? "a" : "");
		const void *data = im->kind == BLOB_IMAGE_PTX ? im->data : (const void *)im->ptx;
		size_t size = im->kind == BLOB_IMAGE_PTX ? im->size : im->ptx_size;
		if (!path || emit_write_files(c->ctx, 1, &path, &data, &size) != TILEC_OK)
			return false;
	}
	return true;
}

/* A path in a Make rule: blanks, '#' and '$' escaped as Make and Ninja
 * read them. */
static void put_make_path(strbuf *sb, const char *p)
{
	for (; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '#' || *p == '\\')
			sb_putc(sb, '\\');
		else if (*p == '$')
			sb_putc(sb, '$');
		sb_putc(sb, *p);
	}
}

/* OUT_BASE.c and OUT_BASE.h depend on every file the compile read, by
 * absolute path (a build tool may run tilec from another directory than
 * the one it reads the depfile in). Written last, after the outputs, so
 * that a depfile never names outputs that were not written. */
static tilec_status write_depfile(compile_cmd *c)
{
	strbuf sb;
	sb_init(&sb);
	const char *exts[] = {".c", ".h"};
	for (int i = 0; i < 2; i++) {
		put_make_path(&sb, c->out_base);
		sb_printf(&sb, "%s%s", exts[i], i ? ":" : " ");
	}
	for (int i = 0; i < tilec_input_count(c->ctx); i++) {
		const char *in = tilec_input_path(c->ctx, i);
		char *abs = realpath(in, NULL);
		sb_putn(&sb, " \\\n  ", 5);
		put_make_path(&sb, abs ? abs : in);
		free(abs);
	}
	sb_putc(&sb, '\n');
	const char *data = sb_str(&sb);
	size_t size = strlen(data);
	tilec_status st = emit_write_files(c->ctx, 1, &c->depfile, (const void *const *)&data, &size);
	sb_free(&sb);
	return st;
}

/* The blob's C name from the output path: its last component, with every
 * character that cannot be in an identifier turned into '_'. */
static const char *default_blob_name(arena *a, const char *base)
{
	const char *slash = strrchr(base, '/');
	const char *s = slash ? slash + 1 : base;
	char *name = arena_printf(a, "%s%s", (*s >= '0' && *s <= '9') ? "_" : "", s);
	for (char *p = name; p && *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			*p = '_';
	return name;
}

/* -j N, -jN, --jobs N */
static bool parse_threads(compile_cmd *c, const char *opt, const char *v)
{
	if (parse_int(v, 1, COMPILE_MAX_THREADS, &c->threads))
		return true;
	diag_error(c->ctx, no_loc, "%s wants a number of threads from 1 to %d, not '%s'", opt, COMPILE_MAX_THREADS, v);
	return false;
}

/* -j's default: the CPUs this process may run on, as nproc counts them. */
static int cpu_count(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* Whether tilec runs as a job of a parallel make (MAKEFLAGS names its
 * jobserver, or -jN): make then runs as many jobs as it was told to, and a
 * tilec on every CPU in each of them would put that many LLVM contexts on
 * each CPU. */
static bool under_parallel_make(void)
{
	const char *f = getenv("MAKEFLAGS");
	if (!f)
		return false;
	if (strstr(f, "--jobserver-auth=") || strstr(f, "--jobserver-fds="))
		return true;
	for (const char *w = f; (w = strstr(w, "-j")) != NULL; w += 2)
		if ((w == f || w[-1] == ' ') && (w[2] == '\0' || w[2] == ' ' || (w[2] >= '1' && w[2] <= '9')) &&
		    !(w[2] == '1' && (w[3] == '\0' || w[3] == ' ')))
			return true;
	return false;
}

/* -v: a variant whose 2-D loads could only be copied in pieces under 4
 * bytes (rows of unknown alignment: no :16, :8 or :4 on the sizes and
 * strides) says so at the first such load, naming the hints that widen
 * them. */
static void note_narrow_loads(compile_cmd *c, const job *j)
{
	axis_info *ai = NULL;
	bool *narrow = NULL;
	if (axis_analyze(c->ctx, c->a, j->func, &ai) != TILEC_OK || !(narrow = axis_narrow_loads(c->a, j->func, ai)))
		return;
	for (int v = 0; v < j->func->nvalues; v++) {
		const ir_op *d = j->func->values[v].def;
		if (!narrow[v] || !d)
			continue;
		printf("%s: the 2-D load at %s:%d moves pieces under 4 bytes (its rows' alignment is unknown); "
		       ":16, :8 or :4 on the sizes and strides that address it make them 16 bytes\n", j->symbol,
		       d->loc.file ? d->loc.file->path : "?", d->loc.line);
		return;
	}
}

/* Each kernel of the tuning file was tuned on this build of the kernel:
 * its identity, which tile-tune wrote, is the one the loader computes from
 * the blob just written (tile_kernel_identity, over what the table does
 * not change). A file measured on other configs, signatures or constexprs
 * would dispatch configs never measured on these variants. */
static bool check_identities(compile_cmd *c, const uint8_t *blob, size_t size)
{
	tile_module *m;
	tile_status st = tile_module_create(blob, size, &m);
	if (st != TILE_SUCCESS) {
		diag_error(c->ctx, (src_loc){0}, "the blob written does not load: %s: %s", tile_status_string(st),
			   tile_last_error());
		return false;
	}
	bool ok = true;
	for (int t = 0; t < c->tuning.nkernels && ok; t++) {
		const tuning_kernel *tk = &c->tuning.kernels[t];
		int k = tile_kernel_index(m, tk->name);
		uint64_t own = tile_kernel_identity(m, k);
		if (own != tk->identity) {
			diag_error(c->ctx, tk->identity_loc, "kernel %s was tuned for identity %016llx; this blob's kernel %s is "
				   "%016llx (other configs, signatures or constexprs): re-run tile-tune with a blob of this "
				   "build", tk->name, (unsigned long long)tk->identity, tk->name, (unsigned long long)own);
			ok = false;
		}
	}
	tile_module_destroy(m);
	return ok;
}

static int compile_all(compile_cmd *c)
{
	if (!expand_configs(c) || !expand_heuristics(c))
		return 1;
	if (c->tuning_path) {
		if (tuning_read(c->ctx, c->a, c->tuning_path, &c->tuning) != TILEC_OK)
			return 1;
		c->tuning_used = arena_alloc(c->a, sizeof(bool) * (size_t)(c->tuning.nkernels + 1));
		if (!c->tuning_used)
			return 1;
		memset(c->tuning_used, 0, sizeof(bool) * (size_t)(c->tuning.nkernels + 1));
	}
	bool ok = true;
	for (int i = 0; i < c->njobs; i++) {
		job *j = &c->jobs[i];
		if (!j->name)
			j->name = j->kernel;
		ok &= specialize(c, j);
	}
	if (!ok || (!c->no_hint_variants && !add_hint_variants(c)) || !group_variants(c))
		return 1;
	for (int i = 0; i < c->njobs && c->verbose; i++)
		note_narrow_loads(c, &c->jobs[i]);
	compile_result r;
	blob_kernel *ks;
	int nk;
	if (!compile_jobs(c, &r) || !build_kernels(c, &ks, &nk))
		return 1;
	for (int t = 0; t < c->tuning.nkernels; t++)
		if (!c->tuning_used[t]) {
			diag_error(c->ctx, c->tuning.kernels[t].loc, "the tuning file names kernel %s, which this blob has not "
				   "as an autotuned launch function", c->tuning.kernels[t].name);
			return 1;
		}
	fill_resources(c, &r);
	if (c->keep_ptx && !write_ptx(c, &r))
		return 1;

	blob_image *images = arena_alloc(c->a, sizeof(blob_image) * (size_t)(r.nimages ? r.nimages : 1));
	if (!images)
		return 1;
	int ni = 0;
	for (int i = 0; i < r.nimages; i++) {
		const compile_image *im = &r.images[i];
		if (im->left_out || im->shadowed)
			continue; /* an arch-specific cubin no kernel needs, or a plain one its specific one replaces */
		if (im->kind == BLOB_IMAGE_PTX && c->no_ptx && !r.ptx_only)
			continue; /* compiled only for --keep-ptx */
		bool twice = false;
		for (int u = 0; u < ni && im->kind == BLOB_IMAGE_PTX; u++)
			twice |= images[u].kind == BLOB_IMAGE_PTX && images[u].arch == im->arch && images[u].flags == im->flags;
		if (twice)
			continue; /* no ptxas: sm_80's PTX is the compute_80 image's */
		images[ni++] = (blob_image){.group = 0, .kind = im->kind, .arch = im->arch, .flags = im->flags,
					    .data = im->data, .size = im->size};
	}
	blob_desc d = {.nkernels = nk, .kernels = ks, .nimages = ni, .images = images, .ngroups = 1};
	uint8_t *blob = NULL;
	size_t size = 0;
	if (blob_write(c->ctx, &d, &blob, &size) != TILEC_OK)
		return 1;
	if (c->tuning.nkernels && !check_identities(c, blob, size)) {
		free(blob);
		return 1;
	}
	tilec_status st = emit_c(c->ctx, &d, blob, size, c->out_base, c->blob_name);
	free(blob);
	if (st == TILEC_OK && c->depfile)
		st = write_depfile(c);
	return st == TILEC_OK ? 0 : 1;
}

int cmd_compile(int argc, char **argv)
{
	compile_cmd c;
	memset(&c, 0, sizeof c);
	c.ctx = tilec_ctx_new();
	c.a = arena_new();
	if (!c.ctx || !c.a) {
		fprintf(stderr, "tilec: error: out of memory\n");
		tilec_ctx_free(c.ctx);
		arena_free(c.a);
		return 1;
	}
	job proto;
	memset(&proto, 0, sizeof proto);
	proto.config = -1;
	const char *file = NULL, *sigs[64];
	int nsigs = 0, rc = 2;
	bool ok = parse_archs(&c, "sm_80,sm_87,sm_90");
	c.threads = 0; /* not given: see below */
	for (int i = 0; ok && i < argc; i++) {
		const char *o = argv[i];
		int used = kernel_option(&c, &proto, argc, argv, i);
		if (used < 0) {
			ok = false;
		} else if (used > 0) {
			i += used - 1;
		} else if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(usage_text, stdout);
			rc = 0;
			goto done;
		} else if (!strcmp(o, "--no-ptx")) {
			c.no_ptx = true;
		} else if (!strcmp(o, "--no-tma")) {
			c.no_tma = true;
		} else if (!strcmp(o, "--no-hint-variants")) {
			c.no_hint_variants = true;
		} else if (!strcmp(o, "--no-auto-warp-specialize")) {
			c.no_auto_warp_specialize = true;
		} else if (!strcmp(o, "--no-reflect-ftz")) {
			c.no_reflect_ftz = true;
		} else if (!strcmp(o, "--debug")) {
			c.debug = true;
		} else if (!strcmp(o, "-v")) {
			c.verbose = true;
		} else if (!strcmp(o, "-q")) {
			c.quiet = true;
		} else if (!strncmp(o, "-j", 2) && o[2]) {
			ok = parse_threads(&c, "-j", o + 2);
		} else if (!strcmp(o, "-s") || !strcmp(o, "-o") || !strcmp(o, "-m") || !strcmp(o, "--arch") ||
			   !strcmp(o, "--keep-ptx") || !strcmp(o, "--ptxas") || !strcmp(o, "--name") ||
			   !strcmp(o, "--depfile") || !strcmp(o, "--tuning") || !strcmp(o, "-I") || !strcmp(o, "-j") ||
			   !strcmp(o, "--jobs")) {
			if (i + 1 >= argc) {
				diag_error(c.ctx, no_loc, "%s needs a value", o);
				ok = false;
				break;
			}
			const char *v = argv[++i];
			if (!strcmp(o, "-s")) {
				if (nsigs == (int)(sizeof sigs / sizeof sigs[0])) {
					diag_error(c.ctx, no_loc, "too many -s");
					ok = false;
				} else {
					sigs[nsigs++] = v;
				}
			} else if (!strcmp(o, "-o")) {
				c.out_base = v;
			} else if (!strcmp(o, "-m")) {
				c.manifest = v;
			} else if (!strcmp(o, "--arch")) {
				ok = parse_archs(&c, v);
			} else if (!strcmp(o, "--keep-ptx")) {
				c.keep_ptx = v;
			} else if (!strcmp(o, "--ptxas")) {
				c.ptxas = v;
			} else if (!strcmp(o, "--depfile")) {
				c.depfile = v;
			} else if (!strcmp(o, "--tuning")) {
				c.tuning_path = v;
			} else if (!strcmp(o, "-j") || !strcmp(o, "--jobs")) {
				ok = parse_threads(&c, o, v);
			} else if (!strcmp(o, "-I")) {
				if (c.nincs == (int)(sizeof c.incs / sizeof c.incs[0])) {
					diag_error(c.ctx, no_loc, "too many -I");
					ok = false;
				} else {
					c.incs[c.nincs++] = v;
				}
			} else {
				c.blob_name = v;
			}
		} else if (o[0] == '-' && o[1]) {
			diag_error(c.ctx, no_loc, "unknown option '%s' (tilec compile --help)", o);
			ok = false;
		} else if (file) {
			diag_error(c.ctx, no_loc, "more than one input file ('%s' and '%s')", file, o);
			ok = false;
		} else {
			file = o;
		}
	}
	if (ok && c.no_ptx && c.narchs == 0) {
		diag_error(c.ctx, no_loc, "--no-ptx with only compute_XX targets leaves nothing to compile");
		ok = false;
	}
	if (ok && c.manifest) {
		if (file || nsigs || proto.kernel) {
			diag_error(c.ctx, no_loc, "-m takes the kernels from the manifest: no FILE, -n or -s with it");
			ok = false;
		} else if (proto.ndefines || proto.grid || proto.num_warps || proto.num_stages || proto.num_ctas || proto.maxnreg ||
			   proto.name || proto.configs || proto.nbinds) {
			diag_error(c.ctx, no_loc,
				   "with -m, kernel options (-D, --bind, -g, -w, -ns, -nc, --maxnreg, -on, --config) go on "
				   "manifest lines");
			ok = false;
		} else if (!c.out_base) {
			diag_error(c.ctx, no_loc, "-m needs -o OUT_BASE");
			ok = false;
		} else {
			ok = read_manifest(&c);
			rc = ok ? 2 : 1;
		}
	} else if (ok) {
		if (!file || !proto.kernel || nsigs == 0) {
			diag_error(c.ctx, no_loc, "needs FILE.py, -n KERNEL and -s SIGNATURE (tilec compile --help)");
			ok = false;
		}
		for (int i = 0; ok && i < nsigs; i++) {
			job *j = new_job(&c);
			if (!j) {
				ok = false;
				break;
			}
			*j = proto;
			j->file = file;
			j->signature = sigs[i];
		}
		if (ok && !c.out_base)
			c.out_base = proto.name ? proto.name : proto.kernel;
	}
	if (ok) {
		if (!c.ptx_arch) {
			c.ptx_arch = TARGET_ARCH(c.archs[0]);
			for (int i = 1; i < c.narchs; i++)
				if (TARGET_ARCH(c.archs[i]) < c.ptx_arch)
					c.ptx_arch = TARGET_ARCH(c.archs[i]);
		}
		if (!c.blob_name)
			c.blob_name = default_blob_name(c.a, c.out_base);
		if (!c.threads) {
			bool make = under_parallel_make();
			c.threads = make ? 1 : cpu_count();
			if (c.verbose)
				printf("tilec: %d thread%s (%s)\n", c.threads, c.threads == 1 ? "" : "s",
				       make ? "a parallel make runs this: -j N to set more" : "the CPUs tilec may run on");
		}
		rc = compile_all(&c);
	}
done:
	fputs(tilec_diagnostics(c.ctx), stderr);
	if (rc == 0 && tilec_error_count(c.ctx))
		rc = 1;
	if (rc != 0 && !tilec_error_count(c.ctx) && !strstr(tilec_diagnostics(c.ctx), "error"))
		fprintf(stderr, "tilec: error: compilation failed (out of memory?)\n");
	tilec_ctx_free(c.ctx);
	arena_free(c.a);
	return rc;
}
