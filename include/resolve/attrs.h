/* attrs.h: the attribute syntax, Pandoc's "{#id .class key=value}".
 *
 * A heading, an image, a display equation and a code fence may carry
 * attributes in braces: an identifier (#sec-results), classes
 * (.numberLines), and key=value pairs whose value is bare (width=60%)
 * or quoted ("3-5", '3-5', with \" and \\ escapes inside double
 * quotes).  Items are separated by spaces or tabs; a block spans one
 * line.  What each key means is for its user to say: this only reads
 * the syntax and says where each item is, so that a bad one is
 * reported at its column.
 *
 * "{=html}" (Pandoc's raw attribute) and braces that hold none of the
 * above ("{x}", "{{ value }}") are no attribute block: attrs_parse()
 * returns ATTRS_NONE and the text stays as written. */
#ifndef LOGDOWN_ATTRS_H
#define LOGDOWN_ATTRS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

struct attr {
	char *key;   /* "width"; for a class, "class"; for the id, "id" */
	char *value; /* "60%", "numberLines", "sec-results" */
	int col;     /* the item's first byte, in the block's line */
	int len;     /* its length in bytes, as written */
};

struct attrs {
	struct attr *items; /* in the order written */
	size_t n;
};

enum attrs_result {
	ATTRS_NONE, /* not an attribute block: leave the text alone */
	ATTRS_OK,
	ATTRS_BAD,  /* an attribute block with an error, reported */
};

/* Reads the attribute block that starts at p (a '{') and ends before
 * end or the line's end.  at is where p is (file, line, col); errors
 * ("unclosed '{'", "'#' needs a name", "'=' needs a value", two ids)
 * go to d at their column.  On ATTRS_OK and ATTRS_BAD, *after is just
 * past the closing '}' and out holds what was read (attrs_free() it);
 * on ATTRS_NONE, out is empty. */
enum attrs_result attrs_parse(const char *p, const char *end, struct loc at, struct diag *d,
			      struct attrs *out, const char **after);

/* The value of key (the last one written), or NULL.  "id" gives the
 * identifier. */
const struct attr *attrs_get(const struct attrs *a, const char *key);
bool attrs_has_class(const struct attrs *a, const char *name);

/* Reports every item whose key is not in known (NULL-terminated; "id"
 * and "class" are keys too), with did-you-mean, at its column of at's
 * line; what names the thing ("a heading", "an image").  Returns
 * whether all were known. */
bool attrs_check(const struct attrs *a, const char *const *known, const char *what,
		 struct loc at, struct diag *d);

void attrs_free(struct attrs *a);

#endif
