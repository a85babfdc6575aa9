/* searchtext.h: what the site's search finds in a report (site/ writes
 * the index of the whole site from it, static/search.js reads that).
 *
 * A report is cut into sections at its headings: section 0 is what
 * comes before the first heading, each heading starts the next.  A
 * section holds its heading as shown, the heading's id on the page
 * (when the rendered heading has one), the terms of its words once each
 * (heading, prose, table cells, captions, values as shown; not code
 * blocks, log excerpts or math), and its inline values as written and
 * as shown ("cs.final_loss", "1.234"), whose run and key names are
 * terms too.
 *
 * A term is what search_tokens() cuts out of a text; static/search.js
 * cuts a query the same way, and the two must stay in step:
 *
 *   - a word is a run of letters and digits: ASCII ones, and every code
 *     point from U+00C0 to U+DFFF but the symbols U+00D7 and U+00F7,
 *     U+2000 to U+2BFF (punctuation, arrows, operators, shapes) and
 *     U+3000 to U+303F (CJK punctuation); everything else separates
 *     words ("cs.final_loss" is cs, final, loss);
 *   - ASCII letters are lowercased;
 *   - a '.' between two digits stays in the word ("0.412"); a ',' between
 *     a digit and three digits not followed by a fourth is dropped
 *     ("1,234.5" is 1234.5);
 *   - a word is cut at SEARCH_TERM_MAX bytes (never inside a character). */
#ifndef LOGDOWN_SEARCHTEXT_H
#define LOGDOWN_SEARCHTEXT_H

#include <stddef.h>
#include <stdint.h>

struct doc;

#define SEARCH_TERM_MAX 40

struct search_value {
	char *expr;  /* as written, without its format spec */
	char *shown; /* as the page shows it */
};

struct search_section {
	char *id;      /* the rendered heading's id attribute, or NULL */
	char *heading; /* its text as shown; NULL for section 0 */
	char **terms;  /* unique, in pool, in the order first met;
			  NULL after search_section_drop_terms() */
	size_t nterms, cap;
	uint64_t *seen; /* until finished or the next section is added (which
			   takes it): a hash set of terms' indexes + 1,
			   each under its hash's upper 32 bits */
	size_t seen_cap;
	uint32_t *ids;  /* the terms' numbers in the site's table of them
			   (site/searchindex.c), or NULL */
	char *pool;     /* the terms' bytes: blocks, each after a pointer to
			   the block before */
	char *pool_at;
	size_t pool_left;
	struct search_value *values;
	size_t nvalues;
};

struct search_doc {
	struct search_section *s;
	size_t n;
};

/* The sections of doc, after html_doc() made html (the page's body)
 * from it: the values are those the page showed, a heading's id the one
 * its tag in html has.  Appends to out (section 0 first, maybe empty);
 * each section finished. */
void search_collect(struct doc *doc, const char *html, struct search_doc *out);

/* A fresh section at the end of d (heading and id copied; may be NULL). */
struct search_section *search_section_add(struct search_doc *d, const char *heading,
					  const char *id);
/* Adds the terms of text[0..len) to s. */
void search_add_text(struct search_section *s, const char *text, size_t len);
/* Adds one term as it is (already a term), unless s holds it already. */
void search_add_term(struct search_section *s, const char *term);
/* Drops s's set of its terms, which stay in the order first met, each
 * once (the index's writer orders their numbers). */
void search_section_finish(struct search_section *s);
/* A section's term's hash (one of its terms[], which carry it): the
 * upper and lower halves of its str_hash() xored. */
uint32_t search_term_hash(const char *term);
/* Frees s's terms and their bytes once s->ids numbers them (a site's
 * table of terms holds their text): nterms stays, the count of ids. */
void search_section_drop_terms(struct search_section *s);

/* Calls fn with each term of text[0..len), in order, repeats included. */
void search_tokens(const char *text, size_t len, void (*fn)(void *ctx, const char *term),
		   void *ctx);

void search_doc_free(struct search_doc *d);

#endif
