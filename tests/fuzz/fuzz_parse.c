/* fuzz_parse.c - fuzz target over the front end's first stages: the lexer,
 * the parser with its recovery, the kernel-language check on every @jit
 * function found, and the AST dumps. Any input must end in a status, never
 * a crash, a hang or a leak; everything lives in one arena per input.
 * Mutations follow Python's shape (python_input.h). Seeds are the
 * kernels of tests/kernels and what the corpus has kept
 * (tests/fuzz/corpus/fuzz_parse).
 * fuzz-seeds: tests/kernels */
#include "front/syntax.h"
#include "fuzz/python_input.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse_and_check(tilec_ctx *ctx, arena *a, char *text, size_t size)
{
	src_file f = {"fuzz.py", text, size};
	ast_module *m;
	if (parse_module(ctx, a, &f, &m) != TILEC_OK)
		return;
	strbuf sb;
	sb_init(&sb);
	ast_dump_module(&sb, m);
	for (int i = 0; i < m->body.n; i++)
		ast_dump(&sb, m->body.items[i]);
	for (int i = 0; i < m->nfuncs; i++)
		ast_check_kernel(ctx, m->funcs[i]);
	sb_free(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_python(data, size, parse_and_check);
	return 0;
}
