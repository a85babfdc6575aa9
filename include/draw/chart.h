/* chart.h: charts drawn with cairo, text through pango (SPEC section 6).
 *
 * A chart is described by plain data here; the {chart} directive fills
 * it from a report's runs.  chart_render() draws it as SVG (for the
 * page), PNG (twice the size, for crisp screens) or PDF. */
#ifndef LOGDOWN_CHART_H
#define LOGDOWN_CHART_H

#include <stdbool.h>
#include <stddef.h>

#include <cairo.h>

struct buf;

enum chart_type { CHART_LINE, CHART_BAR, CHART_SCATTER, CHART_ROOFLINE };
enum chart_format { CHART_SVG, CHART_PNG, CHART_PDF };

/* One line, one set of bars or one set of points.  For CHART_BAR, x is
 * unused: y[i] is the bar of category i, and n must equal the number of
 * categories.  A NaN or infinite value is a gap: a line breaks there, a
 * point or bar is left out. */
struct chart_carry;

struct chart_series {
	char *label;  /* legend text; NULL or "" gives no legend entry */
	double *x;    /* may be NULL: the points are then numbered 1, 2, ... */
	double *y;
	size_t n;     /* number of y values */
	size_t nx;    /* number of x values when known to differ; 0 means n */
	/* A line or scatter series that grew (an append): with carry set
	 * and from > 0, x[0] and y[0] are point `from`, and what a drawing
	 * needs of the points before it is carry's (from == carry->n; x is
	 * then never NULL, nx is 0).  With carry set and from 0, x and y
	 * hold every point, carry was begun over them (chart_carry_begin():
	 * its extents are theirs), and each drawing records into carry what
	 * it computed of the first carry->n of them; a drawing in a
	 * geometry an earlier one recorded goes on from that record. */
	struct chart_carry *carry;
	size_t from;
};

/* What the drawings of a line or scatter series computed of its first
 * n points, kept by a caller between builds (resolve/chartcarry.c) so
 * that the series, grown, is drawn from its new points only, to the
 * same bytes.  A projection is one drawing's mapping of those points
 * to pixels in one geometry (the axes, the plot frame, the scale, the
 * marker size, whether the series is reduced, all compared bit for
 * bit): the pixel points it gave, the reduced line's pixel column not
 * yet written out, or the scatter's cells taken.  A drawing that
 * resumes a series finds its geometry's projection and goes on from
 * it; when there is none it fails and sets `missed` (the caller draws
 * again from every point). */
enum { CHART_GEO_N = 18 };

struct chart_proj {
	double geo[CHART_GEO_N];
	double *pts;      /* x, y pairs, pixels */
	size_t npts;
	/* a reduced line's column in progress (n 0: none) */
	long col;
	size_t cn, ilo, ihi;
	double first[2], last[2], lo[2], hi[2];
	/* a reduced scatter's cells, gw * gh bytes (else NULL, 0) */
	unsigned char *seen;
	size_t nseen;
};

struct chart_carry {
	size_t n;                  /* points covered */
	bool any;                  /* a finite point among them */
	double x_lo, x_hi, y_lo, y_hi; /* their finite points' extents */
	struct chart_proj *proj;
	size_t nproj;
	bool missed;
};

/* Sets k to cover the first n points of s (x and y holding every point):
 * their extents, no projection yet. */
void chart_carry_begin(struct chart_carry *k, const struct chart_series *s, size_t n);
/* Frees what k owns, not k. */
void chart_carry_clear(struct chart_carry *k);

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
	char *x_label; /* may be NULL; a roofline's default to "Arithmetic */
	char *y_label; /* intensity (FLOP/byte)" and "Performance (FLOP/s)" */
	bool x_log, y_log;
	bool has_x_min, has_x_max, has_y_min, has_y_max;
	double x_min, x_max, y_min, y_max;
	int width, height; /* CSS pixels; 0 means 720 x 405; at most 8000 */
	/* Drawn for a dark page: a dark ground, light text and grid, the
	 * palette's black as a light grey (the other colours stay). */
	bool dark;
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
	/* May be NULL.  Where a caller draws the same series more than
	 * once (another size, the dark theme, PNG, PDF), what the first
	 * drawing found of their points, given back to the next so that it
	 * reads them only where its own geometry needs (chart_shared
	 * below). */
	struct chart_shared *shared;
};

/* What the drawings of one chart's line, scatter or bar series share,
 * kept by the caller between them (zeroed before the first, cleared
 * with chart_shared_clear() after the last):
 * - the range of their points leaving out gaps, found by the first
 *   drawing whose points passed the checks (known), read by later ones;
 * - each series' points mapped to pixels, by geometry (the axes, the
 *   plot frame, the scale, the marker size, bit for bit, as a carry's
 *   projections are kept): a drawing whose geometry an earlier one had
 *   (the dark theme at the same size) copies its pixel points.
 * Both depend only on the series and on the chart's type, x_log and
 * y_log, which the drawings sharing one must keep.  A series with a
 * carry keeps its own projections (chart_carry) and none here. */
struct chart_shared {
	bool known;
	bool any; /* some point is not a gap */
	double x_lo, x_hi, y_lo, y_hi;
	struct chart_shared_proj *proj;
	size_t nproj;
};

/* Frees what sh holds (not sh) and zeroes it. */
void chart_shared_clear(struct chart_shared *sh);

/* Draws c in format f, appending the file's bytes to out: SVG and PDF at
 * width x height CSS pixels (points for PDF), PNG at twice that, text in
 * DejaVu Sans.  The same chart gives the same bytes every time, also
 * within one process (cairo's process-wide SVG ids are renumbered; PDFs
 * carry no creation date).
 *
 * Ticks come from chart_ticks(), thinned until their labels do not
 * touch.  The legend (the series' labels) goes in the first corner of
 * the plot that covers no data, else outside on the right; a chart too
 * small for its texts leaves out its title, then its axis labels, then
 * its legend.  Explicit limits (has_x_min, ...) replace the automatic
 * ones, which are widened to whole ticks.
 *
 * A line or scatter series with more than twice as many points as the
 * plot has pixel columns is reduced first: a line keeps each column's
 * first, lowest, highest and last point (so the first and last point of
 * the series stay), a scatter one point per marker-sized cell.  A
 * million-point line so gives a ~90 KB SVG in ~20 ms.
 *
 * The SVG's root carries data-text-min: the font size of its smallest
 * text in CSS pixels, for a page to check what a reader sees once the
 * chart is scaled to fit.
 *
 * Returns false, appending nothing, with a message for the user in *err
 * (caller frees; err may be NULL) when the chart cannot be drawn:
 *   "the chart has no series"
 *   "the chart has no data: every series is empty"
 *   "series 'loss' has 10 x values but 9 y values"
 *   "series 'bs=512': y value -1.5 (point 3) cannot be shown on a log
 *    axis; values must be > 0"  (unlabelled series are "series 2")
 *   "a bar chart needs categories (the names along x)"
 *   "series 'Metis' has 3 values for 4 categories"
 *   "a roofline needs at least one peak (FLOP/s)"
 *   "a roofline needs at least one bandwidth (byte/s)"
 *   "roofline peak 'FP32' must be > 0 FLOP/s (got 0)", likewise for a
 *    bandwidth and a point
 *   "x_min (5) must be less than x_max (3)", "y_min (0) must be > 0 on a
 *    log axis"
 *   "chart width and height must be between 120 and 8000 pixels (got
 *    50x405)"
 *   "cairo: <cairo's status>"
 * Takes font_lock() (draw/font.h) while it draws. */
bool chart_render(const struct chart *c, enum chart_format f, struct buf *out, char **err);

/* Draws c as chart_render() does, as vectors, onto cr (a PDF page):
 * its top left corner at x, y, each CSS pixel `scale` units, on a
 * white ground; cr's state is as it was afterwards.  False, with the
 * same messages as chart_render() in *err (caller frees), when it
 * cannot be drawn. */
bool chart_draw(const struct chart *c, cairo_t *cr, double x, double y, double scale,
		char **err);

/* What a drawing of a chart holds, for tests: each text's box and size,
 * each mark's edges (line segments of series, bars, markers and
 * ceilings), all in CSS pixels. */
enum chart_text_kind {
	CHART_TEXT_TITLE,
	CHART_TEXT_AXIS,   /* an axis title */
	CHART_TEXT_TICK,   /* a tick or category label */
	CHART_TEXT_LEGEND,
	CHART_TEXT_MARK,   /* beside the data: a bar's value, a ceiling, a ridge, a point */
};

struct chart_text {
	enum chart_text_kind kind;
	char text[96];      /* the start of it */
	double size;        /* font size, CSS pixels */
	double x[4], y[4];  /* the corners of its box, turned with it */
};

struct chart_segment {
	double x0, y0, x1, y1;
};

struct chart_layout {
	int width, height;
	struct chart_text *texts;
	size_t ntexts;
	struct chart_segment *segs;
	size_t nsegs;
	bool legend_below; /* the legend sits under the plot */
};

/* Lays out and draws c (as SVG, thrown away) recording its texts and
 * marks into *out (caller frees with chart_layout_free()).  False with
 * chart_render()'s messages in *err when it cannot be drawn. */
bool chart_inspect(const struct chart *c, struct chart_layout *out, char **err);
void chart_layout_free(struct chart_layout *l);

/* Frees everything c owns (labels, arrays), not c itself. */
void chart_clear(struct chart *c);

/* One tick of an axis.  label is "" for a minor tick, and for a major
 * tick left unlabelled so that labels do not crowd. */
struct chart_tick {
	double value;
	char label[32]; /* UTF-8; negative numbers use the minus sign U+2212 */
	bool major;
};

struct chart_ticks {
	double lo, hi;            /* the axis range, widened when asked */
	struct chart_tick *tick;  /* ascending; free with chart_ticks_free() */
	size_t n;
};

/* Chooses the ticks of an axis showing lo..hi (lo < hi, both > 0 when
 * log), at most max_labels of them labelled (at least 2 are asked for).
 * widen extends lo and hi outward to the nearest tick (t->lo, t->hi).
 *
 * Linear: steps of 1, 2, 2.5 or 5 times a power of ten, all major.
 * Labels share one unit per axis: with a largest |tick| of 10,000 or
 * more an SI suffix (k, M, G, T, P, E), so 0..2924 gives 0, 500, ...,
 * 3000 but 0..2.5e9 gives 0, 0.5G, 1.0G, ..., 2.5G; with every |tick|
 * below 0.001, a small SI suffix (0..3e-5 gives 0, 5µ, ..., 30µ; n, p,
 * f further down); beyond those, mantissa and exponent (2e-18);
 * otherwise plain decimals, as many as the step needs, the same number
 * on every label of the axis but 0 (0, 0.2, ..., 1.0; 0, 0.5G, 1.0G).
 * Log: major ticks at the decades, labelled 0.001, 0.01, 0.1, 1, 10,
 * 100, 1k, 10k, 1M, ... (10⁻⁴ and 10²¹ beyond that); when they would be
 * more than max_labels only every 2nd, 3rd, ... decade is labelled,
 * counting from 1.  widen goes to whole decades when the range spans
 * 1.5 decades or more, else to the nearest 1..9 x 10^k (3..7.5 gives
 * 3..8).
 * Minor ticks at 2..9 times each decade when the axis spans at most 12
 * decades; when fewer than two decades are labelled, the minor ticks at 2
 * and 5 (or all of them) get labels too.
 * Returns false when lo..hi is not a usable range; t is then empty. */
bool chart_ticks(double lo, double hi, bool log, bool widen, int max_labels,
		 struct chart_ticks *t);
void chart_ticks_free(struct chart_ticks *t);

#endif
