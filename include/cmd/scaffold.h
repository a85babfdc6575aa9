/* scaffold.h: `logdown new DIR`, a starter project that builds as it is. */
#ifndef LOGDOWN_SCAFFOLD_H
#define LOGDOWN_SCAFFOLD_H

#include "base/diag.h"

/* Writes a starter project into dir, which must be absent or empty.
 * Returns an exit code: EXIT_OK, EXIT_USAGE when dir is in use, EXIT_IO
 * when a file cannot be written (reported through d). */
int scaffold_new(const char *dir, struct diag *d);

#endif
