/* memo.h: results kept by the keys of their inputs (a report's memo).
 *
 * What a report computes from whole series (an aggregation's value, a
 * chart's drawings) is kept in the build cache under a key of
 * everything it depends on, so that a build whose inputs did not
 * change reads none of those series again (docs/internals.md, "The
 * memo").  One memo a report, a sealed file of the cache
 * (cache_memo_read()): the entries its last render got or put, each a
 * key and opaque bytes that the caller encodes and decodes (data/wire.h).  An entry the render did not use is not written back:
 * the memo never grows over edits.  A memo is used by one thread. */
#ifndef LOGDOWN_MEMO_H
#define LOGDOWN_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "data/cache.h"
#include "data/wire.h"

struct memo;

/* The memo of the report at path (as the build names it) in c, read
 * and checked (a damaged, altered or foreign one is the cache's one
 * warning and an empty memo); NULL when c is NULL (no cache).  Caller
 * frees with memo_close(). */
struct memo *memo_open(struct cache *c, const char *report);
/* The bytes kept under key, valid until memo_close(); the entry is then
 * kept for the next build.  False when there are none (or m is NULL). */
bool memo_get(struct memo *m, const struct cache_key *key, struct span *out);
/* Keeps p[0..n) under key (copied), for this build and the next. */
void memo_put(struct memo *m, const struct cache_key *key, const void *p, size_t n);
/* Writes the entries this render got or put back to the cache, when
 * they are not what was read, and frees m; NULL is a no-op. */
void memo_close(struct memo *m);

/* Entries are encoded with data/wire.h; a string that may be NULL as a
 * flag, then the string: */
void memo_put_str(struct buf *b, const char *s);
/* A copy of a memo_put_str()'s string (NULL for NULL); caller frees. */
char *memo_rd_str(struct wire_rd *r);

#endif
