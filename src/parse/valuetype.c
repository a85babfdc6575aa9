/* valuetype.c: the typing of values: the text of a value, as a parser
 * or a result file found it, into a number, a string or missing; and
 * the types a parser definition can ask for (number, string, duration,
 * timestamp).  See valuetype.h for what reads as what. */
#include "parse/valuetype.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/value.h"
#include "data/keys.h"
#include "blank.h"

const char *const vtype_names[] = {"auto",        "number",      "string",      "duration",
				   "timestamp",   "duration_ms", "duration_us", "duration_ns",
				   NULL};

/* Numbers and missing words. */

/* Any white space around a value's text (is_blank() is a log line's
 * space and tab). */
static bool is_space(char c)
{
	/* Most bytes are above ' ': one comparison for them. */
	return (unsigned char)c <= ' ' &&
	       (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool word_is(const char *s, size_t n, const char *w)
{
	if (strlen(w) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != w[i])
			return false;
	}
	return true;
}

/* The general case of number_parse(): commas, exponents, long digit
 * strings, nan and inf. */
static bool number_parse_slow(const char *s, size_t n, double *out);

bool number_parse(const char *s, size_t n, double *out)
{
	/* The common case first, in one pass, as a training log prints
	 * numbers. */
	return number_read_exact(s, n, out) || number_parse_slow(s, n, out);
}

static bool number_parse_slow(const char *s, size_t n, double *out)
{
	size_t i = 0;
	bool neg = false;
	if (n && s[n - 1] == '%')
		n--;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		neg = s[i++] == '-';
	if (i < n && !is_digit(s[i]) && s[i] != '.') {
		/* nan, inf, infinity: what a diverged loss prints. */
		const char *w = s + i;
		size_t wn = n - i;
		if (word_is(w, wn, "nan")) {
			*out = neg ? -NAN : NAN;
			return true;
		}
		if (word_is(w, wn, "inf") || word_is(w, wn, "infinity")) {
			*out = neg ? -INFINITY : INFINITY;
			return true;
		}
		return false;
	}
	/* The integer part: plain digits, or thousands grouped with commas
	 * ("1,024"; "1,02" and "1,0000" are not numbers). */
	uint64_t mant = 0;
	int sig = 0;       /* significant digits in mant */
	int dropped = 0;   /* integer digits beyond the 19 mant can hold */
	bool commas = false;
	size_t digits = 0, group = 0;
	for (; i < n; i++) {
		char c = s[i];
		if (is_digit(c)) {
			if (sig < 19) {
				mant = mant * 10 + (uint64_t)(c - '0');
				if (mant)
					sig++;
			} else {
				dropped++;
			}
			digits++;
			group++;
		} else if (c == ',') {
			if (digits == 0 || (commas ? group != 3 : group > 3))
				return false;
			commas = true;
			group = 0;
		} else {
			break;
		}
	}
	if (commas && group != 3)
		return false;
	int frac = 0;
	bool frac_lost = false;
	if (i < n && s[i] == '.') {
		for (i++; i < n && is_digit(s[i]); i++) {
			digits++;
			if (sig < 19) {
				mant = mant * 10 + (uint64_t)(s[i] - '0');
				if (mant)
					sig++;
				frac++;
			} else if (s[i] != '0') {
				frac_lost = true;
			}
		}
	}
	if (digits == 0)
		return false;
	bool exp = false;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;
		if (j < n && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j == n || !is_digit(s[j]))
			return false;
		while (j < n && is_digit(s[j]))
			j++;
		i = j;
		exp = true;
	}
	if (i != n)
		return false;
	if (!exp && !dropped && !frac_lost && mant <= ((uint64_t)1 << 53) && frac <= 22) {
		double v = (double)mant / number_pow10[frac];
		*out = neg ? -v : v;
		return true;
	}
	char small[64], *copy = n < sizeof small ? small : xmalloc(n + 1);
	size_t k = 0;
	for (size_t j = 0; j < n; j++)
		if (s[j] != ',')
			copy[k++] = s[j];
	copy[k] = '\0';
	*out = strtod(copy, NULL);
	if (copy != small)
		free(copy);
	return true;
}

static bool is_missing_word(const char *text, size_t len)
{
	static const char *const missing[] = {"--",   "n/a",  "N/A",   "-",
					      "null", "None", "[N/A]", "[Not Supported]",
					      NULL};
	/* Every missing word is short and starts with '-', 'n', 'N', or
	 * is nvidia-smi's bracketed one. */
	if ((len <= 4 && (text[0] == '-' || text[0] == 'n' || text[0] == 'N')) ||
	    (len >= 5 && text[0] == '[' && text[len - 1] == ']'))
		for (size_t i = 0; missing[i]; i++)
			if (strlen(missing[i]) == len && memcmp(missing[i], text, len) == 0)
				return true;
	return false;
}

struct datum datum_from_text_only(const char *text, size_t len, long line)
{
	while (len && is_space(*text))
		text++, len--;
	while (len && is_space(text[len - 1]))
		len--;
	struct datum d = {DATUM_STRING, 0, text, len, line};
	if (len == 0 || is_missing_word(text, len))
		d.kind = DATUM_MISSING;
	return d;
}

struct datum datum_from_text_fixed(const char *text, size_t len, long line, bool *shortest,
				   int *dec)
{
	struct datum d = datum_from_text_only(text, len, line);
	*shortest = false;
	*dec = -1;
	if (d.kind == DATUM_MISSING)
		return d;
	if (number_read_exact_fixed(d.text, d.len, &d.num, shortest, dec) ||
	    number_parse_slow(d.text, d.len, &d.num))
		d.kind = DATUM_NUMBER;
	return d;
}

struct datum datum_from_text_short(const char *text, size_t len, long line, bool *shortest)
{
	int dec;
	return datum_from_text_fixed(text, len, line, shortest, &dec);
}

struct datum datum_from_text(const char *text, size_t len, long line)
{
	bool shortest;
	return datum_from_text_short(text, len, line, &shortest);
}

/* Number styles and units. */

bool number_parse_style(const struct numstyle *style, const char *s, size_t n, double *out)
{
	if (!style)
		return number_parse(s, n, out);
	/* The number rewritten as number_parse() reads it: separators
	 * dropped once checked, the decimal mark a '.'. */
	char small[64], *copy = n < sizeof small ? small : xmalloc(n + 1);
	size_t i = 0, k = 0;
	bool ok = false;
	if (i < n && (s[i] == '+' || s[i] == '-'))
		copy[k++] = s[i++];
	if (i < n && !is_digit(s[i]) && s[i] != style->decimal) {
		/* nan, inf: no separators to read */
		ok = number_parse(s, n, out);
		goto out;
	}
	size_t digits = 0, group = 0;
	bool grouped = false;
	for (; i < n; i++) {
		char c = s[i];
		if (is_digit(c)) {
			copy[k++] = c;
			digits++;
			group++;
		} else if (style->thousands && c == style->thousands) {
			/* "12.345.678": a first group of 1 to 3 digits, then
			 * groups of exactly 3. */
			if (digits == 0 || (grouped ? group != 3 : group > 3))
				goto out;
			grouped = true;
			group = 0;
		} else {
			break;
		}
	}
	if (grouped && group != 3)
		goto out;
	if (i < n && s[i] == style->decimal) {
		copy[k++] = '.';
		for (i++; i < n && is_digit(s[i]); i++, digits++)
			copy[k++] = s[i];
	}
	if (digits == 0)
		goto out;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		copy[k++] = s[i++];
		if (i < n && (s[i] == '+' || s[i] == '-'))
			copy[k++] = s[i++];
		while (i < n && is_digit(s[i]))
			copy[k++] = s[i++];
	}
	if (i < n && s[i] == '%' && i + 1 == n)
		i++;
	if (i != n)
		goto out;
	ok = number_parse(copy, k, out);
out:
	if (copy != small)
		free(copy);
	return ok;
}

const char *numstyle_describe(const struct numstyle *style)
{
	static char text[64];
	if (!style->thousands)
		snprintf(text, sizeof text, "decimal '%c', no thousands separator", style->decimal);
	else
		snprintf(text, sizeof text, "decimal '%c', thousands '%c'", style->decimal,
			 style->thousands);
	return text;
}

/* A value's text for a message: 'x' for a string, else its kind. */
static void value_shown(const struct value *v, struct buf *b)
{
	if (v->kind == VALUE_STRING)
		buf_printf(b, "'%s'", v->text);
	else
		buf_puts(b, value_kind_name(v->kind));
}

bool numstyle_read(const struct value *v, const char *where, struct numstyle *out,
		   struct diag *d)
{
	if (v->kind != VALUE_MAP) {
		diag_error(d, v->loc,
			   "number_style is a map such as {decimal: ',', thousands: '.'}, not %s",
			   value_kind_name(v->kind));
		return false;
	}
	static const char *const keys[] = {"decimal", "thousands", NULL};
	bool ok = keys_check(v, keys, where, NULL, d);
	const struct value *dec = value_get(v, "decimal"), *sep = value_get(v, "thousands");
	struct numstyle st = {'.', ','};
	/* Marks of one character: a did-you-mean between them says little,
	 * so the message lists them. */
	struct buf b = BUF_INIT;
	if (dec) {
		if (dec->kind == VALUE_STRING && dec->len == 1 && strchr(".,", dec->text[0])) {
			st.decimal = dec->text[0];
		} else {
			value_shown(dec, &b);
			diag_error(d, dec->loc, "the decimal mark is '.' or ',', not %s", buf_data(&b));
			ok = false;
		}
	}
	/* A decimal comma groups thousands with '.' unless told. */
	st.thousands = st.decimal == ',' ? '.' : ',';
	if (sep) {
		bool none = sep->kind == VALUE_NULL ||
			    (sep->kind == VALUE_STRING &&
			     (sep->len == 0 || strcmp(sep->text, "none") == 0));
		if (none) {
			st.thousands = 0;
		} else if (sep->kind == VALUE_STRING && sep->len == 1 && strchr(",. '", sep->text[0])) {
			st.thousands = sep->text[0];
			if (st.thousands == st.decimal) {
				diag_error(d, sep->loc,
					   "the thousands separator '%c' is the decimal mark too: "
					   "12%c345 would read two ways",
					   st.thousands, st.thousands);
				ok = false;
			}
		} else {
			buf_clear(&b);
			value_shown(sep, &b);
			diag_error(d, sep->loc,
				   "the thousands separator is ',', '.', ' ', \"'\" or none, not %s",
				   buf_data(&b));
			ok = false;
		}
	}
	buf_free(&b);
	*out = st;
	return ok;
}

/* A unit's bytes: letters, '%', '/', and any non-ASCII character (µ,
 * °, ²).  Not digits: "12x34" is no number with a unit. */
static bool is_unit_byte(char c)
{
	unsigned char u = (unsigned char)c;
	return (unsigned)((u | 0x20) - 'a') < 26 || c == '%' || c == '/' || u >= 0x80;
}

/* A number followed by a unit ("12345 MiB", "512.0ms", "3.2 GB/s"):
 * true with *num_end the end of the number (the blanks after it not
 * included).  Only the shape is checked here, not the number. */
static bool unit_split(const char *s, size_t n, size_t *num_end)
{
	size_t u = n;
	while (u > 0 && is_unit_byte(s[u - 1]))
		u--;
	if (u == n || u == 0 || s[u] == '/')
		return false;
	while (u > 0 && is_blank(s[u - 1]))
		u--;
	if (u == 0 || !(is_digit(s[u - 1]) || s[u - 1] == '.' || s[u - 1] == ','))
		return false;
	*num_end = u;
	return true;
}

size_t number_unit_at(const char *text, size_t len, double num)
{
	size_t end;
	if (!text || !unit_split(text, len, &end))
		return len;
	/* The style the value was read in is the parser's: any style that
	 * gives num back will do. */
	static const struct numstyle styles[] = {
		{'.', ','}, {',', '.'}, {',', 0}, {',', ' '}, {'.', ' '}, {'.', '\''}, {',', '\''},
	};
	for (size_t i = 0; i < ARRAY_LEN(styles); i++) {
		double v;
		if (number_parse_style(&styles[i], text, end, &v) && v == num)
			return end;
	}
	return len;
}

/* Durations and timestamps. */

static bool digits_at(const char *s, size_t n, size_t *i, int min, int max, long *out)
{
	long v = 0;
	int k = 0;
	while (*i < n && isdigit((unsigned char)s[*i]) && k < max) {
		v = v * 10 + (s[*i] - '0');
		(*i)++;
		k++;
	}
	*out = v;
	return k >= min;
}

/* ".5" or ",663" after seconds: the fraction, as a number below 1. */
static double fraction_at(const char *s, size_t n, size_t *i)
{
	double f = 0, scale = 0.1;
	if (*i + 1 < n && (s[*i] == '.' || s[*i] == ',') && isdigit((unsigned char)s[*i + 1])) {
		for ((*i)++; *i < n && isdigit((unsigned char)s[*i]); (*i)++) {
			f += (s[*i] - '0') * scale;
			scale /= 10;
		}
	}
	return f;
}

/* A duration's unit: its length in seconds, and the power of ten it is
 * when it is one (ns -9, us -6, ms -3, s 0), so that a number in it is
 * scaled exactly; other units have exp10 INT_MIN. */
static bool unit_seconds(const char *u, size_t n, double *mult, int *exp10)
{
	static const struct {
		const char *name;
		double mult;
		int exp10;
	} units[] = {
		{"ns", 1e-9, -9},         {"us", 1e-6, -6},        {"\xC2\xB5s", 1e-6, -6},
		{"ms", 1e-3, -3},         {"s", 1, 0},             {"sec", 1, 0},
		{"secs", 1, 0},           {"second", 1, 0},        {"seconds", 1, 0},
		{"m", 60, INT_MIN},       {"min", 60, INT_MIN},    {"mins", 60, INT_MIN},
		{"minute", 60, INT_MIN},  {"minutes", 60, INT_MIN}, {"h", 3600, INT_MIN},
		{"hr", 3600, INT_MIN},    {"hrs", 3600, INT_MIN},  {"hour", 3600, INT_MIN},
		{"hours", 3600, INT_MIN}, {"d", 86400, INT_MIN},   {"day", 86400, INT_MIN},
		{"days", 86400, INT_MIN},
	};
	for (size_t i = 0; i < ARRAY_LEN(units); i++)
		if (strlen(units[i].name) == n && memcmp(units[i].name, u, n) == 0) {
			*mult = units[i].mult;
			*exp10 = units[i].exp10;
			return true;
		}
	return false;
}

/* The number in s[0..n) (read in style) times 10^shift, correctly
 * rounded: "814.13" shifted by 3 is read as "814.13e3", exactly the
 * 814130 a reader sees, where 814.13 * 1000 is 814130.0000000001. */
static bool number_scaled(const struct numstyle *style, const char *s, size_t n, int shift,
			  double *out)
{
	char buf[96];
	if (shift != 0 && n + 8 < sizeof buf && !memchr(s, 'e', n) && !memchr(s, 'E', n) &&
	    !memchr(s, '%', n)) {
		memcpy(buf, s, n);
		int k = snprintf(buf + n, sizeof buf - n, "e%d", shift);
		return number_parse_style(style, buf, n + (size_t)k, out);
	}
	if (!number_parse_style(style, s, n, out))
		return false;
	*out *= pow(10, shift);
	return true;
}

/* Slurm's "1-02:03:04" (d-h:m:s), "1-02:03" (d-h:m), "1-02" (d-h). */
static bool slurm_days(const char *s, size_t n, double *out)
{
	size_t i = 0;
	long days, h, m = 0, sec = 0;
	if (!digits_at(s, n, &i, 1, 9, &days) || i >= n || s[i] != '-')
		return false;
	i++;
	if (!digits_at(s, n, &i, 1, 2, &h))
		return false;
	double frac = 0;
	if (i < n && s[i] == ':') {
		i++;
		if (!digits_at(s, n, &i, 2, 2, &m))
			return false;
		if (i < n && s[i] == ':') {
			i++;
			if (!digits_at(s, n, &i, 2, 2, &sec))
				return false;
			frac = fraction_at(s, n, &i);
		}
	}
	if (i != n || h > 23 || m > 59 || sec > 60)
		return false;
	*out = (double)days * 86400 + h * 3600.0 + m * 60.0 + (double)sec + frac;
	return true;
}

/* "01:49" (m:s), "1:02:03" (h:m:s), "1:49.5", "2 days, 1:02:03",
 * "1-02:03:04", "10.99s", "1h 2m 3.5s", "1h2m3.5s", "150 ms", or a
 * plain number, in units of 10^exp10 seconds (0: seconds, -9:
 * nanoseconds); a plain number is in that unit already.  Numbers read
 * in style (NULL: the usual). */
static bool parse_duration(const struct numstyle *style, int exp10, const char *s, size_t n,
			   double *out)
{
	/* Seconds into the unit: exact for whole seconds. */
	double per_s = pow(10, -exp10);
	trim(&s, &n);
	if (!n)
		return false;
	double sign = 1;
	if (s[0] == '-' || s[0] == '+') {
		sign = s[0] == '-' ? -1 : 1;
		s++, n--;
	}
	double plain;
	if (number_parse_style(style, s, n, &plain)) {
		*out = sign * plain;
		return true;
	}
	if (slurm_days(s, n, &plain)) {
		*out = sign * plain * per_s;
		return true;
	}
	/* The marks a number of a number-unit pair may hold ("1,5 s"). */
	char mark1 = style ? style->decimal : '.';
	char mark2 = style && style->thousands && style->thousands != ' ' ? style->thousands : mark1;
	double total = 0;
	size_t i = 0;
	/* Python's timedelta: "2 days, 1:02:03". */
	{
		size_t j = 0;
		long days;
		if (digits_at(s, n, &j, 1, 9, &days) && j < n && s[j] == ' ') {
			size_t k = j + 1;
			if (n - k >= 3 && memcmp(s + k, "day", 3) == 0) {
				k += 3;
				if (k < n && s[k] == 's')
					k++;
				if (k < n && s[k] == ',')
					k++;
				while (k < n && s[k] == ' ')
					k++;
				total = (double)days * 86400;
				i = k;
			}
		}
	}
	size_t colon = i;
	long part[3];
	int nparts = 0;
	while (nparts < 3) {
		long v;
		size_t before = colon;
		if (!digits_at(s, n, &colon, 1, 9, &v)) {
			colon = before;
			break;
		}
		part[nparts++] = v;
		if (colon < n && s[colon] == ':' && nparts < 3)
			colon++;
		else
			break;
	}
	if (nparts >= 2) {
		double frac = fraction_at(s, n, &colon);
		if (colon == n) {
			double v = nparts == 2 ? part[0] * 60.0 + part[1]
					       : part[0] * 3600.0 + part[1] * 60.0 + part[2];
			*out = sign * (total + v + frac) * per_s;
			return true;
		}
		return false;
	}
	if (i != 0)
		return false;
	/* A sequence of number-unit pairs. */
	bool any = false;
	while (i < n) {
		size_t a = i;
		while (i < n && (isdigit((unsigned char)s[i]) || s[i] == mark1 || s[i] == mark2))
			i++;
		size_t b = i;
		while (i < n && s[i] == ' ')
			i++;
		size_t u = i;
		while (i < n && !isdigit((unsigned char)s[i]) && s[i] != ' ' && s[i] != ',')
			i++;
		double mult, v;
		int uexp;
		if (b == a || !unit_seconds(s + u, i - u, &mult, &uexp))
			return false;
		if (uexp != INT_MIN) {
			if (!number_scaled(style, s + a, b - a, uexp - exp10, &v))
				return false;
		} else {
			if (!number_parse_style(style, s + a, b - a, &v))
				return false;
			v *= mult * per_s;
		}
		total += v;
		any = true;
		while (i < n && (s[i] == ' ' || s[i] == ','))
			i++;
	}
	if (!any)
		return false;
	*out = sign * total;
	return true;
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static long days_from_civil(long y, long m, long d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* HH:MM[:SS[.frac]] at s[*i]: seconds since midnight. */
static bool clock_at(const char *s, size_t n, size_t *i, double *out)
{
	long h, m, sec = 0;
	if (!digits_at(s, n, i, 1, 2, &h) || *i >= n || s[*i] != ':')
		return false;
	(*i)++;
	if (!digits_at(s, n, i, 2, 2, &m))
		return false;
	double frac = 0;
	if (*i < n && s[*i] == ':') {
		(*i)++;
		if (!digits_at(s, n, i, 2, 2, &sec))
			return false;
		frac = fraction_at(s, n, i);
	}
	if (h > 24 || m > 59 || sec > 60)
		return false;
	*out = h * 3600.0 + m * 60.0 + (double)sec + frac;
	return true;
}

/* A time zone at s[*i]: "Z", "UTC", "+02:00", "-0500"; seconds east. */
static bool zone_at(const char *s, size_t n, size_t *i, double *east)
{
	*east = 0;
	size_t j = *i;
	while (j < n && s[j] == ' ')
		j++;
	if (j < n && s[j] == 'Z') {
		*i = j + 1;
		return true;
	}
	if (n - j >= 3 && (memcmp(s + j, "UTC", 3) == 0 || memcmp(s + j, "GMT", 3) == 0)) {
		*i = j + 3;
		return true;
	}
	if (j < n && (s[j] == '+' || s[j] == '-')) {
		double sign = s[j] == '-' ? -1 : 1;
		size_t k = j + 1;
		long hh, mm = 0;
		if (!digits_at(s, n, &k, 2, 2, &hh))
			return false;
		if (k < n && s[k] == ':')
			k++;
		digits_at(s, n, &k, 0, 2, &mm);
		*east = sign * (hh * 3600.0 + mm * 60.0);
		*i = k;
		return true;
	}
	return false;
}

static int month_of(const char *s)
{
	static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	for (int i = 0; i < 12; i++)
		if (memcmp(s, months[i], 3) == 0)
			return i + 1;
	return 0;
}

/* "2024-03-30 14:09:43,663", "2024-04-08T09:03:33.195878Z", dates with
 * '/', "Mon Apr  8 09:03:33 2024" (seconds since the epoch, UTC unless
 * a zone is given); "09:01:59.258" or "[09:01:59.258]" (seconds since
 * midnight).  Differences of two give seconds. */
static bool parse_timestamp(const char *s, size_t n, double *out)
{
	trim(&s, &n);
	if (n >= 2 && ((s[0] == '[' && s[n - 1] == ']') || (s[0] == '(' && s[n - 1] == ')'))) {
		s++;
		n -= 2;
		trim(&s, &n);
	}
	size_t i = 0;
	long y, mo, d;
	double t = 0, east = 0;
	if (digits_at(s, n, &i, 4, 4, &y) && i < n && (s[i] == '-' || s[i] == '/')) {
		char sep = s[i++];
		if (!digits_at(s, n, &i, 1, 2, &mo) || i >= n || s[i] != sep)
			return false;
		i++;
		if (!digits_at(s, n, &i, 1, 2, &d) || mo < 1 || mo > 12 || d < 1 || d > 31)
			return false;
		if (i < n && (s[i] == 'T' || s[i] == ' ' || s[i] == '_')) {
			i++;
			while (i < n && s[i] == ' ')
				i++;
			if (!clock_at(s, n, &i, &t))
				return false;
		}
		zone_at(s, n, &i, &east);
		if (i != n)
			return false;
		*out = (double)days_from_civil(y, mo, d) * 86400 + t - east;
		return true;
	}
	i = 0;
	if (clock_at(s, n, &i, &t) && i == n) {
		*out = t;
		return true;
	}
	/* ctime: "Mon Apr  8 09:03:33 2024", the weekday optional. */
	i = 0;
	if (n >= 4 && isalpha((unsigned char)s[0]) && s[3] == ' ' && !month_of(s))
		i = 4;
	while (i < n && s[i] == ' ')
		i++;
	if (n - i < 3 || !(mo = month_of(s + i)))
		return false;
	i += 3;
	while (i < n && s[i] == ' ')
		i++;
	if (!digits_at(s, n, &i, 1, 2, &d) || i >= n || s[i] != ' ')
		return false;
	while (i < n && s[i] == ' ')
		i++;
	if (!clock_at(s, n, &i, &t))
		return false;
	zone_at(s, n, &i, &east);
	while (i < n && s[i] == ' ')
		i++;
	if (!digits_at(s, n, &i, 4, 4, &y))
		return false;
	if (i != n)
		return false;
	*out = (double)days_from_civil(y, mo, d) * 86400 + t - east;
	return true;
}

/* The typed value of text as type says (valuetype.h). */
enum typed type_text(enum vtype type, const struct numstyle *style, const char *text, size_t len,
		     long line, struct datum *out)
{
	double usual;
	if (!style) {
		*out = datum_from_text(text, len, line);
	} else {
		*out = datum_from_text_only(text, len, line);
		if (out->kind == DATUM_STRING &&
		    number_parse_style(style, out->text, out->len, &out->num))
			out->kind = DATUM_NUMBER;
	}
	switch (type) {
	case VT_AUTO:
		/* A number only in the usual style: never read silently. */
		if (style && out->kind == DATUM_STRING && number_parse(out->text, out->len, &usual))
			return TYPED_NOT_STYLE;
		return TYPED_OK;
	case VT_NUMBER: {
		if (out->kind != DATUM_STRING)
			return TYPED_OK;
		size_t end;
		if (unit_split(out->text, out->len, &end)) {
			if (number_parse_style(style, out->text, end, &out->num)) {
				out->kind = DATUM_NUMBER;
				return TYPED_OK;
			}
			if (style && number_parse(out->text, end, &usual))
				return TYPED_NOT_STYLE;
		}
		if (style && number_parse(out->text, out->len, &usual))
			return TYPED_NOT_STYLE;
		return TYPED_NOT_TYPE;
	}
	case VT_STRING:
		if (out->kind == DATUM_NUMBER)
			out->kind = DATUM_STRING;
		return TYPED_OK;
	case VT_DURATION:
	case VT_DURATION_MS:
	case VT_DURATION_US:
	case VT_DURATION_NS:
	case VT_TIMESTAMP: {
		if (out->kind == DATUM_MISSING)
			return TYPED_OK;
		bool dur = type != VT_TIMESTAMP;
		int exp10 = type == VT_DURATION_MS   ? -3
			    : type == VT_DURATION_US ? -6
			    : type == VT_DURATION_NS ? -9
						     : 0;
		if (dur ? parse_duration(style, exp10, out->text, out->len, &out->num)
			: parse_timestamp(out->text, out->len, &out->num)) {
			out->kind = DATUM_NUMBER;
			return TYPED_OK;
		}
		if (dur && style && parse_duration(NULL, exp10, out->text, out->len, &usual))
			return TYPED_NOT_STYLE;
		/* The text typed as usual (in style), as the warning says. */
		return TYPED_NOT_TYPE;
	}
	}
	return TYPED_OK;
}
