/* chart.c: line, bar, scatter and roofline charts drawn with cairo, text
 * set with pango (SPEC section 6).
 *
 * A render goes: check the chart, open a cairo surface, lay out the frame
 * (margins from the measured text, ticks thinned until their labels fit),
 * map the data to pixels (reducing big series to what the pixel columns
 * can show), place the legend where it covers no data, draw, and hand the
 * file's bytes over.  Everything is in CSS pixels; a PNG is drawn at
 * twice the size through a cairo scale.
 *
 * The parts: check.c checks, layout.c lays out (text.c measures,
 * ticks.c chooses the ticks), draw.c draws; this file opens the
 * surface, runs them and hands the bytes over. */
#include "draw/chart.h"
#include "base/util.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <pango/pangocairo.h>
#include <stdlib.h>
#include <string.h>

#include "draw/font.h"
#include "chart_int.h"

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

/* The ground and the fonts, on r->cr as it is transformed. */
static bool setup_fonts(struct render *r)
{
	r->th = r->c->dark ? &theme_dark : &theme_light;
	set_rgb(r->cr, r->th->ground);
	cairo_paint(r->cr);

	/* Font sizes in CSS pixels. */
	r->pango = font_context_new(r->cr, 96, CAIRO_ANTIALIAS_GRAY);
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
	free(r->key_point);
	free(r->key_line);
	free(r->ridge_in);
	chart_ticks_free(&r->x.t);
	chart_ticks_free(&r->y.t);
}


/* A drawing cairo could not make: "cairo: <its status>" in *err. */
static bool cairo_failed(char **err, cairo_status_t st)
{
	if (err)
		*err = xasprintf("cairo: %s", cairo_status_to_string(st));
	return false;
}

/* Checks c and plans what does not depend on the surface: false, with
 * *err, when it cannot be drawn. */
static bool prepare(struct render *r, const struct chart *c, char **err)
{
	if (!check_size(r, err) || !check_limits(c, err))
		return false;
	if (c->type == CHART_ROOFLINE ? !check_roofline(c, err) : !check_series(r, err))
		return false;
	if (c->type == CHART_ROOFLINE) {
		roofline_ranges(r);
		r->key_point = xcalloc(c->npoints + 1, sizeof *r->key_point);
		r->key_line = xcalloc(c->npeaks + c->nbandwidths + 1, sizeof *r->key_line);
		r->ridge_in = xcalloc(c->nbandwidths + 1, sizeof *r->ridge_in);
	}

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

/* Copies the SVG in, its root marked with the size of its smallest
 * text. */
static void svg_mark(const struct buf *in, struct buf *out, double text_min)
{
	const char *p = buf_data(in), *root = strstr(p, "<svg");
	const char *end = root ? strchr(root, '>') : NULL;
	if (!end) {
		buf_put(out, p, in->len);
		return;
	}
	/* after the root's own attributes */
	buf_put(out, p, (size_t)(end - p));
	buf_printf(out, " data-text-min=\"%.1f\"", text_min);
	buf_put(out, end, in->len - (size_t)(end - p));
}

/* Whether a series that grew found no carried projection for the
 * geometry it is drawn in (chart_carry): *err says so. */
static bool carry_missed(const struct chart *c, char **err)
{
	for (size_t i = 0; i < c->nseries; i++)
		if (c->series[i].carry && c->series[i].carry->missed) {
			if (err)
				*err = xstrdup("the carried drawing of a grown series does not fit "
					       "its new axes");
			return true;
		}
	return false;
}

static bool render_unlocked(const struct chart *c, enum chart_format f, struct buf *out,
			    struct chart_layout *probe, char **err)
{
	struct render r = {.c = c, .probe = probe};
	struct buf file = BUF_INIT;
	bool ok = false;
	if (err)
		*err = NULL;
	if (!prepare(&r, c, err)) {
		teardown(&r);
		return false;
	}
	if (!setup(&r, f, &file)) {
		cairo_failed(err, cairo_status(r.cr));
		goto out;
	}
	layout_arrange(&r);
	if (carry_missed(c, err))
		goto out;
	draw_chart(&r);

	cairo_status_t st = cairo_status(r.cr);
	if (st == CAIRO_STATUS_SUCCESS && f == CHART_PNG)
		st = cairo_surface_write_to_png_stream(r.surface, write_buf, &file);
	cairo_surface_finish(r.surface);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(r.surface);
	if (st != CAIRO_STATUS_SUCCESS) {
		cairo_failed(err, st);
		goto out;
	}
	if (probe) {
		probe->width = r.w;
		probe->height = r.h;
		probe->legend_below = r.legend && r.legend_below;
	} else if (f == CHART_SVG) {
		struct buf svg = BUF_INIT;
		svg_renumber(&file, &svg);
		svg_mark(&svg, out, r.text_min);
		buf_free(&svg);
	} else
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
		cairo_failed(err, cairo_status(cr));
		goto out;
	}
	layout_arrange(&r);
	if (carry_missed(c, err))
		goto out;
	draw_chart(&r);
	ok = cairo_status(cr) == CAIRO_STATUS_SUCCESS;
	if (!ok)
		cairo_failed(err, cairo_status(cr));
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

bool chart_render(const struct chart *c, enum chart_format f, struct buf *out, char **err)
{
	font_lock();
	bool ok = render_unlocked(c, f, out, NULL, err);
	font_unlock();
	return ok;
}

bool chart_inspect(const struct chart *c, struct chart_layout *out, char **err)
{
	memset(out, 0, sizeof *out);
	struct buf svg = BUF_INIT;
	font_lock();
	bool ok = render_unlocked(c, CHART_SVG, &svg, out, err);
	font_unlock();
	buf_free(&svg);
	if (!ok)
		chart_layout_free(out);
	return ok;
}

void chart_layout_free(struct chart_layout *l)
{
	free(l->texts);
	free(l->segs);
	memset(l, 0, sizeof *l);
}

bool chart_draw(const struct chart *c, cairo_t *cr, double x, double y, double scale,
		char **err)
{
	font_lock();
	bool ok = draw_unlocked(c, cr, x, y, scale, err);
	font_unlock();
	return ok;
}
