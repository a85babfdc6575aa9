/* test_diag.c: the text, GitHub and JSON diagnostic formats. */
#define _XOPEN_SOURCE 700 /* posix_openpt(), for a terminal to test colour on */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/util.h"
#include "capture.h"

/* A fresh folder under /tmp; caller removes it with rm_dir(). */
static char *make_tmpdir(void)
{
	char *dir = xstrdup("/tmp/logdown-test-diag-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return dir;
}

static char *write_tmp(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static const char two_lines[] = "title: x\ndate: 2024-13-01\n";

static void text_error_quotes_the_line_with_a_caret_and_tildes(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "content/a.md", two_lines, strlen(two_lines));
	struct loc at = {"content/a.md", 2, 7, 10};
	diag_error(c.d, at, "date '%s' is not a date", "2024-13-01");
	assert_string_equal(cap_text(&c), "content/a.md:2:7: error: date '2024-13-01' is not a date\n"
					  "    2 | date: 2024-13-01\n"
					  "      |       ^~~~~~~~~~\n");
	cap_close(&c);
}

/* Many sources added and every other one forgotten (a build of many
 * reports): each one left still quotes its own line, a forgotten one
 * quotes nothing. */
static void sources_forgotten_among_many_quote_nothing_the_rest_quote_theirs(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	char *names[300], *texts[300];
	for (int i = 0; i < 300; i++) {
		names[i] = xasprintf("content/r%03d.md", i);
		texts[i] = xasprintf("line of %03d\n", i);
		diag_add_source(c.d, names[i], texts[i], strlen(texts[i]));
	}
	for (int i = 0; i < 300; i += 2)
		diag_forget_source(c.d, names[i]);
	for (int i = 0; i < 300; i++) {
		cap_close(&c);
		cap_open_as(&c, DIAG_TEXT, false);
		/* the capture's sink is new: sources again, as the build keeps them */
		for (int k = 1; k < 300; k += 2)
			diag_add_source(c.d, names[k], texts[k], strlen(texts[k]));
		for (int k = 0; k < 300; k += 30)
			diag_forget_source(c.d, names[k + 1]);
		struct loc at = {names[i], 1, 1, 1};
		diag_error(c.d, at, "x");
		bool quoted = i % 2 == 1 && (i - 1) % 30 != 0;
		char *want = quoted ? xasprintf("%s:1:1: error: x\n    1 | line of %03d\n      | ^\n",
						names[i], i)
				    : xasprintf("%s:1:1: error: x\n", names[i]);
		assert_string_equal(cap_text(&c), want);
		free(want);
	}
	cap_close(&c);
	for (int i = 0; i < 300; i++) {
		free(names[i]);
		free(texts[i]);
	}
}

static void byte_order_mark_is_not_quoted_and_not_counted(void **state)
{
	(void)state;
	static const char text[] = "\xEF\xBB\xBFtitle: [x\n";
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "site.yaml", text, strlen(text));
	struct loc at = {"site.yaml", 1, 8, 1};
	diag_error(c.d, at, "unclosed");
	assert_string_equal(cap_text(&c), "site.yaml:1:8: error: unclosed\n"
					  "    1 | title: [x\n"
					  "      |        ^\n");
	cap_close(&c);
}

static void caret_of_len_zero_or_one_is_a_single_caret(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "a.md", two_lines, strlen(two_lines));
	struct loc at0 = {"a.md", 1, 1, 0};
	struct loc at1 = {"a.md", 1, 8, 1};
	diag_error(c.d, at0, "zero");
	diag_warning(c.d, at1, "one");
	assert_string_equal(cap_text(&c), "a.md:1:1: error: zero\n"
					  "    1 | title: x\n"
					  "      | ^\n"
					  "a.md:1:8: warning: one\n"
					  "    1 | title: x\n"
					  "      |        ^\n");
	cap_close(&c);
}

static void line_number_is_right_aligned_in_five_columns(void **state)
{
	(void)state;
	struct buf text = BUF_INIT;
	for (int i = 1; i <= 12345; i++)
		buf_printf(&text, "line %d\n", i);
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "big.log", text.data, text.len);
	struct loc at = {"big.log", 12345, 6, 5};
	diag_note(c.d, at, "here");
	assert_string_equal(cap_text(&c), "big.log:12345:6: note: here\n"
					  "12345 | line 12345\n"
					  "      |      ^~~~~\n");
	cap_close(&c);
	buf_free(&text);
}

static void caret_after_a_tab_is_padded_with_the_tab(void **state)
{
	(void)state;
	const char *src = "\tloss = 2.5\n";
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "t.md", src, strlen(src));
	struct loc at = {"t.md", 1, 9, 3};
	diag_error(c.d, at, "bad");
	assert_string_equal(cap_text(&c), "t.md:1:9: error: bad\n"
					  "    1 | \tloss = 2.5\n"
					  "      | \t       ^~~\n");
	cap_close(&c);
}

static void caret_after_multibyte_characters_counts_characters(void **state)
{
	(void)state;
	/* "café = 1": é is two bytes, so '=' is byte 7 but the 6th character. */
	const char *src = "caf\xc3\xa9 = 1\n";
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "u.md", src, strlen(src));
	struct loc at = {"u.md", 1, 7, 1};
	diag_error(c.d, at, "here");
	assert_string_equal(cap_text(&c), "u.md:1:7: error: here\n"
					  "    1 | caf\xc3\xa9 = 1\n"
					  "      |      ^\n");
	cap_close(&c);
}

static void caret_after_three_and_four_byte_characters_lines_up(void **state)
{
	(void)state;
	/* U+4E2D (3 bytes) and U+1F600 (4 bytes), then "x" at byte 9. */
	const char *src = "\xe4\xb8\xad \xf0\x9f\x98\x80 x\n";
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "u.md", src, strlen(src));
	struct loc at = {"u.md", 1, 10, 1};
	diag_error(c.d, at, "x");
	assert_string_equal(cap_text(&c), "u.md:1:10: error: x\n"
					  "    1 | \xe4\xb8\xad \xf0\x9f\x98\x80 x\n"
					  "      |     ^\n");
	cap_close(&c);
}

static void tildes_under_multibyte_characters_count_characters(void **state)
{
	(void)state;
	/* "{{ größe }}" spans 11 characters in 13 bytes: one caret, ten tildes. */
	const char *src = "Die {{ gr\xc3\xb6\xc3\x9f" "e }} ist.\n";
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "u.md", src, strlen(src));
	struct loc at = {"u.md", 1, 5, 13};
	diag_error(c.d, at, "unknown");
	assert_string_equal(cap_text(&c), "u.md:1:5: error: unknown\n"
					  "    1 | Die {{ gr\xc3\xb6\xc3\x9f" "e }} ist.\n"
					  "      |     ^~~~~~~~~~~\n");
	cap_close(&c);
}

static void col_zero_quotes_the_line_without_a_caret(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "a.md", two_lines, strlen(two_lines));
	diag_error(c.d, loc_line("a.md", 2), "whole line");
	assert_string_equal(cap_text(&c), "a.md:2: error: whole line\n"
					  "    2 | date: 2024-13-01\n");
	cap_close(&c);
}

static void line_zero_names_the_file_and_quotes_nothing(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "a.md", two_lines, strlen(two_lines));
	struct loc at = {"a.md", 0, 5, 2};
	diag_error(c.d, at, "whole file");
	assert_string_equal(cap_text(&c), "a.md: error: whole file\n");
	cap_close(&c);
}

static void no_file_is_prefixed_with_the_program_name(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	struct loc none = {NULL, 0, 0, 0};
	diag_error(c.d, none, "cannot write %s: %s", "out", "No space left on device");
	assert_string_equal(cap_text(&c), "logdown: error: cannot write out: No space left on device\n");
	cap_close(&c);
}

static void unreadable_file_is_named_but_not_quoted(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	struct loc at = {"/nonexistent/logdown/x.md", 3, 2, 4};
	diag_error(c.d, at, "first");
	diag_error(c.d, at, "second");
	assert_string_equal(cap_text(&c), "/nonexistent/logdown/x.md:3:2: error: first\n"
					  "/nonexistent/logdown/x.md:3:2: error: second\n");
	assert_int_equal(diag_errors(c.d), 2);
	cap_close(&c);
}

static void folder_as_file_is_named_but_not_quoted(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	struct loc at = {dir, 1, 1, 1};
	diag_error(c.d, at, "is a folder");
	char *want = xasprintf("%s:1:1: error: is a folder\n", dir);
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	free(want);
	rmdir(dir);
	free(dir);
}

static void line_past_the_end_of_the_file_is_not_quoted(void **state)
{
	(void)state;
	const char *src = "one\ntwo";
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "a.md", src, strlen(src));
	struct loc at = {"a.md", 9, 1, 1};
	diag_error(c.d, at, "far");
	assert_string_equal(cap_text(&c), "a.md:9:1: error: far\n");
	cap_close(&c);
}

static void last_line_without_newline_is_quoted(void **state)
{
	(void)state;
	const char *src = "one\ntwo";
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "a.md", src, strlen(src));
	struct loc at = {"a.md", 2, 2, 2};
	diag_error(c.d, at, "end");
	assert_string_equal(cap_text(&c), "a.md:2:2: error: end\n"
					  "    2 | two\n"
					  "      |  ^~\n");
	cap_close(&c);
}

static void crlf_line_is_quoted_without_its_cr(void **state)
{
	(void)state;
	const char *src = "a: 1\r\nb: 2\r\n";
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "w.md", src, strlen(src));
	struct loc at = {"w.md", 2, 4, 1};
	diag_error(c.d, at, "crlf");
	assert_string_equal(cap_text(&c), "w.md:2:4: error: crlf\n"
					  "    2 | b: 2\n"
					  "      |    ^\n");
	cap_close(&c);
}

static void caret_past_the_end_of_the_line_stays_after_it(void **state)
{
	(void)state;
	const char *src = "ab\n";
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "a.md", src, strlen(src));
	struct loc at = {"a.md", 1, 40, 1};
	diag_error(c.d, at, "eol");
	assert_string_equal(cap_text(&c), "a.md:1:40: error: eol\n"
					  "    1 | ab\n"
					  "      |   ^\n");
	cap_close(&c);
}

static void unregistered_file_is_read_from_disk(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = write_tmp(dir, "r.md", "first\nsecond line\n");
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	struct loc at = {path, 2, 8, 4};
	diag_error(c.d, at, "from disk");
	char *want = xasprintf("%s:2:8: error: from disk\n"
			       "    2 | second line\n"
			       "      |        ^~~~\n",
			       path);
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	free(want);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

static void registered_source_is_quoted_instead_of_the_disk(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = write_tmp(dir, "r.md", "on disk\n");
	const char *mem = "in memory\n";
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, path, mem, strlen(mem));
	diag_error(c.d, loc_line(path, 1), "which");
	char *want = xasprintf("%s:1: error: which\n    1 | in memory\n", path);
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	free(want);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

static void forgotten_source_is_read_from_disk_again(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = write_tmp(dir, "r.md", "on disk\n");
	char *mem = xstrdup("in memory\n");
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, path, mem, strlen(mem));
	diag_forget_source(c.d, path);
	/* The text may go away once forgotten. */
	free(mem);
	diag_error(c.d, loc_line(path, 1), "which");
	char *want = xasprintf("%s:1: error: which\n    1 | on disk\n", path);
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	free(want);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

/* A file registered without text (too big to hold) is never quoted,
 * nor read from disk; not even an empty line 1. */
static void source_registered_without_text_is_not_quoted(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = write_tmp(dir, "big.log", "on disk\n");
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, path, NULL, 0);
	diag_error(c.d, loc_line(path, 1), "which");
	diag_warning(c.d, loc_line(path, 7), "later");
	char *want = xasprintf("%s:1: error: which\n%s:7: warning: later\n", path, path);
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	free(want);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

static void registering_again_replaces_the_text(void **state)
{
	(void)state;
	const char *v1 = "old\n", *v2 = "new\n";
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_add_source(c.d, "a.md", v1, strlen(v1));
	diag_add_source(c.d, "a.md", v2, strlen(v2));
	diag_error(c.d, loc_line("a.md", 1), "x");
	assert_string_equal(cap_text(&c), "a.md:1: error: x\n    1 | new\n");
	cap_close(&c);
}

static void forgetting_an_unknown_source_does_nothing(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_forget_source(c.d, "never.md");
	assert_string_equal(cap_text(&c), "");
	cap_close(&c);
}

static void github_format_is_a_workflow_command(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_GITHUB, false);
	struct loc at = {"content/a.md", 3, 4, 2};
	diag_error(c.d, at, "run 'x' is not defined");
	diag_warning(c.d, at, "unused");
	diag_note(c.d, at, "defined here");
	assert_string_equal(cap_text(&c), "::error file=content/a.md,line=3,col=4::run 'x' is not defined\n"
					  "::warning file=content/a.md,line=3,col=4::unused\n"
					  "::notice file=content/a.md,line=3,col=4::defined here\n");
	cap_close(&c);
}

static void github_format_never_quotes_the_source(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_GITHUB, false);
	diag_add_source(c.d, "a.md", two_lines, strlen(two_lines));
	struct loc at = {"a.md", 2, 7, 10};
	diag_error(c.d, at, "bad date");
	assert_string_equal(cap_text(&c), "::error file=a.md,line=2,col=7::bad date\n");
	cap_close(&c);
}

static void github_format_escapes_percent_and_line_breaks(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_GITHUB, false);
	struct loc at = {"a.md", 1, 0, 0};
	diag_error(c.d, at, "100%% done\nsecond\r\nthird");
	assert_string_equal(cap_text(&c), "::error file=a.md,line=1::100%25 done%0Asecond%0D%0Athird\n");
	cap_close(&c);
}

/* A file's name or a log line can carry escape sequences and bytes that
 * are not UTF-8: neither reaches the job's log raw. */
static void github_format_keeps_control_bytes_and_bad_utf8_out(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_GITHUB, false);
	struct loc at = {"a\x1b[2Jb\xff.md", 1, 1, 1};
	diag_error(c.d, at, "%s", "x\x1b]0;title\x07y \xc3\xa9 \xc3( \x7f \xc2\x9b" "2J \xc2\xa0");
	assert_string_equal(cap_text(&c), "::error file=a?[2Jb\xEF\xBF\xBD.md,line=1,col=1::"
					  "x?]0;title?y \xc3\xa9 \xEF\xBF\xBD( ? ?2J \xc2\xa0\n");
	cap_close(&c);
}

static void github_format_escapes_colon_and_comma_in_the_file(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_GITHUB, false);
	struct loc at = {"c:a,b%.md", 2, 1, 1};
	diag_error(c.d, at, "a: b, c");
	assert_string_equal(cap_text(&c), "::error file=c%3Aa%2Cb%25.md,line=2,col=1::a: b, c\n");
	cap_close(&c);
}

static void github_format_without_a_location(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_GITHUB, false);
	struct loc none = {NULL, 0, 0, 0};
	diag_error(c.d, none, "no site");
	diag_warning(c.d, loc_line("site.yaml", 0), "whole file");
	assert_string_equal(cap_text(&c), "::error::no site\n"
					  "::warning file=site.yaml::whole file\n");
	cap_close(&c);
}

static void json_format_is_one_object_per_line(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_JSON, false);
	diag_add_source(c.d, "a.md", two_lines, strlen(two_lines));
	struct loc at = {"a.md", 2, 7, 10};
	diag_error(c.d, at, "bad date");
	diag_warning(c.d, loc_line("a.md", 1), "w");
	diag_note(c.d, at, "n");
	assert_string_equal(cap_text(&c),
			    "{\"severity\":\"error\",\"file\":\"a.md\",\"line\":2,\"col\":7,\"message\":\"bad date\"}\n"
			    "{\"severity\":\"warning\",\"file\":\"a.md\",\"line\":1,\"col\":0,\"message\":\"w\"}\n"
			    "{\"severity\":\"note\",\"file\":\"a.md\",\"line\":2,\"col\":7,\"message\":\"n\"}\n");
	cap_close(&c);
}

static void json_format_escapes_quotes_backslashes_and_controls(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_JSON, false);
	struct loc at = {"dir\\\"q\".md", 1, 1, 1};
	diag_error(c.d, at, "say \"hi\"\nnext\ttab\x01\x1f\r end \xc3\xa9 \xc2\x9b\xc2\x80\xc2\xa0");
	assert_string_equal(cap_text(&c),
			    "{\"severity\":\"error\",\"file\":\"dir\\\\\\\"q\\\".md\",\"line\":1,\"col\":1,"
			    "\"message\":\"say \\\"hi\\\"\\nnext\\ttab\\u0001\\u001f\\r end \xc3\xa9 "
			    "\\u009b\\u0080\xc2\xa0\"}\n");
	cap_close(&c);
}

/* A message that quotes a binary log (or a file name that is not
 * UTF-8) must still be JSON: each stray byte is one \ufffd, and valid
 * UTF-8 around it is kept as it is. */
static void json_format_writes_bytes_that_are_not_utf8_as_replacement_characters(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_JSON, false);
	struct loc at = {"logs/\xff.log", 1, 1, 1};
	diag_error(c.d, at, "found 'loss=\xff\xfe 1', '\xe2\x82' and '\xe2\x82\xac'");
	assert_string_equal(cap_text(&c),
			    "{\"severity\":\"error\",\"file\":\"logs/\\ufffd.log\",\"line\":1,\"col\":1,"
			    "\"message\":\"found 'loss=\\ufffd\\ufffd 1', '\\ufffd\\ufffd' and "
			    "'\xe2\x82\xac'\"}\n");
	cap_close(&c);
}

static void json_format_without_a_file_gives_null(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_JSON, false);
	struct loc none = {NULL, 0, 0, 0};
	diag_error(c.d, none, "x");
	assert_string_equal(cap_text(&c),
			    "{\"severity\":\"error\",\"file\":null,\"line\":0,\"col\":0,\"message\":\"x\"}\n");
	cap_close(&c);
}

static void errors_and_warnings_are_counted_separately(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	struct loc none = {NULL, 0, 0, 0};
	assert_int_equal(diag_errors(c.d), 0);
	assert_int_equal(diag_warnings(c.d), 0);
	diag_error(c.d, none, "e1");
	diag_warning(c.d, none, "w1");
	diag_warning(c.d, none, "w2");
	diag_error(c.d, none, "e2");
	diag_error(c.d, none, "e3");
	assert_int_equal(diag_errors(c.d), 3);
	assert_int_equal(diag_warnings(c.d), 2);
	cap_close(&c);
}

static void notes_are_not_counted(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	struct loc none = {NULL, 0, 0, 0};
	diag_note(c.d, none, "context");
	diag_note(c.d, none, "more");
	assert_int_equal(diag_errors(c.d), 0);
	assert_int_equal(diag_warnings(c.d), 0);
	assert_string_equal(cap_text(&c), "logdown: note: context\nlogdown: note: more\n");
	cap_close(&c);
}

static void strict_mode_turns_warnings_into_errors(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	diag_set_strict(c.d, true);
	struct loc at = {"a.md", 0, 0, 0};
	diag_warning(c.d, at, "unknown key");
	diag_note(c.d, at, "a note stays a note");
	assert_int_equal(diag_errors(c.d), 1);
	assert_int_equal(diag_warnings(c.d), 0);
	assert_string_equal(cap_text(&c), "a.md: error: unknown key\na.md: note: a note stays a note\n");
	cap_close(&c);
}

static void strict_mode_applies_to_github_and_json_too(void **state)
{
	(void)state;
	struct capture g, j;
	cap_open_as(&g, DIAG_GITHUB, false);
	cap_open_as(&j, DIAG_JSON, false);
	diag_set_strict(g.d, true);
	diag_set_strict(j.d, true);
	struct loc at = {"a.md", 2, 1, 1};
	diag_warning(g.d, at, "w");
	diag_warning(j.d, at, "w");
	assert_string_equal(cap_text(&g), "::error file=a.md,line=2,col=1::w\n");
	assert_string_equal(cap_text(&j),
			    "{\"severity\":\"error\",\"file\":\"a.md\",\"line\":2,\"col\":1,\"message\":\"w\"}\n");
	assert_int_equal(diag_errors(g.d), 1);
	assert_int_equal(diag_errors(j.d), 1);
	cap_close(&g);
	cap_close(&j);
}

static void strict_mode_can_be_turned_off_again(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	struct loc none = {NULL, 0, 0, 0};
	diag_set_strict(c.d, true);
	diag_set_strict(c.d, false);
	diag_warning(c.d, none, "w");
	assert_int_equal(diag_errors(c.d), 0);
	assert_int_equal(diag_warnings(c.d), 1);
	assert_string_equal(cap_text(&c), "logdown: warning: w\n");
	cap_close(&c);
}

static void colour_escapes_appear_only_with_colour(void **state)
{
	(void)state;
	const char *src = "x: 1\n";
	struct capture on, off;
	cap_open_as(&on, DIAG_TEXT, true);
	cap_open_as(&off, DIAG_TEXT, false);
	diag_add_source(on.d, "a.md", src, strlen(src));
	diag_add_source(off.d, "a.md", src, strlen(src));
	struct loc at = {"a.md", 1, 4, 1};
	diag_error(on.d, at, "bad");
	diag_error(off.d, at, "bad");
	assert_string_equal(cap_text(&on), "\033[1ma.md:1:4: \033[1;31merror:\033[0m\033[1m bad\033[0m\n"
					   "    1 | x: 1\n"
					   "      |    \033[1;32m^\033[0m\n");
	assert_null(strchr(cap_text(&off), '\033'));
	assert_string_equal(cap_text(&off), "a.md:1:4: error: bad\n"
					    "    1 | x: 1\n"
					    "      |    ^\n");
	cap_close(&on);
	cap_close(&off);
}

static void colour_names_warnings_and_notes_in_their_colours(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, true);
	struct loc none = {NULL, 0, 0, 0};
	diag_warning(c.d, none, "w");
	diag_note(c.d, none, "n");
	assert_string_equal(cap_text(&c), "\033[1mlogdown: \033[1;35mwarning:\033[0m\033[1m w\033[0m\n"
					  "\033[1mlogdown: \033[1;36mnote:\033[0m\033[1m n\033[0m\n");
	cap_close(&c);
}

static void github_and_json_never_use_colour(void **state)
{
	(void)state;
	struct capture g, j;
	cap_open_as(&g, DIAG_GITHUB, true);
	cap_open_as(&j, DIAG_JSON, true);
	struct loc at = {"a.md", 1, 1, 1};
	diag_error(g.d, at, "x");
	diag_error(j.d, at, "x");
	assert_null(strchr(cap_text(&g), '\033'));
	assert_null(strchr(cap_text(&j), '\033'));
	cap_close(&g);
	cap_close(&j);
}

/* The saved NO_COLOR, restored after each colour test. */
static char *saved_no_color;

static int save_no_color(void **state)
{
	(void)state;
	const char *v = getenv("NO_COLOR");
	saved_no_color = v ? xstrdup(v) : NULL;
	return 0;
}

static int restore_no_color(void **state)
{
	(void)state;
	if (saved_no_color)
		setenv("NO_COLOR", saved_no_color, 1);
	else
		unsetenv("NO_COLOR");
	free(saved_no_color);
	saved_no_color = NULL;
	return 0;
}

/* The terminal end of a new pseudo-terminal, or -1 where there is none. */
static int open_terminal(int *master)
{
	*master = posix_openpt(O_RDWR | O_NOCTTY);
	if (*master < 0)
		return -1;
	if (grantpt(*master) != 0 || unlockpt(*master) != 0) {
		close(*master);
		return -1;
	}
	const char *name = ptsname(*master);
	int fd = name ? open(name, O_RDWR | O_NOCTTY) : -1;
	if (fd < 0)
		close(*master);
	return fd;
}

static void colour_is_wanted_on_a_terminal(void **state)
{
	(void)state;
	int master, tty = open_terminal(&master);
	if (tty < 0)
		skip();
	unsetenv("NO_COLOR");
	assert_true(diag_want_colour(tty));
	close(tty);
	close(master);
}

static void no_color_turns_colour_off_even_on_a_terminal(void **state)
{
	(void)state;
	int master, tty = open_terminal(&master);
	if (tty < 0)
		skip();
	setenv("NO_COLOR", "1", 1);
	assert_false(diag_want_colour(tty));
	close(tty);
	close(master);
}

static void empty_no_color_is_ignored(void **state)
{
	(void)state;
	int master, tty = open_terminal(&master);
	if (tty < 0)
		skip();
	setenv("NO_COLOR", "", 1);
	assert_true(diag_want_colour(tty));
	close(tty);
	close(master);
}

static void colour_is_not_wanted_on_a_pipe_or_file(void **state)
{
	(void)state;
	unsetenv("NO_COLOR");
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_false(diag_want_colour(p[1]));
	close(p[0]);
	close(p[1]);
	int fd = open("/dev/null", O_WRONLY);
	assert_true(fd >= 0);
	assert_false(diag_want_colour(fd));
	close(fd);
}

static void colour_is_not_wanted_on_a_closed_fd(void **state)
{
	(void)state;
	unsetenv("NO_COLOR");
	assert_false(diag_want_colour(-1));
}

static void no_color_turns_colour_off_on_a_pipe_too(void **state)
{
	(void)state;
	setenv("NO_COLOR", "1", 1);
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_false(diag_want_colour(p[1]));
	close(p[0]);
	close(p[1]);
}

static void free_of_null_does_nothing(void **state)
{
	(void)state;
	diag_free(NULL);
}

/* A deferred sink writes nothing until flushed, then writes exactly what
 * its parent would have, quoting lines of sources since forgotten. */
static void deferred_sink_keeps_diagnostics_until_flushed(void **state)
{
	(void)state;
	struct capture direct, parent;
	cap_open_as(&direct, DIAG_TEXT, false);
	cap_open_as(&parent, DIAG_TEXT, false);
	diag_set_strict(direct.d, true);
	diag_set_strict(parent.d, true);
	static const char src[] = "one\ntwo {{ x }}\n";
	static const char parent_src[] = "front: matter\n";
	diag_add_source(direct.d, "r.md", parent_src, sizeof parent_src - 1);
	diag_add_source(parent.d, "r.md", parent_src, sizeof parent_src - 1);
	struct diag *child = diag_new_deferred(parent.d);
	struct diag *both[] = {direct.d, child};
	for (int i = 0; i < 2; i++) {
		struct diag *d = both[i];
		diag_add_source(d, "log.txt", src, sizeof src - 1);
		struct loc at = {"log.txt", 2, 8, 5};
		diag_error(d, at, "bad %s", "value");
		diag_forget_source(d, "log.txt");
		diag_warning(d, loc_line("r.md", 1), "a warning (an error when strict)");
		diag_note(d, loc_line(NULL, 0), "a note");
	}
	assert_string_equal(cap_text(&parent), "");
	assert_int_equal(diag_errors(child), 2);
	assert_int_equal(diag_errors(parent.d), 0);
	diag_flush(child, parent.d);
	assert_int_equal(diag_errors(child), 0);
	assert_int_equal(diag_errors(parent.d), 2);
	assert_int_equal(diag_warnings(parent.d), 0);
	assert_string_equal(cap_text(&parent), cap_text(&direct));
	assert_non_null(strstr(cap_text(&parent), "    2 | two {{ x }}\n      |        ^~~~~\n"));
	assert_non_null(strstr(cap_text(&parent), "    1 | front: matter\n"));
	diag_flush(child, parent.d); /* nothing more */
	assert_int_equal(diag_errors(parent.d), 2);
	diag_free(child);
	cap_close(&direct);
	cap_close(&parent);
}

/* A sink apart (diag_new_apart(), for a thread that runs while the
 * parent registers sources) quotes what it reads from disk or was given
 * itself, never a source registered with its parent: a parent's text for
 * a name not on disk is not quoted, a file on disk is, and flushed, its
 * diagnostics count and are written in the parent's format. */
static void apart_sink_quotes_no_source_of_its_parent(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *disk = write_tmp(dir, "p.yaml", "name: x\nbad: key\n");
	struct capture parent;
	cap_open_as(&parent, DIAG_TEXT, false);
	static const char text[] = "only: in memory\n";
	diag_add_source(parent.d, "mem.md", text, sizeof text - 1);
	struct diag *child = diag_new_apart(parent.d);
	diag_error(child, (struct loc){"mem.md", 1, 1, 4}, "from memory");
	diag_error(child, (struct loc){disk, 2, 1, 3}, "from disk");
	assert_string_equal(cap_text(&parent), "");
	diag_flush(child, parent.d);
	assert_int_equal(diag_errors(parent.d), 2);
	char *want = xasprintf("mem.md:1:1: error: from memory\n"
			       "%s:2:1: error: from disk\n"
			       "    2 | bad: key\n"
			       "      | ^~~\n",
			       disk);
	assert_string_equal(cap_text(&parent), want);
	free(want);
	diag_free(child);
	cap_close(&parent);
	unlink(disk);
	free(disk);
	rmdir(dir);
	free(dir);
}

/* A borrowing deferred sink writes what a copying one does, but its
 * quote is the source's own line, not a copy: the source is changed
 * before the flush here, which a borrowed quote shows. */
/* A deferred sink flushed into another deferred one (a report's, into
 * a build's held back until its proofs hold: site/promise.c): nothing
 * is written until the outer one is flushed, then all of it in order,
 * counted once at each step; a borrowed quote is copied on the way, so
 * that its source may change or go before the last flush. */
static void deferred_sink_flushed_into_a_deferred_one_is_written_with_it(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	struct diag *build = diag_new_deferred(c.d);
	char src[] = "one\ntwo {{ x }}\n";
	diag_add_source(build, "r.md", src, sizeof src - 1);
	diag_warning(build, loc_line("r.md", 0), "first");
	struct diag *report = diag_new_deferred_borrowing(build);
	diag_error(report, (struct loc){"r.md", 2, 5, 6}, "second");
	diag_flush(report, build);
	assert_int_equal(diag_errors(report), 0);
	assert_int_equal(diag_errors(build), 1);
	assert_int_equal(diag_warnings(build), 1);
	assert_string_equal(cap_text(&c), "");
	src[4] = 'T'; /* the quote was copied when it left the report */
	diag_warning(build, loc_line("r.md", 0), "third");
	diag_free(report);
	diag_flush(build, c.d);
	assert_int_equal(diag_errors(c.d), 1);
	assert_int_equal(diag_warnings(c.d), 2);
	assert_string_equal(cap_text(&c), "r.md: warning: first\n"
					  "r.md:2:5: error: second\n    2 | two {{ x }}\n      |     ^~~~~~\n"
					  "r.md: warning: third\n");
	diag_free(build);
	cap_close(&c);
}

/* A long line's quote that leaves a borrowing sink for a deferred one
 * is copied as the part of the line a quote shows (the line may be
 * 200 MB): written later, it reads as the quote written at once from
 * the whole line, with the caret anywhere and a span past the window. */
static void a_long_lines_quote_kept_deferred_is_the_quote_of_the_line(void **state)
{
	(void)state;
	/* 3 lines; the second of 10,000 bytes, with two-byte characters */
	struct buf src = BUF_INIT;
	buf_puts(&src, "one\n");
	for (int i = 0; i < 2500; i++)
		buf_puts(&src, i % 7 ? "ab c" : "\xc3\xa9 d");
	buf_puts(&src, "\nthree\n");
	const struct loc at[] = {{"r.md", 2, 1, 3},	{"r.md", 2, 60, 4},   {"r.md", 2, 81, 2},
				 {"r.md", 2, 5000, 9}, {"r.md", 2, 9990, 40}, {"r.md", 2, 10001, 1},
				 {"r.md", 2, 5000, 400}, {"r.md", 2, 0, 0}};
	for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
		struct capture now, later;
		cap_open_as(&now, DIAG_TEXT, false);
		cap_open_as(&later, DIAG_TEXT, false);
		char *copy = xmalloc(src.len);
		memcpy(copy, src.data, src.len);
		struct diag *a = diag_new_deferred(now.d);
		diag_add_source(a, "r.md", src.data, src.len);
		struct diag *ab = diag_new_deferred_borrowing(a);
		diag_error(ab, at[i], "here");
		diag_flush(ab, now.d); /* from the whole line */
		struct diag *b = diag_new_deferred(later.d);
		diag_add_source(b, "r.md", copy, src.len);
		struct diag *bb = diag_new_deferred_borrowing(b);
		diag_error(bb, at[i], "here");
		diag_flush(bb, b);
		memset(copy, 'X', src.len); /* the source gone */
		diag_flush(b, later.d);
		assert_string_equal(cap_text(&later), cap_text(&now));
		assert_non_null(strstr(cap_text(&now), "    2 | "));
		diag_free(ab);
		diag_free(a);
		diag_free(bb);
		diag_free(b);
		free(copy);
		cap_close(&now);
		cap_close(&later);
	}
	buf_free(&src);
}

static void borrowing_sink_quotes_the_source_in_place(void **state)
{
	(void)state;
	struct capture copying, borrowing;
	cap_open_as(&copying, DIAG_TEXT, false);
	cap_open_as(&borrowing, DIAG_TEXT, false);
	char src[] = "one\ntwo {{ x }}\n";
	struct diag *a = diag_new_deferred(copying.d);
	struct diag *b = diag_new_deferred_borrowing(borrowing.d);
	struct diag *both[] = {a, b};
	for (int i = 0; i < 2; i++) {
		diag_add_source(both[i], "r.md", src, sizeof src - 1);
		struct loc at = {"r.md", 2, 5, 6};
		diag_error(both[i], at, "bad");
		diag_note(both[i], loc_line("r.md", 0), "no line");
	}
	diag_flush(a, copying.d);
	src[4] = 'T'; /* "Two": the borrowed quote sees it */
	diag_flush(b, borrowing.d);
	assert_string_equal(cap_text(&copying),
			    "r.md:2:5: error: bad\n    2 | two {{ x }}\n      |     ^~~~~~\n"
			    "r.md: note: no line\n");
	assert_string_equal(cap_text(&borrowing),
			    "r.md:2:5: error: bad\n    2 | Two {{ x }}\n      |     ^~~~~~\n"
			    "r.md: note: no line\n");
	diag_free(a);
	diag_free(b);
	cap_close(&copying);
	cap_close(&borrowing);
}

static void lines_are_quoted_right_in_any_order(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	static const char src[] = "one\ntwo\nthree\nfour\n";
	diag_add_source(c.d, "o.md", src, strlen(src));
	const int order[] = {3, 4, 1, 4, 2};
	for (size_t i = 0; i < 5; i++)
		diag_error(c.d, loc_line("o.md", order[i]), "here");
	/* replaced text is quoted from its own start */
	static const char other[] = "uno\ndos\n";
	diag_add_source(c.d, "o.md", other, strlen(other));
	diag_error(c.d, loc_line("o.md", 2), "here");
	assert_string_equal(cap_text(&c), "o.md:3: error: here\n    3 | three\n"
					  "o.md:4: error: here\n    4 | four\n"
					  "o.md:1: error: here\n    1 | one\n"
					  "o.md:4: error: here\n    4 | four\n"
					  "o.md:2: error: here\n    2 | two\n"
					  "o.md:2: error: here\n    2 | dos\n");
	cap_close(&c);
}

static void a_long_line_is_quoted_around_its_caret(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	struct buf src = BUF_INIT;
	for (int i = 0; i < 1000; i++)
		buf_putc(&src, (char)('a' + i % 26));
	diag_add_source(c.d, "w.md", src.data, src.len);
	struct loc at = {"w.md", 1, 501, 3};
	diag_error(c.d, at, "here");
	struct buf want = BUF_INIT;
	buf_puts(&want, "w.md:1:501: error: here\n    1 | ...");
	buf_put(&want, src.data + 420, 160);
	buf_puts(&want, "...\n      |    ");
	for (int i = 0; i < 80; i++)
		buf_putc(&want, ' ');
	buf_puts(&want, "^~~\n");
	assert_string_equal(cap_text(&c), buf_data(&want));
	buf_free(&want);
	buf_free(&src);
	cap_close(&c);
}

static void control_characters_are_never_sent_to_the_terminal(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	static const char src[] = "a\033]0;pwned\007b\033[2Jc\n";
	diag_add_source(c.d, "\033[31mx.log", src, strlen(src));
	struct loc at = {"\033[31mx.log", 1, 14, 1};
	diag_error(c.d, at, "value '%s'", "\033[2J");
	assert_string_equal(cap_text(&c), "?[31mx.log:1:14: error: value '?[2J'\n"
					  "    1 | a?]0;pwned?b?[2Jc\n"
					  "      |              ^\n");
	cap_close(&c);
}

/* C1 controls in UTF-8 too: U+009B is CSI to a terminal that reads
 * UTF-8.  Each is one '?', one column, so the caret stays under its
 * character. */
static void c1_controls_are_never_sent_to_the_terminal(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_TEXT, false);
	static const char src[] = "a\xc2\x9b" "2J\xc2\xa0" "b\n";
	diag_add_source(c.d, "x\xc2\x9dy.log", src, strlen(src));
	struct loc at = {"x\xc2\x9dy.log", 1, 8, 1};
	diag_error(c.d, at, "value '%s'", "\xc2\x9b" "2J");
	assert_string_equal(cap_text(&c), "x?y.log:1:8: error: value '?2J'\n"
					  "    1 | a?2J\xc2\xa0" "b\n"
					  "      |      ^\n");
	cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_are_quoted_right_in_any_order),
		cmocka_unit_test(a_long_line_is_quoted_around_its_caret),
		cmocka_unit_test(control_characters_are_never_sent_to_the_terminal),
		cmocka_unit_test(c1_controls_are_never_sent_to_the_terminal),
		cmocka_unit_test(text_error_quotes_the_line_with_a_caret_and_tildes),
		cmocka_unit_test(sources_forgotten_among_many_quote_nothing_the_rest_quote_theirs),
		cmocka_unit_test(caret_of_len_zero_or_one_is_a_single_caret),
		cmocka_unit_test(byte_order_mark_is_not_quoted_and_not_counted),
		cmocka_unit_test(line_number_is_right_aligned_in_five_columns),
		cmocka_unit_test(caret_after_a_tab_is_padded_with_the_tab),
		cmocka_unit_test(caret_after_multibyte_characters_counts_characters),
		cmocka_unit_test(caret_after_three_and_four_byte_characters_lines_up),
		cmocka_unit_test(tildes_under_multibyte_characters_count_characters),
		cmocka_unit_test(col_zero_quotes_the_line_without_a_caret),
		cmocka_unit_test(line_zero_names_the_file_and_quotes_nothing),
		cmocka_unit_test(no_file_is_prefixed_with_the_program_name),
		cmocka_unit_test(unreadable_file_is_named_but_not_quoted),
		cmocka_unit_test(folder_as_file_is_named_but_not_quoted),
		cmocka_unit_test(line_past_the_end_of_the_file_is_not_quoted),
		cmocka_unit_test(last_line_without_newline_is_quoted),
		cmocka_unit_test(crlf_line_is_quoted_without_its_cr),
		cmocka_unit_test(caret_past_the_end_of_the_line_stays_after_it),
		cmocka_unit_test(unregistered_file_is_read_from_disk),
		cmocka_unit_test(registered_source_is_quoted_instead_of_the_disk),
		cmocka_unit_test(forgotten_source_is_read_from_disk_again),
		cmocka_unit_test(source_registered_without_text_is_not_quoted),
		cmocka_unit_test(registering_again_replaces_the_text),
		cmocka_unit_test(forgetting_an_unknown_source_does_nothing),
		cmocka_unit_test(github_format_is_a_workflow_command),
		cmocka_unit_test(github_format_never_quotes_the_source),
		cmocka_unit_test(github_format_escapes_percent_and_line_breaks),
		cmocka_unit_test(github_format_keeps_control_bytes_and_bad_utf8_out),
		cmocka_unit_test(github_format_escapes_colon_and_comma_in_the_file),
		cmocka_unit_test(github_format_without_a_location),
		cmocka_unit_test(json_format_is_one_object_per_line),
		cmocka_unit_test(json_format_escapes_quotes_backslashes_and_controls),
		cmocka_unit_test(json_format_writes_bytes_that_are_not_utf8_as_replacement_characters),
		cmocka_unit_test(json_format_without_a_file_gives_null),
		cmocka_unit_test(errors_and_warnings_are_counted_separately),
		cmocka_unit_test(notes_are_not_counted),
		cmocka_unit_test(strict_mode_turns_warnings_into_errors),
		cmocka_unit_test(strict_mode_applies_to_github_and_json_too),
		cmocka_unit_test(strict_mode_can_be_turned_off_again),
		cmocka_unit_test(colour_escapes_appear_only_with_colour),
		cmocka_unit_test(colour_names_warnings_and_notes_in_their_colours),
		cmocka_unit_test(github_and_json_never_use_colour),
		cmocka_unit_test_setup_teardown(colour_is_wanted_on_a_terminal, save_no_color, restore_no_color),
		cmocka_unit_test_setup_teardown(no_color_turns_colour_off_even_on_a_terminal, save_no_color,
						restore_no_color),
		cmocka_unit_test_setup_teardown(empty_no_color_is_ignored, save_no_color, restore_no_color),
		cmocka_unit_test_setup_teardown(colour_is_not_wanted_on_a_pipe_or_file, save_no_color,
						restore_no_color),
		cmocka_unit_test_setup_teardown(colour_is_not_wanted_on_a_closed_fd, save_no_color,
						restore_no_color),
		cmocka_unit_test_setup_teardown(no_color_turns_colour_off_on_a_pipe_too, save_no_color,
						restore_no_color),
		cmocka_unit_test(free_of_null_does_nothing),
		cmocka_unit_test(deferred_sink_keeps_diagnostics_until_flushed),
		cmocka_unit_test(apart_sink_quotes_no_source_of_its_parent),
		cmocka_unit_test(borrowing_sink_quotes_the_source_in_place),
		cmocka_unit_test(deferred_sink_flushed_into_a_deferred_one_is_written_with_it),
		cmocka_unit_test(a_long_lines_quote_kept_deferred_is_the_quote_of_the_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
