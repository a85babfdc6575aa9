/* node.h: the tree of a parsed expression, private to expr/: what
 * parse.c builds and eval.c walks, and the two things evaluation
 * borrows from parsing (where a span of the text is in its file, and
 * the functions by name). */
#ifndef LOGDOWN_EXPR_NODE_H
#define LOGDOWN_EXPR_NODE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"

/* The tree the parser builds. */

enum node_kind {
	N_NUM,  /* num */
	N_STR,  /* str, slen: the unescaped contents */
	N_NAME, /* str: the name */
	N_CALL, /* fn, args */
	N_POST, /* a: the base, then steps: '.' names and '[' lookups */
	N_NEG,  /* a */
	N_NOT,  /* a */
	N_AND,  /* a, b */
	N_OR,   /* a, b */
	N_BIN,  /* op, a, b */
};

enum bin_op { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

enum fn_id {
	FN_MEAN,
	FN_MEDIAN,
	FN_MIN,
	FN_MAX,
	FN_SUM,
	FN_COUNT,
	FN_FIRST,
	FN_LAST,
	FN_STD,
	FN_PERCENTILE,
	FN_ABS,
	FN_ROUND,
};

struct func {
	const char *name;
	enum fn_id id;
	int min_args, max_args;
	const char *usage; /* for messages: "percentile(x, p)" */
};

/* A '.' name or a '[column=literal]' lookup after a primary. */
struct step {
	bool lookup;
	char *name;       /* the field, series or column; a lookup's column */
	size_t off, len;  /* the name's token */
	size_t start;     /* the '.' or '[' */
	size_t end;       /* just past the step: the chain so far is text[node.off, end) */
	/* A lookup's literal: a number compares as a number with number
	 * cells, anything else compares its text with the cell's text. */
	bool lit_is_num;
	double lit_num;
	char *lit; /* the text to compare: unescaped for a string */
	size_t lit_len;
	size_t lit_off, lit_tlen; /* the literal as written, sign included */
};

struct node {
	enum node_kind kind;
	size_t off, len; /* the whole node as written, parentheses included */
	int height;      /* the evaluation's recursion: 1 for a leaf; a chain
			  * "a + b + c" adds one level, not one per operator
			  * (node_is_chain()) */
	enum bin_op op;
	size_t op_off, op_len; /* the operator's token; a call's or name's name */
	double num;
	char *str;
	size_t slen;
	const struct func *fn;
	struct node *a, *b;
	struct node **args;
	size_t nargs;
	struct step *steps;
	size_t nsteps;
};

/* An infix operator (+ - * /, a comparison, and, or): its left operand
 * is evaluated in a loop, not by recursion (eval.c, eval_chain_ops()). */
static inline bool node_is_chain(const struct node *n)
{
	return n->kind == N_BIN || n->kind == N_AND || n->kind == N_OR;
}

struct expr {
	char *text; /* a NUL-terminated copy of the source */
	size_t len;
	char *file; /* where the text begins, for diagnostics */
	int line, col;
	struct node *root;
};

/* The location of text[off, off+len): the column of `at` plus the byte
 * offset, or a later line when the text spans lines.  The caret is as
 * wide as the span. */
struct loc expr_loc(const struct expr *e, size_t off, size_t len);

/* Reports an error at text[off, off+len) of e through d. */
void expr_report_at(struct diag *d, const struct expr *e, size_t off, size_t len,
		    const char *fmt, va_list ap);

/* The function called `name`, or NULL. */
const struct func *expr_find_func(const char *name);

#endif
