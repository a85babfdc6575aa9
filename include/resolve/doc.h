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

#include <stdbool.h>
#include <stddef.h>

#include "resolve/directive.h"

/* Registers cmark-gfm's extensions: once, before doc_render() runs on
 * several threads. */
void doc_init(void);

/* Renders the Markdown body text (which starts on line `line0` + 1 of
 * `file`) with the runs and provenance of c.  Every problem is reported
 * through c->d at its line and column in file.  Returns the HTML, which
 * the caller frees with free(), also after errors. */
char *doc_render(const char *text, size_t len, const char *file, int line0,
		 struct directive_ctx *c);

/* The same in steps, for a report that is also laid out as a PDF: the
 * resolved document is what both renderers walk. */
struct doc;
struct cmark_node;

/* Steps 1 to 3: the cmark-gfm tree, with every directive replaced by
 * an HTML block whose structured result is doc_directive()'s.  c (and
 * text) must outlive the doc.  Problems are reported through c->d.
 * Free with doc_free(). */
struct doc *doc_resolve(const char *text, size_t len, const char *file, int line0,
			struct directive_ctx *c);

/* Step 4: the HTML, byte for byte doc_render()'s; evaluates every
 * value, reporting its problems, and keeps what each one showed for
 * doc_value().  Call once.  Caller frees with free(). */
char *doc_html(struct doc *doc);

void doc_free(struct doc *doc);

/* The tree (owned by doc).  Text, link destinations and image
 * sources hold placeholders: find them with doc_next_value(). */
struct cmark_node *doc_root(const struct doc *doc);

/* The .md file and the line before the body's first (node lines are
 * 1-based lines of the body). */
const char *doc_file(const struct doc *doc);
int doc_line0(const struct doc *doc);

/* The result of the directive that node (an HTML block) stands for, or
 * NULL (plain HTML).  Owned by its doc. */
const struct directive_result *doc_directive(struct cmark_node *node);

/* Finds the next placeholder in s[0..len): its offset (*at), length
 * and index.  False when there is none. */
bool doc_next_value(const char *s, size_t len, size_t *at, size_t *mark_len, size_t *index);

/* What placeholder `index` showed in the HTML, after doc_html(): a
 * value with its link, or a "Table 2" reference linking to "#tbl-x".
 * NULL when unknown.  Owned by doc. */
const struct directive_text *doc_value(const struct doc *doc, size_t index);

/* The file a relative link or image URL names: up to its query or
 * fragment, with %XX decoded (a %00 stays as written).  Caller frees. */
char *doc_url_file(const char *url);

/* The kind ("Table", "Figure") and number of a label; false when no
 * directive defines it. */
bool doc_label(const struct doc *doc, const char *name, const char **kind, int *number);

#endif
