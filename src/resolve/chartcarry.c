/* chartcarry.c: a chart's line or scatter series carried over appends
 * (memoize.h): what its drawings computed of the points of the rows a
 * run store holds, kept in the report's memo, so that a log that only
 * grew draws its chart from the new rows.  The drawing's side is
 * draw/carry.c; docs/internals.md, "Appends", argues why the bytes are
 * those of a drawing from every point. */
#include "memoize.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/memo.h"
#include "data/run.h"
#include "data/wire.h"

static bool has_origin(const struct series_view *v)
{
	for (size_t i = 0; i < sizeof v->origin; i++)
		if (v->origin[i])
			return true;
	return false;
}

static void put_proj(struct buf *b, const struct chart_proj *p)
{
	for (size_t i = 0; i < CHART_GEO_N; i++)
		wire_put_f64(b, p->geo[i]);
	wire_put_u64(b, p->npts);
	for (size_t i = 0; i < 2 * p->npts; i++)
		wire_put_f64(b, p->pts[i]);
	wire_put_u64(b, (uint64_t)(int64_t)p->col);
	wire_put_u64(b, p->cn);
	wire_put_u64(b, p->ilo);
	wire_put_u64(b, p->ihi);
	const double *d[] = {p->first, p->last, p->lo, p->hi};
	for (size_t i = 0; i < 4; i++) {
		wire_put_f64(b, d[i][0]);
		wire_put_f64(b, d[i][1]);
	}
	wire_put_bytes(b, p->seen ? (const char *)p->seen : "", p->nseen);
}

void chartcarry_write(const struct series_carry *sk, struct buf *b)
{
	const struct chart_carry *k = &sk->draw;
	wire_put_u64(b, sk->base);
	wire_put_u64(b, k->n);
	wire_put_u64(b, k->any);
	wire_put_f64(b, k->x_lo);
	wire_put_f64(b, k->x_hi);
	wire_put_f64(b, k->y_lo);
	wire_put_f64(b, k->y_hi);
	wire_put_bytes(b, sk->hash.data ? sk->hash.data : "", sk->hash.len);
	wire_put_u64(b, k->nproj);
	for (size_t i = 0; i < k->nproj; i++)
		put_proj(b, &k->proj[i]);
}

/* chartcarry_write()'s bytes into sk; false (sk's carry empty) when
 * they are not such bytes or cover other rows than base. */
static bool read_carry(struct wire_rd *r, struct series_carry *sk, size_t base)
{
	struct chart_carry *k = &sk->draw;
	memset(k, 0, sizeof *k);
	uint64_t b = wire_u64(r);
	uint64_t n = wire_u64(r);
	k->any = wire_u64(r) != 0;
	k->x_lo = wire_f64(r);
	k->x_hi = wire_f64(r);
	k->y_lo = wire_f64(r);
	k->y_hi = wire_f64(r);
	struct span hash = wire_span(r);
	/* a point is a row's at most */
	if (b != base || n > base || n == 0)
		r->bad = true;
	size_t np = wire_count(r, 8 * CHART_GEO_N);
	if (np > 64)
		r->bad = true;
	for (size_t i = 0; i < np && !r->bad; i++) {
		struct chart_proj p = {0};
		for (size_t g = 0; g < CHART_GEO_N; g++)
			p.geo[g] = wire_f64(r);
		p.npts = wire_count(r, 16);
		p.pts = xmalloc((p.npts ? p.npts : 1) * 2 * sizeof *p.pts);
		for (size_t j = 0; j < 2 * p.npts; j++)
			p.pts[j] = wire_f64(r);
		p.col = (long)(int64_t)wire_u64(r);
		p.cn = (size_t)wire_u64(r);
		p.ilo = (size_t)wire_u64(r);
		p.ihi = (size_t)wire_u64(r);
		double *d[] = {p.first, p.last, p.lo, p.hi};
		for (size_t j = 0; j < 4; j++) {
			d[j][0] = wire_f64(r);
			d[j][1] = wire_f64(r);
		}
		struct span seen = wire_span(r);
		/* the column's points are among the carried ones */
		if (p.cn > n || p.ilo >= n || p.ihi >= n)
			r->bad = true;
		if (!r->bad && seen.len) {
			p.seen = xmalloc(seen.len);
			memcpy(p.seen, seen.p, seen.len);
			p.nseen = seen.len;
		}
		k->proj = xrealloc(k->proj, (k->nproj + 1) * sizeof *k->proj);
		k->proj[k->nproj++] = p;
	}
	if (r->bad || r->p != r->end || k->nproj == 0) {
		chart_carry_clear(k);
		memset(k, 0, sizeof *k);
		return false;
	}
	k->n = (size_t)n;
	sk->points = k->n;
	buf_put(&sk->hash, hash.p, hash.len);
	return true;
}

bool chartcarry_read(const void *p, size_t n, size_t base, struct series_carry *sk)
{
	struct wire_rd r = {p, (const char *)p + n, false};
	struct cache_hasher *probe = NULL;
	bool ok = read_carry(&r, sk, base) &&
		  (probe = cache_hasher_load(sk->hash.data, sk->hash.len)) != NULL;
	if (probe)
		cache_hasher_end(probe);
	if (!ok) {
		chart_carry_clear(&sk->draw);
		memset(&sk->draw, 0, sizeof sk->draw);
		buf_free(&sk->hash);
		sk->points = 0;
	}
	return ok;
}

struct series_carry *chartcarry_get(struct chart_carries *cs, size_t i, const struct eval *ex,
				    const struct eval *ey)
{
	if (!cs->memo || ex->kind != EVAL_LIST || ey->kind != EVAL_LIST || !ex->series ||
	    ex->series != ey->series)
		return NULL;
	const struct series *s = ex->series;
	const struct series_view *v = series_view_of(s);
	if (!v || !v->nrows || !has_origin(v))
		return NULL;
	struct series_carry *sk = xcalloc(1, sizeof *sk);
	sk->base = v->nrows;
	struct cache_hasher *h = cache_hasher_new();
	cache_hasher_str(h, "chart carry");
	cache_hasher_key(h, &cs->body);
	uint64_t at[4] = {i, ex->column, ey->column, sk->base};
	cache_hasher_bytes(h, at, sizeof at);
	cache_hasher_bytes(h, v->origin, sizeof v->origin);
	cache_hasher_str(h, series_name(s));
	cache_hasher_str(h, series_column(s, ex->column));
	cache_hasher_str(h, series_column(s, ey->column));
	sk->key = cache_hasher_end(h);
	struct span got;
	if (!cs->full && memo_get(cs->memo, &sk->key, &got))
		sk->resumed = chartcarry_read(got.p, got.len, sk->base, sk);
	cs->v = xrealloc(cs->v, (cs->n + 1) * sizeof *cs->v);
	cs->v[cs->n++] = sk;
	return sk;
}

void chartcarry_keep(struct chart_carries *cs, struct memoize_chart *m)
{
	for (size_t i = 0; i < cs->n; i++) {
		struct series_carry *sk = cs->v[i];
		if (!sk->resumed) {
			/* recorded: nothing to keep when no drawing noted it */
			if (!sk->draw.nproj || !sk->hash.len)
				continue;
			struct buf b = BUF_INIT;
			chartcarry_write(sk, &b);
			memo_put(cs->memo, &sk->key, b.data, b.len);
			buf_free(&b);
		}
		if (m) {
			wire_put_bytes(&m->carry_keys, sk->key.b, sizeof sk->key.b);
			m->ncarry++;
		}
	}
}

void chartcarry_free(struct chart_carries *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		chart_carry_clear(&cs->v[i]->draw);
		buf_free(&cs->v[i]->hash);
		free(cs->v[i]);
	}
	free(cs->v);
	cs->v = NULL;
	cs->n = 0;
}

/* chart_digest_hash()'s bytes of points [from, to) of s into h (s
 * holds its points from s->from on). */
static void digest_points(struct cache_hasher *h, const struct chart_series *s, size_t from,
			  size_t to)
{
	if (to <= from)
		return;
	size_t n = to - from;
	chart_digest_points(h, s->x + (from - s->from), n, s->y + (from - s->from), n, n);
}

struct cache_key chartcarry_digest(const struct chart *c, const struct chart_series *s,
				   struct series_carry *sk)
{
	if (!sk || c->type == CHART_BAR || !s->x || (s->nx && s->nx != s->n))
		return chart_digest_hash(c, s);
	struct cache_hasher *h = NULL;
	size_t at = 0;
	if (sk->resumed && s->from == sk->points) {
		h = cache_hasher_load(sk->hash.data, sk->hash.len);
		at = s->from;
	}
	if (!h) {
		/* from point 0, its state after the carried points noted */
		h = cache_hasher_plain();
		size_t upto = sk->points < s->n ? sk->points : s->n;
		digest_points(h, s, 0, upto);
		buf_clear(&sk->hash);
		cache_hasher_save(h, &sk->hash);
		at = upto;
	}
	digest_points(h, s, at, s->n);
	return cache_hasher_end(h);
}
