/* runstore.c: a parsed run on disk, columnar, read in place (see
 * runstore.h; docs/internals.md, "The build cache", has the layout).
 *
 *   header    128 bytes: magic, format, key, the binary's version (its
 *             XXH3-64), the file's size, where the directory is, the
 *             id of the user's key (seal.h), 8 bytes of zeros, the seal
 *             (HMAC-SHA256 under the user's key of the 88 bytes before
 *             it and the SHA-256 of everything after the header), and
 *             the XXH3-64 of the 120 bytes before
 *   sections  8-byte aligned arrays, per series: for each column its
 *             tags (a byte a row; absent when every cell has the same),
 *             numbers (a double a row; absent when none is a number),
 *             text ends (4 or 8 bytes a row), text pool, and own-line
 *             pairs; then the row lines, delta-coded per block of
 *             SERIES_VIEW_BLOCK rows: the block's least line (8 bytes)
 *             and each row's line after it (1, 2, 4 or 8 bytes)
 *   directory the run's names, line count, fields, and for each series
 *             its name, columns, row count and sections' places
 *
 * All integers are little-endian (the build machine's: a store is never
 * shared between machines, and a foreign one fails its checks).
 *
 * Reading maps the file, checks the header, the seal and every
 * section's place, then copies only the directory (names and fields:
 * small).  The series are views of the mapping (run.h), so a build
 * touches only the rows and columns its reports read.  The seal's
 * digest is taken once per load over the whole body, in windows dropped
 * from the process as it goes (madvise): the check costs a read of the
 * file from the page cache (SHA-256: about 0.35 s for a 567 MB store
 * here), not its size in memory.
 *
 * The header is made and checked in one place each (header_seal(),
 * header_check()); the seal, under a key no project holds, covers the
 * header and the whole body, so a store edited by anyone else (its
 * checksums fixed up or not) is refused. */
#define _GNU_SOURCE
#include "data/runstore.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include "base/util.h"
#include "data/seal.h"

#define MAGIC "logdown-runstore" /* 16 bytes, no NUL */
#define MAGIC_LEN 16
#define HEADER_SIZE 128
#define HEADER_SUMMED 120 /* the header's checksum covers the bytes before it */
#define WBUF_SIZE ((size_t)1 << 20)
#define DIGEST_WINDOW ((size_t)8 << 20)

/* Header field offsets. */
enum {
	H_MAGIC = 0,
	H_FORMAT = 16,
	H_HEADER_SIZE = 20,
	H_KEY = 24,
	H_VERSION = 40,
	H_FILE_SIZE = 48,
	H_DIR_OFF = 56,
	H_DIR_SIZE = 64,
	H_KEY_ID = 72, /* SEAL_ID_BYTES */
	H_ZEROS = 80, /* 8 bytes */
	H_SEAL = 88, /* SEAL_BYTES, over the bytes before it and the body */
	H_SUM = HEADER_SUMMED,
};

static uint64_t version_hash(void)
{
	const char *v = cache_version();
	return XXH3_64bits(v, strlen(v));
}

static void le_put(unsigned char *p, uint64_t v, size_t n)
{
	memcpy(p, &v, n); /* little-endian hosts only: see the top */
}

static uint64_t le_get(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	memcpy(&v, p, n);
	return v;
}

/* What a checked header says. */
struct hdr {
	uint64_t size, dir_off, dir_size;
	unsigned char seal[SEAL_BYTES];
};

/* Fills h, the header of a store of key whose body went into b, and
 * seals it under sk. */
static void header_seal(unsigned char h[HEADER_SIZE], const struct seal_key *sk,
			struct seal_body *b, const struct cache_key *key, const struct hdr *v)
{
	memset(h, 0, HEADER_SIZE);
	memcpy(h + H_MAGIC, MAGIC, MAGIC_LEN);
	le_put(h + H_FORMAT, RUNSTORE_FORMAT, 4);
	le_put(h + H_HEADER_SIZE, HEADER_SIZE, 4);
	memcpy(h + H_KEY, key->b, sizeof key->b);
	le_put(h + H_VERSION, version_hash(), 8);
	le_put(h + H_FILE_SIZE, v->size, 8);
	le_put(h + H_DIR_OFF, v->dir_off, 8);
	le_put(h + H_DIR_SIZE, v->dir_size, 8);
	memcpy(h + H_KEY_ID, sk->id, SEAL_ID_BYTES);
	seal_body_seal(b, sk, h, H_SEAL, h + H_SEAL);
	le_put(h + H_SUM, XXH3_64bits(h, HEADER_SUMMED), 8);
}

/* Checks the header of a file of size bytes that should hold key's
 * run, sealed under sk; fills *v.  The seal is checked by the caller. */
static enum runstore_verdict header_check(const unsigned char *h, size_t size,
					  const struct seal_key *sk, const struct cache_key *key,
					  struct hdr *v)
{
	if (size < HEADER_SIZE || memcmp(h + H_MAGIC, MAGIC, MAGIC_LEN) != 0 ||
	    le_get(h + H_SUM, 8) != XXH3_64bits(h, HEADER_SUMMED))
		return RUNSTORE_DAMAGED;
	if (le_get(h + H_FORMAT, 4) != RUNSTORE_FORMAT || le_get(h + H_VERSION, 8) != version_hash())
		return RUNSTORE_OTHER_VERSION;
	v->size = le_get(h + H_FILE_SIZE, 8);
	v->dir_off = le_get(h + H_DIR_OFF, 8);
	v->dir_size = le_get(h + H_DIR_SIZE, 8);
	memcpy(v->seal, h + H_SEAL, sizeof v->seal);
	static const unsigned char zeros[H_SEAL - H_ZEROS];
	/* a file truncated or grown since it was written, or a key's file
	 * copied under another's name */
	if (le_get(h + H_HEADER_SIZE, 4) != HEADER_SIZE || v->size != size ||
	    memcmp(h + H_KEY, key->b, sizeof key->b) != 0 ||
	    memcmp(h + H_ZEROS, zeros, sizeof zeros) != 0 || v->dir_off < HEADER_SIZE ||
	    v->dir_off > size || v->dir_size != size - v->dir_off)
		return RUNSTORE_DAMAGED;
	if (memcmp(h + H_KEY_ID, sk->id, SEAL_ID_BYTES) != 0)
		return RUNSTORE_OTHER_KEY;
	return RUNSTORE_OK;
}

/* --- writing --- */

struct wr {
	int fd;
	uint64_t off; /* the file offset of the next byte */
	struct seal_body body;
	unsigned char *buf;
	size_t len;
	bool ok;
};

static void w_flush(struct wr *w)
{
	seal_body_add(&w->body, w->buf, w->len);
	const unsigned char *p = w->buf;
	size_t left = w->len;
	while (w->ok && left > 0) {
		ssize_t n = write(w->fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		w->ok = n > 0;
		if (n > 0) {
			p += n;
			left -= (size_t)n;
		}
	}
	w->len = 0;
}

static void w_put(struct wr *w, const void *p, size_t n)
{
	const unsigned char *s = p;
	w->off += n;
	while (n > 0) {
		if (w->len == WBUF_SIZE)
			w_flush(w);
		size_t k = WBUF_SIZE - w->len < n ? WBUF_SIZE - w->len : n;
		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
	}
}

static void w_uint(struct wr *w, uint64_t v, unsigned width)
{
	unsigned char b[8];
	le_put(b, v, width);
	w_put(w, b, width);
}

/* Pads to 8 bytes; the offset of the section that starts there. */
static uint64_t w_section(struct wr *w)
{
	static const unsigned char zeros[8];
	w_put(w, zeros, (8 - w->off % 8) % 8);
	return w->off;
}

/* The directory, built in memory (it is small). */
static void d_u64(struct buf *d, uint64_t v)
{
	unsigned char b[8];
	le_put(b, v, 8);
	buf_put(d, (const char *)b, 8);
}

static void d_str(struct buf *d, const char *p, size_t n)
{
	d_u64(d, n);
	buf_put(d, p, n);
}

static void d_f64(struct buf *d, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	d_u64(d, u);
}

static unsigned width_for(uint64_t max)
{
	return max <= UINT8_MAX ? 1 : max <= UINT16_MAX ? 2 : max <= UINT32_MAX ? 4 : 8;
}

/* Where each row's text ends in the pool, gathered as the pool is
 * written: 4 bytes a row, widened to 8 once a pool passes 4 GiB (the
 * width the file keeps: the last end's). */
struct ends {
	void *v;
	unsigned width;
};

static void ends_set(struct ends *e, size_t n, size_t row, uint64_t end)
{
	if (e->width == 4 && end > UINT32_MAX) {
		uint64_t *wide = xmalloc((n ? n : 1) * sizeof *wide);
		for (size_t i = 0; i < row; i++)
			wide[i] = ((uint32_t *)e->v)[i];
		free(e->v);
		e->v = wide;
		e->width = 8;
	}
	if (e->width == 4)
		((uint32_t *)e->v)[row] = (uint32_t)end;
	else
		((uint64_t *)e->v)[row] = end;
}

/* Writes column col of s (its sections) and its entry in the directory.
 * What is gathered in memory is 5 bytes a row (a tag, a text end), not
 * the column: its numbers are read again from the series when their
 * section is written (series_number()), so that storing a run of
 * millions of rows adds little to the run's own memory. */
static void write_column(struct wr *w, struct buf *dir, const struct series *s, size_t col)
{
	size_t n = series_row_count(s);
	unsigned char *tags = xmalloc(n ? n : 1);
	struct ends ends = {xmalloc((n ? n : 1) * sizeof(uint32_t)), 4};
	uint64_t *own = NULL;
	size_t nown = 0, own_cap = 0;
	bool numbers = false, uniform = true;
	/* One pass: the texts go out as they come (the pool), the tags and
	 * text ends are gathered and written after it. */
	uint64_t pool_off = w_section(w), end = 0;
	for (size_t row = 0; row < n; row++) {
		struct datum d;
		series_cell(s, row, col, &d);
		long line = series_row_line(s, row);
		unsigned tag = (unsigned)d.kind | (d.text ? SERIES_VIEW_TEXT : 0) |
			       (d.line > line ? SERIES_VIEW_LINE : 0);
		tags[row] = (unsigned char)tag;
		uniform = uniform && tags[row] == tags[0];
		numbers = numbers || d.kind == DATUM_NUMBER;
		if (d.text) {
			w_put(w, d.text, d.len);
			end += d.len;
		}
		ends_set(&ends, n, row, end);
		if (d.line > line) {
			if (nown == own_cap) {
				own_cap = own_cap ? 2 * own_cap : 16;
				own = xrealloc(own, 2 * own_cap * sizeof *own);
			}
			own[2 * nown] = row;
			own[2 * nown + 1] = (uint64_t)(d.line - line);
			nown++;
		}
	}
	uint64_t tags_off = 0, num_off = 0, own_off = 0;
	if (!uniform) {
		tags_off = w_section(w);
		w_put(w, tags, n);
	}
	if (numbers) {
		num_off = w_section(w);
		for (size_t row = 0; row < n; row++) {
			/* 0 for a cell that is not a number, as series_cell() */
			double v = series_number(s, row, col);
			uint64_t u;
			memcpy(&u, &v, sizeof u);
			w_uint(w, u, 8);
		}
	}
	unsigned ends_width = ends.width;
	uint64_t ends_off = w_section(w);
	for (size_t row = 0; row < n; row++)
		w_uint(w, ends_width == 4 ? ((uint32_t *)ends.v)[row] : ((uint64_t *)ends.v)[row],
		       ends_width);
	if (nown) {
		own_off = w_section(w);
		for (size_t i = 0; i < 2 * nown; i++)
			w_uint(w, own[i], 8);
	}
	d_str(dir, series_column(s, col), strlen(series_column(s, col)));
	d_u64(dir, uniform ? (n ? tags[0] : 0) : 0);
	d_u64(dir, tags_off);
	d_u64(dir, num_off);
	d_u64(dir, ends_width);
	d_u64(dir, ends_off);
	d_u64(dir, pool_off);
	d_u64(dir, end);
	d_u64(dir, own_off);
	d_u64(dir, nown);
	free(tags);
	free(ends.v);
	free(own);
}

static void write_series(struct wr *w, struct buf *dir, const struct series *s)
{
	size_t n = series_row_count(s), nc = series_column_count(s);
	long first_dropped;
	size_t dropped = series_dropped(s, &first_dropped);
	d_str(dir, series_name(s), strlen(series_name(s)));
	d_u64(dir, nc);
	d_u64(dir, n);
	d_u64(dir, dropped);
	d_u64(dir, (uint64_t)(int64_t)first_dropped);
	for (size_t j = 0; j < nc; j++)
		write_column(w, dir, s, j);
	/* Row lines: a block's least line, and each row's after it, as
	 * narrow as the widest block needs (a line a row or so: 1 or 2
	 * bytes). */
	size_t nblocks = (n + SERIES_VIEW_BLOCK - 1) / SERIES_VIEW_BLOCK;
	int64_t *base = xmalloc((nblocks ? nblocks : 1) * sizeof *base);
	uint64_t span = 0;
	for (size_t b = 0; b < nblocks; b++) {
		size_t lo = b * SERIES_VIEW_BLOCK, hi = lo + SERIES_VIEW_BLOCK < n ? lo + SERIES_VIEW_BLOCK : n;
		int64_t min = series_row_line(s, lo), max = min;
		for (size_t row = lo + 1; row < hi; row++) {
			int64_t l = series_row_line(s, row);
			min = l < min ? l : min;
			max = l > max ? l : max;
		}
		base[b] = min;
		if ((uint64_t)max - (uint64_t)min > span)
			span = (uint64_t)max - (uint64_t)min;
	}
	unsigned width = width_for(span);
	uint64_t base_off = w_section(w);
	for (size_t b = 0; b < nblocks; b++)
		w_uint(w, (uint64_t)base[b], 8);
	uint64_t off_off = w_section(w);
	for (size_t row = 0; row < n; row++)
		w_uint(w, (uint64_t)(int64_t)series_row_line(s, row) -
				  (uint64_t)base[row / SERIES_VIEW_BLOCK],
		       width);
	d_u64(dir, width);
	d_u64(dir, base_off);
	d_u64(dir, off_off);
	free(base);
}

static void write_directory(struct buf *dir, const struct run *r)
{
	const char *s[3] = {run_name(r), run_file(r), run_parser(r)};
	for (int i = 0; i < 3; i++)
		d_str(dir, s[i], strlen(s[i]));
	d_u64(dir, (uint64_t)(int64_t)run_line_count(r));
	d_u64(dir, (uint64_t)(int64_t)run_first_line(r));
	size_t nf = run_field_count(r);
	d_u64(dir, nf);
	for (size_t i = 0; i < nf; i++) {
		const char *name = run_field_name(r, i);
		const struct datum *d = run_field_at(r, i);
		const char *inputs = run_field_inputs(r, name);
		d_str(dir, name, strlen(name));
		d_u64(dir, (unsigned)d->kind | (d->text ? SERIES_VIEW_TEXT : 0));
		d_f64(dir, d->kind == DATUM_NUMBER ? d->num : 0);
		d_str(dir, d->text ? d->text : "", d->text ? d->len : 0);
		d_u64(dir, (uint64_t)(int64_t)d->line);
		d_u64(dir, inputs ? 1 : 0);
		d_str(dir, inputs ? inputs : "", inputs ? strlen(inputs) : 0);
	}
	d_u64(dir, run_series_count(r));
}

bool runstore_write(int fd, const struct seal_key *sk, const struct cache_key *key,
		    const struct run *r)
{
	if (run_member_count(r) > 0) {
		errno = EINVAL;
		return false;
	}
	struct wr w = {.fd = fd, .off = 0, .buf = xmalloc(WBUF_SIZE), .len = 0, .ok = true};
	seal_body_init(&w.body);
	/* The header's place, filled last; the seal's body starts after it. */
	unsigned char h[HEADER_SIZE] = {0};
	if (lseek(fd, HEADER_SIZE, SEEK_SET) != HEADER_SIZE)
		w.ok = false;
	w.off = HEADER_SIZE;
	struct buf dir = BUF_INIT;
	write_directory(&dir, r);
	for (size_t i = 0; i < run_series_count(r) && w.ok; i++)
		write_series(&w, &dir, run_series_at(r, i));
	struct hdr v;
	v.dir_off = w_section(&w);
	v.dir_size = dir.len;
	w_put(&w, dir.data, dir.len);
	w_flush(&w);
	v.size = w.off;
	header_seal(h, sk, &w.body, key, &v);
	bool ok = w.ok && pwrite(fd, h, HEADER_SIZE, 0) == HEADER_SIZE;
	buf_free(&dir);
	free(w.buf);
	return ok;
}

/* --- reading --- */

struct mapping {
	void *p;
	size_t size;
};

static void mapping_release(void *p)
{
	struct mapping *m = p;
	munmap(m->p, m->size);
	free(m);
}

/* Does the seal match the header and the body under sk?  The body is
 * read in windows that are dropped from the process once hashed: a big
 * store costs its read, not its size in memory (the pages stay in the
 * page cache, where the series find them). */
static bool seal_ok(const unsigned char *map, size_t size, const struct seal_key *sk,
		    const struct hdr *h)
{
	struct seal_body b;
	seal_body_init(&b);
	long ps = sysconf(_SC_PAGESIZE);
	size_t page = ps > 0 ? (size_t)ps : 4096;
	for (size_t at = HEADER_SIZE; at < size; at += DIGEST_WINDOW) {
		size_t n = size - at < DIGEST_WINDOW ? size - at : DIGEST_WINDOW;
		seal_body_add(&b, map + at, n);
		/* whole pages only, the header's first page kept */
		size_t from = (at + page - 1) / page * page, to = (at + n) / page * page;
		if (to > from)
			madvise((void *)(map + from), to - from, MADV_DONTNEED);
	}
	unsigned char want[SEAL_BYTES];
	seal_body_seal(&b, sk, map, H_SEAL, want);
	return seal_equal(want, h->seal);
}

/* A cursor over the directory: every read is checked against its end. */
struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t c_u64(struct cur *c)
{
	if (c->bad || c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	uint64_t v = le_get(c->p, 8);
	c->p += 8;
	return v;
}

static double c_f64(struct cur *c)
{
	uint64_t u = c_u64(c);
	double v;
	memcpy(&v, &u, sizeof v);
	return v;
}

/* The next string's bytes (not NUL-terminated; no NUL inside). */
static const char *c_bytes(struct cur *c, size_t *len)
{
	uint64_t n = c_u64(c);
	if (c->bad || n > (uint64_t)(c->end - c->p) || memchr(c->p, '\0', (size_t)n)) {
		c->bad = true;
		*len = 0;
		return "";
	}
	const char *s = (const char *)c->p;
	c->p += n;
	*len = (size_t)n;
	return s;
}

static char *c_str(struct cur *c)
{
	size_t n;
	const char *s = c_bytes(c, &n);
	return xstrndup(s, n);
}

/* The section of count items of width bytes at off, which must lie
 * between the header and the directory, 8-byte aligned; NULL and *bad
 * when it does not. */
static const void *section(const unsigned char *map, const struct hdr *h, uint64_t off,
			   uint64_t count, uint64_t width, bool *bad)
{
	if (off < HEADER_SIZE || off % 8 != 0 || off > h->dir_off ||
	    count > (h->dir_off - off) / width) {
		*bad = true;
		return NULL;
	}
	return map + off;
}

static bool read_column(const unsigned char *map, const struct hdr *h, struct cur *c, size_t n,
			struct series_view_col *col)
{
	uint64_t tag = c_u64(c), tags_off = c_u64(c), num_off = c_u64(c);
	uint64_t ends_width = c_u64(c), ends_off = c_u64(c), pool_off = c_u64(c);
	uint64_t pool_len = c_u64(c), own_off = c_u64(c), nown = c_u64(c);
	bool bad = c->bad || tag > 15 || (ends_width != 4 && ends_width != 8);
	if (bad)
		return false;
	col->tag = (unsigned)tag;
	col->tags = tags_off ? section(map, h, tags_off, n, 1, &bad) : NULL;
	col->num = num_off ? section(map, h, num_off, n, 8, &bad) : NULL;
	col->ends_width = (unsigned)ends_width;
	col->ends = section(map, h, ends_off, n, ends_width, &bad);
	col->pool = section(map, h, pool_off, pool_len, 1, &bad);
	col->pool_len = (size_t)pool_len;
	col->nown = (size_t)nown;
	col->own = nown ? section(map, h, own_off, nown, 16, &bad) : NULL;
	return !bad;
}

static bool read_series(struct run *run, const unsigned char *map, const struct hdr *h,
			struct cur *c)
{
	char *name = c_str(c);
	uint64_t nc = c_u64(c), n = c_u64(c);
	struct series_view v = {0};
	v.dropped = (size_t)c_u64(c);
	v.first_dropped = (long)(int64_t)c_u64(c);
	/* a column takes at least 80 bytes of the directory, a row at
	 * least one of the file: counts past those are lies */
	bool ok = !c->bad && nc <= (uint64_t)(c->end - c->p) / 80 && n <= h->size &&
		  !run_series(run, name);
	char **cols = NULL;
	struct series_view_col *vc = NULL;
	if (ok) {
		cols = xcalloc(nc + 1, sizeof *cols);
		vc = xcalloc(nc + 1, sizeof *vc);
	}
	for (uint64_t j = 0; ok && j < nc; j++) {
		cols[j] = c_str(c);
		ok = !c->bad && read_column(map, h, c, (size_t)n, &vc[j]);
	}
	uint64_t width = ok ? c_u64(c) : 0, base_off = c_u64(c), off_off = c_u64(c);
	ok = ok && !c->bad && (width == 1 || width == 2 || width == 4 || width == 8);
	if (ok) {
		bool bad = false;
		uint64_t nblocks = (n + SERIES_VIEW_BLOCK - 1) / SERIES_VIEW_BLOCK;
		v.nrows = (size_t)n;
		v.line_width = (unsigned)width;
		v.line_base = section(map, h, base_off, nblocks, 8, &bad);
		v.line_off = section(map, h, off_off, n, width, &bad);
		v.cols = vc;
		memcpy(v.origin, map + H_KEY, sizeof v.origin);
		ok = !bad;
	}
	if (ok)
		run_add_series_view(run, name, (const char *const *)cols, (size_t)nc, &v);
	for (uint64_t j = 0; cols && j < nc; j++)
		free(cols[j]);
	free(cols);
	free(vc);
	free(name);
	return ok;
}

/* The run the directory describes, or NULL. */
static struct run *read_directory(const unsigned char *map, const struct hdr *h)
{
	struct cur c = {map + h->dir_off, map + h->size, false};
	char *s[3];
	for (int i = 0; i < 3; i++)
		s[i] = c_str(&c);
	struct run *run = run_new(s[0], s[1], s[2]);
	for (int i = 0; i < 3; i++)
		free(s[i]);
	run_set_line_count(run, (long)(int64_t)c_u64(&c));
	run_set_first_line(run, (long)(int64_t)c_u64(&c));
	uint64_t nf = c_u64(&c);
	for (uint64_t i = 0; i < nf && !c.bad; i++) {
		char *name = c_str(&c);
		uint64_t tag = c_u64(&c);
		struct datum d = {DATUM_MISSING, 0, NULL, 0, 0};
		d.num = c_f64(&c);
		d.text = c_bytes(&c, &d.len);
		d.line = (long)(int64_t)c_u64(&c);
		uint64_t has_inputs = c_u64(&c);
		char *inputs = c_str(&c);
		if ((tag & 3u) > DATUM_STRING || tag > 7u || has_inputs > 1)
			c.bad = true;
		d.kind = (enum datum_kind)(tag & 3u);
		if (d.kind != DATUM_NUMBER)
			d.num = 0; /* as written */
		if (!(tag & SERIES_VIEW_TEXT)) {
			d.text = NULL;
			d.len = 0;
		}
		if (!c.bad) {
			run_set_field(run, name, &d);
			if (has_inputs)
				run_set_field_inputs(run, name, inputs);
		}
		free(name);
		free(inputs);
	}
	uint64_t ns = c_u64(&c);
	for (uint64_t i = 0; i < ns && !c.bad; i++)
		if (!read_series(run, map, h, &c))
			c.bad = true;
	if (c.bad || c.p != c.end) {
		run_free(run);
		return NULL;
	}
	return run;
}

struct run *runstore_map(int fd, size_t size, const struct seal_key *sk,
			 const struct cache_key *key, bool body_known,
			 enum runstore_verdict *verdict)
{
	*verdict = RUNSTORE_DAMAGED;
	if (size < HEADER_SIZE)
		return NULL;
	void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		*verdict = RUNSTORE_UNREADABLE;
		return NULL;
	}
	const unsigned char *map = p;
	struct hdr h;
	struct run *run = NULL;
	*verdict = header_check(map, size, sk, key, &h);
	if (*verdict != RUNSTORE_OK)
		goto out;
	*verdict = RUNSTORE_FORGED;
	if (!body_known && !seal_ok(map, size, sk, &h))
		goto out;
	*verdict = RUNSTORE_DAMAGED;
	run = read_directory(map, &h);
	if (!run)
		goto out;
	*verdict = RUNSTORE_OK;
	struct mapping *m = xmalloc(sizeof *m);
	m->p = p;
	m->size = size;
	run_hold(run, m, mapping_release);
	return run;
out:
	munmap(p, size);
	return NULL;
}
