/* test_delimited.c: a table's `delimiter` (scantable.c): rows of cells
 * apart by ',', ';', '|' or a tab, with CSV quoting, as nvidia-smi
 * --format=csv and nsys stats --format csv print them into a log. */
#define _XOPEN_SOURCE 700 /* nftw() */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "data/run.h"
#include "parse/logparse.h"
#include "capture.h"

#define TMPDIR_TAG "delimited"
#include "tmpdirs.h"

static bool add_def(struct parser_set *set, struct capture *c, const char *yaml)
{
	diag_add_source(c->d, "p.yaml", yaml, strlen(yaml));
	return parsers_add(set, "p.yaml", yaml, strlen(yaml), false, c->d);
}

static void expect_def_errors(const char *yaml, const char *want)
{
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_new();
	assert_false(add_def(set, &c, yaml));
	assert_string_equal(cap_text(&c), want);
	parsers_free(set);
	cap_close(&c);
}

/* Runs the definition over the log text (as the file "a.log"). */
static struct run *run_text(struct capture *c, struct parser_set **set, const char *yaml,
			    const char *text)
{
	cap_open(c);
	*set = parsers_new();
	assert_true(add_def(*set, c, yaml));
	char *dir = make_tmpdir();
	char *path = xasprintf("%s/a.log", dir);
	assert_true(file_write(path, text, strlen(text)));
	diag_add_source(c->d, "a.log", text, strlen(text));
	struct run *r = parser_run(parsers_at(*set, 0), path, "a.log", "r", c->d);
	free(path);
	return r; /* the folder goes at the group's end: diagnostics quote the log */
}

static void assert_cell(const struct series *s, size_t row, const char *col, const char *text)
{
	long j = series_column_index(s, col);
	if (j < 0)
		fail_msg("no column '%s'", col);
	struct datum d;
	series_cell(s, row, (size_t)j, &d);
	if (!text) {
		if (d.kind != DATUM_MISSING)
			fail_msg("row %zu, %s: '%.*s', wanted nothing", row, col, (int)d.len,
				 d.text);
		return;
	}
	if (!d.text || d.len != strlen(text) || memcmp(d.text, text, d.len) != 0)
		fail_msg("row %zu, %s: '%.*s', wanted '%s'", row, col, (int)d.len,
			 d.text ? d.text : "", text);
}

static double num_cell(const struct series *s, size_t row, const char *col)
{
	long j = series_column_index(s, col);
	if (j < 0)
		fail_msg("no column '%s'", col);
	struct datum d;
	series_cell(s, row, (size_t)j, &d);
	if (d.kind != DATUM_NUMBER)
		fail_msg("row %zu, %s: '%.*s' is not a number", row, col, (int)d.len, d.text);
	return d.num;
}

static void done(struct capture *c, struct parser_set *set, struct run *r)
{
	run_free(r);
	parsers_free(set);
	cap_close(c);
}

/* nsys stats --format csv: a title line, a blank line, the quoted
 * header, rows whose names hold commas and quotes. */
static void csv_rows_after_a_title_keep_quoted_commas(void **state)
{
	(void)state;
	static const char def[] =
		"name: k\n"
		"tables:\n"
		"  kernels:\n"
		"    header: 'Processing \\[.*cuda_gpu_kern_sum'\n"
		"    delimiter: ','\n"
		"    columns: { time_pct: Time (%), total_ns: Total Time (ns), calls: Instances }\n";
	static const char log[] =
		"Processing [r.sqlite] with [/opt/nsys/cuda_gpu_kern_sum.py]... \n"
		"\n"
		"\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Name\"\n"
		"98.5,1234,\"2,000\",\"void foo<int, 3>(float *, \"\"x\"\")\"\n"
		"1.5,20,1,bar\n"
		"\n"
		"1.5,20,1,not a row\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_text(&c, &set, def, log);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *k = run_series(r, "kernels");
	assert_int_equal(series_row_count(k), 2);
	assert_string_equal(series_column(k, 3), "name");
	assert_int_equal(series_row_line(k, 0), 4);
	assert_cell(k, 0, "name", "void foo<int, 3>(float *, \"x\")");
	assert_true(num_cell(k, 0, "calls") == 2000);
	assert_true(num_cell(k, 1, "time_pct") == 1.5);
	assert_cell(k, 1, "name", "bar");
	done(&c, set, r);
}

/* nvidia-smi --query-gpu ... --format=csv: ", " between cells, units
 * typed, [N/A] missing; a row with more cells than the header is left
 * out with a warning at its line, the rows around it kept. */
static void csv_header_on_the_matched_line_and_a_long_row_warned(void **state)
{
	(void)state;
	static const char def[] = "name: q\n"
				  "tables:\n"
				  "  gpus:\n"
				  "    header: '^index, name'\n"
				  "    delimiter: ','\n"
				  "    types: { memory_used_mib: number }\n";
	static const char log[] = "index, name, memory.used [MiB]\n"
				  "0, NVIDIA A100-SXM4-40GB, 1234 MiB\n"
				  "1, NVIDIA A100-SXM4-40GB, 3, 4\n"
				  "2, NVIDIA A100-SXM4-40GB, [N/A]\n"
				  "Done.\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_text(&c, &set, def, log);
	assert_non_null(r);
	assert_string_equal(cap_text(&c),
			    "a.log:3: warning: table 'gpus': this row has 4 cells but its header "
			    "has 3; the row is left out\n"
			    "    3 | 1, NVIDIA A100-SXM4-40GB, 3, 4\n");
	const struct series *g = run_series(r, "gpus");
	assert_int_equal(series_row_count(g), 2);
	assert_true(num_cell(g, 0, "memory_used_mib") == 1234);
	assert_cell(g, 0, "memory_used_mib", "1234 MiB");
	assert_cell(g, 1, "name", "NVIDIA A100-SXM4-40GB");
	assert_cell(g, 1, "memory_used_mib", NULL);
	assert_int_equal(series_row_line(g, 1), 4);
	done(&c, set, r);
}

/* A tab and a '|' delimiter; blank cells are missing. */
static void tab_and_bar_delimiters(void **state)
{
	(void)state;
	static const char def[] = "name: t\n"
				  "tables:\n"
				  "  a: { header: '^step\\t', delimiter: '\\t' }\n"
				  "  b: { header: '^JobID\\|', delimiter: '|' }\n";
	static const char log[] = "step\tloss\tnote\n"
				  "1\t0.5\t\n"
				  "2\t0.25\tok, done\n"
				  "\n"
				  "JobID|State|ExitCode\n"
				  "123|COMPLETED|0:0\n"
				  "123.batch|\"FAILED|X\"|1:0\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_text(&c, &set, def, log);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *a = run_series(r, "a");
	assert_int_equal(series_row_count(a), 2);
	assert_cell(a, 0, "note", NULL);
	assert_cell(a, 1, "note", "ok, done");
	assert_true(num_cell(a, 1, "loss") == 0.25);
	const struct series *b = run_series(r, "b");
	assert_int_equal(series_row_count(b), 2);
	assert_cell(b, 1, "state", "FAILED|X");
	assert_cell(b, 1, "exitcode", "1:0");
	done(&c, set, r);
}

/* A quote left open takes the rest of the line; text after a closing
 * quote is not CSV and is left out of its cell. */
static void open_quotes_do_not_crash_or_spill(void **state)
{
	(void)state;
	static const char def[] = "name: q\n"
				  "tables:\n"
				  "  t: { header: '^a,b', delimiter: ',' }\n";
	static const char log[] = "a,b,c\n"
				  "1,\"x\"y,3\n"
				  "2,\"open, to the end\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_text(&c, &set, def, log);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *t = run_series(r, "t");
	assert_int_equal(series_row_count(t), 2);
	assert_cell(t, 0, "b", "x");
	assert_cell(t, 0, "c", "3");
	assert_cell(t, 1, "b", "open, to the end");
	assert_cell(t, 1, "c", NULL);
	done(&c, set, r);
}

static void a_bad_delimiter_is_an_error_at_its_place(void **state)
{
	(void)state;
	expect_def_errors("tables:\n"
			  "  t: { header: '^x', delimiter: ', ' }\n",
			  "p.yaml:2:33: error: the delimiter of table 't' is ',', ';', '|' or "
			  "'\\t' (a tab), not ', '\n"
			  "    2 |   t: { header: '^x', delimiter: ', ' }\n"
			  "      |                                 ^~~~\n");
	expect_def_errors("tables:\n"
			  "  t: { header: '^x', delimiter: [','] }\n",
			  "p.yaml:2:33: error: the delimiter of table 't' is ',', ';', '|' or "
			  "'\\t' (a tab), not a list\n"
			  "    2 |   t: { header: '^x', delimiter: [','] }\n"
			  "      |                                 ^~~~~\n");
	expect_def_errors("tables:\n"
			  "  t: { header: '^x', delimitr: ',' }\n",
			  "p.yaml:2:22: error: unknown key 'delimitr' in table 't' (did you mean "
			  "'delimiter'?)\n"
			  "    2 |   t: { header: '^x', delimitr: ',' }\n"
			  "      |                      ^~~~~~~~\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(csv_rows_after_a_title_keep_quoted_commas),
		cmocka_unit_test(csv_header_on_the_matched_line_and_a_long_row_warned),
		cmocka_unit_test(tab_and_bar_delimiters),
		cmocka_unit_test(open_quotes_do_not_crash_or_spill),
		cmocka_unit_test(a_bad_delimiter_is_an_error_at_its_place),
	};
	return cmocka_run_group_tests(tests, NULL, drop_leftovers);
}
