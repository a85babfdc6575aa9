/* test_jsonbench.c: the JSON result built-ins (gbench-json, hyperfine-json,
 * vllm-bench-json) and perf-stat's per-file number style, on the real
 * published files of tests/corpus/<parser>/ (their SOURCES say where each
 * came from): the values, texts and line numbers a report shows, and the
 * parser keys they use (leave_out, number_style from:) with their
 * diagnostics.  The helpers are test_benchparsers.c's.  The tests run from
 * the repository's root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "parse/logparse.h"
#include "data/run.h"
#include "capture.h"

#define CORPUS "tests/corpus/"

#include "builtincheck.h"


/* No warning was said while the current test ran. */
static size_t warnings_before;
static void no_new_warnings(const char *file, int at)
{
	if (diag_warnings(quiet.d) != warnings_before) {
		print_error("warnings were said:\n%s\n", said());
		_fail(file, at);
	}
}
#define NO_WARNINGS() no_new_warnings(__FILE__, __LINE__)
#define WATCH() (warnings_before = diag_warnings(quiet.d))

/* A file of `text` in a fresh temporary folder; the caller removes both. */
static char *temp_file(const char *name, const char *text)
{
	char tmpl[] = "/tmp/logdown-jsonbench-XXXXXX";
	char *dir = mkdtemp(tmpl);
	assert_non_null(dir);
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = malloc(n);
	assert_non_null(path);
	snprintf(path, n, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void temp_remove(char *path)
{
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	free(path);
}

static void gbench_json_reads_the_context_and_every_result(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "gbench-json/simd-exploration-auto-vec.json", "gbench-json");
	STR(r, "context.date", "2024-05-02T09:30:37+01:00", 3);
	NUM(r, "context.num_cpus", 4, "4", 6);
	NUM(r, "context.mhz_per_cpu", 1800, "1800", 7);
	STR(r, "context.library_build_type", "release", 37);
	/* a JSON row is at the line its object starts, each cell at its
	 * field's line */
	const struct series *s = SERIES(r, "benchmarks", 4);
	assert_int_equal(series_row_line(s, 0), 41);
	STR_CELL(s, 0, "run_type", "iteration", 46);
	NUM_CELL(s, 0, "iterations", 1986354156.0, "1986354156", 50);
	NUM_CELL(s, 0, "real_time", 0.35172534056940363, "3.5172534056940363e-01", 51);
	STR_CELL(s, 0, "time_unit", "ns", 53);
	MISSING_CELL(s, 0, "aggregate_name");
	STR_CELL(s, 3, "aggregate_name", "cv", 92);
	NUM_CELL(s, 3, "cpu_time", 8.6963586363983138e-03, "8.6963586363983138e-03", 96);
	s = SERIES(r, "context.caches", 4);
	NUM_CELL(s, 3, "size", 3145728, "3145728", 31);
	NO_WARNINGS();
}

static void hyperfine_json_leaves_the_per_run_lists_out_quietly(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "hyperfine-json/linode-docs-binary-tree.json", "hyperfine-json");
	const struct series *s = SERIES(r, "results", 2);
	COLUMNS(s, "command", "mean", "stddev", "median", "user", "system", "min", "max");
	STR_CELL(s, 0, "command", "./binary-tree.pl 10", 4);
	NUM_CELL(s, 0, "mean", 0.05719516349499999, "0.05719516349499999", 5);
	NUM_CELL(s, 1, "max", 0.068906813115, "0.068906813115", 73);
	NO_WARNINGS();
}

/* The json parser, for files nobody described, still says what it left
 * out; a parser's leave_out names only the lists it knows. */
static void lists_a_parser_does_not_name_are_still_warned_about(void **state)
{
	(void)state;
	const char *path = CORPUS "hyperfine-json/linode-docs-binary-tree.json";
	struct capture c;
	cap_open(&c);
	struct run *r = parser_run(parsers_find(builtins, "json"), path, path, "r", c.d);
	assert_non_null(r);
	assert_int_equal(series_row_count(run_series(r, "results")), 2);
	assert_string_equal(cap_text(&c),
			    "tests/corpus/hyperfine-json/linode-docs-binary-tree.json:12:16: "
			    "warning: 'results.times': a list inside a row cannot be a cell and is "
			    "left out (logdown reads lists of objects, of values and of lists of "
			    "values)\n"
			    "   12 |       \"times\": [\n"
			    "      |                ^\n");
	run_free(r);
	cap_close(&c);

	static const char def[] = "name: hf\n"
				  "format: json\n"
				  "extensions: []\n"
				  "leave_out: [results.times]\n";
	char *file = temp_file("h.json", "{\"results\": [\n"
					 "  {\"command\": \"a\", \"times\": [1, 2],\n"
					 "   \"exit_codes\": [0, 0]}\n"
					 "]}\n");
	cap_open(&c);
	struct parser_set *set = parsers_new();
	diag_add_source(c.d, "p.yaml", def, strlen(def));
	assert_true(parsers_add(set, "p.yaml", def, strlen(def), false, c.d));
	r = parser_run(parsers_at(set, 0), file, "h.json", "r", c.d);
	assert_non_null(r);
	assert_string_equal(cap_text(&c),
			    "h.json:3:18: warning: 'results.exit_codes': a list inside a row cannot "
			    "be a cell and is left out (logdown reads lists of objects, of values and "
			    "of lists of values)\n"
			    "    3 |    \"exit_codes\": [0, 0]}\n"
			    "      |                  ^\n");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
	temp_remove(file);
}

static void hyperfine_json_cut_short_is_a_syntax_error_at_its_end(void **state)
{
	(void)state;
	char *file = temp_file("cut.json", "{\n"
					    "  \"results\": [\n"
					    "    {\n"
					    "      \"command\": \"sleep 0.3\",\n"
					    "      \"mean\": 0.31244138584000003,\n"
					    "      \"stddev\": 0.00108");
	struct capture c;
	cap_open(&c);
	const struct parser *p = parsers_detect(builtins, file, loc_line(file, 0), c.d);
	assert_non_null(p);
	assert_string_equal(parser_name(p), "hyperfine-json");
	assert_null(parser_run(p, file, "cut.json", "r", c.d));
	assert_string_equal(cap_text(&c),
			    "cut.json:6:24: error: malformed JSON: expected ',' or '}', found the "
			    "end of the file\n"
			    "    6 |       \"stddev\": 0.00108\n"
			    "      |                        ^\n"
			    "cut.json:3:5: note: the object that is not closed starts here\n"
			    "    3 |     {\n"
			    "      |     ^\n");
	cap_close(&c);
	temp_remove(file);
}

static void vllm_bench_json_reads_the_saved_summary(void **state)
{
	(void)state;
	WATCH();
	struct run *r =
		PARSE(CORPUS "vllm-bench-json/moguizhizi-qwen2.5-vl-72b-910b3.json", "vllm-bench-json");
	STR(r, "backend", "openai-chat", 3);
	NUM(r, "num_prompts", 1, "1", 8);
	NUM(r, "mean_ttft_ms", 327.18002423644066, "327.18002423644066", 23);
	MISSING(r, "max_concurrency");
	/* json.dump's one line */
	r = PARSE(CORPUS "vllm-bench-json/moguizhizi-qwen2.5-vl-72b-32-prompts-oneline.json",
		  "vllm-bench-json");
	NUM(r, "num_prompts", 32, "32", 1);
	NUM(r, "p99_tpot_ms", 516.0996965353074, "516.0996965353074", 1);
	NO_WARNINGS();
}

/* Saved with its per-request details, vLLM writes the lists before the
 * mean_ and p99_ keys: each list is a series of its name, quietly. */
static void vllm_bench_json_per_request_lists_are_series(void **state)
{
	(void)state;
	char *file = temp_file("r.json",
			       "{\"date\": \"20240611-101500\", \"backend\": \"vllm\", \"duration\": 2.5, "
			       "\"completed\": 2, \"request_throughput\": 0.8, \"input_lens\": [12, 30], "
			       "\"output_lens\": [4, 3], \"ttfts\": [0.031, 0.047], \"itls\": [[0.012, "
			       "0.011, 0.013], [0.015, 0.014]], \"generated_texts\": [\"a b c d\", \"e f "
			       "g\"], \"errors\": [\"\", \"\"], \"mean_ttft_ms\": 39.0}\n");
	WATCH();
	struct run *r = PARSE(file, "vllm-bench-json");
	NUM(r, "request_throughput", 0.8, "0.8", 1);
	NUM(r, "mean_ttft_ms", 39.0, "39.0", 1);
	const struct series *s = SERIES(r, "ttfts", 2);
	NUM_CELL(s, 1, "value", 0.047, "0.047", 1);
	s = SERIES(r, "itls", 2);
	COLUMNS(s, "c1", "c2", "c3");
	MISSING_CELL(s, 1, "c3");
	s = SERIES(r, "generated_texts", 2);
	STR_CELL(s, 0, "value", "a b c d", 1);
	NO_WARNINGS();
	free_current(NULL);
	temp_remove(file);
}

/* perf stat under de_DE: the elapsed line's "0,254132990" tells the file
 * writes decimal commas, so "4.595.014.128" is 4595014128. */
static void perf_stat_tells_a_decimal_comma_locale_from_its_elapsed_line(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "perf-stat/tiled-matmul-parallel6-de.profile", "perf-stat");
	NUM(r, "cpu_atom_cycles", 4595014128.0, "4.595.014.128", 6);
	NUM(r, "task_clock", 2132.56, "2.132,56", 10);
	NUM(r, "context_switches", 856, "856", 12);
	NUM(r, "insn_per_cycle", 1.68, "1,68", 9);
	NUM(r, "seconds_time_elapsed", 0.25413299, "0,254132990", 30);
	NUM(r, "seconds_sys", 0.034614, "0,034614000", 33);
	const struct series *s = SERIES(r, "counters", 23);
	NUM_CELL(s, 0, "value", 4595014128.0, "4.595.014.128", 6);
	STR_CELL(s, 0, "note", "2,155 GHz", 6);
	NUM_CELL(s, 22, "value", 20239701, "20.239.701", 28);
	/* and the English ones stay as they were */
	r = PARSE(CORPUS "perf-stat/tnear-perf-stat-ls.md", "perf-stat");
	NUM(r, "cycles", 1036537, "1,036,537", 13);
	NUM(r, "task_clock", 1.27, "1.27", 9);
	NO_WARNINGS();
}

/* No elapsed line: nothing tells the style, so the usual one stays and the
 * first value that is a number only with decimal commas says why. */
static void a_file_whose_number_style_no_line_tells_says_so(void **state)
{
	(void)state;
	char *file = temp_file("cut.log", " Performance counter stats for './a.out':\n"
					   "\n"
					   "     3.456.789.012      cycles\n"
					   "         12.345,67 msec task-clock\n");
	struct capture c;
	cap_open(&c);
	struct run *r = parser_run(parsers_find(builtins, "perf-stat"), file, "cut.log", "r", c.d);
	assert_non_null(r);
	const struct datum *d = run_field(r, "cycles");
	assert_int_equal(d->kind, DATUM_STRING);
	assert_string_equal(cap_text(&c),
			    "cut.log:3: warning: field 'cycles': '3.456.789.012' is a number only "
			    "with ',' decimals, and no line tells this file's number style "
			    "(number_style from: '^(\\d[\\d.,]*) seconds time elapsed' matched none); "
			    "kept as text\n");
	run_free(r);
	cap_close(&c);
	temp_remove(file);
}

/* The definition's own mistakes, at their place. */
static void number_style_from_and_leave_out_are_checked_where_written(void **state)
{
	(void)state;
	static const struct {
		const char *yaml, *want;
	} cases[] = {
		{"name: a\nnumber_style: {from: 7}\nfields:\n  x: 'x(\\d+)'\n",
		 "p.yaml:2:22: error: number_style's from is a pattern whose first group captures "
		 "a number written with decimals, such as ' ([\\d.,]+) seconds time elapsed'\n"},
		{"name: a\nnumber_style: {from: '(\\S+) s', decimal: ','}\nfields:\n  x: 'x(\\d+)'\n",
		 "p.yaml:2:33: error: number_style with from: tells the style from the file, so it "
		 "takes no decimal or thousands\n"},
		{"name: a\nleave_out: [a.b]\nfields:\n  x: 'x(\\d+)'\n",
		 "p.yaml:2:1: error: parser 'a' reads text: leave_out names lists inside a JSON "
		 "file's rows, so it needs format: json\n"},
		{"name: a\nformat: json\nnumber_style: {from: '(\\S+) s'}\n",
		 "p.yaml:3:1: error: parser 'a' reads json, whose numbers are read as the format "
		 "writes them: number_style is for text logs\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct capture c;
		cap_open(&c);
		struct parser_set *set = parsers_new();
		diag_add_source(c.d, "p.yaml", cases[i].yaml, strlen(cases[i].yaml));
		assert_false(parsers_add(set, "p.yaml", cases[i].yaml, strlen(cases[i].yaml), false,
					 c.d));
		const char *got = cap_text(&c);
		/* the first line of each diagnostic: the quotes are the engine's */
		const char *nl = strchr(got, '\n');
		size_t n = nl ? (size_t)(nl - got) + 1 : strlen(got);
		if (n != strlen(cases[i].want) || memcmp(got, cases[i].want, n) != 0)
			fail_msg("case %zu said:\n%s\nwanted:\n%s", i, got, cases[i].want);
		parsers_free(set);
		cap_close(&c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(gbench_json_reads_the_context_and_every_result, free_current),
		cmocka_unit_test_teardown(hyperfine_json_leaves_the_per_run_lists_out_quietly,
					  free_current),
		cmocka_unit_test(lists_a_parser_does_not_name_are_still_warned_about),
		cmocka_unit_test(hyperfine_json_cut_short_is_a_syntax_error_at_its_end),
		cmocka_unit_test_teardown(vllm_bench_json_reads_the_saved_summary, free_current),
		cmocka_unit_test_teardown(vllm_bench_json_per_request_lists_are_series, free_current),
		cmocka_unit_test_teardown(perf_stat_tells_a_decimal_comma_locale_from_its_elapsed_line,
					  free_current),
		cmocka_unit_test(a_file_whose_number_style_no_line_tells_says_so),
		cmocka_unit_test(number_style_from_and_leave_out_are_checked_where_written),
	};
	return cmocka_run_group_tests(tests, load_builtins, free_builtins);
}
