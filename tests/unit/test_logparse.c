/* test_logparse.c: parser definitions, detection and the engine that runs
 * them, over fixtures made from the seed logs (tests/fixtures/engine). */
#define _XOPEN_SOURCE 700 /* nftw() */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/fsutil.h"
#include "parse/logparse.h"
#include "data/run.h"
#include "base/util.h"
#include "capture.h"

#define FIX "tests/fixtures/engine/"

#define TMPDIR_TAG "logparse"
#include "tmpdirs.h"

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* Adds a definition whose text the diagnostics may quote. */
static bool add_def(struct parser_set *set, struct capture *c, const char *file, const char *yaml,
		    bool builtin)
{
	diag_add_source(c->d, file, yaml, strlen(yaml));
	return parsers_add(set, file, yaml, strlen(yaml), builtin, c->d);
}

/* The definition's problems, as reported. */
static void expect_def_errors(const char *yaml, const char *want)
{
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_new();
	assert_false(add_def(set, &c, "p.yaml", yaml, false));
	assert_int_equal(parsers_count(set), 0);
	assert_string_equal(cap_text(&c), want);
	parsers_free(set);
	cap_close(&c);
}

/* Runs the definition over a fixture; the run, and the diagnostics in
 * c (opened here, closed by the caller). */
static struct run *run_def(struct capture *c, struct parser_set **set, const char *yaml,
			   const char *log)
{
	cap_open(c);
	*set = parsers_new();
	assert_true(add_def(*set, c, "p.yaml", yaml, false));
	return parser_run(parsers_at(*set, 0), log, log, "r", c->d);
}

static void assert_text(const struct datum *d, const char *text)
{
	assert_non_null(d);
	assert_non_null(d->text);
	if (d->len != strlen(text) || memcmp(d->text, text, d->len) != 0)
		fail_msg("text '%.*s', wanted '%s'", (int)d->len, d->text, text);
}

/* Loading the parsers JIT-compiles none of them: a file read with one
 * JIT-compiles that one alone, and detection (parser: auto) only the
 * detect patterns, whose parser is then still as loaded. */
static void a_parser_is_jit_compiled_when_a_file_is_read_with_it(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_load(NULL, NULL, c.d);
	for (size_t i = 0; i < parsers_count(set); i++)
		assert_false(parser_jitted(parsers_at(set, i)));
	const char *log = "tests/fixtures/cerebras/bs512.log";
	const struct parser *p = parsers_detect(set, log, loc_line(log, 0), c.d);
	assert_non_null(p);
	assert_string_equal(parser_name(p), "cerebras");
	assert_false(parser_jitted(p));
	struct run *r = parser_run(p, log, log, "r", c.d);
	assert_non_null(r);
	assert_true(parser_jitted(p));
	size_t jitted = 0;
	for (size_t i = 0; i < parsers_count(set); i++)
		jitted += parser_jitted(parsers_at(set, i));
	assert_int_equal(jitted, 1);
	/* the same values as a run whose parser was JIT-compiled already */
	struct run *again = parser_run(p, log, log, "r", c.d);
	assert_non_null(again);
	const struct datum *a = run_field(r, "final_loss"), *b = run_field(again, "final_loss");
	assert_non_null(a);
	assert_non_null(b);
	assert_text(a, "7.12500");
	assert_text(b, "7.12500");
	assert_int_equal(a->line, 53);
	assert_int_equal(b->line, 53);
	assert_string_equal(cap_text(&c), "");
	run_free(r);
	run_free(again);
	parsers_free(set);
	cap_close(&c);
}

static void assert_cell(const struct series *s, size_t row, const char *col, const char *text)
{
	long j = series_column_index(s, col);
	assert_true(j >= 0);
	struct datum d;
	series_cell(s, row, (size_t)j, &d);
	assert_text(&d, text);
}

static double cell_num(const struct series *s, size_t row, const char *col)
{
	long j = series_column_index(s, col);
	assert_true(j >= 0);
	struct datum d;
	series_cell(s, row, (size_t)j, &d);
	assert_int_equal(d.kind, DATUM_NUMBER);
	return d.num;
}

static const char cerebras_def[] =
	"name: cs\n"
	"detect: 'Train Device=CSX'\n"
	"fields:\n"
	"  batch_size: 'Effective batch size is (\\d+)'\n"
	"  samples: 'Processed (\\d+) sample'\n"
	"  total_time: { pattern: 'in ([\\d.]+) seconds', pick: last }\n"
	"  first_loss: { pattern: 'Loss=([\\d.]+)', pick: first }\n"
	"  last_loss: 'Loss=([\\d.]+)'\n"
	"  started: { pattern: '^(\\S+ \\S+) INFO:\\s+Beginning appliance run', type: timestamp }\n"
	"  ended: { pattern: '^(\\S+ \\S+) INFO:\\s+Training completed', type: timestamp }\n"
	"series:\n"
	"  train: 'Step=(?<step>\\d+), Loss=(?<loss>[\\d.]+), Rate=(?<rate>[\\d.]+) "
	"samples/sec, GlobalRate=(?<global_rate>[\\d.]+)'\n"
	"derive:\n"
	"  final_loss: last(train.loss)\n"
	"  wall: ended - started\n"
	"  throughput: samples / total_time\n"
	"  per_step: throughput / 1000\n";

/* The fields and series every Cerebras fixture gives, whatever its
 * line endings and layout (line numbers as in cerebras.log). */
static void check_cerebras(const struct run *r, long offset)
{
	assert_non_null(r);
	const struct datum *d = run_field(r, "batch_size");
	assert_int_equal(d->kind, DATUM_NUMBER);
	assert_true(d->num == 512);
	assert_int_equal(d->line, 1 + offset);
	d = run_field(r, "total_time");
	assert_text(d, "175.070497198");
	assert_int_equal(d->line, 17 + offset);
	d = run_field(r, "first_loss");
	assert_text(d, "9.39062");
	assert_int_equal(d->line, 5 + offset);
	d = run_field(r, "last_loss");
	assert_text(d, "7.12500");
	assert_true(d->num == 7.125);
	assert_int_equal(d->line, 14 + offset);
	const struct series *s = run_series(r, "train");
	assert_non_null(s);
	assert_int_equal(series_row_count(s), 10);
	assert_int_equal(series_column_count(s), 4);
	assert_string_equal(series_column(s, 3), "global_rate");
	assert_cell(s, 0, "step", "100");
	assert_cell(s, 0, "loss", "9.39062");
	assert_cell(s, 9, "loss", "7.12500");
	assert_cell(s, 9, "global_rate", "2924.54");
	assert_true(cell_num(s, 9, "rate") == 2900.63);
	assert_int_equal(series_row_line(s, 0), 5 + offset);
	assert_int_equal(series_row_line(s, 9), 14 + offset);
}

static void cerebras_fields_and_series_keep_text_and_lines(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, cerebras_def, FIX "cerebras.log");
	check_cerebras(r, 0);
	assert_int_equal(run_line_count(r), 17);
	assert_string_equal(cap_text(&c), "");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void timestamps_subtract_to_seconds(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, cerebras_def, FIX "cerebras.log");
	const struct datum *started = run_field(r, "started");
	assert_text(started, "2024-03-30 15:16:16,590");
	assert_int_equal(started->line, 4);
	/* 2024-03-30 is day 19812 of the epoch. */
	assert_true(fabs(started->num - (19812.0 * 86400 + 15 * 3600 + 16 * 60 + 16.59)) < 1e-6);
	const struct datum *wall = run_field(r, "wall");
	assert_int_equal(wall->kind, DATUM_NUMBER);
	assert_true(fabs(wall->num - 247.648) < 1e-6);
	assert_null(wall->text);
	assert_int_equal(wall->line, 0);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void derive_keeps_picked_text_and_computes_in_order(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, cerebras_def, FIX "cerebras.log");
	const struct datum *d = run_field(r, "final_loss");
	assert_text(d, "7.12500");
	assert_int_equal(d->line, 14);
	d = run_field(r, "throughput");
	assert_int_equal(d->kind, DATUM_NUMBER);
	assert_true(fabs(d->num - 512000 / 175.070497198) < 1e-9);
	assert_null(d->text);
	assert_int_equal(d->line, 0);
	/* A derive may use an earlier one. */
	assert_true(fabs(run_field(r, "per_step")->num - 512 / 175.070497198) < 1e-9);
	/* Fields in definition order, then the derives. */
	assert_string_equal(run_field_name(r, 0), "batch_size");
	assert_string_equal(run_field_name(r, 7), "final_loss");
	assert_string_equal(run_field_name(r, 10), "per_step");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void implicit_fields_name_the_run(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, cerebras_def, FIX "cerebras.log");
	assert_text(run_field(r, "name"), "r");
	assert_text(run_field(r, "file"), FIX "cerebras.log");
	assert_text(run_field(r, "parser"), "cs");
	assert_true(run_field(r, "line_count")->num == 17);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void crlf_lines_read_as_lf_lines(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, cerebras_def, FIX "cerebras_crlf.log");
	check_cerebras(r, 0);
	/* No CR left at the end of a value read up to the line's end. */
	assert_text(run_field(r, "ended"), "2024-03-30 15:20:24,238");
	assert_int_equal(run_line_count(r), 17);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void last_line_without_newline_is_read(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, cerebras_def, FIX "cerebras_no_final_newline.log");
	check_cerebras(r, 0);
	assert_int_equal(run_field(r, "samples")->line, 17);
	assert_int_equal(run_line_count(r), 17);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void markdown_indentation_and_fence_are_dropped(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, cerebras_def, FIX "cerebras_markdown.md");
	/* One line of prose first; the fence is glued to the first log line. */
	check_cerebras(r, 1);
	/* '^' anchors at the first visible character of an indented line. */
	assert_text(run_field(r, "started"), "2024-03-30 15:16:16,590");
	assert_int_equal(run_line_count(r), 19);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static const char tqdm_def[] =
	"name: tq\n"
	"fields:\n"
	"  epochs: 'Epochs:\\s+\\d+%\\|[^|]*\\|\\s*(\\d+)/\\d+'\n"
	"  bar_start: { pattern: '^(Epochs:\\s+\\d+%)', pick: first }\n"
	"  per_epoch: { pattern: '\\[[\\d:]+<[\\d:]+,\\s*([\\d.]+s)/it\\]', type: duration }\n"
	"  training_time: { pattern: 'Epochs: 100%.*\\[([\\d:]+)<', type: duration }\n"
	"  accuracy: 'Accuracy on test set: ([\\d.]+%)'\n"
	"  warned_at: { pattern: '^(\\[[\\d:.]+\\]) \\[poptorch:cpp\\]', type: timestamp }\n"
	"  failed_at: { pattern: '^(\\[[\\d:.]+\\]) \\[poptorch::python\\]', type: timestamp }\n"
	"  popart: { pattern: '(\\d{4}-\\S+Z) popart:session', type: timestamp }\n";

static void check_tqdm(const struct run *r)
{
	assert_non_null(r);
	/* Line 2 was rewritten three times: only the last state counts. */
	const struct datum *d = run_field(r, "epochs");
	assert_text(d, "10");
	assert_int_equal(d->line, 2);
	d = run_field(r, "bar_start");
	assert_text(d, "Epochs: 100%");
	assert_int_equal(d->line, 2);
	d = run_field(r, "per_epoch");
	assert_text(d, "10.99s");
	assert_true(d->num == 10.99);
	d = run_field(r, "training_time");
	assert_text(d, "01:49");
	assert_true(d->num == 109);
	/* Line 4: the last segment is blanks; the one before it counts. */
	d = run_field(r, "accuracy");
	assert_text(d, "97.13%");
	assert_true(d->num == 97.13);
	assert_int_equal(d->line, 4);
	/* Line 3: a warning written over a bar, anchored at its start. */
	d = run_field(r, "warned_at");
	assert_text(d, "[09:03:32.515]");
	assert_true(fabs(d->num - (9 * 3600 + 3 * 60 + 32.515)) < 1e-9);
	assert_int_equal(d->line, 3);
	d = run_field(r, "failed_at");
	assert_int_equal(d->line, 6);
	assert_true(fabs(d->num - (9 * 3600 + 1 * 60 + 59.258)) < 1e-9);
	/* Line 5: a log line glued behind a finished bar still matches. */
	d = run_field(r, "popart");
	assert_text(d, "2024-04-08T09:03:55.437249Z");
	assert_int_equal(d->line, 5);
	assert_true(fabs(fmod(d->num, 86400) - (9 * 3600 + 3 * 60 + 55.437249)) < 1e-6);
	assert_int_equal(run_line_count(r), 6);
}

static void carriage_return_keeps_the_last_segment(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, tqdm_def, FIX "tqdm_cr.log");
	check_tqdm(r);
	assert_string_equal(cap_text(&c), "");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void literal_caret_m_counts_as_carriage_return(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, tqdm_def, FIX "tqdm_caret_m.log");
	check_tqdm(r);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void cr_keep_lets_a_pattern_see_the_whole_line(void **state)
{
	(void)state;
	static const char def[] = "name: k\n"
				  "cr: keep\n"
				  "fields:\n"
				  "  first_state: '^Epochs:\\s+(\\d+)%'\n"
				  "  cleared: 'Accuracy on test set: ([\\d.]+)%\\r +$'\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, FIX "tqdm_cr.log");
	assert_non_null(r);
	assert_text(run_field(r, "first_state"), "0");
	assert_int_equal(run_field(r, "first_state")->line, 3);
	assert_text(run_field(r, "cleared"), "97.13");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void durations_read_as_seconds(void **state)
{
	(void)state;
	static const char def[] = "name: d\n"
				  "fields:\n"
				  "  '*': { pattern: '^(?<name>\\w+) = (?<value>.*)$', type: duration }\n";
	static const char log[] = "mmss = 01:49\n"
				  "hms = 1:02:03\n"
				  "secs = 10.99s\n"
				  "frac = 1:49.5\n"
				  "units = 1h 2m 3.5s\n"
				  "ms = 150ms\n"
				  "days = 2 days, 1:02:03\n"
				  "plain = 42\n";
	char *dir = make_tmpdir();
	char *path = path_join(dir, "d.log");
	write_file(path, log, strlen(log));
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, path);
	assert_non_null(r);
	static const struct {
		const char *name;
		double seconds;
	} want[] = {{"mmss", 109},      {"hms", 3723}, {"secs", 10.99},       {"frac", 109.5},
		    {"units", 3723.5}, {"ms", 0.15},  {"days", 2 * 86400.0 + 3723}, {"plain", 42}};
	for (size_t i = 0; i < ARRAY_LEN(want); i++) {
		const struct datum *d = run_field(r, want[i].name);
		assert_non_null(d);
		assert_int_equal(d->kind, DATUM_NUMBER);
		if (fabs(d->num - want[i].seconds) > 1e-9)
			fail_msg("%s: %.17g, wanted %.17g", want[i].name, d->num, want[i].seconds);
		assert_int_equal(d->line, (long)i + 1);
	}
	assert_text(run_field(r, "mmss"), "01:49");
	assert_string_equal(cap_text(&c), "");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
	free(path);
	drop_tmpdir(dir);
}

static void a_value_not_of_its_type_is_a_warning(void **state)
{
	(void)state;
	static const char def[] = "name: d\n"
				  "fields:\n"
				  "  when: { pattern: 'srun: job (\\d+)', type: timestamp }\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, FIX "tqdm_cr.log");
	assert_non_null(r);
	assert_int_equal(run_field(r, "when")->kind, DATUM_NUMBER);
	assert_string_equal(cap_text(&c),
			    FIX "tqdm_cr.log:1: warning: field 'when' is a timestamp, but '20702' is "
				"not one; kept as text\n"
				"    1 | srun: job 20702 has been allocated resources\n");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void a_column_not_of_its_type_is_warned_once(void **state)
{
	(void)state;
	static const char def[] =
		"name: d\n"
		"series:\n"
		"  times:\n"
		"    pattern: '^(?<at>\\S+ \\S+) INFO:\\s+(?<what>\\w+)'\n"
		"    types: { at: duration, what: string }\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, FIX "cerebras.log");
	assert_non_null(r);
	const struct series *t = run_series(r, "times");
	assert_int_equal(series_row_count(t), 7);
	struct datum d;
	series_cell(t, 0, 0, &d);
	assert_int_equal(d.kind, DATUM_STRING);
	assert_string_equal(cap_text(&c),
			    FIX "cerebras.log:1: warning: column 'at' of series 'times' is a duration, "
				"but '2024-03-30 14:09:43,663' is not one; kept as text\n"
				"    1 | 2024-03-30 14:09:43,663 INFO:   Effective batch size is 512.\n");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

/* Runs the definition over a log written from text; the run, the
 * diagnostics in c (closed by the caller), the log at *path. */
static struct run *run_text(struct capture *c, struct parser_set **set, const char *yaml,
			    const char *text, char **dir, char **path)
{
	*dir = make_tmpdir();
	*path = path_join(*dir, "p.log");
	write_file(*path, text, strlen(text));
	return run_def(c, set, yaml, *path);
}

static void done_text(struct capture *c, struct parser_set *set, struct run *r, char *dir,
		      char *path)
{
	run_free(r);
	parsers_free(set);
	cap_close(c);
	free(path);
	drop_tmpdir(dir);
}

static void assert_num(const struct datum *d, double want)
{
	assert_non_null(d);
	assert_int_equal(d->kind, DATUM_NUMBER);
	if (fabs(d->num - want) > 1e-9 * fmax(1, fabs(want)))
		fail_msg("%.17g, wanted %.17g", d->num, want);
}

/* perf stat under a German locale. */
static const char perf_de_log[] =
	" Performance counter stats for './train':\n"
	"\n"
	"         12.345,67 msec task-clock                #    0,987 CPUs utilized\n"
	"             1.234      context-switches          #    0,100 K/sec\n"
	"     3.456.789.012      cycles                    #    2,800 GHz\n"
	"     2.345.678.901      instructions              #    0,68  insn per cycle\n"
	"\n"
	"       1,250000000 seconds time elapsed\n";

static const char perf_de_def[] =
	"name: perf-de\n"
	"number_style: {decimal: ',', thousands: '.'}\n"
	"fields:\n"
	"  task_clock: { pattern: '^(\\S+ msec) task-clock', type: number }\n"
	"  switches: '^(\\S+)\\s+context-switches'\n"
	"  cycles: '^(\\S+)\\s+cycles'\n"
	"  ipc: '#\\s+(\\S+)\\s+insn per cycle'\n"
	"  utilized: '#\\s+(\\S+) CPUs utilized'\n"
	"  elapsed: { pattern: '^(\\S+ seconds) time elapsed', type: duration }\n";

static void number_style_reads_perf_stat_under_a_german_locale(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, perf_de_def, perf_de_log, &dir, &path);
	assert_non_null(r);
	assert_num(run_field(r, "task_clock"), 12345.67);
	assert_text(run_field(r, "task_clock"), "12.345,67 msec");
	assert_num(run_field(r, "switches"), 1234);
	assert_num(run_field(r, "cycles"), 3456789012.0);
	assert_text(run_field(r, "cycles"), "3.456.789.012");
	assert_num(run_field(r, "ipc"), 0.68);
	assert_num(run_field(r, "utilized"), 0.987);
	assert_num(run_field(r, "elapsed"), 1.25);
	assert_int_equal(run_field(r, "elapsed")->line, 8);
	assert_string_equal(cap_text(&c), "");
	done_text(&c, set, r, dir, path);
}

static void a_number_not_in_the_number_style_is_a_warning(void **state)
{
	(void)state;
	static const char def[] =
		"name: d\n"
		"number_style: {decimal: ','}\n"
		"fields:\n"
		"  ipc: '(\\S+) insn per cycle'\n"
		"  ghz: { pattern: '(\\S+ GHz)', type: number }\n"
		"series:\n"
		"  steps: 'step (?<step>\\d+) loss (?<loss>\\S+)'\n";
	static const char log[] = "0.68 insn per cycle\n"
				  "2,800 GHz\n"
				  "step 1 loss 0,5\n"
				  "step 2 loss 0.25\n"
				  "step 3 loss 0.125\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def, log, &dir, &path);
	assert_non_null(r);
	/* Kept as text, never read as 68 nor as 0.68. */
	assert_int_equal(run_field(r, "ipc")->kind, DATUM_STRING);
	assert_text(run_field(r, "ipc"), "0.68");
	assert_num(run_field(r, "ghz"), 2.8);
	const struct series *t = run_series(r, "steps");
	assert_true(cell_num(t, 0, "loss") == 0.5);
	struct datum d;
	series_cell(t, 1, 1, &d);
	assert_int_equal(d.kind, DATUM_STRING);
	char *want = xasprintf(
		"%s:4: warning: column 'loss' of series 'steps': '0.25' is not a number in the "
		"parser's number_style (decimal ',', thousands '.'); kept as text\n"
		"    4 | step 2 loss 0.25\n"
		"%s:1: warning: field 'ipc': '0.68' is not a number in the parser's number_style "
		"(decimal ',', thousands '.'); kept as text\n"
		"    1 | 0.68 insn per cycle\n",
		path, path);
	assert_string_equal(cap_text(&c), want);
	free(want);
	done_text(&c, set, r, dir, path);
}

static void number_style_is_checked_at_its_place(void **state)
{
	(void)state;
	expect_def_errors("number_style: {decimal: ',', thousand: '.'}\n",
			  "p.yaml:1:30: error: unknown key 'thousand' in number_style (did you "
			  "mean 'thousands'?)\n"
			  "    1 | number_style: {decimal: ',', thousand: '.'}\n"
			  "      |                              ^~~~~~~~\n");
	expect_def_errors("number_style: {decimal: ';'}\n",
			  "p.yaml:1:25: error: the decimal mark is '.' or ',', not ';'\n"
			  "    1 | number_style: {decimal: ';'}\n"
			  "      |                         ^~~\n");
	expect_def_errors("number_style: {decimal: ',', thousands: ','}\n",
			  "p.yaml:1:41: error: the thousands separator ',' is the decimal mark "
			  "too: 12,345 would read two ways\n"
			  "    1 | number_style: {decimal: ',', thousands: ','}\n"
			  "      |                                         ^~~\n");
	expect_def_errors("number_style: {thousands: _}\n",
			  "p.yaml:1:27: error: the thousands separator is ',', '.', ' ', \"'\" or "
			  "none, not '_'\n"
			  "    1 | number_style: {thousands: _}\n"
			  "      |                           ^\n");
	expect_def_errors("number_style: de\n",
			  "p.yaml:1:15: error: number_style is a map such as {decimal: ',', "
			  "thousands: '.'}, not a string\n"
			  "    1 | number_style: de\n"
			  "      |               ^~\n");
	expect_def_errors("format: csv\n"
			  "number_style: {decimal: ','}\n",
			  "p.yaml:2:1: error: parser 'p' reads csv, whose numbers are read as the "
			  "format writes them: number_style is for text logs\n"
			  "    2 | number_style: {decimal: ','}\n"
			  "      | ^~~~~~~~~~~~\n");
	/* delimiter, columns and header are CSV's. */
	expect_def_errors("delimiter: '|'\n",
			  "p.yaml:1:1: error: parser 'p' reads text: delimiter, columns and header "
			  "are for CSV files (format: csv)\n"
			  "    1 | delimiter: '|'\n"
			  "      | ^~~~~~~~~\n");
	expect_def_errors("format: csv\ncolumns: [a, B]\n",
			  "p.yaml:2:14: error: 'B' in columns in parser 'p' is not a column name; "
			  "write 'b'\n"
			  "    2 | columns: [a, B]\n"
			  "      |              ^\n");
}

static void numbers_with_units_keep_their_text(void **state)
{
	(void)state;
	static const char def[] =
		"name: d\n"
		"fields:\n"
		"  used: { pattern: 'used: (.*)', type: number }\n"
		"  power: { pattern: 'power: (.*)', type: number }\n"
		"  plain: 'used: (.*)'\n"
		"series:\n"
		"  bw:\n"
		"    pattern: 'size (?<size>\\S+) bw (?<bw>.*)'\n"
		"    types: { bw: number }\n";
	static const char log[] = "used: 12345 MiB\n"
				  "power: 300.5 W\n"
				  "size 1.5K bw 3.2 GB/s\n"
				  "size 2K bw 512.0ms\n"
				  "size 3K bw fast\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def, log, &dir, &path);
	assert_non_null(r);
	assert_num(run_field(r, "used"), 12345);
	assert_text(run_field(r, "used"), "12345 MiB");
	assert_num(run_field(r, "power"), 300.5);
	/* Untyped, a number with a unit is text as before. */
	assert_int_equal(run_field(r, "plain")->kind, DATUM_STRING);
	const struct series *t = run_series(r, "bw");
	assert_true(cell_num(t, 0, "bw") == 3.2);
	assert_cell(t, 0, "bw", "3.2 GB/s");
	assert_true(cell_num(t, 1, "bw") == 512);
	assert_cell(t, 0, "size", "1.5K");
	char *want = xasprintf("%s:5: warning: column 'bw' of series 'bw' is a number, but "
			       "'fast' is not one; kept as text\n"
			       "    5 | size 3K bw fast\n",
			       path);
	assert_string_equal(cap_text(&c), want);
	free(want);
	done_text(&c, set, r, dir, path);
}

static void a_bad_duration_is_a_warning(void **state)
{
	(void)state;
	static const char def[] = "name: d\n"
				  "fields:\n"
				  "  elapsed: { pattern: 'Elapsed=(\\S+)', type: duration }\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def, "JobId=7 Elapsed=1-25:00:00\n", &dir, &path);
	assert_non_null(r);
	assert_int_equal(run_field(r, "elapsed")->kind, DATUM_STRING);
	char *want = xasprintf("%s:1: warning: field 'elapsed' is a duration, but '1-25:00:00' "
			       "is not one; kept as text\n"
			       "    1 | JobId=7 Elapsed=1-25:00:00\n",
			       path);
	assert_string_equal(cap_text(&c), want);
	free(want);
	done_text(&c, set, r, dir, path);
	r = run_text(&c, &set, def, "JobId=7 Elapsed=1-02:03:04\n", &dir, &path);
	assert_num(run_field(r, "elapsed"), 93784);
	assert_text(run_field(r, "elapsed"), "1-02:03:04");
	assert_string_equal(cap_text(&c), "");
	done_text(&c, set, r, dir, path);
}

static const char gpu_table_log[] =
	"GPU memory\n"
	"| gpu | memory used | power | state |\n"
	"|-----|-------------|-------|-------|\n"
	"| 0   | 12345 MiB   | 300 W | ok    |\n"
	"| 1   | 2048 MiB    | n/a   | 7     |\n"
	"| 2   | lots        | 250 W | ok    |\n";

static void table_types_type_its_columns(void **state)
{
	(void)state;
	static const char def[] = "name: d\n"
				  "tables:\n"
				  "  gpus:\n"
				  "    header: '^GPU memory'\n"
				  "    types: { memory_used: number, power: number, state: string }\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def, gpu_table_log, &dir, &path);
	assert_non_null(r);
	const struct series *t = run_series(r, "gpus");
	assert_int_equal(series_row_count(t), 3);
	assert_true(cell_num(t, 0, "memory_used") == 12345);
	assert_cell(t, 0, "memory_used", "12345 MiB");
	assert_true(cell_num(t, 1, "memory_used") == 2048);
	assert_true(cell_num(t, 0, "power") == 300);
	struct datum d;
	series_cell(t, 1, 2, &d);
	assert_int_equal(d.kind, DATUM_MISSING);
	series_cell(t, 1, 3, &d);
	assert_int_equal(d.kind, DATUM_STRING); /* "7", typed as a string */
	series_cell(t, 2, 1, &d);
	assert_int_equal(d.kind, DATUM_STRING);
	char *want = xasprintf("%s:6: warning: column 'memory_used' of table 'gpus' is a number, "
			       "but 'lots' is not one; kept as text\n"
			       "    6 | | 2   | lots        | 250 W | ok    |\n",
			       path);
	assert_string_equal(cap_text(&c), want);
	free(want);
	done_text(&c, set, r, dir, path);
}

static void table_types_name_a_missing_column_once(void **state)
{
	(void)state;
	static const char def[] = "name: d\n"
				  "tables:\n"
				  "  gpus: { header: '^GPU memory', types: { memory: number } }\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def, gpu_table_log, &dir, &path);
	assert_non_null(r);
	char *want = xasprintf("%s:2: warning: table 'gpus' has no column 'memory' to type (its "
			       "columns: gpu, memory_used, power, state)\n"
			       "    2 | | gpu | memory used | power | state |\n",
			       path);
	assert_string_equal(cap_text(&c), want);
	free(want);
	done_text(&c, set, r, dir, path);
	expect_def_errors("tables:\n"
			  "  gpus: { header: '^GPU', types: { memory: numbr } }\n",
			  "p.yaml:2:44: error: unknown type 'numbr' (did you mean 'number'?)\n"
			  "    2 |   gpus: { header: '^GPU', types: { memory: numbr } }\n"
			  "      |                                            ^~~~~\n");
	expect_def_errors("tables:\n"
			  "  gpus: { header: '^GPU', typs: { memory: number } }\n",
			  "p.yaml:2:27: error: unknown key 'typs' in table 'gpus' (did you mean "
			  "'types'?)\n"
			  "    2 |   gpus: { header: '^GPU', typs: { memory: number } }\n"
			  "      |                           ^~~~\n");
}

/* duration_ns, _us and _ms read a duration into that unit, exactly as
 * a reader scales it: 814.13us is 814130 ns, not 814130.0000000001. */
static void durations_read_into_a_unit_exactly(void **state)
{
	(void)state;
	static const char def[] = "name: d\n"
				  "fields:\n"
				  "  avg: { pattern: '^avg = (.*)', type: duration_ns }\n"
				  "  total: { pattern: '^total = (.*)', type: duration_ns }\n"
				  "  small: { pattern: '^small = (.*)', type: duration_ns }\n"
				  "  mmss: { pattern: '^mmss = (.*)', type: duration_ns }\n"
				  "  plain: { pattern: '^plain = (.*)', type: duration_ns }\n"
				  "  ms: { pattern: '^ms = (.*)', type: duration_ms }\n"
				  "  us: { pattern: '^us = (.*)', type: duration_us }\n"
				  "  hours: { pattern: '^hours = (.*)', type: duration_ms }\n"
				  "  bad: { pattern: '^bad = (.*)', type: duration_us }\n";
	static const char log[] = "avg = 814.13us\n"
				  "total = 13.6773s\n"
				  "small = 680ns\n"
				  "mmss = 01:49\n"
				  "plain = 42\n"
				  "ms = 1.5 s\n"
				  "us = 2.2629ms\n"
				  "hours = 1h 2m 3.5s\n"
				  "bad = soon\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def, log, &dir, &path);
	assert_non_null(r);
	static const struct {
		const char *name;
		double num;
	} want[] = {{"avg", 814130},     {"total", 13677300000}, {"small", 680},
		    {"mmss", 109e9},     {"plain", 42},          {"ms", 1500},
		    {"us", 2262.9},      {"hours", 3723500}};
	for (size_t i = 0; i < ARRAY_LEN(want); i++) {
		const struct datum *d = run_field(r, want[i].name);
		assert_non_null(d);
		assert_int_equal(d->kind, DATUM_NUMBER);
		/* exactly: the double a reader's number is */
		if (d->num != want[i].num)
			fail_msg("%s: %.17g, wanted %.17g", want[i].name, d->num, want[i].num);
	}
	assert_text(run_field(r, "avg"), "814.13us");
	char *msg = xasprintf("%s:9: warning: field 'bad' is a duration_us, but 'soon' is not one; "
			      "kept as text\n"
			      "    9 | bad = soon\n",
			      path);
	assert_string_equal(cap_text(&c), msg);
	free(msg);
	done_text(&c, set, r, dir, path);
}

/* Two releases of one report: their header cells differ, the columns
 * get the names columns: gives them (a cell as printed or in
 * snake_case); cells it does not name keep theirs. */
static const char releases_def[] =
	"name: d\n"
	"tables:\n"
	"  kernels:\n"
	"    header: '^Kernels'\n"
	"    columns:\n"
	"      total_ns: [Total Time (ns), total_time]\n"
	"      calls: [instances, Num Calls]\n"
	"      avg_ns: Average\n"
	"    types: { total_ns: number }\n";

static void table_columns_name_cells_alike_across_releases(void **state)
{
	(void)state;
	static const char old_log[] = "Kernels\n"
				      "Total Time  Instances  Average  Name\n"
				      "----------  ---------  -------  ----\n"
				      "      1200          3    400.0  k1\n";
	static const char new_log[] = "Kernels\n"
				      "Total Time (ns)  Num Calls  Avg (ns)  Name\n"
				      "---------------  ---------  --------  ----\n"
				      "          1,500          5     300.0  k2\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, releases_def, old_log, &dir, &path);
	assert_non_null(r);
	const struct series *t = run_series(r, "kernels");
	assert_int_equal(series_column_count(t), 4);
	assert_string_equal(series_column(t, 0), "total_ns");
	assert_string_equal(series_column(t, 1), "calls");
	assert_string_equal(series_column(t, 2), "avg_ns");
	assert_string_equal(series_column(t, 3), "name");
	assert_true(cell_num(t, 0, "total_ns") == 1200);
	assert_true(cell_num(t, 0, "avg_ns") == 400);
	assert_string_equal(cap_text(&c), "");
	done_text(&c, set, r, dir, path);

	r = run_text(&c, &set, releases_def, new_log, &dir, &path);
	assert_non_null(r);
	t = run_series(r, "kernels");
	assert_string_equal(series_column(t, 0), "total_ns");
	assert_string_equal(series_column(t, 1), "calls");
	/* Avg (ns) is avg_ns already: its own name needs no alias. */
	assert_string_equal(series_column(t, 2), "avg_ns");
	assert_true(cell_num(t, 0, "total_ns") == 1500);
	assert_true(cell_num(t, 0, "calls") == 5);
	assert_cell(t, 0, "name", "k2");
	/* The header's own name is gone: one name a column. */
	assert_true(series_column_index(t, "total_time_ns") < 0);
	assert_string_equal(cap_text(&c), "");
	done_text(&c, set, r, dir, path);
}

static void table_columns_are_checked_at_their_place(void **state)
{
	(void)state;
	expect_def_errors("tables:\n"
			  "  k: { header: '^K', column: { total_ns: total_time } }\n",
			  "p.yaml:2:22: error: unknown key 'column' in table 'k' (did you mean "
			  "'columns'?)\n"
			  "    2 |   k: { header: '^K', column: { total_ns: total_time } }\n"
			  "      |                      ^~~~~~\n");
	expect_def_errors("tables:\n"
			  "  k: { header: '^K', columns: { Avg NS: average } }\n",
			  "p.yaml:2:33: error: 'Avg NS' in the columns of table 'k' is not a column "
			  "name; write 'avg_ns'\n"
			  "    2 |   k: { header: '^K', columns: { Avg NS: average } }\n"
			  "      |                                 ^~~~~~\n");
	expect_def_errors("tables:\n"
			  "  k: { header: '^K', columns: { calls: count, total: [Count] } }\n",
			  "p.yaml:2:55: error: header cell 'count' names two columns of table 'k': "
			  "'calls' and 'total'\n"
			  "    2 |   k: { header: '^K', columns: { calls: count, total: [Count] } }\n"
			  "      |                                                       ^~~~~\n");
	expect_def_errors("tables:\n"
			  "  k: { header: '^K', columns: { calls: count, count: num } }\n",
			  "p.yaml:2:40: error: header cell 'count' names two columns of table 'k': "
			  "'count' and 'calls'\n"
			  "    2 |   k: { header: '^K', columns: { calls: count, count: num } }\n"
			  "      |                                        ^~~~~\n");
	expect_def_errors("tables:\n"
			  "  k: { header: '^K', columns: { calls: [] } }\n",
			  "p.yaml:2:40: error: column 'calls' of table 'k' lists no header cell: "
			  "write the cells that give it its name\n"
			  "    2 |   k: { header: '^K', columns: { calls: [] } }\n"
			  "      |                                        ^~\n");
	expect_def_errors("tables:\n"
			  "  k: { header: '^K', columns: { calls: { a: b } } }\n",
			  "p.yaml:2:40: error: column 'calls' of table 'k' is named from a header "
			  "cell or a list of them, not a map\n"
			  "    2 |   k: { header: '^K', columns: { calls: { a: b } } }\n"
			  "      |                                        ^~~~~~~~\n");
	expect_def_errors("tables:\n"
			  "  k: { header: '^K', columns: [calls] }\n",
			  "p.yaml:2:31: error: the columns of a table must be a map of names, not "
			  "a list\n"
			  "    2 |   k: { header: '^K', columns: [calls] }\n"
			  "      |                               ^~~~~~~\n");
	expect_def_errors("tables:\n"
			  "  k: { header: '^K', columns: { calls: count }, types: { count: number } }\n",
			  "p.yaml:2:58: error: table 'k' calls the header cell 'count' 'calls' (its "
			  "columns); types names it so\n"
			  "    2 |   k: { header: '^K', columns: { calls: count }, types: { count: "
			  "number } }\n"
			  "      |                                                          ^~~~~\n");
}

/* A table and a series of one name fill one series from whichever a
 * file holds (Nsight Systems' tables, nvprof's lines); they must give
 * the same names. */
static void table_and_series_of_one_name_must_agree(void **state)
{
	(void)state;
	expect_def_errors("series:\n"
			  "  results: 'a=(?<a>\\d)'\n"
			  "tables:\n"
			  "  results: '\\| Source'\n",
			  "p.yaml:4:3: error: table 'results' has the name of a series: to fill one "
			  "series from whichever a file holds, give the table columns: naming the "
			  "series' columns (a); else name it differently\n"
			  "    4 |   results: '\\| Source'\n"
			  "      |   ^~~~~~~\n");
	expect_def_errors("series:\n"
			  "  kernels: 'k (?<total_s>\\d+) (?<name>\\w+)'\n"
			  "tables:\n"
			  "  kernels: { header: '^K', columns: { total_ns: total, name: Name } }\n",
			  "p.yaml:2:3: error: series 'kernels' has the name of a table, whose "
			  "columns: do not name its column 'total_s' (did you mean 'total_ns'?)\n"
			  "    2 |   kernels: 'k (?<total_s>\\d+) (?<name>\\w+)'\n"
			  "      |   ^~~~~~~\n");
}

static const char shared_def[] =
	"name: d\n"
	"tables:\n"
	"  kernels:\n"
	"    header: '^Kernels'\n"
	"    columns: { total_ns: [Total Time], name: Name }\n"
	"series:\n"
	"  kernels:\n"
	"    pattern: '^kernel (?<name>\\w+) took (?<total_ns>\\S+)'\n"
	"    types: { total_ns: duration_ns }\n";

static void table_or_series_fills_one_name(void **state)
{
	(void)state;
	static const char table_log[] = "Kernels\n"
					"Total Time  Calls  Name\n"
					"----------  -----  ----\n"
					"      1200      3  k1\n";
	static const char series_log[] = "kernel k2 took 1.5us\n"
					 "kernel k3 took 20ns\n";
	static const char both_log[] = "kernel k2 took 1.5us\n"
				       "Kernels\n"
				       "Total Time  Calls  Name\n"
				       "----------  -----  ----\n"
				       "      1200      3  k1\n";
	static const char neither_log[] = "nothing here\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, shared_def, table_log, &dir, &path);
	assert_non_null(r);
	const struct series *t = run_series(r, "kernels");
	assert_int_equal(series_row_count(t), 1);
	assert_int_equal(series_column_count(t), 3);
	assert_string_equal(series_column(t, 1), "calls");
	assert_true(cell_num(t, 0, "total_ns") == 1200);
	assert_cell(t, 0, "name", "k1");
	assert_string_equal(cap_text(&c), "");
	done_text(&c, set, r, dir, path);

	r = run_text(&c, &set, shared_def, series_log, &dir, &path);
	assert_non_null(r);
	t = run_series(r, "kernels");
	assert_int_equal(series_row_count(t), 2);
	assert_true(cell_num(t, 0, "total_ns") == 1500);
	assert_cell(t, 1, "name", "k3");
	assert_int_equal(run_series_count(r), 1);
	assert_string_equal(cap_text(&c), "");
	done_text(&c, set, r, dir, path);

	/* Both: the first keeps the name, the other is left out, said. */
	r = run_text(&c, &set, shared_def, both_log, &dir, &path);
	assert_non_null(r);
	t = run_series(r, "kernels");
	assert_int_equal(series_row_count(t), 1);
	assert_cell(t, 0, "name", "k2");
	/* at the header row, below the title the pattern matched */
	char *want = xasprintf("%s:3: warning: table 'kernels' is here, but series 'kernels' "
			       "filled 'kernels' already (line 1): a file holds one or the other, "
			       "so the table is left out\n"
			       "    3 | Total Time  Calls  Name\n",
			       path);
	assert_string_equal(cap_text(&c), want);
	free(want);
	done_text(&c, set, r, dir, path);

	/* Neither: the series is there, empty, with the series' columns. */
	r = run_text(&c, &set, shared_def, neither_log, &dir, &path);
	assert_non_null(r);
	t = run_series(r, "kernels");
	assert_non_null(t);
	assert_int_equal(series_row_count(t), 0);
	assert_int_equal(series_column_count(t), 2);
	done_text(&c, set, r, dir, path);
}

static void a_series_after_its_table_is_left_out(void **state)
{
	(void)state;
	static const char log[] = "Kernels\n"
				  "Total Time  Calls  Name\n"
				  "----------  -----  ----\n"
				  "      1200      3  k1\n"
				  "\n"
				  "kernel k2 took 1.5us\n"
				  "kernel k3 took 20ns\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, shared_def, log, &dir, &path);
	assert_non_null(r);
	const struct series *t = run_series(r, "kernels");
	assert_int_equal(series_row_count(t), 1);
	assert_cell(t, 0, "name", "k1");
	char *want = xasprintf("%s:6: warning: series 'kernels' matches this line, but table "
			       "'kernels' (line 1) filled 'kernels' already: a file holds one or "
			       "the other, so these rows are left out\n"
			       "    6 | kernel k2 took 1.5us\n",
			       path);
	assert_string_equal(cap_text(&c), want);
	free(want);
	done_text(&c, set, r, dir, path);
}

static const char gtest_def[] =
	"name: gt\n"
	"fields:\n"
	"  ranks: 'Rank \\d+/(\\d+) started'\n"
	"series:\n"
	"  tests: '(?<status>OK|FAILED)\\s*\\]\\s*(?<suite>\\w+)\\.(?<name>\\w+) \\((?<time_ms>\\d+) ms\\)'\n"
	"  started: 'Rank (?<rank>\\d+)/\\d+ started on node (?<node>\\S+)'\n";

static void rank_prefixes_are_stripped_and_copies_skipped(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, gtest_def, FIX "ranks.log");
	assert_non_null(r);
	const struct series *t = run_series(r, "tests");
	/* Rank 1 repeats rank 0's "custom (3719 ms)": skipped.  Its nsys1
	 * took another time: kept.  Rank 0's own repeat on line 13: kept. */
	assert_int_equal(series_row_count(t), 4);
	assert_cell(t, 0, "name", "custom");
	assert_int_equal(series_row_line(t, 0), 7);
	assert_cell(t, 1, "time_ms", "3167");
	assert_int_equal(series_row_line(t, 1), 11);
	assert_cell(t, 2, "time_ms", "3303");
	assert_int_equal(series_row_line(t, 2), 12);
	assert_int_equal(series_row_line(t, 3), 13);
	/* Rows that differ between ranks are all kept. */
	const struct series *s = run_series(r, "started");
	assert_int_equal(series_row_count(s), 2);
	assert_cell(s, 0, "rank", "1");
	assert_cell(s, 1, "rank", "2");
	assert_text(run_field(r, "ranks"), "4");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void srun_labels_are_stripped(void **state)
{
	(void)state;
	static const char def[] = "name: gt\n"
				  "fields:\n"
				  "  first: { pattern: '^(\\[=+\\] Running \\d+ tests)', pick: first }\n"
				  "series:\n"
				  "  tests: '^\\[\\s+OK \\] (?<test>\\S+) \\((?<time_ms>\\d+) ms\\)'\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, FIX "srun_labels.log");
	assert_non_null(r);
	assert_text(run_field(r, "first"), "[==========] Running 7 tests");
	const struct series *t = run_series(r, "tests");
	assert_int_equal(series_row_count(t), 2);
	assert_cell(t, 0, "test", "gtestTrain.custom");
	assert_int_equal(series_row_line(t, 0), 7);
	assert_cell(t, 1, "test", "gtestProfile.nsys1");
	assert_int_equal(series_row_line(t, 1), 11);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void invalid_utf8_is_just_bytes(void **state)
{
	(void)state;
	static const char def[] = "name: u\n"
				  "fields:\n"
				  "  accuracy: 'Accuracy on test set: (\\S+)'\n"
				  "  compile: 'Graph compilation: (\\d+)%'\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, FIX "invalid_utf8.log");
	assert_non_null(r);
	const struct datum *d = run_field(r, "accuracy");
	assert_text(d, "98.07%\xc3");
	assert_int_equal(d->kind, DATUM_STRING);
	assert_int_equal(d->line, 2);
	assert_text(run_field(r, "compile"), "100");
	assert_string_equal(cap_text(&c), "");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void fields_pick_group_by_number_or_name(void **state)
{
	(void)state;
	static const char def[] =
		"name: g\n"
		"fields:\n"
		"  global: { pattern: 'Rate=([\\d.]+) samples/sec, GlobalRate=([\\d.]+)', group: 2 }\n"
		"  whole: { pattern: 'Step=\\d+', group: 0, pick: first }\n"
		"  named: { pattern: 'Loss=(?<loss>[\\d.]+), Rate=(?<rate>[\\d.]+)', group: rate }\n"
		"  nogroups: { pattern: 'Device=\\w+', pick: first }\n"
		"  either: { pattern: 'Step=(1000)|Loss=(9.39062)', pick: first }\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, FIX "cerebras.log");
	assert_non_null(r);
	assert_text(run_field(r, "global"), "2924.54");
	assert_text(run_field(r, "whole"), "Step=100");
	assert_text(run_field(r, "named"), "2900.63");
	assert_text(run_field(r, "nogroups"), "Device=CSX");
	/* The first group that took part. */
	assert_text(run_field(r, "either"), "9.39062");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void unmatched_fields_are_missing_or_default(void **state)
{
	(void)state;
	static const char def[] = "name: g\n"
				  "fields:\n"
				  "  failed: { pattern: '(\\d+) FAILED TESTS', default: 0 }\n"
				  "  error: 'Traceback: (.*)'\n"
				  "  batch: 'batch size is (\\d+)'\n"
				  "series:\n"
				  "  evals: 'eval_loss=(?<loss>\\S+)'\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, FIX "cerebras.log");
	assert_non_null(r);
	const struct datum *d = run_field(r, "failed");
	assert_int_equal(d->kind, DATUM_NUMBER);
	assert_true(d->num == 0);
	assert_int_equal(d->line, 0);
	d = run_field(r, "error");
	assert_int_equal(d->kind, DATUM_MISSING);
	assert_null(d->text);
	/* A declared series exists without rows. */
	assert_int_equal(series_row_count(run_series(r, "evals")), 0);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void star_field_names_fields_by_a_group(void **state)
{
	(void)state;
	/* Seed 000: two runs' numbers pasted as a Markdown list. */
	static const char def[] =
		"name: kv\n"
		"fields:\n"
		"  '*': '^- (?<name>\\w+): (?<value>\\S+)'\n"
		"  first_loss: { pattern: 'final_loss: (\\S+)', pick: first }\n";
	static const char firsts[] = "name: kv\n"
				     "fields:\n"
				     "  '*':\n"
				     "    pattern: '^- (?<name>\\w+_time): (?<value>\\S+)'\n"
				     "    pick: first\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, FIX "sambanova_list.md");
	assert_non_null(r);
	/* Names in first-seen order, the last value of each winning. */
	assert_int_equal(run_field_count(r), 5);
	assert_string_equal(run_field_name(r, 0), "e2e_train_time");
	assert_string_equal(run_field_name(r, 3), "training_samples_per_second");
	assert_string_equal(run_field_name(r, 4), "first_loss");
	const struct datum *d = run_field(r, "e2e_train_time");
	assert_text(d, "440.9703402519226");
	assert_int_equal(d->line, 7);
	assert_text(run_field(r, "final_loss"), "8.30881118774414");
	assert_text(run_field(r, "first_loss"), "8.254524230957031");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
	/* pick: first keeps the first value of each name. */
	r = run_def(&c, &set, firsts, FIX "sambanova_list.md");
	assert_non_null(r);
	d = run_field(r, "e2e_train_time");
	assert_text(d, "455.2987697124481");
	assert_int_equal(d->line, 2);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

/* A field declared by name that matched nothing leaves the '*' field's
 * value of its name, wherever it is declared (it used to hide it); when
 * both matched, the later in the definition wins. */
static void an_unmatched_explicit_field_keeps_the_star_value(void **state)
{
	(void)state;
	static const char def[] = "name: kv\n"
				  "fields:\n"
				  "  speed: 'speed is (\\S+)'\n"
				  "  '*': '^(?<name>\\w+): (?<value>\\S+)$'\n"
				  "  loss: 'the loss is (\\S+)'\n"
				  "  rate: { pattern: 'rate was (\\S+)', default: 0 }\n"
				  "  acc: 'acc of (\\S+)'\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def,
				 "speed: 12\n"      /* 1 */
				 "loss: 0.5\n"      /* 2 */
				 "rate: 7\n"        /* 3 */
				 "acc: 0.9\n"       /* 4 */
				 "acc of 0.95\n",   /* 5 */
				 &dir, &path);
	assert_non_null(r);
	const struct datum *d = run_field(r, "speed");
	assert_text(d, "12");
	assert_int_equal(d->line, 1);
	d = run_field(r, "loss");
	assert_text(d, "0.5");
	assert_int_equal(d->line, 2);
	/* A '*' value beats a default: the default is for nothing found. */
	d = run_field(r, "rate");
	assert_text(d, "7");
	assert_int_equal(d->line, 3);
	/* Both matched: acc, declared after '*', wins. */
	d = run_field(r, "acc");
	assert_text(d, "0.95");
	assert_int_equal(d->line, 5);
	assert_string_equal(cap_text(&c), "");
	done_text(&c, set, r, dir, path);
}

/* pick: sum adds up every match (one match keeps its text and line),
 * pick: count counts them (0 when none); a value that is not a number is
 * left out of the sum, with a warning at its line. */
static void pick_sum_and_count_take_every_match(void **state)
{
	(void)state;
	static const char def[] = "name: t\n"
				  "fields:\n"
				  "  passed: { pattern: 'PASSED +\\] (\\S+) tests?\\.', pick: sum }\n"
				  "  runs: { pattern: 'Running \\d+ tests?', pick: count }\n"
				  "  once: { pattern: 'DISABLED (\\d+)', pick: sum }\n"
				  "  crashes: { pattern: 'Segmentation fault', pick: count }\n"
				  "  none: { pattern: 'never (\\d+)', pick: sum }\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def,
				 "[==========] Running 1 test\n" /* 1 */
				 "[  PASSED  ] 1 test.\n"        /* 2 */
				 "[==========] Running 2 tests\n" /* 3 */
				 "[  PASSED  ] 2 tests.\n"       /* 4 */
				 "DISABLED 3\n"                  /* 5 */
				 "[  PASSED  ] some tests.\n"    /* 6 */
				 "[==========] Running 4 tests\n" /* 7 */
				 "[  PASSED  ] 1,024 tests.\n",  /* 8 */
				 &dir, &path);
	assert_non_null(r);
	const struct datum *d = run_field(r, "passed");
	assert_num(d, 1027);
	assert_null(d->text);
	assert_int_equal(d->line, 0);
	assert_string_equal(run_field_inputs(r, "passed"), "the sum of 4 matches (lines 2 to 8)");
	d = run_field(r, "runs");
	assert_num(d, 3);
	assert_null(d->text);
	assert_string_equal(run_field_inputs(r, "runs"), "the count of 3 matches (lines 1 to 7)");
	d = run_field(r, "once");
	assert_text(d, "3");
	assert_num(d, 3);
	assert_int_equal(d->line, 5);
	d = run_field(r, "crashes");
	assert_num(d, 0);
	assert_null(d->text);
	assert_int_equal(run_field(r, "none")->kind, DATUM_MISSING);
	char *want = xasprintf("%s:6: warning: field 'passed' adds up its matches, but 'some' is "
			       "not a number; left out of the sum\n"
			       "    6 | [  PASSED  ] some tests.\n",
			       path);
	assert_string_equal(cap_text(&c), want);
	free(want);
	done_text(&c, set, r, dir, path);
}

/* reset: a line it matches starts a sum or a count again (gtest's
 * --gtest_repeat prints each iteration's banner after such a line); a
 * reset with no sum or count to reset is an error at its key. */
static void a_reset_line_starts_a_sum_again(void **state)
{
	(void)state;
	static const char def[] =
		"name: t\n"
		"fields:\n"
		"  passed: { pattern: 'PASSED +\\] (\\d+) tests?\\.', pick: sum,\n"
		"            reset: '^Repeating all tests' }\n"
		"  runs: { pattern: 'Running \\d+ tests?', pick: count, reset: '^Repeating' }\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def,
				 "Repeating all tests (iteration 1) . . .\n" /* 1 */
				 "[==========] Running 2 tests\n"            /* 2 */
				 "[  PASSED  ] 2 tests.\n"                   /* 3 */
				 "Repeating all tests (iteration 2) . . .\n" /* 4 */
				 "[==========] Running 2 tests\n"            /* 5 */
				 "[  PASSED  ] 1 test.\n",                   /* 6 */
				 &dir, &path);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct datum *d = run_field(r, "passed");
	assert_text(d, "1");
	assert_int_equal(d->line, 6);
	assert_num(run_field(r, "runs"), 1);
	done_text(&c, set, r, dir, path);
	expect_def_errors("name: t\n"
			  "fields:\n"
			  "  a: { pattern: 'x(\\d)', reset: '^y' }\n",
			  "p.yaml:3:26: error: field 'a': reset starts a sum or a count again; it "
			  "goes with pick: sum or pick: count\n"
			  "    3 |   a: { pattern: 'x(\\d)', reset: '^y' }\n"
			  "      |                          ^~~~~\n");
}

/* A field given as a list of alternatives: the one that matched latest in
 * the file gives the value, on one line the first listed; `value` fixes
 * what a match gives, null making the field missing again. */
static void alternatives_give_the_latest_match_and_fixed_values(void **state)
{
	(void)state;
	static const char def[] =
		"name: s\n"
		"fields:\n"
		"  state:\n"
		"    - { pattern: 'CANCELLED .* DUE TO TIME LIMIT', value: TIMEOUT }\n"
		"    - '(CANCELLED)'\n"
		"    - { pattern: 'oom-kill', value: OUT_OF_MEMORY }\n"
		"    - { pattern: 'queued and waiting', value: PENDING }\n"
		"    - { pattern: 'has been allocated', value: null }\n"
		"  code: [ { pattern: 'exit code (\\d+)', pick: first }, { pattern: 'rc=(\\d+)', default: 0 } ]\n"
		"  limit: { pattern: 'limit', value: 42 }\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def,
				 "srun: job 1 queued and waiting for resources\n" /* 1 */
				 "exit code 3\n"                                  /* 2 */
				 "exit code 4\n"                                  /* 3 */
				 "*** JOB 1 CANCELLED AT now DUE TO TIME LIMIT ***\n" /* 4 */
				 "rc=5 limit\n",                                   /* 5 */
				 &dir, &path);
	assert_non_null(r);
	/* Line 4 matches two alternatives: the first listed wins. */
	const struct datum *d = run_field(r, "state");
	assert_int_equal(d->kind, DATUM_STRING);
	assert_text(d, "TIMEOUT");
	assert_int_equal(d->line, 4);
	d = run_field(r, "code");
	assert_text(d, "5");
	assert_int_equal(d->line, 5);
	d = run_field(r, "limit");
	assert_num(d, 42);
	assert_int_equal(d->line, 5);
	assert_string_equal(cap_text(&c), "");
	done_text(&c, set, r, dir, path);

	r = run_text(&c, &set, def,
		     "srun: job 1 queued and waiting for resources\n"
		     "exit code 3\n"
		     "exit code 4\n",
		     &dir, &path);
	d = run_field(r, "state");
	assert_text(d, "PENDING");
	assert_int_equal(d->line, 1);
	/* pick: first of its alternative: line 2. */
	d = run_field(r, "code");
	assert_text(d, "3");
	assert_int_equal(d->line, 2);
	done_text(&c, set, r, dir, path);

	/* Allocated after being queued: missing again; no code: the default. */
	r = run_text(&c, &set, def,
		     "srun: job 1 queued and waiting for resources\n"
		     "srun: job 1 has been allocated resources\n",
		     &dir, &path);
	assert_int_equal(run_field(r, "state")->kind, DATUM_MISSING);
	d = run_field(r, "code");
	assert_num(d, 0);
	assert_int_equal(d->line, 0);
	done_text(&c, set, r, dir, path);
}

static void pick_value_and_alternatives_are_checked_at_their_place(void **state)
{
	(void)state;
	expect_def_errors("name: t\n"
			  "fields:\n"
			  "  a: { pattern: 'x(\\d)', pick: summ }\n",
			  "p.yaml:3:32: error: unknown pick 'summ' (did you mean 'sum'?)\n"
			  "    3 |   a: { pattern: 'x(\\d)', pick: summ }\n"
			  "      |                                ^~~~\n");
	expect_def_errors(
		"name: t\n"
		"fields:\n"
		"  a: { pattern: 'x', value: [1, 2] }\n"
		"  b: { pattern: 'x(\\d)', value: 1, pick: sum }\n"
		"  '*': { pattern: '(?<name>\\w+)=(?<value>\\d+)', value: 1, pick: count }\n",
		"p.yaml:3:29: error: the value of field 'a' is a number, a string or null (a match "
		"makes it missing), not a list\n"
		"    3 |   a: { pattern: 'x', value: [1, 2] }\n"
		"      |                             ^~~~~~\n"
		"p.yaml:4:42: error: field 'b': a fixed value and pick sum do not go together (the "
		"value is what one match gives); drop one of them\n"
		"    4 |   b: { pattern: 'x(\\d)', value: 1, pick: sum }\n"
		"      |                                          ^~~\n"
		"p.yaml:5:56: error: field '*' reads each value from its group (?<value>...); a fixed "
		"value is for a field declared by name\n"
		"    5 |   '*': { pattern: '(?<name>\\w+)=(?<value>\\d+)', value: 1, pick: count }\n"
		"      |                                                        ^\n"
		"p.yaml:5:65: error: field '*' picks first or last; sum and count are for a field "
		"declared by name\n"
		"    5 |   '*': { pattern: '(?<name>\\w+)=(?<value>\\d+)', value: 1, pick: count }\n"
		"      |                                                                 ^~~~~\n");
	expect_def_errors(
		"name: t\n"
		"fields:\n"
		"  '*': [ '(?<name>\\w+)=(?<value>\\d+)' ]\n"
		"  a: []\n"
		"  b: [ [ 'x' ], { pattern: 'y', default: 1 }, { pattern: 'z', default: 2 } ]\n",
		"p.yaml:3:8: error: field '*' takes one pattern, not a list of alternatives\n"
		"    3 |   '*': [ '(?<name>\\w+)=(?<value>\\d+)' ]\n"
		"      |        ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
		"p.yaml:4:6: error: field 'a' has no alternatives: give it a pattern, or a list of "
		"patterns and {pattern, value} maps\n"
		"    4 |   a: []\n"
		"      |      ^~\n"
		"p.yaml:5:8: error: alternative 1 of field 'b' is a pattern or a map with a pattern, "
		"not a list\n"
		"    5 |   b: [ [ 'x' ], { pattern: 'y', default: 1 }, { pattern: 'z', default: 2 } ]\n"
		"      |        ^~~~~~~\n"
		"p.yaml:5:72: error: field 'b' has a default in an earlier alternative: give it once\n"
		"    5 |   b: [ [ 'x' ], { pattern: 'y', default: 1 }, { pattern: 'z', default: 2 } ]\n"
		"      |                                                                        ^\n");
}

/* Patterns with one literal share its search: each still finds its own
 * lines, a first-pick one switched off does not stop the others. */
static void patterns_sharing_a_literal_each_find_their_lines(void **state)
{
	(void)state;
	static const char def[] = "name: t\n"
				  "fields:\n"
				  "  a: { pattern: '- eval/(?:acc) = (\\S+)', pick: first }\n"
				  "  b: '- eval/(?:loss) = (\\S+)'\n"
				  "series:\n"
				  "  m: '- eval/(?<name>\\w+) = (?<value>\\S+)'\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def,
				 "- eval/acc = 1\n"  /* 1 */
				 "noise\n"           /* 2 */
				 "- eval/loss = 2\n" /* 3 */
				 "- eval/acc = 3\n"  /* 4 */
				 "- eval/loss = 4\n", /* 5 */
				 &dir, &path);
	assert_non_null(r);
	const struct datum *d = run_field(r, "a");
	assert_text(d, "1");
	assert_int_equal(d->line, 1);
	d = run_field(r, "b");
	assert_text(d, "4");
	assert_int_equal(d->line, 5);
	const struct series *m = run_series(r, "m");
	assert_int_equal(series_row_count(m), 4);
	assert_cell(m, 3, "value", "4");
	done_text(&c, set, r, dir, path);
}

/* An escape's argument is no literal text of the pattern: a row of a
 * pattern with a named backreference (Keras' and Lightning's finished
 * bars, "469/469"), \x41, \p{Lu}, \g{1} and \cI is found, so the
 * literal search (which looks first for the pattern's certain bytes)
 * does not pass the line over. */
static void escape_arguments_are_no_literal(void **state)
{
	(void)state;
	static const char def[] = "name: t\n"
				  "series:\n"
				  "  bar: '^(?<steps>\\d+)/\\k<steps> \\['\n"
				  "  hex: 'id=\\x41(?<n>\\d+)'\n"
				  "  prop: 'name=\\p{Lu}(?<rest>\\w+)'\n"
				  "  again: '(?<w>ab)-\\g{1}-(?<m>\\d)'\n"
				  "  tab: 'x\\cIy=(?<v>\\d)'\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def,
				 "98/98 [00:20<00:00, 4.86it/s]\n" /* 1 */
				 "7/98 [00:01<00:19]\n"            /* 2: not finished */
				 "id=A12 name=Bob\n"               /* 3 */
				 "ab-ab-5 x\ty=1\n",              /* 4 */
				 &dir, &path);
	assert_non_null(r);
	const struct series *bar = run_series(r, "bar");
	assert_int_equal(series_row_count(bar), 1);
	assert_cell(bar, 0, "steps", "98");
	assert_cell(run_series(r, "hex"), 0, "n", "12");
	assert_cell(run_series(r, "prop"), 0, "rest", "ob");
	assert_cell(run_series(r, "again"), 0, "m", "5");
	assert_cell(run_series(r, "tab"), 0, "v", "1");
	done_text(&c, set, r, dir, path);
}

/* A derive given as a list: the first alternative that gives a value. */
static void derive_alternatives_take_the_first_with_a_value(void **state)
{
	(void)state;
	static const char def[] = "name: t\n"
				  "fields:\n"
				  "  start_ms: 'start_ms=(\\d+)'\n"
				  "  stop_ms: 'stop_ms=(\\d+)'\n"
				  "  start_s: 'start_s=(\\S+)'\n"
				  "  stop_s: 'stop_s=(\\S+)'\n"
				  "derive:\n"
				  "  seconds:\n"
				  "    - (stop_ms - start_ms) / 1000\n"
				  "    - stop_s - start_s\n";
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r = run_text(&c, &set, def, "start_s=10.5\nstop_s=12\n", &dir, &path);
	assert_num(run_field(r, "seconds"), 1.5);
	done_text(&c, set, r, dir, path);
	r = run_text(&c, &set, def, "start_ms=1000\nstop_ms=4000\nstart_s=1\nstop_s=9\n", &dir,
		     &path);
	assert_num(run_field(r, "seconds"), 3);
	done_text(&c, set, r, dir, path);
	r = run_text(&c, &set, def, "start_ms=1000\n", &dir, &path);
	assert_int_equal(run_field(r, "seconds")->kind, DATUM_MISSING);
	assert_string_equal(cap_text(&c), "");
	done_text(&c, set, r, dir, path);
	expect_def_errors("name: t\n"
			  "derive:\n"
			  "  a: []\n"
			  "  b: [ 'x +', { e: 1 } ]\n",
			  "p.yaml:3:6: error: derive 'a' has no alternatives: give it an expression, "
			  "or a list of them (the first that gives a value wins)\n"
			  "    3 |   a: []\n"
			  "      |      ^~\n"
			  "p.yaml:4:12: error: expected a value, found the end of the expression\n"
			  "    4 |   b: [ 'x +', { e: 1 } ]\n"
			  "      |            ^\n"
			  "p.yaml:4:15: error: a derive expression must be a string, not a map\n"
			  "    4 |   b: [ 'x +', { e: 1 } ]\n"
			  "      |               ^~~~~~~~\n");
}

static const char tables_def[] =
	"name: t\n"
	"tables:\n"
	"  results: { header: '\\|\\s*Source\\s*\\|\\s*Accuracy\\s*\\|\\s*end' }\n"
	"  rich: '\u2503 Source'\n"
	"  sweep: { header: '\\| Batch Size \\|' }\n"
	"  calls: { header: '^Time \\(%\\)\\s+Total Time \\(ns\\)\\s+Num Calls' }\n"
	"  lr: { header: '^Sweep summary$' }\n";

static void pipe_box_markdown_and_aligned_tables_are_read(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, tables_def, FIX "tables.log");
	assert_non_null(r);
	const struct series *t = run_series(r, "results");
	assert_int_equal(series_column_count(t), 6);
	assert_string_equal(series_column(t, 2), "end_to_end_latency_ms");
	assert_string_equal(series_column(t, 5), "on_chip_ips");
	assert_int_equal(series_row_count(t), 2);
	assert_cell(t, 0, "source", "cpu");
	assert_cell(t, 0, "accuracy", "77.47%");
	assert_true(cell_num(t, 0, "accuracy") == 77.47);
	struct datum d;
	series_cell(t, 0, 5, &d);
	assert_int_equal(d.kind, DATUM_MISSING);
	assert_cell(t, 1, "on_chip_ips", "37576.72");
	assert_int_equal(series_row_line(t, 1), 6);

	t = run_series(r, "rich");
	assert_int_equal(series_row_count(t), 2);
	assert_string_equal(series_column(t, 1), "accuracy");
	assert_cell(t, 0, "accuracy", "76.46%");
	series_cell(t, 1, 1, &d);
	assert_int_equal(d.kind, DATUM_MISSING);
	assert_int_equal(series_row_line(t, 1), 14);

	t = run_series(r, "sweep");
	assert_int_equal(series_row_count(t), 4);
	assert_string_equal(series_column(t, 1), "avg_rate_samples_sec");
	assert_true(cell_num(t, 0, "total_time_seconds") == 8615);
	assert_cell(t, 3, "final_loss", "5.96367");

	t = run_series(r, "calls");
	assert_int_equal(series_row_count(t), 3);
	assert_int_equal(series_column_count(t), 9);
	assert_true(cell_num(t, 0, "total_time_ns") == 1201255324);
	assert_cell(t, 2, "num_calls", "410");
	assert_cell(t, 2, "avg_ns", "20,372.1");
	assert_int_equal(series_row_line(t, 0), 28);

	/* A title line, then the table; an empty cell is missing. */
	t = run_series(r, "lr");
	assert_int_equal(series_row_count(t), 2);
	assert_string_equal(series_column(t, 0), "lr");
	assert_cell(t, 0, "loss", "2.31");
	series_cell(t, 1, 1, &d);
	assert_int_equal(d.kind, DATUM_MISSING);
	assert_int_equal(series_row_line(t, 1), 37);
	assert_string_equal(cap_text(&c), "");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

/* `more`: the lines after a row go on in one of its cells. */
static const char more_def[] =
	"name: m\n"
	"series:\n"
	"  failures:\n"
	"    pattern: '(?<file>\\w+\\.cc):(?<line>\\d+): (?:Failure|error:)(?:\\s+(?<message>.*\\S))?'\n"
	"    more: { into: message, until: '^\\[', lines: 3 }\n"
	"  tests: '\\[ +(?<status>OK|FAILED) +\\] (?<name>\\S+)'\n";

static void more_lines_go_on_in_a_cell(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = path_join(dir, "t.log");
	static const char log[] =
		"[ RUN      ] Math.Add\n"                      /* 1 */
		"math.cc:15: Failure\n"                        /* 2 */
		"Expected equality of these values:\n"         /* 3 */
		"  add(2, 2)\n"                                /* 4 */
		"    Which is: 4\n"                            /* 5: the third, the last */
		"  5\n"                                        /* 6 */
		"[  FAILED  ] Math.Add (0 ms)\n"               /* 7 */
		"math.cc:20: Failure\n"                        /* 8 */
		"\n"                                           /* 9: passed over */
		"Expected: (err) < (1e-6), actual: 0.5 vs 1e-06\r\n" /* 10 */
		"\n"                                           /* 11: ends it */
		"Rel. err. 0.5\n"                              /* 12: not taken */
		"math.cc:30: error: sizes differ\n"            /* 13: its own text */
		"  left 3, right 4\n"                          /* 14 */
		"math.cc:31: Failure\n"                        /* 15: ends 13, starts */
		"[       OK ] Math.Sub (1 ms)\n"               /* 16: until */
		"math.cc:40: Failure\n"                        /* 17 */
		"  cut short";                                 /* 18: the end of the file */
	write_file(path, log, sizeof log - 1);
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, more_def, path);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *f = run_series(r, "failures");
	assert_int_equal(series_row_count(f), 5);
	static const struct {
		long line;
		const char *message;
	} want[] = {
		{2, "Expected equality of these values:\n  add(2, 2)\n    Which is: 4"},
		{8, "Expected: (err) < (1e-6), actual: 0.5 vs 1e-06"},
		{13, "sizes differ\n  left 3, right 4"},
		{15, NULL},
		{17, "cut short"},
	};
	for (size_t k = 0; k < 5; k++) {
		assert_int_equal(series_row_line(f, k), want[k].line);
		struct datum d;
		series_cell(f, k, (size_t)series_column_index(f, "message"), &d);
		if (want[k].message)
			assert_text(&d, want[k].message);
		else
			assert_int_equal(d.kind, DATUM_MISSING);
	}
	/* The lines that end a row are read as any other. */
	const struct series *t = run_series(r, "tests");
	assert_int_equal(series_row_count(t), 2);
	assert_cell(t, 0, "name", "Math.Add");
	assert_int_equal(series_row_line(t, 0), 7);
	assert_int_equal(series_row_line(t, 1), 16);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
	free(path);
	drop_tmpdir(dir);
}

/* An until pattern that backtracks too much: one error, not one a row. */
static void a_failing_until_is_reported_once(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = path_join(dir, "t.log");
	static const char log[] = "F1: first\n"
				  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\n"
				  "F2: second\n"
				  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\n";
	write_file(path, log, sizeof log - 1);
	static const char def[] = "name: m\n"
				  "series:\n"
				  "  f:\n"
				  "    pattern: 'F(?<n>\\d): (?<message>.*)'\n"
				  "    more: { into: message, until: '(a+)+$' }\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, path);
	assert_null(r);
	const char *text = cap_text(&c);
	char *want = xasprintf("p.yaml:5:35: error: pattern '(a+)+$' of the more of series 'f' "
			       "(until) hit the match limit on %s:2: it backtracks too much",
			       path);
	if (!strstr(text, want))
		fail_msg("wanted\n%s\nin\n%s", want, text);
	if (strstr(strstr(text, want) + strlen(want), "error:"))
		fail_msg("more than one error:\n%s", text);
	free(want);
	parsers_free(set);
	cap_close(&c);
	free(path);
	drop_tmpdir(dir);
}

static void more_is_checked_when_loaded(void **state)
{
	(void)state;
	expect_def_errors("series:\n"
			  "  f:\n"
			  "    pattern: 'F(?<file>\\w+): (?<message>.*)'\n"
			  "    more: { into: mesage }\n",
			  "p.yaml:4:19: error: series 'f' has no column 'mesage' (did you mean "
			  "'message'?)\n"
			  "    4 |     more: { into: mesage }\n"
			  "      |                   ^~~~~~\n");
	expect_def_errors("series:\n"
			  "  f:\n"
			  "    pattern: 'F(?<file>\\w+): (?<message>.*)'\n"
			  "    more: { into: message, lines: 0, until: '[' }\n",
			  "p.yaml:4:35: error: lines in the more of series 'f' is a whole number "
			  "from 1 to 10000\n"
			  "    4 |     more: { into: message, lines: 0, until: '[' }\n"
			  "      |                                   ^\n"
			  "p.yaml:4:47: error: bad pattern for the more of series 'f' (until): "
			  "missing terminating ] for character class (at offset 1 in the pattern)\n"
			  "    4 |     more: { into: message, lines: 0, until: '[' }\n"
			  "      |                                               ^\n");
	/* Columns that are not a list: one error, and types and more are
	 * not looked at (they were read through a NULL list). */
	expect_def_errors("series:\n"
			  "  s:\n"
			  "    pattern: '(?<a>x)'\n"
			  "    columns: (a]\n"
			  "    types: { a: number }\n"
			  "    more: { into: a }\n",
			  "p.yaml:4:14: error: the columns of series 's' are a list of group names, "
			  "not a string\n"
			  "    4 |     columns: (a]\n"
			  "      |              ^~~\n");
	expect_def_errors("series:\n"
			  "  f:\n"
			  "    pattern: 'F(?<file>\\w+): (?<message>.*)'\n"
			  "    more: { until: 'x', line: 2 }\n",
			  "p.yaml:4:25: error: unknown key 'line' in the more of series 'f' (did you "
			  "mean 'lines'?)\n"
			  "    4 |     more: { until: 'x', line: 2 }\n"
			  "      |                         ^~~~\n"
			  "p.yaml:4:11: error: the more of series 'f' needs into: the column its "
			  "lines go to\n"
			  "    4 |     more: { until: 'x', line: 2 }\n"
			  "      |           ^~~~~~~~~~~~~~~~~~~~~~~\n");
}

/* A 9 MB log: matches on both sides of every 4 MiB chunk boundary and
 * a 5 MiB line that does not fit in one chunk. */
static void lines_across_chunks_keep_their_numbers(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = path_join(dir, "big.log");
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	long lines = 0;
	for (long i = 1; i <= 300000; i++) {
		if (i == 150000) {
			fputs("long line: ", f);
			for (int k = 0; k < 5 << 20; k++)
				fputc('x', f);
			fputs(" Step=123456, end\n", f);
		} else if (i % 1000 == 0) {
			fprintf(f, "| Train Device=CSX, Step=%ld, Loss=%ld.5\n", i, i % 7);
		} else {
			fprintf(f, "2024-03-30 15:16:%02ld,590 INFO:   nothing to see %06ld\n", i % 60, i);
		}
		lines++;
	}
	fputs("Processed 512000 sample(s) in 175.070497198 seconds.", f);
	lines++;
	fclose(f);
	static const char def[] = "name: big\n"
				  "fields:\n"
				  "  long: 'x Step=(\\d+), end'\n"
				  "  samples: 'Processed (\\d+) sample'\n"
				  "series:\n"
				  "  train: 'Step=(?<step>\\d+), Loss=(?<loss>[\\d.]+)'\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, path);
	assert_non_null(r);
	const struct series *t = run_series(r, "train");
	assert_int_equal(series_row_count(t), 299);
	for (size_t k = 0; k < 299; k++) {
		/* Line 150000 is the long one. */
		long line = (long)(k < 149 ? k + 1 : k + 2) * 1000;
		assert_int_equal(series_row_line(t, k), line);
		assert_true(cell_num(t, k, "step") == line);
		assert_true(cell_num(t, k, "loss") == line % 7 + 0.5);
	}
	assert_text(run_field(r, "long"), "123456");
	assert_int_equal(run_field(r, "long")->line, 150000);
	assert_int_equal(run_field(r, "samples")->line, lines);
	assert_int_equal(run_line_count(r), lines);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
	free(path);
	drop_tmpdir(dir);
}

/* Errors and warnings while running. */

static void empty_file_is_an_error(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, cerebras_def, FIX "empty.log");
	assert_null(r);
	assert_string_equal(cap_text(&c), FIX "empty.log: error: empty file\n");
	parsers_free(set);
	cap_close(&c);
}

static void binary_file_is_an_error(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *path = path_join(dir, "model.ckpt");
	write_file(path, "Step=1, Loss=2\nPK\x03\x04\0\0\x01", 22);
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, cerebras_def, path);
	assert_null(r);
	char *want = xasprintf("%s: error: binary file (a NUL byte on line 2): logdown reads text "
			       "logs, JSON, JSON Lines, YAML, CSV and TSV, XML and Jupyter "
			       "notebooks, and of binary files TensorBoard event files\n",
			       path);
	assert_string_equal(cap_text(&c), want);
	free(want);
	parsers_free(set);
	cap_close(&c);
	free(path);
	drop_tmpdir(dir);
}

static void missing_file_is_an_error(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, cerebras_def, FIX "nope.log");
	assert_null(r);
	assert_string_equal(cap_text(&c),
			    FIX "nope.log: error: cannot read: No such file or directory\n");
	parsers_free(set);
	cap_close(&c);
}

static void matching_nothing_is_a_warning(void **state)
{
	(void)state;
	static const char def[] = "name: gt\n"
				  "fields:\n"
				  "  passed: '\\[  PASSED  \\] (\\d+) tests'\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, FIX "cerebras.log");
	assert_non_null(r);
	assert_int_equal(run_field(r, "passed")->kind, DATUM_MISSING);
	assert_string_equal(cap_text(&c), FIX "cerebras.log: warning: parser 'gt' matched nothing "
						"in " FIX "cerebras.log\n");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static double seconds_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void catastrophic_backtracking_fails_fast(void **state)
{
	(void)state;
	static const char def[] = "name: slow\n"
				  "fields:\n"
				  "  status: 'status: (\\w+)'\n"
				  "series:\n"
				  "  runs: '^(?<word>(a+)+)$'\n";
	struct capture c;
	struct parser_set *set;
	double t0 = seconds_now();
	struct run *r = run_def(&c, &set, def, FIX "backtrack.log");
	double took = seconds_now() - t0;
	assert_null(r);
	if (took >= 1.0)
		fail_msg("took %.3f s", took);
	assert_string_equal(cap_text(&c),
			    "p.yaml:5:9: error: pattern '^(?<word>(a+)+)$' of series 'runs' hit the "
			    "match limit on " FIX "backtrack.log:3: it backtracks too much; make it "
			    "more specific (limit pcre_match: raise it with limits: in site.yaml or "
			    "LOGDOWN_LIMIT_PCRE_MATCH)\n"
			    "    5 |   runs: '^(?<word>(a+)+)$'\n"
			    "      |         ^~~~~~~~~~~~~~~~~~\n");
	parsers_free(set);
	cap_close(&c);
}

/* Definitions. */

static void unknown_key_suggests_the_closest(void **state)
{
	(void)state;
	expect_def_errors("name: cs\n"
			  "feilds:\n"
			  "  a: 'x'\n",
			  "p.yaml:2:1: error: unknown key 'feilds' in a parser definition (did you "
			  "mean 'fields'?)\n"
			  "    2 | feilds:\n"
			  "      | ^~~~~~\n");
}

static void unknown_field_option_suggests_the_closest(void **state)
{
	(void)state;
	expect_def_errors("name: cs\n"
			  "fields:\n"
			  "  a: { patern: 'x(\\d)' }\n",
			  "p.yaml:3:8: error: unknown key 'patern' in field 'a' (did you mean "
			  "'pattern'?)\n"
			  "    3 |   a: { patern: 'x(\\d)' }\n"
			  "      |        ^~~~~~\n"
			  "p.yaml:3:6: error: field 'a' has no pattern\n"
			  "    3 |   a: { patern: 'x(\\d)' }\n"
			  "      |      ^~~~~~~~~~~~~~~~~~~\n");
}

static void bad_pattern_is_reported_at_its_column(void **state)
{
	(void)state;
	/* Offset 16 of the pattern is its end, after the quote at 3:10. */
	expect_def_errors("name: cs\n"
			  "series:\n"
			  "  train: 'Step=(?<step>\\d+'\n",
			  "p.yaml:3:27: error: bad pattern for series 'train': missing closing "
			  "parenthesis (at offset 16 in the pattern)\n"
			  "    3 |   train: 'Step=(?<step>\\d+'\n"
			  "      |                           ^\n");
}

static void bad_pattern_column_counts_quote_escapes(void **state)
{
	(void)state;
	/* '' in a single-quoted scalar is one character of the pattern. */
	expect_def_errors("fields:\n"
			  "  a: 'it''s (\\d+'\n"
			  "  b: \"\\x41\\\\d+ [a-\"\n",
			  "p.yaml:2:17: error: bad pattern for field 'a': missing closing parenthesis "
			  "(at offset 9 in the pattern)\n"
			  "    2 |   a: 'it''s (\\d+'\n"
			  "      |                 ^\n"
			  "p.yaml:3:19: error: bad pattern for field 'b': missing terminating ] for "
			  "character class (at offset 8 in the pattern)\n"
			  "    3 |   b: \"\\x41\\\\d+ [a-\"\n"
			  "      |                   ^\n");
}

/* Found by tests/fuzz/fuzz_parserdef: a detect pattern that did not
 * compile leaked its copy of the pattern (LeakSanitizer fails the test
 * binary at exit). */
static void bad_detect_pattern_is_reported_and_not_kept(void **state)
{
	(void)state;
	expect_def_errors("detect:\n"
			  "  - 'ok'\n"
			  "  - 'bad (\\S+'\n",
			  "p.yaml:3:14: error: bad pattern for detect: missing closing parenthesis "
			  "(at offset 8 in the pattern)\n"
			  "    3 |   - 'bad (\\S+'\n"
			  "      |              ^\n");
}

static void unknown_type_suggests_the_closest(void **state)
{
	(void)state;
	expect_def_errors("fields:\n"
			  "  t: { pattern: 'in (\\S+)', type: duraton }\n",
			  "p.yaml:2:35: error: unknown type 'duraton' (did you mean 'duration'?)\n"
			  "    2 |   t: { pattern: 'in (\\S+)', type: duraton }\n"
			  "      |                                   ^~~~~~~\n");
}

static void series_needs_named_groups(void **state)
{
	(void)state;
	expect_def_errors("series:\n"
			  "  train: 'Step=(\\d+)'\n",
			  "p.yaml:2:10: error: series 'train': name the pattern's groups, as in "
			  "(?<step>\\d+): they become the columns\n"
			  "    2 |   train: 'Step=(\\d+)'\n"
			  "      |          ^~~~~~~~~~~~\n");
}

static void series_columns_must_name_groups(void **state)
{
	(void)state;
	expect_def_errors("series:\n"
			  "  train:\n"
			  "    pattern: 'Step=(?<step>\\d+), Loss=(?<loss>[\\d.]+)'\n"
			  "    columns: [step, los]\n",
			  "p.yaml:4:21: error: series 'train': the pattern has no group named 'los' "
			  "(did you mean 'loss'?)\n"
			  "    4 |     columns: [step, los]\n"
			  "      |                     ^~~\n");
}

static void series_columns_choose_and_order(void **state)
{
	(void)state;
	static const char def[] =
		"series:\n"
		"  train:\n"
		"    pattern: 'Step=(?<step>\\d+), Loss=(?<loss>[\\d.]+), Rate=(?<rate>[\\d.]+)'\n"
		"    columns: [loss, step]\n";
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, FIX "cerebras.log");
	assert_non_null(r);
	assert_string_equal(parser_name(parsers_at(set, 0)), "p");
	const struct series *t = run_series(r, "train");
	assert_int_equal(series_column_count(t), 2);
	assert_string_equal(series_column(t, 0), "loss");
	assert_cell(t, 9, "step", "1000");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

static void field_group_must_exist(void **state)
{
	(void)state;
	expect_def_errors("fields:\n"
			  "  g: { pattern: 'Rate=([\\d.]+)', group: 2 }\n",
			  "p.yaml:2:41: error: field 'g': the pattern has no group 2 (it has 1)\n"
			  "    2 |   g: { pattern: 'Rate=([\\d.]+)', group: 2 }\n"
			  "      |                                         ^\n");
}

static void bad_derive_is_reported_at_its_column(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_new();
	assert_false(add_def(set, &c, "p.yaml", "derive:\n  x: mean(train.loss\n", false));
	const char *text = cap_text(&c);
	/* The expression's own message (the expression parser's words), at its column. */
	assert_true(strncmp(text, "p.yaml:2:", 9) == 0);
	assert_non_null(strstr(text, "error: "));
	parsers_free(set);
	cap_close(&c);
}

static void later_definition_replaces_earlier(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_new();
	assert_true(add_def(set, &c, "(built-in) parsers/a.yaml", "name: a\ndescription: old\n", true));
	assert_true(add_def(set, &c, "(built-in) parsers/b.yaml", "name: b\n", true));
	assert_true(add_def(set, &c, "proj/parsers/a.yaml", "name: a\ndescription: new\n", false));
	assert_int_equal(parsers_count(set), 2);
	const struct parser *a = parsers_at(set, 0);
	assert_string_equal(parser_description(a), "new");
	assert_string_equal(parser_origin(a), "proj/parsers/a.yaml");
	assert_string_equal(parser_origin(parsers_find(set, "b")), "built-in");
	assert_string_equal(cap_text(&c), "");
	/* A folder loaded later wins without a word... */
	assert_true(add_def(set, &c, "extra/a.yaml", "name: a\n", false));
	assert_string_equal(cap_text(&c), "");
	/* ...but two files of one name in one folder is a slip. */
	assert_true(add_def(set, &c, "extra/b2.yaml", "name: a\n", false));
	assert_string_equal(cap_text(&c), "extra/b2.yaml: warning: parser 'a' is also defined in "
					  "extra/a.yaml; this definition replaces it\n");
	parsers_free(set);
	cap_close(&c);
}

static void load_reads_project_and_extra_folders(void **state)
{
	(void)state;
	char *root = make_tmpdir();
	char *pdir = path_join(root, "parsers");
	char *extra = path_join(root, "more");
	assert_true(mkdir_p(pdir) && mkdir_p(extra));
	char *p1 = path_join(pdir, "zz-proj.yaml");
	char *p2 = path_join(extra, "zz-proj.yaml");
	char *p3 = path_join(pdir, "notes.txt");
	write_file(p1, "name: zz-proj\ndescription: project\n", 35);
	write_file(p2, "name: zz-proj\ndescription: extra\n", 33);
	write_file(p3, "not a parser", 12);
	struct capture c;
	cap_open(&c);
	char *extras[] = {extra, NULL};
	struct parser_set *set = parsers_load(root, extras, c.d);
	const struct parser *p = parsers_find(set, "zz-proj");
	assert_non_null(p);
	assert_string_equal(parser_description(p), "extra");
	assert_string_equal(parser_origin(p), p2);
	assert_string_equal(cap_text(&c), "");
	parsers_free(set);
	/* A folder the user listed must exist. */
	char gone_dir[] = "/nonexistent/parsers";
	char *gone[] = {gone_dir, NULL};
	set = parsers_load(NULL, gone, c.d);
	assert_string_equal(cap_text(&c), "/nonexistent/parsers: error: cannot read the parsers "
					  "folder: No such file or directory\n");
	parsers_free(set);
	cap_close(&c);
	free(p1);
	free(p2);
	free(p3);
	free(pdir);
	free(extra);
	drop_tmpdir(root);
}

static void lookup_suggests_the_closest_parser(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_new();
	assert_true(add_def(set, &c, "a.yaml", "name: cerebras\n", false));
	assert_true(add_def(set, &c, "b.yaml", "name: gtest\n", false));
	struct loc at = {"hw07.md", 5, 0, 0};
	assert_non_null(parsers_lookup(set, "gtest", at, c.d));
	assert_null(parsers_lookup(set, "cerebas", at, c.d));
	assert_null(parsers_lookup(set, "pytorch", at, c.d));
	assert_string_equal(cap_text(&c),
			    "hw07.md:5: error: unknown parser 'cerebas' (did you mean 'cerebras'?)\n"
			    "hw07.md:5: error: unknown parser 'pytorch' (available: cerebras, gtest)\n");
	parsers_free(set);
	cap_close(&c);
}

/* Detection. */

static struct parser_set *detect_set(struct capture *c)
{
	cap_open(c);
	struct parser_set *set = parsers_new();
	assert_true(add_def(set, c, "cs.yaml", "name: cs\ndetect: 'Train Device=CSX'\n", false));
	assert_true(add_def(set, c, "gt.yaml",
			    "name: gt\ndetect: ['\\[ RUN +\\]', 'Running \\d+ tests']\n", false));
	assert_true(add_def(set, c, "js.yaml", "name: js\nformat: json\n", false));
	return set;
}

static void detect_picks_the_only_claimant(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set = detect_set(&c);
	struct loc at = {"hw07.md", 3, 0, 0};
	assert_string_equal(parser_name(parsers_detect(set, FIX "cerebras.log", at, c.d)), "cs");
	assert_string_equal(parser_name(parsers_detect(set, FIX "ranks.log", at, c.d)), "gt");
	/* By extension: format json claims .json files. */
	assert_string_equal(parser_name(parsers_detect(set, FIX "result.json", at, c.d)), "js");
	assert_string_equal(cap_text(&c), "");
	parsers_free(set);
	cap_close(&c);
}

static void detect_with_two_claimants_names_both(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set = detect_set(&c);
	assert_true(add_def(set, &c, "cs2.yaml", "name: cs2\ndetect: 'Loss=\\d'\n", false));
	struct loc at = {"hw07.md", 3, 0, 0};
	assert_null(parsers_detect(set, FIX "cerebras.log", at, c.d));
	assert_true(add_def(set, &c, "cs3.yaml", "name: cs3\ndetect: 'GlobalRate='\n", false));
	assert_null(parsers_detect(set, FIX "cerebras.log", at, c.d));
	assert_string_equal(cap_text(&c),
			    "hw07.md:3: error: cannot tell which parser reads " FIX "cerebras.log: "
			    "both 'cs' and 'cs2' match; name one with {file: ..., parser: NAME}\n"
			    "hw07.md:3: error: cannot tell which parser reads " FIX "cerebras.log: "
			    "'cs', 'cs2' and 'cs3' all match; name one with {file: ..., parser: "
			    "NAME}\n");
	parsers_free(set);
	cap_close(&c);
}

static void detect_with_no_claimant_lists_the_parsers(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set = detect_set(&c);
	struct loc at = {"hw07.md", 3, 0, 0};
	assert_null(parsers_detect(set, FIX "tables.log", at, c.d));
	assert_null(parsers_detect(set, FIX "empty.log", at, c.d));
	assert_string_equal(cap_text(&c),
			    "hw07.md:3: error: cannot tell which parser reads " FIX "tables.log: none "
			    "recognises it; name one with {file: ..., parser: NAME} (available: cs, "
			    "gt, js)\n"
			    "hw07.md:3: error: cannot tell which parser reads " FIX "empty.log: it is "
			    "empty and none claims its name; name one with {file: ..., parser: NAME} "
			    "(available: cs, gt, js)\n");
	parsers_free(set);
	cap_close(&c);
}

static void project_parser_beats_builtin(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_new();
	assert_true(add_def(set, &c, "(built-in) parsers/cerebras.yaml",
			    "name: cerebras\ndetect: 'Train Device=CSX'\n", true));
	assert_true(add_def(set, &c, "(built-in) parsers/other.yaml",
			    "name: other\ndetect: 'Loss='\n", true));
	struct loc at = {"hw07.md", 3, 0, 0};
	assert_null(parsers_detect(set, FIX "cerebras.log", at, c.d));
	assert_true(add_def(set, &c, "parsers/mine.yaml", "name: mine\ndetect: 'Step=100,'\n", false));
	assert_string_equal(parser_name(parsers_detect(set, FIX "cerebras.log", at, c.d)), "mine");
	parsers_free(set);
	cap_close(&c);
}

static void content_claim_beats_extension_claim(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set = detect_set(&c);
	assert_true(add_def(set, &c, "bench.yaml",
			    "name: bench\nextensions: [.json]\ndetect: '\"mean_latency_s\"'\n",
			    false));
	struct loc at = {"hw07.md", 3, 0, 0};
	assert_string_equal(parser_name(parsers_detect(set, FIX "result.json", at, c.d)), "bench");
	assert_string_equal(cap_text(&c), "");
	parsers_free(set);
	cap_close(&c);
}

/* A name claims a file; content still claims files of other names. */
static void extensions_claim_a_name_without_turning_off_content_detection(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set = detect_set(&c);
	assert_true(add_def(set, &c, "mynsys.yaml",
			    "name: mynsys\nextensions: ['*.nsys.txt']\n"
			    "detect: 'CUDA GPU Kernel Summary'\n",
			    false));
	char *dir = make_tmpdir();
	char *named = path_join(dir, "profile.NSYS.txt");
	char *other = path_join(dir, "report.txt");
	char *neither = path_join(dir, "notes.txt");
	static const char kern[] = " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\n";
	write_file(named, "nothing the detect pattern knows\n", 33);
	write_file(other, kern, sizeof kern - 1);
	write_file(neither, "nothing the detect pattern knows\n", 33);
	struct loc at = {"hw07.md", 3, 0, 0};
	/* By its name alone, by its content alone under another name, */
	assert_string_equal(parser_name(parsers_detect(set, named, at, c.d)), "mynsys");
	assert_string_equal(parser_name(parsers_detect(set, other, at, c.d)), "mynsys");
	assert_string_equal(cap_text(&c), "");
	/* and neither: no claim. */
	assert_null(parsers_detect(set, neither, at, c.d));
	assert_non_null(strstr(cap_text(&c), "reads "));
	assert_non_null(strstr(cap_text(&c), "notes.txt: none recognises it"));
	/* A binary file no parser claims is told what logdown reads. */
	cap_close(&c);
	cap_open(&c);
	char *bin = path_join(dir, "model.pt");
	write_file(bin, "PK\x03\x04\n\n\0\0\x01", 9);
	assert_null(parsers_detect(set, bin, at, c.d));
	char *want = xasprintf("hw07.md:3: error: cannot tell which parser reads %s: it is a binary "
			       "file (a NUL byte on line 3), of no kind logdown reads: text logs, "
			       "JSON, JSON Lines, YAML, CSV and TSV, XML and Jupyter notebooks, and "
			       "of binary files TensorBoard event files\n",
			       bin);
	assert_string_equal(cap_text(&c), want);
	free(want);
	free(bin);
	free(named);
	free(other);
	free(neither);
	parsers_free(set);
	cap_close(&c);
}

/* Leading blanks are gone before patterns see a line: a pattern that
 * wants them after '^' is a warning at its blanks, when loaded. */
static void a_pattern_wanting_blanks_after_the_caret_is_a_warning_at_them(void **state)
{
	(void)state;
	static const char def[] =
		"name: p\n"
		"fields:\n"
		"  a: '^\\s+loss=(\\d+)'\n"
		"  b: '(?m)^ {2}b=(\\d+)'\n"
		"  ok1: '^\\s*loss=(\\d+)'\n"
		"  ok2: '^\\s+x|y=(\\d+)'\n"
		"  ok3: '(?x)^ loss=(\\d+)'\n"
		"series:\n"
		"  s: '^[ \\t]+(?<v>\\d+)'\n"
		"tables:\n"
		"  t: { header: '^\\tName' }\n";
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_new();
	assert_true(add_def(set, &c, "p.yaml", def, false));
	assert_int_equal(parsers_count(set), 1);
	assert_string_equal(
		cap_text(&c),
		"p.yaml:3:8: warning: the pattern of field 'a' can never match: it wants blanks "
		"after '^', but lines lose their leading blanks before patterns see them; drop "
		"them, or write '^\\s*'\n"
		"    3 |   a: '^\\s+loss=(\\d+)'\n"
		"      |        ^~~\n"
		"p.yaml:4:12: warning: the pattern of field 'b' can never match: it wants blanks "
		"after '^', but lines lose their leading blanks before patterns see them; drop "
		"them, or write '^\\s*'\n"
		"    4 |   b: '(?m)^ {2}b=(\\d+)'\n"
		"      |            ^~\n"
		"p.yaml:9:8: warning: the pattern of series 's' can never match: it wants blanks "
		"after '^', but lines lose their leading blanks before patterns see them; drop "
		"them, or write '^\\s*'\n"
		"    9 |   s: '^[ \\t]+(?<v>\\d+)'\n"
		"      |        ^~~~~~\n"
		"p.yaml:11:18: warning: the pattern of table 't' can never match: it wants blanks "
		"after '^', but lines lose their leading blanks before patterns see them; drop "
		"them, or write '^\\s*'\n"
		"   11 |   t: { header: '^\\tName' }\n"
		"      |                  ^~\n");
	parsers_free(set);
	cap_close(&c);
}

/* A project parser's series that got no row and table never found are
 * warnings at the log, naming the pattern, once something else matched;
 * a pattern warned about at load is not warned about again. */
static void an_empty_series_and_an_unfound_table_are_warnings_naming_their_pattern(void **state)
{
	(void)state;
#define SILENT_DEF                                                                           \
	"name: p\n"                                                                          \
	"fields:\n"                                                                          \
	"  gpus: 'using (\\d+) GPUs'\n"                                                       \
	"tables:\n"                                                                          \
	"  kernels: { header: 'Kernel Summary' }\n"                                          \
	"  summary: { header: '^Summary:' }\n"                                               \
	"series:\n"                                                                          \
	"  epochs: 'epoch (?<epoch>\\d+) loss=(?<loss>[\\d.]+)'\n"
	static const char def[] = SILENT_DEF "  evals: '^\\s+eval (?<acc>[\\d.]+)'\n";
	static const char builtin[] = SILENT_DEF;
	char *dir = make_tmpdir();
	char *path = path_join(dir, "t.log");
	static const char log[] = "using 4 GPUs\n"
				  "Summary:\n"
				  "nothing like a table here\n"
				  "  eval 0.7\n";
	write_file(path, log, sizeof log - 1);
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_new();
	assert_true(add_def(set, &c, "p.yaml", def, false));
	diag_add_source(c.d, "t.log", log, sizeof log - 1);
	struct run *r = parser_run(parsers_at(set, 0), path, "t.log", "r", c.d);
	assert_non_null(r);
	assert_string_equal(cap_text(&c),
			    "p.yaml:9:12: warning: the pattern of series 'evals' can never match: "
			    "it wants blanks after '^', but lines lose their leading blanks before "
			    "patterns see them; drop them, or write '^\\s*'\n"
			    "    9 |   evals: '^\\s+eval (?<acc>[\\d.]+)'\n"
			    "      |            ^~~\n"
			    "t.log: warning: series 'epochs' has no rows: its pattern 'epoch "
			    "(?<epoch>\\d+) loss=(?<loss>[\\d.]+)' matched no line\n"
			    "t.log: warning: table 'kernels' was not found: its header pattern "
			    "'Kernel Summary' matched no line\n"
			    "t.log:2: warning: table 'summary' was not found: its header pattern "
			    "'^Summary:' matched this line, but no table followed (rows of cells "
			    "split by '|' or by two spaces)\n"
			    "    2 | Summary:\n");
	/* The series exists, empty, for expressions. */
	assert_int_equal(series_row_count(run_series(r, "epochs")), 0);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
	/* A built-in's series may be absent from a file of its kind. */
	cap_open(&c);
	set = parsers_new();
	assert_true(add_def(set, &c, "(built-in) parsers/p.yaml", builtin, true));
	r = parser_run(parsers_at(set, 0), path, "t.log", "r", c.d);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
	free(path);
}

/* A series or table that a file of its kind may lack says so with
 * `optional: true`: no warning then; optional is true or false. */
static void an_optional_series_or_table_may_be_absent_without_a_word(void **state)
{
	(void)state;
	static const char def[] = "name: p\n"
				  "fields:\n"
				  "  gpus: 'using (\\d+) GPUs'\n"
				  "series:\n"
				  "  checks: { pattern: 'Expected: (?<what>.*)', optional: true }\n"
				  "tables:\n"
				  "  kernels: { header: 'Kernel Summary', optional: true }\n";
	char *dir = make_tmpdir();
	char *path = path_join(dir, "t.log");
	write_file(path, "using 4 GPUs\n", 13);
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, path);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(series_row_count(run_series(r, "checks")), 0);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
	free(path);
	expect_def_errors("series:\n"
			  "  s: { pattern: '(?<a>x)', optional: yes please }\n",
			  "p.yaml:2:38: error: optional in series 's' is true or false, not a "
			  "string\n"
			  "    2 |   s: { pattern: '(?<a>x)', optional: yes please }\n"
			  "      |                                      ^~~~~~~~~~\n");
}

/* An nsys-like space-aligned table under a rule ends at the rule that
 * closes it: the text after it is no row, even in columns. */
static void an_aligned_table_ends_at_its_closing_rule(void **state)
{
	(void)state;
	static const char def[] =
		"name: p\n"
		"tables:\n"
		"  kernels: { header: '^Time \\(%\\)\\s+Total Time \\(ns\\)' }\n"
		"fields:\n"
		"  export: 'Exported (\\S+)'\n";
	char *dir = make_tmpdir();
	char *path = path_join(dir, "t.log");
	static const char log[] =
		" ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\n"                          /* 1 */
		"\n"                                                                          /* 2 */
		" Time (%)  Total Time (ns)  Instances  Avg (ns)   Name\n"                    /* 3 */
		" --------  ---------------  ---------  ---------  ----------------------\n"  /* 4 */
		"     62.5          1234567         10   123456.7  void gemm<float>(int)\n"   /* 5 */
		"     37.5           740740          5   148148.0  reduce_kernel\n"           /* 6 */
		" --------  ---------------  ---------  ---------  ----------------------\n"  /* 7 */
		"Exported report1.sqlite  in 2 s\n";                                        /* 8 */
	write_file(path, log, sizeof log - 1);
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, path);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *t = run_series(r, "kernels");
	assert_int_equal(series_row_count(t), 2);
	assert_string_equal(series_column(t, 3), "avg_ns");
	assert_cell(t, 0, "name", "void gemm<float>(int)");
	assert_cell(t, 1, "avg_ns", "148148.0");
	assert_int_equal(series_row_line(t, 1), 6);
	assert_text(run_field(r, "export"), "report1.sqlite");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
	free(path);
}

/* The rich table of tables.log (lines 9-15) as a terminal 12 columns
 * wide shows it, each line cut every 12 characters: box-drawing rulers,
 * header and rows joined, each row at the line of its first piece. */
static void a_box_table_a_terminal_wrapped_is_joined(void **state)
{
	(void)state;
	static const char def[] = "name: p\n"
				  "tables:\n"
				  "  rich: '\u2503 Source'\n";
	static const char log[] = "Rich table:\n"                        /* 1 */
				  "\u250f\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501"
				  "\u2533\u2501\u2501\n"                      /* 2 */
				  "\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2513\n"
				  "\u2503 Source \u2503 A\n"                  /* 4 */
				  "ccuracy \u2503\n"                          /* 5 */
				  "\u2521\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501"
				  "\u2547\u2501\u2501\n"                      /* 6 */
				  "\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2501\u2529\n"
				  "\u2502 cpu    \u2502 7\n"                  /* 8 */
				  "6.46%   \u2502\n"                          /* 9 */
				  "\u2502 groq   \u2502 n\n"                  /* 10 */
				  "/a      \u2502\n"                          /* 11 */
				  "\u2514\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500"
				  "\u2534\u2500\u2500\n"                      /* 12 */
				  "\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2518\n";
	char *dir, *path;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_text(&c, &set, def, log, &dir, &path);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *t = run_series(r, "rich");
	assert_int_equal(series_column_count(t), 2);
	assert_string_equal(series_column(t, 1), "accuracy");
	assert_int_equal(series_row_count(t), 2);
	assert_cell(t, 0, "source", "cpu");
	assert_cell(t, 0, "accuracy", "76.46%");
	assert_int_equal(series_row_line(t, 0), 8);
	assert_cell(t, 1, "source", "groq");
	assert_int_equal(series_row_line(t, 1), 10);
	done_text(&c, set, r, dir, path);
}

/* The sweep table of tables.log (lines 32-38) pasted behind "# ", as
 * Spark's df.show() and mysql output are kept in Python and PHP
 * comments: its title, rulers and rows are read without the marks. */
static void a_table_pasted_in_comments_is_read(void **state)
{
	(void)state;
	static const char def[] = "name: p\n"
				  "tables:\n"
				  "  lr: { header: 'Sweep summary$' }\n";
	static const char log[] = "# Sweep summary\n"   /* 1 */
				  "# +-------+------+\n" /* 2 */
				  "# | lr    | loss |\n" /* 3 */
				  "# +-------+------+\n" /* 4 */
				  "# | 0.01  | 2.31 |\n" /* 5 */
				  "# | 0.1   |      |\n" /* 6 */
				  "# +-------+------+\n" /* 7 */
				  "# done\n";            /* 8 */
	char *dir, *path;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_text(&c, &set, def, log, &dir, &path);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	const struct series *t = run_series(r, "lr");
	assert_int_equal(series_column_count(t), 2);
	assert_string_equal(series_column(t, 0), "lr");
	assert_int_equal(series_row_count(t), 2);
	assert_cell(t, 0, "loss", "2.31");
	assert_int_equal(series_row_line(t, 0), 5);
	struct datum d;
	series_cell(t, 1, 1, &d);
	assert_int_equal(d.kind, DATUM_MISSING);
	done_text(&c, set, r, dir, path);
}

/* '*' names are snake_cased as table headers are, part by dotted part:
 * a report can write every one of them. */
static void star_field_names_are_snake_cased_like_table_headers(void **state)
{
	(void)state;
	static const char def[] = "name: p\n"
				  "fields:\n"
				  "  '*': '^(?<name>[^:]+): (?<value>\\S+)$'\n";
	char *dir = make_tmpdir();
	char *path = path_join(dir, "t.log");
	static const char log[] = "Mean TTFT (ms): 12.5\n"
				  "P99 ITL (ms): 40\n"
				  "tracked_stats.Throughput: 310.5\n"
				  "mean ttft (ms): 13.0\n"
				  "%%: 3\n"
				  "(): 4\n";
	write_file(path, log, sizeof log - 1);
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, def, path);
	assert_non_null(r);
	assert_string_equal(cap_text(&c), "");
	assert_int_equal(run_field_count(r), 4);
	assert_string_equal(run_field_name(r, 0), "mean_ttft_ms");
	assert_string_equal(run_field_name(r, 1), "p99_itl_ms");
	assert_string_equal(run_field_name(r, 2), "tracked_stats.throughput");
	assert_string_equal(run_field_name(r, 3), "pct_pct");
	/* Two spellings of one name are one field: the last value wins. */
	const struct datum *d = run_field(r, "mean_ttft_ms");
	assert_text(d, "13.0");
	assert_int_equal(d->line, 4);
	run_free(r);
	parsers_free(set);
	cap_close(&c);
	free(path);
}

static void json_parser_reads_structured_results(void **state)
{
	(void)state;
	struct capture c;
	struct parser_set *set;
	struct run *r = run_def(&c, &set, "name: js\nformat: json\nderive:\n  m: summary.mean_latency_s * 2\n",
				FIX "result.json");
	assert_non_null(r);
	assert_text(run_field(r, "model"), "bert");
	assert_true(run_field(r, "m")->num == 4.987 * 2);
	assert_int_equal(run_line_count(r), 1);
	assert_string_equal(run_parser(r), "js");
	run_free(r);
	parsers_free(set);
	cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cerebras_fields_and_series_keep_text_and_lines),
		cmocka_unit_test(timestamps_subtract_to_seconds),
		cmocka_unit_test(derive_keeps_picked_text_and_computes_in_order),
		cmocka_unit_test(implicit_fields_name_the_run),
		cmocka_unit_test(crlf_lines_read_as_lf_lines),
		cmocka_unit_test(last_line_without_newline_is_read),
		cmocka_unit_test(markdown_indentation_and_fence_are_dropped),
		cmocka_unit_test(carriage_return_keeps_the_last_segment),
		cmocka_unit_test(literal_caret_m_counts_as_carriage_return),
		cmocka_unit_test(cr_keep_lets_a_pattern_see_the_whole_line),
		cmocka_unit_test(durations_read_as_seconds),
		cmocka_unit_test(a_value_not_of_its_type_is_a_warning),
		cmocka_unit_test(a_column_not_of_its_type_is_warned_once),
		cmocka_unit_test(table_and_series_of_one_name_must_agree),
		cmocka_unit_test(durations_read_into_a_unit_exactly),
		cmocka_unit_test(table_columns_name_cells_alike_across_releases),
		cmocka_unit_test(table_columns_are_checked_at_their_place),
		cmocka_unit_test(table_or_series_fills_one_name),
		cmocka_unit_test(a_series_after_its_table_is_left_out),
		cmocka_unit_test(rank_prefixes_are_stripped_and_copies_skipped),
		cmocka_unit_test(srun_labels_are_stripped),
		cmocka_unit_test(invalid_utf8_is_just_bytes),
		cmocka_unit_test(fields_pick_group_by_number_or_name),
		cmocka_unit_test(unmatched_fields_are_missing_or_default),
		cmocka_unit_test(star_field_names_fields_by_a_group),
		cmocka_unit_test(an_unmatched_explicit_field_keeps_the_star_value),
		cmocka_unit_test(pick_sum_and_count_take_every_match),
		cmocka_unit_test(a_reset_line_starts_a_sum_again),
		cmocka_unit_test(derive_alternatives_take_the_first_with_a_value),
		cmocka_unit_test(patterns_sharing_a_literal_each_find_their_lines),
		cmocka_unit_test(escape_arguments_are_no_literal),
		cmocka_unit_test(alternatives_give_the_latest_match_and_fixed_values),
		cmocka_unit_test(pick_value_and_alternatives_are_checked_at_their_place),
		cmocka_unit_test(pipe_box_markdown_and_aligned_tables_are_read),
		cmocka_unit_test(more_lines_go_on_in_a_cell),
		cmocka_unit_test(a_failing_until_is_reported_once),
		cmocka_unit_test(more_is_checked_when_loaded),
		cmocka_unit_test(lines_across_chunks_keep_their_numbers),
		cmocka_unit_test(empty_file_is_an_error),
		cmocka_unit_test(binary_file_is_an_error),
		cmocka_unit_test(missing_file_is_an_error),
		cmocka_unit_test(matching_nothing_is_a_warning),
		cmocka_unit_test(catastrophic_backtracking_fails_fast),
		cmocka_unit_test(unknown_key_suggests_the_closest),
		cmocka_unit_test(unknown_field_option_suggests_the_closest),
		cmocka_unit_test(bad_pattern_is_reported_at_its_column),
		cmocka_unit_test(bad_pattern_column_counts_quote_escapes),
		cmocka_unit_test(bad_detect_pattern_is_reported_and_not_kept),
		cmocka_unit_test(unknown_type_suggests_the_closest),
		cmocka_unit_test(series_needs_named_groups),
		cmocka_unit_test(series_columns_must_name_groups),
		cmocka_unit_test(series_columns_choose_and_order),
		cmocka_unit_test(field_group_must_exist),
		cmocka_unit_test(bad_derive_is_reported_at_its_column),
		cmocka_unit_test(later_definition_replaces_earlier),
		cmocka_unit_test(load_reads_project_and_extra_folders),
		cmocka_unit_test(lookup_suggests_the_closest_parser),
		cmocka_unit_test(detect_picks_the_only_claimant),
		cmocka_unit_test(detect_with_two_claimants_names_both),
		cmocka_unit_test(detect_with_no_claimant_lists_the_parsers),
		cmocka_unit_test(project_parser_beats_builtin),
		cmocka_unit_test(content_claim_beats_extension_claim),
		cmocka_unit_test(json_parser_reads_structured_results),
		cmocka_unit_test(number_style_reads_perf_stat_under_a_german_locale),
		cmocka_unit_test(a_number_not_in_the_number_style_is_a_warning),
		cmocka_unit_test(number_style_is_checked_at_its_place),
		cmocka_unit_test(numbers_with_units_keep_their_text),
		cmocka_unit_test(a_bad_duration_is_a_warning),
		cmocka_unit_test(table_types_type_its_columns),
		cmocka_unit_test(table_types_name_a_missing_column_once),
		cmocka_unit_test(extensions_claim_a_name_without_turning_off_content_detection),
		cmocka_unit_test(a_pattern_wanting_blanks_after_the_caret_is_a_warning_at_them),
		cmocka_unit_test(an_empty_series_and_an_unfound_table_are_warnings_naming_their_pattern),
		cmocka_unit_test(an_optional_series_or_table_may_be_absent_without_a_word),
		cmocka_unit_test(an_aligned_table_ends_at_its_closing_rule),
		cmocka_unit_test(a_box_table_a_terminal_wrapped_is_joined),
		cmocka_unit_test(a_table_pasted_in_comments_is_read),
		cmocka_unit_test(star_field_names_are_snake_cased_like_table_headers),
		cmocka_unit_test(a_parser_is_jit_compiled_when_a_file_is_read_with_it),
	};
	return cmocka_run_group_tests(tests, NULL, drop_leftovers);
}
