/* figure.c: images with attributes, and images as figures (blocks.h).
 *
 * "![Loss curve](img/loss.png){#fig-loss width=60%}": the attribute
 * block right after an image (resolve/attrs.h) gives it a label, a
 * width and a height.  An image alone in its paragraph with a label or
 * a title is a figure: numbered with the {chart}s, in document order,
 * captioned "Figure 2: " and its title, or else its description. */
#include "blocks_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "resolve/attrs.h"

static const char *const known[] = {"id", "width", "height", NULL};

/* Reads a size ("60%", "8cm", "200px", "200": pixels, as Pandoc reads
 * it) into out; false with an error at the item's place. */
static bool read_size(const struct block_src *s, const struct attr *a, struct loc at,
		      struct image_size *out)
{
	static const struct {
		const char *name;
		enum size_unit unit;
		double max;
	} units[] = {
		{"%", SIZE_PERCENT, 100}, {"px", SIZE_PX, 10000}, {"cm", SIZE_CM, 300},
		{"mm", SIZE_MM, 3000},    {"in", SIZE_IN, 100},   {"pt", SIZE_PT, 7200},
		{"em", SIZE_EM, 500},     {"", SIZE_PX, 10000},
	};
	at.col = a->col;
	at.len = a->len;
	char *end = NULL;
	double n = strtod(a->value, &end);
	bool ok = end != a->value && (a->value[0] >= '0' && a->value[0] <= '9');
	size_t i = 0;
	for (; ok && i < ARRAY_LEN(units); i++)
		if (strcmp(end, units[i].name) == 0)
			break;
	if (!ok || i == ARRAY_LEN(units)) {
		diag_error(s->c->d, at,
			   "an image's %s is a number and a unit, as in %s=60%% or %s=8cm (units: "
			   "%%, px, cm, mm, in, pt, em; a bare number is pixels)",
			   a->key, a->key, a->key);
		return false;
	}
	if (!(n > 0 && n <= units[i].max)) {
		diag_error(s->c->d, at, "an image's %s of %s is out of range: more than 0 and at most %g%s",
			   a->key, a->value, units[i].max, units[i].name[0] ? units[i].name : "px");
		return false;
	}
	out->n = n;
	out->unit = units[i].unit;
	out->css = units[i].name[0] ? xstrdup(a->value) : xasprintf("%spx", a->value);
	return true;
}

/* Is img alone in its paragraph (blanks and line breaks aside)? */
static bool alone(cmark_node *img)
{
	cmark_node *p = cmark_node_parent(img);
	if (!p || cmark_node_get_type(p) != CMARK_NODE_PARAGRAPH)
		return false;
	for (cmark_node *x = cmark_node_first_child(p); x; x = cmark_node_next(x)) {
		cmark_node_type t = cmark_node_get_type(x);
		if (x == img || t == CMARK_NODE_SOFTBREAK)
			continue;
		const char *lit = t == CMARK_NODE_TEXT ? cmark_node_get_literal(x) : NULL;
		if (!lit || strspn(lit, " \t") != strlen(lit))
			return false;
	}
	return true;
}

/* Takes the first n bytes of the text nodes from t on out of the tree. */
static void take_text(cmark_node *t, size_t n)
{
	while (t && n && cmark_node_get_type(t) == CMARK_NODE_TEXT) {
		const char *lit = cmark_node_get_literal(t);
		size_t len = strlen(lit);
		cmark_node *next = cmark_node_next(t);
		if (len <= n) {
			cmark_node_free(t);
			n -= len;
		} else {
			char *rest = xstrdup(lit + n);
			cmark_node_set_literal(t, rest);
			free(rest);
			n = 0;
		}
		t = next;
	}
}

void figure_image(const struct block_src *s, cmark_node *img)
{
	struct loc at = block_loc(s, img);
	/* the text right after the image, which cmark may have cut in
	 * several nodes (at a '_', a '*') */
	struct buf text = BUF_INIT;
	cmark_node *first = cmark_node_next(img);
	for (cmark_node *t = first; t && cmark_node_get_type(t) == CMARK_NODE_TEXT;
	     t = cmark_node_next(t))
		buf_puts(&text, cmark_node_get_literal(t));
	struct attrs a = {0};
	enum attrs_result r = ATTRS_NONE;
	const char *after = NULL;
	if (text.len && buf_data(&text)[0] == '{') {
		/* its column: where the block is written after the image */
		struct loc bat = at;
		size_t len;
		const char *line = block_line(s, cmark_node_get_start_line(img), &len);
		size_t key = strcspn(buf_data(&text), "}\n");
		size_t from = at.col > 0 ? (size_t)at.col - 1 : 0;
		if (line && from < len) {
			const char *hit = NULL;
			for (const char *q = line + from; q + key <= line + len && !hit; q++)
				if (memcmp(q, buf_data(&text), key) == 0)
					hit = q;
			if (hit)
				bat.col = (int)(hit - line) + 1;
		}
		r = attrs_parse(buf_data(&text), buf_data(&text) + text.len, bat, s->c->d, &a,
				&after);
		if (r != ATTRS_NONE)
			take_text(first, (size_t)(after - buf_data(&text)));
	}
	bool lone = alone(img);
	const char *title = cmark_node_get_title(img);
	bool titled = title && *title;
	if (r == ATTRS_NONE && !(lone && titled)) {
		buf_free(&text);
		return;
	}
	struct block *b = block_attach(img, BLOCK_IMAGE, at);
	if (r != ATTRS_NONE) {
		struct loc iat = at;
		attrs_check(&a, known, "an image", iat, s->c->d);
		const struct attr *w = attrs_get(&a, "width"), *h = attrs_get(&a, "height");
		if (w)
			read_size(s, w, iat, &b->width);
		if (h)
			read_size(s, h, iat, &b->height);
		const struct attr *id = attrs_get(&a, "id");
		if (id) {
			struct loc lat = at;
			lat.col = id->col;
			lat.len = id->len;
			if (!xref_good_name(id->value, "fig-"))
				diag_error(s->c->d, lat,
					   "an image's label is {#fig-NAME} (letters, digits, '-' and "
					   "'_'), e.g. {#fig-loss}");
			else if (!lone)
				diag_error(s->c->d, lat,
					   "a labelled image is a figure, alone in its paragraph: put "
					   "'%s' in a paragraph of its own",
					   id->value);
			else
				b->label = xstrdup(id->value);
		}
	}
	if (lone && (titled || b->label)) {
		b->figure = true;
		b->title_caption = titled;
		b->number = ++s->c->figures;
		if (b->label) {
			struct loc lat = at;
			const struct attr *id = attrs_get(&a, "id");
			lat.col = id->col;
			lat.len = id->len;
			if (!xref_add(s->xref, b->label, "Figure", b->number, NULL, lat, s->c->d)) {
				free(b->label);
				b->label = NULL;
			}
		}
	}
	attrs_free(&a);
	buf_free(&text);
}
