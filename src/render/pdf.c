/* pdf.c: a report laid out as a PDF with pango and cairo (see pdf.h):
 * the boxes onto pages.  This file opens cairo's PDF surface and the
 * pango context with its fonts (under the font lock), has the document
 * made into boxes (pdf_box.c, with the files pdf_int.h lists), lays the
 * boxes onto pages and draws them with what the pages carry around
 * them: the title block, the page numbers, the bookmarks, the links
 * and the metadata.
 *
 * Blocks become a list of boxes, each a fixed height: a line of a
 * paragraph, a line of code, a table row, a figure, a rule.  A box says
 * how much space goes above it (dropped at the top of a page) and
 * whether it must stay on the page of the box after it.  Pagination is
 * then a walk over the boxes that opens a new page when the next group
 * of boxes held together does not fit; drawing comes last, once the
 * number of pages is known. */
#include "pdf_int.h"

#include <cairo-pdf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fsutil.h"
#include "draw/font.h"
#include "resolve/doc.h"

struct place {
	size_t box;
	int page;
	double y;
	bool floated; /* a figure moved to the top of a later page */
};

/* The title, the author and the date above the report. */
static void title_block(struct pdf *p, struct flow *f)
{
	const struct pdf_meta *m = p->m;
	if (m->title && *m->title) {
		struct rich r;
		rich_init(&r);
		rich_put(&r, m->title, strlen(m->title), 0, NULL);
		PangoLayout *l = layout_new(p, p->f_title, f->w);
		pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
		pango_layout_set_attributes(l, r.attrs);
		pango_layout_set_line_spacing(l, 1.15f);
		struct para *pa = para_new(l, &r);
		rich_clear(&r);
		para_boxes(p, f, pa, 0, 0, true);
	}
	struct buf by = BUF_INIT;
	if (m->author && *m->author)
		buf_puts(&by, m->author);
	if (m->date && *m->date)
		buf_printf(&by, "%s%s", by.len ? " \xC2\xB7 " : "", m->date);
	if (by.len) {
		struct rich r;
		rich_init(&r);
		rich_put(&r, buf_data(&by), by.len, S_MUTED, NULL);
		PangoLayout *l = layout_new(p, p->f_sans, f->w);
		pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
		pango_layout_set_attributes(l, r.attrs);
		struct para *pa = para_new(l, &r);
		rich_clear(&r);
		para_boxes(p, f, pa, 6, 0, true);
	}
	buf_free(&by);
	if (m->summary && *m->summary) {
		struct rich r;
		rich_init(&r);
		rich_put(&r, m->summary, strlen(m->summary), 0, NULL);
		PangoLayout *l = layout_new(p, p->f_lead, f->w);
		pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
		pango_layout_set_attributes(l, r.attrs);
		pango_layout_set_line_spacing(l, 1.3f);
		struct para *pa = para_new(l, &r);
		rich_clear(&r);
		para_boxes(p, f, pa, 8, 0, true);
	}
	if (p->nboxes)
		box_add(p, BOX_RULE, f, 14, 2);
}

/* Pagination: the boxes in order onto pages, and the figures that
 * wait for the top of the next page meanwhile. */
struct pager {
	struct pdf *p;
	struct place *pl;
	size_t n, cap;
	int page;
	double top, bottom, y;
	bool empty; /* nothing on the page: the space above the next box is dropped */
	bool fresh; /* nothing of the text yet (waiting figures may be above) */
	size_t (*wait)[2]; /* groups of boxes [first, last] */
	size_t nwait;
};

static void put(struct pager *g, size_t k, bool floated)
{
	const struct box *b = &g->p->boxes[k];
	double before = g->empty ? 0 : b->before;
	if (g->n + 2 >= g->cap) {
		g->cap *= 2;
		g->pl = xrealloc(g->pl, g->cap * sizeof *g->pl);
	}
	g->pl[g->n++] = (struct place){k, g->page, g->y + before, floated};
	g->y += before + b->h;
	g->empty = false;
	if (!floated)
		g->fresh = false;
}

/* The height of boxes i..j at the current place. */
static double group_height(const struct pager *g, size_t i, size_t j)
{
	double h = 0;
	for (size_t k = i; k <= j; k++)
		h += (k == i && g->empty ? 0 : g->p->boxes[k].before) + g->p->boxes[k].h;
	return h;
}

/* A new page, topped with the figures waiting, in their order, as many
 * as fit. */
static void new_page(struct pager *g)
{
	g->page++;
	g->y = g->top;
	g->empty = g->fresh = true;
	size_t k = 0;
	for (; k < g->nwait; k++) {
		size_t i = g->wait[k][0], j = g->wait[k][1];
		if (!g->empty && g->y + group_height(g, i, j) > g->bottom + 0.01)
			break;
		for (size_t m = i; m <= j; m++)
			put(g, m, true);
	}
	memmove(g->wait, g->wait + k, (g->nwait - k) * sizeof *g->wait);
	g->nwait -= k;
}

static bool is_figure(const struct box *b)
{
	return b->kind == BOX_CHART || b->kind == BOX_IMAGE || b->kind == BOX_SVG;
}

/* Lays the boxes onto pages; returns the placements (and *n, *pages).
 * A figure that does not fit in what is left of a page waits for the
 * top of the next one while the text after it fills the page (a float,
 * as in TeX); figures keep their order, and the figures waiting go
 * before the next heading, so a figure stays in its section. */
static struct place *paginate(struct pdf *p, size_t *nplaces, int *pages)
{
	struct pager g = {.p = p, .top = p->mt, .bottom = p->ph - p->mb, .y = p->mt,
			  .empty = true, .fresh = true};
	double body = g.bottom - g.top;
	g.cap = p->nboxes + 16;
	g.pl = xcalloc(g.cap, sizeof *g.pl);
	g.wait = xcalloc(p->nboxes + 1, sizeof *g.wait);
	size_t i = 0;
	while (i < p->nboxes) {
		if (p->boxes[i].outline)
			while (g.nwait)
				new_page(&g);
		/* the group of boxes held together from i */
		size_t j = i;
		double gh = (g.empty ? 0 : p->boxes[i].before) + p->boxes[i].h;
		bool capped = false; /* held together longer than a page: broken anyway */
		while (p->boxes[j].keep && j + 1 < p->nboxes) {
			double more = p->boxes[j + 1].before + p->boxes[j + 1].h;
			if (gh + more > body) {
				capped = true;
				break;
			}
			j++;
			gh += more;
		}
		struct box *fig = &p->boxes[i];
		if (is_figure(fig) && !capped && g.nwait) {
			/* behind the figures waiting: in its order */
			g.wait[g.nwait][0] = i;
			g.wait[g.nwait++][1] = j;
			i = j + 1;
			continue;
		}
		/* a figure that almost fits is drawn a little smaller rather
		 * than leave the rest of the page empty */
		if (!g.empty && !capped && g.y + gh > g.bottom + 0.01 && is_figure(fig)) {
			double k = (g.bottom - g.y - (gh - fig->h)) / fig->h;
			if (k >= 0.8 && k < 1) {
				fig->x += fig->w * (1 - k) / 2;
				fig->w *= k;
				fig->scale *= k;
				gh -= fig->h * (1 - k);
				fig->h *= k;
			}
		}
		if (!g.empty && !capped && g.y + gh > g.bottom + 0.01) {
			if (is_figure(fig)) {
				g.wait[g.nwait][0] = i;
				g.wait[g.nwait++][1] = j;
				i = j + 1;
				continue;
			}
			new_page(&g);
		}
		for (size_t k = i; k <= j; k++) {
			const struct box *b = &p->boxes[k];
			if (!g.empty && g.y + b->before + b->h > g.bottom + 0.01)
				new_page(&g);
			/* a table running onto a new page: its header first */
			if (g.fresh && b->kind == BOX_ROW && b->head >= 0 && !b->is_head)
				put(&g, (size_t)b->head, false);
			put(&g, k, false);
		}
		i = j + 1;
	}
	while (g.nwait)
		new_page(&g);
	free(g.wait);
	*nplaces = g.n;
	*pages = g.page + 1;
	return g.pl;
}

/* "https://host/...": a scheme, then "//". */
static bool absolute_url(const char *u)
{
	if (!u || !g_ascii_isalpha(*u))
		return false;
	const char *s = u;
	while (g_ascii_isalnum(*s) || *s == '+' || *s == '-' || *s == '.')
		s++;
	return str_has_prefix(s, "://") && s[3];
}

/* The placed boxes, one a line, for the tests of the page rules, when
 * LOGDOWN_PDF_LAYOUT names a folder: the page body's top and bottom,
 * then for each box its page (from 1), top, height, kind (text, head,
 * code, log, figure, row, rule), its code block or excerpt (0: none),
 * whether it floated, and its place in reading order. */
static void layout_record(struct pdf *p, const struct place *pl, size_t n, int pages)
{
	const char *dir = getenv("LOGDOWN_PDF_LAYOUT");
	if (!dir || !*dir)
		return;
	struct buf b = BUF_INIT;
	buf_printf(&b, "body\t%.2f\t%.2f\t%d\n", p->mt, p->ph - p->mb, pages);
	for (size_t k = 0; k < n; k++) {
		const struct box *x = &p->boxes[pl[k].box];
		const char *kind = x->outline		       ? "head"
				   : x->role == 'c'	       ? "code"
				   : x->role == 'l'	       ? "log"
				   : is_figure(x)	       ? "figure"
				   : x->kind == BOX_ROW	       ? "row"
				   : x->kind == BOX_RULE       ? "rule"
							       : "text";
		buf_printf(&b, "%d\t%.2f\t%.2f\t%s\t%d\t%d\t%zu\n", pl[k].page + 1, pl[k].y, x->h,
			   kind, x->block, pl[k].floated, pl[k].box);
	}
	char *name = xstrdup(p->m->slug && *p->m->slug ? p->m->slug : "report");
	for (char *c = name; *c; c++)
		if (*c == '/')
			*c = '-';
	char *file = xasprintf("%s/%s.tsv", dir, name);
	if (!file_write(file, buf_data(&b), b.len))
		diag_warning(p->d, loc_line(doc_file(p->doc), 0), "cannot write %s: %s", file,
			     strerror(errno));
	free(file);
	free(name);
	buf_free(&b);
}

static bool dest_known(const struct pdf *p, const char *name)
{
	for (size_t i = 0; i < p->ndests; i++)
		if (strcmp(p->dests[i], name) == 0)
			return true;
	return false;
}

/* A cairo attribute string value: quotes and backslashes escaped. */
static void put_attr(struct buf *b, const char *s)
{
	buf_putc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			buf_putc(b, '\\');
		buf_putc(b, *s);
	}
	buf_putc(b, '\'');
}

void link_rect(struct pdf *p, const char *href, double x, double y, double w, double h)
{
	struct buf a = BUF_INIT;
	if (href[0] == '#') {
		if (!dest_known(p, href + 1)) {
			buf_free(&a);
			return;
		}
		buf_puts(&a, "dest=");
		put_attr(&a, href + 1);
	} else {
		buf_puts(&a, "uri=");
		put_attr(&a, href);
	}
	buf_printf(&a, " rect=[%.2f %.2f %.2f %.2f]", x, y, w, h);
	cairo_tag_begin(p->cr, CAIRO_TAG_LINK, buf_data(&a));
	cairo_tag_end(p->cr, CAIRO_TAG_LINK);
	buf_free(&a);
}

void pdf_set_rgb(cairo_t *cr, unsigned c)
{
	cairo_set_source_rgb(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0,
			     (c & 255) / 255.0);
}

/* Draws line i of pa with its top at (x, y), and its links. */
/* The background of the inline code on a line whose baseline starts at
 * (x, base): the height of the line, the width of each of its runs in
 * code, as pango draws a background attribute. */
static void draw_code_background(struct pdf *p, const struct para *pa, PangoLayoutLine *line,
				 double x, double base)
{
	PangoRectangle overall;
	pango_layout_line_get_extents(line, NULL, &overall);
	double rx = x;
	bool any = false;
	for (GSList *r = line->runs; r; r = r->next) {
		PangoGlyphItem *gi = r->data;
		double w = pango_glyph_string_get_width(gi->glyphs) / (double)PANGO_SCALE;
		size_t a = (size_t)gi->item->offset, b = a + (size_t)gi->item->length;
		/* the last span starting at or before the run */
		size_t lo = 0, hi = pa->ncode;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (pa->code[mid][0] <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && b <= pa->code[lo - 1][1] && b > a) {
			cairo_rectangle(p->cr, rx, base + overall.y / (double)PANGO_SCALE, w,
					overall.height / (double)PANGO_SCALE);
			any = true;
		}
		rx += w;
	}
	if (any) {
		cairo_set_source_rgb(p->cr, 0xf0 / 255.0, 0xf0 / 255.0, 0xee / 255.0);
		cairo_fill(p->cr);
	}
}

static void draw_line(struct pdf *p, struct para *pa, int i, double x, double y)
{
	double lx = pa->x[i];
	double base = y + pa->baseline[i] - pa->top[i];
	if (pa->glyphs) {
		/* (mono_para(): plain code, one colour, no links) */
		cairo_move_to(p->cr, x + lx, base);
		pdf_set_rgb(p->cr, C_TEXT);
		pango_cairo_show_glyph_string(p->cr, pa->font, pa->glyphs[i]);
		return;
	}
	PangoLayoutLine *line = pa->lines[i];
	if (pa->ncode)
		draw_code_background(p, pa, line, x + lx, base);
	cairo_move_to(p->cr, x + lx, base);
	pdf_set_rgb(p->cr, C_TEXT);
	pango_cairo_show_layout_line(p->cr, line);
	if (!pa->nlinks)
		return;
	double rx = x + lx;
	for (GSList *r = line->runs; r; r = r->next) {
		PangoGlyphItem *gi = r->data;
		double w = pango_glyph_string_get_width(gi->glyphs) / (double)PANGO_SCALE;
		int a = gi->item->offset, b = a + gi->item->length;
		/* the links are in the text's order and never overlap: the
		 * run's is the last one starting at or before it (a search,
		 * not a walk of them all for each run: a paragraph of 20,000
		 * values spent most of its time here) */
		size_t lo = 0, hi = pa->nlinks;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (pa->links[mid].start <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && b <= pa->links[lo - 1].end)
			link_rect(p, pa->links[lo - 1].href, rx, y, w, pa->height[i]);
		rx += w;
	}
}

static void draw_row(struct pdf *p, const struct box *b, double x, double y)
{
	const struct row *row = b->row;
	cairo_t *cr = p->cr;
	cairo_save(cr);
	cairo_rectangle(cr, x - 1, y - 1, row->w + 2, b->h + 2);
	cairo_clip(cr);
	if (row->header) {
		pdf_set_rgb(cr, C_HEAD_BG);
		cairo_rectangle(cr, x, y, row->w, b->h);
		cairo_fill(cr);
	}
	for (size_t j = 0; j < row->n; j++) {
		const struct cell *c = &row->cells[j];
		double cy = y + row->pad;
		for (int i = 0; i < c->p->nlines; i++) {
			draw_line(p, c->p, i, x + c->x + row->pad, cy);
			cy += c->p->height[i];
		}
	}
	pdf_set_rgb(cr, row->header ? 0x888888 : C_RULE);
	cairo_set_line_width(cr, row->header ? 0.8 : 0.4);
	cairo_move_to(cr, x, y + b->h - 0.2);
	cairo_line_to(cr, x + row->w, y + b->h - 0.2);
	cairo_stroke(cr);
	cairo_restore(cr);
}

/* A callout's tint and bar from y, h high, under whatever b draws. */
static void callout_ground(struct pdf *p, const struct box *b, double y, double h)
{
	if (!b->tint)
		return;
	pdf_set_rgb(p->cr, b->tint);
	cairo_rectangle(p->cr, p->ml + b->tint_x, y, b->tint_w, h + 0.3);
	cairo_fill(p->cr);
	pdf_set_rgb(p->cr, b->bar);
	cairo_rectangle(p->cr, p->ml + b->tint_x, y, 3, h + 0.3);
	cairo_fill(p->cr);
}

/* A code line's number in the gutter left of it, right-aligned on the
 * line's baseline, and the gutter's rule.  Drawn as outlines, not
 * text: copying the code from the PDF copies no numbers. */
static void draw_lineno(struct pdf *p, const struct box *b, double y)
{
	cairo_t *cr = p->cr;
	double right = p->ml + b->num_r;
	pdf_set_rgb(cr, C_RULE);
	cairo_set_line_width(cr, 0.6);
	double rx = right + 0.8 * 8.5 * 0.6; /* between the numbers and the code */
	cairo_move_to(cr, rx, y);
	cairo_line_to(cr, rx, y + b->h + 0.3);
	cairo_stroke(cr);
	if (b->wrapped)
		return;
	char num[24];
	snprintf(num, sizeof num, "%ld", b->lineno);
	PangoLayout *l = layout_new(p, p->f_mono, 0);
	pango_layout_set_text(l, num, -1);
	double lb = pango_layout_get_baseline(l) / (double)PANGO_SCALE;
	double base = y + b->pad_top + b->para->baseline[b->line] - b->para->top[b->line];
	cairo_move_to(cr, right - layout_width(l), base - lb);
	pango_cairo_layout_path(cr, l);
	pdf_set_rgb(cr, C_MUTED);
	cairo_fill(cr);
	g_object_unref(l);
}

static void draw_box(struct pdf *p, struct box *b, double y)
{
	cairo_t *cr = p->cr;
	double x = p->ml + b->x;
	if (b->dest) {
		struct buf a = BUF_INIT;
		buf_puts(&a, "name=");
		put_attr(&a, b->dest);
		buf_printf(&a, " x=%.2f y=%.2f", p->ml, y > 12 ? y - 12 : 0);
		cairo_tag_begin(cr, CAIRO_TAG_DEST, buf_data(&a));
		cairo_tag_end(cr, CAIRO_TAG_DEST);
		buf_free(&a);
	}
	callout_ground(p, b, y, b->h);
	for (int q = 0; q < b->quote; q++) {
		pdf_set_rgb(cr, C_QUOTE);
		cairo_rectangle(cr, p->ml + b->quote_x[q], y, 2.5, b->h);
		cairo_fill(cr);
	}
	if (b->bg) {
		pdf_set_rgb(cr, b->bg);
		cairo_rectangle(cr, p->ml + b->bg_x, y, b->bg_w, b->h + 0.3);
		cairo_fill(cr);
	}
	if (b->icon && b->kind == BOX_LINE) {
		/* a callout's icon, as tall as the title's capitals, centred on
		 * its line */
		double lh = b->para->height[b->line], s = 9;
		RsvgRectangle vp = {p->ml + b->icon_x, y + b->pad_top + (lh - s) / 2, s, s};
		cairo_save(cr);
		svglib_loaded()->render_document(b->icon, cr, &vp, NULL);
		cairo_restore(cr);
	}
	if (b->marker) {
		PangoLayoutIter *it = pango_layout_get_iter(b->marker);
		double mb = pango_layout_iter_get_baseline(it) / (double)PANGO_SCALE;
		pango_layout_iter_free(it);
		double base = y + b->pad_top;
		if (b->kind == BOX_LINE)
			base += b->para->baseline[b->line] - b->para->top[b->line];
		else
			base += mb;
		pdf_set_rgb(cr, C_TEXT);
		cairo_move_to(cr, x + b->marker_x, base - mb);
		pango_cairo_show_layout(cr, b->marker);
	}
	switch (b->kind) {
	case BOX_LINE:
		draw_line(p, b->para, b->line, x, y + b->pad_top);
		if (b->num_r > 0)
			draw_lineno(p, b, y);
		if (b->wrapped) {
			/* a hooked arrow, drawn rather than written, so that
			 * copying the code copies only the code */
			double gx = x + b->gutter_x, gy = y + b->pad_top,
			       gh = b->para->height[b->line];
			pdf_set_rgb(cr, 0x999999);
			cairo_set_line_width(cr, 0.7);
			cairo_move_to(cr, gx, gy + gh * 0.2);
			cairo_line_to(cr, gx, gy + gh * 0.55);
			cairo_line_to(cr, gx + 5, gy + gh * 0.55);
			cairo_stroke(cr);
			cairo_move_to(cr, gx + 6, gy + gh * 0.55);
			cairo_line_to(cr, gx + 3.5, gy + gh * 0.55 - 1.8);
			cairo_line_to(cr, gx + 3.5, gy + gh * 0.55 + 1.8);
			cairo_close_path(cr);
			cairo_fill(cr);
		}
		break;
	case BOX_RULE:
		pdf_set_rgb(cr, C_RULE);
		cairo_set_line_width(cr, 0.6);
		cairo_move_to(cr, x, y + b->h / 2);
		cairo_line_to(cr, x + b->w, y + b->h / 2);
		cairo_stroke(cr);
		break;
	case BOX_IMAGE: {
		double iw = cairo_image_surface_get_width(b->image);
		cairo_save(cr);
		cairo_translate(cr, x, y);
		/* a width and a height may stretch it, as on the page */
		cairo_scale(cr, b->w / iw, b->h / cairo_image_surface_get_height(b->image));
		cairo_set_source_surface(cr, b->image, 0, 0);
		cairo_paint(cr);
		cairo_restore(cr);
		break;
	}
	case BOX_SVG: {
		RsvgRectangle vp = {x, y, b->w, b->h};
		GError *err = NULL;
		cairo_save(cr);
		if (!svglib_loaded()->render_document(b->svg, cr, &vp, &err)) {
			diag_warning(p->d, b->at, "cannot draw this SVG image in the PDF: %s",
				     err ? err->message : "librsvg failed");
			g_clear_error(&err);
		}
		cairo_restore(cr);
		break;
	}
	case BOX_CHART: {
		char *err = NULL;
		if (!chart_draw(b->chart, cr, x, y, b->scale, &err)) {
			diag_warning(p->d, b->at, "cannot draw this chart in the PDF: %s",
				     err ? err : "cairo failed");
		}
		free(err);
		break;
	}
	case BOX_ROW:
		draw_row(p, b, x, y);
		break;
	}
	if (b->toc_dest)
		pdf_contents_draw(p, b, x, y);
}

static void footer(struct pdf *p, int page, int pages)
{
	char *t = p->m->manifest_hash
			  ? xasprintf("manifest %s · %d / %d", p->m->manifest_hash, page + 1, pages)
			  : xasprintf("%d / %d", page + 1, pages);
	PangoLayout *l = layout_new(p, p->f_footer, 0);
	pango_layout_set_text(l, t, -1);
	double w = layout_width(l);
	pdf_set_rgb(p->cr, C_MUTED);
	cairo_move_to(p->cr, p->pw - p->mr - w, p->ph - p->mb + 24);
	pango_cairo_show_layout(p->cr, l);
	g_object_unref(l);
	free(t);
	if (p->m->title && *p->m->title && page > 0) {
		PangoLayout *h = layout_new(p, p->f_footer, p->tw - w - 24);
		pango_layout_set_text(h, p->m->title, -1);
		pango_layout_set_ellipsize(h, PANGO_ELLIPSIZE_END);
		pdf_set_rgb(p->cr, C_MUTED);
		cairo_move_to(p->cr, p->ml, p->ph - p->mb + 24);
		pango_cairo_show_layout(p->cr, h);
		g_object_unref(h);
	}
}

/* Each entry of the contents gets the page its section's heading was
 * placed on. */
static void contents_pages(struct pdf *p, const struct place *pl, size_t n)
{
	for (size_t i = 0; i < p->nboxes; i++) {
		struct box *e = &p->boxes[i];
		for (size_t k = 0; e->toc_dest && k < n && !e->toc_page; k++) {
			const struct box *b = &p->boxes[pl[k].box];
			if (b->outline && b->dest && strcmp(b->dest, e->toc_dest) == 0)
				e->toc_page = pl[k].page + 1;
		}
	}
}

static void outline_add(struct pdf *p, int *parents, const struct box *b, int page, double y)
{
	int level = b->outline;
	int parent = CAIRO_PDF_OUTLINE_ROOT;
	for (int l = level - 1; l >= 1; l--) {
		if (parents[l] >= 0) {
			parent = parents[l];
			break;
		}
	}
	/* a section's entry leads to its destination, as its references
	 * do; a heading without one (the Sources appendix's) to its place */
	struct buf lb = BUF_INIT;
	if (b->dest && dest_known(p, b->dest)) {
		buf_puts(&lb, "dest=");
		put_attr(&lb, b->dest);
	} else {
		buf_printf(&lb, "page=%d pos=[%.2f %.2f]", page + 1, p->ml, y > 12 ? y - 12 : 0);
	}
	char *link = buf_detach(&lb);
	char *title = b->title;
	gchar *ok = g_utf8_validate(title, -1, NULL) ? NULL : g_utf8_make_valid(title, -1);
	int id = cairo_pdf_surface_add_outline(p->surface, parent, ok ? ok : title, link,
					       CAIRO_PDF_OUTLINE_FLAG_OPEN);
	g_free(ok);
	free(link);
	parents[level] = id;
	for (int l = level + 1; l <= 6; l++)
		parents[l] = -1;
}

static cairo_status_t write_out(void *closure, const unsigned char *data, unsigned int len)
{
	buf_put(closure, (const char *)data, len);
	return CAIRO_STATUS_SUCCESS;
}

/* SOURCE_DATE_EPOCH as cairo's ISO 8601 date, or "" (no date). */
static char *creation_date(void)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	if (!e || !*e)
		return xstrdup("");
	char *end;
	errno = 0;
	long long v = strtoll(e, &end, 10);
	if (*end || errno || v < 0)
		return xstrdup("");
	time_t t = (time_t)v;
	struct tm tm;
	if (!gmtime_r(&t, &tm))
		return xstrdup("");
	char s[32];
	strftime(s, sizeof s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(s);
}

static void fonts_setup(struct pdf *p)
{
	p->f_body = pango_font_description_from_string("DejaVu Serif 10");
	p->f_mono = pango_font_description_from_string("DejaVu Sans Mono 8.5");
	p->f_sans = pango_font_description_from_string("DejaVu Sans 9");
	p->f_small = pango_font_description_from_string("DejaVu Serif 8.5");
	p->f_caption = pango_font_description_from_string("DejaVu Sans 8.5");
	p->f_title = pango_font_description_from_string("DejaVu Sans Bold 19");
	p->f_lead = pango_font_description_from_string("DejaVu Sans 10.5");
	p->f_footer = pango_font_description_from_string("DejaVu Sans 7.5");
	static const char *const heads[] = {"DejaVu Sans Bold 16",   "DejaVu Sans Bold 13.5",
					    "DejaVu Sans Bold 11.5", "DejaVu Sans Bold 10.5",
					    "DejaVu Sans Bold 10",   "DejaVu Sans Bold Italic 10"};
	for (int i = 0; i < 6; i++)
		p->f_head[i] = pango_font_description_from_string(heads[i]);
}

static void pdf_free(struct pdf *p)
{
	for (size_t i = 0; i < p->nboxes; i++) {
		struct box *b = &p->boxes[i];
		para_unref(b->para);
		if (b->marker)
			g_object_unref(b->marker);
		free(b->dest);
		free(b->title);
		free(b->toc_dest);
		if (b->image)
			cairo_surface_destroy(b->image);
		if (b->svg)
			g_object_unref(b->svg);
		if (b->icon)
			g_object_unref(b->icon);
		if (b->row) {
			for (size_t j = 0; j < b->row->n; j++)
				para_unref(b->row->cells[j].p);
			free(b->row->cells);
			free(b->row);
		}
	}
	free(p->boxes);
	free(p->dests);
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->notes);
	for (size_t i = 0; i < p->nsources; i++)
		free(p->sources[i]);
	free(p->sources);
	free(p->base);
	free(p->raw_said);
	math_shapes_free(p);
	mono_free(p);
	PangoFontDescription **fs[] = {&p->f_body,  &p->f_mono,  &p->f_sans,  &p->f_small,
				       &p->f_caption, &p->f_title, &p->f_lead, &p->f_footer};
	for (size_t i = 0; i < ARRAY_LEN(fs); i++)
		if (*fs[i])
			pango_font_description_free(*fs[i]);
	for (int i = 0; i < 6; i++)
		if (p->f_head[i])
			pango_font_description_free(p->f_head[i]);
	if (p->pango)
		g_object_unref(p->pango);
	if (p->cr)
		cairo_destroy(p->cr);
	if (p->surface)
		cairo_surface_destroy(p->surface);
}

static bool render_unlocked(struct doc *doc, const struct pdf_meta *m, struct buf *out,
			    struct diag *d)
{
	struct pdf p = {.doc = doc, .m = m, .d = d};
	bool letter = m->paper && strcmp(m->paper, "letter") == 0;
	p.pw = letter ? 612 : 595.276;
	p.ph = letter ? 792 : 841.89;
	p.ml = p.mr = 66;
	p.mt = 62;
	p.mb = 66;
	p.tw = p.pw - p.ml - p.mr;
	struct buf file = BUF_INIT;
	p.surface = cairo_pdf_surface_create_for_stream(write_out, &file, p.pw, p.ph);
	char *date = creation_date();
	cairo_pdf_surface_set_metadata(p.surface, CAIRO_PDF_METADATA_CREATE_DATE, date);
	free(date);
	if (m->title && *m->title)
		cairo_pdf_surface_set_metadata(p.surface, CAIRO_PDF_METADATA_TITLE, m->title);
	if (m->author && *m->author)
		cairo_pdf_surface_set_metadata(p.surface, CAIRO_PDF_METADATA_AUTHOR, m->author);
	cairo_pdf_surface_set_metadata(p.surface, CAIRO_PDF_METADATA_CREATOR, "logdown");
	p.cr = cairo_create(p.surface);
	p.pango = font_context_new(p.cr, 72, CAIRO_ANTIALIAS_DEFAULT); /* sizes in points */
	fonts_setup(&p);
	math_shapes_setup(&p);

	if (absolute_url(m->base_url))
		p.base = xasprintf("%s%s%s/", m->base_url,
				   str_has_suffix(m->base_url, "/") ? "" : "/", m->slug ? m->slug : "");
	struct flow f = {.x = 0, .w = p.tw};
	title_block(&p, &f);
	if (m->toc)
		pdf_contents(&p, &f);
	size_t body_start = p.nboxes;
	cmark_node *root = doc_root(doc);
	pdf_blocks(&p, &f, cmark_node_first_child(root));
	if (p.nboxes > body_start)
		p.boxes[body_start].before = 0;
	pdf_references(&p, &f);
	cmark_node **defs = NULL;
	size_t ndefs = 0;
	for (cmark_node *n = cmark_node_first_child(root); n; n = cmark_node_next(n)) {
		if (cmark_node_get_type(n) == CMARK_NODE_FOOTNOTE_DEFINITION) {
			defs = xrealloc(defs, (ndefs + 1) * sizeof *defs);
			defs[ndefs++] = n;
		}
	}
	pdf_footnotes(&p, &f, defs, ndefs);
	free(defs);
	if (f.marker)
		g_object_unref(f.marker);
	f.marker = NULL;
	pdf_sources(&p, &f);

	for (size_t i = 0; i < p.nboxes; i++) {
		/* a name given twice (two {log} excerpts with one label)
		 * leads to its first place */
		if (p.boxes[i].dest && dest_known(&p, p.boxes[i].dest)) {
			free(p.boxes[i].dest);
			p.boxes[i].dest = NULL;
		}
		if (p.boxes[i].dest) {
			p.dests = xrealloc(p.dests, (p.ndests + 1) * sizeof *p.dests);
			p.dests[p.ndests++] = p.boxes[i].dest;
		}
	}
	size_t nplaces;
	int pages;
	struct place *pl = paginate(&p, &nplaces, &pages);
	layout_record(&p, pl, nplaces, pages);
	contents_pages(&p, pl, nplaces);
	int parents[7] = {-1, -1, -1, -1, -1, -1, -1};
	int page = 0;
	bool *dest_done = xcalloc(p.nboxes + 1, sizeof *dest_done);
	for (size_t k = 0; k < nplaces; k++) {
		while (pl[k].page > page) {
			footer(&p, page, pages);
			cairo_show_page(p.cr);
			page++;
		}
		struct box *b = &p.boxes[pl[k].box];
		/* a header row repeated: no second destination */
		char *dest = b->dest;
		if (dest_done[pl[k].box])
			b->dest = NULL;
		dest_done[pl[k].box] = true;
		if (b->outline)
			outline_add(&p, parents, b, page, pl[k].y);
		/* the space above a box of a callout after one of its own */
		const struct box *prev = k ? &p.boxes[pl[k - 1].box] : NULL;
		if (b->group && prev && prev->group == b->group && pl[k - 1].page == pl[k].page)
			callout_ground(&p, b, pl[k - 1].y + prev->h, pl[k].y - pl[k - 1].y - prev->h);
		draw_box(&p, b, pl[k].y);
		b->dest = dest;
	}
	free(dest_done);
	footer(&p, page, pages);
	free(pl);
	cairo_show_page(p.cr);
	cairo_surface_finish(p.surface);
	cairo_status_t st = cairo_status(p.cr);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(p.surface);
	bool ok = st == CAIRO_STATUS_SUCCESS;
	if (ok)
		buf_put(out, buf_data(&file), file.len);
	else
		diag_error(d, loc_line(doc_file(doc), 0), "cannot write the PDF: cairo: %s",
			   cairo_status_to_string(st));
	buf_free(&file);
	pdf_free(&p);
	return ok;
}

bool pdf_render(struct doc *doc, const struct pdf_meta *m, struct buf *out, struct diag *d)
{
	/* pango, cairo and the fonts under them: one document at a time */
	font_lock();
	bool ok = render_unlocked(doc, m, out, d);
	font_unlock();
	return ok;
}
