/* test_crline.c: a line as a terminal shows it when carriage returns
 * redrew it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "base/crline.h"

/* The view of text as a string, into out. */
static const char *view(const char *text, bool caret, char *out)
{
	const char *s = text, *e = text + strlen(text);
	crline_view(&s, &e, caret);
	memcpy(out, s, (size_t)(e - s));
	out[e - s] = '\0';
	return out;
}

static void a_line_without_cr_is_itself(void **state)
{
	(void)state;
	char out[64];
	assert_string_equal(view("Step=5, Loss=2.1", false, out), "Step=5, Loss=2.1");
	assert_string_equal(view("", false, out), "");
}

static void crlf_and_trailing_crs_are_dropped(void **state)
{
	(void)state;
	char out[64];
	assert_string_equal(view("done\r", false, out), "done");
	assert_string_equal(view("done\r\r\r", false, out), "done");
	const char *t = "a\rb\r";
	assert_ptr_equal(crline_end(t, t + 4, false), t + 3);
}

static void a_redrawn_line_is_its_last_segment(void **state)
{
	(void)state;
	char out[64];
	assert_string_equal(view(" 10%|#  \r 20%|## \r100%|###", false, out), "100%|###");
}

static void blank_segments_after_the_last_redraw_do_not_count(void **state)
{
	(void)state;
	char out[64];
	assert_string_equal(view("100%|###\r   \r\t\r", false, out), "100%|###");
}

static void a_line_of_blank_segments_is_its_first(void **state)
{
	(void)state;
	char out[64];
	assert_string_equal(view("  \r \r", false, out), "  ");
}

static void caret_m_counts_as_a_cr_only_when_asked(void **state)
{
	(void)state;
	char out[64];
	assert_string_equal(view("10%^M100%^M", true, out), "100%");
	assert_string_equal(view("10%^M100%^M", false, out), "10%^M100%^M");
}

static void the_end_alone_keeps_inner_crs(void **state)
{
	(void)state;
	/* The log pages show a CR inside a line; only its end goes. */
	const char *t = "10%\r100%\r\n";
	const char *e = crline_end(t, t + strlen(t) - 1, false);
	assert_int_equal(e - t, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_line_without_cr_is_itself),
		cmocka_unit_test(crlf_and_trailing_crs_are_dropped),
		cmocka_unit_test(a_redrawn_line_is_its_last_segment),
		cmocka_unit_test(blank_segments_after_the_last_redraw_do_not_count),
		cmocka_unit_test(a_line_of_blank_segments_is_its_first),
		cmocka_unit_test(caret_m_counts_as_a_cr_only_when_asked),
		cmocka_unit_test(the_end_alone_keeps_inner_crs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
