/* chart.c: line, bar, scatter and roofline charts drawn with cairo, text
 * set with pango (SPEC section 6).
 *
 * A render goes: check the chart, open a cairo surface, lay out the frame
 * (margins from the measured text, ticks thinned until their labels fit),
 * map the data to pixels (reducing big series to what the pixel columns
 * can show), place the legend where it covers no data, draw, and hand the
 * file's bytes over.  Everything is in CSS pixels; a PNG is drawn at
 * twice the size through a cairo scale. */
#include "draw/chart.h"
#include "base/util.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <pango/pangocairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define MINUS "\xe2\x88\x92" /* U+2212, wider than a hyphen, as in print */

enum {
	DEFAULT_WIDTH = 720,
	DEFAULT_HEIGHT = 405,
	MIN_SIZE = 120,
	MAX_SIZE = 8000,
	TICK_LEN = 5,
	MINOR_TICK_LEN = 3,
};

/* Okabe-Ito: told apart with every common colour-vision deficiency.
 * The yellow is faint on white, so it comes last. */
static const unsigned palette[] = {
	0x0072B2, 0xE69F00, 0x009E73, 0xD55E00,
	0xCC79A7, 0x56B4E9, 0x000000, 0xF0E442,
};

enum marker {
	MK_CIRCLE, MK_SQUARE, MK_TRIANGLE, MK_DIAMOND,
	MK_TRIANGLE_DOWN, MK_PLUS, MK_CROSS, MK_STAR, MK_COUNT
};

/* Dash patterns in CSS pixels; a count of 0 is a solid line. */
static const struct {
	double d[4];
	int n;
} dashes[] = {
	{{0}, 0},
	{{7, 3.5}, 2},
	{{1.5, 3}, 2},
	{{7, 3, 1.5, 3}, 4},
	{{12, 4}, 2},
};

static const unsigned COLOR_TITLE = 0x1a1a1a, COLOR_TEXT = 0x333333,
		      COLOR_TICK = 0x4d4d4d, COLOR_GRID = 0xe3e3e3,
		      COLOR_MINOR_GRID = 0xf3f3f3, COLOR_CEILING = 0x3d3d3d;

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

/* Drops trailing zeros after a decimal point ("1.50" -> "1.5", "2.0" ->
 * "2") and writes a minus sign instead of a hyphen. */
static void tidy_number(char *s, size_t size)
{
	char *dot = strchr(s, '.');
	if (dot) {
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
static void format_quantity(char *out, size_t size, double v, const char *unit)
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
static void format_intensity(char *out, size_t size, double v)
{
	char n[32];
	if (v >= 1000 && v < 1e5)
		snprintf(n, sizeof n, "%.0f", v);
	else
		format_si(n, sizeof n, v);
	snprintf(out, size, "%s FLOP/B", n);
}

/* A bar's value: 4 significant digits, SI from 10,000 on. */
static void format_value(char *out, size_t size, double v)
{
	double a = fabs(v);
	if (a >= 1e4 && a < 1e21) {
		int e3 = floor_log10(a) / 3;
		snprintf(out, size, "%.4g%c", v / pow10i(3 * e3), "kMGTPEZ"[e3 - 1]);
	} else {
		snprintf(out, size, "%.4g", v);
	}
	tidy_number(out, size);
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
		snprintf(k->label, sizeof k->label, "%.*f", dec, k->value / unit);
		tidy_number(k->label, sizeof k->label);
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
	if (!isfinite(lo) || !isfinite(hi) || !(lo < hi) || (log && lo <= 0))
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

/* The renderer's state */

struct pt {
	double x, y;
};

/* Pixel points of one series; a NaN x breaks a line. */
struct pts {
	struct pt *p;
	size_t n, cap;
	bool reduced;
};

struct axis {
	bool log;
	double lo, hi; /* the values at the two ends */
	double p0, p1; /* their pixel positions */
	struct chart_ticks t;
};

/* A convex outline for collision tests: a text box, a marker, or (with
 * two corners) a line segment. */
struct quad {
	double x[4], y[4];
	int n;
};

struct render {
	const struct chart *c;
	int w, h;
	double scale; /* device pixels per CSS pixel */
	cairo_surface_t *surface;
	cairo_t *cr;
	PangoContext *pango;
	PangoFontDescription *font_tick, *font_text, *font_title, *font_small;
	/* The texts around the plot; NULL when absent or left out for
	 * want of room. */
	const char *title, *x_label, *y_label;
	/* Category names: wrapped to two lines, or one in every cat_every
	 * written on one line when they are too many for that. */
	bool cat_wrap;
	size_t cat_every;
	/* The plot frame, whole CSS pixels. */
	double L, T, R, B;
	struct axis x, y;
	/* Data range before limits and ticks. */
	double dx_lo, dx_hi, dy_lo, dy_hi;
	struct pts *ser;
	bool *markers;  /* per series: draw markers at the points */
	double mark_r;  /* marker radius */
	/* Bars */
	double bar_value_room; /* extra data units above the bars for values */
	bool bar_values;
	/* Legend */
	bool legend, legend_outside;
	double lg_x, lg_y, lg_w, lg_h, lg_row;
	/* Obstacles for placing roofline labels. */
	struct quad *obst;
	size_t nobst, cobst;
	char *err;
};

static void set_rgb(cairo_t *cr, unsigned c)
{
	cairo_set_source_rgb(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0,
			     (c & 255) / 255.0);
}

static void set_rgba(cairo_t *cr, unsigned c, double a)
{
	cairo_set_source_rgba(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0,
			      (c & 255) / 255.0, a);
}

/* Where a 1-pixel line must sit to cover whole device pixels: on a
 * pixel's centre when the width in device pixels is odd, on a pixel
 * edge when it is even. */
static double crisp(const struct render *r, double v, double width)
{
	double d = v * r->scale;
	long w = lround(width * r->scale);
	if (w % 2)
		return (floor(d) + 0.5) / r->scale;
	return round(d) / r->scale;
}

static double device_round(const struct render *r, double v)
{
	return round(v * r->scale) / r->scale;
}

static double axis_map(const struct axis *a, double v)
{
	double t = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo))
			  : (v - a->lo) / (a->hi - a->lo);
	return a->p0 + t * (a->p1 - a->p0);
}

/* Text */

static PangoLayout *text_new(struct render *r, const PangoFontDescription *f, const char *s,
			     double width, int lines)
{
	PangoLayout *l = pango_layout_new(r->pango);
	pango_layout_set_font_description(l, f);
	pango_layout_set_text(l, s ? s : "", -1);
	if (width > 0) {
		pango_layout_set_width(l, (int)(width * PANGO_SCALE));
		pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
		pango_layout_set_ellipsize(l, PANGO_ELLIPSIZE_END);
		pango_layout_set_height(l, -lines);
		pango_layout_set_alignment(l, PANGO_ALIGN_CENTER);
	}
	return l;
}

static void text_size(PangoLayout *l, double *w, double *h)
{
	PangoRectangle lr;
	pango_layout_get_extents(l, NULL, &lr);
	*w = (double)lr.width / PANGO_SCALE;
	*h = (double)lr.height / PANGO_SCALE;
}

static void measure(struct render *r, const PangoFontDescription *f, const char *s, double *w,
		    double *h)
{
	PangoLayout *l = text_new(r, f, s, 0, 0);
	text_size(l, w, h);
	g_object_unref(l);
}

/* Draws l so that the point (ax, ay) of its box (0 left/top, 1
 * right/bottom) lands on (x, y), turned by angle radians about it. */
static void text_draw(struct render *r, PangoLayout *l, double x, double y, double ax, double ay,
		      double angle, unsigned color)
{
	PangoRectangle lr;
	pango_layout_get_extents(l, NULL, &lr);
	double lx = (double)lr.x / PANGO_SCALE, ly = (double)lr.y / PANGO_SCALE;
	double w = (double)lr.width / PANGO_SCALE, h = (double)lr.height / PANGO_SCALE;
	cairo_t *cr = r->cr;
	cairo_save(cr);
	cairo_translate(cr, x, y);
	if (angle != 0)
		cairo_rotate(cr, angle);
	cairo_move_to(cr, -lx - ax * w, -ly - ay * h);
	set_rgb(cr, color);
	pango_cairo_update_layout(cr, l);
	pango_cairo_show_layout(cr, l);
	cairo_restore(cr);
}

static void text_put(struct render *r, const PangoFontDescription *f, const char *s, double x,
		     double y, double ax, double ay, double angle, unsigned color)
{
	PangoLayout *l = text_new(r, f, s, 0, 0);
	text_draw(r, l, x, y, ax, ay, angle, color);
	g_object_unref(l);
}

/* The outline of a w x h box anchored at (ax, ay) on (x, y), turned by
 * angle, grown by pad on every side. */
static struct quad text_quad(double x, double y, double ax, double ay, double angle, double w,
			     double h, double pad)
{
	double cx[4] = {-ax * w - pad, (1 - ax) * w + pad, (1 - ax) * w + pad, -ax * w - pad};
	double cy[4] = {-ay * h - pad, -ay * h - pad, (1 - ay) * h + pad, (1 - ay) * h + pad};
	double c = cos(angle), s = sin(angle);
	struct quad q = {.n = 4};
	for (int i = 0; i < 4; i++) {
		q.x[i] = x + cx[i] * c - cy[i] * s;
		q.y[i] = y + cx[i] * s + cy[i] * c;
	}
	return q;
}

static struct quad box_quad(double x0, double y0, double x1, double y1)
{
	struct quad q = {{x0, x1, x1, x0}, {y0, y0, y1, y1}, 4};
	return q;
}

static struct quad seg_quad(double x0, double y0, double x1, double y1)
{
	struct quad q = {{x0, x1, 0, 0}, {y0, y1, 0, 0}, 2};
	return q;
}

/* Separating axis test: two convex outlines overlap unless some edge
 * normal of one of them separates their projections. */
static bool separated_on(const struct quad *a, const struct quad *b, const struct quad *edges)
{
	for (int i = 0; i < edges->n; i++) {
		int j = (i + 1) % edges->n;
		double nx = edges->y[j] - edges->y[i], ny = edges->x[i] - edges->x[j];
		if (nx == 0 && ny == 0)
			continue;
		double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
		for (int k = 0; k < a->n; k++) {
			double p = a->x[k] * nx + a->y[k] * ny;
			amin = fmin(amin, p);
			amax = fmax(amax, p);
		}
		for (int k = 0; k < b->n; k++) {
			double p = b->x[k] * nx + b->y[k] * ny;
			bmin = fmin(bmin, p);
			bmax = fmax(bmax, p);
		}
		if (amax < bmin || bmax < amin)
			return true;
	}
	return false;
}

static bool quads_overlap(const struct quad *a, const struct quad *b)
{
	return !separated_on(a, b, a) && !separated_on(a, b, b);
}

static void obstacle_add(struct render *r, struct quad q)
{
	if (r->nobst == r->cobst) {
		r->cobst = r->cobst ? r->cobst * 2 : 32;
		r->obst = xrealloc(r->obst, r->cobst * sizeof *r->obst);
	}
	r->obst[r->nobst++] = q;
}

/* How badly a label at q would sit: obstacles it hits, and a heavy
 * penalty for leaving the plot frame. */
static int quad_cost(const struct render *r, const struct quad *q)
{
	int cost = 0;
	for (int i = 0; i < q->n; i++)
		if (q->x[i] < r->L + 1 || q->x[i] > r->R - 1 || q->y[i] < r->T + 1 ||
		    q->y[i] > r->B - 1)
			cost += 100;
	for (size_t i = 0; i < r->nobst; i++)
		if (quads_overlap(q, &r->obst[i]))
			cost++;
	return cost;
}

/* Errors and checks */

static char *series_name(const struct chart *c, size_t i)
{
	const char *l = c->series[i].label;
	if (l && *l)
		return xasprintf("series '%s'", l);
	return xasprintf("series %zu", i + 1);
}

static bool fail(char **err, char *msg)
{
	if (err)
		*err = msg;
	else
		free(msg);
	return false;
}

static bool check_limits(const struct chart *c, char **err)
{
	const struct {
		const char *name;
		bool has_lo, has_hi, log;
		double lo, hi;
	} ax[2] = {
		{"x", c->has_x_min, c->has_x_max, c->x_log, c->x_min, c->x_max},
		{"y", c->has_y_min, c->has_y_max, c->y_log, c->y_min, c->y_max},
	};
	for (int i = 0; i < 2; i++) {
		if (ax[i].has_lo && !isfinite(ax[i].lo))
			return fail(err, xasprintf("%s_min must be a finite number", ax[i].name));
		if (ax[i].has_hi && !isfinite(ax[i].hi))
			return fail(err, xasprintf("%s_max must be a finite number", ax[i].name));
		if (ax[i].has_lo && ax[i].has_hi && !(ax[i].lo < ax[i].hi))
			return fail(err, xasprintf("%s_min (%g) must be less than %s_max (%g)",
						   ax[i].name, ax[i].lo, ax[i].name, ax[i].hi));
		if (ax[i].log && ax[i].has_lo && ax[i].lo <= 0)
			return fail(err, xasprintf("%s_min (%g) must be > 0 on a log axis",
						   ax[i].name, ax[i].lo));
		if (ax[i].log && ax[i].has_hi && ax[i].hi <= 0)
			return fail(err, xasprintf("%s_max (%g) must be > 0 on a log axis",
						   ax[i].name, ax[i].hi));
	}
	return true;
}

static double series_x(const struct chart_series *s, size_t i)
{
	return s->x ? s->x[i] : (double)(i + 1);
}

/* Checks the series of a line, scatter or bar chart and finds the data
 * range, leaving out values that are gaps. */
static bool check_series(struct render *r, char **err)
{
	const struct chart *c = r->c;
	bool bar = c->type == CHART_BAR;
	if (bar && c->ncategories == 0)
		return fail(err, xstrdup("a bar chart needs categories (the names along x)"));
	if (c->nseries == 0)
		return fail(err, xstrdup("the chart has no series"));
	r->dx_lo = r->dy_lo = INFINITY;
	r->dx_hi = r->dy_hi = -INFINITY;
	bool any = false;
	for (size_t i = 0; i < c->nseries; i++) {
		const struct chart_series *s = &c->series[i];
		if (bar && s->n != c->ncategories) {
			char *name = series_name(c, i);
			char *m = xasprintf("%s has %zu value%s for %zu categor%s", name, s->n,
					    s->n == 1 ? "" : "s", c->ncategories,
					    c->ncategories == 1 ? "y" : "ies");
			free(name);
			return fail(err, m);
		}
		if (!bar && s->nx != 0 && s->nx != s->n) {
			char *name = series_name(c, i);
			char *m = xasprintf("%s has %zu x value%s but %zu y value%s", name, s->nx,
					    s->nx == 1 ? "" : "s", s->n, s->n == 1 ? "" : "s");
			free(name);
			return fail(err, m);
		}
		if (s->n > 0 && !s->y)
			return fail(err, xstrdup("a series has no y values"));
		for (size_t j = 0; j < s->n; j++) {
			double x = bar ? 0 : series_x(s, j), y = s->y[j];
			if (!isfinite(x) || !isfinite(y))
				continue;
			const char *axis = NULL;
			double bad = 0;
			if (!bar && c->x_log && x <= 0)
				axis = "x", bad = x;
			else if (c->y_log && y <= 0)
				axis = "y", bad = y;
			if (axis) {
				char *name = series_name(c, i);
				char *m = xasprintf("%s: %s value %g (point %zu) cannot be shown on "
						    "a log axis; values must be > 0",
						    name, axis, bad, j + 1);
				free(name);
				return fail(err, m);
			}
			any = true;
			r->dx_lo = fmin(r->dx_lo, x);
			r->dx_hi = fmax(r->dx_hi, x);
			r->dy_lo = fmin(r->dy_lo, y);
			r->dy_hi = fmax(r->dy_hi, y);
		}
	}
	if (!any)
		return fail(err, xstrdup("the chart has no data: every series is empty"));
	return true;
}

static bool check_roofline(const struct chart *c, char **err)
{
	if (c->npeaks == 0)
		return fail(err, xstrdup("a roofline needs at least one peak (FLOP/s)"));
	if (c->nbandwidths == 0)
		return fail(err, xstrdup("a roofline needs at least one bandwidth (byte/s)"));
	for (size_t i = 0; i < c->npeaks; i++)
		if (!isfinite(c->peaks[i].value) || c->peaks[i].value <= 0)
			return fail(err, xasprintf("roofline peak '%s' must be > 0 FLOP/s (got %g)",
						   c->peaks[i].name ? c->peaks[i].name : "",
						   c->peaks[i].value));
	for (size_t i = 0; i < c->nbandwidths; i++)
		if (!isfinite(c->bandwidths[i].value) || c->bandwidths[i].value <= 0)
			return fail(err,
				    xasprintf("roofline bandwidth '%s' must be > 0 byte/s (got %g)",
					      c->bandwidths[i].name ? c->bandwidths[i].name : "",
					      c->bandwidths[i].value));
	for (size_t i = 0; i < c->npoints; i++) {
		const struct chart_point *p = &c->points[i];
		if (!(p->intensity > 0) || !(p->performance > 0) || !isfinite(p->intensity) ||
		    !isfinite(p->performance))
			return fail(err, xasprintf("roofline point '%s' needs intensity and "
						   "performance > 0 (got %g FLOP/byte, %g FLOP/s)",
						   p->label ? p->label : "", p->intensity,
						   p->performance));
	}
	return true;
}

/* Layout */

/* Sets the axis range from the data range lo..hi and the explicit
 * limits, widening automatic ends to whole ticks. */
static void axis_setup(struct axis *a, double lo, double hi, bool has_lo, double min, bool has_hi,
		       double max, bool log, bool widen, int max_labels)
{
	chart_ticks_free(&a->t);
	a->log = log;
	if (has_lo)
		lo = min;
	if (has_hi)
		hi = max;
	if (!(lo < hi)) {
		/* One value, or an explicit limit beyond the data: open up the
		 * automatic end(s). */
		if (log) {
			if (!has_lo)
				lo = (has_hi ? hi : lo) / (has_hi ? 10 : 3.16);
			if (!has_hi)
				hi = (has_lo ? lo : hi) * (has_lo ? 10 : 3.16);
		} else {
			double d = lo == 0 ? 1 : fabs(lo) * (has_lo || has_hi ? 1 : 0.1);
			if (!has_lo)
				lo = (has_hi ? hi : lo) - d;
			if (!has_hi)
				hi = (has_lo ? lo : hi) + d;
		}
	}
	if (!chart_ticks(lo, hi, log, widen, max_labels, &a->t)) {
		a->lo = lo;
		a->hi = hi;
		return;
	}
	if ((has_lo || has_hi) && widen) {
		double nlo = has_lo ? min : a->t.lo, nhi = has_hi ? max : a->t.hi;
		chart_ticks_free(&a->t);
		if (!chart_ticks(nlo, nhi, log, false, max_labels, &a->t)) {
			a->lo = nlo;
			a->hi = nhi;
			return;
		}
	}
	a->lo = a->t.lo;
	a->hi = a->t.hi;
}

static double text_height(struct render *r, const PangoFontDescription *f)
{
	double w, h;
	measure(r, f, "0Ay", &w, &h);
	return h;
}

/* Do the labelled ticks of a set overlap, given the gap they need? */
static bool labels_crowd(struct render *r, const struct axis *a, bool horizontal, double gap)
{
	double prev_end = -INFINITY;
	for (size_t i = 0; i < a->t.n; i++) {
		const struct chart_tick *k = &a->t.tick[i];
		if (!k->label[0])
			continue;
		double w, h, p = axis_map(a, k->value);
		measure(r, r->font_tick, k->label, &w, &h);
		double size = horizontal ? w : h;
		/* The y axis runs upward: walk it in pixel order. */
		double start = horizontal ? p - size / 2 : -p - size / 2;
		if (start < prev_end + gap)
			return true;
		prev_end = start + size;
	}
	return false;
}

static double max_tick_width(struct render *r, const struct axis *a)
{
	double m = 0;
	for (size_t i = 0; i < a->t.n; i++) {
		if (!a->t.tick[i].label[0])
			continue;
		double w, h;
		measure(r, r->font_tick, a->t.tick[i].label, &w, &h);
		m = fmax(m, w);
	}
	return m;
}

static double last_tick_half_width(struct render *r, const struct axis *a)
{
	for (size_t i = a->t.n; i-- > 0;) {
		if (!a->t.tick[i].label[0])
			continue;
		double w, h;
		measure(r, r->font_tick, a->t.tick[i].label, &w, &h);
		return w / 2 - (a->p1 - axis_map(a, a->t.tick[i].value));
	}
	return 0;
}

static PangoLayout *category_layout(struct render *r, size_t i, double slot)
{
	double room = fmax(slot * (double)r->cat_every - 6, 8);
	PangoLayout *l = text_new(r, r->font_tick, r->c->categories[i], room, r->cat_wrap ? 2 : 1);
	return l;
}

/* Decides how category names fit under slots of the given width, and
 * returns the height they take: on one line when they fit; else wrapped
 * to two lines (and cut short after that) while the slots are wide
 * enough to read; else one name in every few, on one line each. */
static double category_labels_plan(struct render *r, double slot)
{
	const struct chart *c = r->c;
	double wmax = 0, hmax = 0;
	for (size_t i = 0; i < c->ncategories; i++) {
		double w, h;
		measure(r, r->font_tick, c->categories[i], &w, &h);
		wmax = fmax(wmax, w);
		hmax = fmax(hmax, h);
	}
	r->cat_wrap = false;
	r->cat_every = 1;
	if (wmax <= slot - 6)
		return hmax;
	if (slot >= 60) {
		r->cat_wrap = true;
		double h2 = 0;
		for (size_t i = 0; i < c->ncategories; i++) {
			PangoLayout *l = category_layout(r, i, slot);
			double w, h;
			text_size(l, &w, &h);
			h2 = fmax(h2, h);
			g_object_unref(l);
		}
		return h2;
	}
	double every = ceil((fmin(wmax, 160) + 10) / fmax(slot, 1));
	r->cat_every = every < 1 ? 1 : (size_t)every;
	return hmax;
}

/* The roofline's automatic ranges: every point and ridge, a decade of
 * sloped roof left of the lowest ridge, room above the highest peak for
 * its label. */
static void roofline_ranges(struct render *r)
{
	const struct chart *c = r->c;
	double top = 0, bw_min = INFINITY, bw_max = 0, peak_min = INFINITY;
	for (size_t i = 0; i < c->npeaks; i++) {
		top = fmax(top, c->peaks[i].value);
		peak_min = fmin(peak_min, c->peaks[i].value);
	}
	for (size_t i = 0; i < c->nbandwidths; i++) {
		bw_min = fmin(bw_min, c->bandwidths[i].value);
		bw_max = fmax(bw_max, c->bandwidths[i].value);
	}
	double xlo = top / bw_max / 10, xhi = top / bw_min * 3;
	double ylo = peak_min / 10, yhi = top * 2.5;
	for (size_t i = 0; i < c->npoints; i++) {
		xlo = fmin(xlo, c->points[i].intensity / 2);
		xhi = fmax(xhi, c->points[i].intensity * 3);
		ylo = fmin(ylo, c->points[i].performance / 2);
	}
	/* The weakest roof enters at the left edge; show where, unless that
	 * stretches the axis beyond six decades under the peak. */
	ylo = fmin(ylo, fmax(bw_min * xlo, top / 1e6));
	r->dx_lo = xlo;
	r->dx_hi = xhi;
	r->dy_lo = ylo;
	r->dy_hi = yhi;
}

/* Margins, axes and ticks, from the text they must hold.  A small chart
 * first leaves out its title, then its axis labels, so that the plot
 * keeps some room. */
static void layout(struct render *r)
{
	const struct chart *c = r->c;
	bool bar = c->type == CHART_BAR, roof = c->type == CHART_ROOFLINE;
	double tick_h = text_height(r, r->font_tick);
	double label_h = text_height(r, r->font_text);
	const char *xl = c->x_label && *c->x_label ? c->x_label : NULL;
	const char *yl = c->y_label && *c->y_label ? c->y_label : NULL;
	if (roof && !c->x_label)
		xl = "Arithmetic intensity (FLOP/byte)";
	if (roof && !c->y_label)
		yl = "Performance (FLOP/s)";
	double title_h = 0;
	if (c->title && *c->title) {
		PangoLayout *l = text_new(r, r->font_title, c->title, r->w - 24, 2);
		double w;
		text_size(l, &w, &title_h);
		g_object_unref(l);
	}
	double right = 14 + (r->legend_outside ? r->lg_w + 12 : 0);
	double top = 10, bottom = 0, left = 0;
	for (int level = 0; level < 3; level++) {
		r->title = level < 1 && title_h > 0 ? c->title : NULL;
		r->x_label = level < 2 ? xl : NULL;
		r->y_label = level < 2 ? yl : NULL;
		top = 10 + (r->title ? title_h + 8 : 0);
		left = 8 + (r->y_label ? label_h + 8 : 0);
		bottom = 8 + (r->x_label ? label_h + 6 : 0);
		double xtick_h = tick_h;
		if (bar) {
			double slot = (r->w - left - right - 40) / (double)c->ncategories;
			xtick_h = category_labels_plan(r, slot);
		}
		bottom += xtick_h + TICK_LEN + 4;
		if (r->h - top - bottom >= 60 && r->w - left - right >= 100)
			break;
	}
	r->T = round(top);
	r->B = round(fmax(r->h - bottom, top + 10));
	double plot_h = r->B - r->T;

	/* Line and scatter data keep off the frame by a few pixels where
	 * the range is automatic, so no marker is cut in half. */
	double inset = 0;
	if (c->type == CHART_LINE || c->type == CHART_SCATTER)
		inset = fmin(r->mark_r > 0 ? r->mark_r + 3 : 4, plot_h / 4);
	bool has_xlo = c->has_x_min, has_xhi = c->has_x_max;
	bool has_ylo = c->has_y_min, has_yhi = c->has_y_max;
	double ylo = r->dy_lo, yhi = r->dy_hi + r->bar_value_room;
	if (bar && !c->y_log) {
		ylo = fmin(ylo, 0);
		yhi = fmax(yhi, 0);
	}
	bool xlog = roof || c->x_log, ylog = roof || c->y_log;

	/* y first: its labels set the left margin.  As many ticks as fit
	 * with room between their labels, and never fewer than two. */
	for (int ymax = (int)fmax(2, plot_h / 30);; ymax--) {
		axis_setup(&r->y, ylo, yhi, has_ylo, c->y_min, has_yhi, c->y_max, ylog, !roof,
			   ymax);
		r->y.p0 = r->B - (has_ylo || bar ? 0 : inset);
		r->y.p1 = r->T + (has_yhi || bar ? 0 : inset);
		if (ymax <= 2 || !labels_crowd(r, &r->y, false, 6))
			break;
	}
	left += max_tick_width(r, &r->y) + 4 + TICK_LEN;
	r->L = round(left);
	r->R = round(fmax(r->w - right, left + 10));

	if (bar) {
		r->x.log = false;
		r->x.lo = 0;
		r->x.hi = (double)c->ncategories;
		r->x.p0 = r->L;
		r->x.p1 = r->R;
		category_labels_plan(r, (r->R - r->L) / (double)c->ncategories);
		return;
	}
	/* x likewise; then room on the right for the last label, and again. */
	for (int pass = 0; pass < 2; pass++) {
		for (int xmax = (int)fmax(2, (r->R - r->L) / 45);; xmax--) {
			axis_setup(&r->x, r->dx_lo, r->dx_hi, has_xlo, c->x_min, has_xhi, c->x_max,
				   xlog, !roof, xmax);
			r->x.p0 = r->L + (has_xlo ? 0 : inset);
			r->x.p1 = r->R - (has_xhi ? 0 : inset);
			if (xmax <= 2 || !labels_crowd(r, &r->x, true, 14))
				break;
		}
		double over = last_tick_half_width(r, &r->x) - (r->w - r->R) + 4;
		if (over <= 0 || r->R - over < r->L + 40)
			break;
		r->R = round(r->R - over);
	}
}

/* Data to pixels */

static void pts_push(struct pts *s, double x, double y)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->p = xrealloc(s->p, s->cap * sizeof *s->p);
	}
	/* A tenth of a device pixel is finer than any screen shows, and
	 * short numbers keep the SVG small. */
	s->p[s->n].x = isnan(x) ? x : round(x * 10) / 10;
	s->p[s->n].y = isnan(y) ? y : round(y * 10) / 10;
	s->n++;
}

static void pts_break(struct pts *s)
{
	if (s->n > 0 && !isnan(s->p[s->n - 1].x))
		pts_push(s, NAN, NAN);
}

/* One pixel column's worth of a reduced line: the points in the order
 * they came, keeping only the first, lowest, highest and last. */
struct column {
	long col;
	size_t n;
	struct pt first, last, lo, hi;
	size_t ilo, ihi;
};

static void column_flush(struct pts *s, const struct column *k, double scale)
{
	if (k->n == 0)
		return;
	pts_push(s, k->first.x * scale, k->first.y * scale);
	/* Pixel y grows downward: the highest value has the smallest y. */
	const struct pt *a = &k->lo, *b = &k->hi;
	if (k->ihi < k->ilo)
		a = &k->hi, b = &k->lo;
	if (k->n > 2) {
		pts_push(s, a->x * scale, a->y * scale);
		pts_push(s, b->x * scale, b->y * scale);
	}
	if (k->n > 1)
		pts_push(s, k->last.x * scale, k->last.y * scale);
}

/* Maps series i to device pixels.  A line with more than twice as many
 * points as the plot has pixel columns keeps per column its first,
 * minimum, maximum and last point; a scatter as big keeps one point per
 * marker-sized cell. */
static void project(struct render *r, size_t i)
{
	const struct chart_series *s = &r->c->series[i];
	struct pts *out = &r->ser[i];
	out->n = 0;
	double sc = r->scale;
	double cols = (r->R - r->L) * sc;
	bool reduce = (double)s->n > 2 * cols;
	out->reduced = reduce;
	if (r->c->type == CHART_SCATTER) {
		double cell = fmax(1, r->mark_r) * sc;
		long gw = (long)((r->R - r->L) * sc / cell) + 3;
		long gh = (long)((r->B - r->T) * sc / cell) + 3;
		unsigned char *seen = reduce ? xcalloc((size_t)(gw * gh), 1) : NULL;
		for (size_t j = 0; j < s->n; j++) {
			double x = series_x(s, j), y = s->y[j];
			if (!isfinite(x) || !isfinite(y))
				continue;
			double px = axis_map(&r->x, x), py = axis_map(&r->y, y);
			if (seen) {
				long cx = (long)floor((px - r->L) * sc / cell) + 1;
				long cy = (long)floor((py - r->T) * sc / cell) + 1;
				if (cx < 0 || cy < 0 || cx >= gw || cy >= gh)
					continue;
				if (seen[cy * gw + cx])
					continue;
				seen[cy * gw + cx] = 1;
			}
			pts_push(out, px, py);
		}
		free(seen);
		return;
	}
	struct column k = {.col = LONG_MIN};
	for (size_t j = 0; j < s->n; j++) {
		double x = series_x(s, j), y = s->y[j];
		if (!isfinite(x) || !isfinite(y)) {
			if (reduce) {
				column_flush(out, &k, 1);
				k.n = 0;
				k.col = LONG_MIN;
			}
			pts_break(out);
			continue;
		}
		double px = axis_map(&r->x, x) * sc, py = axis_map(&r->y, y) * sc;
		if (!reduce) {
			pts_push(out, px / sc, py / sc);
			continue;
		}
		long col = (long)floor(px);
		if (col != k.col || k.n == 0) {
			column_flush(out, &k, 1 / sc);
			k.col = col;
			k.n = 0;
			k.first = k.lo = k.hi = (struct pt){px, py};
			k.ilo = k.ihi = j;
		}
		if (py > k.lo.y)
			k.lo = (struct pt){px, py}, k.ilo = j;
		if (py < k.hi.y)
			k.hi = (struct pt){px, py}, k.ihi = j;
		k.last = (struct pt){px, py};
		k.n++;
	}
	if (reduce)
		column_flush(out, &k, 1 / sc);
}

/* Markers */

static enum marker series_marker(size_t i)
{
	return (enum marker)(i % MK_COUNT);
}

static void marker_path(cairo_t *cr, enum marker m, double x, double y, double r)
{
	switch (m) {
	case MK_CIRCLE:
		cairo_new_sub_path(cr);
		cairo_arc(cr, x, y, r, 0, 2 * PI);
		break;
	case MK_SQUARE: {
		double s = r * 0.89;
		cairo_rectangle(cr, x - s, y - s, 2 * s, 2 * s);
		break;
	}
	case MK_TRIANGLE:
	case MK_TRIANGLE_DOWN: {
		double d = m == MK_TRIANGLE ? 1 : -1, a = r * 1.3;
		cairo_move_to(cr, x, y - d * a);
		cairo_line_to(cr, x + a * 0.866, y + d * a * 0.5);
		cairo_line_to(cr, x - a * 0.866, y + d * a * 0.5);
		cairo_close_path(cr);
		break;
	}
	case MK_DIAMOND: {
		double a = r * 1.25;
		cairo_move_to(cr, x, y - a);
		cairo_line_to(cr, x + a * 0.8, y);
		cairo_line_to(cr, x, y + a);
		cairo_line_to(cr, x - a * 0.8, y);
		cairo_close_path(cr);
		break;
	}
	case MK_PLUS: {
		double a = r * 1.2, b = r * 0.38;
		cairo_move_to(cr, x - b, y - a);
		cairo_line_to(cr, x + b, y - a);
		cairo_line_to(cr, x + b, y - b);
		cairo_line_to(cr, x + a, y - b);
		cairo_line_to(cr, x + a, y + b);
		cairo_line_to(cr, x + b, y + b);
		cairo_line_to(cr, x + b, y + a);
		cairo_line_to(cr, x - b, y + a);
		cairo_line_to(cr, x - b, y + b);
		cairo_line_to(cr, x - a, y + b);
		cairo_line_to(cr, x - a, y - b);
		cairo_line_to(cr, x - b, y - b);
		cairo_close_path(cr);
		break;
	}
	case MK_CROSS: {
		/* The plus turned by 45 degrees. */
		double a = r * 1.25, b = r * 0.38;
		double px[12] = {-b, b, b, a, a, b, b, -b, -b, -a, -a, -b};
		double py[12] = {-a, -a, -b, -b, b, b, a, a, b, b, -b, -b};
		for (int i = 0; i < 12; i++) {
			double u = (px[i] - py[i]) * 0.7071, v = (px[i] + py[i]) * 0.7071;
			if (i == 0)
				cairo_move_to(cr, x + u, y + v);
			else
				cairo_line_to(cr, x + u, y + v);
		}
		cairo_close_path(cr);
		break;
	}
	case MK_STAR:
	case MK_COUNT:
		for (int i = 0; i < 10; i++) {
			double a = -PI / 2 + i * PI / 5, rr = i % 2 ? r * 0.6 : r * 1.45;
			if (i == 0)
				cairo_move_to(cr, x + rr * cos(a), y + rr * sin(a));
			else
				cairo_line_to(cr, x + rr * cos(a), y + rr * sin(a));
		}
		cairo_close_path(cr);
		break;
	}
}

/* A marker filled in its colour with a thin white edge, which keeps
 * neighbours apart where they overlap. */
static void marker_draw(struct render *r, enum marker m, double x, double y, double rad,
			unsigned color, bool edge)
{
	cairo_t *cr = r->cr;
	cairo_new_path(cr);
	marker_path(cr, m, x, y, rad);
	set_rgb(cr, color);
	if (edge) {
		cairo_fill_preserve(cr);
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_set_line_width(cr, 0.8);
		cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
		cairo_stroke(cr);
	} else {
		cairo_fill(cr);
	}
}

static void set_series_line(struct render *r, size_t i, double width)
{
	cairo_t *cr = r->cr;
	size_t d = i % ARRAY_LEN(dashes);
	cairo_set_line_width(cr, width);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_set_line_cap(cr, dashes[d].n ? CAIRO_LINE_CAP_BUTT : CAIRO_LINE_CAP_ROUND);
	if (d == 2)
		cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
	cairo_set_dash(cr, dashes[d].d, dashes[d].n, 0);
}

/* Legend */

static bool series_labelled(const struct chart *c, size_t i)
{
	return c->series[i].label && c->series[i].label[0];
}

static void legend_measure(struct render *r)
{
	const struct chart *c = r->c;
	r->legend = false;
	double wmax = 0, h = 0;
	size_t rows = 0;
	for (size_t i = 0; i < c->nseries; i++) {
		if (!series_labelled(c, i))
			continue;
		double w, th;
		measure(r, r->font_tick, c->series[i].label, &w, &th);
		wmax = fmax(wmax, fmin(w, 220));
		h = fmax(h, th);
		rows++;
	}
	if (rows == 0)
		return;
	r->legend = true;
	r->lg_row = fmax(h, 14) + 3;
	double sample = c->type == CHART_LINE ? 26 : 14;
	r->lg_w = ceil(8 + sample + 6 + wmax + 8);
	r->lg_h = ceil(6 + rows * r->lg_row + 3);
}

/* A coarse map of the plot: which 3-pixel cells hold data. */
struct occupancy {
	double x0, y0, cell;
	long w, h;
	unsigned char *m;
};

static void occ_rect(struct occupancy *o, double x0, double y0, double x1, double y1)
{
	long a = (long)floor((fmin(x0, x1) - o->x0) / o->cell);
	long b = (long)floor((fmax(x0, x1) - o->x0) / o->cell);
	long c = (long)floor((fmin(y0, y1) - o->y0) / o->cell);
	long d = (long)floor((fmax(y0, y1) - o->y0) / o->cell);
	if (a < 0)
		a = 0;
	if (c < 0)
		c = 0;
	if (b >= o->w)
		b = o->w - 1;
	if (d >= o->h)
		d = o->h - 1;
	for (long y = c; y <= d; y++)
		for (long x = a; x <= b; x++)
			o->m[y * o->w + x] = 1;
}

static void occ_segment(struct occupancy *o, struct pt a, struct pt b, double pad)
{
	double len = hypot(b.x - a.x, b.y - a.y);
	int steps = (int)(len / o->cell) + 1;
	for (int i = 0; i <= steps; i++) {
		double t = (double)i / steps;
		double x = a.x + t * (b.x - a.x), y = a.y + t * (b.y - a.y);
		occ_rect(o, x - pad, y - pad, x + pad, y + pad);
	}
}

static long occ_count(const struct occupancy *o, double x0, double y0, double x1, double y1)
{
	long a = (long)floor((x0 - o->x0) / o->cell), b = (long)floor((x1 - o->x0) / o->cell);
	long c = (long)floor((y0 - o->y0) / o->cell), d = (long)floor((y1 - o->y0) / o->cell);
	long n = 0;
	for (long y = c < 0 ? 0 : c; y <= d && y < o->h; y++)
		for (long x = a < 0 ? 0 : a; x <= b && x < o->w; x++)
			n += o->m[y * o->w + x];
	return n;
}

/* The geometry of bar j of series i. */
static void bar_rect(const struct render *r, size_t cat, size_t i, double *x0, double *x1)
{
	double slot = (r->R - r->L) / (double)r->c->ncategories;
	double bw = slot * (r->c->nseries == 1 ? 0.6 : 0.78) / (double)r->c->nseries;
	/* A few categories would give slabs: no bar wider than 110 pixels. */
	bw = fmin(bw, 110);
	double group = bw * (double)r->c->nseries;
	double left = r->L + slot * (double)cat + (slot - group) / 2;
	double gap = bw > 10 ? 1.5 : 0;
	*x0 = device_round(r, left + bw * (double)i + gap / 2);
	*x1 = device_round(r, left + bw * (double)(i + 1) - gap / 2);
}

static double bar_base(const struct render *r)
{
	if (r->y.log)
		return r->y.p0;
	double base = fmin(fmax(0, r->y.lo), r->y.hi);
	return axis_map(&r->y, base);
}

static void occ_fill(struct render *r, struct occupancy *o)
{
	const struct chart *c = r->c;
	if (c->type == CHART_BAR) {
		double label_h = r->bar_values ? text_height(r, r->font_small) + 3 : 0;
		for (size_t j = 0; j < c->ncategories; j++)
			for (size_t i = 0; i < c->nseries; i++) {
				double v = c->series[i].y[j], x0, x1;
				if (!isfinite(v))
					continue;
				bar_rect(r, j, i, &x0, &x1);
				double top = axis_map(&r->y, v), base = bar_base(r);
				occ_rect(o, x0, fmin(top, base) - (v >= 0 ? label_h : 0), x1,
					 fmax(top, base) + (v < 0 ? label_h : 0));
			}
		return;
	}
	for (size_t i = 0; i < c->nseries; i++) {
		const struct pts *s = &r->ser[i];
		double pad = r->markers[i] ? r->mark_r + 1 : 2;
		for (size_t j = 0; j < s->n; j++) {
			struct pt a = s->p[j];
			if (isnan(a.x))
				continue;
			occ_rect(o, a.x - pad, a.y - pad, a.x + pad, a.y + pad);
			if (c->type == CHART_LINE && j + 1 < s->n && !isnan(s->p[j + 1].x))
				occ_segment(o, a, s->p[j + 1], 2);
		}
	}
}

/* Puts the legend in the emptiest corner of the plot; with data in
 * every corner, outside on the right.  Returns false when it must go
 * outside. */
static bool legend_place(struct render *r)
{
	struct occupancy o = {.x0 = r->L, .y0 = r->T, .cell = 3};
	o.w = (long)((r->R - r->L) / o.cell) + 1;
	o.h = (long)((r->B - r->T) / o.cell) + 1;
	o.m = xcalloc((size_t)(o.w * o.h), 1);
	occ_fill(r, &o);
	const double m = 8;
	double xs[2] = {r->R - m - r->lg_w, r->L + m};
	double ys[2] = {r->T + m, r->B - m - r->lg_h};
	/* Preference: top right, top left, bottom right, bottom left. */
	static const int order[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
	long best = LONG_MAX;
	int pick = -1;
	for (int i = 0; i < 4; i++) {
		double x = xs[order[i][0]], y = ys[order[i][1]];
		if (x < r->L || y < r->T)
			continue;
		long n = occ_count(&o, x - 3, y - 3, x + r->lg_w + 3, y + r->lg_h + 3);
		if (n < best) {
			best = n;
			pick = i;
		}
	}
	free(o.m);
	if (pick < 0 || best > 0)
		return false;
	r->lg_x = xs[order[pick][0]];
	r->lg_y = ys[order[pick][1]];
	return true;
}

static void legend_draw(struct render *r)
{
	const struct chart *c = r->c;
	cairo_t *cr = r->cr;
	double x = round(r->lg_x), y = round(r->lg_y);
	cairo_rectangle(cr, crisp(r, x, 1), crisp(r, y, 1), r->lg_w, r->lg_h);
	cairo_set_source_rgba(cr, 1, 1, 1, 0.92);
	cairo_fill_preserve(cr);
	set_rgb(cr, 0xd0d0d0);
	cairo_set_line_width(cr, 1);
	cairo_set_dash(cr, NULL, 0, 0);
	cairo_stroke(cr);
	double row_y = y + 6;
	for (size_t i = 0; i < c->nseries; i++) {
		if (!series_labelled(c, i))
			continue;
		unsigned color = palette[i % ARRAY_LEN(palette)];
		double cy = row_y + r->lg_row / 2, sx = x + 8, tx;
		if (c->type == CHART_LINE && c->series[i].n < 2) {
			/* a one-point series is drawn as its marker: so is its key */
			marker_draw(r, series_marker(i), sx + 13, cy, r->mark_r, color, true);
			tx = sx + 26 + 6;
		} else if (c->type == CHART_LINE) {
			cairo_move_to(cr, sx, cy);
			cairo_line_to(cr, sx + 26, cy);
			set_series_line(r, i, 2);
			set_rgb(cr, color);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
			if (r->markers[i])
				marker_draw(r, series_marker(i), sx + 13, cy, r->mark_r, color, true);
			tx = sx + 26 + 6;
		} else if (c->type == CHART_SCATTER) {
			marker_draw(r, series_marker(i), sx + 7, cy, 3.5, color, true);
			tx = sx + 14 + 6;
		} else {
			cairo_rectangle(cr, device_round(r, sx + 1), device_round(r, cy - 5), 12, 10);
			set_rgb(cr, color);
			cairo_fill(cr);
			tx = sx + 14 + 6;
		}
		PangoLayout *l = text_new(r, r->font_tick, c->series[i].label, 0, 0);
		pango_layout_set_width(l, 220 * PANGO_SCALE);
		pango_layout_set_ellipsize(l, PANGO_ELLIPSIZE_END);
		text_draw(r, l, tx, cy, 0, 0.5, 0, 0x262626);
		g_object_unref(l);
		row_y += r->lg_row;
	}
}

/* Frame, grid, ticks, titles */

static void draw_grid(struct render *r, bool vertical)
{
	cairo_t *cr = r->cr;
	cairo_set_line_width(cr, 1);
	cairo_set_dash(cr, NULL, 0, 0);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
	for (int pass = 0; pass < 2; pass++) {
		bool major = pass == 1;
		const struct axis *axes[2] = {&r->y, vertical ? &r->x : NULL};
		for (int a = 0; a < 2; a++) {
			if (!axes[a])
				continue;
			const struct axis *ax = axes[a];
			for (size_t i = 0; i < ax->t.n; i++) {
				/* A labelled minor tick (narrow log axes) gets a major
				 * tick's line. */
				const struct chart_tick *k = &ax->t.tick[i];
				if ((k->major || k->label[0]) != major)
					continue;
				double p = axis_map(ax, ax->t.tick[i].value);
				if (a == 0) {
					double y = crisp(r, p, 1);
					if (y > r->B - 0.5)
						continue;
					cairo_move_to(cr, r->L, y);
					cairo_line_to(cr, r->R, y);
				} else {
					double x = crisp(r, p, 1);
					if (x < r->L + 0.5)
						continue;
					cairo_move_to(cr, x, r->T);
					cairo_line_to(cr, x, r->B);
				}
			}
		}
		set_rgb(cr, major ? COLOR_GRID : COLOR_MINOR_GRID);
		cairo_stroke(cr);
	}
}

static void draw_axes(struct render *r)
{
	const struct chart *c = r->c;
	cairo_t *cr = r->cr;
	bool bar = c->type == CHART_BAR;
	cairo_set_line_width(cr, 1);
	cairo_set_dash(cr, NULL, 0, 0);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
	set_rgb(cr, COLOR_TICK);
	/* The spines sit just outside the frame, on whole pixels at 1x and
	 * 2x alike. */
	double lx = crisp(r, r->L - 0.5, 1), by = crisp(r, r->B + 0.5, 1);
	cairo_move_to(cr, lx, r->T);
	cairo_line_to(cr, lx, by);
	cairo_line_to(cr, r->R, by);
	cairo_stroke(cr);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
	for (size_t i = 0; i < r->y.t.n; i++) {
		const struct chart_tick *k = &r->y.t.tick[i];
		double y = crisp(r, axis_map(&r->y, k->value), 1);
		double len = k->major || k->label[0] ? TICK_LEN : MINOR_TICK_LEN;
		cairo_move_to(cr, lx, y);
		cairo_line_to(cr, lx - len, y);
	}
	if (bar && r->cat_every > 1) {
		/* Thinned names: a tick shows which group each one names. */
		double slot = (r->R - r->L) / (double)c->ncategories;
		for (size_t i = 0; i < c->ncategories; i += r->cat_every) {
			double x = crisp(r, r->L + slot * ((double)i + 0.5), 1);
			cairo_move_to(cr, x, by);
			cairo_line_to(cr, x, by + TICK_LEN);
		}
	}
	if (!bar)
		for (size_t i = 0; i < r->x.t.n; i++) {
			const struct chart_tick *k = &r->x.t.tick[i];
			double x = crisp(r, axis_map(&r->x, k->value), 1);
			double len = k->major || k->label[0] ? TICK_LEN : MINOR_TICK_LEN;
			cairo_move_to(cr, x, by);
			cairo_line_to(cr, x, by + len);
		}
	cairo_stroke(cr);

	for (size_t i = 0; i < r->y.t.n; i++) {
		const struct chart_tick *k = &r->y.t.tick[i];
		if (k->label[0])
			text_put(r, r->font_tick, k->label, r->L - TICK_LEN - 4,
				 axis_map(&r->y, k->value), 1, 0.5, 0, COLOR_TICK);
	}
	if (bar) {
		double slot = (r->R - r->L) / (double)c->ncategories;
		for (size_t i = 0; i < c->ncategories; i += r->cat_every) {
			PangoLayout *l = category_layout(r, i, slot);
			text_draw(r, l, r->L + slot * ((double)i + 0.5),
				  r->B + (r->cat_every > 1 ? TICK_LEN + 3 : 5), 0.5, 0, 0, COLOR_TEXT);
			g_object_unref(l);
		}
	} else {
		for (size_t i = 0; i < r->x.t.n; i++) {
			const struct chart_tick *k = &r->x.t.tick[i];
			if (k->label[0])
				text_put(r, r->font_tick, k->label, axis_map(&r->x, k->value),
					 r->B + TICK_LEN + 3, 0.5, 0, 0, COLOR_TICK);
		}
	}
}

static void draw_titles(struct render *r)
{
	if (r->title) {
		PangoLayout *l = text_new(r, r->font_title, r->title, r->w - 24, 2);
		double w, h;
		text_size(l, &w, &h);
		/* Centred over the plot when it fits there, else the chart. */
		double cx = (r->L + r->R) / 2;
		if (w > r->R - r->L)
			cx = r->w / 2.0;
		text_draw(r, l, cx, 9, 0.5, 0, 0, COLOR_TITLE);
		g_object_unref(l);
	}
	if (r->x_label) {
		PangoLayout *l = text_new(r, r->font_text, r->x_label, r->R - r->L, 1);
		text_draw(r, l, (r->L + r->R) / 2, r->h - 7, 0.5, 1, 0, COLOR_TEXT);
		g_object_unref(l);
	}
	if (r->y_label) {
		PangoLayout *l = text_new(r, r->font_text, r->y_label, r->B - r->T, 1);
		text_draw(r, l, 8, (r->T + r->B) / 2, 0.5, 0, -PI / 2, COLOR_TEXT);
		g_object_unref(l);
	}
}

/* Line and scatter */

static void draw_xy(struct render *r)
{
	const struct chart *c = r->c;
	cairo_t *cr = r->cr;
	cairo_save(cr);
	cairo_rectangle(cr, r->L, r->T, r->R - r->L, r->B - r->T);
	cairo_clip(cr);
	for (size_t i = 0; i < c->nseries; i++) {
		const struct pts *s = &r->ser[i];
		unsigned color = palette[i % ARRAY_LEN(palette)];
		if (c->type == CHART_LINE) {
			cairo_new_path(cr);
			bool pen = false;
			for (size_t j = 0; j < s->n; j++) {
				if (isnan(s->p[j].x)) {
					pen = false;
					continue;
				}
				if (pen)
					cairo_line_to(cr, s->p[j].x, s->p[j].y);
				else
					cairo_move_to(cr, s->p[j].x, s->p[j].y);
				pen = true;
			}
			set_series_line(r, i, s->reduced ? 1.25 : 2);
			set_rgb(cr, color);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
		}
		if (!r->markers[i])
			continue;
		bool edge = !s->reduced;
		if (edge) {
			for (size_t j = 0; j < s->n; j++)
				if (!isnan(s->p[j].x))
					marker_draw(r, series_marker(i), s->p[j].x, s->p[j].y,
						    r->mark_r, color, true);
		} else {
			/* Thousands of markers: one path, one fill. */
			cairo_new_path(cr);
			for (size_t j = 0; j < s->n; j++)
				if (!isnan(s->p[j].x))
					marker_path(cr, series_marker(i), s->p[j].x, s->p[j].y,
						    r->mark_r);
			set_rgba(cr, color, 0.75);
			cairo_fill(cr);
		}
	}
	cairo_restore(cr);
}

/* Bars */

static void bar_values_plan(struct render *r)
{
	/* Values go above the bars when each fits its bar's width. */
	const struct chart *c = r->c;
	r->bar_values = false;
	r->bar_value_room = 0;
	if (c->y_log || c->ncategories * c->nseries > 40)
		return;
	double slot = (r->w - 120) / (double)c->ncategories;
	double bw = slot * (c->nseries == 1 ? 0.6 : 0.78) / (double)c->nseries;
	for (size_t i = 0; i < c->nseries; i++)
		for (size_t j = 0; j < c->ncategories; j++) {
			char s[64];
			double w, h;
			if (!isfinite(c->series[i].y[j]))
				continue;
			format_value(s, sizeof s, c->series[i].y[j]);
			measure(r, r->font_small, s, &w, &h);
			if (w > bw + 4)
				return;
		}
	r->bar_values = true;
}

static void draw_bars(struct render *r)
{
	const struct chart *c = r->c;
	cairo_t *cr = r->cr;
	cairo_save(cr);
	cairo_rectangle(cr, r->L, r->T - 20, r->R - r->L, r->B - r->T + 20);
	cairo_clip(cr);
	double base = device_round(r, bar_base(r));
	for (size_t i = 0; i < c->nseries; i++) {
		unsigned color = palette[i % ARRAY_LEN(palette)];
		for (size_t j = 0; j < c->ncategories; j++) {
			double v = c->series[i].y[j], x0, x1;
			if (!isfinite(v))
				continue;
			bar_rect(r, j, i, &x0, &x1);
			double top = device_round(r, axis_map(&r->y, v));
			top = fmin(fmax(top, r->T), r->B);
			cairo_rectangle(cr, x0, fmin(top, base), x1 - x0, fabs(base - top));
			set_rgb(cr, color);
			cairo_fill(cr);
			if (r->bar_values) {
				char s[64];
				format_value(s, sizeof s, v);
				bool up = v >= 0 || r->y.log;
				text_put(r, r->font_small, s, (x0 + x1) / 2, top + (up ? -2 : 2), 0.5,
					 up ? 1 : 0, 0, COLOR_TEXT);
			}
		}
	}
	/* A zero line when bars go both ways. */
	if (!r->y.log && r->y.lo < 0 && r->y.hi > 0) {
		double y = crisp(r, axis_map(&r->y, 0), 1);
		cairo_move_to(cr, r->L, y);
		cairo_line_to(cr, r->R, y);
		set_rgb(cr, COLOR_TICK);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
	}
	cairo_restore(cr);
}

/* Roofline */

struct roof_line {
	double x0, y0, x1, y1; /* pixels, clipped to the frame */
	bool visible;
};

/* Clips the segment from (x0,y0) to (x1,y1) to the frame (Liang-Barsky). */
static bool clip_segment(const struct render *r, double *x0, double *y0, double *x1, double *y1)
{
	double t0 = 0, t1 = 1, dx = *x1 - *x0, dy = *y1 - *y0;
	double p[4] = {-dx, dx, -dy, dy};
	double q[4] = {*x0 - r->L, r->R - *x0, *y0 - r->T, r->B - *y0};
	for (int i = 0; i < 4; i++) {
		if (p[i] == 0) {
			if (q[i] < 0)
				return false;
			continue;
		}
		double t = q[i] / p[i];
		if (p[i] < 0)
			t0 = fmax(t0, t);
		else
			t1 = fmin(t1, t);
	}
	if (t0 > t1)
		return false;
	double ax = *x0, ay = *y0;
	*x0 = ax + t0 * dx;
	*y0 = ay + t0 * dy;
	*x1 = ax + t1 * dx;
	*y1 = ay + t1 * dy;
	return true;
}

/* Finds the best spot for a w x h label along a line: sliding from its
 * left end (or, at_end, its right end), above the line first, then
 * below.  Returns the anchor of the label's left edge in *px, *py, its
 * vertical anchor in *ay and the line's angle in *angle. */
static void place_on_line(struct render *r, const struct roof_line *ln, double w, double h,
			  bool at_end, double *px, double *py, double *ay, double *angle)
{
	double dx = ln->x1 - ln->x0, dy = ln->y1 - ln->y0, len = hypot(dx, dy);
	if (len < 1)
		dx = 1, dy = 0, len = 1;
	double ux = dx / len, uy = dy / len;
	/* The normal pointing up the page. */
	double nx = uy, ny = -ux;
	if (ny > 0)
		nx = -nx, ny = -ny;
	*angle = atan2(dy, dx);
	int best = INT_MAX;
	double room = len - w - 8;
	int steps = 12;
	for (int side = 0; side < 2; side++) {
		for (int i = 0; i <= steps; i++) {
			if (room < 0 && i > 0)
				break;
			double t = room < 0 ? 0 : room * (double)i / steps;
			/* Peak labels read from the right end, slopes from the left. */
			double along = at_end ? len - 4 - w - t : 4 + t;
			double off = side == 0 ? 2.5 : -2.5;
			double x = ln->x0 + ux * along + nx * off, y = ln->y0 + uy * along + ny * off;
			double a = side == 0 ? 1 : 0;
			struct quad q = text_quad(x, y, 0, a, *angle, w, h, 1);
			int cost = quad_cost(r, &q) * 2 + side;
			if (cost < best) {
				best = cost;
				*px = x;
				*py = y;
				*ay = a;
			}
			if (best <= 0)
				return;
		}
	}
}

/* Puts a label next to a point: right, left, above, below, then the
 * diagonals, wherever it hits nothing. */
static int place_near(struct render *r, double x, double y, double rad, double w, double h,
		      double *px, double *py, double *ax, double *ay)
{
	static const double spots[8][4] = {
		{1, 0, 0, 0.5}, {-1, 0, 1, 0.5}, {0, -1, 0.5, 1}, {0, 1, 0.5, 0},
		{0.7, -0.7, 0, 1}, {0.7, 0.7, 0, 0}, {-0.7, -0.7, 1, 1}, {-0.7, 0.7, 1, 0},
	};
	int best = INT_MAX;
	for (int i = 0; i < 8; i++) {
		double d = rad + 4;
		double sx = x + spots[i][0] * d, sy = y + spots[i][1] * d;
		struct quad q = text_quad(sx, sy, spots[i][2], spots[i][3], 0, w, h, 1);
		int cost = quad_cost(r, &q);
		if (cost < best) {
			best = cost;
			*px = sx;
			*py = sy;
			*ax = spots[i][2];
			*ay = spots[i][3];
		}
		if (best == 0)
			break;
	}
	return best;
}

/* Writes a ceiling's name and value along its line; ridge, when not
 * 0, is the peak whose ridge point the label also names. */
static void ceiling_label(struct render *r, const struct roof_line *ln, const struct chart_mark *mk,
			  bool slope, double ridge)
{
	struct buf text = BUF_INIT;
	char q[64];
	format_quantity(q, sizeof q, mk->value, slope ? "B/s" : "FLOP/s");
	if (mk->name && *mk->name)
		buf_printf(&text, "%s ", mk->name);
	buf_puts(&text, q);
	if (ridge > 0) {
		format_intensity(q, sizeof q, ridge / mk->value);
		buf_printf(&text, ", ridge at %s", q);
	}
	double w, h, px = 0, py = 0, ay = 0, angle = 0;
	measure(r, r->font_small, buf_data(&text), &w, &h);
	place_on_line(r, ln, w, h, !slope, &px, &py, &ay, &angle);
	text_put(r, r->font_small, buf_data(&text), px, py, 0, ay, angle, COLOR_CEILING);
	obstacle_add(r, text_quad(px, py, 0, ay, angle, w, h, 1));
	buf_free(&text);
}

/* Labels each ridge point with its intensity where that hits nothing;
 * the others are flagged in in_label for their roof's label. */
static void ridge_labels(struct render *r, const struct roof_line *lines, double top,
			 double ridge_r, bool *in_label)
{
	const struct chart *c = r->c;
	for (size_t i = 0; i < c->nbandwidths; i++) {
		double xi = top / c->bandwidths[i].value;
		if (xi < r->x.lo || xi > r->x.hi)
			continue;
		double x = axis_map(&r->x, xi), y = axis_map(&r->y, top);
		char s[64];
		format_intensity(s, sizeof s, xi);
		double w, h, px = 0, py = 0, ax = 0, ay = 0;
		measure(r, r->font_small, s, &w, &h);
		if (place_near(r, x, y, ridge_r, w, h, &px, &py, &ax, &ay) > 0 && lines[i].visible) {
			in_label[i] = true;
			continue;
		}
		text_put(r, r->font_small, s, px, py, ax, ay, 0, 0x6b6b6b);
		obstacle_add(r, text_quad(px, py, ax, ay, 0, w, h, 1));
	}
}

static void draw_roofline(struct render *r)
{
	const struct chart *c = r->c;
	cairo_t *cr = r->cr;
	double top = 0, bw_top = 0;
	size_t itop = 0, ibw = 0;
	for (size_t i = 0; i < c->npeaks; i++)
		if (c->peaks[i].value > top)
			top = c->peaks[i].value, itop = i;
	for (size_t i = 0; i < c->nbandwidths; i++)
		if (c->bandwidths[i].value > bw_top)
			bw_top = c->bandwidths[i].value, ibw = i;
	size_t nl = c->npeaks + c->nbandwidths;
	struct roof_line *lines = xcalloc(nl, sizeof *lines);
	/* Sloped roofs rise to the highest peak; lower peaks start where
	 * the steepest roof meets them. */
	for (size_t i = 0; i < c->nbandwidths; i++) {
		struct roof_line *ln = &lines[i];
		double b = c->bandwidths[i].value, xa = r->x.lo, xb = fmin(top / b, r->x.hi);
		ln->x0 = axis_map(&r->x, xa);
		ln->y0 = axis_map(&r->y, b * xa);
		ln->x1 = axis_map(&r->x, xb);
		ln->y1 = axis_map(&r->y, b * xb);
		ln->visible = xa < xb && clip_segment(r, &ln->x0, &ln->y0, &ln->x1, &ln->y1);
	}
	for (size_t i = 0; i < c->npeaks; i++) {
		struct roof_line *ln = &lines[c->nbandwidths + i];
		double p = c->peaks[i].value, xa = fmax(p / bw_top, r->x.lo), xb = r->x.hi;
		ln->x0 = axis_map(&r->x, xa);
		ln->y0 = ln->y1 = axis_map(&r->y, p);
		ln->x1 = axis_map(&r->x, xb);
		ln->visible = xa < xb && clip_segment(r, &ln->x0, &ln->y0, &ln->x1, &ln->y1);
	}
	cairo_save(cr);
	cairo_rectangle(cr, r->L, r->T, r->R - r->L, r->B - r->T);
	cairo_clip(cr);
	static const double dash[] = {6, 3};
	for (size_t i = 0; i < nl; i++) {
		struct roof_line *ln = &lines[i];
		if (!ln->visible)
			continue;
		bool roof = i < c->nbandwidths ? i == ibw : i - c->nbandwidths == itop;
		cairo_move_to(cr, ln->x0, ln->y0);
		cairo_line_to(cr, ln->x1, ln->y1);
		cairo_set_line_width(cr, roof ? 2.25 : 1.25);
		cairo_set_dash(cr, dash, roof ? 0 : 2, 0);
		cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
		set_rgb(cr, COLOR_CEILING);
		cairo_stroke(cr);
		obstacle_add(r, seg_quad(ln->x0, ln->y0, ln->x1, ln->y1));
	}
	cairo_set_dash(cr, NULL, 0, 0);

	/* Ridge points: where each sloped roof meets the highest peak. */
	double ridge_r = 3.5;
	for (size_t i = 0; i < c->nbandwidths; i++) {
		double xi = top / c->bandwidths[i].value;
		if (xi < r->x.lo || xi > r->x.hi)
			continue;
		double x = axis_map(&r->x, xi), y = axis_map(&r->y, top);
		cairo_new_path(cr);
		cairo_arc(cr, x, y, ridge_r, 0, 2 * PI);
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_fill_preserve(cr);
		set_rgb(cr, COLOR_CEILING);
		cairo_set_line_width(cr, 1.5);
		cairo_stroke(cr);
		obstacle_add(r, box_quad(x - ridge_r, y - ridge_r, x + ridge_r, y + ridge_r));
	}
	/* Measured points. */
	for (size_t i = 0; i < c->npoints; i++) {
		double x = axis_map(&r->x, c->points[i].intensity);
		double y = axis_map(&r->y, c->points[i].performance);
		marker_draw(r, series_marker(i), x, y, 4.5, palette[i % ARRAY_LEN(palette)], true);
		obstacle_add(r, box_quad(x - 5, y - 5, x + 5, y + 5));
	}
	cairo_restore(cr);

	/* Labels: points first, as they must stay next to their marker;
	 * then the ceilings, which can slide along their lines; then the
	 * ridges. */
	for (size_t i = 0; i < c->npoints; i++) {
		const char *s = c->points[i].label;
		if (!s || !*s)
			continue;
		double x = axis_map(&r->x, c->points[i].intensity);
		double y = axis_map(&r->y, c->points[i].performance);
		double w, h, px = 0, py = 0, ax = 0, ay = 0;
		measure(r, r->font_tick, s, &w, &h);
		place_near(r, x, y, 5, w, h, &px, &py, &ax, &ay);
		text_put(r, r->font_tick, s, px, py, ax, ay, 0, 0x1a1a1a);
		obstacle_add(r, text_quad(px, py, ax, ay, 0, w, h, 1));
	}
	/* A ridge's intensity goes next to it where there is room, else
	 * into its roof's label.  Peaks are named first: their names matter
	 * more than the ridges' numbers. */
	bool *ridge_in_label = xcalloc(c->nbandwidths, sizeof *ridge_in_label);
	for (int pass = 0; pass < 3; pass++) {
		if (pass == 1) {
			ridge_labels(r, lines, top, ridge_r, ridge_in_label);
			continue;
		}
		for (size_t i = 0; i < nl; i++) {
			bool slope = i < c->nbandwidths;
			if (lines[i].visible && slope == (pass == 2))
				ceiling_label(r, &lines[i], slope ? &c->bandwidths[i]
								  : &c->peaks[i - c->nbandwidths],
					      slope, slope && ridge_in_label[i] ? top : 0);
		}
	}
	free(ridge_in_label);
	free(lines);
}

/* Output */

static cairo_status_t write_buf(void *closure, const unsigned char *data, unsigned int len)
{
	buf_put(closure, (const char *)data, len);
	return CAIRO_STATUS_SUCCESS;
}

/* cairo numbers an SVG's top group "surfaceN" from a counter shared by
 * the whole process, so the second drawing of a chart would differ from
 * the first.  Renumber such ids in their order of appearance. */
static void svg_renumber(const struct buf *in, struct buf *out)
{
	static const char key[] = "surface";
	long map[64];
	size_t nmap = 0;
	const char *p = buf_data(in), *end = p + in->len;
	while (p < end) {
		const char *hit = strstr(p, key);
		if (!hit) {
			buf_put(out, p, (size_t)(end - p));
			break;
		}
		const char *d = hit + sizeof key - 1;
		bool id = hit > p && (hit[-1] == '"' || hit[-1] == '#');
		if (!id || d >= end || *d < '0' || *d > '9') {
			buf_put(out, p, (size_t)(d - p));
			p = d;
			continue;
		}
		char *e;
		long n = strtol(d, &e, 10);
		size_t k = 0;
		while (k < nmap && map[k] != n)
			k++;
		if (k == nmap && nmap < ARRAY_LEN(map))
			map[nmap++] = n;
		buf_put(out, p, (size_t)(d - p));
		buf_printf(out, "%zu", k + 1);
		p = e;
	}
}

/* pango, cairo and fontconfig keep the fonts they loaded until exit.
 * Releasing them at exit raced pango's own threads (a cairo assertion
 * now and then), so they are left to the exit; the tests' leak checker
 * is told about those caches in tests/lsan.supp. */

static bool setup_fonts(struct render *r);

static bool setup(struct render *r, enum chart_format f, struct buf *file)
{
	double w = r->w, h = r->h;
	r->scale = f == CHART_PNG ? 2 : 1;
	switch (f) {
	case CHART_SVG:
		r->surface = cairo_svg_surface_create_for_stream(write_buf, file, w, h);
		/* cairo 1.16 writes "pt" by default, which browsers draw a
		 * third larger than the CSS pixels meant. */
		cairo_svg_surface_set_document_unit(r->surface, CAIRO_SVG_UNIT_PX);
		break;
	case CHART_PDF:
		r->surface = cairo_pdf_surface_create_for_stream(write_buf, file, w, h);
		/* No creation date: the same chart gives the same bytes. */
		cairo_pdf_surface_set_metadata(r->surface, CAIRO_PDF_METADATA_CREATE_DATE, "");
		break;
	case CHART_PNG:
		r->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, r->w * 2, r->h * 2);
		break;
	}
	r->cr = cairo_create(r->surface);
	if (cairo_status(r->cr) != CAIRO_STATUS_SUCCESS)
		return false;
	cairo_scale(r->cr, r->scale, r->scale);
	return setup_fonts(r);
}

/* The white ground and the fonts, on r->cr as it is transformed. */
static bool setup_fonts(struct render *r)
{
	cairo_set_source_rgb(r->cr, 1, 1, 1);
	cairo_paint(r->cr);

	/* Unhinted metrics: text measures the same at 1x and 2x and on
	 * every machine; fixed resolution, whatever fontconfig says. */
	r->pango = pango_cairo_create_context(r->cr);
	cairo_font_options_t *fo = cairo_font_options_create();
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	pango_cairo_context_set_font_options(r->pango, fo);
	cairo_font_options_destroy(fo);
	pango_cairo_context_set_resolution(r->pango, 96);
	pango_context_set_round_glyph_positions(r->pango, FALSE);
	r->font_tick = pango_font_description_from_string("DejaVu Sans 9");
	r->font_small = pango_font_description_from_string("DejaVu Sans 8");
	r->font_text = pango_font_description_from_string("DejaVu Sans 10");
	r->font_title = pango_font_description_from_string("DejaVu Sans Bold 11");
	return true;
}

static void teardown(struct render *r)
{
	if (r->font_tick)
		pango_font_description_free(r->font_tick);
	if (r->font_small)
		pango_font_description_free(r->font_small);
	if (r->font_text)
		pango_font_description_free(r->font_text);
	if (r->font_title)
		pango_font_description_free(r->font_title);
	if (r->pango)
		g_object_unref(r->pango);
	if (r->cr)
		cairo_destroy(r->cr);
	if (r->surface)
		cairo_surface_destroy(r->surface);
	if (r->ser) {
		for (size_t i = 0; i < r->c->nseries; i++)
			free(r->ser[i].p);
		free(r->ser);
	}
	free(r->markers);
	free(r->obst);
	chart_ticks_free(&r->x.t);
	chart_ticks_free(&r->y.t);
}

static void draw(struct render *r)
{
	const struct chart *c = r->c;
	switch (c->type) {
	case CHART_LINE:
	case CHART_SCATTER:
		draw_grid(r, true);
		draw_xy(r);
		break;
	case CHART_BAR:
		draw_grid(r, false);
		draw_bars(r);
		break;
	case CHART_ROOFLINE:
		draw_grid(r, true);
		draw_roofline(r);
		break;
	}
	draw_axes(r);
	draw_titles(r);
	if (r->legend) {
		if (r->legend_outside) {
			r->lg_x = r->R + 12;
			r->lg_y = r->T;
		}
		legend_draw(r);
	}
}

/* Lays out and maps the data; again with the legend outside when it
 * fits in no corner. */
static void arrange(struct render *r)
{
	const struct chart *c = r->c;
	if (c->type == CHART_ROOFLINE) {
		layout(r);
		return;
	}
	if (c->type == CHART_BAR) {
		bar_values_plan(r);
		if (r->bar_values) {
			/* Room above the tallest bar for its value. */
			layout(r);
			double label_h = text_height(r, r->font_small) + 4;
			double units = (r->y.hi - r->y.lo) / (r->y.p0 - r->y.p1);
			if (r->dy_hi > 0 && axis_map(&r->y, r->dy_hi) - label_h < r->T)
				r->bar_value_room = label_h * units;
		}
	}
	legend_measure(r);
	for (int pass = 0; pass < 3; pass++) {
		layout(r);
		/* Outside, the legend must leave the plot some width and fit
		 * the chart's height; else there is no room for one. */
		if (r->legend_outside &&
		    (r->R - r->L < 120 || r->T + r->lg_h > r->h - 4)) {
			r->legend = r->legend_outside = false;
			continue;
		}
		if (c->type != CHART_BAR)
			for (size_t i = 0; i < c->nseries; i++)
				project(r, i);
		if (!r->legend || r->legend_outside || legend_place(r))
			break;
		r->legend_outside = true;
	}
}

/* Checks c and plans what does not depend on the surface: false, with
 * *err, when it cannot be drawn. */
static bool prepare(struct render *r, const struct chart *c, char **err)
{
	r->w = c->width ? c->width : DEFAULT_WIDTH;
	r->h = c->height ? c->height : DEFAULT_HEIGHT;
	if (r->w < MIN_SIZE || r->h < MIN_SIZE || r->w > MAX_SIZE || r->h > MAX_SIZE)
		return fail(err, xasprintf("chart width and height must be between %d and %d "
					   "pixels (got %dx%d)",
					   MIN_SIZE, MAX_SIZE, r->w, r->h));
	if (!check_limits(c, err))
		return false;
	if (c->type == CHART_ROOFLINE ? !check_roofline(c, err) : !check_series(r, err))
		return false;
	if (c->type == CHART_ROOFLINE)
		roofline_ranges(r);

	if (c->type != CHART_ROOFLINE) {
		r->ser = xcalloc(c->nseries, sizeof *r->ser);
		r->markers = xcalloc(c->nseries, sizeof *r->markers);
		/* Markers on a line while its points stay apart; always on a
		 * scatter, smaller when there are thousands. */
		size_t most = 0;
		for (size_t i = 0; i < c->nseries; i++)
			most = c->series[i].n > most ? c->series[i].n : most;
		r->mark_r = 0;
		for (size_t i = 0; i < c->nseries; i++) {
			size_t n = c->series[i].n;
			r->markers[i] = c->type == CHART_SCATTER ||
				       (c->type == CHART_LINE && most <= 60 &&
					(double)r->w / (double)(n ? n : 1) >= 10);
		}
		if (c->type == CHART_SCATTER)
			r->mark_r = most > 2000 ? 2 : 3.5;
		else if (c->type == CHART_LINE && r->markers[0])
			r->mark_r = 3.5;
	}

	return true;
}

static bool render_unlocked(const struct chart *c, enum chart_format f, struct buf *out,
			    char **err)
{
	struct render r = {.c = c};
	struct buf file = BUF_INIT;
	bool ok = false;
	if (err)
		*err = NULL;
	if (!prepare(&r, c, err)) {
		teardown(&r);
		return false;
	}
	if (!setup(&r, f, &file)) {
		fail(err, xasprintf("cairo: %s", cairo_status_to_string(cairo_status(r.cr))));
		goto out;
	}
	arrange(&r);
	draw(&r);

	cairo_status_t st = cairo_status(r.cr);
	if (st == CAIRO_STATUS_SUCCESS && f == CHART_PNG)
		st = cairo_surface_write_to_png_stream(r.surface, write_buf, &file);
	cairo_surface_finish(r.surface);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(r.surface);
	if (st != CAIRO_STATUS_SUCCESS) {
		fail(err, xasprintf("cairo: %s", cairo_status_to_string(st)));
		goto out;
	}
	if (f == CHART_SVG)
		svg_renumber(&file, out);
	else
		buf_put(out, buf_data(&file), file.len);
	ok = true;
out:
	teardown(&r);
	buf_free(&file);
	return ok;
}

static bool draw_unlocked(const struct chart *c, cairo_t *cr, double x, double y, double scale,
			  char **err)
{
	struct render r = {.c = c};
	bool ok = false;
	if (err)
		*err = NULL;
	if (!prepare(&r, c, err)) {
		teardown(&r);
		return false;
	}
	cairo_save(cr);
	cairo_translate(cr, x, y);
	cairo_scale(cr, scale, scale);
	cairo_rectangle(cr, 0, 0, r.w, r.h);
	cairo_clip(cr);
	r.cr = cairo_reference(cr);
	r.scale = 1;
	if (!setup_fonts(&r)) {
		fail(err, xasprintf("cairo: %s", cairo_status_to_string(cairo_status(cr))));
		goto out;
	}
	arrange(&r);
	draw(&r);
	ok = cairo_status(cr) == CAIRO_STATUS_SUCCESS;
	if (!ok)
		fail(err, xasprintf("cairo: %s", cairo_status_to_string(cairo_status(cr))));
out:
	cairo_restore(cr);
	teardown(&r);
	return ok;
}

void chart_clear(struct chart *c)
{
	free(c->title);
	free(c->x_label);
	free(c->y_label);
	for (size_t i = 0; i < c->nseries; i++) {
		free(c->series[i].label);
		free(c->series[i].x);
		free(c->series[i].y);
	}
	free(c->series);
	for (size_t i = 0; i < c->ncategories; i++)
		free(c->categories[i]);
	free(c->categories);
	for (size_t i = 0; i < c->npeaks; i++)
		free(c->peaks[i].name);
	free(c->peaks);
	for (size_t i = 0; i < c->nbandwidths; i++)
		free(c->bandwidths[i].name);
	free(c->bandwidths);
	for (size_t i = 0; i < c->npoints; i++)
		free(c->points[i].label);
	free(c->points);
	memset(c, 0, sizeof *c);
}

/* Fonts: FreeType faces, which cairo shares between threads, and
 * fontconfig are not safe to use from two threads at once (seen as
 * crashes in libfreetype and libcairo under -j), so everything that
 * draws text takes this lock.  Recursive: a PDF page draws charts. */
static pthread_mutex_t font_lock;
static pthread_once_t font_once = PTHREAD_ONCE_INIT;

static void font_lock_init(void)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&font_lock, &a);
	pthread_mutexattr_destroy(&a);
}

void chart_fonts_lock(void)
{
	pthread_once(&font_once, font_lock_init);
	pthread_mutex_lock(&font_lock);
}

void chart_fonts_unlock(void)
{
	pthread_mutex_unlock(&font_lock);
}

bool chart_render(const struct chart *c, enum chart_format f, struct buf *out, char **err)
{
	chart_fonts_lock();
	bool ok = render_unlocked(c, f, out, err);
	chart_fonts_unlock();
	return ok;
}

bool chart_draw(const struct chart *c, cairo_t *cr, double x, double y, double scale,
		char **err)
{
	chart_fonts_lock();
	bool ok = draw_unlocked(c, cr, x, y, scale, err);
	chart_fonts_unlock();
	return ok;
}
