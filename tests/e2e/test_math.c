/* test_math.c: TeX math in a report ($...$, $$...$$, ```math): MathML
 * in the page from KaTeX, the dollar rules, values inside math linked
 * to their lines, TeX errors at their place, the math font, and the
 * PDF (which shows the TeX until it lays math out itself).
 *
 * The log is the seed Cerebras log tests/fixtures/cerebras/bs512.log:
 * its final loss, 7.12500, is on line 53. */
#include "e2e.h"

static char *project;

static int cleanup(void **state)
{
	(void)state;
	e2e_free_kept();
	e2e_drop(&project);
	return 0;
}

/* The body of report r built from md (which must build cleanly). */
static const char *body_of(const char *md)
{
	char *text = xasprintf("---\ntitle: M\n%s---\n%s",
			       strstr(md, "cs.") ? "runs:\n  cs: logs/bs512.log\n" : "", md);
	project = e2e_project(E2E_FILES(E2E_COPY("content/r/logs/bs512.log",
						 "tests/fixtures/cerebras/bs512.log"),
					E2E_TEXT("content/r/index.md", text)));
	free(text);
	return e2e_keep(e2e_build_body(project, ""));
}

static void inline_math_is_mathml(void **state)
{
	(void)state;
	const char *body = body_of("Bytes: $D \\cdot H + C$.\n");
	assert_string_equal(
		body, "<p>Bytes: <math xmlns=\"http://www.w3.org/1998/Math/MathML\"><semantics><mrow>"
		      "<mi>D</mi><mo>\xE2\x8B\x85</mo><mi>H</mi><mo>+</mo><mi>C</mi></mrow>"
		      "<annotation encoding=\"application/x-tex\">D \\cdot H + C</annotation>"
		      "</semantics></math>.</p>\n");
}

/* Markdown never touches math: backslashes, underscores and stars
 * arrive as written. */
static void markdown_leaves_math_alone(void **state)
{
	(void)state;
	const char *body = body_of("$a_1 \\, b_2 * c*$\n");
	assert_non_null(strstr(body, "<msub><mi>a</mi><mn>1</mn></msub><mtext>\xE2\x80\x89</mtext>"
				     "<msub><mi>b</mi><mn>2</mn></msub><mo>\xE2\x88\x97</mo>"
				     "<mi>c</mi><mo>\xE2\x88\x97</mo>"));
	assert_null(strstr(body, "<em>"));
}

/* GitHub's and Pandoc's rules: no space after the opening $, none
 * before the closing one, no digit after it; a $ that cannot close
 * makes no math of the span; \$ is a dollar; code is code. */
static void dollars_that_are_not_math(void **state)
{
	(void)state;
	const char *body = body_of("It costs $5 and $6. A $ x$ and $x $ and $x$5.\n\n"
				   "An escaped \\$x\\$ and `$y$` in code.\n");
	assert_string_equal(body, "<p>It costs $5 and $6. A $ x$ and $x $ and $x$5.</p>\n"
				  "<p>An escaped $x$ and <code>$y$</code> in code.</p>\n");
}

/* A value inside math is shown and linked like one in prose; the TeX
 * annotation shows its text. */
static void a_value_inside_math_links_to_its_line(void **state)
{
	(void)state;
	const char *body = body_of("$L = {{ cs.final_loss }}\\,\\text{nats}$\n");
	assert_non_null(strstr(body, "<mi>L</mi><mo>=</mo><mn><a class=\"ld-value\" "
				     "href=\"logs/bs512.log.html#L53\" "
				     "title=\"content/r/logs/bs512.log:53\">7.12500</a></mn>"));
	assert_non_null(strstr(body, "<annotation encoding=\"application/x-tex\">"
				     "L = 7.12500\\,\\text{nats}</annotation>"));
}

/* $$ over several lines is display math; the lines after it keep their
 * numbers (the {log} below reports its bad key at its own line). */
static void display_math_keeps_the_lines(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(
		E2E_COPY("content/r/logs/bs512.log", "tests/fixtures/cerebras/bs512.log"),
		E2E_TEXT("content/r/index.md", "---\ntitle: M\nruns:\n  cs: logs/bs512.log\n---\n"
					       "$$\nP = \\frac{2}{t}\n$$\n\n"
					       "```{log}\nrun: cs\nlimes: 3\n```\n")));
	struct proc r = e2e_keep_proc(e2e_run(project, "build"));
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "content/r/index.md:12:1: error: unknown key 'limes'"));
	e2e_write(project, "content/r/index.md",
		  "---\ntitle: M\n---\nSee\n$$\nP = \\frac{2}{t}\n$$\nabove.\n");
	char *body = e2e_keep(e2e_build_body(project, ""));
	assert_non_null(strstr(body, "<p>See\n<math xmlns=\"http://www.w3.org/1998/Math/MathML\" "
				     "display=\"block\"><semantics><mrow><mi>P</mi><mo>=</mo>"
				     "<mfrac><mn>2</mn><mi>t</mi></mfrac></mrow>"));
}

static void a_math_fence_is_display_math(void **state)
{
	(void)state;
	const char *body = body_of("```math\nx^2\n```\n");
	assert_string_equal(body, "<p><math xmlns=\"http://www.w3.org/1998/Math/MathML\" "
				  "display=\"block\"><semantics><mrow><msup><mi>x</mi><mn>2</mn></msup>"
				  "</mrow><annotation encoding=\"application/x-tex\">x^2</annotation>"
				  "</semantics></math></p>\n");
}

/* A TeX error is an error at its column (or line, in a fence), and the
 * page shows the TeX as code. */
static void tex_errors_at_their_place(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(E2E_TEXT(
		"content/r/index.md",
		"---\ntitle: M\n---\nBroken: $\\frac{1$ here.\n\n```math\na +\n\\fraq{1}{2}\n```\n")));
	struct proc r = e2e_keep_proc(e2e_run(project, "build"));
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "content/r/index.md:4:17: error: TeX: Unexpected end of input in a "
			    "macro argument, expected '}'\n"
			    "    4 | Broken: $\\frac{1$ here.\n"
			    "      |                 ^\n"
			    "content/r/index.md:8:1: error: TeX: Undefined control sequence: \\fraq\n"
			    "    8 | \\fraq{1}{2}\n"
			    "      | ^\n"
			    "logdown: 2 errors; the previous output was left as it was\n");
}

/* The site ships the math font and says where it is. */
static void the_site_has_the_math_font(void **state)
{
	(void)state;
	body_of("$x$\n");
	char *css = e2e_keep(e2e_read(project, "_site/static/logdown.css"));
	assert_non_null(strstr(css, "src: local(\"TeX Gyre DejaVu Math\"), url(\"math.otf\")"));
	char *font = e2e_keep(e2e_read(project, "_site/static/math.otf"));
	assert_non_null(font);
	assert_memory_equal(font, "OTTO", 4);
}

/* Until the PDF lays math out, it shows the TeX as written, the values
 * in it as values. */
static void the_pdf_shows_the_tex(void **state)
{
	(void)state;
	body_of("Loss $L = {{ cs.final_loss }}$ and $a_1 \\cdot b$.\n");
	e2e_ok(project, "build --pdf");
	int st;
	char *cmd = xasprintf("pdftotext '%s/_site/r/report.pdf' -", project);
	char *text = e2e_keep(e2e_sh(&st, "%s", cmd));
	free(cmd);
	assert_int_equal(st, 0);
	assert_non_null(strstr(text, "Loss L = 7.12500 and a_1 \\cdot b."));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(inline_math_is_mathml, cleanup),
		cmocka_unit_test_teardown(markdown_leaves_math_alone, cleanup),
		cmocka_unit_test_teardown(dollars_that_are_not_math, cleanup),
		cmocka_unit_test_teardown(a_value_inside_math_links_to_its_line, cleanup),
		cmocka_unit_test_teardown(display_math_keeps_the_lines, cleanup),
		cmocka_unit_test_teardown(a_math_fence_is_display_math, cleanup),
		cmocka_unit_test_teardown(tex_errors_at_their_place, cleanup),
		cmocka_unit_test_teardown(the_site_has_the_math_font, cleanup),
		cmocka_unit_test_teardown(the_pdf_shows_the_tex, cleanup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
