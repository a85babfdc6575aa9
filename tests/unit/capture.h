/* capture.h: diagnostics written to memory, for unit tests to compare
 * as text.
 *
 *	struct capture c;
 *	cap_open(&c);                 (or cap_open_as(&c, DIAG_JSON, false))
 *	... code under test reports to c.d ...
 *	assert_string_equal(cap_text(&c), "a.md:1:2: error: ...\n");
 *	cap_close(&c);
 *
 * The capture owns its memory stream, the text written to it and the
 * struct diag writing there: cap_close() frees all three (after it,
 * cap_text()'s pointers are gone); cap_take() instead closes the
 * capture and hands the text to the caller, who frees it.  Include
 * after <cmocka.h>; open_memstream() needs _POSIX_C_SOURCE 200809L,
 * which the Makefile sets. */
#ifndef LOGDOWN_TEST_CAPTURE_H
#define LOGDOWN_TEST_CAPTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/diag.h"
#include "base/util.h"

struct capture {
	FILE *f;
	char *p;  /* what was written, as far as the last flush */
	size_t n; /* its length */
	struct diag *d;
};

/* Diagnostics in format, with colour or not, into memory. */
static inline void cap_open_as(struct capture *c, enum diag_format format, bool colour)
{
	c->p = NULL;
	c->n = 0;
	c->f = open_memstream(&c->p, &c->n);
	assert_non_null(c->f);
	c->d = diag_new(c->f, format, colour);
}

/* Plain text diagnostics (DIAG_TEXT, no colour) into memory. */
static inline void cap_open(struct capture *c)
{
	cap_open_as(c, DIAG_TEXT, false);
}

/* Everything written so far ("" when nothing); the capture owns it and
 * the next write may move it. */
static inline const char *cap_text(struct capture *c)
{
	fflush(c->f);
	return c->p ? c->p : "";
}

/* Frees the diag, the stream and the text. */
static inline void cap_close(struct capture *c)
{
	diag_free(c->d);
	fclose(c->f);
	free(c->p);
}

/* Frees the diag and the stream and returns everything written (never
 * NULL); caller frees. */
static inline char *cap_take(struct capture *c)
{
	diag_free(c->d);
	fclose(c->f);
	return c->p ? c->p : xstrdup("");
}

#endif
