/* cache.h: the on-disk build cache (PROJECT/.logdown-cache/).
 *
 * Everything in it is keyed by content hashes (XXH3, 128 bits) of what
 * a result depends on, together with the cache format and the binary's
 * version, so that an answer found there is the answer a fresh build
 * would give.  A file's hash is remembered with its stat signature
 * (size, mtime, inode, device, ctime): an unchanged file is not read
 * again, but the decision is always the hash's.
 *
 *   .logdown-cache/CACHEDIR.TAG     marks it (backup tools skip it;
 *                                    `logdown clean` removes only a
 *                                    folder that has it)
 *   .logdown-cache/files            path -> stat signature, content hash;
 *                                    also the run stores whose seal was
 *                                    checked, the raw copies in the
 *                                    output (cache_output_note()), and
 *                                    logs' hashes up to a resume point
 *                                    (cache_fd_prefix_known())
 *   .logdown-cache/runs/<key>.run   one parsed run, in runstore.h's
 *                                    form: mapped, not read
 *   .logdown-cache/runs/<key>.scan  a log's resume state (appends:
 *                                    parse/scanstate.c), by its path
 *   .logdown-cache/reports-<out>    for one output folder: the key each
 *                                    report was built with
 *   .logdown-cache/memo-<report>    one report's values and charts kept
 *                                    by the keys of their inputs (memo.h)
 *
 * Every other file starts with a header (magic, format number, kind,
 * the binary's version, the id of the user's key) and ends with a
 * checksum of all before it; a run's is a run store (runstore.h), with
 * a header of its own.  Each is sealed with the user's key (seal.h: a
 * file another user wrote, or anyone changed, is not used), written to
 * a temporary file and renamed into place.  A file that is damaged,
 * not ours or not this user's is reported once per build with a warning and
 * ignored (and replaced); one written by another version is ignored
 * silently.  Without a key logdown can trust (seal_key_load()), the
 * cache is neither read nor written.  All functions may be called from
 * several threads. */
#ifndef LOGDOWN_CACHE_H
#define LOGDOWN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/fsutil.h" /* struct line_index, struct stat */

#include "base/diag.h"
#include "data/run.h"

#define CACHE_DIR ".logdown-cache"

/* A 128-bit key or content hash. */
struct cache_key {
	unsigned char b[16];
};

/* Building a key: the cache's format and the binary's version first,
 * then every input, each one length-prefixed. */
struct cache_hasher;
struct cache_hasher *cache_hasher_new(void);
void cache_hasher_str(struct cache_hasher *h, const char *s);
void cache_hasher_bytes(struct cache_hasher *h, const void *p, size_t n);
void cache_hasher_key(struct cache_hasher *h, const struct cache_key *k);
/* The key; frees h. */
struct cache_key cache_hasher_end(struct cache_hasher *h);
/* The key of what h has taken so far; h goes on. */
struct cache_key cache_hasher_digest(const struct cache_hasher *h);

/* XXH3-128 of p[0..n), as cache_file_hash() hashes a file. */
struct cache_key cache_hash_bytes(const void *p, size_t n);
/* cache_hash_bytes() of bytes given in pieces: the same digest as of
 * their concatenation (no prefix, no lengths). */
struct cache_hasher *cache_hasher_plain(void);
void cache_hasher_plain_bytes(struct cache_hasher *h, const void *p, size_t n);
/* h's state as bytes appended to out, for a later build to go on
 * hashing where h is (a chart's digest carried over an append); and a
 * hasher made from such bytes (caller ends it with cache_hasher_end()),
 * NULL when they are not a state that this libxxhash wrote. */
void cache_hasher_save(const struct cache_hasher *h, struct buf *out);
struct cache_hasher *cache_hasher_load(const void *p, size_t n);
/* k as text naming its algorithm, "xxh3-128:" and 32 hex digits (the
 * canonical, big-endian form: xxhsum's), NUL-terminated. */
#define CACHE_KEY_TEXT 42
void cache_key_text(const struct cache_key *k, char out[CACHE_KEY_TEXT]);

struct cache;

/* Opens the cache of the project at root.  When writable, what the build
 * adds is written back; otherwise (check) it is only read.  Never NULL. */
struct cache *cache_open(const char *root, bool writable);
/* Reports, as one warning through d, the first problem found in the
 * cache since the last call (a damaged file, a folder not logdown's);
 * once per cache.  Call it from one thread. */
void cache_report(struct cache *c, struct diag *d);
/* Writes the file hashes used by this build (when writable) and frees
 * c; NULL is a no-op.  Joins the checks cache_speculate() left running
 * first, and writes no file hash when one failed. */
void cache_close(struct cache *c);
/* Lets c's reads of a file that only grew (or whose racy row is read
 * again) go on before the proof of its old bytes is checked: the last
 * piece is checked at once, the others on threads of their own, and the
 * read takes the content hash from the proof's state meanwhile (docs/
 * internals.md, "Appends", *The proof checked beside the build*).  What
 * a build makes of such a hash is the right output for that content
 * (old bytes as proved, then the new ones) but not yet known to be the
 * file's: call cache_proofs_join() before the build commits or keeps
 * anything that says what the file holds.  Off by default; NULL: no-op. */
void cache_speculate(struct cache *c, bool on);
/* Waits for every check cache_speculate() let reads leave running:
 * true when each held (or none ran).  False once one failed: that
 * build read a file as holding what it does not, so it must be thrown
 * away (its output not committed), and c writes no file hash when
 * closed; the build is then made again with a fresh cache_open().
 * NULL: true. */
bool cache_proofs_join(struct cache *c);

/* The content hash of the file at path (its canonical path), through
 * the remembered stat signatures; c NULL (--no-cache) reads the file
 * and remembers nothing.  The hash is XXH3-128 of the bytes, as
 * `xxhsum -H2` prints it.  False when it cannot be read. */
bool cache_file_hash(struct cache *c, const char *path, struct cache_key *out);

/* What a hash was taken from: the file's stat signature, taken before
 * its bytes were read, and whether it is "racy" (changed less than 2 s
 * before: a write in the same clock tick might not move its times). */
struct cache_stamp {
	long long sig[5];
	bool racy;
};
/* cache_file_hash(), and the stamp of what was hashed. */
bool cache_file_hash_stamped(struct cache *c, const char *path, struct cache_key *out,
			     struct cache_stamp *stamp);
/* cache_file_hash_stamped() of the file open at fd (its stat signature
 * and its bytes, read from its start), remembered under path: the
 * bytes hashed are those of the file that was opened and checked, not
 * of whatever path leads to now. */
bool cache_fd_hash_stamped(struct cache *c, const char *path, int fd, struct cache_key *out,
			   struct cache_stamp *stamp);
/* cache_fd_hash_stamped(), and when the file's bytes are read for it
 * (not remembered), or were read by this build with this mid, and it
 * holds at least mid bytes, the XXH3-128 of its first mid bytes into
 * *prefix (*prefix_ok), in the same read (a log that grew: its bytes
 * before a resume point, parse/runs.c).  The read also stops where the
 * file's row ended before (cache_fd_grew()).  fd -1: the file at path. */
bool cache_fd_hash_mid(struct cache *c, const char *path, int fd, struct cache_key *out,
		       struct cache_stamp *stamp, uint64_t mid, struct cache_key *prefix,
		       bool *prefix_ok);
/* A file's content hash taken in another reader's read of it (the
 * parse's: docs/internals.md, "One read of a new log"), so that a log
 * the build must read whole anyway is not read a second time to hash
 * it.  cache_reads_whole(): is the file at path one whose content the
 * cache cannot know (no row for path, or one of more bytes than it has
 * now: a row of fewer is a log that grew, whose proof checks its first
 * bytes, and one of as many may be this content, touched or checked out
 * again), and big enough to be worth it (8 MiB)?
 * cache_fd_read_begin(): the same for the file open at fd, its stamp
 * taken (as cache_fd_hash_stamped()'s); NULL when not.  The reader then
 * hands cache_read_feed() every byte of the file in order from the
 * first (ctx: the struct cache_read), and cache_read_end(), which frees
 * it, gives their hash, puts it on path's row with the proof
 * cache_fd_hash_mid() would make, and returns true, when they were the
 * whole file as it was at the start and it did not change since; false
 * otherwise (nothing kept: what was read has no hash to be known by). */
struct cache_read;
bool cache_reads_whole(struct cache *c, const char *path);
struct cache_read *cache_fd_read_begin(struct cache *c, const char *path, int fd,
				       struct cache_stamp *stamp);
void cache_read_feed(void *ctx, const void *p, size_t n);
bool cache_read_end(struct cache_read *rd, struct cache_key *out);
/* Frees a read not ended (nothing kept). */
void cache_read_drop(struct cache_read *rd);

/* The hash cache_fd_hash_stamped() remembered for path, when the file
 * open at fd still has the signature it was hashed with and was not
 * racy; false (nothing read) otherwise. */
bool cache_fd_hash_known(struct cache *c, const char *path, int fd, struct cache_key *out);
/* The hash this build's read of path took, racy or not, when the file
 * open at fd still has the signature it was read with (a racy row
 * kept from an earlier build has none: it is read again); false
 * otherwise.  What a step that needs the bytes the build read, not a
 * promise about the file's future, asks: a raw copy that holds them,
 * untouched, is this build's copy (site/keepcopy.c). */
bool cache_fd_hash_read(struct cache *c, const char *path, int fd, struct cache_key *out);

/* A racy file's hash (*out), for a step that used the file since this
 * build's read of it (a copy of it): true when that read began more
 * than a tick of the file system's clock after the file's last change,
 * and the file at path still has the signature it had then, so that
 * the file held those bytes from the read until now.  The same call
 * before and after the step. */
bool cache_fd_racy_still(struct cache *c, const char *path, struct cache_key *out);

/* Appends (docs/internals.md): what this build's read of a file (the
 * one cache_fd_hash_mid() made, kept on path's row while the file open
 * at fd has the signature it was read with) found on the way, so that
 * the build's later steps read only the bytes after it.
 *
 * cache_fd_hasher_at(): a hasher (cache_hasher_plain()'s kind) that has
 * taken the file's first `at` bytes as that read hashed them, where the
 * read stopped at `at` (a mid given, or the size the row had before);
 * fed the file's bytes from `at` on, it ends in the file's content
 * hash.  NULL when the read did not stop there.  Caller ends it with
 * cache_hasher_end(). */
struct cache_hasher *cache_fd_hasher_at(struct cache *c, const char *path, int fd, uint64_t at);
/* The hash of the first `at` bytes of the file open at fd, as a read
 * of it in this build or an earlier one took it (cache_fd_hash_mid()'s
 * mid) when the file was not racy, while the file has the signature it
 * had then: the trust its content hash has.  False otherwise. */
bool cache_fd_prefix_known(struct cache *c, const char *path, int fd, uint64_t at,
			   struct cache_key *out);
/* When that read found the file's first bytes to be the content its
 * row had before (the file only grew since the last build): that
 * content's size and hash, and the file's hash now; false otherwise. */
bool cache_fd_grew(struct cache *c, const char *path, int fd, uint64_t *old_size,
		   struct cache_key *old_hash, struct cache_key *hash);

/* A log page's count of the lines of the file open at fd (as
 * fd_count_lines_indexed() gives them, reading fd from where it stands:
 * its start), remembered on path's row while the file keeps the
 * signature its hash was taken with: an unchanged 1 GB log is not read
 * again to count them, and one that only grew has had the lines of its
 * new bytes counted by the read that hashed it (cache_fd_hash_mid()).
 * Fills lines, bytes and ix (whose `every` the caller sets: another
 * spacing is not known; free ix->starts), reading through buf when they
 * are not known; a racy file's count is remembered only when the bytes
 * counted hash as the row's.  False on a read error, errno set. */
bool cache_fd_lines_count(struct cache *c, const char *path, int fd, char *buf, size_t cap,
			  long *lines, unsigned long long *bytes, struct line_index *ix);
/* Remembers such a count taken by another read of the file open at fd
 * (the parse's: the log page then reads only the lines it shows), on
 * the terms above: nothing when the row is not the file's, and a racy
 * row's only when `checked`, the hash of the bytes counted, is the
 * row's. */
void cache_fd_lines_note(struct cache *c, const char *path, int fd, long lines,
			 unsigned long long bytes, const struct line_index *ix,
			 const struct cache_key *checked);

/* A file the build put into its output (rel below the output folder
 * final), copied from content: remembered by its inode, size and times
 * (st, as fstatat() gave them without following a link) in the sealed
 * files table, so that the next build may leave it where it is rather
 * than copy it again.  cache_output_note() remembers it only when its
 * times are old enough that a write after st was taken moves them (more
 * than a tick of the file system's clock: 20 ms, or 2 s where times
 * have no nanoseconds); false when it did not. */
bool cache_output_note(struct cache *c, const char *final, const char *rel,
		       const struct stat *st, const struct cache_key *content);
/* Is the file st of the output the one cache_output_note() remembered
 * under final and rel, copied from content, untouched since? */
bool cache_output_known(struct cache *c, const char *final, const char *rel,
			const struct stat *st, const struct cache_key *content);

/* After the file at path was read again (parsed): true when what was
 * read is what was hashed, that is, the file did not change since the
 * stamp was taken: its signature is the same and, for a racy stamp, its
 * bytes still hash to hash.  A run parsed from a file that changed is
 * not stored under the old content's key. */
bool cache_file_unchanged(const char *path, const struct cache_stamp *stamp,
			  const struct cache_key *hash);
/* cache_file_unchanged() of a file (open at fd) whose bytes before
 * `from` were not read again since they were hashed (a resumed parse
 * reads only those after: its run comes from the state checked against
 * the bytes before, in the hash's read): a racy file's bytes from `from`
 * on are hashed again, going on from that read (cache_fd_hasher_at());
 * the whole file when the read did not stop at `from`. */
bool cache_fd_unchanged_from(struct cache *c, const char *path, int fd,
			     const struct cache_stamp *stamp, const struct cache_key *hash,
			     uint64_t from);

/* The run stored under key, or NULL (a damaged file, or one another
 * version wrote, is a warning and is removed).  Its series read the
 * stored file in place (mapped) until run_free().  Caller frees with
 * run_free(). */
struct run *cache_run_get(struct cache *c, const struct cache_key *key);
/* Stores r under key (when writable). */
void cache_run_put(struct cache *c, const struct cache_key *key, const struct run *r);
/* cache_run_put(), and the run as stored: read in place from the file
 * just written (mapped, as cache_run_get() gives it, its body's seal
 * not taken again: this build sealed those very bytes), so that the
 * caller may free r, whose rows sit in memory, and keep this one.  NULL
 * when nothing was stored or it cannot be mapped.  Caller frees with
 * run_free(). */
struct run *cache_run_put_mapped(struct cache *c, const struct cache_key *key,
				 const struct run *r);
/* Marks the run under key as one this build uses (cache_run_get()'s hits
 * and cache_run_put()'s runs are marked already): a page reused without
 * loading its runs marks theirs, so that they outlive the prune. */
void cache_run_keep(struct cache *c, const struct cache_key *key);
/* A log's resume state stored under key (runs/<key>.scan: parse/
 * scanstate.c), appended to out; false when there is none, or, with one
 * warning and the file removed, when it is damaged, another user's or
 * altered (sealed as every cache file).  Marked as cache_run_keep()
 * marks a run. */
bool cache_state_get(struct cache *c, const struct cache_key *key, struct buf *out);
/* Stores data[0, len) as the resume state under key (when writable). */
void cache_state_put(struct cache *c, const struct cache_key *key, const void *data, size_t len);
/* Removes every stored run this build did not mark (when writable): the
 * runs of result files that changed or are no longer used.  Reads no
 * run and hashes nothing.  Call once, after a build that succeeded. */
void cache_runs_prune(struct cache *c);

/* A report's memo (memo.h), a file of the cache named by the report's
 * path: _read() puts its body in body (emptied first), checked and
 * sealed as every file is, and marks it kept (cache_memo_keep());
 * false when there is none or it is damaged, altered or another user's
 * (the cache's one warning; it is removed).  _write() seals p[0..n) as
 * the report's memo (when writable). */
bool cache_memo_read(struct cache *c, const char *report, struct buf *body);
void cache_memo_write(struct cache *c, const char *report, const void *p, size_t n);
/* Marks the memo of the report at path as one of this build's reports',
 * rendered or not: cache_memo_prune() then keeps it. */
void cache_memo_keep(struct cache *c, const char *report);
/* Removes the memos of reports this build did not mark (when
 * writable).  Call once, after a build that succeeded. */
void cache_memo_prune(struct cache *c);

/* Report keys, per output folder (its canonical path).  The keys hold
 * for the folder only as long as it is the one the last build with the
 * cache wrote: its marker file's signature is recorded with them. */
struct cache_reports;
/* The keys recorded for out, or an empty set when out was written
 * since by someone else (a --no-cache build) or never. */
struct cache_reports *cache_reports_load(struct cache *c, const char *out);
/* Did slug's report get built with key? */
bool cache_reports_has(const struct cache_reports *r, const char *slug, const struct cache_key *key);
/* Records slug's key for the next build (in a fresh set). */
void cache_reports_add(struct cache_reports *r, const char *slug, const struct cache_key *key);
/* Starts a fresh set for out: what this build records. */
struct cache_reports *cache_reports_new(void);
/* Writes r as the keys of out, whose marker file now is `marker`
 * (when writable), and frees r. */
void cache_reports_save(struct cache *c, struct cache_reports *r, const char *out,
			const char *marker);
void cache_reports_free(struct cache_reports *r);

/* Removes root's cache folder (only when it is marked as ours).  False
 * when it could not; errno tells why. */
bool cache_remove(const char *root);

/* The version the cache is keyed by: LOGDOWN_VERSION, or the value of
 * the environment variable LOGDOWN_CACHE_VERSION when set (the tests
 * use it to play a new binary). */
const char *cache_version(void);

#endif
