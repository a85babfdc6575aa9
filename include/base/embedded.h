/* embedded.h: files compiled into the binary (see tools/embed.c). */
#ifndef LOGDOWN_EMBEDDED_H
#define LOGDOWN_EMBEDDED_H

#include <stddef.h>

struct embedded_file {
	const char *path; /* as in the source tree: "templates/page.html" */
	const char *data; /* NUL-terminated */
	size_t len;
};

/* Ends with an entry whose path is NULL. */
extern const struct embedded_file embedded_files[];

/* The embedded file at path, or NULL.  Borrowed, static. */
const struct embedded_file *embedded_find(const char *path);

#endif
