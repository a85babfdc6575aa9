/* structured.h: JSON, YAML and CSV result files into runs.
 *
 * Objects become fields, flattened with dots ("summary.metis.mean_s");
 * an array of objects becomes a series named by its key path ("metis",
 * "summary.requests"), its columns the union of the objects' keys in
 * first-seen order; a CSV file becomes the series "rows", its columns
 * the header cells in snake_case.  Every value keeps its text and line. */
#ifndef LOGDOWN_STRUCTURED_H
#define LOGDOWN_STRUCTURED_H

#include <stdbool.h>

#include "base/diag.h"
#include "data/run.h"
#include "data/value.h"

struct value;

/* Each reads the file at path into r; `shown` names it in diagnostics.
 * A syntax error is reported at its line and column and false returned. */
bool structured_read_json(struct run *r, const char *path, const char *shown, struct diag *d);
/* The same, leaving out without a warning the lists inside rows whose
 * dotted paths ("results.times") are among leave_out (a parser's
 * leave_out: key); other such lists are left out with a warning. */
bool structured_read_json_leaving(struct run *r, const char *path, const char *shown,
				  struct diag *d, char *const *leave_out, size_t nleave_out);
bool structured_read_yaml(struct run *r, const char *path, const char *shown, struct diag *d);
bool structured_read_csv(struct run *r, const char *path, const char *shown, struct diag *d);

/* The JSON document in the file at path as one value tree, every value
 * with its place, for a reader that wants a whole document (a
 * notebook): NULL after a syntax error, reported at its line and
 * column.  Caller frees with value_free(). */
struct value *structured_json_tree(const char *path, const char *shown, struct diag *d);

/* How a CSV file is written: its delimiter (',' for CSV, '\t' for TSV,
 * '|' for `sacct -P`), and its columns' names when the file has no
 * header row (header false) or when they replace the header's (header
 * true: its first row is passed over).  columns NULL: the header row
 * names them, or with header false they are c1, c2, ... as many as the
 * first row has. */
struct csv_options {
	char delimiter;
	char **columns; /* NULL-ended */
	size_t ncolumns;
	bool header;
};

/* The defaults: ',', a header row. */
#define CSV_OPTIONS_INIT {',', NULL, 0, true}

/* Reads the CSV file at path as o says (NULL: the defaults). */
bool structured_read_csv_with(struct run *r, const char *path, const char *shown,
			      const struct csv_options *o, struct diag *d);

/* Reads the keys delimiter, columns and header of a parser definition
 * or a run entry (each NULL when not given) into o, which starts as the
 * defaults; `where` ends the diagnostics ("in parser 'x'").  False after
 * reporting what is wrong; o is to be freed with csv_options_free() in
 * any case. */
bool csv_options_read(const struct value *delimiter, const struct value *columns,
		      const struct value *header, const char *where, struct csv_options *o,
		      struct diag *d);
void csv_options_free(struct csv_options *o);

/* A short text that tells o apart from other options, for cache keys.
 * Caller frees. */
char *csv_options_key(const struct csv_options *o);

/* The JSON value in text[0..len), which starts at line `line`, column
 * col of shown (a line of a log: DLLogger's `DLLL {...}`): NULL when it
 * is malformed, reported as a WARNING at its line and column.  Caller
 * frees with value_free(). */
struct value *structured_json_text(const char *text, size_t len, const char *shown, int line,
				   int col, struct diag *d);

/* snake_case of a table header cell: "end-to-end latency (ms)" gives
 * "end_to_end_latency_ms", and '%' is spelled pct ("Time (%)" gives
 * "time_pct").  Caller frees. */
char *snake_case(const char *text, size_t len);

#endif
