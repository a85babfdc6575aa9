/* json.h: writing JSON strings, valid JSON whatever the bytes. */
#ifndef LOGDOWN_JSON_H
#define LOGDOWN_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Writes s[0..n) to out as a JSON string, quotes included.  " and \
 * are escaped, LF, CR and tab as \n \r \t, the other control
 * characters and DEL as \u00XX.  Valid UTF-8 is written as it is; each
 * byte that is not part of valid UTF-8 (a binary log, a truncated
 * character) becomes \ufffd, one per byte, so the output is always
 * valid JSON and a reader can still count what was lost. */
void json_put_string(FILE *out, const char *s, size_t n);
/* The same for a NUL-terminated string. */
void json_put_cstr(FILE *out, const char *s);
/* The same appended to a buffer, for writers that emit millions of
 * strings (`logdown parse --json`): plain runs of bytes are copied at
 * once. */
struct buf;
void json_buf_string(struct buf *b, const char *s, size_t n);

#endif
