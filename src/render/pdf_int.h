/* pdf_int.h: what the files of the PDF renderer share, and no one else
 * (pdf.h is the public side): the boxes the blocks become and the text
 * they show.
 *
 *   pdf_text.c    inlines as pango text with its links (struct rich),
 *                 laid out in lines (struct para)
 *   pdf_box.c     the block walk: blocks into boxes (struct box)
 *   pdf_table.c   tables, their column widths
 *   pdf_figure.c  charts, images and captions
 *   pdf_blocks.c  callouts and tabs
 *   pdf_math.c    math (render/mathlayout.h), a pango shape in its line
 *   pdf.c         the boxes onto pages, drawn on cairo's PDF surface
 *
 * A box is one fixed height: a line of a paragraph, a line of code, a
 * table row, a figure, a rule.  Every function takes the struct pdf of
 * the one report being laid out; nothing here is global. */
#ifndef LOGDOWN_PDF_INT_H
#define LOGDOWN_PDF_INT_H

#include <cairo.h>
#include <cmark-gfm.h>
#include <librsvg/rsvg.h>
#include <pango/pangocairo.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/util.h"
#include "draw/chart.h"
#include "render/pdf.h"
#include "resolve/highlight.h"
#include "resolve/directive.h"

struct doc;

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
#define C_VALUE 0x1d3f66

/* Highlighted code's colours by enum hl_class: the page's light theme
 * (static/logdown.css --ld-hl-*); 0 keeps the text's colour. */
extern const unsigned hl_colours[HL_NCLASSES];

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
	size_t (*code)[2]; /* byte ranges of inline code */
	size_t ncode;
	double width; /* the text's width, for display math (0: unknown) */
	double size;  /* its font size, for math (0: the body's) */
	bool after_display; /* a line break before the next text */
	size_t unbroken; /* characters since the last break opportunity */
	size_t chunk_start; /* where the text's current chunk starts (put_breakable()) */
	size_t nchunks;
	size_t *zw;      /* where rich_put() added a zero-width space (U+200B, */
	size_t nzw;      /* 3 bytes) to a long unbroken run, ascending */
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
	size_t (*code)[2]; /* byte ranges of inline code, in order: their background */
	size_t ncode;
	int refs;
	/* a long line of plain code laid out without pango (mono_para()):
	 * no layout and no lines, each line's glyphs in font instead */
	PangoGlyphString **glyphs;
	PangoFont *font;
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
	/* a callout's ground (tint, under bg) and bar, from tint_x, tint_w
	 * wide; group: the callout's number, whose boxes' gaps on a page
	 * are painted too */
	unsigned tint, bar;
	double tint_x, tint_w;
	int group;
	RsvgHandle *icon; /* a callout's icon, drawn at icon_x on the line */
	double icon_x;
	double pad_top;
	/* BOX_LINE */
	struct para *para;
	int line;
	PangoLayout *marker;  /* a list item's bullet or number */
	double marker_x;
	bool wrapped;         /* code: a continuation, marked at gutter_x */
	double gutter_x;
	double num_r;         /* code: the number gutter's right edge, from the
			       * margin; 0: no gutter */
	long lineno;          /* its line's number, drawn there unless wrapped */
	/* a named destination ("fig-loss") and a bookmark */
	char *dest;
	int outline;          /* heading level; 0: not in the outline */
	char *title;
	/* an entry of the contents (pdf_toc.c): the section it leads to,
	 * and its page (from 1) once the pages are known */
	char *toc_dest;
	int toc_page;
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
	/* for the layout record (LOGDOWN_PDF_LAYOUT): the code block or
	 * {log} excerpt the line belongs to, numbered from 1; 0 for none */
	int block;
	char role;            /* 'c' code, 'l' log, 0 otherwise */
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
	int nblocks;             /* code blocks and excerpts so far */
	int ncallouts;           /* callouts so far, their boxes' group */
	/* values' links to log lines: absolute from base_url, or else
	 * to entries of the Sources appendix, in the order of first use */
	char *base;              /* base_url + slug + "/", or NULL */
	char **sources;          /* each entry's link on the site, relative */
	size_t nsources;
	bool no_entries;         /* inside a table too long for the appendix */
	/* math: the font (once looked for), the laid-out formulas the
	 * layouts' shapes point to */
	struct math_font *math_font;
	bool math_font_tried;
	struct pdf_math **maths;
	size_t nmaths;
	/* the raw HTML nodes whose <img> tags were warned of
	 * (raw_images_left_out()): a heading's inlines are laid out for
	 * the table of contents too */
	cmark_node **raw_said;
	size_t nraw_said;
	/* the code font's glyphs of printable ASCII (mono_para()), found
	 * once; mono_font NULL when they cannot be used */
	bool mono_tried;
	PangoFont *mono_font;
	PangoGlyphInfo mono_glyph[95];
	double mono_h, mono_base; /* a line's height and baseline */
};

/* The rows a {table} may have for its values to get Sources entries. */
#define SOURCES_TABLE_ROWS 50

/* pdf_text.c */
void attr_add(PangoAttrList *l, PangoAttribute *a, size_t start, size_t end);
void attr_colour(PangoAttrList *l, unsigned c, size_t a, size_t b);
void rich_init(struct rich *r);
void rich_clear(struct rich *r);
void rich_put(struct rich *r, const char *s, size_t n, unsigned style, const char *href);

/* How many bytes rich_put() added (zero-width spaces in long unbroken
 * runs) after r->text offset at. */
size_t rich_added(const struct rich *r, size_t at);

/* For classes cls[0..n) of the n bytes put at r->text offset at (one
 * rich_put() of n bytes), run() on each run of one class with its range
 * in r->text as it is now, the added zero-width spaces counted. */
void rich_classes(struct rich *r, const unsigned char *cls, size_t n, size_t at,
		  void (*run)(struct rich *r, unsigned char cls, size_t a, size_t b));
void rich_pieces(struct pdf *p, struct rich *r, const struct directive_text *t, unsigned style,
		 bool link);
void rich_inlines(struct pdf *p, struct rich *r, cmark_node *first, unsigned style);
void rich_flat(struct pdf *p, struct rich *r, cmark_node *n, unsigned style);
/* Caller frees. */
char *resolve_url(struct pdf *p, const char *s);
/* Where a link to a log page's line leads in the PDF: the absolute URL
 * when there is a base_url, else (entry) "#ld-src-N" of its Sources
 * entry, else href itself; any other link is href.  Caller frees. */
char *value_href(struct pdf *p, const char *href, bool entry);
/* Inline code with its words kept whole where they fit in width
 * points (a command line breaks at its spaces first). */
void rich_keep_words(struct rich *r, double width);
/* The same for a line of code in DejaVu Sans Mono at size points, from
 * byte `from`: at most max words (each an attribute); returns how many. */
size_t keep_words(PangoAttrList *attrs, const char *text, size_t len, size_t from, double width,
		  double size, size_t max);
/* Caller unrefs with g_object_unref(), unless para_new() takes it. */
PangoLayout *layout_new(struct pdf *p, const PangoFontDescription *f, double width);
double layout_width(PangoLayout *l);
/* The para starts with no reference: each box that shows one of its
 * lines takes one, and para_unref() frees it with the last. */
struct para *para_new(PangoLayout *l, struct rich *r);
void para_unref(struct para *pa);
/* The n bytes of s, a line of code in the code font, wrapped to width
 * points, continuations indented by indent, without pango's shaping
 * and line breaking: each character one glyph of a fixed advance,
 * a line broken after its last blank in its second half, else where
 * it is full.  NULL when s is not all printable ASCII, or the font
 * does not give each such character one glyph: lay it out with pango. */
struct para *mono_para(struct pdf *p, const char *s, size_t n, double width, double indent);
/* Frees what mono_para() found once. */
void mono_free(struct pdf *p);

/* pdf_text.c: math pieces as pango shapes drawn by pdf_math.c */
void math_shapes_setup(struct pdf *p);
void math_shapes_free(struct pdf *p);

/* pdf.c */
void link_rect(struct pdf *p, const char *href, double x, double y, double w, double h);
void pdf_set_rgb(cairo_t *cr, unsigned c);

/* pdf_toc.c: the contents after the title block, with m->toc: a line
 * a section (the first TOC_DEPTH depths), its page number at the right
 * after dot leaders, the whole line a link to the section. */
void pdf_contents(struct pdf *p, struct flow *f);
/* The page number and the leaders of entry b, drawn at (x, y), and
 * its link. */
void pdf_contents_draw(struct pdf *p, const struct box *b, double x, double y);

/* pdf_box.c */
struct box *box_add(struct pdf *p, enum box_kind kind, const struct flow *f, double h,
		    double before);
void take_marker(struct flow *f, struct box *b);
size_t para_boxes(struct pdf *p, struct flow *f, struct para *pa, double before, double x_off,
		  bool keep_all);
double flow_space(const struct flow *f);
void pdf_blocks(struct pdf *p, struct flow *f, cmark_node *first);
void pdf_footnotes(struct pdf *p, struct flow *f, cmark_node **defs, size_t ndefs);
void pdf_sources(struct pdf *p, struct flow *f);
void pdf_references(struct pdf *p, struct flow *f);

/* pdf_table.c */
void table_block(struct pdf *p, struct flow *f, const struct directive_result *res,
		 cmark_node *n);
void gfm_table(struct pdf *p, struct flow *f, cmark_node *n);

/* pdf_blocks.c */
struct block;
void callout_block(struct pdf *p, struct flow *f, cmark_node *n, const struct block *b);
void tabs_block(struct pdf *p, struct flow *f, cmark_node *n);

/* pdf_figure.c */
void caption_box(struct pdf *p, struct flow *f, const struct directive_result *res,
		 const char *kind, double before);
void chart_block(struct pdf *p, struct flow *f, const struct directive_result *res,
		 cmark_node *n);
/* svglib.c: librsvg's functions, opened at the first SVG a PDF draws
 * (base/lazylib.h): an SVG handle exists only once they are. */
struct svglib {
	__typeof__(rsvg_handle_new_from_data) *new_from_data;
	__typeof__(rsvg_handle_new_from_file) *new_from_file;
	__typeof__(rsvg_handle_set_dpi) *set_dpi;
	__typeof__(rsvg_handle_get_intrinsic_size_in_pixels) *get_intrinsic_size_in_pixels;
	__typeof__(rsvg_handle_get_intrinsic_dimensions) *get_intrinsic_dimensions;
	__typeof__(rsvg_handle_render_document) *render_document;
};
/* librsvg's functions; NULL when it cannot be loaded, *why (not freed)
 * saying which file is missing and which package installs it. */
const struct svglib *svglib(const char **why);
/* The same, where an SVG handle shows that svglib() gave them. */
const struct svglib *svglib_loaded(void);

/* A diagram (resolve/diagram.h): its SVG drawn by librsvg as vectors,
 * a CSS pixel 0.75 pt as a chart's, narrowed to the column, and its
 * caption. */
void diagram_block(struct pdf *p, struct flow *f, const struct directive_result *res,
		   cmark_node *n);
cmark_node *lone_image(cmark_node *n);
void image_block(struct pdf *p, struct flow *f, cmark_node *img);
/* The author's raw HTML (n, a block or an inline tag) has no print
 * form: each <img> in it is a warning at its tag, with the Markdown
 * that shows it in the PDF too. */
void raw_images_left_out(struct pdf *p, cmark_node *n);
void image_open(struct pdf *p, cmark_node *img, cairo_surface_t **s, RsvgHandle **svg,
		double *sw, double *sh, char **src);

#endif
