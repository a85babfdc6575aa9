/* test_benchparsers.c: the benchmark parsers (stream, hpl, hpcg, osu,
 * nccl-tests, gbench, hyperfine, time-v, perf-stat, likwid, npb) on the
 * real published outputs of tests/corpus/<parser>/ (their SOURCES say
 * where each came from): the values, texts and line numbers a report
 * shows.  The helpers are test_builtins.c's.  The tests run from the
 * repository's root. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/diag.h"
#include "parse/logparse.h"
#include "data/run.h"
#include "capture.h"

#define CORPUS "tests/corpus/"

#include "builtincheck.h"


/* No warning was said while the current test ran. */
static size_t warnings_before;
static void no_new_warnings(const char *file, int at)
{
	if (diag_warnings(quiet.d) != warnings_before) {
		print_error("warnings were said:\n%s\n", said());
		_fail(file, at);
	}
}
#define NO_WARNINGS() no_new_warnings(__FILE__, __LINE__)
#define WATCH() (warnings_before = diag_warnings(quiet.d))

static void stream_reads_the_kernels_table_and_the_run_settings(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "stream/revyos-lpi4a-8threads.log", "stream");
	STR(r, "version", "5.10", 3);
	NUM(r, "array_size", 10000000, "10000000", 7);
	NUM(r, "threads", 8, "8", 15);
	NUM(r, "ntimes", 10, "10", 10);
	NUM(r, "triad_mb_s", 6125.3, "6125.3", 31);
	NUM(r, "validates", 1, "1", 33);
	const struct series *k = SERIES(r, "kernels", 4);
	COLUMNS(k, "function", "best_rate_mb_s", "avg_time_s", "min_time_s", "max_time_s");
	STR_CELL(k, 0, "function", "Copy", 28);
	NUM_CELL(k, 0, "best_rate_mb_s", 8239.8, "8239.8", 28);
	STR_CELL(k, 3, "function", "Triad", 31);
	NUM_CELL(k, 3, "max_time_s", 0.039961, "0.039961", 31);
	NO_WARNINGS();
}

static void hpl_reads_runs_checks_and_the_closing_summary(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "hpl/sc14-hpl2.1-48procs.out", "hpl");
	STR(r, "version", "2.1", 2);
	NUM(r, "gflops", 979.69, "9.79690e+02", 47);
	NUM(r, "passed", 1, "1", 57);
	NUM(r, "failed", 0, "0", 58);
	NUM(r, "total_tests", 1, "1", 56);
	const struct series *runs = SERIES(r, "runs", 1);
	STR_CELL(runs, 0, "tv", "WR01C2R4", 47);
	NUM_CELL(runs, 0, "n", 100000, "100000", 47);
	NUM_CELL(runs, 0, "time_s", 680.5, "680.50", 47);
	const struct series *c = SERIES(r, "checks", 1);
	NUM_CELL(c, 0, "residual", 0.0021839, "0.0021839", 53);
	STR_CELL(c, 0, "status", "PASSED", 53);
	NO_WARNINGS();
}

/* A sweep stopped before HPL's summary: its checks are counted. */
static void hpl_counts_the_checks_of_an_interrupted_sweep(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "hpl/kish29-hpl2.3-interrupted.out", "hpl");
	const struct datum *d = run_field(r, "passed");
	assert_non_null(d);
	assert_int_equal(d->kind, DATUM_NUMBER);
	assert_true(d->num == 3);
	MISSING(r, "total_tests");
	SERIES(r, "runs", 3);
	NUM(r, "gflops", 4.6178e-06, "4.6178e-06", 47);
}

static void hpcg_reads_the_rating_and_every_summary_number(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "hpcg/isc21-nscc-96procs.txt", "hpcg");
	NUM(r, "gflops", 89.5424, "89.5424", 33);
	STR(r, "result", "VALID", 33);
	NUM(r, "gflops_historical", 120.439, "120.439", 34);
	NUM(r, "processes", 96, "96", 5);
	NUM(r, "total_time_s", 1818.42, "1818.42", 18);
	NUM(r, "gflop_s_summary_raw_total", 120.439, "120.439", 29);
	NUM(r, "gb_s_summary_raw_total_b_w", 913.971, "913.971", 22);
	NO_WARNINGS();
}

static void osu_names_the_measure_from_the_header(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "osu/uibk-osu5.8-latency-nodes.log", "osu");
	STR(r, "benchmark", "MPI Latency Test", 1);
	STR(r, "version", "5.8", 1);
	const struct series *s = SERIES(r, "sizes", 24);
	COLUMNS(s, "size", "latency_us");
	NUM_CELL(s, 0, "size", 0, "0", 3);
	NUM_CELL(s, 0, "latency_us", 1.68, "1.68", 3);
	NUM_CELL(s, 23, "latency_us", 1243.13, "1243.13", 26);
	r = PARSE(CORPUS "osu/uibk-osu5.8-bandwidth-nodes.log", "osu");
	s = SERIES(r, "sizes", 23);
	COLUMNS(s, "size", "bandwidth_mb_s");
	NUM_CELL(s, 22, "bandwidth_mb_s", 2317.64, "2317.64", 25);
	NO_WARNINGS();
}

static void nccl_tests_reads_both_column_groups(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "nccl-tests/a3mega-h100-16gpus-all-reduce.md", "nccl-tests");
	NUM(r, "avg_bus_bandwidth", 70.742, "70.742", 64);
	NUM(r, "out_of_bounds", 0, "0", 63);
	STR(r, "out_of_bounds_status", "OK", 63);
	NUM(r, "max_bytes", 8589934592.0, "8589934592", 9);
	const struct series *s = SERIES(r, "sizes", 31);
	COLUMNS(s, "size", "count", "type", "redop", "root", "oop_time_us", "oop_algbw_gb_s",
		"oop_busbw_gb_s", "oop_wrong", "ip_time_us", "ip_algbw_gb_s", "ip_busbw_gb_s",
		"ip_wrong");
	NUM_CELL(s, 0, "size", 8, "8", 32);
	NUM_CELL(s, 30, "oop_busbw_gb_s", 338.82, "338.82", 62);
	NUM_CELL(s, 30, "ip_time_us", 47743, "47743", 62);
	/* sendrecv_perf writes N/A in the in-place #wrong column */
	r = PARSE(CORPUS "nccl-tests/a100-sendrecv-readme.md", "nccl-tests");
	s = SERIES(r, "sizes", 4);
	MISSING_CELL(s, 0, "ip_wrong");
	NUM_CELL(s, 3, "ip_busbw_gb_s", 195.56, "195.56", 15);
	NO_WARNINGS();
}

static void gbench_reads_the_console_table(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "gbench/googlebenchmark-sample-2017.md", "gbench");
	NUM(r, "num_cpus", 4, "4", 12);
	NUM(r, "mhz_per_cpu", 2501, "2501", 12);
	STR(r, "date", "2017-04-02 07:43:37", 13);
	const struct series *s = SERIES(r, "benchmarks", 2);
	COLUMNS(s, "name", "aggregate", "real_time", "cpu_time", "time_unit", "iterations");
	STR_CELL(s, 0, "name", "StringCreationBenchmark", 17);
	MISSING_CELL(s, 0, "aggregate");
	NUM_CELL(s, 1, "real_time", 19, "19", 18);
	STR_CELL(s, 1, "time_unit", "ns", 18);
	NUM_CELL(s, 1, "iterations", 31851846, "31851846", 18);
	NO_WARNINGS();
}

static void hyperfine_reads_times_into_seconds(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "hyperfine/aoc2021-day01-speedtest.md", "hyperfine");
	const struct series *s = SERIES(r, "results", 5);
	STR_CELL(s, 0, "command", "python .\\01_simple.py", 6);
	NUM_CELL(s, 0, "mean_s", 0.0434, "43.4 ms", 6);
	NUM_CELL(s, 0, "user_s", 0.0013, "1.3 ms", 6);
	const struct series *g = SERIES(r, "ranges", 5);
	NUM_CELL(g, 4, "runs", 247, "247", 27);
	NUM_CELL(g, 4, "max_s", 0.0077, "7.7 ms", 27);
	r = PARSE(CORPUS "hyperfine/pocket-tts-export-markdown.md", "hyperfine");
	s = SERIES(r, "exported", 2);
	NUM_CELL(s, 1, "max_s", 2.366, "2.366", 4);
	NO_WARNINGS();
}

static void time_v_reads_every_line_and_the_elapsed_time(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "time-v/tnear-time-v-python.md", "time-v");
	STR(r, "command", "python -c print(\"hello world\")", 11);
	NUM(r, "user_time_s", 0.06, "0.06", 12);
	NUM(r, "cpu_percent", 93, "93%", 14);
	NUM(r, "elapsed_s", 0.08, "0:00.08", 15);
	NUM(r, "max_rss_kb", 9028, "9028", 19);
	NUM(r, "exit_status", 0, "0", 30);
	MISSING(r, "voluntary_context_switches");
	NO_WARNINGS();
}

/* A file of two reports is two runs, each with its own numbers. */
static void time_v_splits_a_file_of_several_reports(void **state)
{
	(void)state;
	WATCH();
	struct run *whole = PARSE(CORPUS "time-v/jsonrpc-test-two-runs.md", "time-v");
	assert_int_equal(run_member_count(whole), 2);
	struct run *first = run_member_at(whole, 0), *r = run_member_at(whole, 1);
	NUM(first, "max_rss_kb", 2304, "2304", 19);
	NUM(first, "elapsed_s", 1.13, "0:01.13", 14);
	NUM(r, "max_rss_kb", 2048, "2048", 45);
	NUM(r, "involuntary_context_switches", 3377, "3377", 50);
	STR(r, "command", "target/release/json", 36);
	NO_WARNINGS();
}

static void perf_stat_makes_a_field_of_every_event(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "perf-stat/tnear-perf-stat-ls.md", "perf-stat");
	NUM(r, "task_clock", 1.27, "1.27", 9);
	NUM(r, "cycles", 1036537, "1,036,537", 13);
	NUM(r, "branch_misses", 12090, "12,090", 16);
	NUM(r, "insn_per_cycle", 1.0, "1.00", 14);
	NUM(r, "seconds_time_elapsed", 0.002599947, "0.002599947", 18);
	STR(r, "command", "ls", 8);
	const struct series *s = SERIES(r, "counters", 8);
	COLUMNS(s, "value", "unit", "event", "note");
	STR_CELL(s, 0, "unit", "msec", 9);
	STR_CELL(s, 0, "event", "task-clock:u", 9);
	STR_CELL(s, 7, "note", "5.79% of all branches", 16);
	/* an older perf: "<not supported>" counters have no value */
	r = PARSE(CORPUS "perf-stat/parboil-cutcp-perf3.profile", "perf-stat");
	s = SERIES(r, "counters", 10);
	MISSING_CELL(s, 5, "value");
	STR_CELL(s, 5, "event", "stalled-cycles-frontend", 22);
	NUM(r, "instructions", 427915796202.0, "427,915,796,202", 24);
	NO_WARNINGS();
}

/* likwid-perfctr stacks its tables without a blank line: each is read
 * whole, with no warning. */
static void likwid_reads_stacked_tables_region_by_region(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "likwid/ufpr-icc-edo-flops-dp-core3.txt", "likwid");
	STR(r, "cpu_name", "Intel(R) Core(TM) i5-7500 CPU @ 3.40GHz", 72);
	STR(r, "region", "EDO1", 76);
	NUM(r, "dp_mflop_s", 96.2114, "96.2114", 100);
	const struct series *e = SERIES(r, "events", 18);
	COLUMNS(e, "event", "counter", "core_3", "region", "group_num", "group");
	STR_CELL(e, 0, "event", "INSTR_RETIRED_ANY", 16);
	NUM_CELL(e, 0, "core_3", 5190, "5190", 16);
	STR_CELL(e, 0, "region", "LU", 16);
	const struct series *m = SERIES(r, "metrics", 27);
	STR_CELL(m, 26, "metric", "Vectorization ratio", 104);
	STR_CELL(m, 26, "region", "EDO1", 104);
	SERIES(r, "region_info", 6);
	NO_WARNINGS();
}

static void npb_reads_the_completion_summary(void **state)
{
	(void)state;
	WATCH();
	struct run *r = PARSE(CORPUS "npb/cg-S-omp3.3.1-1thread.log", "npb");
	STR(r, "benchmark", "CG", 32);
	STR(r, "class", "S", 33);
	NUM(r, "size", 1400, "1400", 34);
	NUM(r, "time_s", 1.85, "1.85", 36);
	NUM(r, "mops_total", 35.96, "35.96", 39);
	STR(r, "verification", "SUCCESSFUL", 42);
	NUM(r, "verified", 1, "1", 42);
	r = PARSE(CORPUS "npb/ft-S-omp3.3.1-2proc.log", "npb");
	STR(r, "size", "64x  64x  64", 20);
	NO_WARNINGS();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(stream_reads_the_kernels_table_and_the_run_settings, free_current),
		cmocka_unit_test_teardown(hpl_reads_runs_checks_and_the_closing_summary, free_current),
		cmocka_unit_test_teardown(hpl_counts_the_checks_of_an_interrupted_sweep, free_current),
		cmocka_unit_test_teardown(hpcg_reads_the_rating_and_every_summary_number, free_current),
		cmocka_unit_test_teardown(osu_names_the_measure_from_the_header, free_current),
		cmocka_unit_test_teardown(nccl_tests_reads_both_column_groups, free_current),
		cmocka_unit_test_teardown(gbench_reads_the_console_table, free_current),
		cmocka_unit_test_teardown(hyperfine_reads_times_into_seconds, free_current),
		cmocka_unit_test_teardown(time_v_reads_every_line_and_the_elapsed_time, free_current),
		cmocka_unit_test_teardown(time_v_splits_a_file_of_several_reports, free_current),
		cmocka_unit_test_teardown(perf_stat_makes_a_field_of_every_event, free_current),
		cmocka_unit_test_teardown(likwid_reads_stacked_tables_region_by_region, free_current),
		cmocka_unit_test_teardown(npb_reads_the_completion_summary, free_current),
	};
	return cmocka_run_group_tests(tests, load_builtins, free_builtins);
}
