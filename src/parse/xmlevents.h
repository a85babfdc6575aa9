/* xmlevents.h: an XML file streamed through expat as element events,
 * for the mappings of xmlread.c (generic) and junit.c.  Private to the
 * parse stage. */
#ifndef LOGDOWN_XMLEVENTS_H
#define LOGDOWN_XMLEVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

/* An element as it opens: name and attrs (NULL-terminated name, value
 * pairs) are expat's, valid during the call only. */
struct xml_elem {
	const char *name;
	const char **attrs;
	long line;    /* 1-based, of its '<' */
	int col;      /* 1-based, in bytes */
	size_t depth; /* 0: the root */
};

struct xml_sink {
	void *ctx;
	/* An element opened; false stops the reading (the sink has
	 * reported why). */
	bool (*start)(void *ctx, const struct xml_elem *e);
	/* It closed: text is its own character data (not its children's),
	 * entities and CDATA resolved, NUL-terminated; `leaf` when it held
	 * no element. */
	void (*end)(void *ctx, const struct xml_elem *e, const char *text, size_t len, bool leaf);
};

/* Streams path (shown as `shown`) into sink.  An error before the root
 * element opened is reported as one and false returned; an error after
 * it (a file cut short, a broken tag) is a warning at expat's line and
 * column, and true is returned: the elements closed before it were
 * given to the sink. */
bool xml_stream(const char *path, const char *shown, struct diag *d, const struct xml_sink *sink);

/* The value of attribute name in attrs, or NULL. */
const char *xml_attr(const char **attrs, const char *name);

#endif
