/* directive.c: what the three directives share (SPEC section 6): the
 * structured result they resolve to (directive.h), and reading their
 * bodies (body.h): keys checked, scalars placed, runs looked up,
 * captions resolved.
 *
 * Each directive takes a YAML body that doc.c has parsed, every node
 * with its place in the .md file, and goes key by key in document
 * order, so that the diagnostics come in the order of the lines they
 * point at: an unknown key, a value of the wrong kind, an expression
 * that does not parse, a pattern that does not compile.  The directives
 * themselves are table.c, excerpt.c ({log}) and chartspec.c. */
#include "resolve/directive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "resolve/format.h"
#include "resolve/show.h"
#include "data/run.h"
#include "base/util.h"

/* --- the result --- */

void directive_text_add(struct directive_text *t, const char *text, size_t len,
			const char *href, bool value, bool missing)
{
	if (!len && !value)
		return;
	/* the bytes as they are: a value from a log may hold a NUL, which
	 * the page shows as a symbol */
	char *copy = xmalloc(len + 1);
	memcpy(copy, text, len);
	copy[len] = '\0';
	t->p = xrealloc(t->p, (t->n + 1) * sizeof *t->p);
	t->p[t->n++] = (struct directive_piece){copy, href ? xstrdup(href) : NULL, value, missing,
						 len, NULL, false, false, false};
}

void directive_text_clear(struct directive_text *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->p[i].text);
		free(t->p[i].href);
		free(t->p[i].title);
	}
	free(t->p);
	t->p = NULL;
	t->n = 0;
}

void directive_result_clear(struct directive_result *r)
{
	if (!r)
		return;
	free(r->label);
	directive_text_clear(&r->caption);
	for (size_t i = 0; i < r->rows * r->cols; i++)
		directive_text_clear(&r->cells[i].text);
	free(r->cells);
	for (size_t i = 0; i < r->nlines; i++) {
		free(r->lines[i].text);
		free(r->lines[i].href);
	}
	free(r->lines);
	chart_clear(&r->chart);
	for (size_t i = 0; i < r->ndigest; i++)
		free(r->digest[i].name);
	free(r->digest);
	free(r->figure);
	free(r->alt);
	free(r->svg);
	memset(r, 0, sizeof *r);
}

/* --- reading a body: keys, scalars, runs --- */

/* A scalar that reads as text: a string, or a number as written. */
bool is_text(const struct value *v)
{
	return v->kind == VALUE_STRING || (v->kind == VALUE_NUMBER && v->text);
}

static size_t utf8_chars(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

/* Where byte `off` of scalar v's text was written, `len` wide.  The
 * value knows only where its scalar starts and how wide it is, so a
 * scalar wider than its text by the two quotes is taken as quoted and
 * its text as starting one column in.  (An escape inside a quoted
 * scalar shifts what follows it: the column is then approximate.) */
struct loc scalar_at(const struct value *v, size_t off, int len)
{
	struct loc at = v->loc;
	if (at.line > 0 && at.col > 0 && v->text) {
		size_t w = (size_t)(at.len > 0 ? at.len : 0);
		if (w >= v->len + 2 || w >= utf8_chars(v->text, v->len) + 2)
			at.col++;
		at.col += (int)off;
	}
	at.len = len;
	return at;
}

/* The value as the author wrote it, for a message: 'text', or its kind. */
static void put_written(struct buf *b, const struct value *v)
{
	if (is_text(v))
		buf_printf(b, "'%s'", v->text);
	else if (v->kind == VALUE_BOOL)
		buf_printf(b, "'%s'", v->boolean ? "true" : "false");
	else if (v->kind == VALUE_NULL)
		buf_puts(b, "nothing");
	else
		buf_puts(b, value_kind_name(v->kind));
}

/* Reports "KEY must be WHAT, not 'x'" at v. */
void bad_value(struct diag *d, const struct value *v, const char *key, const char *what)
{
	struct buf b = BUF_INIT;
	put_written(&b, v);
	diag_error(d, v->loc, "%s must be %s, not %s", key, what, buf_data(&b));
	buf_free(&b);
}

/* A whole number of at least min (and at most a billion) into *out;
 * false after an error. */
bool want_count(struct diag *d, const struct value *v, const char *key, long min, long *out)
{
	if (v->kind == VALUE_NUMBER && v->number >= (double)min && v->number <= 1e9 &&
	    v->number == floor(v->number)) {
		*out = (long)v->number;
		return true;
	}
	bad_value(d, v, key, min > 0 ? "a positive integer" : "a whole number, 0 or more");
	return false;
}

static const struct scope empty_scope;

const struct scope *ctx_scope(const struct directive_ctx *c)
{
	return c->scope ? c->scope : &empty_scope;
}

const struct run *find_run(const struct directive_ctx *c, const char *name)
{
	const struct scope *sc = ctx_scope(c);
	for (size_t i = 0; i < sc->nruns; i++) {
		if (sc->runs[i] && strcmp(run_name(sc->runs[i]), name) == 0) {
			if (sc->runs_used)
				sc->runs_used[i] = true;
			return sc->runs[i];
		}
	}
	return NULL;
}

long find_set(const struct directive_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->nsets; i++) {
		if (strcmp(c->set_names[i], name) == 0) {
			if (c->sets_used)
				c->sets_used[i] = true;
			return (long)i;
		}
	}
	return -1;
}

/* The names of the run sets (when sets) and of the runs, NULL-terminated,
 * for a did-you-mean.  The strings are borrowed; caller frees the
 * array. */
static const char **known_names(const struct directive_ctx *c, bool sets)
{
	const struct scope *sc = ctx_scope(c);
	size_t n = (sets ? c->nsets : 0) + sc->nruns;
	const char **names = xcalloc(n + 1, sizeof *names);
	size_t k = 0;
	for (size_t i = 0; sets && i < c->nsets; i++)
		names[k++] = c->set_names[i];
	for (size_t i = 0; i < sc->nruns; i++)
		if (sc->runs[i])
			names[k++] = run_name(sc->runs[i]);
	return names;
}

/* Reports that name (written at `at`) is not a run, or not a run set
 * either when sets, with the closest name. */
void unknown_run(const struct directive_ctx *c, struct loc at, const char *name, bool sets)
{
	/* one that did not load has its error above; the report gets one
	 * note for all its uses (site/build.c) */
	if (expr_failed_use(ctx_scope(c), name, at))
		return;
	const char **names = known_names(c, sets);
	const char *close = closest_name(name, names);
	struct buf b = BUF_INIT;
	if (sets)
		buf_printf(&b, "'%s' is not a run set or a run", name);
	else
		buf_printf(&b, "run '%s' is not defined", name);
	if (close)
		buf_printf(&b, " (did you mean '%s'?)", close);
	diag_error(c->d, at, "%s", buf_data(&b));
	buf_free(&b);
	free(names);
}


/* --- captions --- */

void read_caption(struct directive_ctx *c, const struct value *v, struct directive_result *out)
{
	struct directive_text *cap = &out->caption;
	out->has_caption = true;
	const char *p = v->text, *end = v->text + v->len;
	while (p < end) {
		const char *open = strstr(p, "{{");
		const char *close = open ? strstr(open + 2, "}}") : NULL;
		if (!open || !close) {
			directive_text_add(cap, p, (size_t)(end - p), NULL, false, false);
			break;
		}
		directive_text_add(cap, p, (size_t)(open - p), NULL, false, false);
		const char *inner = open + 2;
		size_t n = (size_t)(close - inner), expr_len, spec_off;
		show_split_spec(inner, n, &expr_len, &spec_off);
		struct format fmt;
		bool has_fmt = false, ok = true;
		if (spec_off < n) {
			const char *spec = inner + spec_off;
			size_t spec_len = n - spec_off;
			while (spec_len && spec[spec_len - 1] == ' ')
				spec_len--;
			while (spec_len && spec[0] == ' ')
				spec++, spec_len--;
			has_fmt = ok = format_parse(spec, spec_len,
						    scalar_at(v, (size_t)(spec - v->text), (int)spec_len),
						    &fmt, c->d);
		}
		struct expr *e = ok ? expr_parse(inner, expr_len,
						 scalar_at(v, (size_t)(inner - v->text), 0), c->d)
				    : NULL;
		struct eval ev;
		if (e && expr_eval_one(e, ctx_scope(c), &ev, c->d)) {
			show_piece(c, cap, &ev, has_fmt ? &fmt : NULL);
			eval_clear(&ev);
		}
		expr_free(e);
		p = close + 2;
	}
}
