/* test_sections.c: headings as sections (resolve/section.h): their ids,
 * anchors and numbers on the page, @sec- references both ways, the bad
 * labels' diagnostics, the contents (render/toc.h) on the page, and in
 * the PDF the contents list's page numbers and links and the outline,
 * read back with poppler. */
#define _GNU_SOURCE /* memmem() */
#include "e2e.h"

static char *project;

#define RUN(...) e2e_keep_proc(e2e_run(project, __VA_ARGS__))

static int cleanup(void **state)
{
	(void)state;
	e2e_free_kept();
	e2e_drop(&project);
	return 0;
}

/* Builds the report md (with site.yaml site, or none) and returns its
 * page's body; the build must say nothing but its summary. */
static const char *body_of(const char *md, const char *site)
{
	assert_null(project);
	project = e2e_project(E2E_FILES(E2E_TEXT("content/r/index.md", md)));
	if (site)
		e2e_write(project, "site.yaml", site);
	return e2e_keep(e2e_build_body(project, ""));
}

static const char *page_of(void)
{
	return e2e_keep(e2e_read(project, "_site/r/index.html"));
}

static void headings_get_github_slugs_made_unique(void **state)
{
	(void)state;
	const char *body = body_of("## Setup\n\n## Setup\n\n### Details & more (v2)\n\n"
				   "## Setup 1\n\n## Café Über\n\n## `nvcc -O3` flags\n\n## ?!\n",
				   NULL);
	assert_string_equal(
		body,
		"<h2 id=\"setup\">Setup<a class=\"ld-anchor\" href=\"#setup\" aria-label=\"Link to "
		"this section: Setup\">#</a></h2>\n"
		"<h2 id=\"setup-1\">Setup<a class=\"ld-anchor\" href=\"#setup-1\" aria-label=\"Link "
		"to this section: Setup\">#</a></h2>\n"
		"<h3 id=\"details--more-v2\">Details &amp; more (v2)<a class=\"ld-anchor\" "
		"href=\"#details--more-v2\" aria-label=\"Link to this section: Details &amp; more "
		"(v2)\">#</a></h3>\n"
		/* "setup-1" is taken: GitHub goes on to "-2" */
		"<h2 id=\"setup-1-1\">Setup 1<a class=\"ld-anchor\" href=\"#setup-1-1\" "
		"aria-label=\"Link to this section: Setup 1\">#</a></h2>\n"
		"<h2 id=\"café-über\">Café Über<a class=\"ld-anchor\" href=\"#café-über\" "
		"aria-label=\"Link to this section: Café Über\">#</a></h2>\n"
		"<h2 id=\"nvcc--o3-flags\"><code>nvcc -O3</code> flags<a class=\"ld-anchor\" "
		"href=\"#nvcc--o3-flags\" aria-label=\"Link to this section: nvcc -O3 flags\">#</a></h2>\n"
		"<h2 id=\"section\">?!<a class=\"ld-anchor\" href=\"#section\" aria-label=\"Link to "
		"this section: ?!\">#</a></h2>\n");
}

static void a_label_is_the_id_and_a_reference_names_the_section(void **state)
{
	(void)state;
	const char *body = body_of("See @sec-results.\n\n## Setup\n\n## Results {#sec-results}\n\n"
				   "As in @sec-results.\n",
				   NULL);
	assert_string_equal(
		body,
		"<p>See the section <a class=\"ld-ref\" href=\"#sec-results\"><em>Results</em></a>.</p>\n"
		"<h2 id=\"setup\">Setup<a class=\"ld-anchor\" href=\"#setup\" aria-label=\"Link to "
		"this section: Setup\">#</a></h2>\n"
		"<h2 id=\"sec-results\">Results<a class=\"ld-anchor\" href=\"#sec-results\" "
		"aria-label=\"Link to this section: Results\">#</a></h2>\n"
		"<p>As in the section <a class=\"ld-ref\" href=\"#sec-results\"><em>Results</em></a>.</p>\n");
}

static void numbered_sections_start_at_the_top_level_used(void **state)
{
	(void)state;
	const char *body =
		body_of("---\nnumber_sections: true\ntoc: false\n---\nIn @sec-per-run and @sec-notes.\n\n"
			"## Setup\n\n#### Nodes\n\n## Results\n\n### Per run {#sec-per-run}\n\n"
			"## Notes {#sec-notes .unnumbered}\n\n### Aside\n\n## End\n",
			NULL);
	assert_string_equal(
		body,
		"<p>In <a class=\"ld-ref\" href=\"#sec-per-run\">Section 2.1</a> and the section <a "
		"class=\"ld-ref\" href=\"#sec-notes\"><em>Notes</em></a>.</p>\n"
		"<h2 id=\"setup\"><span class=\"ld-secno\">1</span> Setup<a class=\"ld-anchor\" "
		"href=\"#setup\" aria-label=\"Link to this section: Setup\">#</a></h2>\n"
		"<h4 id=\"nodes\"><span class=\"ld-secno\">1.1</span> Nodes<a class=\"ld-anchor\" "
		"href=\"#nodes\" aria-label=\"Link to this section: Nodes\">#</a></h4>\n"
		"<h2 id=\"results\"><span class=\"ld-secno\">2</span> Results<a class=\"ld-anchor\" "
		"href=\"#results\" aria-label=\"Link to this section: Results\">#</a></h2>\n"
		"<h3 id=\"sec-per-run\"><span class=\"ld-secno\">2.1</span> Per run<a "
		"class=\"ld-anchor\" href=\"#sec-per-run\" aria-label=\"Link to this section: Per "
		"run\">#</a></h3>\n"
		"<h2 id=\"sec-notes\">Notes<a class=\"ld-anchor\" href=\"#sec-notes\" "
		"aria-label=\"Link to this section: Notes\">#</a></h2>\n"
		"<h3 id=\"aside\">Aside<a class=\"ld-anchor\" href=\"#aside\" aria-label=\"Link to "
		"this section: Aside\">#</a></h3>\n"
		"<h2 id=\"end\"><span class=\"ld-secno\">3</span> End<a class=\"ld-anchor\" "
		"href=\"#end\" aria-label=\"Link to this section: End\">#</a></h2>\n");
}

static void site_yaml_numbers_and_front_matter_overrides(void **state)
{
	(void)state;
	const char *body = body_of("## A\n\n## B\n", "number_sections: true\n");
	assert_contains(body, "<h2 id=\"a\"><span class=\"ld-secno\">1</span> A<a");
	e2e_drop(&project);
	body = body_of("---\nnumber_sections: false\n---\n## A\n\n## B\n", "number_sections: true\n");
	assert_not_contains(body, "ld-secno");
}

static void bad_labels_are_errors_at_their_columns(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(E2E_TEXT(
		"content/r/index.md",
		"See @sec-resluts and @sec-nowhere.\n\n## Results {#sec-results}\n\n"
		"## Again {#sec-results}\n\n## Plain {#results}\n\n## Classy {.big}\n\n"
		"## Dotted {#sec-a.b}\n\n## Sized {#sec-s width=3}\n")));
	struct proc r = RUN("build");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "\nlogdown: 7 errors;");
	assert_contains(
		r.err,
		"content/r/index.md:7:11: error: a heading's label starts with sec-, as in "
		"{#sec-results}: @sec-results then refers to it (a heading without a label has an id "
		"of its own)\n"
		"    7 | ## Plain {#results}\n"
		"      |           ^~~~~~~~\n"
		"content/r/index.md:9:12: error: a heading takes one class, .unnumbered (or {-}), not "
		"'.big'\n"
		"    9 | ## Classy {.big}\n"
		"      |            ^~~~\n"
		"content/r/index.md:11:12: error: label 'sec-a.b' may hold only letters, digits, '-' "
		"and '_'\n"
		"   11 | ## Dotted {#sec-a.b}\n"
		"      |            ^~~~~~~~\n"
		"content/r/index.md:13:18: error: a heading has no attribute 'width'\n"
		"   13 | ## Sized {#sec-s width=3}\n"
		"      |                  ^~~~~~~\n"
		"content/r/index.md:5:11: error: label 'sec-results' is already the heading's on line 3\n"
		"    5 | ## Again {#sec-results}\n"
		"      |           ^~~~~~~~~~~~\n"
		"content/r/index.md:1:5: error: label 'sec-resluts' is not defined (did you mean "
		"'sec-results'?)\n"
		"    1 | See @sec-resluts and @sec-nowhere.\n"
		"      |     ^~~~~~~~~~~~\n"
		"content/r/index.md:1:22: error: label 'sec-nowhere' is not defined: label a heading, "
		"as in '## Results {#sec-nowhere}'\n"
		"    1 | See @sec-resluts and @sec-nowhere.\n"
		"      |                      ^~~~~~~~~~~~\n");
}

static const char toc_md[] = "---\nnumber_sections: true\n---\nIntro.\n\n## Setup\n\n### Nodes\n\n"
			     "#### Deep\n\n## Results & notes\n";

static void contents_list_the_first_two_depths(void **state)
{
	(void)state;
	body_of(toc_md, NULL);
	const char *page = page_of();
	static const char list[] =
		"<ol class=\"ld-toc-list\">\n"
		"<li><a href=\"#setup\"><span class=\"ld-secno\">1</span> Setup</a>\n"
		"<ol>\n"
		"<li><a href=\"#nodes\"><span class=\"ld-secno\">1.1</span> Nodes</a></li>\n"
		"</ol></li>\n"
		"<li><a href=\"#results--notes\"><span class=\"ld-secno\">2</span> Results &amp; "
		"notes</a></li>\n"
		"</ol>\n";
	char *want = xasprintf("</header>\n"
			       "<nav class=\"ld-toc\" aria-label=\"Contents\">\n"
			       "<details><summary>Contents</summary>\n%s</details>\n</nav>\n"
			       "<nav class=\"ld-toc-rail\" aria-label=\"Contents\">\n"
			       "<div class=\"ld-toc-rail-inner\">\n<p "
			       "class=\"ld-toc-title\">Contents</p>\n%s</div>\n</nav>\n\n"
			       "<div class=\"ld-content\">\n",
			       list, list);
	e2e_keep(want);
	assert_contains(page, want);
	assert_contains(page, "<script src=\"../static/toc.js\" defer></script>\n");
	char *js = e2e_keep(e2e_read(project, "_site/static/toc.js"));
	assert_contains(js, "IntersectionObserver");
}

static void no_contents_when_off_or_under_two_sections(void **state)
{
	(void)state;
	body_of("---\ntoc: false\n---\n## A\n\n## B\n", NULL);
	assert_not_contains(page_of(), "ld-toc");
	e2e_drop(&project);
	e2e_free_kept();
	body_of("## Only\n\nOne heading: no contents.\n", "toc: true\n");
	assert_not_contains(page_of(), "ld-toc");
	assert_not_contains(page_of(), "toc.js");
}

static void toc_and_number_sections_are_true_or_false(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(
		E2E_TEXT("content/r/index.md", "---\nnumber_sections: 1\n---\n## A\n"),
		E2E_TEXT("site.yaml", "toc: pdf\n")));
	struct proc r = RUN("build");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "site.yaml:1:6: error: 'toc' must be true or false\n");
	assert_contains(r.err, "content/r/index.md:2:18: error: 'number_sections' must be true or "
			       "false\n");
}

/* --- the PDF --- */

static char *sh_out(const char *fmt, const char *arg)
{
	int st;
	char *out = e2e_sh(&st, fmt, arg);
	assert_int_equal(st, 0);
	return e2e_keep(out);
}

static bool have_poppler(void)
{
	int st;
	free(e2e_sh(&st, "command -v pdftotext && command -v pdfinfo"));
	if (st != 0)
		print_message("poppler-utils is missing (tools/deps.sh installs it): skipped\n");
	return st == 0;
}

/* The page pdfinfo -dests gives destination name. */
static int dest_page(const char *dests, const char *name)
{
	char *q = xasprintf("\"%s\"\n", name);
	const char *at = strstr(dests, q);
	free(q);
	assert_non_null(at);
	while (at > dests && at[-1] != '\n')
		at--;
	return atoi(at);
}

/* Whether the outline entry titled title (cairo writes it uncompressed)
 * leads to dest: in the same object. */
static bool outline_leads(const char *raw, size_t len, const char *title, const char *dest)
{
	const char *t = memmem(raw, len, title, strlen(title));
	if (!t)
		return false;
	const char *end = memmem(t, len - (size_t)(t - raw), "endobj", 6);
	const char *d = memmem(t, len - (size_t)(t - raw), dest, strlen(dest));
	return end && d && d < end;
}

static void pdf_contents_give_pages_and_link_to_sections(void **state)
{
	(void)state;
	if (!have_poppler())
		return;
	/* sections long enough to fall on pages 1, 2 and 3 */
	struct buf md = BUF_INIT;
	buf_puts(&md, "---\ntitle: Sweep\nnumber_sections: true\ntoc: true\n---\n");
	const char *names[] = {"Setup", "Results {#sec-results}", "Notes {-}"};
	for (int s = 0; s < 3; s++) {
		buf_printf(&md, "## %s\n\n", names[s]);
		for (int i = 0; i < 40; i++)
			buf_puts(&md, "A paragraph of the section, long enough to take two lines of "
				      "the page at its width in the PDF's body font.\n\n");
	}
	buf_puts(&md, "See @sec-results.\n");
	project = e2e_project(E2E_FILES(E2E_TEXT("content/r/index.md", buf_data(&md))));
	buf_free(&md);
	struct proc r = RUN("pdf");
	assert_int_equal(r.status, 0);
	char *pdf = e2e_keep(path_join(project, "_site/r/report.pdf"));
	const char *dests = sh_out("pdfinfo -dests '%s'", pdf);
	int p_setup = dest_page(dests, "setup"), p_results = dest_page(dests, "sec-results"),
	    p_notes = dest_page(dests, "notes");
	assert_int_equal(p_setup, 1);
	assert_true(p_results > p_setup);
	assert_true(p_notes > p_results);
	/* the contents, in reading order: number, text, page */
	const char *text = sh_out("pdftotext -enc UTF-8 -layout '%s' -", pdf);
	char *want = e2e_keep(xasprintf("Contents\n"));
	assert_contains(text, want);
	const char *c = strstr(text, "Contents\n");
	char line[3][128];
	snprintf(line[0], sizeof line[0], "1 Setup");
	snprintf(line[1], sizeof line[1], "2 Results");
	snprintf(line[2], sizeof line[2], "Notes");
	int pages[3] = {p_setup, p_results, p_notes};
	for (int i = 0; i < 3; i++) {
		const char *l = strstr(c, line[i]);
		assert_non_null(l);
		const char *nl = strchr(l, '\n');
		const char *num = nl;
		while (num > l && num[-1] >= '0' && num[-1] <= '9')
			num--;
		assert_int_equal(atoi(num), pages[i]);
		assert_true(num[-1] == ' ');
	}
	/* the entries and the outline lead to the sections' destinations */
	size_t len;
	struct buf bytes = BUF_INIT;
	assert_true(file_read(pdf, &bytes, NULL));
	len = bytes.len;
	e2e_keep(buf_detach(&bytes));
	const char *raw = e2e_kept[e2e_nkept - 1];
	assert_true(outline_leads(raw, len, "/Title (1  Setup)", "/Dest (setup)"));
	assert_true(outline_leads(raw, len, "/Title (2  Results)", "/Dest (sec-results)"));
	assert_true(outline_leads(raw, len, "/Title (Notes)", "/Dest (notes)"));
	/* a link a contents line, and the reference's */
	int links = 0;
	for (const char *p = raw; (p = memmem(p, len - (size_t)(p - raw), "/Dest (sec-results)", 19));
	     p++)
		links++;
	assert_int_equal(links, 3); /* contents, outline, the reference */
	assert_contains(text, "See Section 2.");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(headings_get_github_slugs_made_unique, cleanup),
		cmocka_unit_test_teardown(a_label_is_the_id_and_a_reference_names_the_section,
					  cleanup),
		cmocka_unit_test_teardown(numbered_sections_start_at_the_top_level_used, cleanup),
		cmocka_unit_test_teardown(site_yaml_numbers_and_front_matter_overrides, cleanup),
		cmocka_unit_test_teardown(bad_labels_are_errors_at_their_columns, cleanup),
		cmocka_unit_test_teardown(contents_list_the_first_two_depths, cleanup),
		cmocka_unit_test_teardown(no_contents_when_off_or_under_two_sections, cleanup),
		cmocka_unit_test_teardown(toc_and_number_sections_are_true_or_false, cleanup),
		cmocka_unit_test_teardown(pdf_contents_give_pages_and_link_to_sections, cleanup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
