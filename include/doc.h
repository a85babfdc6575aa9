/* doc.h: a report body, from Markdown to HTML, with its references.
 *
 *   1. inline values {{ expr }} / {{ expr :spec }} and cross-references
 *      @fig-x / @tbl-x are found in the Markdown source (never inside code
 *      spans or fenced code) and replaced by placeholders, so that nothing
 *      inside the braces is Markdown (a | cannot split a table cell);
 *   2. cmark-gfm parses the text with GitHub's extensions;
 *   3. fenced blocks {table}, {log} and {chart} become HTML, their
 *      captions numbered in document order;
 *   4. the HTML is rendered and every placeholder replaced by its value,
 *      linked to the line it came from, or by its "Table 2" link. */
#ifndef LOGDOWN_DOC_H
#define LOGDOWN_DOC_H

#include <stddef.h>

#include "directive.h"

/* Registers cmark-gfm's extensions: once, before doc_render() runs on
 * several threads. */
void doc_init(void);

/* Renders the Markdown body text (which starts on line `line0` + 1 of
 * `file`) with the runs and provenance of c.  Every problem is reported
 * through c->d at its line and column in file.  Returns the HTML, which
 * the caller frees with free(), also after errors. */
char *doc_render(const char *text, size_t len, const char *file, int line0,
		 struct directive_ctx *c);

#endif
