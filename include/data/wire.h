/* wire.h: the byte layout of logdown's cache files (cache.c's files,
 * reports and headers, the memo's entries, the scanner's resume state):
 * little-endian integers and doubles, bytes and strings after their
 * 64-bit length; read back through a cursor that checks every length
 * against what is left and turns `bad` (returning zeros and empty
 * views) instead of reading past its end.  The bytes are untrusted until
 * their seal is checked, and the readers are fuzzed (fuzz_cache,
 * fuzz_scanstate). */
#ifndef LOGDOWN_DATA_WIRE_H
#define LOGDOWN_DATA_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

struct wire_rd {
	const char *p, *end;
	bool bad;
};

void wire_put_u32(struct buf *b, uint32_t v);
void wire_put_u64(struct buf *b, uint64_t v);
void wire_put_f64(struct buf *b, double v);
/* n, then the n bytes. */
void wire_put_bytes(struct buf *b, const void *p, size_t n);
/* s as bytes (NULL as ""). */
void wire_put_str(struct buf *b, const char *s);

/* The next n bytes into out (zeros once bad); false when not there. */
bool wire_get(struct wire_rd *r, void *out, size_t n);
uint32_t wire_u32(struct wire_rd *r);
uint64_t wire_u64(struct wire_rd *r);
double wire_f64(struct wire_rd *r);
/* A count of things of at least `each` bytes: one above what is left is
 * bad (0). */
size_t wire_count(struct wire_rd *r, size_t each);
/* A view of the next wire_put_bytes() (not NUL-terminated). */
struct span wire_span(struct wire_rd *r);
/* A copy of the next wire_put_str() (bad if it holds a NUL byte);
 * caller frees. */
char *wire_str(struct wire_rd *r);

#endif
