/* test_refs.c: inline values, {table}, {log}, @tbl- references and the
 * log pages they link to, as a user builds them (SPEC sections 4, 5, 6
 * and 9).
 *
 * Every project here is a report content/r/index.md with copies of the
 * seed Cerebras logs (tests/fixtures/cerebras, the same bytes as
 * content/cerebras-batch-sweep/logs):
 *
 *   logs/bs512.log   58 lines: batch size on line 1, Step=100..1000 on
 *                    lines 44..53, "Processed 512000 sample(s) in
 *                    175.070497198 seconds." on line 58
 *   logs/bs2048.log  42 lines, no batch size line: Step=100..1000 on
 *                    lines 28..37, Processed on line 42
 *   logs/bs1024.log  4 lines, a partial log: Step=1000 (no rate) on
 *                    line 3, Processed on line 4
 *
 * (one test adds a two-line access log of its own).  The tests at the
 * end describe behaviour found wrong: they fail until it is fixed.
 *
 * HTML is compared exactly, a fragment at a time, against the report's
 * body (what the page template's {{{content}}} expanded to); stderr is
 * compared whole. */
#include "e2e.h"

#define FIXTURES "tests/fixtures/cerebras/"

#define BUILT "logdown: built 1 report into _site\n"

/* The links of the values the tests use, as a page shows them. */
#define LOSS_512                                                                         \
	"<a class=\"ld-value\" href=\"logs/bs512.log.html#L53\" "                        \
	"title=\"content/r/logs/bs512.log:53\">7.12500</a>"
#define TIME_512_X2                                                                      \
	"<span class=\"ld-value\" title=\"cs.total_time = 175.070497198 "                \
	"(content/r/logs/bs512.log:58)\">350.140994396</span>"
#define MISSING "<span class=\"ld-missing\">\xE2\x80\x94</span>"
/* The start of line n of bs512.log in a {log} excerpt: plain, or
 * highlighted as a match. */
#define LINENO(n) "<a class=\"ld-lineno\" href=\"logs/bs512.log.html#L" #n "\">" #n "</a> "
#define LINE(n) "<span class=\"ld-line\">" LINENO(n)
#define HL(n) "<span class=\"ld-line ld-hl\">" LINENO(n)

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
	static const char *const logs[][2] = {
		{FIXTURES "bs512.log", "content/r/logs/bs512.log"},
		{FIXTURES "bs2048.log", "content/r/logs/bs2048.log"},
		{FIXTURES "bs1024_partial.log", "content/r/logs/bs1024.log"},
	};
	assert_null(project);
	project = e2e_tmpdir();
	for (size_t i = 0; i < ARRAY_LEN(logs); i++)
		e2e_copy(project, logs[i][1], logs[i][0]);
	e2e_write(project, "content/r/index.md", md);
}

/* The contents of project/rel, or NULL. */
static char *site_file(const char *rel)
{
	return e2e_keep(e2e_read(project, rel));
}

/* The report body of a page (e2e_page_body()), kept. */
static const char *page_body(const char *page)
{
	return e2e_keep(e2e_page_body(page));
}

/* Makes the project of md and builds it, which must succeed without a
 * word beyond the summary; returns the body of _site/r/index.html. */
static const char *build_body(const char *md)
{
	project_new(md);
	return e2e_keep(e2e_build_body(project, ""));
}

/* `logdown check` of md must fail with exactly `err` on stderr, and
 * build must fail too, writing nothing. */
static void check_fails_with(const char *md, const char *err)
{
	project_new(md);
	struct proc r = RUN("check");
	assert_string_equal(r.err, err);
	assert_int_equal(r.status, 1);
	r = RUN("build");
	assert_int_equal(r.status, 1);
	char *site = e2e_keep(path_join(project, "_site"));
	assert_false(path_exists(site));
}

/* --- inline values --- */

static void value_in_a_paragraph_links_to_its_log_line(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "Final loss {{ cs.final_loss }} after {{cs.final_step}} "
				      "steps.\n");
	assert_string_equal(body,
			    "<p>Final loss " LOSS_512 " after <a class=\"ld-value\" "
			    "href=\"logs/bs512.log.html#L53\" "
			    "title=\"content/r/logs/bs512.log:53\">1000</a> steps.</p>\n");
}

static void values_in_a_heading_a_list_and_emphasis(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "## Loss {{ cs.final_loss }}\n"
				      "\n"
				      "- samples: {{ cs.samples }}\n"
				      "- *time {{ cs.total_time }}* and **{{ cs.batch_size }}**\n"
				      "- _{{ cs.total_time * 2 }}_\n");
	assert_string_equal(
		body,
		"<h2>Loss " LOSS_512 "</h2>\n"
		"<ul>\n"
		"<li>samples: <a class=\"ld-value\" href=\"logs/bs512.log.html#L58\" "
		"title=\"content/r/logs/bs512.log:58\">512000</a></li>\n"
		"<li><em>time <a class=\"ld-value\" href=\"logs/bs512.log.html#L58\" "
		"title=\"content/r/logs/bs512.log:58\">175.070497198</a></em> and "
		"<strong><a class=\"ld-value\" href=\"logs/bs512.log.html#L1\" "
		"title=\"content/r/logs/bs512.log:1\">512</a></strong></li>\n"
		"<li><em>" TIME_512_X2 "</em></li>\n"
		"</ul>\n");
}

/* Nothing inside the braces is Markdown: a '*' or '_' in an expression
 * neither starts emphasis nor, in a GFM table, splits the row. */
static void values_in_a_table_cell_keep_the_row_whole(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "| Step 100 loss | Loop x2 | rate_per_s |\n"
				      "|---|---:|---:|\n"
				      "| {{ cs.train[step=100].loss }} | {{ cs.total_time * 2 }} | "
				      "{{ cs.samples / cs.total_time :.2f }} |\n"
				      "| a_b | {{ cs.total_time * 2 }}*{{ cs.total_time * 2 }} "
				      "| _x_ |\n");
	assert_string_equal(
		body,
		"<table>\n"
		"<thead>\n"
		"<tr>\n"
		"<th>Step 100 loss</th>\n"
		"<th align=\"right\">Loop x2</th>\n"
		"<th align=\"right\">rate_per_s</th>\n"
		"</tr>\n"
		"</thead>\n"
		"<tbody>\n"
		"<tr>\n"
		"<td><a class=\"ld-value\" href=\"logs/bs512.log.html#L44\" "
		"title=\"content/r/logs/bs512.log:44\">9.39062</a></td>\n"
		"<td align=\"right\">" TIME_512_X2 "</td>\n"
		"<td align=\"right\"><span class=\"ld-value\" title=\"cs.samples = 512000 "
		"(content/r/logs/bs512.log:58); cs.total_time = 175.070497198 "
		"(content/r/logs/bs512.log:58)\">2924.54</span></td>\n"
		"</tr>\n"
		"<tr>\n"
		"<td>a_b</td>\n"
		"<td align=\"right\">" TIME_512_X2 "*" TIME_512_X2 "</td>\n"
		"<td align=\"right\"><em>x</em></td>\n"
		"</tr>\n"
		"</tbody>\n"
		"</table>\n");
}

static void braces_stay_literal_in_code_and_after_a_backslash(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "Write `{{ cs.final_loss }}` or ``{{ cs.nope }}``; "
				      "\\{{ cs.final_loss }} is literal.\n"
				      "\n"
				      "```\n"
				      "{{ cs.final_loss }}\n"
				      "```\n"
				      "\n"
				      "~~~~ text\n"
				      "{{ cs.nope :.9x }}\n"
				      "```\n"
				      "{{ cs.final_loss\n"
				      "~~~~\n");
	assert_string_equal(body,
			    "<p>Write <code>{{ cs.final_loss }}</code> or <code>{{ cs.nope "
			    "}}</code>; {{ cs.final_loss }} is literal.</p>\n"
			    "<pre><code>{{ cs.final_loss }}\n"
			    "</code></pre>\n"
			    "<pre><code class=\"language-text\">{{ cs.nope :.9x }}\n"
			    "```\n"
			    "{{ cs.final_loss\n"
			    "</code></pre>\n");
}

static void values_show_as_written_unless_a_spec_formats_them(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "  cs2048: logs/bs2048.log\n"
				      "---\n"
				      "{{ cs.final_loss }} {{ cs.final_loss :.2f }} "
				      "{{ cs.samples :,d }} "
				      "{{ cs2048.samples :,d }} {{ cs.final_loss / 10 :.1% }} "
				      "{{ cs.final_loss :.3e }} {{ cs.total_time :d }}\n");
	assert_string_equal(
		body,
		"<p>" LOSS_512 " "
		"<a class=\"ld-value\" href=\"logs/bs512.log.html#L53\" "
		"title=\"content/r/logs/bs512.log:53\">7.12</a> "
		"<a class=\"ld-value\" href=\"logs/bs512.log.html#L58\" "
		"title=\"content/r/logs/bs512.log:58\">512,000</a> "
		"<a class=\"ld-value\" href=\"logs/bs2048.log.html#L42\" "
		"title=\"content/r/logs/bs2048.log:42\">2,048,000</a> "
		"<span class=\"ld-value\" title=\"cs.final_loss = 7.12500 "
		"(content/r/logs/bs512.log:53)\">71.2%</span> "
		"<a class=\"ld-value\" href=\"logs/bs512.log.html#L53\" "
		"title=\"content/r/logs/bs512.log:53\">7.125e+00</a> "
		"<a class=\"ld-value\" href=\"logs/bs512.log.html#L58\" "
		"title=\"content/r/logs/bs512.log:58\">175</a></p>\n");
}

static void computed_values_name_their_inputs_in_a_tooltip(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "  cs2048: logs/bs2048.log\n"
				      "---\n"
				      "Mean rate {{ mean(cs.train.rate) :.2f }}, ratio "
				      "{{ cs2048.samples / cs.samples }}.\n");
	assert_string_equal(
		body,
		"<p>Mean rate <span class=\"ld-value\" title=\"cs.train.rate = 10 values "
		"(content/r/logs/bs512.log:44-53)\">2930.31</span>, ratio <span "
		"class=\"ld-value\" title=\"cs2048.samples = 2048000 "
		"(content/r/logs/bs2048.log:42); cs.samples = 512000 "
		"(content/r/logs/bs512.log:58)\">4</span>.</p>\n");
}

static void missing_values_show_a_dash(void **state)
{
	(void)state;
	/* bs1024.log was cut: no batch size line and no rates */
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs1024: logs/bs1024.log\n"
				      "---\n"
				      "Batch {{ cs1024.batch_size }}, "
				      "rate {{ mean(cs1024.train.rate) :.2f }}, "
				      "loss {{ cs1024.final_loss }}.\n");
	assert_string_equal(body,
			    "<p>Batch " MISSING ", rate " MISSING ", loss <a class=\"ld-value\" "
			    "href=\"logs/bs1024.log.html#L3\" "
			    "title=\"content/r/logs/bs1024.log:3\">7.07812</a>.</p>\n");
}

/* --- inline value errors: each at its place in the .md file --- */

static void unknown_run_is_an_error_with_a_suggestion(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512: logs/bs512.log\n"
			 "  cs2048: logs/bs2048.log\n"
			 "---\n"
			 "Runs {{ cs512.name }} and {{ cs2048.name }}.\n"
			 "The final loss was {{ cs2084.final_loss }}.\n",
			 "content/r/index.md:7:23: error: run 'cs2084' is not defined (did you "
			 "mean 'cs2048'?)\n"
			 "    7 | The final loss was {{ cs2084.final_loss }}.\n"
			 "      |                       ^~~~~~\n"
			 "logdown: 1 error; nothing was written\n");
}

static void unknown_field_is_an_error_with_a_suggestion(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512: logs/bs512.log\n"
			 "---\n"
			 "- loss: **{{ cs512.final_los :.2f }}**\n",
			 "content/r/index.md:5:20: error: cs512 has no field or series "
			 "'final_los' (did you mean 'final_loss'?)\n"
			 "    5 | - loss: **{{ cs512.final_los :.2f }}**\n"
			 "      |                    ^~~~~~~~~\n"
			 "logdown: 1 error; nothing was written\n");
}

static void a_list_where_one_value_is_needed_names_the_aggregations(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512: logs/bs512.log\n"
			 "---\n"
			 "| Loss |\n"
			 "|---|\n"
			 "| {{ cs512.train.loss }} |\n",
			 "content/r/index.md:7:6: error: cs512.train.loss is a list of 10 values: "
			 "choose one with mean, median, min, max, sum, count, first, last, std or "
			 "percentile\n"
			 "    7 | | {{ cs512.train.loss }} |\n"
			 "      |      ^~~~~~~~~~~~~~~~\n"
			 "logdown: 1 error; nothing was written\n");
}

static void bad_format_spec_is_an_error_under_the_spec(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512: logs/bs512.log\n"
			 "---\n"
			 "# Loss {{ cs512.final_loss :.2x }}\n",
			 "content/r/index.md:5:29: error: unknown format '.2x': use [,][.N]f, e, "
			 "g, % or [,]d, e.g. .2f\n"
			 "    5 | # Loss {{ cs512.final_loss :.2x }}\n"
			 "      |                             ^~~\n"
			 "logdown: 1 error; nothing was written\n");
}

static void unclosed_braces_are_an_error_at_the_braces(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512: logs/bs512.log\n"
			 "---\n"
			 "Loss {{ cs512.final_loss }} and {{ cs512.final_loss\n"
			 "}} on the next line.\n",
			 "content/r/index.md:5:33: error: {{ is never closed on its line: end the "
			 "value with }}, or write \\{{ for the braces themselves\n"
			 "    5 | Loss {{ cs512.final_loss }} and {{ cs512.final_loss\n"
			 "      |                                 ^~\n"
			 "logdown: 1 error; nothing was written\n");
}

/* --- {table} --- */

#define SWEEP_RUNS                                                                       \
	"---\n"                                                                          \
	"runs:\n"                                                                        \
	"  bert: { glob: \"logs/bs*.log\", parser: cerebras, name_pattern: "              \
	"'bs(?<batch_size>\\d+)' }\n"                                                   \
	"---\n"

static void table_over_a_run_set_sorts_filters_and_limits(void **state)
{
	(void)state;
	const char *body = build_body(SWEEP_RUNS
				      "```{table}\n"
				      "caption: BERT-Large, batch-size sweep\n"
				      "rows: bert\n"
				      "columns:\n"
				      "  Run: name\n"
				      "  Batch size: batch_size\n"
				      "  Avg rate (samples/s): mean(train.rate) :.2f\n"
				      "  Final loss: final_loss\n"
				      "where: batch_size >= 1024\n"
				      "sort: -batch_size\n"
				      "limit: 1\n"
				      "```\n"
				      "\n"
				      "```{table}\n"
				      "rows: bert\n"
				      "columns:\n"
				      "  Batch size: batch_size\n"
				      "  Samples: samples :,d\n"
				      "sort: Batch size\n"
				      "```\n");
	assert_string_equal(
		body,
		"<figure class=\"ld-table\"><table>\n"
		"<caption>Table 1: BERT-Large, batch-size sweep</caption>\n"
		"<thead>\n"
		"<tr>\n"
		"<th>Run</th>\n"
		"<th align=\"right\">Batch size</th>\n"
		"<th align=\"right\">Avg rate (samples/s)</th>\n"
		"<th align=\"right\">Final loss</th>\n"
		"</tr>\n"
		"</thead>\n"
		"<tbody>\n"
		"<tr>\n"
		"<td><span class=\"ld-value\">bs2048</span></td>\n"
		"<td align=\"right\"><span class=\"ld-value\">2048</span></td>\n"
		"<td align=\"right\"><span class=\"ld-value\" title=\"train.rate = 10 values "
		"(content/r/logs/bs2048.log:28-37)\">6737.60</span></td>\n"
		"<td align=\"right\"><a class=\"ld-value\" href=\"logs/bs2048.log.html#L37\" "
		"title=\"content/r/logs/bs2048.log:37\">7.14844</a></td>\n"
		"</tr>\n"
		"</tbody>\n"
		"</table></figure>\n"
		"<figure class=\"ld-table\"><table>\n"
		"<thead>\n"
		"<tr>\n"
		"<th align=\"right\">Batch size</th>\n"
		"<th align=\"right\">Samples</th>\n"
		"</tr>\n"
		"</thead>\n"
		"<tbody>\n"
		"<tr>\n"
		/* the log's own "Effective batch size is 512." on line 1 wins
		 * over name_pattern's capture, which fills in for the others */
		"<td align=\"right\"><a class=\"ld-value\" href=\"logs/bs512.log.html#L1\" "
		"title=\"content/r/logs/bs512.log:1\">512</a></td>\n"
		"<td align=\"right\"><a class=\"ld-value\" href=\"logs/bs512.log.html#L58\" "
		"title=\"content/r/logs/bs512.log:58\">512,000</a></td>\n"
		"</tr>\n"
		"<tr>\n"
		"<td align=\"right\"><span class=\"ld-value\">1024</span></td>\n"
		"<td align=\"right\"><a class=\"ld-value\" href=\"logs/bs1024.log.html#L4\" "
		"title=\"content/r/logs/bs1024.log:4\">1,024,000</a></td>\n"
		"</tr>\n"
		"<tr>\n"
		"<td align=\"right\"><span class=\"ld-value\">2048</span></td>\n"
		"<td align=\"right\"><a class=\"ld-value\" href=\"logs/bs2048.log.html#L42\" "
		"title=\"content/r/logs/bs2048.log:42\">2,048,000</a></td>\n"
		"</tr>\n"
		"</tbody>\n"
		"</table></figure>\n");
}

static void table_over_a_series_filters_its_rows(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "```{table}\n"
				      "rows: cs.train\n"
				      "columns:\n"
				      "  Step: step\n"
				      "  Loss: loss\n"
				      "where: step > 800 and loss < 7.2\n"
				      "```\n");
	assert_string_equal(body,
			    "<figure class=\"ld-table\"><table>\n"
			    "<thead>\n"
			    "<tr>\n"
			    "<th align=\"right\">Step</th>\n"
			    "<th align=\"right\">Loss</th>\n"
			    "</tr>\n"
			    "</thead>\n"
			    "<tbody>\n"
			    "<tr>\n"
			    "<td align=\"right\"><a class=\"ld-value\" "
			    "href=\"logs/bs512.log.html#L53\" "
			    "title=\"content/r/logs/bs512.log:53\">1000</a></td>\n"
			    "<td align=\"right\">" LOSS_512 "</td>\n"
			    "</tr>\n"
			    "</tbody>\n"
			    "</table></figure>\n");
}

static void transposed_table_has_runs_as_columns(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs512: logs/bs512.log\n"
				      "  cs2048: logs/bs2048.log\n"
				      "---\n"
				      "```{table}\n"
				      "rows: [cs512, cs2048]\n"
				      "columns:\n"
				      "  Run: name\n"
				      "  Samples: samples :,d\n"
				      "  Final loss: final_loss\n"
				      "transpose: true\n"
				      "```\n");
	assert_string_equal(
		body,
		"<figure class=\"ld-table\"><table>\n"
		"<thead>\n"
		"<tr>\n"
		"<th>Run</th>\n"
		"<th><span class=\"ld-value\">cs512</span></th>\n"
		"<th><span class=\"ld-value\">cs2048</span></th>\n"
		"</tr>\n"
		"</thead>\n"
		"<tbody>\n"
		"<tr>\n"
		"<td>Samples</td>\n"
		"<td align=\"right\"><a class=\"ld-value\" href=\"logs/bs512.log.html#L58\" "
		"title=\"content/r/logs/bs512.log:58\">512,000</a></td>\n"
		"<td align=\"right\"><a class=\"ld-value\" href=\"logs/bs2048.log.html#L42\" "
		"title=\"content/r/logs/bs2048.log:42\">2,048,000</a></td>\n"
		"</tr>\n"
		"<tr>\n"
		"<td>Final loss</td>\n"
		"<td align=\"right\">" LOSS_512 "</td>\n"
		"<td align=\"right\"><a class=\"ld-value\" href=\"logs/bs2048.log.html#L37\" "
		"title=\"content/r/logs/bs2048.log:37\">7.14844</a></td>\n"
		"</tr>\n"
		"</tbody>\n"
		"</table></figure>\n");
}

/* Captions are numbered in document order (a table without caption or
 * label gets no number), and @tbl- links to the table whichever comes
 * first. */
static void captions_are_numbered_and_references_link_to_them(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "See @tbl-x, then @tbl-first.\n"
				      "\n"
				      "```{table}\n"
				      "caption: First\n"
				      "label: tbl-first\n"
				      "rows: [cs]\n"
				      "columns:\n"
				      "  Run: name\n"
				      "```\n"
				      "\n"
				      "```{table}\n"
				      "rows: [cs]\n"
				      "columns:\n"
				      "  Run: name\n"
				      "```\n"
				      "\n"
				      "```{table}\n"
				      "caption: Loss & <steps>\n"
				      "label: tbl-x\n"
				      "rows: [cs]\n"
				      "columns:\n"
				      "  Loss: final_loss\n"
				      "```\n"
				      "\n"
				      "## As @tbl-x shows\n");
	assert_string_equal(
		body,
		"<p>See <a class=\"ld-ref\" href=\"#tbl-x\">Table 2</a>, then "
		"<a class=\"ld-ref\" href=\"#tbl-first\">Table 1</a>.</p>\n"
		"<figure class=\"ld-table\" id=\"tbl-first\"><table>\n"
		"<caption>Table 1: First</caption>\n"
		"<thead>\n"
		"<tr>\n"
		"<th>Run</th>\n"
		"</tr>\n"
		"</thead>\n"
		"<tbody>\n"
		"<tr>\n"
		"<td><span class=\"ld-value\">cs</span></td>\n"
		"</tr>\n"
		"</tbody>\n"
		"</table></figure>\n"
		"<figure class=\"ld-table\"><table>\n"
		"<thead>\n"
		"<tr>\n"
		"<th>Run</th>\n"
		"</tr>\n"
		"</thead>\n"
		"<tbody>\n"
		"<tr>\n"
		"<td><span class=\"ld-value\">cs</span></td>\n"
		"</tr>\n"
		"</tbody>\n"
		"</table></figure>\n"
		"<figure class=\"ld-table\" id=\"tbl-x\"><table>\n"
		"<caption>Table 2: Loss &amp; &lt;steps&gt;</caption>\n"
		"<thead>\n"
		"<tr>\n"
		"<th align=\"right\">Loss</th>\n"
		"</tr>\n"
		"</thead>\n"
		"<tbody>\n"
		"<tr>\n"
		"<td align=\"right\">" LOSS_512 "</td>\n"
		"</tr>\n"
		"</tbody>\n"
		"</table></figure>\n"
		"<h2>As <a class=\"ld-ref\" href=\"#tbl-x\">Table 2</a> shows</h2>\n");
}

static void table_unknown_key_is_an_error_at_its_line_in_the_block(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512: logs/bs512.log\n"
			 "---\n"
			 "Text.\n"
			 "\n"
			 "```{table}\n"
			 "rows: cs512.train\n"
			 "colums:\n"
			 "  Step: step\n"
			 "```\n",
			 "content/r/index.md:9:1: error: unknown key 'colums' in {table} (did you "
			 "mean 'columns'?)\n"
			 "    9 | colums:\n"
			 "      | ^~~~~~\n"
			 "logdown: 1 error; nothing was written\n");
}

static void table_bad_expression_is_an_error_at_its_column(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512: logs/bs512.log\n"
			 "---\n"
			 "```{table}\n"
			 "rows: cs512.train\n"
			 "columns:\n"
			 "  Step: step\n"
			 "  Loss x2: \"loss *\"\n"
			 "  Rate: rate :.2x\n"
			 "  Lost: los\n"
			 "```\n",
			 "content/r/index.md:9:19: error: expected a value, found the end of the "
			 "expression\n"
			 "    9 |   Loss x2: \"loss *\"\n"
			 "      |                   ^\n"
			 "content/r/index.md:10:15: error: unknown format '.2x': use [,][.N]f, e, "
			 "g, % or [,]d, e.g. .2f\n"
			 "   10 |   Rate: rate :.2x\n"
			 "      |               ^~~\n"
			 "content/r/index.md:11:9: error: 'los' is not a column of series "
			 "'train', nor a field or series of cs512, nor a run (did you mean "
			 "'loss'?)\n"
			 "   11 |   Lost: los\n"
			 "      |         ^~~\n"
			 "logdown: 3 errors; nothing was written\n");
}

/* --- @tbl- labels and directives --- */

static void unknown_and_duplicate_labels_are_errors(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512: logs/bs512.log\n"
			 "---\n"
			 "As @tbl-swep shows, and @tbl-nope.\n"
			 "\n"
			 "```{table}\n"
			 "caption: One\n"
			 "label: tbl-sweep\n"
			 "rows: [cs512]\n"
			 "```\n"
			 "\n"
			 "```{table}\n"
			 "caption: Two\n"
			 "label: tbl-sweep\n"
			 "rows: [cs512]\n"
			 "```\n",
			 "content/r/index.md:15:8: error: label 'tbl-sweep' is already Table 1's\n"
			 "   15 | label: tbl-sweep\n"
			 "      |        ^~~~~~~~~\n"
			 "content/r/index.md:5:4: error: label 'tbl-swep' is not defined (did you "
			 "mean 'tbl-sweep'?)\n"
			 "    5 | As @tbl-swep shows, and @tbl-nope.\n"
			 "      |    ^~~~~~~~~\n"
			 "content/r/index.md:5:25: error: label 'tbl-nope' is not defined: give a "
			 "{table} or {chart} 'label: tbl-nope'\n"
			 "    5 | As @tbl-swep shows, and @tbl-nope.\n"
			 "      |                         ^~~~~~~~~\n"
			 "logdown: 3 errors; nothing was written\n");
}

static void unknown_directive_suggests_the_closest(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512: logs/bs512.log\n"
			 "---\n"
			 "```{tabel}\n"
			 "rows: cs512\n"
			 "```\n"
			 "\n"
			 "```{mermaid}\n"
			 "```\n",
			 "content/r/index.md:5:4: error: unknown directive '{tabel}' (did you mean "
			 "'{table}'?)\n"
			 "    5 | ```{tabel}\n"
			 "      |    ^~~~~~~\n"
			 "content/r/index.md:9:4: error: unknown directive '{mermaid}': logdown "
			 "has {table}, {log} and {chart}\n"
			 "    9 | ```{mermaid}\n"
			 "      |    ^~~~~~~~~\n"
			 "logdown: 2 errors; nothing was written\n");
}

/* --- {log} --- */

static void log_excerpt_links_each_line_to_the_log_page(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "```{log}\n"
				      "from: cs\n"
				      "match: 'Step=(500|1000),'\n"
				      "context: 1\n"
				      "```\n"
				      "\n"
				      "```{log}\n"
				      "from: cs\n"
				      "lines: 57-58\n"
				      "label: log-end\n"
				      "```\n"
				      "\n"
				      "```{log}\n"
				      "from: cs\n"
				      "match: 'Step='\n"
				      "max_lines: 2\n"
				      "```\n");
	assert_string_equal(
		body,
		"<pre class=\"ld-log\"><code>"
		LINE(47) "2024-03-30 15:17:26,398 INFO:   "
		"| Train Device=CSX, Step=400, Loss=7.39062, "
		"Rate=2934.21 samples/sec, GlobalRate=2939.02 samples/sec</span>\n"
		HL(48) "2024-03-30 15:17:43,810 INFO:   "
		"| Train Device=CSX, Step=500, Loss=7.80469, "
		"Rate=2937.94 samples/sec, GlobalRate=2939.30 samples/sec</span>\n"
		LINE(49) "2024-03-30 15:18:01,430 INFO:   "
		"| Train Device=CSX, Step=600, Loss=7.53125, "
		"Rate=2918.68 samples/sec, GlobalRate=2933.67 samples/sec</span>\n"
		"<span class=\"ld-gap\">\xE2\x80\xA6</span>\n"
		LINE(52) "2024-03-30 15:18:54,039 INFO:   "
		"| Train Device=CSX, Step=900, Loss=7.35938, "
		"Rate=2923.83 samples/sec, GlobalRate=2928.98 samples/sec</span>\n"
		HL(53) "2024-03-30 15:19:11,785 INFO:   "
		"| Train Device=CSX, Step=1000, Loss=7.12500, "
		"Rate=2900.63 samples/sec, GlobalRate=2924.54 samples/sec</span>\n"
		LINE(54) "2024-03-30 15:19:11,786 INFO:   "
		"Saving checkpoint at step 1000</span>\n"
		"</code></pre>\n"
		"<pre class=\"ld-log\" id=\"log-end\"><code>"
		LINE(57) "2024-03-30 15:20:24,238 INFO:   "
		"Training completed successfully!</span>\n"
		LINE(58) "2024-03-30 15:20:24,238 INFO:   "
		"Processed 512000 sample(s) in 175.070497198 "
		"seconds.</span>\n"
		"</code></pre>\n"
		"<pre class=\"ld-log\"><code>"
		HL(44) "2024-03-30 15:16:33,873 INFO:   "
		"| Train Device=CSX, Step=100, Loss=9.39062, "
		"Rate=2983.97 samples/sec, GlobalRate=2983.97 samples/sec</span>\n"
		HL(45) "2024-03-30 15:16:51,449 INFO:   "
		"| Train Device=CSX, Step=200, Loss=8.70312, "
		"Rate=2941.41 samples/sec, GlobalRate=2948.08 samples/sec</span>\n"
		"<span class=\"ld-gap\">\xE2\x80\xA6 8 more matching lines</span>\n"
		"</code></pre>\n");
}

static void log_errors_are_at_their_keys(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512: logs/bs512.log\n"
			 "---\n"
			 "```{log}\n"
			 "from: cs513\n"
			 "match: 'Step=1000'\n"
			 "```\n"
			 "\n"
			 "```{log}\n"
			 "from: cs512\n"
			 "match: 'Step=(1000'\n"
			 "```\n"
			 "\n"
			 "```{log}\n"
			 "from: cs512\n"
			 "match: 'NoSuchLine'\n"
			 "```\n"
			 "\n"
			 "```{log}\n"
			 "from: cs512\n"
			 "lines: 50-70\n"
			 "```\n"
			 "\n"
			 "```{log}\n"
			 "from: cs512\n"
			 "lines: 40-45\n"
			 "match: Step\n"
			 "contxt: 2\n"
			 "```\n",
			 "content/r/index.md:6:7: error: run 'cs513' is not defined (did you mean "
			 "'cs512'?)\n"
			 "    6 | from: cs513\n"
			 "      |       ^~~~~\n"
			 "content/r/index.md:12:19: error: bad pattern: missing closing "
			 "parenthesis (at offset 10 in the pattern)\n"
			 "   12 | match: 'Step=(1000'\n"
			 "      |                   ^\n"
			 "content/r/index.md:17:8: error: the pattern matches no line of "
			 "content/r/logs/bs512.log (58 lines)\n"
			 "   17 | match: 'NoSuchLine'\n"
			 "      |        ^~~~~~~~~~~~\n"
			 "content/r/index.md:22:8: error: lines 50-70 go past the end of "
			 "content/r/logs/bs512.log (58 lines)\n"
			 "   22 | lines: 50-70\n"
			 "      |        ^~~~~\n"
			 "content/r/index.md:28:1: error: {log} takes match or lines, not both\n"
			 "   28 | match: Step\n"
			 "      | ^~~~~\n"
			 "content/r/index.md:29:1: error: unknown key 'contxt' in {log} (did you "
			 "mean 'context'?)\n"
			 "   29 | contxt: 2\n"
			 "      | ^~~~~~\n"
			 "logdown: 6 errors; nothing was written\n");
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
	assert_contains(page, "<title>bs512.log \xE2\x80\x94 log</title>\n");
	assert_contains(page, "<link rel=\"stylesheet\" href=\"../../static/logdown.css\">\n");
	assert_contains(page, "<a class=\"ld-site-title\" href=\"../index.html\">");
	assert_contains(page, "<a class=\"ld-nav-link\" href=\"bs512.log\">Raw file</a>\n");
	assert_contains(page, "<p class=\"ld-meta\">58 lines \xC2\xB7 6.5 KiB</p>\n");
	assert_contains(page, "<pre class=\"ld-log\"><code><span class=\"ld-line\" id=\"L1\">"
			      "<a class=\"ld-lineno\" href=\"#L1\">1</a> 2024-03-30 "
			      "14:09:43,663 INFO:   Effective batch size is 512.</span>\n"
			      "<span class=\"ld-line\" id=\"L2\">");
	assert_contains(page, "<span class=\"ld-line\" id=\"L3\"><a class=\"ld-lineno\" "
			      "href=\"#L3\">3</a> 2024-03-30 14:09:43,690 INFO:   No checkpoints "
			      "were found in \"model_dir_bert_large_pytorch\".</span>\n");
	assert_contains(page, "<span class=\"ld-line\" id=\"L58\"><a class=\"ld-lineno\" "
			      "href=\"#L58\">58</a> 2024-03-30 15:20:24,238 INFO:   Processed "
			      "512000 sample(s) in 175.070497198 seconds.</span></code></pre>\n");
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

/* Every href="logs/X.html#LN" on the report page, from inline values,
 * table cells and log excerpts alike, names a line the page X shows. */
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
	assert_contains(body, "first <a class=\"ld-value\" href=\"logs/bs512.log.html#L44\" "
			      "title=\"content/r/logs/bs512.log:44\">9.39062</a>, step 500 <a "
			      "class=\"ld-value\" href=\"logs/bs512.log.html#L48\" "
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

/* --- behaviour found wrong: what should happen (these fail until fixed) --- */

/* SPEC 5: never inside code blocks.  An indented code block is one. */
static void braces_stay_literal_in_an_indented_code_block(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "Loss {{ cs.final_loss }}; indented code:\n"
				      "\n"
				      "    {{ cs.final_loss }}\n");
	assert_string_equal(body, "<p>Loss " LOSS_512 "; indented code:</p>\n"
				  "<pre><code>{{ cs.final_loss }}\n"
				  "</code></pre>\n");
}

/* A fence inside a block quote opens a code block all the same. */
static void braces_stay_literal_in_a_fence_inside_a_block_quote(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "> Loss {{ cs.final_loss }}:\n"
				      "> ~~~\n"
				      "> {{ cs.final_loss }}\n"
				      "> ~~~\n");
	assert_string_equal(body, "<blockquote>\n"
				  "<p>Loss " LOSS_512 ":</p>\n"
				  "<pre><code>{{ cs.final_loss }}\n"
				  "</code></pre>\n"
				  "</blockquote>\n");
}

/* \` is a literal backtick in CommonMark, not the start of a code span;
 * and \\ is a literal backslash, so the braces after it open a value. */
static void backslash_escapes_are_read_as_commonmark_reads_them(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "Ticks \\`{{ cs.final_loss }}\\` and a backslash "
				      "\\\\{{ cs.final_loss }}.\n");
	assert_string_equal(body, "<p>Ticks `" LOSS_512 "` and a backslash \\" LOSS_512 ".</p>\n");
}

/* A link cannot hold a link (a browser ends the outer one at the inner
 * <a>): inside link text a value shows as a span, with its place as the
 * tooltip. */
static void values_inside_link_text_do_not_nest_links(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "[loss {{ cs.final_loss }}](https://example.org/)\n");
	assert_string_equal(body, "<p><a href=\"https://example.org/\">loss <span "
				  "class=\"ld-value\" title=\"content/r/logs/bs512.log:53\">"
				  "7.12500</span></a></p>\n");
}

/* SPEC 5: computed values name their inputs in a tooltip.  A parser's
 * derive: (throughput: samples / total_time) computes one. */
static void derived_fields_name_their_inputs_in_a_tooltip(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "Throughput {{ cs.throughput :.2f }}.\n");
	assert_true(str_has_prefix(body, "<p>Throughput <span class=\"ld-value\" title=\""));
	const char *title = body + strlen("<p>Throughput <span class=\"ld-value\" title=\"");
	const char *end = strchr(title, '"');
	char *tip = e2e_keep(xstrndup(title, (size_t)(end - title)));
	/* samples and total_time, both on line 58 */
	assert_contains(tip, "512000");
	assert_contains(tip, "175.070497198");
	assert_contains(tip, "content/r/logs/bs512.log:58");
	assert_true(str_has_suffix(body, "\">2924.54</span>.</p>\n"));
}

/* Placeholders are looked for in the rendered page, in their
 * percent-encoded form too, anywhere: text that happens to read like one
 * (a percent-encoded query in a code span, or in a log line) must stay
 * as written.  SPEC 9: text from result files is always HTML-escaped,
 * never rewritten. */
static void text_that_looks_like_a_placeholder_stays_as_written(void **state)
{
	(void)state;
	project_new("---\n"
		    "runs:\n"
		    "  cs: logs/bs512.log\n"
		    "  web: { file: logs/access.log, parser: keyvalue }\n"
		    "---\n"
		    "Loss {{ cs.final_loss }}; the query was `?q=%1ALD0%1A`.\n"
		    "\n"
		    "```{log}\n"
		    "from: web\n"
		    "lines: 1\n"
		    "```\n");
	e2e_write(project, "content/r/logs/access.log", "GET /x?q=%1ALD0%1A\nstatus: 200\n");
	struct proc r = RUN("build");
	assert_string_equal(r.err, BUILT);
	const char *body = page_body(site_file("_site/r/index.html"));
	assert_string_equal(body, "<p>Loss " LOSS_512 "; the query was "
				  "<code>?q=%1ALD0%1A</code>.</p>\n"
				  "<pre class=\"ld-log\"><code><span class=\"ld-line\"><a "
				  "class=\"ld-lineno\" href=\"logs/access.log.html#L1\">1</a> GET "
				  "/x?q=%1ALD0%1A</span>\n"
				  "</code></pre>\n");
}

/* A directive indented in a list item, or in a block quote: its YAML
 * keys are reported at their columns in the .md file. */
static void directive_errors_in_a_list_or_quote_point_at_their_columns(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512: logs/bs512.log\n"
			 "---\n"
			 "- item\n"
			 "\n"
			 "  ```{table}\n"
			 "  rows: cs512.train\n"
			 "  colums: x\n"
			 "  ```\n"
			 "\n"
			 "> ```{table}\n"
			 "> rows: cs512.train\n"
			 "> sortt: step\n"
			 "> ```\n",
			 "content/r/index.md:9:3: error: unknown key 'colums' in {table} (did you "
			 "mean 'columns'?)\n"
			 "    9 |   colums: x\n"
			 "      |   ^~~~~~\n"
			 "content/r/index.md:14:3: error: unknown key 'sortt' in {table} (did you "
			 "mean 'sort'?)\n"
			 "   14 | > sortt: step\n"
			 "      |   ^~~~~\n"
			 "logdown: 2 errors; nothing was written\n");
}

/* A fence may be longer than three backticks. */
static void unknown_directive_after_a_long_fence_points_at_its_name(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512: logs/bs512.log\n"
			 "---\n"
			 "````{tabel}\n"
			 "rows: cs512\n"
			 "````\n"
			 "\n"
			 "{{ cs512.final_loss }}\n",
			 "content/r/index.md:5:5: error: unknown directive '{tabel}' (did you mean "
			 "'{table}'?)\n"
			 "    5 | ````{tabel}\n"
			 "      |     ^~~~~~~\n"
			 "logdown: 1 error; nothing was written\n");
}

/* A run set is defined: "not defined" misleads.  Where one value is
 * needed the message should say that it is a run set. */
static void a_run_set_in_an_inline_value_is_named_as_a_run_set(void **state)
{
	(void)state;
	project_new("---\n"
		    "runs:\n"
		    "  cs: { glob: \"logs/bs*.log\", parser: cerebras }\n"
		    "---\n"
		    "Loss {{ cs.train[step=100].loss }}.\n");
	struct proc r = RUN("check");
	assert_int_equal(r.status, 1);
	assert_true(str_has_prefix(r.err, "content/r/index.md:5:9: error: "));
	assert_contains(r.err, "run set");
	assert_not_contains(r.err, "is not defined");
}

/* SPEC 8 shows this very diagnostic: cs1024 is as far from cs512 as
 * from cs2048 (three edits), and the name of the same length wins. */
static void did_you_mean_is_the_one_the_spec_shows(void **state)
{
	(void)state;
	check_fails_with("---\n"
			 "runs:\n"
			 "  cs512:  logs/bs512.log\n"
			 "  cs2048: { file: logs/bs2048.log, parser: cerebras }\n"
			 "---\n"
			 "Runs {{ cs512.name }} and {{ cs2048.name }}.\n"
			 "The final loss was {{ cs1024.final_loss }}.\n",
			 "content/r/index.md:7:23: error: run 'cs1024' is not defined (did you "
			 "mean 'cs2048'?)\n"
			 "    7 | The final loss was {{ cs1024.final_loss }}.\n"
			 "      |                       ^~~~~~\n"
			 "logdown: 1 error; nothing was written\n");
}

/* A caption holds values and references like the prose: the value
 * links to its line, the reference names the table that comes later. */
static void captions_hold_values_and_references(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  cs: logs/bs512.log\n"
				      "---\n"
				      "```{table}\n"
				      "caption: Loss {{ cs.final_loss }}, rate {{ cs.mean_rate :.1f }}; "
				      "see @tbl-b\n"
				      "rows: [cs]\n"
				      "columns:\n"
				      "  Steps: final_step\n"
				      "```\n"
				      "\n"
				      "```{table}\n"
				      "label: tbl-b\n"
				      "rows: [cs]\n"
				      "columns:\n"
				      "  Samples: samples\n"
				      "```\n");
	assert_contains(body, "<caption>Table 1: Loss " LOSS_512 ", rate <span class=\"ld-value\" "
			      "title=\"train.rate = 10 values (content/r/logs/bs512.log:44-53)\">"
			      "2930.3</span>; see <a class=\"ld-ref\" href=\"#tbl-b\">Table 2</a>"
			      "</caption>\n");
}

/* A cell read over several log lines (a GoogleTest failure's message,
 * a series' `more`) keeps its newlines in the page, where the table's
 * style shows them as lines; a newline in an attribute is a picture. */
static void a_message_of_several_lines_keeps_them_in_its_cell(void **state)
{
	(void)state;
	project_new("---\n"
		    "runs:\n"
		    "  gt: logs/gtest.log\n"
		    "---\n"
		    "```{table}\n"
		    "rows: gt.failures\n"
		    "columns: {Line: line, Message: message}\n"
		    "```\n");
	e2e_copy(project, "content/r/logs/gtest.log", "tests/fixtures/gtest/equality_failure.log");
	char *body = e2e_keep(e2e_build_body(project, ""));
	assert_contains(body, "<td><a class=\"ld-value\" href=\"logs/gtest.log.html#L6\" "
			      "title=\"content/r/logs/gtest.log:6\">Expected equality of these "
			      "values:\n  model.hidden_size()\n    Which is: 512\n  2048</a></td>");
}

#define TEST(f) cmocka_unit_test_teardown(f, cleanup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(value_in_a_paragraph_links_to_its_log_line),
		TEST(captions_hold_values_and_references),
		TEST(values_in_a_heading_a_list_and_emphasis),
		TEST(values_in_a_table_cell_keep_the_row_whole),
		TEST(a_message_of_several_lines_keeps_them_in_its_cell),
		TEST(braces_stay_literal_in_code_and_after_a_backslash),
		TEST(values_show_as_written_unless_a_spec_formats_them),
		TEST(computed_values_name_their_inputs_in_a_tooltip),
		TEST(missing_values_show_a_dash),
		TEST(unknown_run_is_an_error_with_a_suggestion),
		TEST(unknown_field_is_an_error_with_a_suggestion),
		TEST(a_list_where_one_value_is_needed_names_the_aggregations),
		TEST(bad_format_spec_is_an_error_under_the_spec),
		TEST(unclosed_braces_are_an_error_at_the_braces),
		TEST(table_over_a_run_set_sorts_filters_and_limits),
		TEST(table_over_a_series_filters_its_rows),
		TEST(transposed_table_has_runs_as_columns),
		TEST(captions_are_numbered_and_references_link_to_them),
		TEST(table_unknown_key_is_an_error_at_its_line_in_the_block),
		TEST(table_bad_expression_is_an_error_at_its_column),
		TEST(unknown_and_duplicate_labels_are_errors),
		TEST(unknown_directive_suggests_the_closest),
		TEST(log_excerpt_links_each_line_to_the_log_page),
		TEST(log_errors_are_at_their_keys),
		TEST(raw_logs_are_copied_byte_for_byte),
		TEST(log_pages_anchor_every_line),
		TEST(every_value_link_points_at_a_line_of_its_log_page),
		TEST(two_builds_are_byte_identical),
		/* found wrong */
		TEST(braces_stay_literal_in_an_indented_code_block),
		TEST(braces_stay_literal_in_a_fence_inside_a_block_quote),
		TEST(backslash_escapes_are_read_as_commonmark_reads_them),
		TEST(values_inside_link_text_do_not_nest_links),
		TEST(derived_fields_name_their_inputs_in_a_tooltip),
		TEST(text_that_looks_like_a_placeholder_stays_as_written),
		TEST(directive_errors_in_a_list_or_quote_point_at_their_columns),
		TEST(unknown_directive_after_a_long_fence_points_at_its_name),
		TEST(a_run_set_in_an_inline_value_is_named_as_a_run_set),
		TEST(did_you_mean_is_the_one_the_spec_shows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
