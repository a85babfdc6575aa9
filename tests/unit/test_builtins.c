/* test_builtins.c: the built-in parsers (the YAML files in parsers/) on real logs.
 *
 * The fixtures under tests/fixtures/<parser>/ are logs from homework
 * reports, byte for byte where the report kept them, or built from lines
 * like theirs (nsys, hf-trainer and mllog: in the formats those tools
 * print).  Every fixture must be detected as its folder's parser and no
 * other, and the values asserted here are the texts and line numbers of
 * the real log lines.  The variants real published logs show are tested
 * on tests/corpus/<kind>/ (its SOURCES say where each came from).  The
 * tests run from the repository's root. */
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

#define FIX "tests/fixtures/"
#define CORPUS "tests/corpus/"

#include "builtincheck.h"

/* Detection. */

static void every_builtin_loads(void **state)
{
	(void)state;
	static const char *const names[] = {"cerebras", "sambanova", "poptorch", "groqflow",
					    "gtest",    "slurm",     "nsys",     "hf-trainer",
					    "mllog",    "keyvalue",  "json",     "yaml",
					    "csv",      NULL};
	if (diag_errors(quiet.d) || diag_warnings(quiet.d))
		fail_msg("loading the built-ins said:\n%s", said());
	for (size_t i = 0; names[i]; i++) {
		const struct parser *p = parsers_find(builtins, names[i]);
		if (!p)
			fail_msg("no built-in parser '%s'\n%s", names[i], said());
		assert_string_equal(parser_origin(p), "built-in");
		assert_true(strlen(parser_description(p)) > 40);
	}
}

/* Every file in tests/fixtures/<parser>/ is claimed by that parser alone;
 * every file in tests/fixtures/undetected/ by none. */
static void every_fixture_is_claimed_by_its_folders_parser(void **state)
{
	(void)state;
	DIR *top = opendir(FIX);
	assert_non_null(top);
	size_t checked = 0;
	struct dirent *e;
	while ((e = readdir(top))) {
		bool none = strcmp(e->d_name, "undetected") == 0;
		if (e->d_name[0] == '.' || (!none && !parsers_find(builtins, e->d_name)))
			continue;
		char dir[512];
		snprintf(dir, sizeof dir, FIX "%s", e->d_name);
		DIR *sub = opendir(dir);
		assert_non_null(sub);
		struct dirent *f;
		while ((f = readdir(sub))) {
			char path[1024];
			struct stat st;
			snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
			if (f->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
				continue;
			if (none) {
				size_t errors = diag_errors(quiet.d);
				const struct parser *p =
					parsers_detect(builtins, path, loc_line(path, 0), quiet.d);
				if (p)
					fail_msg("%s: claimed by '%s', expected no parser", path,
						 parser_name(p));
				assert_int_equal(diag_errors(quiet.d), errors + 1);
			} else {
				detect_as(path, e->d_name, __FILE__, __LINE__);
			}
			checked++;
		}
		closedir(sub);
	}
	closedir(top);
	assert_true(checked >= 30);
}

/* The example project's logs: the report may leave out `parser:`. */
static void content_logs_are_claimed_by_the_right_parser(void **state)
{
	(void)state;
	static const struct {
		const char *path, *parser;
	} logs[] = {
		{"content/hw07-ai-accelerators/logs/cerebras/bs512.log", "cerebras"},
		{"content/hw07-ai-accelerators/logs/cerebras/bs1024.log", "cerebras"},
		{"content/hw07-ai-accelerators/logs/cerebras/bs2048.log", "cerebras"},
		{"content/hw07-ai-accelerators/logs/sambanova/ntasks16.log", "sambanova"},
		{"content/hw07-ai-accelerators/logs/sambanova/ntasks8.log", "sambanova"},
		{"content/hw07-ai-accelerators/logs/graphcore/ipu_error.log", "poptorch"},
		{"content/hw07-ai-accelerators/logs/graphcore/mnist_default.log", "poptorch"},
		{"content/hw07-ai-accelerators/logs/graphcore/mnist_epochs4.log", "poptorch"},
		{"content/hw07-ai-accelerators/logs/graphcore/mnist_epochs14.log", "poptorch"},
		{"content/hw07-ai-accelerators/logs/graphcore/mnist_profiler.log", "poptorch"},
		{"content/hw07-ai-accelerators/logs/groq/seq128.log", "groqflow"},
		{"content/hw07-ai-accelerators/logs/groq/seq128_rerun.log", "groqflow"},
		{"content/hw07-ai-accelerators/logs/groq/seq512.log", "groqflow"},
		{"content/cerebras-batch-sweep/logs/bs512.log", "cerebras"},
		{"content/cerebras-batch-sweep/logs/bs1024.log", "cerebras"},
		{"content/cerebras-batch-sweep/logs/bs2048.log", "cerebras"},
		{"content/cerebras-batch-sweep/logs/llama7b_sweep.csv", "csv"},
		{"content/metis-vs-sophia/logs/metis_vs_sophia_results.json", "json"},
		{"content/mpi-cuda-training/logs/gtest_single.log", "gtest"},
		{"content/mpi-cuda-training/logs/gtest_double.log", "gtest"},
		{"content/mpi-cuda-training/logs/gtest_lr1e-1.log", "gtest"},
		{"content/mpi-cuda-training/logs/profile_numbers.txt", "keyvalue"},
		/* The homework's own training printout: no built-in reads it. */
		{"content/mpi-cuda-training/logs/lr_sweep.log", NULL},
		{"content/mpi-cuda-training/logs/loss_h100.log", NULL},
		{"content/mpi-cuda-training/logs/loss_h512.log", NULL},
		{"content/mpi-cuda-training/logs/loss_h2048.log", NULL},
	};
	for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
		struct stat st;
		if (stat(logs[i].path, &st) != 0)
			continue; /* the example content moved on */
		if (logs[i].parser) {
			detect_as(logs[i].path, logs[i].parser, __FILE__, __LINE__);
			continue;
		}
		size_t errors = diag_errors(quiet.d);
		const struct parser *p =
			parsers_detect(builtins, logs[i].path, loc_line(logs[i].path, 0), quiet.d);
		if (p)
			fail_msg("%s: claimed by '%s', expected no parser", logs[i].path,
				 parser_name(p));
		assert_int_equal(diag_errors(quiet.d), errors + 1);
	}
}

/* cerebras */

static void cerebras_bs512_gives_every_guaranteed_name(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "cerebras/bs512.log", "cerebras");
	NUM(r, "batch_size", 512, "512", 1);
	NUM(r, "samples", 512000, "512000", 58);
	NUM(r, "total_time", 175.070497198, "175.070497198", 58);
	NUM(r, "final_step", 1000, "1000", 53);
	NUM(r, "final_loss", 7.125, "7.12500", 53);
	NUM(r, "mean_rate", 2930.307, NULL, 0);
	NUM(r, "throughput", 512000 / 175.070497198, NULL, 0);
	const struct series *t = SERIES(r, "train", 10);
	assert_int_equal(series_column_count(t), 4);
	COLUMNS(t, "step", "loss", "rate", "global_rate");
	NUM_CELL(t, 0, "step", 100, "100", 44);
	NUM_CELL(t, 0, "loss", 9.39062, "9.39062", 44);
	NUM_CELL(t, 0, "rate", 2983.97, "2983.97", 44);
	NUM_CELL(t, 0, "global_rate", 2983.97, "2983.97", 44);
	NUM_CELL(t, 9, "global_rate", 2924.54, "2924.54", 53);
}

/* An eval-only run (cszoo, R2.9.0): the validation loop's rows, its
 * average loss and a field of each metric, named as the log names it. */
static void cerebras_reads_the_validation_loop_and_its_metrics(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "cerebras/bert-large-r2.9.0-eval-cs3.log", "cerebras");
	NUM(r, "eval_loss", 6.981118208711798, "6.981118208711798", 5);
	NUM(r, "eval_accuracy_cls", 0.7051668763160706, "0.7051668763160706", 7);
	NUM(r, "eval_accuracy_masked_lm", 0.13364547491073608, "0.13364547491073608", 8);
	NUM(r, "eval_mlm_perplexity", 701.6852416992188, "701.6852416992188", 9);
	NUM(r, "samples", 3720000, "3720000", 11);
	const struct series *e = SERIES(r, "eval", 3);
	COLUMNS(e, "global_step", "batch", "loss", "rate", "global_rate");
	NUM_CELL(e, 0, "global_step", 1000, "1000", 2);
	NUM_CELL(e, 0, "batch", 100, "100", 2);
	NUM_CELL(e, 2, "batch", 220, "220", 4);
	NUM_CELL(e, 2, "loss", 6.98112, "6.98112", 4);
	NUM_CELL(e, 2, "rate", 6014.04, "6014.04", 4);
	NUM_CELL(e, 2, "global_rate", 6665.64, "6665.64", 4);
	SERIES(r, "train", 0);
	/* A training log has no eval_loss: missing, not an error. */
	r = PARSE(FIX "cerebras/bs512.log", "cerebras");
	MISSING(r, "eval_loss");
	SERIES(r, "eval", 0);
}

/* Seed 002's 2048 log was copied from the middle of the run: no batch
 * size line. */
static void cerebras_bs2048_starts_midway_without_a_batch_size(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "cerebras/bs2048.log", "cerebras");
	MISSING(r, "batch_size");
	NUM(r, "samples", 2048000, "2048000", 42);
	NUM(r, "total_time", 304.403202469, "304.403202469", 42);
	NUM(r, "final_loss", 7.14844, "7.14844", 37);
	NUM(r, "final_step", 1000, "1000", 37);
	NUM(r, "mean_rate", 6737.603, NULL, 0);
	NUM(r, "throughput", 2048000 / 304.403202469, NULL, 0);
	const struct series *t = SERIES(r, "train", 10);
	NUM_CELL(t, 0, "rate", 6855.28, "6855.28", 28);
}

static void cerebras_partial_log_has_a_step_without_rates(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "cerebras/bs1024_partial.log", "cerebras");
	const struct series *t = SERIES(r, "train", 1);
	NUM_CELL(t, 0, "step", 1000, "1000", 3);
	NUM_CELL(t, 0, "loss", 7.07812, "7.07812", 3);
	MISSING_CELL(t, 0, "rate");
	MISSING_CELL(t, 0, "global_rate");
	NUM(r, "final_loss", 7.07812, "7.07812", 3);
	MISSING(r, "mean_rate");
	MISSING(r, "batch_size");
	NUM(r, "samples", 1024000, "1024000", 4);
	NUM(r, "total_time", 210.545817686, "210.545817686", 4);
	NUM(r, "throughput", 1024000 / 210.545817686, NULL, 0);
}

/* Release 1.x: Device=xla:0, "Training Complete. Completed N sample(s)". */
static void cerebras_reads_xla_and_training_complete(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "cerebras/xla_r17_bert.log", "cerebras");
	NUM(r, "samples", 1024000, "1024000", 15);
	NUM(r, "total_time", 233.04593181610107, "233.04593181610107", 15);
	NUM(r, "final_step", 1000, "1000", 12);
	NUM(r, "final_loss", 8.01562, "8.01562", 12);
	const struct series *t = SERIES(r, "train", 10);
	NUM_CELL(t, 1, "global_rate", 8360.66, "8360.66", 4);
}

/* Release 2.6: "Processed N training sample(s)", extra columns after
 * GlobalRate. */
static void cerebras_reads_training_samples_wording(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "cerebras/llama7b_r26.log", "cerebras");
	NUM(r, "samples", 204800, "204800", 10);
	NUM(r, "total_time", 7303.586917439, "7303.586917439", 10);
	NUM(r, "final_step", 200, "200", 6);
	NUM(r, "final_loss", 6.09834, "6.09834", 6);
	const struct series *t = SERIES(r, "train", 4);
	NUM_CELL(t, 0, "step", 50, "50", 3);
	NUM_CELL(t, 3, "global_rate", 31.99, "31.99", 6);
}

/* A line cut off mid-number loses that cell, not the row. */
static void cerebras_cut_lines_keep_only_whole_numbers(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "cerebras/cut_lines.log", "cerebras");
	const struct series *t = SERIES(r, "train", 4);
	NUM_CELL(t, 1, "rate", 8586.60, "8586.60", 2);
	MISSING_CELL(t, 1, "global_rate");
	NUM_CELL(t, 2, "loss", 8.8125, "8.81250", 3);
	MISSING_CELL(t, 2, "rate");
	NUM(r, "mean_rate", (7657.52 + 8586.60 + 7651.26) / 3, NULL, 0);
	NUM(r, "samples", 409600, "409600", 5);
	MISSING(r, "total_time");
	MISSING(r, "throughput");
}

/* Seed 001 kept only the closing line. */
static void cerebras_reads_a_lone_processed_line(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "cerebras/seed001_bs512_tail.log", "cerebras");
	NUM(r, "samples", 512000, "512000", 1);
	NUM(r, "total_time", 175.796717907, "175.796717907", 1);
	MISSING(r, "final_loss");
}

/* sambanova */

static void sambanova_makes_every_name_number_line_a_field(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "sambanova/ntasks16.log", "sambanova");
	NUM(r, "ntasks", 16, "16", 1);
	NUM(r, "e2e_train_time", 455.2987697124481, "455.2987697124481", 2);
	NUM(r, "training_sequences_per_second", 581520.2183990465, "581520.2183990465", 3);
	NUM(r, "final_loss", 8.254524230957031, "8.254524230957031", 4);
	NUM(r, "training_samples_per_second", 4543.12670624255, "4543.12670624255", 5);
	r = PARSE(FIX "sambanova/ntasks8.log", "sambanova");
	NUM(r, "ntasks", 8, "8", 1);
	NUM(r, "e2e_train_time", 440.9703402519226, "440.9703402519226", 2);
	NUM(r, "training_samples_per_second", 2345.3731591316264, "2345.3731591316264", 5);
}

/* The corpus's real SambaNova logs (tests/corpus/sambanova/, SOURCES says
 * where each comes from): the variants besides the "name: number" lines. */
#define CORPUS "tests/corpus/"

/* GPT 13B on SN30, as the SC23 tutorial quotes it: the result dictionary
 * alone, indented; and the BERT MLPerf run's, after a logger prefix, where
 * the dictionary's final_loss wins over the "final_loss 8.308523" line
 * before it. */
static void sambanova_reads_the_result_dictionary_bare_and_after_a_logger_prefix(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "sambanova/gpt13b-ss2k-4rdu-result-dict.log", "sambanova");
	NUM(r, "e2e_train_time", 262.1321773529053, "262.1321773529053", 1);
	NUM(r, "e2e_training_tokens_per_second", 10000.451018536301, "10000.451018536301", 1);
	NUM(r, "final_loss", 9.262810707092285, "9.262810707092285", 1);
	r = PARSE(CORPUS "sambanova/bert-mlperf-ntasks8-slurm-cancelled.log", "sambanova");
	NUM(r, "e2e_train_time", 457.0915858745575, "457.0915858745575", 7);
	NUM(r, "training_sequences_per_second", 289619.6825559826, "289619.6825559826", 7);
	NUM(r, "final_loss", 8.308523178100586, "8.308523178100586", 7);
	NUM(r, "training_samples_per_second", 2262.653769968614, "2262.653769968614", 7);
}

/* The same run ends with Slurm cancelling its step after a failed
 * assertion: detected as SambaNova's alone (PARSE asserts no ambiguity),
 * with the Slurm facts read too. */
static void sambanova_log_that_ends_in_slurm_messages_is_sambanova_with_the_slurm_facts(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "sambanova/bert-mlperf-ntasks8-slurm-cancelled.log", "sambanova");
	NUM(r, "job_id", 30399, "30399", 41);
	NUM(r, "exit_code", 1, "1", 40);
	STR(r, "exit_state", "CANCELLED", 42);
}

/* transformers_on_rdu's "epoch:0|local_step:1|global_step:1|..." lines
 * after a tqdm bar (ModelBox Llama-2 fine-tuning, and the BERT run), and
 * the "Epoch [1/1], Step [10000/60000], Loss: 0.4763" lines of the
 * SambaFlow starter and the Model Zoo: one series, train. */
static void sambanova_step_lines_become_the_train_series(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "sambanova/llama2-7b-modelbox-finetune-sn30.log", "sambanova");
	const struct series *t = SERIES(r, "train", 10);
	COLUMNS(t, "epoch", "local_step", "global_step", "average_loss", "steps_per_second",
		"step_loss", "learning_rate", "step", "loss");
	NUM_CELL(t, 0, "global_step", 1, "1", 1);
	NUM_CELL(t, 0, "step_loss", 7.26778, "7.26778", 1);
	NUM_CELL(t, 0, "steps_per_second", 0.01306, "0.01306", 1);
	NUM_CELL(t, 9, "global_step", 10, "10", 10);
	NUM_CELL(t, 9, "step_loss", 6.13464, "6.13464", 10);
	NUM_CELL(t, 9, "learning_rate", 1e-05, "1.00e-05", 10);
	MISSING_CELL(t, 9, "loss");
	NUM(r, "final_loss", 2.3926801681518555, "2.3926801681518555", 11);
	r = PARSE(CORPUS "sambanova/bert-mlperf-ntasks8-slurm-cancelled.log", "sambanova");
	t = SERIES(r, "train", 5);
	NUM_CELL(t, 0, "global_step", 501, "501", 1);
	NUM_CELL(t, 4, "step_loss", 8.2374, "8.23740", 5);
	MISSING_CELL(t, 4, "steps_per_second");
	r = PARSE(CORPUS "sambanova/logreg-sambaflow-2021-wrapped.log", "sambanova");
	t = SERIES(r, "train", 6);
	NUM_CELL(t, 0, "epoch", 1, "1", 24);
	NUM_CELL(t, 0, "step", 10000, "10000", 24);
	NUM_CELL(t, 0, "loss", 0.4763, "0.4763", 24);
	NUM_CELL(t, 5, "step", 60000, "60000", 29);
	MISSING_CELL(t, 5, "global_step");
	/* No result dictionary: the last step's loss, not the test loss. */
	NUM(r, "final_loss", 0.3524, "0.3524", 29);
	NUM(r, "test_accuracy", 90.07, "90.07", 30);
	NUM(r, "test_loss", 0.3361, "0.3361", 30);
}

static void sambanova_reads_the_model_zoo_summaries(void **state)
{
	(void)state;
	struct run *r =
		PARSE(CORPUS "sambanova/llama2-7b-modelzoo-finetune-ultrachat.log", "sambanova");
	NUM(r, "epochs", 1, "1", 6);
	NUM(r, "batch_size", 8, "8", 7);
	NUM(r, "steps", 1143, "1,143", 8);
	NUM(r, "final_loss", 0.1626, "0.1626", 24);
	const struct series *t = SERIES(r, "train", 14);
	NUM_CELL(t, 13, "step", 1143, "1143", 24);
	r = PARSE(CORPUS "sambanova/llama2-7b-modelzoo-generate-latency.log", "sambanova");
	NUM(r, "generated_tokens", 32, "32", 1);
	NUM(r, "time_to_first_token", 1.1981, "1.1981s", 7);
	NUM(r, "total_latency", 1.531, "1.5310s", 10);
	NUM(r, "tokens_per_second_excluding_first_token", 3.0032, "3.0032", 12);
	NUM(r, "tokens_per_second_overall", 2.7777, "2.7777", 13);
	MISSING(r, "final_loss");
	SERIES(r, "train", 0);
}

/* SambaFlow's --measure-performance summary (BERT-Large on 2 RDUs) and the
 * UNet2D hook's performance line: times in seconds, as written. */
static void sambanova_reads_the_performance_summaries(void **state)
{
	(void)state;
	struct run *r =
		PARSE(CORPUS "sambanova/bert-large-pretrain-sn10-measure-perf.log", "sambanova");
	NUM(r, "world_size", 2, "2", 1);
	NUM(r, "e2e_latency", 30.75621747970581, "30.75621747970581 seconds", 4);
	NUM(r, "throughput", 665.8816225861821, "665.8816225861821", 4);
	NUM(r, "iterations", 10, "10", 4);
	NUM(r, "total_duration", 30.75621747970581, "30.75621747970581 s", 6);
	r = PARSE(CORPUS "sambanova/unet2d-sn30-single-perf-line.log", "sambanova");
	NUM(r, "inner_train_loop_time", 374.6789753437042, "374.6789753437042", 1);
	NUM(r, "epochs", 10, "10", 1);
	NUM(r, "global_steps", 130, "130", 1);
	NUM(r, "e2e_samples_per_sec", 88.82270474202953, "88.82270474202953", 1);
	const struct series *t = SERIES(r, "perf", 1);
	COLUMNS(t, "inner_train_loop_time", "epochs", "global_steps", "e2e_samples_per_sec");
	NUM_CELL(t, 0, "global_steps", 130, "130", 1);
}

/* UNet2d run as 8 data-parallel instances: one performance line each.  The
 * fields hold the last; series perf has them all, for the mean the ALCF
 * guide asks for. */
static void sambanova_perf_lines_of_every_instance_are_the_perf_series(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "sambanova/unet2d-8-instances-perf-lines.log", "sambanova");
	NUM(r, "inner_train_loop_time", 25.332663536071777, "25.332663536071777", 8);
	NUM(r, "e2e_samples_per_sec", 808.442427336472, "808.442427336472", 8);
	const struct series *t = SERIES(r, "perf", 8);
	NUM_CELL(t, 0, "inner_train_loop_time", 36.314290046691895, "36.314290046691895", 1);
	NUM_CELL(t, 0, "epochs", 10, "10", 1);
	NUM_CELL(t, 0, "e2e_samples_per_sec", 563.9653143065, "563.9653143065", 1);
	NUM_CELL(t, 5, "e2e_samples_per_sec", 727.1660927132315, "727.1660927132315", 6);
	NUM_CELL(t, 7, "global_steps", 10, "10", 8);
	SERIES(r, "train", 0);
}

/* A student's notes holding two runs' dictionaries, each after its
 * "ntasks: N" line: the last run's values.  And a multi-node run whose job
 * is named only by its output file, slurm-10191.out. */
static void sambanova_notes_with_two_runs_and_a_job_named_by_its_output_file(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "sambanova/bert-ntasks-16-then-8-readme.md", "sambanova");
	NUM(r, "ntasks", 8, "8", 8);
	NUM(r, "e2e_train_time", 458.7278108596802, "458.7278108596802", 9);
	NUM(r, "final_loss", 8.308782577514648, "8.308782577514648", 9);
	MISSING(r, "job_id");
	r = PARSE(CORPUS "sambanova/gpt15b-2nodes-32tasks-result-dict.log", "sambanova");
	NUM(r, "ntasks", 32, "32", 1);
	NUM(r, "job_id", 10191, "10191", 4);
	NUM(r, "training_sequences_per_second", 192467.31088004305, "192467.31088004305", 7);
	NUM(r, "final_loss", 4.781678199768066, "4.781678199768066", 7);
	MISSING(r, "exit_state");
}

/* A compile-and-run script's slurm.out (SambaFlow 2021): the compiler's PEF
 * and verdict, one test result per data-parallel worker, the next
 * command's argparse error, the job from the batch script's path. */
static void sambanova_reads_the_compiler_the_workers_tests_and_the_error(void **state)
{
	(void)state;
	struct run *r =
		PARSE(CORPUS "sambanova/sn-boilerplate-compile-8-workers-2021.log", "sambanova");
	NUM(r, "job_id", 13528, "13528", 1);
	STR(r, "pef",
	    "/lambda_stor/homes/wilsonb/sambanova_starter/pef/sn_boilerplate//sn_boilerplate.pef",
	    11);
	STR(r, "compilation", "succeeded", 15);
	NUM(r, "test_accuracy", 89.23, "89.23", 55);
	NUM(r, "test_loss", 0.3676, "0.3676", 55);
	const struct series *t = SERIES(r, "test", 8);
	COLUMNS(t, "accuracy", "loss");
	NUM_CELL(t, 0, "accuracy", 89.86, "89.86", 48);
	NUM_CELL(t, 2, "loss", 0.3752, "0.3752", 50);
	NUM_CELL(t, 7, "accuracy", 89.23, "89.23", 55);
	STR(r, "error", "unrecognized arguments: -ws 8", 71);
	SERIES(r, "train", 0);
}

/* SambaNova's Hello SambaFlow tutorial: only the runtime's session line
 * tells whose log it is; two spaces before "Loss", a test per epoch. */
static void sambanova_knows_the_runtime_lines_and_a_test_per_epoch(void **state)
{
	(void)state;
	detect_as(CORPUS "sambanova/logreg-hello-sambaflow-2epochs-2023.log", "sambanova",
		  __FILE__, __LINE__);
	struct run *r =
		PARSE(CORPUS "sambanova/logreg-hello-sambaflow-2epochs-2023.log", "sambanova");
	NUM(r, "test_accuracy", 91.54, "91.54", 16);
	NUM(r, "test_loss", 0.3001, "0.3001", 16);
	NUM(r, "final_loss", 0.3061, "0.3061", 15);
	const struct series *t = SERIES(r, "train", 12);
	NUM_CELL(t, 11, "epoch", 2, "2", 15);
	t = SERIES(r, "test", 2);
	NUM_CELL(t, 0, "loss", 0.3012, "0.3012", 9);
	MISSING(r, "pef");
	MISSING(r, "error");
	r = PARSE(CORPUS "sambanova/logreg-sambaflow-2023-tf-warnings.log", "sambanova");
	NUM(r, "test_accuracy", 91.40, "91.40", 18);
	NUM(r, "test_loss", 0.3014, "0.3014", 18);
}

/* The ALCF wrapper script's own output: what ran where, and the job it
 * submitted. */
static void sambanova_reads_the_sbatch_wrapper(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "sambanova/bertlarge-sn30-sbatch-wrapper.log", "sambanova");
	STR(r, "model", "BertLarge", 1);
	STR(r, "sambaflow_version", "1.17.7-27", 8);
	STR(r, "platform", "DataScale SN30-8", 10);
	NUM(r, "job_id", 30458, "30458", 11);
	NUM(r, "duration", 1, "1", 14);
	MISSING(r, "exit_state");
}

/* poptorch */

static void poptorch_reads_accuracy_and_tqdm_bars(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "poptorch/mnist_default.log", "poptorch");
	NUM(r, "test_accuracy", 97.13, "97.13", 33);
	NUM(r, "epochs", 10, "10", 9);
	NUM(r, "seconds_per_epoch", 10.99, "10.99", 9);
	NUM(r, "training_time", 109, "01:49", 9);
	NUM(r, "compile_time", 22, "00:22", 7);
	NUM(r, "job_id", 20702, "20702", 3);
	MISSING(r, "error");
}

/* The "4 epochs" and "14 epochs" runs both printed 10/10 (the homework's
 * bug, see content/hw08-notes.md): the log says 10. */
static void poptorch_epochs_is_what_the_bar_counted(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "poptorch/mnist_epochs4.log", "poptorch");
	NUM(r, "test_accuracy", 98.58, "98.58", 28);
	NUM(r, "epochs", 10, "10", 6);
	NUM(r, "seconds_per_epoch", 8.79, "8.79", 6);
	NUM(r, "compile_time", 0, "00:00", 5);
	r = PARSE(FIX "poptorch/mnist_epochs14.log", "poptorch");
	NUM(r, "test_accuracy", 98.43, "98.43", 28);
	NUM(r, "seconds_per_epoch", 8.74, "8.74", 6);
}

static void poptorch_ipu_failure_keeps_the_error(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "poptorch/ipu_error.log", "poptorch");
	STR(r, "error", "Failed to acquire 1 IPU(s)", 1);
	MISSING(r, "test_accuracy");
	MISSING(r, "epochs");
}

/* Its first attempt failed in Slurm (srun and slurmstepd errors); the
 * second trained: the log is PopTorch's. */
static void poptorch_run_after_slurm_errors_is_poptorch(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "poptorch/mnist_profiler.log", "poptorch");
	NUM(r, "test_accuracy", 98.13, "98.13", 39);
	NUM(r, "seconds_per_epoch", 13.63, "13.63", 14);
	NUM(r, "compile_time", 28, "00:28", 12);
	/* the second srun job, the one that trained */
	NUM(r, "job_id", 20708, "20708", 8);
	MISSING(r, "error");
}

/* Seed 002: bars glued on one line, a U+FFFD in the middle. */
static void poptorch_reads_glued_bars(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "poptorch/seed002_lr001.log", "poptorch");
	NUM(r, "test_accuracy", 98.72, "98.72", 22);
	NUM(r, "epochs", 10, "10", 1);
	NUM(r, "seconds_per_epoch", 10.81, "10.81", 1);
	NUM(r, "compile_time", 14, "00:14", 1);
}

/* Graphcore's examples_utils benchmark (the ResNet50 runs in ALCF's user
 * docs): the summary its logger prints, claimed by its prefix. */
static void poptorch_reads_the_examples_utils_benchmark_summary(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "poptorch/resnet50-benchmark-1ipu-examples-utils.log", "poptorch");
	NUM(r, "total_time", 9633.622455, "9633.622455", 1);
	NUM(r, "throughput", 3078.715789473684, "3078.715789473684", 2);
	NUM(r, "accuracy", 57.79, "57.79", 3);
	NUM(r, "final_loss", 2.7951, "2.7951", 4);
	NUM(r, "compile_time", 605.56, "605.56", 5);
	MISSING(r, "test_accuracy");
}

/* "Total compile time: ERROR": the benchmark could not read it. */
static void poptorch_benchmark_compile_time_error_is_missing(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "poptorch/resnet50-benchmark-4ipu-compile-error.log", "poptorch");
	NUM(r, "total_time", 20047.298082, "20047.298082", 1);
	NUM(r, "throughput", 3420.6052631578946, "3420.6052631578946", 2);
	NUM(r, "final_loss", 2.304, "2.304", 4);
	MISSING(r, "compile_time");
}

/* BERT pretraining (run_pretraining.py, SDK 3.3), two runs pasted one
 * after the other, split at each "Using config:" line (the first run's
 * srun lines before it are its own): the second run, from line 66, has
 * its own Step bar, Training Metrics block, "Training time", compilation
 * bar and "Compiled/Loaded model in" line. */
static void poptorch_reads_bert_pretraining_metrics(void **state)
{
	(void)state;
	struct run *whole = PARSE(CORPUS "poptorch/bert-tiny-pretraining-sdk3.3-two-runs.log",
				  "poptorch");
	assert_int_equal(run_member_count(whole), 2);
	struct run *first = run_member_at(whole, 0), *r = run_member_at(whole, 1);
	assert_int_equal(run_first_line(r), 66);
	NUM(first, "final_loss", 7.389, "7.389", 56);
	NUM(first, "global_batch_size", 16, "16", 59);
	/* the app's own figure, printed after the bar, wins over it */
	NUM(first, "compile_time", 98.01561326114461, "98.01561326114461", 53);
	NUM(first, "job_id", 21028, "21028", 6);
	NUM(r, "compile_time", 106.42838645819575, "106.42838645819575", 115);
	MISSING(r, "job_id");
	NUM(r, "final_loss", 8.111, "8.111", 118);
	NUM(r, "mlm_loss", 7.585, "7.585", 118);
	NUM(r, "nsp_loss", 0.526, "0.526", 118);
	NUM(r, "throughput", 1134.5, "1134.5", 118);
	NUM(r, "global_batch_size", 32, "32", 121);
	NUM(r, "training_steps", 200, "200", 123);
	NUM(r, "training_time", 5.718, "5.718", 124);
}

/* The MNIST tutorial, then an edited copy, in one terminal capture,
 * split at srun's job lines: each run has its own bars, accuracy, srun
 * job and compile_time (its first finished compilation bar). */
static void poptorch_two_runs_give_the_last_runs_results(void **state)
{
	(void)state;
	struct run *whole = PARSE(CORPUS "poptorch/mnist-alcf-sdk3.3-two-runs.log", "poptorch");
	assert_int_equal(run_member_count(whole), 2);
	struct run *first = run_member_at(whole, 0), *r = run_member_at(whole, 1);
	assert_int_equal(run_first_line(r), 78);
	NUM(first, "test_accuracy", 98.38, "98.38", 69);
	NUM(first, "compile_time", 21, "00:21", 11);
	NUM(first, "job_id", 28011, "28011", 3);
	NUM(r, "compile_time", 0, "00:00", 81);
	NUM(r, "test_accuracy", 97.82, "97.82", 104);
	NUM(r, "epochs", 10, "10", 82);
	NUM(r, "seconds_per_epoch", 8.66, "8.66", 82);
	NUM(r, "training_time", 86, "01:26", 82);
	NUM(r, "job_id", 28012, "28012", 79);
}

/* groqflow */

static void groq_seq128_results_table(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "groqflow/seq128.log", "groqflow");
	const struct series *t = SERIES(r, "results", 2);
	COLUMNS(t, "source", "accuracy", "end_to_end_latency_ms", "end_to_end_ips",
		"on_chip_latency_ms", "on_chip_ips");
	STR_CELL(t, 0, "source", "cpu", 4);
	NUM_CELL(t, 0, "accuracy", 77.47, "77.47%", 4);
	NUM_CELL(t, 0, "end_to_end_latency_ms", 2.25, "2.25", 4);
	MISSING_CELL(t, 0, "on_chip_latency_ms");
	MISSING_CELL(t, 0, "on_chip_ips");
	STR_CELL(t, 1, "source", "groq", 5);
	NUM_CELL(t, 1, "end_to_end_ips", 16788.58, "16788.58", 5);
	NUM_CELL(t, 1, "on_chip_latency_ms", 0.03, "0.03", 5);
	NUM_CELL(t, 1, "on_chip_ips", 37576.72, "37576.72", 5);
}

static void groq_seq512_results_table(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "groqflow/seq512.log", "groqflow");
	const struct series *t = SERIES(r, "results", 2);
	NUM_CELL(t, 0, "end_to_end_latency_ms", 9.26, "9.26", 4);
	NUM_CELL(t, 1, "on_chip_ips", 10953.97, "10953.97", 5);
	MISSING(r, "proof_point");
}

/* The table ends at its bottom border, not at the next line of text. */
static void groq_table_ends_at_its_border(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "groqflow/seq128_rerun.log", "groqflow");
	const struct series *t = SERIES(r, "results", 2);
	NUM_CELL(t, 1, "end_to_end_ips", 19253.91, "19253.91", 9);
	STR(r, "proof_point",
	    "/home/aeahmed/groqflow/proof_points/natural_language_processing/bert/bert_tiny.py",
	    11);
}

/* MiniLMv2 (ALCF's course docs): the score column is the proof point's
 * own ("Spearman Rank Correlation Coefficient"), the log is indented, and
 * the build is named by "Building". */
static void groq_score_column_is_named_by_the_proof_point(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "groqflow/minilmv2-spearman-alcf-docs.log", "groqflow");
	STR(r, "build_name", "minilmv2", 2);
	const struct series *t = SERIES(r, "results", 2);
	COLUMNS(t, "source", "spearman_rank_correlation_coefficient", "end_to_end_latency_ms",
		"end_to_end_ips", "on_chip_latency_ms", "on_chip_ips");
	STR_CELL(t, 0, "source", "cpu", 22);
	NUM_CELL(t, 0, "spearman_rank_correlation_coefficient", 0.8203, "0.8203", 22);
	NUM_CELL(t, 0, "end_to_end_latency_ms", 65.67, "65.67", 22);
	MISSING_CELL(t, 0, "on_chip_ips");
	NUM_CELL(t, 1, "spearman_rank_correlation_coefficient", 0.8204, "0.8204", 23);
	NUM_CELL(t, 1, "on_chip_ips", 2620.58, "2620.58", 23);
	MISSING(r, "proof_point");
}

/* A build loaded from the cache is named by the cache's line; a rebuild
 * by its "Building" line. */
static void groq_build_name_from_the_cache_or_the_build(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "groqflow/bert-tiny-cached-custom-input-md.log", "groqflow");
	STR(r, "build_name", "bert_tiny", 5);
	const struct series *t = SERIES(r, "results", 2);
	NUM_CELL(t, 1, "end_to_end_ips", 19328.60, "19328.60", 19);
	r = PARSE(CORPUS "groqflow/bert-tiny-seq256-rebuild.log", "groqflow");
	STR(r, "build_name", "bert_tiny", 13);
	t = SERIES(r, "results", 2);
	NUM_CELL(t, 0, "end_to_end_latency_ms", 4.10, "4.10", 34);
	STR(r, "proof_point",
	    "/home/prayaagkatta/groqflow/proof_points/natural_language_processing/bert/bert_tiny.py",
	    37);
}

/* ResNet50's sample output indented inside a <details> block (its fences
 * too), and a run pasted into a README without a fence: the same table. */
static void groq_reads_indented_and_unfenced_tables(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "groqflow/resnet50-sc23-details-indented.md", "groqflow");
	STR(r, "build_name", "resnet50", 8);
	const struct series *t = SERIES(r, "results", 2);
	NUM_CELL(t, 0, "accuracy", 84.54, "84.54%", 28);
	NUM_CELL(t, 0, "end_to_end_latency_ms", 102.76, "102.76", 28);
	MISSING_CELL(t, 0, "on_chip_latency_ms");
	NUM_CELL(t, 1, "accuracy", 84.51, "84.51%", 29);
	NUM_CELL(t, 1, "on_chip_ips", 2985.40, "2985.40", 29);
	MISSING(r, "proof_point");
	r = PARSE(CORPUS "groqflow/bert-tiny-seq256-unfenced-readme.md", "groqflow");
	STR(r, "build_name", "bert_tiny", 17);
	t = SERIES(r, "results", 2);
	NUM_CELL(t, 1, "end_to_end_ips", 14107.26, "14107.26", 39);
	STR(r, "proof_point",
	    "/home/saideepgona/groqflow/proof_points/natural_language_processing/bert/bert_tiny.py",
	    41);
}

/* No real wrapped GroqFlow capture was found, so the alcf-* fixtures are
 * the corpus's real run tests/corpus/groqflow/bert-tiny-alcf-docs-2023.log
 * (as published, see that folder's SOURCES) through a mechanical
 * transformation, what a narrow terminal or a paste makes of its table:
 *   alcf-fold80.log            fold -w 80
 *   alcf-fold100.log           fold -w 100
 *   alcf-fold-s50.log          fold -s -w 50 (cut where a word ends, as a
 *                              soft wrap; pieces of ruler alone on a line)
 *   alcf-spaces.log            sed -E 's/ {2,}/ /g' (blanks collapsed)
 *   alcf-fold80-quoted.md      fold -w 80 | sed 's/^/> /' (wrapped, then
 *                              pasted in a Markdown quote)
 *   alcf-fold80-lost-line.log  fold -w 80 | sed '31d' (the cpu row's
 *                              second piece lost)
 *   alcf-fold80-lost-first-piece.log
 *                              fold -w 80 | sed '30d' (its first piece
 *                              lost)
 * Each gives the run's cells, each row at the line of its first piece. */
static void groq_wrapped_tables_are_joined(void **state)
{
	(void)state;
	static const struct {
		const char *path;
		int cpu, groq;
	} cases[] = {
		{FIX "groqflow/alcf-fold80.log", 30, 32},
		{FIX "groqflow/alcf-fold100.log", 29, 31},
		{FIX "groqflow/alcf-fold-s50.log", 37, 40},
		{FIX "groqflow/alcf-spaces.log", 22, 23},
		{FIX "groqflow/alcf-fold80-quoted.md", 30, 32},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t said_before = strlen(cap_text(&quiet));
		struct run *r = PARSE(cases[i].path, "groqflow");
		const struct series *t = SERIES(r, "results", 2);
		COLUMNS(t, "source", "accuracy", "end_to_end_latency_ms", "end_to_end_ips",
			"on_chip_latency_ms", "on_chip_ips");
		STR_CELL(t, 0, "source", "cpu", cases[i].cpu);
		NUM_CELL(t, 0, "accuracy", 77.47, "77.47%", cases[i].cpu);
		NUM_CELL(t, 0, "end_to_end_latency_ms", 2.29, "2.29", cases[i].cpu);
		NUM_CELL(t, 0, "end_to_end_ips", 436.88, "436.88", cases[i].cpu);
		MISSING_CELL(t, 0, "on_chip_latency_ms");
		MISSING_CELL(t, 0, "on_chip_ips");
		STR_CELL(t, 1, "source", "groq", cases[i].groq);
		NUM_CELL(t, 1, "end_to_end_latency_ms", 0.06, "0.06", cases[i].groq);
		NUM_CELL(t, 1, "end_to_end_ips", 17147.76, "17147.76", cases[i].groq);
		NUM_CELL(t, 1, "on_chip_latency_ms", 0.03, "0.03", cases[i].groq);
		NUM_CELL(t, 1, "on_chip_ips", 32358.97, "32358.97", cases[i].groq);
		assert_string_equal(cap_text(&quiet) + said_before, "");
	}
}

/* A wrapped row whose second piece was lost cannot be read: a warning at
 * its line, and the row is left out rather than its cells shifted. */
static void groq_wrapped_row_missing_a_piece_is_left_out_with_a_warning(void **state)
{
	(void)state;
	size_t said_before = strlen(cap_text(&quiet));
	struct run *r = PARSE(FIX "groqflow/alcf-fold80-lost-line.log", "groqflow");
	const struct series *t = SERIES(r, "results", 1);
	STR_CELL(t, 0, "source", "groq", 31);
	NUM_CELL(t, 0, "end_to_end_ips", 17147.76, "17147.76", 31);
	NUM_CELL(t, 0, "on_chip_latency_ms", 0.03, "0.03", 31);
	assert_non_null(strstr(cap_text(&quiet) + said_before,
			       FIX "groqflow/alcf-fold80-lost-line.log:30: warning: table 'results': "
				   "this row does not end with the table's border and the lines after "
				   "it do not complete it; the row is left out\n"));
}

/* The cpu row's first piece lost: its second piece alone is a row of one
 * cell, not the row it was cut from. */
static void groq_lone_piece_of_a_wrapped_row_is_left_out_with_a_warning(void **state)
{
	(void)state;
	size_t said_before = strlen(cap_text(&quiet));
	struct run *r = PARSE(FIX "groqflow/alcf-fold80-lost-first-piece.log", "groqflow");
	const struct series *t = SERIES(r, "results", 1);
	STR_CELL(t, 0, "source", "groq", 31);
	NUM_CELL(t, 0, "on_chip_ips", 32358.97, "32358.97", 31);
	assert_non_null(strstr(cap_text(&quiet) + said_before,
			       FIX "groqflow/alcf-fold80-lost-first-piece.log:30: warning: table "
				   "'results': this row has 1 cell but its header has 6; the row is "
				   "left out\n"));
}

/* gtest */

/* Four ranks printed into one terminal: banners cut and repeated. */
static void gtest_single_precision_passes_7(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "gtest/gtest_single.log", "gtest");
	NUM(r, "passed", 7, "7", 38);
	NUM(r, "failed", 0, "0", 0);
	NUM(r, "total_tests", 7, "7", 47);
	NUM(r, "total_time_ms", 12400, "12400", 47);
	const struct series *t = SERIES(r, "tests", 6);
	COLUMNS(t, "suite", "name", "status", "time_ms");
	STR_CELL(t, 0, "suite", "gtestTrain", 7);
	STR_CELL(t, 0, "name", "custom", 7);
	STR_CELL(t, 0, "status", "OK", 7);
	NUM_CELL(t, 0, "time_ms", 3719, "3719", 7);
	NUM_CELL(t, 5, "time_ms", 3303, "3303", 44);
	const struct series *f = run_series(r, "failures");
	assert_true(!f || series_row_count(f) == 0);
}

/* Worse still: "PASSED" and "7 tests." on lines of their own. */
static void gtest_double_precision_passes_7(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "gtest/gtest_double.log", "gtest");
	NUM(r, "passed", 7, "7", 51);
	NUM(r, "failed", 0, "0", 0);
	NUM(r, "total_tests", 7, "7", 51);
	NUM(r, "total_time_ms", 19814, "19814", 51);
	const struct series *t = SERIES(r, "tests", 4);
	NUM_CELL(t, 1, "time_ms", 5819, "5819", 14);
	STR_CELL(t, 3, "name", "nsys1", 48);
}

static void gtest_failing_run_lists_failures(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "gtest/gtest_lr1e-1.log", "gtest");
	NUM(r, "passed", 0, "0", 28);
	NUM(r, "failed", 1, "1", 29);
	NUM(r, "total_tests", 1, "1", 26);
	NUM(r, "total_time_ms", 3378, "3378", 26);
	const struct series *t = SERIES(r, "tests", 1);
	STR_CELL(t, 0, "status", "FAILED", 22);
	NUM_CELL(t, 0, "time_ms", 3377, "3377", 22);
	const struct series *f = SERIES(r, "failures", 4);
	COLUMNS(f, "file", "line", "message");
	STR_CELL(f, 0, "file", "main.cpp", 5);
	NUM_CELL(f, 0, "line", 253, "253", 5);
	/* The message is on the line after "Failure", past the blank line
	 * that pasting into Markdown put between them. */
	STR_CELL(f, 0, "message", "Expected: (rel err W) < (1e-6), actual: 0.00109975913 vs 1e-06",
		 5);
	STR_CELL(f, 1, "message", "Expected: (rel_err_b) < (1e-6), actual: 0.00699019665 vs 1e-06",
		 9);
	NUM_CELL(f, 3, "line", 254, "254", 19);
	STR_CELL(f, 3, "message", "Expected: (rel_err_b) < (1e-6), actual: 0.00586254383 vs 1e-06",
		 19);
}

/* A message of several lines, as EXPECT_EQ prints it. */
static void gtest_failure_message_of_several_lines(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "gtest/equality_failure.log", "gtest");
	NUM(r, "passed", 1, "1", 18);
	NUM(r, "failed", 1, "1", 19);
	const struct series *f = SERIES(r, "failures", 1);
	NUM_CELL(f, 0, "line", 87, "87", 6);
	STR_CELL(f, 0, "message",
		 "Expected equality of these values:\n  model.hidden_size()\n    Which is: "
		 "512\n  2048",
		 6);
	const struct series *t = SERIES(r, "tests", 2);
	STR_CELL(t, 0, "status", "FAILED", 11);
	STR_CELL(t, 1, "name", "custom", 13);
}

static void gtest_clean_output(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "gtest/clean_failure.log", "gtest");
	NUM(r, "passed", 2, "2", 20);
	NUM(r, "failed", 1, "1", 21);
	NUM(r, "total_tests", 3, "3", 19);
	NUM(r, "total_time_ms", 4885, "4885", 19);
	const struct series *t = SERIES(r, "tests", 3);
	STR_CELL(t, 1, "name", "backward", 10);
	STR_CELL(t, 1, "status", "FAILED", 10);
	NUM_CELL(t, 2, "time_ms", 3167, "3167", 15);
	const struct series *f = SERIES(r, "failures", 1);
	NUM_CELL(f, 0, "line", 198, "198", 8);
	STR_CELL(f, 0, "message", "Expected: (rel_err_dW) < (1e-6), actual: 3.81e-05 vs 1e-06", 8);
}

/* ctest's LastTest.log: one GoogleTest run per test, each with its own
 * summary, added up (one run's summary keeps its text and line). */
static void gtest_adds_up_the_runs_of_a_ctest_log(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "gtest/ctest-clion-windows-7tests-1fail.log", "gtest");
	NUM(r, "passed", 6, NULL, 0);
	NUM(r, "failed", 1, "1", 81);
	NUM(r, "total_tests", 7, NULL, 0);
	NUM(r, "total_time_ms", 0, NULL, 0);
	STR(r, "failed_test", "GetProductsAmount.IsOverflow", 75);
	NUM(r, "disabled", 0, "0", 0);
	const struct series *f = SERIES(r, "failures", 1);
	STR_CELL(f, 0, "file", "D:/Course/GoogleTesting/Tester.cpp", 70);
	NUM_CELL(f, 0, "line", 48, "48", 70);
	r = PARSE(CORPUS "gtest/ctest-pid-2failures.log", "gtest");
	NUM(r, "passed", 0, NULL, 0);
	NUM(r, "failed", 2, NULL, 0);
	STR(r, "failed_test", "PIDControllerTest.TestClamping", 22);
	r = PARSE(CORPUS "gtest/connect4-gtest-1.14-disabled.txt", "gtest");
	NUM(r, "passed", 27, "27", 82);
	NUM(r, "disabled", 4, "4", 84);
	MISSING(r, "failed_test");
}

/* slurm */

static void slurm_reads_a_job_that_never_started(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "slurm/execve_failure.log", "slurm");
	NUM(r, "job_id", 20707, "20707", 2);
	STR(r, "error",
	    "execve(): POPLAR_ENGINE_OPTIONS={\"autoReport.all\":\"true\", "
	    "\"autoReport.directory\":\"/home/aeahmed/graph_profile\", "
	    "\"profiler.includeFlopEstimates\": \"true\"}: No such file or directory",
	    4);
	NUM(r, "exit_code", 2, "2", 5);
	STR(r, "node", "gc-poplar-03", 5);
	/* Queued, then allocated (line 3): no longer PENDING. */
	MISSING(r, "exit_state");
}

static void slurm_reads_a_time_limit(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "slurm/timeout.log", "slurm");
	NUM(r, "job_id", 33071, "33071", 2);
	STR(r, "error",
	    "*** JOB 33071 ON hpcc-gpu-5-1 CANCELLED AT 2024-03-18T14:22:07 DUE TO TIME LIMIT ***",
	    6);
	STR(r, "cancel_reason", "TIME LIMIT", 6);
	MISSING(r, "exit_code");
}

/* The corpus's real Slurm output (tests/corpus/slurm/). */

/* One stderr file shared by ten jobs, all cancelled: the first job's id,
 * and every job in the series jobs. */
static void slurm_keeps_the_first_job_of_several_and_lists_them_all(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "slurm/cosipy-10-jobs-cancelled-2019.err", "slurm");
	NUM(r, "job_id", 405228, "405228", 1);
	STR(r, "exit_state", "CANCELLED", 10);
	STR(r, "node", "m0832", 1);
	STR(r, "error", "*** JOB 405228 ON m0832 CANCELLED AT 2019-05-10T22:50:05 ***", 1);
	const struct series *j = SERIES(r, "jobs", 10);
	NUM_CELL(j, 0, "job_id", 405228, "405228", 1);
	STR_CELL(j, 0, "node", "m0832", 1);
	NUM_CELL(j, 9, "job_id", 405224, "405224", 10);
	r = PARSE(CORPUS "slurm/scancel-dcc-2025.err", "slurm");
	NUM(r, "job_id", 39819691, "39819691", 1);
	STR(r, "exit_state", "CANCELLED", 1);
	STR(r, "node", "dcc-core-46", 1);
	MISSING(r, "cancel_reason");
}

/* Cancelled at its time limit: the reason, and Slurm's state name for
 * it, TIMEOUT (not merely CANCELLED), from the last such line. */
static void slurm_time_limit_gives_the_reason_and_timeout(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "slurm/ollama-gin-time-limit-142202.out", "slurm");
	NUM(r, "job_id", 142202, "142202", 7);
	STR(r, "cancel_reason", "TIME LIMIT", 7);
	STR(r, "node", "node-05", 7);
	STR(r, "exit_state", "TIMEOUT", 7);
	r = PARSE(FIX "slurm/timeout.log", "slurm");
	STR(r, "node", "hpcc-gpu-5-1", 6);
	STR(r, "step", "0", 8);
	STR(r, "exit_state", "TIMEOUT", 8);
	SERIES(r, "jobs", 1);
}

/* Slurm 23's timestamped notice with StepId=, and the older slurmstepd
 * wording "in step N.batch cgroup" (after the batch script's own Killed
 * line). */
static void slurm_reads_oom_kill_notices(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "slurm/oom-kill-stepid-timestamped-2025.err", "slurm");
	NUM(r, "job_id", 20160847, "20160847", 1);
	STR(r, "step", "batch", 1);
	NUM(r, "oom_kill_events", 9, "9", 1);
	STR(r, "exit_state", "OUT_OF_MEMORY", 1);
	STR(r, "error",
	    "Detected 9 oom_kill events in StepId=20160847.batch. Some of the step tasks have been "
	    "OOM Killed.",
	    1);
	r = PARSE(CORPUS "slurm/sigma2-doc-oom-kill-cgroup.txt", "slurm");
	NUM(r, "job_id", 997857, "997857", 2);
	STR(r, "step", "batch", 2);
	NUM(r, "oom_kill_events", 1, "1", 2);
	/* The oom-kill notice comes after the script's Killed: the last wins. */
	STR(r, "exit_state", "OUT_OF_MEMORY", 2);
	STR(r, "error", "Detected 1 oom-kill event(s) in step 997857.batch cgroup.", 2);
}

/* sbatch refused the job: the first error, and the submission's own
 * message; no job was ever made. */
static void slurm_reads_a_refused_submission(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "slurm/sigma2-doc-sbatch-error-qos.txt", "slurm");
	STR(r, "error", "AssocGrpBillingMinutes", 1);
	STR(r, "submission_error", "Batch job submission failed: Job violates accounting/QOS policy",
	    2);
	MISSING(r, "job_id");
}

/* The batch script's shell errors, whose path names the job. */
static void slurm_reads_the_batch_scripts_own_errors(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "slurm/slurm-script-command-not-found.err", "slurm");
	NUM(r, "job_id", 9197782, "9197782", 5);
	STR(r, "error", "9197782: command not found", 5);
	MISSING(r, "exit_state");
	r = PARSE(CORPUS "slurm/uvicorn-killed-slurm-script.err", "slurm");
	NUM(r, "job_id", 21518, "21518", 28);
	STR(r, "exit_state", "Killed", 28);
	MISSING(r, "error");
	r = PARSE(CORPUS "slurm/srun-queued-318530.log", "slurm");
	NUM(r, "job_id", 318530, "318530", 1);
	STR(r, "exit_state", "PENDING", 1);
	/* slurmd's spool path, and dash's error without "line" (a SambaNova
	 * log, which the sambanova parser claims, read as slurm) */
	struct loc nowhere = {NULL, 0, 0, 0};
	const struct parser *sl = parsers_lookup(builtins, "slurm", nowhere, quiet.d);
	free_current(NULL);
	current = parser_run(sl, CORPUS "sambanova/sn-boilerplate-compile-8-workers-2021.log",
			     "sn.log", "r", quiet.d);
	assert_non_null(current);
	NUM(current, "job_id", 13528, "13528", 1);
	STR(current, "error", "/var/spool/slurmd/job13528/slurm_script: source: not found", 1);
}

/* sacct's default table: a row per job and step, ids as sacct writes them. */
static void slurm_reads_sacct_tables(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "slurm/sacct-hyak-48-steps.txt", "slurm");
	NUM(r, "job_id", 16261988, "16261988", 3);
	const struct series *j = SERIES(r, "jobs", 48);
	NUM_CELL(j, 0, "job_id", 16261988, "16261988", 3);
	STR_CELL(j, 0, "job_name", "h3as5_opt+", 3);
	STR_CELL(j, 0, "state", "RUNNING", 3);
	STR_CELL(j, 0, "exit_code", "0:0", 3);
	STR_CELL(j, 4, "state", "CANCELLED", 7);
	STR_CELL(j, 4, "exit_code", "0:15", 7);
	STR_CELL(j, 47, "job_id", "16313407.ex+", 50);
	STR_CELL(j, 47, "state", "COMPLETED", 50);
	MISSING_CELL(j, 47, "node");
}

/* nsys */

static void nsys_reads_kernel_and_memcpy_summaries(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "nsys/stats_gtest_profile.txt", "nsys");
	const struct series *k = SERIES(r, "kernels", 7);
	COLUMNS(k, "time_pct", "total_ns", "calls", "avg_ns", "med_ns", "min_ns", "max_ns",
		"stddev_ns", "name");
	assert_true(series_column_index(k, "name") >= 0);
	NUM_CELL(k, 0, "time_pct", 80.5, "80.5", 35);
	NUM_CELL(k, 0, "total_ns", 17834242, "17,834,242", 35);
	NUM_CELL(k, 0, "calls", 40, "40", 35);
	NUM_CELL(k, 0, "avg_ns", 445856.0, "445,856.0", 35);
	STR_CELL(k, 0, "name",
		 "void TiledMatMul<float>(int, int, int, const float *, const float *, float *)", 35);
	STR_CELL(k, 6, "name", "void ReluForward<float>(int, const float *, float *)", 41);
	const struct series *m = SERIES(r, "memops", 3);
	COLUMNS(m, "time_pct", "total_ns", "calls", "avg_ns");
	NUM_CELL(m, 0, "time_pct", 77.3, "77.3", 49);
	NUM_CELL(m, 0, "avg_ns", 382213.6, "382,213.6", 49);
	STR_CELL(m, 0, "name", "[CUDA memcpy Host-to-Device]", 49);
	const struct series *z = SERIES(r, "memsizes", 3);
	NUM_CELL(z, 0, "total_mb", 16.28, "16.280", 59);
	STR(r, "report", "report1.sqlite", 63);
}

/* The corpus's real logs (tests/corpus/<kind>/, SOURCES says where each
 * comes from). */
#ifndef CORPUS
#define CORPUS "tests/corpus/"
#endif

/* Nsight Systems 2019.5.2: "CUDA Kernel Statistics (nanoseconds)" and its
 * siblings, the API table first, no thousands separators; the columns are
 * named as in later releases (Total Time is total_ns, Average avg_ns). */
static void nsys_2019_5_tables_are_read_by_their_titles(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "nsys/nsys-2019.5-ece408-conv-m2.txt", "nsys");
	const struct series *k = SERIES(r, "kernels", 3);
	COLUMNS(k, "time_pct", "total_ns", "calls", "avg_ns", "min_ns", "max_ns", "name");
	STR_CELL(k, 0, "name", "conv_forward_kernel", 23);
	NUM_CELL(k, 0, "total_ns", 104424277, "104424277", 23);
	NUM_CELL(k, 0, "calls", 6, "6", 23);
	NUM_CELL(k, 0, "avg_ns", 17404046.2, "17404046.2", 23);
	STR_CELL(k, 2, "name", "prefn_marker_kernel", 25);
	const struct series *m = SERIES(r, "memops", 2);
	STR_CELL(m, 0, "name", "[CUDA memcpy DtoH]", 32);
	NUM_CELL(m, 0, "total_ns", 972281014, "972281014", 32);
	NUM_CELL(m, 0, "calls", 6, "6", 32);
	const struct series *z = SERIES(r, "memsizes", 2);
	/* Sizes keep the header's names: KiB here, MB from 2022.4. */
	COLUMNS(z, "total", "calls", "average", "minimum", "maximum", "name");
	NUM_CELL(z, 1, "minimum", 0.004, "0.004", 41);
	const struct series *a = SERIES(r, "api", 5);
	STR_CELL(a, 0, "name", "cudaMemcpy", 7);
	NUM_CELL(a, 0, "calls", 20, "20", 7);
	NUM_CELL(a, 0, "total_ns", 1053104319, "1053104319", 7);
}

/* nsys 2023 with --stats=true: each report after "[N/8] Executing
 * '<report>' stats report", the NVTX one (not read) first. */
static void nsys_executing_reports_are_picked_by_their_report_name(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "nsys/nsys-2023-vectoradd-a100-stats.txt", "nsys");
	const struct series *k = SERIES(r, "kernels", 1);
	COLUMNS(k, "time_pct", "total_ns", "calls", "avg_ns", "med_ns", "min_ns", "max_ns",
		"stddev_ns", "name");
	STR_CELL(k, 0, "name", "vectorAdd(const float *, const float *, float *, int)", 62);
	NUM_CELL(k, 0, "time_pct", 100.0, "100.0", 62);
	NUM_CELL(k, 0, "total_ns", 1831281, "1,831,281", 62);
	NUM_CELL(k, 0, "calls", 1010, "1,010", 62);
	NUM_CELL(k, 0, "avg_ns", 1813.1, "1,813.1", 62);
	const struct series *m = SERIES(r, "memops", 2);
	STR_CELL(m, 0, "name", "[CUDA memcpy HtoD]", 68);
	NUM_CELL(m, 0, "total_ns", 2432, "2,432", 68);
	SERIES(r, "memsizes", 2);
	const struct series *a = SERIES(r, "api", 6);
	STR_CELL(a, 0, "name", "cudaMalloc", 51);
	NUM_CELL(a, 0, "total_ns", 106912410, "106,912,410", 51);
	NUM_CELL(a, 0, "calls", 3, "3", 51);
	const struct series *o = SERIES(r, "osrt", 27);
	STR_CELL(o, 0, "name", "sem_wait", 19);
	STR_CELL(o, 26, "name", "listen", 45);
}

/* nsys 2021.x and 2022.1: each report after "Running [.../reports/<report>.py
 * <file>.sqlite]...", with no title of its own (a fixture in that format). */
static void nsys_running_reports_are_picked_by_their_script(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "nsys/stats_running_2021.txt", "nsys");
	const struct series *a = SERIES(r, "api", 5);
	COLUMNS(a, "time_pct", "total_ns", "calls", "avg_ns", "min_ns", "max_ns", "stddev_ns",
		"name");
	NUM_CELL(a, 0, "stddev_ns", 77762401.3, "77,762,401.3", 7);
	STR_CELL(a, 0, "name", "cudaMemcpy", 7);
	NUM_CELL(a, 0, "total_ns", 412380115, "412,380,115", 7);
	const struct series *k = SERIES(r, "kernels", 1);
	STR_CELL(k, 0, "name", "boxBlur(unsigned char const*, unsigned char*, int, int)", 17);
	NUM_CELL(k, 0, "avg_ns", 16236544.0, "16,236,544.0", 17);
	const struct series *m = SERIES(r, "memops", 2);
	STR_CELL(m, 1, "name", "[CUDA memcpy DtoH]", 24);
	const struct series *z = SERIES(r, "memsizes", 2);
	NUM_CELL(z, 0, "total", 585937.5, "585,937.500", 30);
	const struct series *o = SERIES(r, "osrt", 3);
	STR_CELL(o, 2, "name", "fread", 39);
}

/* nvprof: the GPU activities split into kernels and [CUDA memset] /
 * [CUDA memcpy] rows, the API calls apart, in the series Nsight Systems'
 * tables fill, with their columns; times as nvprof scales them, read
 * into nanoseconds exactly (814.13us is 814130, not 814130.0000000001). */
static void nvprof_summary_splits_kernels_memops_and_api_calls(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "nsys/nvprof-kmeans-memset.txt", "nsys");
	const struct series *k = SERIES(r, "kernels", 2);
	COLUMNS(k, "time_pct", "total_ns", "calls", "avg_ns", "min_ns", "max_ns", "name");
	STR_CELL(k, 0, "name",
		 "assignClusters(float const *, int*, float*, int*, float*, float*, int, int)", 7);
	NUM_CELL(k, 0, "time_pct", 97.14, "97.14", 7);
	NUM_CELL(k, 0, "total_ns", 13677300000, "13.6773s", 7);
	NUM_CELL(k, 0, "calls", 16800, "16800", 7);
	NUM_CELL(k, 0, "avg_ns", 814130, "814.13us", 7);
	NUM_CELL(k, 0, "max_ns", 2262900, "2.2629ms", 7);
	STR_CELL(k, 1, "name", "updateCentroids(float*, int*, float*, float*, int)", 8);
	const struct series *m = SERIES(r, "memops", 3);
	STR_CELL(m, 0, "name", "[CUDA memset]", 9);
	NUM_CELL(m, 0, "total_ns", 34283000, "34.283ms", 9);
	NUM_CELL(m, 0, "avg_ns", 680, "680ns", 9);
	STR_CELL(m, 2, "name", "[CUDA memcpy DtoH]", 11);
	const struct series *a = SERIES(r, "api", 18);
	STR_CELL(a, 0, "name", "cudaDeviceSynchronize", 12);
	NUM_CELL(a, 0, "total_ns", 16477500000, "16.4775s", 12);
	STR_CELL(a, 17, "name", "cuDeviceGetUuid", 29);
	NUM_CELL(a, 17, "min_ns", 100, "100ns", 29);
	/* No Nsight Systems table in the file: the tables only of Nsight are
	 * absent, as a table not found is. */
	assert_null(run_series(r, "osrt"));
	assert_null(run_series(r, "nvprof_kernels"));
}

/* "======== Profiling result:" without a pid, the memcpy rows first. */
static void nvprof_memcpy_rows_before_the_kernel(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "nsys/nvprof-vector-add-memcpy-first.txt", "nsys");
	const struct series *m = SERIES(r, "memops", 2);
	STR_CELL(m, 0, "name", "[CUDA memcpy HtoD]", 3);
	NUM_CELL(m, 0, "total_ns", 8025100, "8.0251ms", 3);
	const struct series *k = SERIES(r, "kernels", 1);
	STR_CELL(k, 0, "name", "vector_add_kernel(float const *, float const *, float*, int)", 5);
	NUM_CELL(k, 0, "time_pct", 8.10, "8.10", 5);
	NUM_CELL(k, 0, "avg_ns", 34975, "34.975us", 5);
	const struct series *a = SERIES(r, "api", 18);
	STR_CELL(a, 0, "name", "cudaMallocHost", 6);
}

/* CUDA 9's nvprof with a Unified Memory table after the summary: that
 * table is none of the three. */
static void nvprof_unified_memory_table_is_left_out(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "nsys/nvprof-nbody-v100-cuda9.txt", "nsys");
	const struct series *k = SERIES(r, "kernels", 2);
	NUM_CELL(k, 0, "total_ns", 4621100, "4.6211ms", 7);
	NUM_CELL(k, 1, "total_ns", 16800, "16.800us", 8);
	/* No memory operation: memops is there, empty, as a declared series. */
	SERIES(r, "memops", 0);
	const struct series *a = SERIES(r, "api", 14);
	STR_CELL(a, 0, "name", "cudaMallocManaged", 9);
	STR_CELL(a, 13, "name", "cuDeviceGet", 22);
}

/* hf-trainer */

/* One run: the closing dict, then the metric blocks the script prints
 * after it.  The last summary wins for every field, so the blocks' values
 * (rounded: 0:02:11.45 for the dict's 131.4501) are the run's. */
static void hf_trainer_reads_dicts_and_metrics_blocks(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "hf-trainer/run_glue_mrpc.log", "hf-trainer");
	NUM(r, "train_runtime", 131.45, "0:02:11.45", 49);
	NUM(r, "train_samples_per_second", 83.713, "83.713", 51);
	NUM(r, "train_loss", 0.3812, "0.3812", 48);
	NUM(r, "epoch", 3.0, "3.0", 59);
	NUM(r, "total_optimization_steps", 1377, "1,377", 17);
	/* eval_*: the last value of each key, the closing block's. */
	NUM(r, "eval_accuracy", 0.8554, "0.8554", 60);
	NUM(r, "eval_loss", 0.4216, "0.4216", 63);
	NUM(r, "eval_samples", 408, "408", 65);
	NUM(r, "eval_runtime", 3.19, "0:00:03.19", 64);
	MISSING(r, "predict_runtime");
	const struct series *s = SERIES(r, "log", 6);
	COLUMNS(s, "step", "epoch", "loss", "learning_rate");
	/* step comes from the tqdm bar glued before the dict (cr: keep) */
	NUM_CELL(s, 0, "step", 200, "200", 19);
	NUM_CELL(s, 5, "step", 1200, "1200", 32);
	NUM_CELL(s, 0, "loss", 0.6218, "0.6218", 19);
	NUM_CELL(s, 0, "learning_rate", 4.2737835875090776e-05, "4.2737835875090776e-05", 19);
	NUM_CELL(s, 0, "epoch", 0.44, "0.44", 19);
	NUM_CELL(s, 5, "loss", 0.1752, "0.1752", 32);
	NUM_CELL(s, 5, "grad_norm", 0.833, "0.833", 32);
}

/* The same log cut before the metric blocks (a script that never calls
 * log_metrics): the closing dict and the last eval dict give them. */
static void hf_trainer_without_metric_blocks_reads_the_dicts(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "hf-trainer/run_glue_mrpc_no_blocks.log", "hf-trainer");
	NUM(r, "train_runtime", 131.4501, "131.4501", 42);
	NUM(r, "train_samples_per_second", 83.713, "83.713", 42);
	NUM(r, "train_steps_per_second", 10.476, "10.476", 42);
	NUM(r, "train_loss", 0.3812028387026414, "0.3812028387026414", 42);
	NUM(r, "epoch", 3.0, "3.0", 42);
	NUM(r, "eval_runtime", 3.2003, "3.2003", 36);
	NUM(r, "eval_accuracy", 0.8553921568627451, "0.8553921568627451", 36);
}

/* A student's notes holding the closing blocks of four runs (the blocks
 * indented by zero to two spaces): every field is the fourth run's,
 * predict_* and best_* (P-tuning v2's "best metrics") too. */
static void hf_trainer_notes_with_four_summaries_give_the_last_run(void **state)
{
	(void)state;
	struct run *r =
		PARSE(CORPUS "hf-trainer/conll-prefix-tuning-four-summaries.md", "hf-trainer");
	NUM(r, "train_loss", 0.072, "0.072", 109);
	NUM(r, "train_runtime", 7279.09, "2:01:19.09", 110);
	NUM(r, "train_samples_per_second", 57.868, "57.868", 111);
	NUM(r, "train_steps_per_second", 1.809, "1.809", 112);
	NUM(r, "best_eval_f1", 0.9529, "0.9529", 115);
	NUM(r, "epoch", 30.0, "30.0", 120);
	NUM(r, "eval_f1", 0.9485, "0.9485", 122);
	NUM(r, "eval_runtime", 40.79, "0:00:40.79", 126);
	NUM(r, "predict_f1", 0.9117, "0.9117", 132);
	NUM(r, "predict_runtime", 42.87, "0:00:42.87", 136);
	MISSING(r, "total_optimization_steps");
}

static void hf_trainer_two_summaries_give_the_second_run(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "hf-trainer/copa-roberta-two-summaries.md", "hf-trainer");
	NUM(r, "train_loss", 0.2752, "0.2752", 26);
	NUM(r, "train_runtime", 1423.5, "0:23:43.50", 27);
	NUM(r, "best_eval_accuracy", 0.89, "0.89", 32);
	NUM(r, "eval_accuracy", 0.86, "0.86", 37);
	NUM(r, "eval_runtime", 1.85, "0:00:01.85", 39);
}

/* The TrainOutput that trainer.train() returns, printed by a README's
 * sample output: global_step, and its metrics dict's values. */
static void hf_trainer_reads_train_output(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "hf-trainer/bigdl-llm-trl-qlora-llama2-readme.md", "hf-trainer");
	NUM(r, "global_step", 200, "200", 46);
	NUM(r, "train_loss", 1.9101631927490235, "1.9101631927490235", 46);
	NUM(r, "epoch", 0.32, "0.32", 46);
}

/* mllog */

static void mllog_reads_events_and_last_values(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "mllog/resnet_closed.log", "mllog");
	const struct series *e = SERIES(r, "events", 133);
	COLUMNS(e, "key", "value", "time_ms");
	STR_CELL(e, 0, "key", "cache_clear", 1);
	STR_CELL(e, 0, "value", "true", 1);
	NUM_CELL(e, 0, "time_ms", 1712570400123, "1712570400123", 1);
	STR_CELL(e, 2, "value", "resnet", 3);
	MISSING_CELL(e, 1, "value");
	NUM(r, "eval_accuracy", 0.76194, "0.76194", 140);
	NUM(r, "global_batch_size", 3264, "3264", 8);
	NUM(r, "opt_base_learning_rate", 10.5, "10.5", 10);
	STR(r, "submission_benchmark", "resnet", 3);
	MISSING(r, "run_stop");
	NUM(r, "run_start_ms", 1712570493589, "1712570493589", 16);
	NUM(r, "run_stop_ms", 1712572313593, "1712572313593", 143);
	STR(r, "run_status", "success", 143);
	NUM(r, "time_to_train_s", 1820.004, NULL, 0);
}

/* MLPerf v0.5: ":::MLPv0.5.0 <benchmark> <seconds> (<file:line>) <key>:
 * <value>"; eval_accuracy is {"epoch": N, "value": X}. */
static void mllog_reads_the_v0_5_format(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "mllog/mlperf-v0.5-gnmt-tpuv3-8.txt", "mllog");
	NUM(r, "eval_target", 21.8, "21.8", 5);
	NUM(r, "input_batch_size", 2048, "2048", 50);
	STR(r, "model_hp_loss_fn", "Cross Entropy with label smoothing", 71);
	NUM(r, "eval_accuracy", 22.57, "22.57", 88);
	STR(r, "run_status", "success", 90);
	NUM(r, "run_start_s", 1544232771.436360359, "1544232771.436360359", 3);
	NUM(r, "run_stop_s", 1544234357.961570501, "1544234357.961570501", 90);
	/* The times are seconds: time_ms is missing, time_to_train_s
	 * is run_stop_s - run_start_s. */
	MISSING(r, "run_start_ms");
	NUM(r, "time_to_train_s", 1544234357.961570501 - 1544232771.436360359, NULL, 0);
	/* Every line names the benchmark: the first one. */
	STR(r, "submission_benchmark", "gnmt", 1);
	const struct series *v = SERIES(r, "eval", 2);
	NUM_CELL(v, 0, "value", 18.7, "18.7", 46);
	NUM_CELL(v, 1, "value", 22.57, "22.57", 88);
	const struct series *e = SERIES(r, "events", 91);
	STR_CELL(e, 0, "key", "run_clear_caches", 1);
	MISSING_CELL(e, 0, "value");
	MISSING_CELL(e, 0, "time_ms");
	STR_CELL(e, 1, "key", "preproc_vocab_size", 2);
	STR_CELL(e, 1, "value", "{\"tgt\": 32316, \"src\": 32316}", 2);
	STR_CELL(e, 90, "key", "run_final", 91);
}

/* MLPerf v0.6: ":::MLL <seconds> <key>: {"value": ..., "metadata": ...}",
 * no newline at the end. */
static void mllog_reads_the_v0_6_format(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "mllog/mlperf-v0.6-gnmt-tpu-v3-1024.txt", "mllog");
	STR(r, "submission_benchmark", "gnmt", 1);
	STR(r, "submission_platform", "tpu-v3-1024", 4);
	NUM(r, "global_batch_size", 8192, "8192", 7);
	NUM(r, "eval_accuracy", 24.19, "24.19", 61);
	STR(r, "run_status", "success", 64);
	NUM(r, "run_start_s", 1560229129.003, "1560229129.003", 20);
	NUM(r, "run_stop_s", 1560229256.421, "1560229256.421", 64);
	NUM(r, "time_to_train_s", 1560229256.421 - 1560229129.003, NULL, 0);
	const struct series *v = SERIES(r, "eval", 7);
	NUM_CELL(v, 0, "value", 12.59, "12.59", 25);
	NUM_CELL(v, 6, "value", 24.19, "24.19", 61);
	const struct series *e = SERIES(r, "events", 68);
	STR_CELL(e, 0, "key", "submission_benchmark", 1);
	STR_CELL(e, 0, "value", "gnmt", 1);
	MISSING_CELL(e, 0, "time_ms");
}

/* v3.1: the lines that echo earlier events after "Processing " are not
 * events. */
static void mllog_processing_echoes_are_not_events(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "mllog/mlperf-v3.1-gpt3-tpu-v5e-pax.txt", "mllog");
	const struct series *e = SERIES(r, "events", 36);
	STR_CELL(e, 35, "key", "train_samples", 36);
	NUM(r, "eval_accuracy", 2.6897943019866943, "2.6897943019866943", 34);
	NUM(r, "time_to_train_s", 2668.313, NULL, 0);
	const struct series *v = SERIES(r, "eval", 3);
	NUM_CELL(v, 0, "value", 2.7513163089752197, "2.7513163089752197", 29);
}

/* v4.0 with CRLF line ends: tracked_stats {"throughput": X} and a run_stop
 * whose value is the final accuracy. */
static void mllog_reads_tracked_stats_throughput(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "mllog/mlperf-v4.0-llama2-70b-lora-asus.txt", "mllog");
	NUM(r, "tracked_stats.throughput", 1.954853089236669, "1.954853089236669", 47);
	NUM(r, "eval_accuracy", 0.9232596755027771, "0.9232596755027771", 50);
	NUM(r, "run_stop_ms", 1715850093688, "1715850093688", 52);
	STR(r, "run_status", "success", 52);
	NUM(r, "time_to_train_s", 1773.263, NULL, 0);
	const struct series *v = SERIES(r, "eval", 5);
	NUM_CELL(v, 4, "value", 0.9232596755027771, "0.9232596755027771", 50);
	/* NVIDIA's v1.0 ResNet writes {"imgs_sec": X}. */
	r = PARSE(CORPUS "mllog/mlperf-v1.0-resnet-nvidia-dgxa100-mxnet.txt", "mllog");
	NUM(r, "tracked_stats.imgs_sec", 26698.847987314937, "26698.847987314937", 14);
	MISSING(r, "tracked_stats.throughput");
}

/* keyvalue */

static void keyvalue_reads_a_hand_copied_file(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "keyvalue/profile_numbers.txt", "keyvalue");
	NUM(r, "batch_size", 3000, "3000", 4);
	NUM(r, "tiledmatmul_share_of_kernel_time_pct", 80.5, "80.5", 9);
	NUM(r, "tiledmatmul_time_us", 446, "446", 10);
	NUM(r, "htod_memcpy_time_us", 382, "382", 12);
	NUM(r, "mpi_allreduce_bytes", 3256400, "3256400", 17);
}

static void keyvalue_reads_equals_and_percent(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "keyvalue/bench_summary.txt", "keyvalue");
	NUM(r, "copy_gbs", 1401.2, "1401.2", 4);
	NUM(r, "peak_fraction", 87.3, "87.3%", 7);
	NUM(r, "time_s", 0.0869, "0.0869", 9);
}

/* json, yaml, csv */

static void json_results_by_extension(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "json/metis_vs_sophia_results.json", "json");
	STR(r, "benchmark", "metis_vs_sophia", 2);
	NUM(r, "summary.metis.mean_latency_s", 4.987, "4.987", 210);
	const struct series *s = SERIES(r, "metis", 10);
	/* a cell's line is its field's: five lines below the record's '{' */
	assert_int_equal(series_row_line(s, 0), 22);
	NUM_CELL(s, 0, "latency_s", 5.089, "5.089", 27);
}

static void yaml_results_by_extension(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "yaml/stream_results.yaml", "yaml");
	STR(r, "host", "sophia-gpu-07", 3);
	NUM(r, "summary.triad_gbs", 1433.1, "1433.1", 7);
	NUM(r, "summary.efficiency", 87.3, "87.3%", 8);
	const struct series *s = SERIES(r, "runs", 3);
	assert_int_equal(series_row_line(s, 1), 13);
	NUM_CELL(s, 1, "triad_gbs", 96.4, "96.4", 14);
	MISSING_CELL(s, 2, "triad_gbs");
}

static void csv_results_by_extension(void **state)
{
	(void)state;
	struct run *r = PARSE(FIX "csv/llama7b_sweep.csv", "csv");
	const struct series *s = SERIES(r, "rows", 4);
	COLUMNS(s, "batch_size", "avg_rate_samples_per_s");
	NUM_CELL(s, 0, "batch_size", 256, "256", 2);
	NUM_CELL(s, 3, "final_loss", 5.96367, "5.96367", 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(every_builtin_loads, free_current),
		cmocka_unit_test_teardown(every_fixture_is_claimed_by_its_folders_parser, free_current),
		cmocka_unit_test_teardown(content_logs_are_claimed_by_the_right_parser, free_current),
		cmocka_unit_test_teardown(cerebras_bs512_gives_every_guaranteed_name, free_current),
		cmocka_unit_test_teardown(cerebras_reads_the_validation_loop_and_its_metrics, free_current),
		cmocka_unit_test_teardown(cerebras_bs2048_starts_midway_without_a_batch_size, free_current),
		cmocka_unit_test_teardown(cerebras_partial_log_has_a_step_without_rates, free_current),
		cmocka_unit_test_teardown(cerebras_reads_xla_and_training_complete, free_current),
		cmocka_unit_test_teardown(cerebras_reads_training_samples_wording, free_current),
		cmocka_unit_test_teardown(cerebras_cut_lines_keep_only_whole_numbers, free_current),
		cmocka_unit_test_teardown(cerebras_reads_a_lone_processed_line, free_current),
		cmocka_unit_test_teardown(sambanova_makes_every_name_number_line_a_field, free_current),
		cmocka_unit_test_teardown(
			sambanova_reads_the_result_dictionary_bare_and_after_a_logger_prefix,
			free_current),
		cmocka_unit_test_teardown(
			sambanova_log_that_ends_in_slurm_messages_is_sambanova_with_the_slurm_facts,
			free_current),
		cmocka_unit_test_teardown(sambanova_step_lines_become_the_train_series, free_current),
		cmocka_unit_test_teardown(sambanova_reads_the_model_zoo_summaries, free_current),
		cmocka_unit_test_teardown(sambanova_reads_the_performance_summaries, free_current),
		cmocka_unit_test_teardown(sambanova_perf_lines_of_every_instance_are_the_perf_series,
			free_current),
		cmocka_unit_test_teardown(
			sambanova_notes_with_two_runs_and_a_job_named_by_its_output_file, free_current),
		cmocka_unit_test_teardown(
			sambanova_reads_the_compiler_the_workers_tests_and_the_error, free_current),
		cmocka_unit_test_teardown(sambanova_knows_the_runtime_lines_and_a_test_per_epoch,
					  free_current),
		cmocka_unit_test_teardown(sambanova_reads_the_sbatch_wrapper, free_current),
		cmocka_unit_test_teardown(poptorch_reads_accuracy_and_tqdm_bars, free_current),
		cmocka_unit_test_teardown(poptorch_epochs_is_what_the_bar_counted, free_current),
		cmocka_unit_test_teardown(poptorch_ipu_failure_keeps_the_error, free_current),
		cmocka_unit_test_teardown(poptorch_run_after_slurm_errors_is_poptorch, free_current),
		cmocka_unit_test_teardown(poptorch_reads_glued_bars, free_current),
		cmocka_unit_test_teardown(poptorch_reads_the_examples_utils_benchmark_summary, free_current),
		cmocka_unit_test_teardown(poptorch_benchmark_compile_time_error_is_missing, free_current),
		cmocka_unit_test_teardown(poptorch_reads_bert_pretraining_metrics, free_current),
		cmocka_unit_test_teardown(poptorch_two_runs_give_the_last_runs_results, free_current),
		cmocka_unit_test_teardown(groq_seq128_results_table, free_current),
		cmocka_unit_test_teardown(groq_seq512_results_table, free_current),
		cmocka_unit_test_teardown(groq_table_ends_at_its_border, free_current),
		cmocka_unit_test_teardown(groq_score_column_is_named_by_the_proof_point, free_current),
		cmocka_unit_test_teardown(groq_build_name_from_the_cache_or_the_build, free_current),
		cmocka_unit_test_teardown(groq_reads_indented_and_unfenced_tables, free_current),
		cmocka_unit_test_teardown(groq_wrapped_tables_are_joined, free_current),
		cmocka_unit_test_teardown(groq_wrapped_row_missing_a_piece_is_left_out_with_a_warning,
					  free_current),
		cmocka_unit_test_teardown(groq_lone_piece_of_a_wrapped_row_is_left_out_with_a_warning,
					  free_current),
		cmocka_unit_test_teardown(gtest_single_precision_passes_7, free_current),
		cmocka_unit_test_teardown(gtest_double_precision_passes_7, free_current),
		cmocka_unit_test_teardown(gtest_failing_run_lists_failures, free_current),
		cmocka_unit_test_teardown(gtest_failure_message_of_several_lines, free_current),
		cmocka_unit_test_teardown(gtest_clean_output, free_current),
		cmocka_unit_test_teardown(gtest_adds_up_the_runs_of_a_ctest_log, free_current),
		cmocka_unit_test_teardown(slurm_reads_a_job_that_never_started, free_current),
		cmocka_unit_test_teardown(slurm_reads_a_time_limit, free_current),
		cmocka_unit_test_teardown(slurm_keeps_the_first_job_of_several_and_lists_them_all,
					  free_current),
		cmocka_unit_test_teardown(slurm_time_limit_gives_the_reason_and_timeout, free_current),
		cmocka_unit_test_teardown(slurm_reads_oom_kill_notices, free_current),
		cmocka_unit_test_teardown(slurm_reads_a_refused_submission, free_current),
		cmocka_unit_test_teardown(slurm_reads_the_batch_scripts_own_errors, free_current),
		cmocka_unit_test_teardown(slurm_reads_sacct_tables, free_current),
		cmocka_unit_test_teardown(nsys_reads_kernel_and_memcpy_summaries, free_current),
		cmocka_unit_test_teardown(nsys_2019_5_tables_are_read_by_their_titles, free_current),
		cmocka_unit_test_teardown(nsys_executing_reports_are_picked_by_their_report_name, free_current),
		cmocka_unit_test_teardown(nsys_running_reports_are_picked_by_their_script, free_current),
		cmocka_unit_test_teardown(nvprof_summary_splits_kernels_memops_and_api_calls, free_current),
		cmocka_unit_test_teardown(nvprof_memcpy_rows_before_the_kernel, free_current),
		cmocka_unit_test_teardown(nvprof_unified_memory_table_is_left_out, free_current),
		cmocka_unit_test_teardown(hf_trainer_reads_dicts_and_metrics_blocks, free_current),
		cmocka_unit_test_teardown(hf_trainer_without_metric_blocks_reads_the_dicts, free_current),
		cmocka_unit_test_teardown(hf_trainer_notes_with_four_summaries_give_the_last_run, free_current),
		cmocka_unit_test_teardown(hf_trainer_two_summaries_give_the_second_run, free_current),
		cmocka_unit_test_teardown(hf_trainer_reads_train_output, free_current),
		cmocka_unit_test_teardown(mllog_reads_events_and_last_values, free_current),
		cmocka_unit_test_teardown(mllog_reads_the_v0_5_format, free_current),
		cmocka_unit_test_teardown(mllog_reads_the_v0_6_format, free_current),
		cmocka_unit_test_teardown(mllog_processing_echoes_are_not_events, free_current),
		cmocka_unit_test_teardown(mllog_reads_tracked_stats_throughput, free_current),
		cmocka_unit_test_teardown(keyvalue_reads_a_hand_copied_file, free_current),
		cmocka_unit_test_teardown(keyvalue_reads_equals_and_percent, free_current),
		cmocka_unit_test_teardown(json_results_by_extension, free_current),
		cmocka_unit_test_teardown(yaml_results_by_extension, free_current),
		cmocka_unit_test_teardown(csv_results_by_extension, free_current),
	};
	return cmocka_run_group_tests(tests, load_builtins, free_builtins);
}
