/* test_gencorpus.c: the benchmark corpus (tools/gencorpus.c, run as
 * build/gencorpus) is deterministic, has the promised shape, and builds as
 * logdown projects. */
#include "e2e.h"

#define GEN "build/gencorpus"

/* Runs a shell command from the repository root; returns its exit status. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	struct buf cmd = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	int st = system(buf_data(&cmd));
	buf_free(&cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The first line of what a shell command prints.  Caller frees. */
static char *sh_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *sh_line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *out = e2e_shv(NULL, fmt, ap);
	va_end(ap);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

static void same_seed_same_bytes_other_seed_other_bytes(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	const char *opts = "--log-size 200k --pages 5 --points 1000 --reports 3";
	assert_int_equal(sh(GEN " --seed 7 %s %s/a 2>/dev/null", opts, dir), 0);
	assert_int_equal(sh(GEN " --seed 7 %s %s/b 2>/dev/null", opts, dir), 0);
	assert_int_equal(sh(GEN " --seed 8 %s %s/c 2>/dev/null", opts, dir), 0);
	assert_int_equal(sh("diff -r %s/a %s/b", dir, dir), 0);
	assert_int_equal(sh("cmp -s %s/a/logs/cerebras-200k.log %s/c/logs/cerebras-200k.log", dir, dir),
			 1);
	assert_int_equal(sh("cmp -s %s/a/site-5/content/reports/report-00002.md "
			    "%s/c/site-5/content/reports/report-00002.md", dir, dir), 1);
	remove_tree(dir);
	free(dir);
}

static void a_smaller_corpus_is_a_prefix_of_a_larger_one(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	assert_int_equal(sh(GEN " --log-size 100k --log-size 300k --pages 3 --pages 6 %s 2>/dev/null",
			    dir), 0);
	/* Page i depends on (seed, i) alone. */
	for (int i = 1; i <= 3; i++)
		assert_int_equal(sh("cmp -s %s/site-3/content/reports/report-%05d.md "
				    "%s/site-6/content/reports/report-%05d.md", dir, i, dir, i), 0);
	/* The small log, less its closing lines, starts the large one. */
	assert_int_equal(sh("head -n -5 %s/logs/cerebras-100k.log > %s/small && "
			    "head -c $(stat -c %%s %s/small) %s/logs/cerebras-300k.log | cmp -s - %s/small",
			    dir, dir, dir, dir, dir), 0);
	remove_tree(dir);
	free(dir);
}

static void the_log_has_the_size_and_lines_asked_for(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	assert_int_equal(sh(GEN " --log-size 1Mi %s 2>/dev/null", dir), 0);
	char *log = xasprintf("%s/logs/cerebras-1Mi.log", dir);
	char *size = sh_line("stat -c %%s %s", log);
	long n = atol(size);
	assert_true(n > 1048576 - 200 && n < 1048576 + 200);
	char *first = sh_line("head -n 1 %s", log);
	assert_contains(first, " INFO:   Effective batch size is 512.");
	char *last = sh_line("tail -n 1 %s", log);
	assert_contains(last, " INFO:   Processed ");
	assert_contains(last, " sample(s) in ");
	/* logdown reads every progress line of it. */
	char *train = sh_line("grep -c 'INFO:   | Train Device=CSX, Step=' %s", log);
	struct proc r = e2e_run(dir, "parse logs/cerebras-1Mi.log --csv train");
	assert_int_equal(r.status, 0);
	size_t rows = 0;
	for (const char *p = r.out; (p = strchr(p, '\n')); p++)
		rows++;
	assert_int_equal(rows, (size_t)atol(train) + 1); /* and the header */
	assert_true(atol(train) > 5000);
	assert_contains(r.out, "step,loss,rate,global_rate\n100,");
	proc_free(&r);
	free(train);
	free(last);
	free(first);
	free(size);
	free(log);
	remove_tree(dir);
	free(dir);
}

static void the_projects_build_with_logdown(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	assert_int_equal(sh(GEN " --pages 12 --points 5000 --reports 4 %s 2>/dev/null", dir), 0);

	/* The Markdown site, with Hugo's configuration beside it. */
	char *md = e2e_read(dir, "site-12/content/reports/report-00001.md");
	assert_non_null(md);
	assert_true(strncmp(md, "---\ntitle: \"", 12) == 0);
	assert_contains(md, "\ndate: 2024-");
	assert_contains(md, "\n## Overview\n");
	assert_contains(md, "\n|-----|------:|");
	assert_contains(md, "\n```");
	char *toml = e2e_read(dir, "site-12/config.toml");
	assert_contains(toml, "disableKinds");
	struct proc r = e2e_run(dir, "build site-12 -o out-site");
	assert_string_equal(r.err, "logdown: built 12 reports into out-site\n");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	char *page = e2e_read(dir, "out-site/reports/report-00012/index.html");
	assert_contains(page, "<table>");
	assert_contains(page, "<h2");

	/* The chart of every point of the CSV. */
	char *csv = e2e_read(dir, "chart-5000/content/loss/points.csv");
	assert_true(strncmp(csv, "step,loss\n1,", 12) == 0);
	e2e_ok(dir, "build chart-5000 -o out-chart");
	char *svg = e2e_read(dir, "out-chart/loss/figures/fig-loss.svg");
	assert_non_null(svg);
	assert_contains(svg, "<svg");

	/* Many small reports, each showing a value of its own log. */
	r = e2e_run(dir, "build reports-4 -o out-reports");
	assert_string_equal(r.err, "logdown: built 4 reports into out-reports\n");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	char *step = sh_line("grep -o 'Step=[0-9]*' %s/reports-4/content/r-00003/run.log | tail -n 1",
			     dir);
	char *html = e2e_read(dir, "out-reports/r-00003/index.html");
	char *want = xasprintf("\">%s</a> steps at batch size", step + 5);
	assert_contains(html, want);
	assert_not_contains(html, "ld-missing");
	assert_contains(html, "samples/s.</p>");

	free(want);
	free(html);
	free(step);
	free(svg);
	free(csv);
	free(page);
	free(toml);
	free(md);
	remove_tree(dir);
	free(dir);
}

static void bad_arguments_are_usage_errors(void **state)
{
	(void)state;
	assert_int_equal(sh(GEN " 2>/dev/null"), 2);
	assert_int_equal(sh(GEN " --log-size 12X /tmp/never 2>/dev/null"), 2);
	assert_int_equal(sh(GEN " --pages 0 /tmp/never 2>/dev/null"), 2);
	assert_int_equal(sh(GEN " --seed x --pages 1 /tmp/never 2>/dev/null"), 2);
	assert_int_equal(sh("test -e /tmp/never"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_seed_same_bytes_other_seed_other_bytes),
		cmocka_unit_test(a_smaller_corpus_is_a_prefix_of_a_larger_one),
		cmocka_unit_test(the_log_has_the_size_and_lines_asked_for),
		cmocka_unit_test(the_projects_build_with_logdown),
		cmocka_unit_test(bad_arguments_are_usage_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
