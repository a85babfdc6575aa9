/* xmlread.c: XML files through expat, and the generic mapping of an XML
 * file to a run (format: xml).
 *
 * expat rather than libxml2: it streams (a file of any size is read in
 * bounded chunks, nothing is built but what the mapping keeps), it is
 * small, it gives the line and column of every element and error, and
 * since 2.4 it limits entity expansion (the "billion laughs") itself;
 * libxml2's streaming reader would do, with a library ten times the
 * size and a tree API we do not need. */
#define _POSIX_C_SOURCE 200809L
#include "parse/xmlread.h"

#include <errno.h>
#include <expat.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/util.h"
#include "data/limit.h"
#include "parse/structured.h"
#include "parse/valuetype.h"
#include "xmlevents.h"

/* Files up to this size are held whole so that diagnostics quote the
 * line (as for JSON and logs). */
#define QUOTE_LIMIT ((off_t)4 << 20)
#define CHUNK ((size_t)1 << 20)
/* Elements nested deeper than this end the reading (with a warning). */
#define MAX_DEPTH 1000
/* An element's own text is kept up to this size: a failure's traceback,
 * not a log pasted whole; the open elements' texts together up to
 * TEXT_TOTAL (a thousand nested elements of 1 MiB each are not held). */
#define TEXT_CAP ((size_t)1 << 20)
#define TEXT_TOTAL ((size_t)8 << 20)

const char *xml_attr(const char **attrs, const char *name)
{
	for (size_t i = 0; attrs && attrs[i]; i += 2)
		if (strcmp(attrs[i], name) == 0)
			return attrs[i + 1];
	return NULL;
}

/* The driver. */

struct frame {
	char *name;
	long line;
	int col;
	struct buf text;
	bool leaf;
};

struct reader {
	XML_Parser xp;
	const struct xml_sink *sink;
	const char *shown;
	struct diag *d;
	struct frame *stack;
	size_t depth, cap;
	bool rooted;  /* the root element opened */
	bool closed;  /* and closed again */
	long closed_line;  /* where its end tag starts */
	size_t closed_end; /* the byte after its end tag */
	const char *whole; /* the file's bytes, when it is read whole */
	bool stopped; /* by the sink (it reported) */
	bool too_deep;
	size_t text_total; /* the open elements' texts */
};

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
	struct reader *rd = ud;
	long line = (long)XML_GetCurrentLineNumber(rd->xp);
	int col = (int)XML_GetCurrentColumnNumber(rd->xp) + 1;
	if (rd->depth >= MAX_DEPTH) {
		diag_warning(rd->d, (struct loc){rd->shown, (int)line, col, 1},
			     "elements nested deeper than %d: the rest of the file is not read",
			     MAX_DEPTH);
		rd->too_deep = true;
		XML_StopParser(rd->xp, XML_FALSE);
		return;
	}
	if (rd->depth)
		rd->stack[rd->depth - 1].leaf = false;
	struct xml_elem e = {name, attrs, line, col, rd->depth};
	rd->rooted = true;
	if (rd->sink->start && !rd->sink->start(rd->sink->ctx, &e)) {
		rd->stopped = true;
		XML_StopParser(rd->xp, XML_FALSE);
		return;
	}
	if (rd->depth == rd->cap) {
		rd->cap = rd->cap ? 2 * rd->cap : 16;
		rd->stack = xrealloc(rd->stack, rd->cap * sizeof *rd->stack);
	}
	struct frame *f = &rd->stack[rd->depth++];
	f->name = xstrdup(name);
	f->line = line;
	f->col = col;
	f->text = (struct buf)BUF_INIT;
	f->leaf = true;
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
	struct reader *rd = ud;
	(void)name;
	if (!rd->depth)
		return;
	struct frame *f = &rd->stack[--rd->depth];
	rd->text_total -= f->text.len;
	struct xml_elem e = {f->name, NULL, f->line, f->col, rd->depth};
	if (rd->sink->end)
		rd->sink->end(rd->sink->ctx, &e, f->text.len ? buf_data(&f->text) : "", f->text.len,
			      f->leaf);
	free(f->name);
	buf_free(&f->text);
	if (!rd->depth) {
		rd->closed = true;
		rd->closed_line = (long)XML_GetCurrentLineNumber(rd->xp);
		rd->closed_end = (size_t)XML_GetCurrentByteIndex(rd->xp) +
				 (size_t)XML_GetCurrentByteCount(rd->xp);
	}
}

/* Where the first byte after the root element that is not white space
 * is: expat places (and names) that error differently depending on how
 * the bytes were split between calls, so the reader finds it itself in
 * a file read whole, and says the line the root ended on otherwise. */
static struct loc junk_place(const struct reader *rd, size_t len)
{
	if (!rd->whole)
		return loc_line(rd->shown, (int)rd->closed_line);
	size_t i = rd->closed_end < len ? rd->closed_end : len;
	while (i < len && (rd->whole[i] == ' ' || rd->whole[i] == '\t' || rd->whole[i] == '\n' ||
			   rd->whole[i] == '\r'))
		i++;
	int line = 1, col = 1;
	size_t skip = len >= 3 && memcmp(rd->whole, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	for (size_t k = skip; k < i; k++) {
		if (rd->whole[k] == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)rd->whole[k] & 0xC0) != 0x80) {
			col++;
		}
	}
	return (struct loc){rd->shown, line, col, 1};
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	struct reader *rd = ud;
	if (!rd->depth || len <= 0)
		return;
	struct buf *b = &rd->stack[rd->depth - 1].text;
	size_t n = (size_t)len;
	if (b->len >= TEXT_CAP || rd->text_total >= TEXT_TOTAL)
		return;
	if (n > TEXT_CAP - b->len)
		n = TEXT_CAP - b->len;
	if (n > TEXT_TOTAL - rd->text_total)
		n = TEXT_TOTAL - rd->text_total;
	buf_put(b, s, n);
	rd->text_total += n;
}

/* The bytes one XML_Parse call is given: CHUNK, or, for tests only,
 * LOGDOWN_TEST_CHUNK (as structured.c's refills), so that every token
 * can be made to straddle two calls: what is read must not change. */
static size_t chunk_size(void)
{
	const char *e = getenv("LOGDOWN_TEST_CHUNK");
	if (!e || !*e)
		return CHUNK;
	char *end;
	unsigned long n = strtoul(e, &end, 10);
	return *end || n < 1 || n > CHUNK ? CHUNK : (size_t)n;
}

/* Reports expat's error: an error before the root element (this is not
 * XML), a warning after it (what was read stays).  False for an error. */
static bool report(struct reader *rd, size_t len)
{
	enum XML_Error code = XML_GetErrorCode(rd->xp);
	struct loc at = {rd->shown, (int)XML_GetCurrentLineNumber(rd->xp),
			 (int)XML_GetCurrentColumnNumber(rd->xp) + 1, 1};
	if (!rd->rooted) {
		/* Before the root, which of these expat reports depends on how
		 * the first bytes were split between calls (its encoding
		 * guess): one message, so the file reads the same however fed. */
		bool token = code == XML_ERROR_INVALID_TOKEN || code == XML_ERROR_UNCLOSED_TOKEN ||
			     code == XML_ERROR_PARTIAL_CHAR || code == XML_ERROR_SYNTAX;
		diag_error(rd->d, at, "not an XML file: %s",
			   token ? "not well-formed" : XML_ErrorString(code));
		return false;
	}
	if (rd->closed) {
		diag_warning(rd->d, junk_place(rd, len),
			     "junk after the document element: the rest of the file is not read");
		return true;
	}
	if (rd->depth && (code == XML_ERROR_NO_ELEMENTS || code == XML_ERROR_UNCLOSED_TOKEN ||
			  code == XML_ERROR_UNCLOSED_CDATA_SECTION || code == XML_ERROR_PARTIAL_CHAR)) {
		const struct frame *f = &rd->stack[rd->depth - 1];
		diag_warning(rd->d, at,
			     "unclosed element <%s> (opened at line %ld): the file ends here; "
			     "what came before it is read",
			     f->name, f->line);
	} else if (rd->depth && code == XML_ERROR_TAG_MISMATCH) {
		const struct frame *f = &rd->stack[rd->depth - 1];
		diag_warning(rd->d, at,
			     "mismatched tag: <%s> (opened at line %ld) is not closed before it; "
			     "the rest of the file is not read",
			     f->name, f->line);
	} else {
		diag_warning(rd->d, at, "%s: the rest of the file is not read", XML_ErrorString(code));
	}
	return true;
}

bool xml_stream(const char *path, const char *shown, struct diag *d, const struct xml_sink *sink)
{
	struct reader rd = {.sink = sink, .shown = shown, .d = d};
	struct buf whole = BUF_INIT;
	bool ok = false, quoted = false;
	struct stat st;
	int fd = open_regular(path, &st);
	if (fd < 0) {
		diag_error(d, loc_line(shown, 0), "cannot read: %s", open_error(errno));
		return false;
	}
	rd.xp = XML_ParserCreate(NULL);
	if (!rd.xp) {
		diag_error(d, loc_line(shown, 0), "cannot read: out of memory");
		close(fd);
		return false;
	}
	XML_SetUserData(rd.xp, &rd);
	XML_SetElementHandler(rd.xp, on_start, on_end);
	XML_SetCharacterDataHandler(rd.xp, on_text);
	size_t chunk = chunk_size();
	if (st.st_size <= QUOTE_LIMIT) {
		if (!file_read(path, &whole, NULL)) {
			diag_error(d, loc_line(shown, 0), "cannot read: %s", strerror(errno));
			goto out;
		}
		const char *t = buf_data(&whole);
		size_t skip = whole.len >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
		diag_add_source(d, shown, t + skip, whole.len - skip);
		quoted = true;
		rd.whole = t;
	} else {
		buf_grow(&whole, chunk);
	}
	ok = true;
	for (size_t off = 0;;) {
		const char *p;
		size_t n;
		if (quoted) {
			p = buf_data(&whole) + off;
			/* expat guesses the encoding from the first four bytes:
			 * given fewer, it places an error in them differently */
			size_t want = off == 0 && chunk < 4 ? 4 : chunk;
			n = whole.len - off < want ? whole.len - off : want;
			off += n;
		} else {
			ssize_t got;
			do
				got = read(fd, whole.data, chunk);
			while (got < 0 && errno == EINTR);
			if (got < 0) {
				diag_error(d, loc_line(shown, 0), "cannot read: %s", strerror(errno));
				ok = false;
				break;
			}
			p = whole.data;
			n = (size_t)got;
		}
		bool last = n == 0;
		if (XML_Parse(rd.xp, p, (int)n, last) == XML_STATUS_ERROR) {
			if (rd.stopped)
				ok = false;
			else if (!rd.too_deep)
				ok = report(&rd, whole.len);
			break;
		}
		if (last)
			break;
	}
out:
	while (rd.depth) {
		struct frame *f = &rd.stack[--rd.depth];
		free(f->name);
		buf_free(&f->text);
	}
	free(rd.stack);
	XML_ParserFree(rd.xp);
	close(fd);
	if (quoted)
		diag_forget_source(d, shown);
	buf_free(&whole);
	return ok;
}

/* The generic mapping: rows gathered per element name, made series at
 * the end, when every row's columns are known. */

struct prow {
	long line;
	size_t n;
	size_t *col;
	char **text;
};

struct ptable {
	char *name;
	char **cols;
	size_t ncols;
	struct prow *rows;
	size_t nrows, cap;
	size_t dropped; /* past limit series_rows: only their lines are kept */
	long *dropped_lines;
};

struct generic {
	struct run *r;
	struct ptable *tables;
	size_t ntables;
	/* Per open element: its row (or NULL) and its name in snake_case. */
	struct gframe {
		size_t row;   /* its row's index + 1; 0: none */
		size_t table; /* its table's index (g->tables moves) */
		char *name;
	} *stack;
	size_t cap;
};

/* The index of the table of that name, made if new. */
static size_t table_of(struct generic *g, const char *name)
{
	for (size_t i = 0; i < g->ntables; i++)
		if (strcmp(g->tables[i].name, name) == 0)
			return i;
	g->tables = xrealloc(g->tables, (g->ntables + 1) * sizeof *g->tables);
	struct ptable *t = &g->tables[g->ntables];
	memset(t, 0, sizeof *t);
	t->name = xstrdup(name);
	return g->ntables++;
}

static size_t column_of(struct ptable *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i], name) == 0)
			return i;
	t->cols = xrealloc(t->cols, (t->ncols + 1) * sizeof *t->cols);
	t->cols[t->ncols] = xstrdup(name);
	return t->ncols++;
}

/* Sets a cell of row (a later value of one column replaces it). */
static void row_set(struct ptable *t, struct prow *row, const char *column, const char *text,
		    size_t len)
{
	size_t c = column_of(t, column);
	for (size_t i = 0; i < row->n; i++)
		if (row->col[i] == c) {
			free(row->text[i]);
			row->text[i] = xstrndup(text, len);
			return;
		}
	row->col = xrealloc(row->col, (row->n + 1) * sizeof *row->col);
	row->text = xrealloc(row->text, (row->n + 1) * sizeof *row->text);
	row->col[row->n] = c;
	row->text[row->n++] = xstrndup(text, len);
}

/* text without the blanks around it. */
static const char *trim(const char *text, size_t *len)
{
	size_t n = *len;
	while (n && strchr(" \t\r\n", *text)) {
		text++;
		n--;
	}
	while (n && strchr(" \t\r\n", text[n - 1]))
		n--;
	*len = n;
	return text;
}

static bool generic_start(void *ctx, const struct xml_elem *e)
{
	struct generic *g = ctx;
	if (e->depth >= g->cap) {
		size_t old = g->cap;
		g->cap = g->cap ? 2 * g->cap : 16;
		g->stack = xrealloc(g->stack, g->cap * sizeof *g->stack);
		memset(g->stack + old, 0, (g->cap - old) * sizeof *g->stack);
	}
	struct gframe *f = &g->stack[e->depth];
	f->row = 0;
	f->table = 0;
	f->name = snake_case(e->name, strlen(e->name));
	bool any = e->attrs && e->attrs[0];
	if (e->depth == 0) {
		/* The root's attributes are the file's fields. */
		for (size_t i = 0; any && e->attrs[i]; i += 2) {
			char *k = snake_case(e->attrs[i], strlen(e->attrs[i]));
			struct datum v = datum_from_text(e->attrs[i + 1], strlen(e->attrs[i + 1]), e->line);
			run_set_field(g->r, k, &v);
			free(k);
		}
		return true;
	}
	if (!any)
		return true;
	f->table = table_of(g, f->name);
	struct ptable *t = &g->tables[f->table];
	if (t->nrows >= limit_get(LIMIT_SERIES_ROWS)) {
		/* Kept as a count, for the error that says so. */
		t->dropped_lines = xrealloc(t->dropped_lines,
					    (t->dropped + 1) * sizeof *t->dropped_lines);
		t->dropped_lines[t->dropped++] = e->line;
		return true;
	}
	if (t->nrows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->rows = xrealloc(t->rows, t->cap * sizeof *t->rows);
	}
	/* Rows are addressed by index: the array may move. */
	struct prow *row = &t->rows[t->nrows++];
	memset(row, 0, sizeof *row);
	row->line = e->line;
	for (size_t i = 0; e->attrs[i]; i += 2) {
		char *k = snake_case(e->attrs[i], strlen(e->attrs[i]));
		row_set(t, row, k, e->attrs[i + 1], strlen(e->attrs[i + 1]));
		free(k);
	}
	f->row = t->nrows;
	return true;
}

static struct prow *frame_row(struct generic *g, struct gframe *f)
{
	return f->row ? &g->tables[f->table].rows[f->row - 1] : NULL;
}

static void generic_end(void *ctx, const struct xml_elem *e, const char *text, size_t len,
			bool leaf)
{
	struct generic *g = ctx;
	struct gframe *f = &g->stack[e->depth];
	text = trim(text, &len);
	if (len && f->row) {
		row_set(&g->tables[f->table], frame_row(g, f), "text", text, len);
	} else if (len && leaf && e->depth > 0) {
		struct gframe *up = &g->stack[e->depth - 1];
		if (up->row) {
			row_set(&g->tables[up->table], frame_row(g, up), f->name, text, len);
		} else {
			/* A field named by its path below the root. */
			struct buf path = BUF_INIT;
			for (size_t i = 1; i <= e->depth; i++) {
				if (i > 1)
					buf_putc(&path, '.');
				buf_puts(&path, g->stack[i].name);
			}
			struct datum v = datum_from_text(text, len, e->line);
			run_set_field(g->r, buf_data(&path), &v);
			buf_free(&path);
		}
	}
	free(f->name);
	f->name = NULL;
}

static void generic_finish(struct generic *g)
{
	for (size_t i = 0; i < g->ntables; i++) {
		struct ptable *t = &g->tables[i];
		struct series *s = run_add_series(g->r, t->name, (const char *const *)t->cols,
						  t->ncols);
		struct datum *cells = xcalloc(t->ncols ? t->ncols : 1, sizeof *cells);
		for (size_t k = 0; k < t->nrows; k++) {
			struct prow *row = &t->rows[k];
			for (size_t c = 0; c < t->ncols; c++)
				cells[c] = (struct datum){DATUM_MISSING, 0, NULL, 0, row->line};
			for (size_t c = 0; c < row->n; c++)
				cells[row->col[c]] =
					datum_from_text(row->text[c], strlen(row->text[c]), row->line);
			if (s)
				series_append(s, cells, row->line);
			for (size_t c = 0; c < row->n; c++)
				free(row->text[c]);
			free(row->col);
			free(row->text);
		}
		for (size_t k = 0; k < t->dropped; k++) {
			for (size_t c = 0; c < t->ncols; c++)
				cells[c] = (struct datum){DATUM_MISSING, 0, NULL, 0, t->dropped_lines[k]};
			if (s)
				series_append(s, cells, t->dropped_lines[k]);
		}
		free(cells);
		for (size_t c = 0; c < t->ncols; c++)
			free(t->cols[c]);
		free(t->cols);
		free(t->rows);
		free(t->dropped_lines);
		free(t->name);
	}
	free(g->tables);
	free(g->stack);
}

bool xmlread_generic(struct run *r, const char *path, const char *shown, struct diag *d)
{
	struct generic g = {.r = r};
	struct xml_sink sink = {&g, generic_start, generic_end};
	bool ok = xml_stream(path, shown, d, &sink);
	/* The names of the elements a cut file left open. */
	for (size_t i = 0; i < g.cap; i++)
		free(g.stack[i].name);
	generic_finish(&g);
	return ok;
}
