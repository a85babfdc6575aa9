/* csvread.c: CSV result files into runs.
 *
 * CSV is RFC 4180: quoted cells, "" for a quote inside one, CRLF or LF
 * line ends, line breaks inside quotes.  The header row names the
 * columns of the series "rows" (snake_case; an empty header cell gives
 * c<N>, a repeated name gets _2, _3, ...); cells are typed as log
 * captures are.  Blank lines are skipped; spaces around an unquoted
 * cell are not part of it.
 *
 * The delimiter need not be a comma (csv_options): a tab for TSV, '|'
 * for `sacct -P`.  A file without a header row has its columns named by
 * the parser or the run (columns:).  A row with more cells than the
 * header is a warning at its first extra cell and is left out; one with
 * fewer is a warning at its end, and its last cells are missing; the
 * rows before and after are read either way, as after text that
 * follows a closing quote (the row left out).  A quote never closed
 * leaves out the rest of the file. */
#include "parse/structured.h"

#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "data/value.h"
#include "parse/valuetype.h"
#include "stream.h"

char *snake_case(const char *text, size_t len)
{
	struct buf b = BUF_INIT;
	bool gap = false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		/* ASCII letters and digits only: the name must be one an
		 * expression can write. */
		if (c < 0x80 && isalnum(c)) {
			if (gap && b.len)
				buf_putc(&b, '_');
			gap = false;
			buf_putc(&b, (char)tolower(c));
		} else if (c == '%') {
			/* "Time (%)" is time_pct, as nsys users write it */
			if (b.len)
				buf_putc(&b, '_');
			buf_puts(&b, "pct");
			gap = true;
		} else {
			gap = true;
		}
	}
	return buf_detach(&b);
}

struct cell {
	size_t off; /* in the record's buffer */
	size_t len;
	int line, col; /* where the cell starts in the file */
	int width;     /* its width on that line, for a caret */
};

struct csv {
	struct stream *s;
	char delim;
	int line;
	int64_t line_start;
	const char *file;
	struct diag *d;
	/* The record being read. */
	struct buf buf;
	struct cell *cells;
	size_t ncells, cap;
	int rec_line;
	struct loc end; /* where the record ends */
};

enum csv_result { CSV_RECORD, CSV_BAD_RECORD, CSV_EOF, CSV_STOP };

/* The length of the line end at the current byte: 1 for LF, 2 for CRLF,
 * 0 for none. */
static int csv_eol(struct csv *c)
{
	int ch = stream_peek(c->s, 0);
	if (ch == '\n')
		return 1;
	if (ch == '\r' && stream_peek(c->s, 1) == '\n')
		return 2;
	return 0;
}

/* The place of the current byte, len bytes long. */
static struct loc csv_loc(const struct csv *c, int len)
{
	struct loc l = {c->file, c->line, (int)(stream_at(c->s) - c->line_start) + 1, len};
	return l;
}

/* Consumes a line end of n bytes. */
static void csv_newline(struct csv *c, int n)
{
	c->s->pos += (size_t)n;
	c->line++;
	c->line_start = stream_at(c->s);
}

/* Passes over spaces and tabs (but a tab that is the delimiter). */
static void csv_blanks(struct csv *c)
{
	for (int ch; ((ch = stream_peek(c->s, 0)) == ' ' || ch == '\t') && ch != c->delim;)
		c->s->pos++;
}

/* Skips the rest of the line (after a bad cell) so that reading goes on
 * with the next record. */
static void csv_skip_line(struct csv *c)
{
	while (stream_peek(c->s, 0) >= 0 && !csv_eol(c))
		c->s->pos++;
	if (stream_peek(c->s, 0) >= 0)
		csv_newline(c, csv_eol(c));
}

/* Appends the bytes from the current one up to the first a, b or cr
 * (or the end of what is read) to the record, and consumes them. */
static void csv_take(struct csv *c, char a, char b, char cr)
{
	struct stream *s = c->s;
	size_t start = s->pos;
	for (char ch; s->pos < s->len && (ch = s->buf[s->pos]) != a && ch != b && ch != cr;)
		s->pos++;
	buf_put(&c->buf, s->buf + start, s->pos - start);
}

/* Reads the next record into c->cells. */
static enum csv_result csv_record(struct csv *c)
{
	struct stream *s = c->s;
	int n;
	/* Blank lines (spaces at most) hold no record.  The spaces before
	 * a record are not part of its first cell either. */
	for (;;) {
		csv_blanks(c);
		if (stream_peek(s, 0) < 0)
			return CSV_EOF;
		if (!(n = csv_eol(c)))
			break;
		csv_newline(c, n);
	}
	buf_clear(&c->buf);
	c->ncells = 0;
	c->rec_line = c->line;
	for (;;) {
		csv_blanks(c);
		if (c->ncells == c->cap) {
			c->cap = c->cap ? 2 * c->cap : 16;
			c->cells = xrealloc(c->cells, c->cap * sizeof *c->cells);
		}
		struct cell *cell = &c->cells[c->ncells++];
		cell->off = c->buf.len;
		cell->line = c->line;
		cell->col = (int)(stream_at(s) - c->line_start) + 1;
		if (stream_peek(s, 0) == '"') {
			struct loc open = csv_loc(c, 1);
			s->pos++;
			for (;;) {
				csv_take(c, '"', '\n', '"');
				int ch = stream_peek(s, 0);
				if (ch < 0) {
					if (!s->io_error)
						diag_warning(c->d, open,
							     "a quoted cell that is never closed (write a "
							     "quote inside one as \"\"); the rows from line "
							     "%d on are left out",
							     c->rec_line);
					return CSV_STOP;
				}
				if (ch == '"' && stream_peek(s, 1) == '"') {
					buf_putc(&c->buf, '"');
					s->pos += 2;
				} else if (ch == '"') {
					s->pos++;
					break;
				} else if (ch == '\n') {
					buf_putc(&c->buf, '\n');
					csv_newline(c, 1);
				}
			}
			cell->len = c->buf.len - cell->off;
			cell->width = cell->line == c->line
					      ? (int)(stream_at(s) - c->line_start) + 1 - cell->col
					      : 1;
			csv_blanks(c);
			int ch = stream_peek(s, 0);
			if (ch >= 0 && ch != c->delim && !csv_eol(c)) {
				diag_warning(c->d, csv_loc(c, 1),
					     "text after the closing quote of a cell (write a quote "
					     "inside a quoted cell as \"\"); the row is left out");
				csv_skip_line(c);
				return CSV_BAD_RECORD;
			}
		} else {
			for (;;) {
				csv_take(c, c->delim, '\n', '\r');
				int ch = stream_peek(s, 0);
				if (ch < 0 || ch == c->delim || csv_eol(c))
					break;
				if (ch == '\r') {
					/* A CR that ends no line is text. */
					buf_putc(&c->buf, '\r');
					s->pos++;
				}
			}
			/* Spaces after a cell are not part of it. */
			size_t end = c->buf.len;
			while (end > cell->off &&
			       (c->buf.data[end - 1] == ' ' || c->buf.data[end - 1] == '\t') &&
			       c->buf.data[end - 1] != c->delim)
				end--;
			c->buf.len = end;
			if (c->buf.data)
				c->buf.data[end] = '\0';
			cell->len = end - cell->off;
			cell->width = (int)cell->len;
		}
		if (stream_peek(s, 0) == c->delim) {
			s->pos++;
			continue;
		}
		c->end = csv_loc(c, 1);
		if (stream_peek(s, 0) >= 0)
			csv_newline(c, csv_eol(c));
		return CSV_RECORD;
	}
}

/* Column names from the header record: snake_case, c<N> for an empty
 * one, and _2, _3, ... for a repeat. */
static char **csv_columns(struct csv *c)
{
	char **cols = xcalloc(c->ncells + 1, sizeof *cols);
	struct value *seen = value_new(VALUE_MAP);
	for (size_t i = 0; i < c->ncells; i++) {
		char *base = snake_case(buf_data(&c->buf) + c->cells[i].off, c->cells[i].len);
		if (!*base) {
			free(base);
			base = xasprintf("c%zu", i + 1);
		}
		char *name = xstrdup(base);
		for (int k = 2; value_index(seen, name) >= 0; k++) {
			free(name);
			name = xasprintf("%s_%d", base, k);
		}
		free(base);
		value_set(seen, name, value_new(VALUE_NULL));
		cols[i] = name;
	}
	value_free(seen);
	return cols;
}

/* Rows of the wrong length reported one by one; the rest are counted
 * in one warning at the end. */
#define CSV_BAD_SHOWN 10

bool structured_read_csv_with(struct run *r, const char *path, const char *shown,
			      const struct csv_options *o, struct diag *d)
{
	static const struct csv_options defaults = CSV_OPTIONS_INIT;
	if (!o)
		o = &defaults;
	struct buf whole = BUF_INIT;
	struct stream st;
	struct csv c = {.s = &st, .delim = o->delimiter ? o->delimiter : ',', .line = 1,
			.file = shown, .d = d};
	bool ok = stream_open(&st, path, shown, d, &whole);
	char **cols = NULL;
	struct datum *cells = NULL;
	struct series *s = NULL;
	int header_line = 0;
	size_t ncols = 0;
	/* Named columns: the series is there before any row, and a header
	 * row, when there is one, is passed over. */
	bool skip_header = o->columns && o->header;
	if (o->columns && st.opened) {
		ncols = o->ncolumns;
		cols = xcalloc(ncols + 1, sizeof *cols);
		for (size_t i = 0; i < ncols; i++)
			cols[i] = xstrdup(o->columns[i]);
		s = run_add_series(r, "rows", (const char *const *)cols, ncols);
		assert(s);
		cells = xcalloc(ncols, sizeof *cells);
	}
	size_t bad = 0;
	int first_hidden = 0;
	while (st.opened) {
		enum csv_result res = csv_record(&c);
		if (res == CSV_EOF)
			break;
		if (res == CSV_STOP)
			break;
		if (res == CSV_BAD_RECORD)
			continue;
		if (skip_header) {
			skip_header = false;
			continue;
		}
		if (!s) {
			/* No header row and no names: c1, c2, ... as many as
			 * the first row has. */
			bool headerless = !o->header;
			if (headerless) {
				cols = xcalloc(c.ncells + 1, sizeof *cols);
				for (size_t i = 0; i < c.ncells; i++)
					cols[i] = xasprintf("c%zu", i + 1);
			} else {
				cols = csv_columns(&c);
				header_line = c.rec_line;
			}
			ncols = c.ncells;
			s = run_add_series(r, "rows", (const char *const *)cols, ncols);
			assert(s);
			cells = xcalloc(ncols, sizeof *cells);
			if (!headerless)
				continue;
		}
		if (c.ncells != ncols) {
			char *whose = header_line ? xasprintf("the header (line %d) has", header_line)
				      : o->columns ? xstrdup("columns: names")
						   : xstrdup("the first row has");
			struct loc at = c.end;
			bool more = c.ncells > ncols;
			if (more) {
				const struct cell *extra = &c.cells[ncols];
				struct loc l = {shown, extra->line, extra->col,
						extra->width > 0 ? extra->width : 1};
				at = l;
			}
			if (bad++ == CSV_BAD_SHOWN)
				first_hidden = c.rec_line;
			if (bad > CSV_BAD_SHOWN)
				;
			else if (more)
				diag_warning(d, at, "this row has %zu cells, but %s %zu; the row is left out",
					     c.ncells, whose, ncols);
			else
				diag_warning(d, at,
					     "this row has %zu cell%s, but %s %zu; its last %zu %s missing",
					     c.ncells, c.ncells == 1 ? "" : "s", whose, ncols,
					     ncols - c.ncells, ncols - c.ncells == 1 ? "is" : "are");
			free(whose);
			if (more)
				continue;
		}
		for (size_t i = 0; i < ncols; i++)
			cells[i] = i < c.ncells ? datum_from_text(buf_data(&c.buf) + c.cells[i].off,
								  c.cells[i].len, c.rec_line)
						: datum_from_text("", 0, c.rec_line);
		series_append(s, cells, c.rec_line);
	}
	if (bad > CSV_BAD_SHOWN)
		diag_warning(d, loc_line(shown, first_hidden),
			     "%zu more rows of the wrong length, from this one on, were not shown",
			     bad - CSV_BAD_SHOWN);
	free(cells);
	strv_free(cols);
	free(c.cells);
	buf_free(&c.buf);
	stream_close(&st, r);
	buf_free(&whole);
	return ok && !st.io_error;
}

bool structured_read_csv(struct run *r, const char *path, const char *shown, struct diag *d)
{
	return structured_read_csv_with(r, path, shown, NULL, d);
}

/* The options. */

/* The delimiters a file can have: one ASCII byte, not a quote, a line
 * end or a space (a table aligned with spaces is a log's: tables:). */
static bool csv_delimiter_ok(int ch)
{
	return ch > ' ' && ch < 0x7f && ch != '"' && !isalnum(ch);
}

bool csv_options_read(const struct value *delimiter, const struct value *columns,
		      const struct value *header, const char *where, struct csv_options *o,
		      struct diag *d)
{
	struct csv_options def = CSV_OPTIONS_INIT;
	*o = def;
	bool ok = true;
	if (delimiter) {
		const char *t = delimiter->kind == VALUE_STRING ? delimiter->text : NULL;
		size_t n = t ? delimiter->len : 0;
		/* "\t" in double quotes is a tab; '\t' and tab are too. */
		if (n == 1 && (t[0] == '\t' || csv_delimiter_ok((unsigned char)t[0])))
			o->delimiter = t[0];
		else if ((n == 2 && memcmp(t, "\\t", 2) == 0) || (n == 3 && memcmp(t, "tab", 3) == 0))
			o->delimiter = '\t';
		else {
			diag_error(d, delimiter->loc,
				   "delimiter %s is one character: ',' (CSV), \"\\t\" or tab (TSV), "
				   "'|' (sacct -P), ';'; not %s%.*s%s",
				   where, t ? "'" : "", t ? (int)n : 0, t ? t : "",
				   t ? "'" : value_kind_name(delimiter->kind));
			ok = false;
		}
	}
	if (columns) {
		const struct value *const *items = (const struct value *const *)columns->items;
		size_t n = columns->kind == VALUE_LIST ? columns->count : 0;
		if (columns->kind != VALUE_LIST || n == 0) {
			diag_error(d, columns->loc,
				   "columns %s is a list of column names, [a, b, c]; this is %s", where,
				   columns->kind == VALUE_LIST ? "empty"
							       : value_kind_name(columns->kind));
			ok = false;
		}
		o->columns = xcalloc(n + 1, sizeof *o->columns);
		for (size_t i = 0; i < n; i++) {
			const struct value *v = items[i];
			char *sc = v->kind == VALUE_STRING || v->kind == VALUE_NUMBER
					   ? snake_case(v->text, v->len)
					   : xstrdup("");
			bool named = *sc && v->text && strlen(sc) == v->len &&
				     memcmp(sc, v->text, v->len) == 0;
			bool twice = false;
			for (size_t k = 0; named && k < o->ncolumns; k++)
				twice |= strcmp(o->columns[k], sc) == 0;
			if (!named)
				diag_error(d, v->loc, "'%.*s' in columns %s is not a column name; write '%s'",
					   v->text ? (int)v->len : 0, v->text ? v->text : "", where,
					   *sc ? sc : "a_name");
			else if (twice)
				diag_error(d, v->loc, "column '%s' is named twice in columns %s", sc, where);
			else
				o->columns[o->ncolumns++] = xstrdup(sc);
			ok = ok && named && !twice;
			free(sc);
		}
		o->header = false;
	}
	if (header) {
		if (header->kind != VALUE_BOOL) {
			diag_error(d, header->loc,
				   "header %s is true (the first row is a header) or false; this is %s",
				   where, value_kind_name(header->kind));
			ok = false;
		} else {
			o->header = header->boolean;
		}
	}
	return ok;
}

void csv_options_free(struct csv_options *o)
{
	strv_free(o->columns);
	o->columns = NULL;
	o->ncolumns = 0;
}

char *csv_options_key(const struct csv_options *o)
{
	struct buf b = BUF_INIT;
	buf_printf(&b, "csv %d %d", o->delimiter, o->header);
	for (size_t i = 0; i < o->ncolumns; i++)
		buf_printf(&b, " %s", o->columns[i]);
	return buf_detach(&b);
}
