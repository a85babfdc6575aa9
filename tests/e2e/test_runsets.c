/* test_split.c: one file, several runs.  A real capture of the PopTorch
 * MNIST tutorial, run as it came (job 28011: test accuracy 98.38% on
 * line 69) and then edited (job 28012, from line 78: 97.82% on line
 * 104), which the poptorch parser splits (tests/corpus/poptorch). */
#include "e2e.h"

#define TWO_RUNS "tests/corpus/poptorch/mnist-alcf-sdk3.3-two-runs.log"

static char *project;

#define RUN(...) e2e_keep_proc(e2e_run(project, __VA_ARGS__))

static int cleanup(void **state)
{
	(void)state;
	e2e_free_kept();
	e2e_drop(&project);
	return 0;
}

static void project_new(const char *md)
{
	assert_null(project);
	project = e2e_project(E2E_FILES(E2E_COPY("content/r/logs/mnist.log", TWO_RUNS),
					E2E_TEXT("content/r/index.md", md)));
}

static const char *build_body(const char *md)
{
	project_new(md);
	return e2e_keep(e2e_build_body(project, ""));
}

/* The build fails with exactly `err` on stderr. */
static void build_fails(const char *md, const char *err)
{
	project_new(md);
	struct proc r = RUN("build");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, err);
}

static void a_split_file_is_a_run_set_of_its_runs(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  mnist: logs/mnist.log\n"
				      "---\n"
				      "First {{ mnist.run1.test_accuracy }}, then "
				      "{{ mnist.run2.test_accuracy }} (job {{ mnist.run2.job_id }}).\n");
	assert_contains(body, ">98.38</a>");
	assert_contains(body, ">97.82</a>");
	assert_contains(body, ">28012</a>");
	assert_contains(body, "mnist.log.html#L69");
	assert_contains(body, "mnist.log.html#L104");
}

static void run_picks_one_run_as_a_plain_run(void **state)
{
	(void)state;
	const char *body = build_body("---\n"
				      "runs:\n"
				      "  edited: { file: logs/mnist.log, run: last }\n"
				      "  tutorial: { file: logs/mnist.log, run: 1 }\n"
				      "  again: { file: logs/mnist.log, run: run1 }\n"
				      "---\n"
				      "{{ edited.test_accuracy }} {{ edited.name }}, "
				      "{{ tutorial.test_accuracy }}, {{ again.job_id }}.\n");
	assert_contains(body, ">97.82</a> <span class=\"ld-value\">edited</span>, ");
	assert_contains(body, ">98.38</a>, ");
	assert_contains(body, ">28011</a>.");
}

static void a_split_set_used_as_one_run_says_how_to_name_one(void **state)
{
	(void)state;
	build_fails("---\n"
		    "runs:\n"
		    "  mnist: logs/mnist.log\n"
		    "---\n"
		    "Accuracy {{ mnist.test_accuracy }}.\n",
		    "content/r/index.md:5:13: error: 'mnist' is a run set: logs/mnist.log holds 2 "
		    "runs; name one, as in mnist.run2.test_accuracy, or pick one in runs: with "
		    "{ file: logs/mnist.log, run: last }\n"
		    "    5 | Accuracy {{ mnist.test_accuracy }}.\n"
		    "      |             ^~~~~\n"
		    "logdown: 1 error; ");
}

static void a_bad_run_pick_is_an_error_at_its_value(void **state)
{
	(void)state;
	build_fails("---\n"
		    "runs:\n"
		    "  m: { file: logs/mnist.log, run: 3 }\n"
		    "---\n"
		    "x\n",
		    "content/r/index.md:3:35: error: run: 3, but content/r/logs/mnist.log holds 2 "
		    "runs: run1 (line 1), run2 (line 78)\n"
		    "    3 |   m: { file: logs/mnist.log, run: 3 }\n"
		    "      |                                   ^\n"
		    "logdown: 1 error; ");
	cleanup(NULL);
	build_fails("---\n"
		    "runs:\n"
		    "  m: { file: logs/mnist.log, run: rnu2 }\n"
		    "---\n"
		    "x\n",
		    "content/r/index.md:3:35: error: content/r/logs/mnist.log has no run 'rnu2' "
		    "(did you mean 'run2'?); its runs: run1 (line 1), run2 (line 78)\n"
		    "    3 |   m: { file: logs/mnist.log, run: rnu2 }\n"
		    "      |                                   ^~~~\n"
		    "logdown: 1 error; ");
	cleanup(NULL);
	build_fails("---\n"
		    "runs:\n"
		    "  m: { glob: 'logs/*.log', run: last }\n"
		    "---\n"
		    "x\n",
		    "content/r/index.md:3:28: error: run: picks one run of a file that holds "
		    "several: run 'm' has no file:\n"
		    "    3 |   m: { glob: 'logs/*.log', run: last }\n"
		    "      |                            ^~~\n"
		    "logdown: 1 error; ");
}

static void a_glob_member_of_several_runs_is_an_error(void **state)
{
	(void)state;
	build_fails("---\n"
		    "runs:\n"
		    "  all: { glob: 'logs/*.log' }\n"
		    "---\n"
		    "x\n",
		    "content/r/index.md:3:16: error: content/r/logs/mnist.log holds 2 runs (its "
		    "parser splits it), and a glob's member is one run: name it in runs: with "
		    "file: (a run set of its own), and run: last to pick one\n");
}

static void glob_members_get_identifier_names(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(
		E2E_TEXT("content/r/logs/bs-512.log", "acc=1\n"),
		E2E_TEXT("content/r/logs/512b.log", "acc=2\n"),
		E2E_TEXT("parsers/acc.yaml", "name: acc\ndetect: 'acc='\nfields:\n  acc: 'acc=(\\d+)'\n"),
		E2E_TEXT("content/r/index.md", "---\n"
					       "runs:\n"
					       "  sweep: { glob: 'logs/*.log' }\n"
					       "---\n"
					       "{{ bs_512.acc }} {{ _512b.acc }}\n")));
	char *body = e2e_keep(e2e_build_body(project, ""));
	assert_contains(body, ">1</a> ");
	assert_contains(body, ">2</a>");
	/* a did-you-mean offers the name an expression can write */
	e2e_write(project, "content/r/index.md",
		  "---\nruns:\n  sweep: { glob: 'logs/*.log' }\n---\n{{ bs512.acc }}\n");
	struct proc r = RUN("build");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "(did you mean 'bs_512'?)");
	/* two stems of one name */
	e2e_write(project, "content/r/logs/bs_512.log", "acc=3\n");
	r = RUN("build");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "content/r/index.md:3:18: error: content/r/logs/bs-512.log and "
			       "content/r/logs/bs_512.log are both named 'bs_512' in expressions "
			       "(a member's name is its file stem, other characters than letters, "
			       "digits and '_' made '_'): rename one of the files\n");
}

/* {{ x.file }} is the file relative to its report (docs/parsers.md),
 * for a file, a run picked from a split file and a glob's member; not
 * the path logdown was given (which differs as the project is built
 * from its folder or by its absolute path), and not another report's
 * name for the same file (content/s.md reads content/r's log too, by
 * the path that both reports' folders join to the same string). */
static void the_file_attribute_is_the_file_relative_to_its_report(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(
		E2E_COPY("content/r/logs/mnist.log", TWO_RUNS),
		E2E_TEXT("content/r/logs/acc/bs-512.log", "acc=1\n"),
		E2E_TEXT("content/r/logs/acc/512b.log", "acc=2\n"),
		E2E_TEXT("parsers/acc.yaml", "name: acc\ndetect: 'acc='\nfields:\n  acc: 'acc=(\\d+)'\n"),
		E2E_TEXT("content/r/index.md", "---\n"
					       "runs:\n"
					       "  one: logs/acc/bs-512.log\n"
					       "  edited: { file: logs/mnist.log, run: last }\n"
					       "  sweep: { glob: 'logs/acc/*.log' }\n"
					       "---\n"
					       "Files: {{ one.file }}; {{ edited.file }}; {{ _512b.file }}.\n"),
		E2E_TEXT("content/s.md", "---\n"
					 "runs:\n"
					 "  one: r/logs/acc/bs-512.log\n"
					 "---\n"
					 "File: {{ one.file }}.\n")));
	const char *want_r = "Files: <span class=\"ld-value\">logs/acc/bs-512.log</span>; <span "
			     "class=\"ld-value\">logs/mnist.log</span>; <span "
			     "class=\"ld-value\">logs/acc/512b.log</span>.";
	const char *want_s = "File: <span class=\"ld-value\">r/logs/acc/bs-512.log</span>.";
	for (int from_root = 0; from_root < 2; from_root++) {
		char *abs = path_real(project);
		struct proc r = from_root ? e2e_run("/", "build %s", abs) : e2e_run(project, "build");
		free(abs);
		assert_int_equal(r.status, 0);
		proc_free(&r);
		char *page_r = e2e_keep(e2e_read(project, "_site/r/index.html"));
		char *page_s = e2e_keep(e2e_read(project, "_site/s/index.html"));
		assert_contains(page_r, want_r);
		assert_contains(page_s, want_s);
	}
}

static void did_you_mean_offers_only_names_an_expression_can_write(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(
		E2E_TEXT("content/r/b.json", "{\"mean-ttft\": 12.5, \"mean_tpot\": 3}\n"),
		E2E_TEXT("content/r/index.md", "---\nruns:\n  b: b.json\n---\n{{ b.mean_ttf }}\n")));
	struct proc r = RUN("build");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "content/r/index.md:5:6: error: b has no field or series "
			       "'mean_ttf' (did you mean 'mean_tpot'?)\n");
}

static void parse_shows_each_run(void **state)
{
	(void)state;
	project = e2e_tmpdir();
	struct proc r = e2e_keep_proc(e2e_run(".", "parse " TWO_RUNS));
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "runs     2 (split by the parser's split pattern)\n"
			       "\n== run run1: from line 1 ==\n");
	assert_contains(r.out, "\n== run run2: from line 78 ==\n");
	assert_contains(r.out, "  test_accuracy       97.82   (line 104)\n");
	r = e2e_keep_proc(e2e_run(".", "parse --json " TWO_RUNS));
	assert_contains(r.out, "  \"runs\": [\n    {\"name\": \"run1\", \"first_line\": 1,\n");
	assert_contains(r.out, "{\"name\": \"run2\", \"first_line\": 78,\n");
	r = e2e_keep_proc(e2e_run(".", "parse --list-columns " TWO_RUNS));
	assert_contains(r.out, "run2.test_accuracy");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(a_split_file_is_a_run_set_of_its_runs, cleanup),
		cmocka_unit_test_teardown(run_picks_one_run_as_a_plain_run, cleanup),
		cmocka_unit_test_teardown(a_split_set_used_as_one_run_says_how_to_name_one, cleanup),
		cmocka_unit_test_teardown(a_bad_run_pick_is_an_error_at_its_value, cleanup),
		cmocka_unit_test_teardown(a_glob_member_of_several_runs_is_an_error, cleanup),
		cmocka_unit_test_teardown(glob_members_get_identifier_names, cleanup),
		cmocka_unit_test_teardown(the_file_attribute_is_the_file_relative_to_its_report, cleanup),
		cmocka_unit_test_teardown(did_you_mean_offers_only_names_an_expression_can_write,
					  cleanup),
		cmocka_unit_test_teardown(parse_shows_each_run, cleanup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
