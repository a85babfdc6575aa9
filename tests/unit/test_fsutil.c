/* test_fsutil.c: paths, folders, copying and removing trees. */
#define _XOPEN_SOURCE 700 /* nftw(), symlink() */
#define _DEFAULT_SOURCE /* DT_DIR, DT_REG, DT_LNK */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"

/* Each test gets a fresh folder under /tmp in *state; teardown removes
 * it with nftw (never following links), not with the code under test. */
static int make_root(void **state)
{
	char *root = xstrdup("/tmp/logdown-test-fsutil-XXXXXX");
	if (!mkdtemp(root)) {
		free(root);
		return -1;
	}
	*state = root;
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int remove_root(void **state)
{
	char *root = *state;
	chmod(root, 0755);
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(root);
	return 0;
}

/* ROOT/rel, which the caller frees. */
static char *at(void **state, const char *rel)
{
	return xasprintf("%s/%s", (const char *)*state, rel);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Fails unless path holds exactly want.  Compares by length, so that
 * the check stands even if file_read() left no NUL. */
static void assert_file_holds(const char *path, const char *want)
{
	struct buf b = BUF_INIT;
	if (!file_read(path, &b, NULL)) {
		buf_free(&b);
		fail_msg("cannot read %s: %s", path, strerror(errno));
	}
	bool same = b.len == strlen(want) && memcmp(b.data ? b.data : "", want, b.len) == 0;
	buf_free(&b);
	if (!same)
		fail_msg("%s does not hold '%s'", path, want);
}

static void assert_join(const char *a, const char *b, const char *want)
{
	char *got = path_join(a, b);
	bool same = strcmp(got, want) == 0;
	char copy[256];
	snprintf(copy, sizeof copy, "%s", got);
	free(got);
	if (!same)
		fail_msg("path_join(\"%s\", \"%s\") is \"%s\", expected \"%s\"", a, b, copy, want);
}

static void assert_dirname(const char *path, const char *want)
{
	char *got = path_dirname(path);
	bool same = strcmp(got, want) == 0;
	char copy[256];
	snprintf(copy, sizeof copy, "%s", got);
	free(got);
	if (!same)
		fail_msg("path_dirname(\"%s\") is \"%s\", expected \"%s\"", path, copy, want);
}

static void join_puts_one_slash_between(void **state)
{
	(void)state;
	assert_join("a", "b", "a/b");
	assert_join("content", "hw07/index.md", "content/hw07/index.md");
	assert_join("/abs/dir", "f", "/abs/dir/f");
}

static void join_drops_trailing_slashes(void **state)
{
	(void)state;
	assert_join("a/", "b", "a/b");
	assert_join("a///", "b", "a/b");
}

static void join_with_dot_or_nothing_is_the_other_part(void **state)
{
	(void)state;
	assert_join(".", "x", "x");
	assert_join("", "x", "x");
	assert_join("a", ".", "a");
	assert_join("a/", "", "a");
}

static void join_with_an_absolute_second_part_is_that_part(void **state)
{
	(void)state;
	assert_join("a", "/etc/x", "/etc/x");
}

static void join_onto_the_root_folder_has_one_slash(void **state)
{
	(void)state;
	assert_join("/", "x", "/x");
}

static void dirname_is_the_part_before_the_last_slash(void **state)
{
	(void)state;
	assert_dirname("content/hw07/index.md", "content/hw07");
	assert_dirname("a/b", "a");
	assert_dirname("/a/b", "/a");
}

static void dirname_without_a_slash_is_dot(void **state)
{
	(void)state;
	assert_dirname("hw07.md", ".");
	assert_dirname("", ".");
}

static void dirname_of_a_top_level_path_is_root(void **state)
{
	(void)state;
	assert_dirname("/hw07.md", "/");
	assert_dirname("/", "/");
}

static void dirname_ignores_a_trailing_slash(void **state)
{
	(void)state;
	/* As dirname(1): the parent of "a/b/" is "a". */
	assert_dirname("a/b/", "a");
}

static void under_gives_the_relative_part(void **state)
{
	(void)state;
	assert_string_equal(path_under("/p/content/hw07.md", "/p"), "content/hw07.md");
	assert_string_equal(path_under("/p/a", "/p"), "a");
	assert_string_equal(path_under("/p", "/p"), "");
}

static void under_refuses_a_sibling_with_the_same_prefix(void **state)
{
	(void)state;
	assert_null(path_under("/project2/x", "/project"));
	assert_null(path_under("/projectx", "/project"));
	assert_null(path_under("/other", "/project"));
	assert_null(path_under("/", "/project"));
}

static void everything_is_under_the_root_folder(void **state)
{
	(void)state;
	assert_string_equal(path_under("/etc/passwd", "/"), "etc/passwd");
	assert_string_equal(path_under("/", "/"), "");
}

static void real_path_resolves_links_and_dots(void **state)
{
	char *dir = at(state, "d");
	char *link = at(state, "l");
	assert_true(mkdir_p(dir));
	assert_int_equal(symlink(dir, link), 0);
	char *via = at(state, "l/../d/.");
	char *want = path_real(*state);
	char *got = path_real(via);
	assert_non_null(want);
	assert_non_null(got);
	char *want_d = xasprintf("%s/d", want);
	assert_string_equal(got, want_d);
	char *missing = at(state, "nope");
	assert_null(path_real(missing));
	assert_int_equal(errno, ENOENT);
	free(missing);
	free(want_d);
	free(got);
	free(want);
	free(via);
	free(link);
	free(dir);
}

static void mkdir_p_makes_every_level(void **state)
{
	char *deep = at(state, "a/b/c/d");
	char *mid = at(state, "a/b");
	assert_true(mkdir_p(deep));
	assert_true(is_dir(deep));
	assert_true(is_dir(mid));
	free(mid);
	free(deep);
}

static void mkdir_p_of_an_existing_folder_succeeds(void **state)
{
	char *d = at(state, "x/y");
	assert_true(mkdir_p(d));
	assert_true(mkdir_p(d));
	assert_true(mkdir_p(*state));
	free(d);
}

static void mkdir_p_accepts_a_trailing_slash(void **state)
{
	char *d = at(state, "t/u/");
	assert_true(mkdir_p(d));
	assert_true(is_dir(d));
	free(d);
}

static void mkdir_p_over_a_file_fails_with_enotdir(void **state)
{
	char *f = at(state, "file");
	put_file(f, "x");
	errno = 0;
	assert_false(mkdir_p(f));
	assert_int_equal(errno, ENOTDIR);
	assert_true(is_file(f));
	free(f);
}

static void mkdir_p_below_a_file_fails_with_enotdir(void **state)
{
	char *f = at(state, "file");
	char *below = at(state, "file/sub/deeper");
	put_file(f, "x");
	errno = 0;
	assert_false(mkdir_p(below));
	assert_int_equal(errno, ENOTDIR);
	free(below);
	free(f);
}

static void mkdir_p_of_an_empty_path_fails_with_enoent(void **state)
{
	(void)state;
	/* In a child, so that a memory error is reported as this test's
	 * failure rather than ending the whole run. */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		errno = 0;
		bool ok = mkdir_p("");
		_exit(!ok && errno == ENOENT ? 0 : 2);
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("mkdir_p(\"\") %s", WIFEXITED(status) && WEXITSTATUS(status) == 2
						    ? "did not fail with ENOENT"
						    : "crashed (see the sanitizer report above)");
}

static void dir_list_is_sorted_bytewise_without_dots(void **state)
{
	const char *names[] = {"b", "a.txt", "C", "_x", "a", "B2"};
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		char *p = at(state, names[i]);
		put_file(p, "");
		free(p);
	}
	char *sub = at(state, "dir");
	assert_true(mkdir_p(sub));
	free(sub);
	size_t n = 99;
	char **v = dir_list(*state, &n);
	assert_non_null(v);
	assert_int_equal(n, 7);
	const char *want[] = {"B2", "C", "_x", "a", "a.txt", "b", "dir"};
	for (size_t i = 0; i < n; i++)
		assert_string_equal(v[i], want[i]);
	assert_null(v[n]);
	strv_free(v);
}

static void dir_list_of_many_entries_keeps_them_all(void **state)
{
	for (int i = 0; i < 100; i++) {
		char *rel = xasprintf("f%03d", 99 - i);
		char *p = at(state, rel);
		put_file(p, "");
		free(p);
		free(rel);
	}
	size_t n = 0;
	char **v = dir_list(*state, &n);
	assert_non_null(v);
	assert_int_equal(n, 100);
	assert_string_equal(v[0], "f000");
	assert_string_equal(v[57], "f057");
	assert_string_equal(v[99], "f099");
	assert_null(v[100]);
	strv_free(v);
}

static void dir_list_of_an_empty_folder_is_empty(void **state)
{
	size_t n = 99;
	char **v = dir_list(*state, &n);
	assert_non_null(v);
	assert_int_equal(n, 0);
	assert_null(v[0]);
	strv_free(v);
}

/* The types follow their names through the sort; a link is DT_LNK, not
 * what it leads to (the walk lstat()s only such entries).  A file
 * system that gives no types says DT_UNKNOWN, which the walk treats as
 * before. */
/* A file stat'ed twice with nothing between is unchanged; a byte
 * appended, or another file in its place, is not. */
static void stat_unchanged_sees_a_write_and_a_replacement(void **state)
{
	char *file = at(state, "log"), *other = at(state, "other");
	put_file(file, "one\n");
	put_file(other, "one\n");
	struct stat a, b;
	assert_int_equal(stat(file, &a), 0);
	assert_int_equal(stat(file, &b), 0);
	assert_true(stat_unchanged(&a, &b));
	FILE *f = fopen(file, "a");
	assert_non_null(f);
	fputs("two\n", f);
	fclose(f);
	assert_int_equal(stat(file, &b), 0);
	assert_false(stat_unchanged(&a, &b));
	assert_int_equal(stat(file, &a), 0);
	assert_int_equal(rename(other, file), 0);
	assert_int_equal(stat(file, &b), 0);
	assert_false(stat_unchanged(&a, &b));
	free(file);
	free(other);
}

static void dir_list_typed_keeps_each_names_type(void **state)
{
	char *file = at(state, "b.md"), *sub = at(state, "a"), *link = at(state, "c");
	put_file(file, "x");
	assert_true(mkdir_p(sub));
	assert_int_equal(symlink("a", link), 0);
	size_t n = 0;
	unsigned char *types = NULL;
	char **v = dir_list_typed(*state, &n, &types);
	assert_non_null(v);
	assert_int_equal(n, 3);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[1], "b.md");
	assert_string_equal(v[2], "c");
	assert_null(v[3]);
	if (types[0] != DT_UNKNOWN) {
		assert_int_equal(types[0], DT_DIR);
		assert_int_equal(types[1], DT_REG);
		assert_int_equal(types[2], DT_LNK);
	}
	free(types);
	strv_free(v);
	free(file);
	free(sub);
	free(link);
}

static void dir_list_of_a_missing_folder_fails_with_errno(void **state)
{
	char *missing = at(state, "missing");
	char *file = at(state, "file");
	put_file(file, "x");
	size_t n;
	errno = 0;
	assert_null(dir_list(missing, &n));
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_null(dir_list(file, &n));
	assert_int_equal(errno, ENOTDIR);
	free(file);
	free(missing);
}

static void strv_free_of_null_does_nothing(void **state)
{
	(void)state;
	strv_free(NULL);
}

/* ROOT/src: a.txt, sub/b.txt, sub/deeper/c.txt, empty/ */
static void make_source_tree(void **state)
{
	char *deeper = at(state, "src/sub/deeper");
	char *empty = at(state, "src/empty");
	assert_true(mkdir_p(deeper));
	assert_true(mkdir_p(empty));
	char *a = at(state, "src/a.txt");
	char *b = at(state, "src/sub/b.txt");
	char *c = at(state, "src/sub/deeper/c.txt");
	put_file(a, "alpha\n");
	put_file(b, "beta\n");
	put_file(c, "gamma\n");
	free(a);
	free(b);
	free(c);
	free(empty);
	free(deeper);
}

static void remove_tree_removes_everything(void **state)
{
	make_source_tree(state);
	char *src = at(state, "src");
	assert_true(remove_tree(src));
	assert_false(path_exists(src));
	free(src);
}

static void remove_tree_removes_a_link_to_a_folder_not_its_files(void **state)
{
	char *target = at(state, "precious");
	char *kept = at(state, "precious/data.txt");
	char *tree = at(state, "tree/sub");
	char *link = at(state, "tree/sub/link");
	assert_true(mkdir_p(target));
	put_file(kept, "keep me\n");
	assert_true(mkdir_p(tree));
	assert_int_equal(symlink(target, link), 0);
	char *top = at(state, "tree");
	assert_true(remove_tree(top));
	assert_false(path_exists(top));
	assert_true(is_dir(target));
	assert_file_holds(kept, "keep me\n");
	free(top);
	free(link);
	free(tree);
	free(kept);
	free(target);
}

static void remove_tree_of_a_link_removes_only_the_link(void **state)
{
	char *target = at(state, "precious");
	char *kept = at(state, "precious/data.txt");
	char *link = at(state, "link");
	assert_true(mkdir_p(target));
	put_file(kept, "keep me\n");
	assert_int_equal(symlink(target, link), 0);
	assert_true(remove_tree(link));
	assert_false(path_exists(link));
	assert_file_holds(kept, "keep me\n");
	free(link);
	free(kept);
	free(target);
}

static void remove_tree_removes_a_dangling_link(void **state)
{
	char *dir = at(state, "d");
	char *link = at(state, "d/dangling");
	assert_true(mkdir_p(dir));
	assert_int_equal(symlink("/nonexistent/logdown", link), 0);
	assert_true(path_exists(link));
	assert_true(remove_tree(dir));
	assert_false(path_exists(dir));
	free(link);
	free(dir);
}

static void remove_tree_of_a_missing_path_succeeds(void **state)
{
	char *missing = at(state, "missing");
	assert_true(remove_tree(missing));
	free(missing);
}

static void remove_tree_of_a_file_removes_it(void **state)
{
	char *f = at(state, "f");
	put_file(f, "x");
	assert_true(remove_tree(f));
	assert_false(path_exists(f));
	free(f);
}

static void file_read_appends_the_whole_file(void **state)
{
	char *f = at(state, "f.txt");
	put_file(f, "line 1\nline 2\n");
	struct buf b = BUF_INIT;
	buf_puts(&b, ">");
	assert_true(file_read(f, &b, NULL));
	assert_string_equal(buf_data(&b), ">line 1\nline 2\n");
	assert_int_equal(b.len, 15);
	buf_free(&b);
	free(f);
}

static void file_read_of_an_empty_file_gives_nothing(void **state)
{
	char *f = at(state, "empty");
	put_file(f, "");
	struct buf b = BUF_INIT;
	assert_true(file_read(f, &b, NULL));
	assert_int_equal(b.len, 0);
	char first = buf_data(&b)[0];
	buf_free(&b);
	assert_int_equal(first, '\0');
	free(f);
}

static void file_read_of_a_large_file_reads_it_all(void **state)
{
	char *f = at(state, "big");
	struct buf want = BUF_INIT;
	for (int i = 0; i < 50000; i++)
		buf_printf(&want, "%d\n", i);
	assert_true(file_write(f, want.data, want.len));
	struct buf b = BUF_INIT;
	assert_true(file_read(f, &b, NULL));
	assert_int_equal(b.len, want.len);
	assert_memory_equal(b.data, want.data, want.len);
	assert_int_equal(b.data[b.len], '\0');
	buf_free(&b);
	buf_free(&want);
	free(f);
}

static void file_read_over_the_limit_fails_with_efbig(void **state)
{
	char *f = at(state, "f");
	put_file(f, "0123456789");
	struct buf b = BUF_INIT;
	size_t limit = 9;
	errno = 0;
	assert_false(file_read(f, &b, &limit));
	assert_int_equal(errno, EFBIG);
	buf_free(&b);
	limit = 10;
	assert_true(file_read(f, &b, &limit));
	assert_string_equal(buf_data(&b), "0123456789");
	buf_free(&b);
	free(f);
}

static void file_read_refuses_a_device(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	errno = 0;
	assert_false(file_read("/dev/zero", &b, NULL));
	assert_int_equal(errno, EINVAL);
	buf_free(&b);
}

static void file_read_of_a_fifo_fails_without_blocking(void **state)
{
	char *fifo = at(state, "pipe.md");
	assert_int_equal(mkfifo(fifo, 0644), 0);
	struct buf b = BUF_INIT;
	errno = 0;
	assert_false(file_read(fifo, &b, NULL));
	assert_int_equal(errno, EINVAL);
	buf_free(&b);
	free(fifo);
}

static void resolve_folds_dots_below_a_missing_folder(void **state)
{
	char *base = at(state, "");
	char *real = path_real(base);
	char *in = xasprintf("%s/nonexist/../proj//", base);
	char *got = path_resolve(in);
	char *want = xasprintf("%s/proj", real);
	assert_string_equal(got, want);
	free(want);
	free(got);
	free(in);
	free(real);
	free(base);
}

static void resolve_follows_a_link_to_its_target(void **state)
{
	char *target = at(state, "pub");
	char *link = at(state, "site");
	assert_true(mkdir_p(target));
	assert_int_equal(symlink(target, link), 0);
	char *got = path_resolve(link);
	char *want = path_real(target);
	assert_string_equal(got, want);
	char *below = xasprintf("%s/new/x", link);
	char *got2 = path_resolve(below);
	char *want2 = xasprintf("%s/new/x", want);
	assert_string_equal(got2, want2);
	free(want2);
	free(got2);
	free(below);
	free(want);
	free(got);
	free(link);
	free(target);
}

static void resolve_of_the_root_and_its_parent_is_the_root(void **state)
{
	(void)state;
	char *a = path_resolve("/");
	char *b = path_resolve("/..");
	assert_string_equal(a, "/");
	assert_string_equal(b, "/");
	free(a);
	free(b);
}

static void file_read_of_a_folder_fails_with_eisdir(void **state)
{
	struct buf b = BUF_INIT;
	errno = 0;
	assert_false(file_read(*state, &b, NULL));
	assert_int_equal(errno, EISDIR);
	buf_free(&b);
}

static void file_read_of_a_missing_file_fails_with_enoent(void **state)
{
	char *f = at(state, "missing");
	struct buf b = BUF_INIT;
	errno = 0;
	assert_false(file_read(f, &b, NULL));
	assert_int_equal(errno, ENOENT);
	buf_free(&b);
	free(f);
}

static void file_write_replaces_the_file(void **state)
{
	char *f = at(state, "w");
	put_file(f, "a much longer old content\n");
	assert_true(file_write(f, "new", 3));
	assert_file_holds(f, "new");
	assert_true(file_write(f, "", 0));
	struct stat st;
	assert_int_equal(stat(f, &st), 0);
	assert_int_equal(st.st_size, 0);
	free(f);
}

/* Parts written one after another, an empty one among them, replace
 * the file as one; a link where it goes is refused as file_write()'s. */
static void file_write_spans_writes_the_parts_in_order(void **state)
{
	char *f = at(state, "parts");
	put_file(f, "a much longer old content\n");
	struct span parts[3] = {{"head,", 5}, {"", 0}, {"tail\n", 5}};
	assert_true(file_write_spans(f, parts, 3));
	assert_file_holds(f, "head,tail\n");
	char *link = at(state, "parts-link");
	assert_int_equal(symlink(f, link), 0);
	errno = 0;
	assert_false(file_write_spans(link, parts, 1));
	assert_int_equal(errno, ELOOP);
	assert_file_holds(f, "head,tail\n");
	free(link);
	free(f);
}

static void file_write_into_a_missing_folder_fails_with_enoent(void **state)
{
	char *f = at(state, "no/such/dir/f");
	errno = 0;
	assert_false(file_write(f, "x", 1));
	assert_int_equal(errno, ENOENT);
	free(f);
}

static void file_copy_copies_bytes_including_nul(void **state)
{
	char *from = at(state, "from");
	char *to = at(state, "to");
	assert_true(file_write(from, "a\0b", 3));
	assert_true(file_copy(from, to));
	struct buf b = BUF_INIT;
	assert_true(file_read(to, &b, NULL));
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.data, "a\0b", 3);
	buf_free(&b);
	free(to);
	free(from);
}

/* A big file, within one file system (the kernel copies it) and onto
 * another one where there is one (/dev/shm: read and write). */
static void file_copy_copies_a_big_file_anywhere(void **state)
{
	char *from = at(state, "big");
	char *to = at(state, "big-copy");
	size_t n = (size_t)3 << 20;
	char *data = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = (char)(i * 7 + i / 4096);
	assert_true(file_write(from, data, n));
	char shm[] = "/dev/shm/logdown-copy-XXXXXX";
	int fd = is_dir("/dev/shm") ? mkstemp(shm) : -1;
	if (fd >= 0)
		close(fd);
	const char *targets[] = {to, fd >= 0 ? shm : NULL};
	for (size_t k = 0; k < 2 && targets[k]; k++) {
		assert_true(file_copy(from, targets[k]));
		struct buf b = BUF_INIT;
		assert_true(file_read(targets[k], &b, NULL));
		assert_int_equal(b.len, n);
		assert_memory_equal(b.data, data, n);
		buf_free(&b);
	}
	if (fd >= 0)
		unlink(shm);
	free(data);
	free(to);
	free(from);
}

static void kinds_of_path_are_told_apart(void **state)
{
	char *f = at(state, "f");
	char *d = at(state, "d");
	char *dangling = at(state, "dangling");
	char *missing = at(state, "missing");
	put_file(f, "x");
	assert_true(mkdir_p(d));
	assert_int_equal(symlink("/nonexistent/logdown", dangling), 0);
	assert_true(is_file(f));
	assert_false(is_dir(f));
	assert_true(is_dir(d));
	assert_false(is_file(d));
	assert_true(path_exists(f));
	assert_true(path_exists(d));
	assert_true(path_exists(dangling));
	assert_false(is_file(dangling));
	assert_false(path_exists(missing));
	free(missing);
	free(dangling);
	free(d);
	free(f);
}

static void write_refuses_a_link_and_leaves_its_target(void **state)
{
	char *target = at(state, "target");
	char *link = at(state, "out.html");
	char *copy_to = at(state, "copy.html");
	put_file(target, "precious");
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(symlink(target, copy_to), 0);
	errno = 0;
	assert_false(file_write(link, "overwritten", 11));
	assert_int_equal(errno, ELOOP);
	char *src = at(state, "src");
	put_file(src, "copied");
	assert_false(file_copy(src, copy_to));
	assert_int_equal(errno, ELOOP);
	struct buf b = BUF_INIT;
	assert_true(file_read(target, &b, NULL));
	assert_string_equal(buf_data(&b), "precious");
	buf_free(&b);
	free(src);
	free(copy_to);
	free(link);
	free(target);
}

static void inside_follows_links_both_ways(void **state)
{
	char *proj = at(state, "proj");
	char *in = at(state, "proj/in.txt");
	char *out = at(state, "out.txt");
	char *link_out = at(state, "proj/link-out.txt");
	char *link_in = at(state, "proj/link-in.txt");
	char *missing = at(state, "proj/missing");
	assert_true(mkdir_p(proj));
	put_file(in, "x");
	put_file(out, "y");
	assert_int_equal(symlink(out, link_out), 0);
	assert_int_equal(symlink("in.txt", link_in), 0);
	assert_true(path_inside(in, proj));
	assert_true(path_inside(link_in, proj));
	assert_false(path_inside(link_out, proj));
	assert_false(path_inside(out, proj));
	assert_false(path_inside(missing, proj));
	free(missing);
	free(link_in);
	free(link_out);
	free(out);
	free(in);
	free(proj);
}

/* The log page's count and index fed by another reader in pieces of
 * any size: the same as its own read of the file gives. */
static void a_count_fed_in_pieces_is_the_files_own(void **state)
{
	char *path = at(state, "log");
	/* 10,003 lines of varying length, the last without its '\n' */
	struct buf text = BUF_INIT;
	for (int i = 0; i < 10003; i++)
		buf_printf(&text, "line %d%s%s", i, i % 7 ? "" : " with more words",
			   i < 10002 ? "\n" : "");
	put_file(path, buf_data(&text));
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	char rbuf[777];
	long want_lines;
	unsigned long long want_bytes;
	struct line_index want = {5, NULL, 0};
	assert_true(fd_count_lines_indexed(fd, rbuf, sizeof rbuf, &want_lines, &want_bytes, &want));
	close(fd);
	assert_int_equal(want_lines, 10003);
	assert_int_equal(want_bytes, text.len);
	assert_int_equal(want.n, 10002 / 5 + 1);
	static const size_t sizes[] = {1, 2, 3, 64, 4096, 100000};
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		struct line_count lc;
		line_count_start(&lc, 5);
		for (size_t at_ = 0; at_ < text.len; at_ += sizes[k])
			line_count_feed(&lc, buf_data(&text) + at_,
					text.len - at_ < sizes[k] ? text.len - at_ : sizes[k]);
		assert_int_equal(line_count_lines(&lc), want_lines);
		assert_int_equal(lc.total, want_bytes);
		assert_int_equal(lc.ix.n, want.n);
		assert_memory_equal(lc.ix.starts, want.starts, want.n * sizeof *want.starts);
		free(lc.ix.starts);
	}
	/* nothing fed: an empty file's count */
	struct line_count none;
	line_count_start(&none, 5);
	assert_int_equal(line_count_lines(&none), 0);
	free(none.ix.starts);
	free(want.starts);
	buf_free(&text);
	free(path);
}

#define T(name) cmocka_unit_test_setup_teardown(name, make_root, remove_root)

/* A count fed a text in one piece. */
static void count_whole(const char *text, size_t n, long every, struct line_count *lc)
{
	line_count_start(lc, every);
	line_count_feed(lc, text, n);
}

/* Going on from a count of a text's first bytes (as a log that grew
 * goes on from its last build's count) gives the count of the whole
 * text, its lines and where every `every`-th starts: cut at every byte,
 * the last line with and without its newline. */
static void a_count_resumed_from_a_prefix_is_the_whole_count(void **state)
{
	(void)state;
	static const char *const texts[] = {"a\nbb\n\nccc\nd\ne\n", "a\nbb\n\nccc\nd\ne",
					    "\n\n\n", "no newline", ""};
	for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
		const char *text = texts[t];
		size_t n = strlen(text);
		for (long every = 1; every <= 3; every++) {
			struct line_count whole;
			count_whole(text, n, every, &whole);
			for (size_t cut = 0; cut <= n; cut++) {
				struct line_count head, rest;
				count_whole(text, cut, every, &head);
				line_count_resume(&rest, line_count_lines(&head), head.total,
						  &head.ix, cut ? text[cut - 1] : '\n');
				/* the rest in pieces of one byte */
				for (size_t i = cut; i < n; i++)
					line_count_feed(&rest, text + i, 1);
				assert_int_equal(line_count_lines(&rest), line_count_lines(&whole));
				assert_int_equal(rest.total, n);
				assert_int_equal(rest.ix.n, whole.ix.n);
				for (size_t k = 0; k < whole.ix.n; k++)
					assert_int_equal(rest.ix.starts[k], whole.ix.starts[k]);
				free(head.ix.starts);
				free(rest.ix.starts);
			}
			free(whole.ix.starts);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_count_resumed_from_a_prefix_is_the_whole_count),
		cmocka_unit_test(join_puts_one_slash_between),
		cmocka_unit_test(join_drops_trailing_slashes),
		cmocka_unit_test(join_with_dot_or_nothing_is_the_other_part),
		cmocka_unit_test(join_with_an_absolute_second_part_is_that_part),
		cmocka_unit_test(join_onto_the_root_folder_has_one_slash),
		cmocka_unit_test(dirname_is_the_part_before_the_last_slash),
		cmocka_unit_test(dirname_without_a_slash_is_dot),
		cmocka_unit_test(dirname_of_a_top_level_path_is_root),
		cmocka_unit_test(dirname_ignores_a_trailing_slash),
		cmocka_unit_test(under_gives_the_relative_part),
		cmocka_unit_test(under_refuses_a_sibling_with_the_same_prefix),
		cmocka_unit_test(everything_is_under_the_root_folder),
		T(real_path_resolves_links_and_dots),
		T(mkdir_p_makes_every_level),
		T(mkdir_p_of_an_existing_folder_succeeds),
		T(mkdir_p_accepts_a_trailing_slash),
		T(mkdir_p_over_a_file_fails_with_enotdir),
		T(mkdir_p_below_a_file_fails_with_enotdir),
		cmocka_unit_test(mkdir_p_of_an_empty_path_fails_with_enoent),
		T(dir_list_is_sorted_bytewise_without_dots),
		T(dir_list_of_many_entries_keeps_them_all),
		T(dir_list_of_an_empty_folder_is_empty),
		T(dir_list_typed_keeps_each_names_type),
		T(stat_unchanged_sees_a_write_and_a_replacement),
		T(dir_list_of_a_missing_folder_fails_with_errno),
		cmocka_unit_test(strv_free_of_null_does_nothing),
		T(write_refuses_a_link_and_leaves_its_target),
		T(inside_follows_links_both_ways),
		T(remove_tree_removes_everything),
		T(remove_tree_removes_a_link_to_a_folder_not_its_files),
		T(remove_tree_of_a_link_removes_only_the_link),
		T(remove_tree_removes_a_dangling_link),
		T(remove_tree_of_a_missing_path_succeeds),
		T(remove_tree_of_a_file_removes_it),
		T(file_read_appends_the_whole_file),
		T(file_read_of_an_empty_file_gives_nothing),
		T(file_read_of_a_large_file_reads_it_all),
		T(file_read_over_the_limit_fails_with_efbig),
		cmocka_unit_test(file_read_refuses_a_device),
		T(file_read_of_a_fifo_fails_without_blocking),
		T(resolve_folds_dots_below_a_missing_folder),
		T(resolve_follows_a_link_to_its_target),
		cmocka_unit_test(resolve_of_the_root_and_its_parent_is_the_root),
		T(file_read_of_a_folder_fails_with_eisdir),
		T(file_read_of_a_missing_file_fails_with_enoent),
		T(file_write_replaces_the_file),
		T(file_write_spans_writes_the_parts_in_order),
		T(file_write_into_a_missing_folder_fails_with_enoent),
		T(file_copy_copies_bytes_including_nul),
		T(file_copy_copies_a_big_file_anywhere),
		T(kinds_of_path_are_told_apart),
		T(a_count_fed_in_pieces_is_the_files_own),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
