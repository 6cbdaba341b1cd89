/* fuzz_parse.c - fuzz target over the front end's first stages: the lexer,
 * the parser with its recovery, the kernel-language check on every @jit
 * function found, and the AST dumps. Any input must end in a status, never
 * a crash, a hang or a leak; everything lives in one arena per input. */
#include "front/syntax.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	char *text = ctx && a ? arena_alloc(a, size + 1) : NULL;
	if (text) {
		memcpy(text, data, size);
		src_file f = {"fuzz.py", text, size};
		ast_module *m;
		if (parse_module(ctx, a, &f, &m) == TILEC_OK) {
			strbuf sb;
			sb_init(&sb);
			ast_dump_module(&sb, m);
			for (int i = 0; i < m->body.n; i++)
				ast_dump(&sb, m->body.items[i]);
			for (int i = 0; i < m->nfuncs; i++)
				ast_check_kernel(ctx, m->funcs[i]);
			sb_free(&sb);
		}
	}
	arena_free(a);
	tilec_ctx_free(ctx);
	return 0;
}
