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

#endif
