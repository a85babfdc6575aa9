/* numlint.h: hand-typed numbers (`logdown check --lint`).
 *
 * A number written by hand in a report's prose that equals a value of
 * the report's runs as the log shows it (the same digits, or the same
 * rounding of them, or the same fraction as a percent; any other cell
 * of a series by the same digits only) is warned of at its place, with
 * the {{ }} to write instead:
 *
 *   r.md:14:22: warning: 2.31 is bs512.final_loss, 2.3147 rounded
 *   (logs/bs512.log:412): write {{ bs512.final_loss :.2f }}
 *
 * The scanner leaves alone what is no measured number: digits inside a
 * word (A100, fp16, x86_64), versions (v1.2.3, 3.10.4), dates and times
 * (2024-04-08, 04/08, 12:30), years (1900 to 2100), ordinals (1st),
 * numbers with a leading zero (007), bracketed ones ([12]), numbers
 * with one significant digit (7, 0.03, 200) and bare powers of two (512).  The walk over the tree leaves alone code,
 * math, headings, image text, raw HTML, link destinations and the
 * values {{ }} themselves; a comment <!-- logdown: allow-number --> (or
 * with the numbers it allows) silences the block after it, or the
 * paragraph it stands in. */
#ifndef LOGDOWN_NUMLINT_H
#define LOGDOWN_NUMLINT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

struct run;
struct cmark_node;

/* A number found in prose. */
struct numlint_token {
	size_t at, len; /* the number as written: "1,024", "93.4%", "-0.5" */
	char norm[48];  /* its sign, digits, point and exponent: "1024", "93.4" */
	int decimals;   /* digits after the point */
	int sig;        /* significant digits ("0.050" has 2) */
	bool grouped;   /* written with thousands commas */
	bool percent;   /* followed by '%' */
	bool exponent;  /* written with e or E */
};

/* Finds the next number from *pos in the prose text s[0..len) that is
 * not left alone (above), sets *t and moves *pos past it.  False when
 * there is none.  A placeholder (DOC_MARK ... DOC_MARK) is skipped. */
bool numlint_next(const char *s, size_t len, size_t *pos, struct numlint_token *t);

/* The values of a report's runs a number may equal: every number field
 * with the text a log wrote it with, and the first, last, smallest and
 * largest number of every series column, named as an expression writes
 * them.  The runs must outlive it.  Free with numlint_free(). */
struct numlint *numlint_new(const struct run *const *runs, size_t nruns);
void numlint_free(struct numlint *nl);

/* What a number equals: the value's expression (owned by nl), its text
 * as the log wrote it, its place, how it matched and the format spec
 * that shows the number as written ("" for none, else ".2f", ",d",
 * ".1%"). */
enum numlint_how { NUMLINT_SAME, NUMLINT_ROUNDED, NUMLINT_PERCENT };
struct numlint_match {
	const char *expr;
	const char *text;
	size_t text_len;
	const char *file;
	long line;
	enum numlint_how how;
	char spec[16];
};

/* Does the number equal a value?  The same digits first, then a
 * rounding (with at least two significant digits), then a fraction as
 * a percent; among several, the first value in run order. */
bool numlint_match(const struct numlint *nl, const struct numlint_token *t,
		   struct numlint_match *m);

/* Warns of every hand-typed number in the prose of a resolved
 * report's tree (resolve/doc.h), at its line and column in text (the
 * report's body: body line 1 is line line0 + 1 of file).  The numbers
 * that match no value of numlint_match() are then looked for, by the
 * same digits, in every cell of the runs' series (read once; the runs
 * must still be alive) and named as a.train[step=500].loss.  Bad
 * logdown comments are warned of too. */
void numlint_doc(const struct numlint *nl, struct cmark_node *root, const char *text,
		 size_t len, const char *file, int line0, struct diag *d);

#endif
