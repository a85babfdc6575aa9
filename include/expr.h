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
 * Functions: mean median min max sum count first last std
 * percentile(x, p) abs round(x, n).
 *
 * Used by parser `derive:` entries (names resolve inside the run being
 * parsed) and by reports (names resolve to runs, then fields, series and
 * columns). */
#ifndef LOGDOWN_EXPR_H
#define LOGDOWN_EXPR_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "run.h"

struct expr;

/* Parses text.  `at` is where text begins in its file (line, col), so
 * that a syntax error is reported at its own column: "expected ')'
 * after the arguments of mean, found 'x'".  Returns NULL on an error,
 * reported through d.  Caller frees with expr_free(). */
struct expr *expr_parse(const char *text, size_t len, struct loc at, struct diag *d);
void expr_free(struct expr *e);

/* True when the expression is a bare name or a chain of '.' names with
 * no arithmetic and no function: its value is shown exactly as written
 * in the log. */
bool expr_is_reference(const struct expr *e);

/* Where names are looked up, innermost first: `run` (the run a parser is
 * deriving for, or a table row's run), then `runs` by their names. */
struct scope {
	const struct run *run;
	const struct run *const *runs;
	size_t nruns;
};

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
	const char *text; /* borrowed from a run, or from `owned` */
	size_t len;
	const char *file; /* the run's file, when the value came from one */
	long line;
	/* EVAL_LIST: the column, borrowed */
	const struct series *series;
	size_t column;
	char *owned;  /* storage for a computed string; freed by eval_clear() */
	char *inputs; /* "a = 1 (f:3); b = 2 (f:9)", or NULL; freed by eval_clear() */
};

/* Evaluates e in scope.  On an error (an unknown name with the closest
 * candidate suggested, a list where one value is needed naming the
 * aggregations, a type mismatch, division by zero), reports through d
 * at the expression's location and returns false.  Free the result's
 * storage with eval_clear(). */
bool expr_eval(const struct expr *e, const struct scope *scope, struct eval *out,
	       struct diag *d);
void eval_clear(struct eval *v);

#endif
