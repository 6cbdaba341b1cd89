/* cmd_pack.c - `tilec pack` and `tilec inspect`.
 *
 * pack builds a blob from kernels compiled elsewhere: hand-written or
 * foreign PTX, cubins, and Triton cache entries (.json + .cubin). Triton's
 * json does not hold the signature, so the command line gives it, in
 * Triton's AOT spelling ("*fp32:16, i32"); each -n starts a kernel and the
 * options after it describe it. What the inputs say about themselves is
 * checked against the command line before anything is written: the arch in
 * a cubin's ELF header, the .target and .entry (and its parameter count) of
 * PTX, the kernel name and launch metadata of a Triton json. A kernel name
 * given twice adds a variant (another specialization) to the kernel. Each
 * -n gets its own group of images, i.e. its own CUDA module. A variant is
 * one compiled entry point with no autotune config, so pack makes no
 * autotuned kernels and has no tuning table to embed: --tuning is refused
 * with a pointer to `tilec compile --tuning`.
 *
 * inspect validates a blob (or the array of a generated .c) with tile.h's
 * own reader and lists it through the introspection API.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tile.h"
#include "cmd.h"
#include "pack/pack.h"

#define MAX_INPUTS 16

static const char pack_usage[] =
	"usage: tilec pack -o BASE [--name CNAME] -n KERNEL -s SIGNATURE [options] [-n KERNEL2 ...]\n"
	"\n"
	"Packs kernels compiled elsewhere into BASE.c, BASE.h and BASE.tileblob.\n"
	"\n"
	"  -o BASE              output path without extension\n"
	"  --name CNAME         prefix of CNAME_load/CNAME_unload/CNAME_module (default: from BASE)\n"
	"  -n KERNEL            starts a kernel; the options below apply to the last -n.\n"
	"                       The same name again adds a variant (another specialization).\n"
	"  -s SIGNATURE         parameter types, Triton style: \"*fp32:16, *fp32, i32:16, fp32\";\n"
	"                       :16 = divisible by 16 (:8, :4 by 8, 4), :1 = equal to 1 (the variant's predicates)\n"
	"  --param-names a,b,c  parameter names (default p0, p1, ...)\n"
	"  -g GRID              grid expression: \"cdiv(n, 1024), 1\"; without it the launch\n"
	"                       function takes grid_x, grid_y, grid_z\n"
	"  -w NUM_WARPS         warps per block (default 4, or the Triton json's)\n"
	"  --shared BYTES       dynamic shared memory per block\n"
	"  --cluster X[,Y[,Z]]  thread block clusters of X x Y x Z blocks (sm_90 on; at most 8 blocks):\n"
	"                       the grid then counts clusters, and the launch X*Y*Z times its blocks\n"
	"                       (the default: none, or the Triton json's num_ctas / cluster_dims)\n"
	"  --symbol SYM         entry point name (default: from the PTX, json or cubin, else KERNEL)\n"
	"  --cubin [sm_XX[a]:]FILE  a cubin; the arch is checked against its ELF header\n"
	"  --ptx FILE           PTX; the arch comes from its .target line\n"
	"  --triton FILE.json   a Triton cache entry: FILE.json and FILE.cubin; adds Triton's\n"
	"                       hidden scratch parameters when the json lists them\n"
	"\n"
	"Each kernel has one config: autotuned kernels, and tuning files (--tuning),\n"
	"are tilec compile's.\n";

static int nerrors;

static void err(const char *where, const char *fmt, ...) TILE_PRINTF(2, 3);

/* "where: error: message" on stderr. */
static void err(const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: error: ", where ? where : "tilec pack");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	nerrors++;
}

typedef struct file_data {
	uint8_t *data; /* NUL-terminated, arena */
	size_t size;
} file_data;

static bool read_file(arena *a, const char *path, file_data *out)
{
	uint8_t *data;
	size_t len;
	file_read_status rs = file_read(path, &data, &len);
	if (rs == FILE_READ_NO_OPEN) {
		err(path, "cannot open: %s", strerror(errno));
		return false;
	}
	char *buf = rs == FILE_READ_OK ? arena_strndup(a, (const char *)data, len) : NULL;
	if (rs == FILE_READ_OK)
		free(data);
	if (!buf) {
		err(path, rs == FILE_READ_ERROR ? "read error" : "out of memory");
		return false;
	}
	out->data = (uint8_t *)buf;
	out->size = len;
	return true;
}

/* ---- a small JSON reader ------------------------------------------- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jkind;

typedef struct jval jval;
struct jval {
	jkind kind;
	double num;
	const char *str;  /* J_STR; also the key when in an object */
	const char *key;
	jval *child, *next; /* arrays and objects */
};

typedef struct jparser {
	arena *a;
	const char *path, *text, *p;
	bool failed;
} jparser;

static void jerror(jparser *j, const char *fmt, ...) TILE_PRINTF(2, 3);

static void jerror(jparser *j, const char *fmt, ...)
{
	if (j->failed)
		return;
	j->failed = true;
	int line = 1, col = 1;
	for (const char *q = j->text; q < j->p; q++, col++)
		if (*q == '\n') {
			line++;
			col = 0;
		}
	fprintf(stderr, "%s:%d:%d: error: ", j->path, line, col);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	nerrors++;
}

static void jspace(jparser *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static const char *jstring(jparser *j)
{
	strbuf sb;
	sb_init(&sb);
	j->p++; /* the opening quote */
	for (;;) {
		unsigned char c = (unsigned char)*j->p;
		if (c == '"')
			break;
		if (c < 0x20) {
			jerror(j, c ? "control character in a string" : "unterminated string");
			break;
		}
		j->p++;
		if (c != '\\') {
			sb_putc(&sb, (char)c);
			continue;
		}
		c = (unsigned char)*j->p++;
		const char *esc = strchr("\"\\/bfnrt", c);
		if (esc && c) {
			sb_putc(&sb, "\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrt"]);
		} else if (c == 'u') {
			unsigned v = 0;
			for (int i = 0; i < 4; i++, j->p++) {
				if (!isxdigit((unsigned char)*j->p)) {
					jerror(j, "bad \\u escape");
					break;
				}
				v = v * 16 + (unsigned)(isdigit((unsigned char)*j->p) ? *j->p - '0' : tolower((unsigned char)*j->p) - 'a' + 10);
			}
			sb_putc(&sb, v < 0x80 ? (char)v : '?'); /* names are ASCII; others are not looked at */
		} else {
			j->p--;
			jerror(j, "bad escape in a string");
		}
		if (j->failed)
			break;
	}
	if (!j->failed)
		j->p++;
	const char *s = arena_strndup(j->a, sb_str(&sb), sb.len);
	sb_free(&sb);
	return s;
}

static jval *jvalue(jparser *j, int depth)
{
	jspace(j);
	jval *v = arena_alloc(j->a, sizeof *v);
	if (!v) {
		jerror(j, "out of memory");
		return NULL;
	}
	if (depth > 64) {
		jerror(j, "nesting too deep");
		return NULL;
	}
	char c = *j->p;
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		v->kind = c == '{' ? J_OBJ : J_ARR;
		j->p++;
		jspace(j);
		jval **tail = &v->child;
		if (*j->p == close) {
			j->p++;
			return v;
		}
		for (;;) {
			const char *key = NULL;
			if (v->kind == J_OBJ) {
				jspace(j);
				if (*j->p != '"') {
					jerror(j, "expected a string key");
					return NULL;
				}
				key = jstring(j);
				jspace(j);
				if (*j->p != ':') {
					jerror(j, "expected ':'");
					return NULL;
				}
				j->p++;
			}
			jval *e = jvalue(j, depth + 1);
			if (!e)
				return NULL;
			e->key = key;
			*tail = e;
			tail = &e->next;
			jspace(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p == close) {
				j->p++;
				return v;
			}
			jerror(j, "expected ',' or '%c'", close);
			return NULL;
		}
	}
	if (c == '"') {
		v->kind = J_STR;
		v->str = jstring(j);
		return j->failed ? NULL : v;
	}
	if (c == '-' || isdigit((unsigned char)c)) {
		char *end;
		v->kind = J_NUM;
		v->num = strtod(j->p, &end);
		if (end == j->p) {
			jerror(j, "bad number");
			return NULL;
		}
		j->p = end;
		return v;
	}
	static const struct {
		const char *word;
		jkind kind;
		double num;
	} words[] = {{"true", J_BOOL, 1}, {"false", J_BOOL, 0}, {"null", J_NULL, 0}};
	for (size_t i = 0; i < 3; i++)
		if (!strncmp(j->p, words[i].word, strlen(words[i].word))) {
			j->p += strlen(words[i].word);
			v->kind = words[i].kind;
			v->num = words[i].num;
			return v;
		}
	if (c)
		jerror(j, "unexpected '%c'", c);
	else
		jerror(j, "unexpected end of input");
	return NULL;
}

static jval *json_parse(arena *a, const char *path, const char *text)
{
	jparser j = {a, path, text, text, false};
	jval *v = jvalue(&j, 0);
	if (!v)
		return NULL;
	jspace(&j);
	if (*j.p) {
		jerror(&j, "trailing characters after the JSON value");
		return NULL;
	}
	return v;
}

static const jval *jget(const jval *obj, const char *key)
{
	if (!obj || obj->kind != J_OBJ)
		return NULL;
	const jval *found = NULL;
	for (const jval *e = obj->child; e; e = e->next)
		if (!strcmp(e->key, key))
			found = e; /* the last one wins, as in Python */
	return found;
}

/* An integer field in [lo, hi]; *out untouched when absent. */
static bool jint(const char *path, const jval *obj, const char *key, long lo, long hi, long *out)
{
	const jval *v = jget(obj, key);
	if (!v)
		return true;
	if (v->kind != J_NUM || v->num != (double)(long)v->num || v->num < lo || v->num > hi) {
		err(path, "'%s' must be an integer in %ld..%ld", key, lo, hi);
		return false;
	}
	*out = (long)v->num;
	return true;
}

/* ---- inputs ------------------------------------------------------- */

typedef struct input {
	enum { IN_CUBIN, IN_PTX, IN_TRITON } kind;
	const char *path;
	int arch;          /* from the command line (cubin), 0: from the file */
	unsigned flags;
} input;

typedef struct kspec {
	const char *name, *sig, *param_names, *grid, *symbol;
	long num_warps, shared; /* -1: not given */
	uint16_t cluster[3];    /* --cluster; 0 0 0: not given */
	int ninputs;
	input inputs[MAX_INPUTS];
} kspec;

/* What the inputs of one kspec produce. */
typedef struct kbuilt {
	blob_param params[BLOB_MAX_PARAMS + 2]; /* + Triton's hidden scratch pointers */
	int nparams, nvisible;
	blob_variant variant;
	uint8_t grid[GRIDEXPR_MAX_CODE];
	int group;
} kbuilt;

/* "sm_90a" -> 90, flags 1; false when not an sm name. */
static bool parse_sm(const char *s, size_t n, int *arch, unsigned *flags)
{
	if (n < 5 || strncmp(s, "sm_", 3) != 0)
		return false;
	int v = 0;
	size_t i = 3;
	for (; i < n && isdigit((unsigned char)s[i]) && v < 10000; i++)
		v = v * 10 + (s[i] - '0');
	*flags = 0;
	if (i < n && s[i] == 'a') {
		*flags = BLOB_IMAGE_ARCH_SPECIFIC;
		i++;
	}
	*arch = v;
	return i == n && v >= 10;
}

/* PTX: the arch of its .target and its entries with their parameter
 * counts. */
typedef struct ptx_info {
	int arch;
	unsigned flags;
	int nentries;
	const char *entries[64];
	int nparams[64];
} ptx_info;

static bool ptx_read(arena *a, const char *path, const file_data *f, ptx_info *pi)
{
	const char *t = (const char *)f->data;
	memset(pi, 0, sizeof pi[0]);
	if (memchr(t, 0, f->size)) {
		err(path, "not PTX text (NUL byte inside)");
		return false;
	}
	const char *tg = strstr(t, ".target");
	if (tg) {
		tg += 7;
		while (*tg == ' ' || *tg == '\t')
			tg++;
		size_t n = strcspn(tg, " \t,\r\n");
		if (!parse_sm(tg, n, &pi->arch, &pi->flags))
			tg = NULL;
	}
	if (!tg) {
		err(path, "no '.target sm_XX' line: is this PTX?");
		return false;
	}
	for (const char *e = t; (e = strstr(e, ".entry")) != NULL && pi->nentries < 64;) {
		e += 6;
		if (!isspace((unsigned char)*e))
			continue;
		while (isspace((unsigned char)*e))
			e++;
		size_t n = strcspn(e, " \t\r\n(");
		if (!n)
			continue;
		int k = pi->nentries++;
		pi->entries[k] = arena_strndup(a, e, n);
		e += n;
		while (isspace((unsigned char)*e))
			e++;
		if (*e == '(') {
			const char *close = strchr(e, ')');
			for (const char *q = e; close && (q = strstr(q, ".param")) != NULL && q < close; q += 6)
				pi->nparams[k]++;
		}
	}
	if (!pi->nentries) {
		err(path, "no '.entry' in the PTX");
		return false;
	}
	return true;
}

/* Parses "*fp32:16, i32:1, fp32" into params (visible, named p0.. or from
 * names) and the predicate masks. */
static bool parse_signature(arena *a, const kspec *k, kbuilt *b)
{
	const char *s = k->sig;
	char where[300];
	snprintf(where, sizeof where, "-s '%s'", s);
	b->nparams = 0;
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		size_t n = strcspn(s, ",");
		size_t tn = n;
		while (tn && (s[tn - 1] == ' ' || s[tn - 1] == '\t'))
			tn--;
		const char *colon = memchr(s, ':', tn);
		size_t ty = colon ? (size_t)(colon - s) : tn;
		blob_param p;
		if (b->nparams == BLOB_MAX_PARAMS) {
			err(where, "more than %d parameters", BLOB_MAX_PARAMS);
			return false;
		}
		if (!blob_param_parse(s, ty, &p)) {
			err(where, "'%.*s' is not a type (*fp32, i32, u64, fp16, bf16, ...)", (int)ty, s);
			return false;
		}
		int i = b->nparams;
		if (colon) {
			const char *h = colon + 1;
			size_t hn = tn - ty - 1;
			uint64_t *div = hn == 2 && !memcmp(h, "16", 2) ? &b->variant.pred_div16
					: hn == 1 && h[0] == '8' ? &b->variant.pred_div8
					: hn == 1 && h[0] == '4' ? &b->variant.pred_div4 : NULL;
			if (div && p.kind != BLOB_PARAM_FLOAT)
				*div |= UINT64_C(1) << i;
			else if (hn == 1 && h[0] == '1' && p.kind != BLOB_PARAM_PTR && p.kind != BLOB_PARAM_FLOAT)
				b->variant.pred_eq1 |= UINT64_C(1) << i;
			else {
				err(where, "bad hint ':%.*s' on '%.*s' (:16, :8 or :4 for a pointer or integer, :1 for an "
				    "integer)", (int)hn, h, (int)ty, s);
				return false;
			}
		}
		p.name = arena_printf(a, "p%d", i);
		b->params[b->nparams++] = p;
		s += n;
		if (*s == ',')
			s++;
	}
	if (k->param_names) {
		const char *q = k->param_names;
		for (int i = 0;; i++) {
			size_t n = strcspn(q, ",");
			if (i < b->nparams)
				b->params[i].name = arena_strndup(a, q, n);
			if (!q[n]) {
				if (i + 1 != b->nparams) {
					err("--param-names", "%d names for %d parameters of '%s'", i + 1, b->nparams, k->name);
					return false;
				}
				break;
			}
			q += n + 1;
		}
		for (int i = 0; i < b->nparams; i++)
			for (int j = 0; j < i; j++)
				if (!*b->params[i].name || !strcmp(b->params[i].name, b->params[j].name)) {
					err("--param-names", "empty or repeated name '%s'", b->params[i].name);
					return false;
				}
	}
	b->nvisible = b->nparams;
	return true;
}

static void add_hidden(arena *a, kbuilt *b, const char *name)
{
	blob_param p = blob_param_make(arena_strdup(a, name), IR_I8, true);
	p.flags = BLOB_PARAM_HIDDEN;
	b->params[b->nparams++] = p;
}

static bool has_name(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return true;
	return false;
}

/* Prints and clears the diagnostics of a libtile call; true when it
 * succeeded. */
static bool flush(tilec_ctx *ctx, tilec_status st)
{
	fputs(tilec_diagnostics(ctx), stderr);
	nerrors += tilec_error_count(ctx);
	tilec_clear_diagnostics(ctx);
	return st == TILEC_OK;
}

/* Reads one kernel's inputs into images of group b->group and fills the
 * variant. */
static bool build_kernel(tilec_ctx *ctx, arena *a, const kspec *k, kbuilt *b, blob_image *images, int *nimages)
{
	memset(b, 0, offsetof(kbuilt, group));
	if (!parse_signature(a, k, b))
		return false;
	blob_variant *v = &b->variant;
	long num_warps = k->num_warps, shared = k->shared;
	const char *symbol = k->symbol;
	int first_image = *nimages;
	ptx_info pi[MAX_INPUTS];
	blob_cubin ci[MAX_INPUTS];
	const char *json_name = NULL;
	bool scratch[2] = {false, false};

	for (int i = 0; i < k->ninputs; i++) {
		const input *in = &k->inputs[i];
		file_data f;
		blob_image *im = &images[(*nimages)++];
		memset(im, 0, sizeof *im);
		im->group = b->group;
		if (in->kind == IN_PTX) {
			if (!read_file(a, in->path, &f) || !ptx_read(a, in->path, &f, &pi[i]))
				return false;
			im->kind = BLOB_IMAGE_PTX;
			im->arch = pi[i].arch;
			im->flags = pi[i].flags;
		} else {
			const char *cubin_path = in->path;
			long arch = in->arch, flags = (long)in->flags;
			if (in->kind == IN_TRITON) {
				file_data jf;
				if (!read_file(a, in->path, &jf))
					return false;
				const jval *root = json_parse(a, in->path, (const char *)jf.data);
				if (!root)
					return false;
				if (root->kind != J_OBJ) {
					err(in->path, "a Triton cache json is an object");
					return false;
				}
				const jval *name = jget(root, "name"), *target = jget(root, "target");
				long jwarps = -1, jshared = 0, jstages = v->num_stages, jarch = 0, gscratch = 0, pscratch = 0,
				     jctas = 1;
				if (!name || name->kind != J_STR || !*name->str) {
					err(in->path, "no kernel \"name\" string");
					return false;
				}
				if (!jint(in->path, root, "num_warps", 1, 32, &jwarps) ||
				    !jint(in->path, root, "num_stages", 0, 0xffff, &jstages) ||
				    !jint(in->path, root, "shared", 0, 0x7fffffff, &jshared) ||
				    !jint(in->path, root, "num_ctas", 1, 0xffff, &jctas) ||
				    !jint(in->path, target, "arch", 10, 10000, &jarch) ||
				    !jint(in->path, root, "global_scratch_size", 0, 0x7fffffff, &gscratch) ||
				    !jint(in->path, root, "profile_scratch_size", 0, 0x7fffffff, &pscratch))
					return false;
				if (jwarps < 0 || !jarch) {
					err(in->path, "no \"num_warps\" or \"target\": {\"arch\": N}");
					return false;
				}
				if (gscratch > 0) {
					err(in->path, "the kernel needs %ld bytes of global scratch memory, which tile does not "
					    "allocate", gscratch);
					return false;
				}
				if (num_warps >= 0 && num_warps != jwarps) {
					err(in->path, "num_warps %ld, but %ld elsewhere for '%s'", jwarps, num_warps, k->name);
					return false;
				}
				num_warps = jwarps;
				v->num_stages = (int)jstages;
				if (jshared > shared) /* per arch; the largest serves all */
					shared = jshared;
				const jval *cl = jget(root, "cluster_dims");
				if (jctas > 1) { /* newer Triton: num_ctas CTAs per cluster along x */
					v->cluster[0] = (uint16_t)jctas;
					v->cluster[1] = v->cluster[2] = 1;
				}
				if (cl && cl->kind == J_ARR) {
					int c = 0;
					v->cluster[0] = v->cluster[1] = v->cluster[2] = 1;
					for (const jval *e = cl->child; e; e = e->next, c++)
						if (c > 2 || e->kind != J_NUM || e->num < 0 || e->num > 0xffff) {
							err(in->path, "bad \"cluster_dims\"");
							return false;
						} else
							v->cluster[c] = (uint16_t)e->num;
				}
				if (json_name && strcmp(json_name, name->str)) {
					err(in->path, "kernel \"%s\", but \"%s\" elsewhere for '%s'", name->str, json_name, k->name);
					return false;
				}
				json_name = name->str;
				scratch[0] |= jget(root, "global_scratch_size") != NULL;
				scratch[1] |= jget(root, "profile_scratch_size") != NULL;
				/* Triton compiles capability 9.0 and later for the arch-specific set (sm_90a) */
				arch = jarch;
				flags = jarch >= 90 ? BLOB_IMAGE_ARCH_SPECIFIC : 0;
				size_t n = strlen(in->path);
				n -= n > 5 && !strcmp(in->path + n - 5, ".json") ? 5 : 0;
				cubin_path = arena_printf(a, "%.*s.cubin", (int)n, in->path);
			}
			if (!read_file(a, cubin_path, &f))
				return false;
			if (!flush(ctx, blob_cubin_read(ctx, cubin_path, f.data, f.size, &ci[i])))
				return false;
			if (arch && arch != ci[i].arch) {
				err(cubin_path, "the cubin is for sm_%d, not sm_%ld", ci[i].arch, arch);
				return false;
			}
			im->kind = BLOB_IMAGE_CUBIN;
			im->arch = ci[i].arch;
			im->flags = (unsigned)flags;
		}
		im->data = f.data;
		im->size = f.size;
		if (!f.size) {
			err(in->path, "empty file");
			return false;
		}
	}
	if (k->ninputs == 0) {
		err(k->name, "no input: give --cubin, --ptx or --triton after -n %s", k->name);
		return false;
	}

	/* The entry point: given, else what the inputs name. */
	if (!symbol)
		symbol = json_name;
	for (int i = 0; i < k->ninputs && !symbol; i++) {
		const input *in = &k->inputs[i];
		if (in->kind == IN_PTX)
			symbol = has_name(pi[i].entries, pi[i].nentries, k->name) || pi[i].nentries > 1 ? k->name
												: pi[i].entries[0];
		else if (ci[i].nkernels == 1)
			symbol = ci[i].kernels[0].name;
	}
	if (!symbol)
		symbol = k->name;
	if (scratch[0])
		add_hidden(a, b, "global_scratch");
	if (scratch[1])
		add_hidden(a, b, "profile_scratch");
	for (int i = 0; i < k->ninputs; i++) {
		const input *in = &k->inputs[i];
		const char *path = in->kind == IN_PTX ? in->path : arena_printf(a, "cubin of %s", in->path);
		const blob_cubin_kernel *ck = NULL;
		for (int j = 0; in->kind != IN_PTX && j < ci[i].nkernels && !ck; j++)
			if (!strcmp(ci[i].kernels[j].name, symbol))
				ck = &ci[i].kernels[j];
		if (in->kind == IN_PTX ? !has_name(pi[i].entries, pi[i].nentries, symbol) : !ck) {
			err(path, "no kernel '%s' in it%s", symbol, k->symbol ? "" : " (give it with --symbol)");
			return false;
		}
		if (ck) { /* informative; per arch, the largest */
			if (ck->n_regs > v->n_regs)
				v->n_regs = ck->n_regs;
			if (ck->shared_static > v->shared_static)
				v->shared_static = ck->shared_static;
		}
		if (in->kind == IN_PTX) {
			int e = 0;
			while (strcmp(pi[i].entries[e], symbol))
				e++;
			if (pi[i].nparams[e] != b->nparams) {
				err(in->path, "entry '%s' takes %d parameters, the signature%s gives %d", symbol,
				    pi[i].nparams[e], b->nparams > b->nvisible ? " with hidden ones" : "", b->nparams);
				return false;
			}
		}
		for (int j = first_image; j < first_image + i; j++)
			if (images[j].kind == images[first_image + i].kind && images[j].arch == images[first_image + i].arch &&
			    images[j].flags == images[first_image + i].flags) {
				err(in->path, "a second %s for sm_%d of '%s'", in->kind == IN_PTX ? "PTX" : "cubin",
				    images[j].arch, k->name);
				return false;
			}
	}
	if (k->cluster[0]) {
		bool from_json = v->cluster[0] * v->cluster[1] * v->cluster[2] > 1;
		if (from_json && memcmp(v->cluster, k->cluster, sizeof v->cluster)) {
			err(k->name, "--cluster %ux%ux%u, but the Triton json's clusters are %ux%ux%u", k->cluster[0],
			    k->cluster[1], k->cluster[2], v->cluster[0], v->cluster[1], v->cluster[2]);
			return false;
		}
		memcpy(v->cluster, k->cluster, sizeof v->cluster);
	}
	v->symbol = symbol;
	v->group = b->group;
	v->num_warps = (int)(num_warps >= 0 ? num_warps : 4);
	v->shared_dynamic = (uint32_t)(shared > 0 ? shared : 0);
	if (k->grid) {
		size_t len = 0;
		if (!flush(ctx, gridexpr_compile(ctx, "-g", k->grid, b->nparams, b->params, 0, NULL, b->grid,
						 sizeof b->grid, &len)))
			return false;
		v->grid_code = b->grid;
		v->grid_size = len;
	}
	return true;
}

/* A C identifier from the base name of BASE. */
static const char *default_name(arena *a, const char *base)
{
	const char *s = strrchr(base, '/');
	s = s ? s + 1 : base;
	char *n = arena_printf(a, "%s%s", isdigit((unsigned char)*s) || !*s ? "k" : "", s);
	for (char *p = n; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
	return n;
}

static bool parse_long(const char *opt, const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (!*s || *end || errno || v < lo || v > hi) {
		err(opt, "'%s' is not an integer in %ld..%ld", s, lo, hi);
		return false;
	}
	*out = v;
	return true;
}

/* --cluster X[,Y[,Z]]: each dim 1 or more, at most 8 blocks in all (the
 * cluster size every GPU with clusters runs). */
static bool parse_cluster(const char *opt, const char *s, uint16_t *out)
{
	long d[3] = {1, 1, 1};
	int n = 0;
	const char *p = s;
	for (;;) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || errno || v < 1 || v > 8 || n == 3 || (*end && *end != ',')) {
			err(opt, "'%s' is not a cluster shape: X[,Y[,Z]], each 1..8", s);
			return false;
		}
		d[n++] = v;
		if (!*end)
			break;
		p = end + 1;
	}
	if (d[0] * d[1] * d[2] > 8) {
		err(opt, "a cluster of %ld blocks (%s): at most 8", d[0] * d[1] * d[2], s);
		return false;
	}
	for (int i = 0; i < 3; i++)
		out[i] = (uint16_t)d[i];
	return true;
}

/* Groups kernels of the same name into one blob_kernel with several
 * variants; their parameters must agree. */
static bool merge_kernels(arena *a, kspec *specs, kbuilt *built, int n, blob_kernel *kernels, int *nkernels)
{
	blob_variant *variants = arena_alloc(a, (size_t)n * sizeof *variants);
	if (!variants)
		return false;
	*nkernels = 0;
	int nv = 0;
	for (int i = 0; i < n; i++) {
		int first = 0;
		while (strcmp(specs[first].name, specs[i].name))
			first++;
		if (first < i)
			continue; /* already taken with its first occurrence */
		blob_kernel *k = &kernels[(*nkernels)++];
		k->name = specs[i].name;
		k->nparams = built[i].nparams;
		k->params = built[i].params;
		k->variants = variants + nv;
		for (int j = i; j < n; j++) {
			if (strcmp(specs[j].name, specs[i].name))
				continue;
			bool same = built[j].nparams == built[i].nparams;
			for (int p = 0; same && p < built[i].nparams; p++) {
				const blob_param *x = &built[i].params[p], *y = &built[j].params[p];
				same = x->kind == y->kind && x->size == y->size && x->dtype == y->dtype &&
				       x->flags == y->flags && !strcmp(x->name, y->name);
			}
			if (!same) {
				err(specs[j].name, "a second variant of '%s' with other parameter types or names", specs[j].name);
				return false;
			}
			variants[nv++] = built[j].variant;
			k->nvariants++;
		}
	}
	return true;
}

int cmd_pack(int argc, char **argv)
{
	arena *a = arena_new();
	if (!a) {
		fprintf(stderr, "tilec pack: error: out of memory\n");
		return 1;
	}
	nerrors = 0;
	const char *out = NULL, *cname = NULL;
	kspec *specs = arena_alloc(a, (size_t)(argc + 1) * sizeof *specs);
	int nspecs = 0, status = 1;
	for (int i = 0; specs && i < argc && !nerrors; i++) {
		const char *opt = argv[i];
		if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) {
			fputs(pack_usage, stdout);
			arena_free(a);
			return 0;
		}
		if (i + 1 >= argc) {
			err(opt, "%s", opt[0] == '-' ? "needs a value" : "unexpected argument");
			break;
		}
		const char *val = argv[++i];
		kspec *k = nspecs ? &specs[nspecs - 1] : NULL;
		if (!strcmp(opt, "-o"))
			out = val;
		else if (!strcmp(opt, "--tuning"))
			err(opt, "tilec pack makes kernels of one config, which have no tuning table: compile the "
			    "@triton.autotune kernel with `tilec compile ... --tuning %s`, or apply the file at run time "
			    "with tile_tuning_apply()", val);
		else if (!strcmp(opt, "--name"))
			cname = val;
		else if (!strcmp(opt, "-n")) {
			k = &specs[nspecs++];
			memset(k, 0, sizeof *k);
			k->name = val;
			k->num_warps = k->shared = -1;
		} else if (!k)
			err(opt, "%s", opt[0] == '-' ? "comes before the first -n KERNEL" : "unexpected argument");
		else if (!strcmp(opt, "-s"))
			k->sig = val;
		else if (!strcmp(opt, "--param-names"))
			k->param_names = val;
		else if (!strcmp(opt, "-g"))
			k->grid = val;
		else if (!strcmp(opt, "--symbol"))
			k->symbol = val;
		else if (!strcmp(opt, "-w"))
			parse_long(opt, val, 1, 32, &k->num_warps);
		else if (!strcmp(opt, "--shared"))
			parse_long(opt, val, 0, 0x7fffffff, &k->shared);
		else if (!strcmp(opt, "--cluster"))
			parse_cluster(opt, val, k->cluster);
		else if (!strcmp(opt, "--cubin") || !strcmp(opt, "--ptx") || !strcmp(opt, "--triton")) {
			if (k->ninputs == MAX_INPUTS) {
				err(opt, "more than %d inputs for one kernel", MAX_INPUTS);
				break;
			}
			input *in = &k->inputs[k->ninputs++];
			memset(in, 0, sizeof *in);
			in->kind = opt[2] == 'c' ? IN_CUBIN : opt[2] == 'p' ? IN_PTX : IN_TRITON;
			in->path = val;
			const char *colon = strchr(val, ':');
			if (in->kind == IN_CUBIN && !strncmp(val, "sm_", 3) && colon) {
				if (!parse_sm(val, (size_t)(colon - val), &in->arch, &in->flags))
					err(opt, "'%.*s' is not an arch (sm_80, sm_90a, ...)", (int)(colon - val), val);
				in->path = colon + 1;
			}
		} else
			err(opt, "unknown option (see tilec pack --help)");
	}
	if (!nerrors && (!out || !nspecs))
		err(NULL, "%s", !out ? "no output: give -o BASE" : "no kernel: give -n KERNEL -s SIGNATURE ...");
	for (int i = 0; i < nspecs && !nerrors; i++)
		if (!specs[i].sig)
			err(specs[i].name, "no signature: give -s after -n %s", specs[i].name);
	if (nerrors) {
		fputs("(tilec pack --help describes the options)\n", stderr);
		arena_free(a);
		return 1;
	}

	int maxin = 0;
	for (int i = 0; i < nspecs; i++)
		maxin += specs[i].ninputs;
	kbuilt *built = arena_alloc(a, (size_t)nspecs * sizeof *built);
	blob_image *images = arena_alloc(a, (size_t)(maxin + 1) * sizeof *images);
	blob_kernel *kernels = arena_alloc(a, (size_t)nspecs * sizeof *kernels);
	tilec_ctx *ctx = tilec_ctx_new();
	uint8_t *blob = NULL;
	size_t size = 0;
	int nimages = 0, nkernels = 0;
	if (!built || !images || !kernels || !ctx) {
		err(NULL, "out of memory");
		goto done;
	}
	for (int i = 0; i < nspecs; i++) {
		built[i].group = i;
		if (!build_kernel(ctx, a, &specs[i], &built[i], images, &nimages))
			goto done;
	}
	if (!merge_kernels(a, specs, built, nspecs, kernels, &nkernels))
		goto done;
	blob_desc d = {nkernels, kernels, nimages, images, nspecs};
	if (!cname)
		cname = default_name(a, out);
	const char *tbpath = arena_printf(a, "%s.tileblob", out);
	if (blob_write(ctx, &d, &blob, &size) != TILEC_OK || emit_c(ctx, &d, blob, size, out, cname) != TILEC_OK)
		goto done;
	const void *data[1] = {blob};
	if (emit_write_files(ctx, 1, &tbpath, data, &size) != TILEC_OK) {
		remove(arena_printf(a, "%s.c", out));
		remove(arena_printf(a, "%s.h", out));
		goto done;
	}
	status = 0;
done:
	if (ctx)
		fputs(tilec_diagnostics(ctx), stderr);
	tilec_ctx_free(ctx);
	free(blob);
	arena_free(a);
	return status;
}

/* ---- inspect ------------------------------------------------------ */

/* The bytes of the array in a generated .c: "bytes[N]" then "= {{" and N
 * comma-separated numbers. NULL (after an error) when there is none. */
static uint8_t *parse_c_array(arena *a, const char *path, const char *text, size_t *size)
{
	const char *p = strstr(text, "bytes[");
	char *end;
	unsigned long n = p ? strtoul(p + 6, &end, 10) : 0;
	const char *open = p ? strstr(p, "= {{") : NULL;
	if (!open || !n || n > (1ul << 31)) {
		err(path, "neither a tile blob nor a C file generated by tilec");
		return NULL;
	}
	uint8_t *b = arena_alloc(a, n);
	if (!b) {
		err(path, "out of memory");
		return NULL;
	}
	p = open + 4;
	for (unsigned long i = 0; i < n; i++) {
		while (isspace((unsigned char)*p))
			p++;
		unsigned long v = strtoul(p, &end, 0);
		if (end == p || v > 255 || (*end != ',' && *end != '}')) {
			err(path, "byte %lu of the array is not a number 0..255", i);
			return NULL;
		}
		b[i] = (uint8_t)v;
		p = *end == ',' ? end + 1 : end;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p != '}') {
		err(path, "the array holds more than its %lu bytes", n);
		return NULL;
	}
	*size = n;
	return b;
}

static void print_constexpr(const tile_constexpr_info *c)
{
	printf("%s=", c->name);
	switch (c->kind) {
	case 1: printf("%.17g", c->fval); break;
	case 2: printf("%s", c->ival ? "True" : "False"); break;
	case 3: printf("\"%s\"", c->sval); break;
	case 4: printf("%s", c->ival > 0 && c->ival < IR_PTR ? ir_kind_name((ir_kind)c->ival) : "?"); break;
	default: printf("%lld", (long long)c->ival);
	}
}

/* Prints the grid program of variant v of kernel k. */
static void print_grid(const tile_module *m, int k, int v, const char *const *pnames, int np,
		       const char *const *cnames, int nc)
{
	uint32_t size;
	const uint8_t *code = tilec_grid_program(m, k, v, &size);
	strbuf sb;
	sb_init(&sb);
	gridexpr_format(&sb, code, size, np, pnames, nc, cnames);
	printf("%s", sb_str(&sb));
	sb_free(&sb);
}

/* "recipe NAME: BASE, shape [S...], strides [T..., 1], block [B...]": the
 * program's values split at its top-level commas */
static void print_recipe(const tile_recipe_info *r, const char *const *pnames, int np, const char *const *cnames, int nc)
{
	strbuf sb;
	sb_init(&sb);
	gridexpr_format(&sb, r->program, r->program_size, np, pnames, nc, cnames);
	const char *text = sb_str(&sb);
	printf("    recipe %s: %s, shape [", r->param < np ? pnames[r->param] : "?", r->base < np ? pnames[r->base] : "?");
	int value = 0, depth = 0;
	for (const char *c = text; *c; c++) {
		depth += (*c == '(') - (*c == ')');
		if (*c == ',' && depth == 0) {
			value++;
			printf(value == r->rank ? "], strides [" : ", ");
			c += c[1] == ' ';
			continue;
		}
		putchar(*c);
	}
	printf("%s1], block [", r->rank > 1 ? ", " : "");
	for (int d = 0; d < r->rank; d++)
		printf("%s%d", d ? ", " : "", (int)r->block_shape[d]);
	printf("]\n");
	sb_free(&sb);
}

static void list_blob(const char *path, const uint8_t *blob, size_t size, tile_module *m)
{
	int nk = tile_kernel_count(m), ni = tile_image_count(m);
	printf("%s: tile blob v%d, %zu bytes, %d kernel%s, %d image%s\n", path, blob[4] | blob[5] << 8, size, nk, nk == 1 ? "" : "s",
	       ni, ni == 1 ? "" : "s");
	for (int k = 0; k < nk; k++) {
		int np = tile_param_count(m, k), nv = tile_variant_count(m, k), nvis = 0;
		const char *pnames[BLOB_MAX_PARAMS];
		printf("kernel %s\n", tile_kernel_name(m, k));
		for (int i = 0; i < np && i < BLOB_MAX_PARAMS; i++) {
			tile_param_info p;
			tile_param_get_info(m, k, i, &p);
			pnames[i] = p.name;
			nvis += !p.hidden;
			printf("  param %d %s: %s%s%s%s%s\n", i, p.name, p.kind == 0 ? "*" : p.kind == BLOB_PARAM_TENSORMAP ? "tensormap " : "",
			       p.dtype > 0 && p.dtype < IR_PTR ? ir_kind_name((ir_kind)p.dtype) : "?",
			       p.hidden ? " (hidden)" : "", p.reset_to_zero ? " (reset_to_zero)" : "",
			       p.restore_value ? " (restore_value)" : "");
		}
		int nconfigs = tile_config_count(m, k);
		tile_tuning_info ti;
		if (nconfigs > 1 && tile_tuning_get_info(m, k, &ti) == TILE_SUCCESS) {
			printf("  configs %d; tuning key", nconfigs);
			for (int i = 0; i < ti.n_keys; i++)
				printf("%s%s", i ? "," : " ", ti.key_params[i] < np ? pnames[ti.key_params[i]] : "?");
			/* the identity a tuning file for this kernel must carry (docs/TUNING.md) */
			printf("%s; default config %d; %d entr%s; identity %016llx\n", ti.n_keys ? "" : " (none)", ti.default_config,
			       ti.n_entries, ti.n_entries == 1 ? "y" : "ies", (unsigned long long)tile_kernel_identity(m, k));
			for (int e = 0; e < ti.n_entries; e++) {
				int64_t keys[TILE_TUNING_MAX_KEYS];
				int cfg;
				if (tile_tuning_get_entry(m, k, e, keys, &cfg) != TILE_SUCCESS)
					break;
				printf("    ");
				for (int i = 0; i < ti.n_keys; i++)
					printf("%s%s=%lld", i ? " " : "", pnames[ti.key_params[i]], (long long)keys[i]);
				printf(" -> config %d\n", cfg);
			}
		}
		for (int h = 0; h < tile_heuristic_count(m, k); h++) {
			tile_heuristic_info hi;
			tile_variant_info v0;
			const char *cn[256];
			if (tile_heuristic_get_info(m, k, h, &hi) != TILE_SUCCESS || tile_variant_get_info(m, k, 0, &v0) != TILE_SUCCESS)
				break;
			for (int c = 0; c < v0.n_constexprs && c < 256; c++) {
				tile_constexpr_info ci;
				tile_constexpr_get_info(m, k, 0, c, &ci);
				cn[c] = ci.name;
			}
			strbuf sb;
			sb_init(&sb);
			gridexpr_format(&sb, hi.program, hi.program_size, np, pnames, v0.n_constexprs < 256 ? v0.n_constexprs : 256, cn);
			printf("  heuristic %s = %s (at launch)\n", hi.name, sb_str(&sb));
			sb_free(&sb);
		}
		for (int v = 0; v < nv; v++) {
			tile_variant_info vi;
			tile_variant_get_info(m, k, v, &vi);
			printf("  variant %d: %s, group %d, num_warps %d, num_stages %d, shared %u static + %u dynamic",
			       v, vi.symbol, vi.group, vi.num_warps, vi.num_stages, vi.shared_static, vi.shared_dynamic);
			if (vi.cluster[0] * vi.cluster[1] * vi.cluster[2] > 1)
				printf(", cluster %ux%ux%u", vi.cluster[0], vi.cluster[1], vi.cluster[2]);
			if (vi.producer_warps)
				printf(", %d producer warp%s where the image is warp-specialized", vi.producer_warps,
				       vi.producer_warps == 1 ? "" : "s");
			if (vi.n_regs)
				printf(", %d registers", vi.n_regs);
			if (vi.spill_stores >= 0)
				printf(", spills %d bytes stored + %d loaded", vi.spill_stores, vi.spill_loads);
			if (nconfigs > 1)
				printf(", config %d", vi.config);
			if (vi.source_config >= 0)
				printf(" (autotune config %d)", vi.source_config);
			printf("\n");
			const char *cnames[256];
			if (vi.n_constexprs)
				printf("    constexprs:");
			for (int c = 0; c < vi.n_constexprs; c++) {
				tile_constexpr_info ci;
				tile_constexpr_get_info(m, k, v, c, &ci);
				if (c < 256)
					cnames[c] = ci.name;
				printf(c ? ", " : " ");
				print_constexpr(&ci);
			}
			if (vi.n_constexprs)
				printf("\n");
			if ((vi.pred_div16 | vi.pred_div8 | vi.pred_div4 | vi.pred_eq1) || vi.n_high_preds) {
				printf("    predicates:");
				const char *sep = " ";
				for (int i = 0; i < nvis && i < BLOB_MAX_PARAMS; i++) {
					int by = tile_variant_predicate(m, k, v, i);
					if (by == 1)
						printf("%s%s == 1", sep, pnames[i]), sep = ", ";
					else if (by > 1)
						printf("%s%s %% %d == 0", sep, pnames[i], by), sep = ", ";
				}
				printf("\n");
			}
			printf("    grid: ");
			if (vi.has_grid_program)
				print_grid(m, k, v, pnames, np, cnames, vi.n_constexprs < 256 ? vi.n_constexprs : 256);
			else
				printf("given by the caller");
			printf("\n");
			for (int r = 0; r < vi.n_recipes; r++) {
				tile_recipe_info ri;
				if (tile_recipe_get_info(m, k, v, r, &ri) != TILE_SUCCESS)
					break;
				print_recipe(&ri, pnames, np, cnames, vi.n_constexprs < 256 ? vi.n_constexprs : 256);
			}
		}
	}
	uint64_t stored = 0, raw = 0;
	for (int i = 0; i < ni; i++) {
		tile_image_info ii;
		tile_image_get_info(m, i, &ii);
		stored += ii.size;
		raw += ii.raw_size;
		/* tilec keeps an arch-specific image only for code of its own */
		printf("image %d: group %d, %s sm_%d%s%s%s%s, %u bytes %s, %u raw\n", i, ii.group, ii.kind ? "ptx" : "cubin",
		       ii.arch, ii.flags & BLOB_IMAGE_ARCH_SPECIFIC ? "a" : "",
		       ii.flags & BLOB_IMAGE_TENSORMAPS ? " (reads tensor maps)" : "",
		       ii.flags & BLOB_IMAGE_ARCH_SPECIFIC ? ", Hopper's wgmma code" : "",
		       ii.flags & BLOB_IMAGE_PRODUCER ? ", warp-specialized (producer warps)" : "", ii.size,
		       ii.compression ? "zlib" : "stored", ii.raw_size);
	}
	printf("total: %zu bytes; images %llu bytes stored, %llu raw\n", size, (unsigned long long)stored,
	       (unsigned long long)raw);
}

int cmd_inspect(int argc, char **argv)
{
	if (argc == 1 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
		printf("usage: tilec inspect FILE\n\nLists the kernels, parameters, variants and images of a blob\n"
		       "(BASE.tileblob) or of the array in a generated BASE.c; refuses a bad blob.\n");
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: tilec inspect FILE\n");
		return 2;
	}
	nerrors = 0;
	arena *a = arena_new();
	file_data f;
	int status = 1;
	if (!a || !read_file(a, argv[0], &f))
		goto done;
	const uint8_t *b = f.data;
	size_t size = f.size;
	if (size < 4 || memcmp(b, "TILE", 4) != 0)
		b = parse_c_array(a, argv[0], (const char *)f.data, &size);
	if (!b)
		goto done;
	tile_module *m;
	tile_status st = tile_module_create(b, size, &m);
	if (st != TILE_SUCCESS) {
		err(argv[0], "bad blob: %s: %s", tile_status_string(st), tile_last_error());
		goto done;
	}
	list_blob(argv[0], b, size, m);
	tile_module_destroy(m);
	status = 0;
done:
	arena_free(a);
	return status;
}
