/* test_structured.c: JSON, YAML and CSV result files into runs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/fsutil.h"
#include "data/run.h"
#include "data/yamldoc.h"
#include "parse/structured.h"
#include "base/util.h"
#include "capture.h"

#define FIXTURES "tests/fixtures/structured/"

static char *tmpdir;

static int group_setup(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/logdown-test-structured-XXXXXX";
	assert_non_null(mkdtemp(tmpl));
	tmpdir = xstrdup(tmpl);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	remove_tree(tmpdir);
	free(tmpdir);
	return 0;
}

enum format { JSON, YAML, CSV };

static bool read_as(enum format f, struct run *r, const char *path, const char *shown,
		    struct diag *d)
{
	switch (f) {
	case JSON: return structured_read_json(r, path, shown, d);
	case YAML: return structured_read_yaml(r, path, shown, d);
	default: return structured_read_csv(r, path, shown, d);
	}
}

/* Reads text, written to a file that diagnostics call `name`, as format
 * f.  *ok is what the reader returned.  Caller frees with run_free(). */
static struct run *load(enum format f, const char *name, const char *text, struct capture *c,
			bool *ok)
{
	char *path = path_join(tmpdir, name);
	assert_true(file_write(path, text, strlen(text)));
	struct run *r = run_new("r", name, "test");
	*ok = read_as(f, r, path, name, c->d);
	free(path);
	return r;
}

/* Asserts field name is kind with text and line. */
static void check_field(const struct run *r, const char *name, enum datum_kind kind,
			const char *text, long line)
{
	const struct datum *d = run_field(r, name);
	if (!d)
		fail_msg("no field '%s'", name);
	assert_int_equal(d->kind, kind);
	if (text) {
		assert_non_null(d->text);
		if (d->len != strlen(text) || memcmp(d->text, text, d->len) != 0)
			fail_msg("field '%s': text '%.*s', expected '%s'", name, (int)d->len,
				 d->text, text);
	} else {
		assert_null(d->text);
	}
	assert_int_equal(d->line, line);
}

/* Asserts the columns of series s, given as one string "a,b,c". */
static void check_columns(const struct series *s, const char *want)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < series_column_count(s); i++) {
		if (i)
			buf_putc(&b, ',');
		buf_puts(&b, series_column(s, i));
	}
	assert_string_equal(buf_data(&b), want);
	buf_free(&b);
}

/* Asserts cell (row, col) of s: its kind and text ("" for none). */
static void check_cell(const struct series *s, size_t row, const char *col, enum datum_kind kind,
		       const char *text)
{
	long c = series_column_index(s, col);
	if (c < 0)
		fail_msg("no column '%s'", col);
	struct datum d;
	series_cell(s, row, (size_t)c, &d);
	assert_int_equal(d.kind, kind);
	const char *t = d.text ? d.text : "";
	size_t n = d.text ? d.len : 0;
	if (n != strlen(text) || memcmp(t, text, n) != 0)
		fail_msg("cell %zu.%s: text '%.*s', expected '%s'", row, col, (int)n, t, text);
}

static double cell_num(const struct series *s, size_t row, const char *col)
{
	struct datum d;
	series_cell(s, row, (size_t)series_column_index(s, col), &d);
	assert_int_equal(d.kind, DATUM_NUMBER);
	return d.num;
}

static void json_fixture_objects_become_dotted_fields(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct run *r = run_new("bench", "results.json", "json");
	assert_true(structured_read_json(r, FIXTURES "metis_vs_sophia_results.json",
					 "results.json", c.d));
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(run_line_count(r), 247);
	assert_int_equal(run_field_count(r), 45);
	assert_string_equal(run_field_name(r, 0), "benchmark");
	check_field(r, "benchmark", DATUM_STRING, "metis_vs_sophia", 2);
	check_field(r, "dataset.first_n", DATUM_NUMBER, "10", 8);
	check_field(r, "platforms.sophia.model", DATUM_STRING, "openai/gpt-oss-120b", 18);
	/* Numbers keep their text: 1.0 is not shown as 1. */
	check_field(r, "summary.metis.success_rate", DATUM_NUMBER, "1.0", 209);
	assert_true(run_field(r, "summary.metis.success_rate")->num == 1.0);
	check_field(r, "summary.metis.avg_tokens", DATUM_NUMBER, "326.0", 216);
	check_field(r, "summary.sophia.throughput_tokens_per_s", DATUM_NUMBER, "203.98", 230);
	assert_true(run_field(r, "summary.sophia.throughput_tokens_per_s")->num == 203.98);
	check_field(r, "summary.definitions.success_rate", DATUM_STRING, "n_success / n_requests",
		    235);
	assert_null(run_field(r, "summary.metis"));
	run_free(r);
	cap_close(&c);
}

static void json_fixture_lists_of_objects_become_series(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct run *r = run_new("bench", "results.json", "json");
	assert_true(structured_read_json(r, FIXTURES "metis_vs_sophia_results.json",
					 "results.json", c.d));
	assert_int_equal(run_series_count(r), 2);
	const struct series *m = run_series_at(r, 0);
	assert_string_equal(series_name(m), "metis");
	check_columns(m, "id,squad_index,question,reference_answer,latency_s,tokens,success");
	assert_int_equal(series_row_count(m), 10);
	/* Each row's line is the line of its '{'. */
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(series_row_line(m, i), 22 + 9 * (long)i);
	check_cell(m, 0, "id", DATUM_STRING, "q01");
	check_cell(m, 0, "latency_s", DATUM_NUMBER, "5.089");
	assert_true(cell_num(m, 0, "latency_s") == 5.089);
	check_cell(m, 5, "reference_answer", DATUM_STRING, "\"golden anniversary\"");
	/* true is 1, shown as written. */
	check_cell(m, 9, "success", DATUM_NUMBER, "true");
	assert_true(cell_num(m, 9, "success") == 1);
	struct datum d;
	/* and each cell's, its field's: row 3's "tokens" six lines below
	 * its '{', so that a value links to the line that writes it. */
	series_cell(m, 3, (size_t)series_column_index(m, "tokens"), &d);
	assert_int_equal(d.line, 55);

	const struct series *s = run_series(r, "sophia");
	assert_non_null(s);
	assert_int_equal(series_row_count(s), 10);
	assert_int_equal(series_row_line(s, 0), 114);
	check_cell(s, 3, "latency_s", DATUM_NUMBER, "0.597");
	check_cell(s, 8, "latency_s", DATUM_NUMBER, "1.82");
	run_free(r);
	cap_close(&c);
}

static void csv_fixture_header_names_the_columns_of_rows(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct run *r = run_new("sweep", "sweep.csv", "csv");
	assert_true(structured_read_csv(r, FIXTURES "llama7b_sweep.csv", "sweep.csv", c.d));
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(run_line_count(r), 5);
	assert_int_equal(run_field_count(r), 0);
	assert_int_equal(run_series_count(r), 1);
	const struct series *s = run_series(r, "rows");
	assert_non_null(s);
	check_columns(s, "batch_size,avg_rate_samples_per_s,global_rate_samples_per_s,"
			 "total_time_s,throughput_samples_per_s,final_loss");
	assert_int_equal(series_row_count(s), 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(series_row_line(s, i), 2 + (long)i);
	check_cell(s, 0, "batch_size", DATUM_NUMBER, "256");
	check_cell(s, 2, "throughput_samples_per_s", DATUM_NUMBER, "27.70");
	assert_true(cell_num(s, 2, "throughput_samples_per_s") == 27.7);
	check_cell(s, 3, "final_loss", DATUM_NUMBER, "5.96367");
	assert_true(cell_num(s, 3, "batch_size") == 2048);
	run_free(r);
	cap_close(&c);
}

static void yaml_fixture_reads_like_json(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct run *r = run_new("sweep", "sweep.yaml", "yaml");
	assert_true(structured_read_yaml(r, FIXTURES "sweep.yaml", "sweep.yaml", c.d));
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(run_line_count(r), 16);
	check_field(r, "model", DATUM_STRING, "llama-7b", 2);
	check_field(r, "system.name", DATUM_STRING, "CS-2", 4);
	check_field(r, "system.accuracy", DATUM_NUMBER, "98.07%", 5);
	assert_true(run_field(r, "system.accuracy")->num == 98.07);
	check_field(r, "system.quoted", DATUM_STRING, "98.07%", 6);
	check_field(r, "system.note", DATUM_MISSING, "n/a", 7);
	check_field(r, "system.nothing", DATUM_MISSING, "null", 8);
	const struct series *s = run_series(r, "runs");
	assert_non_null(s);
	check_columns(s, "batch_size,loss,ok");
	assert_int_equal(series_row_count(s), 3);
	assert_int_equal(series_row_line(s, 0), 10);
	assert_int_equal(series_row_line(s, 1), 12);
	assert_int_equal(series_row_line(s, 2), 15);
	check_cell(s, 1, "loss", DATUM_NUMBER, "6.32152");
	check_cell(s, 2, "loss", DATUM_MISSING, "--");
	check_cell(s, 1, "ok", DATUM_NUMBER, "false");
	assert_true(cell_num(s, 1, "ok") == 0);
	check_cell(s, 2, "ok", DATUM_MISSING, "");
	const struct series *t = run_series(r, "tags");
	assert_non_null(t);
	check_columns(t, "value");
	assert_int_equal(series_row_count(t), 2);
	check_cell(t, 1, "value", DATUM_STRING, "bf16");
	run_free(r);
	cap_close(&c);
}

static void json_null_is_missing_and_booleans_are_one_and_zero(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "a.json", "{\"a\": null,\n \"t\": true,\n \"f\": false}\n", &c,
			     &ok);
	assert_true(ok);
	check_field(r, "a", DATUM_MISSING, "null", 1);
	check_field(r, "t", DATUM_NUMBER, "true", 2);
	assert_true(run_field(r, "t")->num == 1);
	check_field(r, "f", DATUM_NUMBER, "false", 3);
	assert_true(run_field(r, "f")->num == 0);
	run_free(r);
	cap_close(&c);
}

static void json_columns_are_the_union_of_keys_in_first_seen_order(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "u.json",
			     "{\"runs\": [\n"
			     "  {\"b\": 1},\n"
			     "  {\"a\": 2, \"b\": 3, \"gpu\": {\"util\": 0.9}},\n"
			     "  null,\n"
			     "  {\"c\": \"x\"}\n"
			     "]}\n",
			     &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "");
	const struct series *s = run_series(r, "runs");
	check_columns(s, "b,a,gpu.util,c");
	assert_int_equal(series_row_count(s), 4);
	check_cell(s, 0, "b", DATUM_NUMBER, "1");
	check_cell(s, 0, "a", DATUM_MISSING, "");
	check_cell(s, 1, "gpu.util", DATUM_NUMBER, "0.9");
	/* A null item is a row of missing cells, so rows count the items. */
	check_cell(s, 2, "b", DATUM_MISSING, "");
	assert_int_equal(series_row_line(s, 2), 4);
	check_cell(s, 3, "c", DATUM_STRING, "x");
	assert_int_equal(series_row_line(s, 3), 5);
	run_free(r);
	cap_close(&c);
}

static void json_list_of_scalars_has_the_column_value(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "v.json", "{\"losses\": [\n 9.5,\n null,\n \"7.0\"]}", &c, &ok);
	assert_true(ok);
	const struct series *s = run_series(r, "losses");
	check_columns(s, "value");
	assert_int_equal(series_row_count(s), 3);
	check_cell(s, 0, "value", DATUM_NUMBER, "9.5");
	assert_int_equal(series_row_line(s, 0), 2);
	check_cell(s, 1, "value", DATUM_MISSING, "null");
	/* A JSON string is a string, even when it looks like a number. */
	check_cell(s, 2, "value", DATUM_STRING, "7.0");
	run_free(r);
	cap_close(&c);
}

static void json_list_of_lists_has_columns_c1_c2(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "m.json", "{\"curve\": [[1, 0.5], [2, 0.25, \"x\"]]}", &c, &ok);
	assert_true(ok);
	const struct series *s = run_series(r, "curve");
	check_columns(s, "c1,c2,c3");
	assert_int_equal(series_row_count(s), 2);
	check_cell(s, 0, "c2", DATUM_NUMBER, "0.5");
	check_cell(s, 0, "c3", DATUM_MISSING, "");
	check_cell(s, 1, "c3", DATUM_STRING, "x");
	run_free(r);
	cap_close(&c);
}

static void json_list_inside_a_row_is_left_out_with_a_warning(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "n.json",
			     "{\"reqs\": [\n"
			     "  {\"id\": 1, \"tags\": [\"a\"]},\n"
			     "  {\"id\": 2, \"tags\": []},\n"
			     "  7\n"
			     "]}\n",
			     &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "n.json:2:21: warning: 'reqs.tags': a list inside a row cannot be a cell "
			    "and is left out (logdown reads lists of objects, of values and of lists "
			    "of values)\n"
			    "    2 |   {\"id\": 1, \"tags\": [\"a\"]},\n"
			    "      |                     ^\n"
			    "n.json:4:3: warning: 'reqs': a value in a list of objects is left out\n"
			    "    4 |   7\n"
			    "      |   ^\n");
	const struct series *s = run_series(r, "reqs");
	check_columns(s, "id");
	assert_int_equal(series_row_count(s), 2);
	run_free(r);
	cap_close(&c);
}

static void json_top_level_list_is_rows_and_scalar_is_value(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "l.json", "[{\"x\": 1}, {\"x\": 2}]", &c, &ok);
	assert_true(ok);
	assert_int_equal(series_row_count(run_series(r, "rows")), 2);
	run_free(r);
	r = load(JSON, "s.json", "  42\n", &c, &ok);
	assert_true(ok);
	check_field(r, "value", DATUM_NUMBER, "42", 1);
	run_free(r);
	cap_close(&c);
}

static void json_nested_list_is_named_by_its_key_path(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "p.json",
			     "{\"summary\": {\"n\": 2,\n"
			     "  \"requests\": [{\"ms\": 1.5}, {\"ms\": 2}]},\n"
			     " \"empty\": [], \"none\": {}}\n",
			     &c, &ok);
	assert_true(ok);
	check_field(r, "summary.n", DATUM_NUMBER, "2", 1);
	const struct series *s = run_series(r, "summary.requests");
	assert_non_null(s);
	check_columns(s, "ms");
	assert_int_equal(series_row_line(s, 1), 2);
	/* An empty list is an empty series; an empty map gives nothing. */
	check_columns(run_series(r, "empty"), "value");
	assert_int_equal(series_row_count(run_series(r, "empty")), 0);
	assert_int_equal(run_field_count(r), 1);
	assert_int_equal(run_series_count(r), 2);
	run_free(r);
	cap_close(&c);
}

static void json_list_of_100k_objects_reads_in_linear_time(void **state)
{
	(void)state;
	enum { N = 100000 };
	struct buf b = BUF_INIT;
	buf_puts(&b, "{\"train\": [\n");
	for (int i = 0; i < N; i++)
		buf_printf(&b, "{\"step\": %d, \"loss\": %d.5, \"tag\": \"t%d\"}%s\n", i, i % 10, i,
			   i + 1 < N ? "," : "");
	buf_puts(&b, "]}\n");
	struct capture c;
	cap_open(&c);
	bool ok;
	clock_t t0 = clock();
	struct run *r = load(JSON, "big.json", buf_data(&b), &c, &ok);
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_true(ok);
	const struct series *s = run_series(r, "train");
	assert_int_equal(series_row_count(s), N);
	assert_int_equal(series_row_line(s, N - 1), N + 1);
	check_cell(s, N - 1, "tag", DATUM_STRING, "t99999");
	check_cell(s, 12345, "loss", DATUM_NUMBER, "5.5");
	if (secs > 10)
		fail_msg("reading %d rows took %.1f s of CPU", N, secs);
	run_free(r);
	cap_close(&c);
	buf_free(&b);
}

static void json_escapes_and_surrogate_pairs_are_decoded(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "e.json",
			     "{\"s\": \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ \\/ \\n\\t\",\n"
			     " \"lone\": \"\\ud800!\", \"k\\u00e9y\": 1}",
			     &c, &ok);
	assert_true(ok);
	check_field(r, "s", DATUM_STRING, "caf\xC3\xA9 \xF0\x9F\x98\x80 \"q\" \\ / \n\t", 1);
	check_field(r, "lone", DATUM_STRING, "\xEF\xBF\xBD!", 2);
	check_field(r, "k\xC3\xA9y", DATUM_NUMBER, "1", 2);
	run_free(r);
	cap_close(&c);
}

static void json_nan_and_infinity_are_numbers(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "i.json",
			     "{\"a\": NaN, \"b\": Infinity, \"c\": -Infinity, \"d\": -1.5e-3}", &c,
			     &ok);
	assert_true(ok);
	check_field(r, "a", DATUM_NUMBER, "NaN", 1);
	assert_true(isnan(run_field(r, "a")->num));
	check_field(r, "b", DATUM_NUMBER, "Infinity", 1);
	assert_true(isinf(run_field(r, "b")->num) && run_field(r, "b")->num > 0);
	check_field(r, "c", DATUM_NUMBER, "-Infinity", 1);
	check_field(r, "d", DATUM_NUMBER, "-1.5e-3", 1);
	assert_true(run_field(r, "d")->num == -0.0015);
	run_free(r);
	cap_close(&c);
}

static void json_repeated_key_keeps_the_last(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "d.json", "{\"a\": 1,\n \"a\": 2}", &c, &ok);
	assert_true(ok);
	check_field(r, "a", DATUM_NUMBER, "2", 2);
	assert_int_equal(run_field_count(r), 1);
	run_free(r);
	cap_close(&c);
}

/* Loads text as JSON, expecting it to fail with exactly `want`. */
static void json_fails_with(const char *text, const char *want)
{
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "bad.json", text, &c, &ok);
	assert_false(ok);
	assert_string_equal(cap_text(&c), want);
	assert_int_equal(diag_errors(c.d), 1);
	run_free(r);
	cap_close(&c);
}

static void json_missing_comma_is_reported_at_its_place(void **state)
{
	(void)state;
	json_fails_with("{\"a\": 1\n \"b\": 2}\n",
			"bad.json:2:2: error: malformed JSON: expected ',' or '}', found '\"'\n"
			"    2 |  \"b\": 2}\n"
			"      |  ^\n");
}

static void json_trailing_comma_is_an_error(void **state)
{
	(void)state;
	json_fails_with("{\"a\": 1,\n}\n",
			"bad.json:2:1: error: malformed JSON: expected a key in double quotes (no "
			"comma after the last member), found '}'\n"
			"    2 | }\n"
			"      | ^\n");
	json_fails_with("[1, 2,]",
			"bad.json:1:7: error: malformed JSON: expected a value, found ']'\n"
			"    1 | [1, 2,]\n"
			"      |       ^\n");
}

static void json_unclosed_array_names_where_it_starts(void **state)
{
	(void)state;
	json_fails_with("{\"a\": [1,\n 2\n",
			"bad.json:2:3: error: malformed JSON: expected ',' or ']', found the end "
			"of the file\n"
			"    2 |  2\n"
			"      |   ^\n"
			"bad.json:1:7: note: the array that is not closed starts here\n"
			"    1 | {\"a\": [1,\n"
			"      |       ^\n");
}

static void json_unclosed_string_is_reported_at_its_quote(void **state)
{
	(void)state;
	json_fails_with("{\"a\": \"abc,\n \"b\": 1}",
			"bad.json:1:7: error: malformed JSON: a string that is never closed (a "
			"string ends on its own line with '\"')\n"
			"    1 | {\"a\": \"abc,\n"
			"      |       ^\n");
}

static void json_bad_words_and_numbers_are_errors(void **state)
{
	(void)state;
	json_fails_with("{\"a\": tru}",
			"bad.json:1:7: error: malformed JSON: expected a value, found 'tru'\n"
			"    1 | {\"a\": tru}\n"
			"      |       ^~~\n");
	json_fails_with("{\"a\": 01.5}",
			"bad.json:1:7: error: malformed JSON: '01.5' is not a number\n"
			"    1 | {\"a\": 01.5}\n"
			"      |       ^~~~\n");
	json_fails_with("{\"a\": \"\\x\"}",
			"bad.json:1:8: error: malformed JSON: unknown escape '\\x' in a string\n"
			"    1 | {\"a\": \"\\x\"}\n"
			"      |        ^~\n");
	json_fails_with("{\"a\": 1} x",
			"bad.json:1:10: error: malformed JSON: expected the end of the file after "
			"the JSON value, found 'x'\n"
			"    1 | {\"a\": 1} x\n"
			"      |          ^\n");
}

static void json_empty_file_is_an_error(void **state)
{
	(void)state;
	json_fails_with("\n", "bad.json:1:1: error: malformed JSON: expected a value, found the "
			      "end of the file\n"
			      "    1 | \n"
			      "      | ^\n");
}

static void json_nesting_is_capped(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	for (int i = 0; i < 10000; i++)
		buf_putc(&b, '[');
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "deep.json", buf_data(&b), &c, &ok);
	assert_false(ok);
	assert_non_null(strstr(cap_text(&c), "deep.json:1:201: error: JSON nested deeper than "
					     "200 levels (limit json_depth: raise it with limits: in site.yaml or LOGDOWN_LIMIT_JSON_DEPTH)\n"));
	run_free(r);
	cap_close(&c);
	buf_free(&b);
}

static void json_byte_order_mark_is_skipped(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "bom.json", "\xEF\xBB\xBF{\"a\": x}", &c, &ok);
	assert_false(ok);
	assert_string_equal(cap_text(&c),
			    "bom.json:1:7: error: malformed JSON: expected a value, found 'x'\n"
			    "    1 | {\"a\": x}\n"
			    "      |       ^\n");
	run_free(r);
	cap_close(&c);
}

static void yaml_syntax_error_is_reported_at_its_line(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(YAML, "bad.yaml", "a: 1\nb: [1, 2\n", &c, &ok);
	assert_false(ok);
	assert_string_equal(cap_text(&c),
			    "bad.yaml:3:1: error: malformed YAML: did not find expected ',' or ']'\n"
			    "    3 | \n"
			    "      | ^\n"
			    "bad.yaml:2:4: note: while parsing a flow sequence (it starts here)\n"
			    "    2 | b: [1, 2\n"
			    "      |    ^\n");
	run_free(r);
	cap_close(&c);
}

static void yaml_block_scalar_stays_text(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(YAML, "b.yaml", "a: |\n  12\nb: 12\n", &c, &ok);
	assert_true(ok);
	check_field(r, "a", DATUM_STRING, "12\n", 1);
	check_field(r, "b", DATUM_NUMBER, "12", 3);
	run_free(r);
	cap_close(&c);
}

static void csv_quotes_crlf_and_line_breaks_in_cells(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	/* Spaces around a quoted cell are not part of it; "1,024" needs
	 * its quotes, or the comma would split it. */
	struct run *r = load(CSV, "q.csv",
		 "name,\"Avg Rate (samples/sec)\",note\r\n"
		 "a, \"1,024\" ,\"say \"\"hi\"\"\"\r\n"
		 "\"b,c\",98.07%,\"two\r\nlines\"\r\n"
		 "\r\n"
		 "d,--,\r\n",
		 &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "");
	const struct series *s = run_series(r, "rows");
	check_columns(s, "name,avg_rate_samples_sec,note");
	assert_int_equal(series_row_count(s), 3);
	check_cell(s, 0, "name", DATUM_STRING, "a");
	check_cell(s, 0, "avg_rate_samples_sec", DATUM_NUMBER, "1,024");
	assert_true(cell_num(s, 0, "avg_rate_samples_sec") == 1024);
	check_cell(s, 0, "note", DATUM_STRING, "say \"hi\"");
	check_cell(s, 1, "name", DATUM_STRING, "b,c");
	check_cell(s, 1, "avg_rate_samples_sec", DATUM_NUMBER, "98.07%");
	check_cell(s, 1, "note", DATUM_STRING, "two\r\nlines");
	assert_int_equal(series_row_line(s, 0), 2);
	assert_int_equal(series_row_line(s, 1), 3);
	/* The record on lines 3-4, a blank line 5: the next starts on 6. */
	assert_int_equal(series_row_line(s, 2), 6);
	check_cell(s, 2, "avg_rate_samples_sec", DATUM_MISSING, "--");
	check_cell(s, 2, "note", DATUM_MISSING, "");
	assert_int_equal(run_line_count(r), 6);
	run_free(r);
	cap_close(&c);
}

static void csv_header_names_are_made_unique(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(CSV, "h.csv", "Loss,,loss,(%),LOSS\n1,2,3,4,5", &c, &ok);
	assert_true(ok);
	const struct series *s = run_series(r, "rows");
	check_columns(s, "loss,c2,loss_2,pct,loss_3");
	check_cell(s, 0, "loss_3", DATUM_NUMBER, "5");
	run_free(r);
	cap_close(&c);
}

static void csv_byte_order_mark_is_not_part_of_the_header(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(CSV, "b.csv", "\xEF\xBB\xBFStep,Loss\n1,2\n", &c, &ok);
	assert_true(ok);
	check_columns(run_series(r, "rows"), "step,loss");
	run_free(r);
	cap_close(&c);
}

static void csv_header_alone_gives_no_rows(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(CSV, "e.csv", "a,b\n\n", &c, &ok);
	assert_true(ok);
	const struct series *s = run_series(r, "rows");
	check_columns(s, "a,b");
	assert_int_equal(series_row_count(s), 0);
	run_free(r);
	r = load(CSV, "e.csv", "", &c, &ok);
	assert_true(ok);
	assert_int_equal(run_series_count(r), 0);
	assert_int_equal(run_line_count(r), 0);
	run_free(r);
	cap_close(&c);
}

/* A row with more cells than the header: a warning at its first extra
 * cell, the row left out, the rows before and after read. */
static void csv_row_with_too_many_cells_is_reported_at_the_first_extra(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(CSV, "w.csv", "a,b\n1,2\n3,4,\"five\"\n6,7\n", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "w.csv:3:5: warning: this row has 3 cells, but the header (line 1) has "
			    "2; the row is left out\n"
			    "    3 | 3,4,\"five\"\n"
			    "      |     ^~~~~~\n");
	/* The other rows are kept. */
	assert_int_equal(series_row_count(run_series(r, "rows")), 2);
	assert_int_equal(series_row_line(run_series(r, "rows"), 1), 4);
	run_free(r);
	cap_close(&c);
}

/* Fewer cells: a warning at the row's end, and the row is kept with its
 * last cells missing (as Python's csv.DictReader gives None). */
static void csv_row_with_too_few_cells_is_reported_at_its_end(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(CSV, "w.csv", "a,b,c\n1,2\n4,5,6\n", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "w.csv:2:4: warning: this row has 2 cells, but the header (line 1) has "
			    "3; its last 1 is missing\n"
			    "    2 | 1,2\n"
			    "      |    ^\n");
	const struct series *s = run_series(r, "rows");
	assert_int_equal(series_row_count(s), 2);
	check_cell(s, 0, "b", DATUM_NUMBER, "2");
	check_cell(s, 0, "c", DATUM_MISSING, "");
	check_cell(s, 1, "c", DATUM_NUMBER, "6");
	run_free(r);
	r = load(CSV, "w1.csv", "a,b\nx\n", &c, &ok);
	assert_true(ok);
	assert_non_null(strstr(cap_text(&c),
			       "w1.csv:2:2: warning: this row has 1 cell, but the header (line 1) "
			       "has 2; its last 1 is missing\n"));
	run_free(r);
	cap_close(&c);
	/* Past ten, rows of the wrong length are counted in one warning. */
	cap_open(&c);
	struct buf text = BUF_INIT;
	buf_puts(&text, "a,b\n");
	for (int i = 0; i < 13; i++)
		buf_puts(&text, "1,2,3\n");
	r = load(CSV, "many.csv", buf_data(&text), &c, &ok);
	buf_free(&text);
	assert_true(ok);
	assert_int_equal(diag_warnings(c.d), 11);
	assert_non_null(strstr(cap_text(&c), "many.csv:12: warning: 3 more rows of the wrong "
					     "length, from this one on, were not shown\n"));
	run_free(r);
	cap_close(&c);
}

/* A quote never closed takes the rest of the file: a warning at it, the
 * rows before it read. */
static void csv_unterminated_quote_is_reported_at_the_quote(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(CSV, "u.csv", "a,b\n1,2\n3, \"four\n5,6\n", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "u.csv:3:4: warning: a quoted cell that is never closed (write a quote "
			    "inside one as \"\"); the rows from line 3 on are left out\n"
			    "    3 | 3, \"four\n"
			    "      |    ^\n");
	assert_int_equal(series_row_count(run_series(r, "rows")), 1);
	run_free(r);
	cap_close(&c);
}

static void csv_text_after_a_closing_quote_leaves_the_row_out(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(CSV, "t.csv", "a,b\n\"x\"y,2\n3,4\n", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "t.csv:2:4: warning: text after the closing quote of a cell (write a "
			    "quote inside a quoted cell as \"\"); the row is left out\n"
			    "    2 | \"x\"y,2\n"
			    "      |    ^\n");
	assert_int_equal(series_row_count(run_series(r, "rows")), 1);
	assert_int_equal(series_row_line(run_series(r, "rows"), 0), 3);
	run_free(r);
	cap_close(&c);
}

/* Reads text as name with CSV options o. */
static struct run *load_csv(const char *name, const char *text, const struct csv_options *o,
			    struct capture *c, bool *ok)
{
	char *path = path_join(tmpdir, name);
	assert_true(file_write(path, text, strlen(text)));
	struct run *r = run_new("r", name, "test");
	*ok = structured_read_csv_with(r, path, name, o, c->d);
	free(path);
	return r;
}

/* TSV (a tab between cells: an empty cell is two tabs, a space is
 * text's) and pipe-separated, as `sacct -P` prints. */
static void csv_delimiter_reads_tsv_and_pipes(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct csv_options tsv = {'\t', NULL, 0, true};
	struct run *r = load_csv("a.tsv", "Model Name\tsteps\tloss\nres net\t100\t0.51\nvit\t\t0.7\n",
				 &tsv, &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "");
	const struct series *s = run_series(r, "rows");
	check_columns(s, "model_name,steps,loss");
	assert_int_equal(series_row_count(s), 2);
	check_cell(s, 0, "model_name", DATUM_STRING, "res net");
	check_cell(s, 1, "steps", DATUM_MISSING, "");
	check_cell(s, 1, "loss", DATUM_NUMBER, "0.7");
	run_free(r);
	struct csv_options pipe = {'|', NULL, 0, true};
	r = load_csv("sacct.txt",
		     "JobID|JobName|Elapsed|State|ExitCode\n"
		     "4242|train|00:12:31|COMPLETED|0:0\n"
		     "4242.batch|batch|00:12:31|COMPLETED|0:0\n",
		     &pipe, &c, &ok);
	assert_true(ok);
	s = run_series(r, "rows");
	check_columns(s, "jobid,jobname,elapsed,state,exitcode");
	check_cell(s, 1, "jobid", DATUM_STRING, "4242.batch");
	check_cell(s, 0, "state", DATUM_STRING, "COMPLETED");
	run_free(r);
	cap_close(&c);
}

/* columns: names the columns of a file without a header row; with
 * header: true they replace the header's names; header: false alone
 * gives c1, c2, ... */
static void csv_columns_name_a_headerless_file(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	static char step[] = "step", loss[] = "loss";
	char *names[] = {step, loss, NULL};
	struct csv_options named = {',', names, 2, false};
	struct run *r = load_csv("h.csv", "1,0.5\n2,0.4\n3,0.3,x\n", &named, &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "h.csv:3:7: warning: this row has 3 cells, but columns: names 2; the "
			    "row is left out\n"
			    "    3 | 3,0.3,x\n"
			    "      |       ^\n");
	const struct series *s = run_series(r, "rows");
	check_columns(s, "step,loss");
	assert_int_equal(series_row_count(s), 2);
	check_cell(s, 0, "loss", DATUM_NUMBER, "0.5");
	assert_int_equal(series_row_line(s, 0), 1);
	run_free(r);
	cap_close(&c);
	cap_open(&c);
	struct csv_options renamed = {',', names, 2, true};
	r = load_csv("n.csv", "Step,Loss (avg)\n1,0.5\n", &renamed, &c, &ok);
	assert_true(ok);
	s = run_series(r, "rows");
	check_columns(s, "step,loss");
	assert_int_equal(series_row_count(s), 1);
	assert_int_equal(series_row_line(s, 0), 2);
	run_free(r);
	struct csv_options bare = {',', NULL, 0, false};
	r = load_csv("b.csv", "1,0.5\n2,0.4\n", &bare, &c, &ok);
	assert_true(ok);
	s = run_series(r, "rows");
	check_columns(s, "c1,c2");
	assert_int_equal(series_row_count(s), 2);
	check_cell(s, 1, "c2", DATUM_NUMBER, "0.4");
	run_free(r);
	cap_close(&c);
}

/* The keys delimiter, columns and header, as a parser or a run gives
 * them: a bad one is an error at its place. */
static void csv_options_are_checked_where_written(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct capture y;
	cap_open(&y);
	const char *text = "delimiter: ab\ncolumns: [Step, x, x]\nheader: maybe\n";
	struct value *v = yamldoc_parse(text, strlen(text), "p.yaml", 0, y.d);
	assert_non_null(v);
	struct csv_options o;
	assert_false(csv_options_read(value_get(v, "delimiter"), value_get(v, "columns"),
				      value_get(v, "header"), "in parser 'p'", &o, c.d));
	assert_string_equal(
		cap_text(&c),
		"p.yaml:1:12: error: delimiter in parser 'p' is one character: ',' (CSV), \"\\t\" "
		"or tab (TSV), '|' (sacct -P), ';'; not 'ab'\n"
		"p.yaml:2:11: error: 'Step' in columns in parser 'p' is not a column name; write "
		"'step'\n"
		"p.yaml:2:20: error: column 'x' is named twice in columns in parser 'p'\n"
		"p.yaml:3:9: error: header in parser 'p' is true (the first row is a header) or "
		"false; this is a string\n");
	csv_options_free(&o);
	value_free(v);
	cap_close(&c);
	cap_close(&y);
	/* tab, "\t" and '\t' are a tab. */
	cap_open(&c);
	const char *tabs[] = {"delimiter: tab\n", "delimiter: \"\\t\"\n", "delimiter: '\\t'\n",
			      "delimiter: ';'\n"};
	for (size_t i = 0; i < 4; i++) {
		v = yamldoc_parse(tabs[i], strlen(tabs[i]), "t.yaml", 0, c.d);
		assert_true(csv_options_read(value_get(v, "delimiter"), NULL, NULL, "x", &o, c.d));
		assert_int_equal(o.delimiter, i < 3 ? '\t' : ';');
		csv_options_free(&o);
		value_free(v);
	}
	assert_string_equal(cap_text(&c), "");
	cap_close(&c);
}

/* A list's cells wait for their columns packed (a varint column, a
 * varint length): a table wider than 128 columns, a text longer than
 * 128 bytes, booleans, nulls and numbers come out as written. */
static void json_wide_rows_and_long_texts_come_out_as_written(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "[");
	for (int row = 0; row < 3; row++) {
		buf_puts(&b, row ? ",\n{" : "{");
		for (int k = 0; k < 200; k++)
			buf_printf(&b, "%s\"k%d\": %d.5", k ? ", " : "", k, row * 1000 + k);
		buf_puts(&b, ", \"note\": \"");
		for (int k = 0; k < 300; k++)
			buf_putc(&b, (char)('a' + (row + k) % 26));
		buf_puts(&b, "\", \"ok\": true, \"none\": null}");
	}
	buf_puts(&b, "]\n");
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "wide.json", buf_data(&b), &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "");
	const struct series *s = run_series(r, "rows");
	assert_int_equal(series_column_count(s), 203);
	assert_int_equal(series_row_count(s), 3);
	check_cell(s, 2, "k150", DATUM_NUMBER, "2150.5");
	assert_true(cell_num(s, 2, "k199") == 2199.5);
	check_cell(s, 1, "ok", DATUM_NUMBER, "true");
	check_cell(s, 1, "none", DATUM_MISSING, "null");
	struct datum d;
	series_cell(s, 1, (size_t)series_column_index(s, "note"), &d);
	assert_int_equal(d.kind, DATUM_STRING);
	assert_int_equal(d.len, 300);
	assert_memory_equal(d.text, "bcdefghijklmnopqrstuvwxyzab", 27);
	assert_int_equal(series_row_line(s, 2), 3);
	run_free(r);
	cap_close(&c);
	buf_free(&b);
}

/* Everything a reader gives: ok, the diagnostics, the line count, the
 * fields and every cell of every series.  Caller frees. */
static char *read_all(enum format f, const char *path, const char *shown)
{
	struct capture c;
	cap_open(&c);
	struct run *r = run_new("r", shown, "test");
	bool ok = read_as(f, r, path, shown, c.d);
	struct buf b = BUF_INIT;
	buf_printf(&b, "ok %d\n%slines %ld\n", ok, cap_text(&c), run_line_count(r));
	for (size_t i = 0; i < run_field_count(r); i++) {
		const struct datum *d = run_field_at(r, i);
		buf_printf(&b, "%s: %d %.17g [%.*s] %ld\n", run_field_name(r, i), (int)d->kind, d->num,
			   d->text ? (int)d->len : 0, d->text ? d->text : "", d->line);
	}
	for (size_t i = 0; i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		buf_printf(&b, "series %s:", series_name(s));
		for (size_t k = 0; k < series_column_count(s); k++)
			buf_printf(&b, " %s", series_column(s, k));
		for (size_t row = 0; row < series_row_count(s); row++) {
			buf_printf(&b, "\n  %ld:", series_row_line(s, row));
			for (size_t k = 0; k < series_column_count(s); k++) {
				struct datum d;
				series_cell(s, row, k, &d);
				buf_printf(&b, " %d %.17g [%.*s]", (int)d.kind, d.num,
					   d.text ? (int)d.len : 0, d.text ? d.text : "-");
			}
		}
		buf_putc(&b, '\n');
	}
	run_free(r);
	cap_close(&c);
	return buf_detach(&b);
}

/* JSON and CSV are read through a buffer refilled as they go: with the
 * refills made 1, 2, 3, 7 or 64 bytes (LOGDOWN_TEST_CHUNK), every token,
 * escape, quoted line break, CRLF and byte order mark straddles one
 * somewhere, and nothing read or reported may change. */
static void chunk_size_changes_nothing(void **state)
{
	(void)state;
	static const struct {
		enum format f;
		const char *text;
	} cases[] = {
		{JSON, "{\n  \"model\": \"llama-7b\",\n  \"final_loss\": 7.12500,\n  \"ok\": true,\n"
		       "  \"note\": null,\n  \"steps\": [\n    {\"step\": 100, \"loss\": 9.39062},\n"
		       "    {\"step\": 200, \"loss\": 7.125, \"lr\": 1e-4, \"gpu\": {\"util\": 98}}\n"
		       "  ]\n}\n"},
		{JSON, "\xEF\xBB\xBF[1, -2.5e+3, NaN, Infinity, -Infinity, -0, true, false, null]"},
		{JSON, "\r\n[\r\n  [1, 2],\r\n  [3, 4, 5]\r\n]\r\n"},
		{JSON, "{\"s\": \"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti \\u00e9\\u4e2d "
		       "\\ud83d\\ude00 \\ud800x \\udc00\"}"},
		{JSON, "{\"long\": \"0123456789012345678901234567890123456789012345678901234567890123"
		       "456789012345678901234567890123456789\", \"n\": "
		       "1234567890123456789012345678901234567890123456789012345678901234567890.5e-7}"},
		{JSON, "[{\"a\": [1]}, {\"a\": 2}, 3, {\"b\": {\"c\": [4]}}]"},
		{JSON, "[1, 2\n\n   \n"},
		{JSON, "{\"a\": 1,\n}"},
		{JSON, "{\"a\" 1}"},
		{JSON, "[\"abc\n\"]"},
		{JSON, "[\"ab\\"},
		{JSON, "[\"ab\\q\"]"},
		{JSON, "[\"\\u12x4\"]"},
		{JSON, "[\"\\ud83d\\u12\"]"},
		{JSON, "[01]"},
		{JSON, "[1.e5]"},
		{JSON, "[-Inf]"},
		{JSON, "[nul]"},
		{JSON, "[nullx]"},
		{JSON, "[\xC3\xA9]"},
		{JSON, "[1] 2"},
		{JSON, "[[[[[[[[[["},
		{JSON, "   \n  "},
		{JSON, ""},
		{JSON, "\xEF\xBB\xBF"},
		{JSON, "{\"a\": \"unclosed"},
		{CSV, "a,b\n1,2\n"},
		{CSV, "\xEF\xBB\xBF step , Loss (%) ,,step\r\n 1 , 2.5 , x , 4\r\n\r\n  \n3,4,5,6"},
		{CSV, "a,b\n\"x\ny\",\"q\"\"r\"\n\"one\r\ntwo\" , \"\"\n"},
		{CSV, "a,b\n1\r2,3\r\n4,5\r"},
		{CSV, "a,b\n\"x\"y,2\n1,2,3\n4\n\"ok\",5\n"},
		{CSV, "a,b\n\"never closed,2\n3,4\n"},
		{CSV, "a,b\n1,\"0123456789012345678901234567890123456789012345678901234567890123"
		      "456789012345678901234567890123456789\"\n"},
		{CSV, "\n\n  \n"},
		{CSV, ""},
		{CSV, "only"},
	};
	static const char *const sizes[] = {"1", "2", "3", "7", "64"};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		const char *name = cases[i].f == JSON ? "c.json" : "c.csv";
		char *path = path_join(tmpdir, name);
		assert_true(file_write(path, cases[i].text, strlen(cases[i].text)));
		unsetenv("LOGDOWN_TEST_CHUNK");
		char *want = read_all(cases[i].f, path, name);
		for (size_t k = 0; k < ARRAY_LEN(sizes); k++) {
			setenv("LOGDOWN_TEST_CHUNK", sizes[k], 1);
			char *got = read_all(cases[i].f, path, name);
			if (strcmp(got, want) != 0)
				fail_msg("case %zu, refills of %s bytes:\n%s\ninstead of\n%s", i,
					 sizes[k], got, want);
			free(got);
		}
		unsetenv("LOGDOWN_TEST_CHUNK");
		free(want);
		free(path);
	}
}

/* A few of the cases above, as they must read (so that the comparison
 * is not between two equally wrong readings). */
static void streamed_reading_is_exact_at_the_edges(void **state)
{
	(void)state;
	setenv("LOGDOWN_TEST_CHUNK", "1", 1);
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(CSV, "e.csv", "\xEF\xBB\xBF" "a,b\r\n\"x\r\ny\",\"q\"\"r\"\r\n3, 4 \r\n", &c,
			     &ok);
	assert_true(ok);
	assert_int_equal(run_line_count(r), 4);
	const struct series *s = run_series(r, "rows");
	check_columns(s, "a,b");
	assert_int_equal(series_row_count(s), 2);
	check_cell(s, 0, "a", DATUM_STRING, "x\r\ny");
	check_cell(s, 0, "b", DATUM_STRING, "q\"r");
	check_cell(s, 1, "b", DATUM_NUMBER, "4");
	assert_int_equal(series_row_line(s, 1), 4);
	run_free(r);
	r = load(JSON, "e.json", "{\"s\": \"\\ud83d\\ude00\\u00e9\", \"n\": 1.5e-3}\n[", &c, &ok);
	assert_false(ok);
	check_field(r, "s", DATUM_STRING, "\xF0\x9F\x98\x80\xC3\xA9", 1);
	check_field(r, "n", DATUM_NUMBER, "1.5e-3", 1);
	assert_int_equal(run_line_count(r), 2);
	assert_string_equal(cap_text(&c),
			    "e.json:2:1: error: malformed JSON: expected the end of the file after "
			    "the JSON value, found '['\n"
			    "    2 | [\n"
			    "      | ^\n");
	run_free(r);
	cap_close(&c);
	unsetenv("LOGDOWN_TEST_CHUNK");
}

/* JSON Lines (an object on each line, as loggers append them) is the
 * series rows, each line a row at its line; a pretty-printed object is
 * still one document. */
static void json_lines_are_rows_of_one_series(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "m.jsonl.json",
			     "{\"step\": 1, \"loss\": 2.50, \"tag\": \"a\\nb\"}\n"
			     "{\"step\": 2, \"loss\": 2.1, \"lr\": {\"now\": 0.1}}\r\n"
			     "\n"
			     "  {\"step\": 3, \"loss\": null}\n",
			     &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(run_field_count(r), 0);
	const struct series *s = run_series(r, "rows");
	check_columns(s, "step,loss,tag,lr.now");
	assert_int_equal(series_row_count(s), 3);
	check_cell(s, 0, "loss", DATUM_NUMBER, "2.50");
	check_cell(s, 0, "tag", DATUM_STRING, "a\nb");
	check_cell(s, 1, "lr.now", DATUM_NUMBER, "0.1");
	check_cell(s, 2, "lr.now", DATUM_MISSING, "");
	assert_int_equal(series_row_line(s, 2), 4);
	assert_int_equal(run_line_count(r), 4);
	run_free(r);
	/* A bad line is a warning at its place, and only it is lost. */
	r = load(JSON, "b.json", "{\"step\": 1}\n{\"step\": 2,}\n{\"step\": 3}\n", &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "b.json:2:12: warning: malformed JSON: expected a key in double quotes "
			    "(no comma after the last member), found '}'; line 2 is left out\n"
			    "    2 | {\"step\": 2,}\n"
			    "      |            ^\n");
	assert_int_equal(series_row_count(run_series(r, "rows")), 2);
	assert_int_equal(series_row_line(run_series(r, "rows"), 1), 3);
	run_free(r);
	cap_close(&c);
	/* Pretty-printed: '{' alone on the first line, one document. */
	cap_open(&c);
	r = load(JSON, "p.json", "{\n  \"a\": 1\n}\n", &c, &ok);
	assert_true(ok);
	check_field(r, "a", DATUM_NUMBER, "1", 2);
	assert_int_equal(run_series_count(r), 0);
	run_free(r);
	cap_close(&c);
}

/* A JSON Lines file with malformed lines (one cut short by a crash, an
 * unclosed object, text after the value): each is one warning at its
 * line and column, the line is left out, the lines before and after
 * are rows.  A .jsonl file is JSON Lines even when its first line is the
 * bad one or its only one. */
static void jsonl_malformed_lines_are_left_out_with_a_warning(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(JSON, "t.jsonl",
			     "{\"step\": 1, \"loss\": 2.5\n"
			     "{\"step\": 2, \"loss\": 2.1}\n"
			     "\n"
			     "{\"step\": 3, \"loss\": 1.9} x\n"
			     "{\"step\": 4, \"loss\": 1.7}\r\n"
			     "{\"step\": 5, \"lo",
			     &c, &ok);
	assert_true(ok);
	assert_string_equal(
		cap_text(&c),
		"t.jsonl:1:24: warning: malformed JSON: expected ',' or '}', found the end of the "
		"line; line 1 is left out\n"
		"    1 | {\"step\": 1, \"loss\": 2.5\n"
		"      |                        ^\n"
		"t.jsonl:4:26: warning: malformed JSON: expected the end of the line after the JSON "
		"value, found 'x'; line 4 is left out\n"
		"    4 | {\"step\": 3, \"loss\": 1.9} x\n"
		"      |                          ^\n"
		"t.jsonl:6:13: warning: malformed JSON: a string that is never closed (a string ends "
		"on its own line with '\"'); line 6 is left out\n"
		"    6 | {\"step\": 5, \"lo\n"
		"      |             ^\n");
	const struct series *s = run_series(r, "rows");
	check_columns(s, "step,loss");
	assert_int_equal(series_row_count(s), 2);
	check_cell(s, 0, "loss", DATUM_NUMBER, "2.1");
	assert_int_equal(series_row_line(s, 0), 2);
	check_cell(s, 1, "step", DATUM_NUMBER, "4");
	assert_int_equal(series_row_line(s, 1), 5);
	assert_int_equal(run_line_count(r), 6);
	run_free(r);
	cap_close(&c);
	/* One line: still a row. */
	cap_open(&c);
	r = load(JSON, "one.ndjson", "{\"acc\": 0.91}\n", &c, &ok);
	assert_true(ok);
	assert_int_equal(run_field_count(r), 0);
	check_cell(run_series(r, "rows"), 0, "acc", DATUM_NUMBER, "0.91");
	run_free(r);
	cap_close(&c);
	/* Ten bad lines are shown, the rest counted in one warning. */
	cap_open(&c);
	struct buf text = BUF_INIT;
	for (int i = 0; i < 14; i++)
		buf_puts(&text, i == 7 ? "{\"ok\": 1}\n" : "{bad}\n");
	r = load(JSON, "many.jsonl", buf_data(&text), &c, &ok);
	buf_free(&text);
	assert_true(ok);
	assert_int_equal(diag_warnings(c.d), 11);
	assert_non_null(strstr(cap_text(&c), "many.jsonl:11:2: warning: malformed JSON"));
	assert_non_null(strstr(cap_text(&c), "many.jsonl:12: warning: 3 more malformed lines, "
					     "from this one on, were left out\n"));
	assert_null(strstr(cap_text(&c), "many.jsonl:12:2:"));
	assert_int_equal(series_row_count(run_series(r, "rows")), 1);
	run_free(r);
	cap_close(&c);
}

/* A file bigger than 4 MiB is never held whole: read from the disk, its
 * diagnostics give line and column but do not quote the line, except
 * a short first line, which is at hand. */
static void big_file_diagnostics_quote_only_the_first_line(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "step,loss\n");
	for (int i = 0; i < 600000; i++)
		buf_printf(&b, "%d,%d.5\n", i, i % 10);
	buf_puts(&b, "7,8,9\n\"a\"b,1\n");
	char *path = path_join(tmpdir, "big.csv");
	assert_true(file_write(path, buf_data(&b), b.len));
	struct capture c;
	cap_open(&c);
	struct run *r = run_new("r", "big.csv", "test");
	assert_true(structured_read_csv(r, path, "big.csv", c.d));
	assert_string_equal(cap_text(&c),
			    "big.csv:600002:5: warning: this row has 3 cells, but the header (line "
			    "1) has 2; the row is left out\n"
			    "big.csv:600003:4: warning: text after the closing quote of a cell (write a "
			    "quote inside a quoted cell as \"\"); the row is left out\n");
	const struct series *s = run_series(r, "rows");
	assert_int_equal(series_row_count(s), 600000);
	check_cell(s, 599999, "loss", DATUM_NUMBER, "9.5");
	assert_int_equal(run_line_count(r), 600003);
	run_free(r);
	cap_close(&c);

	buf_clear(&b);
	buf_puts(&b, "[\n");
	for (int i = 0; i < 300000; i++)
		buf_printf(&b, "%s  {\"step\": %d}", i ? ",\n" : "", i);
	buf_puts(&b, "\n\n");
	free(path);
	path = path_join(tmpdir, "big.json");
	assert_true(file_write(path, buf_data(&b), b.len));
	cap_open(&c);
	r = run_new("r", "big.json", "test");
	assert_false(structured_read_json(r, path, "big.json", c.d));
	assert_string_equal(cap_text(&c),
			    "big.json:300001:19: error: malformed JSON: expected ',' or ']', found "
			    "the end of the file\n"
			    "big.json:1:1: note: the array that is not closed starts here\n"
			    "    1 | [\n"
			    "      | ^\n");
	assert_int_equal(run_line_count(r), 300002);
	run_free(r);
	cap_close(&c);
	buf_free(&b);
	free(path);
}

static void missing_file_is_reported_with_strerror(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct run *r = run_new("x", "nope.csv", "csv");
	char *path = path_join(tmpdir, "nope.csv");
	assert_false(structured_read_csv(r, path, "logs/nope.csv", c.d));
	assert_false(structured_read_json(r, path, "logs/nope.json", c.d));
	assert_string_equal(cap_text(&c),
			    "logs/nope.csv: error: cannot read: No such file or directory\n"
			    "logs/nope.json: error: cannot read: No such file or directory\n");
	free(path);
	run_free(r);
	cap_close(&c);
}

static void snake_case_lowers_and_joins_with_underscores(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{"end-to-end latency (ms)", "end_to_end_latency_ms"},
		{"Avg Rate (samples/sec)", "avg_rate_samples_sec"},
		{"  Source  ", "source"},
		{"On-chip IPS", "on_chip_ips"},
		{"time_ns", "time_ns"},
		{"__x__y__", "x_y"},
		{"Latency (\xC2\xB5s)", "latency_s"},
		{"%", "pct"},
		{"Time (%)", "time_pct"},
		{"GPU util %", "gpu_util_pct"},
		{"", ""},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *s = snake_case(cases[i][0], strlen(cases[i][0]));
		assert_string_equal(s, cases[i][1]);
		free(s);
	}
	/* len, not the NUL, ends the text. */
	char *s = snake_case("Batch Size,x", 10);
	assert_string_equal(s, "batch_size");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_fixture_objects_become_dotted_fields),
		cmocka_unit_test(json_fixture_lists_of_objects_become_series),
		cmocka_unit_test(csv_fixture_header_names_the_columns_of_rows),
		cmocka_unit_test(yaml_fixture_reads_like_json),
		cmocka_unit_test(json_null_is_missing_and_booleans_are_one_and_zero),
		cmocka_unit_test(json_columns_are_the_union_of_keys_in_first_seen_order),
		cmocka_unit_test(json_list_of_scalars_has_the_column_value),
		cmocka_unit_test(json_list_of_lists_has_columns_c1_c2),
		cmocka_unit_test(json_list_inside_a_row_is_left_out_with_a_warning),
		cmocka_unit_test(json_top_level_list_is_rows_and_scalar_is_value),
		cmocka_unit_test(json_nested_list_is_named_by_its_key_path),
		cmocka_unit_test(json_list_of_100k_objects_reads_in_linear_time),
		cmocka_unit_test(json_escapes_and_surrogate_pairs_are_decoded),
		cmocka_unit_test(json_nan_and_infinity_are_numbers),
		cmocka_unit_test(json_repeated_key_keeps_the_last),
		cmocka_unit_test(json_missing_comma_is_reported_at_its_place),
		cmocka_unit_test(json_trailing_comma_is_an_error),
		cmocka_unit_test(json_unclosed_array_names_where_it_starts),
		cmocka_unit_test(json_unclosed_string_is_reported_at_its_quote),
		cmocka_unit_test(json_bad_words_and_numbers_are_errors),
		cmocka_unit_test(json_empty_file_is_an_error),
		cmocka_unit_test(json_nesting_is_capped),
		cmocka_unit_test(json_byte_order_mark_is_skipped),
		cmocka_unit_test(yaml_syntax_error_is_reported_at_its_line),
		cmocka_unit_test(yaml_block_scalar_stays_text),
		cmocka_unit_test(csv_quotes_crlf_and_line_breaks_in_cells),
		cmocka_unit_test(csv_header_names_are_made_unique),
		cmocka_unit_test(csv_byte_order_mark_is_not_part_of_the_header),
		cmocka_unit_test(csv_header_alone_gives_no_rows),
		cmocka_unit_test(csv_row_with_too_many_cells_is_reported_at_the_first_extra),
		cmocka_unit_test(csv_row_with_too_few_cells_is_reported_at_its_end),
		cmocka_unit_test(csv_unterminated_quote_is_reported_at_the_quote),
		cmocka_unit_test(csv_text_after_a_closing_quote_leaves_the_row_out),
		cmocka_unit_test(csv_delimiter_reads_tsv_and_pipes),
		cmocka_unit_test(csv_columns_name_a_headerless_file),
		cmocka_unit_test(csv_options_are_checked_where_written),
		cmocka_unit_test(json_wide_rows_and_long_texts_come_out_as_written),
		cmocka_unit_test(chunk_size_changes_nothing),
		cmocka_unit_test(streamed_reading_is_exact_at_the_edges),
		cmocka_unit_test(json_lines_are_rows_of_one_series),
		cmocka_unit_test(jsonl_malformed_lines_are_left_out_with_a_warning),
		cmocka_unit_test(big_file_diagnostics_quote_only_the_first_line),
		cmocka_unit_test(missing_file_is_reported_with_strerror),
		cmocka_unit_test(snake_case_lowers_and_joins_with_underscores),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
