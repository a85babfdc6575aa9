/* html.c: the resolved document as HTML (html.h): cmark-gfm renders the
 * tree, each directive's block is written from its result, and each
 * placeholder becomes the value or reference resolve/doc.c shows for it.
 * A table is laid out once, by resolve/table.c; here it is only
 * written out, as the PDF draws the same cells. */
#include "render/html.h"

#include <cmark-gfm.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h> /* strncasecmp() */

#include "resolve/cite.h"
#include "resolve/blocks.h"
#include "resolve/codeblock.h"
#include "resolve/highlight.h"
#include "resolve/provenance.h"
#include "resolve/section.h"
#include "base/util.h"

#define ELLIPSIS "\xE2\x80\xA6" /* U+2026 */
#define MDASH "\xE2\x80\x94"    /* U+2014 */

/* Text from a report or a result file, escaped for HTML text and
 * attributes alike, as the log pages show it. */
static void put_text(struct buf *b, const char *s, size_t n)
{
	provenance_escape(b, s, n, true);
}

/* A value as the content of an element: the same, but a newline (in a
 * message read over several log lines) stays one. */
static void put_content(struct buf *b, const char *s, size_t n)
{
	for (;;) {
		const char *nl = memchr(s, '\n', n);
		size_t k = nl ? (size_t)(nl - s) : n;
		provenance_escape(b, s, k, true);
		if (!nl)
			return;
		buf_putc(b, '\n');
		s += k + 1;
		n -= k + 1;
	}
}

void html_value(struct buf *out, const struct directive_piece *pc, bool link)
{
	if (pc->missing) {
		buf_puts(out, "<span class=\"ld-missing\"");
		if (pc->title) {
			buf_puts(out, " title=\"");
			put_text(out, pc->title, strlen(pc->title));
			buf_putc(out, '"');
		}
		buf_putc(out, '>');
		put_content(out, pc->text, pc->len);
		buf_puts(out, "</span>");
		return;
	}
	const char *title = pc->title ? pc->title : "";
	if (pc->href && !link) {
		buf_puts(out, "<span class=\"ld-value\" title=\"");
		put_text(out, title, strlen(title));
		buf_puts(out, "\">");
		put_content(out, pc->text, pc->len);
		buf_puts(out, "</span>");
	} else if (pc->href) {
		buf_puts(out, "<a class=\"ld-value\" href=\"");
		buf_put_html(out, pc->href, strlen(pc->href));
		buf_puts(out, "\" title=\"");
		put_text(out, title, strlen(title));
		buf_puts(out, "\">");
		put_content(out, pc->text, pc->len);
		buf_puts(out, "</a>");
	} else {
		buf_puts(out, "<span class=\"ld-value\"");
		if (pc->title) {
			buf_puts(out, " title=\"");
			put_text(out, pc->title, strlen(pc->title));
			buf_puts(out, "\"");
		}
		buf_puts(out, ">");
		put_content(out, pc->text, pc->len);
		buf_puts(out, "</span>");
	}
}

/* A run of pieces, a caption or a cell: text escaped, values linked to
 * their lines. */
static void put_pieces(struct buf *out, const struct directive_text *t)
{
	for (size_t i = 0; i < t->n; i++) {
		if (t->p[i].value)
			html_value(out, &t->p[i], true);
		else
			put_text(out, t->p[i].text, t->p[i].len);
	}
}

/* A header cell's text: as put_pieces(), but a word with a hyphen
 * ("Speed-up") is kept whole in <span class="ld-word">, so that the
 * header breaks between words only, never at its hyphen (a browser
 * would); the table scrolls instead. */
static void put_header(struct buf *out, const struct directive_text *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct directive_piece *pc = &t->p[i];
		if (pc->value) {
			html_value(out, pc, true);
			continue;
		}
		size_t at = 0;
		while (at < pc->len) {
			size_t end = at;
			while (end < pc->len && pc->text[end] != ' ')
				end++;
			bool hyphen = end > at + 2 && memchr(pc->text + at + 1, '-', end - at - 2);
			if (hyphen)
				buf_puts(out, "<span class=\"ld-word\">");
			put_text(out, pc->text + at, end - at);
			if (hyphen)
				buf_puts(out, "</span>");
			for (at = end; at < pc->len && pc->text[at] == ' '; at++)
				buf_putc(out, ' ');
		}
	}
}

/* id="LABEL" on a directive's outer tag, when it has a label. */
static void put_id(struct buf *out, const struct directive_result *r)
{
	if (!r->label)
		return;
	buf_puts(out, " id=\"");
	put_text(out, r->label, strlen(r->label));
	buf_puts(out, "\"");
}

/* A cell tag, right-aligned when asked: a column of numbers. */
static void open_cell(struct buf *out, const char *tag, bool right)
{
	if (right)
		buf_printf(out, "<%s align=\"right\">", tag);
	else
		buf_printf(out, "<%s>", tag);
}

/* Whether the body cells of column j are numbers (all right-aligned):
 * in a transposed table the header row names them, so its cells line
 * up with them. */
static bool column_right(const struct directive_result *r, size_t j)
{
	if (r->rows < 2)
		return false;
	for (size_t i = 1; i < r->rows; i++)
		if (!r->cells[i * r->cols + j].right)
			return false;
	return true;
}

static void put_table(struct buf *out, const struct directive_result *r)
{
	buf_puts(out, "<figure class=\"ld-table\"");
	put_id(out, r);
	buf_puts(out, ">\n");
	/* The caption is the figure's, outside the table: the table scrolls
	 * sideways in its own box on a narrow screen, the caption stays in
	 * view and takes the text's width, whatever the table's. */
	if (r->has_caption) {
		buf_puts(out, "<figcaption>");
		if (r->number > 0)
			buf_printf(out, "Table %d: ", r->number);
		put_pieces(out, &r->caption);
		buf_puts(out, "</figcaption>\n");
	} else if (r->number > 0) {
		/* labelled, no caption: a reader following "Table 2" finds it */
		buf_printf(out, "<figcaption>Table %d</figcaption>\n", r->number);
	}
	buf_puts(out, "<table>\n");
	/* A transposed table's header row (the runs, or whatever the rows
	 * were) is aligned as the column below each of its cells: right
	 * over numbers, left over text. */
	for (size_t i = 0; i < r->rows; i++) {
		if (i == 0)
			buf_puts(out, "<thead>\n");
		else if (i == 1)
			buf_puts(out, "<tbody>\n");
		buf_puts(out, "<tr>\n");
		for (size_t j = 0; j < r->cols; j++) {
			const struct directive_cell *cell = &r->cells[i * r->cols + j];
			const char *tag = cell->header ? "th" : "td";
			bool right = i == 0 && r->transposed && r->rows > 1 ? column_right(r, j)
									    : cell->right;
			open_cell(out, tag, right);
			if (cell->header)
				put_header(out, &cell->text);
			else
				put_pieces(out, &cell->text);
			buf_printf(out, "</%s>\n", tag);
		}
		buf_puts(out, "</tr>\n");
		if (i == 0)
			buf_puts(out, "</thead>\n");
	}
	if (r->rows > 1)
		buf_puts(out, "</tbody>\n");
	buf_puts(out, "</table></figure>\n");
}

static void put_log(struct buf *out, const struct directive_result *r)
{
	buf_puts(out, "<pre class=\"ld-log\"");
	put_id(out, r);
	long widest = 0;
	for (size_t i = 0; i < r->nlines; i++)
		if (r->lines[i].shown_no > widest)
			widest = r->lines[i].shown_no;
	provenance_put_digits(out, widest);
	buf_puts(out, "><code>");
	/* coloured as the log pages are */
	struct hl_matcher *lang = provenance_log_matcher();
	for (size_t i = 0; i < r->nlines; i++) {
		const struct directive_line *l = &r->lines[i];
		if (l->no == 0) {
			/* One row, its mark in the line-number column: "…" for
			 * lines left out, "#" before a notebook cell's name. */
			bool gap = l->len >= 3 && memcmp(l->text, ELLIPSIS, 3) == 0;
			size_t skip = gap ? 3 : 0;
			while (skip < l->len && l->text[skip] == ' ')
				skip++;
			buf_puts(out, gap ? "<span class=\"ld-line ld-gap\"><span class=\"ld-lineno\">"
					    ELLIPSIS "</span>"
					  : "<span class=\"ld-line ld-cell\"><span class=\"ld-lineno\">#"
					    "</span>");
			put_text(out, l->text + skip, l->len - skip);
			buf_puts(out, "</span>\n");
			continue;
		}
		buf_puts(out, l->hit ? "<span class=\"ld-line ld-hl\">" : "<span class=\"ld-line\">");
		buf_puts(out, "<a class=\"ld-lineno\" href=\"");
		buf_put_html(out, l->href, strlen(l->href));
		buf_printf(out, "\">%ld</a>", l->shown_no);
		unsigned char *cls = provenance_log_classes(lang, l->text, l->len);
		provenance_put_coloured(out, l->text, l->len, cls);
		free(cls);
		if (l->cut)
			buf_puts(out, "<span class=\"ld-cut\">" ELLIPSIS " (cut: the whole line is in "
				      "the raw file)</span>");
		buf_puts(out, "</span>\n");
	}
	hl_matcher_free(lang);
	buf_puts(out, "</code></pre>\n");
}

/* 42em: 672 px at the usual 16 px, where the column of 46rem less its
 * gutters shows a 720-pixel chart at 0.84 of its size: its smallest
 * text, 10.7 px, at 9 px.  Dark as the stylesheet's dark colours. */
#define CHART_NARROW_MEDIA "(max-width: 42em)"
#define CHART_DARK_MEDIA "screen and (prefers-color-scheme: dark)"

static void put_chart(struct buf *out, const struct directive_result *r)
{
	buf_puts(out, "<figure class=\"ld-figure\"");
	put_id(out, r);
	/* the image links to itself: on a phone it opens full size.  A
	 * phone gets the narrow drawing (its text as large as the wide
	 * one's at full size), a dark page the dark one; CHART_NARROW_MEDIA
	 * is where the wide chart's smallest text would shrink below 9 px. */
	buf_printf(out, "><a href=\"figures/%s.svg\"><picture>", r->figure);
	if (r->narrow_width > 0) {
		buf_printf(out, "<source media=\"" CHART_DARK_MEDIA " and " CHART_NARROW_MEDIA
				"\" srcset=\"figures/%s.narrow.dark.svg\" width=\"%d\" height=\"%d\">",
			   r->figure, r->narrow_width, r->narrow_height);
		buf_printf(out, "<source media=\"" CHART_NARROW_MEDIA
				"\" srcset=\"figures/%s.narrow.svg\" width=\"%d\" height=\"%d\">",
			   r->figure, r->narrow_width, r->narrow_height);
	}
	buf_printf(out, "<source media=\"" CHART_DARK_MEDIA "\" srcset=\"figures/%s.dark.svg\">",
		   r->figure);
	buf_printf(out, "<img src=\"figures/%s.svg\" width=\"%d\" height=\"%d\" alt=\"", r->figure,
		   r->chart.width, r->chart.height);
	put_text(out, r->alt, strlen(r->alt));
	buf_puts(out, "\"></picture></a>");
	if (r->has_caption || r->number > 0) {
		buf_puts(out, "<figcaption>");
		if (r->number > 0)
			buf_printf(out, r->has_caption ? "Figure %d: " : "Figure %d", r->number);
		put_pieces(out, &r->caption);
		buf_puts(out, "</figcaption>");
	}
	buf_puts(out, "</figure>\n");
}

/* A diagram's SVG, inline: its text is text (selectable, found by the
 * browser's search), its values link to their lines, and its default
 * colour is currentColor, the page's text in light and dark.  It
 * shrinks to the column, but never so far that its smallest text goes
 * below 9 px: past that its box scrolls sideways (--ld-min). */
static void put_diagram(struct buf *out, const struct directive_result *r)
{
	buf_puts(out, "<figure class=\"ld-figure ld-diagram\"");
	put_id(out, r);
	buf_puts(out, "><div class=\"ld-diagram-box\"");
	if (r->svg_text_min > 0 && r->svg_text_min < 9 * 4) {
		double k = 9 / r->svg_text_min;
		int min = (int)(r->svg_width * (k > 1 ? 1 : k) + 0.5);
		buf_printf(out, " style=\"--ld-min: %dpx\"", min);
	}
	buf_puts(out, ">\n");
	buf_put(out, r->svg, r->svg_len);
	buf_puts(out, "</div>");
	if (r->has_caption || r->number > 0) {
		buf_puts(out, "<figcaption>");
		if (r->number > 0)
			buf_printf(out, r->has_caption ? "Figure %d: " : "Figure %d", r->number);
		put_pieces(out, &r->caption);
		buf_puts(out, "</figcaption>");
	}
	buf_puts(out, "</figure>\n");
}

void html_directive(struct buf *out, const struct directive_result *r)
{
	if (r->kind == DIRECTIVE_DIAGRAM)
		put_diagram(out, r);
	else if (r->kind == DIRECTIVE_TABLE)
		put_table(out, r);
	else if (r->kind == DIRECTIVE_LOG)
		put_log(out, r);
	else
		put_chart(out, r);
}

/* Writes each directive's HTML into its (empty) block, before cmark
 * renders the tree. */
static void fill_directives(struct doc *doc)
{
	cmark_node *root = doc_root(doc);
	for (cmark_node *node = root; node; node = doc_next_block(root, node)) {
		const struct directive_result *r = doc_directive(node);
		if (!r || !r->ok)
			continue;
		struct buf html = BUF_INIT;
		html_directive(&html, r);
		char *lit = r->has_caption ? doc_caption_refs(doc, buf_data(&html), r->caption_at)
					   : buf_detach(&html);
		cmark_node_set_literal(node, lit);
		free(lit);
		buf_free(&html);
	}
}

/* A placeholder's value or reference, where the page shows it: in
 * text, in a link's text (links cannot nest), or inside a tag (a link's
 * destination: the bare text). */
static void put_shown(struct doc *doc, struct buf *out, const struct directive_piece *pc,
		      bool in_tag, bool in_link)
{
	if (pc->math && in_tag) {
		/* math in an attribute (an image's alt text): its TeX */
		buf_put_html(out, pc->title, strlen(pc->title));
	} else if (pc->math) {
		/* the MathML, its values filled in as in the prose */
		const char *p = pc->text, *end = p + strlen(p);
		size_t at, len, index;
		while (doc_next_value(p, (size_t)(end - p), &at, &len, &index)) {
			buf_put(out, p, at);
			const struct directive_piece *v = doc_show(doc, index);
			if (v)
				put_shown(doc, out, v, false, in_link);
			p += at + len;
		}
		buf_put(out, p, (size_t)(end - p));
	} else if (pc->value && in_tag) {
		if (!pc->missing && !pc->boolean)
			buf_put_html(out, pc->text, pc->len);
	} else if (pc->value) {
		html_value(out, pc, !in_link);
	} else if (pc->href && !in_tag && !in_link) {
		buf_puts(out, "<a class=\"ld-ref\" href=\"");
		buf_put_html(out, pc->href, strlen(pc->href));
		if (pc->title) {
			/* a citation: the reference it stands for */
			buf_puts(out, "\" title=\"");
			put_text(out, pc->title, strlen(pc->title));
		}
		buf_puts(out, pc->emph ? "\"><em>" : "\">");
		put_text(out, pc->text, strlen(pc->text));
		buf_puts(out, pc->emph ? "</em></a>" : "</a>");
	} else if (pc->href && pc->title) {
		put_text(out, pc->text, strlen(pc->text));
	} else if (pc->emph && !in_tag) {
		buf_puts(out, "<em>");
		put_text(out, pc->text, strlen(pc->text));
		buf_puts(out, "</em>");
	} else {
		put_text(out, pc->text, strlen(pc->text));
	}
}

/* HTML's blanks between attributes: strchr(" \t\n\r\f", c) != NULL
 * (NUL included, as strchr() finds the terminator) without the call. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\0';
}

/* HTML attributes whose value is a URL a browser follows or loads. */
static bool url_attribute(const char *name, size_t n)
{
#define NAME(s) {s, sizeof s - 1}
	/* with their lengths: asked of every attribute of every tag */
	static const struct {
		const char *s;
		size_t n;
	} names[] = {
		NAME("href"), NAME("src"), NAME("action"), NAME("formaction"),
		NAME("xlink:href"), NAME("poster"), NAME("cite"), NAME("data"),
		NAME("background"), NAME("srcset"), NAME("ping"), NAME("codebase"),
		NAME("longdesc"), NAME("usemap"), NAME("manifest"), NAME("lowsrc"),
		NAME("dynsrc"),
		/* SVG animation sets another attribute, href too:
		 * <set attributeName="href" to="..."> */
		NAME("to"), NAME("from"), NAME("values"),
	};
#undef NAME
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		if (names[i].n == n && strncasecmp(name, names[i].s, n) == 0)
			return true;
	return false;
}

/* An event handler attribute (onclick, onerror, ...): its value is
 * script. */
static bool script_attribute(const char *name, size_t n)
{
	return n > 2 && strncasecmp(name, "on", 2) == 0;
}

/* The first of an attribute's URLs that is dangerous, or NULL: SVG's
 * values="a;b;c" holds a list. */
static const char *dangerous_url(const char *name, const char *v, size_t n)
{
	if (url_is_dangerous(v, n))
		return v;
	if (strcasecmp(name, "values") != 0)
		return NULL;
	for (const char *semi; (semi = memchr(v, ';', n)) != NULL;) {
		n -= (size_t)(semi + 1 - v);
		v = semi + 1;
		if (url_is_dangerous(v, n))
			return v;
	}
	return NULL;
}

/* An attribute's value being copied by fill(): where it began in the
 * output, how it is quoted, whether it is a URL or script and the value
 * put in it last. */
struct attr_value {
	char quote;   /* '"' or '\'', or ' ' for an unquoted one; 0: none */
	bool url;
	bool script;
	size_t at;    /* its first byte in the output */
	size_t slot;  /* the value put in it, SIZE_MAX: none */
	char name[24]; /* the attribute's name, for a message (cut) */
};

/* The end of the attribute value a (its closing quote not yet written):
 * a URL that a value made a javascript: one loses its value, with a
 * warning at the value; so does an event handler a value is put in,
 * since HTML escaping does not keep a value inside a script's string
 * (the browser decodes &#39; back to a quote before running it). */
static void attr_end(struct doc *doc, struct buf *out, struct attr_value *a)
{
	const char *v = out->data + a->at;
	size_t n = out->len - a->at;
	if (a->slot == SIZE_MAX) {
		/* nothing from a log in it: the author's own */
	} else if (a->url && (v = dangerous_url(a->name, v, n)) != NULL) {
		/* the scheme as the browser reads it: no leading blanks */
		while ((unsigned char)*v <= 0x20 && *v)
			v++;
		diag_warning(doc_diag(doc), doc_place(doc, a->slot),
			     "this value makes a link's URL a '%.*s' one: the link is made inert",
			     (int)strcspn(v, ":") + 1, v);
		out->len = a->at;
		out->data[out->len] = '\0';
	} else if (a->script) {
		diag_warning(doc_diag(doc), doc_place(doc, a->slot),
			     "a value in the event handler '%s' would be script: the attribute is "
			     "emptied (show the value in the page's text instead)",
			     a->name);
		out->len = a->at;
		out->data[out->len] = '\0';
	}
	a->quote = 0;
}

/* The page's HTML with every placeholder replaced: values and
 * references where the page shows them.  Inside a tag the attributes
 * are followed, quoted either way or not at all: a value put in an
 * unquoted one gets double quotes (a blank in it would start another
 * attribute), and a value that turns a URL attribute (href, src,
 * formaction, ...) into a javascript: one empties it, with a warning. */
static char *fill(struct doc *doc, const char *html)
{
	struct buf out = BUF_INIT;
	const char *p = html, *end = html + strlen(html);
	bool in_tag = false;
	bool attrs = false; /* in a start tag's attributes, not a comment */
	int in_link = 0;    /* inside <a>...</a>: links cannot nest */
	struct attr_value av = {0};
	while (p < end) {
		size_t index, len;
		const struct directive_piece *pc;
		if ((*p == DOC_MARK || *p == '%') &&
		    doc_placeholder_at(p, end, in_tag, &index, &len) &&
		    (pc = doc_show(doc, index)) != NULL) {
			if (in_tag && !av.quote &&
			    (attrs || (out.len > 0 && out.data[out.len - 1] == '<'))) {
				/* a tag's name or its attributes, not a value:
				 * whatever it held would become attributes
				 * (<div {{ v }}> with "onmouseover=...") */
				diag_warning(doc_diag(doc), doc_place(doc, index),
					     "a value cannot stand in a tag outside an attribute's "
					     "value (it would become attributes): left out (write "
					     "name=\"{{ ... }}\")");
				p += len;
				continue;
			}
			/* a reference may be more than one piece: "the
			 * section " and its name */
			const struct directive_text *all = doc_value(doc, index);
			for (size_t i = 0; all && i < all->n; i++)
				put_shown(doc, &out, &all->p[i], in_tag, in_link > 0);
			if (!all)
				put_shown(doc, &out, pc, in_tag, in_link > 0);
			if (av.quote)
				av.slot = index;
			p += len;
			continue;
		}
		if (av.quote) {
			bool ends = av.quote == ' ' ? (*p == '>' || *p == ' ' || *p == '\t' ||
						       *p == '\n' || *p == '\r' || *p == '\f')
						    : *p == av.quote;
			if (ends) {
				bool unquoted = av.quote == ' ';
				attr_end(doc, &out, &av);
				if (unquoted)
					buf_putc(&out, '"');
				else
					buf_putc(&out, *p++);
				continue;
			}
			if (av.quote == ' ' && *p == '"') {
				buf_puts(&out, "&quot;");
				p++;
				continue;
			}
		} else if (attrs && *p == '=') {
			/* name=value: the name is what the output ends with */
			size_t e = out.len, n = 0;
			while (e > 0 && is_blank(out.data[e - 1]))
				e--; /* name = value */
			while (n < e && !is_blank(out.data[e - n - 1]) && out.data[e - n - 1] != '<')
				n++;
			const char *name = out.data + e - n;
			bool url = url_attribute(name, n);
			bool script = script_attribute(name, n);
			char name_copy[sizeof av.name];
			size_t shown = n < sizeof name_copy - 1 ? n : sizeof name_copy - 1;
			memcpy(name_copy, name, shown); /* before out grows */
			name_copy[shown] = '\0';
			buf_putc(&out, *p++);
			while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
				buf_putc(&out, *p++);
			if (p < end && *p != '>') {
				av.quote = *p == '"' || *p == '\'' ? *p : ' ';
				av.url = url;
				av.script = script;
				memcpy(av.name, name_copy, sizeof av.name);
				buf_putc(&out, av.quote == ' ' ? '"' : *p++);
				av.at = out.len;
				av.slot = SIZE_MAX;
			}
			continue;
		}
		if (*p == '<' && !av.quote) {
			in_tag = true;
			attrs = (p[1] >= 'a' && p[1] <= 'z') || (p[1] >= 'A' && p[1] <= 'Z');
			if ((p[1] == 'a' || p[1] == 'A') && (p[2] == ' ' || p[2] == '>'))
				in_link++;
			else if (p[1] == '/' && (p[2] == 'a' || p[2] == 'A') && p[3] == '>' && in_link)
				in_link--;
		} else if (*p == '>' && !av.quote) {
			in_tag = false;
			attrs = false;
		}
		buf_putc(&out, *p++);
		/* then the plain run up to the next byte that matters here */
		static const bool matters[256] = {
			[DOC_MARK] = true, ['%'] = true, ['"'] = true, ['\''] = true,
			['<'] = true,      ['>'] = true, ['='] = true,
		};
		const char *q = p;
		if (av.quote == ' ') /* an unquoted value ends at a blank too */
			while (q < end && !matters[(unsigned char)*q] && *q > ' ')
				q++;
		else
			while (q < end && !matters[(unsigned char)*q])
				q++;
		buf_put(&out, p, (size_t)(q - p));
		p = q;
	}
	if (av.quote)
		attr_end(doc, &out, &av);
	return buf_detach(&out);
}

/* A code block as cmark writes one, its classes as <span
 * class="hl-NAME"> runs.  With line numbers or highlighted lines, each
 * line is a <span class="ld-cl"> holding its newline (ld-hl when
 * hl_lines names it): the numbers are a CSS counter's, drawn before
 * the line and never part of its text, so that selecting or copying
 * the code (static/copy.js copies the <code>'s text) gives the code
 * alone. */
static char *code_html(cmark_node *node, const struct code_block *b)
{
	struct buf out = BUF_INIT;
	const char *code = cmark_node_get_literal(node);
	const unsigned char *cls = b->classes;
	size_t n = strlen(code);
	bool lines = b->numbered || b->marked;
	if (lines) {
		buf_puts(&out, "<pre class=\"ld-code");
		if (b->numbered)
			buf_puts(&out, " ld-numbered");
		buf_putc(&out, '"');
		if (b->numbered) {
			long last = b->start + (long)(b->nlines ? b->nlines - 1 : 0);
			int digits = 1;
			for (long k = last; k >= 10; k /= 10)
				digits++;
			buf_printf(&out, " style=\"--ld-digits:%d;counter-reset:ld-ln %ld\"", digits,
				   b->start - 1);
		}
		buf_putc(&out, '>');
	} else {
		buf_puts(&out, "<pre>");
	}
	buf_puts(&out, "<code");
	if (b->lang) {
		buf_puts(&out, " class=\"language-");
		buf_put_html(&out, b->lang, strlen(b->lang));
		buf_putc(&out, '"');
	}
	buf_putc(&out, '>');
	size_t line = 0;
	for (size_t i = 0; i < n;) {
		if (lines && (i == 0 || code[i - 1] == '\n'))
			buf_puts(&out, b->marked && line < b->nlines && b->marked[line]
					       ? "<span class=\"ld-cl ld-hl\">"
					       : "<span class=\"ld-cl\">");
		size_t j = i + 1;
		/* a run stops at a line's end, so that a span never holds a
		 * newline */
		while (j < n && (!cls || cls[j] == cls[i]) && code[j] != '\n' && code[j - 1] != '\n')
			j++;
		if (cls && cls[i] && code[i] != '\n') {
			/* not buf_printf(): a vsnprintf() a token, and a page
			 * of code has hundreds */
			buf_puts(&out, "<span class=\"hl-");
			buf_puts(&out, hl_class_name(cls[i]));
			buf_puts(&out, "\">");
			buf_put_html(&out, code + i, j - i);
			buf_puts(&out, "</span>");
		} else {
			buf_put_html(&out, code + i, j - i);
		}
		if (lines && (code[j - 1] == '\n' || j == n)) {
			buf_puts(&out, "</span>");
			line++;
		}
		i = j;
	}
	buf_puts(&out, "</code></pre>\n");
	return buf_detach(&out);
}

/* The References: the entries cited, each with the id its citations
 * link to. */
static void put_references(struct buf *out, struct cites *c)
{
	size_t n = c ? cites_count(c) : 0;
	if (!n)
		return;
	bool numeric = cites_style(c) == CITE_NUMERIC;
	/* its heading like the report's own: an id and a link to itself */
	buf_printf(out, "<section class=\"references\">\n<h2 id=\"references\">References"
			"<a class=\"ld-anchor\" href=\"#references\" aria-label=\"Link to this "
			"section: References\">#</a></h2>\n"
			"<ol class=\"references-%s\">\n",
		   numeric ? "numeric" : "author-year");
	for (size_t i = 0; i < n; i++) {
		struct cite_ref r = cites_ref(c, i);
		buf_puts(out, "<li id=\"");
		put_text(out, r.id, strlen(r.id));
		buf_puts(out, "\">");
		if (*r.label) {
			buf_puts(out, "<span class=\"ref-label\">");
			put_text(out, r.label, strlen(r.label));
			/* the space inside: the label's box ends the line it
			 * starts, so it adds no gap, but text without the
			 * stylesheet reads "[1] Name" */
			buf_puts(out, " </span>");
		}
		for (size_t k = 0; k < r.text->n; k++) {
			const struct directive_piece *pc = &r.text->p[k];
			if (pc->href) {
				buf_puts(out, "<a href=\"");
				put_text(out, pc->href, strlen(pc->href));
				buf_puts(out, "\">");
				put_text(out, pc->text, pc->len);
				buf_puts(out, "</a>");
			} else {
				put_text(out, pc->text, pc->len);
			}
		}
		buf_puts(out, "</li>\n");
	}
	buf_puts(out, "</ol>\n</section>\n");
}

/* cmark_render_html() allocates with the node's allocator, which for a
 * parsed tree is its document's arena's (resolve/gfmarena.c): the HTML
 * is asked of the heap instead, for free(). */
static char *render_node(cmark_node *node, struct _cmark_llist *extensions)
{
	return cmark_render_html_with_mem(node, doc_options(), extensions,
					  cmark_get_default_mem_allocator());
}

/* A heading as cmark writes it, with its id, its number and the link
 * to it: <h2 id="results"><span class="ld-secno">2</span> Results<a
 * class="ld-anchor" ...>#</a></h2>.  The link comes after the text, so
 * that it moves nothing; the stylesheet shows it on hover and focus. */
static char *heading_html(struct doc *doc, cmark_node *node, const struct section *sec)
{
	char *inner = render_node(node, doc_extensions(doc));
	int level = cmark_node_get_heading_level(node);
	/* "<hN>" ... "</hN>\n" */
	size_t n = strlen(inner);
	const char *from = n >= 10 ? inner + 4 : inner, *to = n >= 10 ? inner + n - 6 : inner;
	struct buf out = BUF_INIT;
	/* the level's digit by hand: two vsnprintf() a heading were
	 * more than the rest of it */
	char digit = (char)('0' + (level >= 1 && level <= 6 ? level : 6));
	buf_puts(&out, "<h");
	buf_putc(&out, digit);
	buf_puts(&out, " id=\"");
	put_text(&out, sec->id, strlen(sec->id));
	buf_puts(&out, "\">");
	if (*sec->number)
		buf_printf(&out, "<span class=\"ld-secno\">%s</span> ", sec->number);
	buf_put(&out, from, (size_t)(to - from));
	buf_puts(&out, "<a class=\"ld-anchor\" href=\"#");
	put_text(&out, sec->id, strlen(sec->id));
	buf_puts(&out, "\" aria-label=\"Link to this section: ");
	/* its values' placeholders stay, for fill() to write in */
	buf_put_html(&out, sec->text, strlen(sec->text));
	buf_puts(&out, "\">#</a></h");
	buf_putc(&out, digit);
	buf_puts(&out, ">\n");
	free(inner);
	return buf_detach(&out);
}

/* An image as cmark writes it, with its width and height as a style
 * (a percentage is the column's). */
static char *image_html(cmark_node *img, const struct block *b)
{
	char *html = render_node(img, NULL);
	size_t n = strlen(html);
	while (n && (html[n - 1] == '\n' || html[n - 1] == ' ' || html[n - 1] == '/' ||
		     html[n - 1] == '>'))
		n--;
	struct buf out = BUF_INIT;
	buf_put(&out, html, n);
	if (b->width.css || b->height.css) {
		buf_puts(&out, " style=\"");
		if (b->width.css)
			buf_printf(&out, "width:%s;", b->width.css);
		if (b->height.css)
			buf_printf(&out, "height:%s;", b->height.css);
		if (b->width.css && !b->height.css)
			buf_puts(&out, "height:auto;");
		else if (b->height.css && !b->width.css)
			buf_puts(&out, "width:auto;");
		buf_puts(&out, "\"");
	}
	buf_puts(&out, " />");
	free(html);
	return buf_detach(&out);
}

/* An image figure, as a {chart}'s: the image, then "Figure 2: " and its
 * title, or its description. */
static char *figure_html(cmark_node *img, const struct block *b)
{
	struct buf out = BUF_INIT;
	buf_puts(&out, "<figure class=\"ld-figure ld-image\"");
	if (b->label) {
		buf_puts(&out, " id=\"");
		put_text(&out, b->label, strlen(b->label));
		buf_puts(&out, "\"");
	}
	buf_puts(&out, ">");
	/* the image links to itself, as a chart does: on a phone it opens
	 * full size */
	char *tag = image_html(img, b);
	const char *src = strstr(tag, " src=\"");
	const char *q = src ? strchr(src + 6, '"') : NULL;
	if (q)
		buf_printf(&out, "<a href=\"%.*s\">", (int)(q - src - 6), src + 6);
	buf_puts(&out, tag);
	if (q)
		buf_puts(&out, "</a>");
	free(tag);
	buf_printf(&out, "<figcaption>Figure %d: ", b->number);
	if (b->title_caption) {
		const char *t = cmark_node_get_title(img);
		buf_put_html(&out, t, strlen(t));
	} else {
		for (cmark_node *c = cmark_node_first_child(img); c; c = cmark_node_next(c)) {
			char *h = render_node(c, NULL);
			buf_puts(&out, h);
			free(h);
		}
	}
	buf_puts(&out, "</figcaption></figure>\n");
	return buf_detach(&out);
}

/* A callout, GitHub's alert: its title with its icon, then its blocks. */
static void callout_html(cmark_node *node, const struct callout_kind *k)
{
	struct buf on = BUF_INIT;
	buf_printf(&on,
		   "<div class=\"ld-callout ld-callout-%s\">\n<p class=\"ld-callout-title\">"
		   "<svg class=\"ld-callout-icon\" viewBox=\"0 0 16 16\" width=\"16\" height=\"16\" "
		   "aria-hidden=\"true\"><path fill-rule=\"evenodd\" d=\"%s\"/></svg>%s</p>",
		   k->name, k->icon, k->title);
	cmark_node_set_on_enter(node, buf_data(&on));
	cmark_node_set_on_exit(node, "</div>");
	buf_free(&on);
}

/* Tabs without script: a radio button a tab (hidden, its label the
 * tab's title, reached by Tab and switched by the arrow keys), each
 * panel shown by the stylesheet while its button is checked. */
static void tabs_html(cmark_node *node, const struct block *b)
{
	char *s;
	switch (b->kind) {
	case BLOCK_TABS:
		cmark_node_set_on_enter(node, "<div class=\"ld-tabs\">");
		cmark_node_set_on_exit(node, "</div>");
		break;
	case BLOCK_TAB:
		s = xasprintf("<input type=\"radio\" class=\"ld-tab-input\" name=\"ld-tabs-%d\" "
			      "id=\"ld-tabs-%d-%d\"%s>",
			      b->tabs, b->tabs, b->tab, b->tab == 1 ? " checked" : "");
		cmark_node_set_on_enter(node, s);
		free(s);
		cmark_node_set_on_exit(node, "</div>");
		break;
	case BLOCK_TAB_TITLE:
		s = xasprintf("<label class=\"ld-tab\" for=\"ld-tabs-%d-%d\">", b->tabs, b->tab);
		cmark_node_set_on_enter(node, s);
		free(s);
		cmark_node_set_on_exit(node, "</label>\n<div class=\"ld-tab-panel\">");
		break;
	default:
		break;
	}
}

char *html_doc(struct doc *doc)
{
	fill_directives(doc);
	/* highlighted code blocks, headings, figures and images with a
	 * size stand in HTML blocks (inline: custom inlines) while cmark
	 * writes the page, and are put back for the PDF */
	cmark_node **swapped = NULL;
	size_t nswapped = 0;
	bool raw = false; /* HTML in the tree before the stand-ins: the author's, a directive's */
	cmark_iter *it = cmark_iter_new(doc_root(doc));
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *node = cmark_iter_get_node(it);
		cmark_node_type type = cmark_node_get_type(node);
		raw |= type == CMARK_NODE_HTML_BLOCK || type == CMARK_NODE_HTML_INLINE;
		const struct block *b = ev == CMARK_EVENT_ENTER ? doc_block(node) : NULL;
		if (b && b->kind == BLOCK_CALLOUT)
			callout_html(node, b->callout);
		else if (b && b->kind != BLOCK_IMAGE)
			tabs_html(node, b);
		if (ev == CMARK_EVENT_ENTER &&
		    (doc_code_block(node) || sections_of(node) || (b && b->kind == BLOCK_IMAGE))) {
			swapped = xrealloc(swapped, (nswapped + 1) * sizeof *swapped);
			swapped[nswapped++] = node;
		}
	}
	cmark_iter_free(it);
	cmark_node **stand = xcalloc(nswapped + 1, sizeof *stand);
	for (size_t i = 0; i < nswapped; i++) {
		const struct block *b = doc_block(swapped[i]);
		char *lit;
		if (b && b->figure) {
			/* the paragraph the figure stands alone in */
			lit = figure_html(swapped[i], b);
			swapped[i] = cmark_node_parent(swapped[i]);
			stand[i] = doc_node_new(CMARK_NODE_HTML_BLOCK);
			cmark_node_set_literal(stand[i], lit);
		} else if (b) {
			/* raw inline HTML, not a custom inline: a table's cell
			 * takes the one and refuses the other */
			lit = image_html(swapped[i], b);
			stand[i] = doc_node_new(CMARK_NODE_HTML_INLINE);
			cmark_node_set_literal(stand[i], lit);
		} else if (sections_of(swapped[i])) {
			stand[i] = doc_node_new(CMARK_NODE_HTML_BLOCK);
			lit = heading_html(doc, swapped[i], sections_of(swapped[i]));
			cmark_node_set_literal(stand[i], lit);
		} else {
			stand[i] = doc_node_new(CMARK_NODE_HTML_BLOCK);
			lit = code_html(swapped[i], doc_code_block(swapped[i]));
			cmark_node_set_literal(stand[i], lit);
		}
		free(lit);
		/* a node its parent refuses stays out: the block is then
		 * rendered as cmark renders it, never dropped */
		if (!cmark_node_insert_before(swapped[i], stand[i])) {
			cmark_node_free(stand[i]);
			stand[i] = NULL;
			continue;
		}
		cmark_node_unlink(swapped[i]);
	}
	char *html = render_node(doc_root(doc), doc_extensions(doc));
	for (size_t i = 0; i < nswapped; i++) {
		if (!stand[i])
			continue;
		cmark_node_insert_before(stand[i], swapped[i]);
		cmark_node_free(stand[i]);
	}
	free(stand);
	free(swapped);
	/* Without a placeholder, fill() changes only what the author's
	 * HTML may hold (an unquoted attribute's value): what cmark and
	 * the stand-ins write, every value quoted, it copies byte for
	 * byte.  A page of prose alone is not copied again. */
	char *filled = html;
	if (doc_value_count(doc) || raw) {
		filled = fill(doc, html);
		free(html);
	}
	/* the References before the footnotes, as Pandoc places them */
	struct buf refs = BUF_INIT;
	put_references(&refs, doc_cites(doc));
	if (!refs.len)
		return filled;
	struct buf out = BUF_INIT;
	const char *notes = strstr(filled, "<section class=\"footnotes\"");
	size_t at = notes ? (size_t)(notes - filled) : strlen(filled);
	buf_put(&out, filled, at);
	buf_put(&out, buf_data(&refs), refs.len);
	buf_puts(&out, filled + at);
	free(filled);
	buf_free(&refs);
	return buf_detach(&out);
}

char *html_render(const char *text, size_t len, const char *file, int line0,
		  struct directive_ctx *c)
{
	struct doc *doc = doc_resolve(text, len, file, line0, c);
	char *out = html_doc(doc);
	doc_free(doc);
	return out;
}
