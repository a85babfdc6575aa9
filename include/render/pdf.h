/* pdf.h: a report as a PDF, laid out by logdown itself (SPEC section
 * 11): pango shapes and wraps the text, cairo's PDF surface draws it,
 * and the charts are drawn onto the page by chart.c as vectors.
 *
 * The layout walks the resolved document of doc.h, the same one the
 * HTML is rendered from: Markdown blocks, the values shown in the page
 * (with their links) and the directives' structured results.  It is
 * one pass that turns blocks into boxes (a line of text, a table row, a
 * figure) and one that breaks the boxes into pages:
 *   - a paragraph never leaves one line alone at the foot or the head
 *     of a page (orphans, widows); a heading stays with what follows;
 *   - a figure that does not fit floats to the top of the next page and
 *     the text after it fills the space; a code block or excerpt of up
 *     to 8 lines is never split, a longer one leaves 3 lines or more on
 *     each page;
 *   - a figure, an image and a table row are never split; a table's
 *     header row is repeated on every page it runs onto; a wide table
 *     gets narrower columns, wrapped cells, then a smaller font;
 *   - a code or log line too long for the page wraps with a hooked
 *     arrow drawn (not written: copying copies the code) at the start
 *     of each continuation, never cut, at a space before inside a word;
 *   - every page carries its number; headings become bookmarks, links
 *     stay links (a value links to its log line, "Figure 2" to the
 *     figure), the title and author go into the metadata.
 * The same input gives the same bytes: no creation date unless
 * SOURCE_DATE_EPOCH is set.  Nothing here is global: one call lays out
 * one report and may run beside others on other threads. */
#ifndef LOGDOWN_PDF_H
#define LOGDOWN_PDF_H

#include <stdbool.h>

#include "base/diag.h"
#include "base/util.h"

struct doc;

struct pdf_meta {
	const char *title;  /* front matter; "" when absent */
	const char *author;
	const char *date;
	const char *summary;
	const char *paper;  /* "a4" or "letter" (config.h) */
	const char *dir;    /* the report's folder: images are read from it */
	const char *root;   /* the project's real path: no image is read outside it */
	const char *base_url; /* site.yaml's; NULL or not absolute: a Sources appendix */
	const char *slug;     /* the report's folder in the site ("q3") */
	bool toc;             /* a contents list after the title block */
	const char *manifest_hash; /* shown before each page's number; NULL: none */
};

/* Lays out doc (after html_doc(), whose values it shows) and appends
 * the PDF's bytes to out.  A value's link to its log line is absolute
 * when m->base_url is ("https://host/site/" + slug + the page's link);
 * otherwise it leads to its numbered entry in an appendix "Sources" at
 * the end ("1. logs/run.log, line 123"), since a PDF is often handed in
 * on its own, away from the site.  When LOGDOWN_PDF_LAYOUT names a
 * folder, the placed boxes are written to FOLDER/SLUG.tsv (slashes as
 * '-') for the tests of the page rules (docs/internals.md).
 *
 * Problems with the content (an image that cannot be read, a table
 * row taller than a page) are warnings through d at their place in the .md file; the PDF is still written.  Returns
 * false only when cairo fails (reported). */
bool pdf_render(struct doc *doc, const struct pdf_meta *m, struct buf *out, struct diag *d);

#endif
