/* test_dllogger.c: DLLogger's `DLLL {json}` lines (parse/dllogger.h):
 * the series log, the PARAMETER and summary fields, DLLL lines inside a
 * log, and a malformed line reported where it is, the rest kept. */
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
#include "parse/dllogger.h"
#include "capture.h"

#define TMPDIR_TAG "dllogger"
#include "tmpdirs.h"

#define BERT "tests/corpus/dllogger/bert-pretrain-dllogger.json"

static char *put(const char *dir, const char *name, const char *text)
{
	char *path = path_join(dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	fclose(f);
	return path;
}

/* The field's text as written, and its line. */
static void assert_field(const struct run *r, const char *name, const char *text, long line)
{
	const struct datum *d = run_field(r, name);
	assert_non_null(d);
	assert_int_equal(d->len, strlen(text));
	assert_memory_equal(d->text, text, d->len);
	assert_int_equal(d->line, line);
}

static void assert_cell(const struct series *s, size_t row, const char *col, const char *text)
{
	long c = series_column_index(s, col);
	assert_true(c >= 0);
	struct datum d;
	series_cell(s, row, (size_t)c, &d);
	if (!text) {
		assert_int_equal(d.kind, DATUM_MISSING);
		return;
	}
	assert_int_equal(d.len, strlen(text));
	assert_memory_equal(d.text, text, d.len);
}

static void bert_pretraining_file(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct run *r = run_new("bert", BERT, "dllogger");
	assert_true(dllogger_read(r, BERT, BERT, c.d));
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(run_line_count(r), 16);
	/* PARAMETER events, the last loss_scale of two, and the summary. */
	assert_field(r, "seed", "15843", 2);
	assert_field(r, "batch_size_per_gpu", "10", 4);
	assert_field(r, "loss_scale", "262144.0", 8);
	assert_field(r, "final_loss", "2.646498680114746", 16);
	assert_field(r, "training_sequences_per_second", "128.27777476981666", 16);
	/* "Config": [...] is a list: left out. */
	assert_null(run_field(r, "config"));
	const struct series *s = run_series(r, "log");
	assert_non_null(s);
	assert_int_equal(series_row_count(s), 7);
	const char *cols[] = {"step_0",    "step_1",        "elapsedtime", "average_loss",
			      "step_loss", "learning_rate", "final_loss"};
	assert_int_equal(series_column_count(s), 7);
	for (size_t i = 0; i < 7; i++)
		assert_string_equal(series_column(s, i), cols[i]);
	assert_int_equal(series_row_line(s, 0), 7);
	assert_cell(s, 0, "step_1", "0");
	assert_cell(s, 0, "elapsedtime", "91.665232");
	assert_cell(s, 0, "step_loss", "3.69921875");
	assert_cell(s, 0, "final_loss", NULL);
	struct datum d;
	series_cell(s, 0, 2, &d);
	assert_int_equal(d.kind, DATUM_NUMBER); /* "91.665232" is a string in the JSON */
	assert_true(d.num == 91.665232);
	assert_int_equal(series_row_line(s, 6), 14);
	assert_cell(s, 6, "step_1", "1573.0");
	assert_cell(s, 6, "average_loss", NULL);
	assert_cell(s, 6, "final_loss", "2.646498680114746");
	run_free(r);
	cap_close(&c);
}

/* The lines as mpirun and NeMo print them: after a prefix, among other
 * lines; a step that is a number; dotted keys. */
static void lines_inside_a_log(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = put(dir, "train.log",
			 "starting\n"
			 "[1,0]<stdout>:DLLL {\"timestamp\": \"1.5\", \"elapsedtime\": \"2.5\", "
			 "\"type\": \"LOG\", \"step\": 47, \"data\": {\"train.loss\": 7.89, "
			 "\"lr\": 3.6e-05}}\n"
			 "epoch done\n"
			 "[1,0]<stdout>:DLLL {\"timestamp\": \"1.6\", \"elapsedtime\": \"3.5\", "
			 "\"type\": \"LOG\", \"step\": 48, \"data\": {\"train.loss\": 7.5, "
			 "\"val.acc\": \"n/a\"}}\n"
			 "[1,0]<stdout>:DLLL {\"timestamp\": \"1.7\", \"type\": \"PARAMETER\", "
			 "\"data\": {\"Batch Size\": 64}}\n");
	struct capture c;
	cap_open(&c);
	struct run *r = run_new("nemo", "train.log", "dllogger");
	assert_true(dllogger_read(r, path, "train.log", c.d));
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(run_line_count(r), 5);
	assert_field(r, "batch_size", "64", 5);
	const struct series *s = run_series(r, "log");
	assert_non_null(s);
	assert_int_equal(series_row_count(s), 2);
	assert_int_equal(series_column_count(s), 5);
	assert_string_equal(series_column(s, 0), "step");
	assert_string_equal(series_column(s, 1), "elapsedtime");
	assert_string_equal(series_column(s, 2), "train_loss");
	assert_string_equal(series_column(s, 3), "lr");
	assert_string_equal(series_column(s, 4), "val_acc");
	assert_int_equal(series_row_line(s, 0), 2);
	assert_cell(s, 0, "step", "47");
	assert_cell(s, 0, "train_loss", "7.89");
	assert_cell(s, 0, "val_acc", NULL);
	assert_cell(s, 1, "step", "48");
	assert_cell(s, 1, "lr", NULL);
	assert_cell(s, 1, "val_acc", NULL); /* "n/a" */
	run_free(r);
	cap_close(&c);
	free(path);
	drop_tmpdir(dir);
}

/* A line cut short and one with text after its object: a warning each
 * at its place; the lines before and after are read. */
static void malformed_line_is_a_warning(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = put(dir, "dll.json",
			 "DLLL {\"elapsedtime\": \"1.0\", \"step\": [0, 1], \"data\": {\"loss\": 2.5}}\n"
			 "DLLL {\"elapsedtime\": \"2.0\", \"step\": [0, 2], \"data\": {\"loss\": 2.\n"
			 "DLLL {\"elapsedtime\": \"3.0\", \"step\": [0, 3], \"data\": {}} x\n"
			 "DLLL {\"elapsedtime\": \"4.0\", \"step\": [0, 4], \"data\": {\"loss\": 2.25}}\n");
	struct capture c;
	cap_open(&c);
	struct run *r = run_new("dll", "dll.json", "dllogger");
	assert_true(dllogger_read(r, path, "dll.json", c.d));
	assert_int_equal(diag_errors(c.d), 0);
	assert_int_equal(diag_warnings(c.d), 2);
	assert_string_equal(
		cap_text(&c),
		"dll.json:2:62: warning: malformed JSON: '2.' is not a number\n"
		"    2 | DLLL {\"elapsedtime\": \"2.0\", \"step\": [0, 2], \"data\": {\"loss\": 2.\n"
		"      |                                                              ^~\n"
		"dll.json:3:57: warning: malformed JSON: expected the end of the line after the JSON "
		"object, found 'x'\n"
		"    3 | DLLL {\"elapsedtime\": \"3.0\", \"step\": [0, 3], \"data\": {}} x\n"
		"      |                                                         ^\n");
	const struct series *s = run_series(r, "log");
	assert_non_null(s);
	assert_int_equal(series_row_count(s), 2);
	assert_cell(s, 0, "loss", "2.5");
	assert_cell(s, 1, "step_1", "4");
	assert_cell(s, 1, "loss", "2.25");
	run_free(r);
	cap_close(&c);
	free(path);
	drop_tmpdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bert_pretraining_file),
		cmocka_unit_test(lines_inside_a_log),
		cmocka_unit_test(malformed_line_is_a_warning),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
