/* diagram.h: diagrams, fenced ```dot (or ```graphviz) blocks laid out
 * by Graphviz's library (libgvc and libcgraph).
 *
 * The fence may carry an attribute block (resolve/attrs.h) after its
 * language, or be Pandoc's form of one:
 *
 *     ```dot {#fig-pipeline caption="Data pipeline"}
 *     ```{.dot #fig-pipeline caption="Data pipeline"}
 *
 * A diagram with a caption or a label is a figure numbered with the
 * {chart} figures, and "@fig-pipeline" refers to it.  {{ expr :spec }}
 * inside a quoted DOT string (a label) shows the value, linked to its
 * line where the diagram is drawn on the page.
 *
 * What a report may not do, since a report may come from someone else:
 * read a file (image, shapefile, fontpath, imagepath, stylesheet,
 * _background, <IMG> in an HTML label), link to a script URL, or ask
 * for a layout larger than limit dot_nodes (checked before any layout);
 * each is an error at its line.  Graphviz's own messages (a syntax
 * error at a line of the DOT) come back as diagnostics at their line in
 * the .md, never on stderr. */
#ifndef LOGDOWN_DIAGRAM_H
#define LOGDOWN_DIAGRAM_H

#include <stdbool.h>
#include <stddef.h>

#include "resolve/directive.h"
#include "resolve/xref.h"

/* Whether a fenced block whose info string is info is a diagram:
 * "dot" or "graphviz", alone or before an attribute block, or an
 * attribute block with the class .dot or .graphviz first. */
bool diagram_info(const char *info);

/* Resolves a diagram into *out (DIRECTIVE_DIAGRAM; the caller's,
 * zeroed; free with directive_result_clear()).  info is the fence's
 * info string, its first byte written at info_at; dot is the body,
 * whose line i (from 0) is line first_line + i of info_at's file,
 * starting shift[i] columns in (nshift lines; a body in a list item or
 * a quote is handed over without its indentation).  A caption or a
 * label numbers it with ++c->figures; the label goes to x.  The SVG is
 * made here, once: the page inlines it and the PDF draws it.  Returns
 * false after an error, reported (out->ok false). */
bool directive_diagram(struct directive_ctx *c, struct xref *x, const char *info,
		       struct loc info_at, const char *dot, int first_line, const int *shift,
		       size_t nshift, struct directive_result *out);

/* The checks alone, without the layout or the values: parse the DOT,
 * report its syntax errors, the size limit and the forbidden
 * attributes.  For the fuzzer.  Returns whether it could be laid out. */
bool diagram_check(const char *dot, size_t len, struct loc at, struct diag *d);

#endif
