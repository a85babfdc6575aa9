/* test_badinput.c: hostile and broken input.  Each case builds a good
 * site first, breaks one thing, and asserts what the user sees (exit
 * status, the exact diagnostic), that time and memory stayed bounded,
 * and that the previous _site is byte for byte as it was.
 *
 * Small inputs are committed under tests/badinput/; big ones (a 100 MB
 * line, thousands of files) are made here in a temporary folder and
 * removed.  Memory is measured on the release binary ./logdown (ASan's
 * own memory would drown it); every case also runs under ASan. */
#define _DEFAULT_SOURCE /* wait4(), setgroups(), usleep() */
#include "e2e.h"

#include <grp.h>

#include "bounded.h"

static const char parser_t[] = "name: t\n"
			       "description: test lines\n"
			       "fields:\n"
			       "  final_loss: 'Loss=([\\d.]+)'\n"
			       "series:\n"
			       "  train: 'Step=(?<step>\\d+), Loss=(?<loss>[\\d.]+)'\n";

static const char report_ok[] = "---\n"
				"title: T\n"
				"runs:\n"
				"  a: { file: logs/a.log, parser: t }\n"
				"---\n"
				"Loss {{ a.final_loss }}.\n";

static const char log_ok[] = "Step=1, Loss=2.5\nStep=2, Loss=1.5\n";

/* A project that builds; caller frees with project_free(). */
static char *project_new(void)
{
	return e2e_project(E2E_FILES(E2E_TEXT("parsers/t.yaml", parser_t),
				     E2E_TEXT("content/r/index.md", report_ok),
				     E2E_TEXT("content/r/logs/a.log", log_ok)));
}

static void project_free(char *dir)
{
	remove_tree(dir);
	free(dir);
}

static const char *const build_argv[] = {"logdown", "build", NULL};

/* Builds dir, which must succeed. */
static void build_ok(const char *dir)
{
	struct bounded r = bounded_run(e2e_binary(), dir, build_argv, NULL, 60);
	if (r.status != 0)
		fail_msg("the good build failed (%d):\n%s", r.status, r.err);
	bounded_free(&r);
}

/* Time bounds are checked in the ASan run (make check-all).  make
 * valgrind runs this file again beside another memcheck run on the same
 * cores, where seconds measure the neighbour: it checks only status,
 * messages and memory. */
static bool timing_checked(void)
{
	return getenv("LOGDOWN_VALGRIND") == NULL;
}


struct expect {
	int status;
	const char *diag;      /* a whole line (or lines) of stderr */
	double max_secs;       /* under ASan */
	long max_kb;           /* peak memory of the release binary; 0: not measured */
	const char *const *env;
};

/* Runs a build of dir that must fail as e says, under ASan and, when e
 * bounds memory, the release binary, and checks that _site did not
 * change. */
static void expect_failure(const char *dir, const struct expect *e)
{
	char *site = path_join(dir, "_site");
	char *before = tree_snapshot(site);
	struct bounded r = bounded_run(e2e_binary(), dir, build_argv, e->env, e->max_secs * 4 + 10);
	if (r.status != e->status)
		fail_msg("exit %d, expected %d; stderr:\n%s", r.status, e->status, r.err);
	assert_contains(r.err, e->diag);
	if (e->status == 1)
		assert_contains(r.err, "the previous output was left as it was\n");
	if (r.secs > e->max_secs && timing_checked())
		fail_msg("took %.2f s under ASan, more than %.1f s", r.secs, e->max_secs);
	bounded_free(&r);
	if (e->max_kb) {
		const char *rel = bounded_release();
		if (!rel) {
			print_message("[  SKIP    ] ./logdown is not built (or under valgrind): memory not measured\n");
		} else {
			r = bounded_run(rel, dir, build_argv, e->env, 60);
			assert_int_equal(r.status, e->status);
			assert_contains(r.err, e->diag);
			print_message("           release: %.2f s, %ld KB peak\n", r.secs, r.maxrss_kb);
			if (r.maxrss_kb < 0)
				print_message("[  SKIP    ] /usr/bin/time is missing: memory not "
					      "measured\n");
			else if (r.maxrss_kb > e->max_kb)
				fail_msg("peak memory %ld KB, more than %ld KB", r.maxrss_kb, e->max_kb);
			bounded_free(&r);
		}
	}
	char *after = tree_snapshot(site);
	assert_string_equal(after, before);
	free(after);
	free(before);
	free(site);
}

/* Copies tests/badinput/name over dir/rel. */
static void put_fixture(const char *dir, const char *rel, const char *name)
{
	char *from = xasprintf("tests/badinput/%s", name);
	struct buf b = BUF_INIT;
	if (!file_read(from, &b, NULL))
		fail_msg("cannot read %s", from);
	char *to = path_join(dir, rel);
	assert_true(file_write(to, buf_data(&b), b.len));
	free(to);
	buf_free(&b);
	free(from);
}

/* --- truncated, binary, broken encodings --- */

static void truncated_front_matter(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	put_fixture(dir, "content/r/index.md", "truncated.md");
	struct expect e = {1,
			   "content/r/index.md:1:1: error: front matter is never closed: end it with "
			   "a line holding only ---\n",
			   5, 0, NULL};
	expect_failure(dir, &e);
	project_free(dir);
}

static void binary_log(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	put_fixture(dir, "content/r/logs/a.log", "binary.log");
	struct expect e = {1, "content/r/logs/a.log: error: binary file (a NUL byte on line 2): "
			      "logdown reads text logs, JSON, JSON Lines, YAML, CSV and TSV, XML "
			      "and Jupyter notebooks, and of binary files TensorBoard event "
			      "files\n",
			   5, 0, NULL};
	expect_failure(dir, &e);
	project_free(dir);
}

static void nul_bytes_in_markdown(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	put_fixture(dir, "content/r/index.md", "nul.md");
	struct expect e = {1, "content/r/index.md: error: this is a binary file, not Markdown text\n",
			   5, 0, NULL};
	expect_failure(dir, &e);
	project_free(dir);
}

static void invalid_utf8_in_front_matter(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	put_fixture(dir, "content/r/index.md", "utf8-front-matter.md");
	struct expect e = {1, "content/r/index.md:2:10: error: malformed YAML: invalid leading "
			      "UTF-8 octet\n",
			   5, 0, NULL};
	expect_failure(dir, &e);
	project_free(dir);
}

/* Invalid UTF-8 in prose and in a log is no error: every page comes out
 * valid UTF-8, with U+FFFD where the bytes were bad. */
static void invalid_utf8_in_prose_and_log_gives_replacement_characters(void **state)
{
	(void)state;
	char *dir = project_new();
	put_fixture(dir, "content/r/index.md", "utf8-body.md");
	put_fixture(dir, "content/r/logs/a.log", "utf8.log");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, "<p>Bad \xEF\xBF\xBD( and \xEF\xBF\xBD and \xEF\xBF\xBD end, loss "
			      "<a class=\"ld-value\"");
	assert_contains(page, "Tag=\xEF\xBF\xBD\xEF\xBF\xBD&lt;</span>");
	char *logpage = e2e_read(dir, "_site/r/logs/a.log.html");
	assert_contains(logpage, "Tag=\xEF\xBF\xBD\xEF\xBF\xBD&lt;");
	free(logpage);
	free(page);
	proc_free(&r);
	project_free(dir);
}

/* A page with nothing for the pre-pass to replace, the way most pages
 * of a site are parsed: UTF-8 of every length comes out as it went in,
 * and each kind of bad byte (an overlong form, a surrogate, a code point
 * past U+10FFFF, a lone continuation byte, a sequence cut at the end of
 * the text) still becomes U+FFFD, past sixteen bytes of ASCII too. */
static void prose_without_placeholders_keeps_utf8_and_replaces_every_bad_byte(void **state)
{
	(void)state;
	char *dir = project_new();
	e2e_write(dir, "content/good/index.md",
		  "---\ntitle: G\n---\nCaf\xc3\xa9 costs \xe2\x82\xac" "5 \xf0\x9f\x98\x80 "
		  "and \xf4\x8f\xbf\xbf.\n");
	e2e_write(dir, "content/bad/index.md",
		  "---\ntitle: B\n---\nsixteen bytes ok\xc0\xaf, \xed\xa0\x80, \xf4\x90\x80\x80, "
		  "\x80 end \xe2\x82");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	char *good = e2e_read(dir, "_site/good/index.html");
	assert_contains(good, "<p>Caf\xc3\xa9 costs \xe2\x82\xac" "5 \xf0\x9f\x98\x80 and "
			      "\xf4\x8f\xbf\xbf.</p>");
	char *bad = e2e_read(dir, "_site/bad/index.html");
#define R "\xEF\xBF\xBD"
	/* one U+FFFD a bad sequence, as cmark-gfm's check gives */
	assert_contains(bad, "<p>sixteen bytes ok" R ", " R ", " R ", " R " end " R "</p>");
#undef R
	free(bad);
	free(good);
	proc_free(&r);
	project_free(dir);
}

/* --- line endings --- */

static void crlf_and_cr_only_files_read_as_lines(void **state)
{
	(void)state;
	char *dir = project_new();
	put_fixture(dir, "content/r/index.md", "crlf.md");
	put_fixture(dir, "content/r/logs/a.log", "crlf.log");
	put_fixture(dir, "content/mac.md", "cr-only.md");
	struct proc r = e2e_run(dir, "build");
	assert_string_equal(r.err, "logdown: built 2 reports into _site\n");
	assert_int_equal(r.status, 0);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, "<h1 class=\"ld-title\">Windows</h1>");
	assert_contains(page, "Loss <a class=\"ld-value\" href=\"logs/a.log.html#L2.1\" "
			      "title=\"content/r/logs/a.log:2\">1.5</a>.");
	char *mac = e2e_read(dir, "_site/mac/index.html");
	assert_contains(mac, "<h1 class=\"ld-title\">Classic Mac</h1>");
	assert_contains(mac, "<p>Second paragraph.</p>");
	free(mac);
	free(page);
	proc_free(&r);

	/* a mistake in a CR-only file is reported at the line an editor shows */
	e2e_write(dir, "content/mac.md", "---\rtitle: Classic Mac\r---\rText {{ nope }}.\r");
	r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "content/mac.md:4:9: error: 'nope' is not defined\n"
			       "    4 | Text {{ nope }}.\n");
	proc_free(&r);
	project_free(dir);
}

/* --- size --- */

/* A 100 MB log that is one line: read in bounded memory, with a
 * warning, and the values around it still found. */
static void hundred_megabyte_single_line(void **state)
{
	(void)state;
	if (getenv("LOGDOWN_VALGRIND")) {
		/* 100 MB through memcheck takes minutes; the cut line's
		 * path is checked by check-all's ASan run of this test */
		print_message("[  SKIP    ] under valgrind\n");
		skip();
	}
	char *dir = project_new();
	char *log = path_join(dir, "content/r/logs/a.log");
	FILE *f = fopen(log, "w");
	assert_non_null(f);
	fputs("Step=1, Loss=2.5\n", f);
	char *chunk = xmalloc(1 << 20);
	memset(chunk, 'x', 1 << 20);
	for (int i = 0; i < 100; i++)
		assert_int_equal(fwrite(chunk, 1, 1 << 20, f), 1 << 20);
	fputs("\nStep=2, Loss=1.5\n", f);
	assert_int_equal(fclose(f), 0);
	free(chunk);
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: T\nruns:\n  a: { file: logs/a.log, parser: t }\n---\n"
		  "Loss {{ a.final_loss }}.\n\n```{log}\nfrom: a\nlines: 1-3\n```\n");

	const char *rel = bounded_release();
	const char *bin = rel ? rel : e2e_binary();
	struct bounded r = bounded_run(bin, dir, build_argv, NULL, 120);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "content/r/logs/a.log:2: warning: this line is longer than 64 "
				   "MiB: only its start is read\n"
				   "logdown: built 1 report into _site\n");
	print_message("           %s: %.2f s, %ld KB peak\n", rel ? "release" : "asan", r.secs,
		      r.maxrss_kb);
	if (rel && r.maxrss_kb > 400 * 1024)
		fail_msg("peak memory %ld KB for a 100 MB line", r.maxrss_kb);
	if (rel && r.secs > 10)
		fail_msg("took %.2f s", r.secs);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, "href=\"logs/a.log.html#L3.1\" title=\"content/r/logs/a.log:3\">1.5</a>");
	/* the excerpt and the log page show the line's first 4 KiB */
	assert_contains(page, "xxx<span class=\"ld-cut\">\xE2\x80\xA6 (cut: the whole line is in the "
			      "raw file)</span></span>\n<span class=\"ld-line\"><a class=\"ld-lineno\" "
			      "href=\"logs/a.log.html#L3\">3</a>Step=<span class=\"hl-number\">2</span>, "
			      "Loss=<span class=\"hl-number\">1.5</span></span>");
	assert_true(strlen(page) < 20000);
	char *logpage = e2e_read(dir, "_site/r/logs/a.log.html");
	assert_contains(logpage, "xxx<span class=\"ld-cut\">\xE2\x80\xA6 (104,853,504 more bytes in the "
				 "raw file)</span>");
	assert_true(strlen(logpage) < 20000);
	free(logpage);
	free(page);
	bounded_free(&r);
	free(log);
	project_free(dir);
}

/* --- nesting --- */

static void deeply_nested_yaml_front_matter(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	struct buf b = BUF_INIT;
	buf_puts(&b, "---\ntitle: T\nx: ");
	for (int i = 0; i < 100000; i++)
		buf_putc(&b, '[');
	buf_puts(&b, "\n---\nText.\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	struct expect e = {1,
			   "content/r/index.md:3:203: error: YAML nested deeper than 200 levels (limit "
			   "yaml_depth: raise it with limits: in site.yaml or LOGDOWN_LIMIT_YAML_DEPTH)\n",
			   5, 64 * 1024, NULL};
	expect_failure(dir, &e);
	buf_free(&b);
	project_free(dir);
}

static const char *nested_list(int levels)
{
	static struct buf b;
	buf_free(&b);
	buf_puts(&b, "---\ntitle: T\n---\n");
	for (int i = 0; i < levels; i++) {
		for (int j = 0; j < i; j++)
			buf_puts(&b, "  ");
		buf_puts(&b, "- item\n");
	}
	return buf_data(&b);
}

static void deeply_nested_markdown_lists_and_quotes(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	/* 60 list levels are 120 nodes deep (list, item): past the 100 */
	e2e_write(dir, "content/r/index.md", nested_list(60));
	struct expect e = {1,
			   "content/r/index.md:53:101: error: Markdown nested deeper than 100 levels "
			   "(limit markdown_depth: raise it with limits: in site.yaml or "
			   "LOGDOWN_LIMIT_MARKDOWN_DEPTH)\n",
			   5, 0, NULL};
	expect_failure(dir, &e);

	struct buf q = BUF_INIT;
	buf_puts(&q, "---\ntitle: T\n---\n");
	for (int i = 0; i < 200000; i++)
		buf_puts(&q, "> ");
	buf_puts(&q, "deep\n");
	e2e_write(dir, "content/r/index.md", buf_data(&q));
	struct expect quotes = {1,
				"content/r/index.md:4:201: error: Markdown nested deeper than 100 "
				"levels (limit markdown_depth: raise it with limits: in site.yaml or "
				"LOGDOWN_LIMIT_MARKDOWN_DEPTH)\n",
				10, 128 * 1024, NULL};
	expect_failure(dir, &quotes);
	buf_free(&q);

	/* the documented knob lets a deeper document through */
	e2e_write(dir, "content/r/index.md", nested_list(60));
	e2e_write(dir, "site.yaml", "limits:\n  markdown_depth: 200\n");
	build_ok(dir);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, "<li>item\n<ul>\n<li>item</li>\n</ul>\n</li>");
	free(page);
	project_free(dir);
}

static void deeply_nested_expression(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	struct buf b = BUF_INIT;
	buf_puts(&b, "---\ntitle: T\n---\n{{ ");
	for (int i = 0; i < 50000; i++)
		buf_puts(&b, "-(");
	buf_puts(&b, "1 }}\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	struct expect e = {1,
			   "content/r/index.md:4:204: error: expression nested too deeply (more than "
			   "200 levels; limit expr_depth: raise it with limits: in site.yaml or "
			   "LOGDOWN_LIMIT_EXPR_DEPTH)\n",
			   5, 64 * 1024, NULL};
	expect_failure(dir, &e);
	buf_free(&b);
	project_free(dir);
}

/* Depth is nesting, not length: a sum of 201 terms, or 10,000, is one
 * level of nesting evaluated in a loop (it was "nested too deeply" past
 * 200 terms), while 201 parentheses still are too deep.  200,000 terms
 * take linear time in the release binary. */
static void a_long_sum_is_length_not_nesting(void **state)
{
	(void)state;
	bounded_release_or_skip(); /* before anything is made: skip() leaves the test there */
	char *dir = project_new();
	build_ok(dir);
	struct buf b = BUF_INIT;
	buf_puts(&b, "---\ntitle: T\n---\nA {{ 1");
	for (int i = 1; i < 201; i++)
		buf_puts(&b, "+1");
	buf_puts(&b, " }} B {{ 1");
	for (int i = 1; i < 10000; i++)
		buf_puts(&b, i % 2 ? " + 2" : " - 1");
	buf_puts(&b, " }} C {{ 1 < 2");
	for (int i = 1; i < 201; i++)
		buf_puts(&b, " and 1 < 2");
	buf_puts(&b, " }}\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	build_ok(dir);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, "<p>A <span class=\"ld-value\">201</span> B <span "
			      "class=\"ld-value\">5002</span> C <span class=\"ld-value\">true</span></p>");
	free(page);

	/* 201 parentheses are 201 levels */
	buf_clear(&b);
	buf_puts(&b, "---\ntitle: T\n---\n{{ ");
	for (int i = 0; i < 201; i++)
		buf_putc(&b, '(');
	buf_putc(&b, '1');
	for (int i = 0; i < 201; i++)
		buf_putc(&b, ')');
	buf_puts(&b, " }}\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	struct expect e = {1,
			   "content/r/index.md:4:204: error: expression nested too deeply (more than "
			   "200 levels; limit expr_depth: raise it with limits: in site.yaml or "
			   "LOGDOWN_LIMIT_EXPR_DEPTH)\n",
			   5, 0, NULL};
	expect_failure(dir, &e);

	/* linear time: 200,000 terms */
	const char *rel = bounded_release_or_skip();
	buf_clear(&b);
	buf_puts(&b, "---\ntitle: T\n---\nA {{ 1");
	for (int i = 1; i < 200000; i++)
		buf_puts(&b, " + 1");
	buf_puts(&b, " }}\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	struct bounded r = bounded_run(rel, dir, build_argv, NULL, 120);
	if (r.status != 0)
		fail_msg("exit %d; stderr:\n%s", r.status, r.err);
	print_message("           release: %.2f s (CPU %.2f s), %ld KB peak\n", r.secs, r.cpu_secs,
		      r.maxrss_kb);
	if (r.cpu_secs > 5 && timing_checked())
		fail_msg("took %.2f s of CPU", r.cpu_secs);
	bounded_free(&r);
	page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, "<p>A <span class=\"ld-value\">200000</span></p>");
	free(page);
	buf_free(&b);
	project_free(dir);
}

/* --- YAML --- */

/* Aliases are never expanded: a billion laughs is one error and a note,
 * in no time and no memory. */
static void yaml_alias_bomb(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	put_fixture(dir, "content/r/index.md", "bomb.md");
	struct expect e = {1,
			   "content/r/index.md:4:8: error: YAML aliases (*name) are not supported: "
			   "write the value out\n"
			   "    4 | b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
			   "      |        ^\n"
			   "content/r/index.md:4:8: note: and 80 more aliases in this document\n",
			   2, 64 * 1024, NULL};
	expect_failure(dir, &e);
	project_free(dir);
}

static void directive_body_that_is_not_a_map(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	put_fixture(dir, "content/r/index.md", "body-list.md");
	struct expect e = {1,
			   "content/r/index.md:8:1: error: the body of {table} is a YAML map of "
			   "settings (key: value)\n",
			   5, 0, NULL};
	expect_failure(dir, &e);
	project_free(dir);
}

static void numbers_that_overflow(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	put_fixture(dir, "content/r/index.md", "overflow.md");
	struct expect e = {1,
			   "content/r/index.md:6:18: error: format '.99999999999999999999f': precision "
			   "99999999999999999999 is too large (at most 100)\n",
			   5, 0, NULL};
	expect_failure(dir, &e);
	struct proc r = e2e_run(dir, "build");
	assert_contains(r.err, "content/r/index.md:11:8: error: limit must be a positive integer, "
			       "not '99999999999999999999999'\n");
	assert_contains(r.err, "content/r/index.md:19:8: error: width must be a whole number of "
			       "pixels from 120 to 4000, not '1e400'\n");
	assert_contains(r.err, "logdown: 3 errors; the previous output was left as it was\n");
	proc_free(&r);
	project_free(dir);
}

/* --- empty everything --- */

static void empty_inputs(void **state)
{
	(void)state;
	char *dir = project_new();
	/* empty site.yaml, empty report, empty front matter: fine */
	e2e_write(dir, "site.yaml", "");
	e2e_write(dir, "content/empty.md", "");
	e2e_write(dir, "content/bare.md", "---\n---\n");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 3 reports into _site\n");
	proc_free(&r);
	/* an empty result file is an error */
	e2e_write(dir, "content/r/logs/a.log", "");
	struct expect e = {1, "content/r/logs/a.log: error: empty file\n", 5, 0, NULL};
	expect_failure(dir, &e);
	project_free(dir);

	/* an empty content/ folder builds an empty index */
	dir = e2e_tmpdir();
	char *content = path_join(dir, "content");
	assert_true(mkdir_p(content));
	r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 0 reports into _site\n");
	proc_free(&r);
	free(content);
	project_free(dir);
}

/* --- limits: patterns, series, globs --- */

static void catastrophic_pattern_stops_at_the_match_limit(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	e2e_write(dir, "parsers/t.yaml",
		  "name: t\nfields:\n  final_loss: 'Loss=([\\d.]+)'\n"
		  "series:\n  runs: '^(?<word>(a+)+)$'\n");
	struct buf b = BUF_INIT;
	for (int i = 0; i < 40; i++)
		buf_putc(&b, 'a');
	buf_puts(&b, "!\nLoss=1.5\n");
	e2e_write(dir, "content/r/logs/a.log", buf_data(&b));
	struct expect e = {1,
			   "parsers/t.yaml:5:9: error: pattern '^(?<word>(a+)+)$' of series 'runs' "
			   "hit the match limit on content/r/logs/a.log:1: it backtracks too much; "
			   "make it more specific (limit pcre_match: raise it with limits: in "
			   "site.yaml or LOGDOWN_LIMIT_PCRE_MATCH)\n",
			   5, 0, NULL};
	expect_failure(dir, &e);
	buf_free(&b);
	project_free(dir);
}

static void series_longer_than_its_cap(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	struct buf b = BUF_INIT;
	for (int i = 1; i <= 5000; i++)
		buf_printf(&b, "Step=%d, Loss=%d.5\n", i, i);
	e2e_write(dir, "content/r/logs/a.log", buf_data(&b));
	static const char *const env[] = {"LOGDOWN_LIMIT_SERIES_ROWS=1000", NULL};
	struct expect e = {1,
			   "content/r/logs/a.log:1001: error: series 'train' has more than 1000 rows: "
			   "4000 more were not read (limit series_rows: raise it with limits: in "
			   "site.yaml or LOGDOWN_LIMIT_SERIES_ROWS)\n",
			   5, 0, env};
	expect_failure(dir, &e);
	/* raised in site.yaml, the same log builds */
	e2e_write(dir, "site.yaml", "limits: {series_rows: 5000}\n");
	build_ok(dir);
	buf_free(&b);
	project_free(dir);
}

/* Makes n empty result files logs/m<i>.log below dir/content/r. */
static void many_files(const char *dir, int n)
{
	char *logs = path_join(dir, "content/r/logs");
	for (int i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s/m%06d.log", logs, i);
		int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "Loss=1\n", 7), 7);
		close(fd);
	}
	free(logs);
}

/* A glob that matches more files than glob_files (10,000) is refused
 * before any member is parsed.  A million-member glob would take
 * minutes just to create here; the cap is what makes it harmless, so
 * the cap is tested lowered by its knob, and once for real at 10,001
 * files. */
static void glob_with_too_many_members(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	many_files(dir, 300);
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: T\nruns:\n  m: { glob: 'logs/m*.log', parser: t }\n---\n"
		  "{{ count(m) }} runs.\n");
	static const char *const env[] = {"LOGDOWN_LIMIT_GLOB_FILES=200", NULL};
	struct expect e = {1,
			   "content/r/index.md:4:14: error: logs/m*.log matches 300 files, more than "
			   "200 (limit glob_files: raise it with limits: in site.yaml or "
			   "LOGDOWN_LIMIT_GLOB_FILES)\n",
			   5, 0, env};
	expect_failure(dir, &e);

	many_files(dir, 10001);
	struct expect big = {1,
			     "content/r/index.md:4:14: error: logs/m*.log matches 10001 files, more "
			     "than 10000 (limit glob_files: raise it with limits: in site.yaml or "
			     "LOGDOWN_LIMIT_GLOB_FILES)\n",
			     5, 64 * 1024, NULL};
	expect_failure(dir, &big);
	project_free(dir);
}

/* A diagnostic quotes a window of a long line, not all of it. */
static void long_lines_are_quoted_in_a_window(void **state)
{
	(void)state;
	char *dir = project_new();
	build_ok(dir);
	struct buf b = BUF_INIT;
	buf_puts(&b, "---\ntitle: T\n---\n");
	for (int i = 0; i < 100000; i++)
		buf_putc(&b, 'w');
	buf_puts(&b, " {{ nope }} ");
	for (int i = 0; i < 100000; i++)
		buf_putc(&b, 'w');
	buf_puts(&b, "\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	struct expect e = {1, "content/r/index.md:4:100005: error: 'nope' is not defined\n", 5, 0,
			   NULL};
	expect_failure(dir, &e);
	struct proc r = e2e_run(dir, "build");
	assert_true(strlen(r.err) < 1000);
	assert_contains(r.err, "www {{ nope }} www");
	proc_free(&r);
	buf_free(&b);
	project_free(dir);
}

/* 50,000 mistakes are 50,000 diagnostics in linear time: quoting each
 * line used to rescan the file from its start (146 s for 100,000). */
static void many_errors_are_reported_in_linear_time(void **state)
{
	(void)state;
	const char *rel = bounded_release_or_skip();
	char *dir = project_new();
	struct buf b = BUF_INIT;
	buf_puts(&b, "---\ntitle: T\n---\n");
	for (int i = 0; i < 50000; i++)
		buf_puts(&b, "{{ nope }}\n\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	struct bounded r = bounded_run(rel, dir, build_argv, NULL, 120);
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "content/r/index.md:100002:4: error: 'nope' is not defined\n"
			       "100002 | {{ nope }}\n");
	assert_contains(r.err, "logdown: 50000 errors; the previous output was left as it was\n");
	print_message("           release: %.2f s (CPU %.2f s), %ld KB peak\n", r.secs, r.cpu_secs,
		      r.maxrss_kb);
	/* Linear time is a bound on the work, so on CPU time: on a loaded
	 * machine the wall clock measured the other processes (18 s of wall
	 * time for under 1 s of CPU, at a load of 12 on 2 cores). */
	if (r.cpu_secs > 10 && timing_checked())
		fail_msg("took %.2f s of CPU", r.cpu_secs);
	bounded_free(&r);
	buf_free(&b);
	project_free(dir);
}

/* A JSON file of 32,000 rows on one line, every value shown in a
 * table: its log page marks the 64,000 values in one pass over the
 * line (36 s of CPU when each value was looked for in the whole line
 * and checked against every other), each mark on its own value. */
static void a_line_of_many_shown_values_is_marked_in_linear_time(void **state)
{
	(void)state;
	const char *rel = bounded_release_or_skip();
	char *dir = project_new();
	struct buf b = BUF_INIT;
	buf_puts(&b, "{\"rows\":[");
	for (int i = 0; i < 32000; i++)
		buf_printf(&b, "%s{\"a\":%d,\"b\":%d.5}", i ? "," : "", i, 2 * i);
	buf_puts(&b, "]}\n");
	e2e_write(dir, "content/r/data.json", buf_data(&b));
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: T\nruns:\n  d: data.json\n---\n```{table}\nrows: d.rows\n```\n");
	struct bounded r = bounded_run(rel, dir, build_argv, NULL, 300);
	assert_int_equal(r.status, 0);
	char *page = e2e_read(dir, "_site/r/logs/data.json.html");
	assert_non_null(page);
	assert_contains(page, "[{\"a\":<mark class=\"ld-mark\" id=\"L1.1\">"
			      "<span class=\"hl-number\">0</span></mark>,\"b\":<mark class=\"ld-mark\" "
			      "id=\"L1.2\"><span class=\"hl-number\">0.5</span></mark>}");
	assert_contains(page, "\"a\":<mark class=\"ld-mark\" id=\"L1.63999\"><span "
			      "class=\"hl-number\">31999</span></mark>,\"b\":<mark class=\"ld-mark\" "
			      "id=\"L1.64000\"><span class=\"hl-number\">63998.5</span></mark>}]}");
	print_message("           release: %.2f s (CPU %.2f s), %ld KB peak\n", r.secs, r.cpu_secs,
		      r.maxrss_kb);
	if (r.cpu_secs > 10 && timing_checked())
		fail_msg("took %.2f s of CPU", r.cpu_secs);
	free(page);
	bounded_free(&r);
	buf_free(&b);
	project_free(dir);
}

/* Front matter of 20,000 runs of one log: each run is found in the
 * parse cache by a hash, not a scan of the runs before it, and each of
 * the 19,999 "never used" warnings is written with one call (stderr is
 * unbuffered: a call a byte was 2.7 million calls). */
static void many_runs_build_in_linear_time(void **state)
{
	(void)state;
	const char *rel = bounded_release_or_skip();
	char *dir = project_new();
	e2e_write(dir, "content/r/logs/a.log", "Step 1, loss 2.5\n");
	e2e_write(dir, "parsers/t.yaml", "name: t\nfields:\n  loss: 'loss ([\\d.]+)'\n");
	struct buf b = BUF_INIT;
	buf_puts(&b, "---\ntitle: T\nruns:\n");
	for (int i = 0; i < 20000; i++)
		buf_printf(&b, "  r%d: { file: logs/a.log, parser: t }\n", i);
	buf_puts(&b, "---\nThe loss was {{ r19999.loss }}.\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	struct bounded r = bounded_run(rel, dir, build_argv, NULL, 300);
	assert_int_equal(r.status, 0);
	bounded_free(&r);
	/* again, every run from the cache */
	r = bounded_run(rel, dir, build_argv, NULL, 300);
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "content/r/index.md:20002:3: warning: run 'r19998' is never used: "
			       "no value, table or excerpt names it\n");
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, ">2.5</a>.</p>");
	free(page);
	print_message("           release, cached: %.2f s (CPU %.2f s), %ld KB peak\n", r.secs,
		      r.cpu_secs, r.maxrss_kb);
	if (r.cpu_secs > 10 && timing_checked())
		fail_msg("took %.2f s of CPU", r.cpu_secs);
	bounded_free(&r);
	buf_free(&b);
	project_free(dir);
}

/* A line of 20,000 values and 32 MB of prose after them: each value's
 * closing braces are looked for up to them, not after reading to the
 * line's end (which read the line 20,000 times: 640 GB). */
static void a_line_of_many_values_resolves_in_linear_time(void **state)
{
	(void)state;
	const char *rel = bounded_release_or_skip();
	char *dir = project_new();
	e2e_write(dir, "content/r/logs/a.log", "Step 1, loss 2.5\n");
	e2e_write(dir, "parsers/t.yaml", "name: t\nfields:\n  loss: 'loss ([\\d.]+)'\n");
	struct buf b = BUF_INIT;
	buf_puts(&b, "---\ntitle: T\nruns:\n  a: { file: logs/a.log, parser: t }\n---\n");
	for (int i = 0; i < 20000; i++)
		buf_puts(&b, "{{ a.loss }} ");
	buf_puts(&b, "{{ a.loss :.2f }}");
	for (int i = 0; i < 4 * 1024 * 1024; i++)
		buf_puts(&b, " prose.");
	buf_puts(&b, "\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	/* a 29 MB line: past markdown_line_bytes, raised here (" prose."
	 * makes few inline nodes) */
	static const char *const env[] = {"LOGDOWN_LIMIT_MARKDOWN_LINE_BYTES=100000000", NULL};
	struct bounded r = bounded_run(rel, dir, build_argv, env, 300);
	assert_int_equal(r.status, 0);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, ">2.50</a> prose. prose.");
	free(page);
	print_message("           release: %.2f s (CPU %.2f s), %ld KB peak\n", r.secs, r.cpu_secs,
		      r.maxrss_kb);
	if (r.cpu_secs > 10 && timing_checked())
		fail_msg("took %.2f s of CPU", r.cpu_secs);
	bounded_free(&r);
	buf_free(&b);
	project_free(dir);
}

/* A 300 KB word shown as a value and a 1 MB line of code, in the PDF:
 * laid out in linear time (pango shaped the rest of an unbroken run
 * again for each line: two minutes for the word; and it walked a line's
 * colours from its start for each wrapped line), the whole text kept,
 * and the zero-width spaces that make it breakable not in the text. */
static void a_huge_word_and_code_line_lay_out_in_linear_time(void **state)
{
	(void)state;
	const char *rel = bounded_release();
	int st;
	char *have = e2e_sh(&st, "command -v pdftotext");
	free(have);
	if (!rel || st != 0) {
		print_message("[  SKIP    ] ./logdown or pdftotext is missing\n");
		skip();
	}
	char *dir = project_new();
	struct buf b = BUF_INIT;
	buf_puts(&b, "Tag=");
	for (int i = 0; i < 30000; i++)
		buf_puts(&b, "abcdefghij");
	buf_puts(&b, "END\n");
	e2e_write(dir, "content/r/logs/a.log", buf_data(&b));
	e2e_write(dir, "parsers/t.yaml", "name: t\nfields:\n  tag: 'Tag=(.*)'\n");
	buf_clear(&b);
	buf_puts(&b, "---\ntitle: T\nruns:\n  a: { file: logs/a.log, parser: t }\n---\n"
		     "The tag is {{ a.tag }}.\n\n```python\nx = [");
	for (int i = 0; i < 150000; i++)
		buf_printf(&b, "%d,", i);
	buf_puts(&b, "-1]\n```\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	static const char *const pdf_argv[] = {"logdown", "pdf", ".", "-o", "out", NULL};
	struct bounded r = bounded_run(rel, dir, pdf_argv, NULL, 300);
	assert_int_equal(r.status, 0);
	print_message("           release: %.2f s (CPU %.2f s), %ld KB peak\n", r.secs, r.cpu_secs,
		      r.maxrss_kb);
	if (r.cpu_secs > 10 && timing_checked())
		fail_msg("took %.2f s of CPU", r.cpu_secs);
	/* the text, lines joined: every character, no U+200B */
	char *text = e2e_sh(&st, "pdftotext -nopgbrk -enc UTF-8 '%s/out/r/report.pdf' - | grep -v "
				 "'^T *[0-9]*/[0-9]*$' | tr -d '\\n'", dir);
	assert_int_equal(st, 0);
	assert_null(strstr(text, "\xE2\x80\x8B"));
	assert_contains(text, "abcdefghijabcdefghijEND.");
	assert_contains(text, "149998,149999,-1]");
	free(text);
	bounded_free(&r);
	buf_free(&b);
	project_free(dir);
}

/* Runs the release binary's build of dir, which must fail with diag,
 * within cpu seconds and max_kb of memory: a cap that stops the input
 * before the memory it would take is spent. */
static void release_refuses_env(const char *dir, const char *diag, double cpu, long max_kb,
				const char *const *env)
{
	const char *rel = bounded_release_or_skip();
	struct bounded r = bounded_run(rel, dir, build_argv, env, 120);
	if (r.status != 1)
		fail_msg("exit %d, expected 1; stderr:\n%s", r.status, r.err);
	assert_contains(r.err, diag);
	print_message("           release: %.2f s (CPU %.2f s), %ld KB peak\n", r.secs, r.cpu_secs,
		      r.maxrss_kb);
	if (r.cpu_secs > cpu && timing_checked())
		fail_msg("took %.2f s of CPU, more than %.1f", r.cpu_secs, cpu);
	if (r.maxrss_kb > max_kb)
		fail_msg("peak memory %ld KB, more than %ld KB", r.maxrss_kb, max_kb);
	bounded_free(&r);
}

static void release_refuses(const char *dir, const char *diag, double cpu, long max_kb)
{
	release_refuses_env(dir, diag, cpu, max_kb, NULL);
}

/* A {table} of a million rows is refused by page_values before a cell
 * is made (it built a 247 MB page in 2 GB), at its rows: line; lowered
 * to 1,000 under ASan, with the previous site left as it was. */
static void a_table_of_a_million_rows_is_refused_by_page_values(void **state)
{
	(void)state;
	bounded_release_or_skip(); /* before anything is made: skip() leaves the test there */
	char *dir = project_new();
	build_ok(dir);
	static const char page[] = "---\ntitle: T\nruns:\n  d: d.csv\n---\n"
				   "```{table}\nrows: d.rows\ncolumns:\n  A: a\n  B: b\n```\n";
	struct buf b = BUF_INIT;
	buf_puts(&b, "a,b\n");
	for (int i = 0; i < 2000; i++)
		buf_printf(&b, "%d,%d\n", i, 2 * i);
	e2e_write(dir, "content/r/d.csv", buf_data(&b));
	e2e_write(dir, "content/r/index.md", page);
	static const char *const env[] = {"LOGDOWN_LIMIT_PAGE_VALUES=1000", NULL};
	struct expect e = {1,
			   "content/r/index.md:7:7: error: this table has 2000 rows of 2 columns: "
			   "4000 values, more than the 1000 a page may show; show fewer with limit: "
			   "or where: (limit page_values: raise it with limits: in site.yaml or "
			   "LOGDOWN_LIMIT_PAGE_VALUES)\n"
			   "    7 | rows: d.rows\n"
			   "      |       ^~~~~~\n",
			   10, 0, env};
	expect_failure(dir, &e);
	buf_clear(&b);
	buf_puts(&b, "a,b\n");
	for (int i = 0; i < 1000000; i++)
		buf_printf(&b, "%d,%d\n", i, 2 * i);
	e2e_write(dir, "content/r/d.csv", buf_data(&b));
	release_refuses(dir,
			"content/r/index.md:7:7: error: this table has 1000000 rows of 2 columns: "
			"2000000 values, more than the 100000 a page may show; show fewer with "
			"limit: or where: (limit page_values",
			5, 400 * 1024);
	buf_free(&b);
	project_free(dir);
}

/* A line of 150,000 values stops at the 100,001st, before it is made:
 * the rest of the page is not read (2,000,000 of them took 6 GB). */
static void a_page_of_too_many_values_stops_at_page_values(void **state)
{
	(void)state;
	bounded_release_or_skip(); /* before anything is made: skip() leaves the test there */
	char *dir = project_new();
	build_ok(dir);
	struct buf b = BUF_INIT;
	buf_puts(&b, "---\ntitle: T\nruns:\n  a: { file: logs/a.log, parser: t }\n---\n");
	for (int i = 0; i < 1500; i++)
		buf_puts(&b, "{{ a.final_loss }} ");
	buf_puts(&b, "\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	static const char *const env[] = {"LOGDOWN_LIMIT_PAGE_VALUES=1000", NULL};
	struct expect e = {1,
			   "content/r/index.md:6:19001: error: this page shows more than 1000 "
			   "values: the rest of it is not read (limit page_values: raise it with "
			   "limits: in site.yaml or LOGDOWN_LIMIT_PAGE_VALUES)\n",
			   10, 0, env};
	expect_failure(dir, &e);
	buf_clear(&b);
	buf_puts(&b, "---\ntitle: T\nruns:\n  a: { file: logs/a.log, parser: t }\n---\n");
	for (int i = 0; i < 150000; i++)
		buf_puts(&b, "{{ a.final_loss }} ");
	buf_puts(&b, "\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	/* (a line of 2.85 MB: past markdown_line_bytes, raised here) */
	static const char *const wide[] = {"LOGDOWN_LIMIT_MARKDOWN_LINE_BYTES=10000000", NULL};
	release_refuses_env(dir,
			    "content/r/index.md:6:1900001: error: this page shows more than 100000 "
			    "values: the rest of it is not read (limit page_values",
			    5, 500 * 1024, wide);
	buf_free(&b);
	project_free(dir);
}

/* Ten partials, each including the next ten times: a "billion laughs"
 * of 3 GB of page, stopped by template_bytes at 100 MB (lowered to
 * 100,000 under ASan), at the tag that passed it. */
static void a_partial_fan_out_stops_at_template_bytes(void **state)
{
	(void)state;
	bounded_release_or_skip(); /* before anything is made: skip() leaves the test there */
	char *dir = project_new();
	build_ok(dir);
	for (int i = 0; i < 10; i++) {
		struct buf b = BUF_INIT;
		for (int k = 0; k < 10; k++)
			buf_printf(&b, i < 9 ? "{{> p%d}}" : "lol", i + 1);
		char *rel = xasprintf("templates/partials/p%d.html", i);
		e2e_write(dir, rel, buf_data(&b));
		free(rel);
		buf_free(&b);
	}
	e2e_write(dir, "templates/page.html", "<html>{{> p0}}{{{content}}}</html>\n");
	static const char *const env[] = {"LOGDOWN_LIMIT_TEMPLATE_BYTES=100000", NULL};
	struct expect e = {1,
			   "p8:1:33: error: the page grows past 100000 bytes of template text "
			   "here: does a partial include others many times over? (limit "
			   "template_bytes: raise it with limits: in site.yaml or "
			   "LOGDOWN_LIMIT_TEMPLATE_BYTES)\n"
			   "    1 | {{> p9}}{{> p9}}{{> p9}}{{> p9}}{{> p9}}{{> p9}}{{> p9}}{{> "
			   "p9}}{{> p9}}{{> p9}}\n"
			   "      |                                 ^~~~~~~~\n",
			   10, 0, env};
	expect_failure(dir, &e);
	release_refuses(dir,
			"p8:1:33: error: the page grows past 100000000 bytes of template text "
			"here: does a partial include others many times over? (limit "
			"template_bytes",
			5, 300 * 1024);
	project_free(dir);
}

/* A 20 MB YAML result file is refused by yaml_bytes on its size, before
 * a byte is read (read whole, it took 540 MB: a tree of 300 bytes a
 * value); lowered to 1,000 under ASan on a small one. */
static void a_yaml_result_file_over_yaml_bytes_is_refused_unread(void **state)
{
	(void)state;
	bounded_release_or_skip(); /* before anything is made: skip() leaves the test there */
	char *dir = project_new();
	build_ok(dir);
	struct buf b = BUF_INIT;
	buf_puts(&b, "loss: 1.5\nrows:\n");
	for (int i = 0; i < 200; i++)
		buf_printf(&b, "  - step: %d\n    loss: %d.5\n", i, i);
	e2e_write(dir, "content/r/res.yaml", buf_data(&b));
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: T\nruns:\n  d: res.yaml\n---\nLoss {{ d.loss }}.\n");
	static const char *const env[] = {"LOGDOWN_LIMIT_YAML_BYTES=1000", NULL};
	struct expect e = {1,
			   "content/r/res.yaml: error: this YAML file is larger than 1000 bytes: "
			   "YAML is read whole; write the results as JSON, which is read as a "
			   "stream (limit yaml_bytes: raise it with limits: in site.yaml or "
			   "LOGDOWN_LIMIT_YAML_BYTES)\n"
			   "content/r/index.md:6:9: note: run 'd' did not load (above)\n",
			   10, 0, env};
	expect_failure(dir, &e);
	for (int i = 200; i < 600000; i++)
		buf_printf(&b, "  - step: %d\n    loss: %d.5\n", i, i);
	e2e_write(dir, "content/r/res.yaml", buf_data(&b));
	assert_true(b.len > 20000000);
	release_refuses(dir,
			"content/r/res.yaml: error: this YAML file is larger than 10000000 bytes: "
			"YAML is read whole",
			1, 60 * 1024);
	buf_free(&b);
	project_free(dir);
}

/* The release binary's peak memory building dir (--no-cache), which
 * must succeed. */
static long build_peak_kb(const char *dir)
{
	static const char *const argv[] = {"logdown", "build", "--no-cache", NULL};
	struct bounded r = bounded_run(bounded_release_or_skip(), dir, argv, NULL, 120);
	if (r.status != 0)
		fail_msg("exit %d:\n%.2000s", r.status, r.err);
	long kb = r.maxrss_kb;
	print_message("           release: %.2f s (CPU %.2f s), %ld KB peak\n", r.secs, r.cpu_secs,
		      kb);
	bounded_free(&r);
	return kb;
}

/* A 9 MB YAML result file (256,000 rows, under yaml_bytes) is streamed:
 * reading it costs its text and one row at a time beyond the series it
 * becomes, which the same rows as JSON measure (a tree of it all took
 * 240 MB where the JSON took 47).  Its values are the file's. */
static void a_yaml_result_file_is_read_in_about_its_size(void **state)
{
	(void)state;
	bounded_release_or_skip();
	char *dir = project_new();
	struct buf y = BUF_INIT, j = BUF_INIT;
	buf_puts(&y, "loss: 1.5\nname: \"98%\"\nacc: 98%\nrows:\n");
	buf_puts(&j, "{\"loss\": 1.5, \"name\": \"98%\", \"acc\": \"98%\", \"rows\": [\n");
	int n = 0;
	for (; y.len < 9000000; n++) {
		buf_printf(&y, "  - step: %d\n    loss: %d.5\n", n, n);
		buf_printf(&j, "%s{\"step\": %d, \"loss\": %d.5}", n ? ",\n" : "", n, n);
	}
	buf_puts(&j, "]}\n");
	e2e_write(dir, "content/r/res.yaml", buf_data(&y));
	e2e_write(dir, "content/r/res.json", buf_data(&j));
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: T\nruns:\n  d: res.json\n---\nLoss {{ d.loss }}.\n");
	long json_kb = build_peak_kb(dir);
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: T\nruns:\n  d: res.yaml\n---\nLoss {{ d.loss }}, {{ d.name }}, "
		  "{{ d.acc + 1 }}, {{ count(d.rows.step) }} rows, last {{ last(d.rows.loss) }}.\n");
	long yaml_kb = build_peak_kb(dir);
	print_message("           9 MB: JSON %ld KB, YAML %ld KB\n", json_kb, yaml_kb);
	if (yaml_kb - json_kb > (long)(y.len * 3 / 2 / 1024))
		fail_msg("the YAML took %ld KB more than the JSON, more than 1.5 times its %zu bytes",
			 yaml_kb - json_kb, y.len);
	char *page = e2e_read(dir, "_site/r/index.html");
	char *want = xasprintf(">%d</span> rows, last <a", n);
	assert_contains(page, want);
	free(want);
	want = xasprintf(">%d.5</a>.", n - 1);
	assert_contains(page, want);
	free(want);
	assert_contains(page, ">98%</a>, <span");
	assert_contains(page, ">99</span>, <span");
	free(page);
	buf_free(&y);
	buf_free(&j);
	project_free(dir);
}

/* A 200 MB line of Markdown: one of words builds, in memory
 * proportional to it (it took 54 s and 3.5 GB when the search index kept
 * every repeat of each word; cmark-gfm then holds it in one text node);
 * one of "w " (each `w` an inline cmark-gfm makes a node of 180 bytes
 * for: it took 7.7 GB) is refused by markdown_inlines at the character
 * that passes the limit, before the parser sees it.  Both limits are
 * lowered under ASan for their exact diagnostics.  The release binary
 * only for the 200 MB files. */
static void a_huge_markdown_line_builds_or_stops_at_a_named_limit(void **state)
{
	(void)state;
	bounded_release_or_skip(); /* before anything is made: skip() leaves the test there */
	char *dir = project_new();
	build_ok(dir);
	struct buf b = BUF_INIT;
	buf_puts(&b, "---\ntitle: T\n---\nSome text.\n\n");
	for (int i = 0; i < 2500; i++)
		buf_puts(&b, "w ");
	buf_puts(&b, "\n");
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	static const char *const env[] = {"LOGDOWN_LIMIT_MARKDOWN_LINE_BYTES=1000", NULL};
	struct expect e = {1,
			   "content/r/index.md:6:1001: error: this line is 5000 bytes, longer than "
			   "the 1000 a Markdown line may have: break it into lines, or put long "
			   "data in a file the page reads (limit markdown_line_bytes: raise it with "
			   "limits: in site.yaml or LOGDOWN_LIMIT_MARKDOWN_LINE_BYTES)\n"
			   "    6 | ...w w w w w",
			   10, 0, env};
	expect_failure(dir, &e);
	/* the same line in three paragraphs of fewer than 1,000 inlines
	 * each builds; as one paragraph of two lines it does not */
	static const char *const few[] = {"LOGDOWN_LIMIT_MARKDOWN_INLINES=1000", NULL};
	struct expect inl = {1,
			     "content/r/index.md:6:2001: error: this paragraph has more than 1000 "
			     "characters that may start an inline (`*`, `_`, `[`, `<`, `w`, `:` "
			     "...): Markdown's parser makes a node of about 180 bytes at each; "
			     "break it into paragraphs, or put long data in a file the page reads "
			     "(limit markdown_inlines: raise it with limits: in site.yaml or "
			     "LOGDOWN_LIMIT_MARKDOWN_INLINES)\n"
			     "    6 | ...w w w w w",
			     10, 0, few};
	expect_failure(dir, &inl);
	buf_clear(&b);
	buf_puts(&b, "---\ntitle: T\n---\nSome text.\n\n");
	for (int p = 0; p < 3; p++) {
		for (int i = 0; i < 900; i++)
			buf_puts(&b, "w ");
		buf_puts(&b, "\n\n```\n");
		for (int i = 0; i < 1500; i++)
			buf_puts(&b, "*");
		buf_puts(&b, "\n```\n\n");
	}
	e2e_write(dir, "content/r/index.md", buf_data(&b));
	struct bounded ok = bounded_run(bounded_release(), dir, build_argv, few, 120);
	if (ok.status != 0)
		fail_msg("build failed:\n%s", ok.err);
	bounded_free(&ok);
	buf_free(&b);

	/* 200 MB, written in pieces: of "w ", then of words */
	char *md = path_join(dir, "content/r/index.md");
	for (int words = 0; words < 2; words++) {
		FILE *f = fopen(md, "w");
		assert_non_null(f);
		fputs("---\ntitle: T\n---\nSome text.\n\n", f);
		char *chunk = xmalloc(1 << 20);
		static const char text[] = "abc def ghi jkl mno pqr stu xyz ";
		for (int i = 0; i < 1 << 20; i += 2)
			memcpy(chunk + i, words ? text + i % 32 : "w ", 2);
		for (int i = 0; i < 200; i++)
			assert_int_equal(fwrite(chunk, 1, 1 << 20, f), 1 << 20);
		fputs("\n", f);
		assert_int_equal(fclose(f), 0);
		free(chunk);
		if (!words) {
			release_refuses(dir,
					"content/r/index.md:6:8000001: error: this paragraph has more "
					"than 4000000 characters that may start an inline",
					3, 300 * 1024);
			continue;
		}
		struct bounded r = bounded_run(bounded_release(), dir, build_argv, NULL, 120);
		if (r.status != 0)
			fail_msg("exit %d:\n%.2000s", r.status, r.err);
		print_message("           release: %.2f s (CPU %.2f s), %ld KB peak\n", r.secs,
			      r.cpu_secs, r.maxrss_kb);
		/* about six times the line: its text, cmark's, the page's */
		if (r.maxrss_kb > 8 * 200 * 1024)
			fail_msg("peak memory %ld KB, more than 8 times the line", r.maxrss_kb);
		if (r.cpu_secs > 20 && timing_checked())
			fail_msg("took %.2f s of CPU, more than 20", r.cpu_secs);
		bounded_free(&r);
		char *page = e2e_read(dir, "_site/r/index.html");
		assert_non_null(strstr(page, "<p>abc def ghi jkl mno pqr stu xyz abc def"));
		free(page);
	}
	free(md);
	project_free(dir);
}

/* The release binary's `pdf` of a project whose index.md is md (and
 * whose d.json is json, when given): it must succeed within cpu
 * seconds of CPU; returns the PDF's text, lines joined, page footers
 * ("T" and "n / m") left out.  Caller frees.  The bounds given below
 * are about three times what a shared 2-core host took at its busiest
 * (session 25: the 1 MB Python line 0.8 to 1.9 s, the code spans with
 * values 1.7 to 2.7 s), and under what each layout took before its fix
 * (7.1 s to 5.5 minutes): they catch a layout gone quadratic, not a
 * slow hour. */
static char *pdf_text_within(const char *md, const char *json, double cpu)
{
	char *dir = project_new();
	e2e_write(dir, "content/r/index.md", md);
	if (json)
		e2e_write(dir, "content/r/d.json", json);
	static const char *const pdf_argv[] = {"logdown", "pdf", ".", "-o", "out", NULL};
	struct bounded r = bounded_run(bounded_release(), dir, pdf_argv, NULL, 120);
	if (r.status != 0)
		fail_msg("exit %d:\n%.2000s", r.status, r.err);
	assert_string_equal(r.err, "logdown: built 1 report into out\n");
	print_message("           release: %.2f s (CPU %.2f s), %ld KB peak\n", r.secs, r.cpu_secs,
		      r.maxrss_kb);
	if (r.cpu_secs > cpu && timing_checked())
		fail_msg("took %.2f s of CPU, more than %.1f", r.cpu_secs, cpu);
	bounded_free(&r);
	int st;
	char *text = e2e_sh(&st,
			    "pdftotext -nopgbrk -enc UTF-8 '%s/out/r/report.pdf' - | grep -v "
			    "'^[0-9]* / [0-9]*$' | grep -v '^T$' | tr -d '\\n'",
			    dir);
	assert_int_equal(st, 0);
	project_free(dir);
	return text;
}

/* How many times needle is in text (not overlapping). */
static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0, k = strlen(needle);
	for (const char *p = strstr(text, needle); p; p = strstr(p + k, needle))
		n++;
	return n;
}

/* A 200 KB word in prose, a 250 KB JSON value and a 1 MiB line of code:
 * each is laid out in the PDF whole, in linear time (they took 31 s,
 * 55 s and 2 minutes once; a 1 MiB line of code with a blank after each
 * comma, 5.5 minutes), and so is a paragraph of 20,000 inline code
 * spans, of 20,000 values, or of both.  The word and the value take well
 * under a second of CPU (0.15 and 0.25 s); the line of code about 0.5 s
 * (0.9 s while pango shaped it), most of it cairo's PDF writer (see
 * docs/performance.md), bounded here at 1 s; a long line pango still
 * lays out (a tab, an accent) is whole too. */
static void long_words_values_and_code_lines_are_laid_out_whole_and_quickly(void **state)
{
	(void)state;
	int st;
	char *have = e2e_sh(&st, "command -v pdftotext");
	free(have);
	if (!bounded_release() || st != 0) {
		print_message("[  SKIP    ] ./logdown or pdftotext is missing\n");
		skip();
	}
	struct buf md = BUF_INIT, json = BUF_INIT;
	buf_puts(&md, "---\ntitle: T\n---\n\nA ");
	for (int i = 0; i < 20000; i++)
		buf_puts(&md, "abcdefghij");
	buf_puts(&md, " B.\n");
	char *text = pdf_text_within(buf_data(&md), NULL, 4);
	assert_int_equal(count_of(text, "abcdefghij"), 20000);
	/* (the word starts a line of its own: lines are joined) */
	assert_contains(text, "Aabcdefghij");
	assert_contains(text, "abcdefghij B.");
	free(text);

	buf_clear(&md);
	buf_puts(&json, "{\"blob\": \"");
	for (int i = 0; i < 25000; i++)
		buf_puts(&json, "0123456789");
	buf_puts(&json, "\"}\n");
	text = pdf_text_within("---\ntitle: T\nruns:\n  d: d.json\n---\n\nA {{ d.blob }} B.\n",
			       buf_data(&json), 4);
	assert_int_equal(count_of(text, "0123456789"), 25000);
	assert_contains(text, "A0123456789");
	assert_contains(text, "0123456789 B.");
	free(text);

	buf_puts(&md, "---\ntitle: T\n---\n\n```python\nx = [");
	int n = 0;
	while (md.len < (1 << 20) + 40)
		buf_printf(&md, "%d,", n++);
	buf_puts(&md, "-1]\n```\n");
	text = pdf_text_within(buf_data(&md), NULL, 4);
	char *last = xasprintf("%d,%d,-1]", n - 2, n - 1);
	assert_contains(text, "x =");
	assert_contains(text, "[0,1,2,3,");
	assert_contains(text, last);
	assert_int_equal(count_of(text, ","), n);
	free(last);
	free(text);

	/* with a blank after each comma: 200,000 words, each kept whole by
	 * an attribute pango walked the line for (5.5 minutes) */
	buf_clear(&md);
	buf_puts(&md, "---\ntitle: T\n---\n\n```python\nx = [");
	n = 0;
	while (md.len < (1 << 20) + 40)
		buf_printf(&md, "%d, ", n++);
	buf_puts(&md, "-1]\n```\n");
	text = pdf_text_within(buf_data(&md), NULL, 4);
	last = xasprintf("%d, %d, -1]", n - 2, n - 1);
	assert_contains(text, last);
	assert_int_equal(count_of(text, ","), n);
	free(last);
	free(text);

	/* a long line that is not all printable ASCII (a tab, an accent)
	 * is laid out by pango, not set glyph by glyph: whole too */
	buf_clear(&md);
	buf_puts(&md, "---\ntitle: T\n---\n\n```\ns = [");
	for (int i = 0; i < 3000; i++)
		buf_printf(&md, "%d,\t\"\xC3\xA9\",", i);
	buf_puts(&md, "]\n```\n");
	text = pdf_text_within(buf_data(&md), NULL, 4);
	assert_int_equal(count_of(text, "\"\xC3\xA9\""), 3000);
	assert_contains(text, "s = [0,");
	assert_contains(text, "2999,");
	free(text);

	/* a paragraph of 20,000 inline code spans: pango walked the
	 * paragraph's attributes for each span's background (11.6 s) */
	buf_clear(&md);
	buf_puts(&md, "---\ntitle: T\n---\n\n");
	for (int i = 0; i < 20000; i++)
		buf_puts(&md, "`a-b` ");
	buf_puts(&md, "end.\n");
	text = pdf_text_within(buf_data(&md), NULL, 4);
	assert_int_equal(count_of(text, "a-b"), 20000);
	free(text);

	/* and one of 20,000 values: logdown walked its links for each run
	 * (1.1 s, growing as the square) */
	buf_clear(&md);
	buf_puts(&md, "---\ntitle: T\nruns:\n  d: d.json\n---\n\n");
	for (int i = 0; i < 20000; i++)
		buf_puts(&md, "{{ d.v }} ");
	buf_puts(&md, "end.\n");
	text = pdf_text_within(buf_data(&md), "{\"v\": 7.5}\n", 6);
	assert_int_equal(count_of(text, "7.5"), 20000);
	free(text);

	/* and one of 20,000 code spans each followed by a value: 40,000
	 * runs of two fonts and 20,000 colours, which pango applied to each
	 * run by walking the paragraph's attributes from its start (7.1 s,
	 * growing as the square); 1.1 s now, most of it cairo's PDF
	 * writer, 1.6 s on a busy machine */
	buf_clear(&md);
	buf_puts(&md, "---\ntitle: T\nruns:\n  d: d.json\n---\n\n");
	for (int i = 0; i < 20000; i++)
		buf_puts(&md, "`a-b` {{ d.v }} ");
	buf_puts(&md, "end.\n");
	text = pdf_text_within(buf_data(&md), "{\"v\": 7.5}\n", 6);
	assert_int_equal(count_of(text, "a-b"), 20000);
	assert_int_equal(count_of(text, "7.5"), 20000);
	free(text);
	buf_free(&md);
	buf_free(&json);
}

/* A 390 KB value of 40,000 words in the prose of the PDF: shown whole,
 * on 90 pages.  Pango summed the width of one run of text in an int of
 * 1/1024 points; past 300 KB it overflowed, and the paragraph became one
 * line cut at the page's edge, with no warning. */
static void a_long_value_with_blanks_is_shown_whole_in_the_pdf(void **state)
{
	(void)state;
	const char *rel = bounded_release();
	int st;
	char *have = e2e_sh(&st, "command -v pdftotext");
	free(have);
	if (!rel || st != 0) {
		print_message("[  SKIP    ] ./logdown or pdftotext is missing\n");
		skip();
	}
	char *dir = project_new();
	struct buf b = BUF_INIT;
	buf_puts(&b, "{\"blob\": \"");
	for (int i = 0; i < 40000; i++)
		buf_printf(&b, "%sword%d", i ? " " : "", i);
	buf_puts(&b, "\"}\n");
	assert_true(b.len > 380000);
	e2e_write(dir, "content/r/d.json", buf_data(&b));
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: T\nruns:\n  d: d.json\n---\nA {{ d.blob }} B.\n");
	static const char *const pdf_argv[] = {"logdown", "pdf", ".", "-o", "out", NULL};
	struct bounded r = bounded_run(rel, dir, pdf_argv, NULL, 120);
	assert_int_equal(r.status, 0);
	print_message("           release: %.2f s (CPU %.2f s), %ld KB peak\n", r.secs, r.cpu_secs,
		      r.maxrss_kb);
	if (r.cpu_secs > 3 && timing_checked())
		fail_msg("took %.2f s of CPU", r.cpu_secs);
	char *count = e2e_sh(&st, "pdftotext -nopgbrk -enc UTF-8 '%s/out/r/report.pdf' - | tr -d "
				  "'\\n' | grep -o 'word[0-9]*' | wc -l",
			     dir);
	assert_int_equal(atoi(count), 40000);
	free(count);
	char *text = e2e_sh(&st, "pdftotext -nopgbrk -enc UTF-8 '%s/out/r/report.pdf' - | tr '\\n' ' '",
			    dir);
	assert_contains(text, "A word0 word1 ");
	assert_contains(text, "word39998 word39999 B.");
	free(text);
	bounded_free(&r);
	buf_free(&b);
	project_free(dir);
}

/* The release binary's CPU time (user and system) for `build --no-cache`
 * of dir with index.md as given, which must succeed. */
static double build_cpu(const char *dir, const char *index_md)
{
	static const char *const argv[] = {"logdown", "build", "--no-cache", NULL};
	e2e_write(dir, "content/r/index.md", index_md);
	struct bounded r = bounded_run(bounded_release_or_skip(), dir, argv, NULL, 120);
	if (r.status != 0)
		fail_msg("exit %d:\n%.2000s", r.status, r.err);
	double cpu = r.cpu_secs;
	bounded_free(&r);
	return cpu;
}

/* Two sizes, four times apart, of a front matter of runs and of a line
 * of values: the CPU time grows about four times (3 to 4 here, with the
 * start's fixed cost), never the sixteen of a quadratic step (100,000
 * runs took minutes once). */
static void runs_and_values_build_in_time_linear_in_their_number(void **state)
{
	(void)state;
	bounded_release_or_skip();
	char *dir = project_new();
	e2e_write(dir, "content/r/logs/a.log", "Step 1, loss 2.5\n");
	e2e_write(dir, "parsers/t.yaml", "name: t\nfields:\n  loss: 'loss ([\\d.]+)'\n");
	double cpu[2][2];
	for (int k = 0; k < 2; k++) {
		int n = k ? 20000 : 5000;
		struct buf b = BUF_INIT;
		buf_puts(&b, "---\ntitle: T\nruns:\n");
		for (int i = 0; i < n; i++)
			buf_printf(&b, "  r%d: { file: logs/a.log, parser: t }\n", i);
		buf_puts(&b, "---\nThe loss was {{ r0.loss }}.\n");
		cpu[0][k] = build_cpu(dir, buf_data(&b));
		buf_clear(&b);
		buf_puts(&b, "---\ntitle: T\nruns:\n  a: { file: logs/a.log, parser: t }\n---\n");
		for (int i = 0; i < 2 * n; i++)
			buf_puts(&b, "{{ a.loss }} ");
		buf_puts(&b, "\n");
		cpu[1][k] = build_cpu(dir, buf_data(&b));
		buf_free(&b);
	}
	print_message("           release: 5,000 and 20,000 runs %.2f s and %.2f s of CPU; "
		      "10,000 and 40,000 values %.2f s and %.2f s\n",
		      cpu[0][0], cpu[0][1], cpu[1][0], cpu[1][1]);
	if (timing_checked()) {
		if (cpu[0][1] > 8 * cpu[0][0] + 0.2)
			fail_msg("4 times the runs took %.1f times the CPU", cpu[0][1] / cpu[0][0]);
		if (cpu[1][1] > 8 * cpu[1][0] + 0.2)
			fail_msg("4 times the values took %.1f times the CPU",
				 cpu[1][1] / cpu[1][0]);
	}
	project_free(dir);
}

/* Every built-in parser over 5 MB of lines made to make a pattern
 * backtrack: 10,000 digits alone and after a key, two long numbers in
 * one line, 1 MiB without a match, a 1 MiB run of blanks, of "1." and of
 * "a ".  Each parser reads it in bounded CPU time (0.1 s here): none of
 * their patterns backtracks superlinearly. */
static void built_in_parsers_do_not_backtrack_on_long_lines(void **state)
{
	(void)state;
	const char *rel = bounded_release_or_skip();
	char *dir = project_new();
	struct buf b = BUF_INIT;
	for (int i = 0; i < 10000; i++)
		buf_putc(&b, '9');
	buf_puts(&b, "\nloss: ");
	for (int i = 0; i < 10000; i++)
		buf_putc(&b, '1');
	buf_puts(&b, "\nStep ");
	for (int i = 0; i < 10000; i++)
		buf_putc(&b, '2');
	buf_puts(&b, ", loss=");
	for (int i = 0; i < 10000; i++)
		buf_putc(&b, '3');
	buf_putc(&b, '\n');
	static const char *const runs[] = {"x", " ", "1.", "a ", "=", "9,"};
	for (size_t k = 0; k < ARRAY_LEN(runs); k++) {
		size_t n = strlen(runs[k]);
		for (size_t i = 0; i < (1u << 20) / n; i++)
			buf_puts(&b, runs[k]);
		buf_putc(&b, '\n');
	}
	e2e_write(dir, "evil.log", buf_data(&b));
	static const char *const list_argv[] = {"logdown", "parsers", NULL};
	struct bounded l = bounded_run(rel, dir, list_argv, NULL, 60);
	assert_int_equal(l.status, 0);
	/* stdout is not kept: read the names from the built-in folder */
	bounded_free(&l);
	int st;
	char *names = e2e_sh(&st, "cd '%s' && '%s' parsers | cut -d' ' -f1", dir, rel);
	assert_int_equal(st, 0);
	int count = 0;
	double worst = 0;
	char worst_name[64] = "";
	for (char *name = strtok(names, "\n"); name; name = strtok(NULL, "\n")) {
		const char *argv[] = {"logdown", "parse", "evil.log", "--parser", name, NULL};
		struct bounded r = bounded_run(rel, dir, argv, NULL, 120);
		if (r.cpu_secs > worst) {
			worst = r.cpu_secs;
			snprintf(worst_name, sizeof worst_name, "%s", name);
		}
		if (r.cpu_secs > 5 && timing_checked())
			fail_msg("parser %s took %.2f s of CPU over 5 MB of long lines", name,
				 r.cpu_secs);
		bounded_free(&r);
		count++;
	}
	assert_true(count >= 40);
	print_message("           %d parsers, the slowest %s: %.2f s of CPU\n", count, worst_name,
		      worst);
	free(names);
	buf_free(&b);
	project_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(truncated_front_matter),
		cmocka_unit_test(binary_log),
		cmocka_unit_test(nul_bytes_in_markdown),
		cmocka_unit_test(invalid_utf8_in_front_matter),
		cmocka_unit_test(invalid_utf8_in_prose_and_log_gives_replacement_characters),
		cmocka_unit_test(prose_without_placeholders_keeps_utf8_and_replaces_every_bad_byte),
		cmocka_unit_test(crlf_and_cr_only_files_read_as_lines),
		cmocka_unit_test(hundred_megabyte_single_line),
		cmocka_unit_test(deeply_nested_yaml_front_matter),
		cmocka_unit_test(deeply_nested_markdown_lists_and_quotes),
		cmocka_unit_test(deeply_nested_expression),
		cmocka_unit_test(a_long_sum_is_length_not_nesting),
		cmocka_unit_test(yaml_alias_bomb),
		cmocka_unit_test(directive_body_that_is_not_a_map),
		cmocka_unit_test(numbers_that_overflow),
		cmocka_unit_test(empty_inputs),
		cmocka_unit_test(catastrophic_pattern_stops_at_the_match_limit),
		cmocka_unit_test(series_longer_than_its_cap),
		cmocka_unit_test(glob_with_too_many_members),
		cmocka_unit_test(long_lines_are_quoted_in_a_window),
		cmocka_unit_test(many_errors_are_reported_in_linear_time),
		cmocka_unit_test(a_line_of_many_shown_values_is_marked_in_linear_time),
		cmocka_unit_test(many_runs_build_in_linear_time),
		cmocka_unit_test(a_line_of_many_values_resolves_in_linear_time),
		cmocka_unit_test(a_huge_word_and_code_line_lay_out_in_linear_time),
		cmocka_unit_test(built_in_parsers_do_not_backtrack_on_long_lines),
		cmocka_unit_test(a_table_of_a_million_rows_is_refused_by_page_values),
		cmocka_unit_test(a_page_of_too_many_values_stops_at_page_values),
		cmocka_unit_test(a_partial_fan_out_stops_at_template_bytes),
		cmocka_unit_test(a_yaml_result_file_over_yaml_bytes_is_refused_unread),
		cmocka_unit_test(a_yaml_result_file_is_read_in_about_its_size),
		cmocka_unit_test(a_huge_markdown_line_builds_or_stops_at_a_named_limit),
		cmocka_unit_test(a_long_value_with_blanks_is_shown_whole_in_the_pdf),
		cmocka_unit_test(long_words_values_and_code_lines_are_laid_out_whole_and_quickly),
		cmocka_unit_test(runs_and_values_build_in_time_linear_in_their_number),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
