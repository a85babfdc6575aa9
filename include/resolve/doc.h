/* doc.h: a report body, from Markdown to what the page and the PDF
 * show, with its references.
 *
 *   1. inline values {{ expr }} / {{ expr :spec }}, cross-references
 *      @fig-x / @tbl-x and citations [@key] (resolve/cite.h) are found in the Markdown source (never inside code
 *      spans or fenced code) and replaced by placeholders, so that nothing
 *      inside the braces is Markdown (a | cannot split a table cell);
 *   2. cmark-gfm parses the text with GitHub's extensions;
 *   3. fenced blocks {table}, {log} and {chart} are resolved to their
 *      results (directive.h), their captions numbered in document order;
 *   4. a renderer (render/html.h, render/pdf.h) walks the tree and asks
 *      for each placeholder with doc_show(): its value, linked to the
 *      line it came from, or its "Table 2" link. */
#ifndef LOGDOWN_DOC_H
#define LOGDOWN_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include "resolve/directive.h"

/* Registers cmark-gfm's extensions and makes its parses safe to run at
 * once where it can (resolve/gfmchars.c): once; doc_resolve() does it
 * too, so calling it first only moves the work. */
void doc_init(void);

/* Whether doc_resolve()'s cmark-gfm parses run at once on several
 * threads (true) or one at a time under a lock (false: gfmchars.c's
 * self-check failed). */
bool doc_parallel_parse(void);

/* A new node of a cmark_node_type, for a tree doc_resolve() parsed: made
 * with the tree's allocator (resolve/gfmarena.c), as cmark-gfm requires
 * of a node put among its nodes (else the insertion does nothing).
 * Freed with the tree, or with cmark_node_free(). */
struct cmark_node *doc_node_new(int type);

struct doc;
struct cmark_node;
struct code_block;
struct _cmark_llist; /* cmark_llist */

/* Steps 1 to 3: the cmark-gfm tree, with every directive replaced by
 * an empty HTML block whose structured result is doc_directive()'s.  c
 * (and text, which starts on line `line0` + 1 of `file`) must outlive
 * the doc.  Problems are reported through c->d at their line and column
 * in file.  Free with doc_free(). */
struct doc *doc_resolve(const char *text, size_t len, const char *file, int line0,
			struct directive_ctx *c);

/* The cmark-gfm options and extensions the tree was parsed with, for
 * rendering it. */
int doc_options(void);
struct _cmark_llist *doc_extensions(const struct doc *doc);

/* Step 4: placeholder `index` as the page shows it at one place: its
 * value evaluated, or its reference looked up, each time it is asked
 * for, so that every place reports its problems (a missing value is a
 * missing piece, an unknown label the text "@label"); the first time,
 * what it showed is kept for doc_value().  NULL for an index that is no
 * placeholder.  Owned by doc. */
const struct directive_piece *doc_show(struct doc *doc, size_t index);

/* A placeholder is DOC_MARK, "LD", its index, DOC_MARK: a character no
 * report contains around a number.  In a link's destination cmark
 * writes it percent-encoded ("%1ALD3%1A"). */
#define DOC_MARK '\x1a'

/* Where placeholder `index` (< the number of placeholders) was written,
 * and the diagnostics the doc reports to: for a renderer's warnings
 * about a value. */
struct loc doc_place(const struct doc *doc, size_t index);
struct diag *doc_diag(const struct doc *doc);

/* Does a placeholder start at p (before end)?  Sets *index and *len.
 * With in_tag (inside an HTML tag: a link's destination) it may come
 * percent-encoded; in text, "%1A" is the author's or the log's own. */
bool doc_placeholder_at(const char *p, const char *end, bool in_tag, size_t *index,
			size_t *len);

/* The HTML of a directive with placeholders for the @tbl- and @fig-
 * references inside its <caption> or <figcaption>, so that they become
 * "Table 2" links like the prose's (reported at `at`, the caption's
 * place, when unknown).  Caller frees. */
char *doc_caption_refs(struct doc *doc, const char *html, struct loc at);

void doc_free(struct doc *doc);

/* The tree (owned by doc).  Text, link destinations and image
 * sources hold placeholders: find them with doc_next_value(). */
struct cmark_node *doc_root(const struct doc *doc);

/* Did the tree hold an image node (![alt](src)), or raw HTML with an
 * <img> tag, when it was resolved?  No later step makes one: a page
 * without images need not be walked for them. */
bool doc_has_images(const struct doc *doc);

/* Makes doc's memory (its tree's arena) the one cmark-gfm allocates
 * from on this thread until doc_memory_end(was) with what it returns:
 * what cmark-gfm makes as the tree is read (a text's literal asked for
 * as a string, an iterator, a node put in) then goes with the document
 * rather than to the heap a block at a time, a hundred blocks a page.
 * Nothing made so may outlive doc_free(); what cmark-gfm renders is
 * asked of the heap's allocator (render/html.c). */
struct gfm_arena;
struct gfm_arena *doc_memory_begin(struct doc *doc);
void doc_memory_end(struct gfm_arena *was);

/* The block after node in the tree under root, in the order a
 * cmark_iter enters them (root itself first: start with it), without
 * going into any block's inlines; NULL after the last.  For the walks
 * that look for blocks only (code, headings, quotes, HTML): a page's
 * inlines are most of its nodes, and each walk of them all cost as
 * much as the search found in them. */
struct cmark_node *doc_next_block(struct cmark_node *root, struct cmark_node *node);

/* The report's citations and References (resolve/cite.h), or NULL
 * when it is resolved without. */
struct cites;
struct cites *doc_cites(const struct doc *doc);

/* The .md file and the line before the body's first (node lines are
 * 1-based lines of the body). */
const char *doc_file(const struct doc *doc);
int doc_line0(const struct doc *doc);

/* Where the byte `at` of raw HTML node n's literal is in the .md file
 * (its line and column; a block's later lines from their first column,
 * as cmark keeps them).  For a message about the author's HTML: an
 * <img> tag in it. */
struct loc doc_html_loc(const struct doc *doc, struct cmark_node *n, const char *at);

/* The next <img> tag from p in the author's raw HTML that ends at end (a
 * node's literal) with a src to check or to write: not empty, and made
 * by no value (a value's is the reader's); *src, its value decoded
 * (caller frees).  NULL when none is left.  The next is looked for from
 * html_tag_end(tag, end). */
const char *doc_raw_image(const char *p, const char *end, char **src);

/* The result of the directive that node (an HTML block) stands for, or
 * NULL (plain HTML).  Owned by its doc. */
const struct directive_result *doc_directive(struct cmark_node *node);

/* A fenced code block as read (resolve/codeblock.h: its classes, line
 * numbers, highlighted lines), or NULL when cmark writes it as it is.
 * Owned by its doc. */
const struct code_block *doc_code_block(struct cmark_node *node);

/* Finds the next placeholder in s[0..len): its offset (*at), length
 * and index.  False when there is none. */
bool doc_next_value(const char *s, size_t len, size_t *at, size_t *mark_len, size_t *index);

/* What placeholder `index` showed on the page, after html_doc(): a
 * value with its link, or a "Table 2" reference linking to "#tbl-x".
 * NULL when unknown.  Owned by doc. */
const struct directive_text *doc_value(const struct doc *doc, size_t index);

/* The text between the braces of value placeholder `index` as written
 * ("cs.final_loss :.3f"), not NUL-terminated; NULL for a placeholder
 * that is no value.  Owned by doc. */
const char *doc_value_source(const struct doc *doc, size_t index, size_t *len);

/* The file a relative link or image URL names: up to its query or
 * fragment, with %XX decoded (a %00 stays as written).  Caller frees. */
char *doc_url_file(const char *url);

/* The report's headings, with their ids and numbers (section.h).
 * Owned by doc. */
struct sections;
const struct sections *doc_sections(const struct doc *doc);
/* For the build's manifest (site/manifest.h), after html_doc(): the
 * number of placeholders, and of placeholder `index` when it is an
 * inline value {{ }}: where it was written (the braces), and the number
 * it showed at full precision (*has_num false for text, a missing
 * value).  False for a reference, math, or an index past the end. */
size_t doc_value_count(const struct doc *doc);
bool doc_value_number(const struct doc *doc, size_t index, struct loc *at, bool *has_num,
		      double *num);
/* The report's claims (resolve/claim.h) as checked, after html_doc():
 * the front matter's, then the text's in order; NULL past the end.
 * Owned by doc. */
struct claim_record;
const struct claim_record *doc_claim(const struct doc *doc, size_t i);
/* The directives' results in document order (NULL past the end).
 * Owned by doc. */
size_t doc_directive_count(const struct doc *doc);
const struct directive_result *doc_directive_at(const struct doc *doc, size_t i);

/* The kind ("Table", "Figure") and number of a label; false when no
 * directive defines it. */
bool doc_label(const struct doc *doc, const char *name, const char **kind, int *number);

#endif
