/* test_junit.c: JUnit XML files (gtest, pytest) as a user reads them:
 * `logdown parse`, a report's {{ r.failures }}, a file cut short and a
 * file that is not XML. */
#include "e2e.h"

#define CORPUS "tests/corpus/junit"

static int teardown(void **state)
{
	(void)state;
	e2e_free_kept();
	return 0;
}

static void parse_shows_pytest_totals_and_test_cases(void **state)
{
	(void)state;
	struct proc r = e2e_keep_proc(e2e_run(CORPUS, "parse pytest_2024_failure.xml"));
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_string_equal(
		r.out,
		"file     pytest_2024_failure.xml\n"
		"parser   junit (built-in)\n"
		"lines    6\n"
		"\n"
		"fields (6)\n"
		"  tests      2       (line 1)\n"
		"  failures   1       (line 1)\n"
		"  errors     0       (line 1)\n"
		"  skipped    0       (line 1)\n"
		"  time       0.129   (line 1)\n"
		"  passed     1       (computed)\n"
		"\n"
		"series testcases: 2 rows, 6 columns\n"
		"  line  suite     classname           name            time   status    message\n"
		"     1  \"pytest\"  \"test.test_sample\"  \"test_passing\"  0.002  \"passed\"  —\n"
		"     1  \"pytest\"  \"test.test_sample\"  \"test_failing\"  0.001  \"failed\"  "
		"\"assert 4 == 5\\n +  wh…\"\n"
		"\n"
		"series testsuites: 1 row, 6 columns\n"
		"  line  name      tests  failures  errors  skipped  time\n"
		"     1  \"pytest\"  2      1         0       0        0.129\n");
}

static void parse_json_of_a_gtest_failure_keeps_its_message_and_lines(void **state)
{
	(void)state;
	struct proc r = e2e_keep_proc(e2e_run(CORPUS, "parse --json gtest_2025_failure.xml"));
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "\"parser\": \"junit\"");
	assert_contains(r.out, "\"tests\": {\"value\": 1, \"text\": \"1\", \"line\": 2}");
	assert_contains(r.out, "\"failures\": {\"value\": 1, \"text\": \"1\", \"line\": 2}");
	/* gtest's root has no skipped: the one suite's. */
	assert_contains(r.out, "\"skipped\": {\"value\": 0, \"text\": \"0\", \"line\": 3}");
	assert_contains(r.out, "\"time\": {\"value\": 0, \"text\": \"0.\", \"line\": 2}");
	assert_contains(r.out, "[\"DS1ParserTest\", \"DS1ParserTest\", \"LoadFromFile\", 0, "
			       "\"failed\", \"/Users/jbbrack03/Diablo2Portable/engine/tests/map/"
			       "test_ds1_parser.cpp:216\\nValue of: result != nullptr\\n  Actual: "
			       "false\\nExpected: true\"]");
	assert_contains(r.out, "\"lines\": [4]");
}

static void csv_of_gtest_test_cases_marks_disabled_ones_skipped(void **state)
{
	(void)state;
	struct proc r =
		e2e_keep_proc(e2e_run(CORPUS, "parse --csv testcases gtest_2020_disabled.xml"));
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "suite,classname,name,time,status,message\n"
			       "GoogleTest,GoogleTest,Sample1,0,passed,\n");
	assert_contains(r.out, "GoogleTest,GoogleTest,DISABLED_N_FooTest,0,skipped,\n"
			       "DISABLED_GoogleTest,DISABLED_GoogleTest,P_FooTest,0,skipped,\n");
}

static void report_writes_the_failures_of_a_pytest_run(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(
		E2E_TEXT("content/r/index.md",
			 "---\n"
			 "title: Tests\n"
			 "runs:\n"
			 "  t: { file: results/junit.xml }\n"
			 "  old: { file: results/old.xml }\n"
			 "---\n"
			 "{{ t.failures }} of {{ t.tests }} failed, {{ t.passed }} passed; "
			 "the old run skipped {{ old.skipped }} of {{ old.tests }}.\n"),
		E2E_COPY("content/r/results/junit.xml", CORPUS "/pytest_2024_failure.xml"),
		E2E_COPY("content/r/results/old.xml", CORPUS "/pytest_2017_testsuite_root.xml")));
	e2e_keep(dir);
	char *body = e2e_keep(e2e_build_body(dir, ""));
	/* Each value links to its line of the result file; passed is
	 * counted from the test cases. */
	assert_string_equal(
		body,
		"<p><a class=\"ld-value\" href=\"logs/results/junit.xml.html#L1.1\" "
		"title=\"content/r/results/junit.xml:1\">1</a> of <a class=\"ld-value\" "
		"href=\"logs/results/junit.xml.html#L1.2\" title=\"content/r/results/junit.xml:1\">2</a> "
		"failed, <span class=\"ld-value\">1</span> passed; the old run skipped <a "
		"class=\"ld-value\" href=\"logs/results/old.xml.html#L1.1\" "
		"title=\"content/r/results/old.xml:1\">1</a> of <a class=\"ld-value\" "
		"href=\"logs/results/old.xml.html#L1.2\" title=\"content/r/results/old.xml:1\">62</a>."
		"</p>\n");
	remove_tree(dir);
}

static void cut_file_is_a_warning_and_keeps_the_cases_before(void **state)
{
	(void)state;
	char *dir = e2e_keep(e2e_tmpdir());
	/* The first 1500 bytes of the gtest file: line 15 ends mid-tag. */
	char *whole = e2e_keep(e2e_read(CORPUS, "gtest_2020_disabled.xml"));
	assert_non_null(whole);
	e2e_write_bytes(dir, "cut.xml", whole, 1500);
	struct proc r = e2e_keep_proc(e2e_run(dir, "parse cut.xml"));
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "cut.xml:15:5: warning: unclosed element <testsuite> (opened "
				   "at line 14): the file ends here; what came before it is read\n"
				   "   15 |     <testcase\n"
				   "      |     ^\n");
	assert_contains(r.out, "series testcases: 7 rows, 6 columns\n");
	assert_contains(r.out, "    12  \"DISABLED_GoogleTest\"  \"DISABLED_GoogleTest\"  "
			       "\"P_FooTest\"  0     \"skipped\"  —\n");
	/* --strict makes it an error. */
	struct proc s = e2e_keep_proc(e2e_run(dir, "parse --strict cut.xml"));
	assert_int_equal(s.status, 1);
	assert_contains(s.err, "cut.xml:15:5: error: unclosed element <testsuite>");
	remove_tree(dir);
}

static void text_log_given_the_junit_parser_is_not_xml(void **state)
{
	(void)state;
	char *dir = e2e_keep(e2e_tmpdir());
	e2e_write(dir, "train.log", "Epoch 1/3\nloss: 0.52\n");
	struct proc r = e2e_keep_proc(e2e_run(dir, "parse --parser junit train.log"));
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "train.log:1:1: error: not an XML file: not well-formed\n"
				   "    1 | Epoch 1/3\n"
				   "      | ^\n");
	remove_tree(dir);
}

static void junit_is_detected_by_content_without_the_xml_name(void **state)
{
	(void)state;
	char *dir = e2e_keep(e2e_tmpdir());
	e2e_copy(dir, "report.out", CORPUS "/pytest_2023_skipped.xml");
	struct proc r = e2e_keep_proc(e2e_run(dir, "parse report.out"));
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "parser   junit (built-in)\n");
	assert_contains(r.out, "  skipped    2       (line 1)\n");
	struct proc p = e2e_keep_proc(e2e_run(dir, "parsers"));
	assert_contains(p.out, "junit");
	remove_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(parse_shows_pytest_totals_and_test_cases, teardown),
		cmocka_unit_test_teardown(parse_json_of_a_gtest_failure_keeps_its_message_and_lines,
					  teardown),
		cmocka_unit_test_teardown(csv_of_gtest_test_cases_marks_disabled_ones_skipped,
					  teardown),
		cmocka_unit_test_teardown(report_writes_the_failures_of_a_pytest_run, teardown),
		cmocka_unit_test_teardown(cut_file_is_a_warning_and_keeps_the_cases_before, teardown),
		cmocka_unit_test_teardown(text_log_given_the_junit_parser_is_not_xml, teardown),
		cmocka_unit_test_teardown(junit_is_detected_by_content_without_the_xml_name,
					  teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
