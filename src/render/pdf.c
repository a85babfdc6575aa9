/* pdf.c: a report laid out as a PDF with pango and cairo (see pdf.h).
 *
 * Blocks become a list of boxes, each a fixed height: a line of a
 * paragraph, a line of code, a table row, a figure, a rule.  A box says
 * how much space goes above it (dropped at the top of a page) and
 * whether it must stay on the page of the box after it.  Pagination is
 * then a walk over the boxes that opens a new page when the next group
 * of boxes held together does not fit; drawing comes last, once the
 * number of pages is known. */
#include "render/pdf.h"

#include <cairo-pdf.h>
#include <cairo.h>
#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <errno.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <librsvg/rsvg.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw/chart.h"
#include "resolve/directive.h"
#include "resolve/doc.h"
#include "base/fsutil.h"

#define ELLIPSIS "\xE2\x80\xA6"

/* Colours, 0xRRGGBB. */
#define C_TEXT 0x1a1a1a
#define C_MUTED 0x666666
#define C_LINK 0x0b5cad
#define C_RULE 0xc8c8c8
#define C_CODE_BG 0xf4f4f2
#define C_HIT_BG 0xfff1c2
#define C_HEAD_BG 0xececec
#define C_QUOTE 0xb0b0b0
#define C_MISSING 0xb3261e
#define C_VALUE 0x1d3f66

/* Inline styles. */
enum {
	S_BOLD = 1,
	S_ITALIC = 2,
	S_CODE = 4,
	S_STRIKE = 8,
	S_LINK = 16,
	S_VALUE = 32,
	S_SUP = 64,
	S_MISSING = 128,
	S_MUTED = 256,
};

#define MAX_QUOTE 8
#define MAX_DEPTH 64 /* nesting the layout follows; deeper blocks stay at that indent */

struct link {
	int start, end; /* bytes of the layout's text */
	char *href;
};

/* Text with its styles and links, as it is built. */
struct rich {
	struct buf text;
	PangoAttrList *attrs;
	struct link *links;
	size_t nlinks;
	int in_link; /* links do not nest */
	int depth;   /* inline nesting followed so far */
};

/* A laid-out block of text, shared by the boxes of its lines. */
struct para {
	PangoLayout *layout;
	PangoLayoutLine **lines;
	double *top, *height, *baseline; /* per line, in points, from the layout's top */
	double *x;                       /* per line: its left (alignment, indent) */
	int nlines;
	struct link *links;
	size_t nlinks;
	int refs;
};

enum box_kind { BOX_LINE, BOX_RULE, BOX_IMAGE, BOX_SVG, BOX_CHART, BOX_ROW };

struct cell {
	struct para *p;
	double x, w; /* from the row's left, the cell's box */
	bool right;
};

struct row {
	struct cell *cells;
	size_t n;
	double w;      /* the table's width */
	double pad;
	bool header;
};

struct box {
	enum box_kind kind;
	double h;
	double before; /* space above, dropped at the top of a page */
	double x, w;   /* from the left margin */
	bool keep;     /* stays on the page of the next box */
	int quote;     /* block quote bars at quote_x[] */
	double quote_x[MAX_QUOTE];
	unsigned bg;   /* background, 0 for none */
	double bg_x, bg_w;
	double pad_top;
	/* BOX_LINE */
	struct para *para;
	int line;
	PangoLayout *marker;  /* a list item's bullet or number */
	double marker_x;
	bool wrapped;         /* code: a continuation, marked at gutter_x */
	double gutter_x;
	/* a named destination ("fig-loss") and a bookmark */
	char *dest;
	int outline;          /* heading level; 0: not in the outline */
	char *title;
	/* BOX_IMAGE */
	cairo_surface_t *image;
	/* BOX_SVG: drawn by librsvg, as vectors */
	RsvgHandle *svg;
	/* BOX_CHART */
	const struct chart *chart;
	double scale;
	struct loc at;
	/* BOX_ROW */
	struct row *row;
	long head;            /* the header row's box to repeat; -1 */
	bool is_head;
};

struct place {
	size_t box;
	int page;
	double y;
};

/* Where blocks go: indentation, quote bars, list state. */
struct flow {
	double x, w;
	int quote;
	double quote_x[MAX_QUOTE];
	bool tight;              /* inside a tight list item */
	PangoLayout *marker;     /* given to the next line box */
	double marker_x;
	int depth;
};

struct pdf {
	struct doc *doc;
	const struct pdf_meta *m;
	struct diag *d;
	cairo_surface_t *surface;
	cairo_t *cr;
	PangoContext *pango;
	double pw, ph;           /* page */
	double ml, mr, mt, mb;   /* margins */
	double tw;               /* text width */
	PangoFontDescription *f_body, *f_mono, *f_sans, *f_small, *f_caption, *f_title, *f_lead,
		*f_head[6], *f_footer;
	struct box *boxes;
	size_t nboxes, cap;
	/* names defined by dests, for internal links */
	char **dests;
	size_t ndests;
	/* footnotes: labels in the order of their first reference */
	char **notes;
	size_t nnotes;
};

/* --- text --- */

static void set_rgb(cairo_t *cr, unsigned c)
{
	cairo_set_source_rgb(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0,
			     (c & 255) / 255.0);
}

static void attr_add(PangoAttrList *l, PangoAttribute *a, size_t start, size_t end)
{
	a->start_index = (guint)start;
	a->end_index = (guint)end;
	pango_attr_list_insert(l, a);
}

static guint16 c16(unsigned c, int shift)
{
	return (guint16)(((c >> shift) & 255) * 257);
}

static void attr_colour(PangoAttrList *l, unsigned c, size_t a, size_t b)
{
	attr_add(l, pango_attr_foreground_new(c16(c, 16), c16(c, 8), c16(c, 0)), a, b);
}

/* Appends s (valid UTF-8 made of it) in a style; href makes it a link. */
static void rich_put(struct rich *r, const char *s, size_t n, unsigned style, const char *href)
{
	if (!n)
		return;
	size_t a = r->text.len;
	if (g_utf8_validate(s, (gssize)n, NULL)) {
		buf_put(&r->text, s, n);
	} else {
		gchar *ok = g_utf8_make_valid(s, (gssize)n);
		buf_puts(&r->text, ok);
		g_free(ok);
	}
	size_t b = r->text.len;
	if (style & S_BOLD)
		attr_add(r->attrs, pango_attr_weight_new(PANGO_WEIGHT_BOLD), a, b);
	if (style & S_ITALIC)
		attr_add(r->attrs, pango_attr_style_new(PANGO_STYLE_ITALIC), a, b);
	if (style & S_CODE) {
		attr_add(r->attrs, pango_attr_family_new("DejaVu Sans Mono"), a, b);
		attr_add(r->attrs, pango_attr_scale_new(0.88), a, b);
		attr_add(r->attrs, pango_attr_background_new(0xf000, 0xf000, 0xee00), a, b);
	}
	if (style & S_STRIKE)
		attr_add(r->attrs, pango_attr_strikethrough_new(TRUE), a, b);
	if (style & S_SUP) {
		attr_add(r->attrs, pango_attr_rise_new(4 * PANGO_SCALE), a, b);
		attr_add(r->attrs, pango_attr_scale_new(0.7), a, b);
	}
	if (style & S_MISSING) {
		attr_colour(r->attrs, C_MISSING, a, b);
		attr_add(r->attrs, pango_attr_weight_new(PANGO_WEIGHT_SEMIBOLD), a, b);
	} else if (style & S_MUTED) {
		attr_colour(r->attrs, C_MUTED, a, b);
	}
	if (href && *href) {
		/* a value links to its log line quietly, as the print
		 * stylesheet shows it: a darker ink, no underline */
		if (!(style & S_VALUE)) {
			attr_colour(r->attrs, C_LINK, a, b);
			attr_add(r->attrs, pango_attr_underline_new(PANGO_UNDERLINE_SINGLE), a, b);
		} else if (!(style & S_MISSING)) {
			attr_colour(r->attrs, C_VALUE, a, b);
		}
		/* one link over adjacent pieces with the same target */
		struct link *last = r->nlinks ? &r->links[r->nlinks - 1] : NULL;
		if (last && last->end == (int)a && strcmp(last->href, href) == 0) {
			last->end = (int)b;
		} else {
			r->links = xrealloc(r->links, (r->nlinks + 1) * sizeof *r->links);
			r->links[r->nlinks++] = (struct link){(int)a, (int)b, xstrdup(href)};
		}
	}
}

static void rich_init(struct rich *r)
{
	memset(r, 0, sizeof *r);
	r->attrs = pango_attr_list_new();
	/* no hyphen inserted where a word is broken (layout_new()) */
	pango_attr_list_insert(r->attrs, pango_attr_insert_hyphens_new(FALSE));
}

static void rich_clear(struct rich *r)
{
	buf_free(&r->text);
	if (r->attrs)
		pango_attr_list_unref(r->attrs);
	for (size_t i = 0; i < r->nlinks; i++)
		free(r->links[i].href);
	free(r->links);
	memset(r, 0, sizeof *r);
}

/* Pieces of a directive's text (a caption, a cell, a value); @fig-
 * and @tbl- references in its plain text become links. */
static void rich_pieces(struct pdf *p, struct rich *r, const struct directive_text *t,
			unsigned style, bool link)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct directive_piece *pc = &t->p[i];
		unsigned st = style | (pc->value ? S_VALUE : 0) | (pc->missing ? S_MISSING : 0);
		const char *href = link && !r->in_link ? pc->href : NULL;
		if (pc->value || pc->href) {
			rich_put(r, pc->text, strlen(pc->text), st, href);
			continue;
		}
		/* plain text: references inside it */
		const char *s = pc->text;
		while (*s) {
			const char *at = strstr(s, "@");
			while (at && !(str_has_prefix(at + 1, "fig-") || str_has_prefix(at + 1, "tbl-")))
				at = strstr(at + 1, "@");
			if (!at) {
				rich_put(r, s, strlen(s), st, NULL);
				break;
			}
			rich_put(r, s, (size_t)(at - s), st, NULL);
			const char *q = at + 1;
			while (*q && (g_ascii_isalnum(*q) || *q == '-' || *q == '_'))
				q++;
			while (q > at + 5 && (q[-1] == '-' || q[-1] == '_'))
				q--;
			char *name = xstrndup(at + 1, (size_t)(q - at - 1));
			const char *kind;
			int number;
			if (doc_label(p->doc, name, &kind, &number)) {
				char *text = xasprintf("%s %d", kind, number);
				char *target = xasprintf("#%s", name);
				rich_put(r, text, strlen(text), st, r->in_link ? NULL : target);
				free(text);
				free(target);
			} else {
				rich_put(r, at, (size_t)(q - at), st, NULL);
			}
			free(name);
			s = q;
		}
	}
}

/* Text of a cmark literal with its placeholders shown as the HTML
 * showed them. */
static void rich_literal(struct pdf *p, struct rich *r, const char *s, unsigned style)
{
	size_t len = strlen(s), at, mlen, index;
	while (doc_next_value(s, len, &at, &mlen, &index)) {
		rich_put(r, s, at, style, NULL);
		const struct directive_text *v = doc_value(p->doc, index);
		if (v)
			rich_pieces(p, r, v, style, true);
		else
			rich_put(r, "\xE2\x80\x94", 3, style | S_MISSING, NULL);
		s += at + mlen;
		len -= at + mlen;
	}
	rich_put(r, s, len, style, NULL);
}

/* A link destination or image source with its placeholders as text;
 * empty when that makes a URL that would run script. */
static char *resolve_url(struct pdf *p, const char *s)
{
	struct buf out = BUF_INIT;
	size_t len = strlen(s), at, mlen, index;
	while (doc_next_value(s, len, &at, &mlen, &index)) {
		buf_put(&out, s, at);
		const struct directive_text *v = doc_value(p->doc, index);
		for (size_t i = 0; v && i < v->n; i++)
			buf_puts(&out, v->p[i].text);
		s += at + mlen;
		len -= at + mlen;
	}
	buf_put(&out, s, len);
	/* a value that made the URL a script one: no link, as on the page */
	if (url_is_dangerous(buf_data(&out), out.len))
		buf_clear(&out);
	return buf_detach(&out);
}

static size_t footnote_number(struct pdf *p, const char *label)
{
	for (size_t i = 0; i < p->nnotes; i++)
		if (strcmp(p->notes[i], label) == 0)
			return i + 1;
	p->notes = xrealloc(p->notes, (p->nnotes + 1) * sizeof *p->notes);
	p->notes[p->nnotes++] = xstrdup(label);
	return p->nnotes;
}

static void rich_inlines(struct pdf *p, struct rich *r, cmark_node *first, unsigned style);

static void rich_inline(struct pdf *p, struct rich *r, cmark_node *n, unsigned style)
{
	const char *ts = cmark_node_get_type_string(n);
	switch (cmark_node_get_type(n)) {
	case CMARK_NODE_TEXT:
		rich_literal(p, r, cmark_node_get_literal(n), style);
		return;
	case CMARK_NODE_SOFTBREAK:
		rich_put(r, " ", 1, style, NULL);
		return;
	case CMARK_NODE_LINEBREAK:
		rich_put(r, "\xE2\x80\xA8", 3, style, NULL); /* U+2028: a line break */
		return;
	case CMARK_NODE_CODE:
		rich_put(r, cmark_node_get_literal(n), strlen(cmark_node_get_literal(n)),
			 style | S_CODE, NULL);
		return;
	case CMARK_NODE_HTML_INLINE: {
		const char *h = cmark_node_get_literal(n);
		if (g_ascii_strncasecmp(h, "<br", 3) == 0)
			rich_put(r, "\xE2\x80\xA8", 3, style, NULL);
		return;
	}
	case CMARK_NODE_EMPH:
		rich_inlines(p, r, cmark_node_first_child(n), style | S_ITALIC);
		return;
	case CMARK_NODE_STRONG:
		rich_inlines(p, r, cmark_node_first_child(n), style | S_BOLD);
		return;
	case CMARK_NODE_LINK: {
		char *url = resolve_url(p, cmark_node_get_url(n));
		size_t a = r->text.len, nl = r->nlinks;
		r->in_link++;
		rich_inlines(p, r, cmark_node_first_child(n), style | S_LINK);
		r->in_link--;
		if (*url && r->text.len > a && !r->in_link) {
			/* the link's text, whatever styles it has inside */
			attr_colour(r->attrs, C_LINK, a, r->text.len);
			attr_add(r->attrs, pango_attr_underline_new(PANGO_UNDERLINE_SINGLE), a,
				 r->text.len);
			for (size_t i = nl; i < r->nlinks; i++)
				free(r->links[i].href);
			r->nlinks = nl;
			r->links = xrealloc(r->links, (r->nlinks + 1) * sizeof *r->links);
			r->links[r->nlinks++] = (struct link){(int)a, (int)r->text.len, url};
			url = NULL;
		}
		free(url);
		return;
	}
	case CMARK_NODE_IMAGE: {
		/* an image inside running text: its description */
		struct rich alt;
		rich_init(&alt);
		rich_inlines(p, &alt, cmark_node_first_child(n), 0);
		char *t = xasprintf("[%s]", buf_data(&alt.text));
		rich_put(r, t, strlen(t), style | S_ITALIC | S_MUTED, NULL);
		free(t);
		rich_clear(&alt);
		return;
	}
	case CMARK_NODE_FOOTNOTE_REFERENCE: {
		const char *label = cmark_node_get_literal(n);
		size_t k = footnote_number(p, label ? label : "");
		char *t = xasprintf("%zu", k);
		char *href = xasprintf("#ld-fn-%zu", k);
		rich_put(r, t, strlen(t), style | S_SUP, r->in_link ? NULL : href);
		free(t);
		free(href);
		return;
	}
	default:
		break;
	}
	if (ts && strcmp(ts, "strikethrough") == 0) {
		rich_inlines(p, r, cmark_node_first_child(n), style | S_STRIKE);
		return;
	}
	/* anything else: its text */
	if (cmark_node_first_child(n))
		rich_inlines(p, r, cmark_node_first_child(n), style);
	else if (cmark_node_get_literal(n))
		rich_literal(p, r, cmark_node_get_literal(n), style);
}

/* The text of everything under n, without recursion: for nesting too
 * deep to follow (thousands of brackets or quote marks). */
static void rich_flat(struct pdf *p, struct rich *r, cmark_node *n, unsigned style)
{
	cmark_iter *it = cmark_iter_new(n);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *x = cmark_iter_get_node(it);
		cmark_node_type t = cmark_node_get_type(x);
		if (ev == CMARK_EVENT_ENTER &&
		    (t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE || t == CMARK_NODE_CODE_BLOCK))
			rich_literal(p, r, cmark_node_get_literal(x), style);
		else if ((ev == CMARK_EVENT_ENTER && (t == CMARK_NODE_SOFTBREAK ||
						       t == CMARK_NODE_LINEBREAK)) ||
			 (ev == CMARK_EVENT_EXIT && (cmark_node_get_type(x) & CMARK_NODE_TYPE_BLOCK) &&
			  r->text.len && buf_data(&r->text)[r->text.len - 1] != ' '))
			rich_put(r, " ", 1, style, NULL);
	}
	cmark_iter_free(it);
}

static void rich_inlines(struct pdf *p, struct rich *r, cmark_node *first, unsigned style)
{
	r->depth++;
	for (cmark_node *n = first; n; n = cmark_node_next(n)) {
		if (r->depth > MAX_DEPTH)
			rich_flat(p, r, n, style);
		else
			rich_inline(p, r, n, style);
	}
	r->depth--;
}

/* --- paragraphs into boxes --- */

static PangoLayout *layout_new(struct pdf *p, const PangoFontDescription *f, double width)
{
	PangoLayout *l = pango_layout_new(p->pango);
	pango_layout_set_font_description(l, f);
	/* a word broken at the margin (a URL, a path, code) gets no hyphen
	 * that is not its own: what is copied is what was written */
	PangoAttrList *al = pango_attr_list_new();
	pango_attr_list_insert(al, pango_attr_insert_hyphens_new(FALSE));
	pango_layout_set_attributes(l, al);
	pango_attr_list_unref(al);
	if (width > 0) {
		pango_layout_set_width(l, (int)(width * PANGO_SCALE));
		pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
	}
	return l;
}

/* A layout's lines and their metrics, kept for drawing line by line.
 * Takes over the layout and r's links. */
static struct para *para_new(PangoLayout *l, struct rich *r)
{
	struct para *pa = xcalloc(1, sizeof *pa);
	pa->layout = l;
	GSList *lines = pango_layout_get_lines_readonly(l);
	pa->nlines = (int)g_slist_length(lines);
	pa->lines = xcalloc((size_t)pa->nlines + 1, sizeof *pa->lines);
	pa->top = xcalloc((size_t)pa->nlines + 1, sizeof *pa->top);
	pa->height = xcalloc((size_t)pa->nlines + 1, sizeof *pa->height);
	pa->baseline = xcalloc((size_t)pa->nlines + 1, sizeof *pa->baseline);
	pa->x = xcalloc((size_t)pa->nlines + 1, sizeof *pa->x);
	PangoLayoutIter *it = pango_layout_get_iter(l);
	int i = 0;
	do {
		PangoRectangle lr;
		pango_layout_iter_get_line_extents(it, NULL, &lr);
		int y0, y1;
		pango_layout_iter_get_line_yrange(it, &y0, &y1);
		pa->lines[i] = pango_layout_iter_get_line_readonly(it);
		pa->top[i] = y0 / (double)PANGO_SCALE;
		pa->x[i] = lr.x / (double)PANGO_SCALE;
		pa->height[i] = (y1 - y0) / (double)PANGO_SCALE;
		pa->baseline[i] = pango_layout_iter_get_baseline(it) / (double)PANGO_SCALE;
		i++;
	} while (i < pa->nlines && pango_layout_iter_next_line(it));
	pango_layout_iter_free(it);
	if (r) {
		pa->links = r->links;
		pa->nlinks = r->nlinks;
		r->links = NULL;
		r->nlinks = 0;
	}
	pa->refs = 0;
	return pa;
}

static void para_unref(struct para *pa)
{
	if (!pa || --pa->refs > 0)
		return;
	g_object_unref(pa->layout);
	free(pa->lines);
	free(pa->top);
	free(pa->height);
	free(pa->baseline);
	free(pa->x);
	for (size_t i = 0; i < pa->nlinks; i++)
		free(pa->links[i].href);
	free(pa->links);
	free(pa);
}

static struct box *box_add(struct pdf *p, enum box_kind kind, const struct flow *f, double h,
			   double before)
{
	if (p->nboxes == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 256;
		p->boxes = xrealloc(p->boxes, p->cap * sizeof *p->boxes);
	}
	struct box *b = &p->boxes[p->nboxes++];
	memset(b, 0, sizeof *b);
	b->kind = kind;
	b->h = h;
	b->before = before;
	b->x = f->x;
	b->w = f->w;
	b->quote = f->quote < MAX_QUOTE ? f->quote : MAX_QUOTE;
	memcpy(b->quote_x, f->quote_x, sizeof b->quote_x);
	b->head = -1;
	return b;
}

/* The marker waiting for the first line of a list item. */
static void take_marker(struct flow *f, struct box *b)
{
	if (!f->marker)
		return;
	b->marker = f->marker;
	b->marker_x = f->marker_x;
	f->marker = NULL;
}

/* Boxes for every line of pa: the first two and the last two stay
 * together (no orphan, no widow); all of them with keep_all.  Returns
 * the index of the first box. */
static size_t para_boxes(struct pdf *p, struct flow *f, struct para *pa, double before,
			 double x_off, bool keep_all)
{
	size_t first = p->nboxes;
	for (int i = 0; i < pa->nlines; i++) {
		struct box *b = box_add(p, BOX_LINE, f, pa->height[i], i == 0 ? before : 0);
		b->x += x_off;
		b->para = pa;
		b->line = i;
		pa->refs++;
		b->keep = keep_all || (i == 0 && pa->nlines >= 2) || i == pa->nlines - 2;
		if (i == 0)
			take_marker(f, b);
	}
	if (pa->nlines == 0)
		para_unref(pa);
	return first;
}

/* The space above a block: less inside a tight list. */
static double space(const struct flow *f)
{
	return f->tight ? 2 : 7;
}

static void paragraph(struct pdf *p, struct flow *f, cmark_node *n,
		      const PangoFontDescription *font, unsigned style, double before,
		      bool keep_all)
{
	struct rich r;
	rich_init(&r);
	rich_inlines(p, &r, cmark_node_first_child(n), style);
	PangoLayout *l = layout_new(p, font, f->w);
	pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
	pango_layout_set_attributes(l, r.attrs);
	pango_layout_set_line_spacing(l, 1.35f);
	struct para *pa = para_new(l, &r);
	if (pa->nlines == 0 || r.text.len == 0) {
		pa->refs = 1;
		para_unref(pa);
		rich_clear(&r);
		return;
	}
	para_boxes(p, f, pa, before, 0, keep_all);
	rich_clear(&r);
}

/* --- headings, rules, code --- */

static void heading(struct pdf *p, struct flow *f, cmark_node *n)
{
	int level = cmark_node_get_heading_level(n);
	if (level < 1)
		level = 1;
	if (level > 6)
		level = 6;
	static const double before[] = {20, 16, 13, 11, 10, 10};
	struct rich r;
	rich_init(&r);
	rich_inlines(p, &r, cmark_node_first_child(n), 0);
	char *title = xstrdup(buf_data(&r.text));
	PangoLayout *l = layout_new(p, p->f_head[level - 1], f->w);
	pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
	pango_layout_set_attributes(l, r.attrs);
	pango_layout_set_line_spacing(l, 1.2f);
	struct para *pa = para_new(l, &r);
	rich_clear(&r);
	size_t first = p->nboxes;
	para_boxes(p, f, pa, before[level - 1], 0, true);
	if (p->nboxes > first) {
		p->boxes[first].outline = level;
		p->boxes[first].title = title;
		/* a little space under it, kept with what follows */
		p->boxes[p->nboxes - 1].keep = true;
	} else {
		free(title);
	}
}

/* One line of code or a log as boxes: wrapped to the width, each
 * continuation marked.  indent: where continuations start (the hanging
 * indent); the first `lead` bytes (a line number, indentation) stay on
 * the first line with the character after them; styles come in r. */
static void code_line(struct pdf *p, struct flow *f, struct rich *r, size_t lead, double indent,
		      unsigned bg, double before, double pad_top, double pad_bottom, bool keep_first)
{
	double inner = f->w - 12;
	/* no break between the line number or the indentation and the
	 * first character of the text: a long first word wraps by
	 * characters instead of leaving the first line empty */
	const char *t = buf_data(&r->text);
	if (lead < r->text.len) {
		lead += (size_t)(g_utf8_next_char(t + lead) - (t + lead));
		attr_add(r->attrs, pango_attr_allow_breaks_new(FALSE), 0, lead);
	}
	PangoLayout *l = layout_new(p, p->f_mono, inner);
	pango_layout_set_text(l, buf_data(&r->text), (int)r->text.len);
	pango_layout_set_attributes(l, r->attrs);
	pango_layout_set_indent(l, (int)(-indent * PANGO_SCALE));
	struct para *pa = para_new(l, r);
	for (int i = 0; i < pa->nlines; i++) {
		double h = pa->height[i] + (i == 0 ? pad_top : 0) +
			   (i == pa->nlines - 1 ? pad_bottom : 0);
		struct box *b = box_add(p, BOX_LINE, f, h, i == 0 ? before : 0);
		b->x += 6;
		b->para = pa;
		b->line = i;
		b->pad_top = i == 0 ? pad_top : 0;
		b->bg = bg;
		b->bg_x = f->x;
		b->bg_w = f->w;
		b->keep = i < pa->nlines - 1 || keep_first;
		pa->refs++;
		if (i == 0)
			take_marker(f, b);
		if (i > 0) {
			b->wrapped = true;
			b->gutter_x = indent - 8;
		}
	}
	if (pa->nlines == 0) {
		pa->refs = 1;
		para_unref(pa);
	}
}

static void code_block(struct pdf *p, struct flow *f, cmark_node *n)
{
	const char *s = cmark_node_get_literal(n);
	size_t len = strlen(s);
	if (len && s[len - 1] == '\n')
		len--;
	size_t first = p->nboxes;
	const char *end = s + len;
	int k = 0;
	double em = 8.5 * 0.6; /* a DejaVu Sans Mono cell at 8.5 pt */
	while (s <= end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		struct rich r;
		rich_init(&r);
		rich_put(&r, s, (size_t)(e - s), 0, NULL);
		if (!r.text.len)
			buf_puts(&r.text, " ");
		code_line(p, f, &r, strspn(buf_data(&r.text), " \t"), 2 * em, C_CODE_BG,
			  k == 0 ? space(f) : 0, k == 0 ? 5 : 0, nl ? 0 : 5, false);
		rich_clear(&r);
		k++;
		if (!nl)
			break;
		s = nl + 1;
	}
	/* the first two and the last two lines stay together */
	size_t last = p->nboxes;
	if (last > first + 1)
		p->boxes[first].keep = true;
	if (last >= first + 2)
		p->boxes[last - 2].keep = true;
}

static void rule(struct pdf *p, struct flow *f)
{
	box_add(p, BOX_RULE, f, 12, 6);
}

/* --- figures: charts, images --- */

static void caption_box(struct pdf *p, struct flow *f, const struct directive_result *res,
			const char *kind, double before)
{
	if (!res->has_caption && res->number <= 0)
		return;
	struct rich r;
	rich_init(&r);
	if (res->number > 0) {
		char *t = xasprintf(res->has_caption ? "%s %d: " : "%s %d", kind, res->number);
		rich_put(&r, t, strlen(t), S_BOLD, NULL);
		free(t);
	}
	rich_pieces(p, &r, &res->caption, 0, true);
	PangoLayout *l = layout_new(p, p->f_caption, f->w);
	pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
	pango_layout_set_attributes(l, r.attrs);
	pango_layout_set_line_spacing(l, 1.3f);
	struct para *pa = para_new(l, &r);
	rich_clear(&r);
	para_boxes(p, f, pa, before, 0, true);
}

static void chart_block(struct pdf *p, struct flow *f, const struct directive_result *res,
			cmark_node *n)
{
	const struct chart *c = &res->chart;
	double cw = (c->width ? c->width : 720) * 0.75, ch = (c->height ? c->height : 405) * 0.75;
	double body = p->ph - p->mt - p->mb;
	double scale = 0.75;
	if (cw > f->w)
		scale *= f->w / cw, ch *= f->w / cw, cw = f->w;
	if (ch > body * 0.8) {
		scale *= body * 0.8 / ch;
		cw *= body * 0.8 / ch;
		ch = body * 0.8;
	}
	struct box *b = box_add(p, BOX_CHART, f, ch, 10);
	b->chart = c;
	b->scale = scale;
	b->x += (f->w - cw) / 2;
	b->w = cw;
	b->keep = true;
	b->at = loc_line(doc_file(p->doc), doc_line0(p->doc) + cmark_node_get_start_line(n));
	if (res->label)
		b->dest = xstrdup(res->label);
	take_marker(f, b);
	size_t before = p->nboxes;
	caption_box(p, f, res, "Figure", 4);
	if (p->nboxes == before)
		b->keep = false;
	else
		p->boxes[p->nboxes - 1].keep = false;
}

/* Is n a paragraph holding one image and nothing else? */
static cmark_node *lone_image(cmark_node *n)
{
	cmark_node *c = cmark_node_first_child(n);
	if (!c || cmark_node_get_type(c) != CMARK_NODE_IMAGE)
		return NULL;
	for (cmark_node *x = cmark_node_next(c); x; x = cmark_node_next(x)) {
		if (cmark_node_get_type(x) != CMARK_NODE_SOFTBREAK &&
		    !(cmark_node_get_type(x) == CMARK_NODE_TEXT &&
		      strspn(cmark_node_get_literal(x), " \t") == strlen(cmark_node_get_literal(x))))
			return NULL;
	}
	return c;
}

/* An SVG image and its size in CSS pixels; NULL with *why. */
static RsvgHandle *svg_load(const char *path, double *w, double *h, const char **why)
{
	GError *err = NULL;
	RsvgHandle *svg = rsvg_handle_new_from_file(path, &err);
	if (!svg) {
		g_clear_error(&err);
		*why = "cannot be read as SVG: the PDF shows its description";
		return NULL;
	}
	rsvg_handle_set_dpi(svg, 96);
	if (!rsvg_handle_get_intrinsic_size_in_pixels(svg, w, h)) {
		/* only a viewBox: its size */
		gboolean has_w, has_h, has_vb;
		RsvgLength lw, lh;
		RsvgRectangle vb;
		rsvg_handle_get_intrinsic_dimensions(svg, &has_w, &lw, &has_h, &lh, &has_vb, &vb);
		*w = has_vb ? vb.width : 0;
		*h = has_vb ? vb.height : 0;
	}
	if (!(*w > 0 && *h > 0 && *w < 1e5 && *h < 1e5)) {
		g_object_unref(svg);
		*why = "has no size (width and height, or a viewBox): the PDF shows its description";
		return NULL;
	}
	return svg;
}

/* A PNG, JPEG, GIF, ... as a cairo image; NULL with *why. */
static cairo_surface_t *image_load(const char *path, const char **why)
{
	if (g_str_has_suffix(path, ".png") || g_str_has_suffix(path, ".PNG")) {
		cairo_surface_t *s = cairo_image_surface_create_from_png(path);
		if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS)
			return s;
		cairo_surface_destroy(s);
	}
	GError *err = NULL;
	GdkPixbuf *pb = gdk_pixbuf_new_from_file(path, &err);
	if (!pb) {
		g_clear_error(&err);
		*why = "cannot be read as an image: the PDF shows its description";
		return NULL;
	}
	int w = gdk_pixbuf_get_width(pb), h = gdk_pixbuf_get_height(pb);
	int n = gdk_pixbuf_get_n_channels(pb), stride = gdk_pixbuf_get_rowstride(pb);
	bool alpha = gdk_pixbuf_get_has_alpha(pb);
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS || n < 3) {
		cairo_surface_destroy(s);
		g_object_unref(pb);
		*why = "is too large or not in colour: the PDF shows its description";
		return NULL;
	}
	cairo_surface_flush(s);
	const guchar *src = gdk_pixbuf_read_pixels(pb);
	unsigned char *dst = cairo_image_surface_get_data(s);
	int dstride = cairo_image_surface_get_stride(s);
	for (int y = 0; y < h; y++) {
		const guchar *a = src + (size_t)y * (size_t)stride;
		uint32_t *d = (uint32_t *)(void *)(dst + (size_t)y * (size_t)dstride);
		for (int x = 0; x < w; x++, a += n) {
			/* cairo wants premultiplied native-endian ARGB */
			unsigned al = alpha ? a[3] : 255;
			unsigned r = a[0] * al / 255, g = a[1] * al / 255, b = a[2] * al / 255;
			d[x] = (uint32_t)al << 24 | r << 16 | g << 8 | b;
		}
	}
	cairo_surface_mark_dirty(s);
	g_object_unref(pb);
	return s;
}

static void image_block(struct pdf *p, struct flow *f, cmark_node *img)
{
	char *src = resolve_url(p, cmark_node_get_url(img));
	struct loc at = loc_line(doc_file(p->doc),
				 doc_line0(p->doc) + cmark_node_get_start_line(img));
	at.col = cmark_node_get_start_column(img);
	struct rich alt;
	rich_init(&alt);
	rich_inlines(p, &alt, cmark_node_first_child(img), 0);
	cairo_surface_t *s = NULL;
	RsvgHandle *svg = NULL;
	double sw = 0, sh = 0;
	const char *why = NULL;
	/* the page's check (site.c) reported a missing image and one
	 * leading outside the project already, but for a source a value
	 * makes */
	const char *url = cmark_node_get_url(img);
	size_t vat, vlen, vindex;
	bool page_said = false,
	     page_checked = !doc_next_value(url, strlen(url), &vat, &vlen, &vindex);
	bool remote = strstr(src, "://") != NULL || str_has_prefix(src, "data:");
	char *file = doc_url_file(src);
	bool outside = file[0] == '/' || strstr(file, "..") != NULL;
	if (remote) {
		why = "is not a local file: the PDF shows its description";
	} else if (outside) {
		why = "is outside the report's folder: the PDF shows its description";
	} else {
		char *path = path_join(p->m->dir, file);
		char *real = path_exists(path) ? path_real(path) : NULL;
		if (!path_exists(path)) {
			why = "does not exist: the PDF shows its description";
			page_said = page_checked;
		} else if (!real || (p->m->root && !path_under(real, p->m->root))) {
			why = "leads outside the project: the PDF shows its description";
			page_said = page_checked;
		} else if (g_str_has_suffix(path, ".svg") || g_str_has_suffix(path, ".SVG")) {
			svg = svg_load(path, &sw, &sh, &why);
		} else {
			s = image_load(path, &why);
		}
		free(real);
		free(path);
	}
	free(file);
	if (why && !page_said)
		diag_warning(p->d, at, "image '%s' %s", src, why);
	if (s || svg) {
		double iw = s ? cairo_image_surface_get_width(s) * 0.75 : sw * 0.75,
		       ih = s ? cairo_image_surface_get_height(s) * 0.75 : sh * 0.75;
		double body = p->ph - p->mt - p->mb;
		double k = 1;
		if (iw * k > f->w)
			k = f->w / iw;
		if (ih * k > body * 0.8)
			k = body * 0.8 / ih;
		struct box *b = box_add(p, s ? BOX_IMAGE : BOX_SVG, f, ih * k, 8);
		b->image = s;
		b->svg = svg;
		b->at = at;
		b->x += (f->w - iw * k) / 2;
		b->w = iw * k;
		take_marker(f, b);
	} else {
		/* the description in a frame, where the image would be */
		char *t = xasprintf("[image: %s] %s", alt.text.len ? buf_data(&alt.text) : "", src);
		struct rich r;
		rich_init(&r);
		rich_put(&r, t, strlen(t), S_ITALIC | S_MUTED, NULL);
		free(t);
		PangoLayout *l = layout_new(p, p->f_caption, f->w - 12);
		pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
		pango_layout_set_attributes(l, r.attrs);
		struct para *pa = para_new(l, &r);
		rich_clear(&r);
		for (int i = 0; i < pa->nlines; i++) {
			struct box *b = box_add(p, BOX_LINE, f, pa->height[i] + (i == 0 ? 4 : 0) +
							       (i == pa->nlines - 1 ? 4 : 0),
						i == 0 ? 8 : 0);
			b->x += 6;
			b->para = pa;
			b->line = i;
			b->pad_top = i == 0 ? 4 : 0;
			b->bg = C_CODE_BG;
			b->bg_x = f->x;
			b->bg_w = f->w;
			b->keep = i < pa->nlines - 1;
			pa->refs++;
			if (i == 0)
				take_marker(f, b);
		}
		if (!pa->nlines) {
			pa->refs = 1;
			para_unref(pa);
		}
	}
	if (cmark_node_get_title(img) && *cmark_node_get_title(img) && (s || svg)) {
		struct directive_result res = {0};
		const char *title = cmark_node_get_title(img);
		directive_text_add(&res.caption, title, strlen(title), NULL, false, false);
		res.has_caption = true;
		p->boxes[p->nboxes - 1].keep = true;
		caption_box(p, f, &res, "", 4);
		directive_text_clear(&res.caption);
	}
	rich_clear(&alt);
	free(src);
}

/* --- tables --- */

/* A table to lay out: cells of rich text, row 0 the header. */
struct grid {
	size_t rows, cols;
	struct rich *cells;
	char *align; /* per cell: 'l', 'c' or 'r' as GFM writes it */
	size_t header_rows;
};

static double layout_width(PangoLayout *l)
{
	PangoRectangle lr;
	pango_layout_get_extents(l, NULL, &lr);
	return lr.width / (double)PANGO_SCALE;
}

/* Natural and narrowest widths of a cell's text in font f. */
static void cell_widths(struct pdf *p, struct rich *r, const PangoFontDescription *f, bool bold,
			double *natural, double *narrow)
{
	PangoLayout *l = layout_new(p, f, 0);
	pango_layout_set_text(l, buf_data(&r->text), (int)r->text.len);
	pango_layout_set_attributes(l, r->attrs);
	if (bold) {
		PangoFontDescription *b = pango_font_description_copy(f);
		pango_font_description_set_weight(b, PANGO_WEIGHT_BOLD);
		pango_layout_set_font_description(l, b);
		pango_font_description_free(b);
	}
	*natural = layout_width(l);
	if (narrow) {
		/* the longest word: wrapped at every break it allows */
		pango_layout_set_width(l, 1);
		pango_layout_set_wrap(l, PANGO_WRAP_WORD);
		*narrow = layout_width(l);
	}
	g_object_unref(l);
}

/* Column widths that fit w: natural widths when they fit, else each
 * column its longest word and the rest shared by what each wants more;
 * false when even the longest words do not fit. */
static bool column_widths(struct pdf *p, struct grid *g, const PangoFontDescription *f,
			  double pad, double w, double *cw)
{
	size_t C = g->cols;
	double *nat = xcalloc(C, sizeof *nat), *min = xcalloc(C, sizeof *min);
	/* a very long table: its first rows are a fair sample of its widths */
	size_t sample = g->rows < 400 ? g->rows : 400;
	for (size_t i = 0; i < sample; i++) {
		for (size_t j = 0; j < C; j++) {
			double a, b;
			cell_widths(p, &g->cells[i * C + j], f, i < g->header_rows, &a, &b);
			a += 2 * pad;
			b += 2 * pad;
			nat[j] = a > nat[j] ? a : nat[j];
			min[j] = b > min[j] ? b : min[j];
		}
	}
	double sn = 0, sm = 0;
	for (size_t j = 0; j < C; j++) {
		sn += nat[j];
		sm += min[j];
	}
	bool fits = true;
	if (sn <= w) {
		memcpy(cw, nat, C * sizeof *cw);
	} else if (sm <= w) {
		double extra = w - sm;
		for (size_t j = 0; j < C; j++)
			cw[j] = min[j] + (sn > sm ? extra * (nat[j] - min[j]) / (sn - sm) : 0);
	} else {
		/* words are cut: a column that wants less than an even share
		 * of what is left gets what it wants, the others share the
		 * rest evenly */
		bool *done = xcalloc(C, sizeof *done);
		double left = w;
		size_t open = C;
		for (bool again = true; again && open;) {
			again = false;
			for (size_t j = 0; j < C; j++) {
				if (!done[j] && nat[j] <= left / (double)open) {
					cw[j] = nat[j];
					left -= nat[j];
					done[j] = true;
					open--;
					again = true;
				}
			}
		}
		for (size_t j = 0; j < C; j++)
			if (!done[j])
				cw[j] = left / (double)open;
		free(done);
		fits = false;
	}
	free(nat);
	free(min);
	return fits;
}

static void grid_boxes(struct pdf *p, struct flow *f, struct grid *g, const char *dest,
		       struct loc at)
{
	if (!g->cols || !g->rows)
		return;
	double pad = 4;
	double *cw = xcalloc(g->cols, sizeof *cw);
	/* smaller type for a table that does not fit, then cut words */
	PangoFontDescription *font = pango_font_description_copy(p->f_sans);
	static const double sizes[] = {8.5, 7.5, 6.5};
	for (size_t k = 0; k < ARRAY_LEN(sizes); k++) {
		pango_font_description_set_size(font, (gint)(sizes[k] * PANGO_SCALE));
		pad = k == 0 ? 4 : 3;
		if (column_widths(p, g, font, pad, f->w, cw))
			break;
	}
	double tw = 0;
	for (size_t j = 0; j < g->cols; j++)
		tw += cw[j];
	double body = p->ph - p->mt - p->mb;
	long head = -1;
	bool warned = false;
	for (size_t i = 0; i < g->rows; i++) {
		struct row *row = xcalloc(1, sizeof *row);
		row->n = g->cols;
		row->cells = xcalloc(g->cols, sizeof *row->cells);
		row->w = tw;
		row->pad = pad;
		row->header = i < g->header_rows;
		double h = 0, x = 0;
		for (size_t j = 0; j < g->cols; j++) {
			struct rich *r = &g->cells[i * g->cols + j];
			PangoLayout *l = layout_new(p, font, cw[j] - 2 * pad);
			pango_layout_set_text(l, buf_data(&r->text), (int)r->text.len);
			if (row->header) {
				attr_add(r->attrs, pango_attr_weight_new(PANGO_WEIGHT_BOLD), 0,
					 r->text.len);
			}
			pango_layout_set_attributes(l, r->attrs);
			char al = g->align[i * g->cols + j];
			bool right = al == 'r';
			if (al == 'r' || al == 'c')
				pango_layout_set_alignment(l, al == 'r' ? PANGO_ALIGN_RIGHT
									: PANGO_ALIGN_CENTER);
			struct para *pa = para_new(l, r);
			pa->refs = 1;
			row->cells[j] = (struct cell){pa, x, cw[j], right};
			double ch = 0;
			for (int k = 0; k < pa->nlines; k++)
				ch += pa->height[k];
			h = ch > h ? ch : h;
			x += cw[j];
		}
		h += 2 * pad;
		if (h > body) {
			if (!warned)
				diag_warning(p->d, at,
					     "a row of this table is taller than a page: the PDF "
					     "shows the part that fits");
			warned = true;
			h = body;
		}
		struct box *b = box_add(p, BOX_ROW, f, h, i == 0 ? 4 : 0);
		b->row = row;
		b->w = tw;
		if (row->header) {
			b->is_head = true;
			b->keep = true;
			if (head < 0)
				head = (long)(p->nboxes - 1);
		}
		b->head = row->header ? -1 : head;
		/* the header and the first two rows stay together */
		if (i == g->header_rows && g->rows > g->header_rows + 1)
			b->keep = true;
		if (i == 0) {
			take_marker(f, b);
			if (dest)
				b->dest = xstrdup(dest);
		}
	}
	/* the last two rows together: a table never ends with one row
	 * alone on a page */
	if (g->rows >= g->header_rows + 2)
		p->boxes[p->nboxes - 2].keep = true;
	pango_font_description_free(font);
	free(cw);
}

static void grid_free(struct grid *g)
{
	for (size_t i = 0; i < g->rows * g->cols; i++)
		rich_clear(&g->cells[i]);
	free(g->cells);
	free(g->align);
}

static void grid_init(struct grid *g, size_t rows, size_t cols)
{
	g->rows = rows;
	g->cols = cols;
	g->cells = xcalloc(rows * cols + 1, sizeof *g->cells);
	g->align = xcalloc(rows * cols + 1, sizeof *g->align);
	for (size_t i = 0; i < rows * cols; i++)
		rich_init(&g->cells[i]);
	g->header_rows = 1;
}

static void table_block(struct pdf *p, struct flow *f, const struct directive_result *res,
			cmark_node *n)
{
	struct loc at = loc_line(doc_file(p->doc), doc_line0(p->doc) + cmark_node_get_start_line(n));
	size_t first = p->nboxes;
	caption_box(p, f, res, "Table", space(f) + 4);
	struct grid g;
	grid_init(&g, res->rows, res->cols);
	for (size_t i = 0; i < res->rows * res->cols; i++) {
		rich_pieces(p, &g.cells[i], &res->cells[i].text, 0, true);
		g.align[i] = res->cells[i].right ? 'r' : 'l';
	}
	grid_boxes(p, f, &g, res->label, at);
	grid_free(&g);
	if (p->nboxes > first && res->label && !p->boxes[first].dest)
		p->boxes[first].dest = xstrdup(res->label);
}

static void gfm_table(struct pdf *p, struct flow *f, cmark_node *n)
{
	size_t rows = 0, cols = cmark_gfm_extensions_get_table_columns(n);
	for (cmark_node *r = cmark_node_first_child(n); r; r = cmark_node_next(r))
		rows++;
	if (!rows || !cols)
		return;
	uint8_t *align = cmark_gfm_extensions_get_table_alignments(n);
	struct grid g;
	grid_init(&g, rows, cols);
	g.header_rows = 0;
	size_t i = 0;
	for (cmark_node *r = cmark_node_first_child(n); r; r = cmark_node_next(r), i++) {
		if (cmark_gfm_extensions_get_table_row_is_header(r))
			g.header_rows = i + 1;
		size_t j = 0;
		for (cmark_node *c = cmark_node_first_child(r); c && j < cols;
		     c = cmark_node_next(c), j++) {
			rich_inlines(p, &g.cells[i * cols + j], cmark_node_first_child(c), 0);
			g.align[i * cols + j] = align ? (char)align[j] : 'l';
		}
	}
	struct loc at = loc_line(doc_file(p->doc), doc_line0(p->doc) + cmark_node_get_start_line(n));
	size_t first = p->nboxes;
	grid_boxes(p, f, &g, NULL, at);
	if (p->nboxes > first)
		p->boxes[first].before = space(f) + 4;
	grid_free(&g);
}

static void log_block(struct pdf *p, struct flow *f, const struct directive_result *res)
{
	long widest = 1;
	for (size_t i = 0; i < res->nlines; i++)
		widest = res->lines[i].no > widest ? res->lines[i].no : widest;
	int digits = 1;
	for (long w = widest; w >= 10; w /= 10)
		digits++;
	double em = 8.5 * 0.6;
	double indent = (digits + 1) * em;
	size_t first = p->nboxes;
	for (size_t i = 0; i < res->nlines; i++) {
		const struct directive_line *l = &res->lines[i];
		struct rich r;
		rich_init(&r);
		size_t lead = 0;
		if (l->no > 0) {
			char *num = xasprintf("%*ld ", digits, l->no);
			lead = strlen(num);
			rich_put(&r, num, strlen(num), S_MUTED, l->href);
			free(num);
			/* the number links to the log's page, not underlined */
			attr_add(r.attrs, pango_attr_underline_new(PANGO_UNDERLINE_NONE), 0,
				 r.text.len);
			attr_colour(r.attrs, C_MUTED, 0, r.text.len);
			rich_put(&r, l->text, strlen(l->text), 0, NULL);
			if (!*l->text)
				buf_puts(&r.text, " ");
		} else {
			rich_put(&r, l->text, strlen(l->text), S_MUTED | S_ITALIC, NULL);
		}
		size_t before = p->nboxes;
		code_line(p, f, &r, lead, indent, l->hit ? C_HIT_BG : C_CODE_BG,
			  i == 0 ? space(f) : 0, i == 0 ? 5 : 0, i + 1 == res->nlines ? 5 : 0,
			  false);
		if (i == 0 && res->label && p->nboxes > before)
			p->boxes[before].dest = xstrdup(res->label);
		rich_clear(&r);
	}
	size_t last = p->nboxes;
	if (last > first + 1)
		p->boxes[first].keep = true;
	if (last >= first + 2)
		p->boxes[last - 2].keep = true;
}

/* --- the block walk --- */

static void blocks(struct pdf *p, struct flow *f, cmark_node *first);

static PangoLayout *marker_layout(struct pdf *p, const char *text)
{
	PangoLayout *l = layout_new(p, p->f_body, 0);
	pango_layout_set_text(l, text, -1);
	return l;
}

static void list_block(struct pdf *p, struct flow *f, cmark_node *n)
{
	bool ordered = cmark_node_get_list_type(n) == CMARK_ORDERED_LIST;
	int k = cmark_node_get_list_start(n);
	bool tight = cmark_node_get_list_tight(n);
	static const char *const bullets[] = {"\xE2\x80\xA2", "\xE2\x97\xA6", "\xE2\x96\xAA"};
	int level = 0;
	for (cmark_node *a = cmark_node_parent(n); a; a = cmark_node_parent(a))
		level += cmark_node_get_type(a) == CMARK_NODE_LIST;
	double indent = ordered ? 20 : 16;
	bool first_item = true;
	for (cmark_node *it = cmark_node_first_child(n); it; it = cmark_node_next(it), k++) {
		struct flow sub = *f;
		/* deep lists stop moving right while the text has room */
		bool deep = f->depth >= MAX_DEPTH || f->w - indent < p->tw * 0.4;
		if (!deep) {
			sub.x += indent;
			sub.w -= indent;
		}
		sub.depth++;
		sub.tight = tight;
		const char *ts = cmark_node_get_type_string(it);
		char *mark;
		if (ts && strcmp(ts, "tasklist") == 0)
			mark = xstrdup(cmark_gfm_extensions_get_tasklist_item_checked(it)
					       ? "\xE2\x98\x91"
					       : "\xE2\x98\x90");
		else if (ordered)
			mark = xasprintf("%d%c", k, cmark_node_get_list_delim(n) == CMARK_PAREN_DELIM
							   ? ')'
							   : '.');
		else
			mark = xstrdup(bullets[level % 3]);
		sub.marker = marker_layout(p, mark);
		double mw = layout_width(sub.marker);
		sub.marker_x = deep ? -mw - 4 : -mw - 5;
		free(mark);
		size_t before = p->nboxes;
		blocks(p, &sub, cmark_node_first_child(it));
		if (sub.marker) /* an empty item */
			g_object_unref(sub.marker);
		if (p->nboxes > before) {
			p->boxes[before].before = first_item ? space(f) : tight ? 2 : 6;
		}
		first_item = false;
	}
}

static void footnotes(struct pdf *p, struct flow *f, cmark_node **defs, size_t ndefs)
{
	if (!p->nnotes)
		return;
	size_t start = p->nboxes;
	rule(p, f);
	if (p->nboxes > start)
		p->boxes[start].before = 14;
	for (size_t k = 0; k < p->nnotes; k++) {
		/* cmark-gfm keeps the definitions that are referenced, at the
		 * end, in the order of their first reference: the order the
		 * references were numbered in here */
		cmark_node *def = k < ndefs ? defs[k] : NULL;
		if (!def)
			continue;
		struct flow sub = *f;
		sub.x += 16;
		sub.w -= 16;
		sub.tight = true;
		char *mark = xasprintf("%zu.", k + 1);
		sub.marker = layout_new(p, p->f_small, 0);
		pango_layout_set_text(sub.marker, mark, -1);
		sub.marker_x = -layout_width(sub.marker) - 5;
		free(mark);
		size_t before = p->nboxes;
		blocks(p, &sub, cmark_node_first_child(def));
		if (sub.marker)
			g_object_unref(sub.marker);
		if (p->nboxes > before) {
			char *name = xasprintf("ld-fn-%zu", k + 1);
			free(p->boxes[before].dest);
			p->boxes[before].dest = name;
			p->boxes[before].before = 3;
		}
	}
}

/* A block nested too deep to follow, as one paragraph of its text. */
static void flat_block(struct pdf *p, struct flow *f, cmark_node *n)
{
	struct rich r;
	rich_init(&r);
	rich_flat(p, &r, n, 0);
	PangoLayout *l = layout_new(p, p->f_body, f->w);
	pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
	pango_layout_set_attributes(l, r.attrs);
	pango_layout_set_line_spacing(l, 1.35f);
	struct para *pa = para_new(l, &r);
	rich_clear(&r);
	if (pa->nlines == 0) {
		pa->refs = 1;
		para_unref(pa);
		return;
	}
	para_boxes(p, f, pa, space(f), 0, false);
}

static void block(struct pdf *p, struct flow *f, cmark_node *n)
{
	const char *ts = cmark_node_get_type_string(n);
	if (f->depth >= MAX_DEPTH && cmark_node_first_child(n) &&
	    cmark_node_get_type(n) != CMARK_NODE_PARAGRAPH &&
	    cmark_node_get_type(n) != CMARK_NODE_HEADING) {
		flat_block(p, f, n);
		return;
	}
	switch (cmark_node_get_type(n)) {
	case CMARK_NODE_PARAGRAPH: {
		cmark_node *img = lone_image(n);
		if (img)
			image_block(p, f, img);
		else
			paragraph(p, f, n, p->f_body, 0, space(f), false);
		return;
	}
	case CMARK_NODE_HEADING:
		heading(p, f, n);
		return;
	case CMARK_NODE_BLOCK_QUOTE: {
		struct flow sub = *f;
		if (f->depth < MAX_DEPTH && f->w - 14 >= p->tw * 0.4) {
			if (sub.quote < MAX_QUOTE)
				sub.quote_x[sub.quote] = f->x + 1;
			sub.quote++;
			sub.x += 14;
			sub.w -= 14;
		}
		sub.depth++;
		size_t before = p->nboxes;
		blocks(p, &sub, cmark_node_first_child(n));
		f->marker = sub.marker;
		if (p->nboxes > before)
			p->boxes[before].before = space(f);
		return;
	}
	case CMARK_NODE_LIST:
		list_block(p, f, n);
		return;
	case CMARK_NODE_CODE_BLOCK:
		code_block(p, f, n);
		return;
	case CMARK_NODE_THEMATIC_BREAK:
		rule(p, f);
		return;
	case CMARK_NODE_HTML_BLOCK: {
		const struct directive_result *res = doc_directive(n);
		if (!res || !res->ok)
			return; /* the author's own HTML has no print form here */
		if (res->kind == DIRECTIVE_TABLE)
			table_block(p, f, res, n);
		else if (res->kind == DIRECTIVE_LOG)
			log_block(p, f, res);
		else
			chart_block(p, f, res, n);
		return;
	}
	default:
		break;
	}
	if (ts && strcmp(ts, "table") == 0) {
		gfm_table(p, f, n);
		return;
	}
	if (cmark_node_get_type(n) == CMARK_NODE_FOOTNOTE_DEFINITION)
		return; /* at the end */
	blocks(p, f, cmark_node_first_child(n));
}

static void blocks(struct pdf *p, struct flow *f, cmark_node *first)
{
	for (cmark_node *n = first; n; n = cmark_node_next(n))
		block(p, f, n);
}

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

/* --- pages --- */

/* Lays the boxes onto pages; returns the placements (and *n, *pages). */
static struct place *paginate(struct pdf *p, size_t *nplaces, int *pages)
{
	double top = p->mt, bottom = p->ph - p->mb, body = bottom - top;
	size_t cap = p->nboxes + 16, n = 0;
	struct place *pl = xcalloc(cap, sizeof *pl);
	int page = 0;
	double y = top;
	bool empty = true;
	size_t i = 0;
	while (i < p->nboxes) {
		/* the group of boxes held together from i */
		size_t j = i;
		double gh = (empty ? 0 : p->boxes[i].before) + p->boxes[i].h;
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
		/* a figure that almost fits is drawn a little smaller rather
		 * than leave the rest of the page empty */
		struct box *fig = &p->boxes[i];
		if (!empty && !capped && y + gh > bottom + 0.01 &&
		    (fig->kind == BOX_CHART || fig->kind == BOX_IMAGE || fig->kind == BOX_SVG)) {
			double k = (bottom - y - (gh - fig->h)) / fig->h;
			if (k >= 0.8 && k < 1) {
				fig->x += fig->w * (1 - k) / 2;
				fig->w *= k;
				fig->scale *= k;
				gh -= fig->h * (1 - k);
				fig->h *= k;
			}
		}
		if (!empty && !capped && y + gh > bottom + 0.01) {
			page++;
			y = top;
			empty = true;
		}
		for (size_t k = i; k <= j; k++) {
			const struct box *b = &p->boxes[k];
			double before = empty ? 0 : b->before;
			if (!empty && y + before + b->h > bottom + 0.01) {
				page++;
				y = top;
				empty = true;
				before = 0;
			}
			if (n + 2 >= cap) {
				cap *= 2;
				pl = xrealloc(pl, cap * sizeof *pl);
			}
			/* a table running onto a new page: its header first */
			if (empty && b->kind == BOX_ROW && b->head >= 0 && !b->is_head) {
				pl[n++] = (struct place){(size_t)b->head, page, y};
				y += p->boxes[b->head].h;
			}
			pl[n++] = (struct place){k, page, y + before};
			y += before + b->h;
			empty = false;
		}
		i = j + 1;
	}
	*nplaces = n;
	*pages = page + 1;
	return pl;
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

static void link_rect(struct pdf *p, const char *href, double x, double y, double w, double h)
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

/* Draws line i of pa with its top at (x, y), and its links. */
static void draw_line(struct pdf *p, struct para *pa, int i, double x, double y)
{
	PangoLayoutLine *line = pa->lines[i];
	double lx = pa->x[i];
	double base = y + pa->baseline[i] - pa->top[i];
	cairo_move_to(p->cr, x + lx, base);
	set_rgb(p->cr, C_TEXT);
	pango_cairo_show_layout_line(p->cr, line);
	if (!pa->nlinks)
		return;
	double rx = x + lx;
	for (GSList *r = line->runs; r; r = r->next) {
		PangoGlyphItem *gi = r->data;
		double w = pango_glyph_string_get_width(gi->glyphs) / (double)PANGO_SCALE;
		int a = gi->item->offset, b = a + gi->item->length;
		for (size_t k = 0; k < pa->nlinks; k++) {
			if (a >= pa->links[k].start && b <= pa->links[k].end) {
				link_rect(p, pa->links[k].href, rx, y, w, pa->height[i]);
				break;
			}
		}
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
		set_rgb(cr, C_HEAD_BG);
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
	set_rgb(cr, row->header ? 0x888888 : C_RULE);
	cairo_set_line_width(cr, row->header ? 0.8 : 0.4);
	cairo_move_to(cr, x, y + b->h - 0.2);
	cairo_line_to(cr, x + row->w, y + b->h - 0.2);
	cairo_stroke(cr);
	cairo_restore(cr);
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
	for (int q = 0; q < b->quote; q++) {
		set_rgb(cr, C_QUOTE);
		cairo_rectangle(cr, p->ml + b->quote_x[q], y, 2.5, b->h);
		cairo_fill(cr);
	}
	if (b->bg) {
		set_rgb(cr, b->bg);
		cairo_rectangle(cr, p->ml + b->bg_x, y, b->bg_w, b->h + 0.3);
		cairo_fill(cr);
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
		set_rgb(cr, C_TEXT);
		cairo_move_to(cr, x + b->marker_x, base - mb);
		pango_cairo_show_layout(cr, b->marker);
	}
	switch (b->kind) {
	case BOX_LINE:
		draw_line(p, b->para, b->line, x, y + b->pad_top);
		if (b->wrapped) {
			/* a hooked arrow, drawn rather than written, so that
			 * copying the code copies only the code */
			double gx = x + b->gutter_x, gy = y + b->pad_top,
			       gh = b->para->height[b->line];
			set_rgb(cr, 0x999999);
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
		set_rgb(cr, C_RULE);
		cairo_set_line_width(cr, 0.6);
		cairo_move_to(cr, x, y + b->h / 2);
		cairo_line_to(cr, x + b->w, y + b->h / 2);
		cairo_stroke(cr);
		break;
	case BOX_IMAGE: {
		double iw = cairo_image_surface_get_width(b->image);
		cairo_save(cr);
		cairo_translate(cr, x, y);
		cairo_scale(cr, b->w / iw, b->w / iw);
		cairo_set_source_surface(cr, b->image, 0, 0);
		cairo_paint(cr);
		cairo_restore(cr);
		break;
	}
	case BOX_SVG: {
		RsvgRectangle vp = {x, y, b->w, b->h};
		GError *err = NULL;
		cairo_save(cr);
		if (!rsvg_handle_render_document(b->svg, cr, &vp, &err)) {
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
}

static void footer(struct pdf *p, int page, int pages)
{
	char *t = xasprintf("%d / %d", page + 1, pages);
	PangoLayout *l = layout_new(p, p->f_footer, 0);
	pango_layout_set_text(l, t, -1);
	double w = layout_width(l);
	set_rgb(p->cr, C_MUTED);
	cairo_move_to(p->cr, p->pw - p->mr - w, p->ph - p->mb + 24);
	pango_cairo_show_layout(p->cr, l);
	g_object_unref(l);
	free(t);
	if (p->m->title && *p->m->title && page > 0) {
		PangoLayout *h = layout_new(p, p->f_footer, p->tw - w - 24);
		pango_layout_set_text(h, p->m->title, -1);
		pango_layout_set_ellipsize(h, PANGO_ELLIPSIZE_END);
		set_rgb(p->cr, C_MUTED);
		cairo_move_to(p->cr, p->ml, p->ph - p->mb + 24);
		pango_cairo_show_layout(p->cr, h);
		g_object_unref(h);
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
	char *link = xasprintf("page=%d pos=[%.2f %.2f]", page + 1, p->ml, y > 12 ? y - 12 : 0);
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
		if (b->image)
			cairo_surface_destroy(b->image);
		if (b->svg)
			g_object_unref(b->svg);
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
	p.pango = pango_cairo_create_context(p.cr);
	cairo_font_options_t *fo = cairo_font_options_create();
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	pango_cairo_context_set_font_options(p.pango, fo);
	cairo_font_options_destroy(fo);
	pango_cairo_context_set_resolution(p.pango, 72);
	pango_context_set_round_glyph_positions(p.pango, FALSE);
	fonts_setup(&p);

	struct flow f = {.x = 0, .w = p.tw};
	title_block(&p, &f);
	size_t body_start = p.nboxes;
	cmark_node *root = doc_root(doc);
	blocks(&p, &f, cmark_node_first_child(root));
	if (p.nboxes > body_start)
		p.boxes[body_start].before = 0;
	cmark_node **defs = NULL;
	size_t ndefs = 0;
	for (cmark_node *n = cmark_node_first_child(root); n; n = cmark_node_next(n)) {
		if (cmark_node_get_type(n) == CMARK_NODE_FOOTNOTE_DEFINITION) {
			defs = xrealloc(defs, (ndefs + 1) * sizeof *defs);
			defs[ndefs++] = n;
		}
	}
	footnotes(&p, &f, defs, ndefs);
	free(defs);
	if (f.marker)
		g_object_unref(f.marker);

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
	chart_fonts_lock();
	bool ok = render_unlocked(doc, m, out, d);
	chart_fonts_unlock();
	return ok;
}
