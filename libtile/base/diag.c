/* diag.c - source files and diagnostics.
 *
 * Diagnostics accumulate in the context as text in the form compilers use:
 * "path:line:col: error: message", the source line, and a caret under the
 * column. libtile never prints; tilec prints the text when a call fails.
 * The context also remembers every source file read (tilec_input_path), so
 * that tilec can write a depfile naming exactly the files a compile read.
 * A context is one thread's: work done on other threads reports into
 * contexts of its own, appended to the compilation's (diag_append) in the
 * order a serial compile would have reported them.
 */
#include "base/base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tilec_ctx *tilec_ctx_new(void)
{
	return calloc(1, sizeof(tilec_ctx));
}

void tilec_ctx_free(tilec_ctx *ctx)
{
	if (!ctx)
		return;
	sb_free(&ctx->diags);
	sb_free(&ctx->device_out);
	for (int i = 0; i < ctx->ninputs; i++)
		free(ctx->inputs[i]);
	free(ctx->inputs);
	free(ctx);
}

const char *tilec_diagnostics(const tilec_ctx *ctx)
{
	return sb_str(&ctx->diags);
}

const char *tilec_device_output(const tilec_ctx *ctx)
{
	return sb_str(&ctx->device_out);
}

int tilec_error_count(const tilec_ctx *ctx)
{
	return ctx->errors;
}

int tilec_warning_count(const tilec_ctx *ctx)
{
	return ctx->warnings;
}

void tilec_clear_diagnostics(tilec_ctx *ctx)
{
	sb_free(&ctx->diags);
	ctx->errors = ctx->warnings = 0;
}

const char *tilec_status_string(tilec_status status)
{
	switch (status) {
	case TILEC_OK: return "success";
	case TILEC_ERR_INVALID: return "invalid argument";
	case TILEC_ERR_IO: return "input/output error";
	case TILEC_ERR_NOMEM: return "out of memory";
	case TILEC_ERR_SYNTAX: return "syntax error";
	case TILEC_ERR_UNSUPPORTED: return "unsupported construct";
	case TILEC_ERR_SEMANTIC: return "semantic error";
	case TILEC_ERR_RUNTIME: return "interpreter error";
	case TILEC_ERR_LLVM: return "LLVM error";
	case TILEC_ERR_PTXAS: return "ptxas error";
	case TILEC_ERR_FORMAT: return "malformed input";
	}
	return "unknown status";
}

/* Appends the source line holding loc and a caret under its column. */
static void diag_quote_line(strbuf *sb, src_loc loc)
{
	const char *p = loc.file->text, *end = p + loc.file->len;
	for (int line = 1; line < loc.line && p < end; p++)
		if (*p == '\n')
			line++;
	const char *eol = p;
	while (eol < end && *eol != '\n' && *eol != '\r')
		eol++;
	if (p >= end && loc.line > 1)
		return;
	sb_putn(sb, p, (size_t)(eol - p));
	sb_putc(sb, '\n');
	for (int i = 1; i < loc.col && p + i - 1 < eol; i++)
		sb_putc(sb, p[i - 1] == '\t' ? '\t' : ' ');
	sb_puts(sb, "^\n");
}

void diag_verror(tilec_ctx *ctx, src_loc loc, const char *kind, const char *fmt, va_list ap)
{
	strbuf *sb = &ctx->diags;
	if (loc.file)
		sb_printf(sb, "%s:%d:%d: %s: ", loc.file->path, loc.line, loc.col, kind);
	else
		sb_printf(sb, "tilec: %s: ", kind);
	sb_vprintf(sb, fmt, ap);
	sb_putc(sb, '\n');
	if (loc.file && loc.line > 0)
		diag_quote_line(sb, loc);
}

#define DIAG_FN(fname, kind, counter)                                     \
	void fname(tilec_ctx *ctx, src_loc loc, const char *fmt, ...)     \
	{                                                                 \
		va_list ap;                                               \
		va_start(ap, fmt);                                        \
		diag_verror(ctx, loc, kind, fmt, ap);                     \
		va_end(ap);                                               \
		counter;                                                  \
	}
DIAG_FN(diag_error, "error", ctx->errors++)
DIAG_FN(diag_warning, "warning", ctx->warnings++)
DIAG_FN(diag_note, "note", (void)0)

void diag_append(tilec_ctx *ctx, const tilec_ctx *from)
{
	sb_puts(&ctx->diags, sb_str(&from->diags));
	ctx->errors += from->errors;
	ctx->warnings += from->warnings;
}

file_read_status file_read(const char *path, uint8_t **data, size_t *size)
{
	return file_read_max(path, SIZE_MAX, data, size);
}

file_read_status file_read_max(const char *path, size_t max, uint8_t **data, size_t *size)
{
	FILE *f = fopen(path, "rbe"); /* closed on exec: ptxas runs while other threads read */
	if (!f)
		return FILE_READ_NO_OPEN;
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap + 1);
	bool too_big = false;
	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		if (n > max) { /* a FIFO or /dev/zero ends here too */
			too_big = true;
			break;
		}
		uint8_t *nb = realloc(buf, cap * 2 + 1);
		if (!nb) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	file_read_status st = !buf ? FILE_READ_NOMEM : ferror(f) ? FILE_READ_ERROR : too_big || n > max ? FILE_READ_TOO_BIG : FILE_READ_OK;
	fclose(f);
	if (st != FILE_READ_OK) {
		free(buf);
		return st;
	}
	buf[n] = 0;
	*data = buf;
	*size = n;
	return FILE_READ_OK;
}

int tilec_input_count(const tilec_ctx *ctx)
{
	return ctx->ninputs;
}

const char *tilec_input_path(const tilec_ctx *ctx, int i)
{
	return i >= 0 && i < ctx->ninputs ? ctx->inputs[i] : NULL;
}

static bool record_input(tilec_ctx *ctx, const char *path)
{
	for (int i = 0; i < ctx->ninputs; i++)
		if (!strcmp(ctx->inputs[i], path))
			return true;
	if (ctx->ninputs == ctx->capinputs) {
		int cap = ctx->capinputs ? ctx->capinputs * 2 : 8;
		char **p = realloc(ctx->inputs, sizeof(char *) * (size_t)cap);
		if (!p)
			return false;
		ctx->inputs = p;
		ctx->capinputs = cap;
	}
	char *copy = malloc(strlen(path) + 1);
	if (!copy)
		return false;
	strcpy(copy, path);
	ctx->inputs[ctx->ninputs++] = copy;
	return true;
}

tilec_status src_read_file(tilec_ctx *ctx, arena *a, const char *path, src_file **out)
{
	src_loc none = {0};
	uint8_t *buf;
	size_t len;
	file_read_status rs = file_read_max(path, SRC_MAX_FILE, &buf, &len);
	if (rs == FILE_READ_NO_OPEN) {
		diag_error(ctx, none, "cannot open '%s': %s", path, strerror(errno));
		return TILEC_ERR_IO;
	}
	if (rs == FILE_READ_TOO_BIG) {
		diag_error(ctx, none, "'%s' is larger than %d MiB", path, SRC_MAX_FILE >> 20);
		return TILEC_ERR_UNSUPPORTED;
	}
	if (rs != FILE_READ_OK) {
		diag_error(ctx, none, "cannot read '%s'", path);
		return rs == FILE_READ_NOMEM ? TILEC_ERR_NOMEM : TILEC_ERR_IO;
	}
	src_file *sf = arena_alloc(a, sizeof *sf);
	char *text = sf ? arena_strndup(a, (const char *)buf, len) : NULL;
	char *p = sf ? arena_strdup(a, path) : NULL;
	free(buf);
	if (!sf || !text || !p)
		return TILEC_ERR_NOMEM;
	sf->path = p;
	sf->text = text;
	sf->len = len;
	int line = 1;
	for (const char *q = text, *end = text + len; q < end; line++) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		size_t n = (size_t)((nl ? nl : end) - q);
		if (n > SRC_MAX_LINE) {
			diag_error(ctx, none, "%s:%d: line of %zu characters (at most %d)", path, line, n,
				   SRC_MAX_LINE);
			return TILEC_ERR_UNSUPPORTED;
		}
		q += n + 1;
	}
	*out = sf;
	return record_input(ctx, path) ? TILEC_OK : TILEC_ERR_NOMEM;
}
