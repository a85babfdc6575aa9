/* site.h: the build pipeline.
 *
 *   load sources (site.yaml, templates, reports and front matter)
 *   -> parse results -> resolve directives -> render -> write
 *
 * The result-file and directive stages are not there yet: reports go
 * from Markdown straight to pages. */
#ifndef LOGDOWN_SITE_H
#define LOGDOWN_SITE_H

#include <stdbool.h>

#include "diag.h"

struct build_opts {
	const char *root;   /* the project folder */
	const char *output; /* -o, or NULL for site.yaml's output */
	bool drafts;        /* include reports with draft: true */
	bool write;         /* false for `logdown check`: resolve, write nothing */
	bool summary;       /* end with a one-line summary on stderr */
	/* check only: build into a temporary folder and report every file
	 * where this committed output differs from it */
	const char *against;
	/* the chart files to write: FIGURE_SVG | FIGURE_PNG | FIGURE_PDF
	 * (directive.h); SVG is always written */
	unsigned figures;
	/* For `logdown serve`, which watches what a build read.  When set,
	 * on_input is called with every result file a report loaded (the
	 * path as diagnostics show it, borrowed for the call), with ctx. */
	void (*on_input)(void *ctx, const char *path);
	void *input_ctx;
	/* When set and the build writes, *output_dir receives the output
	 * folder's canonical path, whether or not the build succeeded once
	 * the folder was accepted.  Caller frees. */
	char **output_dir;
};

/* Builds the site, reporting every problem through d.  Returns an exit
 * code: EXIT_OK, EXIT_CONTENT when the content has errors (the previous
 * output is then untouched), EXIT_USAGE when the output folder is
 * refused, EXIT_IO on an I/O failure. */
int site_build(const struct build_opts *o, struct diag *d);

#endif
