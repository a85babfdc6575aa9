/* crline.h: a line as a terminal shows it in the end, when carriage
 * returns redrew it.  A progress bar (tqdm: "\r 10%|...\r 20%|...")
 * rewrites one line many times; what stays on the screen is its last
 * segment with something in it.  A CRLF line ends in a CR that shows
 * nothing.  With `caret`, the two characters "^M" (a log pasted from
 * `cat -v`) count as a CR too.
 *
 * The log scanner, {log} and the log pages all read lines this way.
 * Header only: the scanner calls these for every line a pattern may
 * match, so they must inline. */
#ifndef LOGDOWN_CRLINE_H
#define LOGDOWN_CRLINE_H

#include <stdbool.h>
#include <stddef.h>

/* The end of the line s..e without the CRs it ends in. */
static inline const char *crline_end(const char *s, const char *e, bool caret)
{
	for (;;) {
		if (e > s && e[-1] == '\r')
			e--;
		else if (caret && e - s >= 2 && e[-2] == '^' && e[-1] == 'M')
			e -= 2;
		else
			return e;
	}
}

/* Narrows *s..*e to its last segment (what follows the last CR) with
 * something in it, blanks (' ', '\t') not counting; when no segment
 * after a CR has, to the first segment. */
static inline void crline_last(const char **s, const char **e, bool caret)
{
	const char *b = *s, *seg_end = *e;
	for (;;) {
		const char *sep = NULL, *sep_end = NULL;
		for (const char *p = seg_end; p > b; p--) {
			if (p[-1] == '\r') {
				sep = p - 1, sep_end = p;
				break;
			}
			if (caret && p - b >= 2 && p[-2] == '^' && p[-1] == 'M') {
				sep = p - 2, sep_end = p;
				break;
			}
		}
		if (!sep) {
			*e = seg_end;
			return;
		}
		const char *p = sep_end;
		while (p < seg_end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < seg_end) {
			*s = sep_end;
			*e = seg_end;
			return;
		}
		seg_end = sep;
	}
}

/* Both: the line *s..*e as a terminal ends up showing it. */
static inline void crline_view(const char **s, const char **e, bool caret)
{
	*e = crline_end(*s, *e, caret);
	crline_last(s, e, caret);
}

#endif
