/* test_stream.c: JSON and CSV result files are streamed, not slurped.
 *
 * `logdown parse` gives the same bytes whatever size the reader's
 * refills are (LOGDOWN_TEST_CHUNK, a knob for tests only), and a
 * 150 MB file costs what is kept of it (its series) plus a bounded
 * buffer, not its size besides.  Memory is measured on the release
 * binary ./logdown (ASan's own memory would drown it); the big files
 * are made in a temporary folder and removed. */
#define _DEFAULT_SOURCE /* wait4(), setgroups(), usleep() */
#include "e2e.h"

#include <grp.h>

#include "bounded.h"

/* The refill sizes tried: under memcheck (make valgrind), where a run
 * of logdown takes a second or more, 1 and 7 bytes only. */
static const char *const *chunk_sizes(size_t *n)
{
	static const char *const all[] = {"1", "2", "3", "7", "64"};
	static const char *const few[] = {"1", "7"};
	bool vg = getenv("LOGDOWN_VALGRIND") != NULL;
	*n = vg ? ARRAY_LEN(few) : ARRAY_LEN(all);
	return vg ? few : all;
}

/* Runs `logdown parse path --json` with refills of every size in
 * chunk_sizes() and asserts that stdout, stderr and the exit status are
 * those of the default size; returns the default run (caller frees). */
static struct proc parse_at_every_chunk_size(const char *path)
{
	unsetenv("LOGDOWN_TEST_CHUNK");
	struct proc want = e2e_run(".", "parse '%s' --json", path);
	size_t n;
	const char *const *sizes = chunk_sizes(&n);
	for (size_t k = 0; k < n; k++) {
		setenv("LOGDOWN_TEST_CHUNK", sizes[k], 1);
		struct proc got = e2e_run(".", "parse '%s' --json", path);
		if (got.status != want.status || strcmp(got.out, want.out) != 0 ||
		    strcmp(got.err, want.err) != 0)
			fail_msg("%s with refills of %s bytes: exit %d\n%s%s\ninstead of exit %d\n%s%s",
				 path, sizes[k], got.status, got.err, got.out, want.status,
				 want.err, want.out);
		proc_free(&got);
	}
	unsetenv("LOGDOWN_TEST_CHUNK");
	return want;
}

static void fixtures_parse_the_same_at_every_chunk_size(void **state)
{
	(void)state;
	static const char *const dirs[] = {"tests/fixtures/structured", "tests/fixtures/json",
					   "tests/fixtures/csv", "tests/fixtures/yaml"};
	size_t seen = 0;
	for (size_t i = 0; i < ARRAY_LEN(dirs); i++) {
		size_t n;
		char **names = dir_list(dirs[i], &n);
		assert_non_null(names);
		for (size_t k = 0; k < n; k++) {
			if (!str_has_suffix(names[k], ".json") && !str_has_suffix(names[k], ".csv"))
				continue;
			char *path = path_join(dirs[i], names[k]);
			struct proc r = parse_at_every_chunk_size(path);
			assert_int_equal(r.status, 0);
			assert_string_equal(r.err, "");
			/* What the comparison is about. */
			if (strcmp(path, "tests/fixtures/structured/small.json") == 0)
				assert_contains(r.out, "\"model\": {\"value\": \"llama-7b\", "
						       "\"text\": \"llama-7b\", \"line\": 2}");
			proc_free(&r);
			free(path);
			seen++;
		}
		strv_free(names);
	}
	assert_int_equal(seen, 5);
}

/* A file with a byte order mark, CRLF line ends, a quoted cell over two
 * lines and a bad row: the cells and every diagnostic as at any size. */
static void broken_files_report_the_same_at_every_chunk_size(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "a.csv",
		  "\xEF\xBB\xBFstep,note\r\n1,\"two\r\nlines\"\r\n2,\"x\"y\r\n3,ok,extra\r\n4,\"\"\"q\"\"\"\r\n");
	e2e_write(dir, "a.json", "{\"run\": \"\\ud83d\\ude00\",\n \"rows\": [{\"loss\": 1.5e-3},\n"
				 "  {\"loss\": 12345678901234567890.25}, {\"loss\": 1.}]}\n");
	char *csv = path_join(dir, "a.csv");
	struct proc r = parse_at_every_chunk_size(csv);
	/* Bad rows are warnings, left out: the run is read. */
	assert_int_equal(r.status, 0);
	char *want = xasprintf(
		"%s:4:6: warning: text after the closing quote of a cell (write a quote inside a "
		"quoted cell as \"\"); the row is left out\n"
		"    4 | 2,\"x\"y\n"
		"      |      ^\n"
		"%s:5:6: warning: this row has 3 cells, but the header (line 1) has 2; the row is "
		"left out\n"
		"    5 | 3,ok,extra\n"
		"      |      ^~~~~\n",
		csv, csv);
	assert_contains(r.err, want);
	free(want);
	proc_free(&r);
	char *json = path_join(dir, "a.json");
	r = parse_at_every_chunk_size(json);
	assert_int_equal(r.status, 1);
	want = xasprintf("%s:3:47: error: malformed JSON: '1.' is not a number\n"
			 "    3 |   {\"loss\": 12345678901234567890.25}, {\"loss\": 1.}]}\n"
			 "      |                                               ^~\n",
			 json);
	assert_contains(r.err, want);
	free(want);
	proc_free(&r);
	free(json);
	free(csv);
	e2e_drop(&dir);
}

/* Writes a CSV file of about mb megabytes to path: 5 numeric columns,
 * one row a line, the same 1,000 rows over and over (written fast).
 * *rows gets the number of rows, *text the bytes of all the cells'
 * texts. */
static void write_csv(const char *path, long mb, long *rows, long *text)
{
	char block[1000][80];
	int len[1000];
	for (int i = 0; i < 1000; i++)
		len[i] = snprintf(block[i], sizeof block[i], "%d,%.6f,%.6f,%d,%.3f\n", i * 100,
				  (double)i / 97.0, (double)(i % 777) * 1e-6, i * 2048,
				  (double)i * 0.37);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	long bytes = fprintf(f, "step,loss,lr,tokens,time_s\n");
	*rows = *text = 0;
	for (long i = 0; bytes < mb << 20; i++) {
		int k = (int)(i % 1000);
		assert_int_equal(fwrite(block[k], 1, (size_t)len[k], f), len[k]);
		bytes += len[k];
		*text += len[k] - 5; /* not the 4 commas and the newline */
		(*rows)++;
	}
	assert_int_equal(fclose(f), 0);
}

/* Writes a JSON list of about mb megabytes of row objects to path, one
 * a line: {"step": N, "loss": X, "lr": Y}.  *rows and *text as above. */
static void write_json(const char *path, long mb, long *rows, long *text)
{
	char block[1000][80];
	int len[1000], cells[1000];
	for (int i = 0; i < 1000; i++) {
		char step[32], loss[32], lr[32];
		cells[i] = snprintf(step, sizeof step, "%d", i * 100) +
			   snprintf(loss, sizeof loss, "%.6f", (double)i / 97.0) +
			   snprintf(lr, sizeof lr, "%.6f", (double)(i % 777) * 1e-6);
		len[i] = snprintf(block[i], sizeof block[i],
				  ",\n  {\"step\": %s, \"loss\": %s, \"lr\": %s}", step, loss, lr);
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	long bytes = fprintf(f, "[\n");
	*rows = *text = 0;
	for (long i = 0; bytes < mb << 20; i++) {
		int k = (int)(i % 1000), skip = i ? 0 : 2; /* no comma before the first */
		assert_int_equal(fwrite(block[k] + skip, 1, (size_t)(len[k] - skip), f),
				 len[k] - skip);
		bytes += len[k] - skip;
		*text += cells[k];
		(*rows)++;
	}
	fputs("\n]\n", f);
	assert_int_equal(fclose(f), 0);
}

/* Runs `bin parse path` (the summary: it prints three rows, so that
 * what is measured is the reader) and returns its peak memory in KiB,
 * after checking that it read `rows` rows. */
static long parse_peak_kb(const char *bin, const char *path, long rows)
{
	char out[] = "/tmp/logdown-out-XXXXXX";
	int fo = mkstemp(out);
	assert_true(fo >= 0);
	double t0 = bounded_now();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		if (in < 0 || dup2(in, 0) < 0 || dup2(fo, 1) < 0)
			_exit(126);
		execl(bin, "logdown", "parse", path, (char *)NULL);
		_exit(127);
	}
	close(fo);
	int st = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	assert_int_equal(wait4(pid, &st, 0, &ru), pid);
	char *text = e2e_read("/", out);
	unlink(out);
	assert_non_null(text);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("logdown parse %s failed (status %d):\n%s", path, st, text);
	char *want = xasprintf("series rows: %ld rows, ", rows);
	assert_contains(text, want);
	free(want);
	free(text);
	print_message("           %s: %.2f s, %ld KB peak\n", path, bounded_now() - t0,
		      ru.ru_maxrss);
	return ru.ru_maxrss;
}

/* 150 MB of CSV and of JSON, read by the release binary.  What is kept
 * is the series: per row 8 bytes a cell, 16 bytes of line and record,
 * and the cells' texts with a byte each (run.c); a JSON list is first
 * gathered by the builder (structured.c): 24 bytes a row, and per cell
 * about 11 bytes (column, kind, the number) and its text, then made a
 * series.  The bound is that estimate plus 64 MiB.  Measured (release
 * build, glibc malloc), peak RSS:
 *
 *   CSV, 150 MiB, 3.3 M rows:  estimate 373,742 KB, bound 439,278 KB;
 *                              read whole (before) 542,840 KB,
 *                              streamed (now) 390,916 KB
 *   JSON, 150 MiB, 3.0 M rows: estimate 411,693 KB, bound 477,229 KB;
 *                              read whole (before) 833,332 KB,
 *                              streamed 681,160 KB, and with the
 *                              builder's cells packed (now) 429,512 KB
 *
 * so reading the file whole again (+150 MiB) fails. */
static void big_files_are_read_in_bounded_memory(void **state)
{
	(void)state;
	if (getenv("LOGDOWN_VALGRIND")) {
		printf("big_files_are_read_in_bounded_memory: measures the release binary, which "
		       "make check-all does; skipped under memcheck\n");
		skip();
	}
	const char *rel = bounded_release();
	if (!rel) {
		print_message("[  SKIP    ] ./logdown is not built (or under valgrind): memory not measured\n");
		skip();
	}
	char *dir = e2e_tmpdir();
	char *csv = path_join(dir, "big.csv");
	long rows, text;
	write_csv(csv, 150, &rows, &text);
	long est_kb = (rows * (5 * 8 + 16 + 5) + text) / 1024;
	long kb = parse_peak_kb(rel, csv, rows);
	print_message("           estimate %ld KB, bound %ld KB\n", est_kb, est_kb + 64 * 1024);
	if (kb > est_kb + 64 * 1024)
		fail_msg("peak memory %ld KB for a 150 MB CSV file, more than %ld KB", kb,
			 est_kb + 64 * 1024);
	unlink(csv);

	char *json = path_join(dir, "big.json");
	write_json(json, 150, &rows, &text);
	est_kb = (rows * (24 + 3 * 11) + text + rows * (3 * 8 + 16 + 3) + text) / 1024;
	kb = parse_peak_kb(rel, json, rows);
	print_message("           estimate %ld KB, bound %ld KB\n", est_kb, est_kb + 64 * 1024);
	if (kb > est_kb + 64 * 1024)
		fail_msg("peak memory %ld KB for a 150 MB JSON file, more than %ld KB", kb,
			 est_kb + 64 * 1024);
	free(json);
	free(csv);
	e2e_drop(&dir);
}

/* A file over 4 MiB is read from the disk a chunk at a time (a smaller
 * one is read whole, to quote its lines): under ASan, at two refill
 * sizes, every row is there and the same, long quoted cells and
 * strings with escapes straddling the refills. */
static void files_over_four_megabytes_stream_from_the_disk(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	struct buf note = BUF_INIT;
	for (int i = 0; i < 40; i++)
		buf_puts(&note, "a \"\"quoted\"\" word, \xC3\xA9\n");
	struct buf csv_text = BUF_INIT, json_text = BUF_INIT;
	buf_puts(&csv_text, "step,note,loss\n");
	buf_puts(&json_text, "[\n");
	int rows = 0;
	while (csv_text.len < (size_t)9 << 19 || json_text.len < (size_t)9 << 19) {
		buf_printf(&csv_text, "%d,\"%s\",%d.25\r\n", rows, buf_data(&note), rows % 7);
		buf_printf(&json_text,
			   "%s  {\"step\": %d, \"note\": \"%s\\u00e9\\ud83d\\ude00\\n\\\"x\\\"\", "
			   "\"loss\": %d.25e-1}",
			   rows ? ",\n" : "", rows, "0123456789abcdef0123456789abcdef0123456789abcdef"
						     "0123456789abcdef0123456789abcdef0123456789abcdef"
						     "0123456789abcdef0123456789abcdef0123456789abcdef"
						     "0123456789abcdef0123456789abcdef0123456789abcdef"
						     "0123456789abcdef0123456789abcdef0123456789abcdef"
						     "0123456789abcdef0123456789abcdef0123456789abcdef"
						     "0123456789abcdef0123456789abcdef0123456789abcdef"
						     "0123456789abcdef0123456789abcdef0123456789abcdef",
			   rows % 7);
		rows++;
	}
	buf_puts(&json_text, "\n]\n");
	e2e_write(dir, "mid.csv", buf_data(&csv_text));
	e2e_write(dir, "mid.json", buf_data(&json_text));
	assert_true(json_text.len > (size_t)4 << 20);
	char *csv = path_join(dir, "mid.csv");
	char *json = path_join(dir, "mid.json");
	const char *const files[] = {csv, json};
	for (size_t i = 0; i < 2; i++) {
		unsetenv("LOGDOWN_TEST_CHUNK");
		struct proc want = e2e_run(".", "parse '%s' --json", files[i]);
		assert_int_equal(want.status, 0);
		assert_string_equal(want.err, "");
		char *last = xasprintf("\n        [%d, ", rows - 1);
		assert_contains(want.out, last);
		free(last);
		assert_contains(want.out, i == 0 ? "\"a \\\"quoted\\\" word, \xC3\xA9\\na \\\"quoted"
						: "cdef\xC3\xA9\xF0\x9F\x98\x80\\n\\\"x\\\"\", 0.525");
		setenv("LOGDOWN_TEST_CHUNK", "61", 1);
		struct proc got = e2e_run(".", "parse '%s' --json", files[i]);
		unsetenv("LOGDOWN_TEST_CHUNK");
		assert_int_equal(got.status, 0);
		assert_string_equal(got.err, "");
		assert_true(strcmp(got.out, want.out) == 0);
		proc_free(&got);
		proc_free(&want);
	}
	buf_free(&csv_text);
	buf_free(&json_text);
	buf_free(&note);
	free(json);
	free(csv);
	e2e_drop(&dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fixtures_parse_the_same_at_every_chunk_size),
		cmocka_unit_test(broken_files_report_the_same_at_every_chunk_size),
		cmocka_unit_test(files_over_four_megabytes_stream_from_the_disk),
		cmocka_unit_test(big_files_are_read_in_bounded_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
