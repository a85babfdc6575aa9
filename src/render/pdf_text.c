/* pdf_text.c: the text of the PDF as pango sees it.  A block's inlines
 * (emphasis, code, links, values with their links to log lines, footnote
 * references, @fig- references) become a struct rich: UTF-8 text, pango
 * attributes and link ranges; a struct rich laid out at a width becomes
 * a struct para, whose lines the boxes share (pdf_int.h). */
#include "pdf_int.h"

#include <cmark-gfm.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/mathlayout.h"
#include "resolve/blocks.h"
#include "resolve/doc.h"

void attr_add(PangoAttrList *l, PangoAttribute *a, size_t start, size_t end)
{
	a->start_index = (guint)start;
	a->end_index = (guint)end;
	pango_attr_list_insert(l, a);
}

static guint16 c16(unsigned c, int shift)
{
	return (guint16)(((c >> shift) & 255) * 257);
}

void attr_colour(PangoAttrList *l, unsigned c, size_t a, size_t b)
{
	attr_add(l, pango_attr_foreground_new(c16(c, 16), c16(c, 8), c16(c, 0)), a, b);
}

/* An unbroken run (a 300 KB value, a hash, a minified line) longer than
 * LONG_RUN characters gets a zero-width space after every BREAK_EVERY
 * more.  Pango finds a line's end in a run with no break opportunity by
 * shaping the rest of the run again for each line: a 300 KB word took
 * two minutes, and takes a second with these.  They draw nothing and
 * are not in the PDF's text (pdftotext shows none); a run that long is
 * broken across lines anyway.  A line breaks at the last one that fits:
 * a line of code holds 86 cells, so one every 32 filled 64 of them (a
 * 1 MiB line of code took 228 pages), one every 16 fills 80 (183 pages,
 * a tenth less time: each line drawn costs more than the breaks). */
#define LONG_RUN 256
#define BREAK_EVERY 16

/* Pango sums the width of an item (a run of text in one font and
 * language) in an int of 1/1024 points: past 2,097,152 points, about
 * 300 KB of text, it overflows, the item counts as fitting on one line,
 * and the paragraph became that one line, cut at the page's edge (a 300
 * KB value showed 69 characters, silently).  So every CHUNK bytes or so,
 * at a blank when there is one, the text's language attribute changes
 * ("en", "en-us": the same shaping and breaks for the scripts pango
 * shapes alike), which ends an item: none is wider than about 400,000
 * points even at 24 points a character. */
#define CHUNK 16384

static void close_chunk(struct rich *r)
{
	const char *lang = r->nchunks % 2 ? "en" : "en-us";
	attr_add(r->attrs, pango_attr_language_new(pango_language_from_string(lang)),
		 r->chunk_start, r->text.len);
	r->chunk_start = r->text.len;
	r->nchunks++;
}

static void put_breakable(struct rich *r, const char *s, size_t n)
{
	size_t from = 0;
	if (r->chunk_start > r->text.len)
		r->chunk_start = r->text.len;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t k = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
		if (i + k > n)
			k = n - i;
		size_t in_chunk = r->text.len + (i - from) - r->chunk_start;
		if (in_chunk >= CHUNK && (c == ' ' || in_chunk >= CHUNK + 4096)) {
			buf_put(&r->text, s + from, i - from);
			from = i;
			close_chunk(r);
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '-' || c == '/' ||
		    (k == 3 && c == 0xE2 && (unsigned char)s[i + 1] == 0x80 &&
		     ((unsigned char)s[i + 2] == 0x8B || (unsigned char)s[i + 2] == 0xA8))) {
			r->unbroken = 0; /* a blank, a break, U+200B or U+2028 */
		} else if (++r->unbroken > LONG_RUN && r->unbroken % BREAK_EVERY == 0) {
			buf_put(&r->text, s + from, i + k - from);
			if (r->nzw % 64 == 0)
				r->zw = xrealloc(r->zw, (r->nzw + 64) * sizeof *r->zw);
			r->zw[r->nzw++] = r->text.len;
			buf_puts(&r->text, "\xE2\x80\x8B");
			from = i + k;
		}
		i += k;
	}
	buf_put(&r->text, s + from, n - from);
}

size_t rich_added(const struct rich *r, size_t at)
{
	size_t k = r->nzw;
	while (k > 0 && r->zw[k - 1] >= at)
		k--;
	return 3 * (r->nzw - k);
}

void rich_classes(struct rich *r, const unsigned char *cls, size_t n, size_t at,
		  void (*run)(struct rich *r, unsigned char cls, size_t a, size_t b))
{
	size_t k = r->nzw;
	while (k > 0 && r->zw[k - 1] >= at)
		k--;
	size_t shift = 0; /* bytes added before the current byte */
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && cls[j] == cls[i])
			j++;
		while (k < r->nzw && r->zw[k] <= at + i + shift)
			k++, shift += 3;
		size_t a = at + i + shift, add = 0;
		for (size_t m = k; m < r->nzw && r->zw[m] < at + j + shift + add; m++)
			add += 3;
		run(r, cls[i], a, at + j + shift + add);
		i = j;
	}
}

/* Appends s (valid UTF-8 made of it) in a style; href makes it a link. */
void rich_put(struct rich *r, const char *s, size_t n, unsigned style, const char *href)
{
	if (r->after_display) {
		/* the text after display math: on a line of its own */
		while (n && (*s == ' ' || *s == '\n'))
			s++, n--;
		if (!n)
			return;
		r->after_display = false;
		buf_puts(&r->text, "\xE2\x80\xA8");
	}
	if (!n)
		return;
	size_t a = r->text.len;
	if (g_utf8_validate(s, (gssize)n, NULL)) {
		put_breakable(r, s, n);
	} else {
		gchar *ok = g_utf8_make_valid(s, (gssize)n);
		put_breakable(r, ok, strlen(ok));
		g_free(ok);
	}
	size_t b = r->text.len;
	if (style & S_BOLD)
		attr_add(r->attrs, pango_attr_weight_new(PANGO_WEIGHT_BOLD), a, b);
	if (style & S_ITALIC)
		attr_add(r->attrs, pango_attr_style_new(PANGO_STYLE_ITALIC), a, b);
	if (style & S_CODE) {
		r->code = xrealloc(r->code, (r->ncode + 1) * sizeof *r->code);
		r->code[r->ncode][0] = a;
		r->code[r->ncode++][1] = b;
		attr_add(r->attrs, pango_attr_family_new("DejaVu Sans Mono"), a, b);
		attr_add(r->attrs, pango_attr_scale_new(0.88), a, b);
		/* its background is drawn by draw_line() from r->code: pango
		 * applies such an attribute to each run of a line by walking
		 * the paragraph's attributes from the start, so a paragraph of
		 * 20,000 spans took 6.5 s */
	}
	if (style & S_STRIKE)
		attr_add(r->attrs, pango_attr_strikethrough_new(TRUE), a, b);
	if (style & S_SUP) {
		attr_add(r->attrs, pango_attr_rise_new(4 * PANGO_SCALE), a, b);
		attr_add(r->attrs, pango_attr_scale_new(0.7), a, b);
	}
	/* a missing value's "n/a" is muted, as on the page: a red dash
	 * read as a minus sign */
	if (style & (S_MISSING | S_MUTED)) {
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

void rich_init(struct rich *r)
{
	memset(r, 0, sizeof *r);
	r->attrs = pango_attr_list_new();
	/* no hyphen inserted where a word is broken (layout_new()) */
	pango_attr_list_insert(r->attrs, pango_attr_insert_hyphens_new(FALSE));
}

void rich_clear(struct rich *r)
{
	buf_free(&r->text);
	if (r->attrs)
		pango_attr_list_unref(r->attrs);
	for (size_t i = 0; i < r->nlinks; i++)
		free(r->links[i].href);
	free(r->links);
	free(r->code);
	free(r->zw);
	memset(r, 0, sizeof *r);
}

/* A DejaVu Sans Mono cell is 0.602 em: a little more, so that a word
 * counted as fitting does fit. */
#define MONO_CELL 0.61

/* Can a line break inside this word (no blank in it)?  Never between
 * ASCII letters, digits and '_', nor before or after '.', ',', ':' and
 * ';' among them (the line breaking rules' classes AL, NU and IS):
 * such a word needs no attribute to stay whole. */
static bool word_may_break(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)w[i];
		if (!g_ascii_isalnum(c) && c != '_' && c != '.' && c != ',' && c != ':' && c != ';')
			return true;
	}
	return false;
}

size_t keep_words(PangoAttrList *attrs, const char *text, size_t len, size_t from, double width,
		  double size, size_t max)
{
	size_t i = from, added = 0;
	while (i < len && added < max) {
		while (i < len && (text[i] == ' ' || text[i] == '\t'))
			i++;
		size_t a = i;
		double cells = 0;
		while (i < len && text[i] != ' ' && text[i] != '\t') {
			gunichar c = g_utf8_get_char_validated(text + i, (gssize)(len - i));
			cells += c != (gunichar)-1 && c != (gunichar)-2 && g_unichar_iswide(c) ? 2 : 1;
			const char *next = g_utf8_find_next_char(text + i, text + len);
			i = next ? (size_t)(next - text) : len;
		}
		/* a word that fits on a line of its own is not broken: the
		 * line breaks at a space before it; one wider than a line
		 * keeps its breaks (after '-', '/', then anywhere) */
		if (i - a > 1 && cells * size * MONO_CELL <= width && word_may_break(text + a, i - a)) {
			attr_add(attrs, pango_attr_allow_breaks_new(FALSE), a, i);
			added++;
		}
	}
	return added;
}

/* Pango's break pass counts characters from the paragraph's start for
 * each allow_breaks attribute: past this many of them times the
 * paragraph's bytes, the rest of its inline code breaks where pango's
 * rules allow (20,000 `a-b` spans in a paragraph took 11 s). */
#define KEEP_BUDGET 50000000.0

void rich_keep_words(struct rich *r, double width)
{
	/* inline code is the body's 10 pt scaled by 0.88 (rich_put()) */
	size_t max = r->text.len ? (size_t)(KEEP_BUDGET / (double)r->text.len) : 0;
	for (size_t k = 0; k < r->ncode && max > 0; k++)
		max -= keep_words(r->attrs, buf_data(&r->text), r->code[k][1], r->code[k][0], width,
				  10 * 0.88, max);
}

/* A link to a line of a log's page, as html.c writes it: relative,
 * "logs/run.log.html#L12". */
static bool log_line_link(const char *href)
{
	const char *hash = strstr(href, ".html#L");
	return hash && hash != href && href[0] != '/' && href[0] != '#' &&
	       !strstr(href, "://") && g_ascii_isdigit(hash[7]);
}

char *value_href(struct pdf *p, const char *href, bool entry)
{
	if (!log_line_link(href))
		return xstrdup(href);
	if (p->base)
		return xasprintf("%s%s", p->base, href);
	if (!entry || p->no_entries)
		return xstrdup(href);
	/* an entry a line: "#L53.2", the second value the report links to
	 * on line 53, shares line 53's entry, which links to the line */
	const char *hash = strstr(href, ".html#L") + 7;
	size_t n = (size_t)(hash - href) + strspn(hash, "0123456789");
	size_t k = 0;
	while (k < p->nsources && !(strlen(p->sources[k]) == n && strncmp(p->sources[k], href, n) == 0))
		k++;
	if (k == p->nsources) {
		p->sources = xrealloc(p->sources, (p->nsources + 1) * sizeof *p->sources);
		p->sources[p->nsources++] = xstrndup(href, n);
	}
	return xasprintf("#ld-src-%zu", k + 1);
}

/* --- math: a formula is one pango shape (U+FFFC) of its size, drawn
 * by the shape renderer; display math a shape as wide as the text, on
 * a line of its own, the formula centred in it and its number at the
 * right. --- */

struct pdf_math {
	struct pdf *p;
	struct math_layout *m;
	double w, asc, desc; /* the formula's */
	double shape_w;      /* the shape's: the text's width for display math */
	char *number;        /* "(2)" for a labelled equation, or NULL */
	/* or an image in the text (no m): w wide, asc tall on the baseline */
	cairo_surface_t *image;
	RsvgHandle *svg;
};

static void math_link(void *ctx, const char *href, double x, double y, double w, double h)
{
	link_rect(ctx, href, x, y, w, h);
}

static void draw_shape(cairo_t *cr, PangoAttrShape *attr, gboolean do_path, gpointer data)
{
	(void)data;
	struct pdf_math *pm = attr->data;
	if (do_path || !pm)
		return;
	double x, y;
	cairo_get_current_point(cr, &x, &y);
	if (pm->image) {
		cairo_save(cr);
		cairo_translate(cr, x, y - pm->asc);
		cairo_scale(cr, pm->w / cairo_image_surface_get_width(pm->image),
			    pm->asc / cairo_image_surface_get_height(pm->image));
		cairo_set_source_surface(cr, pm->image, 0, 0);
		cairo_paint(cr);
		cairo_restore(cr);
		return;
	}
	if (pm->svg) {
		RsvgRectangle vp = {x, y - pm->asc, pm->w, pm->asc};
		cairo_save(cr);
		svglib_loaded()->render_document(pm->svg, cr, &vp, NULL);
		cairo_restore(cr);
		return;
	}
	double left = x + (pm->shape_w - pm->w) / 2;
	if (pm->number) {
		/* the number at the right, on the baseline */
		PangoLayout *l = layout_new(pm->p, pm->p->f_body, 0);
		pango_layout_set_text(l, pm->number, -1);
		double nw = layout_width(l);
		cairo_move_to(cr, x + pm->shape_w - nw, y - pango_layout_get_baseline(l) / (double)PANGO_SCALE);
		pango_cairo_show_layout(cr, l);
		g_object_unref(l);
		left = fmin(left, x + pm->shape_w - nw - 12 - pm->w);
		left = fmax(left, x);
	}
	math_layout_draw(pm->m, cr, left, y, math_link, pm->p);
}

void math_shapes_setup(struct pdf *p)
{
	pango_cairo_context_set_shape_renderer(p->pango, draw_shape, NULL, NULL);
}

void math_shapes_free(struct pdf *p)
{
	for (size_t i = 0; i < p->nmaths; i++) {
		if (p->maths[i]->image)
			cairo_surface_destroy(p->maths[i]->image);
		if (p->maths[i]->svg)
			g_object_unref(p->maths[i]->svg);
		if (p->maths[i]->m)
			math_layout_free(p->maths[i]->m);
		free(p->maths[i]->number);
		free(p->maths[i]);
	}
	free(p->maths);
	math_font_free(p->math_font);
}

/* The piece's MathML with each value's placeholder as its text, as an
 * <mn> that says its link (data-ld-href) or that it is missing. */
static char *math_xml(struct pdf *p, const char *html)
{
	const char *from = strstr(html, "<math"), *to = strstr(html, "</math>");
	if (!from || !to || to < from)
		return NULL;
	to += strlen("</math>");
	struct buf out = BUF_INIT;
	static const char open[] = "<mn>";
	const char *s = from;
	while (s < to) {
		size_t at, mlen, index;
		const char *mn = strstr(s, open);
		if (!mn || mn >= to || !doc_next_value(mn + 4, (size_t)(to - mn - 4), &at, &mlen, &index) ||
		    at != 0 || strncmp(mn + 4 + mlen, "</mn>", 5) != 0) {
			const char *next = mn && mn < to ? mn + 4 : to;
			buf_put(&out, s, (size_t)(next - s));
			s = next;
			continue;
		}
		buf_put(&out, s, (size_t)(mn - s));
		const struct directive_text *v = doc_value(p->doc, index);
		const char *href = NULL;
		bool missing = !v;
		struct buf text = BUF_INIT;
		for (size_t i = 0; v && i < v->n; i++) {
			buf_puts(&text, v->p[i].text);
			if (!href && v->p[i].href)
				href = v->p[i].href;
			missing |= v->p[i].missing;
		}
		if (!v)
			buf_puts(&text, "n/a");
		buf_puts(&out, "<mn");
		if (href) {
			/* as a value in prose links: base_url, or its Sources entry */
			char *link = value_href(p, href, true);
			buf_puts(&out, " data-ld-href=\"");
			buf_put_html(&out, link, strlen(link));
			buf_puts(&out, "\"");
			free(link);
		}
		if (missing)
			buf_puts(&out, " data-ld-missing=\"1\"");
		buf_puts(&out, ">");
		buf_put_html(&out, buf_data(&text), text.len);
		buf_puts(&out, "</mn>");
		buf_free(&text);
		s = mn + 4 + mlen + 5;
	}
	return buf_detach(&out);
}

/* A math piece as a shape in r; false when it cannot be (no math font,
 * MathML that is not well-formed: a TeX error). */
static bool rich_math(struct pdf *p, struct rich *r, const struct directive_piece *pc)
{
	if (!p->math_font_tried) {
		p->math_font_tried = true;
		p->math_font = math_font_new(pango_context_get_font_map(p->pango));
	}
	if (!p->math_font)
		return false;
	char *xml = math_xml(p, pc->text);
	if (!xml)
		return false;
	double size = r->size > 0 ? r->size : 10;
	const struct math_colours colours = {C_TEXT, C_VALUE, C_MUTED};
	struct math_layout *m = math_layout_new(p->math_font, xml, strlen(xml), size, &colours);
	free(xml);
	if (!m)
		return false;
	struct pdf_math *pm = xcalloc(1, sizeof *pm);
	pm->p = p;
	pm->m = m;
	math_layout_extents(m, &pm->w, &pm->asc, &pm->desc);
	pm->shape_w = pm->w;
	bool display = math_layout_display(m) && r->width > 0;
	const char *no = strstr(pc->text, "<span class=\"ld-eqno\">");
	if (no) {
		no += strlen("<span class=\"ld-eqno\">");
		const char *e = strchr(no, '<');
		pm->number = xstrndup(no, e ? (size_t)(e - no) : strlen(no));
	}
	p->maths = xrealloc(p->maths, (p->nmaths + 1) * sizeof *p->maths);
	p->maths[p->nmaths++] = pm;
	double pad = 0;
	if (display) {
		/* a line of its own, the text's width, some space above and below */
		pm->shape_w = fmax(r->width - 1, pm->w);
		pad = 0.25 * size;
		if (r->text.len && !str_has_suffix(buf_data(&r->text), "\xE2\x80\xA8"))
			buf_puts(&r->text, "\xE2\x80\xA8");
	}
	size_t a = r->text.len;
	buf_puts(&r->text, "\xEF\xBF\xBC"); /* U+FFFC, the object */
	PangoRectangle ink = {0, (int)(-(pm->asc + pad) * PANGO_SCALE), (int)(pm->shape_w * PANGO_SCALE),
			      (int)((pm->asc + pm->desc + 2 * pad) * PANGO_SCALE)};
	attr_add(r->attrs, pango_attr_shape_new_with_data(&ink, &ink, pm, NULL, NULL), a,
		 r->text.len);
	if (display)
		r->after_display = true;
	return true;
}

/* An image in running text as a shape on the baseline: a line of text
 * tall (the font's size), or as its width and height say; false when
 * it cannot be shown (warned of by image_open()). */
static bool rich_image(struct pdf *p, struct rich *r, cmark_node *n)
{
	cairo_surface_t *s;
	RsvgHandle *svg;
	double sw, sh;
	char *src;
	image_open(p, n, &s, &svg, &sw, &sh, &src);
	free(src);
	if (!s && !svg)
		return false;
	double iw = s ? cairo_image_surface_get_width(s) : sw,
	       ih = s ? cairo_image_surface_get_height(s) : sh;
	double em = r->size > 0 ? r->size : 10, column = r->width > 0 ? r->width : p->tw;
	const struct block *b = doc_block(n);
	double w, h;
	if (b && b->width.unit && b->height.unit) {
		w = image_size_pt(&b->width, column, em);
		h = image_size_pt(&b->height, em, em);
	} else if (b && b->width.unit) {
		w = image_size_pt(&b->width, column, em);
		h = ih * w / iw;
	} else if (b && b->height.unit) {
		h = image_size_pt(&b->height, em, em);
		w = iw * h / ih;
	} else {
		h = em;
		w = iw * h / ih;
	}
	if (w > column) {
		h *= column / w;
		w = column;
	}
	struct pdf_math *pm = xcalloc(1, sizeof *pm);
	pm->p = p;
	pm->image = s;
	pm->svg = svg;
	pm->w = pm->shape_w = w;
	pm->asc = h;
	p->maths = xrealloc(p->maths, (p->nmaths + 1) * sizeof *p->maths);
	p->maths[p->nmaths++] = pm;
	size_t a = r->text.len;
	buf_puts(&r->text, "\xEF\xBF\xBC"); /* U+FFFC, the object */
	PangoRectangle ink = {0, (int)(-h * PANGO_SCALE), (int)(w * PANGO_SCALE),
			      (int)(h * PANGO_SCALE)};
	attr_add(r->attrs, pango_attr_shape_new_with_data(&ink, &ink, pm, NULL, NULL), a,
		 r->text.len);
	return true;
}

/* Pieces of a directive's text (a caption, a cell, a value); @fig-
 * and @tbl- references in its plain text become links. */
static void rich_literal(struct pdf *p, struct rich *r, const char *s, unsigned style);

void rich_pieces(struct pdf *p, struct rich *r, const struct directive_text *t,
		 unsigned style, bool link)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct directive_piece *pc = &t->p[i];
		unsigned st = style | (pc->value ? S_VALUE : 0) | (pc->missing ? S_MISSING : 0) |
			      (pc->emph ? S_ITALIC : 0);
		const char *href = link && !r->in_link ? pc->href : NULL;
		if (pc->math) {
			/* laid out by pdf_math.c; its TeX, the values in it
			 * shown as values, where that cannot be */
			if (!rich_math(p, r, pc))
				rich_literal(p, r, pc->title, style | S_CODE);
			continue;
		}
		if (pc->value || pc->href) {
			char *to = href ? value_href(p, href, true) : NULL;
			rich_put(r, pc->text, strlen(pc->text), st, to);
			free(to);
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
			rich_put(r, "n/a", 3, style | S_MISSING, NULL);
		s += at + mlen;
		len -= at + mlen;
	}
	rich_put(r, s, len, style, NULL);
}

/* A link destination or image source with its placeholders as text;
 * empty when that makes a URL that would run script. */
char *resolve_url(struct pdf *p, const char *s)
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
		raw_images_left_out(p, n);
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
		/* an image inside running text: drawn there, or else its
		 * description */
		if (rich_image(p, r, n))
			return;
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
void rich_flat(struct pdf *p, struct rich *r, cmark_node *n, unsigned style)
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

void rich_inlines(struct pdf *p, struct rich *r, cmark_node *first, unsigned style)
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

PangoLayout *layout_new(struct pdf *p, const PangoFontDescription *f, double width)
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

double layout_width(PangoLayout *l)
{
	PangoRectangle lr;
	pango_layout_get_extents(l, NULL, &lr);
	return lr.width / (double)PANGO_SCALE;
}

/* An attribute pango applies to a line's runs after the lines are
 * broken, changing how they are drawn, not their glyphs or breaks. */
static bool paints(const PangoAttribute *a)
{
	switch ((int)a->klass->type) {
	case PANGO_ATTR_FOREGROUND:
	case PANGO_ATTR_BACKGROUND:
	case PANGO_ATTR_UNDERLINE:
	case PANGO_ATTR_UNDERLINE_COLOR:
	case PANGO_ATTR_STRIKETHROUGH:
	case PANGO_ATTR_STRIKETHROUGH_COLOR:
	case PANGO_ATTR_OVERLINE:
	case PANGO_ATTR_OVERLINE_COLOR:
	case PANGO_ATTR_FOREGROUND_ALPHA:
	case PANGO_ATTR_BACKGROUND_ALPHA:
		return true;
	default:
		return false;
	}
}

/* Takes r's painting attributes (colours, underlines) out of the
 * layout's: returns them in the text's order, *n of them, to be given
 * to the lines by paint_lines().  Pango applies them to each run of
 * each line by walking the paragraph's whole list from its start: a
 * paragraph of 20,000 code spans each followed by a value (40,000 runs,
 * 20,000 colours) took 7 s, growing as the square. */
static PangoAttribute **unpaint(PangoLayout *l, struct rich *r, size_t *n)
{
	*n = 0;
	GSList *all = pango_attr_list_get_attributes(r->attrs);
	PangoAttrList *rest = pango_attr_list_new();
	PangoAttribute **out = NULL;
	size_t cap = 0;
	for (GSList *a = all; a; a = a->next) {
		PangoAttribute *at = a->data;
		if (!paints(at)) {
			pango_attr_list_insert(rest, at); /* in order: appended */
			continue;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			out = xrealloc(out, cap * sizeof *out);
		}
		out[(*n)++] = at;
	}
	g_slist_free(all);
	if (*n)
		pango_layout_set_attributes(l, rest);
	pango_attr_list_unref(rest);
	return out;
}

/* The painting attributes a[0..n) applied to the runs of pa's lines as
 * pango applies them, but each line's runs from a list of the
 * attributes over that line alone: linear in the paragraph.  Frees a. */
static void paint_lines(struct para *pa, PangoAttribute **a, size_t n)
{
	if (!n)
		return;
	const char *text = pango_layout_get_text(pa->layout);
	PangoAttrList **per = xcalloc((size_t)pa->nlines, sizeof *per);
	for (size_t k = 0; k < n; k++) {
		/* the first line ending after the attribute's start */
		int lo = 0, hi = pa->nlines;
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;
			const PangoLayoutLine *ln = pa->lines[mid];
			if ((guint)(ln->start_index + ln->length) <= a[k]->start_index)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int i = lo; i < pa->nlines && (guint)pa->lines[i]->start_index < a[k]->end_index;
		     i++) {
			if (!per[i])
				per[i] = pango_attr_list_new();
			pango_attr_list_insert(per[i], pango_attribute_copy(a[k]));
		}
		pango_attribute_destroy(a[k]);
	}
	free(a);
	for (int i = 0; i < pa->nlines; i++) {
		if (!per[i])
			continue;
		/* as pango's apply_attributes_to_runs(): each run split where
		 * the attributes change, in the line's order */
		PangoLayoutLine *line = pa->lines[i];
		GSList *old = g_slist_reverse(line->runs);
		line->runs = NULL;
		for (GSList *rl = old; rl; rl = rl->next)
			line->runs = g_slist_concat(pango_glyph_item_apply_attrs(rl->data, text, per[i]),
						    line->runs);
		g_slist_free(old);
		pango_attr_list_unref(per[i]);
	}
	free(per);
}

/* A layout's lines and their metrics, kept for drawing line by line.
 * Takes over the layout and r's links. */
struct para *para_new(PangoLayout *l, struct rich *r)
{
	struct para *pa = xcalloc(1, sizeof *pa);
	pa->layout = l;
	size_t npaint = 0;
	PangoAttribute **paint = r ? unpaint(l, r, &npaint) : NULL;
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
	paint_lines(pa, paint, npaint);
	if (r) {
		pa->links = r->links;
		pa->nlinks = r->nlinks;
		r->links = NULL;
		r->nlinks = 0;
		pa->code = r->code;
		pa->ncode = r->ncode;
		r->code = NULL;
		r->ncode = 0;
	}
	pa->refs = 0;
	return pa;
}

void para_unref(struct para *pa)
{
	if (!pa || --pa->refs > 0)
		return;
	if (pa->layout)
		g_object_unref(pa->layout);
	for (int i = 0; pa->glyphs && i < pa->nlines; i++)
		pango_glyph_string_free(pa->glyphs[i]);
	free(pa->glyphs);
	if (pa->font)
		g_object_unref(pa->font);
	free(pa->lines);
	free(pa->top);
	free(pa->height);
	free(pa->baseline);
	free(pa->x);
	for (size_t i = 0; i < pa->nlinks; i++)
		free(pa->links[i].href);
	free(pa->links);
	free(pa->code);
	free(pa);
}

/* The code font's glyph for each printable ASCII character, as pango
 * shapes them in a line of their own: usable when it gives one glyph a
 * character, in one run. */
static void mono_setup(struct pdf *p)
{
	p->mono_tried = true;
	char chars[95];
	for (int c = 0; c < 95; c++)
		chars[c] = (char)(0x20 + c);
	PangoLayout *l = layout_new(p, p->f_mono, 0);
	pango_layout_set_text(l, chars, 95);
	PangoLayoutLine *line = pango_layout_get_line_readonly(l, 0);
	PangoGlyphItem *gi = line && line->runs && !line->runs->next ? line->runs->data : NULL;
	bool ok = gi && pango_layout_get_line_count(l) == 1 && gi->glyphs->num_glyphs == 95;
	for (int c = 0; ok && c < 95; c++) {
		PangoGlyphInfo *g = &gi->glyphs->glyphs[c];
		ok = gi->glyphs->log_clusters[c] == c && g->attr.is_cluster_start &&
		     !(g->glyph & PANGO_GLYPH_UNKNOWN_FLAG) && g->geometry.width > 0;
		p->mono_glyph[c] = *g;
	}
	if (ok) {
		p->mono_font = g_object_ref(gi->item->analysis.font);
		PangoLayoutIter *it = pango_layout_get_iter(l);
		int y0, y1;
		pango_layout_iter_get_line_yrange(it, &y0, &y1);
		p->mono_h = (y1 - y0) / (double)PANGO_SCALE;
		p->mono_base = (pango_layout_iter_get_baseline(it) - y0) / (double)PANGO_SCALE;
		pango_layout_iter_free(it);
	}
	g_object_unref(l);
}

void mono_free(struct pdf *p)
{
	if (p->mono_font)
		g_object_unref(p->mono_font);
	p->mono_font = NULL;
}

struct para *mono_para(struct pdf *p, const char *s, size_t n, double width, double indent)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return NULL;
	if (!p->mono_tried)
		mono_setup(p);
	if (!p->mono_font || n == 0)
		return NULL;
	struct para *pa = xcalloc(1, sizeof *pa);
	pa->font = g_object_ref(p->mono_font);
	size_t cap = 0;
	for (size_t at = 0; at < n;) {
		/* as many characters as fit (at least one) */
		long room = (long)((pa->nlines ? width - indent : width) * PANGO_SCALE);
		size_t end = at;
		long used = 0;
		while (end < n && (end == at || used + p->mono_glyph[s[end] - 0x20].geometry.width <= room))
			used += p->mono_glyph[s[end++] - 0x20].geometry.width;
		if (end < n) {
			/* after the last blank in the line's second half */
			size_t b = end;
			while (b > at + (end - at) / 2 && s[b - 1] != ' ')
				b--;
			if (b > at + (end - at) / 2)
				end = b;
		}
		if ((size_t)pa->nlines == cap) {
			cap = cap ? 2 * cap : 64;
			pa->glyphs = xrealloc(pa->glyphs, cap * sizeof *pa->glyphs);
			pa->top = xrealloc(pa->top, cap * sizeof *pa->top);
			pa->height = xrealloc(pa->height, cap * sizeof *pa->height);
			pa->baseline = xrealloc(pa->baseline, cap * sizeof *pa->baseline);
			pa->x = xrealloc(pa->x, cap * sizeof *pa->x);
		}
		PangoGlyphString *g = pango_glyph_string_new();
		pango_glyph_string_set_size(g, (gint)(end - at));
		for (size_t i = at; i < end; i++) {
			g->glyphs[i - at] = p->mono_glyph[s[i] - 0x20];
			g->log_clusters[i - at] = (gint)(i - at);
		}
		int k = pa->nlines++;
		pa->glyphs[k] = g;
		pa->top[k] = k * p->mono_h;
		pa->height[k] = p->mono_h;
		pa->baseline[k] = pa->top[k] + p->mono_base;
		pa->x[k] = k ? indent : 0;
		at = end;
	}
	return pa;
}
