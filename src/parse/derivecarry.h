/* derivecarry.h: a parser's derives carried over an append
 * (derivecarry.c), private to the stage.  The aggregates that a
 * parser's derives take of its series and that read every row (min,
 * max, count, sum, mean: expr_agg_reads_all()) are folded row by row,
 * kept with the scanner's resume state at its point, and read back by
 * a resumed parse, which folds only the rows after the point: the
 * derive then costs the new rows, not all of them, and gives the bytes
 * the loop over every row gives (the same steps, in the same order). */
#ifndef LOGDOWN_PARSE_DERIVECARRY_H
#define LOGDOWN_PARSE_DERIVECARRY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "data/run.h"
#include "expr/expr.h"
#include "parser.h"

struct carried {
	size_t series, col; /* p->series[series], its column col */
	size_t done;        /* rows folded */
	struct expr_agg a;
};

struct derive_carry {
	const struct parser *p;
	struct run *run; /* whose derives they are: the scan's first run */
	struct carried *v;
	size_t n;
};

/* The aggregates of p's derives that can be carried, over run r (none:
 * dc->n is 0, and nothing changes).  Free with derive_carry_free(). */
void derive_carry_init(struct derive_carry *dc, const struct parser *p, struct run *r);
void derive_carry_free(struct derive_carry *dc);
/* The aggregates kept with a resume state (derive_carry_save()'s bytes
 * blob[0, len)), each at the rows it covered; dc->run is the resumed
 * run, its rows before the point in place.  False when the bytes are
 * not such aggregates of these derives over these rows: each then
 * starts from the first row (the result is the same, only slower). */
bool derive_carry_load(struct derive_carry *dc, const void *blob, size_t len);
/* Folds every row of dc->run's series so far, then writes the
 * aggregates out (for the resume state, at its point). */
void derive_carry_save(struct derive_carry *dc, struct buf *out);
/* Folds the rows added since, up to every series' last. */
void derive_carry_fold(struct derive_carry *dc);
/* The row just appended to s, the parser's series `series`, from cells
 * read on line (scan.row_added): folded as it is into each aggregate
 * over s that has folded every row before it, without reading it back;
 * the others are left to derive_carry_fold(). */
void derive_carry_row(struct derive_carry *dc, size_t series, const struct series *s,
		      const struct datum *cells, long line);
/* Folds every row so far, then notes each aggregate on its series
 * (series_fold_note()): a report that asks for the same aggregate of
 * the run's store takes it up instead of folding every row again. */
void derive_carry_note(struct derive_carry *dc);
/* scope.streamed for the derives of dc->run (ctx is dc): a carried
 * aggregate, folded up to date, or NULL (the evaluator loops). */
const struct expr_agg *derive_carry_lookup(const void *ctx, const struct series *s, size_t col,
					   int fn);

#endif
