/* test_inflate.c - tile.h's inflate against zlib.
 *
 * Round trips: random and compressible data of many sizes through zlib at
 * every level and strategy (stored, fixed and dynamic Huffman blocks), real
 * data (the runtime check's PTX, this test's own executable, a cubin when
 * ptxas is there), each decoded by tile.h and compared byte for byte. Then a
 * table of malformed streams, hand-assembled bit by bit, each with the exact
 * result the decoder must give, and every truncation of a valid stream. */
#define TILE_IMPLEMENTATION
#include "tile.h"

#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"

static uint32_t rng = 12345;
static uint32_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* Compresses with zlib (level, strategy) and inflates with tile.h. */
static int round_trip(const uint8_t *data, size_t n, int level, int strategy)
{
	z_stream z;
	uLong bound = compressBound((uLong)n) + 64;
	uint8_t *zbuf = (uint8_t *)malloc(bound), *out = (uint8_t *)malloc(n ? n : 1);
	size_t at;
	int ok;
	memset(&z, 0, sizeof z);
	deflateInit2(&z, level, Z_DEFLATED, 15, 8, strategy);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)n;
	z.next_out = zbuf;
	z.avail_out = (uInt)bound;
	ok = deflate(&z, Z_FINISH) == Z_STREAM_END;
	deflateEnd(&z);
	ok = ok && tile__inflate(zbuf, z.total_out, out, n, &at) == TILE__INF_OK && memcmp(out, data, n) == 0;
	if (!ok)
		fprintf(stderr, "    round trip failed: %lu bytes, level %d, strategy %d\n", (unsigned long)n, level, strategy);
	free(zbuf);
	free(out);
	return ok;
}

static void test_round_trips(void)
{
	static const size_t sizes[] = {0, 1, 2, 3, 100, 257, 4096, 65535, 65536, 65537, 300001, 1u << 20};
	static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FIXED, Z_HUFFMAN_ONLY, Z_RLE, Z_FILTERED};
	size_t max = 1u << 20, i, s;
	uint8_t *rnd = (uint8_t *)malloc(max), *text = (uint8_t *)malloc(max);
	int level, st;
	for (i = 0; i < max; i++) {
		rnd[i] = (uint8_t)next_random();
		/* compressible: words from a small vocabulary, occasional noise */
		text[i] = (uint8_t)("the quick brown fox jumps over the lazy dog; "[(i * 7 + (i >> 9)) % 45] ^
				    (next_random() % 97 == 0 ? 0x20 : 0));
	}
	for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (level = 0; level <= 9; level++) {
			/* The two largest sizes at a few levels only: the rest adds time, not coverage. */
			if (sizes[s] > 70000 && level % 3)
				continue;
			CHECK(round_trip(rnd, sizes[s], level, Z_DEFAULT_STRATEGY));
			CHECK(round_trip(text, sizes[s], level, Z_DEFAULT_STRATEGY));
		}
	for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
		for (st = 0; st < 5; st++)
			CHECK(round_trip(text, sizes[s] < 70000 ? sizes[s] : 70000, 6, strategies[st]));
	free(rnd);
	free(text);
}

static uint8_t *read_file(const char *path, size_t *n, size_t max)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	if (!f)
		return NULL;
	p = (uint8_t *)malloc(max);
	*n = fread(p, 1, max, f);
	fclose(f);
	return p;
}

static void test_real_data(void)
{
	size_t n, level;
	uint8_t *ptx = read_file("tests/gpu/runtime/vecadd.ptx", &n, 1u << 20), *exe, *cubin;
	CHECK_MSG(ptx != NULL && n > 500, "tests/gpu/runtime/vecadd.ptx (run from the repository root)");
	if (ptx)
		for (level = 0; level <= 9; level++)
			CHECK(round_trip(ptx, n, (int)level, Z_DEFAULT_STRATEGY));
	free(ptx);
	exe = read_file("/proc/self/exe", &n, 1u << 20);
	CHECK(exe != NULL && n > 10000);
	if (exe) {
		CHECK(round_trip(exe, n, 1, Z_DEFAULT_STRATEGY));
		CHECK(round_trip(exe, n, 9, Z_DEFAULT_STRATEGY));
	}
	free(exe);
	/* A real cubin where ptxas is installed (the test above covers ELF data anyway). */
	if (access("/usr/local/cuda/bin/ptxas", X_OK) == 0 &&
	    system("/usr/local/cuda/bin/ptxas -arch=sm_80 tests/gpu/runtime/vecadd.ptx -o /tmp/tile_test_inflate.cubin") == 0) {
		cubin = read_file("/tmp/tile_test_inflate.cubin", &n, 1u << 20);
		CHECK(cubin != NULL && n > 1000 && memcmp(cubin, "\177ELF", 4) == 0);
		if (cubin)
			for (level = 0; level <= 9; level++)
				CHECK(round_trip(cubin, n, (int)level, Z_DEFAULT_STRATEGY));
		free(cubin);
		remove("/tmp/tile_test_inflate.cubin");
	}
}

/* A bit writer for hand-made deflate streams. */
typedef struct bw {
	uint8_t b[256];
	size_t n;
	unsigned bit;
} bw;

static void bw_bits(bw *w, uint32_t v, unsigned count)
{
	while (count--) {
		if (w->bit == 0)
			w->b[w->n++] = 0;
		w->b[w->n - 1] |= (uint8_t)((v & 1) << w->bit);
		w->bit = (w->bit + 1) & 7;
		v >>= 1;
	}
}

/* Huffman codes go most significant bit first. */
static void bw_code(bw *w, uint32_t code, unsigned len)
{
	while (len--)
		bw_bits(w, code >> len & 1, 1);
}

static void bw_header(bw *w)
{
	w->n = 0;
	w->bit = 0;
	w->b[w->n++] = 0x78;
	w->b[w->n++] = 0x9c;
}

static void bw_bytes(bw *w, const char *s, size_t n)
{
	memcpy(w->b + w->n, s, n);
	w->n += n;
	w->bit = 0;
}

/* Fixed Huffman literal/length code of sym. */
static void bw_fixed(bw *w, unsigned sym)
{
	if (sym < 144)
		bw_code(w, 0x30 + sym, 8);
	else if (sym < 256)
		bw_code(w, 0x190 + sym - 144, 9);
	else if (sym < 280)
		bw_code(w, sym - 256, 7);
	else
		bw_code(w, 0xc0 + sym - 280, 8);
}

/* A dynamic block header whose code-length code is {0,16,17,18} at 2 bits
 * each: 0 -> 00, 16 -> 01, 17 -> 10, 18 -> 11. */
static void bw_dynamic_head(bw *w, unsigned hlit, unsigned hdist)
{
	bw_bits(w, 1, 1);
	bw_bits(w, 2, 2);
	bw_bits(w, hlit, 5);
	bw_bits(w, hdist, 5);
	bw_bits(w, 0, 4);            /* 4 code-length codes: 16, 17, 18, 0 */
	bw_bits(w, 2, 3);
	bw_bits(w, 2, 3);
	bw_bits(w, 2, 3);
	bw_bits(w, 2, 3);
}

static int inflate_result(const uint8_t *in, size_t n, size_t out_len)
{
	uint8_t out[64];
	size_t at;
	return tile__inflate(in, n, out, out_len, &at);
}

static void test_malformed(void)
{
	bw w;
	unsigned i;
	uint8_t ok[64];
	uLongf okn = sizeof ok;
	size_t cut;
	compress2(ok, &okn, (const Bytef *)"hello, hello, hello!", 20, 9);

	CHECK_EQ_INT(inflate_result(ok, okn, 20), TILE__INF_OK);
	CHECK_EQ_INT(inflate_result((const uint8_t *)"\x78\x9d\x03\x00", 4, 0), TILE__INF_BAD_HEADER);
	CHECK_EQ_INT(inflate_result((const uint8_t *)"\x79\x9c\x03\x00", 4, 0), TILE__INF_BAD_HEADER);
	CHECK_EQ_INT(inflate_result((const uint8_t *)"\x88\x1c\x03\x00", 4, 0), TILE__INF_BAD_WINDOW);
	CHECK_EQ_INT(inflate_result((const uint8_t *)"\x78\x20\x00\x00\x00\x01\x03\x00", 8, 0), TILE__INF_DICTIONARY);
	CHECK_EQ_INT(inflate_result((const uint8_t *)"\x78", 1, 0), TILE__INF_TRUNCATED);

	bw_header(&w); /* final block of type 3 */
	bw_bits(&w, 1, 1);
	bw_bits(&w, 3, 2);
	CHECK_EQ_INT(inflate_result(w.b, w.n, 0), TILE__INF_BLOCK_TYPE);

	bw_header(&w); /* stored block, NLEN not ~LEN */
	bw_bits(&w, 1, 1);
	bw_bits(&w, 0, 2);
	bw_bytes(&w, "\x05\x00\x00\x00hello", 9);
	CHECK_EQ_INT(inflate_result(w.b, w.n, 5), TILE__INF_STORED_LENGTH);

	bw_header(&w); /* valid stored block, then its data cut short */
	bw_bits(&w, 1, 1);
	bw_bits(&w, 0, 2);
	bw_bytes(&w, "\x05\x00\xfa\xffhel", 7);
	CHECK_EQ_INT(inflate_result(w.b, w.n, 5), TILE__INF_TRUNCATED);
	CHECK_EQ_INT(inflate_result(w.b, w.n, 4), TILE__INF_OVERFLOW);

	bw_header(&w); /* code-length code: 19 codes of one bit */
	bw_bits(&w, 1, 1);
	bw_bits(&w, 2, 2);
	bw_bits(&w, 0, 5);
	bw_bits(&w, 0, 5);
	bw_bits(&w, 15, 4);
	for (i = 0; i < 19; i++)
		bw_bits(&w, 1, 3);
	CHECK_EQ_INT(inflate_result(w.b, w.n, 0), TILE__INF_OVERSUBSCRIBED);

	bw_header(&w); /* code-length code: a single one-bit code */
	bw_bits(&w, 1, 1);
	bw_bits(&w, 2, 2);
	bw_bits(&w, 0, 5);
	bw_bits(&w, 0, 5);
	bw_bits(&w, 0, 4);
	bw_bits(&w, 1, 3);
	bw_bits(&w, 0, 3);
	bw_bits(&w, 0, 3);
	bw_bits(&w, 0, 3);
	CHECK_EQ_INT(inflate_result(w.b, w.n, 0), TILE__INF_INCOMPLETE);

	/* Literal/length code {0, 256} of one bit each, then one distance code
	 * of i bits: zlib takes a lone code only at one bit. The
	 * code-length code is {0, 1, 2, 18} at 2 bits each. */
	for (i = 1; i <= 2; i++) {
		bw_header(&w);
		bw_bits(&w, 1, 1);
		bw_bits(&w, 2, 2);
		bw_bits(&w, 0, 5);   /* 257 literal/length codes */
		bw_bits(&w, 0, 5);   /* 1 distance code */
		bw_bits(&w, 14, 4);  /* 18 code-length codes */
		{
			/* order: 16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1 */
			static const unsigned cl[18] = {0, 0, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2};
			unsigned j;
			for (j = 0; j < 18; j++)
				bw_bits(&w, cl[j], 3);
		}
		bw_code(&w, 1, 2);   /* literal 0: length 1 */
		bw_code(&w, 3, 2);   /* 138 zeros */
		bw_bits(&w, 127, 7);
		bw_code(&w, 3, 2);   /* 117 zeros */
		bw_bits(&w, 106, 7);
		bw_code(&w, 1, 2);   /* end-of-block: length 1 */
		bw_code(&w, i, 2);   /* the distance code: length i */
		bw_code(&w, 1, 1);   /* end-of-block: an empty stream */
		bw_bits(&w, 0, (8 - w.bit) & 7);
		bw_bytes(&w, "\0\0\0\1", 4); /* Adler-32 of nothing */
		{
			uint8_t out[1];
			uLongf got = 0;
			int z = uncompress(out, &got, w.b, (uLong)w.n);
			/* One bit: a valid empty stream. Two: refused, as zlib does. */
			CHECK_EQ_INT(z, (i == 1 ? Z_OK : Z_DATA_ERROR));
			CHECK_EQ_INT(inflate_result(w.b, w.n, 0), (i == 1 ? TILE__INF_OK : TILE__INF_INCOMPLETE));
		}
	}

	bw_header(&w); /* 287 literal/length codes */
	bw_dynamic_head(&w, 30, 0);
	CHECK_EQ_INT(inflate_result(w.b, w.n, 0), TILE__INF_CODE_COUNT);

	bw_header(&w); /* repeat (16) with no previous length */
	bw_dynamic_head(&w, 0, 0);
	bw_code(&w, 1, 2);
	bw_bits(&w, 0, 2);
	CHECK_EQ_INT(inflate_result(w.b, w.n, 0), TILE__INF_BAD_REPEAT);

	bw_header(&w); /* zeros (18) past the end of the 258 lengths */
	bw_dynamic_head(&w, 0, 0);
	bw_code(&w, 3, 2);
	bw_bits(&w, 127, 7); /* 138 */
	bw_code(&w, 3, 2);
	bw_bits(&w, 127, 7); /* 276 > 258 */
	CHECK_EQ_INT(inflate_result(w.b, w.n, 0), TILE__INF_BAD_REPEAT);

	bw_header(&w); /* all 258 lengths zero: no end-of-block code */
	bw_dynamic_head(&w, 0, 0);
	bw_code(&w, 3, 2);
	bw_bits(&w, 127, 7); /* 138 */
	bw_code(&w, 3, 2);
	bw_bits(&w, 109, 7); /* 120 */
	CHECK_EQ_INT(inflate_result(w.b, w.n, 0), TILE__INF_NO_END);

	bw_header(&w); /* fixed block: 'a', then length 3 at distance 2 */
	bw_bits(&w, 1, 1);
	bw_bits(&w, 1, 2);
	bw_fixed(&w, 'a');
	bw_fixed(&w, 257);
	bw_code(&w, 1, 5);
	bw_fixed(&w, 256);
	CHECK_EQ_INT(inflate_result(w.b, w.n, 4), TILE__INF_DISTANCE);

	bw_header(&w); /* fixed block: 'a', then length 3 at distance 1 (overlapping copy) */
	bw_bits(&w, 1, 1);
	bw_bits(&w, 1, 2);
	bw_fixed(&w, 'a');
	bw_fixed(&w, 257);
	bw_code(&w, 0, 5);
	bw_fixed(&w, 256);
	bw_bits(&w, 0, 8 - w.bit);
	w.bit = 0;
	{
		uint32_t a = (uint32_t)adler32(1, (const Bytef *)"aaaa", 4);
		uint8_t out[4];
		size_t at;
		w.b[w.n++] = (uint8_t)(a >> 24);
		w.b[w.n++] = (uint8_t)(a >> 16);
		w.b[w.n++] = (uint8_t)(a >> 8);
		w.b[w.n++] = (uint8_t)a;
		CHECK_EQ_INT(tile__inflate(w.b, w.n, out, 4, &at), TILE__INF_OK);
		CHECK(memcmp(out, "aaaa", 4) == 0);
		CHECK_EQ_INT(inflate_result(w.b, w.n, 3), TILE__INF_OVERFLOW);
		CHECK_EQ_INT(inflate_result(w.b, w.n, 5), TILE__INF_SHORT);
		w.b[w.n - 1] ^= 1;
		CHECK_EQ_INT(inflate_result(w.b, w.n, 4), TILE__INF_ADLER);
		w.b[w.n - 1] ^= 1;
		w.b[w.n++] = 0;
		CHECK_EQ_INT(inflate_result(w.b, w.n, 4), TILE__INF_TRAILING);
	}

	bw_header(&w); /* fixed block: literal/length symbol 286 */
	bw_bits(&w, 1, 1);
	bw_bits(&w, 1, 2);
	bw_fixed(&w, 286);
	CHECK_EQ_INT(inflate_result(w.b, w.n, 4), TILE__INF_BAD_SYMBOL);

	bw_header(&w); /* fixed block: distance symbol 30 */
	bw_bits(&w, 1, 1);
	bw_bits(&w, 1, 2);
	bw_fixed(&w, 'a');
	bw_fixed(&w, 257);
	bw_code(&w, 30, 5);
	CHECK_EQ_INT(inflate_result(w.b, w.n, 4), TILE__INF_BAD_SYMBOL);

	/* Every truncation of a valid stream is refused as such. */
	for (cut = 0; cut < okn; cut++)
		CHECK_EQ_INT(inflate_result(ok, cut, 20), TILE__INF_TRUNCATED);
	/* A wrong expected size. */
	CHECK_EQ_INT(inflate_result(ok, okn, 19), TILE__INF_OVERFLOW);
	CHECK_EQ_INT(inflate_result(ok, okn, 21), TILE__INF_SHORT);
	/* The status and message the loader reports. */
	{
		uint8_t out[20];
		CHECK_EQ_INT(tile__inflate_image(3, ok, okn - 1, out, 20), TILE_ERROR_INFLATE);
		CHECK_STR_CONTAINS(tile_last_error(), "image 3: inflate: truncated input");
	}
}

/* Random corruptions of valid streams: any result, but no memory error
 * (ASan) and never a success with wrong output. */
static void test_random_corruption(void)
{
	uint8_t data[2000], z[2400], out[2000];
	int round, wrong = 0;
	for (round = 0; round < 3000; round++) {
		uLongf zn = sizeof z;
		size_t i, n = 1 + next_random() % sizeof data, at;
		for (i = 0; i < n; i++)
			data[i] = round % 2 ? (uint8_t)next_random() : (uint8_t)"abcabd"[next_random() % 6];
		compress2(z, &zn, data, (uLong)n, (int)(round % 10));
		for (i = 0; i < 1 + (size_t)round % 4; i++)
			z[next_random() % zn] ^= (uint8_t)(1u << (next_random() % 8));
		if (tile__inflate(z, zn, out, n, &at) == TILE__INF_OK && memcmp(out, data, n) != 0)
			wrong++;
	}
	/* A corruption that still decodes must still match the Adler-32; the
	 * odds of a different output passing it are negligible. */
	CHECK_EQ_INT(wrong, 0);
}

int main(void)
{
	test_round_trips();
	test_real_data();
	test_malformed();
	test_random_corruption();
	return check_report("test_inflate");
}
