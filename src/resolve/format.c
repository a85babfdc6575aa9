/* format.c: format specs (SPEC section 5), a subset of Python's format
 * mini-language: [,][.N](f|e|g|%) and [,]d.
 *
 * The digits come from the C library's printf, which rounds the exact
 * binary value to nearest, ties to even, just as Python's float
 * formatting does (both are correctly rounded): format(7.125, ".2f") is
 * "7.12" in both.  Python's 'e' (at least two exponent digits) and 'g'
 * (style e when the exponent is below -4 or at least the precision,
 * trailing zeros dropped) are C's %e and %g.  What differs is handled
 * here: Python never writes a sign on NaN ("nan", where glibc writes
 * "-nan"), multiplies by 100 for '%', and groups the integer digits by
 * threes for ','. */
#include "resolve/format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define FORMAT_HINT "use [,][.N]f, e, g, % or [,]d, e.g. .2f"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* strchr() would also find the NUL that ends set. */
static bool in_set(char c, const char *set)
{
	return c != '\0' && strchr(set, c) != NULL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The width of s[0..n) in characters, for the caret: columns count
 * bytes, the underline counts what a terminal shows. */
static int char_width(const char *s, size_t n)
{
	int w = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			w++;
	return w;
}

/* Why s[0..n), which is not a valid spec, is wrong: the most specific
 * advice first.  The spec is quoted as written. */
static void explain(struct diag *d, struct loc at, const char *s, size_t n)
{
	int w = (int)n;
	size_t i = 0;
	if (n == 0) {
		diag_error(d, at, "empty format after ':': %s", FORMAT_HINT);
		return;
	}
	/* Python's fill, alignment, sign, '#', '0' and width come before
	 * the grouping and the precision. */
	if (in_set(s[0], "<>^=+- #0123456789") || (n > 1 && in_set(s[1], "<>^="))) {
		diag_error(d, at,
			   "format '%.*s': fill, alignment, sign, '#' and width are not supported: %s",
			   w, s,
			   FORMAT_HINT);
		return;
	}
	if (s[i] == '_' || (s[i] == ',' && i + 1 < n && s[i + 1] == '_')) {
		diag_error(d, at,
			   "format '%.*s': thousands separators are written ',' (e.g. ,d or ,.2f)",
			   w, s);
		return;
	}
	if (s[i] == ',')
		i++;
	if (i < n && s[i] == ',') {
		diag_error(d, at, "format '%.*s': one ',' is enough: %s", w, s, FORMAT_HINT);
		return;
	}
	bool has_precision = false;
	if (i < n && s[i] == '.') {
		i++;
		if (i == n || !is_digit(s[i])) {
			diag_error(d, at,
				   "format '%.*s': '.' needs the number of digits after it, e.g. .2f",
				   w, s);
			return;
		}
		size_t start = i;
		while (i < n && is_digit(s[i]))
			i++;
		/* Leading zeros are allowed, as in Python: .02f is .2f. */
		while (start < i - 1 && s[start] == '0')
			start++;
		/* At most three digits, read within the spec (it need not end
		 * in a NUL). */
		long p = 0;
		for (size_t k = start; k < i && k < start + 4; k++)
			p = p * 10 + (s[k] - '0');
		if (i - start > 3 || p > FORMAT_MAX_PRECISION) {
			diag_error(d, at, "format '%.*s': precision %.*s is too large (at most %d)",
				   w, s, (int)(i - start), s + start, FORMAT_MAX_PRECISION);
			return;
		}
		has_precision = true;
	}
	if (i == n) {
		diag_error(d, at,
			   "format '%.*s' has no type: end it with f, e, g or %% (e.g. %.*s%s), "
			   "or write [,]d for a whole number",
			   w, s, w, s, has_precision ? "f" : ".2f");
		return;
	}
	char t = s[i];
	if (t == 'd' && has_precision && i + 1 == n) {
		diag_error(d, at,
			   "format '%.*s': d shows a whole number and takes no precision; "
			   "for %.*s decimals use %.*sf",
			   w, s, (int)(i - (s[0] == ',') - 1), s + (s[0] == ',') + 1, (int)i, s);
		return;
	}
	if (in_set(t, "fegd%") && i + 1 < n) {
		diag_error(d, at, "format '%.*s': nothing may follow the type '%c': %s", w, s, t,
			   FORMAT_HINT);
		return;
	}
	if ((t == 'F' || t == 'E' || t == 'G' || t == 'D') && i + 1 == n) {
		diag_error(d, at, "unknown format '%.*s' (did you mean '%.*s%c'?): %s", w, s, (int)i,
			   s, t - 'A' + 'a', FORMAT_HINT);
		return;
	}
	if (t == 'n' && i + 1 == n) {
		diag_error(d, at,
			   "unknown format '%.*s': there is no locale here; for thousands "
			   "separators use ,d or ,.2f",
			   w, s);
		return;
	}
	if (t == '_') {
		diag_error(d, at,
			   "format '%.*s': thousands separators are written ',' (e.g. ,d or ,.2f)",
			   w, s);
		return;
	}
	diag_error(d, at, "unknown format '%.*s': %s", w, s, FORMAT_HINT);
}

bool format_parse(const char *spec, size_t len, struct loc at, struct format *f,
		  struct diag *d)
{
	/* Blanks around the spec ("{{ x : .2f }}") are not part of it; the
	 * diagnostic points at what is. */
	const char *s = spec;
	size_t n = len;
	while (n > 0 && is_blank(*s)) {
		s++;
		n--;
	}
	while (n > 0 && is_blank(s[n - 1]))
		n--;
	if (at.col > 0) {
		at.col += (int)(s - spec);
		at.len = n ? char_width(s, n) : 1;
	}

	struct format out = {false, -1, 0};
	size_t i = 0;
	if (i < n && s[i] == ',') {
		out.grouping = true;
		i++;
	}
	bool ok = true;
	if (i < n && s[i] == '.') {
		i++;
		long p = 0;
		size_t digits = 0;
		for (; i < n && is_digit(s[i]); i++, digits++) {
			p = p * 10 + (s[i] - '0');
			if (p > FORMAT_MAX_PRECISION)
				p = FORMAT_MAX_PRECISION + 1; /* and no overflow */
		}
		ok = digits > 0 && p <= FORMAT_MAX_PRECISION;
		out.precision = (int)p;
	}
	ok = ok && i + 1 == n && in_set(s[i], "fegd%") && !(s[i] == 'd' && out.precision >= 0);
	if (!ok) {
		explain(d, at, s, n);
		return false;
	}
	out.type = s[i];
	*f = out;
	return true;
}

/* Appends the printf output of s with commas between groups of three
 * in its integer digits: the run of digits after an optional sign. */
static void put_grouped(struct buf *b, const char *s)
{
	size_t i = 0;
	if (s[i] == '-')
		buf_putc(b, s[i++]);
	size_t digits = strspn(s + i, "0123456789");
	for (size_t k = 0; k < digits; k++) {
		if (k > 0 && (digits - k) % 3 == 0)
			buf_putc(b, ',');
		buf_putc(b, s[i + k]);
	}
	buf_puts(b, s + i + digits);
}

/* printf of x as type t with precision p into s (cap bytes); returns
 * the length printf wanted, as snprintf() does. */
static int print_digits(char *s, size_t cap, char t, int p, double x)
{
	switch (t) {
	case 'e':
		return snprintf(s, cap, "%.*e", p, x);
	case 'g':
		return snprintf(s, cap, "%.*g", p, x);
	default: /* 'f', and 'd' and '%' once reduced to it */
		return snprintf(s, cap, "%.*f", p, x);
	}
}

void format_number(struct buf *b, double n, const struct format *f)
{
	if (isnan(n)) {
		/* Python has no negative NaN to show. */
		buf_puts(b, f->type == '%' ? "nan%" : "nan");
		return;
	}
	int p = f->precision < 0 ? 6 : f->precision;
	double x = n;
	if (f->type == 'd') {
		/* rint() rounds half to even in the default rounding mode;
		 * a whole number has no sign to show when it is zero. */
		x = rint(n);
		if (x == 0)
			x = 0;
		p = 0;
	} else if (f->type == '%') {
		/* Python multiplies first, in floating point, then rounds
		 * the product. */
		x = n * 100.0;
	}
	char small[128];
	int need = print_digits(small, sizeof small, f->type, p, x);
	char *s = small;
	if (need < 0) {
		return; /* printf cannot fail on these formats */
	} else if ((size_t)need >= sizeof small) {
		s = xmalloc((size_t)need + 1);
		print_digits(s, (size_t)need + 1, f->type, p, x);
	}
	if (f->grouping)
		put_grouped(b, s);
	else
		buf_put(b, s, (size_t)need);
	if (f->type == '%')
		buf_putc(b, '%');
	if (s != small)
		free(s);
}
