/* test_show.c: how a value is shown (show.h): where "expr :spec"
 * splits, the text of a value, and the piece the page and the PDF draw
 * from it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "expr/expr.h"
#include "resolve/directive.h"
#include "resolve/format.h"
#include "resolve/show.h"
#include "base/util.h"

/* Splits s, expecting the expression to be its first expr_len bytes
 * and the spec (want_spec, NULL for none) the rest. */
static void expect_split(const char *s, size_t expr_len, const char *want_spec)
{
	size_t n = strlen(s), got_len, spec_off;
	show_split_spec(s, n, &got_len, &spec_off);
	assert_int_equal(got_len, expr_len);
	if (!want_spec) {
		assert_int_equal(spec_off, n);
		return;
	}
	assert_true(spec_off < n);
	assert_string_equal(s + spec_off, want_spec);
}

static void split_spec_takes_the_colon_after_a_blank(void **state)
{
	(void)state;
	expect_split("cs.final_loss :.2f", 14, ".2f");
	expect_split("a / b\t:.1%", 6, ".1%");
}

static void split_spec_needs_a_blank_before_the_colon(void **state)
{
	(void)state;
	expect_split("cs.final_loss:.2f", 17, NULL);
}

static void split_spec_takes_the_last_colon(void **state)
{
	(void)state;
	expect_split("a :b :.2f", 5, ".2f");
}

static void split_spec_leaves_a_colon_inside_quotes(void **state)
{
	(void)state;
	expect_split("\"a :b\"", 6, NULL);
	expect_split("'a :b' :d", 7, "d");
}

/* The expression language reads \" inside a string as a quote
 * (expr.h), so the string goes on past it: "x\" :y" is one string. */
static void split_spec_reads_an_escaped_quote_as_part_of_the_string(void **state)
{
	(void)state;
	expect_split("\"x\\\" :y\"", 8, NULL);
	expect_split("'x\\' :y' :.2f", 9, ".2f");
	/* an escaped backslash ends nothing: the quote after it closes */
	expect_split("\"x\\\\\" :.2f", 6, ".2f");
}

static void text_formats_only_numbers(void **state)
{
	(void)state;
	struct format f = {false, 2, 'f'};
	struct eval num = {.kind = EVAL_NUMBER, .num = 7.125};
	struct eval str = {.kind = EVAL_STRING, .text = "7.125", .len = 5};
	struct eval yes = {.kind = EVAL_BOOL, .boolean = true};
	struct buf b = BUF_INIT;
	show_text(&b, &num, &f);
	assert_string_equal(buf_data(&b), "7.12");
	buf_clear(&b);
	show_text(&b, &str, &f);
	assert_string_equal(buf_data(&b), "7.125");
	buf_clear(&b);
	show_text(&b, &yes, NULL);
	assert_string_equal(buf_data(&b), "true");
	buf_free(&b);
}

/* The text of a number as show_text() gives it with spec (NULL: none). */
static void expect_shown(const char *text, double num, const char *spec, const char *want)
{
	struct format f;
	if (spec)
		assert_true(format_parse(spec, strlen(spec), (struct loc){0}, &f, NULL));
	struct eval v = {.kind = EVAL_NUMBER, .num = num, .text = text,
			 .len = text ? strlen(text) : 0};
	struct buf b = BUF_INIT;
	show_text(&b, &v, spec ? &f : NULL);
	assert_string_equal(buf_data(&b), want);
	buf_free(&b);
}

static void a_formatted_number_keeps_its_unit(void **state)
{
	(void)state;
	expect_shown("12345 MiB", 12345, NULL, "12345 MiB");
	expect_shown("12345 MiB", 12345, ",.0f", "12,345 MiB");
	expect_shown("512.0ms", 512, ".0f", "512ms");
	expect_shown("3.2 GB/s", 3.2, ".2f", "3.20 GB/s");
	expect_shown("87 %", 87, "d", "87 %");
	expect_shown("98.07%", 98.07, ".1f", "98.1%");
	/* Read in a declared number style: the number is shown as the spec
	 * says, the unit as written. */
	expect_shown("12.345,67 msec", 12345.67, ",.1f", "12,345.7 msec");
}

static void a_number_without_its_own_unit_shows_none(void **state)
{
	(void)state;
	/* '%' makes its own sign. */
	expect_shown("98.07%", 98.07, ".1%", "9807.0%");
	/* A duration is seconds: "150 ms" is 0.15 s, "1h" 3600 s. */
	expect_shown("150 ms", 0.15, ".2f", "0.15");
	expect_shown("1h", 3600, "d", "3600");
	expect_shown("1-02:03:04", 93784, "d", "93784");
	/* A computed value has no text, so no unit. */
	expect_shown(NULL, 24690, ",d", "24,690");
}

static void piece_of_a_computed_value_names_its_inputs_below_the_project(void **state)
{
	(void)state;
	struct directive_ctx c = {.root = "../proj", .root_real = "/home/u/proj"};
	struct eval v = {.kind = EVAL_NUMBER,
			 .num = 2,
			 .inputs = (char *)"a = 1 (../proj/logs/a.log:3); b = 1 (/home/u/proj/b.log:4)"};
	struct directive_text t = {0};
	show_piece(&c, &t, &v, NULL);
	assert_int_equal(t.n, 1);
	assert_string_equal(t.p[0].text, "2");
	assert_null(t.p[0].href);
	assert_true(t.p[0].value);
	assert_false(t.p[0].missing);
	assert_string_equal(t.p[0].title, "a = 1 (logs/a.log:3); b = 1 (b.log:4)");
	directive_text_clear(&t);
}

static void piece_of_a_missing_value_is_n_a_saying_why(void **state)
{
	(void)state;
	struct directive_ctx c = {0};
	struct eval v = {.kind = EVAL_MISSING, .why = (char *)"cs.rate is not in logs/a.log"};
	struct directive_text t = {0};
	show_piece(&c, &t, &v, NULL);
	assert_int_equal(t.n, 1);
	assert_string_equal(t.p[0].text, "n/a");
	assert_true(t.p[0].missing);
	assert_string_equal(t.p[0].title, "cs.rate is not in logs/a.log");
	directive_text_clear(&t);
	v.why = NULL;
	show_piece(&c, &t, &v, NULL);
	assert_string_equal(t.p[0].title, "no value");
	directive_text_clear(&t);
}

static void piece_of_a_boolean_says_so(void **state)
{
	(void)state;
	struct directive_ctx c = {0};
	struct eval v = {.kind = EVAL_BOOL, .boolean = false};
	struct directive_text t = {0};
	show_piece(&c, &t, &v, NULL);
	assert_string_equal(t.p[0].text, "false");
	assert_true(t.p[0].boolean);
	assert_null(t.p[0].title);
	directive_text_clear(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(split_spec_takes_the_colon_after_a_blank),
		cmocka_unit_test(split_spec_needs_a_blank_before_the_colon),
		cmocka_unit_test(split_spec_takes_the_last_colon),
		cmocka_unit_test(split_spec_leaves_a_colon_inside_quotes),
		cmocka_unit_test(split_spec_reads_an_escaped_quote_as_part_of_the_string),
		cmocka_unit_test(text_formats_only_numbers),
		cmocka_unit_test(a_formatted_number_keeps_its_unit),
		cmocka_unit_test(a_number_without_its_own_unit_shows_none),
		cmocka_unit_test(piece_of_a_computed_value_names_its_inputs_below_the_project),
		cmocka_unit_test(piece_of_a_missing_value_is_n_a_saying_why),
		cmocka_unit_test(piece_of_a_boolean_says_so),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
