/* yamldoc.h: YAML (and JSON) text into a value tree, with libyaml. */
#ifndef LOGDOWN_YAMLDOC_H
#define LOGDOWN_YAMLDOC_H

#include <stddef.h>

#include "base/diag.h"
#include "data/value.h"

/* Parses text, which must hold one YAML document (a leading UTF-8 byte
 * order mark is skipped).  Plain scalars are typed the way a user reads
 * them (YAML 1.2 core schema): null, ~ and nothing are null, true/false
 * booleans, decimal numbers (1e5 included) numbers, all else strings;
 * quoted scalars and !!str ones are always strings.  Each node's loc
 * points into `file`, offset by line0 lines (for YAML embedded in another
 * file, such as front matter); columns count bytes, from after the byte
 * order mark on line 1.
 *
 * An empty document gives a null value.  On a syntax error, an alias, a
 * duplicate key, a non-scalar key or a second document it reports through
 * d and returns NULL.  Errors that libyaml can read past are all
 * reported, not just the first.  Caller frees with value_free(). */
struct value *yamldoc_parse(const char *text, size_t len, const char *file,
			    int line0, struct diag *d);

/* The same, for YAML whose line i (0-based) starts col0[i] columns into
 * its line of `file` (a directive body inside a list item or a block
 * quote); lines past ncol0 are not shifted. */
struct value *yamldoc_parse_at(const char *text, size_t len, const char *file, int line0,
			       const int *col0, size_t ncol0, struct diag *d);

/* A YAML document streamed rather than loaded (a result file, which may
 * be big): each map's members by the dotted path of their keys ("a.b"),
 * each list's items one at a time, each a tree of its own that is freed
 * once handed over, so that the whole never is a tree.  Paths and values
 * are borrowed for the call. */
struct yamldoc_visitor {
	void *ctx;
	/* a scalar at path; the document's root scalar is "value", an
	 * empty document gives none */
	void (*scalar)(void *ctx, const char *path, const struct value *v);
	/* a list at path (the root list is "rows"), written at `at`: what
	 * it returns is handed to list_item and list_close */
	void *(*list_open)(void *ctx, const char *path, struct loc at);
	void (*list_item)(void *ctx, void *list, const struct value *item);
	/* the list's end; ok is false when reading stopped inside it */
	void (*list_close)(void *ctx, void *list, bool ok);
};
/* Streams text (one document, read as yamldoc_parse() reads it) to vis.
 * False when an error was reported: what was handed over by then is
 * not to be used. */
bool yamldoc_walk(const char *text, size_t len, const char *file,
		  const struct yamldoc_visitor *vis, struct diag *d);
/* Types one plain scalar as yamldoc_parse() does.  Caller frees. */
struct value *yamldoc_scalar(const char *text, size_t len);

#endif
