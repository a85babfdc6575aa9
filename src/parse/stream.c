/* stream.c: reading a file in bounded chunks (stream.h).  A small file
 * is read whole so that diagnostics can quote its lines, and streamed
 * from memory; a big one is streamed from the disk. */
#include "stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"

static const char bom[] = "\xEF\xBB\xBF";

/* The bytes one refill asks for: STREAM_CHUNK, or, for tests only, the
 * environment's LOGDOWN_TEST_CHUNK (1 to STREAM_CHUNK), so that every
 * token, escape and line end can be made to straddle a refill: the
 * output must not change with it. */
size_t stream_chunk(void)
{
	const char *e = getenv("LOGDOWN_TEST_CHUNK");
	if (!e || !*e)
		return STREAM_CHUNK;
	char *end;
	unsigned long n = strtoul(e, &end, 10);
	return *end || n < 1 || n > STREAM_CHUNK ? STREAM_CHUNK : (size_t)n;
}

/* Reads more into the buffer until buf[pos + k] is there; false at the
 * end of the file (or after a read error, reported).  Moves the bytes
 * from pos to the buffer's start: pointers into it do not survive. */
bool stream_fill(struct stream *s, size_t k)
{
	while (s->pos + k >= s->len) {
		if (s->eof)
			return false;
		if (s->pos > 0) {
			memmove(s->buf, s->buf + s->pos, s->len - s->pos);
			s->base += (int64_t)s->pos;
			s->len -= s->pos;
			s->pos = 0;
		}
		/* Full of one token: only then does the buffer grow. */
		if (s->len == s->cap) {
			s->cap = s->cap ? 2 * s->cap : s->chunk;
			s->buf = xrealloc(s->buf, s->cap);
		}
		size_t want = s->cap - s->len;
		if (want > s->chunk)
			want = s->chunk;
		ssize_t n;
		if (s->fd < 0) {
			n = (ssize_t)(s->mem_len - s->mem_off < want ? s->mem_len - s->mem_off : want);
			memcpy(s->buf + s->len, s->mem + s->mem_off, (size_t)n);
			s->mem_off += (size_t)n;
		} else {
			do
				n = read(s->fd, s->buf + s->len, want);
			while (n < 0 && errno == EINTR);
		}
		if (n < 0) {
			diag_error(s->d, loc_line(s->file, 0), "cannot read: %s", strerror(errno));
			s->io_error = true;
		}
		if (n <= 0) {
			s->eof = true;
			return false;
		}
		for (const char *p = s->buf + s->len, *end = p + n;
		     (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
			s->nl++;
		s->last = s->buf[s->len + (size_t)n - 1];
		s->len += (size_t)n;
	}
	return true;
}

/* Opens path for r as `shown`: the stream starts after a byte order mark
 * (not content: columns count from after it), and d quotes the file's
 * lines until stream_close() when it is small enough to be held.  False
 * after reporting why it cannot be read; close it in any case. */
bool stream_open(struct stream *s, const char *path, const char *shown, struct diag *d,
			struct buf *whole)
{
	memset(s, 0, sizeof *s);
	s->fd = -1;
	s->file = shown;
	s->d = d;
	s->chunk = stream_chunk();
	/* O_NONBLOCK: opening a FIFO must not hang the build. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto fail;
	}
	if (st.st_size > QUOTE_LIMIT) {
		s->fd = fd;
		/* Not read whole by diag to be quoted: its lines are not
		 * quoted, but for the first one when it is short (a CSV
		 * header). */
		buf_grow(whole, STREAM_CHUNK);
		ssize_t n;
		do
			n = pread(fd, whole->data, STREAM_CHUNK, 0);
		while (n < 0 && errno == EINTR);
		const char *nl = n > 0 ? memchr(whole->data, '\n', (size_t)n) : NULL;
		whole->len = nl ? (size_t)(nl - whole->data) : 0;
		whole->data[whole->len] = '\0';
		diag_add_source(d, shown, nl ? buf_data(whole) : NULL, whole->len);
	} else {
		/* The size, and a byte to see the end by. */
		buf_grow(whole, (size_t)st.st_size + 1);
		for (;;) {
			if (whole->cap - whole->len < 2)
				buf_grow(whole, 65536);
			ssize_t n = read(fd, whole->data + whole->len, whole->cap - whole->len - 1);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				goto fail;
			if (n == 0)
				break;
			whole->len += (size_t)n;
			whole->data[whole->len] = '\0';
		}
		close(fd);
		fd = -1;
		s->mem = buf_data(whole);
		s->mem_len = whole->len;
		size_t skip = s->mem_len >= 3 && memcmp(s->mem, bom, 3) == 0 ? 3 : 0;
		diag_add_source(d, shown, s->mem + skip, s->mem_len - skip);
	}
	s->opened = true;
	if (stream_peek(s, 0) == 0xEF && stream_peek(s, 1) == 0xBB && stream_peek(s, 2) == 0xBF) {
		s->pos = 3;
		s->base = -3;
	}
	return !s->io_error;
fail:
	diag_error(d, loc_line(shown, 0), "cannot read: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	return false;
}

/* Reads to the end, for the line count, gives r its line count, and
 * stops quoting the file. */
void stream_close(struct stream *s, struct run *r)
{
	if (r && !s->io_error && s->opened) {
		s->pos = s->len;
		while (stream_fill(s, 0))
			s->pos = s->len;
		/* Lines, a last one without its line end included. */
		int64_t size = s->base + (int64_t)s->len;
		run_set_line_count(r, s->nl + (size > 0 && s->last != '\n' ? 1 : 0));
	}
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	if (s->opened)
		diag_forget_source(s->d, s->file);
}
