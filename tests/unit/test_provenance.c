/* test_provenance.c: names of result files in the site, links to their
 * lines, and the log pages, written through a real build folder. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/outdir.h"
#include "resolve/provenance.h"
#include "base/util.h"
#include "capture.h"

/* A project folder with a report bundle content/hw07/, its provenance,
 * and diagnostics captured in memory. */
struct proj {
	char *root;
	char *root_real;
	char *report; /* ROOT/content/hw07 */
	struct provenance *p;
	struct capture cap;
};

static int proj_setup(void **state)
{
	struct proj *pj = xcalloc(1, sizeof *pj);
	pj->root = xstrdup("/tmp/logdown-test-prov-XXXXXX");
	assert_non_null(mkdtemp(pj->root));
	pj->root_real = path_real(pj->root);
	pj->report = path_join(pj->root, "content/hw07");
	assert_true(mkdir_p(pj->report));
	pj->p = provenance_new(pj->report, pj->root_real);
	cap_open(&pj->cap);
	*state = pj;
	return 0;
}

static int proj_teardown(void **state)
{
	struct proj *pj = *state;
	provenance_free(pj->p);
	cap_close(&pj->cap);
	remove_tree(pj->root);
	free(pj->report);
	free(pj->root_real);
	free(pj->root);
	free(pj);
	return 0;
}

static const char *diag_out(struct proj *pj)
{
	return cap_text(&pj->cap);
}

/* Writes len bytes to ROOT/rel, creating folders; returns the path as
 * the run loader would show it (ROOT/rel).  Caller frees. */
static char *put(struct proj *pj, const char *rel, const char *data, size_t len)
{
	char *path = path_join(pj->root, rel);
	char *dir = path_dirname(path);
	assert_true(mkdir_p(dir));
	assert_true(file_write(path, data, len));
	free(dir);
	return path;
}

static char *put_str(struct proj *pj, const char *rel, const char *text)
{
	return put(pj, rel, text, strlen(text));
}

/* The file's path from the report's folder, joined as runs.c joins
 * front matter paths. */
static char *from_report(struct proj *pj, const char *rel)
{
	return path_join(pj->report, rel);
}

static char *href(struct proj *pj, const char *file, long line)
{
	struct buf b = BUF_INIT;
	provenance_href(pj->p, &b, file, line);
	return buf_detach(&b);
}

/* Writes the registered files as a build would (slug hw07, its page
 * one folder below the site root), commits, and returns true when
 * provenance_write() did. */
static bool build(struct proj *pj, const char *site_root)
{
	struct outdir o;
	char *out = path_join(pj->root, "_site");
	assert_int_equal(outdir_begin(&o, pj->root, out, pj->cap.d), EXIT_OK);
	bool ok = provenance_write(pj->p, &o, "hw07", site_root, pj->cap.d);
	assert_true(outdir_commit(&o, pj->cap.d));
	outdir_end(&o);
	free(out);
	return ok;
}

/* s without the log colours' <span class="hl-NAME">...</span> (each
 * holds text only), in place: these tests are about the lines, their
 * anchors and marks; test_codeblocks checks the colours. */
static void strip_hl(char *s)
{
	char *w = s;
	const char *r = s;
	while (*r) {
		const char *gt, *close;
		if (strncmp(r, "<span class=\"hl-", 16) == 0 && (gt = strchr(r, '>')) &&
		    (close = strstr(gt, "</span>"))) {
			size_t n = (size_t)(close - gt - 1);
			memmove(w, gt + 1, n);
			w += n;
			r = close + 7;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* The contents of ROOT/_site/rel, or NULL; a page (.html) without its
 * colours (strip_hl()), *len its size as written.  Caller frees. */
static char *site_file(struct proj *pj, const char *rel, size_t *len)
{
	char *path = xasprintf("%s/_site/%s", pj->root, rel);
	struct buf b = BUF_INIT;
	bool ok = file_read(path, &b, NULL);
	free(path);
	if (len)
		*len = b.len;
	if (!ok) {
		buf_free(&b);
		return NULL;
	}
	size_t n = strlen(rel);
	if (n > 5 && strcmp(rel + n - 5, ".html") == 0)
		strip_hl(b.data); /* (*len stays the page's own size) */
	return buf_detach(&b);
}

#define assert_contains(hay, needle)                                                     \
	do {                                                                             \
		if (!strstr((hay), (needle)))                                            \
			fail_msg("'%s' not found in:\n%.2000s", (needle), (hay));        \
	} while (0)
#define assert_lacks(hay, needle)                                                        \
	do {                                                                             \
		if (strstr((hay), (needle)))                                             \
			fail_msg("'%s' unexpectedly found", (needle));                   \
	} while (0)

/* ---------------------------------------------------------------- names */

static void file_under_logs_keeps_its_path_without_logs(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/cerebras/bs512.log", "x\n");
	assert_string_equal(provenance_name(pj->p, f), "cerebras/bs512.log");
	free(f);
}

static void file_beside_the_report_goes_under_logs(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/bs512.log", "x\n");
	char *g = put_str(pj, "content/hw07/results/run.json", "{}\n");
	char *h = put_str(pj, "content/hw07/logs/logs/deep.log", "x\n");
	assert_string_equal(provenance_name(pj->p, f), "bs512.log");
	assert_string_equal(provenance_name(pj->p, g), "results/run.json");
	/* Only one leading logs/ goes. */
	assert_string_equal(provenance_name(pj->p, h), "logs/deep.log");
	free(h);
	free(g);
	free(f);
}

static void file_elsewhere_in_the_project_goes_under_underscore(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "shared/x.log", "x\n");
	char *g = put_str(pj, "content/hw06/logs/y.log", "y\n");
	char *fr = from_report(pj, "../../shared/x.log");
	char *gr = from_report(pj, "../hw06/logs/y.log");
	assert_string_equal(provenance_name(pj->p, fr), "_/shared/x.log");
	assert_string_equal(provenance_name(pj->p, gr), "_/content/hw06/logs/y.log");
	free(gr);
	free(fr);
	free(g);
	free(f);
}

static void spellings_of_one_file_are_one_entry(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/a.log", "x\n");
	char *dotted = from_report(pj, "./logs//a.log");
	char *round = from_report(pj, "../hw07/logs/../logs/a.log");
	const char *name = provenance_name(pj->p, f);
	assert_string_equal(name, "a.log");
	assert_ptr_equal(provenance_name(pj->p, dotted), name);
	assert_ptr_equal(provenance_name(pj->p, round), name);
	/* One page: written once, no a~2.log. */
	assert_true(build(pj, "../"));
	char *dir = xasprintf("%s/_site/hw07/logs", pj->root);
	size_t n;
	char **names = dir_list(dir, &n);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "a.log");
	assert_string_equal(names[1], "a.log.html");
	strv_free(names);
	free(dir);
	free(round);
	free(dotted);
	free(f);
}

static void a_link_is_named_after_its_target(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/run3.log", "x\n");
	char *link = path_join(pj->root, "content/hw07/logs/latest.log");
	assert_int_equal(symlink("run3.log", link), 0);
	assert_string_equal(provenance_name(pj->p, link), "run3.log");
	assert_string_equal(provenance_name(pj->p, f), "run3.log");
	free(link);
	free(f);
}

static void a_taken_name_falls_back_to_the_project_path_then_a_number(void **state)
{
	struct proj *pj = *state;
	char *odd = put_str(pj, "content/hw07/logs/_/content/hw07/a.log", "1\n");
	char *in_logs = put_str(pj, "content/hw07/logs/a.log", "2\n");
	char *beside = put_str(pj, "content/hw07/a.log", "3\n");
	char *other = put_str(pj, "content/hw07/b.log", "4\n");
	char *other_logs = put_str(pj, "content/hw07/logs/b.log", "5\n");
	assert_string_equal(provenance_name(pj->p, odd), "_/content/hw07/a.log");
	assert_string_equal(provenance_name(pj->p, in_logs), "a.log");
	/* a.log is taken, and so is its project form. */
	assert_string_equal(provenance_name(pj->p, beside), "a~2.log");
	assert_string_equal(provenance_name(pj->p, other), "b.log");
	assert_string_equal(provenance_name(pj->p, other_logs), "_/content/hw07/logs/b.log");
	free(other_logs);
	free(other);
	free(beside);
	free(in_logs);
	free(odd);
}

static void a_raw_name_never_meets_another_files_page(void **state)
{
	struct proj *pj = *state;
	char *log = put_str(pj, "content/hw07/logs/x.log", "x\n");
	char *page = put_str(pj, "content/hw07/logs/x.log.html", "<p>x</p>\n");
	char *file = put_str(pj, "content/hw07/logs/d", "d\n");
	char *below = put_str(pj, "content/hw07/logs/d.html/e.log", "e\n");
	assert_string_equal(provenance_name(pj->p, log), "x.log");
	assert_string_equal(provenance_name(pj->p, page), "_/content/hw07/logs/x.log.html");
	assert_string_equal(provenance_name(pj->p, file), "d");
	/* d.html/ would be a folder where the page of d is a file. */
	assert_string_equal(provenance_name(pj->p, below), "_/content/hw07/logs/d.html/e.log");
	free(below);
	free(file);
	free(page);
	free(log);
}

/* ---------------------------------------------------------------- links */

static void href_links_to_the_line_of_the_page(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/cerebras/bs512.log", "x\n");
	char *h = href(pj, f, 52);
	assert_string_equal(h, "logs/cerebras/bs512.log.html#L52");
	free(h);
	h = href(pj, f, 0);
	assert_string_equal(h, "logs/cerebras/bs512.log.html");
	free(h);
	free(f);
}

static void href_appends_to_the_buffer(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/a.log", "x\n");
	struct buf b = BUF_INIT;
	buf_puts(&b, "<a href=\"");
	provenance_href(pj->p, &b, f, 3);
	assert_string_equal(buf_data(&b), "<a href=\"logs/a.log.html#L3");
	buf_free(&b);
	free(f);
}

static void href_percent_encodes_the_name(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/run #1 & \"2\"?.log", "x\n");
	char *g = put_str(pj, "content/hw07/logs/a:b/r\xC3\xA9sum\xC3\xA9.log", "x\n");
	char *h = href(pj, f, 7);
	assert_string_equal(h, "logs/run%20%231%20%26%20%222%22%3F.log.html#L7");
	free(h);
	h = href(pj, g, 1);
	assert_string_equal(h, "logs/a%3Ab/r%C3%A9sum%C3%A9.log.html#L1");
	free(h);
	/* The files keep their names on disk. */
	assert_true(build(pj, "../"));
	char *raw = site_file(pj, "hw07/logs/run #1 & \"2\"?.log", NULL);
	assert_string_equal(raw, "x\n");
	free(raw);
	char *page = site_file(pj, "hw07/logs/run #1 & \"2\"?.log.html", NULL);
	assert_contains(page, "<title>content/hw07/logs/run #1 &amp; &quot;2&quot;?.log</title>");
	assert_contains(page, "href=\"run%20%231%20%26%20%222%22%3F.log\">Raw file</a>");
	free(page);
	free(g);
	free(f);
}


static char *href_text(struct proj *pj, const char *file, long line, const char *text)
{
	struct buf b = BUF_INIT;
	provenance_href_text(pj->p, &b, file, line, text, strlen(text));
	return buf_detach(&b);
}

/* A value's link names its mark; the page marks the value inside its
 * line, at a place with no digit or letter beside it. */
static void value_link_names_its_mark_and_the_page_marks_it(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/m.log",
			  "size 5120 then 512, Loss=9.39062\n"
			  "a <b> & c\n"
			  "Expected: 1\n");
	const char *want[][2] = {
		{"512", "logs/m.log.html#L1.1"},
		{"9.39062", "logs/m.log.html#L1.2"},
		{"512", "logs/m.log.html#L1.1"}, /* the same value again */
		{"<b>", "logs/m.log.html#L2.1"},
		{"rewritten", "logs/m.log.html#L2.2"},
		{"two\nlines", "logs/m.log.html#L3"},
	};
	long lines[] = {1, 1, 1, 2, 2, 3};
	for (size_t i = 0; i < ARRAY_LEN(want); i++) {
		char *h = href_text(pj, f, lines[i], want[i][0]);
		assert_string_equal(h, want[i][1]);
		free(h);
	}
	assert_true(build(pj, "../"));
	char *page = site_file(pj, "hw07/logs/m.log.html", NULL);
	assert_contains(page, "href=\"#L1\">1</a>size 5120 then <mark class=\"ld-mark\" "
			      "id=\"L1.1\">512</mark>, Loss=<mark class=\"ld-mark\" "
			      "id=\"L1.2\">9.39062</mark></span>\n");
	/* A text the line does not hold still anchors the line. */
	assert_contains(page, "href=\"#L2\">2</a><mark class=\"ld-mark\" id=\"L2.2\"></mark>a "
			      "<mark class=\"ld-mark\" id=\"L2.1\">&lt;b&gt;</mark> &amp; c</span>\n");
	assert_contains(page, "href=\"#L3\">3</a>Expected: 1</span>");
	free(page);
	free(f);
}

/* ---------------------------------------------------------------- pages */

static const char three_lines[] =
	"2024-04-08 10:00:01 INFO: Effective batch size is 512\n"
	"Step=100, Loss=9.39062, Rate=2983.97\n"
	"Training completed successfully!\n";

static void three_line_log_gives_this_exact_page(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/bs512.log", three_lines);
	char *h = href(pj, f, 2);
	assert_string_equal(h, "logs/bs512.log.html#L2");
	provenance_set_title(pj->p, "HW7 & friends");
	assert_true(build(pj, "../"));
	assert_string_equal(diag_out(pj), "");
	char *page = site_file(pj, "hw07/logs/bs512.log.html", NULL);
	assert_string_equal(
		page,
		"<!DOCTYPE html>\n"
		"<html lang=\"en\">\n"
		"<head>\n"
		"<meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<meta name=\"color-scheme\" content=\"light dark\">\n"
		"<title>content/hw07/logs/bs512.log — HW7 &amp; friends</title>\n"
		"<link rel=\"stylesheet\" href=\"../../static/logdown.css\">\n"
		"</head>\n"
		"<body class=\"ld-page ld-log-page\">\n"
		"<header class=\"ld-site-header\">\n"
		"<nav class=\"ld-nav\" aria-label=\"Log\">\n"
		"<a class=\"ld-site-title\" href=\"../index.html\">← Back to the report</a>\n"
		"<a class=\"ld-nav-link\" href=\"bs512.log\">Raw file</a>\n"
		"</nav>\n"
		"</header>\n"
		"<main id=\"ld-main\" class=\"ld-main\">\n"
		"<h1 class=\"ld-title\"><span class=\"ld-log-report\">HW7 &amp; friends</span> "
		"<span class=\"ld-log-path\">content/<wbr>hw07/<wbr>logs/<wbr>bs512.log</span></h1>\n"
		"<p class=\"ld-log-meta\">3 lines · 124 bytes</p>\n"
		"<pre class=\"ld-log\"><code>"
		"<span class=\"ld-line\" id=\"L1\"><a class=\"ld-lineno\" href=\"#L1\">1</a>"
		"2024-04-08 10:00:01 INFO: Effective batch size is 512</span>\n"
		"<span class=\"ld-line\" id=\"L2\"><a class=\"ld-lineno\" href=\"#L2\">2</a>"
		"Step=100, Loss=9.39062, Rate=2983.97</span>\n"
		"<span class=\"ld-line\" id=\"L3\"><a class=\"ld-lineno\" href=\"#L3\">3</a>"
		"Training completed successfully!</span>"
		"</code></pre>\n"
		"</main>\n"
		"</body>\n"
		"</html>\n");
	size_t len;
	char *raw = site_file(pj, "hw07/logs/bs512.log", &len);
	assert_int_equal(len, strlen(three_lines));
	assert_string_equal(raw, three_lines);
	free(raw);
	free(page);
	free(h);
	free(f);
}

static void nested_page_climbs_to_the_report_and_the_site_root(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/cerebras/bs512.log", three_lines);
	char *g = put_str(pj, "shared/x.log", "x");
	provenance_use(pj->p, f);
	provenance_use(pj->p, g);
	assert_true(build(pj, "../"));
	char *page = site_file(pj, "hw07/logs/cerebras/bs512.log.html", NULL);
	assert_contains(page, "<link rel=\"stylesheet\" href=\"../../../static/logdown.css\">");
	assert_contains(page, "<a class=\"ld-site-title\" href=\"../../index.html\">");
	assert_contains(page, "<a class=\"ld-nav-link\" href=\"bs512.log\">Raw file</a>");
	assert_contains(page, "<title>content/hw07/logs/cerebras/bs512.log</title>");
	free(page);
	page = site_file(pj, "hw07/logs/_/shared/x.log.html", NULL);
	assert_contains(page, "href=\"../../../../static/logdown.css\"");
	assert_contains(page, "href=\"../../../index.html\"");
	/* A last line without '\n' counts. */
	assert_contains(page, "<p class=\"ld-log-meta\">1 line · 1 byte</p>");
	assert_contains(page, "<a class=\"ld-lineno\" href=\"#L1\">1</a>x</span></code>");
	free(page);
	free(g);
	free(f);
}

static void a_report_two_folders_deep_adds_its_own_prefix(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/a.log", "a\n");
	provenance_use(pj->p, f);
	struct outdir o;
	char *out = path_join(pj->root, "_site");
	assert_int_equal(outdir_begin(&o, pj->root, out, pj->cap.d), EXIT_OK);
	assert_true(provenance_write(pj->p, &o, "2024/hw07", "../../", pj->cap.d));
	assert_true(provenance_write(pj->p, &o, "abs", "/", pj->cap.d));
	assert_true(outdir_commit(&o, pj->cap.d));
	outdir_end(&o);
	char *page = site_file(pj, "2024/hw07/logs/a.log.html", NULL);
	assert_contains(page, "href=\"../../../static/logdown.css\"");
	assert_contains(page, "href=\"../index.html\"");
	free(page);
	page = site_file(pj, "abs/logs/a.log.html", NULL);
	assert_contains(page, "href=\"/static/logdown.css\"");
	free(page);
	free(out);
	free(f);
}

static void log_text_is_escaped(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/evil.log",
			  "<script>alert('x')</script> & \"quotes\" &amp;\n");
	provenance_use(pj->p, f);
	assert_true(build(pj, "../"));
	char *page = site_file(pj, "hw07/logs/evil.log.html", NULL);
	assert_contains(page, "href=\"#L1\">1</a>&lt;script&gt;alert('x')&lt;/script&gt; &amp; "
			      "\"quotes\" &amp;amp;</span>");
	assert_lacks(page, "<script");
	free(page);
	free(f);
}

static void control_bytes_and_bad_utf8_show_harmlessly(void **state)
{
	struct proj *pj = *state;
	static const char text[] =
		"\x1b[1;32mPASSED\x1b[0m\tin 3 ms\r\n"     /* colours go, CRLF's CR too */
		" 10%|#\r 20%|##\r\r\n"                     /* a redrawn bar */
		"a\xff" "b\xc3(c\xe2\x82\n"                /* invalid, cut short */
		"nul\0bell\a del\x7f c1\xc2\x85 esc\x1b\n" /* pictures; C1 -> FFFD */
		"\x1b]0;title\x07" "after osc \xe2\x82\xac \xf0\x9f\x98\x80\n"
		"\xed\xa0\x80 \xf4\x90\x80\x80 \xc0\xaf\n"; /* surrogate, >10FFFF, overlong */
	char *f = put(pj, "content/hw07/logs/bin.log", text, sizeof text - 1);
	provenance_use(pj->p, f);
	assert_true(build(pj, "../"));
	char *page = site_file(pj, "hw07/logs/bin.log.html", NULL);
	assert_contains(page, "href=\"#L1\">1</a>PASSED\tin 3 ms</span>\n");
	assert_contains(page, "href=\"#L2\">2</a> 10%|#␍ 20%|##</span>\n");
	assert_contains(page, "href=\"#L3\">3</a>a\xEF\xBF\xBD" "b\xEF\xBF\xBD(c\xEF\xBF\xBD</span>\n");
	assert_contains(page, "href=\"#L4\">4</a>nul␀bell␇ del␡ c1\xEF\xBF\xBD esc␛</span>\n");
	assert_contains(page, "href=\"#L5\">5</a>after osc € \xF0\x9F\x98\x80</span>\n");
	/* One U+FFFD per maximal invalid part, as browsers decode. */
	assert_contains(page, "href=\"#L6\">6</a>\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD "
			      "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD "
			      "\xEF\xBF\xBD\xEF\xBF\xBD</span></code>");
	/* The raw copy is byte for byte the file. */
	size_t len;
	char *raw = site_file(pj, "hw07/logs/bin.log", &len);
	assert_int_equal(len, sizeof text - 1);
	assert_memory_equal(raw, text, len);
	free(raw);
	free(page);
	free(f);
}

static char *as_text(const char *s, size_t n)
{
	struct buf b = BUF_INIT;
	provenance_put_text(&b, s, n);
	return buf_detach(&b);
}

#define assert_text(in, want)                                    \
	do {                                                     \
		char *got_ = as_text((in), sizeof(in) - 1);      \
		assert_string_equal(got_, (want));               \
		free(got_);                                      \
	} while (0)

static void text_drops_terminal_sequences_of_every_kind(void **state)
{
	(void)state;
	assert_text("\x1b[31mred\x1b[0m <b>&\r\r", "red &lt;b&gt;&amp;");
	/* An OSC 8 hyperlink, ended by ST and by BEL; a charset switch. */
	assert_text("\x1b]8;;http://x\x1b\\link\x1b]8;;\a\x1b(Bdone", "linkdone");
	/* Private CSI (hide the cursor), a two-byte ESC 7, erase line. */
	assert_text("\x1b[?25l\x1b" "7a\x1b[2Kb", "ab");
	/* A CSI cut short by a byte that cannot be in it ends there. */
	assert_text("\x1b[12;\x01x", "␁x");
	/* Unterminated at the end of the line: all of it goes. */
	assert_text("ok\x1b[1;3", "ok");
	assert_text("ok\x1b]0;title", "ok");
	/* A lone ESC is shown. */
	assert_text("a\x1b", "a␛");
	assert_text("", "");
}

static void empty_file_gives_an_empty_log(void **state)
{
	struct proj *pj = *state;
	char *f = put(pj, "content/hw07/logs/empty.log", "", 0);
	provenance_use(pj->p, f);
	assert_true(build(pj, "../"));
	char *page = site_file(pj, "hw07/logs/empty.log.html", NULL);
	assert_contains(page, "<p class=\"ld-log-meta\">0 lines · 0 bytes</p>\n"
			      "<pre class=\"ld-log\"><code></code></pre>");
	free(page);
	free(f);
}

/* A log of n lines, each about 100 bytes: "line N: ...". */
static char *big_log(struct proj *pj, const char *rel, long n)
{
	struct buf b = BUF_INIT;
	for (long i = 1; i <= n; i++)
		buf_printf(&b, "2024-04-08 10:00:00 INFO: line %ld: Step=%ld, Loss=%.5f, "
			       "Rate=2983.97, GlobalRate=2983.97 samples/s\n",
			   i, i, 10.0 / (double)i);
	char *path = put(pj, rel, b.data, b.len);
	buf_free(&b);
	return path;
}

static bool has_line(const char *page, long n)
{
	char *id = xasprintf("<span class=\"ld-line\" id=\"L%ld\">", n);
	bool has = strstr(page, id) != NULL;
	free(id);
	return has;
}

static void large_log_shows_head_linked_lines_and_tail(void **state)
{
	struct proj *pj = *state;
	/* 30,000 lines, 3.3 MB: past both limits of the full view. */
	char *f = big_log(pj, "content/hw07/logs/big.log", 30000);
	char *h = href(pj, f, 15000);
	assert_string_equal(h, "logs/big.log.html#L15000");
	free(h);
	h = href(pj, f, 29940);
	free(h);
	h = href(pj, f, 99999); /* past the end: no window, no harm */
	free(h);
	clock_t t0 = clock();
	assert_true(build(pj, "../"));
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_true(secs < 10);
	size_t len;
	char *page = site_file(pj, "hw07/logs/big.log.html", &len);
	print_message("           the page: %zu bytes\n", len);
	assert_true(len < 200 * 1024); /* the colours about double it */
	assert_contains(page, "<p class=\"ld-log-meta\">30,000 lines · ");
	assert_contains(page, "This log is too large to show in full. Shown: its first 200 lines, "
			      "the lines the report links to with 20 lines around each, and the "
			      "last 50. <a href=\"big.log\">The raw file</a> has all of it.");
	assert_true(has_line(page, 1));
	assert_true(has_line(page, 200));
	assert_false(has_line(page, 201));
	assert_contains(page, "</span>\n<span class=\"ld-line ld-gap\"><span class=\"ld-lineno\">…"
			      "</span><a href=\"big.log\">lines 201–14979 are in the raw file</a>"
			      "</span>\n<span class=\"ld-line\" id=\"L14980\">");
	assert_false(has_line(page, 14979));
	assert_true(has_line(page, 15000));
	assert_contains(page, "id=\"L15000\"><a class=\"ld-lineno\" href=\"#L15000\">15000</a>"
			      "2024-04-08 10:00:00 INFO: line 15000: Step=15000,");
	assert_true(has_line(page, 15020));
	assert_false(has_line(page, 15021));
	assert_contains(page, "lines 15021–29919 are in the raw file");
	/* The window of 29940 runs into the tail: one range. */
	assert_true(has_line(page, 29920));
	assert_true(has_line(page, 30000));
	assert_lacks(page, "id=\"L30001\"");
	assert_contains(page, "line 30000: Step=30000, Loss=0.00033, Rate=2983.97, GlobalRate=2983.97 "
			      "samples/s</span></code></pre>");
	free(page);
	free(f);
}

static void a_log_without_links_shows_head_and_tail(void **state)
{
	struct proj *pj = *state;
	/* Few bytes but many lines: the line limit alone decides. */
	struct buf b = BUF_INIT;
	for (int i = 0; i < 20001; i++)
		buf_puts(&b, "x\n");
	char *f = put(pj, "content/hw07/logs/short.log", b.data, b.len);
	buf_free(&b);
	provenance_use(pj->p, f);
	assert_true(build(pj, "../"));
	char *page = site_file(pj, "hw07/logs/short.log.html", NULL);
	assert_contains(page, "Shown: its first 200 lines, and the last 50.");
	assert_contains(page, "lines 201–19951 are in the raw file");
	assert_true(has_line(page, 19952));
	assert_false(has_line(page, 19951));
	free(page);
	free(f);
}

static void a_log_at_the_limits_is_shown_whole(void **state)
{
	struct proj *pj = *state;
	struct buf b = BUF_INIT;
	for (int i = 0; i < 20000; i++)
		buf_puts(&b, "x\n");
	char *f = put(pj, "content/hw07/logs/edge.log", b.data, b.len);
	buf_free(&b);
	provenance_use(pj->p, f);
	assert_true(build(pj, "../"));
	char *page = site_file(pj, "hw07/logs/edge.log.html", NULL);
	assert_lacks(page, "ld-gap");
	assert_true(has_line(page, 10000));
	assert_true(has_line(page, 20000));
	free(page);
	free(f);
}

static void many_links_shrink_the_context_not_the_links(void **state)
{
	struct proj *pj = *state;
	char *f = big_log(pj, "content/hw07/logs/big.log", 100000);
	/* 600 links, 150 lines apart: 41 lines each would be 24,600. */
	for (long i = 1; i <= 600; i++) {
		char *h = href(pj, f, 1000 + i * 150);
		free(h);
	}
	assert_true(build(pj, "../"));
	size_t len;
	char *page = site_file(pj, "hw07/logs/big.log.html", &len);
	assert_contains(page, "the lines the report links to with 5 lines around each");
	for (long i = 1; i <= 600; i++)
		assert_true(has_line(page, 1000 + i * 150));
	assert_true(has_line(page, 1150 - 5));
	assert_false(has_line(page, 1150 - 6));
	assert_true(len < 4 * 1024 * 1024); /* the colours about double it */
	free(page);
	free(f);
}

/* The abridged view reads only near the lines it shows, from where
 * every 4,096th line starts (noted while the lines are counted): a
 * range starting on such a line (8,193 = 2 x 4,096 + 1), one starting a
 * line before one (12,288), and the lines between them are each the
 * file's own, and the gaps say which lines are left out. */
static void an_abridged_view_starts_each_range_at_its_own_line(void **state)
{
	struct proj *pj = *state;
	char *f = big_log(pj, "content/hw07/logs/big.log", 30000);
	char *h = href(pj, f, 8213);
	free(h);
	h = href(pj, f, 12308);
	free(h);
	assert_true(build(pj, "../"));
	size_t len;
	char *page = site_file(pj, "hw07/logs/big.log.html", &len);
	assert_contains(page, "lines 201–8192 are in the raw file</a></span>\n"
			      "<span class=\"ld-line\" id=\"L8193\">");
	assert_contains(page, "id=\"L8193\"><a class=\"ld-lineno\" href=\"#L8193\">8193</a>"
			      "2024-04-08 10:00:00 INFO: line 8193: Step=8193,");
	assert_true(has_line(page, 8233));
	assert_false(has_line(page, 8234));
	assert_contains(page, "lines 8234–12287 are in the raw file");
	assert_contains(page, "id=\"L12288\"><a class=\"ld-lineno\" href=\"#L12288\">12288</a>"
			      "2024-04-08 10:00:00 INFO: line 12288: Step=12288,");
	assert_contains(page, "id=\"L12289\"><a class=\"ld-lineno\" href=\"#L12289\">12289</a>"
			      "2024-04-08 10:00:00 INFO: line 12289: Step=12289,");
	assert_contains(page, "lines 12329–29950 are in the raw file");
	assert_contains(page, "line 30000: Step=30000,");
	free(page);
	free(f);
}

static void a_huge_line_is_cut_in_the_abridged_view(void **state)
{
	struct proj *pj = *state;
	/* 5 MiB in one line, longer than a read chunk, then two more. */
	size_t n = 5u << 20;
	char *data = xmalloc(n + 16);
	memset(data, 'a', n);
	/* A multibyte character straddling the cut is not split. */
	memcpy(data + PROVENANCE_LINE_MAX - 1, "\xE2\x82\xAC", 3);
	memcpy(data + n, "\nb\nc\n", 5);
	char *f = put(pj, "content/hw07/logs/wide.log", data, n + 5);
	free(data);
	char *h = href(pj, f, 2);
	free(h);
	assert_true(build(pj, "../"));
	size_t len;
	char *page = site_file(pj, "hw07/logs/wide.log.html", &len);
	assert_true(len < 64 * 1024);
	/* 4,095 bytes: the euro sign would have ended past 4,096. */
	const char *text = strstr(page, "href=\"#L1\">1</a>") + strlen("href=\"#L1\">1</a>");
	assert_int_equal(strspn(text, "a"), PROVENANCE_LINE_MAX - 1);
	assert_contains(page, "aaaa<span class=\"ld-cut\">… (5,238,785 more bytes in the raw "
			      "file)</span></span>\n");
	assert_contains(page, "<p class=\"ld-note\">This log is too large to show in full. Lines are "
			      "cut after 4,096 bytes. <a href=\"wide.log\">The raw file</a> has all "
			      "of it.</p>");
	assert_lacks(page, "ld-gap");
	assert_contains(page, "href=\"#L2\">2</a>b</span>\n");
	assert_contains(page, "href=\"#L3\">3</a>c</span></code>");
	free(page);
	free(f);
}

static void check_mode_writes_nothing(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/a.log", "a\n");
	provenance_use(pj->p, f);
	assert_true(provenance_write(pj->p, NULL, "hw07", "../", pj->cap.d));
	assert_int_equal(diag_errors(pj->cap.d), 0);
	char *site = path_join(pj->root, "_site");
	assert_false(path_exists(site));
	free(site);
	free(f);
}

/* Builds the site of the files in `order` into a fresh provenance and
 * returns the bytes of every page and copy, in name order. */
static char *site_bytes(struct proj *pj, char *const *files, const long *lines, size_t n)
{
	provenance_free(pj->p);
	pj->p = provenance_new(pj->report, pj->root_real);
	for (size_t i = 0; i < n; i++) {
		char *h = href(pj, files[i], lines[i]);
		free(h);
	}
	assert_true(build(pj, "../"));
	struct buf all = BUF_INIT;
	static const char *const outputs[] = {
		"hw07/logs/a.log", "hw07/logs/a.log.html", "hw07/logs/big.log",
		"hw07/logs/big.log.html", "hw07/logs/_/shared/s.log", "hw07/logs/_/shared/s.log.html",
	};
	for (size_t i = 0; i < ARRAY_LEN(outputs); i++) {
		size_t len;
		char *s = site_file(pj, outputs[i], &len);
		assert_non_null(s);
		buf_printf(&all, "== %s\n", outputs[i]);
		buf_put(&all, s, len);
		free(s);
	}
	return buf_detach(&all);
}

static void output_does_not_depend_on_the_order_of_use(void **state)
{
	struct proj *pj = *state;
	char *a = put_str(pj, "content/hw07/logs/a.log", "a\nb\n");
	char *big = big_log(pj, "content/hw07/logs/big.log", 25000);
	char *s = put_str(pj, "shared/s.log", "s\n");
	char *one[] = {a, big, s, big, big};
	long one_lines[] = {1, 9000, 1, 12000, 9000};
	char *two[] = {big, s, big, a, big};
	long two_lines[] = {12000, 1, 9000, 1, 12000};
	char *first = site_bytes(pj, one, one_lines, ARRAY_LEN(one));
	char *second = site_bytes(pj, two, two_lines, ARRAY_LEN(two));
	assert_string_equal(first, second);
	free(second);
	free(first);
	free(s);
	free(big);
	free(a);
}

static void a_file_outside_the_project_is_an_error(void **state)
{
	struct proj *pj = *state;
	char *h = href(pj, "/etc/hostname", 1);
	assert_string_equal(h, "logs/_/hostname.html#L1");
	free(h);
	assert_true(build(pj, "../"));
	assert_string_equal(diag_out(pj), "/etc/hostname: error: lies outside the project: logdown "
					  "copies nothing from there\n");
	assert_int_equal(diag_errors(pj->cap.d), 1);
	char *page = site_file(pj, "hw07/logs/_/hostname.html", NULL);
	assert_null(page);
}

static void a_file_gone_before_the_write_is_reported(void **state)
{
	struct proj *pj = *state;
	char *f = put_str(pj, "content/hw07/logs/gone.log", "x\n");
	provenance_use(pj->p, f);
	assert_int_equal(unlink(f), 0);
	assert_int_equal(mkdir(f, 0755), 0);
	struct outdir o;
	char *out = path_join(pj->root, "_site");
	assert_int_equal(outdir_begin(&o, pj->root, out, pj->cap.d), EXIT_OK);
	assert_false(provenance_write(pj->p, &o, "hw07", "../", pj->cap.d));
	assert_int_equal(diag_errors(pj->cap.d), 1);
	outdir_end(&o);
	free(out);
	free(f);
}

static void free_of_null_does_nothing(void **state)
{
	(void)state;
	provenance_free(NULL);
}

#define T(name) cmocka_unit_test_setup_teardown(name, proj_setup, proj_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(file_under_logs_keeps_its_path_without_logs),
		T(file_beside_the_report_goes_under_logs),
		T(file_elsewhere_in_the_project_goes_under_underscore),
		T(spellings_of_one_file_are_one_entry),
		T(a_link_is_named_after_its_target),
		T(a_taken_name_falls_back_to_the_project_path_then_a_number),
		T(a_raw_name_never_meets_another_files_page),
		T(href_links_to_the_line_of_the_page),
		T(href_appends_to_the_buffer),
		T(href_percent_encodes_the_name),
		T(value_link_names_its_mark_and_the_page_marks_it),
		T(three_line_log_gives_this_exact_page),
		T(nested_page_climbs_to_the_report_and_the_site_root),
		T(a_report_two_folders_deep_adds_its_own_prefix),
		T(log_text_is_escaped),
		T(control_bytes_and_bad_utf8_show_harmlessly),
		cmocka_unit_test(text_drops_terminal_sequences_of_every_kind),
		T(empty_file_gives_an_empty_log),
		T(large_log_shows_head_linked_lines_and_tail),
		T(an_abridged_view_starts_each_range_at_its_own_line),
		T(a_log_without_links_shows_head_and_tail),
		T(a_log_at_the_limits_is_shown_whole),
		T(many_links_shrink_the_context_not_the_links),
		T(a_huge_line_is_cut_in_the_abridged_view),
		T(check_mode_writes_nothing),
		T(output_does_not_depend_on_the_order_of_use),
		T(a_file_outside_the_project_is_an_error),
		T(a_file_gone_before_the_write_is_reported),
		cmocka_unit_test(free_of_null_does_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
