/* parsecmd.c: `logdown parse FILE` and `logdown parsers`. */
#define _GNU_SOURCE /* O_TMPFILE */
#include "cmd/parsecmd.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutil.h"
#include "base/json.h"
#include "parse/logparse.h"
#include "parse/notebook.h"
#include "parse/suggest.h"
#include "base/util.h"
#include "data/config.h"
#include "data/value.h"

/* The summary cuts long strings (a question, a command line) so that
 * each field stays on one line. */
#define FIELD_WIDTH 60
#define CELL_WIDTH 24
/* `logdown parsers` shows the start of each description. */
#define GIST_WIDTH 60

/* `--json` writes into a buffer that goes out whenever it holds this
 * much: a series of millions of rows is written as it is walked, and
 * memory beyond the parsed run stays this size. */
#define JSON_FLUSH (1u << 16)

static void json_flush(FILE *out, struct buf *w)
{
	if (w->len)
		fwrite(w->data, 1, w->len, out);
	buf_clear(w);
}

/* Appends n bytes without ending the buffer with a NUL (the caller
 * does, when it is done): the writer's inner loop. */
static inline void put_raw(struct buf *w, const char *p, size_t n)
{
	if (w->cap - w->len <= n)
		buf_grow(w, n);
	memcpy(w->data + w->len, p, n);
	w->len += n;
}

/* A line number, or a count: decimal digits without printf. */
static void put_long(struct buf *w, long v)
{
	char tmp[24];
	size_t n = sizeof tmp;
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
	do
		tmp[--n] = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		tmp[--n] = '-';
	put_raw(w, tmp + n, sizeof tmp - n);
}

/* A datum's value: a number in its shortest round-trip form (JSON has
 * no NaN or infinity: null), a string, or null for a missing value. */
static void put_json_value(struct buf *w, const struct datum *d)
{
	if (d->kind == DATUM_NUMBER && isfinite(d->num))
		number_put_written(w, d->num, d->text, d->len);
	else if (d->kind == DATUM_STRING)
		json_buf_string(w, d->text ? d->text : "", d->text ? d->len : 0);
	else
		buf_puts(w, "null");
}

/* A series' rows, or their line numbers, as the JSON writes them. */
struct rows_fmt {
	const struct series *s;
	size_t ncols, nrows;
	const struct buf *lead; /* before each row but the first */
	bool lines;             /* the "lines" array rather than "rows" */
};

/* Rows [from, to) of f into w, flushed to out (when not NULL) as it
 * fills; w is not ended with a NUL. */
static void fmt_rows(FILE *out, struct buf *w, const struct rows_fmt *f, size_t from, size_t to)
{
	if (f->lines) {
		for (size_t row = from; row < to; row++) {
			long line = series_row_line(f->s, row);
			if (row)
				put_raw(w, ", ", 2);
			if (line > 0)
				put_long(w, line);
			else
				put_raw(w, "null", 4);
			if (out && w->len >= JSON_FLUSH)
				json_flush(out, w);
		}
		return;
	}
	size_t ncols = f->ncols;
	const struct buf *lead = f->lead;
	struct datum few[16], *cells = ncols <= 16 ? few : xmalloc(ncols * sizeof *cells);
	for (size_t row = from; row < to; row++) {
		uint64_t short_cells = series_row_shortest(f->s, row, cells);
		/* The first row has no comma before it. */
		put_raw(w, lead->data + !row, lead->len - !row);
		for (size_t c = 0; c < ncols; c++) {
			const struct datum *d = &cells[c];
			if (c)
				put_raw(w, ", ", 2);
			/* A number as the log wrote it when those are its
			 * shortest digits (most of a log's): known since it
			 * was read (shortest), or checked. */
			size_t k = d->kind != DATUM_NUMBER		? 0
				   : c < 64 && short_cells >> c & 1 ? d->len
								    : number_written_shortest(d->num, d->text,
											      d->len);
			if (k)
				put_raw(w, d->text, k);
			else
				put_json_value(w, d);
		}
		put_raw(w, "]", 1);
		if (out && w->len >= JSON_FLUSH)
			json_flush(out, w);
	}
	if (cells != few)
		free(cells);
}

/* Formatting a big series' JSON is shared with a second thread (the
 * parse's threads are done by then, and the other core idle): the rows
 * go in blocks of JSON_BLOCK, the helper formats every other block into
 * one of its two buffers while the writer formats the others and writes
 * all of them in order.  The bytes are those one thread writes. */
#define JSON_BLOCK ((size_t)16384)

struct rows_helper {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const struct rows_fmt *f;
	size_t nblocks;
	struct buf bufs[2]; /* the helper's i-th block (block 2i + 1) in bufs[i & 1] */
	size_t made, taken; /* the helper's blocks formatted, and written */
};

static void *rows_helper_main(void *arg)
{
	struct rows_helper *h = arg;
	for (size_t i = 0; 2 * i + 1 < h->nblocks; i++) {
		pthread_mutex_lock(&h->mu);
		while (h->made - h->taken >= 2)
			pthread_cond_wait(&h->cv, &h->mu);
		pthread_mutex_unlock(&h->mu);
		size_t b = 2 * i + 1, to = (b + 1) * JSON_BLOCK;
		struct buf *w = &h->bufs[i & 1];
		buf_clear(w);
		fmt_rows(NULL, w, h->f, b * JSON_BLOCK, to < h->f->nrows ? to : h->f->nrows);
		pthread_mutex_lock(&h->mu);
		h->made++;
		pthread_cond_broadcast(&h->cv);
		pthread_mutex_unlock(&h->mu);
	}
	return NULL;
}

/* Is a second core there to format with? */
static bool two_cores(void)
{
	static int n;
	if (!n)
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
	return n >= 2;
}

/* All rows of f into w, flushed to out as it fills. */
static void put_rows(FILE *out, struct buf *w, const struct rows_fmt *f)
{
	struct rows_helper h = {.f = f, .nblocks = (f->nrows + JSON_BLOCK - 1) / JSON_BLOCK};
	pthread_t th;
	bool helped = h.nblocks >= 4 && two_cores() && pthread_mutex_init(&h.mu, NULL) == 0;
	if (helped && pthread_cond_init(&h.cv, NULL) != 0) {
		pthread_mutex_destroy(&h.mu);
		helped = false;
	}
	if (helped && pthread_create(&th, NULL, rows_helper_main, &h) != 0) {
		pthread_cond_destroy(&h.cv);
		pthread_mutex_destroy(&h.mu);
		helped = false;
	}
	if (!helped) {
		fmt_rows(out, w, f, 0, f->nrows);
		w->data[w->len] = '\0';
		return;
	}
	for (size_t b = 0; b < h.nblocks; b++) {
		size_t to = (b + 1) * JSON_BLOCK;
		if (b % 2 == 0) {
			fmt_rows(out, w, f, b * JSON_BLOCK, to < f->nrows ? to : f->nrows);
			continue;
		}
		json_flush(out, w);
		size_t i = b / 2;
		pthread_mutex_lock(&h.mu);
		while (h.made <= i)
			pthread_cond_wait(&h.cv, &h.mu);
		pthread_mutex_unlock(&h.mu);
		fwrite(h.bufs[i & 1].data, 1, h.bufs[i & 1].len, out);
		pthread_mutex_lock(&h.mu);
		h.taken++;
		pthread_cond_broadcast(&h.cv);
		pthread_mutex_unlock(&h.mu);
	}
	pthread_join(th, NULL);
	pthread_cond_destroy(&h.cv);
	pthread_mutex_destroy(&h.mu);
	buf_free(&h.bufs[0]);
	buf_free(&h.bufs[1]);
	w->data[w->len] = '\0';
}

/* `--json` with the rows streamed (parser_run_stream()): each series'
 * rows and line numbers are formatted as they are found, as the JSON
 * writes them, into two streams; a stream's bytes go into an unlinked
 * temporary file, in extents of SPILL_AT bytes, and the JSON is put
 * together once the parse is done (its fields come first, and can be
 * anywhere in the log): the fields, then each stream copied from the
 * file (sendfile(): through the page cache, not this process's memory).
 * Nothing is written before the parse has succeeded.  Memory: a
 * stream's unwritten bytes, at most SPILL_AT each and HELD_MAX in all,
 * and the extents' list. */
#define SPILL_AT ((size_t)1 << 16)
#define HELD_MAX ((size_t)8 << 20)

struct extent {
	off_t off;
	size_t len;
};

struct jstream {
	struct buf mem; /* bytes after the extents, not yet in the file */
	struct extent *ext;
	size_t next, ext_cap;
};

/* The streams of one series of one run. */
struct series_out {
	const struct series *s;
	size_t nrows;
	struct jstream rows, lines;
};

struct spill {
	int fd; /* the temporary file, -1 until a stream needs it */
	off_t size;
	int err; /* errno of a failed write, or 0 */
	struct series_out *v;
	size_t n, cap;
	size_t *index; /* open addressing over v by series, indexes + 1 */
	size_t index_cap;
	size_t held; /* bytes in the streams' mem */
	struct buf lead; /* before each row but the first: ",\n        [" */
};

static void spill_init(struct spill *sp)
{
	memset(sp, 0, sizeof *sp);
	sp->fd = -1;
	buf_puts(&sp->lead, ",\n        [");
}

static void spill_free(struct spill *sp)
{
	for (size_t i = 0; i < sp->n; i++) {
		struct jstream *js[2] = {&sp->v[i].rows, &sp->v[i].lines};
		for (int k = 0; k < 2; k++) {
			buf_free(&js[k]->mem);
			free(js[k]->ext);
		}
	}
	free(sp->v);
	free(sp->index);
	buf_free(&sp->lead);
	if (sp->fd >= 0)
		close(sp->fd); /* unlinked: its blocks go with it */
}

/* The temporary file, unlinked from the start where the file system
 * allows (O_TMPFILE), else at once after it is made: it is gone when
 * the process ends, whatever the way. */
static int spill_open(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	char *tmpl = path_join(dir, "logdown-json-XXXXXX");
	fd = mkstemp(tmpl);
	if (fd >= 0)
		unlink(tmpl);
	free(tmpl);
	return fd;
}

/* js's bytes in memory to the end of the file, as its next extent. */
static void spill_out(struct spill *sp, struct jstream *js)
{
	if (!js->mem.len || sp->err)
		return;
	if (sp->fd < 0 && (sp->fd = spill_open()) < 0) {
		sp->err = errno;
		return;
	}
	for (size_t done = 0; done < js->mem.len;) {
		ssize_t w = pwrite(sp->fd, js->mem.data + done, js->mem.len - done,
				   sp->size + (off_t)done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			sp->err = w < 0 ? errno : ENOSPC;
			return;
		}
		done += (size_t)w;
	}
	if (js->next == js->ext_cap) {
		js->ext_cap = js->ext_cap ? 2 * js->ext_cap : 8;
		js->ext = xrealloc(js->ext, js->ext_cap * sizeof *js->ext);
	}
	js->ext[js->next++] = (struct extent){sp->size, js->mem.len};
	sp->size += (off_t)js->mem.len;
	sp->held -= js->mem.len;
	/* freed, not kept for the next rows: a file of thousands of runs
	 * would keep a buffer for each of their series */
	buf_free(&js->mem);
}

static size_t ptr_hash(const void *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15u;
	return (size_t)(h >> 20);
}

/* The streams of s, made at its first row. */
static struct series_out *spill_series(struct spill *sp, const struct series *s)
{
	if (sp->index_cap) {
		for (size_t h = ptr_hash(s) & (sp->index_cap - 1); sp->index[h];
		     h = (h + 1) & (sp->index_cap - 1))
			if (sp->v[sp->index[h] - 1].s == s)
				return &sp->v[sp->index[h] - 1];
	}
	if (sp->n == sp->cap) {
		sp->cap = sp->cap ? 2 * sp->cap : 8;
		sp->v = xrealloc(sp->v, sp->cap * sizeof *sp->v);
	}
	if (2 * (sp->n + 1) > sp->index_cap) {
		free(sp->index);
		sp->index_cap = sp->index_cap ? 2 * sp->index_cap : 16;
		sp->index = xcalloc(sp->index_cap, sizeof *sp->index);
		for (size_t i = 0; i < sp->n; i++) {
			size_t h = ptr_hash(sp->v[i].s) & (sp->index_cap - 1);
			while (sp->index[h])
				h = (h + 1) & (sp->index_cap - 1);
			sp->index[h] = i + 1;
		}
	}
	struct series_out *so = &sp->v[sp->n];
	memset(so, 0, sizeof *so);
	so->s = s;
	size_t h = ptr_hash(s) & (sp->index_cap - 1);
	while (sp->index[h])
		h = (h + 1) & (sp->index_cap - 1);
	sp->index[h] = ++sp->n;
	return so;
}

static const struct series_out *spill_find(const struct spill *sp, const struct series *s)
{
	for (size_t h = sp->index_cap ? ptr_hash(s) & (sp->index_cap - 1) : 0;
	     sp->index_cap && sp->index[h]; h = (h + 1) & (sp->index_cap - 1))
		if (sp->v[sp->index[h] - 1].s == s)
			return &sp->v[sp->index[h] - 1];
	return NULL;
}

/* row_stream's row(): the row and its line in the JSON's form. */
static void spill_row(void *ctx, const struct series *s, const struct datum *cells,
		      uint64_t shortest, long line)
{
	struct spill *sp = ctx;
	struct series_out *so = spill_series(sp, s);
	size_t before = so->rows.mem.len + so->lines.mem.len;
	struct buf *w = &so->rows.mem;
	size_t ncols = series_column_count(s);
	/* The first row has no comma before it. */
	put_raw(w, sp->lead.data + !so->nrows, sp->lead.len - !so->nrows);
	for (size_t c = 0; c < ncols; c++) {
		const struct datum *d = &cells[c];
		if (c)
			put_raw(w, ", ", 2);
		/* fmt_rows()'s choice, with the mark as the series keeps
		 * it (a number with text) */
		size_t k = d->kind != DATUM_NUMBER ? 0
			   : c < 64 && shortest >> c & 1 && d->text && d->len
				   ? d->len
				   : number_written_shortest(d->num, d->text, d->text ? d->len : 0);
		if (k)
			put_raw(w, d->text, k);
		else
			put_json_value(w, d);
	}
	put_raw(w, "]", 1);
	w = &so->lines.mem;
	if (so->nrows)
		put_raw(w, ", ", 2);
	if (line > 0)
		put_long(w, line);
	else
		put_raw(w, "null", 4);
	so->nrows++;
	sp->held += so->rows.mem.len + so->lines.mem.len - before;
	if (so->rows.mem.len >= SPILL_AT)
		spill_out(sp, &so->rows);
	if (so->lines.mem.len >= SPILL_AT)
		spill_out(sp, &so->lines);
	if (sp->held >= HELD_MAX) {
		/* many series, or many runs, each with a little */
		for (size_t i = 0; i < sp->n; i++) {
			spill_out(sp, &sp->v[i].rows);
			spill_out(sp, &sp->v[i].lines);
		}
	}
}

/* n bytes to out; with ind, ind after each newline (a run of a split
 * file is indented further than the rows were formatted). */
static void put_bytes(FILE *out, const char *p, size_t n, const char *ind)
{
	if (!*ind) {
		fwrite(p, 1, n, out);
		return;
	}
	for (const char *end = p + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t k = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		fwrite(p, 1, k, out);
		if (nl)
			fputs(ind, out);
		p += k;
	}
}

/* A stream's bytes to out: its extents from the file, then its memory.
 * False (errno set) when the file cannot be read or out written. */
static bool put_stream(FILE *out, const struct spill *sp, const struct jstream *js,
		       const char *ind)
{
	int ofd = fileno(out);
	bool direct = !*ind && ofd >= 0;
	if (js->next && fflush(out) != 0)
		return false;
	char *buf = NULL;
	for (size_t i = 0; i < js->next; i++) {
		off_t off = js->ext[i].off;
		size_t left = js->ext[i].len;
		while (direct && left) {
			ssize_t n = sendfile(ofd, sp->fd, &off, left);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				/* not between these two: read and write */
				if (n < 0 && errno != EINVAL && errno != ENOSYS)
					return false;
				direct = false;
				break;
			}
			left -= (size_t)n;
		}
		while (left) {
			if (!buf)
				buf = xmalloc(SPILL_AT);
			ssize_t n = pread(sp->fd, buf, left < SPILL_AT ? left : SPILL_AT, off);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				free(buf);
				if (n == 0)
					errno = EIO;
				return false;
			}
			put_bytes(out, buf, (size_t)n, ind);
			off += n;
			left -= (size_t)n;
		}
	}
	free(buf);
	put_bytes(out, js->mem.data ? js->mem.data : "", js->mem.len, ind);
	return true;
}

/* A run's "fields" and "series", each line indented by ind more. */
static bool put_json_run(FILE *out, struct buf *w, const struct run *r, const char *ind,
			 const struct spill *sp)
{
	buf_puts(w, "\"fields\": {");
	size_t nf = run_field_count(r);
	for (size_t i = 0; i < nf; i++) {
		const struct datum *d = run_field_at(r, i);
		buf_printf(w, "%s%s    ", i ? "," : "", "\n");
		buf_puts(w, ind);
		json_buf_string(w, run_field_name(r, i), strlen(run_field_name(r, i)));
		buf_puts(w, ": {\"value\": ");
		put_json_value(w, d);
		buf_puts(w, ", \"text\": ");
		if (d->text)
			json_buf_string(w, d->text, d->len);
		else
			buf_puts(w, "null");
		if (d->line > 0)
			buf_printf(w, ", \"line\": %ld}", d->line);
		else
			buf_puts(w, ", \"line\": null}");
		if (w->len >= JSON_FLUSH)
			json_flush(out, w);
	}
	if (nf)
		buf_printf(w, "\n%s  ", ind);
	buf_printf(w, "},\n%s  \"series\": {", ind);
	size_t ns = run_series_count(r);
	for (size_t i = 0; i < ns; i++) {
		const struct series *s = run_series_at(r, i);
		size_t ncols = series_column_count(s), nrows = series_row_count(s);
		buf_printf(w, "%s\n%s    ", i ? "," : "", ind);
		json_buf_string(w, series_name(s), strlen(series_name(s)));
		buf_printf(w, ": {\n%s      \"columns\": [", ind);
		for (size_t c = 0; c < ncols; c++) {
			if (c)
				buf_puts(w, ", ");
			json_buf_string(w, series_column(s, c), strlen(series_column(s, c)));
		}
		buf_puts(w, "],\n");
		buf_printf(w, "%s      \"rows\": [", ind);
		const struct series_out *so = sp ? spill_find(sp, s) : NULL;
		if (so) {
			/* streamed: the same bytes, made as the rows passed */
			assert(so->nrows == nrows && series_counted(s));
			json_flush(out, w);
			if (!put_stream(out, sp, &so->rows, ind))
				return false;
			if (nrows)
				buf_printf(w, "\n%s      ", ind);
			buf_printf(w, "],\n%s      \"lines\": [", ind);
			json_flush(out, w);
			if (!put_stream(out, sp, &so->lines, ""))
				return false;
			buf_printf(w, "]\n%s    }", ind);
			continue;
		}
		assert(!series_counted(s));
		/* What goes before each row after the first: ",\n" and the
		 * indent, made once. */
		struct buf lead = BUF_INIT;
		buf_printf(&lead, ",\n%s        [", ind);
		struct rows_fmt f = {s, ncols, nrows, &lead, false};
		put_rows(out, w, &f);
		buf_free(&lead);
		if (nrows)
			buf_printf(w, "\n%s      ", ind);
		buf_printf(w, "],\n%s      \"lines\": [", ind);
		f.lines = true;
		put_rows(out, w, &f);
		buf_printf(w, "]\n%s    }", ind);
	}
	if (ns)
		buf_printf(w, "\n%s  ", ind);
	buf_puts(w, "}");
	json_flush(out, w);
	return true;
}

/* A member's name without its file's run name: "run2" of "mnist.run2". */
static const char *member_name(const struct run *whole, const struct run *m)
{
	size_t n = strlen(run_name(whole));
	const char *name = run_name(m);
	return strncmp(name, run_name(whole), n) == 0 && name[n] == '.' ? name + n + 1 : name;
}

/* The JSON of r, its streamed series' rows from sp (NULL: none).
 * False (errno set) when sp's file cannot be read. */
static bool put_json(FILE *out, const struct run *r, const char *file, const struct spill *sp)
{
	bool ok = true;
	struct buf w = BUF_INIT;
	buf_puts(&w, "{\n  \"file\": ");
	json_buf_string(&w, file, strlen(file));
	buf_puts(&w, ",\n  \"parser\": ");
	json_buf_string(&w, run_parser(r), strlen(run_parser(r)));
	buf_puts(&w, ",\n  ");
	size_t nm = run_member_count(r);
	if (nm == 0) {
		ok = put_json_run(out, &w, r, "", sp);
		buf_puts(&w, "\n}\n");
	} else {
		buf_puts(&w, "\"runs\": [");
		for (size_t i = 0; i < nm; i++) {
			const struct run *m = run_member_at(r, i);
			buf_puts(&w, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
			json_buf_string(&w, member_name(r, m), strlen(member_name(r, m)));
			buf_printf(&w, ", \"first_line\": %ld,\n      ", run_first_line(m));
			ok = ok && put_json_run(out, &w, m, "    ", sp);
			buf_puts(&w, "}");
		}
		buf_puts(&w, "\n  ]\n}\n");
	}
	if (ok)
		json_flush(out, &w);
	buf_free(&w);
	return ok;
}

void parsecmd_put_json(FILE *out, const struct run *r, const char *file)
{
	put_json(out, r, file, NULL);
}

/* The width of UTF-8 text on a terminal, one column a character. */
static size_t width_of(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			w++;
	return w;
}

/* Appends text for a terminal: line breaks and tabs shown as \n and \t,
 * other control bytes as '?', and cut to max characters, the last an
 * ellipsis, when it is longer. */
static void put_shown(struct buf *b, const char *s, size_t n, size_t max)
{
	struct buf t = BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n')
			buf_puts(&t, "\\n");
		else if (c == '\t')
			buf_puts(&t, "\\t");
		else if (c < 0x20 || c == 0x7F)
			buf_putc(&t, '?');
		else
			buf_putc(&t, (char)c);
	}
	if (width_of(buf_data(&t), t.len) <= max) {
		buf_put(b, buf_data(&t), t.len);
	} else {
		size_t end = 0, chars = 0;
		while (end < t.len) {
			if (((unsigned char)t.data[end] & 0xC0) != 0x80 && ++chars == max)
				break;
			end++;
		}
		buf_put(b, t.data, end);
		buf_puts(b, "\xE2\x80\xA6");
	}
	buf_free(&t);
}

/* A datum as the summary shows it: a number as written (or, computed,
 * in its shortest form), a string in double quotes, so that a number
 * captured as text ("10.99s") stands out, and a missing value as an em
 * dash. */
static void put_datum(struct buf *b, const struct datum *d, size_t max)
{
	if (d->kind == DATUM_MISSING) {
		buf_puts(b, "\xE2\x80\x94");
	} else if (d->kind == DATUM_STRING) {
		buf_putc(b, '"');
		put_shown(b, d->text ? d->text : "", d->text ? d->len : 0, max - 2);
		buf_putc(b, '"');
	} else if (d->text) {
		put_shown(b, d->text, d->len, max);
	} else {
		number_put(b, d->num);
	}
}

static void pad(FILE *out, size_t have, size_t want)
{
	for (; have < want; have++)
		fputc(' ', out);
}

/* The notebook whose log the summary shows (its fields then name the
 * cell and the line in its output), or NULL. */
static const struct notebook *summary_nb;

static void print_fields(FILE *out, const struct run *r)
{
	size_t n = run_field_count(r);
	if (n == 0) {
		fputs("\nfields: none\n", out);
		return;
	}
	fprintf(out, "\nfields (%zu)\n", n);
	size_t name_w = 0, value_w = 0;
	struct buf *shown = xcalloc(n, sizeof *shown);
	for (size_t i = 0; i < n; i++) {
		size_t w = strlen(run_field_name(r, i));
		if (w > name_w)
			name_w = w;
		put_datum(&shown[i], run_field_at(r, i), FIELD_WIDTH);
		w = width_of(buf_data(&shown[i]), shown[i].len);
		if (w > value_w)
			value_w = w;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = run_field_name(r, i);
		const struct datum *d = run_field_at(r, i);
		fprintf(out, "  %s   ", name);
		pad(out, strlen(name), name_w);
		fputs(buf_data(&shown[i]), out);
		pad(out, width_of(buf_data(&shown[i]), shown[i].len), value_w);
		int cell;
		long cell_line;
		if (d->line > 0 && summary_nb &&
		    notebook_where(summary_nb, d->line, &cell, &cell_line))
			fprintf(out, "   (cell %d, line %ld)\n", cell, cell_line);
		else if (d->line > 0)
			fprintf(out, "   (line %ld)\n", d->line);
		else if (d->kind == DATUM_MISSING && !d->text)
			fputs("   (not found)\n", out);
		else
			fputs(d->text ? "   (not from a line)\n" : "   (computed)\n", out);
		buf_free(&shown[i]);
	}
	free(shown);
}

/* One row of a series table: its line, then its cells. */
static void print_row(FILE *out, const struct series *s, size_t row, const size_t *widths)
{
	size_t ncols = series_column_count(s);
	fprintf(out, "  %*ld", (int)widths[0], series_row_line(s, row));
	for (size_t c = 0; c < ncols; c++) {
		struct datum d;
		series_cell(s, row, c, &d);
		struct buf b = BUF_INIT;
		put_datum(&b, &d, CELL_WIDTH);
		fputs("  ", out);
		fputs(buf_data(&b), out);
		if (c + 1 < ncols)
			pad(out, width_of(buf_data(&b), b.len), widths[c + 1]);
		buf_free(&b);
	}
	fputc('\n', out);
}

static void print_series(FILE *out, const struct series *s)
{
	size_t ncols = series_column_count(s), nrows = series_row_count(s);
	fprintf(out, "\nseries %s: %zu row%s, %zu column%s\n", series_name(s), nrows,
		nrows == 1 ? "" : "s", ncols, ncols == 1 ? "" : "s");
	/* Widths from the header and the rows shown: the first and last. */
	size_t *widths = xcalloc(ncols + 1, sizeof *widths);
	widths[0] = 4; /* "line" */
	size_t shown[2] = {0, nrows ? nrows - 1 : 0};
	size_t nshown = nrows == 0 ? 0 : nrows == 1 ? 1 : 2;
	for (size_t k = 0; k < nshown; k++) {
		int w = snprintf(NULL, 0, "%ld", series_row_line(s, shown[k]));
		if ((size_t)w > widths[0])
			widths[0] = (size_t)w;
	}
	for (size_t c = 0; c < ncols; c++) {
		widths[c + 1] = width_of(series_column(s, c), strlen(series_column(s, c)));
		for (size_t k = 0; k < nshown; k++) {
			struct datum d;
			series_cell(s, shown[k], c, &d);
			struct buf b = BUF_INIT;
			put_datum(&b, &d, CELL_WIDTH);
			size_t w = width_of(buf_data(&b), b.len);
			if (w > widths[c + 1])
				widths[c + 1] = w;
			buf_free(&b);
		}
	}
	fprintf(out, "  %*s", (int)widths[0], "line");
	for (size_t c = 0; c < ncols; c++) {
		const char *name = series_column(s, c);
		fprintf(out, "  %s", name);
		if (c + 1 < ncols)
			pad(out, width_of(name, strlen(name)), widths[c + 1]);
	}
	fputc('\n', out);
	if (nshown > 0)
		print_row(out, s, 0, widths);
	if (nrows > 2) {
		/* An ellipsis under the line numbers: one column, three bytes. */
		fputs("  ", out);
		pad(out, 1, widths[0]);
		fprintf(out, "\xE2\x80\xA6  (%zu more row%s)\n", nrows - 2, nrows == 3 ? "" : "s");
	}
	if (nshown > 1)
		print_row(out, s, nrows - 1, widths);
	free(widths);
}

/* A run's fields, then its series. */
static void print_run_values(FILE *out, const struct run *r)
{
	print_fields(out, r);
	size_t ns = run_series_count(r);
	if (ns == 0)
		fputs("\nseries: none\n", out);
	for (size_t i = 0; i < ns; i++)
		print_series(out, run_series_at(r, i));
}

static void print_summary(FILE *out, const struct run *r, const struct parser *p,
			  const char *file)
{
	long lines = run_line_count(r);
	/* A notebook read as a log: quietly, its reading reported already. */
	struct notebook nb = {0};
	bool is_nb = false;
	if (notebook_is(file)) {
		FILE *null = fopen("/dev/null", "w");
		struct diag *quiet = null ? diag_new(null, DIAG_TEXT, false) : NULL;
		is_nb = quiet && notebook_load(file, file, &nb, quiet);
		if (quiet)
			diag_free(quiet);
		if (null)
			fclose(null);
	}
	summary_nb = is_nb ? &nb : NULL;
	fprintf(out, "file     %s\n", file);
	fprintf(out, "parser   %s (%s)\n", parser_name(p), parser_origin(p));
	fprintf(out, "lines    %ld\n", lines);
	size_t nm = run_member_count(r);
	if (nm) {
		fprintf(out, "runs     %zu (split by the parser's split pattern)\n", nm);
		for (size_t i = 0; i < nm; i++) {
			const struct run *m = run_member_at(r, i);
			fprintf(out, "\n== run %s: from line %ld ==\n", member_name(r, m),
				run_first_line(m));
			print_run_values(out, m);
		}
	} else {
		print_run_values(out, r);
	}
	summary_nb = NULL;
	notebook_free(&nb);
}

/* Does a cell need quotes in CSV (RFC 4180)? */
static bool csv_needs_quotes(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == ',' || p[i] == '"' || p[i] == '\n' || p[i] == '\r')
			return true;
	return false;
}

static void put_csv_cell(struct buf *b, const char *p, size_t n)
{
	if (!csv_needs_quotes(p, n)) {
		buf_put(b, p, n);
		return;
	}
	buf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '"')
			buf_putc(b, '"');
		buf_putc(b, p[i]);
	}
	buf_putc(b, '"');
}

struct csv_out {
	FILE *out;
	struct buf b;
};

static void csv_flush(struct csv_out *c)
{
	fwrite(buf_data(&c->b), 1, c->b.len, c->out);
	buf_free(&c->b);
}

static void csv_header(struct csv_out *c, const char *const *cols, size_t ncols)
{
	for (size_t j = 0; j < ncols; j++) {
		if (j)
			buf_putc(&c->b, ',');
		put_csv_cell(&c->b, cols[j], strlen(cols[j]));
	}
	buf_putc(&c->b, '\n');
}

/* One row (a row_sink's row()): the text as written, a computed number
 * in its shortest form, nothing for a missing cell. */
static void csv_row(void *ctx, const struct datum *cells, size_t ncols, long line)
{
	struct csv_out *c = ctx;
	(void)line;
	/* Millions of rows come this way: cells that need no quotes are
	 * copied straight into room made once for the row. */
	size_t room = ncols + 1;
	bool plain = true;
	for (size_t j = 0; j < ncols && plain; j++) {
		const struct datum *d = &cells[j];
		if (d->kind != DATUM_MISSING && (!d->text || csv_needs_quotes(d->text, d->len)))
			plain = false;
		else if (d->kind != DATUM_MISSING)
			room += d->len;
	}
	if (plain) {
		buf_grow(&c->b, room);
		char *w = c->b.data + c->b.len;
		for (size_t j = 0; j < ncols; j++) {
			if (j)
				*w++ = ',';
			if (cells[j].kind != DATUM_MISSING && cells[j].len) {
				memcpy(w, cells[j].text, cells[j].len);
				w += cells[j].len;
			}
		}
		*w++ = '\n';
		*w = '\0';
		c->b.len = (size_t)(w - c->b.data);
	} else {
		for (size_t j = 0; j < ncols; j++) {
			if (j)
				buf_putc(&c->b, ',');
			if (cells[j].kind == DATUM_MISSING)
				continue;
			if (cells[j].text)
				put_csv_cell(&c->b, cells[j].text, cells[j].len);
			else
				number_put(&c->b, cells[j].num);
		}
		buf_putc(&c->b, '\n');
	}
	if (c->b.len >= (1u << 20)) {
		fwrite(c->b.data, 1, c->b.len, c->out);
		buf_clear(&c->b);
	}
}

bool parsecmd_put_csv(FILE *out, const struct run *r, const char *name, struct diag *d)
{
	const struct series *s = run_series(r, name);
	if (!s) {
		size_t n = run_series_count(r);
		const char **names = xcalloc(n + 1, sizeof *names);
		for (size_t i = 0; i < n; i++)
			names[i] = series_name(run_series_at(r, i));
		const char *near = closest_name(name, names);
		struct buf all = BUF_INIT;
		buf_put_names(&all, names);
		struct loc nowhere = {NULL, 0, 0, 0};
		if (near)
			diag_error(d, nowhere, "%s has no series '%s' (did you mean '%s'?)", run_file(r),
				   name, near);
		else
			diag_error(d, nowhere, "%s has no series '%s' (it has: %s)", run_file(r), name,
				   n ? buf_data(&all) : "none");
		buf_free(&all);
		free(names);
		return false;
	}
	/* Rows are gathered in a buffer and written a megabyte at a time:
	 * millions of small stdio calls would cost more than the parse. */
	struct csv_out c = {out, BUF_INIT};
	size_t ncols = series_column_count(s), nrows = series_row_count(s);
	const char **cols = xcalloc(ncols + 1, sizeof *cols);
	for (size_t j = 0; j < ncols; j++)
		cols[j] = series_column(s, j);
	csv_header(&c, cols, ncols);
	free(cols);
	struct datum *cells = xcalloc(ncols + 1, sizeof *cells);
	for (size_t row = 0; row < nrows; row++) {
		for (size_t j = 0; j < ncols; j++)
			series_cell(s, row, j, &cells[j]);
		csv_row(&c, cells, ncols, 0);
	}
	free(cells);
	csv_flush(&c);
	return true;
}

char *parsecmd_project(const char *file)
{
	char *real = path_real(file);
	if (!real)
		return NULL;
	char *dir = path_dirname(real);
	free(real);
	char *found = NULL;
	for (;;) {
		char *site = path_join(dir, "site.yaml"), *content = path_join(dir, "content");
		bool is_project = is_file(site) || is_dir(content);
		free(site);
		free(content);
		if (is_project) {
			found = dir;
			break;
		}
		char *up = path_dirname(dir);
		bool top = strcmp(up, dir) == 0;
		free(dir);
		dir = up;
		if (top) {
			free(dir);
			break;
		}
	}
	if (!found)
		return NULL;
	/* Shown relative to the current folder where it can be, so that
	 * parsers are named as `logdown parsers` names them. */
	char *cwd = path_real(".");
	const char *under = cwd ? path_under(found, cwd) : NULL;
	char *shown = under ? xstrdup(*under ? under : ".") : NULL;
	free(cwd);
	if (shown) {
		free(found);
		return shown;
	}
	return found;
}

/* The parsers `logdown parse FILE` knows: the built-ins, those of the
 * project FILE belongs to (its parsers/ and the folders its site.yaml
 * lists; without a project, ./parsers), then o->parser_dirs.  NULL
 * after reporting a --parsers that is not a folder. */
static struct parser_set *load_for(const struct parse_opts *o, struct diag *d)
{
	for (size_t i = 0; o->parser_dirs && o->parser_dirs[i]; i++)
		if (!is_dir(o->parser_dirs[i])) {
			diag_error(d, loc_line(o->parser_dirs[i], 0),
				   "not a folder: --parsers names a folder of parser .yaml files");
			return NULL;
		}
	char *root = parsecmd_project(o->file);
	size_t nextra = 0;
	struct config cfg;
	memset(&cfg, 0, sizeof cfg);
	if (root) {
		/* site.yaml's own problems are the build's to report: here
		 * only its parser folders are wanted. */
		char *text = NULL;
		size_t len = 0;
		FILE *sink = open_memstream(&text, &len);
		if (sink) {
			struct diag *quiet = diag_new(sink, DIAG_TEXT, false);
			config_load(&cfg, root, quiet);
			diag_free(quiet);
			fclose(sink);
		}
		free(text);
	}
	for (size_t i = 0; cfg.parsers && cfg.parsers[i]; i++)
		nextra++;
	for (size_t i = 0; o->parser_dirs && o->parser_dirs[i]; i++)
		nextra++;
	char **extra = xcalloc(nextra + 1, sizeof *extra);
	size_t k = 0;
	for (size_t i = 0; cfg.parsers && cfg.parsers[i]; i++) {
		char *dir = path_join(root, cfg.parsers[i]);
		if (is_dir(dir))
			extra[k++] = dir;
		else
			free(dir);
	}
	for (size_t i = 0; o->parser_dirs && o->parser_dirs[i]; i++)
		extra[k++] = xstrdup(o->parser_dirs[i]);
	if (root)
		config_free(&cfg);
	struct parser_set *set = parsers_load(root ? root : ".", extra, d);
	strv_free(extra);
	free(root);
	return set;
}

/* --list-columns: every name a report can write after a run's name,
 * one a line, with what it is: the run's attributes, its fields, and
 * each series' columns (run.series.column). */
static void print_names(FILE *out, const struct run *r)
{
	size_t nm = run_member_count(r);
	static const char *const attrs[][2] = {
		{"name", "run attribute: the run's name (its key in runs:, or its file stem)"},
		{"file", "run attribute: the result file, relative to the report"},
		{"parser", "run attribute: the parser that read it"},
		{"line_count", "run attribute: the file's lines"},
	};
	size_t w = 0;
	for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++)
		w = strlen(attrs[i][0]) > w ? strlen(attrs[i][0]) : w;
	if (nm) {
		/* A run set: each run's names after its own name. */
		for (size_t i = 0; i < nm; i++) {
			const struct run *m = run_member_at(r, i);
			size_t mw = strlen(member_name(r, m)) + 1;
			for (size_t k = 0; k < run_field_count(m); k++) {
				size_t n = mw + strlen(run_field_name(m, k));
				w = n > w ? n : w;
			}
			for (size_t k = 0; k < run_series_count(m); k++) {
				const struct series *s = run_series_at(m, k);
				for (size_t c = 0; c < series_column_count(s); c++) {
					size_t n = mw + strlen(series_name(s)) + 1 +
						   strlen(series_column(s, c));
					w = n > w ? n : w;
				}
			}
		}
		for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
			fprintf(out, "%s  ", attrs[i][0]);
			pad(out, strlen(attrs[i][0]), w);
			fprintf(out, "%s\n", attrs[i][1]);
		}
		for (size_t i = 0; i < nm; i++) {
			const struct run *m = run_member_at(r, i);
			const char *mn = member_name(r, m);
			fprintf(out, "%s  ", mn);
			pad(out, strlen(mn), w);
			fprintf(out, "run %zu of %zu in this file, from line %ld\n", i + 1, nm,
				run_first_line(m));
			for (size_t k = 0; k < run_field_count(m); k++) {
				const char *name = run_field_name(m, k);
				const struct datum *d = run_field_at(m, k);
				fprintf(out, "%s.%s  ", mn, name);
				pad(out, strlen(mn) + 1 + strlen(name), w);
				fputs(d->kind == DATUM_MISSING ? "field (missing in this run)\n"
							       : "field\n",
				      out);
			}
			for (size_t k = 0; k < run_series_count(m); k++) {
				const struct series *s = run_series_at(m, k);
				size_t nrows = series_row_count(s);
				for (size_t c = 0; c < series_column_count(s); c++) {
					fprintf(out, "%s.%s.%s  ", mn, series_name(s),
						series_column(s, c));
					pad(out,
					    strlen(mn) + 2 + strlen(series_name(s)) +
						    strlen(series_column(s, c)),
					    w);
					fprintf(out, "column of series %s (%zu row%s)\n",
						series_name(s), nrows, nrows == 1 ? "" : "s");
				}
			}
		}
		return;
	}
	for (size_t i = 0; i < run_field_count(r); i++)
		w = strlen(run_field_name(r, i)) > w ? strlen(run_field_name(r, i)) : w;
	for (size_t i = 0; i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		for (size_t c = 0; c < series_column_count(s); c++) {
			size_t n = strlen(series_name(s)) + 1 + strlen(series_column(s, c));
			w = n > w ? n : w;
		}
	}
	for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
		fprintf(out, "%s  ", attrs[i][0]);
		pad(out, strlen(attrs[i][0]), w);
		fprintf(out, "%s\n", attrs[i][1]);
	}
	for (size_t i = 0; i < run_field_count(r); i++) {
		const char *name = run_field_name(r, i);
		const struct datum *d = run_field_at(r, i);
		fprintf(out, "%s  ", name);
		pad(out, strlen(name), w);
		fputs(d->kind == DATUM_MISSING ? "field (missing in this file)\n" : "field\n", out);
	}
	for (size_t i = 0; i < run_series_count(r); i++) {
		const struct series *s = run_series_at(r, i);
		size_t nrows = series_row_count(s);
		for (size_t c = 0; c < series_column_count(s); c++) {
			fprintf(out, "%s.%s  ", series_name(s), series_column(s, c));
			pad(out, strlen(series_name(s)) + 1 + strlen(series_column(s, c)), w);
			fprintf(out, "column of series %s (%zu row%s)\n", series_name(s), nrows,
				nrows == 1 ? "" : "s");
		}
	}
}

/* The name --suggest gives a parser by default: FILE's stem, made a
 * lowercase identifier ("BS-512.log" gives bs_512). */
static char *suggest_slug(const char *file)
{
	char *stem = path_stem(file);
	char *id = identifier_of(stem);
	free(stem);
	for (char *p = id; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p + 32);
	return id;
}

/* Makes the folder path goes in (parsers/ of a project that has none). */
static bool mkdir_parent(const char *path)
{
	char *dir = path_dirname(path);
	bool ok = mkdir_p(dir);
	free(dir);
	return ok;
}

/* Does `logdown parse o->file` (no --parsers) load the parser name
 * from o->output, just written? */
static bool suggest_loaded_anyway(const struct parse_opts *o, const char *name)
{
	struct parse_opts plain = *o;
	plain.parser_dirs = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *sink = open_memstream(&text, &len);
	if (!sink)
		return false;
	struct diag *quiet = diag_new(sink, DIAG_TEXT, false);
	struct parser_set *set = load_for(&plain, quiet);
	const struct parser *p = set ? parsers_find(set, name) : NULL;
	char *at = p ? path_real(parser_origin(p)) : NULL, *written = path_real(o->output);
	bool loaded = at && written && strcmp(at, written) == 0;
	free(at);
	free(written);
	parsers_free(set);
	diag_free(quiet);
	fclose(sink);
	free(text);
	return loaded;
}

/* --suggest: the definition proposed for o->file, to out or o->output. */
static int suggest_cmd(const struct parse_opts *o, const struct parser_set *set, FILE *out,
		       struct diag *d)
{
	char *name = o->name ? xstrdup(o->name) : suggest_slug(o->file);
	struct suggestion sg;
	int rc = EXIT_OK;
	if (!suggest_file(o->file, name, set, &sg, d)) {
		rc = EXIT_CONTENT;
	} else if (!o->output) {
		fputs(sg.yaml, out);
	} else if (!mkdir_parent(o->output) || !file_write(o->output, sg.yaml, strlen(sg.yaml))) {
		diag_error(d, loc_line(o->output, 0), "cannot write: %s", strerror(errno));
		rc = EXIT_IO;
	} else {
		fprintf(out, "wrote %s: %zu series, %zu field%s, %zu table%s\n", o->output,
			sg.nseries, sg.nfields, sg.nfields == 1 ? "" : "s", sg.ntables,
			sg.ntables == 1 ? "" : "s");
		/* The project's parsers/ (./parsers without one) is read
		 * anyway: naming it with --parsers too would load the file
		 * twice, and warn. */
		char *dir = path_dirname(o->output);
		if (suggest_loaded_anyway(o, name))
			fprintf(out, "see what it extracts: logdown parse %s --parser %s\n", o->file,
				name);
		else
			fprintf(out, "see what it extracts: logdown parse %s --parsers %s --parser %s\n",
				o->file, dir, name);
		free(dir);
	}
	suggestion_free(&sg);
	free(name);
	return rc;
}

/* When no parser claims o->file: the top five proposals of --suggest,
 * as notes, and how to write them out.  Quiet when it has none. */
static void suggest_notes(const struct parse_opts *o, const struct parser_set *set,
			  struct diag *d)
{
	char *name = suggest_slug(o->file);
	struct suggestion sg;
	char *text = NULL;
	size_t len = 0;
	FILE *sink = open_memstream(&text, &len);
	bool ok = false;
	if (sink) {
		struct diag *quiet = diag_new(sink, DIAG_TEXT, false);
		ok = suggest_file(o->file, name, set, &sg, quiet);
		diag_free(quiet);
		fclose(sink);
	}
	free(text);
	if (ok && sg.nitems) {
		struct loc nowhere = {NULL, 0, 0, 0};
		struct buf b = BUF_INIT;
		diag_note(d, nowhere, "logdown parse --suggest proposes a parser for it; its first %s:",
			  sg.nitems < 5 ? "proposals" : "five proposals");
		for (size_t i = 0; i < sg.nitems && i < 5; i++) {
			const struct sg_item *it = &sg.items[i];
			buf_clear(&b);
			buf_printf(&b, "  %s: %s", it->name, it->value);
			if (it->line)
				buf_printf(&b, " (line %ld", it->line);
			else
				buf_puts(&b, " (in the sample");
			if (it->rows)
				buf_printf(&b, ", %zu rows", it->rows);
			buf_putc(&b, ')');
			diag_note(d, nowhere, "%s", buf_data(&b));
		}
		diag_note(d, nowhere, "write them out with: logdown parse %s --suggest -o parsers/%s.yaml",
			  o->file, name);
		buf_free(&b);
	}
	if (ok)
		suggestion_free(&sg);
	free(name);
}

int parsecmd_parse(const struct parse_opts *o, FILE *out, struct diag *d)
{
	struct stat st;
	if (stat(o->file, &st) != 0) {
		diag_error(d, loc_line(o->file, 0), "cannot read: %s", strerror(errno));
		return errno == ENOENT || errno == ENOTDIR ? EXIT_USAGE : EXIT_IO;
	}
	if (S_ISDIR(st.st_mode)) {
		diag_error(d, loc_line(o->file, 0), "a folder: name one result file");
		return EXIT_USAGE;
	}
	if (!S_ISREG(st.st_mode)) {
		/* Reading a FIFO or a terminal could wait for ever. */
		diag_error(d, loc_line(o->file, 0), "not a regular file (%s)",
			   file_kind_word(st.st_mode));
		return EXIT_USAGE;
	}
	int rc = EXIT_OK;
	struct run *r = NULL;
	struct spill sp;
	bool streamed = false;
	struct parser_set *set = load_for(o, d);
	if (!set)
		return EXIT_USAGE;
	spill_init(&sp);
	size_t broken = diag_errors(d);
	const struct parser *p;
	if (o->suggest) {
		rc = suggest_cmd(o, set, out, d);
		goto out;
	}
	if (o->parser) {
		/* A name on the command line has no place in a file. */
		struct loc nowhere = {NULL, 0, 0, 0};
		p = parsers_lookup(set, o->parser, nowhere, d);
		if (!p) {
			/* A definition with errors is content; a name that
			 * none has, usage. */
			rc = parsers_broken(set, o->parser) ? EXIT_CONTENT : EXIT_USAGE;
			goto out;
		}
	} else {
		p = parsers_detect(set, o->file, loc_line(o->file, 0), d);
		if (!p) {
			struct loc nowhere = {NULL, 0, 0, 0};
			diag_note(d, nowhere, "on the command line, name the parser with "
					      "--parser NAME (logdown parsers lists them)");
			if (diag_errors(d) == broken + 1)
				suggest_notes(o, set, d);
			rc = EXIT_CONTENT;
			goto out;
		}
	}
	char *name = path_stem(o->file);
	streamed = o->json && !o->csv && !o->list_columns && parser_streams(p);
	size_t ncols = 0;
	const char *const *cols = o->csv ? parser_series_columns(p, o->csv, &ncols) : NULL;
	if (cols) {
		/* Rows go out as they are found: memory stays flat however
		 * big the log. */
		struct csv_out c = {out, BUF_INIT};
		csv_header(&c, cols, ncols);
		struct row_sink sink = {o->csv, csv_row, &c, NULL};
		r = parser_run_sink(p, o->file, o->file, name, &sink, d);
		csv_flush(&c);
	} else if (streamed) {
		/* The rows go to a temporary file as they are found, the
		 * derives taken as they pass: memory stays flat however big
		 * the log.  Nothing is written before the parse is done. */
		struct row_stream rs = {spill_row, &sp};
		r = parser_run_stream(p, o->file, o->file, name, &rs, d);
	} else {
		r = parser_run(p, o->file, o->file, name, d);
	}
	free(name);
	if (!r) {
		rc = EXIT_CONTENT;
		goto out;
	}
	if (streamed && sp.err) {
		const char *tmp = getenv("TMPDIR");
		diag_error(d, loc_line(o->file, 0),
			   "cannot write the rows' temporary file in %s: %s (set TMPDIR to a "
			   "folder with room)",
			   tmp && *tmp ? tmp : "/tmp", strerror(sp.err));
		rc = EXIT_IO;
		goto out;
	}
	if (cols) {
		/* written */
	} else if (o->csv) {
		/* a split file's runs have the same series: name the first's */
		const struct run *cr = run_member_count(r) ? run_member_at(r, 0) : r;
		if (!parsecmd_put_csv(out, cr, o->csv, d)) {
			rc = EXIT_USAGE;
			goto out;
		}
	} else if (o->list_columns)
		print_names(out, r);
	else if (o->json) {
		if (!put_json(out, r, o->file, streamed ? &sp : NULL)) {
			diag_error(d, loc_line(o->file, 0),
				   "cannot read back the rows' temporary file: %s", strerror(errno));
			rc = EXIT_IO;
			goto out;
		}
	}
	else
		print_summary(out, r, p, o->file);
	if (broken > 0 || diag_errors(d) > 0)
		rc = EXIT_CONTENT;
out:
	run_free(r);
	spill_free(&sp);
	parsers_free(set);
	return rc;
}

static int cmp_parser(const void *a, const void *b)
{
	return strcmp(parser_name(*(const struct parser *const *)a),
		      parser_name(*(const struct parser *const *)b));
}

/* The start of a description, up to its first ": " or ". " outside
 * quotes and parentheses ("Plain \"name: number\" files (e.g. ...)"),
 * on one line. */
static void put_gist(struct buf *b, const char *desc)
{
	size_t n = 0;
	bool quoted = false;
	int depth = 0;
	for (; desc[n]; n++) {
		char c = desc[n];
		if (c == '"')
			quoted = !quoted;
		else if (!quoted && c == '(')
			depth++;
		else if (!quoted && c == ')' && depth > 0)
			depth--;
		else if (!quoted && depth == 0 && (c == ':' || c == '.') &&
			 (desc[n + 1] == ' ' || desc[n + 1] == '\n' || !desc[n + 1]))
			break;
	}
	struct buf one = BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		char c = desc[i];
		if (c == '\n' || c == '\t')
			c = ' ';
		if (c == ' ' && (one.len == 0 || one.data[one.len - 1] == ' '))
			continue;
		buf_putc(&one, c);
	}
	while (one.len && one.data[one.len - 1] == ' ')
		one.data[--one.len] = '\0';
	if (width_of(buf_data(&one), one.len) <= GIST_WIDTH) {
		put_shown(b, buf_data(&one), one.len, GIST_WIDTH);
	} else {
		/* Too long: cut at the last word that fits, ellipsis after. */
		size_t end = 0, chars = 0, cut = 0;
		for (; end < one.len && chars < GIST_WIDTH; end++) {
			if (((unsigned char)one.data[end] & 0xC0) != 0x80)
				chars++;
			if (one.data[end] == ' ')
				cut = end;
		}
		while (cut > 0 && strchr(" ,;(", one.data[cut - 1]))
			cut--;
		put_shown(b, buf_data(&one), cut ? cut : end, GIST_WIDTH);
		buf_puts(b, "\xE2\x80\xA6");
	}
	buf_free(&one);
}

int parsecmd_list(FILE *out, struct diag *d)
{
	struct parser_set *set = parsers_load(".", NULL, d);
	size_t n = parsers_count(set);
	const struct parser **ps = xcalloc(n ? n : 1, sizeof *ps);
	size_t name_w = 0, origin_w = 0;
	for (size_t i = 0; i < n; i++) {
		ps[i] = parsers_at(set, i);
		size_t w = strlen(parser_name(ps[i]));
		name_w = w > name_w ? w : name_w;
		w = width_of(parser_origin(ps[i]), strlen(parser_origin(ps[i])));
		origin_w = w > origin_w ? w : origin_w;
	}
	qsort(ps, n, sizeof *ps, cmp_parser);
	for (size_t i = 0; i < n; i++) {
		const char *name = parser_name(ps[i]), *origin = parser_origin(ps[i]);
		const char *desc = parser_description(ps[i]);
		struct buf gist = BUF_INIT;
		put_gist(&gist, desc ? desc : "");
		fprintf(out, "%s  ", name);
		pad(out, strlen(name), name_w);
		fputs(origin, out);
		if (gist.len) {
			pad(out, width_of(origin, strlen(origin)), origin_w);
			fprintf(out, "  %s", buf_data(&gist));
		}
		fputc('\n', out);
		buf_free(&gist);
	}
	free(ps);
	parsers_free(set);
	return diag_errors(d) > 0 ? EXIT_CONTENT : EXIT_OK;
}

int parsecmd_describe(FILE *out, const char *const *names, size_t n, bool markdown,
		      struct diag *d)
{
	struct parser_set *set = parsers_load(".", NULL, d);
	if (!set)
		return EXIT_CONTENT;
	size_t count = n ? n : parsers_count(set);
	const struct parser **ps = xcalloc(count ? count : 1, sizeof *ps);
	int rc = EXIT_OK;
	for (size_t i = 0; i < count; i++) {
		struct loc nowhere = {NULL, 0, 0, 0};
		ps[i] = n ? parsers_lookup(set, names[i], nowhere, d) : parsers_at(set, i);
		if (!ps[i] && rc == EXIT_OK)
			rc = parsers_broken(set, names[i]) ? EXIT_CONTENT : EXIT_USAGE;
	}
	if (!n)
		qsort(ps, count, sizeof *ps, cmp_parser);
	for (size_t i = 0; i < count && rc == EXIT_OK; i++) {
		struct buf b = BUF_INIT;
		if (i)
			buf_putc(&b, '\n');
		parser_describe(ps[i], markdown, &b);
		fputs(buf_data(&b), out);
		buf_free(&b);
	}
	free(ps);
	parsers_free(set);
	if (rc == EXIT_OK && diag_errors(d) > 0)
		rc = EXIT_CONTENT;
	return rc;
}
