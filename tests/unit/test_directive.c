/* test_directive.c: {table}, {log} and {chart}: the exact HTML their results
 * are written as (render/html.h), and every diagnostic with its place in
 * the .md file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "resolve/directive.h"
#include "expr/expr.h"
#include "base/fsutil.h"
#include "resolve/provenance.h"
#include "render/html.h"
#include "data/run.h"
#include "base/util.h"
#include "data/yamldoc.h"
#include "capture.h"
#include "runfix.h"

#define REPORT "content/hw07.md"

/* Three runs of a batch-size sweep (the run set cs, in path order) and
 * a report whose directive body starts on line 4, after "```{table}" on
 * line 3.  Diagnostics are captured in memory. */
struct fx {
	struct capture cap;
	struct run *cs512, *cs1024, *cs2048;
	const struct run *runs[3];
	const struct run *set[3];
	const struct run *const *set_runs[1];
	size_t set_counts[1];
	const char *set_names[1];
	struct scope sc;
	struct provenance *prov;
	struct directive_ctx c;
	char *src;
	struct value *body;
	struct buf html;
};

static struct run *sweep_run(const char *name, const char *file, const char *bs,
			     const char *samples, const char *time, const char *loss, long line)
{
	struct run *r = run_new(name, file, "cerebras");
	runfix_set(r, "batch_size", bs, 1);
	runfix_set(r, "samples", samples, line);
	runfix_set(r, "total_time", time, line);
	runfix_set(r, "final_loss", loss, line);
	return r;
}

static struct fx *fx_new(void)
{
	struct fx *fx = xcalloc(1, sizeof *fx);
	cap_open(&fx->cap);

	fx->cs512 = sweep_run("cs512", "logs/bs512.log", "512", "512000", "175.070497198",
			      "7.12500", 52);
	runfix_set(fx->cs512, "device", "CSX", 2);
	runfix_train(fx->cs512);
	fx->cs1024 = sweep_run("cs1024", "logs/bs1024.log", "1024", "1024000", "250.25", "6.875",
			       55);
	runfix_set(fx->cs1024, "device", "--", 0);
	fx->cs2048 = sweep_run("cs2048", "logs/bs2048.log", "2048", "2048000", "300.5", "6.5",
			       60);
	runfix_set(fx->cs2048, "device", "CSX", 2);

	/* The set is in path order: bs1024, bs2048, bs512. */
	fx->runs[0] = fx->set[0] = fx->cs1024;
	fx->runs[1] = fx->set[1] = fx->cs2048;
	fx->runs[2] = fx->set[2] = fx->cs512;
	fx->sc.runs = fx->runs;
	fx->sc.nruns = 3;
	fx->set_names[0] = "cs";
	fx->set_runs[0] = fx->set;
	fx->set_counts[0] = 3;
	/* The report's folder is the current one: logs/bs512.log is then
	 * shown as logs/bs512.log.html. */
	char *cwd = path_real(".");
	fx->prov = provenance_new(".", cwd);
	free(cwd);
	fx->c.scope = &fx->sc;
	fx->c.set_names = fx->set_names;
	fx->c.set_runs = fx->set_runs;
	fx->c.set_counts = fx->set_counts;
	fx->c.nsets = 1;
	fx->c.prov = fx->prov;
	fx->c.d = fx->cap.d;
	return fx;
}

static void fx_free(struct fx *fx)
{
	value_free(fx->body);
	buf_free(&fx->html);
	cap_close(&fx->cap);
	free(fx->src);
	provenance_free(fx->prov);
	run_free(fx->cs512);
	run_free(fx->cs1024);
	run_free(fx->cs2048);
	free(fx);
}

/* Writes body into the report as the body of a ```{kind} block and
 * parses it as doc.c does. */
static void fx_body(struct fx *fx, const char *kind, const char *body)
{
	free(fx->src);
	fx->src = xasprintf("# Results\n\n```{%s}\n%s```\n", kind, body);
	diag_add_source(fx->cap.d, REPORT, fx->src, strlen(fx->src));
	value_free(fx->body);
	fx->body = yamldoc_parse(body, strlen(body), REPORT, 3, fx->cap.d);
	assert_non_null(fx->body);
	buf_clear(&fx->html);
}

/* The result's HTML into fx->html, when the directive succeeded. */
static bool fx_html(struct fx *fx, bool ok, struct directive_result *r)
{
	assert_true(r->ok == ok);
	if (ok)
		html_directive(&fx->html, r);
	directive_result_clear(r);
	return ok;
}

static bool fx_table(struct fx *fx, const char *body, int number)
{
	fx_body(fx, "table", body);
	struct directive_result r = {0};
	return fx_html(fx, directive_table(&fx->c, fx->body, number, &r), &r);
}

static bool fx_log(struct fx *fx, const char *body)
{
	fx_body(fx, "log", body);
	struct directive_result r = {0};
	return fx_html(fx, directive_log(&fx->c, fx->body, &r), &r);
}

static const char *fx_diags(struct fx *fx)
{
	return cap_text(&fx->cap);
}

/* The table renders to want without a word. */
static void expect_table(const char *body, int number, const char *want)
{
	struct fx *fx = fx_new();
	bool ok = fx_table(fx, body, number);
	assert_string_equal(fx_diags(fx), "");
	assert_true(ok);
	assert_string_equal(buf_data(&fx->html), want);
	fx_free(fx);
}

/* The table fails with exactly the diagnostics want, and writes nothing. */
static void expect_table_error(const char *body, const char *want)
{
	struct fx *fx = fx_new();
	assert_false(fx_table(fx, body, 1));
	assert_string_equal(fx_diags(fx), want);
	assert_string_equal(buf_data(&fx->html), "");
	fx_free(fx);
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

static void expect_log(const char *body, const char *want)
{
	struct fx *fx = fx_new();
	bool ok = fx_log(fx, body);
	assert_string_equal(fx_diags(fx), "");
	assert_true(ok);
	strip_hl(fx->html.data);
	assert_string_equal(buf_data(&fx->html), want);
	fx_free(fx);
}

static void expect_log_error(const char *body, const char *want)
{
	struct fx *fx = fx_new();
	assert_false(fx_log(fx, body));
	assert_string_equal(fx_diags(fx), want);
	assert_string_equal(buf_data(&fx->html), "");
	fx_free(fx);
}

/* ---- {table}: what it writes ---- */

/* A value's link: its line, and its mark there (the k-th text the
 * report links to on that line). */
#define A512(line, k, text) \
	"<a class=\"ld-value\" href=\"logs/bs512.log.html#L" #line "." #k \
	"\" title=\"logs/bs512.log:" #line "\">" text "</a>"
#define A1024(line, k, text) \
	"<a class=\"ld-value\" href=\"logs/bs1024.log.html#L" #line "." #k \
	"\" title=\"logs/bs1024.log:" #line "\">" text "</a>"
#define A2048(line, k, text) \
	"<a class=\"ld-value\" href=\"logs/bs2048.log.html#L" #line "." #k \
	"\" title=\"logs/bs2048.log:" #line "\">" text "</a>"
/* A missing value: a muted "n/a" whose tooltip says why. */
#define MISSING(why) "<span class=\"ld-missing\" title=\"" why "\">n/a</span>"

static void run_set_table_shows_values_as_written_and_formats_a_spec(void **state)
{
	(void)state;
	expect_table("caption: Batch-size sweep\n"
		     "label: tbl-sweep\n"
		     "rows: cs\n"
		     "columns:\n"
		     "  Batch size: batch_size\n"
		     "  Final loss: final_loss\n"
		     "  Loss: final_loss :.2f\n",
		     2,
		     "<figure class=\"ld-table\" id=\"tbl-sweep\">\n"
		     "<figcaption>Table 2: Batch-size sweep</figcaption>\n"
		     "<table>\n"
		     "<thead>\n<tr>\n"
		     "<th align=\"right\">Batch size</th>\n"
		     "<th align=\"right\">Final loss</th>\n"
		     "<th align=\"right\">Loss</th>\n"
		     "</tr>\n</thead>\n"
		     "<tbody>\n"
		     "<tr>\n"
		     "<td align=\"right\">" A1024(1, 1, "1024") "</td>\n"
		     "<td align=\"right\">" A1024(55, 1, "6.875") "</td>\n"
		     "<td align=\"right\">" A1024(55, 1, "6.88") "</td>\n"
		     "</tr>\n"
		     "<tr>\n"
		     "<td align=\"right\">" A2048(1, 1, "2048") "</td>\n"
		     "<td align=\"right\">" A2048(60, 1, "6.5") "</td>\n"
		     "<td align=\"right\">" A2048(60, 1, "6.50") "</td>\n"
		     "</tr>\n"
		     "<tr>\n"
		     "<td align=\"right\">" A512(1, 1, "512") "</td>\n"
		     "<td align=\"right\">" A512(52, 1, "7.12500") "</td>\n"
		     "<td align=\"right\">" A512(52, 1, "7.12") "</td>\n"
		     "</tr>\n"
		     "</tbody>\n"
		     "</table></figure>\n");
}

static void computed_cell_names_its_inputs_in_a_tooltip(void **state)
{
	(void)state;
	expect_table("rows: [cs512]\n"
		     "columns:\n"
		     "  Run: name\n"
		     "  Rate: samples / total_time :,.1f\n",
		     0,
		     "<figure class=\"ld-table\">\n"
		     "<table>\n"
		     "<thead>\n<tr>\n"
		     "<th>Run</th>\n"
		     "<th align=\"right\">Rate</th>\n"
		     "</tr>\n</thead>\n"
		     "<tbody>\n"
		     "<tr>\n"
		     "<td><span class=\"ld-value\">cs512</span></td>\n"
		     "<td align=\"right\"><span class=\"ld-value\" title=\"samples = 512000 "
		     "(logs/bs512.log:52); total_time = 175.070497198 (logs/bs512.log:52)\">"
		     "2,924.5</span></td>\n"
		     "</tr>\n"
		     "</tbody>\n"
		     "</table></figure>\n");
}

static void series_table_has_a_row_per_step_and_n_a_for_missing_cells(void **state)
{
	(void)state;
	expect_table("rows: cs512.train\n"
		     "columns:\n"
		     "  Step: step\n"
		     "  Loss: loss\n"
		     "  Rate: rate\n"
		     "limit: 2\n",
		     0,
		     "<figure class=\"ld-table\">\n"
		     "<table>\n"
		     "<thead>\n<tr>\n"
		     "<th align=\"right\">Step</th>\n"
		     "<th align=\"right\">Loss</th>\n"
		     "<th align=\"right\">Rate</th>\n"
		     "</tr>\n</thead>\n"
		     "<tbody>\n"
		     "<tr>\n"
		     "<td align=\"right\">" A512(43, 1, "100") "</td>\n"
		     "<td align=\"right\">" A512(43, 2, "9.39062") "</td>\n"
		     "<td align=\"right\">" A512(43, 3, "2983.97") "</td>\n"
		     "</tr>\n"
		     "<tr>\n"
		     "<td align=\"right\">" A512(44, 1, "200") "</td>\n"
		     "<td align=\"right\">" A512(44, 2, "8.50000") "</td>\n"
		     "<td align=\"right\">" MISSING("rate: the log has &#39;--&#39; (logs/bs512.log:44)") "</td>\n"
		     "</tr>\n"
		     "</tbody>\n"
		     "</table></figure>\n");
}

static void series_row_names_reach_the_runs_too(void **state)
{
	(void)state;
	expect_table("rows: cs512.train\n"
		     "columns:\n"
		     "  Loss drop: cs512.final_loss - loss\n"
		     "where: step == 300\n",
		     0,
		     "<figure class=\"ld-table\">\n"
		     "<table>\n"
		     "<thead>\n<tr>\n"
		     "<th align=\"right\">Loss drop</th>\n"
		     "</tr>\n</thead>\n"
		     "<tbody>\n"
		     "<tr>\n"
		     "<td align=\"right\"><span class=\"ld-value\" title=\"cs512.final_loss = "
		     "7.12500 (logs/bs512.log:52); loss = 7.75 (logs/bs512.log:45)\">"
		     "-0.625</span></td>\n"
		     "</tr>\n"
		     "</tbody>\n"
		     "</table></figure>\n");
}

static void rows_take_one_run_or_a_set_inside_a_list(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_table(fx, "rows: cs2048\ncolumns:\n  Run: name\n", 0));
	assert_non_null(strstr(buf_data(&fx->html), "<tbody>\n<tr>\n<td><span class=\"ld-value\">"
							"cs2048</span></td>\n</tr>\n</tbody>"));
	assert_true(fx_table(fx, "rows: [cs512, cs]\ncolumns:\n  Run: name\n", 0));
	const char *html = buf_data(&fx->html);
	const char *a = strstr(html, ">cs512<"), *b = strstr(html, ">cs1024<");
	assert_true(a && b && a < b);
	assert_non_null(strstr(b, ">cs512<"));
	assert_string_equal(fx_diags(fx), "");
	fx_free(fx);
}

static void where_sort_and_limit_pick_and_order_rows(void **state)
{
	(void)state;
	expect_table("rows: cs\n"
		     "columns:\n"
		     "  Batch size: batch_size\n"
		     "where: batch_size >= 1000\n"
		     "sort: -Batch size\n"
		     "limit: 1\n",
		     0,
		     "<figure class=\"ld-table\">\n"
		     "<table>\n"
		     "<thead>\n<tr>\n"
		     "<th align=\"right\">Batch size</th>\n"
		     "</tr>\n</thead>\n"
		     "<tbody>\n"
		     "<tr>\n"
		     "<td align=\"right\">" A2048(1, 1, "2048") "</td>\n"
		     "</tr>\n"
		     "</tbody>\n"
		     "</table></figure>\n");
}

static void sort_by_an_expression_is_numeric_and_puts_missing_last(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	/* Numerically 512 < 1024 < 2048, though "1024" < "2048" < "512" as text. */
	assert_true(fx_table(fx, "rows: cs\ncolumns:\n  Run: name\nsort: batch_size\n", 0));
	const char *html = buf_data(&fx->html);
	const char *a = strstr(html, ">cs512<"), *b = strstr(html, ">cs1024<"),
		   *c = strstr(html, ">cs2048<");
	assert_true(a && b && c && a < b && b < c);
	/* device is missing for cs1024: last, ascending or descending;
	 * the two "CSX" keep their order. */
	assert_true(fx_table(fx, "rows: cs\ncolumns:\n  Run: name\nsort: -device\n", 0));
	html = buf_data(&fx->html);
	a = strstr(html, ">cs512<"), b = strstr(html, ">cs1024<"), c = strstr(html, ">cs2048<");
	assert_true(a && b && c && c < a && a < b);
	assert_string_equal(fx_diags(fx), "");
	fx_free(fx);
}

static void transpose_puts_runs_in_columns_and_metrics_in_rows(void **state)
{
	(void)state;
	expect_table("rows: [cs512, cs2048]\n"
		     "columns:\n"
		     "  Run: name\n"
		     "  Device: device\n"
		     "  Final loss: final_loss\n"
		     "transpose: true\n",
		     0,
		     "<figure class=\"ld-table\">\n"
		     "<table>\n"
		     "<thead>\n<tr>\n"
		     "<th>Run</th>\n"
		     "<th><span class=\"ld-value\">cs512</span></th>\n"
		     "<th><span class=\"ld-value\">cs2048</span></th>\n"
		     "</tr>\n</thead>\n"
		     "<tbody>\n"
		     "<tr>\n<td>Device</td>\n"
		     "<td>" A512(2, 1, "CSX") "</td>\n"
		     "<td>" A2048(2, 1, "CSX") "</td>\n"
		     "</tr>\n"
		     "<tr>\n<td>Final loss</td>\n"
		     "<td align=\"right\">" A512(52, 1, "7.12500") "</td>\n"
		     "<td align=\"right\">" A2048(60, 1, "6.5") "</td>\n"
		     "</tr>\n"
		     "</tbody>\n"
		     "</table></figure>\n");
}

/* A header breaks between words only: a hyphenated word is kept whole
 * (a browser would break it at its hyphen). */
static void header_keeps_hyphenated_words_whole(void **state)
{
	(void)state;
	expect_table("rows: [cs512]\n"
		     "columns:\n"
		     "  Loss at step-1000 (re-run): final_loss\n",
		     0,
		     "<figure class=\"ld-table\">\n"
		     "<table>\n"
		     "<thead>\n<tr>\n"
		     "<th align=\"right\">Loss at <span class=\"ld-word\">step-1000</span> "
		     "<span class=\"ld-word\">(re-run)</span></th>\n"
		     "</tr>\n</thead>\n"
		     "<tbody>\n"
		     "<tr>\n<td align=\"right\">" A512(52, 1, "7.12500") "</td>\n</tr>\n"
		     "</tbody>\n"
		     "</table></figure>\n");
}

static void transposed_header_cells_are_aligned_as_their_columns(void **state)
{
	/* The header row names the runs: each of its cells stands over a
	 * column of numbers, right-aligned as they are; the corner over
	 * the row names stays left. */
	(void)state;
	expect_table("rows: [cs512, cs2048]\n"
		     "columns:\n"
		     "  Batch: batch_size\n"
		     "  Final loss: final_loss\n"
		     "transpose: true\n",
		     0,
		     "<figure class=\"ld-table\">\n"
		     "<table>\n"
		     "<thead>\n<tr>\n"
		     "<th>Batch</th>\n"
		     "<th align=\"right\">" A512(1, 1, "512") "</th>\n"
		     "<th align=\"right\">" A2048(1, 1, "2048") "</th>\n"
		     "</tr>\n</thead>\n"
		     "<tbody>\n"
		     "<tr>\n<td>Final loss</td>\n"
		     "<td align=\"right\">" A512(52, 1, "7.12500") "</td>\n"
		     "<td align=\"right\">" A2048(60, 1, "6.5") "</td>\n"
		     "</tr>\n"
		     "</tbody>\n"
		     "</table></figure>\n");
}

static void missing_cell_is_n_a_and_keeps_the_column_numeric(void **state)
{
	(void)state;
	expect_table("rows: [cs1024]\n"
		     "columns:\n"
		     "  Device: device\n"
		     "  Half: batch_size / 2\n",
		     0,
		     "<figure class=\"ld-table\">\n"
		     "<table>\n"
		     "<thead>\n<tr>\n"
		     "<th>Device</th>\n"
		     "<th align=\"right\">Half</th>\n"
		     "</tr>\n</thead>\n"
		     "<tbody>\n"
		     "<tr>\n"
		     "<td>" MISSING("device is not in logs/bs1024.log") "</td>\n"
		     "<td align=\"right\"><span class=\"ld-value\" title=\"batch_size = 1024 "
		     "(logs/bs1024.log:1)\">512</span></td>\n"
		     "</tr>\n"
		     "</tbody>\n"
		     "</table></figure>\n");
}

static void without_columns_a_series_shows_all_its_columns(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_table(fx, "rows: cs512.train\nlimit: 1\n", 0));
	assert_string_equal(buf_data(&fx->html),
			    "<figure class=\"ld-table\">\n"
			    "<table>\n"
			    "<thead>\n<tr>\n"
			    "<th align=\"right\">step</th>\n"
			    "<th align=\"right\">loss</th>\n"
			    "<th align=\"right\">rate</th>\n"
			    "</tr>\n</thead>\n"
			    "<tbody>\n"
			    "<tr>\n"
			    "<td align=\"right\">" A512(43, 1, "100") "</td>\n"
			    "<td align=\"right\">" A512(43, 2, "9.39062") "</td>\n"
			    "<td align=\"right\">" A512(43, 3, "2983.97") "</td>\n"
			    "</tr>\n"
			    "</tbody>\n"
			    "</table></figure>\n");
	/* Runs: the name, then every field in the order first seen. */
	assert_true(fx_table(fx, "rows: [cs1024, cs512]\nlimit: 1\n", 0));
	assert_non_null(strstr(buf_data(&fx->html),
			       "<th>name</th>\n<th align=\"right\">batch_size</th>\n"
			       "<th align=\"right\">samples</th>\n"
			       "<th align=\"right\">total_time</th>\n"
			       "<th align=\"right\">final_loss</th>\n<th>device</th>\n</tr>"));
	assert_string_equal(fx_diags(fx), "");
	fx_free(fx);
}

static void text_from_a_log_is_escaped(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	runfix_set(fx->cs512, "note", "<b>&\x1b[1mbold\x1b[0m\x1a\xff", 7);
	assert_true(fx_table(fx, "caption: a < b & \"c\"\nrows: [cs512]\ncolumns:\n  Note: note\n",
			     1));
	assert_string_equal(buf_data(&fx->html),
			    "<figure class=\"ld-table\">\n"
			    "<figcaption>Table 1: a &lt; b &amp; &quot;c&quot;</figcaption>\n"
			    "<table>\n"
			    "<thead>\n<tr>\n<th>Note</th>\n</tr>\n</thead>\n"
			    "<tbody>\n<tr>\n"
			    "<td>" A512(7, 1, "&lt;b&gt;&amp;bold\xE2\x90\x9A\xEF\xBF\xBD") "</td>\n"
			    "</tr>\n</tbody>\n"
			    "</table></figure>\n");
	fx_free(fx);
}

static void where_that_passes_no_row_warns_and_leaves_no_body(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	assert_true(fx_table(fx, "rows: cs512\ncolumns:\n  B: batch_size\nwhere: batch_size > 1e9\n",
			     0));
	assert_string_equal(fx_diags(fx),
			    REPORT ":7:8: warning: no row passes where: the table is empty\n"
				   "    7 | where: batch_size > 1e9\n"
				   "      |        ^~~~~~~~~~~~~~~~\n");
	assert_string_equal(buf_data(&fx->html),
			    "<figure class=\"ld-table\">\n"
			    "<table>\n"
			    "<thead>\n<tr>\n<th>B</th>\n</tr>\n</thead>\n"
			    "</table></figure>\n");
	fx_free(fx);
}

/* ---- {table}: diagnostics ---- */

static void unknown_key_suggests_the_closest(void **state)
{
	(void)state;
	expect_table_error("rows: cs\n"
			   "colums:\n"
			   "  Loss: final_loss\n",
			   REPORT ":5:1: error: unknown key 'colums' in {table} (did you mean "
				  "'columns'?)\n"
				  "    5 | colums:\n"
				  "      | ^~~~~~\n");
}

static void unknown_key_far_from_all_lists_them(void **state)
{
	(void)state;
	expect_table_error("rows: cs\n"
			   "zzzzzzzzz: 1\n",
			   REPORT ":5:1: error: unknown key 'zzzzzzzzz' in {table} (known keys: "
				  "caption, rows, columns, where, sort, limit, transpose, label)\n"
				  "    5 | zzzzzzzzz: 1\n"
				  "      | ^~~~~~~~~\n");
}

static void bad_limit_is_an_error_at_its_value(void **state)
{
	(void)state;
	expect_table_error("rows: cs\n"
			   "limit: 0\n",
			   REPORT ":5:8: error: limit must be a positive integer, not '0'\n"
				  "    5 | limit: 0\n"
				  "      |        ^\n");
	expect_table_error("rows: cs\n"
			   "limit: [1]\n",
			   REPORT ":5:8: error: limit must be a positive integer, not a list\n"
				  "    5 | limit: [1]\n"
				  "      |        ^~~\n");
}

static void unknown_run_in_rows_suggests_the_closest(void **state)
{
	(void)state;
	expect_table_error("rows: [cs512, cs1025]\n",
			   REPORT ":4:15: error: run 'cs1025' is not defined (did you mean "
				  "'cs1024'?)\n"
				  "    4 | rows: [cs512, cs1025]\n"
				  "      |               ^~~~~~\n");
	expect_table_error("rows: cx\n",
			   REPORT ":4:7: error: 'cx' is not a run set or a run (did you mean "
				  "'cs'?)\n"
				  "    4 | rows: cx\n"
				  "      |       ^~\n");
}

static void rows_of_the_wrong_kind_or_missing(void **state)
{
	(void)state;
	expect_table_error("rows: {a: 1}\n",
			   REPORT ":4:7: error: rows must be a run set, a list of runs or a series "
				  "(cs512.train), not a map\n"
				  "    4 | rows: {a: 1}\n"
				  "      |       ^~~~~~\n");
	expect_table_error("caption: x\n",
			   REPORT ":4:1: error: {table} needs rows: a run set, a list of runs or a "
				  "series (cs512.train)\n"
				  "    4 | caption: x\n"
				  "      | ^\n");
	expect_table_error("rows: cs512.final_loss\n",
			   REPORT ":4:7: error: cs512.final_loss is a number, not a series\n"
				  "    4 | rows: cs512.final_loss\n"
				  "      |       ^~~~~~~~~~~~~~~~\n");
}

static void bad_spec_is_an_error_at_the_spec(void **state)
{
	(void)state;
	expect_table_error("rows: cs\n"
			   "columns:\n"
			   "  Loss: final_loss :.2x\n",
			   REPORT ":6:21: error: unknown format '.2x': use [,][.N]f, e, g, % or "
				  "[,]d, e.g. .2f\n"
				  "    6 |   Loss: final_loss :.2x\n"
				  "      |                     ^~~\n");
}

static void expression_error_points_into_the_column(void **state)
{
	(void)state;
	expect_table_error("rows: [cs512]\n"
			   "columns:\n"
			   "  Loss: mean(train.los) :.2f\n",
			   REPORT ":6:20: error: series 'train' has no column 'los' "
				  "(did you mean 'loss'?)\n"
				  "    6 |   Loss: mean(train.los) :.2f\n"
				  "      |                    ^~~\n");
}

static void expression_error_is_reported_once_not_per_row(void **state)
{
	(void)state;
	expect_table_error("rows: cs\n"
			   "columns:\n"
			   "  Loss: mean(train.loss)\n",
			   REPORT ":6:14: error: 'train' is not a field or series of cs1024, nor "
				  "a run\n"
				  "    6 |   Loss: mean(train.loss)\n"
				  "      |              ^~~~~\n");
}

static void error_inside_a_quoted_column_is_placed_past_the_quote(void **state)
{
	(void)state;
	expect_table_error("rows: [cs512]\n"
			   "columns:\n"
			   "  Loss: \"mean(train.los)\"\n",
			   REPORT ":6:21: error: series 'train' has no column 'los' "
				  "(did you mean 'loss'?)\n"
				  "    6 |   Loss: \"mean(train.los)\"\n"
				  "      |                     ^~~\n");
}

static void parse_error_in_a_column_is_at_its_column(void **state)
{
	(void)state;
	expect_table_error("rows: cs\n"
			   "columns:\n"
			   "  Loss: mean(loss\n",
			   REPORT ":6:18: error: expected ')' after the arguments of mean, found "
				  "the end of the expression\n"
				  "    6 |   Loss: mean(loss\n"
				  "      |                  ^\n");
}

static void every_problem_is_reported(void **state)
{
	(void)state;
	expect_table_error("rows: cs\n"
			   "limit: -3\n"
			   "transpose: yes\n"
			   "sortt: x\n",
			   REPORT ":5:8: error: limit must be a positive integer, not '-3'\n"
				  "    5 | limit: -3\n"
				  "      |        ^~\n" REPORT
				  ":6:12: error: transpose must be true or false, not 'yes'\n"
				  "    6 | transpose: yes\n"
				  "      |            ^~~\n" REPORT
				  ":7:1: error: unknown key 'sortt' in {table} (did you mean 'sort'?)\n"
				  "    7 | sortt: x\n"
				  "      | ^~~~~\n");
}

static void where_must_give_a_boolean(void **state)
{
	(void)state;
	expect_table_error("rows: cs\n"
			   "where: batch_size\n",
			   REPORT ":5:8: error: where must be true or false for each row, but for "
				  "cs1024 it is a number: compare it, as in batch_size >= 512\n"
				  "    5 | where: batch_size\n"
				  "      |        ^~~~~~~~~~\n");
}

static void sort_naming_nothing_is_an_error(void **state)
{
	(void)state;
	expect_table_error("rows: cs\n"
			   "columns:\n"
			   "  Batch size: batch_size\n"
			   "sort: '-'\n",
			   REPORT ":7:7: error: sort names nothing: give a column header or an "
				  "expression ('-' first for descending)\n"
				  "    7 | sort: '-'\n"
				  "      |       ^~~\n");
	expect_table_error("rows: cs\n"
			   "columns:\n"
			   "  Batch size: batch_size\n"
			   "sort: -Batch sise\n",
			   REPORT ":7:14: error: unexpected 'sise' after the expression\n"
				  "    7 | sort: -Batch sise\n"
				  "      |              ^~~~\n" REPORT
				  ":7:7: note: sort takes a column header (Batch size) or an "
				  "expression\n"
				  "    7 | sort: -Batch sise\n"
				  "      |       ^~~~~~~~~~~\n");
}

/* ---- {log} ---- */

/* logs/bs512.log: 60 lines, "Step=N00" on lines 43 to 47. */
static int logs_setup(void **state)
{
	char *dir = xstrdup("/tmp/test_directive.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	char *cwd = getcwd(NULL, 0);
	struct buf log = BUF_INIT;
	for (int i = 1; i <= 60; i++) {
		if (i >= 43 && i <= 47)
			buf_printf(&log, "Step=%d00, Loss=%d\n", i - 42, 50 - i);
		else if (i == 50)
			buf_puts(&log, "progress 10%\rprogress 100%\r\n");
		else
			buf_printf(&log, "line %d <info> & more\n", i);
	}
	char *logs = path_join(dir, "logs");
	char *file = path_join(logs, "bs512.log");
	bool ok = mkdir_p(logs) && file_write(file, log.data, log.len) && chdir(dir) == 0;
	free(file);
	free(logs);
	buf_free(&log);
	char **st = xcalloc(2, sizeof *st);
	st[0] = dir;
	st[1] = cwd;
	*state = st;
	return ok ? 0 : -1;
}

static int logs_teardown(void **state)
{
	char **st = *state;
	int rc = chdir(st[1]) == 0 && remove_tree(st[0]) ? 0 : -1;
	free(st[0]);
	free(st[1]);
	free(st);
	return rc;
}

#define LINE(n, text) \
	"<span class=\"ld-line\"><a class=\"ld-lineno\" href=\"logs/bs512.log.html#L" #n \
	"\">" #n "</a>" text "</span>\n"
#define HIT(n, text) \
	"<span class=\"ld-line ld-hl\"><a class=\"ld-lineno\" href=\"logs/bs512.log.html#L" #n \
	"\">" #n "</a>" text "</span>\n"
#define GAP "<span class=\"ld-line ld-gap\"><span class=\"ld-lineno\">\xE2\x80\xA6</span></span>\n"

static void log_match_shows_matches_with_context_and_gaps(void **state)
{
	(void)state;
	expect_log("from: cs512\nmatch: 'Step=[15]00'\ncontext: 1\n",
		   "<pre class=\"ld-log\"><code>"
		   LINE(42, "line 42 &lt;info&gt; &amp; more")
		   HIT(43, "Step=100, Loss=7")
		   LINE(44, "Step=200, Loss=6")
		   GAP
		   LINE(46, "Step=400, Loss=4")
		   HIT(47, "Step=500, Loss=3")
		   LINE(48, "line 48 &lt;info&gt; &amp; more")
		   "</code></pre>\n");
}

static void log_context_of_neighbouring_matches_merges(void **state)
{
	(void)state;
	expect_log("from: cs512\nmatch: Step=[23]00\ncontext: 1\nlabel: log-steps\n",
		   "<pre class=\"ld-log\" id=\"log-steps\"><code>"
		   LINE(43, "Step=100, Loss=7")
		   HIT(44, "Step=200, Loss=6")
		   HIT(45, "Step=300, Loss=5")
		   LINE(46, "Step=400, Loss=4")
		   "</code></pre>\n");
}

static void log_match_is_cut_at_max_lines(void **state)
{
	(void)state;
	expect_log("from: cs512\nmatch: Step=\nmax_lines: 2\n",
		   "<pre class=\"ld-log\"><code>"
		   HIT(43, "Step=100, Loss=7")
		   HIT(44, "Step=200, Loss=6")
		   "<span class=\"ld-line ld-gap\"><span class=\"ld-lineno\">\xE2\x80\xA6</span>3 more "
		   "matching lines</span>\n"
		   "</code></pre>\n");
}

static void log_lines_shows_a_range(void **state)
{
	(void)state;
	expect_log("from: cs512\nlines: 49-51\n",
		   "<pre class=\"ld-log\"><code>"
		   LINE(49, "line 49 &lt;info&gt; &amp; more")
		   LINE(50, "progress 100%")
		   LINE(51, "line 51 &lt;info&gt; &amp; more")
		   "</code></pre>\n");
	expect_log("from: cs512\nlines: 60\n",
		   "<pre class=\"ld-log\"><code>"
		   LINE(60, "line 60 &lt;info&gt; &amp; more")
		   "</code></pre>\n");
}

static void log_lines_with_context_highlight_the_range(void **state)
{
	(void)state;
	expect_log("from: cs512\nlines: 45\ncontext: 1\n",
		   "<pre class=\"ld-log\"><code>"
		   LINE(44, "Step=200, Loss=6")
		   HIT(45, "Step=300, Loss=5")
		   LINE(46, "Step=400, Loss=4")
		   "</code></pre>\n");
}

static void log_lines_are_cut_at_an_explicit_max_lines(void **state)
{
	(void)state;
	expect_log("from: cs512\nlines: 1-10\nmax_lines: 1\n",
		   "<pre class=\"ld-log\"><code>"
		   LINE(1, "line 1 &lt;info&gt; &amp; more")
		   "<span class=\"ld-line ld-gap\"><span class=\"ld-lineno\">\xE2\x80\xA6</span>9 more "
		   "lines</span>\n"
		   "</code></pre>\n");
}

static void log_reports_every_problem(void **state)
{
	(void)state;
	expect_log_error("from: cs512\nmatch: '[a'\ncontext: -1\nmax_line: 3\n",
			 REPORT ":5:11: error: bad pattern: missing terminating ] for character "
				"class (at offset 2 in the pattern)\n"
				"    5 | match: '[a'\n"
				"      |           ^\n" REPORT
				":6:10: error: context must be a whole number, 0 or more, not '-1'\n"
				"    6 | context: -1\n"
				"      |          ^~\n" REPORT
				":7:1: error: unknown key 'max_line' in {log} (did you mean "
				"'max_lines'?)\n"
				"    7 | max_line: 3\n"
				"      | ^~~~~~~~\n");
}

static void log_needs_match_or_lines_but_not_both(void **state)
{
	(void)state;
	expect_log_error("from: cs512\nmatch: Step\nlines: 1-2\n",
			 REPORT ":6:1: error: {log} takes match or lines, not both\n"
				"    6 | lines: 1-2\n"
				"      | ^~~~~\n");
	expect_log_error("from: cs512\ncontext: 2\n",
			 REPORT ":4:1: error: {log} needs match: (a pattern) or lines: (a range "
				"such as 40-55)\n"
				"    4 | from: cs512\n"
				"      | ^\n");
}

static void log_bad_pattern_is_an_error_at_its_offset(void **state)
{
	(void)state;
	expect_log_error("from: cs512\nmatch: 'Step=(\\d+'\n",
			 REPORT ":5:18: error: bad pattern: missing closing parenthesis (at "
				"offset 9 in the pattern)\n"
				"    5 | match: 'Step=(\\d+'\n"
				"      |                  ^\n");
}

static void log_lines_out_of_range_name_the_line_count(void **state)
{
	(void)state;
	expect_log_error("from: cs512\nlines: 58-70\n",
			 REPORT ":5:8: error: lines 58-70 go past the end of logs/bs512.log (60 "
				"lines)\n"
				"    5 | lines: 58-70\n"
				"      |        ^~~~~\n");
	expect_log_error("from: cs512\nlines: 61\n",
			 REPORT ":5:8: error: line 61 is past the end of logs/bs512.log (60 "
				"lines)\n"
				"    5 | lines: 61\n"
				"      |        ^~\n");
	expect_log_error("from: cs512\nlines: 9-5\n",
			 REPORT ":5:8: error: lines must be a line number or a range of lines A-B "
				"with 1 <= A <= B (40-55), not '9-5'\n"
				"    5 | lines: 9-5\n"
				"      |        ^~~\n");
}

static void log_from_must_name_one_run(void **state)
{
	(void)state;
	expect_log_error("from: cs51\nlines: 1\n",
			 REPORT ":4:7: error: run 'cs51' is not defined (did you mean 'cs512'?)\n"
				"    4 | from: cs51\n"
				"      |       ^~~~\n");
	expect_log_error("from: cs\nlines: 1\n",
			 REPORT ":4:7: error: 'cs' is a run set: {log} quotes one run, such as "
				"'cs1024'\n"
				"    4 | from: cs\n"
				"      |       ^~\n");
}

static void log_pattern_that_matches_nothing_is_an_error(void **state)
{
	(void)state;
	expect_log_error("from: cs512\nmatch: Epoch\n",
			 REPORT ":5:8: error: the pattern matches no line of logs/bs512.log (60 "
				"lines)\n"
				"    5 | match: Epoch\n"
				"      |        ^~~~~\n");
}

static void log_unreadable_file_is_an_error_at_from(void **state)
{
	(void)state;
	expect_log_error("from: cs2048\nlines: 1\n",
			 REPORT ":4:7: error: cannot read logs/bs2048.log: No such file or "
				"directory\n"
				"    4 | from: cs2048\n"
				"      |       ^~~~~~\n");
}

/* {chart}: what the directive fills in for the drawing */

/* Resolves body as a {chart}; the chart as drawn into *out (caller
 * clears it with directive_result_clear()). */
static bool fx_chart(struct fx *fx, const char *body, struct directive_result *out)
{
	fx_body(fx, "chart", body);
	memset(out, 0, sizeof *out);
	return directive_chart(&fx->c, fx->body, 1, "figure-1", out);
}

/* One line needs no legend: the axis and the caption say what it is;
 * asked with legend: true it has one; two lines have one unasked. */
static void chart_of_one_series_has_no_legend_unless_asked(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	struct directive_result r;
	assert_true(fx_chart(fx, "type: line\nseries: cs512\nx: train.step\ny: train.loss\n", &r));
	assert_int_equal(r.chart.nseries, 1);
	assert_string_equal(r.chart.series[0].label, "");
	directive_result_clear(&r);

	assert_true(fx_chart(fx, "type: line\nseries: cs512\nx: train.step\ny: train.loss\n"
				 "legend: true\n", &r));
	assert_string_equal(r.chart.series[0].label, "cs512");
	directive_result_clear(&r);

	assert_true(fx_chart(fx, "type: scatter\nseries: [cs512, cs1024]\nx: batch_size\n"
				 "y: samples\n", &r));
	assert_string_equal(r.chart.series[0].label, "cs512");
	assert_string_equal(r.chart.series[1].label, "cs1024");
	directive_result_clear(&r);

	assert_true(fx_chart(fx, "type: scatter\nseries: [cs512, cs1024]\nx: batch_size\n"
				 "y: samples\nlegend: false\n", &r));
	assert_string_equal(r.chart.series[0].label, "");
	assert_string_equal(r.chart.series[1].label, "");
	directive_result_clear(&r);

	/* one bar per run: no legend; asked, y's name */
	assert_true(fx_chart(fx, "type: bar\nseries: cs\ny: samples\n", &r));
	assert_string_equal(r.chart.series[0].label, "");
	directive_result_clear(&r);
	assert_true(fx_chart(fx, "type: bar\nseries: cs\ny: samples\nlegend: true\n", &r));
	assert_string_equal(r.chart.series[0].label, "samples");
	directive_result_clear(&r);
	assert_string_equal(cap_text(&fx->cap), "");
	fx_free(fx);
}

/* Unsaid, an axis is titled by its expression's name; said, by what
 * is said, even empty; an expression that is no name gives none. */
static void chart_axes_are_named_by_their_expressions(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	struct directive_result r;
	assert_true(fx_chart(fx, "type: line\nseries: cs512\nx: train.step\ny: train.loss\n", &r));
	assert_string_equal(r.chart.x_label, "step");
	assert_string_equal(r.chart.y_label, "loss");
	directive_result_clear(&r);

	assert_true(fx_chart(fx, "type: line\nseries: cs512\nx: train.step\ny: train.loss\n"
				 "x_label: Step\ny_label: \"\"\n", &r));
	assert_string_equal(r.chart.x_label, "Step");
	assert_string_equal(r.chart.y_label, "");
	directive_result_clear(&r);

	assert_true(fx_chart(fx, "type: bar\nseries: cs\nx: batch_size\ny: samples / total_time\n",
			     &r));
	assert_string_equal(r.chart.x_label, "batch_size");
	assert_null(r.chart.y_label);
	directive_result_clear(&r);

	/* a map of bars names them in the legend, not on the axis */
	assert_true(fx_chart(fx, "type: bar\nseries: cs\ny:\n  Samples: samples\n  Time: total_time\n",
			     &r));
	assert_null(r.chart.x_label);
	assert_null(r.chart.y_label);
	directive_result_clear(&r);
	assert_string_equal(cap_text(&fx->cap), "");
	fx_free(fx);
}

/* A chart wider than a phone is shown through a <picture>: its narrow
 * drawing below 42em, its dark one on a dark screen. */
static void chart_html_offers_narrow_and_dark_drawings(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	struct directive_result r;
	assert_true(fx_chart(fx, "type: bar\nseries: cs\ny: samples\n", &r));
	assert_int_equal(r.narrow_width, 360);
	assert_int_equal(r.narrow_height, 354);
	html_directive(&fx->html, &r);
	directive_result_clear(&r);
	assert_string_equal(
		buf_data(&fx->html),
		"<figure class=\"ld-figure\"><a href=\"figures/figure-1.svg\"><picture>"
		"<source media=\"screen and (prefers-color-scheme: dark) and (max-width: 42em)\" "
		"srcset=\"figures/figure-1.narrow.dark.svg\" width=\"360\" height=\"354\">"
		"<source media=\"(max-width: 42em)\" srcset=\"figures/figure-1.narrow.svg\" "
		"width=\"360\" height=\"354\">"
		"<source media=\"screen and (prefers-color-scheme: dark)\" "
		"srcset=\"figures/figure-1.dark.svg\">"
		"<img src=\"figures/figure-1.svg\" width=\"720\" height=\"405\" alt=\"chart\">"
		"</picture></a><figcaption>Figure 1</figcaption></figure>\n");

	/* a chart already as narrow as a phone has no narrow drawing */
	buf_clear(&fx->html);
	assert_true(fx_chart(fx, "type: bar\nseries: cs\ny: samples\nwidth: 400\nheight: 300\n", &r));
	assert_int_equal(r.narrow_width, 0);
	html_directive(&fx->html, &r);
	directive_result_clear(&r);
	assert_null(strstr(buf_data(&fx->html), "narrow"));
	assert_non_null(strstr(buf_data(&fx->html), "figure-1.dark.svg"));
	fx_free(fx);
}

static void chart_legend_of_the_wrong_kind_is_an_error(void **state)
{
	(void)state;
	struct fx *fx = fx_new();
	struct directive_result r;
	assert_false(fx_chart(fx, "type: line\nseries: cs512\nx: train.step\ny: train.loss\n"
				  "legend: [a, b]\n", &r));
	directive_result_clear(&r);
	assert_string_equal(cap_text(&fx->cap),
			    REPORT ":8:9: error: legend must be text, true or false, not a list\n"
				   "    8 | legend: [a, b]\n"
				   "      |         ^~~~~~\n");
	fx_free(fx);
}

int main(void)
{
	const struct CMUnitTest table[] = {
		cmocka_unit_test(run_set_table_shows_values_as_written_and_formats_a_spec),
		cmocka_unit_test(computed_cell_names_its_inputs_in_a_tooltip),
		cmocka_unit_test(series_table_has_a_row_per_step_and_n_a_for_missing_cells),
		cmocka_unit_test(series_row_names_reach_the_runs_too),
		cmocka_unit_test(rows_take_one_run_or_a_set_inside_a_list),
		cmocka_unit_test(where_sort_and_limit_pick_and_order_rows),
		cmocka_unit_test(sort_by_an_expression_is_numeric_and_puts_missing_last),
		cmocka_unit_test(transpose_puts_runs_in_columns_and_metrics_in_rows),
		cmocka_unit_test(header_keeps_hyphenated_words_whole),
		cmocka_unit_test(transposed_header_cells_are_aligned_as_their_columns),
		cmocka_unit_test(missing_cell_is_n_a_and_keeps_the_column_numeric),
		cmocka_unit_test(without_columns_a_series_shows_all_its_columns),
		cmocka_unit_test(text_from_a_log_is_escaped),
		cmocka_unit_test(where_that_passes_no_row_warns_and_leaves_no_body),
		cmocka_unit_test(unknown_key_suggests_the_closest),
		cmocka_unit_test(unknown_key_far_from_all_lists_them),
		cmocka_unit_test(bad_limit_is_an_error_at_its_value),
		cmocka_unit_test(unknown_run_in_rows_suggests_the_closest),
		cmocka_unit_test(rows_of_the_wrong_kind_or_missing),
		cmocka_unit_test(bad_spec_is_an_error_at_the_spec),
		cmocka_unit_test(expression_error_points_into_the_column),
		cmocka_unit_test(expression_error_is_reported_once_not_per_row),
		cmocka_unit_test(error_inside_a_quoted_column_is_placed_past_the_quote),
		cmocka_unit_test(parse_error_in_a_column_is_at_its_column),
		cmocka_unit_test(every_problem_is_reported),
		cmocka_unit_test(where_must_give_a_boolean),
		cmocka_unit_test(sort_naming_nothing_is_an_error),
	};
	const struct CMUnitTest log[] = {
		cmocka_unit_test(log_match_shows_matches_with_context_and_gaps),
		cmocka_unit_test(log_context_of_neighbouring_matches_merges),
		cmocka_unit_test(log_match_is_cut_at_max_lines),
		cmocka_unit_test(log_lines_shows_a_range),
		cmocka_unit_test(log_lines_with_context_highlight_the_range),
		cmocka_unit_test(log_lines_are_cut_at_an_explicit_max_lines),
		cmocka_unit_test(log_reports_every_problem),
		cmocka_unit_test(log_needs_match_or_lines_but_not_both),
		cmocka_unit_test(log_bad_pattern_is_an_error_at_its_offset),
		cmocka_unit_test(log_lines_out_of_range_name_the_line_count),
		cmocka_unit_test(log_from_must_name_one_run),
		cmocka_unit_test(log_pattern_that_matches_nothing_is_an_error),
		cmocka_unit_test(log_unreadable_file_is_an_error_at_from),
	};
	const struct CMUnitTest chart[] = {
		cmocka_unit_test(chart_of_one_series_has_no_legend_unless_asked),
		cmocka_unit_test(chart_axes_are_named_by_their_expressions),
		cmocka_unit_test(chart_html_offers_narrow_and_dark_drawings),
		cmocka_unit_test(chart_legend_of_the_wrong_kind_is_an_error),
	};
	int failed = cmocka_run_group_tests_name("table", table, NULL, NULL);
	failed += cmocka_run_group_tests_name("chart", chart, NULL, NULL);
	failed += cmocka_run_group_tests_name("log", log, logs_setup, logs_teardown);
	return failed;
}
