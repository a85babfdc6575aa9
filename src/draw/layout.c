/* layout.c: where everything on a chart goes: the axes' ranges and
 * ticks, the margins from the measured text (leaving out the title,
 * then the axis labels, of a chart too small for them), category
 * labels, the data mapped to pixels (big series reduced to what the
 * pixel columns show), the room for bar values, and the legend's
 * corner or its place outside.  draw.c then draws what this decided. */
#include "draw/chart.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "chart_int.h"

double axis_map(const struct axis *a, double v)
{
	double t = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo))
			  : (v - a->lo) / (a->hi - a->lo);
	return a->p0 + t * (a->p1 - a->p0);
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
	text_measure(r, f, "0Ay", &w, &h);
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
		text_measure(r, r->font_tick, k->label, &w, &h);
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
		text_measure(r, r->font_tick, a->t.tick[i].label, &w, &h);
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
		text_measure(r, r->font_tick, a->t.tick[i].label, &w, &h);
		return w / 2 - (a->p1 - axis_map(a, a->t.tick[i].value));
	}
	return 0;
}

PangoLayout *category_layout(struct render *r, size_t i, double slot)
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
		text_measure(r, r->font_tick, c->categories[i], &w, &h);
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
void roofline_ranges(struct render *r)
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
		bottom = 8 + (r->x_label ? label_h + 6 : 0) +
			 (r->legend_below ? r->lg_h + 6 : 0);
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

/* Where a projection of series s starts: from point 0, or from the
 * carried projection of this geometry, its pixel points, column and
 * cells put back into out, *k and seen: for a series that grew
 * (s->from; SIZE_MAX when there is none, and carry->missed is set), or
 * for one whose carry is being recorded (from 0) when an earlier
 * drawing recorded this geometry's (then from carry->n). */
static size_t project_start(struct render *r, const struct chart_series *s, bool reduce,
			    struct pts *out, struct column *k, unsigned char *seen, size_t nseen)
{
	if (!s->carry)
		return 0;
	double geo[CHART_GEO_N];
	carry_geometry(r, reduce, geo);
	const struct chart_proj *p = carry_find(s->carry, geo);
	if (!p || p->nseen != (seen ? nseen : 0)) {
		/* A carry being recorded (from 0) has none for this geometry
		 * yet: this drawing maps every point and records it. */
		if (s->from == 0)
			return 0;
		s->carry->missed = true;
		return SIZE_MAX;
	}
	/* From 0, an earlier drawing of these points in this geometry (the
	 * dark page beside the light one) recorded its state at point
	 * carry->n: go on from it, as a drawing of the grown series does. */
	size_t from = s->from ? s->from : s->carry->n;
	for (size_t j = 0; j < p->npts; j++) {
		/* the points were rounded when first pushed: pushed again as
		 * they are, since round(round(v * 10) / 10 * 10) / 10 is v */
		if (out->n == out->cap) {
			out->cap = out->cap ? out->cap * 2 : 64;
			out->p = xrealloc(out->p, out->cap * sizeof *out->p);
		}
		out->p[out->n++] = (struct pt){p->pts[2 * j], p->pts[2 * j + 1]};
	}
	if (seen)
		memcpy(seen, p->seen, nseen);
	k->col = p->col;
	k->n = p->cn;
	k->ilo = p->ilo;
	k->ihi = p->ihi;
	k->first = (struct pt){p->first[0], p->first[1]};
	k->last = (struct pt){p->last[0], p->last[1]};
	k->lo = (struct pt){p->lo[0], p->lo[1]};
	k->hi = (struct pt){p->hi[0], p->hi[1]};
	return from;
}

/* Records, for a series whose first carry->n points are to be carried,
 * what project() has made of them when it reaches point j. */
static void project_note(struct render *r, const struct chart_series *s, size_t j, bool reduce,
			 const struct pts *out, const struct column *k, const unsigned char *seen,
			 size_t nseen)
{
	if (!s->carry || s->from != 0 || j != s->carry->n)
		return;
	double geo[CHART_GEO_N];
	carry_geometry(r, reduce, geo);
	carry_record(s->carry, geo, out, k, seen, nseen);
}

/* Whether series s is reduced (project()): more than twice as many
 * points as the plot has device pixel columns. */
static bool project_reduces(const struct render *r, const struct chart_series *s)
{
	double cols = (r->R - r->L) * r->scale;
	return (double)s->n > 2 * cols;
}

/* Maps series i to device pixels.  A line with more than twice as many
 * points as the plot has pixel columns keeps per column its first,
 * minimum, maximum and last point; a scatter as big keeps one point per
 * marker-sized cell. */
static void project_points(struct render *r, size_t i)
{
	const struct chart_series *s = &r->c->series[i];
	struct pts *out = &r->ser[i];
	out->n = 0;
	double sc = r->scale;
	bool reduce = project_reduces(r, s);
	out->reduced = reduce;
	struct column k = {.col = LONG_MIN};
	if (r->c->type == CHART_SCATTER) {
		double cell = fmax(1, r->mark_r) * sc;
		long gw = (long)((r->R - r->L) * sc / cell) + 3;
		long gh = (long)((r->B - r->T) * sc / cell) + 3;
		size_t nseen = reduce ? (size_t)(gw * gh) : 0;
		unsigned char *seen = reduce ? xcalloc(nseen, 1) : NULL;
		size_t j = project_start(r, s, reduce, out, &k, seen, nseen);
		for (; j < s->n; j++) {
			project_note(r, s, j, reduce, out, NULL, seen, nseen);
			double x = series_x(s, j), y = series_y(s, j);
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
		if (j == s->n)
			project_note(r, s, j, reduce, out, NULL, seen, nseen);
		free(seen);
		return;
	}
	size_t j = project_start(r, s, reduce, out, &k, NULL, 0);
	for (; j < s->n; j++) {
		project_note(r, s, j, reduce, out, &k, NULL, 0);
		double x = series_x(s, j), y = series_y(s, j);
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
	if (j == s->n)
		project_note(r, s, j, reduce, out, &k, NULL, 0);
	if (reduce && j != SIZE_MAX)
		column_flush(out, &k, 1 / sc);
}

/* project_points(), or its pixel points as another drawing of the same
 * chart in the same geometry made them (chart_shared): the same points,
 * copied.  A series with a carry keeps its projections there. */
static void project(struct render *r, size_t i)
{
	const struct chart_series *s = &r->c->series[i];
	struct chart_shared *sh = s->carry ? NULL : r->c->shared;
	if (!sh) {
		project_points(r, i);
		return;
	}
	double geo[CHART_GEO_N];
	carry_geometry(r, project_reduces(r, s), geo);
	if (shared_proj_get(sh, i, geo, &r->ser[i]))
		return;
	project_points(r, i);
	shared_proj_put(sh, i, geo, &r->ser[i]);
}

/* Legend */

bool series_labelled(const struct chart *c, size_t i)
{
	return c->series[i].label && c->series[i].label[0];
}

/* The entries below the plot: a series each, or a roofline's points
 * and lines (those whose labels went into the key). */
size_t below_count(const struct render *r)
{
	const struct chart *c = r->c;
	return c->type == CHART_ROOFLINE ? c->npoints + c->nbandwidths + c->npeaks : c->nseries;
}

bool below_present(const struct render *r, size_t i)
{
	const struct chart *c = r->c;
	if (c->type != CHART_ROOFLINE)
		return series_labelled(c, i);
	return i < c->npoints ? r->key_point[i] : r->key_line[i - c->npoints];
}

/* A roofline key entry's text: a point's label, or a line's name and
 * value (and ridge).  Caller frees. */
char *key_text(const struct render *r, size_t i)
{
	const struct chart *c = r->c;
	if (i < c->npoints)
		return xstrdup(c->points[i].label ? c->points[i].label : "");
	i -= c->npoints;
	bool slope = i < c->nbandwidths;
	const struct chart_mark *mk = slope ? &c->bandwidths[i] : &c->peaks[i - c->nbandwidths];
	struct buf text = BUF_INIT;
	char q[64];
	format_quantity(q, sizeof q, mk->value, slope ? "B/s" : "FLOP/s");
	if (mk->name && *mk->name)
		buf_printf(&text, "%s ", mk->name);
	buf_puts(&text, q);
	if (slope && r->ridge_in[i]) {
		double top = 0;
		for (size_t k = 0; k < c->npeaks; k++)
			top = fmax(top, c->peaks[k].value);
		format_intensity(q, sizeof q, top / mk->value);
		buf_printf(&text, ", ridge at %s", q);
	}
	return buf_detach(&text);
}

/* The width an entry below the plot takes: its key (a line, a marker
 * or a box), its text (cut to fit) and the gap to the next one. */
double legend_entry_width(struct render *r, size_t i)
{
	const struct chart *c = r->c;
	double w, h;
	bool roof = c->type == CHART_ROOFLINE;
	char *text = roof ? key_text(r, i) : NULL;
	text_measure(r, r->font_tick, roof ? text : c->series[i].label, &w, &h);
	free(text);
	bool line = c->type == CHART_LINE || (roof && i >= c->npoints);
	double key = line ? 26 : 14;
	return key + 6 + fmin(w, roof ? r->w - 16 - key - 6 : 220) + 16;
}

/* The rows of the legend below, the entries flowing left to right. */
static size_t legend_rows(struct render *r)
{
	double avail = r->w - 16, x = 0;
	size_t rows = 0;
	for (size_t i = 0; i < below_count(r); i++) {
		if (!below_present(r, i))
			continue;
		double w = legend_entry_width(r, i);
		if (rows == 0 || x + w - 16 > avail) {
			rows++;
			x = 0;
		}
		x += w;
	}
	return rows;
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
		text_measure(r, r->font_tick, c->series[i].label, &w, &th);
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
	if (r->legend_below)
		r->lg_h = ceil((double)legend_rows(r) * r->lg_row);
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
void bar_rect(const struct render *r, size_t cat, size_t i, double *x0, double *x1)
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

double bar_base(const struct render *r)
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

/* Bars */

static void bar_values_plan(struct render *r)
{
	/* Values go above the bars when each fits its bar's width (here
	 * guessed from the chart's; bar_values_fit() checks the plot's). */
	const struct chart *c = r->c;
	r->bar_values = false;
	r->bar_value_room = 0;
	if (c->y_log || c->ncategories * c->nseries > 40 || r->bar_values_off)
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
			text_measure(r, r->font_small, s, &w, &h);
			if (w > bw)
				return;
		}
	r->bar_values = true;
}

/* Does every bar's value fit the width of its bar as laid out?  Wider,
 * it would reach over the next bar. */
static bool bar_values_fit(struct render *r)
{
	const struct chart *c = r->c;
	for (size_t i = 0; i < c->nseries; i++)
		for (size_t j = 0; j < c->ncategories; j++) {
			char s[64];
			double w, h, x0, x1;
			if (!isfinite(c->series[i].y[j]))
				continue;
			format_value(s, sizeof s, c->series[i].y[j]);
			text_measure(r, r->font_small, s, &w, &h);
			bar_rect(r, j, i, &x0, &x1);
			if (w > x1 - x0)
				return false;
		}
	return true;
}

/* A roofline: laid out, its labels placed on a throwaway surface; the
 * ones that fit nowhere go into the key below the plot, which takes
 * room from it, so again until every label left has its place. */
static void roofline_arrange(struct render *r)
{
	for (int pass = 0; pass < 6; pass++) {
		layout(r);
		cairo_surface_t *s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
		cairo_t *cr = cairo_create(s), *keep = r->cr;
		struct chart_layout *probe = r->probe;
		r->cr = cr;
		r->probe = NULL;
		r->dry = true;
		r->key_changed = false;
		draw_roofline(r);
		r->dry = false;
		r->cr = keep;
		r->probe = probe;
		cairo_destroy(cr);
		cairo_surface_destroy(s);
		if (!r->key_changed)
			break;
		r->legend = r->legend_below = true;
		r->lg_row = fmax(text_height(r, r->font_tick), 14) + 3;
		r->lg_h = ceil((double)legend_rows(r) * r->lg_row);
	}
}

/* Lays out and maps the data; again with the legend outside when it
 * fits in no corner: on the right, or below the plot when the right
 * would take more than a quarter of the chart's width or leave the
 * plot narrower than 320 pixels (a chart for a phone). */
void layout_arrange(struct render *r)
{
	const struct chart *c = r->c;
	if (c->type == CHART_ROOFLINE) {
		roofline_arrange(r);
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
		if (!r->legend || r->legend_outside || r->legend_below || legend_place(r))
			break;
		if (r->lg_w + 12 > r->w / 4.0 || r->R - r->L - r->lg_w - 12 < 320) {
			r->legend_below = true;
			legend_measure(r);
		} else {
			r->legend_outside = true;
		}
	}
	if (c->type == CHART_BAR && r->bar_values && !bar_values_fit(r)) {
		/* again without the values */
		r->bar_values_off = true;
		r->legend_outside = r->legend_below = false;
		layout_arrange(r);
	}
}
