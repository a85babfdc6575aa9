/* test_train_parsers.c: the built-in training-log parsers (keras,
 * lightning, megatron, deepspeed, nanogpt, torchrun, hf-trainer-state) on
 * real published output: the corpus files (tests/corpus/<kind>/, whose
 * SOURCES say where each came from) and lines copied from published logs
 * into small files, for what the corpus does not show (carriage-return
 * redraws, older formats, several failed ranks).  The values asserted are
 * the texts and line numbers a user sees.  The tests run from the
 * repository's root. */
#define _XOPEN_SOURCE 700 /* nftw() */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/diag.h"
#include "base/util.h"
#include "parse/logparse.h"
#include "data/run.h"
#include "capture.h"

#define TMPDIR_TAG "trainparsers"
#include "tmpdirs.h"

#define CORPUS "tests/corpus/"

#include "builtincheck.h"

/* A file of the given text in a fresh folder; the caller frees the
 * path and drops the folder. */
static char *write_log(char **dir, const char *name, const char *text)
{
	*dir = make_tmpdir();
	char *path = xasprintf("%s/%s", *dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	fclose(f);
	return path;
}

/* Keras: finished bars only, the epoch carried, every metric a field. */
static void keras_tf2_bars_give_one_row_per_finished_epoch(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "keras/mnist-convnet-tf2-keras-io.md", "keras");
	const struct series *s = SERIES(r, "epochs", 11);
	COLUMNS(s, "steps", "time", "step_time", "loss", "accuracy");
	NUM_CELL(s, 0, "epoch", 1, "1", 9);
	NUM_CELL(s, 0, "epochs", 15, "15", 9);
	NUM_CELL(s, 0, "steps", 422, "422", 9);
	NUM_CELL(s, 0, "time", 13, "13s", 9);
	NUM_CELL(s, 0, "step_time", 0.029, "29ms", 9);
	NUM_CELL(s, 0, "val_accuracy", 0.978, "0.9780", 9);
	MISSING_CELL(s, 0, "acc");
	NUM_CELL(s, 10, "epoch", 11, "11", 29);
	NUM_CELL(s, 10, "loss", 0.0406, "0.0406", 29);
	/* Epoch 12 stopped at 237/422 ("ETA: 7s"): no row, and its numbers
	 * are not the last epoch's. */
	NUM(r, "loss", 0.0406, "0.0406", 29);
	NUM(r, "val_accuracy", 0.992, "0.9920", 29);
	NUM(r, "total_params", 34826, "34,826", 2);
	MISSING(r, "stopped_epoch");
}

static void keras3_bars_and_custom_metrics(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "keras/mnist-moe-keras3-keras-io.md", "keras");
	const struct series *s = SERIES(r, "epochs", 1);
	NUM_CELL(s, 0, "epoch", 1, "1", 48);
	NUM_CELL(s, 0, "time", 9, "9s", 48);
	NUM_CELL(s, 0, "step_time", 0.018, "18ms", 48);
	NUM_CELL(s, 0, "accuracy", 0.7956, "0.7956", 48);
	MISSING_CELL(s, 0, "val_accuracy");
	/* moe_loss is no column: it is a field of the last finished bar. */
	NUM(r, "moe_loss", 1204.5302, "1204.5302", 48);
	NUM(r, "val_moe_loss", 2798.7275, "2798.7275", 48);
}

/* A terminal's log: each bar redrawn with carriage returns is read as its
 * last redraw (lines of keras-io's MNIST example, as a terminal writes
 * them); a closing model.evaluate() bar is a row too. */
static void keras_redrawn_bars_read_as_their_last_redraw(void **state)
{
	(void)state;
	char *dir;
	char *path = write_log(&dir, "fit.log",
		"Epoch 1/15\n"
		" 50/422 [==>...........................] - ETA: 11s - loss: 1.9810 - accuracy: 0.3634\r"
		"422/422 [==============================] - 13s 29ms/step - loss: 0.7840 - accuracy: 0.7643 - val_loss: 0.0780 - val_accuracy: 0.9780\n"
		"Epoch 2/15\n"
		"422/422 [==============================] - 13s 31ms/step - loss: 0.1199 - accuracy: 0.9639 - val_loss: 0.0559 - val_accuracy: 0.9843\n"
		"313/313 [==============================] - 1s 2ms/step - loss: 0.0240 - accuracy: 0.9922\n");
	struct run *r = PARSE(path, "keras");
	const struct series *s = SERIES(r, "epochs", 3);
	NUM_CELL(s, 0, "loss", 0.784, "0.7840", 2);
	NUM_CELL(s, 1, "epoch", 2, "2", 4);
	NUM_CELL(s, 2, "epoch", 2, "2", 5);
	NUM_CELL(s, 2, "steps", 313, "313", 5);
	MISSING_CELL(s, 2, "val_loss");
	free(path);
	drop_tmpdir(dir);
}

static void lightning_widget_bar_summary_and_tables(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "lightning/cifar10-resnet-era-s12-readme.md", "lightning");
	const struct series *s = SERIES(r, "epochs", 1);
	NUM_CELL(s, 0, "epoch", 23, "23", 6);
	NUM_CELL(s, 0, "steps", 98, "98", 6);
	NUM_CELL(s, 0, "time", 20, "00:20", 6);
	NUM_CELL(s, 0, "rate", 4.86, "4.86it/s", 6);
	NUM(r, "acc_val", 91.8, "91.80", 6);
	NUM(r, "max_epochs", 24, "24", 7);
	/* trainer.test()'s table under a box-drawing rule */
	const struct series *t = SERIES(r, "test", 2);
	STR_CELL(t, 0, "metric", "acc/val", 18);
	NUM_CELL(t, 1, "dataloader_0", 0.307132363319397, "0.307132363319397", 19);

	r = PARSE(CORPUS "lightning/cifar10-resnet-era-s12-summary-checkpoints.md", "lightning");
	NUM(r, "trainable_params", 6.6, "6.6 M", 18);
	NUM(r, "non_trainable_params", 0, "0", 19);
	s = SERIES(r, "checkpoints", 4);
	STR_CELL(s, 3, "monitor", "val_loss", 36);
	NUM_CELL(s, 3, "value", 0.3167, "0.31670", 36);
	NUM_CELL(SERIES(r, "validate", 2), 0, "dataloader_0", 0.897599995136261,
		 "0.897599995136261", 65);
}

/* A terminal's Lightning bar, one line an epoch (lines of a published
 * MACE run's bar, shortened to its first metrics). */
static void lightning_terminal_bar_is_a_row_with_its_epoch(void **state)
{
	(void)state;
	char *dir;
	char *path = write_log(&dir, "fit.log",
		"Epoch 0:  46%|████▌     | 75/163 [00:18<00:21,  4.10it/s, v_num=1]\r"
		"Epoch 0: 100%|██████████| 163/163 [00:39<00:00,  4.16it/s, v_num=1, val_loss=0.815, train_loss=21.60]\n"
		"`Trainer.fit` stopped: `max_epochs=1` reached.\n");
	struct run *r = PARSE(path, "lightning");
	const struct series *s = SERIES(r, "epochs", 1);
	NUM_CELL(s, 0, "epoch", 0, "0", 1);
	NUM_CELL(s, 0, "steps", 163, "163", 1);
	NUM_CELL(s, 0, "val_loss", 0.815, "0.815", 1);
	NUM_CELL(s, 0, "train_loss", 21.6, "21.60", 1);
	NUM_CELL(s, 0, "v_num", 1, "1", 1);
	NUM(r, "max_epochs", 1, "1", 2);
	free(path);
	drop_tmpdir(dir);
}

static void megatron_iterations_validation_and_every_key(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "megatron/tr8-104b-chronicles-glitch.md", "megatron");
	const struct series *s = SERIES(r, "iterations", 3);
	NUM_CELL(s, 1, "iteration", 7010, "7010", 8);
	NUM_CELL(s, 1, "lm_loss", 11.42026, "1.142026E+01", 8);
	NUM_CELL(s, 1, "iteration_time_ms", 19904, "19904.0", 8);
	MISSING_CELL(s, 1, "iteration_time_s");
	NUM(r, "grad_norm", 16921.991, "16921.991", 10);
	NUM(r, "number_of_skipped_iterations", 0, "0", 10);
	NUM(r, "val_lm_loss_ppl", 1305.315, "1.305315E+03", 6);
	/* A newer Megatron-LM line: a timestamp first, throughput per GPU */
	char *dir;
	char *path = write_log(&dir, "train.log",
		" [2025-08-01 07:19:37] iteration        1/    5000 | consumed samples:          128 | elapsed time per iteration (ms): 19138.8 | throughput per GPU (TFLOP/s/GPU): 80.2 | learning rate: 6.976744E-08 | global batch size:   128 | lm loss: 1.043863E+01 | loss scale: 1.0 | grad norm: 26.203 | number of skipped iterations:   0 | number of nan iterations:   0 |\n");
	r = PARSE(path, "megatron");
	s = SERIES(r, "iterations", 1);
	NUM_CELL(s, 0, "throughput_tflops_per_gpu", 80.2, "80.2", 1);
	NUM_CELL(s, 0, "train_iters", 5000, "5000", 1);
	NUM(r, "throughput_per_gpu_tflop_s_gpu", 80.2, "80.2", 1);
	SERIES(r, "validation", 0);
	MISSING(r, "val_lm_loss");
	free(path);
	drop_tmpdir(dir);
}

static void deepspeed_steps_speed_and_overflows(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "deepspeed/hello-deepspeed-bert-amd00.log", "deepspeed");
	const struct series *s = SERIES(r, "steps", 4);
	NUM_CELL(s, 0, "skipped", 10, "10", 2);
	NUM_CELL(s, 0, "lr", 0.0001, "0.0001", 2);
	s = SERIES(r, "speed", 4);
	NUM_CELL(s, 3, "global_step", 40, "40", 19);
	NUM_CELL(s, 3, "curr_samples_per_sec", 141.28300869902063, "141.28300869902063", 19);
	NUM(r, "overflows", 8, NULL, 0);
	NUM(r, "final_step", 40, "40", 18);
	NUM(r, "max_mem_allocated_gb", 1.55, "1.55", 19);
	/* DeepSpeed 0.7's timer line (CSCS's tutorial) */
	char *dir;
	char *path = write_log(&dir, "ds.log",
		"[2022-08-29 06:58:56,121] [INFO] [logging.py:68:log_dist] [Rank 0] step=20, skipped=17, lr=[5e-05], mom=[(0.9, 0.999)]\n"
		"[2022-08-29 06:58:56,176] [INFO] [timer.py:198:stop] 0/20, RunningAvgSamplesPerSec=232.7340551694273, CurrSamplesPerSec=227.48090316379353, MemAllocated=0.36GB, MaxMemAllocated=15.06GB\n");
	r = PARSE(path, "deepspeed");
	s = SERIES(r, "speed", 1);
	NUM_CELL(s, 0, "global_step", 20, "20", 2);
	MISSING_CELL(s, 0, "micro_step");
	NUM_CELL(s, 0, "max_mem_allocated_gb", 15.06, "15.06", 2);
	NUM_CELL(SERIES(r, "steps", 1), 0, "lr", 5e-05, "5e-05", 1);
	free(path);
	drop_tmpdir(dir);
}

/* A Megatron-DeepSpeed log prints DeepSpeed's timer lines too: it is
 * megatron's, not claimed by both (lines of Argonne's Megatron-DeepSpeed
 * notes). */
static void megatron_deepspeed_log_is_megatrons(void **state)
{
	(void)state;
	char *dir;
	char *path = write_log(&dir, "train.log",
		"[2024-03-07 15:27:02,646] [INFO] [timer.py:260:stop] epoch=0/micro_step=199/global_step=199, RunningAvgSamplesPerSec=58.730622229657506, CurrSamplesPerSec=61.35304005128382, MemAllocated=6.01GB, MaxMemAllocated=19.52GB\n"
		"iteration      199/  317892 | consumed samples:       152832 | consumed tokens:    625999872 | elapsed time per iteration (ms): 14287.5 | learning rate: 2.407E-04 | global batch size:   768 | lm loss: 5.905366E+00 | loss scale: 8192.0 | actual seqlen:  4096 |\n");
	struct run *r = PARSE(path, "megatron");
	NUM_CELL(SERIES(r, "iterations", 1), 0, "consumed_tokens", 625999872, "625999872", 2);
	free(path);
	drop_tmpdir(dir);
}

static void nanogpt_iters_and_evals(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "nanogpt/shakespeare-char-m4.md", "nanogpt");
	const struct series *s = SERIES(r, "iters", 51);
	NUM_CELL(s, 0, "time_ms", 33197.22, "33197.22", 26);
	NUM_CELL(s, 0, "mfu", -100, "-100.00%", 26);
	NUM_CELL(s, 50, "loss", 2.3697, "2.3697", 86);
	MISSING_CELL(s, 50, "lr");
	NUM(r, "num_params", 10.65, "10.65M", 24);
	NUM(r, "best_val_loss", 2.3338, "2.3338", 84);
	/* a variant that prints lr and grad_norm before the time */
	char *dir;
	char *path = write_log(&dir, "train.log",
		"iter 0: loss 10.8160, grad_norm 2.0590, lr 0.00e+00, time 1155.0ms\n"
		"iter 10: loss 10.5924, grad_norm 2.0571, lr 6.00e-05, time 104.3ms\n"
		"step 100: train loss 6.5919, val loss 6.6791\n");
	r = PARSE(path, "nanogpt");
	s = SERIES(r, "iters", 2);
	NUM_CELL(s, 1, "grad_norm", 2.0571, "2.0571", 2);
	NUM_CELL(s, 1, "lr", 6e-05, "6.00e-05", 2);
	NUM_CELL(s, 1, "time_ms", 104.3, "104.3", 2);
	MISSING_CELL(s, 1, "mfu");
	NUM(r, "final_val_loss", 6.6791, "6.6791", 3);
	free(path);
	drop_tmpdir(dir);
}

static void torchrun_root_cause_is_the_runs_error(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "torchrun/llama2-mac-no-nccl.md", "torchrun");
	STR(r, "error", "RuntimeError: Distributed package doesn't have NCCL built in", 26);
	STR(r, "failed_script", "example_text_completion.py", 44);
	NUM(r, "exit_code", 1, "1", 54);
	MISSING(r, "signal");
	/* Several failed ranks: the root cause is the last block (lines of a
	 * published Stampede3 report); a killed worker's signal; an NCCL
	 * error behind it. */
	char *dir;
	char *path = write_log(&dir, "job.err",
		"[rank2]: RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.11.4\n"
		"[rank2]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
		"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
		"============================================================\n"
		"train.py FAILED\n"
		"------------------------------------------------------------\n"
		"Failures:\n"
		"[1]:\n"
		"  time      : 2026-06-08_19:04:45\n"
		"  host      : c561-007.stampede3.tacc.utexas.edu\n"
		"  rank      : 2 (local_rank: 2)\n"
		"  exitcode  : 1 (pid: 102932)\n"
		"  error_file: <N/A>\n"
		"  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
		"------------------------------------------------------------\n"
		"Root Cause (first observed failure):\n"
		"[0]:\n"
		"  time      : 2023-08-01_01:06:47\n"
		"  host      : r1n2a6000bittensor\n"
		"  rank      : 4 (local_rank: 4)\n"
		"  exitcode  : -9 (pid: 208585)\n"
		"  error_file: <N/A>\n"
		"  traceback : Signal 9 (SIGKILL) received by PID 208585\n"
		"============================================================\n");
	r = PARSE(path, "torchrun");
	STR(r, "error", "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, unhandled system error, NCCL version 2.11.4", 1);
	STR(r, "nccl_error", "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.", 2);
	NUM(r, "failed_rank", 4, "4", 20);
	NUM(r, "exit_code", -9, "-9", 21);
	STR(r, "signal", "SIGKILL", 23);
	STR(r, "host", "r1n2a6000bittensor", 19);
	free(path);
	drop_tmpdir(dir);
}

/* The launcher's own line, as torch 2.0, 2.2 and 2.4 print it, gives the
 * exit code when the report is not in the file (published lines). */
static void torchrun_launcher_line_gives_the_exit_code(void **state)
{
	(void)state;
	static const char *const lines[] = {
		"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 15855) of binary: /pfs/lustrep4/users/nouatazi/projects/venv/bin/python\n",
		"[2024-03-26 16:50:50,123] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 0 (pid: 11127) of binary: /home/yan/anaconda3/envs/llama2/bin/python\n",
		"E0813 08:21:22.980000 1245483 torch/distributed/elastic/multiprocessing/api.py:984] failed (exitcode: -6) local_rank: 6 (pid: 1246013) of binary: /home/hychen/min_fa3_demo/.venv/bin/python3\n",
	};
	static const double codes[] = {1, -9, -6};
	static const char *const texts[] = {"1", "-9", "-6"};
	for (size_t i = 0; i < 3; i++) {
		char *dir;
		char *path = write_log(&dir, "job.err", lines[i]);
		struct run *r = PARSE(path, "torchrun");
		NUM(r, "exit_code", codes[i], texts[i], 1);
		MISSING(r, "failed_rank");
		free(path);
		drop_tmpdir(dir);
	}
}

static void hf_trainer_state_is_read_as_json(void **state)
{
	(void)state;
	struct run *r = PARSE(CORPUS "hf-trainer-state/lora-imdb-distilbert-trainer-state.json",
			      "hf-trainer-state");
	NUM(r, "global_step", 375, "375", 7);
	const struct series *s = SERIES(r, "log_history", 21);
	COLUMNS(s, "epoch", "grad_norm", "learning_rate", "loss", "step", "eval_loss");
	MISSING_CELL(s, 6, "loss");
	/* a cell is at its field's line */
	NUM_CELL(s, 6, "eval_loss", 0.3951033353805542, "0.3951033353805542", 56);
	/* no closing row in this state: no train_runtime column, and no
	 * error for it */
	assert_int_equal(series_column_index(s, "train_runtime"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(keras_tf2_bars_give_one_row_per_finished_epoch, free_current),
		cmocka_unit_test_teardown(keras3_bars_and_custom_metrics, free_current),
		cmocka_unit_test_teardown(keras_redrawn_bars_read_as_their_last_redraw, free_current),
		cmocka_unit_test_teardown(lightning_widget_bar_summary_and_tables, free_current),
		cmocka_unit_test_teardown(lightning_terminal_bar_is_a_row_with_its_epoch, free_current),
		cmocka_unit_test_teardown(megatron_iterations_validation_and_every_key, free_current),
		cmocka_unit_test_teardown(deepspeed_steps_speed_and_overflows, free_current),
		cmocka_unit_test_teardown(megatron_deepspeed_log_is_megatrons, free_current),
		cmocka_unit_test_teardown(nanogpt_iters_and_evals, free_current),
		cmocka_unit_test_teardown(torchrun_root_cause_is_the_runs_error, free_current),
		cmocka_unit_test_teardown(torchrun_launcher_line_gives_the_exit_code, free_current),
		cmocka_unit_test_teardown(hf_trainer_state_is_read_as_json, free_current),
	};
	int failed = cmocka_run_group_tests(tests, load_builtins, free_builtins);
	drop_leftovers(NULL);
	return failed;
}
