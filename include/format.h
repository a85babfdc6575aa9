/* format.h: the format specs of inline values and table cells (SPEC
 * section 5): a subset of Python's format mini-language,
 * [,][.N](f|e|g|%) and [,]d: ".2f", ",.0f", ".1%", ".3e", ".4g", "d",
 * ",d". */
#ifndef LOGDOWN_FORMAT_H
#define LOGDOWN_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

struct buf;

struct format {
	bool grouping;  /* ',' : thousands separators */
	int precision;  /* -1 when not given */
	char type;      /* 'f', 'e', 'g', '%', 'd' */
};

/* Parses spec (without its leading ':').  A bad spec is an error at
 * `at` saying what would fit ("unknown format '.2x': use [,][.N]f, e, g,
 * % or [,]d, e.g. .2f"); false then. */
bool format_parse(const char *spec, size_t len, struct loc at, struct format *f,
		  struct diag *d);

/* Appends n formatted as Python would: format(7.125, ".2f") == "7.12"
 * (ties to even on the binary value, as printf does), ",d" of 1234567 is
 * "1,234,567", ".1%" of 0.9807 is "98.1%".  'd' of a number with a
 * fraction rounds half to even. */
void format_number(struct buf *b, double n, const struct format *f);

#endif
