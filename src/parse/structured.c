/* structured.c: JSON and YAML result files into runs (CSV: csvread.c).
 *
 * YAML is streamed by yamldoc_walk() and JSON read by the reader below,
 * both straight into the run, each item of a list a small tree of its
 * own, so that a big file never becomes a big tree.
 * Both give the same fields and series:
 *
 *   - a map's members become fields named by their dotted key path
 *     ("summary.metis.mean_latency_s");
 *   - numbers keep the text they were written with ("1.0" stays "1.0");
 *   - strings are strings; in YAML, a plain (unquoted) string is typed
 *     as a log capture would be ("98.07%" is 98.07, "n/a" is missing),
 *     while a quoted one always stays a string, as in JSON;
 *   - null is a missing value, with the text "null";
 *   - a boolean is the number 1 or 0 with the text "true" or "false":
 *     shown as written, and sum(), mean() and count() over a column of
 *     them count and rate successes;
 *   - JSON's NaN, Infinity and -Infinity (Python writes them) are
 *     numbers, as "nan" and "inf" in a log are (a diverged loss);
 *   - a list of maps becomes a series named by its key path, its columns
 *     the union of the maps' keys in first-seen order (a map inside a
 *     row flattens into dotted columns, "gpu.util"), an absent key a
 *     missing cell, each row's line the line its map starts on;
 *   - a list of scalars becomes a series with the one column "value";
 *   - a list of lists of scalars (a matrix) becomes a series with the
 *     columns c1, c2, ... (the longest row decides how many);
 *   - anything deeper (a list inside a row, a list of lists of lists)
 *     cannot be a cell: it is left out with a warning at its line;
 *   - a whole document that is a list is the series "rows"; one that is
 *     a lone scalar is the field "value";
 *   - JSON Lines (an object on each line: json_lines(), or any .jsonl
 *     or .ndjson file) is read as the list of its lines, the series
 *     "rows"; a malformed line is a warning and left out.
 *
 * JSON is streamed, not slurped (stream.c, as CSV is): it is read
 * through a buffer of STREAM_CHUNK bytes that is refilled as the reader
 * goes and grows only to hold one token (a number, a word) bigger than it, so
 * that a 1 GB file costs what is kept of it (its series) and not 1 GB
 * of text besides.  The lines of a file up to QUOTE_LIMIT bytes are
 * quoted under its diagnostics: such a file is read whole first, and
 * streamed from memory; a bigger one is streamed from the disk and its
 * diagnostics give line and column without the line, as for a big log.
 * YAML's text is read whole (up to limit yaml_bytes) and its events
 * streamed. */
#include "parse/structured.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/fsutil.h"
#include "base/utf8.h"
#include "base/util.h"
#include "data/value.h"
#include "data/limit.h"
#include "data/yamldoc.h"
#include "parse/valuetype.h"
#include "stream.h"

/* JSON nested deeper than limit json_depth (default 200) is refused
 * rather than risking the stack (yamldoc's limit, for the same reason). */
#define JSON_MAX_DEPTH ((int)limit_get(LIMIT_JSON_DEPTH))

static const char bom[] = "\xEF\xBB\xBF";

static long count_lines(const char *text, size_t len)
{
	long n = 0;
	for (const char *p = text, *end = text + len; p < end; p++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		n++;
		if (!nl)
			break;
		p = nl;
	}
	return n;
}

/* Reads the whole file, a YAML file up to limit yaml_bytes (checked on
 * the open file before a byte is read); false after reporting why it
 * cannot be read. */
static bool read_text(const char *path, const char *shown, struct buf *text, struct diag *d)
{
	size_t max = (size_t)limit_get(LIMIT_YAML_BYTES);
	if (file_read(path, text, &max))
		return true;
	if (errno == EFBIG)
		diag_error(d, loc_line(shown, 0),
			   "this YAML file is larger than %zu bytes: YAML is read whole; write "
			   "the results as JSON, which is read as a stream (%s)",
			   max, limit_hint(LIMIT_YAML_BYTES));
	else
		diag_error(d, loc_line(shown, 0), "cannot read: %s", strerror(errno));
	return false;
}

/* Parsed values into fields and series. */

struct walk {
	struct run *r;
	const char *file;
	struct diag *d;
	/* YAML, whose plain strings are typed (JSON's strings are always
	 * strings). */
	bool yaml;
	/* The parser's leave_out: dotted paths of lists inside rows that it
	 * leaves out knowingly, without a warning. */
	char *const *leave_out;
	size_t nleave_out;
	bool ok;
};

/* True when the scalar v was written without quotes in YAML. */
static bool yaml_plain(const struct walk *w, const struct value *v)
{
	return w->yaml && v->plain;
}

/* The datum of a scalar; its text is borrowed from v. */
static struct datum scalar_datum(const struct walk *w, const struct value *v)
{
	struct datum d = {DATUM_MISSING, 0, NULL, 0, v->loc.line};
	switch (v->kind) {
	case VALUE_NULL:
		d.text = "null";
		d.len = 4;
		break;
	case VALUE_BOOL:
		d.kind = DATUM_NUMBER;
		d.num = v->boolean ? 1 : 0;
		d.text = v->boolean ? "true" : "false";
		d.len = strlen(d.text);
		break;
	case VALUE_NUMBER:
		d.kind = DATUM_NUMBER;
		d.num = v->number;
		d.text = v->text;
		d.len = v->text ? v->len : 0;
		break;
	case VALUE_STRING:
		if (yaml_plain(w, v))
			return datum_from_text(v->text, v->len, v->loc.line);
		d.kind = DATUM_STRING;
		d.text = v->text;
		d.len = v->len;
		break;
	default:
		assert(!"not a scalar");
	}
	return d;
}

static bool is_scalar(const struct value *v)
{
	return v->kind != VALUE_LIST && v->kind != VALUE_MAP;
}

static char *join_path(const char *prefix, const char *key)
{
	return *prefix ? xasprintf("%s.%s", prefix, key) : xstrdup(key);
}

/* The cells of a list wait for their series, whose columns are only
 * known once the whole list has been seen.  They wait packed, back to
 * back in the builder's `cells`, so that a big list costs little more
 * than its series will: each is its column (a varint), a byte of kind
 * and PENDING_TEXT, its line after its row's (a varint), a number's
 * value (8 bytes) and a text's length (a varint) and bytes.  (As
 * 40-byte structs, they made a 150 MB JSON list cost 681 MB rather than
 * 430.) */
#define PENDING_KIND 3u
#define PENDING_TEXT 4u

struct pending_row {
	size_t first, n; /* its cells: the offset of the first, how many */
	long line;
};

static void varint_put(struct buf *b, size_t v)
{
	for (; v >= 0x80; v >>= 7)
		buf_putc(b, (char)(0x80 | (v & 0x7F)));
	buf_putc(b, (char)v);
}

static const unsigned char *varint_get(const unsigned char *p, size_t *v)
{
	*v = 0;
	for (unsigned shift = 0;; shift += 7) {
		*v |= (size_t)(*p & 0x7F) << shift;
		if (!(*p++ & 0x80))
			return p;
	}
}

/* Builds the series of one list, item by item, so that a reader can
 * hand over each item and free it: a big JSON file never exists as a
 * tree of all its values. */
struct builder {
	struct walk *w;
	const char *name;
	struct loc at;
	/* VALUE_MAP (rows are maps), VALUE_LIST (rows are lists),
	 * VALUE_STRING (rows are scalars) or VALUE_NULL (no row yet says). */
	enum value_kind shape;
	/* The columns so far, as the keys of a map (its hash index keeps
	 * lookups fast in wide tables), and the cells that cannot be cells,
	 * already reported. */
	struct value *names;
	struct value *warned;
	struct buf cells;
	struct pending_row *rows;
	size_t nrows, rows_cap;
	size_t next_col; /* the column after the row's last cell: the likely next */
};

static void builder_init(struct builder *b, struct walk *w, const char *name, struct loc at)
{
	memset(b, 0, sizeof *b);
	b->w = w;
	b->name = name;
	b->at = at;
	b->shape = VALUE_NULL;
	b->names = value_new(VALUE_MAP);
	b->warned = value_new(VALUE_MAP);
}

static size_t column_of(struct builder *b, const char *name)
{
	/* Rows mostly write their keys in one order (a logger's dict):
	 * the column after the last one is tried first, one comparison
	 * instead of a lookup. */
	size_t k = b->next_col;
	if (k < b->names->count && strcmp(b->names->keys[k], name) == 0) {
		b->next_col = k + 1;
		return k;
	}
	long i = value_index(b->names, name);
	if (i < 0) {
		value_set(b->names, name, value_new(VALUE_NULL));
		i = (long)b->names->count - 1;
	}
	b->next_col = (size_t)i + 1;
	return (size_t)i;
}

static void add_cell(struct builder *b, size_t col, const struct value *v)
{
	struct datum d = scalar_datum(b->w, v);
	assert((unsigned)d.kind <= PENDING_KIND);
	varint_put(&b->cells, col);
	buf_putc(&b->cells, (char)((unsigned)d.kind | (d.text ? PENDING_TEXT : 0)));
	/* The field's own line, after its row's: a value links to the line
	 * that writes it, not to the record's opening brace. */
	long row_line = b->rows[b->nrows - 1].line;
	varint_put(&b->cells, d.line > row_line ? (size_t)(d.line - row_line) : 0);
	if (d.kind == DATUM_NUMBER)
		buf_put(&b->cells, (const char *)&d.num, sizeof d.num);
	if (d.text) {
		varint_put(&b->cells, d.len);
		buf_put(&b->cells, d.text, d.len);
	}
	b->rows[b->nrows - 1].n++;
}

static void left_out(struct builder *b, const char *path, const struct value *v)
{
	if (value_index(b->warned, path) >= 0)
		return;
	value_set(b->warned, path, value_new(VALUE_NULL));
	for (size_t i = 0; i < b->w->nleave_out; i++)
		if (strcmp(b->w->leave_out[i], path) == 0)
			return;
	diag_warning(b->w->d, v->loc,
		     "'%s': a %s inside a row cannot be a cell and is left out (logdown reads "
		     "lists of objects, of values and of lists of values)",
		     path, v->kind == VALUE_LIST ? "list" : "map");
}

/* The cells of row map m; prefix is the dotted path within the row. */
static void map_cells(struct builder *b, const struct value *m, const char *prefix)
{
	for (size_t i = 0; i < m->count; i++) {
		const struct value *v = m->items[i];
		/* Most rows are flat: their keys are their columns. */
		char *path = *prefix ? join_path(prefix, m->keys[i]) : NULL;
		const char *col = path ? path : m->keys[i];
		if (v->kind == VALUE_MAP) {
			map_cells(b, v, col);
		} else if (v->kind == VALUE_LIST) {
			char *full = join_path(b->name, col);
			left_out(b, full, v);
			free(full);
		} else {
			add_cell(b, column_of(b, col), v);
		}
		free(path);
	}
}

static const char *kind_word(enum value_kind k)
{
	return k == VALUE_MAP ? "an object" : k == VALUE_LIST ? "a list" : "a value";
}

/* Adds list item `it` as the next row.  it is only borrowed. */
static void builder_add(struct builder *b, const struct value *it)
{
	enum value_kind kind = is_scalar(it) ? VALUE_STRING : it->kind;
	if (b->shape == VALUE_NULL && it->kind != VALUE_NULL)
		b->shape = kind;
	if (it->kind != VALUE_NULL && kind != b->shape) {
		diag_warning(b->w->d, it->loc, "'%s': %s in a list of %s is left out", b->name,
			     kind_word(kind),
			     b->shape == VALUE_MAP ? "objects" : b->shape == VALUE_LIST ? "lists"
											 : "values");
		return;
	}
	if (b->nrows == b->rows_cap) {
		b->rows_cap = b->rows_cap ? 2 * b->rows_cap : 16;
		b->rows = xrealloc(b->rows, b->rows_cap * sizeof *b->rows);
	}
	struct pending_row *row = &b->rows[b->nrows++];
	row->first = b->cells.len;
	row->n = 0;
	row->line = it->loc.line;
	b->next_col = 0;
	if (it->kind == VALUE_NULL && b->shape != VALUE_STRING) {
		/* A null row: all of it missing, so that rows still count the
		 * list's items. */
	} else if (it->kind == VALUE_MAP) {
		map_cells(b, it, "");
	} else if (it->kind == VALUE_LIST) {
		for (size_t k = 0; k < it->count; k++) {
			char col[32];
			snprintf(col, sizeof col, "c%zu", k + 1);
			size_t c = column_of(b, col);
			if (is_scalar(it->items[k])) {
				add_cell(b, c, it->items[k]);
			} else {
				char *full = join_path(b->name, col);
				left_out(b, full, it->items[k]);
				free(full);
			}
		}
	} else {
		add_cell(b, column_of(b, "value"), it);
	}
}

static void builder_release(struct builder *b)
{
	buf_free(&b->cells);
	free(b->rows);
	value_free(b->names);
	value_free(b->warned);
}

/* Makes the series and frees the builder. */
static void builder_finish(struct builder *b)
{
	/* An empty list, or one of nulls, is a list of values. */
	if (b->names->count == 0)
		column_of(b, "value");
	size_t ncols = b->names->count;
	struct series *s = run_add_series(b->w->r, b->name, (const char *const *)b->names->keys,
					  ncols);
	if (!s) {
		b->w->ok = false;
		diag_error(b->w->d, b->at, "two lists make the series '%s' with different columns",
			   b->name);
	}
	struct datum *cells = xcalloc(ncols, sizeof *cells);
	for (size_t i = 0; s && i < b->nrows; i++) {
		const struct pending_row *row = &b->rows[i];
		for (size_t k = 0; k < ncols; k++) {
			struct datum none = {DATUM_MISSING, 0, NULL, 0, row->line};
			cells[k] = none;
		}
		const unsigned char *p = (const unsigned char *)buf_data(&b->cells) + row->first;
		for (size_t k = 0; k < row->n; k++) {
			size_t col;
			p = varint_get(p, &col);
			unsigned head = *p++;
			size_t after;
			p = varint_get(p, &after);
			struct datum d = {(enum datum_kind)(head & PENDING_KIND), 0, NULL, 0,
					  row->line + (long)after};
			if (d.kind == DATUM_NUMBER) {
				memcpy(&d.num, p, sizeof d.num);
				p += sizeof d.num;
			}
			if (head & PENDING_TEXT) {
				p = varint_get(p, &d.len);
				d.text = (const char *)p;
				p += d.len;
			}
			cells[col] = d;
		}
		series_append(s, cells, row->line);
	}
	free(cells);
	builder_release(b);
}

/* YAML streamed by yamldoc_walk(): maps into dotted fields, lists into
 * series, item by item. */
static void yaml_scalar(void *ctx, const char *path, const struct value *v)
{
	struct walk *w = ctx;
	struct datum d = scalar_datum(w, v);
	run_set_field(w->r, path, &d);
}

struct yaml_list {
	struct builder b;
	char *name;
};

static void *yaml_list_open(void *ctx, const char *path, struct loc at)
{
	struct yaml_list *l = xmalloc(sizeof *l);
	l->name = xstrdup(path);
	builder_init(&l->b, ctx, l->name, at);
	return l;
}

static void yaml_list_item(void *ctx, void *list, const struct value *item)
{
	(void)ctx;
	builder_add(&((struct yaml_list *)list)->b, item);
}

static void yaml_list_close(void *ctx, void *list, bool ok)
{
	(void)ctx;
	struct yaml_list *l = list;
	if (ok)
		builder_finish(&l->b);
	else
		builder_release(&l->b);
	free(l->name);
	free(l);
}

/* JSON, read here rather than by libyaml, which refuses the surrogate
 * pairs (\ud83d\ude00) that Python writes for emoji, and reads NaN as a
 * string.  It reads from a stream: a token is looked at through
 * json_peek(), which keeps everything from the current byte on in the
 * buffer, and consumed by advancing s->pos. */

struct json {
	struct stream *s;
	int line;
	int64_t line_start;
	/* Where the last run of blanks started (and the line it started
	 * on): at the end of the file, a message points there, just after
	 * the last thing written. */
	int64_t ws_from, ws_end, ws_line_start;
	int ws_line;
	const char *file;
	struct diag *d;
	bool failed;
	/* JSON Lines: a value ends with its line, and a malformed one is
	 * a warning, the line left out (json_read_lines()); quiet: one of
	 * the bad lines past those shown, not reported. */
	bool lines, quiet;
	bool warn; /* malformed JSON is a warning (structured_json_text()) */
};

/* Reports a malformed value at `at`: an error, or in JSON Lines a
 * warning that the line is left out, or for a reader that skips what it
 * cannot read (warn) a warning. */
__attribute__((format(printf, 3, 4))) static void json_bad(struct json *j, struct loc at,
							   const char *fmt, ...)
{
	j->failed = true;
	if (j->quiet)
		return;
	struct buf msg = BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	if (j->lines)
		diag_warning(j->d, at, "%s; line %d is left out", buf_data(&msg), at.line);
	else if (j->warn)
		diag_warning(j->d, at, "%s", buf_data(&msg));
	else
		diag_error(j->d, at, "%s", buf_data(&msg));
	buf_free(&msg);
}

static inline int json_peek(struct json *j, size_t k)
{
	return stream_peek(j->s, k);
}

/* The place of the current byte, len bytes long. */
static struct loc json_loc(const struct json *j, int len)
{
	struct loc l = {j->file, j->line, (int)(stream_at(j->s) - j->line_start) + 1, len};
	return l;
}

static void json_ws(struct json *j)
{
	struct stream *s = j->s;
	if (stream_at(s) != j->ws_end) {
		j->ws_from = stream_at(s);
		j->ws_line = j->line;
		j->ws_line_start = j->line_start;
	}
	for (int c; (c = json_peek(j, 0)) >= 0; s->pos++) {
		if (c == '\n' && j->lines)
			break;
		if (c == '\n') {
			j->line++;
			j->line_start = stream_at(s) + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			break;
		}
	}
	j->ws_end = stream_at(s);
}

/* Reports "expected X, found Y" at the current position, Y being the
 * word or character there, or the end of the file. */
static void json_expected(struct json *j, const char *what)
{
	j->failed = true;
	if (json_peek(j, 0) < 0) {
		if (j->s->io_error)
			return;
		/* Point just after the last thing written, not at an empty
		 * line below it. */
		bool blanks = stream_at(j->s) == j->ws_end;
		int64_t end = blanks ? j->ws_from : stream_at(j->s);
		int64_t start = blanks ? j->ws_line_start : j->line_start;
		struct loc at = {j->file, blanks ? j->ws_line : j->line, (int)(end - start) + 1, 1};
		json_bad(j, at, "malformed JSON: expected %s, found the end of the file", what);
		return;
	}
	int c0 = json_peek(j, 0);
	if (j->lines && (c0 == '\n' || (c0 == '\r' && json_peek(j, 1) == '\n'))) {
		json_bad(j, json_loc(j, 1), "malformed JSON: expected %s, found the end of the line",
			 what);
		return;
	}
	size_t n = 0;
	for (int c; n < 20 && (c = json_peek(j, n)) >= 0 && (isalnum(c) || c == '_');)
		n++;
	if (n == 0) {
		/* One character, all of its UTF-8 bytes. */
		n = 1;
		for (int c; (c = json_peek(j, n)) >= 0 && (c & 0xC0) == 0x80;)
			n++;
	}
	json_bad(j, json_loc(j, (int)n), "malformed JSON: expected %s, found '%.*s'", what,
		   (int)n, j->s->buf + j->s->pos);
}

/* Four hex digits k bytes on, or -1. */
static long json_hex4(struct json *j, size_t k)
{
	long v = 0;
	for (size_t i = 0; i < 4; i++) {
		int c = json_peek(j, k + i), x;
		if (c >= '0' && c <= '9')
			x = c - '0';
		else if (c >= 'a' && c <= 'f')
			x = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			x = c - 'A' + 10;
		else
			return -1;
		v = v * 16 + x;
	}
	return v;
}

/* Reads the string at the current '"' into out (decoded).  A \u escape
 * of a lone surrogate, which cannot be UTF-8, becomes U+FFFD. */
static bool json_string(struct json *j, struct buf *out)
{
	struct stream *s = j->s;
	struct loc open = json_loc(j, 1);
	s->pos++;
	for (;;) {
		/* The plain bytes, a buffer at a time. */
		int c;
		for (;;) {
			size_t start = s->pos;
			while (s->pos < s->len && s->buf[s->pos] != '"' && s->buf[s->pos] != '\\' &&
			       s->buf[s->pos] != '\n')
				s->pos++;
			buf_put(out, s->buf + start, s->pos - start);
			if ((c = json_peek(j, 0)) < 0 || c == '"' || c == '\\' || c == '\n')
				break;
		}
		if (c < 0 || c == '\n') {
			j->failed = true;
			if (!s->io_error)
				json_bad(j, open, "malformed JSON: a string that is never closed "
						       "(a string ends on its own line with '\"')");
			return false;
		}
		if (c == '"') {
			s->pos++;
			return true;
		}
		/* A backslash escape. */
		struct loc at = json_loc(j, 2);
		/* The end of the file after the backslash is an unknown
		 * escape too. */
		int e = json_peek(j, 1);
		s->pos += e < 0 ? 1 : 2;
		if (e < 0)
			e = '\0';
		switch (e) {
		case '"': buf_putc(out, '"'); break;
		case '\\': buf_putc(out, '\\'); break;
		case '/': buf_putc(out, '/'); break;
		case 'b': buf_putc(out, '\b'); break;
		case 'f': buf_putc(out, '\f'); break;
		case 'n': buf_putc(out, '\n'); break;
		case 'r': buf_putc(out, '\r'); break;
		case 't': buf_putc(out, '\t'); break;
		case 'u': {
			long cp = json_hex4(j, 0);
			if (cp < 0) {
				at.len = 2;
				j->failed = true;
				json_bad(j, at, "malformed JSON: \\u must be followed by four hex digits");
				return false;
			}
			s->pos += 4;
			/* A high surrogate and the low one after it make one
			 * character beyond the BMP (Python escapes emoji so). */
			if (cp >= 0xD800 && cp <= 0xDBFF && json_peek(j, 0) == '\\' &&
			    json_peek(j, 1) == 'u') {
				long lo = json_hex4(j, 2);
				if (lo >= 0xDC00 && lo <= 0xDFFF) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					s->pos += 6;
				}
			}
			if (cp >= 0xD800 && cp <= 0xDFFF)
				cp = 0xFFFD;
			utf8_put(out, (unsigned long)cp);
			break;
		}
		default:
			j->failed = true;
			json_bad(j, at, "malformed JSON: unknown escape '\\%c' in a string",
				   e ? e : ' ');
			return false;
		}
	}
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* True when the bytes k on are w. */
static bool json_has(struct json *j, size_t k, const char *w)
{
	for (size_t i = 0; w[i]; i++)
		if (json_peek(j, k + i) != (unsigned char)w[i])
			return false;
	return true;
}

/* A number in JSON's grammar, keeping its text. */
static struct value *json_number(struct json *j)
{
	struct stream *s = j->s;
	size_t p = 0;
	if (json_peek(j, p) == '-')
		p++;
	if (json_has(j, p, "Infinity")) {
		p += 8;
		const char *t = s->buf + s->pos;
		struct value *v = value_number(t[0] == '-' ? -INFINITY : INFINITY, NULL);
		v->text = xstrndup(t, p);
		v->len = p;
		s->pos += p;
		return v;
	}
	size_t int_start = p;
	while (is_digit(json_peek(j, p)))
		p++;
	bool ok = p > int_start && !(json_peek(j, int_start) == '0' && p - int_start > 1);
	if (ok && json_peek(j, p) == '.') {
		size_t f = ++p;
		while (is_digit(json_peek(j, p)))
			p++;
		ok = p > f;
	}
	if (ok && (json_peek(j, p) == 'e' || json_peek(j, p) == 'E')) {
		p++;
		if (json_peek(j, p) == '+' || json_peek(j, p) == '-')
			p++;
		size_t e = p;
		while (is_digit(json_peek(j, p)))
			p++;
		ok = p > e;
	}
	if (!ok) {
		/* Take in the whole would-be number for the caret. */
		for (int c; (c = json_peek(j, p)) >= 0 &&
			    (isalnum(c) || c == '.' || c == '+' || c == '-');)
			p++;
		j->failed = true;
		json_bad(j, json_loc(j, (int)p), "malformed JSON: '%.*s' is not a number",
			   (int)p, s->buf + s->pos);
		return NULL;
	}
	char *text = xstrndup(s->buf + s->pos, p);
	struct value *v = value_number(strtod(text, NULL), NULL);
	v->text = text;
	v->len = p;
	s->pos += p;
	return v;
}

static bool json_word(struct json *j, const char *w)
{
	size_t n = strlen(w);
	if (!json_has(j, 0, w))
		return false;
	/* "nullx" is not null. */
	int c = json_peek(j, n);
	if (c >= 0 && isalnum(c))
		return false;
	j->s->pos += n;
	return true;
}

static struct value *json_value(struct json *j, int depth);

/* Enters the object or array whose opener is at the current position.
 * Returns false, after an error, when it is nested too deep. */
static bool json_open(struct json *j, int depth)
{
	if (depth >= JSON_MAX_DEPTH) {
		j->failed = true;
		json_bad(j, json_loc(j, 1), "JSON nested deeper than %d levels (%s)",
			   JSON_MAX_DEPTH, limit_hint(LIMIT_JSON_DEPTH));
		return false;
	}
	j->s->pos++;
	json_ws(j);
	return true;
}

/* Reads `"key" :` into key (and where it was written into *at).
 * `later` says whether members came before, for the message when the
 * key is missing after a trailing comma. */
static bool json_key(struct json *j, bool later, struct buf *key, struct loc *at)
{
	if (json_peek(j, 0) != '"') {
		json_expected(j, later ? "a key in double quotes (no comma after the last member)"
				       : "a key in double quotes");
		return false;
	}
	*at = json_loc(j, 1);
	if (!json_string(j, key))
		return false;
	at->len = (int)(stream_at(j->s) - j->line_start) + 1 - at->col;
	json_ws(j);
	if (json_peek(j, 0) != ':') {
		json_expected(j, "':' after the key");
		return false;
	}
	j->s->pos++;
	json_ws(j);
	return true;
}

/* After a member or item: 1 when another follows (the comma is read),
 * 0 when the container closes (the closer is read), -1 after an error;
 * open is where the container started, for an unclosed one. */
static int json_next(struct json *j, bool is_obj, struct loc open)
{
	json_ws(j);
	int c = json_peek(j, 0);
	if (c == ',') {
		j->s->pos++;
		json_ws(j);
		return 1;
	}
	if (c == (is_obj ? '}' : ']')) {
		j->s->pos++;
		return 0;
	}
	json_expected(j, is_obj ? "',' or '}'" : "',' or ']'");
	if (c < 0 && !j->s->io_error)
		diag_note(j->d, open, "the %s that is not closed starts here",
			  is_obj ? "object" : "array");
	return -1;
}

/* An object or array; the current character is its opener. */
static struct value *json_container(struct json *j, int depth)
{
	bool is_obj = json_peek(j, 0) == '{';
	char close = is_obj ? '}' : ']';
	struct value *v = value_new(is_obj ? VALUE_MAP : VALUE_LIST);
	v->loc = json_loc(j, 1);
	if (!json_open(j, depth))
		goto fail;
	if (json_peek(j, 0) == close) {
		j->s->pos++;
		return v;
	}
	for (int more = 1; more > 0; more = json_next(j, is_obj, v->loc)) {
		struct buf key = BUF_INIT;
		struct loc key_loc = {0};
		if (is_obj && !json_key(j, v->count > 0, &key, &key_loc)) {
			buf_free(&key);
			goto fail;
		}
		struct value *item = json_value(j, depth + 1);
		if (!item) {
			buf_free(&key);
			goto fail;
		}
		if (is_obj) {
			/* A repeated key: the last one wins, as in most JSON
			 * readers (Python's, JavaScript's). */
			value_set(v, buf_data(&key), item);
			v->key_locs[value_index(v, buf_data(&key))] = key_loc;
			buf_free(&key);
		} else {
			value_push(v, item);
		}
	}
	if (!j->failed)
		return v;
fail:
	value_free(v);
	return NULL;
}

static struct value *json_value(struct json *j, int depth)
{
	int c = json_peek(j, 0);
	if (c < 0) {
		json_expected(j, "a value");
		return NULL;
	}
	struct loc at = json_loc(j, 1);
	struct value *v = NULL;
	if (c == '{' || c == '[')
		return json_container(j, depth);
	if (c == '"') {
		struct buf s = BUF_INIT;
		if (json_string(j, &s))
			v = value_stringn(buf_data(&s), s.len);
		buf_free(&s);
	} else if (c == '-' || is_digit(c) || c == 'I') {
		v = json_number(j);
	} else if (json_word(j, "true")) {
		v = value_bool(true);
	} else if (json_word(j, "false")) {
		v = value_bool(false);
	} else if (json_word(j, "null")) {
		v = value_new(VALUE_NULL);
	} else if (json_word(j, "NaN")) {
		v = value_number(NAN, "NaN");
	} else {
		json_expected(j, "a value");
	}
	if (v) {
		at.len = (int)(stream_at(j->s) - j->line_start) + 1 - at.col;
		v->loc = at;
	}
	return v;
}

/* Reads the JSON value at the current position straight into w's run,
 * path being its dotted key path: an object's members become fields,
 * an array a series, handed to the builder item by item so that only
 * one item is ever a tree.  False after a syntax error. */
static bool json_walk(struct json *j, struct walk *w, int depth, const char *path)
{
	int c = json_peek(j, 0);
	if (c != '{' && c != '[') {
		struct value *v = json_value(j, depth);
		if (!v)
			return false;
		struct datum d = scalar_datum(w, v);
		run_set_field(w->r, *path ? path : "value", &d);
		value_free(v);
		return true;
	}
	bool is_obj = c == '{';
	struct loc open = json_loc(j, 1);
	if (!json_open(j, depth))
		return false;
	bool empty = json_peek(j, 0) == (is_obj ? '}' : ']');
	if (empty)
		j->s->pos++;
	if (is_obj) {
		int more = empty ? 0 : 1;
		for (bool later = false; more > 0; more = json_next(j, true, open), later = true) {
			struct buf key = BUF_INIT;
			struct loc key_loc;
			bool ok = json_key(j, later, &key, &key_loc);
			char *child = ok ? join_path(path, buf_data(&key)) : NULL;
			buf_free(&key);
			ok = ok && json_walk(j, w, depth + 1, child);
			free(child);
			if (!ok)
				return false;
		}
		return more == 0;
	}
	struct builder b;
	builder_init(&b, w, *path ? path : "rows", open);
	int more = empty ? 0 : 1;
	for (; more > 0; more = json_next(j, false, open)) {
		struct value *it = json_value(j, depth + 1);
		if (!it) {
			more = -1;
			break;
		}
		builder_add(&b, it);
		value_free(it);
	}
	if (more < 0) {
		builder_release(&b);
		return false;
	}
	builder_finish(&b);
	return true;
}

/* The look-ahead of json_lines(): a first line longer than this is not
 * taken for JSON Lines. */
#define JSONL_PROBE ((size_t)1 << 20)

/* Is the text from the current byte JSON Lines: an object that ends on
 * its first line, then, on a later line, another object?  A
 * pretty-printed document never is ('{' alone on its first line).  It
 * looks at most JSONL_PROBE bytes ahead. */
static bool json_lines(struct json *j)
{
	if (json_peek(j, 0) != '{')
		return false;
	int depth = 0;
	bool in_str = false;
	size_t k = 0;
	for (int c; k < JSONL_PROBE && (c = json_peek(j, k)) >= 0; k++) {
		if (in_str) {
			if (c == '\\')
				k++;
			else if (c == '"')
				in_str = false;
			else if (c == '\n')
				return false;
			continue;
		}
		if (c == '\n')
			return false;
		if (c == '"')
			in_str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			break;
	}
	if (depth != 0)
		return false;
	bool newline = false;
	for (int c; (c = json_peek(j, ++k)) >= 0;) {
		if (c == '\n')
			newline = true;
		else if (c != ' ' && c != '\t' && c != '\r')
			return newline && c == '{';
	}
	return false;
}

/* Bad lines of a JSON Lines file reported one by one; the rest are
 * counted in one warning at the end. */
#define JSONL_BAD_SHOWN 10

/* Passes over the rest of the line and its line end. */
static void json_skip_line(struct json *j)
{
	struct stream *s = j->s;
	for (int c; (c = json_peek(j, 0)) >= 0;) {
		const char *nl = memchr(s->buf + s->pos, '\n', s->len - s->pos);
		if (!nl) {
			s->pos = s->len;
			continue;
		}
		s->pos = (size_t)(nl - s->buf) + 1;
		j->line++;
		j->line_start = stream_at(s);
		return;
	}
}

/* JSON Lines (one value a line, as loggers append them): each line a
 * row of the series "rows", as if the lines were the items of one
 * list.  Blank lines are skipped.  A malformed line (a line cut short
 * by a crash, a stray message) is a warning at its place and is left
 * out: the lines before and after it are read, as a training log that
 * is still being written must be.  False after a read error only. */
static bool json_read_lines(struct json *j, struct walk *w)
{
	struct builder b;
	builder_init(&b, w, "rows", json_loc(j, 1));
	size_t bad = 0;
	int first_hidden = 0;
	for (;;) {
		j->lines = false; /* blank lines between values */
		json_ws(j);
		j->lines = true;
		if (json_peek(j, 0) < 0)
			break;
		int line = j->line;
		j->quiet = bad >= JSONL_BAD_SHOWN;
		struct value *it = json_value(j, 1);
		if (it) {
			json_ws(j);
			if (json_peek(j, 0) >= 0 && json_peek(j, 0) != '\n') {
				json_expected(j, "the end of the line after the JSON value");
				value_free(it);
				it = NULL;
			}
		}
		if (it) {
			builder_add(&b, it);
			value_free(it);
			continue;
		}
		if (j->s->io_error)
			break;
		if (bad++ == JSONL_BAD_SHOWN)
			first_hidden = line;
		j->failed = false;
		json_skip_line(j);
	}
	j->lines = false;
	j->quiet = false;
	if (bad > JSONL_BAD_SHOWN)
		diag_warning(w->d, loc_line(w->file, first_hidden),
			     "%zu more malformed lines, from this one on, were left out", bad - JSONL_BAD_SHOWN);
	builder_finish(&b);
	return !j->s->io_error;
}

/* Reads the JSON document in s into w's run; lines: it is JSON Lines
 * whatever its first lines look like (a .jsonl file). */
static bool json_read(struct walk *w, struct stream *s, bool lines)
{
	struct json j = {.s = s, .line = 1, .ws_end = -1, .file = w->file, .d = w->d};
	json_ws(&j);
	if (lines || json_lines(&j))
		return json_read_lines(&j, w);
	if (!json_walk(&j, w, 0, ""))
		return false;
	json_ws(&j);
	if (json_peek(&j, 0) >= 0) {
		json_expected(&j, "the end of the file after the JSON value");
		return false;
	}
	return !s->io_error;
}

/* Reads path into text for r: *t and *len are the content after a byte
 * order mark (not content: columns count from after it), r gets its line
 * count, and d can quote it as `shown` until diag_forget_source().  False
 * after an error (reported); text is to be freed in any case. */
static bool load_text(struct run *r, const char *path, const char *shown, struct diag *d,
		      struct buf *text, const char **t, size_t *len)
{
	if (!read_text(path, shown, text, d))
		return false;
	*t = buf_data(text);
	*len = text->len;
	if (*len >= 3 && memcmp(*t, bom, 3) == 0) {
		*t += 3;
		*len -= 3;
	}
	run_set_line_count(r, count_lines(*t, *len));
	diag_add_source(d, shown, *t, *len);
	return true;
}

bool structured_read_json(struct run *r, const char *path, const char *shown, struct diag *d)
{
	return structured_read_json_leaving(r, path, shown, d, NULL, 0);
}

bool structured_read_json_leaving(struct run *r, const char *path, const char *shown,
				  struct diag *d, char *const *leave_out, size_t nleave_out)
{
	struct buf whole = BUF_INIT;
	struct stream s;
	struct walk w = {.r = r, .file = shown, .d = d, .leave_out = leave_out,
			 .nleave_out = nleave_out, .ok = true};
	/* .jsonl and .ndjson are JSON Lines even when the first line is
	 * the bad one, or the only one (the name as the user wrote it:
	 * detection goes by that one too). */
	size_t n = strlen(shown);
	bool lines = (n >= 6 && strcasecmp(shown + n - 6, ".jsonl") == 0) ||
		     (n >= 7 && strcasecmp(shown + n - 7, ".ndjson") == 0);
	if (stream_open(&s, path, shown, d, &whole))
		w.ok = json_read(&w, &s, lines) && w.ok;
	else
		w.ok = false;
	stream_close(&s, r);
	buf_free(&whole);
	return w.ok;
}

struct value *structured_json_tree(const char *path, const char *shown, struct diag *d)
{
	struct buf whole = BUF_INIT;
	struct stream s;
	struct value *v = NULL;
	if (stream_open(&s, path, shown, d, &whole)) {
		struct json j = {.s = &s, .line = 1, .ws_end = -1, .file = shown, .d = d};
		json_ws(&j);
		v = json_value(&j, 0);
		if (v) {
			json_ws(&j);
			if (json_peek(&j, 0) >= 0)
				json_expected(&j, "the end of the file after the JSON value");
			if (json_peek(&j, 0) >= 0 || s.io_error) {
				value_free(v);
				v = NULL;
			}
		}
	}
	stream_close(&s, NULL);
	buf_free(&whole);
	return v;
}

struct value *structured_json_text(const char *text, size_t len, const char *shown, int line,
				   int col, struct diag *d)
{
	struct stream s;
	memset(&s, 0, sizeof s);
	s.fd = -1;
	s.mem = text;
	s.mem_len = len;
	s.file = shown;
	s.d = d;
	s.chunk = stream_chunk();
	/* Columns count from col: the text's first byte is at col. */
	struct json j = {.s = &s, .line = line, .line_start = -(int64_t)(col - 1), .ws_end = -1,
			 .file = shown, .d = d, .warn = true};
	struct value *v = json_value(&j, 0);
	if (v) {
		json_ws(&j);
		if (json_peek(&j, 0) >= 0) {
			json_expected(&j, "the end of the line after the JSON object");
			value_free(v);
			v = NULL;
		}
	}
	free(s.buf);
	return v;
}

/* YAML is read whole as text (its lines are quoted under diagnostics)
 * and streamed by libyaml's events: only one list item at a time is a
 * tree (a 9 MB file of 256,000 rows took 240 MB as one tree). */
bool structured_read_yaml(struct run *r, const char *path, const char *shown, struct diag *d)
{
	struct buf text = BUF_INIT;
	const char *t;
	size_t len;
	if (!load_text(r, path, shown, d, &text, &t, &len)) {
		buf_free(&text);
		return false;
	}
	struct walk w = {.r = r, .file = shown, .d = d, .yaml = true, .ok = true};
	const struct yamldoc_visitor vis = {&w, yaml_scalar, yaml_list_open, yaml_list_item,
					    yaml_list_close};
	w.ok = yamldoc_walk(t, len, shown, &vis, d) && w.ok;
	diag_forget_source(d, shown);
	buf_free(&text);
	return w.ok;
}
