/* serve.h: `logdown serve`, a local preview with live reload (SPEC 10).
 *
 * Builds the site, serves the output folder over HTTP with
 * libmicrohttpd (GET and HEAD only, nothing outside the folder), polls
 * the sources and every result file the reports read, rebuilds what a
 * change affects (see serve.c) and tells the open pages through
 * Server-Sent Events on /__logdown/events: "reload" after a good build,
 * "error" with the diagnostics after a failed one. */
#ifndef LOGDOWN_SERVE_H
#define LOGDOWN_SERVE_H

#include <stdbool.h>

#include "site/site.h"

struct serve_opts {
	struct build_opts build; /* root, output, drafts, figures, no_claims; the rest is set here */
	const char *host;        /* numeric address to listen on, NULL for 127.0.0.1 */
	unsigned port;           /* 0 picks a free one */
	bool strict;             /* warnings count as errors */
};

/* Runs until SIGINT or SIGTERM, then returns EXIT_OK, leaving nothing
 * behind; when a build holds it more than half a second after the
 * signal, the process ends there with exit 0 instead, and a child it
 * forked at the start removes what that build had begun once it is gone.  Returns EXIT_IO when the address cannot be listened on (a
 * port in use) and the first build's code when it could not write the
 * site at all (EXIT_USAGE, EXIT_IO); a first build with content errors
 * is served like any failed rebuild.  Problems go to stderr. */
int serve_run(const struct serve_opts *o);

#endif
