/* table.c: the {table} directive (SPEC section 6), resolved to rows of
 * cells (directive.h); render/html.c draws it as a GFM table.
 *
 * A {table} goes: rows resolved (a run set, a list of runs or one run,
 * or a series), columns parsed, then `where` filters, `sort` orders
 * (stably, missing last), `limit` cuts, and each cell is evaluated in
 * its row's scope.  Cells are shown as doc.c shows an inline value
 * (show.h), so that a number looks and links the same in prose and in
 * a table.  A column whose values are all numbers is right-aligned.
 *
 * A table whose rows could be resolved is evaluated even after a
 * problem elsewhere in its body, so that one build reports the errors of
 * every expression (each once, not once per row); but the result is
 * filled only when there was no error at all, so a report never shows
 * half a table. */
#include "resolve/directive.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "memoize.h"
#include "data/keys.h"
#include "data/limit.h"
#include "resolve/format.h"
#include "resolve/provenance.h"
#include "resolve/show.h"
#include "data/run.h"
#include "base/util.h"

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
	const char *src;    /* its text (in the body), for the memo */
	size_t src_len;
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
	size_t sort_off; /* where sort_e's text starts in sort_v's */
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
	show_split_spec(v->text, v->len, &expr_len, &spec_off);
	col->e = expr_parse(v->text, expr_len, scalar_at(v, 0, 0), t->c->d);
	col->src = v->text;
	col->src_len = expr_len;
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
	t->sort_off = off;
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
	return memoize_eval_in(t->c, &sc, col->e, col->src, col->src_len, out);
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
	if (!memoize_eval_in(t->c, &sc, t->where, t->where_v->text, t->where_v->len, &v)) {
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
			ok = memoize_eval_in(t->c, &sc, t->sort_e, t->sort_v->text + t->sort_off,
					     t->sort_v->len - t->sort_off, &row->key);
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

/* Every cell's text, row-major; NULL when a cell failed (reported). */
static struct directive_text *eval_cells(struct table *t)
{
	struct directive_text *texts = xcalloc(t->nrows * t->ncols + 1, sizeof *texts);
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
			show_piece(t->c, &texts[r * t->ncols + k], &v,
				   col->has_format ? &col->fmt : NULL);
			eval_clear(&v);
		}
	}
	if (ok)
		return texts;
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		directive_text_clear(&texts[i]);
	free(texts);
	return NULL;
}

/* The table into r: a header row, then the rows; transposed about its
 * diagonal when asked (the first column, the runs' names as a rule,
 * then heads the table, and each other column becomes a row led by its
 * header).  The cells' texts are moved out of texts. */
static void table_result(struct table *t, struct directive_text *texts, int number,
			 struct directive_result *r)
{
	r->kind = DIRECTIVE_TABLE;
	r->ok = true;
	r->number = number;
	r->transposed = t->transpose;
	if (t->label && t->label->kind == VALUE_STRING)
		r->label = xstrdup(t->label->text);
	if (t->caption)
		read_caption(t->c, t->caption, r);
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
		     struct directive_result *out)
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
		if (!keys_check_one(body, i, table_keys, "in {table}", NULL, c->d)) {
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
	struct directive_text *texts = NULL;
	if (t.have_rows) {
		collect_rows(&t);
		apply_sort(&t);
		if (t.limit > 0 && (size_t)t.limit < t.nrows) {
			for (size_t i = (size_t)t.limit; i < t.nrows; i++)
				eval_clear(&t.rows[i].key);
			t.nrows = (size_t)t.limit;
		}
		/* checked before a cell is made: each takes a kilobyte or so
		 * until the page is written */
		size_t cells = t.nrows * t.ncols;
		unsigned long max = limit_get(LIMIT_PAGE_VALUES);
		if (c->values_shown + cells > max) {
			char before[64] = "";
			if (c->values_shown)
				snprintf(before, sizeof before, " (with the page's %zu before it)",
					 c->values_shown);
			diag_error(c->d, rows->loc,
				   "this table has %zu rows of %zu columns: %zu values, more%s "
				   "than the %lu a page may show; show fewer with limit: or where: "
				   "(%s)",
				   t.nrows, t.ncols, cells, before, max, limit_hint(LIMIT_PAGE_VALUES));
			t.ok = false;
		} else {
			c->values_shown += cells;
			texts = eval_cells(&t);
			if (!texts)
				t.ok = false;
		}
	}
	if (t.ok && texts && t.ncols)
		table_result(&t, texts, number, out);
	if (texts) {
		for (size_t i = 0; i < t.nrows * t.ncols; i++)
			directive_text_clear(&texts[i]);
		free(texts);
	}
	table_free(&t);
	return t.ok;
}

