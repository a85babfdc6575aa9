/* test_snapshot.c: file versions, compared, and what a build saw. */
#define _XOPEN_SOURCE 700 /* nftw() in tmpdirs.h, symlink() */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "cmd/snapshot.h"
#include "base/util.h"

#define TMPDIR_TAG "snapshot"
#include "tmpdirs.h"

/* Replaces dir/name with text the way editors and jobs save: a new
 * file renamed over the old one (a new inode, whatever the clock). */
static void save(const char *dir, const char *name, const char *text)
{
	char *tmp = xasprintf("%s/.%s.tmp", dir, name);
	char *path = path_join(dir, name);
	assert_true(file_write(tmp, text, strlen(text)));
	assert_int_equal(rename(tmp, path), 0);
	free(path);
	free(tmp);
}

static struct snapshot snap_of(const char *path)
{
	struct snapshot s = {0};
	snapshot_add(&s, path);
	snapshot_sort(&s);
	return s;
}

struct seen {
	char log[512];
};

static void note(void *ctx, const char *path, bool existed, bool exists)
{
	struct seen *s = ctx;
	const char *base = strrchr(path, '/');
	size_t len = strlen(s->log);
	snprintf(s->log + len, sizeof s->log - len, "%s %d%d;", base ? base + 1 : path, existed,
		 exists);
}

static void a_tree_lists_its_files_sorted_once_and_diff_names_each_change(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	save(dir, "b.md", "b");
	save(dir, "gone.md", "g");
	char *sub = path_join(dir, "sub");
	assert_int_equal(mkdir(sub, 0755), 0);
	save(sub, "c.log", "c");
	/* a link to its own folder is a file here, not a walk without end */
	char *other = path_join(dir, "other");
	assert_int_equal(mkdir(other, 0755), 0);
	char *loop = path_join(other, "self");
	assert_int_equal(symlink(".", loop), 0);

	struct snapshot a = {0};
	snapshot_tree(&a, dir);
	char *b_md = path_join(dir, "b.md");
	snapshot_add(&a, b_md); /* named twice: kept once */
	snapshot_sort(&a);
	assert_int_equal(a.n, 4);
	assert_string_equal(strrchr(a.f[0].path, '/'), "/b.md");
	assert_string_equal(strrchr(a.f[1].path, '/'), "/gone.md");
	assert_string_equal(strrchr(a.f[2].path, '/'), "/self");
	assert_true(a.f[2].v[0] >= 0);
	assert_string_equal(strrchr(a.f[3].path, '/'), "/c.log");

	struct snapshot same = {0};
	snapshot_tree(&same, dir);
	snapshot_sort(&same);
	assert_int_equal(snapshot_diff(&a, &same, NULL, NULL), 0);

	save(dir, "a.md", "new");
	save(sub, "c.log", "changed");
	char *gone = path_join(dir, "gone.md");
	assert_int_equal(unlink(gone), 0);
	struct snapshot b = {0};
	snapshot_tree(&b, dir);
	snapshot_sort(&b);
	struct seen s = {{0}};
	assert_int_equal(snapshot_diff(&a, &b, note, &s), 3);
	assert_string_equal(s.log, "a.md 01;gone.md 10;c.log 11;");

	snapshot_free(&a);
	snapshot_free(&same);
	snapshot_free(&b);
	snapshot_free(&b); /* emptied: freeing again is harmless */
	free(gone);
	free(b_md);
	free(loop);
	free(other);
	free(sub);
	drop_tmpdir(dir);
}

/* The bug this module's snapshot_as_of() exists for: serve took the
 * snapshot after a build, so a log rewritten after the build had read
 * it, but before that snapshot, was never rebuilt. */
static void a_file_changed_while_a_build_ran_differs_at_the_next_poll(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	save(dir, "run.log", "loss 4.44444\n");
	char *log = path_join(dir, "run.log");
	struct snapshot before = snap_of(log);
	struct timespec start = snapshot_clock();
	/* ... the build reads run.log here; then a job rewrites it ... */
	save(dir, "run.log", "loss 3.33333\n");
	struct snapshot after = snap_of(log);
	struct snapshot poll = snap_of(log);
	/* taken afresh, the snapshot after the build has the new version
	 * already: no poll would ever differ from it */
	assert_int_equal(snapshot_diff(&after, &poll, NULL, NULL), 0);
	snapshot_as_of(&after, &before, start);
	struct seen s = {{0}};
	assert_int_equal(snapshot_diff(&after, &poll, note, &s), 1);
	assert_string_equal(s.log, "run.log 11;");
	snapshot_free(&before);
	snapshot_free(&after);
	snapshot_free(&poll);
	free(log);
	drop_tmpdir(dir);
}

static void a_file_removed_while_a_build_ran_differs_at_the_next_poll(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	save(dir, "run.log", "loss 1\n");
	char *log = path_join(dir, "run.log");
	struct snapshot before = snap_of(log);
	struct timespec start = snapshot_clock();
	assert_int_equal(unlink(log), 0);
	struct snapshot after = snap_of(log);
	snapshot_as_of(&after, &before, start);
	struct snapshot poll = snap_of(log);
	struct seen s = {{0}};
	assert_int_equal(snapshot_diff(&after, &poll, note, &s), 1);
	assert_string_equal(s.log, "run.log 10;");
	snapshot_free(&before);
	snapshot_free(&after);
	snapshot_free(&poll);
	free(log);
	drop_tmpdir(dir);
}

/* A result file the build read for the first time (a report that now
 * names it) was not in the snapshot before: its change time tells. */
static void a_file_first_read_by_a_build_and_changed_during_it_is_marked(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	struct snapshot before = {0};
	struct timespec start = snapshot_clock();
	save(dir, "new.log", "loss 2\n");
	char *log = path_join(dir, "new.log");
	struct snapshot after = snap_of(log);
	snapshot_as_of(&after, &before, start);
	assert_int_equal(after.f[0].v[0], -2);
	struct snapshot poll = snap_of(log);
	struct seen s = {{0}};
	assert_int_equal(snapshot_diff(&after, &poll, note, &s), 1);
	assert_string_equal(s.log, "new.log 01;");
	snapshot_free(&before);
	snapshot_free(&after);
	snapshot_free(&poll);
	free(log);
	drop_tmpdir(dir);
}

static void a_file_first_read_by_a_build_unchanged_since_it_began_is_not(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	save(dir, "old.log", "loss 2\n");
	char *log = path_join(dir, "old.log");
	struct stat st;
	assert_int_equal(stat(log, &st), 0);
	/* the build began just after the file's last change */
	struct timespec start = st.st_ctim;
	start.tv_nsec += 1;
	if (start.tv_nsec == 1000000000L) {
		start.tv_sec++;
		start.tv_nsec = 0;
	}
	struct snapshot before = {0};
	struct snapshot after = snap_of(log);
	/* a missing file the build looked for stays missing, not marked */
	char *missing = path_join(dir, "missing.log");
	snapshot_add(&after, missing);
	snapshot_sort(&after);
	snapshot_as_of(&after, &before, start);
	assert_int_equal(after.f[0].v[0], -1);
	assert_int_equal(after.f[1].v[0], (long long)st.st_size);
	struct snapshot poll = {0};
	snapshot_add(&poll, log);
	snapshot_add(&poll, missing);
	snapshot_sort(&poll);
	assert_int_equal(snapshot_diff(&after, &poll, NULL, NULL), 0);
	snapshot_free(&before);
	snapshot_free(&after);
	snapshot_free(&poll);
	free(missing);
	free(log);
	drop_tmpdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_tree_lists_its_files_sorted_once_and_diff_names_each_change),
		cmocka_unit_test(a_file_changed_while_a_build_ran_differs_at_the_next_poll),
		cmocka_unit_test(a_file_removed_while_a_build_ran_differs_at_the_next_poll),
		cmocka_unit_test(a_file_first_read_by_a_build_and_changed_during_it_is_marked),
		cmocka_unit_test(a_file_first_read_by_a_build_unchanged_since_it_began_is_not),
	};
	return cmocka_run_group_tests(tests, NULL, drop_leftovers);
}
