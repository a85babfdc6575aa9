/* memoize.h: a report's values and charts through its memo
 * (data/memo.h), defined in memoize.c: what reads whole series is
 * taken from the memo when the key of its inputs is there, and put in
 * it otherwise, so that a build whose inputs did not change reads none
 * of those series again.
 *
 * A key is the report's (directive_ctx's memo_key: the site, the
 * report's path and front matter, every input of its runs) with the
 * value's expression as written, or the chart's body as parsed and the
 * figure formats.  Only a result that gave no diagnostic is kept (a
 * warning shows on every build), and none while a run of the report
 * failed to load.  What the evaluation marked as used (the scope's
 * runs_used, the ctx's sets_used) is kept with it and marked again on
 * a hit, so that "run 'x' is never used" is the same either way. */
#ifndef LOGDOWN_RESOLVE_MEMOIZE_H
#define LOGDOWN_RESOLVE_MEMOIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "resolve/directive.h"
#include "data/cache.h"
#include "draw/chart.h"

/* expr_eval_one() of e, written as src[0..len), in c's scope: from the
 * memo when it is a computed value (not a plain reference) whose key
 * is there; evaluated, and kept, otherwise.  As expr_eval_one(), out
 * then needs eval_clear(). */
bool memoize_eval_one(struct directive_ctx *c, const struct expr *e, const char *src,
		      size_t len, struct eval *out);
/* The same in sc, a scope of c's whose run (a table's row, one of c's
 * runs or a member of one) is where names are looked up first.  A
 * row of a series (sc->series set) is evaluated, never kept. */
bool memoize_eval_in(const struct directive_ctx *c, const struct scope *sc, const struct expr *e,
		     const char *src, size_t len, struct eval *out);

/* A chart being resolved: while memoize_chart_begin() .. _end() run,
 * the figures written through c and the runs and sets marked used are
 * recorded. */
struct memoize_chart {
	bool on;
	struct cache_key key;
	size_t diags;
	const struct scope *scope; /* c's, given back at _end() */
	struct scope mine;
	bool *sets_used;
	bool (*write_figure)(void *ctx, const char *name, const char *ext, const char *data,
			     size_t len);
	void *figure_ctx;
	struct buf figures;
	size_t nfigures;
	/* the keys of the series' carries (chartcarry.c) the chart used:
	 * kept with it, so that a hit keeps them for the next append */
	struct buf carry_keys;
	size_t ncarry;
};

/* True when the chart of this body (with c's figure formats) is in the
 * memo: its figures are written as name through c (false after an I/O
 * error, reported, with *ok false), its digest put in out, its runs
 * marked used.  Otherwise starts recording m (when the memo is on),
 * and the caller resolves the chart as always, then calls
 * memoize_chart_end(). */
bool memoize_chart_get(struct directive_ctx *c, const struct value *body, const char *name,
		       struct directive_result *out, struct memoize_chart *m, bool *ok);
/* Ends the recording (nothing when none began): gives c back its own,
 * and keeps the chart when it was drawn (ok) without a diagnostic,
 * with out's digest. */
void memoize_chart_end(struct directive_ctx *c, struct memoize_chart *m, bool ok,
		       const struct directive_result *out);

/* --- a chart's series carried over appends (chartcarry.c) ---
 *
 * A line or scatter series whose x and y are two columns of one series
 * whose first rows are a run store's (a series view with an origin)
 * keeps, in the report's memo, what the drawings computed of the points
 * of those rows (struct chart_carry: extents and projections) and the
 * digest's hasher state after them, under the key of the chart's body,
 * the series' place in the chart, the store, the series and the two
 * columns.  A later build whose series still reads its first rows from
 * that store takes only the points after them. */
struct series_carry {
	struct cache_key key;
	size_t base;       /* the store's rows */
	size_t points;     /* the chart's points among them (draw.n) */
	bool resumed;      /* read from the memo: the series holds the rest */
	struct chart_carry draw;
	struct buf hash;   /* the digest's hasher state after `points` */
};

struct chart_carries {
	struct memo *memo;      /* NULL: no carrying */
	struct cache_key body;  /* the chart's body and figure formats */
	bool full;              /* every point read: a carried drawing missed */
	struct series_carry **v;
	size_t n;
};

/* Starts cs for a chart of this body: off unless c's charts are memoized. */
void chartcarry_start(struct chart_carries *cs, struct directive_ctx *c,
		      const struct value *body);
/* The carry of series i, x and y evaluated as ex and ey: NULL when they
 * are not two columns of one series read from a store (the series is
 * then read whole, as always).  Resumed when the memo holds one at the
 * store's rows and cs is not `full`. */
struct series_carry *chartcarry_get(struct chart_carries *cs, size_t i, const struct eval *ex,
				    const struct eval *ey);
/* After the chart was drawn: the carries recorded are put in the memo,
 * those resumed kept; their keys added to m's. */
void chartcarry_keep(struct chart_carries *cs, struct memoize_chart *m);
/* Frees cs's carries (a chart's series must no longer point to them). */
void chartcarry_free(struct chart_carries *cs);

/* sk's carry as bytes (its memo entry), appended to b; and such bytes,
 * untrusted, read back into sk (zeroed first by the caller) for a
 * store of base rows: false, sk empty, when they are not. */
void chartcarry_write(const struct series_carry *sk, struct buf *b);
bool chartcarry_read(const void *p, size_t n, size_t base, struct series_carry *sk);

/* The chart's digest hash of s (chart_digest_hash()) with sk, s's
 * carry: resumed from its hasher state, or recording it. */
struct cache_key chartcarry_digest(const struct chart *c, const struct chart_series *s,
				   struct series_carry *sk);

#endif
