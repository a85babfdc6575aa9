/* runs.h: the `runs:` of a report's front matter (SPEC section 2). */
#ifndef LOGDOWN_RUNS_H
#define LOGDOWN_RUNS_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "logparse.h"
#include "run.h"
#include "value.h"

/* A report's runs: single runs by name, and run sets (a glob) whose
 * members are runs named by their file stems. */
struct runset {
	char *name;          /* the name in front matter: "cs512", "cs" */
	bool is_set;         /* a glob: members sorted by path */
	struct run **runs;   /* one for a single run */
	size_t count;
};

struct report_runs {
	struct runset *sets;
	size_t count;
};

/* Loads every run that `spec` (the front matter's runs: map, may be
 * NULL) names.  Paths are relative to report_dir and must resolve inside
 * root_real (after symlinks): anything else is an error at its line in
 * the front matter.  Every problem is reported through d; runs that
 * loaded are kept.  Returns false when there was an error.  Free with
 * report_runs_free(). */
bool report_runs_load(struct report_runs *out, const struct value *spec, const char *report_dir,
		      const char *root_real, const struct parser_set *parsers, struct diag *d);
void report_runs_free(struct report_runs *rr);

#endif
