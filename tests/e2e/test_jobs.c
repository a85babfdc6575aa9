/* test_jobs.c: `-j N` changes how fast a build is, never what it gives.
 *
 * The example content/ and a generated many-report project are built
 * with -j 1 and -j 8: the trees must be byte-identical and the
 * diagnostics the same text in the same order (report order), also when
 * reports have errors. */
#include "e2e.h"

#define NREPORTS 24

/* Runs `diff -r a b` quietly: true when the trees are identical. */
static bool same_tree(const char *a, const char *b)
{
	char *cmd = xasprintf("diff -r '%s' '%s' >/dev/null 2>&1", a, b);
	int st = system(cmd);
	free(cmd);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void copy_tree(const char *from, const char *to)
{
	char *cmd = xasprintf("cp -a '%s' '%s'", from, to);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* NREPORTS reports, each with its own small Cerebras log, a chart and
 * a table.  With `warn`, every third report also names a run it never
 * uses (a warning); with `fail`, every fifth one names an unknown run
 * (an error). */
static char *many_reports(bool warn, bool fail)
{
	char *dir = e2e_tmpdir();
	for (int i = 0; i < NREPORTS; i++) {
		char *rel = xasprintf("content/r%02d/logs/run.log", i);
		e2e_copy(dir, rel, "tests/fixtures/cerebras/bs512.log");
		free(rel);
		struct buf md = BUF_INIT;
		buf_printf(&md,
			   "---\ntitle: Report %d\ndate: 2024-04-%02d\nruns:\n  cs: logs/run.log\n",
			   i, 1 + i % 28);
		if (warn && i % 3 == 0)
			buf_puts(&md, "  spare: logs/run.log\n");
		buf_printf(&md, "---\n# Report %d\n\nFinal loss {{ cs.final_loss }} after "
				"{{ cs.final_step }} steps.\n\n", i);
		if (fail && i % 5 == 0)
			buf_printf(&md, "Broken {{ nothing%d.loss }}.\n\n", i);
		buf_puts(&md, "```{chart}\ntype: line\nseries: [cs]\nx: train.step\ny: train.loss\n"
			      "```\n\n```{table}\nrows: [cs]\ncolumns:\n  Loss: final_loss\n```\n");
		char *mdrel = xasprintf("content/r%02d/index.md", i);
		e2e_write(dir, mdrel, buf_data(&md));
		free(mdrel);
		buf_free(&md);
	}
	return dir;
}

static void example_content_is_identical_with_1_and_8_threads(void **state)
{
	(void)state;
	char *tmp = e2e_tmpdir();
	char *cwd = getcwd(NULL, 0);
	struct proc one = e2e_run(cwd, "build . -o '%s/one' -j 1", tmp);
	struct proc eight = e2e_run(cwd, "build . -o '%s/eight' --jobs 8", tmp);
	assert_int_equal(one.status, 0);
	assert_int_equal(eight.status, 0);
	char *a = path_join(tmp, "one"), *b = path_join(tmp, "eight");
	assert_true(same_tree(a, b));
	/* the same warnings, in the same order, before the summary line */
	char *sa = strstr(one.err, "logdown: built"), *sb = strstr(eight.err, "logdown: built");
	assert_non_null(sa);
	assert_non_null(sb);
	assert_int_equal(sa - one.err, sb - eight.err);
	assert_memory_equal(one.err, eight.err, (size_t)(sa - one.err));
	free(a);
	free(b);
	proc_free(&one);
	proc_free(&eight);
	free(cwd);
	remove_tree(tmp);
	free(tmp);
}

static void many_reports_are_identical_with_1_and_8_threads(void **state)
{
	(void)state;
	char *dir = many_reports(true, false);
	struct proc one = e2e_run(dir, "build -j1");
	assert_int_equal(one.status, 0);
	char *site = path_join(dir, "_site"), *first = path_join(dir, "first");
	copy_tree(site, first);
	struct proc eight = e2e_run(dir, "build -j 8");
	assert_int_equal(eight.status, 0);
	assert_true(same_tree(site, first));
	assert_string_equal(one.err, eight.err);
	/* the warnings come in report order */
	assert_contains(one.err, "content/r00/index.md:6:3: warning: run 'spare' is never used");
	const char *w0 = strstr(one.err, "r00/index.md"), *w9 = strstr(one.err, "r09/index.md"),
		   *w21 = strstr(one.err, "r21/index.md");
	assert_true(w0 && w9 && w21 && w0 < w9 && w9 < w21);
	char *page = e2e_read(dir, "_site/r17/index.html");
	assert_contains(page, "Report 17");
	assert_contains(page, "figures/figure-1.svg");
	free(page);
	char *svg = e2e_read(dir, "_site/r17/figures/figure-1.svg");
	assert_non_null(svg);
	free(svg);
	free(site);
	free(first);
	proc_free(&one);
	proc_free(&eight);
	remove_tree(dir);
	free(dir);
}

/* cmark-gfm keeps its extensions' inline characters in one table for
 * the whole process, set and cleared by every parse: pages parsed on
 * several threads at once read strikethrough, autolinks and tables
 * differently now and then unless parses take turns. */
static void gfm_extensions_read_the_same_on_8_threads(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	for (int i = 0; i < 150; i++) {
		struct buf md = BUF_INIT;
		buf_printf(&md, "---\ntitle: R%d\n---\n", i);
		for (int k = 0; k < 30; k++)
			buf_printf(&md,
				   "Line %d ~~struck %d~~ and www.example.org/%d, ~x~ and "
				   "https://e.org/%d\n\n| a | b |\n|---|---|\n| ~~c~~ | www.x.org |\n\n",
				   k, k, k, k);
		char *rel = xasprintf("content/r%03d.md", i);
		e2e_write(dir, rel, buf_data(&md));
		free(rel);
		buf_free(&md);
	}
	struct proc one = e2e_run(dir, "build -j 1 --no-cache -o one");
	assert_int_equal(one.status, 0);
	char *a = path_join(dir, "one"), *b = path_join(dir, "eight");
	for (int round = 0; round < 3; round++) {
		struct proc eight = e2e_run(dir, "build -j 8 --no-cache -o eight");
		assert_int_equal(eight.status, 0);
		assert_true(same_tree(a, b));
		proc_free(&eight);
	}
	char *page = e2e_read(dir, "one/r007/index.html");
	assert_contains(page, "<del>struck 3</del>");
	assert_contains(page, "<a href=\"http://www.example.org/3\">www.example.org/3</a>");
	free(page);
	free(a);
	free(b);
	proc_free(&one);
	remove_tree(dir);
	free(dir);
}

static void errors_come_in_report_order_whatever_the_threads(void **state)
{
	(void)state;
	char *dir = many_reports(true, true);
	struct proc one = e2e_run(dir, "build -j 1");
	struct proc eight = e2e_run(dir, "build -j 8 --diagnostics=text");
	assert_int_equal(one.status, 1);
	assert_int_equal(eight.status, 1);
	assert_string_equal(one.err, eight.err);
	assert_contains(one.err, "content/r05/index.md:11:11: error: run 'nothing5' is not defined");
	const char *e0 = strstr(one.err, "nothing0"), *e5 = strstr(one.err, "nothing5"),
		   *e20 = strstr(one.err, "nothing20");
	assert_true(e0 && e5 && e20 && e0 < e5 && e5 < e20);
	assert_contains(one.err, "logdown: 5 errors; the previous output was left as it was");
	struct proc json1 = e2e_run(dir, "check -j 1 --diagnostics=json");
	struct proc json8 = e2e_run(dir, "check -j 8 --diagnostics=json");
	assert_int_equal(json1.status, 1);
	assert_string_equal(json1.err, json8.err);
	proc_free(&json1);
	proc_free(&json8);
	proc_free(&one);
	proc_free(&eight);
	remove_tree(dir);
	free(dir);
}

/* 40 short reports, for the tests of the threads that read them and
 * write their pages. */
static char *plain_reports(void)
{
	char *dir = e2e_tmpdir();
	for (int i = 0; i < 40; i++) {
		char *rel = xasprintf("content/p%02d.md", i);
		char *md = xasprintf("---\ntitle: Page %d\ndate: 2024-05-%02d\n---\n# Page %d\n\n"
				     "Text of page %d.\n\n## More\n\nAnd more.\n",
				     i, 1 + i % 28, i, i);
		e2e_write(dir, rel, md);
		free(md);
		free(rel);
	}
	return dir;
}

/* With every partial of the page template found, each page is written
 * in its render turn, on any thread: the same bytes as one thread. */
static void pages_through_partials_are_identical_with_1_and_8_threads(void **state)
{
	(void)state;
	char *dir = plain_reports();
	e2e_write(dir, "templates/page.html",
		  "<nav>{{> nav}}</nav>{{#toc}}<aside>{{> side}}</aside>{{/toc}}"
		  "<main>{{{content}}}</main>\n");
	e2e_write(dir, "templates/partials/nav.html", "<a href=\"{{root}}index.html\">{{title}}</a>");
	e2e_write(dir, "templates/partials/side.html", "{{{toc}}}");
	struct proc one = e2e_run(dir, "build -j 1 --no-cache -o one");
	struct proc eight = e2e_run(dir, "build -j 8 --no-cache -o eight");
	assert_int_equal(one.status, 0);
	assert_int_equal(eight.status, 0);
	assert_string_equal(one.err, "logdown: built 40 reports into one\n");
	assert_string_equal(eight.err, "logdown: built 40 reports into eight\n");
	char *a = path_join(dir, "one"), *b = path_join(dir, "eight");
	assert_true(same_tree(a, b));
	char *page = e2e_read(dir, "eight/p17/index.html");
	assert_contains(page, "<nav><a href=\"../index.html\">Page 17</a></nav><aside>");
	assert_contains(page, "<main><h1");
	free(page);
	free(a);
	free(b);
	proc_free(&one);
	proc_free(&eight);

	/* a missing partial: the pages are written on one thread, and the
	 * warning comes once, where one thread put it */
	e2e_write(dir, "templates/page.html", "{{> gone}}{{{content}}}");
	one = e2e_run(dir, "build -j 1 --no-cache -o one");
	eight = e2e_run(dir, "build -j 8 --no-cache -o eight");
	assert_int_equal(eight.status, 0);
	const char *want = "templates/page.html: warning: template 'gone' for {{> gone}} or "
			   "{{< gone}} not found (looked for templates/partials/gone.html and "
			   "templates/gone.html)\n"
			   "logdown: built 40 reports into ";
	assert_memory_equal(eight.err, want, strlen(want));
	assert_string_equal(eight.err + strlen(want), "eight\n");
	assert_memory_equal(one.err, eight.err, strlen(want));
	proc_free(&one);
	proc_free(&eight);
	remove_tree(dir);
	free(dir);
}

/* The reports' files are read and their front matter parsed on every
 * thread; what the walk and the reading report comes in the walk's
 * order, as one thread gave it, and what is left out (a draft bundle,
 * a slug taken twice) leaves out its bundle's files and warnings. */
static void reports_read_on_8_threads_report_as_one_thread(void **state)
{
	(void)state;
	char *dir = plain_reports();
	e2e_write(dir, "content/p03.md", "---\ntitle: never closed\n");
	e2e_write(dir, "content/q07/index.md", "---\ntitle: Draft\ndraft: true\n---\nHidden.\n");
	e2e_write(dir, "content/q07/plot.png", "PNG7");
	e2e_write(dir, "content/q07/notes.md", "a note");
	e2e_write(dir, "content/q11/index.md", "---\ntitle: Bundle\n---\nShown.\n");
	e2e_write(dir, "content/q11/plot.png", "PNG11");
	e2e_write(dir, "content/q11/notes.md", "a note");
	e2e_write(dir, "content/p15/index.md", "---\ntitle: Twin\n---\n");
	e2e_write(dir, "content/p15/twin.png", "PNG15");
	e2e_write(dir, "content/p20.md", "---\ntitle: [unclosed\n---\n");
	struct proc one = e2e_run(dir, "check -j 1");
	struct proc eight = e2e_run(dir, "check -j 8");
	assert_int_equal(one.status, 1);
	assert_int_equal(eight.status, 1);
	assert_string_equal(one.err, eight.err);
	const char *e3 = strstr(one.err, "content/p03.md:1:1: error: front matter is never closed");
	const char *w11 = strstr(one.err, "content/q11/notes.md: warning: not a report");
	const char *e15 = strstr(one.err, "content/p15.md: error: this report and "
					  "content/p15/index.md both become p15/index.html");
	const char *e20 = strstr(one.err, "content/p20.md:2:");
	assert_true(e3 && w11 && e15 && e20 && e3 < e15 && e15 < e20 && e20 < w11);
	/* the draft's folder is not a report's: nothing said about it */
	assert_null(strstr(one.err, "q07"));
	proc_free(&one);
	proc_free(&eight);

	e2e_write(dir, "content/p03.md", "---\ntitle: closed\n---\n");
	e2e_write(dir, "content/p20.md", "---\ntitle: fine\n---\n");
	char *twin = path_join(dir, "content/p15.md");
	assert_int_equal(unlink(twin), 0);
	free(twin);
	one = e2e_run(dir, "build -j 1 --no-cache -o one");
	eight = e2e_run(dir, "build -j 8 --no-cache -o eight");
	assert_int_equal(one.status, 0);
	assert_int_equal(eight.status, 0);
	char *a = path_join(dir, "one"), *b = path_join(dir, "eight");
	assert_true(same_tree(a, b));
	char *png = e2e_read(dir, "eight/q11/plot.png");
	assert_string_equal(png, "PNG11");
	free(png);
	png = e2e_read(dir, "eight/p15/twin.png");
	assert_string_equal(png, "PNG15");
	free(png);
	char *gone = path_join(dir, "eight/q07");
	assert_false(path_exists(gone));
	free(gone);
	assert_contains(eight.err, "(1 draft left out; --drafts includes them)");
	free(a);
	free(b);
	proc_free(&one);
	proc_free(&eight);
	remove_tree(dir);
	free(dir);
}

/* Code lines coloured once are kept for the next time they come, in a
 * table the threads share (resolve/highlight.c): 120 reports whose code
 * blocks repeat the same lines, some of them inside a string that
 * spans lines, give the same pages on 1 and 8 threads, each line
 * coloured by where it stands. */
static void code_lines_kept_are_identical_with_1_and_8_threads(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	for (int i = 0; i < 120; i++) {
		struct buf md = BUF_INIT;
		buf_printf(&md, "---\ntitle: C%d\n---\n\n", i);
		for (int k = 0; k < 3; k++)
			buf_printf(&md,
				   "```python\nx = 1\nimport re, csv\ns = \"\"\"\nx = 1\n"
				   "import re, csv\n\"\"\"\nrun_%d = open(\"run_%d.log\")\nx = 1\n```\n\n"
				   "```bash\npython run.py --steps %d \\\n    --out run_%d.log\n"
				   "grep 'loss' run_%d.log | tail -n 3\n```\n\n",
				   (i + k) % 7, i % 5, k, i % 3, k);
		char *rel = xasprintf("content/c%03d.md", i);
		e2e_write(dir, rel, buf_data(&md));
		free(rel);
		buf_free(&md);
	}
	struct proc one = e2e_run(dir, "build -j 1 --no-cache -o one");
	assert_int_equal(one.status, 0);
	struct proc eight = e2e_run(dir, "build -j 8 --no-cache -o eight");
	assert_int_equal(eight.status, 0);
	char *a = path_join(dir, "one"), *b = path_join(dir, "eight");
	assert_true(same_tree(a, b));
	char *page = e2e_read(dir, "eight/c117/index.html");
	/* x = 1 in the code a number, in the string a string */
	assert_contains(page, "\nx = <span class=\"hl-number\">1</span>\n");
	assert_contains(page, "\n<span class=\"hl-string\">x = 1</span>\n");
	free(page);
	free(a);
	free(b);
	proc_free(&one);
	proc_free(&eight);
	remove_tree(dir);
	free(dir);
}

static void jobs_must_be_a_positive_number(void **state)
{
	(void)state;
	char *dir = many_reports(false, false);
	static const char *const bad[] = {"-j 0", "-j x", "-j", "--jobs=-3", "-j2x", "-j 99999"};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		struct proc r = e2e_run(dir, "build %s", bad[i]);
		assert_int_equal(r.status, 2);
		assert_contains(r.err, "-j takes a number of threads from 1 to 1024");
		char *site = path_join(dir, "_site");
		assert_false(path_exists(site));
		free(site);
		proc_free(&r);
	}
	struct proc ok = e2e_run(dir, "check -j3");
	assert_int_equal(ok.status, 0);
	assert_contains(ok.err, "logdown: checked 24 reports");
	proc_free(&ok);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(example_content_is_identical_with_1_and_8_threads),
		cmocka_unit_test(many_reports_are_identical_with_1_and_8_threads),
		cmocka_unit_test(gfm_extensions_read_the_same_on_8_threads),
		cmocka_unit_test(errors_come_in_report_order_whatever_the_threads),
		cmocka_unit_test(pages_through_partials_are_identical_with_1_and_8_threads),
		cmocka_unit_test(reports_read_on_8_threads_report_as_one_thread),
		cmocka_unit_test(code_lines_kept_are_identical_with_1_and_8_threads),
		cmocka_unit_test(jobs_must_be_a_positive_number),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
