/* blank.h: the blanks of a log line (space and tab), and trimming them
 * (with CR and LF) from a cell or a value.  Private to parse/. */
#ifndef LOGDOWN_PARSE_BLANK_H
#define LOGDOWN_PARSE_BLANK_H

#include <stdbool.h>
#include <stddef.h>

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline void trim(const char **s, size_t *n)
{
	while (*n && (is_blank(**s) || **s == '\r' || **s == '\n'))
		(*s)++, (*n)--;
	while (*n && (is_blank((*s)[*n - 1]) || (*s)[*n - 1] == '\r' || (*s)[*n - 1] == '\n'))
		(*n)--;
}

#endif
