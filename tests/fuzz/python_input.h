/* python_input.h - what the fuzz targets whose input is a Python file
 * (fuzz_parse.c, fuzz_sema.c) share: the input as text in a fresh context
 * and arena (fuzz_python), and libFuzzer's custom mutator, which works on
 * Python's shape
 * rather than bytes: it inserts or substitutes tokens of Python and Triton
 * (keywords, tl.* and libdevice names, operators, brackets, literals of
 * every kind, decorators, type annotations), inserts whole statements and
 * block openers at an indentation, duplicates, deletes and swaps lines,
 * indents and dedents them (spaces or a tab), wraps a line's tail in
 * brackets; one mutation in five is the engine's blind one. A target
 * includes it once: it defines LLVMFuzzerCustomMutator. */
#ifndef TILE_FUZZ_PYTHON_INPUT_H
#define TILE_FUZZ_PYTHON_INPUT_H

#include "base/base.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Runs `run` on the input as a NUL-terminated text (size bytes) in a
 * context and an arena of its own, freed after. */
static void fuzz_python(const uint8_t *data, size_t size, void (*run)(tilec_ctx *, arena *, char *, size_t))
{
	tilec_ctx *ctx = tilec_ctx_new();
	arena *a = arena_new();
	char *text = ctx && a ? arena_alloc(a, size + 1) : NULL;
	if (text) {
		memcpy(text, data, size);
		text[size] = 0;
		run(ctx, a, text, size);
	}
	arena_free(a);
	tilec_ctx_free(ctx);
}

/* FNV-1a of the input: the bits the targets that compile draw their
 * choices from (archs, families, cluster sizes), so an input replays
 * alike. */
static inline uint32_t fuzz_input_bits(const char *text, size_t size)
{
	uint32_t bits = 2166136261u;
	for (size_t i = 0; i < size; i++)
		bits = (bits ^ (uint8_t)text[i]) * 16777619u;
	return bits;
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static const char *const tokens[] = {
	"def ", "return ", "if ", "elif ", "else", "for ", " in ", "while ", "break", "continue", "pass", "lambda ",
	"class ", "import ", "from ", " as ", "with ", "try", "except ", "finally", "raise ", "assert ", "global ",
	"nonlocal ", "yield ", "async ", "await ", "del ", " and ", " or ", "not ", " is ", "None", "True", "False",
	"@triton.jit", "@triton.jit(do_not_specialize=[\"n\"])", "@triton.autotune(configs=[], key=[])",
	"@triton.heuristics({\"B\": lambda a: 1})", "triton.Config({\"BLOCK\": 64}, num_warps=4)",
	"tl.constexpr", ": tl.constexpr", "tl.program_id(0)", "tl.arange(0, BLOCK)", "tl.load(", "tl.store(", "mask=",
	"other=", "tl.zeros((16, 16), tl.float32)", "tl.dot(", "tl.sum(", "axis=0", "tl.where(", "tl.static_range(",
	"tl.range(", "tl.cdiv(", "tl.atomic_add(", "tl.float16", "tl.bfloat16", "tl.int64", "libdevice.exp(",
	"tl.make_tensor_descriptor(", "tl.static_assert(", "tl.reshape(", "tl.trans(", ".to(tl.float32)", "[:, None]",
	"[None, :]", "...", "x", "y", "BLOCK", "n", "_", "__name__", "self", "(", ")", "[", "]", "{", "}", ",", ":",
	";", ".", "=", "==", "!=", "<", "<=", ">>", "<<", "+", "-", "*", "**", "/", "//", "%", "@", "&", "|", "^", "~",
	"+=", "//=", ":=", "->", "0", "1", "-1", "0x7fffffff", "1e308", "1.5e-7", "0b101", "0o17", "1_000", "1j",
	"float('inf')", "\"s\"", "'s'", "b'\\x00'", "r'\\d'", "\"\"\"doc\"\"\"", "f\"{x!r:>{w}}\"",
	"f'{x=}'", "# comment", "\\\n", "\n", "\t", "    ", "*args", "**kwargs", "x: int = 0",
};

static const char *const statements[] = {
	"pid = tl.program_id(axis=0)", "offs = pid * BLOCK + tl.arange(0, BLOCK)", "mask = offs < n",
	"x = tl.load(x_ptr + offs, mask=mask, other=0.0)", "tl.store(out_ptr + offs, x, mask=mask)",
	"acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)", "acc += tl.dot(a, b)", "return x, y", "return",
	"a, b = b, a", "x = x if n > 0 else -x", "x = [i * 2 for i in range(4) if i]", "s = {k: v for k, v in d}",
	"tl.static_assert(BLOCK % 16 == 0, \"msg\")", "x = (yield)", "del x", "raise ValueError(\"no\")",
	"print(f\"{x}\")", "x = tl.reduce(x, 0, combine)", "k = tl.cdiv(K, BLOCK_K)",
};

static const char *const openers[] = {
	"if x > 0:", "elif n == 1:", "else:", "for i in range(0, n, BLOCK):", "for i in tl.static_range(4):",
	"while i < n:", "with ctx as c:", "try:", "except Exception as e:", "finally:",
	"def helper(a, b: tl.constexpr = 2):", "@triton.jit\ndef kernel(x_ptr, n, BLOCK: tl.constexpr):",
	"class C(Base, metaclass=M):", "async def f():", "match x:", "case [a, *rest]:", "if __name__ == \"__main__\":",
};

static uint32_t gm_state;
static uint32_t gm_rnd(void)
{
	gm_state = gm_state * 1664525u + 1013904223u;
	return gm_state >> 8;
}

/* Line i's [start, end) in data[0..n): end excludes the newline. */
static int line_span(const uint8_t *d, size_t n, size_t i, size_t *start, size_t *end)
{
	size_t at = 0, line = 0;
	while (line < i) {
		const uint8_t *nl = memchr(d + at, '\n', n - at);
		if (!nl)
			return 0;
		at = (size_t)(nl - d) + 1;
		line++;
	}
	const uint8_t *nl = memchr(d + at, '\n', n - at);
	*start = at;
	*end = nl ? (size_t)(nl - d) : n;
	return 1;
}

static size_t count_lines(const uint8_t *d, size_t n)
{
	size_t c = 1;
	for (size_t i = 0; i < n; i++)
		c += d[i] == '\n';
	return c;
}

/* Replaces d[at, at + del) with ins; 0 when it would not fit. */
static int splice(uint8_t *d, size_t *n, size_t max, size_t at, size_t del, const char *ins, size_t len)
{
	if (at > *n || del > *n - at || *n - del + len > max)
		return 0;
	memmove(d + at + len, d + at + del, *n - at - del);
	memcpy(d + at, ins, len);
	*n = *n - del + len;
	return 1;
}

/* A token boundary near `at`: the start of a word or the place after one. */
static size_t boundary(const uint8_t *d, size_t n, size_t at)
{
	while (at < n && (d[at] == '_' || (d[at] >= 'a' && d[at] <= 'z') || (d[at] >= 'A' && d[at] <= 'Z') ||
			  (d[at] >= '0' && d[at] <= '9')))
		at++;
	return at;
}

static size_t mutate_source(uint8_t *d, size_t n, size_t max)
{
	size_t lines = count_lines(d, n), s0, e0, s1, e1;
	char buf[512];
	int len;
	switch (gm_rnd() % 9) {
	case 0: { /* a token inserted at a boundary */
		size_t at = boundary(d, n, n ? gm_rnd() % (n + 1) : 0);
		const char *t = tokens[gm_rnd() % (sizeof tokens / sizeof tokens[0])];
		splice(d, &n, max, at, 0, t, strlen(t));
		break;
	}
	case 1: { /* a word replaced by a token */
		size_t at = n ? gm_rnd() % n : 0, end;
		while (at > 0 && d[at - 1] != ' ' && d[at - 1] != '\n' && d[at - 1] != '(')
			at--;
		end = boundary(d, n, at);
		if (end == at && at < n)
			end++;
		const char *t = tokens[gm_rnd() % (sizeof tokens / sizeof tokens[0])];
		splice(d, &n, max, at, end - at, t, strlen(t));
		break;
	}
	case 2: /* a statement, or a block opener and its body, at some indentation */
	case 3:
		if (line_span(d, n, gm_rnd() % lines, &s0, &e0)) {
			int indent = (int)(gm_rnd() % 4) * 4;
			if (gm_rnd() % 2)
				len = snprintf(buf, sizeof buf, "%*s%s\n", indent, "",
					       statements[gm_rnd() % (sizeof statements / sizeof statements[0])]);
			else
				len = snprintf(buf, sizeof buf, "%*s%s\n%*spass\n", indent, "",
					       openers[gm_rnd() % (sizeof openers / sizeof openers[0])], indent + 4, "");
			splice(d, &n, max, s0, 0, buf, (size_t)len);
		}
		break;
	case 4: /* a line duplicated */
		if (line_span(d, n, gm_rnd() % lines, &s0, &e0) && e0 - s0 < sizeof buf - 1) {
			memcpy(buf, d + s0, e0 - s0);
			buf[e0 - s0] = '\n';
			splice(d, &n, max, s0, 0, buf, e0 - s0 + 1);
		}
		break;
	case 5: /* a line deleted */
		if (line_span(d, n, gm_rnd() % lines, &s0, &e0))
			splice(d, &n, max, s0, e0 < n ? e0 - s0 + 1 : e0 - s0, "", 0);
		break;
	case 6: /* two lines swapped */
		if (lines > 1 && line_span(d, n, gm_rnd() % lines, &s0, &e0) && line_span(d, n, gm_rnd() % lines, &s1, &e1) &&
		    s1 > e0 && e1 - s1 < sizeof buf && e0 - s0 < sizeof buf) {
			char a[512], b[512];
			size_t la = e0 - s0, lb = e1 - s1;
			memcpy(a, d + s0, la);
			memcpy(b, d + s1, lb);
			splice(d, &n, max, s1, lb, a, la);
			splice(d, &n, max, s0, la, b, lb);
		}
		break;
	case 7: /* indentation changed */
		if (line_span(d, n, gm_rnd() % lines, &s0, &e0)) {
			static const char *const ind[] = {"    ", "\t", " ", "        "};
			if (gm_rnd() % 2 && e0 > s0 && (d[s0] == ' ' || d[s0] == '\t'))
				splice(d, &n, max, s0, 1, "", 0);
			else {
				const char *t = ind[gm_rnd() % 4];
				splice(d, &n, max, s0, 0, t, strlen(t));
			}
		}
		break;
	default: /* a line's tail wrapped in brackets */
		if (line_span(d, n, gm_rnd() % lines, &s0, &e0) && e0 > s0) {
			static const char *const open = "([{", *const close = ")]}";
			int k = (int)(gm_rnd() % 3);
			size_t at = s0 + gm_rnd() % (e0 - s0);
			char c[2] = {close[k], 0}, o[2] = {open[k], 0};
			if (splice(d, &n, max, e0, 0, c, 1))
				splice(d, &n, max, at, 0, o, 1);
		}
		break;
	}
	return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	int rounds, i;
	gm_state = seed;
	if (gm_rnd() % 5 == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	rounds = 1 + (int)(gm_rnd() % 3);
	for (i = 0; i < rounds; i++)
		size = mutate_source(data, size, max_size);
	return size;
}

#endif
