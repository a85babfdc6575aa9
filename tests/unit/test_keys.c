/* test_keys.c: a YAML map's keys checked against the ones it may have. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "data/keys.h"
#include "data/yamldoc.h"
#include "base/util.h"
#include "capture.h"

static const char *const known[] = {"caption", "columns", "sort", NULL};

/* yaml as a map read from "a.yaml", whose text d quotes (yaml must
 * outlive d); caller frees with value_free(). */
static struct value *map_of(const char *yaml, struct diag *d)
{
	diag_add_source(d, "a.yaml", yaml, strlen(yaml));
	struct value *m = yamldoc_parse(yaml, strlen(yaml), "a.yaml", 0, d);
	assert_non_null(m);
	assert_int_equal(m->kind, VALUE_MAP);
	return m;
}

static void known_keys_say_nothing(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *m = map_of("sort: x\ncaption: y\n", c.d);
	assert_true(keys_check(m, known, "in {table}", NULL, c.d));
	assert_string_equal(cap_text(&c), "");
	value_free(m);
	cap_close(&c);
}

static void a_typo_is_an_error_with_the_key_meant(void **state)
{
	(void)state;
	struct capture c;
	cap_open(&c);
	struct value *m = map_of("sort: x\ncolums: y\n", c.d);
	assert_true(keys_check_one(m, 0, known, "in {table}", NULL, c.d));
	assert_false(keys_check_one(m, 1, known, "in {table}", NULL, c.d));
	assert_string_equal(cap_text(&c),
			    "a.yaml:2:1: error: unknown key 'colums' in {table} (did you mean 'columns'?)\n"
			    "    2 | colums: y\n"
			    "      | ^~~~~~\n");
	assert_int_equal(diag_errors(c.d), 1);
	value_free(m);
	cap_close(&c);
}

static void a_key_like_none_lists_the_known_ones(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_GITHUB, false);
	struct value *m = map_of("zzzzzzzz: 1\n", c.d);
	assert_false(keys_check(m, known, NULL, NULL, c.d));
	assert_string_equal(cap_text(&c), "::error file=a.yaml,line=1,col=1::unknown key 'zzzzzzzz' "
					  "(known keys: caption, columns, sort)\n");
	value_free(m);
	cap_close(&c);
}

static void words_choose_the_severity_the_noun_and_the_list_name(void **state)
{
	(void)state;
	static const struct keys_words limit_words = {true, "limit", "known"};
	struct capture c;
	cap_open_as(&c, DIAG_GITHUB, false);
	struct value *m = map_of("sotr: 1\nqqqqqqqq: 2\n", c.d);
	assert_false(keys_check(m, known, NULL, &limit_words, c.d));
	assert_string_equal(cap_text(&c),
			    "::warning file=a.yaml,line=1,col=1::unknown limit 'sotr' (did you mean 'sort'?)\n"
			    "::warning file=a.yaml,line=2,col=1::unknown limit 'qqqqqqqq' (known: caption, "
			    "columns, sort)\n");
	assert_int_equal(diag_errors(c.d), 0);
	assert_int_equal(diag_warnings(c.d), 2);
	value_free(m);
	cap_close(&c);
}

static void every_unknown_key_is_reported_in_document_order(void **state)
{
	(void)state;
	struct capture c;
	cap_open_as(&c, DIAG_GITHUB, false);
	struct value *m = map_of("b2: 1\nsort: 2\na1: 3\n", c.d);
	assert_false(keys_check(m, known, "in run 'cs'", NULL, c.d));
	const char *t = cap_text(&c);
	const char *b2 = strstr(t, "'b2' in run 'cs'"), *a1 = strstr(t, "'a1' in run 'cs'");
	assert_non_null(b2);
	assert_non_null(a1);
	assert_true(b2 < a1);
	assert_int_equal(diag_errors(c.d), 2);
	value_free(m);
	cap_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_keys_say_nothing),
		cmocka_unit_test(a_typo_is_an_error_with_the_key_meant),
		cmocka_unit_test(a_key_like_none_lists_the_known_ones),
		cmocka_unit_test(words_choose_the_severity_the_noun_and_the_list_name),
		cmocka_unit_test(every_unknown_key_is_reported_in_document_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
