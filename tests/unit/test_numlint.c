/* test_numlint.c: hand-typed numbers: what the scanner reads and leaves
 * alone, what a number matches and the spec it suggests, and the walk
 * over a report with its comments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>

#include "base/util.h"
#include "data/run.h"
#include "resolve/numlint.h"
#include "capture.h"

/* The numbers the scanner keeps in s, as written, separated by '|'. */
static char *scan(const char *s)
{
	struct buf b = BUF_INIT;
	size_t pos = 0, len = strlen(s);
	struct numlint_token t;
	while (numlint_next(s, len, &pos, &t)) {
		if (b.len)
			buf_putc(&b, '|');
		buf_put(&b, s + t.at, t.len);
	}
	return buf_detach(&b);
}

static void assert_scan(const char *s, const char *want)
{
	char *got = scan(s);
	if (strcmp(got, want) != 0)
		fprintf(stderr, "scanning '%s': got '%s', want '%s'\n", s, got, want);
	assert_string_equal(got, want);
	free(got);
}

static void scanner_keeps_measured_numbers(void **state)
{
	(void)state;
	assert_scan("the loss was 2.3147 after", "2.3147");
	assert_scan("final loss 2.31.", "2.31");
	assert_scan("a rate of 1,234.5 samples/s and 93.4% accuracy", "1,234.5|93.4%");
	assert_scan("-0.25 and (13.7) and 41", "-0.25|13.7|41");
	assert_scan("used 12 GB, 12GB and 3.2ms", "12|12|3.2");
	assert_scan("lr 3e-4 and 2.5E+06", "3e-4|2.5E+06");
	assert_scan("ranges 15-37", "15|37");
}

static void scanner_leaves_alone_words_and_versions(void **state)
{
	(void)state;
	assert_scan("an A100 with fp16 on x86_64 ResNet50 gpt-2 x86-64", "");
	assert_scan("release v1.2.3, Python 3.10.4 and 2.6.0", "");
	assert_scan("BERT-Large-512 and run_37 and 4e3f", "");
}

static void scanner_leaves_alone_dates_times_years(void **state)
{
	(void)state;
	assert_scan("on 2024-04-08 at 12:30 or 12:30:45.5, 04/08 and 3/4", "");
	assert_scan("in 1999 and 2024, not 2101 or 1899", "2101|1899");
	assert_scan("job 007 and 04", "");
}

static void scanner_leaves_alone_ordinals_digits_round_numbers(void **state)
{
	(void)state;
	assert_scan("the 1st, 22nd, 3rd and 11th run", "");
	assert_scan("2 nodes, 8 GPUs, 5%", "");
	assert_scan("batch 512, 1024 steps, 100 epochs, 5000 and 16", "");
	assert_scan("batch 513, 1000.5 and 1,024", "513|1000.5|1,024");
	assert_scan("lr 0.03, dropout 0.5, 300 steps, 0.0010 and 0.012", "0.0010|0.012");
}

static void scanner_leaves_alone_citations_and_placeholders(void **state)
{
	(void)state;
	assert_scan("as [12] shows, [^37] and #42 and @77", "");
	assert_scan("a value \x1aLD37\x1a and \x1aLD12\x1a% but 41.5", "41.5");
	assert_scan("unterminated \x1aLD37 99.5", "");
}

static struct run *sample_run(void)
{
	struct run *r = run_new("bs512", "logs/bs512.log", "cerebras");
	struct datum d = {DATUM_NUMBER, 2.3147, "2.3147", 6, 412};
	run_set_field(r, "final_loss", &d);
	d = (struct datum){DATUM_NUMBER, 0.934, "0.934", 5, 413};
	run_set_field(r, "accuracy", &d);
	d = (struct datum){DATUM_NUMBER, 12345, "12345", 5, 20};
	run_set_field(r, "samples", &d);
	d = (struct datum){DATUM_NUMBER, 98.07, "98.07%", 6, 30};
	run_set_field(r, "util", &d);
	d = (struct datum){DATUM_NUMBER, 175.070497198, "175.070497198", 13, 52};
	run_set_field(r, "total_time", &d);
	d = (struct datum){DATUM_STRING, 0, "37.5", 4, 9};
	run_set_field(r, "label", &d);
	d = (struct datum){DATUM_NUMBER, 1024, "1024", 4, 34};
	run_set_field(r, "seqs", &d);
	d = (struct datum){DATUM_NUMBER, 97.13, "97.13", 5, 33};
	run_set_field(r, "test_accuracy", &d);
	d = (struct datum){DATUM_NUMBER, 41.25, "41.25", 5, 60};
	run_set_field(r, "bad-name", &d);
	const char *cols[] = {"step", "loss"};
	struct series *s = run_add_series(r, "train", cols, 2);
	struct datum row[2] = {{DATUM_NUMBER, 100, "100", 3, 0}, {DATUM_NUMBER, 9.39062, "9.39062", 7, 0}};
	series_append(s, row, 28);
	row[0] = (struct datum){DATUM_NUMBER, 200, "200", 3, 0};
	row[1] = (struct datum){DATUM_NUMBER, 8.70312, "8.70312", 7, 0};
	series_append(s, row, 29);
	return r;
}

/* What the number in s matches: "expr spec how", or "" for nothing. */
static char *match(const struct numlint *nl, const char *s)
{
	size_t pos = 0;
	struct numlint_token t;
	struct numlint_match m;
	if (!numlint_next(s, strlen(s), &pos, &t) || !numlint_match(nl, &t, &m))
		return xstrdup("");
	return xasprintf("%s :%s %d %s:%ld", m.expr, m.spec, (int)m.how, m.file, m.line);
}

static void assert_match(const struct numlint *nl, const char *s, const char *want)
{
	char *got = match(nl, s);
	if (strcmp(got, want) != 0)
		fprintf(stderr, "matching '%s': got '%s', want '%s'\n", s, got, want);
	assert_string_equal(got, want);
	free(got);
}

static void matcher_finds_same_digits_roundings_and_percents(void **state)
{
	(void)state;
	struct run *r = sample_run();
	const struct run *runs[] = {r};
	struct numlint *nl = numlint_new(runs, 1);
	assert_match(nl, "2.3147", "bs512.final_loss : 0 logs/bs512.log:412");
	assert_match(nl, "2.31", "bs512.final_loss :.2f 1 logs/bs512.log:412");
	assert_match(nl, "2.3", "bs512.final_loss :.1f 1 logs/bs512.log:412");
	assert_match(nl, "93.4%", "bs512.accuracy :.1% 2 logs/bs512.log:413");
	assert_match(nl, "93%", "bs512.accuracy :.0% 2 logs/bs512.log:413");
	assert_match(nl, "12,345", "bs512.samples :,d 0 logs/bs512.log:20");
	assert_match(nl, "98.07%", "bs512.util : 0 logs/bs512.log:30");
	assert_match(nl, "1,024", "bs512.seqs :,d 0 logs/bs512.log:34");
	assert_match(nl, "98.1%", "bs512.util :.1f 1 logs/bs512.log:30");
	assert_match(nl, "175", "bs512.total_time :.0f 1 logs/bs512.log:52");
	assert_match(nl, "175.07", "bs512.total_time :.2f 1 logs/bs512.log:52");
	assert_match(nl, "9.39", "first(bs512.train.loss) :.2f 1 logs/bs512.log:28");
	assert_match(nl, "8.70312", "last(bs512.train.loss) : 0 logs/bs512.log:29");
	numlint_free(nl);
	run_free(r);
}

static void matcher_leaves_near_misses(void **state)
{
	(void)state;
	struct run *r = sample_run();
	const struct run *runs[] = {r};
	struct numlint *nl = numlint_new(runs, 1);
	assert_match(nl, "2.32", "");   /* not this rounding */
	assert_match(nl, "2.31470", ""); /* more digits than the log */
	assert_match(nl, "0.9", "");    /* one significant digit */
	assert_match(nl, "37.5", "");   /* a string field */
	assert_match(nl, "41.25", "");  /* a field no expression can name */
	assert_match(nl, "98", "");     /* a whole-number rounding needs 3 digits */
	assert_match(nl, "93.5%", "");  /* not this percent */
	numlint_free(nl);
	run_free(r);
}

static void fields_come_before_series(void **state)
{
	(void)state;
	struct run *a = run_new("bs2048", "logs/bs2048.log", "cerebras");
	const char *cols[] = {"loss"};
	struct series *s = run_add_series(a, "train", cols, 1);
	struct datum cell = {DATUM_NUMBER, 7.125, "7.12500", 7, 0};
	series_append(s, &cell, 35);
	struct run *b = sample_run();
	struct datum d = {DATUM_NUMBER, 7.125, "7.12500", 7, 53};
	run_set_field(b, "final_loss", &d);
	const struct run *runs[] = {a, b};
	struct numlint *nl = numlint_new(runs, 2);
	assert_match(nl, "7.12500", "bs512.final_loss : 0 logs/bs512.log:53");
	numlint_free(nl);
	run_free(a);
	run_free(b);
}

static void no_runs_match_nothing(void **state)
{
	(void)state;
	struct numlint *nl = numlint_new(NULL, 0);
	assert_match(nl, "2.31", "");
	numlint_free(nl);
}

/* The warnings numlint_doc() gives for Markdown md. */
static char *lint(const char *md)
{
	struct run *r = sample_run();
	const struct run *runs[] = {r};
	struct numlint *nl = numlint_new(runs, 1);
	cmark_gfm_core_extensions_ensure_registered();
	cmark_parser *p = cmark_parser_new(CMARK_OPT_SOURCEPOS | CMARK_OPT_UNSAFE);
	cmark_parser_attach_syntax_extension(p, cmark_find_syntax_extension("table"));
	cmark_parser_feed(p, md, strlen(md));
	cmark_node *root = cmark_parser_finish(p);
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "r.md", md, strlen(md));
	numlint_doc(nl, root, md, strlen(md), "r.md", 0, c.d);
	char *text = cap_take(&c);
	cmark_node_free(root);
	cmark_parser_free(p);
	numlint_free(nl);
	run_free(r);
	return text;
}

static void walk_warns_at_the_number_with_its_value(void **state)
{
	(void)state;
	char *got = lint("Intro.\n\n  The loss fell to **2.31** and `2.31` stays.\n");
	assert_string_equal(got,
			    "r.md:3:22: warning: 2.31 is bs512.final_loss, 2.3147 rounded "
			    "(logs/bs512.log:412): write {{ bs512.final_loss :.2f }}\n"
			    "    3 |   The loss fell to **2.31** and `2.31` stays.\n"
			    "      |                      ^~~~\n");
	free(got);
}

static void walk_leaves_code_headings_links_and_html(void **state)
{
	(void)state;
	char *got = lint("# Loss 2.31\n\n```\n2.31\n```\n\n    2.31\n\n"
			 "[see](https://x.org/2.31) ![2.31](a.png) <span title=\"2.31\">x</span>\n\n"
			 "<div data-x=\"2.31\"></div>\n");
	assert_string_equal(got, "");
	free(got);
}

static void comment_allows_the_next_block(void **state)
{
	(void)state;
	char *got = lint("<!-- logdown: allow-number -->\n2.31 and 93.4%\n\nthen 2.31\n");
	assert_non_null(strstr(got, "r.md:4:6: warning: 2.31 is bs512.final_loss"));
	assert_null(strstr(got, "r.md:2:"));
	free(got);
}

static void comment_in_a_paragraph_allows_its_numbers(void **state)
{
	(void)state;
	char *got = lint("2.31 and 93.4% <!-- logdown: allow-number 2.31 -->\n");
	assert_null(strstr(got, "2.31 is"));
	assert_non_null(strstr(got, "r.md:1:10: warning: 93.4% is bs512.accuracy, 0.934 as a "
				    "percent (logs/bs512.log:413): write {{ bs512.accuracy :.1% }}"));
	free(got);
}

static void comment_in_a_table_cell_allows_that_cell(void **state)
{
	(void)state;
	char *got = lint("| a | b |\n|---|---|\n| 2.31 <!-- logdown: allow-number --> | 2.31 |\n");
	assert_string_equal(got, "r.md:3:41: warning: 2.31 is bs512.final_loss, 2.3147 rounded "
				 "(logs/bs512.log:412): write {{ bs512.final_loss :.2f }}\n"
				 "    3 | | 2.31 <!-- logdown: allow-number --> | 2.31 |\n"
				 "      |                                         ^~~~\n");
	free(got);
}

static void percent_sign_stays_after_a_value_without_one(void **state)
{
	(void)state;
	char *got = lint("accuracy 97.13% on MNIST\n");
	assert_non_null(strstr(got, "r.md:1:10: warning: 97.13% is bs512.test_accuracy, 97.13 "
				    "(logs/bs512.log:33): write {{ bs512.test_accuracy }}%\n"));
	free(got);
}

static void bad_comments_are_warned_of(void **state)
{
	(void)state;
	char *got = lint("<!-- logdown: allow-numbers -->\n2.31\n\n"
			 "<!-- logdown: allow-number two -->\n2.31\n");
	assert_non_null(strstr(got, "r.md:1:15: warning: unknown logdown comment "
				    "'allow-numbers' (did you mean 'allow-number'?)\n"));
	assert_non_null(strstr(got, "r.md:4:28: warning: 'two' is not a number"));
	/* both blocks still warn: a bad comment allows nothing */
	assert_non_null(strstr(got, "r.md:2:1: warning: 2.31 is"));
	assert_non_null(strstr(got, "r.md:5:1: warning: 2.31 is"));
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scanner_keeps_measured_numbers),
		cmocka_unit_test(scanner_leaves_alone_words_and_versions),
		cmocka_unit_test(scanner_leaves_alone_dates_times_years),
		cmocka_unit_test(scanner_leaves_alone_ordinals_digits_round_numbers),
		cmocka_unit_test(scanner_leaves_alone_citations_and_placeholders),
		cmocka_unit_test(matcher_finds_same_digits_roundings_and_percents),
		cmocka_unit_test(matcher_leaves_near_misses),
		cmocka_unit_test(fields_come_before_series),
		cmocka_unit_test(no_runs_match_nothing),
		cmocka_unit_test(walk_warns_at_the_number_with_its_value),
		cmocka_unit_test(walk_leaves_code_headings_links_and_html),
		cmocka_unit_test(comment_allows_the_next_block),
		cmocka_unit_test(comment_in_a_paragraph_allows_its_numbers),
		cmocka_unit_test(comment_in_a_table_cell_allows_that_cell),
		cmocka_unit_test(percent_sign_stays_after_a_value_without_one),
		cmocka_unit_test(bad_comments_are_warned_of),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
