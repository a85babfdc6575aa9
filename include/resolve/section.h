/* section.h: a report's headings as sections: each heading's id (its
 * label, or a slug of its text by GitHub's rules, made unique), its
 * number when sections are numbered, and the label that @sec-NAME
 * references.
 *
 * A heading may end in an attribute block (resolve/attrs.h):
 * "## Results {#sec-results}" labels it (the label is its id), and
 * "{-}" or "{.unnumbered}" leaves it, and the sections under it,
 * without a number.  The block is taken off the heading's text.
 *
 * Sections are the headings at the top of the document (not in a list
 * or a quote).  A section's depth is how many open sections it sits in,
 * plus one: a heading is inside the nearest heading before it of a
 * smaller level, so that "##" then "####" is 1 then 1.1, and a body
 * written from "#" or from "##" numbers the same.  Headings in a list
 * or a block quote get an id and nothing else. */
#ifndef LOGDOWN_SECTION_H
#define LOGDOWN_SECTION_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/util.h"
#include "resolve/xref.h"

struct cmark_node;

struct section {
	struct cmark_node *node; /* the heading */
	int level;               /* 1 to 6, as written */
	int depth;               /* 1 for a top section; 0 in a list or quote */
	char *id;                /* "results", or its label "sec-results" */
	char *number;            /* "2.1"; "" when it has none */
	char *text;              /* its plain text, values as placeholders */
	int line;                /* where it is written */
};

struct sections {
	struct section *s;
	size_t n;
};

/* What sections_find() reads and reports to: the report's source, as
 * doc_resolve() got it, for the columns of a heading's attributes. */
struct section_src {
	const char *file;
	int line0;         /* the line before the body's first */
	const char *text;  /* the body */
	size_t len;
	struct diag *d;
	struct xref *xref; /* labels go here */
	bool numbered;     /* number_sections */
};

/* Finds the headings under root, in document order, into out: takes
 * their attribute blocks off their text (reporting a bad one at its
 * column), gives each an id and a number, and registers each label in
 * src->xref ("Section 2.1" when numbered; else the heading's text).
 * Ids already taken by other labels of the report are not given to a
 * slug.  Free with sections_free(). */
void sections_find(struct sections *out, struct cmark_node *root, const struct section_src *src);

/* The section of heading node (its user data), or of id name; NULL if
 * none. */
const struct section *sections_of(struct cmark_node *node);
const struct section *sections_get(const struct sections *ss, const char *id);

/* Appends GitHub's slug of text[0..len) to out: lower case; letters,
 * digits (any script), '-' and '_' kept; each space a '-'; the rest
 * (punctuation, symbols) left out.  Placeholders of values are left
 * out too, with the spaces around them as one, so that an id stays
 * when the data changes. */
void section_slug(struct buf *out, const char *text, size_t len);

void sections_free(struct sections *ss);

#endif
