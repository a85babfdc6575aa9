/* pdf_box.c: the resolved document's blocks as boxes (pdf_int.h), in
 * reading order: paragraphs, headings, code and {log} lines (wrapped,
 * each continuation marked), lists, block quotes, rules and the
 * footnotes at the end.  Tables (pdf_table.c), figures and images
 * (pdf_figure.c) add their boxes through the same box_add().  Which
 * boxes stay together (keep) is decided where the block is known, and
 * pagination (pdf.c) only follows it. */
#include "pdf_int.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/cite.h"
#include "resolve/blocks.h"
#include "resolve/codeblock.h"
#include "resolve/doc.h"
#include "resolve/provenance.h"
#include "resolve/section.h"

struct box *box_add(struct pdf *p, enum box_kind kind, const struct flow *f, double h,
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
void take_marker(struct flow *f, struct box *b)
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
size_t para_boxes(struct pdf *p, struct flow *f, struct para *pa, double before,
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
double flow_space(const struct flow *f)
{
	return f->tight ? 2 : 7;
}

static void paragraph(struct pdf *p, struct flow *f, cmark_node *n,
		      const PangoFontDescription *font, unsigned style, double before,
		      bool keep_all)
{
	struct rich r;
	rich_init(&r);
	r.width = f->w;
	r.size = pango_font_description_get_size(font) / (double)PANGO_SCALE;
	rich_inlines(p, &r, cmark_node_first_child(n), style);
	rich_keep_words(&r, f->w);
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
	/* its number, with number_sections, as on the page */
	const struct section *sec = sections_of(n);
	if (sec && *sec->number) {
		rich_put(&r, sec->number, strlen(sec->number), S_MUTED, NULL);
		rich_put(&r, "  ", 2, 0, NULL);
	}
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
		/* the section's id: where its references, the outline and
		 * the contents lead */
		if (sec)
			p->boxes[first].dest = xstrdup(sec->id);
		/* a little space under it, kept with what follows */
		p->boxes[p->nboxes - 1].keep = true;
	} else {
		free(title);
	}
}

/* A line of code or log longer than this is drawn in one colour, and
 * its words may break where pango's rules allow (after '-', '/', ...):
 * pango walks a paragraph's attributes from its start for each line it
 * wraps to, so a 1 MB line of 300,000 coloured tokens, or of 200,000
 * words each kept whole, took minutes (the second 5.5 minutes of CPU).
 * A code line this long of printable ASCII alone is set by mono_para(),
 * without pango. */
#define COLOUR_MAX 8192

/* The boxes of pa, the lines of one line of code or a log. */
static void code_boxes(struct pdf *p, struct flow *f, struct para *pa, double indent, unsigned bg,
		       double before, double pad_top, double pad_bottom, bool keep_first)
{
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
	if (r->text.len <= COLOUR_MAX)
		keep_words(r->attrs, t, r->text.len, lead < r->text.len ? lead : r->text.len,
			   inner - indent, 8.5, SIZE_MAX);
	PangoLayout *l = layout_new(p, p->f_mono, inner);
	pango_layout_set_text(l, buf_data(&r->text), (int)r->text.len);
	pango_layout_set_attributes(l, r->attrs);
	pango_layout_set_indent(l, (int)(-indent * PANGO_SCALE));
	code_boxes(p, f, para_new(l, r), indent, bg, before, pad_top, pad_bottom, keep_first);
}

/* What stays together of a code block or an excerpt of `lines` lines,
 * whose boxes start at first: all of it when it is short, else at
 * least three lines (as drawn) at the foot of a page and three at the
 * head of the next.  A page break in the middle of eight lines reads as
 * a cut, and one or two lines alone look like a mistake. */
#define SHORT_BLOCK 8
#define MIN_LINES 3
static void keep_lines(struct pdf *p, size_t first, int lines, char role)
{
	size_t last = p->nboxes;
	int block = ++p->nblocks;
	for (size_t k = first; k < last; k++) {
		struct box *b = &p->boxes[k];
		b->block = block;
		b->role = role;
		if (k + 1 < last && (lines <= SHORT_BLOCK || k < first + MIN_LINES - 1 ||
				     k + MIN_LINES >= last))
			b->keep = true;
	}
}

const unsigned hl_colours[HL_NCLASSES] = {
	[HL_KEYWORD] = 0xcf222e,  [HL_TYPE] = 0x953800,	    [HL_STRING] = 0x0a3069,
	[HL_SPECIAL] = 0x116329,  [HL_COMMENT] = 0x57606a,   [HL_NUMBER] = 0x0550ae,
	[HL_CONSTANT] = 0x0550ae, [HL_BUILTIN] = 0x8250df,   [HL_FUNCTION] = 0x6639ba,
	[HL_VARIABLE] = 0x953800, [HL_PREPROCESSOR] = 0x116329, [HL_ERROR] = 0xa40e26,
	[HL_WARNING] = 0x7d4e00,  [HL_INSERTED] = 0x116329,  [HL_DELETED] = 0xa40e26,
	[HL_HEADING] = 0x0550ae,
};

/* The runs of a highlighted line (cls, one class a byte of its n bytes)
 * coloured in r, whose text is the line. */
static void colour_run(struct rich *r, unsigned char cls, size_t a, size_t b)
{
	if (cls < HL_NCLASSES && hl_colours[cls])
		attr_colour(r->attrs, hl_colours[cls], a, b);
}

/* A code block, a box a line as drawn.  With line numbers, the code
 * moves right of a gutter where pdf.c draws each number as outlines
 * (as it draws the wrap arrows), so that copying the code from the PDF
 * copies the code alone; a line hl_lines names is on the band of an
 * excerpt's matched line. */
static void code_block(struct pdf *p, struct flow *f, cmark_node *n)
{
	const char *s = cmark_node_get_literal(n);
	const char *s0 = s;
	const struct code_block *cb = doc_code_block(n);
	const unsigned char *cls = cb ? cb->classes : NULL;
	size_t len = strlen(s);
	if (len && s[len - 1] == '\n')
		len--;
	size_t first = p->nboxes;
	const char *end = s + len;
	int k = 0;
	double em = 8.5 * 0.6; /* a DejaVu Sans Mono cell at 8.5 pt */
	struct flow g = *f;
	double gutter = 0;
	if (cb && cb->numbered) {
		int digits = 1;
		for (long w = cb->start + (long)cb->nlines; w >= 10; w /= 10)
			digits++;
		gutter = (digits + 2.5) * em;
		g.x += gutter;
		g.w -= gutter;
	}
	while (s <= end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		bool marked = cb && cb->marked && (size_t)k < cb->nlines && cb->marked[k];
		size_t before = p->nboxes;
		/* a long line of plain ASCII: its glyphs set without pango,
		 * which spent about 40% of a 1 MiB line's time shaping it
		 * and breaking it into lines */
		struct para *mono = (size_t)(e - s) > COLOUR_MAX
					    ? mono_para(p, s, (size_t)(e - s), g.w - 12, 2 * em)
					    : NULL;
		unsigned bg = marked ? C_HIT_BG : C_CODE_BG;
		double above = k == 0 ? flow_space(f) : 0, pad_top = k == 0 ? 5 : 0,
		       pad_bottom = nl ? 0 : 5;
		if (mono) {
			code_boxes(p, &g, mono, 2 * em, bg, above, pad_top, pad_bottom, false);
		} else {
			struct rich r;
			rich_init(&r);
			rich_put(&r, s, (size_t)(e - s), 0, NULL);
			/* (a line of invalid UTF-8 was mended: its bytes moved) */
			if (cls && (size_t)(e - s) <= COLOUR_MAX &&
			    r.text.len - rich_added(&r, 0) == (size_t)(e - s))
				rich_classes(&r, cls + (s - s0), (size_t)(e - s), 0, colour_run);
			if (!r.text.len)
				buf_puts(&r.text, " ");
			code_line(p, &g, &r, strspn(buf_data(&r.text), " \t"), 2 * em, bg, above,
				  pad_top, pad_bottom, false);
			rich_clear(&r);
		}
		for (size_t j = before; gutter > 0 && j < p->nboxes; j++) {
			struct box *b = &p->boxes[j];
			b->bg_x = f->x;
			b->bg_w = f->w;
			b->num_r = g.x + 6 - 1.6 * em;
			b->lineno = cb->start + k;
		}
		/* a list item's marker went to the first line: taken from f
		 * too, which g copies */
		f->marker = g.marker;
		k++;
		if (!nl)
			break;
		s = nl + 1;
	}
	keep_lines(p, first, k, 'c');
}

static void rule(struct pdf *p, struct flow *f)
{
	box_add(p, BOX_RULE, f, 12, 6);
}

static void log_block(struct pdf *p, struct flow *f, const struct directive_result *res)
{
	long widest = 1;
	for (size_t i = 0; i < res->nlines; i++)
		widest = res->lines[i].shown_no > widest ? res->lines[i].shown_no : widest;
	int digits = 1;
	for (long w = widest; w >= 10; w /= 10)
		digits++;
	double em = 8.5 * 0.6;
	double indent = (digits + 1) * em;
	size_t first = p->nboxes;
	struct hl_matcher *lang = provenance_log_matcher();
	for (size_t i = 0; i < res->nlines; i++) {
		const struct directive_line *l = &res->lines[i];
		struct rich r;
		rich_init(&r);
		size_t lead = 0;
		if (l->no > 0) {
			char *num = xasprintf("%*ld ", digits, l->shown_no);
			lead = strlen(num);
			char *to = l->href ? value_href(p, l->href, false) : NULL;
			rich_put(&r, num, strlen(num), S_MUTED, to);
			free(to);
			free(num);
			/* the number links to the log's page, not underlined */
			attr_add(r.attrs, pango_attr_underline_new(PANGO_UNDERLINE_NONE), 0,
				 r.text.len);
			attr_colour(r.attrs, C_MUTED, 0, r.text.len);
			size_t at = r.text.len, n = strlen(l->text);
			rich_put(&r, l->text, n, 0, NULL);
			/* coloured as the page colours it (a line mended from
			 * invalid UTF-8 or control bytes moved: plain) */
			unsigned char *cls = provenance_log_classes(lang, l->text, n);
			if (cls && n <= COLOUR_MAX && r.text.len - at - rich_added(&r, at) == n)
				rich_classes(&r, cls, n, at, colour_run);
			free(cls);
			if (!*l->text)
				buf_puts(&r.text, " ");
		} else {
			rich_put(&r, l->text, strlen(l->text), S_MUTED | S_ITALIC, NULL);
		}
		size_t before = p->nboxes;
		code_line(p, f, &r, lead, indent, l->hit ? C_HIT_BG : C_CODE_BG,
			  i == 0 ? flow_space(f) : 0, i == 0 ? 5 : 0, i + 1 == res->nlines ? 5 : 0,
			  false);
		if (i == 0 && res->label && p->nboxes > before)
			p->boxes[before].dest = xstrdup(res->label);
		rich_clear(&r);
	}
	hl_matcher_free(lang);
	keep_lines(p, first, (int)res->nlines, 'l');
}

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
		pdf_blocks(p, &sub, cmark_node_first_child(it));
		if (sub.marker) /* an empty item */
			g_object_unref(sub.marker);
		if (p->nboxes > before) {
			p->boxes[before].before = first_item ? flow_space(f) : tight ? 2 : 6;
		}
		first_item = false;
	}
}

void pdf_footnotes(struct pdf *p, struct flow *f, cmark_node **defs, size_t ndefs)
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
		pdf_blocks(p, &sub, cmark_node_first_child(def));
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

/* An appendix's heading (Sources, References): a level-2 heading in
 * the outline, the destination dest. */
static void appendix_heading(struct pdf *p, struct flow *f, const char *title, const char *dest)
{
	struct rich r;
	rich_init(&r);
	rich_put(&r, title, strlen(title), 0, NULL);
	PangoLayout *hl = layout_new(p, p->f_head[1], f->w);
	pango_layout_set_text(hl, buf_data(&r.text), (int)r.text.len);
	pango_layout_set_attributes(hl, r.attrs);
	struct para *hp = para_new(hl, &r);
	rich_clear(&r);
	size_t first = p->nboxes;
	para_boxes(p, f, hp, 22, 0, true);
	if (p->nboxes > first) {
		p->boxes[first].outline = 2;
		p->boxes[first].title = xstrdup(title);
		p->boxes[first].dest = xstrdup(dest);
	}
}

/* The appendix "Sources": each log line a value links to, numbered in
 * the order of first use ("1. logs/run.log, line 123"), each entry a
 * destination its values lead to.  The entry itself links to the line
 * on the log's page, relative, which works while the PDF sits in the
 * site. */
void pdf_sources(struct pdf *p, struct flow *f)
{
	if (!p->nsources)
		return;
	appendix_heading(p, f, "Sources", "ld-sources");
	struct rich r;
	for (size_t k = 0; k < p->nsources; k++) {
		const char *href = p->sources[k];
		const char *hash = strstr(href, ".html#L");
		char *text = xasprintf("%.*s, line %ld", (int)(hash - href), href,
				       strtol(hash + 7, NULL, 10));
		struct flow sub = *f;
		sub.x += 22;
		sub.w -= 22;
		char *mark = xasprintf("%zu.", k + 1);
		PangoLayout *ml = layout_new(p, p->f_small, 0);
		pango_layout_set_text(ml, mark, -1);
		free(mark);
		sub.marker = ml;
		sub.marker_x = -layout_width(ml) - 5;
		rich_init(&r);
		rich_put(&r, text, strlen(text), 0, href);
		free(text);
		PangoLayout *l = layout_new(p, p->f_small, sub.w);
		pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
		pango_layout_set_attributes(l, r.attrs);
		pango_layout_set_line_spacing(l, 1.3f);
		struct para *pa = para_new(l, &r);
		rich_clear(&r);
		size_t at = para_boxes(p, &sub, pa, k ? 2 : 8, 0, false);
		if (sub.marker)
			g_object_unref(sub.marker);
		if (p->nboxes > at)
			p->boxes[at].dest = xasprintf("ld-src-%zu", k + 1);
	}
}

/* The References: the entries cited, each a destination its
 * citations lead to ("ref-KEY"), its DOI and URL linked. */
void pdf_references(struct pdf *p, struct flow *f)
{
	struct cites *c = doc_cites(p->doc);
	size_t n = c ? cites_count(c) : 0;
	if (!n)
		return;
	appendix_heading(p, f, "References", "references");
	struct rich r;
	bool numeric = cites_style(c) == CITE_NUMERIC;
	double indent = numeric ? 26 : 0;
	for (size_t k = 0; k < n; k++) {
		struct cite_ref ref = cites_ref(c, k);
		struct flow sub = *f;
		sub.x += indent;
		sub.w -= indent;
		if (numeric) {
			PangoLayout *ml = layout_new(p, p->f_small, 0);
			pango_layout_set_text(ml, ref.label, -1);
			sub.marker = ml;
			sub.marker_x = -indent;
		}
		rich_init(&r);
		for (size_t i = 0; i < ref.text->n; i++) {
			const struct directive_piece *pc = &ref.text->p[i];
			rich_put(&r, pc->text, pc->len, 0, pc->href);
		}
		PangoLayout *l = layout_new(p, p->f_small, sub.w);
		pango_layout_set_text(l, buf_data(&r.text), (int)r.text.len);
		pango_layout_set_attributes(l, r.attrs);
		pango_layout_set_line_spacing(l, 1.3f);
		struct para *pa = para_new(l, &r);
		rich_clear(&r);
		size_t at = para_boxes(p, &sub, pa, k ? 4 : 8, 0, false);
		if (sub.marker)
			g_object_unref(sub.marker);
		if (p->nboxes > at)
			p->boxes[at].dest = xstrdup(ref.id);
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
	para_boxes(p, f, pa, flow_space(f), 0, false);
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
			paragraph(p, f, n, p->f_body, 0, flow_space(f), false);
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
		pdf_blocks(p, &sub, cmark_node_first_child(n));
		f->marker = sub.marker;
		if (p->nboxes > before)
			p->boxes[before].before = flow_space(f);
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
	case CMARK_NODE_CUSTOM_BLOCK: {
		const struct block *b = doc_block(n);
		if (b && b->kind == BLOCK_CALLOUT)
			callout_block(p, f, n, b);
		else if (b && b->kind == BLOCK_TABS)
			tabs_block(p, f, n);
		else
			pdf_blocks(p, f, cmark_node_first_child(n));
		return;
	}
	case CMARK_NODE_HTML_BLOCK: {
		const struct directive_result *res = doc_directive(n);
		if (!res)
			raw_images_left_out(p, n); /* the author's own HTML has no print form */
		if (!res || !res->ok)
			return;
		if (res->kind == DIRECTIVE_DIAGRAM)
			diagram_block(p, f, res, n);
		else if (res->kind == DIRECTIVE_TABLE)
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
	pdf_blocks(p, f, cmark_node_first_child(n));
}

void pdf_blocks(struct pdf *p, struct flow *f, cmark_node *first)
{
	for (cmark_node *n = first; n; n = cmark_node_next(n))
		block(p, f, n);
}
