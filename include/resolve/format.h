/* format.h: the format specs of inline values and table cells (SPEC
 * section 5): a subset of Python's format mini-language,
 * [,][.N](f|e|g|%) and [,]d: ".2f", ",.0f", ".1%", ".3e", ".4g", "d",
 * ",d". */
#ifndef LOGDOWN_FORMAT_H
#define LOGDOWN_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

struct buf;

struct format {
	bool grouping;  /* ',' : thousands separators */
	int precision;  /* -1 when not given */
	char type;      /* 'f', 'e', 'g', '%', 'd' */
};

/* Far beyond anything a report shows, and it keeps one formatted
 * number small: ",.100f" of 1e308 is 512 bytes. */
#define FORMAT_MAX_PRECISION 100

/* Parses spec (without its leading ':'; blanks around it are ignored)
 * into *f.  `at` is where spec starts in the source; a bad spec is an
 * error there, the caret under the whole spec, saying what would fit
 * ("unknown format '.2x': use [,][.N]f, e, g, % or [,]d, e.g. .2f"), with
 * advice for near misses (".2d", ".2F", "_d", ">10.2f", a precision over
 * FORMAT_MAX_PRECISION); false then, and *f is left as it was. */
bool format_parse(const char *spec, size_t len, struct loc at, struct format *f,
		  struct diag *d);

/* Appends n formatted as Python would: format(7.125, ".2f") == "7.12"
 * (ties to even on the binary value, as printf does), ",d" of 1234567 is
 * "1,234,567", ".1%" of 0.9807 is "98.1%"; 'f', 'e' and '%' default to
 * 6 decimals, 'g' to 6 significant digits.  'd' of a number with a
 * fraction rounds half to even (Python refuses a float there): 2.5 gives
 * "2", and a result of zero is "0", never "-0".  As in Python, -0.0 is
 * "-0.00" with ".2f"; NaN is "nan" (never "-nan"), infinity "inf" or
 * "-inf", with '%' appended for '%'. */
void format_number(struct buf *b, double n, const struct format *f);

#endif
