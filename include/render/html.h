/* html.h: the resolved document as HTML: the body of a report's page,
 * written from what resolve/doc.h and resolve/directive.h resolved. */
#ifndef LOGDOWN_HTML_H
#define LOGDOWN_HTML_H

#include <stdbool.h>
#include <stddef.h>

#include "resolve/directive.h"
#include "resolve/doc.h"

struct buf;

/* The HTML of doc: cmark-gfm's, with every directive's block written
 * from its result (html_directive()) and every placeholder replaced by
 * its value, linked to the line it came from, or by its "Table 2" link;
 * values are evaluated here, as the page shows them (doc_show()), and
 * their problems reported.  Call once.  Caller frees with free(). */
char *html_doc(struct doc *doc);

/* doc_resolve() and html_doc() in one: the HTML of the Markdown body
 * text (which starts on line `line0` + 1 of `file`) with the runs and
 * provenance of c, every problem reported through c->d.  Caller frees
 * with free(), also after errors. */
char *html_render(const char *text, size_t len, const char *file, int line0,
		  struct directive_ctx *c);

/* Appends the HTML of a directive's result r (r->ok), one tag per line
 * as cmark-gfm writes a GFM table:
 *
 *   {table}  <figure class="ld-table" id="LABEL">
 *            <figcaption>Table N: CAPTION</figcaption>
 *            <table>
 *            <thead>
 *            <tr>
 *            <th>Run</th>
 *            <th align="right">Final loss</th>
 *            </tr>
 *            </thead>
 *            <tbody>
 *            <tr>
 *            <td>...</td>
 *            <td align="right">...</td>
 *            </tr>
 *            </tbody>
 *            </table></figure>
 *
 *     (no id without a label, no <figcaption> without a caption or a
 *     number, no <tbody> without rows; the caption is outside the
 *     <table>, which scrolls sideways on its own on a narrow screen; a
 *     transposed table's header cells are aligned as the columns below
 *     them)
 *
 *   {log}    <pre class="ld-log" id="LABEL"><code><span class="ld-line ld-hl"><a
 *            class="ld-lineno" href="logs/bs512.log.html#L43">43</a> TEXT</span>
 *            <span class="ld-line ld-gap"><span class="ld-lineno">…</span></span>
 *            ...</code></pre>
 *
 *     ("ld-hl" marks a hit; a line cut short ends in an "ld-cut" note;
 *     a gap's text after its "…", "3 more matching lines", follows the
 *     number column; a notebook cell's name is an "ld-cell" line with
 *     "#" there; style="--ld-digits:N" on the <pre> when its numbers
 *     have more than 3 digits)
 *
 *   {chart}  <figure class="ld-figure" id="LABEL"><a href="figures/NAME.svg"><picture>
 *            <source media="DARK and (max-width: 42em)" srcset="figures/NAME.narrow.dark.svg" ...>
 *            <source media="(max-width: 42em)" srcset="figures/NAME.narrow.svg" ...>
 *            <source media="DARK" srcset="figures/NAME.dark.svg">
 *            <img src="figures/NAME.svg" ...></picture></a>
 *            <figcaption>Figure N: CAPTION</figcaption></figure>
 *
 *     (DARK is "screen and (prefers-color-scheme: dark)"; the narrow
 *     sources only for a chart wider than 400 pixels; the link opens
 *     the drawing full size on a phone)
 *
 * Text from a report or a result file is escaped as the log pages
 * escape it (provenance.h).  A caption's @refs are left as text. */
void html_directive(struct buf *out, const struct directive_result *r);

/* Appends the HTML of one value, as inline values, table cells and
 * captions show it: a value from a file links to its line (<a
 * class="ld-value" href title="file:line">); a computed one is <span
 * class="ld-value" title="its inputs">; a missing one <span
 * class="ld-missing">—</span>.  With link false (a value inside a
 * link's text, where links cannot nest) the line is named in a tooltip
 * instead. */
void html_value(struct buf *out, const struct directive_piece *pc, bool link);

#endif
