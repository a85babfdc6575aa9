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

struct value;

/* Each reads the file at path into r; `shown` names it in diagnostics.
 * A syntax error is reported at its line and column and false returned. */
bool structured_read_json(struct run *r, const char *path, const char *shown, struct diag *d);
bool structured_read_yaml(struct run *r, const char *path, const char *shown, struct diag *d);
bool structured_read_csv(struct run *r, const char *path, const char *shown, struct diag *d);

/* The JSON document in the file at path as one value tree, every value
 * with its place, for a reader that wants a whole document (a
 * notebook): NULL after a syntax error, reported at its line and
 * column.  Caller frees with value_free(). */
struct value *structured_json_tree(const char *path, const char *shown, struct diag *d);

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
