/* test_parse.c: `logdown parse` and `logdown parsers` as a user runs them. */
#define _DEFAULT_SOURCE /* bounded.h: wait4(), setgroups(), usleep() */
#include "e2e.h"
#include <grp.h>

#include "bounded.h"

#define FIXTURES "tests/fixtures/structured"

static const char small_json[] =
	"{\n"
	"  \"file\": \"small.json\",\n"
	"  \"parser\": \"json\",\n"
	"  \"fields\": {\n"
	"    \"model\": {\"value\": \"llama-7b\", \"text\": \"llama-7b\", \"line\": 2},\n"
	"    \"final_loss\": {\"value\": 7.125, \"text\": \"7.12500\", \"line\": 3},\n"
	"    \"ok\": {\"value\": 1, \"text\": \"true\", \"line\": 4},\n"
	"    \"note\": {\"value\": null, \"text\": \"null\", \"line\": 5}\n"
	"  },\n"
	"  \"series\": {\n"
	"    \"steps\": {\n"
	"      \"columns\": [\"step\", \"loss\", \"lr\"],\n"
	"      \"rows\": [\n"
	"        [100, 9.39062, null],\n"
	"        [200, 7.125, 0.0001]\n"
	"      ],\n"
	"      \"lines\": [7, 8]\n"
	"    }\n"
	"  }\n"
	"}\n";

static void parse_json_prints_the_spec_shape(void **state)
{
	(void)state;
	struct proc r = e2e_run(FIXTURES, "parse --json small.json");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, small_json);
	proc_free(&r);
	/* Options may come first. */
	r = e2e_run(FIXTURES, "parse --parser json --json small.json");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, small_json);
	proc_free(&r);
}

static void parse_json_of_a_csv_file(void **state)
{
	(void)state;
	struct proc r = e2e_run(FIXTURES, "parse llama7b_sweep.csv --json");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
			    "{\n"
			    "  \"file\": \"llama7b_sweep.csv\",\n"
			    "  \"parser\": \"csv\",\n"
			    "  \"fields\": {},\n"
			    "  \"series\": {\n"
			    "    \"rows\": {\n"
			    "      \"columns\": [\"batch_size\", \"avg_rate_samples_per_s\", "
			    "\"global_rate_samples_per_s\", \"total_time_s\", "
			    "\"throughput_samples_per_s\", \"final_loss\"],\n"
			    "      \"rows\": [\n"
			    "        [256, 32.84, 32.86, 8615, 5.94, 5.87924],\n"
			    "        [512, 33.34, 33.27, 4151, 24.67, 6.32152],\n"
			    "        [1024, 33.05, 33.04, 7394, 27.7, 6.10848],\n"
			    "        [2048, 34.1, 34.09, 13866, 29.54, 5.96367]\n"
			    "      ],\n"
			    "      \"lines\": [2, 3, 4, 5]\n"
			    "    }\n"
			    "  }\n"
			    "}\n");
	proc_free(&r);
}

static void parse_shows_a_readable_summary(void **state)
{
	(void)state;
	struct proc r = e2e_run(FIXTURES, "parse small.json");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
			    "file     small.json\n"
			    "parser   json (built-in)\n"
			    "lines    10\n"
			    "\n"
			    "fields (4)\n"
			    "  model        \"llama-7b\"   (line 2)\n"
			    "  final_loss   7.12500      (line 3)\n"
			    "  ok           true         (line 4)\n"
			    "  note         \xE2\x80\x94            (line 5)\n"
			    "\n"
			    "series steps: 2 rows, 3 columns\n"
			    "  line  step  loss     lr\n"
			    "     7  100   9.39062  \xE2\x80\x94\n"
			    "     8  200   7.125    1e-4\n");
	proc_free(&r);
}

static void summary_of_a_long_series_shows_first_and_last_rows(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "r.csv", "Step,Loss (avg)\n1,9.5\n2,8.25\n3,\n4,7.125\n");
	struct proc r = e2e_run(dir, "parse r.csv");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
			    "file     r.csv\n"
			    "parser   csv (built-in)\n"
			    "lines    5\n"
			    "\n"
			    "fields: none\n"
			    "\n"
			    "series rows: 4 rows, 2 columns\n"
			    "  line  step  loss_avg\n"
			    "     2  1     9.5\n"
			    "     \xE2\x80\xA6  (2 more rows)\n"
			    "     5  4     7.125\n");
	proc_free(&r);
	remove_tree(dir);
	free(dir);
}

static void parse_json_of_a_cerebras_log(void **state)
{
	(void)state;
	char *log = e2e_read(".", "content/hw07-ai-accelerators/logs/cerebras/bs512.log");
	assert_non_null(log);
	char *dir = e2e_tmpdir();
	e2e_write(dir, "logs/bs512.log", log);
	struct proc r = e2e_run(dir, "parse --json logs/bs512.log");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	/* Picked values keep their text and line; computed ones have
	 * neither. */
	assert_contains(r.out, "{\n"
			       "  \"file\": \"logs/bs512.log\",\n"
			       "  \"parser\": \"cerebras\",\n"
			       "  \"fields\": {\n"
			       "    \"batch_size\": {\"value\": 512, \"text\": \"512\", \"line\": 1},\n");
	assert_contains(r.out, "    \"final_loss\": {\"value\": 7.125, \"text\": \"7.12500\", "
			       "\"line\": 53},\n");
	assert_contains(r.out, "    \"throughput\": {\"value\": 2924.536162257778, \"text\": null, "
			       "\"line\": null}\n"
			       "  },\n");
	assert_contains(r.out, "      \"columns\": [\"step\", \"loss\", \"rate\", \"global_rate\"],\n"
			       "      \"rows\": [\n"
			       "        [100, 9.39062, 2983.97, 2983.97],\n");
	assert_contains(r.out, "      \"lines\": [44, 45, 46, 47, 48, 49, 50, 51, 52, 53]\n");
	proc_free(&r);

	r = e2e_run(dir, "parse logs/bs512.log");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "file     logs/bs512.log\n"
			       "parser   cerebras (built-in)\n"
			       "lines    58\n");
	assert_contains(r.out, "  final_loss   7.12500             (line 53)\n");
	assert_contains(r.out, "  throughput   2924.536162257778   (computed)\n");
	assert_contains(r.out, "series train: 10 rows, 4 columns\n"
			       "  line  step  loss     rate     global_rate\n"
			       "    44  100   9.39062  2983.97  2983.97\n"
			       "     \xE2\x80\xA6  (8 more rows)\n"
			       "    53  1000  7.12500  2900.63  2924.54\n");
	proc_free(&r);

	/* --csv: one series, every cell as written */
	r = e2e_run(dir, "parse logs/bs512.log --csv train");
	assert_int_equal(r.status, 0);
	assert_true(str_has_prefix(r.out, "step,loss,rate,global_rate\n"
					  "100,9.39062,2983.97,2983.97\n"
					  "200,8.70312,2941.41,2948.08\n"));
	assert_true(str_has_suffix(r.out, "1000,7.12500,2900.63,2924.54\n"));
	proc_free(&r);
	r = e2e_run(dir, "parse logs/bs512.log --csv trian");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "logdown: error: logs/bs512.log has no series 'trian' (did you "
				   "mean 'train'?)\n");
	proc_free(&r);
	remove_tree(dir);
	free(dir);
	free(log);
}

/* --csv hands rows on as they are found (memory stays flat): a log big
 * enough for the second thread, where every rank printed each line, still
 * gives each row once, in order, and a cut cell stays empty. */
static void csv_of_a_big_ranked_log_streams_each_row_once(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	struct buf log = BUF_INIT;
	buf_puts(&log, "[1,0]<stdout>:2024-03-30 15:16:33,873 INFO:   Effective batch size is 512.\n");
	const int steps = 120000; /* about 16 MB */
	for (int i = 1; i <= steps; i++)
		for (int rank = 0; rank < 2; rank++)
			buf_printf(&log,
				   "[1,%d]<stdout>:2024-03-30 15:16:33,873 INFO:   | Train Device=CSX, "
				   "Step=%d, Loss=%d.%03d, Rate=2983.97 samples/sec, GlobalRate=2983.97 "
				   "samples/sec\n",
				   rank, i, 9 - i % 7, i % 1000);
	buf_puts(&log, "[1,0]<stdout>:| Train Device=CSX, Step=120001, Loss=7.1\n");
	e2e_write(dir, "big.log", buf_data(&log));
	buf_free(&log);

	struct proc r = e2e_run(dir, "parse big.log --csv train");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_true(str_has_prefix(r.out, "step,loss,rate,global_rate\n"
					  "1,8.001,2983.97,2983.97\n"
					  "2,7.002,2983.97,2983.97\n"));
	assert_true(str_has_suffix(r.out, "120000,3.000,2983.97,2983.97\n"
					  "120001,7.1,,\n"));
	size_t rows = 0;
	for (const char *p = r.out; (p = strchr(p, '\n')); p++)
		rows++;
	assert_int_equal(rows, 1 + steps + 1);
	proc_free(&r);
	remove_tree(dir);
	free(dir);
}

/* CPU bounds hold in the ASan run; under valgrind's neighbour they
 * measure the neighbour (as test_badinput's). */
static bool timing_checked(void)
{
	return getenv("LOGDOWN_VALGRIND") == NULL;
}

static char *squeezed(const char *s);

/* --json of a series of 1,000,000 rows goes out through a small buffer
 * as the series is walked: peak memory is the parsed run's (what
 * --list-columns, which writes nothing, takes) and not the ~70 MB of
 * JSON on top, and the CPU time is a few seconds (25 s when each number
 * took up to 17 printf/strtod rounds and each cell an fprintf). */
/* A Cerebras training log of n rows. */
static void write_rows_log(const char *dir, const char *name, int n)
{
	char *path = path_join(dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 1; i <= n; i++)
		fprintf(f, "| Train Device=CSX, Step=%d, Loss=%d.%05d, Rate=%d.%02d samples/sec, "
			   "GlobalRate=%d.%02d samples/sec\n",
			i, 9 - i % 7, i % 99991, 2900 + i % 97, i % 100, 3000 + i % 89, i % 7);
	assert_int_equal(fclose(f), 0);
	free(path);
}

/* `--json` streams the rows through a temporary file and takes the
 * derives as they pass: its peak memory does not grow with the log (a
 * log of a million rows, 100 MB, takes what one of 200,000 takes, both
 * read by the parse's threads and their fixed buffers) and stays far
 * below the log's size, where the parse that keeps the run
 * (--list-columns) grows with it. */
static void json_of_a_million_rows_streams_in_flat_memory(void **state)
{
	(void)state;
	const char *rel = bounded_release();
	if (!rel || getenv("LOGDOWN_VALGRIND")) {
		print_message("[  SKIP    ] ./logdown is not built (or under valgrind)\n");
		skip();
	}
	char *dir = e2e_tmpdir();
	write_rows_log(dir, "big.log", 1000000);
	write_rows_log(dir, "small.log", 200000);
	struct stat st;
	char *big = path_join(dir, "big.log");
	assert_int_equal(stat(big, &st), 0);
	free(big);
	long log_kb = (long)(st.st_size / 1024);
	const char *list_argv[] = {"logdown", "parse", "big.log", "--parser", "cerebras",
				   "--list-columns", NULL};
	const char *json_argv[] = {"logdown", "parse", "big.log", "--parser", "cerebras",
				   "--json", NULL};
	const char *small_argv[] = {"logdown", "parse", "small.log", "--parser", "cerebras",
				    "--json", NULL};
	struct bounded l = bounded_run(rel, dir, list_argv, NULL, 300);
	struct bounded j = bounded_run(rel, dir, json_argv, NULL, 300);
	struct bounded sm = bounded_run(rel, dir, small_argv, NULL, 300);
	assert_int_equal(l.status, 0);
	assert_int_equal(j.status, 0);
	assert_int_equal(sm.status, 0);
	assert_string_equal(j.err, "");
	print_message("           log %ld KB; --list-columns: CPU %.2f s, %ld KB peak; --json: "
		      "CPU %.2f s, %ld KB peak (of 200,000 rows: %ld KB)\n",
		      log_kb, l.cpu_secs, l.maxrss_kb, j.cpu_secs, j.maxrss_kb, sm.maxrss_kb);
	if (j.maxrss_kb >= 0 && sm.maxrss_kb >= 0 && j.maxrss_kb > sm.maxrss_kb + 8 * 1024)
		fail_msg("--json of 1,000,000 rows peaked at %ld KB, of 200,000 at %ld KB: it grows",
			 j.maxrss_kb, sm.maxrss_kb);
	if (j.maxrss_kb >= 0 && j.maxrss_kb > log_kb / 2)
		fail_msg("--json peaked at %ld KB, over half the log's %ld KB", j.maxrss_kb, log_kb);
	if (j.cpu_secs > 2 * l.cpu_secs + 4 && timing_checked())
		fail_msg("--json took %.2f s of CPU, the parse alone %.2f s", j.cpu_secs, l.cpu_secs);
	bounded_free(&l);
	bounded_free(&j);
	bounded_free(&sm);
	remove_tree(dir);
	free(dir);
}

/* The folder's entries, one a line, sorted ("" when empty). */
static char *listing(const char *dir)
{
	int status;
	char *out = e2e_sh(&status, "ls -A '%s'", dir);
	assert_int_equal(status, 0);
	return out;
}

/* An error found once the rows have gone to the temporary file (a
 * series over its limit, two runs of one name at the end of the log)
 * leaves standard output empty, exits 1, and leaves no file behind in
 * TMPDIR, as a parse that succeeds leaves none; a TMPDIR that cannot be
 * written is an I/O failure that says so, nothing written either. */
static void a_late_error_writes_no_json_and_leaves_no_temporary_file(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	char *tmp = path_join(dir, "tmp");
	assert_true(mkdir_p(tmp));
	/* 30,000 rows, over 2 MB of JSON: written to the temporary file */
	write_rows_log(dir, "big.log", 30000);
	e2e_write(dir, "parsers/named.yaml",
		  "name: named\n"
		  "split: { pattern: '^== run (?<run>\\S+)', name: run }\n"
		  "series:\n"
		  "  t: 'step=(?<step>\\d+) loss=(?<loss>\\S+)'\n"
		  "derive:\n"
		  "  final: last(t.loss)\n");
	struct buf log = BUF_INIT;
	const char *names[] = {"a", "b", "c", "a"};
	for (int k = 0; k < 4; k++) {
		buf_printf(&log, "== run %s\n", names[k]);
		for (int i = 1; i <= 20000; i++)
			buf_printf(&log, "step=%d loss=%d.%03d\n", i, 9 - k, i % 1000);
	}
	e2e_write(dir, "named.log", buf_data(&log));
	buf_free(&log);
	setenv("TMPDIR", tmp, 1);

	struct proc r = e2e_run(dir, "parse big.log --parser cerebras --json");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_non_null(strstr(r.out, "\"final_step\": {\"value\": 30000, \"text\": \"30000\", "
				      "\"line\": 30000}"));
	char *ls = listing(tmp);
	assert_string_equal(ls, "");
	free(ls);
	proc_free(&r);

	setenv("LOGDOWN_LIMIT_SERIES_ROWS", "25000", 1);
	r = e2e_run(dir, "parse big.log --parser cerebras --json");
	unsetenv("LOGDOWN_LIMIT_SERIES_ROWS");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "big.log:25001: error: series 'train' has more than 25000 "
				      "rows: 5000 more were not read"));
	ls = listing(tmp);
	assert_string_equal(ls, "");
	free(ls);
	proc_free(&r);

	r = e2e_run(dir, "parse named.log --parser named --json");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "named.log:60004: error: this run and the one at line 1 are "
				      "both named 'a'"));
	ls = listing(tmp);
	assert_string_equal(ls, "");
	free(ls);
	proc_free(&r);

	/* (memcheck keeps files of its own in TMPDIR, and fails without) */
	char *gone = path_join(dir, "gone");
	setenv("TMPDIR", gone, 1);
	if (!getenv("LOGDOWN_VALGRIND")) {
		r = e2e_run(dir, "parse big.log --parser cerebras --json");
		assert_int_equal(r.status, 3);
		assert_string_equal(r.out, "");
		char *want = xasprintf("big.log: error: cannot write the rows' temporary file in "
				       "%s: No such file or directory (set TMPDIR to a folder with "
				       "room)\n",
				       gone);
		assert_string_equal(r.err, want);
		free(want);
		proc_free(&r);
	}
	unsetenv("TMPDIR");
	free(gone);
	free(tmp);
	remove_tree(dir);
	free(dir);
}

/* A kept series of more than four blocks of 16,384 rows is formatted on
 * two threads, every other block by the second one; a streamed one goes
 * through the temporary file in 64 KiB extents: either way the rows and
 * line numbers come out whole and in order, as one thread writes them. */
static void json_of_a_big_series_comes_out_in_order(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "parsers/steps.yaml",
		  "name: steps\n"
		  "series:\n"
		  "  s:\n"
		  "    pattern: 'Step=(?<step>\\d+), Loss=(?<loss>\\S+)'\n");
	/* std needs the rows: this one keeps its series (and its JSON is
	 * formatted on two threads), the one above streams them */
	e2e_write(dir, "parsers/kept.yaml",
		  "name: kept\n"
		  "series:\n"
		  "  s:\n"
		  "    pattern: 'Step=(?<step>\\d+), Loss=(?<loss>\\S+)'\n"
		  "derive:\n"
		  "  sd: std(s.loss)\n");
	const int n = 70000; /* five blocks, the last one short */
	struct buf log = BUF_INIT, rows = BUF_INIT, lines = BUF_INIT;
	buf_puts(&rows, "\"rows\":[");
	buf_puts(&lines, "\"lines\":[");
	for (int i = 1; i <= n; i++) {
		buf_printf(&log, "Step=%d, Loss=%d.5\n", i, i % 1000);
		buf_printf(&rows, "%s[%d,%d.5]", i > 1 ? "," : "", i, i % 1000);
		buf_printf(&lines, "%s%d", i > 1 ? "," : "", i);
	}
	buf_puts(&rows, "]");
	buf_puts(&lines, "]");
	e2e_write(dir, "steps.log", buf_data(&log));
	const char *parsers[] = {"steps", "kept"};
	for (size_t k = 0; k < 2; k++) {
		struct proc r = e2e_run(dir, "parse steps.log --parser %s --json", parsers[k]);
		assert_int_equal(r.status, 0);
		assert_string_equal(r.err, "");
		char *got = squeezed(r.out);
		assert_contains(got, buf_data(&rows));
		assert_contains(got, buf_data(&lines));
		free(got);
		proc_free(&r);
	}
	buf_free(&log);
	buf_free(&rows);
	buf_free(&lines);
	remove_tree(dir);
	free(dir);
}

/* The least CPU time of three runs of the release binary in dir. */
static double least_cpu(const char *rel, const char *dir, const char *const *argv)
{
	double least = -1;
	for (int k = 0; k < 3; k++) {
		struct bounded r = bounded_run(rel, dir, argv, NULL, 120);
		assert_int_equal(r.status, 0);
		assert_string_equal(r.err, "");
		if (least < 0 || r.cpu_secs < least)
			least = r.cpu_secs;
		bounded_free(&r);
	}
	return least;
}

/* The bench's kind of log (tools/bench.sh row (p)) at dir/name:
 * `train` training lines, a checkpoint line every 1,000. */
static void write_train_log(const char *dir, const char *name, int train)
{
	char *path = path_join(dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("2024-11-03 14:54:29,679 INFO:   Effective batch size is 512.\n", f);
	for (int i = 1; i <= train; i++) {
		fprintf(f,
			"2024-11-03 %02d:%02d:%02d,%03d INFO:   | Train Device=CSX, Step=%d, "
			"Loss=%d.%05d, Rate=%d.%02d samples/sec, GlobalRate=%d.%02d samples/sec\n",
			i / 3600 % 24, i / 60 % 60, i % 60, i % 1000, 100 * i, 2 + i % 9,
			i * 7919 % 100000, 2900 + i % 97, i % 100, 2940 + i % 13, i * 31 % 100);
		if (i % 1000 == 0)
			fprintf(f,
				"2024-11-03 %02d:%02d:%02d,000 INFO:   Saved checkpoint "
				"model_dir/checkpoint_%d.mdl\n",
				i / 3600 % 24, i / 60 % 60, i % 60, 100 * i);
	}
	fputs("2024-11-04 00:00:00,000 INFO:   Processed 76800000 sample(s) in 26101.2 seconds.\n",
	      f);
	assert_int_equal(fclose(f), 0);
	free(path);
}

/* Issue 22: --json of a training log costs at most twice what --csv of
 * its series does (the same parse, then every series and field typed
 * and written).  Each is the least CPU time of three runs, less what the
 * same command takes on a log of ten lines (starting: loading the
 * built-in parsers).  On 20 MB, 150,000 training lines: about 0.044 s
 * for --csv, 0.067 s for --json beyond the start (1.5x; 1.7x before its
 * numbers were marked shortest as they were read, 2.5x before they were
 * written from their text); seconds when each number took up to 17
 * printf/strtod rounds. */
static void json_costs_at_most_twice_csv(void **state)
{
	(void)state;
	const char *rel = bounded_release();
	if (!rel || !timing_checked()) {
		print_message("[  SKIP    ] ./logdown is not built (or under valgrind)\n");
		skip();
	}
	char *dir = e2e_tmpdir();
	write_train_log(dir, "train.log", 150000);
	write_train_log(dir, "small.log", 10);
	const char *csv_argv[] = {"logdown", "parse", "train.log", "--parser", "cerebras",
				  "--csv", "train", NULL};
	const char *json_argv[] = {"logdown", "parse", "train.log", "--parser", "cerebras",
				   "--json", NULL};
	double csv = least_cpu(rel, dir, csv_argv), json = least_cpu(rel, dir, json_argv);
	csv_argv[2] = json_argv[2] = "small.log";
	double csv0 = least_cpu(rel, dir, csv_argv), json0 = least_cpu(rel, dir, json_argv);
	csv -= csv0;
	json -= json0;
	print_message("           beyond starting (%.3f s): --csv train %.3f s of CPU, --json "
		      "%.3f s (%.2fx)\n",
		      csv0, csv, json, json / csv);
	if (json > 2 * csv + 0.01)
		fail_msg("--json took %.3f s of CPU, more than 2x --csv's %.3f s", json, csv);
	remove_tree(dir);
	free(dir);
}

/* Run k (0, 1, 2) of the three that a_big_split_log_gives_each_run_its_own_rows()
 * writes, into f; with blank, its lines are written as "." lines
 * instead (the same line numbers, nothing found). */
static void write_split_run(FILE *f, int k, bool blank)
{
	int batch = 256 << k;
	if (blank)
		fputs(".\n", f);
	else
		fprintf(f, "2024-11-03 14:54:29,679 INFO:   Effective batch size is %d.\n", batch);
	for (int i = 1; i <= 36000; i++) {
		if (blank)
			fputs(".\n", f);
		else
			fprintf(f,
				"2024-11-03 %02d:%02d:%02d,%03d INFO:   | Train Device=CSX, Step=%d, "
				"Loss=%d.%05d, Rate=%d.%02d samples/sec, GlobalRate=%d.%02d "
				"samples/sec\n",
				i / 3600 % 24, i / 60 % 60, i % 60, i % 1000, 100 * i, 2 + (i + k) % 9,
				i * 7919 % 100000, 2900 + i % 97, (i + k) % 100, 2940 + i % 13,
				i * 31 % 100);
		if (i % 5000 == 0) {
			if (blank)
				fputs(".\n", f);
			else
				fprintf(f,
					"2024-11-03 15:00:00,000 INFO:   | Eval Device=CSX, "
					"GlobalStep=%d, Batch=%d, Loss=%d.%02d, Rate=7796.80 "
					"samples/sec, GlobalRate=7499.90 samples/sec\n",
					100 * i, i / 5000, 7 - k, i % 89);
		}
	}
	if (blank)
		fputs(".\n", f);
	else
		fprintf(f,
			"2024-11-04 00:00:00,000 INFO:   Processed %d sample(s) in %d.5 seconds.\n",
			36000 * batch, 26101 + k);
}

/* s without its blanks and line breaks. */
static char *squeezed(const char *s)
{
	char *t = xmalloc(strlen(s) + 1), *w = t;
	for (; *s; s++)
		if (*s != ' ' && *s != '\n')
			*w++ = *s;
	*w = '\0';
	return t;
}

/* A split parser's log bigger than 8 MiB has its rows typed and stored
 * on a second thread, which the reading thread waits for at each split
 * line: each run of the file gets exactly its own rows and fields, the
 * ones it gives read alone (the other runs' lines blanked, so that the
 * line numbers agree, and the file small enough for one thread). */
static void a_big_split_log_gives_each_run_its_own_rows(void **state)
{
	(void)state;
	if (getenv("LOGDOWN_VALGRIND")) {
		printf("a_big_split_log_gives_each_run_its_own_rows: under valgrind; skipped "
		       "(ASan runs it)\n");
		skip();
	}
	char *dir = e2e_tmpdir();
	const char *names[] = {"all.log", "run0.log", "run1.log", "run2.log"};
	for (int w = 0; w < 4; w++) {
		char *path = path_join(dir, names[w]);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		for (int k = 0; k < 3; k++)
			write_split_run(f, k, w > 0 && k != w - 1);
		assert_int_equal(fclose(f), 0);
		free(path);
	}
	struct stat st;
	char *all_path = path_join(dir, "all.log");
	assert_int_equal(stat(all_path, &st), 0);
	assert_true(st.st_size > (8 << 20)); /* the second thread's */
	free(all_path);
	struct proc all = e2e_run(dir, "parse all.log --parser cerebras --json");
	assert_int_equal(all.status, 0);
	assert_string_equal(all.err, "");
	char *whole = squeezed(all.out);
	assert_contains(whole, "\"runs\":[{\"name\":\"run1\",\"first_line\":1,");
	for (int k = 0; k < 3; k++) {
		struct proc one = e2e_run(dir, "parse %s --parser cerebras --json", names[k + 1]);
		assert_int_equal(one.status, 0);
		char *alone = squeezed(one.out);
		/* its "fields" and "series", without the closing brace */
		char *from = strstr(alone, "\"fields\":");
		assert_non_null(from);
		alone[strlen(alone) - 1] = '\0';
		char want[64];
		snprintf(want, sizeof want, "\"batch_size\":{\"value\":%d,", 256 << k);
		assert_contains(from, want);
		assert_contains(from, "[3600000,");
		if (!strstr(whole, from))
			fail_msg("run %d of all.log differs from %s read alone", k + 1, names[k + 1]);
		free(alone);
		proc_free(&one);
	}
	free(whole);
	proc_free(&all);
	remove_tree(dir);
	free(dir);
}

/* `logdown parse` of FILE with LOGDOWN_SCAN_THREADS=threads. */
static struct proc parse_with_threads(const char *dir, const char *threads, const char *args)
{
	setenv("LOGDOWN_SCAN_THREADS", threads, 1);
	struct proc r = e2e_run(dir, "parse %s", args);
	unsetenv("LOGDOWN_SCAN_THREADS");
	return r;
}

/* A big log is scanned in 4 MiB chunks on several threads: whatever
 * their number, fields, rows, line numbers and messages are the ones
 * one thread reading from the start gives. */
static void a_big_log_parses_the_same_on_any_number_of_threads(void **state)
{
	(void)state;
	if (getenv("LOGDOWN_VALGRIND")) {
		/* Memcheck without JIT takes minutes over these 24 MB eight
		 * times; test_badinput's 100 MB line runs the threads there. */
		printf("a_big_log_parses_the_same_on_any_number_of_threads: under valgrind; "
		       "skipped (ASan runs it)\n");
		skip();
	}
	char *dir = e2e_tmpdir();
	e2e_write(dir, "parsers/mix.yaml",
		  "name: mix\n"
		  "fields:\n"
		  "  version:\n"
		  "    pattern: 'version (\\S+)'\n"
		  "    pick: first\n"
		  "  checkpoint: 'Saved checkpoint (\\S+)'\n"
		  "  middle: 'MIDDLE (\\d+)'\n"
		  "  never: 'NEVER (\\d+)'\n"
		  "  '*': '^set (?<name>\\w+) = (?<value>\\S+)'\n"
		  "series:\n"
		  "  train:\n"
		  "    pattern: 'Step=(?<step>\\d+), Loss=(?<loss>\\S+)'\n"
		  "    types: {loss: number}\n");
	struct buf log = BUF_INIT;
	const long n = 400000; /* about 24 MB: six chunks */
	for (long i = 1; i <= n; i++) {
		if (i % 50000 == 3)
			buf_printf(&log, "version v%ld\n", i);
		else if (i % 40000 == 0)
			buf_printf(&log, "Saved checkpoint ckpt-%ld.mdl\n", i);
		else if (i == n / 2 + 1)
			buf_printf(&log, "MIDDLE %ld\n", i);
		else if (i % 70000 == 5)
			/* '*' names over several chunks: b first seen late */
			buf_printf(&log, "set %s = %ld\n", i > 300000 ? "b" : "a", i);
		else if (i % 3 == 0)
			/* every rank prints it: one row */
			buf_printf(&log, "[1,0]<stdout>:Step=%ld, Loss=%ld.25\n"
					 "[1,1]<stdout>:Step=%ld, Loss=%ld.25\n",
				   i, i % 9, i, i % 9);
		else if (i % 3 == 1)
			/* a progress bar rewritten with CR before the row */
			buf_printf(&log, " 10%%|#  |\r 50%%|### |\rStep=%ld, Loss=%s\r\n", i,
				   i == 250000 ? "oops" : "1.5");
		else
			buf_printf(&log, "2024-03-30 15:16:33,873 INFO: nothing %ld\n", i);
	}
	buf_puts(&log, "Step=999999, Loss=0.125"); /* no newline at the end */
	e2e_write(dir, "big.log", buf_data(&log));
	buf_free(&log);

	struct proc one = parse_with_threads(dir, "1", "big.log --parser mix --json");
	assert_int_equal(one.status, 0);
	/* The first version, the last checkpoint, each at its line. */
	assert_contains(one.out, "\"version\": {\"value\": \"v3\", \"text\": \"v3\", \"line\": 3}");
	assert_contains(one.out, "\"checkpoint\": {\"value\": \"ckpt-400000.mdl\", \"text\": "
				 "\"ckpt-400000.mdl\", \"line\": ");
	assert_contains(one.out, "\"middle\": {\"value\": 200001, \"text\": \"200001\", \"line\": ");
	assert_contains(one.out, "\"never\": {\"value\": null");
	assert_contains(one.out, "\"a\": {\"value\": 280005, \"text\": \"280005\", \"line\": ");
	assert_contains(one.out, "\"b\": {\"value\": 350005, \"text\": \"350005\", \"line\": ");
	assert_contains(one.err, "column 'loss' of series 'train' is a number, but 'oops' is not "
				 "one; kept as text");
	for (int k = 0; k < 3; k++) {
		const char *threads[] = {"2", "3", "8"};
		struct proc many = parse_with_threads(dir, threads[k], "big.log --parser mix --json");
		assert_int_equal(many.status, one.status);
		assert_string_equal(many.err, one.err);
		assert_true(strcmp(many.out, one.out) == 0);
		proc_free(&many);
	}
	/* The CSV stream too. */
	struct proc csv1 = parse_with_threads(dir, "1", "big.log --parser mix --csv train");
	struct proc csv2 = parse_with_threads(dir, "2", "big.log --parser mix --csv train");
	assert_int_equal(csv1.status, 0);
	assert_true(str_has_prefix(csv1.out, "step,loss\n1,1.5\n4,1.5\n6,6.25\n7,1.5\n"));
	assert_true(str_has_suffix(csv1.out, "399997,1.5\n399999,3.25\n999999,0.125\n"));
	assert_true(strcmp(csv1.out, csv2.out) == 0);
	assert_string_equal(csv1.err, csv2.err);
	proc_free(&csv1);
	proc_free(&csv2);
	proc_free(&one);
	remove_tree(dir);
	free(dir);
}

/* A parser whose split lines end their runs (`split: {end: ...}`) has a
 * big log's chunks scanned on several threads too: the builder ends each
 * run at the end lines the scanners found, in file order.  Runs of a few
 * lines (several end lines in one 4 MiB chunk) and of several chunks,
 * first-pick fields found again in each run, '*' names, the end line's
 * name and groups, ranked rows, a bad cell and an empty last run give the
 * same JSON and messages as one thread reading from the start. */
static void a_parallel_scanned_split_log_gives_the_json_of_one_thread(void **state)
{
	(void)state;
	if (getenv("LOGDOWN_VALGRIND")) {
		printf("a_parallel_scanned_split_log_gives_the_json_of_one_thread: under "
		       "valgrind; skipped (ASan runs it)\n");
		skip();
	}
	char *dir = e2e_tmpdir();
	e2e_write(dir, "parsers/ends.yaml",
		  "name: ends\n"
		  "split: {end: '^=== end of (?<job>\\w+) code=(?<code>\\d+)', name: job}\n"
		  "fields:\n"
		  "  version:\n"
		  "    pattern: 'version (\\S+)'\n"
		  "    pick: first\n"
		  "  checkpoint: 'Saved checkpoint (\\S+)'\n"
		  "  '*': '^set (?<name>\\w+) = (?<value>\\S+)'\n"
		  "series:\n"
		  "  train:\n"
		  "    pattern: 'Step=(?<step>\\d+), Loss=(?<loss>\\S+)'\n"
		  "    types: {loss: number}\n"
		  "derive:\n"
		  "  last_step: last(train.step)\n"
		  "  mean_loss: mean(train.loss)\n");
	struct buf log = BUF_INIT;
	/* lines of each run: short ones share a chunk, long ones span
	 * several */
	static const long lens[] = {90000, 30, 5, 1, 160000, 7, 2000, 3, 120000, 12, 40000};
	const size_t nruns = sizeof lens / sizeof lens[0];
	long step = 0;
	for (size_t r = 0; r < nruns; r++) {
		for (long i = 1; i <= lens[r]; i++) {
			step++;
			if (i % 30000 == 2)
				buf_printf(&log, "version v%zu.%ld\n", r, i);
			else if (i % 20000 == 0)
				buf_printf(&log, "Saved checkpoint ckpt-%zu-%ld.mdl\n", r, i);
			else if (i % 25000 == 4)
				buf_printf(&log, "set %s = %ld\n", i > 50000 ? "b" : "a", step);
			else if (i % 3 == 0)
				buf_printf(&log, "[1,0]<stdout>:Step=%ld, Loss=%ld.25\n"
						 "[1,1]<stdout>:Step=%ld, Loss=%ld.25\n",
					   step, step % 9, step, step % 9);
			else if (i % 3 == 1)
				buf_printf(&log, "Step=%ld, Loss=%s\n", step,
					   r == 4 && i == 70000 ? "oops" : "1.5");
			else
				buf_printf(&log, "2024-03-30 15:16:33,873 INFO: nothing %ld\n", step);
		}
		buf_printf(&log, "=== end of job%zu code=%zu\n", r, r % 4);
	}
	buf_puts(&log, "bye\n"); /* a last run that finds nothing: none */
	assert_true(log.len > (12 << 20)); /* scanned apart, in four chunks */
	e2e_write(dir, "big.log", buf_data(&log));
	buf_free(&log);
	struct proc one = parse_with_threads(dir, "1", "big.log --parser ends --json");
	/* the bad cell: a warning, and its run's mean an error */
	assert_int_equal(one.status, 1);
	assert_contains(one.err, "error: mean needs numbers, but train.loss holds the string "
				 "'oops' (big.log:");
	assert_contains(one.out, "{\"name\": \"job0\", \"first_line\": 1,");
	assert_contains(one.out, "{\"name\": \"job10\", \"first_line\": ");
	size_t runs = 0;
	for (const char *at = one.out; (at = strstr(at, "\"first_line\"")); at++)
		runs++;
	assert_int_equal(runs, nruns); /* "bye" is no run */
	assert_contains(one.out, "\"version\": {\"value\": \"v4.2\", \"text\": \"v4.2\", "
				 "\"line\": ");
	assert_contains(one.out, "\"code\": {\"value\": 3, \"text\": \"3\", \"line\": ");
	assert_contains(one.err, "column 'loss' of series 'train' is a number, but 'oops' is not "
				 "one; kept as text");
	for (int k = 0; k < 2; k++) {
		const char *threads[] = {"2", "3"};
		struct proc many = parse_with_threads(dir, threads[k], "big.log --parser ends --json");
		assert_int_equal(many.status, one.status);
		assert_string_equal(many.err, one.err);
		if (strcmp(many.out, one.out) != 0)
			fail_msg("--json on %s threads differs from one thread's", threads[k]);
		proc_free(&many);
	}
	proc_free(&one);
	remove_tree(dir);
	free(dir);
}

/* A pattern that backtracks too much fails at its first bad line, which
 * several threads name as one does. */
static void a_failing_pattern_in_a_big_log_is_named_at_its_first_line(void **state)
{
	(void)state;
	if (getenv("LOGDOWN_VALGRIND")) {
		printf("a_failing_pattern_in_a_big_log_is_named_at_its_first_line: under "
		       "valgrind; skipped (ASan runs it)\n");
		skip();
	}
	char *dir = e2e_tmpdir();
	e2e_write(dir, "parsers/slow.yaml",
		  "name: slow\n"
		  "fields:\n"
		  "  end: 'END (\\d+)'\n"
		  "series:\n"
		  "  s:\n"
		  "    pattern: 'Q(?<a>a+)+$'\n"
		  "    columns: [a]\n");
	struct buf log = BUF_INIT;
	for (long i = 1; i <= 300000; i++) {
		if (i == 123457 || i == 200001 || i == 290000)
			buf_puts(&log, "Qaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\n");
		else
			buf_printf(&log, "line %ld of a log that is long enough\n", i);
	}
	buf_puts(&log, "END 7\n");
	e2e_write(dir, "big.log", buf_data(&log));
	buf_free(&log);
	struct proc one = parse_with_threads(dir, "1", "big.log --parser slow");
	assert_int_equal(one.status, 1);
	assert_contains(one.err, "hit the match limit on big.log:123457: it backtracks too much");
	struct proc two = parse_with_threads(dir, "2", "big.log --parser slow");
	assert_int_equal(two.status, one.status);
	assert_string_equal(two.err, one.err);
	assert_string_equal(two.out, one.out);
	proc_free(&one);
	proc_free(&two);
	remove_tree(dir);
	free(dir);
}

/* A project parser whose definition has errors: named on the command
 * line or in a report, it is said to be not loaded, not unknown. */
static void a_parser_with_errors_is_not_loaded_not_unknown(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "parsers/s.yaml",
		  "series:\n"
		  "  s:\n"
		  "    pattern: '(?<a>x)'\n"
		  "    columns: (a]\n");
	e2e_write(dir, "a.log", "x\n");
	struct proc r = e2e_run(dir, "parse a.log --parser s");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "parsers/s.yaml:4:14: error: the columns of series 's' are a list of "
			    "group names, not a string\n"
			    "    4 |     columns: (a]\n"
			    "      |              ^~~\n"
			    "logdown: error: parser 's' is not loaded: its definition parsers/s.yaml "
			    "has errors (above)\n");
	proc_free(&r);
	e2e_write(dir, "content/r/a.log", "x\n");
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: R\nruns:\n  a: { file: a.log, parser: s }\n---\n{{ a.line_count }}\n");
	r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "content/r/index.md:4:29: error: parser 's' is not loaded: its "
			       "definition parsers/s.yaml has errors (above)\n");
	proc_free(&r);
	remove_tree(dir);
	free(dir);
}

/* Parsers are JIT-compiled when a file is read with them, not when
 * they load: a bad pattern in a parser no report uses is still an error
 * at its place, and a report whose runs use two parsers, one of them
 * found by detection (parser: auto), reads both. */
static void parsers_compiled_when_used_still_say_every_error(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "parsers/bad.yaml", "name: bad\ndetect: 'zzz'\nfields:\n  x: \"(\\\\d+\"\n");
	e2e_write(dir, "parsers/mine.yaml",
		  "name: mine\ndetect: '^mine log'\nfields:\n  n: 'n=(\\d+)'\n");
	e2e_write(dir, "content/r/a.log", "mine log\nn=41\n");
	e2e_write(dir, "content/r/b.log", "mine log\nn=42\n");
	e2e_write(dir, "content/r/c.log",
		  "2024-01-01 00:00:00,000 INFO:   | Train Device=CSX, Step=10, Loss=2.50000, "
		  "Rate=100.00 samples/sec, GlobalRate=100.00 samples/sec\n");
	e2e_write(dir, "content/r/index.md",
		  "---\ntitle: R\nruns:\n  a: { file: a.log, parser: mine }\n  b: b.log\n"
		  "  c: { file: c.log, parser: cerebras }\n---\n"
		  "A {{ a.n }}, b {{ b.n }}, c {{ last(c.train.loss) }}.\n");
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "parsers/bad.yaml:4:12: error: bad pattern for field 'x': missing "
			    "closing parenthesis (at offset 4 in the pattern)\n"
			    "    4 |   x: \"(\\\\d+\"\n"
			    "      |            ^\n"
			    "logdown: 1 error; the previous output was left as it was\n");
	proc_free(&r);
	char *bad = path_join(dir, "parsers/bad.yaml");
	assert_int_equal(unlink(bad), 0);
	free(bad);
	r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_contains(page, ">41<");
	assert_contains(page, ">42<");
	assert_contains(page, ">2.50000<");
	free(page);
	remove_tree(dir);
	free(dir);
}

static void output_that_cannot_be_written_is_an_io_failure(void **state)
{
	(void)state;
	if (!path_exists("/dev/full"))
		skip();
	/* e2e_run() sends stdout to a file: run the binary by hand. */
	char err[] = "/tmp/logdown-err-XXXXXX";
	int fd = mkstemp(err);
	assert_true(fd >= 0);
	close(fd);
	char *cmd = xasprintf("cd %s && '%s' parse --json small.json >/dev/full 2>%s", FIXTURES,
			      e2e_binary(), err);
	int st = system(cmd);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 3);
	char *text = e2e_read("/", err);
	assert_string_equal(text, "logdown: cannot write the output: No space left on device\n");
	free(text);
	unlink(err);
	free(cmd);
}

static void parser_can_be_named(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "results.txt", "{\"a\": 1}\n");
	struct proc r = e2e_run(dir, "parse --parser=json results.txt --json");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "{\n"
				   "  \"file\": \"results.txt\",\n"
				   "  \"parser\": \"json\",\n"
				   "  \"fields\": {\n"
				   "    \"a\": {\"value\": 1, \"text\": \"1\", \"line\": 1}\n"
				   "  },\n"
				   "  \"series\": {}\n"
				   "}\n");
	proc_free(&r);
	remove_tree(dir);
	free(dir);
}

static const char mytrain_yaml[] = "name: mytrain\n"
				   "detect: '(?m)^epoch \\d+ loss='\n"
				   "fields:\n"
				   "  gpus: 'using (\\d+) GPUs'\n"
				   "  '*': '^(?<name>[A-Z][\\w ()]+): (?<value>[\\d.]+)$'\n"
				   "series:\n"
				   "  epochs: 'epoch (?<epoch>\\d+) loss=(?<loss>[\\d.]+)'\n";
static const char train_log[] = "using 4 GPUs\n"
				"epoch 1 loss=0.9\n"
				"epoch 2 loss=0.5\n"
				"Mean TTFT (ms): 12.5\n";

/* The project a file belongs to is the nearest folder above it with a
 * site.yaml or a content/ folder: its parsers count wherever logdown
 * runs, and so do the folders its site.yaml lists. */
static void parse_finds_the_project_a_file_belongs_to(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(E2E_TEXT("site.yaml", "parsers: [shared]\n"),
					  E2E_TEXT("parsers/mytrain.yaml", mytrain_yaml),
					  E2E_TEXT("shared/kv.yaml", "name: kv\n"
								     "detect: '^gpu_hours='\n"
								     "fields:\n"
								     "  hours: 'gpu_hours=(\\d+)'\n"),
					  E2E_TEXT("content/r/logs/train.log", train_log),
					  E2E_TEXT("content/r/logs/hours.txt", "gpu_hours=12\n")));
	struct proc r = e2e_run(dir, "parse content/r/logs/train.log");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_true(str_has_prefix(r.out, "file     content/r/logs/train.log\n"
					  "parser   mytrain (parsers/mytrain.yaml)\n"));
	proc_free(&r);
	/* From inside the report's folder, and from outside the project. */
	char *in = path_join(dir, "content/r");
	r = e2e_run(in, "parse logs/train.log");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "parser   mytrain (");
	assert_contains(r.out, "/parsers/mytrain.yaml)\n");
	assert_contains(r.out, "  mean_ttft_ms   12.5   (line 4)\n");
	proc_free(&r);
	r = e2e_run("/", "parse '%s/content/r/logs/hours.txt'", dir);
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "parser   kv (");
	assert_contains(r.out, "  hours   12   (line 1)\n");
	proc_free(&r);
	free(in);
	e2e_drop(&dir);
}

/* --parsers DIR adds a folder of definitions, for a file outside any
 * project; a --parsers that is not a folder is bad usage. */
static void parsers_option_adds_a_folder_of_definitions(void **state)
{
	(void)state;
	char *defs = e2e_project(E2E_FILES(E2E_TEXT("mytrain.yaml", mytrain_yaml)));
	char *dir = e2e_project(E2E_FILES(E2E_TEXT("train.log", train_log)));
	struct proc r = e2e_run(dir, "parse train.log");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "cannot tell which parser reads train.log: none recognises it");
	proc_free(&r);
	r = e2e_run(dir, "parse train.log --parsers '%s'", defs);
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "parser   mytrain (");
	proc_free(&r);
	r = e2e_run(dir, "parse train.log --parsers=nope");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "nope: error: not a folder: --parsers names a folder of "
				   "parser .yaml files\n");
	proc_free(&r);
	r = e2e_run(dir, "parse train.log --parsers");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: --parsers needs a folder\n");
	proc_free(&r);
	e2e_drop(&defs);
	e2e_drop(&dir);
}

/* --csv SERIES writes that series' rows: the fields and the other
 * series are not looked for, so their warnings (a typed field that is
 * not of its type, a series with no rows) belong to the other forms. */
static void csv_looks_only_for_its_series(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(
		E2E_TEXT("parsers/t.yaml", "name: t\n"
					   "detect: '(?m)^epoch \\d+ loss='\n"
					   "fields:\n"
					   "  wall: { pattern: 'took (\\S+)', type: duration }\n"
					   "series:\n"
					   "  epochs: 'epoch (?<epoch>\\d+) loss=(?<loss>[\\d.]+)'\n"
					   "  evals: 'eval acc=(?<acc>[\\d.]+)'\n"),
		E2E_TEXT("train.log", "epoch 1 loss=0.9\nepoch 2 loss=0.5\ntook soon\n")));
	struct proc r = e2e_run(dir, "parse --csv epochs train.log");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "epoch,loss\n1,0.9\n2,0.5\n");
	proc_free(&r);
	r = e2e_run(dir, "parse train.log");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "train.log:3: warning: field 'wall' is a duration, but 'soon' is "
			       "not one; kept as text\n");
	assert_contains(r.err, "train.log: warning: series 'evals' has no rows: its pattern "
			       "'eval acc=(?<acc>[\\d.]+)' matched no line\n");
	proc_free(&r);
	e2e_drop(&dir);
}

/* ... and in every run of a file its parser splits (a parser with a
 * carry reads it run by run, on one thread). */
static void csv_looks_only_for_its_series_in_every_run(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(
		E2E_TEXT("parsers/t.yaml", "name: t\n"
					   "detect: '(?m)^epoch \\d+ loss='\n"
					   "split: '^== run'\n"
					   "carry: ['phase (?<phase>\\w+)']\n"
					   "fields:\n"
					   "  wall: { pattern: 'took (\\S+)', type: duration }\n"
					   "series:\n"
					   "  epochs: 'epoch (?<epoch>\\d+) loss=(?<loss>[\\d.]+)'\n"),
		E2E_TEXT("train.log", "== run a\nphase warm\nepoch 1 loss=0.9\ntook soon\n"
				      "== run b\nepoch 1 loss=0.5\ntook later\n")));
	struct proc r = e2e_run(dir, "parse --csv epochs train.log");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "epoch,loss,phase\n1,0.9,warm\n1,0.5,\n");
	proc_free(&r);
	e2e_drop(&dir);
}

/* --list-columns names everything a report can write after a run's
 * name: the run attributes, the fields, each series' columns. */
static void list_columns_names_every_name_a_report_can_use(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(E2E_TEXT("parsers/mytrain.yaml", mytrain_yaml),
					  E2E_TEXT("content/r/logs/train.log", train_log)));
	struct proc r = e2e_run(dir, "parse --list-columns content/r/logs/train.log");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out,
			    "name          run attribute: the run's name (its key in runs:, or "
			    "its file stem)\n"
			    "file          run attribute: the result file, relative to the report\n"
			    "parser        run attribute: the parser that read it\n"
			    "line_count    run attribute: the file's lines\n"
			    "gpus          field\n"
			    "mean_ttft_ms  field\n"
			    "epochs.epoch  column of series epochs (2 rows)\n"
			    "epochs.loss   column of series epochs (2 rows)\n");
	proc_free(&r);
	e2e_drop(&dir);
}

static void malformed_file_is_a_content_error_at_its_place(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "bad.json", "{\"a\": 1,\n \"b\" 2}\n");
	struct proc r = e2e_run(dir, "parse bad.json --json");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_contains(r.err, "bad.json:2:6: error: malformed JSON: expected ':' after the key, "
			       "found '2'\n"
			       "    2 |  \"b\" 2}\n"
			       "      |      ^\n");
	proc_free(&r);
	remove_tree(dir);
	free(dir);
}

static void bad_usage_exits_2(void **state)
{
	(void)state;
	struct proc r = e2e_run(FIXTURES, "parse");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_contains(r.err, "logdown: name the result file to parse\n\nusage: logdown parse FILE");
	proc_free(&r);

	r = e2e_run(FIXTURES, "parse small.json --jsn");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: unknown option '--jsn'\n");
	proc_free(&r);

	r = e2e_run(FIXTURES, "parse small.json other.json");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: more than one file given ('other.json')\n");
	proc_free(&r);

	r = e2e_run(FIXTURES, "parse small.json --parser");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: --parser needs a parser name\n");
	proc_free(&r);

	r = e2e_run(FIXTURES, "parse nope.json");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "nope.json: error: cannot read: No such file or directory\n");
	proc_free(&r);

	r = e2e_run(FIXTURES, "parse .");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, ".: error: a folder: name one result file\n");
	proc_free(&r);

	r = e2e_run(FIXTURES, "parse /dev/null");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.err, "/dev/null: error: not a regular file (a character device)\n");
	proc_free(&r);

	r = e2e_run(FIXTURES, "parse small.json --parser jsno");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_contains(r.err, "unknown parser 'jsno' (did you mean 'json'?)");
	proc_free(&r);

	/* A word after `parsers` names a parser to show. */
	r = e2e_run(FIXTURES, "parsers extra");
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_contains(r.err, "error: unknown parser 'extra' (`logdown parsers` lists them)\n");
	proc_free(&r);
}

static void file_no_parser_claims_is_a_content_error(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "notes.txt", "nothing a parser knows\n");
	struct proc r = e2e_run(dir, "parse notes.txt");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_contains(r.err, "notes.txt: error: ");
	proc_free(&r);
	remove_tree(dir);
	free(dir);
}

/* out has a line that starts with name, blanks, then rest. */
static void assert_listed(const char *out, const char *name, const char *rest)
{
	size_t n = strlen(name);
	for (const char *l = out; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		if (strncmp(l, name, n) != 0 || l[n] != ' ')
			continue;
		const char *p = l + n;
		while (*p == ' ')
			p++;
		if (strncmp(p, rest, strlen(rest)) == 0)
			return;
		fail_msg("the line of '%s' is '%.*s', wanted its rest '%s'", name,
			 (int)(strchr(l, '\n') ? strchr(l, '\n') - l : (long)strlen(l)), l, rest);
	}
	fail_msg("no line of '%s' in:\n%s", name, out);
}

static void parsers_lists_one_a_line_sorted(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	struct proc r = e2e_run(dir, "parsers");
	assert_string_equal(r.err, "");
	assert_int_equal(r.status, 0);
	/* The names padded to the longest one's width (which new built-ins
	 * change), then where each is defined and what it reads. */
	assert_listed(r.out, "cerebras", "built-in  Cerebras Model Zoo training logs\n");
	assert_listed(r.out, "json", "built-in  JSON result files\n");
	/* Cut at a word, with an ellipsis, when the start is long. */
	assert_listed(r.out, "keyvalue", "built-in  Plain \"name: number\" or \"name = number\" "
					 "files (hand-copied\xE2\x80\xA6\n");
	/* Sorted by name. */
	assert_true(strstr(r.out, "cerebras ") < strstr(r.out, "csv "));
	assert_true(strstr(r.out, "csv ") < strstr(r.out, "json "));
	proc_free(&r);

	/* A project parser adds to the list, and names its file. */
	e2e_write(dir, "parsers/loss.yaml",
		  "name: loss\n"
		  "description: Lines like loss=1.5.  Nothing else.\n"
		  "fields:\n"
		  "  loss: 'loss=([\\d.]+)'\n");
	e2e_write(dir, "run.txt", "step 1\nloss=1.5\n");
	r = e2e_run(dir, "parsers");
	assert_string_equal(r.err, "");
	assert_listed(r.out, "loss", "parsers/loss.yaml  Lines like loss=1.5\n");
	assert_listed(r.out, "json", "built-in           JSON result files\n");
	proc_free(&r);
	r = e2e_run(dir, "parse run.txt --parser loss --json");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "\"loss\": {\"value\": 1.5, \"text\": \"1.5\", \"line\": 2}");
	proc_free(&r);
	remove_tree(dir);
	free(dir);
}

static void parse_takes_strict_and_github_diagnostics(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	e2e_write(dir, "e.log", "nothing here\n");
	struct proc r = e2e_run(dir, "parse e.log --parser cerebras --diagnostics=github");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "::warning file=e.log::parser 'cerebras' matched nothing in "
				   "e.log\n");
	proc_free(&r);
	r = e2e_run(dir, "parse e.log --parser cerebras --strict");
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, "e.log: error: parser 'cerebras' matched nothing in e.log\n");
	proc_free(&r);
	remove_tree(dir);
	free(dir);
}

static void help_lists_and_explains_the_commands(void **state)
{
	(void)state;
	struct proc r = e2e_run(".", "--help");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "  parse FILE    show what a parser extracts from a result file\n");
	assert_contains(r.out, "  parsers       list the built-in and project parsers\n");
	proc_free(&r);
	r = e2e_run(".", "parse --help");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "usage: logdown parse FILE [--parser NAME] [--parsers DIR]...\n"
			       "                     [--json | --csv SERIES | --list-columns] "
			       "[--strict]\n");
	proc_free(&r);
	r = e2e_run(".", "help parsers");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "usage: logdown parsers [NAME...] [--markdown] [--strict]\n"
			       "                       [--diagnostics=text|github|json]\n");
	proc_free(&r);
	r = e2e_run(".", "parsrs");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: unknown command 'parsrs' (did you mean 'parsers'?)\n");
	proc_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_json_prints_the_spec_shape),
		cmocka_unit_test(parse_json_of_a_csv_file),
		cmocka_unit_test(csv_of_a_big_ranked_log_streams_each_row_once),
		cmocka_unit_test(parse_shows_a_readable_summary),
		cmocka_unit_test(summary_of_a_long_series_shows_first_and_last_rows),
		cmocka_unit_test(parse_json_of_a_cerebras_log),
		cmocka_unit_test(a_big_log_parses_the_same_on_any_number_of_threads),
		cmocka_unit_test(a_big_split_log_gives_each_run_its_own_rows),
		cmocka_unit_test(a_parallel_scanned_split_log_gives_the_json_of_one_thread),
		cmocka_unit_test(a_failing_pattern_in_a_big_log_is_named_at_its_first_line),
		cmocka_unit_test(a_parser_with_errors_is_not_loaded_not_unknown),
		cmocka_unit_test(output_that_cannot_be_written_is_an_io_failure),
		cmocka_unit_test(parser_can_be_named),
		cmocka_unit_test(parse_finds_the_project_a_file_belongs_to),
		cmocka_unit_test(parsers_option_adds_a_folder_of_definitions),
		cmocka_unit_test(csv_looks_only_for_its_series),
		cmocka_unit_test(csv_looks_only_for_its_series_in_every_run),
		cmocka_unit_test(list_columns_names_every_name_a_report_can_use),
		cmocka_unit_test(malformed_file_is_a_content_error_at_its_place),
		cmocka_unit_test(bad_usage_exits_2),
		cmocka_unit_test(file_no_parser_claims_is_a_content_error),
		cmocka_unit_test(parsers_lists_one_a_line_sorted),
		cmocka_unit_test(parsers_compiled_when_used_still_say_every_error),
		cmocka_unit_test(parse_takes_strict_and_github_diagnostics),
		cmocka_unit_test(help_lists_and_explains_the_commands),
		cmocka_unit_test(json_of_a_big_series_comes_out_in_order),
		cmocka_unit_test(json_of_a_million_rows_streams_in_flat_memory),
		cmocka_unit_test(a_late_error_writes_no_json_and_leaves_no_temporary_file),
		cmocka_unit_test(json_costs_at_most_twice_csv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
