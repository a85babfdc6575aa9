/* diffcmd.h: `logdown diff OLD NEW`, what changed between two built
 * sites, read from their manifests (site/valuediff.h). */
#ifndef LOGDOWN_DIFFCMD_H
#define LOGDOWN_DIFFCMD_H

#include <stdio.h>

#include "base/diag.h"
#include "site/valuediff.h"

/* The exit codes of diff, as diff(1) has them. */
enum {
	DIFF_SAME = 0,    /* no change */
	DIFF_CHANGED = 1, /* changes, listed */
	DIFF_TROUBLE = 2, /* bad usage, or a site that cannot be read */
};

/* Compares the sites in the folders old and now, printing the changes
 * to out in format (colour: text with colours).  Problems (a folder
 * without a manifest, a damaged one) go to d.  Returns DIFF_*. */
int diffcmd_run(const char *old, const char *now, enum valuediff_format format, bool colour,
		FILE *out, struct diag *d);

/* `logdown diff --against OLD [PROJECT]`: builds the project in the
 * folder project into a temporary folder, as `check --against OLD`
 * does (no cache; relative claims against OLD's values), and compares
 * OLD with what it built, as diffcmd_run() does.  The project's
 * diagnostics go to d; with errors in its content, the changes are
 * printed all the same and DIFF_TROUBLE is returned.  jobs: threads,
 * 0 for one per core. */
int diffcmd_against(const char *old, const char *project, size_t jobs,
		    enum valuediff_format format, bool colour, FILE *out, struct diag *d);

#endif
