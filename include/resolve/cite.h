/* cite.h: citations in a report's prose and the References they list.
 *
 *   [@williams2009]          [1]                 (Williams et al., 2009)
 *   [@williams2009, p. 3]    [1, p. 3]           (Williams et al., 2009, p. 3)
 *   [see @a; @b]             [see 1; 2]          (see A, 2020; B, 2021)
 *   [-@williams2009]         [1]                 (2009)
 *   @williams2009 shows      [1] shows           Williams et al. (2009) shows
 *
 * The bibliography is `bibliography:` in the front matter (paths
 * relative to the report), else in site.yaml (relative to the
 * project); the style `citation_style: numeric` (the default; numbered
 * by first citation) or `author-year`, front matter over site.yaml.
 * resolve/doc.c finds the citations in its pre-pass and asks
 * cite_write() for the Markdown around their placeholders; the
 * renderers list cites_ref() at the end of the report, only the
 * entries cited, in citation order (numeric) or by author and year. */
#ifndef LOGDOWN_CITE_H
#define LOGDOWN_CITE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "data/value.h"
#include "resolve/directive.h"

enum cite_style { CITE_NUMERIC, CITE_AUTHOR_YEAR };

struct cites;

/* The report's bibliography and style, read from front (the front
 * matter map, or NULL) and site (site.yaml's map, or NULL); report_dir
 * and root are the folders their paths are relative to.  Problems (a
 * file that does not exist, reported at the key that names it; a
 * BibTeX syntax error at its line in the .bib; an unknown style) go to
 * d.  Never NULL; free with cites_free(). */
struct cites *cites_new(const struct value *front, const struct value *site,
			const char *report_dir, const char *root, struct diag *d);
void cites_free(struct cites *c);

/* The files cites_new() would read, NULL-terminated (for the build
 * cache's key); NULL when there are none.  Caller frees with
 * strv_free(). */
char **cites_files(const struct value *front, const struct value *site, const char *report_dir,
		   const char *root);

/* One citation in a group: "see @key, p. 3" */
struct cite_item {
	const char *at;      /* its '@' in the source */
	const char *key;     /* the key, key_len bytes, after the '@' */
	size_t key_len;
	const char *prefix;  /* text before the '@' ("see "), prefix_len bytes */
	size_t prefix_len;
	const char *locator; /* after the key and its comma ("p. 3") */
	size_t locator_len;
	bool suppress;       /* -@key: the year alone, in author-year */
};

#define CITE_MAX_ITEMS 64

/* The citations written at one place: "[@a; @b]", or a bare "@a". */
struct cite_group {
	bool bare;
	struct cite_item items[CITE_MAX_ITEMS];
	size_t n;
};

/* A bracketed citation at p ('['): "[@key]", "[see @a, p. 3; @b]", on
 * one line, not followed by '(' or '[' (a link) nor ':' (a link
 * definition).  Fills g; returns its end, or NULL when p starts none. */
const char *cite_group_at(const char *p, const char *end, struct cite_group *g);

/* A bare citation "@key" at p ('@'), when c has a bibliography: a
 * letter or '_' after the '@', which starts the line or follows a
 * space or one of ( " ' * _: never a word ("a@b.com" is no citation)
 * nor a link's text ("[@a](url)").  Returns its end, or NULL. */
const char *cite_bare_at(const struct cites *c, const char *p, const char *line_start,
			 const char *end, struct cite_group *g);

/* Writes group g as Markdown into md, in c's style: the brackets or
 * parentheses, prefixes, separators and locators as text, and for each
 * citation a placeholder written by slot(ctx, entry, item, md), entry
 * being cite_use()'s.  `at` is the place of the group's first byte (on
 * one line): each key is looked up there, an unknown one an error at
 * its column with a did-you-mean. */
void cite_write(struct cites *c, const struct cite_group *g, struct loc at, struct diag *d,
		struct buf *md,
		void (*slot)(void *ctx, long entry, const struct cite_item *it, bool bare,
			     struct loc at, struct buf *md),
		void *ctx);

/* A citation's text as the page shows it, appended to out: "1",
 * "Williams et al., 2009", "Williams et al. (2009)" (bare), "2009"
 * (suppress); linked to its entry ("#ref-KEY") with the whole
 * reference as its title.  entry -1 (an unknown key): "@key", plain. */
void cite_piece(struct cites *c, long entry, const char *key, bool bare, bool suppress,
		struct directive_text *out);

/* One entry of the References: its id ("ref-KEY"), its label ("[1]",
 * or "" in author-year) and its text, the DOI and URL linked. */
struct cite_ref {
	const char *id;
	const char *label;
	const struct directive_text *text;
};

/* The entries cited, in the order they are listed; 0 without any.
 * Valid after the document's pre-pass. */
size_t cites_count(struct cites *c);
struct cite_ref cites_ref(struct cites *c, size_t i);
enum cite_style cites_style(const struct cites *c);

#endif
