/* derivecarry.c: a parser's derives carried over an append
 * (derivecarry.h; docs/internals.md, "Appends").
 *
 * A derive such as the Cerebras parser's `mean_rate: mean(train.rate)`
 * reads every row of its column: after a resume, 7.1 million rows of
 * the 1 GB log for the 8 rows an append added.  What the evaluator's
 * loop keeps of the rows it has seen is struct expr_agg (the count, the
 * Neumaier sum, the best row and its cell, the most decimals: the same
 * steps `logdown parse --json` takes as rows stream past), and folding
 * rows 0..n then n..N in order is the loop over 0..N.  So the parse
 * folds each such aggregate as far as the rows go when the resume
 * state is taken, writes it after the state, and a resumed parse reads
 * it back and folds only the rows after the point; the derive is then
 * evaluated with scope.streamed giving the carried aggregate.
 *
 * Only the aggregates that read every row are carried (min, max,
 * count, sum, mean); first and last read one cell, and a derive that
 * cannot be taken as rows pass (median, a row lookup, a series used
 * whole) is evaluated by its loop as before.
 *
 * Layout (wire.h), after the scanner's state: a version; the count;
 * per aggregate its series' and column's names, its function, then
 * expr_agg_save()'s bytes (the rows it covered, its loop, its picked
 * and first bad cells).  Read as untrusted bytes: a set that is not exactly
 * the derives' aggregates, or rows past those of the run at the point,
 * is not used (each aggregate is then folded from the first row). */
#include "derivecarry.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/wire.h"

#define CARRY_VERSION 1u

/* p's series `name` that rows of lines fill (not a table's), or -1. */
static long text_series(const struct parser *p, const char *name)
{
	for (size_t i = 0; i < p->nseries; i++)
		if (p->series[i].table < 0 && strcmp(p->series[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* One derive's aggregates, kept only when all of it streams. */
struct plan {
	const struct parser *p;
	struct carried *v;
	size_t n;
};

static bool is_text_series(void *ctx, const char *name)
{
	const struct plan *pl = ctx;
	return text_series(pl->p, name) >= 0;
}

static void plan_need(void *ctx, const char *series, const char *column, int fn)
{
	struct plan *pl = ctx;
	if (!expr_agg_reads_all(fn))
		return; /* first, last: the loop reads one cell */
	long i = text_series(pl->p, series);
	const struct pseries *ps = &pl->p->series[i];
	for (size_t c = 0; c < ps->ncols; c++)
		if (strcmp(ps->cols[c], column) == 0) {
			pl->v = xrealloc(pl->v, (pl->n + 1) * sizeof *pl->v);
			pl->v[pl->n].series = (size_t)i;
			pl->v[pl->n].col = c;
			pl->v[pl->n].done = 0;
			expr_agg_init(&pl->v[pl->n].a, fn);
			pl->n++;
			return;
		}
	/* no such column: the derive's error says so */
}

static bool has(const struct derive_carry *dc, const struct carried *c)
{
	for (size_t k = 0; k < dc->n; k++)
		if (dc->v[k].series == c->series && dc->v[k].col == c->col &&
		    dc->v[k].a.fn == c->a.fn)
			return true;
	return false;
}

void derive_carry_init(struct derive_carry *dc, const struct parser *p, struct run *r)
{
	memset(dc, 0, sizeof *dc);
	dc->p = p;
	dc->run = r;
	if (p->format != FMT_TEXT)
		return;
	for (size_t i = 0; i < p->nderives; i++) {
		struct plan pl = {p, NULL, 0};
		bool ok = expr_streamable(p->derives[i].e, is_text_series, plan_need, &pl);
		for (size_t k = 0; k < pl.n; k++) {
			if (!ok || has(dc, &pl.v[k])) {
				expr_agg_free(&pl.v[k].a);
				continue;
			}
			dc->v = xrealloc(dc->v, (dc->n + 1) * sizeof *dc->v);
			dc->v[dc->n++] = pl.v[k];
		}
		free(pl.v);
	}
}

void derive_carry_free(struct derive_carry *dc)
{
	for (size_t k = 0; k < dc->n; k++)
		expr_agg_free(&dc->v[k].a);
	free(dc->v);
	memset(dc, 0, sizeof *dc);
}

/* The run's series of c, or NULL (not made yet: no rows). */
static const struct series *series_of(const struct derive_carry *dc, const struct carried *c)
{
	const struct series *s = run_series(dc->run, dc->p->series[c->series].name);
	return s && c->col < series_column_count(s) ? s : NULL;
}

void derive_carry_fold(struct derive_carry *dc)
{
	for (size_t k = 0; k < dc->n; k++) {
		struct carried *c = &dc->v[k];
		const struct series *s = series_of(dc, c);
		size_t rows = s ? series_row_count(s) : 0;
		struct datum dt;
		/* the loop's steps (eval_aggregate()), row after row */
		for (; c->done < rows; c->done++) {
			int dec;
			bool shortest = series_cell_number(s, c->done, c->col, &dt, &dec);
			expr_agg_add(&c->a, &dt, shortest, dec);
		}
	}
}

void derive_carry_row(struct derive_carry *dc, size_t series, const struct series *s,
		      const struct datum *cells, long line)
{
	size_t row = series_row_count(s) - 1;
	for (size_t k = 0; k < dc->n; k++) {
		struct carried *c = &dc->v[k];
		/* (an aggregate behind: derive_carry_fold() reads its rows) */
		if (c->series != series || c->done != row || c->col >= series_column_count(s))
			continue;
		struct datum dt;
		bool shortest = series_appended_cell(s, cells, line, c->col, &dt);
		/* the step derive_carry_fold() would take: an own row's cell
		 * has no decimals known */
		expr_agg_add(&c->a, &dt, shortest, -1);
		c->done++;
	}
}

void derive_carry_note(struct derive_carry *dc)
{
	derive_carry_fold(dc);
	for (size_t k = 0; k < dc->n; k++) {
		const struct carried *c = &dc->v[k];
		struct series *s = run_series(dc->run, dc->p->series[c->series].name);
		if (!s || c->col >= series_column_count(s) || c->done != series_row_count(s))
			continue;
		struct buf b = BUF_INIT;
		expr_agg_save(&c->a, &b);
		series_fold_note(s, c->col, c->a.fn, c->done, b.data, b.len);
		buf_free(&b);
	}
}

const struct expr_agg *derive_carry_lookup(const void *ctx, const struct series *s, size_t col,
					   int fn)
{
	const struct derive_carry *dc = ctx;
	for (size_t k = 0; k < dc->n; k++) {
		const struct carried *c = &dc->v[k];
		if (c->col == col && c->a.fn == fn && series_of(dc, c) == s &&
		    c->done == series_row_count(s))
			return &c->a;
	}
	return NULL;
}

void derive_carry_save(struct derive_carry *dc, struct buf *out)
{
	derive_carry_fold(dc);
	wire_put_u64(out, CARRY_VERSION);
	wire_put_u64(out, dc->n);
	for (size_t k = 0; k < dc->n; k++) {
		const struct carried *c = &dc->v[k];
		const struct pseries *ps = &dc->p->series[c->series];
		const struct expr_agg *a = &c->a;
		wire_put_str(out, ps->name);
		wire_put_str(out, ps->cols[c->col]);
		wire_put_u64(out, (uint64_t)a->fn);
		expr_agg_save(a, out);
	}
}

bool derive_carry_load(struct derive_carry *dc, const void *blob, size_t len)
{
	struct wire_rd rd = {blob, (const char *)blob + len, false};
	struct wire_rd *r = &rd;
	if (wire_u64(r) != CARRY_VERSION || wire_count(r, 8) != dc->n || r->bad)
		return false;
	struct expr_agg *got = xcalloc(dc->n + 1, sizeof *got);
	bool *seen = xcalloc(dc->n + 1, sizeof *seen);
	for (size_t i = 0; i < dc->n && !r->bad; i++) {
		char *series = wire_str(r), *col = wire_str(r);
		uint64_t fn = wire_u64(r);
		size_t k = 0;
		for (; !r->bad && k < dc->n; k++) {
			const struct carried *c = &dc->v[k];
			const struct pseries *ps = &dc->p->series[c->series];
			if (!seen[k] && (uint64_t)(int64_t)c->a.fn == fn &&
			    strcmp(ps->name, series) == 0 && strcmp(ps->cols[c->col], col) == 0)
				break;
		}
		free(series);
		free(col);
		if (r->bad || k == dc->n) {
			r->bad = true;
			break;
		}
		seen[k] = true;
		expr_agg_init(&got[k], dc->v[k].a.fn);
		const struct series *s = series_of(dc, &dc->v[k]);
		expr_agg_load(&got[k], r, s ? series_row_count(s) : 0);
	}
	bool ok = !r->bad && r->p == r->end;
	for (size_t k = 0; k < dc->n; k++) {
		if (ok) {
			expr_agg_free(&dc->v[k].a);
			dc->v[k].a = got[k];
			dc->v[k].done = got[k].rows;
		} else if (seen[k]) {
			expr_agg_free(&got[k]);
		}
	}
	free(got);
	free(seen);
	return ok;
}
