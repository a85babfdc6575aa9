/* literal.c: the literal prefilter.  Most lines of a big log match
 * nothing, so the engine avoids looking at them one by one: each
 * pattern carries a literal that every match must contain
 * (pattern_literal()), searched for over the whole chunk by its two
 * rarest bytes, 16 or 32 places at a time (lit_find()); the lines
 * between candidates are only counted (count_nl()). */
#define _GNU_SOURCE /* memmem */
#include "literal.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

/* How common a byte is in logs, roughly (0 rare .. 255 everywhere):
 * the literal search looks for a literal's rarest bytes first. */
static int byte_rank(unsigned char c)
{
	static const char common[] = "etaoinsrhldcumfpgwybvk";
	if (c == ' ')
		return 255;
	if (c >= '0' && c <= '9')
		return 200;
	const char *at = c ? strchr(common, c) : NULL;
	if (at)
		return 190 - (int)(at - common) * 4;
	if (c >= 'a' && c <= 'z')
		return 90;
	if (strchr(".,:-_/=", c) && c)
		return 150;
	/* Brackets and quotes are rarer in logs than most lowercase
	 * letters: "sample(s) in" is looked for by its "(" and ")", not
	 * by the "m" and "p" of every "samples/sec". */
	if (strchr("()[]'\"", c) && c)
		return 100;
	if (c >= 'A' && c <= 'Z')
		return 70;
	if (c == '\t')
		return 60;
	return c < 0x80 ? 40 : 20;
}

/* Picks the offsets of the literal's two rarest bytes (distinct). */
void literal_rare(struct pattern *pat)
{
	size_t a = 0, b = 0;
	for (size_t i = 1; i < pat->litlen; i++)
		if (byte_rank((unsigned char)pat->lit[i]) < byte_rank((unsigned char)pat->lit[a]))
			a = i;
	b = a == 0 ? (pat->litlen > 1 ? 1 : 0) : 0;
	for (size_t i = 0; i < pat->litlen; i++)
		if (i != a &&
		    byte_rank((unsigned char)pat->lit[i]) < byte_rank((unsigned char)pat->lit[b]))
			b = i;
	pat->rare1 = a;
	pat->rare2 = b;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Where the CPU has AVX2, the literal search tests 32 places at a time;
 * the function is compiled for AVX2 alone and chosen at run time. */
#define LIT_AVX2 1
__attribute__((target("avx2"))) static const char *
lit_block_avx2(const struct pattern *pat, const char **pp, const char *last, const char *end)
{
	const char *p = *pp, *lit = pat->lit;
	size_t n = pat->litlen, r1 = pat->rare1, r2 = pat->rare2;
	size_t rmax = r1 > r2 ? r1 : r2;
	const __m256i b1 = _mm256_set1_epi8(lit[r1]), b2 = _mm256_set1_epi8(lit[r2]);
	while (p + 31 + rmax < end && p + 31 <= last) {
		__m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + r1));
		__m256i v2 = _mm256_loadu_si256((const __m256i *)(const void *)(p + r2));
		unsigned mask = (unsigned)_mm256_movemask_epi8(
			_mm256_and_si256(_mm256_cmpeq_epi8(v1, b1), _mm256_cmpeq_epi8(v2, b2)));
		while (mask) {
			unsigned bit = (unsigned)__builtin_ctz(mask);
			if (memcmp(p + bit, lit, n) == 0)
				return p + bit;
			mask &= mask - 1;
		}
		p += 32;
	}
	*pp = p;
	return NULL;
}
#endif

#ifdef __SSE2__
static const char *lit_block_sse2(const struct pattern *pat, const char **pp, const char *last,
				  const char *end)
{
	const char *p = *pp, *lit = pat->lit;
	size_t n = pat->litlen, r1 = pat->rare1, r2 = pat->rare2;
	size_t rmax = r1 > r2 ? r1 : r2;
	const __m128i b1 = _mm_set1_epi8(lit[r1]), b2 = _mm_set1_epi8(lit[r2]);
	/* Sixteen starting places s..s+15, all <= last; the loads at
	 * s + r .. s + r + 15 stay below end. */
	while (p + 15 + rmax < end && p + 15 <= last) {
		__m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + r1));
		__m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(p + r2));
		unsigned mask = (unsigned)_mm_movemask_epi8(
			_mm_and_si128(_mm_cmpeq_epi8(v1, b1), _mm_cmpeq_epi8(v2, b2)));
		while (mask) {
			unsigned bit = (unsigned)__builtin_ctz(mask);
			if (memcmp(p + bit, lit, n) == 0)
				return p + bit;
			mask &= mask - 1;
		}
		p += 16;
	}
	*pp = p;
	return NULL;
}
#endif

/* The first place of pat's literal in [p, end), or NULL.  Many
 * starting places are tested at once for the literal's two rarest
 * bytes, and only those that have both are compared in full: a byte
 * that is rare in logs makes this several times faster than memmem. */
const char *lit_find(const struct pattern *pat, const char *p, const char *end)
{
	const char *lit = pat->lit;
	size_t n = pat->litlen;
	if (p >= end || (size_t)(end - p) < n)
		return NULL;
	if (n == 1)
		return memchr(p, lit[0], (size_t)(end - p));
	const char *last = end - n; /* the last starting place */
	const char *hit = NULL;
#ifdef LIT_AVX2
	/* Reports are parsed on several threads: asked once, atomically. */
	static _Atomic int avx2 = -1;
	int have = atomic_load_explicit(&avx2, memory_order_relaxed);
	if (have < 0) {
		__builtin_cpu_init();
		have = __builtin_cpu_supports("avx2") ? 1 : 0;
		atomic_store_explicit(&avx2, have, memory_order_relaxed);
	}
	if (have && end - p >= 64 && (hit = lit_block_avx2(pat, &p, last, end)))
		return hit;
#endif
#ifdef __SSE2__
	if ((hit = lit_block_sse2(pat, &p, last, end)))
		return hit;
#endif
	/* The last places: jump from one rare byte to the next. */
	size_t r1 = pat->rare1, r2 = pat->rare2;
	while (p <= last) {
		const char *q = memchr(p + r1, lit[r1], (size_t)(last - p) + 1);
		if (!q)
			return NULL;
		p = q - r1;
		if (p[r2] == lit[r2] && memcmp(p, lit, n) == 0)
			return p;
		p++;
	}
	return NULL;
}

/* The number of '\n' in [p, e): sixteen bytes at a time where SSE2 is. */
long count_nl(const char *p, const char *e)
{
	long n = 0;
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n');
	while (e - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		n += __builtin_popcount((unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)));
		p += 16;
	}
#endif
	for (; p < e; p++)
		n += *p == '\n';
	return n;
}

/* The index of the ']' that closes the class opening at re[i]. */
static size_t class_end(const char *re, size_t n, size_t i)
{
	size_t j = i + 1;
	if (j < n && re[j] == '^')
		j++;
	if (j < n && re[j] == ']')
		j++;
	for (; j < n && re[j] != ']'; j++) {
		if (re[j] == '\\') {
			j++;
		} else if (re[j] == '[' && j + 1 < n && re[j + 1] == ':') {
			const char *close = memmem(re + j, n - j, ":]", 2);
			if (close)
				j = (size_t)(close - re) + 1;
		}
	}
	return j;
}

/* The index of the last byte of the escape whose letter is re[i] (the
 * byte after its backslash): the letter itself, or the argument some
 * letters take, which is no literal text of the pattern: \k<name>,
 * \k{name}, \k'name', \g{-1}, \g1, \p{L}, \x{263A}, \x41, \o{101},
 * \N{U+263A}, \cA, and a backreference's or an octal escape's digits. */
static size_t escape_end(const char *re, size_t n, size_t i)
{
	char e = re[i];
	size_t j = i + 1;
	if (j < n && strchr("kgpPxoN", e) && (re[j] == '<' || re[j] == '{' || re[j] == '\'')) {
		char close = re[j] == '<' ? '>' : re[j] == '{' ? '}' : '\'';
		const char *c = memchr(re + j + 1, close, n - j - 1);
		return c ? (size_t)(c - re) : n - 1;
	}
	if (e == 'c' && j < n)
		return j;
	if (e == 'x') {
		while (j < n && j < i + 3 && isxdigit((unsigned char)re[j]))
			j++;
		return j - 1;
	}
	if (e == 'g' || isdigit((unsigned char)e)) {
		if (e == 'g' && j < n && (re[j] == '-' || re[j] == '+'))
			j++;
		while (j < n && isdigit((unsigned char)re[j]))
			j++;
		return j - 1;
	}
	return i;
}

/* The longest run of bytes that every match of the pattern contains,
 * read from its source: literal characters at the top level, outside
 * groups, classes and alternatives, not made optional by a quantifier.
 * Anything this reader does not follow gives no literal, which is
 * always safe: the pattern is then tried on every line. */
void pattern_literal(const char *re, size_t n, struct buf *best)
{
	struct buf cur = BUF_INIT;
	buf_clear(best);
	int depth = 0;
	bool last_lit = false; /* the atom before a quantifier was cur's last byte */
	for (size_t i = 0; i < n; i++) {
		char c = re[i];
		if (depth > 0) {
			if (c == '\\')
				i++;
			else if (c == '(')
				depth++;
			else if (c == ')')
				depth--;
			else if (c == '[')
				i = class_end(re, n, i);
			last_lit = false;
			continue;
		}
		bool quant = c == '*' || c == '+' || c == '?';
		size_t qend = i + 1;
		if (c == '{') {
			size_t j = i + 1;
			while (j < n && isdigit((unsigned char)re[j]))
				j++;
			if (j < n && re[j] == ',')
				for (j++; j < n && isdigit((unsigned char)re[j]);)
					j++;
			if (j < n && re[j] == '}' && j > i + 1) {
				quant = true;
				qend = j + 1;
			}
		}
		if (quant) {
			bool may_vanish = c == '*' || c == '?' || (c == '{' && (re[i + 1] == '0' ||
										 re[i + 1] == ','));
			if (last_lit && may_vanish && cur.len)
				cur.len--;
			if (cur.len > best->len)
				buf_put((buf_clear(best), best), cur.data, cur.len);
			buf_clear(&cur);
			last_lit = false;
			i = qend - 1;
			/* Lazy and possessive marks. */
			if (i + 1 < n && (re[i + 1] == '?' || re[i + 1] == '+'))
				i++;
			continue;
		}
		if (c == '|') {
			/* A top-level alternative: no byte is certain. */
			buf_clear(best);
			buf_free(&cur);
			return;
		}
		const char *lit = NULL;
		char one;
		if (c == '\\' && i + 1 < n) {
			char e = re[++i];
			if (e == 'Q' || e == 'E') {
				buf_clear(best);
				buf_free(&cur);
				return;
			}
			if (!isalnum((unsigned char)e)) {
				one = e;
				lit = &one;
			} else {
				i = escape_end(re, n, i);
			}
		} else if (c == '(') {
			/* Option settings change how what follows matches. */
			if (i + 2 < n && re[i + 1] == '?' && strchr("imnsxJU-^)", re[i + 2])) {
				buf_clear(best);
				buf_free(&cur);
				return;
			}
			depth = 1;
		} else if (c == '[') {
			i = class_end(re, n, i);
		} else if (c != '.' && c != '^' && c != '$' && c != '\n') {
			one = c;
			lit = &one;
		}
		if (lit) {
			buf_put(&cur, lit, 1);
			last_lit = true;
		} else {
			if (cur.len > best->len)
				buf_put((buf_clear(best), best), cur.data, cur.len);
			buf_clear(&cur);
			last_lit = false;
		}
	}
	if (cur.len > best->len)
		buf_put((buf_clear(best), best), cur.data, cur.len);
	buf_free(&cur);
}

