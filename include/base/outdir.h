/* outdir.h: writing the site into a fresh folder, swapped in on success.
 *
 * A build writes into a hidden sibling of the output folder, marked as
 * logdown's with a .logdown-site file.  Only when everything succeeded
 * does it replace the output, which must itself be marked (or empty, or
 * absent): a failed build leaves the previous site as it was, and
 * logdown never deletes a folder it did not make. */
#ifndef LOGDOWN_OUTDIR_H
#define LOGDOWN_OUTDIR_H

#include <stdatomic.h>
#include <stdbool.h>

#include "base/diag.h"
#include "base/util.h"

#define OUTDIR_MARKER ".logdown-site"

struct outdir {
	char *final;   /* the output folder, canonical (see path_resolve()) */
	char *shown;   /* and as the user named it, for messages */
	char *staging; /* where this build writes: a hidden sibling of final */
	char *prefix;  /* staging folders' names up to the pid: "PARENT/.BASE.tmp-" */
	bool swapped;  /* staging now holds the previous output */
	char **moves;  /* folders of the previous output kept (outdir_keep()) */
	size_t nmoves, moves_cap;
	int lock; /* the descriptor holding the output's lock, or -1 */
	/* called by outdir_commit() once the new output is in place, before
	 * it returns (site/keepcopy.c: the new bytes of a kept log's copy);
	 * NULL: nothing */
	void (*committed)(void *ctx);
	void *committed_ctx;
	/* a file of the previous output was linked into staging
	 * (outdir_link()): until then a write has nothing to unlink first */
	atomic_bool linked;
};

/* Checks that out may be replaced and creates the staging folder.  It
 * refuses (reporting through d) the project root, a folder that holds
 * the project, a folder holding content/ or lying inside one of the
 * source folders (content/, static/, templates/, parsers/), and
 * an existing non-empty folder without the marker.  Returns EXIT_OK,
 * EXIT_USAGE for a refused folder, EXIT_BUSY when another build holds
 * the output's lock (below), EXIT_IO on an I/O error; problems are
 * reported through d. */
int outdir_begin(struct outdir *o, const char *root, const char *out, struct diag *d);

/* Swaps the staging folder in place of the output, atomically where the
 * file system can.  With folders kept (outdir_keep()), the new site is
 * merged into the output instead, one atomic exchange per entry, around
 * the kept folders, so that every page in both sites can be opened at
 * every moment; a commit killed amid it leaves a journal from which the
 * next build (or outdir_sweep()) undoes it, and until then every page is
 * whole, the previous one or the new one.  Returns false on an I/O
 * error, reported through d; the previous output is then kept as it was. */
bool outdir_commit(struct outdir *o, struct diag *d);

/* Removes the staging folder and frees o; the output is untouched.
 * After outdir_commit() the staging folder holds the previous output:
 * it moves into the marked staging folder of a detached remover (a
 * shell posix_spawn()ed in a session of its own), which removes it with
 * rm after this process has gone on (a build does not wait for
 * thousands of unlink() and rmdir()); a remover that is killed leaves a
 * marked folder of a dead process, which the next build sweeps.  Safe in
 * a process with threads (nothing runs in a copy of this one), and
 * bounded: a handoff that has not worked within 3 s is given up, its
 * stalled process killed, and the folder removed here. */
void outdir_end(struct outdir *o);

/* Writes data to REL inside the staging folder, creating folders. */
bool outdir_write(struct outdir *o, const char *rel, const char *data, size_t len,
		  struct diag *d);
/* The same, the file being the n parts one after another. */
bool outdir_write_spans(struct outdir *o, const char *rel, const struct span *parts, size_t n,
			struct diag *d);

/* Copies the file src to REL inside the staging folder, creating
 * folders; a failure is reported through d. */
bool outdir_copy(struct outdir *o, const char *rel, const char *src, struct diag *d);
/* outdir_copy() from the file open at fd (from its start; its offset
 * moves), named shown in a diagnostic: for a file opened once and
 * checked on its descriptor (open_confined()). */
bool outdir_copy_fd(struct outdir *o, const char *rel, int fd, const char *shown,
		    struct diag *d);

/* Renames the file from (a path inside the staging folder) to REL
 * inside it, creating folders: a file made there beforehand (a raw copy
 * made early, site/earlycopy.c) put in its place.  False (errno set,
 * nothing reported, from left where it was) when it cannot be. */
bool outdir_move_in(struct outdir *o, const char *rel, const char *from);

/* Puts the previous output's file REL at REL inside the staging folder
 * as a hard link (a copy where links cannot be made), creating folders.
 * Safe because no file of an output is ever changed in place:
 * outdir_write() and outdir_copy() replace the file they write. */
bool outdir_link(struct outdir *o, const char *rel, struct diag *d);

/* Sweeps what killed builds left beside the output folder out: their
 * staging folders, and the previous outputs their children were
 * removing (after putting back any folder a killed commit had moved;
 * see outdir_keep()).  A folder of a live process is left alone, and
 * nothing is done while a build holds the output's lock. */
void outdir_sweep(const char *out);

/* Takes the output's lock (below) for something other than a build
 * (`logdown clean`): its descriptor (close it to let go), or -1, with
 * *busy true when a build holds it, false when there is no lock file
 * (no build has run) or the output cannot be resolved. */
int outdir_lock(const char *out, bool *busy);

/* Keeps the previous output's folder REL (relative, canonical, with no
 * other folder named for keeping below or above it) where it is: the
 * commit puts the new site around it instead of rendering or linking it
 * again.  The staging folder must not get anything at REL.  On a file
 * system without renameat2(RENAME_EXCHANGE) the folder moves into the
 * staging folder before a two-rename swap instead (journaled in the
 * staging folder's name + ".moved", put back by the next build). */
void outdir_keep(struct outdir *o, const char *rel);

/* Taken by outdir_begin() and held until outdir_end(): a lock on the
 * output (flock(2) on the file .BASE.lock beside it, never removed), so
 * that a second build into the same output fails at once with "another
 * build is writing OUT" and EXIT_BUSY. */

#endif
