/* value.h: a JSON-like tree (null, bool, number, string, list, map).
 *
 * It is what YAML documents load into (front matter, site.yaml, directive
 * bodies, parser definitions) and what templates render from.  Every
 * node remembers where it was written, and a number keeps the text it
 * was written with. */
#ifndef LOGDOWN_VALUE_H
#define LOGDOWN_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

enum value_kind {
	VALUE_NULL,
	VALUE_BOOL,
	VALUE_NUMBER,
	VALUE_STRING,
	VALUE_LIST,
	VALUE_MAP,
};

struct value {
	enum value_kind kind;
	bool boolean;
	/* A scalar written in YAML plain (no quotes, no | or >, no !!str),
	 * set by yamldoc: a result file's plain "98.07%" is typed as a log
	 * capture would be, a quoted one stays a string. */
	bool plain;
	double number;
	/* A string's contents; for a scalar loaded from text, the text as
	 * written (a number's "7.12500"); NULL for lists and maps. */
	char *text;
	size_t len;
	/* A list's items or a map's values, in document order. */
	struct value **items;
	/* A map's keys, parallel to items, and where each was written. */
	char **keys;
	struct loc *key_locs;
	size_t count;
	size_t cap;
	struct loc loc;
	/* Private to value.c: a map with more than a few keys gets a hash
	 * index over them, so that lookups stay fast in big maps.  Change a
	 * map's keys and count only through value_set(). */
	size_t *hash;
	size_t hash_cap;
};

/* Constructors.  Each returns a new node that the caller frees with
 * value_free(), or hands to a list or map, which then owns it. */
struct value *value_new(enum value_kind kind);
struct value *value_bool(bool b);
/* text may be NULL: the number is then shown in its shortest form. */
struct value *value_number(double n, const char *text);
struct value *value_string(const char *s);
struct value *value_stringn(const char *s, size_t n);
void value_free(struct value *v);
struct value *value_copy(const struct value *v);

/* Appends item to list, taking ownership. */
void value_push(struct value *list, struct value *item);
/* Sets key in map, taking ownership of v and freeing a value it replaces.
 * A new key goes last; a replaced one keeps its place. */
void value_set(struct value *map, const char *key, struct value *v);
/* Shorthand for value_set(map, key, value_string(s)). */
void value_set_str(struct value *map, const char *key, const char *s);
/* The value under key, or NULL.  Borrowed from map. */
struct value *value_get(const struct value *map, const char *key);
/* The index of key in map, or -1 (also when map is NULL or not a map).
 * value_get() and value_index() take constant time on average. */
long value_index(const struct value *map, const char *key);

/* Falsy: null, false, an empty list and the empty string (so that a
 * template's {{#author}}by {{author}}{{/author}} shows nothing for a
 * report without one).  Everything else is truthy. */
bool value_truthy(const struct value *v);

/* Appends the text of a scalar as a reader sees it: a string as is, a
 * number as written (or its shortest round-trip form), true/false, and
 * nothing for null.  Lists and maps append nothing. */
struct buf;
void value_put_text(struct buf *b, const struct value *v);
/* 10^0 .. 10^22: every one is a double, exactly. */
extern const double number_pow10[23];
/* Reads s[0..n) when it is [-]digits[.digits] (either side may be
 * empty, not both) of at most 19 digits, a mantissa up to 2^53 and at
 * most 22 decimals, as a training log prints numbers: the double
 * strtod() gives, by one correctly rounded division.  False for any
 * other text (commas, an exponent, a sign '+', more digits): the caller
 * goes the long way. */
bool number_read_exact(const char *s, size_t n, double *out);
/* The decimals of s[0..n) when it is a plain decimal that
 * number_put_fixed() writes back, byte for byte, from the double it
 * reads as (number_read_exact()): -?(0|[1-9][0-9]*)(\.[0-9]+)?, at
 * most 22 decimals, its digits (the point left out) below 2^50; -1 for
 * any other text ("007", ".5", "5.", "1e3", "+1").  A run store keeps
 * such a cell as its double alone (data/runstore.c). */
int number_fixed_decimals(const char *s, size_t n);
/* The most bytes number_put_fixed() writes. */
#define NUMBER_FIXED_MAX 32
/* v with dec decimals into out, not NUL-terminated; its length.  For v
 * read from a text t with number_fixed_decimals(t) == dec, exactly t:
 * v is within half an ulp of t's value m / 10^dec (m < 2^50), so
 * |v * 10^dec - m| stays below 1/4 with the product's own rounding, and
 * m comes back by rounding (tests/unit/test_value.c checks this over
 * the edges and millions of random texts).  Any other v gives some
 * bounded text. */
size_t number_put_fixed(double v, unsigned dec, char out[NUMBER_FIXED_MAX]);
/* number_read_exact(), and *shortest set to whether s[0..n) is, byte
 * for byte, what number_put() writes for the number read
 * (number_written_shortest() gives n): the same pass tells, so that a
 * number typed from a log's text need not be checked again when it is
 * written out. */
bool number_read_exact_short(const char *s, size_t n, double *out, bool *shortest);
/* number_read_exact_short(), and *dec set to number_fixed_decimals() of
 * s[0..n) when it reads (-1 when it does not): the same pass tells. */
bool number_read_exact_fixed(const char *s, size_t n, double *out, bool *shortest, int *dec);
/* The shortest text that reads back as n, written as JavaScript writes
 * numbers: plain from 0.000001 up to 1e21 ("100", "0.1"), with an
 * exponent beyond ("1e+21", "2.5e-7"); -0 as "0"; NaN, Infinity and
 * -Infinity by name. */
void number_put(struct buf *b, double n);
/* What number_put() writes for n, taken from text[0..len) when the
 * text holds those digits (a log's "2934.71", or "2934.70" less its
 * zero, not "1e3"): a check instead of a search for the shortest
 * digits.  text may be NULL. */
void number_put_written(struct buf *b, double n, const char *text, size_t len);
/* The length of text's beginning that is what number_put() writes for
 * n ("2934.7" of "2934.70"), or 0 when text does not hold it. */
size_t number_written_shortest(double n, const char *text, size_t len);
/* n for a reader: at most 15 significant digits, so that the noise of
 * binary arithmetic does not show (264.167, not 264.1670000000013). */
void number_put_short(struct buf *b, double n);
/* n rounded to dec decimals, then in its shortest form (1.68 for
 * 1.6800000000000002 and 2, 3 for 3.00 and 2): how a computed value is
 * shown to the precision of its inputs.  Whole digits are never rounded
 * away (dec below 0 counts as 0), nor more than 15 significant digits
 * shown. */
void number_put_decimals(struct buf *b, double n, int dec);

/* The kind as a word for diagnostics: "a string", "a list", ... */
const char *value_kind_name(enum value_kind kind);

#endif
