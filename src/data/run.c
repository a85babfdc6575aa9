/* run.c: the data model: fields and series.  The typing of a value's
 * text is parse/valuetype.c's.
 *
 * Fields are few (tens, at most a few thousand for a flattened JSON
 * file): an array in order of first set, with a small hash index so
 * that setting many of them stays linear.
 *
 * Series can be big (a 1 GB Cerebras log gives 7 million rows of four
 * columns), so they are stored compactly and never moved once written:
 *
 *   - rows live in chunks of up to 65536 rows; within a chunk each
 *     column is an array of doubles (columnar, so an aggregation walks
 *     contiguous memory), and each row has its line and a pointer to
 *     its record;
 *   - a row's record holds the texts of its cells back to back in a
 *     per-series arena of big append-only blocks, each cell preceded
 *     by a varint header (text length, whether there is a text, kind).
 *
 * A four-column row costs 4 * 8 bytes of numbers, 16 bytes of line and
 * record pointer, and its texts plus one header byte per cell: about
 * 80 bytes for a Cerebras training line, against the ~150 bytes of the
 * line itself.  Growing never copies more than one chunk.
 *
 * A series may instead be a view (struct series_view in run.h): arrays
 * in a mapped run store, read in place.  series_cell() then reads the
 * cell's tag, number and text end straight from them, clamping what
 * it reads to the arrays' bounds, since a view's bytes come from a
 * file. */
#include "data/run.h"

#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/limit.h"
#include "base/util.h"

#define CHUNK_SHIFT 16
#define CHUNK_ROWS ((size_t)1 << CHUNK_SHIFT)
#define CHUNK_MASK (CHUNK_ROWS - 1)
#define FIRST_CHUNK_CAP 16
#define FIRST_BLOCK_SIZE 4096
#define MAX_BLOCK_SIZE ((size_t)1 << 20)

/* Cell header bits, below the text length. */
#define CELL_KIND_MASK 3u
/* In the kind bits, beyond enum datum_kind's three: a number whose text
 * is number_put()'s (series_append_shortest()). */
#define CELL_SHORTEST 3u
#define CELL_HAS_TEXT 4u
#define CELL_HAS_LINE 8u /* a varint follows: the cell's line after its row's */
#define CELL_LEN_SHIFT 4

struct chunk {
	size_t cap;                 /* rows allocated in each array */
	void *region;               /* a full chunk's arrays, allocated as one */
	double **num;               /* [col][i] */
	const unsigned char **rec;  /* [i]: the row's record in the arena */
	long *line;                 /* [i] */
};

struct block {
	struct block *next; /* the block filled before this one */
	size_t used, cap;
	unsigned char data[];
};

struct series {
	char *name;
	char **cols;
	size_t ncols;
	size_t nrows;
	/* Rows past limit series_rows are counted, not kept: memory stays
	 * bounded whatever the log holds. */
	size_t dropped;
	long first_dropped; /* the line of the first */
	struct chunk *chunks;
	size_t nchunks, chunks_cap;
	struct block *arena; /* the block being filled; older ones chained */
	size_t next_block;   /* the size of the next block */
	/* a view: its first vrows rows read from there; rows appended after
	 * them (series_take_view()) are the series' own, from row vrows */
	struct series_view *view;
	size_t vrows;
	bool counted; /* series_set_counted() */
	long count_first, count_last; /* a counted series: its rows' first and last lines */
};

struct field {
	char *name;
	struct datum d; /* d.text points into `text` */
	char *text;
	char *inputs;   /* a computed field's inputs, or NULL */
};

struct run {
	char *name, *file, *parser;
	long line_count;
	char line_count_text[24];
	/* name, file, line_count, parser: answered by run_field() when no
	 * field of that name was set. */
	struct datum implicit[4];
	struct field *fields;
	size_t nfields, fields_cap;
	/* Open addressing over field indexes + 1 (0 is empty). */
	size_t *hash;
	size_t hash_cap;
	struct series **series;
	size_t nseries, series_cap;
	long first_line;
	struct run **members; /* a file split into runs */
	size_t nmembers;
	void *held; /* run_hold() */
	void (*release)(void *);
};

static const char *const implicit_names[4] = {"name", "file", "line_count", "parser"};

static struct datum string_datum(const char *s)
{
	struct datum d = {DATUM_STRING, 0, s, strlen(s), 0};
	return d;
}

struct run *run_new(const char *name, const char *file, const char *parser)
{
	struct run *r = xcalloc(1, sizeof *r);
	r->name = xstrdup(name ? name : "");
	r->file = xstrdup(file ? file : "");
	r->parser = xstrdup(parser ? parser : "");
	r->implicit[0] = string_datum(r->name);
	r->implicit[1] = string_datum(r->file);
	r->implicit[3] = string_datum(r->parser);
	run_set_line_count(r, 0);
	return r;
}

static void series_free(struct series *s)
{
	for (size_t c = 0; c < s->nchunks; c++) {
		struct chunk *ch = &s->chunks[c];
		if (ch->region) {
			free(ch->region);
		} else {
			for (size_t j = 0; j < s->ncols; j++)
				free(ch->num[j]);
			free(ch->rec);
			free(ch->line);
		}
		free(ch->num);
	}
	free(s->chunks);
	if (s->view)
		free((void *)s->view->cols);
	free(s->view);
	for (struct block *b = s->arena, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	for (size_t j = 0; j < s->ncols; j++)
		free(s->cols[j]);
	free(s->cols);
	free(s->name);
	free(s);
}

void run_free(struct run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nfields; i++) {
		free(r->fields[i].name);
		free(r->fields[i].text);
		free(r->fields[i].inputs);
	}
	free(r->fields);
	free(r->hash);
	for (size_t i = 0; i < r->nseries; i++)
		series_free(r->series[i]);
	free(r->series);
	for (size_t i = 0; i < r->nmembers; i++)
		run_free(r->members[i]);
	free(r->members);
	free(r->name);
	free(r->file);
	free(r->parser);
	if (r->release)
		r->release(r->held);
	free(r);
}

void run_hold(struct run *r, void *p, void (*release)(void *))
{
	assert(!r->release);
	r->held = p;
	r->release = release;
}

const char *run_name(const struct run *r)
{
	return r->name;
}

void run_set_name(struct run *r, const char *name)
{
	free(r->name);
	r->name = xstrdup(name);
	r->implicit[0] = string_datum(r->name);
}

void run_set_file(struct run *r, const char *file)
{
	char *was = r->file;
	r->file = xstrdup(file ? file : "");
	r->implicit[1] = string_datum(r->file);
	free(was);
}

long run_first_line(const struct run *r)
{
	return r->first_line > 0 ? r->first_line : 1;
}

void run_set_first_line(struct run *r, long line)
{
	r->first_line = line;
}

void run_add_member(struct run *r, struct run *m)
{
	r->members = xrealloc(r->members, (r->nmembers + 1) * sizeof *r->members);
	r->members[r->nmembers++] = m;
}

size_t run_member_count(const struct run *r)
{
	return r->nmembers;
}

struct run *run_member_at(const struct run *r, size_t i)
{
	return r->members[i];
}

struct run *run_take_member(struct run *r, size_t i)
{
	struct run *m = r->members[i];
	memmove(r->members + i, r->members + i + 1, (r->nmembers - i - 1) * sizeof *r->members);
	r->nmembers--;
	return m;
}

const char *run_file(const struct run *r)
{
	return r->file;
}

const char *run_parser(const struct run *r)
{
	return r->parser;
}

long run_line_count(const struct run *r)
{
	return r->line_count;
}

void run_set_line_count(struct run *r, long n)
{
	r->line_count = n;
	int len = snprintf(r->line_count_text, sizeof r->line_count_text, "%ld", n);
	struct datum d = {DATUM_NUMBER, (double)n, r->line_count_text, (size_t)len, 0};
	r->implicit[2] = d;
}

/* FNV-1a: short keys, and no adversary to defend against. */
static size_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return (size_t)h;
}

static void field_index_insert(struct run *r, size_t i)
{
	size_t mask = r->hash_cap - 1;
	size_t h = hash_name(r->fields[i].name) & mask;
	while (r->hash[h])
		h = (h + 1) & mask;
	r->hash[h] = i + 1;
}

static long field_find(const struct run *r, const char *name)
{
	if (!r->hash)
		return -1;
	size_t mask = r->hash_cap - 1;
	for (size_t h = hash_name(name) & mask; r->hash[h]; h = (h + 1) & mask)
		if (strcmp(r->fields[r->hash[h] - 1].name, name) == 0)
			return (long)(r->hash[h] - 1);
	return -1;
}

void run_set_field(struct run *r, const char *name, const struct datum *d)
{
	/* Copied before anything is freed: d may be this very field's view
	 * (a derive x: x). */
	char *text = d->text ? xstrndup(d->text, d->len) : NULL;
	long at = field_find(r, name);
	struct field *f;
	if (at >= 0) {
		f = &r->fields[at];
		free(f->text);
		free(f->inputs);
	} else {
		if (r->nfields == r->fields_cap) {
			r->fields_cap = r->fields_cap ? r->fields_cap * 2 : 8;
			r->fields = xrealloc(r->fields, r->fields_cap * sizeof *r->fields);
		}
		f = &r->fields[r->nfields++];
		f->name = xstrdup(name);
		/* Keep the index at most half full. */
		if (r->nfields * 2 > r->hash_cap) {
			free(r->hash);
			r->hash_cap = r->hash_cap ? r->hash_cap * 2 : 16;
			r->hash = xcalloc(r->hash_cap, sizeof *r->hash);
			for (size_t i = 0; i < r->nfields; i++)
				field_index_insert(r, i);
		} else {
			field_index_insert(r, r->nfields - 1);
		}
	}
	f->d = *d;
	f->text = text;
	f->inputs = NULL;
	if (text)
		f->d.text = text;
	else
		f->d.len = 0;
}

void run_set_field_inputs(struct run *r, const char *name, const char *inputs)
{
	long at = field_find(r, name);
	if (at < 0)
		return;
	free(r->fields[at].inputs);
	r->fields[at].inputs = inputs ? xstrdup(inputs) : NULL;
}

const char *run_field_inputs(const struct run *r, const char *name)
{
	long at = field_find(r, name);
	return at >= 0 ? r->fields[at].inputs : NULL;
}

const struct datum *run_field(const struct run *r, const char *name)
{
	long at = field_find(r, name);
	if (at >= 0)
		return &r->fields[at].d;
	for (size_t i = 0; i < ARRAY_LEN(implicit_names); i++)
		if (strcmp(name, implicit_names[i]) == 0)
			return &r->implicit[i];
	return NULL;
}

size_t run_field_count(const struct run *r)
{
	return r->nfields;
}

const char *run_field_name(const struct run *r, size_t i)
{
	assert(i < r->nfields);
	return r->fields[i].name;
}

const struct datum *run_field_at(const struct run *r, size_t i)
{
	assert(i < r->nfields);
	return &r->fields[i].d;
}

struct series *run_add_series(struct run *r, const char *name, const char *const *columns,
			      size_t ncols)
{
	struct series *old = run_series(r, name);
	if (old) {
		if (old->ncols != ncols)
			return NULL;
		for (size_t j = 0; j < ncols; j++)
			if (strcmp(old->cols[j], columns[j]) != 0)
				return NULL;
		return old;
	}
	struct series *s = xcalloc(1, sizeof *s);
	s->name = xstrdup(name);
	s->ncols = ncols;
	s->cols = xmalloc((ncols ? ncols : 1) * sizeof *s->cols);
	for (size_t j = 0; j < ncols; j++)
		s->cols[j] = xstrdup(columns[j]);
	s->next_block = FIRST_BLOCK_SIZE;
	if (r->nseries == r->series_cap) {
		r->series_cap = r->series_cap ? r->series_cap * 2 : 4;
		r->series = xrealloc(r->series, r->series_cap * sizeof *r->series);
	}
	r->series[r->nseries++] = s;
	return s;
}

struct series *run_series(const struct run *r, const char *name)
{
	for (size_t i = 0; i < r->nseries; i++)
		if (strcmp(r->series[i]->name, name) == 0)
			return r->series[i];
	return NULL;
}

size_t run_series_count(const struct run *r)
{
	return r->nseries;
}

struct series *run_series_at(const struct run *r, size_t i)
{
	assert(i < r->nseries);
	return r->series[i];
}

const char *series_name(const struct series *s)
{
	return s->name;
}

size_t series_column_count(const struct series *s)
{
	return s->ncols;
}

const char *series_column(const struct series *s, size_t col)
{
	assert(col < s->ncols);
	return s->cols[col];
}

long series_column_index(const struct series *s, const char *name)
{
	for (size_t j = 0; j < s->ncols; j++)
		if (strcmp(s->cols[j], name) == 0)
			return (long)j;
	return -1;
}

size_t series_row_count(const struct series *s)
{
	return s->nrows;
}

static size_t varint_size(size_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static unsigned char *varint_put(unsigned char *p, size_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static const unsigned char *varint_get(const unsigned char *p, size_t *v)
{
	size_t x = 0;
	for (unsigned shift = 0;; shift += 7) {
		unsigned char c = *p++;
		x |= (size_t)(c & 0x7F) << shift;
		if (!(c & 0x80))
			break;
	}
	*v = x;
	return p;
}

/* Room for n bytes in the arena; the bytes never move afterwards. */
static unsigned char *arena_alloc(struct series *s, size_t n)
{
	struct block *b = s->arena;
	if (b && b->cap - b->used >= n) {
		unsigned char *p = b->data + b->used;
		b->used += n;
		return p;
	}
	/* Blocks double up to 1 MiB, so that a series of three rows costs
	 * 4 KiB and a big one a few hundred mallocs.  A record bigger than
	 * the next block gets a block of its own. */
	size_t cap = s->next_block;
	if (s->next_block < MAX_BLOCK_SIZE)
		s->next_block *= 2;
	if (cap < n)
		cap = n;
	struct block *nb = xmalloc(sizeof *nb + cap);
	nb->cap = cap;
	nb->used = n;
	if (b && cap == n && b->cap - b->used > 64) {
		/* A one-off big record: keep filling the current block. */
		nb->next = b->next;
		b->next = nb;
	} else {
		nb->next = b;
		s->arena = nb;
	}
	return nb->data;
}

static void chunk_alloc(struct chunk *ch, size_t ncols, size_t cap)
{
	if (!ch->num)
		ch->num = xcalloc(ncols ? ncols : 1, sizeof *ch->num);
	if (cap == CHUNK_ROWS && !ch->rec) {
		/* A chunk that starts full: its arrays in one region. */
		size_t per_row = ncols * sizeof **ch->num + sizeof *ch->rec + sizeof *ch->line;
		char *p = ch->region = xmalloc(cap * per_row);
		for (size_t j = 0; j < ncols; j++, p += cap * sizeof **ch->num)
			ch->num[j] = (double *)(void *)p;
		ch->rec = (const unsigned char **)(void *)p;
		ch->line = (long *)(void *)(p + cap * sizeof *ch->rec);
		ch->cap = cap;
		return;
	}
	for (size_t j = 0; j < ncols; j++)
		ch->num[j] = xrealloc(ch->num[j], cap * sizeof **ch->num);
	ch->rec = xrealloc(ch->rec, cap * sizeof *ch->rec);
	ch->line = xrealloc(ch->line, cap * sizeof *ch->line);
	ch->cap = cap;
}

/* The chunk and index of a new row, growing the storage. */
static struct chunk *row_slot(struct series *s, size_t *i)
{
	size_t own = s->nrows - s->vrows;
	size_t c = own >> CHUNK_SHIFT;
	*i = own & CHUNK_MASK;
	if (c == s->nchunks) {
		if (s->nchunks == s->chunks_cap) {
			s->chunks_cap = s->chunks_cap ? s->chunks_cap * 2 : 4;
			s->chunks = xrealloc(s->chunks, s->chunks_cap * sizeof *s->chunks);
		}
		memset(&s->chunks[c], 0, sizeof s->chunks[c]);
		s->nchunks++;
		/* Only the first chunk starts small: a series that fills one
		 * chunk is a big one. */
		chunk_alloc(&s->chunks[c], s->ncols, c == 0 ? FIRST_CHUNK_CAP : CHUNK_ROWS);
	}
	struct chunk *ch = &s->chunks[c];
	if (*i == ch->cap)
		chunk_alloc(ch, s->ncols, ch->cap * 2 > CHUNK_ROWS ? CHUNK_ROWS : ch->cap * 2);
	return ch;
}

void series_append(struct series *s, const struct datum *cells, long line)
{
	series_append_shortest(s, cells, line, 0);
}

void series_append_shortest(struct series *s, const struct datum *cells, long line,
			    uint64_t shortest)
{
	if (s->nrows >= limit_get(LIMIT_SERIES_ROWS)) {
		if (s->dropped++ == 0)
			s->first_dropped = line;
		return;
	}
	if (s->counted) {
		if (s->nrows++ == 0)
			s->count_first = line;
		s->count_last = line;
		return;
	}
	size_t i;
	struct chunk *ch = row_slot(s, &i);
	size_t need = 0;
	for (size_t j = 0; j < s->ncols; j++) {
		size_t len = cells[j].text ? cells[j].len : 0;
		need += varint_size(len << CELL_LEN_SHIFT) + len;
		if (cells[j].line > line)
			need += varint_size((size_t)(cells[j].line - line));
	}
	unsigned char *p = arena_alloc(s, need ? need : 1);
	ch->rec[i] = p;
	ch->line[i] = line;
	for (size_t j = 0; j < s->ncols; j++) {
		const struct datum *d = &cells[j];
		size_t len = d->text ? d->len : 0;
		/* A cell on a later line than its row's (a field of a JSON
		 * record written over several lines) keeps its own. */
		bool own_line = d->line > line;
		size_t head = len << CELL_LEN_SHIFT | (d->text ? CELL_HAS_TEXT : 0) |
			      (own_line ? CELL_HAS_LINE : 0) |
			      (j < 64 && shortest >> j & 1 && d->kind == DATUM_NUMBER && len
				       ? CELL_SHORTEST
				       : ((unsigned)d->kind & CELL_KIND_MASK));
		p = varint_put(p, head);
		if (own_line)
			p = varint_put(p, (size_t)(d->line - line));
		if (len)
			memcpy(p, d->text, len);
		p += len;
		ch->num[j][i] = d->kind == DATUM_NUMBER ? d->num : 0;
	}
	s->nrows++;
}

void series_set_counted(struct series *s)
{
	assert(s->nrows == 0);
	s->counted = true;
}

bool series_counted(const struct series *s)
{
	return s->counted;
}

size_t series_dropped(const struct series *s, long *first_line)
{
	if (first_line)
		*first_line = s->first_dropped;
	return s->dropped;
}

static uint64_t uint_at(const void *a, unsigned width, size_t i)
{
	const unsigned char *p = (const unsigned char *)a + i * width;
	switch (width) {
	case 1:
		return *p;
	case 2:
		return *(const uint16_t *)(const void *)p;
	case 4:
		return *(const uint32_t *)(const void *)p;
	default:
		return *(const uint64_t *)(const void *)p;
	}
}

static long view_row_line(const struct series_view *v, size_t row)
{
	uint64_t line = (uint64_t)v->line_base[row / SERIES_VIEW_BLOCK] +
			uint_at(v->line_off, v->line_width, row);
	return (long)(int64_t)line;
}

/* The line of a view's cell after its row's: the pair for row. */
static uint64_t view_own_line(const struct series_view_col *c, size_t row)
{
	size_t lo = 0, hi = c->nown;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t r = c->own[2 * mid];
		if (r == row)
			return c->own[2 * mid + 1];
		if (r < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void view_cell(const struct series *s, size_t row, size_t col, struct datum *out)
{
	const struct series_view_col *c = &s->view->cols[col];
	unsigned tag = c->tags ? c->tags[row] : c->tag;
	unsigned kind = tag & CELL_KIND_MASK;
	out->kind = kind > DATUM_STRING ? DATUM_MISSING : (enum datum_kind)kind;
	/* as series_append() keeps them: a number only for a number */
	out->num = c->num && out->kind == DATUM_NUMBER ? c->num[row] : 0;
	out->text = NULL;
	out->len = 0;
	if (tag & SERIES_VIEW_TEXT) {
		uint64_t end = uint_at(c->ends, c->ends_width, row);
		uint64_t start = row ? uint_at(c->ends, c->ends_width, row - 1) : 0;
		if (end > c->pool_len)
			end = c->pool_len;
		if (start > end)
			start = end;
		out->text = c->pool + start;
		out->len = (size_t)(end - start);
	}
	out->line = view_row_line(s->view, row);
	if (tag & SERIES_VIEW_LINE) {
		/* after the row's line, as series_append() keeps it */
		uint64_t after = view_own_line(c, row);
		if (after > 0 && after <= (uint64_t)(LONG_MAX - (out->line > 0 ? out->line : 0)))
			out->line += (long)after;
	}
}

struct series *run_add_series_view(struct run *r, const char *name, const char *const *columns,
				   size_t ncols, const struct series_view *v)
{
	assert(!run_series(r, name));
	struct series *s = run_add_series(r, name, columns, ncols);
	s->view = xmalloc(sizeof *s->view);
	*s->view = *v;
	struct series_view_col *cols = xcalloc(ncols ? ncols : 1, sizeof *cols);
	if (ncols)
		memcpy(cols, v->cols, ncols * sizeof *cols);
	s->view->cols = cols;
	s->nrows = v->nrows;
	s->vrows = v->nrows;
	s->dropped = v->dropped;
	s->first_dropped = v->first_dropped;
	return s;
}

bool series_take_view(struct series *s, const struct series *from, size_t nrows)
{
	if (!from->view || s->view || s->nrows || from->ncols != s->ncols ||
	    nrows > from->vrows)
		return false;
	s->view = xmalloc(sizeof *s->view);
	*s->view = *from->view;
	struct series_view_col *cols = xcalloc(s->ncols ? s->ncols : 1, sizeof *cols);
	if (s->ncols)
		memcpy(cols, from->view->cols, s->ncols * sizeof *cols);
	s->view->cols = cols;
	s->view->nrows = nrows;
	s->view->dropped = 0;
	s->view->first_dropped = 0;
	s->nrows = s->vrows = nrows;
	return true;
}

const struct series_view *series_view_of(const struct series *s)
{
	return s->view;
}

void series_cell(const struct series *s, size_t row, size_t col, struct datum *out)
{
	series_cell_shortest(s, row, col, out);
}

bool series_cell_shortest(const struct series *s, size_t row, size_t col, struct datum *out)
{
	assert(row < s->nrows && col < s->ncols);
	if (row < s->vrows) {
		view_cell(s, row, col, out);
		return false;
	}
	row -= s->vrows;
	const struct chunk *ch = &s->chunks[row >> CHUNK_SHIFT];
	size_t i = row & CHUNK_MASK;
	const unsigned char *p = ch->rec[i];
	size_t head, after = 0;
	for (size_t j = 0;; j++) {
		p = varint_get(p, &head);
		if (head & CELL_HAS_LINE)
			p = varint_get(p, &after);
		if (j == col)
			break;
		after = 0;
		p += head >> CELL_LEN_SHIFT;
	}
	unsigned kind = head & CELL_KIND_MASK;
	out->kind = kind == CELL_SHORTEST ? DATUM_NUMBER : (enum datum_kind)kind;
	out->num = ch->num[col][i];
	out->text = head & CELL_HAS_TEXT ? (const char *)p : NULL;
	out->len = head >> CELL_LEN_SHIFT;
	out->line = ch->line[i] + (long)after;
	return kind == CELL_SHORTEST;
}

double series_number(const struct series *s, size_t row, size_t col)
{
	assert(row < s->nrows && col < s->ncols);
	if (row < s->vrows) {
		const struct series_view_col *c = &s->view->cols[col];
		unsigned tag = c->tags ? c->tags[row] : c->tag;
		return c->num && (tag & CELL_KIND_MASK) == DATUM_NUMBER ? c->num[row] : 0;
	}
	row -= s->vrows;
	/* kept as 0 for a cell that is not a number (series_append()) */
	return s->chunks[row >> CHUNK_SHIFT].num[col][row & CHUNK_MASK];
}

void series_row(const struct series *s, size_t row, struct datum *out)
{
	series_row_shortest(s, row, out);
}

uint64_t series_row_shortest(const struct series *s, size_t row, struct datum *out)
{
	assert(row < s->nrows);
	if (row < s->vrows) {
		for (size_t j = 0; j < s->ncols; j++)
			view_cell(s, row, j, &out[j]);
		return 0;
	}
	row -= s->vrows;
	uint64_t shortest = 0;
	const struct chunk *ch = &s->chunks[row >> CHUNK_SHIFT];
	size_t i = row & CHUNK_MASK;
	const unsigned char *p = ch->rec[i];
	long line = ch->line[i];
	for (size_t j = 0; j < s->ncols; j++) {
		size_t head, after = 0;
		p = varint_get(p, &head);
		if (head & CELL_HAS_LINE)
			p = varint_get(p, &after);
		unsigned kind = head & CELL_KIND_MASK;
		out[j].kind = kind == CELL_SHORTEST ? DATUM_NUMBER : (enum datum_kind)kind;
		if (kind == CELL_SHORTEST && j < 64)
			shortest |= (uint64_t)1 << j;
		out[j].num = ch->num[j][i];
		out[j].text = head & CELL_HAS_TEXT ? (const char *)p : NULL;
		out[j].len = head >> CELL_LEN_SHIFT;
		out[j].line = line + (long)after;
		p += head >> CELL_LEN_SHIFT;
	}
	return shortest;
}

long series_row_line(const struct series *s, size_t row)
{
	assert(row < s->nrows);
	if (s->counted) {
		assert(row == 0 || row == s->nrows - 1);
		return row == 0 ? s->count_first : s->count_last;
	}
	if (row < s->vrows)
		return view_row_line(s->view, row);
	row -= s->vrows;
	return s->chunks[row >> CHUNK_SHIFT].line[row & CHUNK_MASK];
}
