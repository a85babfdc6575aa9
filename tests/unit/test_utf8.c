/* test_utf8.c: encoding a code point and decoding one from bytes that
 * may not be UTF-8. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "base/utf8.h"
#include "base/util.h"

static void put_writes_one_to_four_bytes_by_code_point(void **state)
{
	(void)state;
	struct buf b = BUF_INIT;
	utf8_put(&b, 'A');
	utf8_put(&b, 0xE9);     /* é */
	utf8_put(&b, 0x20AC);   /* € */
	utf8_put(&b, 0x1F600);  /* an emoji, beyond the BMP */
	utf8_put(&b, 0x10FFFF); /* the last code point */
	assert_string_equal(buf_data(&b), "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF");
	buf_free(&b);
}

static void decode_reads_back_what_put_wrote(void **state)
{
	(void)state;
	static const unsigned long cps[] = {0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000,
					    0xFFFD, 0xFFFF, 0x10000, 0x10FFFF};
	for (size_t i = 0; i < ARRAY_LEN(cps); i++) {
		struct buf b = BUF_INIT;
		utf8_put(&b, cps[i]);
		unsigned long cp = 0;
		size_t sub = 99;
		assert_int_equal(utf8_decode((const unsigned char *)b.data, b.len, &sub, &cp), b.len);
		assert_int_equal(cp, cps[i]);
		assert_int_equal(sub, 99); /* untouched on success */
		buf_free(&b);
	}
}

/* Each case: the bytes, and the maximal valid prefix that becomes one
 * U+FFFD when decoding as browsers do. */
static void decode_rejects_what_is_not_utf8_with_its_maximal_prefix(void **state)
{
	(void)state;
	static const struct {
		const char *bytes;
		size_t sub;
	} bad[] = {
		{"\x80", 1},             /* a continuation byte alone */
		{"\xFF", 1},             /* never in UTF-8 */
		{"\xC0\xAF", 1},         /* overlong '/' */
		{"\xE0\x80\xAF", 1},     /* overlong, three bytes */
		{"\xED\xA0\x80", 1},     /* a surrogate */
		{"\xF4\x90\x80\x80", 1}, /* past U+10FFFF */
		{"\xF5\x80\x80\x80", 1},
		{"\xE2\x82", 2},         /* cut short by the end */
		{"\xE2\x82x", 2},        /* cut short by an ASCII byte */
		{"\xF0\x9F\x98", 3},
	};
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		size_t sub = 0;
		unsigned long cp = 12345;
		const unsigned char *p = (const unsigned char *)bad[i].bytes;
		assert_int_equal(utf8_decode(p, strlen(bad[i].bytes), &sub, &cp), 0);
		assert_int_equal(sub, bad[i].sub);
		assert_int_equal(cp, 12345); /* untouched on failure */
	}
}

static void decode_takes_null_for_what_the_caller_does_not_want(void **state)
{
	(void)state;
	assert_int_equal(utf8_decode((const unsigned char *)"\xE2\x82\xAC", 3, NULL, NULL), 3);
	assert_int_equal(utf8_decode((const unsigned char *)"\xE2\x82", 2, NULL, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(put_writes_one_to_four_bytes_by_code_point),
		cmocka_unit_test(decode_reads_back_what_put_wrote),
		cmocka_unit_test(decode_rejects_what_is_not_utf8_with_its_maximal_prefix),
		cmocka_unit_test(decode_takes_null_for_what_the_caller_does_not_want),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
