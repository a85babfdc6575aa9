/* show.h: how a value is shown, in prose, in a table cell and in a
 * caption alike: its text (formatted by a spec, or as written), the
 * line it links to, and its tooltip; and where "expr :spec" splits.
 * One home, so that a number reads and links the same wherever a report
 * shows it. */
#ifndef LOGDOWN_SHOW_H
#define LOGDOWN_SHOW_H

#include <stddef.h>

#include "resolve/directive.h"

struct buf;
struct eval;
struct format;

/* The index of the quote closing the string that opens at s[i] (a ' or
 * a "), or n when it is not closed; inside, a backslash escapes the
 * next character, as the expression language reads a string (expr.h).
 * Every scan of a value's text for a separator outside strings skips
 * them with it. */
size_t show_skip_quoted(const char *s, size_t i, size_t n);

/* Splits "expr :spec" at the last ':' outside quotes with a blank
 * before it: the expression is s[0..*expr_len), the spec starts at
 * *spec_off (n when there is none).  Inside quotes a backslash escapes
 * the next character, as the expression language reads a string
 * (expr.h), so "x\" :y" is one string and no spec.  No ':' can stand
 * outside a string in an expression, so any such ':' begins a spec. */
void show_split_spec(const char *s, size_t n, size_t *expr_len, size_t *spec_off);

/* Appends the text of v: formatted by fmt (may be NULL) when it is a
 * number and fmt is given, else as written (a number without its text
 * in its shortest form, a boolean as true or false); nothing for a
 * missing value. */
void show_text(struct buf *text, const struct eval *v, const struct format *fmt);

/* Appends v to t as one piece: its text (show_text()), and for a value
 * from a file the href of its line on the log's page (registering the
 * line with c->prov) and the tooltip "logs/bs512.log:53"; for a computed
 * value the tooltip naming its inputs, if it has any.  Tooltips name
 * files relative to the project folder (c->root, c->root_real).  A
 * missing value is a missing piece: show_missing() with the value's why. */
/* What a missing value shows: a muted "n/a", never a dash that reads
 * as a minus sign. */
#define SHOW_MISSING "n/a"

/* Appends a missing value to t: SHOW_MISSING, with why (not escaped)
 * as its tooltip, its paths relative to the project folder as
 * show_piece() writes them. */
void show_missing(const struct directive_ctx *c, struct directive_text *t, const char *why);

void show_piece(const struct directive_ctx *c, struct directive_text *t, const struct eval *v,
		const struct format *fmt);

#endif
