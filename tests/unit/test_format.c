/* test_format.c: format specs, parsed and applied as Python's format()
 * would apply them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/format.h"
#include "base/util.h"
#include "capture.h"

/* Parses spec, which must be good; no location needed. */
static struct format parse_ok(const char *spec)
{
	struct capture c;
	cap_open(&c);
	struct format f = {false, -2, '?'};
	struct loc at = {"t.md", 1, 1, 0};
	bool ok = format_parse(spec, strlen(spec), at, &f, c.d);
	if (!ok)
		fprintf(stderr, "unexpected error for '%s':\n%s", spec, cap_text(&c));
	assert_true(ok);
	assert_int_equal(diag_errors(c.d), 0);
	cap_close(&c);
	return f;
}

static char *formatted(double v, const char *spec)
{
	struct format f = parse_ok(spec);
	struct buf b = BUF_INIT;
	format_number(&b, v, &f);
	return buf_detach(&b);
}

/* Expected values come from CPython 3.11: format(v, spec); for d,
 * format(round(v), spec) (round() is half to even).  The last three
 * rows have no Python counterpart: int() of inf or nan fails there. */
static const struct {
	double v;
	const char *spec;
	const char *want;
} cases[] = {
	{7.125, ".2f", "7.12"},
	{2924.536, ",.0f", "2,925"},
	{0.9807, ".1%", "98.1%"},
	{1234567.891, ",.2f", "1,234,567.89"},
	{0.000123, ".3e", "1.230e-04"},
	{12345.678, ".4g", "1.235e+04"},
	{7.125, "f", "7.125000"},
	{7.125, "g", "7.125"},
	{7.125, "e", "7.125000e+00"},
	{7.125, "%", "712.500000%"},
	{2.675, ".2f", "2.67"},
	{1.005, ".2f", "1.00"},
	{0.125, ".2f", "0.12"},
	{0.375, ".2f", "0.38"},
	{2.5, ".0f", "2"},
	{3.5, ".0f", "4"},
	{-2.5, ".0f", "-2"},
	{0.5, ".0f", "0"},
	{1.5, ".0f", "2"},
	{999.9995, ".3f", "1000.000"},
	{9.9995, ".3f", "9.999"},
	{-1234567.891, ",.2f", "-1,234,567.89"},
	{1234.5, ",f", "1,234.500000"},
	{123.0, ",.2f", "123.00"},
	{1000.0, ",.0f", "1,000"},
	{999999.5, ",.0f", "1,000,000"},
	{1e+22, ",.0f", "10,000,000,000,000,000,000,000"},
	{-0.001, ".2f", "-0.00"},
	{1e-07, "f", "0.000000"},
	{12345.678, ",.3e", "1.235e+04"},
	{1e+100, "e", "1.000000e+100"},
	{-1e-100, ".2e", "-1.00e-100"},
	{5e-324, "e", "4.940656e-324"},
	{1.7976931348623157e+308, ".3e", "1.798e+308"},
	{0.0, ".0e", "0e+00"},
	{9.5, ".0e", "1e+01"},
	{10.5, ".0e", "1e+01"},
	{123456789.0, "g", "1.23457e+08"},
	{123456.0, "g", "123456"},
	{1234567.0, "g", "1.23457e+06"},
	{0.0001, "g", "0.0001"},
	{1e-05, "g", "1e-05"},
	{100000.0, ".0g", "1e+05"},
	{0.5, ".0g", "0.5"},
	{1e+16, "g", "1e+16"},
	{1234567.891, ",.10g", "1,234,567.891"},
	{123456789.0, ",g", "1.23457e+08"},
	{2.0, "g", "2"},
	{0.1, ".17g", "0.10000000000000001"},
	{100.0, ".3g", "100"},
	{1000.0, ".3g", "1e+03"},
	{-0.0001234, ".2g", "-0.00012"},
	{0.5, "%", "50.000000%"},
	{0.12345, ".0%", "12%"},
	{0.125, ".1%", "12.5%"},
	{12345.6, ",.1%", "1,234,560.0%"},
	{-0.9807, ".2%", "-98.07%"},
	{1.0, ".0%", "100%"},
	{1e+308, "%", "inf%"},
	{-0.0, ".2f", "-0.00"},
	{-0.0, "g", "-0"},
	{-0.0, "e", "-0.000000e+00"},
	{-0.0, "%", "-0.000000%"},
	{INFINITY, ".2f", "inf"},
	{-INFINITY, ",.1e", "-inf"},
	{INFINITY, "g", "inf"},
	{INFINITY, ".1%", "inf%"},
	{NAN, ".2f", "nan"},
	{NAN, "g", "nan"},
	{NAN, "%", "nan%"},
	{-NAN, "e", "nan"},
	{1234.0, "d", "1234"},
	{-1234.0, ",d", "-1,234"},
	{1234567.0, ",d", "1,234,567"},
	{0.5, "d", "0"},
	{1.5, "d", "2"},
	{2.5, "d", "2"},
	{-2.5, "d", "-2"},
	{-0.5, "d", "0"},
	{-0.4, "d", "0"},
	{2.4999, "d", "2"},
	{999.5, ",d", "1,000"},
	{1e+21, ",d", "1,000,000,000,000,000,000,000"},
	{123.0, "d", "123"},
	{-0.0, "d", "0"},
	{100.0, ",d", "100"},
	{1000.0, ",d", "1,000"},
	{INFINITY, ",d", "inf"},
	{-INFINITY, "d", "-inf"},
	{NAN, "d", "nan"},
};

static void numbers_format_as_python_does(void **state)
{
	(void)state;
	size_t bad = 0;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *got = formatted(cases[i].v, cases[i].spec);
		if (strcmp(got, cases[i].want) != 0) {
			fprintf(stderr, "format(%.17g, '%s'): want '%s', got '%s'\n", cases[i].v,
				cases[i].spec, cases[i].want, got);
			bad++;
		}
		free(got);
	}
	assert_int_equal(bad, 0);
}

static void parse_fills_grouping_precision_and_type(void **state)
{
	(void)state;
	struct format f = parse_ok(".2f");
	assert_false(f.grouping);
	assert_int_equal(f.precision, 2);
	assert_int_equal(f.type, 'f');
	f = parse_ok(",.0f");
	assert_true(f.grouping);
	assert_int_equal(f.precision, 0);
	f = parse_ok(",d");
	assert_true(f.grouping);
	assert_int_equal(f.precision, -1);
	assert_int_equal(f.type, 'd');
	f = parse_ok("%");
	assert_false(f.grouping);
	assert_int_equal(f.precision, -1);
	assert_int_equal(f.type, '%');
	f = parse_ok(".02e"); /* leading zeros, as Python allows */
	assert_int_equal(f.precision, 2);
	assert_int_equal(f.type, 'e');
	f = parse_ok(".100g");
	assert_int_equal(f.precision, 100);
	assert_int_equal(f.type, 'g');
}

static void blanks_around_a_spec_are_not_part_of_it(void **state)
{
	(void)state;
	struct format f = parse_ok("  ,.3f\t");
	assert_true(f.grouping);
	assert_int_equal(f.precision, 3);
	assert_int_equal(f.type, 'f');
}

static void default_precision_is_six_as_in_python(void **state)
{
	(void)state;
	char *f = formatted(3.14159265, "f");
	char *g = formatted(3.14159265, "g");
	char *e = formatted(3.14159265, "e");
	assert_string_equal(f, "3.141593");
	assert_string_equal(g, "3.14159");
	assert_string_equal(e, "3.141593e+00");
	free(f);
	free(g);
	free(e);
}

static void format_appends_to_what_the_buffer_holds(void **state)
{
	(void)state;
	struct format f = parse_ok(",d");
	struct buf b = BUF_INIT;
	buf_puts(&b, "n=");
	format_number(&b, 1234567, &f);
	assert_string_equal(buf_data(&b), "n=1,234,567");
	buf_free(&b);
}

static void long_results_are_not_cut(void **state)
{
	(void)state;
	/* 309 digits, 102 commas and 100 decimals: past any fixed scratch
	 * buffer.  Python: len(format(1e308, ",.100f")) == 512, and the
	 * digits are those of the exact binary value. */
	char *s = formatted(1e308, ",.100f");
	assert_int_equal(strlen(s), 512);
	assert_true(str_has_prefix(s, "100,000,000,000,000,001,097,906,362,944,045,541,740,492,309,"));
	assert_int_equal(s[411], '.');
	assert_int_equal(strspn(s + 412, "0"), 100);
	free(s);
}

/* The text diagnostics for spec written after the ':' of an inline
 * value on line 3 of a report, as `logdown build` prints them. */
static char *diagnose(const char *spec)
{
	static const char before[] = "The loss was {{ cs512.final_loss :";
	char *src = xasprintf("# Results\n\n%s%s }}.\n", before, spec);
	struct capture c;
	cap_open(&c);
	diag_add_source(c.d, "content/hw07.md", src, strlen(src));
	struct loc at = {"content/hw07.md", 3, (int)strlen(before) + 1, 0};
	struct format f = {false, -1, 'f'};
	assert_false(format_parse(spec, strlen(spec), at, &f, c.d));
	assert_int_equal(diag_errors(c.d), 1);
	/* A failed parse leaves f as it was. */
	assert_false(f.grouping);
	assert_int_equal(f.precision, -1);
	assert_int_equal(f.type, 'f');
	char *text = xstrdup(cap_text(&c));
	cap_close(&c);
	free(src);
	return text;
}

static void check_diag(const char *spec, const char *want)
{
	char *got = diagnose(spec);
	assert_string_equal(got, want);
	free(got);
}

static void spec_with_a_nul_byte_is_refused(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct format f;
	struct loc at = {"t.md", 0, 0, 0};
	assert_false(format_parse("d\0", 2, at, &f, c.d));
	assert_false(format_parse("\0", 1, at, &f, c.d));
	assert_int_equal(diag_errors(c.d), 2);
	cap_close(&c);
}

/* Found by tests/fuzz/fuzz_format: explaining a spec without a type
 * read its precision past the spec's end (strtol() wants a NUL).  The
 * spec here is exactly its bytes, with nothing after them. */
static void precision_is_read_within_the_spec(void **state)
{
	(void)state;
	char *spec = xmalloc(2);
	memcpy(spec, ".5", 2);
	struct capture c;
	cap_open(&c);
	struct format f;
	struct loc at = {"t.md", 1, 1, 0};
	assert_false(format_parse(spec, 2, at, &f, c.d));
	assert_non_null(strstr(cap_text(&c), "t.md:1:1: error: format '.5' has no type: end it with f, e, g or % (e.g. .5f)"));
	cap_close(&c);
	free(spec);
}

static void empty_spec_says_what_to_write(void **state)
{
	(void)state;
	check_diag("",
		   "content/hw07.md:3:35: error: empty format after ':': use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss : }}.\n"
		   "      |                                   ^\n");
}

static void unknown_type_lists_the_subset(void **state)
{
	(void)state;
	check_diag(".2x",
		   "content/hw07.md:3:35: error: unknown format '.2x': use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :.2x }}.\n"
		   "      |                                   ^~~\n");
}

static void missing_type_suggests_one(void **state)
{
	(void)state;
	check_diag(".2",
		   "content/hw07.md:3:35: error: format '.2' has no type: end it with f, e, g or % (e.g. .2f), or write [,]d for a whole number\n"
		   "    3 | The loss was {{ cs512.final_loss :.2 }}.\n"
		   "      |                                   ^~\n");
}

static void grouping_alone_suggests_a_type(void **state)
{
	(void)state;
	check_diag(",",
		   "content/hw07.md:3:35: error: format ',' has no type: end it with f, e, g or % (e.g. ,.2f), or write [,]d for a whole number\n"
		   "    3 | The loss was {{ cs512.final_loss :, }}.\n"
		   "      |                                   ^\n");
}

static void dot_without_digits_asks_for_them(void **state)
{
	(void)state;
	check_diag(".f",
		   "content/hw07.md:3:35: error: format '.f': '.' needs the number of digits after it, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :.f }}.\n"
		   "      |                                   ^~\n");
}

static void d_with_a_precision_suggests_f(void **state)
{
	(void)state;
	check_diag(".2d",
		   "content/hw07.md:3:35: error: format '.2d': d shows a whole number and takes no precision; for 2 decimals use .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :.2d }}.\n"
		   "      |                                   ^~~\n");
}

static void grouped_d_with_a_precision_suggests_grouped_f(void **state)
{
	(void)state;
	check_diag(",.2d",
		   "content/hw07.md:3:35: error: format ',.2d': d shows a whole number and takes no precision; for 2 decimals use ,.2f\n"
		   "    3 | The loss was {{ cs512.final_loss :,.2d }}.\n"
		   "      |                                   ^~~~\n");
}

static void alignment_and_width_are_refused(void **state)
{
	(void)state;
	check_diag(">10.2f",
		   "content/hw07.md:3:35: error: format '>10.2f': fill, alignment, sign, '#' and width are not supported: use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :>10.2f }}.\n"
		   "      |                                   ^~~~~~\n");
}

static void sign_is_refused(void **state)
{
	(void)state;
	check_diag("+.2f",
		   "content/hw07.md:3:35: error: format '+.2f': fill, alignment, sign, '#' and width are not supported: use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :+.2f }}.\n"
		   "      |                                   ^~~~\n");
}

static void width_is_refused(void **state)
{
	(void)state;
	check_diag("10.2f",
		   "content/hw07.md:3:35: error: format '10.2f': fill, alignment, sign, '#' and width are not supported: use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :10.2f }}.\n"
		   "      |                                   ^~~~~\n");
}

static void alternate_form_is_refused(void **state)
{
	(void)state;
	check_diag("#.2f",
		   "content/hw07.md:3:35: error: format '#.2f': fill, alignment, sign, '#' and width are not supported: use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :#.2f }}.\n"
		   "      |                                   ^~~~\n");
}

static void underscore_grouping_suggests_comma(void **state)
{
	(void)state;
	check_diag("_d",
		   "content/hw07.md:3:35: error: format '_d': thousands separators are written ',' (e.g. ,d or ,.2f)\n"
		   "    3 | The loss was {{ cs512.final_loss :_d }}.\n"
		   "      |                                   ^~\n");
}

static void double_comma_is_refused(void **state)
{
	(void)state;
	check_diag(",,d",
		   "content/hw07.md:3:35: error: format ',,d': one ',' is enough: use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :,,d }}.\n"
		   "      |                                   ^~~\n");
}

static void uppercase_type_suggests_lowercase(void **state)
{
	(void)state;
	check_diag(".2F",
		   "content/hw07.md:3:35: error: unknown format '.2F' (did you mean '.2f'?): use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :.2F }}.\n"
		   "      |                                   ^~~\n");
}

static void uppercase_e_suggests_lowercase(void **state)
{
	(void)state;
	check_diag("E",
		   "content/hw07.md:3:35: error: unknown format 'E' (did you mean 'e'?): use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :E }}.\n"
		   "      |                                   ^\n");
}

static void locale_type_n_suggests_grouping(void **state)
{
	(void)state;
	check_diag("n",
		   "content/hw07.md:3:35: error: unknown format 'n': there is no locale here; for thousands separators use ,d or ,.2f\n"
		   "    3 | The loss was {{ cs512.final_loss :n }}.\n"
		   "      |                                   ^\n");
}

static void text_after_the_type_is_refused(void **state)
{
	(void)state;
	check_diag(".2ff",
		   "content/hw07.md:3:35: error: format '.2ff': nothing may follow the type 'f': use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :.2ff }}.\n"
		   "      |                                   ^~~~\n");
}

static void double_percent_is_refused(void **state)
{
	(void)state;
	check_diag("%%",
		   "content/hw07.md:3:35: error: format '%%': nothing may follow the type '%': use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :%% }}.\n"
		   "      |                                   ^~\n");
}

static void precision_over_100_is_refused(void **state)
{
	(void)state;
	check_diag(".500f",
		   "content/hw07.md:3:35: error: format '.500f': precision 500 is too large (at most 100)\n"
		   "    3 | The loss was {{ cs512.final_loss :.500f }}.\n"
		   "      |                                   ^~~~~\n");
}

static void huge_precision_does_not_overflow(void **state)
{
	(void)state;
	check_diag(".99999999999999999999f",
		   "content/hw07.md:3:35: error: format '.99999999999999999999f': precision 99999999999999999999 is too large (at most 100)\n"
		   "    3 | The loss was {{ cs512.final_loss :.99999999999999999999f }}.\n"
		   "      |                                   ^~~~~~~~~~~~~~~~~~~~~~\n");
}

static void string_type_is_unknown(void **state)
{
	(void)state;
	check_diag("s",
		   "content/hw07.md:3:35: error: unknown format 's': use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :s }}.\n"
		   "      |                                   ^\n");
}

static void blanks_move_the_caret_to_the_spec(void **state)
{
	(void)state;
	check_diag("  .2x ",
		   "content/hw07.md:3:37: error: unknown format '.2x': use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :  .2x  }}.\n"
		   "      |                                     ^~~\n");
}

static void caret_counts_characters_not_bytes(void **state)
{
	(void)state;
	check_diag(".2→",
		   "content/hw07.md:3:35: error: unknown format '.2→': use [,][.N]f, e, g, % or [,]d, e.g. .2f\n"
		   "    3 | The loss was {{ cs512.final_loss :.2→ }}.\n"
		   "      |                                   ^~~\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_format_as_python_does),
		cmocka_unit_test(parse_fills_grouping_precision_and_type),
		cmocka_unit_test(blanks_around_a_spec_are_not_part_of_it),
		cmocka_unit_test(default_precision_is_six_as_in_python),
		cmocka_unit_test(format_appends_to_what_the_buffer_holds),
		cmocka_unit_test(long_results_are_not_cut),
		cmocka_unit_test(empty_spec_says_what_to_write),
		cmocka_unit_test(unknown_type_lists_the_subset),
		cmocka_unit_test(missing_type_suggests_one),
		cmocka_unit_test(grouping_alone_suggests_a_type),
		cmocka_unit_test(dot_without_digits_asks_for_them),
		cmocka_unit_test(d_with_a_precision_suggests_f),
		cmocka_unit_test(grouped_d_with_a_precision_suggests_grouped_f),
		cmocka_unit_test(alignment_and_width_are_refused),
		cmocka_unit_test(sign_is_refused),
		cmocka_unit_test(width_is_refused),
		cmocka_unit_test(alternate_form_is_refused),
		cmocka_unit_test(underscore_grouping_suggests_comma),
		cmocka_unit_test(double_comma_is_refused),
		cmocka_unit_test(uppercase_type_suggests_lowercase),
		cmocka_unit_test(uppercase_e_suggests_lowercase),
		cmocka_unit_test(locale_type_n_suggests_grouping),
		cmocka_unit_test(text_after_the_type_is_refused),
		cmocka_unit_test(double_percent_is_refused),
		cmocka_unit_test(precision_over_100_is_refused),
		cmocka_unit_test(huge_precision_does_not_overflow),
		cmocka_unit_test(string_type_is_unknown),
		cmocka_unit_test(blanks_move_the_caret_to_the_spec),
		cmocka_unit_test(caret_counts_characters_not_bytes),
		cmocka_unit_test(spec_with_a_nul_byte_is_refused),
		cmocka_unit_test(precision_is_read_within_the_spec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
