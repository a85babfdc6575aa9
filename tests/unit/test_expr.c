/* test_expr.c: the expression language: parsing, evaluation over runs,
 * and every diagnostic with its quoted line and caret. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "expr/expr.h"
#include "data/run.h"
#include "data/value.h"
#include "base/util.h"
#include "capture.h"
#include "runfix.h"

#define REPORT "content/hw07.md"

/* Two runs as a Cerebras parser would leave them, diagnostics captured
 * in memory, and the expression under test quoted on line 3 of the
 * report, starting at column 8: "Say {{ EXPR }}.". */
struct fx {
	struct capture cap;
	struct run *cs512, *cs2048;
	const struct run *runs[2];
	struct scope sc;
	char *src;
	struct expr *e;
	struct eval v;
};

static struct fx *fx_new(void)
{
	struct fx *fx = xcalloc(1, sizeof *fx);
	cap_open(&fx->cap);

	struct run *r = fx->cs512 = run_new("cs512", "logs/bs512.log", "cerebras");
	runfix_set(r, "batch_size", "512", 1);
	runfix_set(r, "device", "CSX", 2);
	runfix_set(r, "summary.metis.mean", "0.25", 3);
	runfix_set(r, "note", "--", 4);
	runfix_set(r, "samples", "512000", 52);
	runfix_set(r, "total_time", "175.070497198", 52);
	runfix_set(r, "final_loss", "7.12500", 52);
	runfix_train(r);
	static const char *const res_cols[] = {"source", "accuracy", "ips"};
	struct series *s = run_add_series(r, "results", res_cols, 3);
	runfix_row3(s, 10, "cpu", "0.91", "100");
	runfix_row3(s, 11, "groq", "0.93", "5000");
	runfix_row3(s, 12, "gpu", "n/a", "1200");
	runfix_row3(s, 13, "groq", "0.95", "5100");

	r = fx->cs2048 = run_new("cs2048", "logs/bs2048.log", "cerebras");
	runfix_set(r, "batch_size", "2048", 1);
	runfix_set(r, "final_loss", "6.5", 60);

	fx->runs[0] = fx->cs512;
	fx->runs[1] = fx->cs2048;
	fx->sc.runs = fx->runs;
	fx->sc.nruns = 2;
	return fx;
}

static void fx_reset(struct fx *fx)
{
	eval_clear(&fx->v);
	expr_free(fx->e);
	fx->e = NULL;
}

static void fx_free(struct fx *fx)
{
	fx_reset(fx);
	cap_close(&fx->cap);
	free(fx->src);
	run_free(fx->cs512);
	run_free(fx->cs2048);
	free(fx);
}

/* Parses text as written on line 3 of the report at column 8. */
static bool fx_parse(struct fx *fx, const char *text)
{
	fx_reset(fx);
	char *src = xasprintf("# Results\n\nSay {{ %s }}.\n", text);
	diag_add_source(fx->cap.d, REPORT, src, strlen(src));
	free(fx->src);
	fx->src = src;
	struct loc at = {REPORT, 3, 8, 0};
	fx->e = expr_parse(text, strlen(text), at, fx->cap.d);
	return fx->e != NULL;
}

/* Parses and evaluates text in the fixture's scope. */
static bool fx_eval(struct fx *fx, const char *text)
{
	return fx_parse(fx, text) && expr_eval(fx->e, &fx->sc, &fx->v, fx->cap.d);
}

static const char *fx_diags(struct fx *fx)
{
	return cap_text(&fx->cap);
}

/* The error expected for the expression just evaluated: message at
 * column col of line 3 with a caret len wide. */
static void expect_error(struct fx *fx, int col, int len, const char *msg)
{
	struct buf want = BUF_INIT;
	buf_printf(&want, REPORT ":3:%d: error: %s\n    3 | %.*s\n      | ", col, msg,
		   (int)strcspn(fx->src + 11, "\n"), fx->src + 11);
	for (int i = 1; i < col; i++)
		buf_putc(&want, ' ');
	buf_putc(&want, '^');
	for (int i = 1; i < len; i++)
		buf_putc(&want, '~');
	buf_putc(&want, '\n');
	assert_string_equal(fx_diags(fx), buf_data(&want));
	buf_free(&want);
}

static void assert_num_near(double got, double want)
{
	double tol = 1e-12 * (fabs(want) > 1 ? fabs(want) : 1);
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.17g, want %.17g", got, want);
}

/* Evaluates text, expecting a number close to want, computed (no text,
 * no line). */
static void expect_computed(const char *text, double want)
{
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, text));
	assert_int_equal(fx->v.kind, EVAL_NUMBER);
	assert_num_near(fx->v.num, want);
	assert_null(fx->v.text);
	assert_int_equal(fx->v.line, 0);
	assert_string_equal(fx_diags(fx), "");
	fx_free(fx);
}

/* Evaluates text, expecting a value picked from logs/bs512.log: its
 * number, its text as written and its line. */
static void expect_picked(const char *text, double num, const char *as_written, long line)
{
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, text));
	assert_int_equal(fx->v.kind, EVAL_NUMBER);
	assert_num_near(fx->v.num, num);
	assert_non_null(fx->v.text);
	assert_int_equal(fx->v.len, strlen(as_written));
	assert_memory_equal(fx->v.text, as_written, fx->v.len);
	assert_string_equal(fx->v.file, "logs/bs512.log");
	assert_int_equal(fx->v.line, line);
	assert_null(fx->v.inputs);
	fx_free(fx);
}

static void expect_bool(const char *text, bool want)
{
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, text));
	assert_int_equal(fx->v.kind, EVAL_BOOL);
	assert_int_equal(fx->v.boolean, want);
	assert_string_equal(fx_diags(fx), "");
	fx_free(fx);
}

static void expect_missing(const char *text)
{
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, text));
	assert_int_equal(fx->v.kind, EVAL_MISSING);
	assert_string_equal(fx_diags(fx), "");
	fx_free(fx);
}

/* Evaluates text, expecting it to fail with msg at col/len of line 3. */
static void expect_eval_error(const char *text, int col, int len, const char *msg)
{
	struct fx *fx = fx_new();
	assert_false(fx_eval(fx, text));
	assert_int_equal(fx->v.kind, EVAL_MISSING);
	expect_error(fx, col, len, msg);
	assert_int_equal(diag_errors(fx->cap.d), 1);
	fx_free(fx);
}

/* Parsing alone fails with msg. */
static void expect_parse_error(const char *text, int col, int len, const char *msg)
{
	struct fx *fx = fx_new();
	assert_false(fx_parse(fx, text));
	expect_error(fx, col, len, msg);
	fx_free(fx);
}

/* ---- Numbers, strings and operators ---- */

static void numbers_read_ints_decimals_and_exponents(void **state)
{
	(void)state;
	expect_computed("512", 512);
	expect_computed("7.125", 7.125);
	expect_computed("4e-05", 4e-05);
	expect_computed("1.5E+3", 1500);
}

static void multiplication_binds_tighter_than_addition(void **state)
{
	(void)state;
	expect_computed("1 + 2 * 3", 7);
	expect_computed("(1 + 2) * 3", 9);
	expect_computed("1 + 6 / 3", 3);
}

static void subtraction_and_division_group_left_to_right(void **state)
{
	(void)state;
	expect_computed("10 - 4 - 3", 3);
	expect_computed("8 / 4 / 2", 1);
}

static void unary_minus_binds_tighter_than_multiplication(void **state)
{
	(void)state;
	expect_computed("-2 * -3", 6);
	expect_computed("2 - -3", 5);
	expect_computed("--4", 4);
}

static void comparisons_of_numbers(void **state)
{
	(void)state;
	expect_bool("1 < 2", true);
	expect_bool("2 <= 2", true);
	expect_bool("3 > 2 + 2", false);
	expect_bool("2 >= 3", false);
	expect_bool("2 * 2 == 4", true);
	expect_bool("1 != 1", false);
}

static void comparisons_of_strings_use_byte_order(void **state)
{
	(void)state;
	expect_bool("'abc' < 'abd'", true);
	expect_bool("'ab' < 'abc'", true);
	expect_bool("cs512.device == 'CSX'", true);
	expect_bool("cs512.device != \"CSX\"", false);
}

static void booleans_compare_for_equality(void **state)
{
	(void)state;
	expect_bool("(1 < 2) == (3 < 4)", true);
	expect_bool("(1 < 2) != (3 < 4)", false);
}

static void not_binds_looser_than_a_comparison_and_tighter_than_and(void **state)
{
	(void)state;
	/* (not (1 == 1)) and (1 == 1) */
	expect_bool("not 1 == 1 and 1 == 1", false);
	expect_bool("not (1 == 1 and 1 == 2)", true);
	expect_bool("not not 1 == 1", true);
}

static void and_binds_tighter_than_or(void **state)
{
	(void)state;
	/* true or (false and false); (true or false) and false would be false. */
	expect_bool("1 == 1 or 1 == 2 and 2 == 3", true);
}

static void and_or_short_circuit(void **state)
{
	(void)state;
	/* The right side would divide by zero. */
	expect_bool("1 == 2 and 1 / 0 > 1", false);
	expect_bool("1 == 1 or 1 / 0 > 1", true);
}

static void strings_keep_escapes_and_join_with_plus(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, "'it\\'s ' + \"a \\\"b\\\"\""));
	assert_int_equal(fx->v.kind, EVAL_STRING);
	assert_int_equal(fx->v.len, 10);
	assert_memory_equal(fx->v.text, "it's a \"b\"", 10);
	assert_int_equal(fx->v.line, 0);
	fx_free(fx);
}

static void string_result_outlives_the_expression(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, "'kept'"));
	expr_free(fx->e);
	fx->e = NULL;
	assert_int_equal(fx->v.len, 4);
	assert_memory_equal(fx->v.text, "kept", 4);
	fx_free(fx);
}

/* ---- Names ---- */

static void field_keeps_its_text_file_and_line(void **state)
{
	(void)state;
	expect_picked("cs512.final_loss", 7.125, "7.12500", 52);
	expect_picked("cs512.total_time", 175.070497198, "175.070497198", 52);
}

static void dotted_field_is_found_by_its_longest_prefix(void **state)
{
	(void)state;
	expect_picked("cs512.summary.metis.mean", 0.25, "0.25", 3);
}

static void implicit_fields_name_the_run(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, "cs2048.name"));
	assert_int_equal(fx->v.kind, EVAL_STRING);
	assert_int_equal(fx->v.len, 6);
	assert_memory_equal(fx->v.text, "cs2048", 6);
	assert_true(fx_eval(fx, "cs512.parser + ':' + cs512.file"));
	assert_int_equal(fx->v.len, strlen("cerebras:logs/bs512.log"));
	assert_memory_equal(fx->v.text, "cerebras:logs/bs512.log", fx->v.len);
	fx_free(fx);
}

static void column_is_a_list_of_the_series(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, "cs512.train.loss"));
	assert_int_equal(fx->v.kind, EVAL_LIST);
	assert_string_equal(series_name(fx->v.series), "train");
	assert_int_equal(fx->v.column, 1);
	assert_string_equal(fx->v.file, "logs/bs512.log");
	fx_free(fx);
}

static void row_lookup_picks_the_first_matching_row(void **state)
{
	(void)state;
	/* Two rows have source groq: the first, line 11, wins. */
	expect_picked("cs512.results[source=groq].ips", 5000, "5000", 11);
	expect_picked("cs512.results[source='groq'].accuracy", 0.93, "0.93", 11);
}

static void row_lookup_compares_numbers_as_numbers(void **state)
{
	(void)state;
	expect_picked("cs512.train[step=300].loss", 7.75, "7.75", 45);
	expect_picked("cs512.train[step=3e2].loss", 7.75, "7.75", 45);
	expect_picked("cs512.train[step==500].loss", 7.125, "7.12500", 47);
}

static void row_lookup_compares_strings_as_text(void **state)
{
	(void)state;
	/* A quoted number is compared as text with the cell as written. */
	expect_picked("cs512.train[step='100'].rate", 2983.97, "2983.97", 43);
}

/* Evaluates text and shows it as a value without a spec is shown: a
 * computed number to the decimals of the numbers it came from. */
static void expect_shown(const char *text, const char *want)
{
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, text));
	assert_int_equal(fx->v.kind, EVAL_NUMBER);
	assert_true(fx->v.dec_known);
	struct buf b = BUF_INIT;
	number_put_decimals(&b, fx->v.num, fx->v.dec);
	assert_string_equal(buf_data(&b), want);
	buf_free(&b);
	fx_free(fx);
}

static void sums_and_products_show_the_exact_decimals_of_their_inputs(void **state)
{
	(void)state;
	expect_shown("0.84 * 2", "1.68");
	expect_shown("0.1 + 0.2", "0.3");
	expect_shown("cs512.final_loss * 2", "14.25");
	expect_shown("cs512.total_time - 0.070497198", "175");
	expect_shown("-cs512.final_loss", "-7.125");
	expect_shown("abs(0.3 - 0.1)", "0.2");
	expect_shown("1.5e-3 * 2", "0.003");
}

static void quotients_show_the_digits_of_the_less_precise_input(void **state)
{
	(void)state;
	expect_shown("cs512.samples / cs512.total_time", "2924.54");
	expect_shown("cs512.total_time / 43.2", "4.05");
	/* never fewer than three significant digits, nor whole digits lost */
	expect_shown("2 / 3", "0.667");
	expect_shown("1000000 / 3", "333333");
}

static void aggregates_show_one_decimal_more_than_their_numbers(void **state)
{
	(void)state;
	expect_shown("sum(cs512.train.loss)", "32.76562");
	expect_shown("mean(cs512.train.loss)", "8.191405");
	expect_shown("mean(cs512.train.step)", "300");
	expect_shown("count(cs512.train.loss)", "4");
	expect_shown("round(cs512.total_time, 1)", "175.1");
}

/* Evaluates text, expecting a missing value whose reason is why. */
static void expect_missing_why(const char *text, const char *why)
{
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, text));
	assert_int_equal(fx->v.kind, EVAL_MISSING);
	assert_non_null(fx->v.why);
	assert_string_equal(fx->v.why, why);
	fx_free(fx);
}

static void missing_values_say_why(void **state)
{
	(void)state;
	expect_missing_why("cs512.note", "cs512.note: the log has '--' (logs/bs512.log:4)");
	expect_missing_why("cs512.note * 2", "cs512.note: the log has '--' (logs/bs512.log:4)");
	struct fx *fx = fx_new();
	static const char *const cols[] = {"x"};
	run_add_series(fx->cs2048, "empty", cols, 1);
	assert_true(fx_eval(fx, "mean(cs2048.empty.x) + 1"));
	assert_int_equal(fx->v.kind, EVAL_MISSING);
	assert_string_equal(fx->v.why, "mean of cs2048.empty.x: no rows");
	fx_free(fx);
}

static void missing_field_is_missing_with_its_text(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, "cs512.note"));
	assert_int_equal(fx->v.kind, EVAL_MISSING);
	assert_int_equal(fx->v.len, 2);
	assert_memory_equal(fx->v.text, "--", 2);
	assert_int_equal(fx->v.line, 4);
	fx_free(fx);
}

static void derive_scope_resolves_names_inside_the_run(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	struct scope sc = {.run = fx->cs512};
	fx->sc = sc;
	assert_true(fx_eval(fx, "samples / total_time"));
	assert_num_near(fx->v.num, 2924.536162257778);
	assert_string_equal(fx->v.inputs, "samples = 512000 (logs/bs512.log:52); "
					  "total_time = 175.070497198 (logs/bs512.log:52)");
	assert_true(fx_eval(fx, "last(train.loss)"));
	assert_int_equal(fx->v.line, 47);
	assert_memory_equal(fx->v.text, "7.12500", 7);
	fx_free(fx);
}

/* first and last take the first and last cell that is not missing, as
 * written, wherever it is; a column of missing cells has neither, and
 * says how many rows it looked at. */
static void first_and_last_skip_missing_cells_at_either_end(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	static const char *const cols[] = {"x", "y", "z"};
	struct series *s = run_add_series(fx->cs2048, "gaps", cols, 3);
	runfix_row3(s, 20, "n/a", "--", "a");
	runfix_row3(s, 21, "1.50", "n/a", "b");
	runfix_row3(s, 22, "2", "n/a", "c");
	runfix_row3(s, 23, "n/a", "--", "d");
	assert_true(fx_eval(fx, "first(cs2048.gaps.x)"));
	assert_int_equal(fx->v.kind, EVAL_NUMBER);
	assert_num_near(fx->v.num, 1.5);
	assert_int_equal(fx->v.len, 4);
	assert_memory_equal(fx->v.text, "1.50", 4);
	assert_int_equal(fx->v.line, 21);
	assert_true(fx_eval(fx, "last(cs2048.gaps.x)"));
	assert_num_near(fx->v.num, 2);
	assert_memory_equal(fx->v.text, "2", 1);
	assert_int_equal(fx->v.line, 22);
	assert_true(fx_eval(fx, "last(cs2048.gaps.z)"));
	assert_int_equal(fx->v.kind, EVAL_STRING);
	assert_memory_equal(fx->v.text, "d", 1);
	assert_int_equal(fx->v.line, 23);
	assert_true(fx_eval(fx, "first(cs2048.gaps.y)"));
	assert_int_equal(fx->v.kind, EVAL_MISSING);
	assert_string_equal(fx->v.why, "first of cs2048.gaps.y: no values in its 4 rows");
	assert_true(fx_eval(fx, "last(cs2048.gaps.y)"));
	assert_string_equal(fx->v.why, "last of cs2048.gaps.y: no values in its 4 rows");
	assert_string_equal(fx_diags(fx), "");
	fx_free(fx);
}

static void table_row_scope_prefers_the_row_run_then_other_runs(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	fx->sc.run = fx->cs2048;
	assert_true(fx_eval(fx, "batch_size"));
	assert_num_near(fx->v.num, 2048);
	assert_true(fx_eval(fx, "cs512.batch_size"));
	assert_num_near(fx->v.num, 512);
	assert_string_equal(fx_diags(fx), "");
	fx_free(fx);
}

static void series_row_scope_resolves_columns_first(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	fx->sc.run = fx->cs512;
	fx->sc.series = run_series(fx->cs512, "train");
	fx->sc.row = 2;
	assert_true(fx_eval(fx, "loss"));
	assert_memory_equal(fx->v.text, "7.75", 4);
	assert_int_equal(fx->v.line, 45);
	assert_true(fx_eval(fx, "final_loss"));
	assert_int_equal(fx->v.line, 52);
	fx_free(fx);
}

static void parenthesised_run_name_takes_a_field(void **state)
{
	(void)state;
	expect_picked("(cs512).final_loss", 7.125, "7.12500", 52);
}

/* ---- Functions ---- */

/* train.loss is 9.39062, 8.50000, 7.75, n/a, 7.12500 (lines 43-47). */

static void mean_skips_missing_values(void **state)
{
	(void)state;
	expect_computed("mean(cs512.train.loss)", 8.191405);
}

static void median_of_an_even_count_averages_the_middle_two(void **state)
{
	(void)state;
	expect_computed("median(cs512.train.loss)", 8.125);
}

static void median_of_an_odd_count_is_that_row(void **state)
{
	(void)state;
	expect_picked("median(cs512.train.step)", 300, "300", 45);
}

static void min_and_max_keep_the_chosen_row(void **state)
{
	(void)state;
	expect_picked("min(cs512.train.loss)", 7.125, "7.12500", 47);
	expect_picked("max(cs512.train.loss)", 9.39062, "9.39062", 43);
	/* Ties: ips 5000 and 5100 are distinct, accuracy n/a is skipped. */
	expect_picked("min(cs512.results.accuracy)", 0.91, "0.91", 10);
}

static void first_and_last_skip_missing_values(void **state)
{
	(void)state;
	expect_picked("first(cs512.train.rate)", 2983.97, "2983.97", 43);
	expect_picked("last(cs512.train.loss)", 7.125, "7.12500", 47);
}

static void first_and_last_take_strings_too(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, "last(cs512.results.source)"));
	assert_int_equal(fx->v.kind, EVAL_STRING);
	assert_memory_equal(fx->v.text, "groq", 4);
	assert_int_equal(fx->v.line, 13);
	fx_free(fx);
}

static void sum_and_count_skip_missing_values(void **state)
{
	(void)state;
	expect_computed("sum(cs512.train.loss)", 32.76562);
	expect_computed("count(cs512.train.loss)", 4);
	expect_computed("count(cs512.train.step)", 5);
	expect_computed("count(cs512.results.source)", 4);
}

static void std_is_the_sample_standard_deviation(void **state)
{
	(void)state;
	expect_computed("std(cs512.train.loss)", 0.9773101671253946);
}

static void percentile_interpolates_between_ranks(void **state)
{
	(void)state;
	expect_computed("percentile(cs512.train.loss, 25)", 7.59375);
	expect_picked("percentile(cs512.train.loss, 0)", 7.125, "7.12500", 47);
	expect_picked("percentile(cs512.train.loss, 100)", 9.39062, "9.39062", 43);
}

static void aggregations_of_no_values(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	static const char *const cols[] = {"x"};
	run_add_series(fx->cs2048, "empty", cols, 1);
	const char *missing[] = {"mean(cs2048.empty.x)", "min(cs2048.empty.x)",
				 "last(cs2048.empty.x)", "std(cs2048.empty.x)",
				 "percentile(cs2048.empty.x, 50)"};
	for (size_t i = 0; i < ARRAY_LEN(missing); i++) {
		assert_true(fx_eval(fx, missing[i]));
		assert_int_equal(fx->v.kind, EVAL_MISSING);
	}
	assert_true(fx_eval(fx, "count(cs2048.empty.x)"));
	assert_num_near(fx->v.num, 0);
	assert_true(fx_eval(fx, "sum(cs2048.empty.x)"));
	assert_num_near(fx->v.num, 0);
	fx_free(fx);
}

static void abs_and_round(void **state)
{
	(void)state;
	expect_computed("abs(-2.5)", 2.5);
	expect_computed("abs(2.5)", 2.5);
	expect_computed("round(7.12567, 2)", 7.13);
	expect_computed("round(1234.5, -2)", 1200);
	expect_computed("round(7.6)", 8);
	/* Ties go to even, as the :.0f format spec does. */
	expect_computed("round(2.5)", 2);
	expect_missing("round(cs512.note, 1)");
	expect_missing("abs(cs512.note)");
}

/* ---- Missing values ---- */

static void missing_propagates_through_arithmetic(void **state)
{
	(void)state;
	expect_missing("cs512.note + 1");
	expect_missing("2 * cs512.note");
	expect_missing("-cs512.note");
	expect_missing("cs512.note / 0");
}

static void comparisons_with_missing_are_false(void **state)
{
	(void)state;
	expect_bool("cs512.note > 1", false);
	expect_bool("cs512.note < 1", false);
	expect_bool("cs512.note == 1", false);
	expect_bool("cs512.note != 1", false);
}

/* ---- Inputs of computed values ---- */

static void computed_value_names_its_inputs(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, "cs512.samples / cs512.total_time"));
	assert_num_near(fx->v.num, 2924.536162257778);
	assert_null(fx->v.text);
	assert_null(fx->v.file);
	assert_int_equal(fx->v.line, 0);
	assert_string_equal(fx->v.inputs, "cs512.samples = 512000 (logs/bs512.log:52); "
					  "cs512.total_time = 175.070497198 (logs/bs512.log:52)");
	fx_free(fx);
}

static void inputs_are_named_once(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, "(cs512.samples + 1) * cs512.samples - 2"));
	assert_string_equal(fx->v.inputs, "cs512.samples = 512000 (logs/bs512.log:52)");
	fx_free(fx);
}

static void aggregation_names_its_column_and_lines(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, "mean(cs512.train.loss)"));
	assert_string_equal(fx->v.inputs, "cs512.train.loss = 5 values (logs/bs512.log:43-47)");
	fx_free(fx);
}

static void picked_result_used_in_arithmetic_is_named_as_written(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, "last(cs512.train.loss) * 2"));
	assert_num_near(fx->v.num, 14.25);
	assert_string_equal(fx->v.inputs, "last(cs512.train.loss) = 7.12500 (logs/bs512.log:47)");
	fx_free(fx);
}

static void literals_are_not_inputs(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_eval(fx, "1 + 2"));
	assert_null(fx->v.inputs);
	assert_true(fx_eval(fx, "cs512.batch_size > 100"));
	assert_string_equal(fx->v.inputs, "cs512.batch_size = 512 (logs/bs512.log:1)");
	fx_free(fx);
}

/* ---- References ---- */

static void reference_is_a_name_or_a_chain_of_names(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	const char *yes[] = {"final_loss", "cs512.final_loss", "cs512.train.loss"};
	const char *no[] = {"cs512.final_loss + 0", "last(cs512.train.loss)",
			    "cs512.results[source=groq].ips", "-cs512.final_loss", "1",
			    "(cs512).final_loss", "(final_loss)"};
	for (size_t i = 0; i < ARRAY_LEN(yes); i++) {
		assert_true(fx_parse(fx, yes[i]));
		assert_true(expr_is_reference(fx->e));
	}
	for (size_t i = 0; i < ARRAY_LEN(no); i++) {
		assert_true(fx_parse(fx, no[i]));
		assert_false(expr_is_reference(fx->e));
	}
	fx_free(fx);
}

static void series_reference_gives_the_series_and_its_run(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	const struct series *s = NULL;
	const struct run *r = NULL;
	assert_true(fx_parse(fx, "cs512.train"));
	assert_true(expr_eval_series(fx->e, &fx->sc, &s, &r, fx->cap.d));
	assert_ptr_equal(s, run_series(fx->cs512, "train"));
	assert_ptr_equal(r, fx->cs512);
	assert_true(fx_parse(fx, "cs512.final_loss"));
	assert_false(expr_eval_series(fx->e, &fx->sc, &s, &r, fx->cap.d));
	expect_error(fx, 8, 16, "cs512.final_loss is a number, not a series");
	fx_free(fx);
}

/* ---- Name errors ---- */

static void unknown_run_suggests_the_closest(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_false(fx_eval(fx, "cs2084.final_loss"));
	assert_string_equal(fx_diags(fx),
			    REPORT ":3:8: error: run 'cs2084' is not defined "
				   "(did you mean 'cs2048'?)\n"
				   "    3 | Say {{ cs2084.final_loss }}.\n"
				   "      |        ^~~~~~\n");
	fx_free(fx);
}

static void unknown_field_suggests_the_closest(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_false(fx_eval(fx, "cs512.final_los"));
	assert_string_equal(fx_diags(fx),
			    REPORT ":3:14: error: cs512 has no field or series 'final_los' "
				   "(did you mean 'final_loss'?)\n"
				   "    3 | Say {{ cs512.final_los }}.\n"
				   "      |              ^~~~~~~~~\n");
	fx_free(fx);
}

static void unknown_dotted_field_suggests_the_whole_name(void **state)
{
	(void)state;
	expect_eval_error("cs512.summary.metis.maen", 14, 18,
			  "cs512 has no field or series 'summary.metis.maen' "
			  "(did you mean 'summary.metis.mean'?)");
}

static void unknown_column_suggests_the_closest(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_false(fx_eval(fx, "cs512.train.los"));
	assert_string_equal(
		fx_diags(fx),
		REPORT ":3:20: error: series 'train' has no column 'los' (did you mean 'loss'?)\n"
		       "    3 | Say {{ cs512.train.los }}.\n"
		       "      |                    ^~~\n");
	fx_free(fx);
}

static void unknown_name_far_from_everything_has_no_suggestion(void **state)
{
	(void)state;
	expect_eval_error("zzzzzz", 8, 6, "run 'zzzzzz' is not defined");
}

static void unknown_name_in_a_derive_names_the_run(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	struct scope sc = {.run = fx->cs512};
	fx->sc = sc;
	assert_false(fx_eval(fx, "final_los * 2"));
	expect_error(fx, 8, 9,
		     "cs512 has no field or series 'final_los' (did you mean 'final_loss'?)");
	fx_free(fx);
}

static void unknown_name_in_a_table_row_names_both_places(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	fx->sc.run = fx->cs2048;
	assert_false(fx_eval(fx, "batch_sise"));
	expect_error(fx, 8, 10,
		     "'batch_sise' is not a field or series of cs2048, nor a run "
		     "(did you mean 'batch_size'?)");
	fx_free(fx);
}

static void unknown_column_in_a_series_row_scope(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	struct scope sc = {.series = run_series(fx->cs512, "train")};
	fx->sc = sc;
	assert_false(fx_eval(fx, "rat"));
	expect_error(fx, 8, 3, "series 'train' has no column 'rat' (did you mean 'rate'?)");
	fx_free(fx);
}

static void bare_function_name_says_to_call_it(void **state)
{
	(void)state;
	expect_eval_error("mean", 8, 4, "mean is a function: call it as mean(x)");
}

static void run_used_as_a_value_says_to_name_a_field(void **state)
{
	(void)state;
	expect_eval_error("cs512 + 1", 8, 5,
			  "cs512 is a run, not a value: name one of its fields, as in "
			  "cs512.batch_size");
}

static void series_used_as_a_value_lists_its_columns(void **state)
{
	(void)state;
	expect_eval_error("cs512.train", 8, 11,
			  "cs512.train is a series, not a value: name one of its columns "
			  "(step, loss, rate)");
}

static void row_used_as_a_value_lists_its_columns(void **state)
{
	(void)state;
	expect_eval_error("cs512.results[source=cpu]", 8, 25,
			  "cs512.results[source=cpu] is a row, not a value: name one of its "
			  "columns (source, accuracy, ips)");
}

static void field_of_a_number_is_an_error(void **state)
{
	(void)state;
	expect_eval_error("cs512.final_loss.x", 25, 1,
			  "cs512.final_loss is a number: it has no field 'x'");
}

/* ---- Row lookup errors ---- */

static void lookup_with_an_unknown_column_suggests_one(void **state)
{
	(void)state;
	expect_eval_error("cs512.results[sourse=groq].ips", 22, 6,
			  "series 'results' has no column 'sourse' (did you mean 'source'?)");
}

static void lookup_that_matches_no_row_suggests_a_value(void **state)
{
	(void)state;
	expect_eval_error("cs512.results[source=grok].ips", 29, 4,
			  "series 'results' has no row where source = grok (did you mean 'groq'?)");
	expect_eval_error("cs512.train[step=250].loss", 25, 3,
			  "series 'train' has no row where step = 250");
}

static void lookup_on_a_run_is_an_error(void **state)
{
	(void)state;
	expect_eval_error("cs512[step=1].loss", 13, 8,
			  "'[...]' picks a row of a series, but cs512 is a run");
}

static void lookup_on_a_column_is_an_error(void **state)
{
	(void)state;
	expect_eval_error("cs512.train.loss[step=1]", 24, 8,
			  "'[...]' picks a row of a series, but cs512.train.loss is a list");
}

/* ---- Lists where one value is needed ---- */

static void list_in_arithmetic_names_the_aggregations(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_false(fx_eval(fx, "cs512.train.loss + 1"));
	assert_string_equal(fx_diags(fx), REPORT
			    ":3:8: error: cs512.train.loss is a list of 5 values: choose one "
			    "with mean, median, min, max, sum, count, first, last, std or "
			    "percentile\n"
			    "    3 | Say {{ cs512.train.loss + 1 }}.\n"
			    "      |        ^~~~~~~~~~~~~~~~\n");
	fx_free(fx);
}

static void eval_one_rejects_a_list(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_parse(fx, "cs512.train.loss"));
	assert_false(expr_eval_one(fx->e, &fx->sc, &fx->v, fx->cap.d));
	expect_error(fx, 8, 16,
		     "cs512.train.loss is a list of 5 values: choose one with mean, median, min, "
		     "max, sum, count, first, last, std or percentile");
	assert_true(fx_parse(fx, "cs512.final_loss"));
	assert_true(expr_eval_one(fx->e, &fx->sc, &fx->v, fx->cap.d));
	assert_int_equal(fx->v.line, 52);
	fx_free(fx);
}

static void list_as_a_scalar_argument_is_an_error(void **state)
{
	(void)state;
	expect_eval_error("abs(cs512.train.loss)", 12, 16,
			  "cs512.train.loss is a list of 5 values: choose one with mean, median, "
			  "min, max, sum, count, first, last, std or percentile");
}

/* ---- Type errors ---- */

static void adding_a_string_and_a_number_is_an_error(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_false(fx_eval(fx, "cs512.device + 1"));
	assert_string_equal(fx_diags(fx), REPORT ":3:21: error: cannot add a string and a number\n"
						 "    3 | Say {{ cs512.device + 1 }}.\n"
						 "      |                     ^\n");
	fx_free(fx);
}

static void each_arithmetic_operator_names_its_types(void **state)
{
	(void)state;
	expect_eval_error("1 - 'a'", 10, 1, "cannot subtract a string from a number");
	expect_eval_error("'a' * 2", 12, 1, "cannot multiply a string by a number");
	expect_eval_error("2 / (1 < 2)", 10, 1, "cannot divide a number by a boolean");
	expect_eval_error("-'a'", 8, 1, "cannot negate a string");
}

static void comparing_a_string_and_a_number_is_an_error(void **state)
{
	(void)state;
	expect_eval_error("cs512.device >= 2", 21, 2, "cannot compare a string and a number");
	expect_eval_error("(1 < 2) < (2 < 3)", 16, 1,
			  "booleans have no order: '<' needs numbers or strings");
}

static void and_with_a_number_is_an_error(void **state)
{
	(void)state;
	expect_eval_error("cs512.batch_size and 1 == 1", 8, 16,
			  "'and' needs booleans, but cs512.batch_size is a number");
	expect_eval_error("1 == 2 or 'x'", 18, 3, "'or' needs booleans, but 'x' is a string");
	expect_eval_error("not cs512.batch_size", 12, 16,
			  "'not' needs a boolean, but cs512.batch_size is a number");
}

static void division_by_zero_is_an_error_at_the_divisor(void **state)
{
	(void)state;
	expect_eval_error("cs512.samples / (cs512.batch_size - 512)", 24, 24,
			  "division by zero: (cs512.batch_size - 512) is 0");
}

static void aggregation_of_a_single_value_is_an_error(void **state)
{
	(void)state;
	expect_eval_error("mean(cs512.final_loss)", 13, 16,
			  "mean needs a list (a series column such as train.loss), but "
			  "cs512.final_loss is a number");
}

static void aggregation_of_strings_names_the_first_one(void **state)
{
	(void)state;
	expect_eval_error("max(cs512.results.source)", 12, 20,
			  "max needs numbers, but cs512.results.source holds the string 'cpu' "
			  "(logs/bs512.log:10)");
}

static void percentile_outside_0_to_100_is_an_error(void **state)
{
	(void)state;
	expect_eval_error("percentile(cs512.train.loss, 150)", 37, 3,
			  "percentile needs p from 0 to 100, found 150");
	expect_eval_error("percentile(cs512.train.loss, 'x')", 37, 3,
			  "percentile needs a number p from 0 to 100, but 'x' is a string");
}

static void round_needs_whole_digits(void **state)
{
	(void)state;
	expect_eval_error("round(1.5, 0.5)", 19, 3,
			  "round needs a whole number of digits from -15 to 15, but 0.5 is not");
	expect_eval_error("round('a', 1)", 14, 3, "round needs a number, but 'a' is a string");
}

/* ---- Syntax errors ---- */

static void unknown_function_suggests_the_closest(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_false(fx_parse(fx, "maen(cs512.train.loss)"));
	assert_string_equal(fx_diags(fx),
			    REPORT ":3:8: error: unknown function 'maen' (did you mean 'mean'?)\n"
				   "    3 | Say {{ maen(cs512.train.loss) }}.\n"
				   "      |        ^~~~\n");
	fx_free(fx);
}

static void unknown_function_far_from_all_lists_them(void **state)
{
	(void)state;
	expect_parse_error("variance(x)", 8, 8,
			   "unknown function 'variance' (the functions: mean, median, min, max, "
			   "sum, count, first, last, std, percentile, abs, round)");
}

static void wrong_argument_count_is_an_error(void **state)
{
	(void)state;
	expect_parse_error("percentile(cs512.train.loss)", 8, 10,
			   "percentile(x, p) takes 2 arguments, found 1");
	expect_parse_error("mean(a, b)", 8, 4, "mean(x) takes 1 argument, found 2");
	expect_parse_error("round(1, 2, 3)", 8, 5, "round(x, n) takes 1 or 2 arguments, found 3");
	expect_parse_error("count()", 8, 5, "count(x) takes 1 argument, found 0");
}

static void missing_close_paren_of_a_call(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_false(fx_parse(fx, "mean(cs512.train.loss x"));
	assert_string_equal(
		fx_diags(fx),
		REPORT ":3:30: error: expected ')' after the arguments of mean, found 'x'\n"
		       "    3 | Say {{ mean(cs512.train.loss x }}.\n"
		       "      |                              ^\n");
	fx_free(fx);
}

static void missing_close_paren_points_back_at_the_open_one(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_false(fx_parse(fx, "(1 + 2"));
	assert_string_equal(fx_diags(fx),
			    REPORT ":3:14: error: expected ')' to match the '(', found the end of "
				   "the expression\n"
				   "    3 | Say {{ (1 + 2 }}.\n"
				   "      |              ^\n" REPORT ":3:8: note: the '(' is here\n"
				   "    3 | Say {{ (1 + 2 }}.\n"
				   "      |        ^\n");
	fx_free(fx);
}

static void missing_operand_is_an_error(void **state)
{
	(void)state;
	expect_parse_error("1 + * 2", 12, 1, "expected a value, found '*'");
	expect_parse_error("1 +", 11, 1, "expected a value, found the end of the expression");
	expect_parse_error("mean(1,)", 15, 1, "expected a value, found ')'");
	expect_parse_error("and", 8, 3, "expected a value, found 'and'");
}

static void trailing_input_is_an_error(void **state)
{
	(void)state;
	expect_parse_error("cs512 final_loss", 14, 10,
			   "unexpected 'final_loss' after the expression");
	expect_parse_error("1)", 9, 1, "unexpected ')' without a matching '('");
	expect_parse_error("a = 1", 10, 1, "unexpected '=' (write '==' to compare)");
}

static void comparisons_do_not_chain(void **state)
{
	(void)state;
	expect_parse_error("1 < 2 < 3", 14, 1,
			   "comparisons do not chain: join them with 'and' (a < b and b < c)");
}

static void bad_tokens_are_errors(void **state)
{
	(void)state;
	expect_parse_error("'abc", 8, 4, "unterminated string: no closing '");
	expect_parse_error("12ab + 1", 8, 4, "malformed number '12ab'");
	expect_parse_error("1e + 1", 8, 2, "malformed number '1e'");
	expect_parse_error("a $ b", 10, 1, "unexpected character '$'");
	expect_parse_error("a && b", 10, 2, "unexpected '&&' (write 'and')");
	expect_parse_error("a || b", 10, 2, "unexpected '||' (write 'or')");
	expect_parse_error("!a", 8, 1, "unexpected '!' (write 'not' to negate)");
}

static void empty_expression_is_an_error(void **state)
{
	(void)state;
	expect_parse_error("", 8, 1, "empty expression");
	expect_parse_error("  ", 8, 1, "empty expression");
}

static void bad_dot_and_lookup_syntax(void **state)
{
	(void)state;
	expect_parse_error("cs512.", 14, 1,
			   "expected a name after '.', found the end of the expression");
	expect_parse_error("cs512.3", 14, 1, "expected a name after '.', found '3'");
	expect_parse_error("r[source groq]", 17, 4, "expected '=' after '[source', found 'groq'");
	expect_parse_error("r[=groq]", 10, 1, "expected a column name after '[', found '='");
	expect_parse_error("r[source=+]", 17, 1,
			   "expected a number, a string or a word after '=', found '+'");
	expect_parse_error("r[source=groq", 21, 1,
			   "expected ']' to close the row lookup, found the end of the expression");
}

static void keywords_may_name_fields_after_a_dot(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	runfix_set(fx->cs512, "not", "3", 9);
	assert_true(fx_eval(fx, "cs512.not"));
	assert_num_near(fx->v.num, 3);
	fx_free(fx);
}

/* ---- Locations and limits ---- */

static void expression_over_two_lines_reports_the_right_line(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	const char *src = "columns:\n  Rate: mean(cs512.train.rate) +\n    'x'\n";
	diag_add_source(fx->cap.d, "content/t.md", src, strlen(src));
	const char *text = "mean(cs512.train.rate) +\n    'x'";
	struct loc at = {"content/t.md", 2, 9, 0};
	fx->e = expr_parse(text, strlen(text), at, fx->cap.d);
	assert_non_null(fx->e);
	assert_false(expr_eval(fx->e, &fx->sc, &fx->v, fx->cap.d));
	assert_string_equal(fx_diags(fx),
			    "content/t.md:2:32: error: cannot add a number and a string\n"
			    "    2 |   Rate: mean(cs512.train.rate) +\n"
			    "      |                                ^\n");
	fx_free(fx);
}

static void deep_nesting_is_an_error_not_a_crash(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	struct buf b = BUF_INIT;
	for (int i = 0; i < 100000; i++)
		buf_putc(&b, '(');
	buf_putc(&b, '1');
	assert_false(fx_parse(fx, buf_data(&b)));
	assert_non_null(
		strstr(fx_diags(fx), "expression nested too deeply (more than 200 levels; limit expr_depth: "
					 "raise it with limits: in site.yaml or LOGDOWN_LIMIT_EXPR_DEPTH)"));
	buf_clear(&b);
	for (int i = 0; i < 100000; i++)
		buf_puts(&b, "not ");
	assert_false(fx_parse(fx, buf_data(&b)));
	buf_clear(&b);
	for (int i = 0; i < 100000; i++)
		buf_putc(&b, '-');
	assert_false(fx_parse(fx, buf_data(&b)));
	assert_int_equal(diag_errors(fx->cap.d), 3);
	buf_free(&b);
	fx_free(fx);
}

/* Depth is nesting, not length: a sum of 100,000 terms, or 201, is one
 * level (evaluated in a loop), and so is a long chain of 'and'. */
static void long_chain_is_length_not_nesting(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	struct buf b = BUF_INIT;
	buf_putc(&b, '1');
	for (int i = 0; i < 200; i++)
		buf_puts(&b, " + 1");
	assert_true(fx_eval(fx, buf_data(&b)));
	assert_num_near(fx->v.num, 201);
	buf_clear(&b);
	buf_puts(&b, "2 * 3");
	for (int i = 0; i < 100000; i++)
		buf_puts(&b, i % 2 ? "+1" : "-1");
	assert_true(fx_eval(fx, buf_data(&b)));
	assert_num_near(fx->v.num, 6);
	buf_clear(&b);
	buf_puts(&b, "1 < 2");
	for (int i = 0; i < 100000; i++)
		buf_puts(&b, " and 2 > 1");
	assert_true(fx_eval(fx, buf_data(&b)));
	assert_true(fx->v.boolean);
	/* a chain inside parentheses inside a chain: each level is one */
	buf_clear(&b);
	for (int i = 0; i < 150; i++)
		buf_puts(&b, "(1+1+1+");
	buf_putc(&b, '1');
	for (int i = 0; i < 150; i++)
		buf_putc(&b, ')');
	assert_true(fx_eval(fx, buf_data(&b)));
	assert_num_near(fx->v.num, 451);
	assert_int_equal(diag_errors(fx->cap.d), 0);
	buf_free(&b);
	fx_free(fx);
}

static void nesting_within_the_limit_evaluates(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	struct buf b = BUF_INIT;
	for (int i = 0; i < 150; i++)
		buf_putc(&b, '(');
	buf_putc(&b, '1');
	for (int i = 0; i < 150; i++)
		buf_puts(&b, "+1)");
	assert_true(fx_eval(fx, buf_data(&b)));
	assert_num_near(fx->v.num, 151);
	buf_free(&b);
	fx_free(fx);
}

static void long_dotted_chain_is_an_error_not_a_hang(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	struct buf b = BUF_INIT;
	buf_puts(&b, "cs512");
	for (int i = 0; i < 20000; i++)
		buf_puts(&b, ".a");
	assert_false(fx_eval(fx, buf_data(&b)));
	assert_non_null(strstr(fx_diags(fx), "cs512 has no field or series 'a'"));
	buf_free(&b);
	fx_free(fx);
}

/* Random bytes from an alphabet of the language's own characters: every
 * input parses or is rejected with one error, and whatever parses
 * evaluates or is rejected, without a crash (ASan watches). */
static void random_input_never_crashes(void **state)
{
	(void)state;
	static const char alphabet[] = "cs512.train[step=100]loss()+-*/<>=! andornot'\"0e,_x";
	struct fx *fx = fx_new();
	fx->src = xstrdup("# Results\n\nSay {{ }}.\n");
	diag_add_source(fx->cap.d, REPORT, fx->src, strlen(fx->src));
	unsigned seed = 12345;
	char text[40];
	for (int round = 0; round < 20000; round++) {
		size_t n = 0, len = (seed >> 8) % sizeof text;
		for (; n < len; n++) {
			seed = seed * 1103515245u + 12345u;
			text[n] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
		}
		seed = seed * 1103515245u + 12345u;
		fx_reset(fx);
		size_t before = diag_errors(fx->cap.d);
		struct loc at = {REPORT, 3, 8, 0};
		fx->e = expr_parse(text, n, at, fx->cap.d);
		if (fx->e && expr_eval(fx->e, &fx->sc, &fx->v, fx->cap.d))
			assert_int_equal(diag_errors(fx->cap.d), before);
		else
			assert_int_equal(diag_errors(fx->cap.d), before + 1);
	}
	fx_free(fx);
}

static void free_of_null_is_harmless(void **state)
{
	(void)state;
	expr_free(NULL);
	eval_clear(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_read_ints_decimals_and_exponents),
		cmocka_unit_test(multiplication_binds_tighter_than_addition),
		cmocka_unit_test(subtraction_and_division_group_left_to_right),
		cmocka_unit_test(unary_minus_binds_tighter_than_multiplication),
		cmocka_unit_test(comparisons_of_numbers),
		cmocka_unit_test(comparisons_of_strings_use_byte_order),
		cmocka_unit_test(booleans_compare_for_equality),
		cmocka_unit_test(not_binds_looser_than_a_comparison_and_tighter_than_and),
		cmocka_unit_test(and_binds_tighter_than_or),
		cmocka_unit_test(and_or_short_circuit),
		cmocka_unit_test(strings_keep_escapes_and_join_with_plus),
		cmocka_unit_test(string_result_outlives_the_expression),
		cmocka_unit_test(field_keeps_its_text_file_and_line),
		cmocka_unit_test(dotted_field_is_found_by_its_longest_prefix),
		cmocka_unit_test(implicit_fields_name_the_run),
		cmocka_unit_test(column_is_a_list_of_the_series),
		cmocka_unit_test(row_lookup_picks_the_first_matching_row),
		cmocka_unit_test(row_lookup_compares_numbers_as_numbers),
		cmocka_unit_test(row_lookup_compares_strings_as_text),
		cmocka_unit_test(missing_field_is_missing_with_its_text),
		cmocka_unit_test(sums_and_products_show_the_exact_decimals_of_their_inputs),
		cmocka_unit_test(quotients_show_the_digits_of_the_less_precise_input),
		cmocka_unit_test(aggregates_show_one_decimal_more_than_their_numbers),
		cmocka_unit_test(missing_values_say_why),
		cmocka_unit_test(derive_scope_resolves_names_inside_the_run),
		cmocka_unit_test(first_and_last_skip_missing_cells_at_either_end),
		cmocka_unit_test(table_row_scope_prefers_the_row_run_then_other_runs),
		cmocka_unit_test(series_row_scope_resolves_columns_first),
		cmocka_unit_test(parenthesised_run_name_takes_a_field),
		cmocka_unit_test(mean_skips_missing_values),
		cmocka_unit_test(median_of_an_even_count_averages_the_middle_two),
		cmocka_unit_test(median_of_an_odd_count_is_that_row),
		cmocka_unit_test(min_and_max_keep_the_chosen_row),
		cmocka_unit_test(first_and_last_skip_missing_values),
		cmocka_unit_test(first_and_last_take_strings_too),
		cmocka_unit_test(sum_and_count_skip_missing_values),
		cmocka_unit_test(std_is_the_sample_standard_deviation),
		cmocka_unit_test(percentile_interpolates_between_ranks),
		cmocka_unit_test(aggregations_of_no_values),
		cmocka_unit_test(abs_and_round),
		cmocka_unit_test(missing_propagates_through_arithmetic),
		cmocka_unit_test(comparisons_with_missing_are_false),
		cmocka_unit_test(computed_value_names_its_inputs),
		cmocka_unit_test(inputs_are_named_once),
		cmocka_unit_test(aggregation_names_its_column_and_lines),
		cmocka_unit_test(picked_result_used_in_arithmetic_is_named_as_written),
		cmocka_unit_test(literals_are_not_inputs),
		cmocka_unit_test(reference_is_a_name_or_a_chain_of_names),
		cmocka_unit_test(series_reference_gives_the_series_and_its_run),
		cmocka_unit_test(unknown_run_suggests_the_closest),
		cmocka_unit_test(unknown_field_suggests_the_closest),
		cmocka_unit_test(unknown_dotted_field_suggests_the_whole_name),
		cmocka_unit_test(unknown_column_suggests_the_closest),
		cmocka_unit_test(unknown_name_far_from_everything_has_no_suggestion),
		cmocka_unit_test(unknown_name_in_a_derive_names_the_run),
		cmocka_unit_test(unknown_name_in_a_table_row_names_both_places),
		cmocka_unit_test(unknown_column_in_a_series_row_scope),
		cmocka_unit_test(bare_function_name_says_to_call_it),
		cmocka_unit_test(run_used_as_a_value_says_to_name_a_field),
		cmocka_unit_test(series_used_as_a_value_lists_its_columns),
		cmocka_unit_test(row_used_as_a_value_lists_its_columns),
		cmocka_unit_test(field_of_a_number_is_an_error),
		cmocka_unit_test(lookup_with_an_unknown_column_suggests_one),
		cmocka_unit_test(lookup_that_matches_no_row_suggests_a_value),
		cmocka_unit_test(lookup_on_a_run_is_an_error),
		cmocka_unit_test(lookup_on_a_column_is_an_error),
		cmocka_unit_test(list_in_arithmetic_names_the_aggregations),
		cmocka_unit_test(eval_one_rejects_a_list),
		cmocka_unit_test(list_as_a_scalar_argument_is_an_error),
		cmocka_unit_test(adding_a_string_and_a_number_is_an_error),
		cmocka_unit_test(each_arithmetic_operator_names_its_types),
		cmocka_unit_test(comparing_a_string_and_a_number_is_an_error),
		cmocka_unit_test(and_with_a_number_is_an_error),
		cmocka_unit_test(division_by_zero_is_an_error_at_the_divisor),
		cmocka_unit_test(aggregation_of_a_single_value_is_an_error),
		cmocka_unit_test(aggregation_of_strings_names_the_first_one),
		cmocka_unit_test(percentile_outside_0_to_100_is_an_error),
		cmocka_unit_test(round_needs_whole_digits),
		cmocka_unit_test(unknown_function_suggests_the_closest),
		cmocka_unit_test(unknown_function_far_from_all_lists_them),
		cmocka_unit_test(wrong_argument_count_is_an_error),
		cmocka_unit_test(missing_close_paren_of_a_call),
		cmocka_unit_test(missing_close_paren_points_back_at_the_open_one),
		cmocka_unit_test(missing_operand_is_an_error),
		cmocka_unit_test(trailing_input_is_an_error),
		cmocka_unit_test(comparisons_do_not_chain),
		cmocka_unit_test(bad_tokens_are_errors),
		cmocka_unit_test(empty_expression_is_an_error),
		cmocka_unit_test(bad_dot_and_lookup_syntax),
		cmocka_unit_test(keywords_may_name_fields_after_a_dot),
		cmocka_unit_test(expression_over_two_lines_reports_the_right_line),
		cmocka_unit_test(deep_nesting_is_an_error_not_a_crash),
		cmocka_unit_test(long_chain_is_length_not_nesting),
		cmocka_unit_test(nesting_within_the_limit_evaluates),
		cmocka_unit_test(long_dotted_chain_is_an_error_not_a_hang),
		cmocka_unit_test(random_input_never_crashes),
		cmocka_unit_test(free_of_null_is_harmless),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
