/* draw.c: the marks of a chart on its cairo surface, once layout.c has
 * placed everything: grid, frame, ticks and titles; lines, markers and
 * bars in the palette's colours and dashes; the roofline's ceilings
 * and points with labels placed where they hit nothing; the legend. */
#include "draw/chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "chart_int.h"

/* Okabe-Ito: told apart with every common colour-vision deficiency.
 * The yellow is faint on white, so it comes last.  On a dark ground
 * the same hues stay (the blue, the darkest, is 3.4:1 on it, as the
 * others are more), but the black becomes a light grey. */
const struct theme theme_light = {
	.ground = 0xffffff, .title = 0x1a1a1a, .text = 0x333333, .tick = 0x4d4d4d,
	.grid = 0xe3e3e3, .minor_grid = 0xf3f3f3, .ceiling = 0x3d3d3d,
	.legend_border = 0xd0d0d0, .legend_text = 0x262626, .ridge_text = 0x6b6b6b,
	.point_text = 0x1a1a1a,
	.palette = {0x0072B2, 0xE69F00, 0x009E73, 0xD55E00, 0xCC79A7, 0x56B4E9, 0x000000,
		    0xF0E442},
};

/* The ground is the site's dark surface colour (static/logdown.css),
 * so a chart sits on the page as a code block does. */
const struct theme theme_dark = {
	.ground = 0x171b22, .title = 0xe6e9ed, .text = 0xc9d1d9, .tick = 0xa8b1bd,
	.grid = 0x2f3640, .minor_grid = 0x222831, .ceiling = 0xc9d1d9,
	.legend_border = 0x3a424d, .legend_text = 0xdde3ea, .ridge_text = 0xa8b1bd,
	.point_text = 0xe6e9ed,
	.palette = {0x0072B2, 0xE69F00, 0x009E73, 0xD55E00, 0xCC79A7, 0x56B4E9, 0xE0E0E0,
		    0xF0E442},
};

#define SERIES_COLOR(r, i) ((r)->th->palette[(i) % ARRAY_LEN((r)->th->palette)])

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

void set_rgb(cairo_t *cr, unsigned c)
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

double device_round(const struct render *r, double v)
{
	return round(v * r->scale) / r->scale;
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

/* A marker filled in its colour with a thin edge of the ground's colour, which keeps
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
		set_rgb(cr, r->th->ground);
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

/* The pen of ceiling i (the bandwidths, then the peaks): solid and
 * heavy for the roof (the fastest bandwidth and the highest peak),
 * dashed for the lower ones. */
static void roof_line_style(struct render *r, size_t i)
{
	const struct chart *c = r->c;
	bool slope = i < c->nbandwidths;
	const struct chart_mark *set = slope ? c->bandwidths : c->peaks;
	size_t n = slope ? c->nbandwidths : c->npeaks, k = slope ? i : i - c->nbandwidths, best = 0;
	for (size_t j = 0; j < n; j++)
		if (set[j].value > set[best].value)
			best = j;
	static const double dash[] = {6, 3};
	bool roof = k == best;
	cairo_set_line_width(r->cr, roof ? 2.25 : 1.25);
	cairo_set_dash(r->cr, dash, roof ? 0 : 2, 0);
	cairo_set_line_cap(r->cr, CAIRO_LINE_CAP_BUTT);
	set_rgb(r->cr, r->th->ceiling);
}

/* Series i's key and name, the key's left edge at sx, on the row whose
 * middle is cy. */
static void legend_entry(struct render *r, size_t i, double sx, double cy)
{
	const struct chart *c = r->c;
	cairo_t *cr = r->cr;
	unsigned color = SERIES_COLOR(r, i);
	double tx;
	if (c->type == CHART_ROOFLINE) {
		/* a point's marker, or a ceiling's line as it is drawn */
		if (i < c->npoints) {
			marker_draw(r, series_marker(i), sx + 7, cy, 4.5, color, true);
			tx = sx + 14 + 6;
		} else {
			roof_line_style(r, i - c->npoints);
			cairo_move_to(cr, sx, cy);
			cairo_line_to(cr, sx + 26, cy);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
			tx = sx + 26 + 6;
		}
		char *text = key_text(r, i);
		PangoLayout *l = text_new(r, r->font_tick, text, 0, 0);
		pango_layout_set_width(l, (int)((r->w - 16 - (tx - sx)) * PANGO_SCALE));
		pango_layout_set_ellipsize(l, PANGO_ELLIPSIZE_END);
		text_draw(r, l, tx, cy, 0, 0.5, 0, r->th->legend_text);
		g_object_unref(l);
		free(text);
		return;
	}
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
	text_draw(r, l, tx, cy, 0, 0.5, 0, r->th->legend_text);
	g_object_unref(l);
}

/* Below the plot: the entries flow in rows, each row centred. */
static void legend_draw_below(struct render *r)
{
	const struct chart *c = r->c;
	double avail = r->w - 16, y = r->h - 4 - r->lg_h;
	size_t i = 0, n = below_count(r);
	(void)c;
	while (i < n) {
		/* the entries of this row: [i, end) */
		size_t end = i;
		double width = 0;
		for (; end < n; end++) {
			if (!below_present(r, end))
				continue;
			double w = legend_entry_width(r, end);
			if (width > 0 && width + w - 16 > avail)
				break;
			width += w;
		}
		double x = round((r->w - (width - 16)) / 2);
		for (; i < end; i++) {
			if (!below_present(r, i))
				continue;
			legend_entry(r, i, x, y + r->lg_row / 2);
			x += legend_entry_width(r, i);
		}
		y += r->lg_row;
	}
}

static void legend_draw(struct render *r)
{
	const struct chart *c = r->c;
	cairo_t *cr = r->cr;
	r->text_kind = CHART_TEXT_LEGEND;
	if (r->legend_below) {
		legend_draw_below(r);
		return;
	}
	double x = round(r->lg_x), y = round(r->lg_y);
	cairo_rectangle(cr, crisp(r, x, 1), crisp(r, y, 1), r->lg_w, r->lg_h);
	set_rgba(cr, r->th->ground, 0.92);
	cairo_fill_preserve(cr);
	set_rgb(cr, r->th->legend_border);
	cairo_set_line_width(cr, 1);
	cairo_set_dash(cr, NULL, 0, 0);
	cairo_stroke(cr);
	double row_y = y + 6;
	for (size_t i = 0; i < c->nseries; i++) {
		if (!series_labelled(c, i))
			continue;
		legend_entry(r, i, x + 8, row_y + r->lg_row / 2);
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
		set_rgb(cr, major ? r->th->grid : r->th->minor_grid);
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
	set_rgb(cr, r->th->tick);
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

	r->text_kind = CHART_TEXT_TICK;
	for (size_t i = 0; i < r->y.t.n; i++) {
		const struct chart_tick *k = &r->y.t.tick[i];
		if (k->label[0])
			text_put(r, r->font_tick, k->label, r->L - TICK_LEN - 4,
				 axis_map(&r->y, k->value), 1, 0.5, 0, r->th->tick);
	}
	if (bar) {
		double slot = (r->R - r->L) / (double)c->ncategories;
		for (size_t i = 0; i < c->ncategories; i += r->cat_every) {
			PangoLayout *l = category_layout(r, i, slot);
			text_draw(r, l, r->L + slot * ((double)i + 0.5),
				  r->B + (r->cat_every > 1 ? TICK_LEN + 3 : 5), 0.5, 0, 0, r->th->text);
			g_object_unref(l);
		}
	} else {
		for (size_t i = 0; i < r->x.t.n; i++) {
			const struct chart_tick *k = &r->x.t.tick[i];
			if (k->label[0])
				text_put(r, r->font_tick, k->label, axis_map(&r->x, k->value),
					 r->B + TICK_LEN + 3, 0.5, 0, 0, r->th->tick);
		}
	}
}

static void draw_titles(struct render *r)
{
	r->text_kind = CHART_TEXT_TITLE;
	if (r->title) {
		PangoLayout *l = text_new(r, r->font_title, r->title, r->w - 24, 2);
		double w, h;
		text_size(l, &w, &h);
		/* Centred over the plot when it fits there, else the chart. */
		double cx = (r->L + r->R) / 2;
		if (w > r->R - r->L)
			cx = r->w / 2.0;
		text_draw(r, l, cx, 9, 0.5, 0, 0, r->th->title);
		g_object_unref(l);
	}
	r->text_kind = CHART_TEXT_AXIS;
	if (r->x_label) {
		PangoLayout *l = text_new(r, r->font_text, r->x_label, r->R - r->L, 1);
		double below = r->legend_below ? r->lg_h + 6 : 0;
		text_draw(r, l, (r->L + r->R) / 2, r->h - 7 - below, 0.5, 1, 0, r->th->text);
		g_object_unref(l);
	}
	if (r->y_label) {
		PangoLayout *l = text_new(r, r->font_text, r->y_label, r->B - r->T, 1);
		text_draw(r, l, 8, (r->T + r->B) / 2, 0.5, 0, -PI / 2, r->th->text);
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
		unsigned color = SERIES_COLOR(r, i);
		if (c->type == CHART_LINE) {
			cairo_new_path(cr);
			bool pen = false;
			for (size_t j = 0; j < s->n; j++) {
				if (isnan(s->p[j].x)) {
					pen = false;
					continue;
				}
				if (pen) {
					cairo_line_to(cr, s->p[j].x, s->p[j].y);
					probe_segment(r, s->p[j - 1].x, s->p[j - 1].y, s->p[j].x,
						      s->p[j].y);
				} else
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
				if (!isnan(s->p[j].x)) {
					marker_draw(r, series_marker(i), s->p[j].x, s->p[j].y,
						    r->mark_r, color, true);
					probe_box(r, s->p[j].x - r->mark_r, s->p[j].y - r->mark_r,
						  s->p[j].x + r->mark_r, s->p[j].y + r->mark_r);
				}
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

static void draw_bars(struct render *r)
{
	const struct chart *c = r->c;
	cairo_t *cr = r->cr;
	cairo_save(cr);
	cairo_rectangle(cr, r->L, r->T - 20, r->R - r->L, r->B - r->T + 20);
	cairo_clip(cr);
	double base = device_round(r, bar_base(r));
	for (size_t i = 0; i < c->nseries; i++) {
		unsigned color = SERIES_COLOR(r, i);
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
			probe_box(r, x0, fmin(top, base), x1, fmax(top, base));
			r->text_kind = CHART_TEXT_MARK;
			if (r->bar_values) {
				char s[64];
				format_value(s, sizeof s, v);
				bool up = v >= 0 || r->y.log;
				text_put(r, r->font_small, s, (x0 + x1) / 2, top + (up ? -2 : 2), 0.5,
					 up ? 1 : 0, 0, r->th->text);
			}
		}
	}
	/* A zero line when bars go both ways. */
	if (!r->y.log && r->y.lo < 0 && r->y.hi > 0) {
		double y = crisp(r, axis_map(&r->y, 0), 1);
		cairo_move_to(cr, r->L, y);
		cairo_line_to(cr, r->R, y);
		set_rgb(cr, r->th->tick);
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
 * vertical anchor in *ay and the line's angle in *angle, and how many
 * things the label hits there (0: none). */
static int place_on_line(struct render *r, const struct roof_line *ln, double w, double h,
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
	/* Close to the line above it, below it, then above and below clear
	 * of the markers sitting on it. */
	for (int side = 0; side < 4; side++) {
		for (int i = 0; i <= steps; i++) {
			if (room < 0 && i > 0)
				break;
			double t = room < 0 ? 0 : room * (double)i / steps;
			/* Peak labels read from the right end, slopes from the left. */
			double along = at_end ? len - 4 - w - t : 4 + t;
			double off = (side < 2 ? 2.5 : 7) * (side % 2 ? -1 : 1);
			double x = ln->x0 + ux * along + nx * off, y = ln->y0 + uy * along + ny * off;
			double a = side % 2 ? 0 : 1;
			struct quad q = text_quad(x, y, 0, a, *angle, w, h, 1);
			int cost = quad_cost(r, &q) * 4 + side;
			if (cost < best) {
				best = cost;
				*px = x;
				*py = y;
				*ay = a;
			}
			if (best <= 0)
				return 0;
		}
	}
	return best / 4;
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
	for (int i = 0; i < 24; i++) {
		/* the eight spots close by, then further out */
		double d = rad + (i < 8 ? 4 : i < 16 ? 12 : 22);
		const double *sp = spots[i % 8];
		double sx = x + sp[0] * d, sy = y + sp[1] * d;
		struct quad q = text_quad(sx, sy, sp[2], sp[3], 0, w, h, 1);
		int cost = quad_cost(r, &q);
		if (cost < best) {
			best = cost;
			*px = sx;
			*py = sy;
			*ax = sp[2];
			*ay = sp[3];
		}
		if (best == 0)
			break;
	}
	return best;
}

/* Writes ceiling i's name and value (and ridge) along its line, or,
 * when placing and it hits something wherever it goes, moves it to the
 * key. */
static void ceiling_label(struct render *r, const struct roof_line *ln, size_t i)
{
	char *text = key_text(r, r->c->npoints + i);
	bool slope = i < r->c->nbandwidths;
	double w, h, px = 0, py = 0, ay = 0, angle = 0;
	text_measure(r, r->font_small, text, &w, &h);
	if (place_on_line(r, ln, w, h, !slope, &px, &py, &ay, &angle) > 0 && r->dry) {
		r->key_line[i] = r->key_changed = true;
	} else {
		text_put(r, r->font_small, text, px, py, 0, ay, angle, r->th->ceiling);
		obstacle_add(r, text_quad(px, py, 0, ay, angle, w, h, 1));
	}
	free(text);
}

/* Labels each ridge point with its intensity where that hits nothing;
 * the others are flagged in r->ridge_in for their roof's label. */
static void ridge_labels(struct render *r, const struct roof_line *lines, double top,
			 double ridge_r)
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
		text_measure(r, r->font_small, s, &w, &h);
		r->ridge_in[i] = false;
		if (place_near(r, x, y, ridge_r, w, h, &px, &py, &ax, &ay) > 0) {
			/* the slope's label (or key entry) says it instead */
			r->ridge_in[i] = lines[i].visible || r->key_line[i];
			continue;
		}
		text_put(r, r->font_small, s, px, py, ax, ay, 0, r->th->ridge_text);
		obstacle_add(r, text_quad(px, py, ax, ay, 0, w, h, 1));
	}
}

void draw_roofline(struct render *r)
{
	const struct chart *c = r->c;
	cairo_t *cr = r->cr;
	double top = 0, bw_top = 0;
	r->nobst = 0;
	for (size_t i = 0; i < c->npeaks; i++)
		top = fmax(top, c->peaks[i].value);
	for (size_t i = 0; i < c->nbandwidths; i++)
		bw_top = fmax(bw_top, c->bandwidths[i].value);
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
	for (size_t i = 0; i < nl; i++) {
		struct roof_line *ln = &lines[i];
		if (!ln->visible)
			continue;
		cairo_move_to(cr, ln->x0, ln->y0);
		cairo_line_to(cr, ln->x1, ln->y1);
		roof_line_style(r, i);
		cairo_stroke(cr);
		obstacle_add(r, seg_quad(ln->x0, ln->y0, ln->x1, ln->y1));
		probe_segment(r, ln->x0, ln->y0, ln->x1, ln->y1);
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
		set_rgb(cr, r->th->ground);
		cairo_fill_preserve(cr);
		set_rgb(cr, r->th->ceiling);
		cairo_set_line_width(cr, 1.5);
		cairo_stroke(cr);
		obstacle_add(r, box_quad(x - ridge_r, y - ridge_r, x + ridge_r, y + ridge_r));
		probe_box(r, x - ridge_r, y - ridge_r, x + ridge_r, y + ridge_r);
	}
	/* Measured points. */
	for (size_t i = 0; i < c->npoints; i++) {
		double x = axis_map(&r->x, c->points[i].intensity);
		double y = axis_map(&r->y, c->points[i].performance);
		marker_draw(r, series_marker(i), x, y, 4.5, SERIES_COLOR(r, i), true);
		obstacle_add(r, box_quad(x - 5, y - 5, x + 5, y + 5));
		probe_box(r, x - 4.5, y - 4.5, x + 4.5, y + 4.5);
	}
	cairo_restore(cr);

	r->text_kind = CHART_TEXT_MARK;
	/* Labels: the peaks first, the roof's name mattering most; then
	 * the points; then each ridge's intensity next to it where there
	 * is room, else in its slope's label; then the slopes.  Whatever
	 * finds no free place goes to the key below. */
	for (size_t i = c->nbandwidths; i < nl; i++)
		if (lines[i].visible && !r->key_line[i])
			ceiling_label(r, &lines[i], i);
	/* Then the points' labels, each at one of 24 spots around its
	 * marker. */
	for (size_t i = 0; i < c->npoints; i++) {
		const char *s = c->points[i].label;
		if (!s || !*s)
			continue;
		double x = axis_map(&r->x, c->points[i].intensity);
		double y = axis_map(&r->y, c->points[i].performance);
		double w, h, px = 0, py = 0, ax = 0, ay = 0;
		if (r->key_point[i])
			continue;
		text_measure(r, r->font_tick, s, &w, &h);
		if (place_near(r, x, y, 5, w, h, &px, &py, &ax, &ay) > 0 && r->dry) {
			r->key_point[i] = r->key_changed = true;
			continue;
		}
		text_put(r, r->font_tick, s, px, py, ax, ay, 0, r->th->point_text);
		obstacle_add(r, text_quad(px, py, ax, ay, 0, w, h, 1));
	}
	ridge_labels(r, lines, top, ridge_r);
	for (size_t i = 0; i < c->nbandwidths; i++)
		if (lines[i].visible && !r->key_line[i])
			ceiling_label(r, &lines[i], i);
	free(lines);
}

void draw_chart(struct render *r)
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
