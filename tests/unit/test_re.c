/* test_re.c: PCRE2 compiling and matching with limits, and the words a
 * diagnostic says when a match hits one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "data/limit.h"
#include "data/re.h"

static void a_pattern_matches_bytes_not_utf8(void **state)
{
	(void)state;
	char msg[256];
	size_t off;
	pcre2_code *code = re_compile("a.c", 3, NULL, msg, sizeof msg, &off);
	assert_non_null(code);
	struct re_matcher m;
	re_matcher_init(&m, 0, re_line_limit());
	/* Invalid UTF-8 is no error: one byte is one character. */
	assert_int_equal(re_match(code, false, "a\xff" "c", 3, 0, m.md, m.mctx), 1);
	assert_int_equal(re_match(code, false, "abd", 3, 0, m.md, m.mctx), 0);
	re_matcher_free(&m);
	pcre2_code_free(code);
}

static void jit_and_interpreter_find_the_same_match(void **state)
{
	(void)state;
	char msg[256];
	size_t off;
	bool jit = false;
	pcre2_code *code = re_compile("Loss=(\\d+)", 10, &jit, msg, sizeof msg, &off);
	assert_non_null(code);
	struct re_matcher m;
	re_matcher_init(&m, 1, re_line_limit());
	const char *line = "Step=5, Loss=42";
	for (int i = 0; i < 2; i++) {
		assert_int_equal(re_match(code, i ? jit : false, line, strlen(line), 0, m.md, m.mctx), 1);
		assert_int_equal(m.ov[2], 13);
		assert_int_equal(m.ov[3], 15);
	}
	re_matcher_free(&m);
	pcre2_code_free(code);
}

static void a_bad_pattern_gives_the_message_and_offset(void **state)
{
	(void)state;
	char msg[256];
	size_t off = 0;
	bool jit = true;
	assert_null(re_compile("ab(c", 4, &jit, msg, sizeof msg, &off));
	assert_string_equal(msg, "missing closing parenthesis");
	assert_int_equal(off, 4);
}

static void catastrophic_backtracking_hits_the_match_limit(void **state)
{
	(void)state;
	limit_set(LIMIT_PCRE_MATCH, 10000);
	char msg[256];
	size_t off;
	bool jit;
	pcre2_code *code = re_compile("(a+)+$", 6, &jit, msg, sizeof msg, &off);
	assert_non_null(code);
	struct re_matcher m;
	re_matcher_init(&m, 1, re_line_limit());
	const char *subj = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab";
	int rc = re_match(code, jit, subj, strlen(subj), 0, m.md, m.mctx);
	assert_int_equal(rc, PCRE2_ERROR_MATCHLIMIT);
	assert_string_equal(re_error(rc), "the match limit");
	re_matcher_free(&m);
	pcre2_code_free(code);
	limit_reset(NULL);
}

static void each_limit_has_its_words(void **state)
{
	(void)state;
	assert_string_equal(re_error(PCRE2_ERROR_MATCHLIMIT), "the match limit");
	assert_string_equal(re_error(PCRE2_ERROR_DEPTHLIMIT), "the depth limit");
	assert_string_equal(re_error(PCRE2_ERROR_HEAPLIMIT), "the heap limit");
	assert_string_equal(re_error(PCRE2_ERROR_JIT_STACKLIMIT), "the JIT stack limit");
	assert_string_equal(re_error(PCRE2_ERROR_NOMEMORY), "an error");
}

static void the_hint_names_the_limit_to_raise(void **state)
{
	(void)state;
	char buf[RE_HINT_SIZE];
	assert_string_equal(re_hint(PCRE2_ERROR_MATCHLIMIT, buf, sizeof buf),
			    " (limit pcre_match: raise it with limits: in site.yaml or "
			    "LOGDOWN_LIMIT_PCRE_MATCH)");
	assert_string_equal(re_hint(PCRE2_ERROR_DEPTHLIMIT, buf, sizeof buf),
			    " (limit pcre_depth: raise it with limits: in site.yaml or "
			    "LOGDOWN_LIMIT_PCRE_DEPTH)");
}

static void a_limit_one_cannot_raise_has_no_hint(void **state)
{
	(void)state;
	char buf[RE_HINT_SIZE] = "untouched";
	assert_string_equal(re_hint(PCRE2_ERROR_HEAPLIMIT, buf, sizeof buf), "");
	assert_string_equal(re_hint(PCRE2_ERROR_JIT_STACKLIMIT, buf, sizeof buf), "");
	assert_string_equal(buf, "untouched");
}

/* Worker threads report failed matches at once: each hint is its
 * caller's, never another thread's text. */
static void *hint_often(void *arg)
{
	int rc = *(int *)arg;
	char buf[RE_HINT_SIZE], want[RE_HINT_SIZE];
	snprintf(want, sizeof want, " (%s)",
		 limit_hint(rc == PCRE2_ERROR_MATCHLIMIT ? LIMIT_PCRE_MATCH : LIMIT_PCRE_DEPTH));
	for (int i = 0; i < 20000; i++)
		if (strcmp(re_hint(rc, buf, sizeof buf), want) != 0)
			return arg;
	return NULL;
}

static void hints_of_two_threads_never_mix(void **state)
{
	(void)state;
	int rcs[2] = {PCRE2_ERROR_MATCHLIMIT, PCRE2_ERROR_DEPTHLIMIT};
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hint_often, &rcs[i]), 0);
	for (int i = 0; i < 2; i++) {
		void *bad;
		pthread_join(t[i], &bad);
		assert_null(bad);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_pattern_matches_bytes_not_utf8),
		cmocka_unit_test(jit_and_interpreter_find_the_same_match),
		cmocka_unit_test(a_bad_pattern_gives_the_message_and_offset),
		cmocka_unit_test(catastrophic_backtracking_hits_the_match_limit),
		cmocka_unit_test(each_limit_has_its_words),
		cmocka_unit_test(the_hint_names_the_limit_to_raise),
		cmocka_unit_test(a_limit_one_cannot_raise_has_no_hint),
		cmocka_unit_test(hints_of_two_threads_never_mix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
