/* test_refs.c: the files behind the links of inline values, {table}
 * and {log} (SPEC sections 5, 6 and 9): the raw logs the site copies,
 * the log pages the values link to, and two builds that are alike.
 *
 * What a report gives on its page or on stderr is a golden case
 * (tests/golden/, run by test_golden.c): values, tables, log excerpts,
 * @tbl- references and their diagnostics are there.  What stays here
 * looks past the report's body, at other files of the site.
 *
 * Every project here is the report many_links (content/r/index.md) with
 * copies of the seed Cerebras logs (tests/fixtures/cerebras, the same
 * bytes as content/cerebras-batch-sweep/logs):
 *
 *   logs/bs512.log   58 lines: batch size on line 1, Step=100..1000 on
 *                    lines 44..53, "Processed 512000 sample(s) in
 *                    175.070497198 seconds." on line 58
 *   logs/bs2048.log  42 lines, no batch size line: Step=100..1000 on
 *                    lines 28..37, Processed on line 42
 *   logs/bs1024.log  4 lines, a partial log: Step=1000 (no rate) on
 *                    line 3, Processed on line 4 */
#include "e2e.h"

#define FIXTURES "tests/fixtures/cerebras/"

/* The current test's project: removed by cleanup() after the test,
 * whether it passed or not, which also frees what the test kept
 * (e2e_keep()). */
static char *project;

/* Runs logdown in the current project. */
#define RUN(...) e2e_keep_proc(e2e_run(project, __VA_ARGS__))

static int cleanup(void **state)
{
	(void)state;
	e2e_free_kept();
	e2e_drop(&project);
	return 0;
}

/* Makes the current project: its report content/r/index.md is md, with
 * the three logs beside it in content/r/logs/. */
static void project_new(const char *md)
{
	assert_null(project);
	project = e2e_project(
		E2E_FILES(E2E_COPY("content/r/logs/bs512.log", FIXTURES "bs512.log"),
			  E2E_COPY("content/r/logs/bs2048.log", FIXTURES "bs2048.log"),
			  E2E_COPY("content/r/logs/bs1024.log", FIXTURES "bs1024_partial.log"),
			  E2E_TEXT("content/r/index.md", md)));
}

/* The contents of project/rel, or NULL. */
static char *site_file(const char *rel)
{
	return e2e_keep(e2e_strip_hl(e2e_read(project, rel)));
}

/* Makes the project of md and builds it, which must succeed without a
 * word beyond the summary; returns the body of _site/r/index.html. */
static const char *build_body(const char *md)
{
	project_new(md);
	return e2e_keep(e2e_build_body(project, ""));
}

/* --- provenance: the copies and pages the values link to --- */

static const char many_links[] =
	"---\n"
	"runs:\n"
	"  cs: logs/bs512.log\n"
	"  bert: { glob: \"logs/bs*.log\", parser: cerebras, name_pattern: "
	"'bs(?<batch_size>\\d+)' }\n"
	"---\n"
	"Loss {{ cs.final_loss }}, batch {{ cs.batch_size }}, samples {{ cs.samples :,d }}, "
	"first {{ first(cs.train.loss) }}, step 500 {{ cs.train[step=500].rate }}.\n"
	"\n"
	"```{table}\n"
	"caption: Sweep\n"
	"label: tbl-sweep\n"
	"rows: bert\n"
	"columns:\n"
	"  Run: name\n"
	"  Samples: samples\n"
	"  Loop (s): total_time\n"
	"  Final loss: final_loss\n"
	"```\n"
	"\n"
	"```{log}\n"
	"from: cs\n"
	"match: Processed\n"
	"context: 2\n"
	"```\n";

static void raw_logs_are_copied_byte_for_byte(void **state)
{
	(void)state;
	build_body(many_links);
	static const char *const names[] = {"bs512.log", "bs1024.log", "bs2048.log"};
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		char *src = e2e_keep(xasprintf("%s/content/r/logs/%s", project, names[i]));
		char *copy = e2e_keep(xasprintf("%s/_site/r/logs/%s", project, names[i]));
		if (!file_same(src, copy))
			fail_msg("%s is not a byte-identical copy of %s", copy, src);
	}
}

static void log_pages_anchor_every_line(void **state)
{
	(void)state;
	build_body(many_links);
	const char *page = site_file("_site/r/logs/bs512.log.html");
	assert_non_null(page);
	/* The report (its slug, as it has no title) and the file's path. */
	assert_contains(page, "<title>content/r/logs/bs512.log \xE2\x80\x94 r</title>\n");
	assert_contains(page, "<h1 class=\"ld-title\"><span class=\"ld-log-report\">r</span> "
			      "<span class=\"ld-log-path\">content/<wbr>r/<wbr>logs/<wbr>"
			      "bs512.log</span></h1>\n");
	assert_contains(page, "<link rel=\"stylesheet\" href=\"../../static/logdown.css\">\n");
	assert_contains(page, "<a class=\"ld-site-title\" href=\"../index.html\">");
	assert_contains(page, "<a class=\"ld-nav-link\" href=\"bs512.log\">Raw file</a>\n");
	assert_contains(page, "<p class=\"ld-log-meta\">58 lines \xC2\xB7 6.5 KiB</p>\n");
	assert_contains(page, "<pre class=\"ld-log\"><code><span class=\"ld-line\" id=\"L1\">"
			      "<a class=\"ld-lineno\" href=\"#L1\">1</a>2024-03-30 "
			      "14:09:43,663 INFO:   Effective batch size is <mark class=\"ld-mark\" "
			      "id=\"L1.1\">512</mark>.</span>\n"
			      "<span class=\"ld-line\" id=\"L2\">");
	assert_contains(page, "<span class=\"ld-line\" id=\"L3\"><a class=\"ld-lineno\" "
			      "href=\"#L3\">3</a>2024-03-30 14:09:43,690 INFO:   No checkpoints "
			      "were found in \"model_dir_bert_large_pytorch\".</span>\n");
	assert_contains(page, "<span class=\"ld-line\" id=\"L58\"><a class=\"ld-lineno\" "
			      "href=\"#L58\">58</a>2024-03-30 15:20:24,238 INFO:   Processed "
			      "<mark class=\"ld-mark\" id=\"L58.1\">512000</mark> sample(s) in "
			      "<mark class=\"ld-mark\" id=\"L58.2\">175.070497198</mark> "
			      "seconds.</span></code></pre>\n");
	/* one anchor per line, in order, and none past the end */
	const char *at = page;
	for (int n = 1; n <= 58; n++) {
		char id[64];
		snprintf(id, sizeof id, "<span class=\"ld-line\" id=\"L%d\">", n);
		at = strstr(at, id);
		if (!at)
			fail_msg("no %s after line %d", id, n - 1);
	}
	assert_not_contains(page, "id=\"L59\"");
	assert_not_contains(page, "id=\"L0\"");
}

/* Every href="logs/X.html#LN" (a line: log excerpts) or "#LN.K" (a
 * value's mark in it: inline values, table cells) on the report page
 * names an element the page X shows. */
static void every_value_link_points_at_a_line_of_its_log_page(void **state)
{
	(void)state;
	const char *body = build_body(many_links);
	size_t links = 0;
	static const char href[] = "href=\"logs/";
	for (const char *p = strstr(body, href); p; p = strstr(p + 1, href)) {
		const char *name = p + strlen(href);
		const char *hash = strchr(name, '#');
		const char *quote = strchr(name, '"');
		assert_non_null(quote);
		if (!hash || hash > quote || hash[1] != 'L')
			fail_msg("a log link without a line: %.*s", (int)(quote - p), p);
		char file[256], anchor[64];
		snprintf(file, sizeof file, "_site/r/logs/%.*s", (int)(hash - name), name);
		snprintf(anchor, sizeof anchor, " id=\"%.*s\">", (int)(quote - hash - 1),
			 hash + 1);
		const char *log = site_file(file);
		if (!log)
			fail_msg("%s, linked from the page, does not exist", file);
		if (!strstr(log, anchor))
			fail_msg("%s has no%s", file, anchor);
		links++;
	}
	/* 5 inline values; 3 runs x 3 cells from their files (the names
	 * link nowhere); the excerpt's lines 56-58 */
	assert_int_equal(links, 5 + 9 + 3);
	assert_contains(body, "first <a class=\"ld-value\" href=\"logs/bs512.log.html#L44.1\" "
			      "title=\"content/r/logs/bs512.log:44\">9.39062</a>, step 500 <a "
			      "class=\"ld-value\" href=\"logs/bs512.log.html#L48.1\" "
			      "title=\"content/r/logs/bs512.log:48\">2937.94</a>.</p>\n");
}

/* --- determinism --- */

static void two_builds_are_byte_identical(void **state)
{
	(void)state;
	project_new(many_links);
	struct proc a = RUN("build -o out1");
	struct proc b = RUN("build -o out2");
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	char *cmd = e2e_keep(xasprintf("diff -r '%s/out1' '%s/out2'", project, project));
	assert_int_equal(system(cmd), 0);
	assert_non_null(site_file("out1/r/logs/bs2048.log.html"));
	assert_non_null(site_file("out1/r/logs/bs1024.log"));
}

/* A {log} reads its log in 1 MiB chunks: a line longer than a chunk is
 * matched and shown by its first 4096 bytes (PROVENANCE_LINE_MAX), cut,
 * and the lines after it keep their numbers. */
static void a_log_line_longer_than_a_chunk_is_shown_cut_and_the_next_keeps_its_number(void **state)
{
	(void)state;
	struct buf log = BUF_INIT;
	buf_puts(&log, "loss=1\nlong STEP2START ");
	for (size_t i = 0; i < ((size_t)3 << 20); i++)
		buf_putc(&log, 'x');
	buf_puts(&log, " END\nloss=3 tail\n");
	project = e2e_project(E2E_FILES(
		E2E_TEXT("content/r/logs/run.log", buf_data(&log)),
		E2E_TEXT("content/r/index.md", "---\n"
					       "runs:\n"
					       "  run: { file: logs/run.log, parser: keyvalue }\n"
					       "---\n"
					       "```{log}\n"
					       "from: run\n"
					       "match: STEP2START|tail\n"
					       "```\n")));
	buf_free(&log);
	const char *body = e2e_keep(e2e_strip_hl(e2e_build_body(project, "")));
	const char *head = "href=\"logs/run.log.html#L2\">2</a>long STEP2START ";
	const char *at = strstr(body, head);
	assert_non_null(at);
	at += strlen(head);
	size_t xs = strspn(at, "x");
	assert_int_equal(xs, 4096 - strlen("long STEP2START "));
	assert_true(str_has_prefix(at + xs, "<span class=\"ld-cut\">\xE2\x80\xA6 (cut: the whole "
						"line is in the raw file)</span></span>\n"));
	assert_non_null(strstr(body, "href=\"logs/run.log.html#L3\">3</a>loss=3 tail</span>"));
}

/* --- the click-through: the value's own line, marked there --- */

/* A pretty-printed JSON list: each record over several lines. */
static const char results_json[] =
	"{\n"
	"  \"items\": [\n"
	"    {\n"
	"      \"step\": 1,\n"
	"      \"loss\": 2.5\n"
	"    },\n"
	"    {\n"
	"      \"step\": 2,\n"
	"      \"loss\": 1.25\n"
	"    }\n"
	"  ]\n"
	"}\n";

static const char marks_md[] =
	"---\n"
	"title: Results\n"
	"runs:\n"
	"  res: logs/res.json\n"
	"  sweep: logs/s.csv\n"
	"---\n"
	"Loss {{ res.items[step=2].loss }} at step {{ res.items[step=2].step }}; "
	"CSV loss {{ sweep.rows[bs=512].loss }}.\n";

/* A value of a JSON list links to the line of its own field (not to its
 * record's "{"), and its log page marks it there; a CSV value marks its
 * cell.  The second build reads the runs from the cache: the same. */
static void values_link_to_their_own_field_and_cell_and_are_marked(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(E2E_TEXT("content/r/logs/res.json", results_json),
					E2E_TEXT("content/r/logs/s.csv", "bs,rate,loss\n512,3.5,2.5\n"),
					E2E_TEXT("content/r/index.md", marks_md)));
	static const char want[] =
		"<p>Loss <a class=\"ld-value\" href=\"logs/res.json.html#L9.1\" "
		"title=\"content/r/logs/res.json:9\">1.25</a> at step <a class=\"ld-value\" "
		"href=\"logs/res.json.html#L8.1\" title=\"content/r/logs/res.json:8\">2</a>; CSV "
		"loss <a class=\"ld-value\" href=\"logs/s.csv.html#L2.1\" "
		"title=\"content/r/logs/s.csv:2\">2.5</a>.</p>\n";
	const char *body = e2e_keep(e2e_build_body(project, ""));
	assert_string_equal(body, want);
	/* Again with the page changed: its runs come from the cache. */
	char *md = e2e_keep(xasprintf("%s/content/r/index.md", project));
	char *more = e2e_keep(xasprintf("%s\nMore.\n", marks_md));
	assert_true(file_write(md, more, strlen(more)));
	body = e2e_keep(e2e_build_body(project, ""));
	char *want2 = e2e_keep(xasprintf("%s<p>More.</p>\n", want));
	assert_string_equal(body, want2);
	const char *json = site_file("_site/r/logs/res.json.html");
	assert_non_null(json);
	assert_contains(json, "<title>content/r/logs/res.json \xE2\x80\x94 Results</title>\n");
	assert_contains(json, "<h1 class=\"ld-title\"><span class=\"ld-log-report\">Results</span> "
			      "<span class=\"ld-log-path\">content/<wbr>r/<wbr>logs/<wbr>res.json"
			      "</span></h1>\n<p class=\"ld-log-meta\">12 lines \xC2\xB7 117 bytes</p>\n");
	assert_contains(json, "<span class=\"ld-line\" id=\"L8\"><a class=\"ld-lineno\" "
			      "href=\"#L8\">8</a>      \"step\": <mark class=\"ld-mark\" "
			      "id=\"L8.1\">2</mark>,</span>\n"
			      "<span class=\"ld-line\" id=\"L9\"><a class=\"ld-lineno\" "
			      "href=\"#L9\">9</a>      \"loss\": <mark class=\"ld-mark\" "
			      "id=\"L9.1\">1.25</mark></span>\n");
	/* The record's opening line is not linked to. */
	assert_contains(json, "href=\"#L7\">7</a>    {</span>\n");
	const char *csv = site_file("_site/r/logs/s.csv.html");
	assert_non_null(csv);
	assert_contains(csv, "<p class=\"ld-log-meta\">2 lines \xC2\xB7 25 bytes</p>\n");
	assert_contains(csv, "href=\"#L2\">2</a>512,3.5,<mark class=\"ld-mark\" "
			     "id=\"L2.1\">2.5</mark></span></code></pre>\n");
}

#define TEST(f) cmocka_unit_test_teardown(f, cleanup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(raw_logs_are_copied_byte_for_byte),
		TEST(log_pages_anchor_every_line),
		TEST(every_value_link_points_at_a_line_of_its_log_page),
		TEST(two_builds_are_byte_identical),
		TEST(a_log_line_longer_than_a_chunk_is_shown_cut_and_the_next_keeps_its_number),
		TEST(values_link_to_their_own_field_and_cell_and_are_marked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
