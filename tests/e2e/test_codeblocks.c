/* test_codeblocks.c: code blocks as a reader sees them: line numbers,
 * highlighted lines and the Copy button's script on the page; numbers
 * in the PDF's gutter but not in its text, highlighted lines on their
 * band; every bad attribute reported at its column; {log} excerpts and
 * log pages coloured as the log language, their marks and anchors as
 * before. */
#include "e2e.h"

#define MD "content/r/index.md"

/* An sbatch script, numbered from 10 with two lines highlighted; the
 * same languages in the other two spellings; a plain block numbered. */
static const char good_md[] =
	"---\n"
	"title: Code\n"
	"runs:\n"
	"  a: { file: logs/run.log, parser: lines }\n"
	"---\n"
	"\n"
	"Loss {{ a.loss }}.\n"
	"\n"
	"```{.bash .numberLines startFrom=\"10\" hl_lines=\"2-3\"}\n"
	"#SBATCH -N 2\n"
	"#SBATCH -t 10\n"
	"srun ./train\n"
	"echo done\n"
	"```\n"
	"\n"
	"```python {.numberLines hl_lines=\"1\"}\n"
	"x = 1\n"
	"```\n"
	"\n"
	"```python numberLines hl_lines=\"2\"\n"
	"a = 1\n"
	"b = 'x'\n"
	"```\n"
	"\n"
	"```python hl_lines=\"1\"\n"
	"pass\n"
	"```\n"
	"\n"
	"```text any words here\n"
	"plain\n"
	"```\n"
	"\n"
	"```{log}\n"
	"from: a\n"
	"lines: 1-2\n"
	"```\n";

static const char good_log[] = "2024-03-30 14:09:43,663 INFO: start\n"
			       "2024-03-30 14:09:44,001 ERROR: step 5 Loss=7.125 \x1b[31mred\x1b[0m\n";

static char *project;
static struct proc build;
static char *page;

static int setup(void **state)
{
	(void)state;
	project = e2e_project(E2E_FILES(
		E2E_TEXT(MD, good_md), E2E_TEXT("content/r/logs/run.log", good_log),
		E2E_TEXT("parsers/lines.yaml", "name: lines\ndescription: the loss\nfields:\n"
					       "  loss: { pattern: 'Loss=([\\d.]+)' }\n")));
	build = e2e_run(project, "pdf");
	page = e2e_read(project, "_site/r/index.html");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(page);
	proc_free(&build);
	remove_tree(project);
	free(project);
	e2e_free_kept();
	return 0;
}

static void numbered_highlighted_lines_are_written_exactly(void **state)
{
	(void)state;
	if (build.status != 0)
		fail_msg("logdown pdf exited %d:\n%s", build.status, build.err);
	assert_null(strstr(build.err, "warning"));
	assert_contains(
		page,
		"<pre class=\"ld-code ld-numbered\" style=\"--ld-digits:2;counter-reset:ld-ln 9\">"
		"<code class=\"language-bash\">"
		"<span class=\"ld-cl\"><span class=\"hl-preprocessor\">#SBATCH</span> "
		"<span class=\"hl-keyword\">-N</span> <span class=\"hl-string\">2</span>\n</span>"
		"<span class=\"ld-cl ld-hl\"><span class=\"hl-preprocessor\">#SBATCH</span> "
		"<span class=\"hl-keyword\">-t</span> <span class=\"hl-string\">10</span>\n</span>"
		"<span class=\"ld-cl ld-hl\">srun ./train\n</span>"
		"<span class=\"ld-cl\"><span class=\"hl-keyword\">echo</span> done\n</span>"
		"</code></pre>\n");
}

static void the_three_spellings_read_alike(void **state)
{
	(void)state;
	/* Pandoc's braces after the language */
	assert_contains(page, "<pre class=\"ld-code ld-numbered\" style=\"--ld-digits:1;"
			      "counter-reset:ld-ln 0\"><code class=\"language-python\">"
			      "<span class=\"ld-cl ld-hl\">x = <span class=\"hl-number\">1</span>\n"
			      "</span></code></pre>\n");
	/* MkDocs' bare words */
	assert_contains(page, "<span class=\"ld-cl\">a = <span class=\"hl-number\">1</span>\n"
			      "</span><span class=\"ld-cl ld-hl\">b = <span class=\"hl-string\">"
			      "&#39;x&#39;</span>\n</span></code></pre>\n");
	/* highlighted lines without numbers */
	assert_contains(page, "<pre class=\"ld-code\"><code class=\"language-python\">"
			      "<span class=\"ld-cl ld-hl\"><span class=\"hl-keyword\">pass</span>\n"
			      "</span></code></pre>\n");
	/* words after the language that are no attributes stay ignored */
	assert_contains(page, "<pre><code class=\"language-text\">plain\n</code></pre>\n");
}

static void the_copy_script_ships_with_the_page(void **state)
{
	(void)state;
	assert_contains(page, "<script src=\"../static/copy.js\" defer></script>\n");
	char *js = e2e_keep(e2e_read(project, "_site/static/copy.js"));
	assert_non_null(js);
	/* it copies the code's text, which holds no line numbers */
	assert_contains(js, "copy(code.textContent)");
	assert_contains(js, "document.execCommand(\"copy\")");
}

static void log_excerpts_and_log_pages_are_coloured(void **state)
{
	(void)state;
	/* the excerpt: time stamps, levels, numbers; the escape sequence
	 * dropped whole */
	assert_contains(page, "<a class=\"ld-lineno\" href=\"logs/run.log.html#L2\">2</a>"
			      "<span class=\"hl-comment\">2024-03-30 14:09:44,001</span> "
			      "<span class=\"hl-error\">ERROR</span>: step "
			      "<span class=\"hl-number\">5</span> Loss=<span class=\"hl-number\">"
			      "7.125</span> red</span>\n");
	/* the log page: the anchor and the value's mark as before, the
	 * colours inside the mark */
	char *log = e2e_keep(e2e_read(project, "_site/r/logs/run.log.html"));
	assert_non_null(log);
	assert_contains(log, "<span class=\"ld-line\" id=\"L2\"><a class=\"ld-lineno\" "
			     "href=\"#L2\">2</a><span class=\"hl-comment\">2024-03-30 "
			     "14:09:44,001</span> <span class=\"hl-error\">ERROR</span>: step "
			     "<span class=\"hl-number\">5</span> Loss=<mark class=\"ld-mark\" "
			     "id=\"L2.1\"><span class=\"hl-number\">7.125</span></mark> red</span>");
	assert_contains(page, "href=\"logs/run.log.html#L2.1\"");
}

/* Pixels of the PDF's first page within 6 of rgb in each channel. */
static long pdf_pixels(unsigned rgb)
{
	char *pdf = path_join(project, "_site/r/report.pdf");
	long n = e2e_pdf_pixels(pdf, project, 100, rgb, 6);
	free(pdf);
	return n;
}

static void the_pdf_numbers_lines_outside_the_text_and_bands_the_highlighted(void **state)
{
	(void)state;
	int status;
	char *pdf = path_join(project, "_site/r/report.pdf");
	char *text = e2e_keep(e2e_sh(&status, "pdftotext -layout '%s' -", pdf));
	free(pdf);
	assert_int_equal(status, 0);
	/* the code as written, each line starting at the code's edge: no
	 * number before it (they are drawn, not written) */
	assert_contains(text, "#SBATCH -N 2\n");
	for (const char *p = strstr(text, "#SBATCH -N 2"); p && p > text && p[-1] != '\n'; p--)
		if (p[-1] >= '0' && p[-1] <= '9')
			fail_msg("a line number in the PDF's text:\n%s", text);
	assert_null(strstr(text, "10 #SBATCH"));
	assert_null(strstr(text, "11"));
	/* the band of the highlighted lines (#fff1c2): three lines' worth
	 * at 100 dpi, at least 3 x 500 x 8 pixels */
	long band = pdf_pixels(0xfff1c2);
	if (band < 3 * 500 * 8)
		fail_msg("the highlighted band has %ld pixels of #fff1c2", band);
}

/* Each bad attribute once, at its column, in the order written. */
static void bad_attributes_are_reported_at_their_columns(void **state)
{
	(void)state;
	char *dir = e2e_keep(e2e_project(E2E_FILES(E2E_TEXT(
		MD, "---\ntitle: Bad\n---\n"
		    "```python {hl_lines=\"5-3 x 0 9\" startFrom=ab hl_line=2 .numberlines}\n"
		    "a\n"
		    "```\n"
		    "\n"
		    "```python startline=3 $%@#$ hl_lines=\"1\"\n"
		    "a\n"
		    "```\n"))));
	struct proc r = e2e_keep_proc(e2e_run(dir, "build"));
	assert_int_equal(r.status, 1);
	const char *want =
		"content/r/index.md:4:22: error: hl_lines: the range 5-3 runs backwards (write 3-5)\n"
		"    4 | ```python {hl_lines=\"5-3 x 0 9\" startFrom=ab hl_line=2 .numberlines}\n"
		"      |                      ^~~\n"
		"content/r/index.md:4:26: error: hl_lines: 'x' is not a line or a range of lines, as "
		"in hl_lines=\"1 3-5\"\n"
		"    4 | ```python {hl_lines=\"5-3 x 0 9\" startFrom=ab hl_line=2 .numberlines}\n"
		"      |                          ^\n"
		"content/r/index.md:4:28: error: hl_lines: a code block's lines count from 1\n"
		"    4 | ```python {hl_lines=\"5-3 x 0 9\" startFrom=ab hl_line=2 .numberlines}\n"
		"      |                            ^\n"
		"content/r/index.md:4:30: warning: hl_lines: the block has 1 line; line 9 is past "
		"its end\n"
		"    4 | ```python {hl_lines=\"5-3 x 0 9\" startFrom=ab hl_line=2 .numberlines}\n"
		"      |                              ^\n"
		"content/r/index.md:4:43: error: startFrom: 'ab' is not a line number, as in "
		"startFrom=\"10\"\n"
		"    4 | ```python {hl_lines=\"5-3 x 0 9\" startFrom=ab hl_line=2 .numberlines}\n"
		"      |                                           ^~\n"
		"content/r/index.md:4:46: error: a code block has no attribute 'hl_line' (did you "
		"mean 'hl_lines'?)\n"
		"    4 | ```python {hl_lines=\"5-3 x 0 9\" startFrom=ab hl_line=2 .numberlines}\n"
		"      |                                              ^~~~~~~~~\n"
		"content/r/index.md:4:56: warning: a code block has no class 'numberlines': ignored "
		"(did you mean 'numberLines'?)\n"
		"    4 | ```python {hl_lines=\"5-3 x 0 9\" startFrom=ab hl_line=2 .numberlines}\n"
		"      |                                                        ^~~~~~~~~~~~\n"
		"logdown: 5 errors; the previous output was left as it was\n";
	if (strcmp(r.err, want) != 0)
		fail_msg("got:\n%s\nwant:\n%s", r.err, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbered_highlighted_lines_are_written_exactly),
		cmocka_unit_test(the_three_spellings_read_alike),
		cmocka_unit_test(the_copy_script_ships_with_the_page),
		cmocka_unit_test(log_excerpts_and_log_pages_are_coloured),
		cmocka_unit_test(the_pdf_numbers_lines_outside_the_text_and_bands_the_highlighted),
		cmocka_unit_test(bad_attributes_are_reported_at_their_columns),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
