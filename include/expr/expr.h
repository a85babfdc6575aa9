/* expr.h: the expression language of SPEC section 4.
 *
 *   expr    := or ;  or := and ('or' and)* ;  and := not ('and' not)*
 *   not     := 'not' not | cmp
 *   cmp     := sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)?
 *   sum     := prod (('+'|'-') prod)* ;  prod := unary (('*'|'/') unary)*
 *   unary   := '-' unary | post
 *   post    := primary ('.' NAME | '[' NAME '=' literal ']')*
 *   primary := NUMBER | STRING | NAME | NAME '(' args ')' | '(' expr ')'
 *
 * NUMBER is digits with an optional fraction and exponent (512, 7.125,
 * 4e-05); STRING is '...' or "..." (escapes \\ \' \" \n \t); NAME is
 * [A-Za-z_][A-Za-z0-9_]*, and `and`, `or`, `not` are keywords (still
 * usable after a '.' or '[').  A row lookup's literal is a number, a
 * string or a bare word: results[source=groq].  Nesting deeper than the
 * cap expr_depth (data/limit.h: 200 levels unless site.yaml or
 * LOGDOWN_LIMIT_EXPR_DEPTH raises it) is an error.
 *
 * Names: the first name of a chain resolves in the scope (see struct
 * scope), innermost first; then each '.' name is a field or series of a
 * run, or a column of a series or row.  Fields and series stored with
 * dotted names ("summary.metis.mean") are found by the longest dotted
 * prefix that names one.  series[col=literal] is the first row whose
 * cell equals the literal (as numbers when both are; else as text).
 *
 * Functions: mean median min max sum count first last std
 * percentile(x, p) abs round(x, n).  The aggregations take a list (a
 * series column) and skip missing cells; count counts the others.  Of
 * no values, count and sum are 0 and the rest are missing.  std is the
 * sample standard deviation (n - 1; missing for one value).
 * percentile interpolates linearly between ranks (numpy's default), p
 * from 0 to 100; median is percentile(x, 50).  round(x, n) rounds to n
 * decimals (-15..15, default 0) as printf does (ties to even on the
 * binary value, like the .2f format spec); abs and round keep missing.
 * first, last, min, max (ties: the first row), and median or percentile
 * when they land on one value, give that cell: its text and line kept.
 *
 * Operators: + - * / on numbers ('+' also joins two strings); a missing
 * operand makes the result missing; division by zero is an error.
 * Comparisons take two numbers, two strings (byte order) or two
 * booleans (== and != only); any comparison with a missing value is
 * false, != included, so a row without a value passes no filter.  and,
 * or, not take booleans only (a number is an error, not a truth value)
 * and short-circuit.
 *
 * Used by parser `derive:` entries (names resolve inside the run being
 * parsed) and by reports (names resolve to runs, then fields, series and
 * columns). */
#ifndef LOGDOWN_EXPR_H
#define LOGDOWN_EXPR_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/util.h"
#include "data/run.h"
#include "data/wire.h"

struct expr;

/* Parses text (len bytes, need not end in NUL; copied).  `at` is where
 * text begins in its file (line, col; at.file is copied), so that an
 * error, while parsing or later while evaluating, is reported at its
 * own column with a caret as wide as the token: "expected ')' after
 * the arguments of mean, found 'x'".  An unknown function or a wrong
 * number of arguments is a parse error too.  Returns NULL on an error,
 * reported through d.  Caller frees with expr_free(); expr_free(NULL)
 * does nothing. */
struct expr *expr_parse(const char *text, size_t len, struct loc at, struct diag *d);
void expr_free(struct expr *e);

/* True when the expression is a bare name or a chain of '.' names with
 * no arithmetic and no function: its value is shown exactly as written
 * in the log. */
bool expr_is_reference(const struct expr *e);

/* Where names are looked up, innermost first: the columns of row `row`
 * of `series` (a table whose rows are a series, rows: cs512.train; run
 * is then the run holding it), then `run` (the run a parser is deriving
 * for, or a table row's run: its fields and series), then `runs` by
 * their names.  Any part may be NULL/0; zero-initialise what is unused. */
struct scope {
	const struct run *run;
	const struct run *const *runs;
	size_t nruns;
	const struct series *series;
	size_t row;
	/* the report's run sets, named only to explain that a set is not a
	 * value ("cs is a run set of 3 runs: ..."); may be empty */
	const char *const *set_names;
	const size_t *set_counts;
	size_t nsets;
	/* NULL, or per set: for a file split into runs, the file and the
	 * name of its last run ("mnist.run2"), so that the error shows how
	 * to name one; NULL for a glob's set */
	const char *const *set_files;
	const char *const *set_last;
	/* NULL, or parallel to runs: an evaluation that resolves a name to
	 * runs[i] sets runs_used[i], so that a report can tell the runs no
	 * value actually used (not the ones its text merely mentions). */
	bool *runs_used;
	/* The names of the report's runs that did not load (their error is
	 * already reported) and, parallel, the first place each is used:
	 * a name that resolves to nothing else and is one of these is no
	 * error ("run 'x' is not defined" would mislead) but is kept in
	 * failed_use, for the one note the report gets (see
	 * expr_failed_use()).  May be empty. */
	const char *const *failed;
	struct failed_use *failed_use;
	size_t nfailed;
	/* NULL, or: for a series whose rows went by without being kept
	 * (`logdown parse --json` streams them), aggregation fn of its
	 * column col as taken while they passed; NULL for a kept series. */
	const struct expr_agg *(*streamed)(const void *ctx, const struct series *s, size_t col,
					   int fn);
	const void *streamed_ctx;
};

/* Where a run that did not load is first used, in document order
 * (when used); at.file is `file`, owned by the array's owner (free it
 * with failed_use_clear()). */
struct failed_use {
	bool used;
	struct loc at;
	char *file;
};

/* Whether name is one of sc's runs that did not load.  If it is, `at`
 * (where the name is written) is kept as its first use when it comes
 * before the one kept: the caller then reports nothing, and fails. */
bool expr_failed_use(const struct scope *sc, const char *name, struct loc at);
/* Frees the files of n uses (not the array). */
void failed_use_clear(struct failed_use *u, size_t n);

enum eval_kind {
	EVAL_MISSING,
	EVAL_NUMBER,
	EVAL_STRING,
	EVAL_BOOL,
	EVAL_LIST, /* a series column: needs an aggregation to become one value */
};

/* A result.  A value picked from a file, also through first/last/min/max
 * or a row lookup, keeps its text, file and line; a computed one has
 * text NULL and line 0, and names its inputs in `inputs` (for a
 * tooltip: "cs512.total_time = 175.070497198 (logs/bs512.log:52)"). */
struct eval {
	enum eval_kind kind;
	double num;
	bool boolean;
	/* As written in the file, borrowed from the run; a computed
	 * string's text is `owned`; NULL for other computed values. */
	const char *text;
	size_t len;
	const char *file; /* the run's file, when the value came from one */
	long line;
	/* EVAL_LIST: the column, borrowed */
	const struct series *series;
	size_t column;
	char *owned;  /* storage for a computed string; freed by eval_clear() */
	char *inputs; /* "a = 1 (f:3); b = 2 (f:9)", or NULL; freed by eval_clear() */
	/* A computed number: the decimals it is known to, from the numbers
	 * as written that it came from (0.84 * 2 is known to 2, so it
	 * shows as 1.68); dec_known is false when that is not known. */
	bool dec_known;
	int dec;
	/* EVAL_MISSING: why, for the reader ("bs1024.rate is not in
	 * logs/bs1024.log", "mean of cs.train.loss: no rows"), or NULL;
	 * freed by eval_clear() */
	char *why;
};

/* Evaluates e in scope (NULL: an empty one).  The result may be an
 * EVAL_LIST (a chart's x: train.step); expr_eval_one() is for where one
 * value is needed.  On an error (an unknown name with the closest
 * candidate suggested, a list where one value is needed naming the
 * aggregations, a type mismatch, division by zero), reports through d
 * at the expression's location and returns false (*out is then
 * EVAL_MISSING and needs no clearing).  Texts in the result are
 * borrowed from the scope's runs, or owned by it: it stays valid after
 * expr_free(), until the runs change.  Free the result's storage with
 * eval_clear(). */
bool expr_eval(const struct expr *e, const struct scope *scope, struct eval *out,
	       struct diag *d);
/* Like expr_eval(), but a list is an error: "cs512.train.loss is a list
 * of 10 values: choose one with mean, median, ...".  For inline values
 * and table cells. */
bool expr_eval_one(const struct expr *e, const struct scope *scope, struct eval *out,
		   struct diag *d);
/* Resolves e, a reference to a series (rows: cs512.train), in scope:
 * the series, and in *run (when run is not NULL) the run holding it,
 * both borrowed from the scope.  Anything else is an error at e
 * ("cs512.final_loss is a number, not a series"); false then. */
bool expr_eval_series(const struct expr *e, const struct scope *scope,
		      const struct series **series, const struct run **run, struct diag *d);
/* Frees what a result owns and makes it EVAL_MISSING; NULL is fine. */
void eval_clear(struct eval *v);

/* Aggregations taken as a series' rows pass, for a caller that does not
 * keep them (`logdown parse --json`): first, last, min, max, count, sum
 * and mean keep what the loop over a kept series keeps (the Neumaier
 * sum, the count, the most decimals, the cell picked, the first string
 * where numbers are needed), so that expr_eval() with scope.streamed
 * gives the same value, text and messages as over the kept rows. */
struct expr_agg_loop {
	size_t n_ok, first, last, best; /* rows */
	double best_num;
	/* Neumaier's compensated sum: a million losses add up exactly
	 * enough to agree with numpy. */
	double sum, comp;
	/* The most decimals of the numbers as written, for showing the
	 * result (dec_all: every one's is known). */
	int maxdec;
	bool dec_all;
};

struct expr_agg {
	int fn; /* the function, as expr_streamable() names it */
	size_t rows;
	struct expr_agg_loop loop;
	struct datum pick; /* first, last, min, max: the cell, text in pick_text */
	bool bad;	   /* a string where numbers are needed: the first */
	struct datum bad_cell;
	struct buf pick_text, bad_text;
};

/* Whether e can be evaluated over the runs of a parse whose series
 * is_streamed() says are not kept: each use of such a series is the
 * argument of first, last, min, max, count, sum or mean, written
 * SERIES.COLUMN.  need() is called for each (the function as an int
 * for expr_agg_init()); what it is told is only meaningful when true
 * is returned. */
bool expr_streamable(const struct expr *e, bool (*is_streamed)(void *ctx, const char *series),
		     void (*need)(void *ctx, const char *series, const char *column, int fn),
		     void *ctx);
void expr_agg_init(struct expr_agg *a, int fn);
/* The next row's cell (shortest: its text is number_put()'s for it,
 * series_append_shortest(); dec >= 0: a store's plain decimal of dec
 * decimals whose text may not be made, series_cell_number()); dt's text
 * is copied (or made) when kept. */
void expr_agg_add(struct expr_agg *a, const struct datum *dt, bool shortest, int dec);
/* Whether fn (as expr_streamable() names it) reads every row: min,
 * max, count, sum and mean do; first and last read one cell of a kept
 * series. */
bool expr_agg_reads_all(int fn);
/* a's state written out (data/wire.h), so that a later build folds on
 * from it: the rows it covered, its loop, its picked and first bad
 * cells. */
void expr_agg_save(const struct expr_agg *a, struct buf *out);
/* The next expr_agg_save()'s bytes into a (fresh from expr_agg_init()
 * with its function), over a series of at most `rows` rows: r->bad
 * when they are not such a state of as many rows or fewer (a may then
 * hold texts: expr_agg_free() it). */
void expr_agg_load(struct expr_agg *a, struct wire_rd *r, size_t rows);
/* Empty again, keeping its buffers (the next run of a split file). */
void expr_agg_reset(struct expr_agg *a);
void expr_agg_free(struct expr_agg *a);

#endif
