/* test_split.c: a parser's split: one file, several runs (the parse
 * stage's engine and definitions). */
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
#include <unistd.h>

#include "base/diag.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "data/run.h"
#include "parse/logparse.h"
#include "capture.h"

#define TMPDIR_TAG "split"
#include "tmpdirs.h"

struct fixture {
	struct capture c;
	struct parser_set *set;
	char *dir, *path;
	struct run *r;
};

/* Runs the definition over text (a file p.log in a fresh folder). */
static struct run *run_split(struct fixture *fx, const char *yaml, const char *text)
{
	fx->dir = make_tmpdir();
	fx->path = path_join(fx->dir, "p.log");
	FILE *f = fopen(fx->path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	fclose(f);
	cap_open(&fx->c);
	fx->set = parsers_new();
	diag_add_source(fx->c.d, "p.yaml", yaml, strlen(yaml));
	assert_true(parsers_add(fx->set, "p.yaml", yaml, strlen(yaml), false, fx->c.d));
	fx->r = parser_run(parsers_at(fx->set, 0), fx->path, fx->path, "tr", fx->c.d);
	return fx->r;
}

static void done(struct fixture *fx)
{
	run_free(fx->r);
	parsers_free(fx->set);
	cap_close(&fx->c);
	free(fx->path);
	drop_tmpdir(fx->dir);
}

static void assert_field(const struct run *r, const char *name, const char *text, long line)
{
	const struct datum *d = run_field(r, name);
	assert_non_null(d);
	if (!d->text || d->len != strlen(text) || memcmp(d->text, text, d->len) != 0)
		fail_msg("%s.%s is '%.*s', wanted '%s'", run_name(r), name,
			 d->text ? (int)d->len : 0, d->text ? d->text : "", text);
	assert_int_equal(d->line, line);
}

static const char two_runs[] = "python train.py --lr 0.1\n"     /* 1 */
			       "== run bs-512 lr=0.1\n"            /* 2 */
			       "epoch 1 loss=0.9 acc=50\n"         /* 3 */
			       "epoch 2 loss=0.5 acc=60\n"         /* 4 */
			       "== run 2nd lr=0.2\n"               /* 5 */
			       "epoch 1 loss=0.8 acc=55\n"         /* 6 */
			       "epoch 2 loss=0.4 acc=70\n";        /* 7 */

static const char named_def[] = "name: tr\n"
				"split: { pattern: '^== run (?<run>\\S+) lr=(?<lr>\\S+)', name: run }\n"
				"fields:\n"
				"  acc: 'acc=(\\S+)'\n"
				"  first_acc: { pattern: 'acc=(\\S+)', pick: first }\n"
				"series:\n"
				"  epochs: 'epoch (?<epoch>\\d+) loss=(?<loss>\\S+)'\n"
				"derive:\n"
				"  best: min(epochs.loss)\n";

static void each_split_line_starts_a_run_with_its_own_values(void **state)
{
	(void)state;
	struct fixture fx;
	struct run *r = run_split(&fx, named_def, two_runs);
	assert_non_null(r);
	assert_string_equal(cap_text(&fx.c), "");
	assert_int_equal(run_member_count(r), 2);
	assert_int_equal(run_field_count(r), 0);
	assert_int_equal(run_line_count(r), 7);
	const struct run *a = run_member_at(r, 0), *b = run_member_at(r, 1);
	/* named by the name group, made identifiers: bs-512, 2nd */
	assert_string_equal(run_name(a), "tr.bs_512");
	assert_string_equal(run_name(b), "tr._2nd");
	/* the lines before the first split line are the first run's */
	assert_int_equal(run_first_line(a), 1);
	assert_int_equal(run_first_line(b), 5);
	assert_int_equal(run_line_count(b), 7);
	/* the split line's other groups are fields */
	assert_field(a, "lr", "0.1", 2);
	assert_field(b, "lr", "0.2", 5);
	/* last and first picks, series and derive: never across runs */
	assert_field(a, "acc", "60", 4);
	assert_field(a, "first_acc", "50", 3);
	assert_field(b, "acc", "70", 7);
	assert_field(b, "first_acc", "55", 6);
	assert_int_equal(series_row_count(run_series(a, "epochs")), 2);
	assert_int_equal(series_row_count(run_series(b, "epochs")), 2);
	assert_int_equal(series_row_line(run_series(b, "epochs"), 0), 6);
	assert_field(a, "best", "0.5", 4);
	assert_field(b, "best", "0.4", 7);
	done(&fx);
}

static void runs_without_a_name_group_are_numbered(void **state)
{
	(void)state;
	static const char def[] = "name: tr\n"
				  "split: '^== run'\n"
				  "fields:\n"
				  "  acc: 'acc=(\\S+)'\n";
	struct fixture fx;
	struct run *r = run_split(&fx, def, two_runs);
	assert_int_equal(run_member_count(r), 2);
	assert_string_equal(run_name(run_member_at(r, 0)), "tr.run1");
	assert_string_equal(run_name(run_member_at(r, 1)), "tr.run2");
	assert_field(run_member_at(r, 1), "acc", "70", 7);
	done(&fx);
}

static void a_file_of_one_run_is_a_plain_run(void **state)
{
	(void)state;
	struct fixture fx;
	struct run *r = run_split(&fx, named_def,
				  "== run only lr=0.3\nepoch 1 loss=0.7 acc=40\n");
	assert_int_equal(run_member_count(r), 0);
	assert_string_equal(run_name(r), "tr");
	assert_field(r, "lr", "0.3", 1);
	assert_field(r, "acc", "40", 2);
	done(&fx);
	/* and so is one whose split pattern matches no line */
	r = run_split(&fx, named_def, "epoch 1 loss=0.7 acc=40\n");
	assert_int_equal(run_member_count(r), 0);
	assert_field(r, "acc", "40", 1);
	done(&fx);
}

static void a_split_line_after_nothing_found_joins_the_run(void **state)
{
	(void)state;
	/* srun's two lines, then the script's: one run, announced thrice */
	static const char def[] = "name: tr\n"
				  "split: '^(?:srun: job \\d+|Using config: )'\n"
				  "fields:\n"
				  "  acc: 'acc=(\\S+)'\n";
	static const char log[] = "srun: job 7 queued and waiting for resources\n"
				  "srun: job 7 has been allocated resources\n"
				  "Using config: tiny\n"
				  "acc=10\n"
				  "Using config: tiny\n"
				  "acc=20\n";
	struct fixture fx;
	struct run *r = run_split(&fx, def, log);
	assert_int_equal(run_member_count(r), 2);
	assert_int_equal(run_first_line(run_member_at(r, 1)), 5);
	assert_field(run_member_at(r, 0), "acc", "10", 4);
	assert_field(run_member_at(r, 1), "acc", "20", 6);
	done(&fx);
}

static void two_runs_of_one_name_are_an_error_at_the_second(void **state)
{
	(void)state;
	struct fixture fx;
	struct run *r = run_split(&fx, named_def,
				  "== run a lr=1\nepoch 1 loss=1 acc=1\n== run a lr=2\nepoch 1 loss=2 acc=2\n");
	assert_null(r);
	char *want = xasprintf("%s:3: error: this run and the one at line 1 are both named 'a' "
			       "(by split's name group): a report could not tell them apart\n"
			       "    3 | == run a lr=2\n",
			       fx.path);
	assert_string_equal(cap_text(&fx.c), want);
	free(want);
	done(&fx);
}

static void expect_def_errors(const char *yaml, const char *want)
{
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_new();
	diag_add_source(c.d, "p.yaml", yaml, strlen(yaml));
	assert_false(parsers_add(set, "p.yaml", yaml, strlen(yaml), false, c.d));
	assert_string_equal(cap_text(&c), want);
	parsers_free(set);
	cap_close(&c);
}

static void a_bad_split_is_an_error_at_its_place(void **state)
{
	(void)state;
	expect_def_errors("name: x\n"
			  "split: { pattern: '^== run (?<run>\\S+)', name: rn }\n",
			  "p.yaml:2:48: error: split's pattern has no group named 'rn' (did you "
			  "mean 'run'?)\n"
			  "    2 | split: { pattern: '^== run (?<run>\\S+)', name: rn }\n"
			  "      |                                                ^~\n");
	expect_def_errors("name: x\n"
			  "split: { name: run }\n",
			  "p.yaml:2:8: error: split needs pattern: (the line that starts each "
			  "run) or end: (the line that ends each run)\n"
			  "    2 | split: { name: run }\n"
			  "      |        ^~~~~~~~~~~~~\n");
	expect_def_errors("name: x\n"
			  "split: { pattern: '^run', end: '^done' }\n",
			  "p.yaml:2:27: error: split takes pattern: (the line that starts each "
			  "run) or end: (the line that ends each run), not both\n"
			  "    2 | split: { pattern: '^run', end: '^done' }\n"
			  "      |                           ^~~\n");
	expect_def_errors("name: x\n"
			  "split: { pattern: '^run', nmae: run }\n",
			  "p.yaml:2:27: error: unknown key 'nmae' in split (did you mean 'name'?)\n"
			  "    2 | split: { pattern: '^run', nmae: run }\n"
			  "      |                           ^~~~\n");
	expect_def_errors("name: x\n"
			  "split: '^run (?<lr>\\S+)'\n"
			  "fields:\n"
			  "  lr: 'lr=(\\S+)'\n",
			  "p.yaml:4:3: error: field 'lr' is also a group of split, which sets it; "
			  "name one of them differently\n"
			  "    4 |   lr: 'lr=(\\S+)'\n"
			  "      |   ^~\n");
	expect_def_errors("name: x\n"
			  "format: json\n"
			  "split: '^run'\n",
			  "p.yaml:3:1: error: parser 'x' reads json: split is for text logs (a "
			  "structured file is one run)\n"
			  "    3 | split: '^run'\n"
			  "      | ^~~~~\n");
}

/* A carried value belongs to the run it was seen in: the next run's
 * rows before their own carry line have none. */
static void a_carried_value_stays_in_its_run(void **state)
{
	(void)state;
	static const char def[] = "name: tr\n"
				  "split: '^== run'\n"
				  "carry:\n"
				  "  - 'phase (?<phase>\\w+)'\n"
				  "series:\n"
				  "  steps: 'step (?<step>\\d+) loss=(?<loss>\\S+)'\n";
	static const char log[] = "== run a\n"
				  "phase warmup\n"
				  "step 1 loss=2.5\n"
				  "== run b\n"
				  "step 1 loss=2.4\n"
				  "phase main\n"
				  "step 2 loss=2.1\n";
	struct fixture fx;
	struct run *r = run_split(&fx, def, log);
	assert_string_equal(cap_text(&fx.c), "");
	assert_int_equal(run_member_count(r), 2);
	const struct series *a = run_series(run_member_at(r, 0), "steps");
	const struct series *b = run_series(run_member_at(r, 1), "steps");
	assert_int_equal(series_row_count(a), 1);
	assert_int_equal(series_row_count(b), 2);
	long ph = series_column_index(b, "phase");
	assert_true(ph >= 0);
	struct datum d;
	series_cell(a, 0, (size_t)ph, &d);
	assert_int_equal(d.len, 6);
	assert_memory_equal(d.text, "warmup", 6);
	series_cell(b, 0, (size_t)ph, &d);
	assert_int_equal(d.kind, DATUM_MISSING);
	series_cell(b, 1, (size_t)ph, &d);
	assert_int_equal(d.len, 4);
	assert_memory_equal(d.text, "main", 4);
	done(&fx);
}

/* split: {end: ...}: the line ends its run (its groups are that run's
 * fields) and the next run starts on the line after it; lines after
 * the last end line that hold nothing are no run. */
static void an_end_line_ends_its_run(void **state)
{
	(void)state;
	static const char def[] = "name: tr\n"
				  "split: { end: 'done in (?<secs>\\S+) s' }\n"
				  "fields:\n"
				  "  acc: 'acc=(\\S+)'\n"
				  "series:\n"
				  "  steps: 'step (?<step>\\d+) loss=(?<loss>\\S+)'\n";
	static const char log[] = "acc=50\n"
				  "step 1 loss=2.5\n"
				  "done in 10 s\n"
				  "```\n"
				  "acc=60\n"
				  "step 1 loss=2.1\n"
				  "step 2 loss=1.9\n"
				  "done in 12 s\n"
				  "step n/a\n"
				  "```\n";
	struct fixture fx;
	struct run *r = run_split(&fx, def, log);
	assert_string_equal(cap_text(&fx.c), "");
	assert_int_equal(run_member_count(r), 2);
	const struct run *a = run_member_at(r, 0), *b = run_member_at(r, 1);
	assert_string_equal(run_name(a), "tr.run1");
	assert_int_equal(run_first_line(a), 1);
	assert_int_equal(run_first_line(b), 4);
	assert_field(a, "acc", "50", 1);
	assert_field(a, "secs", "10", 3);
	assert_field(b, "acc", "60", 5);
	assert_field(b, "secs", "12", 8);
	assert_int_equal(series_row_count(run_series(a, "steps")), 1);
	assert_int_equal(series_row_count(run_series(b, "steps")), 2);
	done(&fx);
	/* one end line, at the end: one run, a plain one */
	r = run_split(&fx, def, "acc=50\ndone in 10 s\nstep n/a\n");
	assert_int_equal(run_member_count(r), 0);
	assert_int_equal(run_line_count(r), 3);
	assert_field(r, "acc", "50", 1);
	assert_field(r, "secs", "10", 2);
	done(&fx);
}

/* A big file (scanned on several threads when it is one run) splits as
 * a small one: two runs, each its own; one run: a plain run. */
static void a_big_file_splits_at_its_end_lines_too(void **state)
{
	(void)state;
	static const char def[] = "name: tr\n"
				  "split: { end: 'done in (?<secs>\\S+) s' }\n"
				  "fields:\n"
				  "  acc: 'acc=(\\S+)'\n"
				  "series:\n"
				  "  steps: 'step (?<step>\\d+) loss=(?<loss>\\S+)'\n";
	struct buf one = {0}, two = {0};
	buf_puts(&one, "acc=50\n");
	for (int i = 1; i <= 400000; i++)
		buf_printf(&one, "step %d loss=%d.5 filler filler filler\n", i, i % 7);
	buf_puts(&one, "done in 10 s\n```\n");
	buf_put(&two, buf_data(&one), one.len);
	buf_puts(&two, "acc=60\nstep 1 loss=2.1\ndone in 12 s\n");
	assert_true(one.len > ((size_t)8 << 20));
	struct fixture fx;
	struct run *r = run_split(&fx, def, buf_data(&one));
	assert_string_equal(cap_text(&fx.c), "");
	assert_int_equal(run_member_count(r), 0);
	assert_field(r, "secs", "10", 400002);
	assert_int_equal(series_row_count(run_series(r, "steps")), 400000);
	done(&fx);
	r = run_split(&fx, def, buf_data(&two));
	assert_string_equal(cap_text(&fx.c), "");
	assert_int_equal(run_member_count(r), 2);
	const struct run *a = run_member_at(r, 0), *b = run_member_at(r, 1);
	assert_field(a, "acc", "50", 1);
	assert_field(a, "secs", "10", 400002);
	assert_int_equal(series_row_count(run_series(a, "steps")), 400000);
	assert_int_equal(run_first_line(b), 400003);
	assert_field(b, "acc", "60", 400004);
	assert_field(b, "secs", "12", 400006);
	assert_int_equal(series_row_count(run_series(b, "steps")), 1);
	done(&fx);
	buf_free(&one);
	buf_free(&two);
}

/* A first-pick field looks again in the run after an end line, on the
 * line right after it too. */
static void a_first_pick_field_looks_again_after_an_end_line(void **state)
{
	(void)state;
	static const char def[] = "name: tr\n"
				  "split: { end: 'Processed (?<samples>\\d+) samples' }\n"
				  "fields:\n"
				  "  batch: { pattern: 'batch (\\d+)', pick: first }\n";
	struct fixture fx;
	struct run *r = run_split(&fx, def,
				  "batch 1\nProcessed 10 samples\nbatch 2\nProcessed 20 samples\n");
	assert_string_equal(cap_text(&fx.c), "");
	assert_int_equal(run_member_count(r), 2);
	assert_field(run_member_at(r, 0), "batch", "1", 1);
	assert_field(run_member_at(r, 0), "samples", "10", 2);
	assert_field(run_member_at(r, 1), "batch", "2", 3);
	assert_field(run_member_at(r, 1), "samples", "20", 4);
	done(&fx);
}

static void identifiers_are_made_of_stems(void **state)
{
	(void)state;
	const char *cases[][2] = {{"bs512", "bs512"}, {"bs-512", "bs_512"}, {"512b", "_512b"},
				  {"a b--c", "a_b_c"},   {"", "_"},          {"é1", "_1"}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *id = identifier_of(cases[i][0]);
		assert_string_equal(id, cases[i][1]);
		assert_true(is_identifier(id));
		free(id);
	}
	assert_false(is_identifier("bs-512"));
	assert_false(is_identifier("2nd"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_split_line_starts_a_run_with_its_own_values),
		cmocka_unit_test(runs_without_a_name_group_are_numbered),
		cmocka_unit_test(a_file_of_one_run_is_a_plain_run),
		cmocka_unit_test(a_split_line_after_nothing_found_joins_the_run),
		cmocka_unit_test(two_runs_of_one_name_are_an_error_at_the_second),
		cmocka_unit_test(a_bad_split_is_an_error_at_its_place),
		cmocka_unit_test(a_carried_value_stays_in_its_run),
		cmocka_unit_test(an_end_line_ends_its_run),
		cmocka_unit_test(a_big_file_splits_at_its_end_lines_too),
		cmocka_unit_test(a_first_pick_field_looks_again_after_an_end_line),
		cmocka_unit_test(identifiers_are_made_of_stems),
	};
	return cmocka_run_group_tests(tests, NULL, drop_leftovers);
}
