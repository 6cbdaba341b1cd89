/* arena.c - memory for one compilation.
 *
 * Every object of a compilation (tokens, AST, IR, strings) lives in one arena
 * that is freed at once, so no phase needs to track ownership. Chunks grow
 * geometrically; a request larger than a chunk gets a chunk of its own. The
 * strbuf is the one heap-owned helper: it builds diagnostics and output text
 * whose size is not known in advance.
 */
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
} arena_chunk;

struct arena {
	arena_chunk *head;
	size_t next_size;
};

arena *arena_new(void)
{
	arena *a = calloc(1, sizeof *a);
	if (a)
		a->next_size = 64 * 1024;
	return a;
}

void arena_free(arena *a)
{
	if (!a)
		return;
	for (arena_chunk *c = a->head, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	free(a);
}

void *arena_alloc(arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	if (size == 0)
		size = 16;
	arena_chunk *c = a->head;
	if (!c || c->size - c->used < size) {
		size_t want = a->next_size;
		while (want < size)
			want *= 2;
		c = malloc(sizeof *c + want);
		if (!c)
			return NULL;
		c->size = want;
		c->used = 0;
		c->next = a->head;
		a->head = c;
		if (a->next_size < (64u << 20))
			a->next_size *= 2;
	}
	void *p = c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

void *arena_realloc(arena *a, void *old, size_t old_size, size_t new_size)
{
	if (new_size <= old_size && old)
		return old;
	void *p = arena_alloc(a, new_size);
	if (p && old)
		memcpy(p, old, old_size);
	return p;
}

bool arena_grow(arena *a, void **items, int *cap, int n, size_t size)
{
	if (n < *cap)
		return true;
	int nc = *cap ? *cap * 2 : 8;
	void *p = arena_realloc(a, *items, (size_t)*cap * size, (size_t)nc * size);
	if (!p)
		return false;
	*items = p;
	*cap = nc;
	return true;
}

char *arena_strndup(arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

char *arena_strdup(arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(arena *a, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = n < 0 ? NULL : arena_alloc(a, (size_t)n + 1);
	if (p)
		vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

void sb_init(strbuf *sb)
{
	memset(sb, 0, sizeof *sb);
}

void sb_free(strbuf *sb)
{
	free(sb->data);
	sb_init(sb);
}

static bool sb_reserve(strbuf *sb, size_t extra)
{
	if (sb->failed)
		return false;
	if (sb->len + extra + 1 <= sb->cap)
		return true;
	size_t cap = sb->cap ? sb->cap : 256;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	char *p = realloc(sb->data, cap);
	if (!p) {
		sb->failed = true;
		return false;
	}
	sb->data = p;
	sb->cap = cap;
	return true;
}

void sb_putn(strbuf *sb, const char *s, size_t n)
{
	if (!sb_reserve(sb, n))
		return;
	memcpy(sb->data + sb->len, s, n);
	sb->len += n;
	sb->data[sb->len] = 0;
}

void sb_puts(strbuf *sb, const char *s)
{
	sb_putn(sb, s, strlen(s));
}

void sb_putc(strbuf *sb, char c)
{
	sb_putn(sb, &c, 1);
}

void sb_vprintf(strbuf *sb, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || !sb_reserve(sb, (size_t)n))
		return;
	vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void sb_printf(strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

void sb_put_float(strbuf *sb, double d)
{
	char buf[40];
	if (d != d) {
		sb_puts(sb, "nan");
		return;
	}
	if (d - d != 0) {
		sb_puts(sb, d < 0 ? "-1e999" : "1e999");
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	sb_printf(sb, "%s%s", buf, strpbrk(buf, ".e") ? "" : ".0");
}

const char *sb_str(const strbuf *sb)
{
	return sb->data ? sb->data : "";
}
