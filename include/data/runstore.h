/* runstore.h: a parsed run as the build cache keeps it on disk
 * (.logdown-cache/runs/<key>.run): a columnar binary file that a later
 * build maps and reads in place, without parsing or copying its series.
 * The layout is in runstore.c and docs/internals.md ("The build
 * cache"); cache.c decides where the files go and when. */
#ifndef LOGDOWN_RUNSTORE_H
#define LOGDOWN_RUNSTORE_H

#include <stdbool.h>
#include <stddef.h>

#include "data/cache.h"
#include "data/run.h"
#include "data/seal.h"

/* The format number a run store's header carries. */
#define RUNSTORE_FORMAT 2u

/* Writes r (a run without members) under key to fd, a new empty file
 * open for reading and writing (the seal's digest is taken over what
 * was written, read back), from its start, sealed under sk (seal.h).  False when it could not (a write
 * failed, errno set; or r has members, errno EINVAL): the caller then
 * removes the file. */
bool runstore_write(int fd, const struct seal_key *sk, const struct cache_key *key,
		    const struct run *r);

/* runstore_write() in two steps, for a caller that seals on another
 * thread while it reads the run: the body (sections and directory)
 * written to fd, *out saying where; then the seal's digest taken over
 * it and the header written.  False as runstore_write(). */
struct runstore_body {
	uint64_t size, dir_off, dir_size;
};
bool runstore_write_body(int fd, const struct run *r, struct runstore_body *out);
bool runstore_seal(int fd, const struct seal_key *sk, const struct cache_key *key,
		   const struct runstore_body *b);
/* The run whose body runstore_write_body() just wrote to fd under key
 * (this process wrote it: no seal is checked, its header need not be
 * there yet), read in place as runstore_map() gives it (its series'
 * origin is key); NULL when it cannot be mapped. */
struct run *runstore_map_written(int fd, const struct cache_key *key,
				 const struct runstore_body *b);
/* Whether the writer may use a second thread: LOGDOWN_STORE_THREADS (1
 * or 2), else on a machine of two cores or more. */
bool runstore_threaded(void);

/* Why runstore_map() refused a file. */
enum runstore_verdict {
	RUNSTORE_OK,
	RUNSTORE_DAMAGED,       /* truncated, corrupted, or not a run store */
	RUNSTORE_OTHER_VERSION, /* another format or another logdown's */
	RUNSTORE_UNREADABLE,    /* mapping it failed (errno) */
	RUNSTORE_OTHER_KEY,     /* sealed by another user, or on another machine */
	RUNSTORE_FORGED,        /* this user's key id, but the seal does not match */
};

/* Maps the run store open at fd (a regular file of `size` bytes) and
 * checks it: its header (format, the binary's version, key, sizes, its
 * own checksum), its seal under sk over the header and the whole body,
 * and every section's place.  With body_known, the caller vouches that
 * this very file (same inode, size and times, recorded under the
 * user's key) passed the seal before: the body is not read again.
 * The run it gives reads its series from the mapping, which it holds
 * until run_free().  NULL and *verdict otherwise.  fd may be closed
 * afterwards. */
struct run *runstore_map(int fd, size_t size, const struct seal_key *sk,
			 const struct cache_key *key, bool body_known,
			 enum runstore_verdict *verdict);

#endif
