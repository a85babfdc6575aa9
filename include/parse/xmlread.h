/* xmlread.h: XML result files into runs, read with expat.
 *
 * Two ways to read one, by the parser's format (docs/parsers.md,
 * "XML files"):
 *
 *   format: xml    generic: the root element's attributes are fields;
 *                  every other element with attributes is a row of the
 *                  series named by its element (its attributes the
 *                  columns, its own text the column `text`); an element
 *                  with text and no attributes is a cell of its parent's
 *                  row, or a field named by its path below the root.
 *   format: junit  JUnit XML (gtest, pytest, ctest, ...): the fields
 *                  tests, failures, errors, skipped, passed and time, the
 *                  series testcases(suite, classname, name, time, status,
 *                  message) and testsuites(name, tests, failures, errors,
 *                  skipped, time).
 *
 * Each row's line is its element's start line.  The file is streamed:
 * memory grows with the rows kept, not with the file.  A file cut short
 * or broken after its root element opened is a warning at the line and
 * column where expat stopped, and what came before it is kept; a file
 * that is not XML at all is an error. */
#ifndef LOGDOWN_XMLREAD_H
#define LOGDOWN_XMLREAD_H

#include <stdbool.h>

#include "base/diag.h"
#include "data/run.h"

/* Each reads the file at path into r; `shown` names it in diagnostics.
 * False after an error (reported); a warning leaves it true. */
bool xmlread_generic(struct run *r, const char *path, const char *shown, struct diag *d);
bool xmlread_junit(struct run *r, const char *path, const char *shown, struct diag *d);

#endif
