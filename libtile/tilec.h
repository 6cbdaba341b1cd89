/* tilec.h - public API of libtile, the tile compiler library.
 *
 * Every entry point takes a tilec_ctx, returns a tilec_status and leaves
 * human-readable diagnostics ("file:line:col: error: message", the source
 * line and a caret) in the context. The library never prints and never exits.
 */
#ifndef TILEC_H
#define TILEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tilec_status {
	TILEC_OK = 0,
	TILEC_ERR_INVALID = 1,     /* bad arguments to an API call or a bad command line */
	TILEC_ERR_IO = 2,          /* a file could not be read or written */
	TILEC_ERR_NOMEM = 3,       /* an allocation failed */
	TILEC_ERR_SYNTAX = 4,      /* the kernel source is not valid Python */
	TILEC_ERR_UNSUPPORTED = 5, /* a construct tile does not support (yet) */
	TILEC_ERR_SEMANTIC = 6,    /* types, shapes, names: the kernel is wrong */
	TILEC_ERR_RUNTIME = 7,     /* the reference interpreter hit an error */
	TILEC_ERR_LLVM = 8,        /* LLVM failed (verifier, back end) */
	TILEC_ERR_PTXAS = 9,       /* ptxas failed or is missing when required */
	TILEC_ERR_FORMAT = 10      /* an input blob, cubin or json is malformed */
} tilec_status;

typedef struct tilec_ctx tilec_ctx;

tilec_ctx *tilec_ctx_new(void);
void tilec_ctx_free(tilec_ctx *ctx);

/* All diagnostics emitted so far, NUL-terminated ("" when none). */
const char *tilec_diagnostics(const tilec_ctx *ctx);
/* Number of errors and warnings emitted so far. */
int tilec_error_count(const tilec_ctx *ctx);
int tilec_warning_count(const tilec_ctx *ctx);
void tilec_clear_diagnostics(tilec_ctx *ctx);
/* What kernels run by the interpreter printed (tl.device_print in debug
 * mode), NUL-terminated ("" when nothing); libtile itself never prints. */
const char *tilec_device_output(const tilec_ctx *ctx);

const char *tilec_status_string(tilec_status status);

/* The source files (kernels, manifests) read through this context so far,
 * each once, as the paths they were opened by: what a build tool's depfile
 * lists. NULL past the end. */
int tilec_input_count(const tilec_ctx *ctx);
const char *tilec_input_path(const tilec_ctx *ctx, int i);

#ifdef __cplusplus
}
#endif
#endif
