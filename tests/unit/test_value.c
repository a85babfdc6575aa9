/* test_value.c: the value tree: maps big and small, copies, truth, text. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/value.h"

/* The name of key i, in the tests' maps. */
static const char *key_name(char *tmp, size_t size, int i)
{
	snprintf(tmp, size, "k%d", i);
	return tmp;
}

/* A map of n keys "k0" ... whose values are the numbers 0 ... */
static struct value *numbered_map(int n)
{
	struct value *m = value_new(VALUE_MAP);
	char key[32];
	for (int i = 0; i < n; i++)
		value_set(m, key_name(key, sizeof key, i), value_number(i, NULL));
	return m;
}

/* Every key of numbered_map(n) is found where it was set, in order. */
static void assert_numbered_map(const struct value *m, int n)
{
	char key[32];
	assert_int_equal(m->count, n);
	for (int i = 0; i < n; i++) {
		key_name(key, sizeof key, i);
		assert_string_equal(m->keys[i], key);
		assert_int_equal(value_index(m, key), i);
		struct value *v = value_get(m, key);
		assert_ptr_equal(v, m->items[i]);
		if (v->number != i)
			fail_msg("'%s' holds %g, expected %d", key, v->number, i);
	}
}

static void hundred_thousand_keys_are_all_found(void **state)
{
	(void)state;
	enum { N = 100000 };
	struct value *m = numbered_map(N);
	assert_numbered_map(m, N);
	assert_int_equal(value_index(m, "k100000"), -1);
	assert_int_equal(value_index(m, "k-1"), -1);
	assert_int_equal(value_index(m, "k"), -1);
	assert_int_equal(value_index(m, ""), -1);
	assert_null(value_get(m, "k100000"));
	value_free(m);
}

static void every_key_is_found_as_a_map_grows_past_the_index_threshold(void **state)
{
	(void)state;
	/* Small maps are scanned and big ones hashed; the index is built and
	 * then doubled along the way: check each size on both sides. */
	struct value *m = value_new(VALUE_MAP);
	char key[32];
	for (int n = 1; n <= 300; n++) {
		value_set(m, key_name(key, sizeof key, n - 1), value_number(n - 1, NULL));
		assert_numbered_map(m, n);
		assert_int_equal(value_index(m, key_name(key, sizeof key, n)), -1);
	}
	value_free(m);
}

static void replacing_a_value_keeps_the_order_and_the_count(void **state)
{
	(void)state;
	const int sizes[] = {5, 100000};
	char key[32];
	for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
		int n = sizes[s];
		struct value *m = numbered_map(n);
		/* The old values are freed: the sanitizer would see a leak. */
		value_set_str(m, "k0", "first");
		value_set_str(m, key_name(key, sizeof key, n / 2), "middle");
		value_set_str(m, key_name(key, sizeof key, n - 1), "last");
		assert_int_equal(m->count, n);
		assert_string_equal(m->keys[0], "k0");
		assert_string_equal(m->items[0]->text, "first");
		assert_int_equal(value_index(m, key_name(key, sizeof key, n / 2)), n / 2);
		assert_string_equal(m->items[n / 2]->text, "middle");
		assert_string_equal(m->keys[n - 1], key_name(key, sizeof key, n - 1));
		assert_string_equal(value_get(m, key)->text, "last");
		assert_true(m->items[1]->number == 1);
		/* A new key still goes last. */
		value_set(m, "new", value_bool(true));
		assert_int_equal(m->count, n + 1);
		assert_string_equal(m->keys[n], "new");
		assert_int_equal(value_index(m, "new"), n);
		value_free(m);
	}
}

static void empty_and_long_keys_are_keys(void **state)
{
	(void)state;
	struct value *m = numbered_map(40);
	char long_key[300];
	memset(long_key, 'x', sizeof long_key - 1);
	long_key[sizeof long_key - 1] = '\0';
	value_set_str(m, "", "empty");
	value_set_str(m, long_key, "long");
	assert_int_equal(value_index(m, ""), 40);
	assert_int_equal(value_index(m, long_key), 41);
	long_key[10] = '\0';
	assert_int_equal(value_index(m, long_key), -1);
	value_free(m);
}

static void lookups_in_what_is_not_a_map_find_nothing(void **state)
{
	(void)state;
	struct value *list = value_new(VALUE_LIST);
	value_push(list, value_string("k0"));
	assert_int_equal(value_index(NULL, "k0"), -1);
	assert_null(value_get(NULL, "k0"));
	assert_int_equal(value_index(list, "k0"), -1);
	assert_null(value_get(list, "k0"));
	value_free(list);
}

static void copy_is_deep_and_keeps_order_text_and_places(void **state)
{
	(void)state;
	struct value *m = value_new(VALUE_MAP);
	m->loc = (struct loc){"f.yaml", 1, 1, 0};
	value_set(m, "z", value_number(7.125, "7.12500"));
	m->key_locs[0] = (struct loc){"f.yaml", 1, 1, 1};
	struct value *list = value_new(VALUE_LIST);
	value_push(list, value_stringn("a\0b", 3));
	value_push(list, value_new(VALUE_NULL));
	value_set(m, "a", list);
	m->key_locs[1] = (struct loc){"f.yaml", 2, 1, 1};
	value_set(m, "flag", value_bool(true));

	struct value *c = value_copy(m);
	assert_ptr_not_equal(c, m);
	assert_int_equal(c->kind, VALUE_MAP);
	assert_int_equal(c->count, 3);
	assert_string_equal(c->keys[0], "z");
	assert_string_equal(c->keys[1], "a");
	assert_string_equal(c->keys[2], "flag");
	assert_int_equal(c->loc.line, 1);
	assert_int_equal(c->key_locs[1].line, 2);
	assert_int_equal(c->key_locs[1].len, 1);
	assert_int_equal(c->key_locs[2].line, 0);
	struct value *z = value_get(c, "z");
	assert_ptr_not_equal(z, m->items[0]);
	assert_true(z->number == 7.125);
	assert_string_equal(z->text, "7.12500");
	struct value *cl = value_get(c, "a");
	assert_ptr_not_equal(cl, list);
	assert_int_equal(cl->kind, VALUE_LIST);
	assert_int_equal(cl->count, 2);
	assert_null(cl->keys);
	assert_int_equal(cl->items[0]->len, 3);
	assert_memory_equal(cl->items[0]->text, "a\0b", 4);
	assert_int_equal(cl->items[1]->kind, VALUE_NULL);
	assert_true(value_get(c, "flag")->boolean);

	/* Changing the original leaves the copy alone. */
	value_set_str(m, "z", "changed");
	value_set_str(m, "added", "x");
	assert_true(value_get(c, "z")->number == 7.125);
	assert_null(value_get(c, "added"));
	value_free(m);
	assert_int_equal(c->count, 3);
	value_free(c);
	assert_null(value_copy(NULL));
}

static void copy_of_a_big_map_has_its_own_index(void **state)
{
	(void)state;
	enum { N = 100000 };
	struct value *m = numbered_map(N);
	struct value *c = value_copy(m);
	value_free(m);
	assert_numbered_map(c, N);
	assert_null(value_get(c, "k100000"));
	value_set_str(c, "k5", "five");
	assert_int_equal(c->count, N);
	assert_string_equal(value_get(c, "k5")->text, "five");
	value_free(c);
}

static void truth_follows_the_template_rules(void **state)
{
	(void)state;
	struct value *v;
	assert_false(value_truthy(NULL));
	v = value_new(VALUE_NULL);
	assert_false(value_truthy(v));
	value_free(v);
	v = value_bool(false);
	assert_false(value_truthy(v));
	value_free(v);
	v = value_bool(true);
	assert_true(value_truthy(v));
	value_free(v);
	v = value_string("");
	assert_false(value_truthy(v));
	value_free(v);
	v = value_string("0");
	assert_true(value_truthy(v));
	value_free(v);
	v = value_string("false");
	assert_true(value_truthy(v));
	value_free(v);
	v = value_number(0, "0");
	assert_true(value_truthy(v));
	value_free(v);
	v = value_new(VALUE_LIST);
	assert_false(value_truthy(v));
	value_push(v, value_new(VALUE_NULL));
	assert_true(value_truthy(v));
	value_free(v);
	v = value_new(VALUE_MAP);
	assert_true(value_truthy(v));
	value_free(v);
}

/* What value_put_text() appends for v, which it frees. */
static void assert_text(struct value *v, const char *want, size_t want_len)
{
	struct buf b = BUF_INIT;
	buf_puts(&b, "<");
	value_put_text(&b, v);
	buf_puts(&b, ">");
	assert_int_equal(b.len, want_len + 2);
	assert_int_equal(buf_data(&b)[0], '<');
	assert_memory_equal(buf_data(&b) + 1, want, want_len);
	assert_int_equal(buf_data(&b)[want_len + 1], '>');
	buf_free(&b);
	value_free(v);
}

static void put_text_shows_a_scalar_as_a_reader_sees_it(void **state)
{
	(void)state;
	assert_text(value_number(7.125, "7.12500"), "7.12500", 7);
	assert_text(value_number(1.21, NULL), "1.21", 4);
	assert_text(value_number(1e5, "1e5"), "1e5", 3);
	assert_text(value_number(100000, NULL), "100000", 6);
	assert_text(value_string("caf\xc3\xa9"), "caf\xc3\xa9", 5);
	assert_text(value_stringn("a\0b", 3), "a\0b", 3);
	assert_text(value_bool(true), "true", 4);
	assert_text(value_bool(false), "false", 5);
	assert_text(value_new(VALUE_NULL), "", 0);
	assert_text(value_new(VALUE_LIST), "", 0);
	assert_text(numbered_map(2), "", 0);
	assert_text(NULL, "", 0);
}

/* number_put(n) appends exactly want. */
static void assert_number(double n, const char *want)
{
	struct buf b = BUF_INIT;
	number_put(&b, n);
	if (strcmp(buf_data(&b), want) != 0)
		fail_msg("%.17g put as '%s', expected '%s'", n, buf_data(&b), want);
	buf_free(&b);
}

static void number_put_gives_the_shortest_round_trip_form(void **state)
{
	(void)state;
	assert_number(0.1, "0.1");
	assert_number(1.21, "1.21");
	assert_number(0, "0");
	/* As in JavaScript: no sign on zero. */
	assert_number(-0.0, "0");
	assert_number(85, "85");
	/* Not %g's 1e+02 and 1.2e+03. */
	assert_number(100, "100");
	assert_number(1200, "1200");
	assert_number(-1200.5, "-1200.5");
	assert_number(123456789, "123456789");
	assert_number(1e20, "100000000000000000000");
	assert_number(1e21, "1e+21");
	assert_number(1.5e300, "1.5e+300");
	assert_number(0.000001, "0.000001");
	assert_number(0.0000012, "0.0000012");
	assert_number(1e-7, "1e-7");
	assert_number(-2.5e-7, "-2.5e-7");
	assert_number(0.1 + 0.2, "0.30000000000000004");
	assert_number(1.0 / 3, "0.3333333333333333");
	assert_number(5e-324, "5e-324");
	/* The 15-digit fast path's edges: 15 digits, a power of ten, the
	 * range ends, and 16 and 17 digits left to the printf loop. */
	assert_number(123456789012345, "123456789012345");
	assert_number(0.999999999999999, "0.999999999999999");
	assert_number(9.99999999999999e21, "9.99999999999999e+21");
	assert_number(1e22, "1e+22");
	assert_number(1.0000001e-7, "1.0000001e-7");
	assert_number(2.34567, "2.34567");
	assert_number(-7.125, "-7.125");
	assert_number(1234567890123456, "1234567890123456");
	assert_number(0.1234567890123456, "0.1234567890123456");
	/* Every number agrees with the loop the fast path stands in for:
	 * the fewest digits of %.*e that read back. */
	unsigned long long x = 88172645463325252ULL;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double n;
		if (i % 2) {
			memcpy(&n, &x, sizeof n);
		} else {
			char t[40];
			snprintf(t, sizeof t, "%.*e", (int)(x % 17), (double)(x >> 11) / 9e15);
			n = strtod(t, NULL) * pow(10, (double)(x % 50) - 25);
		}
		if (!isfinite(n) || n == 0)
			continue;
		char t[40];
		int prec = 0;
		for (; prec <= 16; prec++) {
			snprintf(t, sizeof t, "%.*e", prec, n);
			if (strtod(t, NULL) == n)
				break;
		}
		struct buf b = BUF_INIT;
		number_put(&b, n);
		if (strtod(buf_data(&b), NULL) != n)
			fail_msg("%.17g put as '%s', which reads back otherwise", n, buf_data(&b));
		size_t digits = 0;
		const char *p = buf_data(&b);
		for (bool lead = true; *p && *p != 'e'; p++) {
			if (*p >= '1' && *p <= '9')
				lead = false;
			if (*p >= '0' && *p <= '9' && !lead)
				digits++;
		}
		/* trailing zeros of an integer ("1200") are not digits of %e */
		char *e = strchr(t, 'e');
		size_t want = 0;
		for (char *q = t; q < e; q++)
			if (*q >= '0' && *q <= '9')
				want++;
		while (want > 1 && e[-1] == '0')
			want--, e--;
		if (!strchr(buf_data(&b), '.') && !strchr(buf_data(&b), 'e'))
			while (digits > want && buf_data(&b)[b.len - 1] == '0')
				digits--, b.len--;
		if (digits != want)
			fail_msg("%.17g put as '%s': %zu digits, the loop's %s has %zu", n, buf_data(&b),
				 digits, t, want);
		buf_free(&b);
	}
	assert_number(1.7976931348623157e308, "1.7976931348623157e+308");
	assert_number(NAN, "NaN");
	assert_number(INFINITY, "Infinity");
	assert_number(-INFINITY, "-Infinity");
}

static const char *written(struct buf *b, const char *text)
{
	b->len = 0;
	number_put_written(b, strtod(text, NULL), text, strlen(text));
	return buf_data(b);
}

static void number_put_written_keeps_the_text_only_when_it_is_the_shortest(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	/* the log's text is already number_put()'s digits */
	assert_string_equal(written(&b, "2934.71"), "2934.71");
	assert_string_equal(written(&b, "-0.5"), "-0.5");
	assert_string_equal(written(&b, "0.000001"), "0.000001");
	assert_string_equal(written(&b, "100"), "100");
	/* it is not: the shortest digits, as number_put() writes them */
	assert_string_equal(written(&b, "2934.70"), "2934.7");
	assert_string_equal(written(&b, "7."), "7");
	assert_string_equal(written(&b, ".5"), "0.5");
	assert_string_equal(written(&b, "-.5"), "-0.5");
	assert_string_equal(written(&b, "00.5"), "0.5");
	assert_string_equal(written(&b, "0."), "0");
	assert_string_equal(written(&b, "-"), "0");
	assert_string_equal(written(&b, "007"), "7");
	assert_string_equal(written(&b, "-0"), "0");
	assert_string_equal(written(&b, "0.0000001"), "1e-7");
	assert_string_equal(written(&b, "1e3"), "1000");
	assert_string_equal(written(&b, "0.30000000000000004"), "0.30000000000000004");
	assert_string_equal(written(&b, "1234567890123456"), "1234567890123456");
	b.len = 0;
	number_put_written(&b, 2.5, NULL, 0);
	assert_string_equal(buf_data(&b), "2.5");
	/* a number whose text says something else: 150 ms is 0.15 s */
	b.len = 0;
	number_put_written(&b, 0.15, "150", 3);
	assert_string_equal(buf_data(&b), "0.15");
	assert_int_equal(number_written_shortest(0.15, "150", 3), 0);
	assert_int_equal(number_written_shortest(150, "150", 3), 3);
	assert_int_equal(number_written_shortest(2934.7, "2934.70", 7), 6);
	assert_int_equal(number_written_shortest(7, "7.000", 5), 1);
	assert_int_equal(number_written_shortest(0.5, "0.5000", 6), 3);
	/* and never anything else than number_put(): random decimals of
	 * 1 to 19 digits with 0 to 12 of them after the point */
	struct buf want = BUF_INIT;
	char text[64];
	srand(7);
	for (int k = 0; k < 200000; k++) {
		int digits = 1 + rand() % 19, frac = rand() % 13, n = 0;
		if (rand() % 4 == 0)
			text[n++] = '-';
		for (int d = 0; d < digits; d++) {
			if (d == digits - frac && d > 0)
				text[n++] = '.';
			text[n++] = (char)('0' + rand() % 10);
		}
		text[n] = '\0';
		double v = strtod(text, NULL);
		want.len = 0;
		number_put(&want, v);
		const char *got = written(&b, text);
		if (strcmp(got, buf_data(&want)) != 0)
			fail_msg("%s: number_put_written gives %s, number_put %s", text, got,
				 buf_data(&want));
	}
	buf_free(&want);
	buf_free(&b);
}

/* A run store keeps a plain decimal as its double alone and prints its
 * text again when read (data/runstore.c): number_fixed_decimals() says
 * which texts come back byte for byte, and number_put_fixed() must give
 * each of them back from strtod()'s double: at the edges (2^50 - 1 at
 * every number of decimals, 22 decimals, -0) and over random texts. */
static void check_fixed(const char *text)
{
	size_t n = strlen(text);
	int dec = number_fixed_decimals(text, n);
	if (dec < 0)
		fail_msg("%s: not fixed", text);
	char out[NUMBER_FIXED_MAX];
	size_t len = number_put_fixed(strtod(text, NULL), (unsigned)dec, out);
	if (len != n || memcmp(out, text, n) != 0)
		fail_msg("%s with %d decimals came back as %.*s", text, dec, (int)len, out);
}

static void fixed_decimals_print_back_their_text(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int dec;
	} cases[] = {
		{"0", 0},        {"-0", 0},         {"7", 0},           {"-7", 0},
		{"2934.70", 2},  {"10.73438", 5},   {"0.10", 2},        {"-0.000", 3},
		{"100", 0},      {"1125899906842623", 0}, {"1125899906842624", -1},
		{"0.0000000000000000000001", 22},   {"0.00000000000000000000001", -1},
		{"007", -1},     {"00.5", -1},      {".5", -1},         {"5.", -1},
		{"1e3", -1},     {"+1", -1},        {"-", -1},          {"", -1},
		{"1.2.3", -1},   {"98%", -1},       {"- 1", -1},        {"1,000", -1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		int dec = number_fixed_decimals(cases[i].text, strlen(cases[i].text));
		if (dec != cases[i].dec)
			fail_msg("%s: %d decimals, want %d", cases[i].text, dec, cases[i].dec);
		/* and as number_read_exact_fixed() reads it: -1 too for a
		 * text it does not read ("1e3", "1,000", more than 19 digits:
		 * a cell a series keeps with its double, never its decimals) */
		double v;
		bool sh;
		int rdec;
		bool read = number_read_exact_fixed(cases[i].text, strlen(cases[i].text), &v, &sh,
						    &rdec);
		if (rdec != (read ? cases[i].dec : -1))
			fail_msg("%s: read with %d decimals, want %d", cases[i].text, rdec,
				 read ? cases[i].dec : -1);
		if (dec >= 0)
			check_fixed(cases[i].text);
	}
	/* the largest digits allowed, the point at every place */
	char text[64];
	for (int dec = 0; dec <= 15; dec++) {
		unsigned long long m = (1ULL << 50) - 1;
		for (int neg = 0; neg < 2; neg++) {
			char digits[32];
			int nd = snprintf(digits, sizeof digits, "%llu", m);
			int n = 0;
			if (neg)
				text[n++] = '-';
			if (dec >= nd) {
				text[n++] = '0';
				text[n++] = '.';
				for (int z = 0; z < dec - nd; z++)
					text[n++] = '0';
				memcpy(text + n, digits, (size_t)nd);
				n += nd;
			} else {
				memcpy(text + n, digits, (size_t)(nd - dec));
				n += nd - dec;
				if (dec) {
					text[n++] = '.';
					memcpy(text + n, digits + nd - dec, (size_t)dec);
					n += dec;
				}
			}
			text[n] = '\0';
			check_fixed(text);
		}
	}
	/* random texts: up to 16 digits, up to 22 decimals, zeros often */
	srand(5);
	int fixed = 0;
	for (int k = 0; k < 400000; k++) {
		int frac = rand() % 23, whole = 1 + rand() % 16, n = 0;
		if (rand() % 4 == 0)
			text[n++] = '-';
		if (rand() % 3 == 0) {
			text[n++] = '0';
		} else {
			for (int d = 0; d < whole; d++)
				text[n++] = (char)('0' + (d == 0 ? 1 + rand() % 9
								 : rand() % 3 == 0 ? 0 : rand() % 10));
		}
		if (frac) {
			text[n++] = '.';
			for (int d = 0; d < frac; d++)
				text[n++] = (char)('0' + (rand() % 3 == 0 ? 0 : rand() % 10));
		}
		text[n] = '\0';
		/* the reading pass tells the same decimals */
		double v;
		bool sh;
		int rdec, fdec = number_fixed_decimals(text, (size_t)n);
		if (number_read_exact_fixed(text, (size_t)n, &v, &sh, &rdec) && rdec != fdec)
			fail_msg("%s: read with %d decimals, has %d", text, rdec, fdec);
		if (fdec < 0)
			continue; /* past 2^50 */
		check_fixed(text);
		fixed++;
	}
	assert_true(fixed > 120000);
}

/* number_read_exact_short() tells, in the pass that reads a number, what
 * number_written_shortest() finds by checking the text again: the text
 * is number_put()'s digits exactly ("2934.70", "0100", "5." and "1e3"
 * are not; "0.5" and "-7" are), and the number read is strtod()'s. */
static void number_read_exact_short_knows_the_shortest_text(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		bool shortest;
	} cases[] = {
		{"2934.71", true},  {"2934.70", false}, {"100", true},     {"0100", false},
		{"0.5", true},      {"00.5", false},    {"5.", false},     {"-7", true},
		{"-0.25", true},    {"0", false},       {"0.0", false},    {"0.000001", true},
		{"0.0000001", false}, {"123456789012345", true}, {"1234567890123456", false},
		{"0.123456789012345", true}, {"0.1234567890123456", false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		double v;
		bool sh = !cases[i].shortest;
		assert_true(number_read_exact_short(cases[i].text, strlen(cases[i].text), &v, &sh));
		if (sh != cases[i].shortest)
			fail_msg("%s: shortest %d, want %d", cases[i].text, sh, cases[i].shortest);
	}
	double v;
	bool sh = true;
	assert_false(number_read_exact_short("1e3", 3, &v, &sh));
	assert_false(sh);
	/* random decimals, leading and trailing zeros included: shortest
	 * exactly when number_written_shortest() keeps the whole text */
	char text[64];
	srand(11);
	for (int k = 0; k < 200000; k++) {
		int digits = 1 + rand() % 19, frac = rand() % 13, n = 0;
		if (rand() % 4 == 0)
			text[n++] = '-';
		for (int d = 0; d < digits; d++) {
			if (d == digits - frac && d > 0)
				text[n++] = '.';
			int zero = rand() % 3 == 0; /* zeros at either end, often */
			text[n++] = (char)('0' + (zero ? 0 : rand() % 10));
		}
		text[n] = '\0';
		if (!number_read_exact_short(text, (size_t)n, &v, &sh))
			continue;
		assert_true(v == strtod(text, NULL));
		bool want = number_written_shortest(v, text, (size_t)n) == (size_t)n;
		if (sh != want)
			fail_msg("%s: shortest %d, number_written_shortest says %d", text, sh, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hundred_thousand_keys_are_all_found),
		cmocka_unit_test(every_key_is_found_as_a_map_grows_past_the_index_threshold),
		cmocka_unit_test(replacing_a_value_keeps_the_order_and_the_count),
		cmocka_unit_test(empty_and_long_keys_are_keys),
		cmocka_unit_test(lookups_in_what_is_not_a_map_find_nothing),
		cmocka_unit_test(copy_is_deep_and_keeps_order_text_and_places),
		cmocka_unit_test(copy_of_a_big_map_has_its_own_index),
		cmocka_unit_test(truth_follows_the_template_rules),
		cmocka_unit_test(put_text_shows_a_scalar_as_a_reader_sees_it),
		cmocka_unit_test(number_put_gives_the_shortest_round_trip_form),
		cmocka_unit_test(number_put_written_keeps_the_text_only_when_it_is_the_shortest),
		cmocka_unit_test(number_read_exact_short_knows_the_shortest_text),
		cmocka_unit_test(fixed_decimals_print_back_their_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
