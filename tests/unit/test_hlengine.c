/* test_hlengine.c: the highlighter's engine and colours.
 *
 * The colours: each class's colour in static/logdown.css, light and
 * dark, reaches WCAG AA (4.5:1) against the code background of its
 * scheme, and the PDF draws the light ones (render/pdf_box.c's table
 * equals the stylesheet's).  The engine: a .lang file that is no
 * language is refused, a pathological pattern stops at the match limit
 * with the rest plain, the names and aliases. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "../../src/render/pdf_int.h"
#include "base/fsutil.h"
#include "base/util.h"
#include "data/limit.h"
#include "resolve/highlight.h"

static double channel(unsigned c)
{
	double v = c / 255.0;
	return v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static double luminance(unsigned rgb)
{
	return 0.2126 * channel(rgb >> 16 & 255) + 0.7152 * channel(rgb >> 8 & 255) +
	       0.0722 * channel(rgb & 255);
}

static double contrast(unsigned a, unsigned b)
{
	double la = luminance(a), lb = luminance(b);
	return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

/* The nth (0: light, 1: dark) "#rrggbb" the stylesheet gives var. */
static unsigned css_colour(const char *css, const char *var, int nth)
{
	char *key = xasprintf("%s: #", var);
	const char *p = css;
	for (int i = 0; i <= nth; i++) {
		p = strstr(p, key);
		if (!p)
			fail_msg("static/logdown.css has no %s (scheme %d)", var, nth);
		p += strlen(key);
	}
	free(key);
	return (unsigned)strtoul(p, NULL, 16);
}

static char *read_css(void)
{
	struct buf b = BUF_INIT;
	assert_true(file_read("static/logdown.css", &b, NULL));
	return buf_detach(&b);
}

static void every_class_reaches_aa_on_the_code_background(void **state)
{
	(void)state;
	char *css = read_css();
	unsigned bg[2] = {css_colour(css, "--ld-surface", 0), css_colour(css, "--ld-surface", 1)};
	for (int c = 1; c < HL_NCLASSES; c++) {
		if (c == HL_OPERATOR)
			continue; /* the text's own colour */
		char *var = xasprintf("--ld-hl-%s", hl_class_name(c));
		for (int s = 0; s < 2; s++) {
			unsigned fg = css_colour(css, var, s);
			double r = contrast(fg, bg[s]);
			if (r < 4.5)
				fail_msg("%s #%06x on #%06x (%s): %.2f:1, under 4.5:1", var, fg, bg[s],
					 s ? "dark" : "light", r);
		}
		/* the PDF: the light colour, on its own code background */
		unsigned light = css_colour(css, var, 0);
		if (hl_colours[c] != light)
			fail_msg("the PDF draws %s as #%06x, the page as #%06x", var, hl_colours[c],
				 light);
		if (contrast(hl_colours[c], C_CODE_BG) < 4.5)
			fail_msg("the PDF's %s: %.2f:1 on its code background", var,
				 contrast(hl_colours[c], C_CODE_BG));
		free(var);
	}
	free(css);
}

static void names_and_aliases(void **state)
{
	(void)state;
	bool plain;
	assert_non_null(hl_find("bash", &plain));
	assert_false(plain);
	assert_ptr_equal(hl_find("bash", &plain), hl_find("sbatch", &plain));
	assert_ptr_equal(hl_find("Python", &plain), hl_find("py", &plain));
	assert_ptr_equal(hl_find("console", &plain), hl_find("shell-session", &plain));
	assert_ptr_equal(hl_find("f90", &plain), hl_find("fortran", &plain));
	assert_ptr_equal(hl_find("make", &plain), hl_find("makefile", &plain));
	assert_ptr_equal(hl_find("cu", &plain), hl_find("cuda", &plain));
	assert_null(hl_find("text", &plain));
	assert_true(plain);
	assert_null(hl_find("pyhton", &plain));
	assert_false(plain);
	assert_string_equal(closest_name("pyhton", hl_names()), "python");
	assert_string_equal(hl_class_name(HL_KEYWORD), "keyword");
}

static void what_is_no_language_file_is_refused(void **state)
{
	(void)state;
	const char *bad[] = {"", "<language", "not xml at all",
			     "<language id=\"other\"><definitions/></language>",
			     "<language><definitions/></language>"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_null(hl_load_text("t-bad", bad[i], strlen(bad[i])));
}

static const char slow_lang[] =
	"<language id=\"t-slow\"><styles><style id=\"k\" map-to=\"def:keyword\"/></styles>"
	"<definitions>"
	"<context id=\"w\" style-ref=\"k\"><match>ok</match></context>"
	"<context id=\"bad\" style-ref=\"k\"><match>(a+)+$</match></context>"
	"<context id=\"t-slow\"><include><context ref=\"w\"/><context ref=\"bad\"/></include>"
	"</context></definitions></language>";

static void a_pathological_pattern_stops_at_the_match_limit(void **state)
{
	(void)state;
	const struct hl_lang *l = hl_load_text("t-slow", slow_lang, strlen(slow_lang));
	assert_non_null(l);
	const char text[] = "ok\nok aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\nok\n";
	const char *stop;
	int line;
	unsigned char *cls = hl_classes(l, text, strlen(text), &stop, &line);
	assert_non_null(stop);
	assert_string_equal(stop, "the match limit");
	assert_int_equal(line, 2);
	assert_int_equal(cls[0], HL_KEYWORD); /* line 1 coloured */
	for (size_t i = 3; i < strlen(text); i++)
		assert_int_equal(cls[i], HL_NONE); /* the rest plain */
	free(cls);
}

static const char nest_lang[] =
	"<language id=\"t-nest\"><styles><style id=\"s\" map-to=\"def:string\"/></styles>"
	"<definitions>"
	"<context id=\"p\" style-ref=\"s\"><start>\\(</start><end>\\)</end>"
	"<include><context ref=\"p\"/></include></context>"
	"<context id=\"e\"><match>x*</match></context>"
	"<context id=\"t-nest\"><include><context ref=\"p\"/><context ref=\"e\"/>"
	"</include></context></definitions></language>";

static void deep_nesting_and_empty_matches_end(void **state)
{
	(void)state;
	const struct hl_lang *l = hl_load_text("t-nest", nest_lang, strlen(nest_lang));
	assert_non_null(l);
	struct buf t = BUF_INIT;
	for (int i = 0; i < 10000; i++)
		buf_putc(&t, '(');
	buf_puts(&t, "\nyy\n");
	const char *stop;
	int line;
	unsigned char *cls = hl_classes(l, buf_data(&t), t.len, &stop, &line);
	assert_null(stop);
	assert_int_equal(cls[0], HL_STRING);
	assert_int_equal(cls[t.len - 2], HL_STRING); /* still inside */
	free(cls);
	buf_free(&t);
}

/* A line that comes again is coloured from what was kept of it the
 * first time only when it stands where it stood then, in the main
 * context: the same line inside a string that spans lines is string. */
static void a_kept_line_is_coloured_by_where_it_stands(void **state)
{
	(void)state;
	bool plain;
	const struct hl_lang *l = hl_find("python", &plain);
	assert_non_null(l);
	const char text[] = "x = 1\n\"\"\"\nx = 1\n\"\"\"\nx = 1\n";
	unsigned char *cls = hl_classes(l, text, strlen(text), NULL, NULL);
	/* lines 1 and 5 alike, the number a number */
	assert_memory_equal(cls, cls + 20, 5);
	assert_int_equal(cls[4], HL_NUMBER);
	for (size_t i = 10; i < 15; i++)
		assert_int_equal(cls[i], HL_STRING); /* line 3: in the string */
	free(cls);
	/* and the same line alone, coloured afresh or taken kept */
	cls = hl_classes(l, "x = 1", 5, NULL, NULL);
	assert_int_equal(cls[4], HL_NUMBER);
	assert_int_equal(cls[0], HL_NONE);
	free(cls);
}

/* A line kept under one match limit is not taken under a lower one:
 * it is matched again, and stops there. */
static void a_kept_line_stops_at_a_lower_limit(void **state)
{
	(void)state;
	const struct hl_lang *l = hl_load_text("t-slow", slow_lang, strlen(slow_lang));
	assert_non_null(l);
	const char text[] = "ok aaaaaaaaaaaab\n";
	const char *stop;
	int line;
	for (int i = 0; i < 2; i++) { /* the second kept */
		unsigned char *cls = hl_classes(l, text, strlen(text), &stop, &line);
		assert_null(stop);
		assert_int_equal(cls[0], HL_KEYWORD);
		free(cls);
	}
	limit_set(LIMIT_PCRE_MATCH, 1000);
	unsigned char *cls = hl_classes(l, text, strlen(text), &stop, &line);
	limit_reset(NULL);
	assert_non_null(stop);
	assert_string_equal(stop, "the match limit");
	assert_int_equal(line, 1);
	assert_int_equal(cls[0], HL_NONE);
	free(cls);
}

/* CPU seconds to colour text in language name, every byte checked to
 * be coloured as `want` at offset `at`. */
static double colour_time(const char *name, const char *text, size_t at, int want)
{
	bool plain;
	const struct hl_lang *l = hl_find(name, &plain);
	assert_non_null(l);
	clock_t t0 = clock();
	unsigned char *cls = hl_classes(l, text, strlen(text), NULL, NULL);
	double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_int_equal(cls[at], want);
	free(cls);
	return secs;
}

/* One long line of many tokens is linear: a line of 20,000 strings
 * took 43 s when only the innermost context's matches were kept (each
 * closing quote searched the rest of the line again for every pattern
 * of the outer one); a comment of 20,000 words searched its end again
 * at each.  Both take well under a second (a few under ASan). */
static void a_long_line_of_many_tokens_is_linear(void **state)
{
	(void)state;
	struct buf t = BUF_INIT;
	buf_puts(&t, "x = ");
	for (int i = 0; i < 20000; i++)
		buf_puts(&t, "\"a\" ");
	double strings = colour_time("python", buf_data(&t), 4, HL_STRING);
	buf_clear(&t);
	buf_puts(&t, "/* ");
	for (int i = 0; i < 20000; i++)
		buf_puts(&t, "TODO note ");
	double comment = colour_time("c", buf_data(&t), 0, HL_COMMENT);
	buf_free(&t);
	printf("20,000 strings: %.2f s CPU; a comment of 40,000 words: %.2f s CPU\n", strings,
	       comment);
	assert_true(strings < 5.0);
	assert_true(comment < 5.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_class_reaches_aa_on_the_code_background),
		cmocka_unit_test(names_and_aliases),
		cmocka_unit_test(what_is_no_language_file_is_refused),
		cmocka_unit_test(a_pathological_pattern_stops_at_the_match_limit),
		cmocka_unit_test(deep_nesting_and_empty_matches_end),
		cmocka_unit_test(a_kept_line_is_coloured_by_where_it_stands),
		cmocka_unit_test(a_kept_line_stops_at_a_lower_limit),
		cmocka_unit_test(a_long_line_of_many_tokens_is_linear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
