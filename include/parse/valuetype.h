/* valuetype.h: the typing of values: the text a parser or a result file
 * found, as a number, a string or missing (SPEC section 3), and the
 * types a parser definition can ask for (logparse.h):
 *
 *   number     as datum_from_text() reads one (the default types each
 *              value that way);
 *   duration   "01:49" (m:s) = 109, "1:02:03" = 3723, "10.99s",
 *              "1:49.5", "1h 2m", "150 ms", "2 days, 1:02:03": seconds;
 *   timestamp  "2024-03-30 14:09:43,663", "2024-04-08T09:03:33.195878Z",
 *              "Mon Apr  8 09:03:33 2024" give seconds since the epoch
 *              (UTC unless a zone is written), "[09:01:59.258]" seconds
 *              since midnight: differences are seconds. */
#ifndef LOGDOWN_VALUETYPE_H
#define LOGDOWN_VALUETYPE_H

#include <stdbool.h>
#include <stddef.h>

#include "data/run.h"

/* Types the text of a value as the SPEC says: a number when it reads as
 * one ("98.07%" -> 98.07, "1,024" -> 1024, "4e-05"), missing for "--",
 * "n/a", "N/A", "-", "" and "null"/"None", a string otherwise.  text is
 * borrowed into the result.  line is stored as given.
 *
 * Blanks around the text are not part of it: the result's text is the
 * trimmed view.  Numbers are decimal: an optional sign, digits (grouped
 * in threes by commas, or not at all), an optional fraction and
 * exponent, an optional trailing '%'; also nan, inf and infinity in any
 * case (a diverged loss).  "1,5", "0x10" and "10.99s" are strings. */
struct datum datum_from_text(const char *text, size_t len, long line);

/* datum_from_text() without reading numbers: missing or a string, for a
 * caller that only passes the text on. */
struct datum datum_from_text_only(const char *text, size_t len, long line);

/* The number in s[0..n) as datum_from_text() reads one (no blanks
 * allowed), into *out: false when it is not one.  Correctly rounded. */
bool number_parse(const char *s, size_t n, double *out);

/* The type a parser's field or column asks for; VT_AUTO: none. */
enum vtype { VT_AUTO, VT_NUMBER, VT_STRING, VT_DURATION, VT_TIMESTAMP };
/* "auto", "number", ...: by enum vtype, NULL-terminated. */
extern const char *const vtype_names[];

/* The typed value of text as type says; false when it does not read as
 * that type (the datum is then the text typed as usual). */
bool type_text(enum vtype type, const char *text, size_t len, long line, struct datum *out);

#endif
