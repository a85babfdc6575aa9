/* test_searchtext.c: how the search cuts text into terms
 * (render/searchtext.h); static/search.js cuts a query by the same
 * rules, which tests/e2e/test_search.c checks in a browser. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "render/searchtext.h"

static void join(void *ctx, const char *term)
{
	struct buf *b = ctx;
	if (b->len)
		buf_putc(b, '|');
	buf_puts(b, term);
}

/* The terms of text, joined by '|'; caller frees. */
static char *terms(const char *text)
{
	struct buf b = BUF_INIT;
	search_tokens(text, strlen(text), join, &b);
	return buf_detach(&b);
}

#define ASSERT_TERMS(text, want)                     \
	do {                                         \
		char *got_ = terms(text);            \
		assert_string_equal(got_, want);     \
		free(got_);                          \
	} while (0)

static void words_are_letters_and_digits_lowercased(void **state)
{
	(void)state;
	ASSERT_TERMS("The Loss fell.", "the|loss|fell");
	ASSERT_TERMS("cs.final_loss", "cs|final|loss");
	ASSERT_TERMS("gpt-oss-120b (bs512)", "gpt|oss|120b|bs512");
	ASSERT_TERMS("<script>alert(1)</script>", "script|alert|1|script");
	ASSERT_TERMS("", "");
	ASSERT_TERMS(" -- ", "");
}

static void numbers_keep_their_point_and_lose_thousands_commas(void **state)
{
	(void)state;
	ASSERT_TERMS("0.412 and 1,234.5", "0.412|and|1234.5");
	ASSERT_TERMS("1,234,567 samples", "1234567|samples");
	ASSERT_TERMS("1,2,3", "1|2|3");       /* a list, not a number */
	ASSERT_TERMS("1,2345", "1|2345");
	ASSERT_TERMS("v1.2.3.", "v1.2.3");    /* a point between digits only */
	ASSERT_TERMS("end 3. Next", "end|3|next");
	ASSERT_TERMS("-0.5e-3", "0.5e|3");
	ASSERT_TERMS("2.8%", "2.8");
}

static void letters_beyond_ascii_are_words_symbols_are_not(void **state)
{
	(void)state;
	ASSERT_TERMS("Überblick café", "Überblick|café"); /* only A-Z lowercased */
	ASSERT_TERMS("CaféBar9 xÉY", "cafébar9|xÉy");    /* ASCII runs on either side */
	ASSERT_TERMS("4\xC3\x97" "4 \xE2\x80\x94 x\xE2\x86\x92y", "4|4|x|y"); /* × — → */
	ASSERT_TERMS("a\xC2\xA0" "b", "a|b");                               /* NBSP */
	ASSERT_TERMS("\xE6\x97\xA5\xE6\x9C\xAC\xE3\x80\x82x", "\xE6\x97\xA5\xE6\x9C\xAC|x"); /* 日本。x */
	ASSERT_TERMS("a\xFF" "b", "a|b"); /* not UTF-8: a separator */
	ASSERT_TERMS("a\xF0\x9F\x98\x80" "b", "a|b"); /* beyond U+DFFF: a separator */
}

static void a_long_word_is_cut_at_the_limit_never_inside_a_character(void **state)
{
	(void)state;
	char text[100];
	memset(text, 'a', 50);
	text[50] = '\0';
	char want[SEARCH_TERM_MAX + 1];
	memset(want, 'a', SEARCH_TERM_MAX);
	want[SEARCH_TERM_MAX] = '\0';
	ASSERT_TERMS(text, want);
	/* 39 bytes, then a two-byte letter that would not fit */
	memset(text, 'a', 39);
	strcpy(text + 39, "\xC3\xA9 b");
	char *got = terms(text);
	assert_int_equal(strcspn(got, "|"), 39);
	assert_string_equal(got + 39, "|b");
	free(got);
}

static void a_section_keeps_each_term_once_in_the_order_met(void **state)
{
	(void)state;
	struct search_doc d = {0};
	struct search_section *s = search_section_add(&d, "Results", "results");
	search_add_text(s, "b a B c a 10 9", strlen("b a B c a 10 9"));
	search_section_finish(s);
	assert_int_equal(s->nterms, 5);
	/* the index's writer orders them (site/searchindex.c) */
	const char *want[] = {"b", "a", "c", "10", "9"};
	for (size_t i = 0; i < ARRAY_LEN(want); i++)
		assert_string_equal(s->terms[i], want[i]);
	assert_string_equal(d.s[0].heading, "Results");
	assert_string_equal(d.s[0].id, "results");
	/* added to after it was finished (a report's title terms): still
	 * once each, and a word repeated a million times is one term */
	search_add_text(s, "c d a", strlen("c d a"));
	for (int i = 0; i < 1000000; i++)
		search_add_term(s, "loss");
	search_section_finish(s);
	const char *then[] = {"b", "a", "c", "10", "9", "d", "loss"};
	assert_int_equal(s->nterms, ARRAY_LEN(then));
	for (size_t i = 0; i < ARRAY_LEN(then); i++)
		assert_string_equal(s->terms[i], then[i]);
	search_doc_free(&d);
	assert_int_equal(d.n, 0);
}

/* A finished section given more terms (the report's title and names on
 * section 0) keeps each once, in the order met: a section of hundreds of terms,
 * so that its set of them is made again larger than its first size. */
static void a_finished_section_takes_more_terms(void **state)
{
	(void)state;
	struct search_doc d = {0};
	struct search_section *s = search_section_add(&d, NULL, NULL);
	struct buf text = BUF_INIT;
	for (int i = 0; i < 300; i++)
		buf_printf(&text, "w%03d ", i);
	search_add_text(s, text.data, text.len);
	search_section_finish(s);
	search_add_text(s, text.data, text.len); /* every one again */
	search_add_text(s, "w999 zz w000", strlen("w999 zz w000"));
	search_section_finish(s);
	assert_int_equal(s->nterms, 302);
	assert_string_equal(s->terms[0], "w000");
	assert_string_equal(s->terms[299], "w299");
	assert_string_equal(s->terms[300], "w999");
	assert_string_equal(s->terms[301], "zz");
	buf_free(&text);
	search_doc_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(words_are_letters_and_digits_lowercased),
		cmocka_unit_test(numbers_keep_their_point_and_lose_thousands_commas),
		cmocka_unit_test(letters_beyond_ascii_are_words_symbols_are_not),
		cmocka_unit_test(a_long_word_is_cut_at_the_limit_never_inside_a_character),
		cmocka_unit_test(a_section_keeps_each_term_once_in_the_order_met),
		cmocka_unit_test(a_finished_section_takes_more_terms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
