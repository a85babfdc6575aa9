/* test_seal.c: the cache's seal and the user's key (data/seal.c).
 *
 * The seal is HMAC-SHA256(key, header || SHA-256(body)), checked against
 * values computed apart (Python's hmac and hashlib); any change to the
 * header, the body or the seal is refused; builds that start at once
 * make one key, not several; and open_confined() (base/fsutil.c), which
 * reads files as they were checked, refuses a link out. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "data/seal.h"

#define TMPDIR_TAG "seal"
#include "tmpdirs.h"

static void fixed_key(struct seal_key *k)
{
	unsigned char raw[SEAL_KEY_BYTES];
	memset(raw, 0x42, sizeof raw);
	seal_key_from(k, raw);
}

static void hex(const unsigned char *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
}

/* python3: hmac.new(bytes([0x42]*32), b'head' +
 * hashlib.sha256(b'body bytes').digest(), hashlib.sha256).hexdigest() */
static void seal_is_hmac_of_header_and_body_digest(void **state)
{
	(void)state;
	struct seal_key k;
	fixed_key(&k);
	unsigned char seal[SEAL_BYTES];
	seal_make(&k, "head", 4, "body bytes", 10, seal);
	char text[2 * SEAL_BYTES + 1];
	hex(seal, sizeof seal, text);
	assert_string_equal(text,
			    "8e44a09c42eb6bec183fa2dfd8c72861d441e7fb1b0c34c853d7f20dbc482ab2");
	/* the key's id: HMAC(key, "logdown cache key id"), cut to 8 bytes */
	char id[2 * SEAL_ID_BYTES + 1];
	hex(k.id, sizeof k.id, id);
	assert_string_equal(id, "9b3b9655b7e7ca77");
	assert_true(seal_check(&k, "head", 4, "body bytes", 10, seal));
}

static void any_change_breaks_the_seal(void **state)
{
	(void)state;
	struct seal_key k, other;
	fixed_key(&k);
	unsigned char raw[SEAL_KEY_BYTES];
	memset(raw, 0x43, sizeof raw);
	seal_key_from(&other, raw);
	unsigned char seal[SEAL_BYTES];
	seal_make(&k, "head", 4, "body bytes", 10, seal);
	assert_false(seal_check(&k, "hear", 4, "body bytes", 10, seal));
	assert_false(seal_check(&k, "head", 4, "body bytez", 10, seal));
	assert_false(seal_check(&k, "head", 4, "body byte", 9, seal));
	/* the boundary between header and body is sealed too */
	assert_false(seal_check(&k, "headb", 5, "ody bytes", 9, seal));
	assert_false(seal_check(&other, "head", 4, "body bytes", 10, seal));
	seal[SEAL_BYTES - 1] ^= 1;
	assert_false(seal_check(&k, "head", 4, "body bytes", 10, seal));
}

/* Eight processes load the key of an empty home at once: one key is
 * made, and all eight read it. */
static void builds_starting_at_once_make_one_key(void **state)
{
	(void)state;
	char *home = make_tmpdir();
	assert_int_equal(setenv("XDG_CACHE_HOME", home, 1), 0);
	int fds[8][2];
	for (int i = 0; i < 8; i++) {
		assert_int_equal(pipe(fds[i]), 0);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct seal_key k;
			char *where;
			const char *why;
			bool ok = seal_key_load(&k, &where, &why);
			ssize_t n = ok ? write(fds[i][1], k.key, sizeof k.key) : 0;
			_exit(n == (ssize_t)sizeof k.key ? 0 : 1);
		}
		close(fds[i][1]);
	}
	unsigned char first[SEAL_KEY_BYTES];
	for (int i = 0; i < 8; i++) {
		unsigned char got[SEAL_KEY_BYTES];
		assert_int_equal(read(fds[i][0], got, sizeof got), (ssize_t)sizeof got);
		close(fds[i][0]);
		if (i == 0)
			memcpy(first, got, sizeof got);
		assert_memory_equal(got, first, sizeof got);
	}
	int status;
	while (wait(&status) > 0)
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	char *key = path_join(home, "logdown/key");
	struct buf b = BUF_INIT;
	assert_true(file_read(key, &b, NULL));
	assert_memory_equal(b.data, first, SEAL_KEY_BYTES);
	/* no temporary file is left beside it */
	char *dir = path_join(home, "logdown");
	size_t n;
	char **names = dir_list(dir, &n);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "key");
	strv_free(names);
	free(dir);
	buf_free(&b);
	free(key);
	unsetenv("XDG_CACHE_HOME");
	drop_tmpdir(home);
}

/* A relative XDG_CACHE_HOME is ignored (the XDG spec): HOME's is used. */
static void a_relative_xdg_cache_home_is_ignored(void **state)
{
	(void)state;
	assert_int_equal(setenv("XDG_CACHE_HOME", "relative/cache", 1), 0);
	assert_int_equal(setenv("HOME", "/home/someone", 1), 0);
	char *p = seal_key_path();
	assert_string_equal(p, "/home/someone/.cache/logdown/key");
	free(p);
	assert_int_equal(setenv("XDG_CACHE_HOME", "/x/cache", 1), 0);
	p = seal_key_path();
	assert_string_equal(p, "/x/cache/logdown/key");
	free(p);
	unsetenv("XDG_CACHE_HOME");
}

/* open_confined(): a file inside opens (through a link inside too); a
 * link out, or a folder on the way that is a link out, is EXDEV. */
static void open_confined_refuses_a_link_out(void **state)
{
	(void)state;
	char *dir = make_tmpdir();
	char *outside = make_tmpdir();
	char *cmd = xasprintf("cd '%s' && mkdir -p p/sub && echo in > p/sub/f && echo out > '%s/o' && "
			      "ln -s sub/f p/inlink && ln -s '%s/o' p/outlink && "
			      "ln -s '%s' p/outdir",
			      dir, outside, outside, outside);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	char *root = path_join(dir, "p");
	char *real = path_real(root);
	static const struct {
		const char *rel;
		int err; /* 0: opens */
	} cases[] = {
		{"sub/f", 0}, {"inlink", 0}, {"outlink", EXDEV}, {"outdir/o", EXDEV},
		{"sub", EISDIR}, {"missing", ENOENT},
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *path = path_join(root, cases[i].rel);
		struct stat st;
		errno = 0;
		int fd = open_confined(path, real, &st);
		if (cases[i].err == 0) {
			assert_true(fd >= 0);
			char got[8] = {0};
			assert_int_equal(read(fd, got, sizeof got - 1), 3);
			assert_string_equal(got, "in\n");
			assert_true(S_ISREG(st.st_mode));
			close(fd);
		} else {
			assert_int_equal(fd, -1);
			assert_int_equal(errno, cases[i].err);
		}
		free(path);
	}
	free(real);
	free(root);
	drop_tmpdir(outside);
	drop_tmpdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(seal_is_hmac_of_header_and_body_digest),
		cmocka_unit_test(any_change_breaks_the_seal),
		cmocka_unit_test(builds_starting_at_once_make_one_key),
		cmocka_unit_test(a_relative_xdg_cache_home_is_ignored),
		cmocka_unit_test(open_confined_refuses_a_link_out),
	};
	return cmocka_run_group_tests(tests, NULL, drop_leftovers);
}
