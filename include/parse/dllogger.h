/* dllogger.h: NVIDIA DLLogger's JSON stream (format: dllogger).
 *
 * DLLogger's JSONStreamBackend writes one line per event,
 *
 *   DLLL {"timestamp": "1587451057.91385", "datetime": "...",
 *         "elapsedtime": "91.662534", "type": "LOG", "step": [0, 0],
 *         "data": {"average_loss": 3.62, "step_loss": 3.699}}
 *
 * to its JSON file, and the same lines reach a log after other text
 * (`[1,0]<stdout>:DLLL {...}`).  A file becomes:
 *
 *   series log     one row per event whose step is a list of numbers
 *                  or a number: columns step_0, step_1, ... (the list's
 *                  items: [epoch, iteration] in NVIDIA's examples) or
 *                  step (a number), elapsedtime, then every key of
 *                  the events' data in snake_case, in first-seen order
 *                  (a row without a key has it missing);
 *   fields         the data of "PARAMETER" events (step "PARAMETER" or
 *                  type "PARAMETER") and of the summary (step []), in
 *                  snake_case, the last event's value of each key.
 *
 * Only scalar data values are kept (a list or an object is left out).
 * A malformed DLLL line is a warning at its line and column; the rest
 * of the file is read. */
#ifndef LOGDOWN_DLLOGGER_H
#define LOGDOWN_DLLOGGER_H

#include <stdbool.h>

#include "base/diag.h"
#include "data/run.h"

/* Reads the file at path into r; `shown` names it in diagnostics.
 * False when it cannot be read (reported). */
bool dllogger_read(struct run *r, const char *path, const char *shown, struct diag *d);

#endif
