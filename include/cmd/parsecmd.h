/* parsecmd.h: `logdown parse FILE` and `logdown parsers` (SPEC sections
 * 7 and 8): what a parser extracts from one file, and which parsers
 * there are.  Both load the built-in parsers and those of a project:
 * `parse` the one FILE belongs to (parsecmd_project()), `parsers` the
 * one in the current folder (./parsers). */
#ifndef LOGDOWN_PARSECMD_H
#define LOGDOWN_PARSECMD_H

#include <stdbool.h>
#include <stdio.h>

#include "base/diag.h"
#include "data/run.h"

struct parse_opts {
	const char *file;   /* the result file, as given */
	const char *parser; /* a parser name, or NULL to detect one */
	bool json;          /* the SPEC section 7 JSON object, not a summary */
	const char *csv;    /* or this series as CSV, cells as written */
	bool list_columns;  /* or every name a report can use, one a line */
	bool suggest;       /* or propose a parser for it (parse/suggest.h) */
	const char *output; /* --suggest: write it here, not to out (-o) */
	const char *name;   /* --suggest: its name (default: FILE's stem) */
	/* More parser folders (--parsers DIR), read after the project's;
	 * NULL-terminated, may be NULL. */
	const char *const *parser_dirs;
};

/* The project `file` belongs to: the nearest folder, from the file's own
 * up, that holds a site.yaml or a content/ folder; relative to the
 * current folder when it lies inside it (or "." for it), else absolute.
 * NULL when there is none.  Caller frees. */
char *parsecmd_project(const char *file);

/* Parses o->file and prints what was extracted to out.  Returns an exit
 * code: EXIT_USAGE when the file is not there (or is a folder, a FIFO)
 * or the parser named does not exist; EXIT_CONTENT when no parser claims
 * the file, the parser fails on it or a project parser is broken (all
 * reported through d); EXIT_IO when the file cannot be read; else
 * EXIT_OK. */
int parsecmd_parse(const struct parse_opts *o, FILE *out, struct diag *d);

/* Prints one line per parser, sorted by name: its name, where it comes
 * from ("built-in" or the .yaml file) and the start of its description.
 * Returns EXIT_CONTENT when a project parser is broken, else EXIT_OK. */
int parsecmd_list(FILE *out, struct diag *d);

/* Prints what each parser of names (n of them) reads, how it is detected
 * and what it extracts (parser_describe()); with n == 0 every parser,
 * sorted by name.  markdown: as the sections of docs/builtin-parsers.md.
 * Returns EXIT_USAGE for an unknown name (reported through d, with the
 * closest), EXIT_CONTENT when a project parser is broken, else EXIT_OK. */
int parsecmd_describe(FILE *out, const char *const *names, size_t n, bool markdown,
		      struct diag *d);

/* Writes series `name` of r as CSV: a header of its columns, then one
 * line per row with each cell's text as written in the file (nothing
 * for a missing cell; quoted where it holds a comma, quote or newline).
 * An unknown series is an error through d, with the closest name: false
 * then. */
bool parsecmd_put_csv(FILE *out, const struct run *r, const char *name, struct diag *d);

/* Writes run r as the JSON object of SPEC section 7, with "file": file,
 * followed by a newline. */
void parsecmd_put_json(FILE *out, const struct run *r, const char *file);

#endif
