/* test_mathlayout.c: MathML laid out for the PDF (render/mathlayout.h):
 * the facts of the MATH table the layout must respect (a fraction's bar
 * on the axis, a superscript raised at least the font's shift, a
 * stretchy parenthesis taller than what it encloses, a large operator
 * in display style at least its minimum height), and bad input (not
 * XML, unknown elements, missing children, deep nesting) laid out
 * without a crash.  The MathML is KaTeX's, as the page gets it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "draw/font.h"
#include "render/mathlayout.h"

#define SIZE 10.0
static struct math_font *font;
static const struct math_colours colours = {0x1a1a1a, 0x1d3f66, 0xb3261e};

static int setup(void **state)
{
	(void)state;
	font_lock();
	font = math_font_new(NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	math_font_free(font);
	font_unlock();
	return 0;
}

static struct math_layout *lay(const char *xml)
{
	if (!font)
		skip(); /* fonts-texgyre-math not installed */
	struct math_layout *m = math_layout_new(font, xml, strlen(xml), SIZE, &colours);
	assert_non_null(m);
	return m;
}

static double K(const char *name)
{
	return math_font_constant(font, name, SIZE);
}

/* \frac{a}{b}: the bar's middle on the math axis, the rule the font's. */
static void fraction_bar_on_the_axis(void **state)
{
	(void)state;
	struct math_layout *m =
		lay("<math><semantics><mrow><mfrac><mi>a</mi><mi>b</mi></mfrac></mrow>"
		    "<annotation encoding=\"application/x-tex\">\\frac{a}{b}</annotation>"
		    "</semantics></math>");
	struct math_fact f;
	assert_true(math_layout_find(m, "mfrac", 0, &f));
	assert_true(fabs(f.a - K("axis_height")) < 1e-9);
	assert_true(fabs(f.b - K("fraction_rule_thickness")) < 1e-9);
	assert_true(K("axis_height") > 0.5 && K("axis_height") < 5);
	/* the numerator above the bar, the denominator below it */
	struct math_fact a, b;
	assert_true(math_layout_find(m, "mi", 0, &a));
	assert_true(math_layout_find(m, "mi", 1, &b));
	assert_true(a.baseline + a.descent < -(f.a + f.b / 2));
	assert_true(b.baseline - b.ascent > -(f.a - f.b / 2));
	math_layout_free(m);
	/* \binom's linethickness="0px": no bar */
	m = lay("<math><mrow><mo fence=\"true\">(</mo><mfrac linethickness=\"0px\"><mi>n</mi>"
		"<mi>k</mi></mfrac><mo fence=\"true\">)</mo></mrow></math>");
	assert_true(math_layout_find(m, "mfrac", 0, &f));
	assert_true(f.b == 0);
	math_layout_free(m);
}

/* x^2, x_i^2: the superscript raised at least SuperscriptShiftUp, the
 * subscript lowered at least SubscriptShiftDown, and the two apart by
 * at least SubSuperscriptGapMin. */
static void scripts_at_least_the_fonts_shifts(void **state)
{
	(void)state;
	struct math_layout *m = lay("<math><msup><mi>x</mi><mn>2</mn></msup></math>");
	struct math_fact f;
	assert_true(math_layout_find(m, "msup", 0, &f));
	assert_true(f.a >= K("superscript_shift_up") - 1e-9);
	struct math_fact two;
	assert_true(math_layout_find(m, "mn", 0, &two));
	assert_true(fabs(two.baseline + f.a) < 1e-9);
	/* script size: scriptPercentScaleDown of the base */
	double h = two.ascent + two.descent;
	assert_true(h > 0 && h < 0.8 * SIZE);
	math_layout_free(m);
	m = lay("<math><msubsup><mi>x</mi><mi>i</mi><mn>2</mn></msubsup></math>");
	assert_true(math_layout_find(m, "msubsup", 0, &f));
	assert_true(f.a >= K("superscript_shift_up") - 1e-9);
	assert_true(f.b >= K("subscript_shift_down") - 1e-9);
	math_layout_free(m);
}

/* \left(\frac{a}{b}\right): the parentheses grown past the fraction,
 * symmetric about the axis. */
static void stretchy_parens_taller_than_their_content(void **state)
{
	(void)state;
	struct math_layout *m = lay(
		"<math display=\"block\"><semantics><mrow><mo fence=\"true\">(</mo><mfrac><mi>a</mi>"
		"<mi>b</mi></mfrac><mo fence=\"true\">)</mo></mrow><annotation encoding=\"application/"
		"x-tex\">\\left(\\frac{a}{b}\\right)</annotation></semantics></math>");
	assert_true(math_layout_display(m));
	struct math_fact open, close, frac, plain;
	assert_true(math_layout_find(m, "mo", 0, &open));
	assert_true(math_layout_find(m, "mo", 1, &close));
	assert_true(math_layout_find(m, "mfrac", 0, &frac));
	assert_true(open.ascent + open.descent >= frac.ascent + frac.descent);
	assert_true(open.ascent >= frac.ascent - 1e-6);
	assert_true(open.descent >= frac.descent - 1e-6);
	assert_true(fabs(open.a - close.a) < 1e-9);
	/* its middle on the axis */
	assert_true(fabs((open.ascent - open.descent) / 2 - K("axis_height")) < 0.05);
	math_layout_free(m);
	/* a parenthesis around a letter stays its own size */
	m = lay("<math><mrow><mo stretchy=\"false\">(</mo><mi>x</mi><mo stretchy=\"false\">)</mo>"
		"</mrow></math>");
	assert_true(math_layout_find(m, "mo", 0, &plain));
	assert_true(plain.a < open.a);
	/* the fence sits beside what it encloses, not over it */
	struct math_fact x;
	assert_true(math_layout_find(m, "mi", 0, &x));
	assert_true(x.x >= plain.x + plain.w - 1e-9);
	math_layout_free(m);
}

/* \sum_{i=1}^n in display style: the operator at least
 * DisplayOperatorMinHeight, its limits above and below; inline, the
 * limits are scripts (movablelimits). */
static void sum_limits(void **state)
{
	(void)state;
	const char *sum = "<mrow><munderover><mo>\xE2\x88\x91</mo><mrow><mi>i</mi><mo>=</mo>"
			  "<mn>1</mn></mrow><mi>n</mi></munderover></mrow>";
	char *xml = xasprintf("<math display=\"block\">%s</math>", sum);
	struct math_layout *m = lay(xml);
	free(xml);
	struct math_fact op, under, over;
	assert_true(math_layout_find(m, "mo", 0, &op));
	assert_true(op.a >= K("display_operator_min_height") - 1e-6);
	assert_true(math_layout_find(m, "mrow", 1, &under));
	assert_true(math_layout_find(m, "mi", 0, &over));
	assert_true(under.baseline - under.ascent > op.baseline + op.descent);
	assert_true(over.baseline + over.descent < op.baseline - op.ascent);
	math_layout_free(m);
	xml = xasprintf("<math>%s</math>", sum);
	m = lay(xml);
	free(xml);
	assert_true(math_layout_find(m, "mi", 1, &over));
	assert_true(math_layout_find(m, "mo", 0, &op));
	assert_true(over.x >= op.x + op.w - 1e-6); /* to the right: a script */
	math_layout_free(m);
}

/* \sqrt{x}: the radical over its content with the font's gap, and a
 * matrix centred on the axis with its cells in columns. */
static void radicals_and_tables(void **state)
{
	(void)state;
	struct math_layout *m = lay("<math><msqrt><mi>x</mi></msqrt></math>");
	struct math_fact r, x;
	assert_true(math_layout_find(m, "msqrt", 0, &r));
	assert_true(math_layout_find(m, "mi", 0, &x));
	assert_true(r.ascent >= x.ascent + K("radical_vertical_gap") +
				       K("radical_rule_thickness") - 1e-6);
	assert_true(x.x > 0);
	math_layout_free(m);
	m = lay("<math><mtable rowspacing=\"0.16em\" columnalign=\"center center\"><mtr><mtd>"
		"<mi>a</mi></mtd><mtd><mi>b</mi></mtd></mtr><mtr><mtd><mi>c</mi></mtd><mtd>"
		"<mi>d</mi></mtd></mtr></mtable></math>");
	struct math_fact a, b, c, t;
	assert_true(math_layout_find(m, "mtable", 0, &t));
	assert_true(math_layout_find(m, "mi", 0, &a));
	assert_true(math_layout_find(m, "mi", 1, &b));
	assert_true(math_layout_find(m, "mi", 2, &c));
	assert_true(fabs(a.baseline - b.baseline) < 1e-9);
	assert_true(c.baseline > a.baseline + 5);
	assert_true(b.x > a.x + a.w);
	assert_true(fabs((t.ascent - t.descent) / 2 - K("axis_height")) < 1e-6);
	math_layout_free(m);
}

/* Values: an <mn> with data-ld-href keeps its text and is linked. */
static int links;
static void count_link(void *ctx, const char *href, double x, double y, double w, double h)
{
	(void)ctx;
	(void)x;
	(void)y;
	assert_string_equal(href, "logs/a.log.html#L53");
	assert_true(w > 0 && h > 0);
	links++;
}

static void values_are_linked(void **state)
{
	(void)state;
	struct math_layout *m =
		lay("<math><mi>P</mi><mo>=</mo><mn data-ld-href=\"logs/a.log.html#L53\">7.125"
		    "</mn></math>");
	cairo_surface_t *s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
	cairo_t *cr = cairo_create(s);
	links = 0;
	math_layout_draw(m, cr, 0, 20, count_link, NULL);
	assert_int_equal(links, 1);
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	math_layout_free(m);
}

/* Bad input: not XML is NULL (the caller shows the TeX); an unknown
 * element is a row of its children; a missing child is none; nesting
 * past the limit is left out, without a crash. */
static void bad_input(void **state)
{
	(void)state;
	if (!font)
		skip();
	assert_null(math_layout_new(font, "<math><mi>x</math>", 18, SIZE, &colours));
	assert_null(math_layout_new(font, "", 0, SIZE, &colours));
	struct math_layout *m = lay("<math><menclose notation=\"box\"><mi>x</mi><mi>y</mi>"
				    "</menclose></math>");
	struct math_fact u, x, y;
	assert_true(math_layout_find(m, "menclose", 0, &u));
	assert_true(math_layout_find(m, "mi", 0, &x));
	assert_true(math_layout_find(m, "mi", 1, &y));
	assert_true(y.x >= x.x + x.w - 1e-9);
	assert_true(u.w >= x.w + y.w - 1e-9);
	math_layout_free(m);
	static const char *const broken[] = {
		"<math><mfrac><mi>a</mi></mfrac></math>",
		"<math><msubsup><mi>a</mi></msubsup><mroot/><munderover/><mtable/></math>",
		"<math><mtable><mtd/><mtr/></mtable><mspace width=\"1e999em\"/></math>",
		"<math><mpadded width=\"-3em\" voffset=\"+x\"><mo>(</mo></mpadded></math>",
		"<math><mstyle scriptlevel=\"-99\"><mi>x</mi></mstyle>"
		"<mstyle scriptlevel=\"+99\"><mi>x</mi></mstyle></math>",
	};
	for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
		m = lay(broken[i]);
		double w, a, d;
		math_layout_extents(m, &w, &a, &d);
		assert_true(isfinite(w) && isfinite(a) && isfinite(d));
		math_layout_free(m);
	}
	struct buf deep = BUF_INIT;
	buf_puts(&deep, "<math>");
	for (int i = 0; i < 5000; i++)
		buf_puts(&deep, "<mfrac><mrow>");
	for (int i = 0; i < 5000; i++)
		buf_puts(&deep, "</mrow><mn>1</mn></mfrac>");
	buf_puts(&deep, "</math>");
	m = lay(buf_data(&deep));
	math_layout_free(m);
	buf_free(&deep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fraction_bar_on_the_axis),
		cmocka_unit_test(scripts_at_least_the_fonts_shifts),
		cmocka_unit_test(stretchy_parens_taller_than_their_content),
		cmocka_unit_test(sum_limits),
		cmocka_unit_test(radicals_and_tables),
		cmocka_unit_test(values_are_linked),
		cmocka_unit_test(bad_input),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
