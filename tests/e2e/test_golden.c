/* test_golden.c: golden tests of whole reports.
 *
 * Each folder tests/golden/<case>/ is a small project, a report
 * content/r/index.md and the logs it names, together with what logdown
 * must make of it:
 *
 *   expected.html  the body of _site/r/index.html: exactly what the page
 *                  template's {{{content}}} expanded to, that is the
 *                  bytes after `<div class="ld-content">` and its
 *                  newline, up to the "\n</div>\n</article>" that closes
 *                  it (the last one on the page).  The page around it
 *                  (head, title, navigation) is left out, so that a
 *                  change to the theme does not touch every case.
 *   expected.err   the exact stderr.
 *   README         (optional) why the case expects what it does, where
 *                  its name, a claim, does not say it all.
 *
 * A case with expected.html is built (`logdown build`) in a temporary
 * copy of its folder: the build must succeed, its body must be
 * expected.html, and its stderr expected.err when there is one, else
 * just "logdown: built 1 report into _site".  A case with only
 * expected.err is checked (`logdown check`): stderr must be expected.err,
 * and the exit status 1 when that holds an error, else 0; when it holds
 * an error, `logdown build` must fail too (exit 1) and write no _site.
 * A difference prints `diff -u expected actual` and fails the case.
 *
 * The content folder may hold more reports than r (a case about errors
 * in one report beside a good one); only r's page is compared.
 *
 * A case is named as the claim it makes (values-inside-link-text-do-not-
 * nest-links, unknown-run-is-an-error-with-a-suggestion) and holds only
 * the logs its report names.  What a golden file cannot say (a file
 * written in _site, a figure's bytes, a second build) stays a C test in
 * the e2e file of its subject, test_refs.c or test_charts.c.
 *
 * Running one case: ./build/asan/test_golden CASE...
 *
 * Regenerating: when a change of output is intended, run
 *
 *   UPDATE_GOLDEN=1 ./build/asan/test_golden [CASE...]
 *
 * which rewrites the expected files of the cases (all by default) from
 * what logdown does now, then review them with `git diff tests/golden`.
 * Run it with the sanitizer options of tests/run.sh (LSAN_OPTIONS with
 * tests/lsan.supp): else the leak report of the font caches, which the
 * ASan logdown prints on stderr after a chart, lands in expected.err.
 * A new case with neither file gets expected.html when it builds
 * (and expected.err when the build says more than the summary), and
 * expected.err when it does not. */
#include "e2e.h"

#define GOLDEN "tests/golden"
#define BUILT "logdown: built 1 report into _site\n"

static bool updating;

/* One case while it runs; released by case_cleanup() whatever happened. */
struct gcase {
	const char *name;
	char *src;  /* tests/golden/<name> */
	char *tmp;  /* the temporary copy */
	struct proc r;
	char *page, *body, *want_html, *want_err;
};

/* Copies the folder from into to (which exists), leaving out the
 * expected files and the README at its top. */
static void copy_tree(const char *from, const char *to, bool top)
{
	size_t n;
	char **names = dir_list(from, &n);
	assert_non_null(names);
	for (size_t i = 0; i < n; i++) {
		if (top && (str_has_prefix(names[i], "expected.") || strcmp(names[i], "README") == 0))
			continue;
		char *a = path_join(from, names[i]);
		char *b = path_join(to, names[i]);
		if (is_dir(a)) {
			assert_true(mkdir_p(b));
			copy_tree(a, b, false);
		} else {
			assert_true(file_copy(a, b));
		}
		free(a);
		free(b);
	}
	strv_free(names);
}

/* Compares what logdown gave with the expected file `what` of the case;
 * prints the difference and returns false when they differ.  When
 * updating, rewrites the file instead. */
static bool same(struct gcase *c, const char *what, const char *want, const char *got)
{
	if (want && strcmp(want, got) == 0)
		return true;
	char *path = xasprintf("%s/%s", c->src, what);
	if (updating) {
		assert_true(file_write(path, got, strlen(got)));
		printf("updated %s\n", path);
		free(path);
		return true;
	}
	char *actual = path_join(c->tmp, what);
	assert_true(file_write(actual, got, strlen(got)));
	char *cmd = xasprintf("diff -u --label '%s' --label '%s (actual)' '%s' '%s'", path, what,
			      want ? path : "/dev/null", actual);
	fflush(stdout);
	int st = system(cmd);
	(void)st;
	fflush(stdout);
	free(cmd);
	free(actual);
	free(path);
	return false;
}

static void build_case(struct gcase *c)
{
	c->r = e2e_run(c->tmp, "build");
	if (c->r.status != 0)
		fail_msg("%s: logdown build exited %d:\n%s", c->name, c->r.status, c->r.err);
	c->page = e2e_read(c->tmp, "_site/r/index.html");
	c->body = e2e_page_body(c->page); /* the cut: see the top */
	if (!c->body)
		fail_msg("%s: _site/r/index.html has no <div class=\"ld-content\">", c->name);
	bool ok = same(c, "expected.html", c->want_html, c->body);
	if (c->want_err || strcmp(c->r.err, BUILT) != 0)
		ok = same(c, "expected.err", c->want_err, c->r.err) && ok;
	if (!ok)
		fail_msg("%s: the output differs from the expected (UPDATE_GOLDEN=1 accepts it)",
			 c->name);
}

static void check_case(struct gcase *c)
{
	c->r = e2e_run(c->tmp, "check");
	bool ok = same(c, "expected.err", c->want_err, c->r.err);
	int want = strstr(c->r.err, ": error: ") ? 1 : 0;
	if (c->r.status != want) {
		printf("%s: logdown check exited %d, not %d\n", c->name, c->r.status, want);
		ok = false;
	}
	if (want == 1) {
		/* what check rejects, build rejects too, writing nothing */
		struct proc b = e2e_run(c->tmp, "build");
		char *site = path_join(c->tmp, "_site");
		if (b.status != 1 || path_exists(site)) {
			printf("%s: logdown build exited %d%s, not 1 writing nothing:\n%s", c->name,
			       b.status, path_exists(site) ? " and wrote _site" : "",
			       b.err ? b.err : "");
			ok = false;
		}
		free(site);
		proc_free(&b);
	}
	if (!ok)
		fail_msg("%s: the diagnostics differ from the expected (UPDATE_GOLDEN=1 accepts "
			 "them)",
			 c->name);
}

static void run_case(void **state)
{
	struct gcase *c = *state;
	c->src = path_join(GOLDEN, c->name);
	c->tmp = e2e_tmpdir();
	copy_tree(c->src, c->tmp, true);
	c->want_html = e2e_read(c->src, "expected.html");
	c->want_err = e2e_read(c->src, "expected.err");
	if (c->want_html) {
		build_case(c);
	} else if (c->want_err) {
		check_case(c);
	} else if (!updating) {
		fail_msg("%s has neither expected.html nor expected.err (UPDATE_GOLDEN=1 writes "
			 "them)",
			 c->name);
	} else {
		/* a new case: whatever it gives */
		c->r = e2e_run(c->tmp, "build");
		int status = c->r.status;
		proc_free(&c->r);
		if (status == 0)
			build_case(c);
		else
			check_case(c);
	}
}

static int case_cleanup(void **state)
{
	struct gcase *c = *state;
	proc_free(&c->r);
	c->r = (struct proc){0};
	free(c->page);
	free(c->body);
	free(c->want_html);
	free(c->want_err);
	if (c->tmp)
		remove_tree(c->tmp);
	free(c->tmp);
	free(c->src);
	*c = (struct gcase){.name = c->name};
	return 0;
}

int main(int argc, char **argv)
{
	const char *u = getenv("UPDATE_GOLDEN");
	updating = u && *u && strcmp(u, "0") != 0;

	size_t n;
	char **names = dir_list(GOLDEN, &n);
	if (!names) {
		fprintf(stderr, "test_golden: cannot list %s (run from the repository root)\n",
			GOLDEN);
		return 1;
	}
	struct gcase *cases = xcalloc(n + (size_t)argc, sizeof *cases);
	struct CMUnitTest *tests = xcalloc(n + (size_t)argc, sizeof *tests);
	/* Under memcheck (tests/valgrind.sh) every second case runs: the
	 * cases share most of their code paths, and all of them would be
	 * a quarter of the CI run.  ASan runs them all. */
	bool sample = getenv("LOGDOWN_VALGRIND") && argc < 2;
	size_t count = 0, dirs = 0;
	for (size_t i = 0; i < n; i++) {
		char *dir = path_join(GOLDEN, names[i]);
		bool wanted = is_dir(dir) && argc < 2 && (!sample || dirs++ % 2 == 0);
		for (int a = 1; a < argc; a++)
			wanted = wanted || (is_dir(dir) && strcmp(argv[a], names[i]) == 0);
		free(dir);
		if (!wanted)
			continue;
		cases[count].name = names[i];
		tests[count] = (struct CMUnitTest){
			.name = names[i],
			.test_func = run_case,
			.teardown_func = case_cleanup,
			.initial_state = &cases[count],
		};
		count++;
	}
	if (sample)
		printf("test_golden: under valgrind, every second case: %zu of %zu\n", count, dirs);
	int failed = 0;
	if (count == 0) {
		fprintf(stderr, "test_golden: no case under %s matches\n", GOLDEN);
		failed = 1;
	} else {
		failed = _cmocka_run_group_tests("golden", tests, count, NULL, NULL);
	}
	free(tests);
	free(cases);
	strv_free(names);
	return failed;
}
