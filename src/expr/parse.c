/* parse.c: an expression's text into a tree (SPEC section 4).
 *
 * Two stages: a lexer that cuts the text into tokens (all at once, so
 * the parser can look ahead), and a recursive-descent parser that
 * builds the tree of node.h, one function per rule of the grammar in
 * expr.h.  eval.c walks the tree over a scope of runs.
 *
 * Every node remembers its span in the text, so that an error found
 * while evaluating (an unknown field, a type mismatch) is reported at
 * its own column with a caret under it, as a syntax error is:
 * expr_loc() turns a span into that location for both. */
#include "expr/expr.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/limit.h"
#include "base/util.h"
#include "node.h"

/* Deeper expressions are an error, not a stack overflow: evaluation and
 * freeing recurse over the tree (lowdown's maxdepth). */
#define EXPR_MAX_DEPTH ((int)limit_get(LIMIT_EXPR_DEPTH))

/* Tokens, cut by lex() before parsing starts. */

enum tok_kind {
	T_END,
	T_NUM,
	T_STR,
	T_NAME,
	T_AND,
	T_OR,
	T_NOT,
	T_LPAREN,
	T_RPAREN,
	T_LBRACK,
	T_RBRACK,
	T_DOT,
	T_COMMA,
	T_PLUS,
	T_MINUS,
	T_STAR,
	T_SLASH,
	T_ASSIGN, /* '=': only inside a row lookup */
	T_EQ,
	T_NE,
	T_LT,
	T_LE,
	T_GT,
	T_GE,
};

struct token {
	enum tok_kind kind;
	size_t off, len; /* in the expression's text */
};

/* In the order the list error names them. */
static const struct func funcs[] = {
	{"mean", FN_MEAN, 1, 1, "mean(x)"},
	{"median", FN_MEDIAN, 1, 1, "median(x)"},
	{"min", FN_MIN, 1, 1, "min(x)"},
	{"max", FN_MAX, 1, 1, "max(x)"},
	{"sum", FN_SUM, 1, 1, "sum(x)"},
	{"count", FN_COUNT, 1, 1, "count(x)"},
	{"first", FN_FIRST, 1, 1, "first(x)"},
	{"last", FN_LAST, 1, 1, "last(x)"},
	{"std", FN_STD, 1, 1, "std(x)"},
	{"percentile", FN_PERCENTILE, 2, 2, "percentile(x, p)"},
	{"abs", FN_ABS, 1, 1, "abs(x)"},
	{"round", FN_ROUND, 1, 2, "round(x, n)"},
};

static void node_free(struct node *n)
{
	/* down a chain's left operands in a loop, as eval.c walks them */
	while (n && node_is_chain(n)) {
		struct node *a = n->a;
		node_free(n->b);
		free(n);
		n = a;
	}
	if (!n)
		return;
	node_free(n->a);
	node_free(n->b);
	for (size_t i = 0; i < n->nargs; i++)
		node_free(n->args[i]);
	free(n->args);
	for (size_t i = 0; i < n->nsteps; i++) {
		free(n->steps[i].name);
		free(n->steps[i].lit);
	}
	free(n->steps);
	free(n->str);
	free(n);
}

void expr_free(struct expr *e)
{
	if (!e)
		return;
	node_free(e->root);
	free(e->text);
	free(e->file);
	free(e);
}

struct loc expr_loc(const struct expr *e, size_t off, size_t len)
{
	struct loc l = {e->file, e->line, e->col, 0};
	size_t bol = 0;
	int nl = 0;
	for (size_t i = 0; i < off && i < e->len; i++) {
		if (e->text[i] == '\n') {
			nl++;
			bol = i + 1;
		}
	}
	if (nl > 0) {
		/* Without a line to start from, a column means nothing. */
		l.line = e->line > 0 ? e->line + nl : 0;
		l.col = e->line > 0 ? (int)(off - bol) + 1 : 0;
	} else if (l.col > 0) {
		l.col += (int)off;
	}
	l.len = len > INT_MAX ? INT_MAX : (int)len;
	if (l.len < 1)
		l.len = 1;
	return l;
}

void expr_report_at(struct diag *d, const struct expr *e, size_t off, size_t len,
		    const char *fmt, va_list ap)
{
	struct buf msg = BUF_INIT;
	buf_vprintf(&msg, fmt, ap);
	diag_error(d, expr_loc(e, off, len), "%s", buf_data(&msg));
	buf_free(&msg);
}

const struct func *expr_find_func(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(funcs); i++)
		if (strcmp(funcs[i].name, name) == 0)
			return &funcs[i];
	return NULL;
}

struct parser {
	struct expr *e;
	const char *s;
	size_t n;
	struct diag *d;
	struct token *toks;
	size_t ntoks, cap;
	size_t pos;
	int depth;
	char desc[64]; /* the description of a found token, for messages */
};

static void perr(struct parser *p, size_t off, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void perr(struct parser *p, size_t off, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	expr_report_at(p->d, p->e, off, len, fmt, ap);
	va_end(ap);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || is_digit(c);
}

static void push_token(struct parser *p, enum tok_kind kind, size_t off, size_t len)
{
	if (p->ntoks == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		p->toks = xrealloc(p->toks, p->cap * sizeof *p->toks);
	}
	struct token t = {kind, off, len};
	p->toks[p->ntoks++] = t;
}

/* NUMBER: digits, an optional fraction and exponent ("512", "7.125",
 * "4e-05").  Letters right after it make it malformed ("12ab", "1e"). */
static bool lex_number(struct parser *p, size_t i, size_t *end)
{
	const char *s = p->s;
	size_t n = p->n, j = i;
	while (j < n && is_digit(s[j]))
		j++;
	if (j + 1 < n && s[j] == '.' && is_digit(s[j + 1])) {
		j++;
		while (j < n && is_digit(s[j]))
			j++;
	}
	if (j < n && (s[j] == 'e' || s[j] == 'E')) {
		size_t k = j + 1;
		if (k < n && (s[k] == '+' || s[k] == '-'))
			k++;
		if (k < n && is_digit(s[k])) {
			while (k < n && is_digit(s[k]))
				k++;
			j = k;
		}
	}
	if (j < n && is_name_char(s[j])) {
		size_t k = j;
		while (k < n && is_name_char(s[k]))
			k++;
		perr(p, i, k - i, "malformed number '%.*s'", (int)(k - i), s + i);
		return false;
	}
	*end = j;
	return true;
}

/* STRING: '...' or "...", with \\, \', \", \n and \t escapes. */
static bool lex_string(struct parser *p, size_t i, size_t *end)
{
	const char *s = p->s;
	char q = s[i];
	for (size_t j = i + 1; j < p->n; j++) {
		if (s[j] == '\\' && j + 1 < p->n) {
			j++;
		} else if (s[j] == q) {
			*end = j + 1;
			return true;
		}
	}
	perr(p, i, p->n - i, "unterminated string: no closing %c", q);
	return false;
}

/* The bytes of the (UTF-8) character at i. */
static size_t char_len(const char *s, size_t i, size_t n)
{
	size_t j = i + 1;
	if ((unsigned char)s[i] >= 0x80)
		while (j < n && ((unsigned char)s[j] & 0xC0) == 0x80)
			j++;
	return j - i;
}

static bool lex(struct parser *p)
{
	const char *s = p->s;
	size_t n = p->n, i = 0;
	for (;;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
			i++;
		if (i >= n) {
			push_token(p, T_END, n, 0);
			return true;
		}
		size_t end = i + 1;
		enum tok_kind kind;
		char c = s[i], c2 = i + 1 < n ? s[i + 1] : '\0';
		if (is_digit(c)) {
			if (!lex_number(p, i, &end))
				return false;
			kind = T_NUM;
		} else if (is_name_start(c)) {
			while (end < n && is_name_char(s[end]))
				end++;
			kind = T_NAME;
			if (end - i == 3 && memcmp(s + i, "and", 3) == 0)
				kind = T_AND;
			else if (end - i == 2 && memcmp(s + i, "or", 2) == 0)
				kind = T_OR;
			else if (end - i == 3 && memcmp(s + i, "not", 3) == 0)
				kind = T_NOT;
		} else if (c == '\'' || c == '"') {
			if (!lex_string(p, i, &end))
				return false;
			kind = T_STR;
		} else {
			switch (c) {
			case '(': kind = T_LPAREN; break;
			case ')': kind = T_RPAREN; break;
			case '[': kind = T_LBRACK; break;
			case ']': kind = T_RBRACK; break;
			case '.': kind = T_DOT; break;
			case ',': kind = T_COMMA; break;
			case '+': kind = T_PLUS; break;
			case '-': kind = T_MINUS; break;
			case '*': kind = T_STAR; break;
			case '/': kind = T_SLASH; break;
			case '=':
				kind = c2 == '=' ? T_EQ : T_ASSIGN;
				break;
			case '<':
				kind = c2 == '=' ? T_LE : T_LT;
				break;
			case '>':
				kind = c2 == '=' ? T_GE : T_GT;
				break;
			case '!':
				if (c2 != '=') {
					perr(p, i, 1, "unexpected '!' (write 'not' to negate)");
					return false;
				}
				kind = T_NE;
				break;
			case '&':
				perr(p, i, c2 == '&' ? 2 : 1, "unexpected '%s' (write 'and')",
				     c2 == '&' ? "&&" : "&");
				return false;
			case '|':
				perr(p, i, c2 == '|' ? 2 : 1, "unexpected '%s' (write 'or')",
				     c2 == '|' ? "||" : "|");
				return false;
			default: {
				size_t cl = char_len(s, i, n);
				if ((unsigned char)c < 0x20 || c == 0x7F)
					perr(p, i, 1, "unexpected character 0x%02x",
					     (unsigned)(unsigned char)c);
				else
					perr(p, i, cl, "unexpected character '%.*s'", (int)cl,
					     s + i);
				return false;
			}
			}
			if (kind == T_EQ || kind == T_NE || kind == T_LE || kind == T_GE)
				end = i + 2;
		}
		push_token(p, kind, i, end - i);
		i = end;
	}
}

static const struct token *peek(const struct parser *p)
{
	return &p->toks[p->pos];
}

static const struct token *advance(struct parser *p)
{
	const struct token *t = &p->toks[p->pos];
	if (t->kind != T_END)
		p->pos++;
	return t;
}

/* "'x'" or "the end of the expression", for "expected ..., found X". */
static const char *found(struct parser *p, const struct token *t)
{
	if (t->kind == T_END)
		return "the end of the expression";
	size_t max = sizeof p->desc - 6;
	if (t->len > max)
		snprintf(p->desc, sizeof p->desc, "'%.*s...'", (int)(max - 3), p->s + t->off);
	else
		snprintf(p->desc, sizeof p->desc, "'%.*s'", (int)t->len, p->s + t->off);
	return p->desc;
}

/* Names may be spelled like keywords after a '.' or a '[': "r.not" is
 * unambiguous there. */
static bool is_name_token(const struct token *t)
{
	return t->kind == T_NAME || t->kind == T_AND || t->kind == T_OR || t->kind == T_NOT;
}

static bool is_cmp_token(const struct token *t)
{
	return t->kind >= T_EQ && t->kind <= T_GE;
}

static struct node *node_new(enum node_kind kind, size_t off, size_t end)
{
	struct node *n = xcalloc(1, sizeof *n);
	n->kind = kind;
	n->off = off;
	n->len = end - off;
	n->height = 1;
	return n;
}

/* Sets n's height from its children; a tree too deep is an error (and
 * n is freed). */
static struct node *node_check(struct parser *p, struct node *n)
{
	int h = 0;
	if (n->a && n->a->height > h)
		h = n->a->height;
	if (node_is_chain(n) && node_is_chain(n->a))
		h--; /* evaluated in the same loop (node.h) */
	if (n->b && n->b->height > h)
		h = n->b->height;
	for (size_t i = 0; i < n->nargs; i++)
		if (n->args[i]->height > h)
			h = n->args[i]->height;
	n->height = h + 1;
	if (n->height > EXPR_MAX_DEPTH) {
		perr(p, n->op_off, n->op_len, "expression nested too deeply (more than %d levels; %s)",
		     EXPR_MAX_DEPTH, limit_hint(LIMIT_EXPR_DEPTH));
		node_free(n);
		return NULL;
	}
	return n;
}

/* Counts a level of recursion: the stack is what deep nesting would
 * exhaust, before any node is built. */
static bool enter(struct parser *p, const struct token *t)
{
	if (++p->depth > EXPR_MAX_DEPTH) {
		perr(p, t->off, t->len, "expression nested too deeply (more than %d levels; %s)",
		     EXPR_MAX_DEPTH, limit_hint(LIMIT_EXPR_DEPTH));
		return false;
	}
	return true;
}

static struct node *binary(struct parser *p, enum node_kind kind, enum bin_op op,
			   const struct token *t, struct node *a, struct node *b)
{
	struct node *n = node_new(kind, a->off, b->off + b->len);
	n->op = op;
	n->op_off = t->off;
	n->op_len = t->len;
	n->a = a;
	n->b = b;
	return node_check(p, n);
}

static struct node *parse_or(struct parser *p);

static char *unescape(const char *s, size_t n, size_t *out_len)
{
	char *out = xmalloc(n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			char c = s[++i];
			switch (c) {
			case 'n': out[k++] = '\n'; break;
			case 't': out[k++] = '\t'; break;
			case '\\':
			case '\'':
			case '"': out[k++] = c; break;
			default:
				/* Not an escape: keep it as written, as Python does. */
				out[k++] = '\\';
				out[k++] = c;
			}
		} else {
			out[k++] = s[i];
		}
	}
	out[k] = '\0';
	*out_len = k;
	return out;
}

static double token_number(const struct parser *p, const struct token *t)
{
	char *tmp = xstrndup(p->s + t->off, t->len);
	double v = strtod(tmp, NULL);
	free(tmp);
	return v;
}

/* NAME '(' args ')' */
static struct node *parse_call(struct parser *p, const struct token *name)
{
	char *fname = xstrndup(p->s + name->off, name->len);
	const struct func *fn = expr_find_func(fname);
	if (!fn) {
		const char *cands[ARRAY_LEN(funcs) + 1];
		for (size_t i = 0; i < ARRAY_LEN(funcs); i++)
			cands[i] = funcs[i].name;
		cands[ARRAY_LEN(funcs)] = NULL;
		const char *hint = closest_name(fname, cands);
		if (hint)
			perr(p, name->off, name->len, "unknown function '%s' (did you mean '%s'?)",
			     fname, hint);
		else
			perr(p, name->off, name->len,
			     "unknown function '%s' (the functions: mean, median, min, max, sum, "
			     "count, first, last, std, percentile, abs, round)",
			     fname);
		free(fname);
		return NULL;
	}
	free(fname);
	const struct token *lp = advance(p);
	if (!enter(p, lp))
		return NULL;
	struct node *n = node_new(N_CALL, name->off, name->off + name->len);
	n->fn = fn;
	n->op_off = name->off;
	n->op_len = name->len;
	size_t cap = 0;
	if (peek(p)->kind != T_RPAREN) {
		for (;;) {
			struct node *a = parse_or(p);
			if (!a) {
				node_free(n);
				return NULL;
			}
			if (n->nargs == cap) {
				cap = cap ? cap * 2 : 2;
				n->args = xrealloc(n->args, cap * sizeof *n->args);
			}
			n->args[n->nargs++] = a;
			if (peek(p)->kind != T_COMMA)
				break;
			advance(p);
		}
	}
	if (peek(p)->kind != T_RPAREN) {
		const struct token *t = peek(p);
		perr(p, t->off, t->len, "expected ')' after the arguments of %s, found %s",
		     fn->name, found(p, t));
		node_free(n);
		return NULL;
	}
	const struct token *rp = advance(p);
	p->depth--;
	n->len = rp->off + 1 - n->off;
	if ((int)n->nargs < fn->min_args || (int)n->nargs > fn->max_args) {
		if (fn->min_args == fn->max_args)
			perr(p, name->off, name->len, "%s takes %d argument%s, found %zu",
			     fn->usage, fn->min_args, fn->min_args == 1 ? "" : "s", n->nargs);
		else
			perr(p, name->off, name->len, "%s takes %d or %d arguments, found %zu",
			     fn->usage, fn->min_args, fn->max_args, n->nargs);
		node_free(n);
		return NULL;
	}
	return node_check(p, n);
}

/* primary := NUMBER | STRING | NAME | NAME '(' args ')' | '(' expr ')' */
static struct node *parse_primary(struct parser *p)
{
	const struct token *t = peek(p);
	struct node *n;
	switch (t->kind) {
	case T_NUM:
		advance(p);
		n = node_new(N_NUM, t->off, t->off + t->len);
		n->num = token_number(p, t);
		return n;
	case T_STR:
		advance(p);
		n = node_new(N_STR, t->off, t->off + t->len);
		n->str = unescape(p->s + t->off + 1, t->len - 2, &n->slen);
		return n;
	case T_NAME:
		advance(p);
		if (peek(p)->kind == T_LPAREN)
			return parse_call(p, t);
		n = node_new(N_NAME, t->off, t->off + t->len);
		n->str = xstrndup(p->s + t->off, t->len);
		n->op_off = t->off;
		n->op_len = t->len;
		return n;
	case T_LPAREN: {
		advance(p);
		if (!enter(p, t))
			return NULL;
		n = parse_or(p);
		if (!n)
			return NULL;
		const struct token *r = peek(p);
		if (r->kind != T_RPAREN) {
			perr(p, r->off, r->len, "expected ')' to match the '(', found %s",
			     found(p, r));
			diag_note(p->d, expr_loc(p->e, t->off, 1), "the '(' is here");
			node_free(n);
			return NULL;
		}
		advance(p);
		p->depth--;
		/* The parentheses belong to the node: messages quote it as
		 * written, and a binary node's span covers them. */
		n->off = t->off;
		n->len = r->off + 1 - t->off;
		return n;
	}
	default:
		perr(p, t->off, t->len, "expected a value, found %s", found(p, t));
		return NULL;
	}
}

/* The literal of a row lookup: a number (signed), a string or a bare
 * word ("source=groq"). */
static bool parse_literal(struct parser *p, struct step *st)
{
	const struct token *t = peek(p);
	size_t start = t->off;
	bool neg = false;
	if (t->kind == T_MINUS) {
		neg = true;
		advance(p);
		t = peek(p);
		if (t->kind != T_NUM) {
			perr(p, t->off, t->len, "expected a number after '-', found %s",
			     found(p, t));
			return false;
		}
	}
	if (t->kind == T_NUM) {
		st->lit_is_num = true;
		st->lit_num = neg ? -token_number(p, t) : token_number(p, t);
		st->lit_len = t->off + t->len - start;
		st->lit = xstrndup(p->s + start, st->lit_len);
	} else if (t->kind == T_STR) {
		st->lit = unescape(p->s + t->off + 1, t->len - 2, &st->lit_len);
	} else if (is_name_token(t)) {
		st->lit_len = t->len;
		st->lit = xstrndup(p->s + t->off, t->len);
	} else {
		perr(p, t->off, t->len, "expected a number, a string or a word after '=', found %s",
		     found(p, t));
		return false;
	}
	advance(p);
	st->lit_off = start;
	st->lit_tlen = t->off + t->len - start;
	return true;
}

/* The NAME of a step; `what` is what the message says was expected. */
static bool parse_step_name(struct parser *p, struct step *st, const char *what)
{
	const struct token *t = peek(p);
	if (!is_name_token(t)) {
		perr(p, t->off, t->len, "expected %s, found %s", what, found(p, t));
		return false;
	}
	advance(p);
	st->name = xstrndup(p->s + t->off, t->len);
	st->off = t->off;
	st->len = t->len;
	return true;
}

/* '.' NAME */
static bool parse_dot(struct parser *p, const struct token *dot, struct step *st)
{
	st->start = dot->off;
	if (!parse_step_name(p, st, "a name after '.'"))
		return false;
	st->end = st->off + st->len;
	return true;
}

/* '[' NAME '=' literal ']'; '==' is forgiven for '='. */
static bool parse_lookup(struct parser *p, const struct token *lb, struct step *st)
{
	st->lookup = true;
	st->start = lb->off;
	if (!parse_step_name(p, st, "a column name after '['"))
		return false;
	const struct token *eq = peek(p);
	if (eq->kind != T_ASSIGN && eq->kind != T_EQ) {
		perr(p, eq->off, eq->len, "expected '=' after '[%s', found %s", st->name,
		     found(p, eq));
		return false;
	}
	advance(p);
	if (!parse_literal(p, st))
		return false;
	const struct token *rb = peek(p);
	if (rb->kind != T_RBRACK) {
		perr(p, rb->off, rb->len, "expected ']' to close the row lookup, found %s",
		     found(p, rb));
		return false;
	}
	advance(p);
	st->end = rb->off + 1;
	return true;
}

/* post := primary ('.' NAME | '[' NAME '=' literal ']')* */
static struct node *parse_post(struct parser *p)
{
	struct node *base = parse_primary(p);
	if (!base)
		return NULL;
	enum tok_kind k = peek(p)->kind;
	if (k != T_DOT && k != T_LBRACK)
		return base;
	struct node *n = node_new(N_POST, base->off, base->off + base->len);
	n->a = base;
	n->op_off = base->off;
	n->op_len = base->len;
	size_t cap = 0;
	while ((k = peek(p)->kind) == T_DOT || k == T_LBRACK) {
		const struct token *t = advance(p);
		if (n->nsteps == cap) {
			cap = cap ? cap * 2 : 4;
			n->steps = xrealloc(n->steps, cap * sizeof *n->steps);
		}
		struct step *st = &n->steps[n->nsteps++];
		memset(st, 0, sizeof *st);
		if (!(k == T_DOT ? parse_dot(p, t, st) : parse_lookup(p, t, st))) {
			node_free(n);
			return NULL;
		}
		n->len = st->end - n->off;
	}
	/* as long as the chain: a page holds a node a value (four steps
	 * each were 290 bytes a value more) */
	if (n->nsteps < cap)
		n->steps = xrealloc(n->steps, n->nsteps * sizeof *n->steps);
	return node_check(p, n);
}

/* A prefix operator (the token t, already taken) applied to what
 * `operand` parses next: '-' unary, 'not' not. */
static struct node *prefix(struct parser *p, const struct token *t, enum node_kind kind,
			   struct node *(*operand)(struct parser *))
{
	if (!enter(p, t))
		return NULL;
	struct node *a = operand(p);
	if (!a)
		return NULL;
	p->depth--;
	struct node *n = node_new(kind, t->off, a->off + a->len);
	n->op_off = t->off;
	n->op_len = t->len;
	n->a = a;
	return node_check(p, n);
}

/* unary := '-' unary | post */
static struct node *parse_unary(struct parser *p)
{
	const struct token *t = peek(p);
	if (t->kind != T_MINUS)
		return parse_post(p);
	advance(p);
	return prefix(p, t, N_NEG, parse_unary);
}

/* An operator of one level of left-associative operators: its token
 * and what it builds. */
struct infix {
	enum tok_kind tok;
	enum node_kind kind;
	enum bin_op op;
};

/* operand (op operand)*, for the ops of one level, built to the left:
 * a - b - c is (a - b) - c.  'and' and 'or' use it too, op unused. */
static struct node *left_assoc(struct parser *p, struct node *(*operand)(struct parser *),
			       const struct infix *ops, size_t nops)
{
	struct node *a = operand(p);
	while (a) {
		const struct infix *in = NULL;
		for (size_t i = 0; i < nops && !in; i++)
			if (peek(p)->kind == ops[i].tok)
				in = &ops[i];
		if (!in)
			break;
		const struct token *t = advance(p);
		struct node *b = operand(p);
		if (!b) {
			node_free(a);
			return NULL;
		}
		a = binary(p, in->kind, in->op, t, a, b);
	}
	return a;
}

/* prod := unary (('*'|'/') unary)* */
static struct node *parse_prod(struct parser *p)
{
	static const struct infix ops[] = {{T_STAR, N_BIN, OP_MUL}, {T_SLASH, N_BIN, OP_DIV}};
	return left_assoc(p, parse_unary, ops, ARRAY_LEN(ops));
}

/* sum := prod (('+'|'-') prod)* */
static struct node *parse_sum(struct parser *p)
{
	static const struct infix ops[] = {{T_PLUS, N_BIN, OP_ADD}, {T_MINUS, N_BIN, OP_SUB}};
	return left_assoc(p, parse_prod, ops, ARRAY_LEN(ops));
}

/* cmp := sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)? */
static struct node *parse_cmp(struct parser *p)
{
	struct node *a = parse_sum(p);
	if (!a || !is_cmp_token(peek(p)))
		return a;
	const struct token *t = advance(p);
	struct node *b = parse_sum(p);
	if (!b) {
		node_free(a);
		return NULL;
	}
	static const enum bin_op ops[] = {OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE};
	struct node *n = binary(p, N_BIN, ops[t->kind - T_EQ], t, a, b);
	const struct token *t2 = peek(p);
	if (n && is_cmp_token(t2)) {
		perr(p, t2->off, t2->len,
		     "comparisons do not chain: join them with 'and' (a < b and b < c)");
		node_free(n);
		return NULL;
	}
	return n;
}

/* not := 'not' not | cmp */
static struct node *parse_not(struct parser *p)
{
	const struct token *t = peek(p);
	if (t->kind != T_NOT)
		return parse_cmp(p);
	advance(p);
	return prefix(p, t, N_NOT, parse_not);
}

/* and := not ('and' not)* */
static struct node *parse_and(struct parser *p)
{
	static const struct infix ops[] = {{T_AND, N_AND, OP_ADD}};
	return left_assoc(p, parse_not, ops, ARRAY_LEN(ops));
}

/* or := and ('or' and)* */
static struct node *parse_or(struct parser *p)
{
	static const struct infix ops[] = {{T_OR, N_OR, OP_ADD}};
	return left_assoc(p, parse_and, ops, ARRAY_LEN(ops));
}

struct expr *expr_parse(const char *text, size_t len, struct loc at, struct diag *d)
{
	struct expr *e = xcalloc(1, sizeof *e);
	e->text = xmalloc(len + 1);
	memcpy(e->text, text, len);
	e->text[len] = '\0';
	e->len = len;
	e->file = at.file ? xstrdup(at.file) : NULL;
	e->line = at.line;
	e->col = at.col;

	struct parser p = {0};
	p.e = e;
	p.s = e->text;
	p.n = len;
	p.d = d;
	if (!lex(&p))
		goto fail;
	if (peek(&p)->kind == T_END) {
		perr(&p, 0, 0, "empty expression");
		goto fail;
	}
	e->root = parse_or(&p);
	if (!e->root)
		goto fail;
	const struct token *t = peek(&p);
	if (t->kind == T_ASSIGN) {
		perr(&p, t->off, t->len, "unexpected '=' (write '==' to compare)");
		goto fail;
	} else if (t->kind == T_RPAREN) {
		perr(&p, t->off, t->len, "unexpected ')' without a matching '('");
		goto fail;
	} else if (t->kind != T_END) {
		perr(&p, t->off, t->len, "unexpected %s after the expression", found(&p, t));
		goto fail;
	}
	free(p.toks);
	return e;
fail:
	free(p.toks);
	expr_free(e);
	return NULL;
}

bool expr_is_reference(const struct expr *e)
{
	const struct node *n = e->root;
	/* A parenthesised name is not written as the log's name is. */
	if (n->kind == N_NAME)
		return n->off == n->op_off;
	if (n->kind != N_POST || n->a->kind != N_NAME)
		return false;
	if (n->a->off != n->a->op_off)
		return false;
	for (size_t i = 0; i < n->nsteps; i++)
		if (n->steps[i].lookup)
			return false;
	return true;
}
