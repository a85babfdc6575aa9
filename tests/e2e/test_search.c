/* test_search.c: the site's search (docs/manual.md, "Search"): the
 * index a build writes (search-index.js), exactly, for a small site; its
 * size beside the site's HTML, for the example site and for 1,000
 * reports; the index across a build that reuses pages; and, in headless
 * Chromium from file:// (tests/browser/search_site.mjs), what typing
 * shows and how fast, markup in a heading staying text.  The browser
 * parts skip without /usr/bin/chromium, node and
 * tests/browser/node_modules, as test_browser.c's do. */
#include "e2e.h"

#include <dirent.h>
#include <sys/stat.h>

static const char report_a[] =
	"---\n"
	"title: Alpha sweep\n"
	"date: 2024-05-01\n"
	"runs:\n"
	"  bs512: logs/bs512.log\n"
	"---\n"
	"The loss fell to {{ bs512.final_loss :.3f }} in 1,000 steps.\n"
	"\n"
	"<h3 id=\"raw\">An author's heading</h3>\n"
	"\n"
	"<H4\tclass=\"upper\">Upper-case, a tab before its attribute</H4>\n"
	"\n"
	"## Results of the *first* run\n"
	"\n"
	"A table of `Samples`:\n"
	"\n"
	"| Run | Samples |\n"
	"|-----|--------:|\n"
	"| bs512 | {{ bs512.samples }} |\n"
	"\n"
	"## \\<script>alert(1)\\</script> & \"quotes\"\n"
	"\n"
	"```\n"
	"code is not indexed\n"
	"```\n";

/* No heading at all: one section, the report's top. */
static const char report_b[] =
	"---\n"
	"title: Beta notes\n"
	"summary: No headings here.\n"
	"---\n"
	"Just prose, twice prose.\n";

static char *small_site(void)
{
	return e2e_project(E2E_FILES(E2E_TEXT("content/a/index.md", report_a),
				     E2E_COPY("content/a/logs/bs512.log",
					      "tests/fixtures/cerebras/bs512.log"),
				     E2E_TEXT("content/b.md", report_b)));
}

/* Every term once, sorted; each section its terms' numbers as base-36
 * differences (section 0 of a: 0 "01", 1 "05", 3 "1000", 4 "2024", ...);
 * a value with its expression; markup in a heading escaped.  The
 * author's <h3> and <H4> are counted among the page's heading tags, so
 * that their ids are not taken for the next heading's; their text, raw
 * HTML, is not indexed. */
static const char small_index[] =
	"/* logdown's search index: static/search.js reads it */\n"
	"var LD_SEARCH = {\n"
	"\"terms\": \"01 05 1 1000 2024 512000 7.125 a alert alpha b beta bs512 fell final first "
	"headings here in just loss no notes of prose quotes results run samples script steps "
	"sweep table the to twice\",\n"
	"\"reports\": [\n"
	"[\"a\",\"Alpha sweep\"],\n"
	"[\"b\",\"Beta notes\"]\n"
	"],\n"
	"\"sections\": [\n"
	"[0,\"\",\"\",\"0,1,2,1,2,1,2,3,1,1,4,2,a,1,2,1\",[\"bs512.final_loss\",\"7.125\"]],\n"
	"[0,\"results-of-the-first-run\",\"Results of the first run\",\"5,2,5,3,8,3,1,1,4,1\",[\"bs512.samples\","
	"\"512000\"]],\n"
	"[0,\"scriptalert1script--quotes\",\"\\u003cscript>alert(1)\\u003c/script> & \\\"quotes\\\"\",\"2,6,h,4\",[]],\n"
	"[1,\"\",\"\",\"a,1,5,1,2,2,1,2,b\",[]]\n"
	"]};\n";

static void a_small_sites_index_is_each_term_once_and_each_section(void **state)
{
	(void)state;
	char *dir = small_site();
	e2e_ok(dir, "build");
	char *index = e2e_read(dir, "_site/search-index.js");
	assert_non_null(index);
	assert_string_equal(index, small_index);
	/* the box and its script on every page, the root's path before them */
	char *page = e2e_read(dir, "_site/a/index.html");
	assert_contains(page, "<div class=\"ld-search\" role=\"search\" data-root=\"../\" hidden>\n"
			      "<input class=\"ld-search-input\" type=\"search\"");
	assert_contains(page, "<link rel=\"stylesheet\" href=\"../static/logdown.css\">\n"
			      "<script src=\"../static/search.js\" defer></script>\n");
	char *home = e2e_read(dir, "_site/index.html");
	assert_contains(home, "<div class=\"ld-search\" role=\"search\" data-root=\"\" hidden>");
	assert_contains(home, "<script src=\"static/search.js\" defer></script>");
	char *js = e2e_read(dir, "_site/static/search.js");
	assert_non_null(js);
	assert_contains(js, "s.src = root + 'search-index.js';");
	free(js);
	free(home);
	free(page);
	free(index);
	e2e_drop(&dir);
}

/* A second build takes both pages from the cache, and their sections
 * from the previous index: the same bytes.  Then one report changes: it
 * is rendered again, the other's sections still come back. */
static void reused_pages_keep_their_sections(void **state)
{
	(void)state;
	char *dir = small_site();
	e2e_ok(dir, "build");
	struct proc r = e2e_run(dir, "build -v");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "2 reports: 0 rendered, 2 from cache");
	char *index = e2e_read(dir, "_site/search-index.js");
	assert_string_equal(index, small_index);
	proc_free(&r);
	free(index);

	e2e_write(dir, "content/b.md", "---\ntitle: Beta notes\n---\nNew words.\n");
	r = e2e_run(dir, "build -v");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "2 reports: 1 rendered, 1 from cache");
	index = e2e_read(dir, "_site/search-index.js");
	assert_contains(index, "[0,\"results-of-the-first-run\",\"Results of the first run\",");
	assert_contains(index, "\"bs512.samples\",\"512000\"]]");
	assert_contains(index, " new ");
	assert_not_contains(index, "twice");
	proc_free(&r);
	free(index);

	/* an index damaged by hand: the reused pages keep their titles and
	 * run names, nothing is read past the damage */
	e2e_write(dir, "_site/search-index.js",
		  "var LD_SEARCH = {\n\"terms\": \"a b\",\n\"reports\": [\n[\"a\",\"\\u12");
	r = e2e_run(dir, "build -v");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "2 reports: 0 rendered, 2 from cache");
	index = e2e_read(dir, "_site/search-index.js");
	assert_contains(index, "\"terms\": \"01 05 2024 a alpha b beta bs512 notes sweep\",\n");
	assert_not_contains(index, "Results of the first run");
	proc_free(&r);
	free(index);
	e2e_drop(&dir);
}

/* The bytes of every .html file under dir. */
static long long html_bytes(const char *dir)
{
	long long n = 0;
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char *path = path_join(dir, e->d_name);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			n += html_bytes(path);
		else if (str_has_suffix(e->d_name, ".html"))
			n += st.st_size;
		free(path);
	}
	closedir(d);
	return n;
}

static long long file_bytes(const char *dir, const char *rel)
{
	char *path = path_join(dir, rel);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	free(path);
	return st.st_size;
}

static void the_example_sites_index_is_under_a_tenth_of_its_html(void **state)
{
	(void)state;
	char *out = e2e_tmpdir();
	char *site = path_join(out, "site");
	e2e_ok(".", "build . -o %s --no-cache", site);
	long long html = html_bytes(site), index = file_bytes(site, "search-index.js");
	printf("example site: search-index.js %lld bytes, HTML %lld bytes (%.1f%%)\n", index, html,
	       100.0 * (double)index / (double)html);
	assert_true(index * 10 < html);
	free(site);
	e2e_drop(&out);
}

static bool have_browser(void)
{
	return is_file("/usr/bin/chromium") && is_dir("tests/browser/node_modules/playwright-core") &&
	       system("command -v node >/dev/null 2>&1") == 0;
}

#define NO_BROWSER                                                                        \
	"search browser test: /usr/bin/chromium, node or tests/browser/node_modules missing " \
	"(LOGDOWN_BROWSER_TESTS=1 make test installs them); skipped\n"

/* What tests/browser/search_site.mjs printed for the page at rel. */
static char *typed(const char *site, const char *rel, const char *width, const char *scheme,
		   const char *queries)
{
	int status;
	char *out = e2e_sh(&status, "node tests/browser/search_site.mjs 'file://%s/%s' %s %s %s",
			   site, rel, width, scheme, queries);
	assert_int_equal(status, 0);
	return out;
}

/* The slowest keystroke after "QUERY": in what search_site.mjs printed. */
static double slowest(const char *out, const char *query)
{
	char *head = xasprintf("\"%s\": ", query);
	const char *at = strstr(out, head);
	assert_non_null(at);
	at = strstr(at, "slowest keystroke ");
	assert_non_null(at);
	free(head);
	return strtod(at + strlen("slowest keystroke "), NULL);
}

static void typing_finds_words_and_values_from_file_urls(void **state)
{
	(void)state;
	if (!have_browser()) {
		printf(NO_BROWSER);
		skip();
	}
	char *dir = small_site();
	e2e_ok(dir, "build");
	char *site = path_join(dir, "_site");
	/* a word of a heading; a value as shown with its thousands comma; a
	 * run's name; a word of a report without headings; nothing */
	char *out = typed(site, "a/index.html", "390", "dark",
			  "'script' '512,000' 'bs512 sampl' 'twice' 'zzz'");
	assert_contains(out,
			"\"script\": 1 results, slowest keystroke ");
	/* the heading's markup is text: a link and its two spans, no more */
	assert_contains(out, "\n../a/index.html#scriptalert1script--quotes | Alpha sweep | <script>alert(1)</script> & "
			     "\"quotes\" |  | 3\n");
	assert_contains(out, "\"512,000\": 1 results");
	assert_contains(out, "\n../a/index.html#results-of-the-first-run | Alpha sweep | Results of the first run | "
			     "bs512.samples = 512000 | 4\n");
	assert_contains(out, "\"bs512 sampl\": 1 results");
	assert_contains(out, "\"twice\": 1 results");
	assert_contains(out, "\n../b/index.html | Beta notes |  |  | 2\n");
	assert_contains(out, "\"zzz\": 0 results");
	assert_not_contains(out, "page error");
	free(out);
	/* the index page, wide and light: the report's top first for its
	 * title's word */
	out = typed(site, "index.html", "1280", "light", "'alpha'");
	assert_contains(out, "\"alpha\": 1 results");
	assert_contains(out, "\na/index.html | Alpha sweep |  | ");
	free(out);
	free(site);
	e2e_drop(&dir);
}

/* 1,000 reports (tools/gen-reports.sh, as the bench makes them): the
 * index stays under a tenth of the HTML, and each keystroke's search
 * under 50 ms. */
static void a_thousand_reports_search_fast_from_a_small_index(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	int status;
	free(e2e_sh(&status, "sh tools/gen-reports.sh %s 1000 >/dev/null", dir));
	assert_int_equal(status, 0);
	e2e_ok(dir, "build --no-cache");
	char *site = path_join(dir, "_site");
	long long html = html_bytes(site), index = file_bytes(site, "search-index.js");
	printf("1,000 reports: search-index.js %lld bytes, HTML %lld bytes (%.1f%%)\n", index, html,
	       100.0 * (double)index / (double)html);
	assert_true(index * 10 < html);
	if (have_browser()) {
		char *out = typed(site, "r0500/index.html", "1280", "light",
				  "'report 123' 'loss' '1.00' 'r' 'run 999 reached'");
		printf("%.*s\n", (int)strcspn(out, "\n"), out);
		assert_contains(out, "\"report 123\": 1 results");
		assert_contains(out, "\n../r0123/index.html | Report 123 |  | ");
		assert_contains(out, "\"loss\": 20 results");
		assert_contains(out, "\"run 999 reached\": 1 results");
		const char *q[] = {"report 123", "loss", "1.00", "r", "run 999 reached"};
		for (size_t i = 0; i < ARRAY_LEN(q); i++) {
			double ms = slowest(out, q[i]);
			printf("  \"%s\": slowest keystroke %.1f ms\n", q[i], ms);
			assert_true(ms < 50);
		}
		free(out);
	} else {
		printf(NO_BROWSER);
	}
	free(site);
	e2e_drop(&dir);
}

/* A section's terms' numbers come out ascending whatever the order its
 * words came in: 600 words met from the last to the first, each twice
 * (more than the writer sorts by insertion, numbers of two bytes). */
static void a_long_sections_numbers_ascend_whatever_the_words_order(void **state)
{
	(void)state;
	struct buf md = BUF_INIT;
	buf_puts(&md, "---\ntitle: Reverse\n---\n## Words\n\n");
	for (int round = 0; round < 2; round++)
		for (int i = 599; i >= 0; i--)
			buf_printf(&md, "w%03d%c", i, i % 10 ? ' ' : '\n');
	char *dir = e2e_project(E2E_FILES(E2E_TEXT("content/r.md", md.data)));
	e2e_ok(dir, "build");
	char *index = e2e_read(dir, "_site/search-index.js");
	assert_non_null(index);
	/* r 0, reverse 1, w000 to w599 2 to 601, words 602 */
	struct buf want = BUF_INIT;
	buf_puts(&want, "\n[0,\"words\",\"Words\",\"2");
	for (int i = 0; i < 600; i++)
		buf_puts(&want, ",1");
	buf_puts(&want, "\",[]]\n]};\n");
	assert_contains(index, want.data);
	assert_contains(index, "\"terms\": \"r reverse w000 w001 ");
	buf_free(&want);
	free(index);
	buf_free(&md);
	e2e_drop(&dir);
}

/* A report that cites ends with the References, a heading html.c adds
 * after the report's own blocks (in no tree): the search stops counting
 * the page's heading tags there, so its own headings keep their ids. */
static void a_cited_reports_headings_keep_their_ids(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(
		E2E_TEXT("content/r/refs.bib",
			 "@misc{jia2019, author = {Jia, Zhe}, title = {Dissecting the IPU}, year = 2019}\n"),
		E2E_TEXT("content/r/index.md", "---\ntitle: Cited\nbibliography: refs.bib\n---\n"
					       "## Method\n\nAs [@jia2019] measured.\n\n"
					       "## Findings\n\nFaster.\n")));
	e2e_ok(dir, "build");
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, "<section class=\"references\">\n<h2 id=\"references\">");
	char *index = e2e_read(dir, "_site/search-index.js");
	assert_non_null(index);
	assert_contains(index, "\n[0,\"method\",\"Method\",\"");
	assert_contains(index, "\n[0,\"findings\",\"Findings\",\"");
	free(index);
	free(page);
	e2e_drop(&dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_small_sites_index_is_each_term_once_and_each_section),
		cmocka_unit_test(reused_pages_keep_their_sections),
		cmocka_unit_test(the_example_sites_index_is_under_a_tenth_of_its_html),
		cmocka_unit_test(typing_finds_words_and_values_from_file_urls),
		cmocka_unit_test(a_thousand_reports_search_fast_from_a_small_index),
		cmocka_unit_test(a_long_sections_numbers_ascend_whatever_the_words_order),
		cmocka_unit_test(a_cited_reports_headings_keep_their_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
