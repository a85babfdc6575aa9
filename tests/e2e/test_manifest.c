/* test_manifest.c: OUT/manifest.json and `logdown diff`.
 *
 * The manifest of a project with a Slurm job's stderr (a real line from
 * tests/corpus/slurm) and a Cerebras log is compared whole; it is the
 * same bytes built clean, from the cache and without it.  `logdown
 * diff` is compared whole, as text, Markdown and JSON, for a log whose
 * line changed (a value, a table cell, a chart series), for values
 * added and removed, for prose edited above the values (no change), and
 * for each bad input; `check --against` prints the same summary (with
 * text, github and json diagnostics, and after a broken claim).  An
 * input's change is said in every format (a parser's YAML, hosts, job
 * ids); `diff --against OUT [DIR]` builds the project and compares;
 * cells shown as 2,925 or 93.4% get a relative change; PBS's exec_host
 * gives each host once. */
#include "e2e.h"

#include <xxhash.h>

#include "base/version.h"

static const char loss_log[] =
	"2024-03-30 15:18:54,039 INFO:   | Train Device=CSX, Step=900, Loss=7.35938, "
	"Rate=2923.83 samples/sec, GlobalRate=2928.98 samples/sec\n"
	"2024-03-30 15:19:11,785 INFO:   | Train Device=CSX, Step=1000, Loss=7.12500, "
	"Rate=2900.63 samples/sec, GlobalRate=2924.54 samples/sec\n"
	"2024-03-30 15:20:24,238 INFO:   Processed 512000 sample(s) in 175.070497198 seconds.\n";

#define FRONT                                                                                      \
	"---\n"                                                                                    \
	"title: R\n"                                                                               \
	"runs:\n"                                                                                  \
	"  job: { file: logs/job.err, parser: slurm }\n"                                           \
	"  a: logs/a.log\n"                                                                        \
	"---\n"

#define TABLE                                                                                      \
	"```{table}\n"                                                                             \
	"label: tbl-loss\n"                                                                        \
	"caption: Loss by step.\n"                                                                 \
	"rows: a.train\n"                                                                          \
	"columns:\n"                                                                               \
	"  Step: step\n"                                                                           \
	"  Loss: loss\n"                                                                           \
	"```\n"

#define CHART                                                                                      \
	"```{chart}\n"                                                                             \
	"type: line\n"                                                                             \
	"label: fig-loss\n"                                                                        \
	"caption: Loss.\n"                                                                         \
	"series: a\n"                                                                              \
	"x: train.step\n"                                                                          \
	"y: train.loss\n"                                                                          \
	"```\n"

static const char report[] = FRONT
	"Job {{ job.job_id }} ran on {{ job.node }}.\n"
	"\n"
	"Loss {{ a.final_loss :.2f }}, exactly {{ a.final_loss }}; {{ a.samples }} samples.\n"
	"\n" TABLE "\n" CHART;

static char *project(void)
{
	return e2e_project(E2E_FILES(
		E2E_COPY("content/r/logs/job.err", "tests/corpus/slurm/scancel-dcc-2025.err"),
		E2E_TEXT("content/r/logs/a.log", loss_log),
		E2E_TEXT("content/r/index.md", report)));
}

/* "xxh3-128:" and the hex of a file's XXH3-128, computed here. */
static char *file_hash(const char *dir, const char *rel)
{
	char *text = e2e_read(dir, rel);
	assert_non_null(text);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, XXH3_128bits(text, strlen(text)));
	struct buf b = BUF_INIT;
	buf_puts(&b, "xxh3-128:");
	for (size_t i = 0; i < sizeof c.digest; i++)
		buf_printf(&b, "%02x", c.digest[i]);
	free(text);
	return buf_detach(&b);
}

static void replace(const char *dir, const char *rel, const char *from, const char *to)
{
	char *text = e2e_read(dir, rel);
	assert_non_null(text);
	char *at = strstr(text, from);
	assert_non_null(at);
	char *out = xasprintf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	e2e_write(dir, rel, out);
	free(out);
	free(text);
}

static void manifest_lists_runs_values_tables_and_charts(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build");
	char *m = e2e_read(dir, "_site/manifest.json");
	char *job = file_hash(dir, "content/r/logs/job.err");
	char *a = file_hash(dir, "content/r/logs/a.log");
	char *version = e2e_sh(NULL, "'%s' --version | cut -d' ' -f2 | tr -d '\\n'", e2e_binary());
	char *want = xasprintf(
		"{\n"
		"  \"logdown\": \"%s\",\n"
		"  \"reports\": [\n"
		"    {\n"
		"      \"slug\": \"r\",\n"
		"      \"source\": \"content/r/index.md\",\n"
		"      \"runs\": [\n"
		"        {\n"
		"          \"name\": \"job\",\n"
		"          \"file\": \"content/r/logs/job.err\",\n"
		"          \"size\": 88,\n"
		"          \"hash\": \"%s\",\n"
		"          \"parser\": \"slurm\",\n"
		"          \"parser_hash\": \"%s\",\n"
		"          \"job_ids\": [\"39819691\"],\n"
		"          \"hosts\": [\"dcc-core-46\"]\n"
		"        },\n"
		"        {\n"
		"          \"name\": \"a\",\n"
		"          \"file\": \"content/r/logs/a.log\",\n"
		"          \"size\": 352,\n"
		"          \"hash\": \"%s\",\n"
		"          \"parser\": \"cerebras\",\n"
		"          \"parser_hash\": \"%s\",\n"
		"          \"job_ids\": [],\n"
		"          \"hosts\": []\n"
		"        }\n"
		"      ],\n"
		"      \"values\": [\n"
		"        {\n"
		"          \"at\": \"content/r/index.md:7:5\",\n"
		"          \"source\": \"{{ job.job_id }}\",\n"
		"          \"text\": \"39819691\",\n"
		"          \"number\": 39819691,\n"
		"          \"from\": \"content/r/logs/job.err:1\"\n"
		"        },\n"
		"        {\n"
		"          \"at\": \"content/r/index.md:7:29\",\n"
		"          \"source\": \"{{ job.node }}\",\n"
		"          \"text\": \"dcc-core-46\",\n"
		"          \"number\": null,\n"
		"          \"from\": \"content/r/logs/job.err:1\"\n"
		"        },\n"
		"        {\n"
		"          \"at\": \"content/r/index.md:9:6\",\n"
		"          \"source\": \"{{ a.final_loss :.2f }}\",\n"
		"          \"text\": \"7.12\",\n"
		"          \"number\": 7.125,\n"
		"          \"from\": \"content/r/logs/a.log:2\"\n"
		"        },\n"
		"        {\n"
		"          \"at\": \"content/r/index.md:9:39\",\n"
		"          \"source\": \"{{ a.final_loss }}\",\n"
		"          \"text\": \"7.12500\",\n"
		"          \"number\": 7.125,\n"
		"          \"from\": \"content/r/logs/a.log:2\"\n"
		"        },\n"
		"        {\n"
		"          \"at\": \"content/r/index.md:9:59\",\n"
		"          \"source\": \"{{ a.samples }}\",\n"
		"          \"text\": \"512000\",\n"
		"          \"number\": 512000,\n"
		"          \"from\": \"content/r/logs/a.log:3\"\n"
		"        }\n"
		"      ],\n"
		"      \"tables\": [\n"
		"        {\n"
		"          \"at\": \"content/r/index.md:11:4\",\n"
		"          \"label\": \"tbl-loss\",\n"
		"          \"number\": 1,\n"
		"          \"cells\": [\n"
		"            [\"Step\", \"Loss\"],\n"
		"            [\"900\", \"7.35938\"],\n"
		"            [\"1000\", \"7.12500\"]\n"
		"          ]\n"
		"        }\n"
		"      ],\n"
		"      \"charts\": [\n"
		"        {\n"
		"          \"at\": \"content/r/index.md:20:4\",\n"
		"          \"label\": \"fig-loss\",\n"
		"          \"number\": 1,\n"
		"          \"series\": [\n"
		"            {\n"
		"              \"name\": \"\",\n"
		"              \"points\": 2,\n"
		"              \"hash\": \"%s\"\n"
		"            }\n"
		"          ]\n"
		"        }\n"
		"      ]\n"
		"    }\n"
		"  ]\n"
		"}\n",
		version, job, "PARSER_SLURM", a, "PARSER_CEREBRAS", "POINTS");
	/* the parsers' and the points' hashes are the binary's own: taken
	 * from the manifest, then the rest compared whole */
	const char *keys[] = {"\"parser_hash\": \"", "\"parser_hash\": \"", "\"hash\": \"xxh3-128:"};
	const char *marks[] = {"PARSER_SLURM", "PARSER_CEREBRAS", "POINTS"};
	const char *from = m;
	for (int i = 0; i < 3; i++) {
		const char *k = strstr(from, keys[i]);
		if (i == 2) /* the chart's: past the runs' file hashes */
			k = strstr(strstr(m, "\"charts\""), keys[i]);
		assert_non_null(k);
		const char *v = k + strlen("\"parser_hash\": \"");
		if (i == 2)
			v = k + strlen("\"hash\": \"");
		const char *end = strchr(v, '"');
		char *h = xstrndup(v, (size_t)(end - v));
		assert_true(str_has_prefix(h, "xxh3-128:") && strlen(h) == 41);
		char *mark = strstr(want, marks[i]);
		char *next = xasprintf("%.*s%s%s", (int)(mark - want), want, h, mark + strlen(marks[i]));
		free(want);
		want = next;
		free(h);
		from = end;
	}
	assert_string_equal(m, want);
	free(want);
	free(version);
	free(job);
	free(a);
	free(m);
	e2e_drop(&dir);
}

/* Built clean, again from the cache (nothing rendered: the entries come
 * from the previous manifest), and without the cache: the same bytes. */
static void manifest_is_the_same_clean_cached_and_uncached(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build");
	char *first = e2e_read(dir, "_site/manifest.json");
	struct proc r = e2e_run(dir, "build -v");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "1 report: 0 rendered, 1 from cache");
	proc_free(&r);
	char *cached = e2e_read(dir, "_site/manifest.json");
	e2e_ok(dir, "build --no-cache -o full");
	char *uncached = e2e_read(dir, "full/manifest.json");
	assert_string_equal(cached, first);
	assert_string_equal(uncached, first);
	/* a previous manifest that is gone: the report is rendered again */
	char *path = path_join(dir, "_site/manifest.json");
	assert_int_equal(unlink(path), 0);
	r = e2e_run(dir, "build -v");
	assert_contains(r.err, "1 report: 1 rendered, 0 from cache");
	proc_free(&r);
	char *again = e2e_read(dir, "_site/manifest.json");
	assert_string_equal(again, first);
	free(again);
	free(path);
	free(first);
	free(cached);
	free(uncached);
	e2e_drop(&dir);
}

/* The log's last step line changed (7.12500 -> 7.31250) and a line of
 * prose was added above the values: every value and cell showing the
 * loss changed, at its new line; the chart's series changed. */
static char *changed_project(void)
{
	char *dir = project();
	e2e_ok(dir, "build -o old");
	replace(dir, "content/r/logs/a.log", "Loss=7.12500", "Loss=7.31250");
	replace(dir, "content/r/index.md", "Job {{", "A new first line.\n\nJob {{");
	e2e_ok(dir, "build -o new");
	return dir;
}

static void diff_lists_what_changed_as_text(void **state)
{
	(void)state;
	char *dir = changed_project();
	struct proc r = e2e_run(dir, "diff old new");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, "");
	assert_string_equal(
		r.out,
		"r (content/r/index.md)\n"
		"  content/r/logs/a.log changed: hash 1bbe4ba25c14 \u2192 ace5f5ed9c23\n"
		"  content/r/index.md:11:6: {{ a.final_loss :.2f }}: 7.12 \u2192 7.31 (+2.6%)\n"
		"      from content/r/logs/a.log:2 \u2192 content/r/logs/a.log:2\n"
		"  content/r/index.md:11:39: {{ a.final_loss }}: 7.12500 \u2192 7.31250 (+2.6%)\n"
		"      from content/r/logs/a.log:2 \u2192 content/r/logs/a.log:2\n"
		"  content/r/index.md:13:4: Table 1 (tbl-loss), row 1000, column Loss: 7.12500 "
		"\u2192 7.31250 (+2.6%)\n"
		"  content/r/index.md:22:4: Figure 1 (fig-loss), series 1: 2 points (bc795a1ef2bc) "
		"\u2192 2 points (01585675ec44)\n"
		"logdown: 5 changes in 1 report\n");
	proc_free(&r);
	e2e_drop(&dir);
}

/* On a terminal (script(1) gives diff one) the text is coloured: the
 * place bold, the old value red, the new green; NO_COLOR turns it off,
 * and a pipe never gets colour (the test above). */
static void diff_is_coloured_on_a_terminal_unless_no_color(void **state)
{
	(void)state;
	int st;
	char *have = e2e_sh(&st, "command -v script");
	free(have);
	if (st != 0) {
		print_message("[  SKIP    ] script(1) is missing: no terminal to test on\n");
		skip();
	}
	char *dir = changed_project();
	char *out = e2e_sh(&st, "cd '%s' && env -u NO_COLOR script -qec '%s diff old new' /dev/null",
			   dir, e2e_binary());
	assert_contains(out, "\033[1mcontent/r/index.md:11:6\033[0m: {{ a.final_loss :.2f }}: "
			     "\033[31m7.12\033[0m \u2192 \033[32m7.31\033[0m (+2.6%)");
	free(out);
	out = e2e_sh(&st, "cd '%s' && NO_COLOR=1 script -qec '%s diff old new' /dev/null", dir,
		     e2e_binary());
	assert_contains(out, "content/r/index.md:11:6: {{ a.final_loss :.2f }}: 7.12 \u2192 7.31 "
			     "(+2.6%)");
	assert_null(strchr(out, '\033'));
	free(out);
	e2e_drop(&dir);
}

static void diff_lists_what_changed_as_markdown(void **state)
{
	(void)state;
	char *dir = changed_project();
	struct proc r = e2e_run(dir, "diff old new --format markdown");
	assert_int_equal(r.status, 1);
	assert_string_equal(
		r.out,
		"## logdown diff: 5 changes in 1 report\n"
		"\n"
		"### `r` (`content/r/index.md`)\n"
		"\n"
		"| Where | What | Old | New | Change | Source |\n"
		"|---|---|---|---|---|---|\n"
		"| `content/r/logs/a.log` | input | size 352, hash 1bbe4ba25c14, parser cerebras | "
		"size 352, hash ace5f5ed9c23, parser cerebras | hash 1bbe4ba25c14 \u2192 ace5f5ed9c23 "
		"|  |\n"
		"| `content/r/index.md:11:6` | `{{ a.final_loss :.2f }}` | 7.12 | 7.31 | +2.6% | "
		"`content/r/logs/a.log:2` \u2192 `content/r/logs/a.log:2` |\n"
		"| `content/r/index.md:11:39` | `{{ a.final_loss }}` | 7.12500 | 7.31250 | +2.6% | "
		"`content/r/logs/a.log:2` \u2192 `content/r/logs/a.log:2` |\n"
		"| `content/r/index.md:13:4` | Table 1 (tbl-loss), row 1000, column Loss | 7.12500 | "
		"7.31250 | +2.6% |  |\n"
		"| `content/r/index.md:22:4` | Figure 1 (fig-loss), series 1 | 2 points (bc795a1ef2bc) "
		"| 2 points (01585675ec44) |  |  |\n");
	proc_free(&r);
	e2e_drop(&dir);
}

static void diff_lists_what_changed_as_json(void **state)
{
	(void)state;
	char *dir = changed_project();
	struct proc r = e2e_run(dir, "diff --format=json old new");
	assert_int_equal(r.status, 1);
	assert_string_equal(
		r.out,
		"{\n"
		"  \"changes\": 5,\n"
		"  \"reports\": [\n"
		"    {\"slug\": \"r\", \"source\": \"content/r/index.md\", \"report\": \"changed\", "
		"\"changes\": [\n"
		"      {\"kind\": \"input\", \"change\": \"changed\", \"at\": null, \"what\": "
		"\"content/r/logs/a.log\", \"old\": \"size 352, hash 1bbe4ba25c14, parser cerebras\", "
		"\"new\": \"size 352, hash ace5f5ed9c23, parser cerebras\", \"relative\": null, "
		"\"old_from\": null, \"new_from\": null, \"detail\": \"hash 1bbe4ba25c14 \u2192 "
		"ace5f5ed9c23\"},\n"
		"      {\"kind\": \"value\", \"change\": \"changed\", \"at\": "
		"\"content/r/index.md:11:6\", \"what\": \"{{ a.final_loss :.2f }}\", \"old\": "
		"\"7.12\", \"new\": \"7.31\", \"relative\": \"+2.6%\", \"old_from\": "
		"\"content/r/logs/a.log:2\", \"new_from\": \"content/r/logs/a.log:2\", \"detail\": null},\n"
		"      {\"kind\": \"value\", \"change\": \"changed\", \"at\": "
		"\"content/r/index.md:11:39\", \"what\": \"{{ a.final_loss }}\", \"old\": "
		"\"7.12500\", \"new\": \"7.31250\", \"relative\": \"+2.6%\", \"old_from\": "
		"\"content/r/logs/a.log:2\", \"new_from\": \"content/r/logs/a.log:2\", \"detail\": null},\n"
		"      {\"kind\": \"cell\", \"change\": \"changed\", \"at\": "
		"\"content/r/index.md:13:4\", \"what\": \"Table 1 (tbl-loss), row 1000, column "
		"Loss\", \"old\": \"7.12500\", \"new\": \"7.31250\", \"relative\": \"+2.6%\", "
		"\"old_from\": null, \"new_from\": null, \"detail\": null},\n"
		"      {\"kind\": \"series\", \"change\": \"changed\", \"at\": "
		"\"content/r/index.md:22:4\", \"what\": \"Figure 1 (fig-loss), series 1\", "
		"\"old\": \"2 points (bc795a1ef2bc)\", \"new\": \"2 points (01585675ec44)\", "
		"\"relative\": null, \"old_from\": null, \"new_from\": null, \"detail\": null}\n"
		"    ]}\n"
		"  ]\n"
		"}\n");
	proc_free(&r);
	e2e_drop(&dir);
}

/* Prose edited above the values, a blank line added: the values are
 * the same ones, at other lines: no change, exit 0. */
static void editing_prose_changes_no_value(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build -o old");
	replace(dir, "content/r/index.md", "Job {{", "Some words first.\n\nThe job {{");
	replace(dir, "content/r/index.md", "Loss {{", "\nLoss {{");
	e2e_ok(dir, "build -o new");
	struct proc r = e2e_run(dir, "diff old new");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "logdown: no change\n");
	assert_string_equal(r.err, "");
	proc_free(&r);
	r = e2e_run(dir, "diff old new --format markdown");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "## logdown diff: no change\n");
	proc_free(&r);
	e2e_drop(&dir);
}

/* A value taken out, another put in, a table row gone: listed as
 * removed (at its old place) and added. */
static void diff_lists_values_added_and_removed(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build -o old");
	replace(dir, "content/r/index.md", "{{ a.samples }} samples", "{{ a.final_step }} steps");
	replace(dir, "content/r/index.md", "rows: a.train\n", "rows: a.train\nwhere: step > 900\n");
	e2e_ok(dir, "build -o new");
	struct proc r = e2e_run(dir, "diff old new");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out,
			    "r (content/r/index.md)\n"
			    "  content/r/index.md:9:59: added {{ a.final_step }}: 1000\n"
			    "      from content/r/logs/a.log:2\n"
			    "  content/r/index.md:9:59: removed {{ a.samples }}: 512000\n"
			    "      from content/r/logs/a.log:3\n"
			    "  content/r/index.md:11:4: removed Table 1 (tbl-loss), row 900: 900 | 7.35938\n"
			    "logdown: 3 changes in 1 report\n");
	proc_free(&r);
	e2e_drop(&dir);
}

static void diff_reports_each_bad_input(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build -o old");
	e2e_write(dir, "plain/index.html", "<p>not a logdown site</p>\n");
	e2e_write(dir, "broken/manifest.json", "{\n  \"logdown\": \"0.1.0\",\n  \"reports\": [\n    {,\n");
	e2e_write(dir, "other/manifest.json", "{\"logdown\": \"0.1.0\"}\n");
	struct proc r = e2e_run(dir, "diff plain old");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "plain: error: no manifest.json: plain was built by a logdown "
				   "without manifests or is not a site: rebuild it\n");
	proc_free(&r);
	r = e2e_run(dir, "diff old broken");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "broken/manifest.json:4:6: error: malformed JSON: expected a "
				   "key in double quotes, found ','\n"
				   "    4 |     {,\n"
				   "      |      ^\n");
	proc_free(&r);
	r = e2e_run(dir, "diff other nowhere");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "other/manifest.json:1:1: error: not a logdown manifest: it has "
				   "no \"reports\" list\n"
				   "    1 | {\"logdown\": \"0.1.0\"}\n"
				   "      | ^\n"
				   "nowhere: error: not a built site: No such file or directory\n");
	proc_free(&r);
	r = e2e_run(dir, "diff old");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: name two built sites: logdown diff OLD NEW\n\nusage: "
				   "logdown diff OLD NEW");
	proc_free(&r);
	r = e2e_run(dir, "diff old old --format html");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: --format takes text, markdown or json, not 'html'\n");
	proc_free(&r);
	/* another version: a note, and the diff all the same */
	e2e_ok(dir, "build -o new");
	replace(dir, "new/manifest.json", "\"logdown\": \"", "\"logdown\": \"9.9-");
	r = e2e_run(dir, "diff old new");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "logdown: no change\n");
	char *note = xasprintf("logdown: note: old was built by logdown %s and new by logdown "
			       "9.9-%s: what a version changed shows as changes\n",
			       LOGDOWN_VERSION, LOGDOWN_VERSION);
	assert_string_equal(r.err, note);
	free(note);
	proc_free(&r);
	e2e_drop(&dir);
}

static void check_against_says_what_changed(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build");
	replace(dir, "content/r/logs/job.err", "dcc-core-46", "dcc-core-47");
	struct proc r = e2e_run(dir, "check --against _site");
	assert_int_equal(r.status, 1);
	assert_string_equal(
		r.err,
		"_site/manifest.json: error: differs from what a build writes (the output is stale: "
		"rebuild and commit it)\n"
		"_site/r/index.html: error: differs from what a build writes (the output is stale: "
		"rebuild and commit it)\n"
		"_site/r/logs/job.err: error: differs from what a build writes (the output is stale: "
		"rebuild and commit it)\n"
		"_site/r/logs/job.err.html: error: differs from what a build writes (the output is "
		"stale: rebuild and commit it)\n"
		"_site/search-index.js: error: differs from what a build writes (the output is "
		"stale: rebuild and commit it)\n"
		"what changed since _site was built:\n"
		"r (content/r/index.md)\n"
		"  content/r/logs/job.err changed: hash ef07b2897bd2 \u2192 7d260a28a595, hosts "
		"dcc-core-46 \u2192 dcc-core-47\n"
		"  content/r/index.md:7:29: {{ job.node }}: dcc-core-46 \u2192 dcc-core-47\n"
		"      from content/r/logs/job.err:1 \u2192 content/r/logs/job.err:1\n"
		"logdown: 2 changes in 1 report\n"
		"logdown: 5 errors; nothing was written\n");
	proc_free(&r);
	e2e_drop(&dir);
}

/* Only a project parser's YAML changed: the input's size and hash are
 * the same, and each format says the parser's definition changed (the
 * Markdown and JSON too, not two equal cells). */
static void diff_says_what_of_an_input_changed_in_every_format(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(
		E2E_TEXT("parsers/mine.yaml", "name: mine\nfields:\n  loss: 'loss ([\\d.]+)'\n"),
		E2E_TEXT("content/r/logs/m.txt", "loss 7.5\n"),
		E2E_TEXT("content/r/index.md", "---\ntitle: R\nruns:\n  m: { file: logs/m.txt, "
					       "parser: mine }\n---\nLoss {{ m.loss }}.\n")));
	e2e_ok(dir, "build -o old");
	char *old_hash = e2e_sh(NULL, "grep -o '\"parser_hash\": \"xxh3-128:[0-9a-f]\\{12\\}' "
				"'%s/old/manifest.json' | tail -c 13 | tr -d '\\n'", dir);
	e2e_write(dir, "parsers/mine.yaml", "name: mine\nfields:\n  loss: 'loss ([0-9.]+)'\n");
	e2e_ok(dir, "build -o new");
	char *new_hash = e2e_sh(NULL, "grep -o '\"parser_hash\": \"xxh3-128:[0-9a-f]\\{12\\}' "
				"'%s/new/manifest.json' | tail -c 13 | tr -d '\\n'", dir);
	assert_int_equal(strlen(old_hash), 12);
	assert_string_not_equal(old_hash, new_hash);
	char *detail = xasprintf("parser definition %s \u2192 %s", old_hash, new_hash);

	struct proc r = e2e_run(dir, "diff old new");
	assert_int_equal(r.status, 1);
	char *want = xasprintf("r (content/r/index.md)\n"
			       "  content/r/logs/m.txt changed: %s\n"
			       "logdown: 1 change in 1 report\n",
			       detail);
	assert_string_equal(r.out, want);
	free(want);
	proc_free(&r);

	r = e2e_run(dir, "diff old new --format markdown");
	assert_int_equal(r.status, 1);
	/* the file's size and hash are the same on both sides */
	char *h = e2e_sh(NULL, "sha=$(grep -o '\"hash\": \"xxh3-128:[0-9a-f]\\{12\\}' "
			 "'%s/new/manifest.json' | tail -c 13); printf %%s \"$sha\"", dir);
	want = xasprintf("| `content/r/logs/m.txt` | input | size 9, hash %s, parser mine | size 9, "
			 "hash %s, parser mine | %s |  |\n",
			 h, h, detail);
	assert_contains(r.out, want);
	free(want);
	free(h);
	proc_free(&r);

	r = e2e_run(dir, "diff old new --format json");
	assert_int_equal(r.status, 1);
	want = xasprintf("\"relative\": null, \"old_from\": null, \"new_from\": null, \"detail\": "
			 "\"%s\"}\n",
			 detail);
	assert_contains(r.out, want);
	assert_contains(r.out, "{\"kind\": \"input\", \"change\": \"changed\", \"at\": null, "
			       "\"what\": \"content/r/logs/m.txt\", ");
	free(want);
	proc_free(&r);
	free(detail);
	free(old_hash);
	free(new_hash);
	e2e_drop(&dir);
}

/* Hosts and job ids that changed are said in Markdown and JSON too. */
static void diff_says_which_hosts_and_job_ids_changed_in_markdown_and_json(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build -o old");
	replace(dir, "content/r/logs/job.err", "dcc-core-46", "dcc-core-47");
	e2e_ok(dir, "build -o new");
	struct proc r = e2e_run(dir, "diff old new --format markdown");
	assert_int_equal(r.status, 1);
	assert_contains(r.out, " | hash ef07b2897bd2 \u2192 7d260a28a595, hosts dcc-core-46 \u2192 "
			       "dcc-core-47 |  |\n");
	proc_free(&r);
	r = e2e_run(dir, "diff old new --format json");
	assert_int_equal(r.status, 1);
	assert_contains(r.out, "\"detail\": \"hash ef07b2897bd2 \u2192 7d260a28a595, hosts "
			       "dcc-core-46 \u2192 dcc-core-47\"}");
	proc_free(&r);
	replace(dir, "content/r/logs/job.err", "JOB 39819691", "JOB 39819692");
	e2e_ok(dir, "build -o new2");
	r = e2e_run(dir, "diff new new2 --format markdown");
	assert_int_equal(r.status, 1);
	assert_contains(r.out, ", job ids 39819691 \u2192 39819692 |  |\n");
	proc_free(&r);
	r = e2e_run(dir, "diff new new2 --format json");
	assert_int_equal(r.status, 1);
	assert_contains(r.out, ", job ids 39819691 \u2192 39819692\"}");
	proc_free(&r);
	e2e_drop(&dir);
}

/* `diff --against OLD [DIR]` builds the project as `check --against`
 * does and compares OLD with it; the built folder is not left behind. */
static void diff_against_compares_a_committed_site_with_the_project(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build");
	struct proc r = e2e_run(dir, "diff --against _site");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "logdown: no change\n");
	assert_string_equal(r.err, "");
	proc_free(&r);
	replace(dir, "content/r/logs/a.log", "Loss=7.12500", "Loss=7.31250");
	r = e2e_run(dir, "diff . --against=_site --format markdown");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, "");
	assert_contains(r.out, "## logdown diff: 5 changes in 1 report\n");
	assert_contains(r.out, "| `content/r/index.md:9:6` | `{{ a.final_loss :.2f }}` | 7.12 | "
			       "7.31 | +2.6% | ");
	proc_free(&r);
	/* from another folder, naming the project */
	char *cmd = xasprintf("diff --against %s/_site %s", dir, dir);
	r = e2e_run("/", cmd);
	free(cmd);
	assert_int_equal(r.status, 1);
	assert_contains(r.out, "  content/r/index.md:9:6: {{ a.final_loss :.2f }}: 7.12 \u2192 "
			       "7.31 (+2.6%)\n");
	assert_contains(r.out, "logdown: 5 changes in 1 report\n");
	proc_free(&r);
	/* the committed site is untouched */
	char *m = e2e_read(dir, "_site/manifest.json");
	assert_contains(m, "\"text\": \"7.12\"");
	free(m);
	/* a project with an error: its diagnostic, the diff all the same,
	 * exit 2 */
	replace(dir, "content/r/index.md", "{{ a.final_loss :.2f }}", "{{ a.final_loss :.2f | expect < 7.2 }}");
	r = e2e_run(dir, "diff --against _site");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "content/r/index.md:9:29: error: a.final_loss is 7.31 (unrounded "
			       "7.3125), the text claims < 7.2\n");
	assert_contains(r.out, "logdown: 6 changes in 1 report\n");
	proc_free(&r);
	/* bad usage and a folder that is no site */
	r = e2e_run(dir, "diff --against _site . other");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: with --against, name one project folder, not 'other' "
			       "too\n");
	proc_free(&r);
	r = e2e_run(dir, "diff --against");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: --against needs the built site's folder\n");
	proc_free(&r);
	r = e2e_run(dir, "diff --against content");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "content: error: no manifest.json: content was built by a "
				   "logdown without manifests or is not a site: rebuild it\n");
	proc_free(&r);
	r = e2e_run(dir, "diff --help");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "       logdown diff --against OLD [DIR] [--format "
			       "text|markdown|json]\n");
	proc_free(&r);
	e2e_drop(&dir);
}

static const char against_changes[] =
	"what changed since _site was built:\n"
	"r (content/r/index.md)\n"
	"  content/r/logs/a.log changed: hash 1bbe4ba25c14 \u2192 ace5f5ed9c23\n"
	"  content/r/index.md:9:6: {{ a.final_loss :.2f }}: 7.12 \u2192 7.31 (+2.6%)\n"
	"      from content/r/logs/a.log:2 \u2192 content/r/logs/a.log:2\n";

/* The CI workflow checks with --diagnostics=github: the summary follows
 * the annotations; with json it is one JSON object on stdout and
 * stderr holds only JSON lines. */
static void check_against_says_what_changed_with_github_and_json(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build");
	replace(dir, "content/r/logs/a.log", "Loss=7.12500", "Loss=7.31250");
	struct proc r = e2e_run(dir, "check --against _site --diagnostics=github");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "::error file=_site/search-index.js::differs from what a build "
			       "writes (the output is stale: rebuild and commit it)\n");
	assert_contains(r.err, against_changes);
	assert_contains(r.err, "logdown: 5 changes in 1 report\n");
	assert_null(strstr(r.err, "\033["));
	/* and each change at its place, for the pull request */
	assert_contains(r.err, "::notice file=content/r/logs/a.log,title=logdown%3A changed since the "
			       "committed site::content/r/logs/a.log changed: hash 1bbe4ba25c14 "
			       "\u2192 ace5f5ed9c23\n");
	assert_contains(r.err, "::notice file=content/r/index.md,line=9,col=6,title=logdown%3A "
			       "changed since the committed site::{{ a.final_loss :.2f }}: 7.12 "
			       "\u2192 7.31 (+2.6%25)%0Afrom content/r/logs/a.log:2 \u2192 "
			       "content/r/logs/a.log:2\n");
	assert_contains(r.err, "::notice file=content/r/index.md,line=11,col=4,title=logdown%3A "
			       "changed since the committed site::Table 1 (tbl-loss), row 1000, column "
			       "Loss: 7.12500 \u2192 7.31250 (+2.6%25)\n");
	proc_free(&r);
	r = e2e_run(dir, "check --against _site --diagnostics=json");
	assert_int_equal(r.status, 1);
	assert_contains(r.out, "{\n  \"changes\": 5,\n  \"reports\": [\n");
	assert_contains(r.out, "{\"kind\": \"value\", \"change\": \"changed\", \"at\": "
			       "\"content/r/index.md:9:6\", \"what\": \"{{ a.final_loss :.2f }}\", "
			       "\"old\": \"7.12\", \"new\": \"7.31\", \"relative\": \"+2.6%\"");
	/* every line of stderr is a JSON object */
	for (const char *p = r.err; *p; p = strchr(p, '\n') + 1) {
		assert_true(strncmp(p, "{\"severity\":", 12) == 0);
		assert_non_null(strchr(p, '\n'));
	}
	proc_free(&r);
	e2e_drop(&dir);
}

/* A broken claim fails the check before the files are compared: the
 * summary is printed all the same, after the claim's error. */
static void check_against_says_what_changed_after_a_broken_claim(void **state)
{
	(void)state;
	char *dir = project();
	replace(dir, "content/r/index.md", "{{ a.final_loss :.2f }}",
		"{{ a.final_loss :.2f | expect < 7.2 }}");
	e2e_ok(dir, "build");
	replace(dir, "content/r/logs/a.log", "Loss=7.12500", "Loss=7.31250");
	struct proc r = e2e_run(dir, "check --against _site");
	assert_int_equal(r.status, 1);
	assert_string_equal(
		r.err,
		"content/r/index.md:9:29: error: a.final_loss is 7.31 (unrounded 7.3125), the text "
		"claims < 7.2\n"
		"    9 | Loss {{ a.final_loss :.2f | expect < 7.2 }}, exactly {{ a.final_loss }}; "
		"{{ a.samples }} samples.\n"
		"      |                             ^~~~~~~~~~~~\n"
		"what changed since _site was built:\n"
		"r (content/r/index.md)\n"
		"  content/r/logs/a.log changed: hash 1bbe4ba25c14 \u2192 ace5f5ed9c23\n"
		"  content/r/index.md:9:6: {{ a.final_loss :.2f | expect < 7.2 }}: 7.12 \u2192 7.31 "
		"(+2.6%)\n"
		"      from content/r/logs/a.log:2 \u2192 content/r/logs/a.log:2\n"
		"  content/r/index.md:9:54: {{ a.final_loss }}: 7.12500 \u2192 7.31250 (+2.6%)\n"
		"      from content/r/logs/a.log:2 \u2192 content/r/logs/a.log:2\n"
		"  content/r/index.md:11:4: Table 1 (tbl-loss), row 1000, column Loss: 7.12500 "
		"\u2192 7.31250 (+2.6%)\n"
		"  content/r/index.md:20:4: Figure 1 (fig-loss), series 1: 2 points (bc795a1ef2bc) "
		"\u2192 2 points (01585675ec44)\n"
		"logdown: 5 changes in 1 report\n"
		"logdown: 1 error; nothing was written\n");
	proc_free(&r);
	e2e_drop(&dir);
}

/* Cells shown with thousands separators or as a percentage are numbers
 * to the diff: their relative change is given. */
static void diff_gives_the_relative_change_of_grouped_and_percent_cells(void **state)
{
	(void)state;
	char *dir = project();
	replace(dir, "content/r/index.md", "  Loss: loss\n",
		"  Loss: loss :.1%\n  Rate: rate :,.0f\n");
	e2e_ok(dir, "build -o old");
	replace(dir, "content/r/logs/a.log", "Loss=7.12500, Rate=2900.63",
		"Loss=7.31250, Rate=3100.00");
	e2e_ok(dir, "build -o new");
	struct proc r = e2e_run(dir, "diff old new");
	assert_int_equal(r.status, 1);
	assert_contains(r.out, "Table 1 (tbl-loss), row 1000, column Loss: 712.5% \u2192 731.2% "
			       "(+2.6%)\n");
	assert_contains(r.out, "Table 1 (tbl-loss), row 1000, column Rate: 2,901 \u2192 3,100 "
			       "(+6.9%)\n");
	proc_free(&r);
	e2e_drop(&dir);
}

/* PBS's exec_host lists each host once, without its cpus: a real
 * qstat -f excerpt (one host) and a job on two nodes. */
static void manifest_lists_pbs_hosts(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(
		E2E_COPY("content/r/logs/q.txt", "tests/corpus/pbs/az-hop-opm-qstat-fx.txt"),
		E2E_TEXT("content/r/logs/p.txt",
			 "Job Id: 7.pbs\n    exec_host = nid001/0*8+nid002/0*8\n"),
		E2E_TEXT("content/r/index.md",
			 "---\ntitle: R\nruns:\n  q: { file: logs/q.txt, parser: pbs }\n"
			 "  p: { file: logs/p.txt, parser: pbs }\n---\n"
			 "On {{ q.exec_host }} and {{ p.exec_host }}.\n")));
	e2e_ok(dir, "build");
	char *m = e2e_read(dir, "_site/manifest.json");
	assert_contains(m, "\"name\": \"q\",\n");
	assert_contains(m, "\"parser\": \"pbs\",\n");
	assert_contains(m, "          \"job_ids\": [\"8.scheduler\"],\n"
			   "          \"hosts\": [\"hb120v2-2\"]\n");
	assert_contains(m, "          \"job_ids\": [\"7.pbs\"],\n"
			   "          \"hosts\": [\"nid001\", \"nid002\"]\n");
	free(m);
	e2e_drop(&dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(manifest_lists_runs_values_tables_and_charts),
		cmocka_unit_test(manifest_is_the_same_clean_cached_and_uncached),
		cmocka_unit_test(diff_lists_what_changed_as_text),
		cmocka_unit_test(diff_is_coloured_on_a_terminal_unless_no_color),
		cmocka_unit_test(diff_lists_what_changed_as_markdown),
		cmocka_unit_test(diff_lists_what_changed_as_json),
		cmocka_unit_test(editing_prose_changes_no_value),
		cmocka_unit_test(diff_lists_values_added_and_removed),
		cmocka_unit_test(diff_reports_each_bad_input),
		cmocka_unit_test(check_against_says_what_changed),
		cmocka_unit_test(diff_says_what_of_an_input_changed_in_every_format),
		cmocka_unit_test(diff_says_which_hosts_and_job_ids_changed_in_markdown_and_json),
		cmocka_unit_test(diff_against_compares_a_committed_site_with_the_project),
		cmocka_unit_test(check_against_says_what_changed_with_github_and_json),
		cmocka_unit_test(check_against_says_what_changed_after_a_broken_claim),
		cmocka_unit_test(diff_gives_the_relative_change_of_grouped_and_percent_cells),
		cmocka_unit_test(manifest_lists_pbs_hosts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
