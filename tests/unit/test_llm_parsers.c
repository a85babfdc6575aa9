/* test_llm_parsers.c: the built-in parsers of LLM serving and evaluation
 * and of batch jobs (vllm-bench, vllm-server, lm-eval, llama-bench, seff,
 * pbs, and slurm's sacct -P tables) on the real files of tests/corpus/.
 *
 * The corpus facts check values as written; these tests check what the
 * facts cannot: the line each value came from, the typed value (a
 * duration in seconds, a timestamp, a number with its unit), the runs a
 * file is split into, and that a normal file is read without a warning.
 * The tests run from the repository's root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "data/run.h"
#include "parse/logparse.h"
#include "capture.h"

#define CORPUS "tests/corpus/"

static struct parser_set *builtins;
static struct capture said;
static struct run *current;

static int load_builtins(void **state)
{
	(void)state;
	cap_open(&said);
	builtins = parsers_load(NULL, NULL, said.d);
	return builtins ? 0 : -1;
}

static int free_builtins(void **state)
{
	(void)state;
	run_free(current);
	current = NULL;
	parsers_free(builtins);
	cap_close(&said);
	return 0;
}

/* Detects path, asserts its parser is `name`, and reads it without an
 * error or a warning.  The run stays `current` until the next call. */
static struct run *read_as(const char *path, const char *name)
{
	run_free(current);
	current = NULL;
	size_t errors = diag_errors(said.d), warnings = diag_warnings(said.d);
	const struct parser *p = parsers_detect(builtins, path, loc_line(path, 0), said.d);
	if (!p || strcmp(parser_name(p), name) != 0)
		fail_msg("%s: detected as '%s', expected '%s'\n%s", path,
			 p ? parser_name(p) : "(none)", name, cap_text(&said));
	current = parser_run(p, path, path, "r", said.d);
	if (!current || diag_errors(said.d) != errors || diag_warnings(said.d) != warnings)
		fail_msg("%s: '%s' did not read it quietly:\n%s", path, name, cap_text(&said));
	return current;
}

static void assert_datum(const struct datum *d, double num, const char *text, long line)
{
	assert_non_null(d);
	assert_int_equal(d->kind, DATUM_NUMBER);
	assert_true(fabs(d->num - num) < 1e-9 * (fabs(num) + 1));
	if (text) {
		assert_non_null(d->text);
		assert_int_equal(d->len, strlen(text));
		assert_memory_equal(d->text, text, d->len);
	}
	assert_int_equal(d->line, line);
}

static void assert_text(const struct datum *d, const char *text, long line)
{
	assert_non_null(d);
	assert_int_equal(d->kind, DATUM_STRING);
	assert_int_equal(d->len, strlen(text));
	assert_memory_equal(d->text, text, d->len);
	assert_int_equal(d->line, line);
}

static void num_field(const struct run *r, const char *name, double num, const char *text,
		      long line)
{
	assert_datum(run_field(r, name), num, text, line);
}

static struct datum cell(const struct series *s, size_t row, const char *col)
{
	assert_non_null(s);
	long c = series_column_index(s, col);
	if (c < 0)
		fail_msg("series '%s' has no column '%s'", series_name(s), col);
	struct datum d;
	series_cell(s, row, (size_t)c, &d);
	return d;
}

/* vllm-bench */

static void vllm_bench_gives_each_summary_line_a_field(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "vllm-bench/dennislee22-qwen2-7b-2gpu-1024.txt", "vllm-bench");
	assert_int_equal(run_member_count(r), 0);
	num_field(r, "successful_requests", 10, "10", 9);
	num_field(r, "benchmark_duration_s", 46.96, "46.96", 10);
	num_field(r, "request_throughput_req_s", 0.21, "0.21", 13);
	num_field(r, "median_ttft_ms", 2244.91, "2244.91", 18);
	num_field(r, "p99_itl_ms", 51.04, "51.04", 27);
	/* the command line above the block is no field */
	assert_null(run_field(r, "num_prompts"));
}

static void vllm_bench_reads_a_file_of_two_summaries_as_two_runs(void **state)
{
	(void)state;
	struct run *r =
		read_as(CORPUS "vllm-bench/moguizhizi-qwen2.5-vl-72b-two-runs.txt", "vllm-bench");
	assert_int_equal(run_member_count(r), 2);
	struct run *first = run_member_at(r, 0), *second = run_member_at(r, 1);
	num_field(first, "mean_ttft_ms", 43073.78, "43073.78", 10);
	num_field(first, "accuracy_rate_pct", 80, "80.00", 22);
	assert_int_equal(run_first_line(second), 24);
	num_field(second, "mean_ttft_ms", 43533.17, "43533.17", 36);
	num_field(second, "accuracy_rate_pct", 100, "100.00", 48);
}

/* vllm-server */

static void vllm_server_reads_the_v0_metrics_lines(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "vllm-server/dmasirkar-cpu-v0-metrics.log", "vllm-server");
	assert_text(run_field(r, "version"), "0.8.5.dev32+g44fa4d556", 3);
	const struct series *s = run_series(r, "throughput");
	assert_int_equal(series_row_count(s), 5);
	assert_int_equal(series_row_line(s, 0), 15);
	struct datum d = cell(s, 0, "time");
	assert_datum(&d, 9 * 3600 + 38 * 60 + 37, "09:38:37", 15);
	d = cell(s, 0, "prompt_tokens_s");
	assert_datum(&d, 0.4, "0.4", 15);
	d = cell(s, 0, "swapped");
	assert_datum(&d, 0, "0", 15);
	d = cell(s, 0, "cpu_kv_cache_pct");
	assert_datum(&d, 0, "0.0", 15);
	/* V0 prints no prefix cache hit rate */
	d = cell(s, 0, "prefix_cache_hit_rate_pct");
	assert_int_equal(d.kind, DATUM_MISSING);
	num_field(r, "peak_prompt_tokens_s", 0.7, "0.7", 21);
}

static void vllm_server_reads_the_v1_engine_lines(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "vllm-server/dennislee22-v1-loggers.log", "vllm-server");
	const struct series *s = run_series(r, "throughput");
	assert_int_equal(series_row_count(s), 14);
	struct datum d = cell(s, 0, "engine");
	assert_text(&d, "000", 1);
	/* V1's Waiting is the pending column */
	d = cell(s, 13, "pending");
	assert_datum(&d, 0, "0", 14);
	d = cell(s, 13, "gpu_kv_cache_pct");
	assert_datum(&d, 96.4, "96.4", 14);
	d = cell(s, 13, "swapped");
	assert_int_equal(d.kind, DATUM_MISSING);
	num_field(r, "peak_generation_tokens_s", 732.6, "732.6", 10);
}

/* lm-eval */

static void lm_eval_fills_the_task_down_and_splits_at_each_model(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "lm-eval/telekom-ger-rag-four-models.txt", "lm-eval");
	assert_int_equal(run_member_count(r), 4);
	struct run *last = run_member_at(r, 3);
	assert_text(run_field(last, "model"), "vllm", 31);
	assert_text(run_field(last, "batch_size"), "auto", 31);
	num_field(run_member_at(r, 0), "batch_size", 8, "8", 1);
	const struct series *s = run_series(last, "results");
	assert_int_equal(series_row_count(s), 6);
	/* the second row's blank task and version cells, filled from the row
	 * above (the cells are the row's, at its line) */
	struct datum d = cell(s, 1, "task");
	assert_text(&d, "ger_rag_benchmark_task3", 35);
	d = cell(s, 1, "version");
	assert_datum(&d, 1, "1", 35);
	d = cell(s, 1, "metric");
	assert_text(&d, "acc_norm", 35);
	d = cell(s, 1, "value");
	assert_datum(&d, 0.235, "0.235", 35);
	d = cell(s, 1, "stderr");
	assert_datum(&d, 0.0134, "0.0134", 35);
}

static void lm_eval_reads_the_arrow_column_and_the_groups_table(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "lm-eval/alpaca-lora-mmlu-groups.md", "lm-eval");
	const struct series *s = run_series(r, "results");
	assert_int_equal(series_row_count(s), 14);
	struct datum d = cell(s, 0, "direction");
	assert_text(&d, "↑", 4);
	d = cell(s, 0, "n_shot");
	assert_datum(&d, 0, "0", 4);
	d = cell(s, 10, "n_shot"); /* mmlu: a group's blank n-shot */
	assert_int_equal(d.kind, DATUM_MISSING);
	const struct series *g = run_series(r, "groups");
	assert_int_equal(series_row_count(g), 5);
	d = cell(g, 4, "group");
	assert_text(&d, "- stem", 25);
	d = cell(g, 4, "value");
	assert_datum(&d, 0.5379, "0.5379", 25);
}

/* llama-bench */

static void llama_bench_splits_the_rate_and_its_deviation(void **state)
{
	(void)state;
	struct run *r =
		read_as(CORPUS "llama-bench/strix-halo-glm45-air-vulkan-radv.log", "llama-bench");
	assert_text(run_field(r, "build_commit"), "f1fbffb5", 8);
	num_field(r, "build_number", 6486, "6486", 8);
	const struct series *s = run_series(r, "results");
	assert_int_equal(series_row_count(s), 2);
	struct datum d = cell(s, 0, "tokens_per_s");
	assert_datum(&d, 212.60, "212.60", 5);
	d = cell(s, 0, "stddev_tokens_per_s");
	assert_datum(&d, 0.74, "0.74", 5);
	d = cell(s, 0, "size");
	assert_datum(&d, 68.01, "68.01 GiB", 5);
	d = cell(s, 1, "test");
	assert_text(&d, "tg128", 6);
}

/* seff */

static void seff_reads_slurm_durations_in_seconds(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "seff/visor-laser-three-jobs.md", "seff");
	assert_int_equal(run_member_count(r), 3);
	struct run *last = run_member_at(r, 2);
	num_field(last, "job_id", 3431298, "3431298", 37);
	num_field(last, "cpu_utilized", 27 * 86400 + 4 * 3600 + 30 * 60 + 29, "27-04:30:29", 43);
	num_field(last, "wall_clock_time", 14 * 3600 + 28 * 60 + 17, "14:28:17", 45);
	num_field(last, "memory_utilized", 195.83, "195.83 GB", 46);
	assert_text(run_field(last, "state"), "COMPLETED", 40);
	num_field(run_member_at(r, 0), "job_id", 3431290, "3431290", 7);
}

/* pbs */

static void pbs_reads_qstat_f_times_and_derives_the_queue_wait(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "pbs/az-hop-opm-qstat-fx.txt", "pbs");
	assert_text(run_field(r, "job_id"), "8.scheduler", 2);
	num_field(r, "resources_used_walltime", 55, "00:00:55", 10);
	num_field(r, "resource_list_walltime", 3600, "01:00:00", 35);
	num_field(r, "resources_used_mem", 29380680, "29380680kb", 7);
	num_field(r, "exit_status", 0, "0", 52);
	const struct datum *wait = run_field(r, "queue_wait_s");
	assert_non_null(wait);
	assert_true(fabs(wait->num - 540) < 1e-9);
	assert_int_equal(wait->line, 0);
}

static void pbs_skips_the_lines_qstat_wrapped(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "pbs/imperial-cx1-qstat-f-running.txt", "pbs");
	assert_text(run_field(r, "job_name"), "calcite_I_FREQC", 2);
	num_field(r, "resources_used_walltime", 5 * 3600 + 8 * 60 + 6, "05:08:06", 9);
	/* a running job: no exit status yet */
	const struct datum *d = run_field(r, "exit_status");
	assert_true(!d || d->kind == DATUM_MISSING);
}

/* NCI's resource usage epilogue: the requested and used values share
 * lines, Gadi pads them with spaces, and a job output whose epilogue
 * follows a benchmark's stays that benchmark's. */
static void pbs_reads_the_nci_epilogue(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "pbs/nci-gadi-2026-ram3.txt", "pbs");
	assert_text(run_field(r, "job_id"), "161601756.gadi-pbs", 3);
	assert_text(run_field(r, "project"), "ng72", 4);
	num_field(r, "exit_status", 0, "0", 5);
	num_field(r, "service_units", 1369.28, "1369.28", 6);
	num_field(r, "resource_list_ncpus", 576, "576", 7);
	num_field(r, "resources_used_cput", 677 * 3600 + 3 * 60 + 38, "677:03:38", 7);
	assert_text(run_field(r, "memory_used"), "508.79GB", 8);
	num_field(r, "resource_list_walltime", 3 * 3600, "03:00:00", 9);
	num_field(r, "resources_used_walltime", 3600 + 11 * 60 + 19, "01:11:19", 9);
	assert_text(run_field(r, "jobfs_used"), "0B", 10);
	const struct datum *pct = run_field(r, "walltime_used_pct");
	assert_non_null(pct);
	assert_true(fabs(pct->num - 4279.0 / 10800 * 100) < 1e-9);

	r = read_as(CORPUS "pbs/nci-raijin-2017-one-node.txt", "pbs");
	num_field(r, "resources_used_ncpus", 16, "16", 10);
	assert_text(run_field(r, "memory_used"), "71.18MB", 12);
}

/* Torque's epilogue echoing its arguments: "Job ID:" (not qstat's
 * "Job Id:"), and every resource on the one "Resources Used:" line. */
static void pbs_reads_a_torque_epilogue(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "pbs/kronos-torque-epilogue.txt", "pbs");
	assert_text(run_field(r, "job_id"), "171630.kronos.ccs.miami.edu", 4);
	assert_text(run_field(r, "job_name"), "STDIN", 7);
	assert_text(run_field(r, "queue"), "default", 11);
	num_field(r, "resources_used_cput", 3 * 3600 + 52 * 60 + 16, "03:52:16", 10);
	num_field(r, "resources_used_walltime", 4 * 3600 + 9 * 60 + 58, "04:09:58", 10);
	num_field(r, "resources_used_mem", 389368, "389368kb", 10);
	num_field(r, "resources_used_vmem", 706124, "706124kb", 10);
}

static void an_npb_job_output_with_the_epilogue_stays_npb(void **state)
{
	(void)state;
	char path[] = "/tmp/logdown-npb-pbs-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *out = fdopen(fd, "w");
	const char *parts[] = {CORPUS "npb/cg-S-omp3.3.1-1thread.log",
			       CORPUS "pbs/nci-raijin-2017-one-node.txt"};
	for (size_t i = 0; i < 2; i++) {
		FILE *in = fopen(parts[i], "r");
		assert_non_null(in);
		char b[4096];
		size_t n;
		while ((n = fread(b, 1, sizeof b, in)) > 0)
			fwrite(b, 1, n, out);
		fclose(in);
	}
	fclose(out);
	struct run *r = read_as(path, "npb");
	assert_text(run_field(r, "benchmark"), "CG", 32);
	remove(path);
}

/* slurm: sacct -P */

static void slurm_reads_sacct_parsable_tables(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "slurm/sacct-p-torchx-het-job.txt", "slurm");
	num_field(r, "job_id", 176, "176", 2);
	const struct series *s = run_series(r, "jobs");
	assert_int_equal(series_row_count(s), 7);
	struct datum d = cell(s, 0, "job_id");
	assert_text(&d, "176+0", 2);
	d = cell(s, 6, "exit_code");
	assert_text(&d, "0:0", 8);
	d = cell(s, 1, "partition");
	assert_int_equal(d.kind, DATUM_MISSING);

	r = read_as(CORPUS "slurm/sacct-parsable2-torchx-failed.txt", "slurm");
	s = run_series(r, "jobs");
	assert_int_equal(series_row_count(s), 3);
	d = cell(s, 0, "state");
	assert_text(&d, "FAILED", 2);
	d = cell(s, 0, "alloc_cpus");
	assert_datum(&d, 1, "1", 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vllm_bench_gives_each_summary_line_a_field),
		cmocka_unit_test(vllm_bench_reads_a_file_of_two_summaries_as_two_runs),
		cmocka_unit_test(vllm_server_reads_the_v0_metrics_lines),
		cmocka_unit_test(vllm_server_reads_the_v1_engine_lines),
		cmocka_unit_test(lm_eval_fills_the_task_down_and_splits_at_each_model),
		cmocka_unit_test(lm_eval_reads_the_arrow_column_and_the_groups_table),
		cmocka_unit_test(llama_bench_splits_the_rate_and_its_deviation),
		cmocka_unit_test(seff_reads_slurm_durations_in_seconds),
		cmocka_unit_test(pbs_reads_qstat_f_times_and_derives_the_queue_wait),
		cmocka_unit_test(pbs_skips_the_lines_qstat_wrapped),
		cmocka_unit_test(pbs_reads_the_nci_epilogue),
		cmocka_unit_test(pbs_reads_a_torque_epilogue),
		cmocka_unit_test(an_npb_job_output_with_the_epilogue_stays_npb),
		cmocka_unit_test(slurm_reads_sacct_parsable_tables),
	};
	return cmocka_run_group_tests(tests, load_builtins, free_builtins);
}
