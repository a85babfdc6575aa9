/* test_corpus.c: the corpus scorer (tools/parser_score.c, run as
 * build/asan/parser-score): its exact output over the sample corpus
 * (tests/fixtures/corpus-sample, four fixtures with one wrong fact and
 * one wrong parser), its errors, and the real corpus (tests/corpus)
 * scoring no less than tests/corpus/SCORE.  Then its --suggest mode
 * (make suggest-score): the sample of tests/fixtures/suggest-sample
 * scored with hand-written stand-ins for suggested parsers, and the
 * suggest corpus (tests/corpus-suggest) no less than its SCORE once
 * `logdown parse --suggest` exists. */
#include "e2e.h"

#define SAMPLE "tests/fixtures/corpus-sample"
#define CORPUS "tests/corpus"
#define SUGGEST_SAMPLE "tests/fixtures/suggest-sample"
#define SUGGEST_CORPUS "tests/corpus-suggest"

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
			    "..., parser: NAME} (`logdown parsers` lists them))\n"
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

/* "facts R/T" or "detection R/T" of a SCORE file into right and
 * total; fails when the line is missing. */
static void score_minimum(const char *text, const char *what, long *right, long *total)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t n = strlen(what);
		if (strncmp(p, what, n) == 0 && p[n] == ' ' &&
		    sscanf(p + n, " %ld/%ld", right, total) == 2)
			return;
	}
	fail_msg("the SCORE file has no line '%s RIGHT/TOTAL'", what);
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

/* The suggest sample's table, with the hand-written parsers of
 * tests/fixtures/suggest-sample/parsers standing in for suggested ones. */
#define SUGGEST_TABLE \
	"log                       facts          detection\n" \
	"lammps-lj-npt             10/11   90.9%  1/1  100.0%\n" \
	"noprop-resnet18-cifar100  7/9     77.7%  1/1  100.0%\n" \
	"wrk-solon-jetty           5/8     62.5%  1/1  100.0%\n" \
	"overall                   22/28   78.5%  3/3  100.0%\n"

static void suggest_mode_scores_each_log_by_value_and_words_next_to_it(void **state)
{
	(void)state;
	struct proc r = e2e_keep_proc(score(NULL, "--suggest --parsers-from " SUGGEST_SAMPLE
					       "/parsers " SUGGEST_SAMPLE "/corpus"));
	assert_string_equal(r.err, "");
	assert_string_equal(r.out, SUGGEST_TABLE);
	assert_int_equal(r.status, 0);
}

/* A value under a name not made of its line's words is a miss that says
 * which word is missing; a value no field has says so. */
static void suggest_mode_verbose_says_what_came_closest(void **state)
{
	(void)state;
	struct proc r = e2e_keep_proc(score(NULL, "--suggest -v --parsers-from " SUGGEST_SAMPLE
					       "/parsers " SUGGEST_SAMPLE "/corpus"));
	assert_string_equal(r.err, "");
	assert_string_equal(
		r.out,
		SUGGEST_SAMPLE "/corpus/lammps-lj-npt.log: steps: expected 20000, got run_steps = "
			       "20000, but line 44 lacks 'run'\n"
		SUGGEST_SAMPLE "/corpus/noprop-resnet18-cifar100.log: eval.first.acc: expected "
			       "9.32%, got eval.first.top1 = 9.32%, but line 11 lacks 'top1'\n"
		SUGGEST_SAMPLE "/corpus/noprop-resnet18-cifar100.log: eval.last.acc: expected "
			       "14.30%, got eval.last.top1 = 14.30%, but line 41 lacks 'top1'\n"
		SUGGEST_SAMPLE "/corpus/wrk-solon-jetty.log: latency_avg: expected 16.08ms, got "
			       "nothing (no field has that value; 6 fields, 0 series)\n"
		SUGGEST_SAMPLE "/corpus/wrk-solon-jetty.log: latency_max: expected 501.10ms, got "
			       "nothing (no field has that value; 6 fields, 0 series)\n"
		SUGGEST_SAMPLE "/corpus/wrk-solon-jetty.log: p99: expected 162.80ms, got nothing "
			       "(no field has that value; 6 fields, 0 series)\n" SUGGEST_TABLE);
	assert_int_equal(r.status, 0);
}

/* Without --parsers-from the scorer runs `BIN parse LOG --suggest --name
 * suggest -o TMP/suggest.yaml` (the stand-in checks those arguments); a
 * log it finds nothing in scores nothing, with its message. */
static void suggest_mode_runs_the_suggester_and_reports_its_failure(void **state)
{
	(void)state;
	struct proc r = e2e_keep_proc(score(NULL, "--suggest --logdown " SUGGEST_SAMPLE
					       "/fake-logdown.sh -v " SUGGEST_SAMPLE "/corpus"));
	assert_string_equal(r.err, "");
	assert_contains(r.out, SUGGEST_SAMPLE "/corpus/wrk-solon-jetty.log: parser: expected "
					      "suggest, got nothing (" SUGGEST_SAMPLE
					      "/fake-logdown.sh parse --suggest exited 1: no "
					      "template repeats with numbers in it)\n");
	assert_contains(r.out, SUGGEST_SAMPLE "/corpus/wrk-solon-jetty.log: threads: expected 10, "
					      "got nothing (" SUGGEST_SAMPLE "/fake-logdown.sh parse "
					      "--suggest exited 1: no template repeats with numbers "
					      "in it)\n");
	assert_contains(r.out, "lammps-lj-npt             10/11   90.9%  1/1  100.0%\n"
			       "noprop-resnet18-cifar100  7/9     77.7%  1/1  100.0%\n"
			       "wrk-solon-jetty           0/8      0.0%  0/1    0.0%\n"
			       "overall                   17/28   60.7%  2/3   66.6%\n");
	assert_int_equal(r.status, 0);
}

/* The suggest corpus has no `parser:` lines (its logs have no built-in
 * parser: an error, the facts still scored); a parser without a detect
 * pattern misses detection only; one that does not load, or that takes a
 * built-in parser's name, misses every fact, saying why. */
static void suggest_mode_errors_and_unreadable_parsers(void **state)
{
	(void)state;
	char *dir = e2e_keep(e2e_project(E2E_FILES(
		E2E_COPY("c/a.log", SUGGEST_SAMPLE "/corpus/wrk-solon-jetty.log"),
		E2E_TEXT("c/a.facts", "parser: slurm\nrequests = 2525852\n"),
		E2E_COPY("c/b.log", SUGGEST_SAMPLE "/corpus/wrk-solon-jetty.log"),
		E2E_TEXT("c/b.facts", "requests = 2525852\n"),
		E2E_COPY("c/c.log", SUGGEST_SAMPLE "/corpus/wrk-solon-jetty.log"),
		E2E_TEXT("c/c.facts", "requests = 2525852\n"),
		E2E_TEXT("c/SOURCES", "a.log\towner/repo\tabc\ta.log\twhole\n"
				      "b.log\towner/repo\tabc\tb.log\twhole\n"
				      "c.log\towner/repo\tabc\tc.log\twhole\n"),
		E2E_TEXT("p/a.yaml", "name: suggest\nfields: { requests: '(\\d+) requests in' }\n"),
		E2E_TEXT("p/b.yaml", "name: suggest\nfields: 3\n"),
		E2E_TEXT("p/c.yaml", "name: stream\nfields: { requests: '(\\d+) requests in' }\n"))));
	struct proc r = e2e_keep_proc(score(dir, "--suggest -v --parsers-from p c"));
	assert_string_equal(r.err, "c/a.facts:1: error: a 'parser:' line in the suggest corpus: "
				   "its logs are of kinds no built-in parser reads (tests/corpus "
				   "holds the others)\n"
				   "    1 | parser: slurm\n");
	assert_string_equal(
		r.out, "c/a.log: parser: expected suggest, got nothing (cannot tell which parser reads "
		       "c/a.log: none recognises it; name one with {file: ..., parser: NAME} "
		       "(`logdown parsers` lists them))\n"
		       "c/b.log: parser: expected suggest, got nothing (the suggested parser does not "
		       "load: fields must be a map of names, not a number)\n"
		       "c/b.log: requests: expected 2525852, got nothing (the suggested parser does "
		       "not load: fields must be a map of names, not a number)\n"
		       "c/c.log: parser: expected suggest, got nothing (the suggested parser has a "
		       "built-in parser's name: suggest it with --name suggest)\n"
		       "c/c.log: requests: expected 2525852, got nothing (the suggested parser has "
		       "a built-in parser's name: suggest it with --name suggest)\n"
		       "log      facts        detection\n"
		       "a        1/1  100.0%  0/1    0.0%\n"
		       "b        0/1    0.0%  0/1    0.0%\n"
		       "c        0/1    0.0%  0/1    0.0%\n"
		       "overall  1/3   33.3%  0/3    0.0%\n");
	assert_int_equal(r.status, 2);
	r = e2e_keep_proc(score(NULL, "--parsers-from p " SUGGEST_SAMPLE "/corpus"));
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "usage: parser-score [-v] CORPUS\n");
	remove_tree(dir);
}

/* Does the logdown the tests run have `parse --suggest` (the suggest
 * helper's branch merged)? */
static bool logdown_suggests(void)
{
	struct proc r = e2e_keep_proc(e2e_run(".", "parse --help"));
	return (r.out && strstr(r.out, "--suggest")) || (r.err && strstr(r.err, "--suggest"));
}

static void the_suggest_corpus_scores_no_less_than_its_score(void **state)
{
	(void)state;
	if (!logdown_suggests()) {
		print_message("[  SKIP    ] logdown parse has no --suggest yet: "
			      SUGGEST_CORPUS " is not scored\n");
		skip();
	}
	char *want = e2e_keep(e2e_read(".", SUGGEST_CORPUS "/SCORE"));
	if (!want)
		fail_msg("cannot read " SUGGEST_CORPUS "/SCORE");
	long fr, ft, dr, dt;
	score_minimum(want, "facts", &fr, &ft);
	score_minimum(want, "detection", &dr, &dt);
	char *args = e2e_keep(xasprintf("--suggest --logdown '%s' -v " SUGGEST_CORPUS,
					e2e_binary()));
	struct proc r = e2e_keep_proc(score(NULL, args));
	if (r.status != 0)
		fail_msg("parser-score --suggest -v " SUGGEST_CORPUS " exited %d:\n%s%s", r.status,
			 r.err, r.out);
	const char *all = strstr(r.out, "\noverall ");
	long gfr, gft, gdr, gdt;
	if (!all || sscanf(all, " overall %ld/%ld %*s %ld/%ld", &gfr, &gft, &gdr, &gdt) != 4)
		fail_msg("no overall line in:\n%s", r.out);
	if (!at_least(gfr, gft, fr, ft) || !at_least(gdr, gdt, dr, dt))
		fail_msg("the suggest corpus scores facts %ld/%ld and detection %ld/%ld, below "
			 SUGGEST_CORPUS "/SCORE's facts %ld/%ld and detection %ld/%ld; the "
			 "misses:\n%s", gfr, gft, gdr, gdt, fr, ft, dr, dt, r.out);
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
		cmocka_unit_test_teardown(suggest_mode_scores_each_log_by_value_and_words_next_to_it,
					  teardown),
		cmocka_unit_test_teardown(suggest_mode_verbose_says_what_came_closest, teardown),
		cmocka_unit_test_teardown(suggest_mode_runs_the_suggester_and_reports_its_failure,
					  teardown),
		cmocka_unit_test_teardown(suggest_mode_errors_and_unreadable_parsers, teardown),
		cmocka_unit_test_teardown(the_suggest_corpus_scores_no_less_than_its_score, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
