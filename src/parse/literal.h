/* literal.h: the literal prefilter (literal.c).  Private to parse/. */
#ifndef LOGDOWN_PARSE_LITERAL_H
#define LOGDOWN_PARSE_LITERAL_H

#include <stddef.h>

#include "base/util.h"
#include "parser.h"

/* The longest run of bytes that every match of the pattern re[0..n)
 * contains, into best (empty when none is certain). */
void pattern_literal(const char *re, size_t n, struct buf *best);
/* Picks the offsets of pat->lit's two rarest bytes (pat->rare1, rare2). */
void literal_rare(struct pattern *pat);
/* The first place of pat's literal in [p, end), or NULL. */
const char *lit_find(const struct pattern *pat, const char *p, const char *end);
/* The number of '\n' in [p, e). */
long count_nl(const char *p, const char *e);

#endif
