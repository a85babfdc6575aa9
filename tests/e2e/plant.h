/* plant.h: what the e2e tests of a reused report's folder plant in the
 * previous output (test_swap.c for build, test_serve.c for serve's
 * rebuilds): the kinds of link issue 24's item 1 lists.  Include after
 * e2e.h. */
#ifndef LOGDOWN_E2E_PLANT_H
#define LOGDOWN_E2E_PLANT_H

enum plant { PLANT_FILE_LINK, PLANT_HARD_LINK, PLANT_DIR_LINK, PLANT_REPORT_LINK, NPLANTS };
static const char *const plant_names[] = {"a link as logs/FILE", "a hard link out as logs/FILE",
					  "logs/ a link to a folder", "the report a link"};

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
	if (kind == PLANT_FILE_LINK || kind == PLANT_HARD_LINK) {
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
