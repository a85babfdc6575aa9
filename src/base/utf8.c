/* utf8.c: UTF-8 one code point at a time, encoding and decoding.  The
 * HTML of a log, a result file's \u escapes and the JSON we write all
 * go through here, so they agree on what is UTF-8. */
#include "base/utf8.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

void utf8_put(struct buf *b, unsigned long cp)
{
	if (cp < 0x80) {
		buf_putc(b, (char)cp);
	} else if (cp < 0x800) {
		buf_putc(b, (char)(0xC0 | (cp >> 6)));
		buf_putc(b, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		buf_putc(b, (char)(0xE0 | (cp >> 12)));
		buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
		buf_putc(b, (char)(0x80 | (cp & 0x3F)));
	} else {
		buf_putc(b, (char)(0xF0 | (cp >> 18)));
		buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3F)));
		buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
		buf_putc(b, (char)(0x80 | (cp & 0x3F)));
	}
}

size_t utf8_decode(const unsigned char *p, size_t n, size_t *sub, unsigned long *cp)
{
	unsigned char c = p[0];
	if (c < 0x80) {
		if (cp)
			*cp = c;
		return 1;
	}
	size_t need;
	/* The range of the second byte: narrower after E0, ED, F0 and F4,
	 * which is what rules out overlong forms, surrogates and code
	 * points past U+10FFFF without decoding first. */
	unsigned char lo = 0x80, hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF) {
		need = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F; /* no surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F; /* nothing past U+10FFFF */
	} else {
		if (sub)
			*sub = 1;
		return 0;
	}
	unsigned long v = c & (need == 2 ? 0x1F : need == 3 ? 0x0F : 0x07);
	for (size_t i = 1; i < need; i++) {
		if (i >= n || p[i] < lo || p[i] > hi) {
			if (sub)
				*sub = i;
			return 0;
		}
		v = (v << 6) | (p[i] & 0x3F);
		lo = 0x80;
		hi = 0xBF;
	}
	if (cp)
		*cp = v;
	return need;
}

bool utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	while (p < end) {
#ifdef __SSE2__
		/* runs of ASCII without NUL, most of any Markdown */
		const __m128i zero = _mm_setzero_si128();
		while (end - p >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
			if (_mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, zero))))
				break;
			p += 16;
		}
		if (p == end)
			break;
#endif
		if (*p == 0)
			return false;
		if (*p < 0x80) {
			p++;
			continue;
		}
		size_t k = utf8_decode(p, (size_t)(end - p), NULL, NULL);
		if (k == 0)
			return false;
		p += k;
	}
	return true;
}
