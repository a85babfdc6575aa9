/* test_parser_score.c: the corpus scorer's facts reader and its
 * comparison of a fact with a run (tools/parser_score.c, included here
 * without its main()); the scorer over a corpus is tests/e2e/test_corpus.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#define PARSER_SCORE_NO_MAIN
#include "../../tools/parser_score.c"

#include "capture.h"

static struct parser_set *builtins;

static int setup(void **state)
{
	(void)state;
	struct capture quiet;
	cap_open(&quiet);
	builtins = parsers_load(NULL, NULL, quiet.d);
	cap_close(&quiet);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	parsers_free(builtins);
	return 0;
}

/* The diagnostics facts_read() gives for text ("" when none). */
static void expect_read(const char *text, const char *want)
{
	struct capture c;
	cap_open(&c);
	diag_add_source(c.d, "x.facts", text, strlen(text));
	struct facts f;
	bool ok = facts_read("x.facts", text, strlen(text), builtins, &f, c.d);
	assert_string_equal(cap_text(&c), want);
	assert_int_equal(ok, want[0] == '\0');
	facts_free(&f);
	cap_close(&c);
}

/* A run with the fields and series the comparison tests look at. */
static struct run *sample_run(void)
{
	struct run *r = run_new("bs512", "logs/bs512.log", "cerebras");
	struct datum d = datum_from_text("175.070497198", 13, 58);
	run_set_field(r, "total_time", &d);
	d = datum_from_text("7.12500", 7, 53);
	run_set_field(r, "final_loss", &d);
	d = datum_from_text("TIME LIMIT", 10, 6);
	d.kind = DATUM_STRING;
	run_set_field(r, "cancel_reason", &d);
	d = datum_from_text("33071", 5, 2);
	d.kind = DATUM_STRING; /* a parser that types its job ids as text */
	run_set_field(r, "job_id", &d);
	d = (struct datum){DATUM_NUMBER, 2924.536162257778, NULL, 0, 0};
	run_set_field(r, "throughput", &d);
	d = (struct datum){DATUM_MISSING, 0, NULL, 0, 0};
	run_set_field(r, "exit_code", &d);
	d = datum_from_text("3", 1, 9);
	run_set_field(r, "queue.rows", &d);
	d = datum_from_text("0.5", 3, 9);
	run_set_field(r, "summary.mean", &d);
	const char *cols[] = {"step", "loss", "on_chip_ips"};
	struct series *s = run_add_series(r, "train", cols, 3);
	struct datum row[3];
	row[0] = datum_from_text("100", 3, 44);
	row[1] = datum_from_text("9.39062", 7, 44);
	row[2] = datum_from_text("--", 2, 44);
	series_append(s, row, 44);
	row[0] = datum_from_text("1000", 4, 53);
	row[1] = datum_from_text("7.12500", 7, 53);
	row[2] = datum_from_text("37576.72", 8, 53);
	series_append(s, row, 53);
	const char *one[] = {"name"};
	run_add_series(r, "empty", one, 1);
	s = run_add_series(r, "results.runs", one, 1);
	row[0] = datum_from_text("metis", 5, 3);
	series_append(s, row, 3);
	return r;
}

/* Checks name = want against the sample run: whether it holds and what
 * a miss says the run has. */
static void expect_fact(const char *name, const char *want, bool right, const char *got)
{
	struct run *r = sample_run();
	struct buf b = BUF_INIT;
	bool ok = fact_check(r, name, want, &b);
	if (ok != right)
		fail_msg("%s = %s: expected %s, got %s", name, want, right ? "right" : "wrong",
			 buf_data(&b));
	assert_string_equal(buf_data(&b), got);
	buf_free(&b);
	run_free(r);
}

static void facts_are_read_with_their_lines_and_values_as_written(void **state)
{
	(void)state;
	const char *text = "# bs512.log\n"
			   "parser: cerebras\n"
			   "\n"
			   "total_time = 175.070497198\n"
			   "  summary.metis.mean=0.5  \r\n"
			   "error = a = b\n"
			   "train.last.loss = 7.12500";
	struct capture c;
	cap_open(&c);
	struct facts f;
	assert_true(facts_read("x.facts", text, strlen(text), builtins, &f, c.d));
	assert_string_equal(cap_text(&c), "");
	assert_string_equal(f.parser, "cerebras");
	assert_int_equal(f.parser_line, 2);
	assert_int_equal(f.n, 4);
	assert_string_equal(f.v[0].name, "total_time");
	assert_string_equal(f.v[0].value, "175.070497198");
	assert_int_equal(f.v[0].line, 4);
	assert_string_equal(f.v[1].name, "summary.metis.mean");
	assert_string_equal(f.v[1].value, "0.5");
	assert_string_equal(f.v[2].name, "error");
	assert_string_equal(f.v[2].value, "a = b");
	assert_string_equal(f.v[3].name, "train.last.loss");
	assert_string_equal(f.v[3].value, "7.12500");
	assert_int_equal(f.v[3].line, 7);
	facts_free(&f);
	cap_close(&c);
}

static void a_line_without_equals_is_an_error_saying_what_is_expected(void **state)
{
	(void)state;
	expect_read("parser: slurm\njob_id 33071\n",
		    "x.facts:2: error: expected 'FIELD = VALUE', 'parser: KIND' or a # comment\n"
		    "    2 | job_id 33071\n");
}

static void a_fact_without_a_name_or_a_value_is_an_error(void **state)
{
	(void)state;
	expect_read("parser: slurm\n= 3\njob_id =  \n",
		    "x.facts:2: error: expected a field name before '=', as in 'final_loss = 7.1'\n"
		    "    2 | = 3\n"
		    "x.facts:3: error: expected a value after 'job_id =', as written in the log\n"
		    "    3 | job_id =  \n");
}

static void a_facts_file_without_a_parser_line_is_an_error(void **state)
{
	(void)state;
	expect_read("job_id = 33071\n",
		    "x.facts: error: no 'parser: KIND' line: name the parser that should detect "
		    "the log\n");
}

static void an_unknown_parser_suggests_the_closest_built_in(void **state)
{
	(void)state;
	expect_read("parser: slurn\n",
		    "x.facts:1: error: unknown parser 'slurn' (did you mean 'slurm'?)\n"
		    "    1 | parser: slurn\n");
}

static void a_parser_line_names_one_parser_once(void **state)
{
	(void)state;
	expect_read("parser: slurm gtest\nparser: slurm\nparser: gtest\nparser:\n",
		    "x.facts:1: error: expected one parser name after 'parser:', as in 'parser: "
		    "slurm'\n"
		    "    1 | parser: slurm gtest\n"
		    "x.facts:3: error: a second 'parser:' line (the first is line 2): a log has one "
		    "parser\n"
		    "    3 | parser: gtest\n"
		    "x.facts:4: error: expected one parser name after 'parser:', as in 'parser: "
		    "slurm'\n"
		    "    4 | parser:\n");
}

static void a_second_fact_for_a_field_is_an_error(void **state)
{
	(void)state;
	expect_read("parser: slurm\njob_id = 1\njob_id = 2\n",
		    "x.facts:3: error: a second fact for 'job_id' (the first is line 2)\n"
		    "    3 | job_id = 2\n");
}

static void a_number_fact_equals_a_value_written_otherwise(void **state)
{
	(void)state;
	expect_fact("final_loss", "7.125", true, "7.12500");
	expect_fact("final_loss", "7.12500", true, "7.12500");
	expect_fact("final_loss", "7.126", false, "7.12500");
	/* A field typed as text is compared as the number it reads as. */
	expect_fact("job_id", "33071", true, "33071");
	expect_fact("job_id", "33072", false, "33071");
}

static void a_number_fact_equals_to_9_significant_digits(void **state)
{
	(void)state;
	expect_fact("throughput", "2924.53616", true, "2924.536162257778");
	expect_fact("throughput", "2924.536162257778", true, "2924.536162257778");
	/* 8 digits are not enough. */
	expect_fact("throughput", "2924.5362", false, "2924.536162257778");
	expect_fact("total_time", "175.070497", true, "175.070497198");
	expect_fact("total_time", "175.07", false, "175.070497198");
}

static void a_text_fact_equals_text_exactly(void **state)
{
	(void)state;
	expect_fact("cancel_reason", "TIME LIMIT", true, "TIME LIMIT");
	expect_fact("cancel_reason", "time limit", false, "TIME LIMIT");
	expect_fact("cancel_reason", "TIME", false, "TIME LIMIT");
	/* A computed number against text: its shortest form. */
	expect_fact("throughput", "2924.536162257778x", false, "2924.536162257778");
}

static void a_field_that_matched_nothing_or_does_not_exist_got_nothing(void **state)
{
	(void)state;
	expect_fact("exit_code", "0", false, "nothing");
	expect_fact("samples", "512000", false, "nothing");
	expect_fact("summary.median", "0.5", false, "nothing");
	/* The implicit fields count. */
	expect_fact("parser", "cerebras", true, "cerebras");
}

static void rows_first_and_last_read_the_series(void **state)
{
	(void)state;
	expect_fact("train.rows", "2", true, "2");
	expect_fact("train.rows", "10", false, "2");
	expect_fact("train.first.step", "100", true, "100");
	expect_fact("train.last.step", "1000", true, "1000");
	expect_fact("train.last.loss", "7.125", true, "7.12500");
	expect_fact("train.first.loss", "7.125", false, "9.39062");
	/* A missing cell as written, and as nothing. */
	expect_fact("train.first.on_chip_ips", "--", true, "--");
	expect_fact("train.first.on_chip_ips", "0", false, "--");
	expect_fact("empty.rows", "0", true, "0");
}

static void a_series_with_a_dotted_name_is_found_whole(void **state)
{
	(void)state;
	expect_fact("results.runs.rows", "1", true, "1");
	expect_fact("results.runs.first.name", "metis", true, "metis");
}

static void a_field_named_like_a_rows_is_a_field(void **state)
{
	(void)state;
	/* No series "queue": queue.rows is the field of that name. */
	expect_fact("queue.rows", "3", true, "3");
	expect_fact("queue.rows", "4", false, "3");
	/* No field and no series: the miss names the series. */
	expect_fact("trian.rows", "2", false, "nothing (no series 'trian'; the run's series: "
					   "train, empty, results.runs)");
}

static void a_missing_column_a_row_of_no_rows_or_a_bare_series_is_a_miss(void **state)
{
	(void)state;
	expect_fact("train.first.los", "9.39062", false,
		    "nothing (train has no column 'los'; its columns: step, loss, on_chip_ips)");
	expect_fact("empty.first.name", "x", false, "nothing (empty has no rows)");
	expect_fact("train.loss", "7.125", false,
		    "nothing (train is a series: write train.rows, train.first.COLUMN or "
		    "train.last.COLUMN)");
	expect_fact("train.first", "100", false,
		    "nothing (train is a series: write train.rows, train.first.COLUMN or "
		    "train.last.COLUMN)");
}

static void numbers_agree_as_doubles_or_to_9_digits(void **state)
{
	(void)state;
	assert_true(numbers_agree(0.1 + 0.2, 0.3));
	assert_true(numbers_agree(1e-9, 1.00000000049e-9));
	assert_false(numbers_agree(1e-9, 1.0000001e-9));
	assert_true(numbers_agree(0, -0.0));
	assert_true(numbers_agree(NAN, NAN));
	assert_false(numbers_agree(INFINITY, 1e308));
	assert_true(numbers_agree(INFINITY, INFINITY));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(facts_are_read_with_their_lines_and_values_as_written),
		cmocka_unit_test(a_line_without_equals_is_an_error_saying_what_is_expected),
		cmocka_unit_test(a_fact_without_a_name_or_a_value_is_an_error),
		cmocka_unit_test(a_facts_file_without_a_parser_line_is_an_error),
		cmocka_unit_test(an_unknown_parser_suggests_the_closest_built_in),
		cmocka_unit_test(a_parser_line_names_one_parser_once),
		cmocka_unit_test(a_second_fact_for_a_field_is_an_error),
		cmocka_unit_test(a_number_fact_equals_a_value_written_otherwise),
		cmocka_unit_test(a_number_fact_equals_to_9_significant_digits),
		cmocka_unit_test(a_text_fact_equals_text_exactly),
		cmocka_unit_test(a_field_that_matched_nothing_or_does_not_exist_got_nothing),
		cmocka_unit_test(rows_first_and_last_read_the_series),
		cmocka_unit_test(a_series_with_a_dotted_name_is_found_whole),
		cmocka_unit_test(a_field_named_like_a_rows_is_a_field),
		cmocka_unit_test(a_missing_column_a_row_of_no_rows_or_a_bare_series_is_a_miss),
		cmocka_unit_test(numbers_agree_as_doubles_or_to_9_digits),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
