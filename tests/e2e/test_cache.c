/* test_cache.c: the build cache (PROJECT/.logdown-cache).
 *
 * Each kind of input change re-renders exactly the reports it affects
 * and re-parses exactly the result files it affects, seen through the
 * second summary line of `build -v`:
 *
 *   logdown: 3 reports: 1 rendered, 2 from cache; 1 result file read:
 *   1 parsed, 0 from cache
 *
 * and every build's output equals a --no-cache build's.  A new binary
 * is played with LOGDOWN_CACHE_VERSION, a hidden override of the
 * version the cache is keyed by (cache.h). */
#define _GNU_SOURCE
#include "e2e.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <xxhash.h>

#include "base/version.h"
#include "data/seal.h"

/* Three reports: a and b share logs/shared.log, c has its own log;
 * a also has a bundle image. */
static char *project(void)
{
	return e2e_project(E2E_FILES(
		E2E_COPY("logs/shared.log", "tests/fixtures/cerebras/bs512.log"),
		E2E_COPY("logs/own.log", "tests/fixtures/cerebras/bs512.log"),
		E2E_TEXT("content/a/index.md",
			 "---\ntitle: A\nruns:\n  cs: ../../logs/shared.log\n---\n"
			 "A loss {{ cs.final_loss }}.\n\n![img](pic.png)\n"),
		E2E_TEXT("content/a/pic.png", "not really a png"),
		E2E_TEXT("content/b.md", "---\ntitle: B\nruns:\n  cs: ../logs/shared.log\n---\n"
					 "B loss {{ cs.final_loss }}.\n"),
		E2E_TEXT("content/c.md", "---\ntitle: C\nruns:\n  own: ../logs/own.log\n---\n"
					 "C steps {{ own.final_step }}.\n")));
}

/* Checks that dir/_site equals the output of a build without the
 * cache (made in dir/full). */
static void same_as_without_cache(const char *dir)
{
	e2e_ok_plain(dir, "build --no-cache -o full");
	char *cmd = xasprintf("diff -r '%s/_site' '%s/full' >&2", dir, dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* Builds dir with -v and checks the cache line; then checks that the
 * output equals a build without the cache. */
static void build_expect(const char *dir, const char *line)
{
	struct proc r = e2e_run(dir, "build -v");
	if (r.status != 0)
		fail_msg("build failed:\n%s", r.err);
	assert_contains(r.err, line);
	proc_free(&r);
	same_as_without_cache(dir);
}

static void each_input_change_invalidates_what_it_should(void **state)
{
	(void)state;
	char *dir = project();
	/* the shared log, named two ways, is parsed once: stored by its
	 * place in the project, the second report reads it back */
	build_expect(dir,
		     "logdown: 3 reports: 3 rendered, 0 from cache; 3 result files read: 2 parsed, "
		     "1 from cache\n");
	/* nothing changed */
	build_expect(dir,
		     "logdown: 3 reports: 0 rendered, 3 from cache; 0 result files read: 0 parsed, "
		     "0 from cache\n");
	/* touched, not changed: the hash decides */
	char *own = path_join(dir, "logs/own.log");
	assert_int_equal(utimensat(AT_FDCWD, own, NULL, 0), 0);
	build_expect(dir, "logdown: 3 reports: 0 rendered, 3 from cache;");
	/* a log: the one report that reads it, that file parsed */
	e2e_append(dir, "logs/own.log", "2024-03-30 16:00:00,000 INFO:   one more line\n");
	build_expect(dir,
		     "logdown: 3 reports: 1 rendered, 2 from cache; 1 result file read: 1 parsed, "
		     "0 from cache\n");
	/* a log two reports read under two names (../logs, ../../logs):
	 * both render, the log is parsed once (the other report waits for
	 * it and reads it back) */
	e2e_append(dir, "logs/shared.log", "2024-03-30 16:00:00,000 INFO:   one more line\n");
	build_expect(dir, "logdown: 3 reports: 2 rendered, 1 from cache; 2 result files "
				"read: 1 parsed, 1 from cache\n");
	/* a source: that report, its log from the cache */
	e2e_append(dir, "content/c.md", "\nMore prose.\n");
	build_expect(dir,
		     "logdown: 3 reports: 1 rendered, 2 from cache; 1 result file read: 0 parsed, "
		     "1 from cache\n");
	/* a bundle's image: its report */
	e2e_write(dir, "content/a/pic.png", "another picture");
	build_expect(dir, "logdown: 3 reports: 1 rendered, 2 from cache;");
	char *pic = e2e_read(dir, "_site/a/pic.png");
	assert_string_equal(pic, "another picture");
	free(pic);
	/* a template: every page; the logs from the cache */
	e2e_write(dir, "templates/page.html", "<html><body>{{{content}}}</body></html>\n");
	build_expect(dir,
		     "logdown: 3 reports: 3 rendered, 0 from cache; 3 result files read: 0 parsed, "
		     "3 from cache\n");
	/* site.yaml: every page */
	e2e_write(dir, "site.yaml", "title: Changed\n");
	build_expect(dir, "logdown: 3 reports: 3 rendered, 0 from cache;");
	/* a parser: every page and every log */
	e2e_write(dir, "parsers/extra.yaml",
		  "name: extra\ndetect: 'NEVER MATCHES THIS'\nfields:\n  x: 'x=(\\d+)'\n");
	build_expect(dir,
		     "logdown: 3 reports: 3 rendered, 0 from cache; 3 result files read: 2 parsed, "
		     "1 from cache\n");
	/* a new binary: everything */
	struct proc v = e2e_run(dir, "build -v");
	proc_free(&v);
	char *cmd = xasprintf("cd '%s' && LOGDOWN_CACHE_VERSION=99.0 '%s' build -v 2>&1 | "
			      "grep -q '3 rendered, 0 from cache; 3 result files read: 2 parsed, 1 from cache'",
			      dir, e2e_binary());
	assert_int_equal(system(cmd), 0);
	free(cmd);
	/* --no-cache reads nothing from it */
	struct proc nc = e2e_run(dir, "build -v --no-cache");
	assert_int_equal(nc.status, 0);
	assert_contains(nc.err, "3 rendered, 0 from cache; 3 result files read: 3 parsed");
	proc_free(&nc);
	free(own);
	remove_tree(dir);
	free(dir);
}

/* Overwrites the first byte of every file under dir/rel (or truncates). */
static void damage(const char *dir, const char *rel, bool truncate_it)
{
	char *cmd = truncate_it
			    ? xasprintf("cd '%s' && for f in %s; do truncate -s 10 \"$f\"; done", dir,
					rel)
			    : xasprintf("cd '%s' && for f in %s; do printf X | dd of=\"$f\" bs=1 "
					"seek=40 conv=notrunc 2>/dev/null; done",
					dir, rel);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void a_damaged_cache_is_a_warning_and_never_trusted(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build");
	static const struct {
		const char *files;
		bool truncate_it;
	} cases[] = {
		{".logdown-cache/runs/*.run", false},
		{".logdown-cache/runs/*.run", true},
		{".logdown-cache/files", false},
		{".logdown-cache/reports-*", true},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		/* make the pages re-render, so that runs are read */
		e2e_write(dir, "site.yaml", i % 2 ? "title: One\n" : "title: Two\n");
		damage(dir, cases[i].files, cases[i].truncate_it);
		struct proc b = e2e_run(dir, "build -v");
		if (b.status != 0)
			fail_msg("case %zu failed:\n%s", i, b.err);
		assert_contains(b.err, "warning: the build cache is damaged");
		assert_contains(b.err, "ignored (logdown rebuilds it; `logdown clean` removes it)");
		proc_free(&b);
		same_as_without_cache(dir);
		/* and the next build is quiet again, the cache rebuilt */
		struct proc again = e2e_run(dir, "build -v");
		assert_int_equal(again.status, 0);
		assert_not_contains(again.err, "warning");
		assert_contains(again.err, "0 rendered, 3 from cache");
		proc_free(&again);
	}
	/* a file that is not logdown's at all */
	e2e_write(dir, ".logdown-cache/files", "something else entirely\n");
	struct proc f = e2e_run(dir, "build --strict");
	assert_int_equal(f.status, 1); /* --strict: the warning is an error */
	assert_contains(f.err, ".logdown-cache/files: error: the build cache is damaged or not "
			       "logdown's");
	proc_free(&f);
	/* a cache folder someone else made is read-only to logdown */
	char *cache = path_join(dir, ".logdown-cache");
	remove_tree(cache);
	free(cache);
	e2e_write(dir, ".logdown-cache/mine.txt", "keep me\n");
	struct proc o = e2e_run(dir, "build");
	assert_int_equal(o.status, 0);
	assert_contains(o.err, "the build cache is not logdown's (no CACHEDIR.TAG inside)");
	char *mine = e2e_read(dir, ".logdown-cache/mine.txt");
	assert_string_equal(mine, "keep me\n");
	free(mine);
	struct proc cl = e2e_run(dir, "clean");
	assert_int_equal(cl.status, 3);
	assert_contains(cl.err, "not logdown's, left alone");
	proc_free(&cl);
	proc_free(&o);
	remove_tree(dir);
	free(dir);
}

static void clean_removes_the_cache_and_the_output(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build");
	char *cache = path_join(dir, ".logdown-cache"), *site = path_join(dir, "_site");
	assert_true(is_dir(cache));
	struct proc c = e2e_run(dir, "clean");
	assert_int_equal(c.status, 0);
	assert_contains(c.err, "logdown: removed .logdown-cache\n");
	assert_contains(c.err, "logdown: removed _site\n");
	assert_false(path_exists(cache));
	assert_false(path_exists(site));
	proc_free(&c);
	/* nothing left: still fine */
	struct proc again = e2e_run(dir, "clean .");
	assert_int_equal(again.status, 0);
	assert_string_equal(again.err, "");
	proc_free(&again);
	/* an output logdown did not make is left */
	e2e_write(dir, "_site/notes.txt", "mine\n");
	struct proc left = e2e_run(dir, "clean");
	assert_int_equal(left.status, 0);
	assert_contains(left.err, "not removed: logdown did not make it");
	assert_true(path_exists(site));
	proc_free(&left);
	struct proc help = e2e_run(dir, "clean --help");
	assert_int_equal(help.status, 0);
	assert_contains(help.out, "usage: logdown clean [DIR]");
	proc_free(&help);
	struct proc bad = e2e_run(dir, "clean --bogus");
	assert_int_equal(bad.status, 2);
	proc_free(&bad);
	/* check writes no cache */
	struct proc chk = e2e_run(dir, "check");
	assert_int_equal(chk.status, 0);
	assert_false(path_exists(cache));
	proc_free(&chk);
	free(cache);
	free(site);
	remove_tree(dir);
	free(dir);
}

/* A report that warns is never reused: its warning comes every time. */
static void a_report_with_warnings_is_rendered_every_time(void **state)
{
	(void)state;
	char *dir = project();
	e2e_write(dir, "content/b.md",
		  "---\ntitle: B\nruns:\n  cs: ../logs/shared.log\n  spare: ../logs/own.log\n---\n"
		  "B loss {{ cs.final_loss }}.\n");
	for (int i = 0; i < 2; i++) {
		struct proc r = e2e_run(dir, "build -v");
		assert_int_equal(r.status, 0);
		assert_contains(r.err, "content/b.md:5:3: warning: run 'spare' is never used");
		if (i == 1)
			assert_contains(r.err, "3 reports: 1 rendered, 2 from cache");
		proc_free(&r);
	}
	remove_tree(dir);
	free(dir);
}

/* The names of the runs stored in dir's cache, sorted; *n their count. */
static char **stored_runs(const char *dir, size_t *n)
{
	char *runs = path_join(dir, ".logdown-cache/runs");
	char **names = dir_list(runs, n);
	assert_non_null(names);
	for (size_t i = 0; i < *n; i++)
		if (!str_has_suffix(names[i], ".run"))
			fail_msg("not a run in the runs folder: %s", names[i]);
	free(runs);
	return names;
}

/* How many of b's names a does not hold. */
static size_t names_new(char **a, size_t na, char **b, size_t nb)
{
	size_t count = 0;
	for (size_t j = 0; j < nb; j++) {
		bool found = false;
		for (size_t i = 0; i < na && !found; i++)
			found = strcmp(a[i], b[j]) == 0;
		count += !found;
	}
	return count;
}

/* After a build that succeeded, the runs folder holds the runs that
 * build used, one per result file a report reads (and run name and
 * path shown): a log's old version goes, a page reused whole keeps its
 * runs (they are needed the next time it renders), a report gone takes
 * its runs along.  check and a failed build remove nothing. */
static void the_runs_folder_keeps_only_what_the_build_uses(void **state)
{
	(void)state;
	char *dir = project();
	size_t n0, n1, n;
	build_expect(dir, "3 result files read: 2 parsed, 1 from cache\n");
	/* one run a log: the shared log, read under two names, is stored
	 * once, by its place in the project */
	char **first = stored_runs(dir, &n0);
	assert_int_equal(n0, 2);
	/* a log changed: its run is stored anew, the old version goes */
	e2e_append(dir, "logs/own.log", "2024-03-30 16:00:00,000 INFO:   one more line\n");
	build_expect(dir,
		     "logdown: 3 reports: 1 rendered, 2 from cache; 1 result file read: 1 parsed, "
		     "0 from cache\n");
	char **second = stored_runs(dir, &n1);
	assert_int_equal(n1, 2);
	assert_int_equal(names_new(first, n0, second, n1), 1);
	/* nothing changed: nothing read, nothing removed */
	build_expect(dir,
		     "logdown: 3 reports: 0 rendered, 3 from cache; 0 result files read: 0 parsed, "
		     "0 from cache\n");
	char **names = stored_runs(dir, &n);
	assert_int_equal(n, 2);
	assert_int_equal(names_new(second, n1, names, n), 0);
	strv_free(names);
	/* every page renders again: every run comes from the cache, those
	 * of the pages the last two builds reused too */
	e2e_write(dir, "templates/page.html", "<html><body>{{{content}}}</body></html>\n");
	build_expect(dir,
		     "logdown: 3 reports: 3 rendered, 0 from cache; 3 result files read: 0 parsed, "
		     "3 from cache\n");
	names = stored_runs(dir, &n);
	assert_int_equal(names_new(second, n1, names, n), 0);
	assert_int_equal(n, 2);
	strv_free(names);
	/* check and a failed build leave the folder as it is */
	char *c_md = path_join(dir, "content/c.md");
	assert_int_equal(unlink(c_md), 0);
	struct proc r = e2e_run(dir, "check");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	e2e_write(dir, "content/bad.md", "---\ntitle: [unclosed\n---\n");
	r = e2e_run(dir, "build");
	assert_int_equal(r.status, 1);
	proc_free(&r);
	names = stored_runs(dir, &n);
	assert_int_equal(n, 2);
	strv_free(names);
	/* a report gone: its run goes with it */
	char *bad = path_join(dir, "content/bad.md");
	assert_int_equal(unlink(bad), 0);
	build_expect(dir, "logdown: 2 reports: 0 rendered, 2 from cache;");
	names = stored_runs(dir, &n);
	assert_int_equal(n, 1);
	assert_int_equal(names_new(second, n1, names, n), 0);
	strv_free(names);
	/* clean empties it */
	r = e2e_run(dir, "clean");
	assert_int_equal(r.status, 0);
	proc_free(&r);
	char *cache = path_join(dir, ".logdown-cache");
	assert_false(path_exists(cache));
	free(cache);
	free(bad);
	free(c_md);
	strv_free(first);
	strv_free(second);
	remove_tree(dir);
	free(dir);
}

/* The project built from its folder (`build .`) and then by its
 * absolute path from elsewhere (as `serve /abs/project` does): the
 * paths shown differ, the runs stored are the same, read, not parsed. */
static void a_project_given_by_another_path_reads_the_same_stored_runs(void **state)
{
	(void)state;
	char *dir = project();
	char *abs = path_real(dir);
	assert_non_null(abs);
	build_expect(dir, "3 result files read: 2 parsed, 1 from cache\n");
	struct proc r = e2e_run("/", "build -v %s", abs);
	if (r.status != 0)
		fail_msg("build failed:\n%s", r.err);
	assert_contains(r.err, "logdown: 3 reports: 3 rendered, 0 from cache; 3 result files read: "
			       "0 parsed, 3 from cache\n");
	proc_free(&r);
	/* and what they give is what a parse gives, under the new names */
	same_as_without_cache(dir);
	/* back from the folder: nothing parsed either */
	build_expect(dir, "3 result files read: 0 parsed, 3 from cache\n");
	free(abs);
	remove_tree(dir);
	free(dir);
}

/* The example site, its runs read from the store (mapped) rather than
 * parsed, builds byte for byte as a build that parses them. */
static void the_examples_read_from_the_store_build_as_parsed(void **state)
{
	(void)state;
	char *dir = e2e_tmpdir();
	char *cmd = xasprintf("cp -r site.yaml content '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	struct proc r = e2e_run(dir, "build -v");
	if (r.status != 0)
		fail_msg("build failed:\n%s", r.err);
	assert_contains(r.err, " parsed, 0 from cache\n");
	proc_free(&r);
	/* every page renders again: every run comes from the store */
	e2e_write(dir, "templates/page.html",
		  "<html><body><h1>{{title}}</h1>{{{content}}}</body></html>\n");
	r = e2e_run(dir, "build -v");
	if (r.status != 0)
		fail_msg("build failed:\n%s", r.err);
	assert_contains(r.err, " rendered, 0 from cache; ");
	/* a split file's runs are not stored: those are parsed */
	const char *line = strstr(r.err, "result files read: ");
	assert_non_null(line);
	unsigned long read = 0, parsed = 0, cached = 0;
	assert_int_equal(sscanf(line, "result files read: %lu parsed, %lu from cache", &parsed,
				&cached),
			 2);
	read = parsed + cached;
	if (cached < 10 || cached * 2 < read)
		fail_msg("only %lu of %lu runs from the store:\n%s", cached, read, r.err);
	proc_free(&r);
	/* under memcheck the two builds above are what it checks: a third
	 * that parses every example again takes minutes there */
	if (!getenv("LOGDOWN_VALGRIND"))
		same_as_without_cache(dir);
	remove_tree(dir);
	free(dir);
}

/* Writes the bytes of file rel (of dir) into file to (of dir). */
static void copy_over(const char *dir, const char *rel, const char *to)
{
	char *cmd = xasprintf("cd '%s' && cp %s %s", dir, rel, to);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* A stored run changed past its header (its texts, its numbers), or one
 * written by another logdown under this one's name: a warning, the run
 * parsed again, the site right, and the store quiet after. */
static void a_store_changed_inside_or_from_another_version_is_refused(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build");
	/* a byte near the end: the directory, past the header's checks:
	 * the seal sees it */
	char *cmd = xasprintf("cd '%s' && for f in .logdown-cache/runs/*.run; do "
			      "printf X | dd of=\"$f\" bs=1 seek=$(($(stat -c %%s \"$f\") - 9)) "
			      "conv=notrunc 2>/dev/null; done",
			      dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	e2e_write(dir, "site.yaml", "title: Changed\n");
	struct proc b = e2e_run(dir, "build -v");
	assert_int_equal(b.status, 0);
	assert_contains(b.err, "warning: the build cache is altered (its seal does not match: "
			       "changed by something other than logdown): ignored");
	assert_contains(b.err, "3 result files read: 2 parsed, 1 from cache\n");
	proc_free(&b);
	same_as_without_cache(dir);
	/* a store another version wrote, where this one's goes */
	struct proc o = e2e_run(dir, "build -v");
	assert_not_contains(o.err, "warning");
	proc_free(&o);
	e2e_ok(dir, "clean");
	setenv("LOGDOWN_CACHE_VERSION", "0.0-other", 1);
	e2e_ok(dir, "build");
	unsetenv("LOGDOWN_CACHE_VERSION");
	copy_over(dir, "-r .logdown-cache/runs", "old-runs");
	e2e_ok(dir, "build");
	cmd = xasprintf("cd '%s' && old=$(ls old-runs | head -1) && for f in "
			".logdown-cache/runs/*.run; do cp old-runs/$old \"$f\"; done",
			dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	e2e_write(dir, "site.yaml", "title: Again\n");
	b = e2e_run(dir, "build -v");
	assert_int_equal(b.status, 0);
	assert_contains(b.err,
			"warning: the build cache is from another version of logdown: ignored");
	assert_contains(b.err, "2 parsed, 1 from cache\n");
	proc_free(&b);
	same_as_without_cache(dir);
	remove_tree(dir);
	free(dir);
}

/* Eight reports in eight folders name one log, each by its own path:
 * a first build parses it once and reads it from the store seven times,
 * however the reports' threads meet.  A report that looked for the
 * store while the first one's seal was being taken waits for that seal,
 * as every other such report does (seal_wait() let only the first
 * waiter wait: a second looked before the rename, found nothing and
 * parsed the log again, in about a third of the builds). */
static void a_log_eight_reports_name_is_parsed_once(void **state)
{
	(void)state;
	char *dir = e2e_project(E2E_FILES(E2E_COPY("logs/shared.log",
						   "tests/fixtures/cerebras/bs512.log"),
					  E2E_TEXT("site.yaml", "title: Shared\n")));
	for (int i = 1; i <= 8; i++) {
		char rel[64], md[160];
		snprintf(rel, sizeof rel, "content/r%d/index.md", i);
		snprintf(md, sizeof md,
			 "---\ntitle: R%d\nruns:\n  cs: ../../logs/shared.log\n---\n"
			 "Loss {{ cs.final_loss }}.\n",
			 i);
		e2e_write(dir, rel, md);
	}
	/* an older log: read once and hashed, not re-read as just written */
	char *cmd = xasprintf("touch -d '1 minute ago' '%s/logs/shared.log'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	/* under valgrind, a build of 8 reports is some 10 s: two rounds */
	int rounds = getenv("LOGDOWN_VALGRIND") ? 2 : 12;
	for (int round = 0; round < rounds; round++) {
		cmd = xasprintf("rm -rf '%s/.logdown-cache' '%s/_site'", dir, dir);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		struct proc b = e2e_run(dir, "build -v -j 4");
		assert_int_equal(b.status, 0);
		assert_contains(b.err, "8 result files read: 1 parsed, 7 from cache\n");
		proc_free(&b);
	}
	remove_tree(dir);
	free(dir);
}

/* A log rewritten in place (not appended to: the same size, other
 * bytes, its times put back) is parsed in full, never answered from the
 * store of its old bytes. */
static void a_rewritten_log_is_parsed_again(void **state)
{
	(void)state;
	char *dir = project();
	e2e_ok(dir, "build");
	char *cmd = xasprintf("cd '%s' && touch -r logs/own.log stamp && "
			      "sed -i 's/Step=1000,/Step=9000,/' logs/own.log && "
			      "touch -r stamp logs/own.log",
			      dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	build_expect(dir,
		     "logdown: 3 reports: 1 rendered, 2 from cache; 1 result file read: 1 parsed, "
		     "0 from cache\n");
	char *page = e2e_read(dir, "_site/c/index.html");
	assert_contains(page, "title=\"content/../logs/own.log:53\">9000</a>");
	free(page);
	remove_tree(dir);
	free(dir);
}

/* A folder outside the project (beside it), holding what a followed
 * link would read, write or remove: a file, a cache tag, a runs folder
 * with a run named like one of ours.  Returns its path; *copy is a copy
 * of it to compare with afterwards. */
static char *outside(const char *dir, char **copy)
{
	char *out = xasprintf("%s-outside", dir);
	*copy = xasprintf("%s-outside-copy", dir);
	char *cmd = xasprintf("rm -rf '%s' '%s' && mkdir -p '%s/runs' && "
			      "printf 'keep me\\n' > '%s/keep.txt' && "
			      "printf 'Signature: 8a477f597d28d172789f06886806bc55\\n' > "
			      "'%s/CACHEDIR.TAG' && printf 'not a run\\n' > "
			      "'%s/runs/00000000000000000000000000000000.run' && "
			      "cp -a '%s' '%s'",
			      out, *copy, out, out, out, out, out, *copy);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return out;
}

/* The outside folder is byte for byte as it was, with nothing added or
 * removed; then both are removed. */
static void outside_untouched(char *out, char *copy)
{
	char *cmd = xasprintf("diff -r '%s' '%s' >&2", out, copy);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	remove_tree(out);
	remove_tree(copy);
	free(out);
	free(copy);
}

static void sh(const char *dir, const char *script)
{
	char *cmd = xasprintf("cd '%s' && %s", dir, script);
	if (system(cmd) != 0)
		fail_msg("failed: %s", script);
	free(cmd);
}

/* .logdown-cache a symbolic link (to a folder that even looks like a
 * cache): refused with a warning, never followed, never removed; the
 * build is right without it; `clean` removes the link only. */
static void a_cache_that_is_a_link_is_never_followed(void **state)
{
	(void)state;
	char *dir = project();
	char *copy, *out = outside(dir, &copy);
	char *cmd = xasprintf("ln -s '%s' '%s/.logdown-cache'", out, dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	for (int i = 0; i < 2; i++) {
		struct proc b = e2e_run(dir, "build -v");
		if (b.status != 0)
			fail_msg("build failed:\n%s", b.err);
		assert_contains(b.err, ".logdown-cache: warning: the build cache is a symbolic "
				       "link: not followed, the build runs without it (remove the "
				       "link to have one)");
		assert_contains(b.err, "3 result files read: 3 parsed, 0 from cache");
		proc_free(&b);
		same_as_without_cache(dir);
	}
	struct proc c = e2e_run(dir, "check");
	assert_int_equal(c.status, 0);
	proc_free(&c);
	struct proc cl = e2e_run(dir, "clean");
	assert_int_equal(cl.status, 0);
	proc_free(&cl);
	char *link = path_join(dir, ".logdown-cache");
	struct stat st;
	assert_int_not_equal(lstat(link, &st), 0); /* the link went, */
	free(link);
	outside_untouched(out, copy); /* what it pointed to did not */
	remove_tree(dir);
	free(dir);
}

/* Inside logdown's own cache folder a link is never logdown's: the runs
 * folder, a run, the file list or a report list that is a link is a
 * warning, is not followed (not read, not written through, not pruned
 * through) and is replaced by what the build writes. */
static void links_inside_the_cache_are_replaced_never_followed(void **state)
{
	(void)state;
	static const char *const plants[] = {
		/* the runs folder */
		"mv .logdown-cache/runs \"$OUT/ours\" && ln -s \"$OUT/runs\" .logdown-cache/runs",
		/* each run: a valid run of ours, moved out, would be a hit */
		"for f in .logdown-cache/runs/*.run; do mv \"$f\" \"$OUT/$(basename $f)\" && "
		"ln -s \"$OUT/$(basename $f)\" \"$f\"; done",
		/* the file list and the report list */
		"for f in .logdown-cache/files .logdown-cache/reports-*; do cp \"$f\" \"$OUT/\" && "
		"rm \"$f\" && ln -s \"$OUT/$(basename $f)\" \"$f\"; done",
		/* links the prune would remove if it followed them */
		"ln -s \"$OUT/keep.txt\" .logdown-cache/runs/0123456789abcdef0123456789abcdef.run "
		"&& ln -s \"$OUT/runs\" .logdown-cache/runs/fedcba9876543210fedcba9876543210.run",
	};
	static const char *const warnings[] = {
		"runs: warning: the build cache is damaged (its runs folder is a symbolic link or "
		"not a folder: not followed, removed)",
		".run: warning: the build cache is damaged (a symbolic link where a file of it "
		"goes: not followed, removed)",
		"warning: the build cache is damaged (a symbolic link where a file of it goes: not "
		"followed, removed)",
		NULL,
	};
	for (size_t i = 0; i < ARRAY_LEN(plants); i++) {
		char *dir = project();
		e2e_ok(dir, "build");
		char *copy, *out = outside(dir, &copy);
		/* the outside folder gets what is moved there, then is copied */
		char *script = xasprintf("export OUT='%s' && %s && rm -rf '%s' && cp -a \"$OUT\" '%s'",
					 out, plants[i], copy, copy);
		sh(dir, script);
		free(script);
		/* every page renders again: the runs are read */
		e2e_write(dir, "site.yaml", "title: Again\n");
		struct proc b = e2e_run(dir, "build -v");
		if (b.status != 0)
			fail_msg("case %zu: build failed:\n%s", i, b.err);
		if (warnings[i])
			assert_contains(b.err, warnings[i]);
		else
			assert_not_contains(b.err, "warning");
		proc_free(&b);
		same_as_without_cache(dir);
		/* no link is left in the cache, and the next build is quiet
		 * and from the cache */
		sh(dir, "test -z \"$(find .logdown-cache -type l)\"");
		struct proc again = e2e_run(dir, "build -v");
		assert_int_equal(again.status, 0);
		assert_not_contains(again.err, "warning");
		assert_contains(again.err, "0 rendered, 3 from cache");
		proc_free(&again);
		e2e_write(dir, "site.yaml", "title: Once more\n");
		struct proc hit = e2e_run(dir, "build -v");
		assert_int_equal(hit.status, 0);
		assert_not_contains(hit.err, "warning");
		assert_contains(hit.err, "0 parsed, 3 from cache");
		proc_free(&hit);
		outside_untouched(out, copy);
		remove_tree(dir);
		free(dir);
	}
}

/* --- the seal: a cache is this user's or it is not used --- */

/* A key folder for this test: XDG_CACHE_HOME, which every logdown run
 * it starts inherits.  Caller removes it with e2e_drop(). */
static char *key_home(void)
{
	char *home = e2e_tmpdir();
	assert_int_equal(setenv("XDG_CACHE_HOME", home, 1), 0);
	return home;
}

/* Replaces every n bytes `from` in b by `to` (as long); returns how many. */
static size_t replace_bytes(struct buf *b, const void *from, const void *to, size_t n)
{
	size_t count = 0;
	for (char *p = b->data; (p = memmem(p, b->len - (size_t)(p - b->data), from, n));
	     p += n) {
		memcpy(p, to, n);
		count++;
	}
	return count;
}

/* Poisons the one run stored in dir's cache: the final loss 7.12500
 * (text and number) becomes 9.12500, and the header's XXH3-64 checksum
 * is fixed up, as one who knows the format would (runstore.c: a
 * 128-byte header, its seal at 88 over the 88 bytes before it and the
 * body after the header, its checksum at 120).  With key_dir (an
 * XDG_CACHE_HOME), it is also sealed again with the key kept there: a
 * run the owner of that key could have stored. */
static void poison_run(const char *dir, const char *key_dir)
{
	size_t n;
	char **runs = stored_runs(dir, &n);
	assert_int_equal(n, 1);
	char *rel = xasprintf(".logdown-cache/runs/%s", runs[0]);
	char *path = path_join(dir, rel);
	struct buf b = BUF_INIT;
	assert_true(file_read(path, &b, NULL));
	assert_true(b.len > 128);
	double was = 7.125, now = 9.125;
	assert_true(replace_bytes(&b, "7.12500", "9.12500", 7) > 0);
	assert_true(replace_bytes(&b, &was, &now, sizeof was) > 0);
	if (key_dir) {
		char *kp = path_join(key_dir, "logdown/key");
		struct buf kb = BUF_INIT;
		assert_true(file_read(kp, &kb, NULL));
		assert_int_equal(kb.len, SEAL_KEY_BYTES);
		struct seal_key k;
		seal_key_from(&k, (const unsigned char *)kb.data);
		memcpy(b.data + 72, k.id, SEAL_ID_BYTES);
		seal_make(&k, b.data, 88, b.data + 128, b.len - 128, (unsigned char *)b.data + 88);
		buf_free(&kb);
		free(kp);
	}
	uint64_t sum = XXH3_64bits(b.data, 120);
	memcpy(b.data + 120, &sum, 8);
	assert_true(file_write(path, b.data, b.len));
	buf_free(&b);
	free(path);
	free(rel);
	strv_free(runs);
}

/* One report whose loss a claim checks: a poisoned value fails it. */
static char *claim_project(void)
{
	return e2e_project(E2E_FILES(
		E2E_COPY("logs/a.log", "tests/fixtures/cerebras/bs512.log"),
		E2E_TEXT("content/r.md", "---\ntitle: R\nruns:\n  cs: ../logs/a.log\n---\n"
					 "Loss {{ cs.final_loss | expect < 8 }}.\n")));
}

/* The page shows the log's loss, never the poisoned one. */
static void shows_the_true_loss(const char *dir)
{
	char *page = e2e_read(dir, "_site/r/index.html");
	assert_non_null(page);
	assert_contains(page, ">7.12500</a>");
	assert_not_contains(page, "9.125");
	free(page);
}

/* A log rewritten in place again and again while builds run (a job
 * writing its log during serve): whatever a build read, no run parsed
 * from one content is stored under the other's key.  After the writer
 * stops, the log as A shows A's loss and as B shows B's, from the cache
 * or not.  (A build that hashed A and parsed B stores nothing:
 * cache_file_unchanged().) */
static void a_log_rewritten_during_builds_is_never_stored_under_the_other_content(void **state)
{
	(void)state;
	char *home = key_home();
	char *dir = claim_project();
	char *log = path_join(dir, "logs/a.log");
	struct buf a = BUF_INIT, b = BUF_INIT;
	assert_true(file_read(log, &a, NULL));
	assert_true(file_read(log, &b, NULL));
	assert_true(replace_bytes(&b, "7.12500", "9.12500", 7) > 0);
	pid_t writer = fork();
	assert_true(writer >= 0);
	if (writer == 0) {
		for (unsigned i = 0;; i++) {
			const struct buf *w = i % 2 ? &b : &a;
			int fd = open(log, O_WRONLY | O_TRUNC);
			if (fd < 0 || write(fd, w->data, w->len) != (ssize_t)w->len)
				_exit(1);
			close(fd);
			usleep(200 + (i * 7919) % 1500);
		}
	}
	int rounds = getenv("LOGDOWN_VALGRIND") ? 4 : 30;
	for (int i = 0; i < rounds; i++) {
		char *title = xasprintf("title: Round %d\n", i);
		e2e_write(dir, "site.yaml", title);
		free(title);
		struct proc p = e2e_run(dir, "build");
		if (p.status != 0 && p.status != 1)
			fail_msg("round %d: exit %d\n%s", i, p.status, p.err);
		proc_free(&p);
	}
	kill(writer, SIGKILL);
	waitpid(writer, NULL, 0);
	for (int i = 0; i < 2; i++) {
		const struct buf *w = i ? &b : &a;
		assert_true(file_write(log, w->data, w->len));
		e2e_write(dir, "site.yaml", i ? "title: B\n" : "title: A\n");
		struct proc p = e2e_run(dir, "build");
		char *page = e2e_read(dir, "_site/r/index.html");
		assert_non_null(page);
		if (i == 0) {
			assert_int_equal(p.status, 0);
			assert_contains(page, ">7.12500</a>");
			assert_not_contains(page, "9.125");
		} else {
			assert_int_equal(p.status, 1); /* the claim < 8 breaks */
			assert_contains(p.err, "error: cs.final_loss is 9.12500, the text claims < 8");
		}
		free(page);
		proc_free(&p);
	}
	buf_free(&a);
	buf_free(&b);
	free(log);
	e2e_drop(&dir);
	e2e_drop(&home);
	unsetenv("XDG_CACHE_HOME");
}

/* A run edited in place, its checksum fixed up: its seal no longer
 * matches, so it is a warning and a fresh parse, and the page shows
 * what the log says. */
static void an_edited_run_with_its_checksum_fixed_is_not_used(void **state)
{
	(void)state;
	char *home = key_home();
	char *dir = claim_project();
	e2e_ok(dir, "build");
	poison_run(dir, NULL);
	e2e_write(dir, "site.yaml", "title: Again\n"); /* the page renders again */
	struct proc b = e2e_run(dir, "build -v");
	if (b.status != 0)
		fail_msg("build failed:\n%s", b.err);
	assert_contains(b.err, "runs/");
	assert_contains(b.err, ".run: warning: the build cache is altered (its seal does not "
			       "match: changed by something other than logdown): ignored (logdown "
			       "rebuilds it; `logdown clean` removes it)\n");
	assert_contains(b.err, "1 result file read: 1 parsed, 0 from cache");
	proc_free(&b);
	shows_the_true_loss(dir);
	/* the run was replaced: the next build takes it from the cache */
	e2e_write(dir, "site.yaml", "title: Once more\n");
	struct proc again = e2e_run(dir, "build -v");
	assert_int_equal(again.status, 0);
	assert_not_contains(again.err, "warning");
	assert_contains(again.err, "1 result file read: 0 parsed, 1 from cache");
	proc_free(&again);
	shows_the_true_loss(dir);
	e2e_drop(&dir);
	e2e_drop(&home);
	unsetenv("XDG_CACHE_HOME");
}

/* A store this user's build has checked is not read whole again while
 * it stays the same file (its memo, a row of the sealed files table,
 * holds its inode, size and times); editing it in place moves its
 * change time, which no one can set back, so the edit is still found.
 * The store must be older than the racy window (2 s) to be memoised. */
static void a_store_checked_before_is_refused_once_edited(void **state)
{
	(void)state;
	char *home = key_home();
	char *dir = claim_project();
	e2e_ok(dir, "build");
	struct timespec two = {2, 200000000};
	nanosleep(&two, NULL);
	e2e_write(dir, "site.yaml", "title: Checked\n");
	struct proc c = e2e_run(dir, "build -v");
	assert_int_equal(c.status, 0);
	assert_contains(c.err, "1 result file read: 0 parsed, 1 from cache");
	proc_free(&c);
	struct buf files = BUF_INIT;
	char *fpath = path_join(dir, ".logdown-cache/files");
	assert_true(file_read(fpath, &files, NULL));
	assert_non_null(memmem(files.data, files.len, "run store ", 10));
	buf_free(&files);
	free(fpath);
	poison_run(dir, NULL);
	e2e_write(dir, "site.yaml", "title: Edited\n");
	struct proc b = e2e_run(dir, "build -v");
	if (b.status != 0)
		fail_msg("build failed:\n%s", b.err);
	assert_contains(b.err, ".run: warning: the build cache is altered");
	assert_contains(b.err, "1 result file read: 1 parsed, 0 from cache");
	proc_free(&b);
	shows_the_true_loss(dir);
	e2e_drop(&dir);
	e2e_drop(&home);
	unsetenv("XDG_CACHE_HOME");
}

/* The inode of dir/rel, without following a link; 0 when there is none
 * or it is not a regular file with one name. */
static ino_t single_inode(const char *dir, const char *rel)
{
	char *path = path_join(dir, rel);
	struct stat st;
	bool ok = lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1;
	free(path);
	return ok ? st.st_ino : 0;
}

/* How many lines dir/rel has (each ending in a newline). */
static long lines_of(const char *dir, const char *rel)
{
	char *text = e2e_read(dir, rel);
	long n = 0;
	for (const char *p = text; (p = strchr(p, '\n')); p++)
		n++;
	free(text);
	return n;
}

/* Asserts that the copy is the log's bytes, a regular file of its own. */
static void copy_is_the_log(const char *dir, const char *copy)
{
	assert_int_not_equal(single_inode(dir, copy), 0);
	char *want = e2e_read(dir, "logs/a.log"), *have = e2e_read(dir, copy);
	assert_non_null(have);
	assert_string_equal(have, want);
	free(want);
	free(have);
}

/* After an edit of the prose only, the raw copy of an unchanged log
 * stays where the previous build put it (the same inode: not copied
 * again, keepcopy.c); but a copy anyone touched since is copied again:
 * written in place (its modify time even set back), replaced by a link
 * out, or given a second name. */
static void an_unchanged_logs_copy_stays_unless_touched(void **state)
{
	(void)state;
	char *home = key_home();
	char *dir = claim_project();
	static const char copy[] = "_site/r/logs/_/logs/a.log";
	/* a log older than the racy window: its hash is remembered */
	struct timespec two = {2, 200000000};
	nanosleep(&two, NULL);
	e2e_ok(dir, "build");
	copy_is_the_log(dir, copy);
	ino_t first = single_inode(dir, copy);
	e2e_write(dir, "content/r.md", "---\ntitle: R\nruns:\n  cs: ../logs/a.log\n---\n"
				       "The loss: {{ cs.final_loss | expect < 8 }}.\n");
	e2e_ok(dir, "build");
	assert_int_equal(single_inode(dir, copy), first);
	copy_is_the_log(dir, copy);
	shows_the_true_loss(dir);

	/* written in place, same size, its times set back */
	char *path = path_join(dir, copy);
	struct stat before;
	assert_int_equal(stat(path, &before), 0);
	char *text = e2e_read(dir, copy);
	char *at = strstr(text, "7.125");
	assert_non_null(at);
	memcpy(at, "9.125", 5);
	assert_true(file_write(path, text, strlen(text)));
	free(text);
	struct timespec times[2] = {before.st_atim, before.st_mtim};
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
	e2e_write(dir, "site.yaml", "title: Edited copy\n");
	e2e_ok(dir, "build");
	copy_is_the_log(dir, copy);

	/* a link out in its place */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	e2e_write(dir, "site.yaml", "title: Linked copy\n");
	e2e_ok(dir, "build");
	copy_is_the_log(dir, copy);

	/* a second name */
	char *other = path_join(dir, "other-name");
	assert_int_equal(link(path, other), 0);
	e2e_write(dir, "site.yaml", "title: Two names\n");
	e2e_ok(dir, "build");
	copy_is_the_log(dir, copy);
	unlink(other);
	free(other);

	/* the log grew: the copy follows it, and its page counts its lines
	 * again (the count the cache kept was of the old content) */
	char *page = e2e_read(dir, "_site/r/logs/_/logs/a.log.html");
	char *want = xasprintf("<p class=\"ld-log-meta\">%ld lines", lines_of(dir, "logs/a.log"));
	assert_contains(page, want);
	free(page);
	free(want);
	e2e_append(dir, "logs/a.log", "one more line\n");
	e2e_ok(dir, "build");
	copy_is_the_log(dir, copy);
	page = e2e_read(dir, "_site/r/logs/_/logs/a.log.html");
	want = xasprintf("<p class=\"ld-log-meta\">%ld lines", lines_of(dir, "logs/a.log"));
	assert_contains(page, want);
	free(page);
	free(want);
	free(path);
	e2e_drop(&dir);
	e2e_drop(&home);
	unsetenv("XDG_CACHE_HOME");
}

/* A cache another user wrote (here: with another key), even one whose
 * runs they poisoned and sealed again with their own key, is not used;
 * and the test's own reseal is right: under the key it was sealed with,
 * the poisoned run is read (so the seal is what keeps it out). */
static void a_cache_sealed_with_another_key_is_not_used(void **state)
{
	(void)state;
	char *theirs = key_home();
	char *dir = claim_project();
	e2e_ok(dir, "build");
	poison_run(dir, theirs);
	e2e_write(dir, "site.yaml", "title: Theirs\n");
	/* the other user's own build takes the poisoned run: the claim fails */
	struct proc t = e2e_run(dir, "build -v");
	assert_int_equal(t.status, 1);
	assert_contains(t.err, "error: cs.final_loss is 9.12500, the text claims < 8");
	proc_free(&t);
	/* this user's build: another key, not used */
	char *mine = key_home();
	struct proc b = e2e_run(dir, "build -v");
	if (b.status != 0)
		fail_msg("build failed:\n%s", b.err);
	assert_contains(b.err, "warning: the build cache is not this user's (sealed with another "
			       "key: written by another user or on another machine): ignored");
	assert_contains(b.err, "1 result file read: 1 parsed, 0 from cache");
	proc_free(&b);
	shows_the_true_loss(dir);
	same_as_without_cache(dir);
	e2e_drop(&dir);
	e2e_drop(&theirs);
	e2e_drop(&mine);
	unsetenv("XDG_CACHE_HOME");
}

/* check, the CI command, reads no cache unless given --cache: a run
 * poisoned and sealed with this user's very key (the strongest poison:
 * a cache restored from somewhere) decides nothing. */
static void check_reads_no_cache_unless_asked(void **state)
{
	(void)state;
	char *home = key_home();
	char *dir = claim_project();
	e2e_ok(dir, "build");
	poison_run(dir, home);
	struct proc c = e2e_run(dir, "check -v");
	if (c.status != 0)
		fail_msg("check failed:\n%s", c.err);
	assert_contains(c.err, "1 result file read: 1 parsed, 0 from cache");
	proc_free(&c);
	/* --no-cache, as before, is the same */
	c = e2e_run(dir, "check -v --no-cache");
	assert_int_equal(c.status, 0);
	proc_free(&c);
	/* asked to, it reads it (and the claim on the poisoned value fails) */
	c = e2e_run(dir, "check -v --cache");
	assert_int_equal(c.status, 1);
	assert_contains(c.err, "error: cs.final_loss is 9.12500, the text claims < 8");
	proc_free(&c);
	c = e2e_run(dir, "check --help");
	assert_contains(c.out, "  --cache              read the build cache");
	proc_free(&c);
	e2e_drop(&dir);
	e2e_drop(&home);
	unsetenv("XDG_CACHE_HOME");
}

/* A key logdown cannot trust is a warning, and the build runs without
 * any cache: it reads none and writes none, and its output is right. */
static void a_key_that_is_not_safe_means_no_cache(void **state)
{
	(void)state;
	static const struct {
		const char *setup; /* run in the key's home, after a first build */
		const char *warning;
		bool root_only;
	} cases[] = {
		{"mv logdown/key elsewhere && ln -s \"$PWD/elsewhere\" logdown/key",
		 "logdown/key: warning: the build cache's key is a symbolic link: the build runs "
		 "without the cache (it must be a file of yours that only you can read, in a folder "
		 "only you can write to; or remove it, and logdown makes a new one)",
		 false},
		{"chmod 640 logdown/key", "logdown/key: warning: the build cache's key is readable or "
					  "writable by others: the build runs without the cache",
		 false},
		{"chmod 602 logdown/key", "the build cache's key is readable or writable by others",
		 false},
		{"chmod 777 logdown", "/logdown: warning: the build cache's key is in a folder others "
				      "may write to: the build runs without the cache",
		 false},
		{"mv logdown real && ln -s real logdown", "/logdown: warning: the build cache's key is "
							  "in a symbolic link or a file where its "
							  "folder goes",
		 false},
		{"chown 65534 logdown/key",
		 "logdown/key: warning: the build cache's key is not yours (another user owns it)",
		 true},
		{"rm logdown/key && mkdir logdown/key", "the build cache's key is not a file", false},
		{"head -c 16 /dev/urandom > logdown/key",
		 "the build cache's key is not a key logdown made (one is 32 bytes)", false},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		if (cases[i].root_only && geteuid() != 0)
			continue;
		char *home = key_home();
		char *dir = claim_project();
		e2e_ok(dir, "build");
		char *cmd = xasprintf("cd '%s' && %s", home, cases[i].setup);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		char *cache = path_join(dir, ".logdown-cache");
		remove_tree(cache);
		e2e_write(dir, "site.yaml", "title: Keyless\n");
		/* twice for the first case: the second build, too, reads and
		 * writes no cache */
		for (int round = 0; round < (i == 0 ? 2 : 1); round++) {
			struct proc b = e2e_run(dir, "build -v");
			if (b.status != 0)
				fail_msg("case %zu: build failed:\n%s", i, b.err);
			assert_contains(b.err, cases[i].warning);
			assert_contains(b.err, "1 rendered, 0 from cache; 1 result file read: 1 "
					       "parsed, 0 from cache");
			proc_free(&b);
			assert_false(path_exists(cache)); /* nothing written */
		}
		shows_the_true_loss(dir);
		free(cache);
		e2e_drop(&dir);
		e2e_drop(&home);
	}
	unsetenv("XDG_CACHE_HOME");
}

/* A fresh key is made once, 0600 in a 0700 folder, and kept. */
static void the_key_is_made_once_and_private(void **state)
{
	(void)state;
	char *home = key_home();
	char *dir = claim_project();
	e2e_ok(dir, "build");
	char *key = path_join(home, "logdown/key"), *kdir = path_join(home, "logdown");
	struct stat st, dst;
	assert_int_equal(lstat(key, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, SEAL_KEY_BYTES);
	assert_int_equal(lstat(kdir, &dst), 0);
	assert_int_equal(dst.st_mode & 0777, 0700);
	char *first = e2e_read(home, "logdown/key");
	struct proc b = e2e_run(dir, "build -v");
	assert_int_equal(b.status, 0);
	assert_contains(b.err, "0 rendered, 1 from cache");
	proc_free(&b);
	char *second = e2e_read(home, "logdown/key");
	assert_memory_equal(first, second, SEAL_KEY_BYTES);
	free(first);
	free(second);
	free(key);
	free(kdir);
	e2e_drop(&dir);
	e2e_drop(&home);
	unsetenv("XDG_CACHE_HOME");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_input_change_invalidates_what_it_should),
		cmocka_unit_test(a_damaged_cache_is_a_warning_and_never_trusted),
		cmocka_unit_test(clean_removes_the_cache_and_the_output),
		cmocka_unit_test(a_report_with_warnings_is_rendered_every_time),
		cmocka_unit_test(the_runs_folder_keeps_only_what_the_build_uses),
		cmocka_unit_test(a_project_given_by_another_path_reads_the_same_stored_runs),
		cmocka_unit_test(a_cache_that_is_a_link_is_never_followed),
		cmocka_unit_test(links_inside_the_cache_are_replaced_never_followed),
		cmocka_unit_test(an_edited_run_with_its_checksum_fixed_is_not_used),
		cmocka_unit_test(a_store_checked_before_is_refused_once_edited),
		cmocka_unit_test(an_unchanged_logs_copy_stays_unless_touched),
		cmocka_unit_test(a_cache_sealed_with_another_key_is_not_used),
		cmocka_unit_test(check_reads_no_cache_unless_asked),
		cmocka_unit_test(a_key_that_is_not_safe_means_no_cache),
		cmocka_unit_test(the_key_is_made_once_and_private),
		cmocka_unit_test(the_examples_read_from_the_store_build_as_parsed),
		cmocka_unit_test(a_store_changed_inside_or_from_another_version_is_refused),
		cmocka_unit_test(a_log_eight_reports_name_is_parsed_once),
		cmocka_unit_test(a_rewritten_log_is_parsed_again),
		cmocka_unit_test(a_log_rewritten_during_builds_is_never_stored_under_the_other_content),
	};
	e2e_test_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
