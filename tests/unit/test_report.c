/* test_report.c: slugs, front matter and loading a report from disk. */
#define _XOPEN_SOURCE 700 /* nftw() */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "parse/report.h"
#include "base/util.h"
#include "capture.h"

#define TMPDIR_TAG "report"
#include "tmpdirs.h"

/* A report file in a fresh folder under /tmp. */
struct fixture {
	char *dir;
	char *path;
	struct capture c;
	struct report r;
};

static void fx_open(struct fixture *fx, const char *text, size_t len)
{
	fx->dir = make_tmpdir();
	fx->path = xasprintf("%s/hw07.md", fx->dir);
	FILE *f = fopen(fx->path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	cap_open(&fx->c);
}

/* Writes text as DIR/hw07.md and loads it. */
static bool fx_load(struct fixture *fx, const char *text)
{
	fx_open(fx, text, strlen(text));
	return report_load(&fx->r, fx->path, "hw07", fx->c.d);
}

/* Compares the diagnostics with fmt, in which %1$s is the report's path. */
static void fx_expect(struct fixture *fx, const char *fmt)
{
	struct buf want = BUF_INIT;
	for (const char *p = fmt; *p; p++) {
		if (strncmp(p, "%1$s", 4) == 0) {
			buf_puts(&want, fx->path);
			p += 3;
		} else {
			buf_putc(&want, *p);
		}
	}
	assert_string_equal(cap_text(&fx->c), buf_data(&want));
	buf_free(&want);
}

static void fx_close(struct fixture *fx)
{
	report_free(&fx->r, fx->c.d);
	cap_close(&fx->c);
	free(fx->path);
	drop_tmpdir(fx->dir);
}

static void assert_slug(const char *rel, const char *want)
{
	char *s = report_slug(rel);
	bool same = s && want ? strcmp(s, want) == 0 : s == want;
	char got[256];
	snprintf(got, sizeof got, "%s", s ? s : "(null)");
	free(s);
	if (!same)
		fail_msg("slug of '%s' is '%s', expected '%s'", rel, got, want ? want : "(null)");
}

static void slug_of_a_file_is_its_name_without_md(void **state)
{
	(void)state;
	assert_slug("hw07.md", "hw07");
	assert_slug("2024/hw07.md", "2024/hw07");
}

static void slug_of_bundle_index_is_its_folder(void **state)
{
	(void)state;
	assert_slug("hw07/index.md", "hw07");
	assert_slug("2024/hw07/index.md", "2024/hw07");
}

static void slug_is_lowercased_with_odd_characters_as_dashes(void **state)
{
	(void)state;
	assert_slug("2024/Lab 3.md", "2024/lab-3");
	assert_slug("HW_07.v2.md", "hw_07.v2");
	assert_slug("a+b (final)!.md", "a-b--final--");
}

static void slug_turns_each_non_ascii_character_into_one_dash(void **state)
{
	(void)state;
	/* "Café.md": é is one character, two bytes. */
	assert_slug("Caf\xc3\xa9.md", "caf-");
}

static void site_index_has_no_slug(void **state)
{
	(void)state;
	assert_slug("index.md", NULL);
}

static void names_ending_in_index_keep_it(void **state)
{
	(void)state;
	assert_slug("myindex.md", "myindex");
	assert_slug("a/myindex.md", "a/myindex");
	assert_slug("index2.md", "index2");
}

static void non_markdown_files_have_no_slug(void **state)
{
	(void)state;
	assert_slug("notmd.txt", NULL);
	assert_slug("hw07.md.bak", NULL);
	assert_slug("md", NULL);
	assert_slug("", NULL);
}

static void root_prefix_climbs_one_level_per_folder(void **state)
{
	(void)state;
	char *p = report_root_prefix("hw07");
	assert_string_equal(p, "../");
	free(p);
	p = report_root_prefix("2024/hw07");
	assert_string_equal(p, "../../");
	free(p);
	p = report_root_prefix("a/b/c");
	assert_string_equal(p, "../../../");
	free(p);
}

/* The results of one frontmatter_split() call. */
struct split {
	bool ok;
	const char *yaml;
	size_t yaml_len;
	int yaml_line;
	size_t body_off;
	int body_line;
};

static struct split split(const char *text)
{
	struct split s;
	s.ok = frontmatter_split(text, strlen(text), &s.yaml, &s.yaml_len, &s.yaml_line, &s.body_off,
				 &s.body_line);
	return s;
}

static void file_without_front_matter_is_all_body(void **state)
{
	(void)state;
	struct split s = split("# Title\n\nText.\n");
	assert_true(s.ok);
	assert_int_equal(s.yaml_len, 0);
	assert_int_equal(s.body_off, 0);
	assert_int_equal(s.body_line, 1);
}

static void front_matter_is_between_the_dashes(void **state)
{
	(void)state;
	const char *text = "---\ntitle: x\n---\nbody\n";
	struct split s = split(text);
	assert_true(s.ok);
	assert_int_equal(s.yaml_len, 9);
	assert_memory_equal(s.yaml, "title: x\n", 9);
	assert_ptr_equal(s.yaml, text + 4);
	assert_int_equal(s.yaml_line, 2);
	assert_int_equal(s.body_off, 17);
	assert_string_equal(text + s.body_off, "body\n");
	assert_int_equal(s.body_line, 4);
}

static void front_matter_after_a_bom_is_found(void **state)
{
	(void)state;
	const char *text = "\xEF\xBB\xBF---\ntitle: x\n---\nbody";
	struct split s = split(text);
	assert_true(s.ok);
	assert_int_equal(s.yaml_len, 9);
	assert_memory_equal(s.yaml, "title: x\n", 9);
	assert_int_equal(s.yaml_line, 2);
	assert_string_equal(text + s.body_off, "body");
	assert_int_equal(s.body_line, 4);
}

static void bom_is_skipped_without_front_matter(void **state)
{
	(void)state;
	const char *text = "\xEF\xBB\xBF# Title\n";
	struct split s = split(text);
	assert_true(s.ok);
	assert_int_equal(s.yaml_len, 0);
	assert_int_equal(s.body_off, 3);
	assert_int_equal(s.body_line, 1);
}

static void crlf_front_matter_is_found(void **state)
{
	(void)state;
	const char *text = "---\r\ntitle: x\r\n---\r\nbody\r\n";
	struct split s = split(text);
	assert_true(s.ok);
	assert_int_equal(s.yaml_len, 10);
	assert_memory_equal(s.yaml, "title: x\r\n", 10);
	assert_int_equal(s.yaml_line, 2);
	assert_string_equal(text + s.body_off, "body\r\n");
	assert_int_equal(s.body_line, 4);
}

static void dots_close_front_matter_too(void **state)
{
	(void)state;
	const char *text = "---\na: 1\nb: 2\n...\nbody\n";
	struct split s = split(text);
	assert_true(s.ok);
	assert_int_equal(s.yaml_len, 10);
	assert_string_equal(text + s.body_off, "body\n");
	assert_int_equal(s.body_line, 5);
}

static void dashes_with_trailing_blanks_still_count(void **state)
{
	(void)state;
	const char *text = "--- \na: 1\n---\t\nbody\n";
	struct split s = split(text);
	assert_true(s.ok);
	assert_int_equal(s.yaml_len, 5);
	assert_string_equal(text + s.body_off, "body\n");
	assert_int_equal(s.body_line, 4);
}

static void empty_front_matter_has_no_yaml(void **state)
{
	(void)state;
	const char *text = "---\n---\nbody\n";
	struct split s = split(text);
	assert_true(s.ok);
	assert_int_equal(s.yaml_len, 0);
	assert_string_equal(text + s.body_off, "body\n");
	assert_int_equal(s.body_line, 3);
}

static void closer_at_end_of_file_leaves_an_empty_body(void **state)
{
	(void)state;
	const char *text = "---\na: 1\n---";
	struct split s = split(text);
	assert_true(s.ok);
	assert_int_equal(s.yaml_len, 5);
	assert_int_equal(s.body_off, strlen(text));
	assert_int_equal(s.body_line, 4);
}

static void unclosed_front_matter_fails(void **state)
{
	(void)state;
	assert_false(split("---\ntitle: x\n").ok);
	assert_false(split("---\ntitle: x").ok);
	assert_false(split("---\n").ok);
	assert_false(split("---").ok);
}

static void four_dashes_are_not_front_matter(void **state)
{
	(void)state;
	struct split s = split("----\na: 1\n----\n");
	assert_true(s.ok);
	assert_int_equal(s.yaml_len, 0);
	assert_int_equal(s.body_off, 0);
}

static void dashes_after_the_first_line_are_not_front_matter(void **state)
{
	(void)state;
	struct split s = split("Text\n---\na: 1\n---\n");
	assert_true(s.ok);
	assert_int_equal(s.yaml_len, 0);
	assert_int_equal(s.body_off, 0);
	assert_int_equal(s.body_line, 1);
}

static void dates_are_checked_against_the_calendar(void **state)
{
	(void)state;
	assert_true(date_valid("2024-04-08"));
	assert_true(date_valid("2024-01-31"));
	assert_true(date_valid("2024-12-31"));
	assert_false(date_valid("2024-04-31"));
	assert_false(date_valid("2024-04-00"));
	assert_false(date_valid("2024-13-01"));
	assert_false(date_valid("2024-00-10"));
}

static void february_29_needs_a_leap_year(void **state)
{
	(void)state;
	assert_true(date_valid("2024-02-29"));
	assert_true(date_valid("2000-02-29"));
	assert_false(date_valid("2023-02-29"));
	assert_false(date_valid("1900-02-29"));
	assert_false(date_valid("2024-02-30"));
	assert_true(date_valid("2023-02-28"));
}

static void date_may_carry_a_time(void **state)
{
	(void)state;
	assert_true(date_valid("2024-04-08T14:09:43"));
	assert_true(date_valid("2024-04-08T14:09"));
	assert_true(date_valid("2024-04-08 14:09"));
	assert_true(date_valid("2024-04-08 00:00:00"));
	assert_true(date_valid("2024-04-08T23:59:59Z"));
	assert_false(date_valid("2024-04-08T24:00"));
	assert_false(date_valid("2024-04-08T14:60"));
	assert_false(date_valid("2024-04-08T14"));
	assert_false(date_valid("2024-04-08T"));
	assert_false(date_valid("2024-04-08 14:09:4"));
	assert_false(date_valid("2024-04-08t14:09"));
}

static void date_with_trailing_junk_is_invalid(void **state)
{
	(void)state;
	assert_false(date_valid("2024-04-08x"));
	assert_false(date_valid("2024-04-08 "));
	assert_false(date_valid("2024-04-08T14:09:43 junk"));
	assert_false(date_valid("2024-04-08T14:09:43ZZ"));
}

static void malformed_dates_are_invalid(void **state)
{
	(void)state;
	assert_false(date_valid(""));
	assert_false(date_valid("2024-4-8"));
	assert_false(date_valid("24-04-08"));
	assert_false(date_valid("2024/04/08"));
	assert_false(date_valid("April 8"));
	assert_false(date_valid("2024-04-0"));
	assert_false(date_valid("20240408"));
}

static void load_reads_the_front_matter_fields(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\n"
				 "title: \"Homework 7: AI accelerators\"\n"
				 "author: A. Student\n"
				 "date: 2024-04-08\n"
				 "summary: One line.\n"
				 "draft: true\n"
				 "runs:\n"
				 "  cs512: logs/a.log\n"
				 "---\n"
				 "# Body\n"));
	fx_expect(&fx, "");
	assert_string_equal(fx.r.path, fx.path);
	assert_string_equal(fx.r.dir, fx.dir);
	assert_string_equal(fx.r.slug, "hw07");
	assert_string_equal(fx.r.title, "Homework 7: AI accelerators");
	assert_string_equal(fx.r.author, "A. Student");
	assert_string_equal(fx.r.date, "2024-04-08");
	assert_string_equal(fx.r.summary, "One line.");
	assert_true(fx.r.draft);
	assert_int_equal(fx.r.meta->kind, VALUE_MAP);
	assert_int_equal(fx.r.meta->count, 6);
	assert_non_null(value_get(fx.r.meta, "runs"));
	assert_string_equal(fx.r.text + fx.r.body_off, "# Body\n");
	assert_int_equal(fx.r.body_line, 10);
	assert_int_equal(fx.r.len, strlen(fx.r.text));
	assert_int_equal(diag_errors(fx.c.d), 0);
	assert_int_equal(diag_warnings(fx.c.d), 0);
	fx_close(&fx);
}

static void load_without_front_matter_gives_empty_fields(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "# Just a body\n"));
	fx_expect(&fx, "");
	assert_string_equal(fx.r.title, "");
	assert_string_equal(fx.r.author, "");
	assert_string_equal(fx.r.date, "");
	assert_string_equal(fx.r.summary, "");
	assert_false(fx.r.draft);
	assert_non_null(fx.r.meta);
	assert_int_equal(fx.r.meta->kind, VALUE_MAP);
	assert_int_equal(fx.r.meta->count, 0);
	assert_int_equal(fx.r.body_off, 0);
	assert_int_equal(fx.r.body_line, 1);
	assert_null(fx.r.html);
	fx_close(&fx);
}

static void empty_file_is_a_report_with_an_empty_body(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, ""));
	fx_expect(&fx, "");
	assert_int_equal(fx.r.len, 0);
	assert_non_null(fx.r.text);
	assert_int_equal(fx.r.text[0], '\0');
	assert_int_equal(fx.r.body_off, 0);
	assert_string_equal(fx.r.title, "");
	fx_close(&fx);
}

static void empty_front_matter_is_fine(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\n---\nbody\n"));
	fx_expect(&fx, "");
	assert_int_equal(fx.r.meta->count, 0);
	assert_int_equal(fx.r.body_line, 3);
	fx_close(&fx);
}

static void front_matter_of_comments_only_is_fine(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\n# nothing yet\n---\nbody\n"));
	fx_expect(&fx, "");
	assert_int_equal(fx.r.meta->kind, VALUE_MAP);
	assert_string_equal(fx.r.title, "");
	fx_close(&fx);
}

static void list_of_authors_is_joined_with_commas(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\nauthor: [A. One, B. Two, C. Three]\n---\n"));
	fx_expect(&fx, "");
	assert_string_equal(fx.r.author, "A. One, B. Two, C. Three");
	fx_close(&fx);
}

static void block_list_of_authors_is_joined_too(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\nauthor:\n  - Ann\n  - Bob\n---\n"));
	assert_string_equal(fx.r.author, "Ann, Bob");
	fx_close(&fx);
}

static void author_that_is_not_a_name_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "---\nauthor: [Ann, {x: 1}]\n---\n"));
	fx_expect(&fx, "%1$s:2:15: error: each author must be a name\n"
		       "    2 | author: [Ann, {x: 1}]\n"
		       "      |               ^~~~~~\n");
	assert_int_equal(diag_errors(fx.c.d), 1);
	fx_close(&fx);
}

static void caret_after_an_accented_name_points_at_the_value(void **state)
{
	(void)state;
	struct fixture fx;
	/* ë is two bytes: the caret must still sit under the '{'. */
	assert_false(fx_load(&fx, "---\nauthor: [Zo\xc3\xab, {x: 1}]\n---\n"));
	if (!strstr(cap_text(&fx.c), "error: each author must be a name\n"
				     "    2 | author: [Zo\xc3\xab, {x: 1}]\n"
				     "      |               ^~~~~~\n"))
		fail_msg("reported as:\n%s", cap_text(&fx.c));
	fx_close(&fx);
}

static void number_title_keeps_its_text(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\ntitle: 1.10\nsummary: 007\n---\n"));
	fx_expect(&fx, "");
	assert_string_equal(fx.r.title, "1.10");
	assert_string_equal(fx.r.summary, "007");
	fx_close(&fx);
}

static void null_fields_are_empty(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\ntitle:\nauthor: ~\n---\n"));
	fx_expect(&fx, "");
	assert_string_equal(fx.r.title, "");
	assert_string_equal(fx.r.author, "");
	fx_close(&fx);
}

static void date_with_a_time_is_kept_as_written(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\ndate: 2024-04-08 14:09\n---\n"));
	fx_expect(&fx, "");
	assert_string_equal(fx.r.date, "2024-04-08 14:09");
	fx_close(&fx);
}

static void draft_false_is_read(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\ndraft: false\n---\n"));
	assert_false(fx.r.draft);
	fx_close(&fx);
}

static void crlf_report_is_read_without_carriage_returns(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\r\ntitle: Windows\r\ndate: 2024-04-08\r\n---\r\nbody\r\n"));
	fx_expect(&fx, "");
	assert_string_equal(fx.r.title, "Windows");
	assert_string_equal(fx.r.date, "2024-04-08");
	assert_string_equal(fx.r.text + fx.r.body_off, "body\r\n");
	assert_int_equal(fx.r.body_line, 5);
	fx_close(&fx);
}

static void report_with_a_bom_is_read(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "\xEF\xBB\xBF---\ntitle: BOM\n---\nbody\n"));
	fx_expect(&fx, "");
	assert_string_equal(fx.r.title, "BOM");
	assert_string_equal(fx.r.text + fx.r.body_off, "body\n");
	fx_close(&fx);
}

static void bad_date_is_an_error_at_the_value(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "---\ntitle: T\ndate: 2024-13-01\n---\nbody\n"));
	fx_expect(&fx, "%1$s:3:7: error: date '2024-13-01' is not a date: write it as YYYY-MM-DD (a real day), e.g. 2024-04-08\n"
		       "    3 | date: 2024-13-01\n"
		       "      |       ^~~~~~~~~~\n");
	assert_int_equal(diag_errors(fx.c.d), 1);
	fx_close(&fx);
}

static void unquoted_non_date_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "---\ndate: April 8\n---\n"));
	fx_expect(&fx, "%1$s:2:7: error: date 'April 8' is not a date: write it as YYYY-MM-DD (a real day), e.g. 2024-04-08\n"
		       "    2 | date: April 8\n"
		       "      |       ^~~~~~~\n");
	fx_close(&fx);
}

static void draft_maybe_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "---\ntitle: T\ndraft: maybe\n---\n"));
	fx_expect(&fx, "%1$s:3:8: error: 'draft' must be true or false\n"
		       "    3 | draft: maybe\n"
		       "      |        ^~~~~\n");
	assert_int_equal(diag_errors(fx.c.d), 1);
	assert_false(fx.r.draft);
	fx_close(&fx);
}

static void list_title_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "---\ntitle: [a, b]\n---\n"));
	fx_expect(&fx, "%1$s:2:8: error: 'title' must be text, not a list\n"
		       "    2 | title: [a, b]\n"
		       "      |        ^~~~~~\n");
	assert_int_equal(diag_errors(fx.c.d), 1);
	assert_string_equal(fx.r.title, "");
	fx_close(&fx);
}

static void map_summary_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "---\nsummary:\n  a: 1\n---\n"));
	fx_expect(&fx, "%1$s:3:3: error: 'summary' must be text, not a map\n"
		       "    3 |   a: 1\n"
		       "      |   ^\n");
	fx_close(&fx);
}

static void front_matter_that_is_a_list_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "---\n- a\n- b\n---\nbody\n"));
	fx_expect(&fx, "%1$s:2:1: error: front matter must be a map of keys (title: ..., date: ...)\n"
		       "    2 | - a\n"
		       "      | ^\n");
	assert_int_equal(diag_errors(fx.c.d), 1);
	fx_close(&fx);
}

static void front_matter_that_is_text_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "---\njust words\n---\n"));
	fx_expect(&fx, "%1$s:2:1: error: front matter must be a map of keys (title: ..., date: ...)\n"
		       "    2 | just words\n"
		       "      | ^~~~~~~~~~\n");
	fx_close(&fx);
}

static void unknown_key_warns_with_did_you_mean(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\ntitel: Hello\n---\n"));
	fx_expect(&fx, "%1$s:2:1: warning: unknown front matter key 'titel' (did you mean 'title'?)\n"
		       "    2 | titel: Hello\n"
		       "      | ^~~~~\n");
	assert_int_equal(diag_errors(fx.c.d), 0);
	assert_int_equal(diag_warnings(fx.c.d), 1);
	assert_string_equal(fx.r.title, "");
	fx_close(&fx);
}

static void unknown_key_far_from_all_lists_the_known_keys(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\ntitle: T\ncolour: red\n---\n"));
	fx_expect(&fx, "%1$s:3:1: warning: unknown front matter key 'colour' (known keys: title, author, "
		       "date, summary, draft, runs, bibliography, citation_style, toc, number_sections, "
		       "allow_numbers, expect)\n"
		       "    3 | colour: red\n"
		       "      | ^~~~~~\n");
	assert_int_equal(diag_warnings(fx.c.d), 1);
	assert_string_equal(fx.r.title, "T");
	fx_close(&fx);
}

static void every_error_in_the_front_matter_is_reported(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "---\ndate: 2024-02-30\ndraft: 1\n---\n"));
	fx_expect(&fx, "%1$s:2:7: error: date '2024-02-30' is not a date: write it as YYYY-MM-DD (a real day), e.g. 2024-04-08\n"
		       "    2 | date: 2024-02-30\n"
		       "      |       ^~~~~~~~~~\n"
		       "%1$s:3:8: error: 'draft' must be true or false\n"
		       "    3 | draft: 1\n"
		       "      |        ^\n");
	assert_int_equal(diag_errors(fx.c.d), 2);
	fx_close(&fx);
}

static void malformed_front_matter_is_reported_at_its_line_in_the_file(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "---\ntitle: T\ntags: [a, b\n---\nbody\n"));
	fx_expect(&fx, "%1$s:4:1: error: malformed YAML: did not find expected ',' or ']'\n"
		       "    4 | ---\n"
		       "      | ^\n"
		       "%1$s:3:7: note: while parsing a flow sequence (it starts here)\n"
		       "    3 | tags: [a, b\n"
		       "      |       ^\n");
	assert_int_equal(diag_errors(fx.c.d), 1);
	fx_close(&fx);
}

static void duplicate_front_matter_key_names_both_lines(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "---\ntitle: a\ntitle: b\n---\n"));
	fx_expect(&fx, "%1$s:3:1: error: duplicate key 'title' (first given on line 2)\n"
		       "    3 | title: b\n"
		       "      | ^~~~~\n");
	fx_close(&fx);
}

static void unclosed_front_matter_is_an_error_at_the_opening(void **state)
{
	(void)state;
	struct fixture fx;
	assert_false(fx_load(&fx, "---\ntitle: T\n\n# Body\n"));
	fx_expect(&fx, "%1$s:1:1: error: front matter is never closed: end it with a line holding only ---\n"
		       "    1 | ---\n"
		       "      | ^~~\n");
	assert_int_equal(diag_errors(fx.c.d), 1);
	fx_close(&fx);
}

static void missing_file_is_an_error_naming_errno(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct report r;
	assert_false(report_load(&r, "/nonexistent/logdown/hw07.md", "hw07", c.d));
	assert_string_equal(cap_text(&c), "/nonexistent/logdown/hw07.md: error: cannot read: No such file or directory\n");
	assert_int_equal(diag_errors(c.d), 1);
	/* The report is still safe to free, with its fields empty. */
	assert_string_equal(r.title, "");
	report_free(&r, c.d);
	cap_close(&c);
}

static void folder_is_an_error(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	struct capture c;
	cap_open(&c);
	struct report r;
	assert_false(report_load(&r, dir, "x", c.d));
	char *want = xasprintf("%s: error: cannot read: Is a directory\n", dir);
	assert_string_equal(cap_text(&c), want);
	free(want);
	report_free(&r, c.d);
	cap_close(&c);
	drop_tmpdir(dir);
}

static void binary_file_is_an_error(void **state)
{
	(void)state;
	struct fixture fx;
	static const char bin[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
	fx_open(&fx, bin, sizeof bin - 1);
	assert_false(report_load(&fx.r, fx.path, "hw07", fx.c.d));
	fx_expect(&fx, "%1$s: error: this is a binary file, not Markdown text\n");
	assert_int_equal(diag_errors(fx.c.d), 1);
	fx_close(&fx);
}

static void source_stays_quotable_until_freed(void **state)
{
	(void)state;
	struct fixture fx;
	assert_true(fx_load(&fx, "---\ntitle: T\n---\nline four\n"));
	/* A later stage reports into the body: the text is registered. */
	struct loc at = {fx.path, 4, 6, 4};
	diag_error(fx.c.d, at, "later");
	fx_expect(&fx, "%1$s:4:6: error: later\n"
		       "    4 | line four\n"
		       "      |      ^~~~\n");
	fx_close(&fx);
}

static void free_of_a_zeroed_report_is_harmless(void **state)
{
	(void)state;
	struct report r;
	memset(&r, 0, sizeof r);
	report_free(&r, NULL);
	report_free(&r, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(slug_of_a_file_is_its_name_without_md),
		cmocka_unit_test(slug_of_bundle_index_is_its_folder),
		cmocka_unit_test(slug_is_lowercased_with_odd_characters_as_dashes),
		cmocka_unit_test(slug_turns_each_non_ascii_character_into_one_dash),
		cmocka_unit_test(site_index_has_no_slug),
		cmocka_unit_test(names_ending_in_index_keep_it),
		cmocka_unit_test(non_markdown_files_have_no_slug),
		cmocka_unit_test(root_prefix_climbs_one_level_per_folder),
		cmocka_unit_test(file_without_front_matter_is_all_body),
		cmocka_unit_test(front_matter_is_between_the_dashes),
		cmocka_unit_test(front_matter_after_a_bom_is_found),
		cmocka_unit_test(bom_is_skipped_without_front_matter),
		cmocka_unit_test(crlf_front_matter_is_found),
		cmocka_unit_test(dots_close_front_matter_too),
		cmocka_unit_test(dashes_with_trailing_blanks_still_count),
		cmocka_unit_test(empty_front_matter_has_no_yaml),
		cmocka_unit_test(closer_at_end_of_file_leaves_an_empty_body),
		cmocka_unit_test(unclosed_front_matter_fails),
		cmocka_unit_test(four_dashes_are_not_front_matter),
		cmocka_unit_test(dashes_after_the_first_line_are_not_front_matter),
		cmocka_unit_test(dates_are_checked_against_the_calendar),
		cmocka_unit_test(february_29_needs_a_leap_year),
		cmocka_unit_test(date_may_carry_a_time),
		cmocka_unit_test(date_with_trailing_junk_is_invalid),
		cmocka_unit_test(malformed_dates_are_invalid),
		cmocka_unit_test(load_reads_the_front_matter_fields),
		cmocka_unit_test(load_without_front_matter_gives_empty_fields),
		cmocka_unit_test(empty_file_is_a_report_with_an_empty_body),
		cmocka_unit_test(empty_front_matter_is_fine),
		cmocka_unit_test(front_matter_of_comments_only_is_fine),
		cmocka_unit_test(list_of_authors_is_joined_with_commas),
		cmocka_unit_test(block_list_of_authors_is_joined_too),
		cmocka_unit_test(author_that_is_not_a_name_is_an_error),
		cmocka_unit_test(caret_after_an_accented_name_points_at_the_value),
		cmocka_unit_test(number_title_keeps_its_text),
		cmocka_unit_test(null_fields_are_empty),
		cmocka_unit_test(date_with_a_time_is_kept_as_written),
		cmocka_unit_test(draft_false_is_read),
		cmocka_unit_test(crlf_report_is_read_without_carriage_returns),
		cmocka_unit_test(report_with_a_bom_is_read),
		cmocka_unit_test(bad_date_is_an_error_at_the_value),
		cmocka_unit_test(unquoted_non_date_is_an_error),
		cmocka_unit_test(draft_maybe_is_an_error),
		cmocka_unit_test(list_title_is_an_error),
		cmocka_unit_test(map_summary_is_an_error),
		cmocka_unit_test(front_matter_that_is_a_list_is_an_error),
		cmocka_unit_test(front_matter_that_is_text_is_an_error),
		cmocka_unit_test(unknown_key_warns_with_did_you_mean),
		cmocka_unit_test(unknown_key_far_from_all_lists_the_known_keys),
		cmocka_unit_test(every_error_in_the_front_matter_is_reported),
		cmocka_unit_test(malformed_front_matter_is_reported_at_its_line_in_the_file),
		cmocka_unit_test(duplicate_front_matter_key_names_both_lines),
		cmocka_unit_test(unclosed_front_matter_is_an_error_at_the_opening),
		cmocka_unit_test(missing_file_is_an_error_naming_errno),
		cmocka_unit_test(folder_is_an_error),
		cmocka_unit_test(binary_file_is_an_error),
		cmocka_unit_test(source_stays_quotable_until_freed),
		cmocka_unit_test(free_of_a_zeroed_report_is_harmless),
	};
	return cmocka_run_group_tests(tests, NULL, drop_leftovers);
}
