/* test_cachefile.c: the build cache's files, at the level of the
 * functions: a link planted where a run's temporary file goes is never
 * written through, and a file rewritten between its hash and its parse
 * is seen as changed (cache_file_unchanged()).  The e2e side (links as
 * the cache, its runs folder, its entries) is in tests/e2e/test_cache.c. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "data/cache.h"
#include "data/run.h"
#include "rundump.h"

static char *tmp_root(void)
{
	char *root = xstrdup("/tmp/logdown-test-cachefile-XXXXXX");
	assert_non_null(mkdtemp(root));
	return root;
}

static void put(const char *path, const char *text)
{
	assert_true(file_write(path, text, strlen(text)));
}

static char *get(const char *path)
{
	struct buf b = BUF_INIT;
	assert_true(file_read(path, &b, NULL));
	return buf_detach(&b);
}

/* A link planted under the temporary file's name (it is predictable:
 * the run's name, the pid and the thread) makes the write fail: what it
 * points to is neither written nor truncated, and no run is stored. */
static void a_link_where_the_temporary_file_goes_is_not_written_through(void **state)
{
	(void)state;
	char *root = tmp_root();
	char *outside = xasprintf("%s-outside.txt", root);
	put(outside, "keep me\n");
	char *runs = xasprintf("%s/" CACHE_DIR "/runs", root);
	assert_true(mkdir_p(runs));
	char *tag = xasprintf("%s/" CACHE_DIR "/CACHEDIR.TAG", root);
	put(tag, "Signature: 8a477f597d28d172789f06886806bc55\n");
	struct cache_key key = cache_hash_bytes("k", 1);
	char text[CACHE_KEY_TEXT];
	cache_key_text(&key, text);
	char *final = xasprintf("%s/%s.run", runs, text + 9);
	char *tmp = xasprintf("%s.tmp-%ld-%lx", final, (long)getpid(),
			      (unsigned long)pthread_self());
	assert_int_equal(symlink(outside, tmp), 0);

	struct cache *c = cache_open(root, true);
	struct run *r = run_new("r", "logs/a.log", "cerebras");
	struct datum d = {DATUM_NUMBER, 1.5, NULL, 0, 3};
	run_set_field(r, "loss", &d);
	cache_run_put(c, &key, r);
	cache_close(c);
	run_free(r);

	char *after = get(outside);
	assert_string_equal(after, "keep me\n");
	struct stat st;
	assert_int_equal(lstat(tmp, &st), 0);
	assert_true(S_ISLNK(st.st_mode)); /* left as it was */
	assert_int_not_equal(lstat(final, &st), 0); /* nothing stored */

	/* without the plant, the same put stores the run, and it reads back */
	assert_int_equal(unlink(tmp), 0);
	c = cache_open(root, true);
	r = run_new("r", "logs/a.log", "cerebras");
	run_set_field(r, "loss", &d);
	cache_run_put(c, &key, r);
	run_free(r);
	struct run *back = cache_run_get(c, &key);
	assert_non_null(back);
	assert_true(run_field(back, "loss")->num == 1.5);
	run_free(back);
	cache_close(c);

	free(after);
	free(tmp);
	free(final);
	free(tag);
	free(runs);
	unlink(outside);
	free(outside);
	assert_true(remove_tree(root));
	free(root);
}

/* The stamp taken with the hash tells whether the file still holds what
 * was hashed: a file left alone does; one rewritten in place with the
 * same size and its mtime put back, or replaced by a rename, does not.
 * A file just written is "racy" (its times may not move within a tick),
 * and for it the bytes are hashed again. */
static void a_file_rewritten_after_its_hash_is_seen_as_changed(void **state)
{
	(void)state;
	char *root = tmp_root();
	char *log = path_join(root, "a.log");
	put(log, "loss 1.5\n");
	struct cache_key h, h2;
	struct cache_stamp s;
	assert_true(cache_file_hash_stamped(NULL, log, &h, &s));
	assert_true(s.racy); /* written just now */
	struct cache_key want = cache_hash_bytes("loss 1.5\n", 9);
	assert_memory_equal(h.b, want.b, sizeof h.b);
	assert_true(cache_file_unchanged(log, &s, &h));

	/* in place, same size, mtime restored: ctime or the bytes tell */
	struct stat before;
	assert_int_equal(stat(log, &before), 0);
	int fd = open(log, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "loss 9.5\n", 9, 0), 9);
	struct timespec times[2] = {before.st_atim, before.st_mtim};
	assert_int_equal(futimens(fd, times), 0);
	close(fd);
	assert_false(cache_file_unchanged(log, &s, &h));

	/* replaced by a rename: another inode */
	assert_true(cache_file_hash_stamped(NULL, log, &h2, &s));
	char *next = path_join(root, "a.log.new");
	put(next, "loss 9.5\n");
	assert_int_equal(rename(next, log), 0);
	assert_false(cache_file_unchanged(log, &s, &h2));

	/* through a cache: the same hash, and a racy file is not remembered
	 * (a later call hashes it again rather than trust its signature) */
	struct cache *c = cache_open(root, true);
	assert_true(cache_file_hash_stamped(c, log, &h, &s));
	assert_memory_equal(h.b, h2.b, sizeof h.b);
	assert_true(cache_file_unchanged(log, &s, &h));
	cache_close(c);

	free(next);
	free(log);
	assert_true(remove_tree(root));
	free(root);
}

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A run store this build wrote is noted as checked when the cache
 * closes: the next build maps it without taking the SHA-256 of its
 * body, while a store whose times moved since is digested again (and
 * still read right): the two loads' CPU times differ by that digest. */
static void a_store_written_is_trusted_by_the_next_build_without_its_digest(void **state)
{
	(void)state;
	char *root = tmp_root();
	struct run *r = run_new("cs", "a.log", "cerebras");
	const char *cols[] = {"step", "loss"};
	struct series *s = run_add_series(r, "train", cols, 2);
	enum { ROWS = 1000000 };
	for (long i = 0; i < ROWS; i++) {
		char step[24];
		int n = snprintf(step, sizeof step, "%ld", i);
		struct datum cells[2] = {{DATUM_NUMBER, (double)i, step, (size_t)n, i + 1},
					 {DATUM_NUMBER, 1.25, "1.25", 4, i + 1}};
		series_append(s, cells, i + 1);
	}
	struct cache_key key = cache_hash_bytes("a store", 7);
	struct cache *c = cache_open(root, true);
	cache_run_put(c, &key, r);
	cache_close(c);
	run_free(r);
	char hex[CACHE_KEY_TEXT];
	cache_key_text(&key, hex);
	char *found = NULL;
	size_t n;
	char *runs = path_join(root, ".logdown-cache/runs");
	char **names = dir_list(runs, &n);
	for (size_t i = 0; names && i < n; i++)
		if (str_has_suffix(names[i], ".run"))
			found = path_join(runs, names[i]);
	strv_free(names);
	assert_non_null(found);
	struct stat st;
	assert_int_equal(stat(found, &st), 0);
	long pages = (long)(st.st_size / 4096);
	assert_true(pages > 2000);

	double secs[2];
	for (int round = 0; round < 2; round++) {
		c = cache_open(root, true);
		double t0 = cpu_now();
		struct run *back = cache_run_get(c, &key);
		secs[round] = cpu_now() - t0;
		assert_non_null(back);
		assert_int_equal(series_row_count(run_series(back, "train")), ROWS);
		run_free(back);
		cache_close(c);
		/* its times moved: digested again (and noted again) */
		assert_int_equal(utimensat(AT_FDCWD, found, NULL, 0), 0);
	}
	print_message("           a store of %ld pages mapped in %.4f s of CPU, %.4f s once "
		      "touched\n",
		      pages, secs[0], secs[1]);
	if (secs[0] * 4 > secs[1])
		fail_msg("the store this build wrote was digested again");
	free(found);
	free(runs);
	assert_true(remove_tree(root));
	free(root);
}

/* A first build stores its run and goes on with the run as stored
 * (cache_run_put_mapped()): it reads as the run parsed, cell by cell
 * (numbers, texts, lines, a cell on its own line, kinds, rows over
 * several of the series' chunks), and the file under its name is the
 * one a later build checks and reads the same. */
static void a_run_stored_and_mapped_reads_as_the_one_put(void **state)
{
	(void)state;
	char *root = tmp_root();
	struct run *r = run_new("cs", "logs/a.log", "cerebras");
	struct datum f = {DATUM_NUMBER, 2.5, "2.50", 4, 7};
	run_set_field(r, "final", &f);
	run_set_line_count(r, 300001);
	const char *cols[] = {"step", "loss", "phase"};
	struct series *s = run_add_series(r, "train", cols, 3);
	enum { ROWS = 300000 };
	for (long i = 0; i < ROWS; i++) {
		char step[24], loss[24];
		int n = snprintf(step, sizeof step, "%ld", i);
		int m = snprintf(loss, sizeof loss, "%.5f", 1.0 / (1.0 + (double)i));
		struct datum cells[3] = {
			{DATUM_NUMBER, (double)i, step, (size_t)n, i + 1},
			{i % 11 ? DATUM_NUMBER : DATUM_MISSING, i % 11 ? 1.0 / (1.0 + (double)i) : 0,
			 i % 11 ? loss : NULL, i % 11 ? (size_t)m : 0, i + 1 + (i % 13 == 0)},
			{DATUM_STRING, 0, i % 2 ? "train" : "eval", i % 2 ? 5u : 4u, i + 1}};
		series_append(s, cells, i + 1);
	}
	struct buf want = BUF_INIT, got = BUF_INIT, again = BUF_INIT;
	run_dump(&want, r);
	struct cache_key key = cache_hash_bytes("mapped", 6);
	struct cache *c = cache_open(root, true);
	struct run *m = cache_run_put_mapped(c, &key, r);
	assert_non_null(m);
	run_free(r); /* the mapped run holds nothing of it */
	run_dump(&got, m);
	assert_string_equal(buf_data(&got), buf_data(&want));
	run_free(m);
	cache_close(c);
	c = cache_open(root, true);
	struct run *back = cache_run_get(c, &key);
	assert_non_null(back);
	run_dump(&again, back);
	assert_string_equal(buf_data(&again), buf_data(&want));
	run_free(back);
	cache_close(c);
	buf_free(&want);
	buf_free(&got);
	buf_free(&again);
	assert_true(remove_tree(root));
	free(root);
}

/* The reports list: a slug's key as added (the first, for a slug
 * listed twice), none for another slug or key; 20,000 slugs found each
 * in constant time (a linear search took seconds for them). */
static void the_reports_list_finds_each_slug_by_its_key(void **state)
{
	(void)state;
	struct cache_reports *r = cache_reports_new();
	struct cache_key none = {{0}};
	assert_false(cache_reports_has(r, "a", &none));
	enum { N = 20000 };
	for (int i = 0; i < N; i++) {
		char slug[32];
		snprintf(slug, sizeof slug, "reports/r%05d", i);
		struct cache_key k = cache_hash_bytes(slug, strlen(slug));
		cache_reports_add(r, slug, &k);
	}
	struct cache_key other = cache_hash_bytes("x", 1);
	cache_reports_add(r, "reports/r00007", &other);
	for (int i = 0; i < N; i++) {
		char slug[32];
		snprintf(slug, sizeof slug, "reports/r%05d", i);
		struct cache_key k = cache_hash_bytes(slug, strlen(slug));
		assert_true(cache_reports_has(r, slug, &k));
		assert_false(cache_reports_has(r, slug, &other));
	}
	assert_false(cache_reports_has(r, "reports/r00007", &other));
	assert_false(cache_reports_has(r, "reports/r20000", &none));
	assert_false(cache_reports_has(r, "", &none));
	cache_reports_free(r);
	cache_reports_free(NULL);
}

/* A plain hasher's state saved after some bytes and loaded in its
 * place goes on to the digest of all of them, split anywhere (inside
 * XXH3's 256-byte buffer, on a block's edge, past many blocks); bytes
 * that are not a state (cut, another library's version, a buffer fill
 * past its end) load as nothing. */
static void a_hashers_state_saved_and_loaded_goes_on_to_the_same_digest(void **state)
{
	(void)state;
	size_t n = 100000;
	unsigned char *data = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = (unsigned char)(i * 2654435761u >> 13);
	struct cache_key want = cache_hash_bytes(data, n);
	static const size_t at[] = {0, 1, 100, 255, 256, 1023, 1024, 1025, 65536, 99999, 100000};
	for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
		struct cache_hasher *h = cache_hasher_plain();
		cache_hasher_plain_bytes(h, data, at[i]);
		struct buf saved = BUF_INIT;
		cache_hasher_save(h, &saved);
		cache_hasher_end(h);
		struct cache_hasher *g = cache_hasher_load(saved.data, saved.len);
		assert_non_null(g);
		cache_hasher_plain_bytes(g, data + at[i], n - at[i]);
		struct cache_key got = cache_hasher_end(g);
		assert_memory_equal(got.b, want.b, sizeof want.b);
		if (i == 3) {
			assert_null(cache_hasher_load(saved.data, saved.len - 1));
			saved.data[0] ^= 1; /* the library's version */
			assert_null(cache_hasher_load(saved.data, saved.len));
			saved.data[0] ^= 1;
			/* bufferedSize, after acc[8], customSecret[192], buffer[256] */
			saved.data[4 + 64 + 192 + 256 + 1] = 0x7f;
			assert_null(cache_hasher_load(saved.data, saved.len));
		}
		buf_free(&saved);
	}
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_link_where_the_temporary_file_goes_is_not_written_through),
		cmocka_unit_test(a_file_rewritten_after_its_hash_is_seen_as_changed),
		cmocka_unit_test(the_reports_list_finds_each_slug_by_its_key),
		cmocka_unit_test(a_store_written_is_trusted_by_the_next_build_without_its_digest),
		cmocka_unit_test(a_run_stored_and_mapped_reads_as_the_one_put),
		cmocka_unit_test(a_hashers_state_saved_and_loaded_goes_on_to_the_same_digest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
