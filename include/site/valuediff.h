/* valuediff.h: what changed between two builds, read from their
 * manifests (manifest.h): per report, each input file whose size, hash
 * or parser changed, each inline value whose shown text changed (with
 * the relative change when both are numbers and both source lines),
 * each table cell, each chart series whose points changed, and what
 * was added or removed.  `logdown diff` prints it, and `check
 * --against` when it fails.
 *
 * Identity across builds: a value is the same value when it is in the
 * same report, written the same ({{ a.loss :.2f }}, byte for byte) and
 * it is the same occurrence of that writing (the 2nd {{ a.loss }} of
 * the report): not its line, so that prose edited above it changes
 * nothing.  A table or chart is known by its label, else by its place
 * among the unlabelled ones of its kind; a row by its first cell and a
 * column by its header (and their occurrence); a series by its name; an
 * input by its file. */
#ifndef LOGDOWN_VALUEDIFF_H
#define LOGDOWN_VALUEDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/diag.h"
#include "data/value.h"

/* VALUEDIFF_GITHUB: each change as a GitHub workflow command,
 * "::notice file=F,line=L,col=C,title=...::what changed", at its place
 * in the .md (an input's: the input), for check --against's annotations;
 * nothing else. */
enum valuediff_format { VALUEDIFF_TEXT, VALUEDIFF_MARKDOWN, VALUEDIFF_JSON, VALUEDIFF_GITHUB };

struct valuediff_opts {
	enum valuediff_format format;
	bool colour;        /* text only: old in red, new in green, places bold */
	const char *old_name, *new_name; /* the folders, for the notes */
	struct diag *d;     /* notes (different logdown versions); may be NULL */
};

/* Compares manifest old with manifest new (both from manifest_load())
 * and prints the changes to out in o->format.  Returns the number of
 * changes (0: none). */
size_t valuediff_print(FILE *out, const struct value *old, const struct value *now,
		       const struct valuediff_opts *o);

#endif
