/* check.c: what a chart must hold before it is drawn: limits that make
 * sense, series as long as their x values or categories, values a log
 * axis can show, a roofline's peaks and bandwidths; and the data range
 * the layout starts from.  Each refusal is a message for the user. */
#include "draw/chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "chart_int.h"

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

/* The chart's size in CSS pixels, the default when it gives none. */
bool check_size(struct render *r, char **err)
{
	const struct chart *c = r->c;
	r->w = c->width ? c->width : DEFAULT_WIDTH;
	r->h = c->height ? c->height : DEFAULT_HEIGHT;
	if (r->w < MIN_SIZE || r->h < MIN_SIZE || r->w > MAX_SIZE || r->h > MAX_SIZE)
		return fail(err, xasprintf("chart width and height must be between %d and %d "
					   "pixels (got %dx%d)",
					   MIN_SIZE, MAX_SIZE, r->w, r->h));
	return true;
}

bool check_limits(const struct chart *c, char **err)
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


/* Checks the series of a line, scatter or bar chart and finds the data
 * range, leaving out values that are gaps. */
bool check_series(struct render *r, char **err)
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
	/* The points of series another drawing of them checked already
	 * are not read again: their range is that drawing's. */
	const struct chart_shared *known = c->shared && c->shared->known ? c->shared : NULL;
	if (known) {
		any = known->any;
		r->dx_lo = known->x_lo;
		r->dx_hi = known->x_hi;
		r->dy_lo = known->y_lo;
		r->dy_hi = known->y_hi;
	}
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
		if (known)
			continue;
		size_t j0 = 0;
		/* The first points were checked when their drawing was
		 * carried: their extents are the carry's.  A carry begun over
		 * this very series' first points (a first build's, from 0)
		 * took their extents as this loop does; on a log axis they
		 * are read here all the same, for the check. */
		bool begun = s->carry && !s->from && !c->x_log && !c->y_log;
		if (!bar && s->carry && (s->from || begun)) {
			j0 = s->from ? s->from : s->carry->n < s->n ? s->carry->n : s->n;
			if (s->carry->any) {
				any = true;
				r->dx_lo = extent_lo(r->dx_lo, s->carry->x_lo);
				r->dx_hi = extent_hi(r->dx_hi, s->carry->x_hi);
				r->dy_lo = extent_lo(r->dy_lo, s->carry->y_lo);
				r->dy_hi = extent_hi(r->dy_hi, s->carry->y_hi);
			}
		}
		for (size_t j = j0; j < s->n; j++) {
			double x = bar ? 0 : series_x(s, j), y = series_y(s, j);
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
			r->dx_lo = extent_lo(r->dx_lo, x);
			r->dx_hi = extent_hi(r->dx_hi, x);
			r->dy_lo = extent_lo(r->dy_lo, y);
			r->dy_hi = extent_hi(r->dy_hi, y);
		}
	}
	if (c->shared && !known) {
		struct chart_shared *sh = c->shared;
		sh->known = true;
		sh->any = any;
		sh->x_lo = r->dx_lo;
		sh->x_hi = r->dx_hi;
		sh->y_lo = r->dy_lo;
		sh->y_hi = r->dy_hi;
	}
	if (!any)
		return fail(err, xstrdup("the chart has no data: every series is empty"));
	/* a span a double cannot hold (-1e308 to 1e308) has no scale; a
	 * bar chart's bars start at 0 */
	double ylo = bar ? fmin(r->dy_lo, 0) : r->dy_lo, yhi = bar ? fmax(r->dy_hi, 0) : r->dy_hi;
	double xlo = c->has_x_min ? c->x_min : r->dx_lo, xhi = c->has_x_max ? c->x_max : r->dx_hi;
	if (c->has_y_min)
		ylo = c->y_min;
	if (c->has_y_max)
		yhi = c->y_max;
	const char *wide = !bar && !isfinite(xhi - xlo) ? "x" : !isfinite(yhi - ylo) ? "y" : NULL;
	if (wide) {
		double lo = *wide == 'x' ? xlo : ylo, hi = *wide == 'x' ? xhi : yhi;
		return fail(err, xasprintf("the %s values span %g to %g, a range too wide to draw; "
					   "set %s_min and %s_max, or leave the outliers out",
					   wide, lo, hi, wide, wide));
	}
	return true;
}

bool check_roofline(const struct chart *c, char **err)
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
