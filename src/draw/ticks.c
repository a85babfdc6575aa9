/* ticks.c: the numbers of a chart: nice tick steps, where the ticks of
 * a linear or log axis go and how each is labelled (one unit per axis,
 * SI suffixes, powers of ten), and the numbers written beside marks
 * (a bar's value, a roofline's ceilings and ridges). */
#include "draw/chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "chart_int.h"

/* Numbers and ticks */

/* 10^k, exact for |k| <= 22: a power of ten times or over a small
 * integer is then correctly rounded, so 3 * 0.2 comes out as 0.6. */
static double pow10i(int k)
{
	double p = 1;
	for (int i = 0; i < (k < 0 ? -k : k); i++)
		p *= 10;
	return k < 0 ? 1 / p : p;
}

static double scaled(double m, int k)
{
	return k < 0 ? m / pow10i(-k) : m * pow10i(k);
}

static int floor_log10(double v)
{
	return (int)floor(log10(v) + 1e-9);
}

/* Writes a minus sign instead of a hyphen and, unless keep_zeros,
 * drops trailing zeros after a decimal point ("1.50" -> "1.5", "2.0" ->
 * "2"). */
static void tidy_number(char *s, size_t size, bool keep_zeros)
{
	char *dot = strchr(s, '.');
	if (dot && !keep_zeros) {
		char *end = dot + strlen(dot);
		while (end > dot + 1 && end[-1] == '0')
			end--;
		if (end == dot + 1)
			end = dot;
		*end = '\0';
	}
	if (s[0] == '-') {
		char tmp[64];
		if (strcmp(s, "-0") == 0) {
			snprintf(s, size, "0");
			return;
		}
		snprintf(tmp, sizeof tmp, MINUS "%s", s + 1);
		snprintf(s, size, "%s", tmp);
	}
}

/* Writes 10 to the power e with superscript digits: 10⁻⁴. */
static void power_of_ten(char *out, size_t size, int e)
{
	static const char *const sup[] = {
		"\xe2\x81\xb0", "\xc2\xb9", "\xc2\xb2", "\xc2\xb3",
		"\xe2\x81\xb4", "\xe2\x81\xb5", "\xe2\x81\xb6",
		"\xe2\x81\xb7", "\xe2\x81\xb8", "\xe2\x81\xb9",
	};
	char digits[16];
	snprintf(digits, sizeof digits, "%d", e < 0 ? -e : e);
	snprintf(out, size, "10%s", e < 0 ? "\xe2\x81\xbb" : "");
	for (const char *d = digits; *d; d++) {
		size_t len = strlen(out);
		snprintf(out + len, size - len, "%s", sup[*d - '0']);
	}
}

/* A positive value with 3 significant digits and an SI prefix: 2k,
 * 19.5T, 0.25; far outside the SI range, 10²⁴ or 2.5×10⁻⁶. */
static void format_si(char *out, size_t size, double v)
{
	int e = floor_log10(v);
	if (e >= 3 && e < 21) {
		int e3 = e / 3;
		snprintf(out, size, "%.3g%c", v / pow10i(3 * e3), "kMGTPEZ"[e3 - 1]);
	} else if (e >= -3 && e < 3) {
		snprintf(out, size, "%.3g", v);
	} else {
		double m = v / pow10i(e);
		char p[32];
		power_of_ten(p, sizeof p, e);
		if (fabs(m - 1) < 1e-9)
			snprintf(out, size, "%s", p);
		else
			snprintf(out, size, "%.3g\xc3\x97%s", m, p);
	}
}

/* A quantity for a label: "19.5 TFLOP/s", "4.26 GB/s", "13 FLOP/B". */
void format_quantity(char *out, size_t size, double v, const char *unit)
{
	int e = v > 0 ? floor_log10(v) : 0;
	if (e >= 3 && e < 21) {
		int e3 = e / 3;
		snprintf(out, size, "%.3g %c%s", v / pow10i(3 * e3), "kMGTPEZ"[e3 - 1], unit);
	} else {
		snprintf(out, size, "%.3g %s", v, unit);
	}
}

/* An intensity for a ridge label: 0.25, 13, 4577, 120k FLOP/B. */
void format_intensity(char *out, size_t size, double v)
{
	char n[32];
	if (v >= 1000 && v < 1e5)
		snprintf(n, sizeof n, "%.0f", v);
	else
		format_si(n, sizeof n, v);
	snprintf(out, size, "%s FLOP/B", n);
}

/* A bar's value: 4 significant digits, SI from 10,000 on. */
void format_value(char *out, size_t size, double v)
{
	double a = fabs(v);
	if (a >= 1e4 && a < 1e21) {
		int e3 = floor_log10(a) / 3;
		snprintf(out, size, "%.4g%c", v / pow10i(3 * e3), "kMGTPEZ"[e3 - 1]);
	} else {
		snprintf(out, size, "%.4g", v);
	}
	tidy_number(out, size, false);
}

static void ticks_push(struct chart_ticks *t, size_t *cap, double v, bool major)
{
	if (t->n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		t->tick = xrealloc(t->tick, *cap * sizeof *t->tick);
	}
	struct chart_tick *k = &t->tick[t->n++];
	k->value = v;
	k->label[0] = '\0';
	k->major = major;
}

/* The fewest decimals that write s exactly (0.25 -> 2, 500 -> 0). */
static int decimals_for(double s)
{
	for (int d = 0; d < 12; d++) {
		double x = s * pow10i(d);
		if (fabs(x - round(x)) < 1e-6 * (x > 1 ? x : 1))
			return d;
	}
	return 12;
}

static void label_linear(struct chart_ticks *t, double step)
{
	double maxabs = 0;
	for (size_t i = 0; i < t->n; i++)
		if (fabs(t->tick[i].value) > maxabs)
			maxabs = fabs(t->tick[i].value);
	double unit = 1;
	char suffix[8] = "";
	int exp10 = 0;
	bool sci = false;
	if (maxabs >= 1e4) {
		int e3 = floor_log10(maxabs) / 3;
		if (e3 <= 6) {
			unit = pow10i(3 * e3);
			suffix[0] = "kMGTPE"[e3 - 1];
			suffix[1] = '\0';
		} else {
			sci = true;
			exp10 = floor_log10(maxabs);
			unit = pow10i(exp10);
		}
	} else if (maxabs > 0 && maxabs < 1e-3) {
		/* Tiny values the same way: 5µ, 10µ, ...; no milli, which reads
		 * like metres, as the 0.001 to 10,000 band is written plainly. */
		static const char *const small[] = {"m", "\xc2\xb5", "n", "p", "f"};
		int e3 = (int)floor(log10(maxabs) / 3 + 1e-9);
		if (e3 >= -5) {
			unit = pow10i(3 * e3);
			snprintf(suffix, sizeof suffix, "%s", small[-e3 - 1]);
		} else {
			sci = true;
			exp10 = floor_log10(maxabs);
			unit = pow10i(exp10);
		}
	}
	int dec = decimals_for(step / unit);
	for (size_t i = 0; i < t->n; i++) {
		struct chart_tick *k = &t->tick[i];
		if (fabs(k->value) < step * 1e-6) {
			snprintf(k->label, sizeof k->label, "0");
			continue;
		}
		/* one number of decimals on the axis: 0.5, 1.0, 1.5 */
		snprintf(k->label, sizeof k->label, "%.*f", dec, k->value / unit);
		tidy_number(k->label, sizeof k->label, true);
		size_t len = strlen(k->label);
		if (sci)
			snprintf(k->label + len, sizeof k->label - len, "e%d", exp10);
		else
			snprintf(k->label + len, sizeof k->label - len, "%s", suffix);
	}
}

static bool ticks_linear(double lo, double hi, bool widen, int max_labels, struct chart_ticks *t)
{
	static const double mantissa[] = {1, 2, 2.5, 5};
	double span = hi - lo;
	int k = (int)floor(log10(span / max_labels)) - 1;
	double m = 0, step = 0;
	long long i0 = 0, i1 = 0;
	bool found = false;
	for (int tries = 0; tries < 8 && !found; tries++, k++) {
		for (size_t j = 0; j < ARRAY_LEN(mantissa) && !found; j++) {
			m = mantissa[j];
			step = scaled(m, k);
			double a = lo / step, b = hi / step;
			if (fabs(a) > 1e15 || fabs(b) > 1e15)
				return false;
			i0 = (long long)(widen ? floor(a + 1e-9) : ceil(a - 1e-9));
			i1 = (long long)(widen ? ceil(b - 1e-9) : floor(b + 1e-9));
			found = i1 - i0 + 1 <= max_labels;
		}
	}
	if (!found)
		return false;
	k--;
	size_t cap = 0;
	for (long long i = i0; i <= i1; i++)
		ticks_push(t, &cap, scaled((double)i * m, k), true);
	if (widen) {
		t->lo = scaled((double)i0 * m, k);
		t->hi = scaled((double)i1 * m, k);
	}
	label_linear(t, step);
	return true;
}

static bool ticks_log(double lo, double hi, bool widen, int max_labels, struct chart_ticks *t)
{
	int dlo = floor_log10(lo), dhi = (int)ceil(log10(hi) - 1e-9);
	if (widen && log10(hi / lo) >= 1.5) {
		t->lo = lo = pow10i(dlo);
		t->hi = hi = pow10i(dhi);
	} else if (widen) {
		/* Whole decades would leave most of a narrow axis empty: widen
		 * to the nearest minor ticks instead (3..7.5 -> 3..8). */
		double mlo = floor(lo / pow10i(dlo) + 1e-9), mhi = ceil(hi / pow10i(dhi - 1) - 1e-9);
		t->lo = lo = scaled(mlo, dlo);
		t->hi = hi = scaled(mhi, dhi - 1);
	}
	double eps_lo = lo * (1 - 1e-9), eps_hi = hi * (1 + 1e-9);
	/* Label every decade, or every 2nd, 3rd, ... when that is too many;
	 * counting from 10^0 so that 1 keeps its label. */
	int every = 1;
	for (;; every++) {
		int labelled = 0;
		for (int d = dlo; d <= dhi; d++) {
			double v = pow10i(d);
			if (v >= eps_lo && v <= eps_hi && d % every == 0)
				labelled++;
		}
		if (labelled <= max_labels || every > dhi - dlo)
			break;
	}
	bool minors = dhi - dlo <= 12;
	size_t cap = 0;
	int labelled = 0;
	for (int d = dlo; d <= dhi; d++) {
		for (int m = 1; m <= 9; m++) {
			if (m > 1 && !minors)
				break;
			double v = scaled(m, d);
			if (v < eps_lo || v > eps_hi)
				continue;
			ticks_push(t, &cap, v, m == 1);
			if (m == 1 && d % every == 0) {
				format_si(t->tick[t->n - 1].label, sizeof t->tick[0].label, v);
				labelled++;
			}
		}
	}
	/* Less than two labelled decades say little about the scale: label
	 * the minor ticks at 2 and 5 as well, or all of them. */
	if (labelled < 2 && minors) {
		int with25 = labelled, all = labelled;
		for (size_t i = 0; i < t->n; i++) {
			if (t->tick[i].major)
				continue;
			double m = t->tick[i].value / pow10i(floor_log10(t->tick[i].value));
			all++;
			if (fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6)
				with25++;
		}
		bool every_minor = with25 < 2 && all <= max_labels;
		for (size_t i = 0; i < t->n; i++) {
			struct chart_tick *k = &t->tick[i];
			double m = k->value / pow10i(floor_log10(k->value));
			bool two_five = fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6;
			if (k->label[0] == '\0' && (every_minor || two_five || k->major))
				format_si(k->label, sizeof k->label, k->value);
		}
	}
	return true;
}

bool chart_ticks(double lo, double hi, bool log, bool widen, int max_labels, struct chart_ticks *t)
{
	t->lo = lo;
	t->hi = hi;
	t->tick = NULL;
	t->n = 0;
	if (!isfinite(lo) || !isfinite(hi) || !(lo < hi) || !isfinite(hi - lo) || (log && lo <= 0))
		return false;
	if (max_labels < 2)
		max_labels = 2;
	bool ok = log ? ticks_log(lo, hi, widen, max_labels, t)
		      : ticks_linear(lo, hi, widen, max_labels, t);
	if (!ok)
		chart_ticks_free(t);
	return ok;
}

void chart_ticks_free(struct chart_ticks *t)
{
	free(t->tick);
	t->tick = NULL;
	t->n = 0;
}
