/* test_lint.c: `logdown check --lint` on a project whose log is a real
 * one (tests/corpus/cerebras): the exact warnings for hand-typed
 * numbers, each kind the lint leaves alone, the comment and the
 * front-matter and site.yaml switches, and the exit statuses (warnings
 * exit 0, errors with --strict, which lints unless --no-lint), and a
 * value in the middle of a series (the log's line 80) matched by its
 * digits. */
#define _DEFAULT_SOURCE /* bounded.h: wait4(), setgroups(), usleep() */
#include "e2e.h"
#include <grp.h>

#include "bounded.h"

#define LOG "tests/corpus/cerebras/bert-large-bs512-student-2024-04.log"

static const char report[] =
	"---\n"
	"title: Lint\n"
	"runs:\n"
	"  a: logs/a.log\n"
	"---\n"
	"## Loss 7.13 at 174.28 s\n"
	"\n"
	"The loss ended at 7.125 after {{ a.final_step }} steps and took 174.28 s;\n"
	"the last rate was 2923.82 samples/s (`2923.82` in code stays), the run\n"
	"started 2024-04-03 at 11:13, with 2 nodes, batch 512, on an A100 with\n"
	"fp16 and cerebras v2.9.0, the 1st of 3 runs: {{ a.total_time :.2f }} s.\n"
	"\n"
	"```\n"
	"Loss=7.12500 in a code block\n"
	"```\n"
	"\n"
	"Math $7.125$ and a link [to the paper](https://x.org/7.125) stay.\n"
	"\n"
	"<!-- logdown: allow-number -->\n"
	"A quoted 7.125 from the paper.\n"
	"\n"
	"A second 174.28 <!-- logdown: allow-number 174.28 --> and 7.125.\n";

static char *project(const char *md)
{
	return e2e_project(E2E_FILES(E2E_COPY("content/r/logs/a.log", LOG),
				     E2E_TEXT("content/r/index.md", md)));
}

static const char warnings[] =
	"content/r/index.md:8:19: warning: 7.125 is a.final_loss, 7.12500 rounded "
	"(content/r/logs/a.log:85): write {{ a.final_loss :.3f }}\n"
	"    8 | The loss ended at 7.125 after {{ a.final_step }} steps and took 174.28 s;\n"
	"      |                   ^~~~~\n"
	"content/r/index.md:8:65: warning: 174.28 is a.total_time, 174.282130137 rounded "
	"(content/r/logs/a.log:90): write {{ a.total_time :.2f }}\n"
	"    8 | The loss ended at 7.125 after {{ a.final_step }} steps and took 174.28 s;\n"
	"      |                                                                 ^~~~~~\n"
	"content/r/index.md:9:19: warning: 2923.82 is last(a.train.rate), 2923.82 "
	"(content/r/logs/a.log:85): write {{ last(a.train.rate) }}\n"
	"    9 | the last rate was 2923.82 samples/s (`2923.82` in code stays), the run\n"
	"      |                   ^~~~~~~\n"
	"content/r/index.md:22:59: warning: 7.125 is a.final_loss, 7.12500 rounded "
	"(content/r/logs/a.log:85): write {{ a.final_loss :.3f }}\n"
	"   22 | A second 174.28 <!-- logdown: allow-number 174.28 --> and 7.125.\n"
	"      |                                                           ^~~~~\n";

static void lint_warns_at_each_hand_typed_number(void **state)
{
	(void)state;
	char *dir = project(report);
	struct proc r = e2e_run(dir, "check --lint");
	assert_int_equal(r.status, 0);
	struct buf want = BUF_INIT;
	buf_puts(&want, warnings);
	buf_puts(&want, "logdown: checked 1 report\n");
	assert_string_equal(r.err, buf_data(&want));
	proc_free(&r);
	/* the same from the run's store (check --cache, after a build):
	 * its columns of plain decimals are numbers alone there, each text
	 * printed back, and first(), last(), min() and max() are found by
	 * the numbers (resolve/numlint.c) */
	e2e_ok(dir, "build");
	r = e2e_run(dir, "check --cache --lint");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, buf_data(&want));
	buf_free(&want);
	proc_free(&r);
	e2e_drop(&dir);
}

static void strict_lints_and_fails(void **state)
{
	(void)state;
	char *dir = project(report);
	struct proc r = e2e_run(dir, "check --strict --diagnostics=github");
	assert_int_equal(r.status, 1);
	assert_string_equal(
		r.err, "::error file=content/r/index.md,line=8,col=19::7.125 is a.final_loss, 7.12500 "
		       "rounded (content/r/logs/a.log:85): write {{ a.final_loss :.3f }}\n"
		       "::error file=content/r/index.md,line=8,col=65::174.28 is a.total_time, "
		       "174.282130137 rounded (content/r/logs/a.log:90): write {{ a.total_time :.2f }}\n"
		       "::error file=content/r/index.md,line=9,col=19::2923.82 is last(a.train.rate), "
		       "2923.82 (content/r/logs/a.log:85): write {{ last(a.train.rate) }}\n"
		       "::error file=content/r/index.md,line=22,col=59::7.125 is a.final_loss, 7.12500 "
		       "rounded (content/r/logs/a.log:85): write {{ a.final_loss :.3f }}\n");
	proc_free(&r);
	r = e2e_run(dir, "check --strict --no-lint");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	/* without --lint, check and build say nothing of it */
	r = e2e_run(dir, "check");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: checked 1 report\n");
	proc_free(&r);
	r = e2e_run(dir, "build --strict");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	r = e2e_run(dir, "build --lint");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: unknown option '--lint'");
	proc_free(&r);
	e2e_drop(&dir);
}

static void front_matter_and_site_switch_it_off(void **state)
{
	(void)state;
	const char *body = strstr(report, "---\n## ") + 4;
	char *md = xasprintf("---\ntitle: Lint\nallow_numbers: true\nruns:\n  a: logs/a.log\n---\n%s",
			     body);
	char *dir = project(md);
	struct proc r = e2e_run(dir, "check --strict");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: checked 1 report\n");
	proc_free(&r);
	free(md);
	e2e_drop(&dir);

	dir = project(report);
	e2e_write(dir, "site.yaml", "title: S\nallow_numbers: true\n");
	r = e2e_run(dir, "check --strict");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	/* a report may lint again when the site does not */
	md = xasprintf("---\ntitle: Lint\nallow_numbers: false\nruns:\n  a: logs/a.log\n---\n%s", body);
	e2e_write(dir, "content/r/index.md", md);
	r = e2e_run(dir, "check --lint");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "content/r/index.md:9:19: warning: 7.125 is a.final_loss");
	assert_contains(r.err, "content/r/index.md:23:59: warning: 7.125 is a.final_loss");
	proc_free(&r);
	free(md);
	e2e_drop(&dir);
}

static void bad_switch_values_are_errors_at_their_column(void **state)
{
	(void)state;
	char *dir = project("---\ntitle: L\nallow_numbers: maybe\nruns:\n  a: logs/a.log\n---\nx\n");
	e2e_write(dir, "site.yaml", "title: S\nallow_numbers: 3\n");
	struct proc r = e2e_run(dir, "check --lint");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "site.yaml:2:16: error: 'allow_numbers' must be true or false\n");
	proc_free(&r);
	e2e_write(dir, "site.yaml", "title: S\n");
	r = e2e_run(dir, "check --lint");
	assert_int_equal(r.status, 1);
	assert_contains(r.err,
			"content/r/index.md:3:16: error: 'allow_numbers' must be true or false\n");
	proc_free(&r);
	e2e_drop(&dir);
}

/* Every cell of a series is a value too, by its digits: the loss at
 * step 500 (the log's line 80, in the middle of the series) as the log
 * shows it, and a middle rate written with a thousands comma, named by
 * their row's step; the round step 500 and a rounding of a middle loss
 * (7.80) stay silent, and so do code, headings and an allowed block. */
static void lint_warns_at_a_value_in_the_middle_of_a_series(void **state)
{
	(void)state;
	char *dir = project("---\n"
			    "title: Lint\n"
			    "runs:\n"
			    "  a: logs/a.log\n"
			    "---\n"
			    "## Step 500: 7.80469\n"
			    "\n"
			    "At step 500 the loss was 7.80469 (`7.80469`), about 7.80; the rate\n"
			    "at 600 was 2,946.17 after 500 steps.\n"
			    "\n"
			    "<!-- logdown: allow-number -->\n"
			    "A quoted 7.80469.\n"
			    "\n"
			    "Now {{ a.train[step=500].loss }}.\n");
	struct proc r = e2e_run(dir, "check --lint");
	assert_int_equal(r.status, 0);
	assert_string_equal(
		r.err,
		"content/r/index.md:8:26: warning: 7.80469 is a.train[step=500].loss, 7.80469 "
		"(content/r/logs/a.log:80): write {{ a.train[step=500].loss }}\n"
		"    8 | At step 500 the loss was 7.80469 (`7.80469`), about 7.80; the rate\n"
		"      |                          ^~~~~~~\n"
		"content/r/index.md:9:12: warning: 2,946.17 is a.train[step=600].rate, 2946.17 "
		"(content/r/logs/a.log:81): write {{ a.train[step=600].rate :,.2f }}\n"
		"    9 | at 600 was 2,946.17 after 500 steps.\n"
		"      |            ^~~~~~~~\n"
		"logdown: checked 1 report\n");
	/* the expression the warning suggests shows that very value */
	char *page = e2e_build_body(dir, "");
	assert_contains(page, "Now <a class=\"ld-value\" href=\"logs/a.log.html#L80.1\" "
			      "title=\"content/r/logs/a.log:80\">7.80469</a>.");
	free(page);
	/* and the same from the run's store, its plain decimals matched by
	 * their texts printed back (check --cache after the build) */
	struct proc c = e2e_run(dir, "check --cache --lint");
	assert_int_equal(c.status, 0);
	assert_string_equal(c.err, r.err);
	proc_free(&c);
	proc_free(&r);
	e2e_drop(&dir);
}

/* Linear in the cells: a million-row series and 19,999 hand-typed
 * numbers that each equal a cell near its end.  Telling whether each
 * cell's row is the first with its step would read every row above it
 * once per number (2e10 reads); the reads are capped per report, so
 * the lint costs about what reading the cells once does.  With the
 * release binary, measured against the same check without the numbers. */
static void lint_of_the_middle_stays_linear(void **state)
{
	(void)state;
	const char *rel = bounded_release();
	if (!rel || getenv("LOGDOWN_VALGRIND")) {
		print_message("[  SKIP    ] ./logdown is not built (or under valgrind)\n");
		skip();
	}
	char *dir = e2e_project(E2E_FILES(E2E_TEXT("content/r/index.md", "")));
	struct buf csv = BUF_INIT, md = BUF_INIT;
	buf_puts(&csv, "step,loss\n");
	for (int i = 1; i <= 1000000; i++)
		buf_printf(&csv, "%d,%d.%06d\n", i, 3 + i / 1000000, i % 1000000);
	e2e_write(dir, "content/r/rows.csv", buf_data(&csv));
	const char *front = "---\ntitle: L\nruns:\n  a: rows.csv\n---\n{{ last(a.rows.loss) }}\n\n";
	e2e_write(dir, "content/r/index.md", front);
	const char *argv[] = {"logdown", "check", "--lint", NULL};
	struct bounded base = bounded_run(rel, dir, argv, NULL, 300);
	assert_int_equal(base.status, 0);
	buf_puts(&md, front);
	for (int i = 980001; i < 1000000; i++)
		buf_printf(&md, "3.%06d%s", i, i % 10 ? " " : "\n");
	e2e_write(dir, "content/r/index.md", buf_data(&md));
	struct bounded r = bounded_run(rel, dir, argv, NULL, 300);
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "content/r/index.md:8:1: warning: 3.980001 is a.rows[step=980001].loss, "
			       "3.980001 (content/r/rows.csv:980002): write "
			       "{{ a.rows[step=980001].loss }}\n");
	print_message("           check --lint: CPU %.2f s without the numbers, %.2f s with "
		      "19,999 of them\n",
		      base.cpu_secs, r.cpu_secs);
	if (getenv("LOGDOWN_VALGRIND") == NULL)
		assert_true(r.cpu_secs < base.cpu_secs * 3 + 1.0);
	bounded_free(&base);
	bounded_free(&r);
	buf_free(&csv);
	buf_free(&md);
	e2e_drop(&dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lint_warns_at_each_hand_typed_number),
		cmocka_unit_test(strict_lints_and_fails),
		cmocka_unit_test(front_matter_and_site_switch_it_off),
		cmocka_unit_test(bad_switch_values_are_errors_at_their_column),
		cmocka_unit_test(lint_warns_at_a_value_in_the_middle_of_a_series),
		cmocka_unit_test(lint_of_the_middle_stays_linear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
