/* pdf_table.c: tables as boxes, one a row: a {table} directive's
 * result and a GFM table both become a grid of rich text, whose column
 * widths are chosen to fit the page (natural widths, then wrapped
 * cells, then a smaller font, then cut words).  The header row is
 * marked for pdf.c to repeat on every page the table runs onto. */
#include "pdf_int.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/doc.h"

/* A table to lay out: cells of rich text, row 0 the header. */
struct grid {
	size_t rows, cols;
	struct rich *cells;
	char *align; /* per cell: 'l', 'c' or 'r' as GFM writes it */
	size_t header_rows;
};

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

void table_block(struct pdf *p, struct flow *f, const struct directive_result *res,
		 cmark_node *n)
{
	struct loc at = loc_line(doc_file(p->doc), doc_line0(p->doc) + cmark_node_get_start_line(n));
	size_t first = p->nboxes;
	caption_box(p, f, res, "Table", flow_space(f) + 4);
	struct grid g;
	grid_init(&g, res->rows, res->cols);
	/* a long table (a series shown whole) adds no Sources entries: the
	 * appendix would outgrow the report; its values keep their links
	 * to the log pages, which work from inside the site */
	p->no_entries = res->rows > SOURCES_TABLE_ROWS + 1;
	for (size_t i = 0; i < res->rows * res->cols; i++) {
		rich_pieces(p, &g.cells[i], &res->cells[i].text, 0, true);
		g.align[i] = res->cells[i].right ? 'r' : 'l';
	}
	p->no_entries = false;
	grid_boxes(p, f, &g, res->label, at);
	grid_free(&g);
	if (p->nboxes > first && res->label && !p->boxes[first].dest)
		p->boxes[first].dest = xstrdup(res->label);
}

void gfm_table(struct pdf *p, struct flow *f, cmark_node *n)
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
		p->boxes[first].before = flow_space(f) + 4;
	grid_free(&g);
}
