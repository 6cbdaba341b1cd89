/* inflate.h - a hardened zlib (RFC 1950) / deflate (RFC 1951) decoder.
 *
 * The output size is known in advance (the image's raw_size), so the decoder
 * writes into one caller buffer and refuses to produce a byte more or less.
 * Bits are taken from a 64-bit buffer refilled a byte at a time, never past
 * the input; every length, distance, repeat count and code-length set is
 * checked. Huffman codes decode through a 9-bit lookup table, with canonical
 * bit-by-bit decoding for the rarer longer codes; incomplete codes are
 * accepted only where zlib accepts them (a single one-bit code, or none).
 * With TILE_USE_ZLIB defined, zlib's uncompress() replaces it all. */
#ifdef TILE_USE_ZLIB
#include <zlib.h>

static tile_status tile__inflate_image(uint32_t image, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
	uLongf got = (uLongf)out_len;
	int r = uncompress(out, &got, in, (uLong)in_len);
	if (r != Z_OK || got != out_len)
		return tile__fail(TILE_ERROR_INFLATE, "image %u: inflate: zlib error %d (%lu of %lu bytes)", image, r,
				  (unsigned long)got, (unsigned long)out_len);
	return TILE_SUCCESS;
}
#else

typedef enum tile__inflate_result {
	TILE__INF_OK = 0,
	TILE__INF_BAD_HEADER,     /* compression method or header check */
	TILE__INF_BAD_WINDOW,     /* window size over 32 KiB */
	TILE__INF_DICTIONARY,     /* preset dictionary requested */
	TILE__INF_BLOCK_TYPE,     /* block type 3 */
	TILE__INF_STORED_LENGTH,  /* LEN and NLEN disagree */
	TILE__INF_CODE_COUNT,     /* more than 286 literal/length or 30 distance codes */
	TILE__INF_OVERSUBSCRIBED, /* code lengths describe more codes than fit */
	TILE__INF_INCOMPLETE,     /* code lengths leave codes unused */
	TILE__INF_BAD_REPEAT,     /* code-length repeat with nothing before or past the end */
	TILE__INF_NO_END,         /* no code for end-of-block */
	TILE__INF_BAD_SYMBOL,     /* an unused code, or length/distance symbol out of range */
	TILE__INF_DISTANCE,       /* distance past the start of the output */
	TILE__INF_OVERFLOW,       /* more output than expected */
	TILE__INF_SHORT,          /* less output than expected */
	TILE__INF_TRUNCATED,      /* input ended early */
	TILE__INF_ADLER,          /* Adler-32 mismatch */
	TILE__INF_TRAILING        /* bytes after the Adler-32 */
} tile__inflate_result;

static const char *tile__inflate_message(tile__inflate_result r)
{
	switch (r) {
	case TILE__INF_OK: return "ok";
	case TILE__INF_BAD_HEADER: return "bad zlib header";
	case TILE__INF_BAD_WINDOW: return "window size over 32 KiB";
	case TILE__INF_DICTIONARY: return "preset dictionary";
	case TILE__INF_BLOCK_TYPE: return "invalid block type";
	case TILE__INF_STORED_LENGTH: return "stored block length does not match its complement";
	case TILE__INF_CODE_COUNT: return "too many length or distance codes";
	case TILE__INF_OVERSUBSCRIBED: return "over-subscribed code lengths";
	case TILE__INF_INCOMPLETE: return "incomplete code lengths";
	case TILE__INF_BAD_REPEAT: return "invalid code-length repeat";
	case TILE__INF_NO_END: return "no end-of-block code";
	case TILE__INF_BAD_SYMBOL: return "invalid code";
	case TILE__INF_DISTANCE: return "distance too far back";
	case TILE__INF_OVERFLOW: return "output longer than the expected size";
	case TILE__INF_SHORT: return "output shorter than the expected size";
	case TILE__INF_TRUNCATED: return "truncated input";
	case TILE__INF_ADLER: return "Adler-32 mismatch";
	case TILE__INF_TRAILING: return "data after the end of the stream";
	}
	return "?";
}

typedef struct tile__bits {
	const uint8_t *in;
	size_t len, pos;
	uint64_t buf;
	unsigned cnt;
} tile__bits;

static void tile__bits_fill(tile__bits *b)
{
	while (b->cnt <= 56 && b->pos < b->len) {
		b->buf |= (uint64_t)b->in[b->pos++] << b->cnt;
		b->cnt += 8;
	}
}

/* n <= 16 */
static int tile__bits_get(tile__bits *b, unsigned n, uint32_t *out)
{
	if (b->cnt < n) {
		tile__bits_fill(b);
		if (b->cnt < n)
			return 0;
	}
	*out = (uint32_t)(b->buf & ((1u << n) - 1));
	b->buf >>= n;
	b->cnt -= n;
	return 1;
}

#define TILE__FAST_BITS 9

typedef struct tile__huff {
	uint16_t count[16];   /* codes per length */
	uint16_t symbol[288]; /* symbols ordered by code */
	uint16_t fast[1u << TILE__FAST_BITS]; /* symbol | length << 9 for codes up to 9 bits; 0: longer */
} tile__huff;

static tile__inflate_result tile__huff_build(tile__huff *h, const uint8_t *lengths, unsigned n, int allow_single)
{
	uint16_t offs[16];
	uint32_t next[16], code;
	unsigned len, sym, used = 0;
	int left = 1;
	memset(h->count, 0, sizeof h->count);
	for (sym = 0; sym < n; sym++)
		h->count[lengths[sym]]++;
	for (len = 1; len < 16; len++) {
		left = (left << 1) - h->count[len];
		if (left < 0)
			return TILE__INF_OVERSUBSCRIBED;
		used += h->count[len];
	}
	/* zlib's rule: an incomplete code only when it is empty or one code of one bit. */
	if (left > 0 && !(allow_single && (used == 0 || (used == 1 && h->count[1] == 1))))
		return TILE__INF_INCOMPLETE;
	offs[1] = 0;
	for (len = 1; len < 15; len++)
		offs[len + 1] = (uint16_t)(offs[len] + h->count[len]);
	code = 0;
	next[0] = 0;
	for (len = 1; len < 16; len++) {
		code = (code + (len > 1 ? h->count[len - 1] : 0u)) << 1;
		next[len] = code;
	}
	memset(h->fast, 0, sizeof h->fast);
	for (sym = 0; sym < n; sym++) {
		uint32_t c, rev = 0, i;
		len = lengths[sym];
		if (!len)
			continue;
		h->symbol[offs[len]++] = (uint16_t)sym;
		c = next[len]++;
		if (len > TILE__FAST_BITS)
			continue;
		for (i = 0; i < len; i++)
			rev |= ((c >> i) & 1u) << (len - 1 - i);
		for (i = rev; i < (1u << TILE__FAST_BITS); i += 1u << len)
			h->fast[i] = (uint16_t)(sym | len << 9);
	}
	return TILE__INF_OK;
}

static tile__inflate_result tile__huff_decode(tile__bits *b, const tile__huff *h, unsigned *sym)
{
	unsigned e, len;
	uint32_t code = 0, first = 0, index = 0;
	uint64_t bits;
	if (b->cnt < 15)
		tile__bits_fill(b);
	e = h->fast[b->buf & ((1u << TILE__FAST_BITS) - 1)];
	if (e) {
		len = e >> 9;
		if (len > b->cnt)
			return TILE__INF_TRUNCATED;
		b->buf >>= len;
		b->cnt -= len;
		*sym = e & 511;
		return TILE__INF_OK;
	}
	bits = b->buf;
	for (len = 1; len < 16; len++) {
		uint32_t count = h->count[len];
		if (len > b->cnt)
			return TILE__INF_TRUNCATED;
		code |= (uint32_t)(bits & 1);
		bits >>= 1;
		if (code - first < count) {
			b->buf >>= len;
			b->cnt -= len;
			*sym = h->symbol[index + code - first];
			return TILE__INF_OK;
		}
		index += count;
		first = (first + count) << 1;
		code <<= 1;
	}
	return TILE__INF_BAD_SYMBOL;
}

static const uint16_t tile__len_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
					     35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t tile__len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
					    3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t tile__dist_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129,
					      193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
					      6145, 8193, 12289, 16385, 24577};
static const uint8_t tile__dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
					     6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

typedef struct tile__inflate_state {
	tile__bits bits;
	uint8_t *out;
	size_t out_len, out_pos;
	tile__huff lit, dist;
} tile__inflate_state;

/* Decodes one compressed block's symbols with s->lit and s->dist. */
static tile__inflate_result tile__inflate_codes(tile__inflate_state *s)
{
	for (;;) {
		unsigned sym, dsym;
		uint32_t extra, len, dist;
		tile__inflate_result r = tile__huff_decode(&s->bits, &s->lit, &sym);
		if (r)
			return r;
		if (sym < 256) {
			if (s->out_pos >= s->out_len)
				return TILE__INF_OVERFLOW;
			s->out[s->out_pos++] = (uint8_t)sym;
			continue;
		}
		if (sym == 256)
			return TILE__INF_OK;
		sym -= 257;
		if (sym >= 29)
			return TILE__INF_BAD_SYMBOL;
		if (!tile__bits_get(&s->bits, tile__len_extra[sym], &extra))
			return TILE__INF_TRUNCATED;
		len = tile__len_base[sym] + extra;
		r = tile__huff_decode(&s->bits, &s->dist, &dsym);
		if (r)
			return r;
		if (dsym >= 30)
			return TILE__INF_BAD_SYMBOL;
		if (!tile__bits_get(&s->bits, tile__dist_extra[dsym], &extra))
			return TILE__INF_TRUNCATED;
		dist = tile__dist_base[dsym] + extra;
		if (dist > s->out_pos)
			return TILE__INF_DISTANCE;
		if (len > s->out_len - s->out_pos)
			return TILE__INF_OVERFLOW;
		{
			/* Byte by byte: source and destination overlap when dist < len. */
			uint8_t *d = s->out + s->out_pos;
			const uint8_t *from = d - dist;
			s->out_pos += len;
			while (len--)
				*d++ = *from++;
		}
	}
}

static tile__inflate_result tile__inflate_stored(tile__inflate_state *s)
{
	tile__bits *b = &s->bits;
	uint32_t len, nlen;
	b->buf >>= b->cnt & 7;
	b->cnt -= b->cnt & 7;
	if (!tile__bits_get(b, 16, &len) || !tile__bits_get(b, 16, &nlen))
		return TILE__INF_TRUNCATED;
	if (len != (~nlen & 0xffffu))
		return TILE__INF_STORED_LENGTH;
	if (len > s->out_len - s->out_pos)
		return TILE__INF_OVERFLOW;
	for (; len && b->cnt >= 8; len--) {
		s->out[s->out_pos++] = (uint8_t)b->buf;
		b->buf >>= 8;
		b->cnt -= 8;
	}
	if (len > b->len - b->pos)
		return TILE__INF_TRUNCATED;
	memcpy(s->out + s->out_pos, b->in + b->pos, len);
	s->out_pos += len;
	b->pos += len;
	return TILE__INF_OK;
}

static tile__inflate_result tile__inflate_fixed(tile__inflate_state *s)
{
	uint8_t lengths[288];
	unsigned i;
	for (i = 0; i < 288; i++)
		lengths[i] = (uint8_t)(i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8);
	tile__huff_build(&s->lit, lengths, 288, 0);
	/* All 32 five-bit codes: 30 and 31 decode, then fail as symbols. */
	for (i = 0; i < 32; i++)
		lengths[i] = 5;
	tile__huff_build(&s->dist, lengths, 32, 0);
	return tile__inflate_codes(s);
}

static tile__inflate_result tile__inflate_dynamic(tile__inflate_state *s)
{
	static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
	uint8_t lengths[286 + 30];
	uint32_t nlen, ndist, ncode, i, v;
	tile__inflate_result r;
	if (!tile__bits_get(&s->bits, 5, &nlen) || !tile__bits_get(&s->bits, 5, &ndist) ||
	    !tile__bits_get(&s->bits, 4, &ncode))
		return TILE__INF_TRUNCATED;
	nlen += 257;
	ndist += 1;
	ncode += 4;
	if (nlen > 286 || ndist > 30)
		return TILE__INF_CODE_COUNT;
	memset(lengths, 0, 19);
	for (i = 0; i < ncode; i++) {
		if (!tile__bits_get(&s->bits, 3, &v))
			return TILE__INF_TRUNCATED;
		lengths[order[i]] = (uint8_t)v;
	}
	/* The code-length code lives in s->lit until the real one replaces it. */
	r = tile__huff_build(&s->lit, lengths, 19, 0);
	if (r)
		return r;
	for (i = 0; i < nlen + ndist;) {
		unsigned sym;
		uint32_t rep, fill = 0;
		r = tile__huff_decode(&s->bits, &s->lit, &sym);
		if (r)
			return r;
		if (sym < 16) {
			lengths[i++] = (uint8_t)sym;
			continue;
		}
		if (sym == 16) {
			if (i == 0)
				return TILE__INF_BAD_REPEAT;
			fill = lengths[i - 1];
			if (!tile__bits_get(&s->bits, 2, &rep))
				return TILE__INF_TRUNCATED;
			rep += 3;
		} else if (sym == 17) {
			if (!tile__bits_get(&s->bits, 3, &rep))
				return TILE__INF_TRUNCATED;
			rep += 3;
		} else {
			if (!tile__bits_get(&s->bits, 7, &rep))
				return TILE__INF_TRUNCATED;
			rep += 11;
		}
		if (rep > nlen + ndist - i)
			return TILE__INF_BAD_REPEAT;
		memset(lengths + i, (int)fill, rep);
		i += rep;
	}
	if (lengths[256] == 0)
		return TILE__INF_NO_END;
	r = tile__huff_build(&s->lit, lengths, nlen, 1);
	if (r)
		return r;
	r = tile__huff_build(&s->dist, lengths + nlen, ndist, 1);
	if (r)
		return r;
	return tile__inflate_codes(s);
}

static uint32_t tile__adler32(const uint8_t *p, size_t n)
{
	uint32_t a = 1, b = 0;
	while (n) {
		/* 5552 bytes keep b below 2^32 between reductions. */
		size_t chunk = n < 5552 ? n : 5552;
		n -= chunk;
		while (chunk--) {
			a += *p++;
			b += a;
		}
		a %= 65521u;
		b %= 65521u;
	}
	return b << 16 | a;
}

/* Inflates a whole zlib stream into exactly out_len bytes. *at receives the
 * input offset where decoding stopped (for messages). */
static tile__inflate_result tile__inflate(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len, size_t *at)
{
	tile__inflate_state st, *s = &st;
	tile__inflate_result r = TILE__INF_OK;
	uint32_t final = 0, type, adler = 0, byte, i;
	*at = 0;
	if (in_len < 2)
		return TILE__INF_TRUNCATED;
	if ((in[0] & 15) != 8 || ((unsigned)in[0] << 8 | in[1]) % 31 != 0)
		return TILE__INF_BAD_HEADER;
	if (in[0] >> 4 > 7)
		return TILE__INF_BAD_WINDOW;
	if (in[1] & 0x20)
		return TILE__INF_DICTIONARY;
	memset(&s->bits, 0, sizeof s->bits);
	s->bits.in = in;
	s->bits.len = in_len;
	s->bits.pos = 2;
	s->out = out;
	s->out_len = out_len;
	s->out_pos = 0;
	while (!final && !r) {
		if (!tile__bits_get(&s->bits, 1, &final) || !tile__bits_get(&s->bits, 2, &type))
			r = TILE__INF_TRUNCATED;
		else if (type == 0)
			r = tile__inflate_stored(s);
		else if (type == 1)
			r = tile__inflate_fixed(s);
		else if (type == 2)
			r = tile__inflate_dynamic(s);
		else
			r = TILE__INF_BLOCK_TYPE;
	}
	if (!r && s->out_pos != out_len)
		r = TILE__INF_SHORT;
	if (!r) {
		s->bits.buf >>= s->bits.cnt & 7;
		s->bits.cnt -= s->bits.cnt & 7;
		for (i = 0; i < 4 && !r; i++) {
			if (!tile__bits_get(&s->bits, 8, &byte))
				r = TILE__INF_TRUNCATED;
			adler = adler << 8 | byte;
		}
	}
	if (!r && adler != tile__adler32(out, out_len))
		r = TILE__INF_ADLER;
	if (!r && (s->bits.cnt || s->bits.pos != in_len))
		r = TILE__INF_TRAILING;
	*at = s->bits.pos - s->bits.cnt / 8;
	return r;
}

static tile_status tile__inflate_image(uint32_t image, const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
	size_t at;
	tile__inflate_result r = tile__inflate(in, in_len, out, out_len, &at);
	if (r)
		return tile__fail(TILE_ERROR_INFLATE, "image %u: inflate: %s at input byte %lu", image,
				  tile__inflate_message(r), (unsigned long)at);
	return TILE_SUCCESS;
}
#endif
