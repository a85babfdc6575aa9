/* test_corpus.c: the corpus scorer (tools/parser_score.c, run as
 * build/asan/parser-score): its exact output over the sample corpus
 * (tests/fixtures/corpus-sample, four fixtures with one wrong fact and
 * one wrong parser), its errors, and the real corpus (tests/corpus)
 * scoring no less than tests/corpus/SCORE. */
#include "e2e.h"

#define SAMPLE "tests/fixtures/corpus-sample"
#define CORPUS "tests/corpus"

/* Runs the scorer with args (a shell word list) in folder cwd (NULL: the
 * repository's root, where the tests run).  Caller frees with
 * proc_free(). */
static struct proc score(const char *cwd, const char *args)
{
	char *root = getcwd(NULL, 0);
	assert_non_null(root);
	char out[] = "/tmp/logdown-out-XXXXXX", err[] = "/tmp/logdown-err-XXXXXX";
	int fo = mkstemp(out), fe = mkstemp(err);
	assert_true(fo >= 0 && fe >= 0);
	close(fo);
	close(fe);
	char *cmd = xasprintf("cd '%s' && NO_COLOR=1 '%s/build/asan/parser-score' %s </dev/null "
			      ">%s 2>%s", cwd ? cwd : root, root, args, out, err);
	int st = system(cmd);
	struct proc r;
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	r.out = e2e_read("/", out);
	r.err = e2e_read("/", err);
	unlink(out);
	unlink(err);
	free(cmd);
	free(root);
	return r;
}

static void the_sample_corpus_scores_facts_and_detection_per_kind(void **state)
{
	(void)state;
	struct proc r = e2e_keep_proc(score(NULL, SAMPLE));
	assert_string_equal(r.err, "");
	assert_string_equal(r.out, "kind      facts          detection\n"
				   "cerebras  8/9     88.8%  1/1  100.0%\n"
				   "groqflow  6/6    100.0%  1/1  100.0%\n"
				   "slurm     4/4    100.0%  1/2   50.0%\n"
				   "overall   18/19   94.7%  3/4   75.0%\n");
	assert_int_equal(r.status, 0);
}

/* The wrong parser (a PopTorch log said to be slurm's) misses detection
 * only: its job_id is still read, by the slurm parser the facts name. */
static void verbose_lists_every_miss_before_the_table(void **state)
{
	(void)state;
	struct proc r = e2e_keep_proc(score(NULL, "-v " SAMPLE));
	assert_string_equal(r.err, "");
	assert_string_equal(r.out,
			    SAMPLE "/cerebras/bs512.log: total_time: expected 175.07, got 175.070497198\n"
			    SAMPLE "/slurm/mnist_epochs4.log: parser: expected slurm, got poptorch\n"
			    "kind      facts          detection\n"
			    "cerebras  8/9     88.8%  1/1  100.0%\n"
			    "groqflow  6/6    100.0%  1/1  100.0%\n"
			    "slurm     4/4    100.0%  1/2   50.0%\n"
			    "overall   18/19   94.7%  3/4   75.0%\n");
	assert_int_equal(r.status, 0);
}

/* A log no parser claims misses detection with the reason; its facts
 * are still checked with the parser named. */
static void a_log_no_parser_claims_is_a_detection_miss_with_the_reason(void **state)
{
	(void)state;
	char *dir = e2e_keep(e2e_project(E2E_FILES(
		E2E_COPY("gtest/loss.log", "tests/fixtures/undetected/loss_h512.log"),
		E2E_TEXT("gtest/loss.facts", "parser: gtest\npassed = 3\n"),
		E2E_TEXT("gtest/SOURCES", "loss.log\tlogdown\t-\ttests/fixtures/undetected/"
					  "loss_h512.log\twhole file\n"))));
	struct proc r = e2e_keep_proc(score(dir, "-v ."));
	assert_string_equal(r.err, "");
	assert_string_equal(r.out,
			    "gtest/loss.log: parser: expected gtest, got nothing (cannot tell which "
			    "parser reads gtest/loss.log: none recognises it; name one with {file: "
			    "..., parser: NAME} (available: cerebras, csv, groqflow, gtest, "
			    "hf-trainer, json, keyvalue, mllog, nsys, poptorch, sambanova, slurm, "
			    "tsv, yaml))\n"
			    "gtest/loss.log: passed: expected 3, got nothing\n"
			    "kind     facts        detection\n"
			    "gtest    0/1    0.0%  0/1    0.0%\n"
			    "overall  0/1    0.0%  0/1    0.0%\n");
	assert_int_equal(r.status, 0);
	remove_tree(dir);
}

/* A log its parser splits is scored against its last run: the real
 * two-run PopTorch capture, with facts of each run. */
static void a_split_log_is_scored_against_its_last_run(void **state)
{
	(void)state;
	char *dir = e2e_keep(e2e_project(E2E_FILES(
		E2E_COPY("poptorch/two.log", CORPUS "/poptorch/mnist-alcf-sdk3.3-two-runs.log"),
		E2E_TEXT("poptorch/two.facts", "parser: poptorch\n"
					       "test_accuracy = 97.82\n"
					       "compile_time = 0\n"
					       "job_id = 28011\n"),
		E2E_TEXT("poptorch/SOURCES", "two.log\tlogdown\t-\ttests/corpus/poptorch\twhole "
					     "file\n"))));
	struct proc r = e2e_keep_proc(score(dir, "-v ."));
	assert_string_equal(r.err, "");
	assert_string_equal(r.out, "poptorch/two.log: job_id: expected 28011, got 28012\n"
				   "kind      facts        detection\n"
				   "poptorch  2/3   66.6%  1/1  100.0%\n"
				   "overall   2/3   66.6%  1/1  100.0%\n");
	assert_int_equal(r.status, 0);
	remove_tree(dir);
}

static void a_corpus_that_breaks_its_format_is_an_error_at_each_place_exit_2(void **state)
{
	(void)state;
	char *dir = e2e_keep(e2e_project(E2E_FILES(
		E2E_COPY("slurm/timeout.log", "tests/fixtures/slurm/timeout.log"),
		E2E_TEXT("slurm/timeout.facts", "parser: slurm\njob_id 33071\ncancel_reason = TIME "
						"LIMIT\n"),
		E2E_COPY("slurm/execve.log", "tests/fixtures/slurm/execve_failure.log"),
		E2E_TEXT("slurm/execve.facts", "parser: slurm\n"),
		E2E_TEXT("slurm/lost.facts", "parser: slurm\njob_id = 1\n"),
		E2E_TEXT("slurm/SOURCES", "timeout.log\towner/repo\tabc123\tlogs/t.log\twhole file\n"
					  "gone.log\towner/repo\tabc123\tlogs/g.log\twhole file\n"
					  "a line without tabs\n"),
		E2E_COPY("gtest/single.log", "tests/fixtures/gtest/gtest_single.log"),
		E2E_TEXT("gtest/single.facts", "parser: gtest\npassed = 7\n"))));
	struct proc r = e2e_keep_proc(score(dir, "."));
	assert_string_equal(
		r.err,
		"gtest/SOURCES: error: cannot read: No such file or directory (every log of the "
		"corpus has a line there: name<TAB>owner/repo<TAB>commit<TAB>path<TAB>what was "
		"kept)\n"
		"slurm/SOURCES:3: error: expected name<TAB>owner/repo<TAB>commit<TAB>path<TAB>what "
		"was kept (five fields, the first four not empty)\n"
		"    3 | a line without tabs\n"
		"slurm/execve.log: error: no line in slurm/SOURCES (name<TAB>owner/repo<TAB>commit"
		"<TAB>path<TAB>what was kept)\n"
		"slurm/lost.facts: error: no log beside it (expected slurm/lost.EXT)\n"
		"slurm/timeout.facts:2: error: expected 'FIELD = VALUE', 'parser: KIND' or a # "
		"comment\n"
		"    2 | job_id 33071\n"
		"slurm/SOURCES:2: error: no file 'gone.log' in slurm\n"
		"    2 | gone.log\towner/repo\tabc123\tlogs/g.log\twhole file\n");
	/* What could be read is still scored. */
	assert_string_equal(r.out, "kind     facts        detection\n"
				   "gtest    1/1  100.0%  1/1  100.0%\n"
				   "slurm    1/1  100.0%  2/2  100.0%\n"
				   "overall  2/2  100.0%  3/3  100.0%\n");
	assert_int_equal(r.status, 2);
	remove_tree(dir);
}

static void a_log_without_facts_is_a_warning_not_scored(void **state)
{
	(void)state;
	char *dir = e2e_keep(e2e_project(E2E_FILES(
		E2E_COPY("slurm/timeout.log", "tests/fixtures/slurm/timeout.log"),
		E2E_TEXT("slurm/SOURCES", "timeout.log\towner/repo\tabc123\tlogs/t.log\twhole\n"))));
	struct proc r = e2e_keep_proc(score(dir, "."));
	assert_string_equal(r.err, "slurm/timeout.log: warning: no timeout.facts beside it: not "
				   "scored\n");
	assert_string_equal(r.out, "kind     facts        detection\n"
				   "slurm    0/0       -  0/0       -\n"
				   "overall  0/0       -  0/0       -\n");
	assert_int_equal(r.status, 0);
	remove_tree(dir);
}

static void the_scorer_needs_one_corpus_folder(void **state)
{
	(void)state;
	struct proc r = e2e_keep_proc(score(NULL, ""));
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "usage: parser-score [-v] CORPUS\n");
	r = e2e_keep_proc(score(NULL, "-x " SAMPLE));
	assert_int_equal(r.status, 2);
	r = e2e_keep_proc(score(NULL, "tests/no-such-corpus"));
	assert_string_equal(r.err, "tests/no-such-corpus: error: cannot read: No such file or "
				   "directory\n");
	assert_int_equal(r.status, 3);
}

/* Does tests/corpus hold a facts file in one of its kind folders? */
static bool corpus_has_facts(void)
{
	size_t nk = 0;
	char **kinds = dir_list(CORPUS, &nk);
	bool found = false;
	for (size_t i = 0; kinds && i < nk && !found; i++) {
		char *dir = path_join(CORPUS, kinds[i]);
		size_t n = 0;
		char **names = is_dir(dir) ? dir_list(dir, &n) : NULL;
		for (size_t j = 0; names && j < n; j++)
			if (str_has_suffix(names[j], ".facts"))
				found = true;
		strv_free(names);
		free(dir);
	}
	strv_free(kinds);
	return found;
}

/* "facts R/T" or "detection R/T" of tests/corpus/SCORE into right and
 * total; fails when the line is missing. */
static void score_minimum(const char *text, const char *what, long *right, long *total)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t n = strlen(what);
		if (strncmp(p, what, n) == 0 && p[n] == ' ' &&
		    sscanf(p + n, " %ld/%ld", right, total) == 2)
			return;
	}
	fail_msg("tests/corpus/SCORE has no line '%s RIGHT/TOTAL'", what);
}

/* Is right/total at least the minimum: no fewer right, and no lower a
 * share (0/0: no minimum)? */
static bool at_least(long right, long total, long min_right, long min_total)
{
	if (right < min_right)
		return false;
	return min_total == 0 || right * min_total >= min_right * total;
}

static void the_corpus_scores_no_less_than_tests_corpus_score(void **state)
{
	(void)state;
	if (!corpus_has_facts()) {
		print_message("[  SKIP    ] " CORPUS " has no .facts files yet\n");
		skip();
	}
	char *want = e2e_keep(e2e_read(".", CORPUS "/SCORE"));
	if (!want)
		fail_msg("cannot read " CORPUS "/SCORE");
	long fr, ft, dr, dt;
	score_minimum(want, "facts", &fr, &ft);
	score_minimum(want, "detection", &dr, &dt);
	struct proc r = e2e_keep_proc(score(NULL, "-v " CORPUS));
	if (r.status != 0)
		fail_msg("parser-score -v " CORPUS " exited %d:\n%s%s", r.status, r.err, r.out);
	const char *all = strstr(r.out, "\noverall ");
	long gfr, gft, gdr, gdt;
	if (!all || sscanf(all, " overall %ld/%ld %*s %ld/%ld", &gfr, &gft, &gdr, &gdt) != 4)
		fail_msg("no overall line in:\n%s", r.out);
	if (!at_least(gfr, gft, fr, ft) || !at_least(gdr, gdt, dr, dt))
		fail_msg("the corpus scores facts %ld/%ld and detection %ld/%ld, below " CORPUS
			 "/SCORE's facts %ld/%ld and detection %ld/%ld; the misses:\n%s",
			 gfr, gft, gdr, gdt, fr, ft, dr, dt, r.out);
}

static int teardown(void **state)
{
	(void)state;
	e2e_free_kept();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(the_sample_corpus_scores_facts_and_detection_per_kind,
					  teardown),
		cmocka_unit_test_teardown(verbose_lists_every_miss_before_the_table, teardown),
		cmocka_unit_test_teardown(a_log_no_parser_claims_is_a_detection_miss_with_the_reason,
					  teardown),
		cmocka_unit_test_teardown(
			a_corpus_that_breaks_its_format_is_an_error_at_each_place_exit_2, teardown),
		cmocka_unit_test_teardown(a_split_log_is_scored_against_its_last_run, teardown),
		cmocka_unit_test_teardown(a_log_without_facts_is_a_warning_not_scored, teardown),
		cmocka_unit_test_teardown(the_scorer_needs_one_corpus_folder, teardown),
		cmocka_unit_test_teardown(the_corpus_scores_no_less_than_tests_corpus_score,
					  teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
