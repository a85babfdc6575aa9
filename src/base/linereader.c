/* linereader.c: the lines of a file in chunks (linereader.h). */
#include "base/linereader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

void linereader_init(struct linereader *r, int fd, size_t cap)
{
	memset(r, 0, sizeof *r);
	r->fd = fd;
	r->cap = cap;
	r->buf = xmalloc(r->cap);
}

void linereader_free(struct linereader *r)
{
	free(r->buf);
	free(r->held);
}

void linereader_reset(struct linereader *r)
{
	free(r->held);
	r->held = NULL;
	r->pos = r->len = 0;
	r->eof = false;
}

/* read(2) into the buffer's free end; false with errno set. */
static bool linereader_fill(struct linereader *r)
{
	for (;;) {
		ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return false;
		if (got == 0)
			r->eof = true;
		r->len += (size_t)got;
		return true;
	}
}

int linereader_next(struct linereader *r, size_t keep, const char **text, size_t *n,
		    unsigned long long *more)
{
	for (;;) {
		char *start = r->buf + r->pos;
		size_t avail = r->len - r->pos;
		char *nl = memchr(start, '\n', avail);
		if (nl || (r->eof && avail > 0)) {
			size_t len = nl ? (size_t)(nl - start) : avail;
			r->pos += nl ? len + 1 : len;
			*text = start;
			*n = len;
			*more = 0;
			if (len > keep) {
				size_t cut = keep;
				/* Back to the start of a character: at most three
				 * continuation bytes. */
				for (int k = 0; k < 3 && cut > 0 && ((unsigned char)start[cut] & 0xC0) == 0x80;
				     k++)
					cut--;
				*n = cut;
				*more = len - cut;
			}
			return 1;
		}
		if (r->eof)
			return 0;
		if (r->pos > 0) {
			memmove(r->buf, start, avail);
			r->len = avail;
			r->pos = 0;
		}
		if (r->len < r->cap) {
			if (!linereader_fill(r))
				return -1;
			continue;
		}
		/* A line longer than the buffer: keep its start, then read
		 * on to its end, only counting. */
		size_t hold = keep < r->cap ? keep : r->cap;
		for (int k = 0; k < 3 && hold > 0 && hold < r->cap &&
				((unsigned char)r->buf[hold] & 0xC0) == 0x80;
		     k++)
			hold--;
		free(r->held);
		r->held = xstrndup(r->buf, hold);
		unsigned long long rest = r->len - hold;
		r->len = 0;
		for (;;) {
			if (!linereader_fill(r))
				return -1;
			nl = memchr(r->buf, '\n', r->len);
			if (nl || r->eof) {
				size_t upto = nl ? (size_t)(nl - r->buf) : r->len;
				rest += upto;
				r->pos = nl ? upto + 1 : r->len;
				break;
			}
			rest += r->len;
			r->len = 0;
		}
		*text = r->held;
		*n = hold;
		*more = rest;
		return 1;
	}
}
