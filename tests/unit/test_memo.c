/* test_memo.c: a report's memo (data/memo.h) at the level of its
 * functions: what a render puts is there for the next, what a render
 * does not use is gone after it, a replaced entry is the new one, and
 * a reader never goes past an entry's end.  The e2e side (values and
 * charts from it, a spoiled memo refused) is tests/e2e/test_memoize.c. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "data/cache.h"
#include "data/memo.h"

/* A project folder and a key folder of the test's own. */
static char *tmp_root(void)
{
	char *root = xstrdup("/tmp/logdown-test-memo-XXXXXX");
	assert_non_null(mkdtemp(root));
	char *home = path_join(root, "home");
	assert_true(mkdir_p(home));
	assert_int_equal(setenv("XDG_CACHE_HOME", home, 1), 0);
	free(home);
	return root;
}

static void drop(char *root)
{
	assert_true(remove_tree(root));
	free(root);
	unsetenv("XDG_CACHE_HOME");
}

static struct cache_key key(const char *s)
{
	return cache_hash_bytes(s, strlen(s));
}

/* One build: the memo of report r opened, f run on it, closed. */
static void build(const char *root, void (*f)(struct memo *m))
{
	struct cache *c = cache_open(root, true);
	struct memo *m = memo_open(c, "content/r.md");
	assert_non_null(m);
	f(m);
	memo_close(m);
	cache_close(c);
}

static void has(struct memo *m, const char *k, const char *want)
{
	struct span s;
	struct cache_key kk = key(k);
	if (!want) {
		assert_false(memo_get(m, &kk, &s));
		return;
	}
	assert_true(memo_get(m, &kk, &s));
	assert_int_equal(s.len, strlen(want));
	assert_memory_equal(s.p, want, s.len);
}

static void put(struct memo *m, const char *k, const char *v)
{
	struct cache_key kk = key(k);
	memo_put(m, &kk, v, strlen(v));
}

static void put_a_b(struct memo *m)
{
	has(m, "a", NULL);
	put(m, "a", "alpha");
	put(m, "b", "beta");
	has(m, "a", "alpha"); /* in this build too */
}

static void use_a_b(struct memo *m)
{
	has(m, "a", "alpha");
	has(m, "b", "beta");
}

/* only a is used by this render: b is not written back */
static void get_a_only(struct memo *m)
{
	has(m, "a", "alpha");
}

static void b_is_gone(struct memo *m)
{
	has(m, "a", "alpha");
	has(m, "b", NULL);
}

static void entries_outlive_their_build_and_unused_ones_go(void **state)
{
	(void)state;
	char *root = tmp_root();
	build(root, put_a_b);
	build(root, use_a_b);
	build(root, get_a_only);
	build(root, b_is_gone);
	drop(root);
}

static void replace_a(struct memo *m)
{
	has(m, "a", "alpha");
	put(m, "a", "another");
	has(m, "a", "another");
	put(m, "a", "another"); /* the same again: one entry */
}

static void a_is_replaced(struct memo *m)
{
	has(m, "a", "another");
}

static void a_replaced_entry_is_the_new_one(void **state)
{
	(void)state;
	char *root = tmp_root();
	build(root, put_a_b);
	build(root, replace_a);
	build(root, a_is_replaced);
	drop(root);
}

static void without_a_cache_there_is_no_memo(void **state)
{
	(void)state;
	assert_null(memo_open(NULL, "content/r.md"));
	struct cache_key k = key("a");
	struct span s;
	assert_false(memo_get(NULL, &k, &s));
	memo_put(NULL, &k, "x", 1);
	memo_close(NULL);
}

static void a_reader_stops_at_the_end(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	wire_put_u64(&b, 7);
	memo_put_str(&b, "text");
	memo_put_str(&b, NULL);
	wire_put_f64(&b, 2.5);
	struct wire_rd r = {b.data, b.data + b.len, false};
	assert_int_equal(wire_u64(&r), 7);
	char *t = memo_rd_str(&r);
	assert_string_equal(t, "text");
	free(t);
	assert_null(memo_rd_str(&r));
	assert_true(wire_f64(&r) == 2.5);
	assert_false(r.bad);
	assert_int_equal(wire_u64(&r), 0);
	assert_true(r.bad);
	/* a length past the end */
	struct buf c = BUF_INIT;
	wire_put_u64(&c, 1000);
	struct wire_rd r2 = {c.data, c.data + c.len, false};
	struct span s = wire_span(&r2);
	assert_true(r2.bad);
	assert_int_equal(s.len, 0);
	buf_free(&b);
	buf_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(entries_outlive_their_build_and_unused_ones_go),
		cmocka_unit_test(a_replaced_entry_is_the_new_one),
		cmocka_unit_test(without_a_cache_there_is_no_memo),
		cmocka_unit_test(a_reader_stops_at_the_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
