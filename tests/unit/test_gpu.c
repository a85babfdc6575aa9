/* test_gpu.c: the GPU tools' built-in parsers (nvidia-smi, ncu, nsys's
 * CSV form and nvprof --metrics/--events, torch-profiler) on their real
 * published output: the corpus files (tests/corpus/<kind>/SOURCES), and
 * lines copied from published output (named at each test).  Run from the
 * repository's root. */
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
#include "parse/logparse.h"
#include "capture.h"

#define TMPDIR_TAG "gpu"
#include "tmpdirs.h"

#define CORPUS "tests/corpus/"

static struct parser_set *builtins;
static struct capture cap;

static int setup(void **state)
{
	(void)state;
	cap_open(&cap);
	builtins = parsers_load(NULL, NULL, cap.d);
	return builtins ? 0 : -1;
}

static int teardown(void **state)
{
	parsers_free(builtins);
	cap_close(&cap);
	return drop_leftovers(state);
}

/* A file with text, in a folder of its own (removed at the end). */
static char *write_log(const char *name, const char *text)
{
	char *dir = make_tmpdir();
	char *path = xasprintf("%s/%s", dir, name);
	assert_true(file_write(path, text, strlen(text)));
	/* Diagnostics quote the file by the name the run shows. */
	diag_add_source(cap.d, name, text, strlen(text));
	return path;
}

/* Detects path (it must be `name`) and reads it, shown as `shown`. */
static struct run *read_as(const char *path, const char *shown, const char *name)
{
	struct loc at = {"t.md", 1, 1, 0};
	const struct parser *p = parsers_detect(builtins, path, at, cap.d);
	if (!p || strcmp(parser_name(p), name) != 0)
		fail_msg("%s: detected as '%s', expected '%s'\n%s", path, p ? parser_name(p) : "(none)",
			 name, cap_text(&cap));
	struct run *r = parser_run(p, path, shown, "r", cap.d);
	assert_non_null(r);
	return r;
}

static void cell(const struct series *s, size_t row, const char *col, struct datum *d)
{
	long j = series_column_index(s, col);
	if (j < 0)
		fail_msg("series has no column '%s'", col);
	series_cell(s, row, (size_t)j, d);
}

static void assert_text(const struct series *s, size_t row, const char *col, const char *text)
{
	struct datum d;
	cell(s, row, col, &d);
	if (!text) {
		if (d.kind != DATUM_MISSING)
			fail_msg("row %zu, %s: '%.*s', wanted nothing", row, col, (int)d.len, d.text);
		return;
	}
	if (d.kind == DATUM_MISSING || d.len != strlen(text) || memcmp(d.text, text, d.len) != 0)
		fail_msg("row %zu, %s: '%.*s', wanted '%s'", row, col, (int)d.len,
			 d.text ? d.text : "", text);
}

static void assert_num(const struct series *s, size_t row, const char *col, double num)
{
	struct datum d;
	cell(s, row, col, &d);
	if (d.kind != DATUM_NUMBER || d.num != num)
		fail_msg("row %zu, %s: '%.*s' (%s), wanted the number %g", row, col, (int)d.len,
			 d.text ? d.text : "", d.kind == DATUM_NUMBER ? "a number" : "not a number",
			 num);
}

static const struct series *series_of(const struct run *r, const char *name, size_t rows)
{
	const struct series *s = run_series(r, name);
	if (!s)
		fail_msg("no series '%s'", name);
	if (series_row_count(s) != rows)
		fail_msg("series '%s' has %zu rows, wanted %zu", name, series_row_count(s), rows);
	return s;
}

/* The default table of driver 580: the GPU's numbers on the line after
 * its name, typed with their units; processes with GI/CI columns. */
static void nvidia_smi_table_gives_gpus_and_processes(void **state)
{
	(void)state;
	size_t at = strlen(cap_text(&cap));
	struct run *r = read_as(CORPUS "nvidia-smi/nvidia-smi-580-rtx3090.log", "smi.log",
				"nvidia-smi");
	const struct datum *v = run_field(r, "driver_version");
	assert_non_null(v);
	assert_int_equal(v->line, 4);
	const struct series *g = series_of(r, "gpus", 1);
	assert_int_equal(series_row_line(g, 0), 11);
	assert_text(g, 0, "index", "0");
	assert_text(g, 0, "name", "NVIDIA GeForce RTX 3090");
	assert_text(g, 0, "bus_id", "00000000:01:00.0");
	assert_num(g, 0, "temperature_c", 79);
	assert_text(g, 0, "temperature_c", "79C");
	assert_num(g, 0, "power_w", 347);
	assert_num(g, 0, "power_cap_w", 350);
	assert_num(g, 0, "memory_used_mib", 19948);
	assert_num(g, 0, "memory_total_mib", 24576);
	assert_num(g, 0, "utilization_pct", 100);
	assert_text(g, 0, "perf", "P2");
	const struct series *p = series_of(r, "processes", 2);
	assert_num(p, 1, "pid", 3120268);
	assert_text(p, 1, "type", "C");
	assert_text(p, 1, "process_name", "python3");
	assert_num(p, 1, "memory_mib", 19864);
	assert_int_equal(series_row_line(p, 1), 21);
	assert_string_equal(cap_text(&cap) + at, "");
	run_free(r);
}

/* Driver 440's table: no fan reading and no power cap (N/A: missing). */
static void nvidia_smi_na_is_missing(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "nvidia-smi/nvidia-smi-440-rtx2070.md", "smi.md", "nvidia-smi");
	const struct series *g = series_of(r, "gpus", 1);
	assert_text(g, 0, "fan_pct", NULL);
	assert_text(g, 0, "power_cap_w", NULL);
	assert_num(g, 0, "power_w", 6);
	series_of(r, "processes", 4);
	run_free(r);
}

/* --format=csv,noheader,nounits with the header kept: lines published in
 * a Go program's comment (the [Not Supported] fan of a Tesla P100). */
static void nvidia_smi_query_csv_names_columns_without_units(void **state)
{
	(void)state;
	char *path = write_log(
		"query.csv",
		"fan.speed [%], memory.total [MiB], memory.used [MiB], memory.free [MiB], pstate, "
		"temperature.gpu, name, uuid, compute_mode, utilization.gpu [%], utilization.memory "
		"[%], power.draw [W]\n"
		" [Not Supported], 16308, 0, 16308, P0, 31, Tesla P100-PCIE-16GB, "
		"GPU-4128918d-a887-1670-9668-7128be62a911, Default, 0, 0, 24.77\n");
	size_t at = strlen(cap_text(&cap));
	struct run *r = read_as(path, "query.csv", "nvidia-smi");
	const struct series *q = series_of(r, "query", 1);
	assert_text(q, 0, "fan_speed", NULL);
	assert_num(q, 0, "memory_total", 16308);
	assert_num(q, 0, "temperature_gpu", 31);
	assert_text(q, 0, "name", "Tesla P100-PCIE-16GB");
	assert_num(q, 0, "power_draw", 24.77);
	assert_text(q, 0, "compute_mode", "Default");
	assert_string_equal(cap_text(&cap) + at, "");
	run_free(r);
	free(path);
}

/* A sample line with a cell too many (two lines of a log written into
 * one): a warning at its line, the rows around it kept. */
static void nvidia_smi_query_row_with_too_many_cells_is_left_out(void **state)
{
	(void)state;
	char *path = write_log("smi.log",
			       "timestamp, power.draw [W]\n"
			       "2024/10/30 18:42:33.189, 22.89 W\n"
			       "2024/10/30 18:42:33.239, 22.73 W, 22.73 W\n"
			       "2024/10/30 18:42:33.290, 22.73 W\n");
	size_t at = strlen(cap_text(&cap));
	struct run *r = read_as(path, "smi.log", "nvidia-smi");
	const struct series *q = series_of(r, "query", 2);
	assert_num(q, 0, "power_draw", 22.89);
	assert_text(q, 0, "power_draw", "22.89 W");
	assert_int_equal(series_row_line(q, 1), 4);
	assert_string_equal(cap_text(&cap) + at,
			    "smi.log:3: warning: table 'query': this row has 3 cells but its "
			    "header has 2; the row is left out\n"
			    "    3 | 2024/10/30 18:42:33.239, 22.73 W, 22.73 W\n");
	run_free(r);
	free(path);
}

/* ncu --csv, after its ==PROF== lines: the header NVIDIA documents, and
 * rows in its form (values quoted, thousands grouped). */
static void ncu_csv_fills_metrics(void **state)
{
	(void)state;
	char *path = write_log(
		"ncu.csv",
		"==PROF== Connected to process 1803 (/content/native)\n"
		"==PROF== Disconnected from process 1803\n"
		"\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
		"\"Stream\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
		"\"0\",\"1803\",\"native\",\"127.0.0.1\",\"void fused<float, 256>(const T1 *, int)\","
		"\"1\",\"7\",\"GPU Speed Of Light Throughput\",\"Elapsed Cycles\",\"cycle\",\"3,268\"\n"
		"\"0\",\"1803\",\"native\",\"127.0.0.1\",\"void fused<float, 256>(const T1 *, int)\","
		"\"1\",\"7\",\"Launch Statistics\",\"Function Cache Configuration\",\"\","
		"\"CachePreferNone\"\n");
	struct run *r = read_as(path, "ncu.csv", "ncu");
	const struct series *m = series_of(r, "metrics", 2);
	assert_text(m, 0, "kernel", "void fused<float, 256>(const T1 *, int)");
	assert_text(m, 0, "section", "GPU Speed Of Light Throughput");
	assert_text(m, 0, "metric", "Elapsed Cycles");
	assert_text(m, 0, "unit", "cycle");
	assert_num(m, 0, "value", 3268);
	assert_text(m, 1, "unit", NULL);
	assert_text(m, 1, "value", "CachePreferNone");
	assert_num(m, 1, "process_id", 1803);
	assert_int_equal(series_row_line(m, 1), 5);
	run_free(r);
	free(path);
}

/* nsys stats --format csv: each report's rows after its Processing line,
 * in the tables and columns of the text form. */
static void nsys_csv_fills_the_text_tables(void **state)
{
	(void)state;
	char *path = write_log(
		"stats.log",
		"Processing [report1.sqlite] with "
		"[/opt/nvidia/nsight-systems/2023.4.4/host-linux-x64/reports/cuda_api_sum.py]... \n"
		"\n"
		"\"Time (%)\",\"Total Time (ns)\",\"Num Calls\",\"Avg (ns)\",\"Med (ns)\",\"Min (ns)\","
		"\"Max (ns)\",\"StdDev (ns)\",\"Name\"\n"
		"95.9,248719130,3,82906376.7,3049.0,2361,248713720,143594040.1,\"cudaMalloc\"\n"
		"\n"
		"Processing [report1.sqlite] with "
		"[/opt/nvidia/nsight-systems/2023.4.4/host-linux-x64/reports/cuda_gpu_kern_sum.py]... \n"
		"\n"
		"Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,Name\n"
		"100.0,1221632,1,1221632.0,1221632,1221632,\"vecAdd(float *, float *, float *, int)\"\n");
	struct run *r = read_as(path, "stats.log", "nsys");
	const struct series *a = series_of(r, "api", 1);
	assert_num(a, 0, "calls", 3);
	assert_num(a, 0, "total_ns", 248719130);
	assert_text(a, 0, "name", "cudaMalloc");
	const struct series *k = series_of(r, "kernels", 1);
	assert_num(k, 0, "time_pct", 100);
	assert_num(k, 0, "avg_ns", 1221632);
	assert_num(k, 0, "calls", 1);
	assert_text(k, 0, "name", "vecAdd(float *, float *, float *, int)");
	assert_int_equal(series_row_line(k, 0), 9);
	run_free(r);
	free(path);
}

/* nvprof --events and --metrics, the device and kernel on one line
 * (published in a student's OpenMP offloading notes, GeForce GT 1030). */
static void nvprof_events_and_metrics_take_the_kernel_on_the_device_line(void **state)
{
	(void)state;
	char *path = write_log(
		"mm.txt",
		"==30228== Event result:\n"
		"Invocations                                Event Name         Min         Max      "
		"Avg       Total\n"
		"Device \"GeForce GT 1030 (0)\"    Kernel: mm$_omp_fn$0\n"
		"          1                            warps_launched      154224      154224   "
		"154224      154224\n"
		"\n"
		"==30228== Metric result:\n"
		"Invocations                               Metric Name                        Metric "
		"Description         Min         Max         Avg\n"
		"Device \"GeForce GT 1030 (0)\"    Kernel: mm$_omp_fn$0\n"
		"          1                 warp_execution_efficiency                 Warp Execution "
		"Efficiency      99.40%      99.40%      99.40%\n");
	struct run *r = read_as(path, "mm.txt", "nsys");
	const struct series *e = series_of(r, "nvprof_events", 1);
	assert_text(e, 0, "event", "warps_launched");
	assert_num(e, 0, "total", 154224);
	assert_text(e, 0, "kernel", "mm$_omp_fn$0");
	assert_text(e, 0, "device", "GeForce GT 1030 (0)");
	const struct series *m = series_of(r, "nvprof_metrics", 1);
	assert_text(m, 0, "metric", "warp_execution_efficiency");
	assert_text(m, 0, "description", "Warp Execution Efficiency");
	assert_num(m, 0, "avg", 99.40);
	assert_text(m, 0, "kernel", "mm$_omp_fn$0");
	assert_int_equal(series_row_line(m, 0), 9);
	run_free(r);
	free(path);
}

/* key_averages().table(): times read into microseconds, as written. */
static void torch_profiler_times_are_microseconds(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "torch-profiler/torch-profiler-square-cuda.md", "prof.md",
				"torch-profiler");
	const struct datum *t = run_field(r, "self_cpu_time_total");
	assert_non_null(t);
	assert_int_equal(t->kind, DATUM_NUMBER);
	assert_true(t->num == 1720);
	assert_int_equal(t->line, 19);
	const struct series *o = series_of(r, "ops", 7);
	assert_text(o, 1, "name", "aten::pow");
	assert_num(o, 1, "self_cuda_us", 1737);
	assert_text(o, 1, "self_cuda_us", "1.737ms");
	assert_num(o, 1, "self_cuda_pct", 98.53);
	assert_num(o, 4, "calls", 8);
	assert_int_equal(series_row_line(o, 0), 11);
	run_free(r);
}

/* ncu's text report: the kernel line above, its launch shape left out. */
static void ncu_text_rows_take_kernel_and_section(void **state)
{
	(void)state;
	struct run *r = read_as(CORPUS "ncu/ncu-2024-fused-rmsnorm-t4.log", "ncu.log", "ncu");
	const struct series *m = series_of(r, "metrics", 43);
	assert_text(m, 10, "metric", "Block Size");
	assert_text(m, 10, "unit", NULL);
	assert_num(m, 10, "value", 256);
	assert_text(m, 10, "section", "Launch Statistics");
	assert_text(m, 18, "metric", "# SMs");
	assert_num(m, 2, "value", 3268);
	assert_int_equal(series_row_line(m, 0), 12);
	run_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nvidia_smi_table_gives_gpus_and_processes),
		cmocka_unit_test(nvidia_smi_na_is_missing),
		cmocka_unit_test(nvidia_smi_query_csv_names_columns_without_units),
		cmocka_unit_test(nvidia_smi_query_row_with_too_many_cells_is_left_out),
		cmocka_unit_test(ncu_csv_fills_metrics),
		cmocka_unit_test(nsys_csv_fills_the_text_tables),
		cmocka_unit_test(nvprof_events_and_metrics_take_the_kernel_on_the_device_line),
		cmocka_unit_test(torch_profiler_times_are_microseconds),
		cmocka_unit_test(ncu_text_rows_take_kernel_and_section),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
