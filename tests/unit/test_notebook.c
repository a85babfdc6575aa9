/* test_notebook.c: Jupyter notebooks read as the log their cells
 * printed (parse/notebook.h), detected and parsed by the text parsers. */
#define _XOPEN_SOURCE 700 /* nftw() */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "data/run.h"
#include "parse/logparse.h"
#include "parse/notebook.h"
#include "capture.h"

#define TMPDIR_TAG "notebook"
#include "tmpdirs.h"

#define KERAS "tests/fixtures/ipynb/keras-vgg16-cyclone.ipynb"

/* dir/name holding text; the path, which the caller frees. */
static char *put(const char *dir, const char *name, const char *text)
{
	char *path = path_join(dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	fclose(f);
	return path;
}

/* Line `no` (1-based) of nb's log, without its '\n'. */
static char *log_line(const struct notebook *nb, long no)
{
	const char *p = nb->text;
	for (long i = 1; i < no; i++) {
		p = strchr(p, '\n');
		assert_non_null(p);
		p++;
	}
	return xstrndup(p, strcspn(p, "\n"));
}

static void keras_fit_cells_become_the_log(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct notebook nb;
	assert_true(notebook_load(KERAS, "fit.ipynb", &nb, c.d));
	assert_string_equal(cap_text(&c), "");
	/* Cell 4 (the fit: ten stream lines and the History it returned)
	 * and cell 7 (the classification report), of 9 cells. */
	assert_int_equal(nb.ncells, 9);
	assert_int_equal(nb.nlines, 22);
	assert_int_equal(nb.nspans, 2);
	assert_int_equal(nb.spans[0].first, 1);
	assert_int_equal(nb.spans[0].count, 11);
	assert_int_equal(nb.spans[0].cell, 4);
	assert_int_equal(nb.spans[0].exec, 5);
	assert_int_equal(nb.spans[1].first, 12);
	assert_int_equal(nb.spans[1].count, 11);
	assert_int_equal(nb.spans[1].cell, 7);
	assert_int_equal(nb.spans[1].exec, 6);
	char *l = log_line(&nb, 10);
	assert_string_equal(l, "36/36 [==============================] - 197s 5s/step - loss: 0.1612 - "
			       "accuracy: 0.9444 - val_loss: 0.2033 - val_accuracy: 0.9320");
	free(l);
	l = log_line(&nb, 11);
	assert_string_equal(l, "<tensorflow.python.keras.callbacks.History at 0x2a5a3dc9bc8>");
	free(l);
	l = log_line(&nb, 21);
	assert_string_equal(l, "weighted avg       0.93      0.93      0.93       309");
	free(l);
	int cell;
	long cl;
	assert_true(notebook_where(&nb, 9, &cell, &cl));
	assert_int_equal(cell, 4);
	assert_int_equal(cl, 9);
	assert_true(notebook_where(&nb, 12, &cell, &cl));
	assert_int_equal(cell, 7);
	assert_int_equal(cl, 1);
	assert_true(notebook_where(&nb, 22, &cell, &cl));
	assert_int_equal(cell, 7);
	assert_int_equal(cl, 11);
	assert_false(notebook_where(&nb, 23, &cell, &cl));
	assert_false(notebook_where(&nb, 0, &cell, &cl));
	notebook_free(&nb);
	cap_close(&c);
}

/* A one-cell notebook around the outputs given (JSON). */
static char *one_cell(const char *outputs)
{
	return xasprintf("{\n \"cells\": [\n  {\"cell_type\": \"markdown\", \"source\": [\"# x\"]},\n"
			 "  {\"cell_type\": \"code\", \"execution_count\": 3, \"outputs\": [\n%s\n"
			 "  ], \"source\": []}\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n"
			 " \"nbformat_minor\": 5\n}\n",
			 outputs);
}

static void outputs_join_as_a_terminal_shows_them(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	/* One stream cut in two outputs goes on; stderr's tqdm bar, with
	 * no line end, is ended by the next output; execute_result's
	 * text/plain and an error's traceback come whole; an image is not
	 * text. */
	char *json = one_cell(
		"   {\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": \"Epoch \"},\n"
		"   {\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": [\"1/2\\n\"]},\n"
		"   {\"output_type\": \"stream\", \"name\": \"stderr\", \"text\": [\"\\r 50%|#  | 1/2\","
		" \"\\r100%|###| 2/2\"]},\n"
		"   {\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": [\"Epoch 2/2\\n\"]},\n"
		"   {\"output_type\": \"display_data\", \"data\": {\"image/png\": \"iVBOR\"}},\n"
		"   {\"output_type\": \"execute_result\", \"execution_count\": 3, \"data\": "
		"{\"text/plain\": [\"{'a': 1,\\n\", \" 'b': 2}\"]}},\n"
		"   {\"output_type\": \"error\", \"ename\": \"ValueError\", \"evalue\": \"bad\", "
		"\"traceback\": [\"\\u001b[0;31mValueError\\u001b[0m Traceback\", \"ValueError: bad\"]}");
	char *path = put(dir, "x.ipynb", json);
	struct capture c;
	cap_open(&c);
	struct notebook nb;
	assert_true(notebook_load(path, "x.ipynb", &nb, c.d));
	assert_string_equal(cap_text(&c), "");
	assert_string_equal(nb.text, "Epoch 1/2\n"
				     "\r 50%|#  | 1/2\r100%|###| 2/2\n"
				     "Epoch 2/2\n"
				     "{'a': 1,\n"
				     " 'b': 2}\n"
				     "\x1b[0;31mValueError\x1b[0m Traceback\n"
				     "ValueError: bad\n");
	assert_int_equal(nb.nlines, 7);
	assert_int_equal(nb.left_out, 1);
	assert_int_equal(nb.spans[0].cell, 2);
	assert_int_equal(nb.spans[0].exec, 3);
	notebook_free(&nb);
	cap_close(&c);
	free(path);
	free(json);
	drop_tmpdir(dir);
}

static void nbformat_3_worksheets_are_read(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = put(dir, "old.ipynb",
			 "{\"metadata\": {}, \"nbformat\": 3, \"nbformat_minor\": 0,\n"
			 " \"worksheets\": [{\"cells\": [\n"
			 "  {\"cell_type\": \"heading\", \"level\": 1, \"source\": [\"x\"]},\n"
			 "  {\"cell_type\": \"code\", \"prompt_number\": 7, \"input\": [], \"outputs\": [\n"
			 "   {\"output_type\": \"stream\", \"stream\": \"stdout\", \"text\": [\"a 1\\n\"]},\n"
			 "   {\"output_type\": \"pyout\", \"prompt_number\": 7, \"text\": [\"42\"]},\n"
			 "   {\"output_type\": \"pyerr\", \"ename\": \"KeyError\", \"evalue\": \"'k'\", "
			 "\"traceback\": []}\n"
			 "  ]}\n"
			 " ]}]}\n");
	struct capture c;
	cap_open(&c);
	struct notebook nb;
	assert_true(notebook_load(path, "old.ipynb", &nb, c.d));
	assert_string_equal(cap_text(&c), "");
	assert_string_equal(nb.text, "a 1\n42\nKeyError: 'k'\n");
	assert_int_equal(nb.spans[0].cell, 2);
	assert_int_equal(nb.spans[0].exec, 7);
	notebook_free(&nb);
	cap_close(&c);
	free(path);
	drop_tmpdir(dir);
}

static void a_truncated_notebook_is_one_error_at_its_place(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	struct buf whole = BUF_INIT;
	assert_true(file_read(KERAS, &whole, NULL));
	/* Cut inside the fit's output, in the middle of a string. */
	const char *cut = strstr(whole.data, "Epoch 3/5");
	assert_non_null(cut);
	char *text = xstrndup(whole.data, (size_t)(cut - whole.data) + 5);
	char *path = put(dir, "cut.ipynb", text);
	struct capture c;
	cap_open(&c);
	struct notebook nb;
	assert_false(notebook_load(path, "cut.ipynb", &nb, c.d));
	assert_string_equal(cap_text(&c),
			    "cut.ipynb:59:7: error: malformed JSON: a string that is never closed "
			    "(a string ends on its own line with '\"')\n"
			    "   59 |       \"Epoch\n"
			    "      |       ^\n");
	assert_int_equal(diag_errors(c.d), 1);
	notebook_free(&nb);
	cap_close(&c);
	free(path);
	free(text);
	buf_free(&whole);
	drop_tmpdir(dir);
}

static void a_notebook_never_run_says_so(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *json = one_cell("   {\"output_type\": \"display_data\", \"data\": {\"image/png\": \"iVBOR\","
			      " \"text/html\": \"<img>\"}, \"metadata\": {}}");
	char *path = put(dir, "plots.ipynb", json);
	struct capture c;
	cap_open(&c);
	struct notebook nb;
	assert_false(notebook_load(path, "plots.ipynb", &nb, c.d));
	assert_string_equal(cap_text(&c),
			    "plots.ipynb: error: no cell of this notebook printed any text (stream, "
			    "execute_result or error output) for a parser to read; 1 output that is "
			    "not text (images, HTML) was left out; was it saved before its cells were "
			    "run?\n");
	notebook_free(&nb);
	cap_close(&c);
	free(path);
	free(json);
	drop_tmpdir(dir);
}

static void json_that_is_no_notebook_is_an_error(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = put(dir, "r.ipynb", "{\"cells\": 3}\n");
	struct capture c;
	cap_open(&c);
	struct notebook nb;
	assert_false(notebook_load(path, "r.ipynb", &nb, c.d));
	assert_string_equal(cap_text(&c),
			    "r.ipynb:1:1: error: not a Jupyter notebook: the JSON has no 'cells' list "
			    "(nor nbformat 3 'worksheets')\n"
			    "    1 | {\"cells\": 3}\n"
			    "      | ^\n");
	notebook_free(&nb);
	cap_close(&c);
	free(path);
	drop_tmpdir(dir);
}

static void an_output_that_is_not_text_is_a_warning_and_the_rest_is_kept(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *json = one_cell("   {\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": [\"a 1\\n\","
			      " 42, \"b 2\\n\"]},\n"
			      "   {\"output_type\": \"execute_result\", \"data\": {\"text/plain\": "
			      "{\"x\": 1}}},\n"
			      "   \"oops\"");
	char *path = put(dir, "bad.ipynb", json);
	struct capture c;
	cap_open(&c);
	struct notebook nb;
	assert_true(notebook_load(path, "bad.ipynb", &nb, c.d));
	assert_string_equal(
		cap_text(&c),
		"bad.ipynb:5:66: warning: output 1 of cell 2: its 'text' holds a number, not text; "
		"left out\n"
		"    5 |    {\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": [\"a 1\\n\", "
		"42, \"b 2\\n\"]},\n"
		"      |                                                                  ^~\n"
		"bad.ipynb:6:61: warning: output 2 of cell 2: its 'text/plain' is an object, not a "
		"string or a list of strings; left out\n"
		"    6 |    {\"output_type\": \"execute_result\", \"data\": {\"text/plain\": {\"x\": 1}}},\n"
		"      |                                                             ^\n"
		"bad.ipynb:7:4: warning: output 3 of cell 2 is a string, not an object; left out\n"
		"    7 |    \"oops\"\n"
		"      |    ^~~~~~\n");
	assert_string_equal(nb.text, "a 1\nb 2\n");
	notebook_free(&nb);
	cap_close(&c);
	free(path);
	free(json);
	drop_tmpdir(dir);
}

static void a_notebook_is_known_by_name_or_by_how_jupyter_writes_it(void **state)
{
	(void)state;
	const char nb4[] = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",";
	assert_true(notebook_sniff("a.IPYNB", "", 0));
	assert_true(notebook_sniff("model.py", nb4, sizeof nb4 - 1));
	assert_true(notebook_sniff("model.json", "\xEF\xBB\xBF{\"cells\":[{\"cell_type\":\"code\"", 30));
	assert_false(notebook_sniff("r.json", "{\"cells\": 3}", 12));
	assert_false(notebook_sniff("r.json", "{\"rows\": [{\"cell_type\": 1}]}", 29));
	assert_false(notebook_sniff("r.log", "Epoch 1/5\n", 10));
	assert_true(notebook_is(KERAS));
	assert_false(notebook_is("tests/corpus/hf-trainer/qwen3-0.6b-trl-sft-lora-accelerate.log"));
}

/* The parser set: the built-ins and one definition. */
static struct parser_set *with_def(struct capture *c, const char *yaml)
{
	struct parser_set *set = parsers_load(NULL, NULL, c->d);
	diag_add_source(c->d, "kfit.yaml", yaml, strlen(yaml));
	assert_true(parsers_add(set, "kfit.yaml", yaml, strlen(yaml), false, c->d));
	return set;
}

static const char kfit[] =
	"name: kfit\n"
	"detect: '(?m)^Epoch \\d+/\\d+$'\n"
	"fields:\n"
	"  epochs: 'Epoch \\d+/(\\d+)'\n"
	"  weighted_f1: {pattern: 'weighted avg\\s+\\S+\\s+\\S+\\s+(\\S+)'}\n"
	"  started: {pattern: '- (\\S+) \\d+s/step', pick: first, type: timestamp}\n"
	"series:\n"
	"  epoch: '^\\d+/\\d+ \\[=+\\] - (?<time>\\d+)s .*- loss: (?<loss>[\\d.]+) - accuracy: "
	"(?<accuracy>[\\d.]+)'\n";

static void a_text_parser_reads_the_notebooks_log(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct parser_set *set = with_def(&c, kfit);
	/* Detection reads the outputs, not the JSON around them. */
	const struct parser *p = parsers_detect(set, KERAS, loc_line("r.md", 3), c.d);
	assert_non_null(p);
	assert_string_equal(parser_name(p), "kfit");
	struct run *r = parser_run(p, KERAS, "fit.ipynb", "fit", c.d);
	assert_non_null(r);
	const struct datum *f = run_field(r, "epochs");
	assert_int_equal(f->kind, DATUM_NUMBER);
	assert_true(f->num == 5);
	assert_int_equal(f->line, 9);
	f = run_field(r, "weighted_f1");
	assert_true(f->num == 0.93);
	assert_int_equal(f->line, 21);
	const struct series *s = run_series(r, "epoch");
	assert_non_null(s);
	assert_int_equal(series_row_count(s), 5);
	assert_int_equal(series_row_line(s, 4), 10);
	assert_int_equal(run_line_count(r), 22);
	/* A value that does not read as its type names the cell and the
	 * line in its output, not a line of the JSON. */
	assert_string_equal(cap_text(&c),
			    "fit.ipynb: warning: cell 4, line 2 of its output: field 'started' is a "
			    "timestamp, but '192s' is not one; kept as text\n");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void carriage_returns_in_a_stream_are_read_as_in_a_log(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *json = one_cell(
		"   {\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": [\"Epoch 1/1\\n\","
		" \"\\r 1/36 [..............................] - ETA: 1:51 - loss: 0.6931\","
		" \"\\r36/36 [==============================] - 192s 5s/step - loss: 0.5709 - "
		"accuracy: 0.7298\\n\"]}");
	char *path = put(dir, "cr.ipynb", json);
	struct capture c;
	cap_open(&c);
	struct parser_set *set = with_def(&c, kfit);
	const struct parser *p = parsers_detect(set, path, loc_line("r.md", 3), c.d);
	assert_non_null(p);
	struct run *r = parser_run(p, path, "cr.ipynb", "cr", c.d);
	assert_non_null(r);
	const struct series *s = run_series(r, "epoch");
	assert_int_equal(series_row_count(s), 1);
	assert_int_equal(series_row_line(s, 0), 2);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
	free(path);
	free(json);
	drop_tmpdir(dir);
}

static void a_truncated_notebook_stops_detection_and_the_run(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = put(dir, "cut.ipynb", "{\n \"cells\": [\n  {\"cell_type\": \"code\", \"outputs\": [\n");
	struct capture c;
	cap_open(&c);
	struct parser_set *set = with_def(&c, kfit);
	assert_null(parsers_detect(set, path, loc_line("r.md", 3), c.d));
	assert_int_equal(diag_errors(c.d), 1);
	assert_null(parser_run(parsers_find(set, "kfit"), path, "cut.ipynb", "cut", c.d));
	assert_int_equal(diag_errors(c.d), 2);
	/* Detection names the file by its path; the run as shown. */
	char *want = xasprintf("%s:3:37: error: malformed JSON: expected a value, found the end "
			       "of the file\n"
			       "    3 |   {\"cell_type\": \"code\", \"outputs\": [\n"
			       "      |                                     ^\n"
			       "cut.ipynb:3:37: error: malformed JSON: expected a value, found the "
			       "end of the file\n"
			       "    3 |   {\"cell_type\": \"code\", \"outputs\": [\n"
			       "      |                                     ^\n",
			       path);
	assert_string_equal(cap_text(&c), want);
	free(want);
	parsers_free(set);
	cap_close(&c);
	free(path);
	drop_tmpdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keras_fit_cells_become_the_log),
		cmocka_unit_test(outputs_join_as_a_terminal_shows_them),
		cmocka_unit_test(nbformat_3_worksheets_are_read),
		cmocka_unit_test(a_truncated_notebook_is_one_error_at_its_place),
		cmocka_unit_test(a_notebook_never_run_says_so),
		cmocka_unit_test(json_that_is_no_notebook_is_an_error),
		cmocka_unit_test(an_output_that_is_not_text_is_a_warning_and_the_rest_is_kept),
		cmocka_unit_test(a_notebook_is_known_by_name_or_by_how_jupyter_writes_it),
		cmocka_unit_test(a_text_parser_reads_the_notebooks_log),
		cmocka_unit_test(carriage_returns_in_a_stream_are_read_as_in_a_log),
		cmocka_unit_test(a_truncated_notebook_stops_detection_and_the_run),
	};
	return cmocka_run_group_tests(tests, NULL, drop_leftovers);
}
