/* test_carry.c: records over several lines: a parser's `carry` (a value
 * on one line carried into the rows after it) and a table's
 * `fill_down`, over real published output kept in tests/fixtures/carry
 * (its README names where each file comes from). */
#define _XOPEN_SOURCE 700 /* nftw() */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "data/run.h"
#include "parse/logparse.h"
#include "capture.h"

#define FIX "tests/fixtures/carry/"

#define TMPDIR_TAG "carry"
#include "tmpdirs.h"

static bool add_def(struct parser_set *set, struct capture *c, const char *yaml)
{
	diag_add_source(c->d, "p.yaml", yaml, strlen(yaml));
	return parsers_add(set, "p.yaml", yaml, strlen(yaml), false, c->d);
}

/* The definition's problems, as reported. */
static void expect_def_errors(const char *yaml, const char *want)
{
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_new();
	assert_false(add_def(set, &c, yaml));
	assert_string_equal(cap_text(&c), want);
	parsers_free(set);
	cap_close(&c);
}

/* Runs the definition over log; the diagnostics stay in c (opened
 * here, closed by the caller). */
static struct run *run_def(struct capture *c, struct parser_set **set, const char *yaml,
			   const char *log)
{
	cap_open(c);
	*set = parsers_new();
	assert_true(add_def(*set, c, yaml));
	return parser_run(parsers_at(*set, 0), log, log, "r", c->d);
}

static void assert_cell(const struct series *s, size_t row, const char *col, const char *text)
{
	long j = series_column_index(s, col);
	if (j < 0)
		fail_msg("no column '%s'", col);
	struct datum d;
	series_cell(s, row, (size_t)j, &d);
	if (!text) {
		if (d.kind != DATUM_MISSING)
			fail_msg("row %zu, %s: '%.*s', wanted nothing", row, col, (int)d.len,
				 d.text);
		return;
	}
	if (!d.text || d.len != strlen(text) || memcmp(d.text, text, d.len) != 0)
		fail_msg("row %zu, %s: '%.*s', wanted '%s'", row, col, (int)d.len,
			 d.text ? d.text : "", text);
}

static void done(struct capture *c, struct parser_set *set, struct run *r)
{
	run_free(r);
	parsers_free(set);
	cap_close(c);
}

/* nvprof --metrics prints a kernel's name on a line of its own, then one
 * line a metric: the metrics belong to the kernel above them. */
static const char nvprof_def[] =
	"name: nvprof-metrics\n"
	"carry:\n"
	"  - 'Kernel: (?<kernel>\\S+)'\n"
	"  - '^Device \"(?<device>[^\"]+)\"'\n"
	"series:\n"
	"  metrics: '^(?<invocations>\\d+)\\s+(?<metric>\\w+)\\s+.*?\\s+(?<min>[\\d.]+)\\s+"
	"(?<max>[\\d.]+)\\s+(?<avg>[\\d.]+)$'\n";

static void nvprof_metrics_belong_to_the_kernel_above_them(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, nvprof_def, FIX "nvprof_metrics.txt");
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *m = run_series(r, "metrics");
	assert_int_equal(series_row_count(m), 9);
	assert_int_equal(series_column_count(m), 7);
	/* The carried columns come after the pattern's own. */
	assert_string_equal(series_column(m, 5), "kernel");
	assert_string_equal(series_column(m, 6), "device");
	assert_int_equal(series_row_line(m, 0), 14);
	assert_cell(m, 0, "kernel", "compute_component_vcell_TR_237_gpu");
	assert_cell(m, 0, "device", "TITAN X (Pascal) (0)");
	assert_cell(m, 0, "avg", "0.384743");
	/* Line 22: "Kernel: set_array_to_constant_52_gpu", then its 58 */
	assert_int_equal(series_row_line(m, 4), 22);
	assert_cell(m, 4, "invocations", "58");
	assert_cell(m, 4, "kernel", "set_array_to_constant_52_gpu");
	assert_cell(m, 4, "max", "0.955698");
	assert_cell(m, 8, "kernel", "compute_component_vcell_BL_345_gpu");
	assert_cell(m, 8, "min", "0.372508");
	done(&c, set, r);
}

/* Old Keras prints "Epoch 3/10" above the line of its numbers; an early
 * stop puts a line between the two. */
static const char keras_def[] =
	"name: keras\n"
	"carry:\n"
	"  - { pattern: '^Epoch (?<epoch>\\d+)/(?<epochs>\\d+)', reset: '^Train on' }\n"
	"series:\n"
	"  epochs: '^(?<secs>\\d+)s - loss: (?<loss>[\\d.]+) - acc: (?<acc>[\\d.]+) - "
	"val_loss: (?<val_loss>[\\d.]+) - val_acc: (?<val_acc>[\\d.]+)'\n";

static void keras_steps_take_the_epoch_of_the_header_above(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, keras_def, FIX "keras_epochs.log");
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *e = run_series(r, "epochs");
	/* three trainings: 10, 9 and 6 epochs */
	assert_int_equal(series_row_count(e), 25);
	assert_cell(e, 0, "epoch", "1");
	assert_cell(e, 0, "epochs", "10");
	assert_cell(e, 0, "loss", "1.7197");
	assert_cell(e, 9, "epoch", "10");
	assert_cell(e, 9, "val_acc", "0.9247");
	/* The second training starts again at 1. */
	assert_cell(e, 10, "epoch", "1");
	assert_cell(e, 10, "loss", "0.1369");
	/* "Epoch 9/10", "Epoch 00008: early stopping", then the numbers:
	 * the early-stop line is no header, so they are epoch 9's. */
	assert_int_equal(series_row_line(e, 18), 41);
	assert_cell(e, 18, "epoch", "9");
	assert_cell(e, 18, "secs", "3124");
	assert_cell(e, 24, "epoch", "6");
	assert_cell(e, 24, "acc", "0.9962");
	done(&c, set, r);
}

/* lm-evaluation-harness writes a task's name and version on its first
 * metric's row only, and the result file in a heading above each
 * table. */
static const char lmeval_def[] =
	"name: lm-eval-md\n"
	"carry: ['^## llama-30B_(?<file>\\S+)\\.json']\n"
	"tables:\n"
	"  results: { header: '^\\|\\s*Task\\s*\\|Version\\|', fill_down: [task, version] }\n";

static void lm_eval_blank_task_cells_fill_down_and_tables_get_their_heading(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, lmeval_def, FIX "lm_eval_llama30b.md");
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *t = run_series(r, "results");
	assert_int_equal(series_row_count(t), 34);
	assert_string_equal(series_column(t, 6), "file");
	/* "|             |       |acc_norm|45.48|±  |  1.46|" */
	assert_int_equal(series_row_line(t, 1), 7);
	assert_cell(t, 1, "task", "arc_challenge");
	assert_cell(t, 1, "version", "0");
	assert_cell(t, 1, "metric", "acc_norm");
	assert_cell(t, 1, "value", "45.48");
	assert_cell(t, 1, "file", "common_sense_reasoning_0-shot");
	/* mc_taco's f1 has no stderr: that column is not filled down. */
	assert_cell(t, 9, "task", "mc_taco");
	assert_cell(t, 9, "metric", "f1");
	assert_cell(t, 9, "stderr", NULL);
	/* The next table, under its own heading. */
	assert_cell(t, 20, "task", "gsm8k");
	assert_cell(t, 20, "file", "gsm8k_8-shot");
	/* A table's first row does not fill from the table before it. */
	assert_cell(t, 21, "task", "drop");
	assert_cell(t, 22, "task", "drop");
	assert_cell(t, 22, "version", "1");
	assert_cell(t, 22, "value", "13.91");
	assert_cell(t, 33, "task", "mathqa");
	assert_cell(t, 33, "metric", "acc_norm");
	assert_cell(t, 33, "file", "mathematical_reasoning_0-shot");
	done(&c, set, r);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Before its first line a carried value is missing; a reset drops it;
 * a new line replaces it; `to` gives it to the series it names only; a
 * line that carries and is a row gives the row its new value. */
static void carried_values_start_missing_reset_and_go_to_the_named_series(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = path_join(dir, "t.log");
	write_file(path, "step 1 loss 0.9\n"         /* 1: nothing carried yet */
			 "== tp 2 ==\n"               /* 2 */
			 "step 2 loss 0.8\n"          /* 3 */
			 "== tp 4 == step 3 loss 0.7\n" /* 4: carries, and a row */
			 "-- end --\n"                /* 5: reset */
			 "step 4 loss 0.6\n"          /* 6 */
			 "eval 0.5\n");               /* 7 */
	static const char def[] = "name: t\n"
				  "carry:\n"
				  "  - { pattern: '== tp (?<tp>\\d+) ==', reset: '^-- end', to: [steps] }\n"
				  "series:\n"
				  "  steps: 'step (?<step>\\d+) loss (?<loss>\\S+)'\n"
				  "  evals: 'eval (?<acc>\\S+)'\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, path);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *s = run_series(r, "steps");
	assert_int_equal(series_row_count(s), 4);
	assert_cell(s, 0, "tp", NULL);
	assert_cell(s, 1, "tp", "2");
	assert_cell(s, 2, "tp", "4");
	assert_cell(s, 3, "tp", NULL);
	const struct series *e = run_series(r, "evals");
	assert_int_equal(series_column_count(e), 1);
	done(&c, set, r);
	free(path);
	drop_tmpdir(dir);
}

/* A big log is scanned on one thread when a parser carries: the values
 * cross the 4 MiB chunks as they are. */
static void carried_values_cross_chunks_of_a_big_log(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = path_join(dir, "big.log");
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	long rows = 0;
	for (long i = 1; i <= 300000; i++) {
		if (i % 1000 == 1)
			fprintf(f, "Kernel: k%ld\n", i / 1000);
		else if (i % 7 == 0)
			fprintf(f, "metric m%ld 0.%ld\n", i, i % 10), rows++;
		else
			fprintf(f, "noise line %06ld padding padding padding\n", i);
	}
	fclose(f);
	setenv("LOGDOWN_SCAN_THREADS", "4", 1);
	static const char def[] = "name: big\n"
				  "carry: 'Kernel: (?<kernel>\\S+)'\n"
				  "series:\n"
				  "  metrics: '^metric (?<name>\\S+) (?<value>\\S+)'\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, path);
	unsetenv("LOGDOWN_SCAN_THREADS");
	assert_non_null(r);
	const struct series *m = run_series(r, "metrics");
	assert_int_equal(series_row_count(m), (size_t)rows);
	/* Each row's kernel is the one of its thousand lines. */
	long jn = series_column_index(m, "name"), jk = series_column_index(m, "kernel");
	for (size_t k = 0; k < series_row_count(m); k += 997) {
		struct datum n, kd;
		series_cell(m, k, (size_t)jn, &n);
		series_cell(m, k, (size_t)jk, &kd);
		/* a cell's text is not NUL-terminated: read its len bytes */
		char name[32];
		snprintf(name, sizeof name, "%.*s", (int)n.len, n.text);
		long i = strtol(name + 1, NULL, 10);
		char want[32];
		snprintf(want, sizeof want, "k%ld", i / 1000);
		if (kd.len != strlen(want) || memcmp(kd.text, want, kd.len) != 0)
			fail_msg("row %zu (m%ld): kernel '%.*s', wanted '%s'", k, i, (int)kd.len,
				 kd.text, want);
	}
	done(&c, set, r);
	unlink(path);
	free(path);
	drop_tmpdir(dir);
}

/* A row that waits for its more lines takes the values of its own
 * line; a table gets a carry's column only when `to` names it, and a
 * header cell of the carried name keeps the table's own. */
static void more_rows_and_named_tables_take_carried_values(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = path_join(dir, "t.log");
	write_file(path, "[----------] 2 tests from Math\n" /* 1 */
			 "math.cc:15: Failure\n"          /* 2 */
			 "Expected 4\n"                   /* 3 */
			 "[----------] 1 test from Io\n"  /* 4: after the row's line */
			 "io.cc:3: Failure\n"             /* 5 */
			 "\n"                             /* 6 */
			 "GPU table\n"                    /* 7 */
			 "| gpu | suite |\n"              /* 8 */
			 "| 0   | own   |\n"              /* 9 */
			 "\n"
			 "CPU table\n"                    /* 11 */
			 "| cpu | load |\n"               /* 12 */
			 "| 1   | 0.5  |\n");              /* 13 */
	static const char def[] =
		"name: t\n"
		"carry:\n"
		"  - { pattern: '^\\[-+\\] \\d+ tests? from (?<suite>\\w+)', to: [failures, gpus] }\n"
		"series:\n"
		"  failures:\n"
		"    pattern: '(?<file>\\w+\\.cc):(?<line>\\d+): Failure'\n"
		"    columns: [file, line]\n"
		"    more: { into: line, lines: 1 }\n"
		"tables:\n"
		"  gpus: '^GPU table'\n"
		"  cpus: '^CPU table'\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, path);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *f = run_series(r, "failures");
	assert_int_equal(series_row_count(f), 2);
	assert_cell(f, 0, "suite", "Math");
	assert_cell(f, 1, "suite", "Io");
	const struct series *g = run_series(r, "gpus");
	assert_int_equal(series_column_count(g), 2);
	assert_cell(g, 0, "suite", "own");
	const struct series *cpu = run_series(r, "cpus");
	assert_int_equal(series_column_count(cpu), 2);
	assert_int_equal(series_column_index(cpu, "suite"), -1);
	done(&c, set, r);
	free(path);
	drop_tmpdir(dir);
}

/* A carried value is read in the parser's number_style, in a table as
 * in a series, and a table's types may name a carried column. */
static void carried_values_are_read_in_the_number_style(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = path_join(dir, "t.log");
	write_file(path, "Lauf mit 1.000 Schritten\n" /* 1 */
			 "| gpu | leistung |\n"         /* 2 */
			 "| 0   | 12,5     |\n"         /* 3 */
			 "Schritt 7 fertig\n"           /* 4 */
			 "Lauf mit 2.5 Schritten\n"     /* 5: no number in the style */
			 "| gpu | leistung |\n"         /* 6 */
			 "| 1   | 13,0     |\n");       /* 7 */
	static const char def[] = "name: t\n"
				  "number_style: {decimal: ','}\n"
				  "carry: ['Lauf mit (?<steps>\\S+) Schritten']\n"
				  "series:\n"
				  "  done: 'Schritt (?<n>\\d+) fertig'\n"
				  "tables:\n"
				  "  t: { header: '^\\| gpu', types: { steps: number } }\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, path);
	assert_non_null(r);
	char *want = xasprintf("%s:7: warning: column 'steps' of table 't': '2.5' is not a number "
			       "in the parser's number_style (decimal ',', thousands '.'); kept as "
			       "text\n"
			       "    7 | | 1   | 13,0     |\n",
			       path);
	assert_string_equal(cap_text(&c), want);
	free(want);
	const struct series *t = run_series(r, "t");
	assert_int_equal(series_row_count(t), 2);
	struct datum d;
	series_cell(t, 0, (size_t)series_column_index(t, "steps"), &d);
	assert_int_equal(d.kind, DATUM_NUMBER);
	assert_true(d.num == 1000);
	series_cell(t, 0, (size_t)series_column_index(t, "leistung"), &d);
	assert_true(d.kind == DATUM_NUMBER && d.num == 12.5);
	series_cell(t, 1, (size_t)series_column_index(t, "steps"), &d);
	assert_int_equal(d.kind, DATUM_STRING);
	const struct series *s = run_series(r, "done");
	series_cell(s, 0, (size_t)series_column_index(s, "steps"), &d);
	assert_true(d.kind == DATUM_NUMBER && d.num == 1000);
	done(&c, set, r);
	free(path);
	drop_tmpdir(dir);
}

/* A series and a table of one name (a file holds one or the other)
 * both get a carry's columns; only their own columns must match. */
static void a_series_shared_with_a_table_gets_carried_columns(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = path_join(dir, "t.log");
	write_file(path, "Device \"A100\"\n"
			 "kernel gemm 12.5\n");
	static const char def[] = "name: t\n"
				  "carry: ['^Device \"(?<device>[^\"]+)\"']\n"
				  "series:\n"
				  "  kernels: '^kernel (?<name>\\S+) (?<avg>\\S+)'\n"
				  "tables:\n"
				  "  kernels: { header: '^\\| Name', columns: { name: Name, avg: Avg } }\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, path);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *k = run_series(r, "kernels");
	assert_int_equal(series_row_count(k), 1);
	assert_cell(k, 0, "name", "gemm");
	assert_cell(k, 0, "device", "A100");
	done(&c, set, r);
	free(path);
	drop_tmpdir(dir);
}

static void carry_is_checked_when_loaded(void **state)
{
	(void)state;
	expect_def_errors("carry: ['Kernel: (\\S+)']\n"
			  "series:\n"
			  "  m: '(?<v>\\d+)'\n",
			  "p.yaml:1:9: error: carry 1: name the pattern's groups, as in "
			  "(?<kernel>.+): they become columns of the rows after the line\n"
			  "    1 | carry: ['Kernel: (\\S+)']\n"
			  "      |         ^~~~~~~~~~~~~~~\n");
	expect_def_errors("carry: ['Kernel: (?<name>\\S+)']\n"
			  "series:\n"
			  "  m: '(?<name>\\w+) (?<v>\\d+)'\n",
			  "p.yaml:1:9: error: carry 1: the carried column 'name' is a column of "
			  "series 'm' too; rename the group, or leave the series out with to:\n"
			  "    1 | carry: ['Kernel: (?<name>\\S+)']\n"
			  "      |         ^~~~~~~~~~~~~~~~~~~~~~\n");
	expect_def_errors("carry:\n"
			  "  - { pattern: 'K: (?<k>\\S+)', rest: 'x', to: [metrcs] }\n"
			  "series:\n"
			  "  metrics: '(?<v>\\d+)'\n",
			  "p.yaml:2:32: error: unknown key 'rest' in carry 1 (did you mean "
			  "'reset'?)\n"
			  "    2 |   - { pattern: 'K: (?<k>\\S+)', rest: 'x', to: [metrcs] }\n"
			  "      |                                ^~~~\n"
			  "p.yaml:2:48: error: carry 1: no series or table is named 'metrcs' (did "
			  "you mean 'metrics'?)\n"
			  "    2 |   - { pattern: 'K: (?<k>\\S+)', rest: 'x', to: [metrcs] }\n"
			  "      |                                                ^~~~~~\n");
	expect_def_errors("carry:\n"
			  "  - 'A (?<k>\\S+)'\n"
			  "  - { reset: '(' }\n"
			  "  - 'B (?<k>\\S+)'\n",
			  "p.yaml:3:5: error: carry 2 has no pattern\n"
			  "    3 |   - { reset: '(' }\n"
			  "      |     ^~~~~~~~~~~~~~\n"
			  "p.yaml:4:5: error: carry 3: column 'k' is carried by an earlier carry\n"
			  "    4 |   - 'B (?<k>\\S+)'\n"
			  "      |     ^~~~~~~~~~~~~\n");
	expect_def_errors("carry:\n"
			  "  - { pattern: 'K: (?<k>\\S+)', reset: '(', to: [3] }\n"
			  "  - [x]\n"
			  "series:\n"
			  "  m: '(?<v>\\d+)'\n",
			  "p.yaml:2:41: error: bad pattern for the reset of carry 1: missing closing "
			  "parenthesis (at offset 1 in the pattern)\n"
			  "    2 |   - { pattern: 'K: (?<k>\\S+)', reset: '(', to: [3] }\n"
			  "      |                                         ^\n"
			  "p.yaml:2:49: error: to: in carry 1 is a list of series and table names, not "
			  "a number\n"
			  "    2 |   - { pattern: 'K: (?<k>\\S+)', reset: '(', to: [3] }\n"
			  "      |                                                 ^\n"
			  "p.yaml:3:5: error: the pattern of carry 2 must be a string, not a list\n"
			  "    3 |   - [x]\n"
			  "      |     ^~~\n");
	expect_def_errors("tables:\n"
			  "  t: { header: '^x', fill_down: [{a: 1}] }\n",
			  "p.yaml:2:34: error: fill_down of table 't' is a list of its columns, "
			  "such as [suite], not a map\n"
			  "    2 |   t: { header: '^x', fill_down: [{a: 1}] }\n"
			  "      |                                  ^~~~~~\n");
}

/* fill_down of a column the table does not have: a warning when the
 * table is read, once, as for types. */
static void fill_down_names_a_missing_column_once(void **state)
{
	(void)state;
	static const char def[] = "name: lm\n"
				  "tables:\n"
				  "  results: { header: '^\\|\\s*Task\\s*\\|Version\\|', fill_down: "
				  "[tasks] }\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, FIX "lm_eval_llama30b.md");
	assert_non_null(r);
	assert_string_equal(cap_text(&c),
			    FIX "lm_eval_llama30b.md:4: warning: table 'results' has no column "
				"'tasks' to fill down (did you mean 'task'?)\n"
				"    4 | |    Task     |Version| Metric |Value|   |Stderr|\n");
	/* Nothing filled: the blank cell stays missing. */
	assert_cell(run_series(r, "results"), 1, "task", NULL);
	done(&c, set, r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nvprof_metrics_belong_to_the_kernel_above_them),
		cmocka_unit_test(keras_steps_take_the_epoch_of_the_header_above),
		cmocka_unit_test(lm_eval_blank_task_cells_fill_down_and_tables_get_their_heading),
		cmocka_unit_test(carried_values_start_missing_reset_and_go_to_the_named_series),
		cmocka_unit_test(carried_values_cross_chunks_of_a_big_log),
		cmocka_unit_test(more_rows_and_named_tables_take_carried_values),
		cmocka_unit_test(carried_values_are_read_in_the_number_style),
		cmocka_unit_test(a_series_shared_with_a_table_gets_carried_columns),
		cmocka_unit_test(carry_is_checked_when_loaded),
		cmocka_unit_test(fill_down_names_a_missing_column_once),
	};
	return cmocka_run_group_tests(tests, NULL, drop_leftovers);
}
