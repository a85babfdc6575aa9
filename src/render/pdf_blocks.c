/* pdf_blocks.c: callouts and tabs (resolve/blocks.h) as boxes.  A
 * callout is its blocks on the light theme's tint, a bar at its left
 * and its title in the bar's colour after its icon; tabs are their
 * panels one after another, each under its title as a small heading. */
#include "pdf_int.h"

#include <stdlib.h>
#include <string.h>

#include "resolve/blocks.h"
#include "resolve/doc.h"

#define CALLOUT_PAD 6 /* points above the title and below the last line */

/* The icon in colour c, for librsvg; NULL if it cannot be read (or
 * librsvg cannot be loaded: the title goes without it). */
static RsvgHandle *icon_svg(const char *path, unsigned c)
{
	const char *why;
	const struct svglib *rsvg = svglib(&why);
	if (!rsvg)
		return NULL;
	char *svg = xasprintf("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\" "
			      "width=\"16\" height=\"16\"><path fill=\"#%06x\" fill-rule=\"evenodd\" "
			      "d=\"%s\"/></svg>",
			      c, path);
	RsvgHandle *h = rsvg->new_from_data((const guint8 *)svg, strlen(svg), NULL);
	free(svg);
	return h;
}

void callout_block(struct pdf *p, struct flow *f, cmark_node *n, const struct block *b)
{
	const struct callout_kind *k = b->callout;
	struct flow sub = *f;
	sub.x += 11;
	sub.w -= 19;
	sub.depth++;
	size_t first = p->nboxes;
	/* the title: the icon, then the word, bold in the callout's colour */
	struct rich r;
	rich_init(&r);
	rich_put(&r, k->title, strlen(k->title), S_BOLD, NULL);
	attr_colour(r.attrs, k->colour, 0, r.text.len);
	PangoLayout *l = layout_new(p, p->f_sans, sub.w - 14);
	pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
	pango_layout_set_attributes(l, r.attrs);
	struct para *pa = para_new(l, &r);
	rich_clear(&r);
	size_t t = para_boxes(p, &sub, pa, flow_space(f), 14, true);
	if (p->nboxes > t) {
		p->boxes[t].icon = icon_svg(k->icon, k->colour);
		p->boxes[t].icon_x = sub.x;
		p->boxes[t].pad_top = CALLOUT_PAD;
		p->boxes[t].h += CALLOUT_PAD;
		/* the first line of the text stays with the title */
		p->boxes[p->nboxes - 1].keep = true;
	}
	size_t body = p->nboxes;
	pdf_blocks(p, &sub, cmark_node_first_child(n));
	if (p->nboxes > body)
		p->boxes[body].before = 3;
	else if (p->nboxes > first)
		p->boxes[p->nboxes - 1].keep = false;
	int group = ++p->ncallouts;
	for (size_t i = first; i < p->nboxes; i++) {
		struct box *x = &p->boxes[i];
		x->tint = k->tint;
		x->bar = k->colour;
		x->tint_x = f->x;
		x->tint_w = f->w;
		x->group = group;
	}
	/* room under the last line of text (code and figures have theirs) */
	struct box *last = p->nboxes > first ? &p->boxes[p->nboxes - 1] : NULL;
	if (last && last->kind == BOX_LINE && !last->bg)
		last->h += CALLOUT_PAD;
}

/* A tab's title: a small bold heading, kept with its first line. */
static void tab_title(struct pdf *p, struct flow *f, cmark_node *title, bool first)
{
	struct rich r;
	rich_init(&r);
	rich_inlines(p, &r, cmark_node_first_child(title), S_BOLD);
	PangoLayout *l = layout_new(p, p->f_sans, f->w);
	pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
	pango_layout_set_attributes(l, r.attrs);
	struct para *pa = para_new(l, &r);
	rich_clear(&r);
	para_boxes(p, f, pa, first ? flow_space(f) + 2 : 12, 0, true);
}

void tabs_block(struct pdf *p, struct flow *f, cmark_node *n)
{
	bool first = true;
	for (cmark_node *tab = cmark_node_first_child(n); tab; tab = cmark_node_next(tab)) {
		cmark_node *title = cmark_node_first_child(tab);
		const struct block *tb = title ? doc_block(title) : NULL;
		if (tb && tb->kind == BLOCK_TAB_TITLE) {
			tab_title(p, f, title, first);
			title = cmark_node_next(title);
		}
		size_t before = p->nboxes;
		pdf_blocks(p, f, title);
		if (p->nboxes > before)
			p->boxes[before].before = 3;
		first = false;
	}
}
