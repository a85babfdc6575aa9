/* blocks_int.h: how doc.c finds the blocks of resolve/blocks.h: each
 * finder walks the cmark tree once it is parsed, reports what is wrong
 * at its place in the .md, and marks what it found (blocks.h). */
#ifndef LOGDOWN_BLOCKS_INT_H
#define LOGDOWN_BLOCKS_INT_H

#include <cmark-gfm.h>
#include <stddef.h>

#include "resolve/blocks.h"
#include "resolve/directive.h"
#include "resolve/xref.h"

/* The report body the tree was parsed from, and where its problems,
 * labels and figure numbers go. */
struct block_src {
	const char *file;
	int line0;        /* the line before the body's first */
	const char *text; /* the body as written */
	size_t len;
	struct directive_ctx *c;
	struct xref *xref;
};

/* blocks.c: a new block of kind at `at`, the user data of node (freed
 * with it). */
struct block *block_attach(cmark_node *node, enum block_kind kind, struct loc at);
/* Line n (1-based, of the body) as written: its start and length
 * (without the newline); NULL past the end. */
const char *block_line(const struct block_src *s, int n, size_t *len);
/* The place of node's first byte in the .md. */
struct loc block_loc(const struct block_src *s, cmark_node *node);

/* callout.c: every top-level block quote that opens with GitHub's
 * [!NOTE] marker becomes a BLOCK_CALLOUT. */
void callouts_find(const struct block_src *s, cmark_node *root);

/* figure.c: image img's attribute block, read and taken out of the
 * text after it; when img is alone in its paragraph with a title or a
 * label, a figure numbered after the figures so far (s->c->figures),
 * its label registered.  Called in document order with the {chart}s. */
void figure_image(const struct block_src *s, cmark_node *img);

/* tabs.c: the "::: tabs" blocks, whose fences the pre-pass turned
 * into TABS_OPEN and TABS_CLOSE HTML blocks, into BLOCK_TABS. */
void tabs_find(const struct block_src *s, cmark_node *root);

/* tabs.c: whether line[0..len) is a ":::" fence; the pre-pass writes
 * TABS_OPEN or TABS_CLOSE (the fence's name after it) in its place, an
 * HTML comment that ends any paragraph before it. */
int tabs_fence(const char *line, size_t len);
#define TABS_OPEN "<!--\x1aLDdiv "
#define TABS_CLOSE "<!--\x1aLDend "

#endif
