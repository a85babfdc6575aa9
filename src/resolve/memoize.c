/* memoize.c: values and charts through the report's memo (memoize.h).
 *
 * A value's entry: the runs it marked used (their indexes in the
 * scope), the keys of the aggregates it carried (below), then the
 * struct eval it gave, its texts copied: kind, number, boolean, text,
 * the file it came from (by name: on a hit it points to the scope's
 * run of that file again, or the entry is not used), line, inputs,
 * decimals, why.
 *
 * An aggregate carried over appends: a value's key holds its runs'
 * content, so a log that grew misses it, and mean(cs.train.rate) read
 * every row of the grown run again (7.1 million for the 1 GB log).  The
 * grown run's first rows are a stored run's, read in place (a series
 * view, whose origin is that store's key), and folding rows 0..n then
 * n..N is the loop over 0..N.  So an aggregate that reads every row
 * (min, max, count, sum, mean) of a column whose first rows are a
 * store's is kept under that store's key, the series', the column's and
 * the function's (not the report's: the store's rows are what it
 * covers), as struct expr_agg at the rows the store has, and a later
 * evaluation folds on from it; the value is then evaluated with
 * scope.streamed giving it.  A value's entry lists the aggregates it
 * carried, so that a hit keeps them for the next append.  A chart's: the runs and sets it marked
 * used, its digest (what the manifest records), and each figure file
 * written, by extension. */
#include "memoize.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/memo.h"

/* Whether diagnostics were reported since `before` (notes aside). */
static size_t diag_count(struct diag *d)
{
	return diag_errors(d) + diag_warnings(d);
}

/* The indexes of the marks set in used[0..n), then of none past. */
static void put_marks(struct buf *b, const bool *used, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; used && i < n; i++)
		k += used[i];
	wire_put_u64(b, k);
	for (size_t i = 0; used && i < n; i++)
		if (used[i])
			wire_put_u64(b, i);
}

/* Reads put_marks()'s indexes and sets them in used[0..n) (kept in
 * `set` first: nothing is marked from an entry that turns out bad). */
static size_t *read_marks(struct wire_rd *r, size_t n, size_t *k)
{
	uint64_t count = wire_u64(r);
	*k = 0;
	if (r->bad || count > n) {
		r->bad = true;
		return NULL;
	}
	size_t *at = xmalloc((size_t)(count ? count : 1) * sizeof *at);
	for (uint64_t i = 0; i < count; i++) {
		uint64_t v = wire_u64(r);
		if (r->bad || v >= n) {
			r->bad = true;
			break;
		}
		at[(*k)++] = (size_t)v;
	}
	return at;
}

static void set_marks(bool *used, const size_t *at, size_t k)
{
	for (size_t i = 0; used && i < k; i++)
		used[at[i]] = true;
}

/* --- aggregates carried over appends --- */

struct carried_agg {
	const struct series *s;
	size_t col;
	int fn;
	struct cache_key key;
	struct expr_agg a;
};

/* An evaluation's carried aggregates (scope.streamed_ctx). */
struct carry_ctx {
	struct memo *memo;
	struct carried_agg **v;
	size_t n;
};

static bool has_origin(const struct series_view *v)
{
	for (size_t i = 0; i < sizeof v->origin; i++)
		if (v->origin[i])
			return true;
	return false;
}

static void fold_rows(struct expr_agg *a, const struct series *s, size_t col, size_t to)
{
	struct datum dt;
	/* eval_aggregate()'s steps, row after row */
	for (size_t r = a->rows; r < to; r++) {
		int dec;
		bool shortest = series_cell_number(s, r, col, &dt, &dec);
		expr_agg_add(a, &dt, shortest, dec);
	}
}

/* scope.streamed: fn of column col of s folded on from what the memo
 * kept of the rows s reads from a store, or NULL (the evaluator loops). */
static const struct expr_agg *carried(const void *ctx, const struct series *s, size_t col, int fn)
{
	struct carry_ctx *cc = (struct carry_ctx *)ctx;
	const struct series_view *v = series_view_of(s);
	if (!expr_agg_reads_all(fn) || !v || !v->nrows || !has_origin(v))
		return NULL;
	for (size_t k = 0; k < cc->n; k++)
		if (cc->v[k]->s == s && cc->v[k]->col == col && cc->v[k]->fn == fn)
			return &cc->v[k]->a;
	struct carried_agg *h = xcalloc(1, sizeof *h);
	h->s = s;
	h->col = col;
	h->fn = fn;
	struct cache_hasher *kh = cache_hasher_new();
	cache_hasher_str(kh, "aggregate");
	cache_hasher_bytes(kh, v->origin, sizeof v->origin);
	cache_hasher_str(kh, series_name(s));
	cache_hasher_str(kh, series_column(s, col));
	int64_t f = fn;
	cache_hasher_bytes(kh, &f, sizeof f);
	h->key = cache_hasher_end(kh);
	expr_agg_init(&h->a, fn);
	size_t base = v->nrows;
	bool kept = false;
	struct span got;
	if (memo_get(cc->memo, &h->key, &got)) {
		struct wire_rd r = {got.p, got.p + got.len, false};
		expr_agg_load(&h->a, &r, base);
		if (r.bad || r.p != r.end) {
			expr_agg_free(&h->a);
			expr_agg_init(&h->a, fn);
		}
		kept = h->a.rows == base;
	}
	struct span note;
	if (!kept && h->a.rows == 0 && series_fold_get(s, col, fn, base, &note)) {
		/* The store was written by this build's parse, which folded
		 * the same aggregate of the same rows for a derive: the
		 * loop's state at row base, not folded again. */
		struct wire_rd r = {note.p, note.p + note.len, false};
		expr_agg_load(&h->a, &r, base);
		if (r.bad || r.p != r.end || h->a.rows != base) {
			expr_agg_free(&h->a);
			expr_agg_init(&h->a, fn);
		}
	}
	fold_rows(&h->a, s, col, base);
	if (!kept) {
		struct buf b = BUF_INIT;
		expr_agg_save(&h->a, &b);
		memo_put(cc->memo, &h->key, b.data, b.len);
		buf_free(&b);
	}
	fold_rows(&h->a, s, col, series_row_count(s));
	cc->v = xrealloc(cc->v, (cc->n + 1) * sizeof *cc->v);
	cc->v[cc->n++] = h;
	return &h->a;
}

/* A cell picked by a carried min or max lends out its text from the
 * aggregate: out keeps a copy of its own, as the aggregates go. */
static void own_text(struct eval *out, const struct carry_ctx *cc)
{
	for (size_t k = 0; out->text && out->text != out->owned && k < cc->n; k++) {
		const struct buf *b = &cc->v[k]->a.pick_text;
		if (!b->data || out->text < b->data || out->text > b->data + b->len)
			continue;
		char *copy = xmalloc(out->len + 1);
		memcpy(copy, out->text, out->len);
		copy[out->len] = '\0';
		free(out->owned);
		out->owned = copy;
		out->text = copy;
	}
}

static void carry_free(struct carry_ctx *cc)
{
	for (size_t k = 0; k < cc->n; k++) {
		expr_agg_free(&cc->v[k]->a);
		free(cc->v[k]);
	}
	free(cc->v);
}

/* The key of the report's memo_key with what follows. */
static struct cache_hasher *key_start(const struct directive_ctx *c, const char *what)
{
	struct cache_hasher *h = cache_hasher_new();
	cache_hasher_str(h, what);
	cache_hasher_key(h, &c->memo_key);
	return h;
}

/* Is the memo on for c's report? */
static bool memo_on(const struct directive_ctx *c)
{
	return c->memo && c->scope && c->scope->nfailed == 0;
}

/* --- values --- */

/* The scope's run (or member run) whose file is file; NULL if none. */
static const char *scope_file(const struct scope *sc, const char *file)
{
	/* a table's row first: it may be a run set's member */
	if (sc->run && strcmp(run_file(sc->run), file) == 0)
		return run_file(sc->run);
	for (size_t i = 0; i < sc->nruns; i++) {
		const struct run *r = sc->runs[i];
		if (strcmp(run_file(r), file) == 0)
			return run_file(r);
		for (size_t j = 0; j < run_member_count(r); j++)
			if (strcmp(run_file(run_member_at(r, j)), file) == 0)
				return run_file(run_member_at(r, j));
	}
	return NULL;
}

static void put_eval(struct buf *b, const struct eval *v)
{
	wire_put_u64(b, (uint64_t)v->kind);
	wire_put_f64(b, v->num);
	wire_put_u64(b, v->boolean);
	wire_put_u64(b, v->text != NULL);
	wire_put_bytes(b, v->text ? v->text : "", v->text ? v->len : 0);
	memo_put_str(b, v->file);
	wire_put_u64(b, (uint64_t)v->line);
	memo_put_str(b, v->inputs);
	wire_put_u64(b, v->dec_known);
	wire_put_u64(b, (uint64_t)(int64_t)v->dec);
	memo_put_str(b, v->why);
}

/* The eval an entry holds into *out (owning its texts); false when it
 * is not one put_eval() wrote, or its file is no run's of sc. */
static bool read_eval(struct wire_rd *r, const struct scope *sc, struct eval *out)
{
	memset(out, 0, sizeof *out);
	uint64_t kind = wire_u64(r);
	out->num = wire_f64(r);
	out->boolean = wire_u64(r) != 0;
	bool has_text = wire_u64(r) != 0;
	struct span text = wire_span(r);
	char *file = memo_rd_str(r);
	out->line = (long)(int64_t)wire_u64(r);
	out->inputs = memo_rd_str(r);
	out->dec_known = wire_u64(r) != 0;
	int64_t dec = (int64_t)wire_u64(r);
	out->why = memo_rd_str(r);
	if (kind == EVAL_LIST || kind > EVAL_BOOL || dec < -1000 || dec > 1000)
		r->bad = true;
	out->file = file && !r->bad ? scope_file(sc, file) : NULL;
	if (file && !out->file)
		r->bad = true;
	free(file);
	if (r->bad || r->p != r->end) {
		eval_clear(out);
		return false;
	}
	out->kind = (enum eval_kind)kind;
	out->dec = (int)dec;
	if (has_text) {
		out->owned = xmalloc(text.len + 1);
		memcpy(out->owned, text.p, text.len);
		out->owned[text.len] = '\0';
		out->text = out->owned;
		out->len = text.len;
	}
	return true;
}

/* Where sc's run (a table's row) is among c's runs, into place: none
 * (no row), the i-th run, the j-th member of the i-th run, or the k-th
 * run of the s-th set.  The report's key holds the front matter and
 * every run's inputs, so a place is the same run while the key is the
 * same.  False when it is none of them. */
static bool row_place(const struct directive_ctx *c, const struct scope *sc, uint64_t place[3])
{
	const struct run *r = sc->run;
	place[0] = place[1] = place[2] = 0;
	if (!r)
		return true;
	for (size_t i = 0; i < sc->nruns; i++) {
		if (sc->runs[i] == r) {
			place[0] = 1;
			place[1] = i;
			return true;
		}
		for (size_t j = 0; j < run_member_count(sc->runs[i]); j++)
			if (run_member_at(sc->runs[i], j) == r) {
				place[0] = 2;
				place[1] = i;
				place[2] = j;
				return true;
			}
	}
	for (size_t s = 0; s < c->nsets; s++)
		for (size_t k = 0; k < c->set_counts[s]; k++)
			if (c->set_runs[s][k] == r) {
				place[0] = 3;
				place[1] = s;
				place[2] = k;
				return true;
			}
	return false;
}

bool memoize_eval_one(struct directive_ctx *c, const struct expr *e, const char *src,
		      size_t len, struct eval *out)
{
	return memoize_eval_in(c, c->scope, e, src, len, out);
}

bool memoize_eval_in(const struct directive_ctx *c, const struct scope *sc, const struct expr *e,
		     const char *src, size_t len, struct eval *out)
{
	/* A series' rows are each cheap and may be millions: not kept. */
	uint64_t place[3];
	if (!memo_on(c) || expr_is_reference(e) || sc->series || !row_place(c, sc, place))
		return expr_eval_one(e, sc, out, c->d);
	struct cache_hasher *h = key_start(c, "value");
	cache_hasher_bytes(h, src, len);
	cache_hasher_bytes(h, place, sizeof place);
	struct cache_key key = cache_hasher_end(h);
	struct span got;
	if (memo_get(c->memo, &key, &got)) {
		struct wire_rd r = {got.p, got.p + got.len, false};
		size_t k;
		size_t *at = read_marks(&r, sc->runs_used ? sc->nruns : 0, &k);
		/* the aggregates it carried: kept for the next append */
		size_t nagg = wire_count(&r, 24);
		struct wire_rd aggs = r;
		for (size_t i = 0; i < nagg; i++)
			if (wire_span(&r).len != sizeof key.b)
				r.bad = true;
		if (read_eval(&r, sc, out)) {
			set_marks(sc->runs_used, at, k);
			free(at);
			for (size_t i = 0; i < nagg; i++) {
				struct span ks = wire_span(&aggs);
				struct cache_key ak;
				memcpy(ak.b, ks.p, sizeof ak.b);
				struct span unused;
				memo_get(c->memo, &ak, &unused);
			}
			return true;
		}
		free(at);
	}
	/* evaluated with marks of its own, to know which runs it used */
	struct scope mine = *sc;
	mine.runs_used = sc->runs_used ? xcalloc(sc->nruns + 1, sizeof *mine.runs_used) : NULL;
	struct carry_ctx cc = {c->memo, NULL, 0};
	if (!mine.streamed) {
		mine.streamed = carried;
		mine.streamed_ctx = &cc;
	}
	size_t before = diag_count(c->d);
	bool ok = expr_eval_one(e, &mine, out, c->d);
	for (size_t i = 0; mine.runs_used && i < sc->nruns; i++)
		sc->runs_used[i] = sc->runs_used[i] || mine.runs_used[i];
	if (ok && diag_count(c->d) == before && out->kind != EVAL_LIST) {
		struct buf b = BUF_INIT;
		put_marks(&b, mine.runs_used, sc->nruns);
		wire_put_u64(&b, cc.n);
		for (size_t i = 0; i < cc.n; i++)
			wire_put_bytes(&b, cc.v[i]->key.b, sizeof cc.v[i]->key.b);
		put_eval(&b, out);
		memo_put(c->memo, &key, b.data, b.len);
		buf_free(&b);
	}
	own_text(out, &cc);
	carry_free(&cc);
	free(mine.runs_used);
	return ok;
}

/* --- charts --- */

/* Adds what a chart's body says to h: each node's kind and contents,
 * keys in their order (their places are left out: a result that gave
 * a diagnostic is not kept). */
static void hash_value(struct cache_hasher *h, const struct value *v)
{
	unsigned char kind = (unsigned char)v->kind;
	cache_hasher_bytes(h, &kind, 1);
	switch (v->kind) {
	case VALUE_NULL:
		break;
	case VALUE_BOOL:
		cache_hasher_bytes(h, v->boolean ? "1" : "0", 1);
		break;
	case VALUE_NUMBER:
		/* and its text as written, when it has one */
		cache_hasher_bytes(h, &v->number, sizeof v->number);
		/* fall through */
	case VALUE_STRING:
		cache_hasher_bytes(h, &v->plain, 1);
		cache_hasher_bytes(h, v->text ? v->text : "", v->text ? v->len : 0);
		break;
	case VALUE_LIST:
	case VALUE_MAP: {
		uint64_t n = v->count;
		cache_hasher_bytes(h, &n, sizeof n);
		for (size_t i = 0; i < v->count; i++) {
			if (v->kind == VALUE_MAP)
				cache_hasher_str(h, v->keys[i]);
			hash_value(h, v->items[i]);
		}
		break;
	}
	}
}

void chartcarry_start(struct chart_carries *cs, struct directive_ctx *c,
		      const struct value *body)
{
	memset(cs, 0, sizeof *cs);
	if (!memo_on(c) || !c->memo_charts || !c->write_figure)
		return;
	cs->memo = c->memo;
	/* not the report's key: the log's content is in it */
	struct cache_hasher *h = cache_hasher_new();
	cache_hasher_str(h, "chart body");
	uint32_t formats = c->figure_formats;
	cache_hasher_bytes(h, &formats, sizeof formats);
	hash_value(h, body);
	cs->body = cache_hasher_end(h);
}

static bool tap_figure(void *ctx, const char *name, const char *ext, const char *data,
		       size_t len)
{
	struct memoize_chart *m = ctx;
	memo_put_str(&m->figures, ext);
	wire_put_bytes(&m->figures, data, len);
	m->nfigures++;
	return m->write_figure(m->figure_ctx, name, ext, data, len);
}

/* A chart entry's figures written as name through c: false when the
 * entry is bad (nothing written) or a write failed (*io set). */
static bool write_figures(struct directive_ctx *c, struct wire_rd *r, const char *name,
			  bool *io)
{
	uint64_t n = wire_u64(r);
	struct wire_rd all = *r;
	/* checked whole first: a bad entry writes nothing */
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		free(memo_rd_str(r));
		wire_span(r);
	}
	if (r->bad || r->p != r->end || n > 16)
		return false;
	for (uint64_t i = 0; i < n; i++) {
		char *ext = memo_rd_str(&all);
		struct span data = wire_span(&all);
		bool ok = ext && c->write_figure(c->figure_ctx, name, ext, data.p, data.len);
		free(ext);
		if (!ok) {
			*io = true;
			return false;
		}
	}
	return true;
}

bool memoize_chart_get(struct directive_ctx *c, const struct value *body, const char *name,
		       struct directive_result *out, struct memoize_chart *m, bool *ok)
{
	memset(m, 0, sizeof *m);
	if (!memo_on(c) || !c->memo_charts || !c->write_figure)
		return false;
	const struct scope *sc = c->scope;
	struct cache_hasher *h = key_start(c, "chart");
	uint32_t formats = c->figure_formats;
	cache_hasher_bytes(h, &formats, sizeof formats);
	hash_value(h, body);
	m->key = cache_hasher_end(h);
	struct span got;
	if (memo_get(c->memo, &m->key, &got)) {
		struct wire_rd r = {got.p, got.p + got.len, false};
		size_t kr, ks;
		size_t *runs = read_marks(&r, sc->runs_used ? sc->nruns : 0, &kr);
		size_t *sets = read_marks(&r, c->sets_used ? c->nsets : 0, &ks);
		uint64_t nd = wire_u64(&r);
		if (nd > (uint64_t)(r.end - r.p) / 8)
			r.bad = true;
		struct chart_digest *dg = r.bad ? NULL : xcalloc((size_t)nd + 1, sizeof *dg);
		size_t have = 0;
		for (uint64_t i = 0; i < nd && !r.bad; i++) {
			char *nm = memo_rd_str(&r);
			uint64_t points = wire_u64(&r);
			struct span hash = wire_span(&r);
			if (!nm || hash.len != sizeof dg->hash.b)
				r.bad = true;
			if (r.bad) {
				free(nm);
				break;
			}
			dg[have].name = nm;
			dg[have].points = (size_t)points;
			memcpy(dg[have].hash.b, hash.p, hash.len);
			have++;
		}
		/* the series' carries it used: kept for the next append */
		size_t ncarry = wire_count(&r, 24);
		struct wire_rd carries = r;
		for (size_t i = 0; i < ncarry; i++)
			if (wire_span(&r).len != sizeof m->key.b)
				r.bad = true;
		bool io = false;
		if (!r.bad && write_figures(c, &r, name, &io)) {
			for (size_t i = 0; i < ncarry; i++) {
				struct span cks = wire_span(&carries);
				struct cache_key ck;
				memcpy(ck.b, cks.p, sizeof ck.b);
				struct span unused;
				memo_get(c->memo, &ck, &unused);
			}
			set_marks(sc->runs_used, runs, kr);
			set_marks(c->sets_used, sets, ks);
			out->digest = dg;
			out->ndigest = have;
			free(runs);
			free(sets);
			return true;
		}
		for (size_t i = 0; i < have; i++)
			free(dg[i].name);
		free(dg);
		free(runs);
		free(sets);
		if (io) {
			*ok = false;
			return true;
		}
	}
	/* resolved as always, recording what it marks and writes */
	m->on = true;
	m->diags = diag_count(c->d);
	m->scope = sc;
	m->mine = *sc;
	m->mine.runs_used = sc->runs_used ? xcalloc(sc->nruns + 1, sizeof *m->mine.runs_used) : NULL;
	c->scope = &m->mine;
	m->sets_used = c->sets_used;
	c->sets_used = m->sets_used ? xcalloc(c->nsets + 1, sizeof *c->sets_used) : NULL;
	m->write_figure = c->write_figure;
	m->figure_ctx = c->figure_ctx;
	c->write_figure = tap_figure;
	c->figure_ctx = m;
	return false;
}

void memoize_chart_end(struct directive_ctx *c, struct memoize_chart *m, bool ok,
		       const struct directive_result *out)
{
	if (!m->on)
		return;
	const struct scope *sc = m->scope;
	bool *sets = c->sets_used;
	c->scope = sc;
	c->sets_used = m->sets_used;
	c->write_figure = m->write_figure;
	c->figure_ctx = m->figure_ctx;
	for (size_t i = 0; m->mine.runs_used && i < sc->nruns; i++)
		sc->runs_used[i] = sc->runs_used[i] || m->mine.runs_used[i];
	for (size_t i = 0; sets && i < c->nsets; i++)
		c->sets_used[i] = c->sets_used[i] || sets[i];
	if (ok && diag_count(c->d) == m->diags) {
		struct buf b = BUF_INIT;
		put_marks(&b, m->mine.runs_used, sc->nruns);
		put_marks(&b, sets, c->nsets);
		wire_put_u64(&b, out->ndigest);
		for (size_t i = 0; i < out->ndigest; i++) {
			memo_put_str(&b, out->digest[i].name);
			wire_put_u64(&b, out->digest[i].points);
			wire_put_bytes(&b, out->digest[i].hash.b, sizeof out->digest[i].hash.b);
		}
		wire_put_u64(&b, m->ncarry);
		buf_put(&b, m->carry_keys.data, m->carry_keys.len);
		wire_put_u64(&b, m->nfigures);
		buf_put(&b, m->figures.data, m->figures.len);
		memo_put(c->memo, &m->key, b.data, b.len);
		buf_free(&b);
	}
	free(m->mine.runs_used);
	free(sets);
	buf_free(&m->figures);
	buf_free(&m->carry_keys);
	m->on = false;
}
