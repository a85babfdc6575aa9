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

/* utf8_valid() as its comment says it is: utf8_decode() of every
 * sequence, no NUL (the plain loop it must agree with). */
static bool valid_slowly(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = s[i] ? utf8_decode((const unsigned char *)s + i, n - i, NULL, NULL) : 0;
		if (k == 0)
			return false;
		i += k;
	}
	return true;
}

/* Every pair of bytes, and every lead byte with each second byte and a
 * continuation after, at every place from 0 to 33 in ASCII around them
 * (the sixteen-byte steps, their ends and the tail): the same answer as
 * the plain loop.  Among them the overlong forms (C0 80, E0 80 80, F0
 * 80 80 80), surrogates (ED A0 80), past U+10FFFF (F4 90 80 80, F5),
 * lone continuations, cut sequences and NUL. */
static void valid_agrees_with_decoding_at_every_place(void **state)
{
	(void)state;
	char text[64];
	for (unsigned b0 = 0; b0 < 256; b0++)
		for (unsigned b1 = 0; b1 < 256; b1++)
			for (size_t at = 0; at <= 33; at += (b1 & 7) == 0 ? 1 : 11) {
				memset(text, 'a', sizeof text);
				text[at] = (char)b0;
				text[at + 1] = (char)b1;
				text[at + 2] = (char)0x80;
				text[at + 3] = (char)0x80;
				for (size_t len = at + 1; len <= at + 5; len++)
					assert_int_equal(utf8_valid(text, len), valid_slowly(text, len));
				assert_int_equal(utf8_valid(text, 40), valid_slowly(text, 40));
			}
}

static void valid_takes_utf8_and_refuses_the_rest(void **state)
{
	(void)state;
	const char ok[] = "plain, caf\xc3\xa9, \xe2\x82\xac 5, \xf0\x9f\x98\x80 and "
			  "\xf4\x8f\xbf\xbf: the last code point";
	assert_true(utf8_valid(ok, sizeof ok - 1));
	assert_true(utf8_valid("", 0));
#define VALID(lit) utf8_valid(lit, sizeof lit - 1)
	assert_false(VALID("sixteen bytes ok\xc0\x80 overlong"));
	assert_false(VALID("a surrogate \xed\xa0\x80"));
	assert_false(VALID("past the last \xf4\x90\x80\x80"));
	assert_false(VALID("cut at the end \xe2\x82"));
	assert_false(VALID("a NUL\0in the middle of the text"));
	assert_true(VALID("sixteen bytes ok\xc3\xa9 then ASCII to the end"));
#undef VALID
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(put_writes_one_to_four_bytes_by_code_point),
		cmocka_unit_test(decode_reads_back_what_put_wrote),
		cmocka_unit_test(decode_rejects_what_is_not_utf8_with_its_maximal_prefix),
		cmocka_unit_test(decode_takes_null_for_what_the_caller_does_not_want),
		cmocka_unit_test(valid_agrees_with_decoding_at_every_place),
		cmocka_unit_test(valid_takes_utf8_and_refuses_the_rest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
