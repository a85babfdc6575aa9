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
 *             pairs; a column of plain decimals with as many decimals
 *             on every row ("2934.70", a training log's usual column:
 *             value.h, number_fixed_decimals()) has its numbers alone,
 *             its texts printed back from them when read (run.h,
 *             SERIES_VIEW_DEC); then the row lines, delta-coded per
 *             block of SERIES_VIEW_BLOCK rows: the block's least line
 *             (8 bytes) and each row's line after it (1, 2, 4 or 8
 *             bytes)
 *   directory the run's names, line count, fields, and for each series
 *             its name, columns (with their decimals), row count and
 *             sections' places
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
 * file from the page cache (SHA-256: about 0.15 s for the 231 MB store
 * here), not its size in memory.
 *
 * The header is made and checked in one place each (header_seal(),
 * header_check()); the seal, under a key no project holds, covers the
 * header and the whole body, so a store edited by anyone else (its
 * checksums fixed up or not) is refused. */
#define _GNU_SOURCE
#include "data/runstore.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include "base/util.h"
#include "data/seal.h"
#include "data/value.h"

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
	const unsigned char *origin; /* the store's key, its series' origin */
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

/* The store is written in two passes over each series' rows, every
 * column at once: the first finds each section's size (a column's
 * texts, whether its tags differ, whether it holds a number, its cells
 * with their own lines, whether it is plain decimals of one count; the
 * row lines' blocks), so that every section
 * has its place before a byte is written; the second decodes each row
 * once and puts each cell's bytes in its sections, each through a
 * buffer written at its place (pwrite).  A series in memory keeps most
 * numbers as their texts (run.c): column by column, as before, a run of
 * 7 million rows was read ten times (each column's texts, then its
 * numbers, then the row lines twice), 3 GB of memory traffic for the 1
 * GB log's run.  A series of SPLIT_ROWS rows or more has both passes
 * run on two threads, each over half of its rows, every section of the
 * second half placed after the first half's bytes (the first pass's
 * sums say where): the same bytes as one thread's.  The seal's digest
 * is then taken over the body as it lies in the file, read back from
 * the page cache. */
struct wr {
	int fd;
	bool ok;
	size_t sect_cap; /* each section's buffer */
};

static bool pwrite_full(int fd, const void *p, size_t n, uint64_t off)
{
	const unsigned char *b = p;
	while (n > 0) {
		ssize_t k = pwrite(fd, b, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		b += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return true;
}

/* A section filled as its bytes come, written at its place. */
struct sect {
	uint64_t off; /* where the buffer's first byte goes */
	unsigned char *buf;
	size_t len;
};

static void s_flush(struct wr *w, struct sect *s)
{
	if (w->ok && s->len && !pwrite_full(w->fd, s->buf, s->len, s->off))
		w->ok = false;
	s->off += s->len;
	s->len = 0;
}

/* s_put()'s way when the bytes do not fit in the buffer's room. */
static void s_put_slow(struct wr *w, struct sect *s, const void *p, size_t n)
{
	const unsigned char *b = p;
	if (!s->buf && n)
		s->buf = xmalloc(w->sect_cap);
	while (n > 0) {
		if (s->len == w->sect_cap)
			s_flush(w, s);
		size_t k = w->sect_cap - s->len < n ? w->sect_cap - s->len : n;
		memcpy(s->buf + s->len, b, k);
		s->len += k;
		b += k;
		n -= k;
	}
}

/* Called for every cell of millions of rows: the usual case inline. */
static inline void s_put(struct wr *w, struct sect *s, const void *p, size_t n)
{
	if (s->buf && w->sect_cap - s->len >= n) {
		memcpy(s->buf + s->len, p, n);
		s->len += n;
		return;
	}
	s_put_slow(w, s, p, n);
}

static inline void s_uint(struct wr *w, struct sect *s, uint64_t v, unsigned width)
{
	unsigned char b[8];
	le_put(b, v, width);
	s_put(w, s, b, width);
}

static void s_done(struct wr *w, struct sect *s)
{
	s_flush(w, s);
	free(s->buf);
	s->buf = NULL;
}

/* The offset of a section that starts after one ending at *at, 8-byte
 * aligned; the padding is written (zeros) and *at moved past size. */
static uint64_t place(struct wr *w, uint64_t *at, uint64_t size)
{
	static const unsigned char zeros[8];
	uint64_t off = (*at + 7) / 8 * 8;
	if (off > *at && w->ok && !pwrite_full(w->fd, zeros, (size_t)(off - *at), *at))
		w->ok = false;
	*at = off + size;
	return off;
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

/* One column: what the first pass found, where its sections go, and
 * the sections being filled. */
struct col {
	uint64_t pool_len; /* its texts' bytes; in the second pass, those put */
	size_t nown;
	unsigned tag0;
	bool uniform, numbers;
	/* every cell a plain decimal of dec0 decimals on its row's line:
	 * the column is its numbers alone (SERIES_VIEW_DEC) */
	bool fixed;
	signed char dec0;
	unsigned ends_width;
	uint64_t tags_off, num_off, ends_off, pool_off, own_off;
	struct sect pool, tags, num, ends, own;
};

static unsigned cell_tag(const struct datum *d, long line)
{
	return (unsigned)d->kind | (d->text ? SERIES_VIEW_TEXT : 0) |
	       (d->line > line ? SERIES_VIEW_LINE : 0);
}

/* A row's cells as series_row_stored() gives them, each plain decimal
 * a view left without its text given it (into tmp, NUMBER_FIXED_MAX
 * bytes a column) unless its column is numbers alone: a column that is
 * not keeps every text. */
static void row_cells(const struct series *s, size_t row, struct datum *cells, signed char *dec,
		      const struct col *c, char *tmp, unsigned want)
{
	if (!series_row_stored(s, row, cells, dec, want))
		return; /* (a row in memory has its texts) */
	for (size_t j = 0; j < series_column_count(s); j++) {
		if (dec[j] < 0 || cells[j].text || (c && c[j].fixed))
			continue;
		char *t = tmp + j * NUMBER_FIXED_MAX;
		cells[j].len = number_put_fixed(cells[j].num, (unsigned)dec[j], t);
		cells[j].text = t;
	}
}

/* The first pass over rows [from, to): each column's sizes into c[],
 * the least lines of the row lines' blocks in it into base[] and their
 * widest span (from is a block's first row). */
static uint64_t survey(const struct series *s, size_t from, size_t to, struct col *c,
		       struct datum *cells, int64_t *base)
{
	size_t n = series_row_count(s), nc = series_column_count(s);
	uint64_t span = 0;
	int64_t min = 0, max = 0;
	signed char *dec = xmalloc(nc ? nc : 1);
	/* (the numbers of a view's plain decimals, for their texts) */
	char *tmp = xmalloc((nc ? nc : 1) * NUMBER_FIXED_MAX);
	for (size_t j = 0; j < nc; j++) {
		c[j].uniform = true;
		c[j].fixed = from < to;
	}
	for (size_t row = from; row < to; row++) {
		long line = series_row_line(s, row);
		row_cells(s, row, cells, dec, NULL, tmp, SERIES_STORED_DECIMALS);
		for (size_t j = 0; j < nc; j++) {
			const struct datum *d = &cells[j];
			unsigned tag = cell_tag(d, line);
			if (row == from) {
				c[j].tag0 = tag;
				c[j].dec0 = dec[j];
			}
			c[j].fixed = c[j].fixed && dec[j] >= 0 && dec[j] == c[j].dec0 &&
				     d->line == line;
			c[j].uniform = c[j].uniform && tag == c[j].tag0;
			c[j].numbers = c[j].numbers || d->kind == DATUM_NUMBER;
			if (d->text)
				c[j].pool_len += d->len;
			c[j].nown += d->line > line;
		}
		if (row % SERIES_VIEW_BLOCK == 0)
			min = max = line;
		min = line < min ? line : min;
		max = line > max ? line : max;
		if (row % SERIES_VIEW_BLOCK == SERIES_VIEW_BLOCK - 1 || row == n - 1) {
			base[row / SERIES_VIEW_BLOCK] = min;
			if ((uint64_t)max - (uint64_t)min > span)
				span = (uint64_t)max - (uint64_t)min;
		}
	}
	free(tmp);
	free(dec);
	return span;
}

/* The second pass over rows [from, to): each cell's bytes put in its
 * column's sections (c[], their places set for row from on; pool_len:
 * the texts' bytes before row from), each row's line in offs. */
static void fill_rows(struct wr *w, const struct series *s, size_t from, size_t to, struct col *c,
		      struct datum *cells, const int64_t *base, struct sect *offs, unsigned width)
{
	size_t nc = series_column_count(s);
	signed char *dec = xmalloc(nc ? nc : 1);
	char *tmp = xmalloc((nc ? nc : 1) * NUMBER_FIXED_MAX);
	/* every column its numbers alone, every row the series' own (the
	 * 1 GB log's): each row's numbers and line in one pass */
	bool all_fixed = nc > 0 && !series_view_of(s);
	for (size_t j = 0; j < nc; j++)
		all_fixed = all_fixed && c[j].fixed;
	double *num = xmalloc((nc ? nc : 1) * sizeof *num);
	for (size_t row = from; all_fixed && row < to && w->ok; row++) {
		long line = series_row_numbers(s, row, num);
		for (size_t j = 0; j < nc; j++) {
			uint64_t u;
			memcpy(&u, &num[j], sizeof u);
			s_uint(w, &c[j].num, u, 8);
		}
		s_uint(w, offs, (uint64_t)(int64_t)line - (uint64_t)base[row / SERIES_VIEW_BLOCK],
		       width);
	}
	for (size_t row = all_fixed ? to : from; row < to && w->ok; row++) {
		long line = series_row_line(s, row);
		/* (the decimals are the survey's: only a view's are given) */
		row_cells(s, row, cells, dec, c, tmp, SERIES_STORED_NUMBERS);
		for (size_t j = 0; j < nc; j++) {
			struct col *k = &c[j];
			const struct datum *d = &cells[j];
			if (k->fixed) {
				uint64_t u;
				memcpy(&u, &d->num, sizeof u);
				s_uint(w, &k->num, u, 8);
				continue;
			}
			if (d->text && d->len) {
				s_put(w, &k->pool, d->text, d->len);
				k->pool_len += d->len;
			}
			if (!k->uniform)
				s_uint(w, &k->tags, cell_tag(d, line), 1);
			if (k->numbers) {
				/* 0 for a cell that is not a number, as series_cell() */
				double v = d->kind == DATUM_NUMBER ? d->num : 0;
				uint64_t u;
				memcpy(&u, &v, sizeof u);
				s_uint(w, &k->num, u, 8);
			}
			s_uint(w, &k->ends, k->pool_len, k->ends_width);
			if (d->line > line) {
				s_uint(w, &k->own, row, 8);
				s_uint(w, &k->own, (uint64_t)(d->line - line), 8);
			}
		}
		s_uint(w, offs, (uint64_t)(int64_t)line - (uint64_t)base[row / SERIES_VIEW_BLOCK],
		       width);
	}
	free(num);
	free(tmp);
	free(dec);
	for (size_t j = 0; j < nc; j++) {
		s_done(w, &c[j].pool);
		s_done(w, &c[j].tags);
		s_done(w, &c[j].num);
		s_done(w, &c[j].ends);
		s_done(w, &c[j].own);
	}
	s_done(w, offs);
}

/* The rows of a series past which its two passes run on two threads,
 * each over half of its rows (a block's first row starts the second
 * half): the 1 GB log's 7.1 million rows took a second and a half on
 * one.  Each half's sections have their places from the first pass's
 * sums, so the bytes are the same whatever the threads. */
#define SPLIT_ROWS ((size_t)1 << 16)

/* One half of a series' passes, on a thread of its own. */
struct half {
	struct wr w;
	const struct series *s;
	size_t from, to;
	struct col *c;
	struct datum *cells;
	int64_t *base;
	struct sect offs;
	unsigned width;
	uint64_t span;
	bool fill; /* the second pass, else the first */
};

static void *half_main(void *arg)
{
	struct half *h = arg;
	if (h->fill)
		fill_rows(&h->w, h->s, h->from, h->to, h->c, h->cells, h->base, &h->offs, h->width);
	else
		h->span = survey(h->s, h->from, h->to, h->c, h->cells, h->base);
	return NULL;
}

bool runstore_threaded(void)
{
	const char *e = getenv("LOGDOWN_STORE_THREADS");
	if (e && *e)
		return atoi(e) >= 2;
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

/* Runs h[0] on this thread and h[1] on another (or after it, when no
 * thread starts). */
static void halves_run(struct half h[2])
{
	pthread_t t;
	bool started = pthread_create(&t, NULL, half_main, &h[1]) == 0;
	half_main(&h[0]);
	if (started)
		pthread_join(t, NULL);
	else
		half_main(&h[1]);
}

/* Writes s's sections from *at on (moving it past them) and its entry
 * in the directory, as the layout at the top has them: per column its
 * pool, tags, numbers, text ends and own lines, then the row lines. */
static void write_series(struct wr *w, struct buf *dir, const struct series *s, uint64_t *at)
{
	size_t n = series_row_count(s), nc = series_column_count(s);
	long first_dropped;
	size_t dropped = series_dropped(s, &first_dropped);
	d_str(dir, series_name(s), strlen(series_name(s)));
	d_u64(dir, nc);
	d_u64(dir, n);
	d_u64(dir, dropped);
	d_u64(dir, (uint64_t)(int64_t)first_dropped);
	struct col *c = xcalloc(nc ? nc : 1, sizeof *c);
	struct datum *cells = xcalloc(nc ? nc : 1, sizeof *cells);
	size_t nblocks = (n + SERIES_VIEW_BLOCK - 1) / SERIES_VIEW_BLOCK;
	int64_t *base = xcalloc(nblocks ? nblocks : 1, sizeof *base);
	/* in two halves when the series is big: the second's from mid on */
	size_t mid = n >= SPLIT_ROWS && runstore_threaded() ? n / 2 / SERIES_VIEW_BLOCK *
								      SERIES_VIEW_BLOCK
							   : n;
	struct col *c2 = xcalloc(nc ? nc : 1, sizeof *c2);
	struct datum *cells2 = xcalloc(nc ? nc : 1, sizeof *cells2);
	struct half h[2] = {
		{.w = *w, .s = s, .from = 0, .to = mid, .c = c, .cells = cells, .base = base},
		{.w = *w, .s = s, .from = mid, .to = n, .c = c2, .cells = cells2, .base = base},
	};
	uint64_t span;
	struct series_col_survey *sv = xcalloc(nc ? nc : 1, sizeof *sv);
	if (series_survey(s, sv, base, &span)) {
		/* the first pass taken as the rows were appended: its sums,
		 * and the second half's from a point it kept */
		for (size_t j = 0; j < nc; j++) {
			c[j].tag0 = sv[j].tag0;
			c[j].uniform = sv[j].uniform;
			c[j].numbers = sv[j].numbers;
			c[j].fixed = sv[j].fixed;
			c[j].dec0 = sv[j].dec0;
			c[j].pool_len = sv[j].pool_len;
			c[j].nown = sv[j].nown;
		}
		mid = mid < n ? mid / SERIES_SURVEY_STEP * SERIES_SURVEY_STEP : n;
		mid = mid ? mid : n;
		h[0].to = h[1].from = mid;
		if (mid < n) {
			uint64_t *pool = xcalloc(nc ? nc : 1, sizeof *pool);
			uint64_t *own = xcalloc(nc ? nc : 1, sizeof *own);
			series_survey_before(s, mid, pool, own);
			for (size_t j = 0; j < nc; j++) {
				c2[j].pool_len = pool[j];
				c2[j].nown = own[j];
			}
			free(pool);
			free(own);
		}
	} else if (mid < n) {
		halves_run(h);
		/* the first half's sizes and the second's, as one pass's */
		for (size_t j = 0; j < nc; j++) {
			c[j].uniform = c[j].uniform && c2[j].uniform && c[j].tag0 == c2[j].tag0;
			c[j].fixed = c[j].fixed && c2[j].fixed && c[j].dec0 == c2[j].dec0;
			c[j].numbers = c[j].numbers || c2[j].numbers;
			c[j].pool_len += c2[j].pool_len;
			c[j].nown += c2[j].nown;
			/* what the second half starts after */
			c2[j].pool_len = c[j].pool_len - c2[j].pool_len;
			c2[j].nown = c[j].nown - c2[j].nown;
		}
		span = h[0].span > h[1].span ? h[0].span : h[1].span;
	} else {
		span = survey(s, 0, n, c, cells, base);
	}
	unsigned width = width_for(span);
	/* each section's place, as the sections were once written one
	 * after another */
	size_t sections = 2;
	for (size_t j = 0; j < nc; j++) {
		struct col *k = &c[j];
		if (k->fixed) {
			/* its numbers alone: the texts are printed back */
			k->num_off = k->num.off = place(w, at, (uint64_t)n * 8);
			sections++;
			d_str(dir, series_column(s, j), strlen(series_column(s, j)));
			d_u64(dir, DATUM_NUMBER | SERIES_VIEW_DEC);
			d_u64(dir, 0);
			d_u64(dir, k->num_off);
			for (int z = 0; z < 6; z++) /* no ends, pool or own lines */
				d_u64(dir, 0);
			d_u64(dir, (uint64_t)k->dec0);
			continue;
		}
		/* an end is at most the pool's length */
		k->ends_width = k->pool_len > UINT32_MAX ? 8 : 4;
		k->pool_off = k->pool.off = place(w, at, k->pool_len);
		if (!k->uniform)
			k->tags_off = k->tags.off = place(w, at, n);
		if (k->numbers)
			k->num_off = k->num.off = place(w, at, (uint64_t)n * 8);
		k->ends_off = k->ends.off = place(w, at, (uint64_t)n * k->ends_width);
		if (k->nown)
			k->own_off = k->own.off = place(w, at, (uint64_t)k->nown * 16);
		sections += 3 + !k->uniform + k->numbers;
		d_str(dir, series_column(s, j), strlen(series_column(s, j)));
		d_u64(dir, k->uniform ? (n ? k->tag0 : 0) : 0);
		d_u64(dir, k->tags_off);
		d_u64(dir, k->num_off);
		d_u64(dir, k->ends_width);
		d_u64(dir, k->ends_off);
		d_u64(dir, k->pool_off);
		d_u64(dir, k->pool_len);
		d_u64(dir, k->own_off);
		d_u64(dir, k->nown);
		d_u64(dir, 0); /* decimals: only a column of numbers alone's */
	}
	struct sect bases = {0}, offs = {0};
	uint64_t base_off = bases.off = place(w, at, (uint64_t)nblocks * 8);
	uint64_t off_off = offs.off = place(w, at, (uint64_t)n * width);
	d_u64(dir, width);
	d_u64(dir, base_off);
	d_u64(dir, off_off);
	/* a few MiB of buffers in all, whatever the columns */
	w->sect_cap = ((size_t)4 << 20) / sections;
	w->sect_cap = w->sect_cap < 4096 ? 4096 : w->sect_cap > ((size_t)256 << 10) ? (size_t)256 << 10 : w->sect_cap;
	for (size_t b = 0; b < nblocks; b++)
		s_uint(w, &bases, (uint64_t)base[b], 8);
	s_done(w, &bases);
	if (mid < n) {
		/* the second half's places: after the first half's bytes */
		for (size_t j = 0; j < nc; j++) {
			struct col *k = &c[j], *k2 = &c2[j];
			uint64_t pool_before = k2->pool_len, own_before = k2->nown;
			*k2 = *k;
			if (k->fixed) {
				k2->num.off = k->num_off + (uint64_t)mid * 8;
				continue;
			}
			k2->pool.off = k->pool_off + pool_before;
			k2->pool_len = pool_before;
			if (!k->uniform)
				k2->tags.off = k->tags_off + mid;
			if (k->numbers)
				k2->num.off = k->num_off + (uint64_t)mid * 8;
			k2->ends.off = k->ends_off + (uint64_t)mid * k->ends_width;
			if (k->nown)
				k2->own.off = k->own_off + own_before * 16;
			k->pool_len = 0;
		}
		h[0].w = h[1].w = *w;
		h[0].offs = offs;
		h[1].offs = (struct sect){.off = off_off + (uint64_t)mid * width};
		for (int i = 0; i < 2; i++) {
			h[i].width = width;
			h[i].fill = true;
		}
		halves_run(h);
		w->ok = w->ok && h[0].w.ok && h[1].w.ok;
	} else {
		for (size_t j = 0; j < nc; j++)
			c[j].pool_len = 0;
		fill_rows(w, s, 0, n, c, cells, base, &offs, width);
	}
	free(sv);
	free(base);
	free(cells2);
	free(c2);
	free(cells);
	free(c);
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

/* The seal's digest of the body [HEADER_SIZE, size) as written: read
 * back (from the page cache) in the order it lies. */
static bool digest_back(int fd, uint64_t size, struct seal_body *b)
{
	unsigned char *buf = xmalloc(WBUF_SIZE);
	bool ok = true;
	for (uint64_t at = HEADER_SIZE; ok && at < size;) {
		size_t want = size - at < WBUF_SIZE ? (size_t)(size - at) : WBUF_SIZE;
		ssize_t k = pread(fd, buf, want, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		ok = k > 0;
		if (ok) {
			seal_body_add(b, buf, (size_t)k);
			at += (uint64_t)k;
		}
	}
	free(buf);
	return ok;
}

bool runstore_write_body(int fd, const struct run *r, struct runstore_body *out)
{
	if (run_member_count(r) > 0) {
		errno = EINVAL;
		return false;
	}
	struct wr w = {.fd = fd, .ok = true, .sect_cap = 4096};
	/* The header's place, filled last; the body starts after it. */
	uint64_t at = HEADER_SIZE;
	struct buf dir = BUF_INIT;
	write_directory(&dir, r);
	for (size_t i = 0; i < run_series_count(r) && w.ok; i++)
		write_series(&w, &dir, run_series_at(r, i), &at);
	out->dir_off = place(&w, &at, dir.len);
	out->dir_size = dir.len;
	out->size = at;
	bool ok = w.ok && pwrite_full(fd, dir.data, dir.len, out->dir_off);
	buf_free(&dir);
	return ok;
}

bool runstore_seal(int fd, const struct seal_key *sk, const struct cache_key *key,
		   const struct runstore_body *b)
{
	struct hdr v = {.size = b->size, .dir_off = b->dir_off, .dir_size = b->dir_size};
	struct seal_body body;
	seal_body_init(&body);
	if (!digest_back(fd, v.size, &body))
		return false;
	unsigned char h[HEADER_SIZE];
	header_seal(h, sk, &body, key, &v);
	return pwrite_full(fd, h, HEADER_SIZE, 0);
}

bool runstore_write(int fd, const struct seal_key *sk, const struct cache_key *key,
		    const struct run *r)
{
	struct runstore_body b;
	return runstore_write_body(fd, r, &b) && runstore_seal(fd, sk, key, &b);
}

/* --- reading --- */

/* The texts made for a store's columns of numbers alone (run.h,
 * SERIES_VIEW_DEC): they live as long as its mapping. */
struct texts {
	struct series_view_texts **v;
	size_t n;
};

static struct series_view_texts *texts_add(struct texts *t, size_t nrows)
{
	t->v = xrealloc(t->v, (t->n + 1) * sizeof *t->v);
	return t->v[t->n++] = series_view_texts_new(nrows);
}

static void texts_free(struct texts *t)
{
	for (size_t i = 0; i < t->n; i++)
		series_view_texts_free(t->v[i]);
	free(t->v);
}

struct mapping {
	void *p;
	size_t size;
	struct texts texts;
};

static void mapping_release(void *p)
{
	struct mapping *m = p;
	texts_free(&m->texts);
	munmap(m->p, m->size);
	free(m);
}

/* run, read from the mapping p of size bytes, holds it and the texts
 * made for it: unmapped and freed when the run is freed. */
static void hold_mapping(struct run *run, void *p, size_t size, struct texts *t)
{
	struct mapping *m = xmalloc(sizeof *m);
	m->p = p;
	m->size = size;
	m->texts = *t;
	run_hold(run, m, mapping_release);
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

/* struct series_view's drop: the whole pages inside [p, p + len) of a
 * store's mapping (read-only, private: dropping them only means a
 * later read faults them in again from the page cache). */
static void drop_pages(const void *p, size_t len)
{
	long ps = sysconf(_SC_PAGESIZE);
	uintptr_t page = ps > 0 ? (uintptr_t)ps : 4096;
	uintptr_t from = ((uintptr_t)p + page - 1) / page * page, to = ((uintptr_t)p + len) / page * page;
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
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
			struct series_view_col *col, struct texts *t)
{
	uint64_t tag = c_u64(c), tags_off = c_u64(c), num_off = c_u64(c);
	uint64_t ends_width = c_u64(c), ends_off = c_u64(c), pool_off = c_u64(c);
	uint64_t pool_len = c_u64(c), own_off = c_u64(c), nown = c_u64(c), dec = c_u64(c);
	if (!c->bad && tag == (DATUM_NUMBER | SERIES_VIEW_DEC)) {
		/* numbers alone, their texts printed back when read */
		bool bad = tags_off || !num_off || ends_width || ends_off || pool_off || pool_len ||
			   own_off || nown || dec > 22;
		col->tag = (unsigned)tag;
		col->num = bad ? NULL : section(map, h, num_off, n, 8, &bad);
		col->dec = (unsigned)dec;
		if (!bad)
			col->texts = texts_add(t, n);
		return !bad;
	}
	bool bad = c->bad || tag > 15 || (ends_width != 4 && ends_width != 8) || dec != 0;
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
			struct cur *c, struct texts *t)
{
	char *name = c_str(c);
	uint64_t nc = c_u64(c), n = c_u64(c);
	struct series_view v = {0};
	v.dropped = (size_t)c_u64(c);
	v.first_dropped = (long)(int64_t)c_u64(c);
	/* a column takes at least 88 bytes of the directory, a row at
	 * least one of the file: counts past those are lies */
	bool ok = !c->bad && nc <= (uint64_t)(c->end - c->p) / 88 && n <= h->size &&
		  !run_series(run, name);
	char **cols = NULL;
	struct series_view_col *vc = NULL;
	if (ok) {
		cols = xcalloc(nc + 1, sizeof *cols);
		vc = xcalloc(nc + 1, sizeof *vc);
	}
	for (uint64_t j = 0; ok && j < nc; j++) {
		cols[j] = c_str(c);
		ok = !c->bad && read_column(map, h, c, (size_t)n, &vc[j], t);
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
		memcpy(v.origin, h->origin, sizeof v.origin);
		v.drop = drop_pages;
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

/* The run the directory describes, or NULL; *t: the texts its views
 * make (to be freed with the mapping). */
static struct run *read_directory(const unsigned char *map, const struct hdr *h, struct texts *t)
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
		if (!read_series(run, map, h, &c, t))
			c.bad = true;
	if (c.bad || c.p != c.end) {
		run_free(run);
		texts_free(t);
		*t = (struct texts){0};
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
	h.origin = map + H_KEY;
	struct texts t = {0};
	run = read_directory(map, &h, &t);
	if (!run)
		goto out;
	*verdict = RUNSTORE_OK;
	hold_mapping(run, p, size, &t);
	return run;
out:
	munmap(p, size);
	return NULL;
}

struct run *runstore_map_written(int fd, const struct cache_key *key,
				 const struct runstore_body *b)
{
	if (b->size < HEADER_SIZE || b->size > SIZE_MAX)
		return NULL;
	size_t size = (size_t)b->size;
	void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	struct hdr h = {.size = b->size, .dir_off = b->dir_off, .dir_size = b->dir_size,
			.origin = key->b};
	struct texts t = {0};
	struct run *run = read_directory(p, &h, &t);
	if (!run) {
		munmap(p, size);
		return NULL;
	}
	hold_mapping(run, p, size, &t);
	return run;
}
