/* util.c: allocation, buffers, spans and did-you-mean. */
#include "base/util.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static void oom(size_t n)
{
	fprintf(stderr, "logdown: out of memory (asked for %zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		oom(count * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return buf_detach(&b);
}

void buf_grow(struct buf *b, size_t extra)
{
	if (extra > SIZE_MAX / 2 - b->len)
		oom(extra);
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	/* Grow by half again, as cmark does: amortised O(1) appends
	 * without doubling the peak for very large buffers. */
	size_t cap = b->cap ? b->cap + b->cap / 2 : 64;
	if (cap < need)
		cap = need;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
	b->data[b->len] = '\0';
}

void buf_put(struct buf *b, const char *p, size_t n)
{
	buf_grow(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

void buf_putc(struct buf *b, char c)
{
	if (b->len + 2 <= b->cap) { /* the byte and the NUL fit: most calls */
		b->data[b->len++] = c;
		b->data[b->len] = '\0';
		return;
	}
	buf_put(b, &c, 1);
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	/* Formatted straight into the room left, which the text mostly
	 * fits; formatted again only when it did not. */
	size_t room = b->cap - b->len;
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(b->cap ? b->data + b->len : NULL, b->cap ? room : 0, fmt, ap2);
	va_end(ap2);
	if (n < 0) {
		if (b->cap)
			b->data[b->len] = '\0';
		return;
	}
	if ((size_t)n >= room || !b->cap) {
		buf_grow(b, (size_t)n);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	}
	b->len += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void buf_put_html(struct buf *b, const char *s, size_t n)
{
	size_t start = 0;
	for (size_t i = 0; i < n; i++) {
		const char *rep;
		switch (s[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default: continue;
		}
		buf_put(b, s + start, i - start);
		buf_puts(b, rep);
		start = i + 1;
	}
	buf_put(b, s + start, n - start);
}

uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* A string's first 8 bytes as a big-endian integer, NUL-padded: two
 * strings whose keys differ compare as their keys do under strcmp(). */
struct keyed {
	uint64_t key;
	char *s;
	uint32_t at; /* its index in the array given (str_sort_order()) */
};

static uint64_t str_key(const char *s)
{
	uint64_t k = 0;
	for (int i = 0; i < 8; i++) {
		unsigned char c = (unsigned char)*s;
		k = k << 8 | c;
		s += c != 0; /* past the end: NUL again */
	}
	return k;
}

static int keyed_cmp(const struct keyed *a, const struct keyed *b)
{
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	/* equal keys: both strings are equal up to 8 bytes, and past them
	 * only when neither ended within them (the key's last byte is the
	 * 8th byte, not padding) */
	if ((a->key & 0xFF) == 0)
		return 0;
	return strcmp(a->s + 8, b->s + 8);
}

static void keyed_swap(struct keyed *a, struct keyed *b)
{
	struct keyed t = *a;
	*a = *b;
	*b = t;
}

static void keyed_sift(struct keyed *v, size_t at, size_t n)
{
	for (size_t child; (child = 2 * at + 1) < n; at = child) {
		if (child + 1 < n && keyed_cmp(&v[child], &v[child + 1]) < 0)
			child++;
		if (keyed_cmp(&v[at], &v[child]) >= 0)
			return;
		keyed_swap(&v[at], &v[child]);
	}
}

/* Introsort: quicksort with the median of three, insertion sort for
 * short runs, and heapsort where the partitions go too deep (an order
 * made to defeat the median). */
static void keyed_sort(struct keyed *v, size_t n, unsigned depth)
{
	while (n > 16) {
		if (depth-- == 0) {
			for (size_t i = n / 2; i-- > 0;)
				keyed_sift(v, i, n);
			for (size_t end = n; end-- > 1;) {
				keyed_swap(&v[0], &v[end]);
				keyed_sift(v, 0, end);
			}
			return;
		}
		/* the lower middle: Hoare's partition then leaves both sides
		 * non-empty */
		size_t mid = (n - 1) / 2;
		if (keyed_cmp(&v[mid], &v[0]) < 0)
			keyed_swap(&v[mid], &v[0]);
		if (keyed_cmp(&v[n - 1], &v[mid]) < 0) {
			keyed_swap(&v[n - 1], &v[mid]);
			if (keyed_cmp(&v[mid], &v[0]) < 0)
				keyed_swap(&v[mid], &v[0]);
		}
		struct keyed pivot = v[mid];
		size_t i = 0, j = n - 1;
		for (;;) {
			while (keyed_cmp(&v[i], &pivot) < 0)
				i++;
			while (keyed_cmp(&pivot, &v[j]) < 0)
				j--;
			if (i >= j)
				break;
			keyed_swap(&v[i], &v[j]);
			i++;
			j--;
		}
		/* [0, j] <= pivot <= [j + 1, n): the smaller side recursively */
		size_t left = j + 1;
		if (left < n - left) {
			keyed_sort(v, left, depth);
			v += left;
			n -= left;
		} else {
			keyed_sort(v + left, n - left, depth);
			n = left;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct keyed x = v[i];
		size_t j = i;
		for (; j > 0 && keyed_cmp(&x, &v[j - 1]) < 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* v's n strings with their keys and indexes, sorted; caller frees. */
static struct keyed *keyed_sorted(char *const *v, size_t n)
{
	struct keyed *k = xmalloc((n ? n : 1) * sizeof *k);
	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed){str_key(v[i]), v[i], (uint32_t)i};
	unsigned depth = 0;
	for (size_t m = n; m; m >>= 1)
		depth += 2;
	keyed_sort(k, n, depth);
	return k;
}

void str_sort(char **v, size_t n)
{
	if (n < 2)
		return;
	struct keyed *k = keyed_sorted(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = k[i].s;
	free(k);
}

void str_sort_order(char *const *v, size_t n, uint32_t *order)
{
	assert(n <= UINT32_MAX);
	struct keyed *k = keyed_sorted(v, n);
	for (size_t i = 0; i < n; i++)
		order[i] = k[i].at;
	free(k);
}

bool url_is_dangerous(const char *s, size_t n)
{
	/* Browsers drop leading blanks and control characters, and tabs and
	 * newlines anywhere: "\tjava\nscript:" is still the scheme. */
	char scheme[16];
	size_t k = 0, i = 0;
	while (i < n && (unsigned char)s[i] <= 0x20)
		i++;
	for (; i < n && s[i] != ':'; i++) {
		char c = s[i];
		if (c == '\t' || c == '\n' || c == '\r')
			continue;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) || k + 1 >= sizeof scheme)
			return false;
		scheme[k++] = (char)(c | 0x20);
	}
	if (i == n)
		return false;
	scheme[k] = '\0';
	if (strcmp(scheme, "data") == 0) {
		static const char *const images[] = {"image/png", "image/gif", "image/jpeg",
						     "image/webp"};
		for (size_t j = 0; j < ARRAY_LEN(images); j++) {
			size_t m = strlen(images[j]);
			if (n - i - 1 >= m && strncasecmp(s + i + 1, images[j], m) == 0)
				return false;
		}
		return true;
	}
	return strcmp(scheme, "javascript") == 0 || strcmp(scheme, "vbscript") == 0 ||
	       strcmp(scheme, "file") == 0;
}

void buf_clear(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

char *buf_detach(struct buf *b)
{
	char *p = b->data ? b->data : xstrdup("");
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

const char *buf_data(const struct buf *b)
{
	return b->data ? b->data : "";
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

bool span_eq(struct span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.len == n && memcmp(s.p, lit, n) == 0;
}

bool str_has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

const char *mem_first_of(const char *p, const char *end, const char *set)
{
	size_t nset = strlen(set);
	assert(nset >= 1 && nset <= 4);
	/* the set padded with its first byte: four compares whatever its size */
	unsigned char c[4];
	for (size_t i = 0; i < 4; i++)
		c[i] = (unsigned char)set[i < nset ? i : 0];
#ifdef __SSE2__
	const __m128i c0 = _mm_set1_epi8((char)c[0]), c1 = _mm_set1_epi8((char)c[1]);
	const __m128i c2 = _mm_set1_epi8((char)c[2]), c3 = _mm_set1_epi8((char)c[3]);
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, c0), _mm_cmpeq_epi8(v, c1)),
					   _mm_or_si128(_mm_cmpeq_epi8(v, c2), _mm_cmpeq_epi8(v, c3)));
		unsigned mask = (unsigned)_mm_movemask_epi8(hit);
		if (mask)
			return p + __builtin_ctz(mask);
		p += 16;
	}
#endif
	for (; p < end; p++) {
		unsigned char b = (unsigned char)*p;
		if (b == c[0] || b == c[1] || b == c[2] || b == c[3])
			return p;
	}
	return end;
}

bool str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

void buf_put_names(struct buf *b, const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		if (i)
			buf_puts(b, ", ");
		buf_puts(b, names[i]);
	}
}

size_t edit_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b);
	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	size_t *row = xmalloc((lb + 1) * sizeof *row);
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0], best = i;
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t v = diag + cost;
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > cap) {
			free(row);
			return cap + 1;
		}
	}
	size_t d = row[lb];
	free(row);
	return d > cap ? cap + 1 : d;
}

static bool ident_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

bool is_identifier(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!ident_char(*s))
			return false;
	return true;
}

char *identifier_of(const char *s)
{
	struct buf b = BUF_INIT;
	if (*s >= '0' && *s <= '9')
		buf_putc(&b, '_');
	bool gap = false;
	for (; *s; s++) {
		if (ident_char(*s)) {
			buf_putc(&b, *s);
			gap = false;
		} else if (!gap) {
			buf_putc(&b, '_');
			gap = true;
		}
	}
	if (!b.len)
		buf_putc(&b, '_');
	return buf_detach(&b);
}

const char *closest_name(const char *name, const char *const *candidates)
{
	/* A typo changes about one character in three at most. */
	size_t cap = strlen(name) / 3 + 1;
	const char *best = NULL;
	size_t best_d = cap + 1, best_len_gap = 0, n = strlen(name);
	for (size_t i = 0; candidates[i]; i++) {
		size_t d = edit_distance(name, candidates[i], cap);
		size_t len = strlen(candidates[i]);
		size_t gap = len > n ? len - n : n - len;
		/* On a tie, the candidate of the same length reads as the
		 * likelier typo: cs1024 suggests cs2048 before cs512. */
		if (d < best_d || (d == best_d && best && gap < best_len_gap)) {
			best_d = d;
			best = candidates[i];
			best_len_gap = gap;
		}
	}
	return best;
}

const char *test_hook_env(const char *name)
{
#ifdef LOGDOWN_TEST_HOOKS
	return getenv(name);
#else
	(void)name;
	return NULL;
#endif
}
