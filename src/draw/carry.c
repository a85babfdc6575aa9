/* carry.c: what a drawing computed of a series' first points, kept so
 * that the series, grown by an append, is drawn from its new points
 * only (struct chart_carry in draw/chart.h; docs/internals.md,
 * "Appends", says why the bytes are the same). */
#include "draw/chart.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "chart_int.h"

void chart_carry_begin(struct chart_carry *k, const struct chart_series *s, size_t n)
{
	memset(k, 0, sizeof *k);
	k->n = n;
	k->x_lo = k->y_lo = INFINITY;
	k->x_hi = k->y_hi = -INFINITY;
	/* check_series()'s loop, over the first n points */
	for (size_t j = 0; j < n && j < s->n; j++) {
		double x = series_x(s, j), y = series_y(s, j);
		if (!isfinite(x) || !isfinite(y))
			continue;
		k->any = true;
		k->x_lo = extent_lo(k->x_lo, x);
		k->x_hi = extent_hi(k->x_hi, x);
		k->y_lo = extent_lo(k->y_lo, y);
		k->y_hi = extent_hi(k->y_hi, y);
	}
}

void chart_carry_clear(struct chart_carry *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->nproj; i++) {
		free(k->proj[i].pts);
		free(k->proj[i].seen);
	}
	free(k->proj);
	k->proj = NULL;
	k->nproj = 0;
}

/* Everything project() maps a point with, and whether it reduces: two
 * drawings of equal geometry map every point to the same pixels. */
void carry_geometry(const struct render *r, bool reduce, double geo[CHART_GEO_N])
{
	double g[CHART_GEO_N] = {
		(double)r->c->type, r->scale, r->L, r->R, r->T, r->B,
		r->x.log, r->x.lo, r->x.hi, r->x.p0, r->x.p1,
		r->y.log, r->y.lo, r->y.hi, r->y.p0, r->y.p1,
		r->mark_r, reduce,
	};
	memcpy(geo, g, sizeof g);
}

const struct chart_proj *carry_find(const struct chart_carry *k, const double geo[CHART_GEO_N])
{
	/* bit for bit: a NaN or a -0 is a geometry of its own */
	for (size_t i = 0; k && i < k->nproj; i++)
		if (memcmp(k->proj[i].geo, geo, sizeof k->proj[i].geo) == 0)
			return &k->proj[i];
	return NULL;
}

void carry_record(struct chart_carry *k, const double geo[CHART_GEO_N], const struct pts *out,
		  const struct column *col, const unsigned char *seen, size_t nseen)
{
	if (carry_find(k, geo))
		return;
	k->proj = xrealloc(k->proj, (k->nproj + 1) * sizeof *k->proj);
	struct chart_proj *p = &k->proj[k->nproj++];
	memset(p, 0, sizeof *p);
	memcpy(p->geo, geo, sizeof p->geo);
	p->npts = out->n;
	p->pts = xmalloc((out->n ? out->n : 1) * 2 * sizeof *p->pts);
	for (size_t i = 0; i < out->n; i++) {
		p->pts[2 * i] = out->p[i].x;
		p->pts[2 * i + 1] = out->p[i].y;
	}
	p->col = col ? col->col : LONG_MIN;
	if (col && col->n) {
		p->cn = col->n;
		p->ilo = col->ilo;
		p->ihi = col->ihi;
		p->first[0] = col->first.x, p->first[1] = col->first.y;
		p->last[0] = col->last.x, p->last[1] = col->last.y;
		p->lo[0] = col->lo.x, p->lo[1] = col->lo.y;
		p->hi[0] = col->hi.x, p->hi[1] = col->hi.y;
	}
	if (seen) {
		p->seen = xmalloc(nseen ? nseen : 1);
		memcpy(p->seen, seen, nseen);
		p->nseen = nseen;
	}
}
