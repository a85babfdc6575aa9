/* stream.h: reading a file in bounded chunks, for the JSON and CSV
 * readers (structured.c, csvread.c).  Private to parse/. */
#ifndef LOGDOWN_PARSE_STREAM_H
#define LOGDOWN_PARSE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/diag.h"
#include "base/util.h"
#include "data/run.h"

#define STREAM_CHUNK ((size_t)1 << 20)
/* Files up to this size are read whole so that their diagnostics quote
 * the line (logparse.c quotes logs up to the same size). */
#define QUOTE_LIMIT ((off_t)4 << 20)

struct stream {
	int fd;             /* read from it, or from mem when fd < 0 */
	const char *mem;
	size_t mem_len, mem_off;
	const char *file;   /* as shown, for a read error */
	struct diag *d;
	char *buf;
	size_t cap;
	size_t pos, len;    /* buf[pos, len) is read, not yet consumed */
	int64_t base;       /* the offset of buf[0] in the content (after a BOM) */
	size_t chunk;       /* bytes asked of one read */
	bool eof;
	bool io_error;      /* reported */
	bool opened;        /* and d has the file as a source */
	long nl;            /* line ends read so far */
	char last;          /* the last byte read */
};

/* Reads more into the buffer until buf[pos + k] is there; false at the
 * end of the file (or after a read error, reported).  Moves the bytes
 * from pos to the buffer's start: pointers into it do not survive. */
/* The bytes one read asks for (a stream's chunk), for a stream set up
 * over text already in memory. */
size_t stream_chunk(void);
bool stream_fill(struct stream *s, size_t k);

/* The byte k after the current one (0: the current one), or -1 past the
 * end of the file. */
static inline int stream_peek(struct stream *s, size_t k)
{
	if (s->pos + k < s->len || stream_fill(s, k))
		return (unsigned char)s->buf[s->pos + k];
	return -1;
}

/* The offset of the current byte in the content. */
static inline int64_t stream_at(const struct stream *s)
{
	return s->base + (int64_t)s->pos;
}

/* Opens path for r as `shown`: the stream starts after a byte order mark
 * (not content: columns count from after it), and d quotes the file's
 * lines until stream_close() when it is small enough to be held (whole
 * holds them: free it after stream_close()).  False after reporting why
 * it cannot be read; close it in any case. */
bool stream_open(struct stream *s, const char *path, const char *shown, struct diag *d,
		 struct buf *whole);

/* Reads to the end, for the line count, gives r (when not NULL) its
 * line count, and stops quoting the file. */
void stream_close(struct stream *s, struct run *r);

#endif
