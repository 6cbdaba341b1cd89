/* base.h - what every phase of libtile stands on: memory, text, source
 * locations and diagnostics.
 *
 * A compilation allocates from an arena and frees it at once, so no phase
 * frees piecemeal; strbuf is the growable text that dumps and diagnostics
 * are written to; src_file and src_loc name places in a kernel's source;
 * the tilec_ctx behind the public handle collects the diagnostics, which is
 * how every entry point reports (libtile never prints, never exits);
 * jobs_run spreads a fixed list of tasks over a few threads.
 * Nothing here knows about kernels or IR: this header includes only the
 * public tilec.h and libc, and every other header of libtile includes it.
 * Names are module-prefixed (arena_, sb_, diag_, src_, file_, jobs_).
 */
#ifndef TILE_BASE_H
#define TILE_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tilec.h"

#if defined(__GNUC__)
#define TILE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TILE_PRINTF(f, a)
#endif

/* ======================================================================
 * arena.c - bump allocation per compilation, growable strings
 * ====================================================================== */

typedef struct arena arena;

arena *arena_new(void);
void arena_free(arena *a);
/* Zeroed, 16-byte aligned; NULL when out of memory. */
void *arena_alloc(arena *a, size_t size);
/* Grows a block obtained from this arena (copying); old may be NULL. */
void *arena_realloc(arena *a, void *old, size_t old_size, size_t new_size);
/* Room for item n of a growable array *items of *cap items of `size`
 * bytes: doubles it (from 8) when full; false when out of memory. */
bool arena_grow(arena *a, void **items, int *cap, int n, size_t size);
char *arena_strndup(arena *a, const char *s, size_t n);
char *arena_strdup(arena *a, const char *s);
char *arena_printf(arena *a, const char *fmt, ...) TILE_PRINTF(2, 3);

/* A growable, always NUL-terminated byte buffer on the C heap. A failed
 * allocation sets `failed` and further appends are ignored. */
typedef struct strbuf {
	char *data;
	size_t len, cap;
	bool failed;
} strbuf;

void sb_init(strbuf *sb);
void sb_free(strbuf *sb);
void sb_putn(strbuf *sb, const char *s, size_t n);
void sb_puts(strbuf *sb, const char *s);
void sb_putc(strbuf *sb, char c);
void sb_printf(strbuf *sb, const char *fmt, ...) TILE_PRINTF(2, 3);
void sb_vprintf(strbuf *sb, const char *fmt, va_list ap);
/* A double as the fewest digits that read back as it, with a '.' or an
 * exponent so that it reads back as a float (Python's repr); infinities as
 * 1e999 and -1e999 (what such a literal reads back as), NaN as nan. */
void sb_put_float(strbuf *sb, double d);
/* The text ("" for an empty buffer); never NULL. */
const char *sb_str(const strbuf *sb);

/* ======================================================================
 * diag.c - source files, locations and diagnostics
 * ====================================================================== */

typedef struct src_file {
	const char *path; /* as given by the user */
	const char *text; /* NUL-terminated */
	size_t len;
} src_file;

/* 1-based line and column; file NULL means "no location". */
typedef struct src_loc {
	const src_file *file;
	int line, col;
} src_loc;

struct tilec_ctx {
	strbuf diags;
	strbuf device_out; /* tl.device_print lines of interpreted kernels */
	int errors, warnings;
	char **inputs; /* every file src_read_file read, once each (malloc'd) */
	int ninputs, capinputs;
};

/* "path:line:col: error: message", then the source line and a caret. */
void diag_error(tilec_ctx *ctx, src_loc loc, const char *fmt, ...) TILE_PRINTF(3, 4);
void diag_warning(tilec_ctx *ctx, src_loc loc, const char *fmt, ...) TILE_PRINTF(3, 4);
void diag_note(tilec_ctx *ctx, src_loc loc, const char *fmt, ...) TILE_PRINTF(3, 4);
void diag_verror(tilec_ctx *ctx, src_loc loc, const char *kind, const char *fmt, va_list ap);

/* Appends the diagnostics of `from` (a task's own context) to ctx, with
 * their counts. */
void diag_append(tilec_ctx *ctx, const tilec_ctx *from);

/* Source files (kernels, manifests): at most SRC_MAX_FILE bytes and
 * SRC_MAX_LINE characters a line (docs/LANGUAGE.md, limits). */
#define SRC_MAX_FILE (16 << 20)
#define SRC_MAX_LINE (1 << 20)

/* Reads a whole file into an arena; NUL-terminated. Emits a diagnostic and
 * returns TILEC_ERR_IO on failure (TILEC_ERR_UNSUPPORTED past the limits). The path is recorded in the context
 * (tilec_input_path) so that a build tool can be told what was read. */
tilec_status src_read_file(tilec_ctx *ctx, arena *a, const char *path, src_file **out);

typedef enum { FILE_READ_OK, FILE_READ_NO_OPEN, FILE_READ_ERROR, FILE_READ_NOMEM, FILE_READ_TOO_BIG } file_read_status;
/* The whole file at path in *data (malloc'd, NUL-terminated) and *size (the
 * NUL not counted); no diagnostics. After FILE_READ_NO_OPEN errno is
 * fopen's. */
file_read_status file_read(const char *path, uint8_t **data, size_t *size);
/* The same, FILE_READ_TOO_BIG past max bytes (reading stops there). */
file_read_status file_read_max(const char *path, size_t max, uint8_t **data, size_t *size);

/* ======================================================================
 * jobs.c - a fixed list of tasks run on a few threads
 * ====================================================================== */

typedef struct jobs_spec {
	int n;
	/* after[i] < i: the task that must finish before task i starts, or -1
	 * (NULL: none waits) */
	const int *after;
	int threads; /* at most this many at once, the calling thread included */
	/* Runs task i; false when it failed. */
	bool (*run)(void *arg, int task);
	/* Told, under the pool's lock, that task `task` starts as the
	 * started-th of n; may be NULL. */
	void (*start)(void *arg, int task, int started, int n);
	void *arg;
} jobs_spec;

/* Runs the tasks, lowest-numbered first as far as their order allows (with
 * one thread: 0, 1, 2, ... in the calling thread). A failed task cancels
 * the tasks after it that have not started; every task before the first
 * failure runs. Returns that first failure's index, n when every task
 * succeeded, -1 when out of memory (no task ran). */
int jobs_run(const jobs_spec *spec);

#endif
