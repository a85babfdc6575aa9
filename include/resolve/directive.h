/* directive.h: the block directives of SPEC section 6: fenced code
 * blocks whose info string is {table}, {log} or {chart}, with a YAML
 * body checked key by key. */
#ifndef LOGDOWN_DIRECTIVE_H
#define LOGDOWN_DIRECTIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "expr/expr.h"
#include "data/value.h"

#include "draw/chart.h"

struct buf;
struct provenance;

/* A piece of text as the PDF shows it: plain text (href NULL), or a
 * value with the place it links to: a log page's line
 * ("logs/bs512.log.html#L53"), or "#fig-loss" for a place in the
 * report itself. */
struct directive_piece {
	char *text;
	char *href;
	bool value;   /* a resolved value (drawn as a value) */
	bool missing; /* a missing value: text is the dash */
};

/* A run of pieces: a caption, a table cell. */
struct directive_text {
	struct directive_piece *p;
	size_t n;
};

enum directive_kind { DIRECTIVE_TABLE, DIRECTIVE_LOG, DIRECTIVE_CHART };

struct directive_cell {
	struct directive_text text;
	bool header; /* a <th> */
	bool right;  /* right-aligned: a column of numbers */
};

struct directive_line {
	long no;     /* the line's number; 0 for a gap ("…", "… 3 more lines") */
	char *text;  /* as the page shows it, not escaped */
	char *href;  /* the line on the log's page; NULL for a gap */
	bool hit;    /* matched, or asked for */
};

/* What a directive resolved to, structured for renderers other than
 * HTML (the PDF): the same cells, lines and chart the HTML shows. */
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
	/* DIRECTIVE_CHART: the chart as drawn (chart.h) */
	struct chart chart;
};

/* Frees everything r owns (not r itself); r is zeroed. */
void directive_result_clear(struct directive_result *r);

/* Appends a piece to t; text and href are copied (href may be NULL). */
void directive_text_add(struct directive_text *t, const char *text, size_t len,
			const char *href, bool value, bool missing);
void directive_text_clear(struct directive_text *t);

/* What a directive renders into: the report's runs, run sets and
 * provenance, and the numbering of its captions. */
struct directive_ctx {
	const struct scope *scope;       /* the report's runs */
	/* run sets by name (rows: cs), parallel arrays */
	const char *const *set_names;
	const struct run *const *const *set_runs;
	const size_t *set_counts;
	size_t nsets;
	struct provenance *prov;
	struct diag *d;
	/* The project folder as given on the command line and canonical
	 * (either may be NULL): tooltips name source files relative to it,
	 * so that a page is the same however the folder was named. */
	const char *root;
	const char *root_real;
	int tables;  /* captions numbered so far: the caller's to count */
	int figures;
	/* Writes a chart's file, figures/NAME.EXT beside the report's page;
	 * NULL when checking (nothing written).  False after an I/O error,
	 * reported. */
	bool (*write_figure)(void *ctx, const char *name, const char *ext, const char *data,
			     size_t len);
	void *figure_ctx;
	unsigned figure_formats; /* FIGURE_SVG (always), FIGURE_PNG, FIGURE_PDF */
	/* When set, the next directive also fills it with its structured
	 * result (the caller's; free with directive_result_clear()). */
	struct directive_result *result;
};

#define FIGURE_SVG 1u
#define FIGURE_PNG 2u
#define FIGURE_PDF 4u

/* Renders a {table} whose YAML body (already parsed, with locations in
 * the .md file) is `body`, appending HTML to out:
 *
 *   <figure class="ld-table" id="LABEL"><table>
 *   <caption>Table N: CAPTION</caption>
 *   <thead>
 *   <tr>
 *   <th>Run</th>
 *   <th align="right">Final loss</th>
 *   </tr>
 *   </thead>
 *   <tbody>
 *   <tr>
 *   <td>...</td>
 *   <td align="right">...</td>
 *   </tr>
 *   </tbody>
 *   </table></figure>
 *
 * one tag per line as cmark-gfm writes a GFM table; no id without a
 * label, no <caption> without a caption, no <tbody> without rows.
 * `number` is the caption's number (assigned by the caller in document
 * order; "Table N: " is left out when it is 0).
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
 * renders as an inline value does in doc.c: a value from a file links
 * to its line (<a class="ld-value" href title="file:line">), shown as
 * written unless a spec formats it; a computed value is <span
 * class="ld-value" title="its inputs">; a missing one <span
 * class="ld-missing">—</span>.  A column whose values are all numbers
 * (missing ones aside) is right-aligned.
 *
 * Every key is checked: an unknown key (with a did-you-mean) or a bad
 * value is an error at its own line and column, an expression error at
 * its column inside the value; every problem is reported, an
 * evaluation error once per expression, not once per row.  Returns
 * false on an error, and then appends nothing. */
bool directive_table(struct directive_ctx *c, const struct value *body, int number,
		     struct buf *out);

/* Renders a {chart}: type (line, bar, scatter, roofline), title,
 * caption, series (runs or a run set: one line or one group of bars
 * each; for line and scatter also a series of a run, bench.metis, whose
 * columns x and y then name, its legend key the last part), x, y (expressions in each run; for bars, y may be a map of
 * legend -> expression: a group of bars per run), legend ("bs={{
 * batch_size }}"), x_label, y_label, x_log, y_log, x_min/x_max/y_min/
 * y_max, width, height, label; a roofline takes peak (FLOP/s, or a map
 * of named peaks), bandwidths (name -> byte/s) and points ({label,
 * intensity, performance}; expressions allowed).  The chart is drawn
 * with cairo into figures/NAME.svg (and .png/.pdf as figure_formats
 * asks) through write_figure, and the page gets
 *   <figure class="ld-figure" id="LABEL"><a href="figures/NAME.svg"><img
 *   src="figures/NAME.svg" ...></a><figcaption>Figure N: CAPTION</figcaption>
 *   </figure>
 * (the link opens the drawing full size on a phone).
 * Every key is checked; every problem is reported at its line and
 * column.  Returns false on an error. */
bool directive_chart(struct directive_ctx *c, const struct value *body, int number,
		     const char *name, struct buf *out);

/* Appends the HTML of one value, as inline values and table cells show
 * it: a value from a file links to its line and reads as written unless
 * fmt (may be NULL) formats it; a computed one names its inputs in a
 * tooltip; a missing one is a dash.  With link false (a value inside a
 * link's text, where links cannot nest) the line is named in a tooltip
 * instead. */
struct eval;
struct format;
void directive_put_value(struct directive_ctx *c, struct buf *out, const struct eval *v,
			 const struct format *fmt, bool link);

/* The same value as a piece of text for the PDF: its text (formatted
 * as directive_put_value() shows it) and, for a value from a file, the
 * href of its line.  Appended to t. */
void directive_value_piece(struct directive_ctx *c, struct directive_text *t,
			   const struct eval *v, const struct format *fmt);

/* Renders a {log} excerpt, appending to out:
 *
 *   <pre class="ld-log" id="LABEL"><code><span class="ld-line ld-hl"><a
 *   class="ld-lineno" href="logs/bs512.log.html#L43">43</a> TEXT</span>
 *   <span class="ld-gap">…</span>
 *   ...</code></pre>
 *
 * a line per line of the log, its number linked to the log's page;
 * "ld-hl" marks the lines a pattern matched (or, with context, the
 * lines asked for); a gap between lines that are not adjacent.
 *
 * Keys: from (a run, required); match (a PCRE2 pattern, matched against
 * each line as bytes) or lines ("40-55" or 40), exactly one of them;
 * context (lines around each match or around the range, default 0);
 * max_lines (default 40 with match, no limit with lines: a range says
 * what it wants), past which the excerpt ends in a line "… N more
 * matching lines" (or "… N more lines"); label (put on the <pre>).
 *
 * The run's file (run_file(), openable from the current folder) is
 * streamed, never read whole.  A line shows as a terminal shows it in
 * the end (without its CR; a line redrawn with CRs as its last
 * segment), escaped as provenance.c escapes a log page.  A pattern that
 * matches nothing, a range past the end of the file ("lines 58-70 go
 * past the end of logs/bs512.log (60 lines)") and a file that cannot be
 * read are errors.  Returns false on an error, and then appends
 * nothing. */
bool directive_log(struct directive_ctx *c, const struct value *body, struct buf *out);

#endif
