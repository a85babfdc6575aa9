/* test_pdf.c: `logdown pdf` as a user runs it (SPEC section 11), read
 * back with poppler-utils the way a reader's viewer reads it: the text
 * in reading order (pdftotext), page size, count and metadata (pdfinfo),
 * embedded fonts (pdffonts), where every word sits on its page
 * (pdftotext -bbox: nothing past the margins), and the pixels of the
 * page that holds a chart (pdftoppm).  Bookmarks, links and the
 * creation date are read from the file's own objects (cairo writes
 * them uncompressed).
 *
 * The project of most tests is content/r/index.md with the seed
 * Cerebras log tests/fixtures/cerebras/bs512.log (final loss 7.12500,
 * logged on line 53) and every Markdown construct the PDF has a print
 * form for. */
#include <cairo.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <sys/stat.h>
#include <time.h>

#include "e2e.h"

#define FIXTURES "tests/fixtures/cerebras/"
#define MD "content/r/index.md"

static const char report[] =
	"---\n"
	"title: PDF fixture report\n"
	"author: A. Student\n"
	"date: 2024-04-08\n"
	"runs:\n"
	"  cs512: logs/bs512.log\n"
	"---\n"
	"Intro paragraph with *italic*, **bold**, `code` and ~~struck~~ words.\n"
	"The final loss was {{ cs512.final_loss }} after {{ cs512.final_step }} steps\n"
	"(see @tbl-sweep and @fig-loss). A [link](https://example.org/page) too.[^1]\n"
	"\n"
	"## Setup\n"
	"\n"
	"> A quoted remark\n"
	"> over two lines.\n"
	"\n"
	"1. first step\n"
	"   - nested bullet\n"
	"2. second step\n"
	"\n"
	"- [x] done task\n"
	"- [ ] open task\n"
	"\n"
	"```sh\n"
	"srun --ntasks 8 ./train --a-very-long-option-name=with-a-long-value "
	"--another-long-option=and-another-value --yet-another=1234567890 END_OF_CODE\n"
	"```\n"
	"\n"
	"## Results\n"
	"\n"
	"```{table}\n"
	"caption: Sweep\n"
	"label: tbl-sweep\n"
	"rows: [cs512]\n"
	"columns:\n"
	"  Run: name\n"
	"  Final loss: final_loss\n"
	"```\n"
	"\n"
	"| Name | Value |\n"
	"|------|------:|\n"
	"| alpha | 1 |\n"
	"| beta | 22 |\n"
	"\n"
	"```{log}\n"
	"from: cs512\n"
	"match: 'Step=1000,'\n"
	"```\n"
	"\n"
	"```{chart}\n"
	"type: line\n"
	"caption: Loss per step\n"
	"label: fig-loss\n"
	"series: [cs512]\n"
	"x: train.step\n"
	"y: train.loss\n"
	"```\n"
	"\n"
	"***\n"
	"\n"
	"Closing words.\n"
	"\n"
	"[^1]: The footnote text.\n";

static char *tmp;

static int cleanup(void **state)
{
	(void)state;
	e2e_drop(&tmp);
	return 0;
}

/* Runs a shell command; its stdout, or NULL when it fails. */
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
	char *v = sh("command -v pdftotext && command -v pdfinfo && command -v pdftoppm && "
		     "command -v pdffonts");
	bool ok = v != NULL;
	free(v);
	if (!ok)
		print_message("poppler-utils is missing (tools/deps.sh installs it): skipped\n");
	return ok;
}

/* A project with the report and its log; returns its folder (tmp). */
static const char *project(const char *md, const char *site)
{
	tmp = e2e_tmpdir();
	if (site)
		e2e_write(tmp, "site.yaml", site);
	e2e_write(tmp, MD, md);
	e2e_copy(tmp, "content/r/logs/bs512.log", FIXTURES "bs512.log");
	return tmp;
}

/* The project of md and site (see project()) made into _site with
 * `logdown pdf`, which must succeed. */
static void pdf_of(const char *md, const char *site)
{
	project(md, site);
	e2e_ok(tmp, "pdf");
}

/* Runs `logdown pdf` in tmp, which must succeed without a word beyond
 * its summary. */
static void pdf_quiet(void)
{
	struct proc r = e2e_run(tmp, "pdf");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	proc_free(&r);
}

static char *pdf_path(void)
{
	return path_join(tmp, "_site/r/report.pdf");
}

/* pdftotext of the report, in reading order, pages apart by \f. */
static char *pdf_text(void)
{
	char *p = pdf_path();
	char *t = sh("pdftotext -enc UTF-8 '%s' -", p);
	free(p);
	assert_non_null(t);
	return t;
}

static char *pdf_info(void)
{
	char *p = pdf_path();
	char *t = sh("pdfinfo '%s'", p);
	free(p);
	assert_non_null(t);
	return t;
}

static char *pdf_bytes(size_t *len)
{
	char *p = pdf_path();
	struct buf b = BUF_INIT;
	assert_true(file_read(p, &b, NULL));
	free(p);
	*len = b.len;
	return buf_detach(&b);
}

static bool mem_has(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= len; i++)
		if (memcmp(hay + i, needle, n) == 0)
			return true;
	return false;
}

static long info_number(const char *info, const char *key)
{
	const char *p = strstr(info, key);
	assert_non_null(p);
	return strtol(p + strlen(key), NULL, 10);
}

/* Pixels of page 1 near colour rgb (0xRRGGBB). */
static long page_pixels(unsigned rgb)
{
	char *p = pdf_path();
	long n = e2e_pdf_pixels(p, tmp, 60, rgb, 24);
	free(p);
	return n;
}

/* Asserts that the words come in this order in text, read with every
 * run of white space (a line's end) as one space. */
static void in_order(const char *raw, const char *const *words)
{
	struct buf flat = BUF_INIT;
	for (const char *s = raw; *s; s++) {
		bool blank = *s == ' ' || *s == '\n' || *s == '\f';
		if (!blank)
			buf_putc(&flat, *s);
		else if (flat.len && buf_data(&flat)[flat.len - 1] != ' ')
			buf_putc(&flat, ' ');
	}
	const char *text = buf_data(&flat);
	const char *p = text;
	for (size_t i = 0; words[i]; i++) {
		const char *q = strstr(p, words[i]);
		if (!q)
			fail_msg("'%s' missing after '%s' in:\n%s", words[i], i ? words[i - 1] : "",
				 text);
		p = q + strlen(words[i]);
	}
	buf_free(&flat);
}

/* Every word lies inside the page, a margin's part away from its edges:
 * nothing runs off a page. */
static void words_inside(double margin)
{
	char *p = pdf_path();
	char *html = sh("pdftotext -bbox '%s' -", p);
	free(p);
	assert_non_null(html);
	double pw = 0, ph = 0;
	size_t words = 0;
	for (const char *s = html; (s = strstr(s, "<")) != NULL; s++) {
		double a, b, c, d;
		if (sscanf(s, "<page width=\"%lf\" height=\"%lf\"", &a, &b) == 2) {
			pw = a;
			ph = b;
		} else if (sscanf(s, "<word xMin=\"%lf\" yMin=\"%lf\" xMax=\"%lf\" yMax=\"%lf\"", &a,
				  &b, &c, &d) == 4) {
			words++;
			if (a < margin || b < margin || c > pw - margin || d > ph - margin / 2) {
				const char *end = strstr(s, "</word>");
				fail_msg("a word lies outside the page (%.1f %.1f %.1f %.1f on %.0fx%.0f): "
					 "%.60s",
					 a, b, c, d, pw, ph, end ? strchr(s, '>') + 1 : s);
			}
		}
	}
	assert_true(words > 0);
	free(html);
}

/* One box as the layout placed it (LOGDOWN_PDF_LAYOUT, pdf.h). */
struct placed {
	int page;
	double y, h;
	char kind[8];
	int block, floated;
	long order;
};

struct layout {
	double top, bottom;
	int pages;
	struct placed *b;
	size_t n;
};

static void layout_read(struct layout *l, const char *file)
{
	struct buf t = BUF_INIT;
	assert_true(file_read(file, &t, NULL));
	memset(l, 0, sizeof *l);
	const char *s = buf_data(&t);
	assert_int_equal(sscanf(s, "body\t%lf\t%lf\t%d", &l->top, &l->bottom, &l->pages), 3);
	for (s = strchr(s, '\n'); s && s[1]; s = strchr(s + 1, '\n')) {
		l->b = xrealloc(l->b, (l->n + 1) * sizeof *l->b);
		struct placed *x = &l->b[l->n++];
		assert_int_equal(sscanf(s + 1, "%d\t%lf\t%lf\t%7s\t%d\t%d\t%ld", &x->page, &x->y,
					&x->h, x->kind, &x->block, &x->floated, &x->order),
				 7);
	}
	buf_free(&t);
	assert_true(l->n > 0);
}

/* The lowest box on page pg (from 1): its bottom. */
static double layout_low(const struct layout *l, int pg)
{
	double low = l->top;
	for (size_t k = 0; k < l->n; k++)
		if (l->b[k].page == pg && l->b[k].y + l->b[k].h > low)
			low = l->b[k].y + l->b[k].h;
	return low;
}

/* The page rules of docs/manual.md#pdfs, on the layout of one report:
 *   - no page is more than a quarter blank at its foot, unless a
 *     section ends there (the next page's text starts with a heading)
 *     or the document does;
 *   - a code block or excerpt of up to 8 lines is on one page; a longer
 *     one leaves at least 3 of its lines on each page it is on;
 *   - figures come in their written order.
 * And the record agrees with the PDF as read back: on each page the
 * lowest word (pdftotext -bbox, the footer left out) ends where the
 * lowest box does, less its padding.  Returns the floated boxes. */
static size_t page_rules(const char *name, const char *tsv, const char *pdf)
{
	struct layout l;
	layout_read(&l, tsv);
	double body = l.bottom - l.top;
	for (int pg = 1; pg < l.pages; pg++) {
		double blank = (l.bottom - layout_low(&l, pg)) / body;
		const struct placed *next = NULL;
		for (size_t k = 0; k < l.n && !next; k++)
			if (l.b[k].page == pg + 1 && !l.b[k].floated)
				next = &l.b[k];
		bool section_ends = next && strcmp(next->kind, "head") == 0;
		if (blank > 0.25 && !section_ends)
			fail_msg("%s: page %d of %d is %.0f%% blank at its foot (%.0f pt of %.0f) and "
				 "no section ends there",
				 name, pg, l.pages, blank * 100, blank * body, body);
	}
	int blocks = 0;
	for (size_t k = 0; k < l.n; k++)
		blocks = l.b[k].block > blocks ? l.b[k].block : blocks;
	for (int bl = 1; bl <= blocks; bl++) {
		int total = 0, on[4096] = {0}, first = 0, last = 0;
		const char *kind = "";
		for (size_t k = 0; k < l.n; k++) {
			if (l.b[k].block != bl)
				continue;
			total++;
			kind = l.b[k].kind;
			assert_true(l.b[k].page < 4096);
			on[l.b[k].page]++;
			first = first ? first : l.b[k].page;
			last = l.b[k].page;
		}
		if (total <= 8 && first != last)
			fail_msg("%s: %s block %d of %d lines is split over pages %d-%d", name, kind,
				 bl, total, first, last);
		for (int pg = first; pg <= last; pg++)
			if (first != last && on[pg] < 3)
				fail_msg("%s: %s block %d of %d lines leaves %d of them on page %d", name,
					 kind, bl, total, on[pg], pg);
	}
	long fig = -1;
	size_t floated = 0;
	for (size_t k = 0; k < l.n; k++) {
		floated += l.b[k].floated != 0;
		if (strcmp(l.b[k].kind, "figure") != 0)
			continue;
		if (l.b[k].order < fig)
			fail_msg("%s: a figure (box %ld) is placed after a later one", name,
				 l.b[k].order);
		fig = l.b[k].order;
	}
	/* the record against the PDF's words */
	char *html = sh("pdftotext -bbox '%s' -", pdf);
	assert_non_null(html);
	int pg = 0;
	double lowest = 0;
	for (const char *s = html;; s++) {
		s = strstr(s, "<");
		double a, b, c, d;
		bool page = s && str_has_prefix(s, "<page ");
		if (!s || page) {
			if (pg) {
				double low = layout_low(&l, pg);
				if (lowest > low + 1 || lowest < low - 8)
					fail_msg("%s: page %d: the lowest word ends at %.1f pt, the layout "
						 "says %.1f",
						 name, pg, lowest, low);
			}
			if (!s)
				break;
			pg++;
			lowest = 0;
		} else if (sscanf(s, "<word xMin=\"%lf\" yMin=\"%lf\" xMax=\"%lf\" yMax=\"%lf\"", &a,
				  &b, &c, &d) == 4 &&
			   d < l.bottom + 10 && d > lowest) {
			lowest = d;
		}
	}
	assert_int_equal(pg, l.pages);
	free(html);
	free(l.b);
	return floated;
}

static void example_reports_keep_the_page_rules(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	tmp = e2e_tmpdir();
	char *lay = path_join(tmp, "layout");
	assert_int_equal(mkdir(lay, 0777), 0);
	setenv("LOGDOWN_PDF_LAYOUT", lay, 1);
	char *cwd = getcwd(NULL, 0);
	e2e_ok(cwd, "pdf . -o '%s/_site'", tmp);
	unsetenv("LOGDOWN_PDF_LAYOUT");
	free(cwd);
	size_t n;
	char **names = dir_list(lay, &n);
	assert_non_null(names);
	assert_true(n >= 4);
	size_t floated = 0;
	for (size_t i = 0; i < n; i++) {
		char *tsv = path_join(lay, names[i]);
		char *slug = xstrndup(names[i], strlen(names[i]) - 4);
		char *pdf = xasprintf("%s/_site/%s/report.pdf", tmp, slug);
		floated += page_rules(slug, tsv, pdf);
		free(pdf);
		free(slug);
		free(tsv);
	}
	/* the rules hold because figures move, not by luck */
	assert_true(floated > 0);
	strv_free(names);
	free(lay);
}

/* A long report of sections with paragraphs, code blocks of 2 to 18
 * lines, excerpts of 1 to 14 lines and charts, where page breaks fall
 * everywhere: the same rules hold.  (Laid out without floats, or with
 * code blocks free to break anywhere, it fails them.) */
static void floats_and_blocks_keep_the_page_rules(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	struct buf md = BUF_INIT;
	buf_puts(&md, "---\ntitle: T\nruns:\n  cs512: logs/bs512.log\n---\n");
	static const char words[] = "words words words words words words words words words words "
				    "words words words words";
	/* first a chart that does not fit in the last 28% of page 1, nor
	 * when drawn smaller: without floating, that much stays blank */
	buf_puts(&md, "## Opening\n\n");
	for (int k = 0; k < 11; k++)
		buf_printf(&md, "Lead%d %s. %s.\n\n", k, words, words);
	buf_puts(&md, "```{chart}\ntype: line\ncaption: Loss\nseries: [cs512]\nx: train.step\n"
		      "y: train.loss\n```\n\n");
	for (int i = 1; i <= 24; i++) {
		buf_printf(&md, "## Section %d\n\n", i);
		for (int k = 0; k < 3 + i % 4; k++)
			buf_printf(&md, "Para%d %s. ", i, words);
		buf_puts(&md, "\n\n");
		if (i % 3 == 0)
			buf_printf(&md, "```{chart}\ntype: line\ncaption: Loss in section %d\n"
					"series: [cs512]\nx: train.step\ny: train.loss\n```\n\n",
				   i);
		for (int k = 0; k < 2 + i % 3; k++)
			buf_printf(&md, "After%d %s. ", i, words);
		buf_puts(&md, "\n\n```\n");
		for (int k = 0; k < 2 + (i * 5) % 17; k++)
			buf_printf(&md, "code%d line %d --opt=%d\n", i, k, k);
		buf_puts(&md, "```\n\n");
		if (i % 4 == 1)
			buf_printf(&md, "```{log}\nfrom: cs512\nlines: 10-%d\n```\n\n", 10 + (i * 3) % 14);
		for (int k = 0; k < 1 + i % 2; k++)
			buf_printf(&md, "Tail%d %s. ", i, words);
		buf_puts(&md, "\n\n");
	}
	project(buf_data(&md), NULL);
	buf_free(&md);
	char *lay = path_join(tmp, "layout");
	assert_int_equal(mkdir(lay, 0777), 0);
	setenv("LOGDOWN_PDF_LAYOUT", lay, 1);
	pdf_quiet();
	unsetenv("LOGDOWN_PDF_LAYOUT");
	char *tsv = path_join(lay, "r.tsv");
	char *pdf = pdf_path();
	assert_true(page_rules("r", tsv, pdf) > 0);
	free(pdf);
	free(tsv);
	free(lay);
}

/* A value's link leads to its entry in the appendix "Sources", which
 * names the file and line; the entry links to the log's page. */
static void values_link_to_a_sources_appendix(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	char *md = xasprintf("%s\nBatch {{ cs512.batch_size }}, {{ cs512.samples }} samples, "
			     "loss {{ cs512.final_loss }} again.\n",
			     report);
	pdf_of(md, NULL);
	free(md);
	char *t = pdf_text();
	/* numbered in the order of first use; a line used twice (line 53:
	 * the final loss and step, in the text and in the table) is one
	 * entry */
	static const char *const words[] = {
		"The final loss was 7.12500 after 1000 steps",
		"Closing words.",
		"Batch 512, 512000 samples, loss 7.12500 again.",
		"The footnote text.",
		"Sources",
		"1. logs/bs512.log, line 53",
		"2. logs/bs512.log, line 1",
		"3. logs/bs512.log, line 58",
		NULL,
	};
	in_order(t, words);
	assert_null(strstr(t, "4. logs/"));
	free(t);
	size_t len;
	char *pdf = pdf_bytes(&len);
	/* the values lead to the entries, named destinations of the file */
	assert_true(mem_has(pdf, len, "/Dest (ld-src-1)"));
	assert_true(mem_has(pdf, len, "/Dest (ld-src-2)"));
	assert_true(mem_has(pdf, len, "/Dest (ld-src-3)"));
	assert_false(mem_has(pdf, len, "/Dest (ld-src-4)"));
	assert_true(mem_has(pdf, len, "(ld-src-1) ["));
	assert_true(mem_has(pdf, len, "(ld-src-3) ["));
	assert_true(mem_has(pdf, len, "/Title (Sources)"));
	/* and the entries, like the excerpt's line numbers, to the log's
	 * page, which works while the PDF sits in the site */
	assert_true(mem_has(pdf, len, "/URI (logs/bs512.log.html#L53)"));
	assert_true(mem_has(pdf, len, "/URI (logs/bs512.log.html#L58)"));
	free(pdf);
}

/* With an absolute base_url, values link to the line on the site, and
 * there is no appendix. */
static void an_absolute_base_url_gives_absolute_links(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	static const char *const bases[] = {"https://example.org/site/", "https://example.org/site"};
	for (size_t i = 0; i < ARRAY_LEN(bases); i++) {
		char *site = xasprintf("base_url: %s\n", bases[i]);
		pdf_of(report, site);
		free(site);
		size_t len;
		char *pdf = pdf_bytes(&len);
		assert_true(mem_has(pdf, len, "/URI (https://example.org/site/r/logs/bs512.log.html#L53)"));

		assert_false(mem_has(pdf, len, "/URI (logs/bs512.log.html"));
		assert_false(mem_has(pdf, len, "ld-src-"));
		free(pdf);
		char *t = pdf_text();
		assert_null(strstr(t, "Sources"));
		free(t);
		e2e_drop(&tmp);
	}
	/* a base_url without a host is not absolute: the appendix */
	pdf_of(report, "base_url: /site/\n");
	char *t = pdf_text();
	assert_contains(t, "1. logs/bs512.log, line 53");
	free(t);
}

/* A command line breaks at its spaces before it breaks inside a word:
 * every option of the fixture's srun line stays whole on its line. */
static void a_command_line_breaks_at_its_spaces(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	pdf_of("---\ntitle: T\n---\n"
	       "```sh\n"
	       "srun --ntasks 8 --ntasks-per-node=4 ./train --a-very-long-option-name=with-a-long-value "
	       "--another-long-option=and-another-value --yet-another=1234567890 --nodes 1 "
	       "--gres=gpu:4 --cpus-per-task=8 END_OF_CODE\n"
	       "```\n\n"
	       "Run it with `srun --ntasks 8 --ntasks-per-node=4 --cpus-per-task=8 "
	       "--a-very-long-option-name=with-a-long-value --gres=gpu:4` and wait, then run "
	       "`sbatch --output=${HOME}/slurm-%A.out --ntasks-per-node=8 job.sh` again.\n",
	       NULL);
	char *t = pdf_text();
	static const char *const whole[] = {
		"--ntasks-per-node=4", "--a-very-long-option-name=with-a-long-value",
		"--another-long-option=and-another-value", "--yet-another=1234567890",
		"--gres=gpu:4", "--cpus-per-task=8", "--output=${HOME}/slurm-%A.out",
		"--ntasks-per-node=8",
	};
	for (size_t i = 0; i < ARRAY_LEN(whole); i++) {
		size_t n = 0;
		for (const char *s = t; (s = strstr(s, whole[i])) != NULL; s++)
			n++;
		if (n < 1)
			fail_msg("'%s' is broken across lines:\n%s", whole[i], t);
	}
	/* and it did wrap: the code is wider than the page */
	const char *c = strstr(t, "srun --ntasks 8");
	assert_non_null(c);
	assert_true(strchr(c, '\n') < strstr(c, "END_OF_CODE"));
	free(t);
}

static void writes_a_pdf_of_every_report(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	project(report, NULL);
	struct proc r = e2e_run(tmp, "pdf");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "logdown: built 1 report into _site\n");
	/* the page is still there, beside the PDF, and links to it */
	char *page = e2e_read(tmp, "_site/r/index.html");
	assert_contains(page, "<a class=\"ld-nav-link\" href=\"report.pdf\">PDF</a>\n"
			      "<div class=\"ld-search\"");
	free(page);
	proc_free(&r);
	r = e2e_run(tmp, "build -o plain");
	page = e2e_read(tmp, "plain/r/index.html");
	assert_contains(page, "All reports</a>\n<div class=\"ld-search\"");
	assert_not_contains(page, "report.pdf");
	free(page);
	char *info = pdf_info();
	assert_contains(info, "Title:           PDF fixture report\n");
	assert_contains(info, "Author:          A. Student\n");
	assert_contains(info, "Page size:       595.276 x 841.89 pts (A4)\n");
	assert_not_contains(info, "CreationDate");
	free(info);
	proc_free(&r);
}

static void text_is_in_reading_order_with_the_values(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	pdf_of(report, NULL);
	char *t = pdf_text();
	static const char *const words[] = {
		"PDF fixture report",
		"A. Student",
		"2024-04-08",
		"Intro paragraph with italic, bold, code and struck words.",
		"The final loss was 7.12500 after 1000 steps",
		"(see Table 1 and Figure 1). A link too.1",
		"Setup",
		"A quoted remark over two lines.",
		"first step",
		"nested bullet",
		"second step",
		"done task",
		"open task",
		"srun --ntasks 8",
		"END_OF_CODE",
		"Results",
		"Table 1: Sweep",
		"Run",
		"Final loss",
		"cs512",
		"7.12500",
		"Name",
		"Value",
		"alpha",
		"beta",
		"22",
		"53",
		"Step=1000, Loss=7.12500",
		"Figure 1: Loss per step",
		"Closing words.",
		"The footnote text.",
		NULL,
	};
	in_order(t, words);
	/* the task list's boxes, checked and not */
	assert_contains(t, "\xE2\x98\x91");
	assert_contains(t, "\xE2\x98\x90");
	/* page numbers */
	assert_contains(t, "1/2");
	assert_contains(t, "2/2");
	free(t);
}

static void fonts_are_embedded(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	pdf_of(report, NULL);
	char *p = pdf_path();
	char *fonts = sh("pdffonts '%s'", p);
	free(p);
	assert_non_null(fonts);
	assert_contains(fonts, "DejaVuSerif");
	assert_contains(fonts, "DejaVuSans-Bold");
	assert_contains(fonts, "DejaVuSansMono");
	/* every font: emb is the 5th column from the end */
	const char *line = strstr(fonts, "-----");
	assert_non_null(line);
	int rows = 0;
	for (line = strchr(line, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		char *copy = xstrndup(line + 1, strcspn(line + 1, "\n"));
		char *tok[32];
		int n = 0;
		for (char *s = strtok(copy, " "); s && n < 32; s = strtok(NULL, " "))
			tok[n++] = s;
		assert_true(n >= 5);
		if (strcmp(tok[n - 5], "yes") != 0)
			fail_msg("font not embedded: %s", line + 1);
		rows++;
		free(copy);
	}
	assert_true(rows >= 3);
	free(fonts);
}

static void headings_are_bookmarks_and_links_work(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	pdf_of(report, NULL);
	size_t len;
	char *pdf = pdf_bytes(&len);
	assert_true(mem_has(pdf, len, "/Outlines"));
	assert_true(mem_has(pdf, len, "/Title (Setup)"));
	assert_true(mem_has(pdf, len, "/Title (Results)"));
	/* an external link, a value's link to its log line, and the
	 * internal links of "Table 1" and "Figure 1" */
	assert_true(mem_has(pdf, len, "/URI (https://example.org/page)"));
	assert_true(mem_has(pdf, len, "/URI (logs/bs512.log.html#L53)"));
	assert_true(mem_has(pdf, len, "/Dest (fig-loss)"));
	assert_true(mem_has(pdf, len, "/Dest (tbl-sweep)"));
	/* the chart is drawn, not pasted as a picture */
	assert_false(mem_has(pdf, len, "/Subtype /Image"));
	free(pdf);
}

/* The chart's first series is Okabe-Ito blue (0x0072B2): some pixels
 * of the page must be that colour. */
static void chart_colour_is_on_its_page(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	pdf_of(report, NULL);
	long blue = page_pixels(0x0072B2);
	if (blue < 20)
		fail_msg("only %ld pixels of the first series' blue on the chart's page", blue);
}

static void same_input_same_bytes(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	project(report, NULL);
	e2e_ok(tmp, "pdf -o out1");
	e2e_ok(tmp, "pdf -o out2");
	char *a = path_join(tmp, "out1/r/report.pdf"), *b = path_join(tmp, "out2/r/report.pdf");
	struct buf x = BUF_INIT, y = BUF_INIT;
	assert_true(file_read(a, &x, NULL));
	assert_true(file_read(b, &y, NULL));
	assert_int_equal(x.len, y.len);
	assert_memory_equal(x.data, y.data, x.len);
	assert_false(mem_has(x.data, x.len, "/CreationDate"));
	buf_free(&x);
	buf_free(&y);
	free(a);
	free(b);
	/* with SOURCE_DATE_EPOCH, that date and no other */
	char *cmd = xasprintf("cd '%s' && SOURCE_DATE_EPOCH=1712534400 '%s' pdf -o out3 2>&1 && "
			      "pdfinfo -isodates out3/r/report.pdf",
			      tmp, e2e_binary());
	char *info = sh("%s", cmd);
	assert_non_null(info);
	assert_contains(info, "CreationDate:    2024-04-08T00:00:00");
	free(info);
	free(cmd);
}

static void paper_letter_and_build_pdf(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	project(report, "paper: letter\n");
	e2e_ok(tmp, "build --pdf");
	char *info = pdf_info();
	assert_contains(info, "Page size:       612 x 792 pts (letter)\n");
	free(info);
	/* without --pdf, build writes no PDF */
	e2e_ok(tmp, "build -o plain");
	char *none = e2e_read(tmp, "plain/r/report.pdf");
	assert_null(none);
}

/* check --pdf lays the PDFs out (their warnings) and writes nothing;
 * check --against a site built by logdown pdf needs --pdf. */
static void check_lays_out_and_compares_pdfs(void **state)
{
	(void)state;
	project("---\ntitle: T\n---\n![gone](gone.png)\n", NULL);
	struct proc r = e2e_run(tmp, "check --pdf");
	assert_int_equal(r.status, 0);
	/* the page's check says it, once: the PDF, not again */
	assert_string_equal(r.err, "content/r/index.md:4:1: warning: image 'gone.png' does not "
				   "exist: the page would show a broken image (fix the path, or put "
				   "the file there)\n"
				   "    4 | ![gone](gone.png)\n"
				   "      | ^\n"
				   "logdown: checked 1 report\n");
	char *none = e2e_read(tmp, "_site/r/report.pdf");
	assert_null(none);
	proc_free(&r);
	e2e_ok(tmp, "pdf");
	r = e2e_run(tmp, "check --against _site --pdf");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "logdown: checked 1 report; _site is up to date\n");
	proc_free(&r);
	r = e2e_run(tmp, "check --against _site");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "_site/r/report.pdf: error: a build no longer writes it");
	proc_free(&r);
}

static void bad_paper_is_an_error(void **state)
{
	(void)state;
	project(report, "paper: a5\n");
	struct proc r = e2e_run(tmp, "pdf");
	assert_int_equal(r.status, 1);
	assert_contains(r.err, "site.yaml:1:8: error: paper must be 'a4' or 'letter', not 'a5'");
	proc_free(&r);
}

static void help_and_usage(void **state)
{
	(void)state;
	tmp = e2e_tmpdir();
	struct proc r = e2e_run(tmp, "pdf --help");
	assert_int_equal(r.status, 0);
	assert_contains(r.out, "usage: logdown pdf [DIR]");
	assert_contains(r.out, "paper: letter");
	proc_free(&r);
	r = e2e_run(tmp, "pdf --bogus");
	assert_int_equal(r.status, 2);
	assert_contains(r.err, "logdown: unknown option '--bogus'\n\nusage: logdown pdf");
	proc_free(&r);
	r = e2e_run(tmp, "--help");
	assert_contains(r.out, "  pdf [DIR]     build the site and a PDF of every report");
	proc_free(&r);
}

static void missing_image_is_a_warning_and_a_description(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	project("---\ntitle: T\n---\nBefore.\n\n![the loss curve](img/loss.png)\n\nAfter.\n",
		NULL);
	struct proc r = e2e_run(tmp, "pdf");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "content/r/index.md:6:1: warning: image 'img/loss.png' does not "
			       "exist: the page would show a broken image (fix the path, or put the "
			       "file there)\n");
	assert_null(strstr(r.err, "the PDF shows its description"));
	char *t = pdf_text();
	static const char *const words[] = {"Before.", "[image: the loss curve] img/loss.png",
					    "After.", NULL};
	in_order(t, words);
	free(t);
	proc_free(&r);
}

/* A link in the bundle that leads out of the project is not followed. */
static void image_outside_the_project_is_not_read(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	project("---\ntitle: T\n---\n![secret](secret.svg)\n", NULL);
	char *out = path_join(tmp, "../logdown-pdf-outside.svg");
	static const char svg[] =
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>";
	assert_true(file_write(out, svg, strlen(svg)));
	char *link = path_join(tmp, "content/r/secret.svg");
	assert_int_equal(symlink(out, link), 0);
	struct proc r = e2e_run(tmp, "pdf");
	assert_contains(r.err, "content/r/index.md:4:1: warning: image 'secret.svg' leads outside "
			       "the project: logdown copies nothing from there (copy the file into "
			       "the report's folder)\n");
	assert_null(strstr(r.err, "the PDF shows its description"));
	unlink(out);
	free(out);
	free(link);
	proc_free(&r);
}

static void a_png_image_is_drawn(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	project("---\ntitle: T\n---\n![a dot](dot.png)\n", NULL);
	/* a 40x30 PNG, drawn here */
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 40, 30);
	cairo_t *cr = cairo_create(s);
	cairo_set_source_rgb(cr, 0.8, 0.1, 0.1);
	cairo_paint(cr);
	cairo_destroy(cr);
	char *path = path_join(tmp, "content/r/dot.png");
	assert_int_equal(cairo_surface_write_to_png(s, path), CAIRO_STATUS_SUCCESS);
	cairo_surface_destroy(s);
	free(path);
	pdf_quiet();
	size_t len;
	char *pdf = pdf_bytes(&len);
	assert_true(mem_has(pdf, len, "/Subtype /Image"));
	free(pdf);
}

/* A report of a green SVG box, 200 by 100 pixels, and a line after it. */
static void green_box_project(void)
{
	project("---\ntitle: T\n---\n![a green box](box.svg)\n\nAfter the box.\n", NULL);
	e2e_write(tmp, "content/r/box.svg",
		  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"100\">"
		  "<rect x=\"10\" y=\"10\" width=\"180\" height=\"80\" fill=\"#00a000\"/></svg>\n");
}

static void svg_image_is_drawn_as_vectors(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	green_box_project();
	pdf_quiet();
	size_t len;
	char *pdf = pdf_bytes(&len);
	assert_false(mem_has(pdf, len, "/Subtype /Image"));
	free(pdf);
	assert_true(page_pixels(0x00a000) > 1000);
}

/* An <img> in the author's raw HTML is left out of the PDF, as all raw
 * HTML is: a warning at its tag gives the Markdown that draws it, and
 * that Markdown, written instead, does. */
static void raw_html_images_are_warned_of_with_the_markdown_that_prints_them(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	green_box_project();
	e2e_write(tmp, MD,
		  "---\ntitle: T\ntoc: true\n---\n"
		  "<p align=\"center\">\n  <img src=\"box.svg\" width=\"200\" alt=\"a green box\">\n"
		  "</p>\n\n"
		  "A box <img src=\"box.svg\" height=16> in the text.\n\n"
		  "## Boxes <img src=\"box.svg\">\n\n## The end\n\nDone.\n");
	struct proc r = e2e_run(tmp, "pdf");
	assert_int_equal(r.status, 0);
	/* the heading's first, as the table of contents lays it out first;
	 * once, though the body lays it out again */
	assert_string_equal(r.err,
			    "content/r/index.md:11:10: warning: image 'box.svg' is in raw HTML, which "
			    "the PDF leaves out: write it as ![](box.svg) to have it in the PDF too\n"
			    "   11 | ## Boxes <img src=\"box.svg\">\n"
			    "      |          ^\n"
			    "content/r/index.md:6:3: warning: image 'box.svg' is in raw HTML, which "
			    "the PDF leaves out: write it as ![a green box](box.svg){width=200} to "
			    "have it in the PDF too\n"
			    "    6 |   <img src=\"box.svg\" width=\"200\" alt=\"a green box\">\n"
			    "      |   ^\n"
			    "content/r/index.md:9:7: warning: image 'box.svg' is in raw HTML, which "
			    "the PDF leaves out: write it as ![](box.svg){height=16} to have it in "
			    "the PDF too\n"
			    "    9 | A box <img src=\"box.svg\" height=16> in the text.\n"
			    "      |       ^\n"
			    "logdown: built 1 report into _site\n");
	proc_free(&r);
	assert_int_equal(page_pixels(0x00a000), 0);
	char *page = e2e_read(tmp, "_site/r/index.html");
	assert_contains(page, "<img src=\"box.svg\" width=\"200\" alt=\"a green box\">");
	free(page);
	r = e2e_run(tmp, "pdf --strict");
	assert_int_equal(r.status, 1);
	proc_free(&r);

	/* as the warning says: drawn, and no warning */
	e2e_write(tmp, MD,
		  "---\ntitle: T\n---\n![a green box](box.svg){width=200}\n\n"
		  "A box ![](box.svg){height=16} in the text.\n");
	pdf_quiet();
	assert_true(page_pixels(0x00a000) > 1000);
}

/* librsvg is opened at the first SVG a PDF draws (render/svglib.c):
 * missing, the image's description stands in and the warning says what
 * to install; the rest of the PDF is made. */
static void svg_image_without_librsvg_shows_its_description(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	green_box_project();
	setenv("LOGDOWN_TEST_LAZYLIB", "librsvg-2.so.2=liblogdown-gone.so.2", 1);
	struct proc r = e2e_run(tmp, "pdf");
	unsetenv("LOGDOWN_TEST_LAZYLIB");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err,
			    "content/r/index.md:4:1: warning: image 'box.svg' cannot be drawn: cannot "
			    "load liblogdown-gone.so.2 (liblogdown-gone.so.2: cannot open shared object "
			    "file: No such file or directory); install Debian's librsvg2-2; the PDF "
			    "shows its description\n"
			    "    4 | ![a green box](box.svg)\n"
			    "      | ^\n"
			    "logdown: built 1 report into _site\n");
	proc_free(&r);
	assert_true(page_pixels(0x00a000) == 0);
	char *text = pdf_text();
	assert_contains(text, "a green box");
	assert_contains(text, "After the box.");
	free(text);
}

static void jpeg_image_is_drawn(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	project("---\ntitle: T\n---\n![a photo](photo.jpg)\n", NULL);
	GdkPixbuf *pb = gdk_pixbuf_new(GDK_COLORSPACE_RGB, FALSE, 8, 120, 80);
	gdk_pixbuf_fill(pb, 0xc81e1eff);
	char *path = path_join(tmp, "content/r/photo.jpg");
	assert_true(gdk_pixbuf_save(pb, path, "jpeg", NULL, "quality", "95", NULL));
	g_object_unref(pb);
	free(path);
	pdf_quiet();
	assert_true(page_pixels(0xc81e1e) > 1000);
}

static void long_words_and_urls_stay_on_the_page(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	struct buf md = BUF_INIT;
	buf_puts(&md, "---\ntitle: T\n---\nA word: ");
	for (int i = 0; i < 3000; i++)
		buf_putc(&md, "abcdefghij"[i % 10]);
	buf_puts(&md, " and a URL: <https://example.org/");
	for (int i = 0; i < 600; i++)
		buf_puts(&md, "x/");
	buf_puts(&md, "end>\n\n| a | b |\n|---|---|\n| ");
	for (int i = 0; i < 400; i++)
		buf_puts(&md, "longcell");
	buf_puts(&md, " | short |\n\n");
	/* a table far wider than the page: 16 columns of long headers */
	for (int j = 0; j < 16; j++)
		buf_printf(&md, "| Column heading %d ", j);
	buf_puts(&md, "|\n");
	for (int j = 0; j < 16; j++)
		buf_puts(&md, "|---:");
	buf_puts(&md, "|\n");
	for (int j = 0; j < 16; j++)
		buf_printf(&md, "| %d.123456 ", j * 1000);
	buf_puts(&md, "|\n\n```\n");
	for (int i = 0; i < 500; i++)
		buf_puts(&md, "code-");
	buf_puts(&md, "\n```\n");
	project(buf_data(&md), NULL);
	buf_free(&md);
	pdf_quiet();
	words_inside(30);
	char *t = pdf_text();
	/* the narrow column keeps its width; the wrapped code line is all
	 * there */
	assert_contains(t, "short");
	/* cells narrower than their numbers: cut, never past the margin */
	assert_contains(t, "15000.");
	size_t codes = 0;
	struct buf joined = BUF_INIT;
	for (const char *c = t; *c; c++)
		if (*c != '\n')
			buf_putc(&joined, *c);
	/* (pdftotext drops a hyphen at a line's end: count the words) */
	for (const char *c = buf_data(&joined); (c = strstr(c, "code")) != NULL; c++)
		codes++;
	buf_free(&joined);
	assert_int_equal(codes, 500);
	free(t);
}

/* Under memcheck (tests/valgrind.sh) the two long inputs below are a
 * fifth as long: the same layout, page after page, at a fifth of the
 * time (40 and 34 s of the binary's 235 s under memcheck). */
static int under_valgrind_a_fifth(int n)
{
	return getenv("LOGDOWN_VALGRIND") ? n / 5 : n;
}

static void ten_thousand_rows_repeat_their_header(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	int rows = under_valgrind_a_fifth(10000);
	struct buf csv = BUF_INIT;
	buf_puts(&csv, "step,loss\n");
	for (int i = 1; i <= rows; i++)
		buf_printf(&csv, "%d,%d.5\n", i, rows - i);
	project("---\ntitle: T\nruns:\n  data: { file: data.csv, parser: csv }\n---\n"
		"```{table}\ncaption: All rows\nrows: data.rows\ncolumns:\n  Step number: step\n"
		"  Loss value: loss\n```\n",
		NULL);
	e2e_write(tmp, "content/r/data.csv", buf_data(&csv));
	buf_free(&csv);
	time_t t0 = time(NULL);
	e2e_ok(tmp, "pdf");
	assert_true(time(NULL) - t0 < 120);
	char *info = pdf_info();
	long pages = info_number(info, "Pages:");
	assert_true(pages > rows / 100 && pages < rows / 25);
	free(info);
	char *t = pdf_text();
	char *last = xasprintf("%d", rows);
	assert_contains(t, last);
	free(last);
	assert_contains(t, "0.5");
	/* the header row on every page */
	long heads = 0;
	for (const char *s = t; (s = strstr(s, "Step number")) != NULL; s++)
		heads++;
	assert_int_equal(heads, pages);
	free(t);
	words_inside(30);
}

static void five_thousand_log_lines(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	struct buf log = BUF_INIT;
	static const char *const tail = "a much longer line that goes on and on past the right "
					"margin of the page, so that it has to be wrapped with a mark";
	int lines = under_valgrind_a_fifth(5000);
	for (int i = 1; i <= lines; i++) {
		if (i == 7) /* one word wider than the page */
			buf_printf(&log, "%0300d\n", 7);
		else
			buf_printf(&log, "[rank %d] step %d loss=%d.25 %s\n", i % 8, i, i,
				   i % 50 == 0 ? tail : "");
	}
	char *md = xasprintf("---\ntitle: T\nruns:\n  big: { file: big.log, parser: keyvalue }\n"
			     "---\n```{log}\nfrom: big\nlines: 1-%d\n```\n",
			     lines);
	project(md, NULL);
	free(md);
	e2e_write(tmp, "content/r/big.log", buf_data(&log));
	buf_free(&log);
	e2e_ok(tmp, "pdf");
	char *t = pdf_text();
	assert_contains(t, "step 1 loss=1.25");
	char *last = xasprintf("step %d loss=%d.25", lines, lines);
	assert_contains(t, last);
	free(last);
	/* its number stays on the line where the long word starts */
	const char *w = strstr(t, "0000000000");
	assert_non_null(w);
	const char *bol = w;
	while (bol > t && bol[-1] != '\n')
		bol--;
	bol += strspn(bol, " ");
	assert_true(str_has_prefix(bol, "7 0000"));
	free(t);
	words_inside(30);
}

/* A heading is never the last thing on a page, and a paragraph never
 * leaves its first line alone at a page's foot: on every page, the
 * last heading is followed by at least two lines of its section. */
static void headings_stay_with_their_text(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	struct buf md = BUF_INIT;
	buf_puts(&md, "---\ntitle: T\n---\n");
	for (int i = 1; i <= 60; i++) {
		buf_printf(&md, "## Heading number %d\n\n", i);
		for (int k = 0; k < 2 + i % 5; k++)
			buf_printf(&md, "Body%d words words words words words words words words words "
					"words words. ",
				   i);
		buf_puts(&md, "\n\n");
	}
	pdf_of(buf_data(&md), NULL);
	buf_free(&md);
	char *t = pdf_text();
	int pages = 0;
	for (char *page = t; page && *page; pages++) {
		char *end = strchr(page, '\f');
		if (end)
			*end = 0;
		/* the page's last heading */
		char *h = NULL;
		for (char *q = page; (q = strstr(q, "Heading number ")) != NULL; q++)
			h = q;
		if (h) {
			int n = atoi(h + strlen("Heading number "));
			char *body = xasprintf("Body%d", n);
			const char *after = strstr(h, body);
			if (!after)
				fail_msg("page %d ends with heading %d alone:\n%s", pages + 1, n, page);
			/* two lines of it: a line break between two of its words */
			const char *nl = strchr(after, '\n');
			if (!nl || !strstr(nl + 1, "words"))
				fail_msg("page %d leaves one line of section %d:\n%s", pages + 1, n,
					 page);
			free(body);
		}
		page = end ? end + 1 : NULL;
	}
	assert_true(pages >= 3);
	free(t);
}

/* Thousands of nested quotes, list items and emphases (with the
 * nesting limit raised): followed to a depth, then written as running
 * text; never a crash, never off the page. */
static void deep_nesting_stays_on_the_page(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	struct buf md = BUF_INIT;
	buf_puts(&md, "---\ntitle: T\n---\n");
	for (int i = 0; i < 5000; i++)
		buf_puts(&md, "> ");
	buf_puts(&md, "deep quote\n\n");
	for (int i = 0; i < 300; i++) {
		for (int k = 0; k < i; k++)
			buf_puts(&md, "  ");
		buf_printf(&md, "- item%d\n", i);
	}
	buf_puts(&md, "\n");
	for (int i = 0; i < 3000; i++)
		buf_puts(&md, "*a **b ");
	buf_puts(&md, "innermost");
	for (int i = 0; i < 3000; i++)
		buf_puts(&md, "** b*");
	buf_puts(&md, "\n");
	/* past the default limit of 100 levels this is an error (the
	 * limits' own tests); raised, the PDF must still cope */
	pdf_of(buf_data(&md), "limits:\n  markdown_depth: 10000\n");
	buf_free(&md);
	char *t = pdf_text();
	static const char *const words[] = {"deep quote", "item0", "item1", "item298", "item299",
					    "innermost", NULL};
	in_order(t, words);
	free(t);
	words_inside(30);
}

/* Every example of the GFM spec (../shared/testdata/gfm-spec), one
 * report each, gives a PDF that poppler reads, without an error. */
static void every_gfm_spec_example_gives_a_pdf(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	static const char *const files[] = {"../shared/testdata/gfm-spec/spec.txt",
					    "../shared/testdata/gfm-spec/extensions.txt"};
	tmp = e2e_tmpdir();
	int n = 0;
	for (size_t i = 0; i < 2; i++) {
		struct buf spec = BUF_INIT;
		if (!file_read(files[i], &spec, NULL)) {
			print_message("%s not found: skipped\n", files[i]);
			buf_free(&spec);
			skip();
		}
		const char *fence = "```````````````````````````````` example";
		for (const char *p = buf_data(&spec); (p = strstr(p, fence)) != NULL;) {
			p = strchr(p, '\n');
			if (!p)
				break;
			p++;
			const char *end = strstr(p, "\n.\n");
			if (!end)
				break;
			struct buf md = BUF_INIT;
			buf_printf(&md, "---\ntitle: Example %d\n---\n", n + 1);
			for (const char *q = p; q <= end; q++) {
				if (strncmp(q, "\xE2\x86\x92", 3) == 0) { /* the spec's tab */
					buf_putc(&md, '\t');
					q += 2;
				} else {
					buf_putc(&md, *q);
				}
			}
			char *rel = xasprintf("content/ex%04d.md", ++n);
			e2e_write(tmp, rel, buf_data(&md));
			free(rel);
			buf_free(&md);
			p = end + 3;
		}
		buf_free(&spec);
	}
	assert_true(n > 600);
	struct proc r = e2e_run(tmp, "pdf");
	if (r.status != 0) {
		size_t len = strlen(r.err);
		fail_msg("exit %d; stderr ends:\n%s", r.status, r.err + (len > 4000 ? len - 4000 : 0));
	}
	assert_not_contains(r.err, "error:");
	char *expect = xasprintf("logdown: built %d reports into _site\n", n);
	assert_contains(r.err, expect);
	free(expect);
	char *bad = sh("cd '%s' && for f in _site/*/report.pdf; do pdftotext -q \"$f\" - "
		       ">/dev/null || echo \"$f\"; done; ls _site/*/report.pdf | wc -l",
		       tmp);
	assert_non_null(bad);
	char *want = xasprintf("%d\n", n);
	assert_string_equal(bad, want);
	free(want);
	free(bad);
	proc_free(&r);
}

/* A rebuild that takes the report from the build cache keeps its PDF;
 * a build without --pdf drops it. */
static void a_rebuild_from_the_cache_keeps_the_pdf(void **state)
{
	(void)state;
	if (!have_poppler())
		skip();
	pdf_of(report, NULL);
	char *first = e2e_read(tmp, "_site/r/report.pdf");
	assert_non_null(first);
	struct proc r = e2e_run(tmp, "pdf -v");
	assert_int_equal(r.status, 0);
	assert_contains(r.err, "1 report: 0 rendered, 1 from cache");
	proc_free(&r);
	char *again = e2e_read(tmp, "_site/r/report.pdf");
	assert_non_null(again);
	assert_string_equal(first, again);
	free(again);
	e2e_ok(tmp, "build");
	assert_null(e2e_read(tmp, "_site/r/report.pdf"));
	e2e_ok(tmp, "build --pdf");
	again = e2e_read(tmp, "_site/r/report.pdf");
	assert_non_null(again);
	assert_string_equal(first, again);
	free(again);
	free(first);
}

#define TEST(f) cmocka_unit_test_teardown(f, cleanup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(writes_a_pdf_of_every_report),
		TEST(text_is_in_reading_order_with_the_values),
		TEST(fonts_are_embedded),
		TEST(headings_are_bookmarks_and_links_work),
		TEST(chart_colour_is_on_its_page),
		TEST(same_input_same_bytes),
		TEST(paper_letter_and_build_pdf),
		TEST(a_rebuild_from_the_cache_keeps_the_pdf),
		TEST(bad_paper_is_an_error),
		TEST(check_lays_out_and_compares_pdfs),
		TEST(help_and_usage),
		TEST(missing_image_is_a_warning_and_a_description),
		TEST(a_png_image_is_drawn),
		TEST(image_outside_the_project_is_not_read),
		TEST(svg_image_is_drawn_as_vectors),
		TEST(raw_html_images_are_warned_of_with_the_markdown_that_prints_them),
		TEST(svg_image_without_librsvg_shows_its_description),
		TEST(jpeg_image_is_drawn),
		TEST(long_words_and_urls_stay_on_the_page),
		TEST(ten_thousand_rows_repeat_their_header),
		TEST(five_thousand_log_lines),
		TEST(deep_nesting_stays_on_the_page),
		TEST(headings_stay_with_their_text),
		TEST(every_gfm_spec_example_gives_a_pdf),
		TEST(example_reports_keep_the_page_rules),
		TEST(floats_and_blocks_keep_the_page_rules),
		TEST(values_link_to_a_sources_appendix),
		TEST(an_absolute_base_url_gives_absolute_links),
		TEST(a_command_line_breaks_at_its_spaces),
	};
	e2e_test_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
