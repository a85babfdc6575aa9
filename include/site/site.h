/* site.h: the build pipeline.
 *
 *   load sources (site.yaml, templates, reports and front matter)
 *   -> parse results -> resolve directives -> render -> write
 *
 * A report's runs are loaded from its result files (runs.h), its values
 * and directives resolved against them (doc.h), and its page rendered
 * through the theme (theme.h) and, with pdf, laid out as a PDF (pdf.h).
 * The site is written into a staging folder that takes the output's
 * place only when the build succeeds (outdir.h).  Reports are loaded
 * and rendered on several threads (jobs); what a build may reuse from
 * the previous output is decided by cache keys (cache.h). */
#ifndef LOGDOWN_SITE_H
#define LOGDOWN_SITE_H

#include <stdbool.h>

#include "base/diag.h"

struct cache_reports;

struct build_opts {
	const char *root;   /* the project folder */
	const char *output; /* -o, or NULL for site.yaml's output */
	bool drafts;        /* include reports with draft: true */
	bool write;         /* false for `logdown check`: resolve, write nothing */
	bool summary;       /* end with a one-line summary on stderr */
	/* threads for loading and rendering reports (-j); 0: one per core.
	 * The output and the diagnostics are the same whatever the number. */
	size_t jobs;
	/* --no-cache: neither read nor write PROJECT/.logdown-cache (cache.h) */
	bool no_cache;
	/* with summary: a second line saying how many reports were rendered
	 * and how many result files parsed, and how many came from cache */
	bool verbose;
	/* check only: build into a temporary folder and report every file
	 * where this committed output differs from it */
	const char *against;
	/* with against, when the check fails: what changed (valuediff.h) is
	 * printed as JSON on stdout (for --diagnostics=json, whose stderr
	 * holds only JSON lines), else as text on stderr */
	bool against_json;
	/* with against and --diagnostics=github: each change is also a
	 * ::notice annotation at its place (after the text) */
	bool against_github;
	/* with against, for `logdown diff --against`: called with the folder
	 * this build wrote (its manifest.json in it) once it is written, with
	 * or without errors in the content, before the folder is removed;
	 * against is then not compared file by file */
	void (*on_built)(void *ctx, const char *built);
	void *built_ctx;
	/* the chart files to write: FIGURE_SVG | FIGURE_PNG | FIGURE_PDF
	 * (directive.h); SVG is always written */
	unsigned figures;
	/* also lay out OUT/<report>/report.pdf for every report (pdf.h),
	 * written when the build writes */
	bool pdf;
	/* check --lint: warn of hand-typed numbers that equal a value of the
	 * report's runs (resolve/numlint.h), unless allow_numbers says not */
	bool lint;
	/* For `logdown serve`, which watches what a build read.  When set,
	 * on_report is called with every report the build includes: its
	 * slug, its source file, its bundle folder (NULL for a lone .md) and
	 * whether its output was reused (see reuse); then on_input with
	 * every result file that report loaded (the path as diagnostics show
	 * it).  Everything is borrowed for the call. */
	void (*on_report)(void *ctx, const char *slug, const char *source, const char *bundle,
			  bool reused);
	void (*on_input)(void *ctx, const char *slug, const char *path);
	void *input_ctx;
	/* For `logdown serve`: parsed runs kept between builds (runs.h), or
	 * NULL. */
	struct parse_cache *cache;
	/* For `logdown serve`: the slugs of reports whose sources and
	 * result files did not change since the build that wrote the
	 * current output.  Their folders are copied from that output
	 * instead of being rendered (a report whose folder is missing there
	 * is rendered).  The index, static files and every other report are
	 * built as always. */
	char *const *reuse;
	size_t nreuse;
	/* With reuse and no_cache: each report's folder as the build that
	 * wrote the current output left it (kept by the caller between
	 * builds; *listings NULL at first), so that a report in reuse whose
	 * folder holds a file planted or changed since is rendered again,
	 * not copied.  A build that commits replaces *listings with what it
	 * left (the old set freed); caller frees the last with
	 * cache_reports_free() (data/cache.h). */
	struct cache_reports **listings;
	/* When set, receives how many reports the build included and how
	 * many of them it rendered (the others were reused). */
	size_t *nreports, *nrendered;
	/* When set and the build writes, *output_dir receives the output
	 * folder's canonical path, whether or not the build succeeded once
	 * the folder was accepted.  Caller frees. */
	char **output_dir;
	/* --no-claims: a broken claim (resolve/claim.h) is a warning, not an
	 * error */
	bool no_claims;
};

/* The number of cores this process may run on (at least 1). */
size_t site_default_jobs(void);

/* Builds the site, reporting every problem through d.  Returns an exit
 * code: EXIT_OK, EXIT_CONTENT when the content has errors (the previous
 * output is then untouched), EXIT_USAGE when the output folder is
 * refused, EXIT_IO on an I/O failure. */
int site_build(const struct build_opts *o, struct diag *d);

/* logdown clean: removes root's build cache and the output folder
 * (output, or site.yaml's), each only when logdown made it, saying what
 * it removed on stderr.  Returns an exit code. */
int site_clean(const char *root, const char *output, struct diag *d);

#endif
