/* test_describe.c: `logdown parsers NAME` and `logdown parsers
 * --markdown`, what a user reads to learn what a parser gives, and
 * docs/builtin-parsers.md, which must be what the built-ins say. */
#include "e2e.h"

static void a_builtin_shows_detection_names_and_its_example(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	struct proc r = e2e_run(dir, "parsers gtest");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "gtest (built-in)\n\nGoogleTest output, ", 37) == 0);
	/* Runs of spaces inside the description stay. */
	assert_contains(r.out, "(the \"[  PASSED  ]\" prefix may be\n");
	assert_contains(r.out, "\nreads     text: lines matched by the patterns below\n"
			       "detected  by content, a match of '\\d+ tests? from \\d+ test "
			       "(?:suites?|cases?)\n"
			       "          ran', ");
	assert_contains(r.out, "\nfields    passed, failed, failed_test (string), disabled, "
			       "total_tests,\n          total_suites, total_time_ms\n");
	assert_contains(r.out, "\nseries    tests: suite, name, status, time_ms\n"
			       "series    failures: file, line, message\n");
	assert_contains(r.out, "\nexample (as the tool prints it)\n"
			       "  [       OK ] board.print_empty (0 ms)\n");
	proc_free(&r);

	/* A structured format says what its files become. */
	r = e2e_run(dir, "parsers csv");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "\nreads     CSV: the series rows, its columns the header's cells "
			       "in snake_case\ndetected  by name, .csv\n");
	proc_free(&r);
	remove_tree(dir);
	free(dir);
}

static void a_project_parser_shows_types_tables_carry_and_derive(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "parsers/bench.yaml",
		  "name: bench\n"
		  "description: >-\n"
		  "  The bench script of homework 4.\n"
		  "detect: '^== bench'\n"
		  "extensions: ['*.bench.txt']\n"
		  "carry:\n"
		  "  - '^== size (?<size>\\d+)'\n"
		  "fields:\n"
		  "  wall: { pattern: 'done in (\\S+)', type: duration }\n"
		  "  host: 'host (\\S+)'\n"
		  "series:\n"
		  "  iters: { pattern: 'iter (?<iter>\\d+) took (?<t>\\d+)', types: { t: duration_ms } }\n"
		  "tables:\n"
		  "  kernels: { header: '^Kernel', columns: { name: [kernel], time_us: 'Time (us)' }, "
		  "types: { time_us: duration_us } }\n"
		  "derive:\n"
		  "  iters_done: count(iters.iter)\n"
		  "example: |\n"
		  "  == bench\n"
		  "  iter 1 took 12\n");
	struct proc r = e2e_run(dir, "parsers bench");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
			    "bench (parsers/bench.yaml)\n"
			    "\n"
			    "The bench script of homework 4.\n"
			    "\n"
			    "reads     text: lines matched by the patterns below\n"
			    "detected  by content, a match of '^== bench' in the first MiB; by "
			    "name,\n"
			    "          *.bench.txt\n"
			    "fields    wall (duration), host, iters_done (computed)\n"
			    "series    iters: iter, t (duration_ms), size\n"
			    "table     kernels: name, time_us (duration_us), and any other header "
			    "cell in\n"
			    "          snake_case, size\n"
			    "\n"
			    "example (as the tool prints it)\n"
			    "  == bench\n"
			    "  iter 1 took 12\n");
	proc_free(&r);

	r = e2e_run(dir, "parsers bench --markdown");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
			    "## bench\n"
			    "\n"
			    "The bench script of homework 4.\n"
			    "\n"
			    "- **Reads**: text: lines matched by the patterns below\n"
			    "- **Detected**: by content, a match of `^== bench` in the first MiB; "
			    "by name, `*.bench.txt`\n"
			    "- **Fields**: `wall` (duration), `host`, `iters_done` (computed)\n"
			    "- **Series**: `iters`: `iter`, `t` (duration_ms), `size`\n"
			    "- **Table**: `kernels`: `name`, `time_us` (duration_us), and any other "
			    "header cell in snake_case, `size`\n"
			    "\n"
			    "```text\n"
			    "== bench\n"
			    "iter 1 took 12\n"
			    "```\n");
	proc_free(&r);
	remove_tree(dir);
	free(dir);
}

static void an_unknown_name_is_a_usage_error_with_the_closest(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	struct proc r = e2e_run(dir, "parsers gtset");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_contains(r.err, "error: unknown parser 'gtset' (did you mean 'gtest'?)");
	proc_free(&r);
	r = e2e_run(dir, "parsers --markdwn");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "unknown option '--markdwn'");
	proc_free(&r);
	remove_tree(dir);
	free(dir);
}

/* Every built-in shows a few lines of real output; the docs page is
 * what the built-ins say, so that it cannot go stale. */
static void every_builtin_has_an_example_and_the_docs_page_matches(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	struct proc list = e2e_run(dir, "parsers");
	assert_int_equal(list.status, 0);
	struct proc md = e2e_run(dir, "parsers --markdown");
	assert_int_equal(md.status, 0);
	assert_string_equal(md.err, "");
	size_t parsers = 0;
	for (const char *line = list.out; *line; parsers++) {
		size_t n = strcspn(line, " ");
		char name[64];
		assert_true(n < sizeof name);
		memcpy(name, line, n);
		name[n] = '\0';
		struct proc one = e2e_run(dir, "parsers %s", name);
		assert_int_equal(one.status, 0);
		const char *ex = strstr(one.out, "\nexample (as the tool prints it)\n  ");
		if (!ex)
			fail_msg("built-in parser '%s' has no example:", name);
		/* At least two lines of it. */
		assert_non_null(strstr(ex + 35, "\n  "));
		proc_free(&one);
		line = strchr(line, '\n');
		assert_non_null(line);
		line++;
	}
	assert_true(parsers >= 13);

	char *page = e2e_read(".", "docs/builtin-parsers.md");
	const char *marker = "regenerate it with `sh tools/builtin-parsers.sh`. -->\n\n";
	const char *gen = strstr(page, marker);
	assert_non_null(gen);
	gen += strlen(marker);
	if (strcmp(gen, md.out) != 0)
		fail_msg("docs/builtin-parsers.md is not what `logdown parsers --markdown` prints "
			 "(run outside any project): regenerate its sections");
	free(page);
	proc_free(&md);
	proc_free(&list);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_builtin_shows_detection_names_and_its_example),
		cmocka_unit_test(a_project_parser_shows_types_tables_carry_and_derive),
		cmocka_unit_test(an_unknown_name_is_a_usage_error_with_the_closest),
		cmocka_unit_test(every_builtin_has_an_example_and_the_docs_page_matches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
