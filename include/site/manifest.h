/* manifest.h: OUT/manifest.json, what every build says it was built
 * from and what every report shows.
 *
 * For each report (sorted by slug): its slug and .md file; each run's
 * name, file, size, content hash ("xxh3-128:..." as `xxhsum -H2` prints
 * it, the hash the build cache keys files by), its parser and the hash
 * of that parser's definition, and the job ids and hosts found in it;
 * every inline value (where it is in the .md, its source as written,
 * the text shown, the number at full precision, the log line it came
 * from); every {table}'s cells as shown; every {chart}'s series (name,
 * point count, a hash of the points).  Paths are relative to the
 * project; nothing depends on the time or the machine: the same inputs
 * give the same bytes (docs/manual.md, "The manifest").
 *
 * The writing is here; comparing two manifests is valuediff.h's. */
#ifndef LOGDOWN_MANIFEST_H
#define LOGDOWN_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "data/cache.h"
#include "data/value.h"

#define MANIFEST_FILE "manifest.json"

struct doc;
struct report;
struct parser_set;

/* What an entry is made with: the project as named on the command line
 * and canonical (paths are written relative to it), the cache that
 * hashes files (may be NULL), the parsers, and where to warn of a run
 * with more job ids or hosts than limit manifest_facts lets it list
 * (may be NULL). */
struct manifest_ctx {
	const char *root;
	const char *root_real;
	struct cache *disk;
	const struct parser_set *parsers;
	struct diag *d;
};

/* The entry of report r, rendered into doc (after html_doc()), its runs
 * loaded.  Any thread.  Caller frees with value_free(). */
struct value *manifest_report(const struct manifest_ctx *m, const struct report *r,
			      const struct doc *doc);

/* The digits of a report's short hash: manifest_entry_hash(). */
#define MANIFEST_SHORT_HASH 12

/* The short hash of a report's entry (from manifest_report(), or as
 * read back from manifest.json: the same bytes): the first 12 hex digits
 * of the XXH3-128 hash of the entry written as JSON on its own by
 * manifest_put_json().  It changes when an input's hash, a parser or a
 * value, table cell or chart series shown changes.  Into out. */
void manifest_entry_hash(const struct value *entry, char out[MANIFEST_SHORT_HASH + 1]);

/* The manifest in folder dir (dir/manifest.json), `shown` naming the
 * folder in diagnostics.  NULL after reporting through d why not: no
 * such file ("... was built by a logdown without manifests or is not a
 * site: rebuild it"), a syntax error at its line and column, or not a
 * manifest.  Caller frees with value_free(). */
struct value *manifest_load(const char *dir, const char *shown, struct diag *d);

/* The entry of slug in manifest m (NULL: none), or NULL.  Borrowed. */
const struct value *manifest_find(const struct value *m, const char *slug);

/* manifest_find() for many slugs: a table of m's entries by slug (the
 * first entry of each, as manifest_find() finds it), so that a build
 * of n reused reports looks their entries up in O(n), not O(n^2).  m
 * is borrowed and must outlive it; m NULL gives an empty table. */
struct manifest_slugs;
struct manifest_slugs *manifest_slugs_new(const struct value *m);
const struct value *manifest_slugs_find(const struct manifest_slugs *t, const char *slug);
void manifest_slugs_free(struct manifest_slugs *t);

/* The digest of a report's entry (NULL: none) as the manifest writes
 * it: a report reused from the previous output takes its entry from
 * that output's manifest, which is as untrusted as the output, so the
 * reports list the next build reads keys each kept report with it too
 * (report_listed()): an entry edited since is not carried over. */
struct cache_key manifest_entry_digest(const struct value *entry);

/* The committed value of a relative claim (resolve/claim.h): in
 * manifest m (read from the folder `shown`), report slug's
 * occurrence-th claim on expr (as written), else its first value of
 * that expression (a claim added since m was built).  True with *num;
 * false with *why saying why not (caller frees). */
bool manifest_claim_base(const struct value *m, const char *shown, const char *slug,
			 const char *expr, size_t occurrence, double *num, char **why);

/* The manifest of entries (taken in any order; written sorted by slug,
 * not freed) as JSON text into out. */
void manifest_write(struct buf *out, const struct value *const *entries, size_t n);

/* A value tree as the manifest writes JSON: two spaces an indent, a
 * list of scalars on one line, a number as written.  Appends to out. */
void manifest_put_json(struct buf *out, const struct value *v);

#endif
