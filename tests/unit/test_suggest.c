/* test_suggest.c: `logdown parse --suggest`'s miner and writer
 * (parse/suggest.h): the tokeniser, the typing of slots, the names from
 * the words next to a number, the escaping of patterns and YAML, the
 * clear messages of files it cannot read, that a proposal loads back
 * as a parser that reads the file, and determinism. */
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
#include "parse/suggest.h"
#include "capture.h"

#define TMPDIR_TAG "suggest"
#include "tmpdirs.h"

/* The kinds of the tokens of s, one letter each: W N D T _ P. */
static const char *kinds(const char *s, char *out)
{
	struct sg_tok t[64];
	size_t n = suggest_tokenise(s, strlen(s), t, 64);
	assert_true(n < 64);
	for (size_t i = 0; i < n; i++)
		out[i] = "WNDT_P"[t[i].kind];
	out[n] = '\0';
	return out;
}

static void tokens_are_words_numbers_durations_timestamps(void **state)
{
	(void)state;
	char k[64];
	assert_string_equal(kinds("Step=100, Loss=2.3", k), "WPNP_WPN");
	assert_string_equal(kinds("loss: -0.31 - acc: 1e-3", k), "WP_N_P_WP_N");
	assert_string_equal(kinds("took 01:49 and 1:02:03.5", k), "W_D_W_D");
	assert_string_equal(kinds("2024-03-30 14:09:43,663 INFO: x", k), "T_WP_W");
	assert_string_equal(kinds("2024-04-08T09:03:33.195878Z done", k), "T_W");
	/* a unit glued to a number is a word of its own; a name with
	 * digits is one word; a range's '-' is not a sign */
	assert_string_equal(kinds("3s 1ms/step fc1 1-5", k), "NW_NWPW_W_NPN");
	assert_string_equal(kinds("1,234,567.5 items", k), "N_W");
	assert_string_equal(kinds("=====>....", k), "PPP");
}

/* The names of s's slots, joined by spaces. */
static char *names(const char *s)
{
	char **v = suggest_names(s, strlen(s));
	struct buf b = BUF_INIT;
	for (size_t i = 0; v[i]; i++)
		buf_printf(&b, "%s%s", i ? " " : "", v[i]);
	strv_free(v);
	return buf_detach(&b);
}

#define assert_names(line, want)                                                         \
	do {                                                                             \
		char *got_ = names(line);                                                \
		assert_string_equal(got_, want);                                         \
		free(got_);                                                              \
	} while (0)

static char *suggest(const char *text, char **err);

static void slots_are_named_from_the_words_next_to_them(void **state)
{
	(void)state;
	assert_names("Step=100, Loss=2.3", "step loss");
	assert_names("loss: 0.31 - accuracy: 0.91", "loss accuracy");
	assert_names("Processed 512000 sample(s) in 175.07 seconds.", "processed_samples seconds");
	assert_names("Epoch [1/10], Step [10/60], Loss: 0.47", "epoch epochs step steps loss");
	assert_names("| Train Device=CSX, Step=100, GlobalRate=2937.77 samples/sec",
		     "step global_rate");
	assert_names("Mean TTFT (ms): 12.5", "mean_ttft_ms");
	assert_names("epoch 3 loss 0.5 acc 0.9", "epoch loss acc");
	assert_names("it=100 | lossy 2.3", "it lossy");
	assert_names("Test Accuracy: 91.54%", "test_accuracy");
	/* a timestamp is time; a number with no word by it says so, and
	 * two of one name in a line are told apart */
	assert_names("2024-03-30 14:09:43 12 x 7", "time number x");
	assert_names("loss=1 loss=2", "loss loss_2");
	/* a key in a pipe table's first cell (Stable-Baselines3) */
	assert_names("|    ep_rew_mean     | 1.43     |", "ep_rew_mean");
}

static void numbers_under_a_header_take_its_cells(void **state)
{
	(void)state;
	char *err;
	char *y = suggest("Step Temp E_pair Press\n0 2.4 -6.7 5.1\n100 1.1 -5.9 0.3\n"
			  "Loop time of 1.5 on 4 procs\n", &err);
	assert_non_null(y);
	assert_non_null(strstr(y, "  step: '^(?<step>[-+]?\\d+"));
	assert_non_null(strstr(y, "\\s+(?<e_pair>[-+]?\\d+"));
	free(y);
	free(err);
}

static void a_unit_glued_to_a_number_is_in_its_text(void **state)
{
	(void)state;
	char *err;
	char *y = suggest("Latency:\n  avg: 4.61ms\n  max: 7.85ms\n  bw: 18.8MiB/s\n", &err);
	assert_non_null(y);
	assert_non_null(strstr(y, "  avg: '^avg:\\s+([-+]?\\d+(?:,\\d{3})*(?:\\.\\d+)?(?:[eE][-+]?\\d+)?ms)\\s*$'\n"));
	assert_non_null(strstr(y, "?MiB/s)\\s*$'\n"));
	free(y);
	free(err);
}

static void patterns_and_yaml_are_escaped(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	suggest_put_literal(&b, "a.b*c+(d)[e]{f}|g?^$\\", 21);
	assert_string_equal(buf_data(&b), "a\\.b\\*c\\+\\(d\\)\\[e\\]\\{f\\}\\|g\\?\\^\\$\\\\");
	buf_clear(&b);
	suggest_put_literal(&b, "\x01\xff\xc3\xa9", 4);
	assert_string_equal(buf_data(&b), "\\x01\\xFF\xc3\xa9");
	buf_clear(&b);
	/* U+0096 and U+FFFF are UTF-8, but YAML takes neither: bytes */
	suggest_put_literal(&b, "\xe2\x96\x88\xc2\x96\xef\xbf\xbf", 8);
	assert_string_equal(buf_data(&b), "\xe2\x96\x88\\xC2\\x96\\xEF\\xBF\\xBF");
	buf_clear(&b);
	suggest_put_quoted(&b, "it's");
	assert_string_equal(buf_data(&b), "'it''s'");
	buf_free(&b);
}

/* The suggestion for text, or NULL with the error in *err. */
static char *suggest(const char *text, char **err)
{
	struct capture c;
	cap_open(&c);
	struct suggestion sg;
	bool ok = suggest_text(text, strlen(text), "x.log", "x", NULL, &sg, c.d);
	*err = cap_take(&c);
	if (!ok)
		return NULL;
	char *y = xstrdup(sg.yaml);
	suggestion_free(&sg);
	return y;
}

static void files_it_cannot_read_get_a_clear_message(void **state)
{
	(void)state;
	char *err;
	assert_null(suggest("", &err));
	assert_string_equal(err, "x.log: error: the file is empty (or blank): --suggest needs a log to read\n");
	free(err);
	assert_null(suggest("Step=1, Loss=2\n", &err));
	assert_string_equal(err, "x.log: error: the file has one line: --suggest finds the templates "
				 "of a log's lines, and needs several; write a parser for it by "
				 "hand (docs/parsers.md)\n");
	free(err);
	assert_null(suggest("Step=1, Loss=2\nStep=1, Loss=2\nStep=1, Loss=2\n", &err));
	assert_string_equal(err, "x.log: error: every line of the file is the same line: there are "
				 "no values to extract\n");
	free(err);
	assert_null(suggest("hello\nworld\n", &err));
	assert_string_equal(err, "x.log: error: the file has no numbers: --suggest proposes fields "
				 "and series of numbers, and there are none here\n");
	free(err);
	struct capture c;
	cap_open(&c);
	struct suggestion sg;
	assert_false(suggest_text("a\nb\0c\n", 6, "x.log", "x", NULL, &sg, c.d));
	assert_string_equal(cap_text(&c), "x.log: error: a binary file (a NUL byte on line 2): "
					  "--suggest reads text logs\n");
	cap_close(&c);
}

/* A proposal tried as a user would: loaded as a parser and run over
 * the text it came from, written to x.log; neither says anything. */
struct tried {
	char *dir, *log;
	struct parser_set *set;
	struct run *r;
};

static void try_proposal(struct tried *t, const char *y, const char *text)
{
	t->dir = make_tmpdir();
	t->log = path_join(t->dir, "x.log");
	FILE *f = fopen(t->log, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	struct capture c;
	cap_open(&c);
	t->set = parsers_new();
	assert_true(parsers_add(t->set, "x.yaml", y, strlen(y), false, c.d));
	t->r = parser_run(parsers_at(t->set, 0), t->log, "x.log", "x", c.d);
	assert_non_null(t->r);
	assert_string_equal(cap_text(&c), "");
	cap_close(&c);
}

static void tried_free(struct tried *t)
{
	run_free(t->r);
	parsers_free(t->set);
	free(t->log);
	drop_tmpdir(t->dir);
}

static const char train_log[] = "using 4 GPUs\n"
				"Step=100, Loss=2.3\n"
				"Step=200, Loss=2.1\n"
				"Step=300, Loss=1.9\n"
				"Processed 512000 sample(s) in 175.07 seconds.\n";

static void a_proposal_loads_and_reads_the_file(void **state)
{
	(void)state;
	char *err;
	char *y = suggest(train_log, &err);
	assert_non_null(y);
	assert_string_equal(err, "");
	free(err);
	assert_non_null(strstr(y, "name: 'x'\n"));
	assert_non_null(strstr(y, "  # line 5: Processed 512000 sample(s) in 175.07 seconds.\n"
				  "  processed_samples: '^Processed\\s+([-+]?\\d+"));
	assert_non_null(strstr(y, "  # 3 rows, the first at line 2: Step=100, Loss=2.3\n"
				  "  step: '^Step=(?<step>"));
	assert_non_null(strstr(y, "detect: '(?m)^"));

	struct tried t;
	try_proposal(&t, y, train_log);
	const struct run *r = t.r;
	const struct datum *samples = run_field(r, "processed_samples");
	assert_non_null(samples);
	assert_int_equal(samples->kind, DATUM_NUMBER);
	assert_true(samples->num == 512000);
	const struct datum *secs = run_field(r, "seconds");
	assert_non_null(secs);
	assert_true(secs->num == 175.07);
	const struct series *s = run_series(r, "step");
	assert_non_null(s);
	assert_int_equal(series_row_count(s), 3);
	/* detect claims the file */
	struct capture c;
	cap_open(&c);
	const struct parser *p = parsers_detect(t.set, t.log, loc_line("x.log", 0), c.d);
	assert_non_null(p);
	cap_close(&c);
	tried_free(&t);
	free(y);
}

/* A tqdm bar whose block lost a byte in the log (U+0096, a C1 control
 * character, where U+2588 was): the pattern and the comment quoting the
 * line keep YAML's characters, the proposal loads and reads the line.
 * Found by fuzz_suggest. */
static void a_c1_control_character_in_a_line_is_escaped(void **state)
{
	(void)state;
	static const char log_text[] = "Nen: 40%|\xe2\x96\x88\xc2\x96| 4/10\n"
				       "Nen: 70%|\xe2\x96\x88\xc2\x96| 7/10\n"
				       "Nen: 90%|\xe2\x96\x88\xc2\x96| 9/10\n";
	char *err;
	char *y = suggest(log_text, &err);
	assert_non_null(y);
	assert_string_equal(err, "");
	free(err);
	assert_non_null(strstr(y, "  # 3 rows, the first at line 1: Nen: 40%|\xe2\x96\x88?| 4/10\n"));
	assert_non_null(strstr(y, "%\\|\xe2\x96\x88\\xC2\\x96\\|"));
	assert_null(strstr(y, "\xc2\x96"));
	struct tried t;
	try_proposal(&t, y, log_text);
	assert_int_equal(run_series_count(t.r), 1);
	assert_int_equal(series_row_count(run_series_at(t.r, 0)), 3);
	tried_free(&t);
	free(y);
}

/* A series' columns, joined by spaces. */
static char *columns_of(const struct series *s)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < series_column_count(s); i++)
		buf_printf(&b, "%s%s", i ? " " : "", series_column(s, i));
	return buf_detach(&b);
}

static const char phase_log[] = "Epoch 1 phase=train loss=0.47\n"
				"Epoch 1 phase=val loss=0.58\n"
				"Epoch 2 phase=train loss=0.44\n"
				"Epoch 2 phase=val loss=0.56\n"
				"Epoch 3 phase=train loss=0.41\n"
				"Epoch 3 phase=val loss=0.54\n";

static void lines_that_differ_in_a_word_are_one_series_with_a_word_slot(void **state)
{
	(void)state;
	char *err;
	char *y = suggest(phase_log, &err);
	assert_non_null(y);
	assert_string_equal(err, "");
	free(err);
	/* one series, its word slot named by its key, its words shown */
	assert_non_null(strstr(y, "series:\n"
				  "  # 6 rows, the first at line 1: Epoch 1 phase=train loss=0.47\n"
				  "  #   phase: train, val\n"
				  "  epoch: '^Epoch\\s+(?<epoch>[-+]?\\d+(?:,\\d{3})*(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)"
				  "\\s+phase=(?<phase>\\S+)\\s+loss=(?<loss>"));
	assert_null(strstr(y, "epoch_2"));

	struct tried t;
	try_proposal(&t, y, phase_log);
	const struct series *s = run_series(t.r, "epoch");
	assert_non_null(s);
	assert_int_equal(series_row_count(s), 6);
	char *cols = columns_of(s);
	assert_string_equal(cols, "epoch phase loss");
	free(cols);
	tried_free(&t);
	free(y);

	/* a log level and a rank: named "level" and by the words' stem;
	 * a WARN line seen once joins the INFO lines */
	y = suggest("2024-03-30 14:09:43 INFO [rank0] step 10 loss 2.31\n"
		    "2024-03-30 14:09:43 INFO [rank1] step 10 loss 2.35\n"
		    "2024-03-30 14:09:44 WARN [rank0] step 20 loss 2.11\n"
		    "2024-03-30 14:09:44 INFO [rank1] step 20 loss 2.15\n"
		    "2024-03-30 14:09:45 INFO [rank0] step 30 loss 1.91\n"
		    "2024-03-30 14:09:45 INFO [rank1] step 30 loss 1.95\n",
		    &err);
	assert_non_null(y);
	assert_non_null(strstr(y, "  # 6 rows, the first at line 1: 2024-03-30 14:09:43 INFO [rank0] step 10 loss 2.31\n"
				  "  #   level: INFO, WARN\n"
				  "  #   rank: rank0, rank1\n"
				  "  step: '(?<level>\\S+)\\s+\\[(?<rank>[^\\s\\]]+)\\]\\s+step\\s+(?<step>"));
	assert_null(strstr(y, "fields:"));
	free(err);
	free(y);
}

static void free_text_and_names_get_no_word_slots(void **state)
{
	(void)state;
	/* messages of a few words each, twice: no template of word slots */
	static const char messages[] = "Connected to server alpha after 3 retries\n"
				       "Downloaded package numpy in 12 seconds\n"
				       "Opened file results in 4 seconds\n"
				       "Removed cache entry in 5 seconds\n"
				       "Skipped broken link in 7 seconds\n"
				       "Wrote final report in 9 seconds\n"
				       "Loaded model weights in 2 seconds\n";
	struct buf b = BUF_INIT;
	buf_puts(&b, messages);
	buf_puts(&b, messages);
	char *err;
	char *y = suggest(buf_data(&b), &err);
	buf_free(&b);
	assert_non_null(y);
	assert_null(strstr(y, "\\S+"));
	assert_null(strstr(y, "[^\\s"));
	assert_non_null(strstr(y, "  seconds_6: 'weights\\s+in\\s+(?<seconds>"));
	free(err);
	free(y);
	/* a word that names its number ("Train-accuracy", "val loss") is a
	 * series each, not a word column */
	y = suggest("Epoch[0] Train-accuracy=0.95\nEpoch[0] Validation-accuracy=0.96\n"
		    "Epoch[1] Train-accuracy=0.97\nEpoch[1] Validation-accuracy=0.97\n"
		    "step 1 train loss 0.5\nstep 1 val loss 0.6\n"
		    "step 2 train loss 0.4\nstep 2 val loss 0.5\n",
		    &err);
	assert_non_null(y);
	assert_null(strstr(y, "\\S+"));
	assert_null(strstr(y, "[^\\s"));
	assert_non_null(strstr(y, "(?<train_accuracy>"));
	assert_non_null(strstr(y, "(?<validation_accuracy>"));
	assert_non_null(strstr(y, "(?<train_loss>"));
	assert_non_null(strstr(y, "(?<val_loss>"));
	free(err);
	free(y);
	/* a word after a key may take any words; one that is not takes
	 * few (eight at most) */
	b = (struct buf)BUF_INIT;
	for (int i = 0; i < 20; i++)
		buf_printf(&b, "host h%c%c up since %d days\nhost h%c%c up since %d days\n", 'a' + i,
			   'a' + i, i, 'a' + i, 'a' + i, i + 1);
	y = suggest(buf_data(&b), &err);
	buf_free(&b);
	assert_non_null(y);
	assert_null(strstr(y, "\\S+"));
	free(err);
	free(y);
}

static void the_same_text_gives_the_same_yaml(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	for (int i = 0; i < 500; i++)
		buf_printf(&b, "%s iter %d: loss=%d.%03d lr=%de-4 (%d ms)\n",
			   i % 7 ? "INFO" : "DEBUG", i, 3 - i / 200, (i * 37) % 1000, i % 9 + 1, 40 + i % 13);
	buf_puts(&b, "| name | time (s) |\n|---|---|\n| fwd | 1.5 |\n| bwd | 2.5 |\n\nbest loss: 1.2\n");
	char *e1, *e2;
	char *a = suggest(buf_data(&b), &e1);
	char *c = suggest(buf_data(&b), &e2);
	assert_non_null(a);
	assert_string_equal(a, c);
	assert_non_null(strstr(a, "tables:\n"));
	assert_non_null(strstr(a, "  name: { header: '^\\|\\s*name\\s*\\|"));
	/* INFO and DEBUG lines, one template of a level slot */
	assert_non_null(strstr(a, "  #   level: DEBUG, INFO\n"));
	free(a);
	free(c);
	free(e1);
	free(e2);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tokens_are_words_numbers_durations_timestamps),
		cmocka_unit_test(slots_are_named_from_the_words_next_to_them),
		cmocka_unit_test(numbers_under_a_header_take_its_cells),
		cmocka_unit_test(a_unit_glued_to_a_number_is_in_its_text),
		cmocka_unit_test(patterns_and_yaml_are_escaped),
		cmocka_unit_test(files_it_cannot_read_get_a_clear_message),
		cmocka_unit_test(a_proposal_loads_and_reads_the_file),
		cmocka_unit_test(a_c1_control_character_in_a_line_is_escaped),
		cmocka_unit_test(lines_that_differ_in_a_word_are_one_series_with_a_word_slot),
		cmocka_unit_test(free_text_and_names_get_no_word_slots),
		cmocka_unit_test(the_same_text_gives_the_same_yaml),
	};
	return cmocka_run_group_tests(tests, NULL, drop_leftovers);
}
