/* embedded.h: files compiled into the binary (see tools/embed.c). */
#ifndef LOGDOWN_EMBEDDED_H
#define LOGDOWN_EMBEDDED_H

#include <stddef.h>

struct embedded_file {
	const char *path; /* as in the source tree: "templates/page.html" */
	const char *data; /* NUL-terminated */
	size_t len;
};

/* Files from Debian packages, embedded under their installed paths
 * (the Makefile's EMBED): KaTeX, and the math font the site ships. */
#define EMBEDDED_KATEX "/usr/share/javascript/katex/katex.min.js"
#define EMBEDDED_MATH_FONT \
	"/usr/share/texmf/fonts/opentype/public/tex-gyre-math/texgyredejavu-math.otf"

/* Ends with an entry whose path is NULL. */
extern const struct embedded_file embedded_files[];

/* The embedded file at path, or NULL.  Borrowed, static. */
const struct embedded_file *embedded_find(const char *path);

#endif
