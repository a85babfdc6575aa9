/* csvread.c: CSV result files into runs.
 *
 * CSV is RFC 4180: quoted cells, "" for a quote inside one, CRLF or LF
 * line ends, line breaks inside quotes.  The header row names the
 * columns of the series "rows" (snake_case; an empty header cell gives
 * c<N>, a repeated name gets _2, _3, ...); cells are typed as log
 * captures are.  Blank lines are skipped; spaces around an unquoted
 * cell are not part of it. */
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

static void csv_blanks(struct csv *c)
{
	for (int ch; (ch = stream_peek(c->s, 0)) == ' ' || ch == '\t';)
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
						diag_error(c->d, open,
							   "a quoted cell that is never closed (write a "
							   "quote inside one as \"\")");
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
			if (ch >= 0 && ch != ',' && !csv_eol(c)) {
				diag_error(c->d, csv_loc(c, 1),
					   "text after the closing quote of a cell (write a quote "
					   "inside a quoted cell as \"\")");
				csv_skip_line(c);
				return CSV_BAD_RECORD;
			}
		} else {
			for (;;) {
				csv_take(c, ',', '\n', '\r');
				int ch = stream_peek(s, 0);
				if (ch < 0 || ch == ',' || csv_eol(c))
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
			       (c->buf.data[end - 1] == ' ' || c->buf.data[end - 1] == '\t'))
				end--;
			c->buf.len = end;
			if (c->buf.data)
				c->buf.data[end] = '\0';
			cell->len = end - cell->off;
			cell->width = (int)cell->len;
		}
		if (stream_peek(s, 0) == ',') {
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

bool structured_read_csv(struct run *r, const char *path, const char *shown, struct diag *d)
{
	struct buf whole = BUF_INIT;
	struct stream st;
	struct csv c = {.s = &st, .line = 1, .file = shown, .d = d};
	bool ok = stream_open(&st, path, shown, d, &whole);
	char **cols = NULL;
	struct datum *cells = NULL;
	struct series *s = NULL;
	int header_line = 0;
	size_t ncols = 0;
	while (st.opened) {
		enum csv_result res = csv_record(&c);
		if (res == CSV_EOF)
			break;
		if (res == CSV_STOP) {
			ok = false;
			break;
		}
		if (res == CSV_BAD_RECORD) {
			ok = false;
			continue;
		}
		if (!s) {
			cols = csv_columns(&c);
			ncols = c.ncells;
			header_line = c.rec_line;
			s = run_add_series(r, "rows", (const char *const *)cols, ncols);
			assert(s);
			cells = xcalloc(ncols, sizeof *cells);
			continue;
		}
		if (c.ncells != ncols) {
			struct loc at = c.end;
			if (c.ncells > ncols) {
				const struct cell *extra = &c.cells[ncols];
				struct loc l = {shown, extra->line, extra->col,
						extra->width > 0 ? extra->width : 1};
				at = l;
			}
			diag_error(d, at, "expected %zu cell%s as in the header (line %d), found %zu",
				   ncols, ncols == 1 ? "" : "s", header_line, c.ncells);
			ok = false;
			continue;
		}
		for (size_t i = 0; i < ncols; i++)
			cells[i] = datum_from_text(buf_data(&c.buf) + c.cells[i].off, c.cells[i].len,
						   c.rec_line);
		series_append(s, cells, c.rec_line);
	}
	free(cells);
	strv_free(cols);
	free(c.cells);
	buf_free(&c.buf);
	stream_close(&st, r);
	buf_free(&whole);
	return ok && !st.io_error;
}
