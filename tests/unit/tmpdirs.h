/* tmpdirs.h: temporary folders for unit tests.
 *
 * Define TMPDIR_TAG ("config") before including: folders are named
 * /tmp/logdown-test-TAG-XXXXXX.  A failed test leaves its folder, which
 * the group teardown drop_leftovers() removes (with nftw, never
 * following links).  Include after <cmocka.h> and util.h. */
#ifndef LOGDOWN_TEST_TMPDIRS_H
#define LOGDOWN_TEST_TMPDIRS_H

#include <ftw.h>
#include <stdlib.h>
#include <unistd.h>

static char *made[128];
static size_t nmade;

static inline char *make_tmpdir(void)
{
	char *dir = xstrdup("/tmp/logdown-test-" TMPDIR_TAG "-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_true(nmade < ARRAY_LEN(made));
	made[nmade++] = dir;
	return dir;
}

static inline int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes dir and everything in it, and frees it. */
static inline void drop_tmpdir(char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	for (size_t i = 0; i < nmade; i++)
		if (made[i] == dir)
			made[i] = made[--nmade];
	free(dir);
}

static inline int drop_leftovers(void **state)
{
	(void)state;
	while (nmade)
		drop_tmpdir(made[0]);
	return 0;
}

#endif
