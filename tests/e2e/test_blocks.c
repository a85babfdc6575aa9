/* test_blocks.c: callouts, figures from images and tabs in the PDF, read
 * back with poppler-utils as test_pdf.c reads a PDF: the callouts'
 * titles, the figures' captions and the tabs' titles in reading order
 * (pdftotext), the links of "Figure 2" to its figure (the file's own
 * objects), and the pixels of a callout's tint and bar and of an image
 * in a line of text (pdftoppm).  Their HTML and their diagnostics are
 * golden cases (tests/golden/callouts-*, images-alone-*, tabs-*,
 * bad-callouts-*). */
#include <cairo.h>

#include "e2e.h"

#define MD "content/r/index.md"

static const char report[] =
	"---\n"
	"title: Blocks\n"
	"runs:\n"
	"  cs512: logs/bs512.log\n"
	"---\n"
	"As @fig-loss shows, the loss falls; @fig-curve is the log's own.\n"
	"\n"
	"> [!NOTE]\n"
	"> The runs were repeated three times.\n"
	"\n"
	"> [!CAUTION]\n"
	"> The batch-1024 log is partial.\n"
	"\n"
	"```{chart}\n"
	"type: line\n"
	"caption: Loss per step\n"
	"label: fig-curve\n"
	"series: [cs512]\n"
	"x: train.step\n"
	"y: train.loss\n"
	"```\n"
	"\n"
	"![Loss curve](img/loss.png){#fig-loss width=60%}\n"
	"\n"
	"A green square ![ok](img/ok.png) in the line.\n"
	"\n"
	"::: tabs\n"
	"## Table tab\n"
	"The numbers.\n"
	"\n"
	"## Chart tab\n"
	"The picture.\n"
	":::\n"
	"\n"
	"After the tabs.\n";

static char *tmp;

static int cleanup(void **state)
{
	(void)state;
	e2e_drop(&tmp);
	return 0;
}

static char *sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *sh(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int st;
	char *out = e2e_shv(&st, fmt, ap);
	va_end(ap);
	if (st != 0) {
		free(out);
		return NULL;
	}
	return out;
}

static bool have_poppler(void)
{
	char *v = sh("command -v pdftotext && command -v pdftoppm");
	bool ok = v != NULL;
	free(v);
	if (!ok)
		print_message("poppler-utils is missing (tools/deps.sh installs it): skipped\n");
	return ok;
}

/* A w x h PNG of one colour at rel in tmp. */
static void png(const char *rel, int w, int h, double r, double g, double b)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cairo_t *cr = cairo_create(s);
	cairo_set_source_rgb(cr, r, g, b);
	cairo_paint(cr);
	cairo_destroy(cr);
	char *path = path_join(tmp, rel);
	assert_int_equal(cairo_surface_write_to_png(s, path), CAIRO_STATUS_SUCCESS);
	cairo_surface_destroy(s);
	free(path);
}

/* The project of report made into _site with `logdown pdf`, which says
 * nothing beyond its summary. */
static void build(void)
{
	tmp = e2e_tmpdir();
	e2e_write(tmp, MD, report);
	e2e_copy(tmp, "content/r/logs/bs512.log", "tests/fixtures/cerebras/bs512.log");
	e2e_write(tmp, "content/r/img/.keep", "");
	png("content/r/img/loss.png", 400, 200, 0.8, 0.1, 0.1);
	png("content/r/img/ok.png", 40, 40, 0.0, 0.6, 0.2);
	struct proc r = e2e_run(tmp, "pdf");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	proc_free(&r);
}

static char *pdf_path(void)
{
	return path_join(tmp, "_site/r/report.pdf");
}

/* Asserts that the words come in this order in the PDF's text, read
 * with every run of white space as one space. */
static void in_order(const char *const *words)
{
	char *p = pdf_path();
	char *raw = sh("pdftotext -enc UTF-8 '%s' -", p);
	free(p);
	assert_non_null(raw);
	struct buf flat = BUF_INIT;
	for (const char *s = raw; *s; s++) {
		if (*s != ' ' && *s != '\n' && *s != '\f')
			buf_putc(&flat, *s);
		else if (flat.len && buf_data(&flat)[flat.len - 1] != ' ')
			buf_putc(&flat, ' ');
	}
	const char *at = buf_data(&flat);
	for (size_t i = 0; words[i]; i++) {
		const char *q = strstr(at, words[i]);
		if (!q)
			fail_msg("'%s' missing after '%s' in:\n%s", words[i], i ? words[i - 1] : "",
				 buf_data(&flat));
		at = q + strlen(words[i]);
	}
	buf_free(&flat);
	free(raw);
}

/* Pixels of page 1 within 12 of colour rgb (0xRRGGBB), at 72 dpi. */
static long page_pixels(unsigned rgb)
{
	char *p = pdf_path();
	long n = e2e_pdf_pixels(p, tmp, 72, rgb, 12);
	free(p);
	return n;
}

static void callout_titles_figure_captions_and_tab_titles_read_in_order(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	build();
	static const char *const words[] = {
		"As Figure 2 shows", "Figure 1 is the log's own.",
		"Note", "The runs were repeated three times.",
		"Caution", "The batch-1024 log is partial.",
		"Figure 1: Loss per step",
		"Figure 2: Loss curve",
		"A green square", "in the line.",
		"Table tab", "The numbers.", "Chart tab", "The picture.",
		"After the tabs.",
		NULL,
	};
	in_order(words);
}

static void figure_references_link_to_the_image(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	build();
	char *p = pdf_path();
	struct buf pdf = BUF_INIT;
	assert_true(file_read(p, &pdf, NULL));
	free(p);
	const char *want[] = {"/Dest (fig-loss)", "/Dest (fig-curve)"};
	for (size_t i = 0; i < 2; i++) {
		bool found = false;
		for (size_t k = 0; !found && k + strlen(want[i]) <= pdf.len; k++)
			found = memcmp(pdf.data + k, want[i], strlen(want[i])) == 0;
		if (!found)
			fail_msg("no link %s in the PDF", want[i]);
	}
	buf_free(&pdf);
}

/* A callout is on its tint with its bar (the light theme's colours, in
 * resolve/callout.c), and the image in the line is drawn, not "[ok]". */
static void a_callout_is_tinted_and_an_image_in_a_line_is_drawn(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	build();
	long tint = page_pixels(0xeef5fe), bar = page_pixels(0x0969da);
	long caution = page_pixels(0xfdf0ef), green = page_pixels(0x009933);
	/* 72 dpi: a callout of two lines is some 450 x 35 pixels, its bar 3
	 * wide; the image in the line one em, 10 x 10 */
	if (tint < 5000 || caution < 5000)
		fail_msg("callout tints: %ld and %ld pixels", tint, caution);
	if (bar < 60)
		fail_msg("the note's bar: %ld pixels", bar);
	if (green < 50)
		fail_msg("the image in the line: %ld green pixels", green);
	char *p = pdf_path();
	char *text = sh("pdftotext -enc UTF-8 '%s' -", p);
	free(p);
	assert_non_null(text);
	assert_null(strstr(text, "[ok]"));
	free(text);
}

#define TEST(f) cmocka_unit_test_teardown(f, cleanup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(callout_titles_figure_captions_and_tab_titles_read_in_order),
		TEST(figure_references_link_to_the_image),
		TEST(a_callout_is_tinted_and_an_image_in_a_line_is_drawn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
