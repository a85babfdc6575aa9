/* value.c: the JSON-like tree shared by YAML loading and templates. */
#include "data/value.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* A map gets a hash index once it has more keys than this.  Below it a
 * scan of the keys is as quick and needs no memory. */
#define VALUE_HASH_MIN 16

struct value *value_new(enum value_kind kind)
{
	struct value *v = xcalloc(1, sizeof *v);
	v->kind = kind;
	return v;
}

struct value *value_bool(bool b)
{
	struct value *v = value_new(VALUE_BOOL);
	v->boolean = b;
	return v;
}

struct value *value_number(double n, const char *text)
{
	struct value *v = value_new(VALUE_NUMBER);
	v->number = n;
	if (text) {
		v->text = xstrdup(text);
		v->len = strlen(text);
	}
	return v;
}

struct value *value_stringn(const char *s, size_t n)
{
	struct value *v = value_new(VALUE_STRING);
	v->text = xstrndup(s, n);
	v->len = n;
	return v;
}

struct value *value_string(const char *s)
{
	return value_stringn(s, strlen(s));
}

void value_free(struct value *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->count; i++) {
		value_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->key_locs);
	free(v->hash);
	free(v->text);
	free(v);
}

struct value *value_copy(const struct value *v)
{
	if (!v)
		return NULL;
	struct value *c = value_new(v->kind);
	c->boolean = v->boolean;
	c->plain = v->plain;
	c->number = v->number;
	c->loc = v->loc;
	if (v->text) {
		c->text = xstrndup(v->text, v->len);
		c->len = v->len;
	}
	/* value_set() rebuilds the hash index as the copy grows; the keys
	 * of v are distinct, so each lands at the end, in v's order. */
	for (size_t i = 0; i < v->count; i++) {
		if (v->kind == VALUE_MAP) {
			value_set(c, v->keys[i], value_copy(v->items[i]));
			c->key_locs[c->count - 1] = v->key_locs[i];
		} else {
			value_push(c, value_copy(v->items[i]));
		}
	}
	return c;
}

/* FNV-1a, then a 64-bit finalizer (MurmurHash3's fmix64) so that the low
 * bits, which pick the slot, depend on every byte of the key. */
static uint64_t key_hash(const char *key)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3u;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53u;
	h ^= h >> 33;
	return h;
}

/* Enters key i of map in its hash index.  The index is open addressing
 * with linear probing: a slot holds 1 + a key's index, or 0 when empty.
 * Keys are never removed, so no slot ever needs a tombstone. */
static void hash_insert(struct value *map, size_t i)
{
	size_t mask = map->hash_cap - 1;
	size_t at = (size_t)key_hash(map->keys[i]) & mask;
	while (map->hash[at])
		at = (at + 1) & mask;
	map->hash[at] = i + 1;
}

/* Builds map's hash index afresh with cap slots (a power of two). */
static void hash_build(struct value *map, size_t cap)
{
	free(map->hash);
	map->hash = xcalloc(cap, sizeof *map->hash);
	map->hash_cap = cap;
	for (size_t i = 0; i < map->count; i++)
		hash_insert(map, i);
}

static void reserve(struct value *v)
{
	if (v->count < v->cap)
		return;
	v->cap = v->cap ? v->cap * 2 : 4;
	v->items = xrealloc(v->items, v->cap * sizeof *v->items);
	if (v->kind == VALUE_MAP) {
		v->keys = xrealloc(v->keys, v->cap * sizeof *v->keys);
		v->key_locs = xrealloc(v->key_locs, v->cap * sizeof *v->key_locs);
	}
}

void value_push(struct value *list, struct value *item)
{
	reserve(list);
	list->items[list->count++] = item;
}

void value_set(struct value *map, const char *key, struct value *v)
{
	long i = value_index(map, key);
	if (i >= 0) {
		value_free(map->items[i]);
		map->items[i] = v;
		return;
	}
	reserve(map);
	map->keys[map->count] = xstrdup(key);
	memset(&map->key_locs[map->count], 0, sizeof map->key_locs[0]);
	map->items[map->count++] = v;
	/* Keep the index at most half full, so probes stay short and always
	 * reach an empty slot; doubling keeps the rebuilds linear overall. */
	if (map->hash && map->count * 2 <= map->hash_cap)
		hash_insert(map, map->count - 1);
	else if (map->hash)
		hash_build(map, map->hash_cap * 2);
	else if (map->count > VALUE_HASH_MIN)
		hash_build(map, 4 * VALUE_HASH_MIN);
}

void value_set_str(struct value *map, const char *key, const char *s)
{
	value_set(map, key, value_string(s));
}

long value_index(const struct value *map, const char *key)
{
	if (!map || map->kind != VALUE_MAP)
		return -1;
	if (map->hash) {
		size_t mask = map->hash_cap - 1;
		for (size_t at = (size_t)key_hash(key) & mask; map->hash[at]; at = (at + 1) & mask) {
			size_t i = map->hash[at] - 1;
			if (strcmp(map->keys[i], key) == 0)
				return (long)i;
		}
		return -1;
	}
	for (size_t i = 0; i < map->count; i++)
		if (strcmp(map->keys[i], key) == 0)
			return (long)i;
	return -1;
}

struct value *value_get(const struct value *map, const char *key)
{
	long i = value_index(map, key);
	return i < 0 ? NULL : map->items[i];
}

bool value_truthy(const struct value *v)
{
	if (!v)
		return false;
	switch (v->kind) {
	case VALUE_NULL: return false;
	case VALUE_BOOL: return v->boolean;
	case VALUE_LIST: return v->count > 0;
	case VALUE_STRING: return v->len > 0;
	default: return true;
	}
}

const double number_pow10[23] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};
/* number_read_exact() and, when short is not NULL, whether the text
 * is number_put()'s: as number_written_shortest() checks it, with the
 * double it reads as known to be the one read here. */
static inline bool read_exact(const char *s, size_t n, double *out, bool *short_, int *dec)
{
	size_t i = n && s[0] == '-';
	bool neg = i;
	uint64_t mant = 0;
	size_t start = i;
	while (i < n && (unsigned)(s[i] - '0') < 10)
		mant = mant * 10 + (uint64_t)(s[i++] - '0');
	size_t int_digits = i - start, frac = 0;
	bool point = false;
	if (i < n && s[i] == '.') {
		point = true;
		size_t f0 = ++i;
		while (i < n && (unsigned)(s[i] - '0') < 10)
			mant = mant * 10 + (uint64_t)(s[i++] - '0');
		frac = i - f0;
	}
	if (i != n || int_digits + frac == 0 || int_digits + frac > 19 ||
	    mant > ((uint64_t)1 << 53) || frac > 22)
		return false;
	/* Clinger's fast path: an integer mantissa below 2^53 and a power
	 * of ten that is itself exact give a correctly rounded quotient. */
	double v = frac ? (double)mant / number_pow10[frac] : (double)mant;
	*out = neg ? -v : v;
	if (dec) {
		/* number_fixed_decimals()'s rules, of what was read: a whole
		 * part without a leading zero (but "0" and "0.5"), a digit
		 * after a point, the digits below 2^50 */
		bool plain = int_digits > 0 && (s[start] != '0' || int_digits == 1) &&
			     (!point || frac > 0) && mant < ((uint64_t)1 << 50);
		*dec = plain ? (int)frac : -1;
	}
	if (short_) {
		/* number_put()'s digits: a whole part without a leading zero
		 * (but the one of "0.5"), no point without a digit after it
		 * and no zero ending the decimals, at most 15 significant
		 * digits (mant less its leading zeros, the decimals' ones
		 * after "0."), and |v| from 10^-6 on, which it writes
		 * plainly (below 10^21, as 15 digits are). */
		bool whole_ok = int_digits > 0 && (s[start] != '0' || (int_digits == 1 && point));
		*short_ = whole_ok && mant != 0 && (!point || (frac && s[n - 1] != '0')) &&
			  mant < 1000000000000000u && v >= 1e-6;
	}
	return true;
}

bool number_read_exact(const char *s, size_t n, double *out)
{
	return read_exact(s, n, out, NULL, NULL);
}

bool number_read_exact_short(const char *s, size_t n, double *out, bool *shortest)
{
	*shortest = false;
	return read_exact(s, n, out, shortest, NULL);
}

bool number_read_exact_fixed(const char *s, size_t n, double *out, bool *shortest, int *dec)
{
	*shortest = false;
	*dec = -1;
	return read_exact(s, n, out, shortest, dec);
}

int number_fixed_decimals(const char *s, size_t n)
{
	const char *p = s + (n && s[0] == '-'), *end = s + n, *point = NULL;
	if (p == end || (p[0] == '0' && p + 1 < end && p[1] != '.'))
		return -1;
	for (const char *q = p; q < end; q++) {
		if ((unsigned)(*q - '0') < 10)
			continue;
		if (*q != '.' || point)
			return -1;
		point = q;
	}
	if (point == p || point == end - 1 || (point && end - point - 1 > 22))
		return -1;
	if (end - p - (point != NULL) > 15) {
		/* more digits than 10^15 < 2^50 allows at once: counted */
		uint64_t m = 0;
		for (const char *q = p; q < end; q++) {
			if (q == point)
				continue;
			m = m * 10 + (unsigned)(*q - '0');
			if (m >= (uint64_t)1 << 50)
				return -1;
		}
	}
	return point ? (int)(end - point - 1) : 0;
}

size_t number_put_fixed(double v, unsigned dec, char out[NUMBER_FIXED_MAX])
{
	double a = dec <= 22 ? fabs(v) * number_pow10[dec] : NAN;
	if (!(a < 0x1p53)) { /* (not a stored cell's: bounded all the same) */
		int k = snprintf(out, NUMBER_FIXED_MAX, "%.17g", v);
		return k < 0 ? 0 : k >= NUMBER_FIXED_MAX ? NUMBER_FIXED_MAX - 1 : (size_t)k;
	}
	uint64_t m = (uint64_t)llround(a);
	char digits[24];
	size_t nd = 0;
	do {
		digits[nd++] = (char)('0' + m % 10);
		m /= 10;
	} while (m);
	while (nd < dec + 1)
		digits[nd++] = '0';
	size_t len = 0;
	if (signbit(v))
		out[len++] = '-';
	for (size_t k = nd; k-- > 0;) {
		out[len++] = digits[k];
		if (k == dec && dec)
			out[len++] = '.';
	}
	return len;
}

/* The fast way to number_put()'s digits, for the numbers logs hold
 * (millions of them in `logdown parse --json`): x > 0 rounded to 15
 * significant digits by arithmetic, trailing zeros dropped, and kept
 * only when it reads back as x, checked exactly (Clinger's fast path:
 * an integer below 2^53 times or over an exact power of ten is one
 * correctly rounded operation).  Two decimals of at most 15 significant
 * digits never read as the same normal double (DBL_DIG), so a 15-digit
 * decimal that reads back is the shortest one, and the one the printf
 * loop finds.  False (use that loop) when x needs 16 or 17 digits, is
 * out of the fast path's range, or the rounding here missed by one. */
static bool short_digits(double x, char *digits, int *k, int *point)
{
	if (!(x >= 1e-7 && x < 1e22))
		return false;
	int e = (int)floor(log10(x)); /* x is about d.ddd * 10^e */
	int s = 14 - e;               /* scale to 15 integer digits */
	if (s < -22 || s > 22)
		return false;
	double m = s >= 0 ? x * number_pow10[s] : x / number_pow10[-s];
	m = nearbyint(m);
	if (m < 1e14 || m >= 1e15)
		return false; /* log10 was off by one near a power of ten */
	uint64_t u = (uint64_t)m;
	int scale = s; /* the value is u / 10^scale */
	while (u % 10 == 0) {
		u /= 10;
		scale--;
	}
	if (scale < -22 || scale > 22)
		return false;
	double back = scale >= 0 ? (double)u / number_pow10[scale] : (double)u * number_pow10[-scale];
	if (back != x)
		return false;
	char tmp[20];
	int len = 0;
	for (; u; u /= 10)
		tmp[len++] = (char)('0' + u % 10);
	for (int i = 0; i < len; i++)
		digits[i] = tmp[len - 1 - i];
	*k = len;
	*point = len - scale;
	return true;
}

void number_put(struct buf *b, double n)
{
	if (isnan(n)) {
		buf_puts(b, "NaN");
		return;
	}
	if (isinf(n)) {
		buf_puts(b, n < 0 ? "-Infinity" : "Infinity");
		return;
	}
	/* -0 too: a sign on nothing only puzzles a reader, as JavaScript
	 * decided when it made (-0).toString() "0". */
	if (n == 0) {
		buf_puts(b, "0");
		return;
	}
	char digits[20];
	int k, point;
	if (n < 0)
		buf_putc(b, '-');
	if (!short_digits(fabs(n), digits, &k, &point)) {
		/* The fewest significant digits that read back as n; 17
		 * always do. */
		char tmp[40];
		for (int prec = 0; prec <= 16; prec++) {
			snprintf(tmp, sizeof tmp, "%.*e", prec, fabs(n));
			if (strtod(tmp, NULL) == fabs(n))
				break;
		}
		/* tmp is "d.ddde+x": take the digits and the exponent apart. */
		const char *p = tmp;
		k = 0;
		for (; *p != 'e'; p++)
			if (*p != '.')
				digits[k++] = *p;
		while (k > 1 && digits[k - 1] == '0')
			k--;
		point = atoi(p + 1) + 1;
	}
	/* The decimal point goes after `point` digits.  Like JavaScript's
	 * Number::toString, write plain decimals from 0.000001 up to 1e21
	 * (100, not %g's 1e+02) and an exponent beyond. */
	if (k <= point && point <= 21) {
		buf_put(b, digits, (size_t)k);
		for (int i = k; i < point; i++)
			buf_putc(b, '0');
	} else if (0 < point && point <= 21) {
		buf_put(b, digits, (size_t)point);
		buf_putc(b, '.');
		buf_put(b, digits + point, (size_t)(k - point));
	} else if (-6 < point && point <= 0) {
		buf_puts(b, "0.");
		for (int i = point; i < 0; i++)
			buf_putc(b, '0');
		buf_put(b, digits, (size_t)k);
	} else {
		buf_putc(b, digits[0]);
		if (k > 1) {
			buf_putc(b, '.');
			buf_put(b, digits + 1, (size_t)(k - 1));
		}
		buf_printf(b, "e%c%d", point - 1 < 0 ? '-' : '+', abs(point - 1));
	}
}

size_t number_written_shortest(double n, const char *text, size_t len)
{
	/* One pass over [-]digits[.digits]: no leading zero but the one of
	 * "0.5"; trailing zeros after the point (and then the point) left
	 * off; at most 15 significant digits (two decimals of at most 15
	 * digits never share a double, so no shorter one reads back as n);
	 * and the double those digits read as (one correctly rounded
	 * division, as number_read_exact()) is n.  number_put() writes 0
	 * and numbers below 10^-6 its own way. */
	if (!text || len == 0 || n == 0 || !(fabs(n) >= 1e-6))
		return 0;
	size_t i = text[0] == '-', sig = 0;
	if (i >= len)
		return 0;
	uint64_t mant = 0;
	unsigned d;
	if (text[i] == '0') {
		if (++i >= len || text[i] != '.')
			return 0;
	} else {
		if ((unsigned)(text[i] - '0') >= 10)
			return 0; /* ".5", "-x" */
		for (; i < len && (d = (unsigned)(text[i] - '0')) < 10; i++) {
			mant = mant * 10 + d;
			if (++sig > 15)
				return 0;
		}
	}
	/* What is kept: the digits up to the last one that is not a zero
	 * after the point. */
	size_t end = i, frac = 0;
	uint64_t kept = mant;
	if (i < len) {
		if (text[i] != '.')
			return 0;
		size_t f0 = ++i;
		for (; i < len && (d = (unsigned)(text[i] - '0')) < 10; i++) {
			if (i - f0 >= 22)
				return 0;
			mant = mant * 10 + d;
			sig += mant != 0;
			if (d) {
				if (sig > 15)
					return 0;
				kept = mant;
				frac = i - f0 + 1;
				end = i + 1;
			}
		}
		if (i != len)
			return 0;
	}
	double v = frac ? (double)kept / number_pow10[frac] : (double)kept;
	return (text[0] == '-' ? -v : v) == n ? end : 0;
}

void number_put_written(struct buf *b, double n, const char *text, size_t len)
{
	size_t k = number_written_shortest(n, text, len);
	if (k)
		buf_put(b, text, k);
	else
		number_put(b, n);
}

void number_put_short(struct buf *b, double n)
{
	char tmp[40];
	snprintf(tmp, sizeof tmp, "%.15g", n);
	number_put(b, isfinite(n) ? strtod(tmp, NULL) : n);
}

void number_put_decimals(struct buf *b, double n, int dec)
{
	/* No whole digits are rounded away, and no more than 15
	 * significant digits shown, which binary arithmetic keeps. */
	int mag = n == 0 ? 1 : (int)floor(log10(fabs(n))) + 1;
	if (dec > 15 - mag)
		dec = 15 - mag;
	if (dec < 0)
		dec = 0;
	if (!isfinite(n) || fabs(n) >= 1e21 || dec > 40) {
		number_put_short(b, n);
		return;
	}
	char tmp[80];
	snprintf(tmp, sizeof tmp, "%.*f", dec, n);
	number_put(b, strtod(tmp, NULL));
}

void value_put_text(struct buf *b, const struct value *v)
{
	if (!v)
		return;
	switch (v->kind) {
	case VALUE_STRING:
		buf_put(b, v->text, v->len);
		break;
	case VALUE_NUMBER:
		if (v->text)
			buf_put(b, v->text, v->len);
		else
			number_put(b, v->number);
		break;
	case VALUE_BOOL:
		buf_puts(b, v->boolean ? "true" : "false");
		break;
	default:
		break;
	}
}

const char *value_kind_name(enum value_kind kind)
{
	switch (kind) {
	case VALUE_NULL: return "null";
	case VALUE_BOOL: return "a boolean";
	case VALUE_NUMBER: return "a number";
	case VALUE_STRING: return "a string";
	case VALUE_LIST: return "a list";
	case VALUE_MAP: return "a map";
	}
	return "a value";
}
