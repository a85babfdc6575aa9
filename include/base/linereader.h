/* linereader.h: the lines of a file read in chunks, in memory bounded
 * by the chunk whatever the file holds: a line longer than a chunk
 * keeps its start and only the count of the rest.  The log pages and
 * {log} read logs of any size this way. */
#ifndef LOGDOWN_LINEREADER_H
#define LOGDOWN_LINEREADER_H

#include <stdbool.h>
#include <stddef.h>

/* Its fields are the reader's; buf (cap bytes) may serve as scratch
 * space before the first linereader_next(). */
struct linereader {
	int fd;
	char *buf;
	size_t cap;
	size_t pos;
	size_t len;
	bool eof;
	char *held; /* the kept start of a line longer than buf */
};

/* A reader of fd (read from where it is) with a chunk of cap bytes.
 * The fd stays the caller's; free the reader with linereader_free(). */
void linereader_init(struct linereader *r, int fd, size_t cap);
void linereader_free(struct linereader *r);

/* Forgets what the reader holds: the next line is read from where fd
 * is now (after the caller's lseek()). */
void linereader_reset(struct linereader *r);

/* The next line, without its '\n', into *text and *n: at most keep
 * bytes of it (SIZE_MAX: all that fits the chunk), cut at the start of
 * a UTF-8 character, with *more the bytes left out (0 for a whole
 * line).  A line longer than the chunk gives at most cap bytes.  *text
 * is valid until the next call.  Returns 1, 0 at the end, -1 on a read
 * error (errno set). */
int linereader_next(struct linereader *r, size_t keep, const char **text, size_t *n,
		    unsigned long long *more);

#endif
