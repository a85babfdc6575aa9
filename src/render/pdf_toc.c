/* pdf_toc.c: the contents of a PDF, after its title block (m->toc):
 * "Contents", then a line a section of the first TOC_DEPTH depths, as
 * the page's contents list them: its number and its text, dot leaders,
 * and its page number at the right.  The lines are boxes like the
 * text's; their page numbers are drawn once the pages are known
 * (pdf.c), and are the same width whatever the number, so that nothing
 * moves.  The whole line is a link to the section's heading. */
#include "pdf_int.h"

#include <stdlib.h>
#include <string.h>

#include "render/toc.h"
#include "resolve/doc.h"
#include "resolve/section.h"

/* The room kept at the right of an entry for its page number. */
#define NUMBER_ROOM 36.0

static bool listed(const struct section *s)
{
	return s->depth >= 1 && s->depth <= TOC_DEPTH;
}

void pdf_contents(struct pdf *p, struct flow *f)
{
	const struct sections *ss = doc_sections(p->doc);
	size_t n = 0;
	for (size_t i = 0; i < ss->n; i++)
		n += listed(&ss->s[i]);
	if (n < TOC_MIN)
		return;
	struct rich r;
	rich_init(&r);
	rich_put(&r, "Contents", 8, 0, NULL);
	PangoLayout *hl = layout_new(p, p->f_head[1], f->w);
	pango_layout_set_text(hl, buf_data(&r.text), (int)r.text.len);
	pango_layout_set_attributes(hl, r.attrs);
	struct para *hp = para_new(hl, &r);
	rich_clear(&r);
	size_t first = p->nboxes;
	para_boxes(p, f, hp, 4, 0, true);
	if (p->nboxes > first)
		p->boxes[p->nboxes - 1].keep = true;
	for (size_t i = 0; i < ss->n; i++) {
		const struct section *s = &ss->s[i];
		if (!listed(s))
			continue;
		double indent = (s->depth - 1) * 14.0;
		rich_init(&r);
		r.in_link = 1; /* the line is the link: none inside it */
		if (*s->number) {
			rich_put(&r, s->number, strlen(s->number), 0, NULL);
			rich_put(&r, "  ", 2, 0, NULL);
		}
		rich_inlines(p, &r, cmark_node_first_child(s->node), 0);
		double w = f->w - indent - NUMBER_ROOM;
		PangoLayout *l = layout_new(p, s->depth == 1 ? p->f_sans : p->f_small, w);
		pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
		pango_layout_set_attributes(l, r.attrs);
		/* one line an entry: a long heading ends in an ellipsis */
		pango_layout_set_ellipsize(l, PANGO_ELLIPSIZE_END);
		pango_layout_set_height(l, -1);
		struct para *pa = para_new(l, &r);
		rich_clear(&r);
		size_t at = p->nboxes;
		para_boxes(p, f, pa, s->depth == 1 ? 5 : 2, indent, true);
		if (p->nboxes > at)
			p->boxes[at].toc_dest = xstrdup(s->id);
	}
	/* the body after it, a little apart */
	box_add(p, BOX_RULE, f, 14, 8);
}

void pdf_contents_draw(struct pdf *p, const struct box *b, double x, double y)
{
	cairo_t *cr = p->cr;
	const struct para *pa = b->para;
	double right = p->ml + b->w;
	double base = y + b->pad_top + pa->baseline[b->line] - pa->top[b->line];
	double end = x + pa->x[b->line];
	PangoRectangle lr;
	pango_layout_line_get_extents(pa->lines[b->line], NULL, &lr);
	end += lr.width / (double)PANGO_SCALE;
	double nw = 0;
	if (b->toc_page > 0) {
		char num[16];
		snprintf(num, sizeof num, "%d", b->toc_page);
		PangoLayout *l = layout_new(p, p->f_sans, 0);
		pango_layout_set_text(l, num, -1);
		nw = layout_width(l);
		PangoLayoutIter *it = pango_layout_get_iter(l);
		double lb = pango_layout_iter_get_baseline(it) / (double)PANGO_SCALE;
		pango_layout_iter_free(it);
		pdf_set_rgb(cr, C_TEXT);
		cairo_move_to(cr, right - nw, base - lb);
		pango_cairo_show_layout(cr, l);
		g_object_unref(l);
	}
	/* dot leaders on a grid shared by every line, so that they line
	 * up down the page */
	const double step = 4.5;
	pdf_set_rgb(cr, C_MUTED);
	cairo_new_path(cr); /* not from where the text left the point */
	for (double dx = p->ml + step * (double)(long)((end + 6 - p->ml) / step + 1);
	     dx < right - nw - 6; dx += step) {
		cairo_new_sub_path(cr);
		cairo_arc(cr, dx, base - 0.6, 0.55, 0, 2 * G_PI);
	}
	cairo_fill(cr);
	char *href = xasprintf("#%s", b->toc_dest);
	link_rect(p, href, x, y, right - x, b->h);
	free(href);
}
