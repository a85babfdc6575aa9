/* test_json.c: JSON strings, valid JSON whatever the bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

/* json_put_string(s[0..n)) as text; caller frees. */
static char *json_of(const char *s, size_t n)
{
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);
	assert_non_null(f);
	json_put_string(f, s, n);
	fclose(f);
	return p;
}

static void string_escapes_quotes_backslashes_and_controls(void **state)
{
	(void)state;
	static const char s[] = "say \"hi\" \\ \n\r\t\x01\x1f\x7f end";
	char *j = json_of(s, sizeof s - 1);
	assert_string_equal(j, "\"say \\\"hi\\\" \\\\ \\n\\r\\t\\u0001\\u001f\\u007f end\"");
	free(j);
}

static void string_keeps_valid_utf8_as_it_is(void **state)
{
	(void)state;
	static const char s[] = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80";
	char *j = json_of(s, sizeof s - 1);
	assert_string_equal(j, "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"");
	free(j);
}

static void string_writes_each_byte_that_is_not_utf8_as_one_replacement(void **state)
{
	(void)state;
	/* Two stray bytes, a character cut short (two bytes) and one cut
	 * by the end of the text (one byte). */
	static const char s[] = "loss=\xFF\xFE 1 \xE2\x82x \xC3";
	char *j = json_of(s, sizeof s - 1);
	assert_string_equal(j, "\"loss=\\ufffd\\ufffd 1 \\ufffd\\ufffdx \\ufffd\"");
	free(j);
}

static void string_stops_at_n_not_at_a_nul(void **state)
{
	(void)state;
	char *j = json_of("a\0b", 3);
	assert_string_equal(j, "\"a\\u0000b\"");
	free(j);
	j = json_of("abc", 2);
	assert_string_equal(j, "\"ab\"");
	free(j);
}

static void cstr_writes_up_to_the_nul(void **state)
{
	(void)state;
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);
	assert_non_null(f);
	json_put_cstr(f, "x\"y");
	fclose(f);
	assert_string_equal(p, "\"x\\\"y\"");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(string_escapes_quotes_backslashes_and_controls),
		cmocka_unit_test(string_keeps_valid_utf8_as_it_is),
		cmocka_unit_test(string_writes_each_byte_that_is_not_utf8_as_one_replacement),
		cmocka_unit_test(string_stops_at_n_not_at_a_nul),
		cmocka_unit_test(cstr_writes_up_to_the_nul),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
