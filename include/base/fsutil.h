/* fsutil.h: files, folders and paths.  Every function that fails leaves
 * errno set so that the caller can report strerror(errno). */
#ifndef LOGDOWN_FSUTIL_H
#define LOGDOWN_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "base/util.h"

struct buf;

/* Appends the whole file to out.  Returns false with errno set; a
 * folder is refused with EISDIR, and anything else that is not a regular
 * file (a FIFO, a device) with EINVAL, never blocking on it.  `limit`, when not NULL, caps the size
 * read (files larger than *limit fail with EFBIG). */
bool file_read(const char *path, struct buf *out, const size_t *limit);
/* Writes data to path, replacing it.  Returns false with errno set;
 * a symbolic link at path is refused (ELOOP), never written through.
 * file_copy() writes its target the same way. */
bool file_write(const char *path, const char *data, size_t len);
/* The same, the file being the n parts one after another (a file made
 * in pieces, not copied into one buffer first). */
bool file_write_spans(const char *path, const struct span *parts, size_t n);
/* An open read-only descriptor for the regular file path, its stat in
 * *st (NULL: not wanted); -1 with errno set (EISDIR for a folder,
 * EINVAL for a FIFO or a device, never blocking on one). */
int open_regular(const char *path, struct stat *st);
/* True when two stats of a file are of the same inode on the same
 * device, with the same size and the same modify and change times to
 * the nanosecond: no write, truncation, rename over it or copy into it
 * happened between them (within the file system's clock tick). */
bool stat_unchanged(const struct stat *a, const struct stat *b);
/* What open_regular()'s errno e says: "not a regular file" for EINVAL. */
const char *open_error(int e);
bool file_copy(const char *from, const char *to);
/* Copies the regular file open at fd, from its start, to the path to
 * (written as file_write() writes).  fd stays open, its offset moved. */
bool file_copy_fd(int fd, const char *to);
/* Opens path for reading, confined to the folder root_real (canonical):
 * its links are followed as everywhere (path_resolve()), and the file
 * opened is the one found, reached below root_real without following
 * any link (a link planted there since is seen, never followed), and
 * checked on the open descriptor to be a regular file.  What is read
 * through it is the file that was checked: swapping it for a link out
 * of the project mid-build gets nothing from outside.  Its stat in *st
 * (may be NULL).  -1 with errno: EXDEV when it lies outside root_real,
 * EISDIR, EINVAL for a FIFO or a device, ELOOP when links kept being
 * planted, or the open's own. */
int open_confined(const char *path, const char *root_real, struct stat *st);
/* True when both files hold the same bytes (read in chunks).  False
 * when they differ or either cannot be read (errno set then). */
bool file_same(const char *a, const char *b);

/* mkdir -p.  Returns false with errno set. */
bool mkdir_p(const char *path);
/* rm -rf: symbolic links are removed, never followed. */
bool remove_tree(const char *path);
bool is_dir(const char *path);
/* True for an existing folder with no entries. */
bool dir_is_empty(const char *path);
bool is_file(const char *path);

/* What a file that is not a regular one is, for a message: "a FIFO",
 * "a socket", "a character device", "a block device", "a symbolic
 * link" (from lstat()), "a folder", else "not a regular file". */
const char *file_kind_word(mode_t mode);
bool path_exists(const char *path);

/* The entry names of a folder, sorted bytewise, without "." and "..".
 * Returns NULL with errno set on failure; *n is the count.  Caller frees
 * with strv_free(). */
char **dir_list(const char *path, size_t *n);
/* The same, with *types (caller frees) the type of each name as the
 * listing gave it (DT_REG, DT_DIR, DT_LNK ..., DT_UNKNOWN where the file
 * system does not say): a walk that must lstat() only what is neither
 * a file nor a folder saves a call per entry. */
char **dir_list_typed(const char *path, size_t *n, unsigned char **types);
void strv_free(char **v);

/* Counts the lines of fd from where it stands (a line is what ends in
 * '\n'; a last line without one counts too, as editors count) and its
 * bytes, reading through buf.  False on a read error, errno set.  bytes
 * may be NULL. */
bool fd_count_lines(int fd, char *buf, size_t cap, long *lines, unsigned long long *bytes);

/* Where every `every`-th line of a file starts: starts[k] is the offset
 * of line k * every + 1 (starts[0] is 0), n of them. */
struct line_index {
	long every;
	off_t *starts;
	size_t n;
};

/* fd_count_lines(), keeping the line index ix (ix->every set by the
 * caller, at least 1; free ix->starts) in the same read. */
bool fd_count_lines_indexed(int fd, char *buf, size_t cap, long *lines,
			    unsigned long long *bytes, struct line_index *ix);

/* The spacing of the line index a log page keeps and the cache
 * remembers (cache_fd_lines_note()): every 4,096th line. */
#define LINE_INDEX_EVERY 4096L

/* fd_count_lines_indexed() fed a file's bytes in order, in pieces (a
 * read that also hashes them: data/cache.c; the scanner's read of a log,
 * which then spares the log page its own).  _start() begins at the
 * file's start, keeping an index when every > 0; _resume() goes on from
 * a count of the file's first `bytes` bytes as it gave lines and ix,
 * `last` being the byte before the ones to come ('\n' when there is
 * none).  lc->ix is the caller's: free lc->ix.starts. */
struct line_count {
	long nl;                 /* newlines seen */
	unsigned long long total; /* bytes seen */
	char last;               /* the last of them */
	struct line_index ix;
	size_t icap;
};
void line_count_start(struct line_count *lc, long every);
void line_count_resume(struct line_count *lc, long lines, unsigned long long bytes,
		       const struct line_index *ix, char last);
void line_count_feed(struct line_count *lc, const char *p, size_t n);
/* The lines counted so far, as fd_count_lines() counts them. */
long line_count_lines(const struct line_count *lc);

/* Caller frees the results of these with free(). */
/* The file name without folders and its last extension: "logs/bs512.log"
 * gives "bs512". */
char *path_stem(const char *path);
char *path_join(const char *a, const char *b);
char *path_dirname(const char *path);
/* The canonical absolute form of an existing path (realpath). */
char *path_real(const char *path);
/* The canonical absolute form of path, which need not exist: every
 * existing part is resolved through its symbolic links, the rest (below
 * the first missing folder) taken as written, with "." and ".." and
 * repeated or trailing slashes folded.  NULL with errno set when an
 * existing part cannot be resolved (a dangling link, a loop).  Caller
 * frees. */
char *path_resolve(const char *path);
/* True when the existing path, its links followed, lies inside the
 * existing folder dir (links followed too).  False when either cannot
 * be resolved. */
bool path_inside(const char *path, const char *dir);
/* path relative to base, both canonical and absolute, where path lies
 * inside base ("" for base itself); NULL when it lies outside. */
const char *path_under(const char *path, const char *base);

#endif
