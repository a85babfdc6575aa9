/* pdf_figure.c: figures as boxes: a {chart} drawn as vectors, an image
 * standing alone in its paragraph (PNG, JPEG, ... through gdk-pixbuf;
 * SVG through librsvg) or its description where it cannot be shown, and
 * the caption under a figure or above a table. */
#include "pdf_int.h"

#include <cmark-gfm.h>
#include <errno.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"
#include "base/htmltag.h"
#include "base/imagesize.h"
#include "data/limit.h"
#include "resolve/blocks.h"
#include "resolve/doc.h"

void caption_box(struct pdf *p, struct flow *f, const struct directive_result *res,
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

void chart_block(struct pdf *p, struct flow *f, const struct directive_result *res,
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

void diagram_block(struct pdf *p, struct flow *f, const struct directive_result *res,
		   cmark_node *n)
{
	struct loc at = loc_line(doc_file(p->doc), doc_line0(p->doc) + cmark_node_get_start_line(n));
	const char *why;
	const struct svglib *rsvg = svglib(&why);
	if (!rsvg) {
		diag_warning(p->d, at, "cannot draw this diagram in the PDF: %s", why);
		return;
	}
	GError *err = NULL;
	RsvgHandle *svg = rsvg->new_from_data((const guint8 *)res->svg, res->svg_len, &err);
	if (!svg) {
		diag_warning(p->d, at, "cannot draw this diagram in the PDF: %s",
			     err ? err->message : "librsvg failed");
		g_clear_error(&err);
		return;
	}
	rsvg->set_dpi(svg, 96);
	double w = res->svg_width * 0.75, h = res->svg_height * 0.75;
	double body = p->ph - p->mt - p->mb;
	if (w > f->w)
		h *= f->w / w, w = f->w;
	if (h > body * 0.8)
		w *= body * 0.8 / h, h = body * 0.8;
	struct box *b = box_add(p, BOX_SVG, f, h, 10);
	b->svg = svg;
	b->at = at;
	b->x += (f->w - w) / 2;
	b->w = w;
	b->keep = true;
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
cmark_node *lone_image(cmark_node *n)
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

/* Does an image of w x h pixels pass limit image_pixels?  If not,
 * *why_buf says so (caller frees). */
static bool too_many_pixels(double w, double h, char **why_buf)
{
	unsigned long max = limit_get(LIMIT_IMAGE_PIXELS);
	if (w * h <= (double)max)
		return false;
	*why_buf = xasprintf("is %.0fx%.0f pixels, more than the %lu an image may have: the PDF "
			     "shows its description (%s)",
			     w, h, max, limit_hint(LIMIT_IMAGE_PIXELS));
	return true;
}

/* An SVG image and its size in CSS pixels; NULL with *why (in *why_buf
 * when made for it). */
static RsvgHandle *svg_load(const char *path, double *w, double *h, const char **why,
			    char **why_buf)
{
	const struct svglib *rsvg = svglib(why);
	if (!rsvg) {
		*why_buf = xasprintf("cannot be drawn: %s; the PDF shows its description", *why);
		*why = *why_buf;
		return NULL;
	}
	GError *err = NULL;
	RsvgHandle *svg = rsvg->new_from_file(path, &err);
	if (!svg) {
		/* libxml2's last words ("XML parse error: Error domain 1 code
		 * 89 on line 14 column 91 of data: Detected an entity reference
		 * loop\n"): libxml2 stops entity expansion (a "billion laughs")
		 * itself, librsvg never asks it not to */
		char *m = xstrdup(err && err->message ? err->message : "");
		size_t n = strlen(m);
		while (n && (m[n - 1] == '\n' || m[n - 1] == ' '))
			m[--n] = '\0';
		const char *last = strrchr(m, ':');
		last = last ? last + 1 + strspn(last + 1, " ") : m;
		*why_buf = *last ? xasprintf("cannot be read as SVG (%s): the PDF shows its description",
					     last)
				 : xstrdup("cannot be read as SVG: the PDF shows its description");
		*why = *why_buf;
		free(m);
		g_clear_error(&err);
		return NULL;
	}
	rsvg->set_dpi(svg, 96);
	if (!rsvg->get_intrinsic_size_in_pixels(svg, w, h)) {
		/* only a viewBox: its size */
		gboolean has_w, has_h, has_vb;
		RsvgLength lw, lh;
		RsvgRectangle vb;
		rsvg->get_intrinsic_dimensions(svg, &has_w, &lw, &has_h, &lh, &has_vb, &vb);
		*w = has_vb ? vb.width : 0;
		*h = has_vb ? vb.height : 0;
	}
	if (!(*w > 0 && *h > 0)) {
		g_object_unref(svg);
		*why = "has no size (width and height, or a viewBox): the PDF shows its description";
		return NULL;
	}
	/* drawn as vectors at the box's size, never rasterized at its own:
	 * its size only has to be one a page can scale */
	if (too_many_pixels(*w, *h, why_buf)) {
		g_object_unref(svg);
		*why = *why_buf;
		return NULL;
	}
	return svg;
}

/* A PNG, JPEG, GIF, ... as a cairo image; NULL with *why (in *why_buf
 * when made for it).  Its size is read from its header first, and one
 * past limit image_pixels is never decoded: a 30000x30000 PNG of zeros
 * is a few kilobytes on disk and 3.6 GB decoded. */
static cairo_surface_t *image_load(const char *path, const char *from, const char **why,
				   char **why_buf)
{
	/* path names it (its kind is its extension); it is read from `from`
	 * (the descriptor image_open() checked) */
	unsigned long hw = 0, hh = 0;
	const char *kind = image_size_path(from, &hw, &hh);
	if (!kind) {
		/* another format gdk-pixbuf reads: its loader's own header */
		int gw = 0, gh = 0;
		GdkPixbufFormat *fmt = gdk_pixbuf_get_file_info(from, &gw, &gh);
		if (fmt && gw > 0 && gh > 0) {
			hw = (unsigned long)gw, hh = (unsigned long)gh;
			kind = "image";
		}
	}
	if (kind && too_many_pixels((double)hw, (double)hh, why_buf)) {
		*why = *why_buf;
		return NULL;
	}
	if (g_str_has_suffix(path, ".png") || g_str_has_suffix(path, ".PNG")) {
		cairo_surface_t *s = cairo_image_surface_create_from_png(from);
		if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS)
			return s;
		cairo_surface_destroy(s);
	}
	GError *err = NULL;
	GdkPixbuf *pb = gdk_pixbuf_new_from_file(from, &err);
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

/* The file image img shows, read: a cairo image (*s) or an SVG (*svg,
 * its size in CSS pixels in *sw, *sh); neither, with a warning unless
 * the page's check said it already, when it cannot be shown.  *src_out
 * is its source as written, values in (caller frees). */
void image_open(struct pdf *p, cmark_node *img, cairo_surface_t **s_out, RsvgHandle **svg_out,
		double *sw_out, double *sh_out, char **src_out)
{
	char *src = resolve_url(p, cmark_node_get_url(img));
	struct loc at = loc_line(doc_file(p->doc),
				 doc_line0(p->doc) + cmark_node_get_start_line(img));
	at.col = cmark_node_get_start_column(img);
	cairo_surface_t *s = NULL;
	RsvgHandle *svg = NULL;
	double sw = 0, sh = 0;
	const char *why = NULL;
	char *why_buf = NULL;
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
		} else {
			/* Opened once, confined to the project and checked on the
			 * descriptor; the loaders, which open by path, read that
			 * descriptor through /proc/self/fd: an image swapped for
			 * a link out since the check gives nothing from outside. */
			int fd = p->m->root ? open_confined(path, p->m->root, NULL)
					    : open_regular(path, NULL);
			char via[48];
			snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
			const char *from = fd >= 0 && access(via, R_OK) == 0 ? via : path;
			if (fd < 0)
				why = errno == EXDEV || errno == ELOOP
					      ? "leads outside the project: the PDF shows its description"
					      : "cannot be read: the PDF shows its description";
			else if (g_str_has_suffix(path, ".svg") || g_str_has_suffix(path, ".SVG"))
				svg = svg_load(from, &sw, &sh, &why, &why_buf);
			else
				s = image_load(path, from, &why, &why_buf);
			if (fd >= 0)
				close(fd);
		}
		free(real);
		free(path);
	}
	free(file);
	if (why && !page_said)
		diag_warning(p->d, at, "image '%s' %s", src, why);
	free(why_buf);
	*s_out = s;
	*svg_out = svg;
	*sw_out = sw;
	*sh_out = sh;
	*src_out = src;
}

/* Is v a size as an image's attribute may be written bare ("300",
 * "60%", "8cm")? */
static bool bare_size(const char *v)
{
	return v && *v && strspn(v, "0123456789.%abcdefghijklmnopqrstuvwxyz") == strlen(v);
}

void raw_images_left_out(struct pdf *p, cmark_node *n)
{
	const char *html = cmark_node_get_literal(n);
	if (!html)
		return;
	const char *end = html + strlen(html);
	char *src;
	const char *first = doc_raw_image(html, end, &src);
	for (size_t i = 0; first && i < p->nraw_said; i++)
		if (p->raw_said[i] == n) {
			free(src);
			return;
		}
	if (!first)
		return;
	p->raw_said = xrealloc(p->raw_said, (p->nraw_said + 1) * sizeof *p->raw_said);
	p->raw_said[p->nraw_said++] = n;
	for (const char *tag = first; tag; tag = doc_raw_image(html_tag_end(tag, end), end, &src)) {
		char *alt = html_attr(tag, end, "alt", NULL), *w = html_attr(tag, end, "width", NULL),
		     *h = html_attr(tag, end, "height", NULL);
		struct buf md = BUF_INIT;
		/* the description and the URL as Markdown reads them back */
		bool plain_alt = alt && !strpbrk(alt, "[]\\\n");
		bool pointy = strpbrk(src, " ()") && !strpbrk(src, "<>\n");
		buf_printf(&md, pointy ? "![%s](<%s>)" : "![%s](%s)", plain_alt ? alt : "", src);
		if (bare_size(w) || bare_size(h)) {
			buf_puts(&md, "{");
			if (bare_size(w))
				buf_printf(&md, "width=%s", w);
			if (bare_size(h))
				buf_printf(&md, "%sheight=%s", bare_size(w) ? " " : "", h);
			buf_puts(&md, "}");
		}
		diag_warning(p->d, doc_html_loc(p->doc, n, tag),
			     "image '%s' is in raw HTML, which the PDF leaves out: write it as %s to "
			     "have it in the PDF too",
			     src, buf_data(&md));
		buf_free(&md);
		free(alt);
		free(w);
		free(h);
		free(src);
	}
}

void image_block(struct pdf *p, struct flow *f, cmark_node *img)
{
	struct loc at = loc_line(doc_file(p->doc),
				 doc_line0(p->doc) + cmark_node_get_start_line(img));
	at.col = cmark_node_get_start_column(img);
	struct rich alt;
	rich_init(&alt);
	rich_inlines(p, &alt, cmark_node_first_child(img), 0);
	cairo_surface_t *s;
	RsvgHandle *svg;
	double sw, sh;
	char *src;
	image_open(p, img, &s, &svg, &sw, &sh, &src);
	const struct block *blk = doc_block(img);
	size_t shown = p->nboxes;
	if (s || svg) {
		double iw = s ? cairo_image_surface_get_width(s) * 0.75 : sw * 0.75,
		       ih = s ? cairo_image_surface_get_height(s) * 0.75 : sh * 0.75;
		double body = p->ph - p->mt - p->mb;
		/* its width and height as asked (a percentage is the text's
		 * width), else its own size at 96 pixels an inch; never wider
		 * than the text nor taller than most of a page */
		double w = iw, h = ih;
		if (blk && blk->width.unit && blk->height.unit) {
			w = image_size_pt(&blk->width, f->w, 10);
			h = image_size_pt(&blk->height, body, 10);
		} else if (blk && blk->width.unit) {
			w = image_size_pt(&blk->width, f->w, 10);
			h = ih * w / iw;
		} else if (blk && blk->height.unit) {
			h = image_size_pt(&blk->height, body, 10);
			w = iw * h / ih;
		}
		double k = 1;
		if (w * k > f->w)
			k = f->w / w;
		if (h * k > body * 0.8)
			k = body * 0.8 / h;
		struct box *b = box_add(p, s ? BOX_IMAGE : BOX_SVG, f, h * k, 8);
		b->image = s;
		b->svg = svg;
		b->at = at;
		b->x += (f->w - w * k) / 2;
		b->w = w * k;
		if (blk && blk->label)
			b->dest = xstrdup(blk->label);
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
	if (blk && blk->figure) {
		/* "Figure 2: " and its title, or its description; under its
		 * description's frame too, so that the numbers run on */
		struct directive_result res = {0};
		const char *title = cmark_node_get_title(img);
		if (blk->title_caption) {
			/* as text, its values shown */
			struct rich t;
			rich_init(&t);
			cmark_node *tn = cmark_node_new(CMARK_NODE_TEXT);
			cmark_node_set_literal(tn, title);
			rich_inlines(p, &t, tn, 0);
			cmark_node_free(tn);
			directive_text_add(&res.caption, buf_data(&t.text), t.text.len, NULL, false,
					   false);
			rich_clear(&t);
		} else {
			directive_text_add(&res.caption, buf_data(&alt.text), alt.text.len, NULL, false,
					   false);
		}
		res.has_caption = res.caption.n > 0;
		res.number = blk->number;
		if (p->nboxes > shown) {
			p->boxes[p->nboxes - 1].keep = true;
			if (blk->label && !p->boxes[shown].dest)
				p->boxes[shown].dest = xstrdup(blk->label);
		}
		caption_box(p, f, &res, "Figure", 4);
		directive_text_clear(&res.caption);
	}
	rich_clear(&alt);
	free(src);
}
