/* provenance.h: where every value came from, and the pages that show it.
 *
 * Each result file a report uses is copied into _site/<report>/logs/ and
 * gets an HTML view with an anchor per line (#L<n>).  Values and table
 * cells link to their line there; a computed value names its inputs in
 * a tooltip. */
#ifndef LOGDOWN_PROVENANCE_H
#define LOGDOWN_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

struct buf;
struct outdir;
struct provenance;

/* The provenance of one report.  report_dir is the report's source
 * folder, root_real the canonical project root.  Caller frees with
 * provenance_free(). */
struct provenance *provenance_new(const char *report_dir, const char *root_real);
void provenance_free(struct provenance *p);

/* The page of `file` (a run's file, as run_file() shows it) relative to
 * the report's page, for a link to line `line`: "logs/bs512.log.html#L52"
 * appended to b.  Registers the file (and the line, so that a view of a
 * very large log keeps it). */
void provenance_href(struct provenance *p, struct buf *b, const char *file, long line);

/* Registers file as used without a particular line (a {log} excerpt's
 * run, a table's run). */
void provenance_use(struct provenance *p, const char *file);

/* Writes, for every registered file, the raw copy and its HTML view
 * into the output: <report>/logs/<name> and <name>.html, through o (NULL
 * when checking: nothing written).  site_root is the "../" prefix from a
 * log page to the site root (for the stylesheet).  Returns false on an
 * I/O error, reported through d. */
bool provenance_write(struct provenance *p, struct outdir *o, const char *slug,
		      const char *site_root, struct diag *d);

#endif
