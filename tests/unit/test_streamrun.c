/* test_streamrun.c: a run made with its rows streamed
 * (parser_run_stream(), `logdown parse --json`) against the same run
 * kept (parser_run()): the same fields, derives, inputs and
 * diagnostics, byte for byte, and the rows handed on those the kept
 * series holds, in order; and which parsers stream at all. */
#define _XOPEN_SOURCE 700 /* nftw(), rand_r() */
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
#include "data/limit.h"
#include "data/run.h"
#include "parse/logparse.h"
#include "capture.h"

#define TMPDIR_TAG "streamrun"
#include "rundump.h"
#include "tmpdirs.h"

/* Everything of a run but its rows: fields with their texts, lines and
 * inputs, and each series' name, columns, row count and dropped rows. */
static void head_dump(struct buf *b, const struct run *r)
{
	buf_printf(b, "run %s first %ld lines %ld\n", run_name(r), run_first_line(r),
		   run_line_count(r));
	run_dump_fields(b, r);
	for (size_t i = 0; i < run_series_count(r); i++)
		run_dump_series_head(b, run_series_at(r, i));
	for (size_t i = 0; i < run_member_count(r); i++)
		head_dump(b, run_member_at(r, i));
}

/* One row as the JSON writer reads it: kind, number, text, the mark of
 * a number written shortest (as series_append_shortest() keeps it). */
static void row_dump(struct buf *b, const char *series, const struct datum *cells, size_t ncols,
		     uint64_t shortest, long line)
{
	buf_printf(b, "%s %ld:", series, line);
	for (size_t j = 0; j < ncols; j++) {
		const struct datum *d = &cells[j];
		bool sh = j < 64 && shortest >> j & 1 && d->kind == DATUM_NUMBER && d->text && d->len;
		buf_printf(b, " %d/%.17g/%s[%.*s]%s", (int)d->kind, d->num, d->text ? "" : "null",
			   (int)d->len, d->text ? d->text : "", sh ? "*" : "");
	}
	buf_putc(b, '\n');
}

/* The rows of a kept run's series, series by series (of each member in
 * turn), which is how the streamed rows are sorted below. */
static void rows_dump(struct buf *b, const struct run *r)
{
	for (size_t i = 0; i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		size_t ncols = series_column_count(s);
		struct datum *cells = xcalloc(ncols + 1, sizeof *cells);
		for (size_t row = 0; row < series_row_count(s); row++) {
			uint64_t sh = series_row_shortest(s, row, cells);
			row_dump(b, series_name(s), cells, ncols, sh, series_row_line(s, row));
		}
		free(cells);
	}
	for (size_t i = 0; i < run_member_count(r); i++)
		rows_dump(b, run_member_at(r, i));
}

/* The streamed rows, a buffer per series (in the order first given). */
struct taken {
	const struct series *s[64];
	struct buf rows[64];
	size_t n;
};

static void take_row(void *ctx, const struct series *s, const struct datum *cells,
		     uint64_t shortest, long line)
{
	struct taken *t = ctx;
	size_t i = 0;
	while (i < t->n && t->s[i] != s)
		i++;
	if (i == t->n) {
		assert_true(t->n < 64);
		t->s[t->n++] = s;
	}
	row_dump(&t->rows[i], series_name(s), cells, series_column_count(s), shortest, line);
}

/* The streamed rows in the kept run's order: per run, per series. */
static void taken_dump(struct buf *b, const struct taken *t, const struct run *r)
{
	for (size_t i = 0; i < run_series_count(r); i++)
		for (size_t k = 0; k < t->n; k++)
			if (t->s[k] == run_series_at(r, i))
				buf_put(b, buf_data(&t->rows[k]), t->rows[k].len);
	for (size_t i = 0; i < run_member_count(r); i++)
		taken_dump(b, t, run_member_at(r, i));
}

/* Parses text with the definition yaml both ways and checks that they
 * agree; returns the kept run's head (fields and all) for the caller to
 * look at, and its diagnostics in *diags.  Caller frees both. */
static char *both_ways(const char *yaml, const char *text, size_t len, char **diags)
{
	char *dir = make_tmpdir();
	char *log = path_join(dir, "t.log");
	assert_true(file_write(log, text, len));
	struct capture c1, c2;
	cap_open(&c1);
	cap_open(&c2);
	struct parser_set *set = parsers_new();
	diag_add_source(c1.d, "p.yaml", yaml, strlen(yaml));
	diag_add_source(c2.d, "p.yaml", yaml, strlen(yaml));
	assert_true(parsers_add(set, "p.yaml", yaml, strlen(yaml), false, c1.d));
	const struct parser *p = parsers_at(set, 0);
	assert_true(parser_streams(p));
	struct run *kept = parser_run(p, log, "t.log", "t", c1.d);
	struct taken t;
	memset(&t, 0, sizeof t);
	struct row_stream rs = {take_row, &t};
	struct run *streamed = parser_run_stream(p, log, "t.log", "t", &rs, c2.d);
	assert_string_equal(cap_text(&c2), cap_text(&c1));
	*diags = xstrdup(cap_text(&c1));
	char *head = NULL;
	assert_true((kept == NULL) == (streamed == NULL));
	if (kept) {
		struct buf hk = BUF_INIT, hs = BUF_INIT, rk = BUF_INIT, rt = BUF_INIT;
		head_dump(&hk, kept);
		head_dump(&hs, streamed);
		assert_string_equal(buf_data(&hs), buf_data(&hk));
		rows_dump(&rk, kept);
		taken_dump(&rt, &t, streamed);
		assert_string_equal(buf_data(&rt), buf_data(&rk));
		head = buf_detach(&hk);
		buf_free(&hs);
		buf_free(&rk);
		buf_free(&rt);
	}
	for (size_t i = 0; i < t.n; i++)
		buf_free(&t.rows[i]);
	run_free(kept);
	run_free(streamed);
	parsers_free(set);
	cap_close(&c1);
	cap_close(&c2);
	free(log);
	return head;
}

static const char every_fn_def[] =
	"name: t\n"
	"fields:\n"
	"  total: 'total=(\\S+)'\n"
	"series:\n"
	"  t:\n"
	"    pattern: 'step=(?<step>\\d+)(?: x=(?<x>\\S+))?(?: w=(?<w>\\S+))?'\n"
	"    columns: [step, x, w]\n"
	"derive:\n"
	"  first_x: first(t.x)\n"
	"  last_x: last(t.x)\n"
	"  min_x: min(t.x)\n"
	"  max_x: max(t.x)\n"
	"  count_x: count(t.x)\n"
	"  sum_x: sum(t.x)\n"
	"  mean_x: mean(t.x)\n"
	"  first_w: first(t.w)\n"
	"  last_w: last(t.w)\n"
	"  count_w: count(t.w)\n"
	"  span: max(t.step) - min(t.step)\n"
	"  per_total: mean(t.x) / total\n";

/* A random number as a log writes one: 0 to 4 decimals, maybe trailing
 * zeros, a sign, an exponent, nan. */
static void put_number(struct buf *b, unsigned *seed)
{
	int k = rand_r(seed) % 20;
	if (k == 0)
		buf_puts(b, "nan");
	else if (k == 1)
		buf_printf(b, "%de-%d", rand_r(seed) % 1000, rand_r(seed) % 5);
	else if (k == 2)
		buf_printf(b, "-%d.%0*d", rand_r(seed) % 100, 1 + rand_r(seed) % 3,
			   rand_r(seed) % 100);
	else
		buf_printf(b, "%d.%0*d", rand_r(seed) % 100000, k % 5, rand_r(seed) % 10000);
}

static void every_function_streamed_gives_the_kept_series_value(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 40; seed++) {
		unsigned s = seed;
		struct buf log = BUF_INIT;
		int rows = seed == 1 ? 0 : rand_r(&s) % (seed < 10 ? 20 : 4000);
		for (int i = 0; i < rows; i++) {
			buf_printf(&log, "step=%d", rand_r(&s) % 5000);
			if (rand_r(&s) % 7) {
				buf_puts(&log, " x=");
				put_number(&log, &s);
			}
			if (rand_r(&s) % 3 == 0)
				buf_printf(&log, " w=%s", rand_r(&s) % 2 ? "adam" : "sgd");
			buf_puts(&log, rand_r(&s) % 50 ? "\n" : "\nnoise line\n");
		}
		if (seed % 3)
			buf_puts(&log, "total=12.50\n");
		char *diags;
		char *head = both_ways(every_fn_def, log.data ? log.data : "", log.len, &diags);
		if (seed == 5) {
			/* what the comparison looks at, once */
			assert_non_null(strstr(head, "field mean_x 1 "));
			assert_non_null(strstr(head, "field count_x 1 "));
		}
		free(head);
		free(diags);
		buf_free(&log);
	}
}

/* A string where numbers are needed: the same error, at the same cell,
 * whichever way the rows went. */
static void a_string_in_a_mean_is_the_same_error(void **state)
{
	(void)state;
	const char *def = "name: t\n"
			  "series:\n"
			  "  t: 'step=(?<step>\\d+) v=(?<v>\\S+)'\n"
			  "derive:\n"
			  "  m: mean(t.v)\n"
			  "  n: max(t.v)\n"
			  "  c: count(t.v)\n";
	const char *log = "step=1 v=1.5\nstep=2 v=oops\nstep=3 v=2\nstep=4 v=again\n";
	char *diags;
	char *head = both_ways(def, log, strlen(log), &diags);
	assert_non_null(strstr(diags, "mean needs numbers, but t.v holds the string 'oops' "
				      "(t.log:2)"));
	assert_non_null(strstr(head, "field c 1 4 "));
	free(head);
	free(diags);
}

/* A file of several runs: each run's derives are its own rows'. */
static void each_runs_derives_are_its_own_rows(void **state)
{
	(void)state;
	const char *def = "name: t\n"
			  "split: { end: '^done' }\n"
			  "series:\n"
			  "  t: 'step=(?<step>\\d+) loss=(?<loss>\\S+)'\n"
			  "  e: 'eval=(?<v>\\S+)'\n"
			  "derive:\n"
			  "  final: last(t.loss)\n"
			  "  best: min(t.loss)\n"
			  "  mean_eval: mean(e.v)\n";
	struct buf log = BUF_INIT;
	for (int run = 0; run < 3; run++) {
		for (int i = 1; i <= 200 * (run + 1); i++) {
			buf_printf(&log, "step=%d loss=%d.%02d\n", i, 9 - run, i % 100);
			if (i % 50 == 0 && run != 1)
				buf_printf(&log, "eval=%d.5\n", i);
		}
		buf_puts(&log, "done\n");
	}
	char *diags;
	char *head = both_ways(def, log.data, log.len, &diags);
	assert_non_null(strstr(head, "run t.run3 "));
	assert_non_null(strstr(head, "field best 1 9 [9.00]"));
	assert_non_null(strstr(head, "field best 1 7 [7.00]"));
	free(head);
	free(diags);
	buf_free(&log);
}

/* MPI ranks print each row once a rank: the copies are dropped from the
 * stream as from the kept series. */
static void other_ranks_copies_are_not_streamed(void **state)
{
	(void)state;
	const char *def = "name: t\n"
			  "series:\n"
			  "  t: 'step=(?<step>\\d+) loss=(?<loss>\\S+)'\n"
			  "derive:\n"
			  "  n: count(t.loss)\n"
			  "  s: sum(t.loss)\n";
	struct buf log = BUF_INIT;
	for (int i = 1; i <= 300; i++)
		for (int rank = 0; rank < 3; rank++)
			buf_printf(&log, "[1,%d]<stdout>:step=%d loss=%d.25\n", rank, i, i % 7);
	buf_puts(&log, "step=1 loss=1.25\n"); /* no prefix: kept */
	char *diags;
	char *head = both_ways(def, log.data, log.len, &diags);
	assert_non_null(strstr(head, "series t rows 301 "));
	free(head);
	free(diags);
	buf_free(&log);
}

/* Rows past limit series_rows are dropped (an error, the same) and not
 * handed on. */
static void rows_past_the_limit_are_the_same_error(void **state)
{
	(void)state;
	const char *def = "name: t\n"
			  "series:\n"
			  "  t: 'step=(?<step>\\d+)'\n";
	struct buf log = BUF_INIT;
	for (int i = 1; i <= 50; i++)
		buf_printf(&log, "step=%d\n", i);
	unsigned long was = limit_get(LIMIT_SERIES_ROWS);
	limit_set(LIMIT_SERIES_ROWS, 20);
	char *diags;
	char *head = both_ways(def, log.data, log.len, &diags);
	limit_set(LIMIT_SERIES_ROWS, was);
	assert_null(head);
	assert_non_null(strstr(diags, "series 't' has more than 20 rows: 30 more were not read"));
	free(diags);
	buf_free(&log);
}

/* Derives that need a series' rows keep them: std, median, percentile,
 * a row lookup, a column used as a list; and a structured format. */
static void only_streamable_derives_stream(void **state)
{
	(void)state;
	static const struct {
		const char *derive;
		bool streams;
	} cases[] = {
		{"mean(t.x)", true},
		{"first(t.x) + last(t.x) * count(t.step)", true},
		{"round(sum(t.x), 2)", true},
		{"total * 2", true},
		{"std(t.x)", false},
		{"median(t.x)", false},
		{"percentile(t.x, 90)", false},
		{"t[step=3].x", false},
		{"abs(mean(t.x)) + max(t.x)", true},
		{"mean(abs(t.x))", false},
		{"t.x", false},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *yaml = xasprintf("name: t\n"
				       "fields:\n"
				       "  total: 'total=(\\S+)'\n"
				       "series:\n"
				       "  t: 'step=(?<step>\\d+) x=(?<x>\\S+)'\n"
				       "derive:\n"
				       "  d: %s\n",
				       cases[i].derive);
		struct capture c;
		cap_open(&c);
		struct parser_set *set = parsers_new();
		assert_true(parsers_add(set, "p.yaml", yaml, strlen(yaml), false, c.d));
		if (parser_streams(parsers_at(set, 0)) != cases[i].streams)
			fail_msg("derive %s: parser_streams() is %d", cases[i].derive,
				 !cases[i].streams);
		parsers_free(set);
		cap_close(&c);
		free(yaml);
	}
	struct capture c;
	cap_open(&c);
	struct parser_set *set = parsers_load(NULL, NULL, c.d);
	assert_false(parser_streams(parsers_find(set, "json")));
	assert_true(parser_streams(parsers_find(set, "cerebras")));
	parsers_free(set);
	cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_function_streamed_gives_the_kept_series_value),
		cmocka_unit_test(a_string_in_a_mean_is_the_same_error),
		cmocka_unit_test(each_runs_derives_are_its_own_rows),
		cmocka_unit_test(other_ranks_copies_are_not_streamed),
		cmocka_unit_test(rows_past_the_limit_are_the_same_error),
		cmocka_unit_test(only_streamable_derives_stream),
	};
	return cmocka_run_group_tests(tests, NULL, drop_leftovers);
}
