/* test_valuetype.c: the typing of values (valuetype.h): durations in
 * every form a log writes them, numbers with units, and numbers in a
 * declared number style, each with the exact value it gives. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "base/util.h"
#include "parse/valuetype.h"

/* text typed as type (in style) is a number: num, its text as given
 * but trimmed. */
static void expect_number(enum vtype type, const struct numstyle *style, const char *text,
			  double num)
{
	struct datum d;
	enum typed t = type_text(type, style, text, strlen(text), 7, &d);
	if (t != TYPED_OK || d.kind != DATUM_NUMBER)
		fail_msg("'%s' as a %s: not a number (typed %d, kind %d)", text, vtype_names[type],
			 (int)t, (int)d.kind);
	if (fabs(d.num - num) > 1e-9 * fmax(1, fabs(num)))
		fail_msg("'%s' as a %s: %.17g, wanted %.17g", text, vtype_names[type], d.num, num);
	assert_int_equal(d.line, 7);
}

static void expect_typed(enum vtype type, const struct numstyle *style, const char *text,
			 enum typed want, enum datum_kind kind)
{
	struct datum d;
	enum typed t = type_text(type, style, text, strlen(text), 1, &d);
	if (t != want || d.kind != kind)
		fail_msg("'%s' as a %s: typed %d kind %d, wanted typed %d kind %d", text,
			 vtype_names[type], (int)t, (int)d.kind, (int)want, (int)kind);
}

static void duration_reads_slurm_days(void **state)
{
	(void)state;
	expect_number(VT_DURATION, NULL, "1-02:03:04", 86400 + 2 * 3600 + 3 * 60 + 4);
	expect_number(VT_DURATION, NULL, "0-00:00:07", 7);
	expect_number(VT_DURATION, NULL, "12-23:59:59", 12 * 86400.0 + 86399);
	/* Slurm's shorter forms are d-h:m and d-h, not m:s. */
	expect_number(VT_DURATION, NULL, "2-03:04", 2 * 86400 + 3 * 3600 + 4 * 60);
	expect_number(VT_DURATION, NULL, "2-03", 2 * 86400 + 3 * 3600);
	expect_number(VT_DURATION, NULL, "1-02:03:04.5", 93784.5);
}

static void duration_reads_clocks(void **state)
{
	(void)state;
	expect_number(VT_DURATION, NULL, "01:02:03.250", 3723.25);
	expect_number(VT_DURATION, NULL, "00:00:00.001", 0.001);
	expect_number(VT_DURATION, NULL, "01:49", 109);
	expect_number(VT_DURATION, NULL, "59:59", 3599);
	expect_number(VT_DURATION, NULL, "1:02:03", 3723);
}

static void duration_reads_units(void **state)
{
	(void)state;
	expect_number(VT_DURATION, NULL, "1h2m3.5s", 3723.5);
	expect_number(VT_DURATION, NULL, "1h 2m 3.5s", 3723.5);
	expect_number(VT_DURATION, NULL, "123.4 ms", 0.1234);
	expect_number(VT_DURATION, NULL, "41.7 us", 41.7e-6);
	expect_number(VT_DURATION, NULL, "41.7 \xC2\xB5s", 41.7e-6);
	expect_number(VT_DURATION, NULL, "41.7\xC2\xB5s", 41.7e-6);
	expect_number(VT_DURATION, NULL, "850 ns", 850e-9);
	expect_number(VT_DURATION, NULL, "10.99s", 10.99);
	expect_number(VT_DURATION, NULL, "2 min", 120);
	expect_number(VT_DURATION, NULL, "1.5 h", 5400);
	expect_number(VT_DURATION, NULL, "42", 42);
	expect_number(VT_DURATION, NULL, "-3s", -3);
}

static void a_bad_duration_is_not_one(void **state)
{
	(void)state;
	expect_typed(VT_DURATION, NULL, "3 parsecs", TYPED_NOT_TYPE, DATUM_STRING);
	expect_typed(VT_DURATION, NULL, "1-25:00:00", TYPED_NOT_TYPE, DATUM_STRING);
	expect_typed(VT_DURATION, NULL, "1-02:3", TYPED_NOT_TYPE, DATUM_STRING);
	expect_typed(VT_DURATION, NULL, "soon", TYPED_NOT_TYPE, DATUM_STRING);
	expect_typed(VT_DURATION, NULL, "n/a", TYPED_OK, DATUM_MISSING);
}

static void number_reads_a_number_with_its_unit(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		double num;
		size_t unit_at; /* where number_unit_at() says the unit starts */
	} cases[] = {
		{"12345 MiB", 12345, 5}, {"87 %", 87, 2},      {"300.5 W", 300.5, 5},
		{"512.0ms", 512, 5},     {"3.2 GB/s", 3.2, 3}, {"1.5K", 1.5, 3},
		{"-4 dB", -4, 2},        {"12,345 MiB", 12345, 6}, {"25 \xC2\xB0" "C", 25, 2},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		expect_number(VT_NUMBER, NULL, cases[i].text, cases[i].num);
		struct datum d;
		type_text(VT_NUMBER, NULL, cases[i].text, strlen(cases[i].text), 1, &d);
		assert_int_equal(d.len, strlen(cases[i].text));
		assert_int_equal(number_unit_at(d.text, d.len, d.num), cases[i].unit_at);
	}
}

static void an_untyped_number_with_a_unit_stays_text(void **state)
{
	(void)state;
	/* Only a declared type reads units: untyped values cost no more. */
	expect_typed(VT_AUTO, NULL, "12345 MiB", TYPED_OK, DATUM_STRING);
	expect_typed(VT_AUTO, NULL, "98.07%", TYPED_OK, DATUM_NUMBER);
}

static void a_number_needs_a_number_before_its_unit(void **state)
{
	(void)state;
	expect_typed(VT_NUMBER, NULL, "MiB", TYPED_NOT_TYPE, DATUM_STRING);
	expect_typed(VT_NUMBER, NULL, "3 GPUs used", TYPED_NOT_TYPE, DATUM_STRING);
	expect_typed(VT_NUMBER, NULL, "12x34", TYPED_NOT_TYPE, DATUM_STRING);
	expect_typed(VT_NUMBER, NULL, "1.2.3 MiB", TYPED_NOT_TYPE, DATUM_STRING);
	expect_typed(VT_NUMBER, NULL, "5 /s", TYPED_NOT_TYPE, DATUM_STRING);
	expect_typed(VT_NUMBER, NULL, "--", TYPED_OK, DATUM_MISSING);
}

static void the_unit_is_shown_only_after_its_own_number(void **state)
{
	(void)state;
	/* Durations are seconds: "150 ms" is 0.15, not 150 of a unit. */
	assert_int_equal(number_unit_at("150 ms", 6, 0.15), 6);
	assert_int_equal(number_unit_at("10.99s", 6, 10.99), 5);
	assert_int_equal(number_unit_at("1h", 2, 3600), 2);
	assert_int_equal(number_unit_at("1:02:03", 7, 3723), 7);
	assert_int_equal(number_unit_at("7.125", 5, 7.125), 5);
	assert_int_equal(number_unit_at("true", 4, 1), 4);
	/* Read in another number style, the unit is still found. */
	assert_int_equal(number_unit_at("12.345 MiB", 10, 12345), 6);
	assert_int_equal(number_unit_at("0,87 GHz", 8, 0.87), 4);
}

static const struct numstyle german = {',', '.'};

static void a_declared_style_reads_decimal_commas(void **state)
{
	(void)state;
	expect_number(VT_AUTO, &german, "12.345", 12345);
	expect_number(VT_AUTO, &german, "0,87", 0.87);
	expect_number(VT_AUTO, &german, "3.456.789.012", 3456789012.0);
	expect_number(VT_AUTO, &german, "-1.234,5", -1234.5);
	expect_number(VT_AUTO, &german, "87", 87);
	expect_number(VT_NUMBER, &german, "12.345,67 msec", 12345.67);
	expect_number(VT_DURATION, &german, "1,250000000 seconds", 1.25);
	expect_number(VT_DURATION, &german, "1,5", 1.5);
	static const struct numstyle swiss = {'.', '\''};
	expect_number(VT_AUTO, &swiss, "1'234.5", 1234.5);
	static const struct numstyle spaced = {',', ' '};
	expect_number(VT_NUMBER, &spaced, "12 345,5 MiB", 12345.5);
	static const struct numstyle plain = {',', 0};
	expect_number(VT_AUTO, &plain, "12345,5", 12345.5);
}

static void a_number_not_in_the_declared_style_is_never_misread(void **state)
{
	(void)state;
	/* "0.87" is a number as usually written, not with a decimal comma. */
	expect_typed(VT_AUTO, &german, "0.87", TYPED_NOT_STYLE, DATUM_STRING);
	expect_typed(VT_AUTO, &german, "1,234.5", TYPED_NOT_STYLE, DATUM_STRING);
	expect_typed(VT_NUMBER, &german, "0.87 GHz", TYPED_NOT_STYLE, DATUM_STRING);
	expect_typed(VT_NUMBER, &german, "0.87", TYPED_NOT_STYLE, DATUM_STRING);
	expect_typed(VT_DURATION, &german, "1.5s", TYPED_NOT_STYLE, DATUM_STRING);
	static const struct numstyle plain = {',', 0};
	expect_typed(VT_AUTO, &plain, "12.345", TYPED_NOT_STYLE, DATUM_STRING);
	/* Text that is no number in any style stays a string, quietly. */
	expect_typed(VT_AUTO, &german, "cycles", TYPED_OK, DATUM_STRING);
	expect_typed(VT_NUMBER, &german, "cycles", TYPED_NOT_TYPE, DATUM_STRING);
}

static void the_usual_style_is_unchanged(void **state)
{
	(void)state;
	static const struct numstyle usual = {'.', ','};
	double a, b;
	static const char *const texts[] = {"1,024", "98.07%", "4e-05", "-0.5", "nan", "1,02"};
	for (size_t i = 0; i < ARRAY_LEN(texts); i++) {
		size_t n = strlen(texts[i]);
		bool x = number_parse(texts[i], n, &a), y = number_parse_style(&usual, texts[i], n, &b);
		assert_int_equal(x, y);
		if (x && !isnan(a))
			assert_true(a == b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(duration_reads_slurm_days),
		cmocka_unit_test(duration_reads_clocks),
		cmocka_unit_test(duration_reads_units),
		cmocka_unit_test(a_bad_duration_is_not_one),
		cmocka_unit_test(number_reads_a_number_with_its_unit),
		cmocka_unit_test(an_untyped_number_with_a_unit_stays_text),
		cmocka_unit_test(a_number_needs_a_number_before_its_unit),
		cmocka_unit_test(the_unit_is_shown_only_after_its_own_number),
		cmocka_unit_test(a_declared_style_reads_decimal_commas),
		cmocka_unit_test(a_number_not_in_the_declared_style_is_never_misread),
		cmocka_unit_test(the_usual_style_is_unchanged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
