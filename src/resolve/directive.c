/* directive.c: the {table} and {log} block directives (SPEC section 6).
 *
 * Both take a YAML body that doc.c has parsed, every node with its place
 * in the .md file, and go key by key in document order, so that the
 * diagnostics come in the order of the lines they point at: an unknown
 * key, a value of the wrong kind, an expression that does not parse, a
 * pattern that does not compile.  A table whose rows could be resolved
 * is evaluated even after such a problem, so that one build reports the
 * errors of every expression (each once, not once per row); but HTML
 * is appended only when there was no error at all, so a report never
 * shows half a table.
 *
 * A {table} goes: rows resolved (a run set, a list of runs or one run,
 * or a series), columns parsed, then `where` filters, `sort` orders
 * (stably, missing last), `limit` cuts, and each cell is evaluated in
 * its row's scope.  Cells are rendered as doc.c renders an inline
 * value, so that a number looks and links the same in prose and in a
 * table.  A column whose values are all numbers is right-aligned with
 * align="right", as cmark-gfm writes a GFM table's ---: column.
 *
 * A {log} streams the run's file line by line (a log may be far bigger
 * than memory), holding only the `context` lines before the current
 * one.  Lines are normalised as logparse.c normalises them for matching
 * (a trailing CR dropped, a line redrawn with CRs taken as its last
 * segment), and escaped as provenance.c escapes a log page. */
#include "resolve/directive.h"

#include "draw/chart.h"

#include <errno.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolve/format.h"
#include "data/limit.h"
#include "resolve/provenance.h"
#include "data/run.h"
#include "base/util.h"

#define ELLIPSIS "\xE2\x80\xA6"    /* U+2026 */
#define MDASH "\xE2\x80\x94"       /* U+2014 */

#define DEFAULT_MAX_LINES 40

/* --- shared: keys, scalars, text --- */

/* Reports key i of body unless it is one of known, with the closest
 * known key or the list of them.  Returns false when it is unknown. */
static bool check_key(struct diag *d, const struct value *body, size_t i, const char *what,
		      const char *const *known)
{
	for (size_t k = 0; known[k]; k++)
		if (strcmp(body->keys[i], known[k]) == 0)
			return true;
	struct buf b = BUF_INIT;
	buf_printf(&b, "unknown key '%s' in %s", body->keys[i], what);
	const char *close = closest_name(body->keys[i], known);
	if (close) {
		buf_printf(&b, " (did you mean '%s'?)", close);
	} else {
		buf_puts(&b, " (known keys: ");
		buf_put_names(&b, known);
		buf_puts(&b, ")");
	}
	diag_error(d, body->key_locs[i], "%s", buf_data(&b));
	buf_free(&b);
	return false;
}

/* A scalar that reads as text: a string, or a number as written. */
static bool is_text(const struct value *v)
{
	return v->kind == VALUE_STRING || (v->kind == VALUE_NUMBER && v->text);
}

static size_t utf8_chars(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

/* Where byte `off` of scalar v's text was written, `len` wide.  The
 * value knows only where its scalar starts and how wide it is, so a
 * scalar wider than its text by the two quotes is taken as quoted and
 * its text as starting one column in.  (An escape inside a quoted
 * scalar shifts what follows it: the column is then approximate.) */
static struct loc scalar_at(const struct value *v, size_t off, int len)
{
	struct loc at = v->loc;
	if (at.line > 0 && at.col > 0 && v->text) {
		size_t w = (size_t)(at.len > 0 ? at.len : 0);
		if (w >= v->len + 2 || w >= utf8_chars(v->text, v->len) + 2)
			at.col++;
		at.col += (int)off;
	}
	at.len = len;
	return at;
}

/* The value as the author wrote it, for a message: 'text', or its kind. */
static void put_written(struct buf *b, const struct value *v)
{
	if (is_text(v))
		buf_printf(b, "'%s'", v->text);
	else if (v->kind == VALUE_BOOL)
		buf_printf(b, "'%s'", v->boolean ? "true" : "false");
	else if (v->kind == VALUE_NULL)
		buf_puts(b, "nothing");
	else
		buf_puts(b, value_kind_name(v->kind));
}

/* Reports "KEY must be WHAT, not 'x'" at v. */
static void bad_value(struct diag *d, const struct value *v, const char *key, const char *what)
{
	struct buf b = BUF_INIT;
	put_written(&b, v);
	diag_error(d, v->loc, "%s must be %s, not %s", key, what, buf_data(&b));
	buf_free(&b);
}

/* A whole number of at least min (and at most a billion) into *out;
 * false after an error. */
static bool want_count(struct diag *d, const struct value *v, const char *key, long min,
		       long *out)
{
	if (v->kind == VALUE_NUMBER && v->number >= (double)min && v->number <= 1e9 &&
	    v->number == floor(v->number)) {
		*out = (long)v->number;
		return true;
	}
	bad_value(d, v, key, min > 0 ? "a positive integer" : "a whole number, 0 or more");
	return false;
}

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

static const struct scope empty_scope;

static const struct scope *ctx_scope(const struct directive_ctx *c)
{
	return c->scope ? c->scope : &empty_scope;
}

static const struct run *find_run(const struct directive_ctx *c, const char *name)
{
	const struct scope *sc = ctx_scope(c);
	for (size_t i = 0; i < sc->nruns; i++)
		if (sc->runs[i] && strcmp(run_name(sc->runs[i]), name) == 0)
			return sc->runs[i];
	return NULL;
}

static long find_set(const struct directive_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->nsets; i++)
		if (strcmp(c->set_names[i], name) == 0)
			return (long)i;
	return -1;
}

/* The names of the run sets (when sets) and of the runs, NULL-terminated,
 * for a did-you-mean.  The strings are borrowed; caller frees the
 * array. */
static const char **known_names(const struct directive_ctx *c, bool sets)
{
	const struct scope *sc = ctx_scope(c);
	size_t n = (sets ? c->nsets : 0) + sc->nruns;
	const char **names = xcalloc(n + 1, sizeof *names);
	size_t k = 0;
	for (size_t i = 0; sets && i < c->nsets; i++)
		names[k++] = c->set_names[i];
	for (size_t i = 0; i < sc->nruns; i++)
		if (sc->runs[i])
			names[k++] = run_name(sc->runs[i]);
	return names;
}

/* Reports that name (written at `at`) is not a run, or not a run set
 * either when sets, with the closest name. */
static void unknown_run(const struct directive_ctx *c, struct loc at, const char *name, bool sets)
{
	const char **names = known_names(c, sets);
	const char *close = closest_name(name, names);
	struct buf b = BUF_INIT;
	if (sets)
		buf_printf(&b, "'%s' is not a run set or a run", name);
	else
		buf_printf(&b, "run '%s' is not defined", name);
	if (close)
		buf_printf(&b, " (did you mean '%s'?)", close);
	diag_error(c->d, at, "%s", buf_data(&b));
	buf_free(&b);
	free(names);
}

/* Splits "expr :spec" at the last ':' outside quotes with a blank
 * before it, as doc.c splits an inline value: the expression is
 * s[0..*expr_len), the spec starts at *spec_off (n when there is
 * none).  No ':' can stand outside a string in an expression, so any
 * such ':' begins a spec. */
static void split_spec(const char *s, size_t n, size_t *expr_len, size_t *spec_off)
{
	char quote = 0;
	size_t at = n;
	for (size_t i = 0; i < n; i++) {
		if (quote) {
			if (s[i] == '\\' && i + 1 < n)
				i++;
			else if (s[i] == quote)
				quote = 0;
		} else if (s[i] == '\'' || s[i] == '"') {
			quote = s[i];
		} else if (s[i] == ':' && i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) {
			at = i;
		}
	}
	*expr_len = at;
	*spec_off = at < n ? at + 1 : n;
}

/* --- {table} --- */

/* A caption: text with {{ expr }} and {{ expr :spec }} values in it,
 * each rendered as in prose (linked to its line), from the report's runs.
 * @tbl- and @fig- references are left to the document, which numbers
 * them. */
static void put_caption(struct directive_ctx *c, struct buf *out, const struct value *v)
{
	struct directive_text *cap = c->result ? &c->result->caption : NULL;
	if (cap)
		c->result->has_caption = true;
	const char *p = v->text, *end = v->text + v->len;
	while (p < end) {
		const char *open = strstr(p, "{{");
		const char *close = open ? strstr(open + 2, "}}") : NULL;
		if (!open || !close) {
			put_text(out, p, (size_t)(end - p));
			if (cap)
				directive_text_add(cap, p, (size_t)(end - p), NULL, false, false);
			break;
		}
		put_text(out, p, (size_t)(open - p));
		if (cap)
			directive_text_add(cap, p, (size_t)(open - p), NULL, false, false);
		const char *inner = open + 2;
		size_t n = (size_t)(close - inner), expr_len, spec_off;
		split_spec(inner, n, &expr_len, &spec_off);
		struct format fmt;
		bool has_fmt = false, ok = true;
		if (spec_off < n) {
			const char *spec = inner + spec_off;
			size_t spec_len = n - spec_off;
			while (spec_len && spec[spec_len - 1] == ' ')
				spec_len--;
			while (spec_len && spec[0] == ' ')
				spec++, spec_len--;
			has_fmt = ok = format_parse(spec, spec_len,
						    scalar_at(v, (size_t)(spec - v->text), (int)spec_len),
						    &fmt, c->d);
		}
		struct expr *e = ok ? expr_parse(inner, expr_len,
						 scalar_at(v, (size_t)(inner - v->text), 0), c->d)
				    : NULL;
		struct eval ev;
		if (e && expr_eval_one(e, ctx_scope(c), &ev, c->d)) {
			directive_put_value(c, out, &ev, has_fmt ? &fmt : NULL, true);
			if (cap)
				directive_value_piece(c, cap, &ev, has_fmt ? &fmt : NULL);
			eval_clear(&ev);
		}
		expr_free(e);
		p = close + 2;
	}
}

static const char *const table_keys[] = {"caption", "rows",      "columns", "where", "sort",
					 "limit",   "transpose", "label",   NULL};

enum col_kind {
	COL_EXPR,  /* an expression from columns: */
	COL_FIELD, /* no columns: given, a field of each run */
	COL_CELL,  /* no columns: given, a column of the series */
};

struct column {
	char *header;
	enum col_kind kind;
	struct expr *e;     /* COL_EXPR */
	size_t cell;        /* COL_CELL: the series column */
	bool has_format;
	struct format fmt;
	bool failed;        /* reported once: not evaluated again */
	bool any_number;
	bool any_other;     /* a string or a boolean */
};

struct trow {
	const struct run *run;       /* the run, or the run holding the series */
	const struct series *series; /* NULL for a row that is a run */
	size_t index;                /* the series row */
	size_t order;                /* the place before sorting: keeps sorting stable */
	bool desc;
	struct eval key;
};

struct table {
	struct directive_ctx *c;
	bool ok;
	bool have_rows;     /* rows resolved: evaluation can go ahead */
	bool series_rows;
	const struct series *series; /* rows: a series */
	const struct run *series_run;
	/* Run rows are listed when rows: is read; a series' rows only as
	 * they pass where, so that picking one step of a million-row
	 * series does not hold a million rows. */
	struct trow *rows;
	size_t nrows;
	size_t rows_cap;
	struct column *cols;
	size_t ncols;
	bool have_columns;  /* columns: was given */
	struct expr *where;
	const struct value *where_v;
	const struct value *sort_v;
	struct expr *sort_e;
	long sort_col;      /* the column sorted by, or -1 */
	bool desc;
	long limit;         /* 0: none */
	bool transpose;
	const struct value *caption;
	const struct value *label;
};

static void add_row(struct table *t, const struct run *r, const struct series *s, size_t index)
{
	if (t->nrows == t->rows_cap) {
		t->rows_cap = t->rows_cap ? 2 * t->rows_cap : 8;
		t->rows = xrealloc(t->rows, t->rows_cap * sizeof *t->rows);
	}
	struct trow *row = &t->rows[t->nrows];
	memset(row, 0, sizeof *row);
	row->run = r;
	row->series = s;
	row->index = index;
	row->order = t->nrows++;
}

static struct column *add_column(struct table *t, const char *header, size_t len)
{
	t->cols = xrealloc(t->cols, (t->ncols + 1) * sizeof *t->cols);
	struct column *col = &t->cols[t->ncols++];
	memset(col, 0, sizeof *col);
	col->header = xstrndup(header, len);
	return col;
}

/* rows: a series reference (cs512.train), resolved in the report's
 * scope. */
static void rows_series(struct table *t, const struct value *v)
{
	struct expr *e = expr_parse(v->text, v->len, scalar_at(v, 0, 0), t->c->d);
	const struct series *s = NULL;
	const struct run *r = NULL;
	if (e && expr_eval_series(e, ctx_scope(t->c), &s, &r, t->c->d)) {
		t->series_rows = true;
		t->series = s;
		t->series_run = r;
		t->have_rows = true;
	} else {
		t->ok = false;
	}
	expr_free(e);
}

static void check_rows(struct table *t, const struct value *v)
{
	struct directive_ctx *c = t->c;
	if (v->kind == VALUE_STRING) {
		long set = find_set(c, v->text);
		const struct run *r = find_run(c, v->text);
		if (set >= 0) {
			for (size_t i = 0; i < c->set_counts[set]; i++)
				add_row(t, c->set_runs[set][i], NULL, 0);
			t->have_rows = true;
		} else if (r) {
			add_row(t, r, NULL, 0);
			t->have_rows = true;
		} else if (strpbrk(v->text, ".[")) {
			rows_series(t, v);
		} else {
			unknown_run(c, v->loc, v->text, true);
			t->ok = false;
		}
		return;
	}
	if (v->kind != VALUE_LIST) {
		diag_error(c->d, v->loc,
			   "rows must be a run set, a list of runs or a series (cs512.train), not %s",
			   value_kind_name(v->kind));
		t->ok = false;
		return;
	}
	if (v->count == 0) {
		diag_error(c->d, v->loc, "rows lists no runs");
		t->ok = false;
		return;
	}
	bool ok = true;
	for (size_t i = 0; i < v->count; i++) {
		const struct value *item = v->items[i];
		if (!is_text(item)) {
			diag_error(c->d, item->loc, "each entry of rows must name a run, not %s",
				   value_kind_name(item->kind));
			ok = false;
			continue;
		}
		/* A run set in the list stands for its runs. */
		long set = find_set(c, item->text);
		const struct run *r = find_run(c, item->text);
		if (r) {
			add_row(t, r, NULL, 0);
		} else if (set >= 0) {
			for (size_t k = 0; k < c->set_counts[set]; k++)
				add_row(t, c->set_runs[set][k], NULL, 0);
		} else {
			unknown_run(c, item->loc, item->text, false);
			ok = false;
		}
	}
	t->have_rows = ok;
	t->ok = t->ok && ok;
}

/* One column: "expression" or "expression :spec". */
static void check_column(struct table *t, const char *header, const struct value *v)
{
	struct column *col = add_column(t, header, strlen(header));
	col->kind = COL_EXPR;
	if (!is_text(v)) {
		diag_error(t->c->d, v->loc, "column '%s' must be an expression, not %s", header,
			   value_kind_name(v->kind));
		col->failed = true;
		t->ok = false;
		return;
	}
	size_t expr_len, spec_off;
	split_spec(v->text, v->len, &expr_len, &spec_off);
	col->e = expr_parse(v->text, expr_len, scalar_at(v, 0, 0), t->c->d);
	if (spec_off < v->len) {
		const char *spec = v->text + spec_off;
		size_t spec_len = v->len - spec_off;
		while (spec_len && (*spec == ' ' || *spec == '\t')) {
			spec++;
			spec_len--;
		}
		while (spec_len && (spec[spec_len - 1] == ' ' || spec[spec_len - 1] == '\t'))
			spec_len--;
		struct loc at = scalar_at(v, (size_t)(spec - v->text), (int)spec_len);
		col->has_format = format_parse(spec, spec_len, at, &col->fmt, t->c->d);
		if (!col->has_format)
			col->failed = true;
	}
	if (!col->e)
		col->failed = true;
	if (col->failed)
		t->ok = false;
}

static void check_columns(struct table *t, const struct value *v)
{
	t->have_columns = true;
	if (v->kind != VALUE_MAP) {
		diag_error(t->c->d, v->loc, "columns must be a map of header: expression, not %s",
			   value_kind_name(v->kind));
		t->ok = false;
		return;
	}
	if (v->count == 0) {
		diag_error(t->c->d, v->loc,
			   "columns must name at least one column (header: expression)");
		t->ok = false;
		return;
	}
	for (size_t i = 0; i < v->count; i++)
		check_column(t, v->keys[i], v->items[i]);
}

/* Without columns:, a table shows everything: a series' columns, or a
 * run's name and every field any of the runs has, in the order they
 * first appear. */
static void default_columns(struct table *t)
{
	if (t->series_rows) {
		const struct series *s = t->series;
		for (size_t i = 0; i < series_column_count(s); i++) {
			const char *name = series_column(s, i);
			struct column *col = add_column(t, name, strlen(name));
			col->kind = COL_CELL;
			col->cell = i;
		}
		return;
	}
	struct column *col = add_column(t, "name", 4);
	col->kind = COL_FIELD;
	for (size_t r = 0; r < t->nrows; r++) {
		const struct run *run = t->rows[r].run;
		for (size_t f = 0; f < run_field_count(run); f++) {
			const char *name = run_field_name(run, f);
			bool seen = false;
			for (size_t k = 0; k < t->ncols && !seen; k++)
				seen = strcmp(t->cols[k].header, name) == 0;
			if (seen)
				continue;
			col = add_column(t, name, strlen(name));
			col->kind = COL_FIELD;
		}
	}
}

static void check_where(struct table *t, const struct value *v)
{
	t->where_v = v;
	if (!is_text(v)) {
		bad_value(t->c->d, v, "where", "an expression (batch_size >= 512)");
		t->ok = false;
		return;
	}
	t->where = expr_parse(v->text, v->len, scalar_at(v, 0, 0), t->c->d);
	if (!t->where)
		t->ok = false;
}

static void put_headers(struct buf *b, const struct table *t)
{
	for (size_t i = 0; i < t->ncols; i++) {
		if (i)
			buf_puts(b, ", ");
		buf_puts(b, t->cols[i].header);
	}
}

/* sort: a column's header, or an expression; '-' first for descending.
 * Read once the columns are known. */
static void check_sort(struct table *t)
{
	const struct value *v = t->sort_v;
	if (!v)
		return;
	const char *what = "a column header or an expression ('-' first for descending)";
	if (!is_text(v)) {
		bad_value(t->c->d, v, "sort", what);
		t->ok = false;
		return;
	}
	size_t off = 0;
	if (v->text[0] == '-') {
		t->desc = true;
		off++;
	}
	while (off < v->len && (v->text[off] == ' ' || v->text[off] == '\t'))
		off++;
	if (off == v->len) {
		diag_error(t->c->d, v->loc, "sort names nothing: give %s", what);
		t->ok = false;
		return;
	}
	for (size_t i = 0; i < t->ncols; i++) {
		if (strcmp(t->cols[i].header, v->text + off) == 0) {
			t->sort_col = (long)i;
			return;
		}
	}
	t->sort_e = expr_parse(v->text + off, v->len - off, scalar_at(v, off, 0), t->c->d);
	if (!t->sort_e) {
		t->ok = false;
		if (t->ncols) {
			struct buf b = BUF_INIT;
			put_headers(&b, t);
			diag_note(t->c->d, v->loc, "sort takes a column header (%s) or an expression",
				  buf_data(&b));
			buf_free(&b);
		}
	}
}

static void row_scope(const struct table *t, const struct trow *row, struct scope *sc)
{
	*sc = *ctx_scope(t->c);
	sc->run = row->run;
	sc->series = row->series;
	sc->row = row->series ? row->index : 0;
}

/* The row as a reader names it in a message: "cs512", or "row 3 of
 * cs512.train". */
static void put_row_name(struct buf *b, const struct trow *row)
{
	if (row->series)
		buf_printf(b, "row %zu of %s.%s", row->index + 1, run_name(row->run),
			   series_name(row->series));
	else
		buf_puts(b, run_name(row->run));
}

/* A stored value as an expression result: its text, file and line. */
static void datum_eval(const struct datum *dt, const char *file, struct eval *out)
{
	memset(out, 0, sizeof *out);
	if (!dt || dt->kind == DATUM_MISSING) {
		out->kind = EVAL_MISSING;
		return;
	}
	out->kind = dt->kind == DATUM_NUMBER ? EVAL_NUMBER : EVAL_STRING;
	out->num = dt->num;
	out->text = dt->text;
	out->len = dt->len;
	out->line = dt->line;
	out->file = dt->line > 0 ? file : NULL;
}

/* Column col of row into *out; false after an error (reported). */
static bool eval_cell(const struct table *t, const struct column *col, const struct trow *row,
		      struct eval *out)
{
	if (col->kind == COL_FIELD) {
		datum_eval(run_field(row->run, col->header), run_file(row->run), out);
		return true;
	}
	if (col->kind == COL_CELL) {
		struct datum dt;
		series_cell(row->series, row->index, col->cell, &dt);
		datum_eval(&dt, run_file(row->run), out);
		return true;
	}
	struct scope sc;
	row_scope(t, row, &sc);
	return expr_eval_one(col->e, &sc, out, t->c->d);
}

/* Whether row passes where.  A missing result (a comparison with a
 * missing value is false anyway) drops the row.  After an error, *failed
 * is set and the row kept, so that the columns are still evaluated on
 * it and report their own errors. */
static bool row_passes(struct table *t, const struct trow *row, bool *failed)
{
	if (!t->where)
		return true;
	struct scope sc;
	row_scope(t, row, &sc);
	struct eval v;
	bool keep = false;
	if (!expr_eval_one(t->where, &sc, &v, t->c->d)) {
		*failed = true;
		return true;
	}
	if (v.kind == EVAL_BOOL) {
		keep = v.boolean;
	} else if (v.kind != EVAL_MISSING) {
		struct buf b = BUF_INIT;
		put_row_name(&b, row);
		diag_error(t->c->d, t->where_v->loc,
			   "where must be true or false for each row, but for %s it is %s: "
			   "compare it, as in batch_size >= 512",
			   buf_data(&b), v.kind == EVAL_NUMBER ? "a number" : "a string");
		buf_free(&b);
		*failed = true;
		keep = true;
	}
	eval_clear(&v);
	return keep;
}

/* The rows that pass where, in order; without a sort, no more than
 * limit of them are looked at past the last one kept. */
static void collect_rows(struct table *t)
{
	bool sorted = t->sort_col >= 0 || t->sort_e;
	size_t want = !sorted && t->limit > 0 ? (size_t)t->limit : (size_t)-1;
	bool failed = false;
	size_t seen;
	if (t->series_rows) {
		seen = series_row_count(t->series);
		for (size_t i = 0; i < seen && t->nrows < want && !failed; i++) {
			struct trow row = {.run = t->series_run, .series = t->series, .index = i};
			if (row_passes(t, &row, &failed))
				add_row(t, row.run, row.series, row.index);
		}
	} else {
		seen = t->nrows;
		size_t kept = 0;
		for (size_t i = 0; i < seen && kept < want && !failed; i++)
			if (row_passes(t, &t->rows[i], &failed))
				t->rows[kept++] = t->rows[i];
		t->nrows = kept;
	}
	if (failed)
		t->ok = false;
	else if (t->where && seen > 0 && t->nrows == 0)
		diag_warning(t->c->d, t->where_v->loc, "no row passes where: the table is empty");
}

static int kind_rank(enum eval_kind k)
{
	switch (k) {
	case EVAL_NUMBER: return 0;
	case EVAL_STRING: return 1;
	case EVAL_BOOL: return 2;
	default: return 3;
	}
}

/* Numbers numerically, strings bytewise, false before true, and missing
 * values last in either direction; equal keys keep their order. */
static int row_cmp(const void *pa, const void *pb)
{
	const struct trow *a = pa, *b = pb;
	int ra = kind_rank(a->key.kind), rb = kind_rank(b->key.kind);
	int r = 0;
	if (ra == 3 || rb == 3) {
		r = ra == rb ? 0 : ra == 3 ? 1 : -1;
		if (r)
			return r;
	} else if (ra != rb) {
		r = ra < rb ? -1 : 1;
	} else if (ra == 0) {
		double x = a->key.num, y = b->key.num;
		if (isnan(x) || isnan(y))
			r = isnan(x) - isnan(y);
		else
			r = x < y ? -1 : x > y;
	} else if (ra == 1) {
		size_t n = a->key.len < b->key.len ? a->key.len : b->key.len;
		r = n ? memcmp(a->key.text, b->key.text, n) : 0;
		if (!r)
			r = a->key.len < b->key.len ? -1 : a->key.len > b->key.len;
		r = r < 0 ? -1 : r > 0;
	} else {
		r = (int)a->key.boolean - (int)b->key.boolean;
	}
	if (a->desc)
		r = -r;
	if (r)
		return r;
	return a->order < b->order ? -1 : a->order > b->order;
}

static void apply_sort(struct table *t)
{
	if (t->sort_col < 0 && !t->sort_e)
		return;
	bool failed = false;
	for (size_t i = 0; i < t->nrows; i++) {
		struct trow *row = &t->rows[i];
		row->order = i;
		row->desc = t->desc;
		if (failed)
			continue;
		bool ok;
		if (t->sort_col >= 0) {
			struct column *col = &t->cols[t->sort_col];
			ok = col->failed || eval_cell(t, col, row, &row->key);
			if (!ok)
				col->failed = true; /* reported: not again for the cells */
		} else {
			struct scope sc;
			row_scope(t, row, &sc);
			ok = expr_eval_one(t->sort_e, &sc, &row->key, t->c->d);
			if (!ok && t->ncols) {
				struct buf b = BUF_INIT;
				put_headers(&b, t);
				diag_note(t->c->d, t->sort_v->loc,
					  "sort takes a column header (%s) or an expression",
					  buf_data(&b));
				buf_free(&b);
			}
		}
		if (!ok)
			failed = true;
	}
	if (failed) {
		t->ok = false;
		return;
	}
	if (t->nrows > 1)
		qsort(t->rows, t->nrows, sizeof *t->rows, row_cmp);
}

/* The text of a value as directive_put_value() shows it. */
static void value_text(struct buf *text, const struct eval *v, const struct format *fmt)
{
	if (v->kind == EVAL_NUMBER && fmt)
		format_number(text, v->num, fmt);
	else if (v->text)
		buf_put(text, v->text, v->len);
	else if (v->kind == EVAL_NUMBER)
		number_put_short(text, v->num);
	else if (v->kind == EVAL_BOOL)
		buf_puts(text, v->boolean ? "true" : "false");
}

/* How many bytes of s[0..n) are the project folder's prefix: as given
 * on the command line ("../proj/", none for "."; run paths are joined
 * to it) or canonical ("/home/u/proj/", for a path written absolute). */
static size_t root_prefix(const struct directive_ctx *c, const char *s, size_t n)
{
	size_t best = 0;
	const char *roots[2] = {c->root, c->root_real};
	for (int i = 0; i < 2; i++) {
		const char *r = roots[i];
		if (!r || !*r || strcmp(r, ".") == 0)
			continue;
		size_t len = strlen(r);
		while (len > 1 && r[len - 1] == '/')
			len--;
		if (len == 1 && r[0] == '/')
			len = 0; /* "/" + "x" is "/x" */
		if (len + 1 <= n && len + 1 > best && memcmp(s, r, len) == 0 && s[len] == '/')
			best = len + 1;
	}
	return best;
}

/* A tooltip naming source files ("logs/bs512.log:53", or a computed
 * value's inputs "a = 1 (logs/bs512.log:53); ..."), escaped, with the
 * project folder's prefix left out wherever a path starts: at the start
 * and after "(". */
static void put_sources(const struct directive_ctx *c, struct buf *out, const char *s, size_t n)
{
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && s[i - 1] != '(')
			continue;
		size_t skip = root_prefix(c, s + i, n - i);
		if (!skip)
			continue;
		put_text(out, s + from, i - from);
		from = i + skip;
		i += skip - 1;
	}
	put_text(out, s + from, n - from);
}

void directive_put_value(struct directive_ctx *c, struct buf *out, const struct eval *v,
			 const struct format *fmt, bool link)
{
	if (v->kind == EVAL_MISSING) {
		buf_puts(out, "<span class=\"ld-missing\">" MDASH "</span>");
		return;
	}
	struct buf text = BUF_INIT;
	value_text(&text, v, fmt);
	if (v->line > 0 && v->file && !link) {
		buf_puts(out, "<span class=\"ld-value\" title=\"");
		put_sources(c, out, v->file, strlen(v->file));
		buf_printf(out, ":%ld\">", v->line);
		put_content(out, buf_data(&text), text.len);
		buf_puts(out, "</span>");
	} else if (v->line > 0 && v->file) {
		struct buf href = BUF_INIT;
		provenance_href(c->prov, &href, v->file, v->line);
		buf_puts(out, "<a class=\"ld-value\" href=\"");
		buf_put_html(out, buf_data(&href), href.len);
		buf_puts(out, "\" title=\"");
		put_sources(c, out, v->file, strlen(v->file));
		buf_printf(out, ":%ld\">", v->line);
		put_content(out, buf_data(&text), text.len);
		buf_puts(out, "</a>");
		buf_free(&href);
	} else {
		buf_puts(out, "<span class=\"ld-value\"");
		if (v->inputs) {
			buf_puts(out, " title=\"");
			put_sources(c, out, v->inputs, strlen(v->inputs));
			buf_puts(out, "\"");
		}
		buf_puts(out, ">");
		put_content(out, buf_data(&text), text.len);
		buf_puts(out, "</span>");
	}
	buf_free(&text);
}

void directive_value_piece(struct directive_ctx *c, struct directive_text *t,
			   const struct eval *v, const struct format *fmt)
{
	if (v->kind == EVAL_MISSING) {
		directive_text_add(t, MDASH, strlen(MDASH), NULL, true, true);
		return;
	}
	struct buf text = BUF_INIT, href = BUF_INIT;
	value_text(&text, v, fmt);
	if (v->line > 0 && v->file)
		provenance_href(c->prov, &href, v->file, v->line);
	directive_text_add(t, buf_data(&text), text.len, href.len ? buf_data(&href) : NULL, true,
			   false);
	buf_free(&text);
	buf_free(&href);
}

void directive_text_add(struct directive_text *t, const char *text, size_t len,
			const char *href, bool value, bool missing)
{
	if (!len && !value)
		return;
	t->p = xrealloc(t->p, (t->n + 1) * sizeof *t->p);
	t->p[t->n++] = (struct directive_piece){xstrndup(text, len), href ? xstrdup(href) : NULL,
						 value, missing};
}

void directive_text_clear(struct directive_text *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->p[i].text);
		free(t->p[i].href);
	}
	free(t->p);
	t->p = NULL;
	t->n = 0;
}

void directive_result_clear(struct directive_result *r)
{
	if (!r)
		return;
	free(r->label);
	directive_text_clear(&r->caption);
	for (size_t i = 0; i < r->rows * r->cols; i++)
		directive_text_clear(&r->cells[i].text);
	free(r->cells);
	for (size_t i = 0; i < r->nlines; i++) {
		free(r->lines[i].text);
		free(r->lines[i].href);
	}
	free(r->lines);
	chart_clear(&r->chart);
	memset(r, 0, sizeof *r);
}

/* Every cell's HTML, row-major; NULL when a cell failed (reported).
 * With c->result, also every cell's text into *texts. */
static char **eval_cells(struct table *t, struct directive_text **texts)
{
	char **cells = xcalloc(t->nrows * t->ncols + 1, sizeof *cells);
	if (t->c->result)
		*texts = xcalloc(t->nrows * t->ncols + 1, sizeof **texts);
	bool ok = true;
	for (size_t r = 0; r < t->nrows; r++) {
		provenance_use(t->c->prov, run_file(t->rows[r].run));
		for (size_t k = 0; k < t->ncols; k++) {
			struct column *col = &t->cols[k];
			if (col->failed) {
				ok = false;
				continue;
			}
			struct eval v;
			if (!eval_cell(t, col, &t->rows[r], &v)) {
				col->failed = true;
				ok = false;
				continue;
			}
			if (v.kind == EVAL_NUMBER)
				col->any_number = true;
			else if (v.kind != EVAL_MISSING)
				col->any_other = true;
			struct buf html = BUF_INIT;
			directive_put_value(t->c, &html, &v, col->has_format ? &col->fmt : NULL, true);
			cells[r * t->ncols + k] = buf_detach(&html);
			if (t->c->result)
				directive_value_piece(t->c, &(*texts)[r * t->ncols + k], &v,
						      col->has_format ? &col->fmt : NULL);
			eval_clear(&v);
		}
	}
	if (ok)
		return cells;
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(cells[i]);
	free(cells);
	return NULL;
}

/* A cell tag with the column's alignment: numbers to the right. */
static void open_cell(struct buf *out, const char *tag, const struct column *col)
{
	if (col && col->any_number && !col->any_other)
		buf_printf(out, "<%s align=\"right\">", tag);
	else
		buf_printf(out, "<%s>", tag);
}

static void render_table(struct table *t, char **cells, int number, struct buf *out)
{
	buf_puts(out, "<figure class=\"ld-table\"");
	if (t->label && t->label->kind == VALUE_STRING) {
		buf_puts(out, " id=\"");
		put_text(out, t->label->text, t->label->len);
		buf_puts(out, "\"");
	}
	buf_puts(out, "><table>\n");
	if (t->caption) {
		buf_puts(out, "<caption>");
		if (number > 0)
			buf_printf(out, "Table %d: ", number);
		put_caption(t->c, out, t->caption);
		buf_puts(out, "</caption>\n");
	} else if (number > 0) {
		/* labelled, no caption: a reader following "Table 2" finds it */
		buf_printf(out, "<caption>Table %d</caption>\n", number);
	}
	buf_puts(out, "<thead>\n<tr>\n");
	if (!t->transpose) {
		for (size_t k = 0; k < t->ncols; k++) {
			open_cell(out, "th", &t->cols[k]);
			put_text(out, t->cols[k].header, strlen(t->cols[k].header));
			buf_puts(out, "</th>\n");
		}
		buf_puts(out, "</tr>\n</thead>\n");
		if (t->nrows)
			buf_puts(out, "<tbody>\n");
		for (size_t r = 0; r < t->nrows; r++) {
			buf_puts(out, "<tr>\n");
			for (size_t k = 0; k < t->ncols; k++) {
				open_cell(out, "td", &t->cols[k]);
				buf_puts(out, cells[r * t->ncols + k]);
				buf_puts(out, "</td>\n");
			}
			buf_puts(out, "</tr>\n");
		}
		if (t->nrows)
			buf_puts(out, "</tbody>\n");
	} else {
		/* The matrix, headers included, turned about its diagonal: the
		 * first column (the runs' names, as a rule) heads the table,
		 * and each other column becomes a row led by its header. */
		const struct column *first = &t->cols[0];
		open_cell(out, "th", first);
		put_text(out, first->header, strlen(first->header));
		buf_puts(out, "</th>\n");
		for (size_t r = 0; r < t->nrows; r++) {
			open_cell(out, "th", first);
			buf_puts(out, cells[r * t->ncols]);
			buf_puts(out, "</th>\n");
		}
		buf_puts(out, "</tr>\n</thead>\n");
		if (t->ncols > 1)
			buf_puts(out, "<tbody>\n");
		for (size_t k = 1; k < t->ncols; k++) {
			buf_puts(out, "<tr>\n<td>");
			put_text(out, t->cols[k].header, strlen(t->cols[k].header));
			buf_puts(out, "</td>\n");
			for (size_t r = 0; r < t->nrows; r++) {
				open_cell(out, "td", &t->cols[k]);
				buf_puts(out, cells[r * t->ncols + k]);
				buf_puts(out, "</td>\n");
			}
			buf_puts(out, "</tr>\n");
		}
		if (t->ncols > 1)
			buf_puts(out, "</tbody>\n");
	}
	buf_puts(out, "</table></figure>\n");
}

/* The table as render_table() lays it out, into r: a header row, then
 * the rows; transposed about its diagonal when asked.  The cells' texts
 * are moved out of texts. */
static void table_result(struct table *t, struct directive_text *texts, int number,
			 struct directive_result *r)
{
	r->kind = DIRECTIVE_TABLE;
	r->ok = true;
	r->number = number;
	if (t->label && t->label->kind == VALUE_STRING)
		r->label = xstrdup(t->label->text);
	size_t R = t->transpose ? t->ncols : t->nrows + 1;
	size_t C = t->transpose ? t->nrows + 1 : t->ncols;
	r->rows = R;
	r->cols = C;
	r->cells = xcalloc(R * C, sizeof *r->cells);
	for (size_t i = 0; i < R; i++) {
		for (size_t j = 0; j < C; j++) {
			struct directive_cell *cell = &r->cells[i * C + j];
			/* the cell of the untransposed table: row ri (0 the
			 * header) and column k */
			size_t ri = t->transpose ? j : i, k = t->transpose ? i : j;
			const struct column *col = &t->cols[k];
			cell->header = i == 0;
			cell->right = col->any_number && !col->any_other && !(t->transpose && j == 0);
			if (ri == 0) {
				directive_text_add(&cell->text, col->header, strlen(col->header), NULL,
						   false, false);
			} else {
				cell->text = texts[(ri - 1) * t->ncols + k];
				memset(&texts[(ri - 1) * t->ncols + k], 0, sizeof *texts);
			}
		}
	}
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->ncols; i++) {
		free(t->cols[i].header);
		expr_free(t->cols[i].e);
	}
	free(t->cols);
	for (size_t i = 0; i < t->nrows; i++)
		eval_clear(&t->rows[i].key);
	free(t->rows);
	expr_free(t->where);
	expr_free(t->sort_e);
}

bool directive_table(struct directive_ctx *c, const struct value *body, int number,
		     struct buf *out)
{
	struct table t = {.c = c, .ok = true, .sort_col = -1};
	if (!body || body->kind != VALUE_MAP) {
		struct loc at = body ? body->loc : loc_line(NULL, 0);
		diag_error(c->d, at, "the body of {table} is a YAML map of settings (key: value)");
		return false;
	}
	const struct value *rows = NULL;
	/* Key by key in document order, so that the diagnostics come in
	 * the order of the lines they point at. */
	for (size_t i = 0; i < body->count; i++) {
		const char *key = body->keys[i];
		const struct value *v = body->items[i];
		if (!check_key(c->d, body, i, "{table}", table_keys)) {
			t.ok = false;
		} else if (strcmp(key, "caption") == 0) {
			t.caption = v;
			if (!is_text(v)) {
				diag_error(c->d, v->loc, "caption must be text, not %s",
					   value_kind_name(v->kind));
				t.ok = false;
			}
		} else if (strcmp(key, "label") == 0) {
			t.label = v; /* checked by the caller, which numbers it */
		} else if (strcmp(key, "rows") == 0) {
			rows = v;
			check_rows(&t, v);
		} else if (strcmp(key, "columns") == 0) {
			check_columns(&t, v);
		} else if (strcmp(key, "where") == 0) {
			check_where(&t, v);
		} else if (strcmp(key, "sort") == 0) {
			t.sort_v = v;
		} else if (strcmp(key, "limit") == 0) {
			t.ok = want_count(c->d, v, "limit", 1, &t.limit) && t.ok;
		} else if (strcmp(key, "transpose") == 0) {
			if (v->kind == VALUE_BOOL) {
				t.transpose = v->boolean;
			} else {
				bad_value(c->d, v, "transpose", "true or false");
				t.ok = false;
			}
		}
	}
	if (!rows) {
		diag_error(c->d, body->loc,
			   "{table} needs rows: a run set, a list of runs or a series (cs512.train)");
		t.ok = false;
	}
	if (t.caption && !is_text(t.caption))
		t.caption = NULL;
	if (!t.have_columns && t.have_rows)
		default_columns(&t);
	check_sort(&t);

	/* Evaluation goes ahead after a problem elsewhere, so that one run
	 * reports the errors of every expression, but nothing is drawn. */
	char **cells = NULL;
	struct directive_text *texts = NULL;
	if (t.have_rows) {
		collect_rows(&t);
		apply_sort(&t);
		if (t.limit > 0 && (size_t)t.limit < t.nrows) {
			for (size_t i = (size_t)t.limit; i < t.nrows; i++)
				eval_clear(&t.rows[i].key);
			t.nrows = (size_t)t.limit;
		}
		cells = eval_cells(&t, &texts);
		if (!cells)
			t.ok = false;
	}
	if (t.ok && cells && t.ncols) {
		render_table(&t, cells, number, out);
		if (c->result)
			table_result(&t, texts, number, c->result);
	}
	if (cells) {
		for (size_t i = 0; i < t.nrows * t.ncols; i++)
			free(cells[i]);
		free(cells);
	}
	if (texts) {
		for (size_t i = 0; i < t.nrows * t.ncols; i++)
			directive_text_clear(&texts[i]);
		free(texts);
	}
	table_free(&t);
	return t.ok;
}

/* --- {log} --- */

static const char *const log_keys[] = {"from",      "match", "lines", "context",
				       "max_lines", "label", NULL};

/* One line kept for the context before a match. */
struct held {
	char *text;
	size_t len;
	size_t cap;
	long no;
};

/* The excerpt being written. */
struct excerpt {
	struct directive_ctx *c;
	const char *file;
	struct buf html;
	long last;   /* the last line shown; 0 before the first */
	long shown;
	long max;    /* lines shown at most; 0: no limit */
	bool cut;    /* max reached: nothing more is shown */
	long more;   /* what was left out: lines (lines:) or matches (match:) */
	struct held *ring; /* the context before the current line */
	size_t nring;
	size_t ring_cap;
	size_t ring_head;
};

/* A line of the excerpt (no 0: a gap) into the caller's result. */
static void log_capture(struct excerpt *x, long no, const char *s, size_t n, bool hit)
{
	struct directive_result *r = x->c->result;
	if (!r)
		return;
	r->lines = xrealloc(r->lines, (r->nlines + 1) * sizeof *r->lines);
	struct directive_line *l = &r->lines[r->nlines++];
	l->no = no;
	l->text = xstrndup(s, n);
	l->href = NULL;
	l->hit = hit;
	if (no > 0) {
		struct buf href = BUF_INIT;
		provenance_href(x->c->prov, &href, x->file, no);
		l->href = buf_detach(&href);
	}
}

/* Shows line `no`; false when the excerpt is already full. */
static bool excerpt_line(struct excerpt *x, long no, const char *s, size_t n, bool hit)
{
	if (x->cut || (x->max > 0 && x->shown >= x->max)) {
		x->cut = true;
		return false;
	}
	if (x->last && no > x->last + 1) {
		buf_puts(&x->html, "<span class=\"ld-gap\">" ELLIPSIS "</span>\n");
		log_capture(x, 0, ELLIPSIS, strlen(ELLIPSIS), false);
	}
	buf_puts(&x->html, hit ? "<span class=\"ld-line ld-hl\">" : "<span class=\"ld-line\">");
	buf_puts(&x->html, "<a class=\"ld-lineno\" href=\"");
	struct buf href = BUF_INIT;
	provenance_href(x->c->prov, &href, x->file, no);
	buf_put_html(&x->html, buf_data(&href), href.len);
	buf_free(&href);
	buf_printf(&x->html, "\">%ld</a> ", no);
	/* A long line is cut as on the log page (at a character start):
	 * one 100 MB line must not make a 100 MB report. */
	bool cut = n > PROVENANCE_LINE_MAX;
	if (cut) {
		n = PROVENANCE_LINE_MAX;
		for (int k = 0; k < 3 && n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80; k++)
			n--;
	}
	put_text(&x->html, s, n);
	log_capture(x, no, s, n, hit);
	if (cut)
		buf_puts(&x->html, "<span class=\"ld-cut\">" ELLIPSIS " (cut: the whole line is in "
				   "the raw file)</span>");
	buf_puts(&x->html, "</span>\n");
	x->last = no;
	x->shown++;
	return true;
}

static void ring_push(struct excerpt *x, long no, const char *s, size_t n)
{
	if (!x->ring_cap)
		return;
	struct held *h;
	if (x->nring < x->ring_cap) {
		h = &x->ring[(x->ring_head + x->nring++) % x->ring_cap];
	} else {
		h = &x->ring[x->ring_head];
		x->ring_head = (x->ring_head + 1) % x->ring_cap;
	}
	if (h->cap < n + 1) {
		h->cap = n + 1;
		h->text = xrealloc(h->text, h->cap);
	}
	memcpy(h->text, s, n);
	h->len = n;
	h->no = no;
}

/* Shows the held lines, oldest first, and forgets them. */
static void ring_flush(struct excerpt *x)
{
	for (size_t i = 0; i < x->nring; i++) {
		struct held *h = &x->ring[(x->ring_head + i) % x->ring_cap];
		if (h->no > x->last)
			excerpt_line(x, h->no, h->text, h->len, false);
	}
	x->nring = 0;
	x->ring_head = 0;
}

/* The line as a terminal shows it in the end: without its newline and
 * CR, and when rewritten with CRs (a progress bar), its last segment
 * with something in it. */
static void line_view(const char *s, size_t n, const char **p, size_t *len)
{
	if (n && s[n - 1] == '\n')
		n--;
	if (n && s[n - 1] == '\r')
		n--;
	const char *cr = memchr(s, '\r', n);
	if (cr) {
		const char *end = s + n, *seg_end = end;
		for (const char *q = end; q > s; q--) {
			if (q[-1] != '\r')
				continue;
			bool blank = true;
			for (const char *b = q; b < seg_end && blank; b++)
				blank = *b == ' ' || *b == '\t';
			if (!blank) {
				*p = q;
				*len = (size_t)(seg_end - q);
				return;
			}
			seg_end = q - 1;
		}
		n = (size_t)(seg_end - s);
	}
	*p = s;
	*len = n;
}

/* "lines: 40-55" or "lines: 40" into [*a, *b]; false after an error. */
static bool parse_lines(struct diag *d, const struct value *v, long *a, long *b)
{
	const char *what = "a line number or a range of lines A-B with 1 <= A <= B (40-55)";
	if (v->kind == VALUE_NUMBER) {
		if (v->number >= 1 && v->number <= 1e15 && v->number == floor(v->number)) {
			*a = *b = (long)v->number;
			return true;
		}
		bad_value(d, v, "lines", what);
		return false;
	}
	if (v->kind != VALUE_STRING) {
		bad_value(d, v, "lines", what);
		return false;
	}
	const char *s = v->text;
	long n[2] = {0, 0};
	int got = 0;
	for (int k = 0; k < 2; k++) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s < '0' || *s > '9')
			break;
		while (*s >= '0' && *s <= '9' && n[k] < 1000000000000000L)
			n[k] = n[k] * 10 + (*s++ - '0');
		got++;
		while (*s == ' ' || *s == '\t')
			s++;
		if (k == 0 && *s == '-')
			s++;
		else
			break;
	}
	if (*s || got != 2 || n[0] < 1 || n[1] < n[0]) {
		bad_value(d, v, "lines", what);
		return false;
	}
	*a = n[0];
	*b = n[1];
	return true;
}

/* The run that from: names; NULL after an error. */
static const struct run *log_from(struct directive_ctx *c, const struct value *v)
{
	if (!is_text(v)) {
		diag_error(c->d, v->loc, "from must name a run, not %s", value_kind_name(v->kind));
		return NULL;
	}
	const struct run *r = find_run(c, v->text);
	if (r)
		return r;
	long set = find_set(c, v->text);
	if (set >= 0) {
		if (c->set_counts[set])
			diag_error(c->d, v->loc,
				   "'%s' is a run set: {log} quotes one run, such as '%s'", v->text,
				   run_name(c->set_runs[set][0]));
		else
			diag_error(c->d, v->loc, "'%s' is a run set: {log} quotes one run",
				   v->text);
		return NULL;
	}
	unknown_run(c, v->loc, v->text, false);
	return NULL;
}

static pcre2_code *log_pattern(struct diag *d, const struct value *v)
{
	if (!is_text(v)) {
		diag_error(d, v->loc, "match must be a pattern, not %s", value_kind_name(v->kind));
		return NULL;
	}
	int err;
	PCRE2_SIZE off;
	/* Bytes, as logparse.c matches: invalid UTF-8 in a log is no error. */
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)v->text, v->len, PCRE2_NEVER_UTF, &err, &off,
				       NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(err, msg, sizeof msg);
		diag_error(d, scalar_at(v, off, 1), "bad pattern: %s (at offset %zu in the pattern)",
			   (const char *)msg, (size_t)off);
		return NULL;
	}
#ifndef LOGDOWN_NO_JIT /* valgrind cannot follow JIT code: make valgrind */
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
#endif
	return re;
}

static const char *match_error(int rc)
{
	switch (rc) {
	case PCRE2_ERROR_MATCHLIMIT: return "the match limit";
	case PCRE2_ERROR_DEPTHLIMIT: return "the depth limit";
	case PCRE2_ERROR_HEAPLIMIT: return "the heap limit";
	case PCRE2_ERROR_JIT_STACKLIMIT: return "the JIT stack limit";
	default: return "an error";
	}
}

/* " (limit pcre_match: raise it ...)" for a limit one can raise, else
 * "".  The budget of a {log} match is the one logparse.c gives a
 * parser's pattern on one line. */
static const char *match_hint(int rc)
{
	static char text[160];
	if (rc != PCRE2_ERROR_MATCHLIMIT && rc != PCRE2_ERROR_DEPTHLIMIT)
		return "";
	snprintf(text, sizeof text, " (%s)",
		 limit_hint(rc == PCRE2_ERROR_MATCHLIMIT ? LIMIT_PCRE_MATCH : LIMIT_PCRE_DEPTH));
	return text;
}

/* What a {log} asks for, checked. */
struct log_req {
	const struct run *run;
	const struct value *from_v, *match_v, *lines_v;
	pcre2_code *re;
	long first, last; /* lines: */
	long context;
	long max;         /* 0: no limit */
};

/* The lines of a log, read in chunks: a line that fits the buffer comes
 * whole, a longer one as its first PROVENANCE_LINE_MAX bytes (the rest
 * skipped), so that memory stays at the buffer whatever the log holds. */
struct lines {
	FILE *f;
	char *buf;
	size_t pos, len;
	bool eof;
	char head[PROVENANCE_LINE_MAX + 1]; /* one more: excerpt_line() sees the cut */
};

#define LINES_CHUNK ((size_t)1 << 20)

/* The next line, with its newline when it has one, into *s and *n.
 * Returns 1, 0 at the end, -1 on a read error (errno set). */
static int lines_next(struct lines *l, const char **s, size_t *n)
{
	for (;;) {
		char *start = l->buf + l->pos;
		size_t avail = l->len - l->pos;
		char *nl = memchr(start, '\n', avail);
		if (nl || (l->eof && avail)) {
			size_t len = nl ? (size_t)(nl - start) + 1 : avail;
			l->pos += len;
			*s = start;
			*n = len;
			return 1;
		}
		if (l->eof)
			return 0;
		if (avail == LINES_CHUNK) {
			/* Longer than the buffer: keep its start, skip to its end. */
			memcpy(l->head, start, sizeof l->head);
			l->pos = l->len = 0;
			for (;;) {
				size_t got = fread(l->buf, 1, LINES_CHUNK, l->f);
				if (got == 0) {
					if (ferror(l->f))
						return -1;
					l->eof = true;
					break;
				}
				char *e = memchr(l->buf, '\n', got);
				if (e) {
					l->pos = (size_t)(e - l->buf) + 1;
					l->len = got;
					break;
				}
			}
			*s = l->head;
			*n = sizeof l->head;
			return 1;
		}
		memmove(l->buf, start, avail);
		l->len = avail;
		l->pos = 0;
		size_t got = fread(l->buf + l->len, 1, LINES_CHUNK - l->len, l->f);
		if (got == 0) {
			if (ferror(l->f))
				return -1;
			l->eof = true;
		}
		l->len += got;
	}
}

/* Reads the log and writes the excerpt into x; false after an error. */
static bool log_excerpt(struct directive_ctx *c, const struct log_req *q, struct excerpt *x)
{
	FILE *f = fopen(x->file, "rb");
	if (!f) {
		diag_error(c->d, q->from_v->loc, "cannot read %s: %s", x->file, strerror(errno));
		return false;
	}
	bool ok = true;
	pcre2_match_data *md = NULL;
	pcre2_match_context *mctx = NULL;
	if (q->re) {
		md = pcre2_match_data_create_from_pattern(q->re, NULL);
		mctx = pcre2_match_context_create(NULL);
		if (!md || !mctx) {
			fprintf(stderr, "logdown: out of memory (PCRE2 match data)\n");
			abort();
		}
		pcre2_set_match_limit(mctx, (uint32_t)limit_get(LIMIT_PCRE_MATCH));
		pcre2_set_depth_limit(mctx, (uint32_t)limit_get(LIMIT_PCRE_DEPTH));
	}
	struct lines *rd = xcalloc(1, sizeof *rd);
	rd->f = f;
	rd->buf = xmalloc(LINES_CHUNK);
	const char *line;
	size_t got;
	int more_lines;
	long no = 0, matches = 0, after = 0;
	while ((more_lines = lines_next(rd, &line, &got)) == 1) {
		no++;
		const char *s;
		size_t n;
		line_view(line, got, &s, &n);
		if (!q->re) {
			/* With context, the range grows by that much each way
			 * and the lines asked for are highlighted. */
			if (no + q->context < q->first)
				continue;
			bool hit = q->context > 0 && no >= q->first && no <= q->last;
			if (!excerpt_line(x, no, s, n, hit))
				x->more++;
			if (no >= q->last + q->context)
				break;
			continue;
		}
		int rc = pcre2_match(q->re, (PCRE2_SPTR)s, n, 0, 0, md, mctx);
		if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) {
			diag_error(c->d, q->match_v->loc,
				   "the pattern hits %s on line %ld of %s: make it simpler%s",
				   match_error(rc), no, x->file, match_hint(rc));
			ok = false;
			break;
		}
		if (rc >= 0) {
			matches++;
			ring_flush(x);
			if (!excerpt_line(x, no, s, n, true))
				x->more++;
			after = q->context;
		} else if (after > 0) {
			excerpt_line(x, no, s, n, false);
			after--;
		} else if (!x->cut) {
			ring_push(x, no, s, n);
		}
	}
	if (ok && more_lines < 0) {
		diag_error(c->d, q->from_v->loc, "cannot read %s: %s", x->file, strerror(errno));
		ok = false;
	}
	free(rd->buf);
	free(rd);
	fclose(f);
	pcre2_match_data_free(md);
	pcre2_match_context_free(mctx);
	if (!ok)
		return false;
	if (!q->re && no < q->last) {
		if (q->first == q->last)
			diag_error(c->d, q->lines_v->loc, "line %ld is past the end of %s (%ld lines)",
				   q->first, x->file, no);
		else
			diag_error(c->d, q->lines_v->loc,
				   "lines %ld-%ld go past the end of %s (%ld lines)", q->first,
				   q->last, x->file, no);
		return false;
	}
	if (q->re && matches == 0) {
		diag_error(c->d, q->match_v->loc, "the pattern matches no line of %s (%ld lines)",
			   x->file, no);
		return false;
	}
	if (x->more > 0) {
		buf_printf(&x->html, "<span class=\"ld-gap\">" ELLIPSIS " %ld more %s%s</span>\n",
			   x->more, q->re ? "matching line" : "line", x->more == 1 ? "" : "s");
		char *gap = xasprintf(ELLIPSIS " %ld more %s%s", x->more,
				      q->re ? "matching line" : "line", x->more == 1 ? "" : "s");
		log_capture(x, 0, gap, strlen(gap), false);
		free(gap);
	}
	return true;
}

bool directive_log(struct directive_ctx *c, const struct value *body, struct buf *out)
{
	if (!body || body->kind != VALUE_MAP) {
		struct loc at = body ? body->loc : loc_line(NULL, 0);
		diag_error(c->d, at, "the body of {log} is a YAML map of settings (key: value)");
		return false;
	}
	bool ok = true;
	struct log_req q = {.max = -1};
	for (size_t i = 0; i < body->count; i++) {
		const char *key = body->keys[i];
		const struct value *v = body->items[i];
		if (!check_key(c->d, body, i, "{log}", log_keys)) {
			ok = false;
		} else if (strcmp(key, "from") == 0) {
			q.from_v = v;
			q.run = log_from(c, v);
			ok = ok && q.run;
		} else if (strcmp(key, "match") == 0) {
			q.match_v = v;
			q.re = log_pattern(c->d, v);
			ok = ok && q.re;
		} else if (strcmp(key, "lines") == 0) {
			q.lines_v = v;
			ok = parse_lines(c->d, v, &q.first, &q.last) && ok;
		} else if (strcmp(key, "context") == 0) {
			ok = want_count(c->d, v, "context", 0, &q.context) && ok;
		} else if (strcmp(key, "max_lines") == 0) {
			ok = want_count(c->d, v, "max_lines", 1, &q.max) && ok;
		}
		if (q.match_v && q.lines_v && (v == q.match_v || v == q.lines_v)) {
			diag_error(c->d, body->key_locs[i], "{log} takes match or lines, not both");
			ok = false;
		}
	}
	if (!q.from_v) {
		diag_error(c->d, body->loc, "{log} needs from: the run whose log to quote");
		ok = false;
	}
	if (!q.match_v && !q.lines_v) {
		diag_error(c->d, body->loc,
			   "{log} needs match: (a pattern) or lines: (a range such as 40-55)");
		ok = false;
	}
	if (!ok) {
		pcre2_code_free(q.re);
		return false;
	}
	/* A range says which lines it wants; only a pattern has a default
	 * cap, since it may match thousands. */
	if (q.max < 0)
		q.max = q.re ? DEFAULT_MAX_LINES : 0;

	struct excerpt x = {.c = c, .file = run_file(q.run), .max = q.max};
	/* Lines held back for a match to come: no more than the excerpt
	 * can show (a pattern always has a cap). */
	x.ring_cap = q.re ? (size_t)(q.context > q.max ? q.max : q.context) : 0;
	x.ring = xcalloc(x.ring_cap + 1, sizeof *x.ring);
	provenance_use(c->prov, x.file);
	ok = log_excerpt(c, &q, &x);
	if (ok) {
		buf_puts(out, "<pre class=\"ld-log\"");
		const struct value *label = value_get(body, "label");
		if (label && label->kind == VALUE_STRING) {
			buf_puts(out, " id=\"");
			put_text(out, label->text, label->len);
			buf_puts(out, "\"");
		}
		buf_puts(out, "><code>");
		buf_put(out, buf_data(&x.html), x.html.len);
		buf_puts(out, "</code></pre>\n");
		if (c->result) {
			c->result->kind = DIRECTIVE_LOG;
			c->result->ok = true;
			if (label && label->kind == VALUE_STRING)
				c->result->label = xstrdup(label->text);
		}
	}
	for (size_t i = 0; i < x.ring_cap; i++)
		free(x.ring[i].text);
	free(x.ring);
	buf_free(&x.html);
	pcre2_code_free(q.re);
	return ok;
}

/* --- {chart} --- */

static const char *const chart_keys[] = {
	"type",   "title",  "caption", "series", "x",      "y",      "legend",     "x_label",
	"y_label", "x_log", "y_log",   "x_min",  "x_max",  "y_min",  "y_max",      "width",
	"height", "label",  "peak",    "bandwidths", "points", "sort",       NULL,
};

static const char *const chart_types[] = {"line", "bar", "scatter", "roofline", NULL};

/* Parses and evaluates the expression scalar v in scope into *out; false
 * after an error at v. */
static bool chart_eval(struct directive_ctx *c, const struct value *v, const struct scope *sc,
		       bool list, struct eval *out)
{
	if (!is_text(v)) {
		bad_value(c->d, v, "the value", "an expression");
		return false;
	}
	struct expr *e = expr_parse(v->text, v->len, scalar_at(v, 0, 0), c->d);
	if (!e)
		return false;
	bool ok = list ? expr_eval(e, sc, out, c->d) : expr_eval_one(e, sc, out, c->d);
	expr_free(e);
	return ok;
}

/* A number from the scalar v (an expression allowed); false after an
 * error at v. */
static bool chart_number(struct directive_ctx *c, const struct value *v, const char *key,
			 double *out)
{
	if (v->kind == VALUE_NUMBER) {
		*out = v->number;
		return true;
	}
	struct eval ev;
	if (!chart_eval(c, v, ctx_scope(c), false, &ev))
		return false;
	bool ok = ev.kind == EVAL_NUMBER;
	if (ok)
		*out = ev.num;
	else
		diag_error(c->d, v->loc, "%s must give a number, not %s", key,
			   ev.kind == EVAL_MISSING ? "a missing value" : "text");
	eval_clear(&ev);
	return ok;
}

/* The runs a chart's series: names: a run set, a run, or a list of them.
 * Where refs is not NULL, an item may also name a series of a run
 * (bench.metis): (*refs)[i] is then that text, and runs[i] its run;
 * NULL for a whole run. */
static const struct run **chart_runs(struct directive_ctx *c, const struct value *v, size_t *n,
				     const char ***refs)
{
	const struct run **runs = NULL;
	*n = 0;
	if (refs)
		*refs = NULL;
	if (v->kind == VALUE_LIST && v->count == 0) {
		diag_error(c->d, v->loc, "series names no runs: give a run set or a list of runs");
		return NULL;
	}
	const struct value *const *items = v->kind == VALUE_LIST ? (const struct value *const *)v->items
								  : &v;
	size_t count = v->kind == VALUE_LIST ? v->count : 1;
	for (size_t i = 0; i < count; i++) {
		const struct value *it = items[i];
		if (!is_text(it)) {
			bad_value(c->d, it, "series", "a run, a run set, or a list of them");
			continue;
		}
		long set = find_set(c, it->text);
		const struct run *one = set < 0 ? find_run(c, it->text) : NULL;
		const char *ref = NULL;
		if (set < 0 && !one && refs && strchr(it->text, '.')) {
			/* a series of a run: x and y then name its columns */
			struct expr *e = expr_parse(it->text, it->len, scalar_at(it, 0, 0), c->d);
			const struct series *s = NULL;
			if (e && expr_eval_series(e, ctx_scope(c), &s, &one, c->d))
				ref = it->text;
			expr_free(e);
			if (!ref)
				continue;
		} else if (set < 0 && !one) {
			unknown_run(c, it->loc, it->text, true);
			continue;
		}
		size_t add = set >= 0 ? c->set_counts[set] : 1;
		runs = xrealloc(runs, (*n + add) * sizeof *runs);
		if (refs)
			*refs = xrealloc(*refs, (*n + add) * sizeof **refs);
		for (size_t k = 0; k < add; k++) {
			if (refs)
				(*refs)[*n] = ref;
			runs[(*n)++] = set >= 0 ? c->set_runs[set][k] : one;
		}
	}
	return runs;
}

struct keyed_run {
	const struct run *run;
	int rank;   /* 0 a number, 1 text, 2 missing: numbers first, missing last */
	double key;
	char *text;
	size_t at;
	bool desc;
};

/* As a table sorts: numbers by value, text bytewise, missing last,
 * equal keys in their first order. */
static int keyed_cmp(const void *pa, const void *pb)
{
	const struct keyed_run *a = pa, *b = pb;
	int c = 0;
	if (a->rank != b->rank)
		return a->rank - b->rank;
	if (a->rank == 0 && a->key != b->key)
		c = a->key < b->key ? -1 : 1;
	else if (a->rank == 1)
		c = strcmp(a->text, b->text);
	if (c)
		return a->desc ? -c : c;
	return a->at < b->at ? -1 : a->at > b->at;
}

/* Orders a chart's runs by the `sort` expression ('-' first for
 * descending): a run set comes sorted by path, which puts bs1024 before
 * bs512. */
static bool chart_sort(struct directive_ctx *c, const struct value *sv, const struct run **runs,
		       size_t n)
{
	if (!sv)
		return true;
	if (!is_text(sv)) {
		bad_value(c->d, sv, "sort", "an expression, with '-' first for descending");
		return false;
	}
	bool desc = sv->text[0] == '-';
	struct expr *e = expr_parse(sv->text + desc, sv->len - desc, scalar_at(sv, desc, 0), c->d);
	if (!e)
		return false;
	struct keyed_run *k = xcalloc(n ? n : 1, sizeof *k);
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++) {
		struct scope sc = *ctx_scope(c);
		sc.run = runs[i];
		struct eval ev;
		ok = expr_eval_one(e, &sc, &ev, c->d);
		k[i] = (struct keyed_run){.run = runs[i], .rank = 2, .at = i, .desc = desc};
		if (ok && ev.kind == EVAL_NUMBER) {
			k[i].rank = 0;
			k[i].key = ev.num;
		} else if (ok && ev.text) {
			k[i].rank = 1;
			k[i].text = xstrndup(ev.text, ev.len);
		}
		if (ok)
			eval_clear(&ev);
	}
	if (ok) {
		qsort(k, n, sizeof *k, keyed_cmp);
		for (size_t i = 0; i < n; i++)
			runs[i] = k[i].run;
	}
	for (size_t i = 0; i < n; i++)
		free(k[i].text);
	free(k);
	expr_free(e);
	return ok;
}

/* The numbers of a column (an EVAL_LIST) or one number; missing values
 * are left out with their x. */
static double *eval_numbers(const struct eval *ev, size_t *n)
{
	if (ev->kind == EVAL_NUMBER) {
		double *v = xmalloc(sizeof *v);
		v[0] = ev->num;
		*n = 1;
		return v;
	}
	*n = 0;
	if (ev->kind != EVAL_LIST || !ev->series)
		return NULL;
	size_t rows = series_row_count(ev->series);
	double *v = xcalloc(rows ? rows : 1, sizeof *v);
	for (size_t r = 0; r < rows; r++) {
		struct datum d;
		series_cell(ev->series, r, ev->column, &d);
		v[r] = d.kind == DATUM_NUMBER ? d.num : NAN;
	}
	*n = rows;
	return v;
}

/* The legend of a run: the template with each {{ expr }} evaluated in
 * the run, or the run's name. */
static char *chart_legend(struct directive_ctx *c, const struct value *tmpl, const struct run *r)
{
	if (!tmpl)
		return xstrdup(run_name(r));
	struct scope sc = *ctx_scope(c);
	sc.run = r;
	struct buf b = BUF_INIT;
	const char *p = tmpl->text, *end = tmpl->text + tmpl->len;
	while (p < end) {
		const char *open = strstr(p, "{{");
		const char *close = open ? strstr(open + 2, "}}") : NULL;
		if (!open || !close) {
			buf_put(&b, p, (size_t)(end - p));
			break;
		}
		buf_put(&b, p, (size_t)(open - p));
		struct expr *e = expr_parse(open + 2, (size_t)(close - open - 2),
					    scalar_at(tmpl, (size_t)(open + 2 - tmpl->text), 0), c->d);
		struct eval ev;
		if (e && expr_eval_one(e, &sc, &ev, c->d)) {
			if (ev.text)
				buf_put(&b, ev.text, ev.len);
			else if (ev.kind == EVAL_NUMBER)
				number_put_short(&b, ev.num);
			eval_clear(&ev);
		}
		expr_free(e);
		p = close + 2;
	}
	return buf_detach(&b);
}

/* x or y of a line or scatter: an expression in the run, or with a
 * series reference (bench.metis) the column v names in that series. */
static bool chart_column(struct directive_ctx *c, const struct value *v, const char *ref,
			 const struct scope *sc, struct eval *out)
{
	if (!ref)
		return chart_eval(c, v, sc, true, out);
	if (!is_text(v)) {
		bad_value(c->d, v, "the value", "a column of the series");
		return false;
	}
	/* the column is checked here, so that a wrong one is reported at
	 * its own place; then "ref.column" gives the column's values */
	const struct series *s = NULL;
	struct expr *re = expr_parse(ref, strlen(ref), scalar_at(v, 0, 0), c->d);
	bool ok = re && expr_eval_series(re, sc, &s, NULL, c->d);
	expr_free(re);
	if (!ok)
		return false;
	if (series_column_index(s, v->text) < 0) {
		size_t n = series_column_count(s);
		const char **cols = xcalloc(n + 1, sizeof *cols);
		for (size_t i = 0; i < n; i++)
			cols[i] = series_column(s, i);
		const char *near = closest_name(v->text, cols);
		struct buf all = BUF_INIT;
		buf_put_names(&all, cols);
		if (near)
			diag_error(c->d, v->loc, "%s has no column '%s' (did you mean '%s'?)", ref,
				   v->text, near);
		else
			diag_error(c->d, v->loc, "%s has no column '%s' (its columns: %s)", ref, v->text,
				   buf_data(&all));
		buf_free(&all);
		free(cols);
		return false;
	}
	char *text = xasprintf("%s.%s", ref, v->text);
	struct expr *e = expr_parse(text, strlen(text), scalar_at(v, 0, 0), c->d);
	ok = e && expr_eval(e, sc, out, c->d);
	expr_free(e);
	free(text);
	return ok;
}

static void series_push(struct chart *ch, char *label, double *x, double *y, size_t n)
{
	ch->series = xrealloc(ch->series, (ch->nseries + 1) * sizeof *ch->series);
	ch->series[ch->nseries++] = (struct chart_series){.label = label, .x = x, .y = y, .n = n};
}

/* line and scatter: one series per run, x and y columns of it. */
static bool chart_xy(struct directive_ctx *c, struct chart *ch, const struct value *body)
{
	const struct value *sv = value_get(body, "series"), *xv = value_get(body, "x"),
			   *yv = value_get(body, "y");
	if (!sv || !xv || !yv) {
		diag_error(c->d, body->loc, "a %s chart needs series, x and y",
			   ch->type == CHART_LINE ? "line" : "scatter");
		return false;
	}
	size_t nruns;
	const char **refs = NULL;
	const struct run **runs = chart_runs(c, sv, &nruns, &refs);
	bool has_ref = false;
	for (size_t i = 0; i < nruns; i++)
		has_ref = has_ref || refs[i];
	/* sorting moves runs; series references keep the order written */
	bool ok = runs != NULL &&
		  (has_ref || chart_sort(c, value_get(body, "sort"), runs, nruns));
	for (size_t i = 0; ok && i < nruns; i++) {
		struct scope sc = *ctx_scope(c);
		sc.run = runs[i];
		struct eval ex, ey;
		if (!chart_column(c, xv, refs[i], &sc, &ex)) {
			ok = false;
			break;
		}
		if (!chart_column(c, yv, refs[i], &sc, &ey)) {
			eval_clear(&ex);
			ok = false;
			break;
		}
		if (ex.kind == EVAL_STRING || ey.kind == EVAL_STRING) {
			const struct value *bad = ex.kind == EVAL_STRING ? xv : yv;
			diag_error(c->d, bad->loc, "%s gives text in run '%s': a chart needs numbers",
				   bad == xv ? "x" : "y", run_name(runs[i]));
			eval_clear(&ex);
			eval_clear(&ey);
			ok = false;
			break;
		}
		size_t nx, ny;
		double *x = eval_numbers(&ex, &nx), *y = eval_numbers(&ey, &ny);
		eval_clear(&ex);
		eval_clear(&ey);
		if (nx != ny) {
			diag_error(c->d, yv->loc, "x has %zu values and y %zu for run '%s': they must "
						  "pair up (take both from one series)",
				   nx, ny, run_name(runs[i]));
			free(x);
			free(y);
			ok = false;
			break;
		}
		/* missing values drop their point */
		size_t k = 0;
		for (size_t j = 0; j < nx; j++)
			if (!isnan(x[j]) && !isnan(y[j]))
				x[k] = x[j], y[k] = y[j], k++;
		if (k == 0) {
			diag_error(c->d, sv->kind == VALUE_LIST ? xv->loc : sv->loc,
				   "run '%s' gives no points for x and y (its values are empty or "
				   "missing): leave it out of series",
				   run_name(runs[i]));
			ok = false;
		}
		for (size_t j = 0; j < k && ok; j++) {
			bool bad_x = ch->x_log && x[j] <= 0, bad_y = ch->y_log && y[j] <= 0;
			if (bad_x || bad_y) {
				struct buf num = BUF_INIT;
				number_put_short(&num, bad_x ? x[j] : y[j]);
				diag_error(c->d, (bad_x ? xv : yv)->loc,
					   "%s is %s in run '%s', which a log axis cannot show (%s_log: "
					   "true needs values above 0)",
					   bad_x ? "x" : "y", buf_data(&num), run_name(runs[i]),
					   bad_x ? "x" : "y");
				buf_free(&num);
				ok = false;
			}
		}
		const struct value *lg = value_get(body, "legend");
		/* a series reference is named by its last part: bench.metis is
		 * "metis" */
		series_push(ch,
			    refs[i] && !lg ? xstrdup(strrchr(refs[i], '.') + 1)
					   : chart_legend(c, lg, runs[i]),
			    x, y, k);
	}
	free(runs);
	free(refs);
	return ok;
}

/* bar: one category per run (named by x, or the run's name); y is one
 * expression (one bar each) or a map legend -> expression (a group of
 * bars each). */
static bool chart_bars(struct directive_ctx *c, struct chart *ch, const struct value *body)
{
	const struct value *sv = value_get(body, "series"), *xv = value_get(body, "x"),
			   *yv = value_get(body, "y");
	if (!sv || !yv) {
		diag_error(c->d, body->loc, "a bar chart needs series (its runs) and y");
		return false;
	}
	size_t nruns;
	const struct run **runs = chart_runs(c, sv, &nruns, NULL);
	if (!runs)
		return false;
	if (!chart_sort(c, value_get(body, "sort"), runs, nruns)) {
		free(runs);
		return false;
	}
	bool grouped = yv->kind == VALUE_MAP;
	size_t nbars = grouped ? yv->count : 1;
	const struct value *lg = value_get(body, "legend");
	if (lg && is_text(lg) && strstr(lg->text, "{{")) {
		diag_error(c->d, lg->loc,
			   "a bar chart's legend names its bars, not its runs: the runs are the "
			   "categories, named by x (legend takes plain text here)");
		free(runs);
		return false;
	}
	ch->categories = xcalloc(nruns, sizeof *ch->categories);
	ch->ncategories = nruns;
	for (size_t b = 0; b < nbars; b++)
		series_push(ch,
			    /* one bar per run needs no legend, unless asked */
			    xstrdup(grouped ? yv->keys[b]
					    : (value_get(body, "legend") && is_text(value_get(body, "legend"))
						       ? value_get(body, "legend")->text
						       : "")),
			    NULL, xcalloc(nruns, sizeof(double)), nruns);
	bool ok = true;
	for (size_t i = 0; i < nruns; i++) {
		struct scope sc = *ctx_scope(c);
		sc.run = runs[i];
		if (xv) {
			struct eval ev;
			if (chart_eval(c, xv, &sc, false, &ev)) {
				struct buf t = BUF_INIT;
				if (ev.text)
					buf_put(&t, ev.text, ev.len);
				else if (ev.kind == EVAL_NUMBER)
					number_put_short(&t, ev.num);
				ch->categories[i] = buf_detach(&t);
				eval_clear(&ev);
			} else {
				ok = false;
			}
		}
		if (!ch->categories[i])
			ch->categories[i] = xstrdup(run_name(runs[i]));
		for (size_t b = 0; b < nbars; b++) {
			const struct value *e = grouped ? yv->items[b] : yv;
			struct eval ev;
			if (!chart_eval(c, e, &sc, false, &ev)) {
				ok = false;
				continue;
			}
			if (ev.kind == EVAL_STRING && ok) {
				diag_error(c->d, e->loc,
					   "y gives text in run '%s': a bar needs a number",
					   run_name(runs[i]));
				ok = false;
			} else if (ev.kind == EVAL_STRING) {
				ok = false;
			} else if (ev.kind == EVAL_NUMBER && ch->y_log && ev.num <= 0 && ok) {
				/* one such error a chart: the rest say the same */
				struct buf num = BUF_INIT;
				number_put_short(&num, ev.num);
				diag_error(c->d, e->loc,
					   "y is %s in run '%s', which a log axis cannot show (y_log: "
					   "true needs values above 0)",
					   buf_data(&num), run_name(runs[i]));
				buf_free(&num);
				ok = false;
			}
			ch->series[b].y[i] = ev.kind == EVAL_NUMBER ? ev.num : NAN;
			eval_clear(&ev);
		}
	}
	free(runs);
	return ok;
}

static bool chart_marks(struct directive_ctx *c, const struct value *v, const char *key,
			struct chart_mark **out, size_t *n)
{
	if (v->kind != VALUE_MAP) {
		double x;
		if (!chart_number(c, v, key, &x))
			return false;
		if (!(x > 0)) {
			diag_error(c->d, v->loc, "%s must be above 0 to stand on a log-log roofline", key);
			return false;
		}
		*out = xcalloc(1, sizeof **out);
		(*out)[0] = (struct chart_mark){xstrdup(key), x};
		*n = 1;
		return true;
	}
	if (v->count == 0) {
		diag_error(c->d, v->loc, "%s is empty: name at least one (name: value)", key);
		return false;
	}
	*out = xcalloc(v->count, sizeof **out);
	bool ok = true;
	for (size_t i = 0; i < v->count; i++) {
		double x = 0;
		bool got = chart_number(c, v->items[i], key, &x);
		if (got && !(x > 0)) {
			diag_error(c->d, v->items[i]->loc,
				   "%s '%s' must be above 0 to stand on a log-log roofline", key,
				   v->keys[i]);
			got = false;
		}
		ok = got && ok;
		(*out)[(*n)++] = (struct chart_mark){xstrdup(v->keys[i]), x};
	}
	return ok;
}

static bool chart_roofline(struct directive_ctx *c, struct chart *ch, const struct value *body)
{
	const struct value *pk = value_get(body, "peak"), *bw = value_get(body, "bandwidths"),
			   *pts = value_get(body, "points");
	if (!pk || !bw) {
		diag_error(c->d, body->loc, "a roofline needs peak (FLOP/s) and bandwidths "
					    "(name: byte/s)");
		return false;
	}
	bool ok = chart_marks(c, pk, "peak", &ch->peaks, &ch->npeaks);
	if (bw->kind != VALUE_MAP) {
		bad_value(c->d, bw, "bandwidths", "a map of name: byte/s");
		ok = false;
	} else {
		ok = chart_marks(c, bw, "bandwidths", &ch->bandwidths, &ch->nbandwidths) && ok;
	}
	if (pts && pts->kind != VALUE_LIST) {
		bad_value(c->d, pts, "points", "a list of {label, intensity, performance}");
		return false;
	}
	for (size_t i = 0; pts && i < pts->count; i++) {
		const struct value *p = pts->items[i];
		const struct value *lv = value_get(p, "label"), *iv = value_get(p, "intensity"),
				   *fv = value_get(p, "performance");
		if (p->kind != VALUE_MAP || !iv || !fv) {
			diag_error(c->d, p->loc, "each point is {label, intensity, performance}");
			ok = false;
			continue;
		}
		static const char *const point_keys[] = {"label", "intensity", "performance", NULL};
		for (size_t k = 0; k < p->count; k++)
			ok = check_key(c->d, p, k, "a roofline point", point_keys) && ok;
		struct chart_point cp = {xstrdup(lv && is_text(lv) ? lv->text : ""), 0, 0};
		ok = chart_number(c, iv, "intensity", &cp.intensity) && ok;
		ok = chart_number(c, fv, "performance", &cp.performance) && ok;
		ch->points = xrealloc(ch->points, (ch->npoints + 1) * sizeof *ch->points);
		ch->points[ch->npoints++] = cp;
	}
	return ok;
}

static char *opt_text(const struct value *body, const char *key)
{
	const struct value *v = value_get(body, key);
	return v && is_text(v) ? xstrdup(v->text) : NULL;
}

bool directive_chart(struct directive_ctx *c, const struct value *body, int number,
		     const char *name, struct buf *out)
{
	bool ok = true;
	for (size_t i = 0; i < body->count; i++)
		ok = check_key(c->d, body, i, "{chart}", chart_keys) && ok;
	struct chart ch = {0};
	ch.width = 720;
	ch.height = 405;
	const struct value *tv = value_get(body, "type");
	long type = -1;
	for (size_t i = 0; tv && is_text(tv) && chart_types[i]; i++)
		if (strcmp(tv->text, chart_types[i]) == 0)
			type = (long)i;
	if (!tv) {
		diag_error(c->d, body->loc, "a chart needs a type: line, bar, scatter or roofline");
		ok = false;
	} else if (type < 0) {
		const char *near = is_text(tv) ? closest_name(tv->text, chart_types) : NULL;
		if (near)
			diag_error(c->d, tv->loc, "unknown chart type '%s' (did you mean '%s'?)",
				   tv->text, near);
		else
			bad_value(c->d, tv, "type", "line, bar, scatter or roofline");
		ok = false;
	}
	static const char *const flags[] = {"x_log", "y_log"};
	for (size_t i = 0; i < 2; i++) {
		const struct value *v = value_get(body, flags[i]);
		if (v && v->kind != VALUE_BOOL) {
			bad_value(c->d, v, flags[i], "true or false");
			ok = false;
		}
	}
	ch.x_log = value_get(body, "x_log") && value_get(body, "x_log")->boolean;
	ch.y_log = value_get(body, "y_log") && value_get(body, "y_log")->boolean;
	static const char *const limits[] = {"x_min", "x_max", "y_min", "y_max"};
	bool *has[] = {&ch.has_x_min, &ch.has_x_max, &ch.has_y_min, &ch.has_y_max};
	double *lim[] = {&ch.x_min, &ch.x_max, &ch.y_min, &ch.y_max};
	for (size_t i = 0; i < 4; i++) {
		const struct value *v = value_get(body, limits[i]);
		if (v)
			ok = (*has[i] = chart_number(c, v, limits[i], lim[i])) && ok;
	}
	for (size_t i = 0; i < 4; i++) {
		const struct value *v = value_get(body, limits[i]);
		bool log = i < 2 ? ch.x_log : ch.y_log;
		if (v && *has[i] && log && *lim[i] <= 0) {
			diag_error(c->d, v->loc, "%s must be above 0 on a log axis", limits[i]);
			ok = false;
		}
	}
	for (size_t i = 0; i < 4; i += 2) {
		const struct value *hi = value_get(body, limits[i + 1]);
		if (*has[i] && *has[i + 1] && *lim[i] >= *lim[i + 1]) {
			diag_error(c->d, hi->loc, "%s must be above %s", limits[i + 1], limits[i]);
			ok = false;
		}
	}
	static const char *const sizes[] = {"width", "height"};
	int *dim[] = {&ch.width, &ch.height};
	for (size_t i = 0; i < 2; i++) {
		const struct value *v = value_get(body, sizes[i]);
		if (!v)
			continue;
		if (v->kind != VALUE_NUMBER || v->number != floor(v->number) || v->number < 120 ||
		    v->number > 4000) {
			bad_value(c->d, v, sizes[i], "a whole number of pixels from 120 to 4000");
			ok = false;
		} else {
			*dim[i] = (int)v->number;
		}
	}
	static const char *const texts[] = {"title", "caption", "legend", "x_label", "y_label"};
	for (size_t i = 0; i < ARRAY_LEN(texts); i++) {
		const struct value *v = value_get(body, texts[i]);
		if (v && !is_text(v)) {
			bad_value(c->d, v, texts[i], "text");
			ok = false;
		}
	}
	ch.title = opt_text(body, "title");
	ch.x_label = opt_text(body, "x_label");
	ch.y_label = opt_text(body, "y_label");
	if (ok) {
		ch.type = (enum chart_type)type;
		if (ch.type == CHART_LINE || ch.type == CHART_SCATTER)
			ok = chart_xy(c, &ch, body);
		else if (ch.type == CHART_BAR)
			ok = chart_bars(c, &ch, body);
		else
			ok = chart_roofline(c, &ch, body);
	}
	char *err = NULL;
	struct buf svg = BUF_INIT;
	if (ok && !chart_render(&ch, CHART_SVG, &svg, &err)) {
		diag_error(c->d, tv ? tv->loc : body->loc, "cannot draw this chart: %s", err);
		ok = false;
	}
	free(err);
	if (ok && c->write_figure) {
		ok = c->write_figure(c->figure_ctx, name, "svg", svg.data, svg.len);
		static const enum chart_format more[] = {CHART_PNG, CHART_PDF};
		static const char *const ext[] = {"png", "pdf"};
		for (size_t i = 0; ok && i < 2; i++) {
			if (!(c->figure_formats & (1u << (i + 1))))
				continue;
			struct buf b = BUF_INIT;
			ok = chart_render(&ch, more[i], &b, &err) &&
			     c->write_figure(c->figure_ctx, name, ext[i], b.data, b.len);
			free(err);
			err = NULL;
			buf_free(&b);
		}
	}
	buf_free(&svg);
	if (ok) {
		const char *caption = value_get(body, "caption") && is_text(value_get(body, "caption"))
					      ? value_get(body, "caption")->text
					      : NULL;
		const struct value *lv = value_get(body, "label");
		buf_puts(out, "<figure class=\"ld-figure\"");
		if (lv && is_text(lv)) {
			buf_puts(out, " id=\"");
			put_text(out, lv->text, lv->len);
			buf_puts(out, "\"");
		}
		/* the image links to itself: on a phone it opens full size */
		buf_printf(out, "><a href=\"figures/%s.svg\"><img src=\"figures/%s.svg\" width=\"%d\" "
				"height=\"%d\" alt=\"",
			   name, name, ch.width, ch.height);
		const char *alt = ch.title ? ch.title : caption ? caption : "chart";
		put_text(out, alt, strlen(alt));
		buf_puts(out, "\"></a>");
		if (caption || number > 0) {
			buf_puts(out, "<figcaption>");
			if (number > 0)
				buf_printf(out, caption ? "Figure %d: " : "Figure %d", number);
			if (caption)
				put_caption(c, out, value_get(body, "caption"));
			buf_puts(out, "</figcaption>");
		}
		buf_puts(out, "</figure>\n");
		if (c->result) {
			c->result->kind = DIRECTIVE_CHART;
			c->result->ok = true;
			c->result->number = number;
			if (lv && is_text(lv))
				c->result->label = xstrdup(lv->text);
			c->result->chart = ch; /* moved */
			memset(&ch, 0, sizeof ch);
		}
	}
	chart_clear(&ch);
	return ok;
}
