/* scanstate.c: the scanner's state at a point of a log, written out and
 * read back, so that a log that only grew is scanned from that point on
 * (parser_run_resume(), logparse.c; docs/internals.md, "Appends").
 *
 * What is written is everything of struct scan that runs from line to
 * line: the lines counted, the hits, srun's labels, which acts are off,
 * each field's state (its matches, sum, count, a '*' field's names),
 * the run's series as they were at the point (names, columns, row
 * count: the rows themselves are the stored run's first ones), each
 * series' and table's rank de-duplication entries, the table being
 * read (its mode, ruler columns, types, fill_down values, a wrapped
 * row waiting for its rest), a row waiting for its `more` lines, and
 * the carried values; then what the caller keeps with it (the
 * derives' aggregates: derivecarry.c), as one length-prefixed blob.
 * What only lives within one line or one chunk (the matcher, literal
 * positions, scratch cells) is not.
 *
 * The state is read as untrusted bytes (a sealed cache file, but the
 * fuzz harness feeds it anything): every count is checked against the
 * bytes left, every index against the parser and the run, before the
 * scan is touched.  A state that does not fit is refused whole. */
#include <stdlib.h>
#include <string.h>

#include "scan.h"

#include "data/wire.h"

#define STATE_MAGIC "logdown-scanstate"
#define STATE_MAGIC_LEN 17
#define STATE_VERSION 2u

static void put_i64(struct buf *b, int64_t v)
{
	wire_put_u64(b, (uint64_t)v);
}

static void put_buf(struct buf *b, const struct buf *v)
{
	wire_put_bytes(b, buf_data(v), v->len);
}

static int by_row(const void *a, const void *b)
{
	const struct dent *x = a, *y = b;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* A de-duplication table's entries in row order (each row has one at
 * most): the same state is the same bytes, however the table grew. */
static void put_dedup(struct buf *b, const struct dedup *dd)
{
	struct dent *v = xcalloc(dd->n + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < dd->cap; i++)
		if (dd->v[i].rank && n < dd->n)
			v[n++] = dd->v[i];
	qsort(v, n, sizeof *v, by_row);
	wire_put_u64(b, n);
	for (size_t i = 0; i < n; i++) {
		wire_put_u64(b, v[i].hash);
		wire_put_u64(b, v[i].rank);
		wire_put_u64(b, v[i].row);
	}
	free(v);
}

/* The index of s among r's series, or -1. */
static int64_t series_index(const struct run *r, const struct series *s)
{
	for (size_t i = 0; s && i < run_series_count(r); i++)
		if (run_series_at(r, i) == s)
			return (int64_t)i;
	return -1;
}

void scan_state_save(const struct scan *sc, struct buf *out)
{
	const struct parser *p = sc->p;
	buf_put(out, STATE_MAGIC, STATE_MAGIC_LEN);
	wire_put_u64(out, STATE_VERSION);
	wire_put_bytes(out, p->name, strlen(p->name));
	wire_put_u64(out, p->nfields);
	wire_put_u64(out, p->nseries);
	wire_put_u64(out, p->ntables);
	wire_put_u64(out, sc->nacts);
	wire_put_u64(out, p->ncarry_cols);
	put_i64(out, sc->nl);
	wire_put_u64(out, sc->hits);
	wire_put_u64(out, sc->srun_labels);
	for (size_t i = 0; i < sc->nacts; i++)
		wire_put_u64(out, sc->acts[i].off);
	for (size_t i = 0; i < p->nfields; i++) {
		const struct fstate *fs = &sc->fs[i];
		wire_put_u64(out, fs->found);
		put_i64(out, fs->line);
		put_buf(out, &fs->text);
		wire_put_u64(out, fs->count);
		wire_put_f64(out, fs->sum);
		put_i64(out, fs->first_line);
		put_i64(out, fs->bad_line);
		put_buf(out, &fs->bad);
		wire_put_u64(out, fs->nnames);
		for (size_t k = 0; k < fs->nnames; k++) {
			wire_put_bytes(out, fs->names[k].name, strlen(fs->names[k].name));
			put_buf(out, &fs->names[k].text);
			put_i64(out, fs->names[k].line);
		}
	}
	/* The run's series as they are now, in the run's order. */
	wire_put_u64(out, run_series_count(sc->r));
	for (size_t i = 0; i < run_series_count(sc->r); i++) {
		const struct series *s = run_series_at(sc->r, i);
		wire_put_bytes(out, series_name(s), strlen(series_name(s)));
		wire_put_u64(out, series_column_count(s));
		for (size_t j = 0; j < series_column_count(s); j++)
			wire_put_bytes(out, series_column(s, j), strlen(series_column(s, j)));
		wire_put_u64(out, series_row_count(s));
	}
	for (size_t i = 0; i < p->nseries; i++) {
		const struct sstate *st = &sc->ss[i];
		put_i64(out, series_index(sc->r, st->s));
		put_dedup(out, &st->dd);
		put_i64(out, st->first_line);
		wire_put_u64(out, st->shared_warned);
		for (size_t j = 0; j < p->series[i].ncols; j++) {
			wire_put_u64(out, st->warned[j]);
			put_i64(out, st->warn_line[j]);
			const char *t = st->warn_text[j];
			wire_put_bytes(out, t ? t : "", t ? strlen(t) : 0);
		}
	}
	for (size_t i = 0; i < p->ntables; i++) {
		const struct tstate *ts = &sc->ts[i];
		put_i64(out, series_index(sc->r, ts->s));
		put_dedup(out, &ts->dd);
		wire_put_u64(out, ts->found);
		wire_put_u64(out, ts->clash_warned);
		wire_put_u64(out, ts->types_checked);
		wire_put_u64(out, ts->fill_checked);
		wire_put_bytes(out, (const char *)ts->warned, ts->warned ? ts->nwarned : 0);
		wire_put_u64(out, ts->warned != NULL);
		put_i64(out, ts->header_line);
	}
	const struct tcur *tc = &sc->tc;
	put_i64(out, tc->table);
	wire_put_u64(out, (uint64_t)tc->mode);
	put_i64(out, tc->seek_left);
	wire_put_u64(out, tc->after_header);
	wire_put_u64(out, tc->ext ? tc->next : 0);
	for (size_t j = 0; tc->ext && j < tc->next; j++)
		wire_put_u64(out, tc->ext[j]);
	wire_put_u64(out, tc->ncols);
	/* a table's types: its columns and the carried ones after them */
	size_t ntypes = tc->types && tc->table >= 0 && sc->ts[tc->table].s
				? series_column_count(sc->ts[tc->table].s)
				: 0;
	wire_put_u64(out, tc->types != NULL);
	wire_put_u64(out, ntypes);
	for (size_t j = 0; j < ntypes; j++)
		wire_put_u64(out, (uint64_t)tc->types[j]);
	wire_put_u64(out, tc->nfill);
	for (size_t k = 0; k < tc->nfill; k++) {
		wire_put_u64(out, tc->fill[k]);
		put_buf(out, &tc->fill_prev[k]);
	}
	wire_put_u64(out, tc->ncarried);
	for (size_t k = 0; k < tc->ncarried; k++)
		wire_put_u64(out, tc->carried[k]);
	wire_put_u64(out, tc->bordered);
	wire_put_u64(out, tc->quoted);
	wire_put_u64(out, tc->head_open);
	wire_put_u64(out, tc->row_open);
	wire_put_u64(out, tc->ruled);
	put_buf(out, &tc->pend);
	put_i64(out, tc->pend_line);
	wire_put_u64(out, tc->pend_ranked);
	/* a rank is only a rank when the line had one (else whatever the
	 * line left there) */
	wire_put_u64(out, tc->pend_ranked ? tc->pend_rank : 0);
	const struct more *m = &sc->more;
	wire_put_u64(out, m->on);
	wire_put_u64(out, m->series);
	put_i64(out, m->line);
	wire_put_u64(out, m->ranked);
	wire_put_u64(out, m->ranked ? m->rank : 0);
	wire_put_u64(out, m->taken);
	wire_put_u64(out, m->until_failed);
	wire_put_u64(out, m->ncells);
	for (size_t j = 0; j < m->ncells; j++)
		put_buf(out, &m->cells[j]);
	for (size_t k = 0; k < p->ncarry_cols; k++)
		put_buf(out, &sc->carry[k]);
	/* split: its lines read so far, and the fields they set (the only
	 * fields a run has before the file is read) */
	wire_put_u64(out, sc->splits);
	wire_put_u64(out, sc->split_mark);
	wire_put_u64(out, sc->split_name != NULL);
	wire_put_bytes(out, sc->split_name ? sc->split_name : "",
		  sc->split_name ? strlen(sc->split_name) : 0);
	wire_put_u64(out, run_field_count(sc->r));
	for (size_t i = 0; i < run_field_count(sc->r); i++) {
		const char *name = run_field_name(sc->r, i);
		const struct datum *d = run_field_at(sc->r, i);
		const char *inputs = run_field_inputs(sc->r, name);
		wire_put_bytes(out, name, strlen(name));
		wire_put_u64(out, (uint64_t)d->kind);
		wire_put_f64(out, d->num);
		wire_put_u64(out, d->text != NULL);
		wire_put_bytes(out, d->text ? d->text : "", d->text ? d->len : 0);
		put_i64(out, d->line);
		wire_put_u64(out, inputs != NULL);
		wire_put_bytes(out, inputs ? inputs : "", inputs ? strlen(inputs) : 0);
	}
	struct buf more = BUF_INIT;
	if (sc->state_more)
		sc->state_more(sc->state_ctx, &more);
	wire_put_bytes(out, buf_data(&more), more.len);
	buf_free(&more);
}

/* --- reading --- */

static int64_t get_i64(struct wire_rd *r)
{
	return (int64_t)wire_u64(r);
}

static bool get_bool(struct wire_rd *r)
{
	uint64_t v = wire_u64(r);
	if (v > 1)
		r->bad = true;
	return v == 1;
}

static void get_buf(struct wire_rd *r, struct buf *b)
{
	struct span s = wire_span(r);
	buf_clear(b);
	if (s.len)
		buf_put(b, s.p, s.len);
}

/* Rank de-duplication entries of a series of nrows rows. */
static void get_dedup(struct wire_rd *r, struct dedup *dd, size_t nrows)
{
	size_t n = wire_count(r, 24);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct dent e;
		e.hash = wire_u64(r);
		e.rank = wire_u64(r);
		uint64_t row = wire_u64(r);
		if (r->bad || !e.rank || row >= nrows) {
			r->bad = true;
			return;
		}
		e.row = (size_t)row;
		dedup_insert(dd, e);
	}
}

/* A series index of the state: -1 or one of the run's n; *rows its row
 * count. */
static struct series *get_series(struct wire_rd *r, struct run *run, size_t n)
{
	int64_t k = get_i64(r);
	if (k < -1 || k >= (int64_t)n) {
		r->bad = true;
		return NULL;
	}
	return k < 0 ? NULL : run_series_at(run, (size_t)k);
}

/* The run's series as the state lists them: those scan_init() made
 * must come first, as made; the others (tables', shared ones) are
 * added; each takes its first rows from prev's series of its name. */
static void get_run_series(struct wire_rd *r, struct scan *sc, const struct run *prev)
{
	size_t made = run_series_count(sc->r);
	size_t n = wire_count(r, 24);
	if (n < made)
		r->bad = true;
	for (size_t i = 0; i < n && !r->bad; i++) {
		char *name = wire_str(r);
		size_t ncols = wire_count(r, 8);
		char **cols = xcalloc(ncols + 1, sizeof *cols);
		for (size_t j = 0; j < ncols; j++)
			cols[j] = wire_str(r);
		uint64_t nrows = wire_u64(r);
		struct series *s = NULL;
		if (r->bad) {
			/* nothing */
		} else if (i < made) {
			s = run_series_at(sc->r, i);
			bool same = strcmp(series_name(s), name) == 0 && series_column_count(s) == ncols;
			for (size_t j = 0; same && j < ncols; j++)
				same = strcmp(series_column(s, j), cols[j]) == 0;
			if (!same)
				s = NULL;
		} else if (!run_series(sc->r, name)) {
			s = run_add_series(sc->r, name, (const char *const *)cols, ncols);
		}
		const struct series *from = s ? run_series(prev, name) : NULL;
		if (!from || series_column_count(from) != ncols || series_row_count(from) < nrows ||
		    series_row_count(s) != 0) {
			r->bad = true;
		} else if (nrows && !series_take_view(s, from, nrows)) {
			/* The rows as the stored run keeps them: read where
			 * they lie when it is mapped, else copied (cells, their
			 * own lines, whether each is a number's shortest text). */
			struct datum *cells = xcalloc(ncols + 1, sizeof *cells);
			for (size_t row = 0; row < nrows; row++) {
				uint64_t shortest = series_row_shortest(from, row, cells);
				series_append_shortest(s, cells, series_row_line(from, row), shortest);
			}
			free(cells);
		}
		for (size_t j = 0; j < ncols; j++)
			free(cols[j]);
		free(cols);
		free(name);
	}
}

bool scan_state_load(struct scan *sc, const void *data, size_t len, const struct run *prev)
{
	const struct parser *p = sc->p;
	struct wire_rd rr = {data, (const char *)data + len, false};
	struct wire_rd *r = &rr;
	if (len < STATE_MAGIC_LEN || memcmp(data, STATE_MAGIC, STATE_MAGIC_LEN) != 0)
		return false;
	r->p += STATE_MAGIC_LEN;
	if (wire_u64(r) != STATE_VERSION)
		return false;
	struct span pname = wire_span(r);
	if (r->bad || pname.len != strlen(p->name) || memcmp(pname.p, p->name, pname.len) != 0)
		return false;
	if (wire_u64(r) != p->nfields || wire_u64(r) != p->nseries || wire_u64(r) != p->ntables ||
	    wire_u64(r) != sc->nacts || wire_u64(r) != p->ncarry_cols || r->bad)
		return false;
	int64_t nl = get_i64(r);
	if (nl < 0)
		return false;
	sc->nl = (long)nl;
	sc->hits = (size_t)wire_u64(r);
	sc->srun_labels = get_bool(r);
	for (size_t i = 0; i < sc->nacts; i++)
		sc->acts[i].off = get_bool(r);
	for (size_t i = 0; i < p->nfields && !r->bad; i++) {
		struct fstate *fs = &sc->fs[i];
		fs->found = get_bool(r);
		fs->line = (long)get_i64(r);
		get_buf(r, &fs->text);
		fs->count = (size_t)wire_u64(r);
		fs->sum = wire_f64(r);
		fs->first_line = (long)get_i64(r);
		fs->bad_line = (long)get_i64(r);
		get_buf(r, &fs->bad);
		size_t nnames = wire_count(r, 24);
		for (size_t k = 0; k < nnames && !r->bad; k++) {
			struct span name = wire_span(r);
			bool fresh = false;
			struct named *e = r->bad || !name.len || memchr(name.p, '\0', name.len)
						  ? NULL
						  : named_get(fs, name.p, name.len, &fresh);
			if (!e || !fresh) {
				r->bad = true;
				break;
			}
			get_buf(r, &e->text);
			e->line = (long)get_i64(r);
		}
	}
	if (!r->bad)
		get_run_series(r, sc, prev);
	size_t nrun = run_series_count(sc->r);
	for (size_t i = 0; i < p->nseries && !r->bad; i++) {
		struct sstate *st = &sc->ss[i];
		struct series *s = get_series(r, sc->r, nrun);
		/* scan_init() made it, or it is made at its first row */
		if (r->bad || (st->s && st->s != s) ||
		    (s && (strcmp(series_name(s), p->series[i].name) != 0 ||
			   series_column_count(s) != p->series[i].ncols))) {
			r->bad = true;
			break;
		}
		st->s = s;
		get_dedup(r, &st->dd, s ? series_row_count(s) : 0);
		st->first_line = (long)get_i64(r);
		st->shared_warned = get_bool(r);
		for (size_t j = 0; j < p->series[i].ncols && !r->bad; j++) {
			uint64_t w = wire_u64(r);
			if (w > TYPED_NOT_STYLE)
				r->bad = true;
			st->warned[j] = (unsigned char)w;
			st->warn_line[j] = (long)get_i64(r);
			char *t = wire_str(r);
			if (w)
				st->warn_text[j] = t;
			else
				free(t);
		}
	}
	for (size_t i = 0; i < p->ntables && !r->bad; i++) {
		struct tstate *ts = &sc->ts[i];
		struct series *s = get_series(r, sc->r, nrun);
		if (s && strcmp(series_name(s), p->tables[i].name) != 0)
			r->bad = true;
		ts->s = s;
		get_dedup(r, &ts->dd, s ? series_row_count(s) : 0);
		ts->found = get_bool(r);
		ts->clash_warned = get_bool(r);
		ts->types_checked = get_bool(r);
		ts->fill_checked = get_bool(r);
		struct span w = wire_span(r);
		bool has = get_bool(r);
		if (has && !r->bad) {
			ts->warned = xcalloc(w.len + 1, 1);
			memcpy(ts->warned, w.p, w.len);
			ts->nwarned = w.len;
		} else if (w.len) {
			r->bad = true;
		}
		ts->header_line = (long)get_i64(r);
	}
	if (r->bad)
		return false;
	struct tcur *tc = &sc->tc;
	int64_t table = get_i64(r);
	uint64_t mode = wire_u64(r);
	if (table < -1 || table >= (int64_t)p->ntables || mode > TM_DELIM)
		return false;
	tc->table = (long)table;
	tc->mode = (enum table_mode)mode;
	tc->seek_left = (int)get_i64(r);
	tc->after_header = get_bool(r);
	size_t next = wire_count(r, 8);
	if (next && !r->bad) {
		tc->ext = xcalloc(next + 1, sizeof *tc->ext);
		for (size_t j = 0; j < next; j++)
			tc->ext[j] = (size_t)wire_u64(r);
		tc->next = next;
	}
	tc->ncols = (size_t)wire_u64(r);
	bool has_types = get_bool(r);
	size_t ntypes = wire_count(r, 8);
	/* A table being read has its series, its cells and carried ones. */
	const struct series *ts_s = tc->table >= 0 ? sc->ts[tc->table].s : NULL;
	if (r->bad || (!has_types && ntypes) ||
	    (has_types && (!ts_s || ntypes != series_column_count(ts_s))))
		return false;
	if (has_types) {
		tc->types = xcalloc(ntypes + 1, sizeof *tc->types);
		for (size_t j = 0; j < ntypes; j++) {
			uint64_t t = wire_u64(r);
			if (t > VT_DURATION_NS)
				return false;
			tc->types[j] = (enum vtype)t;
		}
	}
	size_t nfill = wire_count(r, 16);
	if (nfill && !r->bad) {
		tc->fill = xcalloc(nfill + 1, sizeof *tc->fill);
		tc->fill_prev = xcalloc(nfill + 1, sizeof *tc->fill_prev);
		tc->nfill = nfill;
		for (size_t k = 0; k < nfill; k++) {
			uint64_t j = wire_u64(r);
			if (j >= tc->ncols)
				r->bad = true;
			tc->fill[k] = (size_t)j;
			tc->fill_prev[k] = (struct buf)BUF_INIT;
			get_buf(r, &tc->fill_prev[k]);
		}
	}
	size_t ncarried = wire_count(r, 8);
	if (ncarried && !r->bad) {
		tc->carried = xcalloc(ncarried + 1, sizeof *tc->carried);
		tc->ncarried = ncarried;
		for (size_t k = 0; k < ncarried; k++) {
			uint64_t j = wire_u64(r);
			if (j >= p->ncarry_cols)
				r->bad = true;
			tc->carried[k] = (size_t)j;
		}
	}
	tc->bordered = get_bool(r);
	tc->quoted = get_bool(r);
	tc->head_open = get_bool(r);
	tc->row_open = get_bool(r);
	tc->ruled = get_bool(r);
	/* A table whose rows are being read (not a title line's table
	 * looking for its header, nor a header waiting for its wrapped
	 * rest) has its series, of its cells and carried ones. */
	bool rows = tc->table >= 0 && tc->mode != TM_SEEK && !tc->head_open;
	if (r->bad || (rows && (!ts_s || tc->ncols + tc->ncarried != series_column_count(ts_s))))
		return false;
	/* A row is open only on a bordered |-table's rows (bordered_line()):
	 * one open anywhere else would be dropped into no table. */
	if (tc->row_open && !(rows && tc->mode == TM_PIPE && tc->bordered))
		return false;
	/* Otherwise what a table's header sets is not set yet (table_end()
	 * cleared it): table_header() starts from nothing. */
	if (!rows && (tc->next || tc->types || tc->nfill || tc->ncarried))
		return false;
	get_buf(r, &tc->pend);
	tc->pend_line = (long)get_i64(r);
	tc->pend_ranked = get_bool(r);
	tc->pend_rank = wire_u64(r);
	struct more *m = &sc->more;
	m->on = get_bool(r);
	uint64_t ms = wire_u64(r);
	m->line = (long)get_i64(r);
	m->ranked = get_bool(r);
	m->rank = wire_u64(r);
	m->taken = (size_t)wire_u64(r);
	m->until_failed = get_bool(r);
	size_t ncells = wire_count(r, 8);
	if (r->bad || (m->on && (ms >= p->nseries || p->series[ms].more_col < 0 ||
				 ncells < p->series[ms].ncols || !sc->ss[ms].s)))
		return false;
	m->series = (size_t)ms;
	if (ncells) {
		m->cells = xcalloc(ncells, sizeof *m->cells);
		m->ncells = ncells;
		for (size_t j = 0; j < ncells; j++) {
			m->cells[j] = (struct buf)BUF_INIT;
			get_buf(r, &m->cells[j]);
		}
	}
	for (size_t k = 0; k < p->ncarry_cols; k++)
		get_buf(r, &sc->carry[k]);
	sc->splits = (size_t)wire_u64(r);
	sc->split_mark = (size_t)wire_u64(r);
	bool named = get_bool(r);
	char *split_name = wire_str(r);
	if (named && !r->bad)
		sc->split_name = split_name;
	else
		free(split_name);
	size_t nfields = wire_count(r, 56);
	for (size_t i = 0; i < nfields && !r->bad; i++) {
		char *name = wire_str(r);
		uint64_t kind = wire_u64(r);
		struct datum d = {DATUM_MISSING, 0, NULL, 0, 0};
		d.num = wire_f64(r);
		bool has_text = get_bool(r);
		struct span t = wire_span(r);
		d.line = (long)get_i64(r);
		bool has_inputs = get_bool(r);
		char *inputs = wire_str(r);
		if (kind > DATUM_STRING || !*name)
			r->bad = true;
		if (!r->bad) {
			d.kind = (enum datum_kind)kind;
			d.text = has_text ? t.p : NULL;
			d.len = has_text ? t.len : 0;
			run_set_field(sc->r, name, &d);
			if (has_inputs)
				run_set_field_inputs(sc->r, name, inputs);
		}
		free(name);
		free(inputs);
	}
	sc->state_more_in = wire_span(r);
	if (r->bad || r->p != r->end)
		return false;
	update_every_line(sc);
	return true;
}
