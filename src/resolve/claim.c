/* claim.c: claims on values (claim.h): read with each problem at its
 * column, checked against the number at full precision, and said as
 * the page shows the value. */
#include "resolve/claim.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "data/value.h"
#include "expr/expr.h"
#include "resolve/directive.h"
#include "memoize.h"
#include "resolve/show.h"

#define FORMS "< N, <= N, > N, >= N, == N, != N, N ± T, N ± T%%, ± T%%, or A to B"

size_t claim_split(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'' || s[i] == '"') {
			i = show_skip_quoted(s, i, n);
		} else if (s[i] == '|') {
			if (i + 1 < n && s[i + 1] == '|') {
				i++; /* "||": the expression's to report */
				continue;
			}
			return i;
		}
	}
	return n;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

static size_t skip_blanks(const char *s, size_t i, size_t n)
{
	while (i < n && blank(s[i]))
		i++;
	return i;
}

/* The place of s[off..off+len) when s[0] is at `at`. */
static struct loc place(struct loc at, size_t off, size_t len)
{
	at.col += (int)off;
	at.len = (int)(len ? len : 1);
	return at;
}

/* The length of the word (up to a blank) at s[i]. */
static size_t token_len(const char *s, size_t i, size_t n)
{
	size_t j = i;
	while (j < n && !blank(s[j]))
		j++;
	return j - i;
}

static bool starts(const char *s, size_t i, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	return n - i >= k && memcmp(s + i, lit, k) == 0;
}

/* "±" or "+-" at s[i]: its length, else 0. */
static size_t plus_minus(const char *s, size_t i, size_t n)
{
	if (starts(s, i, n, "\xC2\xB1"))
		return 2;
	if (starts(s, i, n, "+-"))
		return 2;
	return 0;
}

/* A number at s[*i] ([+-]digits[.digits][e[+-]digits], or .digits),
 * then an optional '%'.  `after` names what it follows, for the
 * message.  False after reporting. */
static bool read_number(const char *s, size_t *i, size_t n, struct loc at, const char *after,
			double *out, bool *percent, struct diag *d)
{
	size_t j = *i, start = j;
	if (j >= n) {
		/* under what it follows */
		while (j > 0 && blank(s[j - 1]))
			j--;
		size_t k = j ? j - 1 : 0;
		while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
			k--; /* the start of a "±" */
		diag_error(d, place(at, k, j - k), "missing number after %s", after);
		return false;
	}
	if (s[j] == '+' || s[j] == '-')
		j++;
	size_t digits = 0;
	while (j < n && s[j] >= '0' && s[j] <= '9')
		j++, digits++;
	if (j < n && s[j] == '.') {
		j++;
		while (j < n && s[j] >= '0' && s[j] <= '9')
			j++, digits++;
	}
	if (digits && j + 1 < n && (s[j] == 'e' || s[j] == 'E')) {
		size_t k = j + 1;
		if (k < n && (s[k] == '+' || s[k] == '-'))
			k++;
		if (k < n && s[k] >= '0' && s[k] <= '9') {
			while (k < n && s[k] >= '0' && s[k] <= '9')
				k++;
			j = k;
		}
	}
	size_t word = token_len(s, start, n);
	if (!digits) {
		char *w = xstrndup(s + start, word);
		for (char *p = w; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
		const char *t = w + (*w == '+' || *w == '-');
		if (strcmp(t, "nan") == 0 || strcmp(t, "inf") == 0 || strcmp(t, "infinity") == 0)
			diag_error(d, place(at, start, word),
				   "a claim's number is finite, not '%.*s'", (int)word, s + start);
		else
			diag_error(d, place(at, start, word), "expected a number after %s, not '%.*s'",
				   after, (int)word, s + start);
		free(w);
		return false;
	}
	char *num = xstrndup(s + start, j - start);
	*out = strtod(num, NULL);
	free(num);
	if (!isfinite(*out)) {
		diag_error(d, place(at, start, j - start), "a claim's number is finite, not '%.*s'",
			   (int)(j - start), s + start);
		return false;
	}
	*percent = j < n && s[j] == '%';
	if (*percent)
		j++;
	if (j < n && !blank(s[j])) {
		diag_error(d, place(at, start, word), "'%.*s' is not a number", (int)word, s + start);
		return false;
	}
	*i = j;
	return true;
}

/* A tolerance after "±" at s[*i]: not negative; T% sets *percent. */
static bool read_tolerance(const char *s, size_t *i, size_t n, struct loc at, struct claim *c,
			   struct diag *d)
{
	size_t from = *i;
	if (!read_number(s, i, n, at, "'±'", &c->tol, &c->percent, d))
		return false;
	if (c->tol < 0) {
		diag_error(d, place(at, from, *i - from),
			   "a tolerance is not negative: write '± %.*s'", (int)(*i - from - 1),
			   s + from + 1);
		return false;
	}
	if (c->percent)
		c->tol /= 100;
	return true;
}

static const struct {
	const char *text;
	enum claim_op op;
} ops[] = {
	{"<=", CLAIM_LE}, {">=", CLAIM_GE}, {"==", CLAIM_EQ}, {"!=", CLAIM_NE},
	{"\xE2\x89\xA4", CLAIM_LE}, {"\xE2\x89\xA5", CLAIM_GE}, {"\xE2\x89\xA0", CLAIM_NE},
	{"<", CLAIM_LT}, {">", CLAIM_GT},
};

/* Near misses of an operator and what to write instead. */
static const char *const misses[][2] = {
	{"=<", "<="}, {"=>", ">="}, {"=", "=="}, {"===", "=="}, {"<>", "!="}, {"=!", "!="},
	{"~", "±"}, {"~=", "±"}, {"\xE2\x89\x88", "±"}, {"+/-", "±"},
};

/* Does the claim end at s[j] (blanks aside)?  Else an error at what
 * follows it. */
static bool claim_ends(const char *s, size_t j, size_t n, struct loc at, struct diag *d)
{
	j = skip_blanks(s, j, n);
	if (j == n)
		return true;
	diag_error(d, place(at, j, n - j),
		   "unexpected '%.*s' after the claim: one claim a value, one of " FORMS,
		   (int)(n - j), s + j);
	return false;
}

/* The claim proper, from s[i] (after "expect"). */
static bool read_claim(const char *s, size_t i, size_t n, struct loc at, struct claim *c,
		       struct diag *d)
{
	for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
		if (!starts(s, i, n, ops[k].text))
			continue;
		size_t oplen = strlen(ops[k].text);
		char *after = xasprintf("'%s'", ops[k].text);
		size_t j = skip_blanks(s, i + oplen, n);
		bool percent, ok = read_number(s, &j, n, at, after, &c->a, &percent, d);
		free(after);
		if (!ok)
			return false;
		if (percent)
			c->a /= 100;
		c->op = ops[k].op;
		return claim_ends(s, j, n, at, d);
	}
	size_t pm = plus_minus(s, i, n);
	if (pm) {
		size_t j = skip_blanks(s, i + pm, n);
		c->op = CLAIM_NEAR;
		c->relative = true;
		if (!read_tolerance(s, &j, n, at, c, d))
			return false;
		return claim_ends(s, j, n, at, d);
	}
	bool number_first = (s[i] >= '0' && s[i] <= '9') || s[i] == '.' ||
			    ((s[i] == '-' || s[i] == '+') && i + 1 < n &&
			     ((s[i + 1] >= '0' && s[i + 1] <= '9') || s[i + 1] == '.'));
	size_t w = token_len(s, i, n);
	if (!number_first) {
		for (size_t k = 0; k < sizeof misses / sizeof *misses; k++)
			if (w == strlen(misses[k][0]) && memcmp(s + i, misses[k][0], w) == 0) {
				diag_error(d, place(at, i, w),
					   "unknown operator '%.*s' (did you mean '%s'?): a claim is "
					   FORMS, (int)w, s + i, misses[k][1]);
				return false;
			}
		size_t opl = 0;
		while (i + opl < n && !blank(s[i + opl]) && !(s[i + opl] >= '0' && s[i + opl] <= '9'))
			opl++;
		diag_error(d, place(at, i, opl), "unknown operator '%.*s': a claim is " FORMS,
			   (int)opl, s + i);
		return false;
	}
	size_t j = i;
	bool percent;
	if (!read_number(s, &j, n, at, "'expect'", &c->a, &percent, d))
		return false;
	if (percent)
		c->a /= 100;
	size_t num_end = j;
	j = skip_blanks(s, j, n);
	if ((pm = plus_minus(s, j, n)) != 0) {
		j = skip_blanks(s, j + pm, n);
		c->op = CLAIM_NEAR;
		if (!read_tolerance(s, &j, n, at, c, d))
			return false;
	} else if (starts(s, j, n, "to") && (j + 2 == n || blank(s[j + 2]))) {
		size_t lo_end = j;
		j = skip_blanks(s, j + 2, n);
		c->op = CLAIM_RANGE;
		if (!read_number(s, &j, n, at, "'to'", &c->b, &percent, d))
			return false;
		if (percent)
			c->b /= 100;
		if (c->b < c->a) {
			diag_error(d, place(at, i, j - i),
				   "a range's low end comes first: write '%.*s to %.*s'",
				   (int)(j - skip_blanks(s, lo_end + 2, n)),
				   s + skip_blanks(s, lo_end + 2, n), (int)(num_end - i), s + i);
			return false;
		}
	} else if (j == n) {
		diag_error(d, place(at, i, num_end - i),
			   "missing operator before '%.*s': write '== %.*s', '%.*s ± T' or another "
			   "of " FORMS,
			   (int)(num_end - i), s + i, (int)(num_end - i), s + i, (int)(num_end - i),
			   s + i);
		return false;
	} else {
		w = token_len(s, j, n);
		diag_error(d, place(at, j, w), "unknown operator '%.*s': a claim is " FORMS, (int)w,
			   s + j);
		return false;
	}
	return claim_ends(s, j, n, at, d);
}

bool claim_parse(const char *s, size_t n, struct loc at, bool keyword, struct claim *c,
		 struct diag *d)
{
	memset(c, 0, sizeof *c);
	while (n && (blank(s[n - 1]) || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	size_t i = skip_blanks(s, 0, n);
	size_t w = 0;
	while (i + w < n && ((s[i + w] >= 'a' && s[i + w] <= 'z') ||
			     (s[i + w] >= 'A' && s[i + w] <= 'Z') || s[i + w] == '_'))
		w++;
	size_t first = i;
	if (w == 6 && memcmp(s + i, "expect", 6) == 0) {
		size_t j = skip_blanks(s, i + 6, n);
		if (j == n) {
			diag_error(d, place(at, i, 6),
				   "missing claim after 'expect': e.g. 'expect < 8', 'expect 7.1 ± 0.1' "
				   "or 'expect ±5%%'");
			return false;
		}
		i = j;
	} else if (keyword) {
		if (i == n) {
			diag_error(d, place(at, 0, 1),
				   "a '|' starts a claim and nothing follows it: e.g. "
				   "{{ x | expect < 8 }}");
			return false;
		}
		if (w) {
			char *word = xstrndup(s + i, w);
			const char *const names[] = {"expect", NULL};
			const char *near = closest_name(word, names);
			size_t t = token_len(s, i, n);
			if (near)
				diag_error(d, place(at, i, w), "unknown claim '%s' (did you mean 'expect'?)",
					   word);
			else
				diag_error(d, place(at, i, t),
					   "a '|' in a value starts a claim, as in {{ x | expect < 8 }}, "
					   "not '%.*s' (to combine conditions, write 'or')",
					   (int)t, s + i);
			free(word);
			return false;
		}
		diag_error(d, place(at, i, token_len(s, i, n)),
			   "a claim starts with 'expect': write '| expect %.*s'", (int)(n - i), s + i);
		return false;
	} else if (i == n) {
		diag_error(d, place(at, 0, 1),
			   "missing claim: e.g. '< 8', '7.1 ± 0.1' or '±5%%'");
		return false;
	}
	c->text = s + i;
	c->len = n - i;
	c->at = place(at, first, n - first);
	return read_claim(s, i, n, at, c, d);
}

/* Within tol of centre, its edge included: a tolerance written in
 * decimal is met by a value on its edge, whatever binary makes of the
 * difference (7.2 - 7.1 is 0.10000000000000053). */
static bool within(double v, double centre, double tol)
{
	double slack = 1e-9 * fmax(fabs(v), fmax(fabs(centre), tol));
	return fabs(v - centre) <= tol + slack;
}

static double tolerance(const struct claim *c, double centre)
{
	return c->percent ? fabs(centre) * c->tol : c->tol;
}

bool claim_holds(const struct claim *c, double v, double base)
{
	if (isnan(v))
		return false;
	switch (c->op) {
	case CLAIM_LT:
		return v < c->a;
	case CLAIM_LE:
		return v <= c->a;
	case CLAIM_GT:
		return v > c->a;
	case CLAIM_GE:
		return v >= c->a;
	case CLAIM_EQ:
		return v == c->a;
	case CLAIM_NE:
		return v != c->a;
	case CLAIM_NEAR: {
		double centre = c->relative ? base : c->a;
		if (!isfinite(v) || !isfinite(centre))
			return false;
		return within(v, centre, tolerance(c, centre));
	}
	case CLAIM_RANGE:
		return v >= c->a && v <= c->b;
	}
	return false;
}

/* A number for a message: up to 10 significant digits. */
static void put_num(struct buf *b, double x)
{
	char t[64];
	snprintf(t, sizeof t, "%.10g", x);
	buf_puts(b, t);
}

/* Does the text shown read as the number itself, not rounded (its
 * thousands separators aside)? */
static bool shows_number(const char *shown, double num)
{
	struct buf t = BUF_INIT, s = BUF_INIT;
	for (const char *p = shown; *p; p++)
		if (*p != ',')
			buf_putc(&t, *p);
	number_put_short(&s, num);
	char *end;
	double x = strtod(buf_data(&t), &end);
	bool same = (end != buf_data(&t) && x == num) || strcmp(buf_data(&t), buf_data(&s)) == 0;
	buf_free(&t);
	buf_free(&s);
	return same;
}

enum claim_outcome claim_check(const struct claim *c, const char *expr, const struct eval *v,
			       const char *shown, const char *who, const struct claim_base *base,
			       size_t occurrence, bool warn_only, double *base_num,
			       struct diag *d)
{
	*base_num = NAN;
	if (v->kind == EVAL_MISSING) {
		/* The page shows "n/a" and says nothing: a claim that cannot
		 * be checked must not pass unseen. */
		if (warn_only)
			diag_warning(d, c->at, "the claim '%.*s' cannot be checked: %s", (int)c->len,
				     c->text, v->why ? v->why : "the value is missing");
		else
			diag_error(d, c->at, "the claim '%.*s' cannot be checked: %s", (int)c->len,
				   c->text, v->why ? v->why : "the value is missing");
		return CLAIM_UNCHECKED;
	}
	if (v->kind == EVAL_STRING) {
		diag_error(d, c->at, "a claim needs a number; %s is the text '%.*s'", expr,
			   (int)v->len, v->text ? v->text : "");
		return CLAIM_BAD;
	}
	if (v->kind != EVAL_NUMBER) {
		diag_error(d, c->at, "a claim needs a number; %s is %s", expr,
			   v->kind == EVAL_BOOL ? (v->boolean ? "true" : "false") : "a list");
		return CLAIM_BAD;
	}
	double committed = NAN;
	if (c->op == CLAIM_NEAR && c->relative) {
		char *why = NULL;
		if (!base || !base->find(base->ctx, expr, occurrence, &committed, &why)) {
			diag_note(d, c->at, "the claim '%.*s' on %s was not checked: %s", (int)c->len,
				  c->text, expr, why ? why : "there is no committed value to compare with");
			free(why);
			return CLAIM_UNCHECKED;
		}
		*base_num = committed;
	}
	if (claim_holds(c, v->num, committed))
		return CLAIM_HELD;
	struct buf m = BUF_INIT;
	buf_printf(&m, "%s is %s", expr, shown);
	if (!shows_number(shown, v->num)) {
		buf_puts(&m, " (unrounded ");
		number_put_short(&m, v->num);
		buf_puts(&m, ")");
	}
	buf_printf(&m, ", the %s claims %.*s", who, (int)c->len, c->text);
	if (c->op == CLAIM_NEAR) {
		double centre = c->relative ? committed : c->a;
		double tol = tolerance(c, centre);
		if (c->relative) {
			buf_puts(&m, " of the committed ");
			put_num(&m, committed);
		}
		buf_puts(&m, " (");
		put_num(&m, centre - tol);
		buf_puts(&m, " to ");
		put_num(&m, centre + tol);
		buf_puts(&m, ")");
	}
	if (warn_only)
		diag_warning(d, c->at, "%s", buf_data(&m));
	else
		diag_error(d, c->at, "%s", buf_data(&m));
	buf_free(&m);
	return CLAIM_BROKE;
}

size_t claims_add(struct claims *cl, const struct claim *c, const char *expr, size_t len)
{
	while (len && blank(*expr))
		expr++, len--;
	while (len && blank(expr[len - 1]))
		len--;
	cl->p = xrealloc(cl->p, (cl->n + 1) * sizeof *cl->p);
	cl->parsed = xrealloc(cl->parsed, (cl->n + 1) * sizeof *cl->parsed);
	struct claim_record *r = &cl->p[cl->n];
	*r = (struct claim_record){.at = c->at, .expr = xstrndup(expr, len),
				   .claim = xstrndup(c->text, c->len), .outcome = CLAIM_UNCHECKED,
				   .relative = c->relative};
	for (size_t i = 0; i < cl->n; i++)
		if (strcmp(cl->p[i].expr, r->expr) == 0)
			r->occurrence++;
	cl->parsed[cl->n] = *c;
	return ++cl->n;
}

void claims_check(struct claims *cl, size_t id, const struct directive_ctx *ctx,
		  const struct eval *v, const char *shown, const char *who)
{
	assert(id >= 1 && id <= cl->n);
	struct claim_record *r = &cl->p[id - 1];
	double base;
	r->outcome = claim_check(&cl->parsed[id - 1], r->expr, v, shown, who, ctx->claim_base,
				 r->occurrence, ctx->claims_warn, &base, ctx->d);
	r->has_num = v->kind == EVAL_NUMBER;
	r->num = r->has_num ? v->num : 0;
	(void)base;
}

void claims_front(struct claims *cl, const struct directive_ctx *ctx)
{
	const struct value *m = ctx->expect;
	if (!m)
		return;
	if (m->kind != VALUE_MAP) {
		diag_error(ctx->d, m->loc,
			   "'expect' is a map of expression: claim, e.g. expect: {b.final_loss: < 8}");
		return;
	}
	for (size_t i = 0; i < m->count; i++) {
		const struct value *v = m->items[i];
		const char *key = m->keys[i];
		struct loc key_at = m->key_locs[i];
		if (v->kind != VALUE_STRING && v->kind != VALUE_NUMBER) {
			diag_error(ctx->d, v->kind == VALUE_NULL ? key_at : v->loc,
				   "the claim on %s is text, e.g. %s: '< 8' or '7.1 ± 0.1'", key, key);
			continue;
		}
		/* A quoted claim's text starts after its quote: the YAML
		 * scalar is then two characters longer than its text. */
		struct loc at = v->loc;
		size_t chars = 0;
		for (size_t k = 0; k < v->len; k++)
			chars += ((unsigned char)v->text[k] & 0xC0) != 0x80;
		if (at.len == (int)chars + 2)
			at.col++;
		struct claim c;
		if (!claim_parse(v->text, v->len, at, false, &c, ctx->d))
			continue;
		key_at.len = 0;
		struct expr *e = expr_parse(key, strlen(key), key_at, ctx->d);
		if (!e)
			continue;
		size_t id = claims_add(cl, &c, key, strlen(key));
		struct eval ev = {0};
		if (memoize_eval_in(ctx, ctx->scope, e, key, strlen(key), &ev)) {
			struct buf shown = BUF_INIT;
			show_text(&shown, &ev, NULL);
			claims_check(cl, id, ctx, &ev, buf_data(&shown), "front matter");
			buf_free(&shown);
		}
		eval_clear(&ev);
		expr_free(e);
	}
}

void claims_free(struct claims *cl)
{
	for (size_t i = 0; i < cl->n; i++) {
		free(cl->p[i].expr);
		free(cl->p[i].claim);
	}
	free(cl->p);
	free(cl->parsed);
	*cl = (struct claims){0};
}
