/* text.c: text on a chart, set with pango: measuring and drawing a
 * label at an anchor, turned or not; and the outlines (quads) of
 * labels, markers and segments that label placement tests for overlap. */
#include "draw/chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "chart_int.h"

/* Text */

PangoLayout *text_new(struct render *r, const PangoFontDescription *f, const char *s,
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

void text_size(PangoLayout *l, double *w, double *h)
{
	PangoRectangle lr;
	pango_layout_get_extents(l, NULL, &lr);
	*w = (double)lr.width / PANGO_SCALE;
	*h = (double)lr.height / PANGO_SCALE;
}

void text_measure(struct render *r, const PangoFontDescription *f, const char *s, double *w,
		  double *h)
{
	PangoLayout *l = text_new(r, f, s, 0, 0);
	text_size(l, w, h);
	g_object_unref(l);
}

/* Draws l so that the point (ax, ay) of its box (0 left/top, 1
 * right/bottom) lands on (x, y), turned by angle radians about it. */
void text_draw(struct render *r, PangoLayout *l, double x, double y, double ax, double ay,
	       double angle, unsigned color)
{
	PangoRectangle lr;
	pango_layout_get_extents(l, NULL, &lr);
	double lx = (double)lr.x / PANGO_SCALE, ly = (double)lr.y / PANGO_SCALE;
	double w = (double)lr.width / PANGO_SCALE, h = (double)lr.height / PANGO_SCALE;
	cairo_t *cr = r->cr;
	const PangoFontDescription *f = pango_layout_get_font_description(l);
	/* pango sizes are points: the context's 96 dpi makes them CSS px */
	double size = f ? pango_font_description_get_size(f) / (double)PANGO_SCALE * 96 / 72 : 0;
	if (size > 0 && (r->text_min == 0 || size < r->text_min))
		r->text_min = size;
	if (r->probe) {
		struct chart_layout *p = r->probe;
		p->texts = xrealloc(p->texts, (p->ntexts + 1) * sizeof *p->texts);
		struct chart_text *t = &p->texts[p->ntexts++];
		memset(t, 0, sizeof *t);
		t->kind = r->text_kind;
		t->size = size;
		snprintf(t->text, sizeof t->text, "%s", pango_layout_get_text(l));
		struct quad q = text_quad(x, y, ax, ay, angle, w, h, 0);
		memcpy(t->x, q.x, sizeof t->x);
		memcpy(t->y, q.y, sizeof t->y);
	}
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

void text_put(struct render *r, const PangoFontDescription *f, const char *s, double x,
	      double y, double ax, double ay, double angle, unsigned color)
{
	PangoLayout *l = text_new(r, f, s, 0, 0);
	text_draw(r, l, x, y, ax, ay, angle, color);
	g_object_unref(l);
}

/* The outline of a w x h box anchored at (ax, ay) on (x, y), turned by
 * angle, grown by pad on every side. */
struct quad text_quad(double x, double y, double ax, double ay, double angle, double w,
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

struct quad box_quad(double x0, double y0, double x1, double y1)
{
	struct quad q = {{x0, x1, x1, x0}, {y0, y0, y1, y1}, 4};
	return q;
}

struct quad seg_quad(double x0, double y0, double x1, double y1)
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

void obstacle_add(struct render *r, struct quad q)
{
	if (r->nobst == r->cobst) {
		r->cobst = r->cobst ? r->cobst * 2 : 32;
		r->obst = xrealloc(r->obst, r->cobst * sizeof *r->obst);
	}
	r->obst[r->nobst++] = q;
}

void probe_segment(struct render *r, double x0, double y0, double x1, double y1)
{
	struct chart_layout *p = r->probe;
	if (!p)
		return;
	p->segs = xrealloc(p->segs, (p->nsegs + 1) * sizeof *p->segs);
	p->segs[p->nsegs++] = (struct chart_segment){x0, y0, x1, y1};
}

void probe_box(struct render *r, double x0, double y0, double x1, double y1)
{
	probe_segment(r, x0, y0, x1, y0);
	probe_segment(r, x1, y0, x1, y1);
	probe_segment(r, x1, y1, x0, y1);
	probe_segment(r, x0, y1, x0, y0);
}

/* How badly a label at q would sit: obstacles it hits, and a heavy
 * penalty for leaving the plot frame. */
int quad_cost(const struct render *r, const struct quad *q)
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
