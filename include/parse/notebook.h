/* notebook.h: a Jupyter notebook (.ipynb) read as the log its cells
 * printed.
 *
 * A notebook is JSON (nbformat 4: "cells", each with its "outputs"; 3:
 * "worksheets" of cells).  Its text outputs, cell after cell in the
 * notebook's order, make the text of one log that the text parsers read
 * as they read any log:
 *
 *   - "stream" outputs (stdout and stderr as they came), their text a
 *     string or a list of strings joined as written, carriage returns
 *     kept (a tqdm or Keras progress bar is read as in a log);
 *   - "execute_result" (3: "pyout"): its "text/plain";
 *   - "error" (3: "pyerr"): its traceback lines, or "ENAME: EVALUE";
 *   - "display_data" (images, HTML, widgets) is not text and is left
 *     out, as is an execute_result without text/plain.
 *
 * Outputs of one stream that follow each other are joined as they are
 * (Jupyter cuts a stream into outputs anywhere); any other output, and
 * a cell's output, ends its last line.  So each line of the log belongs
 * to one cell: notebook_where() gives the cell (1-based, counting every
 * cell, Markdown ones too, as an editor counts them) and the line in
 * that cell's output, which diagnostics, the log page and excerpts show
 * ("cell 7, line 12").  The log's own line numbers are what values keep
 * (datum line) and what the page's anchors (#L52) name. */
#ifndef LOGDOWN_NOTEBOOK_H
#define LOGDOWN_NOTEBOOK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

/* The lines of one cell's output in the log. */
struct nb_span {
	long first; /* its first line in the log (1-based) */
	long count; /* its lines */
	int cell;   /* the cell, 1-based */
	long exec;  /* its execution_count, or 0 */
};

struct notebook {
	char *text; /* the log: NUL-terminated, each line ending in '\n' */
	size_t len;
	long nlines;
	struct nb_span *spans; /* cells with text output, in order */
	size_t nspans;
	int ncells;
	size_t left_out; /* outputs that are not text (images, HTML) */
};

/* Is the file a notebook: a name ending in .ipynb, or (head: its first
 * n bytes) JSON that starts as Jupyter writes one, `{ "cells": [` with a
 * "cell_type" after it? */
bool notebook_sniff(const char *path, const char *head, size_t n);
/* notebook_sniff() over the file's first bytes; false when it cannot be
 * read (the caller's reading then says why). */
bool notebook_is(const char *path);
/* notebook_is() of the file at path known as name (its .ipynb), as
 * when path is a descriptor's (/proc/self/fd/N). */
bool notebook_is_named(const char *path, const char *name);

/* Reads the notebook at path (shown names it in diagnostics) into *nb.
 * Malformed JSON is an error at its line and column (nothing is kept);
 * a notebook without "cells" is an error; an output whose text is not
 * text (a number, a list holding one) is a warning at its place and is
 * left out, the rest kept.  A notebook without any text output is an
 * error saying so.  False after an error; free *nb in any case. */
bool notebook_load(const char *path, const char *shown, struct notebook *nb, struct diag *d);
void notebook_free(struct notebook *nb);

/* The cell of line `line` of the log and the line in that cell's
 * output; false for a line the log does not have. */
bool notebook_where(const struct notebook *nb, long line, int *cell, long *cell_line);
/* The span of the cell whose output holds `line`, or NULL. */
const struct nb_span *notebook_span(const struct notebook *nb, long line);

/* A file descriptor (a memory file, at offset 0) holding nb->text, for
 * the readers that take one; -1 with errno set.  Caller closes it. */
int notebook_fd(const struct notebook *nb);

#endif
