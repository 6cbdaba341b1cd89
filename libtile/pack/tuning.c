/* tuning.c - reading tuning files: the measured choice of autotune config
 * per dispatch key that `tilec compile --tuning FILE` embeds in a blob.
 *
 * The file is the text tile-tune writes on the target GPU (docs/TUNING.md):
 * a `tile-tuning 2` line, then per kernel a `kernel NAME identity H configs
 * N key P1,P2 default D` line followed by entry lines of key values and a
 * config. '#' starts a comment. A version 1 file, which has no identity,
 * is refused. The loader reads the same text at run time
 * (tile_tuning_apply in loader/dispatch.h); this reader is the compiler's,
 * with diagnostics at file:line:col, and leaves the checks that need the
 * kernel (parameter names, config counts, the identity) and the sorting to
 * the caller and blob_write. Everything lives in the caller's arena.
 */
#include "pack/pack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct tok {
	const char *s;
	size_t n;
	int col;
} tok;

/* Splits [s, s + len) at blanks up to a '#'; at most max tokens (one more
 * is counted when there are more). */
static int split(const char *s, size_t len, tok *t, int max)
{
	int n = 0;
	size_t i = 0;
	while (i < len && s[i] != '#') {
		if (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			i++;
			continue;
		}
		size_t start = i;
		while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '#')
			i++;
		if (n < max)
			t[n] = (tok){s + start, i - start, (int)start + 1};
		n++;
	}
	return n;
}

static bool tok_is(const tok *t, const char *word)
{
	return t->n == strlen(word) && !memcmp(t->s, word, t->n);
}

/* An identity: exactly 16 hex digits. */
static bool tok_hex(const tok *t, uint64_t *out)
{
	uint64_t v = 0;
	if (t->n != 16)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		char c = t->s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

static bool tok_int(const tok *t, int64_t *out)
{
	char buf[32];
	if (t->n == 0 || t->n >= sizeof buf)
		return false;
	memcpy(buf, t->s, t->n);
	buf[t->n] = 0;
	char *end;
	errno = 0;
	long long v = strtoll(buf, &end, 10);
	if (*end || errno)
		return false;
	*out = v;
	return true;
}

tilec_status tuning_read(tilec_ctx *ctx, arena *a, const char *path, tuning_file *out)
{
	src_file *f;
	memset(out, 0, sizeof *out);
	tilec_status st = src_read_file(ctx, a, path, &f);
	if (st != TILEC_OK)
		return st;
	int capk = 0, cape = 0, line = 0;
	bool header = false;
	tuning_kernel *k = NULL;
	for (const char *p = f->text, *end = f->text + f->len; p < end; ) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t len = eol ? (size_t)(eol - p) : (size_t)(end - p);
		tok t[BLOB_MAX_KEYS + 8];
		int max = (int)(sizeof t / sizeof t[0]);
		int n = split(p, len, t, max);
		p += len + 1;
		line++;
		if (n == 0)
			continue;
		src_loc at = {f, line, n > max ? 1 : t[0].col};
		if (!header) {
			int64_t v;
			if (n == 2 && tok_is(&t[0], "tile-tuning") && tok_int(&t[1], &v) && v == 1) {
				diag_error(ctx, at, "a version 1 tuning file ('tile-tuning 1') does not record the identity of the "
					   "blob it was tuned for: re-run tile-tune with a blob of this build (tilec reads "
					   "'tile-tuning 2')");
				return TILEC_ERR_FORMAT;
			}
			if (n != 2 || !tok_is(&t[0], "tile-tuning") || !tok_int(&t[1], &v) || v != 2) {
				diag_error(ctx, at, "expected 'tile-tuning 2' (a tuning file written by tile-tune)");
				return TILEC_ERR_FORMAT;
			}
			header = true;
			continue;
		}
		if (n > max) {
			diag_error(ctx, at, "too many fields (at most %d keys)", BLOB_MAX_KEYS);
			return TILEC_ERR_FORMAT;
		}
		if (tok_is(&t[0], "kernel")) {
			if (n < 2) {
				diag_error(ctx, at, "'kernel' needs a name");
				return TILEC_ERR_FORMAT;
			}
			if (!arena_grow(a, (void **)&out->kernels, &capk, out->nkernels, sizeof(tuning_kernel)))
				return TILEC_ERR_NOMEM;
			k = &out->kernels[out->nkernels++];
			memset(k, 0, sizeof *k);
			cape = 0;
			k->loc = at;
			k->name = arena_strndup(a, t[1].s, t[1].n);
			k->nconfigs = -1;
			k->default_config = -1;
			bool have_key = false, have_identity = false;
			for (int i = 2; i < n; i += 2) {
				src_loc fat = {f, line, t[i].col};
				if (i + 1 >= n) {
					diag_error(ctx, fat, "'%.*s' needs a value", (int)t[i].n, t[i].s);
					return TILEC_ERR_FORMAT;
				}
				int64_t v;
				if (tok_is(&t[i], "identity") && tok_hex(&t[i + 1], &k->identity)) {
					have_identity = true;
					k->identity_loc = (src_loc){f, line, t[i + 1].col};
				} else if (tok_is(&t[i], "configs") && tok_int(&t[i + 1], &v) && v > 0 && v < (1 << 20)) {
					k->nconfigs = (int)v;
				} else if (tok_is(&t[i], "default") && tok_int(&t[i + 1], &v) && v >= 0 && v < (1 << 20)) {
					k->default_config = (int)v;
				} else if (tok_is(&t[i], "key")) {
					have_key = true;
					const tok *kt = &t[i + 1];
					if (tok_is(kt, "-"))
						continue;
					for (size_t s = 0; s <= kt->n;) {
						size_t e = s;
						while (e < kt->n && kt->s[e] != ',')
							e++;
						if (e == s || k->nkeys == BLOB_MAX_KEYS) {
							diag_error(ctx, (src_loc){f, line, t[i + 1].col}, "key wants 1 to %d comma-separated "
								   "parameter names, or -", BLOB_MAX_KEYS);
							return TILEC_ERR_FORMAT;
						}
						k->keys[k->nkeys++] = arena_strndup(a, kt->s + s, e - s);
						s = e + 1;
					}
				} else {
					diag_error(ctx, fat, "unknown or bad field '%.*s %.*s' (identity H, configs N, key P1,P2,..., "
						   "default D)",
						   (int)t[i].n, t[i].s, (int)t[i + 1].n, t[i + 1].s);
					return TILEC_ERR_FORMAT;
				}
			}
			if (k->nconfigs < 0 || k->default_config < 0 || !have_key) {
				diag_error(ctx, at, "a kernel line needs configs N, key P1,P2,... (or -) and default D");
				return TILEC_ERR_FORMAT;
			}
			if (!have_identity) {
				diag_error(ctx, at, "a kernel line needs identity H (16 hex digits: the identity of the kernel "
					   "tile-tune measured)");
				return TILEC_ERR_FORMAT;
			}
			if (k->default_config >= k->nconfigs) {
				diag_error(ctx, at, "default config %d of %d", k->default_config, k->nconfigs);
				return TILEC_ERR_FORMAT;
			}
			continue;
		}
		if (!k) {
			diag_error(ctx, at, "an entry before any 'kernel' line");
			return TILEC_ERR_FORMAT;
		}
		if (n != k->nkeys + 1) {
			diag_error(ctx, at, "%d fields; kernel %s wants %d key values and a config", n, k->name, k->nkeys);
			return TILEC_ERR_FORMAT;
		}
		while (cape < (k->nentries + 1) * (k->nkeys + 1))
			if (!arena_grow(a, (void **)&k->entries, &cape, cape, sizeof(int64_t)))
				return TILEC_ERR_NOMEM;
		int64_t *row = k->entries + (size_t)k->nentries * (k->nkeys + 1);
		for (int i = 0; i < n; i++)
			if (!tok_int(&t[i], &row[i])) {
				diag_error(ctx, (src_loc){f, line, t[i].col}, "'%.*s' is not an integer", (int)t[i].n, t[i].s);
				return TILEC_ERR_FORMAT;
			}
		if (row[k->nkeys] < 0 || row[k->nkeys] >= k->nconfigs) {
			diag_error(ctx, (src_loc){f, line, t[k->nkeys].col}, "config %lld; kernel %s has %d", (long long)row[k->nkeys],
				   k->name, k->nconfigs);
			return TILEC_ERR_FORMAT;
		}
		k->nentries++;
	}
	if (!header) {
		diag_error(ctx, (src_loc){f, 1, 1}, "an empty tuning file (expected 'tile-tuning 2')");
		return TILEC_ERR_FORMAT;
	}
	return TILEC_OK;
}
