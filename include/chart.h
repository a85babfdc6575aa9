/* chart.h: charts drawn with cairo, text through pango (SPEC section 6).
 *
 * A chart is described by plain data here; the {chart} directive fills
 * it from a report's runs.  chart_render() draws it as SVG (for the
 * page), PNG (twice the size, for crisp screens) or PDF. */
#ifndef LOGDOWN_CHART_H
#define LOGDOWN_CHART_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

enum chart_type { CHART_LINE, CHART_BAR, CHART_SCATTER, CHART_ROOFLINE };
enum chart_format { CHART_SVG, CHART_PNG, CHART_PDF };

/* One line, one set of bars or one set of points.  For CHART_BAR, x is
 * unused: y[i] is the bar of category i. */
struct chart_series {
	char *label;  /* legend text */
	double *x;
	double *y;
	size_t n;
};

struct chart_mark {
	char *name;
	double value;
};

struct chart_point {
	char *label;
	double intensity;   /* FLOP/byte */
	double performance; /* FLOP/s */
};

struct chart {
	enum chart_type type;
	char *title;   /* may be NULL */
	char *x_label; /* may be NULL */
	char *y_label;
	bool x_log, y_log;
	bool has_x_min, has_x_max, has_y_min, has_y_max;
	double x_min, x_max, y_min, y_max;
	int width, height; /* CSS pixels; 720 x 405 by default */
	struct chart_series *series;
	size_t nseries;
	/* CHART_BAR: the category names along x, one group of bars each */
	char **categories;
	size_t ncategories;
	/* CHART_ROOFLINE: ceilings and measured points (log-log axes) */
	struct chart_mark *peaks;      /* FLOP/s, by name */
	size_t npeaks;
	struct chart_mark *bandwidths; /* byte/s, by name */
	size_t nbandwidths;
	struct chart_point *points;
	size_t npoints;
};

/* Draws c in format f, appending the file's bytes to out.  The same
 * chart gives the same bytes every time.  A line or scatter series with
 * more points than the plot has pixel columns is reduced to each
 * column's first, minimum, maximum and last point, so a million points
 * give a small file that looks the same.  Returns false with a message
 * in *err (caller frees) when the chart cannot be drawn: no data, x and
 * y of different lengths, a value <= 0 on a log axis, a cairo error. */
bool chart_render(const struct chart *c, enum chart_format f, struct buf *out, char **err);

/* Frees everything c owns (labels, arrays), not c itself. */
void chart_clear(struct chart *c);

#endif
