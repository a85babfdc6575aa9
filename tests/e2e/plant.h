/* plant.h: what the e2e tests of a reused report's folder plant in the
 * previous output (test_swap.c for build, test_serve.c for serve's
 * rebuilds): the kinds of link issue 24's item 1 lists, and regular
 * files no build wrote: one more in logs/, the page changed in place,
 * a log changed in place with its times put back.  Include after e2e.h. */
#ifndef LOGDOWN_E2E_PLANT_H
#define LOGDOWN_E2E_PLANT_H

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum plant {
	PLANT_FILE_LINK,
	PLANT_HARD_LINK,
	PLANT_DIR_LINK,
	PLANT_REPORT_LINK,
	PLANT_EXTRA_FILE,
	PLANT_CHANGED_PAGE,
	PLANT_CHANGED_TIMES_BACK,
	NPLANTS
};
static const char *const plant_names[] = {
	"a link as logs/FILE",
	"a hard link out as logs/FILE",
	"logs/ a link to a folder",
	"the report a link",
	"a file more, logs/planted.txt",
	"index.html changed in place",
	"logs/FILE changed in place, its times put back",
};

/* Changes the byte at the middle of the file path in place: the same
 * size, the same inode; with times_back, its access and modify times
 * put back as they were (utimensat()), so that only its change time,
 * which no one can set, tells. */
static inline void plant_change(const char *path, bool times_back)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 0);
	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	char c;
	off_t at = st.st_size / 2;
	assert_int_equal(pread(fd, &c, 1, at), 1);
	c = c == '7' ? '8' : '7';
	assert_int_equal(pwrite(fd, &c, 1, at), 1);
	if (times_back) {
		struct timespec times[2] = {st.st_atim, st.st_mtim};
		assert_int_equal(futimens(fd, times), 0);
	}
	close(fd);
	struct stat now;
	assert_int_equal(stat(path, &now), 0);
	assert_int_equal(now.st_size, st.st_size);
	assert_int_equal(now.st_ino, st.st_ino);
	if (times_back)
		assert_int_equal(now.st_mtim.tv_nsec, st.st_mtim.tv_nsec);
}

/* Plants kind in the previous output site's folder of report slug,
 * with what it leads to in outside (a folder out of the output). */
static inline void plant(const char *site, const char *slug, const char *outside, enum plant kind)
{
	char *logs = xasprintf("%s/%s/logs", site, slug);
	/* the first file below logs/ (a log out of the bundle is below
	 * logs/_/) */
	char *file = xstrdup(logs);
	while (is_dir(file)) {
		size_t n;
		char **names = dir_list(file, &n);
		assert_true(names && n > 0);
		char *next = path_join(file, names[0]);
		strv_free(names);
		free(file);
		file = next;
	}
	char *secret = path_join(outside, "secret");
	e2e_write(outside, "secret", "a secret of the machine's\n");
	if (kind == PLANT_EXTRA_FILE) {
		char *extra = path_join(logs, "planted.txt");
		assert_true(file_write(extra, "planted\n", 8));
		free(extra);
	} else if (kind == PLANT_CHANGED_PAGE) {
		char *page = xasprintf("%s/%s/index.html", site, slug);
		plant_change(page, false);
		free(page);
	} else if (kind == PLANT_CHANGED_TIMES_BACK) {
		plant_change(file, true);
	} else if (kind == PLANT_FILE_LINK || kind == PLANT_HARD_LINK) {
		assert_int_equal(unlink(file), 0);
		assert_int_equal(kind == PLANT_FILE_LINK ? symlink(secret, file) : link(secret, file),
				 0);
	} else {
		/* the same files, somewhere else, and one more */
		char *from = kind == PLANT_DIR_LINK ? xstrdup(logs) : xasprintf("%s/%s", site, slug);
		char *to = xasprintf("%s/%s", outside, kind == PLANT_DIR_LINK ? "logs" : "report");
		remove_tree(to);
		assert_int_equal(rename(from, to), 0);
		char *extra = path_join(to, "planted.txt");
		assert_true(file_write(extra, "planted\n", 8));
		assert_int_equal(symlink(to, from), 0);
		free(extra);
		free(from);
		free(to);
	}
	free(secret);
	free(file);
	free(logs);
}

#endif
