/* test_runstore.c: the run store (data/runstore.c): a run written and
 * mapped back reads exactly as the run parsed, for every fixture the
 * built-in parsers read; a store truncated, with any byte changed,
 * written by another version or format, under another run's key, or
 * sealed by another user, is refused and says why. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "data/limit.h"
#include "data/runstore.h"
#include "data/seal.h"
#include "builtincheck.h"
#include "rundump.h"


static char *dump_text(const struct run *r)
{
	struct buf b = BUF_INIT;
	run_dump(&b, r);
	return buf_detach(&b);
}

static char *tmp_file(void)
{
	char *path = xstrdup("/tmp/logdown-test-runstore-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return path;
}

/* The user's key the stores are sealed with, and another user's. */
static struct seal_key mine, theirs;

static int make_keys(void **state)
{
	unsigned char raw[SEAL_KEY_BYTES];
	memset(raw, 0x42, sizeof raw);
	seal_key_from(&mine, raw);
	raw[0] = 0x43;
	seal_key_from(&theirs, raw);
	return load_builtins(state);
}

/* Writes r under key into path (anew). */
static void store(const char *path, const struct cache_key *key, const struct run *r)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_true(runstore_write(fd, &mine, key, r));
	close(fd);
}

/* Maps path as key's run; *v says why not. */
static struct run *load(const char *path, const struct cache_key *key,
			enum runstore_verdict *v)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	struct run *r = runstore_map(fd, (size_t)st.st_size, &mine, key, false, v);
	close(fd);
	return r;
}

static char *store_bytes(const struct run *r, const struct cache_key *key, const char *threads,
			 size_t *len);

/* r written and mapped back dumps as r; with the store's bytes.  And the
 * mapped run stored again gives the same bytes: its rows are a view's,
 * which the writer surveys itself, where r's were surveyed as they were
 * appended (series_survey()). */
static void round_trip(const struct run *r, const char *what)
{
	struct cache_key key = cache_hash_bytes(what, strlen(what));
	char *path = tmp_file();
	store(path, &key, r);
	enum runstore_verdict v;
	struct run *back = load(path, &key, &v);
	if (!back)
		fail_msg("%s: not read back (%d)", what, (int)v);
	const char *threads = getenv("LOGDOWN_STORE_THREADS");
	threads = threads ? threads : "1";
	size_t len, again_len;
	char *bytes = store_bytes(r, &key, threads, &len);
	char *again = store_bytes(back, &key, threads, &again_len);
	if (len != again_len || memcmp(bytes, again, len) != 0) {
		size_t at = 0;
		while (at < len && at < again_len && bytes[at] == again[at])
			at++;
		fail_msg("%s: stored from its rows (%zu bytes) and from its mapped store (%zu) differ "
			 "at byte %zu",
			 what, len, again_len, at);
	}
	free(bytes);
	free(again);
	char *want = dump_text(r), *got = dump_text(back);
	if (strcmp(want, got) != 0)
		fail_msg("%s: read back differently:\n--- parsed\n%.2000s\n--- mapped\n%.2000s", what,
			 want, got);
	free(want);
	free(got);
	/* a mapped series' whole rows (series_row(), as parse --json reads
	 * them) are its cells */
	for (size_t i = 0; i < run_series_count(back); i++) {
		const struct series *sv = run_series_at(back, i);
		size_t nc = series_column_count(sv);
		struct datum *row = xcalloc(nc ? nc : 1, sizeof *row);
		for (size_t k = 0; k < series_row_count(sv); k++) {
			series_row(sv, k, row);
			for (size_t j = 0; j < nc; j++) {
				struct datum d;
				series_cell(sv, k, j, &d);
				if (row[j].kind != d.kind || row[j].line != d.line ||
				    row[j].len != d.len || row[j].text != d.text ||
				    memcmp(&row[j].num, &d.num, sizeof d.num) != 0)
					fail_msg("%s: series %zu row %zu column %zu: series_row() "
						 "differs from series_cell()",
						 what, i, k, j);
			}
		}
		free(row);
	}
	run_free(back);
	unlink(path);
	free(path);
}

static size_t fixture_runs;

static int each_fixture(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	const struct parser *p = parsers_detect(builtins, path, loc_line(path, 0), quiet.d);
	struct run *r = p ? parser_run(p, path, path, "r", quiet.d) : NULL;
	if (!r)
		return 0;
	/* a split file's members are runs of their own; the store keeps
	 * one run without members (cache.c stores no split file) */
	if (run_member_count(r) == 0) {
		round_trip(r, path);
		fixture_runs++;
	}
	for (size_t i = 0; i < run_member_count(r); i++) {
		char *what = xasprintf("%s member %zu", path, i);
		round_trip(run_member_at(r, i), what);
		fixture_runs++;
		free(what);
	}
	run_free(r);
	return 0;
}

static void every_fixture_reads_back_as_parsed(void **state)
{
	(void)state;
	fixture_runs = 0;
	assert_int_equal(nftw("tests/fixtures", each_fixture, 16, FTW_PHYS), 0);
	/* the fixtures hold 72 runs the built-ins read (members counted) */
	if (fixture_runs < 70)
		fail_msg("only %zu fixture runs read: %s", fixture_runs, said());
}

/* The edges the fixtures may not reach: a cell on a line after its
 * row's, rows past limit series_rows (counted), lines far apart (wide
 * line offsets), negative and computed lines, an empty series, texts
 * with NUL-free bytes of every kind, a field's inputs. */
static void edge_runs_read_back(void **state)
{
	(void)state;
	struct run *r = run_new("edge", "logs/e.json", "jsonl");
	struct datum f = {DATUM_NUMBER, 2.5, "2.50", 4, 7};
	run_set_field(r, "x", &f);
	run_set_field_inputs(r, "x", "a = 1 (logs/e.json:3)");
	struct datum m = {DATUM_MISSING, 0, NULL, 0, 0};
	run_set_field(r, "missing", &m);
	struct datum e = {DATUM_STRING, 0, "", 0, 9};
	run_set_field(r, "empty", &e);
	run_set_line_count(r, 123456789);
	run_set_first_line(r, 5);
	static const char *const cols[] = {"a", "b"};
	struct series *s = run_add_series(r, "s", cols, 2);
	for (long row = 0; row < 1000; row++) {
		long line = row < 500 ? row + 1 : row * 100000 + (row % 3 ? 0 : 4000000000L);
		char text[32];
		int n = snprintf(text, sizeof text, "%ld.0", row);
		struct datum cells[2] = {
			{DATUM_NUMBER, (double)row, text, (size_t)n, line},
			{row % 7 ? DATUM_STRING : DATUM_MISSING, 0, row % 7 ? "\xc3\xa9t\xe9" : NULL,
			 row % 7 ? 4u : 0u, line + (row % 5 == 0 ? row + 1 : 0)},
		};
		series_append(s, cells, line);
	}
	run_add_series(r, "empty", cols, 2);
	struct series *neg = run_add_series(r, "neg", cols, 1);
	struct datum c = {DATUM_NUMBER, -1, "-1", 2, -3};
	series_append(neg, &c, -3);
	c.line = 0;
	series_append(neg, &c, 0);
	round_trip(r, "edge");
	run_free(r);

	/* rows past the limit: counted, the first's line kept */
	limit_set(LIMIT_SERIES_ROWS, 3);
	r = run_new("capped", "logs/c.log", "p");
	s = run_add_series(r, "t", cols, 1);
	for (long row = 1; row <= 10; row++) {
		struct datum d = {DATUM_NUMBER, (double)row, "1", 1, row};
		series_append(s, &d, row * 2);
	}
	long first;
	assert_int_equal(series_dropped(s, &first), 7);
	round_trip(r, "capped");
	run_free(r);
	limit_reset(NULL);
}

/* The bytes of the store of r under key, written with the writer's
 * threads set to `threads` (LOGDOWN_STORE_THREADS). */
static char *store_bytes(const struct run *r, const struct cache_key *key, const char *threads,
			 size_t *len)
{
	char *was = getenv("LOGDOWN_STORE_THREADS") ? xstrdup(getenv("LOGDOWN_STORE_THREADS")) : NULL;
	assert_int_equal(setenv("LOGDOWN_STORE_THREADS", threads, 1), 0);
	char *path = tmp_file();
	store(path, key, r);
	if (was)
		setenv("LOGDOWN_STORE_THREADS", was, 1);
	else
		unsetenv("LOGDOWN_STORE_THREADS");
	free(was);
	struct buf b = BUF_INIT;
	assert_true(file_read(path, &b, NULL));
	unlink(path);
	free(path);
	*len = b.len;
	return buf_detach(&b);
}

/* A series big enough for the writer's two threads (each over half of
 * its rows) is stored as one thread stores it, byte for byte, and reads
 * back as parsed: with what differs between the halves (a column whose
 * cells all have one kind in each half but not the same, one with
 * numbers in its second half only, texts of every length, cells on
 * lines after their row's in both halves, a jump of the lines), an
 * odd row count, and beside a small series written on one thread. */
static void a_big_series_is_stored_the_same_on_one_thread_and_two(void **state)
{
	(void)state;
	struct run *r = run_new("big", "logs/big.log", "p");
	static const char *const cols[] = {"step", "kind", "late", "note"};
	struct series *small = run_add_series(r, "small", cols, 2);
	struct series *s = run_add_series(r, "train", cols, 4);
	const long n = 150001;
	for (long row = 0; row < n; row++) {
		long line = row < 90000 ? 2 * row + 1 : 2 * row + 1 + 70000;
		char step[32], note[48];
		int k = snprintf(step, sizeof step, "%ld", row * 10);
		int m = snprintf(note, sizeof note, "%.*s", (int)(row % 37), "abcdefghijklmnopqrstuvwxyz0123456789!");
		bool second = row >= n / 2;
		struct datum cells[4] = {
			{DATUM_NUMBER, (double)(row * 10), step, (size_t)k, line},
			second ? (struct datum){DATUM_MISSING, 0, NULL, 0, line}
			       : (struct datum){DATUM_STRING, 0, "train", 5, line},
			second && row % 3 ? (struct datum){DATUM_NUMBER, 0.5, "0.50", 4, line}
					  : (struct datum){DATUM_MISSING, 0, NULL, 0, line},
			{DATUM_STRING, 0, note, (size_t)m, line + (row % 1001 == 0 ? 1 : 0)},
		};
		series_append(s, cells, line);
		if (row < 100)
			series_append(small, cells, line);
	}
	struct cache_key key = cache_hash_bytes("big", 3);
	size_t one_len, two_len;
	char *one = store_bytes(r, &key, "1", &one_len);
	char *two = store_bytes(r, &key, "2", &two_len);
	assert_int_equal(one_len, two_len);
	if (memcmp(one, two, one_len) != 0) {
		size_t at = 0;
		while (one[at] == two[at])
			at++;
		fail_msg("the stores of one thread and two differ at byte %zu of %zu", at, one_len);
	}
	free(one);
	free(two);
	assert_int_equal(setenv("LOGDOWN_STORE_THREADS", "2", 1), 0);
	round_trip(r, "big");
	unsetenv("LOGDOWN_STORE_THREADS");
	run_free(r);
}

/* Numbers whose text does and does not give them back (a series in
 * memory keeps the former as their text alone, run.c): the store keeps
 * each one's double, and the mapped run reads as the run in memory and
 * as the cells appended, bit for bit. */
static void numbers_with_and_without_their_texts_read_back(void **state)
{
	(void)state;
	static const struct datum cells[] = {
		{DATUM_NUMBER, 7.125, "7.12500", 7, 3},
		{DATUM_NUMBER, 2934.7, "2934.7", 6, 3},
		{DATUM_NUMBER, 98.07, "98.07%", 6, 3},
		{DATUM_NUMBER, 1e-5, "1e-5", 4, 3},
		{DATUM_NUMBER, 2.0, "1", 1, 3},
		{DATUM_NUMBER, -0.0, "-0", 2, 3},
		{DATUM_NUMBER, 0.0, "-0", 2, 3},
		{DATUM_NUMBER, 1.5, NULL, 0, 0},
		{DATUM_STRING, 0, "7.5", 3, 3},
	};
	enum { N = sizeof cells / sizeof cells[0] };
	static const char *const cols[N] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
	struct run *r = run_new("nums", "logs/n.log", "p");
	struct series *s = run_add_series(r, "s", cols, N);
	for (long row = 0; row < 300; row++)
		series_append_shortest(s, cells, 3, row % 2 ? 2 : 0);
	round_trip(r, "nums");
	struct cache_key key = cache_hash_bytes("nums", 4);
	char *path = tmp_file();
	store(path, &key, r);
	enum runstore_verdict v;
	struct run *back = load(path, &key, &v);
	assert_non_null(back);
	const struct series *sv = run_series(back, "s");
	assert_non_null(sv);
	assert_int_equal(series_row_count(sv), 300);
	for (size_t row = 0; row < 300; row += 299) {
		for (size_t j = 0; j < N; j++) {
			struct datum d;
			series_cell(sv, row, j, &d);
			double want = cells[j].kind == DATUM_NUMBER ? cells[j].num : 0;
			if (d.kind != cells[j].kind || memcmp(&d.num, &want, sizeof want) != 0 ||
			    d.len != cells[j].len || (d.text == NULL) != (cells[j].text == NULL))
				fail_msg("row %zu column %zu: %d %.17g [%.*s]", row, j, (int)d.kind,
					 d.num, (int)d.len, d.text ? d.text : "");
		}
	}
	run_free(back);
	unlink(path);
	free(path);
	run_free(r);
}

/* The size of the store of r. */
static size_t store_size(const struct run *r, const char *what)
{
	struct cache_key key = cache_hash_bytes(what, strlen(what));
	size_t len;
	free(store_bytes(r, &key, "1", &len));
	return len;
}

/* A series of n rows of three columns: step ("%d"), loss ("%.5f") and
 * rate ("%.2f", trailing zeros kept), as a training log prints them; a
 * fourth column's decimals vary (dec_varies) or not. */
static struct run *training_run(long n, bool dec_varies)
{
	struct run *r = run_new("t", "logs/t.log", "p");
	static const char *const cols[] = {"step", "loss", "rate", "lr"};
	struct series *s = run_add_series(r, "train", cols, 4);
	for (long row = 0; row < n; row++) {
		char text[4][32];
		struct datum cells[4];
		int len[4] = {
			snprintf(text[0], 32, "%ld", row * 100),
			snprintf(text[1], 32, "%.5f", 10.0 / (double)(row + 1) - (row % 9 == 0 ? 20 : 0)),
			snprintf(text[2], 32, "%.2f", 2900 + (double)(row % 100) / 10),
			dec_varies ? snprintf(text[3], 32, row % 2 ? "0.25" : "0.5")
				   : snprintf(text[3], 32, "-0.000"),
		};
		for (int j = 0; j < 4; j++)
			cells[j] = (struct datum){DATUM_NUMBER, strtod(text[j], NULL), text[j],
						  (size_t)len[j], 2 * row + 5};
		series_append(s, cells, 2 * row + 5);
	}
	return r;
}

/* A column of plain decimals with as many decimals on every row (a
 * step, a loss "%.5f", a rate "%.2f" with its trailing zeros, "-0.000")
 * is stored as its numbers alone, no texts and no text ends, and its
 * texts read back byte for byte, made again from the numbers; a column
 * whose decimals vary keeps its texts.  A mapped run appended to and
 * stored again (a running job's log: series_take_view()) keeps its
 * columns of numbers alone when the new rows fit them and stores every
 * text when they do not. */
static void plain_decimals_are_stored_as_numbers_alone(void **state)
{
	(void)state;
	const long n = 3000;
	struct run *fixed = training_run(n, false), *varies = training_run(n, true);
	round_trip(fixed, "fixed");
	round_trip(varies, "varies");
	/* every column its numbers alone, over two threads (each row's
	 * numbers read in one pass, series_row_numbers()) */
	struct run *big = training_run(140000, false);
	assert_int_equal(setenv("LOGDOWN_STORE_THREADS", "2", 1), 0);
	round_trip(big, "fixed, two threads");
	unsetenv("LOGDOWN_STORE_THREADS");
	run_free(big);
	size_t a = store_size(fixed, "fixed"), b = store_size(varies, "varies");
	/* 4 columns of doubles, two bytes of line a row (lines 2 apart,
	 * 510 across a block), the line blocks, the header and the
	 * directory */
	if (a > (size_t)n * (4 * 8 + 2) + 2048)
		fail_msg("a store of %ld rows of plain decimals takes %zu bytes", n, a);
	/* the varying column's texts (3 or 4 bytes) and ends (4 bytes) */
	if (b < a + (size_t)n * 7)
		fail_msg("with a column whose decimals vary: %zu bytes against %zu", b, a);
	/* the texts made from the numbers, as appended */
	struct cache_key key = cache_hash_bytes("fixed", 5);
	char *path = tmp_file();
	store(path, &key, fixed);
	enum runstore_verdict v;
	struct run *back = load(path, &key, &v);
	assert_non_null(back);
	const struct series *sv = run_series(back, "train");
	struct datum d;
	series_cell(sv, 9, 2, &d);
	assert_int_equal(d.len, 7);
	assert_memory_equal(d.text, "2900.90", 7);
	series_cell(sv, 2999, 3, &d);
	assert_int_equal(d.len, 6);
	assert_memory_equal(d.text, "-0.000", 6);
	assert_true(signbit(d.num));
	series_cell(sv, 0, 1, &d);
	assert_int_equal(d.len, 9);
	assert_memory_equal(d.text, "-10.00000", 9);
	/* a loop over the numbers makes no text */
	int dec;
	assert_false(series_cell_number(sv, 2999, 1, &d, &dec));
	assert_null(d.text);
	assert_int_equal(dec, 5);
	assert_true(d.num == strtod("0.00333", NULL));

	/* appended to: rows that fit, then rows that do not */
	for (int fit = 1; fit >= 0; fit--) {
		struct run *more = training_run(n + 40, !fit);
		struct run *grown = run_new("t", "logs/t.log", "p");
		const struct series *from = run_series(more, "train");
		struct series *s = run_add_series(grown, "train",
						  (const char *const[]){"step", "loss", "rate", "lr"}, 4);
		assert_true(series_take_view(s, sv, (size_t)n));
		struct datum cells[4];
		for (size_t row = (size_t)n; row < series_row_count(from); row++) {
			series_row(from, row, cells);
			series_append(s, cells, cells[0].line);
		}
		if (fit) { /* as the whole run parsed */
			char *want = dump_text(more), *got = dump_text(grown);
			assert_string_equal(got, want);
			free(want);
			free(got);
		}
		/* a chart's points (series_numbers()): the store's numbers
		 * copied, then the rows appended, each as its cell gives it */
		for (size_t col = 0; col < 4; col++) {
			size_t rows = series_row_count(s), first = (size_t)n - 5;
			double *pts = xcalloc(rows - first, sizeof *pts);
			series_numbers(s, col, first, rows, pts);
			for (size_t row = first; row < rows; row++) {
				int k;
				series_cell_number(s, row, col, &d, &k);
				double want = d.kind == DATUM_NUMBER ? d.num : NAN;
				if (memcmp(&pts[row - first], &want, sizeof want) != 0)
					fail_msg("point %zu of column %zu: %.17g, the cell %.17g", row,
						 col, pts[row - first], want);
			}
			free(pts);
		}
		round_trip(grown, fit ? "grown, fitting" : "grown, not fitting");
		size_t g = store_size(grown, "grown");
		if (fit ? g > (size_t)(n + 40) * (4 * 8 + 2) + 2048 : g < a + (size_t)(n + 40) * 7)
			fail_msg("grown (%s): %zu bytes", fit ? "fitting" : "not fitting", g);
		run_free(grown);
		run_free(more);
	}
	run_free(back);
	unlink(path);
	free(path);
	run_free(fixed);
	run_free(varies);
}

/* Two readers of one mapped run's column of plain decimals, at once:
 * each block of texts is made by one of them or both, kept once, and
 * every text is the one appended (under ThreadSanitizer in `make tsan`:
 * no race). */
struct reader {
	const struct series *back, *want;
	bool ok;
};

static void *read_texts(void *arg)
{
	struct reader *rd = arg;
	rd->ok = true;
	for (size_t row = 0; row < series_row_count(rd->back); row++) {
		for (size_t j = 0; j < series_column_count(rd->back); j++) {
			struct datum a, b;
			series_cell(rd->back, row, j, &a);
			series_cell(rd->want, row, j, &b);
			if (a.len != b.len || memcmp(a.text, b.text, a.len) != 0)
				rd->ok = false;
		}
	}
	return NULL;
}

static void two_threads_read_the_texts_printed_back(void **state)
{
	(void)state;
	struct run *r = training_run(5000, false);
	struct cache_key key = cache_hash_bytes("two", 3);
	char *path = tmp_file();
	store(path, &key, r);
	enum runstore_verdict v;
	struct run *back = load(path, &key, &v);
	assert_non_null(back);
	struct reader rd[2] = {{run_series(back, "train"), run_series(r, "train"), false},
			       {run_series(back, "train"), run_series(r, "train"), false}};
	assert_non_null(series_view_of(rd[0].back));
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, read_texts, &rd[1]), 0);
	read_texts(&rd[0]);
	pthread_join(t, NULL);
	assert_true(rd[0].ok);
	assert_true(rd[1].ok);
	run_free(back);
	unlink(path);
	free(path);
	run_free(r);
}

/* A small store of the Cerebras fixture, in memory. */
static char *fixture_store(const struct cache_key *key, size_t *len)
{
	const char *path = "tests/fixtures/cerebras/bs512.log";
	const struct parser *p = parsers_detect(builtins, path, loc_line(path, 0), quiet.d);
	assert_non_null(p);
	struct run *r = parser_run(p, path, path, "r", quiet.d);
	assert_non_null(r);
	char *file = tmp_file();
	store(file, key, r);
	run_free(r);
	struct buf b = BUF_INIT;
	assert_true(file_read(file, &b, NULL));
	unlink(file);
	free(file);
	*len = b.len;
	return buf_detach(&b);
}

static enum runstore_verdict verdict_of(const char *data, size_t len, const struct cache_key *key)
{
	char *path = tmp_file();
	int fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	enum runstore_verdict v;
	struct run *r = load(path, key, &v);
	assert_true((r != NULL) == (v == RUNSTORE_OK));
	run_free(r);
	unlink(path);
	free(path);
	return v;
}

/* Recomputes the header's checksum, as a forger would; with k, seals
 * the store again with it first (its id at 72, the seal at 88 over the
 * 88 bytes before and the body after the 128-byte header): with the
 * user's own key, what is left are the structural checks. */
static void fix_sums(char *data, size_t len, const struct seal_key *k)
{
	if (k) {
		memcpy(data + 72, k->id, SEAL_ID_BYTES);
		seal_make(k, data, 88, data + 128, len - 128, (unsigned char *)data + 88);
	}
	uint64_t sum = XXH3_64bits(data, 120);
	memcpy(data + 120, &sum, 8);
}

static void truncated_or_changed_stores_are_refused(void **state)
{
	(void)state;
	struct cache_key key = cache_hash_bytes("k", 1);
	size_t len;
	char *data = fixture_store(&key, &len);
	assert_int_equal(verdict_of(data, len, &key), RUNSTORE_OK);
	assert_true(len > 1000);
	/* every length short of the whole, and one byte more */
	for (size_t n = 0; n < len; n += n < 200 ? 1 : 37)
		assert_int_equal(verdict_of(data, n, &key), RUNSTORE_DAMAGED);
	assert_int_equal(verdict_of(data, len - 1, &key), RUNSTORE_DAMAGED);
	char *longer = xmalloc(len + 1);
	memcpy(longer, data, len);
	longer[len] = '\n';
	assert_int_equal(verdict_of(longer, len + 1, &key), RUNSTORE_DAMAGED);
	free(longer);
	/* any byte changed, header or body: the header's checksum or the
	 * seal sees it */
	for (size_t at = 0; at < len; at += at < 256 ? 1 : 13) {
		data[at] ^= 0x20;
		enum runstore_verdict want = at < 128 ? RUNSTORE_DAMAGED : RUNSTORE_FORGED;
		if (verdict_of(data, len, &key) != want)
			fail_msg("a change at byte %zu of %zu was not seen", at, len);
		/* with the header's checksum fixed up, the seal does */
		if (at < 120) {
			char *copy = xmalloc(len);
			memcpy(copy, data, len);
			fix_sums(copy, len, NULL);
			if (verdict_of(copy, len, &key) == RUNSTORE_OK)
				fail_msg("a change at byte %zu, checksum fixed, was not seen", at);
			free(copy);
		}
		data[at] ^= 0x20;
	}
	/* another run's store under this key's name */
	struct cache_key other = cache_hash_bytes("other", 5);
	assert_int_equal(verdict_of(data, len, &other), RUNSTORE_DAMAGED);
	/* a directory that says more than its bytes, checksums fixed up */
	char *copy = xmalloc(len);
	memcpy(copy, data, len);
	uint64_t dir_off;
	memcpy(&dir_off, copy + 56, 8);
	memset(copy + dir_off + 8, 0xff, 8); /* the run name's length */
	fix_sums(copy, len, &mine);
	assert_int_equal(verdict_of(copy, len, &key), RUNSTORE_DAMAGED);
	free(copy);
	free(data);
}

static void another_version_or_format_is_said_so(void **state)
{
	(void)state;
	struct cache_key key = cache_hash_bytes("k", 1);
	size_t len;
	setenv("LOGDOWN_CACHE_VERSION", "0.0-other", 1);
	char *data = fixture_store(&key, &len);
	unsetenv("LOGDOWN_CACHE_VERSION");
	assert_int_equal(verdict_of(data, len, &key), RUNSTORE_OTHER_VERSION);
	setenv("LOGDOWN_CACHE_VERSION", "0.0-other", 1);
	assert_int_equal(verdict_of(data, len, &key), RUNSTORE_OK);
	unsetenv("LOGDOWN_CACHE_VERSION");
	free(data);
	/* a later format, its checksums right */
	data = fixture_store(&key, &len);
	uint32_t format = RUNSTORE_FORMAT + 1;
	memcpy(data + 16, &format, 4);
	fix_sums(data, len, &mine);
	assert_int_equal(verdict_of(data, len, &key), RUNSTORE_OTHER_VERSION);
	free(data);
}

/* A store another user sealed (their key) is said to be theirs; one
 * whose loss was changed and whose checksum was fixed up is forged;
 * either, sealed again with this user's key, would be read: the seal is
 * what keeps them out. */
static void a_store_sealed_by_another_or_edited_is_refused(void **state)
{
	(void)state;
	struct cache_key key = cache_hash_bytes("k", 1);
	size_t len;
	char *data = fixture_store(&key, &len);
	fix_sums(data, len, &theirs);
	assert_int_equal(verdict_of(data, len, &key), RUNSTORE_OTHER_KEY);
	fix_sums(data, len, &mine);
	assert_int_equal(verdict_of(data, len, &key), RUNSTORE_OK);
	/* the final loss, 7.125, as a number in the body */
	double was = 7.125, now = 9.125;
	char *at = memmem(data + 128, len - 128, &was, sizeof was);
	assert_non_null(at);
	memcpy(at, &now, sizeof now);
	fix_sums(data, len, NULL);
	assert_int_equal(verdict_of(data, len, &key), RUNSTORE_FORGED);
	fix_sums(data, len, &mine);
	assert_int_equal(verdict_of(data, len, &key), RUNSTORE_OK);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_fixture_reads_back_as_parsed),
		cmocka_unit_test(edge_runs_read_back),
		cmocka_unit_test(numbers_with_and_without_their_texts_read_back),
		cmocka_unit_test(plain_decimals_are_stored_as_numbers_alone),
		cmocka_unit_test(two_threads_read_the_texts_printed_back),
		cmocka_unit_test(a_big_series_is_stored_the_same_on_one_thread_and_two),
		cmocka_unit_test(truncated_or_changed_stores_are_refused),
		cmocka_unit_test(another_version_or_format_is_said_so),
		cmocka_unit_test(a_store_sealed_by_another_or_edited_is_refused),
	};
	return cmocka_run_group_tests(tests, make_keys, free_builtins);
}
