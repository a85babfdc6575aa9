/* test_section.c: GitHub's heading slugs (section_slug()), as
 * github-slugger's own test cases give them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "resolve/doc.h"
#include "resolve/section.h"

static void check(const char *text, const char *want)
{
	struct buf b = BUF_INIT;
	section_slug(&b, text, strlen(text));
	assert_string_equal(buf_data(&b), want);
	buf_free(&b);
}

static void punctuation_goes_and_spaces_become_dashes(void **state)
{
	(void)state;
	check("Hello World", "hello-world");
	check("Details & more (v2)", "details--more-v2");
	check("foo_bar-baz", "foo_bar-baz");
	check("  two  spaces ", "--two--spaces-");
	check("a.b/c:d?e!", "abcde");
	check("C++ vs. C#", "c-vs-c");
	check("$100 ≥ 5%", "100--5");
}

/* Every ASCII character is slugged alike whether the heading is all
 * ASCII (read without GLib) or holds a letter that is not (read through
 * GLib's lowering and categories): "A<c>b" and "A<c>bé" differ by the
 * "é" alone. */
static void ascii_slugs_as_through_glib(void **state)
{
	(void)state;
	for (int c = 1; c < 0x80; c++) {
		if (c == DOC_MARK)
			continue; /* a placeholder's start (values_count_as_nothing) */
		char text[8] = {'A', (char)c, 'b', '\0'};
		struct buf ascii = BUF_INIT, other = BUF_INIT;
		section_slug(&ascii, text, strlen(text));
		strcat(text, "\xC3\xA9");
		section_slug(&other, text, strlen(text));
		buf_puts(&ascii, "\xC3\xA9");
		assert_string_equal(buf_data(&other), buf_data(&ascii));
		buf_free(&ascii);
		buf_free(&other);
	}
	check("A-Z_09", "a-z_09");
}

static void letters_of_any_script_stay_lower_cased(void **state)
{
	(void)state;
	check("Café Über", "café-über");
	check("Привет мир", "привет-мир");
	check("日本語", "日本語");
	check("ΣΊΣΥΦΟΣ", "σίσυφος"); /* a final sigma, as JavaScript lowers it */
	check("emoji 🚀 here", "emoji--here");
	check("circled Ⓐ", "circled-ⓐ");
}

static void values_count_as_nothing(void **state)
{
	(void)state;
	char mark[16];
	snprintf(mark, sizeof mark, "%cLD3%c", DOC_MARK, DOC_MARK);
	char *t = xasprintf("Loss at %s steps", mark);
	check(t, "loss-at-steps");
	free(t);
	t = xasprintf("Loss %s", mark);
	check(t, "loss");
	free(t);
	t = xasprintf("%s runs", mark);
	check(t, "runs");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(punctuation_goes_and_spaces_become_dashes),
		cmocka_unit_test(ascii_slugs_as_through_glib),
		cmocka_unit_test(letters_of_any_script_stay_lower_cased),
		cmocka_unit_test(values_count_as_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
