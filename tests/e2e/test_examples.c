/* test_examples.c: the example site in content/ builds as the README
 * promises, and its pages hold what the reports say. */
#include "e2e.h"

static char *out_dir;

static int build_examples(void **state)
{
	(void)state;
	out_dir = e2e_tmpdir();
	char *cwd = getcwd(NULL, 0);
	struct proc r = e2e_run(cwd, "build . --strict -o '%s/_site'", out_dir);
	free(cwd);
	int status = r.status;
	if (status != 0)
		fprintf(stderr, "logdown build . failed (%d):\n%s", status, r.err);
	proc_free(&r);
	return status == 0 ? 0 : -1;
}

static int remove_examples(void **state)
{
	(void)state;
	remove_tree(out_dir);
	free(out_dir);
	return 0;
}

static char *site_file(const char *rel)
{
	char *site = path_join(out_dir, "_site");
	char *text = e2e_read(site, rel);
	free(site);
	return text;
}

static void index_lists_published_reports_newest_first(void **state)
{
	(void)state;
	char *index = site_file("index.html");
	const char *order[] = {
		"<a href=\"metis-vs-sophia/index.html\">gpt-oss-120b inference: SambaNova Metis vs Sophia</a>",
		"<a href=\"cerebras-batch-sweep/index.html\">Cerebras batch-size sweep</a>",
		"<a href=\"hw07-ai-accelerators/index.html\">Homework 7: AI accelerators</a>",
		"<a href=\"mpi-cuda-training/index.html\">MPI + CUDA training of a two-layer network</a>",
	};
	const char *prev = index;
	for (size_t i = 0; i < ARRAY_LEN(order); i++) {
		const char *at = strstr(index, order[i]);
		if (!at || at < prev)
			fail_msg("index entry %zu out of place: %s", i, order[i]);
		prev = at;
	}
	assert_not_contains(index, "Homework 8 notes");
	free(index);
}

static void every_report_has_its_page(void **state)
{
	(void)state;
	const char *slugs[] = {"hw07-ai-accelerators", "cerebras-batch-sweep", "metis-vs-sophia",
			       "mpi-cuda-training"};
	for (size_t i = 0; i < ARRAY_LEN(slugs); i++) {
		char *rel = xasprintf("%s/index.html", slugs[i]);
		char *page = site_file(rel);
		assert_non_null(page);
		assert_contains(page, "<link rel=\"stylesheet\" href=\"../static/logdown.css\">");
		free(page);
		free(rel);
	}
	assert_null(site_file("hw08-notes/index.html"));
}

static void hw07_page_shows_front_matter_and_gfm_table(void **state)
{
	(void)state;
	char *page = site_file("hw07-ai-accelerators/index.html");
	assert_contains(page, "<title>Homework 7: AI accelerators — logdown examples</title>");
	assert_contains(page, "<h1 class=\"ld-title\">Homework 7: AI accelerators</h1>");
	assert_contains(page, "<time class=\"ld-date\" datetime=\"2024-04-08\">2024-04-08</time>");
	assert_contains(page, "<th align=\"right\">Batch size</th>");
	/* every number comes from a log and links to its line */
	assert_contains(page, "<td align=\"right\"><a class=\"ld-value\" "
			      "href=\"logs/cerebras/bs512.log.html#L53.2\" "
			      "title=\"content/hw07-ai-accelerators/logs/cerebras/bs512.log:53\">"
			      "7.12500</a></td>");
	assert_contains(page, "<figcaption>Table 1: BERT-Large on one CSX");
	/* the IPU-acquire failure, as an excerpt with the log's own numbers */
	assert_contains(page, "<a class=\"ld-lineno\" href=\"logs/graphcore/ipu_error.log.html#L1\">"
			      "1</a>[<span class=\"hl-comment\">09:01:59.258</span>] [poptorch::python] "
			      "[critical]");
	assert_contains(page, "<li><input type=\"checkbox\" checked=\"\" disabled=\"\" /> Cerebras: "
			      "BERT-Large with batch sizes 512, 1024 and 2048</li>");
	free(page);
}

static void used_logs_are_published_with_their_pages(void **state)
{
	(void)state;
	char *raw = site_file("hw07-ai-accelerators/logs/cerebras/bs512.log");
	char *src = e2e_read(".", "content/hw07-ai-accelerators/logs/cerebras/bs512.log");
	assert_non_null(raw);
	assert_string_equal(raw, src);
	char *page = site_file("hw07-ai-accelerators/logs/cerebras/bs512.log.html");
	assert_contains(page, "<span class=\"ld-line\" id=\"L53\">");
	free(page);
	free(src);
	free(raw);
}

static void theme_stylesheet_is_written_and_needs_no_network(void **state)
{
	(void)state;
	char *css = site_file("static/logdown.css");
	assert_non_null(css);
	assert_contains(css, "prefers-color-scheme: dark");
	assert_contains(css, "@media print");
	assert_not_contains(css, "http://");
	assert_not_contains(css, "https://");
	assert_not_contains(css, "@import");
	free(css);
	char *page = site_file("metis-vs-sophia/index.html");
	/* the site's own scripts: the search box, the Copy buttons and the
	 * contents rail; none inline, none from elsewhere */
	assert_contains(page, "<script src=\"../static/search.js\" defer></script>");
	assert_contains(page, "<script src=\"../static/copy.js\" defer></script>");
	assert_contains(page, "<script src=\"../static/toc.js\" defer></script>\n</head>");
	assert_not_contains(strstr(page, "</head>"), "<script");
	assert_not_contains(page, "<script>");
	assert_not_contains(page, "<script src=\"http");
	assert_not_contains(page, "src=\"http");
	assert_not_contains(page, "href=\"http://fonts");
	free(page);
	char *js = site_file("static/toc.js");
	assert_non_null(js);
	assert_not_contains(js, "http");
	free(js);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(index_lists_published_reports_newest_first),
		cmocka_unit_test(every_report_has_its_page),
		cmocka_unit_test(hw07_page_shows_front_matter_and_gfm_table),
		cmocka_unit_test(used_logs_are_published_with_their_pages),
		cmocka_unit_test(theme_stylesheet_is_written_and_needs_no_network),
	};
	return cmocka_run_group_tests(tests, build_examples, remove_examples);
}
