/* test_notebooks.c: a Jupyter notebook as a result file, as a user
 * meets it: its cells' output read by a text parser, values linked to
 * the cell and the line in its output, the notebook's page and excerpts
 * numbered by cell, and broken notebooks reported at their place. */
#include "e2e.h"

#define KERAS "tests/fixtures/ipynb/keras-vgg16-cyclone.ipynb"
#define HF "tests/corpus/hf-trainer/glue-cola-distilbert-notebook.ipynb"

/* A project parser for a Keras fit (the built-in one is another
 * issue's): what these tests need of it. */
static const char kfit[] =
	"name: kfit\n"
	"description: Keras fit progress\n"
	"detect: '(?m)^Epoch \\d+/\\d+$'\n"
	"fields:\n"
	"  epochs: 'Epoch \\d+/(\\d+)'\n"
	"  weighted_f1: 'weighted avg\\s+\\S+\\s+\\S+\\s+(\\S+)'\n"
	"series:\n"
	"  epoch: '^\\d+/\\d+ \\[=+\\] - (?<time>\\d+)s .*- loss: (?<loss>[\\d.]+) - accuracy: "
	"(?<accuracy>[\\d.]+)'\n";

static const char report[] = "---\n"
			     "title: Cyclones\n"
			     "runs:\n"
			     "  fit: logs/fit.ipynb\n"
			     "---\n"
			     "Trained for {{ fit.epochs }} epochs to a loss of "
			     "{{ last(fit.epoch.loss) }}; weighted F1 {{ fit.weighted_f1 }}.\n"
			     "\n"
			     "```{log}\n"
			     "from: fit\n"
			     "match: 'Epoch 5/5|weighted avg'\n"
			     "```\n";

static void a_keras_notebook_builds_with_cells_and_lines_shown(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(E2E_TEXT("parsers/kfit.yaml", kfit),
					  E2E_TEXT("content/r/index.md", report),
					  E2E_COPY("content/r/logs/fit.ipynb", KERAS)));
	e2e_ok(dir, "build");
	char *page = e2e_strip_hl(e2e_read(dir, "_site/r/index.html"));
	assert_non_null(page);
	/* Each value links to its line of the notebook's log, and says
	 * which cell printed it. */
	assert_non_null(strstr(page, "Trained for <a class=\"ld-value\" href=\"logs/fit.ipynb.html#L9.1\" "
				     "title=\"content/r/logs/fit.ipynb, cell 4, line 9 of its output\">5</a> "
				     "epochs to a loss of <a class=\"ld-value\" "
				     "href=\"logs/fit.ipynb.html#L10.1\" title=\"content/r/logs/fit.ipynb, "
				     "cell 4, line 10 of its output\">0.1612</a>; weighted F1 <a "
				     "class=\"ld-value\" href=\"logs/fit.ipynb.html#L21.1\" "
				     "title=\"content/r/logs/fit.ipynb, cell 7, line 10 of its "
				     "output\">0.93</a>."));
	/* The excerpt names each cell before its lines, numbered in it. */
	assert_non_null(strstr(
		page, "<pre class=\"ld-log\"><code><span class=\"ld-line ld-cell\"><span "
		      "class=\"ld-lineno\">#</span>cell 4 · In [5]</span>\n"
		      "<span class=\"ld-line ld-hl\"><a class=\"ld-lineno\" "
		      "href=\"logs/fit.ipynb.html#L9\">9</a>Epoch 5/5</span>\n"
		      "<span class=\"ld-line ld-gap\"><span class=\"ld-lineno\">…</span></span>\n"
		      "<span class=\"ld-line ld-cell\"><span class=\"ld-lineno\">#</span>cell 7 · "
		      "In [6]</span>\n"
		      "<span class=\"ld-line ld-hl\"><a class=\"ld-lineno\" "
		      "href=\"logs/fit.ipynb.html#L21\">10</a>weighted avg       0.93      0.93"
		      "      0.93       309</span>\n"
		      "</code></pre>"));
	free(page);
	/* The notebook's page: its outputs, cell by cell. */
	char *log = e2e_strip_hl(e2e_read(dir, "_site/r/logs/fit.ipynb.html"));
	assert_non_null(log);
	assert_non_null(strstr(log, "<p class=\"ld-log-meta\">22 lines · 1.1 KiB · the text output of 2 "
				    "of the notebook's 9 cells, each line numbered in its cell</p>"));
	assert_non_null(strstr(log, "<pre class=\"ld-log\"><code><span class=\"ld-line ld-cell\" "
				    "id=\"cell-4\"><span class=\"ld-lineno\">#</span>cell 4 · In "
				    "[5]</span>\n<span class=\"ld-line\" id=\"L1\"><a class=\"ld-lineno\" "
				    "href=\"#L1\">1</a>Epoch 1/5</span>\n"));
	assert_non_null(strstr(log, "<span class=\"ld-line\" id=\"L11\"><a class=\"ld-lineno\" "
				    "href=\"#L11\">11</a>&lt;tensorflow.python.keras.callbacks.History "
				    "at 0x2a5a3dc9bc8&gt;</span>\n"
				    "<span class=\"ld-line ld-cell\" id=\"cell-7\"><span "
				    "class=\"ld-lineno\">#</span>cell 7 · In [6]</span>\n"
				    "<span class=\"ld-line\" id=\"L12\"><a class=\"ld-lineno\" "
				    "href=\"#L12\">1</a>[[174  14]</span>\n"));
	free(log);
	/* The raw copy is the notebook itself. */
	char *raw = e2e_read(dir, "_site/r/logs/fit.ipynb");
	char *orig = e2e_read(".", KERAS);
	assert_non_null(raw);
	assert_non_null(orig);
	assert_string_equal(raw, orig);
	free(raw);
	free(orig);
	e2e_drop(&dir);
}

/* A notebook is read by its own reader, not by the scanner's read that
 * hashes a new log as it parses it (docs/internals.md, "One read of a
 * new log"): however big (LOGDOWN_TEST_WHOLE_MIN=0 makes this one count
 * as big), it is hashed apart, and the next build keeps its page. */
static void a_notebooks_page_is_kept_by_the_next_build(void **state)
{
	(void)state;
	assert_int_equal(setenv("LOGDOWN_TEST_WHOLE_MIN", "0", 1), 0);
	char *dir = e2e_project(E2E_FILES(E2E_TEXT("parsers/kfit.yaml", kfit),
					  E2E_TEXT("content/r/index.md", report),
					  E2E_COPY("content/r/logs/fit.ipynb", KERAS)));
	e2e_ok(dir, "build");
	struct proc r = e2e_run(dir, "build -v");
	unsetenv("LOGDOWN_TEST_WHOLE_MIN");
	if (r.status != 0 || !strstr(r.err, "1 report: 0 rendered, 1 from cache")) {
		e2e_keep_proc(r);
		fail_msg("the notebook's page is not kept:\n%s", r.err);
	}
	proc_free(&r);
	e2e_drop(&dir);
}

static void logdown_parse_reads_a_trainer_notebook(void **state)
{
	(void)state;
	struct proc r = e2e_run(".", "parse " HF);
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "parser   hf-trainer (built-in)\nlines    5\n"));
	assert_non_null(strstr(r.out, "  global_step                 2675                 (cell 1, line 1)\n"));
	assert_non_null(strstr(r.out, "  eval_loss                   0.6563718318939209   (cell 3, line 1)\n"));
	proc_free(&r);
}

static void a_truncated_notebook_is_one_error_and_exit_1(void **state)
{
	(void)state;
	char *orig = e2e_read(".", KERAS);
	assert_non_null(orig);
	/* Cut in the fit's output: the string "Epoch 3/5\n" never closes. */
	char *cut = strstr(orig, "\"Epoch 3/5");
	assert_non_null(cut);
	cut[6] = '\0';
	char *dir = e2e_project(E2E_FILES(E2E_TEXT("parsers/kfit.yaml", kfit),
					  E2E_TEXT("content/r/index.md", report),
					  E2E_TEXT("content/r/logs/fit.ipynb", orig)));
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "content/r/logs/fit.ipynb:59:7: error: malformed JSON: a string that is "
			    "never closed (a string ends on its own line with '\"')\n"
			    "   59 |       \"Epoch\n"
			    "      |       ^\n"
			    "content/r/index.md:6:16: note: run 'fit' did not load (above)\n"
			    "    6 | Trained for {{ fit.epochs }} epochs to a loss of {{ "
			    "last(fit.epoch.loss) }}; weighted F1 {{ fit.weighted_f1 }}.\n"
			    "      |                ^~~\n"
			    "logdown: 1 error; the previous output was left as it was\n");
	proc_free(&r);
	e2e_drop(&dir);
	free(orig);
}

static void a_notebook_saved_before_it_ran_says_so(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(
		E2E_TEXT("content/r/index.md", "---\ntitle: T\nruns:\n  nb: nb.ipynb\n---\nx\n"),
		E2E_TEXT("content/r/nb.ipynb",
			 "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": "
			 "null,\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": "
			 "[\"model.fit(x, y)\"]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n"
			 " \"nbformat_minor\": 5\n}\n")));
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "content/r/nb.ipynb: error: no cell of this notebook printed any "
				      "text (stream, execute_result or error output) for a parser to "
				      "read; was it saved before its cells were run?\n"));
	proc_free(&r);
	e2e_drop(&dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_keras_notebook_builds_with_cells_and_lines_shown),
		cmocka_unit_test(a_notebooks_page_is_kept_by_the_next_build),
		cmocka_unit_test(logdown_parse_reads_a_trainer_notebook),
		cmocka_unit_test(a_truncated_notebook_is_one_error_and_exit_1),
		cmocka_unit_test(a_notebook_saved_before_it_ran_says_so),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
