/* run.c: the data model: fields and series.  The typing of a value's
 * text is parse/valuetype.c's.
 *
 * Fields are few (tens, at most a few thousand for a flattened JSON
 * file): an array in order of first set, with a small hash index so
 * that setting many of them stays linear.
 *
 * Series can be big (a 1 GB Cerebras log gives 7 million rows of four
 * columns), so they are stored compactly:
 *
 *   - rows live in chunks of up to 65536 rows; a chunk holds its rows'
 *     records back to back in one buffer, where each starts (4 bytes a
 *     row), and the line of its first row;
 *   - a row's record holds the row's line (after the chunk's first
 *     row's, a zigzag varint), then each cell: a varint header (text
 *     length, whether it has a line of its own, and a code: its kind,
 *     whether a text and a double follow), its own line after the
 *     row's, its double, and its text.
 *
 * A number's double is kept only when its text does not give it back:
 * a cell whose text number_read_exact() reads as its number, bit for
 * bit (a log's "2985.58" and "7.12500" alike), is its text alone, and
 * its number is read again when asked for (a few nanoseconds: the
 * text is short and the read exact).  So a Cerebras training row costs
 * where its record starts (4 bytes), its line (3), and its texts with
 * a header byte or two each (about 35): about 42 bytes, against the
 * ~150 bytes of the line itself, and 82 when each row kept a double a
 * cell, a line and a record pointer of 8 bytes each.  The parse of the
 * 1 GB log holds its rows while the store is written (runs.c): that
 * is the build's peak.
 *
 * A series may instead be a view (struct series_view in run.h): arrays
 * in a mapped run store, read in place.  series_cell() then reads the
 * cell's tag, number and text end straight from them, clamping what
 * it reads to the arrays' bounds, since a view's bytes come from a
 * file. */
#include "data/run.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/limit.h"
#include "data/value.h"
#include "base/util.h"

#define CHUNK_SHIFT 16
#define CHUNK_ROWS ((size_t)1 << CHUNK_SHIFT)
#define CHUNK_MASK (CHUNK_ROWS - 1)
#define FIRST_CHUNK_CAP 16
#define FIRST_BYTES 4096

/* A record's cell header: the text's length above CELL_LEN_SHIFT, then
 * CELL_HAS_LINE (a varint follows: the cell's line after its row's),
 * then the cell's code. */
#define CELL_CODE_MASK 7u
#define CELL_HAS_LINE 8u
#define CELL_LEN_SHIFT 4
enum cell_code {
	CODE_MISSING,      /* no text */
	CODE_MISSING_TEXT, /* "--", "n/a" */
	CODE_STRING,       /* no text */
	CODE_STRING_TEXT,
	CODE_NUMBER,       /* computed: its double follows, no text */
	CODE_NUMBER_TEXT,  /* its double follows, then a text that does not give it ("98%") */
	CODE_NUMBER_READ,  /* its text alone: number_read_exact() gives its double */
	CODE_NUMBER_SHORT, /* the same, the text marked number_put()'s (series_append_shortest()) */
};
/* A view's tag (struct series_view_col): the kind in its low bits. */
#define VIEW_KIND_MASK 3u

struct chunk {
	size_t cap;           /* rows allocated in off (or off64) */
	uint32_t *off;        /* [i]: where row i's record starts in bytes */
	uint64_t *off64;      /* the same once bytes pass 4 GiB (off is then NULL) */
	unsigned char *bytes; /* the rows' records, back to back */
	size_t used, size;    /* bytes used, allocated */
	long base;            /* the line of the chunk's first row */
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
	size_t next_bytes; /* the bytes a new chunk starts with: the last full one's */
	/* a view: its first vrows rows read from there; rows appended after
	 * them (series_take_view()) are the series' own, from row vrows */
	struct series_view *view;
	size_t vrows;
	unsigned char *codes; /* series_append()'s: each cell's code, ncols of them */
	bool counted; /* series_set_counted() */
	long count_first, count_last; /* a counted series: its rows' first and last lines */
	struct fold_note *folds; /* series_fold_note() */
	size_t nfolds;
	struct survey *sv; /* series_survey()'s, taken as rows are appended */
};

/* A series' survey (series_survey()), grown by survey_row(). */
struct survey {
	struct series_col_survey *col;
	int64_t *base;       /* per block of SERIES_VIEW_BLOCK rows: its least line */
	size_t base_cap;
	int64_t lo, hi;      /* the lines of the block being filled */
	uint64_t span;       /* over the blocks filled */
	uint64_t *before;    /* per SERIES_SURVEY_STEP rows: 2 * ncols sums before them */
	size_t before_cap;
};

struct fold_note {
	size_t col, rows;
	int fn;
	struct buf bytes;
};

struct field {
	char *name;
	struct datum d; /* d.text points into `text` */
	char *text;
	char *inputs;   /* a computed field's inputs, or NULL */
};

struct run {
	char *name, *file, *parser;
	char *file_attr; /* the `file` attribute, or NULL: file */
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
		free(s->chunks[c].off);
		free(s->chunks[c].off64);
		free(s->chunks[c].bytes);
	}
	free(s->chunks);
	free(s->codes);
	if (s->sv) {
		free(s->sv->col);
		free(s->sv->base);
		free(s->sv->before);
		free(s->sv);
	}
	for (size_t i = 0; i < s->nfolds; i++)
		buf_free(&s->folds[i].bytes);
	free(s->folds);
	if (s->view)
		free((void *)s->view->cols);
	free(s->view);
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
	free(r->file_attr);
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
	if (!r->file_attr)
		r->implicit[1] = string_datum(r->file);
	free(was);
}

void run_set_file_attr(struct run *r, const char *attr)
{
	char *was = r->file_attr;
	r->file_attr = xstrdup(attr);
	r->implicit[1] = string_datum(r->file_attr);
	free(was);
	for (size_t i = 0; i < r->nmembers; i++)
		run_set_file_attr(r->members[i], attr);
}

const char *run_file_attr(const struct run *r)
{
	return r->file_attr ? r->file_attr : r->file;
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
	s->next_bytes = FIRST_BYTES;
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

static size_t varint_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static unsigned char *varint_put(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static const unsigned char *varint_get(const unsigned char *p, uint64_t *v)
{
	uint64_t x = 0;
	for (unsigned shift = 0;; shift += 7) {
		unsigned char c = *p++;
		x |= (uint64_t)(c & 0x7F) << shift;
		if (!(c & 0x80))
			break;
	}
	*v = x;
	return p;
}

/* A row's line after its chunk's first row's, as a varint: small either
 * way (rows are nearly always in line order; wrapping arithmetic, so
 * that any two lines give back the one written). */
static uint64_t zigzag(long line, long base)
{
	uint64_t d = (uint64_t)line - (uint64_t)base;
	return (d << 1) ^ (0 - (d >> 63));
}

static long unzigzag(uint64_t z, long base)
{
	uint64_t d = (z >> 1) ^ (0 - (z & 1));
	return (long)(int64_t)((uint64_t)base + d);
}

static void chunk_alloc(struct chunk *ch, size_t cap)
{
	if (ch->off64)
		ch->off64 = xrealloc(ch->off64, cap * sizeof *ch->off64);
	else
		ch->off = xrealloc(ch->off, cap * sizeof *ch->off);
	ch->cap = cap;
}

/* Room for row i's record of n bytes at the end of the chunk's bytes,
 * which grow by doubling (moving the records: a datum's text is valid
 * until the run changes, run.h).  A new chunk starts with what the last
 * full one took, and a full one gives back what it did not use, so
 * that a big series is nearly never copied and wastes at most one
 * chunk's slack. */
static unsigned char *chunk_room(struct series *s, struct chunk *ch, size_t i, size_t n)
{
	if (!ch->bytes) {
		ch->size = s->next_bytes > n ? s->next_bytes : n;
		ch->bytes = xmalloc(ch->size);
	} else if (ch->size - ch->used < n) {
		size_t size = ch->size * 2 > ch->used + n ? ch->size * 2 : ch->used + n;
		ch->bytes = xrealloc(ch->bytes, size);
		ch->size = size;
	}
	if (!ch->off64 && ch->used > UINT32_MAX) {
		/* past 4 GiB in one chunk (rows of 64 KB on average) */
		ch->off64 = xmalloc(ch->cap * sizeof *ch->off64);
		for (size_t k = 0; k < i; k++)
			ch->off64[k] = ch->off[k];
		free(ch->off);
		ch->off = NULL;
	}
	if (ch->off64)
		ch->off64[i] = ch->used;
	else
		ch->off[i] = (uint32_t)ch->used;
	unsigned char *p = ch->bytes + ch->used;
	ch->used += n;
	if (i == CHUNK_ROWS - 1) {
		ch->bytes = xrealloc(ch->bytes, ch->used);
		ch->size = ch->used;
		s->next_bytes = ch->used + ch->used / 8;
		p = ch->bytes + ch->used - n;
	}
	return p;
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
		chunk_alloc(&s->chunks[c], c == 0 ? FIRST_CHUNK_CAP : CHUNK_ROWS);
	}
	struct chunk *ch = &s->chunks[c];
	if (*i == ch->cap)
		chunk_alloc(ch, ch->cap * 2 > CHUNK_ROWS ? CHUNK_ROWS : ch->cap * 2);
	return ch;
}

/* How cell d is kept (enum cell_code).  A number is its text alone when
 * the text reads back as its very double: marked number_put()'s by the
 * scanner (which read the number from that text), or checked here. */
static unsigned cell_code(const struct datum *d, bool marked)
{
	switch (d->kind) {
	case DATUM_NUMBER: {
		if (!d->text)
			return CODE_NUMBER;
		if (marked && d->len)
			return CODE_NUMBER_SHORT;
		double v;
		if (number_read_exact(d->text, d->len, &v) && memcmp(&v, &d->num, sizeof v) == 0)
			return CODE_NUMBER_READ;
		return CODE_NUMBER_TEXT;
	}
	case DATUM_STRING:
		return d->text ? CODE_STRING_TEXT : CODE_STRING;
	default:
		return d->text ? CODE_MISSING_TEXT : CODE_MISSING;
	}
}

/* The row series_append_shortest() just wrote (cells on line, their
 * codes in s->codes; s->nrows not yet counting it) into the survey: the
 * steps of runstore.c's first pass over a row, as the row is in hand. */
static void survey_row(struct series *s, const struct datum *cells, long line,
		       const signed char *given)
{
	struct survey *v = s->sv;
	size_t row = s->nrows, nc = s->ncols;
	if (row == 0) {
		v = s->sv = xcalloc(1, sizeof *v);
		v->col = xcalloc(nc ? nc : 1, sizeof *v->col);
	}
	if (row % SERIES_SURVEY_STEP == 0) {
		size_t k = row / SERIES_SURVEY_STEP;
		if (k == v->before_cap) {
			v->before_cap = v->before_cap ? 2 * v->before_cap : 8;
			v->before = xrealloc(v->before, v->before_cap * 2 * (nc ? nc : 1) * sizeof *v->before);
		}
		for (size_t j = 0; j < nc; j++) {
			v->before[k * 2 * nc + 2 * j] = v->col[j].pool_len;
			v->before[k * 2 * nc + 2 * j + 1] = v->col[j].nown;
		}
	}
	for (size_t j = 0; j < nc; j++) {
		const struct datum *d = &cells[j];
		unsigned c = s->codes[j];
		bool text = (c & 1) || c >= CODE_NUMBER_READ, own = d->line > line;
		unsigned kind = c >= CODE_NUMBER ? DATUM_NUMBER
			      : c >= CODE_STRING ? DATUM_STRING
						 : DATUM_MISSING;
		unsigned tag = kind | (text ? SERIES_VIEW_TEXT : 0) | (own ? SERIES_VIEW_LINE : 0);
		/* a number kept as its text alone is that text's reading
		 * (number_read_exact()'s: the scanner may know its
		 * decimals from its own) */
		int dec = c < CODE_NUMBER_READ	   ? -1
			  : given && given[j] >= -1 ? given[j]
						    : number_fixed_decimals(d->text, d->len);
		struct series_col_survey *k = &v->col[j];
		if (row == 0) {
			k->tag0 = tag;
			k->dec0 = (signed char)dec;
			k->uniform = k->fixed = true;
		}
		k->fixed = k->fixed && dec >= 0 && dec == k->dec0 && !own;
		k->uniform = k->uniform && tag == k->tag0;
		k->numbers = k->numbers || kind == DATUM_NUMBER;
		k->pool_len += text ? d->len : 0;
		k->nown += own;
	}
	if (row % SERIES_VIEW_BLOCK == 0) {
		v->lo = v->hi = line;
	} else {
		v->lo = line < v->lo ? line : v->lo;
		v->hi = line > v->hi ? line : v->hi;
	}
	if (row % SERIES_VIEW_BLOCK == SERIES_VIEW_BLOCK - 1) {
		size_t b = row / SERIES_VIEW_BLOCK;
		if (b == v->base_cap) {
			v->base_cap = v->base_cap ? 2 * v->base_cap : 64;
			v->base = xrealloc(v->base, v->base_cap * sizeof *v->base);
		}
		v->base[b] = v->lo;
		if ((uint64_t)v->hi - (uint64_t)v->lo > v->span)
			v->span = (uint64_t)v->hi - (uint64_t)v->lo;
	}
}

bool series_survey(const struct series *s, struct series_col_survey *cols, int64_t *base,
		   uint64_t *span)
{
	const struct survey *v = s->sv;
	if (!v || s->vrows || s->counted || s->nrows == 0)
		return false;
	if (s->ncols)
		memcpy(cols, v->col, s->ncols * sizeof *cols);
	size_t full = s->nrows / SERIES_VIEW_BLOCK;
	if (full)
		memcpy(base, v->base, full * sizeof *base);
	*span = v->span;
	if (s->nrows % SERIES_VIEW_BLOCK) {
		/* the last block, not full */
		base[full] = v->lo;
		if ((uint64_t)v->hi - (uint64_t)v->lo > *span)
			*span = (uint64_t)v->hi - (uint64_t)v->lo;
	}
	return true;
}

void series_survey_before(const struct series *s, size_t row, uint64_t *pool_len,
			  uint64_t *nown)
{
	const struct survey *v = s->sv;
	size_t k = row / SERIES_SURVEY_STEP, nc = s->ncols;
	assert(v && row % SERIES_SURVEY_STEP == 0 && row < s->nrows);
	for (size_t j = 0; j < nc; j++) {
		pool_len[j] = v->before[k * 2 * nc + 2 * j];
		nown[j] = v->before[k * 2 * nc + 2 * j + 1];
	}
}

void series_append(struct series *s, const struct datum *cells, long line)
{
	series_append_shortest(s, cells, line, 0);
}

void series_append_shortest(struct series *s, const struct datum *cells, long line,
			    uint64_t shortest)
{
	series_append_fixed(s, cells, line, shortest, NULL);
}

void series_append_fixed(struct series *s, const struct datum *cells, long line,
			 uint64_t shortest, const signed char *dec)
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
	if (i == 0)
		ch->base = line;
	if (!s->codes)
		s->codes = xmalloc(s->ncols ? s->ncols : 1);
	uint64_t zline = zigzag(line, ch->base);
	size_t need = varint_size(zline);
	for (size_t j = 0; j < s->ncols; j++) {
		const struct datum *d = &cells[j];
		size_t len = d->text ? d->len : 0;
		/* a number the scanner read exactly from its text (its
		 * decimals known: dec[j] >= 0) is that text's reading */
		bool marked = j < 64 && shortest >> j & 1;
		s->codes[j] = (unsigned char)(dec && dec[j] >= 0 && !marked && d->kind == DATUM_NUMBER &&
						      d->text && d->len
						  ? CODE_NUMBER_READ
						  : cell_code(d, marked));
		need += varint_size((uint64_t)len << CELL_LEN_SHIFT) + len;
		if (s->codes[j] == CODE_NUMBER || s->codes[j] == CODE_NUMBER_TEXT)
			need += sizeof d->num;
		if (d->line > line)
			need += varint_size((uint64_t)(d->line - line));
	}
	unsigned char *p = chunk_room(s, ch, i, need);
	p = varint_put(p, zline);
	for (size_t j = 0; j < s->ncols; j++) {
		const struct datum *d = &cells[j];
		size_t len = d->text ? d->len : 0;
		/* A cell on a later line than its row's (a field of a JSON
		 * record written over several lines) keeps its own. */
		bool own_line = d->line > line;
		p = varint_put(p, (uint64_t)len << CELL_LEN_SHIFT | (own_line ? CELL_HAS_LINE : 0) |
					  s->codes[j]);
		if (own_line)
			p = varint_put(p, (uint64_t)(d->line - line));
		if (s->codes[j] == CODE_NUMBER || s->codes[j] == CODE_NUMBER_TEXT) {
			memcpy(p, &d->num, sizeof d->num);
			p += sizeof d->num;
		}
		if (len)
			memcpy(p, d->text, len);
		p += len;
	}
	/* (a series with a view's rows is surveyed by the writer) */
	if (s->vrows == 0)
		survey_row(s, cells, line, dec);
	s->nrows++;
}

bool series_appended_cell(const struct series *s, const struct datum *cells, long line,
			  size_t col, struct datum *out)
{
	assert(s->codes && !s->counted && col < s->ncols);
	/* as cell_get() reads the record series_append_shortest() wrote */
	const struct datum *d = &cells[col];
	unsigned c = s->codes[col];
	out->kind = c >= CODE_NUMBER ? DATUM_NUMBER : c >= CODE_STRING ? DATUM_STRING : DATUM_MISSING;
	out->len = d->text ? d->len : 0;
	out->text = (c & 1) || c >= CODE_NUMBER_READ ? d->text : NULL;
	out->line = d->line > line ? d->line : line;
	/* its double (CODE_NUMBER, CODE_NUMBER_TEXT), or its text's reading,
	 * which cell_code() found to be it (CODE_NUMBER_READ) or which the
	 * scanner read it as (CODE_NUMBER_SHORT); 0 for a cell that is not
	 * a number, as cell_number() */
	out->num = c >= CODE_NUMBER ? d->num : 0;
	return c == CODE_NUMBER_SHORT;
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

/* A SERIES_VIEW_DEC column's texts, made a block of rows at a time as
 * they are read: each block once, published whole (a reader on another
 * thread finds it made or makes its own and frees it), kept while the
 * view's memory is. */
struct dec_block {
	uint16_t ends[SERIES_VIEW_BLOCK]; /* where each row's text ends */
	char bytes[];
};

struct series_view_texts {
	size_t nrows;
	struct dec_block **blocks;
};

struct series_view_texts *series_view_texts_new(size_t nrows)
{
	struct series_view_texts *t = xmalloc(sizeof *t);
	size_t nblocks = (nrows + SERIES_VIEW_BLOCK - 1) / SERIES_VIEW_BLOCK;
	t->nrows = nrows;
	t->blocks = xcalloc(nblocks ? nblocks : 1, sizeof *t->blocks);
	return t;
}

void series_view_texts_free(struct series_view_texts *t)
{
	if (!t)
		return;
	size_t nblocks = (t->nrows + SERIES_VIEW_BLOCK - 1) / SERIES_VIEW_BLOCK;
	for (size_t b = 0; b < nblocks; b++)
		free(t->blocks[b]);
	free(t->blocks);
	free(t);
}

static const char *dec_text(const struct series_view_col *c, size_t row, size_t *len)
{
	struct series_view_texts *t = c->texts;
	size_t b = row / SERIES_VIEW_BLOCK, first = b * SERIES_VIEW_BLOCK;
	struct dec_block *blk = __atomic_load_n(&t->blocks[b], __ATOMIC_ACQUIRE);
	if (!blk) {
		size_t n = t->nrows - first < SERIES_VIEW_BLOCK ? t->nrows - first : SERIES_VIEW_BLOCK;
		char tmp[SERIES_VIEW_BLOCK * NUMBER_FIXED_MAX];
		uint16_t ends[SERIES_VIEW_BLOCK];
		size_t used = 0;
		for (size_t i = 0; i < n; i++) {
			used += number_put_fixed(c->num[first + i], c->dec, tmp + used);
			ends[i] = (uint16_t)used;
		}
		blk = xmalloc(sizeof *blk + used);
		memcpy(blk->ends, ends, n * sizeof *ends);
		memcpy(blk->bytes, tmp, used);
		struct dec_block *none = NULL;
		if (!__atomic_compare_exchange_n(&t->blocks[b], &none, blk, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			free(blk);
			blk = none;
		}
	}
	size_t i = row - first, start = i ? blk->ends[i - 1] : 0;
	*len = blk->ends[i] - start;
	return blk->bytes + start;
}

static void view_cell(const struct series *s, size_t row, size_t col, struct datum *out)
{
	const struct series_view_col *c = &s->view->cols[col];
	unsigned tag = c->tags ? c->tags[row] : c->tag;
	unsigned kind = tag & VIEW_KIND_MASK;
	out->kind = kind > DATUM_STRING ? DATUM_MISSING : (enum datum_kind)kind;
	/* as series_append() keeps them: a number only for a number */
	out->num = c->num && out->kind == DATUM_NUMBER ? c->num[row] : 0;
	out->text = NULL;
	out->len = 0;
	if (c->texts) { /* (a SERIES_VIEW_DEC column's; a row's tag may say anything) */
		out->text = dec_text(c, row, &out->len);
	} else if (tag & SERIES_VIEW_TEXT) {
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

void series_drop_pages(const struct series *s, size_t col)
{
	assert(col < s->ncols);
	const struct series_view *v = s->view;
	if (!v || !v->drop || s->vrows == 0)
		return;
	const struct series_view_col *c = &v->cols[col];
	size_t n = s->vrows;
	if (c->tags)
		v->drop(c->tags, n);
	if (c->num)
		v->drop(c->num, n * sizeof *c->num);
	v->drop(c->ends, n * c->ends_width);
	v->drop(c->pool, c->pool_len);
	if (c->own)
		v->drop(c->own, c->nown * 2 * sizeof *c->own);
	v->drop(v->line_base, (n + SERIES_VIEW_BLOCK - 1) / SERIES_VIEW_BLOCK * sizeof *v->line_base);
	v->drop(v->line_off, n * v->line_width);
}

void series_cell(const struct series *s, size_t row, size_t col, struct datum *out)
{
	series_cell_shortest(s, row, col, out);
}

/* Row `row`, one of the series' own (after a view's rows): its record's
 * first cell, and its line into *line. */
static const unsigned char *row_record(const struct series *s, size_t row, long *line)
{
	row -= s->vrows;
	const struct chunk *ch = &s->chunks[row >> CHUNK_SHIFT];
	uint64_t z;
	size_t i = row & CHUNK_MASK;
	const unsigned char *p = varint_get(ch->bytes + (ch->off64 ? ch->off64[i] : ch->off[i]), &z);
	*line = unzigzag(z, ch->base);
	return p;
}

/* The cell at p, of a row on `line`, into *out but for its number (0);
 * its code into *code, and where its double is into *dbl (NULL when it
 * has none).  Returns where the next cell starts. */
static const unsigned char *cell_get(const unsigned char *p, long line, struct datum *out,
				     unsigned *code, const unsigned char **dbl)
{
	uint64_t head, after = 0;
	p = varint_get(p, &head);
	if (head & CELL_HAS_LINE)
		p = varint_get(p, &after);
	unsigned c = (unsigned)(head & CELL_CODE_MASK);
	*code = c;
	*dbl = NULL;
	if (c == CODE_NUMBER || c == CODE_NUMBER_TEXT) {
		*dbl = p;
		p += sizeof(double);
	}
	out->kind = c >= CODE_NUMBER ? DATUM_NUMBER : c >= CODE_STRING ? DATUM_STRING : DATUM_MISSING;
	out->num = 0;
	out->len = (size_t)(head >> CELL_LEN_SHIFT);
	out->text = (c & 1) || c >= CODE_NUMBER_READ ? (const char *)p : NULL;
	out->line = line + (long)after;
	return p + out->len;
}

/* The double of a number kept as its text alone: number_read_exact()'s
 * reading, inline (a store's writer and an aggregation read millions):
 * the same digits, the same one division. */
static double text_number(const char *p, size_t len)
{
	size_t i = len && p[0] == '-', digits = 0, frac = 0;
	bool neg = i, point = false;
	uint64_t mant = 0;
	for (; i < len; i++) {
		unsigned d = (unsigned)((unsigned char)p[i] - '0');
		if (d < 10) {
			mant = mant * 10 + d;
			digits++;
			frac += point;
		} else if (p[i] == '.' && !point) {
			point = true;
		} else {
			break;
		}
	}
	if (i == len && digits > 0 && digits <= 19 && mant <= ((uint64_t)1 << 53) && frac <= 22) {
		double v = frac ? (double)mant / number_pow10[frac] : (double)mant;
		return neg ? -v : v;
	}
	double v;
	if (number_read_exact(p, len, &v))
		return v;
	/* Only a text marked number_put()'s can get here, one that is not
	 * plain digits ("1e+21"): it reads back as its number (that is
	 * what number_put() writes), with strtod() as with any text. */
	char tmp[64];
	if (len >= sizeof tmp)
		return 0;
	memcpy(tmp, p, len);
	tmp[len] = '\0';
	return strtod(tmp, NULL);
}

/* The number of a cell cell_get() read: its double, or its text read. */
static double cell_number(unsigned code, const unsigned char *dbl, const struct datum *d)
{
	double v = 0;
	if (dbl)
		memcpy(&v, dbl, sizeof v);
	else if (code >= CODE_NUMBER_READ)
		v = text_number(d->text, d->len);
	return v;
}

/* Cell (row, col) of the series' own rows, but for its number; its code
 * and double as cell_get() gives them. */
static void own_cell(const struct series *s, size_t row, size_t col, struct datum *out,
		     unsigned *code, const unsigned char **dbl)
{
	long line;
	const unsigned char *p = row_record(s, row, &line);
	for (size_t j = 0; j <= col; j++)
		p = cell_get(p, line, out, code, dbl);
}

bool series_cell_shortest(const struct series *s, size_t row, size_t col, struct datum *out)
{
	assert(row < s->nrows && col < s->ncols);
	if (row < s->vrows) {
		view_cell(s, row, col, out);
		return false;
	}
	unsigned code;
	const unsigned char *dbl;
	own_cell(s, row, col, out, &code, &dbl);
	out->num = cell_number(code, dbl, out);
	return code == CODE_NUMBER_SHORT;
}

void series_cell_text(const struct series *s, size_t row, size_t col, struct datum *out)
{
	assert(row < s->nrows && col < s->ncols);
	if (row < s->vrows) {
		view_cell(s, row, col, out);
		out->num = 0;
		return;
	}
	unsigned code;
	const unsigned char *dbl;
	own_cell(s, row, col, out, &code, &dbl);
}

double series_number(const struct series *s, size_t row, size_t col)
{
	assert(row < s->nrows && col < s->ncols);
	if (row < s->vrows) {
		const struct series_view_col *c = &s->view->cols[col];
		unsigned tag = c->tags ? c->tags[row] : c->tag;
		return c->num && (tag & VIEW_KIND_MASK) == DATUM_NUMBER ? c->num[row] : 0;
	}
	struct datum d;
	unsigned code;
	const unsigned char *dbl;
	own_cell(s, row, col, &d, &code, &dbl);
	/* 0 for a cell that is not a number, as series_cell() */
	return cell_number(code, dbl, &d);
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
	uint64_t shortest = 0;
	long line;
	const unsigned char *p = row_record(s, row, &line);
	for (size_t j = 0; j < s->ncols; j++) {
		unsigned code;
		const unsigned char *dbl;
		p = cell_get(p, line, &out[j], &code, &dbl);
		out[j].num = cell_number(code, dbl, &out[j]);
		if (code == CODE_NUMBER_SHORT && j < 64)
			shortest |= (uint64_t)1 << j;
	}
	return shortest;
}

bool series_cell_number(const struct series *s, size_t row, size_t col, struct datum *out,
			int *dec)
{
	assert(row < s->nrows && col < s->ncols);
	if (row < s->vrows && s->view->cols[col].texts) {
		const struct series_view_col *c = &s->view->cols[col];
		*out = (struct datum){DATUM_NUMBER, c->num[row], NULL, 0, view_row_line(s->view, row)};
		*dec = (int)c->dec;
		return false;
	}
	*dec = -1;
	return series_cell_shortest(s, row, col, out);
}

void series_numbers(const struct series *s, size_t col, size_t from, size_t to, double *out)
{
	assert(from <= to && to <= s->nrows && col < s->ncols);
	size_t r = from;
	const struct series_view_col *c = s->view ? &s->view->cols[col] : NULL;
	if (r < s->vrows && c->texts) {
		/* every cell a number (series_cell_number()'s) */
		size_t end = to < s->vrows ? to : s->vrows;
		memcpy(out, c->num + r, (end - r) * sizeof *out);
		r = end;
	}
	for (; r < to; r++) {
		struct datum d;
		int dec;
		series_cell_number(s, r, col, &d, &dec);
		out[r - from] = d.kind == DATUM_NUMBER ? d.num : NAN;
	}
}

bool series_row_stored(const struct series *s, size_t row, struct datum *out, signed char *dec,
		       unsigned want)
{
	assert(row < s->nrows);
	if (row < s->vrows) {
		for (size_t j = 0; j < s->ncols; j++) {
			const struct series_view_col *c = &s->view->cols[j];
			if (c->texts) {
				out[j] = (struct datum){DATUM_NUMBER, c->num[row], NULL, 0,
							view_row_line(s->view, row)};
				dec[j] = (signed char)c->dec;
				continue;
			}
			view_cell(s, row, j, &out[j]);
			dec[j] = -1;
			if ((want & SERIES_STORED_DECIMALS) && out[j].kind == DATUM_NUMBER && out[j].text) {
				/* a plain decimal kept with its text (the store's
				 * column held others): one still, when its double is
				 * its text's reading, so that a store's bytes do not
				 * depend on the one its rows came from */
				int k = number_fixed_decimals(out[j].text, out[j].len);
				double v = k >= 0 ? text_number(out[j].text, out[j].len) : 0;
				if (k >= 0 && memcmp(&v, &out[j].num, sizeof v) == 0)
					dec[j] = (signed char)k;
			}
			if (!(want & SERIES_STORED_NUMBERS))
				out[j].num = 0;
		}
		return true;
	}
	long line;
	const unsigned char *p = row_record(s, row, &line);
	for (size_t j = 0; j < s->ncols; j++) {
		unsigned code;
		const unsigned char *dbl;
		p = cell_get(p, line, &out[j], &code, &dbl);
		/* a number kept as its text alone is text_number()'s reading of
		 * it: for a plain decimal, the one number_put_fixed() prints
		 * back (value.h) */
		bool read = code >= CODE_NUMBER_READ && (want & SERIES_STORED_DECIMALS);
		dec[j] = (signed char)(read ? number_fixed_decimals(out[j].text, out[j].len) : -1);
		if (want & SERIES_STORED_NUMBERS)
			out[j].num = cell_number(code, dbl, &out[j]);
	}
	return false;
}

void series_row_text(const struct series *s, size_t row, struct datum *out)
{
	assert(row < s->nrows);
	if (row < s->vrows) {
		for (size_t j = 0; j < s->ncols; j++) {
			view_cell(s, row, j, &out[j]);
			out[j].num = 0;
		}
		return;
	}
	long line;
	const unsigned char *p = row_record(s, row, &line);
	for (size_t j = 0; j < s->ncols; j++) {
		unsigned code;
		const unsigned char *dbl;
		p = cell_get(p, line, &out[j], &code, &dbl);
	}
}

long series_row_numbers(const struct series *s, size_t row, double *out)
{
	assert(row >= s->vrows && row < s->nrows && !s->counted);
	long line;
	const unsigned char *p = row_record(s, row, &line);
	for (size_t j = 0; j < s->ncols; j++) {
		uint64_t head, after;
		p = varint_get(p, &head);
		if (head & CELL_HAS_LINE)
			p = varint_get(p, &after);
		unsigned code = (unsigned)(head & CELL_CODE_MASK);
		size_t len = (size_t)(head >> CELL_LEN_SHIFT);
		double v = 0;
		if (code == CODE_NUMBER || code == CODE_NUMBER_TEXT) {
			memcpy(&v, p, sizeof v);
			p += sizeof v;
		} else if (code >= CODE_NUMBER_READ) {
			v = text_number((const char *)p, len);
		}
		out[j] = v;
		p += len; /* (0 for a cell without a text) */
	}
	return line;
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
	long line;
	row_record(s, row, &line);
	return line;
}

/* --- what a parse folded --- */

void series_fold_note(struct series *s, size_t col, int fn, size_t rows, const void *bytes,
		      size_t len)
{
	assert(col < s->ncols);
	struct fold_note *f = NULL;
	for (size_t i = 0; i < s->nfolds && !f; i++)
		if (s->folds[i].col == col && s->folds[i].fn == fn)
			f = &s->folds[i];
	if (!f) {
		s->folds = xrealloc(s->folds, (s->nfolds + 1) * sizeof *s->folds);
		f = &s->folds[s->nfolds++];
		*f = (struct fold_note){.col = col, .fn = fn, .bytes = BUF_INIT};
	}
	f->rows = rows;
	f->bytes.len = 0;
	buf_put(&f->bytes, bytes, len);
}

bool series_fold_get(const struct series *s, size_t col, int fn, size_t rows, struct span *out)
{
	for (size_t i = 0; i < s->nfolds; i++) {
		const struct fold_note *f = &s->folds[i];
		if (f->col == col && f->fn == fn && f->rows == rows) {
			*out = (struct span){buf_data(&f->bytes), f->bytes.len};
			return true;
		}
	}
	return false;
}

void run_folds_move(struct run *to, struct run *from)
{
	for (size_t i = 0; i < from->nseries; i++) {
		struct series *a = from->series[i];
		if (!a->nfolds)
			continue;
		struct series *b = run_series(to, a->name);
		if (!b || b->ncols != a->ncols || b->nfolds)
			continue;
		b->folds = a->folds;
		b->nfolds = a->nfolds;
		a->folds = NULL;
		a->nfolds = 0;
	}
}
