/* snapshot.h: which version of each of a set of files there is, to
 * tell what changed between two moments (`logdown serve` polls with
 * it).
 *
 * A file's version is whether it exists, its size, mtime, inode and
 * change time: a file replaced by rename gets a new inode, one written
 * in place a new change time. */
#ifndef LOGDOWN_SNAPSHOT_H
#define LOGDOWN_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct snapshot_file {
	char *path;
	/* size, mtime s and ns, inode, ctime s and ns; v[0] is -1 for a
	 * missing file, -2 for one changed while a build ran
	 * (snapshot_as_of()) */
	long long v[6];
};

struct snapshot {
	struct snapshot_file *f; /* sorted by path after snapshot_sort() */
	size_t n;
};

/* Adds path's version (missing is a version too).  The path is copied. */
void snapshot_add(struct snapshot *s, const char *path);

/* Adds every file under dir, recursively; folders themselves are not
 * added.  Symbolic links are followed by stat() but not walked into, so
 * a loop cannot trap the poll. */
void snapshot_tree(struct snapshot *s, const char *dir);

/* Sorts s by path and keeps each path once.  snapshot_diff() and
 * snapshot_as_of() take sorted snapshots. */
void snapshot_sort(struct snapshot *s);

/* Calls fn (when not NULL) for every path added, removed or changed
 * from a to b, with whether it existed in a and exists in b; returns
 * how many there were. */
size_t snapshot_diff(const struct snapshot *a, const struct snapshot *b,
		     void (*fn)(void *ctx, const char *path, bool existed, bool exists),
		     void *ctx);

/* Makes after, taken when a build ended, say what the build saw, so
 * that nothing changed while it ran goes unnoticed: a path also in
 * before (taken before the build started) keeps before's version, and
 * one only in after (a file the build read for the first time) whose
 * change time is at or after start (snapshot_clock() read before the
 * build) is marked changed.  The next comparison with a fresh snapshot
 * then shows every change made after before, at the cost of at most one
 * build more than needed. */
void snapshot_as_of(struct snapshot *after, const struct snapshot *before, struct timespec start);

/* The clock file change times are set from, for snapshot_as_of(). */
struct timespec snapshot_clock(void);

/* Frees what s holds and empties it; s itself is the caller's. */
void snapshot_free(struct snapshot *s);

#endif
