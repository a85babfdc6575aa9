/* utf8.h: UTF-8 one code point at a time, both ways: encoding a code
 * point, and decoding one from bytes that need not be UTF-8 (a log, a
 * result file), with what to replace when they are not. */
#ifndef LOGDOWN_UTF8_H
#define LOGDOWN_UTF8_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* U+FFFD, which stands in for bytes that are not UTF-8. */
#define UTF8_REPLACEMENT 0xFFFDu

/* Appends the UTF-8 encoding of code point cp (at most U+10FFFF).  A
 * surrogate is encoded as it is: callers pair them, or replace a lone
 * one, first. */
void utf8_put(struct buf *b, unsigned long cp);

/* The length (1 to 4) of the valid UTF-8 sequence at p (n > 0 bytes
 * left), with its code point in *cp; or 0 when the bytes there are not
 * one: overlong forms, surrogates and code points past U+10FFFF are not
 * UTF-8 either.  On 0, *sub is the length of the maximal valid prefix
 * (at least 1), which becomes one U+FFFD when decoding as browsers do.
 * sub and cp may be NULL. */
size_t utf8_decode(const unsigned char *p, size_t n, size_t *sub, unsigned long *cp);

/* Is s[0..n) UTF-8 throughout (as utf8_decode() reads it), without a NUL
 * byte?  Then a reader that replaces bad bytes and NULs with U+FFFD
 * leaves it as it is.  Sixteen ASCII bytes at a time where SSE2 is. */
bool utf8_valid(const char *s, size_t n);

#endif
