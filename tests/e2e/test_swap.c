/* test_swap.c: how a cached rebuild replaces the output (outdir.h).
 *
 * Unchanged report folders move over from the previous output on
 * commit; the previous output is removed by a detached child after the
 * build has returned; a build killed at any moment leaves either the
 * previous output or the new one, or a journal from which the next
 * build puts moved folders back; leftovers of dead processes are swept.
 * A handoff to that child that stalls or fails is given up within
 * seconds and the build removes the previous output itself.  Every
 * output is compared with a --no-cache build's. */
#include "e2e.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char report_fmt[] = "---\ntitle: R%d\nruns:\n  cs: ../logs/r%d.log\n---\n"
				 "R%d loss {{ cs.final_loss }}.\n";

/* n reports r0..r(n-1), each with its own log; r0 is a bundle with an
 * image, x.md has a nested report x/y.md. */
static char *project(int n)
{
	char *dir = e2e_tmpdir();
	for (int i = 0; i < n; i++) {
		char *rel = xasprintf("logs/r%d.log", i);
		e2e_copy(dir, rel, "tests/fixtures/cerebras/bs512.log");
		free(rel);
		char *md = xasprintf(report_fmt, i, i, i);
		rel = i == 0 ? xstrdup("content/r0/index.md") : xasprintf("content/r%d.md", i);
		if (i == 0) {
			free(md);
			md = xasprintf("---\ntitle: R0\nruns:\n  cs: ../../logs/r0.log\n---\n"
				       "R0 {{ cs.final_loss }}.\n\n![img](pic.png)\n");
		}
		e2e_write(dir, rel, md);
		free(rel);
		free(md);
	}
	e2e_write(dir, "content/r0/pic.png", "not really a png");
	e2e_write(dir, "content/x.md", "---\ntitle: X\n---\nX.\n");
	return dir;
}

static void append(const char *dir, int i)
{
	char *path = xasprintf("%s/logs/r%d.log", dir, i);
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	fprintf(f, "2024-03-30 15:59:0%d,000 INFO:   note\n", i % 10);
	fclose(f);
	free(path);
}

static int sh(const char *fmt, const char *a, const char *b)
{
	char *cmd = xasprintf(fmt, a, b);
	int st = system(cmd);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The --no-cache build of dir's sources, in dir/full. */
static void full_build(const char *dir)
{
	sh("rm -rf '%s/full'%s", dir, "");
	e2e_ok(dir, "build --no-cache -o full");
}

static bool same_tree(const char *dir, const char *a, const char *b)
{
	char *pa = path_join(dir, a);
	bool same = sh("diff -r '%s' '%s' >/dev/null 2>&1", pa, b) == 0;
	free(pa);
	return same;
}

/* Names in dir starting with prefix. */
static size_t count_prefixed(const char *dir, const char *prefix)
{
	size_t n, count = 0;
	char **names = dir_list(dir, &n);
	for (size_t i = 0; names && i < n; i++)
		count += str_has_prefix(names[i], prefix);
	strv_free(names);
	return count;
}

/* Waits up to 20 s for the staging folders (the previous output being
 * removed by a child) to be gone. */
static void wait_swept(const char *dir)
{
	struct timespec ts = {0, 10000000L};
	for (int i = 0; i < 2000 && count_prefixed(dir, "._site.tmp-") > 0; i++)
		nanosleep(&ts, NULL);
	if (count_prefixed(dir, "._site.tmp-") > 0)
		sh("ls -la '%s' '%s'/._site.tmp-* >&2", dir, dir);
	assert_int_equal(count_prefixed(dir, "._site.tmp-"), 0);
}

static void unchanged_folders_move_over_and_the_old_output_goes(void **state)
{
	(void)state;
	char *dir = project(4);
	e2e_ok(dir, "build -v");
	char *old_page = path_join(dir, "_site/r2");
	struct stat before;
	assert_int_equal(stat(old_page, &before), 0);

	append(dir, 1);
	struct proc r = e2e_run(dir, "build -v");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "logdown: 5 reports: 1 rendered, 4 from cache");
	proc_free(&r);
	/* r2's folder is the same folder, moved, not made again */
	struct stat after;
	assert_int_equal(stat(old_page, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	full_build(dir);
	char *full = path_join(dir, "full");
	assert_true(same_tree(dir, "_site", full));
	wait_swept(dir);

	/* a new report below a reused one (x/y below x): x's folder is
	 * linked file by file, never moved with y inside */
	e2e_write(dir, "content/x/y.md", "---\ntitle: Y\n---\nY.\n");
	r = e2e_run(dir, "build -v");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "logdown: 6 reports: 1 rendered, 5 from cache");
	proc_free(&r);
	full_build(dir);
	assert_true(same_tree(dir, "_site", full));
	/* the bundle's image removed, then back with other bytes: r0 is
	 * rendered again each time, its folder never moved */
	char *pic = path_join(dir, "content/r0/pic.png");
	assert_int_equal(unlink(pic), 0);
	r = e2e_run(dir, "build -v");
	assert_contains(r.err, "logdown: 6 reports: 1 rendered, 5 from cache");
	proc_free(&r);
	full_build(dir);
	assert_true(same_tree(dir, "_site", full));
	e2e_write(dir, "content/r0/pic.png", "another image");
	r = e2e_run(dir, "build -v");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "logdown: 6 reports: 1 rendered, 5 from cache");
	proc_free(&r);
	full_build(dir);
	assert_true(same_tree(dir, "_site", full));
	wait_swept(dir);
	free(pic);
	free(full);
	free(old_page);
	remove_tree(dir);
	free(dir);
}

/* The state a commit killed halfway through its moves leaves: r2's
 * folder in the dead build's staging folder, listed in its journal. */
static void a_killed_commit_is_undone_by_the_next_build(void **state)
{
	(void)state;
	char *dir = project(3);
	e2e_ok(dir, "build");
	e2e_write(dir, "._site.tmp-999999999/.logdown-site", "x");
	e2e_write(dir, "._site.tmp-999999999/r1/index.html", "the new build's, never used");
	char *from = path_join(dir, "_site/r2"), *to = path_join(dir, "._site.tmp-999999999/r2");
	assert_int_equal(rename(from, to), 0);
	/* a journal line that leads outside is not obeyed */
	e2e_write(dir, "._site.tmp-999999999.moved", "r2\nr1\n../content\n");

	struct proc r = e2e_run(dir, "build -v");
	assert_int_equal(r.status, 0);
	/* r2's page came back and was reused; r1's stayed the previous one */
	assert_contains(r.err, "logdown: 4 reports: 0 rendered, 4 from cache");
	proc_free(&r);
	assert_int_equal(count_prefixed(dir, "._site.tmp-999999999"), 0);
	char *content = path_join(dir, "content/r1.md");
	assert_true(is_file(content));
	full_build(dir);
	char *full = path_join(dir, "full");
	assert_true(same_tree(dir, "_site", full));
	wait_swept(dir);
	free(full);
	free(content);
	free(from);
	free(to);
	remove_tree(dir);
	free(dir);
}

/* clean sweeps what dead processes left beside the output, not what a
 * live one is working in. */
static void clean_sweeps_leftovers_of_dead_builds(void **state)
{
	(void)state;
	char *dir = project(2);
	e2e_ok(dir, "build");
	e2e_write(dir, "._site.tmp-999999999/.logdown-site", "x");
	e2e_write(dir, "._site.tmp-999999999/r1/index.html", "old");
	e2e_write(dir, "._site.tmp-999999999.moved", "r1\n");
	char *live = xasprintf("._site.tmp-%ld/.logdown-site", (long)getpid());
	e2e_write(dir, live, "x");
	/* not logdown's (no marker): left alone */
	e2e_write(dir, "._site.tmp-999999998/notes.txt", "mine");
	e2e_ok(dir, "clean");
	assert_int_equal(count_prefixed(dir, "._site.tmp-999999999"), 0);
	assert_int_equal(count_prefixed(dir, "._site.tmp-999999998"), 1);
	char *kept = path_join(dir, live);
	assert_true(is_file(kept));
	char *site = path_join(dir, "_site");
	assert_false(path_exists(site));
	free(site);
	free(kept);
	free(live);
	remove_tree(dir);
	free(dir);
}

/* A real build killed after various delays: the output is the previous
 * one or the new one (or, killed amid the moves of its commit, is put
 * back by the next build); the next build is right either way. */
static void a_killed_build_leaves_the_previous_or_the_new_output(void **state)
{
	(void)state;
	enum { N = 40 };
	char *dir = project(N);
	e2e_ok(dir, "build");
	char *before = path_join(dir, "before"), *full = path_join(dir, "full");
	static const int delays_ms[] = {5, 20, 40, 70, 100, 150, 250, 400};
	for (size_t k = 0; k < ARRAY_LEN(delays_ms); k++) {
		char *cp = xasprintf("rm -rf '%s' && cp -a '%s/_site' '%s'", before, dir, before);
		assert_int_equal(system(cp), 0);
		free(cp);
		append(dir, (int)k + 1);
		full_build(dir);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int null = open("/dev/null", O_RDWR);
			dup2(null, 1);
			dup2(null, 2);
			if (chdir(dir) == 0)
				execl(e2e_binary(), "logdown", "build", (char *)NULL);
			_exit(127);
		}
		struct timespec ts = {0, delays_ms[k] * 1000000L};
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		int st;
		assert_int_equal(waitpid(pid, &st, 0), pid);
		bool journal = count_prefixed(dir, "._site.tmp-") > 0 &&
			       sh("ls -a '%s' | grep -q '\\.moved$'%s", dir, "") == 0;
		if (journal) {
			/* killed amid its commit's moves: the next build puts
			 * them back, and is the previous output of the next turn */
			e2e_ok(dir, "build");
			assert_true(same_tree(dir, "_site", full));
		} else if (!same_tree(dir, "_site", before) && !same_tree(dir, "_site", full)) {
			sh("diff -r '%s/_site' '%s' >&2", dir, before);
			fail_msg("killed after %d ms: the output is neither the previous nor the new "
				 "one",
				 delays_ms[k]);
		}
	}
	e2e_ok(dir, "build");
	assert_true(same_tree(dir, "_site", full));
	wait_swept(dir);
	free(before);
	free(full);
	remove_tree(dir);
	free(dir);
}

/* Processes whose working folder is dir (a build's children are). */
static size_t procs_in(const char *dir)
{
	char *real = path_real(dir);
	assert_non_null(real);
	size_t count = 0;
	DIR *d = opendir("/proc");
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		char *link = xasprintf("/proc/%s/cwd", e->d_name);
		char *cwd = path_real(link);
		count += cwd && strcmp(cwd, real) == 0;
		free(cwd);
		free(link);
	}
	closedir(d);
	free(real);
	return count;
}

static double secs_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The previous output goes to a detached child (forked while serve's
 * threads run) that runs rm.  When that child never reports, when the
 * grandchild never gets to rm, or when rm cannot be run, the build gives
 * up within its 3 s, kills what stalled and removes the folder itself:
 * it returns, with the new output, nothing left beside it, and no
 * process of its own still running.  LOGDOWN_TEST_DISCARD (outdir.c)
 * makes each fault happen. */
static void a_stalled_or_failed_handoff_is_given_up_and_removed_here(void **state)
{
	(void)state;
	/* a build that hangs fails here instead of holding up CI */
	alarm(getenv("LOGDOWN_VALGRIND") ? 600 : 120);
	static const char *const faults[] = {"stall-child", "stall-exec", "no-exec"};
	char *dir = project(2);
	struct proc r = e2e_run(dir, "build");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	char *full = path_join(dir, "full");
	for (size_t i = 0; i < ARRAY_LEN(faults); i++) {
		append(dir, 1);
		assert_int_equal(setenv("LOGDOWN_TEST_DISCARD", faults[i], 1), 0);
		double t0 = secs_now();
		r = e2e_run(dir, "build -v");
		double took = secs_now() - t0;
		unsetenv("LOGDOWN_TEST_DISCARD");
		if (r.status != 0)
			fail_msg("%s: status %d:\n%s", faults[i], r.status, r.err);
		assert_contains(r.err, "logdown: 3 reports: 1 rendered, 2 from cache");
		proc_free(&r);
		/* removed before the build returned, not by a child later */
		if (count_prefixed(dir, "._site.tmp-") > 0) {
			sh("ls -la '%s' '%s'/._site.tmp-* >&2", dir, dir);
			fail_msg("%s: the previous output is still there", faults[i]);
		}
		/* the stalled child or grandchild was killed (a SIGKILL lands
		 * at once; the test still allows it a moment) */
		size_t left = procs_in(dir);
		for (int k = 0; k < 200 && left > 0; k++) {
			struct timespec ts = {0, 10000000L};
			nanosleep(&ts, NULL);
			left = procs_in(dir);
		}
		if (left > 0)
			fail_msg("%s: %zu process(es) still run in the project", faults[i], left);
		/* the stalls cost the 3 s the build waits, not more */
		if (!getenv("LOGDOWN_VALGRIND") && took > 20)
			fail_msg("%s: the build took %.1f s", faults[i], took);
		full_build(dir);
		assert_true(same_tree(dir, "_site", full));
	}
	alarm(0);
	free(full);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unchanged_folders_move_over_and_the_old_output_goes),
		cmocka_unit_test(a_killed_commit_is_undone_by_the_next_build),
		cmocka_unit_test(clean_sweeps_leftovers_of_dead_builds),
		cmocka_unit_test(a_killed_build_leaves_the_previous_or_the_new_output),
		cmocka_unit_test(a_stalled_or_failed_handoff_is_given_up_and_removed_here),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
