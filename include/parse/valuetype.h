/* valuetype.h: the typing of values: the text a parser or a result file
 * found, as a number, a string or missing (SPEC section 3), and the
 * types a parser definition can ask for (logparse.h):
 *
 *   number     as datum_from_text() reads one (the default types each
 *              value that way), or a number followed by a unit:
 *              "12345 MiB", "87 %", "512.0ms", "3.2 GB/s", "1.5K" give
 *              12345, 87, 512, 3.2, 1.5 (the number as written: no
 *              unit is converted), the text keeping the unit;
 *   duration   "01:49" (m:s) = 109, "1:02:03" = 3723, "10.99s",
 *              "1:49.5", "1h 2m", "1h2m3.5s", "150 ms", "41.7 us",
 *              "2 days, 1:02:03", Slurm's "1-02:03:04" (d-h:m:s, also
 *              "1-02:03" d-h:m and "1-02" d-h): seconds;
 *   duration_ms, duration_us, duration_ns: the same in milliseconds,
 *              microseconds, nanoseconds ("814.13us" as duration_ns is
 *              exactly 814130); a plain number is in that unit;
 *   timestamp  "2024-03-30 14:09:43,663", "2024-04-08T09:03:33.195878Z",
 *              "Mon Apr  8 09:03:33 2024" give seconds since the epoch
 *              (UTC unless a zone is written), "[09:01:59.258]" seconds
 *              since midnight: differences are seconds. */
#ifndef LOGDOWN_VALUETYPE_H
#define LOGDOWN_VALUETYPE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "data/run.h"
#include "data/value.h"

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
/* datum_from_text(), and *shortest set to whether the result is a
 * number whose trimmed text is, byte for byte, what number_put() writes
 * for it (number_read_exact_short()). */
struct datum datum_from_text_short(const char *text, size_t len, long line, bool *shortest);
/* datum_from_text_short(), and *dec set to number_fixed_decimals() of
 * the trimmed text when it is a number read exactly from it (-1 for any
 * other cell: a number read another way, a string, a missing value). */
struct datum datum_from_text_fixed(const char *text, size_t len, long line, bool *shortest,
				   int *dec);

/* datum_from_text() without reading numbers: missing or a string, for a
 * caller that only passes the text on. */
struct datum datum_from_text_only(const char *text, size_t len, long line);

/* The number in s[0..n) as datum_from_text() reads one (no blanks
 * allowed), into *out: false when it is not one.  Correctly rounded. */
bool number_parse(const char *s, size_t n, double *out);

/* How a parser's logs write numbers (its number_style): the decimal
 * mark ('.' or ',') and the thousands separator (',', '.', ' ', '\''
 * or 0 for none; never the decimal mark).  Without one (a NULL style)
 * numbers read as number_parse() reads them. */
struct numstyle {
	char decimal;
	char thousands;
};

/* The number in s[0..n) (no blanks around it) as written in style:
 * an optional sign, digits grouped in threes by style->thousands (or
 * not grouped), an optional fraction after style->decimal, an optional
 * exponent and '%'; nan and inf.  "12.345" is 12345 and "0,87" is 0.87
 * in {',', '.'}; "0.87" is not a number there.  A NULL style is
 * number_parse(). */
bool number_parse_style(const struct numstyle *style, const char *s, size_t n, double *out);

/* "decimal ',', thousands '.'": the style for messages, in a static
 * buffer. */
const char *numstyle_describe(const struct numstyle *style);

/* Reads `number_style: {decimal: ',', thousands: '.'}` (a parser's, or
 * a run's in a report's front matter) into *out.  Each bad key or value
 * is an error to d at its place; where ("in number_style") follows an
 * unknown key's name.  Returns false after an error. */
bool numstyle_read(const struct value *v, const char *where, struct numstyle *out,
		   struct diag *d);

/* The type a parser's field or column asks for; VT_AUTO: none. */
enum vtype {
	VT_AUTO,
	VT_NUMBER,
	VT_STRING,
	VT_DURATION,
	VT_TIMESTAMP,
	VT_DURATION_MS, /* a duration in milliseconds, ... */
	VT_DURATION_US,
	VT_DURATION_NS,
};
/* "auto", "number", ...: by enum vtype, NULL-terminated. */
extern const char *const vtype_names[];

/* What type_text() made of a text. */
enum typed {
	TYPED_OK,        /* as the type says (or missing) */
	TYPED_NOT_TYPE,  /* not of the type: the datum is the text typed as usual */
	TYPED_NOT_STYLE, /* a number, but not in the declared style: kept as text */
};

/* The typed value of text as type says, numbers read in style (NULL:
 * none declared, the usual reading).  Without a style VT_AUTO never
 * fails; with one, an untyped value that reads as a number only in the
 * usual style ("0.87" where the decimal mark is ',') is
 * TYPED_NOT_STYLE, never a silent misreading. */
enum typed type_text(enum vtype type, const struct numstyle *style, const char *text, size_t len,
		     long line, struct datum *out);

/* Where the unit of a number's text starts, blanks before it
 * included: "12345 MiB" of 12345 gives 5, "512.0ms" of 512 gives 5,
 * "98.07%" of 98.07 gives 5.  len when the text is not a number
 * followed by a unit, or when its number (read in any number style) is
 * not num: "150 ms" typed as a duration (0.15 s) has no unit to show
 * after 0.15, "1h" (3600) none either.  A format spec formats num and
 * the unit follows (show.c). */
size_t number_unit_at(const char *text, size_t len, double num);

#endif
