/* chart_int.h: what the parts of a chart's drawing share, private to
 * draw/: the renderer's state (struct render: the chart, its surface
 * and fonts, the plot frame and axes, the series in pixels, the legend)
 * and the functions one part calls in another.  chart.c drives a
 * render: check.c, layout.c (with text.c and ticks.c), draw.c. */
#ifndef LOGDOWN_DRAW_CHART_INT_H
#define LOGDOWN_DRAW_CHART_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cairo.h>
#include <pango/pangocairo.h>

#include "draw/chart.h"

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

/* The colours of a light or a dark chart (0xRRGGBB). */
struct theme {
	unsigned ground, title, text, tick, grid, minor_grid, ceiling;
	unsigned legend_border, legend_text, ridge_text, point_text;
	unsigned palette[8];
};

struct render {
	const struct chart *c;
	const struct theme *th;
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
	bool bar_values, bar_values_off; /* off: they did not fit their bars */
	/* Legend: in a corner of the plot, outside on its right, or (when
	 * that would squeeze a narrow chart) below it, its entries flowing
	 * in rows of lg_w at most. */
	bool legend, legend_outside, legend_below;
	double lg_x, lg_y, lg_w, lg_h, lg_row;
	/* Obstacles for placing roofline labels. */
	struct quad *obst;
	size_t nobst, cobst;
	/* A roofline's labels that fit nowhere beside their mark go into a
	 * key below the plot (legend_below): per point, per line (the
	 * bandwidths, then the peaks); ridge_in: a ridge's intensity is
	 * written in its slope's label.  dry: placing only, on a throwaway
	 * surface; key_changed: a label moved to the key. */
	bool *key_point, *key_line, *ridge_in;
	bool dry, key_changed;
	char *err;
	/* The smallest font drawn, CSS pixels; and, for chart_inspect(),
	 * what is drawn (NULL otherwise), the kind of text being drawn. */
	double text_min;
	struct chart_layout *probe;
	enum chart_text_kind text_kind;
};

/* The x of point i of s: its own, or i + 1 when s has no x values
 * (i >= s->from: the points before are carried). */
static inline double series_x(const struct chart_series *s, size_t i)
{
	return s->x ? s->x[i - s->from] : (double)(i + 1);
}

/* The y of point i of s (i >= s->from). */
static inline double series_y(const struct chart_series *s, size_t i)
{
	return s->y[i - s->from];
}

/* fmin() and fmax() of two numbers that are not NaN, inline (a chart's
 * extents take millions of them): as the x86-64 libm's, minsd and
 * maxsd, the second when the two are equal, -0 and +0 alike.  The
 * extents of a drawing and of its carry (carry.c, check.c) both take
 * them so. */
static inline double extent_lo(double a, double b)
{
	return a < b ? a : b;
}

static inline double extent_hi(double a, double b)
{
	return a > b ? a : b;
}

/* One pixel column's worth of a reduced line: the points in the order
 * they came, keeping only the first, lowest, highest and last. */
struct column {
	long col;
	size_t n;
	struct pt first, last, lo, hi;
	size_t ilo, ihi;
};

/* shared.c: a series' pixel points in a geometry an earlier drawing
 * of the same chart had: copied into out (true), or none (false); and
 * kept for the next drawing (a copy of out's). */
bool shared_proj_get(const struct chart_shared *sh, size_t series, const double geo[CHART_GEO_N],
		     struct pts *out);
void shared_proj_put(struct chart_shared *sh, size_t series, const double geo[CHART_GEO_N],
		     const struct pts *out);

/* carry.c: a projection carried over an append (chart_carry) */
void carry_geometry(const struct render *r, bool reduce, double geo[CHART_GEO_N]);
const struct chart_proj *carry_find(const struct chart_carry *k, const double geo[CHART_GEO_N]);
void carry_record(struct chart_carry *k, const double geo[CHART_GEO_N], const struct pts *out,
		  const struct column *col, const unsigned char *seen, size_t nseen);

/* check.c: whether a chart can be drawn; a refusal is *err */
bool check_size(struct render *r, char **err);
bool check_limits(const struct chart *c, char **err);
bool check_series(struct render *r, char **err);
bool check_roofline(const struct chart *c, char **err);

/* ticks.c: numbers written beside marks */
void format_quantity(char *out, size_t size, double v, const char *unit);
void format_intensity(char *out, size_t size, double v);
void format_value(char *out, size_t size, double v);

/* text.c: setting text, and the outlines that keep labels apart */
PangoLayout *text_new(struct render *r, const PangoFontDescription *f, const char *s,
		      double width, int lines);
void text_size(PangoLayout *l, double *w, double *h);
void text_measure(struct render *r, const PangoFontDescription *f, const char *s, double *w,
		  double *h);
void text_draw(struct render *r, PangoLayout *l, double x, double y, double ax, double ay,
	       double angle, unsigned color);
void text_put(struct render *r, const PangoFontDescription *f, const char *s, double x,
	      double y, double ax, double ay, double angle, unsigned color);
struct quad text_quad(double x, double y, double ax, double ay, double angle, double w,
		      double h, double pad);
struct quad box_quad(double x0, double y0, double x1, double y1);
struct quad seg_quad(double x0, double y0, double x1, double y1);
void obstacle_add(struct render *r, struct quad q);
void probe_segment(struct render *r, double x0, double y0, double x1, double y1);
void probe_box(struct render *r, double x0, double y0, double x1, double y1);
int quad_cost(const struct render *r, const struct quad *q);

/* layout.c: where things go */
double axis_map(const struct axis *a, double v);
PangoLayout *category_layout(struct render *r, size_t i, double slot);
void roofline_ranges(struct render *r);
bool series_labelled(const struct chart *c, size_t i);
void bar_rect(const struct render *r, size_t cat, size_t i, double *x0, double *x1);
double bar_base(const struct render *r);
void layout_arrange(struct render *r);

/* layout.c: the legend below the plot: where entry i goes (its left
 * edge and its row's middle), and its width */
size_t below_count(const struct render *r);
bool below_present(const struct render *r, size_t i);
double legend_entry_width(struct render *r, size_t i);
char *key_text(const struct render *r, size_t i);

/* draw.c: drawing */
extern const struct theme theme_light, theme_dark;
void set_rgb(cairo_t *cr, unsigned c);
double device_round(const struct render *r, double v);
void draw_chart(struct render *r);
void draw_roofline(struct render *r);

#endif
