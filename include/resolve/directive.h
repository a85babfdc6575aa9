/* directive.h: the block directives of SPEC section 6: fenced code
 * blocks whose info string is {table}, {log} or {chart}, with a YAML
 * body checked key by key, each resolved to a structured result that
 * both renderers draw: render/html.h for the page, render/pdf.h for the
 * PDF. */
#ifndef LOGDOWN_DIRECTIVE_H
#define LOGDOWN_DIRECTIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "data/cache.h"
#include "expr/expr.h"
#include "data/value.h"

#include "draw/chart.h"

struct buf;
struct cites;
struct memo;
struct claim_base;
struct provenance;

/* A piece of text as the page and the PDF show it: plain text (href
 * NULL), or a value with the place it links to: a log page's line
 * ("logs/bs512.log.html#L53"), or "#fig-loss" for a place in the
 * report itself. */
struct directive_piece {
	char *text;
	char *href;
	bool value;   /* a resolved value (drawn as a value) */
	bool missing; /* a missing value: text is the dash */
	size_t len;   /* of text, which may hold NUL bytes from a log */
	/* A value's tooltip: the line it came from ("logs/bs512.log:53"),
	 * or a computed value's inputs; NULL for none.  Not escaped. */
	char *title;
	bool boolean; /* a true or false: left out of a link's URL */
	/* Math: text is its MathML (HTML, with the placeholders of the
	 * values in it), title its TeX as written (the values as
	 * placeholders). */
	bool math;
	/* A reference's name in italics: an unnumbered section's heading,
	 * as in "the section *Results*". */
	bool emph;
};

/* A run of pieces: a caption, a table cell. */
struct directive_text {
	struct directive_piece *p;
	size_t n;
};

enum directive_kind { DIRECTIVE_TABLE, DIRECTIVE_LOG, DIRECTIVE_CHART, DIRECTIVE_DIAGRAM };

struct directive_cell {
	struct directive_text text;
	bool header; /* a <th> */
	bool right;  /* right-aligned: a column of numbers */
};

struct directive_line {
	long no;     /* the line's number; 0 for a gap ("…", "… 3 more lines") */
	long shown_no; /* the number shown: no, or in a notebook's log the
			* line in its cell's output (a line no 0 before it
			* names the cell) */
	char *text;  /* as the page shows it, not escaped */
	char *href;  /* the line on the log's page; NULL for a gap */
	bool hit;    /* matched, or asked for */
	size_t len;  /* of text, which may hold NUL bytes */
	bool cut;    /* longer than PROVENANCE_LINE_MAX: text is its start */
};

/* What a directive resolved to: the cells, lines and chart that the
 * page (render/html.h) and the PDF (render/pdf.h) both show. */
struct directive_result {
	enum directive_kind kind;
	bool ok;         /* rendered without an error */
	char *label;     /* the id, or NULL */
	int number;      /* Table N / Figure N; 0: not numbered */
	bool has_caption;
	struct directive_text caption; /* {{ }} values resolved; @refs left as text */
	/* DIRECTIVE_TABLE: rows x cols cells, row-major; row 0 is the
	 * header row */
	struct directive_cell *cells;
	size_t rows, cols;
	/* DIRECTIVE_LOG */
	struct directive_line *lines;
	size_t nlines;
	/* DIRECTIVE_CHART: the chart as drawn (chart.h); its series and
	 * points only when it was drawn from the runs, not taken from the
	 * memo (directive_ctx's memo_charts) */
	struct chart chart;
	/* DIRECTIVE_CHART: what the manifest records of each series, then
	 * of each roofline point: its name, its number of points and the
	 * hash of its points (chart_digest_hash()) */
	struct chart_digest *digest;
	size_t ndigest;
	/* where the caption was written: its @refs are reported there */
	struct loc caption_at;
	/* where the directive's fence was written (its '{') */
	struct loc at;
	/* DIRECTIVE_TABLE: turned about its diagonal (transpose: true) */
	bool transposed;
	/* DIRECTIVE_CHART: the files' name, figures/FIGURE.svg (and .png,
	 * .pdf), and the image's alt text (its title, its caption as
	 * written, or "chart") */
	char *figure;
	char *alt;
	/* DIRECTIVE_CHART: the size of figures/FIGURE.narrow.svg, drawn
	 * for a phone; 0 when the chart is narrow enough as it is */
	int narrow_width, narrow_height;
	/* DIRECTIVE_DIAGRAM (resolve/diagram.h): the SVG Graphviz drew, as
	 * the page inlines it (its default colour currentColor), its size
	 * in CSS pixels, and its smallest text's size in pixels */
	char *svg;
	size_t svg_len;
	int svg_width, svg_height;
	double svg_text_min;
};

struct chart_digest {
	char *name;
	size_t points;
	struct cache_key hash;
};

/* The hash of a series' points: a bar chart's categories (each ending
 * in a NUL), then x and y of each point (x NaN when the points are
 * numbered, y NaN past the last y), each as the 8 bytes of its IEEE
 * double, least significant first.  Hashed in pieces: a chart of
 * millions of points is never a second copy in memory. */
struct cache_key chart_digest_hash(const struct chart *c, const struct chart_series *s);
/* Its points' part: n points into h, point i as x[i] and y[i], NaN
 * where i is past nx or ny (x NULL: every x NaN); a chart carried over
 * an append hashes its new points with it (resolve/chartcarry.c). */
void chart_digest_points(struct cache_hasher *h, const double *x, size_t nx, const double *y,
			 size_t ny, size_t n);

/* Frees everything r owns (not r itself); r is zeroed. */
void directive_result_clear(struct directive_result *r);

/* Appends a piece to t; text (len bytes) and href are copied (href may
 * be NULL).  Empty plain text adds nothing. */
void directive_text_add(struct directive_text *t, const char *text, size_t len,
			const char *href, bool value, bool missing);
void directive_text_clear(struct directive_text *t);

/* What a directive is resolved with: the report's runs, run sets and
 * provenance, and the numbering of its captions. */
struct directive_ctx {
	const struct scope *scope;       /* the report's runs */
	/* run sets by name (rows: cs), parallel arrays */
	const char *const *set_names;
	const struct run *const *const *set_runs;
	const size_t *set_counts;
	size_t nsets;
	/* NULL, or parallel to set_names: set true for each run set a
	 * directive's rows: or series: named (the scope's runs_used does
	 * the same for runs). */
	bool *sets_used;
	struct provenance *prov;
	struct diag *d;
	/* The project folder as given on the command line and canonical
	 * (either may be NULL): tooltips name source files relative to it,
	 * so that a page is the same however the folder was named. */
	const char *root;
	const char *root_real;
	/* the bibliography and the citations so far (resolve/cite.h);
	 * NULL: citations are left as text */
	struct cites *cites;
	bool number_sections; /* headings numbered, "Section 2.1" (section.h) */
	int tables;  /* captions numbered so far: the caller's to count */
	int figures;
	/* Writes a chart's file, figures/NAME.EXT beside the report's page;
	 * NULL when checking (nothing written).  False after an I/O error,
	 * reported. */
	bool (*write_figure)(void *ctx, const char *name, const char *ext, const char *data,
			     size_t len);
	void *figure_ctx;
	unsigned figure_formats; /* FIGURE_SVG (always), FIGURE_PNG, FIGURE_PDF */
	/* Claims (claim.h): the front matter's expect: block (NULL: none),
	 * where a relative claim finds its committed value (NULL: nowhere),
	 * and --no-claims (a broken claim is a warning). */
	const struct value *expect;
	const struct claim_base *claim_base;
	bool claims_warn;
	/* The report's memo (data/memo.h; NULL: none) and the key of what
	 * its values and charts may read besides their own text: the
	 * site's key, the report's path and front matter, and the keys of
	 * every input of its runs (site/reuse.c, report_key()).  A value
	 * that is not a plain reference, and with memo_charts a chart, is
	 * taken from the memo when its key is there (resolve/memoize.c).
	 * memo_charts is false when a PDF is drawn: it draws the chart's
	 * points, which a chart from the memo does not have. */
	struct memo *memo;
	struct cache_key memo_key;
	bool memo_charts;
	/* Values the page shows so far, {{ }} and table cells: the caller
	 * starts it at 0; past limit page_values the page is refused before
	 * the next ones are made. */
	size_t values_shown;
};

#define FIGURE_SVG 1u
#define FIGURE_PNG 2u
#define FIGURE_PDF 4u

/* Resolves a {table} whose YAML body (already parsed, with locations in
 * the .md file) is `body` into *out: a header row, then a row per row
 * of the table (each cell one piece, show.h), turned about its diagonal
 * with transpose; render/html.h draws it as cmark-gfm writes a GFM
 * table.  `number` is the caption's number (assigned by the caller in
 * document order; "Table N: " is left out when it is 0).
 *
 * Keys: caption; label (checked and numbered by the caller: only put
 * on the figure here); rows: a run set, a run, a list of runs (a run
 * set in the list stands for its runs) or a series reference
 * (cs512.train: a row per series row); columns: an ordered map of
 * header -> "expression" or "expression :spec" (without columns, a
 * series shows all its columns and runs show their name and every
 * field any of them has); where: an expression true or false per row
 * (a missing result drops the row; a number or string is an error);
 * sort: a column header or an expression, '-' first for descending
 * (numbers numerically, strings bytewise, missing last either way,
 * stable); limit: a positive integer, applied after where and sort;
 * transpose: true turns the table about its diagonal, headers
 * included, so the first column (the runs' names, typically) heads
 * the table and each other column becomes a row led by its header.
 *
 * Inside a row, names resolve to the row first (a run's fields and
 * series; a series row's columns), then to the report's runs.  A cell
 * shows as an inline value does (show.h).  A column whose values are
 * all numbers (missing ones aside) is right-aligned.
 *
 * Every key is checked: an unknown key (with a did-you-mean) or a bad
 * value is an error at its own line and column, an expression error at
 * its column inside the value; every problem is reported, an
 * evaluation error once per expression, not once per row.  Returns
 * false on an error, and then out->ok stays false.  out is the
 * caller's, zeroed; free with directive_result_clear(). */
bool directive_table(struct directive_ctx *c, const struct value *body, int number,
		     struct directive_result *out);

/* Resolves a {chart}: type (line, bar, scatter, roofline), title,
 * caption, series (runs or a run set: one line or one group of bars
 * each; for line and scatter also a series of a run, bench.metis, whose
 * columns x and y then name, its legend key the last part), x, y (expressions in each run; for bars, y may be a map of
 * legend -> expression: a group of bars per run), legend ("bs={{
 * batch_size }}"), x_label, y_label, x_log, y_log, x_min/x_max/y_min/
 * y_max, width, height, label; a roofline takes peak (FLOP/s, or a map
 * of named peaks), bandwidths (name -> byte/s) and points ({label,
 * intensity, performance}; expressions allowed).  The chart is drawn
 * with cairo into figures/NAME.svg (and .png/.pdf as figure_formats
 * asks) through write_figure, and *out holds it as drawn, with its
 * caption.
 * Every key is checked; every problem is reported at its line and
 * column.  Returns false on an error (out->ok false). */
bool directive_chart(struct directive_ctx *c, const struct value *body, int number,
		     const char *name, struct directive_result *out);

/* Resolves a {log} excerpt into *out: a line per line of the log, with
 * its href on the log's page; `hit` marks the lines a pattern matched
 * (or, with context, the lines asked for); a gap (no 0) between lines
 * that are not adjacent.
 *
 * Keys: from (a run, required); match (a PCRE2 pattern, matched against
 * each line as bytes) or lines ("40-55" or 40), exactly one of them;
 * context (lines around each match or around the range, default 0);
 * max_lines (default 40 with match, no limit with lines: a range says
 * what it wants), past which the excerpt ends in a line "… N more
 * matching lines" (or "… N more lines"); label.
 *
 * The run's file (run_file(), openable from the current folder) is
 * streamed, never read whole.  A line shows as a terminal shows it in
 * the end (without its CR; a line redrawn with CRs as its last
 * segment), cut at PROVENANCE_LINE_MAX bytes.  A pattern that matches
 * nothing, a range past the end of the file ("lines 58-70 go past the
 * end of logs/bs512.log (60 lines)") and a file that cannot be read are
 * errors.  Returns false on an error (out->ok false). */
bool directive_log(struct directive_ctx *c, const struct value *body,
		   struct directive_result *out);

#endif
