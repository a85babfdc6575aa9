/* test_xmlread.c: XML result files into runs, generic and JUnit. */
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
#include "parse/xmlread.h"
#include "capture.h"

static char *tmpdir;

static int group_setup(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/logdown-test-xmlread-XXXXXX";
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

/* Reads text, written to a file diagnostics call `name`, as JUnit
 * (junit) or generic XML.  *ok is what the reader returned.  Caller
 * frees with run_free(). */
static struct run *load(bool junit, const char *name, const char *text, struct capture *c,
			bool *ok)
{
	char *path = path_join(tmpdir, name);
	assert_true(file_write(path, text, strlen(text)));
	struct run *r = run_new("r", name, "test");
	*ok = junit ? xmlread_junit(r, path, name, c->d) : xmlread_generic(r, path, name, c->d);
	free(path);
	return r;
}

/* Asserts field name has the number num, written as text (NULL: computed)
 * on line. */
static void check_num(const struct run *r, const char *name, double num, const char *text,
		      long line)
{
	const struct datum *d = run_field(r, name);
	if (!d)
		fail_msg("no field '%s'", name);
	assert_int_equal(d->kind, DATUM_NUMBER);
	assert_true(d->num == num);
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

/* Asserts cell (row, column) of series s reads as text (NULL: missing). */
static void check_cell(const struct run *r, const char *series, size_t row, const char *column,
		       const char *text)
{
	const struct series *s = run_series(r, series);
	assert_non_null(s);
	long col = series_column_index(s, column);
	if (col < 0)
		fail_msg("series '%s' has no column '%s'", series, column);
	assert_true(row < series_row_count(s));
	struct datum v;
	series_cell(s, row, (size_t)col, &v);
	if (!text) {
		assert_int_equal(v.kind, DATUM_MISSING);
		return;
	}
	assert_non_null(v.text);
	if (v.len != strlen(text) || memcmp(v.text, text, v.len) != 0)
		fail_msg("%s[%zu].%s: '%.*s', expected '%s'", series, row, column, (int)v.len,
			 v.text, text);
}

static const char gtest_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<testsuites tests=\"3\" failures=\"1\" disabled=\"1\" errors=\"0\" time=\"0.012\" "
	"name=\"AllTests\">\n"
	"  <testsuite name=\"Math\" tests=\"3\" failures=\"1\" disabled=\"1\" skipped=\"0\" "
	"errors=\"0\" time=\"0.012\">\n"
	"    <testcase name=\"Add\" status=\"run\" result=\"completed\" time=\"0.002\" "
	"classname=\"Math\" />\n"
	"    <testcase name=\"Div\" status=\"run\" result=\"completed\" time=\"0.01\" "
	"classname=\"Math\">\n"
	"      <failure message=\"math.cpp:12&#x0A;Expected: 2\" type=\"\"><![CDATA[math.cpp:12\n"
	"Expected: 2]]></failure>\n"
	"      <failure message=\"math.cpp:13&#x0A;second\" type=\"\"></failure>\n"
	"    </testcase>\n"
	"    <testcase name=\"DISABLED_Mul\" status=\"notrun\" result=\"suppressed\" time=\"0\" "
	"classname=\"Math\" />\n"
	"  </testsuite>\n"
	"</testsuites>\n";

static void junit_totals_come_from_the_root(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(true, "gtest.xml", gtest_xml, &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "");
	check_num(r, "tests", 3, "3", 2);
	check_num(r, "failures", 1, "1", 2);
	check_num(r, "errors", 0, "0", 2);
	check_num(r, "time", 0.012, "0.012", 2);
	/* gtest's root has no skipped: the suite's, one suite. */
	check_num(r, "skipped", 0, "0", 3);
	check_num(r, "passed", 1, NULL, 0);
	run_free(r);
	cap_close(&c);
}

static void junit_test_cases_have_status_and_the_first_message(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(true, "gtest.xml", gtest_xml, &c, &ok);
	assert_true(ok);
	const struct series *s = run_series(r, "testcases");
	assert_int_equal(series_row_count(s), 3);
	assert_int_equal(series_row_line(s, 0), 4);
	assert_int_equal(series_row_line(s, 1), 5);
	check_cell(r, "testcases", 0, "suite", "Math");
	check_cell(r, "testcases", 0, "name", "Add");
	check_cell(r, "testcases", 0, "status", "passed");
	check_cell(r, "testcases", 0, "message", NULL);
	check_cell(r, "testcases", 1, "status", "failed");
	check_cell(r, "testcases", 1, "message", "math.cpp:12\nExpected: 2");
	check_cell(r, "testcases", 1, "time", "0.01");
	check_cell(r, "testcases", 2, "status", "skipped");
	check_cell(r, "testsuites", 0, "name", "Math");
	check_cell(r, "testsuites", 0, "failures", "1");
	run_free(r);
	cap_close(&c);
}

static void junit_totals_are_summed_over_suites_without_root_totals(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(true, "two.xml",
			     "<testsuites>\n"
			     "<testsuite name=\"a\" tests=\"2\" failures=\"1\" errors=\"0\" "
			     "skipped=\"0\" time=\"1.5\">\n"
			     "<testcase classname=\"t.a\" name=\"x\" time=\"1\"><failure>boom\n"
			     "</failure></testcase>\n"
			     "<testcase classname=\"t.a\" name=\"y\" time=\"0.5\"/>\n"
			     "</testsuite>\n"
			     "<testsuite name=\"b\" tests=\"1\" failures=\"0\" errors=\"1\" "
			     "time=\"2\">\n"
			     "<testcase classname=\"t.b\" name=\"z\" time=\"2\"><error "
			     "message=\"setup\"/></testcase>\n"
			     "</testsuite>\n"
			     "</testsuites>\n",
			     &c, &ok);
	assert_true(ok);
	check_num(r, "tests", 3, NULL, 0);
	check_num(r, "failures", 1, NULL, 0);
	check_num(r, "errors", 1, NULL, 0);
	check_num(r, "time", 3.5, NULL, 0);
	/* Suite b gives no skipped: counted from the test cases. */
	check_num(r, "skipped", 0, NULL, 0);
	check_num(r, "passed", 1, NULL, 0);
	check_cell(r, "testcases", 0, "message", "boom");
	check_cell(r, "testcases", 2, "suite", "b");
	check_cell(r, "testcases", 2, "status", "error");
	check_cell(r, "testcases", 2, "message", "setup");
	run_free(r);
	cap_close(&c);
}

static void junit_ctest_status_attributes_give_the_status(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(true, "ctest.xml",
			     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			     "<testsuite name=\"(empty)\"\n"
			     "\ttests=\"3\"\n"
			     "\tfailures=\"1\"\n"
			     "\tdisabled=\"0\"\n"
			     "\tskipped=\"1\"\n"
			     "\thostname=\"\"\n"
			     "\ttime=\"0\"\n"
			     "\t>\n"
			     "\t<testcase name=\"ok\" classname=\"ok\" time=\"0.01\" status=\"run\">\n"
			     "\t\t<system-out>fine\n</system-out>\n"
			     "\t</testcase>\n"
			     "\t<testcase name=\"bad\" classname=\"bad\" time=\"0.02\" status=\"fail\">\n"
			     "\t\t<failure message=\"Failed\"/>\n"
			     "\t</testcase>\n"
			     "\t<testcase name=\"off\" classname=\"off\" time=\"0\" status=\"notrun\">\n"
			     "\t\t<skipped message=\"Disabled\"/>\n"
			     "\t</testcase>\n"
			     "</testsuite>\n",
			     &c, &ok);
	assert_true(ok);
	check_num(r, "tests", 3, "3", 2);
	check_num(r, "skipped", 1, "1", 2);
	check_cell(r, "testcases", 0, "status", "passed");
	check_cell(r, "testcases", 1, "status", "failed");
	check_cell(r, "testcases", 1, "message", "Failed");
	check_cell(r, "testcases", 2, "status", "skipped");
	check_cell(r, "testcases", 2, "message", "Disabled");
	assert_int_equal(series_row_line(run_series(r, "testcases"), 2), 17);
	run_free(r);
	cap_close(&c);
}

static void junit_cut_file_warns_at_its_end_and_keeps_the_cases_before(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	/* gtest_xml cut inside the second test case's failure. */
	char cut[sizeof gtest_xml];
	const char *at = strstr(gtest_xml, "Expected: 2]]>");
	size_t n = (size_t)(at - gtest_xml);
	memcpy(cut, gtest_xml, n);
	cut[n] = '\0';
	struct run *r = load(true, "cut.xml", cut, &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "cut.xml:7:1: warning: unclosed element <failure> (opened at line 6): "
			    "the file ends here; what came before it is read\n"
			    "    7 | \n"
			    "      | ^\n");
	const struct series *s = run_series(r, "testcases");
	assert_int_equal(series_row_count(s), 1);
	check_cell(r, "testcases", 0, "name", "Add");
	/* The root's totals were read before the cut. */
	check_num(r, "tests", 3, "3", 2);
	run_free(r);
	cap_close(&c);
}

static void junit_mismatched_tag_names_the_open_element(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(true, "mis.xml",
			     "<testsuite name=\"s\">\n"
			     "<testcase name=\"a\"/>\n"
			     "<testcase name=\"b\">\n"
			     "</testsuite>\n",
			     &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c),
			    "mis.xml:4:3: warning: mismatched tag: <testcase> (opened at line 3) is "
			    "not closed before it; the rest of the file is not read\n"
			    "    4 | </testsuite>\n"
			    "      |   ^\n");
	assert_int_equal(series_row_count(run_series(r, "testcases")), 1);
	run_free(r);
	cap_close(&c);
}

/* After the root element, expat names and places the error by how the
 * bytes were split between its calls (fuzz_xml found "not well-formed"
 * at the '<' read whole, "junk after document element" at the 'g' a
 * byte at a time): the reader says one thing, at the first junk byte. */
static void junit_junk_after_the_root_is_one_warning_at_the_junk(void **state)
{
	(void)state;
	static const char xml[] = "<testsuite name=\"s\">\n"
				  "<testcase name=\"a\"/>\n"
				  "</testsuite>\n"
				  "    g<testcase name=\"b\"/>\n";
	static const char want[] =
		"junk.xml:4:5: warning: junk after the document element: the rest of the file "
		"is not read\n"
		"    4 |     g<testcase name=\"b\"/>\n"
		"      |     ^\n";
	for (int split = 0; split < 2; split++) {
		if (split)
			setenv("LOGDOWN_TEST_CHUNK", "1", 1);
		struct capture c;
		cap_open(&c);
		bool ok;
		struct run *r = load(true, "junk.xml", xml, &c, &ok);
		assert_true(ok);
		assert_string_equal(cap_text(&c), want);
		assert_int_equal(series_row_count(run_series(r, "testcases")), 1);
		run_free(r);
		cap_close(&c);
	}
	unsetenv("LOGDOWN_TEST_CHUNK");
}

static void junit_text_file_is_not_xml(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(true, "train.log", "epoch 1 loss=0.52\nepoch 2 loss=0.31\n", &c, &ok);
	assert_false(ok);
	assert_string_equal(cap_text(&c), "train.log:1:1: error: not an XML file: not well-formed\n"
					  "    1 | epoch 1 loss=0.52\n"
					  "      | ^\n");
	run_free(r);
	cap_close(&c);
}

static void junit_other_root_is_refused_at_the_root(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(true, "cov.xml",
			     "<?xml version=\"1.0\" ?>\n<coverage line-rate=\"0.95\">\n</coverage>\n",
			     &c, &ok);
	assert_false(ok);
	assert_string_equal(cap_text(&c),
			    "cov.xml:2:1: error: the root element is <coverage>, not <testsuites> or "
			    "<testsuite>: not a JUnit XML file\n"
			    "    2 | <coverage line-rate=\"0.95\">\n"
			    "      | ^\n");
	run_free(r);
	cap_close(&c);
}

static void generic_root_attributes_are_fields_and_elements_rows(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(false, "g.xml",
			     "<?xml version=\"1.0\"?>\n"
			     "<results gpus=\"4\" model=\"resnet50\">\n"
			     "  <config><lr>0.1</lr><opt>adam</opt></config>\n"
			     "  <epoch n=\"1\" loss=\"0.91\"/>\n"
			     "  <epoch n=\"2\" loss=\"0.52\" acc=\"88.5%\">\n"
			     "    <note>best so far</note>\n"
			     "  </epoch>\n"
			     "  <summary-line kind=\"final\">done in 12 s</summary-line>\n"
			     "</results>\n",
			     &c, &ok);
	assert_true(ok);
	assert_string_equal(cap_text(&c), "");
	check_num(r, "gpus", 4, "4", 2);
	check_num(r, "config.lr", 0.1, "0.1", 3);
	assert_int_equal(run_field(r, "config.opt")->kind, DATUM_STRING);
	const struct series *s = run_series(r, "epoch");
	assert_non_null(s);
	assert_int_equal(series_row_count(s), 2);
	assert_int_equal(series_column_count(s), 4);
	assert_string_equal(series_column(s, 3), "note");
	assert_int_equal(series_row_line(s, 1), 5);
	check_cell(r, "epoch", 0, "acc", NULL);
	check_cell(r, "epoch", 1, "acc", "88.5%");
	check_cell(r, "epoch", 1, "note", "best so far");
	check_cell(r, "summary_line", 0, "text", "done in 12 s");
	run_free(r);
	cap_close(&c);
}

static void chunk_size_changes_nothing(void **state)
{
	(void)state;
	/* Every token straddles an XML_Parse call: the same run. */
	static const char *const sizes[] = {"1", "2", "7"};
	for (size_t i = 0; i < 3; i++) {
		setenv("LOGDOWN_TEST_CHUNK", sizes[i], 1);
		struct capture c;
		cap_open(&c);
		bool ok;
		struct run *r = load(true, "gtest.xml", gtest_xml, &c, &ok);
		assert_true(ok);
		check_num(r, "tests", 3, "3", 2);
		check_cell(r, "testcases", 1, "message", "math.cpp:12\nExpected: 2");
		assert_int_equal(series_row_line(run_series(r, "testcases"), 2), 10);
		run_free(r);
		cap_close(&c);
	}
	unsetenv("LOGDOWN_TEST_CHUNK");
}

/* A bad token before the root reads the same whole or a byte at a time
 * (expat names it differently depending on the split). */
static void bad_token_before_the_root_is_one_message(void **state)
{
	(void)state;
	static const char *const sizes[] = {"", "1"};
	for (size_t i = 0; i < 2; i++) {
		setenv("LOGDOWN_TEST_CHUNK", sizes[i], 1);
		struct capture c;
		cap_open(&c);
		bool ok;
		struct run *r = load(true, "junk.xml", "\n<\x01", &c, &ok);
		assert_false(ok);
		assert_string_equal(cap_text(&c), "junk.xml:2:2: error: not an XML file: not well-formed\n"
						  "    2 | <?\n"
						  "      |  ^\n");
		run_free(r);
		cap_close(&c);
	}
	unsetenv("LOGDOWN_TEST_CHUNK");
}

static void deep_nesting_stops_with_a_warning(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "<testsuites>");
	for (int i = 0; i < 1200; i++)
		buf_puts(&b, "<a>");
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(false, "deep.xml", buf_data(&b), &c, &ok);
	assert_true(ok);
	assert_non_null(strstr(cap_text(&c), "deep.xml:1:"));
	assert_non_null(strstr(cap_text(&c), "warning: elements nested deeper than 1000"));
	run_free(r);
	cap_close(&c);
	buf_free(&b);
}

static void a_failure_text_is_kept_up_to_1_mib(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	buf_puts(&b, "<testsuite name=\"s\">\n<testcase name=\"big\"><failure>");
	for (int i = 0; i < (3 << 20) / 64; i++)
		buf_puts(&b, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n");
	buf_puts(&b, "</failure></testcase>\n</testsuite>\n");
	struct capture c;
	cap_open(&c);
	bool ok;
	struct run *r = load(true, "big.xml", buf_data(&b), &c, &ok);
	assert_true(ok);
	struct datum v;
	const struct series *s = run_series(r, "testcases");
	series_cell(s, 0, (size_t)series_column_index(s, "message"), &v);
	/* 1 MiB, less the line end the cut leaves last. */
	assert_int_equal(v.len, ((size_t)1 << 20) - 1);
	assert_int_equal(series_row_line(s, 0), 2);
	run_free(r);
	cap_close(&c);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(junit_totals_come_from_the_root),
		cmocka_unit_test(junit_test_cases_have_status_and_the_first_message),
		cmocka_unit_test(junit_totals_are_summed_over_suites_without_root_totals),
		cmocka_unit_test(junit_ctest_status_attributes_give_the_status),
		cmocka_unit_test(junit_cut_file_warns_at_its_end_and_keeps_the_cases_before),
		cmocka_unit_test(junit_mismatched_tag_names_the_open_element),
		cmocka_unit_test(junit_junk_after_the_root_is_one_warning_at_the_junk),
		cmocka_unit_test(junit_text_file_is_not_xml),
		cmocka_unit_test(junit_other_root_is_refused_at_the_root),
		cmocka_unit_test(generic_root_attributes_are_fields_and_elements_rows),
		cmocka_unit_test(chunk_size_changes_nothing),
		cmocka_unit_test(bad_token_before_the_root_is_one_message),
		cmocka_unit_test(deep_nesting_stops_with_a_warning),
		cmocka_unit_test(a_failure_text_is_kept_up_to_1_mib),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
