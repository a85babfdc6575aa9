/* test_math.c: TeX math in a report ($...$, $$...$$, ```math): MathML
 * in the page from KaTeX, the dollar rules, values inside math linked
 * to their lines, TeX errors at their place, the math font, and the
 * PDF (which lays the math out itself: test_mathpdf.c compares it
 * with the browser's).
 *
 * The log is the seed Cerebras log tests/fixtures/cerebras/bs512.log:
 * its final loss, 7.12500, is on line 53. */
#include "e2e.h"

static char *project;

/* Under memcheck (make valgrind) KaTeX takes half a minute to load in
 * each logdown run: three tests cover math.c and the prepass there, the
 * rest say they skipped. */
#define NOT_UNDER_VALGRIND()                                                             \
	do {                                                                             \
		if (getenv("LOGDOWN_VALGRIND")) {                                        \
			printf("math: %s is left to the sanitizer run under valgrind; skipped\n", \
			       __func__);                                                \
			skip();                                                          \
		}                                                                        \
	} while (0)

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
	NOT_UNDER_VALGRIND();
	const char *body = body_of("$a_1 \\, b_2 * c*$ and $x^{{2}}$\n");
	assert_non_null(strstr(body, "<msup><mi>x</mi><mn>2</mn></msup>"));
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
	NOT_UNDER_VALGRIND();
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
				     "href=\"logs/bs512.log.html#L53.1\" "
				     "title=\"content/r/logs/bs512.log:53\">7.12500</a></mn>"));
	assert_non_null(strstr(body, "<annotation encoding=\"application/x-tex\">"
				     "L = 7.12500\\,\\text{nats}</annotation>"));
}

/* $$ over several lines is display math; the lines after it keep their
 * numbers (the {log} below reports its bad key at its own line). */
static void display_math_keeps_the_lines(void **state)
{
	(void)state;
	NOT_UNDER_VALGRIND();
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
	NOT_UNDER_VALGRIND();
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
	NOT_UNDER_VALGRIND();
	body_of("$x$\n");
	char *css = e2e_keep(e2e_read(project, "_site/static/logdown.css"));
	assert_non_null(strstr(css, "src: local(\"TeX Gyre DejaVu Math\"), url(\"math.otf\")"));
	char *font = e2e_keep(e2e_read(project, "_site/static/math.otf"));
	assert_non_null(font);
	assert_memory_equal(font, "OTTO", 4);
}

/* The PDF lays the math out itself (render/mathlayout.h): letters in
 * the math italic of the math font, no TeX left, the value drawn as a
 * number and linked to its log line, a labelled equation numbered;
 * TeX that KaTeX rejects shows as its TeX. */
static void the_pdf_lays_math_out(void **state)
{
	(void)state;
	NOT_UNDER_VALGRIND();
	body_of("Loss $L = {{ cs.final_loss }}$ and $a_1 \\cdot b$.\n\n$$ P \\le \\pi $$ {#eq-roof}\n");
	e2e_ok(project, "build --pdf");
	int st;
	char *cmd = xasprintf("pdftotext '%s/_site/r/report.pdf' -", project);
	char *text = e2e_keep(e2e_sh(&st, "%s", cmd));
	free(cmd);
	assert_int_equal(st, 0);
	/* U+1D43F, U+1D44E, U+1D44F: math italic L, a, b */
	assert_non_null(strstr(text, "Loss \xF0\x9D\x90\xBF = 7.12500 and \xF0\x9D\x91\x8E" "1 "
				     "\xE2\x8B\x85 \xF0\x9D\x91\x8F."));
	assert_null(strstr(text, "\\cdot"));
	assert_non_null(strstr(text, "(1)"));
	/* the value links to its Sources entry, which links to its line:
	 * the one URI of the PDF */
	char *links = e2e_keep(e2e_sh(&st, "grep -a -o '/URI ([^)]*)' '%s/_site/r/report.pdf'",
				      project));
	assert_string_equal(links, "/URI (logs/bs512.log.html#L53)\n");
}

/* A labelled display equation is numbered, and @eq- refers to it. */
static void labelled_equations_are_numbered(void **state)
{
	(void)state;
	NOT_UNDER_VALGRIND();
	const char *body = body_of("By @eq-ai and @eq-roofline.\n\n$$I = \\frac{W}{Q}$$ {#eq-ai}\n\n"
				   "$$\nP \\le \\pi\n$$ {#eq-roofline}\n");
	assert_non_null(strstr(body, "<p>By <a class=\"ld-ref\" href=\"#eq-ai\">Equation 1</a> and "
				     "<a class=\"ld-ref\" href=\"#eq-roofline\">Equation 2</a>.</p>"));
	assert_non_null(strstr(body, "<p><span class=\"ld-equation\" id=\"eq-ai\"><math "));
	assert_non_null(strstr(body, "</math><span class=\"ld-eqno\">(1)</span></span></p>"));
	assert_non_null(strstr(body, "<span class=\"ld-equation\" id=\"eq-roofline\">"));
	assert_non_null(strstr(body, "</math><span class=\"ld-eqno\">(2)</span></span>"));
}

/* What goes wrong with labels: an unknown one, a taken one, a bad one. */
static void equation_label_errors(void **state)
{
	(void)state;
	NOT_UNDER_VALGRIND();
	project = e2e_project(E2E_FILES(E2E_TEXT(
		"content/r/index.md", "---\ntitle: M\n---\nSee @eq-rofline.\n\n"
				      "$$a$$ {#eq-roofline}\n\n$$b$$ {#eq-roofline}\n\n$$c$$ {#fig-c}\n")));
	struct proc r = e2e_keep_proc(e2e_run(project, "build"));
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "content/r/index.md:8:7: error: label 'eq-roofline' is already "
			    "Equation 1's\n"
			    "    8 | $$b$$ {#eq-roofline}\n"
			    "      |       ^~~~~~~~~~~~~~\n"
			    "content/r/index.md:10:7: error: an equation's label is {#eq-NAME} "
			    "(letters, digits, '-' and '_'), e.g. {#eq-roofline}\n"
			    "   10 | $$c$$ {#fig-c}\n"
			    "      |       ^~~~~~~~\n"
			    "content/r/index.md:4:5: error: label 'eq-rofline' is not defined "
			    "(did you mean 'eq-roofline'?)\n"
			    "    4 | See @eq-rofline.\n"
			    "      |     ^~~~~~~~~~~\n"
			    "logdown: 3 errors; the previous output was left as it was\n");
}

/* Math in a table cell and in a link's text; a value in linked math is
 * not a link inside the link. */
static void math_in_cells_and_links(void **state)
{
	(void)state;
	NOT_UNDER_VALGRIND();
	const char *body = body_of("| a | b |\n|---|---|\n| $$x^2$$ | $y$ |\n\n"
				   "[the loss $L = {{ cs.final_loss }}$](https://example.org)\n");
	assert_non_null(strstr(body, "<td><math xmlns=\"http://www.w3.org/1998/Math/MathML\" "
				     "display=\"block\"><semantics><mrow><msup>"));
	assert_non_null(strstr(body, "<a href=\"https://example.org\">the loss <math "));
	assert_non_null(strstr(body, "<mi>L</mi><mo>=</mo><mn><span class=\"ld-value\""));
}

/* An unclosed $$ is a warning; an unclosed $ is a dollar. */
static void an_unclosed_display_is_a_warning(void **state)
{
	(void)state;
	NOT_UNDER_VALGRIND();
	project = e2e_project(E2E_FILES(E2E_TEXT(
		"content/r/index.md", "---\ntitle: M\n---\nSee $$x + y\n\nand $z costs.\n")));
	struct proc r = e2e_keep_proc(e2e_run(project, "build"));
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err,
			    "content/r/index.md:4:5: warning: $$ opens display math that is not "
			    "closed in its paragraph: close it with $$, or write \\$\\$ for two "
			    "dollars\n"
			    "    4 | See $$x + y\n"
			    "      |     ^~\n"
			    "logdown: built 1 report into _site\n");
	char *page = e2e_keep(e2e_read(project, "_site/r/index.html"));
	assert_non_null(strstr(page, "<p>See $$x + y</p>\n<p>and $z costs.</p>"));
}

/* A formula too long or nested too deep is stopped by its named limit
 * before KaTeX sees it. */
static void formulas_are_bounded(void **state)
{
	(void)state;
	NOT_UNDER_VALGRIND();
	struct buf md = BUF_INIT;
	buf_puts(&md, "---\ntitle: M\n---\nLong $");
	for (int i = 0; i < 1250; i++)
		buf_printf(&md, "x_%d+", i % 10);
	buf_puts(&md, "y$.\n\nDeep $");
	for (int i = 0; i < 1000; i++)
		buf_puts(&md, "{");
	buf_puts(&md, "x");
	for (int i = 0; i < 1000; i++)
		buf_puts(&md, "}");
	buf_puts(&md, "$.\n");
	project = e2e_project(E2E_FILES(E2E_TEXT("content/r/index.md", buf_data(&md))));
	buf_free(&md);
	struct proc r = e2e_keep_proc(e2e_run(project, "build"));
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "content/r/index.md:4:6: error: this formula is 5001 bytes of "
				      "TeX, over 4000 (limit math_size: raise it with limits: in "
				      "site.yaml or LOGDOWN_LIMIT_MATH_SIZE)\n"));
	assert_non_null(strstr(r.err, "content/r/index.md:6:107: error: this formula nests deeper "
				      "than 100 (limit math_depth: raise it with limits: in site.yaml "
				      "or LOGDOWN_LIMIT_MATH_DEPTH)\n"));
}

/* TeX that names a placeholder of its own, or defines macros, is inert
 * or refused at once (a review found each: a recursion that crashed the
 * build, and \edef taking seconds a formula, CVE-2024-28243); commands
 * are matched whole (\leftarrow is no \left); KaTeX's error positions
 * count characters (one for a character beyond the BMP, in duktape),
 * the caret is still under the right one. */
static void hostile_tex_is_inert_or_refused(void **state)
{
	(void)state;
	NOT_UNDER_VALGRIND();
	struct buf md = BUF_INIT;
	buf_puts(&md, "---\ntitle: M\n---\nSelf: $\\href{ldv:0}{\\text{0}}$ and "
		      "$\\text{{\\char\"1A}LD1{\\char\"1A}}$.\n\nArrows $a");
	for (int i = 0; i < 101; i++)
		buf_puts(&md, " \\leftarrow a");
	buf_puts(&md, "$.\n\nMacro $\\def\\a{x}\\edef\\b{\\a\\a}\\b$.\n\n"
		      "Accents $\\text{\xC3\xA4\xC3\xB6} + \\foo$.\n\n"
		      "```math\na % \xF0\x9D\x90\x80, one character of four bytes\n+ \\bar{b} \\fooo\n```\n");
	project = e2e_project(E2E_FILES(E2E_TEXT("content/r/index.md", buf_data(&md))));
	buf_free(&md);
	struct proc r = e2e_keep_proc(e2e_run(project, "build"));
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err,
			    "content/r/index.md:8:8: error: TeX: \\def defines a macro, which "
			    "logdown does not run in math: write the formula out\n"
			    "    8 | Macro $\\def\\a{x}\\edef\\b{\\a\\a}\\b$.\n"
			    "      |        ^~~~\n"
			    "content/r/index.md:10:24: error: TeX: Undefined control sequence: \\foo\n"
			    "   10 | Accents $\\text{\xC3\xA4\xC3\xB6} + \\foo$.\n"
			    "      |                      ^\n"
			    "content/r/index.md:14:11: error: TeX: Undefined control sequence: \\fooo\n"
			    "   14 | + \\bar{b} \\fooo\n"
			    "      |           ^\n"
			    "logdown: 3 errors; the previous output was left as it was\n");
	/* without the errors, the rest builds: the placeholders stay text */
	char *text = e2e_keep(e2e_read(project, "content/r/index.md"));
	*strstr(text, "\n\nMacro") = '\0';
	e2e_write(project, "content/r/index.md", text);
	struct proc ok = e2e_keep_proc(e2e_run(project, "build"));
	assert_int_equal(ok.status, 0);
	char *page = e2e_keep(e2e_read(project, "_site/r/index.html"));
	assert_non_null(strstr(page, "<mtext href=\"ldv:0\">0</mtext>"));
	assert_non_null(strstr(page, "<mtext>\xEF\xBF\xBDLD1\xEF\xBF\xBD</mtext>"));
	assert_null(strstr(page, "\x1a"));
}

/* What KaTeX runs only when trusted (links, images, HTML classes)
 * shows as written, with a warning once a formula. */
static void untrusted_commands_are_a_warning(void **state)
{
	(void)state;
	NOT_UNDER_VALGRIND();
	project = e2e_project(E2E_FILES(E2E_TEXT(
		"content/r/index.md",
		"---\ntitle: M\n---\nA $\\href{https://x.org}{y} + \\url{https://a.b}$ and "
		"$\\includegraphics{/etc/passwd}$.\n")));
	struct proc r = e2e_keep_proc(e2e_run(project, "build"));
	assert_int_equal(r.status, 0);
	assert_string_equal(
		r.err,
		"content/r/index.md:4:3: warning: TeX: \\href is not run in a report's math (links, "
		"images and HTML from math are left out): it shows as written\n"
		"    4 | A $\\href{https://x.org}{y} + \\url{https://a.b}$ and "
		"$\\includegraphics{/etc/passwd}$.\n"
		"      |   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
		"content/r/index.md:4:53: warning: TeX: \\includegraphics is not run in a report's "
		"math (links, images and HTML from math are left out): it shows as written\n"
		"    4 | A $\\href{https://x.org}{y} + \\url{https://a.b}$ and "
		"$\\includegraphics{/etc/passwd}$.\n"
		"      |                                                     "
		"^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
		"logdown: built 1 report into _site\n");
	char *page = e2e_keep(e2e_read(project, "_site/r/index.html"));
	assert_null(strstr(page, "href=\"https://x.org"));
	assert_null(strstr(page, "<img"));
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
		cmocka_unit_test_teardown(the_pdf_lays_math_out, cleanup),
		cmocka_unit_test_teardown(labelled_equations_are_numbered, cleanup),
		cmocka_unit_test_teardown(equation_label_errors, cleanup),
		cmocka_unit_test_teardown(math_in_cells_and_links, cleanup),
		cmocka_unit_test_teardown(an_unclosed_display_is_a_warning, cleanup),
		cmocka_unit_test_teardown(formulas_are_bounded, cleanup),
		cmocka_unit_test_teardown(hostile_tex_is_inert_or_refused, cleanup),
		cmocka_unit_test_teardown(untrusted_commands_are_a_warning, cleanup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
